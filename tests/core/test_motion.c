/*
 * test_motion.c - the movement rules: walking up to the wished speed,
 * clamping a wish that is too fast, jumping only from the ground, ignoring
 * a wish to fly, terminal velocity, and splitting long moves so that the
 * result depends on how long a move is, not on how a client chops it; and
 * the speed clamp (sweep_clamp_speed), whose result the move's own input
 * check must never refuse; and the two ways air control acts
 * (sweep_rules.air_move).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/motion.h"
#include "core/walker.h"
#include "maps/level.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_space sp;
    sweep_config cfg;
    sweep_rules rules;
} scene;

static void scene_init(scene *s)
{
    sweep_level_init(&s->lv);
    sweep_config_default(&s->cfg);
    sweep_rules_default(&s->rules);
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(-500, -500, 0), sweep_v3(500, -500, 0),
                                          sweep_v3(500, 500, 0), sweep_v3(-500, 500, 0), 1),
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

static sweep_actor standing(double x, double y)
{
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(x, y, 0.9005);
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

static double horizontal(sweep_vec3 v)
{
    return sqrt(v.x * v.x + v.y * v.y);
}

static void walks_up_to_the_wish(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor a = standing(0, 0);
    for (int i = 0; i < 10; i++)
        act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(a.grounded);
    sweep_act_result r = act(&s, &a, sweep_v3(3, 0, 0), 0, DT);
    /* One step of acceleration: 50 m/s^2 for 1/60 s. */
    assert_true(fabs(a.velocity.x - 50.0 / 60.0) < 1e-12);
    for (int i = 0; i < 30; i++)
        r = act(&s, &a, sweep_v3(3, 0, 0), 0, DT);
    assert_true(a.velocity.x == 3.0 && a.velocity.y == 0.0 && a.velocity.z == 0.0);
    assert_int_equal(r.rules, 0);
    assert_true(a.grounded);
    /* Stopping takes time too. */
    act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(a.velocity.x > 2.0);
    scene_free(&s);
}

static void too_fast_a_wish_is_clamped_and_named(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor a = standing(0, 0);
    sweep_act_result r;
    for (int i = 0; i < 60; i++)
        r = act(&s, &a, sweep_v3(60, 80, 0), 0, DT); /* 100 m/s asked */
    assert_true(r.rules & SWEEP_RULE_SPEED);
    assert_true(fabs(r.speed_excess - 95.0) < 1e-9);
    assert_true(fabs(horizontal(a.velocity) - 5.0) < 1e-9);
    assert_true(fabs(a.velocity.x / a.velocity.y - 0.75) < 1e-9); /* the direction is kept */
    scene_free(&s);
}

static uint64_t splitmix(uint64_t *x);

/* The wish of an honest client that computes it the natural way: the
 * walk speed along a heading of `deg` degrees. */
static sweep_vec3 natural_wish(double walk_speed, double deg)
{
    double a = deg * (3.14159265358979323846 / 180.0);
    return sweep_v3(walk_speed * cos(a), walk_speed * sin(a), 0);
}

/* Every whole-degree heading, and random ones, at the walk speed of the
 * default rules and of a map in Quake units: none is named, though a few
 * come out an ulp or two over the walk speed (counted, so that the test
 * is known to meet them) and are clamped all the same; a wish 1% or
 * 1e-6 over is named with its excess. */
