/*
 * server_impl.h - internal: the structures shared by the files of server/
 * (never installed, never included outside server/).
 *
 * Ownership and invariants:
 *   - The server owns served worlds (each allocated on its own, listed in
 *     an array of pointers that grows and shrinks as worlds open and
 *     close at run time, world_open.c: each a world of the world library,
 *     server/world/world.h, with its timer and its recording), connections
 *     (list) and sessions (list). A session's world outlives the session:
 *     a world ends its sessions before it is freed. Everything
 *     runs on its loop thread; nothing of a server is locked. With --threads
 *     there is one server per thread (threads.c); what they share is the
 *     group (sweep__group): atomics, and what its locks guard.
 *   - A TCP connection has at most one session; the session dies when the
 *     connection's handle is closed (close callback), never earlier, so a
 *     pointer conn->session stays valid for the whole life of the handle.
 *   - A UDP session is keyed by its source address in the address table and
 *     dies on Bye, idle timeout or shutdown.
 *   - A session is an owner of its world (sess->own): the world library
 *     keeps its entities (world.h says how). Entity ids are drawn at random
 *     (the kernel's generator), unique among the world's living.
 *   - A session's role is fixed at its Welcome; only SWEEP_WIRE_ROLE_SERVER
 *     sessions may send MoverCommand, spawn where they like, or send Fly
 *     and Noclip moves (the last only with --allow-free-move on), and only
 *     their moves are not charged to the entities' time budgets.
 *   - A connection's memory is counted where it is allocated: conn->mem
 *     is its structure plus the capacity of its three buffers (a partial
 *     frame, the answers in flight, the answers queued behind them),
 *     server->conn_mem is the sum over its connections and group->conn_mem
 *     over every thread's. The two answer
 *     buffers together never exceed max_write_queue except by the one
 *     final Error of a connection being dropped for it; the frame buffer
 *     never exceeds the prefix + max_frame.
 *   - group->addrs counts, per client address, the connections open, those
 *     of them OPEN without a session, and the sessions (TCP and UDP); each
 *     connection and UDP session adds itself once and takes itself off once.
 */
#ifndef SWEEP_SERVER_SERVER_IMPL_H
#define SWEEP_SERVER_SERVER_IMPL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <uv.h>

#include "protocol/protocol.h"
#include "server/agones.h"
#include "server/cookie.h"
#include "server/histogram.h"
#include "server/limits.h"
#include "server/metrics.h"
#include "server/options.h"
#include "server/server.h"
#include "server/stats.h"
#include "server/tick_timer.h"
#include "server/world/log.h"
#include "server/world/request_decoder.h"
#include "server/world/world.h"

typedef struct sweep__session sweep__session;
typedef struct sweep__conn sweep__conn;
typedef struct sweep__recorder sweep__recorder;

/* Most bytes of a world's name (Hello.world, WorldOpened.name), its NUL
 * not counted: a map's name (63), '#' and an id. */
#define SWEEP__WORLD_NAME_MAX 95

/* A world as sweepd serves it: the world library's world, the clock that
 * ticks it (world_clock.c) and its recording. Each is allocated on its
 * own, so a session's pointer to it stays valid while worlds open and
 * close around it; it is freed when it closes (world_open.c), after its
 * sessions ended. */
typedef struct sweep__served {
    sweep_server *server;      /* the thread that runs it */
    unsigned index;            /* id - 1: a --map world's place on the command line (logs, HEAD) */
    uint32_t id;               /* WorldOpened.world: non-zero, never reused while sweepd runs */
    char name[SWEEP__WORLD_NAME_MAX + 1]; /* what Hello.world names it by */
    char stem[SWEEP_LEVEL_NAME_MAX]; /* file name without directory and extension */
    char path[SWEEP_SERVER_PATH_MAX]; /* the map file */
    sweep__world *world;
    uint32_t session_count;    /* its sessions (Stats.worlds) */
    int started;               /* in its server's worlds: adopted by its thread (world_open.c) */
    uint64_t period_ns;
    uint64_t start_ns; /* tick n is due at start_ns + n * period_ns */
    sweep__tick_timer timer; /* world_clock.c */
    int timer_open;
    sweep__recorder *rec; /* --record: this world's session log (recorder.c); NULL when off */
    uint64_t id_draws;    /* --seed: entity ids drawn so far */
    /* Its figures for the metrics endpoint, published through its table entry. */
    sweep__histogram tick_time;    /* each tick's duration (world_clock.c) */
    sweep__histogram move_latency; /* Move and MoveBatch requests, arrival to answer queued (outcomes.c) */
    /* Its sessions that watch it (watch_every or watch_entities_every set):
     * the tick's pushes visit these, not every session of the thread. */
    sweep__session *watchers;
} sweep__served;

/* One open world in the group's table (world_table.c): what any thread
 * may read of a world that another runs, under the table's lock. */
typedef struct sweep__world_entry {
    uint32_t id;
    unsigned thread;           /* the thread that runs it */
    sweep__served *served;     /* dereferenced only on that thread */
    char name[SWEEP__WORLD_NAME_MAX + 1];
    char stem[SWEEP_LEVEL_NAME_MAX]; /* a --map world's file stem, which Hello.world may name; "" otherwise */
    char map[SWEEP_LEVEL_NAME_MAX];  /* the map's name */
    uint64_t dev, ino;         /* the map file: "the same map" of an OpenWorld resent */
    uint8_t hash[32];          /* the map's content hash (WorldOpened.map_hash) */
    uint32_t triangles;
    /* As of the owner's last publish (threads.c): Stats.worlds of another thread's worlds. */
    uint32_t sessions, entities;
    uint64_t tick;
    uint64_t moves;            /* moves applied in it */
    sweep__histogram tick_time, move_latency; /* its served's (the metrics endpoint's per-world series) */
} sweep__world_entry;

