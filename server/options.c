/*
 * options.c - sweepd's command line and config file (see options.h).
 *
 * Both go through one table of settings, so a key in a config file and the
 * long option of the same name can never disagree on meaning or range.
 * Numbers are parsed strictly (the whole value, in range) because a typo in
 * a limit must stop the server, not silently become 0.
 */
#include "server/options.h"

#include "core/parse.h"
#include "protocol/framing.h"
#include "server/record/record.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sweep_server_options_default(sweep_server_options *opt)
{
    memset(opt, 0, sizeof *opt);
    snprintf(opt->host, sizeof opt->host, "127.0.0.1");
    opt->port = SWEEP_SERVER_DEFAULT_PORT;
    opt->tick_rate = 0.0;
    opt->max_sessions = 1024;
    opt->max_entities = 64;
    opt->max_entities_server = 4096;
    opt->max_batch = 64;
    opt->max_frame = 64u * 1024u;
    opt->udp_max_datagram = SWEEP_UDP_MAX_DATAGRAM;
    opt->rate_limit = 20000.0;
    opt->rate_limit_server = 0.0;
    opt->max_write_queue = 1024u * 1024u;
    opt->udp_idle_timeout = 30.0;
    opt->drain_timeout = 2.0;
    opt->handshake_timeout = 5.0;
    opt->idle_timeout = 60.0;
    opt->max_conns_per_address = 64;
    opt->max_handshakes_per_address = 16;
    opt->max_sessions_per_address = 64;
    opt->max_memory_mb = 0;
    opt->log_level = SWEEP_LOG_INFO;
    opt->allow_guests = -1;
    opt->time_bank = 0.25;
    opt->history_entities = 1024;
    opt->history_memory_mb = 256;
    opt->query_rate = 120.0;
    opt->record_max_mb = 256;
    opt->record_hash_every = 60;
    snprintf(opt->metrics_host, sizeof opt->metrics_host, "127.0.0.1");
    opt->health_stall = 2.0;
    opt->threads = 1;
    opt->max_worlds = 64;
    opt->agones = SWEEP_AGONES_AUTO;
    opt->agones_health_ms = 2000;
    opt->agones_shutdown_empty = 1;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SWEEP_OPTIONS_ERROR;
}

int sweep_log_level_parse(const char *name)
{
    static const char *names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    if (strcmp(name, "warning") == 0)
        return SWEEP_LOG_WARN;
    return -1;
}

/* Strict unsigned parse of the whole string into [lo, hi]. */
static int parse_u32(const char *key, const char *v, uint32_t lo, uint32_t hi, uint32_t *out, char *err,
                     size_t errlen)
{
    char *end;
    errno = 0;
    if (!*v || *v == '-' || isspace((unsigned char)*v))
        return fail(err, errlen, "--%s: '%s' is not a whole number", key, v);
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end)
        return fail(err, errlen, "--%s: '%s' is not a whole number", key, v);
    if (x < lo || x > hi)
        return fail(err, errlen, "--%s: %s is out of range [%u, %u]", key, v, lo, hi);
    *out = (uint32_t)x;
    return SWEEP_OPTIONS_OK;
}

/* Strict finite double parse of the whole string into [lo, hi]. */
static int parse_double(const char *key, const char *v, double lo, double hi, double *out, char *err,
                        size_t errlen)
{
    char *end;
    errno = 0;
    if (!*v || isspace((unsigned char)*v))
        return fail(err, errlen, "--%s: '%s' is not a number", key, v);
    double x = strtod(v, &end);
    if (errno || *end || !isfinite(x))
        return fail(err, errlen, "--%s: '%s' is not a number", key, v);
    if (x < lo || x > hi)
        return fail(err, errlen, "--%s: %s is out of range [%g, %g]", key, v, lo, hi);
    *out = x;
    return SWEEP_OPTIONS_OK;
}

/* on|off (also yes|no, 1|0). */
static int parse_on_off(const char *key, const char *v, int *out, char *err, size_t errlen)
{
    if (strcmp(v, "on") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0)
        *out = 1;
    else if (strcmp(v, "off") == 0 || strcmp(v, "no") == 0 || strcmp(v, "0") == 0)
        *out = 0;
    else
        return fail(err, errlen, "--%s: '%s' is not on or off", key, v);
    return SWEEP_OPTIONS_OK;
}

