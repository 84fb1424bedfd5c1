/*
 * floor_world.h - what the volume benchmarks share (bench_volumes.c,
 * bench_liquids.c): a flat floor of 1 m quads, side * spacing metres
 * square, as a world prepared for the walkers' radii, and the timed walk
 * of the same bodies through two such worlds, one with volumes and one
 * without. Header-only: each benchmark is one program.
 */
#ifndef SWEEP_TESTS_BENCH_FLOOR_WORLD_H
#define SWEEP_TESTS_BENCH_FLOOR_WORLD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/motion.h"
#include "core/world.h"
#include "maps/level.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* A floor of 1 m quads (so moves meet triangles as on a level), NULL if
 * it cannot be built. */
static sweep_world *floor_world(uint32_t side, double spacing, sweep_vec3 radii)
{
    sweep_level lv;
    sweep_level_init(&lv);
    double size = side * spacing;
    for (int x = 0; x < (int)size; x++)
        for (int y = 0; y < (int)size; y++)
            if (sweep_level_add_quad(&lv, sweep_v3(x, y, 0), sweep_v3(x + 1, y, 0), sweep_v3(x + 1, y + 1, 0),
                                     sweep_v3(x, y + 1, 0), 1) != SWEEP_OK) {
                sweep_level_free(&lv);
                return NULL;
            }
    sweep_world_desc d = sweep_level_world_desc(&lv);
    sweep_world *w = NULL;
    if (sweep_world_create(&d, &w) != SWEEP_OK || sweep_world_prepare_radii(w, radii) != SWEEP_OK)
        w = NULL;
    sweep_level_free(&lv);
    return w;
}

/* What a timed walk measured: moves, how many ended where the benchmark
 * counts (`inside`), per world the total time and the median tick's time
 * a move (ns; the median of the rounds'), and the ratio with / without:
 * the median of the rounds' ratios of their median ticks, and the
 * rounds' range. */
typedef struct pair_walk {
    uint64_t moves, inside;
    double total[2], p50[2]; /* [0] with the volumes, [1] without */
    double ratio, ratio_min, ratio_max;
} pair_walk;

/* Said of every move through the world with volumes: 1 to count it as
 * inside, 0 not to, -1 to stop the benchmark (after saying why). */
typedef int (*pair_look)(const sweep_act_result *r, uint32_t body, const sweep_actor *a, void *ctx);

/* Ticks at the start of each round that are run but not timed: caches
 * and branch history warm up. */
#define PAIR_WARM_TICKS 60

static double pair_median(double *x, uint32_t n)
{
    qsort(x, n, sizeof *x, by_value);
    return x[n / 2];
}

/* Moves `bodies` bodies (a) once a tick for `ticks` ticks through `with`,
 * and the same bodies' copy through `plain`, alternating which goes first
 * so the shared machine's noise falls on both alike, each body back and
 * forth along x at 4 m/s for 2.5 s each way; the whole walk `rounds`
 * times from the same start (a is left as the last round ends). The two
 * walks must end in the same state to the bit. 0, or -1 after saying why
 * on stderr. */
static int pair_walk_run(const char *name, sweep_world *with, sweep_world *plain, const sweep_config *cfg,
                         const sweep_rules *rules, sweep_vec3 radii, double dt, sweep_actor *a, uint32_t bodies,
                         uint32_t ticks, uint32_t rounds, int run_with, int run_plain, pair_look look, void *ctx,
                         pair_walk *out)
{
    uint32_t timed = ticks > PAIR_WARM_TICKS ? ticks - PAIR_WARM_TICKS : ticks;
    sweep_actor *b = malloc(bodies * sizeof *b), *start = malloc(bodies * sizeof *start);
    double *samples[2] = {calloc(timed, sizeof(double)), calloc(timed, sizeof(double))};
    double *fig[3] = {calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double))};
    if (!b || !start || !samples[0] || !samples[1] || !fig[0] || !fig[1] || !fig[2]) {
        free(b), free(start), free(samples[0]), free(samples[1]), free(fig[0]), free(fig[1]), free(fig[2]);
        fprintf(stderr, "%s: out of memory\n", name);
        return -1;
    }
    memcpy(start, a, bodies * sizeof *a);
    sweep_space sw = {with, NULL, NULL, SWEEP_NO_BODY}, sp = {plain, NULL, NULL, SWEEP_NO_BODY};
    memset(out, 0, sizeof *out);
    int ok = 1;
    for (uint32_t round = 0; ok && round < rounds; round++) {
        memcpy(a, start, bodies * sizeof *a);
        memcpy(b, start, bodies * sizeof *b);
        for (uint32_t t = 0; ok && t < ticks; t++) {
            int counted = t >= ticks - timed;
            for (int pass = 0; ok && pass < 2; pass++) {
                int vol = (pass == 0) == ((t + round) % 2 == 0);
                if (!(vol ? run_with : run_plain))
                    continue;
                sweep_actor *s = vol ? a : b;
                double t0 = now_ns();
                for (uint32_t k = 0; ok && k < bodies; k++) {
                    double dir = (t / 150) % 2 ? -4.0 : 4.0;
                    sweep_wish w = {sweep_v3(dir, 0, 0), 0};
                    sweep_act_result r;
                    if (sweep_act(vol ? &sw : &sp, cfg, rules, radii, &s[k], &w, dt, &r) != SWEEP_OK) {
                        fprintf(stderr, "%s: a move failed\n", name);
                        ok = 0;
                    } else if (vol && counted) {
                        int in = look(&r, k, &s[k], ctx);
                        ok = in >= 0;
                        out->inside += in > 0;
                    }
                }
                double spent = now_ns() - t0;
                if (counted) {
                    out->total[!vol] += spent;
                    samples[!vol][t - (ticks - timed)] = spent / bodies;
                }
            }
            if (counted)
                out->moves += bodies;
        }
        if (ok && run_with && run_plain && memcmp(a, b, bodies * sizeof *a) != 0) {
            fprintf(stderr, "%s: the walks with and without volumes went apart\n", name);
            ok = 0;
        }
        fig[0][round] = run_with ? pair_median(samples[0], timed) : 0.0;
        fig[1][round] = run_plain ? pair_median(samples[1], timed) : 0.0;
        fig[2][round] = fig[1][round] > 0.0 ? fig[0][round] / fig[1][round] : 0.0;
    }
    if (ok) {
        out->p50[0] = pair_median(fig[0], rounds);
        out->p50[1] = pair_median(fig[1], rounds);
        out->ratio = pair_median(fig[2], rounds);
        out->ratio_min = fig[2][0];
        out->ratio_max = fig[2][rounds - 1];
    }
    free(b), free(start), free(samples[0]), free(samples[1]), free(fig[0]), free(fig[1]), free(fig[2]);
    return ok ? 0 : -1;
}

#endif
