/*
 * history.c - the ring of past frames (history.h, history_impl.h): one
 * allocation per array at creation, pushes that sort by id, keep each
 * entity's and each frame's box and write a set of radii and shapes only
 * when it changed or has lasted its ticks, and the interpolated poses the
 * queries read.
 */
#include <stdlib.h>
#include <string.h>

#include "core/compiler.h"
#include "core/history.h"
#include "core/history_impl.h"
#include "core/quat.h"
#include "core/world_impl.h"

#define NO_INDEX UINT32_MAX

static int radius_ok(double r)
{
    return r > 0.0;
}

sweep_status sweep_hit_shapes_check(const sweep_hit_shape *shapes, uint32_t count, double reach, uint32_t *bad)
{
    if (count > SWEEP_HIT_SHAPES_MAX || (count > 0 && shapes == NULL)) {
        if (bad)
            *bad = 0;
        return SWEEP_E_ARG;
    }
    for (uint32_t i = 0; i < count; i++) {
        const sweep_hit_shape *s = &shapes[i];
        sweep_status st = SWEEP_OK;
        if (s->kind >= SWEEP_SHAPE_KIND_COUNT)
            st = SWEEP_E_ARG;
        else if (!sweep_v3_isfinite(s->a) || !sweep_v3_isfinite(s->b) || !sweep_v3_isfinite(s->radii) ||
                 !isfinite(reach))
            st = SWEEP_E_NONFINITE;
        else if (!radius_ok(s->radii.x) ||
                 (s->kind == SWEEP_SHAPE_ELLIPSOID && !(radius_ok(s->radii.y) && radius_ok(s->radii.z))))
            st = SWEEP_E_RADII;
        else {
            /* Every point of the shape: its centre (or segment's ends) plus
             * its largest radius. */
            double r = s->radii.x;
            if (s->kind == SWEEP_SHAPE_ELLIPSOID) {
                r = s->radii.y > r ? s->radii.y : r;
                r = s->radii.z > r ? s->radii.z : r;
            }
            /* |a| + r <= reach, squared: no root a shape a tick. */
            double room = reach - r;
            if (!(room >= 0.0 && sweep_v3_len2(s->a) <= room * room &&
                  (s->kind != SWEEP_SHAPE_CAPSULE || sweep_v3_len2(s->b) <= room * room)))
                st = SWEEP_E_ARG;
        }
        if (st != SWEEP_OK) {
            if (bad)
                *bad = i;
            return st;
        }
    }
    return SWEEP_OK;
}

/* How many ticks a set is named at most (history_impl.h): a ring shorter
 * than SWEEP__HISTORY_SET_TICKS writes its sets again every capacity
 * ticks, so that its pools stay fewer than twice its frames. */
static uint32_t set_ticks_of(uint32_t capacity)
{
    return capacity < SWEEP__HISTORY_SET_TICKS ? capacity : SWEEP__HISTORY_SET_TICKS;
}

/* Bytes of one frame, or 0 when the sizes are bad or do not fit a size_t. */
static size_t frame_bytes(uint32_t max_entities, uint32_t mover_count)
{
    size_t per_entity = sizeof(sweep__hist_entity) + 12 * sizeof(float);
    if (max_entities >= SWEEP__HIST_SAME || (double)max_entities > (double)(SIZE_MAX / 8) / (double)per_entity ||
        (double)mover_count > (double)(SIZE_MAX / 8) / (double)sizeof(sweep_mover_pose))
        return 0;
    return sizeof(sweep__hist_frame) + (size_t)max_entities * per_entity + (size_t)mover_count * sizeof(sweep_mover_pose);
}

/* Bytes of one pool (which may be 0), or SIZE_MAX when the sizes are bad:
 * the sets and shapes of all pools are counted by uint32_t. */
static size_t pool_bytes(uint32_t pools, uint32_t max_entities, uint32_t max_shapes)
{
    if ((uint64_t)pools * max_entities > UINT32_MAX || (uint64_t)pools * max_shapes > UINT32_MAX)
        return SIZE_MAX;
    return (size_t)max_entities * sizeof(sweep__hist_set) + (size_t)max_shapes * sizeof(sweep_hit_shape);
}

