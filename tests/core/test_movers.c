/*
 * test_movers.c - doors, lifts and platforms: paths and their state
 * machine, riding, pushing, blocked rules, fast movers, and the same
 * session twice giving the same hash every tick, and a pose without
 * rotation placing points with the whole formula's bits.
 *
 * Scenes are z up with gravity 9.81, 60 ticks per second, the player
 * ellipsoid (0.4, 0.4, 0.9). A "session step" is what the server does each
 * tick: sweep_movers_tick with every body, then each body's move (gravity
 * added by the walker, as a game client would) against the movers where
 * they now are.
 *
 * "Never inside" is checked without the core's sweep: every test mover is
 * a box, so a body overlaps it exactly when the box grown into eSpace
 * distance holds its centre: the centre, taken into the box's local frame,
 * is inside the box, or closer than 1 (in eSpace) to one of its triangles
 * placed by the pose (sweep_closest_point_on_triangle).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/hash.h"
#include "core/mover.h"
#include "core/mover_impl.h"
#include "core/swept_sphere.h"
#include "maps/level.h"

#define RATE 60.0
#define DT (1.0 / RATE)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};
/* How far into a surface a body may be found: rounding, far below the
 * skin (1e-3 of a radius). */
#define INSIDE_TOL 1e-7

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_movers *mv;
    sweep_config cfg;
    sweep_vec3 box_lo[8], box_hi[8]; /* each mover's local box */
} scene;

typedef struct walker {
    sweep_body b;
    sweep_vec3 vel;
    int grounded;
    sweep_move_result last;
} walker;

static void scene_init(scene *s)
{
    memset(s, 0, sizeof *s);
    sweep_level_init(&s->lv);
    s->lv.tick_rate = RATE;
    sweep_config_default(&s->cfg);
}

static void floor_quad(scene *s, double x0, double y0, double x1, double y1, double z)
{
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(x0, y0, z), sweep_v3(x1, y0, z), sweep_v3(x1, y1, z),
                                          sweep_v3(x0, y1, z), 1),
                     SWEEP_OK);
}


/* A closed box lo..hi in the mover's local frame, faces outwards. */
static void mover_box(sweep_level_mover *m, sweep_vec3 lo, sweep_vec3 hi)
{
    uint32_t v[8];
    for (int k = 0; k < 8; k++)
        assert_int_equal(sweep_level_mover_add_vertex(
                             m, sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z), &v[k]),
                         SWEEP_OK);
    static const int faces[6][4] = {{4, 5, 7, 6}, {0, 2, 3, 1}, {1, 3, 7, 5},
                                    {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}};
    for (int f = 0; f < 6; f++) {
        const int *q = faces[f];
        assert_int_equal(sweep_level_mover_add_triangle(m, v[q[0]], v[q[1]], v[q[2]], 3), SWEEP_OK);
        assert_int_equal(sweep_level_mover_add_triangle(m, v[q[0]], v[q[2]], v[q[3]], 3), SWEEP_OK);
    }
}

static sweep_quat about_z(double degrees)
{
    double h = degrees * 3.14159265358979323846 / 360.0; /* test set-up only: the core never sees an angle */
    sweep_quat q = {0.0, 0.0, sin(h), cos(h)};
    return q;
}

static sweep_quat about_y(double degrees)
{
    double h = degrees * 3.14159265358979323846 / 360.0;
    sweep_quat q = {0.0, sin(h), 0.0, cos(h)};
    return q;
}

/* Adds a box mover; returns it for keyframes. */
static sweep_level_mover *add_mover(scene *s, const char *name, sweep_vec3 lo, sweep_vec3 hi, sweep_mover_mode mode,
                                    sweep_mover_trigger trigger, sweep_mover_blocked blocked)
{
    uint32_t i;
    assert_int_equal(sweep_level_add_mover(&s->lv, s->lv.mover_count + 1, name, &i), SWEEP_OK);
    sweep_level_mover *m = &s->lv.movers[i];
    m->mode = mode, m->trigger = trigger, m->blocked = blocked;
    mover_box(m, lo, hi);
    s->box_lo[i] = lo, s->box_hi[i] = hi;
    return m;
}

static void key(sweep_level_mover *m, double t, double x, double y, double z, sweep_quat q)
{
    assert_int_equal(sweep_level_mover_add_keyframe(m, t, sweep_v3(x, y, z), q), SWEEP_OK);
}

static void scene_build(scene *s)
{
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
    assert_int_equal(sweep_level_build_movers(&s->lv, &s->mv), SWEEP_OK);
}

static void scene_free(scene *s)
{
    sweep_movers_destroy(s->mv);
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
}

static walker at(double x, double y, double z)
{
    walker w;
    memset(&w, 0, sizeof w);
    w.b.position = sweep_v3(x, y, z);
    w.b.radii = RADII;
    w.b.ground_mover = SWEEP_NO_MOVER;
    w.b.touch_mover = SWEEP_NO_MOVER;
    w.b.mover = SWEEP_NO_MOVER;
    return w;
}

/* One move of a walker: the lateral velocity asked for, its vertical
 * velocity kept, gravity added. */
static void move(scene *s, walker *w, sweep_vec3 lateral)
{
    sweep_vec3 v = sweep_v3(lateral.x, lateral.y, w->vel.z - 9.81 * DT);
    sweep_move_input in = {w->b.position, w->b.radii, v, DT, w->grounded ? SWEEP_INPUT_GROUNDED : 0};
    sweep_status st = sweep_move_among(s->w, s->mv, &s->cfg, &in, &w->last);
    if (st != SWEEP_OK)
        fail_msg("sweep_move_among failed: %s", sweep_status_name(st));
    w->b.position = w->last.position;
    w->vel = w->last.velocity;
    w->grounded = (w->last.flags & SWEEP_MOVED_GROUNDED) != 0;
    w->b.ground_mover = w->grounded ? w->last.ground_mover : SWEEP_NO_MOVER;
    w->b.touch_mover = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < w->last.contact_count; i++)
        if (w->last.contacts[i].mover != SWEEP_NO_MOVER) {
            w->b.touch_mover = w->last.contacts[i].mover;
            break;
        }
}

static void tick(scene *s, walker *ws, uint32_t n, sweep_tick_report *rep)
{
    sweep_body bodies[8];
    for (uint32_t i = 0; i < n; i++)
        bodies[i] = ws[i].b;
    assert_int_equal(sweep_movers_tick(s->mv, s->w, &s->cfg, bodies, n, rep), SWEEP_OK);
    for (uint32_t i = 0; i < n; i++)
        ws[i].b = bodies[i];
}

/* eSpace distance from a body's centre to mover m's box as placed now:
 * negative when the centre is inside the box. */
