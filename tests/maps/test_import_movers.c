/*
 * test_import_movers.c - movers from sweep-import: a glTF 2.0 scene the
 * test writes (JSON with a base64 data: URI buffer) holds a static floor,
 * a lift (mover by its name, rules in its extras) that rises, a door (mover
 * by its extras only) that swings under a turned parent, and an animated
 * node that is no mover. The importer, called in-process, must give the
 * lift and the door their meshes in their own frames and keyframes whose
 * poses put every vertex where the file's animation does, turned z up;
 * the core must accept them. An OBJ with a --movers side file makes the
 * same kinds of movers; broken side files and broken mover nodes are
 * refused with the file, line or node named. A mover mirrored by its node
 * (from the scene or the side file) keeps its faces' fronts. The
 * sweep-import program prints the count and leaves nothing behind on an
 * error; a map it (or sweep_map_write) writes loads back with the same
 * movers, bit for bit.
 */
#include "tests/maps/map_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/mover.h"
#include "core/quat.h"
#include "maps/import.h"
#include "maps/level.h"
#include "maps/loader.h"
#include "maps/writer.h"

#define TOL 1e-6
#define S45 0.70710678118654752

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

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= TOL))
        fail_msg("%s: got %.9g, want %.9g", what, got, want);
}

static void near_v3(sweep_vec3 got, double x, double y, double z, const char *what)
{
    if (!(fabs(got.x - x) <= TOL && fabs(got.y - y) <= TOL && fabs(got.z - z) <= TOL))
        fail_msg("%s: got (%.9g, %.9g, %.9g), want (%.9g, %.9g, %.9g)", what, got.x, got.y, got.z, x, y, z);
}

/* Same rotation (q or -q) within the tolerance. */
static void near_q(sweep_quat got, double x, double y, double z, double w, const char *what)
{
    double s = got.x * x + got.y * y + got.z * z + got.w * w < 0.0 ? -1.0 : 1.0;
    if (!(fabs(s * got.x - x) <= TOL && fabs(s * got.y - y) <= TOL && fabs(s * got.z - z) <= TOL &&
          fabs(s * got.w - w) <= TOL))
        fail_msg("%s: got (%.9g, %.9g, %.9g, %.9g), want (%.9g, %.9g, %.9g, %.9g)", what, got.x, got.y, got.z,
                 got.w, x, y, z, w);
    near(sweep_quat_dot(got, got), 1.0, "unit quaternion");
}

/* --- a glTF 2.0 file, written from parts --------------------------------- */

/* The binary buffer and the accessors over it, built in order. */
typedef struct gltf_data {
    uint8_t buf[4096];
    size_t len;
    char views[4096], accessors[4096];
    int count;
} gltf_data;

static void put_u32(gltf_data *g, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        g->buf[g->len++] = (uint8_t)(v >> (8 * k)); /* glTF is little-endian */
}

/* An accessor of `count` float elements of `comps` components (SCALAR, VEC3
 * or VEC4), with its min and max; returns its index. */
static int acc_float(gltf_data *g, const float *v, int count, int comps)
{
    static const char *types[] = {"", "SCALAR", "", "VEC3", "VEC4"};
    size_t off = g->len;
    char mn[200] = "", mx[200] = "";
    for (int c = 0; c < comps; c++) {
        float lo = v[c], hi = v[c];
        for (int i = 0; i < count; i++) {
            lo = fminf(lo, v[i * comps + c]);
            hi = fmaxf(hi, v[i * comps + c]);
        }
        snprintf(mn + strlen(mn), sizeof mn - strlen(mn), "%s%.9g", c ? ", " : "", lo);
        snprintf(mx + strlen(mx), sizeof mx - strlen(mx), "%s%.9g", c ? ", " : "", hi);
    }
    for (int i = 0; i < count * comps; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        put_u32(g, u);
    }
    snprintf(g->views + strlen(g->views), sizeof g->views - strlen(g->views),
             "%s{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu}", g->count ? ",\n  " : "", off,
             g->len - off);
    snprintf(g->accessors + strlen(g->accessors), sizeof g->accessors - strlen(g->accessors),
             "%s{\"bufferView\": %d, \"componentType\": 5126, \"count\": %d, \"type\": \"%s\", \"min\": [%s], "
             "\"max\": [%s]}",
             g->count ? ",\n  " : "", g->count, count, types[comps], mn, mx);
    return g->count++;
}

static int acc_indices(gltf_data *g, const uint16_t *v, int count)
{
    size_t off = g->len;
    for (int i = 0; i < count; i++) {
        g->buf[g->len++] = (uint8_t)v[i];
        g->buf[g->len++] = (uint8_t)(v[i] >> 8);
    }
    while (g->len % 4)
        g->buf[g->len++] = 0;
    snprintf(g->views + strlen(g->views), sizeof g->views - strlen(g->views),
             "%s{\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %d}", g->count ? ",\n  " : "", off, 2 * count);
    snprintf(g->accessors + strlen(g->accessors), sizeof g->accessors - strlen(g->accessors),
             "%s{\"bufferView\": %d, \"componentType\": 5123, \"count\": %d, \"type\": \"SCALAR\"}",
             g->count ? ",\n  " : "", g->count, count);
    return g->count++;
}

/*
 * The scene, y up, in file units:
 *   accessor 0: floor quad 10 x 10 at y = 0    1: its indices (shared)
 *   2: lift platform 2 x 2 at y = 0 (its node's frame)
 *   3: door panel 1 wide, 2 high, in its node's x-y plane
 *   4, 5: lift times 0 and 2 s, translations (2, 0, -3) and (2, 4, -3)
 *   6, 7: door times 0.5 and 1.5 s, rotations identity and 90 degrees about y
 *   8, 9: spinner times 0 and 1 s, rotations identity and 90 degrees about y
 *   10: scales (1, 1, 1) and (2, 2, 2) at the lift's times
 *   11: translations (0, 0, 0) and (0, 1, 0) at the spinner's times
 *   12: times 1.5 and 1.5 s    13: times -0.5 and 1 s
 * Meshes: 0 floor, 1 lift, 2 door. Samplers: 0 lift translation, 1 door
 * rotation, 2 spinner rotation, 3 scale, 4 a rise of 1 in 1 s, 5 and 6
 * the lift's translations at the times of 12 and 13. The nodes, the
 * scene's root nodes and the channels are the caller's JSON.
 */
