/*
 * query_impl.h - the pieces the queries of query.h are made of, shared by
 * the entry points (query.c), the walks over the level and the movers
 * (query_level.c), the tests against entity shapes (query_shapes.c) and
 * the tests' brute-force answers, which call the same narrow tests
 * without the BVH and without the boxes. Not installed, not public.
 *
 * A path is from o to o + d, t in [0, 1]. Every narrow test answers t
 * (a hit at t, with t <= the caller's limit) with the same arithmetic
 * whichever walk calls it, so a walk that skips nothing it should not
 * gives the brute force's bits.
 */
#ifndef SWEEP_CORE_QUERY_IMPL_H
#define SWEEP_CORE_QUERY_IMPL_H

#include <stdint.h>

#include "core/history_impl.h"
#include "core/mover_impl.h"
#include "core/query.h"
#include "core/world_impl.h"

/* How hits are kept: the first one, every one (in order, up to a
 * maximum), or whether there is any. */
typedef enum sweep__sink_mode { SWEEP__SINK_FIRST, SWEEP__SINK_ALL, SWEEP__SINK_ANY } sweep__sink_mode;

typedef struct sweep__sink {
    sweep__sink_mode mode;
    sweep_query_hit *hits; /* FIRST and ANY: one; ALL: max */
    uint32_t max, count;
    int more;
    /* No hit beyond this fraction can be kept: 1, the first hit's, or the
     * last kept when ALL is full. Walks skip what lies beyond it. */
    double limit;
    int done; /* ANY has its answer */
} sweep__sink;

void sweep__sink_init(sweep__sink *k, sweep__sink_mode mode, sweep_query_hit *hits, uint32_t max);

/* Would a hit at fraction t with this key be kept? (The cheap test before
 * a hit's point and normal are worked out.) */
int sweep__sink_wants(const sweep__sink *k, const sweep_query_hit *key);

/* Keeps h if it is among the hits kept (ties broken as query.h says: kind,
 * triangle, entity, shape; then the walk's order, which is fixed). */
void sweep__sink_offer(sweep__sink *k, const sweep_query_hit *h);

/* A resolved query: what it sees, at which time. */
typedef struct sweep__qctx {
    const sweep_world *world;
    const sweep_movers *movers;
    uint32_t flags;
    const uint64_t *ignore;
    uint32_t ignore_count;
    sweep__hist_at at;
    int has_at;   /* entities (and movers, if the history has them) from at */
    int movers_at; /* movers' poses from at, not their current ones */
} sweep__qctx;

/* The checks every query shares (query.h's errors), and its time
 * resolved. A filter with no target flag targets all three. */
sweep_status sweep__qctx_init(const sweep_query_space *s, const sweep_query_filter *f, sweep__qctx *q);

/* Mover m's pose at the query's time. */
sweep_mover_pose sweep__qctx_mover_pose(const sweep__qctx *q, uint32_t m);

/*
 * The ray test against one triangle: 1 for its front, 2 for its back (only
 * with back set), 0 for no hit at t in [0, tmax]. The edges are tested by
 * the signs of the volumes the ray spans with each edge (closed: a ray
 * through an edge or a corner hits), the distance by the plane; a ray in
 * the plane or parallel to it never hits.
 */
int sweep__ray_triangle(sweep_vec3 o, sweep_vec3 d, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, int back, double tmax,
                        double *t);

/* The hit's unit normal facing the ray: the triangle's normal, turned
 * round for a back-face hit (side 2). */
sweep_vec3 sweep__triangle_normal(sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, int side);

/* A mover's local triangle i placed at pose: the same expressions as
 * sweep__mover_place, so the same bits as the mover's own placement. */
static inline void sweep__place_tri(const sweep_mover_pose *pose, const sweep__tri *s, sweep__tri *out)
{
    out->a = sweep__pose_apply(pose, s->a);
    out->b = sweep__pose_apply(pose, s->b);
    out->c = sweep__pose_apply(pose, s->c);
    out->index = s->index;
    out->material = s->material;
}

/*
 * First hit of the path with a shape (world coordinates) grown by `grow`
 * (0 for a ray; a sweep's sphere radius, query.h says how an ellipsoid
 * grows): 1 and t in [0, tmax] and the unit outward normal at the hit
 * (facing the path), 0 for none. A path starting inside hits at t = 0.
 */
int sweep__ray_shape(sweep_vec3 o, sweep_vec3 d, const sweep_hit_shape *s, double grow, double tmax, double *t,
                     sweep_vec3 *normal);

/* The point of shape s nearest p (p itself when inside) in *q, and its
 * distance. */
double sweep__shape_nearest(sweep_vec3 p, const sweep_hit_shape *s, sweep_vec3 *q);

/* An entity's collision ellipsoid as a shape (id UINT32_MAX). */
sweep_hit_shape sweep__ellipsoid_shape(sweep_vec3 position, sweep_vec3 radii);

/* The hit shapes a query meets of an entity: its own, or its ellipsoid
 * when it has none or the filter asks for ellipsoids. */
uint32_t sweep__entity_shapes(const sweep__qctx *q, const sweep__hist_pose *p, const sweep_hit_shape **shapes,
                              sweep_hit_shape *scratch);

/* An entity's shapes met by a path (grown by grow), offered. */
void sweep__offer_entity(sweep__sink *k, const sweep__qctx *q, const sweep__hist_pose *p, sweep_vec3 o, sweep_vec3 d,
                         double grow);

