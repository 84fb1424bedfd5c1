/*
 * test_import_volumes.c - volumes from a glTF scene (maps/import.h): a
 * scene the test writes (glTF 2.0 JSON, y up, its buffer a base64 data:
 * URI) holds a floor, a jump pad marked by its name with its velocity in
 * its extras, a trigger marked by its extras alone, a kill pit by its name
 * alone and a hurting ramp whose shell is a wedge (one slanted face). The
 * importer must make each a volume of its kind and name, bound by its
 * shell turned z up (the slanted face a plane, the rest the box), and no
 * geometry of them; a player walking onto the pad is launched by the core
 * with the pad's velocity; the map written and loaded back holds the same
 * volumes, bit for bit, and sweep-import says how many it made. A shell
 * under a mirroring node is still wound outward. Pads and teleporters
 * keep to the map's speed limit, the rules' and not the core's. An open,
 * concave or inside-out shell is refused saying so, as are a push without
 * its velocity, a volume of no kind and a node both mover and volume.
 */
#include "tests/maps/map_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/motion.h"
#include "core/volume.h"
#include "maps/import.h"
#include "maps/level.h"
#include "maps/loader.h"
#include "maps/writer.h"

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

/* --- a small glTF writer ----------------------------------------------------- */

#define MAX_MESHES 8
#define MAX_VERTS 64
#define MAX_TRIS 32

/* A triangle mesh in map coordinates (z up), as a designer means it. */
typedef struct mesh {
    float v[MAX_VERTS][3];
    uint16_t t[MAX_TRIS][3];
    int nv, nt;
} mesh;

/* Appends the convex polygon p[0..n) (map coordinates), wound to face
 * away from `inside` (or towards it when `flip`), fanned into triangles;
 * each face has vertices of its own (the importer welds them). */
static void face(mesh *m, const float p[][3], int n, const float inside[3], int flip)
{
    float a[3], b[3], c[3], mid[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        a[k] = p[1][k] - p[0][k];
        b[k] = p[2][k] - p[0][k];
    }
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            mid[k] += p[i][k] / (float)n;
    float out = c[0] * (mid[0] - inside[0]) + c[1] * (mid[1] - inside[1]) + c[2] * (mid[2] - inside[2]);
    int reverse = (out < 0) != (flip != 0);
    int base = m->nv;
    for (int i = 0; i < n; i++)
        memcpy(m->v[m->nv++], p[reverse ? n - 1 - i : i], sizeof m->v[0]);
    for (int i = 1; i + 1 < n; i++) {
        m->t[m->nt][0] = (uint16_t)base;
        m->t[m->nt][1] = (uint16_t)(base + i);
        m->t[m->nt][2] = (uint16_t)(base + i + 1);
        m->nt++;
    }
}

/* The box lo..hi; `skip` leaves out face number skip (0..5; -1 none),
 * `flip` winds it inward. */
