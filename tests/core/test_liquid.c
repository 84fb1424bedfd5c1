/*
 * test_liquid.c - liquids and ladders in the movement rules (core/volume.h,
 * core/motion.h): a body walks off a pool's side, swims across it and
 * jumps out onto the far side; one climbs a ladder to the top of its wall
 * and walks off onto it; depth levels follow the three sampled points; a
 * swimmer with no wish sinks (or rises, with a negative sink); lava hurts
 * by depth; a walk outside every liquid and ladder gives the same bits as
 * in a world without them; the medium found through the grid is the one
 * a look at every liquid and ladder finds; the probe a thread keeps is
 * the one asked for, and bodies of two shapes moved in turn move as each
 * does alone; bad liquids,
 * ladders and rules are refused,
 * bad swimming rules by a move that swims.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/medium.h"
#include "core/motion.h"
#include "core/volume.h"
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

/*
 * The deck at z = 0 on both sides of a pool (x in [10, 20], its bottom at
 * z = -2, water up to z = -0.2), and a wall (x in [30, 40], 4 high) with
 * a ladder on its face at x = 30.
 */
enum { WATER, LADDER, VOLUMES };

static void scene_init(scene *s, int with_volumes)
{
    sweep_level_init(&s->lv);
    sweep_config_default(&s->cfg);
    sweep_rules_default(&s->rules);
    assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(-50, -50, -3), sweep_v3(10, 50, 0), 1, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(20, -50, -3), sweep_v3(70, 50, 0), 1, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(10, -50, -2), sweep_v3(20, -50, -2),
                                          sweep_v3(20, 50, -2), sweep_v3(10, 50, -2), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(30, -5, 0), sweep_v3(40, 5, 4), 1, 0), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
    sweep_space sp = {s->w, NULL, NULL, SWEEP_NO_BODY};
    s->sp = sp;
    if (!with_volumes)
        return;
    sweep_volume v[VOLUMES];
    memset(v, 0, sizeof v);
    v[WATER].kind = SWEEP_VOLUME_LIQUID;
    v[WATER].liquid = SWEEP_LIQUID_WATER;
    v[WATER].lo = sweep_v3(10, -50, -2);
    v[WATER].hi = sweep_v3(20, 50, -0.2);
    /* The ladder's strip (y in [-0.5, 0.5], up to the top) grown by the
     * radii and 0.05. */
    v[LADDER].kind = SWEEP_VOLUME_LADDER;
    v[LADDER].lo = sweep_v3(30 - 0.45, -0.95, -0.95);
    v[LADDER].hi = sweep_v3(30, 0.95, 4 + 0.95);
    v[LADDER].normal = sweep_v3(-1, 0, 0);
    uint32_t bad = 0;
    const char *why = NULL;
    if (sweep_world_set_volumes(s->w, v, VOLUMES, s->cfg.max_speed, s->cfg.max_coordinate, &bad, &why) != SWEEP_OK)
        fail_msg("volume %u refused: %s", bad, why);
}

static void scene_free(scene *s)
{
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
}

static sweep_actor standing(double x, double y)
{
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(x, y, 0.9005);
    a.grounded = 1;
    return a;
}

static sweep_act_result act(scene *s, sweep_actor *a, sweep_vec3 wish, uint32_t buttons, double dt)
{
    sweep_wish w = {wish, buttons};
    sweep_act_result r;
    sweep_status st = sweep_act(&s->sp, &s->cfg, &s->rules, RADII, a, &w, dt, &r);
    if (st != SWEEP_OK)
        fail_msg("sweep_act: %s", sweep_status_name(st));
    return r;
}

/* A swimmer's script: walk off the deck, swim across keeping the head out
 * (a wish up when under), jump at the far side, walk on. */