static void write_scene(const char *path, const char *nodes, const char *roots, const char *channels)
{
    gltf_data *g = calloc(1, sizeof *g);
    assert_non_null(g);
    const float floor_pos[] = {0, 0, 0, 10, 0, 0, 10, 0, -10, 0, 0, -10};
    const uint16_t idx[] = {0, 1, 2, 0, 2, 3};
    const float lift_pos[] = {0, 0, 0, 2, 0, 0, 2, 0, -2, 0, 0, -2};
    const float door_pos[] = {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0};
    const float lift_t[] = {0, 2}, lift_v[] = {2, 0, -3, 2, 4, -3};
    const float door_t[] = {0.5f, 1.5f}, turn[] = {0, 0, 0, 1, 0, (float)S45, 0, (float)S45};
    const float spin_t[] = {0, 1}, scales[] = {1, 1, 1, 2, 2, 2}, rise[] = {0, 0, 0, 0, 1, 0};
    assert_int_equal(acc_float(g, floor_pos, 4, 3), 0);
    assert_int_equal(acc_indices(g, idx, 6), 1);
    assert_int_equal(acc_float(g, lift_pos, 4, 3), 2);
    assert_int_equal(acc_float(g, door_pos, 4, 3), 3);
    acc_float(g, lift_t, 2, 1), acc_float(g, lift_v, 2, 3);
    acc_float(g, door_t, 2, 1), acc_float(g, turn, 2, 4);
    acc_float(g, spin_t, 2, 1), acc_float(g, turn, 2, 4);
    assert_int_equal(acc_float(g, scales, 2, 3), 10);
    assert_int_equal(acc_float(g, rise, 2, 3), 11);
    const float same_t[] = {1.5f, 1.5f}, before_t[] = {-0.5f, 1};
    assert_int_equal(acc_float(g, same_t, 2, 1), 12);
    assert_int_equal(acc_float(g, before_t, 2, 1), 13);
    char *b64 = malloc(4 * g->len / 3 + 8);
    assert_non_null(b64);
    fixture_base64(g->buf, g->len, b64);
    size_t cap = 32768;
    char *json = malloc(cap);
    assert_non_null(json);
    int n =
        snprintf(json, cap,
                 "{\"asset\": {\"version\": \"2.0\"},\n"
                 " \"scene\": 0, \"scenes\": [{\"nodes\": [%s]}],\n"
                 " \"nodes\": [%s],\n"
                 " \"meshes\": [{\"name\": \"FloorMesh\", \"primitives\": [{\"attributes\": {\"POSITION\": 0}, "
                 "\"indices\": 1, \"material\": 0}]},\n"
                 "  {\"name\": \"LiftMesh\", \"primitives\": [{\"attributes\": {\"POSITION\": 2}, \"indices\": 1, "
                 "\"material\": 1}]},\n"
                 "  {\"name\": \"DoorMesh\", \"primitives\": [{\"attributes\": {\"POSITION\": 3}, \"indices\": 1, "
                 "\"material\": 1}]}],\n"
                 " \"materials\": [{\"name\": \"Ground\"}, {\"name\": \"Metal\"}],\n"
                 " \"animations\": [{\"name\": \"run\", \"samplers\": [{\"input\": 4, \"output\": 5}, {\"input\": 6, "
                 "\"output\": 7},\n"
                 "   {\"input\": 8, \"output\": 9}, {\"input\": 4, \"output\": 10}, {\"input\": 8, \"output\": 11},\n"
                 "   {\"input\": 12, \"output\": 5}, {\"input\": 13, \"output\": 5}],\n"
                 "   \"channels\": [%s]}],\n"
                 " \"buffers\": [{\"byteLength\": %zu, \"uri\": \"data:application/octet-stream;base64,%s\"}],\n"
                 " \"bufferViews\": [%s],\n"
                 " \"accessors\": [%s]}\n",
                 roots, nodes, channels, g->len, b64, g->views, g->accessors);
    assert_true(n > 0 && (size_t)n < cap);
    assert_true(fixture_write(path, json, (size_t)n));
    free(json);
    free(b64);
    free(g);
}

#define LIFT_EXTRAS                                                                                            \
    "\"extras\": {\"sweep_mover\": {\"mode\": \"once\", \"trigger\": \"volume\", \"blocked\": \"reverse\", "    \
    "\"wait_start\": 1, \"wait_end\": 2.5, \"volume\": [1, 1, 0, 5, 5, 2.5]}}"

static const char scene_nodes[] =
    "{\"name\": \"Floor\", \"mesh\": 0},\n"
    "  {\"name\": \"mover_lift\", \"mesh\": 1, \"translation\": [2, 0, -3], " LIFT_EXTRAS "},\n"
    "  {\"name\": \"House\", \"rotation\": [0, 0.707106781, 0, 0.707106781], \"translation\": [5, 0, 0], \"children\": [3]},\n"
    "  {\"name\": \"DoorHinge\", \"mesh\": 2, \"translation\": [1, 0, 0],"
    " \"extras\": {\"sweep_mover\": {\"name\": \"door\", \"trigger\": \"touch\"}, \"note\": \"kept\"}},\n"
    "  {\"name\": \"Spinner\", \"mesh\": 0, \"translation\": [0, 5, 0]}";
static const char scene_roots[] = "0, 1, 2, 4";
static const char scene_channels[] =
    "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}},\n"
    "   {\"sampler\": 1, \"target\": {\"node\": 3, \"path\": \"rotation\"}},\n"
    "   {\"sampler\": 2, \"target\": {\"node\": 4, \"path\": \"rotation\"}}";

/* The meshes here are open quads, two-sided by default; these tests look
 * at the file's own triangles (frames, fronts), so they ask for one-sided
 * ones (test_import_sides.c tests the sides, of movers too). */
static sweep_import_options options(void)
{
    sweep_import_options o = {.up_axis_y = 1, .scale = 1.0, .spawn_prefix = "spawn", .mover_prefix = "mover_",
                              .sides = SWEEP_SIDES_ONE};
    return o;
}

static const sweep_level_mover *mover_named(const sweep_level *lv, const char *name)
{
    uint32_t i = sweep_level_find_mover(lv, name);
    if (i == SWEEP_NO_MOVER)
        fail_msg("no mover '%s' in the imported level", name);
    return &lv->movers[i];
}

/* Where local vertex v of mover m is at keyframe k. */
static sweep_vec3 placed(const sweep_level_mover *m, uint32_t k, sweep_vec3 v)
{
    const sweep_mover_pose *p = &m->keys[k].pose;
    return sweep_v3_add(sweep_quat_rotate(p->rotation, v), p->position);
}

/* Mover m has a vertex at local position (x, y, z). */
static uint32_t local_vertex(const sweep_level_mover *m, double x, double y, double z)
{
    for (uint32_t i = 0; i < m->vertex_count; i++)
        if (fabs(m->vertices[i].x - x) <= TOL && fabs(m->vertices[i].y - y) <= TOL &&
            fabs(m->vertices[i].z - z) <= TOL)
            return i;
    fail_msg("mover '%s' has no local vertex (%g, %g, %g)", m->name, x, y, z);
    return 0;
}

