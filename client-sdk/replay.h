/*
 * replay.h - re-running a session log that sweepd --record wrote, and
 * checking every answer bit for bit.
 *
 * A replay loads the map the log was recorded on (its content hash must
 * match) as a world of the library sweepd serves (server/world/world.h:
 * the same spawns, moves and ticks, no sockets, no clock), runs the log's
 * requests and ticks on it, and compares each message the server would
 * send with the one recorded, byte for byte, and each state hash. The first
 * difference stops the replay and is described: tick, session, entity,
 * the field, both values.
 *
 * That is the full depth, the default. The core depth
 * (sweep_replay_open_flags with SWEEP_REPLAY_CORE) re-runs only the core
 * motion: for every move the log answered, the exact input sweepd gave
 * the core is rebuilt from the log (the entity's state after its previous
 * answer, or its Spawned place; the Move's wish and mode; the time the
 * server granted), sweep_act (Walk), sweep_move_in (Fly) or the Noclip
 * arithmetic is run on the map, the movers are ticked in step with the
 * log's TICK records, and what the core computes is compared with the
 * log bit for bit (with the move's MOVE record in a version 2 log, the
 * MoveResult in a version 1 log): position, velocity, grounded, ground
 * normal and material, every contact, the ground mover, speed_excess and
 * the core's rule bits (Speed, Jump, Limit), the server tick (version 1:
 * a MOVE record is placed in its tick by the log itself), and after a
 * mover moved the entity its start position and what moved it; crushes
 * are compared with the recorded Despawneds. It does not check what only
 * the server decides (spawn places, time budgets, claims and corrections,
 * Errors, the encoding of messages, state hashes), and refuses logs it
 * cannot re-run from the core alone (recorded with --players-block on:
 * there every move meets the other players' shells). It checks a log's
 * motion without the server's request path. Where the replay may run on
 * a second CPU (its affinity, not only the CPUs online: pinned to one, it
 * starts no thread), both depths have the frames' checksums summed ahead
 * on it when it is idle (sweep_record_check_ahead, server/record/record.h), and
 * the core depth of a version 2 log has the lean loop's groups found
 * there too (server/record/record_window.h); whatever that thread has not done,
 * and everything else, is done on the replay's own thread, which never
 * waits for it. That thread starts with the first sweep_replay_step (or
 * run), not at open, so a timing of the run sees all of its work. Pinned
 * to one CPU, the replay reads the log into a few buffers used again
 * instead of mapping it (sweep_record_open_stream).
 *
 *   char err[512];
 *   sweep_replay *r = sweep_replay_open("logs/arena-...-0000.sweeplog", NULL, err, sizeof err);
 *   if (!r) { fprintf(stderr, "%s\n", err); ... }
 *   int rc;
 *   while ((rc = sweep_replay_step(r)) == 1) { ... one tick replayed ... }
 *   if (rc < 0) {
 *       const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
 *       fprintf(stderr, "%s\n", d ? d->text : sweep_replay_error(r));
 *   }
 *   sweep_replay_close(r);
 *
 * Link: libsweep-replay.a, then libsweep-server.a and the libraries it
 * needs (pkg-config --libs sweep-replay); libsweep-client.a is not needed.
 */
#ifndef SWEEP_CLIENT_REPLAY_H
#define SWEEP_CLIENT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "maps/level.h"
#include "protocol/message.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep_replay sweep_replay;

/* Where a replay and its log first disagree. */
typedef struct sweep_replay_divergence {
    uint64_t tick;          /* the world's tick when it happened */
    uint64_t session;       /* 0 when not about a session's message */
    uint32_t entity;        /* 0 when not about an entity */
    uint64_t offset;        /* byte offset of the log record compared */
    char file[1024];        /* the log segment that holds it */
    char field[96];         /* "MoveResult.position.x", "state hash", "output count", ... */
    char recorded[128];     /* both values as text (doubles as %.17g and their bits) */
    char replayed[128];
    char text[2048];        /* all of it, one line */
} sweep_replay_divergence;

typedef struct sweep_replay_stats {
    uint64_t ticks;    /* TICK records replayed */
    uint64_t sessions; /* OPEN records */
    uint64_t requests; /* IN records */
    uint64_t moves;    /* moves applied (core depth: each one run by the core and compared) */
    uint64_t outputs;  /* messages compared (core depth: MoveResults compared) */
    uint64_t hashes;   /* state hashes compared (core depth: none) */
    uint64_t bytes;    /* log bytes read (every segment) */
    uint32_t segments; /* segments read */
    int truncated;     /* the last segment ended in a torn frame (a killed server) */
    int ended;         /* the last segment had an END record (a clean stop) */
    uint64_t refused;  /* core depth: moves answered with an Error, so with no result to compare */
} sweep_replay_stats;

