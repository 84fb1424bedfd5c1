/*
 * test_verify_fast.c - the verifier's fast path for a Move, a
 * MoveBatch, a MoveResult and a MoveResultBatch (verify.c) against its
 * general walk, on the same bytes: both
 * must accept the same buffers and refuse the same ones with the same
 * error.
 *
 * The buffers: every sample of samples.h, Moves with every subset of
 * their optional fields present, and MoveBatches of 0 to 5 Moves of mixed
 * layouts, MoveResults of many layouts (contacts, rare fields, the medium)
 * and MoveResultBatches of 0 to 5 of them, with and without size prefix; then each of them cut at every
 * length, every byte of it flipped in several ways, and many random
 * multi-byte edits (a fixed seed, so a failure repeats), under the
 * default limits and under limits of one to four tables and a depth of
 * two or three (a batch of n Moves is n + 2 tables at depth 3). The edits
 * hit vtable entries, sizes, soffsets and offsets, which is where the two
 * paths could disagree.
 *
 * A lone Move the fast path accepts is decoded through the field offsets
 * it found (sweep__verify_at): each such buffer is also decoded by
 * sweep_decode_motion, which looks every field up in the vtable, and the
 * two must read the same values, bit for bit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/decode.h"
#include "protocol/format.h"
#include "protocol/verify_internal.h"
#include "samples.h"

static uint8_t enc[1u << 16];

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
    /* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
     * xorshift generators, scrambled", 2016). */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static const sweep_verify_limits limits[] = {{0, 0}, {1, 0}, {0, 1}, {2, 2}, {2, 0}, {3, 0}, {0, 3}, {0, 4}};
static unsigned long compared, accepted, moves_read;

#define SAME_BITS(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

/* A buffer the verifier accepts under lim: if it is a lone Move, the
 * Move sweep_decode reads (through the fast path's offsets) is the one
 * sweep_decode_motion reads (through the vtable). */
static void same_move(const uint8_t *b, size_t len, unsigned flags, const sweep_verify_limits *lim)
{
    sweep_msg_move one;
    sweep_decoder d;
    memset(&d, 0, sizeof d);
    d.limits = *lim;
    d.moves = &one;
    d.moves_cap = 1;
    sweep_decoded_motion dm;
    if (sweep_decode_motion(&d, b, len, flags, &dm) != SWEEP_PROTO_OK || dm.kind != SWEEP_MSG_MOVE)
        return;
    assert_int_equal(dm.move_count, 1);
    sweep_message m;
    memset(&m, 0xa5, sizeof m);
    assert_int_equal(sweep_decode(&d, b, len, flags, &m), SWEEP_PROTO_OK);
    const sweep_msg_move *x = &m.as.move, *y = dm.moves;
    /* The server's unverified look at a datagram must read what the
     * verified decode reads, or it would let through or drop the wrong
     * ones. */
    sweep_msg_kind peeked_kind;
    uint64_t peeked_key;
    if (!(flags & SWEEP_WIRE_SIZE_PREFIXED) &&
        (!sweep_peek_key(b, len, &peeked_kind, &peeked_key) || peeked_key != m.key || peeked_kind != m.kind))
        fail_msg("sweep_peek_key disagrees with sweep_decode (len %zu)", len);
    if (m.kind != dm.kind || m.sequence != dm.sequence || m.server_tick != dm.server_tick ||
        x->entity != y->entity || x->sequence != y->sequence || x->client_tick != y->client_tick ||
        !SAME_BITS(x->velocity, y->velocity) || !SAME_BITS(x->dt, y->dt) ||
        x->has_claimed_position != y->has_claimed_position || !SAME_BITS(x->claimed_position, y->claimed_position) ||
        x->buttons != y->buttons || x->mode != y->mode)
        fail_msg("sweep_decode and sweep_decode_motion read different Moves (len %zu, flags %u)", len, flags);
    moves_read++;
}