static void swim_across_the_pool_and_out_at_the_edge(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor a = standing(8, 0);
    uint32_t seen = 0, deepest = 0, frames = 0, jumped_at = 0, left_at = 0;
    for (; frames < 60 * 30; frames++) {
        sweep_vec3 wish = sweep_v3(5, 0, 0);
        uint32_t buttons = 0;
        if (a.position.x > 10.5 && a.position.x < 21) {
            wish = sweep_v3(2.4, 0, 0);
            if (a.position.z < -0.9)
                wish.z = 0.6; /* under: up to the surface */
            if (a.position.x > 19.4) {
                wish = sweep_v3(4, 0, 0);
                buttons = SWEEP_WISH_JUMP;
            }
        }
        sweep_act_result r = act(&s, &a, wish, buttons, DT);
        seen |= r.volumes.events;
        /* The body is never inside the deck or below the bottom. */
        assert_true(a.position.z > -2 + 0.89);
        if (r.volumes.liquid_level > deepest)
            deepest = r.volumes.liquid_level;
        if (r.volumes.events & SWEEP_VOLUME_EV_IN_LIQUID) {
            assert_int_equal(r.volumes.liquid, WATER);
            assert_int_equal(r.volumes.liquid_type, SWEEP_LIQUID_WATER);
        }
        if (buttons && (r.volumes.events & SWEEP_VOLUME_EV_SWAM) && !jumped_at && a.velocity.z > 6)
            jumped_at = frames;
        if (r.volumes.events & SWEEP_VOLUME_EV_LIQUID_LEFT)
            left_at = frames;
        if (a.grounded && a.position.x > 20.5)
            break;
    }
    assert_true(frames < 60 * 30);
    assert_true(seen & SWEEP_VOLUME_EV_LIQUID_ENTERED);
    assert_true(seen & SWEEP_VOLUME_EV_SWAM);
    assert_true(seen & SWEEP_VOLUME_EV_LIQUID_LEFT);
    assert_false(seen & SWEEP_VOLUME_EV_CLIMBED);
    assert_false(seen & SWEEP_VOLUME_EV_HURT);
    assert_true(deepest >= 2);
    /* Out by the water jump: it set the speed along up to swim_jump. */
    assert_true(jumped_at > 0);
    assert_true(left_at >= jumped_at);
    /* On the far deck, standing. */
    assert_true(fabs(a.position.z - 0.9) < 0.01);
    scene_free(&s);
}

static void climb_the_ladder_to_the_top(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor a = standing(27, 0);
    uint32_t seen = 0, frames = 0;
    double top_z = 0;
    for (; frames < 60 * 20; frames++) {
        sweep_act_result r = act(&s, &a, sweep_v3(5, 0, 0), 0, DT);
        seen |= r.volumes.events;
        if (r.volumes.events & SWEEP_VOLUME_EV_CLIMBED) {
            /* Pressed against the face, no gravity: climbing no faster than climb_speed. */
            assert_true(a.position.x <= 30 - 0.4 + 1e-6);
            assert_true(a.velocity.z <= s.rules.climb_speed + 1e-9);
        }
        if (a.position.z > top_z)
            top_z = a.position.z;
        if (a.grounded && a.position.z > 4.8 && a.position.x > 31)
            break;
    }
    assert_true(frames < 60 * 20);
    assert_true(seen & SWEEP_VOLUME_EV_CLIMBED);
    assert_false(seen & SWEEP_VOLUME_EV_SWAM);
    assert_true(fabs(a.position.z - 4.9) < 0.01);

    /* Without the ladder the same walk stays at the foot of the wall. */
    scene t;
    scene_init(&t, 0);
    sweep_actor b = standing(27, 0);
    for (uint32_t i = 0; i < frames; i++)
        act(&t, &b, sweep_v3(5, 0, 0), 0, DT);
    assert_true(b.position.z < 1.0);
    scene_free(&t);
    scene_free(&s);
}

/* On a ladder no wish holds the body where it is. */
static void a_climber_with_no_wish_hangs(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor a = standing(29.6, 0);
    a.position.z = 2.5;
    a.grounded = 0;
    for (int i = 0; i < 60; i++) {
        sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
        assert_true(r.volumes.events & SWEEP_VOLUME_EV_ON_LADDER);
        assert_int_equal(r.volumes.ladder, LADDER);
    }
    assert_true(a.position.z == 2.5);
    scene_free(&s);
}

/* Depth is sampled at the feet, the centre and the eyes; a swimmer with no
 * wish sinks at swim_sink, or rises with a negative one. */