static void natural_wishes_are_never_named(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    const double speeds[] = {s.rules.walk_speed, 320.0};
    uint64_t seed = 7;
    for (unsigned k = 0; k < 2; k++) {
        s.rules.walk_speed = speeds[k];
        s.rules.speed_limit = fmax(s.rules.speed_limit, speeds[k]);
        unsigned over = 0;
        for (int i = 0; i < 360 + 20000; i++) {
            double deg = i < 360 ? (double)i : 360.0 * (double)(splitmix(&seed) >> 11) / 9007199254740992.0;
            sweep_vec3 w = natural_wish(speeds[k], deg);
            over += sqrt(w.x * w.x + w.y * w.y) > speeds[k];
            sweep_actor a = standing(0, 0);
            sweep_act_result r = act(&s, &a, w, 0, DT);
            if (r.rules & SWEEP_RULE_SPEED)
                fail_msg("walk speed %g, heading %.17g degrees: Speed named, excess %g", speeds[k], deg,
                         r.speed_excess);
            assert_true(r.speed_excess == 0.0);
        }
        assert_true(over > 0);
        /* A real speed hack, however small, is named. */
        const double factors[] = {1.01, 1.0 + 1e-6};
        for (unsigned f = 0; f < 2; f++) {
            sweep_actor a = standing(0, 0);
            sweep_act_result r = act(&s, &a, sweep_v3_scale(natural_wish(speeds[k], 37.0), factors[f]), 0, DT);
            assert_true(r.rules & SWEEP_RULE_SPEED);
            assert_true(fabs(r.speed_excess - speeds[k] * (factors[f] - 1.0)) < 1e-9 * speeds[k]);
        }
    }
    scene_free(&s);
}

static void jumps_only_from_the_ground(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor a = standing(0, 0);
    act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(a.grounded);
    sweep_act_result r = act(&s, &a, sweep_v3(0, 0, 0), SWEEP_WISH_JUMP, DT);
    assert_int_equal(r.rules, 0);
    assert_false(a.grounded);
    double peak = a.position.z;
    int refused = 0;
    for (int i = 0; i < 120; i++) {
        /* Asking again in the air is refused and named; it adds nothing. */
        r = act(&s, &a, sweep_v3(0, 0, 0), SWEEP_WISH_JUMP * (i < 30), DT);
        refused += (r.rules & SWEEP_RULE_JUMP) != 0;
        peak = a.position.z > peak ? a.position.z : peak;
        if (a.grounded)
            break;
    }
    assert_int_equal(refused, 30);
    /* v^2 / 2g = 1.274 m, less a little for the discrete steps. */
    assert_true(peak - 0.9005 > 1.2 && peak - 0.9005 < 1.28);
    assert_true(a.grounded);
    scene_free(&s);
}

/* A jump from the floor with the time chopped into moves of dt until it
 * lands: the highest point of a move's end above the start, and the
 * least and most of the height the motion says it would still rise, z +
 * vz^2 / 2g, over the moves in the air. */
