/*
 * record_window.h - internal: the records of a log's current frame read in
 * place, for a reader that parses the common ones itself (the core depth
 * of a replay, client-sdk/replay_core.c) and leaves the rest to
 * sweep_record_next (never installed).
 *
 * The frame's checksum matched before any of its records is shown; a
 * reader that takes records from the window checks each one as
 * sweep_record_next would, or hands it back (sweep__record_seek) for
 * sweep_record_next to take, which names whatever is wrong with it.
 */
#ifndef SWEEP_SERVER_RECORD_WINDOW_H
#define SWEEP_SERVER_RECORD_WINDOW_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/decode_checked.h"
#include "server/record/record.h"
#include "server/record/record_move.h"
#include "server/record/record_results.h"

/* The bytes the current frame lies in; *at is the place of the next
 * record to be read in them and *end that of the current frame's end
 * (*at == *end: none left in it, sweep_record_next reads the next frame).
 * A place is the file offset less sweep__record_window_base: a mapped
 * reader's bytes are the whole file (base 0), a streamed one's a buffer,
 * which the next frame may change (the window is asked for again). */
const uint8_t *sweep__record_window(const sweep_record_reader *r, size_t *at, size_t *end);

/* The file offset of the window's first byte. */
uint64_t sweep__record_window_base(const sweep_record_reader *r);

/* How many of the window's bytes hold the file's (for prefetching within
 * them). */
size_t sweep__record_window_held(const sweep_record_reader *r);

/* A whole IN record's request (bytes, len, of `session`) read past by a
 * caller in the window, kept as the reader would keep it: in a version 6
 * log one of at most SWEEP__RECORD_BASE_MAX bytes is its session's base
 * (record_patch.h), which a patch read later needs. 0, or -1 when out of
 * memory (the caller then leaves the record to sweep_record_next, which
 * names it). */
int sweep__record_keep_request(sweep_record_reader *r, uint64_t session, const uint8_t *bytes, size_t len);

/* A caller that read past records in the window says where that left
 * the log: the world's tick as the log last said it, the session of the
 * last IN, and whether that IN still waits for its first RESULTS (open),
 * as the reader would have kept them for an ANSWER (record.h). */
void sweep__record_passed(sweep_record_reader *r, uint64_t tick, uint64_t session, int open);

/* The bytes a streamed reader's buffers take (0 mapped): a few chunks
 * while its caller lets go of what it read (sweep_record_release). */
size_t sweep__record_buffered(const sweep_record_reader *r);

/* Makes `at` (a record's start inside the current frame, not before the
 * frame's first record, or its end) the next record to be read. */
void sweep__record_seek(sweep_record_reader *r, size_t at);

/* When the current frame has no record left: the next frame, as
 * sweep_record_next would read it (summed, or vouched for by the thread
 * of sweep_record_check_ahead), its records then the window's. 1, 0 at
 * the end of the log or a torn tail (sweep_record_truncated), -1 with err
 * naming what is wrong, as sweep_record_next names it. */
int sweep__record_next_frame(sweep_record_reader *r, char *err, size_t errlen);

/* The CPUs the calling thread may run on (its affinity, at most the CPUs
 * online): sweep_record_check_ahead and sweep__record_plan_ahead start
 * nothing below 2. */
long sweep__record_cpus(void);

/* ---- the lean groups of a frame ---------------------------------------- */

/* The framings of a session's messages a lean group may be read under:
 * size-prefixed (TCP) or not (UDP). */
#define SWEEP__LEAN_TCP 1u
#define SWEEP__LEAN_UDP 2u
/* Not a framing: a version 5 log, whose RESULTS records a lean group may
 * hold (record_results.h), in place of results sent as OUT records. */
#define SWEEP__LEAN_RESULTS 4u
/* Not a framing: a version 6 log, whose MOVE images (and those RESULTS
 * hold) are in the compact layout (record_move.h). */
#define SWEEP__LEAN_COMPACT 8u
/* Not a framing: a version 7 log, whose first RESULTS after a request may
 * be an ANSWER (record.h). */
#define SWEEP__LEAN_ANSWER 16u

/* 1 when the answer at b (n bytes, framed as `flags`) names a MoveResult
 * or a MoveResultBatch. Always inlined: the lean loop peeks at every
 * answer with it, and with a third caller (replay_core.c's general path)
 * gcc made it a call, which cost the loop more than the peek. */
static inline __attribute__((always_inline)) int sweep__lean_is_result(const uint8_t *b, size_t n, unsigned flags)
{
    sweep_msg_kind kind;
    return sweep__decode_kind_inline(b, n, flags, &kind) == SWEEP_PROTO_OK &&
           (kind == SWEEP_MSG_MOVE_RESULT || kind == SWEEP_MSG_MOVE_RESULT_BATCH);
}

