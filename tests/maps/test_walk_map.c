/*
 * test_walk_map.c - sweep-walk --map: the walker benchmark on a loaded map.
 *
 * Runs the real program on the built sample arena and checks its answer
 * against the same walk done here in-process through the loader and the
 * walker workload, so the command line, the loader and the core agree to
 * the bit. Also checks that a bad map is refused with a message, and that
 * walkers shut in a closet are reported trapped (the level holds them),
 * not stuck (the core failed them).
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/world.h"
#include "maps/loader.h"
#include "maps/writer.h"
#include "core/walker.h"

/* Runs cmd, keeps its output (stdout and stderr) in out; returns the exit code. */
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

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

/* The hash sweep-walk must print for its default workload on the map: a
 * tick of the map's movers before each round of moves, the movers folded
 * into the hash. */
static uint64_t walk_here(const char *map, uint32_t walkers, uint32_t steps)
{
    sweep_level lv;
    char err[256];
    assert_int_equal(sweep_map_load(map, &lv, NULL, err, sizeof err), SWEEP_OK);
    sweep_world_desc desc = sweep_level_world_desc(&lv);
    sweep_world *w;
    assert_int_equal(sweep_world_create(&desc, &w), SWEEP_OK);
    sweep_walk_params wp = {walkers, steps, 60, 1.0 / 60.0, 5.0, lv.default_radii, 1};
    sweep_movers *mv;
    assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK);
    assert_true(sweep_movers_count(mv) > 0); /* the arena has doors and lifts */
    sweep_walker *wk = calloc(walkers, sizeof *wk);
    assert_non_null(wk);
    sweep_walk_place(&wp, lv.spawns, lv.spawn_count, wk);
    sweep_move_result res;
    for (uint32_t s = 0; s < steps; s++) {
        assert_int_equal(sweep_walk_tick(mv, w, &lv.config, &wp, lv.spawns, lv.spawn_count, wk, NULL), SWEEP_OK);
        for (uint32_t i = 0; i < walkers; i++)
            assert_int_equal(sweep_walk_step_among(w, mv, &lv.config, &wp, i, s, &wk[i], &res), SWEEP_OK);
    }
    uint64_t h = sweep_movers_hash(mv, sweep_walk_hash(wk, walkers));
    free(wk);
    sweep_movers_destroy(mv);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
    return h;
}

static void walks_the_arena_like_the_core(void **state)
{
    fixture *f = *state;
    char bin[4200], map[4200], dump[4200], cmd[13000], out[4096];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-walk"));
    snprintf(map, sizeof map, "%s", fixture_build("maps/arena.db"));
    snprintf(dump, sizeof dump, "%s", fixture_path(f, "dump.txt"));
    if (access(bin, X_OK) != 0 || access(map, R_OK) != 0)
        fail_msg("%s or %s is missing: build them with make", bin, map);

    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 12 --steps 300 --dump '%s' 2>&1", bin, map, dump);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "BENCH name=core.walk tris="));
    const char *h = strstr(out, "state_hash=");
    assert_non_null(h);
    uint64_t printed = strtoull(h + 11, NULL, 16);
    assert_true(printed == walk_here(map, 12, 300));
    assert_non_null(strstr(out, "errors=0"));

    /* One dump line per walker, each inside the arena's walls. */
    FILE *d = fopen(dump, "r");
    assert_non_null(d);
    unsigned id;
    double x, y, z;
    int lines = 0;
    while (fscanf(d, "%u %lf %lf %lf", &id, &x, &y, &z) == 4) {
        assert_int_equal(id, lines);
        assert_true(fabs(x) < 20.0 && fabs(y) < 20.0 && z > -3.0 && z < 4.0);
        lines++;
    }
    fclose(d);
    assert_int_equal(lines, 12);
}

/* A closed box lo..hi whose faces look inward. */
static void add_room(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep_level box;
    sweep_level_init(&box);
    assert_int_equal(sweep_level_add_box(&box, lo, hi, 1, 1), SWEEP_OK);
    for (uint32_t t = 0; t < box.triangle_count; t++) {
        uint32_t id[3];
        for (int k = 0; k < 3; k++)
            assert_int_equal(sweep_level_add_vertex(lv, box.vertices[box.indices[3 * t + k]], &id[k]), SWEEP_OK);
        assert_int_equal(sweep_level_add_triangle(lv, id[0], id[2], id[1], 1), SWEEP_OK);
    }
    sweep_level_free(&box);
}

/* A room 12 x 12 with 5 spawn points and, away from it, a closet 1 x 1 x 2
 * (the body is 0.8 x 0.8 x 1.8) with 2: sweep-walk counts the two closet
 * walkers (and every walker it puts there: spawns are dealt round) as
 * trapped, none as stuck or inside, and judges the rest, still or not,
 * free. */
static void closet_walkers_are_trapped_not_stuck(void **state)
{
    fixture *f = *state;
    char bin[4200], map[4200], cmd[13000], out[8192], err[512];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-walk"));
    snprintf(map, sizeof map, "%s", fixture_path(f, "closet.db"));
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "closet");
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 1.0, 0), SWEEP_OK);
    add_room(&lv, sweep_v3(-6, -6, 0), sweep_v3(6, 6, 3));
    add_room(&lv, sweep_v3(49.5, -0.5, 0), sweep_v3(50.5, 0.5, 2));
    static const double room_spawns[5][2] = {{0, 0}, {3, 3}, {-3, 3}, {-3, -3}, {3, -3}};
    for (int i = 0; i < 5; i++)
        assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(room_spawns[i][0], room_spawns[i][1], 1.0)), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(50, 0, 1.0)), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(50, 0, 1.05)), SWEEP_OK);
    sweep_map_write_options wo = {"m", 45.0, NULL, NULL, NULL};
    if (sweep_map_write(map, &lv, &wo, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_level_free(&lv);

    /* 14 walkers over 7 spawns: 4 in the closet, 10 in the room. */
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 14 --steps 600 --level-bench 2>&1", bin, map);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    print_message("%s", out);
    assert_non_null(strstr(out, " stuck=0 trapped=4 inside=0"));
    assert_non_null(strstr(out, "left=0 still="));
    assert_non_null(strstr(out, "fallback_moves=0 stuck=0 trapped=4 inside=0 left=0"));
}

static void bad_map_is_refused(void **state)
{
    fixture *f = *state;
    char bin[4200], bad[4200], cmd[9000], out[4096];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-walk"));
    snprintf(bad, sizeof bad, "%s", fixture_path(f, "not-a-map.db"));
    assert_true(fixture_write(bad, "hello, I am not a database at all\n", 34));
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 2 --steps 2 2>&1", bin, bad);
    int rc = run(cmd, out, sizeof out);
    assert_true(rc != 0);
    assert_non_null(strstr(out, "sweep-walk: "));
    assert_null(strstr(out, "BENCH"));

    snprintf(cmd, sizeof cmd, "'%s' --map '%s' 2>&1", bin, fixture_path(f, "missing.db"));
    assert_true(run(cmd, out, sizeof out) != 0);
    assert_non_null(strstr(out, "missing.db"));
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(walks_the_arena_like_the_core, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_map_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(closet_walkers_are_trapped_not_stuck, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
