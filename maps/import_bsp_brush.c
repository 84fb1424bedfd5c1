/*
 * import_bsp_brush.c - Quake 3 brushes into the shells of the collision
 * hull, cut down to what a body can touch; a model's whole geometry.
 *
 * Geometry is the collision hull: Quake 3 collides with brushes (convex
 * solids given as planes) and patches, not with the render faces. A brush
 * becomes its boundary: each side's plane is cut down to a polygon by all
 * the other planes (in double, from the single-precision planes), the
 * polygons' corners are welded so that neighbouring sides share vertices,
 * a corner lying on another polygon's edge is inserted into that edge (so
 * no crack opens at a T), and each polygon is fanned into triangles whose
 * front, cross(b - a, c - a), is the side's outward normal. A side whose
 * polygon keeps no area is a bevel plane (q3map adds them for box traces)
 * and gives nothing. Compilers round planes to single precision, so one
 * plane may come twice, a hair apart, crossing inside the brush: such
 * sides are merged, and a sliver face that welds into another face is kept
 * once; on the corpus every brush then closes. Last, the faces are cut by
 * the other solid brushes of the model and what lies inside them is
 * dropped (see "Hidden faces" below), so the level's shells are the
 * boundary of the union of its brushes: closed as a surface, though no
 * longer brush by brush. The faces and pieces left are not fanned brush
 * by brush then, but kept until the model's brushes are all done and
 * merged across brushes where they lie on one plane, face one way, have
 * one shader and share an edge (maps/face_merge.c, emit_merged), as q3map
 * merges the faces it keeps: a floor cut into pieces by the walls standing
 * on it becomes as few convex polygons as the classic merge finds.
 *
 * Sides: map triangles are one-sided (players collide with fronts only),
 * and a Quake 3 level answers that itself, so sweep-import's rule for
 * scenes (--sides and the material options, import.h) does not apply
 * here. A brush is a solid, and its shell, facing out, stays one-sided:
 * nobody reaches its inside, nor the inside of the union of brushes (a
 * patch has no inside: import_bsp_patch.c writes it two-sided).
 */
#include "maps/import_bsp_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "maps/grow.h"

/* Half the size of the polygon a side starts from before clipping, units;
 * a finished polygon reaching half of it means the brush is not closed. */
#define BASE_WINDING 1048576.0
/* Two planes with normals this close (about 0.1 degree) are maybe one
 * plane rounded two ways. */
#define NEAR_PARALLEL_DOT (1.0 - 2e-6)
/* A shell enclosing less than this (cubic units) has no volume. */
#define MIN_VOLUME 1e-3

/* ------------------------------------------------------------------------
 * Brushes to shells
 */

static int grow_scratch(bsp *b, void **arr, uint32_t *cap, uint32_t need, size_t size)
{
    return sweep__grow(arr, cap, need, size) || sweep__bsp_nomem(b);
}

/* A square of half size BASE_WINDING on plane p, counter-clockwise seen
 * from the front (the side the normal points to). */
static void base_winding(const plane *p, double out[4][3])
{
    const double *n = p->n;
    double up[3] = {0, 0, 1};
    if (fabs(n[2]) >= fabs(n[0]) && fabs(n[2]) >= fabs(n[1]))
        up[0] = 1, up[2] = 0;
    double k = dot3(up, n);
    for (int i = 0; i < 3; i++)
        up[i] -= k * n[i];
    double l = sqrt(dot3(up, up));
    for (int i = 0; i < 3; i++)
        up[i] /= l;
    double right[3];
    cross3(up, n, right); /* right x up = n: (right, up) is counter-clockwise about n */
    for (int i = 0; i < 3; i++) {
        double o = n[i] * p->d;
        out[0][i] = o - right[i] * BASE_WINDING - up[i] * BASE_WINDING;
        out[1][i] = o + right[i] * BASE_WINDING - up[i] * BASE_WINDING;
        out[2][i] = o + right[i] * BASE_WINDING + up[i] * BASE_WINDING;
        out[3][i] = o - right[i] * BASE_WINDING + up[i] * BASE_WINDING;
    }
}

/* Keeps the part of polygon in[0..n) behind plane p (dot(n, x) <= d, with
 * points within SWEEP_BSP_PLANE_EPSILON of it kept as they are); returns
 * the new point count, at most n + 1, written to out. */
static uint32_t clip(const double (*in)[3], uint32_t n, const plane *p, double (*out)[3])
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = in[i], *c = in[(i + 1) % n];
        double da = dot3(p->n, a) - p->d, dc = dot3(p->n, c) - p->d;
        int sa = da > SWEEP_BSP_PLANE_EPSILON ? 1 : da < -SWEEP_BSP_PLANE_EPSILON ? -1 : 0;
        int sc = dc > SWEEP_BSP_PLANE_EPSILON ? 1 : dc < -SWEEP_BSP_PLANE_EPSILON ? -1 : 0;
        if (sa <= 0)
            memcpy(out[m++], a, sizeof out[0]);
        if (sa * sc < 0) {
            /* from the back point towards the front one, so both sides of
             * an edge compute the same expression */
            const double *bk = sa < 0 ? a : c, *fr = sa < 0 ? c : a;
            double db = sa < 0 ? da : dc, df = sa < 0 ? dc : da, t = db / (db - df);
            for (int k = 0; k < 3; k++)
                out[m][k] = bk[k] + t * (fr[k] - bk[k]);
            m++;
        }
    }
    return m;
}

