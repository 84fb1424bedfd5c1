/*
 * test_crowd.c - players as obstacles: bodies stop against each other at
 * the sum of their radii, stand on each other's heads, slide round each
 * other, never collide with themselves, and the same order of moves gives
 * the same bits.
 *
 * "Apart" is checked without the core's sweep: bodies of equal round
 * radii r side by side overlap when one's centre is closer than r to the
 * octagon (apothem r) that the other's shell draws on the ground.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/crowd.h"
#include "core/crowd_impl.h"
#include "core/hash.h"
#include "core/stance.h"
#include "maps/level.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

typedef struct guy {
    sweep_vec3 pos, vel;
    int grounded;
    sweep_move_result last;
} guy;

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_crowd *crowd;
    sweep_config cfg;
} scene;

/* A floor, and with `wall` a wall 0.05 thick whose face is the plane x = 1. */
static void scene_init_with(scene *s, uint32_t slots, int wall)
{
    sweep_level_init(&s->lv);
    sweep_config_default(&s->cfg);
    assert_int_equal(sweep_level_add_quad(&s->lv, sweep_v3(-50, -50, 0), sweep_v3(50, -50, 0), sweep_v3(50, 50, 0),
                                          sweep_v3(-50, 50, 0), 1),
                     SWEEP_OK);
    if (wall)
        assert_int_equal(sweep_level_add_box(&s->lv, sweep_v3(1, -20, 0), sweep_v3(1.05, 20, 3), 1, 0), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(&d, &s->w), SWEEP_OK);
    assert_int_equal(sweep_crowd_create(slots, &s->crowd), SWEEP_OK);
}

static void scene_init(scene *s, uint32_t slots)
{
    scene_init_with(s, slots, 0);
}

static void scene_free(scene *s)
{
    sweep_crowd_destroy(s->crowd);
    sweep_world_destroy(s->w);
    sweep_level_free(&s->lv);
}

static void put(scene *s, guy *g, uint32_t slot, double x, double y, double z)
{
    memset(g, 0, sizeof *g);
    g->pos = sweep_v3(x, y, z);
    assert_int_equal(sweep_crowd_set(s->crowd, slot, g->pos, RADII), SWEEP_OK);
}

/* One move of the body in `slot`, which then moves its shell. */
static void step(scene *s, guy *g, uint32_t slot, sweep_vec3 lateral)
{
    sweep_space sp = {s->w, NULL, s->crowd, slot};
    sweep_move_input in = {g->pos, RADII, sweep_v3(lateral.x, lateral.y, g->vel.z - 9.81 * DT), DT,
                           g->grounded ? SWEEP_INPUT_GROUNDED : 0};
    assert_int_equal(sweep_move_in(&sp, &s->cfg, &in, &g->last), SWEEP_OK);
    g->pos = g->last.position;
    g->vel = g->last.velocity;
    g->grounded = (g->last.flags & SWEEP_MOVED_GROUNDED) != 0;
    assert_int_equal(sweep_crowd_set(s->crowd, slot, g->pos, RADII), SWEEP_OK);
}

static void head_on_stop_at_sum_of_radii(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 4);
    guy a, b;
    put(&s, &a, 0, -3, 0, 0.9005);
    put(&s, &b, 1, 3, 0, 0.9005);
    int touched = 0;
    for (int t = 0; t < 180; t++) {
        step(&s, &a, 0, sweep_v3(4, 0, 0));
        step(&s, &b, 1, sweep_v3(-4, 0, 0));
        double gap = b.pos.x - a.pos.x;
        assert_true(gap >= 0.8 - 1e-9);
        for (uint32_t i = 0; i < a.last.contact_count; i++)
            if (a.last.contacts[i].body == 1) {
                touched = 1;
                assert_true(sweep_crowd_slot_of_triangle(a.last.contacts[i].triangle) == 1);
            }
    }
    assert_true(touched);
    /* Pressed together, they rest a skin apart at the sum of their radii. */
    assert_true(b.pos.x - a.pos.x < 0.8 + 0.01);
    assert_true(a.pos.y == 0.0 && b.pos.y == 0.0);
    scene_free(&s);
}