typedef enum sweep__transport { SWEEP__TCP = 0, SWEEP__UDP = 1 } sweep__transport;

/* What one UDP datagram of a session's agreed size holds (udp_fit.c). */
typedef struct sweep__udp_fit {
    uint32_t datagram;      /* bytes, both ways: the UDP Welcome's max_frame_size */
    uint32_t batch;         /* moves of a MoveBatch, each with a claim (sweep_udp_max_batch_claimed_in) */
    uint32_t movers;        /* movers of a WorldState (sweep_udp_max_movers_in) */
    uint32_t entity_states; /* entities of an EntityStates (sweep_udp_max_entity_states_in) */
} sweep__udp_fit;

struct sweep__session {
    uint64_t id;
    sweep_server *server;
    sweep__served *world;
    sweep__owner own;                  /* what the session is to its world: role, identity, entities, rules */
    sweep__transport transport;
    sweep__conn *conn;                 /* TCP */
    struct sockaddr_storage addr;      /* UDP: the verified source address */
    uint8_t cookie[SWEEP__COOKIE_SIZE]; /* UDP: the cookie of the Hello that created it */
    uint64_t udp_key;                   /* UDP: Welcome.udp_key, which its every later datagram carries
                                         * (the address alone can be forged); 0 over TCP */
    uint64_t last_seen_ns;             /* UDP idle timeout */
    uint64_t opened_ns;                /* when it was created: its duration in the close line */
    int udp_direct;                    /* UDP: its last datagram came to the thread's own port
                                        * (Welcome.udp_port): answers leave from there too */
    sweep__udp_fit udp_fit;            /* UDP: the datagram size its handshake agreed (1200 over TCP) */
    char peer[64];                     /* printable address */
    char client_name[64];
    sweep__bucket bucket;
    uint64_t turn;                     /* UDP: its share of a loop turn (udp.c): the datagrams */
    uint32_t turn_datagrams;           /* handled in turn `turn`, and those of its held for a */
    uint32_t held;                     /* later one (s->udp_held) */
    int rate_noticed;                  /* a RateLimited was sent, at rate_notice_ns */
    uint64_t rate_notice_ns;
    uint64_t rate_dropped;             /* requests dropped over the rate limit */
    uint32_t watch_every;              /* WorldState every N ticks; 0 = not watching */
    uint32_t watch_entities_every;     /* EntityStates every N ticks (server role); 0 = not watching */
    const char *close_reason;          /* why it ends, for the session log (static text) */
    int agones_listed;                 /* a player in the Agones List (agones.h) */
    sweep__session *prev, *next;       /* server list */
    sweep__session *addr_next;         /* UDP address table chain */
    sweep__session *watch_prev, *watch_next; /* its world's watchers */
    int watching;                      /* in that list */
};

typedef enum sweep__conn_state {
    SWEEP__CONN_OPEN = 0,
    SWEEP__CONN_DRAINING, /* no more reads; flushing, then close */
    SWEEP__CONN_CLOSING   /* uv_close called */
} sweep__conn_state;

struct sweep__conn {
    uv_tcp_t handle;
    uv_shutdown_t shutdown_req;
    uv_write_t write_req;       /* the one write in flight (tcp.c) */
    sweep_server *server;
    sweep__conn_state state;
    uint64_t drain_deadline_ns;
    uint64_t hello_deadline_ns; /* OPEN without a session past this: closed */
    uint64_t last_read_ms;      /* loop time of the last bytes read: the idle timeout */
    sweep__addr_key addr;       /* its entry in group->addrs */
    unsigned counted_handshake : 1, counted_session : 1; /* what it adds to that entry */
    unsigned handed_over : 1;   /* passed to another thread, which keeps its counts */
    unsigned handover_to;       /* set by a Hello for another thread's world: that thread + 1 */
    unsigned writing : 1;       /* write_req is in flight */
    unsigned shutdown_asked : 1;
    uint8_t *in;                /* the start of a frame not complete yet */
    size_t in_len, in_cap;
    uint8_t *flight;            /* the bytes of the write in flight */
    size_t flight_len, flight_cap;
    uint8_t *queue;             /* answers waiting behind it */
    size_t queue_len, queue_cap;
    size_t mem;                 /* bytes it holds: the structure and the three buffers */
    /* Its share of a loop turn (tcp.c, SWEEP__TCP_TURN_FRAMES): the frames
     * handled in turn `turn`; past the share, what it sent waits in `held`
     * (read stopped) for the next turn, behind the other connections. */
    uint64_t turn;
    uint32_t turn_frames;
    uint8_t *held;              /* bytes read and not handled yet */
    size_t held_len, held_cap;
    sweep__conn *held_prev, *held_next; /* the server's list of connections waiting */
    unsigned waiting : 1;       /* in that list */
    sweep__bucket early;        /* requests before its session's (Hello) */
    uint64_t early_notice_ns;   /* when the last RateLimited for them was sent; 0 = never */
    sweep__session *session;
    char peer[64];
    sweep__conn *prev, *next;
};

