/*
 * world_impl.h - the inside of a sweep_world, shared by the builder
 * (world.c) and the queries (scene.c). Not installed, not public.
 *
 * Invariants, established by sweep_world_create and never changed after:
 *   - tris[] holds only collidable (non-degenerate) triangles, reordered so
 *     that every BVH leaf covers a contiguous range of it.
 *   - tris[i].index is the triangle's index in the caller's description.
 *   - The BVH is built binary (world.c) and kept 4-wide: nodes[0] is the
 *     root (when tri_count > 0); each node holds up to 4 children, in the
 *     binary tree's left-to-right order, as boxes side by side (one SSE
 *     test meets all four). A child is a node (count 0, first its index in
 *     nodes) or a leaf (count > 0, covering tris[first .. first + count)).
 *     An unused slot has NaN bounds, which meet nothing.
 *   - A child's bounds are its binary node's: floats rounded outwards, so
 *     they contain the exact double bounds of everything below them, and
 *     nest (a child's box lies inside its parent's). A leaf is therefore
 *     reached exactly when its own box meets the query, whichever binary
 *     nodes the wide tree skips, and depth first, first child first, the
 *     leaves come in the binary walk's order (left before right), which is
 *     the order of tris[].
 *   - boxes[i] holds tris[i]'s box in float, widened (sweep__widen_down,
 *     sweep__widen_up) so that it holds the exact double box. One more box,
 *     zero, follows the last, so that a 16-byte load of a box's hi (the
 *     scene's SSE test) never reads past the array.
 *   - planes[i] holds tris[i]'s unit normal and offset in float (n . x = d
 *     on the plane, n along cross(b - a, c - a)), for a triangle that is
 *     neither a needle (the sine at a below 1e-3) nor tiny (an edge from a
 *     shorter than 1e-5 of a's distance from the origin); zero for those,
 *     whose normal's direction is not accurate enough to lean on.
 *   - prep[i], when prep is set, is sweep__tri_prepare of tris[i]'s corners
 *     multiplied by prep_inv_radii: exactly what a scene with those
 *     inverse radii (the same bits) would make of it.
 *   - No path from the root is deeper than SWEEP__BVH_MAX_DEPTH nodes, so a
 *     fixed-size traversal stack cannot overflow.
 */
#ifndef SWEEP_CORE_WORLD_IMPL_H
#define SWEEP_CORE_WORLD_IMPL_H

#include <math.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/compiler.h"
#include "core/swept_sphere.h"
#include "core/vec3.h"
#include "core/world.h"

#define SWEEP__BVH_MAX_DEPTH 64
#define SWEEP__BVH_LEAF_SIZE 4

typedef struct sweep__tri {
    sweep_vec3 a, b, c; /* world space, copied from the vertex list for locality */
    uint32_t index;     /* index in the description: the stable tie-break key */
    uint32_t material;
} sweep__tri;

typedef struct sweep__tri_box {
    float lo[3], hi[3];
} sweep__tri_box;

/* 16 bytes a triangle: the scene drops, once per move, the triangles whose
 * plane no sweep of the move can reach (core/scene.c). */
typedef struct sweep__tri_plane {
    float n[3], d;
} sweep__tri_plane;

/* Children of a BVH node: up to 4 (Wald, Benthin, Wachter and Slusallek,
 * "Getting Rid of Packets: Efficient SIMD Single-Ray Traversal using
 * Multi-branching BVHs", 2008, for the idea); the boxes are stored axis by
 * axis (lo[axis][child]) so that one comparison per axis and side tests
 * all four. 128 bytes. */
#define SWEEP__BVH_WIDTH 4

typedef struct sweep__child {
    uint32_t first; /* leaf: first triangle; node: its index */
    uint32_t count; /* leaf: triangles (> 0); node or unused: 0 */
} sweep__child;

typedef struct sweep__node {
    float lo[3][SWEEP__BVH_WIDTH], hi[3][SWEEP__BVH_WIDTH];
    sweep__child child[SWEEP__BVH_WIDTH];
} sweep__node;

/* Children waiting in a depth-first walk of the wide tree: at most 3 a
 * level (a node's children but the one taken next) plus 4. */
#define SWEEP__BVH_STACK (3 * SWEEP__BVH_MAX_DEPTH + 4)

