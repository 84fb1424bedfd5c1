/*
 * test_writer.c - writing maps: a generated level written and loaded back
 * is the same level (same geometry, same content hash; levels with movers
 * are in test_movers_map.c); a write that fails leaves nothing behind and
 * does not touch an existing map; sweep-mapgen writes the same map for the
 * same seed.
 */
#include "tests/maps/map_fixture.h"

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
    };
    return cmocka_run_group_tests_name("maps.writer", tests, NULL, NULL);
}
