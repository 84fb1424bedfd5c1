/*
 * query_shapes.c - paths against the shapes entities are hit as (spheres,
 * capsules, axis-aligned ellipsoids) and the nearest point of each.
 *
 * Every quadratic is solved as swept_sphere.c solves its own: with the
 * path at o + t d and the surface at |o + t d|^2 = 1 (after moving into
 * the shape's frame), a t^2 + 2 b t + c = 0 has its first root
 * t = c / (-b + sqrt(b^2 - a c)), which needs no division by a small a, and
 * is taken only when c > 0 (the path starts outside) and b < 0 (it comes
 * nearer): so a path parallel to a surface, or of no length, gives no hit
 * or a finite one, never NaN. A capsule's side uses the cross products with
 * its axis, whose squares are the quadratic's terms without the
 * cancellation of |ba|^2 |oa|^2 - (ba . oa)^2.
 */
#include "core/query_impl.h"

/* First root of |p + t v|^2 = R2 (p, v relative to the centre), t in
 * [0, tmax]; the caller knows the start is outside (c > 0). */
static int first_root(double a, double b, double c, double tmax, double *t)
{
    if (!(b < 0.0) || !(c > 0.0))
        return 0;
    double disc = b * b - a * c;
    if (disc < 0.0)
        return 0;
    double r = c / (-b + sqrt(disc));
    if (!(r <= tmax))
        return 0;
    *t = r;
    return 1;
}

/* A unit normal for a path that starts inside: against the path, or out
 * from the centre for a path of no length. */
static sweep_vec3 inside_normal(sweep_vec3 d, sweep_vec3 out)
{
    sweep_vec3 n = sweep_v3_normalize(sweep_v3_scale(d, -1.0));
    if (sweep_v3_len2(n) > 0.0)
        return n;
    n = sweep_v3_normalize(out);
    return sweep_v3_len2(n) > 0.0 ? n : sweep_v3(0.0, 0.0, 1.0);
}

static int ray_sphere(sweep_vec3 o, sweep_vec3 d, sweep_vec3 c, double r, double tmax, double *t, sweep_vec3 *normal)
{
    sweep_vec3 oc = sweep_v3_sub(o, c);
    double cc = sweep_v3_dot(oc, oc) - r * r;
    if (cc <= 0.0) {
        *t = 0.0, *normal = inside_normal(d, oc);
        return 1;
    }
    if (!first_root(sweep_v3_dot(d, d), sweep_v3_dot(oc, d), cc, tmax, t))
        return 0;
    *normal = sweep_v3_normalize(sweep_v3_madd(oc, d, *t));
    return 1;
}

static int ray_ellipsoid(sweep_vec3 o, sweep_vec3 d, sweep_vec3 c, sweep_vec3 e, double tmax, double *t,
                         sweep_vec3 *normal)
{
    sweep_vec3 oc = sweep_v3_div(sweep_v3_sub(o, c), e), de = sweep_v3_div(d, e);
    double cc = sweep_v3_dot(oc, oc) - 1.0;
    if (cc <= 0.0) {
        *t = 0.0, *normal = inside_normal(d, sweep_v3_sub(o, c));
        return 1;
    }
    if (!first_root(sweep_v3_dot(de, de), sweep_v3_dot(oc, de), cc, tmax, t))
        return 0;
    /* The gradient of |(x - c) / e|^2: the unit point divided by e. */
    *normal = sweep_v3_normalize(sweep_v3_div(sweep_v3_madd(oc, de, *t), e));
    return 1;
}

/* The point of segment a..b nearest p, as a + ba * s. */
static sweep_vec3 segment_nearest(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b)
{
    sweep_vec3 ba = sweep_v3_sub(b, a);
    double baba = sweep_v3_dot(ba, ba);
    if (!(baba > 0.0))
        return a;
    double s = sweep_v3_dot(ba, sweep_v3_sub(p, a)) / baba;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    return sweep_v3_madd(a, ba, s);
}

static int ray_capsule(sweep_vec3 o, sweep_vec3 d, sweep_vec3 a, sweep_vec3 b, double r, double tmax, double *t,
                       sweep_vec3 *normal)
{
    sweep_vec3 near = segment_nearest(o, a, b), out = sweep_v3_sub(o, near);
    if (sweep_v3_dot(out, out) <= r * r) {
        *t = 0.0, *normal = inside_normal(d, out);
        return 1;
    }
    /* Outside the capsule: its first hit is the first of its three parts'
     * (the side between the end discs, the two end balls). */
    int hit = 0;
    double best = tmax;
    sweep_vec3 ba = sweep_v3_sub(b, a), oa = sweep_v3_sub(o, a);
    double baba = sweep_v3_dot(ba, ba);
    if (baba > 0.0) {
        sweep_vec3 u = sweep_v3_cross(ba, oa), v = sweep_v3_cross(ba, d);
        double ts;
        if (first_root(sweep_v3_dot(v, v), sweep_v3_dot(u, v), sweep_v3_dot(u, u) - r * r * baba, best, &ts)) {
            double y = sweep_v3_dot(ba, oa) + ts * sweep_v3_dot(ba, d);
            if (y >= 0.0 && y <= baba) {
                sweep_vec3 p = sweep_v3_madd(o, d, ts), axis = sweep_v3_madd(a, ba, y / baba);
                best = ts, hit = 1;
                *normal = sweep_v3_normalize(sweep_v3_sub(p, axis));
            }
        }
    }
    double te;
    sweep_vec3 ne;
    if (ray_sphere(o, d, a, r, best, &te, &ne) && (!hit || te < best))
        best = te, *normal = ne, hit = 1;
    if (ray_sphere(o, d, b, r, best, &te, &ne) && (!hit || te < best))
        best = te, *normal = ne, hit = 1;
    if (hit)
        *t = best;
    return hit;
}

