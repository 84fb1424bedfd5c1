/*
 * test_volume.c - volumes in the movement rules (core/volume.h): a pad
 * launches with its velocity to the bit and the flight reaches the height
 * the launch speed says; a teleporter moves a body to its destination
 * when it fits there and not when it does not; hurt adds damage by the
 * second, kill ends the move, a trigger is entered and left; a plane cuts
 * the box; a walk away from every volume gives the same bits as in a
 * world without any; the volumes' grid, and the test of a few volumes
 * four at a time, find what a look at every volume finds, to the bit at a
 * box's faces; what a move is told at its start of how far the volumes
 * lie is never more than they do, and a move told it acts to the bit as
 * one whose every step looks; volumes given again replace the old ones
 * whole; bad volumes are refused with a reason.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/motion.h"
#include "core/volume.h"
#include "core/volume_step.h"
#include "core/world_impl.h"
#include "maps/level.h"
#include "tests/core/scatter.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_space sp;
    sweep_config cfg;
    sweep_rules rules;
} scene;

/* A floor at z = 0 and a solid box (a pillar) at x in [20, 22]. */
static void scene_init(scene *s)
{
    sweep_level_init(&s->lv);
    sweep_config_default(&s->cfg);
    sweep_rules_default(&s->rules);
    s->rules.air_accel = 0.0; /* ballistic flights: the test's arithmetic */
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(-500, -500, 0), sweep_v3(500, -500, 0),
                                          sweep_v3(500, 500, 0), sweep_v3(-500, 500, 0), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(20, -1, 0), sweep_v3(22, 1, 4), 1, 0), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
    sweep_space sp = {s->w, NULL, NULL, SWEEP_NO_BODY};
    s->sp = sp;
}

static void scene_free(scene *s)
{
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
}

static sweep_volume box_volume(sweep_volume_kind kind, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = kind;
    v.lo = lo;
    v.hi = hi;
    v.facing = sweep_v3(1, 0, 0);
    v.damage = 1.0;
    return v;
}

static void set(scene *s, const sweep_volume *v, uint32_t n)
{
    const char *why = NULL;
    uint32_t bad = 0;
    sweep_status st = sweep_world_set_volumes(s->w, v, n, s->cfg.max_speed, s->cfg.max_coordinate, &bad, &why);
    if (st != SWEEP_OK)
        fail_msg("volume %u refused: %s", bad, why);
}

static sweep_actor standing(double x, double y)
{
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(x, y, 0.9005);
    a.grounded = 1;
    return a;
}

static sweep_act_result act(scene *s, sweep_actor *a, sweep_vec3 wish, double dt)
{
    sweep_wish w = {wish, 0};
    sweep_act_result r;
    sweep_status st = sweep_act(&s->sp, &s->cfg, &s->rules, RADII, a, &w, dt, &r);
    if (st != SWEEP_OK)
        fail_msg("sweep_act: %s", sweep_status_name(st));
    return r;
}

static int same(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void pad_launches_to_the_height_of_its_speed(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_volume pad = box_volume(SWEEP_VOLUME_PUSH, sweep_v3(-1, -1, 0), sweep_v3(1, 1, 1.5));
    pad.velocity = sweep_v3(3, 0, 12);
    set(&s, &pad, 1);
    sweep_actor a = standing(0, 0);
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED);
    assert_int_equal(r.volumes.launched_by, 0);
    assert_true(same(a.velocity, pad.velocity));
    assert_int_equal(a.grounded, 0);
    /* Fly until the top: v^2 / 2g above the last launch (a pad sets the
     * velocity on every step the body is still in it), within what one
     * step of the semi-implicit integration rises (v * dt). */
    double z0 = a.position.z, x0 = a.position.x, top = z0, g = 9.81;
    int launches = 1;
    for (int i = 0; i < 600 && !(a.grounded && i > 10); i++) {
        r = act(&s, &a, sweep_v3(0, 0, 0), DT);
        if (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) {
            launches++;
            z0 = a.position.z;
            x0 = a.position.x;
            assert_true(same(a.velocity, pad.velocity));
        }
        if (a.position.z > top)
            top = a.position.z;
    }
    double apex = 12.0 * 12.0 / (2 * g);
    assert_true(fabs((top - z0) - apex) <= 12.0 * DT);
    /* Ballistic (no air control): it lands 3 m/s * the flight time from
     * the last launch down to standing height, within two steps. */
    double flight = (12.0 + sqrt(144.0 + 2 * g * (z0 - 0.9005))) / g;
    assert_true(a.grounded);
    assert_true(fabs(a.position.x - (x0 + 3.0 * flight)) <= 3.0 * 2 * DT);
    /* Launched on each step until it rose out of the pad's 0.6 m. */
    assert_true(launches >= 2 && launches <= 4);
    scene_free(&s);
}