static void jump_chopped(scene *s, double dt, double *apex, double *lo, double *hi)
{
    sweep_actor a = standing(0, 0);
    for (int i = 0; i < 10; i++)
        act(s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(a.grounded);
    const double z0 = a.position.z, g = -s->cfg.gravity.z;
    *apex = 0.0, *lo = INFINITY, *hi = -INFINITY;
    uint32_t buttons = SWEEP_WISH_JUMP;
    for (int i = 0; i < 5000 && (i == 0 || !a.grounded); i++) {
        act(s, &a, sweep_v3(0, 0, 0), buttons, dt);
        buttons = 0;
        double z = a.position.z - z0, e = z + a.velocity.z * a.velocity.z / (2.0 * g);
        *apex = z > *apex ? z : *apex;
        if (!a.grounded) {
            *lo = e < *lo ? e : *lo;
            *hi = e > *hi ? e : *hi;
        }
    }
    assert_true(a.grounded);
}

/* How high a jump goes does not depend on how the client chops its time:
 * a flight lands on the parabola at every move's end. Under g = 10 the
 * apex of a 5 m/s jump, 1.25 m, is half a second in, the end of a move at
 * every rate below, and each reaches it; under 9.81 every end in flight
 * rises to the same height v^2 / 2g, and the highest end is short of it
 * by at most g h^2 / 8, the parabola's drop half a move from its top.
 * Moving by each step's end velocity, a jump rose v h / 2 less: at 30 Hz
 * 8 cm below a 1 ms chopper's. */
static void jump_height_does_not_depend_on_the_chopping(void **state)
{
    (void)state;
    static const double dts[] = {1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0, 1e-3};
    for (int k = 0; k < 4; k++) {
        scene s;
        scene_init(&s);
        s.cfg.gravity = sweep_v3(0, 0, -10.0);
        double apex, lo, hi;
        jump_chopped(&s, dts[k], &apex, &lo, &hi);
        if (!(fabs(apex - 1.25) <= 1e-9 * 1.25 && fabs(lo - 1.25) <= 1e-9 * 1.25 && fabs(hi - 1.25) <= 1e-9 * 1.25))
            fail_msg("g 10, dt %.17g: apex %.17g, rise %.17g .. %.17g; 1.25 expected", dts[k], apex, lo, hi);
        scene_free(&s);

        scene_init(&s);
        const double g = -s.cfg.gravity.z, top = s.rules.jump_speed * s.rules.jump_speed / (2.0 * g);
        jump_chopped(&s, dts[k], &apex, &lo, &hi);
        if (!(fabs(lo - top) <= 1e-9 * top && fabs(hi - top) <= 1e-9 * top && apex <= top * (1.0 + 1e-9) &&
              apex >= top - g * dts[k] * dts[k] / 8.0))
            fail_msg("g %.17g, dt %.17g: apex %.17g, rise %.17g .. %.17g; %.17g expected", g, dts[k], apex, lo, hi,
                     top);
        scene_free(&s);
    }
}

static void a_wish_to_fly_is_ignored(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor a = standing(0, 0);
    a.position.z = 5.0; /* in the air */
    double z = a.position.z;
    for (int i = 0; i < 20; i++) {
        act(&s, &a, sweep_v3(0, 0, 50), 0, DT); /* "up, please" */
        assert_true(a.position.z < z);
        z = a.position.z;
    }
    scene_free(&s);
}

static void falling_stops_at_the_speed_limit(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.rules.speed_limit = 12.0;
    sweep_actor a = standing(0, 0);
    a.position.z = 200.0;
    sweep_act_result r;
    for (int i = 0; i < 180; i++)
        r = act(&s, &a, sweep_v3(0, 0, 0), 0, DT);
    assert_true(r.rules & SWEEP_RULE_LIMIT);
    assert_true(fabs(a.velocity.z + 12.0) < 1e-9);
    scene_free(&s);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A double in [-1, 1) from 53 random bits. */
static double uniform(uint64_t *x)
{
    return (double)(splitmix(x) >> 11) / 4503599627370496.0 - 1.0;
}

/* Random vectors of every length from under the limit to far over it,
 * clamped to random limits: none ends longer than the limit by the test
 * sweep_move's input check uses, each keeps its direction and reaches the
 * limit to within a few ulps, and one already short enough is returned
 * as it is. Plain scaling by limit / |v| fails the same test on a good
 * share of them (counted, so the test is known to test something). */
static void clamped_speeds_never_pass_the_limit(void **state)
{
    (void)state;
    uint64_t seed = 7;
    uint32_t over = 0, plain_over = 0;
    for (int i = 0; i < 200000; i++) {
        double limit = i % 4 == 0 ? 3000.0 : i % 4 == 1 ? 60.0 : ldexp(1.0 + uniform(&seed) * 0.5, (int)(i % 40) - 20);
        double len = limit * ldexp(1.0, (int)(splitmix(&seed) % 40) - 8) * (1.0 + 0.5 * uniform(&seed));
        sweep_vec3 d = sweep_v3(uniform(&seed), uniform(&seed), uniform(&seed));
        if (i % 7 == 0)
            d.x = d.y = 0.0; /* straight falls and climbs too */
        if (sweep_v3_len2(d) == 0.0)
            continue;
        sweep_vec3 v = sweep_v3_scale(sweep_v3_normalize(d), len);
        sweep_vec3 c = sweep_clamp_speed(v, limit);
        double l2 = sweep_v3_len2(v), c2 = sweep_v3_len2(c);
        if (!(l2 > limit * limit)) {
            assert_memory_equal(&c, &v, sizeof c);
            continue;
        }
        over++;
        if (c2 > limit * limit)
            fail_msg("|(%.17g, %.17g, %.17g)| clamped to %.17g: %.17g long", v.x, v.y, v.z, limit, sqrt(c2));
        assert_true(sqrt(c2) >= limit * (1.0 - 1e-14));
        /* Same direction: c is v times one positive factor. */
        assert_true(sweep_v3_dot(c, v) > 0.0);
        assert_true(sweep_v3_len(sweep_v3_cross(c, v)) <= 1e-12 * sqrt(c2) * sqrt(l2));
        sweep_vec3 p = sweep_v3_scale(v, limit / sqrt(l2));
        plain_over += sweep_v3_len2(p) > limit * limit;
    }
    print_message("%u vectors over their limit; plain scaling left %u of them over it\n", over, plain_over);
    assert_true(over > 100000);
    assert_true(plain_over > over / 20);
    /* What the clamp makes of the extremes. */
    sweep_vec3 big = sweep_clamp_speed(sweep_v3(1e300, -1e300, 1e300), 5.0);
    assert_true(sweep_v3_len2(big) <= 25.0 && sweep_v3_len(big) > 4.99);
    sweep_vec3 zero = sweep_clamp_speed(sweep_v3(3, 4, 0), 0.0);
    assert_true(zero.x == 0.0 && zero.y == 0.0 && zero.z == 0.0);
    assert_false(sweep_v3_isfinite(sweep_clamp_speed(sweep_v3(NAN, 0, 0), 1.0)));
    assert_false(sweep_v3_isfinite(sweep_clamp_speed(sweep_v3(INFINITY, 0, 0), 1.0)));
}

/* Falls at terminal speed where the rules' limit is the config's input
 * limit too, as in every map (the loader makes max_speed = speed_limit),
 * across many wish directions and limits: no move is refused. A clamp an
 * ulp too long was refused by sweep_move, and then every later move of the
 * falling body with it. */
static void falls_at_the_limit_are_never_refused(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    uint64_t seed = 11;
    for (int k = 0; k < 64; k++) {
        s.rules.speed_limit = 5.0 + 0.37 * k;
        s.cfg.max_speed = s.rules.speed_limit;
        sweep_actor a = standing(0, 0);
        a.position.z = 1e5;
        a.grounded = 0;
        sweep_wish w = {sweep_v3(uniform(&seed) * 5.0, uniform(&seed) * 5.0, 0), 0};
        for (int i = 0; i < 240; i++) {
            sweep_act_result r;
            sweep_status st = sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, &r);
            if (st != SWEEP_OK)
                fail_msg("limit %.17g, step %d: %s", s.rules.speed_limit, i, sweep_status_message(st));
        }
    }
    scene_free(&s);
}

/* The same for the walker workload (walker.h), which clamps its fall to
 * the config's max_speed. */
static void walkers_falling_at_the_limit_are_never_refused(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    for (int k = 0; k < 64; k++) {
        s.cfg.max_speed = 6.0 + 0.41 * k;
        sweep_walk_params p = {8, 240, 7, DT, 5.0, RADII, (uint64_t)k};
        sweep_walker wk[8];
        sweep_vec3 spawn = sweep_v3(0, 0, 1e5);
        sweep_walk_place(&p, &spawn, 1, wk);
        sweep_move_result r;
        for (uint32_t step = 0; step < p.steps; step++)
            for (uint32_t i = 0; i < p.walkers; i++) {
                sweep_status st = sweep_walk_step(s.w, &s.cfg, &p, i, step, &wk[i], &r);
                if (st != SWEEP_OK)
                    fail_msg("max_speed %.17g, walker %u step %u: %s", s.cfg.max_speed, i, step,
                             sweep_status_message(st));
            }
    }
    scene_free(&s);
}

static void long_moves_are_split(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor one = standing(0, 0), two = standing(0, 0);
    for (int i = 0; i < 5; i++) {
        act(&s, &one, sweep_v3(0, 0, 0), 0, DT);
        act(&s, &two, sweep_v3(0, 0, 0), 0, DT);
    }
    double h = 1.0 / 30.0;
    sweep_act_result r = act(&s, &one, sweep_v3(4, 1, 0), 0, 4 * h); /* four steps of the longest */
    assert_int_equal(r.steps, 4);
    for (int i = 0; i < 4; i++)
        act(&s, &two, sweep_v3(4, 1, 0), 0, h);
    assert_memory_equal(&one, &two, sizeof one);
    /* A move that would need more than 64 steps is refused untouched. */
    sweep_actor before = one;
    s.cfg.max_dt = 10.0;
    sweep_wish w = {sweep_v3(1, 0, 0), 0};
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &one, &w, 3.0, NULL), SWEEP_E_DT);
    assert_memory_equal(&one, &before, sizeof one);
    scene_free(&s);
}