/* HOST:PORT, [V6]:PORT or :PORT (host kept) for the option `key` (--listen,
 * --metrics), into host (64 bytes) and port. */
static int parse_host_port(const char *key, const char *v, char *host_out, int *port_out, char *err, size_t errlen)
{
    const char *colon;
    char host[64];
    if (v[0] == '[') {
        const char *close = strchr(v, ']');
        if (!close || close[1] != ':')
            return fail(err, errlen, "--%s: '%s' is not [IPV6]:PORT", key, v);
        size_t n = (size_t)(close - v - 1);
        if (n == 0 || n >= sizeof host)
            return fail(err, errlen, "--%s: bad host in '%s'", key, v);
        memcpy(host, v + 1, n);
        host[n] = 0;
        colon = close + 1;
    } else {
        colon = strrchr(v, ':');
        if (!colon)
            return fail(err, errlen, "--%s: '%s' is not HOST:PORT", key, v);
        size_t n = (size_t)(colon - v);
        if (n >= sizeof host)
            return fail(err, errlen, "--%s: host too long in '%s'", key, v);
        memcpy(host, v, n);
        host[n] = 0;
        if (memchr(host, ':', n))
            return fail(err, errlen, "--%s: write IPv6 addresses as [ADDR]:PORT", key);
    }
    uint32_t port;
    if (parse_u32(key, colon + 1, 0, 65535, &port, err, errlen) != SWEEP_OPTIONS_OK)
        return SWEEP_OPTIONS_ERROR;
    if (host[0])
        snprintf(host_out, 64, "%s", host);
    *port_out = (int)port;
    return SWEEP_OPTIONS_OK;
}

static int parse_listen(sweep_server_options *opt, const char *v, char *err, size_t errlen)
{
    _Static_assert(sizeof opt->host == 64, "parse_host_port writes 64-byte hosts");
    return parse_host_port("listen", v, opt->host, &opt->port, err, errlen);
}

/* --metrics HOST:PORT, or off (a config file's setting undone). */
static int parse_metrics(sweep_server_options *opt, const char *v, char *err, size_t errlen)
{
    _Static_assert(sizeof opt->metrics_host == 64, "parse_host_port writes 64-byte hosts");
    if (strcmp(v, "off") == 0) {
        opt->metrics = 0;
        return SWEEP_OPTIONS_OK;
    }
    if (parse_host_port("metrics", v, opt->metrics_host, &opt->metrics_port, err, errlen) != SWEEP_OPTIONS_OK)
        return SWEEP_OPTIONS_ERROR;
    opt->metrics = 1;
    return SWEEP_OPTIONS_OK;
}

