/*
 * face_merge.c - coplanar convex polygons merged and triangulated (see
 * face_merge.h).
 *
 * The merge is the one of id Software's qbsp and q3map (TryMergeWinding):
 * two convex polygons on one plane that share an edge, the same two
 * vertices run opposite ways, make one polygon, the outline of the first
 * from the edge's far end round to its near end followed by the rest of
 * the second, and the result is kept if it is still convex. Vertices are
 * welded first, so an edge is shared exactly when both polygons name the
 * same two vertices; everything after that compares vertex numbers, not
 * coordinates. Polygons are only ever joined along whole shared edges,
 * so the union of the merged polygon is exactly the union of the two.
 */
#include "maps/face_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "maps/grow.h"

#define NONE UINT32_MAX
/* A group of more polygons than this (one plane, one key) is left as it
 * is: merging compares pairs, and no level has groups near this size (the
 * corpus's largest has a few hundred), but a broken or hostile file must
 * not make the import quadratic in its size. */
#define MAX_GROUP 4096
/* Nor does a merge that would leave an outline of more corners than this
 * (collinear ones included): a real level's are far smaller. */
#define MAX_OUTLINE 1024
/* The worst fan triangle (2 area / sum of squared sides; 0.29 for an
 * equilateral one) taken where corners may lie on a straight side: one
 * about 5,000 times as long as it is high. */
#define NEEDLE 1e-4
/* Rounds of keeping the corners another polygon keeps (keep_shared)
 * before every corner on two outlines is kept. */
#define SHARED_ROUNDS 8

int sweep__face_add(sweep__face_set *s, const double (*p)[3], uint32_t n, const double normal[3], double d,
                    uint32_t key)
{
    if (n < 3)
        return 1;
    if (!sweep__grow((void **)&s->p, &s->point_cap, (uint64_t)s->points + n, sizeof s->p[0]) ||
        !sweep__grow((void **)&s->f, &s->cap, (uint64_t)s->count + 1, sizeof s->f[0]))
        return 0;
    memcpy(s->p + s->points, p, n * sizeof p[0]);
    sweep__face *f = &s->f[s->count++];
    f->at = s->points, f->len = n, f->key = key, f->d = d;
    memcpy(f->n, normal, sizeof f->n);
    s->points += n;
    return 1;
}

int sweep__face_pin(sweep__face_set *s, const double p[3])
{
    if (!sweep__grow((void **)&s->pin, &s->pin_cap, (uint64_t)s->pins + 1, sizeof s->pin[0]))
        return 0;
    memcpy(s->pin[s->pins++], p, sizeof s->pin[0]);
    return 1;
}

void sweep__face_set_clear(sweep__face_set *s)
{
    s->points = s->count = s->pins = 0;
}

void sweep__face_set_free(sweep__face_set *s)
{
    free(s->p), free(s->f), free(s->pin);
    memset(s, 0, sizeof *s);
}

void sweep__face_mesh_free(sweep__face_mesh *m)
{
    free(m->v), free(m->tri);
    memset(m, 0, sizeof *m);
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

/* dot(cross(a, b), n) */
static double cross_dot(const double a[3], const double b[3], const double n[3])
{
    return (a[1] * b[2] - a[2] * b[1]) * n[0] + (a[2] * b[0] - a[0] * b[2]) * n[1] + (a[0] * b[1] - a[1] * b[0]) * n[2];
}

/* ------------------------------------------------------------------------
 * Welding: a grid of cells eps * 4 wide, hashed; a point is the lowest
 * numbered vertex within eps of it in its cell and the 26 around, else a
 * new vertex. The lowest number, not the first in a chain, so the hash
 * decides nothing.
 */

typedef struct welder {
    uint32_t *head, mask;
    uint32_t *next;
    uint32_t next_cap;
    double cell, eps2;
} welder;

static uint32_t cell_slot(const welder *w, int64_t x, int64_t y, int64_t z)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)z * 0x165667B19E3779F9ull;
    h ^= h >> 31;
    return (uint32_t)h & w->mask;
}

