/*
 * test_record_patch.c - a request kept as a patch of its session's base
 * (server/record/record_patch.h): a patch made of two byte strings makes
 * the second of the first again, whatever they hold and wherever they
 * differ; it is refused past the length asked for; a patch that is not
 * one (cut short, reaching past its base) is refused; and the table of
 * bases keeps each session's apart as it grows, forgets and clears.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/record/record_patch.h"
#include "tests/test_rng.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_u64(void)
{
    return test_rng_next(&rng);
}

/* now: base with `changes` runs of 1 to `longest` bytes changed at random
 * places (some of them changed to what they were). */
static void mutate(const uint8_t *base, uint8_t *now, size_t len, unsigned changes, size_t longest)
{
    memcpy(now, base, len);
    for (unsigned k = 0; k < changes; k++) {
        size_t at = next_u64() % len, n = 1 + next_u64() % longest;
        for (size_t i = at; i < at + n && i < len; i++)
            now[i] = (uint8_t)next_u64();
    }
}

/* A patch that is at most len bytes, or SIZE_MAX. */
static size_t patch_of(const uint8_t *base, const uint8_t *now, size_t len, uint8_t *out)
{
    return sweep__record_patch_make(base, now, len, out, 2 * len + 16);
}

static void patches_make_the_request_again(void **state)
{
    (void)state;
    static uint8_t base[SWEEP__RECORD_BASE_MAX], now[SWEEP__RECORD_BASE_MAX], again[SWEEP__RECORD_BASE_MAX];
    static uint8_t patch[2 * SWEEP__RECORD_BASE_MAX + 16];
    for (unsigned round = 0; round < 20000; round++) {
        size_t len = 1 + next_u64() % (round % 4 == 0 ? SWEEP__RECORD_BASE_MAX : 160);
        for (size_t i = 0; i < len; i++)
            base[i] = (uint8_t)next_u64();
        /* From no change to changes everywhere, short runs and long. */
        mutate(base, now, len, (unsigned)(next_u64() % 12), round % 3 == 0 ? 600 : 9);
        size_t n = patch_of(base, now, len, patch);
        assert_true(n != SIZE_MAX);
        if (memcmp(base, now, len) == 0)
            assert_int_equal(n, 0);
        memset(again, 0xee, sizeof again);
        assert_int_equal(sweep__record_patch_apply(base, len, patch, n, again), 0);
        if (memcmp(again, now, len) != 0)
            fail_msg("round %u: %zu bytes, a patch of %zu: not the request again", round, len, n);
        assert_int_equal(again[len < sizeof again ? len : 0], len < sizeof again ? 0xee : again[0]);
        /* Refused when longer than asked: then SIZE_MAX, never more. */
        if (n > 0) {
            uint8_t small[4096];
            assert_int_equal(sweep__record_patch_make(base, now, len, small, n - 1), SIZE_MAX);
            assert_int_equal(sweep__record_patch_make(base, now, len, small, n), n);
            assert_memory_equal(small, patch, n);
        }
    }
}

/* A request that differs only far from its start takes runs of n = 0 to
 * skip there; one byte changed costs three; a short gap inside a change
 * is carried in its run. */
static void skips_and_runs_are_as_written(void **state)
{
    (void)state;
    uint8_t base[1000], now[1000], patch[2100], again[1000];
    memset(base, 7, sizeof base);
    memcpy(now, base, sizeof now);
    now[700] = 8;
    size_t n = patch_of(base, now, sizeof base, patch);
    /* 700 = 255 + 255 + 190: two skips, then the run. */
    assert_int_equal(n, 2 + 2 + 3);
    assert_int_equal(patch[0], 255);
    assert_int_equal(patch[1], 0);
    assert_int_equal(patch[2], 255);
    assert_int_equal(patch[3], 0);
    assert_int_equal(patch[4], 190);
    assert_int_equal(patch[5], 1);
    assert_int_equal(patch[6], 8);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, patch, n, again), 0);
    assert_memory_equal(again, now, sizeof now);

    memcpy(now, base, sizeof now);
    now[10] = 1, now[12] = 1; /* one byte alike between: one run of 3 */
    assert_int_equal(patch_of(base, now, sizeof base, patch), 2 + 3);
    now[13] = 0, now[16] = 0; /* two alike between 13 and 16: two runs */
    assert_int_equal(patch_of(base, now, sizeof base, patch), 2 + 4 + 2 + 1);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, patch, 2 + 4 + 2 + 1, again), 0);
    assert_memory_equal(again, now, sizeof now);

    /* A change longer than a run holds: runs of 255 back to back. */
    memset(now, 9, sizeof now);
    n = patch_of(base, now, sizeof base, patch);
    assert_int_equal(n, 4 * 2 + 1000);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, patch, n, again), 0);
    assert_memory_equal(again, now, sizeof now);
}

