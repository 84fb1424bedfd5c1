/*
 * test_volumes_map.c - volumes through the map format and in use on the
 * sample level maps/pads.sql: the loader reads every kind, the writer
 * writes them back to the same level and hash, the hash covers them and
 * leaves a level without volumes as it was; a walker stepping on the pad
 * tops out where Quake 3's jump pad arithmetic aims it and lands on the
 * platform, the teleporter takes it to its destination, the kill strip
 * ends its move; a map of version 2 loads without volumes; bad volume
 * rows are refused with the row and the reason. And liquids and ladders on
 * the sample level maps/pool.sql: the loader reads the liquids, the ladder
 * and the swimming rules, the writer writes them back to the same level
 * and hash, the hash covers them (and a level without liquids or ladders
 * hashes as it did); a walker swims across the pool and jumps out onto
 * the far deck, one in the slime corner is hurt by depth, one climbs the
 * ladder onto the tower; a map without the optional columns loads with
 * the defaults; bad rows are refused with the row and reason.
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
#include "maps/content_hash.h"
#include "maps/loader.h"
#include "maps/writer.h"

#define DT (1.0 / 60.0)

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

/* Loads a sample map of the build ("maps/pads.db") and, w not NULL, its
 * world. */
static void load(const char *map, sweep_level *lv, sweep_world **w)
{
    char err[256];
    if (sweep_map_load(fixture_build(map), lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s: %s", map, err);
    if (w && sweep_map_build_world(lv, w, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s world: %s", map, err);
}

static void pads_load_every_kind(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_world *w;
    load("maps/pads.db", &lv, &w);
    assert_int_equal(lv.volume_count, 5);
    static const sweep_volume_kind kinds[5] = {SWEEP_VOLUME_PUSH, SWEEP_VOLUME_TELEPORT, SWEEP_VOLUME_HURT,
                                               SWEEP_VOLUME_TRIGGER, SWEEP_VOLUME_KILL};
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(lv.volumes[i].id, i + 1);
        assert_int_equal(lv.volumes[i].v.kind, kinds[i]);
    }
    assert_string_equal(lv.volumes[4].name, "fell into the lava");
    assert_true(lv.volumes[0].v.velocity.x == 16.274827188022613);
    assert_true(lv.volumes[1].v.facing.y == 1.0 && lv.volumes[1].v.exit_speed == 4.0);
    uint32_t n = 0;
    assert_non_null(sweep_world_volumes(w, &n));
    assert_int_equal(n, 5);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

/* Writes lv to `name` in the fixture's folder and loads it back into
 * *back: the same volumes and rules, the same content hash (*hash). */
static void write_back(fixture *f, const char *name, const sweep_level *lv, sweep_level *back,
                       sweep_content_hash *hash)
{
    char err[256];
    const char *path = fixture_path(f, name);
    if (sweep_map_write(path, lv, NULL, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("write: %s", err);
    if (sweep_map_load(path, back, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("load back: %s", err);
    assert_int_equal(back->volume_count, lv->volume_count);
    for (uint32_t i = 0; i < lv->volume_count; i++)
        assert_memory_equal(&back->volumes[i], &lv->volumes[i], sizeof lv->volumes[i]);
    assert_memory_equal(&back->rules, &lv->rules, sizeof lv->rules);
    sweep_content_hash b;
    assert_int_equal(sweep_level_content_hash(lv, hash), SWEEP_OK);
    assert_int_equal(sweep_level_content_hash(back, &b), SWEEP_OK);
    assert_memory_equal(hash, &b, sizeof b);
}

static void volumes_round_trip_and_are_hashed(void **state)
{
    fixture *f = *state;
    sweep_level lv, back;
    load("maps/pads.db", &lv, NULL);
    sweep_content_hash a, c, d;
    write_back(f, "pads_again.db", &lv, &back, &a);
    /* An ulp of a launch velocity is another level. */
    back.volumes[0].v.velocity.z = nextafter(back.volumes[0].v.velocity.z, 100.0);
    assert_int_equal(sweep_level_content_hash(&back, &c), SWEEP_OK);
    assert_memory_not_equal(&a, &c, sizeof a);
    /* Without its volumes the level hashes as one that never had any:
     * the volumes part is only there when there are volumes. */
    uint32_t keep = lv.volume_count;
    lv.volume_count = 0;
    assert_int_equal(sweep_level_content_hash(&lv, &d), SWEEP_OK);
    assert_memory_not_equal(&a, &d, sizeof a);
    lv.volume_count = keep;
    sweep_level_free(&back);
    sweep_level_free(&lv);
}

typedef struct walk {
    sweep_level lv;
    sweep_world *w;
    sweep_space sp;
    sweep_actor a;
    uint32_t seen; /* volume events of every move */
} walk;

/* A walker standing on the floor (z = 0) of a sample map at (x, y). */
static void walk_start(walk *k, const char *map, double x, double y)
{
    load(map, &k->lv, &k->w);
    k->sp = (sweep_space){k->w, NULL, NULL, SWEEP_NO_BODY};
    memset(&k->a, 0, sizeof k->a);
    k->a.position = sweep_v3(x, y, 0.9005);
    k->a.grounded = 1;
    k->seen = 0;
}

static sweep_act_result walk_step(walk *k, sweep_vec3 wish, uint32_t buttons)
{
    sweep_wish wi = {wish, buttons};
    sweep_act_result r;
    sweep_status st = sweep_act(&k->sp, &k->lv.config, &k->lv.rules, k->lv.default_radii, &k->a, &wi, DT, &r);
    if (st != SWEEP_OK)
        fail_msg("sweep_act: %s", sweep_status_name(st));
    k->seen |= r.volumes.events;
    return r;
}

static void walk_end(walk *k)
{
    sweep_world_destroy(k->w);
    sweep_level_free(&k->lv);
}

/* The pad of pads.sql aims at (18, 0, 6.9) from (0, 0, 0.9) the way Quake
 * 3 aims a jump pad at its target: the flight tops out there. The pad sets
 * the velocity on every step the centre is still in it, so the flight
 * starts a little higher and further on than the pad's centre: the top is
 * within that offset plus one step's travel (speed * dt) of the target. */
static void walker_on_the_pad_tops_out_at_the_target(void **state)
{
    (void)state;
    walk k;
    walk_start(&k, "maps/pads.db", 0, 0);
    const sweep_volume *pad = &k.lv.volumes[0].v;
    sweep_vec3 last = k.a.position, top = k.a.position;
    int launches = 0, landed = 0;
    for (int i = 0; i < 600 && !landed; i++) {
        sweep_act_result r = walk_step(&k, sweep_v3(0, 0, 0), 0);
        if (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) {
            assert_int_equal(r.volumes.launched_by, 0);
            assert_memory_equal(&k.a.velocity, &pad->velocity, sizeof k.a.velocity);
            launches++;
            last = k.a.position;
        }
        if (k.a.position.z > top.z)
            top = k.a.position;
        landed = launches && k.a.grounded;
    }
    assert_true(launches >= 1 && launches <= 3);
    double vz = pad->velocity.z, vx = pad->velocity.x;
    double tol_z = (last.z - 0.9005) + vz * DT, tol_x = last.x + vx * DT;
    if (getenv("SWEEP_TEST_VERBOSE"))
        print_message("launches %d top (%.4f, %.4f) target (18, 6.9) tolerance (%.4f, %.4f) landed x %.4f\n",
                      launches, top.x, top.z, tol_x, tol_z, k.a.position.x);
    assert_true(fabs(top.z - 6.9) <= tol_z);
    assert_true(fabs(top.x - 18.0) <= tol_x);
    /* Down on the platform (its top is z = 4). */
    assert_true(landed);
    assert_true(k.a.position.x > 20.0 && k.a.position.x < 34.0);
    assert_true(fabs(k.a.position.z - 4.9) < 0.01);
    walk_end(&k);
}

static void teleporter_and_kill_strip(void **state)
{
    (void)state;
    walk k;
    walk_start(&k, "maps/pads.db", -10, 0);
    sweep_act_result r = walk_step(&k, sweep_v3(0, 0, 0), 0);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORTED);
    assert_int_equal(r.volumes.teleported_by, 1);
    assert_true(k.a.position.x == 25.0 && k.a.position.y == 3.0 && k.a.position.z == 4.9005);
    assert_true(k.a.velocity.y == 4.0);
    walk_end(&k);

    walk_start(&k, "maps/pads.db", 34, 0);
    int killed = 0, gate = 0;
    for (int i = 0; i < 120 && !killed; i++) {
        r = walk_step(&k, sweep_v3(5, 0, 0), 0);
        killed = (r.volumes.events & SWEEP_VOLUME_EV_KILLED) != 0;
    }
    assert_true(killed);
    assert_int_equal(r.volumes.killed_by, 4);
    assert_true(k.a.position.x >= 36.0);
    walk_end(&k);

    walk_start(&k, "maps/pads.db", 4, 0);
    for (int i = 0; i < 60 && !gate; i++)
        gate = (walk_step(&k, sweep_v3(5, 0, 0), 0).volumes.events & SWEEP_VOLUME_EV_ENTERED) != 0;
    assert_true(gate);
    walk_end(&k);
}

static void version_2_loads_without_volumes(void **state)
{
    fixture *f = *state;
    const char *db = fixture_path(f, "v2.db");
    assert_true(fixture_build_map(db, fixture_tiny_rows));
    assert_true(fixture_exec(db, "DROP TABLE volume_planes; DROP TABLE volumes; PRAGMA user_version = 2;"));
    sweep_level lv;
    sweep_map_load_info info;
    char err[256];
    if (sweep_map_load(db, &lv, &info, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(info.schema_version, 2);
    assert_int_equal(lv.volume_count, 0);
    sweep_level_free(&lv);
}

/* A bad volume row: the load fails with VOLUME and says which and why. */
static void refused(fixture *f, const char *rows, sweep_map_error code, const char *want)
{
    const char *db = fixture_path(f, "bad.db");
    char sql[4096];
    snprintf(sql, sizeof sql, "%s%s", fixture_tiny_rows, rows);
    fixture_quiet = 1;
    int built = fixture_build_map(db, sql);
    fixture_quiet = 0;
    assert_true(built);
    sweep_level lv;
    sweep_map_load_info info;
    char err[256];
    assert_int_not_equal(sweep_map_load(db, &lv, &info, err, sizeof err), SWEEP_OK);
    assert_int_equal(info.error, code);
    if (!strstr(err, want))
        fail_msg("got '%s', wanted '%s'", err, want);
}

static void bad_volumes_are_refused(void **state)
{
    fixture *f = *state;
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y, "
            "velocity_z, damage) VALUES (3, 'p', 'push', 0, 0, 0, 1, 1, 1, 0, 0, 5, 2);",
            SWEEP_MAP_E_VOLUME, "volumes row id=3: damage is set, but a 'push' volume does not read it (only 'hurt' and 'liquid' do)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y) "
            "VALUES (3, 'p', 'push', 0, 0, 0, 1, 1, 1, 0, 0);",
            SWEEP_MAP_E_VOLUME, "volumes row id=3: a 'push' volume needs velocity_z, but it is NULL");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, destination_x, "
            "destination_y, destination_z, facing_x, facing_y, facing_z, keep_velocity, exit_speed) "
            "VALUES (7, 't', 'teleport', 0, 0, 0, 1, 1, 1, 5, 5, 1, 1, 1, 0, 0, 3);",
            SWEEP_MAP_E_VOLUME, "volumes row id=7: volume 't' (teleport): facing is not a unit vector");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y, "
            "velocity_z) VALUES (3, 'p', 'push', 0, 0, 0, 1, 1, 1, 0, 0, 500);",
            SWEEP_MAP_E_VOLUME, "volume 'p' (push): launch velocity is faster than the speed limit (500, the map's speed_limit 60)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "INSERT INTO volume_planes VALUES (2, 0, 1, 0, 0, 0.5), (2, 2, 0, 1, 0, 0.5);",
            SWEEP_MAP_E_VOLUME, "volume_planes: row volume=2 id=2: ids must run 0, 1, 2, ... (expected 1)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "INSERT INTO volume_planes VALUES (2, 0, 0, 0, 0, 0.5);",
            SWEEP_MAP_E_VOLUME, "a plane's normal is zero");
    /* Ids are whole numbers, as in every table (1.5 was read as volume 1),
     * and a bad value names its volume as well as its plane: each on a
     * table without the schema's types and checks, as a hand-made map
     * may have it. */
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "CREATE TABLE p2 AS SELECT * FROM volume_planes; DROP TABLE volume_planes;"
            "ALTER TABLE p2 RENAME TO volume_planes;"
            "INSERT INTO volume_planes VALUES (1.5, 0, 1, 0, 0, 0.5);",
            SWEEP_MAP_E_VOLUME, "volume_planes: volume is not a whole number (1.5)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "CREATE TABLE p2 AS SELECT * FROM volume_planes; DROP TABLE volume_planes;"
            "ALTER TABLE p2 RENAME TO volume_planes;"
            "INSERT INTO volume_planes VALUES (2, 0.25, 1, 0, 0, 0.5);",
            SWEEP_MAP_E_VOLUME, "volume_planes: id is not a whole number (0.25)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "CREATE TABLE p2 AS SELECT * FROM volume_planes; DROP TABLE volume_planes;"
            "ALTER TABLE p2 RENAME TO volume_planes;"
            "INSERT INTO volume_planes VALUES (2, 0, 'abc', 0, 0, 0.5);",
            SWEEP_MAP_E_VALUE, "volume_planes row id=0: volume 2's nx is not a finite number (text 'abc')");
    /* Without the schema's PRIMARY KEY (and the planes' reference to it)
     * one id can stand twice; a move's report would name two volumes by it. */
    refused(f,
            "CREATE TABLE p2 AS SELECT * FROM volume_planes; DROP TABLE volume_planes;"
            "ALTER TABLE p2 RENAME TO volume_planes;"
            "CREATE TABLE v2 AS SELECT * FROM volumes; DROP TABLE volumes; ALTER TABLE v2 RENAME TO volumes;"
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (4, 'k', 'kill', 0, 0, 0, 1, 1, 1), (4, 'k2', 'kill', 2, 2, 2, 3, 3, 3);",
            SWEEP_MAP_E_VOLUME, "volumes row id=4: id 4 is also the id of another row");
}

static void pool_loads_liquids_ladder_and_rules(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_world *w;
    load("maps/pool.db", &lv, &w);
    assert_int_equal(lv.volume_count, 3);
    assert_int_equal(lv.volumes[0].v.kind, SWEEP_VOLUME_LIQUID);
    assert_int_equal(lv.volumes[0].v.liquid, SWEEP_LIQUID_WATER);
    assert_true(lv.volumes[0].v.damage == 0.0);
    assert_int_equal(lv.volumes[1].v.liquid, SWEEP_LIQUID_SLIME);
    assert_true(lv.volumes[1].v.damage == 10.0);
    assert_int_equal(lv.volumes[2].v.kind, SWEEP_VOLUME_LADDER);
    assert_true(lv.volumes[2].v.normal.x == -1.0 && lv.volumes[2].v.normal.y == 0.0);
    sweep_rules want;
    sweep_rules_default(&want);
    want.air_accel = 10.0;
    assert_memory_equal(&lv.rules, &want, sizeof want);
    uint32_t n = 0;
    assert_non_null(sweep_world_volumes(w, &n));
    assert_int_equal(n, 3);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

static void liquids_round_trip_and_are_hashed(void **state)
{
    fixture *f = *state;
    sweep_level lv, back;
    load("maps/pool.db", &lv, NULL);
    lv.rules.swim_sink = -0.25; /* not the default: the writer writes it */
    sweep_content_hash a, b, c;
    write_back(f, "pool_again.db", &lv, &back, &a);
    /* Every swimming rule, the liquid and the ladder's normal are the level. */
    double *rules[] = {&back.rules.swim_speed, &back.rules.swim_accel, &back.rules.swim_drag,
                       &back.rules.swim_sink,  &back.rules.swim_jump,  &back.rules.climb_speed,
                       &back.rules.climb_accel, &back.volumes[1].v.damage, &back.volumes[2].v.normal.x};
    for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++) {
        double keep = *rules[k];
        *rules[k] = nextafter(keep, 1e9);
        assert_int_equal(sweep_level_content_hash(&back, &c), SWEEP_OK);
        assert_memory_not_equal(&a, &c, sizeof a);
        *rules[k] = keep;
    }
    back.volumes[0].v.liquid = SWEEP_LIQUID_LAVA;
    assert_int_equal(sweep_level_content_hash(&back, &c), SWEEP_OK);
    assert_memory_not_equal(&a, &c, sizeof a);
    sweep_level_free(&back);
    sweep_level_free(&lv);

    /* Without liquids or ladders the swimming rules are not the level's:
     * a level of pads hashes the same whatever they are. */
    sweep_level pads;
    load("maps/pads.db", &pads, NULL);
    assert_int_equal(sweep_level_content_hash(&pads, &a), SWEEP_OK);
    pads.rules.swim_speed = 1.0;
    pads.rules.climb_accel = 1.0;
    assert_int_equal(sweep_level_content_hash(&pads, &b), SWEEP_OK);
    assert_memory_equal(&a, &b, sizeof a);
    sweep_level_free(&pads);
}

/* Off the near deck, across with the head out, out by the water jump. */
static void swim_across_and_jump_out(void **state)
{
    (void)state;
    walk k;
    walk_start(&k, "maps/pool.db", 5, 0);
    int i = 0, out = 0;
    for (; i < 60 * 30 && !out; i++) {
        sweep_vec3 wish = sweep_v3(5, 0, 0);
        uint32_t buttons = 0;
        if (k.a.position.x > 10.5 && k.a.position.x < 21) {
            wish = sweep_v3(2.4, 0, k.a.position.z < -0.9 ? 0.6 : 0.0);
            if (k.a.position.x > 19.4)
                wish = sweep_v3(4, 0, 0), buttons = SWEEP_WISH_JUMP;
        }
        sweep_act_result r = walk_step(&k, wish, buttons);
        if (r.volumes.events & SWEEP_VOLUME_EV_IN_LIQUID)
            assert_int_equal(r.volumes.liquid, 0);
        out = k.a.grounded && k.a.position.x > 20.5;
    }
    assert_true(out);
    assert_true(k.seen & SWEEP_VOLUME_EV_LIQUID_ENTERED);
    assert_true(k.seen & SWEEP_VOLUME_EV_SWAM);
    assert_true(k.seen & SWEEP_VOLUME_EV_LIQUID_LEFT);
    assert_false(k.seen & SWEEP_VOLUME_EV_HURT);
    assert_true(fabs(k.a.position.z - 0.9) < 0.01);
    walk_end(&k);
}

/* The slime corner hurts 10 per second at each depth level. */
static void slime_hurts_by_depth(void **state)
{
    (void)state;
    walk k;
    walk_start(&k, "maps/pool.db", 15, 8);
    k.a.position.z = -1.5;
    k.a.grounded = 0;
    sweep_act_result r = walk_step(&k, sweep_v3(0, 0, 0), 0);
    assert_int_equal(r.volumes.liquid, 1);
    assert_int_equal(r.volumes.liquid_type, SWEEP_LIQUID_SLIME);
    assert_int_equal(r.volumes.liquid_level, 3);
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_HURT);
    assert_int_equal(r.volumes.hurt_by, 1);
    assert_true(r.volumes.damage == 10.0 * 3.0 * DT);
    walk_end(&k);
}

static void climb_the_ladder_onto_the_tower(void **state)
{
    (void)state;
    walk k;
    walk_start(&k, "maps/pool.db", 27, 0);
    int i = 0, up = 0;
    for (; i < 60 * 20 && !up; i++) {
        walk_step(&k, sweep_v3(5, 0, 0), 0);
        up = k.a.grounded && k.a.position.x > 30.5;
    }
    assert_true(up);
    assert_true(k.seen & SWEEP_VOLUME_EV_CLIMBED);
    assert_true(fabs(k.a.position.z - 4.9) < 0.01);
    walk_end(&k);
}

/* A map without the version 4 columns (a version 3 map, or a version 4
 * one from a tool that does not know them) loads with the defaults. */
static void without_the_optional_columns(void **state)
{
    fixture *f = *state;
    const char *db = fixture_path(f, "v3.db");
    assert_true(fixture_build_map(db, fixture_tiny_rows));
    assert_true(fixture_exec(db, "ALTER TABLE map DROP COLUMN swim_speed; ALTER TABLE map DROP COLUMN climb_accel; "
                                 "ALTER TABLE volumes DROP COLUMN liquid;"));
    sweep_level lv;
    char err[256];
    if (sweep_map_load(db, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_rules want;
    sweep_rules_default(&want);
    assert_memory_equal(&lv.rules, &want, sizeof want);
    sweep_level_free(&lv);
    assert_true(fixture_exec(db, "PRAGMA user_version = 3;"));
    if (sweep_map_load(db, &lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_level_free(&lv);
}

static void bad_liquids_and_ladders_are_refused(void **state)
{
    fixture *f = *state;
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (3, 'w', 'liquid', 0, 0, 0, 1, 1, 1);",
            SWEEP_MAP_E_VOLUME, "volumes row id=3: a 'liquid' volume needs liquid, but it is NULL");
    refused(f,
            "PRAGMA ignore_check_constraints = 1;"
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, liquid) "
            "VALUES (3, 'w', 'liquid', 0, 0, 0, 1, 1, 1, 'oil');",
            SWEEP_MAP_E_VOLUME, "volumes row id=3: liquid 'oil' is not one of water, slime, lava");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, normal_x, normal_y, "
            "normal_z) VALUES (4, 'l', 'ladder', 0, 0, 0, 1, 1, 1, 1, 1, 0);",
            SWEEP_MAP_E_VOLUME, "volumes row id=4: volume 'l' (ladder): ladder normal is not a unit vector");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, liquid, normal_x, "
            "normal_y, normal_z) VALUES (4, 'l', 'liquid', 0, 0, 0, 1, 1, 1, 'water', 1, 0, 0);",
            SWEEP_MAP_E_VOLUME, "normal_x is set, but a 'liquid' volume does not read it (only 'ladder' does)");
    refused(f,
            "PRAGMA ignore_check_constraints = 1;"
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, liquid, damage) "
            "VALUES (3, 'w', 'liquid', 0, 0, 0, 1, 1, 1, 'lava', -1);",
            SWEEP_MAP_E_VOLUME, "damage per second is below 0");
    refused(f, "PRAGMA ignore_check_constraints = 1; UPDATE map SET swim_drag = 2000;", SWEEP_MAP_E_METADATA,
            "swim_drag=2000 must be in [0, 1000] per second");
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pads_load_every_kind),
        cmocka_unit_test_setup_teardown(volumes_round_trip_and_are_hashed, setup, teardown),
        cmocka_unit_test(walker_on_the_pad_tops_out_at_the_target),
        cmocka_unit_test(teleporter_and_kill_strip),
        cmocka_unit_test_setup_teardown(version_2_loads_without_volumes, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_volumes_are_refused, setup, teardown),
        cmocka_unit_test(pool_loads_liquids_ladder_and_rules),
        cmocka_unit_test_setup_teardown(liquids_round_trip_and_are_hashed, setup, teardown),
        cmocka_unit_test(swim_across_and_jump_out),
        cmocka_unit_test(slime_hurts_by_depth),
        cmocka_unit_test(climb_the_ladder_onto_the_tower),
        cmocka_unit_test_setup_teardown(without_the_optional_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_liquids_and_ladders_are_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