size_t sweep_history_bytes_shapes(uint32_t capacity, uint32_t max_entities, uint32_t max_shapes, uint32_t mover_count)
{
    if (capacity == 0 || capacity > SWEEP_HISTORY_MAX_TICKS)
        return 0;
    uint32_t pools = capacity + set_ticks_of(capacity) - 1;
    size_t fb = frame_bytes(max_entities, mover_count), pb = pool_bytes(pools, max_entities, max_shapes);
    if (fb == 0 || fb > (SIZE_MAX / 4) / capacity || pb > (SIZE_MAX / 4) / pools)
        return 0;
    return sizeof(sweep_history) + (size_t)capacity * fb + (size_t)pools * pb +
           2 * (size_t)max_entities * sizeof(uint32_t);
}

/* The pool of a history with no other limit: every entity's most. */
static uint32_t shapes_of(uint32_t max_entities)
{
    uint64_t n = (uint64_t)max_entities * SWEEP_HIT_SHAPES_MAX;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

size_t sweep_history_bytes(uint32_t capacity, uint32_t max_entities, uint32_t mover_count)
{
    return sweep_history_bytes_shapes(capacity, max_entities, shapes_of(max_entities), mover_count);
}

sweep_status sweep_history_create_shapes(uint32_t capacity, uint32_t max_entities, uint32_t max_shapes,
                                         uint32_t mover_count, sweep_history **out)
{
    if (out == NULL || sweep_history_bytes_shapes(capacity, max_entities, max_shapes, mover_count) == 0)
        return SWEEP_E_ARG;
    sweep_history *h = calloc(1, sizeof *h);
    if (h == NULL)
        return SWEEP_E_NOMEM;
    h->set_ticks = set_ticks_of(capacity), h->pools = capacity + h->set_ticks - 1;
    size_t slots = (size_t)capacity * max_entities, sets = (size_t)h->pools * max_entities,
           pool = (size_t)h->pools * max_shapes;
    h->capacity = capacity, h->max_entities = max_entities, h->max_shapes = max_shapes, h->mover_count = mover_count;
    h->frames = calloc(capacity, sizeof *h->frames);
    /* calloc of 0 may give NULL: ask for one element at least. */
    h->ents = calloc(slots ? slots : 1, sizeof *h->ents);
    h->sets = calloc(sets ? sets : 1, sizeof *h->sets);
    h->shapes = calloc(pool ? pool : 1, sizeof *h->shapes);
    h->movers = calloc(mover_count ? (size_t)capacity * mover_count : 1, sizeof *h->movers);
    h->fbox = calloc(slots ? slots * 12 : 1, sizeof *h->fbox);
    h->order = calloc(max_entities ? max_entities : 1, sizeof *h->order);
    h->scratch = calloc(max_entities ? max_entities : 1, sizeof *h->scratch);
    if (!h->frames || !h->ents || !h->sets || !h->shapes || !h->movers || !h->fbox || !h->order || !h->scratch) {
        sweep_history_destroy(h);
        return SWEEP_E_NOMEM;
    }
    *out = h;
    return SWEEP_OK;
}

sweep_status sweep_history_create(uint32_t capacity, uint32_t max_entities, uint32_t mover_count, sweep_history **out)
{
    return sweep_history_create_shapes(capacity, max_entities, shapes_of(max_entities), mover_count, out);
}

void sweep_history_destroy(sweep_history *h)
{
    if (h == NULL)
        return;
    free(h->frames), free(h->ents), free(h->sets), free(h->shapes), free(h->movers), free(h->fbox), free(h->order),
        free(h->scratch);
    free(h);
}

void sweep_history_clear(sweep_history *h)
{
    if (h)
        h->head = 0, h->count = 0, h->oldest_tick = 0;
}

int sweep_history_span(const sweep_history *h, uint64_t *oldest, uint64_t *newest)
{
    if (h == NULL || h->count == 0)
        return 0;
    if (oldest)
        *oldest = h->oldest_tick;
    if (newest)
        *newest = h->oldest_tick + h->count - 1;
    return 1;
}

static double max3(sweep_vec3 v)
{
    double m = v.x > v.y ? v.x : v.y;
    return m > v.z ? m : v.z;
}

static double min3(sweep_vec3 v)
{
    double m = v.x < v.y ? v.x : v.y;
    return m < v.z ? m : v.z;
}

static double absmax3(sweep_vec3 v)
{
    return max3(sweep_v3(fabs(v.x), fabs(v.y), fabs(v.z)));
}

static SWEEP__ALWAYS_INLINE float minf(float a, float b)
{
    return a < b ? a : b;
}

static SWEEP__ALWAYS_INLINE float maxf(float a, float b)
{
    return a > b ? a : b;
}

/* A box in float, lo rounded down and hi up (world_impl.h's widening). */
static void float_box(float *f, sweep_vec3 lo, sweep_vec3 hi)
{
    f[0] = sweep__widen_down(lo.x), f[1] = sweep__widen_down(lo.y), f[2] = sweep__widen_down(lo.z);
    f[3] = sweep__widen_up(hi.x), f[4] = sweep__widen_up(hi.y), f[5] = sweep__widen_up(hi.z);
}

static void grow(sweep_vec3 *lo, sweep_vec3 *hi, sweep_vec3 l, sweep_vec3 h)
{
    *lo = sweep_v3_min(*lo, l), *hi = sweep_v3_max(*hi, h);
}

/* rel, rmin and rmax of a set (history_impl.h) from its radii and its
 * checked shapes s. */
static void entity_rel(sweep__hist_set *e, const sweep_hit_shape *s)
{
    sweep_vec3 lo = sweep_v3(-e->radii.x, -e->radii.y, -e->radii.z), hi = e->radii;
    e->rmin = min3(e->radii), e->rmax = max3(e->radii);
    for (uint32_t k = 0; k < e->shape_count; k++) {
        sweep_vec3 r = s[k].kind == SWEEP_SHAPE_ELLIPSOID ? s[k].radii : sweep_v3(s[k].radii.x, s[k].radii.x, s[k].radii.x);
        grow(&lo, &hi, sweep_v3_sub(s[k].a, r), sweep_v3_add(s[k].a, r));
        if (s[k].kind == SWEEP_SHAPE_CAPSULE)
            grow(&lo, &hi, sweep_v3_sub(s[k].b, r), sweep_v3_add(s[k].b, r));
        if (s[k].kind == SWEEP_SHAPE_ELLIPSOID) {
            e->rmin = min3(r) < e->rmin ? min3(r) : e->rmin;
            e->rmax = max3(r) > e->rmax ? max3(r) : e->rmax;
        }
    }
    float_box(e->rel, lo, hi);
    const float *r = e->rel;
    e->relmax = maxf(maxf(maxf(fabsf(r[0]), fabsf(r[1])), maxf(fabsf(r[2]), fabsf(r[3]))), maxf(fabsf(r[4]), fabsf(r[5])));
}

/* The entity's box in float (lo xyz, hi xyz): its position plus rel,
 * widened by w, 2^-20 of M, the largest magnitude in those sums (the
 * position's and rel's; a shape's offset and radius are within rel's),
 * plus 2^-100. Summed in float: the position's rounding, the two sums'
 * and w's own are each within 2^-24 of M, so the box still reaches
 * beyond the exact one by more than 12 * 2^-24 of M. A pose interpolated
 * from two kept ones lies within a few units in the last place (2^-52)
 * of those magnitudes from their boxes' union, which that holds
 * thousands of times over. */
static void world_box(float *f, sweep_vec3 p, const float *rel, float relmax)
{
    float w = (float)((absmax3(p) + relmax) * SWEEP__WIDEN_REL) + (float)SWEEP__WIDEN_ABS;
    float x = (float)p.x, y = (float)p.y, z = (float)p.z;
    f[0] = x + rel[0] - w, f[1] = y + rel[1] - w, f[2] = z + rel[2] - w;
    f[3] = x + rel[3] + w, f[4] = y + rel[4] + w, f[5] = z + rel[5] + w;
}

/* Shapes that changed since the tick before are not blended: the earlier
 * shapes ride from the old position to this one (sweep__history_pose),
 * and this box f must hold them on the way, so it also holds the earlier
 * box pf carried by that move d, widened again as world_box does for the
 * sums' rounding. */
static void carry_box(float *f, const float *pf, sweep_vec3 d)
{
    double m = absmax3(d);
    for (int k = 0; k < 6; k++)
        m = fabs(pf[k]) > m ? fabs(pf[k]) : m;
    m = m * 0x1p-40 + 0x1p-1000;
    double dd[3] = {d.x, d.y, d.z};
    for (int k = 0; k < 3; k++) {
        float lo = sweep__widen_down(pf[k] + dd[k] - m), hi = sweep__widen_up(pf[3 + k] + dd[k] + m);
        f[k] = lo < f[k] ? lo : f[k];
        f[3 + k] = hi > f[3 + k] ? hi : f[3 + k];
    }
}

/* order[0 .. n) sorted by the entities' ids: a bottom-up merge sort
 * through the scratch array, after a check that spares it when the owner
 * already lists them in order (the usual case). Ids are unique, so any
 * correct sort gives the same order. 0 when two ids are the same. */
static int sort_by_id(uint32_t *order, uint32_t *scratch, const sweep_history_entity *e, uint32_t n)
{
    int rising = 1;
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        if (i > 0 && e[i - 1].id >= e[i].id)
            rising = 0;
    }
    if (rising)
        return 1;
    uint32_t *src = order, *dst = scratch;
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = e[src[j]].id < e[src[i]].id ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst, dst = t;
    }
    if (src != order)
        memcpy(order, src, n * sizeof *order);
    for (uint32_t i = 1; i < n; i++)
        if (e[order[i - 1]].id == e[order[i]].id)
            return 0;
    return 1;
}

