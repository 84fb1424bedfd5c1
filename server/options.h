/*
 * options.h - sweepd's settings: defaults, the command line and the
 * optional `key = value` config file, whose keys are the long option names
 * (so `max-sessions = 100` in a file means `--max-sessions 100`).
 *
 * Options apply in the order given: a --config FILE is read where it
 * appears, so options after it override the file and options before it are
 * overridden by it. --map accumulates from both. Every value is checked
 * here, with a message naming the option, so the server never starts with a
 * limit it cannot honour.
 */
#ifndef SWEEP_SERVER_OPTIONS_H
#define SWEEP_SERVER_OPTIONS_H

#include "core/version.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol/token.h"
#include "server/world/log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_SERVER_MAX_MAPS 16
#define SWEEP_SERVER_PATH_MAX 1024
#define SWEEP_SERVER_DEFAULT_PORT 7878
#define SWEEP_SERVER_TOKEN_MAX 256 /* --command-token: at most 255 bytes */
#define SWEEP_SERVER_VERSION SWEEP_VERSION

typedef struct sweep_server_options {
    char maps[SWEEP_SERVER_MAX_MAPS][SWEEP_SERVER_PATH_MAX];
    unsigned map_count;
    char host[64];             /* numeric IPv4 or IPv6 address ("localhost" allowed) */
    int port;                  /* 0 = any free port usable for TCP and UDP */
    double tick_rate;          /* ticks per second for every world; 0 = each map's own */
    uint32_t max_sessions;     /* TCP and UDP sessions together */
    uint32_t max_entities;     /* per session of a player (or guest) */
    uint32_t max_entities_server; /* per session of the server role (a game server relaying its players) */
    uint32_t max_batch;        /* moves per MoveBatch */
    uint32_t max_frame;        /* TCP frame body bytes (prefix excluded) */
    uint32_t udp_max_datagram; /* largest UDP datagram a session may agree (Hello.max_datagram) */
    double rate_limit;         /* requests per second per session; 0 = unlimited */
    double rate_limit_server;  /* the same for a session of the server role (a game server); 0 = unlimited */
    uint32_t max_write_queue;  /* bytes waiting to be written to one TCP connection */
    double udp_idle_timeout;   /* seconds without a datagram before a UDP session is dropped */
    double drain_timeout;      /* seconds a closing connection may take to flush */
    double handshake_timeout;  /* seconds a TCP connection may stay without a session */
    double idle_timeout;       /* seconds a TCP session may send nothing before it is closed; 0 = never */
    uint32_t max_conns_per_address;      /* TCP connections open from one address (limits.h) */
    uint32_t max_handshakes_per_address; /* of those, without a session yet */
    uint32_t max_sessions_per_address;   /* sessions of one address, TCP and UDP */
    uint32_t max_memory_mb;    /* MiB all TCP connections and entities may hold together; 0 = a quarter of the machine's */
    sweep_log_level log_level;
    char command_token[SWEEP_SERVER_TOKEN_MAX]; /* Hello.auth_token giving the server role; "" = none */
    int players_block;         /* entities are obstacles to each other (core/crowd.h) */
    /* Identity (protocol/token.h). */
    char auth_secret_file[SWEEP_SERVER_PATH_MAX]; /* where the secret was read from; "" = none */
    uint8_t auth_secret[SWEEP_TOKEN_SECRET_MAX];   /* the HMAC key of sweep1 tokens */
    size_t auth_secret_len;                        /* 0 = no secret: no token is accepted */
    int auth_secret_loose;     /* the file is readable by group or others (warned about) */
    int allow_guests;          /* 1, 0, or -1: the default, on without a secret and off with one */
    /* Authority. */
    int allow_free_move;       /* server-role sessions may send Fly and Noclip moves */
    double time_bank;          /* seconds of motion a player's entity may bank */
    /* Pose history and queries (server/world/history.c, queries.c). */
    uint32_t history_ms;       /* poses kept per world; 0 = the default (1000) */
    uint32_t rewind_cap_ms;    /* how far back a player may query; 0 = the default (250) */
    uint32_t history_entities; /* entities a world's history keeps (and the world may hold) */
    uint32_t history_memory_mb; /* MiB one world's history may take; 0 = no limit */
    double query_rate;         /* query items a player session may ask a second; 0 = unlimited */
    /* Session logs (server/record/record.h). */
    char record_dir[SWEEP_SERVER_PATH_MAX]; /* "" = no recording */
    uint32_t record_max_mb;    /* a segment ends past this many MiB; 0 = no limit */
    double record_max_seconds; /* ... or past this many seconds; 0 = no limit */
    uint32_t record_hash_every; /* ticks between state hashes in the log */
    char record_name[65];      /* in place of the UTC start in log names; "" = the start */
    uint64_t seed;             /* entity ids drawn from this seed (recorded in HEAD); 0 = at random */
    /* Prometheus metrics over HTTP (server/metrics.h). */
    int metrics;               /* serve GET /metrics on metrics_host:metrics_port */
    char metrics_host[64];     /* numeric IPv4 or IPv6 address, as --listen's */
    int metrics_port;          /* 0 = any free port (the ready line names it) */
    double health_stall;       /* seconds without a loop turn before GET /healthz answers 503 */
    /* Event-loop threads; world i runs on thread i mod threads (threads.c). */
    uint32_t threads;          /* 1 = everything on the thread that runs the server */
    /* The event-loop threads' real-time priority (SCHED_FIFO, 1 to 99);
     * 0 = the default scheduling (threads.c). */
    uint32_t realtime;
    uint32_t udp_thread_ports; /* thread i's own UDP port is this + i; 0 = the kernel picks */
    /* Worlds opened at run time (OpenWorld, server/world_open.c). */
    char maps_dir[SWEEP_SERVER_PATH_MAX]; /* the maps an OpenWorld may name; "" = none */
    uint32_t max_worlds;          /* worlds open at once, the --map ones included */
    uint64_t max_world_triangles; /* static triangles of the open worlds together; 0 = no limit */
    /* The Agones SDK (server/agones.h), over its REST gateway on localhost. */
    int agones;                   /* SWEEP_AGONES_AUTO (on when AGONES_SDK_HTTP_PORT is set), _ON or _OFF */
    uint32_t agones_health_ms;    /* milliseconds between Health pings */
    int agones_shutdown_empty;    /* Shutdown once the last world closes */
} sweep_server_options;

