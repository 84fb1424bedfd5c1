/*
 * portable_check.c - the bits a build of sweep gives, printed so that two
 * builds (Linux, and Windows under wine) can be compared byte for byte.
 * Plain ISO C11, no test framework: it is built by both compilers from
 * this one source (client-sdk/windows.mk) and test_windows.c compares
 * what the two print.
 *
 *   portable_check walks
 *       the core's walks of tests/core/cross_build.sh (the same generated
 *       levels and walkers as `sweep-walk ... --bench-only`), one line of
 *       state hash each, to compare with tests/core/golden/
 *   portable_check predict LEVEL.swl
 *       the level image's content hash, then a player predicted by
 *       libsweep's sweep_predict_run from each of the level's spawn points
 *       and (on the sample arena) beside and on each of its movers,
 *       through a scripted sequence of wishes, the movers ticking
 *       (carrying and pushing it) between moves as the server's do: a line
 *       of bits every 100 moves and the hash of every state
 *
 * Only integers are printed (doubles as their bit patterns): the C
 * libraries' ways of printing a double differ, the bits must not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/predict.h"
#include "core/hash.h"
#include "core/walker.h"
#include "maps/content_hash.h"
#include "maps/level_image.h"
#include "maps/levelgen.h"
#include "maps/loader.h"

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "portable_check: %s: %s\n", what, why);
    return 1;
}

/* sweep-walk --tris T --level-seed L --movers M --walkers W --steps S
 * --seed X (its defaults otherwise): the walk, then its state hash. */
static int walk(const char *name, uint32_t tris, uint64_t level_seed, uint32_t movers_n, uint32_t walkers_n,
                uint32_t steps, uint32_t seed)
{
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_levelgen_params gp = {level_seed, tris, walkers_n < 256 ? walkers_n : 256, movers_n};
    sweep_world *world = NULL;
    sweep_movers *movers = NULL;
    sweep_walker *walkers = calloc(walkers_n, sizeof *walkers);
    char err[256];
    if (!walkers || sweep_levelgen(&gp, &lv) != SWEEP_OK ||
        sweep_map_build_world(&lv, &world, NULL, err, sizeof err) != SWEEP_OK ||
        (lv.mover_count > 0 && sweep_level_build_movers(&lv, &movers) != SWEEP_OK))
        return fail(name, "cannot make the level");
    sweep_walk_params wp = {walkers_n, steps, 60, 1.0 / 60.0, 5.0, lv.default_radii, seed};
    sweep_walk_place(&wp, lv.spawns, lv.spawn_count, walkers);
    uint64_t crushed = 0;
    for (uint32_t s = 0; s < steps; s++) {
        if (movers && sweep_walk_tick(movers, world, &lv.config, &wp, lv.spawns, lv.spawn_count, walkers,
                                      &crushed) != SWEEP_OK)
            return fail(name, "a mover tick failed");
        for (uint32_t i = 0; i < walkers_n; i++) {
            sweep_move_result res;
            sweep_walk_step_among(world, movers, &lv.config, &wp, i, s, &walkers[i], &res);
        }
    }
    uint64_t hash = sweep_walk_hash(walkers, walkers_n);
    if (movers)
        hash = sweep_movers_hash(movers, hash);
    printf("%s %016" PRIx64 "\n", name, hash);
    sweep_movers_destroy(movers);
    sweep_world_destroy(world);
    sweep_level_free(&lv);
    free(walkers);
    return 0;
}

static int walks(void)
{
    /* tests/core/cross_build.sh's walk_args and movers_args. */
    if (walk("walk", 3000, 5, 0, 16, 600, 5) != 0)
        return 1;
    return walk("walk_movers", 10000, 3, 16, 48, 1200, 3);
}

/* The wish of move i: none for the first `ride` moves (riding a mover),
 * then across the level in turn along each axis and the diagonals, faster
 * than the walk speed now and then (the rules clamp it), jumping every so
 * often. */
static sweep_wish wish_of(uint32_t i, uint32_t ride)
{
    static const double dirs[][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {0.6, 0.8}, {-0.8, 0.6}, {-0.6, -0.8}};
    const double *d = dirs[(i / 45) % (sizeof dirs / sizeof dirs[0])];
    double speed = (i / 45) % 3 == 2 ? 9.0 : 4.0;
    sweep_wish w;
    memset(&w, 0, sizeof w);
    if (i < ride)
        return w;
    w.velocity = sweep_v3(d[0] * speed, d[1] * speed, 0);
    if (i % 70 == 35)
        w.buttons = SWEEP_WISH_JUMP;
    return w;
}

