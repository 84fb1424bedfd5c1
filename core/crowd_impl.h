/*
 * crowd_impl.h - the inside of a sweep_crowd, shared by crowd.c (shells)
 * and scene.c (sweeps against them). Not installed.
 *
 * Invariants: when used[slot], pos[slot] and radii[slot] are the body's
 * (sweep__crowd_shell_of makes its shell from them) and lo[slot] .. hi[slot]
 * its shell's exact box; a slot not used holds nothing a sweep may read.
 *
 * The broad phase (a uniform grid in x and y, hashed): each used slot sits
 * in the cell of its box's lowest corner, cx[slot] = sweep__crowd_key(lo.x,
 * inv_cell) and cy[slot] likewise, on the list of its bucket (head[],
 * next[], prev[]). widest (widest_y) is at least every box's width along x
 * (y) ever set, never shrinking, so a box reaching x = q has its lo.x in
 * [q - widest, q]; the key is monotone in x, so such a box's cell lies in
 * the keys of that range. A move visits those few cells, keeps the bodies
 * whose cell is the visited one (a bucket may hold other cells too) and
 * whose box meets its own, and sorts them by slot: the bodies a scan of
 * every slot finds, in its order, so the grid only saves work. A box wider
 * than a cell rebuilds the grid with cells twice the widest box, so a
 * query spans two or three cells a side and rebuilds are rare.
 */
#ifndef SWEEP_CORE_CROWD_IMPL_H
#define SWEEP_CORE_CROWD_IMPL_H

#include "core/crowd.h"
#include "core/world_impl.h"

struct sweep_crowd {
    uint32_t slots;
    uint8_t *used;
    sweep_vec3 *lo, *hi;
    sweep_vec3 *pos, *radii;
    uint32_t count;
    double widest, widest_y;
    double cell, inv_cell; /* the cells' side (0 until the first body) and 1 / it */
    uint32_t bucket_mask;  /* buckets - 1, a power of two at least slots */
    uint32_t *head;        /* per bucket: its first slot, or SWEEP_NO_BODY */
    uint32_t *next, *prev; /* per used slot: its bucket's list */
    int32_t *cx, *cy;      /* per used slot: its cell */
    uint32_t scan_max; /* up to this many bodies, scan every slot (SWEEP__CROWD_SCAN_MAX; tests change it) */
};

/* Crowds of at most this many bodies are scanned slot by slot: the
 * grid would cost more than it saves. */
#define SWEEP__CROWD_SCAN_MAX 24u

/* For tests: the scan of every slot up to n bodies (UINT32_MAX: always),
 * which the broad phase must equal bit for bit. */
static inline void sweep__crowd_scan_up_to(sweep_crowd *c, uint32_t n)
{
    c->scan_max = n;
}

/* A shell's triangles from this one on are its flat faces, alternately
 * the top (even offsets from it: facing up, its corners at p.z + r.z) and
 * the bottom (odd: facing down, at p.z - r.z), each corner's z the same
 * bits across a face; those before it are the sides. */
#define SWEEP__CROWD_SHELL_FLAT 16u

/* The tops' and the bottoms' triangles, as bits of a shell's 28 (bit j
 * for triangle j). */
#define SWEEP__CROWD_SHELL_TOPS (0x555u << SWEEP__CROWD_SHELL_FLAT)
#define SWEEP__CROWD_SHELL_BOTTOMS (0xAAAu << SWEEP__CROWD_SHELL_FLAT)

/*
 * A body's shell, in world space: the x and y of its octagon's 8 corners
 * (the top ring has the bottom ring's x and y bits) and its bottom and top.
 * Side k's two triangles (2k and 2k + 1) have ring corners k and k + 1
 * in x and y; the f-th piece of each fan (the top's triangle 16 + 2f and
 * the bottom's 17 + 2f under it) ring corners 0, f + 1 and f + 2.
 */
typedef struct sweep__shell {
    double x[8], y[8];
    double zb, zt;
    uint32_t slot;
} sweep__shell;

/* The shell of used slot `slot`. */
void sweep__crowd_shell_of(const sweep_crowd *c, uint32_t slot, sweep__shell *s);

/* The shell's triangles whose box meets lo .. hi: bit j for triangle j. */
uint32_t sweep__shell_meets(const sweep__shell *s, sweep_vec3 lo, sweep_vec3 hi);

/* The box of side k's triangles: the min and max of their corners, taken
 * as min(a, min(b, c)) takes them. */
static inline void sweep__shell_side_box(const sweep__shell *s, uint32_t k, sweep_vec3 *lo, sweep_vec3 *hi)
{
    uint32_t k1 = (k + 1) & 7u;
    double x0 = s->x[k], x1 = s->x[k1], y0 = s->y[k], y1 = s->y[k1];
    *lo = sweep_v3(x0 < x1 ? x0 : x1, y0 < y1 ? y0 : y1, s->zb);
    *hi = sweep_v3(x0 > x1 ? x0 : x1, y0 > y1 ? y0 : y1, s->zt);
}

/* The shell's triangles j of mask into out[j] (out holds
 * SWEEP_CROWD_SHELL_TRIANGLES; the others are left as they were). */
void sweep__crowd_shell_tris(const sweep__shell *s, uint32_t mask, sweep__tri *out);

/* Keys beyond this many cells from the origin share the last one. */
#define SWEEP__CROWD_KEY_MAX 1073741824.0

/* The cell of x: monotone (never smaller for a larger x), by a product and
 * a cast that truncates (so the cells either side of 0 are twice as wide,
 * which costs nothing), with no libm. A NaN gives the lowest key; the
 * callers pass finite numbers. */
static inline int32_t sweep__crowd_key(double x, double inv_cell)
{
    double k = x * inv_cell;
    if (!(k > -SWEEP__CROWD_KEY_MAX))
        k = -SWEEP__CROWD_KEY_MAX;
    if (k > SWEEP__CROWD_KEY_MAX)
        k = SWEEP__CROWD_KEY_MAX;
    return (int32_t)k;
}

static inline uint32_t sweep__crowd_bucket(const sweep_crowd *c, int32_t x, int32_t y)
{
    uint32_t h = (uint32_t)x * 0x9E3779B1u ^ (uint32_t)y * 0x85EBCA77u;
    return (h ^ h >> 15) & c->bucket_mask;
}

#endif