/* Fills the stack below the caller with b, so that what a call after it
 * leaves unwritten in its locals shows. */
static __attribute__((noinline)) void scribble_stack(int b)
{
    volatile unsigned char junk[32768];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)b; /* volatile: each store is made */
}

/* The same move writes the same bytes to its result, padding and unused
 * contacts included, whatever the caller's buffer and the stack held: a
 * log or a test may hash or compare it whole. And an error leaves it
 * untouched. Both for a move of several steps and for one of one step,
 * whose core move is built in the caller's result itself. */
static void same_move_same_result_bytes(void **state)
{
    (void)state;
    static const double dts[2] = {2.5 * DT, DT};
    for (int k = 0; k < 2; k++) {
        scene s;
        scene_init(&s);
        sweep_actor one = standing(0, 0);
        for (int i = 0; i < 5; i++)
            act(&s, &one, sweep_v3(0, 0, 0), 0, DT);
        sweep_actor two = one;
        sweep_wish w = {sweep_v3(2, 1, 0), SWEEP_WISH_JUMP};
        static sweep_act_result r1, r2, before;
        memset(&r1, 0x00, sizeof r1);
        memset(&r2, 0xa5, sizeof r2);
        scribble_stack(0x00);
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &one, &w, dts[k], &r1), SWEEP_OK);
        scribble_stack(0x5a);
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &two, &w, dts[k], &r2), SWEEP_OK);
        assert_true(k ? r1.steps == 1 : r1.steps > 1);
        assert_memory_equal(&r1, &r2, sizeof r1);
        before = r2;
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &two, &w, 0.0, &r2), SWEEP_E_DT);
        assert_memory_equal(&r2, &before, sizeof r2);
        /* Refused by the core move itself, its only step: still untouched. */
        sweep_actor far = two;
        far.position.x = 2.0 * s.cfg.max_coordinate;
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &far, &w, dts[k], &r2), SWEEP_E_POSITION);
        assert_memory_equal(&r2, &before, sizeof r2);
        scene_free(&s);
    }
}