/* The float nearest x that is not above it (not below it), so float boxes
 * built from doubles always hold the double box. */
static inline float sweep__float_down(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

static inline float sweep__float_up(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* A float not above x (sweep__widen_up: not below) without a libm call:
 * x is moved out by 2^-20 of itself (and 2^-100) first, far more than the
 * float rounding of 2^-24 of itself, so the rounded value still lies
 * outside. For boxes that are made often; a box is then a little larger
 * than it need be, which only costs a test now and then. The SSE form
 * (scene.c) uses the same two constants. */
#define SWEEP__WIDEN_REL 0x1p-20
#define SWEEP__WIDEN_ABS 0x1p-100

static inline float sweep__widen_down(double x)
{
    return (float)(x - (fabs(x) * SWEEP__WIDEN_REL + SWEEP__WIDEN_ABS));
}

static inline float sweep__widen_up(double x)
{
    return (float)(x + (fabs(x) * SWEEP__WIDEN_REL + SWEEP__WIDEN_ABS));
}

/* Whether a world's large arrays are mapped on their own, on huge pages
 * (world.c): on Linux, but not under AddressSanitizer, which watches the
 * bounds of heap arrays only. */
#if defined(__linux__) && !defined(SWEEP__ASAN)
#define SWEEP__WORLD_MAPPED 1
#else
#define SWEEP__WORLD_MAPPED 0
#endif

/* Memory for one of a world's large arrays (tris, boxes, planes, nodes,
 * prep), on huge pages where it is large enough (world.c says why), and
 * given back with sweep__world_free and the same size. sweep__world_held:
 * how much memory an array of that many bytes holds so, all of it used. */
void *sweep__world_alloc(size_t bytes);
void sweep__world_free(void *p, size_t bytes);
size_t sweep__world_held(size_t bytes);

/* The inverse radii every eSpace transform multiplies by: one expression
 * for the move's context and a world's preparation, whose bits a scene
 * compares to take the world's prepared triangles. */
static inline sweep_vec3 sweep__inverse_radii(sweep_vec3 radii)
{
    return sweep_v3(1.0 / radii.x, 1.0 / radii.y, 1.0 / radii.z);
}

/* A world triangle prepared in the eSpace of these inverse radii: what a
 * scene makes of it on the spot and a world prepares ahead, the same bits. */
static inline void sweep__tri_prepare_espace(const sweep__tri *t, sweep_vec3 inv_radii, sweep__tri_prep *p)
{
    sweep__tri_prepare(sweep_v3_mul(t->a, inv_radii), sweep_v3_mul(t->b, inv_radii), sweep_v3_mul(t->c, inv_radii), p);
}

/* The boxes (lo, hi) of four volumes side by side, each coordinate of
 * the four together, as floats: a step tests all four at once
 * (volume_step.h). Rounding to the nearest float never turns x <= y
 * around (it does not decrease), so a box meets the segment's box
 * whenever its doubles do: the test may only take in a few more, which
 * the exact test after it (sweep__volume_may, on the doubles) turns away. */
typedef struct sweep__volume_quad {
    float lo_x[4], lo_y[4], lo_z[4], hi_x[4], hi_y[4], hi_z[4];
} sweep__volume_quad;

/* What a step's tests read of a volume, on one cache line: its box, with
 * lo and hi across x and y side by side (one comparison of each tests both
 * axes of a point, for sweep__volume_may), then along z; what it may do
 * with a step's ends (SWEEP__MAY_*, below); its kind, its liquid and its
 * planes (volume_planes[plane_first ..]). The public sweep_volume has room
 * for SWEEP_VOLUME_MAX_PLANES planes inline, 1.2 KB a volume, so a test
 * that read it met its box, kind and planes on three or four lines of
 * their own, spread over the whole array (80 KB on a level of 66
 * volumes); kept apart (a box of 48 bytes, across two lines one time in
 * four, a kind and planes of 16 more), they were still two or three. The
 * damage, read only by a volume that hurts, is apart (volume_damage). */
typedef struct sweep__volume_form {
    _Alignas(64) double lo_xy[2];
    double hi_xy[2];
    double lo_z, hi_z;
    uint8_t may;    /* SWEEP__MAY_* */
    uint8_t kind;   /* sweep_volume_kind */
    uint8_t liquid; /* sweep_liquid */
    uint16_t plane_count;
    uint32_t plane_first;
} sweep__volume_form;

/* A world with at most this many volumes that act after a step tests a
 * step against all their boxes, four at a time, rather than through the
 * grid. */
#define SWEEP__VOLUME_SCAN_MAX 32u /* 8 quads: their lanes fit a 64-bit mask, their candidates sc.cand */

/* What a volume that acts after a step does with the step's two ends
 * (its form's may): */
enum {
    SWEEP__MAY_NONE,   /* a liquid or a ladder: not this pass's */
    SWEEP__MAY_AT_END, /* acts when it holds the end (push, teleport, hurt, kill) */
    SWEEP__MAY_ACROSS, /* a trigger of a box alone: when its box holds one end, not the other */
    SWEEP__MAY_EITHER  /* a trigger cut by planes: when its box holds either end */
};

/* How near the volumes that act after a step (pushes, teleports, hurt and
 * kill volumes, triggers) lie to a place, for a move to know at its start
 * whether any of its steps can end in one (volume_step.h): cell c of the
 * volumes' grid (sweep_world's volume_grid) lists, in items[first[c] ..
 * first[c + 1]), every such volume whose box grown by 2 reach along each
 * axis reaches into the cell. A volume a place's cell does not list lies
 * farther than reach from it along some axis; a listed one is as far as
 * its box says (from inside a trigger of a box alone, which acts only on
 * a step across its faces, as far as its nearest face). Made by
 * sweep__volume_clear_make (core/volume_clear.c). */
typedef struct sweep__volume_clear {
    uint32_t *first, *items; /* NULL: no volume acts after a step */
    double reach;
} sweep__volume_clear;

struct sweep_world {
    sweep__tri *tris;
    sweep__tri_box *boxes;
    sweep__tri_plane *planes;
    uint32_t tri_count;
    sweep__node *nodes;
    uint32_t node_count;
    uint32_t node_room; /* nodes allocated, node_count of them used */
    uint32_t depth;
    uint32_t described_count;
    uint32_t degenerate_count;
    sweep_vec3 lo, hi;
    /* tris[i] in the eSpace of one body shape, prepared (sweep__tri_prep)
     * with prep_inv_radii, or NULL: sweep_world_prepare_radii. */
    sweep__tri_prep *prep;
    sweep_vec3 prep_inv_radii;
    /* What acts on walking bodies (core/volume.h): sweep_world_set_volumes.
     * volume_forms[i] is what a step's tests read of volumes[i] (its box,
     * kind and planes: sweep__volume_form, 64-byte aligned);
     * volume_lo .. volume_hi holds every volume's box.
     * A grid of volume_grid x volume_grid columns over that box across x
     * and y, each cut into volume_grid_z cells along z, lists cell by cell
     * the volumes that act after a step whose boxes reach into the cell,
     * in index order: cell (x, y, z)'s, c = (z * volume_grid + y) *
     * volume_grid + x, are volume_cell_items[volume_cell_first[c] ..
     * volume_cell_first[c + 1]). The liquids and ladders are listed apart
     * by column (their test wants the span feet .. eyes whole, in index
     * order), after all the cells: column (x, y)'s list is slot
     * volume_grid^2 * volume_grid_z + y * volume_grid + x of the same two
     * arrays (volume_column_first[y * volume_grid + x] is its first), and
     * the slot after the columns' lists every liquid and ladder, for a
     * probe across columns. Neither pass reads the other's. A coordinate's cell is
     * sweep__volume_cell, which never decreases as the coordinate grows,
     * so a box meets a volume's box only in a cell listing it. */
    struct sweep_volume *volumes;
    uint32_t volume_count;
    uint32_t volume_mode_count; /* liquids and ladders among them (core/medium.h) */
    sweep__volume_form *volume_forms; /* inside volume_forms_block, on whole lines */
    void *volume_forms_block;
    double *volume_damage; /* volumes[i]'s damage, by index */
    struct sweep_volume_plane *volume_planes;
    sweep_vec3 volume_lo, volume_hi;
    /* The box of the volumes that act after a step, and that of the
     * liquids and ladders (each lo, hi; lo above hi, infinite, when there
     * are none): a body away from one kind is turned away by one box
     * test, without the grid. */
    sweep_vec3 volume_act_box[2], volume_mode_box[2];
    /* 1 when volume_act_box is not the grid's whole box (volume_lo ..
     * volume_hi): a step through the grid tests it first. */
    int volume_act_inner;
    uint32_t volume_grid, volume_grid_z;
    double volume_cell_inv[3]; /* cells per unit along x, y and z */
    double volume_cell_top[3]; /* the last cell along x, y and z, as a double */
    uint32_t *volume_cell_first, *volume_cell_items;
    const uint32_t *volume_column_first; /* volume_cell_first + volume_grid^2 * volume_grid_z */
    /* With at most SWEEP__VOLUME_SCAN_MAX volumes that act after a step
     * (nearly every level), their boxes in volume_quad_count quads, in
     * index order, the lanes after the last one empty (lo above hi);
     * volume_lane[k] is lane k's volume. A step tests them all, without a
     * branch, rather than finding its cells first: the grid's few dozen
     * instructions were a chain, each waiting on the one before (the cell
     * on the conversion, the list on the cell, the box on the list),
     * where the lanes' tests are all independent. NULL (0) with more: the
     * grid. */
    sweep__volume_quad *volume_quads;
    uint32_t volume_quad_count;
    uint32_t volume_lane[SWEEP__VOLUME_SCAN_MAX];
    /* How near the volumes that act after a step lie to a place
     * (sweep__volume_clear). */
    sweep__volume_clear volume_clear;
};

/* The grid column (row) of coordinate x along an axis whose volumes
 * start at lo: floor((x - lo) * inv) kept within 0 .. grid - 1. */
static inline uint32_t sweep__volume_cell(double x, double lo, double inv, uint32_t grid)
{
    /* Kept within range before the conversion rather than branching on
     * it (a step asks four cells; x is finite, so c is not a NaN):
     * compiles to a max, a min and the conversion. */
    double c = (x - lo) * inv;
    c = c >= 0.0 ? c : 0.0;
    c = c >= (double)grid ? (double)(grid - 1) : c;
    return (uint32_t)c;
}

/* 1 if the boxes lo .. hi and box[0] .. box[1] meet. Short-circuit: the
 * six comparisons and-ed without a branch guessed wrong less often in
 * callgrind's branch simulation, but ran more instructions (most boxes
 * fail on the first or second) and were no faster by the clock. */
static inline int sweep__volume_box_meets(const sweep_vec3 *box, sweep_vec3 lo, sweep_vec3 hi)
{
    return box[0].x <= hi.x && box[1].x >= lo.x && box[0].y <= hi.y && box[1].y >= lo.y && box[0].z <= hi.z &&
           box[1].z >= lo.z;
}

/* 1 if the box lo .. hi meets form f's box (sweep__volume_box_meets'
 * comparisons, in its order). */
static inline int sweep__volume_form_meets(const sweep__volume_form *f, sweep_vec3 lo, sweep_vec3 hi)
{
    return f->lo_xy[0] <= hi.x && f->hi_xy[0] >= lo.x && f->lo_xy[1] <= hi.y && f->hi_xy[1] >= lo.y &&
           f->lo_z <= hi.z && f->hi_z >= lo.z;
}

/* 1 when volume i may do something to a step from `from` to `to`, by its
 * SWEEP__MAY_* (a table of four bits a kind, indexed by which ends its box
 * holds: bit 0 from, bit 1 to). sweep__volumes_step acts on a volume only
 * when it holds the end (sweep__medium_holds), or, a trigger, when it
 * holds one end and not the other; so a volume this says no of does
 * nothing there, and leaving it out changes nothing the step does. The
 * box's comparisons are sweep__medium_holds', without a branch. */
static inline unsigned sweep__volume_may(const struct sweep_world *w, uint32_t i, sweep_vec3 from, sweep_vec3 to)
{
    const sweep__volume_form *b = &w->volume_forms[i];
#ifdef __SSE2__
    const __m128d lo = _mm_load_pd(b->lo_xy), hi = _mm_load_pd(b->hi_xy);
    const __m128d p = _mm_set_pd(from.y, from.x), q = _mm_set_pd(to.y, to.x), z = _mm_set_pd(to.z, from.z);
    const unsigned mp = (unsigned)_mm_movemask_pd(_mm_and_pd(_mm_cmple_pd(lo, p), _mm_cmple_pd(p, hi)));
    const unsigned mq = (unsigned)_mm_movemask_pd(_mm_and_pd(_mm_cmple_pd(lo, q), _mm_cmple_pd(q, hi)));
    const unsigned mz = (unsigned)_mm_movemask_pd(
        _mm_and_pd(_mm_cmple_pd(_mm_load1_pd(&b->lo_z), z), _mm_cmple_pd(z, _mm_load1_pd(&b->hi_z))));
    const unsigned in = (((unsigned)(mp == 3u) | (unsigned)(mq == 3u) << 1) & mz);
#else
    const unsigned pin = (from.x >= b->lo_xy[0]) & (from.x <= b->hi_xy[0]) & (from.y >= b->lo_xy[1]) &
                         (from.y <= b->hi_xy[1]) & (from.z >= b->lo_z) & (from.z <= b->hi_z);
    const unsigned qin = (to.x >= b->lo_xy[0]) & (to.x <= b->hi_xy[0]) & (to.y >= b->lo_xy[1]) &
                         (to.y <= b->hi_xy[1]) & (to.z >= b->lo_z) & (to.z <= b->hi_z);
    const unsigned in = pin | qin << 1;
#endif
    /* kind:        EITHER  ACROSS  AT_END  NONE
     * in = 3 2 1 0: 1110    0110    1100    0000 */
    return (0xE6C0u >> (b->may * 4u + in)) & 1u;
}

/* Which lanes of the quads q[0 .. count) (at most 16) hold a box that
 * meets lo .. hi, compared as floats: bit 4 k + j for lane j of quad k.
 * Without a branch but the loop's. A box the doubles meet is always
 * among them (sweep__volume_quad); one they do not may be too. */
static inline uint64_t sweep__volume_quads_meet(const sweep__volume_quad *q, uint32_t count, sweep_vec3 lo,
                                                sweep_vec3 hi)
{
    uint64_t meets = 0;
    const float lx = (float)lo.x, ly = (float)lo.y, lz = (float)lo.z;
    const float hx = (float)hi.x, hy = (float)hi.y, hz = (float)hi.z;
#ifdef __SSE2__
    const __m128 vlx = _mm_set1_ps(lx), vly = _mm_set1_ps(ly), vlz = _mm_set1_ps(lz);
    const __m128 vhx = _mm_set1_ps(hx), vhy = _mm_set1_ps(hy), vhz = _mm_set1_ps(hz);
    for (uint32_t k = 0; k < count; k++, q++) {
        __m128 x = _mm_and_ps(_mm_cmple_ps(_mm_loadu_ps(q->lo_x), vhx), _mm_cmpge_ps(_mm_loadu_ps(q->hi_x), vlx));
        __m128 y = _mm_and_ps(_mm_cmple_ps(_mm_loadu_ps(q->lo_y), vhy), _mm_cmpge_ps(_mm_loadu_ps(q->hi_y), vly));
        __m128 z = _mm_and_ps(_mm_cmple_ps(_mm_loadu_ps(q->lo_z), vhz), _mm_cmpge_ps(_mm_loadu_ps(q->hi_z), vlz));
        meets |= (uint64_t)_mm_movemask_ps(_mm_and_ps(_mm_and_ps(x, y), z)) << (4 * k);
    }
#else
    for (uint32_t k = 0; k < count; k++, q++)
        for (uint32_t j = 0; j < 4; j++)
            meets |= (uint64_t)((q->lo_x[j] <= hx) & (q->hi_x[j] >= lx) & (q->lo_y[j] <= hy) & (q->hi_y[j] >= ly) &
                                (q->lo_z[j] <= hz) & (q->hi_z[j] >= lz))
                     << (4 * k + j);
#endif
    return meets;
}

/* 1 if p is in the box (lo, hi): the comparisons of sweep__medium_holds'
 * box test, each a branch, so a point inside the first bounds tested
 * costs little more than those tests. */
static inline int sweep__volume_box_holds(const sweep_vec3 *box, sweep_vec3 p)
{
    return p.x >= box[0].x && p.x <= box[1].x && p.y >= box[0].y && p.y <= box[1].y && p.z >= box[0].z &&
           p.z <= box[1].z;
}

/* The grid cells (world_impl.h's c) of the two ends of a step, *cf and *ct:
 * sweep__volume_cell along each axis, with SSE2 two at a time from the
 * world's own doubles (its origin, cells per unit and last cells), so the
 * same cells. */
static inline void sweep__volume_cells_of(const struct sweep_world *w, sweep_vec3 from, sweep_vec3 to, uint32_t *cf,
                                          uint32_t *ct)
{
    const uint32_t grid = w->volume_grid;
    uint32_t fx, fy, fz, tx, ty, tz;
#ifdef __SSE2__
    const __m128d o = _mm_loadu_pd(&w->volume_lo.x), inv = _mm_loadu_pd(w->volume_cell_inv);
    const __m128d top = _mm_loadu_pd(w->volume_cell_top), zero = _mm_setzero_pd();
    __m128i f = _mm_cvttpd_epi32(
        _mm_min_pd(_mm_max_pd(_mm_mul_pd(_mm_sub_pd(_mm_loadu_pd(&from.x), o), inv), zero), top));
    __m128i t = _mm_cvttpd_epi32(_mm_min_pd(_mm_max_pd(_mm_mul_pd(_mm_sub_pd(_mm_loadu_pd(&to.x), o), inv), zero), top));
    __m128i z = _mm_cvttpd_epi32(_mm_min_pd(
        _mm_max_pd(_mm_mul_pd(_mm_sub_pd(_mm_set_pd(to.z, from.z), _mm_set1_pd(w->volume_lo.z)),
                              _mm_set1_pd(w->volume_cell_inv[2])),
                   zero),
        _mm_set1_pd(w->volume_cell_top[2])));
    fx = (uint32_t)_mm_cvtsi128_si32(f), fy = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(f, 1));
    tx = (uint32_t)_mm_cvtsi128_si32(t), ty = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(t, 1));
    fz = (uint32_t)_mm_cvtsi128_si32(z), tz = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(z, 1));
