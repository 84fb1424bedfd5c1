/*
 * query_level.c - paths against triangles: the level's, found by a walk
 * of its BVH, and the movers', placed at their pose at the query's time.
 *
 * A ray walks the 4-wide BVH (world_impl.h) with a slab test of each
 * child box (four at once in float, widened: slabs4, conservative),
 * nearer children first and none beyond the sink's limit (the first hit so
 * far), and in a leaf meets only the triangles whose own float box it
 * meets: the order depends only on the ray and the tree, and the answer
 * is the least hit by a total order (query.h), which no walk order
 * changes.
 *
 * A sweep walks the tree the same way, each box grown by its radii (its
 * centre comes that near a triangle it touches), and meets each triangle
 * with the core's swept unit sphere in the eSpace of its radii.
 *
 * A mover is first met as the ball round its position that holds its
 * triangles at every rotation, then as the ball round its triangles
 * (mover_impl.h) placed at the pose; only then are its triangles placed,
 * one at a time, by the expressions the mover uses itself. At the mover's
 * current pose its own placed triangles are taken as they are: the same
 * bits.
 */
#include <stddef.h>
#include <string.h>

#include "core/check.h"
#include "core/compiler.h"
#include "core/query_impl.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

/* Inlined into the walks, whose every triangle it meets (a call would
 * copy its five points); sweep__ray_triangle is the same for the tests. */
static SWEEP__ALWAYS_INLINE int ray_triangle(sweep_vec3 o, sweep_vec3 d, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c,
                                             int back, double tmax, double *t)
{
    sweep_vec3 ao = sweep_v3_sub(a, o);
    sweep_vec3 nn = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    double denom = sweep_v3_dot(nn, d), num = sweep_v3_dot(nn, ao);
    int side;
    /* The plane first: a front face is met coming against its normal from
     * in front (or on it), a back face the other way; num / denom is then
     * t >= 0, and |num| <= |denom| keeps it within the path. */
    if (denom < 0.0 && num <= 0.0 && num >= denom)
        side = 1;
    else if (back && denom > 0.0 && num >= 0.0 && num <= denom)
        side = 2;
    else
        return 0;
    double tt = num / denom;
    if (!(tt <= tmax))
        return 0;
    /* The edges: the volumes the ray spans with each edge seen from o sum
     * to denom; inside the triangle (or on its boundary) they all share
     * its sign. */
    sweep_vec3 bo = sweep_v3_sub(b, o), co = sweep_v3_sub(c, o);
    double w0 = sweep_v3_dot(d, sweep_v3_cross(ao, bo));
    double w1 = sweep_v3_dot(d, sweep_v3_cross(bo, co));
    double w2 = sweep_v3_dot(d, sweep_v3_cross(co, ao));
    if (side == 1 ? (w0 > 0.0 || w1 > 0.0 || w2 > 0.0) : (w0 < 0.0 || w1 < 0.0 || w2 < 0.0))
        return 0;
    *t = tt;
    return side;
}

int sweep__ray_triangle(sweep_vec3 o, sweep_vec3 d, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, int back, double tmax,
                        double *t)
{
    return ray_triangle(o, d, a, b, c, back, tmax, t);
}

sweep_vec3 sweep__triangle_normal(sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, int side)
{
    sweep_vec3 n = sweep_v3_normalize(sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a)));
    return side == 2 ? sweep_v3_scale(n, -1.0) : n;
}

static sweep_query_hit tri_key(double t, const sweep__tri *tri, uint32_t kind, uint32_t mover)
{
    sweep_query_hit h;
    memset(&h, 0, sizeof h);
    h.kind = kind, h.triangle = tri->index, h.material = tri->material, h.mover = mover;
    h.entity = 0, h.shape = UINT32_MAX, h.fraction = t;
    return h;
}

