/*
 * crowd.c - bodies as shells for other bodies' moves (see crowd.h).
 *
 * A shell is built from its body's position and radii by the move that
 * comes near it (sweep__crowd_shell_of, sweep__crowd_shell_tris): 16
 * vertices, 28 triangles (only those whose box meets the move's), from
 * + - * and one constant computed with sqrt, so every machine and every
 * move builds the same bits.
 */
#include "core/crowd_impl.h"

#include "core/compiler.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Buckets for n slots: the power of two at least 4n. A move visits four
 * to nine cells, most of them empty; with as many buckets as slots, most
 * of those buckets still held a body of some other cell, whose record the
 * move read only to turn it away (a crowd of 1,024 on a floor of 2,700
 * cells: a move meeting no body cost 22% more than a lone one, 15% with
 * four buckets a slot). At most SWEEP_CROWD_MAX_SLOTS, 4n fits. */
static uint32_t buckets_for(uint32_t n)
{
    uint32_t b = 1;
    while (b < 4 * n)
        b <<= 1;
    return b;
}

static void link_slot(sweep_crowd *c, uint32_t slot)
{
    int32_t x = sweep__crowd_key(c->lo[slot].x, c->inv_cell), y = sweep__crowd_key(c->lo[slot].y, c->inv_cell);
    uint32_t h = sweep__crowd_bucket(c, x, y), first = c->head[h];
    c->cx[slot] = x, c->cy[slot] = y;
    c->prev[slot] = SWEEP_NO_BODY;
    c->next[slot] = first;
    if (first != SWEEP_NO_BODY)
        c->prev[first] = slot;
    c->head[h] = slot;
}

static void unlink_slot(sweep_crowd *c, uint32_t slot)
{
    uint32_t p = c->prev[slot], n = c->next[slot];
    if (p != SWEEP_NO_BODY)
        c->next[p] = n;
    else
        c->head[sweep__crowd_bucket(c, c->cx[slot], c->cy[slot])] = n;
    if (n != SWEEP_NO_BODY)
        c->prev[n] = p;
}

/* Every used slot into the grid afresh (a new cell size or bucket count). */
static void rebuild(sweep_crowd *c)
{
    for (uint32_t h = 0; h <= c->bucket_mask; h++)
        c->head[h] = SWEEP_NO_BODY;
    for (uint32_t i = 0; i < c->slots; i++)
        if (c->used[i])
            link_slot(c, i);
}

