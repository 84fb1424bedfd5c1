/*
 * bench_crowd.c - what players as obstacles cost: N bodies wandering a
 * square room, each blocking the others (sweep_move_in with a crowd),
 * against the same inputs with bodies passing through each other.
 *
 *   BENCH name=core.crowd bodies=<n> ns_per_move_p50=<x> ns_per_move_p99=<x>
 *         alone_ns_per_move_p50=<x> ratio_to_alone=<x> contacts_per_move=<x>
 *         rounds=<n> ratio_min=<x> ratio_max=<x> ns_per_move_mean=<x>
 *         alone_ns_per_move_mean=<x> mean_ratio_to_alone=<x>
 *
 * Each round walks the crowd and then the bodies alone, or the other way
 * round (every other round), from the same start: the host these run on
 * changes speed within a minute, so one pair of walks can say 1.38 and
 * the next 1.51. The figures are medians over the rounds (the ratio the
 * median of each round's own ratio), with its range. ratio_to_alone
 * compares the median moves, which meet no other body; the means take in
 * the moves that do (mean_ratio_to_alone, each round's own, medians).
 *
 * Usage: bench_crowd [BODIES [STEPS [ROUNDS]]] (default 256 bodies in a
 * room whose floor grows with them, 600 steps, 3 rounds). A move finds
 * the bodies near it by
 * the crowd's broad phase (core/crowd_impl.h), so the cost of a crowd is
 * mostly that of the bodies it touches: run it with several sizes to see
 * how it grows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/crowd.h"
#include "maps/level.h"
#include "tests/bench/median.h"

#define DT (1.0 / 60.0)
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct guy {
    sweep_vec3 pos, vel;
    int grounded;
} guy;

/* Bodies on a grid 2.5 m apart, walking to the room's far corners in turn. */
static double run(const sweep_world *w, sweep_crowd *crowd, const sweep_config *cfg, uint32_t n, uint32_t steps,
                  double side, float *samples, double *contacts, double *mean)
{
    guy *g = calloc(n, sizeof *g);
    uint32_t per_row = (uint32_t)ceil(sqrt((double)n));
    for (uint32_t i = 0; i < n; i++) {
        g[i].pos = sweep_v3(1.5 + 2.5 * (i % per_row), 1.5 + 2.5 * (i / per_row), 0.9005);
        if (crowd)
            sweep_crowd_set(crowd, i, g[i].pos, RADII);
    }
    size_t k = 0;
    uint64_t touched = 0;
    for (uint32_t s = 0; s < steps; s++)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t leg = (s / 120 + i) % 4;
            double tx = leg & 1 ? side - 1 : 1, ty = leg & 2 ? side - 1 : 1;
            sweep_vec3 d = sweep_v3(tx - g[i].pos.x, ty - g[i].pos.y, 0);
            double l = sqrt(d.x * d.x + d.y * d.y);
            sweep_vec3 v = l > 0 ? sweep_v3(3 * d.x / l, 3 * d.y / l, 0) : d;
            sweep_space sp = {w, NULL, crowd, crowd ? i : SWEEP_NO_BODY};
            sweep_move_input in = {g[i].pos, RADII, sweep_v3(v.x, v.y, g[i].vel.z - 9.81 * DT), DT,
                                   g[i].grounded ? SWEEP_INPUT_GROUNDED : 0};
            sweep_move_result r;
            double a = now_ns();
            sweep_status st = sweep_move_in(&sp, cfg, &in, &r);
            if (crowd)
                sweep_crowd_set(crowd, i, r.position, RADII);
            samples[k++] = (float)(now_ns() - a);
            if (st != SWEEP_OK) {
                fprintf(stderr, "bench_crowd: move failed: %s\n", sweep_status_name(st));
                exit(1);
            }
            for (uint32_t c = 0; c < r.contact_count; c++)
                touched += r.contacts[c].body != SWEEP_NO_BODY;
            g[i].pos = r.position, g[i].vel = r.velocity;
            g[i].grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
        }
    free(g);
    *contacts = (double)touched / (double)k;
    double sum = 0.0;
    for (size_t i = 0; i < k; i++)
        sum += samples[i];
    *mean = sum / (double)k;
    qsort(samples, k, sizeof *samples, cmp_float);
    return samples[k / 2];
}