static void stands_on_a_head(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 2);
    guy low, high;
    put(&s, &low, 0, 0, 0, 0.9005);
    put(&s, &high, 1, 0.1, 0.05, 4.0);
    for (int t = 0; t < 120; t++) {
        step(&s, &low, 0, sweep_v3(0, 0, 0));
        step(&s, &high, 1, sweep_v3(0, 0, 0));
    }
    assert_true(high.grounded);
    assert_int_equal(high.last.ground_body, 0);
    assert_true(high.pos.z >= low.pos.z + 1.8 - 1e-9 && high.pos.z < low.pos.z + 1.8 + 0.01);
    assert_int_equal(low.last.ground_body, SWEEP_NO_BODY);
    scene_free(&s);
}

/* A head far outside the world's box (which bounds the world's triangles
 * only, not the shells a move culls by their planes) still holds a body
 * that lands on it; the lower body hangs where it is set. */
static void stands_on_a_head_far_outside_the_world(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 2);
    guy low, high;
    const double x = 120, y = -90, z = 30.5;
    put(&s, &high, 1, x + 0.1, y + 0.05, z + 3.5);
    for (int t = 0; t < 120; t++) {
        put(&s, &low, 0, x, y, z);
        step(&s, &high, 1, sweep_v3(0, 0, 0));
    }
    assert_true(high.grounded);
    assert_int_equal(high.last.ground_body, 0);
    assert_true(high.pos.z >= z + 1.8 - 1e-9 && high.pos.z < z + 1.8 + 0.01);
    scene_free(&s);
}

/* Distance from (x, y) to the octagon of apothem r round the origin (0
 * inside), by the distance to its nearest side segment. */
static double octagon_distance(double x, double y, double r)
{
    const double t = (sqrt(2.0) - 1.0) * r;
    const double vx[8] = {r, t, -t, -r, -r, -t, t, r}, vy[8] = {t, r, r, t, -t, -r, -r, -t};
    int inside = 1;
    double best = INFINITY;
    for (int k = 0; k < 8; k++) {
        int k1 = (k + 1) & 7;
        double ex = vx[k1] - vx[k], ey = vy[k1] - vy[k], px = x - vx[k], py = y - vy[k];
        if (ex * py - ey * px < 0.0)
            inside = 0;
        double f = (px * ex + py * ey) / (ex * ex + ey * ey);
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        double dx = px - f * ex, dy = py - f * ey, d = sqrt(dx * dx + dy * dy);
        if (d < best)
            best = d;
    }
    return inside ? 0.0 : best;
}

static void slides_round_another(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 2);
    guy a, b;
    put(&s, &a, 0, -3, 0.5, 0.9005); /* meets b on a slanted side */
    put(&s, &b, 1, 0, 0, 0.9005);
    for (int t = 0; t < 180; t++) {
        step(&s, &a, 0, sweep_v3(3, 0, 0));
        double d = octagon_distance(a.pos.x - b.pos.x, a.pos.y - b.pos.y, 0.4);
        if (!(d >= 0.4 - 1e-9))
            fail_msg("tick %d: a is %.6g from b's shell, less than its radius 0.4", t, d);
    }
    assert_true(a.pos.x > 1.0); /* it got past */
    scene_free(&s);
}

/* A body kept through a grow still blocks. */
static void grown_crowd_keeps_bodies(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    guy a, b;
    put(&s, &b, 0, 0, 0, 0.9005);
    assert_int_equal(sweep_crowd_grow(s.crowd, 40), SWEEP_OK);
    put(&s, &a, 39, -3, 0, 0.9005);
    for (int t = 0; t < 90; t++)
        step(&s, &a, 39, sweep_v3(4, 0, 0));
    assert_true(a.pos.x <= -0.8 + 1e-9 && a.pos.x > -0.81);
    scene_free(&s);
}

static void own_shell_is_ignored(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 1);
    guy a;
    put(&s, &a, 0, 0, 0, 0.9005);
    for (int t = 0; t < 60; t++)
        step(&s, &a, 0, sweep_v3(2, 1, 0));
    assert_true(fabs(a.pos.x - 2.0) < 1e-9 && fabs(a.pos.y - 1.0) < 1e-9);
    scene_free(&s);
}

