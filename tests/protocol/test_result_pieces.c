/*
 * test_result_pieces.c - a MoveResultBatch cut to datagrams
 * (protocol/result_pieces.c) leaves as the same pieces, byte for byte, as
 * the plain halving by trial encodings makes, now that a run whose least
 * bytes (sweep__move_result_least, protocol/encode.c) exceed the datagram
 * is not encoded; and those least bytes are never more than an encoding
 * holds.
 *
 * The results are random (a fixed seed, so a failure repeats): each field
 * zero or not on its own, 0 to 4 contacts, liquids and ladders, so that
 * tables of many sizes and shared and unshared vtables meet in one run;
 * half the runs are of one result's layout repeated (one vtable, as a
 * relay's tick of honest players mostly is), where the least bytes come
 * nearest the encoding. The datagram sizes are the protocol's own 1,200, a
 * few between, and the largest.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/encode.h"
#include "protocol/encode_internal.h"
#include "protocol/framing.h"
#include "protocol/result_pieces.h"

#define MOST 300

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next(void)
{
    /* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
     * xorshift generators, scrambled", 2016). */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* Nonzero one time in `in`. */
static uint32_t some(uint32_t in, uint32_t v)
{
    return next() % in == 0 ? v : 0;
}

static double real(void)
{
    return (double)(int32_t)next() / 65536.0;
}

static sweep_vec3 vec(void)
{
    return sweep_v3(real(), real(), real());
}

static void random_result(sweep_msg_move_result *r, uint32_t i)
{
    memset(r, 0, sizeof *r);
    r->entity = 1000 + i;
    r->sequence = some(8, 0) ? 0 : 7 + i;
    r->server_tick = some(8, 0) ? 0 : 4242;
    r->position = vec();
    r->velocity = vec();
    r->grounded = next() % 2;
    r->ground_normal = r->grounded || next() % 4 == 0 ? vec() : sweep_v3(0, 0, 0);
    r->ground_material = some(2, next());
    r->contact_count = next() % 5;
    for (uint32_t c = 0; c < r->contact_count; c++) {
        r->contacts[c].point = vec();
        r->contacts[c].normal = vec();
        r->contacts[c].triangle = next();
        r->contacts[c].mover = UINT32_MAX;
        r->contacts[c].body = UINT32_MAX;
    }
    r->corrected = some(4, 1);
    r->correction = some(3, 1) ? real() : 0.0;
    r->ground_mover = some(4, 3);
    r->pushed_by = some(6, 2);
    r->carried = some(6, 1);
    r->pushed = some(6, 1);
    r->has_start_position = some(5, 1);
    r->start_position = vec();
    r->rules = some(5, next());
    r->speed_excess = some(5, 1) ? real() : 0.0;
    r->time_excess = some(6, 1) ? real() : 0.0;
    r->applied_dt = some(8, 1) ? 0.0 : 1.0 / 60.0;
    r->launched_by = some(9, 5);
    r->teleported_by = some(9, 6);
    r->teleport_blocked = some(9, 1);
    r->hurt_by = some(9, 7);
    r->damage = some(9, 1) ? real() : 0.0;
    r->killed_by = some(12, 8);
    r->entered = some(9, 9);
    r->left = some(9, 10);
    r->crouched = some(7, 1);
    r->stance_blocked = some(9, 1);
    r->liquid = some(6, 11);
    r->liquid_type = r->liquid ? 1 + next() % 3 : 0;
    r->liquid_level = r->liquid ? next() % 4 : 0;
    r->entered_liquid = some(9, 12);
    r->left_liquid = some(9, 13);
    r->ladder = some(9, 14);
}

static sweep_msg_move_result results[MOST];

/* n random results, or (uniform) the first's fields repeated under ids of
 * their own. */