static void teleporter_moves_when_there_is_room(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_volume tp = box_volume(SWEEP_VOLUME_TELEPORT, sweep_v3(4, -1, 0), sweep_v3(6, 1, 2));
    tp.destination = sweep_v3(-30, 10, 0.9005);
    tp.facing = sweep_v3(0, 1, 0);
    tp.exit_speed = 4.0;
    set(&s, &tp, 1);
    sweep_actor a = standing(5, 0);
    a.velocity = sweep_v3(1, 0, 0);
    sweep_act_result r = act(&s, &a, sweep_v3(1, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORTED);
    assert_true(same(a.position, tp.destination));
    assert_true(same(a.velocity, sweep_v3(0, 4, 0)));
    assert_true(same(r.volumes.facing, tp.facing));

    /* Kept velocity. */
    tp.keep_velocity = 1;
    set(&s, &tp, 1);
    a = standing(5, 0);
    r = act(&s, &a, sweep_v3(1, 0, 0), DT);
    assert_true(same(a.position, tp.destination));
    assert_true(a.velocity.x > 0.0 && a.velocity.y == 0.0);

    /* Into the pillar: no room, the body stays where the step took it. */
    tp.destination = sweep_v3(19.8, 0, 2);
    set(&s, &tp, 1);
    a = standing(5, 0);
    r = act(&s, &a, sweep_v3(0, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORT_BLOCKED);
    assert_false(r.volumes.events & SWEEP_VOLUME_EV_TELEPORTED);
    assert_true(fabs(a.position.x - 5.0) < 1e-9);
    scene_free(&s);
}

/* A blocked teleporter leaves the body where it was, so the volumes after
 * it in index order act as they would without it: the same hurt, the same
 * kill, whichever comes first; and a later teleporter with room takes the
 * body. */
static void volumes_after_a_blocked_teleporter_act(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_volume tp = box_volume(SWEEP_VOLUME_TELEPORT, sweep_v3(4, -1, 0), sweep_v3(6, 1, 2));
    tp.destination = sweep_v3(19.8, 0, 2); /* in the pillar: no room */
    sweep_volume hurt = box_volume(SWEEP_VOLUME_HURT, sweep_v3(4, -1, 0), sweep_v3(6, 1, 2));
    hurt.damage = 50.0;
    double damage[2];
    for (int order = 0; order < 2; order++) {
        sweep_volume v[2] = {order ? hurt : tp, order ? tp : hurt};
        set(&s, v, 2);
        sweep_actor a = standing(5, 0);
        sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), DT);
        assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORT_BLOCKED);
        assert_true(r.volumes.events & SWEEP_VOLUME_EV_HURT);
        assert_int_equal(r.volumes.hurt_by, order ? 0 : 1);
        damage[order] = r.volumes.damage;
    }
    assert_true(damage[0] > 0.0 && damage[0] == damage[1]);

    sweep_volume kill = box_volume(SWEEP_VOLUME_KILL, sweep_v3(4, -1, 0), sweep_v3(6, 1, 2));
    sweep_volume v[2] = {tp, kill};
    set(&s, v, 2);
    sweep_actor a = standing(5, 0);
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_KILLED);
    assert_int_equal(r.volumes.killed_by, 1);

    sweep_volume open = tp;
    open.destination = sweep_v3(-30, 10, 0.9005);
    sweep_volume both[2] = {tp, open};
    set(&s, both, 2);
    a = standing(5, 0);
    r = act(&s, &a, sweep_v3(0, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORTED);
    assert_int_equal(r.volumes.teleported_by, 1);
    assert_true(same(a.position, open.destination));
    scene_free(&s);
}

/* A stance turned at a step's start moves the centre (the feet stay): a
 * trigger the turn takes the centre out of is left, and entered again
 * when it stands; a puddle the crouched feet reach is entered and left
 * the same way, as if the body had walked there. A trigger grown from a
 * brush under the floor is reached by neither shape: neither turn enters
 * or leaves it. */
/* n triggers far from everything, in a row: with the few volumes of a
 * test, more than a few quads hold, so the world lists them in a grid. */
static void far_triggers(sweep_volume *v, int n)
{
    for (int k = 0; k < n; k++)
        v[k] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(100 + 3 * k, 50, 0), sweep_v3(101 + 3 * k, 51, 2));
}

static void stance_turn(int far)
{
    scene s;
    scene_init(&s);
    s.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.5);
    s.rules.crouch_speed = 2.0;
    sweep_volume v[3 + 40];
    v[0] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(-1, -1, 0.8), sweep_v3(1, 1, 2));
    v[1] = box_volume(SWEEP_VOLUME_LIQUID, sweep_v3(-5, -5, -1), sweep_v3(5, 5, 0.04));
    v[1].liquid = SWEEP_LIQUID_WATER;
    v[1].damage = 0.0;
    v[2] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(-1, -1, -1), sweep_v3(1, 1, 0.6));
    far_triggers(v + 3, far);
    set(&s, v, 3 + (uint32_t)far);
    sweep_actor a = standing(0, 0);
    sweep_wish still = {{0, 0, 0}, 0}, crouch = {{0, 0, 0}, SWEEP_WISH_CROUCH};
    sweep_act_result r;
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &still, DT, &r), SWEEP_OK);
    assert_int_equal(r.volumes.events & (SWEEP_VOLUME_EV_ENTERED | SWEEP_VOLUME_EV_LEFT), 0);
    assert_int_equal(r.volumes.liquid_level, 0);
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &crouch, DT, &r), SWEEP_OK);
    assert_int_equal(a.stance, SWEEP_STANCE_CROUCH);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_LEFT);
    assert_int_equal(r.volumes.left, 0);
    assert_false(r.volumes.events & SWEEP_VOLUME_EV_ENTERED);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_LIQUID_ENTERED);
    assert_int_equal(r.volumes.liquid_entered, 1);
    assert_int_equal(r.volumes.liquid_level, 1);
    /* Held crouched: nothing new. */
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &crouch, DT, &r), SWEEP_OK);
    assert_int_equal(r.volumes.events & (SWEEP_VOLUME_EV_ENTERED | SWEEP_VOLUME_EV_LEFT |
                                         SWEEP_VOLUME_EV_LIQUID_ENTERED | SWEEP_VOLUME_EV_LIQUID_LEFT),
                     0);
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &still, DT, &r), SWEEP_OK);
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_ENTERED);
    assert_int_equal(r.volumes.entered, 0);
    assert_false(r.volumes.events & SWEEP_VOLUME_EV_LEFT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_LIQUID_LEFT);
    assert_int_equal(r.volumes.liquid_left, 1);
    assert_int_equal(r.volumes.liquid_level, 0);
    scene_free(&s);
}

static void a_stance_turn_enters_and_leaves(void **state)
{
    (void)state;
    stance_turn(0);
    stance_turn(40); /* more than a few quads: the volumes' grid */
}

/* Volumes are regions of the standing shape's centres (brushes grown by
 * its radii); a crouched body, its feet where they were, is in one when
 * its own shorter shape touches the brush: over a kill brush a little
 * under the floor it lives (its centre is lower than a standing one's,
 * which once put it 0.4 m into the grown region), under a hurting brush
 * above its head it is not hurt, and on a pad at its feet it is still
 * launched. */