/* The welded corner within SWEEP_BSP_WELD_EPSILON of x, added if none. */
static int weld(bsp *b, uint32_t *count, const double x[3], uint32_t *out)
{
    for (uint32_t i = 0; i < *count; i++) {
        double dx = b->verts[i][0] - x[0], dy = b->verts[i][1] - x[1], dz = b->verts[i][2] - x[2];
        if (dx * dx + dy * dy + dz * dz <= SWEEP_BSP_WELD_EPSILON * SWEEP_BSP_WELD_EPSILON) {
            *out = i;
            return 1;
        }
    }
    if (!grow_scratch(b, (void **)&b->verts, &b->vert_cap, *count + 1, sizeof b->verts[0]))
        return 0;
    memcpy(b->verts[*count], x, sizeof b->verts[0]);
    *out = (*count)++;
    return 1;
}

static int push_tri(bsp *b, uint32_t *nt, uint32_t a, uint32_t c1, uint32_t c2, uint32_t sh)
{
    if (!grow_scratch(b, (void **)&b->tris, &b->tri_cap, 4 * (*nt + 1), sizeof b->tris[0]))
        return 0;
    uint32_t *t = &b->tris[4 * (*nt)++];
    t[0] = a, t[1] = c1, t[2] = c2, t[3] = sh;
    return 1;
}

/* Fans the face ring[0..k) (corner ids, counter-clockwise about normal n)
 * into triangles: from the first corner whose fan has no degenerate or
 * backward triangle, else from a new corner at the centroid. */
static int fan_face(bsp *b, uint32_t k, const double n[3], uint32_t sh, uint32_t *nverts, uint32_t *nt)
{
    for (uint32_t apex = 0; apex < k; apex++) {
        int ok = 1;
        for (uint32_t j = 1; j + 1 < k && ok; j++) {
            const double *a = b->verts[b->ring[apex]], *p = b->verts[b->ring[(apex + j) % k]],
                         *q = b->verts[b->ring[(apex + j + 1) % k]];
            double e1[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, e2[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]},
                   c[3];
            cross3(e1, e2, c);
            ok = dot3(c, n) > 0.0 && !sweep_triangle_is_degenerate(v3_of(a), v3_of(p), v3_of(q));
        }
        if (!ok)
            continue;
        for (uint32_t j = 1; j + 1 < k; j++)
            if (!push_tri(b, nt, b->ring[apex], b->ring[(apex + j) % k], b->ring[(apex + j + 1) % k], sh))
                return 0;
        return 1;
    }
    double c[3] = {0, 0, 0};
    for (uint32_t j = 0; j < k; j++)
        for (int i = 0; i < 3; i++)
            c[i] += b->verts[b->ring[j]][i] / k;
    if (!grow_scratch(b, (void **)&b->verts, &b->vert_cap, *nverts + 1, sizeof b->verts[0]))
        return 0;
    uint32_t ci = (*nverts)++;
    memcpy(b->verts[ci], c, sizeof c);
    for (uint32_t j = 0; j < k; j++)
        if (!push_tri(b, nt, ci, b->ring[j], b->ring[(j + 1) % k], sh))
            return 0;
    return 1;
}

/* Keeps the face b->ring[0..k) (on plane pf, shader sh) for merging
 * across brushes, when merging. */
static int keep_face(bsp *b, uint32_t k, const plane *pf, uint32_t sh)
{
    if (!b->merging)
        return 1;
    if (!grow_scratch(b, (void **)&b->face_pts, &b->face_pts_cap, k, sizeof b->face_pts[0]))
        return 0;
    for (uint32_t e = 0; e < k; e++)
        memcpy(b->face_pts[e], b->verts[b->ring[e]], sizeof b->face_pts[0]);
    return sweep__face_add(&b->faces, (const double(*)[3])b->face_pts, k, pf->n, pf->d, sh) ? 1 : sweep__bsp_nomem(b);
}

/* The plane of side i of the brush whose sides start at `first`. */
const plane *sweep__bsp_side_plane(const bsp *b, uint32_t first, uint32_t i)
{
    return &b->planes[i32_at(record(b, L_BRUSHSIDES, first + i))];
}

/* Cuts each kept side's plane down to the polygon the other kept sides
 * leave of it: side i's points go to pts[i * cap ..], their number to
 * counts[i] (0 when nothing is left). */
static int clip_sides(bsp *b, uint32_t br, uint32_t first, uint32_t n, const uint32_t *keep, uint32_t cap,
                      uint32_t *counts)
{
    /* ping-pong between two scratch blocks after the sides' blocks */
    double (*tmp0)[3] = b->pts + (size_t)n * cap, (*tmp1)[3] = tmp0 + cap;
    for (uint32_t i = 0; i < n; i++) {
        counts[i] = 0;
        if (!keep[i])
            continue;
        const plane *pi = sweep__bsp_side_plane(b, first, i);
        double w[4][3];
        base_winding(pi, w);
        memcpy(tmp0, w, sizeof w);
        uint32_t m = 4;
        double (*cur)[3] = tmp0, (*nxt)[3] = tmp1;
        for (uint32_t j = 0; j < n && m >= 3; j++) {
            if (j == i || !keep[j])
                continue;
            if (m + 1 > cap)
                break; /* cannot happen for a convex polygon; stop rather than overrun */
            m = clip((const double(*)[3])cur, m, sweep__bsp_side_plane(b, first, j), nxt);
            double (*t)[3] = cur;
            cur = nxt, nxt = t;
        }
        if (m < 3)
            continue;
        double reach = 0.0;
        for (uint32_t k = 0; k < m; k++)
            for (int c = 0; c < 3; c++)
                reach = fmax(reach, fabs(cur[k][c]));
        if (!(reach < BASE_WINDING / 2))
            return sweep__bsp_fail(b, LUMP_FMT ": record %u: the brush is not closed (side %u, plane %lld, reaches %g)",
                                   LUMP_ARG(L_BRUSHES), br, i, (long long)i32_at(record(b, L_BRUSHSIDES, first + i)),
                                   reach);
        memcpy(b->pts + (size_t)i * cap, cur, m * sizeof cur[0]);
        counts[i] = m;
    }
    return 1;
}

