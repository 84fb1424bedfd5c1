/*
 * swept_sphere.c - unit sphere swept against one triangle (see swept_sphere.h).
 *
 * Order of the test, cheapest rejections first:
 *   1. centre behind the plane: back face, nothing;
 *   2. the plane slab |dist| <= 1 is out of reach within tmax: nothing;
 *   3. overlap at t = 0 (exact closest point): embedded answer;
 *   4. the sphere reaches the plane at t0 with its lowest point inside the
 *      triangle: face contact at t0, the earliest possible;
 *   5. otherwise the earliest of the three vertex and three edge contacts.
 *
 * Invariants (asserted in checked builds: core/check.h):
 *   - first_contact and plane_contact answer -1 (no contact) or a time in
 *     [0, tmax], or 0 for a sphere already touching and closing in: the
 *     root 2C / (-B + sqrt(B^2 - 4AC)) is positive when C > 0 and B < 0
 *     (the discriminant is at most B^2 since A >= 0), and is compared
 *     with tmax before it is returned; NaN fails every comparison and
 *     gives -1.
 *   - A sweep contact has t in [0, tmax] (or 0 as above); an embedded
 *     answer has t = d - 1 in [-1, 0), d the distance to the closest
 *     point, which is below 1.
 *   - Every answer's normal is unit length: the triangle's normal, or a
 *     direction of length at least 1e-12 (the embedded push-out) or about
 *     1 (centre at contact minus contact point) divided by its length.
 *     Only a face normal from a cross product too small or too large for
 *     its squared length to be a normal double escapes (check.h).
 */
#include "core/swept_sphere.h"

#include <string.h>

#include "core/check.h"
#include "core/compiler.h"

/*
 * First t in [0, tmax] where g(t) = A t^2 + B t + C reaches zero from above,
 * where g > 0 means "apart" and A >= 0. Returns -1 if there is none.
 * Already touching (C <= 0) counts as a contact at 0 only while closing in.
 */
static SWEEP__ALWAYS_INLINE double first_contact(double A, double B, double C, double tmax)
{
    if (C <= 0.0)
        return B < 0.0 ? 0.0 : -1.0;
    if (B >= 0.0)
        return -1.0; /* apart and not closing: both roots (if any) lie before 0 */
    if (A < 0.0)
        A = 0.0; /* rounding of a quantity that is >= 0 by Cauchy-Schwarz */
    /* Convex and still falling at tmax with g(tmax) clearly above zero: no
     * root before tmax, and no square root needed to know it. The margin
     * keeps every case the exact formula could round below tmax. */
    double slope = 2.0 * A * tmax + B;
    if (slope <= 0.0) {
        double g = (A * tmax + B) * tmax + C;
        if (g > 1e-9 * (A * tmax * tmax - B * tmax + C))
            return -1.0;
    }
    double disc = B * B - 4.0 * A * C;
    if (disc < 0.0)
        return -1.0;
    double t = 2.0 * C / (-B + sqrt(disc));
    SWEEP_CORE_CHECK(!(t <= tmax) || t >= 0.0);
    return t <= tmax ? t : -1.0;
}

/*
 * first_contact(0, nv, C, tmax): when the centre, at C + 1 from the plane,
 * reaches it at speed -nv along the normal. With A = 0 the discriminant is
 * nv * nv, and in binary floating point the square root of a correctly
 * rounded square is the absolute value exactly, barring underflow and
 * overflow (Boldo, "Stupid is as stupid does: taking the square root of
 * the square of a floating-point number", 2015). So for nv < 0 in a range
 * well away from both, sqrt(disc) is -nv, and the same bits come without
 * the square root, whose latency the face test of every landing waited on.
 * Elsewhere (and for NaN), the general form.
 */