static void crouched_touches(int far)
{
    scene s;
    scene_init(&s);
    s.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.5);
    s.rules.crouch_speed = 2.0;
    const double R = 0.9; /* the standing radius along up the volumes are grown by */
    sweep_volume v[3 + 40];
    /* A kill brush 0.2 below the floor's top, under x in [-1, 1]. */
    v[0] = box_volume(SWEEP_VOLUME_KILL, sweep_v3(-1 - 0.4, -1 - 0.4, -5 - R), sweep_v3(1 + 0.4, 1 + 0.4, -0.2 + R));
    /* A hurting brush 1.5 to 2 above the floor, over x in [4, 6]. */
    v[1] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(4 - 0.4, -1 - 0.4, 1.5 - R), sweep_v3(6 + 0.4, 1 + 0.4, 2 + R));
    v[1].damage = 10.0;
    /* A pad brush at the floor, its top 0.01 up, over x in [8, 10]. */
    v[2] = box_volume(SWEEP_VOLUME_PUSH, sweep_v3(8 - 0.4, -1 - 0.4, -0.1 - R), sweep_v3(10 + 0.4, 1 + 0.4, 0.01 + R));
    v[2].velocity = sweep_v3(0, 0, 3);
    far_triggers(v + 3, far);
    set(&s, v, 3 + (uint32_t)far);
    assert_int_equal(s.w->volume_quad_count == 0, far > 0);
    sweep_wish crouch = {{0, 0, 0}, SWEEP_WISH_CROUCH}, stand = {{0, 0, 0}, 0};
    const double xs[3] = {0, 5, 9};
    for (int k = 0; k < 3; k++) {
        uint32_t events[2];
        for (int crouched = 0; crouched < 2; crouched++) {
            sweep_actor a = standing(xs[k], 0);
            events[crouched] = 0;
            for (int i = 0; i < 3; i++) {
                sweep_act_result r;
                assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, crouched ? &crouch : &stand, DT, &r),
                                 SWEEP_OK);
                events[crouched] |= r.volumes.events;
                if (r.volumes.events & SWEEP_VOLUME_EV_KILLED)
                    break;
            }
            assert_int_equal(a.stance, crouched ? SWEEP_STANCE_CROUCH : SWEEP_STANCE_STAND);
        }
        if (k == 0) {
            assert_false(events[0] & SWEEP_VOLUME_EV_KILLED);
            assert_false(events[1] & SWEEP_VOLUME_EV_KILLED);
        } else if (k == 1) {
            assert_true(events[0] & SWEEP_VOLUME_EV_HURT);
            assert_false(events[1] & SWEEP_VOLUME_EV_HURT);
        } else {
            assert_true(events[0] & SWEEP_VOLUME_EV_LAUNCHED);
            assert_true(events[1] & SWEEP_VOLUME_EV_LAUNCHED);
        }
    }
    scene_free(&s);
}

static void a_crouched_body_touches_what_its_shape_touches(void **state)
{
    (void)state;
    crouched_touches(0);
    crouched_touches(40); /* more than a few quads: the volumes' grid */
}

/* A body sent by a teleporter into a trigger enters it on that step,
 * crouched as standing, and leaves it once it has fallen out of it: its
 * test points at the destination are its own. */
static void a_crouched_body_sent_into_a_trigger_enters_it(void **state)
{
    (void)state;
    for (int crouched = 0; crouched < 2; crouched++) {
        scene s;
        scene_init(&s);
        s.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.5);
        s.rules.crouch_speed = 2.0;
        sweep_volume v[2];
        v[0] = box_volume(SWEEP_VOLUME_TELEPORT, sweep_v3(4, -1, -1), sweep_v3(6, 1, 2));
        v[0].destination = sweep_v3(-30, 10, 3.0);
        v[0].keep_velocity = 1;
        v[1] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(-31, 9, 2.5), sweep_v3(-29, 11, 4.0));
        set(&s, v, 2);
        sweep_actor a = standing(2, 0);
        sweep_wish w = {{0, 0, 0}, crouched ? SWEEP_WISH_CROUCH : 0};
        sweep_act_result r;
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, &r), SWEEP_OK);
        assert_int_equal(a.stance, crouched ? SWEEP_STANCE_CROUCH : SWEEP_STANCE_STAND);
        a.position.x = 5; /* placed in the teleporter */
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, &r), SWEEP_OK);
        assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORTED);
        assert_true(r.volumes.events & SWEEP_VOLUME_EV_ENTERED);
        assert_int_equal(r.volumes.entered, 1);
        uint32_t ev = 0;
        for (int i = 0; i < 60; i++) {
            assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, &r), SWEEP_OK);
            ev |= r.volumes.events;
        }
        assert_false(ev & SWEEP_VOLUME_EV_ENTERED);
        assert_true(ev & SWEEP_VOLUME_EV_LEFT);
        scene_free(&s);
    }
}

static void hurt_kill_and_triggers(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_volume v[3];
    v[0] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(-1, -1, 0), sweep_v3(1, 1, 2));
    v[0].damage = 30.0;
    v[1] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(2, -1, 0), sweep_v3(3, 1, 2));
    v[2] = box_volume(SWEEP_VOLUME_KILL, sweep_v3(10, -1, 0), sweep_v3(11, 1, 2));
    set(&s, v, 3);
    sweep_actor a = standing(0, 0);
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), 0.1); /* 3 steps of 1/30 */
    assert_int_equal(r.steps, 3);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, 0);
    assert_true(fabs(r.volumes.damage - 3.0) < 1e-9);

    /* Entered, then left. */
    a = standing(1.95, 0);
    a.velocity = sweep_v3(5, 0, 0);
    r = act(&s, &a, sweep_v3(5, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_ENTERED);
    assert_int_equal(r.volumes.entered, 1);
    assert_false(r.volumes.events & SWEEP_VOLUME_EV_LEFT);
    int left = 0;
    for (int i = 0; i < 30 && !left; i++)
        left = (act(&s, &a, sweep_v3(5, 0, 0), DT).volumes.events & SWEEP_VOLUME_EV_LEFT) != 0;
    assert_true(left);

    /* A kill ends the move at the step that entered it. */
    a = standing(9.95, 0);
    a.velocity = sweep_v3(5, 0, 0);
    r = act(&s, &a, sweep_v3(5, 0, 0), 0.5);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_KILLED);
    assert_int_equal(r.volumes.killed_by, 2);
    assert_true(r.steps < 15);
    assert_true(a.position.x >= 10.0 && a.position.x < 10.5);
    scene_free(&s);
}

static void a_plane_cuts_the_box(void **state)
{
    (void)state;
    sweep_volume v = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(0, 0, 0), sweep_v3(2, 2, 2));
    assert_true(sweep_volume_contains(&v, sweep_v3(1.5, 1.5, 1)));
    assert_true(sweep_volume_contains(&v, sweep_v3(2, 2, 2))); /* a face is inside */
    v.plane_count = 1;
    v.planes[0].normal = sweep_v3(1, 1, 0); /* x + y <= 2: a wedge */
    v.planes[0].offset = 2.0;
    assert_false(sweep_volume_contains(&v, sweep_v3(1.5, 1.5, 1)));
    assert_true(sweep_volume_contains(&v, sweep_v3(0.5, 1.5, 1)));
}

/* Volumes given again replace the ones before: kinds, planes and damage
 * are the new set's (the world keeps its own compact copy of each, made
 * again), and a body standing where an old volume was meets nothing. */
