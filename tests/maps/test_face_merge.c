/*
 * test_face_merge.c - coplanar convex polygons merged and triangulated
 * (maps/face_merge.c), on squares laid out on the plane z = 0.
 *
 * Checked for each layout: how many triangles come out, that they all
 * face the plane's normal, and that they cover exactly the area the
 * polygons covered (the sum of the triangles' areas is the sum of the
 * polygons', and every sample point inside a polygon lies in exactly one
 * triangle): two squares side by side become one quad, a 3 x 3 grid one
 * quad, pieces along another piece's edge (a T-junction) merge once they
 * span it, corners a hair apart are welded; a union that is not convex,
 * polygons of different keys, planes or facings do not merge; a strip of
 * collinear corners is cut without needles; a pinned corner is kept where
 * it would be dropped as collinear, and with keep_shared a corner one
 * polygon keeps is kept by the polygon whose side it lies on; the same
 * input gives the same output; groups and outlines too large to merge
 * cheaply are left alone.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "maps/face_merge.h"

static const double up[3] = {0, 0, 1};

/* The square [x0, x1] x [y0, y1] at height z, counter-clockwise seen from
 * above (or from below, facing down, when n[2] < 0). */
static void add_rect(sweep__face_set *s, double x0, double y0, double x1, double y1, double z, const double n[3],
                     uint32_t key)
{
    double p[4][3] = {{x0, y0, z}, {x1, y0, z}, {x1, y1, z}, {x0, y1, z}};
    if (n[2] < 0) {
        double q[4][3];
        for (int i = 0; i < 4; i++)
            memcpy(q[i], p[3 - i], sizeof q[i]);
        memcpy(p, q, sizeof p);
    }
    assert_true(sweep__face_add(s, (const double(*)[3])p, 4, n, n[2] * z, key));
}

static double tri_area(const sweep__face_mesh *m, uint32_t t, const double n[3])
{
    const uint32_t *x = &m->tri[4 * t];
    const double *a = m->v[x[0]], *b = m->v[x[1]], *c = m->v[x[2]];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    return 0.5 * (cr[0] * n[0] + cr[1] * n[1] + cr[2] * n[2]);
}

/* 1 if (x, y) lies inside triangle t (seen from above), edges included. */
static int in_tri(const sweep__face_mesh *m, uint32_t t, double x, double y)
{
    const uint32_t *ix = &m->tri[4 * t];
    double s[3];
    for (int i = 0; i < 3; i++) {
        const double *a = m->v[ix[i]], *b = m->v[ix[(i + 1) % 3]];
        s[i] = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
    }
    return (s[0] >= 0 && s[1] >= 0 && s[2] >= 0) || (s[0] <= 0 && s[1] <= 0 && s[2] <= 0);
}

/* Merges s, checks that every triangle faces n and that the triangles
 * cover what the polygons covered, once: total area, and points sampled
 * inside each polygon (off its edges) in exactly one triangle. Returns
 * the number of triangles. */
static uint32_t merge_and_check(const sweep__face_set *s, const double n[3], sweep__face_mesh *m)
{
    assert_true(sweep__face_merge(s, 0.01, m));
    double want = 0.0, got = 0.0;
    for (uint32_t f = 0; f < s->count; f++) {
        const double (*p)[3] = (const double(*)[3])(s->p + s->f[f].at);
        for (uint32_t i = 1; i + 1 < s->f[f].len; i++) {
            double e1[3] = {p[i][0] - p[0][0], p[i][1] - p[0][1], 0}, e2[3] = {p[i + 1][0] - p[0][0],
                                                                              p[i + 1][1] - p[0][1], 0};
            want += 0.5 * fabs(e1[0] * e2[1] - e1[1] * e2[0]);
        }
    }
    for (uint32_t t = 0; t < m->triangles; t++) {
        double a = tri_area(m, t, n);
        assert_true(a > 0.0);
        got += a;
    }
    assert_true(fabs(got - want) < 1e-6 * (1 + want));
    /* samples at irrational offsets, so none lies on an edge */
    for (uint32_t f = 0; f < s->count; f++) {
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (uint32_t e = 0; e < s->f[f].len; e++)
            for (int k = 0; k < 2; k++)
                lo[k] = fmin(lo[k], s->p[s->f[f].at + e][k]), hi[k] = fmax(hi[k], s->p[s->f[f].at + e][k]);
        for (int i = 0; i < 7; i++)
            for (int j = 0; j < 7; j++) {
                double x = lo[0] + (hi[0] - lo[0]) * (i + 0.5 + 0.01 * M_SQRT2) / 7;
                double y = lo[1] + (hi[1] - lo[1]) * (j + 0.5 + 0.013 * sqrt(3.0)) / 7;
                int inside = 1;
                for (uint32_t e = 0; e < s->f[f].len; e++) {
                    const double *a = s->p[s->f[f].at + e], *b = s->p[s->f[f].at + (e + 1) % s->f[f].len];
                    inside &= ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])) * n[2] > 0;
                }
                if (!inside)
                    continue;
                int hits = 0;
                for (uint32_t t = 0; t < m->triangles; t++)
                    hits += in_tri(m, t, x, y);
                if (hits != 1)
                    fail_msg("point (%g, %g) of polygon %u is in %d triangles", x, y, f, hits);
            }
    }
    return m->triangles;
}