static SWEEP__ALWAYS_INLINE double plane_contact(double nv, double C, double tmax)
{
    if (!(C > 0.0 && nv < -1e-150 && nv > -1e150 && C < 1e300))
        return first_contact(0.0, nv, C, tmax);
    /* first_contact's steps with A = 0: the slope is nv < 0, and
     * 0 * tmax * tmax - nv * tmax is -(nv * tmax), both exactly. */
    double g = nv * tmax + C;
    if (g > 1e-9 * (-(nv * tmax) + C))
        return -1.0;
    double t = 2.0 * C / (-nv - nv);
    SWEEP_CORE_CHECK(!(t <= tmax) || t >= 0.0);
    return t <= tmax ? t : -1.0;
}

static sweep_vec3 closest_on_segment(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b)
{
    sweep_vec3 ab = sweep_v3_sub(b, a);
    double l2 = sweep_v3_len2(ab);
    if (!(l2 > 0.0))
        return a;
    double f = sweep_v3_dot(sweep_v3_sub(p, a), ab) / l2;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    return sweep_v3_madd(a, ab, f);
}

/* Fallback for triangles without area: nearest point of the three sides. */
static sweep_vec3 closest_on_sides(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    sweep_vec3 q[3] = {closest_on_segment(p, a, b), closest_on_segment(p, b, c), closest_on_segment(p, c, a)};
    sweep_vec3 best = q[0];
    double bd = sweep_v3_len2(sweep_v3_sub(p, q[0]));
    for (int i = 1; i < 3; i++) {
        double d = sweep_v3_len2(sweep_v3_sub(p, q[i]));
        if (d < bd)
            bd = d, best = q[i];
    }
    return best;
}

/* Voronoi-region walk (Ericson, "Real-Time Collision Detection", 5.1.5):
 * which vertex, edge or the face is nearest to p. ab and ac are b - a and
 * c - a, which a prepared triangle already holds. Inline so that the
 * narrow phase, which needs it in about 2 of 3 tests that pass the plane
 * test, pays no call for it. */
static SWEEP__ALWAYS_INLINE sweep_vec3 closest_point(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b,
                                                                      sweep_vec3 c, sweep_vec3 ab, sweep_vec3 ac)
{
    sweep_vec3 ap = sweep_v3_sub(p, a);
    double d1 = sweep_v3_dot(ab, ap), d2 = sweep_v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return a;
    sweep_vec3 bp = sweep_v3_sub(p, b);
    double d3 = sweep_v3_dot(ab, bp), d4 = sweep_v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return b;
    sweep_vec3 cp = sweep_v3_sub(p, c);
    double d5 = sweep_v3_dot(ab, cp), d6 = sweep_v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return c;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0)
        return sweep_v3_madd(a, ab, d1 / (d1 - d3));
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0)
        return sweep_v3_madd(a, ac, d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    double e1 = d4 - d3, e2 = d5 - d6;
    if (va <= 0.0 && e1 >= 0.0 && e2 >= 0.0 && e1 + e2 > 0.0)
        return sweep_v3_madd(b, sweep_v3_sub(c, b), e1 / (e1 + e2));
    double sum = va + vb + vc;
    if (!(sum > 0.0))
        return closest_on_sides(p, a, b, c);
    return sweep_v3_add(a, sweep_v3_add(sweep_v3_scale(ab, vb / sum), sweep_v3_scale(ac, vc / sum)));
}

sweep_vec3 sweep_closest_point_on_triangle(sweep_vec3 p, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    return closest_point(p, a, b, c, sweep_v3_sub(b, a), sweep_v3_sub(c, a));
}

/* Is p (on the triangle's plane) inside the triangle or on its border?
 * |ab|^2 and |ac|^2 come prepared (the same expressions). */
static int inside(sweep_vec3 p, const sweep__tri_prep *pt)
{
    sweep_vec3 a = pt->a, ab = pt->ab, ac = pt->ac;
    sweep_vec3 ap = sweep_v3_sub(p, a);
    double d00 = pt->ab2, d01 = sweep_v3_dot(ab, ac), d11 = pt->ac2;
    double d20 = sweep_v3_dot(ap, ab), d21 = sweep_v3_dot(ap, ac);
    double u = d11 * d20 - d01 * d21;
    double v = d00 * d21 - d01 * d20;
    double den = d00 * d11 - d01 * d01;
    return u >= 0.0 && v >= 0.0 && u + v <= den;
}

