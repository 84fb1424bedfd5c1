/*
 * test_import_sides.c - which imported triangles are two-sided. Players
 * collide with front faces only, so sweep-import checks each mesh: a
 * closed, consistently wound shell stays one-sided, an open one (a floor
 * plane) gets a reversed twin per triangle and a warning, unless --sides or
 * a material option says otherwise. On small OBJ and glTF files written
 * here, called in-process and as the program:
 *   - a cube whose faces repeat their corners (one normal per face) is
 *     closed once welded: 12 triangles, no warning; so is one split over
 *     two materials; one with a face wound backwards is not;
 *   - an open floor quad becomes 4 triangles, 2 facing each way, with a
 *     warning naming it and its 4 boundary edges; --sides one keeps 2 and
 *     still warns; --sides two doubles the cube too;
 *   - --two-sided-material doubles a closed mesh's triangles of that
 *     material, --one-sided-material keeps an open mesh's one-sided (and
 *     silences its warning); a name in both is refused;
 *   - a mesh used by two nodes is warned about once; movers' meshes follow
 *     the same rule;
 *   - a cube under a mirroring node still faces out (its winding turned
 *     over) and stays a closed shell;
 *   - the same input gives the same map bytes every time;
 *   - in the core, a body moving up from below the imported floor is
 *     stopped by it under the default and passes through under --sides one.
 */
#include "tests/maps/map_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/move.h"
#include "core/world.h"
#include "maps/import.h"
#include "maps/level.h"
#include "maps/loader.h"

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

/* --- the files ------------------------------------------------------------ */

/* A unit cube's six faces, counter-clockwise seen from outside (file
 * coordinates; y up turns them, and a turn keeps fronts out). */
static const int cube_faces[6][4] = {{1, 4, 3, 2}, {5, 6, 7, 8}, {1, 2, 6, 5},
                                     {2, 3, 7, 6}, {3, 4, 8, 7}, {4, 1, 5, 8}};

/*
 * Appends object `name`, a cube from (x, 0, 0) to (x + 1, 1, 1), to the OBJ
 * text in buf. Each face has its own normal, so the importer keeps a copy
 * of each corner per face, as exports do. Faces 0 and 1 use material
 * mat_a, the others mat_b; face `flip` (or -1) is wound backwards. *base is
 * the count of 'v' and 'vn' lines so far.
 */
