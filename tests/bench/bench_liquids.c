/*
 * bench_liquids.c - what liquids and ladders cost a move: the same walks
 * through a world with them and through the same world without them.
 *
 * The level is a flat floor with a grid of cells (default 24), each with
 * a shallow puddle of water (0.3 deep: a walker's feet are in it, its
 * centre is not, so it walks and does not swim: depth level 1) and a
 * ladder volume beside the walkers' row (near them, in the same cell of
 * the volumes' grid, never entered). Shallow water and an unclimbed ladder
 * leave the motion as it is, so both runs take the very same path
 * (checked at the end, to the bit) and differ only by what the liquids
 * and ladders cost: the depth sampled at three points after every step
 * and the mode chosen before it. Each body walks back and forth across
 * its puddle, so about half its moves end in it and the rest near it.
 * Timed as bench_volumes is: a tick moves every body once with them, then
 * the same body state through the plain world, alternating which goes
 * first. Prints
 *
 *   BENCH name=core.liquids cells=<n> bodies=<n> rounds=<n>
 *         inside=<fraction> ns_per_move_p50=<x> plain_ns_per_move_p50=<x>
 *         ratio=<x> ratio_min=<x> ratio_max=<x>
 *         ns_per_move_mean=<x> plain_ns_per_move_mean=<x>
 *
 * (rounds, medians and range as bench_volumes.c says.)
 * Usage: bench_liquids [CELLS [TICKS [with|plain|both [ROUNDS]]]] (default
 * 24 cells, 2000 ticks, both, 5 rounds); `with` or `plain` runs one world
 * only, for counting instructions under callgrind
 * (--toggle-collect=sweep_act; ROUNDS 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/motion.h"
#include "core/volume.h"
#include "maps/level.h"
#include "tests/bench/floor_world.h"

#define DT (1.0 / 60.0)
#define BODIES_PER_CELL 4
#define SPACING 10.0

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

/* A move counts as inside when it ended with its feet in the puddle; a
 * walker that swam or climbed would have left the plain walk's path. */
static int in_liquid(const sweep_act_result *r, uint32_t body, const sweep_actor *a, void *ctx)
{
    (void)body, (void)a, (void)ctx;
    if (r->volumes.events & (SWEEP_VOLUME_EV_SWAM | SWEEP_VOLUME_EV_CLIMBED)) {
        fprintf(stderr, "bench_liquids: a walker swam or climbed\n");
        return -1;
    }
    return (r->volumes.events & SWEEP_VOLUME_EV_IN_LIQUID) != 0;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 24, ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    const char *only = argc > 3 ? argv[3] : "both";
    uint32_t rounds = argc > 4 ? (uint32_t)atoi(argv[4]) : 5;
    int run_with = strcmp(only, "plain") != 0, run_plain = strcmp(only, "with") != 0;
    if (n < 1 || 2 * n > SWEEP_VOLUME_MAX || ticks < 1 || rounds < 1 || (!run_with && !run_plain) ||
        (strcmp(only, "both") && strcmp(only, "with") && strcmp(only, "plain"))) {
        fprintf(stderr, "usage: bench_liquids [CELLS 1..%u [TICKS [with|plain|both [ROUNDS]]]]\n",
                SWEEP_VOLUME_MAX / 2);
        return 2;
    }
    uint32_t side = 1;
    while (side * side < n)
        side++;
    sweep_world *with = floor_world(side, SPACING, RADII), *plain = floor_world(side, SPACING, RADII);
    if (!with || !plain) {
        fprintf(stderr, "bench_liquids: building the level failed\n");
        return 1;
    }
    sweep_config cfg;
    sweep_config_default(&cfg);
    sweep_rules rules;
    sweep_rules_default(&rules);
    sweep_volume *v = calloc(2 * (size_t)n, sizeof *v);
    uint32_t bodies = n * BODIES_PER_CELL;
    sweep_actor *a = calloc(bodies, sizeof *a);
    if (!v || !a)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        double x = (i % side) * SPACING + SPACING / 2, y = (i / side) * SPACING + SPACING / 2;
        sweep_volume *puddle = &v[2 * i], *ladder = &v[2 * i + 1];
        puddle->kind = SWEEP_VOLUME_LIQUID;
        puddle->liquid = SWEEP_LIQUID_WATER;
        puddle->lo = sweep_v3(x - 2, y - 2, 0);
        puddle->hi = sweep_v3(x + 2, y + 2, 0.3);
        ladder->kind = SWEEP_VOLUME_LADDER;
        ladder->normal = sweep_v3(0, -1, 0);
        ladder->lo = sweep_v3(x - 1, y + 3, -1);
        ladder->hi = sweep_v3(x + 1, y + 3.5, 4);
        for (uint32_t j = 0; j < BODIES_PER_CELL; j++) {
            uint32_t k = i * BODIES_PER_CELL + j;
            a[k].position = sweep_v3(x - 4 + j * 0.3, y - 1.5 + j, 0.9005);
            a[k].grounded = 1;
        }
    }
    const char *why = NULL;
    if (sweep_world_set_volumes(with, v, 2 * n, cfg.max_speed, cfg.max_coordinate, NULL, &why) != SWEEP_OK) {
        fprintf(stderr, "bench_liquids: %s\n", why);
        return 1;
    }
    pair_walk pw;
    if (pair_walk_run("bench_liquids", with, plain, &cfg, &rules, RADII, DT, a, bodies, ticks, rounds, run_with,
                      run_plain, in_liquid, NULL, &pw) != 0)
        return 1;
    printf("BENCH name=core.liquids cells=%u bodies=%u rounds=%u inside=%.2f ns_per_move_p50=%.0f "
           "plain_ns_per_move_p50=%.0f ratio=%.3f ratio_min=%.3f ratio_max=%.3f ns_per_move_mean=%.0f "
           "plain_ns_per_move_mean=%.0f\n",
           n, bodies, rounds, (double)pw.inside / (double)pw.moves, pw.p50[0], pw.p50[1], pw.ratio, pw.ratio_min,
           pw.ratio_max, pw.total[0] / (double)pw.moves, pw.total[1] / (double)pw.moves);
    free(v), free(a);
    sweep_world_destroy(with);
    sweep_world_destroy(plain);
    return 0;
}
