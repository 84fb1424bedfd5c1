/*
 * crowd_impl.h - the inside of a sweep_crowd, shared by crowd.c (shells)
 * and scene.c (sweeps against them). Not installed.
 *
 * Invariants: tris[slot * SHELL .. + SHELL) is slot's shell in world space
 * when used[slot], with lo[slot] .. hi[slot] its exact box; a slot not used
 * holds nothing a sweep may read.
 *
 * The broad phase (a one-axis sweep and prune): by_x[0 .. count) holds the
 * used slots ordered by lo[slot].x, ties by slot, and place[slot] is a
 * used slot's index there. widest is at least every box's width along x
 * ever set (it never shrinks), so a box reaching x = q has its lo.x in
 * [q - widest, q]: a move finds the bodies near it by two binary searches
 * and a short run, instead of testing every slot.
 */
#ifndef SWEEP_CORE_CROWD_IMPL_H
#define SWEEP_CORE_CROWD_IMPL_H

#include "core/crowd.h"
#include "core/world_impl.h"

struct sweep_crowd {
    uint32_t slots;
    uint8_t *used;
    sweep_vec3 *lo, *hi;
    sweep__tri *tris;
    uint32_t *by_x, *place;
    uint32_t count;
    double widest;
    uint32_t scan_max; /* up to this many bodies, scan every slot (SWEEP__CROWD_SCAN_MAX; tests change it) */
};

/* Crowds of at most this many bodies are scanned slot by slot: the
 * searches would cost more than they save. */
#define SWEEP__CROWD_SCAN_MAX 24u

/* For tests: the scan of every slot up to n bodies (UINT32_MAX: always),
 * which the broad phase must equal bit for bit. */
static inline void sweep__crowd_scan_up_to(sweep_crowd *c, uint32_t n)
{
    c->scan_max = n;
}

/* The index in by_x of the first body whose lo.x is not below x. */
static inline uint32_t sweep__crowd_lower(const sweep_crowd *c, double x)
{
    uint32_t a = 0, b = c->count;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (c->lo[c->by_x[m]].x < x)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* The index in by_x of the first body whose lo.x is above x. */
static inline uint32_t sweep__crowd_upper(const sweep_crowd *c, double x)
{
    uint32_t a = 0, b = c->count;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (c->lo[c->by_x[m]].x <= x)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

#endif