static uint64_t run_order(int reverse)
{
    scene s;
    scene_init(&s, 8);
    guy g[8];
    for (uint32_t i = 0; i < 8; i++)
        put(&s, &g[i], i, 3.0 * cos(i * 0.785398), 3.0 * sin(i * 0.785398), 0.9005);
    uint64_t h = SWEEP_HASH_INIT;
    for (int t = 0; t < 240; t++) {
        for (uint32_t k = 0; k < 8; k++) {
            uint32_t i = reverse ? 7 - k : k;
            step(&s, &g[i], i, sweep_v3(-g[i].pos.x, -g[i].pos.y, 0)); /* all to the middle */
        }
        for (uint32_t i = 0; i < 8; i++)
            h = sweep_hash_body(h, g[i].pos, g[i].vel, (uint32_t)g[i].grounded);
    }
    for (uint32_t i = 0; i < 8; i++)
        for (uint32_t j = i + 1; j < 8; j++) {
            double dx = g[i].pos.x - g[j].pos.x, dy = g[i].pos.y - g[j].pos.y;
            assert_true(sqrt(dx * dx + dy * dy) >= 0.8 - 1e-9);
        }
    scene_free(&s);
    return h;
}

/* 300 bodies on a grid, all walking to one corner and then the next (a
 * crush at each), some despawning and coming back: the hash of every
 * state, with the broad phase or with the scan of every slot. */
static uint64_t run_crowd(uint32_t scan_max, uint64_t *touches)
{
    enum { N = 300 };
    scene s;
    scene_init(&s, N);
    sweep__crowd_scan_up_to(s.crowd, scan_max);
    static guy g[N];
    for (uint32_t i = 0; i < N; i++)
        put(&s, &g[i], i, -40.0 + 2.5 * (i % 20), -40.0 + 2.5 * (i / 20), 0.9005);
    uint64_t h = SWEEP_HASH_INIT;
    *touches = 0;
    for (int t = 0; t < 200; t++) {
        double cx = t / 50 % 2 ? 30.0 : -30.0, cy = t / 100 % 2 ? 30.0 : -30.0;
        for (uint32_t i = 0; i < N; i++) {
            if ((t + i) % 97 == 0) { /* gone for a tick, back in the same place */
                sweep_crowd_clear(s.crowd, i);
                continue;
            }
            sweep_vec3 d = sweep_v3(cx - g[i].pos.x, cy - g[i].pos.y, 0);
            double l = sqrt(d.x * d.x + d.y * d.y);
            step(&s, &g[i], i, l > 0 ? sweep_v3(6 * d.x / l, 6 * d.y / l, 0) : d);
            for (uint32_t c = 0; c < g[i].last.contact_count; c++)
                *touches += g[i].last.contacts[c].body != SWEEP_NO_BODY;
            h = sweep_hash_body(h, g[i].pos, g[i].vel, (uint32_t)g[i].grounded);
        }
    }
    scene_free(&s);
    return h;
}

/* The broad phase finds the same bodies in the same order as a scan of
 * every slot: every state equal to the bit. */
static void broad_phase_equals_the_scan(void **state)
{
    (void)state;
    uint64_t ta, tb;
    uint64_t a = run_crowd(0, &ta), b = run_crowd(UINT32_MAX, &tb);
    assert_true(ta > 1000); /* they did press against each other */
    assert_int_equal(ta, tb);
    assert_true(a == b);
}

/* The crush as the crowd answered it when the broad phase was a sweep and
 * prune along x and every set built its shell: finding bodies and building
 * shells faster must not change a bit. Its bodies that come back where
 * another now stands start inside that one's shell; since a shell gives
 * way (scene.h) instead of pushing them out, the hash is the one of
 * that rule, the same on every build. */
#define CRUSH_HASH 0x140d9b925deccb56ull

