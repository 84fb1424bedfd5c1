/*
 * test_invariants.c - the promise the server makes, checked as a property
 * over many random moves on generated levels (fixed seeds):
 *
 *   1. after every move the ellipsoid overlaps no triangle,
 *   2. no walker ever ends below the terrain surface (falls through), and
 *   3. no move's centre goes from the front of a triangle to its back
 *      through the triangle (tunnels through a wall and lands clear
 *      beyond it, which 1 cannot see).
 *
 * The overlap check is deliberately independent of the core: it projects
 * onto the triangle's plane, tests inside-ness with edge cross products and
 * otherwise takes the nearest of the three edges, all written here. Walkers
 * come in groups with different radii and speeds, including speeds well
 * above running pace, so sweeps cross several triangles per move.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/move.h"
#include "maps/levelgen.h"
#include "core/walker.h"

/* Distance from p to segment ab. */
static double seg_dist(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b)
{
    sweep_vec3 ab = sweep_v3_sub(b, a);
    double f = sweep_v3_dot(sweep_v3_sub(p, a), ab) / sweep_v3_dot(ab, ab);
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return sweep_v3_len(sweep_v3_sub(p, sweep_v3_add(a, sweep_v3_scale(ab, f))));
}

/* Distance from p to triangle abc: plane projection + edge-sign inside test,
 * else the nearest edge. */
static double tri_dist(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    n = sweep_v3_scale(n, 1.0 / sweep_v3_len(n));
    double h = sweep_v3_dot(sweep_v3_sub(p, a), n);
    sweep_vec3 q = sweep_v3_sub(p, sweep_v3_scale(n, h));
    double s0 = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(q, a)), n);
    double s1 = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(c, b), sweep_v3_sub(q, b)), n);
    double s2 = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(a, c), sweep_v3_sub(q, c)), n);
    if (s0 >= 0 && s1 >= 0 && s2 >= 0)
        return fabs(h);
    double d = seg_dist(p, a, b), e = seg_dist(p, b, c), f = seg_dist(p, c, a);
    return d < e ? (d < f ? d : f) : (e < f ? e : f);
}

/* The first triangle whose front face the segment p0 -> p1 crosses inside
 * the triangle (front to back), or -1. Every move's centre path is a
 * polyline of slides, but each move is shorter than the body's radii, and
 * a body a radius clear of every face at both ends cannot have passed
 * through one in between without the straight chord passing through too. */
static long crossed(const sweep_level *lv, sweep_vec3 p0, sweep_vec3 p1)
{
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        const uint32_t *ix = &lv->indices[3 * t];
        sweep_vec3 a = lv->vertices[ix[0]], b = lv->vertices[ix[1]], c = lv->vertices[ix[2]];
        sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
        double h0 = sweep_v3_dot(sweep_v3_sub(p0, a), n), h1 = sweep_v3_dot(sweep_v3_sub(p1, a), n);
        if (!(h0 > 0 && h1 < 0))
            continue;
        sweep_vec3 q = sweep_v3_add(p0, sweep_v3_scale(sweep_v3_sub(p1, p0), h0 / (h0 - h1)));
        double s0 = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(q, a)), n);
        double s1 = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(c, b), sweep_v3_sub(q, b)), n);
        double s2 = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(a, c), sweep_v3_sub(q, c)), n);
        if (s0 >= 0 && s1 >= 0 && s2 >= 0)
            return (long)t;
    }
    return -1;
}

/* Smallest eSpace distance from the ellipsoid centre to any triangle near it
 * (1 means touching); and the terrain height under the centre. */
