/*
 * test_level_check.c - the level check (maps/level_check.h) finds each
 * defect planted in a small level, and nothing in the same level without
 * it nor in the sample arena; sweep-import --check says so with its exit
 * status, and an import warns of the same findings (and fails under
 * --strict, writing nothing).
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/quat.h"
#include "maps/level_check.h"
#include "maps/loader.h"
#include "maps/writer.h"

typedef struct seen {
    uint32_t n;
    sweep_check_finding f[16];
} seen;

static void keep(void *ctx, const sweep_check_finding *f)
{
    seen *s = ctx;
    print_message("%s at (%g, %g, %g): %s\n", sweep_check_kind_name(f->kind), f->at.x, f->at.y, f->at.z, f->text);
    if (s->n < 16)
        s->f[s->n] = *f;
    s->n++;
}

static seen check(const sweep_level *lv)
{
    seen s = {0};
    sweep_check_summary sum;
    char err[256];
    if (sweep_level_check(lv, keep, &s, &sum, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(sum.findings, s.n);
    return s;
}

/* Exactly one finding, of that kind, near `at`, its text holding `words`. */
static void found_one(const sweep_level *lv, sweep_check_kind kind, sweep_vec3 at, double within, const char *words)
{
    seen s = check(lv);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.f[0].kind, kind);
    if (!(sweep_v3_len(sweep_v3_sub(s.f[0].at, at)) <= within))
        fail_msg("found at (%g, %g, %g), not within %g of (%g, %g, %g)", s.f[0].at.x, s.f[0].at.y, s.f[0].at.z,
                 within, at.x, at.y, at.z);
    if (!strstr(s.f[0].text, words))
        fail_msg("'%s' lacks '%s'", s.f[0].text, words);
}

static void add_quad(sweep_level *lv, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 d)
{
    assert_int_equal(sweep_level_add_quad(lv, a, b, c, d, 1), SWEEP_OK);
}

/* The faces of a box (-x, +x, -y, +y, -z, +z) by its corners, corner k
 * having the high x if bit 0 is set, the high y bit 1, the high z bit 2;
 * counter-clockwise seen from outside. */
static const int box_face[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};

/* A box of outward faces, one of them (0..5, as box_face) left out if
 * `missing` is in range. */
static void add_box(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi, int missing)
{
    sweep_vec3 p[8];
    for (int k = 0; k < 8; k++)
        p[k] = sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
    const int (*face)[4] = box_face;
    for (int f = 0; f < 6; f++)
        if (f != missing)
            add_quad(lv, p[face[f][0]], p[face[f][1]], p[face[f][2]], p[face[f][3]]);
}

/* The clean level: a floor 20 x 20 at z = 0 cut into square cells of
 * `cell` metres (20: one quad; finer, as a modelling tool's subdivided
 * plane comes in), a solid pillar on it, a two-sided panel, and a spawn
 * point standing on the floor. Metres, the default rules (radii 0.4, 0.4,
 * 0.9). */
static void base_cut(sweep_level *lv, double cell)
{
    sweep_level_init(lv);
    snprintf(lv->name, sizeof lv->name, "planted");
    assert_int_equal(sweep_level_add_material(lv, 1, "stone", 1.0, 0), SWEEP_OK);
    int n = (int)(20.0 / cell + 0.5);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = -10 + 20.0 * i / n, y = -10 + 20.0 * j / n, x1 = -10 + 20.0 * (i + 1) / n,
                   y1 = -10 + 20.0 * (j + 1) / n;
            add_quad(lv, sweep_v3(x, y, 0), sweep_v3(x1, y, 0), sweep_v3(x1, y1, 0), sweep_v3(x, y1, 0));
        }
    add_box(lv, sweep_v3(3, 3, 0), sweep_v3(5, 5, 3), 4); /* standing on the floor: no bottom */
    /* A panel seen from both sides: a quad and its reversed twin. */
    sweep_vec3 a = sweep_v3(-6, 2, 0), b = sweep_v3(-6, 4, 0), c = sweep_v3(-6, 4, 2), d = sweep_v3(-6, 2, 2);
    add_quad(lv, a, b, c, d);
    add_quad(lv, a, d, c, b);
    assert_int_equal(sweep_level_add_spawn(lv, sweep_v3(0, 0, 0.95)), SWEEP_OK);
}

static void base(sweep_level *lv)
{
    base_cut(lv, 20.0);
}

static void the_clean_level_has_no_finding(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    sweep_check_summary sum;
    char err[256];
    assert_int_equal(sweep_level_check(&lv, keep, &(seen){0}, &sum, err, sizeof err), SWEEP_OK);
    assert_int_equal(sum.findings, 0);
    assert_int_equal(sum.meshes, 2);             /* the floor, the pillar; the panel is two-sided */
    assert_int_equal(sum.one_sided_edges, 4 + 4); /* the floor's rim, the pillar's base */
    sweep_level_free(&lv);
}