/* Stairs cost no speed: a player stepping up keeps walking at its wish,
 * instead of creeping over each step's nose. */
static void stairs_at_walking_speed(void **state)
{
    (void)state;
    static const double rises[3] = {0.15, 0.25, 0.30};
    for (int k = 0; k < 3; k++) {
        scene s;
        scene_init(&s);
        sweep_world_destroy(s.w);
        for (int i = 0; i < 8; i++)
            assert_int_equal(sweep_level_add_box(&s.lv, sweep_v3(0.6 * i, -3, -1), sweep_v3(40, 3, rises[k] * (i + 1)),
                                                 2, 0),
                             SWEEP_OK);
        sweep_world_desc d = sweep_level_world_desc(&s.lv);
        assert_int_equal(sweep_world_create(&d, &s.w), SWEEP_OK);
        s.sp.world = s.w;
        sweep_actor a = standing(-3, 0);
        double top = rises[k] * 8 + 0.9;
        int n;
        for (n = 0; n < 400; n++) {
            act(&s, &a, sweep_v3(4, 0, 0), 0, DT);
            if (a.position.z > top - 0.01 && a.position.x > 4.8)
                break;
        }
        /* 7.8 m at 4 m/s is 117 moves on the flat; accelerating adds a few. */
        if (n > 125)
            fail_msg("rise %.2f: %d moves to the top", rises[k], n);
        scene_free(&s);
    }
}

/* A body put in the air at (0, 0, 20) moving at v, then moved with the
 * wish w for n moves (no floor within reach: it only falls). */
static sweep_actor flying(scene *s, sweep_vec3 v, sweep_vec3 w, int n)
{
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(0, 0, 20);
    a.velocity = v;
    for (int i = 0; i < n; i++)
        act(s, &a, w, 0, DT);
    assert_false(a.grounded);
    return a;
}

/* Quake 3's air move (SWEEP_AIR_ALONG): nothing the wish does takes
 * speed away; it adds along itself, at most air_accel * dt a step, up to
 * its own speed along it. sweep's own (SWEEP_AIR_TOWARDS) slows a body
 * that wishes nothing. */
