/*
 * volume_step.h - internal: what the world's volumes do after one step of
 * sweep_act (core/volume.h says the rule; core/motion.c calls it). Not
 * installed.
 */
#ifndef SWEEP_CORE_VOLUME_STEP_H
#define SWEEP_CORE_VOLUME_STEP_H

#include "core/crowd.h"
#include "core/motion.h"
#include "core/volume.h"
#include "core/world_impl.h"

/* Applies the volumes of space->world to *a, which a step of h seconds
 * took from `from` to where it is now, and adds what they did to *rep.
 * Returns 1 when the move ends here (a kill volume), 0 to go on. */
int sweep__volumes_step(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 from,
                        sweep_actor *a, double h, sweep_volume_report *rep);

/* The same, with the test every step of a world without volumes makes
 * inline; liquids and ladders are not this pass's (core/medium.h), so a
 * world of only those skips it too. */
static inline int sweep__volumes_after_step(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii,
                                            sweep_vec3 from, sweep_actor *a, double h, sweep_volume_report *rep)
{
    const sweep_world *w = space->world;
    return w->volume_count != w->volume_mode_count ? sweep__volumes_step(space, cfg, radii, from, a, h, rep) : 0;
}

#endif
