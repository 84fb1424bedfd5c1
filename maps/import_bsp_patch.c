/*
 * import_bsp_patch.c - Quake 3's curved patches into triangles.
 *
 * A patch is a surface with no inside, hit from either side in Quake 3,
 * so each of its triangles is written in both windings.
 *
 * Patches are cut as their curves need (patch_steps): a block is measured
 * against its triangles and its column or row of the patch cut once more
 * until it is within the tolerance, as Quake 3's collision model cuts a
 * patch's columns until each curve's midpoint is near its chord (it stops
 * at 16 units, far coarser than the default here). Flat parts become big
 * quads, and a player pressed into a curve meets far fewer triangles than
 * with a fixed 4 x 4 grid a block, which cut flat blocks as finely as
 * curved ones and large arches too coarsely. Cracks: inside a patch there
 * are none, since a seam between blocks is cut once for both. Between two
 * patches meeting along an edge nothing is welded: with the fixed grid
 * both cut the edge at the same parameters, so their points agree to the
 * rounding of the sums (exactly when both run the edge the same way);
 * cut adaptively, each patch's edge is within the tolerance of the same
 * curve, so a gap is at most twice the tolerance, which no player fits
 * through.
 */
#include "maps/import_bsp_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Patch control grids wider than this are refused (q3map stays at 65). */
#define MAX_PATCH_SIDE 257
/* The patches of one level make at most this many triangles: 10 times the
 * most of any shipped level of the corpus cut to the fixed grid (52,032),
 * and about half a gigabyte of the import's memory, far below what a small
 * file could otherwise ask for, since any number of face records may name
 * one control grid (one 104-byte record of a 257 x 257 grid is 16.7 million
 * triangles). */
#define SWEEP_BSP_PATCH_TRIANGLES_MAX (1u << 19)
/* A face's type in the faces lump: a patch. */
#define FACE_PATCH 2

/* Quadratic Bernstein weights at u. */
static void bernstein(double u, double w[3])
{
    double v = 1.0 - u;
    w[0] = v * v, w[1] = 2.0 * u * v, w[2] = u * u;
}

static double norm_of(double x, double y, double z)
{
    return sqrt(x * x + y * y + z * z);
}

/* The point of block (jx, jy) of a patch at (u, v), summed as the grid of
 * sweep__bsp_patch_face sums it, so that a corner comes out the same. */
static void patch_point(const double *cp, int64_t w, uint32_t jx, uint32_t jy, double u, double v, double p[3])
{
    double wu[3], wv[3];
    bernstein(u, wu);
    bernstein(v, wv);
    p[0] = p[1] = p[2] = 0.0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            const double *q = &cp[3 * ((2 * (size_t)jy + a) * (size_t)w + 2 * (size_t)jx + c)];
            for (int k = 0; k < 3; k++)
                p[k] += wv[a] * wu[c] * q[k];
        }
}

/* Distance from p to the triangle (a, b, c): the closest point as in
 * Ericson, "Real-Time Collision Detection" (2005), 5.1.5. */
static double point_triangle_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return norm_of(ap[0], ap[1], ap[2]);
    double bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return norm_of(bp[0], bp[1], bp[2]);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double t = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + t * ab[k];
        return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return norm_of(cp[0], cp[1], cp[2]);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double t = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + t * ac[k];
        return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + t * (c[k] - b[k]);
        return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
    double den = va + vb + vc;
    if (!(den > 0)) /* a degenerate triangle: its nearest corner will do */
        return norm_of(ap[0], ap[1], ap[2]);
    double v = vb / den, t = vc / den;
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + v * ab[k] + t * ac[k];
    return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/*
 * How far a block's piecewise-linear interpolant on an m x n grid of its
 * parameters (each cell split along the diagonal sweep__bsp_patch_face
 * uses) is from the block, at most, point for point:
 *     a / m^2 + b / n^2 + c / (m n)
 * (the interpolation error of a tensor-product surface, split into its
 * parts as in de Boor, "A Practical Guide to Splines"): a is the most a
 * u-curve's midpoint strays from its chord, |P0 - 2 P1 + P2| / 4 for the
 * control rows (a quadratic's second derivative is constant, and linear
 * interpolation errs by at most |C''| h^2 / 8 on a step h); b the same
 * along v; c the largest twist |P(a+1,c+1) - P(a+1,c) - P(a,c+1) + P(a,c)|
 * of the control grid, which bounds what the diagonal split of a cell adds
 * to bilinear interpolation (a quarter of the cell's twist, at most
 * 4 c / (m n)). This is a distance between points of the same parameters,
 * so it also counts how unevenly the parameters run along the surface,
 * which moves no point off the surface: used for the tessellation itself
 * it cuts far more than needed, so it only bounds what lies between the
 * samples of patch_error.
 */
