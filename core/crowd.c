/*
 * crowd.c - bodies as shells for other bodies' moves (see crowd.h).
 *
 * A shell is rebuilt from its body's position and radii each time the slot
 * is set: 16 vertices, 28 triangles, from + - * and one constant computed
 * with sqrt, so every machine builds the same bits.
 */
#include "core/crowd_impl.h"

#include <stdlib.h>
#include <string.h>

sweep_status sweep_crowd_create(uint32_t slots, sweep_crowd **out)
{
    if (!out || slots < 1 || slots > SWEEP_CROWD_MAX_SLOTS)
        return SWEEP_E_ARG;
    sweep_crowd *c = calloc(1, sizeof *c);
    if (!c)
        return SWEEP_E_NOMEM;
    c->slots = slots;
    c->scan_max = SWEEP__CROWD_SCAN_MAX;
    c->used = calloc(slots, 1);
    c->lo = malloc(slots * sizeof *c->lo);
    c->hi = malloc(slots * sizeof *c->hi);
    c->tris = malloc((size_t)slots * SWEEP_CROWD_SHELL_TRIANGLES * sizeof *c->tris);
    c->by_x = malloc(slots * sizeof *c->by_x);
    c->place = malloc(slots * sizeof *c->place);
    if (!c->used || !c->lo || !c->hi || !c->tris || !c->by_x || !c->place) {
        sweep_crowd_destroy(c);
        return SWEEP_E_NOMEM;
    }
    *out = c;
    return SWEEP_OK;
}

void sweep_crowd_destroy(sweep_crowd *c)
{
    if (!c)
        return;
    free(c->used);
    free(c->lo);
    free(c->hi);
    free(c->tris);
    free(c->by_x);
    free(c->place);
    free(c);
}

sweep_status sweep_crowd_grow(sweep_crowd *c, uint32_t slots)
{
    if (!c || slots > SWEEP_CROWD_MAX_SLOTS)
        return SWEEP_E_ARG;
    if (slots <= c->slots)
        return SWEEP_OK;
    /* Each array is replaced only once all of them are allocated, so a
     * failure leaves the crowd as it was. */
    uint8_t *used = calloc(slots, 1);
    sweep_vec3 *lo = malloc(slots * sizeof *lo), *hi = malloc(slots * sizeof *hi);
    sweep__tri *tris = malloc((size_t)slots * SWEEP_CROWD_SHELL_TRIANGLES * sizeof *tris);
    uint32_t *by_x = malloc(slots * sizeof *by_x), *place = malloc(slots * sizeof *place);
    if (!used || !lo || !hi || !tris || !by_x || !place) {
        free(used), free(lo), free(hi), free(tris), free(by_x), free(place);
        return SWEEP_E_NOMEM;
    }
    memcpy(used, c->used, c->slots);
    memcpy(lo, c->lo, c->slots * sizeof *lo);
    memcpy(hi, c->hi, c->slots * sizeof *hi);
    memcpy(tris, c->tris, (size_t)c->slots * SWEEP_CROWD_SHELL_TRIANGLES * sizeof *tris);
    memcpy(by_x, c->by_x, c->count * sizeof *by_x);
    memcpy(place, c->place, c->slots * sizeof *place);
    free(c->used), free(c->lo), free(c->hi), free(c->tris), free(c->by_x), free(c->place);
    c->used = used, c->lo = lo, c->hi = hi, c->tris = tris, c->by_x = by_x, c->place = place;
    c->slots = slots;
    return SWEEP_OK;
}

uint32_t sweep_crowd_slots(const sweep_crowd *c)
{
    return c ? c->slots : 0;
}

uint32_t sweep_crowd_slot_of_triangle(uint32_t tri)
{
    if (tri < SWEEP_CROWD_FIRST_TRIANGLE)
        return SWEEP_NO_BODY;
    uint32_t slot = (tri - SWEEP_CROWD_FIRST_TRIANGLE) / SWEEP_CROWD_SHELL_TRIANGLES;
    return slot < SWEEP_CROWD_MAX_SLOTS ? slot : SWEEP_NO_BODY;
}

/* Does slot a come before slot b in by_x? */
static int before(const sweep_crowd *c, uint32_t a, uint32_t b)
{
    double xa = c->lo[a].x, xb = c->lo[b].x;
    return xa < xb || (xa == xb && a < b);
}

/* Moves slot (already in by_x at place[slot], its lo just changed) to its
 * place in the order. Bodies move little between two sets, so this is
 * usually a step or none. */
