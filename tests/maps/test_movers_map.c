/*
 * test_movers_map.c - movers through the map format: a level with movers
 * written by the writer and read by the loader comes back bit for bit
 * (every mode, trigger and blocked rule, awkward numbers, a degenerate
 * mover triangle), and so does the sample arena; maps of schema version 1
 * still load, as levels without movers under the default rules;
 * the writer refuses movers it could not write faithfully.
 *
 * The error classes of the mover tables are in test_map_errors.c, the
 * arena's movers in use in test_arena.c, the hash format in
 * test_content_hash.c.
 */
#include "tests/maps/map_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/mover.h"
#include "maps/content_hash.h"
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

/* Adds a box mesh (8 corners, 12 triangles with faces out) in the mover's
 * local frame, the same corner numbering as sweep_level_add_box. */
static void add_box(sweep_level_mover *m, sweep_vec3 lo, sweep_vec3 hi, uint32_t material)
{
    static const int faces[6][4] = {{4, 5, 7, 6}, {0, 2, 3, 1}, {1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}};
    uint32_t base = m->vertex_count;
    for (int k = 0; k < 8; k++)
        assert_int_equal(sweep_level_mover_add_vertex(m, sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y,
                                                                  k & 4 ? hi.z : lo.z),
                                                      NULL),
                         SWEEP_OK);
    for (int f = 0; f < 6; f++) {
        const int *q = faces[f];
        assert_int_equal(sweep_level_mover_add_triangle(m, base + q[0], base + q[1], base + q[2], material), SWEEP_OK);
        assert_int_equal(sweep_level_mover_add_triangle(m, base + q[0], base + q[2], base + q[3], material), SWEEP_OK);
    }
}

/* A unit quaternion from four numbers (normalised here, in the test, as an
 * importer would at import time). */
static sweep_quat unit(double x, double y, double z, double w)
{
    sweep_quat q = {x, y, z, w};
    return sweep_quat_normalize(q);
}

/* A floor with three movers that between them use every mode, trigger and
 * blocked rule, numbers that do not round-trip through decimal text, and
 * one degenerate mover triangle (kept, so numbering stays). */
static void movers_level(sweep_level *lv)
{
    sweep_level_init(lv);
    snprintf(lv->name, sizeof lv->name, "movers");
    lv->tick_rate = 50.0;
    assert_int_equal(sweep_level_add_material(lv, 1, "floor", 1.0, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_material(lv, 7, "door", 0.25, 9), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(-20, -20, 0), sweep_v3(20, -20, 0), sweep_v3(20, 20, 0),
                                          sweep_v3(-20, 20, 0), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(lv, sweep_v3(0, 0, 1)), SWEEP_OK);

    uint32_t i;
    assert_int_equal(sweep_level_add_mover(lv, 2, "door", &i), SWEEP_OK);
    sweep_level_mover *m = &lv->movers[i];
    m->mode = SWEEP_MOVER_PINGPONG, m->trigger = SWEEP_TRIGGER_VOLUME, m->blocked = SWEEP_BLOCKED_REVERSE;
    m->wait_start = 0.1, m->wait_end = 1.0 / 3.0;
    m->volume_min = sweep_v3(-1.0 / 3.0, -2, 0), m->volume_max = sweep_v3(3, 2, 2.5);
    add_box(m, sweep_v3(-0.05, 0, 0), sweep_v3(0.05, 1.1, 2.2), 7);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0.0, sweep_v3(1, 0.1, 0), sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0.7, sweep_v3(1, 0.1, 0), unit(0, 0, -0.3, 0.9)), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 1.3, sweep_v3(1, 0.1, 0), unit(0, 0, -1, 1)), SWEEP_OK);

    assert_int_equal(sweep_level_add_mover(lv, 3, "ring", &i), SWEEP_OK);
    m = &lv->movers[i];
    m->mode = SWEEP_MOVER_LOOP, m->trigger = SWEEP_TRIGGER_TOUCH, m->blocked = SWEEP_BLOCKED_CRUSH;
    m->wait_end = 2.5;
    add_box(m, sweep_v3(-1, -1, -0.2), sweep_v3(1, 1, 0), 1);
    /* A degenerate triangle (a repeated corner) at id 12. */
    assert_int_equal(sweep_level_mover_add_triangle(m, 0, 0, 1, 1), SWEEP_OK);
    sweep_vec3 path[4] = {sweep_v3(5, 5, 0.3), sweep_v3(9.1, 5, 0.3), sweep_v3(9.1, 8.7, 1.9), sweep_v3(5, 5, 0.3)};
    for (int k = 0; k < 4; k++)
        assert_int_equal(sweep_level_mover_add_keyframe(m, 1.7 * k, path[k], unit(0.1 * k, 0, 0.2, 1)), SWEEP_OK);
    m->keys[3].pose.rotation = m->keys[0].pose.rotation; /* closed: the same pose */

    assert_int_equal(sweep_level_add_mover(lv, 40000, "gate", &i), SWEEP_OK);
    m = &lv->movers[i];
    m->mode = SWEEP_MOVER_ONCE, m->trigger = SWEEP_TRIGGER_COMMAND, m->blocked = SWEEP_BLOCKED_STOP;
    add_box(m, sweep_v3(0, 0, 0), sweep_v3(nextafter(4.0, 5.0), 0.3, 3), 7);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0.0, sweep_v3(-10, 10, 0), sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 4.0, sweep_v3(-10, 10, -3.1), sweep_quat_identity()),
                     SWEEP_OK);
}

