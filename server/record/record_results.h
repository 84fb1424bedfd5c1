/*
 * record_results.h - internal: the payload of a RESULTS record (record.h,
 * version 5), a MoveResult or MoveResultBatch the server sent, held once:
 * each result that has a MOVE record in its group is that record (its
 * core fields, where the image lies) plus what only the server decides,
 * a few bytes; a result without one (a resent answer) holds its image
 * here (never installed).
 *
 * The writer (recorder.c) and the full depth of a replay
 * (client-sdk/replay.c) make the payload with the same function from the
 * message and the results their MOVE records were made from, so the
 * replay proves an answer by comparing the payload it makes with the
 * record's, byte for byte, beside its MOVE images; a rebuild from the
 * records (sweep__record_results_rebuild) gives the message back for
 * naming a difference and for watchers.
 */
#ifndef SWEEP_SERVER_RECORD_RESULTS_H
#define SWEEP_SERVER_RECORD_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol/format.h"
#include "protocol/message.h"
#include "server/record/record_move.h"

/* Offsets in the payload (record.h has the layout). */
#define SWEEP__RESULTS_FIXED 28u

/* Each result's mask: what follows it, in this order. */
enum {
    SWEEP__RESULTS_WHOLE = 1u << 0,     /* no MOVE: its image (record_move.h, input zero) */
    SWEEP__RESULTS_TICK = 1u << 1,      /* u64 server_tick, when not the message's */
    SWEEP__RESULTS_CORRECTED = 1u << 2, /* flag only */
    SWEEP__RESULTS_CORRECTION = 1u << 3, /* f64 */
    SWEEP__RESULTS_RULES = 1u << 4,     /* u32 the server's rule bits (the core's are in the image) */
    SWEEP__RESULTS_TIME_EXCESS = 1u << 5, /* f64 */
    SWEEP__RESULTS_MOVERS = 1u << 6,    /* u32 n (the contact count), n x u32 contacts[i].mover */
    /* u32 each: launched_by, teleported_by, hurt_by, killed_by, entered, left */
    SWEEP__RESULTS_VOLUMES_SHIFT = 7, /* bits 7 to 12 */
    SWEEP__RESULTS_TELEPORT_BLOCKED = 1u << 13, /* flag only */
    SWEEP__RESULTS_DAMAGE = 1u << 14,   /* f64 */
    /* u32 each: liquid, liquid_type, liquid_level, entered_liquid, left_liquid, ladder */
    SWEEP__RESULTS_LIQUIDS_SHIFT = 15, /* bits 15 to 20 */
    SWEEP__RESULTS_MASK = (1u << 21) - 1u
};

/* The most bytes one result takes: its mask, an image with every
 * contact, and every field. */
#define SWEEP__RESULTS_PER_RESULT_MAX                                                                                \
    (4u + SWEEP__RECORD_MOVE_MAX + 8u + 8u + 4u + 8u + 4u + 4u * SWEEP_MAX_CONTACTS + 6u * 4u + 8u + 6u * 4u)

static inline size_t sweep__record_results_bound(uint32_t count)
{
    return SWEEP__RESULTS_FIXED + (size_t)count * SWEEP__RESULTS_PER_RESULT_MAX;
}

/* 1 for the messages a RESULTS record holds. */
static inline int sweep__record_results_kind(sweep_msg_kind kind)
{
    return kind == SWEEP_MSG_MOVE_RESULT || kind == SWEEP_MSG_MOVE_RESULT_BATCH;
}

/* The results the MOVE records of a group were made from, in their order,
 * and how many of them earlier RESULTS of the group took. */
typedef struct sweep__record_moved {
    const sweep_msg_move_result **res;
    uint32_t count, cap, taken;
} sweep__record_moved;

/* The payload of m (a MoveResult or MoveResultBatch to `session`) into
 * out, which holds sweep__record_results_bound(count) bytes; its length.
 * A result is its MOVE's when it is the very result the next MOVE not yet
 * taken was made from (then taken): the same object, so the MOVE holds
 * its image. Any other result holds its image here, in the compact layout
 * or the full one (record_move.h), as the log's MOVEs. */
size_t sweep__record_results_encode(uint8_t *out, int compact, uint64_t session, const sweep_message *m,
                                    sweep__record_moved *moved);

/* Checks a payload's layout, its images in the compact layout or the
 * full one as its log's version says: 0, or -1 with why (why may be
 * NULL). */
int sweep__record_results_check(const uint8_t *p, size_t len, int compact, char *why, size_t whylen);

/* What sweep__record_results_ok says of one result's bytes r[0..n) (its
 * mask and the fields it names) in the two common forms: 1 when it is
 * one of them, 0 when it is not (n 4 with any other bit is bad; the rest
 * is for the full check). */
static inline __attribute__((always_inline)) int sweep__record_result_common(const uint8_t *r, size_t n)
{
    const uint32_t flags = SWEEP__RESULTS_CORRECTED | SWEEP__RESULTS_TELEPORT_BLOCKED;
    if (n == 4)
        return (sweep__rd32(r) & ~flags) == 0;
    if (n >= 8) {
        uint32_t mask = sweep__rd32(r), movers = sweep__rd32(r + 4);
        if ((mask & ~flags) == SWEEP__RESULTS_MOVERS)
            return movers != 0 && movers <= SWEEP_MAX_CONTACTS && n == 8 + 4 * (size_t)movers;
    }
    return 0;
}

