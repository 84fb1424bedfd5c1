/*
 * vec3.h - the vector type and the small vector algebra the core is built on.
 *
 * Conventions (every file in core/ follows them):
 *   - Scalars are IEEE-754 double. The core is compiled with -ffp-contract=off
 *     and never with -ffast-math, so every expression below rounds the same way
 *     on every machine: that is what makes replays bit-identical.
 *   - Only + - * /, sqrt, fabs and comparisons appear in result-affecting code.
 *     No sin/cos/pow/exp/acos at run time (their last bit differs between libms).
 *   - Units are the map's units (usually metres) and seconds.
 *   - "Up" is minus the gravity direction. The core assumes no handedness and no
 *     fixed up axis: everything that cares about up takes it from the config.
 *   - "eSpace" (ellipsoid space) is world space divided component-wise by the
 *     ellipsoid radii; there the ellipsoid is a unit sphere.
 *   - Functions take inputs first and write outputs last.
 *
 * Everything here is static inline so that the compiler can keep vectors in
 * registers; nothing here allocates or touches global state.
 */
#ifndef SWEEP_CORE_VEC3_H
#define SWEEP_CORE_VEC3_H

#include <math.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
typedef struct sweep_vec3 {
    double x, y, z;
} sweep_vec3;

static inline sweep_vec3 sweep_v3(double x, double y, double z)
{
    sweep_vec3 r = {x, y, z};
    return r;
}

static inline sweep_vec3 sweep_v3_add(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline sweep_vec3 sweep_v3_sub(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline sweep_vec3 sweep_v3_scale(sweep_vec3 a, double s)
{
    return sweep_v3(a.x * s, a.y * s, a.z * s);
}

/* a + b * s, written out so the rounding is one multiply then one add. */
static inline sweep_vec3 sweep_v3_madd(sweep_vec3 a, sweep_vec3 b, double s)
{
    return sweep_v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}

/* Component-wise product: world -> eSpace uses the inverse radii, back uses radii. */
static inline sweep_vec3 sweep_v3_mul(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.x * b.x, a.y * b.y, a.z * b.z);
}

static inline sweep_vec3 sweep_v3_div(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.x / b.x, a.y / b.y, a.z / b.z);
}

static inline double sweep_v3_dot(sweep_vec3 a, sweep_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline sweep_vec3 sweep_v3_cross(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline double sweep_v3_len2(sweep_vec3 a)
{
    return sweep_v3_dot(a, a);
}

static inline double sweep_v3_len(sweep_vec3 a)
{
    return sqrt(sweep_v3_dot(a, a));
}

/* Unit vector along a; the zero vector stays zero instead of becoming NaN. */
static inline sweep_vec3 sweep_v3_normalize(sweep_vec3 a)
{
    double l = sweep_v3_len(a);
    if (l > 0.0)
        return sweep_v3_scale(a, 1.0 / l);
    return sweep_v3(0.0, 0.0, 0.0);
}

static inline sweep_vec3 sweep_v3_min(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}

static inline sweep_vec3 sweep_v3_max(sweep_vec3 a, sweep_vec3 b)
{
    return sweep_v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

static inline int sweep_v3_isfinite(sweep_vec3 a)
{
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

/* The same bits, not only equal values: -0.0 is not +0.0 here, and a NaN
 * is itself. What a cache keyed on a vector must compare to give the very
 * values a recomputation would. */
static inline int sweep_v3_same_bits(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

#ifdef __cplusplus
}
#endif

#endif