static void quake_air_move_only_adds_along_the_wish(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    const sweep_vec3 fast = sweep_v3(12, -3, 0); /* faster than walk_speed 5 */
    const sweep_vec3 still = sweep_v3(0, 0, 0);

    /* Towards the wish (the default): a zero wish brakes at air_accel. */
    sweep_actor a = flying(&s, fast, still, 6);
    assert_true(horizontal(a.velocity) < horizontal(fast) - 5 * s.rules.air_accel * DT);

    s.rules.air_move = SWEEP_AIR_ALONG;
    /* No wish: the horizontal velocity stays, every bit. */
    a = flying(&s, fast, still, 6);
    assert_true(a.velocity.x == fast.x && a.velocity.y == fast.y);
    /* Already faster along the wish than the wish: nothing taken, nothing added. */
    a = flying(&s, fast, sweep_v3(5, 0, 0), 6);
    assert_true(a.velocity.x == fast.x && a.velocity.y == fast.y);
    /* Against the velocity: one step adds air_accel * dt along the wish and
     * leaves the rest. */
    a = flying(&s, fast, sweep_v3(-5, 0, 0), 1);
    assert_true(fabs(a.velocity.x - (fast.x - s.rules.air_accel * DT)) < 1e-12);
    assert_true(a.velocity.y == fast.y);
    /* Across it: the part along the wish grows to the wish's speed and
     * stops there; the part across the wish is kept. */
    a = flying(&s, fast, sweep_v3(0, 5, 0), 60);
    assert_true(a.velocity.x == fast.x);
    assert_true(a.velocity.y == 5.0);
    /* A wish slower than walk_speed adds in proportion to its speed, and
     * caps the part along it at that speed. */
    a = flying(&s, still, sweep_v3(0, -2, 0), 1);
    assert_true(fabs(a.velocity.y - (-2.0 / s.rules.walk_speed * s.rules.air_accel * DT)) < 1e-15);
    a = flying(&s, still, sweep_v3(0, -2, 0), 60);
    assert_true(a.velocity.x == 0.0 && a.velocity.y == -2.0);
    /* Too fast a wish is clamped first, and named. */
    sweep_actor b;
    memset(&b, 0, sizeof b);
    b.position = sweep_v3(0, 0, 20);
    sweep_act_result r = act(&s, &b, sweep_v3(0, 9, 0), 0, DT);
    assert_true(r.rules & SWEEP_RULE_SPEED);
    for (int i = 0; i < 60; i++)
        act(&s, &b, sweep_v3(0, 9, 0), 0, DT);
    assert_true(b.velocity.y == s.rules.walk_speed);
    scene_free(&s);
}

/* On the ground the air rule changes nothing: the same walk, the same bits. */
static void the_air_rule_leaves_the_ground_alone(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor t = standing(0, 0), q = standing(0, 0);
    for (int i = 0; i < 120; i++) {
        sweep_vec3 w = sweep_v3(5 * cos(i * 0.1), 5 * sin(i * 0.1), 0);
        s.rules.air_move = SWEEP_AIR_TOWARDS;
        act(&s, &t, w, 0, DT);
        s.rules.air_move = SWEEP_AIR_ALONG;
        act(&s, &q, w, 0, DT);
        assert_true(t.grounded && q.grounded);
    }
    assert_memory_equal(&t, &q, sizeof t);
    scene_free(&s);
}

/* air_move is a choice of two: anything else is refused, also on rules
 * that passed before (it lies past the walking rules kept as checked). */
static void air_move_is_zero_or_one(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_actor a = standing(0, 0), held;
    sweep_wish w = {sweep_v3(1, 0, 0), 0};
    const double bad[] = {0.5, 2.0, -1.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s.rules.air_move = SWEEP_AIR_ALONG;
        assert_int_equal(sweep_rules_check(&s.rules), SWEEP_OK);
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_OK);
        held = a;
        s.rules.air_move = bad[i];
        assert_int_equal(sweep_rules_check(&s.rules), SWEEP_E_CONFIG);
        if (sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL) != SWEEP_E_CONFIG)
            fail_msg("air_move %g passed", bad[i]);
        assert_memory_equal(&a, &held, sizeof a);
    }
    scene_free(&s);
}

