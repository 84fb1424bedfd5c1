/*
 * test_import_bsp.c - the Quake 3 BSP importer (maps/import_bsp.c).
 *
 * The levels are written at run time by tests/maps/bsp_writer.h: a
 * floor, a wall with a bevel plane and a repeated side, a water brush that
 * must be ignored, a player-clip brush, a func_static box, one curved patch,
 * two spawn points, and brush-model movers (two doors, one opened by a
 * trigger_multiple, a lift, a bobbing platform, a turntable and a train on
 * three corners). They are imported from a .bsp file and from a .pk3 built
 * with libzip, and checked: every brush a closed shell facing out (each
 * directed edge once, its reverse once, positive volume), the patch
 * two-sided, spawns, materials, movers' paths and rules, and a round trip
 * through the map writer and loader, all with every face kept
 * (keep_hidden_faces); by default the faces back to back against another
 * brush go. Then every class of malformed input is
 * refused with a message naming the lump and record, every truncation and
 * thousands of corrupted copies are refused or imported without a crash.
 * Last, when the corpus (Debian's openarena-oacmp1, tests/install-corpus.sh)
 * is installed, each of its levels is imported, loaded back and walked by
 * sweep-walk, which must see no move fall back and no walker stuck or
 * inside geometry; without the corpus that test is skipped, saying why.
 * Hidden faces are checked on small levels of boxes: the wall between two
 * boxes side by side goes, what of a box lies inside another goes, floors
 * on one plane facing the same way stay, boxes touching along an edge lose
 * nothing, and a walk where hidden faces cannot matter is the same bit for
 * bit with them and without them.
 */
#include "tests/maps/map_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>
#include <zip.h>

#include "core/motion.h"
#include "core/quat.h"
#include "core/volume.h"
#include "maps/import_bsp.h"
#include "maps/level.h"
#include "maps/loader.h"
#include "maps/writer.h"

#include "tests/maps/bsp_writer.h"

/* Byte offset of lump l in a file made by bspw_finish. */
static size_t lump_at(const uint8_t *f, int l)
{
    return (size_t)f[8 + 8 * l] | (size_t)f[9 + 8 * l] << 8 | (size_t)f[10 + 8 * l] << 16 |
           (size_t)f[11 + 8 * l] << 24;
}

static void set_i32(uint8_t *p, int32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (uint8_t)((uint32_t)v >> (8 * k));
}

static void set_f32(uint8_t *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    set_i32(p, (int32_t)u);
}

/* ------------------------------------------------------------------------
 * Checks on the imported geometry
 */

typedef struct edge {
    uint32_t a, b;
} edge;

static int edge_cmp(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

static size_t count_edge(const edge *e, size_t n, uint32_t a, uint32_t b)
{
    edge key = {a, b};
    const edge *f = bsearch(&key, e, n, sizeof *e, edge_cmp);
    if (!f)
        return 0;
    while (f > e && f[-1].a == a && f[-1].b == b)
        f--;
    size_t c = 0;
    while (f + c < e + n && f[c].a == a && f[c].b == b)
        c++;
    return c;
}

/* The pieces of a mesh: triangles joined by shared vertices. */
typedef struct piece {
    uint32_t tris, bad_edges, two_sided;
    double volume;
    double lo[3], hi[3];
} piece;

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* Splits a mesh into its connected pieces (sorted by their low corner)
 * and checks each: a closed shell has every directed edge once and its
 * reverse once; a two-sided surface has each triangle also reversed. */
static uint32_t pieces_of(const sweep_vec3 *v, uint32_t nv, const uint32_t *ix, uint32_t nt, piece *out, uint32_t max)
{
    uint32_t *parent = malloc(nv * sizeof *parent), *root_piece = malloc(nv * sizeof *root_piece);
    edge *e = malloc(3 * (size_t)nt * sizeof *e + 1);
    assert_true(parent && root_piece && e);
    for (uint32_t i = 0; i < nv; i++)
        parent[i] = i, root_piece[i] = UINT32_MAX;
    for (uint32_t t = 0; t < nt; t++)
        for (int k = 1; k < 3; k++) {
            uint32_t a = find(parent, ix[3 * t]), b = find(parent, ix[3 * t + k]);
            if (a != b)
                parent[a] = b;
        }
    for (uint32_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++)
            e[3 * t + k] = (edge){ix[3 * t + k], ix[3 * t + (k + 1) % 3]};
    qsort(e, 3 * (size_t)nt, sizeof *e, edge_cmp);
    uint32_t n = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t r = find(parent, ix[3 * t]);
        if (root_piece[r] == UINT32_MAX) {
            assert_true(n < max);
            root_piece[r] = n;
            memset(&out[n], 0, sizeof out[n]);
            for (int k = 0; k < 3; k++)
                out[n].lo[k] = INFINITY, out[n].hi[k] = -INFINITY;
            n++;
        }
        piece *p = &out[root_piece[r]];
        const uint32_t *x = &ix[3 * t];
        sweep_vec3 a = v[x[0]], b = v[x[1]], c = v[x[2]];
        p->tris++;
        p->volume += sweep_v3_dot(a, sweep_v3_cross(b, c)) / 6.0;
        for (int k = 0; k < 3; k++) {
            sweep_vec3 q = v[x[k]];
            double qc[3] = {q.x, q.y, q.z};
            for (int i = 0; i < 3; i++)
                p->lo[i] = fmin(p->lo[i], qc[i]), p->hi[i] = fmax(p->hi[i], qc[i]);
            if (count_edge(e, 3 * (size_t)nt, x[k], x[(k + 1) % 3]) != 1 ||
                count_edge(e, 3 * (size_t)nt, x[(k + 1) % 3], x[k]) != 1)
                p->bad_edges++;
        }
        /* the same triangle the other way round */
        for (uint32_t u = 0; u < nt; u++) {
            const uint32_t *y = &ix[3 * u];
            if (y[0] == x[0] && y[1] == x[2] && y[2] == x[1]) {
                p->two_sided++;
                break;
            }
        }
    }
    /* sorted by low corner, so tests can name them */
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0; j--) {
            piece *a = &out[j - 1], *b = &out[j];
            int swap = a->lo[0] > b->lo[0] || (a->lo[0] == b->lo[0] && a->lo[1] > b->lo[1]);
            if (!swap)
                break;
            piece t = *a;
            *a = *b, *b = t;
        }
    free(parent), free(root_piece), free(e);
    return n;
}

static void assert_box(const piece *p, double x0, double y0, double z0, double x1, double y1, double z1)
{
    const double lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
    for (int k = 0; k < 3; k++) {
        assert_true(fabs(p->lo[k] - lo[k]) < 1e-9);
        assert_true(fabs(p->hi[k] - hi[k]) < 1e-9);
    }
}

/* A closed shell facing out, of the given volume. */
static void assert_shell(const piece *p, double volume)
{
    assert_int_equal(p->bad_edges, 0);
    assert_int_equal(p->two_sided, 0);
    assert_true(p->volume > 0);
    assert_true(fabs(p->volume - volume) < 1e-6 * volume);
}

static const sweep_material *material_named(const sweep_level *lv, const char *name)
{
    for (uint32_t i = 0; i < lv->material_count; i++)
        if (strcmp(lv->material_table[i].name, name) == 0)
            return &lv->material_table[i];
    return NULL;
}

static void assert_v3(sweep_vec3 v, double x, double y, double z)
{
    if (!(fabs(v.x - x) < 1e-9 && fabs(v.y - y) < 1e-9 && fabs(v.z - z) < 1e-9))
        fail_msg("(%.17g, %.17g, %.17g) is not (%g, %g, %g)", v.x, v.y, v.z, x, y, z);
}

static const sweep_level_mover *mover_named(const sweep_level *lv, const char *name)
{
    uint32_t i = sweep_level_find_mover(lv, name);
    if (i == SWEEP_NO_MOVER)
        fail_msg("no mover '%s'", name);
    return &lv->movers[i];
}

/* A mover's mesh is one closed shell of the given box, in its frame. */
static void assert_mover_shell(const sweep_level_mover *m, double hx, double hy, double hz)
{
    piece p[4];
    assert_int_equal(pieces_of(m->vertices, m->vertex_count, m->indices, m->triangle_count, p, 4), 1);
    assert_shell(&p[0], 8 * hx * hy * hz);
    assert_box(&p[0], -hx, -hy, -hz, hx, hy, hz);
}

/* The test level's dome (corners at 0, the other control points at 32, 24
 * high at its top) at the default tolerance, SWEEP_BSP_PATCH_TOLERANCE
 * (4): 3 x 3 quads, both windings (tessellates_patches_within_tolerance
 * checks the distance). With the fixed grid it was 4 x 4. */
#define DOME_TRIANGLES 36

static uint32_t warnings;
static char last_warning[1024];
static void count_warning(void *ctx, const char *msg)
{
    (void)ctx;
    print_message("warning: %s\n", msg);
    snprintf(last_warning, sizeof last_warning, "%s", msg);
    warnings++;
}

/* The area of triangle t if it lies on the plane x[axis] = at (within
 * 1e-9) with its normal along +axis (dir 1) or -axis (dir -1); else 0. */
static double area_on(const sweep_level *lv, uint32_t t, int axis, double at, int dir)
{
    const uint32_t *x = &lv->indices[3 * t];
    sweep_vec3 a = lv->vertices[x[0]], b = lv->vertices[x[1]], c = lv->vertices[x[2]];
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    double pa[3] = {a.x, a.y, a.z}, pb[3] = {b.x, b.y, b.z}, pc[3] = {c.x, c.y, c.z};
    double nn[3] = {n.x, n.y, n.z}, len = sqrt(sweep_v3_dot(n, n));
    if (fabs(pa[axis] - at) > 1e-9 || fabs(pb[axis] - at) > 1e-9 || fabs(pc[axis] - at) > 1e-9)
        return 0.0;
    return dir * nn[axis] > 0.999 * len ? 0.5 * len : 0.0;
}

/* The area of the triangles lying on that plane, facing that way. */
static double area_where(const sweep_level *lv, int axis, double at, int dir)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < lv->triangle_count; t++)
        sum += area_on(lv, t, axis, at, dir);
    return sum;
}

static double area_all(const sweep_level *lv)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        const uint32_t *x = &lv->indices[3 * t];
        sweep_vec3 a = lv->vertices[x[0]], b = lv->vertices[x[1]], c = lv->vertices[x[2]];
        sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
        sum += 0.5 * sqrt(sweep_v3_dot(n, n));
    }
    return sum;
}