/* The lowest numbered vertex within eps of x, or NONE; its cell in c. */
static uint32_t weld_find(const welder *w, const sweep__face_mesh *m, const double x[3], int64_t c[3])
{
    for (int i = 0; i < 3; i++)
        c[i] = (int64_t)floor(x[i] / w->cell);
    uint32_t best = NONE;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++)
                for (uint32_t v = w->head[cell_slot(w, c[0] + dx, c[1] + dy, c[2] + dz)]; v != NONE;
                     v = w->next[v]) {
                    double d[3];
                    sub3(m->v[v], x, d);
                    if (v < best && dot3(d, d) <= w->eps2)
                        best = v;
                }
    return best;
}

static int weld_point(welder *w, sweep__face_mesh *m, const double x[3], uint32_t *out)
{
    int64_t c[3];
    uint32_t best = weld_find(w, m, x, c);
    if (best != NONE) {
        *out = best;
        return 1;
    }
    if (!sweep__grow((void **)&m->v, &m->vertex_cap, (uint64_t)m->vertices + 1, sizeof m->v[0]) ||
        !sweep__grow((void **)&w->next, &w->next_cap, (uint64_t)m->vertices + 1, sizeof *w->next))
        return 0;
    uint32_t v = m->vertices++, slot = cell_slot(w, c[0], c[1], c[2]);
    memcpy(m->v[v], x, sizeof m->v[0]);
    w->next[v] = w->head[slot];
    w->head[slot] = v;
    *out = v;
    return 1;
}

/* ------------------------------------------------------------------------
 * Merging
 */

/* Removes r[i] from r[0..*k). */
static void remove_at(uint32_t *r, uint32_t *k, uint32_t i)
{
    memmove(r + i, r + i + 1, (*k - i - 1) * sizeof *r);
    (*k)--;
}

/* The outline r[0..k) without repeated neighbours and without the spikes
 * (x, y, x) that joining along a chain of shared edges leaves; its new
 * length, < 3 if nothing is left. */
static uint32_t cancel_spikes(uint32_t *r, uint32_t k)
{
    for (int again = 1; again && k >= 3;) {
        again = 0;
        for (uint32_t i = 0; i < k && k >= 3; i++) {
            uint32_t nx = (i + 1) % k, pv = (i + k - 1) % k;
            if (r[i] == r[nx]) {
                remove_at(r, &k, nx);
            } else if (r[pv] == r[nx]) {
                uint32_t hi = i > nx ? i : nx, lo = i > nx ? nx : i;
                remove_at(r, &k, hi);
                remove_at(r, &k, lo);
            } else {
                continue;
            }
            again = 1;
            break;
        }
    }
    return k;
}

/* P and Q (both simple: no vertex twice) joined along the first edge of P
 * (in P's order) that Q has run the other way, into r (room for np + nq);
 * the outline's length, 0 if they share no edge or nothing is left. where
 * holds each vertex's place in P, for the vertices whose mark is gen:
 * each edge of Q is looked up there, not searched for along P (a polygon
 * grown to hundreds of corners meets hundreds of candidates). In a simple
 * Q an edge of P is run back at most once, so the smallest place found is
 * the first edge of P that a search along it would find. */
static uint32_t join(const uint32_t *P, uint32_t np, const uint32_t *Q, uint32_t nq, uint32_t *r, const uint32_t *where,
                     const uint64_t *mark, uint64_t gen)
{
    uint32_t e = NONE, at_q = 0;
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t b = Q[q], a = Q[(q + 1) % nq]; /* Q runs b -> a: P must run a -> b */
        if (mark[a] != gen)
            continue;
        uint32_t pe = where[a];
        if (P[(pe + 1) % np] == b && pe < e)
            e = pe, at_q = q;
    }
    if (e == NONE)
        return 0;
    uint32_t k = 0;
    for (uint32_t t = 0; t < np; t++)
        r[k++] = P[(e + 1 + t) % np]; /* b round to a */
    for (uint32_t t = 2; t < nq; t++)
        r[k++] = Q[(at_q + t) % nq]; /* after a round to before b */
    k = cancel_spikes(r, k);
    return k >= 3 ? k : 0;
}

/* 1 if the outline r[0..k) is a convex polygon counter-clockwise about n,
 * allowing corners up to eps the wrong side of the line through their
 * neighbours: no vertex twice, no corner turning the wrong way by more,
 * and the direction of its edges turning once round. */