static void obj_cube(char *buf, size_t len, int *base, const char *name, double x, const char *mat_a,
                     const char *mat_b, int flip)
{
    static const int corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                      {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    static const char *normals[6] = {"0 0 -1", "0 0 1", "0 -1 0", "1 0 0", "0 1 0", "-1 0 0"};
    size_t o = strlen(buf);
    o += (size_t)snprintf(buf + o, len - o, "o %s\n", name);
    for (int i = 0; i < 8; i++)
        o += (size_t)snprintf(buf + o, len - o, "v %g %d %d\n", x + corners[i][0], corners[i][1], corners[i][2]);
    for (int f = 0; f < 6; f++)
        o += (size_t)snprintf(buf + o, len - o, "vn %s\n", normals[f]);
    for (int f = 0; f < 6; f++) {
        if (f == 0 || f == 2)
            o += (size_t)snprintf(buf + o, len - o, "usemtl %s\n", f == 0 ? mat_a : mat_b);
        int c[4];
        for (int k = 0; k < 4; k++)
            c[k] = *base + cube_faces[f][f == flip ? 3 - k : k];
        o += (size_t)snprintf(buf + o, len - o, "f %d//%d %d//%d %d//%d %d//%d\n", c[0], *base + 1 + f, c[1],
                              *base + 1 + f, c[2], *base + 1 + f, c[3], *base + 1 + f);
    }
    assert_true(o < len - 1);
    *base += 8;
}

/* Appends a 10 x 10 floor quad named `name` at file height y (map z),
 * facing up, in material `mat`. */
static void obj_floor(char *buf, size_t len, int *base, const char *name, double y, const char *mat)
{
    size_t o = strlen(buf);
    o += (size_t)snprintf(buf + o, len - o, "o %s\nv 0 %g 0\nv 10 %g 0\nv 10 %g -10\nv 0 %g -10\nusemtl %s\n"
                          "f %d %d %d %d\n", name, y, y, y, y, mat, *base + 1, *base + 2, *base + 3, *base + 4);
    assert_true(o < len - 1);
    *base += 4;
}

/* Writes obj text (with a .mtl naming the materials it uses) as NAME in
 * the fixture; its path in path. */
static void write_obj(fixture *f, const char *name, const char *body, char *path, size_t len)
{
    static const char mtl[] = "newmtl Stone\nKd 0.5 0.5 0.5\nnewmtl Glass\nKd 0.2 0.2 0.8\n"
                              "newmtl Ground\nKd 0.4 0.3 0.2\nnewmtl Wood\nKd 0.6 0.4 0.2\n";
    assert_true(fixture_write(fixture_path(f, "sides.mtl"), mtl, strlen(mtl)));
    char text[16384];
    snprintf(text, sizeof text, "mtllib sides.mtl\n%s", body);
    snprintf(path, len, "%s", fixture_path(f, name));
    assert_true(fixture_write(path, text, strlen(text)));
}

/* --- importing in-process ------------------------------------------------- */

typedef struct warnings {
    char text[8192];
    int count;
} warnings;

static void collect(void *ctx, const char *msg)
{
    warnings *w = ctx;
    size_t o = strlen(w->text);
    snprintf(w->text + o, sizeof w->text - o, "%s\n", msg);
    w->count++;
}

static sweep_import_options options(warnings *w)
{
    memset(w, 0, sizeof *w);
    sweep_import_options o = {.up_axis_y = 1, .scale = 1.0, .spawn_prefix = "spawn", .mover_prefix = "mover_",
                              .warning = collect, .warning_ctx = w};
    return o;
}

static void import_ok(const char *path, const sweep_import_options *o, sweep_level *lv, sweep_import_stats *st)
{
    char err[1024];
    if (sweep_import_scene(path, o, lv, st, err, sizeof err) != SWEEP_OK)
        fail_msg("%s: %s", path, err);
}

/* Triangle t of the level faces up (+1), down (-1) or sideways (0). */
static int facing(const sweep_vec3 *v, const uint32_t *ix)
{
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(v[ix[1]], v[ix[0]]), sweep_v3_sub(v[ix[2]], v[ix[0]]));
    return n.z > 0.0 ? 1 : n.z < 0.0 ? -1 : 0;
}

/* Each triangle from `first` on is the reversed twin of the one `count`
 * before it: same corners, the last two swapped, same material. */
static void twins_follow(const uint32_t *ix, const uint32_t *mat, uint32_t first, uint32_t count)
{
    for (uint32_t t = first; t < first + count; t++) {
        const uint32_t *a = &ix[3 * (t - count)], *b = &ix[3 * t];
        if (!(b[0] == a[0] && b[1] == a[2] && b[2] == a[1] && mat[t] == mat[t - count]))
            fail_msg("triangle %u is not the reversed twin of triangle %u", t, t - count);
    }
}

static uint32_t material_named(const sweep_level *lv, const char *name)
{
    for (uint32_t i = 0; i < lv->material_count; i++)
        if (strcmp(lv->material_table[i].name, name) == 0)
            return lv->material_table[i].id;
    fail_msg("no material '%s'", name);
    return 0;
}

