/*
 * test_move.c - collide-and-slide behaviour on small hand-built scenes:
 * standing, sliding along walls, corners, corridors, stairs, ramps, a pit,
 * a low ceiling, other up axes, radii and gravity changing between moves,
 * tie-breaks and bad input.
 *
 * Scenes are z-up, the player ellipsoid has radii (0.4, 0.4, 0.9), steps are
 * 1/60 s, and a "walk" feeds each move like a game would: the lateral
 * velocity asked for, plus the vertical part of the last integration
 * velocity, plus gravity * dt.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/move.h"
#include "maps/level.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

typedef struct body {
    sweep_vec3 pos, vel;
    int grounded;
    sweep_move_result last;
} body;

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_config cfg;
} scene;

static void scene_init(scene *s)
{
    sweep_level_init(&s->lv);
    sweep_config_default(&s->cfg);
    s->w = NULL;
}

static void floor_quad(scene *s, double x0, double y0, double x1, double y1, double z)
{
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(x0, y0, z), sweep_v3(x1, y0, z), sweep_v3(x1, y1, z),
                                          sweep_v3(x0, y1, z), 1),
                     SWEEP_OK);
}

static void box(scene *s, double x0, double y0, double z0, double x1, double y1, double z1)
{
    assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(x0, y0, z0), sweep_v3(x1, y1, z1), 2, 1), SWEEP_OK);
}

static void scene_build(scene *s)
{
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
}

static void scene_free(scene *s)
{
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
}

static body at(double x, double y, double z)
{
    body b;
    memset(&b, 0, sizeof b);
    b.pos = sweep_v3(x, y, z);
    return b;
}

/* One game step: asks for `lateral` across the up axis, keeps falling. */
static void step(scene *s, body *b, sweep_vec3 lateral)
{
    sweep_vec3 up = sweep_v3_normalize(sweep_v3_scale(s->cfg.gravity, -1.0));
    sweep_vec3 vert = sweep_v3_scale(up, sweep_v3_dot(b->vel, up));
    sweep_move_input in = {b->pos, RADII, sweep_v3_madd(sweep_v3_add(lateral, vert), s->cfg.gravity, DT), DT,
                           b->grounded ? SWEEP_INPUT_GROUNDED : 0};
    sweep_status st = sweep_move(s->w, &s->cfg, &in, &b->last);
    if (st != SWEEP_OK)
        fail_msg("sweep_move failed: %s", sweep_status_name(st));
    b->pos = b->last.position;
    b->vel = b->last.velocity;
    b->grounded = (b->last.flags & SWEEP_MOVED_GROUNDED) != 0;
}

static void walk(scene *s, body *b, sweep_vec3 lateral, int steps)
{
    for (int i = 0; i < steps; i++)
        step(s, b, lateral);
}

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

static void stands_still_on_floor(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    scene_build(&s);
    body b = at(1, 2, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 60);
    assert_true(b.grounded);
    sweep_vec3 rest = b.pos;
    walk(&s, &b, sweep_v3(0, 0, 0), 120);
    /* Bit for bit: no drift, no creeping into the floor, no hopping. */
    assert_memory_equal(&rest, &b.pos, sizeof rest);
    assert_true(b.pos.x == 1.0 && b.pos.y == 2.0);
    assert_true(b.pos.z >= 0.9 && b.pos.z < 0.9 + 0.01);
    assert_true(b.vel.x == 0.0 && b.vel.y == 0.0 && b.vel.z == 0.0);
    assert_int_equal(b.last.ground_material, 1);
    near(b.last.ground_normal.z, 1.0, 1e-12);
    scene_free(&s);
}