static void depth_levels_and_sinking(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    double surface = -0.2, e = RADII.z;
    struct {
        double z;
        uint32_t level;
    } at[] = {{surface + e * 15.0 / 16.0 + 0.01, 0},
              {surface + e * 15.0 / 16.0 - 0.01, 1},
              {surface - 0.01, 2},
              {surface - e * 3.0 / 4.0 - 0.01, 3}};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        sweep_actor a = standing(15, 0);
        a.position.z = at[k].z;
        a.grounded = 0;
        sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), 0, 1e-4);
        assert_int_equal(r.volumes.liquid_level, at[k].level);
    }
    sweep_actor a = standing(15, 0);
    a.position.z = -1.0;
    a.grounded = 0;
    for (int i = 0; i < 6; i++)
        act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    /* A tenth of a second turning towards 0.9375 m/s down at 10 m/s^2. */
    assert_true(a.velocity.z < -0.5 && a.velocity.z >= -s.rules.swim_sink);
    assert_true(a.position.z < -1.0);
    for (int i = 0; i < 120; i++)
        act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    /* On the bottom. */
    assert_true(fabs(a.position.z - (-2 + 0.9)) < 0.01);
    double sunk = a.position.z;
    s.rules.swim_sink = -0.5;
    for (int i = 0; i < 120; i++)
        act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(a.position.z > sunk + 0.3);
    scene_free(&s);
}

/* Depth is sampled on the shape the body has: a swimmer who crouches in
 * open water keeps its feet, its centre drops by the difference of the
 * radii, and its eyes are the crouched shape's. Here the standing eyes
 * are out (level 2) and the crouched ones under (level 3), where the
 * standing shape's eyes at the lowered centre would still be out. */
static void a_crouching_swimmer_is_sampled_on_its_crouched_shape(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    s.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.5);
    s.rules.crouch_speed = 2.0;
    double surface = -0.2;
    sweep_actor a = standing(15, 0);
    a.position.z = surface - 0.1;
    a.grounded = 0;
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), 0, 1e-4);
    assert_int_equal(r.volumes.liquid_level, 2);
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);
    double before = a.position.z;
    r = act(&s, &a, sweep_v3(0, 0, 0), SWEEP_WISH_CROUCH, 1e-4);
    assert_int_equal(a.stance, SWEEP_STANCE_CROUCH);
    assert_true(fabs(a.position.z - (before - 0.4)) < 1e-3);
    assert_int_equal(r.volumes.liquid_level, 3);
    /* Standing up again where there is room: level 2 once more. */
    r = act(&s, &a, sweep_v3(0, 0, 0), 0, 1e-4);
    assert_int_equal(a.stance, SWEEP_STANCE_STAND);
    assert_int_equal(r.volumes.liquid_level, 2);
    scene_free(&s);
}

/* Lava hurts damage * level per second, as a hurt volume reports. */
static void lava_hurts_by_depth(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 0);
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_LIQUID;
    v.liquid = SWEEP_LIQUID_LAVA;
    v.damage = 30.0;
    v.lo = sweep_v3(10, -50, -2);
    v.hi = sweep_v3(20, 50, -0.2);
    assert_int_equal(sweep_world_set_volumes(s.w, &v, 1, s.cfg.max_speed, s.cfg.max_coordinate, NULL, NULL),
                     SWEEP_OK);
    sweep_actor a = standing(15, 0);
    a.position.z = -1.5;
    a.grounded = 0;
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), 0, 0.01);
    assert_int_equal(r.volumes.liquid_level, 3);
    assert_int_equal(r.volumes.liquid_type, SWEEP_LIQUID_LAVA);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, 0);
    assert_true(r.volumes.damage == 30.0 * 3.0 * 0.01);
    scene_free(&s);
}

/* Away from every liquid and ladder a walk is the walk of a world without
 * them, to the bit, and no liquid event is told. */
static void a_walk_away_from_liquids_is_unchanged(void **state)
{
    (void)state;
    scene s, t;
    scene_init(&s, 1);
    scene_init(&t, 0);
    sweep_actor a = standing(-10, 0), b = a;
    for (int i = 0; i < 300; i++) {
        sweep_vec3 wish = sweep_v3(5.0 * (i % 7 - 3) / 3.0, 2.0, 0);
        uint32_t buttons = i % 50 == 0 ? SWEEP_WISH_JUMP : 0;
        sweep_act_result r = act(&s, &a, wish, buttons, DT), q = act(&t, &b, wish, buttons, DT);
        assert_memory_equal(&a, &b, sizeof a);
        assert_int_equal(r.rules, q.rules);
        assert_int_equal(r.volumes.events, 0);
    }
    scene_free(&s);
    scene_free(&t);
}