static void closed_cube_stays_one_sided(void **state)
{
    fixture *f = *state;
    char body[8192] = "", path[4200];
    int base = 0;
    obj_cube(body, sizeof body, &base, "Box", 0.0, "Stone", "Stone", -1);
    write_obj(f, "cube.obj", body, path, sizeof path);
    warnings w;
    sweep_import_options o = options(&w);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 12);
    /* Corners repeated per face: only welding shows the shell closed. */
    assert_true(lv.vertex_count > 8);
    assert_int_equal(st.meshes_open, 0);
    assert_int_equal(st.twins, 0);
    assert_int_equal(w.count, 0);
    sweep_level_free(&lv);

    /* --sides two doubles it all the same. */
    o = options(&w);
    o.sides = SWEEP_SIDES_TWO;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 24);
    twins_follow(lv.indices, lv.materials, 12, 12);
    assert_int_equal(st.twins, 12);
    assert_int_equal(w.count, 0);
    sweep_level_free(&lv);

    /* Split over two materials (two assimp meshes in one node): still one
     * closed shell. */
    body[0] = '\0', base = 0;
    obj_cube(body, sizeof body, &base, "Box", 0.0, "Glass", "Stone", -1);
    write_obj(f, "cube2.obj", body, path, sizeof path);
    o = options(&w);
    import_ok(path, &o, &lv, &st);
    assert_int_equal(st.meshes, 2);
    assert_int_equal(lv.triangle_count, 12);
    assert_int_equal(w.count, 0);
    sweep_level_free(&lv);
}

static void open_floor_becomes_two_sided(void **state)
{
    fixture *f = *state;
    char body[8192] = "", path[4200];
    int base = 0;
    obj_floor(body, sizeof body, &base, "Floor", 0.0, "Ground");
    write_obj(f, "floor.obj", body, path, sizeof path);
    warnings w;
    sweep_import_options o = options(&w);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 4);
    assert_int_equal(st.triangles, 4);
    assert_int_equal(st.twins, 2);
    assert_int_equal(st.meshes_open, 1);
    assert_int_equal(st.meshes_two_sided, 1);
    twins_follow(lv.indices, lv.materials, 2, 2);
    int up = 0, down = 0;
    for (uint32_t t = 0; t < lv.triangle_count; t++) {
        int d = facing(lv.vertices, &lv.indices[3 * t]);
        up += d > 0, down += d < 0;
    }
    assert_int_equal(up, 2);
    assert_int_equal(down, 2);
    assert_int_equal(w.count, 1);
    if (!strstr(w.text, "mesh 'Floor' is open (4 boundary edges): made two-sided"))
        fail_msg("warning '%s' does not name the floor and its edges", w.text);
    sweep_level_free(&lv);

    /* --sides one: the file's two triangles, facing up, and still a warning. */
    o = options(&w);
    o.sides = SWEEP_SIDES_ONE;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 2);
    assert_int_equal(st.twins, 0);
    assert_int_equal(st.meshes_open, 1);
    assert_int_equal(st.meshes_two_sided, 0);
    for (uint32_t t = 0; t < lv.triangle_count; t++)
        assert_int_equal(facing(lv.vertices, &lv.indices[3 * t]), 1);
    assert_int_equal(w.count, 1);
    if (!strstr(w.text, "mesh 'Floor' is open (4 boundary edges): kept one-sided"))
        fail_msg("warning '%s' does not name the floor", w.text);
    sweep_level_free(&lv);
}

/* A cube with one face wound backwards has no boundary edge, but four
 * edges that run the same way twice: players could leave through that
 * face, so it is open. */
static void badly_wound_cube_is_open(void **state)
{
    fixture *f = *state;
    char body[8192] = "", path[4200];
    int base = 0;
    obj_cube(body, sizeof body, &base, "Crate", 0.0, "Wood", "Wood", 3);
    write_obj(f, "flip.obj", body, path, sizeof path);
    warnings w;
    sweep_import_options o = options(&w);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 24);
    assert_int_equal(w.count, 1);
    if (!strstr(w.text, "mesh 'Crate' is open (0 boundary edges, 4 edges of three or more triangles or of two wound "
                        "the same way): made two-sided"))
        fail_msg("warning '%s'", w.text);
    sweep_level_free(&lv);
}

