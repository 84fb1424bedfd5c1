/*
 * query.h - questions asked of a world as it is or as it was: ray casts,
 * line of sight, swept spheres and ellipsoids, and overlaps. A shooter's
 * server asks them at the time the shooter saw (lag compensation); a
 * client may ask its own view the same questions with the same code.
 *
 * What a query can meet:
 *   - level triangles (the static world's BVH), front faces only by
 *     default, as a moving body meets them; SWEEP_QUERY_BACK_FACES makes
 *     a ray or sweep meet both sides;
 *   - movers' triangles at their pose at the queried time;
 *   - entities at their pose at the queried time (history.h), as their
 *     hit shapes or, without shapes, as their collision ellipsoid.
 * The ray/plane test follows "Collision Detection and Response" (chapter
 * 12 of a game programming course), a triangle's edges are met by signed
 * volumes (below); swept shapes
 * against triangles use the core's swept unit sphere in the shape's
 * ellipsoid space (Fauerby 2003), the same arithmetic a move uses.
 *
 * Order and ties: hits are ordered by distance along the path, and equal
 * distances by a stable key (kind: level, mover, entity; then triangle
 * number, or entity id and shape index). Every query is deterministic
 * (+ - * /, sqrt, comparisons only) and allocates nothing.
 *
 * Time: a query names a tick kept in the history plus a fraction in
 * [0, 1) of the tick after it (poses interpolated as history.h says). A
 * time outside the history, or a fraction reaching past the newest tick,
 * is SWEEP_E_TIME. Without a history (space.history NULL) a query sees the
 * level and the movers at their current poses, and no entities. A history
 * keeping no movers leaves the movers at their current poses too; one
 * keeping another number of movers than space.movers has is SWEEP_E_ARG.
 * A mover kept at the same pose at both ticks is at that pose, bit for bit.
 *
 * What is exact (to the rounding of + - * / and sqrt) and what is not:
 *   - a ray against a triangle: the plane gives the distance, the signs of
 *     the volumes the ray spans with the edges say inside, edges and
 *     corners included (a ray through a shared edge hits both triangles,
 *     and the lower number wins); a ray in a triangle's plane or parallel
 *     to it never hits it;
 *   - a ray against a sphere, a capsule or an ellipsoid: exact, each
 *     quadratic solved without cancellation (as swept_sphere.h does); a
 *     ray starting inside a shape hits it at 0, its normal against the
 *     ray;
 *   - a sweep against triangles: the move's own swept sphere in the
 *     sweep's ellipsoid space, exact as a move's contact is;
 *   - a sweep against entities is exact for a sphere (equal radii) against
 *     a sphere or a capsule: a ray against the shape grown by the sweep's
 *     radius. Otherwise conservative, never missing a contact and never
 *     later than it: an ellipsoid sweep is taken as the sphere of its
 *     largest radius R, and an entity's ellipsoid e as the ellipsoid
 *     e (1 + R / min(e)), which holds e grown by R (for a player's
 *     (0.4, 0.4, 0.9) and R = 0.1, 1.125 high where 1.0 is exact);
 *   - an overlap's nearest point: exact for spheres and capsules; on an
 *     ellipsoid found by bisection to the last bit of its root (Eberly,
 *     "Distance from a Point to an Ellipse, an Ellipsoid, or a
 *     Hyperellipsoid").
 * Broad phases (the level's BVH, the history's boxes, a ball round each
 * mover) are conservative: a query gives the bits a loop over every
 * triangle and every entity would (tests/core/test_query.c holds it to
 * that).
 */
#ifndef SWEEP_CORE_QUERY_H
#define SWEEP_CORE_QUERY_H

#include <stdint.h>

#include "core/history.h"
#include "core/mover.h"
#include "core/status.h"
#include "core/vec3.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef struct sweep_query_time {
    uint64_t tick;
    double fraction; /* [0, 1): 0 is the tick itself */
} sweep_query_time;

/* Everything a query can look at. */
typedef struct sweep_query_space {
    const sweep_world *world;      /* required */
    const sweep_movers *movers;    /* their meshes; NULL: no movers */
    const sweep_history *history;  /* poses over time; NULL: movers now, no entities */
    sweep_query_time at;
} sweep_query_space;

/* What a query may hit (flags), and whom it ignores. */
enum {
    SWEEP_QUERY_LEVEL = 1u << 0,
    SWEEP_QUERY_MOVERS = 1u << 1,
    SWEEP_QUERY_ENTITIES = 1u << 2,
    SWEEP_QUERY_ALL = SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS | SWEEP_QUERY_ENTITIES,
    SWEEP_QUERY_BACK_FACES = 1u << 3, /* triangles block from both sides */
    SWEEP_QUERY_ELLIPSOIDS = 1u << 4  /* entities as their ellipsoid even when they have hit shapes */
};

/* Most ids one filter may ignore: room for a caller's 16 and the two
 * endpoints a server adds (the shooter, a line of sight's target). */
#define SWEEP_QUERY_IGNORE_MAX 32u