static double clearance(const scene *s, uint32_t m, sweep_vec3 centre, sweep_vec3 radii)
{
    sweep_mover_pose pose;
    sweep_movers_get(s->mv, m, &pose, NULL);
    sweep_vec3 local = sweep_quat_rotate(sweep_quat_conj(pose.rotation), sweep_v3_sub(centre, pose.position));
    sweep_vec3 lo = s->box_lo[m], hi = s->box_hi[m];
    if (local.x > lo.x && local.x < hi.x && local.y > lo.y && local.y < hi.y && local.z > lo.z && local.z < hi.z)
        return -1.0;
    const sweep_level_mover *lm = &s->lv.movers[m];
    sweep_vec3 inv = sweep_v3(1.0 / radii.x, 1.0 / radii.y, 1.0 / radii.z);
    double best = INFINITY;
    for (uint32_t t = 0; t < lm->triangle_count; t++) {
        sweep_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = sweep_v3_mul(
                sweep_v3_add(sweep_quat_rotate(pose.rotation, lm->vertices[lm->indices[3 * t + k]]), pose.position),
                inv);
        sweep_vec3 e = sweep_v3_mul(centre, inv);
        sweep_vec3 c = sweep_closest_point_on_triangle(e, p[0], p[1], p[2]);
        double d = sweep_v3_len(sweep_v3_sub(e, c));
        if (d < best)
            best = d;
    }
    return best - 1.0;
}

/* eSpace distance from a body's centre to the static level, less 1:
 * negative when the body overlaps a triangle (either side). */
static double level_clearance(const scene *s, sweep_vec3 centre, sweep_vec3 radii)
{
    sweep_vec3 inv = sweep_v3(1.0 / radii.x, 1.0 / radii.y, 1.0 / radii.z), e = sweep_v3_mul(centre, inv);
    double best = INFINITY;
    for (uint32_t t = 0; t < s->lv.triangle_count; t++) {
        const uint32_t *ix = &s->lv.indices[3 * t];
        sweep_vec3 c = sweep_closest_point_on_triangle(e, sweep_v3_mul(s->lv.vertices[ix[0]], inv),
                                                       sweep_v3_mul(s->lv.vertices[ix[1]], inv),
                                                       sweep_v3_mul(s->lv.vertices[ix[2]], inv));
        double d = sweep_v3_len(sweep_v3_sub(e, c));
        if (d < best)
            best = d;
    }
    return best - 1.0;
}

static void never_inside(const scene *s, const walker *w)
{
    if (w->b.flags & SWEEP_BODY_CRUSHED)
        return;
    for (uint32_t m = 0; m < s->lv.mover_count; m++) {
        double c = clearance(s, m, w->b.position, w->b.radii);
        if (c < -INSIDE_TOL)
            fail_msg("body at (%.9g, %.9g, %.9g) is %.3g inside mover %u (tick %llu)", w->b.position.x,
                     w->b.position.y, w->b.position.z, -c, m, (unsigned long long)sweep_movers_tick_count(s->mv));
    }
}

/* Neither inside a mover nor inside the static level. */
static void never_inside_anything(const scene *s, const walker *w)
{
    if (w->b.flags & SWEEP_BODY_CRUSHED)
        return;
    never_inside(s, w);
    double c = level_clearance(s, w->b.position, w->b.radii);
    if (c < -INSIDE_TOL)
        fail_msg("body at (%.9g, %.9g, %.9g) is %.3g inside the level (tick %llu)", w->b.position.x,
                 w->b.position.y, w->b.position.z, -c, (unsigned long long)sweep_movers_tick_count(s->mv));
}

/* ------------------------------------------------------------------ */

static void description_errors_are_named(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "door", sweep_v3(0, 0, 0), sweep_v3(1, 0.1, 2), SWEEP_MOVER_PINGPONG,
                                     SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0, sweep_quat_identity());
    key(m, 1, 2, 0, 0, sweep_quat_identity());
    sweep_mover_desc d = sweep_level_mover_desc(&s.lv, 0);
    uint32_t at = 99;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_FINE);

    sweep_keyframe keys[3] = {{0, {{0, 0, 0}, {0, 0, 0, 1}}}, {1, {{1, 0, 0}, {0, 0, 0, 1}}},
                              {1, {{2, 0, 0}, {0, 0, 0, 1}}}};
    d.keys = keys, d.key_count = 3;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_TIME_ORDER);
    assert_int_equal(at, 2);
    keys[2].time = 2;
    keys[1].pose.rotation.w = 0.9; /* not unit */
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_NOT_UNIT);
    assert_int_equal(at, 1);
    keys[1].pose.rotation.w = 1.0;
    keys[0].time = 0.5;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_FIRST_TIME);
    keys[0].time = 0;
    d.mode = SWEEP_MOVER_LOOP; /* ends at x = 2, starts at 0 */
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_OPEN_LOOP);
    d.mode = (sweep_mover_mode)7;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_BAD_MODE);
    d.mode = SWEEP_MOVER_ONCE;
    d.trigger = SWEEP_TRIGGER_VOLUME; /* empty box */
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_BAD_VOLUME);
    d.trigger = SWEEP_TRIGGER_ALWAYS;
    d.wait_end = NAN;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_BAD_WAIT);
    d.wait_end = 0;
    d.triangle_count = 0;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_NO_TRIANGLES);
    d.triangle_count = 12;
    d.key_count = 1;
    assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_FEW_KEYFRAMES);
    for (int p = 0; p < SWEEP_MOVER_PROBLEM_COUNT; p++)
        assert_non_null(sweep_mover_problem_text((sweep_mover_problem)p));
    assert_string_equal(sweep_mover_mode_name(SWEEP_MOVER_PINGPONG), "pingpong");
    assert_string_equal(sweep_mover_trigger_name(SWEEP_TRIGGER_COMMAND), "command");
    assert_string_equal(sweep_mover_blocked_name(SWEEP_BLOCKED_CRUSH), "crush");
    assert_null(sweep_mover_mode_name((sweep_mover_mode)9));

    sweep_movers *mv = NULL;
    d.key_count = 3;
    d.wait_end = -1;
    assert_int_equal(sweep_movers_create(&d, 1, 60.0, 0, &mv), SWEEP_E_GEOMETRY);
    assert_null(mv);
    scene_free(&s);
}

