/*
 * test_steep_overhang.c - walking into the foot of a steep face under an
 * overhang, on a ramp: the slide must keep the steep face's own normal when
 * it does not rise along it.
 *
 * The three triangles are cut out of a real level (oacmpdm5 of Debian's
 * openarena-oacmp1, triangles 4037, 4048 and 5240), the smallest set on
 * which a walker's move there still ran out of iterations: an overhang
 * facing down and out (4037) above a steep face leaning back a little
 * (4048, its normal 0.009 up), both standing on a ramp (5240). The walker
 * walks up the ramp into the corner. The overhang pressed its slide down;
 * the steep face, taken as a vertical wall, then let that downward slide
 * run straight back into itself, touching it at t = 0 on every iteration,
 * so the move fell back to the first contact and the walker stood still
 * for the rest of the walk (47 fallback moves of one walker).
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
static const sweep_vec3 RADII = {15.0, 15.0, 28.0}; /* the level's body, Quake units */

static const double cut[3][9] = {
    {369.10342407226562, -1256, 336, 381.77583714165706, -1096, 152.25, 381.77583714165706, -1256, 152.25},
    {382.34478759765625, -1256, 144, 382.34478759765625, -1096, 144, 384.53445762529083, -1096, 112.25},
    {776, -1256, 216, 776, -1104, 120.00003496663717, -752, -1104, 120.00003496663717},
};

/* The level's movement rules, as sweep-import wrote them. */
static void level_config(sweep_config *cfg)
{
    sweep_config_default(cfg);
    cfg->gravity = sweep_v3(0, 0, -800);
    cfg->walkable_normal_up = 0.70000000000000007;
    cfg->step_height = 18;
    cfg->max_speed = 3000;
}

/* Distance in eSpace from a centre to the nearest triangle. */
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

static sweep_world *build(sweep_level *lv)
{
    sweep_level_init(lv);
    for (int t = 0; t < 3; t++) {
        uint32_t id[3];
        for (int k = 0; k < 3; k++)
            assert_int_equal(
                sweep_level_add_vertex(lv, sweep_v3(cut[t][3 * k], cut[t][3 * k + 1], cut[t][3 * k + 2]), &id[k]),
                SWEEP_OK);
        assert_int_equal(sweep_level_add_triangle(lv, id[0], id[1], id[2], 1), SWEEP_OK);
    }
    sweep_world *w;
    sweep_world_desc d = sweep_level_world_desc(lv);
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    return w;
}

/* The move that ran out of iterations, as the walker made it: heading at
 * Quake's 320 units/s, grounded, gravity for one step. */
static void the_walkers_move_slides_on(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_world *w = build(&lv);
    sweep_config cfg;
    level_config(&cfg);
    sweep_move_input in = {{367.21201966444755, -1097.3564102353635, 145.2208358409143},
                           RADII,
                           {0.95399495921598254 * 320.0, 0.29982264389217822 * 320.0, -800.0 * DT},
                           DT,
                           SWEEP_INPUT_GROUNDED};
    sweep_move_result r;
    assert_int_equal(sweep_move(w, &cfg, &in, &r), SWEEP_OK);
    assert_false(r.flags & SWEEP_MOVED_ITERATION_LIMIT);
    assert_true(clearance(&lv, r.position) >= 1.0 - 1e-7);
    /* Along the corner (+y), by most of the step's 1.6 units of y, not
     * the 0.01 of the fallback. */
    assert_true(r.position.y - in.position.y > 1.0);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

/* The same walker kept on its heading: every move slides on along the
 * corner, none falls back, none ends inside a face. */
static void walking_into_the_corner_never_falls_back(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_world *w = build(&lv);
    sweep_config cfg;
    level_config(&cfg);
    sweep_vec3 pos = {367.21201966444755, -1097.3564102353635, 145.2208358409143}, vel = {0, 0, 0};
    int grounded = 1;
    double start_y = pos.y;
    for (int t = 0; t < 40; t++) {
        sweep_vec3 v = {0.95399495921598254 * 320.0, 0.29982264389217822 * 320.0, vel.z - 800.0 * DT};
        sweep_move_input in = {pos, RADII, v, DT, grounded ? SWEEP_INPUT_GROUNDED : 0};
        sweep_move_result r;
        assert_int_equal(sweep_move(w, &cfg, &in, &r), SWEEP_OK);
        if (r.flags & SWEEP_MOVED_ITERATION_LIMIT)
            fail_msg("move %d: out of iterations at (%.4f, %.4f, %.4f)", t, r.position.x, r.position.y,
                     r.position.z);
        if (clearance(&lv, r.position) < 1.0 - 1e-7)
            fail_msg("move %d: inside a face at (%.4f, %.4f, %.4f)", t, r.position.x, r.position.y, r.position.z);
        pos = r.position, vel = r.velocity;
        grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
    }
    /* 40 steps of 1.6 units of y each, less what the corner takes. */
    assert_true(pos.y - start_y > 30.0);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_walkers_move_slides_on),
        cmocka_unit_test(walking_into_the_corner_never_falls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
