/*
 * test_import.c - sweep-import, run as a program on files the test writes:
 * an OBJ (with its .mtl) and a glTF 2.0 (JSON with a base64 data: URI
 * buffer), each with two meshes and two named materials, import to the
 * expected geometry; names can be excluded; empty nodes named spawn* and a
 * spawn file give spawn points; a --rules file sets the map's physics and
 * movement rules; broken input is refused with a clear message (a bad
 * --rules line by its number, a vertex that is not a number by its mesh)
 * and leaves no output file; a glTF buffer is read only from a regular
 * file in the scene's folder.
 */
#include "tests/maps/map_fixture.h"

#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

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

/* Runs sweep-import with `args` (already quoted); returns the exit status
 * and the combined output in out. */
static int import(const char *args, char *out, size_t outlen)
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
    int rc = pclose(p);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("%s", out);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static const char obj_text[] =
    "# two objects, two materials, y up\n"
    "mtllib scene.mtl\n"
    "o Floor\n"
    "v 0 0 0\nv 10 0 0\nv 10 0 -10\nv 0 0 -10\n"
    "usemtl Ground\n"
    "f 1 2 3 4\n"
    "o Wall\n"
    "v 0 0 -5\nv 10 0 -5\nv 10 3 -5\nv 0 3 -5\n"
    "usemtl Brick\n"
    "f 5 6 7 8\n";

static const char mtl_text[] = "newmtl Ground\nKd 0.5 0.5 0.5\nnewmtl Brick\nKd 0.8 0.2 0.2\n";

/* The same scene as the OBJ, as glTF: the wall mesh is placed by its
 * node's translation, and an empty node "Spawn_A" marks a spawn point.
 * As .gltf the buffer is a base64 data: URI; as .glb (binary) it is the
 * file's BIN chunk. */
static void write_gltf(const char *path, int binary)
{
    uint8_t buf[108];
    float floor_pos[12] = {0, 0, 0, 10, 0, 0, 10, 0, -10, 0, 0, -10};
    float wall_pos[12] = {0, 0, 0, 10, 0, 0, 10, 3, 0, 0, 3, 0};
    uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    /* glTF buffers are little-endian; so is every machine this runs on,
     * but write the bytes out explicitly anyway. */
    size_t o = 0;
    for (int i = 0; i < 12; i++, o += 4) {
        uint32_t v;
        memcpy(&v, &floor_pos[i], 4);
        for (int k = 0; k < 4; k++)
            buf[o + k] = (uint8_t)(v >> (8 * k));
    }
    for (int i = 0; i < 12; i++, o += 4) {
        uint32_t v;
        memcpy(&v, &wall_pos[i], 4);
        for (int k = 0; k < 4; k++)
            buf[o + k] = (uint8_t)(v >> (8 * k));
    }
    for (int i = 0; i < 6; i++, o += 2) {
        buf[o] = (uint8_t)idx[i];
        buf[o + 1] = (uint8_t)(idx[i] >> 8);
    }
    char b64[200], uri[256] = "";
    fixture_base64(buf, sizeof buf, b64);
    if (!binary)
        snprintf(uri, sizeof uri, ", \"uri\": \"data:application/octet-stream;base64,%s\"", b64);
    char json[4096];
    int n = snprintf(json, sizeof json,
        "{\"asset\": {\"version\": \"2.0\"},\n"
        " \"scene\": 0, \"scenes\": [{\"nodes\": [0, 1, 2]}],\n"
        " \"nodes\": [{\"name\": \"Floor\", \"mesh\": 0},\n"
        "           {\"name\": \"Wall\", \"mesh\": 1, \"translation\": [0, 0, -5]},\n"
        "           {\"name\": \"Spawn_A\", \"translation\": [2, 1, -2]}],\n"
        " \"meshes\": [{\"name\": \"FloorMesh\", \"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 2, \"material\": 0}]},\n"
        "            {\"name\": \"WallMesh\", \"primitives\": [{\"attributes\": {\"POSITION\": 1}, \"indices\": 2, \"material\": 1}]}],\n"
        " \"materials\": [{\"name\": \"Ground\"}, {\"name\": \"Brick\"}],\n"
        " \"buffers\": [{\"byteLength\": 108%s}],\n"
        " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 48},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 48},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 96, \"byteLength\": 12}],\n"
        " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\", \"min\": [0, 0, -10], \"max\": [10, 0, 0]},\n"
        "               {\"bufferView\": 1, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\", \"min\": [0, 0, 0], \"max\": [10, 3, 0]},\n"
        "               {\"bufferView\": 2, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"}]}\n",
        uri);
    assert_true(n > 0 && (size_t)n < sizeof json - 4);
    if (!binary) {
        assert_true(fixture_write(path, json, (size_t)n));
        return;
    }
    /* GLB: 12-byte header, a JSON chunk padded with spaces to 4 bytes, a
     * BIN chunk (108 bytes, already aligned); all numbers little-endian. */
    while (n % 4)
        json[n++] = ' ';
    size_t total = 12 + 8 + (size_t)n + 8 + sizeof buf;
    uint8_t *glb = malloc(total), *p = glb;
    uint32_t words[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)n, 0x4E4F534Au}; /* "glTF", "JSON" */
    for (int i = 0; i < 5; i++, p += 4)
        for (int k = 0; k < 4; k++)
            p[k] = (uint8_t)(words[i] >> (8 * k));
    memcpy(p, json, (size_t)n), p += n;
    uint32_t bin[2] = {(uint32_t)sizeof buf, 0x004E4942u}; /* "BIN\0" */
    for (int i = 0; i < 2; i++, p += 4)
        for (int k = 0; k < 4; k++)
            p[k] = (uint8_t)(bin[i] >> (8 * k));
    memcpy(p, buf, sizeof buf);
    assert_true(fixture_write(path, glb, total));
    free(glb);
}