/* A wish faster than walk_speed in three dimensions is named in the
 * water; the vertical part of a walker's is not the core's to name. */
static void a_fast_swimmer_is_named(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    sweep_actor a = standing(15, 0);
    a.position.z = -1.0;
    a.grounded = 0;
    sweep_act_result r = act(&s, &a, sweep_v3(4, 0, 4), 0, DT);
    assert_true(r.rules & SWEEP_RULE_SPEED);
    assert_true(fabs(r.speed_excess - (sqrt(32.0) - 5.0)) < 1e-12);
    assert_true(sweep_v3_len(a.velocity) <= s.rules.swim_speed + 1e-9);
    r = act(&s, &a, sweep_v3(3, 0, 3), 0, DT);
    assert_false(r.rules & SWEEP_RULE_SPEED);
    sweep_actor b = standing(-10, 0);
    r = act(&s, &b, sweep_v3(4, 0, 4), 0, DT);
    assert_false(r.rules & SWEEP_RULE_SPEED);
    scene_free(&s);
}

/* The medium a body's probe finds, by a look at every liquid and ladder:
 * the first liquid (by index) holding the feet, the depth the feet, the
 * centre and the eyes give, the first ladder holding the centre. */
static sweep__medium medium_by_hand(const sweep_volume *v, uint32_t n, const sweep__medium_probe *p, sweep_vec3 c)
{
    sweep__medium m = {0, 0, SWEEP__NO_LADDER};
    const sweep_vec3 pt[3] = {sweep_v3_add(c, p->feet), c, sweep_v3_add(c, p->eyes)};
    unsigned in = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].kind == SWEEP_VOLUME_LADDER && m.ladder == SWEEP__NO_LADDER && sweep_volume_contains(&v[i], c))
            m.ladder = i;
        if (v[i].kind != SWEEP_VOLUME_LIQUID)
            continue;
        for (unsigned k = 0; k < 3; k++)
            if (sweep_volume_contains(&v[i], pt[k])) {
                if (k == 0 && !(in & 1u))
                    m.liquid = i;
                in |= 1u << k;
            }
    }
    static const uint8_t level[8] = {0, 1, 0, 2, 0, 1, 0, 3};
    m.level = level[in];
    return m;
}

/* n random pools and ladder strips (a third cut by a plane) over a square
 * the size that keeps about as many near any point, and probes upright and
 * tilted at random places: the medium the world finds through the grid's
 * columns is the one a look at every volume finds. */
static void media_match(uint32_t n)
{
    scene s;
    scene_init(&s, 0);
    static sweep_volume v[100];
    assert_true(n <= 100);
    double half = 20.0 * sqrt((double)n / 40.0);
    uint64_t x = 777;
    for (uint32_t i = 0; i < n; i++) {
        double cx, cy, cz, r;
        scatter_next(&x, half, -1.0, 1.0, &cx, &cy, &cz, &r);
        memset(&v[i], 0, sizeof v[i]);
        v[i].lo = sweep_v3(cx - r, cy - r, cz - r);
        v[i].hi = sweep_v3(cx + r, cy + r, cz + 0.5 * r);
        if (i % 4 == 3) {
            v[i].kind = SWEEP_VOLUME_LADDER;
            v[i].normal = sweep_v3(1, 0, 0);
        } else {
            v[i].kind = SWEEP_VOLUME_LIQUID;
            v[i].liquid = SWEEP_LIQUID_WATER;
        }
        if (i % 3 == 1) {
            v[i].plane_count = 1;
            v[i].planes[0].normal = sweep_v3(1, -1, 0);
            v[i].planes[0].offset = cx - cy;
        }
    }
    uint32_t bad = 0;
    const char *why = NULL;
    if (sweep_world_set_volumes(s.w, v, n, s.cfg.max_speed, s.cfg.max_coordinate, &bad, &why) != SWEEP_OK)
        fail_msg("volume %u refused: %s", bad, why);
    const sweep_vec3 ups[2] = {sweep_v3(0, 0, 1), sweep_v3(0.6, 0, 0.8)};
    unsigned found = 0, deep = 0, climbing = 0;
    for (unsigned u = 0; u < 2; u++) {
        sweep__medium_probe p;
        sweep__medium_probe_of(RADII, ups[u], &p);
        for (int k = 0; k < 4000; k++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            sweep_vec3 c = sweep_v3((double)(x >> 40 & 1023) / 1023.0 * 2.4 * half - 1.2 * half,
                                    (double)(x >> 20 & 1023) / 1023.0 * 2.4 * half - 1.2 * half,
                                    (double)(x >> 10 & 1023) / 1023.0 * 6.0 - 3.0);
            sweep__medium got;
            sweep__medium_at(s.w, &p, c, &got);
            sweep__medium want = medium_by_hand(v, n, &p, c);
            assert_int_equal(got.level, want.level);
            assert_int_equal(got.ladder, want.ladder);
            if (want.level)
                assert_int_equal(got.liquid, want.liquid);
            found += want.level > 0, deep += want.level == 3, climbing += want.ladder != SWEEP__NO_LADDER;
        }
    }
    /* The probes did meet them. */
    assert_true(found > 400 && deep > 200 && climbing > 10);
    scene_free(&s);
}