/* Pingpong with waits: forward in ceil(T * rate) ticks, wait, back, wait. */
static void pingpong_path_and_waits(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "lift", sweep_v3(-1, -1, -0.2), sweep_v3(1, 1, 0), SWEEP_MOVER_PINGPONG,
                                     SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0, sweep_quat_identity());
    key(m, 1, 0, 0, 3, sweep_quat_identity());
    m->wait_end = 0.5, m->wait_start = 0.25;
    floor_quad(&s, 10, 10, 20, 20, 0);
    scene_build(&s);
    assert_int_equal(sweep_movers_path_ticks(s.mv, 0), 60);
    sweep_mover_pose p = sweep_movers_path_pose(s.mv, 0, 30);
    assert_true(p.position.z == 0.5 * 3.0);
    double z[400];
    for (int t = 0; t < 400; t++) {
        tick(&s, NULL, 0, NULL);
        sweep_movers_get(s.mv, 0, &p, NULL);
        z[t] = p.position.z;
    }
    /* Up in 60 ticks, 30 ticks at the top, down in 60, 15 at the bottom. */
    assert_true(z[0] > 0.0 && z[0] < 0.1);
    assert_true(z[59] == 3.0);
    assert_true(z[89] == 3.0);
    assert_true(z[90] < 3.0);
    assert_true(z[149] == 0.0);
    assert_true(z[164] == 0.0);
    assert_true(z[165] > 0.0);
    for (int t = 1; t < 400; t++)
        assert_true(fabs(z[t] - z[t - 1]) <= 3.0 / 60.0 + 1e-12);
    scene_free(&s);
}

/* A loop comes back to its first pose and carries on; once stays. */
static void loop_and_once(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *a = add_mover(&s, "loop", sweep_v3(-1, -1, -0.2), sweep_v3(1, 1, 0), SWEEP_MOVER_LOOP,
                                     SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(a, 0, 0, 0, 0, sweep_quat_identity());
    key(a, 1, 4, 0, 0, sweep_quat_identity());
    key(a, 2, 4, 4, 0, sweep_quat_identity());
    key(a, 3, 0, 0, 0, sweep_quat_identity());
    sweep_level_mover *b = add_mover(&s, "once", sweep_v3(-1, -1, -0.2), sweep_v3(1, 1, 0), SWEEP_MOVER_ONCE,
                                     SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(b, 0, 50, 0, 0, sweep_quat_identity());
    key(b, 0.5, 50, 0, 5, sweep_quat_identity());
    floor_quad(&s, 10, 10, 20, 20, 0);
    scene_build(&s);
    sweep_mover_pose pa, pb;
    for (int t = 1; t <= 400; t++) {
        tick(&s, NULL, 0, NULL);
        sweep_movers_get(s.mv, 0, &pa, NULL);
        sweep_movers_get(s.mv, 1, &pb, NULL);
        if (t % 180 == 0)
            assert_true(pa.position.x == 0.0 && pa.position.y == 0.0);
        if (t == 60)
            assert_true(pa.position.x == 4.0 && pa.position.y == 0.0);
        if (t >= 30)
            assert_true(pb.position.z == 5.0);
    }
    scene_free(&s);
}

/* Triggers: a volume opens a door while someone stands in it, a command
 * fires once, touch fires when stood on. */
static void triggers_fire(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *door = add_mover(&s, "door", sweep_v3(0, -1, 0), sweep_v3(0.2, 1, 2.5), SWEEP_MOVER_PINGPONG,
                                        SWEEP_TRIGGER_VOLUME, SWEEP_BLOCKED_REVERSE);
    key(door, 0, 0, 0, 0, sweep_quat_identity());
    key(door, 0.5, 0, 0, 2.4, sweep_quat_identity());
    door->wait_end = 0.5;
    door->volume_min = sweep_v3(-3, -1, 0), door->volume_max = sweep_v3(-1, 1, 3);
    sweep_level_mover *gate = add_mover(&s, "gate", sweep_v3(0, -1, 0), sweep_v3(0.2, 1, 2.5), SWEEP_MOVER_ONCE,
                                        SWEEP_TRIGGER_COMMAND, SWEEP_BLOCKED_STOP);
    key(gate, 0, 30, 0, 0, sweep_quat_identity());
    key(gate, 0.5, 30, 0, -3, sweep_quat_identity());
    sweep_level_mover *plate = add_mover(&s, "plate", sweep_v3(-1, -1, -0.2), sweep_v3(1, 1, 0), SWEEP_MOVER_PINGPONG,
                                         SWEEP_TRIGGER_TOUCH, SWEEP_BLOCKED_STOP);
    key(plate, 0, 60, 0, 0, sweep_quat_identity());
    key(plate, 1, 60, 0, 2, sweep_quat_identity());
    floor_quad(&s, -20, -20, 50, 20, 0);
    scene_build(&s);
    walker w[1] = {at(-10, 0, 0.95)};
    sweep_mover_state st;
    for (int t = 0; t < 60; t++) {
        tick(&s, w, 1, NULL);
        move(&s, &w[0], sweep_v3(0, 0, 0));
    }
    for (uint32_t m = 0; m < 3; m++) {
        sweep_movers_get(s.mv, m, NULL, &st);
        assert_int_equal(st.path_tick, 0);
        assert_int_equal(st.dir, 0);
    }
    /* Into the volume: the door opens, and stays open while the walker is there. */
    w[0].b.position = sweep_v3(-2, 0, 0.901);
    for (int t = 0; t < 200; t++) {
        tick(&s, w, 1, NULL);
        move(&s, &w[0], sweep_v3(0, 0, 0));
    }
    sweep_movers_get(s.mv, 0, NULL, &st);
    assert_int_equal(st.path_tick, 30);
    /* Out again: it closes after its wait. */
    w[0].b.position = sweep_v3(-10, 0, 0.901);
    for (int t = 0; t < 120; t++) {
        tick(&s, w, 1, NULL);
        move(&s, &w[0], sweep_v3(0, 0, 0));
    }
    sweep_movers_get(s.mv, 0, NULL, &st);
    assert_int_equal(st.path_tick, 0);
    /* A command moves the gate, once. */
    assert_int_equal(sweep_movers_trigger(s.mv, 1), SWEEP_OK);
    assert_int_equal(sweep_movers_trigger(s.mv, 7), SWEEP_E_ARG);
    for (int t = 0; t < 60; t++)
        tick(&s, w, 1, NULL);
    sweep_movers_get(s.mv, 1, NULL, &st);
    assert_int_equal(st.path_tick, 30);
    /* Standing on the plate starts it. */
    w[0].b.position = sweep_v3(60, 0, 0.901);
    for (int t = 0; t < 20; t++) {
        move(&s, &w[0], sweep_v3(0, 0, 0));
        tick(&s, w, 1, NULL);
    }
    assert_int_equal(w[0].last.ground_mover, 2);
    sweep_movers_get(s.mv, 2, NULL, &st);
    assert_true(st.path_tick > 0);
    scene_free(&s);
}

/* 1,000 lift cycles: the rider is carried every tick, never inside the
 * lift, never left behind, never more than the skin above its floor. */
static void lift_ride_thousand_cycles(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "lift", sweep_v3(-1.5, -1.5, -0.2), sweep_v3(1.5, 1.5, 0),
                                     SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0, sweep_quat_identity());
    key(m, 1, 0, 0, 4, sweep_quat_identity());
    m->wait_end = 0.25, m->wait_start = 0.25;
    floor_quad(&s, 10, 10, 20, 20, 0);
    scene_build(&s);
    walker w[1] = {at(0.3, -0.2, 0.9 + 0.0005)};
    move(&s, &w[0], sweep_v3(0, 0, 0));
    assert_true(w[0].grounded);
    assert_int_equal(w[0].last.ground_mover, 0);
    const double skin = s.cfg.skin * RADII.z;
    int cycle_ticks = 60 + 15 + 60 + 15, tops = 0;
    double last_z = 0.0;
    for (int t = 0; t < 1000 * cycle_ticks; t++) {
        tick(&s, w, 1, NULL);
        sweep_mover_pose p;
        sweep_movers_get(s.mv, 0, &p, NULL);
        tops += p.position.z == 4.0 && last_z < 4.0;
        last_z = p.position.z;
        double gap = w[0].b.position.z - RADII.z - p.position.z;
        if (!(gap >= -INSIDE_TOL && gap <= 2.0 * skin))
            fail_msg("tick %d: after the tick the rider's feet are %.3g above the lift floor", t, gap);
        move(&s, &w[0], sweep_v3(0, 0, 0));
        gap = w[0].b.position.z - RADII.z - p.position.z;
        if (!(gap >= -INSIDE_TOL && gap <= 2.0 * skin) || !w[0].grounded || w[0].last.ground_mover != 0)
            fail_msg("tick %d: after the move the rider's feet are %.3g above the lift floor (grounded %d)", t, gap,
                     w[0].grounded);
        if ((t & 63) == 0)
            never_inside(&s, &w[0]);
    }
    assert_int_equal(tops, 1000); /* the lift never stalled */
    assert_true(w[0].b.position.x == 0.3 && w[0].b.position.y == -0.2);
    scene_free(&s);
}

/* A platform turning about z: the rider goes round with it and stays on it. */
static void rotating_platform_carries(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "turntable", sweep_v3(-3, -3, -0.2), sweep_v3(3, 3, 0), SWEEP_MOVER_LOOP,
                                     SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    for (int k = 0; k <= 3; k++)
        key(m, 2.0 * k, 0, 0, 1, about_z(120.0 * k));
    floor_quad(&s, 10, 10, 20, 20, 0);
    scene_build(&s);
    walker w[1] = {at(2, 0, 1 + 0.9 + 0.0005)};
    move(&s, &w[0], sweep_v3(0, 0, 0));
    assert_int_equal(w[0].last.ground_mover, 0);
    double min_angle = 0.0;
    for (int t = 0; t < 1000 * 360; t++) {
        tick(&s, w, 1, NULL);
        move(&s, &w[0], sweep_v3(0, 0, 0));
        sweep_vec3 p = w[0].b.position;
        double gap = p.z - RADII.z - 1.0;
        if (!(gap >= -INSIDE_TOL && gap <= 2.0 * s.cfg.skin * RADII.z) || w[0].last.ground_mover != 0)
            fail_msg("tick %d: the rider is %.3g above the turntable (ground mover %u)", t, gap,
                     w[0].last.ground_mover);
        double r = sqrt(p.x * p.x + p.y * p.y);
        if (fabs(r - 2.0) > 0.05)
            fail_msg("tick %d: the rider drifted to radius %.6g", t, r);
        if (p.y < min_angle)
            min_angle = p.y;
    }
    assert_true(min_angle < -1.9); /* it went round */
    scene_free(&s);
}

/* A door closing on an idle player pushes it out of the way. */
static void door_pushes_idle_player(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "door", sweep_v3(-0.1, -1, 0.05), sweep_v3(0.1, 1, 2.5),
                                     SWEEP_MOVER_ONCE, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0, sweep_quat_identity());
    key(m, 1, 4, 0, 0, sweep_quat_identity());
    floor_quad(&s, -20, -20, 20, 20, 0);
    scene_build(&s);
    walker w[1] = {at(2, 0.3, 0.9005)};
    int pushed = 0;
    for (int t = 0; t < 90; t++) {
        tick(&s, w, 1, NULL);
        pushed += (w[0].b.flags & SWEEP_BODY_PUSHED) != 0;
        never_inside(&s, &w[0]);
        move(&s, &w[0], sweep_v3(0, 0, 0));
        never_inside(&s, &w[0]);
    }
    assert_true(pushed > 10);
    assert_true(w[0].b.position.x >= 4.0 + 0.1 + 0.4 - 1e-6);
    scene_free(&s);
}

