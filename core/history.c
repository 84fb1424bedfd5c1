/*
 * history.c - the ring of past frames (history.h, history_impl.h): one
 * allocation per array at creation, pushes that sort by id and keep each
 * entity's and each frame's box, and the interpolated poses the queries
 * read.
 */
#include <stdlib.h>
#include <string.h>

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

/* Sizes of one history, or 0 when they are bad or do not fit a size_t. */
static size_t frame_bytes(uint32_t max_entities, uint32_t mover_count)
{
    size_t per_entity = sizeof(sweep__hist_entity) + SWEEP_HIT_SHAPES_MAX * sizeof(sweep_hit_shape) + 12 * sizeof(float);
    if ((double)max_entities > (double)(SIZE_MAX / 4) / (double)per_entity ||
        (double)mover_count > (double)(SIZE_MAX / 4) / (double)sizeof(sweep_mover_pose))
        return 0;
    return sizeof(sweep__hist_frame) + (size_t)max_entities * per_entity + (size_t)mover_count * sizeof(sweep_mover_pose);
}

size_t sweep_history_bytes(uint32_t capacity, uint32_t max_entities, uint32_t mover_count)
{
    if (capacity == 0 || capacity > SWEEP_HISTORY_MAX_TICKS)
        return 0;
    size_t fb = frame_bytes(max_entities, mover_count);
    if (fb == 0 || fb > (SIZE_MAX / 2) / capacity)
        return 0;
    return sizeof(sweep_history) + (size_t)capacity * fb + 2 * (size_t)max_entities * sizeof(uint32_t);
}

sweep_status sweep_history_create(uint32_t capacity, uint32_t max_entities, uint32_t mover_count, sweep_history **out)
{
    if (out == NULL || sweep_history_bytes(capacity, max_entities, mover_count) == 0)
        return SWEEP_E_ARG;
    sweep_history *h = calloc(1, sizeof *h);
    if (h == NULL)
        return SWEEP_E_NOMEM;
    size_t slots = (size_t)capacity * max_entities;
    h->capacity = capacity, h->max_entities = max_entities, h->mover_count = mover_count;
    h->frames = calloc(capacity, sizeof *h->frames);
    /* calloc of 0 may give NULL: ask for one element at least. */
    h->ents = calloc(slots ? slots : 1, sizeof *h->ents);
    h->shapes = calloc(slots ? slots * SWEEP_HIT_SHAPES_MAX : 1, sizeof *h->shapes);
    h->movers = calloc(mover_count ? (size_t)capacity * mover_count : 1, sizeof *h->movers);
    h->fbox = calloc(slots ? slots * 12 : 1, sizeof *h->fbox);
    h->order = calloc(max_entities ? max_entities : 1, sizeof *h->order);
    h->scratch = calloc(max_entities ? max_entities : 1, sizeof *h->scratch);
    if (!h->frames || !h->ents || !h->shapes || !h->movers || !h->fbox || !h->order || !h->scratch) {
        sweep_history_destroy(h);
        return SWEEP_E_NOMEM;
    }
    *out = h;
    return SWEEP_OK;
}

