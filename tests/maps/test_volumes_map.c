/*
 * test_volumes_map.c - volumes through the map format and in use on the
 * sample level maps/pads.sql: the loader reads every kind, the writer
 * writes them back to the same level and hash, the hash covers them and
 * leaves a level without volumes as it was; a walker stepping on the pad
 * tops out where Quake 3's jump pad arithmetic aims it and lands on the
 * platform, the teleporter takes it to its destination, the kill strip
 * ends its move; a map of version 2 loads without volumes; bad volume
 * rows are refused with the row and the reason.
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

static void load_pads(sweep_level *lv, sweep_world **w)
{
    char err[256];
    if (sweep_map_load(fixture_build("maps/pads.db"), lv, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("pads.db: %s", err);
    if (w && sweep_map_build_world(lv, w, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("pads.db world: %s", err);
}

static void pads_load_every_kind(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_world *w;
    load_pads(&lv, &w);
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

static void volumes_round_trip_and_are_hashed(void **state)
{
    fixture *f = *state;
    sweep_level lv, back;
    load_pads(&lv, NULL);
    char err[256];
    const char *path = fixture_path(f, "pads_again.db");
    if (sweep_map_write(path, &lv, NULL, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("write: %s", err);
    if (sweep_map_load(path, &back, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("load back: %s", err);
    assert_int_equal(back.volume_count, lv.volume_count);
    for (uint32_t i = 0; i < lv.volume_count; i++)
        assert_memory_equal(&back.volumes[i], &lv.volumes[i], sizeof lv.volumes[i]);
    sweep_content_hash a, b, c, d;
    assert_int_equal(sweep_level_content_hash(&lv, &a), SWEEP_OK);
    assert_int_equal(sweep_level_content_hash(&back, &b), SWEEP_OK);
    assert_memory_equal(&a, &b, sizeof a);
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
} walk;

static void walk_start(walk *k, double x, double y)
{
    load_pads(&k->lv, &k->w);
    k->sp = (sweep_space){k->w, NULL, NULL, SWEEP_NO_BODY};
    memset(&k->a, 0, sizeof k->a);
    k->a.position = sweep_v3(x, y, 0.9005);
    k->a.grounded = 1;
}

static sweep_act_result walk_step(walk *k, sweep_vec3 wish)
{
    sweep_wish wi = {wish, 0};
    sweep_act_result r;
    sweep_status st = sweep_act(&k->sp, &k->lv.config, &k->lv.rules, k->lv.default_radii, &k->a, &wi, DT, &r);
    if (st != SWEEP_OK)
        fail_msg("sweep_act: %s", sweep_status_name(st));
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
    walk_start(&k, 0, 0);
    const sweep_volume *pad = &k.lv.volumes[0].v;
    sweep_vec3 last = k.a.position, top = k.a.position;
    int launches = 0, landed = 0;
    for (int i = 0; i < 600 && !landed; i++) {
        sweep_act_result r = walk_step(&k, sweep_v3(0, 0, 0));
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
    walk_start(&k, -10, 0);
    sweep_act_result r = walk_step(&k, sweep_v3(0, 0, 0));
    assert_true(r.volumes.events & SWEEP_VOLUME_EV_TELEPORTED);
    assert_int_equal(r.volumes.teleported_by, 1);
    assert_true(k.a.position.x == 25.0 && k.a.position.y == 3.0 && k.a.position.z == 4.9005);
    assert_true(k.a.velocity.y == 4.0);
    walk_end(&k);

    walk_start(&k, 34, 0);
    int killed = 0, gate = 0;
    for (int i = 0; i < 120 && !killed; i++) {
        r = walk_step(&k, sweep_v3(5, 0, 0));
        killed = (r.volumes.events & SWEEP_VOLUME_EV_KILLED) != 0;
    }
    assert_true(killed);
    assert_int_equal(r.volumes.killed_by, 4);
    assert_true(k.a.position.x >= 36.0);
    walk_end(&k);

    walk_start(&k, 4, 0);
    for (int i = 0; i < 60 && !gate; i++)
        gate = (walk_step(&k, sweep_v3(5, 0, 0)).volumes.events & SWEEP_VOLUME_EV_ENTERED) != 0;
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
static void refused(fixture *f, const char *rows, const char *want)
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
    assert_int_equal(info.error, SWEEP_MAP_E_VOLUME);
    if (!strstr(err, want))
        fail_msg("got '%s', wanted '%s'", err, want);
}

static void bad_volumes_are_refused(void **state)
{
    fixture *f = *state;
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y, "
            "velocity_z, damage) VALUES (3, 'p', 'push', 0, 0, 0, 1, 1, 1, 0, 0, 5, 2);",
            "volumes row id=3: damage is set, but a 'push' volume does not read it (only 'hurt' and 'liquid' do)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y) "
            "VALUES (3, 'p', 'push', 0, 0, 0, 1, 1, 1, 0, 0);",
            "volumes row id=3: a 'push' volume needs velocity_z, but it is NULL");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, destination_x, "
            "destination_y, destination_z, facing_x, facing_y, facing_z, keep_velocity, exit_speed) "
            "VALUES (7, 't', 'teleport', 0, 0, 0, 1, 1, 1, 5, 5, 1, 1, 1, 0, 0, 3);",
            "volumes row id=7: volume 't' (teleport): facing is not a unit vector");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y, "
            "velocity_z) VALUES (3, 'p', 'push', 0, 0, 0, 1, 1, 1, 0, 0, 500);",
            "launch velocity is faster than the speed limit");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "INSERT INTO volume_planes VALUES (2, 0, 1, 0, 0, 0.5), (2, 2, 0, 1, 0, 0.5);",
            "volume_planes: row volume=2 id=2: ids must run 0, 1, 2, ... (expected 1)");
    refused(f,
            "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z) "
            "VALUES (2, 'k', 'kill', 0, 0, 0, 1, 1, 1);"
            "INSERT INTO volume_planes VALUES (2, 0, 0, 0, 0, 0.5);",
            "a plane's normal is zero");
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
