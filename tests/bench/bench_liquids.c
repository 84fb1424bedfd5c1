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
 *   BENCH name=core.liquids cells=<n> bodies=<n> inside=<fraction>
 *         ns_per_move_p50=<x> plain_ns_per_move_p50=<x> ratio=<x>
 *         ns_per_move_mean=<x> plain_ns_per_move_mean=<x>
 *
 * Usage: bench_liquids [CELLS [TICKS [with|plain|both]]] (default 24 cells,
 * 2000 ticks, both); `with` or `plain` runs one world only, for counting
 * instructions under callgrind (--toggle-collect=sweep_act).
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

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 24, ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    const char *only = argc > 3 ? argv[3] : "both";
    int run_with = strcmp(only, "plain") != 0, run_plain = strcmp(only, "with") != 0;
    if (n < 1 || 2 * n > SWEEP_VOLUME_MAX || ticks < 1 || (!run_with && !run_plain) ||
        (strcmp(only, "both") && strcmp(only, "with") && strcmp(only, "plain"))) {
        fprintf(stderr, "usage: bench_liquids [CELLS 1..%u [TICKS [with|plain|both]]]\n", SWEEP_VOLUME_MAX / 2);
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
    sweep_actor *a = calloc(bodies, sizeof *a), *b = calloc(bodies, sizeof *b);
    if (!v || !a || !b)
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
    memcpy(b, a, bodies * sizeof *a);
    sweep_space sw = {with, NULL, NULL, SWEEP_NO_BODY}, sp = {plain, NULL, NULL, SWEEP_NO_BODY};
    double t_with = 0, t_plain = 0;
    double *s_with = calloc(ticks, sizeof *s_with), *s_plain = calloc(ticks, sizeof *s_plain);
    if (!s_with || !s_plain)
        return 1;
    uint64_t inside = 0, moves = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        for (int pass = 0; pass < 2; pass++) {
            int vol = (pass == 0) == (t % 2 == 0);
            if (!(vol ? run_with : run_plain))
                continue;
            sweep_actor *s = vol ? a : b;
            double t0 = now_ns();
            for (uint32_t k = 0; k < bodies; k++) {
                /* Back and forth across the puddle: 4 m/s for 2.5 s each way. */
                double dir = (t / 150) % 2 ? -4.0 : 4.0;
                sweep_wish w = {sweep_v3(dir, 0, 0), 0};
                sweep_act_result r;
                if (sweep_act(vol ? &sw : &sp, &cfg, &rules, RADII, &s[k], &w, DT, &r) != SWEEP_OK) {
                    fprintf(stderr, "bench_liquids: a move failed\n");
                    return 1;
                }
                if (vol) {
                    if (r.volumes.events & (SWEEP_VOLUME_EV_SWAM | SWEEP_VOLUME_EV_CLIMBED)) {
                        fprintf(stderr, "bench_liquids: a walker swam or climbed\n");
                        return 1;
                    }
                    inside += (r.volumes.events & SWEEP_VOLUME_EV_IN_LIQUID) != 0;
                }
            }
            double dt = now_ns() - t0;
            if (vol)
                t_with += dt, s_with[t] = dt / bodies;
            else
                t_plain += dt, s_plain[t] = dt / bodies;
        }
        moves += bodies;
    }
    if (run_with && run_plain && memcmp(a, b, bodies * sizeof *a) != 0) {
        fprintf(stderr, "bench_liquids: the walks with and without liquids went apart\n");
        return 1;
    }
    qsort(s_with, ticks, sizeof *s_with, by_value);
    qsort(s_plain, ticks, sizeof *s_plain, by_value);
    double p50 = s_with[ticks / 2], plain50 = s_plain[ticks / 2];
    printf("BENCH name=core.liquids cells=%u bodies=%u inside=%.2f ns_per_move_p50=%.0f "
           "plain_ns_per_move_p50=%.0f ratio=%.3f ns_per_move_mean=%.0f plain_ns_per_move_mean=%.0f\n",
           n, bodies, (double)inside / (double)moves, p50, plain50, plain50 > 0 ? p50 / plain50 : 0.0,
           t_with / (double)moves, t_plain / (double)moves);
    free(v), free(a), free(b), free(s_with), free(s_plain);
    sweep_world_destroy(with);
    sweep_world_destroy(plain);
    return 0;
}
