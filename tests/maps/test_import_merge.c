/*
 * test_import_merge.c - a scene node's coplanar triangles merged at import
 * (maps/import_scene_merge.c), on small OBJ files written here.
 *
 *   - a floor cut into a grid of 8 x 8 squares (128 triangles, an open
 *     sheet) comes in as 2 triangles and their 2 reversed twins, on its 4
 *     corners only, and covers what the grid covered at the same height;
 *     --no-merge-faces (no_merge_faces) keeps the 128 and their twins;
 *   - the same grid on a slope (a plane at an angle to every axis, its
 *     corners rounded to the file's precision) merges as well;
 *   - a closed box whose faces are cut 4 x 4 comes in as 12 triangles, still
 *     a closed shell with no edge of one triangle (the level check);
 *   - a floor of two materials, one an L, and one of three, a half and two
 *     quarters, keep every corner the other materials' triangles use: no
 *     corner of the result lies inside another triangle's edge (no
 *     T-junction is made), the area is the same and each point keeps its
 *     material;
 *   - a grid of more triangles than one merge takes is cut into parts and
 *     still comes in as far fewer, covering the same, with no T-junction
 *     where the parts meet;
 *   - a closed box of two nodes (its lid one, the rest another, one side
 *     in columns of two materials) stays a closed shell with no
 *     T-junction: corners another node uses stay corners;
 *   - finely cut discs far from the origin keep their area (the tolerance
 *     follows a node's size, not its distance out; a merge that would lose
 *     a polygon is refused), and a gentle bump far out is not flattened;
 *   - a tilted floor whose middle strip keeps corners on both long sides
 *     is fanned from the strip's centre: no needle, no triangle facing off
 *     the floor's plane;
 *   - the same scene gives the same level, array for array.
 */
#include "tests/maps/map_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "maps/import.h"
#include "maps/level.h"
#include "maps/level_check.h"

/* The sides rule of the imports (the default, auto, unless a test says). */
static sweep_import_sides sides_rule;

static int setup(void **state)
{
    sides_rule = SWEEP_SIDES_AUTO;
    *state = fixture_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_cleanup(*state);
    return 0;
}

/* A growing OBJ text. */
typedef struct obj {
    char *text;
    size_t len, cap;
    int vertices;
} obj;

static void put(obj *o, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(o->text + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        o->cap = o->cap * 2 + (size_t)n + 1;
        o->text = realloc(o->text, o->cap);
        assert_non_null(o->text);
    }
}

/* The corner of a grid: origin + i/n du + j/n dv (map coordinates, z up;
 * written y up as the importer's default reads it: (x, y, z) -> (x, z, -y)). */
static void grid_vertex(obj *o, const double org[3], const double du[3], const double dv[3], int i, int j, int n)
{
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = org[k] + du[k] * i / n + dv[k] * j / n;
    put(o, "v %.9g %.9g %.9g\n", p[0], p[2], -p[1]);
    o->vertices++;
}

/* Which of a grid's materials square (i, j) of n x n has. */
typedef int (*material_of)(int i, int j, int n);

static int all_first(int i, int j, int n)
{
    (void)i, (void)j, (void)n;
    return 0;
}

/* An L of the second material (i < n/2 or j < n/2) round a square of the
 * first. */
static int l_shape(int i, int j, int n)
{
    return i < n / 2 || j < n / 2;
}

/* Three: the half i >= n/2 the first, the two quarters beside it the
 * second and third; the first's edge along i = n/2 is straight, and both
 * others have a corner at its middle. */
static int halves(int i, int j, int n)
{
    return i >= n / 2 ? 0 : j < n / 2 ? 1 : 2;
}

/* An n x n grid of squares (2 triangles each) over the parallelogram
 * org + [0, 1] du + [0, 1] dv, facing along du x dv, square (i, j) in
 * material mats[which(i, j, n)] (written material by material). */
static void grid(obj *o, const double org[3], const double du[3], const double dv[3], int n, const char *const *mats,
                 int nmats, material_of which)
{
    int base = o->vertices;
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++)
            grid_vertex(o, org, du, dv, i, j, n);
    for (int m = 0; m < nmats; m++) {
        put(o, "usemtl %s\n", mats[m]);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                if (which(i, j, n) != m)
                    continue;
                int a = base + 1 + i * (n + 1) + j, b = base + 1 + (i + 1) * (n + 1) + j;
                put(o, "f %d %d %d\nf %d %d %d\n", a, b, b + 1, a, b + 1, a + 1);
            }
    }
}