/* Rules that passed and are then changed in place (the same object, as a
 * server holds one) are checked again: each walking field's bad value is
 * refused right after a move the good rules made, and the good rules
 * move once more after each. */
static void rules_changed_in_place_are_checked_again(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_rules good = s.rules;
    sweep_actor a = standing(0, 0);
    sweep_wish w = {sweep_v3(1, 0, 0), 0};
    for (int i = 0; i < 11; i++) {
        assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_OK);
        sweep_actor held = a;
        switch (i) {
        case 0: s.rules.walk_speed = -1.0; break;
        case 1: s.rules.ground_accel = 0.0; break;
        case 2: s.rules.air_accel = NAN; break;
        case 3: s.rules.jump_speed = -1.0; break;
        case 4: s.rules.max_step = 0.0; break;
        case 5: s.rules.speed_limit = 1e8; break;
        case 6: s.rules.crouch_radii.x = 0.3; break; /* a shape without a speed */
        case 7: s.rules.crouch_radii.y = 0.3; break;
        case 8: s.rules.crouch_radii.z = 0.3; break;
        case 9: s.rules.crouch_speed = 1.0; break; /* a speed without a shape */
        case 10: s.rules.crouch_speed = 1e7; break;
        }
        if (sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL) != SWEEP_E_CONFIG)
            fail_msg("field case %d passed", i);
        assert_memory_equal(&a, &held, sizeof a);
        s.rules = good;
    }
    scene_free(&s);
}

static void bad_rules_and_input_are_refused(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    sweep_rules def;
    sweep_rules_default(&def);
    assert_int_equal(sweep_rules_check(&def), SWEEP_OK);
    sweep_actor a = standing(0, 0), before = a;
    sweep_wish w = {sweep_v3(1, 0, 0), 0};
    s.rules.walk_speed = NAN;
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_CONFIG);
    s.rules = def;
    s.rules.speed_limit = 2.0; /* below walk speed */
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_CONFIG);
    s.rules = def;
    s.rules.speed_limit = 5000.0; /* above the config's input limit */
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_CONFIG);
    s.rules = def;
    w.velocity.y = INFINITY;
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_NONFINITE);
    w.velocity.y = 0;
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, 0.0, NULL), SWEEP_E_DT);
    assert_int_equal(sweep_act(&s.sp, &s.cfg, &s.rules, RADII, &a, &w, 2.0, NULL), SWEEP_E_DT);
    assert_int_equal(sweep_act(NULL, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_ARG);
    sweep_space no_world = s.sp;
    no_world.world = NULL;
    assert_int_equal(sweep_act(&no_world, &s.cfg, &s.rules, RADII, &a, &w, DT, NULL), SWEEP_E_ARG);
    assert_memory_equal(&a, &before, sizeof a);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walks_up_to_the_wish),
        cmocka_unit_test(too_fast_a_wish_is_clamped_and_named),
        cmocka_unit_test(natural_wishes_are_never_named),
        cmocka_unit_test(jumps_only_from_the_ground),
        cmocka_unit_test(jump_height_does_not_depend_on_the_chopping),
        cmocka_unit_test(a_wish_to_fly_is_ignored),
        cmocka_unit_test(falling_stops_at_the_speed_limit),
        cmocka_unit_test(clamped_speeds_never_pass_the_limit),
        cmocka_unit_test(falls_at_the_limit_are_never_refused),
        cmocka_unit_test(walkers_falling_at_the_limit_are_never_refused),
        cmocka_unit_test(long_moves_are_split),
        cmocka_unit_test(same_move_same_result_bytes),
        cmocka_unit_test(stairs_at_walking_speed),
        cmocka_unit_test(quake_air_move_only_adds_along_the_wish),
        cmocka_unit_test(the_air_rule_leaves_the_ground_alone),
        cmocka_unit_test(air_move_is_zero_or_one),
        cmocka_unit_test(rules_changed_in_place_are_checked_again),
        cmocka_unit_test(bad_rules_and_input_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
