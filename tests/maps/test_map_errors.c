/*
 * test_map_errors.c - the loader refuses every kind of broken map with the
 * right error code and a message naming the table and row, and leaves the
 * output level empty; degenerate triangles are dropped and counted.
 *
 * Each test starts from the tiny valid map of map_fixture.h, breaks one
 * thing, and loads it.
 */
#include "tests/maps/map_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "maps/loader.h"

typedef struct outcome {
    sweep_status status;
    sweep_map_load_info info;
    char err[512];
    sweep_level lv;
} outcome;

static int setup(void **state)
{
    fixture *f = fixture_new();
    if (!f)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_cleanup(*state);
    return 0;
}

/* The tiny map at <dir>/map.db, with `breakage` run on it afterwards
 * (CHECK constraints off, so the test can store what the schema forbids). */
static const char *tiny_map(fixture *f, const char *breakage)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "map.db"));
    assert_true(fixture_build_map(path, fixture_tiny_rows));
    if (breakage) {
        char sql[2048];
        snprintf(sql, sizeof sql, "PRAGMA ignore_check_constraints = 1; %s", breakage);
        assert_true(fixture_exec(path, sql));
    }
    return path;
}

static void load(const char *path, outcome *o)
{
    memset(o, 0xab, sizeof *o); /* the loader must not rely on it */
    o->status = sweep_map_load(path, &o->lv, &o->info, o->err, sizeof o->err);
    if (o->status != SWEEP_OK) {
        /* A failed load leaves an empty level and says something. */
        assert_int_equal(o->lv.triangle_count, 0);
        assert_int_equal(o->lv.vertex_count, 0);
        assert_null(o->lv.vertices);
        assert_true(strlen(o->err) > 10);
    }
}

/* Asserts a failed load with this error, table and row, and that the
 * message contains each of the given fragments. */
static void expect(outcome *o, sweep_map_error e, const char *table, int64_t row, const char *frag1,
                   const char *frag2)
{
    if (o->info.error != e)
        fail_msg("expected %s, got %s: %s", sweep_map_error_name(e), sweep_map_error_name(o->info.error), o->err);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  %s: %s\n", sweep_map_error_name(e), o->err);
    assert_int_not_equal(o->status, SWEEP_OK);
    assert_string_equal(o->info.table, table);
    assert_int_equal(o->info.row_id, row);
    if (frag1 && !strstr(o->err, frag1))
        fail_msg("message '%s' lacks '%s'", o->err, frag1);
    if (frag2 && !strstr(o->err, frag2))
        fail_msg("message '%s' lacks '%s'", o->err, frag2);
    sweep_level_free(&o->lv);
}

static void tiny_map_loads(void **state)
{
    outcome o;
    load(tiny_map(*state, NULL), &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.info.error, SWEEP_MAP_OK);
    assert_string_equal(o.lv.name, "tiny");
    assert_int_equal(o.lv.vertex_count, 4);
    assert_int_equal(o.lv.triangle_count, 2);
    assert_int_equal(o.lv.material_count, 1);
    assert_int_equal(o.lv.spawn_count, 1);
    assert_int_equal(o.info.degenerate_dropped, 0);
    assert_int_equal(o.info.schema_version, 1);
    assert_string_equal(o.info.units, "m");
    assert_true(o.lv.config.gravity.z == -9.81);
    assert_true(o.lv.config.step_height == 0.35);
    assert_true(o.lv.config.walkable_normal_up == sweep_cos_degrees(45.0));
    assert_true(o.lv.default_radii.z == 0.9);
    assert_true(o.lv.vertices[2].x == 10.0 && o.lv.vertices[2].y == 10.0);
    sweep_level_free(&o.lv);
}

static void truncated_file(void **state)
{
    const char *path = tiny_map(*state, NULL);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size >= 4 * 4096);
    assert_int_equal(truncate(path, sb.st_size / 2 + 100), 0);
    outcome o;
    load(path, &o);
    expect(&o, SWEEP_MAP_E_TRUNCATED, "", -1, "truncated", "bytes");
}

static void not_a_database(void **state)
{
    fixture *f = *state;
    const char *path = fixture_path(f, "notes.db");
    char text[4096];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = "this is a text file, not a map\n"[i % 31];
    assert_true(fixture_write(path, text, sizeof text));
    outcome o;
    load(path, &o);
    expect(&o, SWEEP_MAP_E_NOT_DATABASE, "", -1, "not an SQLite database", NULL);
}