static mesh box(const float lo[3], const float hi[3], int skip, int flip)
{
    mesh m;
    memset(&m, 0, sizeof m);
    float in[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
    for (int axis = 0, f = 0; axis < 3; axis++)
        for (int side = 0; side < 2; side++, f++) {
            if (f == skip)
                continue;
            int u = (axis + 1) % 3, w = (axis + 2) % 3;
            float p[4][3];
            for (int i = 0; i < 4; i++) {
                p[i][axis] = side ? hi[axis] : lo[axis];
                p[i][u] = (i == 1 || i == 2) ? hi[u] : lo[u];
                p[i][w] = (i >= 2) ? hi[w] : lo[w];
            }
            face(&m, (const float(*)[3])p, 4, in, flip);
        }
    return m;
}

/* A wedge on x 0..2, y 0..2, rising from z 0 at y = 0 to z 1 at y = 2:
 * one slanted face, the others along axes. */
static mesh wedge(float x0)
{
    mesh m;
    memset(&m, 0, sizeof m);
    const float in[3] = {x0 + 1.0f, 1.3f, 0.3f};
    const float l[3][3] = {{x0, 0, 0}, {x0, 2, 0}, {x0, 2, 1}}, r[3][3] = {{x0 + 2, 0, 0}, {x0 + 2, 2, 0}, {x0 + 2, 2, 1}};
    const float bottom[4][3] = {{x0, 0, 0}, {x0 + 2, 0, 0}, {x0 + 2, 2, 0}, {x0, 2, 0}};
    const float back[4][3] = {{x0, 2, 0}, {x0 + 2, 2, 0}, {x0 + 2, 2, 1}, {x0, 2, 1}};
    const float slope[4][3] = {{x0, 0, 0}, {x0 + 2, 0, 0}, {x0 + 2, 2, 1}, {x0, 2, 1}};
    face(&m, l, 3, in, 0);
    face(&m, r, 3, in, 0);
    face(&m, bottom, 4, in, 0);
    face(&m, back, 4, in, 0);
    face(&m, slope, 4, in, 0);
    return m;
}

/* Writes a glTF of meshes ms[0..n) (turned y up: map (x, y, z) is file
 * (x, z, -y)), mesh i in node i named names[i] with extras[i] (JSON
 * members after the name, or ""), every node a root. */
static void write_gltf(const char *path, const mesh *ms, int n, const char *const *names, const char *const *extras)
{
    static uint8_t buf[MAX_MESHES * (MAX_VERTS * 12 + MAX_TRIS * 6 + 4)];
    static char views[8192], accs[8192], meshes[8192], nodes[8192], roots[256], json[65536];
    static char b64[sizeof buf * 4 / 3 + 8];
    size_t len = 0;
    views[0] = accs[0] = meshes[0] = nodes[0] = roots[0] = '\0';
    for (int i = 0; i < n; i++) {
        const mesh *m = &ms[i];
        float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
        size_t voff = len;
        for (int k = 0; k < m->nv; k++) {
            float f[3] = {m->v[k][0], m->v[k][2], -m->v[k][1]};
            for (int c = 0; c < 3; c++) {
                lo[c] = fminf(lo[c], f[c]), hi[c] = fmaxf(hi[c], f[c]);
                memcpy(buf + len, &f[c], 4); /* the test runs little-endian, as glTF is */
                len += 4;
            }
        }
        size_t ioff = len;
        for (int k = 0; k < m->nt; k++)
            for (int c = 0; c < 3; c++) {
                buf[len++] = (uint8_t)m->t[k][c];
                buf[len++] = (uint8_t)(m->t[k][c] >> 8);
            }
        while (len % 4)
            buf[len++] = 0;
        snprintf(views + strlen(views), sizeof views - strlen(views),
                 "%s{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu}, "
                 "{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %d}",
                 i ? ",\n  " : "", voff, ioff - voff, ioff, 6 * m->nt);
        snprintf(accs + strlen(accs), sizeof accs - strlen(accs),
                 "%s{\"bufferView\": %d, \"componentType\": 5126, \"count\": %d, \"type\": \"VEC3\", "
                 "\"min\": [%.9g, %.9g, %.9g], \"max\": [%.9g, %.9g, %.9g]}, "
                 "{\"bufferView\": %d, \"componentType\": 5123, \"count\": %d, \"type\": \"SCALAR\"}",
                 i ? ",\n  " : "", 2 * i, m->nv, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], 2 * i + 1, 3 * m->nt);
        snprintf(meshes + strlen(meshes), sizeof meshes - strlen(meshes),
                 "%s{\"name\": \"M%d\", \"primitives\": [{\"attributes\": {\"POSITION\": %d}, \"indices\": %d, "
                 "\"material\": 0}]}",
                 i ? ",\n  " : "", i, 2 * i, 2 * i + 1);
        snprintf(nodes + strlen(nodes), sizeof nodes - strlen(nodes), "%s{\"name\": \"%s\", \"mesh\": %d%s%s}",
                 i ? ",\n  " : "", names[i], i, *extras[i] ? ", " : "", extras[i]);
        snprintf(roots + strlen(roots), sizeof roots - strlen(roots), "%s%d", i ? ", " : "", i);
    }
    fixture_base64(buf, len, b64);
    int k = snprintf(json, sizeof json,
                     "{\"asset\": {\"version\": \"2.0\"},\n \"scene\": 0, \"scenes\": [{\"nodes\": [%s]}],\n"
                     " \"nodes\": [%s],\n \"meshes\": [%s],\n \"materials\": [{\"name\": \"Stuff\"}],\n"
                     " \"buffers\": [{\"byteLength\": %zu, \"uri\": \"data:application/octet-stream;base64,%s\"}],\n"
                     " \"bufferViews\": [%s],\n \"accessors\": [%s]}\n",
                     roots, nodes, meshes, len, b64, views, accs);
    assert_true(k > 0 && (size_t)k < sizeof json);
    assert_true(fixture_write(path, json, (size_t)k));
}

