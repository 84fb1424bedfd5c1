/*
 * test_creases.c - sliding into the crease between two surfaces: a wall
 * standing on a ramp at an angle, the commonest shape of real levels
 * (terrain against buildings, stairs against trims). A slide along one of
 * them runs into the other; ping-ponging between the two used to run out
 * of iterations and stop the player dead. Following the crease line keeps
 * the player moving along it, never into either surface.
 *
 * The first case is a real one, cut out of a generated level: a walker on
 * sloping terrain walks into the lower edge of a raised lift (a box), which
 * meets its upper body; before crease following, that move ran out of
 * iterations. The second sweeps ramps and walls at many angles.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/move.h"
#include "core/swept_sphere.h"
#include "maps/level.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

/* Distance in eSpace from a centre to the nearest triangle of the level. */
static double clearance(const sweep_level *lv, sweep_vec3 c)
{
    sweep_vec3 inv = sweep_v3(1.0 / RADII.x, 1.0 / RADII.y, 1.0 / RADII.z), e = sweep_v3_mul(c, inv);
    double best = INFINITY;
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        sweep_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = sweep_v3_mul(lv->vertices[lv->indices[3 * t + k]], inv);
        double d = sweep_v3_len(sweep_v3_sub(e, sweep_closest_point_on_triangle(e, p[0], p[1], p[2])));
        best = d < best ? d : best;
    }
    return best;
}

/* The terrain around the walker (0) and the lift's box (1), world space,
 * exactly as they were when the walker's move ran out of iterations. */