static void the_grid_finds_every_medium(void **state)
{
    (void)state;
    media_match(7);
    media_match(40);
    media_match(100);
}

/* The probe a thread keeps for the last shape and up it was asked for is
 * the one made afresh, whichever component of the two changed (one at a
 * time, each lane of the comparison), a zero's sign included. */
static void the_kept_probe_is_the_shape_and_up_asked(void **state)
{
    (void)state;
    const sweep_vec3 ups[4] = {sweep_v3(0, 0, 1), sweep_v3(-0.0, 0, 1), sweep_v3(0.6, 0, 0.8),
                               sweep_v3(0, -0.6, 0.8)};
    uint64_t x = 4242;
    sweep_vec3 r = RADII, up = ups[0];
    for (int k = 0; k < 20000; k++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        double v = 0.2 + (double)(x >> 40 & 1023) / 1023.0;
        switch (x >> 20 & 7) {
        case 0: r.x = v; break;
        case 1: r.y = v; break;
        case 2: r.z = v; break;
        case 3: up = ups[x >> 30 & 3]; break;
        case 4: up.x = -up.x; break;
        case 5: up.y = -up.y; break;
        case 6: up.z = -up.z; break;
        default: break; /* the same again */
        }
        sweep__medium_probe want;
        memset(&want, 0, sizeof want);
        sweep__medium_probe_of(r, up, &want);
        const sweep__medium_probe *got = sweep__medium_probe_for(r, up);
        assert_memory_equal(&got->feet, &want.feet, sizeof want.feet);
        assert_memory_equal(&got->eyes, &want.eyes, sizeof want.eyes);
        assert_memory_equal(&got->lo, &want.lo, sizeof want.lo);
        assert_memory_equal(&got->hi, &want.hi, sizeof want.hi);
        assert_int_equal(got->upright, want.upright);
    }
}

/* Bodies of two shapes moved in turn get the very results each gets moved
 * alone: what a thread keeps of the last move's shape is never another
 * body's. The shapes stand where their depth levels differ. */
static void bodies_of_two_shapes_in_turn_move_as_alone(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    const sweep_vec3 shapes[2] = {RADII, sweep_v3(0.4, 0.4, 0.5)};
    enum { STEPS = 90 };
    static sweep_act_result alone[2][STEPS], turns[2][STEPS];
    sweep_actor a[2];
    for (int pass = 0; pass < 2; pass++) {
        for (int b = 0; b < 2; b++) {
            a[b] = standing(15, -2.0 + 4.0 * b);
            a[b].position.z = -0.7;
            a[b].grounded = 0;
        }
        for (int b0 = 0; b0 < (pass ? 1 : 2); b0++)
            for (int i = 0; i < STEPS; i++)
                for (int b = pass ? 0 : b0; b < (pass ? 2 : b0 + 1); b++) {
                    sweep_wish w = {sweep_v3(0.5 * (b ? -1 : 1), 0.3, 0), 0};
                    sweep_act_result *r = pass ? &turns[b][i] : &alone[b][i];
                    memset(r, 0, sizeof *r);
                    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, shapes[b], &a[b], &w, DT, r), SWEEP_OK);
                }
    }
    assert_memory_equal(turns, alone, sizeof alone);
    /* The two did differ: the tall one has its eyes out, the short one not. */
    assert_int_equal(alone[0][0].volumes.liquid_level, 2);
    assert_int_equal(alone[1][0].volumes.liquid_level, 3);
    scene_free(&s);
}