static void empty_file(void **state)
{
    const char *path = fixture_path(*state, "empty.db");
    assert_true(fixture_write(path, "", 0));
    outcome o;
    load(path, &o);
    expect(&o, SWEEP_MAP_E_EMPTY_FILE, "", -1, "empty", NULL);
}

static void missing_file(void **state)
{
    outcome o;
    load(fixture_path(*state, "no-such-map.db"), &o);
    expect(&o, SWEEP_MAP_E_OPEN, "", -1, "No such file", NULL);
    /* A read-only open must not create it. */
    assert_int_equal(access(fixture_path(*state, "no-such-map.db"), F_OK), -1);
}

static void damaged_page(void **state)
{
    /* Overwrite the page holding the triangles table's b-tree with junk. */
    const char *path = tiny_map(*state, NULL);
    int64_t root = 0;
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE name = 'triangles'", -1, &st,
                                        NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    root = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_true(root > 1);
    size_t len;
    char *bytes = fixture_read(path, &len);
    assert_non_null(bytes);
    memset(bytes + (root - 1) * 4096, 0x5a, 4096);
    assert_true(fixture_write(path, bytes, len));
    free(bytes);
    outcome o;
    load(path, &o);
    expect(&o, SWEEP_MAP_E_CORRUPT, "triangles", -1, "damaged", NULL);
}

static void other_sqlite_database(void **state)
{
    const char *path = fixture_path(*state, "other.db");
    assert_true(fixture_exec(path, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x');"));
    outcome o;
    load(path, &o);
    expect(&o, SWEEP_MAP_E_NOT_MAP, "", -1, "not a sweep map", "application_id");
}

static void wrong_schema_version(void **state)
{
    outcome o;
    load(tiny_map(*state, "PRAGMA user_version = 2;"), &o);
    expect(&o, SWEEP_MAP_E_VERSION, "", -1, "schema version 2", "newer");
    assert_int_equal(o.info.schema_version, 2);
}

static void missing_table(void **state)
{
    outcome o;
    load(tiny_map(*state, "DROP TABLE spawns;"), &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "spawns", -1, "spawns", "missing");
}

static void missing_column(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TABLE v2 AS SELECT id, x, y FROM vertices; DROP TABLE vertices;"
                          "ALTER TABLE v2 RENAME TO vertices;"),
         &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "vertices", -1, "vertices: ", "z");
}

static void nan_coordinate(void **state)
{
    /* SQLite cannot hold a NaN double (it stores NULL), so a NaN reaches a
     * map as the text 'NaN' or as NULL; both are refused. */
    outcome o;
    load(tiny_map(*state, "UPDATE vertices SET x = 'NaN' WHERE id = 2;"), &o);
    expect(&o, SWEEP_MAP_E_VALUE, "vertices", 2, "vertices row id=2: x", "NaN");
}

static void infinite_coordinate(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE vertices SET z = 9e999 WHERE id = 3;"), &o);
    expect(&o, SWEEP_MAP_E_VALUE, "vertices", 3, "vertices row id=3: z", "finite");
}

static void coordinate_beyond_limit(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE vertices SET y = -2e7 WHERE id = 1;"), &o);
    expect(&o, SWEEP_MAP_E_VALUE, "vertices", 1, "vertices row id=1: y=-2e+07", "limit");
}

static void index_out_of_range(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE triangles SET b = 99 WHERE id = 1;"), &o);
    expect(&o, SWEEP_MAP_E_INDEX, "triangles", 1, "triangles row id=1: vertex b=99", "out of range");
}

static void negative_index(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE triangles SET c = -1 WHERE id = 0;"), &o);
    expect(&o, SWEEP_MAP_E_INDEX, "triangles", 0, "vertex c=-1", NULL);
}

static void text_index(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE triangles SET a = 'two' WHERE id = 1;"), &o);
    expect(&o, SWEEP_MAP_E_INDEX, "triangles", 1, "a is not a whole number", NULL);
}

static void unknown_material(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE triangles SET material = 7 WHERE id = 1;"), &o);
    expect(&o, SWEEP_MAP_E_MATERIAL, "triangles", 1, "material 7", "materials");
}

static void duplicate_material_name(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TABLE m2 AS SELECT * FROM materials;"
                          "DROP TABLE materials; CREATE TABLE materials (id INTEGER PRIMARY KEY, name TEXT,"
                          " friction REAL, flags INTEGER); INSERT INTO materials SELECT * FROM m2;"
                          "INSERT INTO materials VALUES (9, 'floor', 1.0, 0);"),
         &o);
    expect(&o, SWEEP_MAP_E_MATERIAL, "materials", 9, "'floor'", NULL);
}

