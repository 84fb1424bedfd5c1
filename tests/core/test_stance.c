/*
 * test_stance.c - crouching (core/stance.h): a player crouches with its
 * feet where they were, walks under a ceiling too low to stand under,
 * cannot stand up there (the move says so) and stands up by itself once
 * clear; crouched it is held to the crouch speed, and Speed is named
 * against the speed of the stance it asked for; a stance turns on every
 * step, so one long move is two short ones to the bit; a map without
 * crouching ignores the button; the rules' crouch values are checked.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/motion.h"
#include "core/stance.h"
#include "maps/level.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};
static const sweep_vec3 CROUCH = {0.4, 0.4, 0.5};

/* A floor, and a slab from x = 4 to 8 whose underside is 1.4 above it:
 * a standing player (1.8 tall) meets its side, a crouched one (1.0 tall)
 * walks under it. */
#define SLAB_X0 4.0
#define SLAB_X1 8.0
#define SLAB_Z 1.4

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_space sp;
    sweep_config cfg;
    sweep_rules rules;
} scene;

static void scene_init(scene *s, int crouching)
{
    sweep_level_init(&s->lv);
    sweep_config_default(&s->cfg);
    sweep_rules_default(&s->rules);
    if (crouching) {
        s->rules.crouch_radii = CROUCH;
        s->rules.crouch_speed = 2.0;
    }
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(-500, -500, 0), sweep_v3(500, -500, 0),
                                          sweep_v3(500, 500, 0), sweep_v3(-500, 500, 0), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(SLAB_X0, -50, SLAB_Z), sweep_v3(SLAB_X1, 50, 3.0), 1, 1),
                     SWEEP_OK);
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

/* At rest on the floor at x, standing, after a few moves to settle. */
static sweep_actor settled(scene *s, double x);

static sweep_act_result act(scene *s, sweep_actor *a, sweep_vec3 wish, uint32_t buttons, double dt)
{
    sweep_wish w = {wish, buttons};
    sweep_act_result r;
    sweep_status st = sweep_act(&s->sp, &s->cfg, &s->rules, RADII, a, &w, dt, &r);
    if (st != SWEEP_OK)
        fail_msg("sweep_act: %s", sweep_status_name(st));
    return r;
}

static sweep_actor settled(scene *s, double x)
{
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(x, 0, 0.9005);
    for (int i = 0; i < 10; i++)
        act(s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(a.grounded);
    return a;
}

/* The lowest point of the actor's shape. */
static double feet(const scene *s, const sweep_actor *a)
{
    return a->position.z - sweep_stance_radii(&s->rules, RADII, a->stance).z;
}

static double horizontal(sweep_vec3 v)
{
    return sqrt(v.x * v.x + v.y * v.y);
}

static void crouching_keeps_the_feet(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor a = settled(&s, 0);
    double before = feet(&s, &a);
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), SWEEP_WISH_CROUCH, DT);
    assert_int_equal(a.stance, SWEEP_STANCE_CROUCH);
    assert_int_equal(r.stance_blocked, 0);
    assert_true(a.grounded);
    /* The centre dropped by the difference of the vertical radii; the
     * feet stay on the floor (within what the floor's contact keeps). */
    assert_true(fabs(feet(&s, &a) - before) < 1e-9);
    assert_true(fabs(a.position.z - (before + CROUCH.z)) < 1e-9);
    /* Released in the open: it stands again, feet where they were. */
    r = act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);
    assert_int_equal(r.stance_blocked, 0);
    assert_true(fabs(feet(&s, &a) - before) < 1e-9);
    scene_free(&s);
}

/* The test the issue asks for: crouch under a low ceiling, cannot stand
 * until clear. */
static void cannot_stand_under_a_low_ceiling_until_clear(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    /* Standing, the slab's side stops the player. */
    sweep_actor a = settled(&s, 0);
    for (int i = 0; i < 240; i++)
        act(&s, &a, sweep_v3(5, 0, 0), 0, DT);
    if (!(a.position.x < SLAB_X0 - 0.3))
        fail_msg("standing got to (%g, %g, %g)", a.position.x, a.position.y, a.position.z);
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);

    /* Crouched, it walks under it. */
    for (int i = 0; i < 120 && a.position.x < SLAB_X0 + 1.0; i++)
        act(&s, &a, sweep_v3(2, 0, 0), SWEEP_WISH_CROUCH, DT);
    assert_true(a.position.x > SLAB_X0 + 1.0);
    assert_int_equal(a.stance, SWEEP_STANCE_CROUCH);

    /* Released under the slab: no room to stand, said on every move; it
     * stays crouched and walks on at the crouch speed, not named for the
     * walk speed it asks (its own stance's). */
    int moves = 0;
    sweep_act_result r;
    do {
        r = act(&s, &a, sweep_v3(5, 0, 0), 0, DT);
        if (a.position.x + RADII.x < SLAB_X1 - 1e-3) {
            assert_int_equal(a.stance, SWEEP_STANCE_CROUCH);
            assert_int_equal(r.stance_blocked, 1);
            assert_true(horizontal(a.velocity) <= 2.0 + 1e-12);
            assert_int_equal(r.rules & SWEEP_RULE_SPEED, 0);
        }
        moves++;
    } while (a.stance == SWEEP_STANCE_CROUCH && moves < 600);
    /* Clear of the slab, it stood up by itself, feet on the floor. */
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);
    assert_int_equal(r.stance_blocked, 0);
    assert_true(a.position.x + RADII.x >= SLAB_X1 - 1e-3);
    assert_true(fabs(feet(&s, &a)) < 0.01);
    assert_true(a.position.z + RADII.z > SLAB_Z); /* its full height, taller than the gap */
    /* And walks at the walk speed again. */
    for (int i = 0; i < 30; i++)
        act(&s, &a, sweep_v3(5, 0, 0), 0, DT);
    assert_true(fabs(horizontal(a.velocity) - 5.0) < 1e-9);
    scene_free(&s);
}