static int columns(int i, int j, int n)
{
    (void)j, (void)n;
    return i % 2;
}

static const char *const stone[] = {"Stone"}, *const stone_wood[] = {"Stone", "Wood"},
                         *const three[] = {"Stone", "Wood", "Glass"};

static void write_obj(fixture *f, obj *o, const char *name, char *path, size_t len)
{
    static const char mtl[] =
        "newmtl Stone\nKd 0.5 0.5 0.5\nnewmtl Wood\nKd 0.6 0.4 0.2\nnewmtl Glass\nKd 0.2 0.2 0.8\n";
    assert_true(fixture_write(fixture_path(f, "merge.mtl"), mtl, strlen(mtl)));
    snprintf(path, len, "%s", fixture_path(f, name));
    obj whole = {0};
    put(&whole, "mtllib merge.mtl\n%.*s", (int)o->len, o->text);
    assert_true(fixture_write(path, whole.text, whole.len));
    free(whole.text);
}

static void import_ok(const char *path, int no_merge, sweep_level *lv, sweep_import_stats *st)
{
    sweep_import_options o = {.up_axis_y = 1, .scale = 1.0, .no_merge_faces = no_merge, .sides = sides_rule};
    char err[1024];
    if (sweep_import_scene(path, &o, lv, st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s: %s", path, err);
}

/* Writes o as NAME (freeing its text) and imports it as written (plain)
 * and merged. */
static void import_both(fixture *f, obj *o, const char *name, sweep_level *plain, sweep_import_stats *sp,
                        sweep_level *merged, sweep_import_stats *sm)
{
    char path[4200];
    write_obj(f, o, name, path, sizeof path);
    free(o->text);
    import_ok(path, 1, plain, sp);
    import_ok(path, 0, merged, sm);
}

/* Triangle t's normal (not unit). */
static sweep_vec3 normal_of(const sweep_level *lv, uint32_t t)
{
    const uint32_t *ix = &lv->indices[3 * (size_t)t];
    const sweep_vec3 *v = lv->vertices;
    return sweep_v3_cross(sweep_v3_sub(v[ix[1]], v[ix[0]]), sweep_v3_sub(v[ix[2]], v[ix[0]]));
}

/* The heights at which a vertical line through (x, y) meets the level's
 * triangles facing up, and how many it meets (edges included). */
static int heights_at(const sweep_level *lv, double x, double y, double *z)
{
    int hits = 0;
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        sweep_vec3 n = normal_of(lv, t);
        if (!(n.z > 0.0))
            continue;
        const uint32_t *ix = &lv->indices[3 * (size_t)t];
        const sweep_vec3 *a = &lv->vertices[ix[0]], *b = &lv->vertices[ix[1]], *c = &lv->vertices[ix[2]];
        double s0 = (b->x - a->x) * (y - a->y) - (b->y - a->y) * (x - a->x);
        double s1 = (c->x - b->x) * (y - b->y) - (c->y - b->y) * (x - b->x);
        double s2 = (a->x - c->x) * (y - c->y) - (a->y - c->y) * (x - c->x);
        if (s0 < 0 || s1 < 0 || s2 < 0)
            continue;
        *z = a->z - (n.x * (x - a->x) + n.y * (y - a->y)) / n.z;
        hits++;
    }
    return hits;
}

/* Samples a grid of points over [x0, x1] x [y0, y1], off every grid line
 * of the files: each is met by exactly one upward triangle of each level,
 * at heights within tol. */
static void same_cover(const sweep_level *a, const sweep_level *b, double x0, double y0, double x1, double y1,
                       double tol)
{
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 37; j++) {
            double x = x0 + (x1 - x0) * (i + 0.37) / 37.0, y = y0 + (y1 - y0) * (j + 0.61) / 37.0, za, zb;
            int ha = heights_at(a, x, y, &za), hb = heights_at(b, x, y, &zb);
            if (ha != 1 || hb != 1 || fabs(za - zb) > tol)
                fail_msg("at (%g, %g): %d hits at %.9g before, %d at %.9g merged", x, y, ha, za, hb, zb);
        }
}