/* --- the scene ----------------------------------------------------------------- */

static const float FLOOR_LO[3] = {-10, -10, -1}, FLOOR_HI[3] = {10, 10, 0};
static const float PAD_LO[3] = {2, -1, 0}, PAD_HI[3] = {4, 1, 1.5f};
static const float GATE_LO[3] = {-4, -1, 0}, GATE_HI[3] = {-2, 1, 2};
static const float PIT_LO[3] = {-1, 5, -1}, PIT_HI[3] = {1, 7, 0.25f};

#define PAD_EXTRAS "\"extras\": {\"sweep_volume\": {\"velocity\": [0, 0, 12]}}"
#define GATE_EXTRAS "\"extras\": {\"sweep_volume\": {\"kind\": \"trigger\", \"name\": \"gate\"}}"
#define RAMP_EXTRAS "\"extras\": {\"sweep_volume\": {\"damage\": 5}}"

static void write_scene(const char *path)
{
    mesh ms[5] = {box(FLOOR_LO, FLOOR_HI, -1, 0), box(PAD_LO, PAD_HI, -1, 0), box(GATE_LO, GATE_HI, -1, 0),
                  box(PIT_LO, PIT_HI, -1, 0), wedge(6)};
    const char *names[5] = {"Floor", "sweep_volume_push_pad", "Gate", "sweep_volume_kill_pit",
                            "sweep_volume_hurt_ramp"};
    const char *extras[5] = {"", PAD_EXTRAS, GATE_EXTRAS, "", RAMP_EXTRAS};
    write_gltf(path, ms, 5, names, extras);
}

static sweep_import_options options(void)
{
    sweep_import_options o = {.up_axis_y = 1, .scale = 1.0, .spawn_prefix = "spawn", .mover_prefix = "mover_",
                              .volume_prefix = "sweep_volume_"};
    return o;
}