/*
 * After the sphere first meets the plane at t0 with its lowest point p
 * outside the triangle, can it still touch an edge or vertex by tmax? At
 * any t in [t0, tmax] the touched point lies in the plane within
 * r(t) = sqrt(1 - dist(t)^2) of the centre's projection, which has moved
 * |disp along the plane| * (t - t0) from p. If p lies farther than that
 * outside one edge's line, the whole triangle is out of reach: 1 means
 * "surely no contact", decided with margins that only ever answer 0 more
 * often. Most triangles next to the one a body lands on end here instead of
 * in six quadratics.
 */
/* Is p farther than reach outside the line of edge e from `from`, whose
 * squared length is e2? cross(e, n) lies in the plane, points out of the
 * triangle and is as long as the edge. */
static SWEEP__ALWAYS_INLINE int beyond_edge(sweep_vec3 p, sweep_vec3 from, sweep_vec3 e, double e2,
                                                             sweep_vec3 n, double reach)
{
    double s = sweep_v3_dot(sweep_v3_sub(p, from), sweep_v3_cross(e, n));
    return s > 0.0 && s * s > reach * reach * e2;
}

static int edges_out_of_reach(const sweep__tri_prep *pt, sweep_vec3 p, double size, sweep_vec3 disp,
                              double dist, double nv, double t0, double tmax)
{
    double d_end = dist + nv * tmax;
    double r = d_end > 0.0 && d_end < 1.0 ? sqrt(1.0 - d_end * d_end) : 1.0;
    sweep_vec3 along = sweep_v3_madd(disp, pt->n, -nv);
    double reach = (r + sweep_v3_len(along) * (tmax - t0)) * (1.0 + 1e-9) + 1e-9 * (1.0 + size);
    /* Edges ab (pt->ab is b - a, the same bits), bc and ca in turn,
     * written out: the arrays of a loop were copied on every call. a - c
     * is -(c - a) exactly, so its squared length is pt->ac2. */
    sweep_vec3 bc = sweep_v3_sub(pt->c, pt->b);
    return beyond_edge(p, pt->a, pt->ab, pt->ab2, pt->n, reach) ||
           beyond_edge(p, pt->b, bc, sweep_v3_len2(bc), pt->n, reach) ||
           beyond_edge(p, pt->c, sweep_v3_sub(pt->a, pt->c), pt->ac2, pt->n, reach);
}

/* Checked builds: does an answer for pt keep the invariants above? */
static inline int answer_ok(const sweep_sphere_hit *h, const sweep__tri_prep *pt, double tmax)
{
    int t_ok = h->embedded ? h->t >= -1.0 && h->t < 0.0 : h->t >= 0.0 && (h->t <= tmax || h->t == 0.0);
    int n_ok = sweep__check_unit(h->normal) ||
               (sweep_v3_same_bits(h->normal, pt->n) && sweep__check_unit_from(pt->n, pt->nlen));
    return t_ok && n_ok && (unsigned)h->feature <= SWEEP_FEATURE_VERTEX;
}

typedef struct best {
    double t;
    sweep_vec3 point;
    sweep_feature feature;
    int found;
} best;

/*
 * The quantities of one vertex p that its own test and the test of the
 * edge starting at p both need: w = center - p, |w|^2 - 1 and w . disp.
 * Each is the very expression the two tests once computed apiece (a dot
 * product is the same bits either way round), so sharing them changes
 * nothing but the work.
 */
typedef struct corner {
    sweep_vec3 p, w;
    double c;  /* |w|^2 - 1 */
    double wd; /* w . disp */
} corner;

