/*
 * bench_level_volumes.c - what a level's own volumes (a Quake 3 level's
 * jump pads, teleporters, hurting places and triggers, as sweep-import
 * makes them) cost a move, on the level itself.
 *
 * Bodies start above each volume and walk the level through sweep_act,
 * launched by its pads and sent on by its teleporters, each on a heading of
 * its own that turns every second. Every move is made twice from the same
 * actor: through the world with its volumes (the move kept) and through
 * the same world without them (the result thrown away), in alternating
 * order, each timed alone, so the pair differs only by the volumes' tests
 * and what they did, and the shared machine's noise falls on both alike. A
 * move is near when it starts within two body heights of a volume's box
 * (inside included): the moves a volume can cost most. Prints
 *
 *   BENCH name=core.level_volumes map=<name> volumes=<n> bodies=<n>
 *         near=<fraction of moves> near_ns_p50=<x> near_plain_ns_p50=<x>
 *         near_ratio=<x> far_ratio=<x> launched=<moves> failed=<moves>
 *
 * (near_ratio and far_ratio: the medians of the per-move ratios of the
 * pairs, each move's clock reads, about 20 ns, in both of its times; no
 * mean: on a shared machine one move another process preempted outweighs
 * thousands.) The two
 * calls are functions of their own (move_near_with, move_near_plain,
 * move_far_with, move_far_plain), never inlined nor merged, so that valgrind
 * --tool=callgrind counts each kind's instructions apart:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=OUT bench_level_volumes L.db 300
 *   callgrind_annotate --inclusive=yes OUT | grep move_
 *
 * Usage: bench_level_volumes MAP.db [TICKS] (default 2000 ticks of 1/60 s).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/motion.h"
#include "core/volume.h"
#include "maps/level.h"
#include "maps/loader.h"

#define DT (1.0 / 60.0)
#define BODIES_PER_VOLUME 2
#define TURN_EVERY 60

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

typedef struct mv {
    const sweep_space *space;
    const sweep_config *cfg;
    const sweep_rules *rules;
    sweep_vec3 radii;
} mv;

/* One of the four kinds of call, never inlined nor merged with the others. */
#define MOVE_CALL(name)                                                                                        \
    static __attribute__((noinline, noipa)) sweep_status name(const mv *m, sweep_actor *a, const sweep_wish *w, \
                                                              sweep_act_result *r)                           \
    {                                                                                                          \
        return sweep_act(m->space, m->cfg, m->rules, m->radii, a, w, DT, r);                                   \
    }
MOVE_CALL(move_near_with)
MOVE_CALL(move_near_plain)
MOVE_CALL(move_far_with)
MOVE_CALL(move_far_plain)