/* Where an answer goes, and what the request being answered brought: a
 * TCP connection, or a UDP address with a byte budget (the size of the
 * datagram received, while unverified). Made per request and passed down
 * explicitly; nothing of a request is left on the server. */
typedef struct sweep__peer {
    int tcp;           /* TCP framing (size prefix, frame limits) */
    sweep__conn *conn;
    const struct sockaddr *addr;
    sweep__session *session;
    size_t budget; /* UDP: largest datagram allowed back; SIZE_MAX once verified */
    size_t received; /* UDP: bytes of the datagram being answered (what a new handshake may get back) */
    uint64_t now;    /* uv_hrtime() when it arrived, read once per receive batch (UDP); 0 = read when needed */
    const uint8_t *datagram; /* UDP: the datagram being handled (a Hello may pass it on to another thread) */
    size_t datagram_len;
    int direct;      /* UDP: it came to the thread's own port (udp_direct) */
    int record;      /* what is sent to the session goes into its world's log too (OUT records) */
    int counted;     /* its request is in requests_total (dispatched; not the UDP handshake's) */
} sweep__peer;

/* A datagram or a TCP connection passed to the thread that owns its world
 * (threads.c): queued under the group's lock, picked up on the owner's
 * loop through its uv_async. */
typedef struct sweep__handoff {
    struct sweep__handoff *next;
    int fd;                        /* TCP: a dup of the connection's socket; -1 for a datagram or a world */
    int world_op;                  /* a world opened or closed for this thread (SWEEP__WORLD_*); 0 otherwise */
    uint32_t world_id;             /* SWEEP__WORLD_ADOPT: the id to look up (it may be closed since) */
    sweep__served *world;          /* SWEEP__WORLD_END: the world, out of the table, to end here */
    struct sockaddr_storage addr;  /* UDP: the sender; TCP: the peer */
    int partial;                   /* UDP: the datagram was cut short by the buffer */
    size_t len;                    /* bytes: the datagram, or what the connection sent from its Hello on */
    /* TCP: the connection's handshake as it stood, kept by the new owner
     * (a Hello bounced between threads' worlds must not renew them). */
    uint64_t hello_deadline_ns;    /* its Hello's deadline (uv_hrtime: one clock for every thread) */
    sweep__bucket early;           /* what is left of its requests before a session */
    uint8_t bytes[];
} sweep__handoff;

/* What the servers of one sweepd (one per thread, threads.c) share. Every
 * field is fixed after creation except those under `lock` and the atomics.
 * A sweepd of one thread has a group of one, so the code is the same. */
typedef struct sweep__group {
    unsigned count;           /* servers and threads */
    sweep_server **servers;   /* [count]; servers[0] is the one sweep_server_create returns */
    sweep__cookie_key cookie; /* one secret: any thread checks any cookie (the nonce is atomic) */
    /* Global limits, counted across threads (atomics, __atomic builtins). */
    uint32_t sessions;        /* sessions open: slots taken by sweep__session_slot_take */
    uint32_t conns;           /* TCP connections open */
    size_t conn_mem;          /* bytes the connections of every thread hold */
    size_t entity_mem;        /* bytes the entities of every thread hold (--max-memory counts both) */
    uint64_t next_session_id;
    pthread_mutex_t lock;     /* guards the next three and every server's inbox */
    sweep__addr_table addrs;  /* counts per client address (limits.h) */
    struct sweep__route **routes; /* UDP session address -> owning thread, chained (count > 1 only) */
    uint32_t route_count, route_cap;
    pthread_mutex_t stats_lock; /* guards published */
    sweep__metrics_snapshot *published; /* [count]: each thread's figures as of its last housekeeping */
    int locks_open;
    pthread_t *threads;       /* [count]; [0] unused: the caller's thread runs server 0 */
    /* The open worlds of every thread (world_table.c), in id order. */
    pthread_mutex_t worlds_lock; /* guards the next six */
    sweep__world_entry *table;
    uint32_t table_count, table_cap;
    uint64_t table_ever; /* worlds ever put in the table: an open and a close between two looks still counts */
    uint32_t next_world_id;   /* the id the next OpenWorld gets */
    uint64_t table_triangles; /* of the worlds in the table */
    uint32_t hangups;         /* SIGHUPs so far (atomic): each recording starts a new segment at its next tick */
    uint64_t *beats;          /* [count]: each loop's last housekeeping turn (uv_hrtime), atomics; /healthz
                               * and the Agones Health pings read them to tell a stalled loop */
    struct sweep__agones *agones; /* the Agones SDK (agones.h); NULL when off */
} sweep__group;

