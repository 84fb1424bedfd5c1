/*
 * scene_cull.h - the gathering's plane test: which triangles near a move
 * no sweep of it can touch (scene.c keeps the others), one triangle at a
 * time or, with SSE2, two at once in the two lanes of a double vector.
 * Internal to core/; a header so that the scene inlines it and
 * tests/core/test_scene_cull.c can hold the two forms against each other.
 *
 * The two-lane form makes, in each lane, the very operations of the one
 * triangle form in the same order (IEEE double products, sums and
 * ordered comparisons, which SSE2 rounds and compares as the scalar code
 * does), so it answers the same bits: the gathering keeps the same
 * triangles, in the same order, whichever form it uses.
 */
#ifndef SWEEP_CORE_SCENE_CULL_H
#define SWEEP_CORE_SCENE_CULL_H

#include <math.h>

#include "core/vec3.h"
#include "core/world_impl.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

/*
 * The box every centre of every sweep that uses the kept triangles stays
 * in, in world space: such a sweep's box, its path padded by 1.001 radii,
 * lies inside [lo, hi], so its path lies inside [lo, hi] shrunk by one
 * radius (the other thousandth of a radius is far more than the rounding
 * of the round trip through eSpace).
 */
typedef struct sweep__centre_box {
    sweep_vec3 c, h; /* centre, half size */
    sweep_vec3 radii;
    double margin;   /* 1e-6 (1 + |x| + |a|) for any x in the box and any vertex a of the world */
    float min_size;  /* 1e-4 of the size of the box grown by the radii */
} sweep__centre_box;

/* Not tiny beside the box either (its size bounds how far the eSpace
 * test's rounding of the plane can tilt it over the box): in float. */
static inline int sweep__cull_big(const sweep__centre_box *cb, const sweep__tri_box *tb)
{
    return (tb->hi[0] - tb->lo[0]) + (tb->hi[1] - tb->lo[1]) + (tb->hi[2] - tb->lo[2]) >= cb->min_size;
}

/*
 * Can no sweep whose centre stays in cb touch the triangle of plane pl and
 * box tb? True when the plane test of sweep__sphere_sweep_prepared ends
 * each of them: the whole box lies behind the triangle's plane (in eSpace
 * the same side: scaling the axes keeps the sign of the orientation
 * test), or in front of it beyond the ellipsoid's reach along its normal
 * (the support radius |n * radii|), so that each sweep starts and ends
 * (tmax <= 1) clear of the slab. The float plane is off the exact one by
 * less than 1.3e-7 (|x| + |a|) at x (its normal by 2^-24 an axis, its
 * offset by 2^-24 of itself), and the eSpace test's sign is good to about
 * 1e-8 |x - a| for the triangles that have a plane (world_impl.h: neither
 * needles nor tiny beside their distance from the origin) and are not
 * tiny beside the box (min_size: at most ten thousand of their sizes
 * away); the margin, 1e-6 (|x| + |a| + 1) with |a| bounded by the world's
 * far corner, covers both many times over. These are mostly back faces
 * and floors below a body that does not fall far: about half the
 * triangles a move meets on the corpus (the bumpy floor of
 * tests/core/test_scene.c checks the bits). Dropping them here, at about
 * 40 instructions each, spares each later sweep of the move its box test
 * and plane test, and their preparation.
 */
static inline int sweep__culled(const sweep__centre_box *cb, const sweep__tri_plane *pl, const sweep__tri_box *tb)
{
    double nx = pl->n[0], ny = pl->n[1], nz = pl->n[2];
    double mid = nx * cb->c.x + ny * cb->c.y + nz * cb->c.z - pl->d;
    double spread = fabs(nx) * cb->h.x + fabs(ny) * cb->h.y + fabs(nz) * cb->h.z;
    double margin = cb->margin;
    double clear = mid - spread - margin;
    double rx = nx * cb->radii.x, ry = ny * cb->radii.y, rz = nz * cb->radii.z;
    int behind = mid + spread < -margin;
    int beyond = (clear > 0.0) & (clear * clear > (rx * rx + ry * ry + rz * rz) * (1.0 + 1e-5));
    return (behind | beyond) & sweep__cull_big(cb, tb);
}

#ifdef __SSE2__
/* cb's numbers, each in both lanes, made once per gathering. */
typedef struct sweep__centre_box2 {
    __m128d cx, cy, cz, hx, hy, hz, rx, ry, rz, neg_margin, margin;
} sweep__centre_box2;