/* A door closing on a player against a wall, under each blocked rule. */
static void door_blocked_rules(void **state)
{
    (void)state;
    for (int rule = 0; rule < SWEEP_BLOCKED_COUNT; rule++) {
        scene s;
        scene_init(&s);
        sweep_level_mover *m = add_mover(&s, "door", sweep_v3(-0.1, -1, 0.05), sweep_v3(0.1, 1, 2.5),
                                         SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, (sweep_mover_blocked)rule);
        key(m, 0, 0, 0, 0, sweep_quat_identity());
        key(m, 1, 5, 0, 0, sweep_quat_identity());
        floor_quad(&s, -20, -20, 20, 20, 0);
        assert_int_equal(sweep_level_add_box(&s.lv, sweep_v3(3, -5, 0), sweep_v3(4, 5, 3), 2, 1), SWEEP_OK);
        scene_build(&s);
        walker w[1] = {at(2, 0, 0.9005)};
        int blocked_ticks = 0, crushed = 0;
        double max_x = -1e9, min_x_after = 1e9;
        for (int t = 0; t < 120; t++) {
            sweep_tick_report rep;
            tick(&s, w, 1, &rep);
            blocked_ticks += rep.blocked;
            if (w[0].b.flags & SWEEP_BODY_CRUSHED) {
                crushed = 1;
            } else {
                never_inside(&s, &w[0]);
                assert_true(w[0].b.position.x <= 3.0 - 0.4 + 1e-9); /* never into the wall */
                move(&s, &w[0], sweep_v3(0, 0, 0));
                never_inside(&s, &w[0]);
            }
            sweep_mover_pose p;
            sweep_movers_get(s.mv, 0, &p, NULL);
            if (p.position.x > max_x)
                max_x = p.position.x;
            if (t > 90 && p.position.x < min_x_after)
                min_x_after = p.position.x;
        }
        switch (rule) {
        case SWEEP_BLOCKED_STOP:
            /* It presses on, held at the player: blocked every tick from then on. */
            assert_true(blocked_ticks > 40);
            assert_true(max_x < 3.0 - 0.8 - 0.1 + 0.02);
            assert_false(crushed);
            break;
        case SWEEP_BLOCKED_REVERSE:
            /* Blocked, it turned back to the start. */
            assert_true(blocked_ticks >= 1 && blocked_ticks < 10);
            assert_true(max_x < 3.0 - 0.8 - 0.1 + 0.02);
            assert_true(min_x_after < 0.5);
            assert_false(crushed);
            break;
        default:
            /* It went through, and the player was reported crushed. */
            assert_true(crushed);
            assert_true(max_x == 5.0);
            assert_true(w[0].b.mover == 0);
            break;
        }
        scene_free(&s);
    }
}

