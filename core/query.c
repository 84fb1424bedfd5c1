/*
 * query.c - the entry points of query.h: the checks of their arguments,
 * the time resolved in the history, the hits kept in order, and the
 * entities met at their poses of that time (the level and the movers are
 * query_level.c's, the shapes query_shapes.c's).
 */
#include <stddef.h>
#include <string.h>

#include "core/compiler.h"
#include "core/query_impl.h"
#include "core/world_impl.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

#define TARGETS (SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS | SWEEP_QUERY_ENTITIES)
#define KNOWN_FLAGS (TARGETS | SWEEP_QUERY_BACK_FACES | SWEEP_QUERY_ELLIPSOIDS)

/* The order of hits (query.h): fraction, then kind, triangle and entity.
 * Two shapes of one entity at one fraction are not less than each other:
 * the first offered stays first, and an entity's shapes are offered in
 * their order, so the key is its shape index. */
static int hit_less(const sweep_query_hit *a, const sweep_query_hit *b)
{
    if (a->fraction != b->fraction)
        return a->fraction < b->fraction;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    if (a->triangle != b->triangle)
        return a->triangle < b->triangle;
    return a->entity < b->entity;
}

void sweep__sink_init(sweep__sink *k, sweep__sink_mode mode, sweep_query_hit *hits, uint32_t max)
{
    k->mode = mode, k->hits = hits, k->max = max;
    k->count = 0, k->more = 0, k->limit = 1.0, k->done = 0;
}

int sweep__sink_wants(const sweep__sink *k, const sweep_query_hit *key)
{
    if (!(key->fraction <= k->limit))
        return 0;
    if (k->mode == SWEEP__SINK_FIRST)
        return k->count == 0 || hit_less(key, &k->hits[0]);
    /* ALL keeps its limit at 1, so that every hit reaches the sink and
     * one left out of a full list is counted in `more`. */
    return 1;
}

void sweep__sink_offer(sweep__sink *k, const sweep_query_hit *h)
{
    switch (k->mode) {
    case SWEEP__SINK_FIRST:
        k->hits[0] = *h, k->count = 1, k->limit = h->fraction;
        return;
    case SWEEP__SINK_ANY:
        k->hits[0] = *h, k->count = 1, k->done = 1;
        return;
    case SWEEP__SINK_ALL:
        break;
    }
    /* After every hit not greater: equal keys stay in the walk's order. */
    uint32_t at = k->count;
    while (at > 0 && hit_less(h, &k->hits[at - 1]))
        at--;
    if (at >= k->max) {
        k->more = 1;
        return;
    }
    if (k->count == k->max)
        k->more = 1, k->count--;
    memmove(&k->hits[at + 1], &k->hits[at], (k->count - at) * sizeof *h);
    k->hits[at] = *h;
    k->count++;
}

int sweep__ignored(const sweep__qctx *q, uint64_t id)
{
    for (uint32_t i = 0; i < q->ignore_count; i++)
        if (q->ignore[i] == id)
            return 1;
    return 0;
}

uint32_t sweep__entity_shapes(const sweep__qctx *q, const sweep__hist_pose *p, const sweep_hit_shape **shapes,
                              sweep_hit_shape *scratch)
{
    if (p->shape_count == 0 || (q->flags & SWEEP_QUERY_ELLIPSOIDS)) {
        *scratch = sweep__ellipsoid_shape(p->position, p->radii);
        *shapes = scratch;
        return 1;
    }
    *shapes = p->shapes;
    return p->shape_count;
}

static int vfinite(sweep_vec3 v)
{
    return sweep_v3_isfinite(v);
}

sweep_status sweep__qctx_init(const sweep_query_space *s, const sweep_query_filter *f, sweep__qctx *q)
{
    if (s == NULL || s->world == NULL)
        return SWEEP_E_ARG;
    memset(q, 0, sizeof *q);
    q->world = s->world;
    q->movers = s->movers;
    q->flags = f ? f->flags : 0;
    if (q->flags & ~(uint32_t)KNOWN_FLAGS)
        return SWEEP_E_ARG;
    if ((q->flags & TARGETS) == 0)
        q->flags |= TARGETS;
    if (f) {
        if (f->ignore_count > SWEEP_QUERY_IGNORE_MAX || (f->ignore_count > 0 && f->ignore == NULL))
            return SWEEP_E_ARG;
        q->ignore = f->ignore, q->ignore_count = f->ignore_count;
    }
    if (s->history) {
        sweep_status st = sweep__history_at(s->history, s->at.tick, s->at.fraction, &q->at);
        if (st != SWEEP_OK)
            return st;
        q->has_at = 1;
        uint32_t hm = s->history->mover_count;
        if (s->movers && hm > 0) {
            if (hm != s->movers->count)
                return SWEEP_E_ARG;
            q->movers_at = 1;
        }
    }
    return SWEEP_OK;
}

