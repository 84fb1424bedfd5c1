/*
 * replay_read.h - internal: reading a log segment ahead of a replay, on a
 * second thread (never installed).
 *
 * A replay spends much of its time reading: a checksum per frame, a parse
 * per record and, at the core depth, a decode of every Move and
 * MoveResult. None of that depends on what the replay computes, so a
 * second thread does it while the replay runs the moves: it reads records
 * in chunks of SWEEP__REPLAY_READ_CHUNK, at most SWEEP__REPLAY_READ_AHEAD
 * chunks ahead, and at the core depth also decodes the moves or results of
 * each IN and OUT record (as replay_core.c would: bounds-checked, or
 * verified when that gives up) into storage of the chunk. A replay asks
 * for the thread only with SWEEP__REPLAY_READ_THREAD (replay_impl.h):
 * since the core depth's reading got cheaper it cost more than it saved
 * (client-sdk/replay.c says how much), and both depths read inline.
 *
 * The replay takes the records in the log's order, exactly as
 * sweep_record_next gives them, and the first bad record ends
 * the stream at the same place with the same error as reading it directly
 * would. A message the read-ahead did not decode (another kind, a session
 * it does not know, one that does not decode) is left to the replay to
 * decode, so what is reported about it does not change either.
 *
 * On a machine with one CPU the thread would only take turns with the
 * replay: there the chunks are read on the replay's own thread when it
 * needs the next one, and nothing is decoded ahead. The same happens once
 * the replay has found no chunk ready more than SWEEP__REPLAY_READ_WAITS
 * times (the thread starves on a busy machine, or reads slower than the
 * replay runs): each wait is a sleep and a wake-up, dearer than the
 * reading it was to save. The records stay the same either way.
 */
#ifndef SWEEP_CLIENT_REPLAY_READ_H
#define SWEEP_CLIENT_REPLAY_READ_H

#include <stddef.h>

#include "protocol/decode.h"
#include "server/record.h"

#define SWEEP__REPLAY_READ_CHUNK 256u /* records per chunk */
#define SWEEP__REPLAY_READ_AHEAD 8u   /* chunks read and not yet taken, at most */
#define SWEEP__REPLAY_READ_WAITS 2u   /* the replay waits for the thread this often, then reads on its own */

/* A record, and what the read-ahead decoded of it. */
typedef struct sweep__replay_rec {
    sweep_record rec;
    int decoded; /* 1: motion holds the moves or results of this IN or OUT (at least one) */
    sweep_decoded_motion motion;
} sweep__replay_rec;

typedef struct sweep__replay_read sweep__replay_read;

/* How records are read. */
enum {
    SWEEP__REPLAY_READ_DECODE = 1u << 0, /* decode the motion of IN and OUT records too (the core depth) */
    SWEEP__REPLAY_READ_INLINE = 1u << 1, /* no thread, whatever the machine (tests) */
    SWEEP__REPLAY_READ_STARVE = 1u << 2  /* the thread stops after its first chunk, as if starved (tests) */
};

/* Starts reading rd (positioned after its HEAD; h its HEAD) ahead. rd
 * stays the caller's, and must not be read or closed before
 * sweep__replay_read_stop. NULL only when out of memory. */
sweep__replay_read *sweep__replay_read_start(sweep_record_reader *rd, const sweep_record_head *h, unsigned flags);

/* 1 if records are read on a second thread (now: it may stop, see above),
 * and how often the replay found no chunk ready. */
int sweep__replay_read_threaded(const sweep__replay_read *q);
uint32_t sweep__replay_read_waits(const sweep__replay_read *q);

/* The next record, as sweep_record_next gives it: *rc 1 and the record;
 * *rc 0 at the end, or -1 with err, and NULL. The record (its bytes, its
 * decoded motion) stays where it is until sweep__replay_read_release after
 * a later record, or stop: the replay reads it in place, since a copy
 * made here would be made from the other CPU's cache. */
const sweep__replay_rec *sweep__replay_read_next(sweep__replay_read *q, int *rc, char *err, size_t errlen);

/* Every record taken before the last one taken is done with: their
 * storage may be read into again. */
void sweep__replay_read_release(sweep__replay_read *q);

/* Stops the thread and frees everything but rd. NULL is fine. */
void sweep__replay_read_stop(sweep__replay_read *q);

#endif
