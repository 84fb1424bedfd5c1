/*
 * test_history.c - the ring of past poses: sizes and refusals, ticks in
 * order, the oldest forgotten when full, entities sorted by id whatever
 * order they come in, poses and mover rotations interpolated between
 * ticks, despawned and spawned entities, and boxes that hold every pose
 * interpolated between two ticks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/history.h"
#include "core/history_impl.h"
#include "core/quat.h"

static sweep_history_entity ent(uint64_t id, double x, double y, double z)
{
    sweep_history_entity e = {id, {x, y, z}, {0.4, 0.4, 0.9}, NULL, 0};
    return e;
}

static sweep_history *make(uint32_t cap, uint32_t max_entities, uint32_t movers)
{
    sweep_history *h = NULL;
    assert_int_equal(sweep_history_create(cap, max_entities, movers, &h), SWEEP_OK);
    assert_non_null(h);
    return h;
}

static void sizes_and_refusals(void **state)
{
    (void)state;
    sweep_history *h = (sweep_history *)1;
    assert_int_equal(sweep_history_create(0, 4, 0, &h), SWEEP_E_ARG);
    assert_int_equal(sweep_history_create(SWEEP_HISTORY_MAX_TICKS + 1, 4, 0, &h), SWEEP_E_ARG);
    assert_ptr_equal(h, (sweep_history *)1); /* untouched on failure */
    assert_int_equal(sweep_history_bytes(0, 4, 0), 0);
    size_t one = sweep_history_bytes(64, 1, 0), two = sweep_history_bytes(64, 2, 0);
    assert_true(one > 0 && two > one);
    /* An entity costs its record and room for every hit shape, each tick. */
    assert_true(two - one >= 64 * SWEEP_HIT_SHAPES_MAX * sizeof(sweep_hit_shape));
    assert_true(sweep_history_bytes(64, 2, 3) - two == 64 * 3 * sizeof(sweep_mover_pose));
    /* A pool of fewer shapes costs exactly the room it does not keep, in
     * each of the ring's pools: one a frame and set_ticks - 1 more. */
    assert_true(two - sweep_history_bytes_shapes(64, 2, 3, 0) ==
                (64 + SWEEP__HISTORY_SET_TICKS - 1) * (2 * SWEEP_HIT_SHAPES_MAX - 3) * sizeof(sweep_hit_shape));
    assert_int_equal(sweep_history_bytes_shapes(64, 0x80000000u, 0, 0), 0);
    /* The shapes of all the ring's pools are counted by uint32_t. */
    assert_int_equal(sweep_history_bytes_shapes(64, 1, UINT32_MAX / 64, 0), 0);
    assert_int_equal(sweep_history_create_shapes(64, 1, UINT32_MAX / 64, 0, &h), SWEEP_E_ARG);
    assert_true(sweep_history_bytes_shapes(64, 1, UINT32_MAX / (64 + SWEEP__HISTORY_SET_TICKS - 1), 0) > 0);
    uint64_t a = 5, b = 6;
    h = make(4, 2, 0);
    assert_int_equal(sweep_history_span(h, &a, &b), 0);
    assert_true(a == 5 && b == 6);
    sweep_history_destroy(h);
    sweep_history_destroy(NULL);
}