/* The largest |coordinate| of a query's endpoints or an overlap's centre
 * (beyond: SWEEP_E_POSITION): the largest world a sweep_config allows, and
 * far enough inside a double's range that a path's length and its products
 * with the level's normals stay finite. */
#define SWEEP_QUERY_MAX_COORDINATE 1e12

/* A sweep's radii lie within [m * SWEEP_QUERY_RADIUS_SCALE,
 * SWEEP_QUERY_MAX_RADIUS], m the largest |coordinate| of its endpoints
 * (at least 1): within 2^40 of the path's scale, a contact is placed to
 * the last bits as a move's is; a smaller ball is a ray. */
#define SWEEP_QUERY_RADIUS_SCALE 0x1p-40
#define SWEEP_QUERY_MAX_RADIUS 1e6

/* With none of LEVEL, MOVERS and ENTITIES among the flags (0, or only
 * BACK_FACES or ELLIPSOIDS), a query meets all three; an unknown flag is
 * SWEEP_E_ARG. A NULL filter is flags 0 and no ignores. */
typedef struct sweep_query_filter {
    uint32_t flags;           /* SWEEP_QUERY_*; 0 means SWEEP_QUERY_ALL */
    const uint64_t *ignore;   /* entity ids never hit (the shooter) */
    uint32_t ignore_count;    /* <= SWEEP_QUERY_IGNORE_MAX */
} sweep_query_filter;

typedef enum sweep_hit_kind {
    SWEEP_HIT_NONE = 0,
    SWEEP_HIT_LEVEL = 1,
    SWEEP_HIT_MOVER = 2,
    SWEEP_HIT_ENTITY = 3
} sweep_hit_kind;

typedef struct sweep_query_hit {
    uint32_t kind;        /* sweep_hit_kind */
    uint32_t triangle;    /* level or mover triangle number; SWEEP_NO_TRIANGLE for an entity */
    uint32_t material;    /* the triangle's material; 0 for an entity */
    uint32_t mover;       /* SWEEP_NO_MOVER unless a mover was hit */
    uint64_t entity;      /* the entity's id; 0 unless an entity was hit */
    uint32_t shape;       /* the hit shape's id; UINT32_MAX for the ellipsoid */
    double fraction;      /* along the path, in [0, 1] */
    double distance;      /* fraction * path length, in map units */
    sweep_vec3 point;     /* on the surface hit (a sweep against an entity: the centre at the hit less
                             the normal times the sweep's largest radius) */
    sweep_vec3 normal;    /* unit, facing the query */
} sweep_query_hit;

/*
 * First hit of the segment from -> to. Returns SWEEP_OK with *hit filled
 * (kind SWEEP_HIT_NONE when nothing is in the way); SWEEP_E_NONFINITE,
 * SWEEP_E_POSITION (an endpoint beyond SWEEP_QUERY_MAX_COORDINATE; the
 * same for every query), SWEEP_E_ARG (NULL, more ignores than the
 * maximum, an unknown flag), SWEEP_E_TIME.
 */
sweep_status sweep_query_ray(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to,
                             const sweep_query_filter *f, sweep_query_hit *hit);

/* Every hit of the segment, in order, at most max of them (*count says how
 * many were written; *more, which may be NULL, is 1 if some were left
 * out). An entity hit through several of its shapes is one hit a shape. */
sweep_status sweep_query_ray_all(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to,
                                 const sweep_query_filter *f, sweep_query_hit *hits, uint32_t max, uint32_t *count,
                                 int *more);

/* *clear = 1 if nothing the filter lets through lies between from and to. */
sweep_status sweep_query_line_of_sight(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to,
                                       const sweep_query_filter *f, int *clear);

/*
 * First hit of an ellipsoid of these radii (a sphere when they are equal)
 * moving from -> to: a projectile, a melee swing. A shape that starts
 * overlapping something hits it at fraction 0. SWEEP_E_RADII for radii
 * outside the range SWEEP_QUERY_RADIUS_SCALE gives.
 */
sweep_status sweep_query_sweep(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, sweep_vec3 radii,
                               const sweep_query_filter *f, sweep_query_hit *hit);

/* One entity an overlap found. */
typedef struct sweep_query_found {
    uint64_t entity;
    double distance;   /* from the centre to the entity's nearest hit shape (0 when inside) */
    sweep_vec3 point;  /* that nearest point */
} sweep_query_found;

/*
 * Entities within `radius` of `center` at the queried time, nearest first
 * (ties by id), at most max (*count written, *more if some left out). With
 * SWEEP_QUERY_LEVEL (and _MOVERS) in the filter an entity counts only if a
 * ray from the centre to its nearest point is not blocked by them (an
 * explosion behind a wall); the ENTITIES flag is implied. SWEEP_E_RADII for a
 * radius below zero, SWEEP_E_NONFINITE for one not finite; more may be
 * NULL. Without a history there are no entities to find.
 */
sweep_status sweep_query_overlap(const sweep_query_space *s, sweep_vec3 center, double radius,
                                 const sweep_query_filter *f, sweep_query_found *found, uint32_t max,
                                 uint32_t *count, int *more);

#ifdef __cplusplus
}
#endif

#endif
