/*
 * history_impl.h - the inside of a sweep_history, shared by the ring
 * (history.c) and the queries that look back into it (query*.c). Not
 * installed, not public.
 *
 * Invariants, kept by sweep_history_push:
 *   - frames[] is a ring of `capacity` slots; the `count` frames kept start
 *     at slot `head` (the oldest) and their ticks run oldest_tick,
 *     oldest_tick + 1, ... without a gap.
 *   - A frame's entities lie sorted by id, ids unique, in slots
 *     frame * max_entities .. + count of ents[]; entity e's shapes in
 *     shapes[e_slot * SWEEP_HIT_SHAPES_MAX ..], relative to its position.
 *   - An entity's box (lo, hi) holds its collision ellipsoid and every hit
 *     shape, in world coordinates, widened (sweep__history_widen) far
 *     beyond the rounding of any pose interpolated between it and the same
 *     entity's box of the next or previous tick: so a query that misses
 *     the union of an entity's two boxes misses it at every fraction.
 *   - A frame's box holds every box of its entities (empty: lo > hi).
 */
#ifndef SWEEP_CORE_HISTORY_IMPL_H
#define SWEEP_CORE_HISTORY_IMPL_H

#include <stdint.h>

#include "core/history.h"
#include "core/mover.h"
#include "core/vec3.h"

/* How far a shape may reach from its entity's position, in multiples of
 * the entity's largest radius (sweep_history_push's check). */
#define SWEEP__HISTORY_REACH 4.0

typedef struct sweep__hist_entity {
    uint64_t id;
    sweep_vec3 position, radii;
    sweep_vec3 lo, hi;
    uint32_t shape_count;
} sweep__hist_entity;

typedef struct sweep__hist_frame {
    uint64_t tick;
    uint32_t count;
    sweep_vec3 lo, hi;
} sweep__hist_frame;

struct sweep_history {
    uint32_t capacity, max_entities, mover_count;
    uint32_t head, count;
    uint64_t oldest_tick;
    sweep__hist_frame *frames;
    sweep__hist_entity *ents;
    sweep_hit_shape *shapes;
    sweep_mover_pose *movers;
    uint32_t *order, *scratch; /* push's sort, max_entities each */
};

/* A past time resolved to the frames it lies between: f0 alone when
 * fraction is 0 (two == 0), else f0 and the next, f1, at fraction f. */
typedef struct sweep__hist_at {
    const sweep_history *h;
    const sweep__hist_frame *f0, *f1;
    const sweep__hist_entity *e0, *e1; /* the two frames' entities */
    const sweep_hit_shape *s0, *s1;    /* and their shapes */
    const sweep_mover_pose *m0, *m1;   /* and movers' poses */
    double f;
    int two;
} sweep__hist_at;

/* An entity at the resolved time: world position and radii, and its hit
 * shapes with a and b in world coordinates. */
typedef struct sweep__hist_pose {
    uint64_t id;
    sweep_vec3 position, radii;
    uint32_t shape_count;
    sweep_hit_shape shapes[SWEEP_HIT_SHAPES_MAX];
} sweep__hist_pose;

/* One entity present at the resolved time: its index in f0 and, when it
 * is also kept at f1, there (else UINT32_MAX); its box over both. */
typedef struct sweep__hist_ref {
    uint32_t i0, i1;
    sweep_vec3 lo, hi;
} sweep__hist_ref;

typedef struct sweep__hist_iter {
    const sweep__hist_at *at;
    uint32_t i, j;
} sweep__hist_iter;

/* SWEEP_OK and *at for a tick and fraction the history holds; SWEEP_E_TIME
 * for a tick outside it, a fraction outside [0, 1) or one reaching past the
 * newest tick; SWEEP_E_NONFINITE for a NaN fraction. */
sweep_status sweep__history_at(const sweep_history *h, uint64_t tick, double fraction, sweep__hist_at *at);

/* The box of every entity at the resolved time (lo > hi when none). */
void sweep__history_box(const sweep__hist_at *at, sweep_vec3 *lo, sweep_vec3 *hi);

static inline void sweep__history_iter_begin(sweep__hist_iter *it, const sweep__hist_at *at)
{
    it->at = at, it->i = 0, it->j = 0;
}

/* The next entity present at the resolved time, in id order; 0 when done. */
int sweep__history_iter_next(sweep__hist_iter *it, sweep__hist_ref *ref);

/* The interpolated pose of an entity the iterator gave. */
void sweep__history_pose(const sweep__hist_at *at, const sweep__hist_ref *ref, sweep__hist_pose *out);

/* Mover m's pose at the resolved time (m < the history's mover_count). */
sweep_mover_pose sweep__history_mover(const sweep__hist_at *at, uint32_t m);

#endif
