/*
 * kept.c - the answers an entity keeps for resent moves (kept.h).
 */
#include "server/world/kept.h"

#include <string.h>

#include "core/bytes.h"
#include "core/compiler.h"
#include "protocol/result_rare.h"

/* The struct's bytes before its contacts (entity to contact_count), and
 * from the end of the contacts to its own (corrected to ladder). */
#define HEAD offsetof(sweep_msg_move_result, contacts)
#define TAIL (HEAD + sizeof(((const sweep_msg_move_result *)0)->contacts))
#define TAIL_BYTES (sizeof(sweep_msg_move_result) - TAIL)
#define CONTACT sizeof(sweep_contact)

/* The tail fields a record of no rare field keeps, in this order. */
#define COMMON_FIELDS(X)                                                                                           \
    X(corrected) X(correction) X(rules) X(speed_excess) X(time_excess) X(applied_dt) X(crouched) X(stance_blocked)
#define SIZE_OF(f) +sizeof(((const sweep_msg_move_result *)0)->f)
#define COMMON_BYTES (0 COMMON_FIELDS(SIZE_OF))

/* A record: one byte, 1 if its tail is whole; HEAD bytes; contact_count
 * contacts; the tail whole or its common fields. */
#define RECORD_MOST (1 + HEAD + SWEEP_MAX_CONTACTS * CONTACT + TAIL_BYTES)
_Static_assert(RECORD_MOST <= UINT16_MAX && SWEEP__KEPT_BYTES <= UINT16_MAX, "offsets and lengths fit 16 bits");
/* Free bytes lie in two gaps at most, each shorter than a record: at the
 * end, where one did not fit, and before the oldest record left, whose
 * elder was overwritten in part. So the records kept fill more than the
 * rest. */
_Static_assert((SWEEP__KEPT_BYTES - 2 * (RECORD_MOST - 1) + RECORD_MOST - 1) / RECORD_MOST >= SWEEP__KEPT_LEAST,
               "the ring holds SWEEP__KEPT_LEAST records of the most bytes");

void sweep__result_clear(sweep_msg_move_result *r)
{
    sweep__zero_bytes(r, HEAD);
    sweep__zero_bytes((uint8_t *)r + TAIL, TAIL_BYTES);
}

void sweep__kept_init(sweep__kept *k)
{
    k->count = k->first = k->end = 0;
}

/* Whether the result has any field a record of common fields would lose:
 * the movers', a start position (its bits, whatever has_start_position
 * says), the volumes', the medium's and damage. */
static int rare(const sweep_msg_move_result *r)
{
    uint64_t s[3];
    memcpy(s, &r->start_position, sizeof s);
    uint64_t more = (uint64_t)(r->ground_mover | r->pushed_by) |
                    (uint64_t)(r->carried | r->pushed | r->has_start_position | r->teleport_blocked) |
                    (s[0] | s[1] | s[2]);
    return sweep__result_rare_any(r, more);
}

/* The contacts a result uses (never more than it has room for). */
static uint32_t contacts_of(const sweep_msg_move_result *r)
{
    return r->contact_count < SWEEP_MAX_CONTACTS ? r->contact_count : SWEEP_MAX_CONTACTS;
}

/* The bytes r's record takes, its tail whole or not. */
static size_t record_length(const sweep_msg_move_result *r, int whole)
{
    return 1 + HEAD + contacts_of(r) * CONTACT + (whole ? TAIL_BYTES : COMMON_BYTES);
}

/* r as a record at p. The struct's pieces are copied as core/bytes.h
 * copies them (GCC made string instructions of memcpy's). */
static void encode(uint8_t *p, const sweep_msg_move_result *r, int whole)
{
    const uint32_t n = contacts_of(r);
    *p++ = (uint8_t)whole;
    sweep__copy_bytes(p, r, HEAD);
    p += HEAD;
    for (uint32_t i = 0; i < n; i++, p += CONTACT)
        sweep__copy_bytes(p, &r->contacts[i], CONTACT);
    if (whole) {
        sweep__copy_bytes(p, (const uint8_t *)r + TAIL, TAIL_BYTES);
    } else {
#define PUT(f) memcpy(p, &r->f, sizeof r->f), p += sizeof r->f;
        COMMON_FIELDS(PUT)
#undef PUT
    }
}

static void decode(const uint8_t *p, sweep_msg_move_result *r)
{
    const int whole = *p++;
    sweep__copy_bytes(r, p, HEAD);
    p += HEAD;
    const uint32_t n = contacts_of(r);
    for (uint32_t i = 0; i < n; i++, p += CONTACT)
        sweep__copy_bytes(&r->contacts[i], p, CONTACT);
    if (whole) {
        sweep__copy_bytes((uint8_t *)r + TAIL, p, TAIL_BYTES);
    } else {
        sweep__zero_bytes((uint8_t *)r + TAIL, TAIL_BYTES);
#define GET(f) memcpy(&r->f, p, sizeof r->f), p += sizeof r->f;
        COMMON_FIELDS(GET)
#undef GET
    }
}

static void drop_oldest(sweep__kept *k)
{
    k->first = (k->first + 1) % SWEEP__KEPT_RESULTS;
    k->count--;
}

void sweep__kept_put(sweep__kept *k, const sweep_msg_move_result *r)
{
    const int whole = rare(r);
    const size_t len = record_length(r, whole);
    if (k->count == SWEEP__KEPT_RESULTS)
        drop_oldest(k);
    /* Records lie in the order they were kept, from the oldest (just past
     * where the newest ends, or from 0 after the last start again) round
     * to the newest. One that does not fit before the end starts at 0:
     * every older record still past the newest's end lies in the part
     * given up, and goes first. */
    size_t at = k->end;
    if (at + len > SWEEP__KEPT_BYTES) {
        while (k->count && k->at[k->first].offset >= at)
            drop_oldest(k);
        at = 0;
    }
    /* Then those the new one would overwrite: the oldest, from `at` on. */
    while (k->count && k->at[k->first].offset >= at && k->at[k->first].offset < at + len)
        drop_oldest(k);
    encode(k->bytes + at, r, whole);
    const uint32_t i = (k->first + k->count) % SWEEP__KEPT_RESULTS;
    k->at[i].sequence = r->sequence;
    k->at[i].offset = (uint16_t)at;
    k->at[i].length = (uint16_t)len;
    k->count++;
    k->end = (uint32_t)(at + len);
}

int sweep__kept_get(const sweep__kept *k, uint32_t sequence, sweep_msg_move_result *out)
{
    for (uint32_t j = 0; j < k->count; j++) {
        const uint32_t i = (k->first + j) % SWEEP__KEPT_RESULTS;
        if (k->at[i].sequence == sequence) {
            decode(k->bytes + k->at[i].offset, out);
            return 1;
        }
    }
    return 0;
}

void sweep__kept_prefetch(const sweep__kept *k)
{
    /* A usual record (a walk's, one or two contacts) is about 200 bytes;
     * past the end it starts at 0 and that line is asked for in vain. */
    const uint8_t *p = k->bytes + k->end;
    for (size_t off = 0; off < 256 && k->end + off < SWEEP__KEPT_BYTES; off += 64)
        SWEEP__PREFETCH(p + off);
}