static void material_options_override(void **state)
{
    fixture *f = *state;
    char body[8192] = "", path[4200];
    int base = 0;
    /* A closed cube (Glass on two faces, Stone on four) and an open floor. */
    obj_cube(body, sizeof body, &base, "Box", 20.0, "Glass", "Stone", -1);
    obj_floor(body, sizeof body, &base, "Floor", 0.0, "Ground");
    write_obj(f, "both.obj", body, path, sizeof path);
    warnings w;
    sweep_import_options o = options(&w);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 12 + 4);
    sweep_level_free(&lv);

    /* Glass two-sided in the closed cube: its 4 triangles get twins. */
    const char *two[] = {"Glass"}, *one[] = {"Ground"};
    o = options(&w);
    o.two_sided_materials = two, o.two_sided_count = 1;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 12 + 4 + 4);
    uint32_t glass = material_named(&lv, "Glass"), n_glass = 0;
    for (uint32_t t = 0; t < lv.triangle_count; t++)
        n_glass += lv.materials[t] == glass;
    assert_int_equal(n_glass, 8);
    assert_true(st.two_sided_matched & 1);
    assert_int_equal(w.count, 1); /* the floor, as before */
    sweep_level_free(&lv);

    /* Ground one-sided: the open floor keeps its 2 triangles and, since
     * that was asked for, no warning. */
    o = options(&w);
    o.one_sided_materials = one, o.one_sided_count = 1;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 12 + 2);
    assert_int_equal(st.meshes_open, 0);
    assert_true(st.one_sided_matched & 1);
    assert_int_equal(w.count, 0);
    sweep_level_free(&lv);

    /* Both at once, under --sides two: Ground stays one-sided, the rest doubles. */
    o = options(&w);
    o.sides = SWEEP_SIDES_TWO;
    o.one_sided_materials = one, o.one_sided_count = 1;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.triangle_count, 24 + 2);
    sweep_level_free(&lv);

    /* A name may not be in both lists; no level is left behind. */
    const char *glass_too[] = {"Ground", "Glass"};
    o = options(&w);
    o.two_sided_materials = two, o.two_sided_count = 1;
    o.one_sided_materials = glass_too, o.one_sided_count = 2;
    char err[512];
    assert_int_equal(sweep_import_scene(path, &o, &lv, &st, err, sizeof err), SWEEP_E_ARG);
    assert_non_null(strstr(err, "'Glass'"));
    assert_int_equal(lv.triangle_count, 0);
}

/* Mover meshes: an open door panel gets twins, a closed crate does not. */
static void movers_follow_the_rule(void **state)
{
    fixture *f = *state;
    char body[8192] = "", path[4200], side[4200];
    int base = 0;
    obj_floor(body, sizeof body, &base, "Floor", 0.0, "Ground");
    obj_cube(body, sizeof body, &base, "Crate", 3.0, "Wood", "Wood", -1);
    size_t o_ = strlen(body);
    snprintf(body + o_, sizeof body - o_,
             "o DoorPanel\nv 0 0 -5\nv 1 0 -5\nv 1 2 -5\nv 0 2 -5\nusemtl Wood\nf %d %d %d %d\n", base + 1, base + 2,
             base + 3, base + 4);
    write_obj(f, "movers.obj", body, path, sizeof path);
    static const char side_text[] = "mover door\nmesh DoorPanel\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n"
                                    "mover crate\nmesh Crate\nkey 0 0 0 0 0 0 0 1\nkey 1 0 0 1 0 0 0 1\n";
    snprintf(side, sizeof side, "%s", fixture_path(f, "movers.txt"));
    assert_true(fixture_write(side, side_text, strlen(side_text)));
    warnings w;
    sweep_import_options o = options(&w);
    o.movers_path = side;
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &o, &lv, &st);
    assert_int_equal(lv.mover_count, 2);
    assert_int_equal(lv.triangle_count, 4); /* the floor, two-sided */
    const sweep_level_mover *door = &lv.movers[sweep_level_find_mover(&lv, "door")];
    const sweep_level_mover *crate = &lv.movers[sweep_level_find_mover(&lv, "crate")];
    assert_int_equal(door->triangle_count, 4);
    twins_follow(door->indices, door->materials, 2, 2);
    assert_int_equal(crate->triangle_count, 12);
    assert_int_equal(st.mover_triangles, 16);
    assert_int_equal(st.twins, 4);
    assert_int_equal(w.count, 2);
    if (!strstr(w.text, "mesh 'DoorPanel' in mover 'door' is open (4 boundary edges): made two-sided"))
        fail_msg("warnings '%s' lack the door", w.text);
    assert_null(strstr(w.text, "Crate"));
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK);
    sweep_movers_destroy(mv);
    sweep_level_free(&lv);
}