/* Everything the test level must become. */
static void check_level(const sweep_level *lv, const sweep_bsp_stats *st)
{
    /* World brushes: floor, wall, clip (the water is not solid); and the
     * func_static box; and the patch. */
    assert_int_equal(st->brushes, 4);
    assert_int_equal(st->brushes_solid, 3);
    assert_int_equal(st->brushes_empty, 0);
    assert_int_equal(st->hidden_dropped, 0);
    assert_int_equal(st->patches, 1);
    assert_int_equal(st->static_models, 1);
    assert_int_equal(st->triangles, lv->triangle_count);
    piece p[16];
    uint32_t n = pieces_of(lv->vertices, lv->vertex_count, lv->indices, lv->triangle_count, p, 16);
    assert_int_equal(n, 5);
    /* by low corner: floor, patch, clip, wall, func_static */
    assert_box(&p[0], -512, -512, -16, 512, 512, 0);
    assert_shell(&p[0], 1024.0 * 1024 * 16);
    assert_int_equal(p[0].tris, 12);
    /* the patch, each triangle in both windings */
    assert_int_equal(p[1].tris, DOME_TRIANGLES);
    assert_int_equal(p[1].two_sided, p[1].tris);
    assert_true(fabs(p[1].volume) < 1e-6);
    /* (an edge point at a third of the way sums weights that are not
     * exact: within rounding of the control points' x) */
    assert_true(fabs(p[1].lo[0] + 480) < 1e-9 && fabs(p[1].hi[0] + 416) < 1e-9 && p[1].lo[2] == 0 &&
                p[1].hi[2] > 8 && p[1].hi[2] < 32);
    assert_int_equal(st->patch_triangles, DOME_TRIANGLES);
    assert_box(&p[2], -300, -300, 0, -200, -200, 100);
    assert_shell(&p[2], 100.0 * 100 * 100);
    assert_box(&p[3], 200, -256, 0, 216, 256, 128);
    assert_shell(&p[3], 16.0 * 512 * 128);
    assert_int_equal(p[3].tris, 12); /* the bevel adds nothing */
    assert_box(&p[4], 400, 400, 0, 432, 432, 32);
    assert_shell(&p[4], 32.0 * 32 * 32);
    /* the water's corner (-100, -100, 0) is no vertex */
    for (uint32_t i = 0; i < lv->vertex_count; i++)
        assert_false(lv->vertices[i].x == -100 && lv->vertices[i].y == -100);

    /* Spawns: Quake 3 raises the player 9 above the spawn point, and the
     * box centre is 4 above the origin. */
    assert_int_equal(lv->spawn_count, 2);
    assert_int_equal(st->spawns, 2);
    assert_v3(lv->spawns[0], 0, 0, 24 + 13);
    assert_v3(lv->spawns[1], 64, 0, 24 + 13);

    /* Materials: in order of first use, names cut to 63 bytes and kept
     * unique, surface flags kept, slick means no friction. */
    assert_int_equal(lv->material_count, 7);
    assert_int_equal(st->materials, 7);
    assert_string_equal(lv->material_table[0].name, "textures/test/floor");
    char cut[64];
    snprintf(cut, sizeof cut, "%.63s", LONG_NAME("1"));
    assert_int_equal(strlen(cut), 63);
    assert_string_equal(lv->material_table[1].name, cut);
    assert_int_equal(strlen(lv->material_table[2].name), 63);
    assert_memory_equal(lv->material_table[2].name, cut, 61);
    assert_string_equal(lv->material_table[2].name + 61, "~2");
    const sweep_material *wall = material_named(lv, "textures/test/wall");
    assert_non_null(wall);
    assert_int_equal(wall->flags, 0x12);
    assert_true(wall->friction == 0.0);
    const sweep_material *clip = material_named(lv, "textures/common/clip");
    assert_non_null(clip);
    assert_int_equal(clip->flags, 0x80);
    assert_true(clip->friction == 1.0);
    assert_non_null(material_named(lv, "textures/test/curve"));
    assert_non_null(material_named(lv, "textures/test/door"));
    assert_null(material_named(lv, "textures/liquids/water"));
    assert_null(material_named(lv, "textures/common/trigger"));
    assert_null(material_named(lv, "textures/test/dupe"));
    for (uint32_t i = 0; i < lv->material_count; i++)
        assert_int_equal(lv->material_table[i].id, i + 1);

    /* Rules: Quake 3's. */
    assert_v3(lv->config.gravity, 0, 0, -800);
    assert_true(lv->config.step_height == 18);
    assert_true(fabs(lv->config.walkable_normal_up - 0.7) < 1e-12);
    assert_true(fabs(st->walkable_slope_deg - acos(0.7) * 180 / M_PI) < 1e-12);
    assert_v3(lv->default_radii, 15, 15, 28);
    assert_true(lv->tick_rate == 60);
    assert_true(lv->rules.walk_speed == 320 && lv->rules.ground_accel == 3200 && lv->rules.air_accel == 320);
    assert_true(lv->rules.air_move == SWEEP_AIR_ALONG);
    assert_true(lv->rules.jump_speed == 270 && lv->rules.speed_limit == 3000);
    assert_true(fabs(lv->rules.max_step - 1.0 / 30) < 1e-15);
    assert_true(lv->config.max_speed >= lv->rules.speed_limit);
    assert_true(lv->correction_threshold == 8);
    assert_int_equal(sweep_rules_check(&lv->rules), SWEEP_OK);
    assert_int_equal(sweep_config_check(&lv->config), SWEEP_OK);

    /* Movers, in entity order. */
    assert_int_equal(lv->mover_count, 6);
    assert_int_equal(st->movers, 6);
    uint32_t mtris = 0;
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        assert_int_equal(lv->movers[i].id, i + 1);
        sweep_mover_desc d = sweep_level_mover_desc(lv, i);
        uint32_t at;
        assert_int_equal(sweep_mover_desc_check(&d, &at), SWEEP_MOVER_FINE);
        mtris += lv->movers[i].triangle_count;
    }
    assert_int_equal(st->mover_triangles, mtris);

    /* func_door: 64 + 2 - lip 8 = 58 along +y at 100 u/s; its trigger is
     * its box grown 120 on its thinnest axis (x), then by the player's half
     * box. */
    const sweep_level_mover *door = mover_named(lv, "func_door_1");
    assert_int_equal(door->mode, SWEEP_MOVER_PINGPONG);
    assert_int_equal(door->trigger, SWEEP_TRIGGER_VOLUME);
    assert_int_equal(door->blocked, SWEEP_BLOCKED_REVERSE);
    assert_true(door->wait_start == 0 && door->wait_end == 2);
    assert_int_equal(door->key_count, 2);
    assert_true(door->keys[0].time == 0 && fabs(door->keys[1].time - 0.58) < 1e-12);
    assert_v3(door->keys[0].pose.position, 304, 0, 48);
    assert_v3(door->keys[1].pose.position, 304, 58, 48);
    assert_v3(door->volume_min, 299 - 120 - 15, -33 - 15, -1 - 28);
    assert_v3(door->volume_max, 309 + 120 + 15, 33 + 15, 97 + 28);
    assert_mover_shell(door, 4, 32, 48);

    /* func_plat: rests 64 below where it is built, rises at 200 when
     * touched, waits 1 s up. */
    const sweep_level_mover *plat = mover_named(lv, "func_plat_2");
    assert_int_equal(plat->mode, SWEEP_MOVER_PINGPONG);
    assert_int_equal(plat->trigger, SWEEP_TRIGGER_TOUCH);
    assert_int_equal(plat->blocked, SWEEP_BLOCKED_REVERSE);
    assert_true(plat->wait_end == 1);
    assert_int_equal(plat->key_count, 2);
    assert_v3(plat->keys[0].pose.position, -368, 332, 4 - 64);
    assert_v3(plat->keys[1].pose.position, -368, 332, 4);
    assert_true(fabs(plat->keys[1].time - 64.0 / 200) < 1e-12);
    assert_mover_shell(plat, 32, 32, 4);

    /* func_bobbing: 16 * sin along z, period 2 s, a closed loop. */
    const sweep_level_mover *bob = mover_named(lv, "func_bobbing_3");
    assert_int_equal(bob->mode, SWEEP_MOVER_LOOP);
    assert_int_equal(bob->trigger, SWEEP_TRIGGER_ALWAYS);
    assert_int_equal(bob->blocked, SWEEP_BLOCKED_CRUSH);
    assert_int_equal(bob->key_count, SWEEP_BSP_BOB_SAMPLES + 1);
    for (uint32_t k = 0; k < bob->key_count; k++) {
        double t = 2.0 * k / SWEEP_BSP_BOB_SAMPLES;
        assert_true(fabs(bob->keys[k].time - t) < 1e-12);
        assert_v3(bob->keys[k].pose.position, 0, 300, 64 + 16 * sin(M_PI * t));
    }
    assert_memory_equal(&bob->keys[0].pose.position, &bob->keys[bob->key_count - 1].pose.position,
                        sizeof(sweep_vec3));
    assert_mover_shell(bob, 16, 16, 8);

    /* func_rotating: 90 degrees/s about z through its origin. */
    const sweep_level_mover *rot = mover_named(lv, "func_rotating_4");
    assert_int_equal(rot->mode, SWEEP_MOVER_LOOP);
    assert_int_equal(rot->blocked, SWEEP_BLOCKED_STOP);
    uint32_t steps = (uint32_t)ceil(360.0 / SWEEP_BSP_TURN_STEP_DEG);
    assert_true(steps >= 4);
    assert_int_equal(rot->key_count, steps + 1);
    for (uint32_t k = 0; k < rot->key_count; k++) {
        double a = (360.0 / steps) * k;
        assert_true(fabs(rot->keys[k].time - a / 90.0) < 1e-12);
        assert_v3(rot->keys[k].pose.position, -300, 0, 64);
        sweep_quat q = rot->keys[k].pose.rotation;
        assert_true(q.x == 0 && q.y == 0);
        assert_true(fabs(q.z - sin(a * M_PI / 360)) < 1e-12 && fabs(q.w - cos(a * M_PI / 360)) < 1e-12);
        /* (1, 0, 0) turns counter-clockwise seen from above */
        sweep_vec3 x = sweep_quat_rotate(q, sweep_v3(1, 0, 0));
        assert_true(fabs(x.x - cos(a * M_PI / 180)) < 1e-12 && fabs(x.y - sin(a * M_PI / 180)) < 1e-12);
    }
    assert_mover_shell(rot, 32, 4, 4);

    /* func_train: waits 1 s at c1, c1 -> c2 and c2 -> c3 at the train's
     * 50, c3 -> c1 at c3's 200. */
    const sweep_level_mover *train = mover_named(lv, "func_train_5");
    assert_int_equal(train->mode, SWEEP_MOVER_LOOP);
    assert_int_equal(train->trigger, SWEEP_TRIGGER_ALWAYS);
    assert_int_equal(train->blocked, SWEEP_BLOCKED_STOP);
    assert_int_equal(train->key_count, 5);
    const double tt[5] = {0, 1, 3, 5, 5 + sqrt(2.0) * 100 / 200};
    const double tp[5][3] = {{0, -300, 64}, {0, -300, 64}, {100, -300, 64}, {100, -200, 64}, {0, -300, 64}};
    for (int k = 0; k < 5; k++) {
        assert_true(fabs(train->keys[k].time - tt[k]) < 1e-12);
        assert_v3(train->keys[k].pose.position, tp[k][0], tp[k][1], tp[k][2]);
    }
    assert_mover_shell(train, 8, 8, 8);

    /* The gate: opened by the trigger_multiple's box, up by its height + 2
     * (lip 0) at 400, a crusher. */
    const sweep_level_mover *gate = mover_named(lv, "func_door_7");
    assert_int_equal(gate->trigger, SWEEP_TRIGGER_VOLUME);
    assert_int_equal(gate->blocked, SWEEP_BLOCKED_CRUSH);
    assert_v3(gate->keys[0].pose.position, -125, 255, 50);
    assert_v3(gate->keys[1].pose.position, -125, 255, 152);
    assert_true(fabs(gate->keys[1].time - 102.0 / 400) < 1e-12);
    assert_v3(gate->volume_min, -201 - 15, 99 - 15, -1 - 28);
    assert_v3(gate->volume_max, -99 + 15, 201 + 15, 65 + 28);
    assert_mover_shell(gate, 25, 5, 50);
    assert_string_equal(lv->name, "test");
}

/* ------------------------------------------------------------------------
 * Tests
 */

static int setup(void **state)
{
    *state = fixture_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_cleanup(*state);
    return 0;
}