/* What sweep__record_results_check accepts, without saying why not (the
 * readers' and the lean loop's test, once a request). Inline for the
 * common payloads: every result its MOVE with nothing the server decided
 * but flags (4 bytes a result), or one such result whose contacts name
 * movers (a player on a lift: an eighth of the arena's results, which the
 * full check took 181 instructions each to pass). Any other is checked in
 * full. */
static inline __attribute__((always_inline)) int sweep__record_results_ok(const uint8_t *p, size_t len, int compact)
{
    if (len < SWEEP__RESULTS_FIXED)
        return 0;
    uint32_t kind = sweep__rd32(p + 8), count = sweep__rd32(p + 24);
    if (kind > 1 || (kind == 0 && count != 1))
        return 0;
    const uint32_t flags = SWEEP__RESULTS_CORRECTED | SWEEP__RESULTS_TELEPORT_BLOCKED;
    size_t rest = len - SWEEP__RESULTS_FIXED;
    if (rest == 4 * (size_t)count) {
        uint32_t any = 0;
        for (uint32_t i = 0; i < count; i++)
            any |= sweep__rd32(p + SWEEP__RESULTS_FIXED + 4 * (size_t)i);
        return (any & ~flags) == 0;
    }
    if (count == 1 && rest >= 8 && sweep__record_result_common(p + SWEEP__RESULTS_FIXED, rest))
        return 1;
    return sweep__record_results_check(p, len, compact, NULL, 0) == 0;
}

/* ---- ANSWER records (record.h, version 7) ------------------------------ */

/* An ANSWER's bytes before its result: u32 Message.sequence. Its RESULTS
 * payload is SWEEP__RECORD_ANSWER_GROWS bytes longer. */
#define SWEEP__RECORD_ANSWER_FIXED 4u
#define SWEEP__RECORD_ANSWER_GROWS (SWEEP__RESULTS_FIXED - SWEEP__RECORD_ANSWER_FIXED)

/* The longest RESULTS payload an ANSWER stands for. */
#define SWEEP__RECORD_ANSWER_MAX (SWEEP__RESULTS_FIXED + SWEEP__RESULTS_PER_RESULT_MAX)

/* 1 when the RESULTS payload p (as sweep__record_results_encode made it)
 * may be written as an ANSWER, where the log allows one (record.h): a
 * MoveResult to `session`, the session of the IN before it, at `tick`,
 * the world's tick as the log last said it. */
static inline int sweep__record_answer_fits(const uint8_t *p, uint64_t session, uint64_t tick)
{
    return sweep__rd32(p + 8) == 0 && sweep__rd64(p) == session && sweep__rd64(p + 16) == tick;
}

/* The RESULTS payload p[0..len) made an ANSWER in place: its new length. */
static inline size_t sweep__record_answer_from(uint8_t *p, size_t len)
{
    memmove(p, p + 12, 4);
    memmove(p + SWEEP__RECORD_ANSWER_FIXED, p + SWEEP__RESULTS_FIXED, len - SWEEP__RESULTS_FIXED);
    return len - SWEEP__RECORD_ANSWER_GROWS;
}

/* The RESULTS payload the ANSWER a[0..len) (len at least
 * SWEEP__RECORD_ANSWER_FIXED, at most SWEEP__RECORD_ANSWER_MAX less
 * SWEEP__RECORD_ANSWER_GROWS) stands for, to `session` at `tick`, into
 * out: its length. */
static inline size_t sweep__record_answer_expand(const uint8_t *a, size_t len, uint64_t session, uint64_t tick,
                                                 uint8_t *out)
{
    sweep__wr64(out, session);
    sweep__wr32(out + 8, 0);
    memcpy(out + 12, a, 4);
    sweep__wr64(out + 16, tick);
    sweep__wr32(out + 24, 1);
    memcpy(out + SWEEP__RESULTS_FIXED, a + SWEEP__RECORD_ANSWER_FIXED, len - SWEEP__RECORD_ANSWER_FIXED);
    return len + SWEEP__RECORD_ANSWER_GROWS;
}

/* 1 when the ANSWER q[0..len) holds its result in one of the common forms
 * (the lean loop's test: any other goes to the readers, which check it
 * in full). */
static inline __attribute__((always_inline)) int sweep__record_answer_common(const uint8_t *q, size_t len)
{
    return len >= SWEEP__RECORD_ANSWER_FIXED + 4 &&
           sweep__record_result_common(q + SWEEP__RECORD_ANSWER_FIXED, len - SWEEP__RECORD_ANSWER_FIXED);
}

/* The message a checked payload holds: kind, sequence, server_tick and its
 * results in results (room for its count: sweep__record_results_count),
 * the core's fields of a result with a MOVE from the next of the n MOVE
 * payloads moves[*taken...] (lens beside), which it takes. 0, or -1 with
 * why (no MOVE left, a MOVE of another entity or with another contact
 * count than its movers say). */
int sweep__record_results_rebuild(const uint8_t *p, size_t len, const uint8_t *const *moves, const uint32_t *lens,
                                  uint32_t n, uint32_t *taken, sweep_message *m, sweep_msg_move_result *results,
                                  char *why, size_t whylen);

/* A checked payload's session and result count. */
static inline uint64_t sweep__record_results_session(const uint8_t *p)
{
    return sweep__rd64(p);
}

static inline uint32_t sweep__record_results_count(const uint8_t *p)
{
    return sweep__rd32(p + 24);
}

#endif