static const struct {
    int lift;
    double v[9];
} cut[] = {
    {1, {6.5, 22.5, 5.7791239869114284, 9.5, 22.5, 5.7791239869114284, 9.5, 25.5, 5.7791239869114284}},
    {1, {6.5, 22.5, 5.7791239869114284, 9.5, 25.5, 5.7791239869114284, 6.5, 25.5, 5.7791239869114284}},
    {1, {6.5, 22.5, 4.5033327037399431, 6.5, 25.5, 4.5033327037399431, 9.5, 25.5, 4.5033327037399431}},
    {1, {6.5, 22.5, 4.5033327037399431, 9.5, 25.5, 4.5033327037399431, 9.5, 22.5, 4.5033327037399431}},
    {1, {9.5, 22.5, 4.5033327037399431, 9.5, 25.5, 4.5033327037399431, 9.5, 25.5, 5.7791239869114284}},
    {1, {9.5, 22.5, 4.5033327037399431, 9.5, 25.5, 5.7791239869114284, 9.5, 22.5, 5.7791239869114284}},
    {1, {6.5, 22.5, 4.5033327037399431, 6.5, 22.5, 5.7791239869114284, 6.5, 25.5, 5.7791239869114284}},
    {1, {6.5, 22.5, 4.5033327037399431, 6.5, 25.5, 5.7791239869114284, 6.5, 25.5, 4.5033327037399431}},
    {1, {6.5, 25.5, 4.5033327037399431, 6.5, 25.5, 5.7791239869114284, 9.5, 25.5, 5.7791239869114284}},
    {1, {6.5, 25.5, 4.5033327037399431, 9.5, 25.5, 5.7791239869114284, 9.5, 25.5, 4.5033327037399431}},
    {1, {6.5, 22.5, 4.5033327037399431, 9.5, 22.5, 4.5033327037399431, 9.5, 22.5, 5.7791239869114284}},
    {1, {6.5, 22.5, 4.5033327037399431, 9.5, 22.5, 5.7791239869114284, 6.5, 22.5, 5.7791239869114284}},
    {0, {0, 25, 2.349083962920429, 1, 25, 2.3877408437383223, 1, 26, 2.4601333280696855}},
    {0, {0, 25, 2.349083962920429, 1, 26, 2.4601333280696855, 0, 26, 2.4241649639880256}},
    {0, {1, 25, 2.3877408437383223, 2, 25, 2.4892193547346575, 2, 26, 2.5544918564227603}},
    {0, {1, 25, 2.3877408437383223, 2, 26, 2.5544918564227603, 1, 26, 2.4601333280696855}},
    {0, {2, 25, 2.4892193547346575, 3, 25, 2.6317812987234177, 3, 26, 2.6869207032093945}},
    {0, {2, 25, 2.4892193547346575, 3, 26, 2.6869207032093945, 2, 26, 2.5544918564227603}},
    {0, {3, 25, 2.6317812987234177, 4, 25, 2.7936884785185869, 4, 26, 2.8371000225917324}},
    {0, {3, 25, 2.6317812987234177, 4, 26, 2.8371000225917324, 3, 26, 2.6869207032093945}},
    {0, {4, 25, 2.7936884785185869, 5, 25, 2.9532026969341483, 5, 26, 2.9847099687319174}},
    {0, {4, 25, 2.7936884785185869, 5, 26, 2.9847099687319174, 4, 26, 2.8371000225917324}},
    {0, {5, 25, 2.9532026969341483, 6, 25, 3.0885857567840853, 6, 26, 3.1094306957920939}},
    {0, {5, 25, 2.9532026969341483, 6, 26, 3.1094306957920939, 5, 26, 2.9847099687319174}},
    {0, {6, 25, 3.0885857567840853, 7, 25, 3.1780994608823807, 7, 26, 3.1909423579344058}},
    {0, {6, 25, 3.0885857567840853, 7, 26, 3.1909423579344058, 6, 26, 3.1094306957920939}},
    {0, {7, 25, 3.1780994608823807, 8, 25, 3.2000056120430189, 8, 26, 3.2089251093209961}},
    {0, {7, 25, 3.1780994608823807, 8, 26, 3.2089251093209961, 7, 26, 3.1909423579344058}},
    {0, {8, 25, 3.2000056120430189, 9, 25, 3.1638824650528923, 9, 26, 3.1740243012152671}},
    {0, {8, 25, 3.2000056120430189, 9, 26, 3.1740243012152671, 8, 26, 3.2089251093209961}},
    {0, {9, 25, 3.1638824650528923, 10, 25, 3.0998297258132061, 10, 26, 3.11549279178882}},
    {0, {9, 25, 3.1638824650528923, 10, 26, 3.11549279178882, 9, 26, 3.1740243012152671}},
    {0, {10, 25, 3.0998297258132061, 11, 25, 3.0168913738094134, 11, 26, 3.0409219955661002}},
    {0, {10, 25, 3.0998297258132061, 11, 26, 3.0409219955661002, 10, 26, 3.11549279178882}},
    {0, {11, 25, 3.0168913738094134, 12, 25, 2.9241113885269661, 12, 26, 2.9579033270715516}},
    {0, {11, 25, 3.0168913738094134, 12, 26, 2.9579033270715516, 11, 26, 3.0409219955661002}},
    {0, {12, 25, 2.9241113885269661, 13, 25, 2.8305337494513152, 13, 26, 2.8740282008296187}},
};