static void crush_keeps_its_bits(void **state)
{
    (void)state;
    uint64_t touches, h = run_crowd(0, &touches);
    if (h != CRUSH_HASH)
        fail_msg("the crush hashed to 0x%016llx, %llu touches", (unsigned long long)h, (unsigned long long)touches);
}

static void order_decides_and_repeats(void **state)
{
    (void)state;
    uint64_t a = run_order(0), b = run_order(0), c = run_order(1);
    assert_true(a == b);
    assert_true(a != c); /* the order of moves is part of the input */
}

/* A small generator of its own, so the cases are the same everywhere. */
static double rnd(uint64_t *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) / 9007199254740992.0;
}

/* One of the shell's corner values on an axis, or one near it, or any. */
static double bound_near(uint64_t *st, const double *v, double lo, double hi)
{
    double r = rnd(st), c = v[(int)(rnd(st) * 8) & 7];
    if (r < 0.3)
        return c; /* exactly a corner: the box test's ties */
    if (r < 0.5)
        return nextafter(c, rnd(st) < 0.5 ? -INFINITY : INFINITY);
    return lo + (hi - lo) * rnd(st);
}

/* Which of a shell's triangles meet a box is decided per corner, not
 * from each triangle's box: it must say what the boxes of the triangles
 * as built say, ties at the corners' own values included, and each
 * side's box must be its triangles' box. Fails if a fan piece or a side
 * is paired with the wrong corners, or a comparison turned round. */
static void shell_meets_equals_its_triangles_boxes(void **state)
{
    (void)state;
    sweep_crowd *c;
    assert_int_equal(sweep_crowd_create(1, &c), SWEEP_OK);
    uint64_t st = 12345;
    uint32_t seen_some = 0, seen_all = 0, seen_none = 0;
    for (int n = 0; n < 20000; n++) {
        double far = n % 3 == 0 ? 1e5 : 10.0;
        sweep_vec3 p = sweep_v3(far * (2 * rnd(&st) - 1), far * (2 * rnd(&st) - 1), far * (2 * rnd(&st) - 1));
        sweep_vec3 r = sweep_v3(0.1 + rnd(&st), 0.1 + rnd(&st), 0.1 + 2 * rnd(&st));
        assert_int_equal(sweep_crowd_set(c, 0, p, r), SWEEP_OK);
        sweep__shell sh;
        sweep__crowd_shell_of(c, 0, &sh);
        sweep__tri t[SWEEP_CROWD_SHELL_TRIANGLES];
        sweep__crowd_shell_tris(&sh, (1u << SWEEP_CROWD_SHELL_TRIANGLES) - 1, t);
        double span = r.x + r.y + r.z;
        double zs[2] = {sh.zb, sh.zt};
        sweep_vec3 lo, hi;
        lo.x = bound_near(&st, sh.x, p.x - 2 * span, p.x + 2 * span);
        hi.x = bound_near(&st, sh.x, lo.x, p.x + 2 * span);
        lo.y = bound_near(&st, sh.y, p.y - 2 * span, p.y + 2 * span);
        hi.y = bound_near(&st, sh.y, lo.y, p.y + 2 * span);
        lo.z = rnd(&st) < 0.3 ? zs[n & 1] : p.z - 2 * span + 3 * span * rnd(&st);
        hi.z = rnd(&st) < 0.3 ? zs[(n >> 1) & 1] : lo.z + 2 * span * rnd(&st);
        if (n % 10 == 0) /* round the whole shell */
            lo = sweep_v3(p.x - span, p.y - span, p.z - span), hi = sweep_v3(p.x + span, p.y + span, p.z + span);
        if (hi.x < lo.x || hi.y < lo.y || hi.z < lo.z)
            continue;
        uint32_t want = 0;
        for (uint32_t j = 0; j < SWEEP_CROWD_SHELL_TRIANGLES; j++) {
            sweep_vec3 tl = sweep_v3_min(t[j].a, sweep_v3_min(t[j].b, t[j].c));
            sweep_vec3 th = sweep_v3_max(t[j].a, sweep_v3_max(t[j].b, t[j].c));
            if (tl.x <= hi.x && th.x >= lo.x && tl.y <= hi.y && th.y >= lo.y && tl.z <= hi.z && th.z >= lo.z)
                want |= 1u << j;
            if (j < SWEEP__CROWD_SHELL_FLAT) {
                sweep_vec3 sl, sh_hi;
                sweep__shell_side_box(&sh, j >> 1, &sl, &sh_hi);
                assert_true(sweep_v3_same_bits(sl, tl) && sweep_v3_same_bits(sh_hi, th));
            }
        }
        uint32_t got = sweep__shell_meets(&sh, lo, hi);
        if (got != want)
            fail_msg("case %d: meets 0x%07x, the triangles' boxes 0x%07x", n, got, want);
        seen_none += want == 0;
        seen_all += want == (1u << SWEEP_CROWD_SHELL_TRIANGLES) - 1;
        seen_some += want != 0 && want != (1u << SWEEP_CROWD_SHELL_TRIANGLES) - 1;
    }
    assert_true(seen_none > 100 && seen_all > 100 && seen_some > 1000);
    sweep_crowd_destroy(c);
}