static SWEEP__ALWAYS_INLINE void offer_ray_tri(sweep__sink *k, sweep_vec3 o, sweep_vec3 d, const sweep__tri *tri,
                                              uint32_t kind, uint32_t mover, int back)
{
    double t;
    int side = ray_triangle(o, d, tri->a, tri->b, tri->c, back, k->limit, &t);
    if (!side)
        return;
    sweep_query_hit h = tri_key(t, tri, kind, mover);
    if (!sweep__sink_wants(k, &h))
        return;
    h.point = sweep_v3_madd(o, d, t);
    h.normal = sweep__triangle_normal(tri->a, tri->b, tri->c, side);
    sweep__sink_offer(k, &h);
}

void sweep__offer_ray_tri(sweep__sink *k, sweep_vec3 o, sweep_vec3 d, const sweep__tri *tri, uint32_t kind,
                          uint32_t mover, int back)
{
    offer_ray_tri(k, o, d, tri, kind, mover, back);
}

void sweep__offer_sweep_tri(sweep__sink *k, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep_vec3 inv_radii,
                            const sweep__tri *tri, uint32_t kind, uint32_t mover, int back)
{
    sweep_vec3 oe = sweep_v3_mul(o, inv_radii), de = sweep_v3_mul(d, inv_radii);
    sweep_vec3 a = sweep_v3_mul(tri->a, inv_radii), b = sweep_v3_mul(tri->b, inv_radii),
               c = sweep_v3_mul(tri->c, inv_radii);
    for (int side = 0; side < (back ? 2 : 1); side++) {
        sweep_sphere_hit sh;
        int met = side == 0 ? sweep_sphere_sweep_triangle(oe, de, a, b, c, k->limit, &sh)
                            : sweep_sphere_sweep_triangle(oe, de, a, c, b, k->limit, &sh);
        if (!met)
            continue;
        /* An embedded start is a hit at 0: query.h's order has no depth. */
        sweep_query_hit h = tri_key(sh.t > 0.0 ? sh.t : 0.0, tri, kind, mover);
        if (!sweep__sink_wants(k, &h))
            continue;
        h.point = sweep_v3_mul(sh.point, radii);
        h.normal = sweep_v3_normalize(sweep_v3_mul(sh.normal, inv_radii));
        sweep__sink_offer(k, &h);
    }
}

void sweep__slabs_init(sweep__slabs *r, sweep_vec3 o, sweep_vec3 d)
{
    double ov[3] = {o.x, o.y, o.z}, dv[3] = {d.x, d.y, d.z};
    r->any_flat = 0;
    for (int a = 0; a < 3; a++) {
        r->flat[a] = !(fabs(dv[a]) >= 1e-200);
        r->any_flat |= r->flat[a];
        r->o[a] = ov[a];
        r->inv[a] = r->flat[a] ? 0.0 : 1.0 / dv[a];
    }
}

/* A child met and not yet taken, with a time not after its entry: in
 * float with SSE (the boxes' own precision), in double without. */
#ifdef __SSE2__
typedef float walk_time;
#else
typedef double walk_time;
#endif

typedef struct walk_entry {
    sweep__child c;
    walk_time entry;
} walk_entry;

#ifdef __SSE2__
/*
 * A path ready for the four child boxes of a node at once, in float as
 * the boxes are (SSE, as bvh_walk.h meets them). Each axis's times are
 * widened by e: far more than the float rounding of the origin, of its
 * distance to any box of the world (|o| + the world's extent) and of the
 * inverse, times |inv|, plus the growth g |inv| of a sweep's boxes; so a
 * box is never left out that the exact test would keep. An axis the path
 * hardly moves along (|d| < 1e-30) bounds no time and is met instead as
 * the path's extent, grown, against the box (seg_lo and seg_hi, set for
 * such an axis only).
 *
 * On each axis the side of a box the path reaches first (lo, or hi where
 * it runs towards lower values) gives the entry time and the other side
 * the exit: rounding keeps their order, so they are the times a min and
 * a max of the two would pick, without either. near and far are those
 * sides' byte offsets in a node.
 *
 * o_xyz, inv_xyz and e_xyz hold the same o, inv and e, an axis a lane,
 * for one box at a time: a triangle's. Lane 3 has inv 0 and e infinite,
 * so that it bounds no time.
 */
typedef struct slabs4 {
    __m128 o[3], inv[3], e[3], seg_lo[3], seg_hi[3];
    __m128 o_xyz, inv_xyz, e_xyz;
    uint32_t near[3], far[3];
    int flat[3], any_flat;
} slabs4;

