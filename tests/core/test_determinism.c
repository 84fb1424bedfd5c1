/*
 * test_determinism.c - the same move sequence gives the same state hash:
 * twice in one process, after rebuilding the world, and with the walkers
 * stepped in a different interleaving (each walker's moves depend only on
 * its own inputs). The cross-compiler half of the promise is
 * cross_build.sh, which compares builds at -O0, -O2, -O3 and with clang.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/hash.h"
#include "maps/levelgen.h"
#include "core/walker.h"

#define WALKERS 24
#define STEPS 500

/* prepare: 0 none, 1 for the walkers' radii, 2 for other radii. */
static uint64_t run_prepared(int reverse_order, int prepare)
{
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_levelgen_params gp = {42, 4000, 16, 0};
    assert_int_equal(sweep_levelgen(&gp, &lv), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&lv);
    sweep_world *w;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    if (prepare)
        assert_int_equal(sweep_world_prepare_radii(w, prepare == 1 ? lv.default_radii
                                                                   : sweep_v3_scale(lv.default_radii, 1.5)),
                         SWEEP_OK);
    sweep_walk_params wp = {WALKERS, STEPS, 37, 1.0 / 60.0, 6.0, lv.default_radii, 9};
    sweep_walker walkers[WALKERS];
    sweep_walk_place(&wp, lv.spawns, lv.spawn_count, walkers);
    for (uint32_t s = 0; s < STEPS; s++)
        for (uint32_t k = 0; k < WALKERS; k++) {
            uint32_t i = reverse_order ? WALKERS - 1 - k : k;
            sweep_move_result r;
            assert_int_equal(sweep_walk_step(w, &lv.config, &wp, i, s, &walkers[i], &r), SWEEP_OK);
        }
    uint64_t h = sweep_walk_hash(walkers, WALKERS);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
    return h;
}

static uint64_t run(int reverse_order)
{
    return run_prepared(reverse_order, 0);
}

/* A world prepared for the walkers' radii (each move takes its triangles
 * ready made) or for others (each move makes its own) walks the same. */
static void prepared_world_same_hash(void **state)
{
    (void)state;
    uint64_t plain = run_prepared(0, 0);
    assert_true(run_prepared(0, 1) == plain);
    assert_true(run_prepared(1, 1) == plain);
    assert_true(run_prepared(0, 2) == plain);
}

/* Bad radii are refused and leave the world usable as it was. */
static void prepare_refuses_bad_radii(void **state)
{
    (void)state;
    sweep_vec3 tri[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    uint32_t ix[3] = {0, 1, 2};
    sweep_world_desc d = {tri, 3, ix, NULL, 1};
    sweep_world *w;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    sweep_world_info before, after;
    sweep_world_get_info(w, &before);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(0.0, 1.0, 1.0)), SWEEP_E_RADII);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(1.0, -1.0, 1.0)), SWEEP_E_RADII);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(1.0, 1.0, NAN)), SWEEP_E_RADII);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(1.0, INFINITY, 1.0)), SWEEP_E_RADII);
    assert_int_equal(sweep_world_prepare_radii(NULL, sweep_v3(1.0, 1.0, 1.0)), SWEEP_E_ARG);
    sweep_world_get_info(w, &after);
    assert_true(after.bytes == before.bytes);
    /* Good radii cost memory, counted; preparing again replaces. */
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(1.0, 1.0, 2.0)), SWEEP_OK);
    assert_int_equal(sweep_world_prepare_radii(w, sweep_v3(1.0, 1.0, 1.0)), SWEEP_OK);
    sweep_world_get_info(w, &after);
    assert_true(after.bytes > before.bytes);
    sweep_world_destroy(w);
}

static void same_inputs_same_hash(void **state)
{
    (void)state;
    uint64_t a = run(0), b = run(0), c = run(1);
    assert_true(a == b);
    assert_true(a == c);
    assert_true(a != SWEEP_HASH_INIT);
}

static void hash_sees_every_bit(void **state)
{
    (void)state;
    sweep_vec3 p = {1, 2, 3}, v = {0, 0, 0}, nz = {0, 0, -0.0};
    uint64_t h = sweep_hash_body(SWEEP_HASH_INIT, p, v, 1);
    assert_true(h != sweep_hash_body(SWEEP_HASH_INIT, p, nz, 1)); /* -0.0 is not 0.0 */
    assert_true(h != sweep_hash_body(SWEEP_HASH_INIT, p, v, 0));
    sweep_vec3 q = p;
    q.z = nextafter(q.z, 4.0); /* one ulp */
    assert_true(h != sweep_hash_body(SWEEP_HASH_INIT, q, v, 1));
    /* FNV-1a 64 known answer: "a" -> af63dc4c8601ec8c. */
    assert_true(sweep_hash_bytes(SWEEP_HASH_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_inputs_same_hash),
        cmocka_unit_test(prepared_world_same_hash),
        cmocka_unit_test(prepare_refuses_bad_radii),
        cmocka_unit_test(hash_sees_every_bit),
    };
    return cmocka_run_group_tests_name("determinism", tests, NULL, NULL);
}