/* Two kept sides whose planes are almost parallel and never more than
 * SWEEP_BSP_COPLANAR_EPSILON apart over the brush's box (a compiler's
 * rounding, not a shape) are one: the later one is dropped, or its
 * sliver of a face would not meet its neighbours. 1 if any was dropped. */
static int merge_coplanar(bsp *b, uint32_t first, uint32_t n, uint32_t *keep, uint32_t cap, const uint32_t *counts)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < counts[i]; k++)
            for (int c = 0; c < 3; c++) {
                lo[c] = fmin(lo[c], b->pts[(size_t)i * cap + k][c]);
                hi[c] = fmax(hi[c], b->pts[(size_t)i * cap + k][c]);
            }
    if (!(lo[0] <= hi[0]))
        return 0;
    int merged = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        const plane *pj = sweep__bsp_side_plane(b, first, j);
        for (uint32_t i = 0; i < j && keep[j]; i++) {
            const plane *pi = sweep__bsp_side_plane(b, first, i);
            if (!keep[i] || dot3(pi->n, pj->n) < NEAR_PARALLEL_DOT)
                continue;
            /* the gap between them is linear: largest at a corner of the box */
            double gap = 0.0;
            for (int corner = 0; corner < 8; corner++) {
                double x[3] = {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1], corner & 4 ? hi[2] : lo[2]};
                gap = fmax(gap, fabs((dot3(pi->n, x) - pi->d) - (dot3(pj->n, x) - pj->d)));
            }
            if (gap <= SWEEP_BSP_COPLANAR_EPSILON)
                keep[j] = 0, merged = 1;
        }
    }
    return merged;
}

/* ------------------------------------------------------------------------
 * Hidden faces: the parts of a brush's faces inside another brush
 *
 * A player-solid brush's inside is out of every body's reach, so a face,
 * or the part of one, inside another player-solid brush of the same model
 * or back to back against one of its faces, can only cost the core time.
 * Level compilers cut visible faces the same way (q3map's CSG: a face is
 * clipped by each other brush, the pieces outside it kept): a polygon
 * is split by the other brush's planes one after another, each piece in
 * front of a plane is outside the brush and kept, and what is behind them
 * all is inside and dropped. If the polygon is in front of some plane as a
 * whole it does not enter the brush, and it is kept whole rather than in
 * pieces.
 */

/* How far off a plane a point may be and still count as on it. Planes are
 * stored in single precision: one d units from the origin is good to about
 * d * 6e-8 units (half a float's step), the corners computed from such
 * planes to a few times that; 1e-3 units is well above that anywhere in a
 * Quake 3 level (its coordinates stay within +-8192, q3map's limit being
 * 65536), and the allowance grows past 8192 units in proportion. It only
 * decides where thin slivers go. A piece within it of another brush is
 * dropped, so the surface may open by at most that much along the line
 * where two brushes meet; no body passes a slit a thousandth of a unit
 * wide (Quake 3's player is 30 x 30 x 56): the triangles on both sides of
 * it keep their edges, which a swept ellipsoid hits, and behind it lies
 * only the inside of a solid, whose faces all face away (one-sided). */
static double hidden_eps(const plane *q)
{
    return SWEEP_BSP_HIDDEN_EPSILON * fmax(1.0, fabs(q->d) / 8192.0);
}

static int polys_add(bsp *b, polys *l, const double (*p)[3], uint32_t n)
{
    if (!grow_scratch(b, (void **)&l->p, &l->point_cap, l->points + n, sizeof l->p[0]))
        return 0;
    uint32_t cap = l->cap;
    if (!grow_scratch(b, (void **)&l->at, &l->cap, l->n + 1, sizeof *l->at) ||
        !grow_scratch(b, (void **)&l->len, &cap, l->n + 1, sizeof *l->len))
        return 0;
    memcpy(l->p + l->points, p, n * sizeof p[0]);
    l->at[l->n] = l->points, l->len[l->n++] = n;
    l->points += n;
    return 1;
}

/* Splits the convex polygon in[0..n) by plane q: the part in front (or on
 * it, within eps) to front[0..*nf), the part behind (or on it) to
 * back[0..*nb); at most cap points each, 0 if that is not enough. */
static int split(const double (*in)[3], uint32_t n, const plane *q, double eps, uint32_t cap, double (*front)[3],
                 uint32_t *nf, double (*back)[3], uint32_t *nb)
{
    uint32_t f = 0, k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = in[i], *c = in[(i + 1) % n];
        double da = dot3(q->n, a) - q->d, dc = dot3(q->n, c) - q->d;
        int sa = da > eps ? 1 : da < -eps ? -1 : 0, sc = dc > eps ? 1 : dc < -eps ? -1 : 0;
        if (f + 2 > cap || k + 2 > cap)
            return 0;
        if (sa >= 0)
            memcpy(front[f++], a, sizeof front[0]);
        if (sa <= 0)
            memcpy(back[k++], a, sizeof back[0]);
        if (sa * sc < 0) {
            /* from the back point towards the front one, as clip() does */
            const double *bk = sa < 0 ? a : c, *fr = sa < 0 ? c : a;
            double db = sa < 0 ? da : dc, df = sa < 0 ? dc : da, t = db / (db - df);
            for (int j = 0; j < 3; j++)
                front[f][j] = back[k][j] = bk[j] + t * (fr[j] - bk[j]);
            f++, k++;
        }
    }
    *nf = f, *nb = k;
    return 1;
}