/* --- a glTF mesh used by two nodes ---------------------------------------- */

static void instanced_mesh_warned_once(void **state)
{
    fixture *f = *state;
    uint8_t buf[60];
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 0, -1, 0, 0, -1};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    size_t o = 0;
    for (int i = 0; i < 12; i++, o += 4) {
        uint32_t v;
        memcpy(&v, &pos[i], 4);
        for (int k = 0; k < 4; k++)
            buf[o + k] = (uint8_t)(v >> (8 * k)); /* glTF is little-endian */
    }
    for (int i = 0; i < 6; i++, o += 2)
        buf[o] = (uint8_t)idx[i], buf[o + 1] = (uint8_t)(idx[i] >> 8);
    char b64[100], json[4096], path[4200];
    fixture_base64(buf, sizeof buf, b64);
    int n = snprintf(json, sizeof json,
        "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0, 1]}],\n"
        " \"nodes\": [{\"name\": \"TileA\", \"mesh\": 0},\n"
        "           {\"name\": \"TileB\", \"mesh\": 0, \"translation\": [3, 0, 0]}],\n"
        " \"meshes\": [{\"name\": \"Tile\", \"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],\n"
        " \"buffers\": [{\"byteLength\": 60, \"uri\": \"data:application/octet-stream;base64,%s\"}],\n"
        " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 48},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 12}],\n"
        " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\", "
        "\"min\": [0, 0, -1], \"max\": [1, 0, 0]},\n"
        "               {\"bufferView\": 1, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"}]}\n",
        b64);
    assert_true(n > 0 && (size_t)n < sizeof json);
    snprintf(path, sizeof path, "%s", fixture_path(f, "tiles.gltf"));
    assert_true(fixture_write(path, json, (size_t)n));
    warnings w;
    sweep_import_options opt = options(&w);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &opt, &lv, &st);
    assert_int_equal(lv.triangle_count, 8);
    assert_int_equal(st.meshes_open, 2);
    assert_int_equal(st.open_warnings, 1);
    assert_int_equal(w.count, 1);
    if (!strstr(w.text, "mesh 'Tile' (node 'TileA') is open (4 boundary edges, 2 instances): made two-sided"))
        fail_msg("warning '%s'", w.text);
    sweep_level_free(&lv);
}

/* --- mirrored nodes ------------------------------------------------------- */

/* A closed unit cube used by two nodes, one of them mirrored (scale x by
 * -1), as a glTF (y up). glTF says a node whose transform has a negative
 * determinant flips the winding of its triangles: the mirrored crate's
 * faces must point out of it too, not into it, and both stay closed
 * shells, one-sided. */