static void two_squares_side_by_side_make_one_quad(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    add_rect(&s, 64, 0, 128, 64, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 2);
    assert_int_equal(m.merged, 1);
    /* the shared corners are welded: six vertices, of which four are used */
    assert_int_equal(m.vertices, 6);
    for (uint32_t t = 0; t < 2 * 3; t++) {
        const double *v = m.v[m.tri[4 * (t / 3) + t % 3]];
        assert_true(v[0] == 0 || v[0] == 128);
        assert_int_equal(m.tri[4 * (t / 3) + 3], 1);
    }
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

static void a_grid_becomes_one_quad(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* in an order where rows merge before columns can */
    const int order[9] = {4, 0, 8, 2, 6, 1, 3, 5, 7};
    for (int i = 0; i < 9; i++)
        add_rect(&s, 32 * (order[i] % 3), 32 * (order[i] / 3), 32 * (order[i] % 3 + 1), 32 * (order[i] / 3 + 1), 0,
                 up, 3);
    assert_int_equal(merge_and_check(&s, up, &m), 2);
    assert_int_equal(m.merged, 8);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

static void pieces_along_a_longer_edge_merge_once_they_span_it(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* a long piece, and two that each meet half of its top edge */
    add_rect(&s, 0, 0, 128, 64, 0, up, 1);
    add_rect(&s, 0, 64, 64, 128, 0, up, 1);
    add_rect(&s, 64, 64, 128, 128, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 2);
    assert_int_equal(m.merged, 2);
    sweep__face_set_clear(&s);

    /* only one of them: the union is an L, not convex, and stays two
     * polygons; the long one's corner on the T is not kept */
    add_rect(&s, 0, 0, 128, 64, 0, up, 1);
    add_rect(&s, 0, 64, 64, 128, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

static void what_must_not_merge_does_not(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* different keys (material, surface flags) */
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    add_rect(&s, 64, 0, 128, 64, 0, up, 2);
    assert_int_equal(merge_and_check(&s, up, &m), 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_clear(&s);
    /* different planes: a step of a quarter unit */
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    add_rect(&s, 64, 0, 128, 64, 0.25, up, 1);
    assert_true(sweep__face_merge(&s, 0.01, &m));
    assert_int_equal(m.triangles, 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_clear(&s);
    /* facing opposite ways (the two sides of a sheet) */
    const double down[3] = {0, 0, -1};
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    add_rect(&s, 64, 0, 128, 64, 0, down, 1);
    assert_true(sweep__face_merge(&s, 0.01, &m));
    assert_int_equal(m.triangles, 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_clear(&s);
    /* touching at a corner only */
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    add_rect(&s, 64, 64, 128, 128, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_clear(&s);
    /* an edge shared in part only, and a trapezoid whose union with a
     * square has a notch */
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    add_rect(&s, 64, 32, 128, 96, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_clear(&s);
    const double trap[4][3] = {{64, 0, 0}, {128, -16, 0}, {128, 80, 0}, {64, 64, 0}};
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    assert_true(sweep__face_add(&s, trap, 4, up, 0, 1));
    assert_int_equal(merge_and_check(&s, up, &m), 4);
    assert_int_equal(m.merged, 0);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

static void corners_a_hair_apart_are_one(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* the second square's shared corners off by a thousandth (two
     * brushes computing one corner from different planes) */
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    const double q[4][3] = {{64.001, 0, 0}, {128, 0, 0}, {128, 64, 0}, {63.999, 64.0005, 0}};
    assert_true(sweep__face_add(&s, q, 4, up, 0, 1));
    assert_true(sweep__face_merge(&s, 0.01, &m));
    assert_int_equal(m.triangles, 2);
    assert_int_equal(m.vertices, 6);
    sweep__face_set_clear(&s);
    /* a hundredth and more apart: two vertices, no shared edge */
    add_rect(&s, 0, 0, 64, 64, 0, up, 1);
    const double r[4][3] = {{64.02, 0, 0}, {128, 0, 0}, {128, 64, 0}, {64.02, 64, 0}};
    assert_true(sweep__face_add(&s, r, 4, up, 0, 1));
    assert_true(sweep__face_merge(&s, 0.01, &m));
    assert_int_equal(m.triangles, 4);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

static void a_strip_is_cut_without_needles(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* a long wall in twelve pieces, standing (normal -y) */
    const double n[3] = {0, -1, 0};
    for (int i = 0; i < 12; i++) {
        double p[4][3] = {{16.0 * i, 0, 0}, {16.0 * (i + 1), 0, 0}, {16.0 * (i + 1), 0, 64}, {16.0 * i, 0, 64}};
        assert_true(sweep__face_add(&s, p, 4, n, 0, 7));
    }
    assert_true(sweep__face_merge(&s, 0.01, &m));
    assert_int_equal(m.merged, 11);
    assert_int_equal(m.triangles, 2);
    sweep__face_set_clear(&s);

    /* one polygon with corners on an ellipse: the fan is
     * from the corner whose worst triangle is best, never worse than the
     * first corner's */
    double p[16][3];
    for (int i = 0; i < 16; i++) {
        double a = 2 * M_PI * i / 16;
        p[i][0] = 300 * cos(a), p[i][1] = 100 * sin(a), p[i][2] = 0;
    }
    assert_true(sweep__face_add(&s, p, 16, up, 0, 1));
    assert_int_equal(merge_and_check(&s, up, &m), 14);
    double worst = INFINITY, worst0 = INFINITY;
    for (uint32_t t = 0; t < m.triangles; t++) {
        const uint32_t *x = &m.tri[4 * t];
        double l2 = 0;
        for (int i = 0; i < 3; i++) {
            const double *a = m.v[x[i]], *b = m.v[x[(i + 1) % 3]];
            l2 += (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]);
        }
        worst = fmin(worst, tri_area(&m, t, up) / l2);
    }
    for (int j = 1; j + 1 < 16; j++) {
        double l2 = 0, a2;
        const double *a = p[0], *b = p[j], *c = p[j + 1];
        l2 = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (c[0] - b[0]) * (c[0] - b[0]) +
             (c[1] - b[1]) * (c[1] - b[1]) + (a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]);
        a2 = 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
        worst0 = fmin(worst0, a2 / l2);
    }
    assert_true(worst >= worst0);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

/* 1 if vertex v is a corner of some triangle of m. */
static int used(const sweep__face_mesh *m, uint32_t v)
{
    for (uint32_t t = 0; t < m->triangles; t++)
        for (int k = 0; k < 3; k++)
            if (m->tri[4 * t + k] == v)
                return 1;
    return 0;
}

/* The vertex of m at (x, y, 0), or UINT32_MAX. */
static uint32_t vertex_at(const sweep__face_mesh *m, double x, double y)
{
    for (uint32_t v = 0; v < m->vertices; v++)
        if (m->v[v][0] == x && m->v[v][1] == y && m->v[v][2] == 0)
            return v;
    return UINT32_MAX;
}

static void pinned_and_shared_corners_stay(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* Three squares in a row: one quad, its two middle corners on each
     * long side dropped... */
    for (int i = 0; i < 3; i++)
        add_rect(&s, 16.0 * i, 0, 16.0 * (i + 1), 16, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 2);
    assert_false(used(&m, vertex_at(&m, 16, 0)));
    /* ...unless pinned: a pin keeps its corner, and one at no corner pins
     * nothing. */
    const double pin[3] = {16, 0, 0}, nowhere[3] = {5, 5, 0};
    assert_true(sweep__face_pin(&s, pin));
    assert_true(sweep__face_pin(&s, nowhere));
    assert_int_equal(merge_and_check(&s, up, &m), 3);
    assert_true(used(&m, vertex_at(&m, 16, 0)));
    assert_false(used(&m, vertex_at(&m, 32, 0)));
    sweep__face_set_clear(&s);
    assert_int_equal(s.pins, 0);

    /* Two squares on the bottom row and one above the left: the bottom
     * pair merge into one rectangle, the third cannot join it (an L is
     * not convex), and its corner (16, 16) lies on the rectangle's top
     * side. Alone, the rectangle drops it; with keep_shared, it keeps the
     * corner the square keeps. */
    add_rect(&s, 0, 0, 16, 16, 0, up, 1);
    add_rect(&s, 16, 0, 32, 16, 0, up, 1);
    add_rect(&s, 0, 16, 16, 32, 0, up, 1);
    for (int keep = 0; keep < 2; keep++) {
        s.keep_shared = keep;
        assert_int_equal(merge_and_check(&s, up, &m), keep ? 5 : 4);
        uint32_t v = vertex_at(&m, 16, 16), rectangle_uses = 0;
        for (uint32_t t = 0; t < m.triangles; t++) {
            int low = 1, has = 0;
            for (int k = 0; k < 3; k++)
                low &= m.v[m.tri[4 * t + k]][1] <= 16, has |= m.tri[4 * t + k] == v;
            rectangle_uses += low && has;
        }
        assert_true(keep ? rectangle_uses > 0 : rectangle_uses == 0);
    }
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

static void the_same_input_gives_the_same_output(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m[2] = {{0}, {0}};
    /* a 5 x 4 grid in a scrambled order, two materials side by side */
    for (int i = 0; i < 20; i++) {
        int c = (i * 7) % 20, x = c % 5, y = c / 5;
        add_rect(&s, 16 * x, 16 * y, 16 * x + 16, 16 * y + 16, 0, up, (uint32_t)(x < 3));
    }
    for (int k = 0; k < 2; k++)
        merge_and_check(&s, up, &m[k]);
    assert_int_equal(m[0].triangles, m[1].triangles);
    assert_int_equal(m[0].vertices, m[1].vertices);
    assert_memory_equal(m[0].tri, m[1].tri, 4 * m[0].triangles * sizeof *m[0].tri);
    assert_memory_equal(m[0].v, m[1].v, m[0].vertices * sizeof m[0].v[0]);
    assert_int_equal(m[0].triangles, 4);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m[0]);
    sweep__face_mesh_free(&m[1]);
}

/* Merging compares pairs: a group of more than 4096 polygons is left as
 * it is, and no merge makes an outline of more than 1024 corners, so a
 * hostile file cannot make the import quadratic in its size. */
static void huge_groups_are_left_alone(void **state)
{
    (void)state;
    sweep__face_set s = {0};
    sweep__face_mesh m = {0};
    /* a strip of 600 squares: one polygon until its outline (two corners
     * a square, the collinear ones kept while merging) would pass 1024
     * corners, then a second one */
    for (int i = 0; i < 600; i++)
        add_rect(&s, 8 * i, 0, 8 * i + 8, 8, 0, up, 1);
    assert_int_equal(merge_and_check(&s, up, &m), 4);
    assert_int_equal(m.merged, 598);
    sweep__face_set_clear(&s);
    /* 4097 squares on one plane, one key: none merged */
    for (int i = 0; i < 4097; i++)
        add_rect(&s, 8 * (i % 64), 8 * (i / 64), 8 * (i % 64) + 8, 8 * (i / 64) + 8, 0, up, 1);
    assert_true(sweep__face_merge(&s, 0.01, &m));
    assert_int_equal(m.triangles, 2 * 4097);
    assert_int_equal(m.merged, 0);
    sweep__face_set_free(&s);
    sweep__face_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_squares_side_by_side_make_one_quad),
        cmocka_unit_test(a_grid_becomes_one_quad),
        cmocka_unit_test(pieces_along_a_longer_edge_merge_once_they_span_it),
        cmocka_unit_test(what_must_not_merge_does_not),
        cmocka_unit_test(corners_a_hair_apart_are_one),
        cmocka_unit_test(a_strip_is_cut_without_needles),
        cmocka_unit_test(pinned_and_shared_corners_stay),
        cmocka_unit_test(the_same_input_gives_the_same_output),
        cmocka_unit_test(huge_groups_are_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