static void imports_the_test_level(void **state)
{
    fixture *f = *state;
    size_t size;
    uint8_t *data = make_level(NULL, 0, &size);
    char path[4200], err[1024];
    snprintf(path, sizeof path, "%s", fixture_path(f, "test.bsp"));
    assert_true(fixture_write(path, data, size));

    sweep_level lv;
    sweep_bsp_stats st;
    warnings = 0;
    /* Every brush whole: each a closed shell of its own. */
    sweep_bsp_options o = {NULL, count_warning, NULL, 1, 0.0, 0};
    sweep_status r = sweep_import_bsp(path, &o, &lv, &st, err, sizeof err);
    if (r != SWEEP_OK)
        fail_msg("%s", err);
    /* Only the light is named: the trigger opens the gate, the corners
     * are the train's path. */
    assert_int_equal(warnings, 1);
    assert_int_equal(st.warnings, 1);
    assert_int_equal(st.entities_skipped, 1);
    assert_string_equal(last_warning, "skipped: 1 x light (1 entity of 1 class the importer does not turn into anything)");
    check_level(&lv, &st);

    /* The same from memory, bit for bit. */
    sweep_level again;
    assert_int_equal(sweep_import_bsp_memory(data, size, "test.bsp", &o, &again, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(again.vertex_count, lv.vertex_count);
    assert_int_equal(again.triangle_count, lv.triangle_count);
    assert_memory_equal(again.vertices, lv.vertices, lv.vertex_count * sizeof *lv.vertices);
    assert_memory_equal(again.indices, lv.indices, 3 * (size_t)lv.triangle_count * sizeof *lv.indices);
    sweep_level_free(&again);

    /* Round trip: the writer loads it back (as the server would). */
    char db[4200];
    snprintf(db, sizeof db, "%s", fixture_path(f, "test.db"));
    sweep_map_write_options wo = {"in", st.walkable_slope_deg, NULL, NULL, NULL};
    sweep_map_write_result res;
    if (sweep_map_write(db, &lv, &wo, &res, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(res.triangle_count, lv.triangle_count);
    sweep_level back;
    if (sweep_map_load(db, &back, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(back.triangle_count, lv.triangle_count);
    assert_int_equal(back.spawn_count, 2);
    assert_int_equal(back.material_count, lv.material_count);
    assert_int_equal(back.mover_count, lv.mover_count);
    for (uint32_t i = 0; i < lv.mover_count; i++) {
        assert_string_equal(back.movers[i].name, lv.movers[i].name);
        assert_int_equal(back.movers[i].key_count, lv.movers[i].key_count);
        assert_int_equal(back.movers[i].trigger, lv.movers[i].trigger);
    }
    assert_true(fabs(back.config.walkable_normal_up - lv.config.walkable_normal_up) < 1e-15);
    sweep_level_free(&back);
    uint32_t whole = lv.triangle_count;
    sweep_level_free(&lv);

    /* By default the faces nobody touches go: the wall's and the clip
     * brush's bottoms (on the floor's top, back to back); not the
     * func_static's bottom, another model's (a model may move, or be left
     * out). The floor's top stays whole: the pieces around the holes under
     * the wall and the clip brush would take more triangles than its two.
     * Bit for bit the same each time. */
    o.keep_hidden_faces = 0;
    if (sweep_import_bsp(path, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_true(lv.triangle_count < whole);
    assert_int_equal(st.hidden_dropped, whole - lv.triangle_count);
    assert_true(fabs(area_where(&lv, 2, 0.0, 1) - 1024.0 * 1024) < 1e-6);
    assert_true(fabs(area_where(&lv, 2, 0.0, -1) - 32.0 * 32) < 1e-6);
    assert_int_equal(sweep_import_bsp_memory(data, size, "test.bsp", &o, &again, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(again.triangle_count, lv.triangle_count);
    assert_memory_equal(again.vertices, lv.vertices, lv.vertex_count * sizeof *lv.vertices);
    assert_memory_equal(again.indices, lv.indices, 3 * (size_t)lv.triangle_count * sizeof *lv.indices);
    sweep_level_free(&again);
    sweep_level_free(&lv);
    free(data);
}

/* Writes a .pk3 holding the given members (name, data, size) with libzip. */
static void write_pk3(const char *path, int n, const char *const *names, uint8_t *const *data, const size_t *sizes)
{
    int code;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    assert_non_null(z);
    for (int i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(z, data[i], sizes[i], 0);
        assert_non_null(s);
        assert_true(zip_file_add(z, names[i], s, ZIP_FL_OVERWRITE) >= 0);
    }
    assert_int_equal(zip_close(z), 0);
}

/* Every message an import hands on, one after the other. */
static char all_warnings[16384];
static void keep_warning(void *ctx, const char *msg)
{
    (void)ctx;
    size_t len = strlen(all_warnings);
    snprintf(all_warnings + len, sizeof all_warnings - len, "%s\n", msg);
}

/* A level with more kinds of entity than a line holds: the one warning
 * goes on in lines of its own until every class is named, once. */
static void names_every_class_it_skips_however_many(void **state)
{
    (void)state;
    char ents[8192];
    size_t len = (size_t)snprintf(ents, sizeof ents,
                                  "{ \"classname\" \"worldspawn\" }\n"
                                  "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n");
    for (int k = 0; k < 60; k++)
        len += (size_t)snprintf(ents + len, sizeof ents - len,
                                "{ \"classname\" \"item_of_a_rather_long_name_%02d\" \"origin\" \"0 0 64\" }\n", k);
    size_t size;
    uint8_t *data = make_level(ents, 0, &size);
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    all_warnings[0] = '\0';
    sweep_bsp_options o = {NULL, keep_warning, NULL, 0, 0.0, 0};
    if (sweep_import_bsp_memory(data, size, "many.bsp", &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(st.warnings, 1);
    assert_int_equal(st.entities_skipped, 60);
    if (!strstr(all_warnings, "(60 entities of 60 classes the importer does not turn into anything; the rest below)"))
        fail_msg("%s", all_warnings);
    assert_non_null(strstr(all_warnings, "\nskipped, continued: 1 x item_of_a_rather_long_name_"));
    for (int k = 0; k < 60; k++) {
        char name[64];
        snprintf(name, sizeof name, "1 x item_of_a_rather_long_name_%02d", k);
        const char *at = strstr(all_warnings, name);
        if (!at || strstr(at + 1, name))
            fail_msg("'%s' not named once:\n%s", name, all_warnings);
    }
    for (const char *line = all_warnings; *line; line = strchr(line, '\n') + 1)
        assert_true(strchr(line, '\n') - line < 512);
    sweep_level_free(&lv);
    free(data);
}

/* Every entity the importer does not turn into something is named by
 * class with its count, most first; a trigger_multiple that opens nothing
 * is a trigger volume, not one of them. */
static void names_the_entities_it_skips(void **state)
{
    (void)state;
    static const char ents[] =
        "{ \"classname\" \"worldspawn\" }\n"
        "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
        "{ \"classname\" \"target_speaker\" \"origin\" \"0 0 64\" }\n"
        "{ \"classname\" \"shooter_rocket\" \"origin\" \"0 0 64\" }\n"
        "{ \"classname\" \"target_speaker\" \"origin\" \"8 0 64\" }\n"
        "{ \"classname\" \"trigger_multiple\" \"model\" \"*6\" \"target\" \"nothing\" }\n"
        "{ \"origin\" \"0 0 0\" }\n"
        "{ \"classname\" \"target_speaker\" \"origin\" \"16 0 64\" }\n";
    size_t size;
    uint8_t *data = make_level(ents, 0, &size);
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    warnings = 0;
    sweep_bsp_options o = {NULL, count_warning, NULL, 0, 0.0, 0};
    if (sweep_import_bsp_memory(data, size, "skips.bsp", &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(warnings, 1);
    assert_int_equal(st.entities, 8);
    assert_int_equal(st.entities_skipped, 5);
    assert_string_equal(last_warning, "skipped: 3 x target_speaker, 1 x (no classname), 1 x shooter_rocket "
                                      "(5 entities of 3 classes the importer does not turn into anything)");
    /* The trigger that opens nothing is a trigger volume named by its
     * target. */
    assert_int_equal(st.triggers, 1);
    uint32_t named = 0;
    for (uint32_t i = 0; i < lv.volume_count; i++)
        if (lv.volumes[i].v.kind == SWEEP_VOLUME_TRIGGER && strcmp(lv.volumes[i].name, "nothing") == 0)
            named++;
    assert_true(named >= 1);
    sweep_level_free(&lv);
    free(data);
}

static void imports_from_a_pk3(void **state)
{
    fixture *f = *state;
    size_t size, other_size;
    uint8_t *data = make_level(NULL, 0, &size);
    uint8_t *other = make_level("{ \"classname\" \"worldspawn\" }\n", 0, &other_size);
    uint8_t readme[] = "not a level";
    char pk3[4200], one[4200], err[1024];
    snprintf(pk3, sizeof pk3, "%s", fixture_path(f, "pack.pk3"));
    const char *names[3] = {"readme.txt", "maps/test.bsp", "maps/Other.BSP"};
    uint8_t *datas[3] = {readme, data, other};
    size_t sizes[3] = {sizeof readme, size, other_size};
    write_pk3(pk3, 3, names, datas, sizes);

    char **list;
    uint32_t count;
    assert_true(sweep_bsp_list(pk3, &list, &count, err, sizeof err));
    assert_int_equal(count, 2);
    assert_string_equal(list[0], "maps/test.bsp");
    assert_string_equal(list[1], "maps/Other.BSP");
    sweep_bsp_list_free(list, count);

    sweep_level lv;
    sweep_bsp_stats st;
    sweep_bsp_options o = {"maps/test.bsp", NULL, NULL, 1, 0.0, 0};
    if (sweep_import_bsp(pk3, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    check_level(&lv, &st);
    sweep_level_free(&lv);

    /* Member names in any case, as Quake 3's file system. */
    o.member = "MAPS/OTHER.bsp";
    assert_int_equal(sweep_import_bsp(pk3, &o, &lv, &st, err, sizeof err), SWEEP_OK);
    assert_string_equal(lv.name, "Other");
    assert_int_equal(lv.mover_count, 0);
    assert_int_equal(lv.spawn_count, 0);
    sweep_level_free(&lv);

    /* Two levels and no --bsp: which one? */
    assert_int_equal(sweep_import_bsp(pk3, NULL, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "more than one"));
    assert_non_null(strstr(err, "--bsp"));
    assert_int_equal(lv.triangle_count, 0);
    o.member = "maps/missing.bsp";
    assert_int_equal(sweep_import_bsp(pk3, &o, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "no member 'maps/missing.bsp'"));

    /* One level: taken without --bsp. */
    snprintf(one, sizeof one, "%s", fixture_path(f, "one.pk3"));
    write_pk3(one, 2, names, datas, sizes);
    sweep_bsp_options keep = {NULL, NULL, NULL, 1, 0.0, 0};
    assert_int_equal(sweep_import_bsp(one, &keep, &lv, &st, err, sizeof err), SWEEP_OK);
    check_level(&lv, &st);
    sweep_level_free(&lv);

    /* A broken member is named with its pack. */
    data[4] = 47;
    write_pk3(one, 2, names, datas, sizes);
    assert_int_equal(sweep_import_bsp(one, NULL, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "one.pk3:maps/test.bsp: IBSP version 47"));

    /* A member that says it expands to 600 MB (a zip bomb's small pack):
     * refused from its size, before anything is read. */
    size_t zlen = 0;
    uint8_t *zip = (uint8_t *)fixture_read(one, &zlen);
    assert_non_null(zip);
    int patched = 0;
    for (size_t i = 0; i + 28 <= zlen; i++) {
        uint32_t sig =
            (uint32_t)zip[i] | (uint32_t)zip[i + 1] << 8 | (uint32_t)zip[i + 2] << 16 | (uint32_t)zip[i + 3] << 24;
        size_t at = sig == 0x04034b50u ? i + 22 : sig == 0x02014b50u ? i + 24 : 0; /* local, central */
        if (at) {
            zip[at] = 0x00, zip[at + 1] = 0x46, zip[at + 2] = 0xC3, zip[at + 3] = 0x23; /* 600,000,000 */
            patched++;
        }
    }
    assert_true(patched >= 2);
    char bomb[4200];
    snprintf(bomb, sizeof bomb, "%s", fixture_path(f, "bomb.pk3"));
    assert_true(fixture_write(bomb, zip, zlen));
    free(zip);
    o.member = "maps/test.bsp";
    assert_int_equal(sweep_import_bsp(bomb, &o, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    if (!strstr(err, "600000000 bytes is larger than sweep-import reads (512 MiB)"))
        fail_msg("error '%s'", err);
    /* A directory is not a level file. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", fixture_path(f, "folder.bsp"));
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(sweep_import_bsp(dir, NULL, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "folder.bsp: not a regular file"));
    assert_int_equal(rmdir(dir), 0);

    /* --bsp on a plain .bsp, and a file that is not there. */
    char bsp[4200];
    snprintf(bsp, sizeof bsp, "%s", fixture_path(f, "plain.bsp"));
    assert_true(fixture_write(bsp, other, other_size));
    o.member = "maps/test.bsp";
    assert_int_equal(sweep_import_bsp(bsp, &o, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "not a .pk3"));
    assert_int_equal(sweep_import_bsp(fixture_path(f, "nope.bsp"), NULL, &lv, &st, err, sizeof err),
                     SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "cannot open"));
    assert_false(sweep_bsp_list(bsp, &list, &count, err, sizeof err));
    assert_non_null(strstr(err, "zip"));

    assert_true(sweep_bsp_is_input("a/b.BSP") && sweep_bsp_is_input("x.pk3"));
    assert_false(sweep_bsp_is_input("x.gltf") || sweep_bsp_is_input(".bsp"));
    free(data);
    free(other);
}

/* Imports a broken copy and expects an error containing every `want`. */
static void expect_error(const uint8_t *data, size_t size, const char *want1, const char *want2)
{
    sweep_level lv;
    char err[1024];
    sweep_status r = sweep_import_bsp_memory(data, size, "bad.bsp", NULL, &lv, NULL, err, sizeof err);
    if (r != SWEEP_E_GEOMETRY)
        fail_msg("expected an error with '%s', got status %d", want1, (int)r);
    if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
        fail_msg("error '%s' does not say '%s' / '%s'", err, want1, want2 ? want2 : "");
    assert_int_equal(lv.triangle_count, 0);
    assert_int_equal(lv.vertex_count, 0);
    assert_int_equal(lv.mover_count, 0);
    assert_true(strncmp(err, "bad.bsp: ", 9) == 0);
}

/* A copy `buf` of the test level (good) with one change, then the code. */
#define WITH_COPY(buf, size, ...)                                                                                 \
    do {                                                                                                           \
        uint8_t *buf = malloc(size);                                                                               \
        memcpy(buf, good, size);                                                                                   \
        __VA_ARGS__;                                                                                               \
        free(buf);                                                                                                 \
    } while (0)

static void refuses_every_malformed_lump(void **state)
{
    (void)state;
    size_t size;
    uint8_t *good = make_level(NULL, 0, &size);
    const size_t planes = lump_at(good, L_PLANES), models = lump_at(good, L_MODELS),
                 brushes = lump_at(good, L_BRUSHES), sides = lump_at(good, L_SIDES), verts = lump_at(good, L_VERTS),
                 faces = lump_at(good, L_FACES);

    /* The header. */
    expect_error(good, 0, "truncated: 0 bytes", NULL);
    expect_error(good, 100, "truncated: 100 bytes", NULL);
    WITH_COPY(b, size, { b[3] = 'Q'; expect_error(b, size, "bad magic 'IBSQ'", NULL); });
    WITH_COPY(b, size, { b[4] = 47; expect_error(b, size, "IBSP version 47 is not supported", NULL); });
    /* Lumps out of the file, negative, or of no whole number of records. */
    WITH_COPY(b, size, {
        set_i32(b + 8 + 8 * L_BRUSHES, (int32_t)size);
        expect_error(b, size, "lump 8 (brushes)", "past the end of the file");
    });
    WITH_COPY(b, size, {
        set_i32(b + 12 + 8 * L_PLANES, -16);
        expect_error(b, size, "lump 2 (planes): negative", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + 12 + 8 * L_SIDES, 12);
        expect_error(b, size, "lump 9 (brushsides): length 12 is not a whole number of 8-byte records", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + 8 + 8 * L_FACES, 8);
        expect_error(b, size, "lump 13 (faces): offset 8 lies inside the header", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + 12 + 8 * L_MODELS, 0);
        expect_error(b, size, "lump 7 (models): empty", NULL);
    });
    /* Counts that overflow and indices out of range. */
    WITH_COPY(b, size, {
        set_i32(b + models + 32, 0x7fffffff);
        set_i32(b + models + 36, 0x7fffffff);
        expect_error(b, size, "lump 7 (models): record 0: brushes 2147483647 + 2147483647", "lump 8 (brushes)");
    });
    WITH_COPY(b, size, {
        set_i32(b + models + 40 + 28, -1);
        expect_error(b, size, "lump 7 (models): record 1: faces", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + brushes + 12 + 4, 0x7fffffff);
        expect_error(b, size, "lump 8 (brushes): record 1: sides", "lump 9 (brushsides)");
    });
    WITH_COPY(b, size, {
        set_i32(b + brushes + 8, -1);
        expect_error(b, size, "lump 8 (brushes): record 0: shader -1 is out of range", "lump 1 (shaders) has 10");
    });
    WITH_COPY(b, size, {
        set_i32(b + sides + 8 * 3, 99999);
        expect_error(b, size, "lump 9 (brushsides): record 3: plane 99999 is out of range", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + sides + 8 * 2 + 4, 10);
        expect_error(b, size, "lump 9 (brushsides): record 2: shader 10", NULL);
    });
    /* Numbers that are not finite, and planes that are not planes. */
    WITH_COPY(b, size, {
        set_f32(b + planes + 16 * 5 + 12, NAN);
        expect_error(b, size, "lump 2 (planes): record 5", "not a finite number");
    });
    WITH_COPY(b, size, {
        set_f32(b + planes + 16 * 5, 0), set_f32(b + planes + 16 * 5 + 4, 0), set_f32(b + planes + 16 * 5 + 8, 0);
        expect_error(b, size, "lump 2 (planes): record 5: normal (0, 0, 0) is not of unit length", NULL);
    });
    WITH_COPY(b, size, {
        set_f32(b + models + 40 * 2 + 16, INFINITY);
        expect_error(b, size, "lump 7 (models): record 2", "not a finite number");
    });
    WITH_COPY(b, size, {
        set_f32(b + verts + 44 * 4 + 8, NAN);
        expect_error(b, size, "lump 10 (vertexes): record 4", "not a finite number");
    });
    /* Patches. */
    WITH_COPY(b, size, {
        set_i32(b + faces + 96, 4);
        expect_error(b, size, "lump 13 (faces): record 0: a patch of 4 x 3", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + faces + 16, 8);
        expect_error(b, size, "lump 13 (faces): record 0: a patch of 3 x 3 control points has 8 vertices", NULL);
    });
    WITH_COPY(b, size, {
        set_i32(b + faces + 12, 5);
        expect_error(b, size, "lump 13 (faces): record 0: vertices 5 + 9", "lump 10 (vertexes)");
    });
    WITH_COPY(b, size, {
        set_i32(b + faces, 1000);
        expect_error(b, size, "lump 13 (faces): record 0: shader 1000", NULL);
    });
    free(good);

    /* Geometry that is no solid. */
    good = make_level(NULL, OPEN_FLOOR, &size);
    expect_error(good, size, "lump 8 (brushes): record 0: the brush is not closed", NULL);
    free(good);
    good = make_level(
        "{ \"classname\" \"worldspawn\" }\n{ \"classname\" \"func_door\" \"model\" \"*1\" }", NO_SOLID, &size);
    expect_error(good, size, "no player-solid brush or patch", NULL);
    free(good);

    /* Entity text. */
    static const struct {
        const char *text, *want;
    } ents[] = {
        {"{ \"classname\" \"worldspawn }", "lump 0 (entities): entity 0: the quoted string at byte 14 is not closed"},
        {"{ \"classname\" \"worldspawn\" ", "lump 0 (entities): entity 0: not closed by '}'"},
        {"{ \"classname\" \"worldspawn\" } }", "lump 0 (entities): entity 1: expected '{' at byte 29"},
        {"{ \"classname\" }", "lump 0 (entities): entity 0: key 'classname' has no value"},
        {"{ \"a\" { }", "entity 0: key 'a' has no value"},
        {"{ \"classname\" \"worldspawn\" }{ \"classname\" \"func_door\" \"model\" \"*99\" }",
         "lump 0 (entities): entity 1 (func_door): model '*99' is out of range"},
        {"{ \"classname\" \"func_plat\" \"model\" \"*0\" }", "model '*0' is out of range"},
        {"{ \"classname\" \"info_player_start\" \"origin\" \"nan 0 0\" }",
         "entity 0 (info_player_start): \"origin\" \"nan 0 0\" is not three finite numbers"},
        {"{ \"classname\" \"info_player_start\" \"origin\" \"1 2\" }", "is not three finite numbers"},
        {"{ \"classname\" \"func_door\" \"model\" \"*1\" \"speed\" \"fast\" }",
         "entity 0 (func_door): \"speed\" \"fast\" is not a finite number"},
        {"{ \"classname\" \"func_door\" \"model\" \"*1\" \"angle\" \"1e999\" }", "\"angle\" \"1e999\""},
        {"{ \"classname\" \"func_rotating\" \"model\" \"*4\" \"spawnflags\" \"1.5\" }",
         "\"spawnflags\" is not a whole number"},
        {"{ \"classname\" \"worldspawn\" \"gravity\" \"inf\" }", "entity 0 (worldspawn): \"gravity\" \"inf\""},
    };
    for (size_t i = 0; i < sizeof ents / sizeof ents[0]; i++) {
        good = make_level(ents[i].text, 0, &size);
        expect_error(good, size, ents[i].want, NULL);
        free(good);
    }
}

/* ------------------------------------------------------------------------
 * Patch tessellation
 */

/* A level of one patch of pw x ph control points (x, y, z each), nothing
 * else. */
static uint8_t *patch_level(const double *cp, int pw, int ph, size_t *size)
{
    bspw w;
    memset(&w, 0, sizeof w);
    int32_t s = shader(&w, "textures/test/curve", 0, 0x1);
    for (int i = 0; i < pw * ph; i++)
        vertex(&w, cp[3 * i], cp[3 * i + 1], cp[3 * i + 2]);
    face(&w, s, 2, 0, pw * ph, pw, ph);
    model(&w, -1000, -1000, -1000, 1000, 1000, 1000, 0, 1, 0, 0);
    static const char ents[] = "{ \"classname\" \"worldspawn\" }\n";
    put(&w.l[L_ENT], ents, sizeof ents);
    return bspw_finish(&w, size);
}

static void import_patch(const double *cp, int pw, int ph, double tol, sweep_level *lv, sweep_bsp_stats *st)
{
    size_t size;
    uint8_t *data = patch_level(cp, pw, ph, &size);
    sweep_bsp_options o = {NULL, count_warning, NULL, 0, tol, 0};
    char err[1024];
    if (sweep_import_bsp_memory(data, size, "p.bsp", &o, lv, st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
    assert_int_equal(st->patches, 1);
    assert_int_equal(st->patch_triangles, lv->triangle_count);
}

/* The exact surface of a patch at (u, v) in [0, 1] over the whole patch,
 * from its control points as the file stores them (single precision). */
static void bezier_point(const double *cp, int pw, int ph, double u, double v, double p[3])
{
    int bx = (pw - 1) / 2, by = (ph - 1) / 2;
    double fu = u * bx, fv = v * by;
    int jx = fu >= bx ? bx - 1 : (int)fu, jy = fv >= by ? by - 1 : (int)fv;
    double s = fu - jx, t = fv - jy;
    double wu[3] = {(1 - s) * (1 - s), 2 * s * (1 - s), s * s}, wv[3] = {(1 - t) * (1 - t), 2 * t * (1 - t), t * t};
    p[0] = p[1] = p[2] = 0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++)
                p[k] += wv[a] * wu[c] * (double)(float)cp[3 * ((2 * jy + a) * pw + 2 * jx + c) + k];
}

static double dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Distance from p to triangle (a, b, c), by projecting onto its plane and
 * otherwise taking the nearest edge (independent of the importer's). */
static double tri_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
    const double *v[3] = {a, b, c};
    double e1[3], e2[3], n[3], ap[3];
    for (int k = 0; k < 3; k++)
        e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double nn = dot(n, n);
    if (nn > 0) {
        double h = dot(ap, n) / nn, q[3];
        for (int k = 0; k < 3; k++)
            q[k] = p[k] - h * n[k];
        int inside = 1;
        for (int i = 0; i < 3 && inside; i++) {
            const double *x = v[i], *y = v[(i + 1) % 3];
            double ex[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]}, xq[3] = {q[0] - x[0], q[1] - x[1], q[2] - x[2]};
            double cr[3] = {ex[1] * xq[2] - ex[2] * xq[1], ex[2] * xq[0] - ex[0] * xq[2], ex[0] * xq[1] - ex[1] * xq[0]};
            inside = dot(cr, n) >= 0;
        }
        if (inside)
            return fabs(h) * sqrt(nn);
    }
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        const double *x = v[i], *y = v[(i + 1) % 3];
        double ex[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]}, xp[3] = {p[0] - x[0], p[1] - x[1], p[2] - x[2]};
        double ee = dot(ex, ex), t = ee > 0 ? dot(xp, ex) / ee : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double d[3] = {xp[0] - t * ex[0], xp[1] - t * ex[1], xp[2] - t * ex[2]};
        best = fmin(best, sqrt(dot(d, d)));
    }
    return best;
}

/* The most any of n x n points of the exact surface is from the nearest
 * triangle of lv. */
static double patch_worst(const sweep_level *lv, const double *cp, int pw, int ph, int n)
{
    double worst = 0;
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            double p[3], best = INFINITY;
            bezier_point(cp, pw, ph, (double)i / n, (double)j / n, p);
            for (uint32_t t = 0; t < lv->triangle_count; t += 2) {
                const uint32_t *x = &lv->indices[3 * t];
                double a[3] = {lv->vertices[x[0]].x, lv->vertices[x[0]].y, lv->vertices[x[0]].z};
                double b[3] = {lv->vertices[x[1]].x, lv->vertices[x[1]].y, lv->vertices[x[1]].z};
                double c[3] = {lv->vertices[x[2]].x, lv->vertices[x[2]].y, lv->vertices[x[2]].z};
                best = fmin(best, tri_distance(p, a, b, c));
            }
            worst = fmax(worst, best);
        }
    return worst;
}

/*
 * Each triangle is followed by its reverse; the first windings, taken by
 * themselves, form one sheet without cracks: every edge is met at most
 * once each way, an edge met one way only is on the border, and the border
 * edges make one closed loop, one in and one out at each of its vertices.
 * A crack (two sides of a seam cut differently) would leave border edges
 * inside the patch, making a second loop or a vertex with more. Returns
 * the number of border edges.
 */
static uint32_t assert_one_sheet(const sweep_level *lv)
{
    uint32_t n = lv->triangle_count;
    assert_int_equal(n % 2, 0);
    uint32_t (*e)[2] = calloc(3 * n / 2 + 1, sizeof *e);
    uint32_t ne = 0;
    for (uint32_t t = 0; t < n; t += 2) {
        const uint32_t *x = &lv->indices[3 * t], *y = &lv->indices[3 * t + 3];
        assert_true(y[0] == x[0] && y[1] == x[2] && y[2] == x[1]);
        for (int k = 0; k < 3; k++)
            e[ne][0] = x[k], e[ne][1] = x[(k + 1) % 3], ne++;
    }
    uint32_t border = 0, start = UINT32_MAX;
    uint32_t *next = malloc(lv->vertex_count * sizeof *next), *in = calloc(lv->vertex_count, sizeof *in);
    for (uint32_t v = 0; v < lv->vertex_count; v++)
        next[v] = UINT32_MAX;
    for (uint32_t i = 0; i < ne; i++) {
        uint32_t same = 0, rev = 0;
        for (uint32_t j = 0; j < ne; j++) {
            same += e[j][0] == e[i][0] && e[j][1] == e[i][1];
            rev += e[j][0] == e[i][1] && e[j][1] == e[i][0];
        }
        assert_int_equal(same, 1);
        assert_true(rev <= 1);
        if (!rev) {
            assert_int_equal(next[e[i][0]], UINT32_MAX); /* one out */
            next[e[i][0]] = e[i][1];
            in[e[i][1]]++;
            border++;
            start = e[i][0];
        }
    }
    assert_true(border >= 3);
    uint32_t len = 0, v = start;
    do {
        assert_int_equal(in[v], 1);
        v = next[v];
        assert_true(v != UINT32_MAX);
        len++;
    } while (v != start && len <= border);
    assert_int_equal(len, border); /* one loop holds every border edge */
    free(e);
    free(next);
    free(in);
    return border;
}

static const double dome[27] = {-480, -480, 0, -448, -480, 32, -416, -480, 0, -480, -448, 32, -448, -448, 32,
                                -416, -448, 32, -480, -416, 0, -448, -416, 32, -416, -416, 0};

/* A flat block with evenly spread control points is one quad; a dome is within the tolerance everywhere and
 * cut finer as it shrinks; tolerance 0 is the fixed 4 x 4 grid. */
static void tessellates_patches_within_tolerance(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_bsp_stats st;
    const double flat[27] = {0, 0, 8, 10, 0, 8, 64, 0, 8, 0, 50, 8, 10, 50, 8, 64, 50, 8, 0, 64, 8, 10, 64, 8, 64, 64, 8};
    for (int even = 0; even < 2; even++) {
        double cp[27];
        memcpy(cp, flat, sizeof cp);
        if (even) /* evenly spaced control points */
            for (int i = 0; i < 9; i++)
                cp[3 * i] = 32.0 * (i % 3), cp[3 * i + 1] = 32.0 * (i / 3);
        import_patch(cp, 3, 3, 0.0, &lv, &st);
        print_message("flat, %s: %u triangles\n", even ? "even" : "uneven", lv.triangle_count);
        if (even) /* one quad; unevenly, points stray within the plane */
            assert_int_equal(lv.triangle_count, 2 * 2);
        assert_one_sheet(&lv);
        assert_true(patch_worst(&lv, cp, 3, 3, 32) <= SWEEP_BSP_PATCH_TOLERANCE + 1e-9);
        sweep_level_free(&lv);
    }

    /* The dome rises 24 above its corners: an error of 24 would do with
     * one quad, which the tightest tolerances cut finer and finer. */
    const double tols[] = {8, 4, 2, 1, 0.5, 0.25};
    uint32_t last = 0;
    for (size_t i = 0; i < sizeof tols / sizeof *tols; i++) {
        import_patch(dome, 3, 3, tols[i], &lv, &st);
        double worst = patch_worst(&lv, dome, 3, 3, 48);
        print_message("dome at tolerance %g: %u triangles, worst %.4f\n", tols[i], lv.triangle_count, worst);
        assert_true(worst <= tols[i] + 1e-9);
        assert_true(lv.triangle_count > last);
        assert_true(lv.triangle_count >= 8); /* never one quad: 24 > 8 */
        assert_one_sheet(&lv);
        last = lv.triangle_count;
        sweep_level_free(&lv);
    }

    /* Tolerance 0: the fixed tessellation, 4 x 4 quads split along the
     * same diagonal, every vertex the surface at multiples of 1/4 (exact in
     * binary for this dome, so any order of sums gives the same bits). */
    import_patch(dome, 3, 3, SWEEP_BSP_PATCH_FIXED, &lv, &st);
    assert_int_equal(lv.triangle_count, 4 * 4 * 2 * 2);
    assert_int_equal(assert_one_sheet(&lv), 16);
    assert_int_equal(lv.vertex_count, 25);
    for (uint32_t q = 0; q < 16; q++) { /* quad (gx, gy) into (00, 10, 11) and (00, 11, 01) */
        uint32_t g00 = q / 4 * 5 + q % 4, want[2][3] = {{g00, g00 + 1, g00 + 6}, {g00, g00 + 6, g00 + 5}};
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++) {
                double p[3];
                bezier_point(dome, 3, 3, (want[t][k] % 5) / 4.0, (want[t][k] / 5) / 4.0, p);
                sweep_vec3 v = lv.vertices[lv.indices[3 * (4 * q + 2 * t) + k]];
                assert_true(v.x == p[0] && v.y == p[1] && v.z == p[2]);
            }
    }
    sweep_level_free(&lv);
}

/* A patch of 2 x 2 blocks, flat at one corner and curved sharply at the
 * opposite one (and gently between): within the tolerance everywhere, no
 * crack at its seams, and the flat block cut only as its column and row
 * are (fewer triangles than cutting every block like the curved one). */
static void patch_blocks_share_their_seams(void **state)
{
    (void)state;
    double cp[75];
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 5; i++) {
            double x = 64.0 * i, y = 64.0 * j, z = 0;
            if (i >= 2 && j >= 2) /* the far block: a steep bump */
                z = (i == 3 ? 80 : 0) + (j == 3 ? 80 : 0);
            else if (i == 3 || j == 3) /* its neighbours: a gentle sag */
                z = -8;
            cp[3 * (5 * j + i)] = x, cp[3 * (5 * j + i) + 1] = y, cp[3 * (5 * j + i) + 2] = z;
        }
    sweep_level lv;
    sweep_bsp_stats st;
    import_patch(cp, 5, 5, 2.0, &lv, &st);
    double worst = patch_worst(&lv, cp, 5, 5, 64);
    print_message("2 x 2 blocks at tolerance 2: %u triangles, worst %.4f\n", lv.triangle_count, worst);
    assert_true(worst <= 2.0 + 1e-9);
    assert_one_sheet(&lv);
    uint32_t adaptive = lv.triangle_count;
    sweep_level_free(&lv);
    import_patch(cp, 5, 5, SWEEP_BSP_PATCH_FIXED, &lv, &st);
    assert_int_equal(lv.triangle_count, 2 * 2 * 4 * 4 * 2 * 2);
    assert_one_sheet(&lv);
    sweep_level_free(&lv);
    assert_true(adaptive > 0);

    /* A patch of 3 x 1 blocks, only the middle one curved across: the
     * columns are cut alone, the flat side blocks stay one quad each. */
    double row[63];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 7; i++)
            row[3 * (7 * j + i)] = 32.0 * i, row[3 * (7 * j + i) + 1] = 32.0 * j,
                          row[3 * (7 * j + i) + 2] = i == 3 ? 64 : 0;
    import_patch(row, 7, 3, 2.0, &lv, &st);
    assert_true(patch_worst(&lv, row, 7, 3, 96) <= 2.0 + 1e-9);
    assert_one_sheet(&lv);
    /* a cylinder's quads span the whole row: 2 triangles per winding per
     * column step, v never cut */
    uint32_t steps = lv.triangle_count / 4;
    assert_int_equal(lv.triangle_count % 4, 0);
    assert_int_equal(lv.vertex_count, 2 * (steps + 1));
    assert_true(steps >= 4 && steps < 2 + 2 * SWEEP_BSP_PATCH_MAX_STEPS);
    sweep_level_free(&lv);
}

/* Any number of face records may name one control grid: the patches of a
 * level make at most 524,288 triangles, so a small file cannot ask for
 * millions. A grid of 65 x 65 control points on the fixed grid (4 x 4
 * quads a block) is 32,768 triangles: 20 faces of it pass the limit at
 * the 17th. */
static void refuses_patches_past_their_budget(void **state)
{
    (void)state;
    bspw w;
    memset(&w, 0, sizeof w);
    int32_t s = shader(&w, "textures/test/curve", 0, 0x1);
    for (int j = 0; j < 65; j++)
        for (int i = 0; i < 65; i++)
            vertex(&w, 8.0 * i - 256.0, 8.0 * j - 256.0, (i + j) % 2 ? 4.0 : 0.0);
    for (int k = 0; k < 20; k++)
        face(&w, s, 2, 0, 65 * 65, 65, 65);
    model(&w, -1000, -1000, -1000, 1000, 1000, 1000, 0, 20, 0, 0);
    static const char ents[] = "{ \"classname\" \"worldspawn\" }\n";
    put(&w.l[L_ENT], ents, sizeof ents);
    size_t size;
    uint8_t *data = bspw_finish(&w, &size);
    sweep_bsp_options o = {NULL, NULL, NULL, 0, SWEEP_BSP_PATCH_FIXED, 0};
    sweep_level lv;
    char err[1024];
    assert_int_equal(sweep_import_bsp_memory(data, size, "many.bsp", &o, &lv, NULL, err, sizeof err), SWEEP_E_GEOMETRY);
    if (!strstr(err, "record 16: the patches so far make 557056 triangles, more than a level's patches may (524288)"))
        fail_msg("error '%s'", err);
    assert_int_equal(lv.triangle_count, 0);
    free(data);
}

/* Shaders of one name and different flags are materials of their own,
 * named name, name~2, name~3, ... in the order first used, skipping a
 * name another shader has (the first free one each time, found without
 * trying every one before it again: 4,000 such shaders took 33 s). */
static void same_named_shaders_get_the_next_free_names(void **state)
{
    (void)state;
    bspw w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < 9; i++)
        vertex(&w, dome[3 * i], dome[3 * i + 1], dome[3 * i + 2]);
    enum { N = 300 };
    for (int k = 0; k < N; k++) {
        int32_t s = k == 1 ? shader(&w, "textures/test/s~3", 0, 0x1)
                           : shader(&w, "textures/test/s", (uint32_t)(k == 0 ? 0 : k - 1), 0x1);
        face(&w, s, 2, 0, 9, 3, 3);
    }
    model(&w, -1000, -1000, -1000, 1000, 1000, 1000, 0, N, 0, 0);
    static const char ents[] = "{ \"classname\" \"worldspawn\" }\n";
    put(&w.l[L_ENT], ents, sizeof ents);
    size_t size;
    uint8_t *data = bspw_finish(&w, &size);
    sweep_level lv;
    char err[1024];
    if (sweep_import_bsp_memory(data, size, "names.bsp", NULL, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(lv.material_count, N);
    /* s, s~3 (its own), then s~2, s~4 (s~3 is taken), s~5, ..., s~300. */
    assert_string_equal(lv.material_table[0].name, "textures/test/s");
    assert_string_equal(lv.material_table[1].name, "textures/test/s~3");
    assert_string_equal(lv.material_table[2].name, "textures/test/s~2");
    for (uint32_t k = 3; k < N; k++) {
        char want[64];
        snprintf(want, sizeof want, "textures/test/s~%u", k + 1);
        assert_string_equal(lv.material_table[k].name, want);
    }
    sweep_level_free(&lv);
    free(data);
}

/* A tolerance that is no positive number (other than the fixed one's) is
 * refused by name. */
static void refuses_bad_patch_tolerances(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = patch_level(dome, 3, 3, &size);
    const double bad[] = {-2.0, NAN, INFINITY, 1e7};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sweep_bsp_options o = {NULL, NULL, NULL, 0, bad[i], 0};
        sweep_level lv;
        char err[1024];
        assert_int_equal(sweep_import_bsp_memory(data, size, "p.bsp", &o, &lv, NULL, err, sizeof err), SWEEP_E_ARG);
        assert_non_null(strstr(err, "patch tolerance"));
        assert_int_equal(lv.triangle_count, 0);
    }
    free(data);
}

/* Movers that cannot move stay static, with a warning; bare words, and
 * entity text with no NUL at its end, are read as Quake 3 reads them. */
static void warns_about_movers_that_cannot_move(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = make_level("{ classname worldspawn }\n"
                               "{ \"classname\" \"func_door\" \"model\" \"*1\" \"lip\" \"500\" }\n"
                               "{ \"classname\" \"func_train\" \"model\" \"*5\" \"target\" \"nowhere\" }\n"
                               "{ \"classname\" \"func_door\" \"model\" \"*6\" }\n"
                               "{ \"classname\" \"func_door\" }\n",
                               0, &size);
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    warnings = 0;
    sweep_bsp_options o = {NULL, count_warning, NULL, 0, 0.0, 0};
    if (sweep_import_bsp_memory(data, size, "w.bsp", &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    /* the door that would not move and the train without a path became
     * static boxes; the trigger-shaded door has nothing solid; the last one
     * has no model */
    assert_int_equal(lv.mover_count, 0);
    assert_int_equal(warnings, 4);
    assert_int_equal(st.warnings, 4);
    piece p[16];
    assert_int_equal(pieces_of(lv.vertices, lv.vertex_count, lv.indices, lv.triangle_count, p, 16), 6);
    sweep_level_free(&lv);
    free(data);
}

/* Every prefix of the file, and thousands of copies with a few bytes
 * changed: an error or a level, never a crash (run it under
 * SANITIZER=address to see every read stays in bounds). */
static void survives_truncation_and_corruption(void **state)
{
    (void)state;
    size_t size;
    uint8_t *good = make_level(NULL, 0, &size);
    char err[1024];
    sweep_level lv;
    for (size_t n = 0; n < size; n++) {
        uint8_t *b = malloc(n ? n : 1);
        memcpy(b, good, n);
        sweep_status r = sweep_import_bsp_memory(b, n, "cut.bsp", NULL, &lv, NULL, err, sizeof err);
        if (r == SWEEP_OK)
            fail_msg("a file cut to %zu of %zu bytes imported", n, size);
        assert_true(strstr(err, "truncated") || strstr(err, "past the end"));
        free(b);
    }
    uint64_t seed = 12345;
    uint32_t refused = 0, imported = 0;
    for (int round = 0; round < 3000; round++) {
        uint8_t *b = malloc(size);
        memcpy(b, good, size);
        int flips = 1 + round % 4;
        for (int k = 0; k < flips; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % size;
            /* mostly the records after the entity text, where numbers live */
            if (round % 3 && at < 144 + 2048)
                at = 144 + (size_t)(seed >> 20) % 144;
            b[at] = (uint8_t)(seed >> 13);
        }
        sweep_status r = sweep_import_bsp_memory(b, size, "x.bsp", NULL, &lv, NULL, err, sizeof err);
        if (r == SWEEP_OK) {
            imported++;
            sweep_level_free(&lv);
        } else {
            assert_int_equal(r, SWEEP_E_GEOMETRY);
            assert_true(strlen(err) > 7);
            refused++;
        }
        free(b);
    }
    print_message("corrupted copies: %u refused, %u imported\n", refused, imported);
    assert_true(refused > 0 && imported > 0);
    free(good);
}

/* ------------------------------------------------------------------------
 * The corpus
 */

/* Runs cmd, its output into out; returns its exit status. */
static int run(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static double field(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

static void corpus_levels_import_load_and_walk(void **state)
{
    fixture *f = *state;
    char cmd[9000], out[8192], pk3[4096], err[1024];
    if (!fixture_corpus(f, pk3, sizeof pk3))
        skip();
    char **names;
    uint32_t count;
    if (!sweep_bsp_list(pk3, &names, &count, err, sizeof err))
        fail_msg("%s", err);
    assert_true(count >= 13);
    char walk[4200];
    snprintf(walk, sizeof walk, "%s", fixture_build("bin/sweep-walk"));
    if (access(walk, X_OK) != 0)
        fail_msg("%s is missing: build it with make", walk);
    for (uint32_t i = 0; i < count; i++) {
        sweep_level lv;
        sweep_bsp_stats st;
        sweep_bsp_options o = {names[i], NULL, NULL, 0, 0.0, 0};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (sweep_import_bsp(pk3, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
            fail_msg("%s", err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        assert_true(lv.spawn_count > 0);
        /* Merging coplanar faces moves no surface: each material covers
         * the area it covered in pieces (up to the welding of corners a
         * hundredth of a unit apart), with fewer triangles. */
        sweep_level pieces;
        sweep_bsp_stats pst;
        sweep_bsp_options po = o;
        po.no_merge_faces = 1;
        if (sweep_import_bsp(pk3, &po, &pieces, &pst, err, sizeof err) != SWEEP_OK)
            fail_msg("%s", err);
        assert_int_equal(pst.merge_dropped, 0);
        assert_int_equal(lv.triangle_count + st.mover_triangles + st.merge_dropped,
                         pieces.triangle_count + pst.mover_triangles);
        assert_true(lv.triangle_count < pieces.triangle_count);
        assert_int_equal(lv.material_count, pieces.material_count);
        for (uint32_t m = 0; m < lv.material_count; m++) {
            double a[2] = {0, 0}, all = 0;
            for (int k = 0; k < 2; k++) {
                const sweep_level *x = k ? &pieces : &lv;
                uint32_t id = 0;
                for (uint32_t j = 0; j < x->material_count; j++)
                    if (strcmp(x->material_table[j].name, lv.material_table[m].name) == 0)
                        id = x->material_table[j].id;
                assert_int_not_equal(id, 0);
                for (uint32_t t = 0; t < x->triangle_count; t++) {
                    const uint32_t *ix = &x->indices[3 * t];
                    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(x->vertices[ix[1]], x->vertices[ix[0]]),
                                                  sweep_v3_sub(x->vertices[ix[2]], x->vertices[ix[0]]));
                    double ar = 0.5 * sqrt(sweep_v3_dot(n, n));
                    a[k] += x->materials[t] == id ? ar : 0;
                    all += k ? 0 : ar;
                }
            }
            if (!(fabs(a[0] - a[1]) <= 1e-5 * all))
                fail_msg("%s: material %s covers %.6f merged, %.6f in pieces", names[i], lv.material_table[m].name,
                         a[0], a[1]);
        }
        sweep_level_free(&pieces);
        char db[4200];
        snprintf(db, sizeof db, "%s", fixture_path(f, "corpus.db"));
        sweep_map_write_options wo = {"in", st.walkable_slope_deg, NULL, NULL, NULL};
        sweep_map_write_result res;
        if (sweep_map_write(db, &lv, &wo, &res, err, sizeof err) != SWEEP_OK)
            fail_msg("%s: %s", names[i], err);
        sweep_level back;
        if (sweep_map_load(db, &back, NULL, err, sizeof err) != SWEEP_OK)
            fail_msg("%s: %s", names[i], err);
        assert_int_equal(back.triangle_count, lv.triangle_count);
        assert_int_equal(back.spawn_count, lv.spawn_count);
        assert_int_equal(back.mover_count, lv.mover_count);
        sweep_level_free(&back);

        snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 16 --steps 300 --speed 320 --bench-only 2>&1", walk, db);
        int wrc = run(cmd, out, sizeof out);
        double errors = field(out, " errors="), limits = field(out, "iteration_limits=");
        print_message("%-20s tris=%u spawns=%u movers=%u (%u tris) import_ms=%.1f | walk moves_per_s=%.0f "
                      "p50_ns=%.0f p99_ns=%.0f iteration_limits=%.0f errors=%.0f\n",
                      names[i], lv.triangle_count, lv.spawn_count, lv.mover_count, st.mover_triangles, ms,
                      field(out, "moves_per_s="), field(out, "ns_per_move_p50="), field(out, "ns_per_move_p99="),
                      limits, errors);
        if (wrc != 0 || errors != 0)
            fail_msg("%s: sweep-walk failed (rc %d):\n%s", names[i], wrc, out);
        /* No move falls back, and no walker is left stuck or inside geometry
         * by the core (trapped ones would be the level's doing). */
        if (limits != 0 || field(out, " stuck=") != 0 || field(out, " inside=") != 0)
            fail_msg("%s: the core fell back or left walkers stuck:\n%s", names[i], out);
        sweep_level_free(&lv);
        remove(db);
    }
    sweep_bsp_list_free(names, count);
}

/* sweep-import on a .bsp, on a .pk3 (--list, --bsp), with --rules on top
 * of Quake 3's, and refusing what it cannot import. */
static void sweep_import_takes_bsp_and_pk3(void **state)
{
    fixture *f = *state;
    char bin[4200], bsp[4200], pk3[4200], db[4200], rules[4200], cmd[20000], out[8192], err[1024];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-import"));
    if (access(bin, X_OK) != 0)
        fail_msg("%s is missing: build it with make", bin);
    size_t size, other_size;
    uint8_t *data = make_level(NULL, 0, &size);
    uint8_t *other = make_level("{ \"classname\" \"worldspawn\" \"gravity\" \"400\" }", 0, &other_size);
    snprintf(bsp, sizeof bsp, "%s", fixture_path(f, "test.bsp"));
    snprintf(pk3, sizeof pk3, "%s", fixture_path(f, "pack.pk3"));
    snprintf(db, sizeof db, "%s", fixture_path(f, "out.db"));
    snprintf(rules, sizeof rules, "%s", fixture_path(f, "rules.txt"));
    assert_true(fixture_write(bsp, data, size));
    const char *names[2] = {"maps/test.bsp", "maps/low.bsp"};
    uint8_t *datas[2] = {data, other};
    size_t sizes[2] = {size, other_size};
    write_pk3(pk3, 2, names, datas, sizes);

    /* A .bsp: Quake 3's units and rules. */
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' 2>&1", bin, bsp, db);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    char want[64];
    snprintf(want, sizeof want, "triangles (%u from 1 patches", DOME_TRIANGLES);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, " fewer for hidden faces, "));
    assert_non_null(strstr(out, " fewer for merged faces)"));
    assert_non_null(strstr(out, "6 movers"));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --keep-hidden-faces 2>&1", bin, bsp, db);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_non_null(strstr(out, "0 fewer for hidden faces, kept, 0 fewer for merged faces, off)"));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --no-merge-faces 2>&1", bin, bsp, db);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_non_null(strstr(out, ", 0 fewer for merged faces, off)"));
    /* --patch-tolerance 0: the fixed 4 x 4 quads; no negative tolerance */
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --patch-tolerance 0 2>&1", bin, bsp, db);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_non_null(strstr(out, "triangles (64 from 1 patches"));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --patch-tolerance -1 2>&1", bin, bsp, db);
    assert_int_not_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "--patch-tolerance wants a number"));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' 2>&1", bin, bsp, db);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    sweep_level lv;
    sweep_map_load_info info;
    if (sweep_map_load(db, &lv, &info, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_string_equal(info.units, "in");
    assert_true(fabs(info.walkable_slope_deg - acos(0.7) * 180 / M_PI) < 1e-12);
    assert_string_equal(lv.name, "test");
    assert_v3(lv.config.gravity, 0, 0, -800);
    assert_true(lv.config.step_height == 18 && lv.rules.walk_speed == 320);
    assert_int_equal(lv.mover_count, 6);
    assert_int_equal(lv.spawn_count, 2);
    sweep_level_free(&lv);

    /* A .pk3: its levels listed, one taken by name, named after it; the
     * worldspawn's gravity, then the --rules file's values on top. */
    snprintf(cmd, sizeof cmd, "'%s' '%s' --list 2>&1", bin, pk3);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_string_equal(out, "maps/test.bsp\nmaps/low.bsp\n");
    snprintf(cmd, sizeof cmd, "'%s' '%s' --bsp maps/low.bsp -o '%s' --quiet 2>&1", bin, pk3, db);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_string_equal(out, "");
    assert_int_equal(sweep_map_load(db, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_string_equal(lv.name, "low");
    assert_v3(lv.config.gravity, 0, 0, -400);
    sweep_level_free(&lv);
    assert_true(fixture_write(rules, "gravity = 0,0,-1000\nwalk_speed = 250\n", 36));
    snprintf(cmd, sizeof cmd, "'%s' '%s' --bsp maps/test.bsp -o '%s' --rules '%s' --quiet 2>&1", bin, pk3, db,
             rules);
    if (run(cmd, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_int_equal(sweep_map_load(db, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_v3(lv.config.gravity, 0, 0, -1000);
    assert_true(lv.rules.walk_speed == 250 && lv.rules.jump_speed == 270 && lv.config.step_height == 18);
    assert_v3(lv.default_radii, 15, 15, 28);
    sweep_level_free(&lv);

    /* Refused, with nothing written. */
    remove(db);
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' 2>&1", bin, pk3, db);
    assert_int_equal(run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "more than one"));
    /* A --rules speed limit below a pad's launch (0, 500, 800): named with
     * both speeds before the map is written (the loader found it after). */
    size_t pads_size;
    uint8_t *pads = make_level(volume_entities, 0, &pads_size);
    assert_true(fixture_write(bsp, pads, pads_size));
    free(pads);
    assert_true(fixture_write(rules, "speed_limit = 500\n", 18));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --rules '%s' 2>&1", bin, bsp, db, rules);
    assert_int_equal(run(cmd, out, sizeof out), 1);
    if (!strstr(out, "volume 1 'trigger_push_6' (push): its launch speed 943.398 is above the map's speed limit 500"))
        fail_msg("%s", out);
    assert_int_equal(access(db, F_OK), -1);
    data[8 + 8 * L_PLANES] = 0xff, data[11 + 8 * L_PLANES] = 0x7f;
    assert_true(fixture_write(bsp, data, size));
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' 2>&1", bin, bsp, db);
    assert_int_equal(run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "lump 2 (planes)"));
    assert_int_equal(access(db, F_OK), -1);
    free(data);
    free(other);
}

/* ------------------------------------------------------------------------
 * Hidden faces: what of a brush's faces lies inside another brush
 */

/* The world's BSP tree of a level of boxes: none, or one node on the
 * plane z = 0 whose leaves (front, back) have these clusters, or a node
 * whose back child is out of range. */
enum { NO_TREE, TREE_OPEN_ABOVE, TREE_ALL_OPEN, TREE_NONE_OPEN, TREE_BROKEN };

static void tree(bspw *w, int kind)
{
    if (kind == NO_TREE)
        return;
    static const int32_t clusters[5][2] = {{0, 0}, {0, -1}, {0, 1}, {-1, -1}, {0, -1}};
    put_i32(&w->l[3], plane(w, 0, 0, 1, 0));
    put_i32(&w->l[3], -1);
    put_i32(&w->l[3], kind == TREE_BROKEN ? -3 : -2);
    for (int i = 0; i < 6; i++)
        put_i32(&w->l[3], i < 3 ? -1024 : 1024);
    for (int l = 0; l < 2; l++) {
        int32_t v[12] = {clusters[kind][l], 0, -1024, -1024, -1024, 1024, 1024, 1024, 0, 0, 0, 0};
        for (int i = 0; i < 12; i++)
            put_i32(&w->l[4], v[i]);
    }
}

/* A level whose world is the given boxes (x0 y0 z0 x1 y1 z1), all solid,
 * with a tree of the given kind. */
static uint8_t *boxes_level_tree(const double (*bx)[6], int n, const char *ents, int tree_kind, size_t *size)
{
    bspw w;
    memset(&w, 0, sizeof w);
    int32_t sh = shader(&w, "textures/test/solid", 0, 0x1);
    tree(&w, tree_kind);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        box(&w, bx[i][0], bx[i][1], bx[i][2], bx[i][3], bx[i][4], bx[i][5], sh);
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], bx[i][k]), hi[k] = fmax(hi[k], bx[i][3 + k]);
    }
    model(&w, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], 0, 0, 0, n);
    if (!ents)
        ents = "{ \"classname\" \"worldspawn\" }\n";
    put(&w.l[L_ENT], ents, strlen(ents) + 1);
    return bspw_finish(&w, size);
}

/* How a level of boxes is imported: hidden faces cut and the pieces
 * merged (the default), every face kept, or cut without merging. */
enum { MERGED = 0, KEEP = 1, NO_MERGE = 2 };

static void import_boxes_tree(const double (*bx)[6], int n, int mode, int tree_kind, sweep_level *lv,
                              sweep_bsp_stats *st)
{
    size_t size;
    char err[1024];
    uint8_t *data = boxes_level_tree(bx, n, NULL, tree_kind, &size);
    sweep_bsp_options o = {NULL, NULL, NULL, mode == KEEP, 0.0, mode == NO_MERGE};
    if (sweep_import_bsp_memory(data, size, "boxes.bsp", &o, lv, st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
}

static void import_boxes(const double (*bx)[6], int n, int mode, sweep_level *lv, sweep_bsp_stats *st)
{
    import_boxes_tree(bx, n, mode, NO_TREE, lv, st);
}

/* No triangle lies inside a box, nor on its boundary facing into it (back
 * to back with the box's face): its centroid, stepped a little along its
 * normal, is outside every box. With the area of the union's boundary,
 * this says the triangles cover that boundary once, and nothing else. */
static void assert_none_hidden(const sweep_level *lv, const double (*bx)[6], int n)
{
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        const uint32_t *x = &lv->indices[3 * t];
        sweep_vec3 a = lv->vertices[x[0]], b = lv->vertices[x[1]], c = lv->vertices[x[2]];
        sweep_vec3 nrm = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
        double len = sqrt(sweep_v3_dot(nrm, nrm));
        double p[3] = {(a.x + b.x + c.x) / 3 + 0.01 * nrm.x / len, (a.y + b.y + c.y) / 3 + 0.01 * nrm.y / len,
                       (a.z + b.z + c.z) / 3 + 0.01 * nrm.z / len};
        for (int i = 0; i < n; i++) {
            int in = 1;
            for (int k = 0; k < 3; k++)
                in &= p[k] > bx[i][k] && p[k] < bx[i][3 + k];
            if (in)
                fail_msg("triangle %u (centroid %g %g %g) faces into box %d", t, p[0], p[1], p[2], i);
        }
    }
}

static double box_area(double dx, double dy, double dz)
{
    return 2 * (dx * dy + dy * dz + dz * dx);
}

/* The same file makes the same map whatever the CPU offers: the angles of
 * doors, bobbing and rotating movers go through the core's own sin and
 * cos, not libm's, whose last bit glibc lets follow the CPU (with and
 * without FMA here; the import once wrote two content hashes). On a CPU
 * without FMA both runs take the same path and this proves nothing. */
static void imports_alike_whatever_the_cpu_offers(void **state)
{
    fixture *f = *state;
    static const char ents[] =
        "{\n\"classname\" \"worldspawn\"\n\"gravity\" \"800\"\n}\n"
        "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
        "{ \"classname\" \"func_door\" \"model\" \"*1\" \"angles\" \"33 71 0\" \"speed\" \"100\" }\n"
        "{ \"classname\" \"func_bobbing\" \"model\" \"*3\" \"origin\" \"0 300 64\" \"height\" \"16\" "
        "\"speed\" \"2\" \"phase\" \"0.05\" }\n"
        "{ \"classname\" \"func_rotating\" \"model\" \"*4\" \"origin\" \"-300 0 64\" \"speed\" \"-37\" }\n";
    char bin[4200], bsp[4200], db[4200], cmd[20000], out[2][8192];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-import"));
    snprintf(bsp, sizeof bsp, "%s", fixture_path(f, "angles.bsp"));
    snprintf(db, sizeof db, "%s", fixture_path(f, "angles.db"));
    size_t size;
    uint8_t *data = make_level(ents, 0, &size);
    assert_true(fixture_write(bsp, data, size));
    free(data);
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "%s'%s' '%s' -o '%s' 2>&1",
                 k ? "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4 " : "", bin, bsp, db);
        if (run(cmd, out[k], sizeof out[k]) != 0)
            fail_msg("%s", out[k]);
        assert_non_null(strstr(out[k], "3 movers"));
    }
    const char *a = strstr(out[0], "content hash "), *b = strstr(out[1], "content hash ");
    assert_true(a && b);
    if (strncmp(a, b, 13 + 64) != 0)
        fail_msg("one file, two maps: %.77s with every CPU feature, %.77s without AVX2 and FMA", a, b);
}

static void drops_the_wall_between_two_boxes(void **state)
{
    (void)state;
    const double bx[2][6] = {{0, 0, 0, 64, 64, 64}, {64, 0, 0, 128, 64, 64}};
    sweep_level lv;
    sweep_bsp_stats st;
    import_boxes(bx, 2, KEEP, &lv, &st);
    assert_int_equal(lv.triangle_count, 24);
    assert_int_equal(st.hidden_dropped, 0);
    assert_true(fabs(area_where(&lv, 0, 64, 1) - 64 * 64) < 1e-9);
    sweep_level_free(&lv);

    for (int mode = MERGED; mode <= NO_MERGE; mode += NO_MERGE) {
        import_boxes(bx, 2, mode, &lv, &st);
        /* the shared wall is gone from both, the outer walls stay whole;
         * merged, the two halves of each of the four long sides are one
         * quad: the shell of one box of twice the length */
        assert_int_equal(lv.triangle_count, mode == MERGED ? 12 : 20);
        assert_int_equal(st.hidden_dropped, 4);
        assert_int_equal(st.merge_dropped, mode == MERGED ? 8 : 0);
        assert_true(area_where(&lv, 0, 64, 1) == 0 && area_where(&lv, 0, 64, -1) == 0);
        assert_true(fabs(area_where(&lv, 0, 0, -1) - 64 * 64) < 1e-9);
        assert_true(fabs(area_where(&lv, 0, 128, 1) - 64 * 64) < 1e-9);
        assert_true(fabs(area_where(&lv, 2, 64, 1) - 128 * 64) < 1e-9);
        assert_true(fabs(area_all(&lv) - box_area(128, 64, 64)) < 1e-6);
        assert_none_hidden(&lv, bx, 2);
        sweep_level_free(&lv);
    }
}

static void drops_what_lies_inside_another_brush(void **state)
{
    (void)state;
    /* a floor, and a box sunk halfway into it */
    const double bx[2][6] = {{-256, -256, -16, 256, 256, 0}, {0, 0, -8, 32, 32, 24}};
    sweep_level lv;
    sweep_bsp_stats st;
    import_boxes(bx, 2, NO_MERGE, &lv, &st);
    assert_true(st.hidden_dropped > 0);
    /* the box's bottom and the lower third of its sides are gone; the
     * floor's top stays whole (the pieces around the hole would take more
     * triangles than its two) */
    for (uint32_t i = 0; i < lv.vertex_count; i++)
        assert_false(lv.vertices[i].z == -8);
    assert_true(area_where(&lv, 2, -8, -1) == 0);
    assert_true(fabs(area_where(&lv, 2, 0, 1) - 512.0 * 512) < 1e-6);
    assert_true(fabs(area_where(&lv, 0, 0, -1) - 32.0 * 24) < 1e-9);
    assert_true(fabs(area_all(&lv) - (box_area(512, 512, 16) + 4 * 32.0 * 24 + 32 * 32)) < 1e-6);
    assert_int_equal(lv.triangle_count, 12 + 10);
    sweep_level_free(&lv);

    /* a wall sunk across the floor's edge: the floor's top loses the strip
     * under it (one piece, two triangles), its side the part inside it */
    const double edge[2][6] = {{-256, -256, -16, 256, 256, 0}, {-300, -300, -8, 300, -224, 24}};
    import_boxes(edge, 2, NO_MERGE, &lv, &st);
    assert_true(fabs(area_where(&lv, 2, 0, 1) - 512.0 * (512 - 32)) < 1e-6);
    assert_true(fabs(area_where(&lv, 1, -256, -1) - 512.0 * 8) < 1e-6);
    sweep_level_free(&lv);

    /* a box wholly inside another leaves nothing */
    const double in[2][6] = {{0, 0, 0, 64, 64, 64}, {16, 16, 16, 32, 32, 32}};
    import_boxes(in, 2, NO_MERGE, &lv, &st);
    assert_int_equal(lv.triangle_count, 12);
    assert_int_equal(st.hidden_dropped, 12);
    assert_true(fabs(area_all(&lv) - box_area(64, 64, 64)) < 1e-6);
    sweep_level_free(&lv);
}

static void keeps_coplanar_floors_and_edge_contacts(void **state)
{
    (void)state;
    /* Two floors overlapping, their tops on one plane facing the same way:
     * both tops stay whole (each shows that surface). */
    const double fl[2][6] = {{0, 0, -16, 64, 64, 0}, {32, 0, -32, 96, 64, 0}};
    sweep_level lv;
    sweep_bsp_stats st;
    import_boxes(fl, 2, MERGED, &lv, &st);
    assert_true(fabs(area_where(&lv, 2, 0, 1) - 2 * 64.0 * 64) < 1e-6);
    /* the first one's bottom is inside the second where they overlap */
    assert_true(fabs(area_where(&lv, 2, -16, -1) - 32.0 * 64) < 1e-6);
    assert_none_hidden(&lv, fl, 2);
    sweep_level_free(&lv);

    /* Boxes touching along an edge only, or at a corner: nothing is lost,
     * each stays a closed shell. */
    const double ed[3][6] = {{0, 0, 0, 64, 64, 64}, {64, 64, 0, 128, 128, 64}, {128, 128, 64, 160, 160, 96}};
    import_boxes(ed, 3, MERGED, &lv, &st);
    assert_int_equal(lv.triangle_count, 36);
    assert_int_equal(st.merge_dropped, 0);
    sweep_level_free(&lv);
    /* (merged, they would share the vertices where they touch) */
    import_boxes(ed, 3, NO_MERGE, &lv, &st);
    assert_int_equal(lv.triangle_count, 36);
    assert_int_equal(st.hidden_dropped, 0);
    piece p[4];
    assert_int_equal(pieces_of(lv.vertices, lv.vertex_count, lv.indices, lv.triangle_count, p, 4), 3);
    assert_shell(&p[0], 64.0 * 64 * 64);
    assert_shell(&p[1], 64.0 * 64 * 64);
    assert_shell(&p[2], 32.0 * 32 * 32);
    sweep_level_free(&lv);
}

/* The number of triangles on the plane x[axis] = at facing along dir (as
 * area_where). */
static uint32_t count_where(const sweep_level *lv, int axis, double at, int dir)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < lv->triangle_count; t++)
        n += area_on(lv, t, axis, at, dir) > 0.0;
    return n;
}

/* Boxes whose faces are cut by one another, the pieces on one plane facing
 * the same way, with the same shader and sharing an edge, are merged into
 * larger convex polygons; not when the union would not be convex, nor
 * across shaders; --no-merge-faces (no_merge_faces) keeps the pieces. */
static void merges_coplanar_faces_across_brushes(void **state)
{
    (void)state;
    /* two floors side by side: their tops one quad (two triangles) */
    const double two[2][6] = {{0, 0, -16, 64, 64, 0}, {64, 0, -16, 128, 64, 0}};
    sweep_level lv;
    sweep_bsp_stats st;
    import_boxes(two, 2, MERGED, &lv, &st);
    assert_int_equal(count_where(&lv, 2, 0, 1), 2);
    assert_true(fabs(area_where(&lv, 2, 0, 1) - 128.0 * 64) < 1e-9);
    assert_int_equal(lv.triangle_count, 12);
    sweep_level_free(&lv);
    import_boxes(two, 2, NO_MERGE, &lv, &st);
    assert_int_equal(count_where(&lv, 2, 0, 1), 4);
    assert_int_equal(lv.triangle_count, 20);
    sweep_level_free(&lv);

    /* an L: the tops stay two polygons (their union is not convex), the
     * two sides on x = 0 become one */
    const double ell[2][6] = {{0, 0, -16, 128, 64, 0}, {0, 64, -16, 64, 128, 0}};
    double area[2];
    for (int mode = MERGED; mode <= NO_MERGE; mode += NO_MERGE) {
        import_boxes(ell, 2, mode, &lv, &st);
        assert_int_equal(count_where(&lv, 2, 0, 1), 4);
        assert_true(fabs(area_where(&lv, 2, 0, 1) - (128.0 * 64 + 64 * 64)) < 1e-9);
        assert_int_equal(count_where(&lv, 0, 0, -1), mode == MERGED ? 2 : 4);
        assert_true(fabs(area_where(&lv, 0, 0, -1) - 128.0 * 16) < 1e-9);
        assert_none_hidden(&lv, ell, 2);
        area[mode == MERGED] = area_all(&lv);
        sweep_level_free(&lv);
    }
    assert_true(fabs(area[0] - area[1]) < 1e-6);

    /* two shaders: nothing merges across them */
    bspw w;
    memset(&w, 0, sizeof w);
    int32_t sh[2] = {shader(&w, "textures/test/a", 0, 0x1), shader(&w, "textures/test/b", 0, 0x1)};
    for (int i = 0; i < 2; i++)
        box(&w, two[i][0], two[i][1], two[i][2], two[i][3], two[i][4], two[i][5], sh[i]);
    model(&w, 0, 0, -16, 128, 64, 0, 0, 0, 0, 2);
    const char *ents = "{ \"classname\" \"worldspawn\" }\n";
    put(&w.l[L_ENT], ents, strlen(ents) + 1);
    size_t size;
    uint8_t *data = bspw_finish(&w, &size);
    char err[1024];
    if (sweep_import_bsp_memory(data, size, "two.bsp", NULL, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
    assert_int_equal(lv.triangle_count, 20);
    assert_int_equal(st.merge_dropped, 0);
    assert_int_equal(count_where(&lv, 2, 0, 1), 4);
    assert_int_equal(lv.material_count, 2);
    sweep_level_free(&lv);
}

/* The faces that face only opaque leaves of the world's tree (inside
 * structural solid, or the filled outside) go, unless some point of them
 * comes within half a unit of a leaf that is not opaque; a tree that is
 * broken, or has no leaf that is not opaque, is not asked. */
static void drops_faces_towards_opaque_leaves(void **state)
{
    (void)state;
    /* a floor whose top is the plane z = 0, a pillar on it */
    const double bx[2][6] = {{-256, -256, -16, 256, 256, 0}, {0, 0, 0, 32, 32, 64}};
    sweep_level lv;
    sweep_bsp_stats st;
    import_boxes_tree(bx, 2, KEEP, TREE_OPEN_ABOVE, &lv, &st);
    assert_int_equal(lv.triangle_count, 24);
    sweep_level_free(&lv);
    /* the floor's bottom goes (the pillar's, inside the floor, too); its
     * sides reach within half a unit of z = 0 and stay */
    import_boxes_tree(bx, 2, NO_MERGE, TREE_OPEN_ABOVE, &lv, &st);
    assert_int_equal(lv.triangle_count, 20);
    assert_int_equal(st.hidden_dropped, 4);
    assert_true(area_where(&lv, 2, -16, -1) == 0);
    assert_true(fabs(area_where(&lv, 2, 0, 1) - 512.0 * 512) < 1e-6);
    assert_true(fabs(area_where(&lv, 0, -256, -1) - 512.0 * 16) < 1e-6);
    assert_true(fabs(area_where(&lv, 2, 64, 1) - 32.0 * 32) < 1e-6);
    sweep_level_free(&lv);
    const int kinds[3] = {TREE_ALL_OPEN, TREE_NONE_OPEN, TREE_BROKEN};
    for (int k = 0; k < 3; k++) {
        import_boxes_tree(bx, 2, NO_MERGE, kinds[k], &lv, &st);
        assert_int_equal(lv.triangle_count, 22);
        assert_true(fabs(area_where(&lv, 2, -16, -1) - 512.0 * 512) < 1e-6);
        sweep_level_free(&lv);
    }
}

/* Where hidden faces cannot matter (nobody reaches them), walking the level
 * with them and without them gives the same walk, bit for bit; and with
 * the pieces left merged across brushes (the floor's halves, the walls
 * side by side), too. */
static void hidden_faces_do_not_change_a_walk(void **state)
{
    fixture *f = *state;
    char walk[4200], db[3][4200], cmd[20000], out[3][8192], err[1024];
    snprintf(walk, sizeof walk, "%s", fixture_build("bin/sweep-walk"));
    if (access(walk, X_OK) != 0)
        fail_msg("%s is missing: build it with make", walk);
    /* a floor in two halves, walls on it (two side by side, one sunk into
     * the floor), a block on the wall's top, posts touching at an edge */
    const double bx[8][6] = {{-512, -512, -16, 0, 512, 0},   {0, -512, -16, 512, 512, 0},
                             {-512, -512, 0, -480, 512, 128}, {-480, -512, 0, 512, -480, 128},
                             {480, -480, -8, 512, 512, 128},  {-480, 480, 0, 480, 512, 128},
                             {-200, -200, 0, -100, -100, 64}, {-100, -100, 0, 0, 0, 64}};
    const char *ents = "{ \"classname\" \"worldspawn\" }\n"
                       "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 100 24\" }\n"
                       "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"300 -300 24\" }\n"
                       "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"-300 300 24\" }\n";
    size_t size;
    /* and a tree: open above z = 0, opaque below */
    uint8_t *data = boxes_level_tree(bx, 8, ents, TREE_OPEN_ABOVE, &size);
    uint32_t tris[3];
    for (int keep = 0; keep < 3; keep++) {
        sweep_level lv;
        sweep_bsp_stats st;
        sweep_bsp_options o = {NULL, NULL, NULL, keep == KEEP, 0.0, keep == NO_MERGE};
        if (sweep_import_bsp_memory(data, size, "walls.bsp", &o, &lv, &st, err, sizeof err) != SWEEP_OK)
            fail_msg("%s", err);
        tris[keep] = lv.triangle_count;
        snprintf(db[keep], sizeof db[keep], "%s", fixture_path(f, keep == KEEP ? "keep.db" : keep ? "cut.db" : "merged.db"));
        sweep_map_write_options wo = {"in", st.walkable_slope_deg, NULL, NULL, NULL};
        sweep_map_write_result res;
        if (sweep_map_write(db[keep], &lv, &wo, &res, err, sizeof err) != SWEEP_OK)
            fail_msg("%s", err);
        sweep_level_free(&lv);
        snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 24 --steps 1500 --speed 320 --bench-only 2>&1", walk,
                 db[keep]);
        if (run(cmd, out[keep], sizeof out[keep]) != 0)
            fail_msg("%s", out[keep]);
    }
    free(data);
    assert_true(tris[MERGED] < tris[NO_MERGE] && tris[NO_MERGE] < tris[KEEP]);
    const char *h0 = strstr(out[MERGED], "state_hash="), *h1 = strstr(out[KEEP], "state_hash="),
               *h2 = strstr(out[NO_MERGE], "state_hash=");
    assert_non_null(h0);
    assert_non_null(h1);
    assert_non_null(h2);
    print_message("%u -> %u -> %u triangles\n%s%s%s", tris[KEEP], tris[NO_MERGE], tris[MERGED], out[KEEP],
                  out[NO_MERGE], out[MERGED]);
    assert_memory_equal(h0, h1, strlen("state_hash=") + 16);
    assert_memory_equal(h2, h1, strlen("state_hash=") + 16);
    assert_true(field(out[0], " stuck=") == 0 && field(out[0], " inside=") == 0 && field(out[0], "left=") == 0);
}

/* ------------------------------------------------------------------------
 * Volumes: trigger_push, trigger_teleport, trigger_hurt
 */

/* The test level's brush models as triggers (volume_entities,
 * bsp_writer.h): *6 a jump pad aimed at a target_position 400 above and
 * 500 north of its centre (-150, 150, 32), *7 a teleporter to a
 * misc_teleporter_dest facing north, *2 and *3 hurting (every 100 ms, and
 * once a second), *8 killing, and *4 a pad whose target does not exist.
 *
 * Quake 3's arithmetic for the pad: time = sqrt(400 / (800 / 2)) = 1 s,
 * so the launch is (0, 500, 800) to the bit; a walker on it rises 400
 * above where it was last launched, 500 further north, within a step and
 * a half of travel (the top is sampled once a step); the teleporter, the hurt and kill volumes carry Quake 3's
 * numbers. */
static void imports_trigger_volumes(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = make_level(volume_entities, 0, &size);
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    warnings = 0;
    sweep_bsp_options o = {NULL, count_warning, NULL, 0, 0.0, 0};
    if (sweep_import_bsp_memory(data, size, "volumes.bsp", &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
    assert_int_equal(warnings, 1); /* the pad aimed at nothing */
    assert_int_equal(st.jump_pads, 1);
    assert_int_equal(st.teleporters, 1);
    assert_int_equal(st.hurts, 2);
    assert_int_equal(st.kills, 1);
    /* and, after the triggers, the test level's water brush */
    assert_int_equal(st.liquids, 1);
    assert_int_equal(lv.volume_count, 6);
    assert_int_equal(lv.volumes[5].v.kind, SWEEP_VOLUME_LIQUID);
    assert_int_equal(lv.volumes[5].v.liquid, SWEEP_LIQUID_WATER);
    const sweep_volume *pad = &lv.volumes[0].v, *tp = &lv.volumes[1].v;
    assert_int_equal(pad->kind, SWEEP_VOLUME_PUSH);
    assert_v3(pad->velocity, 0, 500, 800);
    /* Model *6 (-200 .. -100, 100 .. 200, 0 .. 64) grown by the player box. */
    assert_v3(pad->lo, -215, 85, -28);
    assert_v3(pad->hi, -85, 215, 92);
    assert_int_equal(pad->plane_count, 0);
    assert_int_equal(tp->kind, SWEEP_VOLUME_TELEPORT);
    assert_v3(tp->destination, 0, -100, 29);
    assert_true(fabs(tp->facing.x) < 1e-15 && tp->facing.y == 1.0 && tp->facing.z == 0.0);
    assert_true(tp->exit_speed == 400.0 && tp->keep_velocity == 0);
    assert_int_equal(lv.volumes[2].v.kind, SWEEP_VOLUME_HURT);
    assert_true(lv.volumes[2].v.damage == 100.0);
    assert_true(lv.volumes[3].v.damage == 20.0);
    assert_int_equal(lv.volumes[4].v.kind, SWEEP_VOLUME_KILL);
    for (uint32_t i = 0; i < lv.volume_count; i++)
        assert_int_equal(lv.volumes[i].id, i + 1);

    sweep_world *w;
    if (sweep_map_build_world(&lv, &w, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
    /* Quake 3's air move (the import's air_move): a walker that lets go of
     * the keys, or keeps running the way the pad throws it (slower than
     * the throw), flies the ballistic flight Quake 3 aims. */
    assert_true(lv.rules.air_move == SWEEP_AIR_ALONG);
    for (int run = 0; run < 2; run++) {
        sweep_actor a = {sweep_v3(-150, 150, 28.5), sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
        sweep_vec3 last = a.position, top = a.position;
        int launches = 0;
        const double dt = 1.0 / 60.0;
        for (int i = 0; i < 120; i++) {
            sweep_wish wish = {sweep_v3(0, run ? lv.rules.walk_speed : 0.0, 0), 0};
            sweep_act_result r;
            assert_int_equal(sweep_act(&sp, &lv.config, &lv.rules, lv.default_radii, &a, &wish, dt, &r), SWEEP_OK);
            if (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) {
                launches++;
                last = a.position;
            }
            if (a.position.z > top.z)
                top = a.position;
        }
        assert_true(launches >= 1);
        if (getenv("SWEEP_TEST_VERBOSE"))
            print_message("launches %d, last at (%g, %g, %g), top (%g, %g, %g)\n", launches, last.x, last.y, last.z,
                          top.x, top.y, top.z);
        /* The top sampled once a step: within a step and a half of travel. */
        assert_true(fabs(top.z - (last.z + 400.0)) <= 1.5 * 800.0 * dt);
        assert_true(fabs(top.y - (last.y + 500.0)) <= 1.5 * 500.0 * dt);
        assert_true(top.x == -150.0);
    }
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

/* The test level with these entities, imported with the warnings
 * counted (warnings, last_warning). */
static void import_with_entities(const char *ents, const char *label, sweep_level *lv, sweep_bsp_stats *st)
{
    size_t size;
    uint8_t *data = make_level(ents, 0, &size);
    char err[1024];
    warnings = 0;
    sweep_bsp_options o = {NULL, count_warning, NULL, 0, 0.0, 0};
    if (sweep_import_bsp_memory(data, size, label, &o, lv, st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
}

/* A spectators' teleporter and hurt volumes that start off (spawnflags 1
 * on both, as Quake 3 reads them) make no volume, each with a warning
 * naming it; the teleporter's destination, aimed at by nothing, is named
 * among the entities skipped. */
static void skips_spectator_teleporters_and_hurts_that_start_off(void **state)
{
    (void)state;
    static const char ents[] =
        "{ \"classname\" \"worldspawn\" \"gravity\" \"800\" }\n"
        "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
        "{ \"classname\" \"trigger_teleport\" \"model\" \"*7\" \"target\" \"d1\" \"spawnflags\" \"1\" }\n"
        "{ \"classname\" \"misc_teleporter_dest\" \"targetname\" \"d1\" \"origin\" \"0 -100 24\" }\n"
        "{ \"classname\" \"trigger_hurt\" \"model\" \"*2\" \"dmg\" \"10\" \"spawnflags\" \"17\" }\n"
        "{ \"classname\" \"trigger_hurt\" \"model\" \"*8\" \"dmg\" \"1000\" \"spawnflags\" \"1\" }\n"
        "{ \"classname\" \"trigger_hurt\" \"model\" \"*3\" \"dmg\" \"20\" \"spawnflags\" \"16\" }\n";
    sweep_level lv;
    sweep_bsp_stats st;
    import_with_entities(ents, "flags.bsp", &lv, &st);
    assert_int_equal(warnings, 4);
    assert_int_equal(st.teleporters, 0);
    assert_int_equal(st.kills, 0);
    assert_int_equal(st.hurts, 1); /* the last, SLOW alone */
    assert_string_equal(last_warning, "skipped: 1 x misc_teleporter_dest (1 entity of 1 class the importer does "
                                      "not turn into anything)");
    uint32_t hurts = 0;
    for (uint32_t i = 0; i < lv.volume_count; i++) {
        assert_int_not_equal(lv.volumes[i].v.kind, SWEEP_VOLUME_TELEPORT);
        assert_int_not_equal(lv.volumes[i].v.kind, SWEEP_VOLUME_KILL);
        hurts += lv.volumes[i].v.kind == SWEEP_VOLUME_HURT;
    }
    assert_int_equal(hurts, 1);
    sweep_level_free(&lv);
}

/* A teleporter whose destination is sunk into the floor (Quake 3 puts a
 * player there all the same; the core would block it for good) has it
 * lifted onto the floor, with a warning: a player fits there, and the
 * lift is what it was sunk by, to a skin. */
static void lifts_a_teleport_destination_out_of_the_floor(void **state)
{
    (void)state;
    static const char ents[] =
        "{ \"classname\" \"worldspawn\" \"gravity\" \"800\" }\n"
        "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
        "{ \"classname\" \"trigger_teleport\" \"model\" \"*7\" \"target\" \"d1\" }\n"
        "{ \"classname\" \"misc_teleporter_dest\" \"targetname\" \"d1\" \"origin\" \"0 -100 20\" }\n";
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    import_with_entities(ents, "sunk.bsp", &lv, &st);
    assert_int_equal(warnings, 1);
    assert_non_null(strstr(last_warning, "trigger_teleport_7: its destination (0, -100, 25) has no room"));
    const sweep_volume *tp = NULL;
    for (uint32_t i = 0; i < lv.volume_count; i++)
        if (lv.volumes[i].v.kind == SWEEP_VOLUME_TELEPORT)
            tp = &lv.volumes[i].v;
    assert_non_null(tp);
    /* The floor's top at 0, the player 28 under its centre. */
    assert_true(tp->destination.x == 0.0 && tp->destination.y == -100.0);
    assert_true(tp->destination.z >= 28.0 && tp->destination.z < 28.1);
    sweep_world *w;
    if (sweep_map_build_world(&lv, &w, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
    sweep_move_input in = {tp->destination, lv.default_radii, sweep_v3(0, 0, 1e-3), 1.0 / 60.0, 0};
    sweep_move_result res;
    assert_int_equal(sweep_move_in(&sp, &lv.config, &in, &res), SWEEP_OK);
    assert_false(res.flags & SWEEP_MOVED_STARTED_EMBEDDED);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

/* A ladder brush whose shader is on every side (a ladder clip) is a
 * ladder from each of its four sides that face across up, each cut at its
 * side: a walker pushing into the side that faces +x, the one away from
 * the first side, climbs it onto the tower. */
static void a_ladder_flagged_on_every_side_is_climbed_from_any(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = make_liquids_level_sides(&size, 1);
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    warnings = 0;
    sweep_bsp_options o = {NULL, count_warning, NULL, 0, 0.0, 0};
    if (sweep_import_bsp_memory(data, size, "ladders.bsp", &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
    assert_int_equal(warnings, 0);
    assert_int_equal(st.ladders, 4);
    uint32_t ladders = 0;
    for (uint32_t i = 0; i < lv.volume_count; i++)
        if (lv.volumes[i].v.kind == SWEEP_VOLUME_LADDER) {
            const sweep_volume *l = &lv.volumes[i].v;
            assert_true(fabs(sweep_v3_len(l->normal) - 1.0) < 1e-12 && l->normal.z == 0.0);
            ladders++;
        }
    assert_int_equal(ladders, 4);
    sweep_world *wd;
    if (sweep_map_build_world(&lv, &wd, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_space sp = {wd, NULL, NULL, SWEEP_NO_BODY};
    sweep_actor a = {sweep_v3(420, 0, 28.0005), sweep_v3(0, 0, 0), 1, SWEEP_STANCE_STAND};
    uint32_t seen = 0;
    int i = 0;
    for (; i < 600 && !(a.grounded && a.position.x < 354); i++) {
        sweep_wish wish = {sweep_v3(-320, 0, 0), 0};
        sweep_act_result r;
        assert_int_equal(sweep_act(&sp, &lv.config, &lv.rules, lv.default_radii, &a, &wish, 1.0 / 60.0, &r), SWEEP_OK);
        seen |= r.volumes.events;
    }
    assert_true(seen & SWEEP_VOLUME_EV_CLIMBED);
    if (!(i < 600 && fabs(a.position.z - 284.0) < 0.1))
        fail_msg("ended at (%g, %g, %g) after %d moves", a.position.x, a.position.y, a.position.z, i);
    sweep_world_destroy(wd);
    sweep_level_free(&lv);
}

/* World brushes of water, lava and slime-and-water contents become liquid
 * volumes, the brushes themselves, hurting with Quake 3's numbers (the
 * slime of a brush of both, as Quake 3's point contents name it); a solid
 * brush with one SURF_LADDER side a ladder volume, grown by the player
 * box and a unit, its normal that side's. A walker pushing into the
 * ladder climbs it onto the tower; the level has Quake 3's water rules. */
static void imports_liquids_and_ladders(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = make_liquids_level(&size);
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    if (sweep_import_bsp_memory(data, size, "liquids.bsp", NULL, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    free(data);
    assert_int_equal(st.liquids, 3);
    assert_int_equal(st.ladders, 1);
    assert_int_equal(lv.volume_count, 4);
    static const sweep_liquid kinds[3] = {SWEEP_LIQUID_WATER, SWEEP_LIQUID_LAVA, SWEEP_LIQUID_SLIME};
    static const double damage[3] = {0.0, 30.0, 10.0};
    for (int i = 0; i < 3; i++) {
        const sweep_volume *v = &lv.volumes[i].v;
        assert_int_equal(v->kind, SWEEP_VOLUME_LIQUID);
        assert_int_equal(v->liquid, kinds[i]);
        assert_string_equal(lv.volumes[i].name, sweep_liquid_name(kinds[i]));
        assert_true(v->damage == damage[i]);
        assert_int_equal(v->plane_count, 0);
    }
    assert_v3(lv.volumes[0].v.lo, 100, 100, 0);
    assert_v3(lv.volumes[0].v.hi, 200, 200, 64);
    const sweep_volume *lad = &lv.volumes[3].v;
    assert_int_equal(lad->kind, SWEEP_VOLUME_LADDER);
    assert_v3(lad->normal, -1, 0, 0);
    /* The tower (300 .. 364 along x) grown, and cut at its ladder side. */
    assert_v3(lad->lo, 284, -48, -29);
    assert_v3(lad->hi, 300, 48, 285);
    assert_true(lv.rules.swim_speed == 160.0 && lv.rules.swim_sink == 60.0 && lv.rules.swim_jump == 350.0);
    assert_true(lv.rules.swim_accel == 640.0 && lv.rules.swim_drag == 1.0);

    sweep_world *wd;
    if (sweep_map_build_world(&lv, &wd, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_space sp = {wd, NULL, NULL, SWEEP_NO_BODY};
    sweep_actor a = {sweep_v3(250, 0, 28.0005), sweep_v3(0, 0, 0), 1, SWEEP_STANCE_STAND};
    uint32_t seen = 0;
    int i = 0;
    for (; i < 600 && !(a.grounded && a.position.x > 310); i++) {
        sweep_wish wish = {sweep_v3(320, 0, 0), 0};
        sweep_act_result r;
        assert_int_equal(sweep_act(&sp, &lv.config, &lv.rules, lv.default_radii, &a, &wish, 1.0 / 60.0, &r), SWEEP_OK);
        seen |= r.volumes.events;
    }
    assert_true(i < 600);
    assert_true(seen & SWEEP_VOLUME_EV_CLIMBED);
    /* Standing on the tower (its top 256, the radius 28), within the
     * ground contact distance. */
    if (!(fabs(a.position.z - 284.0) < 0.1))
        fail_msg("ended at (%g, %g, %g) after %d moves", a.position.x, a.position.y, a.position.z, i);
    /* Behind the tower, pressing into its back or walking away from the
     * ladder: a walk on the floor, never rising. */
    for (int way = -1; way <= 1; way += 2) {
        sweep_actor back = {sweep_v3(380, 0, 28.0005), sweep_v3(0, 0, 0), 1, SWEEP_STANCE_STAND};
        double top = back.position.z;
        seen = 0;
        for (i = 0; i < 20; i++) {
            sweep_wish wish = {sweep_v3(320.0 * way, 0, 0), 0};
            sweep_act_result r;
            assert_int_equal(
                sweep_act(&sp, &lv.config, &lv.rules, lv.default_radii, &back, &wish, 1.0 / 60.0, &r), SWEEP_OK);
            seen |= r.volumes.events;
            top = fmax(top, back.position.z);
        }
        assert_false(seen & SWEEP_VOLUME_EV_CLIMBED);
        if (!(back.grounded && top < 28.1))
            fail_msg("way %d: at (%g, %g, %g), grounded %u, highest %g", way, back.position.x, back.position.y,
                     back.position.z, back.grounded, top);
    }
    sweep_world_destroy(wd);
    sweep_level_free(&lv);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(imports_the_test_level, setup, teardown),
        cmocka_unit_test(names_the_entities_it_skips),
        cmocka_unit_test(names_every_class_it_skips_however_many),
        cmocka_unit_test_setup_teardown(imports_from_a_pk3, setup, teardown),
        cmocka_unit_test(refuses_every_malformed_lump),
        cmocka_unit_test(tessellates_patches_within_tolerance),
        cmocka_unit_test(patch_blocks_share_their_seams),
        cmocka_unit_test(refuses_bad_patch_tolerances),
        cmocka_unit_test(refuses_patches_past_their_budget),
        cmocka_unit_test(same_named_shaders_get_the_next_free_names),
        cmocka_unit_test(warns_about_movers_that_cannot_move),
        cmocka_unit_test(survives_truncation_and_corruption),
        cmocka_unit_test_setup_teardown(sweep_import_takes_bsp_and_pk3, setup, teardown),
        cmocka_unit_test_setup_teardown(imports_alike_whatever_the_cpu_offers, setup, teardown),
        cmocka_unit_test(drops_the_wall_between_two_boxes),
        cmocka_unit_test(drops_what_lies_inside_another_brush),
        cmocka_unit_test(keeps_coplanar_floors_and_edge_contacts),
        cmocka_unit_test(merges_coplanar_faces_across_brushes),
        cmocka_unit_test(drops_faces_towards_opaque_leaves),
        cmocka_unit_test(imports_trigger_volumes),
        cmocka_unit_test(skips_spectator_teleporters_and_hurts_that_start_off),
        cmocka_unit_test(lifts_a_teleport_destination_out_of_the_floor),
        cmocka_unit_test(a_ladder_flagged_on_every_side_is_climbed_from_any),
        cmocka_unit_test(imports_liquids_and_ladders),
        cmocka_unit_test_setup_teardown(hidden_faces_do_not_change_a_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(corpus_levels_import_load_and_walk, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