/* 1 if p lies strictly inside the segment a-b (not at its ends). */
static int inside_segment(sweep_vec3 a, sweep_vec3 b, sweep_vec3 p)
{
    sweep_vec3 e = sweep_v3_sub(b, a), w = sweep_v3_sub(p, a);
    double t = sweep_v3_dot(w, e), ee = sweep_v3_dot(e, e);
    if (!(t > 1e-12 * ee && t < ee * (1 - 1e-12)))
        return 0;
    sweep_vec3 c = sweep_v3_cross(e, w);
    return sweep_v3_dot(c, c) <= 1e-18 * ee * ee;
}

/* No corner of any triangle lies inside another triangle's edge. */
static void no_t_junctions(const sweep_level *lv)
{
    for (uint32_t t = 0; t < lv->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            sweep_vec3 a = lv->vertices[lv->indices[3 * t + k]], b = lv->vertices[lv->indices[3 * t + (k + 1) % 3]];
            for (uint32_t u = 0; u < lv->triangle_count; u++)
                for (int m = 0; m < 3; m++) {
                    sweep_vec3 p = lv->vertices[lv->indices[3 * u + m]];
                    if (inside_segment(a, b, p))
                        fail_msg("a corner (%g, %g, %g) of triangle %u lies inside an edge of triangle %u", p.x, p.y,
                                 p.z, u, t);
                }
        }
}

static double up_area(const sweep_level *lv)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        sweep_vec3 n = normal_of(lv, t);
        if (n.z > 0)
            sum += 0.5 * sqrt(sweep_v3_dot(n, n));
    }
    return sum;
}

static const double origin[3] = {-4, -4, 0}, along_x[3] = {8, 0, 0}, along_y[3] = {0, 8, 0};