typedef struct patch_block {
    double a, b, c;
} patch_block;

static double patch_bound(const patch_block *k, double m, double n)
{
    return k->a / (m * m) + k->b / (n * n) + k->c / (m * n);
}

static void patch_block_of(const double *cp, int64_t w, uint32_t jx, uint32_t jy, patch_block *k)
{
#define CP(r, col) (&cp[3 * ((2 * (size_t)jy + (r)) * (size_t)w + 2 * (size_t)jx + (col))])
    k->a = k->b = k->c = 0.0;
    for (int i = 0; i < 3; i++) {
        const double *p0 = CP(i, 0), *p1 = CP(i, 1), *p2 = CP(i, 2);
        double d = norm_of(p0[0] - 2 * p1[0] + p2[0], p0[1] - 2 * p1[1] + p2[1], p0[2] - 2 * p1[2] + p2[2]) / 4;
        k->a = d > k->a ? d : k->a;
        p0 = CP(0, i), p1 = CP(1, i), p2 = CP(2, i);
        d = norm_of(p0[0] - 2 * p1[0] + p2[0], p0[1] - 2 * p1[1] + p2[1], p0[2] - 2 * p1[2] + p2[2]) / 4;
        k->b = d > k->b ? d : k->b;
    }
    for (int r = 0; r < 2; r++)
        for (int col = 0; col < 2; col++) {
            const double *p00 = CP(r, col), *p01 = CP(r, col + 1), *p10 = CP(r + 1, col), *p11 = CP(r + 1, col + 1);
            double d = norm_of(p11[0] - p10[0] - p01[0] + p00[0], p11[1] - p10[1] - p01[1] + p00[1],
                               p11[2] - p10[2] - p01[2] + p00[2]);
            k->c = d > k->c ? d : k->c;
        }
#undef CP
}

/* Samples per cell side when measuring a tessellation's error. */
#define PATCH_SAMPLES 4

/*
 * The most block (jx, jy) (its bounds k) can be from its tessellation
 * into nu x nv cells. Each cell is sampled on a lattice of
 * PATCH_SAMPLES + 1 points a side, and each sample's distance taken to the
 * cell's triangle its parameters fall in (to both on the diagonal). The
 * samples' own triangles (the lattice split along the same diagonal) lie
 * each within one of the cell's triangles, so by convexity of the
 * distance to a triangle no point of a sample triangle is farther from it
 * than its corners; and no point of the surface is farther from the
 * sample triangles than patch_bound on the lattice. Their sum is the
 * block's error, a bound, not an estimate. The distance is to a triangle,
 * not to the point of the same parameters, so a curve whose control points
 * lie unevenly along a straight line costs nothing (Quake 3's renderer
 * measures curves off their chords for the same reason).
 */
static double patch_error(const double *cp, int64_t w, uint32_t jx, uint32_t jy, const patch_block *k, uint32_t nu,
                          uint32_t nv)
{
    const uint32_t K = PATCH_SAMPLES;
    double worst = 0.0;
    for (uint32_t j = 0; j < nv; j++)
        for (uint32_t i = 0; i < nu; i++) {
            double c00[3], c10[3], c11[3], c01[3];
            patch_point(cp, w, jx, jy, (double)i / nu, (double)j / nv, c00);
            patch_point(cp, w, jx, jy, (double)(i + 1) / nu, (double)j / nv, c10);
            patch_point(cp, w, jx, jy, (double)(i + 1) / nu, (double)(j + 1) / nv, c11);
            patch_point(cp, w, jx, jy, (double)i / nu, (double)(j + 1) / nv, c01);
            for (uint32_t t = 0; t <= K; t++)
                for (uint32_t s = 0; s <= K; s++) {
                    double p[3], d = 0.0;
                    patch_point(cp, w, jx, jy, ((double)i + (double)s / K) / nu, ((double)j + (double)t / K) / nv, p);
                    /* the triangles (00, 10, 11) for s >= t, (00, 11, 01) for s <= t */
                    if (s >= t)
                        d = point_triangle_distance(p, c00, c10, c11);
                    if (s <= t)
                        d = fmax(d, point_triangle_distance(p, c00, c11, c01));
                    worst = d > worst ? d : worst;
                }
        }
    return worst + patch_bound(k, (double)nu * K, (double)nv * K);
}