/* Can shapes be interpolated one by one: the same count, ids and kinds? */
static int shapes_match(const sweep_hit_shape *a, const sweep_hit_shape *b, uint32_t na, uint32_t nb)
{
    if (na != nb)
        return 0;
    for (uint32_t k = 0; k < na; k++)
        if (a[k].id != b[k].id || a[k].kind != b[k].kind)
            return 0;
    return 1;
}

/* Are a and b the same bits? Word by word: GCC calls memcmp for
 * sweep_v3_same_bits, which costs more than the comparison. */
static SWEEP__ALWAYS_INLINE int same_bits(sweep_vec3 a, sweep_vec3 b)
{
    uint64_t x[3], y[3];
    memcpy(x, &a, sizeof x), memcpy(y, &b, sizeof y);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2])) == 0;
}

/* Are an entity's radii and shapes the bits of the set it named the tick
 * before? Then they passed the same check (the reach is the radii's). */
static int same_as_kept(const sweep_history_entity *src, const sweep__hist_set *p, const sweep_hit_shape *ps)
{
    if (src->shape_count != p->shape_count || !same_bits(src->radii, p->radii))
        return 0;
    return src->shape_count == 0 ||
           (src->shapes != NULL && memcmp(src->shapes, ps, src->shape_count * sizeof *ps) == 0);
}

