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
 *   BENCH name=core.volumes volumes=<n> bodies=<n> rounds=<n>
 *         inside=<fraction> ns_per_move_p50=<x> plain_ns_per_move_p50=<x>
 *         ratio=<x> ratio_min=<x> ratio_max=<x>
 *         ns_per_move_mean=<x> plain_ns_per_move_mean=<x>
 *
 * (a tick's moves timed together, one clock read per tick and run; the
 * whole walk run ROUNDS times from the same start, its first second not
 * timed; a round's figure is its median tick's time a move, its ratio
 * that of its two medians: on a shared machine the median shrugs off the
 * ticks another process took; the line gives the median of the rounds'
 * figures and the range of their ratios).
 * Usage: bench_volumes [VOLUMES [TICKS [ROUNDS]]] (default 24 volumes, 2000
 * ticks, 5 rounds).
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

typedef struct volumes_seen {
    const sweep_volume *v;
} volumes_seen;

/* A move counts as inside when a hurt volume acted or it ended in its
 * row's volume (a trigger reports only crossings). */
static int in_volume(const sweep_act_result *r, uint32_t body, const sweep_actor *a, void *ctx)
{
    const volumes_seen *vs = ctx;
    return (r->volumes.events & SWEEP_VOLUME_EV_HURT) ||
           sweep_volume_contains(&vs->v[body / BODIES_PER_VOLUME], a->position);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 24, ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    uint32_t rounds = argc > 3 ? (uint32_t)atoi(argv[3]) : 5;
    if (n < 1 || n > SWEEP_VOLUME_MAX || ticks < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_volumes [VOLUMES 1..%u [TICKS [ROUNDS]]]\n", SWEEP_VOLUME_MAX);
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
    sweep_actor *a = calloc(bodies, sizeof *a);
    double *cx = calloc(bodies, sizeof *cx);
    if (!v || !a || !cx)
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
    pair_walk pw;
    volumes_seen vs = {v};
    if (pair_walk_run("bench_volumes", with, plain, &cfg, &rules, RADII, DT, a, bodies, ticks, rounds, 1, 1, in_volume,
                      &vs, &pw) != 0)
        return 1;
    printf("BENCH name=core.volumes volumes=%u bodies=%u rounds=%u inside=%.2f ns_per_move_p50=%.0f "
           "plain_ns_per_move_p50=%.0f ratio=%.3f ratio_min=%.3f ratio_max=%.3f ns_per_move_mean=%.0f "
           "plain_ns_per_move_mean=%.0f\n",
           n, bodies, rounds, (double)pw.inside / (double)pw.moves, pw.p50[0], pw.p50[1], pw.ratio, pw.ratio_min,
           pw.ratio_max, pw.total[0] / (double)pw.moves, pw.total[1] / (double)pw.moves);
    free(v), free(a), free(cx);
    sweep_world_destroy(with);
    sweep_world_destroy(plain);
    return 0;
}