static void spawns_in_the_floor_in_a_solid_and_in_the_air(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    lv.spawns[0] = sweep_v3(0, 0, 0.5); /* half sunk into the floor */
    found_one(&lv, SWEEP_CHECK_SPAWN_INSIDE, lv.spawns[0], 0.0, "spawn point 1 at (0, 0, 0.5) is inside the level");
    /* In the middle of the pillar, touching none of its faces' fronts; the
     * floor under it faces up at the spawn. */
    lv.spawns[0] = sweep_v3(4, 4, 1.5);
    found_one(&lv, SWEEP_CHECK_SPAWN_INSIDE, lv.spawns[0], 0.0, "is inside a solid: 5 of the 6 ways out");
    lv.spawns[0] = sweep_v3(0, 0, 6); /* its feet 5.1 m up: more than 1.8 m and a 1.27 m jump */
    found_one(&lv, SWEEP_CHECK_SPAWN_FLOATING, lv.spawns[0], 0.0, "floats 5.1 above the floor");
    lv.spawns[0] = sweep_v3(0, 0, 3); /* 2.1 m: a short drop */
    assert_int_equal(check(&lv).n, 0);
    lv.spawns[0] = sweep_v3(30, 0, 1); /* beyond the floor's edge */
    found_one(&lv, SWEEP_CHECK_SPAWN_FLOATING, lv.spawns[0], 0.0, "has no floor below it");
    sweep_level_free(&lv);
}

/* A closed shell wound inside-out: every triangle of box lo .. hi turned. */
static void add_hollow(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi)
{
    uint32_t first = lv->triangle_count;
    add_box(lv, lo, hi, -1);
    for (uint32_t t = first; t < lv->triangle_count; t++) {
        uint32_t b = lv->indices[3 * t + 1];
        lv->indices[3 * t + 1] = lv->indices[3 * t + 2];
        lv->indices[3 * t + 2] = b;
    }
}

static void an_inside_out_pillar_is_found(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_hollow(&lv, sweep_v3(-5, -5, 0.5), sweep_v3(-3, -3, 2.5));
    found_one(&lv, SWEEP_CHECK_INSIDE_OUT, sweep_v3(-4, -4, 1.5), 1e-12, "volume -8");
    /* The same shell around the spawn point is a room, not a defect. */
    lv.spawns[0] = sweep_v3(-4, -4, 1.5);
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);
}

/* A hollow inside a solid block (as brushes enclosing a space leave one)
 * is out of every player's reach: counted, not reported. Made of the
 * block with a wall cut away beside it, it is reachable and reported. */
static void a_pocket_sealed_in_a_solid_is_no_finding(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_box(&lv, sweep_v3(-9, -9, 0.5), sweep_v3(-1, -1, 4.5), -1); /* a block raised off the floor */
    add_hollow(&lv, sweep_v3(-6, -7, 1.5), sweep_v3(-4, -2, 3));    /* its largest faces at z = 1.5 and 3 */
    seen s = {0};
    sweep_check_summary sum;
    char err[256];
    assert_int_equal(sweep_level_check(&lv, keep, &s, &sum, err, sizeof err), SWEEP_OK);
    assert_int_equal(sum.findings, 0);
    assert_int_equal(sum.shells, 2);
    assert_int_equal(sum.pockets, 1);
    sweep_level_free(&lv);

    /* The same hollow beside a block that ends short of it: the room's
     * air, behind its largest face, is reached by players. */
    base(&lv);
    add_box(&lv, sweep_v3(-9, -9, 0.5), sweep_v3(-6.5, -1, 4.5), -1);
    add_hollow(&lv, sweep_v3(-6, -7, 1.5), sweep_v3(-4, -2, 3));
    found_one(&lv, SWEEP_CHECK_INSIDE_OUT, sweep_v3(-5, -4.5, 2.25), 1e-12, "wound inside-out");
    assert_int_equal(sweep_level_check(&lv, NULL, NULL, &sum, err, sizeof err), SWEEP_OK);
    assert_int_equal(sum.pockets, 0);
    sweep_level_free(&lv);
}

static void a_solid_with_a_missing_face_is_open_unless_into_a_solid(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_box(&lv, sweep_v3(-5, -5, 0.5), sweep_v3(-3, -3, 2.5), 1); /* no +x face: a hole a player walks in by */
    /* Its edge at the bottom is at the base, as a box standing on something
     * would be open; the three others are named. */
    found_one(&lv, SWEEP_CHECK_OPEN_MESH, sweep_v3(-3, -4, 1.5), 1.5, "3 of its 17 edges belong to one triangle");
    sweep_level_free(&lv);

    /* The same box run into a wall block, its open end inside the block
     * (a beam whose end face the level compiler dropped): nobody reaches
     * the gap. Its edges touch no face of the block, so only what lies
     * beyond them tells. */
    base(&lv);
    add_box(&lv, sweep_v3(-5, -5, 0.5), sweep_v3(-3, -3, 2.5), 1);
    add_box(&lv, sweep_v3(-3.5, -7, 0.25), sweep_v3(-1, -1, 3), -1);
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);
}

/* Mover 1, `name`: a box half.x by half.y either side of its origin and
 * height tall above it, its faces out (inward: in, a cabin), from `from`
 * at 0 s to `to` at 1 s and back. */
