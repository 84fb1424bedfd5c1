/*
 * quat.h - unit quaternions for mover rotations.
 *
 * Rotations never go through angles at run time: a map stores each
 * keyframe's rotation as a unit quaternion computed once at import, and the
 * core only multiplies, adds, normalises (one sqrt) and interpolates them
 * with normalised lerp. Every expression is written out with + - * / and
 * sqrt so that it rounds the same way on every machine (see vec3.h).
 *
 * Conventions: (x, y, z) is the vector part and w the scalar part; q and -q
 * are the same rotation; rotating v by q is q v q*.
 */
#ifndef SWEEP_CORE_QUAT_H
#define SWEEP_CORE_QUAT_H

#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef struct sweep_quat {
    double x, y, z, w;
} sweep_quat;

static inline sweep_quat sweep_quat_identity(void)
{
    sweep_quat q = {0.0, 0.0, 0.0, 1.0};
    return q;
}

static inline double sweep_quat_dot(sweep_quat a, sweep_quat b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

static inline int sweep_quat_isfinite(sweep_quat q)
{
    return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

/* The conjugate: the inverse rotation of a unit quaternion. */
static inline sweep_quat sweep_quat_conj(sweep_quat q)
{
    sweep_quat r = {-q.x, -q.y, -q.z, q.w};
    return r;
}

/* a * b: rotate by b first, then by a. */
static inline sweep_quat sweep_quat_mul(sweep_quat a, sweep_quat b)
{
    sweep_quat r;
    r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    return r;
}

/* q scaled to length 1; the zero quaternion becomes the identity. */
static inline sweep_quat sweep_quat_normalize(sweep_quat q)
{
    double l = sqrt(sweep_quat_dot(q, q));
    if (!(l > 0.0))
        return sweep_quat_identity();
    sweep_quat r = {q.x / l, q.y / l, q.z / l, q.w / l};
    return r;
}

/* v rotated by the unit quaternion q: v + 2w (u x v) + 2 u x (u x v), with
 * u the vector part (the same rotation as q v q*, fewer operations). */
static inline sweep_vec3 sweep_quat_rotate(sweep_quat q, sweep_vec3 v)
{
    sweep_vec3 u = sweep_v3(q.x, q.y, q.z);
    sweep_vec3 t = sweep_v3_scale(sweep_v3_cross(u, v), 2.0);
    return sweep_v3_add(sweep_v3_add(v, sweep_v3_scale(t, q.w)), sweep_v3_cross(u, t));
}

/* Normalised lerp from a (u = 0) to b (u = 1) along the shorter arc. At
 * u = 0 and u = 1 the ends come back exactly when they are unit. */
static inline sweep_quat sweep_quat_nlerp(sweep_quat a, sweep_quat b, double u)
{
    if (u <= 0.0)
        return a;
    if (u >= 1.0)
        return b;
    if (sweep_quat_dot(a, b) < 0.0) {
        b.x = -b.x, b.y = -b.y, b.z = -b.z, b.w = -b.w;
    }
    double v = 1.0 - u;
    sweep_quat r = {a.x * v + b.x * u, a.y * v + b.y * u, a.z * v + b.z * u, a.w * v + b.w * u};
    return sweep_quat_normalize(r);
}

#ifdef __cplusplus
}
#endif

#endif