#ifdef __SSE2__
/* Lanes set where the float box at b lies outside the box whose bounds
 * cut_hi and cut_lo hold: its six comparisons in two, (lo, hi.x) against
 * (hi, +inf) and (lo.z, hi) against (-inf, lo). */
static SWEEP__ALWAYS_INLINE __m128i box_outside(const float *b, __m128 cut_hi, __m128 cut_lo)
{
    __m128 out = _mm_or_ps(_mm_cmpgt_ps(_mm_loadu_ps(b), cut_hi), _mm_cmplt_ps(_mm_loadu_ps(b + 2), cut_lo));
    return _mm_castps_si128(out);
}
#endif

/* The first entity from i on whose float box at the resolved time meets
 * the box lo..hi (count when none). Every entity of the frame passes
 * this test, so it is a loop of its own, whose reads of the frame stay in
 * registers. With SSE it meets four entities at a time, their lanes
 * packed into one register (four bytes an entity, none set when its box
 * meets lo..hi), stepping from box to box by the distance between the
 * first two: history_impl.h keeps the boxes side by side. */
static SWEEP__ALWAYS_INLINE uint32_t next_in_box(const sweep__hist_at *at, uint32_t i, uint32_t count,
                                                 const float lo[3], const float hi[3])
{
#ifdef __SSE2__
    __m128 cut_hi = _mm_setr_ps(hi[0], hi[1], hi[2], INFINITY), cut_lo = _mm_setr_ps(-INFINITY, lo[0], lo[1], lo[2]);
    if (count - i >= 4) {
        const float *b = sweep__history_fbox(at, i);
        ptrdiff_t step = sweep__history_fbox(at, i + 1) - b;
        for (; i + 4 <= count; i += 4, b += 4 * step) {
            __m128i x = _mm_packs_epi32(box_outside(b, cut_hi, cut_lo), box_outside(b + step, cut_hi, cut_lo));
            __m128i y = _mm_packs_epi32(box_outside(b + 2 * step, cut_hi, cut_lo),
                                        box_outside(b + 3 * step, cut_hi, cut_lo));
            /* Lane j: entity i + j's four comparisons, a byte each, 0 when in. */
            __m128i in = _mm_cmpeq_epi32(_mm_packs_epi16(x, y), _mm_setzero_si128());
            unsigned m = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(in));
            if (m != 0)
                return i + SWEEP__CTZ(m);
        }
    }
    for (; i < count; i++)
        if (!_mm_movemask_epi8(box_outside(sweep__history_fbox(at, i), cut_hi, cut_lo)))
            break;
#else
    for (; i < count; i++) {
        const float *b = sweep__history_fbox(at, i);
        if (!(b[0] > hi[0] || b[1] > hi[1] || b[2] > hi[2] || b[3] < lo[0] || b[4] < lo[1] || b[5] < lo[2]))
            break;
    }
#endif
    return i;
}

