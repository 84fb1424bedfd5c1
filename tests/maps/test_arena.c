/*
 * test_arena.c - the sample arena, end to end: maps/arena.sql (SQL text)
 * built into a database, loaded, hashed and turned into a core world, with
 * the expected counts and a content hash pinned here; the database built
 * by make gives the same level. Then a player walks into each feature
 * listed at the top of arena.sql, which checks that the features are where
 * the comment says and behave as intended.
 */
#include "tests/maps/map_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/move.h"
#include "maps/content_hash.h"
#include "maps/loader.h"

/* Pinned: changes only when arena.sql, the schema's meaning or the hash
 * serialization changes (then update it deliberately). */
#define ARENA_TRIANGLES 358
#define ARENA_VERTICES 720
#define ARENA_HASH "8ff47c724a92f674cc46ee46abd987eeef2914ce3a08eda60c72c33ae2ae475c"

typedef struct arena {
    fixture *f;
    sweep_level lv;
    sweep_world *world;
} arena;

static void load_ok(const char *path, sweep_level *lv)
{
    char err[512];
    sweep_map_load_info info;
    sweep_status st = sweep_map_load(path, lv, &info, err, sizeof err);
    if (st != SWEEP_OK)
        fail_msg("%s: %s", path, err);
    assert_int_equal(info.degenerate_dropped, 0);
}

/* The arena built from SQL text the way make builds it. */
static void build_from_sql(const char *db)
{
    char *rows = fixture_read(fixture_src("maps/arena.sql"), NULL);
    assert_non_null(rows);
    assert_true(fixture_build_map(db, rows));
    free(rows);
}

static int setup(void **state)
{
    arena *a = calloc(1, sizeof *a);
    a->f = fixture_new();
    if (!a->f)
        return -1;
    const char *db = fixture_path(a->f, "arena.db");
    build_from_sql(db);
    load_ok(db, &a->lv);
    char err[256];
    if (sweep_map_build_world(&a->lv, &a->world, NULL, err, sizeof err) != SWEEP_OK)
        return -1;
    *state = a;
    return 0;
}

static int teardown(void **state)
{
    arena *a = *state;
    sweep_world_destroy(a->world);
    sweep_level_free(&a->lv);
    fixture_cleanup(a->f);
    free(a);
    return 0;
}

static void hex_of(const sweep_level *lv, char hex[65])
{
    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(lv, &h), SWEEP_OK);
    sweep_content_hash_hex(&h, hex);
}

static void round_trip_counts_and_hash(void **state)
{
    arena *a = *state;
    assert_string_equal(a->lv.name, "arena");
    assert_int_equal(a->lv.triangle_count, ARENA_TRIANGLES);
    assert_int_equal(a->lv.vertex_count, ARENA_VERTICES);
    assert_int_equal(a->lv.material_count, 5);
    assert_int_equal(a->lv.spawn_count, 4);
    assert_true(a->lv.default_radii.x == 0.4 && a->lv.default_radii.z == 0.9);
    assert_true(a->lv.config.step_height == 0.35);
    assert_true(a->lv.tick_rate == 60.0);

    sweep_world_info wi;
    sweep_world_get_info(a->world, &wi);
    assert_int_equal(wi.triangle_count, ARENA_TRIANGLES);
    assert_int_equal(wi.degenerate_count, 0);
    assert_true(wi.bounds_min.x == -21.0 && wi.bounds_max.x == 21.0);
    assert_true(wi.bounds_min.z == -3.0 && wi.bounds_max.z == 4.0);

    char hex[65];
    hex_of(&a->lv, hex);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  arena hash %s\n", hex);
    assert_string_equal(hex, ARENA_HASH);
}

static void same_hash_every_load(void **state)
{
    arena *a = *state;
    char first[65], again[65];
    hex_of(&a->lv, first);
    for (int i = 0; i < 3; i++) {
        /* Rebuilt from the text and reloaded each time. */
        const char *db = fixture_path(a->f, "again.db");
        build_from_sql(db);
        sweep_level lv;
        load_ok(db, &lv);
        hex_of(&lv, again);
        assert_string_equal(first, again);
        sweep_level_free(&lv);
    }
}

static void make_built_arena_is_the_same(void **state)
{
    arena *a = *state;
    const char *db = fixture_build("maps/arena.db");
    if (access(db, R_OK) != 0)
        fail_msg("%s is missing: build it with make", db);
    sweep_level lv;
    load_ok(db, &lv);
    char h1[65], h2[65];
    hex_of(&a->lv, h1);
    hex_of(&lv, h2);
    assert_string_equal(h1, h2);
    sweep_level_free(&lv);
}

static void hash_sees_one_ulp(void **state)
{
    arena *a = *state;
    char before[65], after[65];
    hex_of(&a->lv, before);
    double keep = a->lv.vertices[100].y;
    a->lv.vertices[100].y = nextafter(keep, INFINITY);
    hex_of(&a->lv, after);
    a->lv.vertices[100].y = keep;
    assert_string_not_equal(before, after);
    uint32_t m = a->lv.materials[7];
    a->lv.materials[7] = m == 1 ? 2 : 1;
    hex_of(&a->lv, after);
    a->lv.materials[7] = m;
    assert_string_not_equal(before, after);
    a->lv.config.step_height = 0.36;
    hex_of(&a->lv, after);
    a->lv.config.step_height = 0.35;
    assert_string_not_equal(before, after);
    /* Labels do not count. */
    snprintf(a->lv.name, sizeof a->lv.name, "renamed");
    hex_of(&a->lv, after);
    assert_string_equal(before, after);
}

/* A player walking at `vel` (units/s, across up) for `steps` ticks of
 * 1/60 s from `start`, falling like walker.c's players. */