/* The group of records after an IN of `session` (from `pos` up to the
 * frame's `end`) when the core depth's lean loop can run it: MOVEs and
 * the results answering them, each as sweep_record_next would take it, up
 * to an IN or TICK in the same frame (which the replay's general path
 * would end the group with). Returns where that IN or TICK starts, with
 * *ok the framings among `want` (SWEEP__LEAN_*) under which every OUT of
 * the group names a result and *count its records; 0 when there is no
 * such group under any of them (anything else in it, a bad record, the
 * frame's end), for the general path. The same function for the lean
 * loop and for the thread that plans ahead (sweep__record_plan_ahead),
 * so the two cannot disagree. */
static inline size_t sweep__record_lean_group(const uint8_t *d, size_t pos, size_t end, uint64_t session,
                                              unsigned want, unsigned *ok, uint32_t *count)
{
    uint32_t n = 0;
    unsigned good = want;
    int answered = 0; /* a RESULTS or ANSWER came: no ANSWER may follow */
    while (end - pos >= 5) {
        uint8_t t = d[pos];
        uint32_t len = sweep__rd32(d + pos + 1);
        const uint8_t *q = d + pos + 5;
        if (end - pos - 5 < len)
            return 0;
        if (t == SWEEP_RECORD_MOVE) {
            if (!sweep__record_move_ok(q, len, (want & SWEEP__LEAN_COMPACT) != 0))
                return 0;
        } else if (t == SWEEP_RECORD_RESULTS) {
            if (!(want & SWEEP__LEAN_RESULTS) || len < SWEEP__RESULTS_FIXED || sweep__rd64(q) != session ||
                !sweep__record_results_ok(q, len, (want & SWEEP__LEAN_COMPACT) != 0))
                return 0;
            answered = 1;
        } else if (t == SWEEP_RECORD_ANSWER) {
            /* Its session is the IN's: nothing to compare. */
            if (!(want & SWEEP__LEAN_ANSWER) || answered || !sweep__record_answer_common(q, len))
                return 0;
            answered = 1;
        } else if (t == SWEEP_RECORD_OUT) {
            if (len <= 8 || sweep__rd64(q) != session)
                return 0;
            if ((good & SWEEP__LEAN_TCP) && !sweep__lean_is_result(q + 8, len - 8, SWEEP_WIRE_SIZE_PREFIXED))
                good &= ~SWEEP__LEAN_TCP;
            if ((good & SWEEP__LEAN_UDP) && !sweep__lean_is_result(q + 8, len - 8, 0))
                good &= ~SWEEP__LEAN_UDP;
            if (!(good & (SWEEP__LEAN_TCP | SWEEP__LEAN_UDP)))
                return 0;
        } else {
            if (!(((t == SWEEP_RECORD_IN || t == SWEEP_RECORD_IN_PATCH) && len > 8) || (t == SWEEP_RECORD_TICK && len == 8)))
                return 0;
            *ok = good;
            *count = n;
            return pos;
        }
        pos += 5 + (size_t)len;
        n++;
    }
    return 0;
}

/* The group of one MOVE and the RESULTS (or ANSWER) answering it, then an IN or TICK:
 * nearly every group of a version 5 log (a Move request over TCP), tested
 * in one straight line. Where the group is that, what
 * sweep__record_lean_group returns for it (its framings are then all of
 * `want`, its records 2); 0 for any other group or a bad record, which
 * sweep__record_lean_group then says. Its loop, out of line, took 165
 * instructions a request on the arena's logs to say the same. */
static inline __attribute__((always_inline)) size_t sweep__record_lean_pair(const uint8_t *d, size_t pos, size_t end,
                                                                            uint64_t session, unsigned want)
{
    if (!(want & SWEEP__LEAN_RESULTS) || end - pos < 5 || d[pos] != SWEEP_RECORD_MOVE)
        return 0;
    uint32_t len = sweep__rd32(d + pos + 1);
    if (end - pos - 5 < len || !sweep__record_move_ok(d + pos + 5, len, (want & SWEEP__LEAN_COMPACT) != 0))
        return 0;
    pos += 5 + (size_t)len;
    if (end - pos < 5)
        return 0;
    len = sweep__rd32(d + pos + 1);
    const uint8_t *q = d + pos + 5;
    if (end - pos - 5 < len)
        return 0;
    if (d[pos] == SWEEP_RECORD_ANSWER) {
        if (!(want & SWEEP__LEAN_ANSWER) || !sweep__record_answer_common(q, len))
            return 0;
    } else if (d[pos] != SWEEP_RECORD_RESULTS || len < SWEEP__RESULTS_FIXED || sweep__rd64(q) != session ||
               !sweep__record_results_ok(q, len, (want & SWEEP__LEAN_COMPACT) != 0)) {
        return 0;
    }
    pos += 5 + (size_t)len;
    if (end - pos < 5)
        return 0;
    uint8_t t = d[pos];
    len = sweep__rd32(d + pos + 1);
    if (end - pos - 5 < len || !(((t == SWEEP_RECORD_IN || t == SWEEP_RECORD_IN_PATCH) && len > 8) || (t == SWEEP_RECORD_TICK && len == 8)))
        return 0;
    return pos;
}