struct sweep_server {
    sweep_server_options opt;
    sweep__group *group;
    unsigned thread;          /* its index in the group */
    uv_async_t inbox_async;   /* handoffs queued for it */
    int inbox_open;
    sweep__handoff *inbox, **inbox_tail; /* under group->lock */
    uv_loop_t loop;
    int loop_open;
    uv_poll_t tcp;  /* the listening socket, accepted from by tcp.c */
    int tcp_fd;     /* valid while tcp_open */
    int tcp_polling; /* the poll handle: 0 none, 1 polling, 2 paused (an accept error) */
    int tcp_started; /* sweep__tcp_start ran: spare_fd and addrs are set up */
    int spare_fd;   /* kept open to accept and close a connection when out of descriptors; -1 none */
    uv_udp_t udp;
    int tcp_open, udp_open;
    /* --threads N > 1: this thread's own UDP socket, on an ephemeral port
     * of the same address (no SO_REUSEPORT), named in a UDP Welcome: a
     * session's datagrams sent there need no forwarding (threads.c). */
    uv_udp_t udp_direct;
    int udp_direct_open;
    int direct_port;     /* 0: none */
    uv_signal_t sigterm, sigint, sighup;
    sweep__udp_fit udp_plain;  /* what a datagram of SWEEP_UDP_MAX_DATAGRAM holds: the handshake's, a default session's */
    sweep__udp_fit udp_widest; /* ... of --udp-max-datagram: what the buffers are sized for */
    uint32_t tcp_max_entity_states; /* ... a frame holds (--max-frame and the output buffer) */
    sweep_wire_entity_state *entity_wire; /* one EntityStates' entities, as many as either holds */
    int signals_open;
    uv_async_t stop_async;
    int async_open;
    uv_timer_t housekeeping;
    int housekeeping_open;
    FILE *ready_out;
    int port;
    char host_text[80]; /* host as printed: 127.0.0.1 or [::1] */
    int stopping;
    int serving;    /* its loop runs (start_one): a world adopted from now on starts its clock */

    sweep__served **worlds;    /* the worlds this thread runs, in the order they came */
    unsigned world_count, world_cap;

    sweep__conn *conns;
    uint32_t conn_count;
    /* Loop turns (tcp.c): counted before each poll, and the connections
     * whose share of the turn was spent, served first in the next. */
    uint64_t turn;
    uv_prepare_t turn_count;
    uv_idle_t turn_resume;
    int turns_open;
    int turn_ahead; /* 1 while turn_resume serves: its turn is turn + 1 (tcp.c) */
    sweep__conn *held_first, *held_last;
    size_t conn_mem;     /* bytes this thread's connections hold (the sum of conn->mem) */
    size_t entity_mem;   /* bytes this thread's entities hold: SWEEP__ENTITY_BYTES each */
    size_t max_memory;   /* --max-memory resolved, in bytes; 0 offline (no limit) */
    sweep__bucket refuse_log; /* conn_refused lines it may still write */
    uint64_t refuse_log_suppressed;
    uint64_t refused_total;  /* connections refused at accept */
    sweep__session *sessions;
    uint32_t session_count;
    uint32_t sessions_by_transport[2]; /* of session_count: TCP, UDP */
    /* The housekeeping walks every session or connection only when one may
     * be due (session.c, tcp.c): no UDP session goes idle before
     * udp_idle_due_ns; no connection's drain or Hello deadline passes
     * before conn_due_ns, nor its idle timeout before conn_idle_due_ms
     * (loop time). Lowered where a new deadline is set. */
    uint64_t udp_idle_due_ns;
    uint64_t conn_due_ns, conn_idle_due_ms;
    sweep__session **addr_buckets; /* UDP sessions by address */
    uint32_t addr_bucket_count;

    sweep__cookie_key *cookie;      /* the group's */
    int allow_guests;               /* --allow-guests, its default resolved */
    sweep__bucket auth_log;         /* auth_failed lines it may still write */
    uint64_t auth_log_suppressed;
    sweep__request_decoder requests; /* requests decoded as a replay decodes them */
    uint8_t *out_buf;               /* encoder output */
    size_t out_cap;
    uint8_t read_buf[64 * 1024];
    /* The answers to the frames of one read of a session's connection,
     * gathered to leave in one write when the read is consumed (tcp.c)
     * rather than one write (and one wake of the client) a frame. */
    uint8_t cork_buf[256 * 1024];
    size_t cork_len;
    sweep__conn *corked;            /* whose answers cork_buf holds; NULL when none is consumed */
    /* UDP (udp.c): datagrams are read in batches (recvmmsg), into one
     * buffer of 64 KiB a datagram, and the answers to a batch leave
     * together (sendmmsg) when it has been handled. */
    uint8_t *udp_in;                /* the batch's datagrams; NULL: read_buf, one at a time */
    size_t udp_in_cap;
    struct sweep__udp_out *udp_out; /* answers waiting for the end of the batch */
    int udp_batching;               /* inside a batch: answers wait in udp_out */
    uint64_t udp_batch_ns;          /* when the batch was read: what its datagrams count as seen at */
    uv_check_t udp_flush;           /* after each loop iteration's I/O: what UDP answered leaves */
    int udp_flush_open;
    struct sweep__udp_held *udp_held; /* sessions' datagrams past their share of a turn, in order */
    uv_idle_t udp_resume;           /* serves them next turn */
    int udp_resume_open;
    sweep__stats stats;
    sweep__metrics *metrics; /* --metrics: the HTTP endpoint (metrics.h); NULL when off */
};

/* A client's share of the loop turns (tcp.c, udp.c): *turn and *count are
 * the turn it was last counted in and what it had in it. 1 if it has had
 * `share` in turn `now`; 0 otherwise, counting the one it is about to
 * have. */
static inline int sweep__turn_spent(uint64_t now, uint64_t *turn, uint32_t *count, uint32_t share)
{
    if (*turn != now) {
        *turn = now;
        *count = 0;
    }
    if (*count >= share)
        return 1;
    (*count)++;
    return 0;
}

/* A client's share of a loop turn: `base` messages, and one more for each
 * entity its session owns. A game server speaks for its players (a tick
 * of 1,000 of them is some 90 datagrams of moves) and each of their moves
 * is held to its entity's own budget, so its share grows with them; a
 * client without a session, or without entities, has the base. */
static inline uint32_t sweep__turn_share(const sweep__session *ss, uint32_t base)
{
    return ss ? base + ss->own.entity_count : base;
}