enum { SWEEP_AGONES_OFF = 0, SWEEP_AGONES_ON = 1, SWEEP_AGONES_AUTO = 2 };

/* 127.0.0.1:7878, map tick rates, 1024 sessions, 64 entities, batches of
 * 64, 64 KiB frames, 20000 requests/s, 1 MiB write queue, 30 s UDP idle
 * timeout, 2 s drain, 5 s to say Hello, 60 s TCP idle timeout, per address
 * 64 connections, 16 of them without a session and 64 sessions, connection
 * memory a quarter of the machine's, log level info, no maps, no
 * command token and no auth secret (nobody gets the server role; everyone
 * is a guest player), entities pass through each other, no Fly or Noclip
 * moves, a time bank of 0.25 s, no metrics endpoint (a 2 s health stall
 * bound for when there is one), one thread, no maps
 * directory, at most 64 worlds and no limit on their triangles, the Agones
 * SDK when AGONES_SDK_HTTP_PORT is set, a Health ping every 2 s and
 * Shutdown once the last world closes. */
void sweep_server_options_default(sweep_server_options *opt);

/* Result of parsing. */
enum {
    SWEEP_OPTIONS_OK = 0,   /* run the server */
    SWEEP_OPTIONS_EXIT = 1, /* --help or --version was printed: exit 0 */
    SWEEP_OPTIONS_ERROR = -1
};

/* Parses argv[1..argc) into *opt (start from the defaults). --help and
 * --version print to `out`. On error err holds one line naming the option. */
int sweep_server_options_parse(sweep_server_options *opt, int argc, char **argv, FILE *out, char *err,
                               size_t errlen);

/* Applies one `key = value` config file. */
int sweep_server_options_load_file(sweep_server_options *opt, const char *path, char *err, size_t errlen);

/* Applies one setting by its long name (without "--"); value may be NULL
 * only for flags. For tests and the config file. */
int sweep_server_options_set(sweep_server_options *opt, const char *key, const char *value, char *err,
                             size_t errlen);

/* Final checks after parsing: at least one map, or a maps directory. */
int sweep_server_options_check(const sweep_server_options *opt, char *err, size_t errlen);

/* The threads sweepd starts: --threads, at most one per --map world when
 * no maps directory may bring others. */
uint32_t sweep_server_options_threads(const sweep_server_options *opt);

/* The --help text. */
void sweep_server_options_usage(FILE *out);

/* "error", "warn", "info", "debug" -> level; -1 if unknown. */
int sweep_log_level_parse(const char *name);

#ifdef __cplusplus
}
#endif

#endif
