/*
 * bench_volumes.c - what volumes cost a move: the same walks through a
 * world with volumes and through the same world without them.
 *
 * The level is a flat floor with a grid of volumes (default 24, more than
 * the 19 jump pads of the busiest corpus level), each a box cut by four
 * slanted planes, half of them hurt and half trigger volumes: kinds that
 * report but do not move a body, so both runs take the very same path
 * (checked at the end, to the bit) and differ only by the volumes' tests.
 * Each body walks back and forth across one volume's row, so about half
 * its moves end inside a volume and the rest near one. A tick moves every
 * body once through sweep_act, with volumes, then the same body state
 * copied through the plain world, alternating which goes first, so the
 * shared machine's noise falls on both alike. Prints
 *
 *   BENCH name=core.volumes volumes=<n> bodies=<n> inside=<fraction>
 *         ns_per_move_p50=<x> plain_ns_per_move_p50=<x> ratio=<x>
 *         ns_per_move_mean=<x> plain_ns_per_move_mean=<x>
 *
 * (a tick's moves timed together, one clock read per tick and run; p50 is
 * the median tick's time a move, ratio that of the two medians: on a
 * shared machine the median shrugs off the ticks another process took).
 * Usage: bench_volumes [VOLUMES [TICKS]] (default 24 volumes, 2000 ticks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/motion.h"
#include "core/volume.h"
#include "maps/level.h"
#include "tests/bench/floor_world.h"

#define DT (1.0 / 60.0)
#define BODIES_PER_VOLUME 4
#define SPACING 10.0

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 24, ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    if (n < 1 || n > SWEEP_VOLUME_MAX || ticks < 1) {
        fprintf(stderr, "usage: bench_volumes [VOLUMES 1..%u [TICKS]]\n", SWEEP_VOLUME_MAX);
        return 2;
    }
    uint32_t side = 1;
    while (side * side < n)
        side++;
    sweep_world *with = floor_world(side, SPACING, RADII), *plain = floor_world(side, SPACING, RADII);
    if (!with || !plain) {
        fprintf(stderr, "bench_volumes: building the level failed\n");
        return 1;
    }
    sweep_config cfg;
    sweep_config_default(&cfg);
    sweep_rules rules;
    sweep_rules_default(&rules);
    sweep_volume *v = calloc(n, sizeof *v);
    uint32_t bodies = n * BODIES_PER_VOLUME;
    sweep_actor *a = calloc(bodies, sizeof *a), *b = calloc(bodies, sizeof *b);
    double *cx = calloc(bodies, sizeof *cx);
    if (!v || !a || !b || !cx)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        double x = (i % side) * SPACING + SPACING / 2, y = (i / side) * SPACING + SPACING / 2;
        v[i].kind = i % 2 ? SWEEP_VOLUME_TRIGGER : SWEEP_VOLUME_HURT;
        v[i].lo = sweep_v3(x - 2, y - 2, 0);
        v[i].hi = sweep_v3(x + 2, y + 2, 3);
        v[i].facing = sweep_v3(1, 0, 0);
        v[i].damage = 10.0;
        /* A diamond inside the box: |dx| + |dy| <= 3. */
        v[i].plane_count = 4;
        for (int k = 0; k < 4; k++) {
            double sx = k & 1 ? -1 : 1, sy = k & 2 ? -1 : 1;
            v[i].planes[k].normal = sweep_v3(sx, sy, 0);
            v[i].planes[k].offset = 3.0 + sx * x + sy * y;
        }
        for (uint32_t j = 0; j < BODIES_PER_VOLUME; j++) {
            uint32_t k = i * BODIES_PER_VOLUME + j;
            cx[k] = x;
            a[k].position = sweep_v3(x - 4 + j * 0.3, y - 1.5 + j, 0.9005);
            a[k].grounded = 1;
        }
    }
    const char *why = NULL;
    if (sweep_world_set_volumes(with, v, n, cfg.max_speed, cfg.max_coordinate, NULL, &why) != SWEEP_OK) {
        fprintf(stderr, "bench_volumes: %s\n", why);
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
            sweep_actor *s = vol ? a : b;
            double t0 = now_ns();
            for (uint32_t k = 0; k < bodies; k++) {
                /* Back and forth across the volume's row: 4 m/s for 2.5 s each way. */
                double dir = (t / 150) % 2 ? -4.0 : 4.0;
                sweep_wish w = {sweep_v3(dir, 0, 0), 0};
                sweep_act_result r;
                if (sweep_act(vol ? &sw : &sp, &cfg, &rules, RADII, &s[k], &w, DT, &r) != SWEEP_OK) {
                    fprintf(stderr, "bench_volumes: a move failed\n");
                    return 1;
                }
                if (vol)
                    inside += (r.volumes.events & SWEEP_VOLUME_EV_HURT) || sweep_volume_contains(&v[k / BODIES_PER_VOLUME], s[k].position);
            }
            double dt = now_ns() - t0;
            if (vol)
                t_with += dt, s_with[t] = dt / bodies;
            else
                t_plain += dt, s_plain[t] = dt / bodies;
        }
        moves += bodies;
    }
    if (memcmp(a, b, bodies * sizeof *a) != 0) {
        fprintf(stderr, "bench_volumes: the walks with and without volumes went apart\n");
        return 1;
    }
    (void)cx;
    qsort(s_with, ticks, sizeof *s_with, by_value);
    qsort(s_plain, ticks, sizeof *s_plain, by_value);
    double p50 = s_with[ticks / 2], plain50 = s_plain[ticks / 2];
    printf("BENCH name=core.volumes volumes=%u bodies=%u inside=%.2f ns_per_move_p50=%.0f "
           "plain_ns_per_move_p50=%.0f ratio=%.3f ns_per_move_mean=%.0f plain_ns_per_move_mean=%.0f\n",
           n, bodies, (double)inside / (double)moves, p50, plain50, p50 / plain50, t_with / (double)moves,
           t_plain / (double)moves);
    free(v), free(a), free(b), free(cx), free(s_with), free(s_plain);
    sweep_world_destroy(with);
    sweep_world_destroy(plain);
    return 0;
}