/* out = the union of float boxes a and b (lo xyz, hi xyz); out may be a.
 * Spelt out: a loop of six is not unrolled at -O2, and this runs twice an
 * entity a push. */
static SWEEP__ALWAYS_INLINE void union_box(float *out, const float *a, const float *b)
{
    float l0 = minf(a[0], b[0]), l1 = minf(a[1], b[1]), l2 = minf(a[2], b[2]);
    float h0 = maxf(a[3], b[3]), h1 = maxf(a[4], b[4]), h2 = maxf(a[5], b[5]);
    out[0] = l0, out[1] = l1, out[2] = l2, out[3] = h0, out[4] = h1, out[5] = h2;
}

/* An entity of the tick before that is gone by now spans its own box. */
static void gone(sweep__hist_entity *p, float *pf)
{
    p->next = NO_INDEX;
    memcpy(pf + 6, pf, 6 * sizeof *pf);
}

sweep_status sweep_history_push(sweep_history *h, uint64_t tick, const sweep_history_entity *entities, uint32_t count,
                                const sweep_mover_pose *movers, uint32_t mover_count)
{
    if (h == NULL || (count > 0 && entities == NULL) || count > h->max_entities || mover_count != h->mover_count ||
        (mover_count > 0 && movers == NULL))
        return SWEEP_E_ARG;
    if (h->count > 0 && tick != h->oldest_tick + h->count)
        return SWEEP_E_ARG;
    for (uint32_t m = 0; m < mover_count; m++) {
        if (!sweep_v3_isfinite(movers[m].position) || !sweep_quat_isfinite(movers[m].rotation))
            return SWEEP_E_NONFINITE;
        /* Unit as a keyframe's (mover.h): a query's ball round the mover
         * holds its triangles only under a rotation. */
        if (!(fabs(sweep_quat_dot(movers[m].rotation, movers[m].rotation) - 1.0) <= 1e-6))
            return SWEEP_E_ARG;
    }
    if (!sort_by_id(h->order, h->scratch, entities, count))
        return SWEEP_E_ARG;

    /* The newest frame so far (none with a ring of one, whose only slot is
     * overwritten) is where this one's entities come from. Each entity's
     * index there goes to scratch, flagged when its radii and shapes are
     * the bits kept there: those are not checked, nor their box made,
     * again (a set of hit shapes seldom changes, and radii not often).
     * Its position is checked every tick. The newest frame's spans
     * are unset, so setting those of its entities gone by now is harmless
     * if a shape below is refused. */
    sweep__hist_entity *prev = NULL;
    float *prev_f = NULL;
    uint32_t prev_count = 0, pj = 0;
    if (h->count > 0 && h->capacity > 1) {
        uint32_t ps = (h->head + h->count - 1) % h->capacity;
        size_t pb = (size_t)ps * h->max_entities;
        prev = &h->ents[pb], prev_f = &h->fbox[pb * 12];
        prev_count = h->frames[ps].count;
    }
    uint64_t shapes = 0;
    for (uint32_t i = 0; i < count; i++) {
        const sweep_history_entity *src = &entities[h->order[i]];
        for (; pj < prev_count && prev[pj].id < src->id; pj++)
            gone(&prev[pj], &prev_f[(size_t)pj * 12]);
        uint32_t at = NO_INDEX;
        if (pj < prev_count && prev[pj].id == src->id) {
            at = pj;
            const sweep__hist_set *ps = &h->sets[prev[pj].set];
            if (same_as_kept(src, ps, &h->shapes[ps->first]))
                at |= SWEEP__HIST_SAME;
            pj++;
        }
        if (!sweep_v3_isfinite(src->position))
            return SWEEP_E_NONFINITE;
        if (at == NO_INDEX || !(at & SWEEP__HIST_SAME)) {
            if (!sweep_v3_isfinite(src->radii))
                return SWEEP_E_NONFINITE;
            if (!(radius_ok(src->radii.x) && radius_ok(src->radii.y) && radius_ok(src->radii.z)))
                return SWEEP_E_RADII;
            sweep_status st =
                sweep_hit_shapes_check(src->shapes, src->shape_count, SWEEP__HISTORY_REACH * max3(src->radii), NULL);
            if (st != SWEEP_OK)
                return st;
        }
        shapes += src->shape_count;
        h->scratch[i] = at;
    }
    for (; pj < prev_count; pj++)
        gone(&prev[pj], &prev_f[(size_t)pj * 12]);
    if (shapes > h->max_shapes)
        return SWEEP_E_ARG;

    /* Valid: from here the frame is written and nothing fails. A full
     * ring forgets its oldest frame, whose slot is the new one. */
    uint32_t slot;
    if (h->count == h->capacity) {
        slot = h->head;
        h->head = (h->head + 1) % h->capacity;
        h->oldest_tick++;
    } else {
        slot = (h->head + h->count) % h->capacity;
        if (h->count == 0)
            h->oldest_tick = tick;
        h->count++;
    }
    sweep__hist_frame *fr = &h->frames[slot];
    fr->tick = tick, fr->count = count;
    float fb[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
    double rmin = INFINITY, rmax = 0.0;
    size_t base = (size_t)slot * h->max_entities;
    /* This tick's pool: its sets were born pools ticks ago, and every
     * frame naming them is forgotten by now (history_impl.h). */
    uint32_t pool = (uint32_t)(tick % h->pools), set_at = pool * h->max_entities, used = pool * h->max_shapes;
    for (uint32_t i = 0; i < count; i++) {
        const sweep_history_entity *src = &entities[h->order[i]];
        sweep__hist_entity *e = &h->ents[base + i];
        float *f = &h->fbox[(base + i) * 12];
        uint32_t at = h->scratch[i], j = at & ~SWEEP__HIST_SAME;
        e->id = src->id, e->position = src->position;
        const sweep__hist_set *ps = at != NO_INDEX ? &h->sets[prev[j].set] : NULL;
        if (at != NO_INDEX && (at & SWEEP__HIST_SAME) && (uint32_t)tick - ps->born < h->set_ticks) {
            e->set = prev[j].set;
        } else {
            sweep__hist_set *ns = &h->sets[set_at];
            e->set = set_at++;
            ns->radii = src->radii, ns->born = (uint32_t)tick;
            ns->first = used, ns->shape_count = src->shape_count;
            if (src->shape_count > 0)
                memcpy(&h->shapes[used], src->shapes, src->shape_count * sizeof *h->shapes);
            used += src->shape_count;
            if (at != NO_INDEX && (at & SWEEP__HIST_SAME)) {
                memcpy(ns->rel, ps->rel, sizeof ns->rel);
                ns->relmax = ps->relmax, ns->rmin = ps->rmin, ns->rmax = ps->rmax;
            } else {
                entity_rel(ns, &h->shapes[ns->first]);
            }
        }
        const sweep__hist_set *es = &h->sets[e->set];
        world_box(f, e->position, es->rel, es->relmax);
        if (at != NO_INDEX) {
            sweep__hist_entity *p = &prev[j];
            float *pf = &prev_f[(size_t)j * 12];
            if (!(at & SWEEP__HIST_SAME) &&
                !shapes_match(&h->shapes[ps->first], &h->shapes[es->first], ps->shape_count, es->shape_count))
                carry_box(f, pf, sweep_v3_sub(e->position, p->position));
            /* The tick before now knows where this entity goes; the
             * floats of two boxes rounded outwards hold their union. */
            p->next = i;
            union_box(pf + 6, pf, f);
        }
        /* The span (and next) of this entity wait for the next tick's
         * push: no query reads them while this frame is the newest. */
        union_box(fb, fb, f);
        rmin = es->rmin < rmin ? es->rmin : rmin;
        rmax = es->rmax > rmax ? es->rmax : rmax;
    }
    fr->lo = sweep_v3(fb[0], fb[1], fb[2]), fr->hi = sweep_v3(fb[3], fb[4], fb[5]);
    fr->rmin = rmin, fr->rmax = rmax;
    if (mover_count > 0)
        memcpy(&h->movers[(size_t)slot * h->mover_count], movers, mover_count * sizeof *movers);
    return SWEEP_OK;
}

/* The parts of a kept frame, by its position from the oldest. */
static void frame_parts(const sweep_history *h, uint32_t from_oldest, const sweep__hist_frame **f,
                        const sweep__hist_entity **e, const sweep_mover_pose **m, const float **fbox)
{
    uint32_t slot = (h->head + from_oldest) % h->capacity;
    size_t base = (size_t)slot * h->max_entities;
    *f = &h->frames[slot];
    *fbox = &h->fbox[base * 12];
    *e = &h->ents[base];
    *m = &h->movers[(size_t)slot * h->mover_count];
}

sweep_status sweep__history_at(const sweep_history *h, uint64_t tick, double fraction, sweep__hist_at *at)
{
    if (isnan(fraction))
        return SWEEP_E_NONFINITE;
    if (h->count == 0 || tick < h->oldest_tick || !(fraction >= 0.0 && fraction < 1.0))
        return SWEEP_E_TIME;
    uint64_t k = tick - h->oldest_tick;
    int two = fraction > 0.0;
    /* k >= count first: k + 1 wraps for the last tick a uint64_t holds. */
    if (k >= h->count || k + (uint64_t)two >= h->count)
        return SWEEP_E_TIME;
    at->h = h, at->f = fraction, at->two = two;
    const float *unused;
    frame_parts(h, (uint32_t)k, &at->f0, &at->e0, &at->m0, &at->fbox);
    if (two)
        frame_parts(h, (uint32_t)k + 1, &at->f1, &at->e1, &at->m1, &unused);
    else
        at->f1 = NULL, at->e1 = NULL, at->m1 = NULL;
    return SWEEP_OK;
}

void sweep__history_box(const sweep__hist_at *at, sweep_vec3 *lo, sweep_vec3 *hi, double *an)
{
    *lo = at->f0->lo, *hi = at->f0->hi;
    *an = sweep__history_aniso(at->f0->rmin, at->f0->rmax, at->f0->rmin, at->f0->rmax);
    if (at->two) {
        grow(lo, hi, at->f1->lo, at->f1->hi);
        *an = sweep__history_aniso(at->f0->rmin, at->f0->rmax, at->f1->rmin, at->f1->rmax);
    }
}

static sweep_vec3 lerp(sweep_vec3 a, sweep_vec3 b, double f)
{
    return sweep_v3_add(a, sweep_v3_scale(sweep_v3_sub(b, a), f));
}

void sweep__history_pose(const sweep__hist_at *at, const sweep__hist_ref *ref, sweep__hist_pose *out)
{
    const sweep__hist_entity *e = &at->e0[ref->i0];
    const sweep__hist_set *es = sweep__history_set(at, e);
    const sweep_hit_shape *s = &at->h->shapes[es->first];
    out->id = e->id;
    out->shape_count = es->shape_count;
    if (ref->i1 == NO_INDEX) {
        out->position = e->position, out->radii = es->radii;
        for (uint32_t k = 0; k < es->shape_count; k++) {
            out->shapes[k] = s[k];
            out->shapes[k].a = sweep_v3_add(e->position, s[k].a);
            out->shapes[k].b = sweep_v3_add(e->position, s[k].b);
        }
        return;
    }
    const sweep__hist_entity *e1 = &at->e1[ref->i1];
    const sweep__hist_set *es1 = sweep__history_set(at, e1);
    const sweep_hit_shape *s1 = &at->h->shapes[es1->first];
    double f = at->f;
    out->position = lerp(e->position, e1->position, f);
    out->radii = lerp(es->radii, es1->radii, f);
    /* Shapes that changed (another count, id or kind) are not blended:
     * the earlier tick's shapes ride on the interpolated position. */
    int blend = shapes_match(s, s1, es->shape_count, es1->shape_count);
    for (uint32_t k = 0; k < es->shape_count; k++) {
        out->shapes[k] = s[k];
        sweep_vec3 a = s[k].a, b = s[k].b;
        if (blend) {
            a = lerp(a, s1[k].a, f), b = lerp(b, s1[k].b, f);
            out->shapes[k].radii = lerp(s[k].radii, s1[k].radii, f);
        }
        out->shapes[k].a = sweep_v3_add(out->position, a);
        out->shapes[k].b = sweep_v3_add(out->position, b);
    }
}

sweep_mover_pose sweep__history_mover(const sweep__hist_at *at, uint32_t m)
{
    sweep_mover_pose p = at->m0[m];
    /* A mover at rest over the tick is where it was kept, bit for bit
     * (an nlerp of a rotation with itself may round it). */
    if (at->two && memcmp(&p, &at->m1[m], sizeof p) != 0) {
        const sweep_mover_pose *q = &at->m1[m];
        p.position = lerp(p.position, q->position, at->f);
        p.rotation = sweep_quat_nlerp(p.rotation, q->rotation, at->f);
    }
    return p;
}

sweep_status sweep_history_entity_at(const sweep_history *h, uint64_t id, uint64_t tick, double fraction,
                                     sweep_vec3 *position, sweep_vec3 *radii)
{
    if (!h)
        return SWEEP_E_ARG;
    sweep__hist_at at;
    sweep_status st = sweep__history_at(h, tick, fraction, &at);
    if (st != SWEEP_OK)
        return st;
    /* A frame keeps its entities sorted by id. */
    uint32_t a = 0, b = at.f0->count;
    while (a < b) {
        uint32_t m = a + (b - a) / 2;
        if (at.e0[m].id < id)
            a = m + 1;
        else
            b = m;
    }
    if (a >= at.f0->count || at.e0[a].id != id)
        return SWEEP_E_ARG;
    sweep__hist_ref ref;
    sweep__history_ref(&at, a, &ref);
    sweep__hist_pose pose;
    sweep__history_pose(&at, &ref, &pose);
    if (position)
        *position = pose.position;
    if (radii)
        *radii = pose.radii;
    return SWEEP_OK;
}