static void bad_pushes_keep_nothing(void **state)
{
    (void)state;
    sweep_history *h = make(4, 2, 1);
    sweep_mover_pose mp = {{0, 0, 0}, {0, 0, 0, 1}};
    sweep_history_entity e[3] = {ent(1, 0, 0, 0), ent(2, 1, 0, 0), ent(3, 2, 0, 0)};
    assert_int_equal(sweep_history_push(h, 10, e, 3, &mp, 1), SWEEP_E_ARG); /* too many */
    assert_int_equal(sweep_history_push(h, 10, e, 2, NULL, 1), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(h, 10, e, 2, &mp, 0), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(h, 10, NULL, 2, &mp, 1), SWEEP_E_ARG);
    sweep_history_entity same[2] = {ent(4, 0, 0, 0), ent(4, 1, 0, 0)};
    assert_int_equal(sweep_history_push(h, 10, same, 2, &mp, 1), SWEEP_E_ARG);
    sweep_history_entity nan[1] = {ent(1, NAN, 0, 0)};
    assert_int_equal(sweep_history_push(h, 10, nan, 1, &mp, 1), SWEEP_E_NONFINITE);
    sweep_history_entity flat[1] = {ent(1, 0, 0, 0)};
    flat[0].radii.z = 0.0;
    assert_int_equal(sweep_history_push(h, 10, flat, 1, &mp, 1), SWEEP_E_RADII);
    sweep_mover_pose bad = {{0, 0, INFINITY}, {0, 0, 0, 1}};
    assert_int_equal(sweep_history_push(h, 10, e, 2, &bad, 1), SWEEP_E_NONFINITE);
    /* Shapes: too far from the body, a bad kind, a zero radius. */
    sweep_hit_shape s = {1, SWEEP_SHAPE_SPHERE, {0, 0, 3.5}, {0, 0, 0}, {0.2, 0, 0}};
    sweep_history_entity withs[1] = {ent(1, 0, 0, 0)};
    withs[0].shapes = &s, withs[0].shape_count = 1;
    assert_int_equal(sweep_history_push(h, 10, withs, 1, &mp, 1), SWEEP_E_ARG); /* 3.7 > 4 * 0.9 */
    s.a.z = 3.3;
    s.kind = 7;
    assert_int_equal(sweep_history_push(h, 10, withs, 1, &mp, 1), SWEEP_E_ARG);
    s.kind = SWEEP_SHAPE_SPHERE, s.radii.x = 0.0;
    assert_int_equal(sweep_history_push(h, 10, withs, 1, &mp, 1), SWEEP_E_RADII);
    assert_int_equal(sweep_history_span(h, NULL, NULL), 0);
    s.radii.x = 0.2;
    assert_int_equal(sweep_history_push(h, 10, withs, 1, &mp, 1), SWEEP_OK);
    /* Ticks follow one another. */
    assert_int_equal(sweep_history_push(h, 10, e, 2, &mp, 1), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(h, 12, e, 2, &mp, 1), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(h, 11, e, 2, &mp, 1), SWEEP_OK);
    uint64_t a, b;
    assert_int_equal(sweep_history_span(h, &a, &b), 1);
    assert_true(a == 10 && b == 11);
    sweep_history_destroy(h);
}