int sweep_server_options_set(sweep_server_options *opt, const char *key, const char *value, char *err,
                             size_t errlen)
{
    if (!value)
        return fail(err, errlen, "--%s needs a value", key);
    if (strcmp(key, "map") == 0) {
        if (opt->map_count >= SWEEP_SERVER_MAX_MAPS)
            return fail(err, errlen, "--map: at most %d maps", SWEEP_SERVER_MAX_MAPS);
        if (!*value || strlen(value) >= SWEEP_SERVER_PATH_MAX)
            return fail(err, errlen, "--map: bad path '%s'", value);
        snprintf(opt->maps[opt->map_count++], SWEEP_SERVER_PATH_MAX, "%s", value);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "maps-dir") == 0) {
        if (!*value || strlen(value) >= sizeof opt->maps_dir)
            return fail(err, errlen, "--maps-dir: bad directory '%s'", value);
        snprintf(opt->maps_dir, sizeof opt->maps_dir, "%s", value);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "max-worlds") == 0)
        return parse_u32(key, value, 1, 65536, &opt->max_worlds, err, errlen);
    if (strcmp(key, "max-world-triangles") == 0) {
        uint32_t v;
        if (parse_u32(key, value, 0, 4000000000u, &v, err, errlen) != SWEEP_OPTIONS_OK)
            return SWEEP_OPTIONS_ERROR;
        opt->max_world_triangles = v;
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "agones") == 0) {
        if (strcmp(value, "auto") == 0) {
            opt->agones = SWEEP_AGONES_AUTO;
            return SWEEP_OPTIONS_OK;
        }
        return parse_on_off(key, value, &opt->agones, err, errlen);
    }
    if (strcmp(key, "agones-health-ms") == 0)
        /* Above the housekeeping period (100 ms): each ping needs a beat of every loop. */
        return parse_u32(key, value, 250, 600000, &opt->agones_health_ms, err, errlen);
    if (strcmp(key, "agones-shutdown-when-empty") == 0)
        return parse_on_off(key, value, &opt->agones_shutdown_empty, err, errlen);
    if (strcmp(key, "listen") == 0)
        return parse_listen(opt, value, err, errlen);
    if (strcmp(key, "metrics") == 0)
        return parse_metrics(opt, value, err, errlen);
    if (strcmp(key, "health-stall") == 0)
        return parse_double(key, value, 0.2, 3600.0, &opt->health_stall, err, errlen);
    if (strcmp(key, "tick-rate") == 0)
        return parse_double(key, value, 0.0, SWEEP_RECORD_TICK_RATE_LIMIT, &opt->tick_rate, err, errlen);
    if (strcmp(key, "max-sessions") == 0)
        return parse_u32(key, value, 1, 1000000, &opt->max_sessions, err, errlen);
    if (strcmp(key, "threads") == 0)
        return parse_u32(key, value, 1, SWEEP_SERVER_MAX_MAPS, &opt->threads, err, errlen);
    if (strcmp(key, "realtime") == 0)
        return parse_u32(key, value, 0, 99, &opt->realtime, err, errlen);
    if (strcmp(key, "udp-thread-ports") == 0)
        return parse_u32(key, value, 0, 65535, &opt->udp_thread_ports, err, errlen);
    if (strcmp(key, "max-entities") == 0)
        return parse_u32(key, value, 1, 100000, &opt->max_entities, err, errlen);
    if (strcmp(key, "max-entities-server") == 0)
        return parse_u32(key, value, 1, SWEEP_RECORD_COUNT_LIMIT, &opt->max_entities_server, err, errlen);
    if (strcmp(key, "max-batch") == 0)
        return parse_u32(key, value, 1, SWEEP_RECORD_MAX_BATCH_LIMIT, &opt->max_batch, err, errlen);
    if (strcmp(key, "max-frame") == 0)
        return parse_u32(key, value, 256, SWEEP_RECORD_MAX_FRAME_LIMIT, &opt->max_frame, err, errlen);
    if (strcmp(key, "udp-max-datagram") == 0) {
        if (parse_u32(key, value, SWEEP_UDP_MAX_DATAGRAM, SWEEP_UDP_LARGEST_DATAGRAM, &opt->udp_max_datagram, err,
                      errlen) == SWEEP_OPTIONS_OK)
            return SWEEP_OPTIONS_OK;
        /* Below, a client that takes only the protocol's 1200 would be
         * refused; above, no IPv4 datagram carries it. */
        size_t n = strlen(err);
        if (n < errlen)
            snprintf(err + n, errlen - n, " (%u: what every client takes; %u: the largest UDP payload over IPv4)",
                     SWEEP_UDP_MAX_DATAGRAM, SWEEP_UDP_LARGEST_DATAGRAM);
        return SWEEP_OPTIONS_ERROR;
    }
    if (strcmp(key, "rate-limit") == 0)
        return parse_double(key, value, 0.0, 1e9, &opt->rate_limit, err, errlen);
    if (strcmp(key, "rate-limit-server") == 0)
        return parse_double(key, value, 0.0, 1e9, &opt->rate_limit_server, err, errlen);
    if (strcmp(key, "max-write-queue") == 0)
        return parse_u32(key, value, 4096, 1024u * 1024u * 1024u, &opt->max_write_queue, err, errlen);
    if (strcmp(key, "udp-idle-timeout") == 0)
        return parse_double(key, value, 0.1, 86400.0, &opt->udp_idle_timeout, err, errlen);
    if (strcmp(key, "drain-timeout") == 0)
        return parse_double(key, value, 0.0, 600.0, &opt->drain_timeout, err, errlen);
    if (strcmp(key, "handshake-timeout") == 0)
        return parse_double(key, value, 0.1, 3600.0, &opt->handshake_timeout, err, errlen);
    if (strcmp(key, "idle-timeout") == 0) {
        if (parse_double(key, value, 0.0, 86400.0, &opt->idle_timeout, err, errlen) != SWEEP_OPTIONS_OK)
            return SWEEP_OPTIONS_ERROR;
        if (opt->idle_timeout > 0.0 && opt->idle_timeout < 0.1)
            return fail(err, errlen, "--idle-timeout: %s is below 0.1 s (0 turns it off)", value);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "max-conns-per-address") == 0)
        return parse_u32(key, value, 1, 1000000, &opt->max_conns_per_address, err, errlen);
    if (strcmp(key, "max-handshakes-per-address") == 0)
        return parse_u32(key, value, 1, 1000000, &opt->max_handshakes_per_address, err, errlen);
    if (strcmp(key, "max-sessions-per-address") == 0)
        return parse_u32(key, value, 1, 1000000, &opt->max_sessions_per_address, err, errlen);
    if (strcmp(key, "max-memory") == 0)
        return parse_u32(key, value, 0, 16u * 1024u * 1024u, &opt->max_memory_mb, err, errlen);
    if (strcmp(key, "log-level") == 0) {
        int l = sweep_log_level_parse(value);
        if (l < 0)
            return fail(err, errlen, "--log-level: '%s' is not error, warn, info or debug", value);
        opt->log_level = (sweep_log_level)l;
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "command-token") == 0) {
        size_t n = strlen(value);
        if (n == 0)
            return fail(err, errlen, "--command-token: the token is empty (leave the option out to trust no session)");
        if (n >= sizeof opt->command_token)
            return fail(err, errlen, "--command-token: the token is %zu bytes; at most %u", n,
                        SWEEP_SERVER_TOKEN_MAX - 1);
        memcpy(opt->command_token, value, n + 1);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "players-block") == 0)
        return parse_on_off(key, value, &opt->players_block, err, errlen);
    if (strcmp(key, "allow-guests") == 0)
        return parse_on_off(key, value, &opt->allow_guests, err, errlen);
    if (strcmp(key, "allow-free-move") == 0)
        return parse_on_off(key, value, &opt->allow_free_move, err, errlen);
    if (strcmp(key, "time-bank") == 0)
        return parse_double(key, value, 0.001, SWEEP_RECORD_TIME_BANK_LIMIT, &opt->time_bank, err, errlen);
    if (strcmp(key, "history-ms") == 0)
        return parse_u32(key, value, 1, SWEEP_RECORD_HISTORY_MS_LIMIT, &opt->history_ms, err, errlen);
    if (strcmp(key, "rewind-cap-ms") == 0)
        return parse_u32(key, value, 1, SWEEP_RECORD_HISTORY_MS_LIMIT, &opt->rewind_cap_ms, err, errlen);
    if (strcmp(key, "history-entities") == 0)
        return parse_u32(key, value, 1, SWEEP_RECORD_COUNT_LIMIT, &opt->history_entities, err, errlen);
    if (strcmp(key, "history-memory") == 0)
        return parse_u32(key, value, 0, 1024u * 1024u, &opt->history_memory_mb, err, errlen);
    if (strcmp(key, "query-rate") == 0)
        return parse_double(key, value, 0.0, 1e9, &opt->query_rate, err, errlen);
    if (strcmp(key, "auth-secret-file") == 0) {
        char sub[600];
        if (!*value || strlen(value) >= sizeof opt->auth_secret_file)
            return fail(err, errlen, "--auth-secret-file: bad path '%s'", value);
        if (sweep_token_secret_read(value, opt->auth_secret, &opt->auth_secret_len, &opt->auth_secret_loose, sub,
                                    sizeof sub) != 0)
            return fail(err, errlen, "--auth-secret-file: %s", sub);
        snprintf(opt->auth_secret_file, sizeof opt->auth_secret_file, "%s", value);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "record") == 0) {
        if (!*value || strlen(value) >= sizeof opt->record_dir)
            return fail(err, errlen, "--record: bad directory '%s'", value);
        snprintf(opt->record_dir, sizeof opt->record_dir, "%s", value);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "record-max-mb") == 0)
        return parse_u32(key, value, 0, 1024u * 1024u, &opt->record_max_mb, err, errlen);
    if (strcmp(key, "record-max-seconds") == 0)
        return parse_double(key, value, 0.0, 30.0 * 86400.0, &opt->record_max_seconds, err, errlen);
    if (strcmp(key, "record-hash-every") == 0)
        return parse_u32(key, value, 1, 1000000, &opt->record_hash_every, err, errlen);
    if (strcmp(key, "record-name") == 0) {
        size_t n = strlen(value);
        if (n == 0 || n >= sizeof opt->record_name || strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                                  "0123456789._-") != n || value[0] == '.')
            return fail(err, errlen, "--record-name: '%s' is not 1 to %zu of A-Z a-z 0-9 . _ - (not starting with .)",
                        value, sizeof opt->record_name - 1);
        snprintf(opt->record_name, sizeof opt->record_name, "%s", value);
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "seed") == 0) {
        uint64_t v;
        if (!sweep_parse_u64(value, 0, UINT64_MAX, &v))
            return fail(err, errlen, "--seed: '%s' is not a whole number from 0 to 2^64-1", value);
        opt->seed = v;
        return SWEEP_OPTIONS_OK;
    }
    if (strcmp(key, "config") == 0)
        return sweep_server_options_load_file(opt, value, err, errlen);
    return fail(err, errlen, "unknown option --%s (see --help)", key);
}

