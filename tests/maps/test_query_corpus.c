/*
 * test_query_corpus.c - the queries' property on real levels: on Quake 3
 * levels of the corpus (found or installed by tests/install-corpus.sh; the
 * test skips, saying why, without it), imported by the real sweep-import,
 * 64 entities walk (the sizes of a player of the level) while the movers
 * run, and random rays, rays for every hit, lines of sight, sweeps and
 * overlaps at random past times equal the brute-force oracle's answers bit
 * for bit (tests/core/query_cases.h). SWEEP_QUERY_PROPERTY_N sets the
 * queries of each kind on each level (1,000 by default here: the oracle
 * meets every triangle of a level of up to 10,000 of them).
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "maps/loader.h"
#include "tests/core/query_cases.h"

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

static void corpus_queries_equal_the_oracle(void **state)
{
    fixture *f = *state;
    char pk3[4096];
    if (!fixture_corpus(f, pk3, sizeof pk3))
        skip();
    uint32_t n = property_n(1000);
    /* The smallest level, and the two with the most movers. */
    static const char *const levels[] = {"maps/oacmpdm5.bsp", "maps/oacmpdm7.bsp", "maps/oacmpdm10.bsp"};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        char db[4200], cmd[13000];
        snprintf(db, sizeof db, "%s", fixture_path(f, "level.db"));
        snprintf(cmd, sizeof cmd, "'%s' '%s' --bsp '%s' -o '%s' --quiet", fixture_build("bin/sweep-import"), pk3,
                 levels[l], db);
        if (system(cmd) != 0)
            fail_msg("sweep-import %s failed", levels[l]);
        world W;
        char err[256];
        sweep_level_init(&W.lv);
        assert_int_equal(sweep_map_load(db, &W.lv, NULL, err, sizeof err), SWEEP_OK);
        world_walk(&W, 100 + l, W.lv.default_radii.z / 0.9);
        tally t = {{0}, 0, 0, 0, 0, 0};
        check_world(&W, 7000 + l, n, &t);
        print_message("%s: %u triangles, %u movers; %u queries of each kind; rays hit level %u, movers %u, "
                      "entities %u, nothing %u; %u entities found by overlaps\n",
                      levels[l], W.lv.triangle_count, sweep_movers_count(W.mv), t.ray, t.hits[1], t.hits[2],
                      t.hits[3], t.hits[0], t.overlap);
        assert_true(t.hits[1] > 0 && t.hits[3] > 0 && t.overlap > 0);
        if (sweep_movers_count(W.mv) > 0)
            assert_true(t.hits[2] > 0);
        world_free(&W);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(corpus_queries_equal_the_oracle, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