static void shapes_check_names_the_bad_one(void **state)
{
    (void)state;
    sweep_hit_shape s[3] = {{1, SWEEP_SHAPE_SPHERE, {0, 0, 0.5}, {0, 0, 0}, {0.2, 0, 0}},
                            {2, SWEEP_SHAPE_CAPSULE, {0, 0, 0}, {0, 0, 1.0}, {0.2, 0, 0}},
                            {3, SWEEP_SHAPE_ELLIPSOID, {0, 0, 0}, {0, 0, 0}, {0.2, 0.3, -1}}};
    uint32_t bad = 99;
    assert_int_equal(sweep_hit_shapes_check(s, 2, 1.2, &bad), SWEEP_OK);
    assert_int_equal(sweep_hit_shapes_check(s, 2, 1.1, &bad), SWEEP_E_ARG); /* capsule end 1.0 + 0.2 */
    assert_int_equal(bad, 1);
    assert_int_equal(sweep_hit_shapes_check(s, 3, 2.0, &bad), SWEEP_E_RADII);
    assert_int_equal(bad, 2);
    s[0].b.x = NAN;
    assert_int_equal(sweep_hit_shapes_check(s, 1, 2.0, &bad), SWEEP_E_NONFINITE);
    assert_int_equal(bad, 0);
    assert_int_equal(sweep_hit_shapes_check(s, SWEEP_HIT_SHAPES_MAX + 1, 2.0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_hit_shapes_check(NULL, 1, 2.0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_hit_shapes_check(NULL, 0, 2.0, NULL), SWEEP_OK);
}

/* Iterates the entities present at (tick, f). */
static void begin_at(const sweep_history *h, uint64_t tick, double f, sweep__hist_at *at, sweep__hist_iter *it)
{
    assert_int_equal(sweep__history_at(h, tick, f, at), SWEEP_OK);
    sweep__history_iter_begin(it, at);
}

/* The next entity the iterator gives (there must be one), and its pose. */
static void next_pose(const sweep__hist_at *at, sweep__hist_iter *it, sweep__hist_ref *r, sweep__hist_pose *p)
{
    assert_int_equal(sweep__history_iter_next(it, r), 1);
    sweep__history_pose(at, r, p);
}

/* Shapes and radii the same bits as the tick before are not checked again;
 * any change to either is, in place in the owner's array or not. */
static void kept_shapes_are_checked_again_when_changed(void **state)
{
    (void)state;
    sweep_history *h = make(4, 2, 0);
    sweep_hit_shape s[2] = {{1, SWEEP_SHAPE_SPHERE, {0, 0, 3.2}, {0, 0, 0}, {0.3, 0, 0}},
                            {2, SWEEP_SHAPE_CAPSULE, {0, 0, -0.5}, {0, 0, 0.5}, {0.3, 0, 0}}};
    sweep_history_entity e[2] = {ent(1, 0, 0, 0), ent(2, 5, 0, 0)};
    e[0].shapes = s, e[0].shape_count = 2;
    assert_int_equal(sweep_history_push(h, 1, e, 2, NULL, 0), SWEEP_OK); /* 3.5 <= 4 * 0.9 */
    e[0].position.x = 1.0;
    assert_int_equal(sweep_history_push(h, 2, e, 2, NULL, 0), SWEEP_OK);
    /* Shrunk: the same shapes no longer within reach (3.5 > 4 * 0.85). */
    e[0].radii.z = 0.85;
    assert_int_equal(sweep_history_push(h, 3, e, 2, NULL, 0), SWEEP_E_ARG);
    e[0].radii.z = 0.9;
    /* Changed where the owner keeps them. */
    s[1].radii.x = -0.3;
    assert_int_equal(sweep_history_push(h, 3, e, 2, NULL, 0), SWEEP_E_RADII);
    s[1].radii.x = 0.3;
    s[0].kind = 9;
    assert_int_equal(sweep_history_push(h, 3, e, 2, NULL, 0), SWEEP_E_ARG);
    s[0].kind = SWEEP_SHAPE_SPHERE;
    uint64_t a, b;
    assert_int_equal(sweep_history_span(h, &a, &b), 1);
    assert_true(a == 1 && b == 2); /* the refused pushes kept nothing */
    e[0].position.x = 2.0;
    assert_int_equal(sweep_history_push(h, 3, e, 2, NULL, 0), SWEEP_OK);
    /* Halfway between ticks 2 and 3: the shapes kept, carried along. */
    sweep__hist_at at;
    sweep__hist_iter it;
    sweep__hist_ref r;
    sweep__hist_pose p;
    begin_at(h, 2, 0.5, &at, &it);
    next_pose(&at, &it, &r, &p);
    assert_true(p.id == 1 && p.shape_count == 2 && p.position.x == 1.5);
    assert_true(p.shapes[0].id == 1 && p.shapes[0].a.x == 1.5 && p.shapes[0].a.z == 3.2);
    assert_true(p.shapes[1].id == 2 && p.shapes[1].b.z == 0.5 && p.shapes[1].radii.x == 0.3);
    assert_true(r.lo.x <= 1.0 - 0.4 && r.hi.x >= 2.0 + 0.4 && r.hi.z >= 3.5);
    next_pose(&at, &it, &r, &p);
    assert_true(p.id == 2 && p.shape_count == 0);
    sweep_history_destroy(h);
}

/* A frame's shapes share one pool: a history made for fewer shapes than
 * SWEEP_HIT_SHAPES_MAX an entity refuses a frame of more, and entities'
 * shapes packed side by side come back each to its own. */
static void shape_pool_holds_what_it_was_made_for(void **state)
{
    (void)state;
    sweep_history *h = NULL;
    assert_int_equal(sweep_history_create_shapes(4, 3, 4, 0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_history_create_shapes(4, 3, 4, 0, &h), SWEEP_OK);
    sweep_hit_shape s[3] = {{7, SWEEP_SHAPE_SPHERE, {0, 0, 0.5}, {0, 0, 0}, {0.2, 0, 0}},
                            {8, SWEEP_SHAPE_SPHERE, {0, 0, 0.0}, {0, 0, 0}, {0.3, 0, 0}},
                            {9, SWEEP_SHAPE_ELLIPSOID, {0, 0, -0.5}, {0, 0, 0}, {0.2, 0.2, 0.3}}};
    sweep_history_entity e[3] = {ent(30, 3, 0, 0), ent(10, 1, 0, 0), ent(20, 2, 0, 0)};
    e[0].shapes = s, e[0].shape_count = 3;
    e[1].shapes = &s[1], e[1].shape_count = 2;
    assert_int_equal(sweep_history_push(h, 1, e, 3, NULL, 0), SWEEP_E_ARG); /* 5 > 4 */
    assert_int_equal(sweep_history_span(h, NULL, NULL), 0);
    e[1].shape_count = 1;
    assert_int_equal(sweep_history_push(h, 1, e, 3, NULL, 0), SWEEP_OK);
    sweep__hist_at at;
    sweep__hist_iter it;
    sweep__hist_ref r;
    sweep__hist_pose p;
    uint32_t want_count[3] = {1, 0, 3}, want_first_id[3] = {8, 0, 7};
    double want_x[3] = {1, 2, 3};
    begin_at(h, 1, 0.0, &at, &it);
    for (int i = 0; i < 3; i++) {
        next_pose(&at, &it, &r, &p);
        assert_int_equal(p.shape_count, want_count[i]);
        if (p.shape_count > 0) {
            assert_int_equal(p.shapes[0].id, want_first_id[i]);
            assert_true(p.shapes[0].a.x == want_x[i]);
            assert_true(p.shapes[p.shape_count - 1].id == (i == 2 ? 9u : 8u));
        }
    }
    sweep_history_destroy(h);
}

/* Entity id's shapes at tick t: id 1 keeps one set throughout, id 2 gets
 * new ones every tick (another count every other tick), id 3 every fifth
 * tick and is gone every seventh. */
static uint32_t shapes_at(uint64_t id, uint64_t t, sweep_hit_shape *s)
{
    uint64_t era = id == 1 ? 0 : id == 2 ? t : t / 5;
    uint32_t n = id == 2 ? 1 + (uint32_t)(t % 2) : 2;
    for (uint32_t k = 0; k < n; k++) {
        sweep_hit_shape x = {(uint32_t)(10 * id + k), SWEEP_SHAPE_SPHERE, {0, 0, 0.25 * k + (double)(era % 8) / 16}, {0, 0, 0},
                             {0.125, 0, 0}};
        s[k] = x;
    }
    return n;
}

/* A set lasts across frames and is written again before its pool is; an
 * entity that changes its shapes every tick needs no more than the
 * frame's pool. Every kept frame, read back at each push, holds exactly
 * what it was given. */
static void sets_outlive_their_tick_and_come_back_whole(void **state)
{
    (void)state;
    sweep_history *h = NULL;
    /* Ids 1 and 3 have 2 shapes, id 2 at most 2: 6 a frame, no more. */
    assert_int_equal(sweep_history_create_shapes(5, 3, 6, 0, &h), SWEEP_OK);
    sweep_hit_shape s[3][SWEEP_HIT_SHAPES_MAX];
    for (uint64_t t = 1; t <= 60; t++) {
        sweep_history_entity e[3];
        uint32_t n = 0;
        for (uint64_t id = 1; id <= 3; id++) {
            if (id == 3 && t % 7 == 0)
                continue;
            e[n] = ent(id, (double)t, (double)id, 0);
            e[n].shapes = s[n], e[n].shape_count = shapes_at(id, t, s[n]);
            n++;
        }
        assert_int_equal(sweep_history_push(h, t, e, n, NULL, 0), SWEEP_OK);
        uint64_t oldest, newest;
        assert_int_equal(sweep_history_span(h, &oldest, &newest), 1);
        assert_true(newest == t && newest - oldest == (t < 5 ? t - 1 : 4));
        for (uint64_t k = oldest; k <= newest; k++) {
            sweep__hist_at at;
            sweep__hist_iter it;
            sweep__hist_ref r;
            sweep__hist_pose p;
            begin_at(h, k, 0.0, &at, &it);
            while (sweep__history_iter_next(&it, &r)) {
                sweep__history_pose(&at, &r, &p);
                sweep_hit_shape want[SWEEP_HIT_SHAPES_MAX];
                uint32_t wn = shapes_at(p.id, k, want);
                assert_true(p.position.x == (double)k && p.position.y == (double)p.id && p.radii.z == 0.9);
                assert_int_equal(p.shape_count, wn);
                for (uint32_t q = 0; q < wn; q++) {
                    assert_int_equal(p.shapes[q].id, want[q].id);
                    assert_true(p.shapes[q].a.z == want[q].a.z && p.shapes[q].a.x == (double)k &&
                                p.shapes[q].radii.x == want[q].radii.x);
                }
            }
        }
    }
    sweep_history_destroy(h);
}

/* A history from tick 0: the last tick a uint64_t holds, with a fraction,
 * is after the newest frame, not (its distance from the oldest wrapping
 * round) between the newest and the oldest. */
static void the_last_tick_is_never_inside(void **state)
{
    (void)state;
    sweep_history *h = make(4, 1, 0);
    for (uint64_t t = 0; t <= 3; t++) {
        sweep_history_entity e = ent(7, 0, (double)t, 1);
        assert_int_equal(sweep_history_push(h, t, &e, 1, NULL, 0), SWEEP_OK);
    }
    sweep__hist_at at;
    assert_int_equal(sweep__history_at(h, UINT64_MAX, 0.5, &at), SWEEP_E_TIME);
    assert_int_equal(sweep__history_at(h, UINT64_MAX, 0.0, &at), SWEEP_E_TIME);
    sweep_vec3 p;
    assert_int_equal(sweep_history_entity_at(h, 7, UINT64_MAX, 0.5, &p, NULL), SWEEP_E_TIME);
    assert_int_equal(sweep__history_at(h, 2, 0.5, &at), SWEEP_OK);
    sweep_history_destroy(h);
}

static void full_ring_forgets_the_oldest(void **state)
{
    (void)state;
    sweep_history *h = make(3, 1, 0);
    for (uint64_t t = 1; t <= 5; t++) {
        sweep_history_entity e = ent(9, (double)t, 0, 0);
        assert_int_equal(sweep_history_push(h, t, &e, 1, NULL, 0), SWEEP_OK);
    }
    uint64_t a, b;
    assert_int_equal(sweep_history_span(h, &a, &b), 1);
    assert_true(a == 3 && b == 5);
    sweep__hist_at at;
    assert_int_equal(sweep__history_at(h, 2, 0.0, &at), SWEEP_E_TIME);
    assert_int_equal(sweep__history_at(h, 6, 0.0, &at), SWEEP_E_TIME);
    assert_int_equal(sweep__history_at(h, 5, 0.5, &at), SWEEP_E_TIME); /* past the newest */
    assert_int_equal(sweep__history_at(h, 4, 1.0, &at), SWEEP_E_TIME);
    assert_int_equal(sweep__history_at(h, 4, -0.1, &at), SWEEP_E_TIME);
    assert_int_equal(sweep__history_at(h, 4, NAN, &at), SWEEP_E_NONFINITE);
    for (uint64_t t = 3; t <= 5; t++) {
        assert_int_equal(sweep__history_at(h, t, 0.0, &at), SWEEP_OK);
        sweep__hist_iter it;
        sweep__hist_ref r;
        sweep__hist_pose p;
        sweep__history_iter_begin(&it, &at);
        assert_int_equal(sweep__history_iter_next(&it, &r), 1);
        sweep__history_pose(&at, &r, &p);
        assert_true(p.id == 9 && p.position.x == (double)t);
        assert_int_equal(sweep__history_iter_next(&it, &r), 0);
    }
    sweep_history_clear(h);
    assert_int_equal(sweep_history_span(h, NULL, NULL), 0);
    assert_int_equal(sweep__history_at(h, 5, 0.0, &at), SWEEP_E_TIME);
    /* After a clear any tick may start again. */
    sweep_history_entity e = ent(9, 0, 0, 0);
    assert_int_equal(sweep_history_push(h, 100, &e, 1, NULL, 0), SWEEP_OK);
    sweep_history_destroy(h);
}

/* The ids of the entities present at (tick, fraction), in the order the
 * iterator gives them, and their x. */
static uint32_t present(const sweep_history *h, uint64_t tick, double f, uint64_t *ids, double *xs)
{
    sweep__hist_at at;
    assert_int_equal(sweep__history_at(h, tick, f, &at), SWEEP_OK);
    sweep__hist_iter it;
    sweep__hist_ref r;
    uint32_t n = 0;
    sweep__history_iter_begin(&it, &at);
    while (sweep__history_iter_next(&it, &r)) {
        sweep__hist_pose p;
        sweep__history_pose(&at, &r, &p);
        ids[n] = p.id, xs[n] = p.position.x;
        n++;
    }
    return n;
}

static void sorted_interpolated_despawned_spawned(void **state)
{
    (void)state;
    sweep_history *h = make(8, 8, 0);
    /* Listed out of order; 30 goes away after tick 10, 5 arrives at 11. */
    sweep_history_entity a[4] = {ent(40, 0, 0, 0), ent(30, 3, 0, 0), ent(20, 2, 0, 0), ent(10, 1, 0, 0)};
    sweep_history_entity b[4] = {ent(10, 2, 0, 0), ent(5, 7, 0, 0), ent(40, 4, 0, 0), ent(20, 2, 0, 0)};
    assert_int_equal(sweep_history_push(h, 10, a, 4, NULL, 0), SWEEP_OK);
    assert_int_equal(sweep_history_push(h, 11, b, 4, NULL, 0), SWEEP_OK);
    uint64_t ids[8];
    double xs[8];
    assert_int_equal(present(h, 10, 0.0, ids, xs), 4);
    assert_true(ids[0] == 10 && ids[1] == 20 && ids[2] == 30 && ids[3] == 40);
    assert_true(xs[0] == 1 && xs[1] == 2 && xs[2] == 3 && xs[3] == 0);
    assert_int_equal(present(h, 10, 0.25, ids, xs), 4);
    assert_true(ids[0] == 10 && ids[1] == 20 && ids[2] == 30 && ids[3] == 40);
    assert_true(xs[0] == 1.25 && xs[1] == 2 && xs[2] == 3 && xs[3] == 1.0);
    assert_int_equal(present(h, 11, 0.0, ids, xs), 4);
    assert_true(ids[0] == 5 && ids[1] == 10 && ids[2] == 20 && ids[3] == 40);
    /* One entity asked by id: the same interpolation; one gone (30) is
     * where it was; one not yet there (5) and a time not kept say so. */
    sweep_vec3 p, r;
    assert_int_equal(sweep_history_entity_at(h, 10, 10, 0.25, &p, &r), SWEEP_OK);
    assert_true(p.x == 1.25 && p.y == 0 && r.z == 0.9);
    assert_int_equal(sweep_history_entity_at(h, 40, 10, 0.5, &p, NULL), SWEEP_OK);
    assert_true(p.x == 2.0);
    assert_int_equal(sweep_history_entity_at(h, 30, 10, 0.75, &p, NULL), SWEEP_OK);
    assert_true(p.x == 3.0);
    assert_int_equal(sweep_history_entity_at(h, 5, 10, 0.5, &p, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_history_entity_at(h, 5, 11, 0.0, &p, NULL), SWEEP_OK);
    assert_true(p.x == 7.0);
    assert_int_equal(sweep_history_entity_at(h, 10, 12, 0.0, &p, NULL), SWEEP_E_TIME);
    assert_int_equal(sweep_history_entity_at(h, 10, 9, 0.0, &p, NULL), SWEEP_E_TIME);
    assert_int_equal(sweep_history_entity_at(NULL, 10, 10, 0.0, &p, NULL), SWEEP_E_ARG);
    sweep_history_destroy(h);
}

static void mover_rotation_is_nlerped(void **state)
{
    (void)state;
    sweep_history *h = make(4, 0, 2);
    double s = sqrt(0.5);
    sweep_mover_pose p0[2] = {{{0, 0, 0}, {0, 0, 0, 1}}, {{1, 1, 1}, {0, 0, 0, 1}}};
    sweep_mover_pose p1[2] = {{{2, 0, 0}, {0, 0, s, s}}, {{1, 1, 1}, {0, 0, 0, 1}}};
    assert_int_equal(sweep_history_push(h, 0, NULL, 0, p0, 2), SWEEP_OK);
    assert_int_equal(sweep_history_push(h, 1, NULL, 0, p1, 2), SWEEP_OK);
    sweep__hist_at at;
    assert_int_equal(sweep__history_at(h, 0, 0.5, &at), SWEEP_OK);
    sweep_mover_pose m = sweep__history_mover(&at, 0);
    assert_true(m.position.x == 1.0);
    /* Half of a quarter turn about z: x goes to (cos 45, sin 45). */
    sweep_vec3 x = sweep_quat_rotate(m.rotation, sweep_v3(1, 0, 0));
    assert_true(fabs(x.x - s) < 1e-15 && fabs(x.y - s) < 1e-15 && fabs(x.z) < 1e-15);
    m = sweep__history_mover(&at, 1);
    assert_true(m.position.x == 1.0 && m.rotation.w == 1.0);
    assert_int_equal(sweep__history_at(h, 1, 0.0, &at), SWEEP_OK);
    m = sweep__history_mover(&at, 0);
    assert_true(m.rotation.z == s && m.rotation.w == s);
    sweep_history_destroy(h);
}

/* The box of p grown by r inside box (lo, hi)? */
static int inside3(sweep_vec3 p, sweep_vec3 r, sweep_vec3 lo, sweep_vec3 hi)
{
    return p.x - r.x >= lo.x && p.y - r.y >= lo.y && p.z - r.z >= lo.z && p.x + r.x <= hi.x && p.y + r.y <= hi.y &&
           p.z + r.z <= hi.z;
}

static int inside(sweep_vec3 p, double r, sweep_vec3 lo, sweep_vec3 hi)
{
    return inside3(p, sweep_v3(r, r, r), lo, hi);
}

static double rnd(unsigned *seed, double lo, double hi)
{
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * ((*seed >> 8) & 0xffffff) / (double)0x1000000;
}

static void boxes_hold_interpolated_poses(void **state)
{
    (void)state;
    unsigned seed = 7;
    sweep_history *h = make(2, 16, 0);
    for (int round = 0; round < 200; round++) {
        sweep_history_clear(h);
        sweep_hit_shape shapes[2][16][3];
        sweep_history_entity e[2][16];
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 16; i++) {
                double big = round % 2 ? 1e5 : 10.0;
                e[k][i] = ent((uint64_t)i, rnd(&seed, -big, big), rnd(&seed, -big, big), rnd(&seed, -big, big));
                e[k][i].radii = sweep_v3(rnd(&seed, 0.5, 1), rnd(&seed, 0.5, 1), rnd(&seed, 0.5, 1));
                /* Every third entity changes its shapes between the ticks. */
                uint32_t n = (i % 3 == 0 && k == 1) ? 2 : 3;
                for (uint32_t s = 0; s < n; s++) {
                    sweep_hit_shape *sh = &shapes[k][i][s];
                    sh->id = s, sh->kind = s;
                    sh->a = sweep_v3(rnd(&seed, -0.8, 0.8), rnd(&seed, -0.8, 0.8), rnd(&seed, -0.8, 0.8));
                    sh->b = sweep_v3(rnd(&seed, -0.8, 0.8), rnd(&seed, -0.8, 0.8), rnd(&seed, -0.8, 0.8));
                    sh->radii = sweep_v3(rnd(&seed, 0.05, 0.3), rnd(&seed, 0.05, 0.3), rnd(&seed, 0.05, 0.3));
                }
                e[k][i].shapes = shapes[k][i], e[k][i].shape_count = n;
                /* And every third keeps the same radii and shapes: the
                 * push takes their box from the tick before. */
                if (i % 3 == 1 && k == 1) {
                    memcpy(shapes[1][i], shapes[0][i], sizeof shapes[1][i]);
                    e[1][i].radii = e[0][i].radii;
                }
            }
            assert_int_equal(sweep_history_push(h, (uint64_t)k, e[k], 16, NULL, 0), SWEEP_OK);
        }
        sweep__hist_at at;
        assert_int_equal(sweep__history_at(h, 0, rnd(&seed, 0, 1), &at), SWEEP_OK);
        sweep_vec3 flo, fhi;
        double an;
        sweep__history_box(&at, &flo, &fhi, &an);
        assert_true(an >= 1.0);
        sweep__hist_iter it;
        sweep__hist_ref r;
        sweep__history_iter_begin(&it, &at);
        while (sweep__history_iter_next(&it, &r)) {
            assert_true(inside(r.lo, 0, flo, fhi) && inside(r.hi, 0, flo, fhi));
            sweep__hist_pose p;
            sweep__history_pose(&at, &r, &p);
            assert_true(inside(p.position, 0, r.lo, r.hi));
            assert_true(inside(sweep_v3_sub(p.position, p.radii), 0, r.lo, r.hi));
            assert_true(inside(sweep_v3_add(p.position, p.radii), 0, r.lo, r.hi));
            for (uint32_t s = 0; s < p.shape_count; s++) {
                const sweep_hit_shape *sh = &p.shapes[s];
                sweep_vec3 rad = sh->kind == SWEEP_SHAPE_ELLIPSOID ? sh->radii
                                                                   : sweep_v3(sh->radii.x, sh->radii.x, sh->radii.x);
                assert_true(inside3(sh->a, rad, r.lo, r.hi));
                if (sh->kind == SWEEP_SHAPE_CAPSULE)
                    assert_true(inside3(sh->b, rad, r.lo, r.hi));
            }
        }
    }
    sweep_history_destroy(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_and_refusals),
        cmocka_unit_test(bad_pushes_keep_nothing),
        cmocka_unit_test(shapes_check_names_the_bad_one),
        cmocka_unit_test(kept_shapes_are_checked_again_when_changed),
        cmocka_unit_test(shape_pool_holds_what_it_was_made_for),
        cmocka_unit_test(sets_outlive_their_tick_and_come_back_whole),
        cmocka_unit_test(full_ring_forgets_the_oldest),
        cmocka_unit_test(the_last_tick_is_never_inside),
        cmocka_unit_test(sorted_interpolated_despawned_spawned),
        cmocka_unit_test(mover_rotation_is_nlerped),
        cmocka_unit_test(boxes_hold_interpolated_poses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
