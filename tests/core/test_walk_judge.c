/*
 * test_walk_judge.c - the verdict on a walker that went nowhere
 * (sweep_walk_judge, walker.h): free in a corner, trapped in a closet,
 * inside geometry, stuck where there is room but moving fails; and the
 * independent overlap and room tests it rests on, on small hand-made
 * levels.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/walker.h"
#include "maps/level.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

/* A closed box lo..hi whose faces look inward: a room (or a closet). */
static void add_room(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep_level box;
    sweep_level_init(&box);
    assert_int_equal(sweep_level_add_box(&box, lo, hi, 1, 1), SWEEP_OK);
    for (uint32_t t = 0; t < box.triangle_count; t++) {
        uint32_t id[3];
        for (int k = 0; k < 3; k++)
            assert_int_equal(sweep_level_add_vertex(lv, box.vertices[box.indices[3 * t + k]], &id[k]), SWEEP_OK);
        assert_int_equal(sweep_level_add_triangle(lv, id[0], id[2], id[1], 1), SWEEP_OK); /* turned inward */
    }
    sweep_level_free(&box);
}

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_config cfg;
    sweep_walk_params p;
} scene;

/* A 10 x 10 room (floor at 0, ceiling at 3, walls at -5 and +5) and a
 * closet 1 x 1 x 2 far from it, for a body 0.8 wide and 1.8 tall. */
static void scene_init(scene *s)
{
    sweep_level_init(&s->lv);
    add_room(&s->lv, sweep_v3(-5, -5, 0), sweep_v3(5, 5, 3));
    add_room(&s->lv, sweep_v3(99.5, -0.5, 0), sweep_v3(100.5, 0.5, 2));
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
    sweep_config_default(&s->cfg);
    sweep_walk_params p = {1, 1, 60, DT, 5.0, RADII, 1};
    s->p = p;
}

static void scene_free(scene *s)
{
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
}

/* A walker standing at (x, y) on the floor at rest. */
static sweep_walker standing(double x, double y, double floor)
{
    sweep_walker w;
    memset(&w, 0, sizeof w);
    w.position = sweep_v3(x, y, floor + RADII.z * 1.002);
    w.grounded = 1;
    w.ground_mover = SWEEP_NO_MOVER;
    w.touch_mover = SWEEP_NO_MOVER;
    return w;
}

/* The directions of SWEEP_WALK_DIRECTIONS for up = +z: 0 is +y, 4 is -x,
 * 8 is -y, 12 is +x (walker.c's plane basis). */
enum { DIR_PY = 0, DIR_MX = 4, DIR_MY = 8, DIR_PX = 12 };

static void a_walker_in_a_corner_is_free(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_walker w = standing(4.59, 4.59, 0.0); /* against the +x and +y walls */
    assert_false(sweep_walk_overlaps(s.w, NULL, &s.p, w.position));
    uint32_t room = sweep_walk_room(s.w, NULL, &s.cfg, &s.p, w.position);
    assert_false(room & (1u << DIR_PX));
    assert_false(room & (1u << DIR_PY));
    assert_true(room & (1u << DIR_MX));
    assert_true(room & (1u << DIR_MY));
    assert_int_equal(sweep_walk_judge(s.w, NULL, &s.cfg, &s.p, &w), SWEEP_WALK_FREE);
    /* In the open, every direction has room. */
    assert_int_equal(sweep_walk_room(s.w, NULL, &s.cfg, &s.p, standing(0, 0, 0).position),
                     (1u << SWEEP_WALK_DIRECTIONS) - 1);
    scene_free(&s);
}

static void a_walker_in_a_closet_is_trapped(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_walker w = standing(100.0, 0.0, 0.0);
    assert_false(sweep_walk_overlaps(s.w, NULL, &s.p, w.position));
    assert_int_equal(sweep_walk_room(s.w, NULL, &s.cfg, &s.p, w.position), 0);
    assert_int_equal(sweep_walk_judge(s.w, NULL, &s.cfg, &s.p, &w), SWEEP_WALK_TRAPPED);
    /* The judge changes nothing. */
    sweep_walker before = w;
    sweep_walk_judge(s.w, NULL, &s.cfg, &s.p, &w);
    assert_memory_equal(&w, &before, sizeof w);
    scene_free(&s);
}

