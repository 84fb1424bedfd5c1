/*
 * test_swept_sphere.c - the narrow phase against cases solved by hand:
 * face, edge and vertex contacts, parallel motion, embedded starts, back
 * faces and degenerate triangles.
 *
 * All cases are in eSpace (unit sphere). The reference triangle lies in the
 * plane z = 0 with its front facing +z.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/swept_sphere.h"

#define EPS 1e-12

static const sweep_vec3 A = {0, 0, 0}, B = {4, 0, 0}, C = {0, 4, 0};

static void near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

static void near_v(sweep_vec3 got, sweep_vec3 want, double tol)
{
    near(got.x, want.x, tol);
    near(got.y, want.y, tol);
    near(got.z, want.z, tol);
}

static void head_on_face(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 3), sweep_v3(0, 0, -4), A, B, C, 1.0, &h), 1);
    near(h.t, 0.5, EPS);
    assert_int_equal(h.feature, SWEEP_FEATURE_FACE);
    assert_false(h.embedded);
    near_v(h.normal, sweep_v3(0, 0, 1), EPS);
    near_v(h.point, sweep_v3(1, 1, 0), EPS);
}

static void tmax_limits_contact(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    /* The same contact at t = 0.5 is out of reach when tmax = 0.4. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 3), sweep_v3(0, 0, -4), A, B, C, 0.4, &h), 0);
    /* Stopping short of the plane: no contact. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 3), sweep_v3(0, 0, -1.5), A, B, C, 1.0, &h), 0);
}

static void glancing_face(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    /* Shallow descent: the lowest point reaches z = 0 when the centre has
     * dropped 0.5 of 1, halfway along. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(0.5, 1, 1.5), sweep_v3(2, 0, -1), A, B, C, 1.0, &h), 1);
    near(h.t, 0.5, EPS);
    assert_int_equal(h.feature, SWEEP_FEATURE_FACE);
    near_v(h.point, sweep_v3(1.5, 1, 0), EPS);
}

static void parallel_to_plane(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    /* Above the slab, moving parallel: never touches. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 2), sweep_v3(5, 0, 0), A, B, C, 1.0, &h), 0);
    /* Resting exactly on the face and sliding along it: not a new contact. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 1), sweep_v3(0.5, 0.5, 0), A, B, C, 1.0, &h), 0);
}

static void edge_contact(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    /* In the plane of the triangle, moving at the edge A-B (y = 0) from below. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(2, -3, 0.5), sweep_v3(0, 4, 0), A, B, C, 1.0, &h), 1);
    /* Touches when the distance to the line y = 0, z = 0 is 1: y = -sqrt(0.75). */
    near(h.t, (3.0 - sqrt(0.75)) / 4.0, EPS);
    assert_int_equal(h.feature, SWEEP_FEATURE_EDGE);
    near_v(h.point, sweep_v3(2, 0, 0), EPS);
    near_v(h.normal, sweep_v3(0, -sqrt(0.75), 0.5), EPS);
}

static void vertex_contact(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    /* Diagonally at vertex A from its own Voronoi region (x < 0, y < 0). */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(-3, -3, 0.5), sweep_v3(3, 3, 0), A, B, C, 1.0, &h), 1);
    /* 2 s^2 + 0.25 = 1 with s = 3 - 3t. */
    near(h.t, (3.0 - sqrt(0.375)) / 3.0, EPS);
    assert_int_equal(h.feature, SWEEP_FEATURE_VERTEX);
    near_v(h.point, A, EPS);
    near(sweep_v3_len(h.normal), 1.0, EPS);
}

static void embedded_face(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 0.25), sweep_v3(1, 0, 0), A, B, C, 1.0, &h), 1);
    assert_true(h.embedded);
    near(h.t, -0.75, EPS);
    near_v(h.normal, sweep_v3(0, 0, 1), EPS);
    near_v(h.point, sweep_v3(1, 1, 0), EPS);
}

static void embedded_edge(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(2, -0.3, 0.4), sweep_v3(0, 0, 0), A, B, C, 1.0, &h), 1);
    assert_true(h.embedded);
    near(h.t, 0.5 - 1.0, EPS);
    near_v(h.normal, sweep_v3(0, -0.6, 0.8), EPS);
    near_v(h.point, sweep_v3(2, 0, 0), EPS);
}