static sweep_level_mover *add_box_mover(sweep_level *lv, const char *name, sweep_vec3 half, double height, int inward,
                                        sweep_vec3 from, sweep_vec3 to)
{
    uint32_t mi;
    assert_int_equal(sweep_level_add_mover(lv, 1, name, &mi), SWEEP_OK);
    sweep_level_mover *m = &lv->movers[mi];
    m->mode = SWEEP_MOVER_PINGPONG;
    for (int k = 0; k < 8; k++) {
        sweep_vec3 c = sweep_v3(k & 1 ? half.x : -half.x, k & 2 ? half.y : -half.y, k & 4 ? height : 0.0);
        assert_int_equal(sweep_level_mover_add_vertex(m, c, NULL), SWEEP_OK);
    }
    const int (*face)[4] = box_face;
    for (int f = 0; f < 6; f++) {
        int b = inward ? 3 : 1, d = inward ? 1 : 3; /* the quad's second and fourth corners, swapped inward */
        assert_int_equal(sweep_level_mover_add_triangle(m, face[f][0], face[f][b], face[f][2], 1), SWEEP_OK);
        assert_int_equal(sweep_level_mover_add_triangle(m, face[f][0], face[f][2], face[f][d], 1), SWEEP_OK);
    }
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0.0, from, sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 1.0, to, sweep_quat_identity()), SWEEP_OK);
    return m;
}

/* Mover 1, 'door': a slab 0.1 x 1 x 2 m, its bottom at its origin. */
static sweep_level_mover *add_door(sweep_level *lv, sweep_vec3 from, sweep_vec3 to)
{
    return add_box_mover(lv, "door", sweep_v3(0.05, 0.5, 0.0), 2.0, 0, from, to);
}

/* A spawn point a player would overlap a mover at is found, and so is one
 * whose player a closed mover holds whole, behind all its faces (the core
 * sees neither it nor the mover in the way); inside a cabin facing in it
 * is a room. */
static void spawns_in_and_at_movers(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_door(&lv, sweep_v3(-4, -4, 0), sweep_v3(-4, -6, 0));
    lv.spawns[0] = sweep_v3(-3.8, -4, 1); /* 0.15 m from the door's face: the player overlaps it */
    found_one(&lv, SWEEP_CHECK_SPAWN_INSIDE, lv.spawns[0], 0.0, "overlaps mover 1 'door' where it starts");
    sweep_level_free(&lv);

    base(&lv);
    add_box_mover(&lv, "crate", sweep_v3(1.5, 1.5, 0.0), 3.0, 0, sweep_v3(-4, -4, 0), sweep_v3(-4, -8, 0));
    lv.spawns[0] = sweep_v3(-4, -4, 1.5); /* the player (0.4 x 0.4 x 0.9) wholly inside the 3 m crate */
    found_one(&lv, SWEEP_CHECK_SPAWN_INSIDE, lv.spawns[0], 0.0,
              "spawn point 1 at (-4, -4, 1.5) is inside mover 1 'crate' where it starts, behind all its faces");
    sweep_level_free(&lv);

    base(&lv);
    add_box_mover(&lv, "cabin", sweep_v3(1.5, 1.5, 0.0), 3.0, 1, sweep_v3(-4, -4, 0), sweep_v3(-4, -8, 0));
    lv.spawns[0] = sweep_v3(-4, -4, 1.5);
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);

    /* A mover far larger than the static level (a ship's hull round the
     * whole of it): the ray out of the spawn point reaches its faces. */
    base(&lv);
    add_box_mover(&lv, "hull", sweep_v3(100, 100, 0.0), 200.0, 0, sweep_v3(0, 0, -100), sweep_v3(0, 0, -99));
    found_one(&lv, SWEEP_CHECK_SPAWN_INSIDE, lv.spawns[0], 0.0,
              "spawn point 1 at (0, 0, 0.95) is inside mover 1 'hull' where it starts, behind all its faces");
    sweep_level_free(&lv);
}

/* A platform going down through the floor crosses it; a door sliding
 * into the solid pillar (a pocket) does not count. */
static void a_mover_through_the_floor_is_found(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    /* Along +y from in front of the pillar into it, at floor level. */
    sweep_level_mover *m = add_door(&lv, sweep_v3(4, 2, 0), sweep_v3(4, 3.8, 0));
    assert_int_equal(check(&lv).n, 0);
    /* Now down by 1 m from where it starts: through the floor. */
    m->keys[1].pose.position = sweep_v3(4, 2, -1);
    found_one(&lv, SWEEP_CHECK_MOVER_CROSSES, sweep_v3(4, 2, 0), 0.6, "mover 1 'door' crosses the level's geometry");
    sweep_level_free(&lv);
}

/* Faces of box lo .. hi, faces first .. last (as box_face) of the box
 * each made alone and `over` larger than it beyond its edges, so that no
 * two share a corner: brush faces cut where brushes meet, which form no
 * closed piece though they bound a solid. */
static void add_loose_faces(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi, double over, int first, int last)
{
    sweep_vec3 mid = sweep_v3_scale(sweep_v3_add(lo, hi), 0.5);
    for (int f = first; f <= last; f++) {
        sweep_vec3 q[4];
        for (int i = 0; i < 4; i++) {
            int k = box_face[f][i];
            sweep_vec3 p = sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
            /* Out from the middle along the face's own two axes. */
            int axis = f / 2;
            sweep_vec3 d = sweep_v3_sub(p, mid);
            q[i] = sweep_v3(p.x + (axis != 0 ? copysign(over, d.x) : 0.0),
                            p.y + (axis != 1 ? copysign(over, d.y) : 0.0),
                            p.z + (axis != 2 ? copysign(over, d.z) : 0.0));
        }
        add_quad(lv, q[0], q[1], q[2], q[3]);
    }
}

