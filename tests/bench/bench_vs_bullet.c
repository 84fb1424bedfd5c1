/*
 * bench_vs_bullet.c - sweep's core against Bullet's kinematic character
 * controller (bullet_walk.h) on one level: the same triangles, the same
 * starts (the level's spawn points, walker i at spawn i mod their count),
 * the same headings (sweep's walkers', core/walker.h, each kept for 60
 * steps), steps of 1/60 s at the level's walk speed, under its gravity,
 * step height and walkable slope, falling no faster than its speed limit. sweep moves its ellipsoid; Bullet a
 * capsule of the ellipsoid's radius across up and its height along up.
 *
 * A round times every step of every walker, one engine after the other;
 * the line gives the medians over rounds of the mean cost of one walker's
 * update (sweep: one sweep_walk_step; Bullet: a world step divided by the
 * walkers, its broad phase and every character's update in it, as a game
 * that uses the controller pays it). Where the walkers got says whether
 * both walked the same level: the mean distance from the start across up
 * after the last round (moved), how many ended more than four body heights
 * below their start (dropped: down stairs, off ledges, or through a floor)
 * and how many fell out of the level (below its lowest triangle by more
 * than a body). A level where the two differ much is a level where they
 * did not do the same work, and its ratio says less.
 *
 *   BENCH name=core.vs_bullet map=<name> tris=<n> walkers=<n> steps=<n>
 *         rounds=<n> sweep_ns=<x> bullet_ns=<x> ratio=<bullet/sweep>
 *         sweep_moved=<units> bullet_moved=<units> sweep_dropped=<n>
 *         bullet_dropped=<n> sweep_fell=<n> bullet_fell=<n>
 *
 * Usage: bench_vs_bullet MAP.db [WALKERS [STEPS [ROUNDS]]] (default 64
 * walkers, 1000 steps, 3 rounds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/walker.h"
#include "core/world.h"
#include "maps/loader.h"
#include "tests/bench/bullet_walk.h"
#include "tests/bench/median.h"

#define HEADING_EVERY 60u
#define MAX_ROUNDS 15

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Where the walkers ended: the mean distance across up (z) from each
 * start; how many ended more than `drop` below their start, and how many
 * below `floor_z`. */
typedef struct ended {
    double moved;
    uint32_t dropped, fell;
} ended;