static void check_lift(const sweep_level_mover *lift, double k)
{
    assert_int_equal(lift->triangle_count, 2);
    assert_int_equal(lift->key_count, 2);
    /* The platform in its own frame, z up: file (x, 0, -z) -> (x, z, 0). */
    local_vertex(lift, 0, 0, 0), local_vertex(lift, 2 * k, 0, 0);
    local_vertex(lift, 2 * k, 2 * k, 0), local_vertex(lift, 0, 2 * k, 0);
    /* Both faces up (the front survives the turn to z up). */
    const sweep_vec3 *v = lift->vertices;
    for (uint32_t t = 0; t < lift->triangle_count; t++) {
        const uint32_t *ix = &lift->indices[3 * t];
        assert_true(sweep_v3_cross(sweep_v3_sub(v[ix[1]], v[ix[0]]), sweep_v3_sub(v[ix[2]], v[ix[0]])).z > 0.0);
    }
    near(lift->keys[0].time, 0.0, "lift key 0 time");
    near(lift->keys[1].time, 2.0, "lift key 1 time");
    /* File (2, 0, -3) -> map (2, 3, 0); (2, 4, -3) -> (2, 3, 4). */
    near_v3(lift->keys[0].pose.position, 2 * k, 3 * k, 0, "lift key 0 position");
    near_v3(lift->keys[1].pose.position, 2 * k, 3 * k, 4 * k, "lift key 1 position");
    near_q(lift->keys[0].pose.rotation, 0, 0, 0, 1, "lift key 0 rotation");
    near_q(lift->keys[1].pose.rotation, 0, 0, 0, 1, "lift key 1 rotation");
    /* The rules from its extras. */
    assert_int_equal(lift->mode, SWEEP_MOVER_ONCE);
    assert_int_equal(lift->trigger, SWEEP_TRIGGER_VOLUME);
    assert_int_equal(lift->blocked, SWEEP_BLOCKED_REVERSE);
    near(lift->wait_start, 1.0, "lift wait_start");
    near(lift->wait_end, 2.5, "lift wait_end");
    near_v3(lift->volume_min, 1, 1, 0, "lift volume min");
    near_v3(lift->volume_max, 5, 5, 2.5, "lift volume max");
}

static void check_door(const sweep_level_mover *door, double k)
{
    assert_int_equal(door->triangle_count, 2);
    assert_int_equal(door->mode, SWEEP_MOVER_PINGPONG);
    assert_int_equal(door->trigger, SWEEP_TRIGGER_TOUCH);
    assert_int_equal(door->blocked, SWEEP_BLOCKED_STOP);
    /* The channel's keys at 0.5 and 1.5 s, after a first one at 0 (its
     * translation key, from the node's rest pose, sits at time 0). */
    assert_int_equal(door->key_count, 3);
    near(door->keys[0].time, 0.0, "door key 0 time");
    near(door->keys[1].time, 0.5, "door key 1 time");
    near(door->keys[2].time, 1.5, "door key 2 time");
    /* The panel in the hinge's frame, z up: file (x, y, 0) -> (x, 0, y). */
    uint32_t far_low = local_vertex(door, 1 * k, 0, 0), far_top = local_vertex(door, 1 * k, 0, 2 * k);
    local_vertex(door, 0, 0, 0), local_vertex(door, 0, 0, 2 * k);
    /* The hinge: file (1, 0, 0) under House (turned 90 degrees about y,
     * moved to (5, 0, 0)) is file (5, 0, -1), map (5, 1, 0). */
    for (uint32_t i = 0; i < 3; i++)
        near_v3(door->keys[i].pose.position, 5 * k, 1 * k, 0, "door hinge position");
    /* House turns it 90 degrees about file y (map z); the animation another
     * 0 then 90: 90, 90, 180 degrees about map z. */
    near_q(door->keys[0].pose.rotation, 0, 0, S45, S45, "door key 0 rotation");
    near_q(door->keys[1].pose.rotation, 0, 0, S45, S45, "door key 1 rotation");
    near_q(door->keys[2].pose.rotation, 0, 0, 1, 0, "door key 2 rotation");
    /* Where the file's animation puts the panel's far edge: at rest, file
     * Ry(90) (1, 0, 0) + (1, 0, 0) = (1, 0, -1), under House (5, 0, -1)...
     * worked out by hand as map points. */
    near_v3(placed(door, 0, door->vertices[far_low]), 5 * k, 2 * k, 0, "door far edge at rest");
    near_v3(placed(door, 2, door->vertices[far_low]), 4 * k, 1 * k, 0, "door far edge open");
    near_v3(placed(door, 2, door->vertices[far_top]), 4 * k, 1 * k, 2 * k, "door far top open");
}