enum { PREDICT_MOVES = 600, RIDE_MOVES = 240 };

/* Starts beside and on the sample arena's movers (maps/arena.sql): by the
 * sliding door and the swinging door, standing on the lift and on the
 * looping platform. */
static const double mover_starts[][3] = {{25, -6.25, 1}, {26, 5.6, 1}, {33, -9, 1.15}, {33.5, 2.5, 1.25}};

/* One player from `start` (run number `run`), among freshly built movers. */
static int predict_run(const sweep_level *lv, const sweep_world *world, uint32_t run, sweep_vec3 start,
                       uint32_t ride, uint64_t *hash)
{
    sweep_movers *mv = NULL;
    sweep_client_error e;
    if (sweep_predict_build_movers(lv, 0, &mv, &e) != SWEEP_CLIENT_OK)
        return fail("movers", e.message);
    sweep_predict_state s = sweep_predict_state_at(start);
    for (uint32_t i = 0; i < PREDICT_MOVES; i++) {
        /* The server's tick between two moves: the movers advance, and
         * carry or push the player. */
        sweep_body b;
        memset(&b, 0, sizeof b);
        b.position = s.position;
        b.radii = lv->default_radii;
        b.ground_mover = s.ground_mover;
        b.touch_mover = SWEEP_NO_MOVER;
        b.mover = SWEEP_NO_MOVER;
        if (sweep_movers_tick(mv, world, &lv->config, &b, 1, NULL) != SWEEP_OK)
            return fail("movers", "a tick failed");
        s.position = b.position;
        sweep_wish w = wish_of(i, ride);
        if (sweep_predict_run(world, mv, &lv->config, &lv->rules, lv->default_radii, &s, &w, 1.0 / 60.0, NULL,
                              &e) != SWEEP_CLIENT_OK)
            return fail("predict", e.message);
        *hash = sweep_hash_body(*hash, s.position, s.velocity, s.grounded);
        if (i % 100 == 99)
            printf("run %" PRIu32 " move %" PRIu32 " position %016" PRIx64 " %016" PRIx64 " %016" PRIx64
                   " velocity %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " grounded %d mover %" PRIu32 "\n",
                   run, i + 1, bits(s.position.x), bits(s.position.y), bits(s.position.z), bits(s.velocity.x),
                   bits(s.velocity.y), bits(s.velocity.z), s.grounded, s.ground_mover);
    }
    *hash = sweep_movers_hash(mv, *hash);
    sweep_movers_destroy(mv);
    return 0;
}

static int predict(const char *path)
{
    sweep_level lv;
    sweep_world *world = NULL;
    char err[512];
    if (sweep_level_image_load(path, &lv, err, sizeof err) != SWEEP_OK)
        return fail(path, err);
    if (sweep_map_build_world(&lv, &world, NULL, err, sizeof err) != SWEEP_OK)
        return fail(path, err);
    sweep_content_hash ch;
    char hex[2 * SWEEP_SHA256_SIZE + 1];
    if (sweep_level_content_hash(&lv, &ch) != SWEEP_OK)
        return fail(path, "cannot hash the level");
    sweep_content_hash_hex(&ch, hex);
    printf("content_hash %s\n", hex);
    uint64_t hash = SWEEP_HASH_INIT;
    uint32_t run = 0;
    for (uint32_t sp = 0; sp < lv.spawn_count; sp++)
        if (predict_run(&lv, world, run++, lv.spawns[sp], 0, &hash) != 0)
            return 1;
    for (uint32_t m = 0; lv.mover_count == 4 && m < sizeof mover_starts / sizeof mover_starts[0]; m++) {
        sweep_vec3 at = sweep_v3(mover_starts[m][0], mover_starts[m][1], mover_starts[m][2]);
        if (predict_run(&lv, world, run++, at, m < 2 ? 0 : RIDE_MOVES, &hash) != 0)
            return 1;
    }
    printf("predict %016" PRIx64 "\n", hash);
    sweep_world_destroy(world);
    sweep_level_free(&lv);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "walks") == 0)
        return walks();
    if (argc == 3 && strcmp(argv[1], "predict") == 0)
        return predict(argv[2]);
    fprintf(stderr, "usage: portable_check walks | portable_check predict LEVEL.swl\n");
    return 2;
}