static void crouched_speed_is_clamped_and_named(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor a = settled(&s, -20);
    sweep_act_result r;
    for (int i = 0; i < 60; i++)
        r = act(&s, &a, sweep_v3(0, 5, 0), SWEEP_WISH_CROUCH, DT);
    assert_true(r.rules & SWEEP_RULE_SPEED);
    assert_true(fabs(r.speed_excess - 3.0) < 1e-12);
    assert_true(fabs(horizontal(a.velocity) - 2.0) < 1e-12);
    /* At the crouch speed: nothing named. */
    for (int i = 0; i < 10; i++)
        r = act(&s, &a, sweep_v3(0, 2, 0), SWEEP_WISH_CROUCH, DT);
    assert_int_equal(r.rules, 0);
    assert_true(r.speed_excess == 0.0);
    scene_free(&s);
}

/* A stance turns at each step: a move of two steps is two moves of one,
 * to the bit, through a crouch, under the slab and out. */
static void a_long_move_is_its_steps(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor one = settled(&s, 2.5), two = one;
    double h = s.rules.max_step;
    for (int i = 0; i < 150; i++) {
        uint32_t b = i < 40 ? SWEEP_WISH_CROUCH : 0;
        act(&s, &one, sweep_v3(3, 0, 0), b, 2.0 * h);
        act(&s, &two, sweep_v3(3, 0, 0), b, h);
        act(&s, &two, sweep_v3(3, 0, 0), b, h);
        if (memcmp(&one, &two, sizeof one) != 0)
            fail_msg("move %d: a move of two steps differs from two moves", i);
    }
    assert_int_equal(one.stance, SWEEP_STANCE_STAND);
    assert_true(one.position.x > SLAB_X1);
    scene_free(&s);
}

static void a_map_without_crouching_ignores_the_button(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 0);
    sweep_actor a = settled(&s, 0), b = a;
    for (int i = 0; i < 30; i++) {
        sweep_act_result r = act(&s, &a, sweep_v3(5, 0, 0), SWEEP_WISH_CROUCH, DT);
        act(&s, &b, sweep_v3(5, 0, 0), 0, DT);
        assert_int_equal(r.stance_blocked, 0);
    }
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);
    assert_memory_equal(&a, &b, sizeof a);
    /* A crouched actor cannot exist there: refused, nothing changed. */
    a.stance = SWEEP_STANCE_CROUCH;
    sweep_actor keep = a;
    sweep_wish w = {sweep_v3(0, 0, 0), 0};
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_ARG);
    assert_memory_equal(&a, &keep, sizeof a);
    a.stance = 7;
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_ARG);
    scene_free(&s);
}

static void crouch_rules_are_checked(void **state)
{
    (void)state;
    sweep_rules r;
    sweep_rules_default(&r);
    assert_int_equal(sweep_rules_check(&r), SWEEP_OK);
    r.crouch_speed = 2.0;
    assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG); /* a speed without a shape */
    r.crouch_radii = CROUCH;
    assert_int_equal(sweep_rules_check(&r), SWEEP_OK);
    r.crouch_speed = r.walk_speed * 2.0;
    assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG); /* faster than walking */
    r.crouch_speed = -1.0;
    assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG);
    r.crouch_speed = 0.0;
    assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG); /* a shape without a speed */
    r.crouch_radii = sweep_v3(0, 0, 0);
    assert_int_equal(sweep_rules_check(&r), SWEEP_OK);
    r.crouch_speed = 1.0;
    r.crouch_radii = sweep_v3(0.4, NAN, 0.5);
    assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG);

    /* A shape the config's radius limits refuse is refused by every move
     * on the map, crouched or not. */
    scene s;
    scene_init(&s, 1);
    s.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.001);
    sweep_wish w = {sweep_v3(0, 0, 0), 0};
    sweep_actor b;
    memset(&b, 0, sizeof b);
    b.position = sweep_v3(0, 0, 1);
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &b, &w, DT, NULL), SWEEP_E_CONFIG);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crouching_keeps_the_feet),
        cmocka_unit_test(cannot_stand_under_a_low_ceiling_until_clear),
        cmocka_unit_test(crouched_speed_is_clamped_and_named),
        cmocka_unit_test(a_long_move_is_its_steps),
        cmocka_unit_test(a_map_without_crouching_ignores_the_button),
        cmocka_unit_test(crouch_rules_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