static void walker_under_a_lift_edge(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    for (size_t t = 0; t < sizeof cut / sizeof cut[0]; t++) {
        uint32_t id[3];
        for (int k = 0; k < 3; k++)
            assert_int_equal(
                sweep_level_add_vertex(&lv, sweep_v3(cut[t].v[3 * k], cut[t].v[3 * k + 1], cut[t].v[3 * k + 2]), &id[k]),
                SWEEP_OK);
        assert_int_equal(sweep_level_add_triangle(&lv, id[0], id[1], id[2], 1 + cut[t].lift), SWEEP_OK);
    }
    sweep_world *w;
    sweep_world_desc d = sweep_level_world_desc(&lv);
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    sweep_config cfg;
    sweep_config_default(&cfg);
    /* The walker's input as maps/walker.c made it: heading at 5 m/s, its
     * vertical velocity (none: grounded), gravity for one step. */
    sweep_move_input in = {{6.1594496359135134, 25.129817744794046, 4.0053244139029101},
                           RADII,
                           {0.99978485936101391 * 5.0, 0.020742106751186134 * 5.0, -9.81 * DT},
                           DT,
                           SWEEP_INPUT_GROUNDED};
    sweep_move_result r;
    assert_int_equal(sweep_move(w, &cfg, &in, &r), SWEEP_OK);
    assert_false(r.flags & SWEEP_MOVED_ITERATION_LIMIT);
    assert_true(r.flags & SWEEP_MOVED_GROUNDED);
    assert_true(clearance(&lv, r.position) >= 1.0 - 1e-7);
    /* Pressed under the edge, it slides along it (along y) rather than stop. */
    assert_true(fabs(r.position.y - in.position.y) > 1e-3);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

/* A ramp rising along +x at `slope` (rise per run) and a vertical wall
 * through (0, 2) along the direction `wall_deg` degrees from +x, facing the
 * walkers, who start at (-6, 0). */
static void build(sweep_level *lv, double slope, double wall_deg)
{
    sweep_level_init(lv);
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(-100, -100, -100 * slope), sweep_v3(100, -100, 100 * slope),
                                          sweep_v3(100, 100, 100 * slope), sweep_v3(-100, 100, -100 * slope), 1),
                     SWEEP_OK);
    double a = wall_deg * 3.14159265358979323846 / 180.0; /* set-up only */
    sweep_vec3 along = sweep_v3(cos(a), sin(a), 0), base = sweep_v3(0, 2, 0);
    sweep_vec3 p0 = sweep_v3_madd(base, along, -100), p1 = sweep_v3_madd(base, along, 100);
    /* Along the wall then up faces (sin, -cos); the other way round if the
     * walkers' start is behind that. */
    if ((-6.0 - base.x) * sin(a) - (0.0 - base.y) * cos(a) < 0.0) {
        sweep_vec3 t = p0;
        p0 = p1, p1 = t;
    }
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(p0.x, p0.y, -100), sweep_v3(p1.x, p1.y, -100),
                                          sweep_v3(p1.x, p1.y, 100), sweep_v3(p0.x, p0.y, 100), 2),
                     SWEEP_OK);
}

static void walking_up_along_a_slanted_wall(void **state)
{
    (void)state;
    int cases = 0;
    for (int si = 0; si < 4; si++)
        for (int wi = 0; wi < 6; wi++) {
            double slope = 0.15 + 0.2 * si, wall = -50.0 + 20.0 * wi;
            sweep_level lv;
            build(&lv, slope, wall);
            sweep_world *w;
            sweep_world_desc d = sweep_level_world_desc(&lv);
            assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
            sweep_config cfg;
            sweep_config_default(&cfg);
            sweep_vec3 pos = sweep_v3(-6, 0, -6 * slope + 0.9 / cos(atan(slope)) + 0.01), vel = sweep_v3(0, 0, 0);
            int grounded = 0;
            double start_x = pos.x;
            for (int t = 0; t < 180; t++) {
                /* Up the ramp and into the wall, as a player hugging it does. */
                sweep_vec3 v = sweep_v3(4.0, 3.0, vel.z - 9.81 * DT);
                sweep_move_input in = {pos, RADII, v, DT, grounded ? SWEEP_INPUT_GROUNDED : 0};
                sweep_move_result r;
                assert_int_equal(sweep_move(w, &cfg, &in, &r), SWEEP_OK);
                if (r.flags & SWEEP_MOVED_ITERATION_LIMIT)
                    fail_msg("slope %.2f wall %.0f deg, move %d: out of iterations at (%.4f, %.4f, %.4f)", slope,
                             wall, t, r.position.x, r.position.y, r.position.z);
                pos = r.position, vel = r.velocity;
                grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
                if (clearance(&lv, pos) < 1.0 - 1e-7)
                    fail_msg("slope %.2f wall %.0f deg, move %d: inside a surface", slope, wall, t);
            }
            /* It kept going along the crease wherever the wall lets it. */
            if (wall < 0.0 && !(pos.x - start_x > 3.0))
                fail_msg("slope %.2f wall %.0f deg: stuck after %.3f m", slope, wall, pos.x - start_x);
            cases++;
            sweep_world_destroy(w);
            sweep_level_free(&lv);
        }
    assert_int_equal(cases, 24);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walker_under_a_lift_edge),
        cmocka_unit_test(walking_up_along_a_slanted_wall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
