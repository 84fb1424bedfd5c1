/*
 * test_levelgen_dense.c - the generated dense levels of the core's
 * benchmark: the same inputs give the same level bit for bit, another seed
 * turns the furniture, bad inputs are refused, and walkers at Quake's speed
 * end on the floor, inside no geometry, on the finest and the coarsest cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/walker.h"
#include "core/world.h"
#include "maps/levelgen_dense.h"

static void make(sweep_level *lv, uint32_t tris, uint32_t cell, uint64_t seed)
{
    sweep_level_init(lv);
    assert_int_equal(sweep_levelgen_dense(tris, cell, seed, lv), SWEEP_OK);
}

static int same_geometry(const sweep_level *a, const sweep_level *b)
{
    return a->vertex_count == b->vertex_count && a->triangle_count == b->triangle_count &&
           memcmp(a->vertices, b->vertices, a->vertex_count * sizeof *a->vertices) == 0 &&
           memcmp(a->indices, b->indices, 3 * (size_t)a->triangle_count * sizeof *a->indices) == 0;
}

static void same_inputs_same_level(void **state)
{
    (void)state;
    sweep_level a, b, c;
    make(&a, 15000, 16, 1);
    make(&b, 15000, 16, 1);
    make(&c, 15000, 16, 2);
    assert_true(same_geometry(&a, &b));
    /* Four rooms, each turned by a hash of the seed: some other way. */
    assert_int_equal(a.triangle_count, c.triangle_count);
    assert_false(same_geometry(&a, &c));
    assert_true(a.spawn_count > 0 && a.spawn_count % 4 == 0);
    sweep_level_free(&a);
    sweep_level_free(&b);
    sweep_level_free(&c);
}

static void bad_inputs_refused(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    assert_int_equal(sweep_levelgen_dense(15000, 20, 1, &lv), SWEEP_E_ARG);
    assert_int_equal(sweep_levelgen_dense(199, 16, 1, &lv), SWEEP_E_ARG);
    assert_int_equal(sweep_levelgen_dense(15000, 16, 1, NULL), SWEEP_E_ARG);
    assert_false(sweep_levelgen_dense_cell_ok(32));
    assert_true(sweep_levelgen_dense_cell_ok(48));
    sweep_level_free(&lv);
}

/* 64 walkers for 600 steps at 320 units/s, as the benchmark walks: each
 * ends at or above the floor, overlapping nothing. */
static void walk(uint32_t cell)
{
    sweep_level lv;
    make(&lv, 15000, cell, 1);
    assert_true(lv.spawn_count >= 4 && lv.spawn_count % 4 == 0);
    sweep_world_desc desc = sweep_level_world_desc(&lv);
    sweep_world *world;
    assert_int_equal(sweep_world_create(&desc, &world), SWEEP_OK);
    sweep_world_info info;
    sweep_world_get_info(world, &info);
    assert_int_equal(info.degenerate_count, 0);
    sweep_walk_params wp = {64, 600, 60, 1.0 / 60.0, 320.0, lv.default_radii, 7};
    sweep_walker *w = calloc(wp.walkers, sizeof *w);
    assert_non_null(w);
    sweep_walk_place(&wp, lv.spawns, lv.spawn_count, w);
    sweep_move_result res;
    for (uint32_t s = 0; s < wp.steps; s++)
        for (uint32_t i = 0; i < wp.walkers; i++)
            assert_int_equal(sweep_walk_step(world, &lv.config, &wp, i, s, &w[i], &res), SWEEP_OK);
    for (uint32_t i = 0; i < wp.walkers; i++) {
        assert_true(w[i].position.z >= lv.default_radii.z - 1e-6);
        assert_false(sweep_walk_overlaps(world, NULL, &wp, w[i].position));
    }
    free(w);
    sweep_world_destroy(world);
    sweep_level_free(&lv);
}

static void walkers_stay_out_of_the_finest(void **state)
{
    (void)state;
    walk(16);
}

static void walkers_stay_out_of_the_coarsest(void **state)
{
    (void)state;
    walk(48);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_inputs_same_level),
        cmocka_unit_test(bad_inputs_refused),
        cmocka_unit_test(walkers_stay_out_of_the_finest),
        cmocka_unit_test(walkers_stay_out_of_the_coarsest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