static void volumes_given_again_replace_the_old(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    /* First: a hurt volume cut by three planes, and a trigger. */
    sweep_volume a[2];
    a[0] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(-1, -1, 0), sweep_v3(1, 1, 2));
    a[0].plane_count = 3;
    for (uint32_t k = 0; k < 3; k++) {
        a[0].planes[k].normal = sweep_v3(k == 0, k == 1, k == 2);
        a[0].planes[k].offset = 5.0; /* far outside the box: cuts nothing */
    }
    a[1] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(4, -1, 0), sweep_v3(5, 1, 2));
    set(&s, a, 2);
    sweep_actor p = standing(0.5, 0);
    sweep_act_result r = act(&s, &p, sweep_v3(0, 0, 0), DT);
    assert_int_equal(r.volumes.events, SWEEP_VOLUME_EV_HURT);
    assert_true(fabs(r.volumes.damage - 1.0 * DT) < 1e-12);
    /* Then: the trigger gone, a kill volume at 0 whose one plane
     * (x <= 0) leaves out where the body stands, and a hurt volume of
     * damage 7 where the trigger was. */
    sweep_volume b[2];
    b[0] = box_volume(SWEEP_VOLUME_KILL, sweep_v3(-1, -1, 0), sweep_v3(1, 1, 2));
    b[0].plane_count = 1;
    b[0].planes[0].normal = sweep_v3(1, 0, 0);
    b[0].planes[0].offset = 0.0;
    b[1] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(4, -1, 0), sweep_v3(5, 1, 2));
    b[1].damage = 7.0;
    set(&s, b, 2);
    assert_false(sweep_volume_contains(&b[0], p.position));
    r = act(&s, &p, sweep_v3(0, 0, 0), DT);
    assert_int_equal(r.volumes.events, 0);
    sweep_actor q = standing(-0.5, 0);
    r = act(&s, &q, sweep_v3(0, 0, 0), DT);
    assert_int_equal(r.volumes.events, SWEEP_VOLUME_EV_KILLED);
    assert_int_equal(r.volumes.killed_by, 0);
    sweep_actor t = standing(4.5, 0);
    r = act(&s, &t, sweep_v3(0, 0, 0), DT);
    assert_int_equal(r.volumes.events, SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, 1);
    assert_true(fabs(r.volumes.damage - 7.0 * DT) < 1e-12);
    /* And none: nothing acts anywhere. */
    set(&s, NULL, 0);
    r = act(&s, &t, sweep_v3(0, 0, 0), DT);
    assert_int_equal(r.volumes.events, 0);
    scene_free(&s);
}

/* Volumes change nothing of a walk that never enters one. */
static void a_walk_away_from_volumes_is_unchanged(void **state)
{
    (void)state;
    scene s, t;
    scene_init(&s);
    scene_init(&t);
    sweep_volume v[2];
    v[0] = box_volume(SWEEP_VOLUME_PUSH, sweep_v3(-50, -50, 0), sweep_v3(-49, -49, 2));
    v[0].velocity = sweep_v3(0, 0, 10);
    v[1] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(50, 50, 0), sweep_v3(51, 51, 2));
    set(&s, v, 2);
    sweep_actor a = standing(0, 0), b = standing(0, 0);
    for (int i = 0; i < 300; i++) {
        sweep_vec3 wish = sweep_v3(4.0 * (i % 7 < 4), 3.0 * (i % 5 < 2), 0);
        sweep_wish w = {wish, i % 50 == 0 ? SWEEP_WISH_JUMP : 0u};
        sweep_act_result ra, rb;
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, &ra), SWEEP_OK);
        assert_int_equal(sweep_act(&t.sp, &t.cfg, &t.rules, RADII, &b, &w, DT, &rb), SWEEP_OK);
        assert_memory_equal(&a, &b, sizeof a);
        assert_int_equal(ra.volumes.events, 0);
    }
    scene_free(&s);
    scene_free(&t);
}

/* The volumes' grid (columns, cut along z, each step looking at the
 * cells of its two ends) finds what a look at every volume in index
 * order finds: many small hurt and trigger volumes at several heights
 * and a large one under them all, walkers crossing cells on every axis
 * (jumping across the z cuts), each move one step, its damage (summed in
 * index order, to the bit), last hurting volume and entered and left
 * triggers against those of every volume. */
/* N random volumes (hurt volumes and triggers, a few kill and push
 * volumes, a third of them cut by a plane) over a square the size that
 * keeps about as many in a body's way whatever N is, and 8 bodies walking
 * across them: every step's damage, events, volumes and launch are those
 * a look at every volume in index order finds, the triggers after the
 * others and none on a step a kill ends. */
/* N such volumes in v; the half side of their square. */
static double scattered(sweep_volume *v, uint32_t N)
{
    double half = 30.0 * sqrt((double)N / 300.0);
    uint64_t x = 12345;
    for (uint32_t i = 0; i < N; i++) {
        double cx, cy, cz, r;
        scatter_next(&x, half, 0.0, 3.0, &cx, &cy, &cz, &r);
        sweep_volume_kind kind = i % 13 == 5   ? SWEEP_VOLUME_KILL
                                 : i % 13 == 8 ? SWEEP_VOLUME_PUSH
                                 : i % 3       ? SWEEP_VOLUME_HURT
                                               : SWEEP_VOLUME_TRIGGER;
        v[i] = box_volume(kind, sweep_v3(cx - r, cy - r, cz), sweep_v3(cx + r, cy + r, cz + 0.7 * r));
        v[i].damage = 1.0 + (double)(i % 7) * 0.37;
        v[i].velocity = sweep_v3(0.5 * cos((double)i), 0.5 * sin((double)i), 1.0);
        if (i % 3 == (i / 3) % 3) {
            /* x + y <= cx + cy: the half of the box towards -x, -y */
            v[i].plane_count = 1;
            v[i].planes[0].normal = sweep_v3(1, 1, 0);
            v[i].planes[0].offset = cx + cy;
        }
    }
    v[N - 1] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(-half - 10, -half - 10, -1), sweep_v3(half + 10, half + 10, 1.0));
    v[N - 1].damage = 0.5;
    return half;
}