/* The world ends at the coordinate limit: a lift that would carry its rider
 * past it is blocked by the rider as by a wall (a position past the limit
 * is one every later move is refused from), under each rule. */
static void the_coordinate_limit_blocks_a_mover(void **state)
{
    (void)state;
    for (int rule = 0; rule < SWEEP_BLOCKED_COUNT; rule++) {
        scene s;
        scene_init(&s);
        s.cfg.max_coordinate = 3.5; /* the rider's centre would pass it with the lift's top at 2.6 */
        sweep_level_mover *m = add_mover(&s, "lift", sweep_v3(-1.5, -1.5, -0.2), sweep_v3(1.5, 1.5, 0),
                                         SWEEP_MOVER_ONCE, SWEEP_TRIGGER_ALWAYS, (sweep_mover_blocked)rule);
        key(m, 0, 0, 0, 0, sweep_quat_identity());
        key(m, 1, 0, 0, 3, sweep_quat_identity());
        floor_quad(&s, 10, 10, 20, 20, 0);
        scene_build(&s);
        walker w[1] = {at(0.3, -0.2, 0.9 + 0.0005)};
        move(&s, &w[0], sweep_v3(0, 0, 0));
        assert_int_equal(w[0].last.ground_mover, 0);
        int blocked_ticks = 0, crushed = 0;
        double top = 0.0;
        for (int t = 0; t < 90; t++) {
            sweep_tick_report rep;
            tick(&s, w, 1, &rep);
            blocked_ticks += rep.blocked;
            if (!sweep_config_contains(&s.cfg, w[0].b.position))
                fail_msg("rule %d, tick %d: the rider was carried to z = %.17g, past the limit", rule, t,
                         w[0].b.position.z);
            sweep_mover_pose p;
            sweep_movers_get(s.mv, 0, &p, NULL);
            top = p.position.z > top ? p.position.z : top;
            if (w[0].b.flags & SWEEP_BODY_CRUSHED)
                crushed = 1;
            else
                move(&s, &w[0], sweep_v3(0, 0, 0));
        }
        assert_true(blocked_ticks > 0);
        if (rule == SWEEP_BLOCKED_CRUSH) {
            assert_true(crushed); /* the rider leaves the world, reported as crushed */
            assert_true(top == 3.0);
        } else {
            assert_false(crushed);
            assert_true(top < 2.6 + 0.05); /* held below the limit by its rider */
        }
        scene_free(&s);
    }
}

/* A thin door moving 3 units a tick crosses the whole player in one tick:
 * it is still caught and the player pushed, not tunnelled through. */
static void fast_mover_is_caught(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "blade", sweep_v3(-0.05, -2, 0.05), sweep_v3(0.05, 2, 2.5),
                                     SWEEP_MOVER_ONCE, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0, sweep_quat_identity());
    key(m, 0.1, 18, 0, 0, sweep_quat_identity()); /* 6 ticks, 3 units each */
    floor_quad(&s, -30, -30, 30, 30, 0);
    scene_build(&s);
    walker w[1] = {at(1.6, 0, 0.9005)}; /* between x = 0 and 3: a tick jumps the blade over it */
    tick(&s, w, 1, NULL);
    assert_true(w[0].b.flags & SWEEP_BODY_PUSHED);
    assert_int_equal(w[0].b.mover, 0);
    assert_true(w[0].b.position.x >= 3.0 + 0.05 + 0.4 - 1e-6);
    never_inside(&s, &w[0]);
    scene_free(&s);
}

/* Walking onto a moving platform, riding it, and walking off again. */
static void walk_onto_and_off_platform(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "platform", sweep_v3(-1.5, -1.5, -0.3), sweep_v3(1.5, 1.5, 0),
                                     SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0.2, sweep_quat_identity());
    key(m, 3, 0, 6, 0.2, sweep_quat_identity());
    floor_quad(&s, -20, -20, -1.6, 20, 0); /* ground west of the platform's lane */
    floor_quad(&s, 1.6, -20, 20, 20, 0);   /* and east of it */
    scene_build(&s);
    walker w[1] = {at(-3, 0, 0.9005)};
    int on = 0, off_again = 0;
    for (int t = 0; t < 600; t++) {
        tick(&s, w, 1, NULL);
        /* Walk east onto it, ride for two seconds, then walk on east off it
         * and stop on the far floor. */
        int go = t < 40 || (t >= 160 && w[0].b.position.x < 4.0);
        sweep_vec3 want = go ? sweep_v3(3, 0, 0) : sweep_v3(0, 0, 0);
        move(&s, &w[0], want);
        never_inside(&s, &w[0]);
        if (w[0].grounded && w[0].last.ground_mover == 0)
            on++;
        if (t > 160 && on && w[0].grounded && w[0].last.ground_mover == SWEEP_NO_MOVER &&
            w[0].b.position.x > 1.6)
            off_again = 1;
        if (!(w[0].b.position.z > 0.5))
            fail_msg("tick %d: fell to z = %g", t, w[0].b.position.z);
    }
    assert_true(on > 100);
    assert_true(off_again);
    scene_free(&s);
}