static SWEEP__ALWAYS_INLINE void corner_init(corner *k, sweep_vec3 center, sweep_vec3 disp,
                                                              sweep_vec3 p)
{
    k->p = p;
    k->w = sweep_v3_sub(center, p);
    k->c = sweep_v3_len2(k->w) - 1.0;
    k->wd = sweep_v3_dot(disp, k->w);
}

/* dd = |disp|^2. */
static SWEEP__ALWAYS_INLINE void vertex_contact(const corner *k, double dd, best *bs)
{
    double t = first_contact(dd, 2.0 * k->wd, k->c, bs->t);
    if (t >= 0.0 && (!bs->found || t < bs->t)) {
        bs->t = t, bs->point = k->p, bs->feature = SWEEP_FEATURE_VERTEX, bs->found = 1;
    }
}

/* Contact with the segment k->p + f e, f in [0, 1], ee = |e|^2: the
 * infinite cylinder of radius 1 around its line, kept only where the
 * contact projects inside the segment. */
static SWEEP__ALWAYS_INLINE void edge_contact(const corner *k, sweep_vec3 e, double ee,
                                                               sweep_vec3 disp, double dd, best *bs)
{
    if (!(ee > 0.0))
        return; /* zero-length edge: its vertices cover it */
    double ed = sweep_v3_dot(e, disp), ew = sweep_v3_dot(e, k->w);
    double A = ee * dd - ed * ed;
    double B = 2.0 * (ee * k->wd - ew * ed);
    double C = ee * k->c - ew * ew;
    double t = first_contact(A, B, C, bs->t);
    if (t < 0.0 || (bs->found && t >= bs->t))
        return;
    double f = (ew + ed * t) / ee;
    if (f < 0.0 || f > 1.0)
        return;
    bs->t = t, bs->point = sweep_v3_madd(k->p, e, f), bs->feature = SWEEP_FEATURE_EDGE, bs->found = 1;
}

int sweep_sphere_sweep_triangle(sweep_vec3 center, sweep_vec3 disp, sweep_vec3 a, sweep_vec3 b,
                                sweep_vec3 c, double tmax, sweep_sphere_hit *out)
{
    sweep__tri_prep p;
    sweep__path path;
    sweep__tri_prepare(a, b, c, &p);
    sweep__path_init(&path, center, disp);
    return sweep__sphere_sweep_prepared(&path, &p, tmax, out);
}

static int vertices_and_edges(const sweep__path *path, const sweep__tri_prep *pt, double tmax,
                              sweep_sphere_hit *out);

/* A centre inside the slab: embedded, or the edges and vertices, unless
 * the triangle is out of reach. */
int sweep__sphere_sweep_slab(const sweep__path *path, const sweep__tri_prep *pt, double tmax, sweep_sphere_hit *out)
{
    const sweep_vec3 center = path->center, disp = path->disp;
    sweep_vec3 q = closest_point(center, pt->a, pt->b, pt->c, pt->ab, pt->ac);
    sweep_vec3 away = sweep_v3_sub(center, q);
    /* The distance is still more than 1 at tmax (below): most
     * triangles here (their plane cuts the sphere, they do not) end
     * on their squared distance, which is clearly above the square of
     * that bound, without the square root. */
    double reach = (1.0 + path->disp_len * tmax) * (1.0 + 1e-12) + 1e-9 * (1.0 + path->size);
    double d2 = sweep_v3_len2(away);
    if (d2 > reach * reach * (1.0 + 1e-9))
        return 0;
    double d = sqrt(d2);
    if (d < 1.0) {
        out->t = d - 1.0;
        /* On the face, or so close that the direction is noise. */
        out->normal = d > 1e-12 ? sweep_v3_scale(away, 1.0 / d) : pt->n;
        out->point = q;
        out->feature = SWEEP_FEATURE_FACE;
        out->embedded = 1;
        SWEEP_CORE_CHECK(answer_ok(out, pt, tmax));
        return 1;
    }
    /* The distance to the triangle shrinks no faster than the centre
     * moves: still more than 1 away at tmax means no contact. */
    if (d > reach)
        return 0;
    /* The distance to a convex set is a convex function of t, so it
     * stays above its tangent at 0, d + t (away . disp) / d: if that
     * tangent is still clearly above 1 at tmax (or the sphere is moving
     * away), no vertex or edge can be touched by tmax. The margin,
     * 1e-6, is far above the rounding of q and of the feature tests'
     * roots (a grazing double root moves by about 1e-8), so this ends
     * only where the six tests below would all find nothing. Only for
     * triangles whose shape keeps q accurate (see sweep__tri_prepare). */
    if (pt->sharp) {
        double g = sweep_v3_dot(away, disp);
        double low = g < 0.0 ? d * d + g * tmax : d * d;
        if (low > d * (1.0 + 1e-6 + 1e-9 * path->size))
            return 0;
    }
    return vertices_and_edges(path, pt, tmax, out);
}