/* A door sliding into brushwork whose faces form no closed piece is in a
 * pocket all the same: behind the face it passes through lies the inside
 * of a solid. Into a lone face with the room behind it, it is found. */
static void a_mover_into_loose_brush_faces_is_in_a_pocket(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    /* Standing on the floor, its faces but the bottom, 5 cm past their edges. */
    add_loose_faces(&lv, sweep_v3(3, -2, 0), sweep_v3(5, 1, 3), 0.05, 0, 3);
    add_loose_faces(&lv, sweep_v3(3, -2, 0), sweep_v3(5, 1, 3), 0.05, 5, 5);
    /* Along -y from in front of the block into it. */
    add_door(&lv, sweep_v3(4, 2, 0), sweep_v3(4, 0.2, 0));
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);

    /* The block's face towards the door alone: a sheet with air behind it. */
    base(&lv);
    add_loose_faces(&lv, sweep_v3(3, -2, 0), sweep_v3(5, 1, 3), 0.05, 3, 3);
    add_door(&lv, sweep_v3(4, 2, 0), sweep_v3(4, 0.2, 0));
    found_one(&lv, SWEEP_CHECK_MOVER_CROSSES, sweep_v3(4, 1, 1), 1.5, "passes through level triangle");
    sweep_level_free(&lv);
}


/* A floor cut into many pieces is a sheet, not a solid standing on its
 * base (every edge of it lies at its lowest height): a platform going down
 * through it is found, as through the floor of one quad, and a door
 * sliding into the pillar is still in a pocket. */
static void a_mover_through_a_finely_cut_floor_is_found(void **state)
{
    (void)state;
    const double cells[] = {1.0, 0.5};
    for (int k = 0; k < 2; k++) {
        sweep_level lv;
        base_cut(&lv, cells[k]);
        assert_int_equal(check(&lv).n, 0);
        sweep_level_mover *m = add_door(&lv, sweep_v3(4.3, 2, 0), sweep_v3(4.3, 3.8, 0));
        assert_int_equal(check(&lv).n, 0);
        m->keys[1].pose.position = sweep_v3(4.3, 2, -1);
        found_one(&lv, SWEEP_CHECK_MOVER_CROSSES, sweep_v3(4.3, 2, 0), 0.6,
                  "mover 1 'door' crosses the level's geometry");
        sweep_level_free(&lv);
    }
}

/* A terrain (heights over a grid, every face looking up) is no solid
 * however finely it is cut, though its open rim is a small share of its
 * edges; a box whose every face is cut as finely and whose top is missing
 * is still found open. */
static void a_terrain_is_no_open_solid(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "terrain");
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    const int n = 16;
    const double cell = 20.0 / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = -10 + i * cell, y = -10 + j * cell;
#define HEIGHT(i, j) (0.3 * sin(1.7 * (i)) * cos(1.3 * (j)) + 0.05 * (i))
            add_quad(&lv, sweep_v3(x, y, HEIGHT(i, j)), sweep_v3(x + cell, y, HEIGHT(i + 1, j)),
                     sweep_v3(x + cell, y + cell, HEIGHT(i + 1, j + 1)), sweep_v3(x, y + cell, HEIGHT(i, j + 1)));
#undef HEIGHT
        }
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(0, 0, 1.95)), SWEEP_OK);
    assert_int_equal(check(&lv).n, 0);

    /* A box 2 x 2 x 2 on the ground beside it, each side cut 4 x 4, its
     * top left out: 16 of its edges open above its base. */
    const double lo[3] = {12, -1, 0}, step = 0.5;
    for (int f = 0; f < 5; f++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                double u0 = i * step, u1 = u0 + step, v0 = j * step, v1 = v0 + step;
                sweep_vec3 q[4];
                for (int k = 0; k < 4; k++) {
                    double u = k == 0 || k == 3 ? u0 : u1, v = k < 2 ? v0 : v1;
                    /* -x, +x, -y, +y walls (u along the wall, v up), then the bottom. */
                    q[k] = f == 0   ? sweep_v3(lo[0], lo[1] + u, lo[2] + v)
                           : f == 1 ? sweep_v3(lo[0] + 2, lo[1] + u, lo[2] + v)
                           : f == 2 ? sweep_v3(lo[0] + u, lo[1], lo[2] + v)
                           : f == 3 ? sweep_v3(lo[0] + u, lo[1] + 2, lo[2] + v)
                                    : sweep_v3(lo[0] + u, lo[1] + v, lo[2]);
                }
                /* Outward: -x, +y and the bottom wound one way, the others the other. */
                if (f == 0 || f == 3 || f == 4)
                    add_quad(&lv, q[0], q[3], q[2], q[1]);
                else
                    add_quad(&lv, q[0], q[1], q[2], q[3]);
            }
    found_one(&lv, SWEEP_CHECK_OPEN_MESH, sweep_v3(13, 0, 2), 1.5, "16 of its");
    sweep_level_free(&lv);
}


/* A yard (a floor and walls facing inward, open at the top) around the
 * spawn point, and a floor with a pit in it, close on a space their faces
 * look into: rooms, not solids with a hole. */