static void embedded_vertex(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(-0.3, -0.4, 0), sweep_v3(0, 0, 1), A, B, C, 1.0, &h), 1);
    assert_true(h.embedded);
    near(h.t, -0.5, EPS);
    near_v(h.normal, sweep_v3(-0.6, -0.8, 0), EPS);
    near_v(h.point, A, EPS);
}

static void back_face_ignored(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    /* From below, through the back: nothing, whether moving or overlapping. */
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, -3), sweep_v3(0, 0, 6), A, B, C, 1.0, &h), 0);
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, -0.5), sweep_v3(0, 0, 0), A, B, C, 1.0, &h), 0);
}

static void moving_away_ignored(void **state)
{
    (void)state;
    sweep_sphere_hit h;
    assert_int_equal(sweep_sphere_sweep_triangle(sweep_v3(1, 1, 1.5), sweep_v3(0, 0, 3), A, B, C, 1.0, &h), 0);
}

static void degenerate_triangles_no_nan(void **state)
{
    (void)state;
    const sweep_vec3 tris[][3] = {
        {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}},       /* collinear */
        {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}},       /* a point */
        {{0, 0, 0}, {0, 0, 0}, {3, 0, 0}},       /* repeated vertex */
        {{0, 0, 0}, {5, 0, 0}, {5, 1e-300, 0}},  /* needle */
    };
    const sweep_vec3 starts[] = {{0.5, 0, 0.2}, {0, -3, 0}, {1, 1, 3}, {2.5, 0, 0}};
    const sweep_vec3 disps[] = {{0, 0, -1}, {0, 6, 0}, {0, 0, 0}, {1e-20, 0, 0}};
    for (size_t t = 0; t < sizeof tris / sizeof tris[0]; t++)
        for (size_t s = 0; s < 4; s++)
            for (size_t d = 0; d < 4; d++) {
                sweep_sphere_hit h;
                if (sweep_sphere_sweep_triangle(starts[s], disps[d], tris[t][0], tris[t][1], tris[t][2], 1.0, &h)) {
                    assert_true(isfinite(h.t));
                    assert_true(sweep_v3_isfinite(h.normal));
                    assert_true(sweep_v3_isfinite(h.point));
                }
                sweep_vec3 q = sweep_closest_point_on_triangle(starts[s], tris[t][0], tris[t][1], tris[t][2]);
                assert_true(sweep_v3_isfinite(q));
            }
}

/* Brute force: the best of a dense barycentric sampling is never closer than
 * the routine's answer, and the answer is on the triangle. */
static void closest_point_matches_sampling(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int iter = 0; iter < 200; iter++) {
        double r[12];
        for (int i = 0; i < 12; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            r[i] = (double)(x >> 11) / 9007199254740992.0 * 4.0 - 2.0;
        }
        sweep_vec3 a = {r[0], r[1], r[2]}, b = {r[3], r[4], r[5]}, c = {r[6], r[7], r[8]}, p = {r[9], r[10], r[11]};
        sweep_vec3 q = sweep_closest_point_on_triangle(p, a, b, c);
        double dq = sweep_v3_len(sweep_v3_sub(p, q));
        double best = INFINITY;
        for (int i = 0; i <= 60; i++)
            for (int j = 0; i + j <= 60; j++) {
                double u = i / 60.0, v = j / 60.0;
                sweep_vec3 s = sweep_v3_add(a, sweep_v3_add(sweep_v3_scale(sweep_v3_sub(b, a), u),
                                                            sweep_v3_scale(sweep_v3_sub(c, a), v)));
                double d = sweep_v3_len(sweep_v3_sub(p, s));
                best = d < best ? d : best;
            }
        assert_true(dq <= best + 1e-12);
        assert_true(best - dq < 0.2); /* sampling is coarse, but not that coarse */
    }
}

static double rnd(uint64_t *x, double lo, double hi)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (double)(*x >> 11) / 9007199254740992.0 * (hi - lo);
}

/* Distance from p to the triangle by the routine the sweep is checked
 * against: the exact closest point, not any part of the sweep. */
static double dist_to(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    return sweep_v3_len(sweep_v3_sub(p, sweep_closest_point_on_triangle(p, a, b, c)));
}

/*
 * Property: the sweep never misses a touch and never reports one early.
 * Random triangles and paths, half of them grazing the plane next to the
 * triangle (where the early-outs of the narrow phase do their work), are
 * walked in 1024 small steps with an exact distance check: the first step
 * found clearly inside the sphere must come no earlier than the reported
 * contact, and a reported contact is at distance 1.
 */