/* Appends to out what of polygon in[0..n) (on plane pf, facing its
 * normal) lies outside brush c: the pieces in front of c's planes, or the
 * polygon whole if none of it is inside c, or if it lies on a plane of c
 * facing the same way (a surface of both). *cut is set if it was cut. */
static int cut_by_brush(bsp *b, const double (*in)[3], uint32_t n, const plane *pf, uint32_t c, polys *out, int *cut)
{
    const uint8_t *r = record(b, L_BRUSHES, c);
    uint32_t first = (uint32_t)i32_at(r), sides = (uint32_t)i32_at(r + 4);
    const uint32_t cap = 2 * (n + sides) + 8;
    if (!grow_scratch(b, (void **)&b->work, &b->work_cap, 3 * cap, sizeof b->work[0]))
        return 0;
    double (*cur)[3] = b->work, (*front)[3] = b->work + cap, (*back)[3] = b->work + 2 * cap;
    memcpy(cur, in, n * sizeof in[0]);
    uint32_t m = n, mark_n = out->n, mark_points = out->points;
    for (uint32_t j = 0; j < sides; j++) {
        const plane *q = sweep__bsp_side_plane(b, first, j);
        double eps = hidden_eps(q), dp = dot3(q->n, pf->n);
        if (dp >= PARALLEL_DOT && fabs(q->d - pf->d) <= eps)
            goto whole; /* the same surface, facing the same way: both show it */
        if (dp <= -PARALLEL_DOT && fabs(q->d + pf->d) <= eps)
            continue; /* back to back: behind this plane */
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t k = 0; k < m; k++) {
            double d = dot3(q->n, cur[k]) - q->d;
            lo = fmin(lo, d), hi = fmax(hi, d);
        }
        if (lo >= -eps)
            goto whole; /* what is left does not enter c: none of it does */
        if (hi <= eps)
            continue;
        uint32_t nf, nb;
        if (!split((const double(*)[3])cur, m, q, eps, cap, front, &nf, back, &nb))
            goto whole; /* not a convex polygon: keep it rather than guess */
        if (nf >= 3 && !polys_add(b, out, (const double(*)[3])front, nf))
            return 0;
        double (*t)[3] = cur;
        cur = back, back = t, m = nb;
        if (m < 3)
            goto whole;
    }
    *cut = 1; /* cur is inside c: dropped */
    return 1;
whole:
    out->n = mark_n, out->points = mark_points;
    return polys_add(b, out, in, n);
}

/* Cuts the face ring[0..k) (corner ids into b->verts, on plane pf) of
 * brush `self` by every other cutting brush whose box meets it, in brush
 * order; the pieces left are b->frag[*which]. *cut is 0 if nothing was cut
 * away (the face is then kept as it was). */
static int cut_face(bsp *b, uint32_t self, const plane *pf, const uint32_t *ring, uint32_t k, uint32_t *which,
                    int *cut)
{
    polys *src = &b->frag[0];
    src->n = src->points = 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (!grow_scratch(b, (void **)&src->p, &src->point_cap, k, sizeof src->p[0]))
        return 0;
    for (uint32_t e = 0; e < k; e++)
        for (int i = 0; i < 3; i++) {
            double x = b->verts[ring[e]][i];
            src->p[e][i] = x;
            lo[i] = fmin(lo[i], x), hi[i] = fmax(hi[i], x);
        }
    uint32_t cap = src->cap;
    if (!grow_scratch(b, (void **)&src->at, &src->cap, 1, sizeof *src->at) ||
        !grow_scratch(b, (void **)&src->len, &cap, 1, sizeof *src->len))
        return 0;
    src->at[0] = 0, src->len[0] = k, src->n = 1, src->points = k;
    uint32_t w = 0;
    *cut = 0;
    /* a box filter only, far wider than any epsilon: the planes decide */
    const double slack = 0.01 + 1e-6 * fmax(fabs(pf->d), 1.0);
    for (uint32_t c = 0; c < b->cut_count && src->n; c++) {
        if (b->cut_brush[c] == self)
            continue;
        int apart = 0;
        for (int i = 0; i < 3; i++)
            apart |= b->cut_lo[c][i] > hi[i] + slack || b->cut_hi[c][i] < lo[i] - slack;
        if (apart)
            continue;
        polys *dst = &b->frag[w ^ 1];
        dst->n = dst->points = 0;
        for (uint32_t i = 0; i < src->n; i++)
            if (!cut_by_brush(b, (const double(*)[3])(src->p + src->at[i]), src->len[i], pf, b->cut_brush[c], dst,
                              cut))
                return 0;
        w ^= 1, src = dst;
    }
    *which = w;
    return 1;
}