/* Every field of every mover, bit for bit. */
static void assert_same_movers(const sweep_level *a, const sweep_level *b)
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
        if (x->trigger == SWEEP_TRIGGER_VOLUME) {
            assert_memory_equal(&x->volume_min, &y->volume_min, sizeof x->volume_min);
            assert_memory_equal(&x->volume_max, &y->volume_max, sizeof x->volume_max);
        }
        assert_int_equal(x->vertex_count, y->vertex_count);
        assert_int_equal(x->triangle_count, y->triangle_count);
        assert_int_equal(x->key_count, y->key_count);
        assert_memory_equal(x->vertices, y->vertices, x->vertex_count * sizeof *x->vertices);
        assert_memory_equal(x->indices, y->indices, 3 * (size_t)x->triangle_count * sizeof *x->indices);
        assert_memory_equal(x->materials, y->materials, x->triangle_count * sizeof *x->materials);
        assert_memory_equal(x->keys, y->keys, x->key_count * sizeof *x->keys);
    }
}

static void assert_same_hash(const sweep_level *a, const sweep_level *b)
{
    sweep_content_hash ha, hb;
    assert_int_equal(sweep_level_content_hash(a, &ha), SWEEP_OK);
    assert_int_equal(sweep_level_content_hash(b, &hb), SWEEP_OK);
    assert_memory_equal(ha.bytes, hb.bytes, sizeof ha.bytes);
}