static void every_volume_says(uint32_t N)
{
    scene s;
    scene_init(&s);
    static sweep_volume v[300];
    assert_true(N <= 300);
    const double half = scattered(v, N);
    set(&s, v, N);
    assert_int_equal(s.w->volume_quad_count != 0, N <= SWEEP__VOLUME_SCAN_MAX);
    sweep_actor a[8];
    for (int k = 0; k < 8; k++)
        a[k] = standing((-28.0 + 7.0 * k) * half / 30.0, (-25.0 + 3.0 * k) * half / 30.0);
    int hurts = 0, entries = 0, leaves = 0, kills = 0, launches = 0;
    for (int i = 0; i < 600; i++)
        for (int k = 0; k < 8; k++) {
            double t = 0.013 * i + k;
            sweep_wish w = {sweep_v3(8.0 * cos(t), 8.0 * sin(1.3 * t), 0), i % 40 == k ? SWEEP_WISH_JUMP : 0u};
            sweep_vec3 from = a[k].position;
            sweep_act_result r;
            assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a[k], &w, DT, &r), SWEEP_OK);
            assert_int_equal(r.steps, 1);
            sweep_vec3 to = a[k].position;
            double damage = 0.0;
            uint32_t events = 0, hurt_by = 0, entered = 0, left = 0, killed_by = 0, launched_by = 0;
            for (uint32_t j = 0; j < N && !(events & SWEEP_VOLUME_EV_KILLED); j++) {
                if (!sweep_volume_contains(&v[j], to))
                    continue;
                if (v[j].kind == SWEEP_VOLUME_HURT) {
                    damage += v[j].damage * DT;
                    events |= SWEEP_VOLUME_EV_HURT, hurt_by = j;
                } else if (v[j].kind == SWEEP_VOLUME_PUSH) {
                    events |= SWEEP_VOLUME_EV_LAUNCHED, launched_by = j;
                } else if (v[j].kind == SWEEP_VOLUME_KILL) {
                    events |= SWEEP_VOLUME_EV_KILLED, killed_by = j;
                }
            }
            for (uint32_t j = 0; j < N && !(events & SWEEP_VOLUME_EV_KILLED); j++) {
                int in = sweep_volume_contains(&v[j], to), was = sweep_volume_contains(&v[j], from);
                if (v[j].kind == SWEEP_VOLUME_TRIGGER && in && !was)
                    events |= SWEEP_VOLUME_EV_ENTERED, entered = j;
                else if (v[j].kind == SWEEP_VOLUME_TRIGGER && was && !in)
                    events |= SWEEP_VOLUME_EV_LEFT, left = j;
            }
            assert_int_equal(r.volumes.events, events);
            assert_memory_equal(&r.volumes.damage, &damage, sizeof damage);
            if (events & SWEEP_VOLUME_EV_HURT)
                assert_int_equal(r.volumes.hurt_by, hurt_by), hurts++;
            if (events & SWEEP_VOLUME_EV_KILLED)
                assert_int_equal(r.volumes.killed_by, killed_by), kills++;
            if (events & SWEEP_VOLUME_EV_LAUNCHED) {
                assert_int_equal(r.volumes.launched_by, launched_by), launches++;
                assert_memory_equal(&a[k].velocity, &v[launched_by].velocity, sizeof a[k].velocity);
                assert_int_equal(a[k].grounded, 0);
            }
            if (events & SWEEP_VOLUME_EV_ENTERED)
                assert_int_equal(r.volumes.entered, entered), entries++;
            if (events & SWEEP_VOLUME_EV_LEFT)
                assert_int_equal(r.volumes.left, left), leaves++;
        }
    /* The walk did meet them. */
    print_message("every_volume_says(%u): %d hurts, %d entries, %d leaves, %d kills, %d launches\n", N, hurts, entries,
                  leaves, kills, launches);
    assert_true(hurts > 100 && entries > 10 && leaves > 10 && kills > 5 && launches > 5);
    scene_free(&s);
}

/* Through the grid (300 volumes, and the fewest that take it), and
 * tested four at a time (SWEEP__VOLUME_SCAN_MAX and fewer, a quad not
 * full): the same answers as a look at every volume. */
static void the_grid_finds_what_every_volume_says(void **state)
{
    (void)state;
    every_volume_says(300);
    every_volume_says(SWEEP__VOLUME_SCAN_MAX + 1);
}

static void four_at_a_time_find_what_every_volume_says(void **state)
{
    (void)state;
    every_volume_says(SWEEP__VOLUME_SCAN_MAX);
    every_volume_says(23);
}

/* A volume's box's distance from p along the axis on which it is
 * farthest (below 0 inside), each axis's a subtraction as a step's end's
 * distance from p is. */
static double box_apart(const sweep_volume *v, sweep_vec3 p)
{
    const double d[6] = {v->lo.x - p.x, p.x - v->hi.x, v->lo.y - p.y, p.y - v->hi.y, v->lo.z - p.z, p.z - v->hi.z};
    double g = d[0];
    for (int k = 1; k < 6; k++)
        g = d[k] > g ? d[k] : g;
    return g;
}

/* What a move is told at its start (sweep__volume_clearance), when it is
 * told anything, is never more than the distance of any volume that acts
 * after a step (from inside a trigger of a box alone, of its nearest
 * face), at places strewn over the volumes, round them and far beyond
 * the grid, through the grid and with the volumes in quads; and most
 * places are told something, some of them inside triggers, so that their
 * steps do not look. */
static void a_place_is_never_told_more_than_a_volumes_distance(void **state)
{
    (void)state;
    const uint32_t counts[] = {300, SWEEP__VOLUME_SCAN_MAX + 1, SWEEP__VOLUME_SCAN_MAX, 5};
    for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const uint32_t N = counts[c];
        scene s;
        scene_init(&s);
        static sweep_volume v[300];
        const double half = scattered(v, N);
        set(&s, v, N);
        assert_non_null(s.w->volume_clear.first);
        uint64_t x = 777;
        uint32_t told = 0, places = 20000, inside_trigger = 0;
        for (uint32_t k = 0; k < places; k++) {
            double px, py, pz, r;
            /* Over the volumes and their surroundings, and, one in ten, far beyond. */
            scatter_next(&x, k % 10 ? 1.5 * half : 50.0 * half, -3.0, k % 10 ? 12.0 : 400.0, &px, &py, &pz, &r);
            const sweep_vec3 p = sweep_v3(px + r, py - r, pz);
            const double clear = sweep__volume_clearance(s.w, p);
            for (uint32_t j = 0; j < N; j++) {
                /* A trigger of a box alone: as far as its nearest face, from either side. */
                const int across = v[j].kind == SWEEP_VOLUME_TRIGGER && v[j].plane_count == 0;
                const double apart = across ? fabs(box_apart(&v[j], p)) : box_apart(&v[j], p);
                if (v[j].kind != SWEEP_VOLUME_LIQUID && v[j].kind != SWEEP_VOLUME_LADDER && clear > 0.0 &&
                    !(clear <= apart))
                    fail_msg("%u volumes: place (%.17g, %.17g, %.17g) told %.17g, volume %u is %.17g away", N, p.x, p.y,
                             p.z, clear, j, apart);
                inside_trigger += across && clear > 0.0 && box_apart(&v[j], p) < 0.0;
            }
            told += clear > 0.0;
        }
        print_message("%u volumes: %u of %u places told a clearance (reach %g), %u of them inside a trigger\n", N, told,
                      places, s.w->volume_clear.reach, inside_trigger);
        assert_true(told > places / 4);
        assert_true(N < 30 || inside_trigger > 20);
        scene_free(&s);
    }
}