static void gltf_movers(void **state)
{
    fixture *f = *state;
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "movers.gltf"));
    write_scene(path, scene_nodes, scene_roots, scene_channels);
    sweep_import_options o = options();
    sweep_level lv;
    sweep_import_stats st;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(st.movers, 2);
    assert_int_equal(st.movers_from_file, 0);
    assert_int_equal(st.mover_triangles, 4);
    assert_int_equal(st.animated_static, 1); /* the spinner */
    assert_int_equal(lv.mover_count, 2);
    /* Ids in node order; the lift is named after its node, the door by its extras. */
    assert_string_equal(lv.movers[0].name, "lift");
    assert_int_equal(lv.movers[0].id, 1);
    assert_string_equal(lv.movers[1].name, "door");
    assert_int_equal(lv.movers[1].id, 2);
    check_lift(mover_named(&lv, "lift"), 1.0);
    check_door(mover_named(&lv, "door"), 1.0);

    /* Static geometry: the floor, and the spinner at its rest pose (y 5 -> z 5). */
    assert_int_equal(lv.triangle_count, 4);
    uint32_t high = 0;
    for (uint32_t i = 0; i < lv.vertex_count; i++) {
        assert_true(lv.vertices[i].z == 0.0 || lv.vertices[i].z == 5.0);
        high += lv.vertices[i].z == 5.0;
    }
    assert_int_equal(high, 4);

    /* The core takes them, and runs the lift up 4 in 2 s (120 ticks at 60/s). */
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK);
    assert_int_equal(sweep_movers_count(mv), 2);
    assert_int_equal(sweep_movers_path_ticks(mv, 0), 120);
    sweep_mover_pose half = sweep_movers_path_pose(mv, 0, 60);
    near_v3(half.position, 2, 3, 2, "lift halfway");
    sweep_movers_destroy(mv);
    sweep_level_free(&lv);

    /* Scaled twice: positions, local vertices and the box-free parts scale;
     * rotations do not. (The volume is in map coordinates already.) */
    o.scale = 2.0;
    if (sweep_import_scene(path, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    check_door(mover_named(&lv, "door"), 2.0);
    const sweep_level_mover *lift = mover_named(&lv, "lift");
    near_v3(lift->keys[1].pose.position, 4, 6, 8, "scaled lift top");
    sweep_level_free(&lv);

    /* No prefix: both are still movers by their extras, the lift now named
     * after its whole node name. */
    o.scale = 1.0;
    o.mover_prefix = NULL;
    if (sweep_import_scene(path, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(lv.mover_count, 2);
    assert_string_equal(lv.movers[0].name, "mover_lift");
    assert_string_equal(lv.movers[1].name, "door");
    assert_int_equal(st.animated_static, 1);
    assert_int_equal(lv.triangle_count, 4);
    sweep_level_free(&lv);
}

/* A z-up file: no axis turn, so the file's own quaternions come through. */
static void gltf_movers_z_up(void **state)
{
    fixture *f = *state;
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "movers.gltf"));
    write_scene(path, scene_nodes, scene_roots, scene_channels);
    sweep_import_options o = options();
    o.up_axis_y = 0;
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    const sweep_level_mover *door = mover_named(&lv, "door");
    near_v3(door->keys[0].pose.position, 5, 0, -1, "z-up door hinge");
    near_q(door->keys[0].pose.rotation, 0, S45, 0, S45, "z-up door at rest");
    near_q(door->keys[2].pose.rotation, 0, 1, 0, 0, "z-up door open");
    const sweep_level_mover *lift = mover_named(&lv, "lift");
    near_v3(lift->keys[1].pose.position, 2, 4, -3, "z-up lift top");
    local_vertex(lift, 2, 0, -2);
    sweep_level_free(&lv);
}

/* Translation keys at 0 and 2 s and rotation keys at 0.5 and 1.5 s make
 * one time line 0, 0.5, 1.5, 2, each part interpolated (or held) at the
 * other's times; a uniformly scaling parent scales the mesh and the path. */
static void merged_time_line_and_parent_scale(void **state)
{
    fixture *f = *state;
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "combo.gltf"));
    write_scene(path,
                "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_combo\", \"mesh\": 1},"
                "{\"name\": \"Big\", \"scale\": [2, 2, 2], \"children\": [1]}",
                "0, 2",
                "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}},"
                "{\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"rotation\"}}");
    sweep_import_options o = options();
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    const sweep_level_mover *m = mover_named(&lv, "combo");
    assert_int_equal(m->key_count, 4);
    const double t[] = {0, 0.5, 1.5, 2};
    /* File (2, 4u, -3) under Big -> map (4, 6, 8u). */
    const double z[] = {0, 2, 6, 8};
    for (uint32_t k = 0; k < 4; k++) {
        near(m->keys[k].time, t[k], "combo key time");
        near_v3(m->keys[k].pose.position, 4, 6, z[k], "combo key position");
    }
    near_q(m->keys[0].pose.rotation, 0, 0, 0, 1, "combo held before its first rotation key");
    near_q(m->keys[1].pose.rotation, 0, 0, 0, 1, "combo at its first rotation key");
    near_q(m->keys[2].pose.rotation, 0, 0, S45, S45, "combo at its last rotation key");
    near_q(m->keys[3].pose.rotation, 0, 0, S45, S45, "combo held after its last rotation key");
    local_vertex(m, 4, 4, 0); /* the 2 x 2 platform, twice as big */
    sweep_level_free(&lv);

    /* A rotation key span (0.5 to 1.5 s) with a translation key (sampler 4:
     * 0 and 1 s) inside it: at 1 s the rotation is nlerped halfway, 45
     * degrees; the translation is lerped at 0.5 s and held at 1.5 s. */
    write_scene(path, "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_combo\", \"mesh\": 1}", "0, 1",
                "{\"sampler\": 1, \"target\": {\"node\": 1, \"path\": \"rotation\"}},"
                "{\"sampler\": 4, \"target\": {\"node\": 1, \"path\": \"translation\"}}");
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    m = mover_named(&lv, "combo");
    assert_int_equal(m->key_count, 4);
    const double t2[] = {0, 0.5, 1, 1.5}, z2[] = {0, 0.5, 1, 1};
    for (uint32_t k = 0; k < 4; k++) {
        near(m->keys[k].time, t2[k], "combo key time");
        near_v3(m->keys[k].pose.position, 0, 0, z2[k], "combo key position");
    }
    near_q(m->keys[2].pose.rotation, 0, 0, 0.38268343236508977, 0.92387953251128676, "combo halfway turned");
    sweep_level_free(&lv);

    /* Extras "sweep_mover": true or {} make a mover with the default rules,
     * named after its node. */
    write_scene(path,
                "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"Gate\", \"mesh\": 1, \"extras\": {\"sweep_mover\": true}},"
                "{\"name\": \"Hatch\", \"mesh\": 1, \"extras\": {\"sweep_mover\": {}}}",
                "0, 1, 2",
                "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}},"
                "{\"sampler\": 0, \"target\": {\"node\": 2, \"path\": \"translation\"}}");
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(lv.mover_count, 2);
    for (uint32_t i = 0; i < 2; i++) {
        const sweep_level_mover *g = mover_named(&lv, i ? "Hatch" : "Gate");
        assert_int_equal(g->mode, SWEEP_MOVER_PINGPONG);
        assert_int_equal(g->trigger, SWEEP_TRIGGER_ALWAYS);
        assert_int_equal(g->blocked, SWEEP_BLOCKED_STOP);
        assert_true(g->wait_start == 0.0 && g->wait_end == 0.0);
        assert_int_equal(g->key_count, 2);
    }
    sweep_level_free(&lv);
}

/* Expects the import of a scene with these nodes and channels to fail
 * with `expect` in the message. */
static void scene_refused(fixture *f, const char *nodes, const char *roots, const char *channels, const char *expect)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "bad.gltf"));
    write_scene(path, nodes, roots, channels);
    sweep_import_options o = options();
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) == SWEEP_OK)
        fail_msg("a scene that should fail with '%s' imported", expect);
    if (!strstr(err, expect))
        fail_msg("error '%s' lacks '%s'", err, expect);
    assert_int_equal(lv.mover_count, 0);
    assert_int_equal(lv.triangle_count, 0);
}

