/*
 * shell_volume.c - a volume from a closed convex shell (shell_volume.h).
 *
 * Welding sorts the vertices by position and edges are found by sorting
 * too, with indices breaking ties, so the outcome is a function of the
 * triangles alone (no hashing, no pointer order).
 */
#include "maps/shell_volume.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far outside a face's plane a vertex may be, as a fraction of the
 * shell's size: a few single-precision roundings of a file's vertices. */
#define CONVEX_SLACK 1e-6

static int say(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const sweep_vec3 *sort_pts;

static int by_position(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    const double p[3] = {sort_pts[i].x, sort_pts[i].y, sort_pts[i].z};
    const double q[3] = {sort_pts[j].x, sort_pts[j].y, sort_pts[j].z};
    for (int k = 0; k < 3; k++)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return i < j ? -1 : i > j;
}

typedef struct edge {
    uint32_t a, b; /* welded vertices, in the triangle's order */
} edge;

static int by_edge(const void *x, const void *y)
{
    const edge *e = x, *f = y;
    if (e->a != f->a)
        return e->a < f->a ? -1 : 1;
    return e->b < f->b ? -1 : e->b > f->b;
}

int sweep__shell_volume(const sweep_vec3 *pts, uint32_t npts, const uint32_t *tri, uint32_t ntri, sweep_volume *v,
                        char *why, size_t whylen)
{
    if (ntri < 4)
        return say(why, whylen, "%u triangles: a closed shell has at least 4", ntri);
    for (uint32_t i = 0; i < 3 * ntri; i++)
        if (tri[i] >= npts)
            return say(why, whylen, "triangle %u names vertex %u of %u", i / 3, tri[i], npts);
    uint32_t *order = malloc((size_t)npts * sizeof *order), *weld = malloc((size_t)npts * sizeof *weld);
    edge *edges = malloc((size_t)3 * ntri * sizeof *edges);
    int rc = -1;
    if (!order || !weld || !edges) {
        say(why, whylen, "out of memory");
        goto done;
    }
    /* Weld: each vertex becomes the first of its position. */
    for (uint32_t i = 0; i < npts; i++)
        order[i] = i;
    sort_pts = pts;
    qsort(order, npts, sizeof *order, by_position);
    for (uint32_t k = 0; k < npts; k++) {
        uint32_t i = order[k];
        const sweep_vec3 *p = k > 0 ? &pts[order[k - 1]] : NULL;
        weld[i] = p && p->x == pts[i].x && p->y == pts[i].y && p->z == pts[i].z ? weld[order[k - 1]] : i;
    }
    /* Closed and wound one way: every edge once each way. */
    for (uint32_t t = 0; t < ntri; t++) {
        uint32_t a = weld[tri[3 * t]], b = weld[tri[3 * t + 1]], c = weld[tri[3 * t + 2]];
        if (a == b || b == c || c == a) {
            say(why, whylen, "triangle %u has two corners at one place (%g, %g, %g)", t, pts[a == b ? a : c].x,
                pts[a == b ? a : c].y, pts[a == b ? a : c].z);
            goto done;
        }
        edges[3 * t] = (edge){a, b}, edges[3 * t + 1] = (edge){b, c}, edges[3 * t + 2] = (edge){c, a};
    }
    size_t ne = (size_t)3 * ntri;
    qsort(edges, ne, sizeof *edges, by_edge);
    for (size_t i = 0; i < ne; i++) {
        const edge *e = &edges[i];
        if (i + 1 < ne && by_edge(e, &edges[i + 1]) == 0) {
            say(why, whylen,
                "not a closed shell wound one way: the edge from (%g, %g, %g) to (%g, %g, %g) is run the same way by "
                "two triangles",
                pts[e->a].x, pts[e->a].y, pts[e->a].z, pts[e->b].x, pts[e->b].y, pts[e->b].z);
            goto done;
        }
        edge r = {e->b, e->a};
        if (!bsearch(&r, edges, ne, sizeof *edges, by_edge)) {
            say(why, whylen,
                "not a closed shell: the edge from (%g, %g, %g) to (%g, %g, %g) belongs to one triangle only (a "
                "hole), or to triangles wound opposite ways",
                pts[e->a].x, pts[e->a].y, pts[e->a].z, pts[e->b].x, pts[e->b].y, pts[e->b].z);
            goto done;
        }
    }
    /* The box, and the shell's size for the slack. */
    sweep_vec3 lo = pts[tri[0]], hi = lo;
    for (uint32_t i = 0; i < 3 * ntri; i++) {
        sweep_vec3 p = pts[tri[i]];
        lo = sweep_v3(fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z));
        hi = sweep_v3(fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z));
    }
    double size = sweep_v3_len(sweep_v3_sub(hi, lo)), slack = CONVEX_SLACK * size;
    if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z)) {
        say(why, whylen, "flat: its box (%g, %g, %g) .. (%g, %g, %g) holds nothing", lo.x, lo.y, lo.z, hi.x, hi.y,
            hi.z);
        goto done;
    }
    /* Wound outward: a positive volume (the divergence theorem over its
     * triangles, about the box's corner). */
    double vol = 0.0;
    for (uint32_t t = 0; t < ntri; t++) {
        sweep_vec3 a = sweep_v3_sub(pts[tri[3 * t]], lo), b = sweep_v3_sub(pts[tri[3 * t + 1]], lo),
                   c = sweep_v3_sub(pts[tri[3 * t + 2]], lo);
        vol += sweep_v3_dot(a, sweep_v3_cross(b, c));
    }
    if (!(vol > 0.0)) {
        say(why, whylen, "wound inside out: its faces point inward (a volume of %g)", vol / 6.0);
        goto done;
    }
    v->lo = lo, v->hi = hi, v->plane_count = 0;
    for (uint32_t t = 0; t < ntri; t++) {
        sweep_vec3 a = pts[tri[3 * t]];
        sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(pts[tri[3 * t + 1]], a), sweep_v3_sub(pts[tri[3 * t + 2]], a));
        double len = sweep_v3_len(n);
        if (!(len > 0.0)) {
            say(why, whylen, "triangle %u at (%g, %g, %g) has no area", t, a.x, a.y, a.z);
            goto done;
        }
        n = sweep_v3_scale(n, 1.0 / len);
        /* Convex: nothing in front of a face. */
        double off = sweep_v3_dot(n, a), far = off;
        for (uint32_t i = 0; i < 3 * ntri; i++) {
            double d = sweep_v3_dot(n, pts[tri[i]]);
            if (d - off > slack) {
                sweep_vec3 p = pts[tri[i]];
                say(why, whylen,
                    "not convex: the corner (%g, %g, %g) is %g in front of the face through (%g, %g, %g) facing "
                    "(%g, %g, %g)",
                    p.x, p.y, p.z, d - off, a.x, a.y, a.z, n.x, n.y, n.z);
                goto done;
            }
            far = fmax(far, d);
        }
        /* A face along an axis is the box's own side. */
        int zeros = (n.x == 0.0) + (n.y == 0.0) + (n.z == 0.0);
        if (zeros == 2)
            continue;
        uint32_t k = 0;
        while (k < v->plane_count && !(sweep_v3_dot(v->planes[k].normal, n) >= 1.0 - 1e-9 &&
                                       fabs(v->planes[k].offset - far) <= slack))
            k++;
        if (k < v->plane_count) {
            v->planes[k].offset = fmax(v->planes[k].offset, far);
            continue;
        }
        if (v->plane_count == SWEEP_VOLUME_MAX_PLANES) {
            say(why, whylen, "more than %u faces that are not along an axis (coplanar ones counted once)",
                SWEEP_VOLUME_MAX_PLANES);
            goto done;
        }
        v->planes[v->plane_count++] = (sweep_volume_plane){n, far};
    }
    rc = 0;
done:
    free(order);
    free(weld);
    free(edges);
    return rc;
}