static void reorder(sweep_crowd *c, uint32_t slot)
{
    uint32_t i = c->place[slot];
    while (i > 0 && before(c, slot, c->by_x[i - 1])) {
        c->by_x[i] = c->by_x[i - 1];
        c->place[c->by_x[i]] = i;
        i--;
    }
    while (i + 1 < c->count && before(c, c->by_x[i + 1], slot)) {
        c->by_x[i] = c->by_x[i + 1];
        c->place[c->by_x[i]] = i;
        i++;
    }
    c->by_x[i] = slot;
    c->place[slot] = i;
}

sweep_status sweep_crowd_set(sweep_crowd *c, uint32_t slot, sweep_vec3 p, sweep_vec3 r)
{
    if (!c || slot >= c->slots)
        return SWEEP_E_ARG;
    if (!sweep_v3_isfinite(p) || !sweep_v3_isfinite(r))
        return SWEEP_E_NONFINITE;
    if (!(r.x > 0.0 && r.y > 0.0 && r.z > 0.0))
        return SWEEP_E_RADII;
    /* The octagon whose sides touch the unit circle every 45 degrees has its
     * corners at (1, t), (t, 1), ... with t = tan(22.5 degrees). */
    const double t = sqrt(2.0) - 1.0;
    static const double ox[8] = {1, 0, -0, -1, -1, -0, 0, 1}, oy[8] = {0, 1, 1, 0, -0, -1, -1, -0};
    static const double tx[8] = {0, 1, -1, 0, 0, -1, 1, 0}, ty[8] = {1, 0, 0, 1, -1, 0, 0, -1};
    sweep_vec3 v[16]; /* 0..7 bottom ring, 8..15 top ring, counter-clockwise seen from above */
    for (int k = 0; k < 8; k++) {
        double x = ox[k] + tx[k] * t, y = oy[k] + ty[k] * t;
        v[k] = sweep_v3(p.x + x * r.x, p.y + y * r.y, p.z - r.z);
        v[k + 8] = sweep_v3(p.x + x * r.x, p.y + y * r.y, p.z + r.z);
    }
    sweep__tri *out = &c->tris[(size_t)slot * SWEEP_CROWD_SHELL_TRIANGLES];
    uint32_t base = SWEEP_CROWD_FIRST_TRIANGLE + slot * SWEEP_CROWD_SHELL_TRIANGLES, n = 0;
#define TRI(A, B, C)                                                                                                \
    do {                                                                                                            \
        out[n].a = v[A], out[n].b = v[B], out[n].c = v[C], out[n].index = base + n, out[n].material = 0;            \
        n++;                                                                                                        \
    } while (0)
    for (int k = 0; k < 8; k++) {
        int k1 = (k + 1) & 7;
        TRI(k, k1, k1 + 8); /* side, outwards */
        TRI(k, k1 + 8, k + 8);
    }
    for (int k = 1; k < 7; k++) {
        TRI(8, 8 + k, 8 + k + 1); /* top, facing up */
        TRI(0, k + 1, k);         /* bottom, facing down */
    }
#undef TRI
    c->lo[slot] = sweep_v3_sub(p, sweep_v3(r.x, r.y, r.z));
    c->hi[slot] = sweep_v3_add(p, sweep_v3(r.x, r.y, r.z));
    /* A little wider than the widest box, so that no rounding of the
     * search's q - widest leaves out a box that reaches q. */
    double w = (c->hi[slot].x - c->lo[slot].x) * (1.0 + 1e-9);
    if (w > c->widest)
        c->widest = w;
    if (!c->used[slot]) {
        c->used[slot] = 1;
        c->place[slot] = c->count;
        c->by_x[c->count++] = slot;
    }
    reorder(c, slot);
    return SWEEP_OK;
}

uint32_t sweep_crowd_first_free(const sweep_crowd *c)
{
    for (uint32_t i = 0; c && i < c->slots; i++)
        if (!c->used[i])
            return i;
    return SWEEP_NO_BODY;
}

void sweep_crowd_clear(sweep_crowd *c, uint32_t slot)
{
    if (!c || slot >= c->slots || !c->used[slot])
        return;
    c->used[slot] = 0;
    for (uint32_t i = c->place[slot]; i + 1 < c->count; i++) {
        c->by_x[i] = c->by_x[i + 1];
        c->place[c->by_x[i]] = i;
    }
    c->count--;
}