/* Meets everything the query's flags name along a path (a ray when radii
 * is NULL): the walks, or the tests' oracle. */
typedef void (*sweep__path_fn)(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, const sweep_vec3 *radii,
                               sweep__sink *k);

/* An entity an overlap reaches: put into found[0 .. *n) (nearest first,
 * after equal distances, at most max, *more set when one is left out) if
 * it is not ignored, its nearest shape is within radius, and, when the
 * flags name the level or movers, `view` meets none of them on the way
 * from the centre to that point. */
void sweep__overlap_entity(const sweep__qctx *q, const sweep__hist_ref *ref, sweep_vec3 center, double radius,
                           sweep__path_fn view, sweep_query_found *found, uint32_t max, uint32_t *n, int *more);

/* Is id in the filter's ignore list? */
int sweep__ignored(const sweep__qctx *q, uint64_t id);

/* A path ready for slab tests against boxes (Kay and Kajiya, "Ray
 * Tracing Complex Scenes", 1986). An axis the path hardly moves along
 * (|d| < 1e-200, flat) bounds no t: the box's extent there is met by the
 * path's instead (a time would be 0 / 0 for a path on the box's side). */
typedef struct sweep__slabs {
    double o[3], inv[3];
    int flat[3], any_flat;
} sweep__slabs;

void sweep__slabs_init(sweep__slabs *r, sweep_vec3 o, sweep_vec3 d);

/* A flat axis of a slab test: 0 when the path's extent there (within
 * 1e-200, and 2^-40 of itself, of o) misses the box's lo..hi, else its
 * times unbounded. NaN bounds miss. */
static inline int sweep__slab_flat(double lo, double hi, double o, double *n, double *f)
{
    double m = fabs(o) * 0x1p-40 + 1e-200;
    *n = -INFINITY, *f = INFINITY;
    return lo - m <= o && o <= hi + m;
}

/*
 * Does the path meet the box (lox..hiz) at some t in [0, limit]? Its entry
 * (less the margin) in *entry. Conservative: a box is missed only when the
 * path misses it by far more than the rounding of the test (2^-40 of the
 * times compared, and of 1). No branch but the answer, and whether an
 * axis is flat: a walk tests four boxes a node. An empty box or NaN
 * bounds meet nothing.
 */
static inline int sweep__slab_meets(const sweep__slabs *r, double lox, double loy, double loz, double hix, double hiy,
                                    double hiz, double limit, double *entry)
{
    double ax = (lox - r->o[0]) * r->inv[0], bx = (hix - r->o[0]) * r->inv[0];
    double ay = (loy - r->o[1]) * r->inv[1], by = (hiy - r->o[1]) * r->inv[1];
    double az = (loz - r->o[2]) * r->inv[2], bz = (hiz - r->o[2]) * r->inv[2];
    double nx = ax < bx ? ax : bx, fx = ax < bx ? bx : ax;
    double ny = ay < by ? ay : by, fy = ay < by ? by : ay;
    double nz = az < bz ? az : bz, fz = az < bz ? bz : az;
    if (r->any_flat && ((r->flat[0] && !sweep__slab_flat(lox, hix, r->o[0], &nx, &fx)) ||
                        (r->flat[1] && !sweep__slab_flat(loy, hiy, r->o[1], &ny, &fy)) ||
                        (r->flat[2] && !sweep__slab_flat(loz, hiz, r->o[2], &nz, &fz)))) {
        *entry = INFINITY;
        return 0;
    }
    double tnear = nx > ny ? nx : ny, tfar = fx < fy ? fx : fy;
    tnear = nz > tnear ? nz : tnear, tfar = fz < tfar ? fz : tfar;
    double slack = (fabs(tnear) + fabs(tfar)) * 0x1p-40 + 0x1p-40;
    *entry = tnear - slack;
    /* Written so that a NaN anywhere answers no. */
    return tnear <= tfar + slack && tfar >= -slack && *entry <= limit && lox <= hix;
}

static inline int sweep__slab_test(const sweep__slabs *r, const double lo[3], const double hi[3], double limit,
                                   double *entry)
{
    return sweep__slab_meets(r, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], limit, entry) && lo[1] <= hi[1] &&
           lo[2] <= hi[2];
}

/* The walks: every level triangle, every mover triangle a path can reach,
 * offered to the sink. grow is 0 for a ray; a sweep passes its radii. */
void sweep__level_ray(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep__sink *k);
void sweep__movers_ray(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep__sink *k);
void sweep__level_sweep(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep__sink *k);
void sweep__movers_sweep(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep__sink *k);

/* One triangle's hit made into a query hit and offered: the ray's and the
 * sweep's, for the walks and the brute force alike. */
void sweep__offer_ray_tri(sweep__sink *k, sweep_vec3 o, sweep_vec3 d, const sweep__tri *t, uint32_t kind,
                          uint32_t mover, int back);
void sweep__offer_sweep_tri(sweep__sink *k, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep_vec3 inv_radii,
                            const sweep__tri *t, uint32_t kind, uint32_t mover, int back);

/* The shape a sweep of these radii grows an entity's shapes by (query.h):
 * its largest radius. */
double sweep__sweep_grow(sweep_vec3 radii);

#endif