/* ------------------------------------------------------------------------
 * Faces towards the void: the world's BSP tree
 *
 * q3map fills the outside of a sealed level and marks its leaves opaque,
 * as it does the leaves inside structural solid; an opaque leaf has
 * cluster -1. No body is ever in one, and between them and the leaves a
 * body can be in stand structural brush faces, which face those leaves and
 * are kept. So a face (or piece) of the world that lies wholly in opaque
 * leaves, seen from its front, is never touched. A face is pushed down the
 * tree and split by its planes; one on a node's plane goes to the side its
 * normal faces. A leaked level has no opaque outside and loses nothing.
 */

/* Deeper than any tree q3map writes; a face deeper than this is kept. */
#define MAX_TREE_DEPTH 256
/* A polygon within this of a node's plane (units) goes down both sides:
 * a face is dropped only if no point of it comes this close to a leaf that
 * is not opaque. Detail brushes do not split the tree, and their faces
 * may lie a hundredth of a unit behind a structural plane (rounding),
 * with the open leaf just in front of them; a body touches nothing
 * farther than its skin from the space it is in. */
#define TREE_REACH 0.5

/* The world's tree, read only if every index in it is in range and some
 * leaf is not opaque; 0 (no tree) otherwise, and nothing is dropped. */
int sweep__bsp_read_tree(bsp *b)
{
    uint32_t nn = b->count[L_NODES], nl = b->count[L_LEAFS];
    if (nn == 0 || nl == 0)
        return 1;
    int open = 0;
    for (uint32_t i = 0; i < nl; i++)
        open |= i32_at(record(b, L_LEAFS, i)) >= 0;
    for (uint32_t i = 0; i < nn; i++) {
        const uint8_t *r = record(b, L_NODES, i);
        int64_t pl = i32_at(r), c0 = i32_at(r + 4), c1 = i32_at(r + 8);
        if (pl < 0 || pl >= (int64_t)b->count[L_PLANES])
            return 1;
        int64_t c[2] = {c0, c1};
        for (int k = 0; k < 2; k++)
            if (c[k] >= (int64_t)nn || (c[k] < 0 && -(c[k] + 1) >= (int64_t)nl))
                return 1;
    }
    b->tree = open;
    return 1;
}

/* 1 if some part of polygon p[0..n) (on plane pf, facing its normal)
 * lies, in front of itself, in a leaf that is not opaque, below `node`
 * (>= 0 a node, < 0 the leaf -(node + 1)). scratch holds 2 * cap points
 * for each level of depth left. */
static int reaches_open_leaf(const bsp *b, const double (*p)[3], uint32_t n, int64_t node, uint32_t depth,
                             double (*scratch)[3], uint32_t cap)
{
    while (node >= 0) {
        if (depth == 0)
            return 1;
        const uint8_t *r = record(b, L_NODES, (uint32_t)node);
        const plane *q = &b->planes[i32_at(r)];
        int64_t front = i32_at(r + 4), back = i32_at(r + 8);
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t k = 0; k < n; k++) {
            double d = dot3(q->n, p[k]) - q->d;
            lo = fmin(lo, d), hi = fmax(hi, d);
        }
        if (lo >= TREE_REACH) {
            node = front;
        } else if (hi <= -TREE_REACH) {
            node = back;
        } else {
            /* both sides, each with what lies within TREE_REACH of it */
            double (*f)[3] = scratch, (*k)[3] = scratch + cap, (*x)[3] = scratch + 2 * cap;
            uint32_t nf, nb, nx;
            plane fq = {{q->n[0], q->n[1], q->n[2]}, q->d - TREE_REACH};
            plane bq = {{q->n[0], q->n[1], q->n[2]}, q->d + TREE_REACH};
            if (n + 2 > cap || !split(p, n, &fq, 0.0, cap, f, &nf, x, &nx) ||
                !split(p, n, &bq, 0.0, cap, x, &nx, k, &nb))
                return 1;
            if (nf >= 3 && reaches_open_leaf(b, (const double(*)[3])f, nf, front, depth - 1, scratch + 3 * cap, cap))
                return 1;
            if (nb < 3)
                return 0;
            p = (const double(*)[3])k, n = nb, node = back;
            scratch += 3 * cap;
        }
        depth--;
    }
    return i32_at(record(b, L_LEAFS, (uint32_t)(-(node + 1)))) >= 0;
}

/* 1 if polygon p[0..n) of the world may be touched: it
 * reaches a leaf that is not opaque, or there is no tree to ask. */
static int faces_open_space(bsp *b, const double (*p)[3], uint32_t n, int *ok)
{
    if (!b->tree || !b->in_world)
        return 1;
    const uint32_t cap = n + MAX_TREE_DEPTH + 4;
    if (!grow_scratch(b, (void **)&b->tree_scratch, &b->tree_scratch_cap, 3 * cap * (MAX_TREE_DEPTH + 1),
                      sizeof b->tree_scratch[0])) {
        *ok = 0;
        return 1;
    }
    return reaches_open_leaf(b, p, n, 0, MAX_TREE_DEPTH, b->tree_scratch, cap);
}

/* Triangles tri[4 t] = (corner, corner, corner, shader) over corners v into
 * s, each corner written once however many triangles share it; degenerate
 * triangles are counted and left out. *written (if given) counts the
 * triangles written. */
