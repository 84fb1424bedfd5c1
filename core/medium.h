/*
 * medium.h - internal: what a body is in that decides how it moves, the
 * world's liquids and ladders (core/volume.h says how they are tested,
 * core/motion.h what each mode does). Not installed.
 */
#ifndef SWEEP_CORE_MEDIUM_H
#define SWEEP_CORE_MEDIUM_H

#include <stdint.h>

#include "core/vec3.h"
#include "core/volume.h"
#include "core/world_impl.h"

/* No ladder (sweep__medium.ladder). */
#define SWEEP__NO_LADDER UINT32_MAX

typedef struct sweep__medium {
    uint32_t level;  /* 0 none, 1 feet, 2 centre, 3 eyes in a liquid */
    uint32_t liquid; /* level > 0: the first liquid holding the feet */
    uint32_t ladder; /* the first ladder holding the centre, or SWEEP__NO_LADDER */
} sweep__medium;

/* The extent along the unit vector up of an ellipsoid of these radii (its
 * support), how far its top is above its centre. */
double sweep__medium_extent(sweep_vec3 radii, sweep_vec3 up);

/* The medium of a body centred at c whose extent along up is `extent`
 * in world w (which holds at least one liquid or ladder). */
void sweep__medium_at(const sweep_world *w, sweep_vec3 up, double extent, sweep_vec3 c, sweep__medium *m);

/* Adds to *rep what a step of h seconds that took the body from medium
 * `was` to `now` tells: entering and leaving a liquid, the liquid's
 * damage at the new depth, and where the body is now. */
void sweep__medium_report(const sweep_world *w, const sweep__medium *was, const sweep__medium *now, double h,
                          sweep_volume_report *rep);

#endif