static void wall_slide_keeps_tangential_speed(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    box(&s, 2, -50, -1, 3, 50, 3); /* wall face at x = 2 */
    scene_build(&s);
    body b = at(0, 0, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    walk(&s, &b, sweep_v3(5, 5, 0), 60);
    double y0 = b.pos.y;
    walk(&s, &b, sweep_v3(5, 5, 0), 30);
    /* Into the wall at 45 degrees: the tangential part (5 units/s) survives,
     * a speed fraction of cos 45 of the 7.07 asked for. */
    near(b.pos.y - y0, 5.0 * 30 * DT, 1e-3);
    near(b.vel.x, 0.0, 1e-9);
    near(b.vel.y, 5.0, 1e-9);
    assert_true(b.pos.x <= 2.0 - 0.4 && b.pos.x > 2.0 - 0.4 - 0.01);
    assert_true(b.grounded);
    /* The wall is among the contacts, with its normal and extents. */
    int found = 0;
    for (uint32_t i = 0; i < b.last.contact_count; i++)
        if (b.last.contacts[i].normal.x < -0.99)
            found = 1;
    assert_true(found);
    near(b.last.extents_max.x, 0.4, 1e-6);
    scene_free(&s);
}

static void internal_corner_does_not_jitter(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    box(&s, 2, -50, -1, 3, 50, 3);
    box(&s, -50, 2, -1, 2, 3, 3);
    scene_build(&s);
    body b = at(0, 0, 0.95);
    walk(&s, &b, sweep_v3(5, 5, 0), 90);
    sweep_vec3 p = b.pos;
    double moved = 0.0;
    for (int i = 0; i < 60; i++) {
        step(&s, &b, sweep_v3(5, 5, 0));
        moved += sweep_v3_len(sweep_v3_sub(b.pos, p));
        p = b.pos;
    }
    assert_true(moved < 1e-9);
    assert_true(b.pos.x > 1.59 && b.pos.x <= 1.6);
    assert_true(b.pos.y > 1.59 && b.pos.y <= 1.6);
    assert_true(b.grounded);
    scene_free(&s);
}

static void acute_wedge_corner_does_not_jitter(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    /* Two walls meeting at 60 degrees at (5, 0), open towards -x. */
    sweep_vec3 tip = sweep_v3(5, 0, -1);
    /* Wound so that both faces look into the wedge. */
    assert_int_equal(sweep_level_add_quad(&s.lv, sweep_v3(-5, -5.7735, 3), sweep_v3(5, 0, 3), tip,
                                          sweep_v3(-5, -5.7735, -1), 2),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(&s.lv, sweep_v3(5, 0, 3), sweep_v3(-5, 5.7735, 3),
                                          sweep_v3(-5, 5.7735, -1), tip, 2),
                     SWEEP_OK);
    scene_build(&s);
    body b = at(0, 0.3, 0.95);
    walk(&s, &b, sweep_v3(5, 0, 0), 120);
    sweep_vec3 p = b.pos;
    double moved = 0.0;
    for (int i = 0; i < 60; i++) {
        step(&s, &b, sweep_v3(5, 0, 0));
        moved += sweep_v3_len(sweep_v3_sub(b.pos, p));
        p = b.pos;
    }
    assert_true(moved < 1e-6);
    assert_true(b.pos.x < 5.0 - 0.4 && b.pos.x > 3.5);
    scene_free(&s);
}

static void narrow_corridor_blocks(void **state)
{
    (void)state;
    for (int wide = 0; wide < 2; wide++) {
        scene s;
        scene_init(&s);
        floor_quad(&s, -50, -50, 50, 50, 0);
        double half = wide ? 0.5 : 0.3; /* the player is 0.8 across */
        box(&s, 2, half, -1, 20, 5, 3);
        box(&s, 2, -5, -1, 20, -half, 3);
        scene_build(&s);
        body b = at(0, 0, 0.95);
        double max_x = -1e9;
        for (int i = 0; i < 120; i++) {
            step(&s, &b, sweep_v3(5, 0, 0));
            max_x = b.pos.x > max_x ? b.pos.x : max_x;
        }
        if (wide)
            assert_true(b.pos.x > 8.0);
        else
            assert_true(max_x < 2.0 - sqrt(0.16 - 0.09) + 1e-9);
        scene_free(&s);
    }
}

/* Stairs of `n` steps (rise, depth) up from x = 2, a landing, and as many
 * down again. Returns the top of the ground under x (for the float check). */
static double stair_height(double x, int n, double rise, double depth)
{
    double top = n * rise, up0 = 2.0, land = up0 + n * depth, down0 = land + 2.0;
    if (x < up0)
        return 0.0;
    if (x < land)
        return rise * (1 + (int)((x - up0) / depth));
    if (x < down0)
        return top;
    if (x < down0 + n * depth)
        return top - rise * (1 + (int)((x - down0) / depth));
    return 0.0;
}

static void build_stairs(scene *s, int n, double rise, double depth)
{
    floor_quad(s, -50, -50, 50, 50, 0);
    double land = 2.0 + n * depth, down0 = land + 2.0;
    for (int i = 0; i < n; i++) {
        box(s, 2.0 + i * depth, -5, -0.5, 2.0 + (i + 1) * depth, 5, rise * (i + 1));
        box(s, down0 + i * depth, -5, -0.5, down0 + (i + 1) * depth, 5, (n - i - 1) * rise);
    }
    box(s, land, -5, -0.5, down0, 5, n * rise);
}

static void stairs_up_and_down_stay_grounded(void **state)
{
    (void)state;
    const double rises[] = {0.15, 0.25, 0.35};
    for (int r = 0; r < 3; r++) {
        int n = 5;
        double rise = rises[r], depth = 0.6;
        scene s;
        scene_init(&s);
        build_stairs(&s, n, rise, depth);
        scene_build(&s);
        body b = at(0, 0, 0.95);
        walk(&s, &b, sweep_v3(0, 0, 0), 10);
        assert_true(b.grounded);
        double max_z = 0;
        for (int i = 0; i < 280; i++) {
            step(&s, &b, sweep_v3(3, 0, 0));
            if (!b.grounded)
                fail_msg("rise %.2f: not grounded at step %d, x = %.3f z = %.3f", rise, i, b.pos.x, b.pos.z);
            /* Never floats above the highest ground under the footprint. */
            double g = 0;
            for (double x = b.pos.x - 0.4; x <= b.pos.x + 0.4; x += 0.01) {
                double h = stair_height(x, n, rise, depth);
                g = h > g ? h : g;
            }
            if (b.pos.z - 0.9 > g + 0.02)
                fail_msg("rise %.2f: floating %.3f above ground at x = %.3f", rise, b.pos.z - 0.9 - g, b.pos.x);
            max_z = b.pos.z > max_z ? b.pos.z : max_z;
        }
        near(max_z, n * rise + 0.9, 0.01);        /* reached the landing */
        assert_true(b.pos.x > 2.0 + 2 * n * 0.6 + 2.0); /* and came all the way down */
        near(b.pos.z, 0.9, 0.01);
        scene_free(&s);
    }
}

static void step_too_high_blocks(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    box(&s, 2, -5, -0.5, 4, 5, 0.5); /* 0.5 > step height 0.35 */
    scene_build(&s);
    body b = at(0, 0, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    walk(&s, &b, sweep_v3(3, 0, 0), 120);
    assert_true(b.pos.x < 2.0);
    near(b.pos.z, 0.9, 0.01);
    scene_free(&s);
}

/*
 * A wall taller than a step, walked into head-on and at a slant: touched
 * only above step_height, it cannot be stepped over, so no move tries to
 * (the lateral slide and the gravity pass only: a step-up would add a
 * rise, a slide and a fall).
 */
static void tall_wall_tries_no_step(void **state)
{
    (void)state;
    const sweep_vec3 ways[] = {{3, 0, 0}, {3, 3, 0}, {3, -1, 0}};
    for (int k = 0; k < 3; k++) {
        scene s;
        scene_init(&s);
        floor_quad(&s, -50, -50, 50, 50, 0);
        box(&s, 2, -50, -1, 3, 50, 3); /* wall face at x = 2 */
        scene_build(&s);
        body b = at(1.5, 0, 0.95);
        walk(&s, &b, sweep_v3(0, 0, 0), 10);
        int touched = 0;
        for (int i = 0; i < 60; i++) {
            step(&s, &b, ways[k]);
            assert_true(b.grounded);
            assert_false(b.last.flags & SWEEP_MOVED_STEPPED);
            if (b.last.flags & SWEEP_MOVED_HIT) {
                touched++;
                if (b.last.iterations > 3)
                    fail_msg("way %d, step %d: %u sweeps against a tall wall", k, i, b.last.iterations);
            }
        }
        assert_true(touched > 50);
        assert_true(b.pos.x <= 2.0 - 0.4);
        near(b.pos.z, 0.9, 0.01);
        scene_free(&s);
    }
}

/* Stairs beside a wall, walked up at a slant pressed against the wall: the
 * wall is touched high, the riser low, and the riser is climbed. */
static void stairs_beside_wall_climb(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    box(&s, -50, 1, -1, 50, 2, 3);       /* wall face at y = 1 */
    box(&s, 2, -5, -0.5, 3, 1, 0.3);     /* a step 0.3 high up to the wall */
    box(&s, 3, -5, -0.5, 6, 1, 0.6);     /* and a second one */
    scene_build(&s);
    body b = at(0, 0.55, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    int stepped = 0;
    for (int i = 0; i < 90; i++) {
        step(&s, &b, sweep_v3(3, 1, 0));
        assert_true(b.grounded);
        stepped += (b.last.flags & SWEEP_MOVED_STEPPED) != 0;
    }
    assert_true(stepped >= 2);
    assert_true(b.pos.x > 3.5);
    near(b.pos.z, 0.6 + 0.9, 0.01);
    assert_true(b.pos.y <= 1.0 - 0.4);
    scene_free(&s);
}

/* A ramp rising along +x from (2, z = 0) with rise per unit `slope`. */
static void ramp(scene *s, double slope, double len)
{
    floor_quad(s, -50, -50, 50, 50, 0);
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(2, -5, 0), sweep_v3(2 + len, -5, slope * len),
                                          sweep_v3(2 + len, 5, slope * len), sweep_v3(2, 5, 0), 3),
                     SWEEP_OK);
}

static void walkable_ramp_climbs_and_holds(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ramp(&s, 0.46631, 10.0); /* 25 degrees */
    scene_build(&s);
    body b = at(0, 0, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    walk(&s, &b, sweep_v3(3, 0, 0), 120);
    assert_true(b.pos.x > 4.0);
    assert_true(b.pos.z > 0.9 + 0.46631 * 1.5);
    assert_true(b.grounded);
    assert_int_equal(b.last.ground_material, 3);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    sweep_vec3 rest = b.pos;
    walk(&s, &b, sweep_v3(0, 0, 0), 120);
    /* Standing on a walkable slope: does not slide down. */
    assert_true(sweep_v3_len(sweep_v3_sub(b.pos, rest)) < 1e-9);
    assert_true(b.grounded);
    scene_free(&s);
}

static void steep_ramp_cannot_be_climbed_and_slides(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ramp(&s, 1.4281, 4.0); /* 55 degrees */
    scene_build(&s);
    body b = at(0, 0, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    double max_z = 0;
    for (int i = 0; i < 120; i++) {
        step(&s, &b, sweep_v3(3, 0, 0));
        max_z = b.pos.z > max_z ? b.pos.z : max_z;
    }
    assert_true(max_z < 0.9 + 0.35 + 0.01); /* at most what a step could lift */
    assert_true(b.pos.x < 2.5);

    /* Dropped onto the slope, it slides down it, never standing, to the
     * floor. (The walk keeps only vertical velocity, so the slide is slow.) */
    body c = at(3.5, 0, 1.4281 * 1.5 + 2.0);
    walk(&s, &c, sweep_v3(0, 0, 0), 40);
    double z = c.pos.z, x = c.pos.x;
    for (int i = 0; i < 120; i++) {
        step(&s, &c, sweep_v3(0, 0, 0));
        assert_false(c.grounded);
        assert_true(c.pos.z < z && c.pos.x < x);
        z = c.pos.z, x = c.pos.x;
    }
    walk(&s, &c, sweep_v3(0, 0, 0), 900);
    assert_true(c.pos.x < 2.0);
    near(c.pos.z, 0.9, 0.01);
    assert_true(c.grounded);
    scene_free(&s);
}

static void pit_falls_and_lands(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    /* Floor around a 2 x 2 hole at x in [3, 5], y in [-1, 1], 3 deep. */
    floor_quad(&s, -50, -50, 3, 50, 0);
    floor_quad(&s, 5, -50, 50, 50, 0);
    floor_quad(&s, 3, 1, 5, 50, 0);
    floor_quad(&s, 3, -50, 5, -1, 0);
    floor_quad(&s, 3, -1, 5, 1, -3);
    box(&s, 2, -2, -4, 3, 2, 0); /* pit walls: boxes around the hole */
    box(&s, 5, -2, -4, 6, 2, 0);
    box(&s, 3, 1, -4, 5, 2, 0);
    box(&s, 3, -2, -4, 5, -1, 0);
    scene_build(&s);
    body b = at(0, 0, 0.95);
    walk(&s, &b, sweep_v3(0, 0, 0), 10);
    walk(&s, &b, sweep_v3(2, 0, 0), 180);
    near(b.pos.z, -3 + 0.9, 0.01);
    assert_true(b.pos.x > 3.0 && b.pos.x < 5.0);
    assert_true(b.grounded);
    scene_free(&s);
}

static void low_ceiling_blocks_high_one_passes(void **state)
{
    (void)state;
    for (int high = 0; high < 2; high++) {
        scene s;
        scene_init(&s);
        floor_quad(&s, -50, -50, 50, 50, 0);
        double bottom = high ? 2.0 : 1.5; /* the player is 1.8 tall */
        box(&s, 3, -5, bottom, 6, 5, bottom + 1);
        scene_build(&s);
        body b = at(0, 0, 0.95);
        walk(&s, &b, sweep_v3(0, 0, 0), 10);
        walk(&s, &b, sweep_v3(3, 0, 0), 150);
        if (high)
            assert_true(b.pos.x > 6.5);
        else
            assert_true(b.pos.x < 3.0);
        near(b.pos.z, 0.9, 0.01);
        scene_free(&s);
    }
}

static void other_up_axis(void **state)
{
    (void)state;
    /* y up: gravity along -y, a floor facing +y. */
    scene s;
    scene_init(&s);
    s.cfg.gravity = sweep_v3(0, -9.81, 0);
    assert_int_equal(sweep_level_add_quad(&s.lv, sweep_v3(-50, 0, -50), sweep_v3(-50, 0, 50), sweep_v3(50, 0, 50),
                                          sweep_v3(50, 0, -50), 1),
                     SWEEP_OK);
    scene_build(&s);
    body b = at(0, 0.5, 0);
    walk(&s, &b, sweep_v3(0, 0, 0), 60);
    assert_true(b.grounded);
    near(b.pos.y, 0.4, 0.01); /* radius along y is 0.4 */
    walk(&s, &b, sweep_v3(2, 0, 0), 60);
    near(b.pos.x, 2.0, 0.01);
    assert_true(b.grounded);
    scene_free(&s);
}

/* A move remembers the last radii and gravity it derived its eSpace and up
 * axis from (move.c): bodies of other radii, and a config changed in place
 * between moves, must each get their own. */
static void radii_and_gravity_changes_are_seen(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    scene_build(&s);
    const sweep_vec3 radii[2] = {RADII, {0.5, 0.5, 0.25}};
    sweep_move_result first[2], r;
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 2; k++) {
            sweep_move_input in = {sweep_v3(0, 0, radii[k].z + 0.01), radii[k],
                                   sweep_v3_scale(s.cfg.gravity, DT), DT, SWEEP_INPUT_GROUNDED};
            assert_int_equal(sweep_move(s.w, &s.cfg, &in, &r), SWEEP_OK);
            assert_true(r.flags & SWEEP_MOVED_GROUNDED);
            near(r.position.z, radii[k].z, 0.01);
            if (round == 0)
                first[k] = r;
            else
                assert_memory_equal(&r, &first[k], sizeof r);
        }
    /* The same config and radii as the last move, gravity turned off in
     * place: no up, so no ground. */
    s.cfg.gravity = sweep_v3(0, 0, 0);
    sweep_move_input in = {sweep_v3(0, 0, 1), radii[1], sweep_v3(0, 0, -60), DT, SWEEP_INPUT_GROUNDED};
    assert_int_equal(sweep_move(s.w, &s.cfg, &in, &r), SWEEP_OK);
    assert_false(r.flags & SWEEP_MOVED_GROUNDED);
    assert_true(r.flags & SWEEP_MOVED_HIT);
    scene_free(&s);
}

static void no_gravity_single_slide(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.cfg.gravity = sweep_v3(0, 0, 0);
    box(&s, 2, -50, -50, 3, 50, 50);
    scene_build(&s);
    sweep_move_input in = {sweep_v3(0, 0, 0), RADII, sweep_v3(180, 60, 60), DT, SWEEP_INPUT_GROUNDED};
    sweep_move_result r;
    assert_int_equal(sweep_move(s.w, &s.cfg, &in, &r), SWEEP_OK);
    assert_true(r.position.x <= 1.6 && r.position.x > 1.59);
    near(r.position.y, 1.0, 1e-9);
    near(r.position.z, 1.0, 1e-9);
    assert_false(r.flags & SWEEP_MOVED_GROUNDED);
    assert_true(r.flags & SWEEP_MOVED_HIT);
    scene_free(&s);
}

static void equal_contacts_break_ties_by_index(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    /* Three copies of one floor triangle: 0, 1, 2; the ground must be 0. */
    uint32_t v[3];
    sweep_level_add_vertex(&s.lv, sweep_v3(-50, -50, 0), &v[0]);
    sweep_level_add_vertex(&s.lv, sweep_v3(50, -50, 0), &v[1]);
    sweep_level_add_vertex(&s.lv, sweep_v3(0, 50, 0), &v[2]);
    for (uint32_t m = 7; m < 10; m++)
        assert_int_equal(sweep_level_add_triangle(&s.lv, v[0], v[1], v[2], m), SWEEP_OK);
    scene_build(&s);
    body b = at(0, 0, 1.5);
    walk(&s, &b, sweep_v3(0, 0, 0), 60);
    assert_true(b.grounded);
    assert_int_equal(b.last.ground_triangle, 0);
    assert_int_equal(b.last.ground_material, 7);
    scene_free(&s);
}

static void starts_embedded_is_pushed_out(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    scene_build(&s);
    sweep_move_input in = {sweep_v3(0, 0, 0.5), RADII, sweep_v3(1, 0, 0), DT, 0};
    sweep_move_result r;
    assert_int_equal(sweep_move(s.w, &s.cfg, &in, &r), SWEEP_OK);
    assert_true(r.flags & SWEEP_MOVED_STARTED_EMBEDDED);
    assert_true(r.position.z >= 0.9);
    near(r.position.x, 1.0 / 60.0, 1e-9);
    scene_free(&s);
}

static void bad_input_is_refused_untouched(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    floor_quad(&s, -50, -50, 50, 50, 0);
    scene_build(&s);
    const sweep_move_input good = {sweep_v3(0, 0, 1), RADII, sweep_v3(1, 0, 0), DT, 0};
    struct {
        sweep_move_input in;
        sweep_status want;
    } cases[12];
    for (int i = 0; i < 12; i++)
        cases[i].in = good;
    cases[0].in.position.x = NAN, cases[0].want = SWEEP_E_NONFINITE;
    cases[1].in.velocity.z = INFINITY, cases[1].want = SWEEP_E_NONFINITE;
    cases[2].in.dt = NAN, cases[2].want = SWEEP_E_NONFINITE;
    cases[3].in.radii.y = 0.0, cases[3].want = SWEEP_E_RADII;
    cases[4].in.radii.z = -1.0, cases[4].want = SWEEP_E_RADII;
    cases[5].in.radii = sweep_v3(1e6, 1e6, 1e6), cases[5].want = SWEEP_E_RADII;
    cases[6].in.radii = sweep_v3(0.02, 0.02, 5.0), cases[6].want = SWEEP_E_RADII; /* 250:1 */
    cases[7].in.velocity = sweep_v3(1e5, 0, 0), cases[7].want = SWEEP_E_VELOCITY;
    cases[8].in.dt = 0.0, cases[8].want = SWEEP_E_DT;
    cases[9].in.dt = -DT, cases[9].want = SWEEP_E_DT;
    cases[10].in.dt = 5.0, cases[10].want = SWEEP_E_DT;
    cases[11].in.position.y = 1e9, cases[11].want = SWEEP_E_POSITION;
    for (int i = 0; i < 12; i++) {
        sweep_move_result r, sentinel;
        memset(&r, 0xab, sizeof r);
        memset(&sentinel, 0xab, sizeof sentinel);
        sweep_status st = sweep_move(s.w, &s.cfg, &cases[i].in, &r);
        if (st != cases[i].want)
            fail_msg("case %d: got %s, want %s", i, sweep_status_name(st), sweep_status_name(cases[i].want));
        assert_memory_equal(&r, &sentinel, sizeof r);
    }
    sweep_config bad = s.cfg;
    bad.skin = 0.0;
    sweep_move_result r;
    assert_int_equal(sweep_move(s.w, &bad, &good, &r), SWEEP_E_CONFIG);
    bad = s.cfg;
    bad.walkable_normal_up = NAN;
    assert_int_equal(sweep_move(s.w, &bad, &good, &r), SWEEP_E_CONFIG);
    assert_int_equal(sweep_move(NULL, &s.cfg, &good, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move(s.w, &s.cfg, &good, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_move(s.w, &s.cfg, &good, &r), SWEEP_OK);
    scene_free(&s);
}

/* A config that passed and is then changed in place (the same object, as
 * a server holds one) is checked again: every field's bad value is still
 * refused, and the good config passes once more after each. */
static void config_changed_in_place_is_checked_again(void **state)
{
    (void)state;
    sweep_config cfg;
    sweep_config_default(&cfg);
    const sweep_config good = cfg;
    assert_int_equal(sweep_config_check(&cfg), SWEEP_OK);
    for (int i = 0; i < 13; i++) {
        cfg = good;
        switch (i) {
        case 0: cfg.gravity.z = NAN; break;
        case 1: cfg.walkable_normal_up = 0.0; break;
        case 2: cfg.step_height = -1.0; break;
        case 3: cfg.skin = 0.5; break;
        case 4: cfg.max_iterations = 0; break;
        case 5: cfg.max_iterations = 65; break;
        case 6: cfg.min_radius = 0.0; break;
        case 7: cfg.max_radius = 1e7; break;
        case 8: cfg.max_anisotropy = 0.5; break;
        case 9: cfg.max_speed = INFINITY; break;
        case 10: cfg.max_dt = -1.0; break;
        case 11: cfg.max_coordinate = NAN; break;
        case 12: cfg.gravity.x = INFINITY; break;
        }
        if (sweep_config_check(&cfg) != SWEEP_E_CONFIG)
            fail_msg("field case %d passed", i);
        cfg = good;
        assert_int_equal(sweep_config_check(&cfg), SWEEP_OK);
    }
    /* The same values with other bytes in the padding still pass. */
    sweep_config padded;
    memset(&padded, 0x5a, sizeof padded);
    padded.gravity = good.gravity, padded.walkable_normal_up = good.walkable_normal_up;
    padded.step_height = good.step_height, padded.skin = good.skin, padded.max_iterations = good.max_iterations;
    padded.min_radius = good.min_radius, padded.max_radius = good.max_radius;
    padded.max_anisotropy = good.max_anisotropy, padded.max_speed = good.max_speed;
    padded.max_dt = good.max_dt, padded.max_coordinate = good.max_coordinate;
    assert_int_equal(sweep_config_check(&padded), SWEEP_OK);
    assert_int_equal(sweep_config_check(NULL), SWEEP_E_ARG);
}

static void bad_world_is_refused(void **state)
{
    (void)state;
    sweep_vec3 v[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    uint32_t ix[3] = {0, 1, 3};
    sweep_world_desc d = {v, 3, ix, NULL, 1};
    sweep_world *w = (sweep_world *)0x1;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_E_GEOMETRY);
    assert_ptr_equal(w, (sweep_world *)0x1);
    ix[2] = 2;
    v[1].y = NAN;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_E_GEOMETRY);
    v[1] = sweep_v3(2, 0, 0);
    v[2] = sweep_v3(4, 0, 0); /* collinear: counted, left out */
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    sweep_world_info info;
    sweep_world_get_info(w, &info);
    assert_int_equal(info.triangle_count, 1);
    assert_int_equal(info.degenerate_count, 1);
    sweep_world_destroy(w);
}

static void cos_degrees_is_accurate(void **state)
{
    (void)state;
    for (int i = -720; i <= 720; i++) {
        double d = i * 0.5;
        double want = cos(d * (3.14159265358979323846 / 180.0));
        near(sweep_cos_degrees(d), want, 1e-15);
    }
    assert_true(sweep_cos_degrees(0.0) == 1.0);
    assert_true(sweep_cos_degrees(90.0) == 0.0);
    assert_true(isnan(sweep_cos_degrees(NAN)));
}

/* Within rounding of libm's sin, exact where sin is 0 or 1, and pinned to
 * its bits: the importers turn a map's angles with it, on every machine
 * alike, where libm's last bit may follow the CPU. */
static void sin_degrees_is_accurate(void **state)
{
    (void)state;
    for (int i = -40000; i <= 40000; i++) {
        double d = i * 0.0359;
        double want = sin(fmod(d, 360.0) * (3.14159265358979323846 / 180.0));
        near(sweep_sin_degrees(d), want, 1e-15);
    }
    for (int k = -8; k <= 8; k++) {
        double s = sweep_sin_degrees(180.0 * k);
        assert_true(s == 0.0 && !signbit(s));
        assert_true(sweep_sin_degrees(90.0 + 360.0 * k) == 1.0);
        assert_true(sweep_sin_degrees(-90.0 + 360.0 * k) == -1.0);
    }
    assert_true(sweep_sin_degrees(1.0) == 0x1.1df0b2b89dd1ep-6);
    assert_true(sweep_sin_degrees(-135.5) == -0x1.66dd943f43372p-1);
    assert_true(isnan(sweep_sin_degrees(INFINITY)));
}

static void status_names_are_stable(void **state)
{
    (void)state;
    assert_string_equal(sweep_status_name(SWEEP_OK), "OK");
    assert_string_equal(sweep_status_name(SWEEP_E_NONFINITE), "NONFINITE");
    assert_string_equal(sweep_status_name((sweep_status)999), "UNKNOWN");
    for (int s = 0; s < SWEEP_STATUS_COUNT; s++)
        assert_non_null(sweep_status_message((sweep_status)s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stands_still_on_floor),
        cmocka_unit_test(config_changed_in_place_is_checked_again),
        cmocka_unit_test(wall_slide_keeps_tangential_speed),
        cmocka_unit_test(internal_corner_does_not_jitter),
        cmocka_unit_test(acute_wedge_corner_does_not_jitter),
        cmocka_unit_test(narrow_corridor_blocks),
        cmocka_unit_test(stairs_up_and_down_stay_grounded),
        cmocka_unit_test(step_too_high_blocks),
        cmocka_unit_test(tall_wall_tries_no_step),
        cmocka_unit_test(stairs_beside_wall_climb),
        cmocka_unit_test(walkable_ramp_climbs_and_holds),
        cmocka_unit_test(steep_ramp_cannot_be_climbed_and_slides),
        cmocka_unit_test(pit_falls_and_lands),
        cmocka_unit_test(low_ceiling_blocks_high_one_passes),
        cmocka_unit_test(other_up_axis),
        cmocka_unit_test(radii_and_gravity_changes_are_seen),
        cmocka_unit_test(no_gravity_single_slide),
        cmocka_unit_test(equal_contacts_break_ties_by_index),
        cmocka_unit_test(starts_embedded_is_pushed_out),
        cmocka_unit_test(bad_input_is_refused_untouched),
        cmocka_unit_test(bad_world_is_refused),
        cmocka_unit_test(cos_degrees_is_accurate),
        cmocka_unit_test(sin_degrees_is_accurate),
        cmocka_unit_test(status_names_are_stable),
    };
    return cmocka_run_group_tests_name("move", tests, NULL, NULL);
}