static void level_with_movers_round_trips(void **state)
{
    fixture *f = *state;
    sweep_level lv, back;
    movers_level(&lv);
    sweep_movers *mv;
    assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK); /* the core takes them as they are */
    sweep_movers_destroy(mv);

    const char *path = fixture_path(f, "movers.db");
    sweep_map_write_result res;
    char err[512];
    if (sweep_map_write(path, &lv, NULL, &res, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(res.load.schema_version, SWEEP_MAP_SCHEMA_VERSION);
    assert_int_equal(res.load.mover_degenerate, 1);

    sweep_map_load_info info;
    if (sweep_map_load(path, &back, &info, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(info.schema_version, SWEEP_MAP_SCHEMA_VERSION);
    assert_same_movers(&lv, &back);
    assert_same_hash(&lv, &back);
    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(&back, &h), SWEEP_OK);
    assert_memory_equal(res.hash.bytes, h.bytes, sizeof h.bytes);
    /* A trigger other than volume has no box in the map. */
    assert_true(back.movers[1].volume_min.x == 0.0 && back.movers[1].volume_max.z == 0.0);

    /* Mover triangles are numbered after the static ones, in mover order,
     * degenerate ones included (schema.sql). */
    assert_int_equal(sweep_level_build_movers(&back, &mv), SWEEP_OK);
    uint32_t first = back.triangle_count;
    assert_int_equal(sweep_movers_of_triangle(mv, first - 1), SWEEP_NO_MOVER);
    assert_int_equal(sweep_movers_of_triangle(mv, first + 11), 0);
    assert_int_equal(sweep_movers_of_triangle(mv, first + 12), 1);
    assert_int_equal(sweep_movers_of_triangle(mv, first + 12 + 12), 1); /* the degenerate one */
    assert_int_equal(sweep_movers_of_triangle(mv, first + 12 + 13), 2);
    assert_int_equal(sweep_movers_of_triangle(mv, first + 12 + 13 + 12), SWEEP_NO_MOVER);
    assert_int_equal(sweep_level_find_mover(&back, "gate"), 2);
    sweep_movers_destroy(mv);

    /* Written again from what was loaded: the same file contents. */
    const char *again = fixture_path(f, "again.db");
    sweep_level third;
    if (sweep_map_write(again, &back, NULL, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(sweep_map_load(again, &third, NULL, err, sizeof err), SWEEP_OK);
    assert_same_movers(&back, &third);
    sweep_level_free(&third);
    sweep_level_free(&back);
    sweep_level_free(&lv);
}

static void arena_round_trips(void **state)
{
    fixture *f = *state;
    char *rows = fixture_read(fixture_src("maps/arena.sql"), NULL);
    assert_non_null(rows);
    const char *db = fixture_path(f, "arena.db");
    assert_true(fixture_build_map(db, rows));
    free(rows);
    sweep_level a, b;
    char err[512];
    if (sweep_map_load(db, &a, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(a.mover_count, 4);

    const char *out = fixture_path(f, "arena-written.db");
    if (sweep_map_write(out, &a, NULL, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    if (sweep_map_load(out, &b, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(a.triangle_count, b.triangle_count);
    assert_memory_equal(a.vertices, b.vertices, a.vertex_count * sizeof *a.vertices);
    assert_memory_equal(a.indices, b.indices, 3 * (size_t)a.triangle_count * sizeof *a.indices);
    assert_same_movers(&a, &b);
    assert_same_hash(&a, &b);
    sweep_level_free(&a);
    sweep_level_free(&b);
}

/* The tiny map of map_fixture.h turned into a version 1 map: the same
 * tables, no mover tables, user_version 1 (a map written before movers). */
static const char *version_1_map(fixture *f, const char *name, int keep_mover_tables)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, name));
    assert_true(fixture_build_map(path, fixture_tiny_rows));
    assert_true(fixture_exec(path, keep_mover_tables
                                       ? "PRAGMA user_version = 1;"
                                       : "DROP TABLE mover_keyframes; DROP TABLE mover_triangles;"
                                         "DROP TABLE mover_vertices; DROP TABLE movers; PRAGMA user_version = 1;"));
    return path;
}

static void version_1_map_loads(void **state)
{
    fixture *f = *state;
    sweep_level v1, v2;
    sweep_map_load_info info;
    char err[512];
    if (sweep_map_load(version_1_map(f, "v1.db", 0), &v1, &info, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(info.schema_version, 1);
    assert_int_equal(v1.mover_count, 0);
    assert_null(v1.movers);
    assert_int_equal(v1.triangle_count, 2);
    assert_int_equal(v1.spawn_count, 1);
    /* No rule columns: the default rules, and their speed limit for every
     * move. */
    sweep_rules def;
    sweep_rules_default(&def);
    assert_memory_equal(&v1.rules, &def, sizeof def);
    assert_true(v1.correction_threshold == 0.25);
    assert_true(v1.config.max_speed == def.speed_limit);

    /* The same rows in a map of this version, whose rule columns take the
     * schema's DEFAULTs: the same level and hash, so those DEFAULTs are the
     * core's defaults to the last bit. */
    const char *p2 = fixture_path(f, "v2.db");
    assert_true(fixture_build_map(p2, fixture_tiny_rows));
    assert_int_equal(sweep_map_load(p2, &v2, &info, err, sizeof err), SWEEP_OK);
    assert_int_equal(info.schema_version, SWEEP_MAP_SCHEMA_VERSION);
    assert_same_hash(&v1, &v2);
    sweep_content_hash h;
    char hex[65];
    assert_int_equal(sweep_level_content_hash(&v1, &h), SWEEP_OK);
    sweep_content_hash_hex(&h, hex);
    /* Pinned (content hash version 2, with the rules; it was
     * 5f87b1f4... in version 1). */
    assert_string_equal(hex, "9079e2b420e2d890da937c9c222df2b18fb61fcd89181911d468216d00d80fa2");
    sweep_level_free(&v1);
    sweep_level_free(&v2);

    /* A version 1 map says nothing about movers, even if some tool left
     * tables of those names in it. */
    const char *stray = version_1_map(f, "stray.db", 1);
    assert_true(fixture_exec(stray, "INSERT INTO movers (id, name, mode, trigger, blocked) "
                                    "VALUES (1, 'x', 'once', 'always', 'stop');"));
    if (sweep_map_load(stray, &v1, &info, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(v1.mover_count, 0);
    sweep_level_free(&v1);
}

/* Writes lv (expecting failure) and checks the message and that nothing
 * was left behind. */
static void write_fails(fixture *f, const sweep_level *lv, const char *frag)
{
    char err[512];
    assert_int_not_equal(sweep_map_write(fixture_path(f, "bad.db"), lv, NULL, NULL, err, sizeof err), SWEEP_OK);
    if (!strstr(err, frag))
        fail_msg("message '%s' lacks '%s'", err, frag);
    assert_int_equal(fixture_count_files(f), 0);
}

static void writer_refuses_bad_movers(void **state)
{
    fixture *f = *state;
    sweep_level lv;

    /* Out of id order: the map would load them in another order, with
     * other triangle numbers. */
    movers_level(&lv);
    lv.movers[1].id = 1;
    write_fails(f, &lv, "increasing id order");
    lv.movers[1].id = 2; /* a repeated id */
    write_fails(f, &lv, "increasing id order");
    sweep_level_free(&lv);

    movers_level(&lv);
    snprintf(lv.movers[2].name, sizeof lv.movers[2].name, "door");
    write_fails(f, &lv, "movers row id=40000");
    sweep_level_free(&lv);

    movers_level(&lv);
    lv.movers[0].keys[1].pose.rotation.w = 2.0;
    write_fails(f, &lv, "mover_keyframes row mover=2 id=1");
    sweep_level_free(&lv);

    movers_level(&lv);
    lv.movers[1].keys[3].pose.position.x = 5.5; /* the loop no longer closes */
    write_fails(f, &lv, "a loop path must end at the pose it starts from");
    sweep_level_free(&lv);

    movers_level(&lv);
    lv.movers[2].materials[4] = 3;
    write_fails(f, &lv, "material");
    sweep_level_free(&lv);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(level_with_movers_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(arena_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(version_1_map_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(writer_refuses_bad_movers, setup, teardown),
    };
    return cmocka_run_group_tests_name("maps.movers_map", tests, NULL, NULL);
}