static void bad_mover_nodes_are_refused(void **state)
{
    fixture *f = *state;
    const char *lift_ch = "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}}";
    /* Named a mover, but nothing animates it. */
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"Plain\", \"mesh\": 1},"
                  "{\"name\": \"mover_gate\", \"mesh\": 1}",
                  "0, 1, 2", lift_ch, "mover 'gate' (node 'mover_gate') has no animation");
    /* A scale that changes over the animation. */
    scene_refused(f, "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1}", "0, 1",
                  "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}},"
                  "{\"sampler\": 3, \"target\": {\"node\": 1, \"path\": \"scale\"}}",
                  "scale changes over the animation");
    /* A parent that stretches it. */
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1},"
                  "{\"name\": \"Stretch\", \"scale\": [1, 3, 1], \"children\": [1]}",
                  "0, 2", lift_ch, "must stay rigid");
    /* A mover inside a mover. */
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, \"children\": [2]},"
                  "{\"name\": \"mover_inner\", \"mesh\": 2}",
                  "0, 1", lift_ch, "movers cannot nest");
    /* Extras that are not what they should be. */
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, "
                  "\"extras\": {\"sweep_mover\": {\"mode\": \"sideways\"}}}",
                  "0, 1", lift_ch, "sweep_mover mode must be one of once, loop or pingpong");
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, "
                  "\"extras\": {\"sweep_mover\": {\"trigerr\": \"touch\"}}}",
                  "0, 1", lift_ch, "unknown key 'trigerr'");
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, "
                  "\"extras\": {\"sweep_mover\": {\"volume\": [1, 2, 3]}}}",
                  "0, 1", lift_ch, "volume must be [x0, y0, z0, x1, y1, z1]");
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, "
                  "\"extras\": {\"sweep_mover\": {\"trigger\": \"volume\"}}}",
                  "0, 1", lift_ch, "mover 'lift' (node 'mover_lift') has trigger volume but no volume box");
    /* A loop that does not come back. */
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, "
                  "\"extras\": {\"sweep_mover\": {\"mode\": \"loop\"}}}",
                  "0, 1", lift_ch, "a loop path must end at the pose it starts from");
    /* Key times that are not a path, told in seconds (assimp counts glTF
     * times in milliseconds). */
    scene_refused(f, "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1}", "0, 1",
                  "{\"sampler\": 5, \"target\": {\"node\": 1, \"path\": \"translation\"}}",
                  "mover 'lift': position keys 0 and 1 are not in increasing time order (1.5 s, 1.5 s)");
    scene_refused(f, "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1}", "0, 1",
                  "{\"sampler\": 6, \"target\": {\"node\": 1, \"path\": \"translation\"}}",
                  "mover 'lift': position key 0 is at -0.5 s (before 0, or not a number)");
    /* Nothing left for the static level: a map needs static triangles. */
    const char *lift0_ch = "{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}}";
    scene_refused(f, "{\"name\": \"mover_lift\", \"mesh\": 1}", "0", lift0_ch,
                  "no static triangles: all 2 triangles of the scene went to mover 'lift' (node 'mover_lift')");
    scene_refused(f, "{\"name\": \"mover_lift\", \"mesh\": 1}, {\"name\": \"mover_gate\", \"mesh\": 2}", "0, 1",
                  "{\"sampler\": 0, \"target\": {\"node\": 0, \"path\": \"translation\"}},"
                  "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}}",
                  "all 4 triangles of the scene went to movers 'lift' (node 'mover_lift'), 'gate' (node "
                  "'mover_gate')");
    /* Two nodes making movers of one name. */
    scene_refused(f,
                  "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1},"
                  "{\"name\": \"Other\", \"mesh\": 1, \"extras\": {\"sweep_mover\": {\"name\": \"lift\"}}}",
                  "0, 1, 2", lift_ch, "both make a mover named 'lift'");
}

/* Every triangle of mover m faces up (+z) in the mover's frame. */
static void faces_up(const sweep_level_mover *m)
{
    const sweep_vec3 *v = m->vertices;
    assert_true(m->triangle_count > 0);
    for (uint32_t t = 0; t < m->triangle_count; t++) {
        const uint32_t *ix = &m->indices[3 * t];
        if (!(sweep_v3_cross(sweep_v3_sub(v[ix[1]], v[ix[0]]), sweep_v3_sub(v[ix[2]], v[ix[0]])).z > 0.0))
            fail_msg("mover '%s': triangle %u faces down", m->name, t);
    }
}

/* A mover node mirrored at rest (its x scaled by -1; assimp hands glTF's
 * rest scale over as the channel's scale keys) keeps its mesh mirrored in
 * its own frame, and the fronts of its faces: glTF flips the winding of a
 * mirrored node's triangles. So does a side-file mover made of a mirrored
 * node. */
static void mirrored_movers_keep_their_fronts(void **state)
{
    fixture *f = *state;
    char path[4200], side[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "mirrored.gltf"));
    write_scene(path,
                "{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"mover_lift\", \"mesh\": 1, \"scale\": [-1, 1, 1]},"
                "{\"name\": \"Flipped\", \"mesh\": 1, \"translation\": [5, 0, 0], \"scale\": [1, 1, -1]}",
                "0, 1, 2", "{\"sampler\": 0, \"target\": {\"node\": 1, \"path\": \"translation\"}}");
    snprintf(side, sizeof side, "%s", fixture_path(f, "flip.txt"));
    const char text[] = "mover flip\nmesh Flipped\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n";
    assert_true(fixture_write(side, text, strlen(text)));
    sweep_import_options o = options();
    o.movers_path = side;
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    /* The platform, file (x, 0, -z) mirrored to (-x, 0, -z), is map
     * (-x, z, 0). */
    const sweep_level_mover *lift = mover_named(&lv, "lift");
    local_vertex(lift, 0, 0, 0), local_vertex(lift, -2, 0, 0), local_vertex(lift, -2, 2, 0);
    local_vertex(lift, 0, 2, 0);
    faces_up(lift);
    /* File (x, 0, -z) mirrored to (x, 0, z) and moved by 5 along x. */
    const sweep_level_mover *flip = mover_named(&lv, "flip");
    local_vertex(flip, 5, 0, 0), local_vertex(flip, 7, -2, 0);
    faces_up(flip);
    sweep_level_free(&lv);
}

/* --- the side file, on an OBJ --------------------------------------------- */

static const char obj_text[] =
    "# a floor, a door panel and a lift platform, y up\n"
    "o Floor\n"
    "v 0 0 0\nv 10 0 0\nv 10 0 -10\nv 0 0 -10\n"
    "f 1 2 3 4\n"
    "o Door\n"
    "v 4 0 0\nv 5 0 0\nv 5 2 0\nv 4 2 0\n"
    "f 5 6 7 8\n"
    "o LiftPlatform\n"
    "v 6 0 -6\nv 8 0 -6\nv 8 0 -8\nv 6 0 -8\n"
    "f 9 10 11 12\n";

static const char side_text[] =
    "# doors and lifts for scene.obj, in map coordinates\n"
    "mover door trigger touch blocked reverse wait 0 3\n"
    "mesh Door\n"
    "pivot 4 0 0   # the hinge\n"
    "key 0 4 0 0 axis 0 0 1 deg 0\n"
    "key 1 4 0 0 axis 0 0 1 deg 90\n"
    "\n"
    "mover \"lift one\"\n"
    "  mode loop\n"
    "  mesh LiftPlatform\n"
    "  key 0 0 0 0  0 0 0 1\n"
    "  key 2 0 0 3  0 0 0 1\n"
    "  key 4 0 0 0  0 0 0 1\n";