static sweep_vec3 walk(const arena *a, sweep_vec3 start, sweep_vec3 vel, int steps)
{
    const sweep_config *cfg = &a->lv.config;
    sweep_vec3 pos = start, v = sweep_v3(0, 0, 0);
    uint32_t grounded = 0;
    for (int i = 0; i < steps; i++) {
        sweep_move_input in;
        in.position = pos;
        in.radii = a->lv.default_radii;
        in.dt = 1.0 / 60.0;
        in.velocity = sweep_v3_madd(sweep_v3(vel.x, vel.y, v.z), cfg->gravity, in.dt);
        in.flags = grounded ? SWEEP_INPUT_GROUNDED : 0;
        sweep_move_result r;
        assert_int_equal(sweep_move(a->world, cfg, &in, &r), SWEEP_OK);
        pos = r.position;
        v = r.velocity;
        grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
    }
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  from (%g, %g, %g): (%.3f, %.3f, %.3f)\n", start.x, start.y, start.z, pos.x, pos.y, pos.z);
    return pos;
}

static void stairs(void **state)
{
    arena *a = *state;
    static const struct { double x, landing; int climbable; } flights[] = {
        {-15, 0.6, 1}, {-11, 1.0, 1}, {-7, 1.2, 1}, {-3, 2.0, 0}};
    for (int i = 0; i < 4; i++) {
        sweep_vec3 p = walk(a, sweep_v3(flights[i].x, -18, 0.95), sweep_v3(0, 4, 0), 90);
        if (flights[i].climbable) {
            assert_true(p.y > -13.6 && p.y < -11.6);                  /* on the landing */
            assert_true(fabs(p.z - (flights[i].landing + 0.9)) < 0.05); /* standing on it */
        } else {
            assert_true(p.y < -16.0);             /* stopped at the first riser */
            assert_true(fabs(p.z - 0.9) < 0.05); /* still on the floor */
        }
    }
}

static void ramps(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(3.5, -18, 0.95), sweep_v3(0, 4, 0), 120);
    assert_true(p.y > -12.0);                  /* up the 25 degree ramp, onto its platform */
    assert_true(fabs(p.z - (1.865 + 0.9)) < 0.05);
    p = walk(a, sweep_v3(9.5, -18, 0.95), sweep_v3(0, 4, 0), 120);
    assert_true(p.y < -15.0);                  /* the 55 degree ramp is a wall to a walker */
    assert_true(p.z < 0.9 + 1.0);
}

static void ceilings(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(-13, -6, 0.95), sweep_v3(0, 4, 0), 90);
    assert_true(p.y < -2.3); /* 1.2 m of headroom: blocked */
    p = walk(a, sweep_v3(-6, -6, 0.95), sweep_v3(0, 4, 0), 90);
    assert_true(p.y > -0.5); /* 2.0 m: walks under */
    assert_true(fabs(p.z - 0.9) < 0.05);
}

static void corridors(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(13.3, -6, 0.95), sweep_v3(0, 4, 0), 120);
    assert_true(p.y < -4.2); /* 0.6 m: too narrow, held by both wall corners */
    p = walk(a, sweep_v3(15.2, -6, 0.95), sweep_v3(0, 4, 0), 180);
    assert_true(p.y > 4.0); /* 1.2 m: through */
    assert_true(p.x > 14.6 + 0.39 && p.x < 15.8 - 0.39);
}

static void wedge(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(0, 6, 0.95), sweep_v3(0, 4, 0), 180);
    assert_true(p.y > 12.0 && p.y < 14.0 - 0.8);
    /* Inside the V: at least a radius from each arm (distance to the line
     * through the apex along (3, 6) / sqrt 45). */
    double d1 = fabs(6.0 * (p.x - 0.0) - 3.0 * (p.y - 14.0)) / sqrt(45.0);
    double d2 = fabs(6.0 * (p.x - 0.0) + 3.0 * (p.y - 14.0)) / sqrt(45.0);
    assert_true(d1 > 0.39 && d2 > 0.39);
}

static void thin_wall(void **state)
{
    arena *a = *state;
    /* 30 m/s: half a metre per tick, ten times the wall's thickness. */
    sweep_vec3 p = walk(a, sweep_v3(-12, 6, 0.95), sweep_v3(0, 30, 0), 60);
    assert_true(p.y < 8.0 - 0.39);
}

static void pit(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(14, 10, 0.95), sweep_v3(0, 4, 0), 180);
    assert_true(p.y > 12.0 && p.y < 16.0);
    assert_true(fabs(p.z - (-3.0 + 0.9)) < 0.05);
}

static void spawns_are_clear(void **state)
{
    /* Standing still at each spawn: lands on the floor, nothing in the way. */
    arena *a = *state;
    for (uint32_t i = 0; i < a->lv.spawn_count; i++) {
        sweep_vec3 p = walk(a, a->lv.spawns[i], sweep_v3(0, 0, 0), 60);
        assert_true(fabs(p.z - 0.9) < 0.05);
        assert_true(p.x == a->lv.spawns[i].x && p.y == a->lv.spawns[i].y);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_counts_and_hash),
        cmocka_unit_test(same_hash_every_load),
        cmocka_unit_test(make_built_arena_is_the_same),
        cmocka_unit_test(hash_sees_one_ulp),
        cmocka_unit_test(stairs),
        cmocka_unit_test(ramps),
        cmocka_unit_test(ceilings),
        cmocka_unit_test(corridors),
        cmocka_unit_test(wedge),
        cmocka_unit_test(thin_wall),
        cmocka_unit_test(pit),
        cmocka_unit_test(spawns_are_clear),
    };
    return cmocka_run_group_tests_name("maps.arena", tests, setup, teardown);
}