/* Makes the thread of sweep_record_check_ahead also find the lean group
 * (sweep__record_lean_group, both framings) after every IN record of each
 * frame whose checksum it vouched for, so the lean loop looks its groups
 * up instead of reading them twice; call before sweep_record_check_ahead.
 * The thread waits while the lean loop is a whole queue of groups behind
 * (sweep__record_plan_stop lets it go on without planning). 1, or 0 when
 * there will be no thread (fewer than 2 CPUs for it, sweep__record_cpus)
 * or no memory: nothing changes, and the lean loop, finding no queue
 * (sweep__record_plan_queue NULL), scans every group itself. A queue made
 * here is dropped again if sweep_record_check_ahead then starts no
 * thread. */
int sweep__record_plan_ahead(sweep_record_reader *r);

/* No more planning: a reader that will not look its groups up. */
void sweep__record_plan_stop(sweep_record_reader *r);

/* The queue of planned groups: written by the thread up to head, read by
 * the reader's thread up to tail. Each side has a cache line of its own,
 * with its last look at the other's end (tail_seen, seen), and looks
 * again only when that says the queue is full or empty: with head, tail
 * and seen on one line, every plan the thread queued took the line from
 * the reader and every request the reader took took it back, and the
 * reader's load of it was a tenth of what the lean loop spent besides
 * the core (perf, cpu-clock samples). */
typedef struct sweep__lean_plan {
    uint64_t in_at;     /* the IN record's offset */
    uint64_t group_end; /* what sweep__record_lean_group returned for both framings (0: no lean group) */
    uint32_t ok;        /* its framings (SWEEP__LEAN_*; 0 when there is no lean group) */
} sweep__lean_plan;

#define SWEEP__CACHE_LINE 64

typedef struct sweep__plan_queue {
    sweep__lean_plan *items;
    size_t cap; /* a power of two */
    _Alignas(SWEEP__CACHE_LINE) atomic_size_t head; /* the thread's */
    size_t tail_seen;
    _Alignas(SWEEP__CACHE_LINE) atomic_size_t tail; /* the reader's */
    size_t seen;
    _Alignas(SWEEP__CACHE_LINE) char end[1]; /* nothing else on the reader's line */
} sweep__plan_queue;

/* How many plans ahead of its place the reader asks for the queue's
 * cache lines: the thread wrote them, so each is a transfer from the
 * other CPU's cache, here started a few requests before it is needed. */
#define SWEEP__PLAN_PREFETCH 16u

/* The reader's queue of planned groups; NULL when it does not plan. */
sweep__plan_queue *sweep__record_plan_queue(sweep_record_reader *r);

/* 1 when the thread planned the IN record at `at` (an offset the lean
 * loop reached; they only grow), with *group_end and *ok as planned. 0
 * when the thread has not (it is behind, stopped, or never planned): the
 * caller scans itself. Inline: the lean loop asks once a request. */
static inline int sweep__record_planned(sweep__plan_queue *q, size_t at, size_t *group_end, unsigned *ok)
{
    size_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed), head = q->seen;
    int found = 0;
    for (;;) {
        if (tail == head) {
            head = q->seen = atomic_load_explicit(&q->head, memory_order_acquire);
            if (tail == head)
                break;
        }
        const sweep__lean_plan *e = &q->items[tail & (q->cap - 1)];
        __builtin_prefetch(&q->items[(tail + SWEEP__PLAN_PREFETCH) & (q->cap - 1)], 0, 3);
        if (e->in_at > at)
            break;
        tail++;
        if (e->in_at == at) {
            *group_end = (size_t)e->group_end;
            *ok = e->ok;
            found = 1;
            break;
        }
    }
    atomic_store_explicit(&q->tail, tail, memory_order_release);
    return found;
}

/* Waits for the thread of sweep_record_check_ahead to be done with the
 * log (at its end or a bad frame), for a test that looks at what it
 * found: planning, on a log with fewer IN records than its queue holds
 * (16384), or it waits for a reader that does not come. */
void sweep__record_ahead_wait(sweep_record_reader *r);

#endif
