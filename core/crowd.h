/*
 * crowd.h - players as obstacles: every body's ellipsoid stands for the
 * others as a small convex shell that moves with it.
 *
 * The shell of a body with radii (rx, ry, rz) is the octagonal prism that
 * circumscribes its ellipsoid: eight sides tangent to the ellipse (rx, ry)
 * across the horizontal axes, flat top and bottom at +-rz (28 triangles,
 * faces outwards). A moving ellipsoid sweeps against these shells with the
 * same exact triangle tests as against the level, so the result stays
 * deterministic; two bodies side by side stop at the sum of their radii,
 * one can stand on another's head, and sliding round a body feels like
 * sliding round a pillar. The shells' axes are the world's x, y and z
 * (z up): a crowd is meant for z-up levels, as the map tools write them.
 *
 * A crowd has numbered slots; the owner puts a body in a slot when it
 * spawns, moves the slot after each of its moves, and empties it when the
 * body goes. A move names its own slot so that it does not collide with
 * its own shell. Who blocks whom depends on the order moves are applied:
 * the owner must apply them in an order it can reproduce (sweepd applies
 * them in the order they arrive, and a recording keeps that order).
 *
 * Shell triangles are numbered from SWEEP_CROWD_FIRST_TRIANGLE up,
 * slot * SWEEP_CROWD_SHELL_TRIANGLES + k, far above any level or mover
 * triangle; a contact with a shell names its slot in `body`.
 *
 * The movers' tick (mover.h) does not see the crowd: a door may push one
 * body into another's shell (and an owner may put a body back where
 * another now stands). A shell is soft: a move that starts inside one is
 * not pushed out of it, as it would be out of the level, since that push
 * follows the shell's normal however deep, into a wall or the door behind
 * (and back out every other move). The shell only stops a sweep that
 * runs deeper into it, judged by its nearest triangle (scene.h). So such
 * bodies stay overlapping until they walk apart, which nothing stops,
 * never press deeper, and never leave the level's or a mover's side. The
 * move still reports SWEEP_MOVED_STARTED_EMBEDDED and the shell as a
 * contact, which is what a room test (stance.h) asks.
 *
 * Cost: a move finds the bodies near it in a grid in x and y (each body in
 * the cell of its box's lowest corner, cells one to two times the widest
 * body across, hashed into as many buckets as slots), and tests those in
 * slot order, exactly the bodies and the order a scan of every slot would
 * give; a crowd of up to 24 bodies is scanned. Setting a slot stores the
 * position and radii only: a move builds the shells of the bodies it comes
 * near. Bodies packed into a few cells make the lists longer; the
 * benchmark measures it.
 */
#ifndef SWEEP_CORE_CROWD_H
#define SWEEP_CORE_CROWD_H

#include <stdint.h>

#include "core/move.h"
#include "core/mover.h"
#include "core/status.h"
#include "core/vec3.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif
#define SWEEP_NO_BODY UINT32_MAX
#define SWEEP_CROWD_SHELL_TRIANGLES 28u
#define SWEEP_CROWD_FIRST_TRIANGLE 0x80000000u
/* Most slots: every shell triangle number stays below 2^32. */
#define SWEEP_CROWD_MAX_SLOTS ((UINT32_MAX - SWEEP_CROWD_FIRST_TRIANGLE) / SWEEP_CROWD_SHELL_TRIANGLES)

typedef struct sweep_crowd sweep_crowd;

/* An empty crowd of `slots` slots (1 .. SWEEP_CROWD_MAX_SLOTS). */
sweep_status sweep_crowd_create(uint32_t slots, sweep_crowd **out);

void sweep_crowd_destroy(sweep_crowd *c);

/* Grows the crowd to `slots` slots (never shrinks); bodies keep their slots.
 * SWEEP_E_ARG past SWEEP_CROWD_MAX_SLOTS, SWEEP_E_NOMEM (nothing changed). */
sweep_status sweep_crowd_grow(sweep_crowd *c, uint32_t slots);

uint32_t sweep_crowd_slots(const sweep_crowd *c);

/* Puts (or moves) a body of the given radii at position in slot. SWEEP_E_ARG
 * for a bad slot, SWEEP_E_NONFINITE, or SWEEP_E_RADII for radii not > 0. */
sweep_status sweep_crowd_set(sweep_crowd *c, uint32_t slot, sweep_vec3 position, sweep_vec3 radii);

/* Empties slot (nothing if it is empty or out of range). */
void sweep_crowd_clear(sweep_crowd *c, uint32_t slot);

/* The lowest empty slot, or SWEEP_NO_BODY when every slot is taken (a
 * caller that fills slots this way numbers them the same way every run). */
uint32_t sweep_crowd_first_free(const sweep_crowd *c);

/* The slot a shell triangle number belongs to, or SWEEP_NO_BODY. */
uint32_t sweep_crowd_slot_of_triangle(uint32_t tri);

/* Everything one move can meet. */
typedef struct sweep_space {
    const sweep_world *world;   /* the level; required */
    const sweep_movers *movers; /* NULL: no movers */
    const sweep_crowd *crowd;   /* NULL: bodies do not block each other */
    uint32_t self;              /* the moving body's slot, left out; SWEEP_NO_BODY if none */
} sweep_space;

/* sweep_move through a whole space (sweep_move_among is this without a
 * crowd). Contacts with shells have body = the slot touched. */
sweep_status sweep_move_in(const sweep_space *space, const sweep_config *cfg, const sweep_move_input *in,
                           sweep_move_result *out);

#ifdef __cplusplus
}
#endif

#endif
