/*
 * test_query.c - lag-compensated queries (core/query.h) against known
 * geometry, and against a brute-force oracle (query_oracle.h) on generated
 * levels with moving entities and movers.
 *
 * The known scene is z up: a floor at z = 0 facing up, and a wall in the
 * plane x = 0 facing -x (towards the shooter at x < 0), 10 wide (y in
 * [-5, 5]) and 3 high, with a doorway y in [-1, 1], z in [0, 2]. A door
 * (mover 0) fills the doorway when closed and is raised by 2.5 when open.
 * Entities have the player ellipsoid (0.5, 0.5, 0.5) unless said.
 *
 * The property test: 64 entities walking (some leaving and coming back,
 * half with hit shapes) and the level's movers running, kept in a history
 * that wraps; random rays, rays for every hit, lines of sight, sweeps and
 * overlaps at random past times and filters, each equal bit for bit to the
 * oracle's answer. SWEEP_QUERY_PROPERTY_N sets the queries of each kind
 * (10,000 by default). A fixed script's answers are hashed and compared
 * with a golden value, so that every compiler and optimisation level
 * (tests/core/cross_build_queries.sh) answers the same bits.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/query.h"
#include "maps/level.h"
#include "maps/levelgen.h"
#include "tests/core/query_cases.h"

/* ---- the known scene ---------------------------------------------------- */

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_movers *mv;
    sweep_history *h;
    uint32_t wall_first; /* the first of the wall's triangles */
} scene;

static const sweep_mover_pose DOOR_CLOSED = {{0, 0, 0}, {0, 0, 0, 1}};
static const sweep_mover_pose DOOR_OPEN = {{0, 0, 2.5}, {0, 0, 0, 1}};

/* A wall quad in x = 0 facing -x over y0..y1, z0..z1. */
static void wall(sweep_level *lv, double y0, double y1, double z0, double z1)
{
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(0, y0, z0), sweep_v3(0, y0, z1), sweep_v3(0, y1, z1),
                                          sweep_v3(0, y1, z0), 1),
                     SWEEP_OK);
}

static int scene_setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    sweep_level_init(&s->lv);
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(-20, -20, 0), sweep_v3(20, -20, 0), sweep_v3(20, 20, 0),
                                          sweep_v3(-20, 20, 0), 2),
                     SWEEP_OK);
    s->wall_first = s->lv.triangle_count;
    wall(&s->lv, -5, -1, 0, 3); /* triangles 2, 3 */
    wall(&s->lv, 1, 5, 0, 3);   /* 4, 5 */
    wall(&s->lv, -1, 1, 2, 3);  /* 6, 7: above the doorway */
    uint32_t m, v[4];
    assert_int_equal(sweep_level_add_mover(&s->lv, 1, "door", &m), SWEEP_OK);
    sweep_level_mover *door = &s->lv.movers[m];
    sweep_vec3 c[4] = {{0, -1, 0}, {0, -1, 2}, {0, 1, 2}, {0, 1, 0}};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sweep_level_mover_add_vertex(door, c[i], &v[i]), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_triangle(door, v[0], v[1], v[2], 3), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_triangle(door, v[0], v[2], v[3], 3), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(door, 0.0, DOOR_CLOSED.position, DOOR_CLOSED.rotation), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(door, 1.0, DOOR_OPEN.position, DOOR_OPEN.rotation), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
    assert_int_equal(sweep_level_build_movers(&s->lv, &s->mv), SWEEP_OK);
    assert_int_equal(sweep_history_create(16, 8, 1, &s->h), SWEEP_OK);
    *state = s;
    return 0;
}

static int scene_teardown(void **state)
{
    scene *s = *state;
    sweep_history_destroy(s->h);
    sweep_movers_destroy(s->mv);
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
    free(s);
    return 0;
}

static sweep_query_space space(scene *s, int with_history, uint64_t tick, double fraction)
{
    sweep_query_space q = {s->w, s->mv, with_history ? s->h : NULL, {tick, fraction}};
    return q;
}

static sweep_query_hit ray(scene *s, sweep_query_space q, sweep_vec3 from, sweep_vec3 to, uint32_t flags)
{
    sweep_query_filter f = {flags, NULL, 0};
    sweep_query_hit hit;
    assert_int_equal(sweep_query_ray(&q, from, to, &f, &hit), SWEEP_OK);
    (void)s;
    return hit;
}

static void assert_unit(sweep_vec3 n)
{
    assert_true(fabs(sweep_v3_len2(n) - 1.0) < 1e-12);
}