static int is_convex(const double (*v)[3], const uint32_t *r, uint32_t k, const double n[3], double eps,
                     uint64_t *stamp, uint64_t *gen)
{
    /* no vertex twice: each marked with this call's number (64 bits: it
     * never wraps) */
    ++*gen;
    for (uint32_t i = 0; i < k; i++) {
        if (stamp[r[i]] == *gen)
            return 0;
        stamp[r[i]] = *gen;
    }
    for (uint32_t i = 0; i < k; i++) {
        const double *p = v[r[(i + k - 1) % k]], *c = v[r[i]], *q = v[r[(i + 1) % k]];
        double e[3], w[3];
        sub3(q, p, e);
        sub3(c, p, w);
        if (cross_dot(e, w, n) > eps * sqrt(dot3(e, e)))
            return 0;
    }
    /* The winding: edge directions projected on the plane of the two axes
     * other than the normal's largest, counted as they cross the first
     * axis's positive direction turning left (+1) or right (-1). */
    int ax = fabs(n[0]) >= fabs(n[1]) && fabs(n[0]) >= fabs(n[2]) ? 0 : fabs(n[1]) >= fabs(n[2]) ? 1 : 2;
    int u = (ax + 1) % 3, w = (ax + 2) % 3, turns = 0;
    for (uint32_t i = 0; i < k; i++) {
        const double *a = v[r[i]], *b = v[r[(i + 1) % k]], *c = v[r[(i + 2) % k]];
        double d0[2] = {b[u] - a[u], b[w] - a[w]}, d1[2] = {c[u] - b[u], c[w] - b[w]};
        int up0 = d0[1] > 0 || (d0[1] == 0 && d0[0] > 0), up1 = d1[1] > 0 || (d1[1] == 0 && d1[0] > 0);
        double turn = d0[0] * d1[1] - d0[1] * d1[0];
        /* each turn is less than half a turn: a left one from the lower
         * half to the upper crosses the axis, not its opposite */
        if (!up0 && up1 && turn > 0)
            turns++;
        else if (up0 && !up1 && turn < 0)
            turns--;
    }
    return turns == (n[ax] > 0 ? 1 : -1);
}

/* ------------------------------------------------------------------------
 * Triangles
 */

/* How far x lies from the line through a and b (a != b). */
static double off_line(const double a[3], const double b[3], const double x[3])
{
    double e[3], w[3];
    sub3(b, a, e);
    sub3(x, a, w);
    double c[3] = {e[1] * w[2] - e[2] * w[1], e[2] * w[0] - e[0] * w[2], e[0] * w[1] - e[1] * w[0]};
    return sqrt(dot3(c, c) / dot3(e, e));
}

/* 1 if x is within eps of the segment a-b (beside it, not beyond it). */
static int on_segment(const double a[3], const double b[3], const double x[3], double eps)
{
    double e[3], w[3];
    sub3(b, a, e);
    sub3(x, a, w);
    double t = dot3(w, e);
    return t > 0.0 && t < dot3(e, e) && off_line(a, b, x) <= eps;
}

/* The corners of r[0..k) that are not within eps of the segment between
 * the corners kept on either side, into o; their number (< 3: no area).
 * Greedy from a corner that is surely one: each next corner kept is the
 * farthest ahead with every point skipped within eps of the chord and not
 * pinned (pinned: NULL, or a mark per vertex). */
static uint32_t drop_collinear(const double (*v)[3], const uint32_t *r, uint32_t k, double eps, const uint8_t *pinned,
                               uint32_t *o)
{
    uint32_t s = k;
    for (uint32_t i = 0; i < k && s == k; i++)
        if (off_line(v[r[(i + k - 1) % k]], v[r[(i + 1) % k]], v[r[i]]) > eps)
            s = i;
    if (s == k)
        return 0;
    uint32_t m = 0, cur = 0;
    o[m++] = r[s];
    while (cur < k) {
        uint32_t t = cur + 1;
        while (t < k) {
            int fits = 1;
            for (uint32_t j = cur + 1; j <= t && fits; j++)
                fits = !(pinned && pinned[r[(s + j) % k]]) &&
                       on_segment(v[r[(s + cur) % k]], v[r[(s + t + 1) % k]], v[r[(s + j) % k]], eps);
            if (!fits)
                break;
            t++;
        }
        if (t >= k)
            break;
        o[m++] = r[(s + t) % k];
        cur = t;
    }
    return m;
}

