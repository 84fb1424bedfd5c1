/*
 * test_map_errors.c - the loader refuses every kind of broken map with the
 * right error code and a message naming the table and row, and leaves the
 * output level empty; degenerate triangles are dropped and counted.
 *
 * Each test starts from the tiny valid map of map_fixture.h, breaks one
 * thing, and loads it. The mover tests start from the tiny map with two
 * movers on it (mover_rows below) and name rows of the mover tables by
 * mover and id.
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

/* Two movers on the tiny map, both a 1 m box with faces out (corner k has
 * bit 0 = x, bit 1 = y, bit 2 = z high): mover 3 'box', a volume-triggered
 * pingpong with a turn of 90 degrees about +z at its last keyframe, and
 * mover 5 'ring', an always-running closed loop. */
static const char mover_rows[] =
    "INSERT INTO movers VALUES (3, 'box', 'pingpong', 'volume', 'stop', 0.5, 1.0, 0, 0, 0, 10, 10, 3),\n"
    "    (5, 'ring', 'loop', 'always', 'crush', 0, 0, NULL, NULL, NULL, NULL, NULL, NULL);\n"
    "INSERT INTO mover_vertices VALUES (3, 0, 0, 0, 0), (3, 1, 1, 0, 0), (3, 2, 0, 1, 0), (3, 3, 1, 1, 0),\n"
    "    (3, 4, 0, 0, 1), (3, 5, 1, 0, 1), (3, 6, 0, 1, 1), (3, 7, 1, 1, 1);\n"
    "INSERT INTO mover_triangles VALUES (3, 0, 4, 5, 7, 1), (3, 1, 4, 7, 6, 1), (3, 2, 0, 2, 3, 1),\n"
    "    (3, 3, 0, 3, 1, 1), (3, 4, 1, 3, 7, 1), (3, 5, 1, 7, 5, 1), (3, 6, 0, 4, 6, 1), (3, 7, 0, 6, 2, 1),\n"
    "    (3, 8, 2, 6, 7, 1), (3, 9, 2, 7, 3, 1), (3, 10, 0, 1, 5, 1), (3, 11, 0, 5, 4, 1);\n"
    "INSERT INTO mover_keyframes VALUES (3, 0, 0, 2, 2, 0, 0, 0, 0, 1), (3, 1, 1.5, 2, 2, 2, 0, 0, 0, 1),\n"
    "    (3, 2, 3, 5, 2, 2, 0, 0, 0.7071067811865475, 0.7071067811865476);\n"
    "INSERT INTO mover_vertices SELECT 5, id, x, y, z FROM mover_vertices WHERE mover = 3;\n"
    "INSERT INTO mover_triangles SELECT 5, id, a, b, c, material FROM mover_triangles WHERE mover = 3;\n"
    "INSERT INTO mover_keyframes VALUES (5, 0, 0, 1, 1, 1, 0, 0, 0, 1), (5, 1, 1, 3, 1, 1, 0, 0, 0, 1),\n"
    "    (5, 2, 2, 1, 1, 1, 0, 0, 0, 1);\n";

/* Builds `rows` at <dir>/map.db, then runs `breakage` on it (CHECK
 * constraints off, so the test can store what the schema forbids). */
static const char *build_map(fixture *f, const char *rows, const char *breakage)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "map.db"));
    assert_true(fixture_build_map(path, rows));
    if (breakage) {
        char sql[2048];
        snprintf(sql, sizeof sql, "PRAGMA ignore_check_constraints = 1; %s", breakage);
        assert_true(fixture_exec(path, sql));
    }
    return path;
}

/* The tiny map, broken by `breakage` (may be NULL). */
static const char *tiny_map(fixture *f, const char *breakage)
{
    return build_map(f, fixture_tiny_rows, breakage);
}

/* The tiny map with mover_rows, broken by `breakage` (may be NULL). */
static const char *mover_map(fixture *f, const char *breakage)
{
    static char rows[sizeof fixture_tiny_rows + sizeof mover_rows];
    snprintf(rows, sizeof rows, "%s%s", fixture_tiny_rows, mover_rows);
    return build_map(f, rows, breakage);
}