/* Entities a path meets, each shape grown by grow (0 for a ray). */
static void entities_path(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, double grow, sweep__sink *k)
{
    if (!q->has_at || !(q->flags & SWEEP_QUERY_ENTITIES))
        return;
    /* A sweep grows an ellipsoid by up to grow times its largest radius
     * over its least (query.h): boxes grow as much. */
    sweep_vec3 lo, hi;
    double an, entry;
    sweep__history_box(&q->at, &lo, &hi, &an);
    double fg = grow * an;
    /* The box of the path up to the sink's limit (the level's first hit,
     * usually near): against the frame's box, then six comparisons leave
     * most entities out before a slab test. The limit only falls while
     * entities are offered, so a box of an earlier limit still holds
     * every later one's path. */
    sweep_vec3 e = sweep_v3_madd(o, d, k->limit);
    sweep_vec3 plo = sweep_v3_min(o, e), phi = sweep_v3_max(o, e);
    double slack = (fabs(o.x) + fabs(o.y) + fabs(o.z) + fabs(d.x) + fabs(d.y) + fabs(d.z)) * 0x1p-40 + 0x1p-40;
    plo = sweep_v3_sub(plo, sweep_v3(slack, slack, slack)), phi = sweep_v3_add(phi, sweep_v3(slack, slack, slack));
    /* In float, for the entities' float boxes: grown by the largest
     * spread of any of them, and rounded outwards. */
    float flo3[3] = {sweep__widen_down(plo.x - fg), sweep__widen_down(plo.y - fg), sweep__widen_down(plo.z - fg)};
    float fhi3[3] = {sweep__widen_up(phi.x + fg), sweep__widen_up(phi.y + fg), sweep__widen_up(phi.z + fg)};
    if (!(flo3[0] <= hi.x && flo3[1] <= hi.y && flo3[2] <= hi.z && fhi3[0] >= lo.x && fhi3[1] >= lo.y &&
          fhi3[2] >= lo.z))
        return;
    sweep__slabs r;
    int slabs = 0; /* r is made for the first entity that needs it */
    uint32_t count = q->at.f0->count;
    for (uint32_t i = next_in_box(&q->at, 0, count, flo3, fhi3); i < count;
         i = next_in_box(&q->at, i + 1, count, flo3, fhi3)) {
        /* The shooter, whose box the path starts in, is left out before
         * its pose is worked out. */
        if (q->ignore_count > 0 && sweep__ignored(q, q->at.e0[i].id))
            continue;
        sweep__hist_ref ref;
        sweep__history_ref(&q->at, i, &ref);
        double ga = grow * sweep__history_ref_aniso(&q->at, &ref);
        sweep_vec3 g = sweep_v3(ga, ga, ga);
        sweep_vec3 elo = sweep_v3_sub(ref.lo, g), ehi = sweep_v3_add(ref.hi, g);
        double blo[3] = {elo.x, elo.y, elo.z}, bhi[3] = {ehi.x, ehi.y, ehi.z};
        if (!slabs)
            sweep__slabs_init(&r, o, d), slabs = 1;
        if (!sweep__slab_test(&r, blo, bhi, k->limit, &entry))
            continue;
        sweep__hist_pose p;
        sweep__history_pose(&q->at, &ref, &p);
        sweep__offer_entity(k, q, &p, o, d, grow);
        if (k->done)
            return;
    }
}

void sweep__offer_entity(sweep__sink *k, const sweep__qctx *q, const sweep__hist_pose *p, sweep_vec3 o, sweep_vec3 d,
                         double grow)
{
    const sweep_hit_shape *shapes;
    sweep_hit_shape scratch;
    uint32_t n = sweep__entity_shapes(q, p, &shapes, &scratch);
    for (uint32_t j = 0; j < n && !k->done; j++) {
        double t;
        sweep_vec3 normal;
        if (!sweep__ray_shape(o, d, &shapes[j], grow, k->limit, &t, &normal))
            continue;
        sweep_query_hit h;
        memset(&h, 0, sizeof h);
        h.kind = SWEEP_HIT_ENTITY, h.triangle = SWEEP_NO_TRIANGLE, h.material = 0, h.mover = SWEEP_NO_MOVER;
        h.entity = p->id, h.shape = shapes[j].id, h.fraction = t;
        if (!sweep__sink_wants(k, &h))
            continue;
        h.point = sweep_v3_sub(sweep_v3_madd(o, d, t), sweep_v3_scale(normal, grow));
        h.normal = normal;
        sweep__sink_offer(k, &h);
    }
}

/* Every kind of thing the filter lets a ray (radii NULL) or a sweep meet. */
static void run_path(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, const sweep_vec3 *radii, sweep__sink *k)
{
    if ((q->flags & SWEEP_QUERY_LEVEL) && !k->done) {
        if (radii)
            sweep__level_sweep(q, o, d, *radii, k);
        else
            sweep__level_ray(q, o, d, k);
    }
    if ((q->flags & SWEEP_QUERY_MOVERS) && q->movers && !k->done) {
        if (radii)
            sweep__movers_sweep(q, o, d, *radii, k);
        else
            sweep__movers_ray(q, o, d, k);
    }
    if (!k->done)
        entities_path(q, o, d, radii ? sweep__sweep_grow(*radii) : 0.0, k);
}

static double vmaxabs(sweep_vec3 v)
{
    return fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
}

static sweep_status point_ok(sweep_vec3 p)
{
    if (!vfinite(p))
        return SWEEP_E_NONFINITE;
    return vmaxabs(p) <= SWEEP_QUERY_MAX_COORDINATE ? SWEEP_OK : SWEEP_E_POSITION;
}

