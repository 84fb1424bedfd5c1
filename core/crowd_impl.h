/*
 * crowd_impl.h - the inside of a sweep_crowd, shared by crowd.c (shells)
 * and scene.c (sweeps against them). Not installed.
 *
 * Invariants: tris[slot * SHELL .. + SHELL) is slot's shell in world space
 * when used[slot], with lo[slot] .. hi[slot] its exact box; a slot not used
 * holds nothing a sweep may read.
 */
#ifndef SWEEP_CORE_CROWD_IMPL_H
#define SWEEP_CORE_CROWD_IMPL_H

#include "core/crowd.h"
#include "core/world_impl.h"

struct sweep_crowd {
    uint32_t slots;
    uint8_t *used;
    sweep_vec3 *lo, *hi;
    sweep__tri *tris;
};

#endif