/* invariants.c: the ownership rules above, asserted (SWEEP_CHECKS builds:
 * make DEBUG=1 and the sanitizer builds; nothing otherwise). */
#ifndef SWEEP_CHECKS
#define SWEEP_CHECKS 0
#endif
#if SWEEP_CHECKS
void sweep__check_invariants(const sweep_server *s);
#else
#define sweep__check_invariants(s) ((void)(s))
#endif

/* world_clock.c: the served worlds and their ticks. */
int sweep__worlds_load(sweep_server *s, char *err, size_t errlen);
/* A world of the map at path for thread `to` (not started, in no table):
 * NULL with err. */
sweep__served *sweep__served_new(sweep_server *to, const char *path, uint32_t id, char *err, size_t errlen);
void sweep__served_log_loaded(const sweep__served *w); /* its world_loaded line */
/* Starts its clock (its tick 0 is now). */
void sweep__served_start(sweep__served *w);
/* Frees a world whose sessions are gone and whose clock is stopped or
 * was never started; with a clock, once its timer has closed. */
void sweep__served_free(sweep__served *w);
void sweep__worlds_start(sweep_server *s);
void sweep__worlds_stop(sweep_server *s);
void sweep__worlds_free(sweep_server *s);
/* The world a Hello names (NULL or "": the first open one), on any
 * thread, and the thread that runs it; NULL if none has that name. The
 * pointer may be used on the owner's thread only (world_table.c). */
sweep__served *sweep__world_find(sweep_server *s, const char *name, unsigned *owner);
/* Runs the world's ticks due at now (uv_hrtime) ahead of its timer, as
 * its callback would. Called before each request of a session of w
 * (dispatch.c). */
void sweep__world_catch_up(sweep__served *w, uint64_t now);

/* outcomes.c: the world library's sink for sweepd: what a request or a
 * tick of a world causes becomes sends (send.c) and records (recorder.c). */
/* Applies a decoded request of p->session to its world. */
void sweep__world_apply(sweep_server *s, sweep__peer *p, const sweep_message *m);
/* One tick of w, its pushes sent and recorded. */
void sweep__served_tick(sweep__served *w);

/* recorder.c (server/record/record.h is the format) */
int sweep__record_start(sweep_server *s, char *err, size_t errlen); /* --record: opens each world's log */
void sweep__record_stop(sweep_server *s, const char *reason);        /* END, flush, close */
/* --record: one world's log, begun (0, or -1 with err) or ended (END
 * with reason, flushed and closed; nothing when it does not record). */
int sweep__record_world_start(sweep__served *w, char *err, size_t errlen);
void sweep__record_world_stop(sweep__served *w, const char *reason);
void sweep__record_open(sweep__served *w, const sweep__session *ss);
void sweep__record_close(sweep__served *w, const sweep__session *ss, const char *reason);
void sweep__record_message(sweep__served *w, uint8_t type, uint64_t session, const uint8_t *bytes, size_t len);
void sweep__record_id(sweep__served *w, uint32_t entity);
/* An applied move: its MOVE record. */
void sweep__record_move(sweep__served *w, uint64_t session, const sweep_msg_move *mv, const sweep_msg_move_result *res);
/* A MoveResult or MoveResultBatch to session, as one RESULTS record (its
 * OUT records are then not written): each result the MOVE record of a
 * move of this group was made from (the same object) is held by that
 * record. */
void sweep__record_results(sweep__served *w, uint64_t session, const sweep_message *m);
/* The request being handled was refused for the server's own failure (out
 * of memory) and changed nothing: a replay, which would not fail, must not
 * see it, as it never sees one the rate limit refused. Its records leave
 * the log (the sink records nothing it sends next, outcomes.c); if they are
 * written already, the recording stops. */
void sweep__record_drop_request(sweep__served *w);
void sweep__record_tick(sweep__served *w);
void sweep__record_hash(sweep__served *w);
void sweep__record_tick_end(sweep__served *w); /* writes the tick's frame; may rotate */

/* session.c */
/* A session of world w; its owner is made at its Welcome (sweep__session_own). */
sweep__session *sweep__session_create(sweep_server *s, sweep__served *w, sweep__transport t);
void sweep__session_own(sweep__session *ss, uint32_t role, const char *identity, uint32_t max_batch);
/* Its Welcome is sent: a player's session joins the Agones List. */
void sweep__session_welcomed(sweep__session *ss);
void sweep__session_destroy(sweep__session *ss);
/* Puts a session in its world's watchers, or takes it out, as its
 * watch_every and watch_entities_every now say. */
void sweep__session_watch(sweep__session *ss);
/* Can the connections and entities hold `more` bytes more within
 * --max-memory? 1, or 0 with why. */
int sweep__mem_fits(const sweep_server *s, size_t more, char *why, size_t whylen);
/* This thread's entities hold `delta` more (the group's total with them). */
void sweep__entity_mem_count(sweep_server *s, int delta);
/* "Speed:3,TimeBudget:1" for a session's log line ("none" if nothing acted). */
const char *sweep__rules_summary(const sweep__session *ss, char *out, size_t outlen);
sweep__session *sweep__udp_session_find(sweep_server *s, const struct sockaddr *addr);
void sweep__udp_session_bind(sweep__session *ss, const struct sockaddr *addr, int direct);
void sweep__sessions_expire(sweep_server *s, uint64_t now_ns);
void sweep__addr_text(const struct sockaddr *addr, char *out, size_t outlen);
uint32_t sweep__sockaddr_hash(const struct sockaddr *a); /* family, address and port */
int sweep__sockaddr_equal(const struct sockaddr *a, const struct sockaddr *b);