static int push_triangle(sweep__face_mesh *m, uint32_t a, uint32_t b, uint32_t c, uint32_t key)
{
    if (!sweep__grow((void **)&m->tri, &m->tri_cap, 4 * ((uint64_t)m->triangles + 1), sizeof *m->tri))
        return 0;
    uint32_t *t = &m->tri[4 * m->triangles++];
    t[0] = a, t[1] = b, t[2] = c, t[3] = key;
    return 1;
}

/* Fans the convex polygon o[0..k) from its best corner: the one whose
 * worst triangle (2 area / sum of squared sides) is best, and better than
 * least; from a new vertex at the centroid if none. least 0 asks only that
 * every triangle turn the right way; a polygon with corners kept on a
 * straight side (pinned) needs more, or a fan along that side would make
 * needles whose normal rounding chose. */
static int triangulate(sweep__face_mesh *m, const uint32_t *o, uint32_t k, const double n[3], uint32_t key,
                       double least)
{
    uint32_t apex = NONE;
    double best = least;
    for (uint32_t a = 0; a < k; a++) {
        double worst = INFINITY;
        for (uint32_t j = 1; j + 1 < k && worst > 0.0; j++) {
            const double *p0 = m->v[o[a]], *p1 = m->v[o[(a + j) % k]], *p2 = m->v[o[(a + j + 1) % k]];
            double e1[3], e2[3], e3[3];
            sub3(p1, p0, e1);
            sub3(p2, p0, e2);
            sub3(p2, p1, e3);
            double area2 = cross_dot(e1, e2, n), q = area2 / (dot3(e1, e1) + dot3(e2, e2) + dot3(e3, e3));
            worst = fmin(worst, area2 > 0.0 ? q : 0.0);
        }
        if (worst > best)
            best = worst, apex = a;
    }
    if (apex != NONE) {
        for (uint32_t j = 1; j + 1 < k; j++)
            if (!push_triangle(m, o[apex], o[(apex + j) % k], o[(apex + j + 1) % k], key))
                return 0;
        return 1;
    }
    double c[3] = {0, 0, 0};
    for (uint32_t j = 0; j < k; j++)
        for (int i = 0; i < 3; i++)
            c[i] += m->v[o[j]][i] / k;
    if (!sweep__grow((void **)&m->v, &m->vertex_cap, (uint64_t)m->vertices + 1, sizeof m->v[0]))
        return 0;
    uint32_t ci = m->vertices++;
    memcpy(m->v[ci], c, sizeof c);
    for (uint32_t j = 0; j < k; j++)
        if (!push_triangle(m, ci, o[j], o[(j + 1) % k], key))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * The whole
 */

typedef struct order {
    uint32_t key;
    double n[3], d;
    uint32_t face;
} order;

static int order_cmp(const void *pa, const void *pb)
{
    const order *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    for (int i = 0; i < 3; i++)
        if (a->n[i] != b->n[i])
            return a->n[i] < b->n[i] ? -1 : 1;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    return a->face < b->face ? -1 : a->face > b->face;
}

/* 1 if they are one plane and key: they may merge. */
static int same_group(const order *a, const order *b)
{
    return a->key == b->key && a->n[0] == b->n[0] && a->n[1] == b->n[1] && a->n[2] == b->n[2] && a->d == b->d;
}

typedef struct rings {
    uint32_t *pool, pool_len, pool_cap;
    uint32_t *at, *len;
    uint8_t *alive, *simple;
    double (*lo)[3], (*hi)[3];
    uint64_t *stamp, gen; /* a mark per vertex, for is_convex */
    uint32_t *where;      /* per vertex: its place in the outline join meets */
    uint64_t *mark, mark_gen;
} rings;

static void ring_box(const sweep__face_mesh *m, rings *g, uint32_t f)
{
    for (int i = 0; i < 3; i++)
        g->lo[f][i] = INFINITY, g->hi[f][i] = -INFINITY;
    for (uint32_t e = 0; e < g->len[f]; e++)
        for (int i = 0; i < 3; i++) {
            double x = m->v[g->pool[g->at[f] + e]][i];
            g->lo[f][i] = fmin(g->lo[f][i], x), g->hi[f][i] = fmax(g->hi[f][i], x);
        }
}

/* Puts into each polygon's edges the corners of the other polygons of
 * its group (faces[0..n)) that lie on them, in order along the edge: a
 * piece that meets only part of a neighbour's edge (a T-junction) then
 * shares that part as an edge of its own, and pieces that together span
 * the neighbour's edge can merge with it once they have merged. The
 * points lie on the edges (within eps), so no outline changes shape. */
static int split_edges(sweep__face_mesh *m, rings *g, const uint32_t *faces, uint32_t n, double eps,
                       uint32_t **scratch, uint32_t *scratch_cap)
{
    for (uint32_t a = 0; a < n; a++) {
        uint32_t i = faces[a];
        if (!g->alive[i] || !g->simple[i])
            continue;
        uint32_t added = 0;
        /* the corners of the polygons whose boxes meet this one's */
        for (uint32_t b = 0; b < n; b++) {
            uint32_t j = faces[b];
            int apart = !g->alive[j] || j == i;
            for (int c = 0; c < 3 && !apart; c++)
                apart |= g->lo[j][c] > g->hi[i][c] + eps || g->hi[j][c] < g->lo[i][c] - eps;
            if (apart)
                continue;
            if (!sweep__grow((void **)scratch, scratch_cap, (uint64_t)added + g->len[j], sizeof **scratch))
                return 0;
            for (uint32_t e = 0; e < g->len[j]; e++) {
                uint32_t x = g->pool[g->at[j] + e];
                int out = 0;
                for (int c = 0; c < 3; c++)
                    out |= m->v[x][c] > g->hi[i][c] + eps || m->v[x][c] < g->lo[i][c] - eps;
                if (!out)
                    (*scratch)[added++] = x;
            }
        }
        if (added == 0)
            continue;
        /* the new outline, after the candidates in the scratch */
        uint32_t len = g->len[i], *r = g->pool + g->at[i], k = 0;
        if (!sweep__grow((void **)scratch, scratch_cap, (uint64_t)added * (len + 1) + len, sizeof **scratch))
            return 0;
        r = g->pool + g->at[i];
        uint32_t *cand = *scratch, *o = *scratch + added;
        for (uint32_t e = 0; e < len; e++) {
            uint32_t u = r[e], w = r[(e + 1) % len];
            o[k++] = u;
            const double *pu = m->v[u], *pw = m->v[w];
            double d[3];
            sub3(pw, pu, d);
            uint32_t k0 = k;
            for (uint32_t c = 0; c < added; c++) {
                uint32_t x = cand[c];
                if (x == u || x == w || !on_segment(pu, pw, m->v[x], eps))
                    continue;
                double q[3];
                sub3(m->v[x], pu, q);
                double t = dot3(q, d);
                uint32_t pos = k, dup = 0;
                for (uint32_t z = k0; z < k; z++)
                    dup |= o[z] == x;
                if (dup)
                    continue;
                while (pos > k0) {
                    double qp[3];
                    sub3(m->v[o[pos - 1]], pu, qp);
                    if (dot3(qp, d) <= t)
                        break;
                    o[pos] = o[pos - 1];
                    pos--;
                }
                o[pos] = x;
                k++;
            }
        }
        if (k == len)
            continue;
        if (!sweep__grow((void **)&g->pool, &g->pool_cap, (uint64_t)g->pool_len + k, sizeof *g->pool))
            return 0;
        memcpy(g->pool + g->pool_len, o, k * sizeof *o);
        g->at[i] = g->pool_len, g->len[i] = k;
        g->pool_len += k;
    }
    return 1;
}

/* Merges the polygons of one group (faces[0..n), in input order) until no
 * two merge. */
static int merge_group(const sweep__face_set *s, sweep__face_mesh *m, rings *g, const uint32_t *faces, uint32_t n,
                       double eps, uint32_t **scratch, uint32_t *scratch_cap)
{
    if (!split_edges(m, g, faces, n, eps, scratch, scratch_cap))
        return 0;
    uint32_t marked_at = NONE; /* the outline whose vertices g->where places */
    for (int again = 1; again;) {
        again = 0;
        for (uint32_t a = 0; a < n; a++) {
            uint32_t i = faces[a];
            if (!g->alive[i] || !g->simple[i])
                continue;
            for (uint32_t b = a + 1; b < n; b++) {
                uint32_t j = faces[b];
                if (!g->alive[j] || !g->simple[j])
                    continue;
                int apart = 0;
                for (int c = 0; c < 3; c++)
                    apart |= g->lo[j][c] > g->hi[i][c] || g->hi[j][c] < g->lo[i][c];
                if (apart)
                    continue;
                if (!sweep__grow((void **)scratch, scratch_cap, (uint64_t)g->len[i] + g->len[j], sizeof **scratch))
                    return 0;
                if (g->len[i] + g->len[j] > MAX_OUTLINE + 2)
                    continue;
                if (marked_at != g->at[i]) { /* polygon i's outline, placed */
                    ++g->mark_gen;
                    for (uint32_t e = 0; e < g->len[i]; e++)
                        g->where[g->pool[g->at[i] + e]] = e, g->mark[g->pool[g->at[i] + e]] = g->mark_gen;
                    marked_at = g->at[i];
                }
                uint32_t k = join(g->pool + g->at[i], g->len[i], g->pool + g->at[j], g->len[j], *scratch, g->where,
                                  g->mark, g->mark_gen);
                if (k == 0 || !is_convex((const double(*)[3])m->v, *scratch, k, s->f[i].n, eps, g->stamp, &g->gen))
                    continue;
                if (!sweep__grow((void **)&g->pool, &g->pool_cap, (uint64_t)g->pool_len + k, sizeof *g->pool))
                    return 0;
                memcpy(g->pool + g->pool_len, *scratch, k * sizeof **scratch);
                g->at[i] = g->pool_len, g->len[i] = k;
                g->pool_len += k;
                g->alive[j] = 0;
                m->merged++;
                for (int c = 0; c < 3; c++)
                    g->lo[i][c] = fmin(g->lo[i][c], g->lo[j][c]), g->hi[i][c] = fmax(g->hi[i][c], g->hi[j][c]);
                again = 1;
                b = a; /* the new outline may meet polygons already passed */
            }
        }
    }
    return 1;
}

int sweep__face_merge(const sweep__face_set *s, double eps, sweep__face_mesh *out)
{
    out->vertices = out->triangles = out->merged = out->dropped = 0;
    const uint32_t nf = s->count;
    if (nf == 0)
        return 1;
    welder w = {.cell = 4 * eps, .eps2 = eps * eps};
    rings g = {0};
    order *ord = NULL;
    uint32_t *scratch = NULL, scratch_cap = 0, *faces = NULL;
    uint8_t *pinned = NULL, *kept = NULL;
    int ok = 0;
    uint32_t slots = 64;
    while (slots < 2 * (uint64_t)s->points && slots < (1u << 30))
        slots *= 2;
    w.mask = slots - 1;
    w.head = malloc(slots * sizeof *w.head);
    g.at = malloc(nf * sizeof *g.at), g.len = malloc(nf * sizeof *g.len);
    g.alive = malloc(nf), g.simple = malloc(nf);
    g.lo = malloc(nf * sizeof *g.lo), g.hi = malloc(nf * sizeof *g.hi);
    ord = malloc(nf * sizeof *ord), faces = malloc(nf * sizeof *faces);
    if (!w.head || !g.at || !g.len || !g.alive || !g.simple || !g.lo || !g.hi || !ord || !faces ||
        !sweep__grow((void **)&g.pool, &g.pool_cap, s->points, sizeof *g.pool))
        goto done;
    for (uint32_t i = 0; i < slots; i++)
        w.head[i] = NONE;
    /* Every corner welded; each polygon's outline of vertex numbers. */
    for (uint32_t f = 0; f < nf; f++) {
        const sweep__face *fc = &s->f[f];
        uint32_t k = 0, *r = g.pool + g.pool_len;
        for (uint32_t e = 0; e < fc->len; e++) {
            uint32_t id;
            if (!weld_point(&w, out, s->p[fc->at + e], &id))
                goto done;
            if (k == 0 || r[k - 1] != id)
                r[k++] = id;
        }
        while (k > 1 && r[k - 1] == r[0])
            k--;
        g.at[f] = g.pool_len, g.len[f] = k, g.alive[f] = k >= 3, g.simple[f] = 1;
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t j = i + 1; j < k; j++)
                g.simple[f] &= r[i] != r[j];
        if (k < 3)
            out->dropped++;
        g.pool_len += k;
        ring_box(out, &g, f);
        ord[f].key = fc->key, ord[f].d = fc->d, ord[f].face = f;
        memcpy(ord[f].n, fc->n, sizeof ord[f].n);
    }
    if (!(g.stamp = calloc(out->vertices ? out->vertices : 1, sizeof *g.stamp)) ||
        !(g.mark = calloc(out->vertices ? out->vertices : 1, sizeof *g.mark)) ||
        !(g.where = malloc((out->vertices ? out->vertices : 1) * sizeof *g.where)))
        goto done;
    if (s->pins) {
        if (!(pinned = calloc(out->vertices ? out->vertices : 1, 1)))
            goto done;
        for (uint32_t i = 0; i < s->pins; i++) {
            int64_t c[3];
            uint32_t v = weld_find(&w, out, s->pin[i], c);
            if (v != NONE)
                pinned[v] = 1;
        }
    }
    /* Groups of one plane and key, each in input order. */
    qsort(ord, nf, sizeof *ord, order_cmp);
    for (uint32_t g0 = 0, g1; g0 < nf; g0 = g1) {
        for (g1 = g0 + 1; g1 < nf && same_group(&ord[g0], &ord[g1]); g1++)
            ;
        if (g1 - g0 < 2 || g1 - g0 > MAX_GROUP)
            continue;
        for (uint32_t i = g0; i < g1; i++)
            faces[i - g0] = ord[i].face;
        if (!merge_group(s, out, &g, faces, g1 - g0, eps, &scratch, &scratch_cap))
            goto done;
    }
    /* Where one polygon keeps a corner that another drops as collinear,
     * the other keeps it too, until none differ (pins only grow); after
     * SHARED_ROUNDS, every corner on two outlines is pinned, which ends
     * it. */
    if (s->keep_shared) {
        const uint32_t nv = out->vertices ? out->vertices : 1;
        if ((!pinned && !(pinned = calloc(nv, 1))) || !(kept = malloc(nv)))
            goto done;
        for (int more = 1, round = 0; more; round++) {
            more = 0;
            if (round == SHARED_ROUNDS) {
                memset(kept, 0, nv);
                for (uint32_t f = 0; f < nf; f++)
                    for (uint32_t i = 0; g.alive[f] && i < g.len[f]; i++) {
                        uint32_t v = g.pool[g.at[f] + i];
                        pinned[v] |= kept[v];
                        kept[v] = 1;
                    }
                break;
            }
            memset(kept, 0, nv);
            for (int pass = 0; pass < 2; pass++)
                for (uint32_t f = 0; f < nf; f++) {
                    if (!g.alive[f])
                        continue;
                    if (!sweep__grow((void **)&scratch, &scratch_cap, g.len[f], sizeof *scratch))
                        goto done;
                    uint32_t k =
                        drop_collinear((const double(*)[3])out->v, g.pool + g.at[f], g.len[f], eps, pinned, scratch);
                    ++g.gen;
                    for (uint32_t i = 0; i < k; i++)
                        kept[scratch[i]] = 1, g.stamp[scratch[i]] = g.gen;
                    for (uint32_t i = 0; pass == 1 && i < g.len[f]; i++) {
                        uint32_t v = g.pool[g.at[f] + i];
                        if (g.stamp[v] != g.gen && kept[v] && !pinned[v])
                            pinned[v] = 1, more = 1;
                    }
                }
        }
    }
    /* Each polygon left, in input order (a merged one where its first
     * piece was), without its collinear corners, fanned. */
    for (uint32_t f = 0; f < nf; f++) {
        if (!g.alive[f])
            continue;
        if (!sweep__grow((void **)&scratch, &scratch_cap, g.len[f], sizeof *scratch))
            goto done;
        uint32_t k = drop_collinear((const double(*)[3])out->v, g.pool + g.at[f], g.len[f], eps, pinned, scratch);
        if (k < 3) {
            out->dropped++;
            continue;
        }
        if (!triangulate(out, scratch, k, s->f[f].n, s->f[f].key, s->keep_shared || s->pins ? NEEDLE : 0.0))
            goto done;
    }
    ok = 1;
done:
    free(w.head), free(w.next);
    free(g.pool), free(g.at), free(g.len), free(g.alive), free(g.simple), free(g.lo), free(g.hi), free(g.stamp);
    free(g.mark), free(g.where);
    free(ord), free(faces), free(scratch), free(pinned), free(kept);
    return ok;
}