static void bad_slots_and_numbers(void **state)
{
    (void)state;
    sweep_crowd *c;
    assert_int_equal(sweep_crowd_create(0, &c), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_create(3, &c), SWEEP_OK);
    assert_int_equal(sweep_crowd_set(c, 3, sweep_v3(0, 0, 0), RADII), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_set(c, 0, sweep_v3(NAN, 0, 0), RADII), SWEEP_E_NONFINITE);
    assert_int_equal(sweep_crowd_set(c, 0, sweep_v3(0, 0, 0), sweep_v3(0, 1, 1)), SWEEP_E_RADII);
    sweep_crowd_clear(c, 7); /* out of range: nothing */
    assert_int_equal(sweep_crowd_slots(c), 3);
    assert_int_equal(sweep_crowd_set(c, 2, sweep_v3(1, 2, 3), RADII), SWEEP_OK);
    assert_int_equal(sweep_crowd_grow(c, 9), SWEEP_OK);
    assert_int_equal(sweep_crowd_slots(c), 9);
    assert_int_equal(sweep_crowd_set(c, 8, sweep_v3(0, 0, 0), RADII), SWEEP_OK);
    assert_int_equal(sweep_crowd_grow(c, SWEEP_CROWD_MAX_SLOTS + 1), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_slot_of_triangle(5), SWEEP_NO_BODY);
    assert_int_equal(sweep_crowd_slot_of_triangle(SWEEP_CROWD_FIRST_TRIANGLE + 2 * SWEEP_CROWD_SHELL_TRIANGLES + 3), 2);
    sweep_crowd_destroy(c);
    sweep_space sp = {NULL, NULL, NULL, SWEEP_NO_BODY};
    sweep_config cfg;
    sweep_config_default(&cfg);
    sweep_move_input in = {{0, 0, 0}, RADII, {0, 0, 0}, DT, 0};
    sweep_move_result r;
    assert_int_equal(sweep_move_in(&sp, &cfg, &in, &r), SWEEP_E_ARG);
}


/* The point of triangle abc nearest p (Ericson, "Real-Time Collision
 * Detection", 5.1.5: by the Voronoi regions of its corners and edges). */