static void slabs4_init(slabs4 *r, const sweep_world *w, sweep_vec3 o, sweep_vec3 d, sweep_vec3 g)
{
    double ov[3] = {o.x, o.y, o.z}, dv[3] = {d.x, d.y, d.z}, gv[3] = {g.x, g.y, g.z};
    double wl[3] = {w->lo.x, w->lo.y, w->lo.z}, wh[3] = {w->hi.x, w->hi.y, w->hi.z};
    r->any_flat = 0;
    for (int a = 0; a < 3; a++) {
        r->flat[a] = !(fabs(dv[a]) >= 1e-30);
        r->any_flat |= r->flat[a];
        double inv = r->flat[a] ? 0.0 : 1.0 / dv[a], end = ov[a] + dv[a];
        double reach = fabs(ov[a]) + (fabs(wl[a]) > fabs(wh[a]) ? fabs(wl[a]) : fabs(wh[a])) + gv[a];
        r->o[a] = _mm_set1_ps((float)ov[a]);
        r->inv[a] = _mm_set1_ps((float)inv);
        r->e[a] = _mm_set1_ps(sweep__widen_up(reach * fabs(inv) * 0x1p-19 + gv[a] * fabs(inv)));
        if (r->flat[a]) {
            r->seg_lo[a] = _mm_set1_ps(sweep__widen_down((end < ov[a] ? end : ov[a]) - gv[a]));
            r->seg_hi[a] = _mm_set1_ps(sweep__widen_up((end < ov[a] ? ov[a] : end) + gv[a]));
        }
        uint32_t lo = (uint32_t)(offsetof(sweep__node, lo) + (size_t)a * sizeof(float[SWEEP__BVH_WIDTH]));
        uint32_t hi = (uint32_t)(offsetof(sweep__node, hi) + (size_t)a * sizeof(float[SWEEP__BVH_WIDTH]));
        int down = !r->flat[a] && dv[a] < 0.0;
        r->near[a] = down ? hi : lo, r->far[a] = down ? lo : hi;
    }
    r->o_xyz = _mm_setr_ps(_mm_cvtss_f32(r->o[0]), _mm_cvtss_f32(r->o[1]), _mm_cvtss_f32(r->o[2]), 0.0f);
    r->inv_xyz = _mm_setr_ps(_mm_cvtss_f32(r->inv[0]), _mm_cvtss_f32(r->inv[1]), _mm_cvtss_f32(r->inv[2]), 0.0f);
    r->e_xyz = _mm_setr_ps(_mm_cvtss_f32(r->e[0]), _mm_cvtss_f32(r->e[1]), _mm_cvtss_f32(r->e[2]), INFINITY);
}

/*
 * Does the path meet a triangle's float box (the world's boxes[], which
 * hold it) before the limit? The node test's arithmetic on one box, x, y
 * and z in the lanes: of the triangles in the leaves a ray reaches on the
 * corpus, 40 to 65% lie in boxes it misses, each skipped for about a
 * fifth of its exact test. Only for a path with no flat axis (inv_xyz
 * would bound a flat one at 0). The load of hi reads one float past the
 * box, which the world's extra box at the end makes safe, into lane 3.
 */