/* Moves of several steps (a tenth of a second, and launched by pads far
 * further) over a few and many volumes, with the clearance a move is told
 * and with none (every step looking, as before it): the same actor and
 * the same result, to the bit, move after move. */
static void a_move_told_its_clearance_acts_as_one_that_looks(void **state)
{
    (void)state;
    const uint32_t counts[] = {300, SWEEP__VOLUME_SCAN_MAX};
    for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const uint32_t N = counts[c];
        scene s;
        scene_init(&s);
        static sweep_volume v[300];
        const double half = scattered(v, N);
        /* Not the hurt volume under every place: a kill box in a corner. */
        v[N - 1] = box_volume(SWEEP_VOLUME_KILL, sweep_v3(half - 2, half - 2, -1), sweep_v3(half, half, 1));
        set(&s, v, N);
        const sweep__volume_clear kept = s.w->volume_clear;
        sweep_actor a[8], b[8];
        for (int k = 0; k < 8; k++)
            a[k] = b[k] = standing((-28.0 + 7.0 * k) * half / 30.0, (-25.0 + 3.0 * k) * half / 30.0);
        uint32_t events = 0, steps = 0, unlooked = 0;
        for (int i = 0; i < 400; i++)
            for (int k = 0; k < 8; k++) {
                /* Half of them slow enough that many moves stay within. */
                double t = 0.013 * i + k, speed = k % 2 ? 8.0 : 0.2;
                sweep_wish w = {sweep_v3(speed * cos(t), speed * sin(1.3 * t), 0), i % 40 == k ? SWEEP_WISH_JUMP : 0u};
                const double dt = i % 3 ? 0.1 : DT;
                sweep_act_result ra, rb;
                memset(&ra, 0xA5, sizeof ra);
                memset(&rb, 0xA5, sizeof rb);
                s.w->volume_clear = kept;
                const sweep_vec3 start = a[k].position;
                const double clear = sweep__volume_clearance(s.w, start);
                assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a[k], &w, dt, &ra), SWEEP_OK);
                /* A move that stayed within (its steps' ends lie on the
                 * way from start to where it ended, near enough). */
                unlooked += sweep__volume_near_start(a[k].position, a[k].position, start, clear);
                s.w->volume_clear.first = NULL; /* told nothing: every step looks */
                assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &b[k], &w, dt, &rb), SWEEP_OK);
                assert_memory_equal(&a[k], &b[k], sizeof a[k]);
                assert_memory_equal(&ra, &rb, sizeof ra);
                events += ra.volumes.events != 0;
                steps += ra.steps;
                /* Killed: both start again where they began. */
                if (ra.volumes.events & SWEEP_VOLUME_EV_KILLED)
                    a[k] = b[k] = standing((-28.0 + 7.0 * k) * half / 30.0, (-25.0 + 3.0 * k) * half / 30.0);
            }
        s.w->volume_clear = kept;
        print_message("%u volumes: %u moves with events, %u steps, %u that stayed within their clearance\n", N, events,
                      steps, unlooked);
        assert_true(events > 100 && steps > 3 * 3200 / 2 && unlooked > 400);
        scene_free(&s);
    }
}

/* Through the grid, a step in its last cell, which lists nothing and
 * after which nothing is listed (no liquids, no ladders): a step reads
 * its cell's first entry before it knows the list is empty, here the
 * entry the items end with (core/volume.c). Nothing acts there, and the
 * walk beside the row meets the row's volumes as a look at each says
 * (under AddressSanitizer, a read past the items fails it). */
static void the_grids_last_cell_may_be_empty(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    enum { N = SWEEP__VOLUME_SCAN_MAX + 8 };
    sweep_volume v[N];
    /* A row of hurt volumes along x near the origin, and two that stretch
     * the grid's box along y and z away from the row's far end: the
     * corner cell at the greatest x, y and z holds none of them. */
    for (uint32_t i = 0; i < N - 2; i++)
        v[i] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(i, 0, 0), sweep_v3(i + 0.5, 1, 1));
    v[N - 2] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(0, 20, 0), sweep_v3(1, 21, 1));
    v[N - 1] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(0, 0, 10), sweep_v3(1, 1, 11));
    set(&s, v, N);
    const sweep_world *w = s.w;
    assert_int_equal(w->volume_quad_count, 0);
    uint32_t cells = w->volume_grid * w->volume_grid * w->volume_grid_z;
    uint32_t slots = cells + w->volume_grid * w->volume_grid;
    assert_int_equal(w->volume_cell_first[cells - 1], w->volume_cell_first[slots]);
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(N - 3.5, 20.5, 10.5);
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), DT);
    assert_int_equal(r.volumes.events, 0);
    assert_true(a.position.z < 10.5 && a.position.z > 10.0);
    /* Along the row, inside its volumes' boxes of centres and between
     * them: hurt exactly where a volume holds the step's end. */
    sweep_actor b = standing(-2.0, 0.5);
    b.position.z = 0.5;
    int hurts = 0;
    for (int i = 0; i < 240; i++) {
        sweep_act_result q = act(&s, &b, sweep_v3(10, 0, 0), DT);
        uint32_t hurt = 0;
        for (uint32_t j = 0; j < N; j++)
            hurt |= sweep_volume_contains(&v[j], b.position);
        assert_int_equal((q.volumes.events & SWEEP_VOLUME_EV_HURT) != 0, hurt);
        hurts += (int)hurt;
    }
    assert_true(hurts > 20 && hurts < 220);
    scene_free(&s);
}