static void a_yard_and_a_pit_are_no_open_solids(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "yard");
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    add_box(&lv, sweep_v3(-10, -10, 0), sweep_v3(10, 10, 4), 5); /* no top */
    uint32_t first = 0;
    for (uint32_t t = first; t < lv.triangle_count; t++) { /* facing in */
        uint32_t b = lv.indices[3 * t + 1];
        lv.indices[3 * t + 1] = lv.indices[3 * t + 2];
        lv.indices[3 * t + 2] = b;
    }
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(0, 0, 0.95)), SWEEP_OK);
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);

    /* A floor 12 x 12 around a pit 4 x 4, 1 m deep. */
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "pit");
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    const double r[4][2] = {{-6, -6}, {6, -6}, {6, 6}, {-6, 6}}, h[4][2] = {{-2, -2}, {2, -2}, {2, 2}, {-2, 2}};
    for (int k = 0; k < 4; k++) {
        int l = (k + 1) % 4;
        add_quad(&lv, sweep_v3(r[k][0], r[k][1], 0), sweep_v3(r[l][0], r[l][1], 0), sweep_v3(h[l][0], h[l][1], 0),
                 sweep_v3(h[k][0], h[k][1], 0));
        /* the pit's wall under edge k, facing into the pit */
        add_quad(&lv, sweep_v3(h[k][0], h[k][1], 0), sweep_v3(h[l][0], h[l][1], 0), sweep_v3(h[l][0], h[l][1], -1),
                 sweep_v3(h[k][0], h[k][1], -1));
    }
    add_quad(&lv, sweep_v3(-2, -2, -1), sweep_v3(2, -2, -1), sweep_v3(2, 2, -1), sweep_v3(-2, 2, -1));
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(4, 4, 0.95)), SWEEP_OK);
    assert_int_equal(check(&lv).n, 0);
    /* A box with a side missing on the same floor is still found. */
    add_box(&lv, sweep_v3(-5, 3, 0), sweep_v3(-3, 5, 2), 1);
    found_one(&lv, SWEEP_CHECK_OPEN_MESH, sweep_v3(-3, 4, 1), 1.5, "belong to one triangle");
    sweep_level_free(&lv);
}

/* A crate resting on a ramp and sliding up it lies in the ramp's plane
 * (off it by rounding): it crosses nothing; sunk into the ramp it does. */
static void a_crate_sliding_up_a_ramp_crosses_nothing(void **state)
{
    (void)state;
    const double angles[] = {10, 20, 45}, cells[] = {20, 1};
    for (int ai = 0; ai < 3; ai++)
        for (int ci = 0; ci < 2; ci++)
            for (int sunk = 0; sunk < 2; sunk++) {
                double an = angles[ai] * M_PI / 180.0, cs = cos(an), sn = sin(an);
                sweep_level lv;
                sweep_level_init(&lv);
                snprintf(lv.name, sizeof lv.name, "ramp");
                assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
                int n = (int)(20.0 / cells[ci]);
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) {
                        double x = -10 + 20.0 * i / n, x1 = -10 + 20.0 * (i + 1) / n, u = -10 + 20.0 * j / n,
                               u1 = -10 + 20.0 * (j + 1) / n;
                        add_quad(&lv, sweep_v3(x, u * cs, u * sn), sweep_v3(x1, u * cs, u * sn),
                                 sweep_v3(x1, u1 * cs, u1 * sn), sweep_v3(x, u1 * cs, u1 * sn));
                    }
                assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(-5, 0, 0.95 / cs + 0.1)), SWEEP_OK);
                uint32_t mi;
                assert_int_equal(sweep_level_add_mover(&lv, 1, "crate", &mi), SWEEP_OK);
                sweep_level_mover *m = &lv.movers[mi];
                m->mode = SWEEP_MOVER_PINGPONG;
                /* A 1 m box in the ramp's frame: u up the slope, w off it. */
                double w0 = sunk ? -0.3 : 0.0;
                for (int k = 0; k < 8; k++) {
                    double x = k & 1 ? 0.5 : -0.5, u = k & 2 ? 0.5 : -0.5, w = k & 4 ? 1.0 + w0 : w0;
                    assert_int_equal(sweep_level_mover_add_vertex(m, sweep_v3(x, u * cs - w * sn, u * sn + w * cs), NULL),
                                     SWEEP_OK);
                }
                for (int f = 0; f < 6; f++) {
                    assert_int_equal(
                        sweep_level_mover_add_triangle(m, box_face[f][0], box_face[f][1], box_face[f][2], 1), SWEEP_OK);
                    assert_int_equal(
                        sweep_level_mover_add_triangle(m, box_face[f][0], box_face[f][2], box_face[f][3], 1), SWEEP_OK);
                }
                assert_int_equal(sweep_level_mover_add_keyframe(m, 0.0, sweep_v3(3.1, 0.3 * cs, 0.3 * sn),
                                                                sweep_quat_identity()),
                                 SWEEP_OK);
                assert_int_equal(sweep_level_mover_add_keyframe(m, 1.0, sweep_v3(3.1, 3.3 * cs, 3.3 * sn),
                                                                sweep_quat_identity()),
                                 SWEEP_OK);
                seen s = check(&lv);
                if (sunk) {
                    assert_int_equal(s.n, 1);
                    assert_int_equal(s.f[0].kind, SWEEP_CHECK_MOVER_CROSSES);
                } else {
                    assert_int_equal(s.n, 0);
                }
                sweep_level_free(&lv);
            }
}

/* A shell wound inside-out over the void beyond the floor's edge: the way
 * back through its face meets its own back, the five others nothing. No
 * pocket in a solid: found. */
