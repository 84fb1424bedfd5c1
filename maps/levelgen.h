/*
 * levelgen.h - generated levels of a requested size, for tests, benchmarks
 * and sweep-mapgen.
 *
 * A level is a square heightfield terrain (gentle, walkable hills) with a
 * grid of blocks on it: staircases of several step heights, ramps below and
 * above the walkable slope, walls, pillars and platforms, inside four
 * boundary walls. z is up; gravity is (0, 0, -9.81). The triangle count
 * lands near the requested one (within a few percent above 1000).
 *
 * With movers asked for, the first blocks (row by row) get a mover instead
 * of their static feature, in turn a lift, a turntable, a sliding door and
 * a swinging door, and the first spawn points are above the lifts and
 * turntables so that walkers ride them. Without movers a level is what it
 * always was.
 *
 * Generation uses an integer hash of (seed, position) and only + - * / and
 * sqrt (the movers' quaternions), so a (seed, size, movers) triple gives the
 * same level, bit for bit, everywhere.
 */
#ifndef SWEEP_MAPS_LEVELGEN_H
#define SWEEP_MAPS_LEVELGEN_H

#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Material ids of generated levels. */
enum {
    SWEEP_GEN_MAT_TERRAIN = 1,
    SWEEP_GEN_MAT_STONE = 2, /* stairs, platforms */
    SWEEP_GEN_MAT_METAL = 3, /* ramps */
    SWEEP_GEN_MAT_WALL = 4
};

typedef struct sweep_levelgen_params {
    uint64_t seed;
    uint32_t target_triangles; /* at least 200; at most SWEEP_WORLD_MAX_TRIANGLES / 2 */
    uint32_t spawn_count;      /* spawn points on open terrain */
    uint32_t mover_count;      /* movers, at most one per block (fewer if the level is small) */
} sweep_levelgen_params;

/* Fills an initialised, empty level. SWEEP_E_ARG for a target out of range,
 * SWEEP_E_NOMEM if memory runs out (the level is then freed). */
sweep_status sweep_levelgen(const sweep_levelgen_params *p, sweep_level *out);

#ifdef __cplusplus
}
#endif

#endif