static void a_walker_in_a_wall_is_inside(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    /* 0.2 from the +x wall, in front of it: half its radius in the wall. */
    sweep_walker w = standing(4.8, 0.0, 0.0);
    assert_true(sweep_walk_overlaps(s.w, NULL, &s.p, w.position));
    assert_int_equal(sweep_walk_judge(s.w, NULL, &s.cfg, &s.p, &w), SWEEP_WALK_INSIDE);
    /* Just as deep but behind the wall (outside the room): the core lets a
     * body pass a face from behind, so that is no overlap. */
    assert_false(sweep_walk_overlaps(s.w, NULL, &s.p, sweep_v3(5.2, 0.0, RADII.z * 1.002)));
    /* Resting on the floor is no overlap either; sinking into it is. */
    assert_false(sweep_walk_overlaps(s.w, NULL, &s.p, sweep_v3(0, 0, RADII.z * (1.0 + 1e-9))));
    assert_true(sweep_walk_overlaps(s.w, NULL, &s.p, sweep_v3(0, 0, RADII.z * 0.99)));
    scene_free(&s);
}

/* Room, but the moves go nowhere: here because the rules allow no speed
 * (a speed limit of 1e-4 units/s), which is what a core that fails to
 * move a body looks like to the judge. */
static void a_walker_that_cannot_walk_into_room_is_stuck(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.cfg.max_speed = 1e-4;
    sweep_walker w = standing(0, 0, 0);
    assert_int_equal(sweep_walk_room(s.w, NULL, &s.cfg, &s.p, w.position), (1u << SWEEP_WALK_DIRECTIONS) - 1);
    assert_int_equal(sweep_walk_judge(s.w, NULL, &s.cfg, &s.p, &w), SWEEP_WALK_STUCK);
    scene_free(&s);
}

/* A mover's triangles count where the mover is now. */
static void movers_are_geometry_too(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    uint32_t m;
    assert_int_equal(sweep_level_add_mover(&s.lv, 1, "crate", &m), SWEEP_OK);
    sweep_level_mover *mo = &s.lv.movers[m];
    sweep_level crate;
    sweep_level_init(&crate);
    assert_int_equal(sweep_level_add_box(&crate, sweep_v3(-0.5, -0.5, 0), sweep_v3(0.5, 0.5, 1), 1, 1), SWEEP_OK);
    for (uint32_t i = 0; i < crate.vertex_count; i++) {
        uint32_t id;
        assert_int_equal(sweep_level_mover_add_vertex(mo, crate.vertices[i], &id), SWEEP_OK);
    }
    for (uint32_t t = 0; t < crate.triangle_count; t++)
        assert_int_equal(sweep_level_mover_add_triangle(mo, crate.indices[3 * t], crate.indices[3 * t + 1],
                                                        crate.indices[3 * t + 2], 1),
                         SWEEP_OK);
    sweep_level_free(&crate);
    /* Two keyframes at one place: a mover that stands still. */
    assert_int_equal(sweep_level_mover_add_keyframe(mo, 0.0, sweep_v3(2, 0, 0), sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(mo, 1.0, sweep_v3(2, 0, 0), sweep_quat_identity()), SWEEP_OK);
    sweep_movers *mv;
    assert_int_equal(sweep_level_build_movers(&s.lv, &mv), SWEEP_OK);
    sweep_vec3 beside = sweep_v3(2.0 - 0.5 - 0.2, 0, RADII.z * 1.002); /* 0.2 into the crate's -x side */
    assert_false(sweep_walk_overlaps(s.w, NULL, &s.p, beside));
    assert_true(sweep_walk_overlaps(s.w, mv, &s.p, beside));
    /* The crate blocks +x from the room test's point of view, not -x. */
    sweep_vec3 near = sweep_v3(2.0 - 0.5 - 0.5, 0, RADII.z * 1.002);
    uint32_t room = sweep_walk_room(s.w, mv, &s.cfg, &s.p, near);
    assert_false(room & (1u << DIR_PX));
    assert_true(room & (1u << DIR_MX));
    sweep_movers_destroy(mv);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_walker_in_a_corner_is_free),
        cmocka_unit_test(a_walker_in_a_closet_is_trapped),
        cmocka_unit_test(a_walker_in_a_wall_is_inside),
        cmocka_unit_test(a_walker_that_cannot_walk_into_room_is_stuck),
        cmocka_unit_test(movers_are_geometry_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