static void random_run(uint32_t n, int uniform)
{
    for (uint32_t i = 0; i < n; i++) {
        if (uniform && i > 0) {
            results[i] = results[0];
            results[i].entity = 1000 + i;
            results[i].sequence = 7 + i;
        } else {
            random_result(&results[i], i);
        }
    }
    if (uniform && results[0].sequence == 0)
        for (uint32_t i = 0; i < n; i++)
            results[i].sequence = 7 + i;
}
static uint8_t buf[1u << 20], ref_buf[1u << 20];

static sweep_message batch_of(const sweep_msg_move_result *r, uint32_t n)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
    m.sequence = 99;
    m.server_tick = 4242;
    m.as.move_result_batch.results = n ? r : NULL;
    m.as.move_result_batch.count = n;
    return m;
}

/* The pieces as the halving by trial encodings alone makes them, one after
 * the other in `into` (each: its length, then its bytes). */
static size_t reference(const sweep_msg_move_result *r, uint32_t count, size_t datagram, uint8_t *into)
{
    size_t at = 0;
    uint32_t start = 0;
    do {
        uint32_t k = count - start;
        const uint8_t *out;
        size_t len;
        for (;;) {
            sweep_message part = batch_of(r + start, k);
            sweep_proto_error e = sweep_encode(&part, 0, ref_buf, sizeof ref_buf, &out, &len);
            if (e == SWEEP_PROTO_OK && len <= datagram)
                break;
            assert_true(k > 1); /* every result alone fits the sizes tried */
            k = (k + 1) / 2;
        }
        memcpy(into + at, &len, sizeof len);
        memcpy(into + at + sizeof len, out, len);
        at += sizeof len + len;
        start += k;
    } while (start < count);
    return at;
}

typedef struct pieces {
    uint8_t *bytes;
    size_t at;
    unsigned count;
} pieces;

static int on_piece(void *ctx, const uint8_t *bytes, size_t len)
{
    pieces *p = ctx;
    memcpy(p->bytes + p->at, &len, sizeof len);
    memcpy(p->bytes + p->at + sizeof len, bytes, len);
    p->at += sizeof len + len;
    p->count++;
    return 0;
}

static uint8_t want[1u << 20], got[1u << 20];

static void test_same_pieces(void **state)
{
    (void)state;
    static const size_t sizes[] = {SWEEP_UDP_MAX_DATAGRAM, 1400, 2000, 4096, 9000, 65507};
    unsigned long several = 0;
    for (unsigned round = 0; round < 200; round++) {
        uint32_t count = 1 + next() % (round < 100 ? 40 : MOST);
        random_run(count, round % 2);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = reference(results, count, sizes[s], want);
            sweep_message m = batch_of(results, count);
            pieces p = {got, 0, 0};
            assert_int_equal(sweep_encode_pieces(&m, 0, sizes[s], buf, sizeof buf, on_piece, &p), SWEEP_PROTO_OK);
            assert_int_equal(p.at, n);
            assert_memory_equal(got, want, n);
            several += p.count > 1;
        }
    }
    /* Runs were cut, so skipped trials were met. */
    assert_true(several > 100);
}

/* The least bytes of a run never exceed its encoding: else a run that fits
 * would be skipped. */
static void test_least_is_least(void **state)
{
    (void)state;
    for (unsigned round = 0; round < 2000; round++) {
        uint32_t count = 1 + next() % 40;
        int uniform = round % 2;
        random_run(count, uniform);
        size_t least = 0;
        for (uint32_t i = 0; i < count; i++)
            least += sweep__move_result_least(&results[i]);
        sweep_message m = batch_of(results, count);
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_encode(&m, 0, buf, sizeof buf, &out, &len), SWEEP_PROTO_OK);
        assert_true(least <= len);
        /* And near, so that it skips what cannot fit: the message's own
         * tables and the vtables and padding apart. One layout has one
         * vtable, and each table at most 7 bytes of padding before it and
         * its contacts' vector as many. */
        size_t slack = uniform ? 240 + 16 * (size_t)count : 240 + 80 * (size_t)count;
        assert_true(len - least <= slack);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_pieces),
        cmocka_unit_test(test_least_is_least),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