/* Trims leading and trailing blanks in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

int sweep_server_options_load_file(sweep_server_options *opt, const char *path, char *err, size_t errlen)
{
    static int depth;
    if (depth > 4)
        return fail(err, errlen, "%s: config files nested too deep", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "--config: cannot open %s: %s", path, strerror(errno));
    char line[2048];
    int lineno = 0, rc = SWEEP_OPTIONS_OK;
    depth++;
    while (rc == SWEEP_OPTIONS_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fail(err, errlen, "%s:%d: line too long", path, lineno);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *s = trim(line);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = fail(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            break;
        }
        *eq = 0;
        char *key = trim(s), *value = trim(eq + 1);
        char sub[512];
        if (sweep_server_options_set(opt, key, value, sub, sizeof sub) != SWEEP_OPTIONS_OK)
            rc = fail(err, errlen, "%s:%d: %s", path, lineno, sub);
    }
    depth--;
    fclose(f);
    return rc;
}

void sweep_server_options_usage(FILE *out)
{
    fputs("usage: sweepd --map FILE [--map FILE ...] [--maps-dir DIR] [options]\n"
          "\n"
          "The sweep authoritative collision server: TCP (size-prefixed frames) and UDP\n"
          "(one message per datagram, challenge-cookie handshake) on the same port.\n"
          "When listening it prints one line to stdout:\n"
          "  sweepd ready tcp=HOST:PORT udp=HOST:PORT [metrics=HOST:PORT]\n"
          "\n"
          "options (every one may also be a 'key = value' line of a --config file):\n"
          "  --map FILE              a sweep map (SQLite); each is one world; repeatable.\n"
          "                          Hello.world picks one by map name or file stem;\n"
          "                          empty picks the first open\n"
          "  --maps-dir DIR          the maps a game server (a session of the server role)\n"
          "                          may open worlds of at run time with OpenWorld, by\n"
          "                          map name or file stem: the regular *.db files in DIR\n"
          "                          (without it, only the --map worlds; with it, no\n"
          "                          --map is needed)\n"
          "  --max-worlds N          worlds open at once, the --map ones included; an\n"
          "                          OpenWorld past it gets WorldLimit (default 64)\n"
          "  --max-world-triangles N static triangles of all open worlds together; an\n"
          "                          OpenWorld whose map would pass it gets WorldLimit\n"
          "                          (default 0: no limit)\n"
          "  --listen HOST:PORT      TCP and UDP address (default 127.0.0.1:7878; port 0\n"
          "                          picks a free port; IPv6 as [ADDR]:PORT)\n"
          "  --tick-rate HZ          ticks per second of every world (default: the map's)\n"
          "  --max-sessions N        sessions per server (default 1024)\n"
          "  --threads N             event-loop threads (default 1, at most 16): world i\n"
          "                          runs on thread i mod N, all of them on the one port;\n"
          "                          more threads than maps are not started, unless\n"
          "                          --maps-dir is given: a world opened at run time\n"
          "                          goes to the thread with the fewest entities (then\n"
          "                          the fewest worlds)\n"
          "  --realtime PRIO         run the event-loop threads at real-time priority\n"
          "                          PRIO (SCHED_FIFO, 1 to 99; 0, the default, leaves\n"
          "                          them at normal priority), so that nothing else on\n"
          "                          the machine, its own kernel threads included, holds\n"
          "                          a tick or an answer up; other threads stay normal.\n"
          "                          Needs CAP_SYS_NICE or an RLIMIT_RTPRIO of PRIO:\n"
          "                          refused at start otherwise\n"
          "  --udp-thread-ports P    with --threads N > 1, thread i's own UDP port (named\n"
          "                          in UDP Welcomes) is P + i, for a firewall or a\n"
          "                          container to publish; 0 = ports the kernel picks\n"
          "                          (default)\n"
          "  --max-entities N        entities per player session (default 64)\n"
          "  --max-entities-server N entities per session of the server role, a game\n"
          "                          server relaying its players (default 4096)\n"
          "  --max-batch N           moves per MoveBatch (default 64)\n"
          "  --max-frame BYTES       largest TCP frame body accepted (default 65536)\n"
          "  --udp-max-datagram BYTES\n"
          "                          largest UDP datagram a session may agree (1200 to\n"
          "                          65507): a client asking more in its Hello gets\n"
          "                          the smaller of both, announced in the Welcome, for\n"
          "                          every datagram both ways; past a path's MTU the IP\n"
          "                          layer fragments, so more is for loopback and\n"
          "                          known networks (default 1200)\n"
          "  --rate-limit N          requests per second per session, a batch counting\n"
          "                          one per move; 0 = unlimited (default 20000)\n"
          "  --rate-limit-server N   the same for a session of the server role (a game\n"
          "                          server relaying thousands of players); 0 = unlimited\n"
          "                          (default)\n"
          "  --max-write-queue BYTES memory held for answers waiting for one TCP client\n"
          "                          (buffers, not just answer bytes); past it the client\n"
          "                          is disconnected as a slow reader (default 1048576)\n"
          "  --max-memory MB         MiB all TCP connections and entities may hold\n"
          "                          together (structures, partial frames, queued\n"
          "                          answers; about 9 KiB an entity): a Spawn past it\n"
          "                          gets TooManyEntities, new connections are refused\n"
          "                          past 7/8 of it (default 0: a quarter of the\n"
          "                          machine's or cgroup's memory)\n"
          "  --max-conns-per-address N\n"
          "                          TCP connections open from one client address (an\n"
          "                          IPv4 address or an IPv6 /64); more are refused with\n"
          "                          an Error TooManySessions (default 64)\n"
          "  --max-handshakes-per-address N\n"
          "                          of those, connections that have not said Hello yet\n"
          "                          (default 16)\n"
          "  --max-sessions-per-address N\n"
          "                          sessions of one client address, TCP and UDP (64)\n"
          "  --udp-idle-timeout S    seconds of silence before a UDP session ends (30)\n"
          "  --idle-timeout S        seconds a TCP session may send nothing before it is\n"
          "                          closed with Bye \"idle timeout\" (60; 0 = never)\n"
          "  --drain-timeout S       seconds a closing connection may take to flush (2)\n"
          "  --handshake-timeout S   seconds a TCP connection may take to send its Hello\n"
          "                          before it is closed (5); until then it may send 8\n"
          "                          requests a second\n"
          "  --command-token TOKEN   sessions whose Hello.auth_token is TOKEN get the server\n"
          "                          role (default: none does). Put it in a --config\n"
          "                          file: a command line is visible to every local user\n"
          "  --auth-secret-file FILE the HMAC secret of identity tokens\n"
          "                          (sweep1:<role>:<identity>:<expiry>:<mac>, protocol/\n"
          "                          token.h); without it no token is accepted\n"
          "  --allow-guests on|off   sessions without a token are guest players (default:\n"
          "                          on without --auth-secret-file, off with it)\n"
          "  --allow-free-move on|off\n"
          "                          server-role sessions may send Fly and Noclip moves\n"
          "                          (default off; players never may)\n"
          "  --time-bank S           seconds of motion a player's entity may bank; a move\n"
          "                          asking more time than its budget gets only what it\n"
          "                          holds (default 0.25)\n"
          "  --history-ms MS         how far back each world keeps every entity's and\n"
          "                          mover's pose for lag-compensated Queries (default:\n"
          "                          the map's history_ms, 1000 unless it says; at most\n"
          "                          7680 ticks, a minute at 128 Hz)\n"
          "  --rewind-cap-ms MS      how far back of the newest tick a player's Query may\n"
          "                          ask; older is refused with TooOld (default: the\n"
          "                          map's rewind_cap_ms, 250 unless it says; the server\n"
          "                          role may ask anything the history keeps)\n"
          "  --history-entities N    entities a world's history keeps: a Spawn past it\n"
          "                          gets TooManyEntities (default 1024)\n"
          "  --history-memory MB     MiB one world's history may take (about 890 bytes an\n"
          "                          entity a tick, 52 KiB an entity a second at 60 Hz);\n"
          "                          a world whose history would take more is not opened\n"
          "                          (default 256; 0 = no limit)\n"
          "  --query-rate N          query items a player session may ask a second, paid\n"
          "                          by world ticks (RateLimited past it; default 120;\n"
          "                          0 = unlimited; the server role is never limited)\n"
          "  --players-block on|off  entities are obstacles to each other: each stands\n"
          "                          for the others as a small shell round its ellipsoid;\n"
          "                          moves are applied in the order they arrive, which\n"
          "                          decides who blocks whom (default off)\n"
          "  --record DIR            record every world's session log into DIR (a file\n"
          "                          per world, <stem>-<UTC start>-<segment>.sweeplog):\n"
          "                          requests that change the world, answers, ticks and\n"
          "                          state hashes; sweep-replay re-runs and checks it\n"
          "  --record-max-mb N       start a new segment past N MiB (default 256; 0 = never)\n"
          "  --record-max-seconds S  start a new segment past S seconds (default 0 = never)\n"
          "  --record-hash-every N   ticks between state hashes in the log (default 60)\n"
          "  --record-name NAME      name logs <stem>-NAME-<segment>.sweeplog instead of by\n"
          "                          their UTC start, for tests that look for them (an\n"
          "                          existing file of that name is never overwritten:\n"
          "                          the recording fails to start)\n"
          "  --seed N                draw entity ids from seed N (recorded in the log), so\n"
          "                          two runs of one script give the same ids and logs\n"
          "                          that compare; 0 (the default) draws them at random.\n"
          "                          Seeded ids can be guessed: for tests, not for games\n"
          "  --metrics HOST:PORT     serve Prometheus metrics (text format 0.0.4) on\n"
          "                          http://HOST:PORT/metrics (default: off; port 0 picks\n"
          "                          a free port, named on the ready line as metrics=;\n"
          "                          'off' undoes a config file's). Bind it to a private\n"
          "                          address: it has no authentication. The same port\n"
          "                          answers GET /healthz (liveness) and /readyz\n"
          "                          (readiness) for orchestrators' probes\n"
          "  --health-stall S        /healthz answers 503 when an event loop has not\n"
          "                          turned for S seconds (default 2)\n"
          "  --agones auto|on|off    speak the Agones SDK (REST on localhost at\n"
          "                          $AGONES_SDK_HTTP_PORT, default 9358): Ready once\n"
          "                          listening, Health while every loop runs, the Counter\n"
          "                          'worlds' and the List 'players', a world opened on\n"
          "                          the map an allocation names (annotation or label\n"
          "                          sweep.dev/map, world name sweep.dev/world); auto\n"
          "                          (default) is on when AGONES_SDK_HTTP_PORT is set\n"
          "  --agones-health-ms MS   milliseconds between Health pings (default 2000)\n"
          "  --agones-shutdown-when-empty on|off\n"
          "                          ask Agones to shut the GameServer down once the\n"
          "                          last open world closes (default on)\n"
          "  --log-level LEVEL       error, warn, info or debug (default info); logs are\n"
          "                          key=value lines on stderr, each starting with\n"
          "                          ts=<UTC time> t=<seconds since start>\n"
          "  --config FILE           read settings from FILE (keys = long option names)\n"
          "  --help                  this text\n"
          "  --version               print the version\n"
          "\n"
          "SIGTERM or SIGINT: stop accepting, answer what is in flight, send Bye, exit 0.\n"
          "SIGHUP: with --record, each world's log goes on in a new segment file.\n"
          "See sweepd(8).\n",
          out);
}

/* The last word of the command line had no value after it: say whether
 * it is an option at all before asking for its value. A copy takes the
 * probe, so the options given so far stay as they were. */
