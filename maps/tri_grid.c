/*
 * tri_grid.c - a level's triangles by grid cell (tri_grid.h).
 */
#include "maps/tri_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cells along the longest side: about twice the cube root of the
 * triangles (a handful of triangles a cell on a level spread through its
 * box), at most this many. */
#define MOST_CELLS_A_SIDE 128u
/* More entries than this many a triangle (and a million) and the grid is
 * not worth its memory: huge triangles across many cells. */
#define MOST_ENTRIES_A_TRIANGLE 16u

static sweep_vec3 corner(const sweep_level *lv, uint32_t t, int k)
{
    return lv->vertices[lv->indices[3 * (size_t)t + (size_t)k]];
}

/* The cell along one axis holding x, rounded down and clamped: it never
 * decreases as x grows, so boxes that overlap reach into a shared cell. */
static uint32_t cell_of(double x, double lo, double cell, uint32_t dim)
{
    double f = floor((x - lo) / cell);
    if (!(f > 0.0))
        return 0; /* below, or NaN */
    return f >= (double)(dim - 1) ? dim - 1 : (uint32_t)f;
}

static void cells_of(const sweep__tri_grid *g, sweep_vec3 lo, sweep_vec3 hi, uint32_t a[3], uint32_t b[3])
{
    const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z}, o[3] = {g->lo.x, g->lo.y, g->lo.z};
    for (int k = 0; k < 3; k++) {
        a[k] = cell_of(l[k], o[k], g->cell, g->dim[k]);
        b[k] = cell_of(h[k], o[k], g->cell, g->dim[k]);
    }
}

static void tri_box(const sweep_level *lv, uint32_t t, sweep_vec3 *lo, sweep_vec3 *hi)
{
    sweep_vec3 p = corner(lv, t, 0), q = corner(lv, t, 1), r = corner(lv, t, 2);
    *lo = sweep_v3_min(p, sweep_v3_min(q, r));
    *hi = sweep_v3_max(p, sweep_v3_max(q, r));
}

sweep_status sweep__tri_grid_build(sweep__tri_grid *g, const sweep_level *lv)
{
    memset(g, 0, sizeof *g);
    uint32_t n = lv->triangle_count;
    g->triangles = n;
    g->out = malloc((n ? n : 1) * sizeof *g->out);
    g->seen = calloc(n ? n : 1, sizeof *g->seen);
    if (!g->out || !g->seen) {
        sweep__tri_grid_free(g);
        return SWEEP_E_NOMEM;
    }
    if (n < 64)
        return SWEEP_OK; /* a loop over them all is as quick */
    sweep_vec3 lo, hi, tlo, thi;
    tri_box(lv, 0, &lo, &hi);
    for (uint32_t t = 1; t < n; t++) {
        tri_box(lv, t, &tlo, &thi);
        lo = sweep_v3_min(lo, tlo), hi = sweep_v3_max(hi, thi);
    }
    sweep_vec3 ext = sweep_v3_sub(hi, lo);
    double longest = fmax(ext.x, fmax(ext.y, ext.z));
    double side = ceil(2.0 * cbrt((double)n));
    if (side > MOST_CELLS_A_SIDE)
        side = MOST_CELLS_A_SIDE;
    if (!(longest > 0.0) || !isfinite(longest))
        return SWEEP_OK;
    g->lo = lo;
    g->cell = longest / side;
    const double e[3] = {ext.x, ext.y, ext.z};
    uint64_t cells = 1;
    for (int k = 0; k < 3; k++) {
        double d = ceil(e[k] / g->cell);
        g->dim[k] = d < 1.0 ? 1u : d > MOST_CELLS_A_SIDE ? MOST_CELLS_A_SIDE : (uint32_t)d;
        cells *= g->dim[k];
    }
    /* Count each cell's triangles, then place them, in triangle order. */
    uint64_t entries = 0;
    const uint64_t most = (uint64_t)MOST_ENTRIES_A_TRIANGLE * n + 1000000u;
    for (uint32_t t = 0; t < n && entries <= most; t++) {
        uint32_t a[3], b[3];
        tri_box(lv, t, &tlo, &thi);
        cells_of(g, tlo, thi, a, b);
        entries += (uint64_t)(b[0] - a[0] + 1) * (b[1] - a[1] + 1) * (b[2] - a[2] + 1);
    }
    if (entries > most)
        return SWEEP_OK;
    g->first = calloc(cells + 1, sizeof *g->first);
    g->items = malloc((entries ? entries : 1) * sizeof *g->items);
    if (!g->first || !g->items) {
        sweep__tri_grid_free(g);
        return SWEEP_E_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < n; t++) {
            uint32_t a[3], b[3];
            tri_box(lv, t, &tlo, &thi);
            cells_of(g, tlo, thi, a, b);
            for (uint32_t z = a[2]; z <= b[2]; z++)
                for (uint32_t y = a[1]; y <= b[1]; y++)
                    for (uint32_t x = a[0]; x <= b[0]; x++) {
                        size_t c = ((size_t)z * g->dim[1] + y) * g->dim[0] + x;
                        if (pass == 0)
                            g->first[c + 1]++;
                        else
                            g->items[g->first[c]++] = t;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++)
                g->first[c + 1] += g->first[c];
        } else {
            /* Each first[c] moved on to where cell c + 1 begins. */
            memmove(g->first + 1, g->first, cells * sizeof *g->first);
            g->first[0] = 0;
        }
    }
    g->built = 1;
    return SWEEP_OK;
}

static int increasing(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

const uint32_t *sweep__tri_grid_query(sweep__tri_grid *g, sweep_vec3 lo, sweep_vec3 hi, uint32_t *n)
{
    uint32_t k = 0;
    if (!g->built) {
        for (uint32_t t = 0; t < g->triangles; t++)
            g->out[k++] = t;
        *n = k;
        return g->out;
    }
    if (++g->query == 0) { /* wrapped: every mark is stale */
        memset(g->seen, 0, g->triangles * sizeof *g->seen);
        g->query = 1;
    }
    uint32_t a[3], b[3];
    cells_of(g, lo, hi, a, b);
    for (uint32_t z = a[2]; z <= b[2]; z++)
        for (uint32_t y = a[1]; y <= b[1]; y++)
            for (uint32_t x = a[0]; x <= b[0]; x++) {
                size_t c = ((size_t)z * g->dim[1] + y) * g->dim[0] + x;
                for (uint32_t i = g->first[c]; i < g->first[c + 1]; i++) {
                    uint32_t t = g->items[i];
                    if (g->seen[t] != g->query) {
                        g->seen[t] = g->query;
                        g->out[k++] = t;
                    }
                }
            }
    qsort(g->out, k, sizeof *g->out, increasing);
    *n = k;
    return g->out;
}

void sweep__tri_grid_free(sweep__tri_grid *g)
{
    free(g->first), free(g->items), free(g->seen), free(g->out);
    memset(g, 0, sizeof *g);
}
