/*
 * test_corpus_walks.c - the property the core promises, on real levels:
 * thousands of random walks over Quake 3 levels of the corpus end with no
 * body overlapping the level, none below it, and none in the void under
 * it unnoticed.
 *
 * Seven levels of Debian's openarena-oacmp1 (found or installed by
 * tests/install-corpus.sh; the test skips, saying why, without it), every
 * one of the corpus with a kill volume among them, are imported by the
 * real sweep-import, loaded, and walked at Quake's speed by 512 walkers
 * each, with their movers running and their kill volumes honoured as
 * sweep-walk honours them (a walker whose centre ends a move in one is
 * respawned: core/walker.h). Every 150 steps each walker is checked
 * against every triangle of the level without the core's sweep: the
 * closest point of a triangle whose front the centre is in front of must
 * be at least one eSpace unit away; the centre must not be below the
 * level's lowest point; and it must not be under a kill volume (within
 * its box across up, below its bottom). The corpus's kill volumes are
 * the slabs over each level's void, so a walker there has fallen through
 * one without being ended by it.
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/swept_sphere.h"
#include "maps/loader.h"
#include "core/walker.h"

#define WALKERS 512
#define STEPS 600
#define CHECK_EVERY 150

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

/* Runs cmd; its first line of output in out. The exit code, or -1. */
static int run_line(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    if (!fgets(out, (int)cap, p))
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    char sink[256];
    while (fgets(sink, sizeof sink, p))
        ;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Overlaps of walkers with front faces, walkers below the level, and
 * walkers under one of its kill volumes. */
static void check(const sweep_level *lv, const sweep_walker *wk, double lowest, uint32_t *overlaps,
                  uint32_t *below, uint32_t *under_kill)
{
    sweep_vec3 r = lv->default_radii, inv = sweep_v3(1.0 / r.x, 1.0 / r.y, 1.0 / r.z);
    for (uint32_t i = 0; i < WALKERS; i++) {
        if (wk[i].position.z < lowest) {
            (*below)++;
            continue;
        }
        sweep_vec3 p = wk[i].position;
        for (uint32_t k = 0; k < lv->volume_count; k++) {
            const sweep_volume *v = &lv->volumes[k].v;
            if (v->kind == SWEEP_VOLUME_KILL && p.x >= v->lo.x && p.x <= v->hi.x && p.y >= v->lo.y &&
                p.y <= v->hi.y && p.z < v->lo.z) {
                if (*under_kill < 3)
                    print_message("walker %u at (%.3f, %.3f, %.3f) is under kill volume %u '%s'\n", i, p.x, p.y,
                                  p.z, lv->volumes[k].id, lv->volumes[k].name);
                (*under_kill)++;
                break;
            }
        }
        sweep_vec3 e = sweep_v3_mul(wk[i].position, inv);
        for (uint32_t t = 0; t < lv->triangle_count; t++) {
            const uint32_t *ix = &lv->indices[3 * (size_t)t];
            sweep_vec3 a = sweep_v3_mul(lv->vertices[ix[0]], inv), b = sweep_v3_mul(lv->vertices[ix[1]], inv),
                       c = sweep_v3_mul(lv->vertices[ix[2]], inv);
            if (sweep_triangle_is_degenerate(a, b, c))
                continue;
            sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
            if (sweep_v3_dot(n, sweep_v3_sub(e, a)) < 0.0)
                continue; /* behind it: the level's other faces hold the body */
            sweep_vec3 q = sweep_closest_point_on_triangle(e, a, b, c);
            if (sweep_v3_len(sweep_v3_sub(e, q)) < 1.0 - 1e-6) {
                if (*overlaps < 3)
                    print_message("walker %u at (%.3f, %.3f, %.3f) overlaps triangle %u\n", i, wk[i].position.x,
                                  wk[i].position.y, wk[i].position.z, t);
                (*overlaps)++;
                break;
            }
        }
    }
}

static void random_walks_never_overlap(void **state)
{
    fixture *f = *state;
    char cmd[13000], pk3[4096];
    if (!fixture_corpus(f, pk3, sizeof pk3))
        skip();
    static const char *const levels[] = {"maps/oacmpdm5.bsp", "maps/oacmpdm9.bsp", "maps/oacmpctf1.bsp",
                                         "maps/oacmpctf3.bsp", "maps/oacmpdm2.bsp", "maps/oacmpdm4.bsp",
                                         "maps/oacmpdm7.bsp"};
    uint32_t killed_all = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        char db[4200], line[512];
        snprintf(db, sizeof db, "%s", fixture_path(f, "level.db"));
        snprintf(cmd, sizeof cmd, "'%s' '%s' --bsp '%s' -o '%s' --quiet 2>&1", fixture_build("bin/sweep-import"), pk3,
                 levels[l], db);
        if (run_line(cmd, line, sizeof line) != 0)
            fail_msg("sweep-import %s: %s", levels[l], line);
        sweep_level lv;
        char err[256];
        assert_int_equal(sweep_map_load(db, &lv, NULL, err, sizeof err), SWEEP_OK);
        sweep_world *w;
        sweep_world_desc d = sweep_level_world_desc(&lv);
        assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
        sweep_movers *mv = NULL;
        if (lv.mover_count)
            assert_int_equal(sweep_level_build_movers(&lv, &mv), SWEEP_OK);
        sweep_world_info info;
        sweep_world_get_info(w, &info);
        double lowest = info.bounds_min.z - lv.default_radii.z;
        sweep_walk_params wp = {WALKERS, STEPS, 45, 1.0 / 60.0, 320.0, lv.default_radii, 1000 + l};
        sweep_walker *wk = calloc(WALKERS, sizeof *wk);
        assert_non_null(wk);
        sweep_walk_place(&wp, lv.spawns, lv.spawn_count, wk);
        sweep_volume *vols = calloc(lv.volume_count ? lv.volume_count : 1, sizeof *vols);
        assert_non_null(vols);
        for (uint32_t k = 0; k < lv.volume_count; k++)
            vols[k] = lv.volumes[k].v;
        uint32_t overlaps = 0, below = 0, under_kill = 0, killed = 0;
        sweep_move_result res;
        for (uint32_t s = 0; s < STEPS; s++) {
            if (mv)
                assert_int_equal(sweep_walk_tick(mv, w, &lv.config, &wp, lv.spawns, lv.spawn_count, wk, NULL),
                                 SWEEP_OK);
            for (uint32_t i = 0; i < WALKERS; i++) {
                assert_int_equal(sweep_walk_step_among(w, mv, &lv.config, &wp, i, s, &wk[i], &res), SWEEP_OK);
                if (sweep_walk_kill_volume(vols, lv.volume_count, wk[i].position) != SWEEP_WALK_NOT_KILLED) {
                    killed++;
                    sweep_walk_respawn(lv.spawns, lv.spawn_count, i, &wk[i]);
                }
            }
            if (s % CHECK_EVERY == CHECK_EVERY - 1)
                check(&lv, wk, lowest, &overlaps, &below, &under_kill);
        }
        print_message("%s: %u triangles, %u walks of %u steps: %u overlaps, %u below the level, %u under a kill "
                      "volume, %u killed\n",
                      levels[l], lv.triangle_count, WALKERS, STEPS, overlaps, below, under_kill, killed);
        assert_int_equal(overlaps, 0);
        assert_int_equal(below, 0);
        assert_int_equal(under_kill, 0);
        killed_all += killed;
        free(vols);
        free(wk);
        sweep_movers_destroy(mv);
        sweep_world_destroy(w);
        sweep_level_free(&lv);
    }
    /* The walks reach the voids: the kill test above was exercised. */
    assert_true(killed_all > 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(random_walks_never_overlap, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