#else
    const sweep_vec3 o = w->volume_lo;
    const double *inv = w->volume_cell_inv;
    const uint32_t grid_z = w->volume_grid_z;
    fx = sweep__volume_cell(from.x, o.x, inv[0], grid), fy = sweep__volume_cell(from.y, o.y, inv[1], grid);
    fz = sweep__volume_cell(from.z, o.z, inv[2], grid_z);
    tx = sweep__volume_cell(to.x, o.x, inv[0], grid), ty = sweep__volume_cell(to.y, o.y, inv[1], grid);
    tz = sweep__volume_cell(to.z, o.z, inv[2], grid_z);
#endif
    *cf = (fz * grid + fy) * grid + fx;
    *ct = (tz * grid + ty) * grid + tx;
}

/* sweep__volume_cell of a (along an axis from lo_a, inv_a, grid_a) and of
 * b, with SSE2 at once: the same operations on the same numbers (the max
 * with 0 first, then the min with the last cell, then the truncation), so
 * the same cells. A step and a medium test ask them in pairs. */
static inline void sweep__volume_cell2(double a, double lo_a, double inv_a, uint32_t grid_a, double b, double lo_b,
                                       double inv_b, uint32_t grid_b, uint32_t *ca, uint32_t *cb)
{
#ifdef __SSE2__
    __m128d c = _mm_mul_pd(_mm_sub_pd(_mm_set_pd(b, a), _mm_set_pd(lo_b, lo_a)), _mm_set_pd(inv_b, inv_a));
    c = _mm_min_pd(_mm_max_pd(c, _mm_setzero_pd()), _mm_set_pd((double)(grid_b - 1), (double)(grid_a - 1)));
    __m128i i = _mm_cvttpd_epi32(c);
    *ca = (uint32_t)_mm_cvtsi128_si32(i);
    *cb = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(i, 1));
#else
    *ca = sweep__volume_cell(a, lo_a, inv_a, grid_a);
    *cb = sweep__volume_cell(b, lo_b, inv_b, grid_b);
#endif
}

#endif