static void an_inside_out_slab_over_the_void_is_found(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_hollow(&lv, sweep_v3(13, -2, -0.5), sweep_v3(17, 2, 0));
    found_one(&lv, SWEEP_CHECK_INSIDE_OUT, sweep_v3(15, 0, -0.25), 1e-12, "wound inside-out");
    sweep_level_free(&lv);
}


/* A teleport volume (a box around `at`, 1 m across) to `to`. */
static void add_teleporter(sweep_level *lv, const char *name, sweep_vec3 at, sweep_vec3 to)
{
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_TELEPORT;
    v.lo = sweep_v3(at.x - 0.5, at.y - 0.5, at.z - 0.5);
    v.hi = sweep_v3(at.x + 0.5, at.y + 0.5, at.z + 0.5);
    v.destination = to;
    v.facing = sweep_v3(1, 0, 0);
    assert_int_equal(sweep_level_add_volume(lv, lv->volume_count + 1, name, &v), SWEEP_OK);
}

/* A teleporter to where a player has room is fine; one into the floor,
 * into the solid pillar, into itself, or into another that sends players
 * back is found. */
static void teleporters_with_no_room_or_in_a_loop_are_found(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_teleporter(&lv, "fine", sweep_v3(-8, 8, 1), sweep_v3(8, -8, 0.95));
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);

    base(&lv);
    add_teleporter(&lv, "sunk", sweep_v3(-8, 8, 1), sweep_v3(8, -8, 0.5));
    found_one(&lv, SWEEP_CHECK_TELEPORT_BLOCKED, sweep_v3(8, -8, 0.5), 0.0, "inside the level's geometry");
    sweep_level_free(&lv);

    base(&lv);
    add_teleporter(&lv, "walled", sweep_v3(-8, 8, 1), sweep_v3(4, 4, 1.5)); /* the pillar's middle */
    found_one(&lv, SWEEP_CHECK_TELEPORT_BLOCKED, sweep_v3(4, 4, 1.5), 0.0, "inside a solid");
    sweep_level_free(&lv);

    base(&lv);
    add_teleporter(&lv, "self", sweep_v3(-8, 8, 1), sweep_v3(-8, 8, 0.95));
    found_one(&lv, SWEEP_CHECK_TELEPORT_BLOCKED, sweep_v3(-8, 8, 0.95), 0.0, "inside itself");
    sweep_level_free(&lv);

    base(&lv);
    add_teleporter(&lv, "there", sweep_v3(-8, 8, 1), sweep_v3(8, -8, 0.95));
    add_teleporter(&lv, "back", sweep_v3(8, -8, 1), sweep_v3(-8, 8, 0.95));
    seen s = check(&lv);
    assert_int_equal(s.n, 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(s.f[k].kind, SWEEP_CHECK_TELEPORT_BLOCKED);
        assert_non_null(strstr(s.f[k].text, "and back again, for ever"));
    }
    assert_non_null(strstr(s.f[0].text, "teleporter 1 'there'"));
    assert_non_null(strstr(s.f[0].text, "inside teleporter 2 'back'"));
    sweep_level_free(&lv);
}


/* A spawn point standing on a platform (a mover) high above the floor
 * stands on it where the mover starts: no finding; without the platform
 * it floats. */
static void a_spawn_on_a_mover_does_not_float(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    lv.spawns[0] = sweep_v3(-4, -4, 11.15);
    found_one(&lv, SWEEP_CHECK_SPAWN_FLOATING, lv.spawns[0], 0.0, "floats");
    add_box_mover(&lv, "platform", sweep_v3(2, 2, 0), 0.2, 0, sweep_v3(-4, -4, 10), sweep_v3(4, -4, 10));
    assert_int_equal(check(&lv).n, 0);
    sweep_level_free(&lv);
}


/* A lift going down through a floor slab (a closed solid) to a floor
 * below crosses it, in at its top and out at its bottom; one stopping
 * inside the slab is in a pocket. */
static void a_mover_through_a_closed_solid_is_found(void **state)
{
    (void)state;
    for (int through = 0; through < 2; through++) {
        sweep_level lv;
        sweep_level_init(&lv);
        snprintf(lv.name, sizeof lv.name, "slab");
        assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
        add_box(&lv, sweep_v3(-10, -10, -1), sweep_v3(10, 10, 0), -1);
        add_quad(&lv, sweep_v3(-10, -10, -4), sweep_v3(10, -10, -4), sweep_v3(10, 10, -4), sweep_v3(-10, 10, -4));
        assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(5, 5, 0.95)), SWEEP_OK);
        add_box_mover(&lv, "lift", sweep_v3(1, 1, 0), 0.2, 0, sweep_v3(0, 0, 0),
                      sweep_v3(0, 0, through ? -3.5 : -0.6));
        if (through)
            found_one(&lv, SWEEP_CHECK_MOVER_CROSSES, sweep_v3(0, 0, -0.5), 1.5, "passes through a solid");
        else
            assert_int_equal(check(&lv).n, 0);
        sweep_level_free(&lv);
    }
}


/* A lift 0.3 m thick rising 40 m in 8 s through an upper floor: 64 poses
 * would be 1.25 m apart and could all miss the floor; it is found from
 * wherever it starts. */