/* 1 when p is within `reach` of volume v's box. */
static int near_box(const sweep_volume *v, sweep_vec3 p, double reach)
{
    return p.x >= v->lo.x - reach && p.x <= v->hi.x + reach && p.y >= v->lo.y - reach && p.y <= v->hi.y + reach &&
           p.z >= v->lo.z - reach && p.z <= v->hi.z + reach;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_level_volumes MAP.db [TICKS]\n");
        return 2;
    }
    uint32_t ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    sweep_level lv;
    char err[512];
    if (sweep_map_load(argv[1], &lv, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "bench_level_volumes: %s\n", err);
        return 1;
    }
    uint32_t n = lv.volume_count;
    if (n == 0 || ticks < 1) {
        fprintf(stderr, "bench_level_volumes: %s has no volumes\n", argv[1]);
        return 1;
    }
    sweep_world *with = NULL, *plain = NULL;
    if (sweep_map_build_world(&lv, &with, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "bench_level_volumes: %s\n", err);
        return 1;
    }
    lv.volume_count = 0; /* the same level without them */
    sweep_status st = sweep_map_build_world(&lv, &plain, NULL, err, sizeof err);
    lv.volume_count = n;
    if (st != SWEEP_OK) {
        fprintf(stderr, "bench_level_volumes: %s\n", err);
        return 1;
    }
    sweep_vec3 radii = lv.default_radii;
    double floor_z = 0.0;
    for (uint32_t k = 0; k < lv.vertex_count; k++)
        floor_z = k == 0 || lv.vertices[k].z < floor_z ? lv.vertices[k].z : floor_z;
    double reach = 4.0 * radii.z;
    uint32_t bodies = n * BODIES_PER_VOLUME;
    sweep_actor *a = calloc(bodies, sizeof *a);
    double *heading = calloc(bodies, sizeof *heading);
    double *near_r = calloc((size_t)bodies * ticks, sizeof *near_r), *far_r = calloc((size_t)bodies * ticks, sizeof *far_r);
    double *near_with = calloc((size_t)bodies * ticks, sizeof *near_with);
    double *near_plain = calloc((size_t)bodies * ticks, sizeof *near_plain);
    if (!a || !heading || !near_r || !far_r || !near_with || !near_plain)
        return 1;
    uint64_t seed = 1;
    for (uint32_t i = 0; i < bodies; i++) {
        const sweep_volume *v = &lv.volumes[i / BODIES_PER_VOLUME].v;
        /* Above the volume's middle, falling onto what lies below. */
        a[i].position = sweep_v3(0.5 * (v->lo.x + v->hi.x), 0.5 * (v->lo.y + v->hi.y), v->hi.z);
        heading[i] = (double)(splitmix(&seed) >> 11) * (2.0 * 3.14159265358979 / 9007199254740992.0);
    }
    sweep_space sw = {with, NULL, NULL, SWEEP_NO_BODY}, sp = {plain, NULL, NULL, SWEEP_NO_BODY};
    mv mw = {&sw, &lv.config, &lv.rules, radii}, mp = {&sp, &lv.config, &lv.rules, radii};
    uint64_t nn = 0, nf = 0, launched = 0, failed = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        for (uint32_t i = 0; i < bodies; i++) {
            if (t % TURN_EVERY == 0 && t > 0)
                heading[i] += 1.0 + (double)(splitmix(&seed) >> 11) / 9007199254740992.0;
            double s = lv.rules.walk_speed;
            /* cos and sin: the bench's own wish, not the core's arithmetic. */
            sweep_wish w = {sweep_v3(s * cos(heading[i]), s * sin(heading[i]), 0), 0};
            int near = 0;
            for (uint32_t k = 0; k < n && !near; k++)
                near = near_box(&lv.volumes[k].v, a[i].position, reach);
            sweep_actor copy = a[i];
            sweep_act_result r, rp;
            double tw = 0.0, tp = 0.0, t0;
            sweep_status sw_st = SWEEP_OK, sp_st = SWEEP_OK;
            for (int pass = 0; pass < 2; pass++) {
                int vol = (pass == 0) == ((t + i) % 2 == 0);
                t0 = now_ns();
                if (vol)
                    sw_st = near ? move_near_with(&mw, &a[i], &w, &r) : move_far_with(&mw, &a[i], &w, &r);
                else
                    sp_st = near ? move_near_plain(&mp, &copy, &w, &rp) : move_far_plain(&mp, &copy, &w, &rp);
                double d = now_ns() - t0;
                if (vol)
                    tw = d;
                else
                    tp = d;
            }
            if (sw_st != SWEEP_OK || sp_st != SWEEP_OK) {
                failed++;
                continue;
            }
            launched += (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) != 0;
            if (near) {
                near_with[nn] = tw, near_plain[nn] = tp;
                near_r[nn++] = tw / tp;
            } else {
                far_r[nf++] = tw / tp;
            }
            /* A body that fell out of the level starts again at its volume. */
            const sweep_volume *v = &lv.volumes[i / BODIES_PER_VOLUME].v;
            if (a[i].position.z < floor_z - 10.0 * radii.z || r.volumes.events & SWEEP_VOLUME_EV_KILLED) {
                memset(&a[i], 0, sizeof a[i]);
                a[i].position = sweep_v3(0.5 * (v->lo.x + v->hi.x), 0.5 * (v->lo.y + v->hi.y), v->hi.z);
            }
        }
    }
    if (nn == 0 || nf == 0) {
        fprintf(stderr, "bench_level_volumes: %llu near and %llu far moves: nothing to compare\n",
                (unsigned long long)nn, (unsigned long long)nf);
        return 1;
    }
    qsort(near_r, nn, sizeof *near_r, by_value);
    qsort(far_r, nf, sizeof *far_r, by_value);
    qsort(near_with, nn, sizeof *near_with, by_value);
    qsort(near_plain, nn, sizeof *near_plain, by_value);
    printf("BENCH name=core.level_volumes map=%s volumes=%u bodies=%u near=%.2f near_ns_p50=%.0f "
           "near_plain_ns_p50=%.0f near_ratio=%.3f far_ratio=%.3f launched=%llu failed=%llu\n",
           lv.name, n, bodies, (double)nn / (double)(nn + nf), near_with[nn / 2], near_plain[nn / 2],
           near_r[nn / 2], far_r[nf / 2], (unsigned long long)launched, (unsigned long long)failed);
    free(a), free(heading), free(near_r), free(far_r), free(near_with), free(near_plain);
    sweep_world_destroy(with);
    sweep_world_destroy(plain);
    sweep_level_free(&lv);
    return 0;
}