static void same(const uint8_t *b, size_t len, unsigned flags)
{
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        sweep_proto_error fast = sweep__verify_general(b, len, flags, &limits[l], 1);
        sweep_proto_error general = sweep__verify_general(b, len, flags, &limits[l], 0);
        if (fast != general)
            fail_msg("fast path %s, general walk %s (len %zu, flags %u, limits %zu)", sweep_proto_error_name(fast),
                     sweep_proto_error_name(general), len, flags, l);
        compared++;
        accepted += fast == SWEEP_PROTO_OK;
        sweep_msg_kind kind;
        uint64_t key;
        if (fast == SWEEP_PROTO_OK && !(flags & SWEEP_WIRE_SIZE_PREFIXED) && !sweep_peek_key(b, len, &kind, &key))
            fail_msg("sweep_peek_key refuses a buffer the verifier accepts (len %zu)", len);
        if (fast == SWEEP_PROTO_OK)
            same_move(b, len, flags, &limits[l]);
    }
}

/* The buffer, and it edited in every way listed at the top. */
static void mutate(const uint8_t *orig, size_t len, unsigned flags)
{
    static uint8_t b[1u << 16];
    assert_true(len <= sizeof b);
    same(orig, len, flags);
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(b, orig, cut);
        same(b, cut, flags);
    }
    static const uint8_t flips[] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x80, 0xff};
    memcpy(b, orig, len);
    for (size_t i = 0; i < len; i++) {
        for (size_t f = 0; f < sizeof flips; f++) {
            b[i] ^= flips[f];
            same(b, len, flags);
            b[i] ^= flips[f];
        }
        uint8_t keep = b[i];
        b[i] = 0;
        same(b, len, flags);
        b[i] = keep;
    }
    for (int k = 0; k < 2000; k++) {
        memcpy(b, orig, len);
        int edits = 1 + (int)(next() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = next() % len;
            /* Small values, such as offsets and sizes near the real ones. */
            b[at] = (uint8_t)(next() % 3 == 0 ? next() : b[at] + (next() % 17) - 8);
        }
        same(b, len, flags);
    }
}

static void encode_and_mutate(const sweep_message *m)
{
    for (unsigned flags = 0; flags <= SWEEP_WIRE_SIZE_PREFIXED; flags++) {
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_encode(m, flags, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
        mutate(out, len, flags);
    }
}

static void test_samples(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sample_count(); i++) {
        sweep_message m = sample_message(i);
        if (m.kind == SWEEP_MSG_MOVE_BATCH || m.kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
            /* Big: the batch's first few items are as telling. */
            if (m.kind == SWEEP_MSG_MOVE_BATCH && m.as.move_batch.count > 3)
                m.as.move_batch.count = 3;
            if (m.kind == SWEEP_MSG_MOVE_RESULT_BATCH && m.as.move_result_batch.count > 3)
                m.as.move_result_batch.count = 3;
        }
        encode_and_mutate(&m);
    }
    assert_true(accepted > 0);
}

/* A Move with the optional fields of `set` (bit i: field i written), its
 * ids told apart by `i`. */
static void move_of(sweep_msg_move *mv, unsigned set, unsigned i)
{
    memset(mv, 0, sizeof *mv);
    mv->velocity = sweep_v3(1, 2, 3);
    mv->entity = set & 1 ? 5 + i : 0;
    mv->sequence = set & 2 ? 6 + i : 0;
    mv->client_tick = set & 4 ? 7 : 0;
    mv->dt = set & 8 ? 0.5 : 0.0;
    mv->has_claimed_position = (set & 16) != 0;
    mv->claimed_position = sweep_v3(4, 5, 6);
    mv->buttons = set & 32 ? 9 : 0;
    mv->mode = set & 64 ? 1 : 0;
}

/* Every subset of the optional fields of a Move and of its Message (bit i:
 * field i written), so vtables of every length the builder writes. */