static uint32_t material_id(const sweep_level *lv, const char *name)
{
    for (uint32_t i = 0; i < lv->material_count; i++)
        if (strcmp(lv->material_table[i].name, name) == 0)
            return lv->material_table[i].id;
    fail_msg("no material '%s' in the imported map", name);
    return 0;
}

/* The scene, imported y up: a 10 x 10 floor at z = 0 (material Ground)
 * and a 10 x 3 wall standing at y = 5 (material Brick). Both are open
 * quads, which sweep-import makes two-sided by default; the imports
 * checked here ask for --sides one, to see the file's own triangles
 * (test_import_sides.c tests the sides). */
static void check_scene(const char *db, int with_wall)
{
    sweep_level lv;
    char err[512];
    if (sweep_map_load(db, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s: %s", db, err);
    assert_int_equal(lv.triangle_count, with_wall ? 4 : 2);
    assert_int_equal(lv.material_count, with_wall ? 2 : 1);
    uint32_t ground = material_id(&lv, "Ground");
    uint32_t brick = with_wall ? material_id(&lv, "Brick") : 0;
    uint32_t floor_tris = 0, wall_tris = 0;
    for (uint32_t t = 0; t < lv.triangle_count; t++) {
        const sweep_vec3 *v = lv.vertices;
        const uint32_t *ix = &lv.indices[3 * t];
        if (lv.materials[t] == ground) {
            floor_tris++;
            for (int k = 0; k < 3; k++) {
                assert_true(v[ix[k]].z == 0.0);
                assert_true(v[ix[k]].x >= 0.0 && v[ix[k]].x <= 10.0);
                assert_true(v[ix[k]].y >= 0.0 && v[ix[k]].y <= 10.0);
            }
            /* y up -> z up keeps the front: the floor faces up. */
            sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(v[ix[1]], v[ix[0]]), sweep_v3_sub(v[ix[2]], v[ix[0]]));
            assert_true(n.z > 0.0);
        } else {
            assert_int_equal(lv.materials[t], brick);
            wall_tris++;
            for (int k = 0; k < 3; k++) {
                assert_true(v[ix[k]].y == 5.0);
                assert_true(v[ix[k]].z >= 0.0 && v[ix[k]].z <= 3.0);
            }
        }
    }
    assert_int_equal(floor_tris, 2);
    assert_int_equal(wall_tris, with_wall ? 2 : 0);
    sweep_level_free(&lv);
}

static void obj_imports(void **state)
{
    fixture *f = *state;
    char obj[4200], out[4200], args[9000], text[4096];
    assert_true(fixture_write(fixture_path(f, "scene.mtl"), mtl_text, strlen(mtl_text)));
    snprintf(obj, sizeof obj, "%s", fixture_path(f, "scene.obj"));
    assert_true(fixture_write(obj, obj_text, strlen(obj_text)));
    snprintf(out, sizeof out, "%s", fixture_path(f, "obj.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' --sides one", obj, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    assert_non_null(strstr(text, "2 meshes"));
    assert_non_null(strstr(text, "4 triangles"));
    check_scene(out, 1);

    /* Leave the wall out by name. */
    snprintf(args, sizeof args, "'%s' -o '%s' --exclude Wall --sides one", obj, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    check_scene(out, 0);
}

static void gltf_imports(void **state)
{
    fixture *f = *state;
    char in[4200], out[4200], spawns[4200], args[13000], text[4096];
    snprintf(in, sizeof in, "%s", fixture_path(f, "scene.gltf"));
    write_gltf(in, 0);
    snprintf(spawns, sizeof spawns, "%s", fixture_path(f, "spawns.txt"));
    assert_true(fixture_write(spawns, "# x y z\n1 2 1.5\n\n3.5 4 1\n", 24));
    snprintf(out, sizeof out, "%s", fixture_path(f, "gltf.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' --up y --spawns '%s' --sides one", in, out, spawns);
    assert_int_equal(import(args, text, sizeof text), 0);
    assert_non_null(strstr(text, "2 meshes"));
    check_scene(out, 1);

    sweep_level lv;
    char err[256];
    assert_int_equal(sweep_map_load(out, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_string_equal(lv.name, "scene");
    assert_int_equal(lv.spawn_count, 3);
    /* The node first, at file (2, 1, -2) -> map (2, 2, 1); then the file's. */
    assert_true(lv.spawns[0].x == 2.0 && lv.spawns[0].y == 2.0 && lv.spawns[0].z == 1.0);
    assert_true(lv.spawns[1].x == 1.0 && lv.spawns[1].y == 2.0 && lv.spawns[1].z == 1.5);
    assert_true(lv.spawns[2].x == 3.5 && lv.spawns[2].y == 4.0 && lv.spawns[2].z == 1.0);
    sweep_level_free(&lv);

    /* --scale and --up z: the file's own axes, twice as big. */
    snprintf(args, sizeof args, "'%s' -o '%s' --up z --scale 2 --spawn-prefix ''", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    assert_int_equal(sweep_map_load(out, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(lv.spawn_count, 0);
    for (uint32_t i = 0; i < lv.vertex_count; i++) {
        assert_true(lv.vertices[i].x >= 0.0 && lv.vertices[i].x <= 20.0);
        assert_true(lv.vertices[i].z >= -20.0 && lv.vertices[i].z <= 0.0);
    }
    sweep_level_free(&lv);
}

static void glb_imports(void **state)
{
    fixture *f = *state;
    char in[4200], out[4200], args[9000], text[4096];
    snprintf(in, sizeof in, "%s", fixture_path(f, "scene.glb"));
    write_gltf(in, 1);
    snprintf(out, sizeof out, "%s", fixture_path(f, "glb.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' --sides one", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    check_scene(out, 1);
    /* Same geometry as the OBJ version, so the same content hash. */
    assert_non_null(strstr(text, "content hash bba4b651604e5b8cf80c7ba5daa61fbd349e83ef3dbf653c7cd77211b6f812be"));
}

/* A scene in inches with its rules: they are in the map, bit for bit, and
 * the geometry is the one imported without them. */
static void rules_file_imports(void **state)
{
    fixture *f = *state;
    char obj[4200], out[4200], rules[4200], args[13000], text[4096];
    assert_true(fixture_write(fixture_path(f, "scene.mtl"), mtl_text, strlen(mtl_text)));
    snprintf(obj, sizeof obj, "%s", fixture_path(f, "scene.obj"));
    assert_true(fixture_write(obj, obj_text, strlen(obj_text)));
    snprintf(rules, sizeof rules, "%s", fixture_path(f, "inches.rules"));
    static const char inches[] = "# the scene is in inches\n"
                                 "gravity = 0, 0, -386.08858267716535\n"
                                 "radii = 16, 16, 36\n"
                                 "step_height = 14\n"
                                 "walkable_slope_deg = 50\n"
                                 "tick_rate = 30\n"
                                 "walk_speed = 200\n"
                                 "ground_accel = 2000\n"
                                 "air_accel = 400\n"
                                 "jump_speed = 200\n"
                                 "max_step = 0.02\n"
                                 "speed_limit = 2400   # 61 m/s\n"
                                 "correction_threshold = 10\n";
    assert_true(fixture_write(rules, inches, strlen(inches)));
    snprintf(out, sizeof out, "%s", fixture_path(f, "inches.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' --rules '%s' --sides one", obj, out, rules);
    assert_int_equal(import(args, text, sizeof text), 0);
    check_scene(out, 1);
    /* Other rules, another hash than the same scene in glb_imports. */
    assert_non_null(strstr(text, "content hash "));
    assert_null(strstr(text, "content hash bba4b651604e5b8cf80c7ba5daa61fbd349e83ef3dbf653c7cd77211b6f812be"));

    sweep_level lv;
    sweep_map_load_info info;
    char err[512];
    assert_int_equal(sweep_map_load(out, &lv, &info, err, sizeof err), SWEEP_OK);
    /* The swimming rules the file leaves out keep their defaults. */
    sweep_rules want;
    sweep_rules_default(&want);
    want.walk_speed = 200.0, want.ground_accel = 2000.0, want.air_accel = 400.0, want.jump_speed = 200.0;
    want.max_step = 0.02, want.speed_limit = 2400.0;
    assert_memory_equal(&lv.rules, &want, sizeof want);
    assert_true(lv.correction_threshold == 10.0 && lv.config.max_speed == 2400.0);
    assert_true(lv.config.gravity.x == 0.0 && lv.config.gravity.z == -386.08858267716535);
    assert_true(lv.default_radii.x == 16.0 && lv.default_radii.z == 36.0);
    assert_true(lv.config.step_height == 14.0 && lv.tick_rate == 30.0);
    assert_true(info.walkable_slope_deg == 50.0);
    sweep_level_free(&lv);

    /* Bad lines: exit 1, the file and the line, nothing written. */
    static const struct {
        const char *text;
        const char *frag;
    } bad[] = {
        {"walk_speed = 200\nspeed_limit = 100\n", "line 2: speed_limit=100 must be at least walk_speed=200"},
        {"# inches\n\ngravity = 0 0 -386\n", "line 3: gravity wants three finite numbers X,Y,Z"},
        {"walk_speed = 5\nwalk = 6\n", "line 2: unknown key 'walk'"},
        {"max_step: 0.02\n", "line 1: expected 'key = value'"},
    };
    remove(out);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_true(fixture_write(rules, bad[i].text, strlen(bad[i].text)));
        int before = fixture_count_files(f);
        assert_int_equal(import(args, text, sizeof text), 1);
        char want_msg[4400];
        snprintf(want_msg, sizeof want_msg, "sweep-import: %s %s", rules, bad[i].frag);
        if (strncmp(text, want_msg, strlen(want_msg)) != 0)
            fail_msg("output '%s' is not '%s'", text, want_msg);
        assert_int_equal(access(out, F_OK), -1);
        assert_int_equal(fixture_count_files(f), before);
    }

    /* --help documents it. */
    static char help[32768];
    assert_int_equal(import("--help", help, sizeof help), 0);
    assert_non_null(strstr(help, "--rules FILE"));
    assert_non_null(strstr(help, "correction_threshold"));
}

/* Exit status 1 when the input cannot be imported, 2 when the command
 * line is wrong (as every sweep tool). */
static void refused_with(fixture *f, const char *name, const void *data, size_t len, const char *extra,
                         const char *expect, int status)
{
    char in[4200], out[4200], args[9000], text[4096];
    snprintf(in, sizeof in, "%s", fixture_path(f, name));
    assert_true(fixture_write(in, data, len));
    snprintf(out, sizeof out, "%s", fixture_path(f, "out.db"));
    snprintf(args, sizeof args, "'%s' -o '%s' %s", in, out, extra);
    int before = fixture_count_files(f);
    assert_int_equal(import(args, text, sizeof text), status);
    if (!strstr(text, expect))
        fail_msg("output '%s' lacks '%s'", text, expect);
    assert_int_equal(access(out, F_OK), -1);
    assert_int_equal(fixture_count_files(f), before); /* no temporary either */
}

static void refused(fixture *f, const char *name, const void *data, size_t len, const char *extra,
                    const char *expect)
{
    refused_with(f, name, data, len, extra, expect, 1);
}

static void broken_files_are_refused(void **state)
{
    fixture *f = *state;
    const char cut[] = "{\"asset\": {\"version\": \"2.0\"}, \"meshes\": [{\"primitives\": [";
    refused(f, "cut.gltf", cut, strlen(cut), "", "cannot import");
    uint8_t junk[3000];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 131 + 7);
    refused(f, "junk.glb", junk, sizeof junk, "", "cannot import");
    refused(f, "junk.fbx", junk, sizeof junk, "", "cannot import");
    /* A valid OBJ with nothing but a line: nothing to import. */
    const char line_only[] = "v 0 0 0\nv 1 0 0\nl 1 2\n";
    refused(f, "line.obj", line_only, strlen(line_only), "", "");
    /* A good file with a bad spawn file. */
    assert_true(fixture_write(fixture_path(f, "scene.mtl"), mtl_text, strlen(mtl_text)));
    assert_true(fixture_write(fixture_path(f, "bad-spawns.txt"), "1 2\n", 4));
    char extra[4300];
    snprintf(extra, sizeof extra, "--spawns '%s'", fixture_path(f, "bad-spawns.txt"));
    refused(f, "scene.obj", obj_text, strlen(obj_text), extra, "line 1");
    refused_with(f, "scene.obj", obj_text, strlen(obj_text), "--up x", "--up", 2);
    refused_with(f, "scene.obj", obj_text, strlen(obj_text), "--scale -1", "--scale", 2);
}

/* An OBJ object has no position: one named spawn_1 lands at the origin
 * whatever its vertices say, one with faces is geometry, an empty object
 * is nothing; each is named, and the file's root is never a spawn even
 * when the file's name starts like one. */
static void lost_spawns_and_skipped_nodes_are_named(void **state)
{
    fixture *f = *state;
    const char obj[] = "o floor\nv -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nf 1 4 3 2\n"
                       "o spawn_1\nv 1 0.9 1\n"
                       "o spawn_2\nv 2 1 2\nv 3 1 2\nv 2 1 3\nf 6 7 8\n"
                       "o lamp\n";
    char in[4200], out[4200], args[9000], text[8192];
    snprintf(in, sizeof in, "%s", fixture_path(f, "spawned.obj"));
    assert_true(fixture_write(in, obj, strlen(obj)));
    snprintf(out, sizeof out, "%s", fixture_path(f, "spawned.db"));
    snprintf(args, sizeof args, "'%s' -o '%s'", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    if (!strstr(text, "warning: spawn node 'spawn_1' is at the file's origin (0, 0, 0)") ||
        !strstr(text, "warning: node 'spawn_2' is named as a spawn point but holds meshes") ||
        !strstr(text, "warning: skipped: 1 x empty node 'lamp' (node without meshes") || strstr(text, "'spawned.obj'") ||
        !strstr(text, "1 spawns (1 from nodes)"))
        fail_msg("output '%s'", text);
}

/* A glTF (y up) of two root nodes: Floor, a 10 x 10 quad, and ShardNode
 * holding mesh Shard, whose five vertices are `shard` (file coordinates)
 * and whose triangles are (0, 2, 1) and (1, 2, 3). */
static void write_shard_gltf(const char *path, const float shard[15])
{
    const float floor_pos[12] = {0, 0, 0, 10, 0, 0, 10, 0, -10, 0, 0, -10};
    const uint16_t floor_idx[6] = {0, 1, 2, 0, 2, 3}, shard_idx[6] = {0, 2, 1, 1, 2, 3};
    uint8_t buf[132];
    size_t o = 0;
    for (int i = 0; i < 27; i++, o += 4) {
        uint32_t v;
        memcpy(&v, i < 12 ? &floor_pos[i] : &shard[i - 12], 4);
        for (int k = 0; k < 4; k++)
            buf[o + k] = (uint8_t)(v >> (8 * k));
    }
    for (int i = 0; i < 12; i++, o += 2) {
        uint16_t x = i < 6 ? floor_idx[i] : shard_idx[i - 6];
        buf[o] = (uint8_t)x, buf[o + 1] = (uint8_t)(x >> 8);
    }
    assert_int_equal(o, sizeof buf);
    char b64[200], json[4096];
    fixture_base64(buf, sizeof buf, b64);
    int n = snprintf(
        json, sizeof json,
        "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0, 1]}],\n"
        " \"nodes\": [{\"name\": \"Floor\", \"mesh\": 0}, {\"name\": \"ShardNode\", \"mesh\": 1}],\n"
        " \"meshes\": [{\"name\": \"FloorMesh\",\n"
        "              \"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 2}]},\n"
        "             {\"name\": \"Shard\", \"primitives\": [{\"attributes\": {\"POSITION\": 1}, \"indices\": 3}]}],\n"
        " \"buffers\": [{\"byteLength\": 132, \"uri\": \"data:application/octet-stream;base64,%s\"}],\n"
        " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 48},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 60},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 108, \"byteLength\": 12},\n"
        "                 {\"buffer\": 0, \"byteOffset\": 120, \"byteLength\": 12}],\n"
        " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\"},\n"
        "               {\"bufferView\": 1, \"componentType\": 5126, \"count\": 5, \"type\": \"VEC3\"},\n"
        "               {\"bufferView\": 2, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"},\n"
        "               {\"bufferView\": 3, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"}]}\n",
        b64);
    assert_true(n > 0 && (size_t)n < sizeof json);
    assert_true(fixture_write(path, json, (size_t)n));
}

/* A vertex that is not a number is refused, naming its mesh, node and
 * index, in a glTF as in an OBJ. Welding vertices at the same position
 * must not get to it first: a NaN compares equal to nothing, and the
 * welding joined it to another vertex, so the triangles through it were
 * imported somewhere the file never put them. A mesh left out by name
 * is not looked at. */
static void non_finite_vertices_are_refused(void **state)
{
    fixture *f = *state;
    const float shard[15] = {0, 0, 0, 0, 3, 0, NAN, 0, 0, 5, 0, 5, 9, 9, 9};
    char in[4200], out[4200], args[9000], text[4096];
    snprintf(in, sizeof in, "%s", fixture_path(f, "shard.gltf"));
    write_shard_gltf(in, shard);
    snprintf(out, sizeof out, "%s", fixture_path(f, "shard.db"));
    snprintf(args, sizeof args, "'%s' -o '%s'", in, out);
    assert_int_equal(import(args, text, sizeof text), 1);
    if (!strstr(text, "mesh 'Shard' (node 'ShardNode'): vertex 2 is not a finite number"))
        fail_msg("output '%s'", text);
    assert_int_equal(access(out, F_OK), -1);

    snprintf(args, sizeof args, "'%s' -o '%s' --exclude ShardNode", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    assert_int_equal(access(out, F_OK), 0);

    /* The same shard, finite: its two triangles are imported. */
    const float fine[15] = {0, 0, 0, 0, 3, 0, 1, 0, 0, 5, 0, 5, 9, 9, 9};
    write_shard_gltf(in, fine);
    snprintf(args, sizeof args, "'%s' -o '%s' --sides one", in, out);
    assert_int_equal(import(args, text, sizeof text), 0);
    assert_non_null(strstr(text, "4 triangles"));

    const char obj[] =
        "o Floor\nv 0 0 0\nv 10 0 0\nv 10 0 -10\nf 1 2 3\no Shard\nv 0 0 0\nv nan 1 0\nv 0 1 1\nf 4 5 6\n";
    refused(f, "shard.obj", obj, strlen(obj), "", "vertex 1 is not a finite number");
}

/* A glTF whose one mesh, a floor quad, is in the buffer file `uri`; the
 * 60 bytes of that buffer go to bin_path when it is not NULL. */
static void write_external_gltf(const char *path, const char *uri, const char *bin_path)
{
    const float pos[12] = {0, 0, 0, 10, 0, 0, 10, 0, -10, 0, 0, -10};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    uint8_t buf[60];
    size_t o = 0;
    for (int i = 0; i < 12; i++, o += 4) {
        uint32_t v;
        memcpy(&v, &pos[i], 4);
        for (int k = 0; k < 4; k++)
            buf[o + k] = (uint8_t)(v >> (8 * k));
    }
    for (int i = 0; i < 6; i++, o += 2)
        buf[o] = (uint8_t)idx[i], buf[o + 1] = (uint8_t)(idx[i] >> 8);
    if (bin_path)
        assert_true(fixture_write(bin_path, buf, sizeof buf));
    char json[8192];
    int n =
        snprintf(json, sizeof json,
                 "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],\n"
                 " \"nodes\": [{\"name\": \"Floor\", \"mesh\": 0}],\n"
                 " \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],\n"
                 " \"buffers\": [{\"byteLength\": 60, \"uri\": \"%s\"}],\n"
                 " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 48},\n"
                 "                 {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 12}],\n"
                 " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\"},\n"
                 "               {\"bufferView\": 1, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"}]}\n",
                 uri);
    assert_true(n > 0 && (size_t)n < sizeof json);
    assert_true(fixture_write(path, json, (size_t)n));
}

/* sweep-import run in folder dir on the scene `name` there, writing out;
 * its exit status (124 if it ran for 20 s: waiting on a FIFO). */
static int import_in(const char *dir, const char *name, const char *out, char *text, size_t len)
{
    char bin[PATH_MAX], cmd[13000];
    if (!realpath(fixture_build("bin/sweep-import"), bin))
        fail_msg("%s is missing: build it with make", fixture_build("bin/sweep-import"));
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout 20 '%s' '%s' -o '%s' --no-check 2>&1", dir, bin, name, out);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(text, 1, len - 1, p);
    text[n] = '\0';
    int rc = pclose(p);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("%s", text);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* A scene is outside input, and assimp opens whatever it names: a glTF
 * buffer naming a FIFO hung the import forever, and one naming a file
 * outside the scene's folder (../x.bin, an absolute path, a link out of
 * it) was read. Only regular files in the scene's folder or below it are
 * read now; anything else fails the import, naming the file and why. */
static void files_the_scene_names_stay_in_its_folder(void **state)
{
    fixture *f = *state;
    char dir[4200], sub[4200], outside[4200], in[4300], out[4200], uri[4300], text[4096];
    snprintf(dir, sizeof dir, "%s", fixture_path(f, "scene"));
    snprintf(sub, sizeof sub, "%s", fixture_path(f, "scene/bin"));
    snprintf(outside, sizeof outside, "%s", fixture_path(f, "outside.bin"));
    snprintf(out, sizeof out, "%s", fixture_path(f, "out.db"));
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(in, sizeof in, "%s/in.gltf", dir);
    write_external_gltf(in, "floor.bin", fixture_path(f, "scene/floor.bin"));
    write_external_gltf(in, "bin/floor.bin", fixture_path(f, "scene/bin/floor.bin"));
    write_external_gltf(in, "../outside.bin", outside);

    /* Beside the scene, or below it: read, as given or by its full path. */
    write_external_gltf(in, "floor.bin", NULL);
    assert_int_equal(import_in(dir, "in.gltf", out, text, sizeof text), 0);
    assert_int_equal(remove(out), 0);
    write_external_gltf(in, "bin/floor.bin", NULL);
    assert_int_equal(import_in(dir, in, out, text, sizeof text), 0);
    assert_int_equal(remove(out), 0);

    /* Outside it: refused, by name. */
    write_external_gltf(in, "../outside.bin", NULL);
    assert_int_equal(import_in(dir, "in.gltf", out, text, sizeof text), 1);
    if (!strstr(text, "cannot import: the scene names '../outside.bin', which lies outside the scene's folder"))
        fail_msg("output '%s'", text);
    snprintf(uri, sizeof uri, "%s", outside);
    write_external_gltf(in, uri, NULL);
    assert_int_equal(import_in(dir, "in.gltf", out, text, sizeof text), 1);
    if (!strstr(text, "which lies outside the scene's folder"))
        fail_msg("output '%s'", text);
    assert_int_equal(symlink(outside, fixture_path(f, "scene/link.bin")), 0);
    write_external_gltf(in, "link.bin", NULL);
    assert_int_equal(import_in(dir, "in.gltf", out, text, sizeof text), 1);
    if (!strstr(text, "the scene names 'link.bin', which lies outside the scene's folder"))
        fail_msg("output '%s'", text);

    /* A file swapped for a link out of the folder between the check of
     * its path and its open (what a writer in the folder could do while
     * the import runs), made certain by a shim that swaps it right after
     * realpath: refused, as the link itself is. */
    char shim_c[4200], shim_so[4200], cmd[24000], bin[PATH_MAX];
    snprintf(shim_c, sizeof shim_c, "%s", fixture_path(f, "shim.c"));
    snprintf(shim_so, sizeof shim_so, "%s", fixture_path(f, "shim.so"));
    const char *shim = "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                       "#include <string.h>\n#include <unistd.h>\n"
                       "char *realpath(const char *p, char *r) {\n"
                       "  static char *(*f)(const char *, char *); static int done;\n"
                       "  if (!f) f = (char *(*)(const char *, char *))dlsym(RTLD_NEXT, \"realpath\");\n"
                       "  char *x = f(p, r); const char *t = getenv(\"SWAP_TO\");\n"
                       "  if (x && t && !done && strstr(p, \"floor.bin\")) {\n"
                       "    done = 1; unlink(p); if (symlink(t, p) != 0) abort(); }\n"
                       "  return x; }\n";
    assert_true(fixture_write(shim_c, shim, strlen(shim)));
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s' -ldl 2>&1", shim_so, shim_c);
    assert_int_equal(system(cmd), 0);
    write_external_gltf(in, "floor.bin", fixture_path(f, "scene/floor.bin"));
    write_external_gltf(in, "floor.bin", NULL);
    assert_non_null(realpath(fixture_build("bin/sweep-import"), bin));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && SWAP_TO='%s' LD_PRELOAD='%s' ASAN_OPTIONS=verify_asan_link_order=0 timeout 20 '%s' in.gltf "
             "-o '%s' --no-check 2>&1",
             dir, outside, shim_so, bin, out);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t got = fread(text, 1, sizeof text - 1, p);
    text[got] = '\0';
    int rc = pclose(p);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    if (!strstr(text, "the scene names 'floor.bin', which lies outside the scene's folder"))
        fail_msg("output '%s'", text);
    assert_int_equal(access(out, F_OK), -1);

    /* A FIFO: refused at once, not waited on. */
    assert_int_equal(mkfifo(fixture_path(f, "scene/fifo.bin"), 0600), 0);
    write_external_gltf(in, "fifo.bin", NULL);
    assert_int_equal(import_in(dir, "in.gltf", out, text, sizeof text), 1);
    if (!strstr(text, "the scene names 'fifo.bin', which is not a regular file"))
        fail_msg("output '%s'", text);
    assert_int_equal(import_in(dir, "fifo.bin", out, text, sizeof text), 1);
    if (!strstr(text, "fifo.bin: cannot import: not a regular file"))
        fail_msg("output '%s'", text);
    assert_int_equal(access(out, F_OK), -1);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(obj_imports, setup, teardown),
        cmocka_unit_test_setup_teardown(gltf_imports, setup, teardown),
        cmocka_unit_test_setup_teardown(glb_imports, setup, teardown),
        cmocka_unit_test_setup_teardown(rules_file_imports, setup, teardown),
        cmocka_unit_test_setup_teardown(broken_files_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(lost_spawns_and_skipped_nodes_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(non_finite_vertices_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(files_the_scene_names_stay_in_its_folder, setup, teardown),
    };
    return cmocka_run_group_tests_name("maps.import", tests, NULL, NULL);
}