static sweep_vec3 nearest_on_triangle(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    sweep_vec3 ab = sweep_v3_sub(b, a), ac = sweep_v3_sub(c, a), ap = sweep_v3_sub(p, a);
    double d1 = sweep_v3_dot(ab, ap), d2 = sweep_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return a;
    sweep_vec3 bp = sweep_v3_sub(p, b);
    double d3 = sweep_v3_dot(ab, bp), d4 = sweep_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0)
        return sweep_v3_madd(a, ab, d1 / (d1 - d3));
    sweep_vec3 cp = sweep_v3_sub(p, c);
    double d5 = sweep_v3_dot(ab, cp), d6 = sweep_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0)
        return sweep_v3_madd(a, ac, d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
        return sweep_v3_madd(b, sweep_v3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    double den = 1.0 / (va + vb + vc);
    return sweep_v3_add(a, sweep_v3_add(sweep_v3_scale(ab, vb * den), sweep_v3_scale(ac, vc * den)));
}

/* The distance, in the eSpace of a body of RADII at p, to the nearest of
 * n triangles (corners v, three indices each, moved by `at`): below 1,
 * the body overlaps one of them. Either side of a face counts. */
static double espace_distance(sweep_vec3 p, const sweep_vec3 *v, const uint32_t *idx, uint32_t n, sweep_vec3 at)
{
    sweep_vec3 inv = sweep_v3(1.0 / RADII.x, 1.0 / RADII.y, 1.0 / RADII.z), e = sweep_v3_mul(p, inv);
    double best = INFINITY;
    for (uint32_t t = 0; t < n; t++) {
        sweep_vec3 k[3];
        for (int j = 0; j < 3; j++)
            k[j] = sweep_v3_mul(sweep_v3_add(v[idx[3 * t + j]], at), inv);
        double d = sweep_v3_len(sweep_v3_sub(e, nearest_on_triangle(e, k[0], k[1], k[2])));
        if (d < best)
            best = d;
    }
    return best;
}

static double level_distance(const scene *s, sweep_vec3 p)
{
    return espace_distance(p, s->lv.vertices, s->lv.indices, s->lv.triangle_count, sweep_v3(0, 0, 0));
}

/* A body at rest keeps a skin (1e-3 of a radius) from what it touches. */
#define TOUCHING (1.0 - 1e-6)

/*
 * B stands against a wall, and A beside it with its shell already pushed
 * into B's by pen (a door's push, which does not see the crowd, leaves
 * them so; so does a body that comes back where another now stands).
 * Standing still or pressing towards each other, in either order of
 * moves: neither ever ends inside the wall, and they never press deeper
 * into each other. A shell is soft: it stops a body running into it but
 * never pushes one out of it, which would push B, however deep, into the
 * wall behind it, and back out of it every other move.
 */
static void embedded_start_never_enters_the_wall(void **state)
{
    (void)state;
    static const double pens[] = {0.1, 0.3, 0.39};
    for (int pi = 0; pi < 3; pi++)
        for (int mode = 0; mode < 4; mode++) {
            int press = mode & 1, b_first = mode >> 1;
            double pen = pens[pi];
            scene s;
            scene_init_with(&s, 2, 1);
            guy a, b;
            put(&s, &b, 1, 1.0 - 0.4 - 0.0004, 0, 0.9004);
            put(&s, &a, 0, b.pos.x - 0.8 + pen, 0, 0.9004);
            double apart = b.pos.x - a.pos.x;
            for (int t = 0; t < 120; t++) {
                for (int k = 0; k < 2; k++) {
                    if (k == b_first)
                        step(&s, &a, 0, sweep_v3(press ? 3 : 0, 0, 0));
                    else
                        step(&s, &b, 1, sweep_v3(press ? -3 : 0, 0, 0));
                }
                double da = level_distance(&s, a.pos), db = level_distance(&s, b.pos);
                if (!(da >= TOUCHING && db >= TOUCHING))
                    fail_msg("pen %g mode %d tick %d: A at x %.6f (%.4f from the level), B at x %.6f (%.4f)", pen, mode,
                             t, a.pos.x, da, b.pos.x, db);
                assert_true(b.pos.x - a.pos.x >= apart - 1e-9);
                if (t == 0) {
                    /* The first to move started inside the other's shell
                     * and says so, naming it (what a room test asks). */
                    const guy *first = b_first ? &b : &a;
                    assert_true(first->last.flags & SWEEP_MOVED_STARTED_EMBEDDED);
                    int names_other = 0;
                    for (uint32_t c = 0; c < first->last.contact_count; c++)
                        names_other |= first->last.contacts[c].body == (b_first ? 0u : 1u);
                    assert_true(names_other);
                }
                assert_false((a.last.flags | b.last.flags) & SWEEP_MOVED_ITERATION_LIMIT);
                assert_true(a.grounded && b.grounded);
            }
            scene_free(&s);
        }
}

/* Apart, they walk away from each other freely, and close in again only
 * to the sum of their radii. */
static void overlapping_bodies_part_and_meet_again(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 2);
    guy a, b;
    put(&s, &a, 0, 0, 0, 0.9005);
    put(&s, &b, 1, 0.5, 0, 0.9005);
    for (int t = 0; t < 60; t++) {
        step(&s, &a, 0, sweep_v3(-2, 0, 0));
        step(&s, &b, 1, sweep_v3(2, 0.5, 0));
    }
    assert_true(fabs(a.pos.x + 2.0) < 1e-9);
    assert_true(fabs(b.pos.x - 2.5) < 1e-9 && fabs(b.pos.y - 0.5) < 1e-9);
    for (int t = 0; t < 120; t++) {
        step(&s, &a, 0, sweep_v3(3, 0, 0));
        step(&s, &b, 1, sweep_v3(-3, 0, 0));
        double dx = b.pos.x - a.pos.x, dy = b.pos.y - a.pos.y;
        assert_true(sqrt(dx * dx + dy * dy) >= 0.8 - 1e-9);
    }
    scene_free(&s);
}