static void a_subdivided_floor_becomes_two_triangles(void **state)
{
    fixture *f = *state;
    obj o = {0};
    put(&o, "o floor\n");
    grid(&o, origin, along_x, along_y, 8, stone, 1, all_first);
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(f, &o, "floor.obj", &plain, &sp, &merged, &sm);
    /* An open sheet: two-sided either way, its twins after it. */
    assert_int_equal(plain.triangle_count, 256);
    assert_int_equal(sp.merge_dropped, 0);
    assert_int_equal(merged.triangle_count, 4);
    assert_int_equal(sm.merge_dropped, 126);
    assert_int_equal(sm.triangles, 4);
    assert_int_equal(sm.twins, 2);
    for (uint32_t t = 2; t < 4; t++) {
        const uint32_t *a = &merged.indices[3 * (t - 2)], *b = &merged.indices[3 * t];
        assert_true(b[0] == a[0] && b[1] == a[2] && b[2] == a[1]);
    }
    /* Only the floor's four corners are left. */
    assert_int_equal(merged.vertex_count, 4);
    for (uint32_t v = 0; v < 4; v++)
        assert_true(fabs(fabs(merged.vertices[v].x) - 4) == 0 && fabs(fabs(merged.vertices[v].y) - 4) == 0);
    same_cover(&plain, &merged, -4, -4, 4, 4, 0.0);
    assert_true(fabs(up_area(&merged) - 64.0) < 1e-9);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

static void a_subdivided_slope_merges_too(void **state)
{
    fixture *f = *state;
    /* z = 0.3 x + 0.2 y: at an angle to every axis; %.9g rounds the
     * corners off the plane by a little. */
    const double du[3] = {8, 0, 2.4}, dv[3] = {0, 8, 1.6}, org[3] = {-4, -4, -2.0};
    obj o = {0};
    put(&o, "o ramp\n");
    grid(&o, org, du, dv, 6, stone, 1, all_first);
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(f, &o, "ramp.obj", &plain, &sp, &merged, &sm);
    assert_int_equal(plain.triangle_count, 144);
    assert_true(merged.triangle_count <= 8);
    same_cover(&plain, &merged, -4, -4, 4, 4, 1e-5);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

/* A box 2 x 2 x 2 cut 4 x 4 a face, wound outward: origin and the two
 * sides of each face. */
static const double box_faces[6][3][3] = {{{0, 0, 0}, {0, 2, 0}, {2, 0, 0}}, {{0, 0, 2}, {2, 0, 0}, {0, 2, 0}},
                                          {{0, 0, 0}, {2, 0, 0}, {0, 0, 2}}, {{0, 2, 0}, {0, 0, 2}, {2, 0, 0}},
                                          {{0, 0, 0}, {0, 0, 2}, {0, 2, 0}}, {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}}};

/* The level check finds plain and merged one closed shell with no edge of
 * one triangle. */
static void both_one_closed_shell(const sweep_level *plain, const sweep_level *merged)
{
    for (int which = 0; which < 2; which++) {
        sweep_check_summary sum;
        char err[256];
        assert_int_equal(sweep_level_check(which ? merged : plain, NULL, NULL, &sum, err, sizeof err), SWEEP_OK);
        assert_int_equal(sum.shells, 1);
        assert_int_equal(sum.one_sided_edges, 0);
        assert_int_equal(sum.findings, 0);
    }
}

static void a_closed_box_stays_closed(void **state)
{
    fixture *f = *state;
    obj o = {0};
    put(&o, "o box\n");
    for (int k = 0; k < 6; k++)
        grid(&o, box_faces[k][0], box_faces[k][1], box_faces[k][2], 4, stone, 1, all_first);
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(f, &o, "box.obj", &plain, &sp, &merged, &sm);
    assert_int_equal(plain.triangle_count, 192);
    assert_int_equal(sp.meshes_open, 0);
    assert_int_equal(merged.triangle_count, 12);
    assert_int_equal(sm.meshes_open, 0);
    assert_int_equal(sm.twins, 0);
    both_one_closed_shell(&plain, &merged);
    no_t_junctions(&merged);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

/* Imports a floor of n x n squares in the materials which() gives, with
 * and without merging: no T-junction either way, the same ground at the
 * same height, each point in the material it had; returns the merged
 * triangles. */
static uint32_t floor_of_materials(fixture *f, const char *const *mats, int nmats, material_of which, int n)
{
    obj o = {0};
    put(&o, "o floor\n");
    grid(&o, origin, along_x, along_y, n, mats, nmats, which);
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(f, &o, "mats.obj", &plain, &sp, &merged, &sm);
    assert_int_equal(plain.triangle_count, 4 * n * n);
    no_t_junctions(&plain);
    no_t_junctions(&merged);
    same_cover(&plain, &merged, -4, -4, 4, 4, 0.0);
    assert_true(fabs(up_area(&merged) - 64.0) < 1e-9);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = -4 + 8 * (i + 0.4) / n, y = -4 + 8 * (j + 0.3) / n;
            uint32_t found = 0;
            for (uint32_t t = 0; t < merged.triangle_count; t++) {
                double z;
                sweep_level one = merged;
                one.indices = &merged.indices[3 * t], one.triangle_count = 1;
                if (heights_at(&one, x, y, &z))
                    found = merged.materials[t];
            }
            /* ids in order of first use, which is the files' order */
            assert_int_equal(found, (uint32_t)which(i, j, n) + 1);
        }
    uint32_t count = merged.triangle_count;
    sweep_level_free(&plain);
    sweep_level_free(&merged);
    return count;
}

static void corners_the_other_material_uses_stay(void **state)
{
    /* The L: where its two rectangles meet, the corner the square needs. */
    assert_true(floor_of_materials(*state, stone_wood, 2, l_shape, 8) < 32);
    /* The half's straight edge keeps the corner both quarters meet at. */
    assert_true(floor_of_materials(*state, three, 3, halves, 8) < 32);
}

static void a_floor_larger_than_one_merge_is_cut_into_parts(void **state)
{
    fixture *f = *state;
    obj o = {0};
    put(&o, "o floor\n");
    /* 48 x 48 squares: 4,608 triangles, over two parts' worth. */
    grid(&o, origin, along_x, along_y, 48, stone, 1, all_first);
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(f, &o, "big.obj", &plain, &sp, &merged, &sm);
    assert_int_equal(plain.triangle_count, 2 * 4608);
    assert_true(merged.triangle_count < 2 * 4608 / 10);
    no_t_junctions(&merged);
    same_cover(&plain, &merged, -4, -4, 4, 4, 0.0);
    assert_true(fabs(up_area(&merged) - 64.0) < 1e-9);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

static void a_closed_shell_of_two_nodes_stays_closed(void **state)
{
    /* The lid one node, the rest another, one side in columns of two
     * materials: the lid's edge along that side must keep the corners the
     * columns keep, though they are another node's. */
    obj o = {0};
    put(&o, "o lid\n");
    grid(&o, box_faces[1][0], box_faces[1][1], box_faces[1][2], 4, stone, 1, all_first);
    put(&o, "o body\n");
    for (int k = 0; k < 6; k++)
        if (k != 1)
            grid(&o, box_faces[k][0], box_faces[k][1], box_faces[k][2], 4, stone_wood, 2, k == 2 ? columns : all_first);
    /* each node is open alone: one-sided, or twins would hide the shell */
    sides_rule = SWEEP_SIDES_ONE;
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(*state, &o, "two-nodes.obj", &plain, &sp, &merged, &sm);
    assert_true(merged.triangle_count < plain.triangle_count);
    both_one_closed_shell(&plain, &merged);
    no_t_junctions(&merged);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

/* Writes a disc of `sides` corners, radius r, at (x, 0, 0) facing up,
 * fanned from its first corner as an exporter fans a polygon. */
static void disc(obj *o, int sides, double r, double x)
{
    int base = o->vertices;
    for (int k = 0; k < sides; k++) {
        double a = 2 * M_PI * k / sides, p[3] = {x + r * cos(a), r * sin(a), 0};
        put(o, "v %.17g %.17g %.17g\n", p[0], p[2], -p[1]);
        o->vertices++;
    }
    for (int k = 1; k + 1 < sides; k++)
        put(o, "f %d %d %d\n", base + 1, base + 1 + k, base + 2 + k);
}

static void fine_curves_far_out_lose_nothing(void **state)
{
    /* A 256-gon of radius 2 far out: its corners lie 6e-4 off their
     * neighbours' line, under a millionth of the coordinate (which the
     * tolerance once followed) but far above one of the disc's size
     * (4e-6). A 4096-gon's lie 2.4e-6 off, under that too: its outline
     * may lose such corners (moving by less than the tolerance), but the
     * disc must not go. */
    static const int sides[2] = {256, 4096};
    for (int i = 0; i < 2; i++) {
        obj o = {0};
        put(&o, "o disc\n");
        disc(&o, sides[i], 2.0, 1000.0);
        sweep_level plain, merged;
        sweep_import_stats sp, sm;
        import_both(*state, &o, "disc.obj", &plain, &sp, &merged, &sm);
        /* covered to within the tolerance times the rim (4e-6 x 12.6) */
        assert_true(merged.triangle_count > 0);
        assert_true(fabs(up_area(&merged) - up_area(&plain)) <= 5.1e-5);
        sweep_level_free(&plain);
        sweep_level_free(&merged);
    }
    /* A gentle bump (0.5 over 20 units) at x = 1,000,000 is not flattened:
     * the tolerance follows the node's size, not its distance out. */
    obj o = {0};
    put(&o, "o bump\n");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            put(&o, "v %.17g %.17g %.17g\n", 999990.0 + 10 * i, i == 1 && j == 1 ? 0.5 : 0.0, -(-10.0 + 10 * j));
            o.vertices++;
        }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            int a = 1 + 3 * i + j, b = a + 3;
            put(&o, "f %d %d %d\nf %d %d %d\n", a, b, b + 1, a, b + 1, a + 1);
        }
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(*state, &o, "bump.obj", &plain, &sp, &merged, &sm);
    double top = -INFINITY;
    for (uint32_t t = 0; t < merged.triangle_count; t++)
        for (int k = 0; k < 3; k++)
            top = fmax(top, merged.vertices[merged.indices[3 * t + k]].z);
    assert_true(top == 0.5);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

static void no_needles_on_a_tilted_floor(void **state)
{
    /* A floor of 4 x 3 unit squares turned 5 degrees about z and 30 about
     * y (a plane at an angle to every axis), written to 9 digits: its
     * middle two columns one material, the outer ones two others square by
     * square, so the middle rectangle keeps corners on both long sides.
     * Every fan from a corner would run along a side; rounding makes those
     * triangles a hair from flat, with any normal. */
    const double a = 5 * M_PI / 180, b = 30 * M_PI / 180;
    obj o = {0};
    put(&o, "o floor\n");
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            double x = i, y = 0, z = j, x1 = x * cos(a) - y * sin(a), y1 = x * sin(a) + y * cos(a);
            double x2 = x1 * cos(b) + z * sin(b), z2 = -x1 * sin(b) + z * cos(b);
            put(&o, "v %.9g %.9g %.9g\n", x2 + 10, y1 + 1, z2 + 10);
        }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            int p = 1 + 4 * i + j, q = 1 + 4 * (i + 1) + j;
            put(&o, "usemtl %s\nf %d %d %d\nf %d %d %d\n",
                i == 1 || i == 2 ? "Stone"
                : (i + j) % 2    ? "Wood"
                                 : "Glass",
                p, p + 1, q + 1, p, q + 1, q);
        }
    sides_rule = SWEEP_SIDES_ONE;
    sweep_level plain, merged;
    sweep_import_stats sp, sm;
    import_both(*state, &o, "tilted.obj", &plain, &sp, &merged, &sm);
    /* the middle rectangle (12 triangles), its 8 corners fanned from its
     * centre: 8 */
    assert_int_equal(plain.triangle_count, 24);
    assert_int_equal(merged.triangle_count, 20);
    sweep_vec3 up = normal_of(&plain, 0);
    up = sweep_v3_scale(up, 1.0 / sqrt(sweep_v3_dot(up, up)));
    for (uint32_t t = 0; t < merged.triangle_count; t++) {
        sweep_vec3 n = normal_of(&merged, t);
        const uint32_t *ix = &merged.indices[3 * t];
        double len = sqrt(sweep_v3_dot(n, n)), sides = 0;
        for (int k = 0; k < 3; k++) {
            sweep_vec3 e = sweep_v3_sub(merged.vertices[ix[(k + 1) % 3]], merged.vertices[ix[k]]);
            sides += sweep_v3_dot(e, e);
        }
        if (!(sweep_v3_dot(n, up) >= 0.9998 * len) || !(len / sides >= 1e-4))
            fail_msg("triangle %u: normal %.3g of the floor's, shape %.3g", t, sweep_v3_dot(n, up) / len, len / sides);
    }
    /* to within the tolerance (a millionth of its 4.7-unit size) times
     * its outline */
    assert_true(fabs(up_area(&merged) - up_area(&plain)) <= 1e-4);
    no_t_junctions(&merged);
    sweep_level_free(&plain);
    sweep_level_free(&merged);
}

