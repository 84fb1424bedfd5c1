/*
 * scene.h - one straight sweep of the unit sphere (eSpace) through a world:
 * BVH broad phase, narrow phase per candidate, nearest contact with the
 * simultaneous contacts beside it (the course chapter's
 * EllipsoidIntersectScene). Internal to core/.
 */
#ifndef SWEEP_CORE_SCENE_H
#define SWEEP_CORE_SCENE_H

#include <stdint.h>

#include "core/vec3.h"
#include "core/world.h"

/* Contacts closer than this in t count as simultaneous. */
#define SWEEP__TIE_EPS 1e-9
#define SWEEP__MAX_SIMULTANEOUS 8

typedef struct sweep__scene_hit {
    double t;          /* as sweep_sphere_hit.t */
    sweep_vec3 normal; /* eSpace, unit */
    uint32_t tri;      /* position in world->tris */
    uint32_t index;    /* the triangle's description index (tie-break key) */
} sweep__scene_hit;

typedef struct sweep__scene_result {
    double t_min;   /* earliest t over all contacts: where the sphere may go */
    uint32_t count; /* simultaneous contacts, sorted by index; hits[0] is the primary */
    sweep__scene_hit hits[SWEEP__MAX_SIMULTANEOUS];
} sweep__scene_result;

/*
 * Sweeps the unit sphere from e_from by e_disp (eSpace) against every
 * triangle of w, scaled into eSpace by inv_radii. Returns 1 and fills *out
 * on contact (or embedded start), 0 if the path is clear. The traversal
 * order is fixed by the tree and the primary contact is the lowest triangle
 * index among those within SWEEP__TIE_EPS of the earliest, so the answer
 * depends on nothing but the inputs.
 */
int sweep__scene_sweep(const sweep_world *w, sweep_vec3 radii, sweep_vec3 inv_radii, sweep_vec3 e_from,
                       sweep_vec3 e_disp, sweep__scene_result *out);

#endif