static void load(const char *path, outcome *o)
{
    memset(o, 0xab, sizeof *o); /* the loader must not rely on it */
    o->status = sweep_map_load(path, &o->lv, &o->info, o->err, sizeof o->err);
    if (o->status != SWEEP_OK) {
        /* A failed load leaves an empty level and says something. */
        assert_int_equal(o->lv.triangle_count, 0);
        assert_int_equal(o->lv.vertex_count, 0);
        assert_int_equal(o->lv.mover_count, 0);
        assert_null(o->lv.vertices);
        assert_null(o->lv.movers);
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
    assert_int_equal(o.info.schema_version, SWEEP_MAP_SCHEMA_VERSION);
    assert_int_equal(o.lv.mover_count, 0);
    assert_true(o.lv.history_ms == 1000.0 && o.lv.rewind_cap_ms == 250.0);
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
    load(tiny_map(*state, "PRAGMA user_version = 5;"), &o);
    expect(&o, SWEEP_MAP_E_VERSION, "", -1, "schema version 5", "newer");
    assert_int_equal(o.info.schema_version, 5);
    load(tiny_map(*state, "PRAGMA user_version = 0;"), &o);
    expect(&o, SWEEP_MAP_E_VERSION, "", -1, "schema version 0", "versions 1 to 4");
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

/* An index SQLite hands back as a whole REAL (a column without INTEGER
 * affinity keeps 1.0 as 1.0) is the index; a fraction in an integer
 * column (whose affinity keeps 2.5 as it is) is refused by name. */
static void whole_real_index_is_an_index(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TABLE t2 (id INTEGER PRIMARY KEY, a, b, c, material);"
                          "INSERT INTO t2 SELECT id, a * 1.0, b * 1.0, c * 1.0, material FROM triangles;"
                          "DROP TABLE triangles; ALTER TABLE t2 RENAME TO triangles;"),
         &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.lv.triangle_count, 2);
    sweep_level_free(&o.lv);
}

static void fractional_flags(void **state)
{
    outcome o;
    load(tiny_map(*state, "UPDATE materials SET flags = 2.5 WHERE id = 1;"), &o);
    expect(&o, SWEEP_MAP_E_MATERIAL, "materials", 1, "flags is not a whole number (2.5)", NULL);
}

static void no_materials(void **state)
{
    outcome o;
    load(tiny_map(*state, "DELETE FROM materials;"), &o);
    expect(&o, SWEEP_MAP_E_MATERIAL, "materials", -1, "no rows: every triangle needs a material", NULL);
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

/* A table written without the schema's PRIMARY KEY can hold one id twice:
 * a triangle's material, or a command's mover, would then name two rows.
 * (Sorted by id, the second of the two is the one refused.) */
static void repeated_material_id(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TABLE m2 AS SELECT * FROM materials; DROP TABLE materials;"
                          "ALTER TABLE m2 RENAME TO materials;"
                          "INSERT INTO materials VALUES (1, 'ice', 0.1, 0);"),
         &o);
    expect(&o, SWEEP_MAP_E_MATERIAL, "materials", 1, "materials row id=1", "id 1 is also the id of another row");
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

/* The metadata's one row and what its columns hold, a coordinate that is
 * bytes, and a path that is a directory: each refused by name. */
static void rows_types_and_paths(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TEMP TABLE m2 AS SELECT * FROM map; UPDATE m2 SET id = 2;"
                          "INSERT INTO map SELECT * FROM m2;"),
         &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", 2, "a second row: a map has exactly one row of metadata", NULL);
    load(tiny_map(*state, "UPDATE map SET name = x'00ff';"), &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", 1, "name is not text (blob)", NULL);
    load(tiny_map(*state, "UPDATE vertices SET y = x'01' WHERE id = 2;"), &o);
    expect(&o, SWEEP_MAP_E_VALUE, "vertices", 2, "y is not a finite number (blob)", NULL);
    const char *dir = fixture_path(*state, "a-directory.db");
    assert_int_equal(mkdir(dir, 0700), 0);
    load(dir, &o);
    expect(&o, SWEEP_MAP_E_OPEN, "", -1, "not a regular file", NULL);
    assert_int_equal(rmdir(dir), 0);
}

/* A table that runs code when it is read is refused before it is read: a
 * virtual table whose content is an endless recursive view (the load hung
 * while SQLite filled a temporary file), a generated column, a view in a
 * table's place. sweep_map_read_name (a name looked up by sweepd's
 * OpenWorld) checks the same before it reads. */
static void tables_that_run_code_are_refused(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE VIEW endless AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                          "SELECT i AS id, 0.0 AS x, 0.0 AS y, 0.0 AS z FROM n;"
                          "CREATE TABLE v2 AS SELECT * FROM vertices; DROP TABLE vertices;"
                          "CREATE VIRTUAL TABLE vertices USING fts5(id, x, y, z, content='endless', "
                          "content_rowid='id');"),
         &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "vertices", -1, "not a plain table (a virtual table", NULL);
    load(tiny_map(*state, "CREATE TABLE v2 AS SELECT * FROM vertices; DROP TABLE vertices;"
                          "CREATE TABLE vertices (id INTEGER PRIMARY KEY, x REAL, y REAL, "
                          "zz REAL, z REAL GENERATED ALWAYS AS (zz + 0 * length(zeroblob(100000000))));"
                          "INSERT INTO vertices (id, x, y, zz) SELECT id, x, y, z FROM v2;"),
         &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "vertices", -1, "column z is generated or hidden", NULL);
    const char *path = tiny_map(*state, "CREATE TABLE m2 AS SELECT * FROM map; DROP TABLE map;"
                                        "CREATE VIEW map AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                                        "FROM n) SELECT m2.* FROM m2, n WHERE i < 0;");
    load(path, &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "map", -1, "the table is missing", NULL);
    char name[64] = "unchanged";
    assert_int_equal(sweep_map_read_name(path, name, sizeof name), -1);
    assert_string_equal(name, "");
}

/* Each movement rule out of range, not a number, or missing, refused
 * with a message naming its column. */