static SWEEP__ALWAYS_INLINE int slabs4_meets_box(const slabs4 *r, const sweep__tri_box *b, __m128 limit)
{
    __m128 l = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(b->lo), r->o_xyz), r->inv_xyz);
    __m128 h = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(b->hi), r->o_xyz), r->inv_xyz);
    __m128 tn = _mm_sub_ps(_mm_min_ps(l, h), r->e_xyz), tf = _mm_add_ps(_mm_max_ps(l, h), r->e_xyz);
    tn = _mm_max_ps(tn, _mm_shuffle_ps(tn, tn, _MM_SHUFFLE(1, 0, 3, 2)));
    tn = _mm_max_ps(tn, _mm_shuffle_ps(tn, tn, _MM_SHUFFLE(2, 3, 0, 1)));
    tf = _mm_min_ps(tf, _mm_shuffle_ps(tf, tf, _MM_SHUFFLE(1, 0, 3, 2)));
    tf = _mm_min_ps(tf, _mm_shuffle_ps(tf, tf, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_comile_ss(_mm_max_ss(tn, _mm_setzero_ps()), _mm_min_ss(tf, limit));
}

/* One axis of slabs4_meet: tn and tf narrowed by its times, or ok by
 * its extent when it is flat (only looked at when flat is set). tn and
 * tf come first in max and min, so that a NaN time is the one kept. */
static SWEEP__ALWAYS_INLINE void slabs4_axis(const slabs4 *r, const char *node, int a, int flat, __m128 *tn, __m128 *tf,
                                             __m128 *ok)
{
    __m128 nb = _mm_loadu_ps((const float *)(const void *)(node + r->near[a]));
    __m128 fb = _mm_loadu_ps((const float *)(const void *)(node + r->far[a]));
    if (flat && r->flat[a]) {
        *ok = _mm_and_ps(*ok, _mm_and_ps(_mm_cmple_ps(nb, r->seg_hi[a]), _mm_cmpge_ps(fb, r->seg_lo[a])));
        return;
    }
    *tn = _mm_max_ps(*tn, _mm_sub_ps(_mm_mul_ps(_mm_sub_ps(nb, r->o[a]), r->inv[a]), r->e[a]));
    *tf = _mm_min_ps(*tf, _mm_add_ps(_mm_mul_ps(_mm_sub_ps(fb, r->o[a]), r->inv[a]), r->e[a]));
}

/* Which children of n the path meets before the limit (bit c: child c),
 * and a time not after each one's entry, at least 0. flat is r->any_flat,
 * passed as a constant so that the usual walk, with no flat axis, tests
 * none. An unused child's bounds are all NaN, and so are its times, which
 * meet nothing. */
static SWEEP__ALWAYS_INLINE unsigned slabs4_meet(const slabs4 *r, const sweep__node *n, __m128 limit, int flat,
                                                 walk_time entry[SWEEP__BVH_WIDTH])
{
    const char *node = (const char *)n;
    __m128 tn = _mm_setzero_ps(), tf = limit, ok = _mm_castsi128_ps(_mm_set1_epi32(-1));
    slabs4_axis(r, node, 0, flat, &tn, &tf, &ok);
    slabs4_axis(r, node, 1, flat, &tn, &tf, &ok);
    slabs4_axis(r, node, 2, flat, &tn, &tf, &ok);
    _mm_storeu_ps(entry, tn);
    __m128 met = _mm_cmple_ps(tn, tf);
    return (unsigned)_mm_movemask_ps(flat ? _mm_and_ps(ok, met) : met);
}
#endif

/* Every triangle a path can meet, for one kind of test. */
typedef void (*tri_fn)(sweep__sink *k, const sweep__tri *t, uint32_t kind, uint32_t mover, const void *arg);

/*
 * The level's triangles in leaves whose box, grown by grow (a sweep's
 * radii: its centre is that near a triangle it touches), the path meets
 * before the sink's limit; nearer leaves first. The walk goes straight on
 * into the nearest child met and keeps only the others, so a node with
 * one child met (most of them) costs no entry on the stack. Inlined into
 * each kind of path, so that its test of a triangle is inlined too.
 */
static SWEEP__ALWAYS_INLINE void level_walk(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep_vec3 grow,
                                            sweep__sink *k, tri_fn each, const void *arg)
{
    const sweep_world *w = q->world;
    if (w->tri_count == 0)
        return;
#ifdef __SSE2__
    slabs4 r;
    slabs4_init(&r, w, o, d, grow);
    __m128 limit = _mm_set1_ps(sweep__widen_up(k->limit));
#else
    sweep__slabs r;
    sweep__slabs_init(&r, o, d);
    double g[3] = {grow.x, grow.y, grow.z};
#endif
    walk_entry stack[SWEEP__BVH_STACK];
    uint32_t sp = 0;
    sweep__child at = {0, 0}; /* the root */
    for (;;) {
        if (at.count > 0) {
            for (uint32_t i = at.first; i < at.first + at.count; i++) {
#ifdef __SSE2__
                /* limit may be older than the sink's: only larger. */
                if (!r.any_flat && !slabs4_meets_box(&r, &w->boxes[i], limit))
                    continue;
#endif
                each(k, &w->tris[i], SWEEP_HIT_LEVEL, SWEEP_NO_MOVER, arg);
                if (k->done)
                    return;
            }
#ifdef __SSE2__
            limit = _mm_set1_ps(sweep__widen_up(k->limit));
#endif
        } else {
            const sweep__node *n = &w->nodes[at.first];
            walk_time en[SWEEP__BVH_WIDTH];
#ifdef __SSE2__
            unsigned m = r.any_flat ? slabs4_meet(&r, n, limit, 1, en) : slabs4_meet(&r, n, limit, 0, en);
#else
            unsigned m = 0;
            for (unsigned c = 0; c < SWEEP__BVH_WIDTH; c++) {
                double t;
                if (sweep__slab_meets(&r, n->lo[0][c] - g[0], n->lo[1][c] - g[1], n->lo[2][c] - g[2],
                                      n->hi[0][c] + g[0], n->hi[1][c] + g[1], n->hi[2][c] + g[2], k->limit, &t))
                    m |= 1u << c, en[c] = t;
            }
#endif
            if (m != 0) {
                unsigned c = SWEEP__CTZ(m);
                m &= m - 1;
                if (m == 0) {
                    at = n->child[c];
                    continue;
                }
                unsigned c1 = SWEEP__CTZ(m);
                if ((m & (m - 1)) == 0) {
                    /* Two, the most often after one. */
                    unsigned near = en[c1] < en[c] ? c1 : c, far = c ^ c1 ^ near;
                    SWEEP_CORE_CHECK(sp + 1 <= SWEEP__BVH_STACK);
                    stack[sp].c = n->child[far], stack[sp].entry = en[far], sp++;
                    at = n->child[near];
                    continue;
                }
                /* Nearest first; equal entries keep the tree's order. */
                walk_entry met[SWEEP__BVH_WIDTH];
                met[0].c = n->child[c], met[0].entry = en[c];
                uint32_t count = 1;
                for (; m != 0; m &= m - 1) {
                    c = SWEEP__CTZ(m);
                    uint32_t i = count++;
                    while (i > 0 && met[i - 1].entry > en[c])
                        met[i] = met[i - 1], i--;
                    met[i].c = n->child[c], met[i].entry = en[c];
                }
                SWEEP_CORE_CHECK(sp + count - 1 <= SWEEP__BVH_STACK);
                for (uint32_t i = count - 1; i > 0; i--)
                    stack[sp++] = met[i];
                at = met[0].c;
                continue;
            }
        }
        /* The nearest child kept that the sink's limit, come nearer since
         * it was kept, does not rule out. */
        do {
            if (sp == 0)
                return;
            sp--;
        } while (stack[sp].entry > k->limit);
        at = stack[sp].c;
    }
}

sweep_mover_pose sweep__qctx_mover_pose(const sweep__qctx *q, uint32_t m)
{
    return q->movers_at ? sweep__history_mover(&q->at, m) : q->movers->m[m].pose;
}

/* Can the path (t up to limit) come within reach of the ball? With a margin
 * far above the rounding of the test and of the ball's placement. */
static SWEEP__ALWAYS_INLINE int path_meets_ball(sweep_vec3 o, sweep_vec3 d, double limit, sweep_vec3 c, double reach)
{
    double dd = sweep_v3_dot(d, d);
    double s = dd > 0.0 ? sweep_v3_dot(sweep_v3_sub(c, o), d) / dd : 0.0;
    s = s < 0.0 ? 0.0 : s > limit ? limit : s;
    sweep_vec3 gap = sweep_v3_sub(sweep_v3_madd(o, d, s), c);
    double size = fabs(o.x) + fabs(o.y) + fabs(o.z) + fabs(d.x) + fabs(d.y) + fabs(d.z) + fabs(c.x) + fabs(c.y) +
                  fabs(c.z);
    double r = reach * (1.0 + 0x1p-30) + size * 0x1p-30;
    return sweep_v3_dot(gap, gap) <= r * r;
}

/* Mover m's ball at pose: does the path meet it, grown by grow? */
static int mover_reachable(const sweep__mover *mo, const sweep_mover_pose *pose, sweep_vec3 o, sweep_vec3 d,
                           double limit, double grow)
{
    if (mo->tri_count == 0)
        return 0;
    double slack = (fabs(pose->position.x) + fabs(pose->position.y) + fabs(pose->position.z)) * 0x1p-30;
    /* First the ball round the mover's position that holds its ball at
     * every rotation: no rotation is worked out for a mover the path
     * passes far from (most of them). A rotation a history keeps may be
     * off unit by 1e-6 (sweep_history_push), which stretches by less than
     * 2^-18. */
    double centre = sqrt(sweep_v3_dot(mo->local_center, mo->local_center));
    if (!path_meets_ball(o, d, limit, pose->position, centre * (1.0 + 0x1p-18) + mo->local_radius + grow + slack))
        return 0;
    sweep_vec3 c = sweep__pose_apply(pose, mo->local_center);
    return path_meets_ball(o, d, limit, c, mo->local_radius + grow + slack);
}

/* Every triangle of every mover the path may reach, to `each`. */
static void movers_walk(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, double grow, sweep__sink *k, tri_fn each,
                        const void *arg)
{
    const sweep_movers *mv = q->movers;
    for (uint32_t m = 0; m < mv->count; m++) {
        const sweep__mover *mo = &mv->m[m];
        sweep_mover_pose pose = sweep__qctx_mover_pose(q, m);
        if (!mover_reachable(mo, &pose, o, d, k->limit, grow))
            continue;
        int now = memcmp(&pose, &mo->pose, sizeof pose) == 0;
        for (uint32_t i = 0; i < mo->tri_count; i++) {
            sweep__tri placed;
            const sweep__tri *t = &mo->cur[i];
            if (!now) {
                sweep__place_tri(&pose, &mo->local[i], &placed);
                t = &placed;
            }
            each(k, t, SWEEP_HIT_MOVER, m, arg);
            if (k->done)
                return;
        }
    }
}

typedef struct path_arg {
    sweep_vec3 o, d, radii, inv;
    int back;
} path_arg;

static SWEEP__ALWAYS_INLINE void ray_each(sweep__sink *k, const sweep__tri *t, uint32_t kind, uint32_t mover,
                                          const void *arg)
{
    const path_arg *p = arg;
    offer_ray_tri(k, p->o, p->d, t, kind, mover, p->back);
}

static void sweep_each(sweep__sink *k, const sweep__tri *t, uint32_t kind, uint32_t mover, const void *arg)
{
    const path_arg *p = arg;
    sweep__offer_sweep_tri(k, p->o, p->d, p->radii, p->inv, t, kind, mover, p->back);
}

void sweep__level_ray(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep__sink *k)
{
    path_arg p = {o, d, {1, 1, 1}, {1, 1, 1}, (q->flags & SWEEP_QUERY_BACK_FACES) != 0};
    level_walk(q, o, d, sweep_v3(0, 0, 0), k, ray_each, &p);
}

void sweep__level_sweep(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep__sink *k)
{
    path_arg p = {o, d, radii, sweep__inverse_radii(radii), (q->flags & SWEEP_QUERY_BACK_FACES) != 0};
    level_walk(q, o, d, radii, k, sweep_each, &p);
}

void sweep__movers_ray(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep__sink *k)
{
    path_arg p = {o, d, {1, 1, 1}, {1, 1, 1}, (q->flags & SWEEP_QUERY_BACK_FACES) != 0};
    movers_walk(q, o, d, 0.0, k, ray_each, &p);
}

void sweep__movers_sweep(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep__sink *k)
{
    path_arg p = {o, d, radii, sweep__inverse_radii(radii), (q->flags & SWEEP_QUERY_BACK_FACES) != 0};
    movers_walk(q, o, d, sweep__sweep_grow(radii), k, sweep_each, &p);
}