/* A centre above the slab: the face where the sphere lands on the plane,
 * or else the edges and vertices, unless they are out of reach. */
int sweep__sphere_sweep_above(const sweep__path *path, const sweep__tri_prep *pt, double tmax, double dist, double nv,
                              sweep_sphere_hit *out)
{
    const sweep_vec3 center = path->center, disp = path->disp, n = pt->n;
    double t0 = plane_contact(nv, dist - 1.0, tmax);
    if (t0 >= 0.0) {
        sweep_vec3 p = sweep_v3_sub(sweep_v3_madd(center, disp, t0), n);
        if (inside(p, pt)) {
            out->t = t0, out->normal = n, out->point = p;
            out->feature = SWEEP_FEATURE_FACE, out->embedded = 0;
            SWEEP_CORE_CHECK(answer_ok(out, pt, tmax));
            return 1;
        }
        if (edges_out_of_reach(pt, p, path->size, disp, dist, nv, t0, tmax))
            return 0;
    }
    return vertices_and_edges(path, pt, tmax, out);
}

/*
 * The earliest vertex or edge contact: the last resort of
 * sweep__sphere_sweep_slab and sweep__sphere_sweep_above, reached by few
 * tests (about 1 in 10 on the corpus), so it is kept out of line and the
 * rejections before it stay lean.
 */
static SWEEP__NOINLINE int vertices_and_edges(const sweep__path *path, const sweep__tri_prep *pt,
                                                        double tmax, sweep_sphere_hit *out)
{
    const sweep_vec3 center = path->center, disp = path->disp;
    best bs = {tmax, {0, 0, 0}, SWEEP_FEATURE_VERTEX, 0};
    const double dd = sweep_v3_len2(disp);
    corner ka, kb, kc;
    corner_init(&ka, center, disp, pt->a);
    corner_init(&kb, center, disp, pt->b);
    corner_init(&kc, center, disp, pt->c);
    vertex_contact(&ka, dd, &bs);
    vertex_contact(&kb, dd, &bs);
    vertex_contact(&kc, dd, &bs);
    /* |a - c|^2 is |c - a|^2, the same bits. */
    sweep_vec3 bc = sweep_v3_sub(pt->c, pt->b);
    edge_contact(&ka, pt->ab, pt->ab2, disp, dd, &bs);
    edge_contact(&kb, bc, sweep_v3_len2(bc), disp, dd, &bs);
    edge_contact(&kc, sweep_v3_sub(pt->a, pt->c), pt->ac2, disp, dd, &bs);
    if (!bs.found)
        return 0;
    sweep_vec3 at = sweep_v3_madd(center, disp, bs.t);
    sweep_vec3 nrm = sweep_v3_normalize(sweep_v3_sub(at, bs.point));
    if (sweep_v3_len2(nrm) == 0.0)
        nrm = pt->n;
    out->t = bs.t, out->normal = nrm, out->point = bs.point;
    out->feature = bs.feature, out->embedded = 0;
    SWEEP_CORE_CHECK(answer_ok(out, pt, tmax));
    return 1;
}