static void level_hits_exact(void **state)
{
    scene *s = *state;
    sweep_query_space q = space(s, 0, 0, 0);
    /* Through the doorway, level only (the door is a mover): nothing. */
    sweep_query_hit h = ray(s, q, sweep_v3(-5, 0, 1), sweep_v3(5, 0, 1), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    assert_true(h.fraction == 1.0 && h.distance == 10.0 && h.point.x == 5.0);
    /* Into the wall beside it: half way, facing the shooter. */
    h = ray(s, q, sweep_v3(-5, 3.5, 1), sweep_v3(5, 3.5, 1), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(h.fraction == 0.5 && h.distance == 5.0);
    assert_true(h.point.x == 0.0 && h.point.y == 3.5 && h.point.z == 1.0);
    assert_true(h.normal.x == -1.0 && h.normal.y == 0.0 && h.normal.z == 0.0);
    assert_int_equal(h.material, 1);
    assert_int_equal(h.mover, SWEEP_NO_MOVER);
    assert_true(h.entity == 0 && h.shape == UINT32_MAX);
    /* Down onto the floor. */
    h = ray(s, q, sweep_v3(-3, 2, 4), sweep_v3(-3, 2, -4), SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(h.fraction == 0.5 && h.normal.z == 1.0 && h.material == 2);
    /* Along the wall, in its plane, and beside it: parallel, no hit. */
    h = ray(s, q, sweep_v3(0, -4.5, 1), sweep_v3(0, 4.5, 1), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    h = ray(s, q, sweep_v3(-0.25, -4.5, 1), sweep_v3(-0.25, 4.5, 1), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    /* Grazing the doorway's edge (y = 1) and its corner (1, 2): closed
     * triangles, so both hit the wall. */
    h = ray(s, q, sweep_v3(-5, 1, 1), sweep_v3(5, 1, 1), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(h.fraction == 0.5 && h.point.y == 1.0);
    h = ray(s, q, sweep_v3(-5, 1, 2), sweep_v3(5, 1, 2), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(h.fraction == 0.5 && h.point.y == 1.0 && h.point.z == 2.0);
    /* Just inside the doorway: missed. */
    h = ray(s, q, sweep_v3(-5, 0.999, 1.999), sweep_v3(5, 0.999, 1.999), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    /* On a quad's diagonal both of its triangles are hit at the same
     * distance: the lower triangle number wins. The quad y 1..5 runs
     * (0,1,0) (0,1,3) (0,5,3) (0,5,0), split along (0,1,0)-(0,5,3). */
    h = ray(s, q, sweep_v3(-5, 3, 1.5), sweep_v3(5, 3, 1.5), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_int_equal(h.triangle, s->wall_first + 2);
    sweep_query_hit all[8];
    uint32_t n;
    int more;
    sweep_query_filter f = {SWEEP_QUERY_LEVEL, NULL, 0};
    assert_int_equal(sweep_query_ray_all(&q, sweep_v3(-5, 3, 1.5), sweep_v3(5, 3, 1.5), &f, all, 8, &n, &more),
                     SWEEP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(more, 0);
    assert_true(all[0].triangle == s->wall_first + 2 && all[1].triangle == s->wall_first + 3);
    assert_true(all[0].fraction == all[1].fraction);
    assert_unit(all[1].normal);
}

static void back_faces_only_when_asked(void **state)
{
    scene *s = *state;
    sweep_query_space q = space(s, 0, 0, 0);
    sweep_query_hit h = ray(s, q, sweep_v3(5, 3.5, 1), sweep_v3(-5, 3.5, 1), SWEEP_QUERY_LEVEL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    h = ray(s, q, sweep_v3(5, 3.5, 1), sweep_v3(-5, 3.5, 1), SWEEP_QUERY_LEVEL | SWEEP_QUERY_BACK_FACES);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(h.fraction == 0.5 && h.normal.x == 1.0); /* facing the query */
    /* A sweep from behind: the same. */
    sweep_query_filter f = {SWEEP_QUERY_LEVEL, NULL, 0};
    sweep_vec3 r = {0.5, 0.5, 0.5};
    assert_int_equal(sweep_query_sweep(&q, sweep_v3(5, 3.5, 1), sweep_v3(-5, 3.5, 1), r, &f, &h), SWEEP_OK);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    f.flags |= SWEEP_QUERY_BACK_FACES;
    assert_int_equal(sweep_query_sweep(&q, sweep_v3(5, 3.5, 1), sweep_v3(-5, 3.5, 1), r, &f, &h), SWEEP_OK);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(fabs(h.fraction - 0.45) < 1e-12 && h.normal.x > 0.999);
}

static sweep_history_entity body(uint64_t id, sweep_vec3 p)
{
    sweep_history_entity e = {id, p, {0.5, 0.5, 0.5}, NULL, 0};
    return e;
}

/* Ticks 100 .. 104: entity 7 runs from y = 0 to y = 4 between 100 and
 * 101 at x = 10 and stays; entity 9 stands at (10, -3, 1) at 100 only
 * (then leaves the game); the door is open at 100 and 101, closed after. */
static void fill_history(scene *s, const sweep_hit_shape *shapes7, uint32_t n7)
{
    sweep_history_clear(s->h);
    for (uint64_t t = 100; t <= 104; t++) {
        sweep_history_entity e[2] = {body(7, sweep_v3(10, t == 100 ? 0 : 4, 1)), body(9, sweep_v3(10, -3, 1))};
        e[0].shapes = shapes7, e[0].shape_count = n7;
        const sweep_mover_pose *door = t <= 101 ? &DOOR_OPEN : &DOOR_CLOSED;
        assert_int_equal(sweep_history_push(s->h, t, e, t == 100 ? 2 : 1, door, 1), SWEEP_OK);
    }
    assert_int_equal(sweep_movers_set_pose(s->mv, 0, &DOOR_CLOSED), SWEEP_OK);
}

static void entity_hit_where_it_was(void **state)
{
    scene *s = *state;
    fill_history(s, NULL, 0);
    /* At 100 + 1/4 entity 7 was at y = 1: hit at x = 9.5. */
    sweep_query_hit h = ray(s, space(s, 1, 100, 0.25), sweep_v3(2, 1, 1), sweep_v3(22, 1, 1), SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_ENTITY);
    assert_true(h.entity == 7 && h.shape == UINT32_MAX && h.triangle == SWEEP_NO_TRIANGLE);
    assert_true(fabs(h.fraction - 0.375) < 1e-15 && fabs(h.point.x - 9.5) < 1e-13);
    assert_true(fabs(h.normal.x + 1.0) < 1e-15);
    /* Now (104) it is at y = 4: the same ray misses. */
    h = ray(s, space(s, 1, 104, 0.0), sweep_v3(2, 1, 1), sweep_v3(22, 1, 1), SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    /* Entity 9, gone since 100, is still hit as it was at 100 + f. */
    h = ray(s, space(s, 1, 100, 0.75), sweep_v3(2, -3, 1), sweep_v3(22, -3, 1), SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_ENTITY);
    assert_true(h.entity == 9 && h.fraction == 0.375);
    h = ray(s, space(s, 1, 101, 0.0), sweep_v3(2, -3, 1), sweep_v3(22, -3, 1), SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    /* Ignored, or entities left out: gone too. */
    uint64_t ign = 9;
    sweep_query_filter f = {0, &ign, 1};
    sweep_query_space q = space(s, 1, 100, 0.0);
    assert_int_equal(sweep_query_ray(&q, sweep_v3(2, -3, 1), sweep_v3(22, -3, 1), &f, &h), SWEEP_OK);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    h = ray(s, q, sweep_v3(2, -3, 1), sweep_v3(22, -3, 1), SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
}

static void door_open_then_closed(void **state)
{
    scene *s = *state;
    fill_history(s, NULL, 0);
    sweep_vec3 a = {-5, 0, 1}, b = {5, 0, 1};
    /* Open at 100 and at 101 + 1/2 (half way down: its bottom at 1.25). */
    assert_int_equal(ray(s, space(s, 1, 100, 0.5), a, b, SWEEP_QUERY_ALL).kind, SWEEP_HIT_NONE);
    sweep_query_hit h = ray(s, space(s, 1, 101, 0.5), a, b, SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_NONE);
    h = ray(s, space(s, 1, 101, 0.5), sweep_v3(-5, 0, 1.5), sweep_v3(5, 0, 1.5), SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_MOVER);
    /* Closed at 102, and now (no history). */
    h = ray(s, space(s, 1, 102, 0.0), a, b, SWEEP_QUERY_ALL);
    assert_int_equal(h.kind, SWEEP_HIT_MOVER);
    assert_true(h.mover == 0 && h.fraction == 0.5 && h.material == 3 && h.normal.x == -1.0);
    assert_true(h.triangle >= s->lv.triangle_count); /* movers' numbers follow the level's */
    sweep_query_hit now = ray(s, space(s, 0, 0, 0.0), a, b, SWEEP_QUERY_ALL);
    assert_int_equal(now.kind, SWEEP_HIT_MOVER);
    assert_true(now.triangle == h.triangle && now.fraction == h.fraction);
    /* Movers left out by the filter. */
    assert_int_equal(ray(s, space(s, 1, 102, 0.0), a, b, SWEEP_QUERY_LEVEL).kind, SWEEP_HIT_NONE);
    int clear = -1;
    sweep_query_space q = space(s, 1, 100, 0.0);
    assert_int_equal(sweep_query_line_of_sight(&q, a, b, NULL, &clear), SWEEP_OK);
    assert_int_equal(clear, 1);
    q = space(s, 1, 103, 0.0);
    assert_int_equal(sweep_query_line_of_sight(&q, a, b, NULL, &clear), SWEEP_OK);
    assert_int_equal(clear, 0);
}

static void hit_shapes_return_their_ids(void **state)
{
    scene *s = *state;
    sweep_hit_shape shapes[2] = {{11, SWEEP_SHAPE_SPHERE, {0, 0, 0.7}, {0, 0, 0}, {0.2, 0, 0}},
                                 {22, SWEEP_SHAPE_CAPSULE, {0, 0, -0.6}, {0, 0, 0.3}, {0.3, 0, 0}}};
    fill_history(s, shapes, 2);
    sweep_query_space q = space(s, 1, 102, 0.0); /* entity 7 at (10, 4, 1) */
    sweep_query_hit h = ray(s, q, sweep_v3(2, 4, 1.7), sweep_v3(22, 4, 1.7), SWEEP_QUERY_ENTITIES);
    assert_true(h.kind == SWEEP_HIT_ENTITY && h.entity == 7 && h.shape == 11);
    assert_true(fabs(h.point.x - 9.8) < 1e-13);
    h = ray(s, q, sweep_v3(2, 4, 0.9), sweep_v3(22, 4, 0.9), SWEEP_QUERY_ENTITIES);
    assert_true(h.kind == SWEEP_HIT_ENTITY && h.shape == 22);
    assert_true(fabs(h.point.x - 9.7) < 1e-13 && fabs(h.normal.x + 1.0) < 1e-15);
    /* The capsule's lower end ball, from below. */
    h = ray(s, q, sweep_v3(10, 4, -5), sweep_v3(10, 4, 5), SWEEP_QUERY_ENTITIES);
    assert_true(h.shape == 22 && fabs(h.point.z - 0.1) < 1e-13 && fabs(h.normal.z + 1.0) < 1e-15);
    /* Between head and torso (z 1.5 is above the torso's 1.6? no: the
     * capsule reaches 1.3 + 0.3 = 1.6, the head starts at 1.5): at 1.55
     * both; the torso is nearer along x at its full radius. */
    h = ray(s, q, sweep_v3(2, 4, 1.55), sweep_v3(22, 4, 1.55), SWEEP_QUERY_ENTITIES);
    assert_true(h.shape == 22);
    /* As its ellipsoid when asked. */
    h = ray(s, q, sweep_v3(2, 4, 1.7), sweep_v3(22, 4, 1.7), SWEEP_QUERY_ENTITIES | SWEEP_QUERY_ELLIPSOIDS);
    assert_int_equal(h.kind, SWEEP_HIT_NONE); /* above the ellipsoid's top, 1.5 */
    h = ray(s, q, sweep_v3(2, 4, 1.3), sweep_v3(22, 4, 1.3), SWEEP_QUERY_ENTITIES | SWEEP_QUERY_ELLIPSOIDS);
    assert_true(h.kind == SWEEP_HIT_ENTITY && h.shape == UINT32_MAX);
    /* Every hit along a ray: the entity's two shapes, then the wall? No:
     * the wall is at x = 0, behind the shooter at 2; shoot from -5. */
    sweep_query_hit all[4];
    uint32_t n;
    int more;
    sweep_query_filter f = {SWEEP_QUERY_ALL | SWEEP_QUERY_BACK_FACES, NULL, 0};
    assert_int_equal(sweep_query_ray_all(&q, sweep_v3(-5, 4, 1.55), sweep_v3(22, 4, 1.55), &f, all, 4, &n, &more),
                     SWEEP_OK);
    assert_int_equal(n, 3);
    assert_int_equal(more, 0);
    assert_true(all[0].kind == SWEEP_HIT_LEVEL && all[1].shape == 22 && all[2].shape == 11);
    assert_true(all[0].distance < all[1].distance && all[1].distance < all[2].distance);
    assert_int_equal(sweep_query_ray_all(&q, sweep_v3(-5, 4, 1.55), sweep_v3(22, 4, 1.55), &f, all, 2, &n, &more),
                     SWEEP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(more, 1);
    assert_true(all[0].kind == SWEEP_HIT_LEVEL && all[1].shape == 22);
}

/* Two shapes of one entity met at the same distance: the first listed
 * wins, whatever their ids (the key is the shape's index). */
static void equal_shapes_keep_their_order(void **state)
{
    scene *s = *state;
    sweep_hit_shape twins[2] = {{5, SWEEP_SHAPE_SPHERE, {0, 0, 0.5}, {0, 0, 0}, {0.25, 0, 0}},
                                {3, SWEEP_SHAPE_SPHERE, {0, 0, 0.5}, {0, 0, 0}, {0.25, 0, 0}}};
    fill_history(s, twins, 2);
    sweep_query_space q = space(s, 1, 102, 0.0);
    sweep_query_hit h = ray(s, q, sweep_v3(2, 4, 1.5), sweep_v3(22, 4, 1.5), SWEEP_QUERY_ENTITIES);
    assert_true(h.kind == SWEEP_HIT_ENTITY && h.shape == 5);
    sweep_query_hit all[2];
    uint32_t n;
    int more;
    sweep_query_filter f = {SWEEP_QUERY_ENTITIES, NULL, 0};
    assert_int_equal(sweep_query_ray_all(&q, sweep_v3(2, 4, 1.5), sweep_v3(22, 4, 1.5), &f, all, 2, &n, &more),
                     SWEEP_OK);
    assert_true(n == 2 && all[0].shape == 5 && all[1].shape == 3 && all[0].fraction == all[1].fraction);
}

static void sweeps_and_overlaps(void **state)
{
    scene *s = *state;
    fill_history(s, NULL, 0);
    sweep_query_space q = space(s, 1, 102, 0.0);
    sweep_query_hit h;
    sweep_vec3 r = {0.5, 0.5, 0.5};
    /* A ball of 0.5 against the wall: its centre stops at x = -0.5. */
    assert_int_equal(sweep_query_sweep(&q, sweep_v3(-5, 3.5, 1), sweep_v3(5, 3.5, 1), r, NULL, &h), SWEEP_OK);
    assert_int_equal(h.kind, SWEEP_HIT_LEVEL);
    assert_true(fabs(h.fraction - 0.45) < 1e-12 && fabs(h.point.x) < 1e-12 && h.normal.x < -0.999);
    /* Against entity 7 (a ball of 0.5 at (10, 4, 1)): centres 1 apart. */
    assert_int_equal(sweep_query_sweep(&q, sweep_v3(2, 4, 1), sweep_v3(22, 4, 1), r, NULL, &h), SWEEP_OK);
    assert_true(h.kind == SWEEP_HIT_ENTITY && h.entity == 7);
    assert_true(fabs(h.fraction - 0.35) < 1e-12 && fabs(h.point.x - 9.5) < 1e-12);
    /* Starting inside: at 0. */
    assert_int_equal(sweep_query_sweep(&q, sweep_v3(10.8, 4, 1), sweep_v3(22, 4, 1), r, NULL, &h), SWEEP_OK);
    assert_true(h.kind == SWEEP_HIT_ENTITY && h.fraction == 0.0);
    sweep_vec3 bad = {0.5, 0, 0.5};
    assert_int_equal(sweep_query_sweep(&q, sweep_v3(2, 4, 1), sweep_v3(22, 4, 1), bad, NULL, &h), SWEEP_E_RADII);
    /* The smallest ball the path's scale allows meets the wall where the
     * ray does; a smaller one, or one past the largest, is refused rather
     * than answered by arithmetic that has run out of bits. */
    sweep_vec3 from = sweep_v3(-5, 3.5, 1), to = sweep_v3(5, 3.5, 1);
    double least = 5.0 * SWEEP_QUERY_RADIUS_SCALE;
    sweep_query_hit ray_hit;
    assert_int_equal(sweep_query_ray(&q, from, to, NULL, &ray_hit), SWEEP_OK);
    assert_int_equal(sweep_query_sweep(&q, from, to, sweep_v3(least, least, least), NULL, &h), SWEEP_OK);
    assert_true(h.kind == SWEEP_HIT_LEVEL && h.triangle == ray_hit.triangle);
    assert_true(fabs(h.fraction - ray_hit.fraction) < 1e-9);
    double less = nextafter(least, 0.0), huge = nextafter(SWEEP_QUERY_MAX_RADIUS, INFINITY);
    assert_int_equal(sweep_query_sweep(&q, from, to, sweep_v3(0.5, less, 0.5), NULL, &h), SWEEP_E_RADII);
    assert_int_equal(sweep_query_sweep(&q, from, to, sweep_v3(1e-80, 1e-80, 1e-80), NULL, &h), SWEEP_E_RADII);
    assert_int_equal(sweep_query_sweep(&q, from, to, sweep_v3(0.5, 0.5, huge), NULL, &h), SWEEP_E_RADII);
    assert_int_equal(sweep_query_sweep(&q, from, to, sweep_v3(1e100, 1e100, 1e100), NULL, &h), SWEEP_E_RADII);

    /* Overlaps: at 100 both entities, 7 (at (10, 0, 1)) the nearer to
     * (10, -1, 1), 9 (at (10, -3, 1)) the farther. */
    q = space(s, 1, 100, 0.0);
    sweep_query_found fnd[4];
    uint32_t n;
    int more;
    sweep_query_filter ents = {SWEEP_QUERY_ENTITIES, NULL, 0};
    assert_int_equal(sweep_query_overlap(&q, sweep_v3(10, -1, 1), 3.0, &ents, fnd, 4, &n, &more), SWEEP_OK);
    assert_int_equal(n, 2);
    assert_true(fnd[0].entity == 7 && fabs(fnd[0].distance - 0.5) < 1e-12);
    assert_true(fnd[1].entity == 9 && fabs(fnd[1].distance - 1.5) < 1e-12 && fabs(fnd[1].point.y + 2.5) < 1e-12);
    assert_int_equal(sweep_query_overlap(&q, sweep_v3(10, -1, 1), 3.0, &ents, fnd, 1, &n, &more), SWEEP_OK);
    assert_true(n == 1 && more == 1 && fnd[0].entity == 7);
    assert_int_equal(sweep_query_overlap(&q, sweep_v3(10, -1, 1), 1.0, &ents, fnd, 4, &n, &more), SWEEP_OK);
    assert_true(n == 1 && more == 0 && fnd[0].entity == 7);
    /* Behind the wall: found without the level's view, not with it. */
    sweep_vec3 behind = {-2, -3, 1};
    q = space(s, 1, 100, 0.0);
    sweep_history_clear(s->h);
    sweep_history_entity e = body(5, sweep_v3(1, -3, 1));
    assert_int_equal(sweep_history_push(s->h, 100, &e, 1, &DOOR_CLOSED, 1), SWEEP_OK);
    assert_int_equal(sweep_query_overlap(&q, behind, 4.0, &ents, fnd, 4, &n, &more), SWEEP_OK);
    assert_int_equal(n, 1);
    assert_true(fabs(fnd[0].distance - 2.5) < 1e-12);
    sweep_query_filter view = {SWEEP_QUERY_LEVEL, NULL, 0};
    assert_int_equal(sweep_query_overlap(&q, behind, 4.0, &view, fnd, 4, &n, &more), SWEEP_OK);
    assert_int_equal(n, 0);
    /* Inside it: distance 0 at the centre. */
    assert_int_equal(sweep_query_overlap(&q, sweep_v3(1.2, -3, 1), 0.0, &view, fnd, 4, &n, &more), SWEEP_OK);
    assert_true(n == 1 && fnd[0].distance == 0.0 && fnd[0].point.x == 1.2);
    /* An ellipsoid's nearest point, off its axes: on its surface, and no
     * point of the surface is nearer (sampled). */
    sweep_history_clear(s->h);
    e.radii = sweep_v3(0.4, 0.7, 1.1);
    assert_int_equal(sweep_history_push(s->h, 100, &e, 1, &DOOR_CLOSED, 1), SWEEP_OK);
    sweep_vec3 c = {2.3, -1.9, 2.2};
    assert_int_equal(sweep_query_overlap(&q, c, 5.0, &ents, fnd, 4, &n, &more), SWEEP_OK);
    assert_int_equal(n, 1);
    sweep_vec3 u = sweep_v3_div(sweep_v3_sub(fnd[0].point, e.position), e.radii);
    assert_true(fabs(sweep_v3_len2(u) - 1.0) < 1e-12);
    for (int i = 0; i < 2000; i++) {
        double th = i * 0.0031, ph = i * 0.7;
        sweep_vec3 sp = {sin(th * 1000) * cos(ph), sin(th * 1000) * sin(ph), cos(th * 1000)};
        sweep_vec3 pt = sweep_v3_add(e.position, sweep_v3_mul(sp, e.radii));
        assert_true(sweep_v3_len(sweep_v3_sub(pt, c)) >= fnd[0].distance - 1e-12);
    }
}

static void refusals(void **state)
{
    scene *s = *state;
    fill_history(s, NULL, 0);
    sweep_query_hit h;
    sweep_query_space q = space(s, 1, 99, 0.0);
    sweep_vec3 a = {-5, 0, 1}, b = {5, 0, 1};
    assert_int_equal(sweep_query_ray(&q, a, b, NULL, &h), SWEEP_E_TIME); /* before the history */
    q = space(s, 1, 105, 0.0);
    assert_int_equal(sweep_query_ray(&q, a, b, NULL, &h), SWEEP_E_TIME); /* after it */
    q = space(s, 1, 104, 0.5);
    assert_int_equal(sweep_query_ray(&q, a, b, NULL, &h), SWEEP_E_TIME); /* past the newest */
    q = space(s, 1, 103, 1.0);
    assert_int_equal(sweep_query_ray(&q, a, b, NULL, &h), SWEEP_E_TIME);
    q = space(s, 1, 103, NAN);
    assert_int_equal(sweep_query_ray(&q, a, b, NULL, &h), SWEEP_E_NONFINITE);
    q = space(s, 1, 103, 0.0);
    assert_int_equal(sweep_query_ray(&q, sweep_v3(NAN, 0, 0), b, NULL, &h), SWEEP_E_NONFINITE);
    assert_int_equal(sweep_query_ray(&q, a, sweep_v3(0, INFINITY, 0), NULL, &h), SWEEP_E_NONFINITE);
    assert_int_equal(sweep_query_ray(&q, a, b, NULL, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray(NULL, a, b, NULL, &h), SWEEP_E_ARG);
    uint64_t ids[SWEEP_QUERY_IGNORE_MAX + 1] = {0};
    sweep_query_filter f = {0, ids, SWEEP_QUERY_IGNORE_MAX + 1};
    assert_int_equal(sweep_query_ray(&q, a, b, &f, &h), SWEEP_E_ARG);
    f.ignore_count = 1, f.ignore = NULL;
    assert_int_equal(sweep_query_ray(&q, a, b, &f, &h), SWEEP_E_ARG);
    f.ignore_count = 0, f.flags = 1u << 9;
    assert_int_equal(sweep_query_ray(&q, a, b, &f, &h), SWEEP_E_ARG);
    uint32_t n;
    int more, clear;
    sweep_query_found fnd[1];
    assert_int_equal(sweep_query_overlap(&q, a, -1.0, NULL, fnd, 1, &n, &more), SWEEP_E_RADII);
    /* Beyond the largest world, every query: a path that long would have
     * no finite length (nor its products with the normals a finite sign). */
    sweep_vec3 far = sweep_v3(1e308, 0, -1e308), edge = sweep_v3(SWEEP_QUERY_MAX_COORDINATE, 0, 0);
    sweep_vec3 past = sweep_v3(0, 0, -nextafter(SWEEP_QUERY_MAX_COORDINATE, INFINITY));
    sweep_vec3 ball = {0.5, 0.5, 0.5};
    assert_int_equal(sweep_query_ray(&q, a, far, NULL, &h), SWEEP_E_POSITION);
    assert_int_equal(sweep_query_ray(&q, past, b, NULL, &h), SWEEP_E_POSITION);
    assert_int_equal(sweep_query_ray(&q, a, edge, NULL, &h), SWEEP_OK);
    assert_true(isfinite(h.distance));
    assert_int_equal(sweep_query_ray_all(&q, a, far, NULL, &h, 1, &n, &more), SWEEP_E_POSITION);
    assert_int_equal(sweep_query_line_of_sight(&q, far, b, NULL, &clear), SWEEP_E_POSITION);
    assert_int_equal(sweep_query_sweep(&q, a, past, ball, NULL, &h), SWEEP_E_POSITION);
    assert_int_equal(sweep_query_overlap(&q, past, 1.0, NULL, fnd, 1, &n, &more), SWEEP_E_POSITION);
    assert_int_equal(sweep_query_overlap(&q, a, NAN, NULL, fnd, 1, &n, &more), SWEEP_E_NONFINITE);
    assert_int_equal(sweep_query_overlap(&q, a, 1.0, NULL, NULL, 1, &n, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_line_of_sight(&q, a, b, NULL, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray_all(&q, a, b, NULL, NULL, 2, &n, &more), SWEEP_E_ARG);
    /* A history of another mover count than the movers given. */
    sweep_history *other;
    assert_int_equal(sweep_history_create(4, 1, 2, &other), SWEEP_OK);
    sweep_mover_pose two[2] = {DOOR_OPEN, DOOR_OPEN};
    assert_int_equal(sweep_history_push(other, 1, NULL, 0, two, 2), SWEEP_OK);
    sweep_query_space qo = {s->w, s->mv, other, {1, 0.0}};
    assert_int_equal(sweep_query_line_of_sight(&qo, a, b, NULL, &clear), SWEEP_E_ARG);
    sweep_history_destroy(other);
    /* With an empty history every time is outside it. */
    sweep_history_clear(s->h);
    q = space(s, 1, 0, 0.0);
    assert_int_equal(sweep_query_line_of_sight(&q, a, b, NULL, &clear), SWEEP_E_TIME);
}

/* ---- the oracle on generated levels ------------------------------------- */

/* A generated level with movers, walked as query_cases.h says. */
static void world_make(world *W, uint64_t seed, uint32_t tris)
{
    sweep_level_init(&W->lv);
    sweep_levelgen_params p = {seed, tris, 8, 8};
    assert_int_equal(sweep_levelgen(&p, &W->lv), SWEEP_OK);
    world_walk(W, seed, 1.0);
    assert_true(sweep_movers_count(W->mv) > 0);
}

static void queries_equal_the_oracle(void **state)
{
    (void)state;
    uint32_t n = property_n(10000);
    static const uint64_t seeds[] = {3, 11};
    for (size_t l = 0; l < sizeof seeds / sizeof seeds[0]; l++) {
        world W;
        world_make(&W, seeds[l], 2000);
        tally t = {{0}, 0, 0, 0, 0, 0};
        check_world(&W, seeds[l] * 1000 + 1, n / 2, &t);
        print_message("level seed %llu: %u queries of each kind; rays hit level %u, movers %u, entities %u, "
                      "nothing %u; %u entities found by overlaps\n",
                      (unsigned long long)seeds[l], t.ray, t.hits[1], t.hits[2], t.hits[3], t.hits[0], t.overlap);
        /* The cases must reach every kind of hit, or the test proves little. */
        assert_true(t.hits[1] > 0 && t.hits[2] > 0 && t.hits[3] > 0 && t.hits[0] > 0 && t.overlap > 0);
        world_free(&W);
    }
}

/* Paths along an axis or a plane of axes (a shot straight down, a sweep
 * along a corridor): the walks meet such an axis as the path's extent,
 * not by times, below 1e-30 of movement, and the entities' slab tests
 * below 1e-200. Each such path equals the oracle's, its other axes as
 * the random case drew them; the level's walls lie along the axes, so
 * paths run inside their planes too. */
static void axis_paths_equal_the_oracle(void **state)
{
    (void)state;
    uint32_t n = property_n(10000) / 4;
    static const double small[] = {0.0, -0.0, 1e-35, -1e-250};
    world W;
    world_make(&W, 3, 2000);
    uint64_t rs = 4001;
    tally t = {{0}, 0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        qcase c;
        qcase_make(&W, &rs, &c);
        double d[3] = {c.to.x - c.from.x, c.to.y - c.from.y, c.to.z - c.from.z};
        /* One axis flat, or all but one; which, and how small, drawn. */
        uint64_t pick = rng_next(&rs);
        int axis = (int)(pick % 3), one = (int)(pick / 3 % 2);
        for (int a = 0; a < 3; a++)
            if ((a == axis) == one)
                d[a] = small[(pick >> (8 + 2 * a)) & 3u];
        /* Some from a point on a wall's plane: the level's coordinates. */
        if ((pick >> 16) % 4 == 0)
            c.from.x = floor(c.from.x), c.from.y = floor(c.from.y);
        c.to = sweep_v3(c.from.x + d[0], c.from.y + d[1], c.from.z + d[2]);
        check_case(&c, i, &t);
    }
    print_message("%u paths along axes; rays hit level %u, movers %u, entities %u, nothing %u\n", t.ray, t.hits[1],
                  t.hits[2], t.hits[3], t.hits[0]);
    assert_true(t.hits[1] > 0 && t.hits[3] > 0 && t.hits[0] > 0);
    world_free(&W);
}

/* Every mover's ball holds its triangles at any pose (the queries test
 * the ball before a triangle): placed at random rotations and positions,
 * no corner lies outside it, and the ball is not much larger than the
 * farthest corner (so the test would see one too small). */
static void mover_balls_hold_their_triangles(void **state)
{
    (void)state;
    world W;
    world_make(&W, 3, 2000);
    uint64_t rs = 5;
    for (uint32_t m = 0; m < W.mv->count; m++) {
        const sweep__mover *mo = &W.mv->m[m];
        double far = 0.0;
        for (int k = 0; k < 50; k++) {
            sweep_vec3 axis = rng_point(&rs, sweep_v3(-1, -1, -1), sweep_v3(1, 1, 1));
            sweep_quat qr = {axis.x, axis.y, axis.z, rng_range(&rs, -1, 1)};
            sweep_mover_pose pose = {rng_point(&rs, sweep_v3(-1e3, -1e3, -1e3), sweep_v3(1e3, 1e3, 1e3)),
                                     sweep_quat_normalize(qr)};
            sweep_vec3 c = sweep__pose_apply(&pose, mo->local_center);
            for (uint32_t i = 0; i < mo->tri_count; i++) {
                sweep__tri t;
                sweep__place_tri(&pose, &mo->local[i], &t);
                sweep_vec3 v[3] = {t.a, t.b, t.c};
                for (int j = 0; j < 3; j++) {
                    double d = sweep_v3_len(sweep_v3_sub(v[j], c));
                    assert_true(d <= mo->local_radius);
                    far = d > far ? d : far;
                }
            }
        }
        assert_true(mo->local_radius <= far * (1.0 + 1e-6) + 1e-6);
    }
    world_free(&W);
}

/* ---- the answers of a fixed script, hashed ------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_hit(uint64_t h, const sweep_query_hit *x)
{
    h = fnv(h, &x->kind, sizeof x->kind), h = fnv(h, &x->triangle, sizeof x->triangle);
    h = fnv(h, &x->material, sizeof x->material), h = fnv(h, &x->mover, sizeof x->mover);
    h = fnv(h, &x->entity, sizeof x->entity), h = fnv(h, &x->shape, sizeof x->shape);
    h = fnv(h, &x->fraction, sizeof x->fraction), h = fnv(h, &x->distance, sizeof x->distance);
    h = fnv(h, &x->point, sizeof x->point);
    return fnv(h, &x->normal, sizeof x->normal);
}

/* Recorded by this test with gcc -O2 when the queries were written;
 * changed only by a change that means to change answers, saying why. */
#define GOLDEN_ANSWERS 0x7f2d850e6ebb0e95ull

static void answers_match_the_golden_hash(void **state)
{
    (void)state;
    world W;
    world_make(&W, 5, 3000);
    uint64_t rs = 77, h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 2000; i++) {
        qcase c;
        qcase_make(&W, &rs, &c);
        sweep_query_hit x, all[4];
        uint32_t n;
        int more, clear;
        sweep_query_found fnd[4];
        assert_int_equal(sweep_query_ray(&c.s, c.from, c.to, &c.f, &x), SWEEP_OK);
        h = hash_hit(h, &x);
        assert_int_equal(sweep_query_ray_all(&c.s, c.from, c.to, &c.f, all, 4, &n, &more), SWEEP_OK);
        for (uint32_t j = 0; j < n; j++)
            h = hash_hit(h, &all[j]);
        h = fnv(h, &more, sizeof more);
        assert_int_equal(sweep_query_line_of_sight(&c.s, c.from, c.to, &c.f, &clear), SWEEP_OK);
        h = fnv(h, &clear, sizeof clear);
        assert_int_equal(sweep_query_sweep(&c.s, c.from, c.to, c.radii, &c.f, &x), SWEEP_OK);
        h = hash_hit(h, &x);
        assert_int_equal(sweep_query_overlap(&c.s, c.from, c.radius, &c.f, fnd, 4, &n, &more), SWEEP_OK);
        for (uint32_t j = 0; j < n; j++) {
            h = fnv(h, &fnd[j].entity, sizeof fnd[j].entity), h = fnv(h, &fnd[j].distance, sizeof fnd[j].distance);
            h = fnv(h, &fnd[j].point, sizeof fnd[j].point);
        }
    }
    world_free(&W);
    printf("query_answers_hash=%016llx\n", (unsigned long long)h);
    assert_true(h == GOLDEN_ANSWERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(level_hits_exact, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(back_faces_only_when_asked, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(entity_hit_where_it_was, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(door_open_then_closed, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(hit_shapes_return_their_ids, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(equal_shapes_keep_their_order, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(sweeps_and_overlaps, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(refusals, scene_setup, scene_teardown),
        cmocka_unit_test(queries_equal_the_oracle),
        cmocka_unit_test(axis_paths_equal_the_oracle),
        cmocka_unit_test(mover_balls_hold_their_triangles),
        cmocka_unit_test(answers_match_the_golden_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