/* Through the grid, a step long enough to cross several cells is judged
 * by the volumes of the cells of its two ends (a volume acts only on a
 * step one of whose ends its box holds): it leaves the trigger it began
 * in, is hurt by the volume it ends in, and the volumes it flies over
 * between (none holding an end) do nothing. */
static void a_long_step_meets_the_volumes_at_both_ends(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.cfg.gravity = sweep_v3(0, 0, 0);
    s.rules.max_step = 1.0; /* one step a move, however long */
    enum { N = SWEEP__VOLUME_SCAN_MAX + 8 };
    sweep_volume v[N];
    /* A row of small hurt volumes along x at y = 20, under the flight. */
    for (uint32_t i = 0; i < N - 2; i++)
        v[i] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(2.0 * i, 19, 0), sweep_v3(2.0 * i + 1, 21, 30));
    v[N - 2] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(0, 0, 20), sweep_v3(4, 4, 24));
    v[N - 1] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(40, 0, 20), sweep_v3(44, 4, 24));
    v[N - 1].damage = 3.0;
    set(&s, v, N);
    assert_int_equal(s.w->volume_quad_count, 0);
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(2, 2, 22);
    a.velocity = sweep_v3(40, 0, 0);
    const sweep_vec3 from = a.position;
    s.rules.air_accel = 0.0;
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), 1.0);
    assert_int_equal(r.steps, 1);
    assert_true(sweep_volume_contains(&v[N - 2], from) && sweep_volume_contains(&v[N - 1], a.position));
    uint32_t cf, ct;
    sweep__volume_cells_of(s.w, from, a.position, &cf, &ct);
    const uint32_t g = s.w->volume_grid;
    assert_true(ct % g > cf % g + 1); /* cells apart along x, not neighbours */
    assert_int_equal(r.volumes.events, SWEEP_VOLUME_EV_LEFT | SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.left, N - 2);
    assert_int_equal(r.volumes.hurt_by, N - 1);
    assert_true(r.volumes.damage == 3.0 * 1.0);
    scene_free(&s);
}

/* Through the grid of a world with no liquid or ladder, whose acting
 * volumes' box is the grid's own, a step tests no box round them all
 * first (core/volume_step.h): one that starts and ends beyond every
 * volume reads an edge cell and is turned away by its volumes' own
 * tests, and one that ends in an edge volume from outside the grid's box
 * is hurt by it. */
static void a_step_beyond_the_grid_reads_its_edge_cells(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.cfg.gravity = sweep_v3(0, 0, 0);
    enum { N = SWEEP__VOLUME_SCAN_MAX + 8 };
    sweep_volume v[N];
    for (uint32_t i = 0; i < N; i++)
        v[i] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(2.0 * i, 0, 0), sweep_v3(2.0 * i + 1, 1, 1));
    set(&s, v, N);
    assert_int_equal(s.w->volume_quad_count, 0);
    assert_int_equal(s.w->volume_act_inner, 0);
    /* Above the last volume, beyond the grid's box in z and x: an edge
     * cell lists that volume, which holds neither end. */
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(2.0 * N + 5, 0.5, 40);
    sweep_act_result r = act(&s, &a, sweep_v3(-3, 0, 0), DT);
    assert_int_equal(r.volumes.events, 0);
    /* From beyond the grid's box along x into the last volume. */
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(2.0 * N - 0.5, 0.5, 0.95); /* above the floor by more than its 0.9 */
    a.velocity = sweep_v3(-60, 0, 0);
    s.rules.air_accel = 0.0;
    r = act(&s, &a, sweep_v3(0, 0, 0), DT);
    assert_true(sweep_volume_contains(&v[N - 1], a.position));
    assert_int_equal(r.volumes.events, SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, N - 1);
    scene_free(&s);
}

/* A box whose faces no float can hold, and steps that end inside it or
 * outside by less than a float's step there: the four-at-a-time test
 * compares floats, which may only let more boxes through, so each step
 * still gets the exact answer; with a grid's worth of volumes as well. */
static void a_box_is_tested_to_the_bit(void **state)
{
    (void)state;
    for (uint32_t count = 2; count <= SWEEP__VOLUME_SCAN_MAX + 1; count += SWEEP__VOLUME_SCAN_MAX - 1) {
        scene s;
        scene_init(&s);
        static sweep_volume v[SWEEP__VOLUME_SCAN_MAX + 1];
        const double lo = 100.0 + 1e-9; /* floats near 100 are 2^-17 apart */
        for (uint32_t i = 0; i < count; i++)
            v[i] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(-300.0 - i, -300, -1), sweep_v3(-299.0 - i, -299, 0));
        v[0] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(lo, -1, -1), sweep_v3(lo + 1.0, 1, 1));
        v[1] = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(lo, -1, -1), sweep_v3(lo + 1.0, 1, 1));
        set(&s, v, count);
        assert_int_equal(s.w->volume_quad_count != 0, count <= SWEEP__VOLUME_SCAN_MAX);
        const double ends[] = {lo, nextafter(lo, 200.0), nextafter(lo, 0.0), lo - 1e-12, 100.0};
        for (unsigned e = 0; e < sizeof ends / sizeof ends[0]; e++) {
            sweep_actor a;
            memset(&a, 0, sizeof a);
            a.position = sweep_v3(ends[e], 0, 0);
            sweep_volume_report rep;
            memset(&rep, 0, sizeof rep);
            const sweep_vec3 from = sweep_v3(99.0, 0, 0);
            assert_int_equal(sweep__volumes_after_step(&s.sp, &s.cfg, RADII, from, &a, DT, &rep, from, 0.0), 0);
            int inside = ends[e] >= lo;
            assert_int_equal((rep.events & SWEEP_VOLUME_EV_HURT) != 0, inside);
            assert_int_equal((rep.events & SWEEP_VOLUME_EV_ENTERED) != 0, inside);
            /* and from inside to those ends: left where outside */
            memset(&rep, 0, sizeof rep);
            a.position = sweep_v3(ends[e], 0, 0);
            assert_int_equal(sweep__volumes_after_step(&s.sp, &s.cfg, RADII, sweep_v3(lo + 0.5, 0, 0), &a, DT, &rep,
                                                       sweep_v3(lo + 0.5, 0, 0), 0.0),
                             0);
            assert_int_equal((rep.events & SWEEP_VOLUME_EV_LEFT) != 0, !inside);
        }
        scene_free(&s);
    }
}

/* Volumes as tall as the level, many of them: the grid is not cut along
 * z (that would list each in every cell of its columns), no move is told
 * how far they lie (those lists would be as large), and the step still
 * finds them all. */
