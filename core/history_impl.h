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
 *     frame * max_entities .. + count of ents[]. Each names its set: its
 *     radii and hit shapes, with what is derived from them (sets[set]).
 *     A push writes the sets of its tick into the pool of that tick,
 *     tick % pools: sets[pool * max_entities ..], their shapes packed in
 *     shapes[pool * max_shapes ..], relative to the position. An entity
 *     whose radii and shapes are the bits of the tick before names the
 *     same set again, while that set is less than set_ticks old; so a set
 *     born at tick t is named by frames t .. t + set_ticks - 1 at most,
 *     all forgotten by the time tick t + pools (pools = capacity +
 *     set_ticks - 1) writes over its pool.
 *   - An entity's box (fbox[e_slot * 12 + 0 .. 6), float) holds its
 *     collision ellipsoid and every hit shape, in world coordinates,
 *     widened far beyond the rounding of any pose interpolated between it
 *     and the same entity's box of the next or previous tick: so a query
 *     that misses the union of an entity's two boxes misses it at every
 *     fraction. The set's rel is that box less the position, before the
 *     widening.
 *   - A frame's box holds every box of its entities (empty: lo > hi).
 *   - Every frame but the newest has each entity's next and its float
 *     span box (fbox[.. + 6 .. 12)) set for the frame after it (an entity
 *     gone by then spans its own box); the newest's are unset.
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

/* The flag of scratch[] above; max_entities stays below it. */
#define SWEEP__HIST_SAME 0x80000000u

/* How many ticks at most a set of radii and shapes is named before a
 * push writes it again (the invariants above; a ring shorter than this,
 * its capacity): its pool is kept set_ticks - 1 ticks past the frames,
 * which costs as many more pools, and a set that lasts is copied once
 * every set_ticks pushes instead of every push. */
#define SWEEP__HISTORY_SET_TICKS 8u

/* An entity's radii and hit shapes as one or more ticks kept them. rmin
 * and rmax: the least and largest radius of its ellipsoids (its collision
 * ellipsoid and its ellipsoid shapes), which bound how far a sweep grows
 * them (query.h). rel: the box of the ellipsoid and shapes less the
 * position (lo xyz, hi xyz), rounded outwards to float, and relmax its
 * largest magnitude. born: the low 32 bits of the tick that wrote it. */
typedef struct sweep__hist_set {
    sweep_vec3 radii;
    double rmin, rmax;
    uint32_t first, shape_count; /* its shapes in the history's shapes[] */
    uint32_t born;
    float relmax;
    float rel[6];
} sweep__hist_set;

/* What a frame writes for an entity each tick: 40 bytes, so a push
 * stores fewer cache lines than a record with radii and shapes would. */
typedef struct sweep__hist_entity {
    uint64_t id;
    sweep_vec3 position;
    uint32_t set; /* sets[set] */
    /* Set when the next tick is pushed: the entity's index there (or
     * UINT32_MAX); its box over both ticks is fbox's span, so that a
     * query between the two reads one box, with no search. */
    uint32_t next;
} sweep__hist_entity;

typedef struct sweep__hist_frame {
    uint64_t tick;
    uint32_t count;
    sweep_vec3 lo, hi;
    double rmin, rmax; /* over its entities */
} sweep__hist_frame;

struct sweep_history {
    uint32_t capacity, max_entities, max_shapes, mover_count;
    uint32_t set_ticks, pools;
    uint32_t head, count;
    uint64_t oldest_tick;
    sweep__hist_frame *frames;
    sweep__hist_entity *ents;
    sweep__hist_set *sets;
    sweep_hit_shape *shapes;
    sweep_mover_pose *movers;
    /* Each entity's box and span box, in float, widened outwards (lo, hi,
     * span lo, span hi: 12 floats), side by side: a query's first cut
     * reads 48 bytes an entity, not its whole record. */
    float *fbox;
    /* push's sort, max_entities each; then scratch[i] is where the i-th
     * entity by id was the tick before (NO_INDEX: not there), with
     * SWEEP__HIST_SAME when its radii and shapes were the same bits. */
    uint32_t *order, *scratch;
};