static int write_triangles(bsp *b, sink *s, const double (*v)[3], uint32_t nverts, const uint32_t *tri, uint32_t nt,
                           int64_t *written)
{
    uint32_t *remap = malloc((nverts ? nverts : 1) * sizeof *remap);
    if (!remap)
        return sweep__bsp_nomem(b);
    for (uint32_t i = 0; i < nverts; i++)
        remap[i] = UINT32_MAX;
    int ok = 1;
    for (uint32_t t = 0; t < nt && ok; t++) {
        const uint32_t *x = &tri[4 * t];
        if (sweep_triangle_is_degenerate(v3_of(v[x[0]]), v3_of(v[x[1]]), v3_of(v[x[2]]))) {
            b->st->degenerate_dropped++;
            continue;
        }
        uint32_t mat, vi[3];
        ok = sweep__bsp_material_of(b, x[3], &mat);
        for (int c = 0; c < 3 && ok; c++) {
            if (remap[x[c]] == UINT32_MAX)
                ok = sweep__bsp_sink_vertex(b, s, v[x[c]], &remap[x[c]]);
            vi[c] = remap[x[c]];
        }
        if (ok)
            ok = sweep__bsp_sink_triangle(b, s, vi[0], vi[1], vi[2], mat);
        if (ok && written)
            (*written)++;
    }
    free(remap);
    return ok;
}

/* Adds brush `br` as a closed shell to s, less its hidden faces when
 * `cull` (cut by b->cut_brush). *made is 1 if it had volume. With
 * `measure`, nothing is added: box[0], box[1] get the brush's bounds. */