static void sweep_never_misses_a_touch(void **state)
{
    (void)state;
    uint64_t x = 99;
    int hits = 0, checked = 0;
    for (int iter = 0; iter < 8000; iter++) {
        sweep_vec3 a = {rnd(&x, -2, 2), rnd(&x, -2, 2), rnd(&x, -2, 2)};
        sweep_vec3 b = {rnd(&x, -2, 2), rnd(&x, -2, 2), rnd(&x, -2, 2)};
        sweep_vec3 c = {rnd(&x, -2, 2), rnd(&x, -2, 2), rnd(&x, -2, 2)};
        sweep_vec3 nn = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
        if (sweep_v3_len(nn) < 0.5)
            continue;
        sweep_vec3 n = sweep_v3_normalize(nn);
        sweep_vec3 center, disp;
        if (iter % 2) {
            /* Grazing: beside or over the triangle, 0.5 to 1.3 from its
             * plane, moving mostly along it. */
            double u = rnd(&x, -0.6, 1.6), v = rnd(&x, -0.6, 1.6);
            sweep_vec3 onplane = sweep_v3_add(a, sweep_v3_add(sweep_v3_scale(sweep_v3_sub(b, a), u),
                                                              sweep_v3_scale(sweep_v3_sub(c, a), v)));
            center = sweep_v3_madd(onplane, n, rnd(&x, 0.5, 1.3));
            sweep_vec3 d = {rnd(&x, -1.5, 1.5), rnd(&x, -1.5, 1.5), rnd(&x, -1.5, 1.5)};
            disp = sweep_v3_madd(d, n, -sweep_v3_dot(d, n) - rnd(&x, 0.0, 0.3));
        } else {
            center = (sweep_vec3){rnd(&x, -3, 3), rnd(&x, -3, 3), rnd(&x, -3, 3)};
            disp = (sweep_vec3){rnd(&x, -3, 3), rnd(&x, -3, 3), rnd(&x, -3, 3)};
        }
        if (sweep_v3_dot(n, sweep_v3_sub(center, a)) < 0.0 || dist_to(center, a, b, c) <= 1.0)
            continue; /* back side, or embedded: other tests cover those */
        double tmax = iter % 3 ? 1.0 : rnd(&x, 0.1, 1.0);
        sweep_sphere_hit h;
        int got = sweep_sphere_sweep_triangle(center, disp, a, b, c, tmax, &h);
        double first_inside = INFINITY;
        for (int k = 1; k <= 1024; k++) {
            double t = tmax * k / 1024.0;
            if (dist_to(sweep_v3_madd(center, disp, t), a, b, c) < 1.0 - 1e-9) {
                first_inside = t;
                break;
            }
        }
        checked++;
        if (first_inside < INFINITY) {
            assert_true(got);
            assert_true(h.t <= first_inside);
        }
        if (got) {
            hits++;
            assert_false(h.embedded);
            assert_true(h.t >= 0.0 && h.t <= tmax);
            near(dist_to(sweep_v3_madd(center, disp, h.t), a, b, c), 1.0, 1e-9);
        }
    }
    print_message("checked %d, hits %d\n", checked, hits);
    /* The generator must really exercise both answers. */
    assert_true(checked > 4000);
    assert_true(hits > 400 && hits < checked - 400);
}

/*
 * The convexity cut-off (a centre within 1 of the plane but more than 1 from
 * the triangle, whose distance cannot fall to 1 by tmax) must only end
 * sweeps the six vertex and edge tests would end with nothing: the same
 * sweep with the cut-off switched off (sharp = 0) gives the same bits. The
 * paths graze vertices and edges at 1 + delta for tiny deltas of both
 * signs, over triangles of every shape and far from the origin.
 */
