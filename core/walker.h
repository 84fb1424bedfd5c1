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
#include "core/volume.h"
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

/* Puts walker `id` back at its spawn point (spawns as for
 * sweep_walk_place), at rest, not grounded, on no mover: as a game
 * respawns a player that was crushed or killed. Its heading is kept
 * until the next change. */
void sweep_walk_respawn(const sweep_vec3 *spawns, uint32_t spawn_count, uint32_t id, sweep_walker *walker);

/* No kill volume holds the walker (sweep_walk_kill_volume). */
#define SWEEP_WALK_NOT_KILLED UINT32_MAX

/*
 * The first of the n volumes v, in index order, that is a kill volume
 * holding `position`, a standing walker's centre (core/volume.h: a volume
 * is a region of body centres); SWEEP_WALK_NOT_KILLED if none. The walk's
 * moves are the core's, not the movement rules', so no other kind of
 * volume acts on a walker (pads, teleporters, liquids, ladders); a kill
 * volume ends a player however it moves, and so ends a walker, where a
 * game would respawn it. Deterministic: comparisons and + - * only.
 */
uint32_t sweep_walk_kill_volume(const sweep_volume *v, uint32_t n, sweep_vec3 position);

/* State hash of all walkers (positions, velocities, grounded flags). */
uint64_t sweep_walk_hash(const sweep_walker *walkers, uint32_t count);

/*
 * Why a walker went nowhere. sweep-walk calls a walker that has not gone a
 * radius in its last few hundred steps, through several heading changes,
 * a suspect; most suspects are only unlucky (headings into a corner, along
 * a diagonal wall), and the judge tells them apart from real failures with
 * tests that do not use the core's sweep:
 *   - INSIDE: the body overlaps a triangle it is in front of (a closest
 *     point nearer than one eSpace unit): the core let it in.
 *   - TRAPPED: the level itself holds it: in no direction of the walking
 *     plane is there room for the body to travel two of its radii (a
 *     closet, a closed room).
 *   - STUCK: there is room, but walking there with the core goes nowhere.
 *   - FREE: walking towards some room with the core gets a radius away.
 */
typedef enum sweep_walk_verdict {
    SWEEP_WALK_FREE = 0,
    SWEEP_WALK_TRAPPED,
    SWEEP_WALK_STUCK,
    SWEEP_WALK_INSIDE
} sweep_walk_verdict;

/* The directions sweep_walk_room tries: evenly around the walking plane. */
#define SWEEP_WALK_DIRECTIONS 16

/*
 * 1 if a body of the walk's radii at `position` overlaps geometry: the
 * static triangles and the movers' (where they are now; mv may be NULL),
 * each only from its front, as the core collides with it. By closest
 * points, not by the core's sweep.
 */
int sweep_walk_overlaps(const sweep_world *w, const sweep_movers *mv, const sweep_walk_params *p,
                        sweep_vec3 position);

/*
 * The directions (bit k for direction k of SWEEP_WALK_DIRECTIONS) in which
 * the level has room: the body, starting at `position`, fits (as
 * sweep_walk_overlaps says) at every point of the straight line two of its
 * smallest radii long, each point tried at heights from 0 to the step
 * height. Not the core's answer: an independent one.
 */
uint32_t sweep_walk_room(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                         const sweep_walk_params *p, sweep_vec3 position);

/*
 * The verdict on a walker (see sweep_walk_verdict): INSIDE if it overlaps
 * geometry; else TRAPPED if sweep_walk_room finds no room; else FREE if a
 * probe, the walker walking straight into one of the directions with room
 * with the core (the movers held still, up to 120 steps), gets at least its
 * smallest radius away across the up axis; else STUCK. The walker itself is
 * not changed. Deterministic, like the walk.
 */
sweep_walk_verdict sweep_walk_judge(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                                    const sweep_walk_params *p, const sweep_walker *walker);

/* The walkers' up: minus gravity, unit; +z when there is no gravity. */
sweep_vec3 sweep_walk_up(const sweep_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