static void a_thin_mover_on_a_long_path_is_found(void **state)
{
    (void)state;
    const double starts[] = {-20.0, -20.1, -20.2, -20.3, -20.37};
    for (int k = 0; k < 5; k++) {
        sweep_level lv;
        sweep_level_init(&lv);
        snprintf(lv.name, sizeof lv.name, "shaft");
        assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
        add_quad(&lv, sweep_v3(-10, -10, 0), sweep_v3(10, -10, 0), sweep_v3(10, 10, 0), sweep_v3(-10, 10, 0));
        add_quad(&lv, sweep_v3(-10, -10, -21), sweep_v3(10, -10, -21), sweep_v3(10, 10, -21), sweep_v3(-10, 10, -21));
        assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(0, 0, 0.95)), SWEEP_OK);
        sweep_level_mover *m = add_box_mover(&lv, "lift", sweep_v3(1, 1, 0), 0.3, 0, sweep_v3(4, 4, starts[k]),
                                             sweep_v3(4, 4, starts[k] + 40));
        m->keys[1].time = 8.0;
        found_one(&lv, SWEEP_CHECK_MOVER_CROSSES, sweep_v3(4, 4, 0), 1.5, "mover 1 'lift' crosses");
        sweep_level_free(&lv);
    }
}


/* A quad or a triangle wound so that its front looks along `out`. */
static void add_quad_facing(sweep_level *lv, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 d, sweep_vec3 out)
{
    if (sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a)), out) < 0)
        add_quad(lv, d, c, b, a);
    else
        add_quad(lv, a, b, c, d);
}

static void add_triangle_facing(sweep_level *lv, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 out)
{
    if (sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a)), out) < 0) {
        sweep_vec3 t = b;
        b = c, c = t;
    }
    uint32_t i[3];
    assert_int_equal(sweep_level_add_vertex(lv, a, &i[0]), SWEEP_OK);
    assert_int_equal(sweep_level_add_vertex(lv, b, &i[1]), SWEEP_OK);
    assert_int_equal(sweep_level_add_vertex(lv, c, &i[2]), SWEEP_OK);
    assert_int_equal(sweep_level_add_triangle(lv, i[0], i[1], i[2], 1), SWEEP_OK);
}

/* A wall 6 x 0.4 x 3 m standing on the floor at y = 6, one closed piece
 * (but its base) with a doorway 1.2 m wide and 2.2 m high. */
static void add_doorway_wall(sweep_level *lv)
{
    const double px[10] = {-3, -0.6, -0.6, 0.6, 0.6, 3, 3, 3, -3, -3};
    const double pz[10] = {0, 0, 2.2, 2.2, 0, 0, 2.2, 3, 3, 2.2};
    const sweep_vec3 out[10] = {sweep_v3(0, 0, -1), sweep_v3(1, 0, 0),  sweep_v3(0, 0, -1), sweep_v3(-1, 0, 0),
                                sweep_v3(0, 0, -1), sweep_v3(1, 0, 0),  sweep_v3(1, 0, 0),  sweep_v3(0, 0, 1),
                                sweep_v3(-1, 0, 0), sweep_v3(-1, 0, 0)};
    for (int k = 0; k < 10; k++) {
        int j = (k + 1) % 10;
        if (pz[k] == 0 && pz[j] == 0)
            continue; /* its base */
        add_quad_facing(lv, sweep_v3(px[k], 5.8, pz[k]), sweep_v3(px[j], 5.8, pz[j]), sweep_v3(px[j], 6.2, pz[j]),
                        sweep_v3(px[k], 6.2, pz[k]), out[k]);
    }
    for (int s = 0; s < 2; s++) {
        double y = s ? 6.2 : 5.8;
        sweep_vec3 o = sweep_v3(0, s ? 1 : -1, 0);
#define P(i) sweep_v3(px[i], y, pz[i])
        add_quad_facing(lv, P(0), P(1), P(2), P(9), o);
        add_quad_facing(lv, P(4), P(5), P(6), P(3), o);
        add_triangle_facing(lv, P(9), P(2), P(8), o);
        add_triangle_facing(lv, P(2), P(3), P(7), o);
        add_triangle_facing(lv, P(2), P(7), P(8), o);
        add_triangle_facing(lv, P(3), P(6), P(7), o);
#undef P
    }
}

/* A door wider than its doorway, tucked into both jambs of one closed
 * wall and sliding into the wall: two faces of one solid looking
 * opposite ways, but facing each other across the gap: pockets, no
 * crossing. Sliding on through the wall's end, it is found. */
static void a_door_in_both_jambs_of_a_wall_is_in_pockets(void **state)
{
    (void)state;
    sweep_level lv;
    base(&lv);
    add_doorway_wall(&lv);
    assert_int_equal(check(&lv).n, 0);
    add_box_mover(&lv, "door", sweep_v3(0.8, 0.05, 0.0), 2.0, 0, sweep_v3(0, 6, 0.05), sweep_v3(-1.7, 6, 0.05));
    assert_int_equal(check(&lv).n, 0);
    lv.movers[0].keys[1].pose.position = sweep_v3(-4.5, 6, 0.05);
    found_one(&lv, SWEEP_CHECK_MOVER_CROSSES, sweep_v3(-3, 6, 1), 1.5, "passes through a solid");
    sweep_level_free(&lv);
}

/* --- the program ------------------------------------------------------- */

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

static int import(const char *args, char *out, size_t outlen)
{
    return fixture_run("bin/sweep-import", args, out, outlen);
}