static void write_obj(fixture *f, char *obj, size_t len)
{
    snprintf(obj, len, "%s", fixture_path(f, "scene.obj"));
    assert_true(fixture_write(obj, obj_text, strlen(obj_text)));
}

static void side_file_movers(void **state)
{
    fixture *f = *state;
    char obj[4200], side[4200];
    write_obj(f, obj, sizeof obj);
    snprintf(side, sizeof side, "%s", fixture_path(f, "movers.txt"));
    assert_true(fixture_write(side, side_text, strlen(side_text)));
    sweep_import_options o = options();
    o.movers_path = side;
    sweep_level lv;
    sweep_import_stats st;
    char err[1024];
    if (sweep_import_scene(obj, &o, &lv, &st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(st.movers, 2);
    assert_int_equal(st.movers_from_file, 2);
    /* Only the floor stays static. */
    assert_int_equal(lv.triangle_count, 2);
    for (uint32_t i = 0; i < lv.vertex_count; i++)
        assert_true(lv.vertices[i].z == 0.0);

    const sweep_level_mover *door = mover_named(&lv, "door");
    assert_int_equal(door->id, 1);
    assert_int_equal(door->trigger, SWEEP_TRIGGER_TOUCH);
    assert_int_equal(door->blocked, SWEEP_BLOCKED_REVERSE);
    assert_int_equal(door->mode, SWEEP_MOVER_PINGPONG);
    near(door->wait_end, 3.0, "door wait_end");
    /* The panel (map x 4..5 at y 0, z 0..2) around the pivot (4, 0, 0). */
    assert_int_equal(door->triangle_count, 2);
    uint32_t far = local_vertex(door, 1, 0, 0);
    local_vertex(door, 0, 0, 2), local_vertex(door, 1, 0, 2), local_vertex(door, 0, 0, 0);
    assert_int_equal(door->key_count, 2);
    near_q(door->keys[0].pose.rotation, 0, 0, 0, 1, "door shut");
    near_q(door->keys[1].pose.rotation, 0, 0, S45, S45, "door open");
    near_v3(placed(door, 1, door->vertices[far]), 4, 1, 0, "door's far edge when open");

    const sweep_level_mover *lift = mover_named(&lv, "lift one");
    assert_int_equal(lift->id, 2);
    assert_int_equal(lift->mode, SWEEP_MOVER_LOOP);
    assert_int_equal(lift->trigger, SWEEP_TRIGGER_ALWAYS);
    assert_int_equal(lift->key_count, 3);
    near(lift->keys[2].time, 4.0, "lift last key");
    near_v3(lift->keys[1].pose.position, 0, 0, 3, "lift top");
    local_vertex(lift, 6, 6, 0), local_vertex(lift, 8, 8, 0); /* pivot at the origin */

    sweep_movers *mv = NULL;
    assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK);
    sweep_movers_destroy(mv);
    sweep_level_free(&lv);
}

/* A turntable going round in a loop: 360 degrees ends at -q of the start,
 * the same turn; the last key is made exactly that, and the core runs it. */
static void side_file_turntable_loop(void **state)
{
    fixture *f = *state;
    char obj[4200], side[4200];
    write_obj(f, obj, sizeof obj);
    snprintf(side, sizeof side, "%s", fixture_path(f, "table.txt"));
    const char text[] = "mover table mode loop\nmesh LiftPlatform\npivot 7 7 0\n"
                        "key 0 7 7 0 axis 0 0 1 deg 0\nkey 1 7 7 0 axis 0 0 1 deg 120\n"
                        "key 2 7 7 0 axis 0 0 1 deg 240\nkey 3 7 7 0 axis 0 0 1 deg 360\n";
    assert_true(fixture_write(side, text, strlen(text)));
    sweep_import_options o = options();
    o.movers_path = side;
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(obj, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    const sweep_level_mover *m = mover_named(&lv, "table");
    assert_int_equal(m->key_count, 4);
    near_q(m->keys[1].pose.rotation, 0, 0, 0.86602540378443865, 0.5, "table at 120 degrees");
    const sweep_quat last = m->keys[3].pose.rotation, minus_first = {0.0, 0.0, 0.0, -1.0};
    assert_memory_equal(&last, &minus_first, sizeof last);
    local_vertex(m, -1, -1, 0), local_vertex(m, 1, 1, 0);
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK);
    sweep_movers_destroy(mv);
    sweep_level_free(&lv);
}

/* Turns just under half a turn between keys, either way and about one
 * axis or two, are what the side file takes. */
static void side_file_turns_under_half_a_turn(void **state)
{
    fixture *f = *state;
    char obj[4200], side[4200];
    write_obj(f, obj, sizeof obj);
    snprintf(side, sizeof side, "%s", fixture_path(f, "turns.txt"));
    const char text[] = "mover door\nmesh Door\npivot 4 0 0\n"
                        "key 0 4 0 0 axis 0 0 1 deg 0\nkey 1 4 0 0 axis 0 0 1 deg 179\n"
                        "key 2 4 0 0 axis 0 0 1 deg 358\nkey 3 4 0 0 axis 0 0 -1 deg -190\n"
                        "key 4 4 0 0 axis 0 0 1 deg 20\nkey 5 4 0 0 0 0 0 1\nkey 6 4 0 0 axis 1 0 0 deg 179.5\n";
    assert_true(fixture_write(side, text, strlen(text)));
    sweep_import_options o = options();
    o.movers_path = side;
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(obj, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(mover_named(&lv, "door")->key_count, 7);
    sweep_level_free(&lv);
}

/* A side-file block without mesh or keys gives its rules to a scene mover. */
static void side_file_sets_scene_rules(void **state)
{
    fixture *f = *state;
    char path[4200], side[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "movers.gltf"));
    write_scene(path, scene_nodes, scene_roots, scene_channels);
    snprintf(side, sizeof side, "%s", fixture_path(f, "rules.txt"));
    const char text[] = "mover door\n  trigger command\n  wait 0.5 4\nmover lift blocked crush\n";
    assert_true(fixture_write(side, text, strlen(text)));
    sweep_import_options o = options();
    o.movers_path = side;
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(path, &o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    const sweep_level_mover *door = mover_named(&lv, "door"), *lift = mover_named(&lv, "lift");
    assert_int_equal(door->trigger, SWEEP_TRIGGER_COMMAND);
    near(door->wait_start, 0.5, "door wait_start");
    near(door->wait_end, 4.0, "door wait_end");
    assert_int_equal(door->mode, SWEEP_MOVER_PINGPONG); /* untouched */
    assert_int_equal(lift->blocked, SWEEP_BLOCKED_CRUSH);
    assert_int_equal(lift->trigger, SWEEP_TRIGGER_VOLUME); /* from its extras */
    sweep_level_free(&lv);
}

/* Imports scene.obj with a side file holding `text`; expects a failure
 * whose message holds the side file's name and `expect`. */
static void side_refused(fixture *f, const char *text, const char *expect)
{
    char obj[4200], side[4200];
    write_obj(f, obj, sizeof obj);
    snprintf(side, sizeof side, "%s", fixture_path(f, "bad-movers.txt"));
    assert_true(fixture_write(side, text, strlen(text)));
    sweep_import_options o = options();
    o.movers_path = side;
    sweep_level lv;
    char err[1024];
    if (sweep_import_scene(obj, &o, &lv, NULL, err, sizeof err) == SWEEP_OK)
        fail_msg("side file '%s' should fail with '%s'", text, expect);
    if (!strstr(err, expect) || !strstr(err, "bad-movers.txt"))
        fail_msg("error '%s' lacks the file name or '%s'", err, expect);
    assert_int_equal(lv.mover_count, 0);
}

#define DOOR "mover door\nmesh Door\n"

static void bad_side_files_are_refused(void **state)
{
    fixture *f = *state;
    side_refused(f, "mesh Door\n", "line 1: 'mesh' before any 'mover NAME' line");
    side_refused(f, "mover door\nfrobnicate 3\n", "line 2: unknown word 'frobnicate'");
    side_refused(f, "# c\nmover door mode sideways\n", "line 2: unknown mode 'sideways' (once, loop or pingpong)");
    side_refused(f, "mover door trigger\n", "line 1: 'trigger' wants one of always, volume, touch or command");
    side_refused(f, "mover door wait 1\n", "line 1: 'wait' wants two numbers");
    side_refused(f, "mover door wait -1 2\n", "line 1: wait START: '-1' is not a number");
    side_refused(f, "mover door volume 0 0 0 1 1\n", "line 1: 'volume' wants six numbers");
    side_refused(f, "mover door\nvolume 0 0 0 1 -1 1\n", "line 2: the volume box needs");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 1\nkey 1 0 0 x 0 0 0 1\n", "line 4: key position: 'x' is not a number");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 1\nkey 1 0 0 nan 0 0 0 1\n", "line 4: key position: 'nan'");
    side_refused(f, DOOR "key 0.5 0 0 0 0 0 0 1\n", "line 3: the first key of mover 'door' must be at time 0");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 1\nkey 2 0 0 0 0 0 0 1\nkey 1 0 0 0 0 0 0 1\n",
                 "line 5: key time 1 is not after the previous key's 2");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 0\n", "line 3: the quaternion (0 0 0 0) has length 0, not 1");
    side_refused(f, DOOR "key 0 0 0 0 0 0 1 1\n", "line 3: the quaternion (0 0 1 1) has length");
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 0 deg 90\n", "line 3: the rotation axis (0 0 0) has no direction");
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 1 rad 1\n", "line 3: 'key' wants T X Y Z QX QY QZ QW");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 1\n", "line 1: mover 'door' needs two 'key' lines or more (it has 1)");
    side_refused(f, "mover door\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n",
                 "line 1: mover 'door' has keys but no 'mesh' line");
    side_refused(f, "mover door\nmesh Nope\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n",
                 "line 2: no node or mesh named 'Nope' in the scene");
    side_refused(f, "mover door\nmover door\n", "line 2: mover 'door' is already defined on line 1");
    side_refused(f, "mover a\nmesh Door\nmover b\nmesh Door\n", "line 4: 'Door' is already given to mover 'a' on line 2");
    side_refused(f, "mover \"door\nmesh Door\n", "line 1: a \"quoted name\" is not closed");
    side_refused(f, "mover all\nmesh Floor Door LiftPlatform\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n",
                 "no static triangles: all 6 triangles of the scene went to mover 'all' (");
    side_refused(f, "mover\n", "line 1: 'mover' wants a NAME");
    side_refused(f, "mover ghost trigger touch\n", "line 1: mover 'ghost' has no 'mesh' or 'key' lines, and the scene has no mover");
    side_refused(f, "mover door trigger volume\nmesh Door\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n",
                 "line 1: mover 'door' has trigger volume but no volume box");
    side_refused(f, "mover door mode loop\nmesh Door\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n",
                 "line 1: mover 'door': a loop path must end at the pose it starts from");
    side_refused(f, "mover door\nmesh Door\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\nkey 2 0 0 1e300 0 0 0 1\n",
                 "line 5: key position: '1e300' is not a number in");
    /* Half a turn or more between two keys: the map keeps where each key
     * points, and the mover would take the shorter way between them. */
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 1 deg 0\nkey 1 0 0 0 axis 0 0 1 deg 190\n",
                 "line 4: the mover turns 190 degrees from the key on line 3; a turn between two keys must be under "
                 "180 degrees");
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 1 deg 0\nkey 1 0 0 0 axis 0 0 1 deg 180\n",
                 "line 4: the mover turns 180 degrees");
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 1 deg 10\nkey 1 0 0 0 axis 0 0 1 deg -260\n",
                 "line 4: the mover turns 270 degrees");
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 1 deg 0\nkey 1 0 0 0 axis 0 0 1 deg 720\n",
                 "line 4: the mover turns 720 degrees");
    side_refused(f, DOOR "key 0 0 0 0 axis 0 0 1 deg 100\nkey 1 0 0 0 axis 0 0 -1 deg 100\n",
                 "line 4: the mover turns 200 degrees");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 1\nkey 1 0 0 0 0 0 0 -1\n", "line 4: the mover turns 360 degrees");
    side_refused(f, DOOR "key 0 0 0 0 0 0 0 1\nkey 1 0 0 0 axis 1 0 0 deg 200\n",
                 "line 4: the mover turns 200 degrees");

    /* A missing side file names itself. */
    char obj[4200], missing[4200], err[1024];
    write_obj(f, obj, sizeof obj);
    snprintf(missing, sizeof missing, "%s", fixture_path(f, "no-such-movers.txt"));
    sweep_import_options o = options();
    o.movers_path = missing;
    sweep_level lv;
    assert_int_equal(sweep_import_scene(obj, &o, &lv, NULL, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "no-such-movers.txt"));
    assert_non_null(strstr(err, "No such file"));
}