static void bad_rules(void **state)
{
    static const struct {
        const char *set;  /* SET clause of an UPDATE of the map row */
        sweep_map_error error;
        const char *frag;
    } cases[] = {
        {"walk_speed = 0", SWEEP_MAP_E_METADATA, "map row id=1: walk_speed=0 must be in (0, 1e6] units/s"},
        {"walk_speed = -5", SWEEP_MAP_E_METADATA, "walk_speed=-5 must be"},
        {"walk_speed = 2e6, speed_limit = 1e7", SWEEP_MAP_E_METADATA, "walk_speed=2e+06 must be"},
        {"ground_accel = 0", SWEEP_MAP_E_METADATA, "ground_accel=0 must be in (0, 1e9] units/s^2"},
        {"ground_accel = 1e10", SWEEP_MAP_E_METADATA, "ground_accel=1e+10 must be"},
        {"air_accel = -0.5", SWEEP_MAP_E_METADATA, "air_accel=-0.5 must be in [0, 1e9] units/s^2"},
        {"jump_speed = -1", SWEEP_MAP_E_METADATA, "jump_speed=-1 must be in [0, 1e6] units/s"},
        {"max_step = 0", SWEEP_MAP_E_METADATA, "max_step=0 must be in [0.001, 1] s"},
        {"max_step = 1.5", SWEEP_MAP_E_METADATA, "max_step=1.5 must be in [0.001, 1] s"},
        {"speed_limit = 0", SWEEP_MAP_E_METADATA, "speed_limit=0 must be in (0, 1e7] units/s"},
        {"speed_limit = 2e7", SWEEP_MAP_E_METADATA, "speed_limit=2e+07 must be"},
        {"speed_limit = 4", SWEEP_MAP_E_METADATA, "speed_limit=4 must be at least walk_speed=5 and jump_speed=5"},
        {"jump_speed = 61", SWEEP_MAP_E_METADATA, "speed_limit=60 must be at least walk_speed=5 and jump_speed=61"},
        {"correction_threshold = -0.25", SWEEP_MAP_E_METADATA,
         "correction_threshold=-0.25 must be finite and at least 0 units"},
        /* Not a finite number: the column is named too. */
        {"correction_threshold = 9e999", SWEEP_MAP_E_VALUE,
         "map row id=1: correction_threshold is not a finite number"},
        {"speed_limit = -9e999", SWEEP_MAP_E_VALUE, "speed_limit is not a finite number"},
        {"walk_speed = 'fast'", SWEEP_MAP_E_VALUE, "walk_speed is not a finite number (text 'fast')"},
        {"max_step = NULL", SWEEP_MAP_E_VALUE, "max_step is not a finite number (NULL)"},
        {"air_accel = x'00'", SWEEP_MAP_E_VALUE, "air_accel is not a finite number (blob)"},
        {"history_ms = 0", SWEEP_MAP_E_METADATA, "history_ms=0 must be between 1 and 60000 ms"},
        {"history_ms = 60001", SWEEP_MAP_E_METADATA, "history_ms=60001 must be between 1 and 60000 ms"},
        {"rewind_cap_ms = -250", SWEEP_MAP_E_METADATA, "rewind_cap_ms=-250 must be between 1 and 60000 ms"},
        {"rewind_cap_ms = 'long'", SWEEP_MAP_E_VALUE, "rewind_cap_ms is not a finite number (text 'long')"},
        {"crouch_speed = -1", SWEEP_MAP_E_METADATA, "crouch_speed=-1 must be in [0, walk_speed] units/s"},
        {"crouch_speed = 6, crouch_radius_x = 0.4, crouch_radius_y = 0.4, crouch_radius_z = 0.5", SWEEP_MAP_E_METADATA,
         "crouch_speed=6 must be at most walk_speed=5"},
        {"crouch_speed = 2", SWEEP_MAP_E_METADATA, "crouch radii (0, 0, 0) outside [0.01, 100]"},
        {"crouch_speed = 2, crouch_radius_x = 0.4, crouch_radius_y = 0.4, crouch_radius_z = 0.001",
         SWEEP_MAP_E_METADATA, "crouch radii (0.4, 0.4, 0.001) outside"},
        {"crouch_radius_z = 0.5", SWEEP_MAP_E_METADATA, "without a crouch_speed: set crouch_speed, or all to 0"},
        /* Taller or wider when crouched than standing (0.4, 0.4, 0.9). */
        {"crouch_speed = 2, crouch_radius_x = 0.4, crouch_radius_y = 0.4, crouch_radius_z = 2", SWEEP_MAP_E_METADATA,
         "crouch radii (0.4, 0.4, 2) must fit inside the standing radii (0.4, 0.4, 0.9)"},
        {"crouch_speed = 2, crouch_radius_x = 0.8, crouch_radius_y = 0.4, crouch_radius_z = 0.5", SWEEP_MAP_E_METADATA,
         "crouch radii (0.8, 0.4, 0.5) must fit inside the standing radii"},
        {"crouch_speed = 'slow'", SWEEP_MAP_E_VALUE, "crouch_speed is not a finite number (text 'slow')"},
        {"air_move = 0.5", SWEEP_MAP_E_METADATA, "air_move=0.5 must be 0 (the velocity turns towards the wish) or 1"},
        {"air_move = -1", SWEEP_MAP_E_METADATA, "air_move=-1 must be 0"},
        {"air_move = 'quake'", SWEEP_MAP_E_VALUE, "air_move is not a finite number (text 'quake')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sql[256];
        /* NOT NULL is no CHECK constraint: rebuild the row without it. */
        snprintf(sql, sizeof sql,
                 "CREATE TABLE m2 AS SELECT * FROM map; DROP TABLE map; ALTER TABLE m2 RENAME TO map;"
                 "UPDATE map SET %s;",
                 cases[i].set);
        outcome o;
        load(tiny_map(*state, sql), &o);
        if (o.status == SWEEP_OK)
            fail_msg("'%s' was accepted", cases[i].set);
        expect(&o, cases[i].error, "map", 1, cases[i].frag, NULL);
        if (cases[i].error == SWEEP_MAP_E_METADATA)
            assert_int_equal(o.status, SWEEP_E_CONFIG);
    }

    /* A map without a rule column is incomplete. */
    outcome o;
    load(tiny_map(*state, "ALTER TABLE map DROP COLUMN max_step;"), &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "map", -1, "map: ", "max_step");
    /* A version 3 map without a query rule too; a version 2 map has none
     * and takes the defaults. */
    load(tiny_map(*state, "ALTER TABLE map DROP COLUMN rewind_cap_ms;"), &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "map", -1, "map: ", "rewind_cap_ms");
    load(tiny_map(*state, "UPDATE map SET history_ms = 500, rewind_cap_ms = 100;"), &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_true(o.lv.history_ms == 500.0 && o.lv.rewind_cap_ms == 100.0);
    sweep_level_free(&o.lv);
    load(tiny_map(*state, "ALTER TABLE map DROP COLUMN history_ms; ALTER TABLE map DROP COLUMN rewind_cap_ms; "
                          "PRAGMA user_version = 2;"),
         &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.info.schema_version, 2);
    assert_true(o.lv.history_ms == 1000.0 && o.lv.rewind_cap_ms == 250.0);
    sweep_level_free(&o.lv);

    /* The crouch columns (version 4) are optional, all four together: a
     * map without them has no crouching, as a version 3 map has none. */
    load(tiny_map(*state, "UPDATE map SET crouch_radius_x = 0.4, crouch_radius_y = 0.4, crouch_radius_z = 0.5, "
                          "crouch_speed = 2;"),
         &o);
    if (o.status != SWEEP_OK)
        fail_msg("%s", o.err);
    assert_true(o.lv.rules.crouch_speed == 2.0 && o.lv.rules.crouch_radii.z == 0.5);
    sweep_level_free(&o.lv);
    static const char drop_crouch[] = "ALTER TABLE map DROP COLUMN crouch_radius_x; ALTER TABLE map DROP COLUMN "
                                      "crouch_radius_y; ALTER TABLE map DROP COLUMN crouch_radius_z; ALTER TABLE map "
                                      "DROP COLUMN crouch_speed;";
    load(tiny_map(*state, drop_crouch), &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.info.schema_version, 4);
    assert_true(o.lv.rules.crouch_speed == 0.0);
    sweep_level_free(&o.lv);
    char v3[512];
    snprintf(v3, sizeof v3, "%s PRAGMA user_version = 3;", drop_crouch);
    load(tiny_map(*state, v3), &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.info.schema_version, 3);
    sweep_level_free(&o.lv);
    load(tiny_map(*state, "ALTER TABLE map DROP COLUMN crouch_speed;"), &o);
    expect(&o, SWEEP_MAP_E_METADATA, "map", -1, "3 of the four crouch columns", "all or none");

    /* air_move (version 4) is optional too: 1 is Quake 3's air move, and
     * a map without the column has sweep's own. */
    load(tiny_map(*state, "UPDATE map SET air_move = 1;"), &o);
    if (o.status != SWEEP_OK)
        fail_msg("%s", o.err);
    assert_true(o.lv.rules.air_move == SWEEP_AIR_ALONG);
    sweep_level_free(&o.lv);
    load(tiny_map(*state, "ALTER TABLE map DROP COLUMN air_move;"), &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_true(o.lv.rules.air_move == SWEEP_AIR_TOWARDS);
    sweep_level_free(&o.lv);

    /* The boundaries themselves are fine. */
    load(tiny_map(*state, "UPDATE map SET walk_speed = 1e6, ground_accel = 1e9, air_accel = 0, jump_speed = 0,"
                          "max_step = 0.001, speed_limit = 1e7, correction_threshold = 0;"),
         &o);
    if (o.status != SWEEP_OK)
        fail_msg("%s", o.err);
    assert_true(o.lv.rules.walk_speed == 1e6 && o.lv.rules.max_step == 0.001 && o.lv.config.max_speed == 1e7);
    sweep_level_free(&o.lv);
}

/* The schema's CHECK constraints catch bad rules when a map is built from
 * SQL text, before any loader sees it; left out, they take the defaults. */
static void rules_checked_when_built(void **state)
{
    fixture *f = *state;
    const char *path = fixture_path(f, "built.db");
    static const char *const bad[] = {
        "walk_speed = 0", "ground_accel = 0", "air_accel = -1", "jump_speed = -1", "max_step = 0",
        "max_step = 2",   "speed_limit = 4",  "jump_speed = 70", "correction_threshold = -1",
    };
    char rows[2048];
    fixture_quiet = 1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(rows, sizeof rows, "%s UPDATE map SET %s;", fixture_tiny_rows, bad[i]);
        if (fixture_build_map(path, rows))
            fail_msg("the schema accepted '%s'", bad[i]);
    }
    fixture_quiet = 0;
    outcome o;
    load(tiny_map(f, NULL), &o);
    assert_int_equal(o.status, SWEEP_OK);
    sweep_rules def;
    sweep_rules_default(&def);
    assert_memory_equal(&o.lv.rules, &def, sizeof def);
    assert_true(o.lv.correction_threshold == 0.25 && o.lv.config.max_speed == 60.0);
    sweep_level_free(&o.lv);
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

/* --- movers -------------------------------------------------------------- */

/* expect() for an error about mover `mover`. */
static void expect_mover(outcome *o, sweep_map_error e, const char *table, int64_t mover, int64_t row,
                         const char *frag1, const char *frag2)
{
    int64_t got = o->info.mover_id;
    expect(o, e, table, row, frag1, frag2);
    assert_int_equal(got, mover);
}

static void movers_load(void **state)
{
    outcome o;
    load(mover_map(*state, NULL), &o);
    if (o.status != SWEEP_OK)
        fail_msg("%s", o.err);
    assert_int_equal(o.info.mover_id, -1);
    assert_int_equal(o.info.mover_degenerate, 0);
    assert_int_equal(o.lv.mover_count, 2);
    const sweep_level_mover *m = &o.lv.movers[0];
    assert_int_equal(m->id, 3);
    assert_string_equal(m->name, "box");
    assert_int_equal(m->mode, SWEEP_MOVER_PINGPONG);
    assert_int_equal(m->trigger, SWEEP_TRIGGER_VOLUME);
    assert_int_equal(m->blocked, SWEEP_BLOCKED_STOP);
    assert_true(m->wait_start == 0.5 && m->wait_end == 1.0);
    assert_true(m->volume_min.x == 0.0 && m->volume_max.y == 10.0 && m->volume_max.z == 3.0);
    assert_int_equal(m->vertex_count, 8);
    assert_int_equal(m->triangle_count, 12);
    assert_int_equal(m->key_count, 3);
    assert_true(m->vertices[5].x == 1.0 && m->vertices[5].z == 1.0);
    assert_int_equal(m->indices[3 * 11 + 2], 4);
    assert_int_equal(m->materials[11], 1);
    assert_true(m->keys[2].time == 3.0 && m->keys[2].pose.position.x == 5.0);
    assert_true(m->keys[2].pose.rotation.z == 0.7071067811865475);
    m = &o.lv.movers[1];
    assert_int_equal(m->id, 5);
    assert_string_equal(m->name, "ring");
    assert_int_equal(m->mode, SWEEP_MOVER_LOOP);
    assert_int_equal(m->trigger, SWEEP_TRIGGER_ALWAYS);
    assert_int_equal(m->blocked, SWEEP_BLOCKED_CRUSH);
    assert_true(m->volume_min.x == 0.0 && m->volume_max.x == 0.0);
    assert_int_equal(sweep_level_find_mover(&o.lv, "ring"), 1);
    sweep_level_free(&o.lv);
}

static void mover_unknown_names(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE movers SET mode = 'bounce' WHERE id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 3, 3, "movers row id=3: mode 'bounce'", "once, loop, pingpong");
    load(mover_map(*state, "UPDATE movers SET trigger = 'Always' WHERE id = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "trigger 'Always'", "always, volume, touch, command");
    load(mover_map(*state, "UPDATE movers SET blocked = x'73746f70' WHERE id = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "blocked is not text (blob)", NULL);
}

static void mover_names(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE movers SET name = '' WHERE id = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "movers row id=5: name", "1 to 63 bytes");
    /* The schema's UNIQUE would stop a repeated name: rebuild without it. */
    load(mover_map(*state, "CREATE TABLE m2 AS SELECT * FROM movers; DROP TABLE movers;"
                           "CREATE TABLE movers (id INTEGER PRIMARY KEY, name TEXT, mode TEXT, trigger TEXT,"
                           " blocked TEXT, wait_start REAL, wait_end REAL, volume_min_x REAL, volume_min_y REAL,"
                           " volume_min_z REAL, volume_max_x REAL, volume_max_y REAL, volume_max_z REAL);"
                           "INSERT INTO movers SELECT * FROM m2; UPDATE movers SET name = 'box' WHERE id = 5;"),
         &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "name 'box' is also the name of mover 3", NULL);
}

/* Spawn points are numbered in id order; two of one id (or an id that is
 * not a whole number) would leave that order to SQLite's sort. */
static void spawn_ids(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TABLE s2 AS SELECT * FROM spawns; DROP TABLE spawns;"
                          "ALTER TABLE s2 RENAME TO spawns; INSERT INTO spawns VALUES (0, 6, 6, 1);"),
         &o);
    expect(&o, SWEEP_MAP_E_VALUE, "spawns", 0, "spawns row id=0", "id 0 is also the id of another row");
    load(tiny_map(*state, "CREATE TABLE s2 AS SELECT * FROM spawns; DROP TABLE spawns;"
                          "ALTER TABLE s2 RENAME TO spawns; INSERT INTO spawns VALUES ('two', 6, 6, 1);"),
         &o);
    expect(&o, SWEEP_MAP_E_VALUE, "spawns", 0, "spawns row", "id must be a whole number");
}

/* Triangles are numbered in id order (the number a contact reports, and
 * the one that breaks ties between contacts): the same as spawn points. */
static void triangle_ids(void **state)
{
    outcome o;
    load(tiny_map(*state, "CREATE TABLE t2 AS SELECT * FROM triangles; DROP TABLE triangles;"
                          "ALTER TABLE t2 RENAME TO triangles; INSERT INTO triangles VALUES (1, 0, 1, 3, 1);"),
         &o);
    expect(&o, SWEEP_MAP_E_VALUE, "triangles", 1, "triangles row id=1", "id 1 is also the id of another row");
    load(tiny_map(*state, "CREATE TABLE t2 AS SELECT * FROM triangles; DROP TABLE triangles;"
                          "ALTER TABLE t2 RENAME TO triangles; INSERT INTO triangles VALUES (2.5, 0, 1, 3, 1);"),
         &o);
    expect(&o, SWEEP_MAP_E_VALUE, "triangles", 2, "triangles row", "id must be a whole number");
}

static void repeated_mover_id(void **state)
{
    outcome o;
    load(mover_map(*state, "CREATE TABLE m2 AS SELECT * FROM movers; DROP TABLE movers;"
                           "ALTER TABLE m2 RENAME TO movers;"
                           "INSERT INTO movers SELECT 3, 'box2', mode, trigger, blocked, wait_start, wait_end,"
                           " volume_min_x, volume_min_y, volume_min_z, volume_max_x, volume_max_y, volume_max_z"
                           " FROM movers WHERE id = 3;"),
         &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 3, 3, "movers row id=3", "id 3 is also the id of another row");
}

static void mover_bad_id(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE movers SET id = 0 WHERE id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 0, 0, "movers row id=0: id", "1 to 4294967295");
}

static void mover_waits(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE movers SET wait_end = 'NaN' WHERE id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "movers", 3, 3, "movers row id=3: wait_end", "NaN");
    load(mover_map(*state, "UPDATE movers SET wait_start = -1 WHERE id = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "movers row id=5: mover 'ring': ",
                 sweep_mover_problem_text(SWEEP_MOVER_BAD_WAIT));
}

static void mover_volumes(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE movers SET volume_max_z = NULL WHERE id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 3, 3, "trigger 'volume' needs its box", "volume_max_z is NULL");
    load(mover_map(*state, "UPDATE movers SET volume_min_y = 1 WHERE id = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "volume_min_y is set", "trigger is 'always'");
    load(mover_map(*state, "UPDATE movers SET volume_max_x = -1 WHERE id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 3, 3, "mover 'box': ",
                 sweep_mover_problem_text(SWEEP_MOVER_BAD_VOLUME));
    load(mover_map(*state, "UPDATE movers SET volume_min_z = 'low' WHERE id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "movers", 3, 3, "volume_min_z is not a finite number", "'low'");
}

static void mover_vertex_values(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_vertices SET y = 'NaN' WHERE mover = 3 AND id = 6;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "mover_vertices", 3, 6, "mover_vertices row mover=3 id=6: y", "NaN");
    load(mover_map(*state, "UPDATE mover_vertices SET x = 2e7 WHERE mover = 5 AND id = 1;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "mover_vertices", 5, 1, "mover_vertices row mover=5 id=1: x=2e+07",
                 "limit");
    load(mover_map(*state, "UPDATE mover_vertices SET z = x'00' WHERE mover = 5 AND id = 0;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "mover_vertices", 5, 0, "z is not a finite number (blob)", NULL);
}

static void mover_vertex_id_gap(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_vertices SET id = 9 WHERE mover = 3 AND id = 7;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VERTEX_ID, "mover_vertices", 3, 9, "mover_vertices row mover=3 id=9",
                 "expected id 7");
    load(mover_map(*state, "UPDATE mover_vertices SET id = 1.5 WHERE mover = 5 AND id = 1;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VERTEX_ID, "mover_vertices", 5, -1, "mover_vertices: a row of mover 5",
                 "not a whole number");
}

static void mover_of_no_mover(void **state)
{
    outcome o;
    load(mover_map(*state, "INSERT INTO mover_vertices VALUES (4, 0, 0, 0, 0);"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "mover_vertices", 4, 0, "mover_vertices row mover=4 id=0",
                 "mover 4 is not in table movers");
    load(mover_map(*state, "INSERT INTO mover_keyframes VALUES (9, 0, 0, 0, 0, 0, 0, 0, 0, 1);"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "mover_keyframes", 9, 0, "mover 9 is not in table movers", NULL);
    load(mover_map(*state, "INSERT INTO mover_triangles VALUES ('three', 0, 0, 1, 2, 1);"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "mover_triangles", -1, 0, "mover is not a whole number (text)", NULL);
}

static void mover_triangle_index(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_triangles SET b = 8 WHERE mover = 3 AND id = 4;"), &o);
    expect_mover(&o, SWEEP_MAP_E_INDEX, "mover_triangles", 3, 4, "mover_triangles row mover=3 id=4: vertex b=8",
                 "mover 3 has 8 rows in mover_vertices, ids 0 to 7");
    load(mover_map(*state, "UPDATE mover_triangles SET c = -1 WHERE mover = 5 AND id = 0;"), &o);
    expect_mover(&o, SWEEP_MAP_E_INDEX, "mover_triangles", 5, 0, "vertex c=-1", "out of range");
    load(mover_map(*state, "DELETE FROM mover_vertices WHERE mover = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_INDEX, "mover_triangles", 5, 0, "mover 5 has no rows in mover_vertices", NULL);
    load(mover_map(*state, "UPDATE mover_triangles SET a = 'x' WHERE mover = 5 AND id = 2;"), &o);
    expect_mover(&o, SWEEP_MAP_E_INDEX, "mover_triangles", 5, 2, "a is not a whole number", NULL);
}

static void mover_triangle_material(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_triangles SET material = 7 WHERE mover = 5 AND id = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MATERIAL, "mover_triangles", 5, 3, "mover_triangles row mover=5 id=3: material 7",
                 "not in table materials");
}

static void mover_triangle_id_gap(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_triangles SET id = 20 WHERE mover = 3 AND id = 10;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "mover_triangles", 3, 11, "mover_triangles row mover=3 id=11",
                 "expected id 10");
}

static void mover_without_triangles(void **state)
{
    outcome o;
    load(mover_map(*state, "DELETE FROM mover_triangles WHERE mover = 5;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 5, 5, "movers row id=5: mover 'ring': ",
                 sweep_mover_problem_text(SWEEP_MOVER_NO_TRIANGLES));
    load(mover_map(*state, "UPDATE mover_triangles SET c = b WHERE mover = 3;"), &o);
    expect_mover(&o, SWEEP_MAP_E_MOVER, "movers", 3, 3, "mover 'box'", "(all 12 are degenerate)");
}

static void mover_degenerate_triangle_kept(void **state)
{
    /* A degenerate mover triangle keeps its place, so that the numbers of
     * the others stay what the map says (schema.sql); it is counted. */
    outcome o;
    load(mover_map(*state, "UPDATE mover_triangles SET c = a WHERE mover = 3 AND id = 5;"), &o);
    assert_int_equal(o.status, SWEEP_OK);
    assert_int_equal(o.info.mover_degenerate, 1);
    assert_int_equal(o.lv.movers[0].triangle_count, 12);
    assert_int_equal(o.lv.movers[0].indices[3 * 5 + 2], 1);
    sweep_level_free(&o.lv);
}

static void mover_too_many_triangles(void **state)
{
    outcome o;
    load(mover_map(*state, "WITH RECURSIVE n(i) AS (SELECT 12 UNION ALL SELECT i + 1 FROM n WHERE i < 65536)"
                           " INSERT INTO mover_triangles SELECT 3, i, 0, 1, 2, 1 FROM n;"),
         &o);
    expect_mover(&o, SWEEP_MAP_E_TOO_BIG, "mover_triangles", 3, 65536, "at most 65536 triangles", NULL);
}

static void keyframe_times(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_keyframes SET time = 0.25 WHERE mover = 3 AND id = 0;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 3, 0, "mover_keyframes row mover=3 id=0: mover 3 'box': ",
                 sweep_mover_problem_text(SWEEP_MOVER_FIRST_TIME));
    load(mover_map(*state, "UPDATE mover_keyframes SET time = 3 WHERE mover = 3 AND id = 1;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 3, 2, "mover_keyframes row mover=3 id=2: mover 3 'box': ",
                 "(time 3 after 3)");
    load(mover_map(*state, "UPDATE mover_keyframes SET time = 1e6 WHERE mover = 5 AND id = 2;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 5, 2, "mover 5 'ring': ",
                 sweep_mover_problem_text(SWEEP_MOVER_TIME_ORDER));
    load(mover_map(*state, "UPDATE mover_keyframes SET time = 'soon' WHERE mover = 5 AND id = 1;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "mover_keyframes", 5, 1, "time is not a finite number", "'soon'");
}

static void keyframe_rotation_not_unit(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_keyframes SET qw = 0.9 WHERE mover = 3 AND id = 1;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 3, 1, "mover_keyframes row mover=3 id=1: mover 3 'box': ",
                 "length squared is 0.81");
    load(mover_map(*state, "UPDATE mover_keyframes SET qx = 'abc' WHERE mover = 3 AND id = 2;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "mover_keyframes", 3, 2, "qx is not a finite number", "'abc'");
}

static void keyframe_position(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_keyframes SET y = -3e7 WHERE mover = 5 AND id = 1;"), &o);
    expect_mover(&o, SWEEP_MAP_E_VALUE, "mover_keyframes", 5, 1, "mover_keyframes row mover=5 id=1: y=-3e+07",
                 "limit");
}

static void keyframes_too_few(void **state)
{
    outcome o;
    load(mover_map(*state, "DELETE FROM mover_keyframes WHERE mover = 3 AND id > 0;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 3, -1, "mover_keyframes: mover 3 'box' has 1 keyframe:",
                 sweep_mover_problem_text(SWEEP_MOVER_FEW_KEYFRAMES));
}

static void keyframe_id_gap(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_keyframes SET id = 5 WHERE mover = 3 AND id = 2;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 3, 5, "mover_keyframes row mover=3 id=5",
                 "expected id 2");
}

static void keyframe_open_loop(void **state)
{
    outcome o;
    load(mover_map(*state, "UPDATE mover_keyframes SET x = 1.5 WHERE mover = 5 AND id = 2;"), &o);
    expect_mover(&o, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", 5, 2, "mover 5 'ring': ",
                 sweep_mover_problem_text(SWEEP_MOVER_OPEN_LOOP));
    /* The same path is fine for a mover that does not loop. */
    load(mover_map(*state, "UPDATE mover_keyframes SET x = 1.5 WHERE mover = 5 AND id = 2;"
                           "UPDATE movers SET mode = 'once' WHERE id = 5;"),
         &o);
    assert_int_equal(o.status, SWEEP_OK);
    sweep_level_free(&o.lv);
}

static void mover_table_missing(void **state)
{
    outcome o;
    load(mover_map(*state, "DROP TABLE mover_keyframes;"), &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "mover_keyframes", -1, "mover_keyframes", "missing");
    load(mover_map(*state, "ALTER TABLE movers DROP COLUMN wait_end;"), &o);
    expect(&o, SWEEP_MAP_E_SCHEMA, "movers", -1, "movers: ", "wait_end");
}

static void error_names_are_stable(void **state)
{
    (void)state;
    assert_string_equal(sweep_map_error_name(SWEEP_MAP_E_IO), "IO");
    assert_string_equal(sweep_map_error_name(SWEEP_MAP_E_MOVER), "MOVER");
    assert_string_equal(sweep_map_error_name(SWEEP_MAP_E_KEYFRAME), "KEYFRAME");
    assert_string_equal(sweep_map_error_name(SWEEP_MAP_ERROR_COUNT), "UNKNOWN");
    assert_int_equal(SWEEP_MAP_E_IO, 18);
    assert_int_equal(SWEEP_MAP_E_MOVER, 19);
    assert_int_equal(SWEEP_MAP_E_KEYFRAME, 20);
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
        cmocka_unit_test_setup_teardown(whole_real_index_is_an_index, setup, teardown),
        cmocka_unit_test_setup_teardown(fractional_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(no_materials, setup, teardown),
        cmocka_unit_test_setup_teardown(tables_that_run_code_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(rows_types_and_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_material, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicate_material_name, setup, teardown),
        cmocka_unit_test_setup_teardown(repeated_material_id, setup, teardown),
        cmocka_unit_test_setup_teardown(repeated_mover_id, setup, teardown),
        cmocka_unit_test_setup_teardown(spawn_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(triangle_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(zero_triangles, setup, teardown),
        cmocka_unit_test_setup_teardown(vertex_id_gap, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_metadata, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(rules_checked_when_built, setup, teardown),
        cmocka_unit_test_setup_teardown(degenerate_triangles_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(all_triangles_degenerate, setup, teardown),
        cmocka_unit_test_setup_teardown(movers_load, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_unknown_names, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_names, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_bad_id, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_waits, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_volumes, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_vertex_values, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_vertex_id_gap, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_of_no_mover, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_triangle_index, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_triangle_material, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_triangle_id_gap, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_without_triangles, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_degenerate_triangle_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_too_many_triangles, setup, teardown),
        cmocka_unit_test_setup_teardown(keyframe_times, setup, teardown),
        cmocka_unit_test_setup_teardown(keyframe_rotation_not_unit, setup, teardown),
        cmocka_unit_test_setup_teardown(keyframe_position, setup, teardown),
        cmocka_unit_test_setup_teardown(keyframes_too_few, setup, teardown),
        cmocka_unit_test_setup_teardown(keyframe_id_gap, setup, teardown),
        cmocka_unit_test_setup_teardown(keyframe_open_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(mover_table_missing, setup, teardown),
        cmocka_unit_test(error_names_are_stable),
        cmocka_unit_test_setup_teardown(uri_like_path_is_a_file, setup, teardown),
        cmocka_unit_test(null_arguments),
    };
    return cmocka_run_group_tests_name("maps.errors", tests, NULL, NULL);
}