static int brush_shell(bsp *b, uint32_t br, sink *s, int *made, int cull, int measure, double box[2][3])
{
    const uint8_t *r = record(b, L_BRUSHES, br);
    uint32_t first = (uint32_t)i32_at(r), n = (uint32_t)i32_at(r + 4);
    *made = 0;
    if (n < 4)
        return 1;
    const uint32_t cap = 2 * n + 8; /* points a side's polygon may reach */
    if (!grow_scratch(b, (void **)&b->pts, &b->pts_cap, (n + 2) * cap, sizeof b->pts[0]))
        return 0;
    uint32_t *counts = calloc(n, sizeof *counts), *keep = calloc(n, sizeof *keep);
    if (!counts || !keep) {
        free(counts), free(keep);
        return sweep__bsp_nomem(b);
    }
    /* Sides on the same plane as an earlier side add nothing. */
    for (uint32_t i = 0; i < n; i++) {
        const plane *pi = sweep__bsp_side_plane(b, first, i);
        keep[i] = 1;
        for (uint32_t j = 0; j < i && keep[i]; j++) {
            const plane *pj = sweep__bsp_side_plane(b, first, j);
            if (keep[j] && dot3(pi->n, pj->n) >= PARALLEL_DOT && fabs(pi->d - pj->d) <= SWEEP_BSP_PLANE_EPSILON)
                keep[i] = 0;
        }
    }
    int ok = clip_sides(b, br, first, n, keep, cap, counts);
    if (ok && merge_coplanar(b, first, n, keep, cap, counts))
        ok = clip_sides(b, br, first, n, keep, cap, counts);
    /* Weld every corner, then build each face's ring of corner ids. */
    uint32_t nverts = 0, nt = 0;
    uint32_t *ids = NULL;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += counts[i];
    if (ok && !(ids = malloc((total ? total : 1) * sizeof *ids)))
        ok = sweep__bsp_nomem(b);
    for (uint32_t i = 0, at = 0; i < n && ok; at += counts[i], i++)
        for (uint32_t k = 0; k < counts[i] && ok; k++)
            ok = weld(b, &nverts, b->pts[(size_t)i * cap + k], &ids[at + k]);
    /* Each face's ring and its sorted corner ids (a face holds at most all
     * the corners), kept until all faces are known. */
    uint32_t corners = nverts, faces = 0, used = 0, face_cap = 0;
    uint32_t *face_side = ok ? malloc(n * sizeof *face_side) : NULL, *face_at = ok ? malloc(n * sizeof *face_at) : NULL;
    uint32_t *face_len = ok ? malloc(n * sizeof *face_len) : NULL, *face_ring = NULL, *face_ids = NULL;
    uint32_t *kept = ok ? malloc(n * sizeof *kept) : NULL, nkept = 0;
    if (ok && (!face_len || !face_side || !face_at || !kept))
        ok = sweep__bsp_nomem(b);
    for (uint32_t i = 0, at = 0; i < n && ok; at += counts[i], i++) {
        if (counts[i] < 3)
            continue;
        /* Room for every corner of the brush on each edge of this face. */
        if (!(ok = grow_scratch(b, (void **)&b->ring, &b->ring_cap, counts[i] * (corners + 1) + 1,
                                sizeof b->ring[0])))
            break;
        uint32_t k = 0;
        for (uint32_t e = 0; e < counts[i]; e++) {
            uint32_t u = ids[at + e], v = ids[at + (e + 1) % counts[i]];
            if (k == 0 || b->ring[k - 1] != u)
                b->ring[k++] = u;
            if (u == v)
                continue;
            /* Corners of other faces lying on this edge go into it, in
             * order along it, so that both faces of the edge agree. */
            const double *pu = b->verts[u], *pv = b->verts[v];
            double d[3] = {pv[0] - pu[0], pv[1] - pu[1], pv[2] - pu[2]}, len2 = dot3(d, d);
            uint32_t k0 = k;
            for (uint32_t w = 0; w < corners; w++) {
                if (w == u || w == v)
                    continue;
                const double *pw = b->verts[w];
                double q[3] = {pw[0] - pu[0], pw[1] - pu[1], pw[2] - pu[2]}, t = dot3(q, d) / len2;
                if (!(t > 0.0 && t < 1.0))
                    continue;
                double x[3] = {q[0] - t * d[0], q[1] - t * d[1], q[2] - t * d[2]};
                if (dot3(x, x) > SWEEP_BSP_WELD_EPSILON * SWEEP_BSP_WELD_EPSILON)
                    continue;
                uint32_t pos = k;
                while (pos > k0) {
                    const double *pp = b->verts[b->ring[pos - 1]];
                    double qp[3] = {pp[0] - pu[0], pp[1] - pu[1], pp[2] - pu[2]};
                    if (dot3(qp, d) / len2 <= t)
                        break;
                    b->ring[pos] = b->ring[pos - 1];
                    pos--;
                }
                b->ring[pos] = w;
                k++;
            }
        }
        while (k > 1 && b->ring[k - 1] == b->ring[0])
            k--;
        if (k < 3)
            continue;
        uint32_t cap0 = face_cap;
        if (!(ok = grow_scratch(b, (void **)&face_ring, &face_cap, used + k, sizeof *face_ring)))
            break;
        if (!(ok = grow_scratch(b, (void **)&face_ids, &cap0, used + k, sizeof *face_ids)))
            break;
        uint32_t *mine = face_ids + used;
        for (uint32_t e = 0; e < k; e++) {
            uint32_t x = b->ring[e], pos = e;
            while (pos > 0 && mine[pos - 1] > x)
                mine[pos] = mine[pos - 1], pos--;
            mine[pos] = x;
        }
        memcpy(face_ring + used, b->ring, k * sizeof *b->ring);
        face_side[faces] = i, face_at[faces] = used, face_len[faces++] = k;
        used += k;
    }
    /* A face all of whose corners are corners of another face lies in it:
     * two planes crossing inside a sliver thinner than the weld. It is
     * kept once, as the larger face (the first of equal ones). */
    for (uint32_t f = 0; f < faces && ok; f++) {
        int inside = 0;
        for (uint32_t g = 0; g < faces && !inside; g++) {
            if (g == f || face_len[g] < face_len[f] || (face_len[g] == face_len[f] && g > f))
                continue;
            const uint32_t *a = face_ids + face_at[f], *c = face_ids + face_at[g];
            uint32_t x = 0, y = 0;
            while (x < face_len[f] && y < face_len[g])
                if (a[x] == c[y])
                    x++, y++;
                else if (a[x] > c[y])
                    y++;
                else
                    break;
            inside = x == face_len[f];
        }
        if (inside)
            continue;
        kept[nkept++] = f;
        const uint8_t *sd = record(b, L_BRUSHSIDES, first + face_side[f]);
        memcpy(b->ring, face_ring + face_at[f], face_len[f] * sizeof *b->ring);
        ok = fan_face(b, face_len[f], b->planes[i32_at(sd)].n, (uint32_t)i32_at(sd + 4), &nverts, &nt);
    }
    /* A shell of no volume (a flat brush, or one cut away to nothing) is
     * no solid. */
    double vol = 0.0;
    for (uint32_t t = 0; t < nt && ok; t++) {
        const uint32_t *x = &b->tris[4 * t];
        double c[3];
        cross3(b->verts[x[1]], b->verts[x[2]], c);
        vol += dot3(b->verts[x[0]], c) / 6.0;
    }
    int solid = ok && nt >= 4 && vol > MIN_VOLUME;
    if (solid && measure) {
        for (int i = 0; i < 3; i++)
            box[0][i] = INFINITY, box[1][i] = -INFINITY;
        for (uint32_t t = 0; t < 3 * nt; t++)
            for (int i = 0; i < 3; i++) {
                double x = b->verts[b->tris[4 * (t / 3) + t % 3]][i];
                box[0][i] = fmin(box[0][i], x), box[1][i] = fmax(box[1][i], x);
            }
        *made = 1;
    }
    /* The faces again, cut: a face nothing cut is fanned as above, the
     * pieces of one that was cut are welded and fanned one by one. */
    if (solid && cull && !measure) {
        uint32_t whole = nt;
        nt = 0;
        for (uint32_t i = 0; i < nkept && ok; i++) {
            uint32_t f = kept[i], which;
            const uint8_t *sd = record(b, L_BRUSHSIDES, first + face_side[f]);
            const plane *pf = &b->planes[i32_at(sd)];
            uint32_t sh = (uint32_t)i32_at(sd + 4);
            int cut;
            /* a face that meets no space a body can be in goes whole */
            if (!(ok = grow_scratch(b, (void **)&b->work, &b->work_cap, face_len[f], sizeof b->work[0])))
                break;
            for (uint32_t e = 0; e < face_len[f]; e++)
                memcpy(b->work[e], b->verts[face_ring[face_at[f] + e]], sizeof b->work[0]);
            if (!faces_open_space(b, (const double(*)[3])b->work, face_len[f], &ok) || !ok)
                continue;
            if (!(ok = cut_face(b, br, pf, face_ring + face_at[f], face_len[f], &which, &cut)))
                break;
            uint32_t before = nt, faces_before = b->faces.count, points_before = b->faces.points;
            memcpy(b->ring, face_ring + face_at[f], face_len[f] * sizeof *b->ring);
            if (!(ok = fan_face(b, face_len[f], pf->n, sh, &nverts, &nt)))
                break;
            if (!cut) {
                ok = keep_face(b, face_len[f], pf, sh);
                continue;
            }
            /* The pieces, unless they take more triangles than the whole
             * face (a small hole in a large face): what costs the core is
             * the triangles a move meets, not the area. */
            uint32_t whole_face = nt - before;
            nt = before;
            const polys *l = &b->frag[which];
            for (uint32_t g = 0; g < l->n && ok; g++) {
                if (!(ok = grow_scratch(b, (void **)&b->ring, &b->ring_cap, l->len[g], sizeof b->ring[0])))
                    break;
                if (!faces_open_space(b, (const double(*)[3])(l->p + l->at[g]), l->len[g], &ok) || !ok)
                    continue;
                uint32_t k = 0;
                for (uint32_t e = 0; e < l->len[g] && ok; e++) {
                    uint32_t id;
                    /* weld() may grow b->verts, never l */
                    ok = weld(b, &nverts, l->p[l->at[g] + e], &id);
                    if (ok && (k == 0 || b->ring[k - 1] != id))
                        b->ring[k++] = id;
                }
                while (k > 1 && b->ring[k - 1] == b->ring[0])
                    k--;
                if (ok && k >= 3)
                    ok = fan_face(b, k, pf->n, sh, &nverts, &nt) && keep_face(b, k, pf, sh);
            }
            if (ok && nt - before > whole_face) {
                nt = before;
                b->faces.count = faces_before, b->faces.points = points_before;
                memcpy(b->ring, face_ring + face_at[f], face_len[f] * sizeof *b->ring);
                ok = fan_face(b, face_len[f], pf->n, sh, &nverts, &nt) && keep_face(b, face_len[f], pf, sh);
            }
        }
        b->hidden_net += (int64_t)whole - (int64_t)nt;
    }
    free(ids);
    free(face_len);
    free(face_ids);
    free(face_side);
    free(face_at);
    free(face_ring);
    free(kept);
    free(counts);
    free(keep);
    if (!ok)
        return 0;
    if (!solid || measure)
        return 1;
    if (cull && b->merging) {
        /* the faces wait for the model's other brushes (emit_merged) */
        for (uint32_t t = 0; t < nt; t++) {
            const uint32_t *x = &b->tris[4 * t];
            b->merge_before +=
                !sweep_triangle_is_degenerate(v3_of(b->verts[x[0]]), v3_of(b->verts[x[1]]), v3_of(b->verts[x[2]]));
        }
        *made = 1;
        return 1;
    }
    ok = write_triangles(b, s, b->verts, nverts, b->tris, nt, NULL);
    *made = ok;
    return ok;
}