/* The checks of a path's ends, then the query's own. */
static sweep_status path_begin(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to,
                               const sweep_query_filter *f, sweep__qctx *q)
{
    sweep_status st = point_ok(from);
    if (st == SWEEP_OK)
        st = point_ok(to);
    if (st != SWEEP_OK)
        return st;
    return sweep__qctx_init(s, f, q);
}

/* The radii a sweep from -> to may have (query.h): the contact is found in
 * the level scaled by their inverse, where a ball far smaller than the
 * path's coordinates leaves too few bits to place it, and a huge one
 * makes the scaled level underflow. */
static int sweep_radii_ok(sweep_vec3 from, sweep_vec3 to, sweep_vec3 r)
{
    double lo = fmax(1.0, fmax(vmaxabs(from), vmaxabs(to))) * SWEEP_QUERY_RADIUS_SCALE;
    double hi = SWEEP_QUERY_MAX_RADIUS;
    return r.x >= lo && r.y >= lo && r.z >= lo && r.x <= hi && r.y <= hi && r.z <= hi;
}

static void no_hit(sweep_query_hit *hit, sweep_vec3 to, double len)
{
    memset(hit, 0, sizeof *hit);
    hit->kind = SWEEP_HIT_NONE, hit->triangle = SWEEP_NO_TRIANGLE, hit->mover = SWEEP_NO_MOVER;
    hit->shape = UINT32_MAX, hit->fraction = 1.0, hit->distance = len, hit->point = to;
}

static sweep_status first_hit(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, const sweep_vec3 *radii,
                              const sweep_query_filter *f, sweep_query_hit *hit)
{
    if (hit == NULL)
        return SWEEP_E_ARG;
    if (radii && !vfinite(*radii))
        return SWEEP_E_NONFINITE;
    sweep__qctx q;
    sweep_status st = path_begin(s, from, to, f, &q);
    if (st != SWEEP_OK)
        return st;
    if (radii && !sweep_radii_ok(from, to, *radii))
        return SWEEP_E_RADII;
    sweep_vec3 d = sweep_v3_sub(to, from);
    sweep_query_hit best;
    sweep__sink k;
    sweep__sink_init(&k, SWEEP__SINK_FIRST, &best, 1);
    run_path(&q, from, d, radii, &k);
    double len = sweep_v3_len(d);
    if (k.count == 0) {
        no_hit(hit, to, len);
        return SWEEP_OK;
    }
    best.distance = best.fraction * len;
    *hit = best;
    return SWEEP_OK;
}

sweep_status sweep_query_ray(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, const sweep_query_filter *f,
                             sweep_query_hit *hit)
{
    return first_hit(s, from, to, NULL, f, hit);
}

sweep_status sweep_query_sweep(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, sweep_vec3 radii,
                               const sweep_query_filter *f, sweep_query_hit *hit)
{
    return first_hit(s, from, to, &radii, f, hit);
}

sweep_status sweep_query_ray_all(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to,
                                 const sweep_query_filter *f, sweep_query_hit *hits, uint32_t max, uint32_t *count,
                                 int *more)
{
    if (count == NULL || (hits == NULL && max > 0))
        return SWEEP_E_ARG;
    sweep__qctx q;
    sweep_status st = path_begin(s, from, to, f, &q);
    if (st != SWEEP_OK)
        return st;
    sweep_vec3 d = sweep_v3_sub(to, from);
    sweep__sink k;
    sweep__sink_init(&k, SWEEP__SINK_ALL, hits, max);
    run_path(&q, from, d, NULL, &k);
    double len = sweep_v3_len(d);
    for (uint32_t i = 0; i < k.count; i++)
        hits[i].distance = hits[i].fraction * len;
    *count = k.count;
    if (more)
        *more = k.more;
    return SWEEP_OK;
}

sweep_status sweep_query_line_of_sight(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to,
                                       const sweep_query_filter *f, int *clear)
{
    if (clear == NULL)
        return SWEEP_E_ARG;
    sweep__qctx q;
    sweep_status st = path_begin(s, from, to, f, &q);
    if (st != SWEEP_OK)
        return st;
    sweep_query_hit any;
    sweep__sink k;
    sweep__sink_init(&k, SWEEP__SINK_ANY, &any, 1);
    run_path(&q, from, sweep_v3_sub(to, from), NULL, &k);
    *clear = k.count == 0;
    return SWEEP_OK;
}

