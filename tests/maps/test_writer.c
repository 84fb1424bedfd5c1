/*
 * test_writer.c - writing maps: a generated level written and loaded back
 * is the same level (same geometry, same content hash; levels with movers
 * are in test_movers_map.c); a write that fails leaves nothing behind and
 * does not touch an existing map; sweep-mapgen writes the same map for the
 * same seed. The movement rules and the rest of the map row survive the
 * writer bit for bit; --rules files are read as documented (values, line
 * numbers in every error), in-process and through sweep-mapgen.
 */
#include "tests/maps/map_fixture.h"

#include <sys/stat.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "maps/content_hash.h"
#include "maps/levelgen.h"
#include "maps/loader.h"
#include "maps/schema.h"
#include "maps/writer.h"

#include <float.h>
#include <math.h>

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

static void generated_level_round_trip(void **state)
{
    fixture *f = *state;
    sweep_level gen;
    sweep_level_init(&gen);
    sweep_levelgen_params p = {.seed = 7, .target_triangles = 3000, .spawn_count = 8};
    assert_int_equal(sweep_levelgen(&p, &gen), SWEEP_OK);

    const char *path = fixture_path(f, "gen.db");
    sweep_map_write_options o = {"m", 45.0, NULL, NULL, NULL};
    sweep_map_write_result res;
    char err[512];
    if (sweep_map_write(path, &gen, &o, &res, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    assert_int_equal(fixture_count_files(f), 1); /* no temporary left */

    sweep_level back;
    assert_int_equal(sweep_map_load(path, &back, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(back.vertex_count, gen.vertex_count);
    assert_int_equal(back.triangle_count, gen.triangle_count);
    assert_int_equal(res.triangle_count, gen.triangle_count);
    assert_memory_equal(back.vertices, gen.vertices, gen.vertex_count * sizeof *gen.vertices);
    assert_memory_equal(back.indices, gen.indices, 3 * (size_t)gen.triangle_count * sizeof *gen.indices);
    assert_memory_equal(back.materials, gen.materials, gen.triangle_count * sizeof *gen.materials);
    assert_int_equal(back.spawn_count, 8);
    assert_string_equal(back.name, gen.name);
    /* Written in the current format; a level without movers has none. */
    assert_int_equal(res.load.schema_version, SWEEP_MAP_SCHEMA_VERSION);
    assert_int_equal(back.mover_count, 0);

    /* 45 degrees through the map's deterministic cosine is the core's
     * default constant, so even the rules survive bit for bit. */
    sweep_content_hash hg, hb;
    assert_int_equal(sweep_level_content_hash(&gen, &hg), SWEEP_OK);
    assert_int_equal(sweep_level_content_hash(&back, &hb), SWEEP_OK);
    assert_memory_equal(hg.bytes, hb.bytes, 32);
    assert_memory_equal(res.hash.bytes, hb.bytes, 32);
    sweep_level_free(&back);
    sweep_level_free(&gen);
}

static void failed_write_leaves_nothing(void **state)
{
    fixture *f = *state;
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "broken");
    assert_int_equal(sweep_level_add_material(&lv, 1, "floor", 1.0, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(&lv, sweep_v3(0, 0, 0), sweep_v3(1, 0, 0), sweep_v3(1, 1, 0),
                                          sweep_v3(0, 1, 0), 1),
                     SWEEP_OK);
    lv.materials[1] = 9; /* no such material: the loader would refuse it */

    const char *path = fixture_path(f, "out.db");
    char err[512];
    assert_int_not_equal(sweep_map_write(path, &lv, NULL, NULL, err, sizeof err), SWEEP_OK);
    assert_non_null(strstr(err, "material 9"));
    assert_int_equal(fixture_count_files(f), 0);

    /* An existing map at the destination survives a failed write. */
    assert_true(fixture_write(path, "old", 3));
    assert_int_not_equal(sweep_map_write(path, &lv, NULL, NULL, err, sizeof err), SWEEP_OK);
    size_t len;
    char *old = fixture_read(path, &len);
    assert_int_equal(len, 3);
    free(old);
    assert_int_equal(fixture_count_files(f), 1);

    /* A pipe at the destination is left as it is: a map is written by a
     * rename over its path, which would replace it (-o /dev/null). */
    const char *pipe_path = fixture_path(f, "pipe.db");
    assert_int_equal(mkfifo(pipe_path, 0600), 0);
    lv.materials[1] = 1;
    assert_int_equal(sweep_map_write(pipe_path, &lv, NULL, NULL, err, sizeof err), SWEEP_E_ARG);
    assert_non_null(strstr(err, "pipe.db is not a regular file"));
    struct stat sb;
    assert_int_equal(lstat(pipe_path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(unlink(pipe_path), 0);

    /* A directory that does not exist. */
    lv.materials[1] = 1;
    assert_int_not_equal(sweep_map_write(fixture_path(f, "no/such/dir.db"), &lv, NULL, NULL, err, sizeof err),
                         SWEEP_OK);
    assert_non_null(strstr(err, "temporary"));

    /* Interrupted (a tool's signal handler set the flag): nothing is left,
     * and the map that was there stays. */
    path = fixture_path(f, "out.db");
    volatile sig_atomic_t stop = 1;
    sweep_map_write_options o = {"m", 45.0, NULL, NULL, &stop};
    assert_int_not_equal(sweep_map_write(path, &lv, &o, NULL, err, sizeof err), SWEEP_OK);
    if (!strstr(err, "interrupted"))
        fail_msg("expected 'interrupted', got '%s'", err);
    assert_int_equal(fixture_count_files(f), 1);
    stop = 0;
    assert_int_equal(sweep_map_write(path, &lv, &o, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(fixture_count_files(f), 1);
    sweep_level_free(&lv);
}

/* A tool killed by SIGINT while writing leaves neither map nor temporary. */
static void interrupted_mapgen_leaves_nothing(void **state)
{
    fixture *f = *state;
    char bin[PATH_MAX], cmd[9000];
    if (!realpath(fixture_build("bin/sweep-mapgen"), bin) || access(bin, X_OK) != 0)
        fail_msg("%s is missing: build it with make", fixture_build("bin/sweep-mapgen"));
    /* Large enough that the write is still going when the signal comes;
     * the signal is sent once the temporary file exists. */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { '%s' --tris 3000000 --quiet -o big.db & pid=$!; "
             "i=0; while ! ls big.db.tmp-* >/dev/null 2>&1 && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; "
             "kill -INT $pid; wait $pid; }",
             f->dir, bin);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 130);
    assert_int_equal(fixture_count_files(f), 0);
}

/* Runs a command and returns its stdout (first line) and exit status. */
static int run(const char *cmd, char *out, size_t outlen)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    out[0] = '\0';
    if (!fgets(out, (int)outlen, p))
        out[0] = '\0';
    char sink[256];
    while (fgets(sink, sizeof sink, p))
        ;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void mapgen_is_deterministic(void **state)
{
    fixture *f = *state;
    char bin[4200], cmd[9000], out1[512], out2[512];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-mapgen"));
    if (access(bin, X_OK) != 0)
        fail_msg("%s is missing: build it with make", bin);
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s", fixture_path(f, "a.db"));
    snprintf(b, sizeof b, "%s", fixture_path(f, "b.db"));
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --seed 5 -o '%s' 2>&1", bin, a);
    assert_int_equal(run(cmd, out1, sizeof out1), 0);
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --seed 5 -o '%s' 2>&1", bin, b);
    assert_int_equal(run(cmd, out2, sizeof out2), 0);
    const char *h1 = strstr(out1, "content hash "), *h2 = strstr(out2, "content hash ");
    assert_non_null(h1);
    assert_non_null(h2);
    assert_memory_equal(h1, h2, 13 + 64);

    /* Another seed, another map. */
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --seed 6 -o '%s' 2>&1", bin, b);
    assert_int_equal(run(cmd, out2, sizeof out2), 0);
    h2 = strstr(out2, "content hash ");
    assert_non_null(h2);
    assert_memory_not_equal(h1, h2, 13 + 64);

    /* Bad arguments: an error and no file. */
    snprintf(cmd, sizeof cmd, "'%s' --tris lots -o '%s' 2>&1", bin, fixture_path(f, "c.db"));
    assert_int_equal(run(cmd, out1, sizeof out1), 2);
    assert_non_null(strstr(out1, "--tris"));
    assert_int_equal(access(fixture_path(f, "c.db"), F_OK), -1);

    sweep_level lv;
    char err[256];
    assert_int_equal(sweep_map_load(a, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_true(lv.triangle_count > 1500);
    sweep_level_free(&lv);
}

static void compiled_schema_matches_schema_sql(void **state)
{
    (void)state;
    char *text = fixture_read(fixture_src("maps/schema.sql"), NULL);
    assert_non_null(text);
    if (strcmp(text, sweep_map_schema_sql) != 0)
        fail_msg("maps/schema_sql.c is stale: run make to regenerate it from maps/schema.sql");
    free(text);
}

/* Awkward rules (last bits set, boundaries, a subnormal) written and
 * loaded back: the same bits, the same hash, and the speed limit is the
 * level's input limit. */
static void rules_round_trip(void **state)
{
    fixture *f = *state;
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "rules");
    assert_int_equal(sweep_level_add_material(&lv, 1, "floor", 1.0, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(&lv, sweep_v3(0, 0, 0), sweep_v3(10, 0, 0), sweep_v3(10, 10, 0),
                                          sweep_v3(0, 10, 0), 1),
                     SWEEP_OK);
    const sweep_rules sets[3] = {
        {.walk_speed = 1.0 / 3.0, .ground_accel = nextafter(50.0, 100.0), .max_step = 1e-3, .speed_limit = 1e7,
         .swim_sink = -1e6, .swim_drag = 1e3},
        {.walk_speed = nextafter(1e6, 0.0), .ground_accel = 1e9, .air_accel = 5e-324, .jump_speed = 1e6,
         .max_step = 1.0, .speed_limit = 1e6, .swim_speed = 1e6, .swim_accel = 1e9, .swim_jump = 1e6,
         .climb_speed = 1e6, .climb_accel = 1e9},
        {.walk_speed = 200.0, .ground_accel = 2000.0, .air_accel = 400.0, .jump_speed = 200.0,
         .max_step = 1.0 / 60.0, .speed_limit = 2400.0, .swim_speed = 100.0, .swim_accel = 1.0 / 3.0,
         .swim_drag = 1.0, .swim_sink = 30.0, .swim_jump = 260.0, .climb_speed = 100.0, .climb_accel = 2000.0,
         .air_move = SWEEP_AIR_ALONG},
    };
    const double thresholds[3] = {0.0, DBL_MAX, 10.0 / 3.0};
    for (int i = 0; i < 3; i++) {
        lv.rules = sets[i];
        lv.correction_threshold = thresholds[i];
        const char *path = fixture_path(f, "rules.db");
        sweep_map_write_result res;
        char err[512];
        if (sweep_map_write(path, &lv, NULL, &res, err, sizeof err) != SWEEP_OK)
            fail_msg("set %d: %s", i, err);
        sweep_level back;
        assert_int_equal(sweep_map_load(path, &back, NULL, err, sizeof err), SWEEP_OK);
        assert_memory_equal(&back.rules, &sets[i], sizeof sets[i]);
        assert_memory_equal(&back.correction_threshold, &thresholds[i], sizeof thresholds[i]);
        assert_memory_equal(&back.config.max_speed, &sets[i].speed_limit, sizeof(double));
        sweep_content_hash h;
        assert_int_equal(sweep_level_content_hash(&lv, &h), SWEEP_OK);
        assert_memory_equal(res.hash.bytes, h.bytes, 32);
        sweep_level_free(&back);
    }

    /* The rest of the map row too, with a slope that is not 45 degrees. */
    sweep_map_values v;
    sweep_map_values_of(&lv, 30.0, &v);
    v.gravity = sweep_v3(0.5, -1.0 / 3.0, -386.1);
    v.radii = sweep_v3(16, 16, 36);
    v.tick_rate = 128.0;
    v.step_height = 14.0;
    assert_int_equal(sweep_map_check_values(&v, NULL, NULL, 0), SWEEP_OK);
    sweep_map_apply_values(&v, &lv);
    sweep_map_write_options o = {"in", 30.0, NULL, NULL, NULL};
    char err[512];
    const char *path = fixture_path(f, "row.db");
    if (sweep_map_write(path, &lv, &o, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s", err);
    sweep_level back;
    sweep_map_load_info info;
    assert_int_equal(sweep_map_load(path, &back, &info, err, sizeof err), SWEEP_OK);
    sweep_map_values w;
    sweep_map_values_of(&back, info.walkable_slope_deg, &w);
    assert_memory_equal(&w, &v, sizeof v);
    assert_memory_equal(&back.config, &lv.config, sizeof lv.config);
    assert_string_equal(info.units, "in");
    sweep_level_free(&back);

    /* Rules the loader would refuse are refused before anything is
     * written, in the loader's words. */
    lv.rules.speed_limit = 4.0;
    assert_int_not_equal(sweep_map_write(path, &lv, NULL, NULL, err, sizeof err), SWEEP_OK);
    if (!strstr(err, "speed_limit=4 must be at least walk_speed=200"))
        fail_msg("unexpected message '%s'", err);
    assert_int_equal(fixture_count_files(f), 2); /* rules.db and row.db, nothing new */
    sweep_level_free(&lv);
}

/* Writes `text` as a rules file and reads it over the defaults; returns
 * what sweep_map_read_rules returned, the values in *v and the message in
 * err. */
static int read_rules_text(fixture *f, const char *text, sweep_map_values *v, char *err, size_t errlen)
{
    const char *path = fixture_path(f, "rules.txt");
    assert_true(fixture_write(path, text, strlen(text)));
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_map_values_of(&lv, 45.0, v);
    err[0] = '\0';
    return sweep_map_read_rules(path, v, err, errlen);
}

static void rules_file_values(void **state)
{
    fixture *f = *state;
    sweep_map_values v;
    char err[512];
    static const char good[] = "# a level in inches\n"
                               "\n"
                               "gravity = 0, 0, -386.1   # 9.81 m/s^2\n"
                               "radii=16,16,36\n"
                               "\ttick_rate = 128\n"
                               "walkable_slope_deg = 40\n"
                               "step_height = 14\n"
                               "walk_speed = 200\n"
                               "ground_accel = 2000\n"
                               "air_accel = 0\n"
                               "jump_speed = 0x1.9p7\n" /* 200, in C's hexadecimal */
                               "max_step = 0.01\n"
                               "speed_limit = 2400\n"
                               "correction_threshold = 10\r\n"
                               "swim_sink = -2.5\n"
                               "climb_accel = 1e9\n"
                               "air_move = 1\n"
                               "   # done";
    if (!read_rules_text(f, good, &v, err, sizeof err))
        fail_msg("%s", err);
    assert_true(v.gravity.x == 0.0 && v.gravity.y == 0.0 && v.gravity.z == -386.1);
    assert_true(v.radii.x == 16.0 && v.radii.y == 16.0 && v.radii.z == 36.0);
    assert_true(v.tick_rate == 128.0 && v.walkable_slope_deg == 40.0 && v.step_height == 14.0);
    sweep_rules want;
    sweep_rules_default(&want);
    want.walk_speed = 200.0, want.ground_accel = 2000.0, want.air_accel = 0.0, want.jump_speed = 200.0;
    want.max_step = 0.01, want.speed_limit = 2400.0, want.swim_sink = -2.5, want.climb_accel = 1e9;
    want.air_move = SWEEP_AIR_ALONG;
    assert_memory_equal(&v.rules, &want, sizeof want);
    assert_true(v.correction_threshold == 10.0);

    /* Keys left out keep the values they had; an empty file changes
     * nothing. */
    assert_true(read_rules_text(f, "walk_speed = 7\n", &v, err, sizeof err));
    sweep_rules def;
    sweep_rules_default(&def);
    def.walk_speed = 7.0;
    assert_memory_equal(&v.rules, &def, sizeof def);
    assert_true(v.gravity.z == -9.81 && v.tick_rate == 60.0 && v.walkable_slope_deg == 45.0);
    assert_true(read_rules_text(f, "", &v, err, sizeof err));
    def.walk_speed = 5.0;
    assert_memory_equal(&v.rules, &def, sizeof def);
}

static void rules_file_errors(void **state)
{
    fixture *f = *state;
    sweep_map_values v;
    char err[512], want[4400];
    const char *path = fixture_path(f, "rules.txt");
    char file[4200];
    snprintf(file, sizeof file, "%s", path);
    static const struct {
        const char *text;
        unsigned line; /* 0: the message names no line */
        const char *frag;
    } cases[] = {
        {"walk_speed 5\n", 1, "expected 'key = value'"},
        {"# rules\n= 5\n", 2, "expected 'key = value'"},
        {"\n\nwalk_speed =   # nothing\n", 3, "expected 'key = value'"},
        {"run_speed = 5\n", 1, "unknown key 'run_speed'"},
        {"Walk_Speed = 5\n", 1, "unknown key 'Walk_Speed'"},
        {"walk_speed = 5\njump_speed = 4\nwalk_speed = 6\n", 3, "walk_speed is already set on line 1"},
        {"walk_speed = fast\n", 1, "walk_speed wants a finite number, got 'fast'"},
        {"walk_speed = 5 m/s\n", 1, "walk_speed wants a finite number"},
        {"jump_speed = nan\n", 1, "jump_speed wants a finite number"},
        {"speed_limit = inf\n", 1, "speed_limit wants a finite number"},
        {"correction_threshold = 1e999\n", 1, "correction_threshold wants a finite number"},
        {"gravity = 0,0\n", 1, "gravity wants three finite numbers X,Y,Z, got '0,0'"},
        {"gravity = 0,0,-9.81,0\n", 1, "gravity wants three finite numbers"},
        {"radii = 0.4 0.4 0.9\n", 1, "radii wants three finite numbers"},
        {"gravity = 0,nan,-9.81\n", 1, "gravity wants three finite numbers"},
        {"\ngravity = 0,0,-2000\n", 2, "gravity (0, 0, -2000) is longer than 1000"},
        {"radii = 0.4,0.4,0.001\n", 1, "radius_z=0.001 must be between 0.01 and 100"},
        {"walk_speed = 1\nradii = 0.4,0.4,20\n", 2, "radii (0.4, 0.4, 20): largest / smallest is above 32"},
        {"tick_rate = 0\n", 1, "tick_rate=0 must be between 1 and 1000"},
        {"walkable_slope_deg = 90\n", 1, "walkable_slope_deg=90 must be in [0, 90)"},
        {"step_height = -1\n", 1, "step_height=-1 must be in [0, 1e6]"},
        {"walk_speed = 0\n", 1, "walk_speed=0 must be in (0, 1e6] units/s"},
        {"ground_accel = 0\n", 1, "ground_accel=0 must be in (0, 1e9]"},
        {"air_accel = -1\n", 1, "air_accel=-1 must be in [0, 1e9]"},
        {"air_move = 0.5\n", 1, "air_move=0.5 must be 0 (the velocity turns towards the wish) or 1"},
        {"jump_speed = 2e6\n", 1, "jump_speed=2e+06 must be in [0, 1e6]"},
        {"max_step = 0.0001\n", 1, "max_step=0.0001 must be in [0.001, 1] s"},
        {"max_step = 2\n", 1, "max_step=2 must be in [0.001, 1] s"},
        {"speed_limit = 2e7\n", 1, "speed_limit=2e+07 must be in (0, 1e7]"},
        {"correction_threshold = -0.5\n", 1, "correction_threshold=-0.5 must be finite and at least 0"},
        /* speed_limit below a speed the file sets: on its own line ... */
        {"walk_speed = 10\nspeed_limit = 8\n", 2, "speed_limit=8 must be at least walk_speed=10 and jump_speed=5"},
        /* ... or, when the file leaves it at 60, on the line that went past it. */
        {"walk_speed = 5\njump_speed = 70\n", 2, "(speed_limit is not set in the file: raise it too)"},
        {"walk_speed = 100 # fast\n", 1, "speed_limit=60 must be at least walk_speed=100"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (read_rules_text(f, cases[i].text, &v, err, sizeof err))
            fail_msg("case %zu was accepted: '%s'", i, cases[i].text);
        if (cases[i].line)
            snprintf(want, sizeof want, "%s line %u: ", file, cases[i].line);
        else
            snprintf(want, sizeof want, "%s: ", file);
        if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, cases[i].frag))
            fail_msg("case %zu: message '%s' is not '%s...%s'", i, err, want, cases[i].frag);
        if (getenv("SWEEP_TEST_VERBOSE"))
            printf("  %s\n", err);
    }

    /* No file at all. */
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_map_values_of(&lv, 45.0, &v);
    const char *missing = fixture_path(f, "missing.txt");
    snprintf(file, sizeof file, "%s", missing);
    assert_false(sweep_map_read_rules(file, &v, err, sizeof err));
    snprintf(want, sizeof want, "%s: No such file", file);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("message '%s' is not '%s'", err, want);
}

/* sweep-mapgen --rules: the map holds the file's rules (and so has its own
 * hash); a bad file is refused with its line, before anything is written. */
static void mapgen_rules_file(void **state)
{
    fixture *f = *state;
    char bin[4200], cmd[13000], out1[512], out2[512], a[4200], b[4200], rules[4200];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-mapgen"));
    if (access(bin, X_OK) != 0)
        fail_msg("%s is missing: build it with make", bin);
    snprintf(a, sizeof a, "%s", fixture_path(f, "a.db"));
    snprintf(b, sizeof b, "%s", fixture_path(f, "b.db"));
    snprintf(rules, sizeof rules, "%s", fixture_path(f, "rules.txt"));
    static const char text[] = "# faster players\n"
                               "walk_speed = 8\n"
                               "jump_speed = 6.5\n"
                               "speed_limit = 90  # they fall faster too\n"
                               "correction_threshold = 0.1\n"
                               "walkable_slope_deg = 40\n";
    assert_true(fixture_write(rules, text, strlen(text)));
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --seed 5 -o '%s' 2>&1", bin, a);
    assert_int_equal(run(cmd, out1, sizeof out1), 0);
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --seed 5 --rules '%s' -o '%s' 2>&1", bin, rules, b);
    assert_int_equal(run(cmd, out2, sizeof out2), 0);
    const char *h1 = strstr(out1, "content hash "), *h2 = strstr(out2, "content hash ");
    assert_non_null(h1);
    assert_non_null(h2);
    assert_memory_not_equal(h1, h2, 13 + 64);

    sweep_level la, lb;
    sweep_map_load_info info;
    char err[256];
    assert_int_equal(sweep_map_load(a, &la, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(sweep_map_load(b, &lb, &info, err, sizeof err), SWEEP_OK);
    sweep_rules want;
    sweep_rules_default(&want);
    assert_memory_equal(&la.rules, &want, sizeof want);
    want.walk_speed = 8.0, want.jump_speed = 6.5, want.speed_limit = 90.0;
    assert_memory_equal(&lb.rules, &want, sizeof want);
    assert_true(lb.correction_threshold == 0.1 && lb.config.max_speed == 90.0);
    assert_true(info.walkable_slope_deg == 40.0 && lb.config.walkable_normal_up == sweep_cos_degrees(40.0));
    /* The same geometry: only the map row differs. */
    assert_int_equal(la.triangle_count, lb.triangle_count);
    assert_memory_equal(la.vertices, lb.vertices, la.vertex_count * sizeof *la.vertices);
    sweep_level_free(&la);
    sweep_level_free(&lb);

    /* A bad line: exit 2, the file and line in the message, no map. */
    static const char bad[] = "walk_speed = 8\n# comment\njump_speed = -1\n";
    assert_true(fixture_write(rules, bad, strlen(bad)));
    char c[4200];
    snprintf(c, sizeof c, "%s", fixture_path(f, "c.db"));
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --rules '%s' -o '%s' 2>&1", bin, rules, c);
    assert_int_equal(run(cmd, out1, sizeof out1), 2);
    char want_msg[4400];
    snprintf(want_msg, sizeof want_msg, "sweep-mapgen: %s line 3: jump_speed=-1 must be in [0, 1e6]", rules);
    if (strncmp(out1, want_msg, strlen(want_msg)) != 0)
        fail_msg("output '%s' is not '%s'", out1, want_msg);
    assert_int_equal(access(c, F_OK), -1);
    snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --rules '%s' -o '%s' 2>&1", bin, fixture_path(f, "none.txt"), c);
    assert_int_equal(run(cmd, out1, sizeof out1), 2);
    assert_non_null(strstr(out1, "none.txt: No such file"));
    assert_int_equal(access(c, F_OK), -1);

    /* --help documents it. */
    snprintf(cmd, sizeof cmd, "'%s' --help | grep -c -e '--rules FILE' -e 'speed_limit' -e 'correction_threshold'",
             bin);
    assert_int_equal(run(cmd, out1, sizeof out1), 0);
    assert_true(atoi(out1) >= 3);
}

/* sweep-mapgen --movers M makes at most one mover a 16 x 16 block of
 * terrain; asked for more than a level has room for, it says how many it
 * made instead of making fewer without a word. */
static void mapgen_says_when_movers_do_not_fit(void **state)
{
    fixture *f = *state;
    char a[4200], args[9000], out[4096], err[512];
    snprintf(a, sizeof a, "%s", fixture_path(f, "a.db"));
    snprintf(args, sizeof args, "--tris 2000 --movers 5 -o '%s'", a);
    assert_int_equal(fixture_run("bin/sweep-mapgen", args, out, sizeof out), 0);
    sweep_level lv;
    assert_int_equal(sweep_map_load(a, &lv, NULL, err, sizeof err), SWEEP_OK);
    uint32_t made = lv.mover_count;
    sweep_level_free(&lv);
    assert_true(made >= 1 && made < 5);
    char want[200];
    snprintf(want, sizeof want, "sweep-mapgen: warning: --movers 5: the level has room for %u", made);
    if (!strstr(out, want))
        fail_msg("output '%s' lacks '%s'", out, want);
    /* As many as fit: nothing to say. */
    snprintf(args, sizeof args, "--tris 2000 --movers %u -o '%s'", made, a);
    assert_int_equal(fixture_run("bin/sweep-mapgen", args, out, sizeof out), 0);
    if (strstr(out, "warning"))
        fail_msg("output '%s'", out);
    /* A dense level has none. */
    snprintf(args, sizeof args, "--tris 2000 --dense --movers 2 -o '%s'", a);
    assert_int_equal(fixture_run("bin/sweep-mapgen", args, out, sizeof out), 0);
    if (!strstr(out, "sweep-mapgen: warning: --movers 2: a dense level has no movers; made 0"))
        fail_msg("output '%s'", out);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiled_schema_matches_schema_sql),
        cmocka_unit_test_setup_teardown(generated_level_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_write_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(mapgen_is_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(interrupted_mapgen_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(rules_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(rules_file_values, setup, teardown),
        cmocka_unit_test_setup_teardown(rules_file_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(mapgen_rules_file, setup, teardown),
        cmocka_unit_test_setup_teardown(mapgen_says_when_movers_do_not_fit, setup, teardown),
    };
    return cmocka_run_group_tests_name("maps.writer", tests, NULL, NULL);
}