/* The faces the model's brushes kept, merged across brushes where they
 * lie on one plane, face the same way, have the same shader and share an
 * edge (maps/face_merge.h), and triangulated into s. */
static int emit_merged(bsp *b, sink *s)
{
    if (!sweep__face_merge(&b->faces, SWEEP_BSP_MERGE_EPSILON, &b->mesh))
        return sweep__bsp_nomem(b);
    const sweep__face_mesh *m = &b->mesh;
    int64_t written = 0;
    int ok = write_triangles(b, s, m->v, m->vertices, m->tri, m->triangles, &written);
    b->merge_net += b->merge_before - written;
    b->merge_before = 0;
    sweep__face_set_clear(&b->faces);
    return ok;
}

/* Every player-solid brush and patch of model m into s. */
int sweep__bsp_model_geometry(bsp *b, uint32_t m, sink *s, uint32_t *solid, uint32_t *empty)
{
    const model *md = &b->models[m];
    const int cull = !(b->opt && b->opt->keep_hidden_faces);
    b->merging = cull && !(b->opt && b->opt->no_merge_faces);
    sweep__face_set_clear(&b->faces);
    b->merge_before = 0;
    b->in_world = m == 0;
    /* The model's solid brushes and their boxes first: they cut each
     * other's faces. */
    b->cut_count = 0;
    for (uint32_t i = 0; cull && i < md->brushes; i++) {
        uint32_t br = md->first_brush + i;
        int64_t sh = i32_at(record(b, L_BRUSHES, br) + 8);
        if (!(b->shaders[sh].contents & PLAYER_SOLID))
            continue;
        int made = 0;
        double box[2][3];
        if (!brush_shell(b, br, s, &made, 0, 1, box))
            return 0;
        if (!made)
            continue;
        uint32_t c0 = b->cut_cap, c1 = b->cut_cap;
        if (!grow_scratch(b, (void **)&b->cut_brush, &b->cut_cap, b->cut_count + 1, sizeof *b->cut_brush) ||
            !grow_scratch(b, (void **)&b->cut_lo, &c0, b->cut_count + 1, sizeof *b->cut_lo) ||
            !grow_scratch(b, (void **)&b->cut_hi, &c1, b->cut_count + 1, sizeof *b->cut_hi))
            return 0;
        b->cut_brush[b->cut_count] = br;
        memcpy(b->cut_lo[b->cut_count], box[0], sizeof box[0]);
        memcpy(b->cut_hi[b->cut_count++], box[1], sizeof box[1]);
    }
    for (uint32_t i = 0; i < md->brushes; i++) {
        uint32_t br = md->first_brush + i;
        int64_t sh = i32_at(record(b, L_BRUSHES, br) + 8);
        if (!(b->shaders[sh].contents & PLAYER_SOLID))
            continue;
        int made;
        if (!brush_shell(b, br, s, &made, cull, 0, NULL))
            return 0;
        if (solid)
            (*solid)++;
        if (!made && empty)
            (*empty)++;
    }
    if (b->merging && !emit_merged(b, s))
        return 0;
    for (uint32_t i = 0; i < md->faces; i++)
        if (!sweep__bsp_patch_face(b, md->first_face + i, s))
            return 0;
    return 1;
}