static void test_move_layouts(void **state)
{
    (void)state;
    unsigned long before = accepted, read_before = moves_read;
    for (unsigned set = 0; set < 1024; set++) {
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_MOVE;
        move_of(&m.as.move, set, 0);
        m.sequence = set & 128 ? 11 : 0;
        m.server_tick = set & 256 ? 12 : 0;
        m.key = set & 512 ? 0x0102030405060708ull : 0;
        const uint8_t *out;
        size_t len;
        for (unsigned flags = 0; flags <= SWEEP_WIRE_SIZE_PREFIXED; flags++) {
            assert_int_equal(sweep_encode(&m, flags, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
            mutate(out, len, flags);
        }
    }
    assert_true(accepted - before >= 1024 * 2);
    assert_true(moves_read - read_before >= 1024 * 2);
}

/* MoveBatches of 0 to 5 Moves, each Move of its own subset of the
 * optional fields (so some share a vtable and some do not). */
static void test_batch_layouts(void **state)
{
    (void)state;
    unsigned long before = accepted;
    static sweep_msg_move moves[5];
    for (unsigned count = 0; count <= 5; count++) {
        for (unsigned seed = 0; seed < 4; seed++) {
            for (unsigned i = 0; i < count; i++)
                move_of(&moves[i], (i * 37u + seed * 11u) % 128u, i);
            sweep_message m;
            memset(&m, 0, sizeof m);
            m.kind = SWEEP_MSG_MOVE_BATCH;
            m.sequence = seed & 1 ? 11 : 0;
            m.server_tick = seed & 2 ? 12 : 0;
            m.as.move_batch.moves = moves;
            m.as.move_batch.count = count;
            encode_and_mutate(&m);
        }
    }
    assert_true(accepted - before >= 6 * 4 * 2);
}

/* The fast path's sizes and alignments of a MoveResult's fields are
 * the schema's. */
static void test_result_layout_is_the_schemas(void **state)
{
    (void)state;
    assert_true(sweep__verify_fast_layout_ok());
}

/* A MoveResult whose optional fields are those of `set` (the bits of
 * sample_move_result's i): every common field present or absent in turn,
 * the rare ones as sample_move_result mixes them, and 0 to
 * SWEEP_MAX_CONTACTS contacts. */
static void result_of(sweep_msg_move_result *r, unsigned set)
{
    *r = sample_move_result(set % 41u);
    if (set & 64)
        r->entity = 0, r->sequence = 0, r->server_tick = 0;
    if (set & 128)
        r->rules = 0, r->speed_excess = 0.0, r->time_excess = 0.0, r->applied_dt = 0.0;
    if (set & 256) {
        r->crouched = false, r->stance_blocked = false, r->corrected = false, r->correction = 0.0;
        r->ground_mover = 0, r->pushed_by = 0, r->carried = false, r->pushed = false;
        r->has_start_position = false, r->launched_by = 0, r->teleported_by = 0, r->teleport_blocked = false;
        r->hurt_by = 0, r->damage = 0.0, r->killed_by = 0, r->entered = 0, r->left = 0;
        r->liquid = 0, r->liquid_type = 0, r->liquid_level = 0, r->entered_liquid = 0, r->left_liquid = 0;
        r->ladder = 0;
    }
}

/* Lone MoveResults of many layouts, each one the fast path takes whole,
 * then cut and edited as every buffer here is. */
static void test_result_layouts(void **state)
{
    (void)state;
    unsigned long before = accepted;
    for (unsigned set = 0; set < 512; set += 5) {
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_MOVE_RESULT;
        result_of(&m.as.move_result, set);
        m.sequence = set & 1 ? 11 : 0;
        m.server_tick = set & 2 ? 12 : 0;
        for (unsigned flags = 0; flags <= SWEEP_WIRE_SIZE_PREFIXED; flags++) {
            const uint8_t *out;
            size_t len;
            assert_int_equal(sweep_encode(&m, flags, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
            if (!sweep__verify_fast_takes(out, len, flags))
                fail_msg("the fast path does not take a MoveResult of layout %u (flags %u)", set, flags);
            mutate(out, len, flags);
        }
    }
    assert_true(accepted - before >= 103 * 2);
}

/* MoveResultBatches of 0 to 5 results of mixed layouts (some sharing a
 * vtable, some not, with and without contacts). */
static void test_result_batch_layouts(void **state)
{
    (void)state;
    static sweep_msg_move_result results[5];
    for (unsigned count = 0; count <= 5; count++) {
        for (unsigned seed = 0; seed < 4; seed++) {
            for (unsigned i = 0; i < count; i++)
                result_of(&results[i], (i * 37u + seed * 11u) % 512u);
            sweep_message m;
            memset(&m, 0, sizeof m);
            m.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
            m.sequence = seed & 1 ? 11 : 0;
            m.as.move_result_batch.results = results;
            m.as.move_result_batch.count = count;
            const uint8_t *out;
            size_t len;
            assert_int_equal(sweep_encode(&m, 0, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
            if (!sweep__verify_fast_takes(out, len, 0))
                fail_msg("the fast path does not take a MoveResultBatch of %u (seed %u)", count, seed);
            encode_and_mutate(&m);
        }
    }
}

/* A MoveBatch of two Moves written by hand, sharing one vtable (velocity
 * at 8 and dt at 32 of a 40-byte table), the second placed `shift` bytes
 * after the first's end: at 4 its velocity and dt are 4 bytes off their
 * alignment of 8, which no builder writes. Returns the length. */
static size_t shared_vtable_batch(uint8_t *b, size_t shift)
{
    const size_t mv_vt = 8, batch_vt = 24, msg_vt = 32, msg = 44, batch = 56, vec = 64, first = 80;
    const size_t second = first + 40 + shift;
    memset(b, 0, second + 40);
    sweep__wr32(b, (uint32_t)msg);
    memcpy(b + 4, SWEEP_WIRE_IDENTIFIER, 4);
    static const uint16_t move_vt[] = {14, 40, 0, 0, 0, 8, 32}, batch_vtable[] = {6, 8, 4},
                          msg_vtable[] = {12, 12, 0, 0, 4, 8};
    for (size_t i = 0; i < 7; i++)
        sweep__wr16(b + mv_vt + 2 * i, move_vt[i]);
    for (size_t i = 0; i < 3; i++)
        sweep__wr16(b + batch_vt + 2 * i, batch_vtable[i]);
    for (size_t i = 0; i < 6; i++)
        sweep__wr16(b + msg_vt + 2 * i, msg_vtable[i]);
    sweep__wr32(b + msg, (uint32_t)(msg - msg_vt));
    b[msg + 4] = SWEEP_MSG_MOVE_BATCH;
    sweep__wr32(b + msg + 8, (uint32_t)(batch - (msg + 8)));
    sweep__wr32(b + batch, (uint32_t)(batch - batch_vt));
    sweep__wr32(b + batch + 4, (uint32_t)(vec - (batch + 4)));
    sweep__wr32(b + vec, 2);
    sweep__wr32(b + vec + 4, (uint32_t)(first - (vec + 4)));
    sweep__wr32(b + vec + 8, (uint32_t)(second - (vec + 8)));
    const size_t tables[] = {first, second};
    for (size_t i = 0; i < 2; i++) {
        sweep__wr32(b + tables[i], (uint32_t)(tables[i] - mv_vt));
        sweep__wrvec3(b + tables[i] + 8, sweep_v3(1, 2, 3));
        sweep__wrf64(b + tables[i] + 32, 1.0 / 60.0);
    }
    return second + 40;
}

/* The fast path checks a Move's fields once for the Moves after it that
 * share its vtable and its place modulo 8: one 4 bytes off is refused as
 * the general walk refuses it. */
static void test_batch_shared_vtable(void **state)
{
    (void)state;
    static uint8_t b[256];
    size_t len = shared_vtable_batch(b, 0);
    assert_int_equal(sweep__verify_general(b, len, 0, NULL, 0), SWEEP_PROTO_OK);
    assert_int_equal(sweep__verify_general(b, len, 0, NULL, 1), SWEEP_PROTO_OK);
    mutate(b, len, 0);
    len = shared_vtable_batch(b, 4);
    assert_int_equal(sweep__verify_general(b, len, 0, NULL, 0), SWEEP_PROTO_E_ALIGNMENT);
    assert_int_equal(sweep__verify_general(b, len, 0, NULL, 1), SWEEP_PROTO_E_ALIGNMENT);
    mutate(b, len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_move_layouts),
        cmocka_unit_test(test_batch_layouts),
        cmocka_unit_test(test_batch_shared_vtable),
        cmocka_unit_test(test_result_layout_is_the_schemas),
        cmocka_unit_test(test_result_layouts),
        cmocka_unit_test(test_result_batch_layouts),
    };
    int r = cmocka_run_group_tests(tests, NULL, NULL);
    print_message("compared %lu verdicts, %lu of them valid, %lu Moves read both ways\n", compared, accepted,
                  moves_read);
    return r;
}