static inline void sweep__centre_box2_init(sweep__centre_box2 *v, const sweep__centre_box *cb)
{
    v->cx = _mm_set1_pd(cb->c.x), v->cy = _mm_set1_pd(cb->c.y), v->cz = _mm_set1_pd(cb->c.z);
    v->hx = _mm_set1_pd(cb->h.x), v->hy = _mm_set1_pd(cb->h.y), v->hz = _mm_set1_pd(cb->h.z);
    v->rx = _mm_set1_pd(cb->radii.x), v->ry = _mm_set1_pd(cb->radii.y), v->rz = _mm_set1_pd(cb->radii.z);
    v->neg_margin = _mm_set1_pd(-cb->margin), v->margin = _mm_set1_pd(cb->margin);
}

/* sweep__culled of triangles i and j of planes and boxes: bit 0 for i,
 * bit 1 for j. Lane 0 is i, lane 1 is j; each lane's expressions are
 * sweep__culled's, term by term and in its order. Reads the float after
 * each box (boxes as the world keeps them). */
static inline unsigned sweep__culled_pair(const sweep__centre_box *cb, const sweep__centre_box2 *v,
                                          const sweep__tri_plane *planes, const sweep__tri_box *boxes, uint32_t i,
                                          uint32_t j)
{
    __m128 pi = _mm_loadu_ps(planes[i].n), pj = _mm_loadu_ps(planes[j].n);
    __m128d xy_i = _mm_cvtps_pd(pi), zd_i = _mm_cvtps_pd(_mm_movehl_ps(pi, pi));
    __m128d xy_j = _mm_cvtps_pd(pj), zd_j = _mm_cvtps_pd(_mm_movehl_ps(pj, pj));
    __m128d nx = _mm_unpacklo_pd(xy_i, xy_j), ny = _mm_unpackhi_pd(xy_i, xy_j);
    __m128d nz = _mm_unpacklo_pd(zd_i, zd_j), d = _mm_unpackhi_pd(zd_i, zd_j);
    const __m128d sign = _mm_set1_pd(-0.0);
    __m128d mid = _mm_sub_pd(
        _mm_add_pd(_mm_add_pd(_mm_mul_pd(nx, v->cx), _mm_mul_pd(ny, v->cy)), _mm_mul_pd(nz, v->cz)), d);
    __m128d spread = _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_andnot_pd(sign, nx), v->hx),
                                           _mm_mul_pd(_mm_andnot_pd(sign, ny), v->hy)),
                                _mm_mul_pd(_mm_andnot_pd(sign, nz), v->hz));
    __m128d clear = _mm_sub_pd(_mm_sub_pd(mid, spread), v->margin);
    __m128d rx = _mm_mul_pd(nx, v->rx), ry = _mm_mul_pd(ny, v->ry), rz = _mm_mul_pd(nz, v->rz);
    __m128d reach = _mm_add_pd(_mm_add_pd(_mm_mul_pd(rx, rx), _mm_mul_pd(ry, ry)), _mm_mul_pd(rz, rz));
    __m128d behind = _mm_cmplt_pd(_mm_add_pd(mid, spread), v->neg_margin);
    __m128d beyond = _mm_and_pd(_mm_cmpgt_pd(clear, _mm_setzero_pd()),
                                _mm_cmpgt_pd(_mm_mul_pd(clear, clear), _mm_mul_pd(reach, _mm_set1_pd(1.0 + 1e-5))));
    unsigned out = (unsigned)_mm_movemask_pd(_mm_or_pd(behind, beyond));
    /* sweep__cull_big of both in float: each box's three sizes in lanes
     * 0-2 (lane 3 reads the next box, or the zero box after the last:
     * world_impl.h, and is dropped), then ((x + y) + z) for i in lane 0
     * and j in lane 1. */
    __m128 size_i = _mm_sub_ps(_mm_loadu_ps(boxes[i].hi), _mm_loadu_ps(boxes[i].lo));
    __m128 size_j = _mm_sub_ps(_mm_loadu_ps(boxes[j].hi), _mm_loadu_ps(boxes[j].lo));
    __m128 xy = _mm_unpacklo_ps(size_i, size_j), zw = _mm_unpackhi_ps(size_i, size_j);
    __m128 sum = _mm_add_ps(_mm_add_ps(xy, _mm_movehl_ps(xy, xy)), zw);
    unsigned big = (unsigned)_mm_movemask_ps(_mm_cmpge_ps(sum, _mm_set1_ps(cb->min_size))) & 3u;
    return out & big;
}
#endif

#endif