/* send.c */
int sweep__send(sweep_server *s, sweep__peer *p, const sweep_message *m);
int sweep__send_error(sweep_server *s, sweep__peer *p, sweep_wire_code code, uint32_t sequence,
                      uint32_t entity, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A MoveResultBatch or EntityCommandsResult, cut to the peer's transport
 * (protocol/result_pieces.h). */
int sweep__send_results(sweep_server *s, sweep__peer *p, const sweep_message *m);
int sweep__send_bye(sweep_server *s, sweep__peer *p, const char *reason);
/* sweep__send, unless the message's bytes (TCP prefix not counted) pass
 * limit or the output buffer: then 1 and nothing is sent. */
int sweep__send_sized(sweep_server *s, sweep__peer *p, const sweep_message *m, size_t limit);
/* Fills *m (whole: kind, sequence, tick, ...) with the items [start,
 * start + k) of a list sent in parts. */
typedef void (*sweep__part_fill)(void *ctx, sweep_message *m, uint32_t start, uint32_t k);
/* A list of `total` items sent as one message or, where it does not fit a
 * datagram (UDP) or a frame of --max-frame (TCP), as several whole messages
 * of runs of it in order: at most `per` items a part, halved while a part
 * does not fit. One message even for no item. 0, or -1 (not sent, or one
 * item alone does not fit: logged with `what`). */
int sweep__send_parts(sweep_server *s, sweep__peer *p, uint32_t total, uint32_t per, sweep__part_fill fill, void *ctx,
                      const char *what);
sweep__peer sweep__session_peer(sweep__session *ss); /* where pushes to a session go */

/* world_clock.c: the movers' WorldState (WatchWorld) */
int sweep__send_world_state(sweep_server *s, sweep__peer *p, sweep__served *w, uint32_t sequence);

/* entity_watch.c: the server role's EntityStates (WatchEntities) */
/* The world's entities, all of them, at its tick: answer to `sequence`, or a push (0). */
int sweep__send_entity_states(sweep_server *s, sweep__peer *p, sweep__served *w, uint32_t sequence);
/* WatchEntities: the role checked, the session's interval, the states at once. */
void sweep__watch_entities(sweep_server *s, sweep__peer *p, const sweep_message *m);

/* dispatch.c */
void sweep__dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags);
/* Pays n tokens of p's session's rate limit for a request (sequence seq):
 * 1, or 0 when it is over its rate: the request is dropped unanswered,
 * with one RateLimited a second, so a client over its rate does not get
 * an answer per request. Whatever the server answers a session's request
 * with, an Error included, is paid for. */
int sweep__request_paid(sweep_server *s, sweep__peer *p, uint32_t n, uint32_t seq);
int sweep__hello(sweep_server *s, sweep__peer *p, const sweep_message *m);

/* auth.c */
/* The role and identity a Hello's auth_token gives: 0, or -1 after an
 * Error AuthFailed was sent. */
int sweep__authenticate(sweep_server *s, sweep__peer *p, const sweep_message *m, uint32_t *role, char *identity,
                        size_t idlen);
/* Can any session get the server role on this server? */
int sweep__server_role_possible(const sweep_server *s);

/* tcp.c */
int sweep__tcp_start(sweep_server *s, char *err, size_t errlen);
void sweep__tcp_stop(sweep_server *s); /* closes the listening socket: nothing more is accepted */
/* After sweep__tcp_stop: every request a connection read past its turn's
 * share is served now, whole, so a shutdown answers all that was read. */
void sweep__tcp_serve_held(sweep_server *s);
void sweep__tcp_free(sweep_server *s); /* after every session is gone */
void sweep__conn_drain(sweep__conn *c);
/* A connection handed over by another thread (threads.c): served here from
 * its bytes on; or, when this thread is stopping, closed and uncounted. */
void sweep__conn_adopt(sweep_server *s, const sweep__handoff *h);
void sweep__conn_refuse_handoff(sweep_server *s, const sweep__handoff *h);
/* Takes off the counts an admitted connection that is not served holds. */
void sweep__conn_uncount(sweep_server *s, const sweep__addr_key *key);
void sweep__conn_close(sweep__conn *c);
int sweep__conn_write(sweep__conn *c, const uint8_t *data, size_t len, int final);
/* Housekeeping: drains past their deadline, connections silent past the
 * handshake timeout, sessions idle past --idle-timeout. */
void sweep__conns_check_drain(sweep_server *s, uint64_t now_ns);
/* A session of this address is made (+1) or ends (-1): the UDP ones
 * (session.c); TCP sessions are counted by tcp.c. */
void sweep__addr_sessions(sweep_server *s, const struct sockaddr *addr, int delta);
/* May this address have one more session (--max-sessions-per-address)?
 * 1, or 0 after an Error TooManySessions was sent to p. */
int sweep__addr_session_allowed(sweep_server *s, sweep__peer *p, const struct sockaddr *addr, uint32_t sequence);

/* udp.c */
int sweep__udp_start(sweep_server *s, char *err, size_t errlen);
/* One datagram received (or forwarded from another thread) at now;
 * direct: on this thread's own port (udp_direct), where only the datagrams
 * of its sessions are taken. */
void sweep__udp_deliver(sweep_server *s, const uint8_t *data, size_t len, const struct sockaddr *addr, int partial,
                        uint64_t now, int direct);