sweep_status sweep_crowd_create(uint32_t slots, sweep_crowd **out)
{
    if (!out || slots < 1 || slots > SWEEP_CROWD_MAX_SLOTS)
        return SWEEP_E_ARG;
    sweep_crowd *c = calloc(1, sizeof *c);
    if (!c)
        return SWEEP_E_NOMEM;
    uint32_t buckets = buckets_for(slots);
    c->slots = slots;
    c->scan_max = SWEEP__CROWD_SCAN_MAX;
    c->bucket_mask = buckets - 1;
    c->used = calloc(slots, 1);
    c->lo = malloc(slots * sizeof *c->lo);
    c->hi = malloc(slots * sizeof *c->hi);
    c->pos = malloc(slots * sizeof *c->pos);
    c->radii = malloc(slots * sizeof *c->radii);
    c->head = malloc((size_t)buckets * sizeof *c->head);
    c->next = malloc(slots * sizeof *c->next);
    c->prev = malloc(slots * sizeof *c->prev);
    c->cx = malloc(slots * sizeof *c->cx);
    c->cy = malloc(slots * sizeof *c->cy);
    if (!c->used || !c->lo || !c->hi || !c->pos || !c->radii || !c->head || !c->next || !c->prev || !c->cx || !c->cy) {
        sweep_crowd_destroy(c);
        return SWEEP_E_NOMEM;
    }
    rebuild(c);
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
    free(c->pos);
    free(c->radii);
    free(c->head);
    free(c->next);
    free(c->prev);
    free(c->cx);
    free(c->cy);
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
    uint32_t buckets = buckets_for(slots);
    uint8_t *used = calloc(slots, 1);
    sweep_vec3 *lo = malloc(slots * sizeof *lo), *hi = malloc(slots * sizeof *hi);
    sweep_vec3 *pos = malloc(slots * sizeof *pos), *radii = malloc(slots * sizeof *radii);
    uint32_t *head = malloc((size_t)buckets * sizeof *head);
    uint32_t *next = malloc(slots * sizeof *next), *prev = malloc(slots * sizeof *prev);
    int32_t *cx = malloc(slots * sizeof *cx), *cy = malloc(slots * sizeof *cy);
    if (!used || !lo || !hi || !pos || !radii || !head || !next || !prev || !cx || !cy) {
        free(used), free(lo), free(hi), free(pos), free(radii), free(head), free(next), free(prev), free(cx), free(cy);
        return SWEEP_E_NOMEM;
    }
    memcpy(used, c->used, c->slots);
    memcpy(lo, c->lo, c->slots * sizeof *lo);
    memcpy(hi, c->hi, c->slots * sizeof *hi);
    memcpy(pos, c->pos, c->slots * sizeof *pos);
    memcpy(radii, c->radii, c->slots * sizeof *radii);
    free(c->used), free(c->lo), free(c->hi), free(c->pos), free(c->radii);
    free(c->head), free(c->next), free(c->prev), free(c->cx), free(c->cy);
    c->used = used, c->lo = lo, c->hi = hi, c->pos = pos, c->radii = radii;
    c->head = head, c->next = next, c->prev = prev, c->cx = cx, c->cy = cy;
    c->slots = slots;
    c->bucket_mask = buckets - 1;
    rebuild(c);
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

/* The shell is made from the body's position and radii when a move
 * comes near it, not when the slot is set: most bodies move many times
 * between two moves that come near them. */
void sweep__crowd_shell_of(const sweep_crowd *c, uint32_t slot, sweep__shell *s)
{
    sweep_vec3 p = c->pos[slot], r = c->radii[slot];
    /* The octagon whose sides touch the unit circle every 45 degrees has its
     * corners at (1, t), (t, 1), ... with t = tan(22.5 degrees). */
    const double t = sqrt(2.0) - 1.0;
    static const double ox[8] = {1, 0, -0, -1, -1, -0, 0, 1}, oy[8] = {0, 1, 1, 0, -0, -1, -1, -0};
    static const double tx[8] = {0, 1, -1, 0, 0, -1, 1, 0}, ty[8] = {1, 0, 0, 1, -1, 0, 0, -1};
    for (int k = 0; k < 8; k++) {
        double x = ox[k] + tx[k] * t, y = oy[k] + ty[k] * t;
        s->x[k] = p.x + x * r.x, s->y[k] = p.y + y * r.y;
    }
    s->zb = p.z - r.z, s->zt = p.z + r.z;
    s->slot = slot;
}

/* Bit k of each: corner k's x below lo.x, x above hi.x, y below lo.y, y
 * above hi.y. */
static void corners_out(const sweep__shell *s, sweep_vec3 lo, sweep_vec3 hi, uint32_t out[4])
{
#ifdef __SSE2__
    __m128d lx = _mm_set1_pd(lo.x), hx = _mm_set1_pd(hi.x), ly = _mm_set1_pd(lo.y), hy = _mm_set1_pd(hi.y);
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int k = 0; k < 8; k += 2) {
        __m128d x = _mm_loadu_pd(&s->x[k]), y = _mm_loadu_pd(&s->y[k]);
        out[0] |= (uint32_t)_mm_movemask_pd(_mm_cmplt_pd(x, lx)) << k;
        out[1] |= (uint32_t)_mm_movemask_pd(_mm_cmpgt_pd(x, hx)) << k;
        out[2] |= (uint32_t)_mm_movemask_pd(_mm_cmplt_pd(y, ly)) << k;
        out[3] |= (uint32_t)_mm_movemask_pd(_mm_cmpgt_pd(y, hy)) << k;
    }
#else
    out[0] = out[1] = out[2] = out[3] = 0;
    for (uint32_t k = 0; k < 8; k++) {
        out[0] |= (uint32_t)(s->x[k] < lo.x) << k, out[1] |= (uint32_t)(s->x[k] > hi.x) << k;
        out[2] |= (uint32_t)(s->y[k] < lo.y) << k, out[3] |= (uint32_t)(s->y[k] > hi.y) << k;
    }
#endif
}

/* Bit k of x (k < 8) to bit 2k. */
static uint32_t spread(uint32_t x)
{
    x = (x | x << 4) & 0x0F0Fu;
    x = (x | x << 2) & 0x3333u;
    return (x | x << 1) & 0x5555u;
}

/*
 * A triangle's box meets lo .. hi unless, along some axis, all its
 * corners lie below lo or all above hi: the box test of its min and max,
 * by the same comparisons of each corner. Side k's corners in x and y are
 * ring corners k and k + 1; fan piece f's are 0, f + 1 and f + 2.
 */