static void the_same_scene_gives_the_same_level(void **state)
{
    fixture *f = *state;
    obj o = {0};
    put(&o, "o floor\n");
    grid(&o, origin, along_x, along_y, 16, three, 3, halves);
    char path[4200];
    write_obj(f, &o, "again.obj", path, sizeof path);
    free(o.text);
    sweep_level a, b;
    sweep_import_stats sa, sb;
    import_ok(path, 0, &a, &sa);
    import_ok(path, 0, &b, &sb);
    assert_int_equal(a.triangle_count, b.triangle_count);
    assert_int_equal(a.vertex_count, b.vertex_count);
    assert_memory_equal(a.indices, b.indices, 3 * (size_t)a.triangle_count * sizeof *a.indices);
    assert_memory_equal(a.materials, b.materials, (size_t)a.triangle_count * sizeof *a.materials);
    assert_memory_equal(a.vertices, b.vertices, (size_t)a.vertex_count * sizeof *a.vertices);
    sweep_level_free(&a);
    sweep_level_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_subdivided_floor_becomes_two_triangles, setup, teardown),
        cmocka_unit_test_setup_teardown(a_subdivided_slope_merges_too, setup, teardown),
        cmocka_unit_test_setup_teardown(a_closed_box_stays_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(corners_the_other_material_uses_stay, setup, teardown),
        cmocka_unit_test_setup_teardown(a_floor_larger_than_one_merge_is_cut_into_parts, setup, teardown),
        cmocka_unit_test_setup_teardown(a_closed_shell_of_two_nodes_stays_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(fine_curves_far_out_lose_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(no_needles_on_a_tilted_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(the_same_scene_gives_the_same_level, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