/* Answers made between the two leave together (sendmmsg). begin says
 * whether a batch was already open (a reading's, when a request ran a
 * world's due ticks): its end is then that batch's, not the caller's. */
int sweep__udp_batch_begin(sweep_server *s);
void sweep__udp_batch_end(sweep_server *s);
/* What a UDP Hello from the address of p->session comes to (sweep__udp_rehello). */
typedef enum sweep__rehello {
    SWEEP__REHELLO_DONE = 0, /* answered (Challenge, BadCookie) or dropped; the session is untouched */
    SWEEP__REHELLO_REPEAT,   /* the session's own cookie: its Welcome was lost, send it again */
    SWEEP__REHELLO_NEW       /* another valid cookie: the session was ended, p->session is NULL;
                                welcome the sender as a new client */
} sweep__rehello;
sweep__rehello sweep__udp_rehello(sweep_server *s, sweep__peer *p, const sweep_message *m);
/* Sends one datagram: at once, or inside a receive batch queued behind the
 * batch's earlier answers (0 either way; -1 when it is dropped at once). */
int sweep__udp_send(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len, int direct);
/* Encoding an answer in place: the room of the next queued datagram (its
 * size in *cap), NULL when answers are not being queued; and the answer
 * encoded there (data, len: inside that room) queued for addr, as
 * sweep__udp_send would queue a copy of it. Nothing may be sent between
 * the two. */
uint8_t *sweep__udp_room(sweep_server *s, size_t *cap);
int sweep__udp_send_room(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len, int direct);

/* What a datagram of `datagram` bytes holds (udp_fit.c): s's own two
 * when it is one of their sizes, found by trial encodings otherwise. */
void sweep__udp_fit_for(const sweep_server *s, uint32_t datagram, sweep__udp_fit *out);
/* The sizes s is started with: udp_plain and udp_widest. */
void sweep__udp_fit_init(sweep_server *s);
/* What p's datagrams hold: its session's agreed size, or before one (a
 * handshake) SWEEP_UDP_MAX_DATAGRAM's. */
static inline const sweep__udp_fit *sweep__peer_udp_fit(const sweep_server *s, const sweep__peer *p)
{
    return p->session && p->session->transport == SWEEP__UDP ? &p->session->udp_fit : &s->udp_plain;
}
/* At shutdown, before the sessions' Byes: every datagram held for a later
 * turn is served now, as sweep__tcp_serve_held does a connection's. */
void sweep__udp_serve_held(sweep_server *s);
/* Sends what is queued and closes the socket's handles (a no-op once closed). */
void sweep__udp_close(sweep_server *s);
void sweep__udp_free(sweep_server *s); /* the batch buffers, after the handle is closed */

/* world_table.c: the group's table of open worlds. */
void sweep__world_table_init(sweep__group *g, uint32_t first_id);
void sweep__world_table_free(sweep__group *g);
/* Enters a world loaded at start (a --map world): 0, or -1 out of memory. */
int sweep__world_table_add_map(sweep__group *g, sweep__served *w, unsigned thread);
/* What sweep__world_table_reserve made of an OpenWorld. */
typedef enum sweep__reserve {
    SWEEP__RESERVED = 0, /* entered: w->id and w->name are the new world's */
    SWEEP__REOPENED,     /* the name is open on the same map file: *found is that world */
    SWEEP__NAME_TAKEN,   /* the name is open on another map */
    SWEEP__LIMIT,        /* --max-worlds or --max-world-triangles: why says which */
    SWEEP__NO_MEMORY
} sweep__reserve;
/* Enters w (a world of the map file dev, ino, loaded for thread `thread`)
 * as a new world named `name`, or when name is "" the map's name, or
 * map#id when that is taken, if the limits allow it; with w == NULL only
 * checks (a name open, the worlds' limit) before a map is loaded. *found
 * is filled (a copy) for SWEEP__REOPENED. */
sweep__reserve sweep__world_table_reserve(sweep_server *s, sweep__served *w, const char *name, unsigned thread,
                                          uint64_t dev, uint64_t ino, sweep__world_entry *found, char *why,
                                          size_t whylen);
/* Takes world `id` out of the table: its served and thread, or NULL when
 * no world of that id is open. */
sweep__served *sweep__world_table_take(sweep_server *s, uint32_t id, unsigned *owner);
/* The served of id if it is open and this thread's, else NULL. */
sweep__served *sweep__world_table_mine(sweep_server *s, uint32_t id);
/* The thread a new world goes to: the fewest entities, then the fewest
 * worlds, then the lowest number. */
unsigned sweep__world_table_least_loaded(sweep_server *s);
/* A copy of the table (world, name, map, figures; this thread's worlds as
 * of now), malloc'ed, *n entries; NULL with *n 0 when empty or out of
 * memory. */
sweep__world_entry *sweep__world_table_list(sweep_server *s, uint32_t *n);
/* The table as last published, from any thread (the metrics endpoint's):
 * the number of entries, copied into out only when they fit in cap. */
uint32_t sweep__world_table_copy(sweep__group *g, sweep__world_entry *out, uint32_t cap);
/* This thread's worlds' figures into the table (housekeeping). */
void sweep__world_table_publish(sweep_server *s);
uint32_t sweep__world_table_open(sweep_server *s); /* worlds open, all threads */
/* The same, and in *ever how many were ever opened. */
uint32_t sweep__world_table_open_ever(sweep_server *s, uint64_t *ever);