#define MAX_ROUNDS 15

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 256;
    uint32_t steps = argc > 2 ? (uint32_t)atoi(argv[2]) : 600;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    if (n < 2 || n > 100000 || steps < 1 || steps > 100000 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_crowd [BODIES 2..100000 [STEPS 1..100000 [ROUNDS 1..%d]]]\n", MAX_ROUNDS);
        return 2;
    }
    double side = 3.0 + 2.5 * ceil(sqrt((double)n));
    sweep_level lv;
    sweep_level_init(&lv);
    for (double x = 0; x < side; x += 1.0)
        for (double y = 0; y < side; y += 1.0)
            sweep_level_add_quad(&lv, sweep_v3(x, y, 0), sweep_v3(x + 1, y, 0), sweep_v3(x + 1, y + 1, 0),
                                 sweep_v3(x, y + 1, 0), 1);
    sweep_level_add_box(&lv, sweep_v3(-1, -1, 0), sweep_v3(0, side + 1, 3), 2, 0);
    sweep_level_add_box(&lv, sweep_v3(side, -1, 0), sweep_v3(side + 1, side + 1, 3), 2, 0);
    sweep_level_add_box(&lv, sweep_v3(0, -1, 0), sweep_v3(side, 0, 3), 2, 0);
    sweep_level_add_box(&lv, sweep_v3(0, side, 0), sweep_v3(side, side + 1, 3), 2, 0);
    sweep_world *w;
    sweep_world_desc d = sweep_level_world_desc(&lv);
    sweep_crowd *crowd;
    float *samples = malloc((size_t)n * steps * sizeof *samples);
    if (!samples || sweep_world_create(&d, &w) != SWEEP_OK || sweep_crowd_create(n, &crowd) != SWEEP_OK) {
        fprintf(stderr, "bench_crowd: set-up failed\n");
        return 1;
    }
    double contacts = 0.0, none, p50[MAX_ROUNDS], p99[MAX_ROUNDS], alone[MAX_ROUNDS], ratio[MAX_ROUNDS];
    double mean[MAX_ROUNDS], alone_mean[MAX_ROUNDS], mean_ratio[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        if (r % 2)
            alone[r] = run(w, NULL, &lv.config, n, steps, side, samples, &none, &alone_mean[r]);
        p50[r] = run(w, crowd, &lv.config, n, steps, side, samples, &contacts, &mean[r]);
        p99[r] = samples[(size_t)n * steps * 99 / 100];
        if (r % 2 == 0)
            alone[r] = run(w, NULL, &lv.config, n, steps, side, samples, &none, &alone_mean[r]);
        ratio[r] = p50[r] / alone[r];
        mean_ratio[r] = mean[r] / alone_mean[r];
    }
    double lo = ratio[0], hi = ratio[0];
    for (int r = 1; r < rounds; r++)
        lo = ratio[r] < lo ? ratio[r] : lo, hi = ratio[r] > hi ? ratio[r] : hi;
    printf("BENCH name=core.crowd bodies=%u ns_per_move_p50=%.0f ns_per_move_p99=%.0f alone_ns_per_move_p50=%.0f "
           "ratio_to_alone=%.2f contacts_per_move=%.3f rounds=%d ratio_min=%.2f ratio_max=%.2f "
           "ns_per_move_mean=%.0f alone_ns_per_move_mean=%.0f mean_ratio_to_alone=%.2f\n",
           n, median(p50, rounds), median(p99, rounds), median(alone, rounds), median(ratio, rounds),
           contacts, rounds, lo, hi, median(mean, rounds), median(alone_mean, rounds), median(mean_ratio, rounds));
    sweep_crowd_destroy(crowd);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
    free(samples);
    return 0;
}
