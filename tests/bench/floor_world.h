/*
 * floor_world.h - what the volume benchmarks share (bench_volumes.c,
 * bench_liquids.c): a flat floor of 1 m quads, side * SPACING metres
 * square, as a world prepared for the walkers' radii; the clock; and the
 * order the per-tick samples are sorted in for their median.
 * Header-only: each benchmark is one program.
 */
#ifndef SWEEP_TESTS_BENCH_FLOOR_WORLD_H
#define SWEEP_TESTS_BENCH_FLOOR_WORLD_H

#include <stdint.h>
#include <time.h>

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

#endif