/* world_open.c: OpenWorld and CloseWorld, and a world's end. */
/* What an OpenWorld answers: the world's id, name and map hash. */
typedef struct sweep__world_opened {
    uint32_t id;
    char name[SWEEP__WORLD_NAME_MAX + 1];
    uint8_t hash[32];
} sweep__world_opened;
/* Opens a world of the --maps-dir map `map` (map name or file stem) named
 * `name` ("": the map's), or finds it open on the same map file (a
 * resend): 0 with *out, or -1 with the Error code and why. `by` ends the
 * world_opened log line (who asked: "session=N", "by=agones"); a session
 * asking passes its owner and the request's time, which rate-limit its
 * lines (sweep__owner_log), NULL otherwise. On any
 * thread's loop; the world goes to the least loaded thread. */
int sweep__world_open_map(sweep_server *s, sweep_str map, sweep_str name, const char *by, sweep__owner *own,
                          uint64_t now, sweep__world_opened *out, sweep_wire_code *code, char *why, size_t whylen);
void sweep__open_world(sweep_server *s, sweep__peer *p, const sweep_message *m);
void sweep__close_world(sweep_server *s, sweep__peer *p, const sweep_message *m);
/* The world becomes this thread's: in s->worlds, its clock and its log
 * started unless the thread is stopping (a no-op when it is already). */
void sweep__world_adopt(sweep_server *s, sweep__served *w);
/* Ends a world of this thread: its sessions told (WorldClosed, sequence
 * 0, reason) and ended with their entities, its log ended ("closed"),
 * its memory freed. */
void sweep__world_end(sweep__served *w, const char *reason);
/* A world handoff picked up by this thread; loop_done: at destroy, when
 * nothing is sent any more (a world is only kept for the end). */
void sweep__world_handoff(sweep_server *s, const sweep__handoff *h, int loop_done);

/* threads.c: the group of servers, one per thread (--threads). */
sweep__group *sweep__group_create(unsigned count, uint32_t max_sessions);
void sweep__group_free(sweep__group *g);
void sweep__group_lock(sweep_server *s);   /* the per-address table, routes, inboxes */
void sweep__group_unlock(sweep_server *s);
/* A --max-sessions slot for a new session: 1, or 0 when all are taken.
 * Given back when the session ends (sweep__session_destroy) or was not
 * made after all. */
int sweep__session_slot_take(sweep_server *s);
void sweep__session_slot_give(sweep_server *s);
uint32_t sweep__sessions_open(const sweep_server *s); /* of every thread */
/* UDP session addresses and the thread that owns them (more than one
 * thread only): where a datagram that reached another thread goes. */
void sweep__route_add(sweep_server *s, const struct sockaddr *addr);
void sweep__route_remove(sweep_server *s, const struct sockaddr *addr);
int sweep__route_find(sweep_server *s, const struct sockaddr *addr); /* the thread, or -1 */
/* Queue a datagram, or a connection (its socket fd, already dup'ed, the
 * bytes a then b it sent from its Hello on, its Hello's deadline and its
 * pre-Hello bucket), for thread `to`: 0, or -1 when out of memory (the fd
 * is not closed then). */
int sweep__handoff_datagram(sweep_server *s, unsigned to, const struct sockaddr *addr, const uint8_t *data, size_t len,
                            int partial);
int sweep__handoff_conn(sweep_server *s, unsigned to, int fd, const struct sockaddr *addr, const uint8_t *a,
                        size_t alen, const uint8_t *b, size_t blen, uint64_t hello_deadline_ns,
                        const sweep__bucket *early);
/* A world for another thread: SWEEP__WORLD_ADOPT (by id: entered in
 * the table, to be adopted there) or SWEEP__WORLD_END (taken out of the
 * table, to be ended there). Made (NULL when out of memory) before
 * anything is decided, queued when it is. */
enum { SWEEP__WORLD_ADOPT = 1, SWEEP__WORLD_END = 2 };
sweep__handoff *sweep__handoff_world_new(int op, uint32_t id, sweep__served *w);
void sweep__handoff_push(sweep_server *s, unsigned to, sweep__handoff *h);
void sweep__inbox_open(sweep_server *s);
void sweep__inbox_drain(sweep_server *s); /* destroy: what was never picked up */
/* This thread's figures now; the sum of every thread's (its own now, the
 * others' as last published); publish this thread's for the others and
 * the metrics endpoint (housekeeping). */
void sweep__server_snapshot(const sweep_server *s, sweep__metrics_snapshot *snap);
void sweep__group_figures(sweep_server *s, sweep__metrics_snapshot *out);
void sweep__server_publish(sweep_server *s);
/* Starts threads 1..count-1 on their servers' loops: how many run,
 * counting the caller's (count when all started). */
/* Whether the event loops may run at prio: 0, or -1 with err saying why
 * not. Leaves the calling thread at normal priority. */
int sweep__realtime_check(uint32_t prio, char *err, size_t errlen);
/* --realtime: the calling thread, which runs s's loop, to its priority;
 * a warning if it may not. */
void sweep__loop_realtime(const sweep_server *s);
int sweep__group_run_threads(sweep__group *g);
void sweep__group_join_threads(sweep__group *g, unsigned started);

/* listen.c */
/* A numeric IPv4 or IPv6 address ("localhost" too) with port: 0, or -1. */
int sweep__resolve(const char *host, int port, struct sockaddr_storage *sa);
int sweep__listen_bind(sweep_server *s, char *err, size_t errlen);

#endif