/* An entity's nearest shape point to center in *e: 1 if within radius. */
static int overlap_nearest(const sweep__qctx *q, const sweep__hist_pose *p, sweep_vec3 center, double radius,
                           sweep_query_found *e)
{
    const sweep_hit_shape *shapes;
    sweep_hit_shape scratch;
    uint32_t ns = sweep__entity_shapes(q, p, &shapes, &scratch);
    e->entity = p->id, e->distance = INFINITY, e->point = center;
    for (uint32_t j = 0; j < ns; j++) {
        sweep_vec3 pt;
        double dist = sweep__shape_nearest(center, &shapes[j], &pt);
        if (dist < e->distance)
            e->distance = dist, e->point = pt;
    }
    return e->distance <= radius;
}

/* e into found[0 .. *n), nearest first, after equal distances; at most
 * max kept, *more set when one is left out. */
static void found_insert(sweep_query_found *found, uint32_t max, uint32_t *n, int *more, const sweep_query_found *e)
{
    /* Nearest first; ids come in order, so equal distances stay in id
     * order. */
    uint32_t at = *n;
    while (at > 0 && e->distance < found[at - 1].distance)
        at--;
    if (at >= max) {
        *more = 1;
        return;
    }
    if (*n == max)
        *more = 1, (*n)--;
    memmove(&found[at + 1], &found[at], (*n - at) * sizeof *found);
    found[at] = *e;
    (*n)++;
}

void sweep__overlap_entity(const sweep__qctx *q, const sweep__hist_ref *ref, sweep_vec3 center, double radius,
                           sweep__path_fn view, sweep_query_found *found, uint32_t max, uint32_t *n, int *more)
{
    sweep__hist_pose p;
    sweep__history_pose(&q->at, ref, &p);
    sweep_query_found e;
    if (sweep__ignored(q, p.id) || !overlap_nearest(q, &p, center, radius, &e))
        return;
    /* The entities are what an overlap finds; level and movers only
     * block the view from the centre. */
    uint32_t blockers = q->flags & (SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS);
    if (blockers) {
        sweep__qctx v = *q;
        v.flags = blockers | (q->flags & SWEEP_QUERY_BACK_FACES);
        sweep_query_hit any;
        sweep__sink k;
        sweep__sink_init(&k, SWEEP__SINK_ANY, &any, 1);
        view(&v, center, sweep_v3_sub(e.point, center), NULL, &k);
        if (k.count)
            return;
    }
    found_insert(found, max, n, more, &e);
}

/* Is the box lo..hi within r of c? With a margin far above rounding. */
static int box_within(sweep_vec3 c, double r, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep_vec3 near = sweep_v3_max(lo, sweep_v3_min(c, hi));
    sweep_vec3 gap = sweep_v3_sub(c, near);
    double rr = r * (1.0 + 0x1p-30) + (fabs(c.x) + fabs(c.y) + fabs(c.z)) * 0x1p-30;
    return sweep_v3_dot(gap, gap) <= rr * rr;
}

sweep_status sweep_query_overlap(const sweep_query_space *s, sweep_vec3 center, double radius,
                                 const sweep_query_filter *f, sweep_query_found *found, uint32_t max,
                                 uint32_t *count, int *more)
{
    if (count == NULL || (found == NULL && max > 0))
        return SWEEP_E_ARG;
    if (isnan(radius) || isinf(radius))
        return SWEEP_E_NONFINITE;
    sweep_status st = point_ok(center);
    if (st != SWEEP_OK)
        return st;
    if (!(radius >= 0.0))
        return SWEEP_E_RADII;
    sweep__qctx q;
    st = sweep__qctx_init(s, f, &q);
    if (st != SWEEP_OK)
        return st;
    uint32_t n = 0;
    int left_out = 0;
    sweep_vec3 lo, hi;
    double an;
    if (q.has_at)
        sweep__history_box(&q.at, &lo, &hi, &an);
    if (q.has_at && box_within(center, radius, lo, hi)) {
        sweep__hist_iter it;
        sweep__hist_ref ref;
        sweep__history_iter_begin(&it, &q.at);
        while (sweep__history_iter_next(&it, &ref)) {
            if (!box_within(center, radius, ref.lo, ref.hi))
                continue;
            sweep__overlap_entity(&q, &ref, center, radius, run_path, found, max, &n, &left_out);
        }
    }
    *count = n;
    if (more)
        *more = left_out;
    return SWEEP_OK;
}