static void check_program_exit_status(void **state)
{
    fixture *f = *state;
    char args[9000], text[8192], map[4200];
    /* The sample arena: nothing. */
    snprintf(args, sizeof args, "--check '%s'", fixture_build("maps/arena.db"));
    assert_int_equal(import(args, text, sizeof text), 0);
    if (!strstr(text, ": 0 findings;"))
        fail_msg("%s", text);
    /* A planted spawn in the floor: found, exit 1. */
    sweep_level lv;
    base(&lv);
    lv.spawns[0] = sweep_v3(0, 0, 0.5);
    snprintf(map, sizeof map, "%s", fixture_path(f, "planted.db"));
    sweep_map_write_options wo = {"m", 45.0, NULL, NULL, NULL};
    char err[512];
    if (sweep_map_write(map, &lv, &wo, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_level_free(&lv);
    snprintf(args, sizeof args, "--check '%s'", map);
    assert_int_equal(import(args, text, sizeof text), 1);
    if (!strstr(text, "spawn-inside at (0, 0, 0.5): spawn point 1") || !strstr(text, "1 finding (1 spawn-inside)"))
        fail_msg("%s", text);
    /* The command line: --check writes nothing. */
    snprintf(args, sizeof args, "--check '%s' -o '%s'", map, fixture_path(f, "x.db"));
    assert_int_equal(import(args, text, sizeof text), 2);
    /* Not a map: refused, exit 1. */
    assert_true(fixture_write(fixture_path(f, "junk.db"), "junk", 4));
    snprintf(args, sizeof args, "--check '%s'", fixture_path(f, "junk.db"));
    assert_int_equal(import(args, text, sizeof text), 1);
}

/* An OBJ pillar with its faces wound inward: the import warns of it, and
 * under --strict fails and writes nothing. */
static void import_warns_and_strict_refuses(void **state)
{
    fixture *f = *state;
    const char obj[] = "o floor\nv -10 0 10\nv 10 0 10\nv 10 0 -10\nv -10 0 -10\nf 1 2 3 4\n"
                       "o pillar\n"
                       "v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nv -1 2 -1\nv 1 2 -1\nv 1 2 1\nv -1 2 1\n"
                       /* each face wound clockwise seen from outside */
                       "f 8 7 6 5\nf 10 11 12 9\nf 6 10 9 5\nf 7 11 10 6\nf 8 12 11 7\nf 5 9 12 8\n"
                       "o spawn_1\n";
    char in[4200], out[4200], args[9000], text[8192];
    snprintf(in, sizeof in, "%s", fixture_path(f, "flipped.obj"));
    assert_true(fixture_write(in, obj, strlen(obj)));
    snprintf(out, sizeof out, "%s", fixture_path(f, "flipped.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' --spawn-prefix ''", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    if (!strstr(text, "warning: inside-out at (0, 0, 1): a closed shell of 12 triangles"))
        fail_msg("%s", text);
    snprintf(args, sizeof args, "--check '%s'", out);
    assert_int_equal(import(args, text, sizeof text), 1);
    /* --no-check: no check at import, so nothing to find. */
    snprintf(args, sizeof args, "'%s' -o '%s' --no-check --spawn-prefix ''", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    if (strstr(text, "inside-out") || strstr(text, "checked"))
        fail_msg("%s", text);
    assert_int_equal(remove(out), 0);
    snprintf(args, sizeof args, "'%s' -o '%s' --strict --spawn-prefix ''", in, out);
    assert_int_equal(import(args, text, sizeof text), 1);
    if (!strstr(text, "--strict: 2 warnings and 1 finding of the level check;"))
        fail_msg("%s", text);
    assert_int_not_equal(access(out, F_OK), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_clean_level_has_no_finding),
        cmocka_unit_test(spawns_in_the_floor_in_a_solid_and_in_the_air),
        cmocka_unit_test(an_inside_out_pillar_is_found),
        cmocka_unit_test(a_pocket_sealed_in_a_solid_is_no_finding),
        cmocka_unit_test(a_solid_with_a_missing_face_is_open_unless_into_a_solid),
        cmocka_unit_test(spawns_in_and_at_movers),
        cmocka_unit_test(a_mover_through_the_floor_is_found),
        cmocka_unit_test(a_mover_into_loose_brush_faces_is_in_a_pocket),
        cmocka_unit_test(a_mover_through_a_finely_cut_floor_is_found),
        cmocka_unit_test(a_terrain_is_no_open_solid),
        cmocka_unit_test(a_yard_and_a_pit_are_no_open_solids),
        cmocka_unit_test(a_crate_sliding_up_a_ramp_crosses_nothing),
        cmocka_unit_test(an_inside_out_slab_over_the_void_is_found),
        cmocka_unit_test(teleporters_with_no_room_or_in_a_loop_are_found),
        cmocka_unit_test(a_spawn_on_a_mover_does_not_float),
        cmocka_unit_test(a_mover_through_a_closed_solid_is_found),
        cmocka_unit_test(a_thin_mover_on_a_long_path_is_found),
        cmocka_unit_test(a_door_in_both_jambs_of_a_wall_is_in_pockets),
        cmocka_unit_test_setup_teardown(check_program_exit_status, setup, teardown),
        cmocka_unit_test_setup_teardown(import_warns_and_strict_refuses, setup, teardown),
    };
    return cmocka_run_group_tests_name("maps.level_check", tests, NULL, NULL);
}