static ended where(const sweep_vec3 *at, const sweep_vec3 *from, uint32_t n, double drop, double floor_z)
{
    ended e = {0.0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        e.moved += hypot(at[i].x - from[i].x, at[i].y - from[i].y);
        e.dropped += at[i].z < from[i].z - drop;
        e.fell += at[i].z < floor_z;
    }
    e.moved = n ? e.moved / n : 0.0;
    return e;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: bench_vs_bullet MAP.db [WALKERS [STEPS [ROUNDS]]]\n");
        return 2;
    }
    uint32_t walkers = argc > 2 ? (uint32_t)atoi(argv[2]) : 64, steps = argc > 3 ? (uint32_t)atoi(argv[3]) : 1000;
    int rounds = argc > 4 ? atoi(argv[4]) : 3;
    if (walkers < 1 || walkers > 4096 || steps < 1 || steps > 1000000 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "bench_vs_bullet: WALKERS 1..4096, STEPS 1..1000000, ROUNDS 1..%d\n", MAX_ROUNDS);
        return 2;
    }
    sweep_level lv;
    char err[600];
    if (sweep_map_load(argv[1], &lv, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "bench_vs_bullet: %s: %s\n", argv[1], err);
        return 1;
    }
    const sweep_config cfg = lv.config;
    /* Bullet's side is set up z up, as Quake's levels and the samples are. */
    if (cfg.gravity.x != 0.0 || cfg.gravity.y != 0.0 || !(cfg.gravity.z < 0.0) || lv.spawn_count == 0 ||
        lv.default_radii.x != lv.default_radii.y) {
        fprintf(stderr, "bench_vs_bullet: %s: needs gravity along -z, spawn points and radii equal across up\n",
                argv[1]);
        return 1;
    }
    sweep_walk_params wp = {walkers, steps, HEADING_EVERY, 1.0 / 60.0, lv.rules.walk_speed, lv.default_radii, 1};
    sweep_world_desc desc = sweep_level_world_desc(&lv);
    sweep_world *world;
    sweep_status st = sweep_world_create(&desc, &world);
    if (st == SWEEP_OK)
        st = sweep_world_prepare_radii(world, wp.radii);
    if (st != SWEEP_OK) {
        fprintf(stderr, "bench_vs_bullet: building the world: %s\n", sweep_status_message(st));
        return 1;
    }
    sweep_world_info info;
    sweep_world_get_info(world, &info);
    double floor_z = info.bounds_min.z - 2.0 * wp.radii.z;

    uint32_t periods = (steps + HEADING_EVERY - 1) / HEADING_EVERY;
    sweep_walker *w = calloc(walkers, sizeof *w);
    sweep_vec3 *head = calloc((size_t)walkers * periods, sizeof *head), *start = calloc(walkers, sizeof *start),
               *end = calloc(walkers, sizeof *end);
    double *starts = calloc(3 * (size_t)walkers, sizeof *starts), *walk = calloc(3 * (size_t)walkers, sizeof *walk);
    if (!w || !head || !start || !end || !starts || !walk) {
        fprintf(stderr, "bench_vs_bullet: out of memory\n");
        return 1;
    }
    sweep_walk_place(&wp, lv.spawns, lv.spawn_count, w);
    for (uint32_t i = 0; i < walkers; i++) {
        start[i] = w[i].position;
        starts[3 * i] = start[i].x, starts[3 * i + 1] = start[i].y, starts[3 * i + 2] = start[i].z;
    }

    bullet_walk_desc bd = {&lv.vertices[0].x, lv.vertex_count, lv.indices, lv.triangle_count, wp.radii.x,
                           wp.radii.z, cfg.step_height, -cfg.gravity.z, cfg.max_speed, acos(cfg.walkable_normal_up),
                           starts, walkers};
    /* The level's vertices are packed xyz doubles (sweep_vec3). */
    _Static_assert(sizeof(sweep_vec3) == 3 * sizeof(double), "sweep_vec3 is three doubles");
    bullet_walk *bw = bullet_walk_new(&bd);
    if (!bw) {
        fprintf(stderr, "bench_vs_bullet: Bullet refused the level\n");
        return 1;
    }

    double sweep_ns[MAX_ROUNDS], bullet_ns[MAX_ROUNDS], drop = 8.0 * wp.radii.z;
    ended se = {0.0, 0, 0}, be = {0.0, 0, 0};
    double updates = (double)walkers * steps;
    for (int r = 0; r < rounds; r++) {
        /* sweep: the walkers of core/walker.h; their headings kept for Bullet. */
        sweep_walk_place(&wp, lv.spawns, lv.spawn_count, w);
        sweep_move_result res;
        double sum = 0.0;
        for (uint32_t s = 0; s < steps; s++) {
            double t0 = now_ns();
            for (uint32_t i = 0; i < walkers; i++)
                if (sweep_walk_step(world, &cfg, &wp, i, s, &w[i], &res) != SWEEP_OK) {
                    fprintf(stderr, "bench_vs_bullet: walker %u step %u failed\n", i, s);
                    return 1;
                }
            sum += now_ns() - t0;
            if (s % HEADING_EVERY == 0)
                for (uint32_t i = 0; i < walkers; i++)
                    head[(size_t)i * periods + s / HEADING_EVERY] = w[i].heading;
        }
        sweep_ns[r] = sum / updates;
        for (uint32_t i = 0; i < walkers; i++)
            end[i] = w[i].position;
        se = where(end, start, walkers, drop, floor_z);

        /* Bullet: the same headings at the same speed. */
        bullet_walk_reset(bw);
        sum = 0.0;
        for (uint32_t s = 0; s < steps; s++) {
            for (uint32_t i = 0; i < walkers; i++) {
                sweep_vec3 h = head[(size_t)i * periods + s / HEADING_EVERY];
                walk[3 * i] = h.x * wp.speed * wp.dt, walk[3 * i + 1] = h.y * wp.speed * wp.dt, walk[3 * i + 2] = 0;
            }
            double t0 = now_ns();
            bullet_walk_step(bw, walk, wp.dt);
            sum += now_ns() - t0;
        }
        bullet_ns[r] = sum / updates;
        for (uint32_t i = 0; i < walkers; i++) {
            double p[3];
            bullet_walk_position(bw, i, p);
            end[i] = sweep_v3(p[0], p[1], p[2]);
        }
        be = where(end, start, walkers, drop, floor_z);
    }
    double sn = median(sweep_ns, rounds), bn = median(bullet_ns, rounds);
    printf("BENCH name=core.vs_bullet map=%s tris=%u walkers=%u steps=%u rounds=%d sweep_ns=%.0f bullet_ns=%.0f "
           "ratio=%.1f sweep_moved=%.0f bullet_moved=%.0f sweep_dropped=%u bullet_dropped=%u sweep_fell=%u "
           "bullet_fell=%u\n",
           lv.name, lv.triangle_count, walkers, steps, rounds, sn, bn, sn > 0.0 ? bn / sn : 0.0, se.moved, be.moved,
           se.dropped, be.dropped, se.fell, be.fell);
    bullet_walk_free(bw);
    sweep_world_destroy(world);
    sweep_level_free(&lv);
    free(w), free(head), free(start), free(end), free(starts), free(walk);
    return 0;
}