static void zero_triangles(void **state)
{
    outcome o;
    load(tiny_map(*state, "DELETE FROM triangles;"), &o);
    expect(&o, SWEEP_MAP_E_NO_TRIANGLES, "triangles", -1, "triangles: ", "at least one triangle");
}

static void vertex_id_gap(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE vertices SET id = 5 WHERE id = 3; UPDATE triangles SET c = 5 WHERE id = 1;"),
         &o);
    expect(&o, SWEEP_MAP_E_VERTEX_ID, "vertices", 5, "expected id 3", NULL);
}

static void bad_metadata(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE map SET radius_y = 0;"), &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", 1, "map row id=1: radius_y=0", NULL);
    load(tiny_map(*state, "UPDATE map SET walkable_slope_deg = 90;"), &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", 1, "walkable_slope_deg=90", NULL);
    assert_int_equal(o.status, SWEEP_E_CONFIG);
    load(tiny_map(*state, "DELETE FROM map;"), &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", -1, "exactly one row", NULL);
    load(tiny_map(*state, "UPDATE map SET name = '';"), &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", 1, "name", NULL);
}

static void degenerate_triangles_dropped(void **state)
{
    /* Row 5 repeats a vertex, row 7 is three collinear points; both go,
     * and the rest keep their order. */
    outcome o;
    load(tiny_map(*state, "INSERT INTO vertices VALUES (4, 5, 0, 0);"
                          "INSERT INTO triangles VALUES (5, 0, 0, 1, 1), (6, 1, 3, 2, 1), (7, 0, 4, 1, 1);"),
         &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.info.triangle_rows, 5);
    assert_int_equal(o.lv.triangle_count, 3);
    assert_int_equal(o.info.degenerate_dropped, 2);
    assert_int_equal(o.info.first_degenerate_id, 5);
    assert_int_equal(o.lv.indices[6], 1);
    assert_int_equal(o.lv.indices[7], 3);
    sweep_level_free(&o.lv);
}

static void all_triangles_degenerate(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE triangles SET b = a;"), &o);
    expect(&o, SWEEP_MAP_E_NO_TRIANGLES, "triangles", -1, "all 2 triangles are degenerate", NULL);
}

static void uri_like_path_is_a_file(void **state)
{
    /* "file:..." must be read as a file name, not as an SQLite URI. */
    fixture *f = *state;
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    char *path = strdup(tiny_map(f, NULL));
    assert_int_equal(chdir(f->dir), 0);
    assert_int_equal(rename(path, "file:map.db?mode=rwc"), 0);
    outcome o;
    load("file:map.db?mode=rwc", &o);
    assert_int_equal(chdir(cwd), 0);
    free(path);
    assert_int_equal(o.status, SWEEP_OK);
    sweep_level_free(&o.lv);
}

static void null_arguments(void **state)
{
    (void)state;
    sweep_level lv;
    char err[128];
    assert_int_equal(sweep_map_load(NULL, &lv, NULL, err, sizeof err), SWEEP_E_ARG);
    assert_int_equal(sweep_map_load("x.db", NULL, NULL, NULL, 0), SWEEP_E_ARG);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(tiny_map_loads, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_file, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_database, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_file, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_page, setup, teardown),
        cmocka_unit_test_setup_teardown(other_sqlite_database, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_schema_version, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_table, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_column, setup, teardown),
        cmocka_unit_test_setup_teardown(nan_coordinate, setup, teardown),
        cmocka_unit_test_setup_teardown(infinite_coordinate, setup, teardown),
        cmocka_unit_test_setup_teardown(coordinate_beyond_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(index_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(negative_index, setup, teardown),
        cmocka_unit_test_setup_teardown(text_index, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_material, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicate_material_name, setup, teardown),
        cmocka_unit_test_setup_teardown(zero_triangles, setup, teardown),
        cmocka_unit_test_setup_teardown(vertex_id_gap, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_metadata, setup, teardown),
        cmocka_unit_test_setup_teardown(degenerate_triangles_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(all_triangles_degenerate, setup, teardown),
        cmocka_unit_test_setup_teardown(uri_like_path_is_a_file, setup, teardown),
        cmocka_unit_test(null_arguments),
    };
    return cmocka_run_group_tests_name("maps.errors", tests, NULL, NULL);
}