static void import_ok_with(const char *path, const sweep_import_options *o, sweep_level *lv)
{
    char err[1024];
    if (sweep_import_scene(path, o, lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
}

static void import_ok(const char *path, sweep_level *lv, sweep_import_stats *st)
{
    sweep_import_options o = options();
    char err[1024];
    if (sweep_import_scene(path, &o, lv, st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
}

static void box_is(const sweep_volume *v, const float lo[3], const float hi[3])
{
    assert_true(v->lo.x == lo[0] && v->lo.y == lo[1] && v->lo.z == lo[2]);
    assert_true(v->hi.x == hi[0] && v->hi.y == hi[1] && v->hi.z == hi[2]);
}

static void volumes_from_nodes(void **state)
{
    fixture *f = *state;
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "volumes.gltf"));
    write_scene(path);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &lv, &st);
    assert_int_equal(st.volumes, 4);
    assert_int_equal(lv.volume_count, 4);
    /* Ids in node order; named after the node without the prefix, or by
     * the extras. */
    static const char *const names[4] = {"push_pad", "gate", "kill_pit", "hurt_ramp"};
    static const sweep_volume_kind kinds[4] = {SWEEP_VOLUME_PUSH, SWEEP_VOLUME_TRIGGER, SWEEP_VOLUME_KILL,
                                               SWEEP_VOLUME_HURT};
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(lv.volumes[i].id, i + 1);
        assert_string_equal(lv.volumes[i].name, names[i]);
        assert_int_equal(lv.volumes[i].v.kind, kinds[i]);
    }
    /* Boxes turned back z up; a box's faces are all along axes: no plane. */
    box_is(&lv.volumes[0].v, PAD_LO, PAD_HI);
    box_is(&lv.volumes[1].v, GATE_LO, GATE_HI);
    box_is(&lv.volumes[2].v, PIT_LO, PIT_HI);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(lv.volumes[i].v.plane_count, 0);
    const sweep_volume *pad = &lv.volumes[0].v;
    assert_true(pad->velocity.x == 0.0 && pad->velocity.y == 0.0 && pad->velocity.z == 12.0);
    assert_true(lv.volumes[3].v.damage == 5.0);
    /* The wedge: its box and one plane, the slope, facing up and back
     * (0, -1, 2) / sqrt 5, through the edge at y = 0, z = 0. */
    const sweep_volume *ramp = &lv.volumes[3].v;
    assert_int_equal(ramp->plane_count, 1);
    const sweep_volume_plane *pl = &ramp->planes[0];
    assert_true(fabs(pl->normal.x) < 1e-9 && fabs(pl->normal.y + 1 / sqrt(5.0)) < 1e-7 &&
                fabs(pl->normal.z - 2 / sqrt(5.0)) < 1e-7);
    assert_true(fabs(pl->offset) < 1e-6);
    assert_true(sweep_volume_contains(ramp, sweep_v3(7, 1.5, 0.2)));
    assert_false(sweep_volume_contains(ramp, sweep_v3(7, 0.5, 0.5))); /* above the slope, inside the box */
    /* Only the floor is geometry: 12 triangles of its box. */
    assert_int_equal(lv.triangle_count, 12);
    assert_int_equal(st.meshes, 1);

    /* The core runs them: a player walking onto the pad is launched. */
    sweep_world *w = NULL;
    char err[256];
    assert_int_equal(sweep_map_build_world(&lv, &w, NULL, err, sizeof err), SWEEP_OK);
    sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
    sweep_actor a;
    memset(&a, 0, sizeof a);
    a.position = sweep_v3(0, 0, 0.91);
    sweep_act_result r;
    int launched = 0;
    for (int i = 0; i < 120 && !launched; i++) {
        sweep_wish wish = {sweep_v3(4, 0, 0), 0};
        assert_int_equal(sweep_act(&sp, &lv.config, &lv.rules, lv.default_radii, &a, &wish, 1.0 / 60, &r), SWEEP_OK);
        launched = (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) != 0;
    }
    assert_true(launched);
    assert_int_equal(r.volumes.launched_by, 0);
    sweep_world_destroy(w);

    /* Written and loaded back: the same volumes, bit for bit. */
    char db[4200];
    snprintf(db, sizeof db, "%s", fixture_path(f, "volumes.db"));
    sweep_map_write_options wo = {.units = "m", .walkable_slope_deg = 45.0};
    snprintf(lv.name, sizeof lv.name, "volumes");
    if (sweep_map_write(db, &lv, &wo, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_level back;
    assert_int_equal(sweep_map_load(db, &back, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(back.volume_count, 4);
    for (uint32_t i = 0; i < 4; i++) {
        assert_string_equal(back.volumes[i].name, lv.volumes[i].name);
        const sweep_volume *x = &back.volumes[i].v, *y = &lv.volumes[i].v;
        assert_int_equal(x->kind, y->kind);
        assert_memory_equal(&x->lo, &y->lo, sizeof x->lo);
        assert_memory_equal(&x->hi, &y->hi, sizeof x->hi);
        assert_int_equal(x->plane_count, y->plane_count);
        assert_memory_equal(x->planes, y->planes, x->plane_count * sizeof x->planes[0]);
    }
    sweep_level_free(&back);
    sweep_level_free(&lv);

    /* No prefix: only the gate, by its extras, is a volume; the others are
     * geometry again, or refused where their extras need a kind. */
    sweep_import_options o = options();
    o.volume_prefix = NULL;
    assert_int_equal(sweep_import_scene(path, &o, &lv, &st, err, sizeof err), SWEEP_E_GEOMETRY);
    if (!strstr(err, "no kind"))
        fail_msg("error '%s' lacks 'no kind'", err);
}

/* The program says how many it made. */
static void program_reports_volumes(void **state)
{
    fixture *f = *state;
    char path[4200], db[4200], args[9000], out[4096];
    snprintf(path, sizeof path, "%s", fixture_path(f, "volumes.gltf"));
    write_scene(path);
    snprintf(db, sizeof db, "%s", fixture_path(f, "out.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' --no-check", path, db);
    int rc = fixture_run("bin/sweep-import", args, out, sizeof out);
    if (rc != 0)
        fail_msg("sweep-import: %d: %s", rc, out);
    if (!strstr(out, "4 volumes"))
        fail_msg("no '4 volumes' in: %s", out);
}

/* A shell under a mirroring node (its x scaled by -1) is still wound
 * outward: glTF flips the winding of a mirrored node's triangles. The pad
 * lands mirrored, at map x -4..-2. */
static void mirrored_shell_is_a_volume(void **state)
{
    fixture *f = *state;
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "mirrored.gltf"));
    mesh ms[2] = {box(FLOOR_LO, FLOOR_HI, -1, 0), box(PAD_LO, PAD_HI, -1, 0)};
    const char *names[2] = {"Floor", "sweep_volume_push_pad"}, *extras[2] = {"", "\"scale\": [-1, 1, 1], " PAD_EXTRAS};
    write_gltf(path, ms, 2, names, extras);
    sweep_level lv;
    import_ok(path, &lv, NULL);
    assert_int_equal(lv.volume_count, 1);
    const float lo[3] = {-PAD_HI[0], PAD_LO[1], PAD_LO[2]}, hi[3] = {-PAD_LO[0], PAD_HI[1], PAD_HI[2]};
    box_is(&lv.volumes[0].v, lo, hi);
    assert_true(sweep_volume_contains(&lv.volumes[0].v, sweep_v3(-3, 0, 1)));
    sweep_level_free(&lv);
}

/* Writes the floor and one volume node `name` with `extras` to path. */
static void write_one_volume(const char *path, const char *name, const char *extras)
{
    mesh ms[2] = {box(FLOOR_LO, FLOOR_HI, -1, 0), box(PAD_LO, PAD_HI, -1, 0)};
    const char *names[2] = {"Floor", name}, *ex[2] = {"", extras};
    write_gltf(path, ms, 2, names, ex);
}

/* Pads and teleporters are checked against the speed limit the map will
 * have: the default rules' 60 units/s, or the speed_limit a --rules file
 * gives, not the core's own bound of 1000 (which let a pad of 900 through
 * to a map that then did not load, and refused one of 1001 for a map
 * whose limit was 2400). The error names both speeds. */
static void volume_speeds_keep_to_the_map_limit(void **state)
{
    fixture *f = *state;
    char path[4200], db[4200], rules[4200], args[13000], out[4096], err[1024];
    snprintf(path, sizeof path, "%s", fixture_path(f, "fast.gltf"));
    sweep_import_options o = options();
    sweep_level lv;
    write_one_volume(path, "sweep_volume_push_pad", "\"extras\": {\"sweep_volume\": {\"velocity\": [0, 0, 61]}}");
    assert_int_equal(sweep_import_scene(path, &o, &lv, NULL, err, sizeof err), SWEEP_E_GEOMETRY);
    if (!strstr(err, "volume 'push_pad' (node 'sweep_volume_push_pad'): its launch speed 61 is above the map's "
                     "speed limit 60"))
        fail_msg("error '%s'", err);
    write_one_volume(path, "sweep_volume_teleport_tp",
                     "\"extras\": {\"sweep_volume\": {\"destination\": [0, 0, 1], \"exit_speed\": 70}}");
    assert_int_equal(sweep_import_scene(path, &o, &lv, NULL, err, sizeof err), SWEEP_E_GEOMETRY);
    if (!strstr(err, "its exit speed 70 is above the map's speed limit 60"))
        fail_msg("error '%s'", err);
    o.speed_limit = 2400.0;
    write_one_volume(path, "sweep_volume_push_pad", "\"extras\": {\"sweep_volume\": {\"velocity\": [0, 0, 1001]}}");
    import_ok_with(path, &o, &lv);
    assert_true(lv.volume_count == 1 && lv.volumes[0].v.velocity.z == 1001.0);
    sweep_level_free(&lv);

    /* The program: the limit of its --rules file, or the default rules'. */
    snprintf(db, sizeof db, "%s", fixture_path(f, "fast.db"));
    snprintf(rules, sizeof rules, "%s", fixture_path(f, "fast.rules"));
    assert_true(fixture_write(rules, "speed_limit = 2400\n", 19));
    snprintf(args, sizeof args, "'%s' -o '%s' --no-check --rules '%s'", path, db, rules);
    int rc = fixture_run("bin/sweep-import", args, out, sizeof out);
    if (rc != 0)
        fail_msg("sweep-import: %d: %s", rc, out);
    assert_int_equal(sweep_map_load(db, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_true(lv.volume_count == 1 && lv.volumes[0].v.velocity.z == 1001.0);
    sweep_level_free(&lv);
    assert_int_equal(remove(db), 0);
    write_one_volume(path, "sweep_volume_push_pad", "\"extras\": {\"sweep_volume\": {\"velocity\": [0, 0, 900]}}");
    snprintf(args, sizeof args, "'%s' -o '%s' --no-check", path, db);
    assert_int_equal(fixture_run("bin/sweep-import", args, out, sizeof out), 1);
    if (!strstr(out, "its launch speed 900 is above the map's speed limit 60"))
        fail_msg("output '%s'", out);
    assert_int_equal(access(db, F_OK), -1);
}

static void refused(fixture *f, const mesh *m, const char *name, const char *extras, const char *expect)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "bad.gltf"));
    mesh ms[2] = {box(FLOOR_LO, FLOOR_HI, -1, 0), *m};
    const char *names[2] = {"Floor", name}, *ex[2] = {"", extras};
    write_gltf(path, ms, 2, names, ex);
    sweep_import_options o = options();
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) == SWEEP_OK)
        fail_msg("a scene that should fail with '%s' imported (%u volumes, v %g %g %g)", expect, lv.volume_count,
                 lv.volume_count ? lv.volumes[0].v.velocity.x : 0, lv.volume_count ? lv.volumes[0].v.velocity.y : 0,
                 lv.volume_count ? lv.volumes[0].v.velocity.z : 0);
    if (!strstr(err, expect))
        fail_msg("error '%s' lacks '%s'", err, expect);
    assert_int_equal(lv.volume_count, 0);
}