uint32_t sweep__shell_meets(const sweep__shell *s, sweep_vec3 lo, sweep_vec3 hi)
{
    if (!(s->zb <= hi.z && s->zt >= lo.z))
        return 0;
    uint32_t out[4];
    corners_out(s, lo, hi, out);
    uint32_t side_out = 0, fan_out = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t both = out[i] & (out[i] >> 1 | out[i] << 7); /* bit k: corners k and k + 1 */
        side_out |= both;
        fan_out |= both & (0u - (out[i] & 1u)); /* and corner 0 */
    }
    uint32_t sides = spread(~side_out & 0xFFu), fans = spread(~fan_out >> 1 & 0x3Fu);
    uint32_t top = s->zt <= hi.z, bottom = s->zb >= lo.z;
    return (sides | sides << 1) | ((fans * top) | (fans << 1) * bottom) << SWEEP__CROWD_SHELL_FLAT;
}

/* Each triangle's corners, as indices of the 16 (0..7 the bottom ring,
 * 8..15 the top, counter-clockwise seen from above): each side outwards
 * (two triangles a side), then the top facing up and the bottom facing
 * down in turn, each a fan. */
static const uint8_t shell_corner[SWEEP_CROWD_SHELL_TRIANGLES][3] = {
    {0, 1, 9},   {0, 9, 8},   {1, 2, 10},  {1, 10, 9},  {2, 3, 11},  {2, 11, 10}, {3, 4, 12},
    {3, 12, 11}, {4, 5, 13},  {4, 13, 12}, {5, 6, 14},  {5, 14, 13}, {6, 7, 15},  {6, 15, 14},
    {7, 0, 8},   {7, 8, 15},  {8, 9, 10},  {0, 2, 1},   {8, 10, 11}, {0, 3, 2},   {8, 11, 12},
    {0, 4, 3},   {8, 12, 13}, {0, 5, 4},   {8, 13, 14}, {0, 6, 5},   {8, 14, 15}, {0, 7, 6}};

static sweep_vec3 shell_corner_at(const sweep__shell *s, unsigned i)
{
    return sweep_v3(s->x[i & 7], s->y[i & 7], i < 8 ? s->zb : s->zt);
}

void sweep__crowd_shell_tris(const sweep__shell *s, uint32_t mask, sweep__tri *out)
{
    uint32_t base = SWEEP_CROWD_FIRST_TRIANGLE + s->slot * SWEEP_CROWD_SHELL_TRIANGLES;
    while (mask) {
        uint32_t j = SWEEP__CTZ(mask);
        mask &= mask - 1;
        const uint8_t *v = shell_corner[j];
        out[j].a = shell_corner_at(s, v[0]), out[j].b = shell_corner_at(s, v[1]), out[j].c = shell_corner_at(s, v[2]);
        out[j].index = base + j, out[j].material = 0;
    }
}

sweep_status sweep_crowd_set(sweep_crowd *c, uint32_t slot, sweep_vec3 p, sweep_vec3 r)
{
    if (!c || slot >= c->slots)
        return SWEEP_E_ARG;
    if (!sweep_v3_isfinite(p) || !sweep_v3_isfinite(r))
        return SWEEP_E_NONFINITE;
    if (!(r.x > 0.0 && r.y > 0.0 && r.z > 0.0))
        return SWEEP_E_RADII;
    c->pos[slot] = p, c->radii[slot] = r;
    c->lo[slot] = sweep_v3_sub(p, sweep_v3(r.x, r.y, r.z));
    c->hi[slot] = sweep_v3_add(p, sweep_v3(r.x, r.y, r.z));
    /* A little wider than the widest box, so that no rounding of the
     * search's q - widest leaves out a box that reaches q. */
    double wx = (c->hi[slot].x - c->lo[slot].x) * (1.0 + 1e-9), wy = (c->hi[slot].y - c->lo[slot].y) * (1.0 + 1e-9);
    if (wx > c->widest)
        c->widest = wx;
    if (wy > c->widest_y)
        c->widest_y = wy;
    double w = c->widest > c->widest_y ? c->widest : c->widest_y;
    int was_used = c->used[slot];
    c->used[slot] = 1;
    if (!was_used)
        c->count++;
    if (w > c->cell) {
        /* A box wider than a cell: cells of twice the widest, so this
         * happens again only once the widest box has doubled. */
        c->cell = 2.0 * w;
        c->inv_cell = 1.0 / c->cell;
        rebuild(c);
        return SWEEP_OK;
    }
    if (!was_used) {
        link_slot(c, slot);
    } else if (c->cx[slot] != sweep__crowd_key(c->lo[slot].x, c->inv_cell) ||
               c->cy[slot] != sweep__crowd_key(c->lo[slot].y, c->inv_cell)) {
        unlink_slot(c, slot);
        link_slot(c, slot);
    }
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
    unlink_slot(c, slot);
    c->used[slot] = 0;
    c->count--;
}
