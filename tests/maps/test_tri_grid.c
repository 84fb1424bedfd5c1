/*
 * test_tri_grid.c - the level check's grid of triangles (maps/tri_grid.h)
 * answers every triangle whose box meets a query's box, each once and in
 * increasing order, on levels of scattered, huge and flat triangles; a
 * grid too large to be worth it answers every triangle.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "maps/tri_grid.h"

/* A deterministic number in [0, 1). */
static double next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static void add_triangle(sweep_level *lv, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    uint32_t i[3];
    assert_int_equal(sweep_level_add_vertex(lv, a, &i[0]), SWEEP_OK);
    assert_int_equal(sweep_level_add_vertex(lv, b, &i[1]), SWEEP_OK);
    assert_int_equal(sweep_level_add_vertex(lv, c, &i[2]), SWEEP_OK);
    assert_int_equal(sweep_level_add_triangle(lv, i[0], i[1], i[2], 1), SWEEP_OK);
}

static int box_meets(const sweep_level *lv, uint32_t t, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep_vec3 p[3];
    for (int k = 0; k < 3; k++)
        p[k] = lv->vertices[lv->indices[3 * t + k]];
    sweep_vec3 tlo = sweep_v3_min(p[0], sweep_v3_min(p[1], p[2])), thi = sweep_v3_max(p[0], sweep_v3_max(p[1], p[2]));
    return !(tlo.x > hi.x || thi.x < lo.x || tlo.y > hi.y || thi.y < lo.y || tlo.z > hi.z || thi.z < lo.z);
}

/* Random boxes and rays along the axes: the answer holds every triangle
 * whose box meets the query's, increasing, none twice. */
static void answers_hold_every_meeting_triangle(sweep_level *lv, uint64_t seed, int expect_built)
{
    sweep__tri_grid g;
    assert_int_equal(sweep__tri_grid_build(&g, lv), SWEEP_OK);
    assert_int_equal(g.built, expect_built);
    uint64_t s = seed;
    for (int q = 0; q < 2000; q++) {
        sweep_vec3 a = sweep_v3(next(&s) * 120 - 10, next(&s) * 120 - 10, next(&s) * 30 - 5), b = a;
        if (q % 2) {
            int axis = (int)(next(&s) * 3);
            double far = (next(&s) < 0.5 ? -1 : 1) * 400;
            if (axis == 0)
                b.x += far;
            else if (axis == 1)
                b.y += far;
            else
                b.z += far;
        } else {
            b = sweep_v3_add(a, sweep_v3(next(&s) * 3, next(&s) * 3, next(&s) * 3));
        }
        sweep_vec3 lo = sweep_v3_min(a, b), hi = sweep_v3_max(a, b);
        uint32_t n;
        const uint32_t *got = sweep__tri_grid_query(&g, lo, hi, &n);
        for (uint32_t i = 1; i < n; i++)
            assert_true(got[i - 1] < got[i]);
        uint32_t k = 0;
        for (uint32_t t = 0; t < lv->triangle_count; t++) {
            if (!box_meets(lv, t, lo, hi))
                continue;
            while (k < n && got[k] < t)
                k++;
            if (!(k < n && got[k] == t))
                fail_msg("query %d: triangle %u meets the box and is not in the answer", q, t);
        }
    }
    sweep__tri_grid_free(&g);
}

static void finds_what_a_loop_over_all_finds(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    uint64_t s = 7;
    for (int i = 0; i < 3000; i++) {
        sweep_vec3 a = sweep_v3(next(&s) * 100, next(&s) * 100, next(&s) * 20);
        add_triangle(&lv, a, sweep_v3_add(a, sweep_v3(next(&s) * 4, next(&s) * 4, 0)),
                     sweep_v3_add(a, sweep_v3(0, next(&s) * 4, next(&s) * 4)));
    }
    /* Two huge floors across every cell, and a flat far strip. */
    add_triangle(&lv, sweep_v3(-5, -5, 0), sweep_v3(105, -5, 0), sweep_v3(105, 105, 0));
    add_triangle(&lv, sweep_v3(-5, -5, 10), sweep_v3(105, 105, 10), sweep_v3(-5, 105, 10));
    answers_hold_every_meeting_triangle(&lv, 11, 1);
    sweep_level_free(&lv);

    /* A flat level (no height at all). */
    sweep_level_init(&lv);
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    for (int i = 0; i < 500; i++) {
        sweep_vec3 a = sweep_v3(next(&s) * 100, next(&s) * 100, 0);
        add_triangle(&lv, a, sweep_v3_add(a, sweep_v3(2, 0, 0)), sweep_v3_add(a, sweep_v3(0, 2, 0)));
    }
    answers_hold_every_meeting_triangle(&lv, 12, 1);
    sweep_level_free(&lv);
}

/* Thousands of triangles each across the whole level: the grid would hold
 * more entries than it is worth, is not built, and answers them all. */
static void a_grid_of_huge_triangles_answers_all(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    for (int i = 0; i < 4000; i++) {
        double z = i * 0.005;
        add_triangle(&lv, sweep_v3(-5, -5, z), sweep_v3(105, -5, z + 20), sweep_v3(105, 105, z + 10));
    }
    answers_hold_every_meeting_triangle(&lv, 13, 0);
    sweep__tri_grid g;
    assert_int_equal(sweep__tri_grid_build(&g, &lv), SWEEP_OK);
    uint32_t n;
    sweep__tri_grid_query(&g, sweep_v3(1000, 1000, 1000), sweep_v3(1001, 1001, 1001), &n);
    assert_int_equal(n, lv.triangle_count);
    sweep__tri_grid_free(&g);
    sweep_level_free(&lv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_what_a_loop_over_all_finds),
        cmocka_unit_test(a_grid_of_huge_triangles_answers_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