/* A door's triangles: a slab 0.1 thick across y, its face at local x = 0. */
static const sweep_vec3 DOOR_V[8] = {{-0.1, -1, 0.05}, {0, -1, 0.05}, {-0.1, 1, 0.05}, {0, 1, 0.05},
                                     {-0.1, -1, 2.5},  {0, -1, 2.5},  {-0.1, 1, 2.5},  {0, 1, 2.5}};
static const uint32_t DOOR_I[36] = {4, 5, 7, 4, 7, 6, 0, 2, 3, 0, 3, 1, 1, 3, 7, 1, 7, 5,
                                    0, 4, 6, 0, 6, 2, 2, 6, 7, 2, 7, 3, 0, 1, 5, 0, 5, 4};

/*
 * The same through the movers: a sliding door that stops when blocked
 * closes from -x on A, standing 0.2 from B, who stands against the wall,
 * and pushes A into B's shell (the movers' tick does not see the crowd).
 * Standing still or pressing towards each other, neither ever ends inside
 * the wall or the door.
 */
static void door_push_into_a_shell_never_enters_the_level(void **state)
{
    (void)state;
    for (int press = 0; press < 2; press++) {
        scene s;
        scene_init_with(&s, 2, 1);
        sweep_keyframe keys[2] = {{0, {{-1.5, 0, 0}, {0, 0, 0, 1}}}, {0.5, {{-0.3, 0, 0}, {0, 0, 0, 1}}}};
        sweep_mover_desc d = {DOOR_V, 8, DOOR_I, NULL, 12, keys, 2, SWEEP_MOVER_ONCE, SWEEP_TRIGGER_ALWAYS,
                              SWEEP_BLOCKED_STOP, 0, 0, {0, 0, 0}, {0, 0, 0}};
        sweep_movers *mv;
        assert_int_equal(sweep_movers_create(&d, 1, 60, s.lv.triangle_count, &mv), SWEEP_OK);
        guy g[2];
        put(&s, &g[0], 0, -0.4, 0, 0.9004);
        put(&s, &g[1], 1, 1.0 - 0.4 - 0.0004, 0, 0.9004);
        int overlapped = 0;
        for (int t = 0; t < 90; t++) {
            sweep_body bodies[2];
            for (int i = 0; i < 2; i++) {
                sweep_body bd = {g[i].pos, RADII, g[i].grounded ? g[i].last.ground_mover : SWEEP_NO_MOVER,
                                 SWEEP_NO_MOVER, 0, SWEEP_NO_MOVER};
                bodies[i] = bd;
            }
            assert_int_equal(sweep_movers_tick(mv, s.w, &s.cfg, bodies, 2, NULL), SWEEP_OK);
            for (int i = 0; i < 2; i++) {
                g[i].pos = bodies[i].position;
                assert_int_equal(sweep_crowd_set(s.crowd, (uint32_t)i, g[i].pos, RADII), SWEEP_OK);
            }
            overlapped |= g[1].pos.x - g[0].pos.x < 0.8 - 0.1;
            for (int i = 0; i < 2; i++) {
                sweep_space sp = {s.w, mv, s.crowd, (uint32_t)i};
                double lateral = press ? (i == 0 ? 3 : -3) : 0;
                sweep_move_input in = {g[i].pos, RADII, sweep_v3(lateral, 0, g[i].vel.z - 9.81 * DT), DT,
                                       g[i].grounded ? SWEEP_INPUT_GROUNDED : 0};
                assert_int_equal(sweep_move_in(&sp, &s.cfg, &in, &g[i].last), SWEEP_OK);
                g[i].pos = g[i].last.position;
                g[i].vel = g[i].last.velocity;
                g[i].grounded = (g[i].last.flags & SWEEP_MOVED_GROUNDED) != 0;
                assert_int_equal(sweep_crowd_set(s.crowd, (uint32_t)i, g[i].pos, RADII), SWEEP_OK);
                sweep_mover_pose pose;
                sweep_movers_get(mv, 0, &pose, NULL);
                double dl = level_distance(&s, g[i].pos);
                double dd = espace_distance(g[i].pos, DOOR_V, DOOR_I, 12, pose.position);
                if (!(dl >= TOUCHING && dd >= TOUCHING))
                    fail_msg("press %d tick %d: body %d at x %.6f, %.4f from the level, %.4f from the door", press, t,
                             i, g[i].pos.x, dl, dd);
            }
        }
        assert_true(overlapped); /* the door did push A into B's shell */
        sweep_movers_destroy(mv);
        scene_free(&s);
    }
}


