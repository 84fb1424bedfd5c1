/*
 * walker.h - simulated players walking a level: the workload of the core
 * benchmark, of sweep-walk, and of the property tests.
 *
 * Each walker walks at `speed` across the plane normal to gravity on a
 * heading that changes every `heading_every` steps, and falls like a
 * player: each step's velocity is the heading velocity, plus the vertical
 * part of the last integration velocity, plus gravity * dt. One step of one
 * walker is one sweep_move call (the gravity pass included).
 *
 * Headings come from a hash of (seed, walker, heading period) and are drawn
 * without trigonometry, so a run is a pure function of its parameters: the
 * same parameters give the same final state hash on every machine.
 */
#ifndef SWEEP_CORE_WALKER_H
#define SWEEP_CORE_WALKER_H

#include <stdint.h>

#include "core/move.h"
#include "core/mover.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep_walker {
    sweep_vec3 position;
    sweep_vec3 velocity; /* last integration velocity */
    sweep_vec3 heading;  /* unit, across the up axis */
    uint32_t grounded;
    uint32_t ground_mover; /* mover stood on after the last step, or SWEEP_NO_MOVER */
    uint32_t touch_mover;  /* first mover touched in the last step, or SWEEP_NO_MOVER */
} sweep_walker;

typedef struct sweep_walk_params {
    uint32_t walkers;
    uint32_t steps;
    uint32_t heading_every; /* steps between heading changes, >= 1 */
    double dt;              /* seconds per step */
    double speed;           /* units/s across the up axis */
    sweep_vec3 radii;
    uint64_t seed;
} sweep_walk_params;

/* Puts walker i at spawns[i % spawn_count], at rest, not grounded. */
void sweep_walk_place(const sweep_walk_params *p, const sweep_vec3 *spawns, uint32_t spawn_count,
                      sweep_walker *walkers);

/* Advances walker `id` by step number `step`; fills *res with the move. */
sweep_status sweep_walk_step(const sweep_world *w, const sweep_config *cfg, const sweep_walk_params *p,
                             uint32_t id, uint32_t step, sweep_walker *walker, sweep_move_result *res);

/* The same among movers (mv may be NULL): the move sees them where they
 * are, and the walker remembers the mover it stands on or touched. */
sweep_status sweep_walk_step_among(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                                   const sweep_walk_params *p, uint32_t id, uint32_t step, sweep_walker *walker,
                                   sweep_move_result *res);

/*
 * One tick of the movers with every walker as a body (carried, pushed),
 * as a server runs it between two rounds of moves. Crushed walkers are put
 * back at their spawn point (spawns as for sweep_walk_place) and counted
 * in *crushed (may be NULL).
 */
sweep_status sweep_walk_tick(sweep_movers *mv, const sweep_world *w, const sweep_config *cfg,
                             const sweep_walk_params *p, const sweep_vec3 *spawns, uint32_t spawn_count,
                             sweep_walker *walkers, uint64_t *crushed);

/* State hash of all walkers (positions, velocities, grounded flags). */
uint64_t sweep_walk_hash(const sweep_walker *walkers, uint32_t count);

/* The walkers' up: minus gravity, unit; +z when there is no gravity. */
sweep_vec3 sweep_walk_up(const sweep_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