static double min3(sweep_vec3 v)
{
    double m = v.x < v.y ? v.x : v.y;
    return m < v.z ? m : v.z;
}

int sweep__ray_shape(sweep_vec3 o, sweep_vec3 d, const sweep_hit_shape *s, double grow, double tmax, double *t,
                     sweep_vec3 *normal)
{
    switch (s->kind) {
    case SWEEP_SHAPE_SPHERE:
        return ray_sphere(o, d, s->a, s->radii.x + grow, tmax, t, normal);
    case SWEEP_SHAPE_CAPSULE:
        return ray_capsule(o, d, s->a, s->b, s->radii.x + grow, tmax, t, normal);
    default: {
        sweep_vec3 e = s->radii;
        if (grow > 0.0)
            e = sweep_v3_scale(e, 1.0 + grow / min3(e));
        return ray_ellipsoid(o, d, s->a, e, tmax, t, normal);
    }
    }
}

/* Nearest point of a ball. */
static double ball_nearest(sweep_vec3 p, sweep_vec3 c, double r, sweep_vec3 *q)
{
    sweep_vec3 v = sweep_v3_sub(p, c);
    double l = sweep_v3_len(v);
    if (l <= r) {
        *q = p;
        return 0.0;
    }
    *q = sweep_v3_madd(c, v, r / l);
    return l - r;
}

/*
 * The nearest point of an ellipsoid to a point y outside it (relative to
 * the centre): x_i = e_i^2 y_i / (t + e_i^2) for the one t > 0 where
 * sum (e_i y_i / (t + e_i^2))^2 = 1, found by bisection, as Eberly
 * ("Distance from a Point to an Ellipse, an Ellipsoid, or a
 * Hyperellipsoid") does: the sum falls as t grows, is above 1 at t = 0
 * (y is outside) and below it from t = |e y|. Halving until the interval
 * stops shrinking gives the same t on every machine.
 */
static double ellipsoid_nearest(sweep_vec3 p, sweep_vec3 c, sweep_vec3 e, sweep_vec3 *q)
{
    sweep_vec3 y = sweep_v3_sub(p, c), u = sweep_v3_div(y, e);
    if (sweep_v3_dot(u, u) <= 1.0) {
        *q = p;
        return 0.0;
    }
    sweep_vec3 ey = sweep_v3_mul(e, y), e2 = sweep_v3_mul(e, e);
    double lo = 0.0, hi = sweep_v3_len(ey);
    for (int i = 0; i < 256; i++) {
        double mid = lo + (hi - lo) * 0.5;
        if (mid <= lo || mid >= hi)
            break;
        double fx = ey.x / (mid + e2.x), fy = ey.y / (mid + e2.y), fz = ey.z / (mid + e2.z);
        if (fx * fx + fy * fy + fz * fz > 1.0)
            lo = mid;
        else
            hi = mid;
    }
    double tt = lo + (hi - lo) * 0.5;
    sweep_vec3 x = sweep_v3(e2.x * y.x / (tt + e2.x), e2.y * y.y / (tt + e2.y), e2.z * y.z / (tt + e2.z));
    *q = sweep_v3_add(c, x);
    return sweep_v3_len(sweep_v3_sub(y, x));
}

double sweep__shape_nearest(sweep_vec3 p, const sweep_hit_shape *s, sweep_vec3 *q)
{
    switch (s->kind) {
    case SWEEP_SHAPE_SPHERE:
        return ball_nearest(p, s->a, s->radii.x, q);
    case SWEEP_SHAPE_CAPSULE:
        return ball_nearest(p, segment_nearest(p, s->a, s->b), s->radii.x, q);
    default:
        return ellipsoid_nearest(p, s->a, s->radii, q);
    }
}

sweep_hit_shape sweep__ellipsoid_shape(sweep_vec3 position, sweep_vec3 radii)
{
    sweep_hit_shape s;
    s.id = UINT32_MAX, s.kind = SWEEP_SHAPE_ELLIPSOID;
    s.a = s.b = position;
    s.radii = radii;
    return s;
}

double sweep__sweep_grow(sweep_vec3 radii)
{
    double m = radii.x > radii.y ? radii.x : radii.y;
    return m > radii.z ? m : radii.z;
}