static int run_import(const char *args, char *out, size_t outlen);

/* --- through the map format ----------------------------------------------- */

/* The movers of a and b are the same, bit for bit. */
static void same_movers(const sweep_level *a, const sweep_level *b)
{
    assert_int_equal(a->mover_count, b->mover_count);
    for (uint32_t i = 0; i < a->mover_count; i++) {
        const sweep_level_mover *x = &a->movers[i], *y = &b->movers[i];
        assert_int_equal(x->id, y->id);
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->mode, y->mode);
        assert_int_equal(x->trigger, y->trigger);
        assert_int_equal(x->blocked, y->blocked);
        assert_memory_equal(&x->wait_start, &y->wait_start, sizeof x->wait_start);
        assert_memory_equal(&x->wait_end, &y->wait_end, sizeof x->wait_end);
        assert_memory_equal(&x->volume_min, &y->volume_min, sizeof x->volume_min);
        assert_memory_equal(&x->volume_max, &y->volume_max, sizeof x->volume_max);
        assert_int_equal(x->vertex_count, y->vertex_count);
        assert_memory_equal(x->vertices, y->vertices, x->vertex_count * sizeof *x->vertices);
        assert_int_equal(x->triangle_count, y->triangle_count);
        assert_memory_equal(x->indices, y->indices, 3 * x->triangle_count * sizeof *x->indices);
        assert_memory_equal(x->materials, y->materials, x->triangle_count * sizeof *x->materials);
        assert_int_equal(x->key_count, y->key_count);
        assert_memory_equal(x->keys, y->keys, x->key_count * sizeof *x->keys);
    }
}