void sweep_history_destroy(sweep_history *h)
{
    if (h == NULL)
        return;
    free(h->frames), free(h->ents), free(h->shapes), free(h->movers), free(h->fbox), free(h->order), free(h->scratch);
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

static sweep_status entity_check(const sweep_history_entity *e)
{
    if (!sweep_v3_isfinite(e->position) || !sweep_v3_isfinite(e->radii))
        return SWEEP_E_NONFINITE;
    if (!(radius_ok(e->radii.x) && radius_ok(e->radii.y) && radius_ok(e->radii.z)))
        return SWEEP_E_RADII;
    return sweep_hit_shapes_check(e->shapes, e->shape_count, SWEEP__HISTORY_REACH * max3(e->radii), NULL);
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

/* The box of an entity's ellipsoid and shapes, widened by 2^-40 of its
 * largest coordinate and radius (plus 2^-1000): a pose interpolated from
 * two kept ones lies within a few units in the last place (2^-52) of
 * their boxes' union, which this margin holds thousands of times over. */
static void entity_box(sweep__hist_entity *e, const sweep_hit_shape *s)
{
    sweep_vec3 lo = sweep_v3_sub(e->position, e->radii), hi = sweep_v3_add(e->position, e->radii);
    double scale = max3(e->radii);
    for (uint32_t k = 0; k < e->shape_count; k++) {
        sweep_vec3 r = s[k].kind == SWEEP_SHAPE_ELLIPSOID ? s[k].radii : sweep_v3(s[k].radii.x, s[k].radii.x, s[k].radii.x);
        sweep_vec3 a = sweep_v3_add(e->position, s[k].a);
        grow(&lo, &hi, sweep_v3_sub(a, r), sweep_v3_add(a, r));
        if (s[k].kind == SWEEP_SHAPE_CAPSULE) {
            sweep_vec3 b = sweep_v3_add(e->position, s[k].b);
            grow(&lo, &hi, sweep_v3_sub(b, r), sweep_v3_add(b, r));
        }
        double m = max3(r);
        scale = m > scale ? m : scale;
    }
    e->rmin = min3(e->radii), e->rmax = max3(e->radii);
    for (uint32_t k = 0; k < e->shape_count; k++)
        if (s[k].kind == SWEEP_SHAPE_ELLIPSOID) {
            e->rmin = min3(s[k].radii) < e->rmin ? min3(s[k].radii) : e->rmin;
            e->rmax = max3(s[k].radii) > e->rmax ? max3(s[k].radii) : e->rmax;
        }
    double mag = absmax3(lo) > absmax3(hi) ? absmax3(lo) : absmax3(hi);
    double margin = (mag + scale) * 0x1p-40 + 0x1p-1000;
    sweep_vec3 w = sweep_v3(margin, margin, margin);
    e->lo = sweep_v3_sub(lo, w), e->hi = sweep_v3_add(hi, w);
}

/* order[0 .. n) sorted by the entities' ids: a bottom-up merge sort
 * through the scratch array, after a check that spares it when the owner
 * already lists them in order (the usual case). Ids are unique, so any
 * correct sort gives the same order. */
static void sort_by_id(uint32_t *order, uint32_t *scratch, const sweep_history_entity *e, uint32_t n)
{
    int sorted = 1;
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        if (i > 0 && e[i - 1].id > e[i].id)
            sorted = 0;
    }
    if (sorted)
        return;
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

sweep_status sweep_history_push(sweep_history *h, uint64_t tick, const sweep_history_entity *entities, uint32_t count,
                                const sweep_mover_pose *movers, uint32_t mover_count)
{
    if (h == NULL || (count > 0 && entities == NULL) || count > h->max_entities || mover_count != h->mover_count ||
        (mover_count > 0 && movers == NULL))
        return SWEEP_E_ARG;
    if (h->count > 0 && tick != h->oldest_tick + h->count)
        return SWEEP_E_ARG;
    for (uint32_t i = 0; i < count; i++) {
        sweep_status st = entity_check(&entities[i]);
        if (st != SWEEP_OK)
            return st;
    }
    for (uint32_t m = 0; m < mover_count; m++) {
        if (!sweep_v3_isfinite(movers[m].position) || !sweep_quat_isfinite(movers[m].rotation))
            return SWEEP_E_NONFINITE;
        /* Unit as a keyframe's (mover.h): a query's ball round the mover
         * holds its triangles only under a rotation. */
        if (!(fabs(sweep_quat_dot(movers[m].rotation, movers[m].rotation) - 1.0) <= 1e-6))
            return SWEEP_E_ARG;
    }
    sort_by_id(h->order, h->scratch, entities, count);
    for (uint32_t i = 1; i < count; i++)
        if (entities[h->order[i - 1]].id == entities[h->order[i]].id)
            return SWEEP_E_ARG;

    /* Valid: from here the frame is written and nothing fails. A full
     * ring forgets its oldest frame, whose slot is the new one. The
     * newest frame so far (none with a ring of one, whose only slot is
     * overwritten) is where this one's entities come from. */
    sweep__hist_entity *prev = NULL;
    const sweep_hit_shape *prev_s = NULL;
    uint32_t prev_count = 0, pj = 0;
    if (h->count > 0 && h->capacity > 1) {
        size_t pb = (size_t)((h->head + h->count - 1) % h->capacity) * h->max_entities;
        prev = &h->ents[pb], prev_s = &h->shapes[pb * SWEEP_HIT_SHAPES_MAX];
        prev_count = h->frames[(h->head + h->count - 1) % h->capacity].count;
    }
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
    fr->lo = sweep_v3(INFINITY, INFINITY, INFINITY), fr->hi = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
    fr->rmin = INFINITY, fr->rmax = 0.0;
    size_t base = (size_t)slot * h->max_entities;
    for (uint32_t i = 0; i < count; i++) {
        const sweep_history_entity *src = &entities[h->order[i]];
        sweep__hist_entity *e = &h->ents[base + i];
        sweep_hit_shape *s = &h->shapes[(base + i) * SWEEP_HIT_SHAPES_MAX];
        e->id = src->id, e->position = src->position, e->radii = src->radii, e->shape_count = src->shape_count;
        if (src->shape_count > 0)
            memcpy(s, src->shapes, src->shape_count * sizeof *s);
        entity_box(e, s);
        /* Shapes that changed since the tick before are not blended: the
         * earlier shapes ride from the old position to this one
         * (sweep__history_pose), and this box must hold them on the way,
         * so it holds the earlier box carried by that move. */
        while (pj < prev_count && prev[pj].id < e->id)
            pj++;
        if (pj < prev_count && prev[pj].id == e->id &&
            !shapes_match(&prev_s[(size_t)pj * SWEEP_HIT_SHAPES_MAX], s, prev[pj].shape_count, e->shape_count)) {
            sweep_vec3 d = sweep_v3_sub(e->position, prev[pj].position);
            grow(&e->lo, &e->hi, sweep_v3_add(prev[pj].lo, d), sweep_v3_add(prev[pj].hi, d));
        }
        grow(&fr->lo, &fr->hi, e->lo, e->hi);
        fr->rmin = e->rmin < fr->rmin ? e->rmin : fr->rmin;
        fr->rmax = e->rmax > fr->rmax ? e->rmax : fr->rmax;
        /* The span (and next) wait for the next tick's push: no query
         * reads them while this frame is the newest. */
        float_box(&h->fbox[(base + i) * 12], e->lo, e->hi);
    }
    /* The tick before now knows where each of its entities goes. */
    const sweep__hist_entity *now = &h->ents[base];
    uint32_t j = 0;
    for (uint32_t i = 0; i < prev_count; i++) {
        sweep__hist_entity *p = &prev[i];
        while (j < count && now[j].id < p->id)
            j++;
        float *pf = &h->fbox[(size_t)(&prev[i] - h->ents) * 12];
        if (j < count && now[j].id == p->id) {
            p->next = j;
            p->span_lo = sweep_v3_min(p->lo, now[j].lo), p->span_hi = sweep_v3_max(p->hi, now[j].hi);
            p->span_aniso = sweep__history_aniso(p->rmin, p->rmax, now[j].rmin, now[j].rmax);
            /* The floats of two boxes rounded outwards hold their union. */
            const float *nf = &h->fbox[(base + j) * 12];
            for (int k = 0; k < 3; k++) {
                pf[6 + k] = pf[k] < nf[k] ? pf[k] : nf[k];
                pf[9 + k] = pf[3 + k] > nf[3 + k] ? pf[3 + k] : nf[3 + k];
            }
        } else {
            p->next = NO_INDEX;
            p->span_lo = p->lo, p->span_hi = p->hi;
            p->span_aniso = sweep__history_aniso(p->rmin, p->rmax, p->rmin, p->rmax);
            memcpy(pf + 6, pf, 6 * sizeof *pf);
        }
    }
    if (mover_count > 0)
        memcpy(&h->movers[(size_t)slot * h->mover_count], movers, mover_count * sizeof *movers);
    return SWEEP_OK;
}

/* The parts of a kept frame, by its position from the oldest. */
static void frame_parts(const sweep_history *h, uint32_t from_oldest, const sweep__hist_frame **f,
                        const sweep__hist_entity **e, const sweep_hit_shape **s, const sweep_mover_pose **m,
                        const float **fbox)
{
    uint32_t slot = (h->head + from_oldest) % h->capacity;
    size_t base = (size_t)slot * h->max_entities;
    *f = &h->frames[slot];
    *fbox = &h->fbox[base * 12];
    *e = &h->ents[base];
    *s = &h->shapes[base * SWEEP_HIT_SHAPES_MAX];
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
    if (k + (uint64_t)two >= h->count)
        return SWEEP_E_TIME;
    at->h = h, at->f = fraction, at->two = two;
    const float *unused;
    frame_parts(h, (uint32_t)k, &at->f0, &at->e0, &at->s0, &at->m0, &at->fbox);
    if (two)
        frame_parts(h, (uint32_t)k + 1, &at->f1, &at->e1, &at->s1, &at->m1, &unused);
    else
        at->f1 = NULL, at->e1 = NULL, at->s1 = NULL, at->m1 = NULL;
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
    const sweep_hit_shape *s = &at->s0[(size_t)ref->i0 * SWEEP_HIT_SHAPES_MAX];
    out->id = e->id;
    out->shape_count = e->shape_count;
    if (ref->i1 == NO_INDEX) {
        out->position = e->position, out->radii = e->radii;
        for (uint32_t k = 0; k < e->shape_count; k++) {
            out->shapes[k] = s[k];
            out->shapes[k].a = sweep_v3_add(e->position, s[k].a);
            out->shapes[k].b = sweep_v3_add(e->position, s[k].b);
        }
        return;
    }
    const sweep__hist_entity *e1 = &at->e1[ref->i1];
    const sweep_hit_shape *s1 = &at->s1[(size_t)ref->i1 * SWEEP_HIT_SHAPES_MAX];
    double f = at->f;
    out->position = lerp(e->position, e1->position, f);
    out->radii = lerp(e->radii, e1->radii, f);
    /* Shapes that changed (another count, id or kind) are not blended:
     * the earlier tick's shapes ride on the interpolated position. */
    int blend = shapes_match(s, s1, e->shape_count, e1->shape_count);
    for (uint32_t k = 0; k < e->shape_count; k++) {
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