static void check(const sweep_level *lv, sweep_vec3 pos, sweep_vec3 radii, double *min_dist, double *terrain)
{
    sweep_vec3 inv = sweep_v3(1 / radii.x, 1 / radii.y, 1 / radii.z), e = sweep_v3_mul(pos, inv);
    *min_dist = INFINITY;
    *terrain = -INFINITY;
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        const uint32_t *ix = &lv->indices[3 * t];
        sweep_vec3 a = lv->vertices[ix[0]], b = lv->vertices[ix[1]], c = lv->vertices[ix[2]];
        sweep_vec3 lo = sweep_v3_min(a, sweep_v3_min(b, c)), hi = sweep_v3_max(a, sweep_v3_max(b, c));
        if (lv->materials[t] == SWEEP_GEN_MAT_TERRAIN && pos.x >= lo.x && pos.x <= hi.x && pos.y >= lo.y &&
            pos.y <= hi.y) {
            /* Height of the terrain triangle at (x, y), if it covers it. */
            double d = (b.y - c.y) * (a.x - c.x) + (c.x - b.x) * (a.y - c.y);
            double u = ((b.y - c.y) * (pos.x - c.x) + (c.x - b.x) * (pos.y - c.y)) / d;
            double v = ((c.y - a.y) * (pos.x - c.x) + (a.x - c.x) * (pos.y - c.y)) / d;
            if (u >= -1e-12 && v >= -1e-12 && u + v <= 1 + 1e-12) {
                double z = u * a.z + v * b.z + (1 - u - v) * c.z;
                *terrain = z > *terrain ? z : *terrain;
            }
        }
        if (pos.x + radii.x < lo.x || pos.x - radii.x > hi.x || pos.y + radii.y < lo.y || pos.y - radii.y > hi.y ||
            pos.z + radii.z < lo.z || pos.z - radii.z > hi.z)
            continue;
        double dist = tri_dist(e, sweep_v3_mul(a, inv), sweep_v3_mul(b, inv), sweep_v3_mul(c, inv));
        *min_dist = dist < *min_dist ? dist : *min_dist;
    }
}

typedef struct group {
    sweep_vec3 radii;
    double speed;
    uint32_t heading_every;
} group;

static void run_level(uint64_t level_seed, uint32_t tris, uint32_t steps)
{
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_levelgen_params gp = {level_seed, tris, 16, 0};
    assert_int_equal(sweep_levelgen(&gp, &lv), SWEEP_OK);
    sweep_world_desc d = sweep_level_world_desc(&lv);
    sweep_world *w;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);

    const group groups[] = {
        {{0.4, 0.4, 0.9}, 5.0, 60},  /* a player */
        {{0.3, 0.3, 0.3}, 12.0, 20}, /* a fast small sphere, turning often */
        {{0.7, 0.7, 1.1}, 25.0, 45}, /* a big body far above running pace */
    };
    uint64_t moves = 0, embedded = 0;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        sweep_walk_params wp = {16, steps, groups[g].heading_every, 1.0 / 60.0, groups[g].speed, groups[g].radii,
                                level_seed * 31 + g};
        sweep_walker walkers[16];
        sweep_walk_place(&wp, lv.spawns, lv.spawn_count, walkers);
        for (uint32_t s = 0; s < steps; s++)
            for (uint32_t i = 0; i < wp.walkers; i++) {
                sweep_move_result r;
                sweep_vec3 was = walkers[i].position;
                assert_int_equal(sweep_walk_step(w, &lv.config, &wp, i, s, &walkers[i], &r), SWEEP_OK);
                long through = crossed(&lv, was, walkers[i].position);
                if (through >= 0)
                    fail_msg("level %llu group %zu walker %u step %u: went through triangle %ld, from (%.9g %.9g "
                             "%.9g) to (%.9g %.9g %.9g)",
                             (unsigned long long)level_seed, g, i, s, through, was.x, was.y, was.z,
                             walkers[i].position.x, walkers[i].position.y, walkers[i].position.z);
                moves++;
                embedded += (r.flags & SWEEP_MOVED_STARTED_EMBEDDED) != 0;
                double dist, terrain;
                check(&lv, walkers[i].position, wp.radii, &dist, &terrain);
                if (!(dist >= 1.0 - 1e-9))
                    fail_msg("level %llu group %zu walker %u step %u: overlaps geometry, eSpace distance %.17g at "
                             "(%.9g %.9g %.9g)",
                             (unsigned long long)level_seed, g, i, s, dist, walkers[i].position.x,
                             walkers[i].position.y, walkers[i].position.z);
                if (terrain > -INFINITY && !(walkers[i].position.z > terrain))
                    fail_msg("level %llu group %zu walker %u step %u: below the terrain (z %.9g, ground %.9g)",
                             (unsigned long long)level_seed, g, i, s, walkers[i].position.z, terrain);
            }
    }
    /* Spawns are clear of geometry and nothing ever overlaps, so no move may
     * have started embedded. */
    assert_int_equal(embedded, 0);
    assert_true(moves >= 3 * 16 * (uint64_t)steps);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

static void no_overlap_no_fall_small_level(void **state)
{
    (void)state;
    run_level(3, 1500, 1200);
}

static void no_overlap_no_fall_other_level(void **state)
{
    (void)state;
    run_level(11, 3000, 800);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_overlap_no_fall_small_level),
        cmocka_unit_test(no_overlap_no_fall_other_level),
    };
    return cmocka_run_group_tests_name("invariants", tests, NULL, NULL);
}