/* The room test (stance.h: standing up, a teleporter's target) still
 * finds a place inside another body's shell taken, from the side, above
 * or below, and names the body, though the shell no longer pushes. */
static void room_test_sees_another_body(void **state)
{
    (void)state;
    scene s;
    scene_init(&s, 2);
    guy a;
    put(&s, &a, 0, 0, 0, 3); /* held up in the air, on a lift say */
    static const sweep_vec3 taken[] = {{0.6, 0, 3}, {0.45, 0.45, 3}, {0, 0.1, 4.7}, {0.1, 0, 1.3}};
    static const sweep_vec3 free_at[] = {{0.81, 0, 3}, {0, 0, 4.802}, {0, 0, 1.198}};
    sweep_space sp = {s.w, NULL, s.crowd, 1};
    sweep_move_result res;
    int free = -1;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(sweep_room_at(&sp, &s.cfg, taken[i], RADII, sweep_v3(0, 0, 1), &free, &res), SWEEP_OK);
        assert_int_equal(free, 0);
        assert_true(res.contact_count > 0);
        assert_int_equal(res.contacts[0].body, 0);
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sweep_room_at(&sp, &s.cfg, free_at[i], RADII, sweep_v3(0, 0, 1), &free, &res), SWEEP_OK);
        assert_int_equal(free, 1);
    }
    sp.self = 0; /* its own place is free to it */
    assert_int_equal(sweep_room_at(&sp, &s.cfg, taken[0], RADII, sweep_v3(0, 0, 1), &free, &res), SWEEP_OK);
    assert_int_equal(free, 1);
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_on_stop_at_sum_of_radii),
        cmocka_unit_test(stands_on_a_head),
        cmocka_unit_test(stands_on_a_head_far_outside_the_world),
        cmocka_unit_test(slides_round_another),
        cmocka_unit_test(own_shell_is_ignored),
        cmocka_unit_test(grown_crowd_keeps_bodies),
        cmocka_unit_test(order_decides_and_repeats),
        cmocka_unit_test(broad_phase_equals_the_scan),
        cmocka_unit_test(crush_keeps_its_bits),
        cmocka_unit_test(shell_meets_equals_its_triangles_boxes),
        cmocka_unit_test(bad_slots_and_numbers),
        cmocka_unit_test(embedded_start_never_enters_the_wall),
        cmocka_unit_test(overlapping_bodies_part_and_meet_again),
        cmocka_unit_test(door_push_into_a_shell_never_enters_the_level),
        cmocka_unit_test(room_test_sees_another_body),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