/* Imports in with o, writes the level to a map, loads it back: the same
 * movers; and sweep-import (args) writes a map with the same movers too. */
static void round_trip(fixture *f, const char *in, const sweep_import_options *o, const char *args)
{
    sweep_level lv, back;
    char db[4200], err[1024], text[8192], cmd[13000];
    if (sweep_import_scene(in, o, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_true(lv.mover_count > 0);
    snprintf(lv.name, sizeof lv.name, "round"); /* sweep-import names it after the file */
    snprintf(db, sizeof db, "%s", fixture_path(f, "round.db"));
    sweep_map_write_options wo = {"m", 45.0, NULL, NULL, NULL};
    if (sweep_map_write(db, &lv, &wo, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("write: %s", err);
    if (sweep_map_load(db, &back, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("load: %s", err);
    same_movers(&lv, &back);
    assert_int_equal(lv.triangle_count, back.triangle_count);
    sweep_level_free(&back);

    snprintf(db, sizeof db, "%s", fixture_path(f, "program.db"));
    snprintf(cmd, sizeof cmd, "'%s' -o '%s' %s", in, db, args);
    assert_int_equal(run_import(cmd, text, sizeof text), 0);
    if (sweep_map_load(db, &back, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("load: %s", err);
    same_movers(&lv, &back);
    sweep_level_free(&back);
    sweep_level_free(&lv);
}

static void movers_survive_the_map_format(void **state)
{
    fixture *f = *state;
    char gltf[4200], obj[4200], side[4200], args[4400];
    snprintf(gltf, sizeof gltf, "%s", fixture_path(f, "movers.gltf"));
    write_scene(gltf, scene_nodes, scene_roots, scene_channels);
    sweep_import_options o = options();
    round_trip(f, gltf, &o, "--sides one");

    write_obj(f, obj, sizeof obj);
    snprintf(side, sizeof side, "%s", fixture_path(f, "movers.txt"));
    assert_true(fixture_write(side, side_text, strlen(side_text)));
    o.movers_path = side;
    snprintf(args, sizeof args, "--sides one --movers '%s'", side);
    round_trip(f, obj, &o, args);
}

/* --- the program ---------------------------------------------------------- */

static int run_import(const char *args, char *out, size_t outlen)
{
    char bin[4200], cmd[10000];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-import"));
    if (access(bin, X_OK) != 0)
        fail_msg("%s is missing: build it with make", bin);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", bin, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    /* the rest unread (a --help longer than out) would kill it by SIGPIPE */
    char rest[4096];
    while (fread(rest, 1, sizeof rest, p) > 0)
        ;
    int rc = pclose(p);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("%s", out);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void program_reports_movers(void **state)
{
    fixture *f = *state;
    char gltf[4200], obj[4200], side[4200], db[4200], args[20000], text[32768];
    snprintf(gltf, sizeof gltf, "%s", fixture_path(f, "movers.gltf"));
    write_scene(gltf, scene_nodes, scene_roots, scene_channels);
    snprintf(db, sizeof db, "%s", fixture_path(f, "out.db"));
    snprintf(args, sizeof args, "'%s' -o '%s'", gltf, db);
    assert_int_equal(run_import(args, text, sizeof text), 0);
    if (!strstr(text, "2 movers") || !strstr(text, "1 animated node is no mover"))
        fail_msg("output '%s' lacks the mover count or the warning", text);

    write_obj(f, obj, sizeof obj);
    snprintf(side, sizeof side, "%s", fixture_path(f, "movers.txt"));
    assert_true(fixture_write(side, side_text, strlen(side_text)));
    snprintf(args, sizeof args, "'%s' -o '%s' --movers '%s'", obj, db, side);
    assert_int_equal(run_import(args, text, sizeof text), 0);
    if (!strstr(text, "2 movers (2 from"))
        fail_msg("output '%s' lacks the mover count", text);

    /* A broken side file: status 1, the line named, no map written. */
    assert_int_equal(remove(db), 0);
    const char broken[] = "mover door\nmesh Door\nkey zero 0 0 0 0 0 0 1\n";
    assert_true(fixture_write(side, broken, strlen(broken)));
    assert_int_equal(run_import(args, text, sizeof text), 1);
    if (!strstr(text, "movers.txt line 3: key time: 'zero' is not a number"))
        fail_msg("output '%s' lacks the line", text);
    assert_int_equal(access(db, F_OK), -1);

    /* --help documents both ways. */
    snprintf(args, sizeof args, "--help");
    assert_int_equal(run_import(args, text, sizeof text), 0);
    assert_non_null(strstr(text, "sweep_mover"));
    assert_non_null(strstr(text, "--movers FILE"));
    assert_non_null(strstr(text, "key T X Y Z axis AX AY AZ deg D"));
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(gltf_movers, setup, teardown),
        cmocka_unit_test_setup_teardown(gltf_movers_z_up, setup, teardown),
        cmocka_unit_test_setup_teardown(merged_time_line_and_parent_scale, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_mover_nodes_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(mirrored_movers_keep_their_fronts, setup, teardown),
        cmocka_unit_test_setup_teardown(side_file_movers, setup, teardown),
        cmocka_unit_test_setup_teardown(side_file_turntable_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(side_file_turns_under_half_a_turn, setup, teardown),
        cmocka_unit_test_setup_teardown(side_file_sets_scene_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_side_files_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(program_reports_movers, setup, teardown),
        cmocka_unit_test_setup_teardown(movers_survive_the_map_format, setup, teardown),
    };
    return cmocka_run_group_tests_name("maps.import_movers", tests, NULL, NULL);
}