/*
 * Steps across each block column (nu[jx]) and block row (nv[jy]) of a
 * patch of bx x by blocks, so that every block is within tol of its
 * tessellation (patch_error). A whole column (row) of the patch is cut
 * alike, so two blocks sharing an edge split it at the same points and
 * share its vertices (Quake 3's collision model cuts its patch grids by
 * whole columns and rows for the same reason). Each block, in order, whose
 * error exceeds tol has its column or row cut once more, whichever leaves
 * the smaller error (the column on a tie), until it fits; passes repeat
 * until one changes nothing, since cutting a block's column anew need not
 * lower another block's error. At most SWEEP_BSP_PATCH_MAX_STEPS steps a
 * block, whatever the tolerance. tol <= 0: every block
 * SWEEP_BSP_PATCH_LEVEL steps each way, the fixed tessellation.
 */
static void patch_steps(const double *cp, int64_t w, uint32_t bx, uint32_t by, double tol, uint32_t *nu,
                        uint32_t *nv)
{
    for (uint32_t j = 0; j < bx; j++)
        nu[j] = tol > 0 ? 1 : SWEEP_BSP_PATCH_LEVEL;
    for (uint32_t j = 0; j < by; j++)
        nv[j] = tol > 0 ? 1 : SWEEP_BSP_PATCH_LEVEL;
    if (!(tol > 0))
        return;
    const uint32_t M = SWEEP_BSP_PATCH_MAX_STEPS;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t jy = 0; jy < by; jy++)
            for (uint32_t jx = 0; jx < bx; jx++) {
                patch_block k;
                patch_block_of(cp, w, jx, jy, &k);
                double e = patch_error(cp, w, jx, jy, &k, nu[jx], nv[jy]);
                while (e > tol && (nu[jx] < M || nv[jy] < M)) {
                    double eu = nu[jx] < M ? patch_error(cp, w, jx, jy, &k, nu[jx] + 1, nv[jy]) : INFINITY;
                    double ev = nv[jy] < M ? patch_error(cp, w, jx, jy, &k, nu[jx], nv[jy] + 1) : INFINITY;
                    if (eu <= ev)
                        nu[jx]++, e = eu;
                    else
                        nv[jy]++, e = ev;
                    changed = 1;
                }
            }
    }
}

/* For each of the n[0] + ... + n[blocks - 1] + 1 grid lines along one
 * side of a patch: the block it is computed in and its parameter there (a
 * line on a seam belongs to the block after it, the last to the last
 * block, whose parameter is then 1). */
static void patch_lines(const uint32_t *n, uint32_t blocks, uint32_t *blk, double *t)
{
    uint32_t g = 0;
    for (uint32_t j = 0; j < blocks; j++)
        for (uint32_t k = 0; k < n[j]; k++, g++)
            blk[g] = j, t[g] = (double)k / n[j];
    blk[g] = blocks - 1, t[g] = 1.0;
}

/* Checks face f and, if it is a player-solid patch, tessellates it into s
 * (patch_steps says how finely). */
