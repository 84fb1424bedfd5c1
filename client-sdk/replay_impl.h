/*
 * replay_impl.h - internal: what the two depths of a replay share (never
 * installed).
 *
 * replay.c owns the sweep_replay: the log's segments, the loop over its
 * records, the grouping of each request or tick with the ID and OUT
 * records after it, errors and divergences. The full depth runs each
 * group through sweepd's offline world code; the core depth
 * (replay_core.c) through the core alone, with the calls below, and
 * runs most requests of a version 2 log itself, straight from the log's
 * frame (sweep__replay_core_lean). Either way a divergence is described
 * by replay.c, so both name fields alike.
 */
#ifndef SWEEP_CLIENT_REPLAY_IMPL_H
#define SWEEP_CLIENT_REPLAY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "client-sdk/replay.h"
#include "core/crowd.h"
#include "core/motion.h"
#include "protocol/message.h"
#include "server/record/record.h"

typedef struct sweep__replay_core sweep__replay_core;

/* ---- replay.c, for the core depth ------------------------------------- */

/* Makes room for `need` items of `size` bytes in *p (capacity *cap,
 * doubling); 0, or -1 if out of memory. */
int sweep__replay_grow(void **p, uint32_t *cap, uint32_t need, size_t size);

/* Stops the replay with an error (printf-style); returns -1. */
int sweep__replay_fail(sweep_replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The segment being read, for messages that name a byte offset. */
const char *sweep__replay_path(const sweep_replay *r);

/* Stops the replay on a divergence given as text; returns -1. */
int sweep__replay_diverge(sweep_replay *r, uint64_t session, uint32_t entity, uint64_t offset, const char *field,
                          const char *recorded, const char *replayed);

/* Stops the replay on the first field where two MoveResults differ, named
 * under `prefix` ("MoveResult", "MoveResultBatch.results[2]") as the full
 * depth names it; returns -1, or 0 if they do not differ at all. */
int sweep__replay_diverge_result(sweep_replay *r, uint64_t session, uint64_t offset, const char *prefix,
                                 const sweep_msg_move_result *recorded, const sweep_msg_move_result *replayed);

/* 1 when sweep_replay_watch has a watcher; then sweep__replay_notify hands
 * it one message the log holds. */
int sweep__replay_watched(const sweep_replay *r);

/* The message of the RESULTS record at place i of group (the records
 * after an IN or TICK), rebuilt with the group's MOVE records before it
 * (for a watcher, or to name a difference): 0, or -1 after
 * sweep__replay_fail. Valid until the next call. */
int sweep__replay_results_message(sweep_replay *r, const sweep_record *group, uint32_t i, sweep_message *m);
void sweep__replay_notify(sweep_replay *r, uint64_t session, const sweep_message *m);

/* Re-answering (replay_reanswer.c): with a rewriter, an OUT record whose
 * message differs from what the world sends now (to the same session, of
 * the same kind, both decoded) and a HASH that differs are handed to fn (offset: the record's byte in its
 * segment; an OUT's bytes, or a HASH's new hash with bytes NULL), and the
 * replay goes on as though they had matched. Every other difference still
 * stops it. fn returns 0, or -1 when out of memory. The full depth only. */
typedef int (*sweep__replay_rewriter)(void *ctx, uint64_t offset, uint64_t session, const uint8_t *bytes, size_t len,
                                      uint64_t hash);
void sweep__replay_rewrite(sweep_replay *r, sweep__replay_rewriter fn, void *ctx);

/* What sweep__replay_reanswer rewrote. */
typedef struct sweep__reanswer_counts {
    uint64_t outs, hashes;            /* records given new contents */
    uint64_t bytes_before, bytes_after;
    int diverged; /* refused: the replay differs in more than OUT and HASH records */
} sweep__reanswer_counts;

/* Writes to `out` (which may be `log`) a copy of a one-segment log whose
 * OUT records and state hashes are what this build sends and computes
 * (replay_reanswer.c says why), once the copy replays with every bit
 * matching: 0, or -1 with err (nothing written) when the log cannot be
 * replayed or differs in more than those records. */
int sweep__replay_reanswer(const char *log, const char *map, const char *out, sweep__reanswer_counts *counts,
                           char *err, size_t errlen);

/* ---- replay_core.c ------------------------------------------------------ */

/* Loads `map` for a log whose first HEAD is h, or refuses a log the core
 * alone cannot re-run; NULL with err. */
sweep__replay_core *sweep__replay_core_open(const sweep_record_head *h, const char *map, char *err, size_t errlen);
void sweep__replay_core_close(sweep__replay_core *c);

/* The records of the log, each with its group (the MOVEs and OUTs after
 * it, in order; the IDs are replay.c's):
 * 0, or -1 after sweep__replay_fail or a divergence. */
int sweep__replay_core_on_open(sweep_replay *r, sweep__replay_core *c, const sweep_record *x);
int sweep__replay_core_on_close(sweep_replay *r, sweep__replay_core *c, const sweep_record *x);
int sweep__replay_core_on_request(sweep_replay *r, sweep__replay_core *c, const sweep_record *x,
                                  const sweep_record *outs, uint32_t out_count);
int sweep__replay_core_on_tick(sweep_replay *r, sweep__replay_core *c, const sweep_record *x,
                               const sweep_record *outs, uint32_t out_count);

/* The lean loop of a version 2 log (nothing to do for a version 1 one):
 * the requests from the record at `from` in rd's current frame (the next
 * record to be read, or the one a group ended with), each run as
 * sweep__replay_core_on_request would after replay.c read its group, as
 * long as the group holds nothing but MOVEs and the results answering
 * them, whole in the frame; they are read in place, not grouped. A TICK
 * that ends its frame, the world's next, is run too, as replay.c's
 * on_tick would run it (the next frame read first, as its group's end),
 * and ends the loop: 1, with rd in the next frame. *stop is the offset of
 * the first record left for the general path (a tick with anything after
 * it in its frame, anything uncommon, the frame's end); each request run
 * is counted in *requests, each tick in *ticks. 0, 1, or -1 after
 * sweep__replay_fail or a divergence. */
int sweep__replay_core_lean(sweep_replay *r, sweep__replay_core *c, sweep_record_reader *rd, size_t from,
                            uint64_t *requests, uint64_t *ticks, size_t *stop);

/* The core depth's state of r; NULL at the full depth. */
sweep__replay_core *sweep__replay_core_of(sweep_replay *r);

/* One move the core depth checked: what the core was given, and the actor
 * it came out with. */
typedef struct sweep__replay_core_move {
    sweep_space space;
    const sweep_config *config; /* the world's (a Fly move ran on a copy with the entity's limits) */
    const sweep_rules *rules;
    sweep_vec3 radii;
    sweep_actor before, after;
    sweep_wish wish;
    double dt;         /* the time granted */
    uint32_t mode;     /* SWEEP_WIRE_MODE_*; a Walk move ran sweep_act when dt > 0 */
    int started_moved; /* a mover moved the entity since its previous move */
} sweep__replay_core_move;

/* fn is called for every move whose result matched, and with NULL just
 * before each tick: the moves seen since the last NULL met the space as it
 * stands until then, so they can be run again against it (what
 * tests/bench/bench_replay.c times as the core's own speed). ticked (may
 * be NULL) is called as soon as the movers' tick is done (sweep_movers_tick
 * returned; on a map without movers, right after the NULL call): from the
 * NULL call to it is the core's own work of the tick, the bodies handed to
 * it and the tick, without the replay's comparisons. NULL fn stops. */
typedef void (*sweep__replay_core_observer)(void *ctx, const sweep__replay_core_move *m);
void sweep__replay_core_observe(sweep__replay_core *c, sweep__replay_core_observer fn, void (*ticked)(void *ctx),
                                void *ctx);

/* For a core pass of its own, run later without the replay
 * (tests/bench/bench_replay.c): trigger (may be NULL) is called with the
 * core index of each mover a MoverCommanded fires, as it fires it;
 * before_tick with the bodies handed to sweep_movers_tick, just before
 * it runs, and after_tick as soon as it returned, with the same bodies as
 * it left them, its status and the movers at their new poses (both on a
 * map with movers only; either may be NULL). NULL o stops. */
typedef struct sweep__replay_core_movers_observer {
    void (*trigger)(void *ctx, uint32_t mover);
    void (*before_tick)(void *ctx, const sweep_body *bodies, uint32_t count);
    void (*after_tick)(void *ctx, const sweep_movers *movers, const sweep_body *bodies, uint32_t count,
                       sweep_status status);
    void *ctx;
} sweep__replay_core_movers_observer;
void sweep__replay_core_observe_movers(sweep__replay_core *c, const sweep__replay_core_movers_observer *o);

/* What replay.h asks of a replay, at the core depth. */
uint64_t sweep__replay_core_tick(const sweep__replay_core *c);
const uint8_t *sweep__replay_core_map_hash(const sweep__replay_core *c);
const sweep_level *sweep__replay_core_level(const sweep__replay_core *c);
int sweep__replay_core_mover_position(const sweep__replay_core *c, uint32_t index, double position[3]);
/* Moves applied (each compared), results compared, moves refused. */
void sweep__replay_core_counts(const sweep__replay_core *c, uint64_t *moves, uint64_t *outputs, uint64_t *refused);

#endif