/* A door swinging about a hinge sweeps a player out of its arc. */
static void swinging_door_sweeps_player(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_level_mover *m = add_mover(&s, "swing", sweep_v3(0, -0.05, 0.05), sweep_v3(2, 0.05, 2.5),
                                     SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(m, 0, 0, 0, 0, sweep_quat_identity());
    key(m, 0.75, 0, 0, 0, about_z(45));
    key(m, 1.5, 0, 0, 0, about_z(90));
    m->wait_end = 0.5;
    floor_quad(&s, -20, -20, 20, 20, 0);
    scene_build(&s);
    walker w[1] = {at(1.2, 0.9, 0.9005)}; /* in the arc of the door's free end */
    int pushed = 0;
    for (int t = 0; t < 400; t++) {
        tick(&s, w, 1, NULL);
        pushed += (w[0].b.flags & SWEEP_BODY_PUSHED) != 0;
        never_inside(&s, &w[0]);
        move(&s, &w[0], sweep_v3(0, 0, 0));
        never_inside(&s, &w[0]);
    }
    assert_true(pushed > 5);
    scene_free(&s);
}

/*
 * Movers that turn about a horizontal axis: a flap hanging from a hinge
 * along y swings up towards a player standing in front of it, and a
 * drawbridge lifts a thinner, taller player standing on it. Seen from a
 * mover that turns about y, an ellipsoid that is not round about y turns
 * too, so the push in the mover's frame alone left these bodies up to a
 * third of a radius inside the flap. After every tick and every move,
 * each body must be clear of both movers and of the floor.
 */
static void hinged_movers_keep_tall_bodies_out(void **state)
{
    (void)state;
    for (int fast = 0; fast < 2; fast++) {
        scene s;
        scene_init(&s);
        double swing = fast ? 0.05 : 1.0;
        sweep_level_mover *flap = add_mover(&s, "flap", sweep_v3(0, -2, -1.95), sweep_v3(0.1, 2, 0),
                                            SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
        key(flap, 0, 0, 0, 2, sweep_quat_identity());
        key(flap, swing, 0, 0, 2, about_y(90));
        flap->wait_end = 1.0;
        flap->wait_start = 1.0;
        sweep_level_mover *bridge = add_mover(&s, "bridge", sweep_v3(0, -1.5, -0.2), sweep_v3(4, 1.5, 0),
                                              SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
        key(bridge, 0, 10, 0, 1, sweep_quat_identity());
        key(bridge, 3.0 * swing, 10, 0, 1, about_y(-40));
        bridge->wait_end = 0.5;
        floor_quad(&s, -20, -20, 20, 20, 0);
        scene_build(&s);
        walker w[2] = {at(-0.45, 0, 0.9 + 0.001), at(12, 0, 1 + 1 + 0.001)};
        w[1].b.radii = sweep_v3(0.25, 0.25, 1);
        move(&s, &w[1], sweep_v3(0, 0, 0));
        assert_int_equal(w[1].b.ground_mover, 1);
        int pushed = 0, carried = 0;
        for (int t = 0; t < 600; t++) {
            tick(&s, w, 2, NULL);
            for (int i = 0; i < 2; i++) {
                assert_false(w[i].b.flags & SWEEP_BODY_CRUSHED);
                pushed += (w[i].b.flags & SWEEP_BODY_PUSHED) != 0;
                carried += (w[i].b.flags & SWEEP_BODY_CARRIED) != 0;
                never_inside_anything(&s, &w[i]);
                move(&s, &w[i], sweep_v3(0, 0, 0));
                never_inside_anything(&s, &w[i]);
            }
        }
        assert_true(pushed > 3 && carried > 30);
        scene_free(&s);
    }
}

/* A flap swinging up presses a tall player against a wall: the player,
 * who cannot be pushed out of it, blocks the flap under each rule, and is
 * never left inside it. */
static void hinged_flap_blocked_rules(void **state)
{
    (void)state;
    for (int rule = 0; rule < SWEEP_BLOCKED_COUNT; rule++) {
        scene s;
        scene_init(&s);
        sweep_level_mover *flap = add_mover(&s, "flap", sweep_v3(0, -2, -1.95), sweep_v3(0.1, 2, 0),
                                            SWEEP_MOVER_ONCE, SWEEP_TRIGGER_ALWAYS, (sweep_mover_blocked)rule);
        key(flap, 0, 0, 0, 2, sweep_quat_identity());
        key(flap, 1, 0, 0, 2, about_y(90));
        floor_quad(&s, -20, -20, 20, 20, 0);
        assert_int_equal(sweep_level_add_box(&s.lv, sweep_v3(-1.3, -5, 0), sweep_v3(-1, 5, 4), 2, 1), SWEEP_OK);
        scene_build(&s);
        walker w[1] = {at(-0.45, 0, 0.9 + 0.001)};
        int blocked_ticks = 0, crushed = 0;
        for (int t = 0; t < 120 && !crushed; t++) {
            sweep_tick_report rep;
            tick(&s, w, 1, &rep);
            blocked_ticks += rep.blocked;
            crushed = (w[0].b.flags & SWEEP_BODY_CRUSHED) != 0;
            never_inside_anything(&s, &w[0]);
            if (!crushed)
                move(&s, &w[0], sweep_v3(0, 0, 0));
            never_inside_anything(&s, &w[0]);
        }
        sweep_mover_pose p;
        sweep_movers_get(s.mv, 0, &p, NULL);
        if (rule == SWEEP_BLOCKED_CRUSH) {
            assert_true(crushed);
            assert_int_equal(w[0].b.mover, 0);
        } else {
            assert_false(crushed);
            assert_true(blocked_ticks >= 1);
            assert_true(p.rotation.y < 0.4); /* held well short of 90 degrees (0.707) */
        }
        if (rule == SWEEP_BLOCKED_STOP)
            assert_true(blocked_ticks > 60);
        scene_free(&s);
    }
}

/* A small deterministic random source for the property test. */
static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static double rng_unit(uint64_t *x)
{
    return (double)(rng_next(x) >> 11) / 9007199254740992.0;
}

/* Random movers of every kind and rule over a walled floor, walkers going
 * everywhere: after every tick and every move, no body that was not
 * crushed is inside a mover, below the floor or through a wall. */
static void random_movers_never_overlap(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        scene s;
        scene_init(&s);
        uint64_t r = 0x9e3779b97f4a7c15ull * seed;
        floor_quad(&s, -12, -12, 12, 12, 0);
        for (int k = 0; k < 4; k++) { /* walls round the room */
            double x0 = k == 0 ? -13 : k == 1 ? 12 : -12, x1 = k == 0 ? -12 : k == 1 ? 13 : 12;
            double y0 = k == 2 ? -13 : k == 3 ? 12 : -12, y1 = k == 2 ? -12 : k == 3 ? 13 : 12;
            assert_int_equal(sweep_level_add_box(&s.lv, sweep_v3(x0, y0, 0), sweep_v3(x1, y1, 4), 2, 1), SWEEP_OK);
        }
        for (int i = 0; i < 6; i++) {
            double cx = -8 + 16 * rng_unit(&r), cy = -8 + 16 * rng_unit(&r);
            sweep_mover_blocked rule = (sweep_mover_blocked)(rng_next(&r) % 3);
            char name[16];
            snprintf(name, sizeof name, "m%d", i);
            sweep_level_mover *m;
            switch (i % 3) {
            case 0: /* sliding door */
                m = add_mover(&s, name, sweep_v3(-0.1, -1.2, 0.02), sweep_v3(0.1, 1.2, 2.5), SWEEP_MOVER_PINGPONG,
                              SWEEP_TRIGGER_ALWAYS, rule);
                key(m, 0, cx - 2, cy, 0, sweep_quat_identity());
                key(m, 0.3 + rng_unit(&r), cx + 2, cy, 0, sweep_quat_identity());
                break;
            case 1: /* lift */
                m = add_mover(&s, name, sweep_v3(-1.2, -1.2, 0.0), sweep_v3(1.2, 1.2, 0.3), SWEEP_MOVER_PINGPONG,
                              SWEEP_TRIGGER_ALWAYS, rule);
                key(m, 0, cx, cy, 0.02, sweep_quat_identity());
                key(m, 0.5 + rng_unit(&r), cx, cy, 2.5, sweep_quat_identity());
                m->wait_end = 0.3;
                break;
            default: /* swinging door */
                m = add_mover(&s, name, sweep_v3(0, -0.1, 0.02), sweep_v3(2.2, 0.1, 2.5), SWEEP_MOVER_PINGPONG,
                              SWEEP_TRIGGER_ALWAYS, rule);
                key(m, 0, cx, cy, 0, sweep_quat_identity());
                key(m, 0.4, cx, cy, 0, about_z(45));
                key(m, 0.8, cx, cy, 0, about_z(90));
                break;
            }
        }
        scene_build(&s);
        walker w[8];
        for (int i = 0; i < 8; i++)
            w[i] = at(-10 + 20 * rng_unit(&r), -10 + 20 * rng_unit(&r), 3.5);
        /* Two riders stand on the lifts (movers 1 and 4) all along. */
        for (int i = 0; i < 2; i++) {
            sweep_vec3 c = s.lv.movers[1 + 3 * i].keys[0].pose.position;
            w[i] = at(c.x + 0.3, c.y - 0.2, c.z + 0.3 + 0.9 + 0.0005);
        }
        for (int t = 0; t < 1500; t++) {
            tick(&s, w, 8, NULL);
            for (int i = 0; i < 8; i++) {
                if (w[i].b.flags & SWEEP_BODY_CRUSHED)
                    continue;
                never_inside(&s, &w[i]);
                double a = 6.283185307179586 * rng_unit(&r) * (t % 50 == 0);
                sweep_vec3 want = t % 50 == 0 ? sweep_v3(4 * cos(a), 4 * sin(a), 0) : w[i].last.velocity;
                want.z = 0;
                if (i < 2)
                    want = sweep_v3(0, 0, 0);
                move(&s, &w[i], want);
                never_inside(&s, &w[i]);
                sweep_vec3 p = w[i].b.position;
                if (!(p.z >= 0.9 - INSIDE_TOL && fabs(p.x) <= 12 - 0.4 + INSIDE_TOL &&
                      fabs(p.y) <= 12 - 0.4 + INSIDE_TOL))
                    fail_msg("seed %llu tick %d: body %d left the room: (%g, %g, %g)", (unsigned long long)seed, t,
                             i, p.x, p.y, p.z);
            }
        }
        scene_free(&s);
    }
}

/* Runs a session of walkers among every kind of mover; returns the hash
 * of movers and bodies after every tick, folded. */
static uint64_t session_hash(uint64_t *per_tick, int ticks)
{
    scene s;
    scene_init(&s);
    sweep_level_mover *lift = add_mover(&s, "lift", sweep_v3(-1.5, -1.5, -0.2), sweep_v3(1.5, 1.5, 0),
                                        SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    key(lift, 0, 0, 0, 0, sweep_quat_identity());
    key(lift, 1.3, 0, 0, 2.7, sweep_quat_identity());
    lift->wait_end = 0.4;
    sweep_level_mover *turn = add_mover(&s, "turn", sweep_v3(-2, -2, -0.2), sweep_v3(2, 2, 0), SWEEP_MOVER_LOOP,
                                        SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
    for (int k = 0; k <= 3; k++)
        key(turn, 1.7 * k, 6, 0, 0.1, about_z(120.0 * k));
    sweep_level_mover *door = add_mover(&s, "door", sweep_v3(-0.1, -1, 0.05), sweep_v3(0.1, 1, 2.5),
                                        SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_REVERSE);
    key(door, 0, -5, 0, 0, sweep_quat_identity());
    key(door, 0.9, -1.8, 0, 0, sweep_quat_identity());
    floor_quad(&s, -20, -20, 20, 20, -0.25);
    scene_build(&s);
    walker w[4] = {at(0.2, 0.1, 0.9005), at(6.5, 0.5, 1.01), at(-3, 0, 0.7), at(3, 3, 0.7)};
    uint64_t all = SWEEP_HASH_INIT;
    for (int t = 0; t < ticks; t++) {
        tick(&s, w, 4, NULL);
        for (int i = 0; i < 4; i++) {
            double a = 0.37 * (double)((t / 40 + i) % 7);
            move(&s, &w[i], sweep_v3(1.5 * (a - 1.0), 0.8 * (1.2 - a), 0));
        }
        uint64_t h = sweep_movers_hash(s.mv, SWEEP_HASH_INIT);
        for (int i = 0; i < 4; i++)
            h = sweep_hash_body(h, w[i].b.position, w[i].vel, (uint32_t)w[i].grounded);
        per_tick[t] = h;
        all = sweep_hash_u64(all, h);
    }
    scene_free(&s);
    return all;
}

static void same_session_same_hashes(void **state)
{
    (void)state;
    enum { TICKS = 1200 };
    static uint64_t a[TICKS], b[TICKS];
    uint64_t ha = session_hash(a, TICKS), hb = session_hash(b, TICKS);
    for (int t = 0; t < TICKS; t++)
        if (a[t] != b[t])
            fail_msg("tick %d: hash %016llx then %016llx", t, (unsigned long long)a[t], (unsigned long long)b[t]);
    assert_true(ha == hb);
    /* The hash sees the movers: a changed trigger changes it. */
    assert_true(a[0] != a[TICKS - 1]);
}

/* The same scene twice, a server's and a client's: a lift that turns as
 * it rises over a floor, waiting `wait` seconds at each end. */
static void two_lifts(scene *s, scene *c, double wait)
{
    for (int k = 0; k < 2; k++) {
        scene *x = k ? c : s;
        scene_init(x);
        sweep_level_mover *m = add_mover(x, "lift", sweep_v3(-1.5, -1.5, -0.2), sweep_v3(1.5, 1.5, 0),
                                         SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP);
        m->wait_start = m->wait_end = wait;
        key(m, 0, 0, 0, 0, sweep_quat_identity());
        key(m, 0.7, 0.3, 0.2, 2, about_z(30));
        floor_quad(x, -20, -20, 20, 20, -1);
        scene_build(x);
    }
}

/* Client side: poses set from outside give the same move as the server's. */
static void set_pose_gives_same_move(void **state)
{
    (void)state;
    scene s, c;
    two_lifts(&s, &c, 0.0);
    for (int t = 0; t < 23; t++)
        tick(&s, NULL, 0, NULL);
    sweep_mover_pose p;
    sweep_movers_get(s.mv, 0, &p, NULL);
    assert_int_equal(sweep_movers_set_pose(c.mv, 0, &p), SWEEP_OK);
    sweep_mover_pose bad = p;
    bad.position.x = NAN;
    assert_int_equal(sweep_movers_set_pose(c.mv, 0, &bad), SWEEP_E_NONFINITE);
    assert_int_equal(sweep_movers_set_pose(c.mv, 3, &p), SWEEP_E_ARG);
    sweep_move_input in = {sweep_v3(0.5, 0.3, 3.5), RADII, sweep_v3(1, 0.5, -6), DT, 0};
    sweep_move_result rs, rc;
    for (int i = 0; i < 40; i++) {
        assert_int_equal(sweep_move_among(s.w, s.mv, &s.cfg, &in, &rs), SWEEP_OK);
        assert_int_equal(sweep_move_among(c.w, c.mv, &c.cfg, &in, &rc), SWEEP_OK);
        assert_memory_equal(&rs, &rc, sizeof rs);
        in.position = rs.position;
        in.flags = (rs.flags & SWEEP_MOVED_GROUNDED) ? SWEEP_INPUT_GROUNDED : 0;
    }
    assert_int_equal(rs.ground_mover, 0);
    assert_int_equal(sweep_movers_of_triangle(s.mv, rs.ground_triangle), 0);
    assert_true(rs.ground_triangle >= 2); /* numbered after the two static triangles */
    scene_free(&s);
    scene_free(&c);
}

/* Client side: a copy put at another set's pose and state at some tick
 * (sweep_movers_set_pose, _set_state) and then ticked on its own gives
 * the same poses, states and carried rider, bit for bit, through waits and
 * turns; states the machine cannot reach are refused. */
static void set_state_runs_on_as_the_original(void **state)
{
    (void)state;
    scene s, c;
    two_lifts(&s, &c, 0.25);
    assert_true(sweep_movers_tick_rate(c.mv) == sweep_movers_tick_rate(s.mv));
    for (int t = 0; t < 37; t++)
        tick(&s, NULL, 0, NULL);
    sweep_mover_pose p;
    sweep_mover_state st;
    sweep_movers_get(s.mv, 0, &p, &st);
    sweep_mover_state bad = st;
    bad.dir = 2;
    assert_int_equal(sweep_movers_set_state(c.mv, 0, &bad), SWEEP_E_ARG);
    assert_false(sweep_movers_state_valid(c.mv, 0, &bad));
    assert_true(sweep_movers_state_valid(c.mv, 0, &st));
    bad = st;
    bad.path_tick = sweep_movers_path_ticks(c.mv, 0) + 1;
    assert_int_equal(sweep_movers_set_state(c.mv, 0, &bad), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_state(c.mv, 1, &st), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_pose(c.mv, 0, &p), SWEEP_OK);
    assert_int_equal(sweep_movers_set_state(c.mv, 0, &st), SWEEP_OK);
    /* A rider on each, carried by their own ticks. */
    walker ws = {0}, wc = {0};
    ws.b.position = sweep_v3_add(sweep_quat_rotate(p.rotation, sweep_v3(0.2, -0.1, 0.9 + 0.01)), p.position);
    ws.b.radii = RADII;
    ws.b.ground_mover = 0;
    ws.b.touch_mover = SWEEP_NO_MOVER;
    wc = ws;
    int carried = 0;
    for (int t = 0; t < 200; t++) {
        tick(&s, &ws, 1, NULL);
        tick(&c, &wc, 1, NULL);
        sweep_mover_pose ps, pc;
        sweep_mover_state ss, sc;
        sweep_movers_get(s.mv, 0, &ps, &ss);
        sweep_movers_get(c.mv, 0, &pc, &sc);
        assert_memory_equal(&ps, &pc, sizeof ps);
        assert_memory_equal(&ss, &sc, sizeof ss);
        assert_memory_equal(&ws.b, &wc.b, sizeof ws.b);
        carried += (ws.b.flags & SWEEP_BODY_CARRIED) != 0;
    }
    assert_true(carried > 100); /* it rode, waits apart */
    scene_free(&s);
    scene_free(&c);
}

/* A pose without rotation places a mover's points by its position alone
 * (mover.c), which must give the bits of the whole formula
 * (sweep__pose_apply) for every point, zeros of either sign among the
 * coordinates and the position included: there the sum is a zero whose
 * sign the formula's own zeros decide. */
static void a_translation_places_points_as_the_whole_formula(void **state)
{
    (void)state;
    static const double coord[] = {0.0, -0.0, 1.5, -2.25, 3.0, 1e-300, -1e-300};
    static const double at[] = {0.0, -0.0, 3.0, -1.5, 2.25};
    const size_t nc = sizeof coord / sizeof coord[0], na = sizeof at / sizeof at[0];
    enum { TRIS = 7 * 7 * 7 };
    static sweep__tri local[TRIS], out[TRIS];
    for (size_t i = 0; i < TRIS; i++) {
        sweep_vec3 p = sweep_v3(coord[i % nc], coord[i / nc % nc], coord[i / (nc * nc) % nc]);
        local[i].a = p;
        local[i].b = sweep_v3(p.y, p.z, p.x);
        local[i].c = sweep_v3(p.z, p.x, p.y);
        local[i].index = (uint32_t)i;
    }
    sweep__mover m;
    memset(&m, 0, sizeof m);
    m.local = local, m.tri_count = TRIS;
    const sweep_quat ids[2] = {{0.0, 0.0, 0.0, 1.0}, {-0.0, 0.0, -0.0, 1.0}};
    unsigned zeros = 0;
    for (size_t q = 0; q < 2; q++)
        for (size_t k = 0; k < na * na * na; k++) {
            sweep_mover_pose pose = {sweep_v3(at[k % na], at[k / na % na], at[k / (na * na)]), ids[q]};
            sweep_vec3 lo, hi;
            sweep__mover_place(&m, &pose, out, &lo, &hi);
            for (size_t i = 0; i < TRIS; i++) {
                const sweep_vec3 want[3] = {sweep__pose_apply(&pose, local[i].a), sweep__pose_apply(&pose, local[i].b),
                                            sweep__pose_apply(&pose, local[i].c)};
                assert_memory_equal(&out[i].a, &want[0], sizeof want[0]);
                assert_memory_equal(&out[i].b, &want[1], sizeof want[1]);
                assert_memory_equal(&out[i].c, &want[2], sizeof want[2]);
                zeros += want[0].x == 0.0;
            }
        }
    assert_true(zeros > 100); /* the signs of zero were tried */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(description_errors_are_named),
        cmocka_unit_test(pingpong_path_and_waits),
        cmocka_unit_test(loop_and_once),
        cmocka_unit_test(triggers_fire),
        cmocka_unit_test(lift_ride_thousand_cycles),
        cmocka_unit_test(rotating_platform_carries),
        cmocka_unit_test(door_pushes_idle_player),
        cmocka_unit_test(door_blocked_rules),
        cmocka_unit_test(the_coordinate_limit_blocks_a_mover),
        cmocka_unit_test(fast_mover_is_caught),
        cmocka_unit_test(walk_onto_and_off_platform),
        cmocka_unit_test(swinging_door_sweeps_player),
        cmocka_unit_test(hinged_movers_keep_tall_bodies_out),
        cmocka_unit_test(hinged_flap_blocked_rules),
        cmocka_unit_test(random_movers_never_overlap),
        cmocka_unit_test(same_session_same_hashes),
        cmocka_unit_test(set_pose_gives_same_move),
        cmocka_unit_test(set_state_runs_on_as_the_original),
        cmocka_unit_test(a_translation_places_points_as_the_whole_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