static void bad_shells_and_extras_are_refused(void **state)
{
    fixture *f = *state;
    mesh open = box(PAD_LO, PAD_HI, 5, 0), inside_out = box(PAD_LO, PAD_HI, -1, 1), dent = box(PAD_LO, PAD_HI, -1, 0);
    /* A corner of the top pushed down into the box: its faces fold in. */
    for (int k = 0; k < dent.nv; k++)
        if (dent.v[k][0] == PAD_HI[0] && dent.v[k][1] == PAD_HI[1] && dent.v[k][2] == PAD_HI[2])
            dent.v[k][2] = 0.1f;
    mesh fine = box(PAD_LO, PAD_HI, -1, 0);
    refused(f, &open, "sweep_volume_trigger_open", "", "not a closed shell");
    refused(f, &inside_out, "sweep_volume_trigger_inv", "", "wound inside out");
    refused(f, &dent, "sweep_volume_trigger_dent", "", "not convex");
    refused(f, &fine, "sweep_volume_push_x", "", "a push volume needs its velocity");
    refused(f, &fine, "sweep_volume_bounce", "", "no kind");
    /* Kinds of the core a scene cannot give all they need (a liquid's
     * kind, a ladder's normal): named, with the kinds a scene may use. */
    refused(f, &fine, "sweep_volume_liquid_pool", "",
            "volume node 'sweep_volume_liquid_pool': kind 'liquid' is not one a scene's volume may have (push, "
            "teleport, hurt, kill or trigger");
    refused(f, &fine, "Thing", "\"extras\": {\"sweep_volume\": {\"kind\": \"ladder\"}}",
            "volume node 'Thing': kind 'ladder' is not one a scene's volume may have");
    refused(f, &fine, "Thing", "\"extras\": {\"sweep_volume\": {\"kind\": \"hurt\", \"damage\": \"much\"}}",
            "sweep_volume damage must be a number");
    refused(f, &fine, "Thing", "\"extras\": {\"sweep_volume\": {\"kind\": \"trigger\", \"colour\": 1}}",
            "unknown key 'colour'");
    refused(f, &fine, "mover_gate", "\"extras\": {\"sweep_volume\": {\"kind\": \"trigger\"}}",
            "both a mover and a volume");
    /* The core's own limits: a launch faster than the map allows. */
    refused(f, &fine, "sweep_volume_push_fast", "\"extras\": {\"sweep_volume\": {\"velocity\": [0, 0, 5000]}}",
            "volume 'push_fast'");
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(volumes_from_nodes, setup, teardown),
        cmocka_unit_test_setup_teardown(program_reports_volumes, setup, teardown),
        cmocka_unit_test_setup_teardown(mirrored_shell_is_a_volume, setup, teardown),
        cmocka_unit_test_setup_teardown(volume_speeds_keep_to_the_map_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_shells_and_extras_are_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
