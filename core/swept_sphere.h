/*
 * swept_sphere.h - the narrow phase: a unit sphere moving in a straight line
 * against one triangle, in ellipsoid space (Fauerby 2003, section 3; the
 * SphereIntersectTriangle of "Collision Detection and Response", chapter 12
 * of a game programming course, with its embedded corrections).
 *
 * The sphere starts at `center` and moves by `disp` over t in [0, 1]. Only
 * the front of the triangle collides (the side cross(b - a, c - a) points
 * to); a centre behind the plane sees nothing.
 *
 * Two kinds of answer:
 *   - a sweep contact: the first t in [0, tmax] at which the sphere touches
 *     the face, an edge or a vertex, with the contact normal (from the
 *     contact point to the centre at that time);
 *   - an embedded start: the sphere already overlaps the triangle at t = 0.
 *     Then t = -(penetration depth) (so any embedded answer is "earlier"
 *     than any sweep contact, the deepest first) and the normal is the
 *     direction to push the centre out: the face normal over the interior,
 *     away from the closest edge or vertex point elsewhere.
 *
 * Robustness: every quadratic is solved in the cancellation-free form
 * t = 2C / (-B + sqrt(B^2 - 4AC)), which needs no division by a small A, so
 * parallel and zero motion, zero-length edges and needle triangles give "no
 * contact" or a finite answer, never NaN.
 */
#ifndef SWEEP_CORE_SWEPT_SPHERE_H
#define SWEEP_CORE_SWEPT_SPHERE_H

#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef enum sweep_feature {
    SWEEP_FEATURE_FACE = 0,
    SWEEP_FEATURE_EDGE = 1,
    SWEEP_FEATURE_VERTEX = 2
} sweep_feature;

typedef struct sweep_sphere_hit {
    double t;          /* contact time in [0, tmax], or -(penetration) when embedded */
    sweep_vec3 normal; /* unit */
    sweep_vec3 point;  /* contact point on the triangle (closest point when embedded) */
    sweep_feature feature;
    int embedded;
} sweep_sphere_hit;

/*
 * Returns 1 and fills *out if the unit sphere touches the front of triangle
 * (a, b, c) at some t <= tmax or starts embedded in it; 0 otherwise (then
 * *out is untouched).
 */
int sweep_sphere_sweep_triangle(sweep_vec3 center, sweep_vec3 disp, sweep_vec3 a, sweep_vec3 b,
                                sweep_vec3 c, double tmax, sweep_sphere_hit *out);

/*
 * A triangle with the quantities every sweep against it needs, computed
 * once (core/scene.c keeps one per candidate for a whole move, or takes the
 * world's, made for the body's radii when the world was prepared for them:
 * sweep_world_prepare_radii). The values come from the same expressions
 * sweep_sphere_sweep_triangle uses, so a prepared sweep returns the same
 * bits as an unprepared one. Never written by a sweep, so one prepared
 * triangle may serve many threads.
 */
typedef struct sweep__tri_prep {
    sweep_vec3 a, b, c;
    sweep_vec3 ab, ac;
    sweep_vec3 nn;   /* cross(ab, ac), unnormalised */
    sweep_vec3 n;    /* unit normal; zero when the triangle has no area */
    double nlen;     /* |nn| */
    double ab2, ac2; /* |ab|^2, |ac|^2 (also |c - a|^2 = |a - c|^2, the same bits) */
    int sharp;       /* not a needle: the convexity cut-off may be used */
} sweep__tri_prep;

/* Inline: the scene prepares a triangle the first time a sweep needs it,
 * in the middle of its loop. */
static inline void sweep__tri_prepare(sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep__tri_prep *p)
{
    p->a = a, p->b = b, p->c = c;
    p->ab = sweep_v3_sub(b, a), p->ac = sweep_v3_sub(c, a);
    p->nn = sweep_v3_cross(p->ab, p->ac);
    p->nlen = sweep_v3_len(p->nn);
    p->n = p->nlen > 0.0 ? sweep_v3_scale(p->nn, 1.0 / p->nlen) : sweep_v3(0, 0, 0);
    /* The angle at a has a sine of at least 1e-3: no needle, whose closest
     * points come from determinants that cancel. */
    p->ab2 = sweep_v3_len2(p->ab), p->ac2 = sweep_v3_len2(p->ac);
    p->sharp = p->nlen * p->nlen >= 1e-6 * p->ab2 * p->ac2;
}