static void a_bad_patch_is_refused(void **state)
{
    (void)state;
    uint8_t base[100], out[100];
    memset(base, 3, sizeof base);
    const uint8_t cut_header[] = {4};
    const uint8_t cut_bytes[] = {4, 3, 1, 2};
    const uint8_t past_end[] = {98, 3, 1, 2, 3};
    const uint8_t skip_past[] = {255, 0};
    const uint8_t fits[] = {97, 3, 1, 2, 3};
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, cut_header, sizeof cut_header, out), -1);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, cut_bytes, sizeof cut_bytes, out), -1);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, past_end, sizeof past_end, out), -1);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, skip_past, sizeof skip_past, out), -1);
    assert_int_equal(sweep__record_patch_apply(base, sizeof base, fits, sizeof fits, out), 0);
    assert_int_equal(out[96], 3);
    assert_int_equal(out[97], 1);
    assert_int_equal(out[99], 3);
}

/* Many sessions, session 0 among them: each keeps its own base as the
 * table grows; a forgotten one has none and takes one again; a cleared
 * table has none. */
static void bases_keep_each_session_apart(void **state)
{
    (void)state;
    sweep__record_bases b = {0};
    assert_null(sweep__record_base_of(&b, 0));
    uint8_t bytes[64];
    for (uint64_t s = 0; s < 5000; s++) {
        uint32_t len = 1 + (uint32_t)(s % 64);
        memset(bytes, (int)(s & 0xff), len);
        assert_int_equal(sweep__record_base_set(&b, s * 0x100000001ull, bytes, len), 0);
    }
    for (uint64_t s = 0; s < 5000; s++) {
        const sweep__record_base *x = sweep__record_base_of(&b, s * 0x100000001ull);
        assert_non_null(x);
        assert_int_equal(x->len, 1 + s % 64);
        assert_int_equal(x->bytes[x->len - 1], s & 0xff);
    }
    assert_null(sweep__record_base_of(&b, 7));
    sweep__record_base_forget(&b, 42 * 0x100000001ull);
    assert_null(sweep__record_base_of(&b, 42 * 0x100000001ull));
    assert_non_null(sweep__record_base_of(&b, 43 * 0x100000001ull));
    /* A longer base than the slot held: its room grows. */
    uint8_t big[SWEEP__RECORD_BASE_MAX];
    memset(big, 0x5a, sizeof big);
    assert_int_equal(sweep__record_base_set(&b, 42 * 0x100000001ull, big, sizeof big), 0);
    assert_int_equal(sweep__record_base_of(&b, 42 * 0x100000001ull)->len, sizeof big);
    assert_int_equal(sweep__record_base_of(&b, 42 * 0x100000001ull)->bytes[sizeof big - 1], 0x5a);
    sweep__record_bases_clear(&b);
    assert_null(sweep__record_base_of(&b, 0));
    assert_null(sweep__record_base_of(&b, 42 * 0x100000001ull));
    assert_int_equal(sweep__record_base_set(&b, 0, bytes, 3), 0);
    assert_int_equal(sweep__record_base_of(&b, 0)->len, 3);
    sweep__record_bases_free(&b);
    assert_null(sweep__record_base_of(&b, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(patches_make_the_request_again),
        cmocka_unit_test(skips_and_runs_are_as_written),
        cmocka_unit_test(a_bad_patch_is_refused),
        cmocka_unit_test(bases_keep_each_session_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