/* A past time resolved to the frames it lies between: f0 alone when
 * fraction is 0 (two == 0), else f0 and the next, f1, at fraction f. */
typedef struct sweep__hist_at {
    const sweep_history *h;
    const sweep__hist_frame *f0, *f1;
    const sweep__hist_entity *e0, *e1; /* the two frames' entities */
    const sweep_mover_pose *m0, *m1;   /* and movers' poses */
    const float *fbox;                 /* f0's float boxes */
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
    uint32_t i;
} sweep__hist_iter;

/* SWEEP_OK and *at for a tick and fraction the history holds; SWEEP_E_TIME
 * for a tick outside it, a fraction outside [0, 1) or one reaching past the
 * newest tick; SWEEP_E_NONFINITE for a NaN fraction. */
sweep_status sweep__history_at(const sweep_history *h, uint64_t tick, double fraction, sweep__hist_at *at);

/* The box of every entity at the resolved time (lo > hi when none), and
 * the largest radius over the least of all their ellipsoids. */
void sweep__history_box(const sweep__hist_at *at, sweep_vec3 *lo, sweep_vec3 *hi, double *aniso);

static inline void sweep__history_iter_begin(sweep__hist_iter *it, const sweep__hist_at *at)
{
    it->at = at, it->i = 0;
}

/* The set entity record e names. */
static inline const sweep__hist_set *sweep__history_set(const sweep__hist_at *at, const sweep__hist_entity *e)
{
    return &at->h->sets[e->set];
}

/* The largest radius over the least, for radii between two ticks'. */
static inline double sweep__history_aniso(double rmin0, double rmax0, double rmin1, double rmax1)
{
    double lo = rmin0 < rmin1 ? rmin0 : rmin1, hi = rmax0 > rmax1 ? rmax0 : rmax1;
    return lo > 0.0 && hi > lo ? hi / lo : 1.0;
}

/* Entity i of f0 (i < f0->count) at the resolved time. */
static inline void sweep__history_ref(const sweep__hist_at *at, uint32_t i, sweep__hist_ref *ref)
{
    const float *b = &at->fbox[(size_t)i * 12 + (at->two ? 6 : 0)];
    ref->i0 = i;
    ref->i1 = at->two ? at->e0[i].next : UINT32_MAX;
    ref->lo = sweep_v3(b[0], b[1], b[2]), ref->hi = sweep_v3(b[3], b[4], b[5]);
}

/* The largest radius over the least of a ref's ellipsoids, at both ticks:
 * apart from the ref, as only a sweep's cut needs it. */
static inline double sweep__history_ref_aniso(const sweep__hist_at *at, const sweep__hist_ref *ref)
{
    const sweep__hist_entity *e = &at->e0[ref->i0], *e1 = ref->i1 == UINT32_MAX ? e : &at->e1[ref->i1];
    const sweep__hist_set *s = sweep__history_set(at, e), *s1 = sweep__history_set(at, e1);
    return sweep__history_aniso(s->rmin, s->rmax, s1->rmin, s1->rmax);
}

/* Entity i's float box at the resolved time (its own, or its span): lo
 * in [0..2], hi in [3..5], ref's box. */
static inline const float *sweep__history_fbox(const sweep__hist_at *at, uint32_t i)
{
    return &at->fbox[(size_t)i * 12 + (at->two ? 6 : 0)];
}

/* The next entity present at the resolved time, in id order; 0 when done.
 * Inline: a query runs it for every entity. */
static inline int sweep__history_iter_next(sweep__hist_iter *it, sweep__hist_ref *ref)
{
    if (it->i >= it->at->f0->count)
        return 0;
    sweep__history_ref(it->at, it->i++, ref);
    return 1;
}

/* The interpolated pose of an entity the iterator gave. */
void sweep__history_pose(const sweep__hist_at *at, const sweep__hist_ref *ref, sweep__hist_pose *out);

/* Mover m's pose at the resolved time (m < the history's mover_count):
 * interpolated as history.h says, or the kept pose itself when the mover
 * kept the same pose at both ticks. */
sweep_mover_pose sweep__history_mover(const sweep__hist_at *at, uint32_t m);

#endif