static void convexity_cutoff_changes_nothing(void **state)
{
    (void)state;
    uint64_t x = 5;
    int cut_domain = 0, hits = 0, sharp = 0;
    static const double deltas[] = {0.0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-7, -1e-7, 1e-5, -1e-5, 1e-3, 0.1};
    for (int iter = 0; iter < 40000; iter++) {
        sweep_vec3 o = iter % 4 == 0 ? sweep_v3(rnd(&x, -400, 400), rnd(&x, -400, 400), rnd(&x, -400, 400))
                                     : sweep_v3(0, 0, 0);
        double size = iter % 3 == 0 ? 1e-3 : iter % 3 == 1 ? 1.0 : 30.0;
        sweep_vec3 a = sweep_v3_add(o, sweep_v3(rnd(&x, -size, size), rnd(&x, -size, size), rnd(&x, -size, size)));
        sweep_vec3 b = sweep_v3_add(o, sweep_v3(rnd(&x, -size, size), rnd(&x, -size, size), rnd(&x, -size, size)));
        sweep_vec3 c = sweep_v3_add(o, sweep_v3(rnd(&x, -size, size), rnd(&x, -size, size), rnd(&x, -size, size)));
        if (iter % 5 == 1) /* a needle: c almost on ab */
            c = sweep_v3_add(sweep_v3_scale(sweep_v3_add(a, b), 0.5), sweep_v3_scale(sweep_v3_sub(c, o), 1e-6));
        sweep__tri_prep p;
        sweep__tri_prepare(a, b, c, &p);
        if (!(p.nlen > 0.0))
            continue;
        sharp += p.sharp;
        /* Graze a vertex or an edge point v at 1 + delta, moving along u. */
        sweep_vec3 v = iter % 2 ? a : sweep_v3_add(a, sweep_v3_scale(p.ab, rnd(&x, 0.0, 1.0)));
        sweep_vec3 u = sweep_v3_normalize(sweep_v3(rnd(&x, -1, 1), rnd(&x, -1, 1), rnd(&x, -1, 1)));
        sweep_vec3 side = sweep_v3_normalize(sweep_v3_cross(u, sweep_v3(rnd(&x, -1, 1), rnd(&x, -1, 1), rnd(&x, -1, 1))));
        double delta = deltas[iter % (sizeof deltas / sizeof deltas[0])];
        double len = rnd(&x, 0.01, 2.0), before = rnd(&x, 0.0, 1.2);
        sweep_vec3 closest = sweep_v3_madd(v, side, 1.0 + delta);
        sweep__path path;
        sweep__path_init(&path, sweep_v3_madd(closest, u, -before * len), sweep_v3_scale(u, len));
        double tmax = iter % 3 ? 1.0 : rnd(&x, 0.0, 1.0);
        sweep_sphere_hit h1, h2;
        memset(&h1, 0, sizeof h1), memset(&h2, 0, sizeof h2);
        int r1 = sweep__sphere_sweep_prepared(&path, &p, tmax, &h1);
        p.sharp = 0;
        int r2 = sweep__sphere_sweep_prepared(&path, &p, tmax, &h2);
        if (r1 != r2 || memcmp(&h1, &h2, sizeof h1) != 0)
            fail_msg("iteration %d: %d at %.17g with the cut-off, %d at %.17g without", iter, r1, h1.t, r2, h2.t);
        double s = sweep_v3_dot(p.nn, sweep_v3_sub(path.center, p.a)) / p.nlen;
        cut_domain += s >= 0.0 && s < 1.0 && dist_to(path.center, a, b, c) > 1.0;
        hits += r1;
    }
    print_message("cut-off domain %d, hits %d, sharp %d\n", cut_domain, hits, sharp);
    assert_true(cut_domain > 4000);
    assert_true(hits > 2000);
    assert_true(sharp > 20000 && sharp < 40000);
}

/*
 * A face contact from above the plane is the root of the plane's linear
 * equation, 2 (dist - 1) / (-nv + sqrt(nv * nv)) in the cancellation-free
 * form; the narrow phase takes sqrt(nv * nv) to be -nv exactly (a square
 * root of a rounded square, Boldo 2015). Both the property, over speeds of
 * every magnitude in the range it is used for, and the contact times that
 * rest on it, over random landings, must be the bits of the formula with
 * the square root.
 */
