/*
 * bvh_walk.h - the walk of a world's 4-wide BVH: the triangles of every
 * leaf whose box meets a query box, depth first, first child first, which
 * is the order of the world's tris[] (world_impl.h). Each node's four
 * child boxes are met by one SSE comparison per axis and side (Wald,
 * Benthin, Wachter and Slusallek, "Getting Rid of Packets", 2008). The
 * leaves reached, and their order, are those of the binary tree the wide
 * one was collapsed from, since a child's box is its binary node's and
 * boxes nest. Internal to core/; header-only so that the scene inlines it.
 *
 * Invariants (asserted in checked builds: core/check.h): a child taken
 * from the stack is a node of the world or a leaf within its tris[]; and
 * before a push the stack has room for four children, since it holds at
 * most three a level above the node being opened (the others of each
 * level's four) and no path is deeper than SWEEP__BVH_MAX_DEPTH.
 */
#ifndef SWEEP_CORE_BVH_WALK_H
#define SWEEP_CORE_BVH_WALK_H

#include <stdint.h>

#include "core/check.h"
#include "core/world_impl.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

/* A query box ready to meet the four children of a node: its float form
 * widened (it holds the double box, so no child the double box touches
 * is missed) and, with SSE, each bound in all four lanes. */
typedef struct sweep__bvh_box {
    sweep__tri_box f;
#ifdef __SSE2__
    __m128 lo[3], hi[3];
#endif
} sweep__bvh_box;

/* From a float box already widened. */
static inline void sweep__bvh_box_set(sweep__bvh_box *b, const sweep__tri_box *f)
{
    b->f = *f;
#ifdef __SSE2__
    for (int a = 0; a < 3; a++)
        b->lo[a] = _mm_set1_ps(f->lo[a]), b->hi[a] = _mm_set1_ps(f->hi[a]);
#endif
}

static inline void sweep__bvh_box_init(sweep__bvh_box *b, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep__tri_box f;
    f.lo[0] = sweep__widen_down(lo.x), f.lo[1] = sweep__widen_down(lo.y), f.lo[2] = sweep__widen_down(lo.z);
    f.hi[0] = sweep__widen_up(hi.x), f.hi[1] = sweep__widen_up(hi.y), f.hi[2] = sweep__widen_up(hi.z);
    sweep__bvh_box_set(b, &f);
}

/* Which children of n meet b (bit k: child k). The same comparisons
 * with SSE or without (query lo <= child hi, query hi >= child lo, on each
 * axis), so the same answers; an unused child's NaN bounds fail both. */
static inline unsigned sweep__bvh_children_meeting(const sweep__node *n, const sweep__bvh_box *b)
{
#ifdef __SSE2__
    __m128 ok = _mm_and_ps(_mm_cmple_ps(b->lo[0], _mm_loadu_ps(n->hi[0])),
                           _mm_cmpge_ps(b->hi[0], _mm_loadu_ps(n->lo[0])));
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmple_ps(b->lo[1], _mm_loadu_ps(n->hi[1])),
                                   _mm_cmpge_ps(b->hi[1], _mm_loadu_ps(n->lo[1]))));
    ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmple_ps(b->lo[2], _mm_loadu_ps(n->hi[2])),
                                   _mm_cmpge_ps(b->hi[2], _mm_loadu_ps(n->lo[2]))));
    return (unsigned)_mm_movemask_ps(ok);
#else
    const sweep__tri_box *f = &b->f;
    unsigned m = 0;
    for (unsigned k = 0; k < SWEEP__BVH_WIDTH; k++)
        if (f->lo[0] <= n->hi[0][k] && f->hi[0] >= n->lo[0][k] && f->lo[1] <= n->hi[1][k] &&
            f->hi[1] >= n->lo[1][k] && f->lo[2] <= n->hi[2][k] && f->hi[2] >= n->lo[2][k])
            m |= 1u << k;
    return m;
#endif
}

/* Checked builds: is e a node of w or a leaf within w's tris[]? */
static inline int sweep__bvh_child_ok(const sweep_world *w, sweep__child e)
{
    return e.count == 0 ? e.first < w->node_count : (uint64_t)e.first + e.count <= w->tri_count;
}

/* Pushes the children of node `at` that meet b, the last first, so that
 * the first is taken next. With a branch on each: pushing all four and
 * counting only those that meet, without branches, made the next node's
 * address wait for this node's test, and cost up to 8% on the lighter
 * levels of the corpus, where these branches are well predicted. */
static inline void sweep__bvh_push(sweep__child *stack, uint32_t *sp, const sweep__node *nodes, uint32_t at,
                                   const sweep__bvh_box *b)
{
    const sweep__node *q = &nodes[at];
    unsigned m = sweep__bvh_children_meeting(q, b);
    uint32_t n = *sp;
    SWEEP_CORE_CHECK(n + SWEEP__BVH_WIDTH <= SWEEP__BVH_STACK);
    if (m & 8)
        stack[n++] = q->child[3];
    if (m & 4)
        stack[n++] = q->child[2];
    if (m & 2)
        stack[n++] = q->child[1];
    if (m & 1)
        stack[n++] = q->child[0];
    *sp = n;
}

/* A walk in progress: the children met and not yet taken, and the
 * triangles left in the current leaf. */
typedef struct sweep__bvh_walk {
    const sweep_world *w;
    sweep__bvh_box box;
    sweep__child stack[SWEEP__BVH_STACK];
    uint32_t sp;
    uint32_t next, end;
} sweep__bvh_walk;

static inline void sweep__bvh_walk_begin(sweep__bvh_walk *it, const sweep_world *w, sweep_vec3 lo, sweep_vec3 hi)
{
    it->w = w;
    sweep__bvh_box_init(&it->box, lo, hi);
    it->sp = 0;
    it->next = it->end = 0;
    if (w->tri_count > 0)
        sweep__bvh_push(it->stack, &it->sp, w->nodes, 0, &it->box);
}

/* The next triangle (its position in w->tris) in *out; 0 when done. */
static inline int sweep__bvh_walk_next(sweep__bvh_walk *it, uint32_t *out)
{
    while (it->next == it->end) {
        if (it->sp == 0)
            return 0;
        /* Every child on the stack meets the box: children are tested
         * before they are pushed. */
        sweep__child e = it->stack[--it->sp];
        SWEEP_CORE_CHECK(sweep__bvh_child_ok(it->w, e));
        if (e.count == 0) {
            sweep__bvh_push(it->stack, &it->sp, it->w->nodes, e.first, &it->box);
            continue;
        }
        it->next = e.first;
        it->end = e.first + e.count;
    }
    *out = it->next++;
    return 1;
}

#endif