/* Something a replay did, for tools that draw or count (sweep_replay_watch). */
typedef struct sweep_replay_event {
    uint64_t tick;
    uint64_t session;
    const sweep_message *message; /* a message the server sent (and the log holds), decoded */
    /* The request it answers (a Query for a QueryResult), decoded, when the
     * full depth replayed one; NULL for what a tick sent, and at the core
     * depth. */
    const sweep_message *request;
} sweep_replay_event;

typedef void (*sweep_replay_watcher)(void *ctx, const sweep_replay_event *ev);

/* Opens the first segment of a log and loads `map` (NULL: the path the
 * log recorded, or where that is gone, <stem>.db beside the log or in a
 * directory of $SWEEP_MAPS, colon-separated; a stem that names a
 * directory, such as "../x", is not looked for). NULL with err naming the
 * file and what is wrong: not a log, corrupt, a later segment, another
 * map (content hash), another protocol version, a NULL log (err may be
 * NULL or errlen 0: nothing is said). */
sweep_replay *sweep_replay_open(const char *log, const char *map, char *err, size_t errlen);

/* The largest pose history a full replay keeps (sweepd's default
 * --history-memory is 256 MiB): a log whose world kept more is refused at
 * open, saying how much it needs. */
#define SWEEP_REPLAY_HISTORY_MAX_BYTES (1024ull * 1024u * 1024u)

/* The depths of a replay (see the top of this file). */
#define SWEEP_REPLAY_CORE 1u /* the core's motion alone, against the recorded results */

/* sweep_replay_open at a chosen depth: flags 0 is the full replay,
 * SWEEP_REPLAY_CORE the core depth, which also refuses (NULL, err saying
 * why) a log it cannot re-run from the core alone. Every other call works
 * alike at both depths. */
sweep_replay *sweep_replay_open_flags(const char *log, const char *map, unsigned flags, char *err, size_t errlen);

/* The flags the replay was opened with (0: full). */
unsigned sweep_replay_flags(const sweep_replay *r);

/* Replays up to and including the next tick: 1 when a tick was replayed,
 * 0 at the end of the log (following later segments), -1 on a divergence
 * (sweep_replay_divergence_of) or a bad log (sweep_replay_error). Every
 * call below takes a NULL replay: -1 here, and nothing (NULL, 0, -1) from
 * the others but sweep_replay_error, which names it. */
int sweep_replay_step(sweep_replay *r);

/* Steps to the end: 0 when the whole log matched, -1 as above. */
int sweep_replay_run(sweep_replay *r);

/* The first divergence, or NULL. */
const sweep_replay_divergence *sweep_replay_divergence_of(const sweep_replay *r);

/* What stopped the replay when it was not a divergence ("" if nothing). */
const char *sweep_replay_error(const sweep_replay *r);

const sweep_replay_stats *sweep_replay_stats_of(const sweep_replay *r);

/* The world's tick, its level, and a mover's position now (index order;
 * -1 past the last mover). */
uint64_t sweep_replay_tick(const sweep_replay *r);
const sweep_level *sweep_replay_level(const sweep_replay *r);
int sweep_replay_mover_position(const sweep_replay *r, uint32_t index, double position[3]);

/* Who session `session` is, as its OPEN record said: its role
 * (sweep_wire_role) and identity ("" for a guest). 0, or -1 for a session
 * not open now (or at the core depth, which keeps no owners). */
int sweep_replay_session_of(const sweep_replay *r, uint64_t session, unsigned *role, char *identity,
                            size_t identity_len);

/* Where entity `entity` was at a kept tick plus a fraction of the way to
 * the next, as the world's pose history (and so a Query) has it: 0, or -1
 * when the history does not hold it then (the core depth keeps none). */
int sweep_replay_entity_at(const sweep_replay *r, uint32_t entity, uint64_t tick, double fraction,
                           double position[3]);

/* Calls fn for every message compared from now on (decoded; costs a
 * decode per message). At the core depth: every message the log holds,
 * once its request or tick was checked. NULL stops. */
void sweep_replay_watch(sweep_replay *r, sweep_replay_watcher fn, void *ctx);

void sweep_replay_close(sweep_replay *r);

#ifdef __cplusplus
}
#endif

#endif