static int missing_value(const sweep_server_options *opt, const char *key, char *err, size_t errlen)
{
    sweep_server_options probe = *opt;
    char why[256];
    if (sweep_server_options_set(&probe, key, "", why, sizeof why) != SWEEP_OPTIONS_OK &&
        strncmp(why, "unknown option", 14) == 0)
        return fail(err, errlen, "%s", why);
    return fail(err, errlen, "--%s needs a value", key);
}

int sweep_server_options_parse(sweep_server_options *opt, int argc, char **argv, FILE *out, char *err,
                               size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            sweep_server_options_usage(out);
            return SWEEP_OPTIONS_EXIT;
        }
        if (strcmp(a, "--version") == 0) {
            fprintf(out, "sweepd %s\n", SWEEP_SERVER_VERSION);
            return SWEEP_OPTIONS_EXIT;
        }
        if (strncmp(a, "--", 2) != 0 || !a[2])
            return fail(err, errlen, "unexpected argument '%s' (see --help)", a);
        char key[64];
        const char *value;
        const char *eq = strchr(a + 2, '=');
        size_t klen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (klen >= sizeof key)
            return fail(err, errlen, "unknown option '%s' (see --help)", a);
        memcpy(key, a + 2, klen);
        key[klen] = 0;
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return missing_value(opt, key, err, errlen);
        if (sweep_server_options_set(opt, key, value, err, errlen) != SWEEP_OPTIONS_OK)
            return SWEEP_OPTIONS_ERROR;
    }
    return SWEEP_OPTIONS_OK;
}

uint32_t sweep_server_options_threads(const sweep_server_options *opt)
{
    /* A thread without a world would only pass work on; with a maps
     * directory every thread may get worlds opened at run time. */
    uint32_t n = opt->threads < 1 ? 1 : opt->threads;
    if (!opt->maps_dir[0] && n > opt->map_count)
        n = opt->map_count;
    return n;
}

int sweep_server_options_check(const sweep_server_options *opt, char *err, size_t errlen)
{
    if (opt->map_count == 0 && !opt->maps_dir[0])
        return fail(err, errlen, "no map given: use --map FILE or --maps-dir DIR (see --help)");
    if (opt->map_count > opt->max_worlds)
        return fail(err, errlen, "--max-worlds: %u --map worlds are more than %u", opt->map_count, opt->max_worlds);
    uint32_t started = sweep_server_options_threads(opt);
    if (opt->udp_thread_ports && started > 1 && opt->udp_thread_ports + (started - 1) > 65535)
        return fail(err, errlen, "--udp-thread-ports: %u threads from port %u run past port 65535", started,
                    opt->udp_thread_ports);
    return SWEEP_OPTIONS_OK;
}