static void bad_liquids_ladders_and_rules_are_refused(void **state)
{
    (void)state;
    sweep_config cfg;
    sweep_config_default(&cfg);
    const char *why = NULL;
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_LIQUID;
    v.hi = sweep_v3(1, 1, 1);
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    assert_string_equal(why, "unknown liquid");
    v.liquid = SWEEP_LIQUID_COUNT;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    v.liquid = SWEEP_LIQUID_SLIME;
    v.damage = -1;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    v.damage = NAN;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_NONFINITE);
    v.damage = 10;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_OK);
    v.kind = SWEEP_VOLUME_LADDER;
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_CONFIG);
    assert_string_equal(why, "ladder normal is not a unit vector");
    v.normal = sweep_v3(0, INFINITY, 0);
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_E_NONFINITE);
    v.normal = sweep_v3(0, 1, 0);
    assert_int_equal(sweep_volume_check(&v, cfg.max_speed, cfg.max_coordinate, &why), SWEEP_OK);
    assert_string_equal(sweep_volume_kind_name(SWEEP_VOLUME_LIQUID), "liquid");
    assert_string_equal(sweep_volume_kind_name(SWEEP_VOLUME_LADDER), "ladder");
    assert_string_equal(sweep_liquid_name(SWEEP_LIQUID_LAVA), "lava");
    assert_string_equal(sweep_liquid_name(SWEEP_LIQUID_COUNT), "unknown");

    sweep_rules r;
    sweep_rules_default(&r);
    assert_int_equal(sweep_rules_check(&r), SWEEP_OK);
    sweep_rules z = r;
    z.swim_speed = z.swim_accel = z.swim_drag = z.swim_sink = z.swim_jump = z.climb_speed = z.climb_accel = 0;
    assert_int_equal(sweep_rules_check(&z), SWEEP_OK);
    double *fields[] = {&r.swim_speed, &r.swim_accel, &r.swim_drag, &r.swim_sink,
                        &r.swim_jump,  &r.climb_speed, &r.climb_accel};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        double keep = *fields[k];
        *fields[k] = NAN;
        assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG);
        *fields[k] = 2e9;
        assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG);
        *fields[k] = keep;
    }
    r.swim_speed = -1;
    assert_int_equal(sweep_rules_check(&r), SWEEP_E_CONFIG);
}

/* Bad swimming rules refuse a move that swims, which then changes
 * nothing; a walk that neither swims nor climbs does not read them. */
static void a_swim_under_bad_rules_is_refused(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    s.rules.swim_drag = -1.0;
    sweep_actor a = standing(15, 0), keep;
    a.position.z = -1.0;
    a.grounded = 0;
    keep = a;
    sweep_wish w = {sweep_v3(1, 0, 0), 0};
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_CONFIG);
    assert_memory_equal(&a, &keep, sizeof a);
    sweep_actor b = standing(-10, 0);
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &b, &w, DT, NULL), SWEEP_OK);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(swim_across_the_pool_and_out_at_the_edge),
        cmocka_unit_test(climb_the_ladder_to_the_top),
        cmocka_unit_test(a_climber_with_no_wish_hangs),
        cmocka_unit_test(depth_levels_and_sinking),
        cmocka_unit_test(a_crouching_swimmer_is_sampled_on_its_crouched_shape),
        cmocka_unit_test(lava_hurts_by_depth),
        cmocka_unit_test(a_walk_away_from_liquids_is_unchanged),
        cmocka_unit_test(a_fast_swimmer_is_named),
        cmocka_unit_test(the_grid_finds_every_medium),
        cmocka_unit_test(the_kept_probe_is_the_shape_and_up_asked),
        cmocka_unit_test(bodies_of_two_shapes_in_turn_move_as_alone),
        cmocka_unit_test(bad_liquids_ladders_and_rules_are_refused),
        cmocka_unit_test(a_swim_under_bad_rules_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