static void face_contact_time_is_the_formula(void **state)
{
    (void)state;
    uint64_t x = 23;
    for (int i = 0; i < 200000; i++) {
        double m = rnd(&x, 1.0, 2.0), e = floor(rnd(&x, -498.0, 498.0));
        double v = ldexp(m, (int)e);
        if (sqrt(v * v) != v)
            fail_msg("sqrt(%a * %a) is %a", v, v, sqrt(v * v));
    }
    int faces = 0;
    for (int iter = 0; iter < 20000; iter++) {
        sweep_vec3 o = iter % 2 ? sweep_v3(rnd(&x, -300, 300), rnd(&x, -300, 300), rnd(&x, -300, 300))
                                : sweep_v3(0, 0, 0);
        double size = iter % 3 == 0 ? 2.0 : 30.0;
        sweep_vec3 a = sweep_v3_add(o, sweep_v3(rnd(&x, -size, size), rnd(&x, -size, size), rnd(&x, -size, size)));
        sweep_vec3 b = sweep_v3_add(o, sweep_v3(rnd(&x, -size, size), rnd(&x, -size, size), rnd(&x, -size, size)));
        sweep_vec3 c = sweep_v3_add(o, sweep_v3(rnd(&x, -size, size), rnd(&x, -size, size), rnd(&x, -size, size)));
        sweep__tri_prep p;
        sweep__tri_prepare(a, b, c, &p);
        if (!(p.nlen > 0.0))
            continue;
        /* From above an inner point, down at speeds from crawling to fast. */
        sweep_vec3 on = sweep_v3_add(a, sweep_v3_add(sweep_v3_scale(p.ab, rnd(&x, 0.0, 0.5)),
                                                     sweep_v3_scale(p.ac, rnd(&x, 0.0, 0.5))));
        sweep_vec3 centre = sweep_v3_madd(on, p.n, 1.0 + rnd(&x, 0.0, 2.0) * pow(10.0, -(iter % 9)));
        sweep_vec3 down = sweep_v3_normalize(sweep_v3_add(sweep_v3_scale(p.n, -1.0),
                                                          sweep_v3(rnd(&x, -0.5, 0.5), rnd(&x, -0.5, 0.5),
                                                                   rnd(&x, -0.5, 0.5))));
        sweep_vec3 disp = sweep_v3_scale(down, rnd(&x, 0.0, 4.0) * pow(10.0, -(iter % 7)));
        double tmax = iter % 3 ? 1.0 : rnd(&x, 0.0, 1.0);
        sweep__path path;
        sweep__path_init(&path, centre, disp);
        sweep_sphere_hit h;
        if (!sweep__sphere_sweep_prepared(&path, &p, tmax, &h) || h.embedded || h.feature != SWEEP_FEATURE_FACE)
            continue;
        double dist = sweep_v3_dot(p.nn, sweep_v3_sub(centre, a)) / p.nlen;
        double nv = sweep_v3_dot(p.n, disp);
        if (!(dist > 1.0))
            continue;
        double want = 2.0 * (dist - 1.0) / (-nv + sqrt(nv * nv));
        if (memcmp(&h.t, &want, sizeof want) != 0)
            fail_msg("iteration %d: face contact at %a, the formula gives %a", iter, h.t, want);
        faces++;
    }
    print_message("face contacts %d\n", faces);
    assert_true(faces > 5000);
}

/*
 * The plane test sends a centre with s < nlen to the case inside the slab
 * without dividing, taking s / nlen < 1 however it rounds. The largest s
 * below nlen is the worst case: over magnitudes from subnormal to huge,
 * and at powers of two (where the spacing of doubles halves below), its
 * quotient must still round below 1.
 */
static void below_the_slab_top_divides_below_one(void **state)
{
    (void)state;
    uint64_t x = 29;
    for (int i = 0; i < 400000; i++) {
        double m = i % 4 == 0 ? 1.0 : rnd(&x, 1.0, 2.0);
        int e = i % 7 == 0 ? -1074 + (int)rnd(&x, 0.0, 60.0) : (int)rnd(&x, -1000.0, 1000.0);
        double nlen = ldexp(m, e);
        if (!(nlen > 0.0))
            continue;
        double s = nextafter(nlen, 0.0);
        if (!(s / nlen < 1.0))
            fail_msg("%a / %a rounds to %a", s, nlen, s / nlen);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_on_face),
        cmocka_unit_test(tmax_limits_contact),
        cmocka_unit_test(glancing_face),
        cmocka_unit_test(parallel_to_plane),
        cmocka_unit_test(edge_contact),
        cmocka_unit_test(vertex_contact),
        cmocka_unit_test(embedded_face),
        cmocka_unit_test(embedded_edge),
        cmocka_unit_test(embedded_vertex),
        cmocka_unit_test(back_face_ignored),
        cmocka_unit_test(moving_away_ignored),
        cmocka_unit_test(degenerate_triangles_no_nan),
        cmocka_unit_test(closest_point_matches_sampling),
        cmocka_unit_test(sweep_never_misses_a_touch),
        cmocka_unit_test(convexity_cutoff_changes_nothing),
        cmocka_unit_test(face_contact_time_is_the_formula),
        cmocka_unit_test(below_the_slab_top_divides_below_one),
    };
    return cmocka_run_group_tests_name("swept_sphere", tests, NULL, NULL);
}
