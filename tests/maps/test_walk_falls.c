/*
 * test_walk_falls.c - sweep-walk names the walkers that fall out of a
 * level, below it or into a kill volume, with where they last stood,
 * counts them in fell= and marks the place in its SVG; and it walks at
 * the level's own walk speed unless --speed says otherwise, saying which
 * it used.
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "maps/level.h"
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

static int run(const char *args, char *out, size_t cap)
{
    return fixture_run("bin/sweep-walk", args, out, cap);
}

/* A floor 20 x 20 (scaled by s) with a 10 x 10 hole in its middle, walls
 * round its rim, spawns at the hole's corners. */
static void holed_level(sweep_level *lv, double s)
{
    sweep_level_init(lv);
    snprintf(lv->name, sizeof lv->name, "holed");
    assert_int_equal(sweep_level_add_material(lv, 1, "floor", 1.0, 0), SWEEP_OK);
    const double a = 10 * s, h = 5 * s;
    /* The ring: four quads facing up. */
    const double q[4][4] = {{-a, -a, a, -h}, {-a, h, a, a}, {-a, -h, -h, h}, {h, -h, a, h}};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sweep_level_add_quad(lv, sweep_v3(q[i][0], q[i][1], 0), sweep_v3(q[i][2], q[i][1], 0),
                                              sweep_v3(q[i][2], q[i][3], 0), sweep_v3(q[i][0], q[i][3], 0), 1),
                         SWEEP_OK);
    assert_int_equal(sweep_level_add_box(lv, sweep_v3(-a - s, -a - s, 0), sweep_v3(-a, a + s, 4 * s), 1, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_box(lv, sweep_v3(a, -a - s, 0), sweep_v3(a + s, a + s, 4 * s), 1, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_box(lv, sweep_v3(-a, -a - s, 0), sweep_v3(a, -a, 4 * s), 1, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_box(lv, sweep_v3(-a, a, 0), sweep_v3(a, a + s, 4 * s), 1, 0), SWEEP_OK);
    double z = lv->default_radii.z + 0.05;
    const double sp[4][2] = {{-6, -6}, {6, -6}, {-6, 6}, {6, 6}};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sweep_level_add_spawn(lv, sweep_v3(sp[i][0] * s, sp[i][1] * s, z)), SWEEP_OK);
}

static void write_map(const sweep_level *lv, const char *path, const char *units)
{
    sweep_map_write_options wo = {units, 45.0, NULL, NULL, NULL};
    char err[512];
    if (sweep_map_write(path, lv, &wo, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
}

static void walkers_through_a_hole_are_named(void **state)
{
    fixture *f = *state;
    sweep_level lv;
    holed_level(&lv, 1.0);
    char map[4200], svg[4200], args[9000], out[16384];
    snprintf(map, sizeof map, "%s", fixture_path(f, "holed.db"));
    write_map(&lv, map, "m");
    sweep_level_free(&lv);
    snprintf(svg, sizeof svg, "%s", fixture_path(f, "holed.svg"));
    snprintf(args, sizeof args, "--map '%s' --walkers 16 --steps 1200 --svg '%s'", map, svg);
    assert_int_equal(run(args, out, sizeof out), 0);
    unsigned fell = 0, left = 0;
    const char *state_line = strstr(out, "state_hash=");
    assert_non_null(state_line);
    assert_non_null(strstr(state_line, " left="));
    assert_int_equal(sscanf(strstr(state_line, " left=") + 6, "%u", &left), 1);
    const char *f_at = strstr(state_line, " fell=");
    assert_non_null(f_at);
    assert_int_equal(sscanf(f_at + 6, "%u", &fell), 1);
    if (fell == 0)
        fail_msg("nobody fell through the hole:\n%s", out);
    assert_true(left <= fell); /* whoever is out of the level at the end fell out of it */
    /* Each named walker left from the rim of the hole, standing on the
     * floor or on its edge (a body rolling over it sinks below 0.9). */
    char head[32];
    snprintf(head, sizeof head, "\nfell=%u:", fell);
    const char *list = strstr(out, head);
    if (!list)
        fail_msg("no '%s' line:\n%s", head + 1, out);
    const char *at = list;
    unsigned named = 0;
    while ((at = strstr(at + 1, " walker ")) && at < strchr(list + 1, '\n')) {
        unsigned id, step;
        double x, y, z;
        assert_int_equal(sscanf(at, " walker %u left at (%lf, %lf, %lf) step %u", &id, &x, &y, &z, &step), 5);
        assert_true(id < 16 && step > 0 && step <= 1200);
        if (!(fabs(x) <= 5.5 && fabs(y) <= 5.5 && (fabs(x) >= 4.5 || fabs(y) >= 4.5) && z > 0.0 && z < 0.91))
            fail_msg("walker %u left at (%g, %g, %g), not on the hole's rim", id, x, y, z);
        named++;
    }
    assert_int_equal(named, fell < 16 ? fell : 16);
    /* The picture marks where they left. */
    size_t len = 0;
    char *text = fixture_read(svg, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "fell out of the level</title>"));
    char legend[64];
    snprintf(legend, sizeof legend, "falls out of the level: %u<", fell);
    assert_non_null(strstr(text, legend));
    free(text);
}

/* The same level with a kill volume under the whole of it, as a level's
 * void has: the walkers that fall through the hole are ended there, named
 * with the volume, and come back at their spawn points, so none is left
 * below the level. */
static void walkers_into_a_kill_volume_are_named(void **state)
{
    fixture *f = *state;
    sweep_level lv;
    holed_level(&lv, 1.0);
    sweep_volume pit;
    memset(&pit, 0, sizeof pit);
    pit.kind = SWEEP_VOLUME_KILL;
    pit.lo = sweep_v3(-12, -12, -3);
    pit.hi = sweep_v3(12, 12, -1);
    assert_int_equal(sweep_level_add_volume(&lv, 1, "the pit", &pit), SWEEP_OK);
    char map[4200], svg[4200], args[9000], out[16384];
    snprintf(map, sizeof map, "%s", fixture_path(f, "pit.db"));
    write_map(&lv, map, "m");
    sweep_level_free(&lv);
    snprintf(svg, sizeof svg, "%s", fixture_path(f, "pit.svg"));
    snprintf(args, sizeof args, "--map '%s' --walkers 16 --steps 1200 --svg '%s'", map, svg);
    assert_int_equal(run(args, out, sizeof out), 0);
    const char *state_line = strstr(out, "state_hash=");
    assert_non_null(state_line);
    unsigned fell = 0, left = 0, killed = 0;
    assert_int_equal(sscanf(strstr(state_line, " left=") + 6, "%u", &left), 1);
    assert_int_equal(sscanf(strstr(state_line, " fell=") + 6, "%u", &fell), 1);
    if (fell == 0)
        fail_msg("nobody fell into the pit:\n%s", out);
    /* Killed a unit under the floor, before they could leave the level
     * (-1.8: its lowest point less their height). */
    if (left != 0)
        fail_msg("%u walkers out of the level at the end:\n%s", left, out);
    const char *k_at = strstr(out, "\nkilled=");
    if (!k_at)
        fail_msg("no killed= line:\n%s", out);
    assert_int_equal(sscanf(k_at + 8, "%u", &killed), 1);
    assert_true(killed >= fell);
    char head[32];
    snprintf(head, sizeof head, "\nfell=%u:", fell);
    const char *list = strstr(out, head);
    if (!list)
        fail_msg("no '%s' line:\n%s", head + 1, out);
    const char *end = strchr(list + 1, '\n');
    unsigned named = 0;
    for (const char *at = list; (at = strstr(at + 1, " walker ")) && at < end; named++) {
        unsigned id, step, vol;
        double x, y, z;
        char name[16];
        assert_int_equal(sscanf(at, " walker %u left at (%lf, %lf, %lf) step %u into kill volume %u '%7[^']'", &id,
                                &x, &y, &z, &step, &vol, name),
                         7);
        assert_int_equal(vol, 1);
        assert_string_equal(name, "the pit");
        if (!(fabs(x) <= 5.5 && fabs(y) <= 5.5 && z > 0.0 && z < 0.91))
            fail_msg("walker %u left at (%g, %g, %g), not on the pit's rim", id, x, y, z);
    }
    assert_int_equal(named, fell < 16 ? fell : 16);
    size_t len = 0;
    char *text = fixture_read(svg, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "killed by volume 1 &apos;the pit&apos;</title>"));
    free(text);
}

/* A level in inches with its own walk speed: taken without --speed, and
 * said so; --speed still wins. */
static void the_level_s_walk_speed_is_the_default(void **state)
{
    fixture *f = *state;
    sweep_level lv;
    holed_level(&lv, 39.37);
    lv.config.gravity = sweep_v3(0, 0, -386.1);
    lv.default_radii = sweep_v3(16, 16, 36);
    lv.config.step_height = 14;
    lv.rules.walk_speed = 200;
    lv.rules.ground_accel = 2000;
    lv.rules.air_accel = 400;
    lv.rules.jump_speed = 200;
    lv.rules.speed_limit = lv.config.max_speed = 2400;
    lv.correction_threshold = 10;
    for (uint32_t i = 0; i < lv.spawn_count; i++)
        lv.spawns[i].z = 37;
    char map[4200], args[9000], out[16384];
    snprintf(map, sizeof map, "%s", fixture_path(f, "inches.db"));
    write_map(&lv, map, "in");
    sweep_level_free(&lv);
    snprintf(args, sizeof args, "--map '%s' --walkers 4 --steps 60", map);
    assert_int_equal(run(args, out, sizeof out), 0);
    if (!strstr(out, "walkers: speed 200 units/s (the level's walk speed), gravity (0, 0, -386.1) (the level's), "
                     "radii (16, 16, 36) (the level's)"))
        fail_msg("%s", out);
    snprintf(args, sizeof args, "--map '%s' --walkers 4 --steps 60 --speed 50", map);
    assert_int_equal(run(args, out, sizeof out), 0);
    assert_non_null(strstr(out, "walkers: speed 50 units/s (--speed)"));
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(walkers_through_a_hole_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(walkers_into_a_kill_volume_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(the_level_s_walk_speed_is_the_default, setup, teardown),
    };
    return cmocka_run_group_tests_name("maps.walk_falls", tests, NULL, NULL);
}