/* One sweep's path, shared by every triangle it is tested against. */
typedef struct sweep__path {
    sweep_vec3 center, disp;
    double disp_len; /* |disp| */
    double size;     /* |center.x| + |center.y| + |center.z|: scale of its rounding */
} sweep__path;

/* Inline: once per sweep, in the scene's. */
static inline void sweep__path_init(sweep__path *p, sweep_vec3 center, sweep_vec3 disp)
{
    p->center = center, p->disp = disp;
    p->disp_len = sweep_v3_len(disp);
    p->size = fabs(center.x) + fabs(center.y) + fabs(center.z);
}

/* The rest of sweep__sphere_sweep_prepared, once the centre is known to be
 * in front of the plane at dist (units of the radius), moving along the
 * normal at nv, and able to reach the slab |dist| <= 1 by tmax: for a
 * centre inside the slab (dist < 1), and for one above it. Two functions,
 * each with the registers of its own case: as one they shared a large
 * stack frame that every call filled. */
int sweep__sphere_sweep_slab(const sweep__path *path, const sweep__tri_prep *pt, double tmax, sweep_sphere_hit *out);
int sweep__sphere_sweep_above(const sweep__path *path, const sweep__tri_prep *pt, double tmax, double dist, double nv,
                              sweep_sphere_hit *out);

/*
 * sweep_sphere_sweep_triangle over a prepared triangle. The plane tests,
 * which end most calls from a scene (about 3 in 4 on real levels), are
 * inline, so those calls cost no call.
 */
/* Which case of the narrow phase a sweep is in against pt, by the plane
 * tests alone: 0 nothing (out of reach of the plane), 1 the centre inside
 * the slab, 2 above it, then with *dist and *nv as
 * sweep__sphere_sweep_above wants them. The scene puts a test of its own
 * between these and the rest. */
static inline int sweep__sphere_plane_case(const sweep__path *path, const sweep__tri_prep *pt, double tmax,
                                           double *dist_out, double *nv_out)
{
    double s = sweep_v3_dot(pt->nn, sweep_v3_sub(path->center, pt->a));
    if (s < 0.0)
        return 0; /* centre behind the plane: back face */
    double nlen = pt->nlen;
    if (!(nlen > 0.0))
        return 0; /* no plane, no front */
    /* s < nlen makes s / nlen < 1 however it rounds: the largest double
     * below nlen is at most nlen (1 - 2^-53), and 1 - 2^-53 is a double.
     * So the centre is inside the slab, and that case needs neither dist
     * nor nv. That spares the division, whose latency the scene's loop
     * waited on, in nearly half the tests that pass (a wall beside a body,
     * a step it walks onto). */
    if (s < nlen)
        return 1;
    double nv = sweep_v3_dot(pt->n, path->disp);
    /* s >= nlen makes s / nlen >= 1 however it rounds: a floor beside a
     * lateral sweep, or a wall it moves away from, ends without the
     * division. */
    if (s >= nlen && nv >= 0.0)
        return 0;
    /* Here s >= nlen, so dist >= 1 and the centre is above the slab (or
     * s is NaN, which goes on as it always did). */
    double dist = s / nlen;
    if (dist >= 1.0 && (nv >= 0.0 || dist - 1.0 > -nv * tmax))
        return 0; /* never reaches the slab in time */
    *dist_out = dist, *nv_out = nv;
    return 2;
}

/* The rest of the narrow phase in the case sweep__sphere_plane_case named. */
static inline int sweep__sphere_sweep_case(const sweep__path *path, const sweep__tri_prep *pt, double tmax, int c,
                                           double dist, double nv, sweep_sphere_hit *out)
{
    return c == 1 ? sweep__sphere_sweep_slab(path, pt, tmax, out)
                  : sweep__sphere_sweep_above(path, pt, tmax, dist, nv, out);
}

static inline int sweep__sphere_sweep_prepared(const sweep__path *path, const sweep__tri_prep *pt, double tmax,
                                               sweep_sphere_hit *out)
{
    double dist = 0.0, nv = 0.0;
    int c = sweep__sphere_plane_case(path, pt, tmax, &dist, &nv);
    return c && sweep__sphere_sweep_case(path, pt, tmax, c, dist, nv, out);
}

/* The point of triangle (a, b, c) closest to p. Works for degenerate
 * triangles too (then it is the closest point of the segment or point). */
sweep_vec3 sweep_closest_point_on_triangle(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c);

#ifdef __cplusplus
}
#endif

#endif