static void tall_volumes_are_not_cut_along_z(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    enum { N = 4096 };
    static sweep_volume v[N];
    for (int i = 0; i < N; i++) {
        v[i] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(-60 + i % 5, -60, -10), sweep_v3(60, 60 - i % 3, 10 + i % 7));
        v[i].damage = 1.0;
    }
    set(&s, v, N);
    assert_int_equal(s.w->volume_grid_z, 1);
    /* Nor does a move learn how far they lie: those lists would be as
     * large as the grid's, and every start is in them. */
    assert_null(s.w->volume_clear.first);
    /* Fewer of them cost the cut little: it is kept. */
    set(&s, v, 64);
    assert_int_equal(s.w->volume_grid_z, 8);
    assert_non_null(s.w->volume_clear.first);
    set(&s, v, N);
    sweep_actor a = standing(0, 0);
    sweep_act_result r = act(&s, &a, sweep_v3(1, 0, 0), DT);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, N - 1);
    double damage = 0.0;
    for (int i = 0; i < N; i++)
        damage += v[i].damage * DT;
    assert_memory_equal(&r.volumes.damage, &damage, sizeof damage);
    scene_free(&s);
}

/* A start whose cell lists more volumes than a move measures
 * (SWEEP__VOLUME_CLEAR_LIST_MAX: a hundred on one spot) is told nothing,
 * and its steps look; one in a cell of few is told their distance. */
static void a_crowded_cell_is_not_measured(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    enum { N = 101 };
    sweep_volume v[N];
    for (uint32_t i = 0; i < N - 1; i++)
        v[i] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(0, 0, 0), sweep_v3(1, 1, 1));
    v[N - 1] = box_volume(SWEEP_VOLUME_HURT, sweep_v3(99, 99, 9), sweep_v3(100, 100, 10));
    set(&s, v, N);
    assert_non_null(s.w->volume_clear.first);
    assert_true(sweep__volume_clearance(s.w, sweep_v3(1.5, 0.5, 0.5)) == 0.0);
    const double far = sweep__volume_clearance(s.w, sweep_v3(99.5, 99.5, 8.5));
    assert_true(far > 0.0 && far <= 0.5);
    /* Walking in from there, hurt by all hundred on the step that enters. */
    sweep_actor a = standing(1.5, 0.5);
    sweep_act_result r;
    int moves = 0;
    do
        r = act(&s, &a, sweep_v3(-4, 0, 0), DT);
    while (!r.volumes.events && ++moves < 60);
    assert_int_equal(r.volumes.events, SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, N - 2);
    double damage = 0.0;
    for (int i = 0; i < N - 1; i++)
        damage += v[i].damage * DT;
    assert_memory_equal(&r.volumes.damage, &damage, sizeof damage);
    scene_free(&s);
}

static void bad_volumes_are_refused(void **state)
{
    (void)state;
    sweep_config cfg;
    sweep_config_default(&cfg);
    const char *why = NULL;
    sweep_volume v = box_volume(SWEEP_VOLUME_TELEPORT, sweep_v3(0, 0, 0), sweep_v3(1, 1, 1));
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_OK);
    v.facing = sweep_v3(1, 1, 0);
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    assert_string_equal(why, "facing is not a unit vector");
    v = box_volume(SWEEP_VOLUME_PUSH, sweep_v3(0, 0, 0), sweep_v3(1, 1, 1));
    v.velocity = sweep_v3(0, 0, 2 * cfg.max_speed);
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_VELOCITY);
    v = box_volume(SWEEP_VOLUME_HURT, sweep_v3(2, 0, 0), sweep_v3(1, 1, 1));
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    v = box_volume(SWEEP_VOLUME_HURT, sweep_v3(0, 0, 0), sweep_v3(1, 1, NAN));
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_NONFINITE);
    v = box_volume(SWEEP_VOLUME_HURT, sweep_v3(0, 0, 0), sweep_v3(1, 1, 1));
    v.damage = 0.0;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    /* Damage is bounded, so that a move's sum of it stays finite: at the
     * bound, a hurt volume and a liquid pass; an ulp over, neither. */
    v.damage = SWEEP_VOLUME_MAX_DAMAGE;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_OK);
    v.damage = nextafter(SWEEP_VOLUME_MAX_DAMAGE, INFINITY);
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    assert_string_equal(why, "damage per second is above 1e6 (a kill volume ends a player whatever its health)");
    v.damage = 1e308;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    v.kind = SWEEP_VOLUME_LIQUID;
    v.liquid = SWEEP_LIQUID_LAVA;
    v.damage = SWEEP_VOLUME_MAX_DAMAGE;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_OK);
    v.damage = 1e308;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    assert_string_equal(why, "damage per second is above 1e6");
    v = box_volume(SWEEP_VOLUME_TRIGGER, sweep_v3(0, 0, 0), sweep_v3(1, 1, 1));
    v.plane_count = 1;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    assert_string_equal(why, "a plane's normal is zero");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pad_launches_to_the_height_of_its_speed),
        cmocka_unit_test(teleporter_moves_when_there_is_room),
        cmocka_unit_test(volumes_after_a_blocked_teleporter_act),
        cmocka_unit_test(a_stance_turn_enters_and_leaves),
        cmocka_unit_test(a_crouched_body_touches_what_its_shape_touches),
        cmocka_unit_test(a_crouched_body_sent_into_a_trigger_enters_it),
        cmocka_unit_test(hurt_kill_and_triggers),
        cmocka_unit_test(a_plane_cuts_the_box),
        cmocka_unit_test(a_walk_away_from_volumes_is_unchanged),
        cmocka_unit_test(volumes_given_again_replace_the_old),
        cmocka_unit_test(the_grid_finds_what_every_volume_says),
        cmocka_unit_test(four_at_a_time_find_what_every_volume_says),
        cmocka_unit_test(a_box_is_tested_to_the_bit),
        cmocka_unit_test(tall_volumes_are_not_cut_along_z),
        cmocka_unit_test(the_grids_last_cell_may_be_empty),
        cmocka_unit_test(a_long_step_meets_the_volumes_at_both_ends),
        cmocka_unit_test(a_step_beyond_the_grid_reads_its_edge_cells),
        cmocka_unit_test(a_place_is_never_told_more_than_a_volumes_distance),
        cmocka_unit_test(a_move_told_its_clearance_acts_as_one_that_looks),
        cmocka_unit_test(a_crowded_cell_is_not_measured),
        cmocka_unit_test(bad_volumes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