static void mirrored_node_keeps_its_fronts(void **state)
{
    fixture *f = *state;
    static const float corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                        {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    uint8_t buf[96 + 72];
    size_t o = 0;
    for (int i = 0; i < 8; i++)
        for (int c = 0; c < 3; c++, o += 4) {
            uint32_t v;
            memcpy(&v, &corners[i][c], 4);
            for (int k = 0; k < 4; k++)
                buf[o + k] = (uint8_t)(v >> (8 * k)); /* glTF is little-endian */
        }
    for (int q = 0; q < 6; q++) {
        const int *c = cube_faces[q];
        const int tri[6] = {c[0], c[1], c[2], c[0], c[2], c[3]};
        for (int k = 0; k < 6; k++, o += 2)
            buf[o] = (uint8_t)(tri[k] - 1), buf[o + 1] = 0;
    }
    assert_int_equal(o, sizeof buf);
    char b64[300], json[4096], path[4200];
    fixture_base64(buf, sizeof buf, b64);
    int n = snprintf(
        json, sizeof json,
        "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0, 1]}],\n"
        " \"nodes\": [{\"name\": \"Crate\", \"mesh\": 0, \"translation\": [3, 0, 0]},\n"
        "           {\"name\": \"Mirrored\", \"mesh\": 0, \"translation\": [-3, 0, 0], \"scale\": [-1, 1, 1]}],\n"
        " \"meshes\": [{\"name\": \"Cube\", \"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],\n"
        " \"buffers\": [{\"byteLength\": 168, \"uri\": \"data:application/octet-stream;base64,%s\"}],\n"
        " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 96},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 96, \"byteLength\": 72}],\n"
        " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 8, \"type\": \"VEC3\", "
        "\"min\": [0, 0, 0], \"max\": [1, 1, 1]},\n"
        "               {\"bufferView\": 1, \"componentType\": 5123, \"count\": 36, \"type\": \"SCALAR\"}]}\n",
        b64);
    assert_true(n > 0 && (size_t)n < sizeof json);
    snprintf(path, sizeof path, "%s", fixture_path(f, "crates.gltf"));
    assert_true(fixture_write(path, json, (size_t)n));
    warnings w;
    sweep_import_options opt = options(&w);
    sweep_level lv;
    sweep_import_stats st;
    import_ok(path, &opt, &lv, &st);
    assert_int_equal(lv.triangle_count, 24);
    assert_int_equal(st.meshes_open, 0);
    assert_int_equal(st.twins, 0);
    /* Map x 3..4 and, mirrored, -4..-3; y -1..0 and z 0..1 both. */
    int mirrored = 0;
    for (uint32_t t = 0; t < lv.triangle_count; t++) {
        const uint32_t *ix = &lv.indices[3 * t];
        const sweep_vec3 *v = lv.vertices;
        sweep_vec3 mid = sweep_v3_scale(sweep_v3_add(sweep_v3_add(v[ix[0]], v[ix[1]]), v[ix[2]]), 1.0 / 3.0);
        sweep_vec3 centre = sweep_v3(mid.x > 0.0 ? 3.5 : -3.5, -0.5, 0.5);
        mirrored += mid.x < 0.0;
        sweep_vec3 nrm = sweep_v3_cross(sweep_v3_sub(v[ix[1]], v[ix[0]]), sweep_v3_sub(v[ix[2]], v[ix[0]]));
        if (!(sweep_v3_dot(nrm, sweep_v3_sub(mid, centre)) > 0.0))
            fail_msg("triangle %u of the crate at x %g faces into it", t, centre.x);
    }
    assert_int_equal(mirrored, 12);
    sweep_level_free(&lv);
}

/* --- the program and the core --------------------------------------------- */

/* Runs sweep-import with args (already quoted): exit status, and the
 * output (stdout and stderr) in out. */
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

/* The content hash sweep-import printed, in hex. */
static void printed_hash(const char *text, char hex[65])
{
    const char *h = strstr(text, "content hash ");
    if (!h)
        fail_msg("no content hash in '%s'", text);
    memcpy(hex, h + 13, 64);
    hex[64] = '\0';
}

/*
 * Where a body (the map's default radii) that starts 2 units below the
 * floor at (5, 5) and moves up at 10 units/s for 0.5 s ends, on the map at
 * db: at its top against the floor, or 3 units up if it went through.
 */
static double rise_from_below(const char *db, uint32_t *flags)
{
    sweep_level lv;
    char err[512];
    if (sweep_map_load(db, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s: %s", db, err);
    sweep_world_desc desc = sweep_level_world_desc(&lv);
    sweep_world *w;
    assert_int_equal(sweep_world_create(&desc, &w), SWEEP_OK);
    sweep_move_input in = {sweep_v3(5.0, 5.0, -2.0), lv.default_radii, sweep_v3(0.0, 0.0, 10.0), 0.5, 0};
    sweep_move_result res;
    assert_int_equal(sweep_move(w, &lv.config, &in, &res), SWEEP_OK);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
    *flags = res.flags;
    return res.position.z;
}

static void program_and_core(void **state)
{
    fixture *f = *state;
    char body[8192] = "", path[4200], db[4200], args[13000], text[32768], hex1[65], hex2[65];
    int base = 0;
    obj_floor(body, sizeof body, &base, "Floor", 0.0, "Ground");
    write_obj(f, "floor.obj", body, path, sizeof path);
    snprintf(db, sizeof db, "%s", fixture_path(f, "floor.db"));

    /* The default: two-sided, said in a warning and in the summary. */
    snprintf(args, sizeof args, "'%s' -o '%s'", path, db);
    assert_int_equal(run_import(args, text, sizeof text), 0);
    if (!strstr(text, "warning: mesh 'Floor' is open (4 boundary edges): made two-sided") ||
        !strstr(text, "4 triangles") || !strstr(text, "sides auto: 1 open mesh made two-sided, 2 reversed twins"))
        fail_msg("output '%s'", text);
    printed_hash(text, hex1);
    uint32_t flags;
    double z = rise_from_below(db, &flags);
    /* Stopped with its top (0.9 above its centre) at the floor. */
    if (!(z < -0.89 && z > -0.95 && (flags & SWEEP_MOVED_HIT)))
        fail_msg("under --sides auto the body ended at z %.9g (flags %#x), not under the floor", z, flags);

    /* The same again: the same map, byte for byte as far as the hash sees. */
    assert_int_equal(run_import(args, text, sizeof text), 0);
    printed_hash(text, hex2);
    assert_string_equal(hex1, hex2);

    /* --sides one: the floor faces up only, and the body passes through. */
    snprintf(args, sizeof args, "'%s' -o '%s' --sides one", path, db);
    assert_int_equal(run_import(args, text, sizeof text), 0);
    if (!strstr(text, "warning: mesh 'Floor' is open (4 boundary edges): kept one-sided") ||
        !strstr(text, "2 triangles") || !strstr(text, "sides one: 1 open mesh kept one-sided, 0 reversed twins"))
        fail_msg("output '%s'", text);
    printed_hash(text, hex2);
    assert_string_not_equal(hex1, hex2);
    z = rise_from_below(db, &flags);
    if (!(fabs(z - 3.0) < 1e-9 && !(flags & SWEEP_MOVED_HIT)))
        fail_msg("under --sides one the body ended at z %.9g (flags %#x), not through the floor", z, flags);

    /* --one-sided-material does the same for the floor's material, quietly. */
    snprintf(args, sizeof args, "'%s' -o '%s' --one-sided-material Ground --two-sided-material Nothing", path, db);
    assert_int_equal(run_import(args, text, sizeof text), 0);
    if (strstr(text, "is open") || !strstr(text, "2 triangles") ||
        !strstr(text, "--two-sided-material 'Nothing' matched no material"))
        fail_msg("output '%s'", text);

    /* Refused: a bad --sides, a material both ways; no map is written. */
    assert_int_equal(remove(db), 0);
    snprintf(args, sizeof args, "'%s' -o '%s' --sides both", path, db);
    assert_int_equal(run_import(args, text, sizeof text), 2); /* a usage error */
    assert_non_null(strstr(text, "--sides wants auto, one or two, got 'both'"));
    snprintf(args, sizeof args, "'%s' -o '%s' --one-sided-material Ground --two-sided-material Ground", path, db);
    assert_int_equal(run_import(args, text, sizeof text), 1);
    assert_non_null(strstr(text, "'Ground' cannot be both two-sided and one-sided"));
    assert_int_equal(access(db, F_OK), -1);

    /* --help tells it. */
    assert_int_equal(run_import("--help", text, sizeof text), 0);
    assert_non_null(strstr(text, "--sides auto|one|two"));
    assert_non_null(strstr(text, "--two-sided-material NAME"));
    assert_non_null(strstr(text, "--one-sided-material NAME"));
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(closed_cube_stays_one_sided, setup, teardown),
        cmocka_unit_test_setup_teardown(open_floor_becomes_two_sided, setup, teardown),
        cmocka_unit_test_setup_teardown(badly_wound_cube_is_open, setup, teardown),
        cmocka_unit_test_setup_teardown(material_options_override, setup, teardown),
        cmocka_unit_test_setup_teardown(movers_follow_the_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(instanced_mesh_warned_once, setup, teardown),
        cmocka_unit_test_setup_teardown(mirrored_node_keeps_its_fronts, setup, teardown),
        cmocka_unit_test_setup_teardown(program_and_core, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