int sweep__bsp_patch_face(bsp *b, uint32_t f, sink *s)
{
    const uint8_t *r = record(b, L_FACES, f);
    if (i32_at(r + 8) != FACE_PATCH)
        return 1;
    int64_t sh = i32_at(r);
    if (!sweep__bsp_check_index(b, L_FACES, f, "shader", sh, L_SHADERS))
        return 0;
    if (!(b->shaders[sh].contents & PLAYER_SOLID))
        return 1;
    int64_t first = i32_at(r + 12), nv = i32_at(r + 16), w = i32_at(r + 96), h = i32_at(r + 100);
    if (w < 3 || h < 3 || w > MAX_PATCH_SIDE || h > MAX_PATCH_SIDE || w % 2 == 0 || h % 2 == 0)
        return sweep__bsp_fail(
            b, LUMP_FMT ": record %u: a patch of %lld x %lld control points (each must be odd, 3 to %d)",
            LUMP_ARG(L_FACES), f, (long long)w, (long long)h, MAX_PATCH_SIDE);
    if (nv != w * h)
        return sweep__bsp_fail(b, LUMP_FMT ": record %u: a patch of %lld x %lld control points has %lld vertices",
                               LUMP_ARG(L_FACES), f, (long long)w, (long long)h, (long long)nv);
    if (!sweep__bsp_check_range(b, L_FACES, f, "vertices", first, nv, L_VERTEXES))
        return 0;
    double *cp = malloc((size_t)nv * 3 * sizeof *cp);
    if (!cp)
        return sweep__bsp_nomem(b);
    for (int64_t i = 0; i < nv; i++) {
        const uint8_t *v = record(b, L_VERTEXES, (uint32_t)(first + i));
        for (int k = 0; k < 3; k++)
            cp[3 * i + k] = f32_at(v + 4 * k);
        if (!sweep__bsp_check_finite(b, L_VERTEXES, (uint32_t)(first + i), "a position", &cp[3 * i], 3)) {
            free(cp);
            return 0;
        }
    }
    const uint32_t bx = (uint32_t)(w - 1) / 2, by = (uint32_t)(h - 1) / 2;
    uint32_t *su = malloc(((size_t)bx + by) * sizeof *su), *sv = su ? su + bx : NULL;
    if (!su) {
        free(cp);
        return sweep__bsp_nomem(b);
    }
    patch_steps(cp, w, bx, by, b->patch_tolerance, su, sv);
    uint32_t gw = 1, gh = 1;
    for (uint32_t j = 0; j < bx; j++)
        gw += su[j];
    for (uint32_t j = 0; j < by; j++)
        gh += sv[j];
    b->patch_triangles += 2 * (uint64_t)(gw - 1) * (gh - 1);
    if (b->patch_triangles > SWEEP_BSP_PATCH_TRIANGLES_MAX) {
        free(cp);
        free(su);
        return sweep__bsp_fail(b,
                               LUMP_FMT ": record %u: the patches so far make %llu triangles, more than a level's "
                                        "patches may (%u)",
                               LUMP_ARG(L_FACES), f, (unsigned long long)b->patch_triangles,
                               SWEEP_BSP_PATCH_TRIANGLES_MAX);
    }
    uint32_t *grid = malloc((size_t)gw * gh * sizeof *grid);
    double (*gp)[3] = malloc((size_t)gw * gh * sizeof *gp);
    uint32_t *colblk = malloc(((size_t)gw + gh) * sizeof *colblk);
    double *colu = malloc(((size_t)gw + gh) * sizeof *colu);
    uint32_t mat;
    int ok = grid && gp && colblk && colu && sweep__bsp_material_of(b, (uint32_t)sh, &mat);
    if (!grid || !gp || !colblk || !colu)
        ok = sweep__bsp_nomem(b);
    uint32_t *rowblk = colblk ? colblk + gw : NULL;
    double *rowv = colu ? colu + gw : NULL;
    if (ok) {
        patch_lines(su, bx, colblk, colu);
        patch_lines(sv, by, rowblk, rowv);
    }
    /* Each grid point once, from the block it lies in (a point on a
     * block's edge takes the weights 1, 0, 0 of either block, so it is the
     * same control point exactly). */
    for (uint32_t gy = 0; gy < gh && ok; gy++) {
        uint32_t jy = rowblk[gy];
        double wv[3];
        bernstein(rowv[gy], wv);
        for (uint32_t gx = 0; gx < gw; gx++) {
            uint32_t jx = colblk[gx];
            double wu[3], p[3] = {0, 0, 0};
            bernstein(colu[gx], wu);
            for (int a = 0; a < 3; a++)
                for (int c = 0; c < 3; c++) {
                    const double *q = &cp[3 * ((2 * jy + a) * (size_t)w + 2 * jx + c)];
                    for (int k = 0; k < 3; k++)
                        p[k] += wv[a] * wu[c] * q[k];
                }
            memcpy(gp[(size_t)gy * gw + gx], p, sizeof p);
            grid[(size_t)gy * gw + gx] = UINT32_MAX;
        }
    }
    uint32_t before = s->triangles;
    for (uint32_t gy = 0; gy + 1 < gh && ok; gy++)
        for (uint32_t gx = 0; gx + 1 < gw && ok; gx++) {
            size_t q[4] = {(size_t)gy * gw + gx, (size_t)gy * gw + gx + 1, (size_t)(gy + 1) * gw + gx + 1,
                           (size_t)(gy + 1) * gw + gx};
            static const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
            for (int t = 0; t < 2 && ok; t++) {
                size_t a = q[tri[t][0]], c1 = q[tri[t][1]], c2 = q[tri[t][2]];
                if (sweep_triangle_is_degenerate(v3_of(gp[a]), v3_of(gp[c1]), v3_of(gp[c2]))) {
                    b->st->degenerate_dropped += 2;
                    continue;
                }
                size_t id[3] = {a, c1, c2};
                for (int c = 0; c < 3 && ok; c++)
                    if (grid[id[c]] == UINT32_MAX)
                        ok = sweep__bsp_sink_vertex(b, s, gp[id[c]], &grid[id[c]]);
                /* both windings: a patch is hit from either side */
                ok = ok && sweep__bsp_sink_triangle(b, s, grid[a], grid[c1], grid[c2], mat) &&
                     sweep__bsp_sink_triangle(b, s, grid[a], grid[c2], grid[c1], mat);
            }
        }
    free(cp);
    free(su);
    free(grid);
    free(gp);
    free(colblk);
    free(colu);
    if (ok) {
        s->patches++;
        s->patch_triangles += s->triangles - before;
    }
    return ok;
}
