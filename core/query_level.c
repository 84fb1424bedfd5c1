/*
 * query_level.c - paths against triangles: the level's, found by a walk
 * of its BVH, and the movers', placed at their pose at the query's time.
 *
 * A ray walks the 4-wide BVH (world_impl.h) with a slab test of each
 * child box (sweep__slab_test, conservative), nearer children first and
 * none beyond the sink's limit (the first hit so far): the order depends
 * only on the ray and the tree, and the answer is the least hit by a total
 * order (query.h), which no walk order changes.
 *
 * A sweep walks the tree with the box of its whole path, as a move does
 * (bvh_walk.h), and meets each triangle with the core's swept unit sphere
 * in the eSpace of its radii.
 *
 * A mover is first met as the ball round its triangles (mover_impl.h)
 * placed at the pose; only then are its triangles placed, one at a time,
 * by the expressions the mover uses itself. At the mover's current pose
 * its own placed triangles are taken as they are: the same bits.
 */
#include <string.h>

#include "core/bvh_walk.h"
#include "core/query_impl.h"

int sweep__ray_triangle(sweep_vec3 o, sweep_vec3 d, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, int back, double tmax,
                        double *t)
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

void sweep__offer_ray_tri(sweep__sink *k, sweep_vec3 o, sweep_vec3 d, const sweep__tri *tri, uint32_t kind,
                          uint32_t mover, int back)
{
    double t;
    int side = sweep__ray_triangle(o, d, tri->a, tri->b, tri->c, back, k->limit, &t);
    if (!side)
        return;
    sweep_query_hit h = tri_key(t, tri, kind, mover);
    if (!sweep__sink_wants(k, &h))
        return;
    h.point = sweep_v3_madd(o, d, t);
    h.normal = sweep__triangle_normal(tri->a, tri->b, tri->c, side);
    sweep__sink_offer(k, &h);
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
    r->any_slab = 0;
    for (int a = 0; a < 3; a++) {
        r->o[a] = ov[a];
        r->slab[a] = fabs(dv[a]) > 1e-200;
        r->inv[a] = r->slab[a] ? 1.0 / dv[a] : 0.0;
        double e = ov[a] + dv[a];
        r->seg_lo[a] = e < ov[a] ? e : ov[a];
        r->seg_hi[a] = e < ov[a] ? ov[a] : e;
        r->any_slab |= r->slab[a];
    }
}

int sweep__slab_test(const sweep__slabs *r, const double lo[3], const double hi[3], double limit, double *entry)
{
    double tnear = -INFINITY, tfar = INFINITY;
    for (int a = 0; a < 3; a++) {
        if (!(lo[a] <= hi[a]))
            return 0; /* an empty box, or an unused child's NaN */
        if (!r->slab[a]) {
            if (lo[a] > r->seg_hi[a] || hi[a] < r->seg_lo[a])
                return 0;
            continue;
        }
        double t0 = (lo[a] - r->o[a]) * r->inv[a], t1 = (hi[a] - r->o[a]) * r->inv[a];
        if (t0 > t1) {
            double s = t0;
            t0 = t1, t1 = s;
        }
        tnear = t0 > tnear ? t0 : tnear;
        tfar = t1 < tfar ? t1 : tfar;
    }
    if (!r->any_slab) {
        *entry = 0.0;
        return 1;
    }
    double slack = (fabs(tnear) + fabs(tfar)) * 0x1p-40 + 0x1p-40;
    if (tnear > tfar + slack || tfar < -slack || tnear - slack > limit)
        return 0;
    *entry = tnear - slack;
    return 1;
}

typedef struct ray_entry {
    sweep__child c;
    double entry;
} ray_entry;

void sweep__level_ray(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep__sink *k)
{
    const sweep_world *w = q->world;
    if (w->tri_count == 0)
        return;
    int back = (q->flags & SWEEP_QUERY_BACK_FACES) != 0;
    sweep__slabs r;
    sweep__slabs_init(&r, o, d);
    ray_entry stack[SWEEP__BVH_STACK];
    uint32_t sp = 0;
    stack[sp].c.first = 0, stack[sp].c.count = 0, stack[sp].entry = 0.0;
    sp++;
    while (sp > 0) {
        ray_entry e = stack[--sp];
        if (e.entry > k->limit)
            continue; /* the sink's limit came nearer since it was pushed */
        if (e.c.count > 0) {
            for (uint32_t i = e.c.first; i < e.c.first + e.c.count; i++) {
                sweep__offer_ray_tri(k, o, d, &w->tris[i], SWEEP_HIT_LEVEL, SWEEP_NO_MOVER, back);
                if (k->done)
                    return;
            }
            continue;
        }
        const sweep__node *n = &w->nodes[e.c.first];
        ray_entry met[SWEEP__BVH_WIDTH];
        int m = 0;
        for (int c = 0; c < SWEEP__BVH_WIDTH; c++) {
            double en, lo[3] = {n->lo[0][c], n->lo[1][c], n->lo[2][c]}, hi[3] = {n->hi[0][c], n->hi[1][c], n->hi[2][c]};
            if (!sweep__slab_test(&r, lo, hi, k->limit, &en))
                continue;
            /* Sorted by entry, nearest last (taken first); equal entries
             * keep the tree's order. */
            int at = m;
            while (at > 0 && met[at - 1].entry < en)
                met[at] = met[at - 1], at--;
            met[at].c = n->child[c], met[at].entry = en;
            m++;
        }
        SWEEP_CORE_CHECK(sp + (uint32_t)m <= SWEEP__BVH_STACK);
        for (int i = 0; i < m; i++)
            stack[sp++] = met[i];
    }
}

sweep_mover_pose sweep__qctx_mover_pose(const sweep__qctx *q, uint32_t m)
{
    return q->movers_at ? sweep__history_mover(&q->at, m) : q->movers->m[m].pose;
}

/* Can the path (t up to limit) come within reach of the ball? With a margin
 * far above the rounding of the test and of the ball's placement. */
static int path_meets_ball(sweep_vec3 o, sweep_vec3 d, double limit, sweep_vec3 c, double reach)
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
    sweep_vec3 c = sweep__pose_apply(pose, mo->local_center);
    double reach = mo->local_radius + grow + (fabs(pose->position.x) + fabs(pose->position.y) + fabs(pose->position.z)) * 0x1p-30;
    return path_meets_ball(o, d, limit, c, reach);
}

/* Every triangle of every mover the path may reach, to `each`. */
typedef void (*tri_fn)(sweep__sink *k, const sweep__tri *t, uint32_t mover, const void *arg);

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
            each(k, t, m, arg);
            if (k->done)
                return;
        }
    }
}

typedef struct path_arg {
    sweep_vec3 o, d, radii, inv;
    int back;
} path_arg;

static void ray_each(sweep__sink *k, const sweep__tri *t, uint32_t mover, const void *arg)
{
    const path_arg *p = arg;
    sweep__offer_ray_tri(k, p->o, p->d, t, SWEEP_HIT_MOVER, mover, p->back);
}

static void sweep_each(sweep__sink *k, const sweep__tri *t, uint32_t mover, const void *arg)
{
    const path_arg *p = arg;
    sweep__offer_sweep_tri(k, p->o, p->d, p->radii, p->inv, t, SWEEP_HIT_MOVER, mover, p->back);
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

void sweep__level_sweep(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, sweep_vec3 radii, sweep__sink *k)
{
    const sweep_world *w = q->world;
    int back = (q->flags & SWEEP_QUERY_BACK_FACES) != 0;
    sweep_vec3 inv = sweep__inverse_radii(radii), e = sweep_v3_add(o, d);
    sweep_vec3 lo = sweep_v3_sub(sweep_v3_min(o, e), radii), hi = sweep_v3_add(sweep_v3_max(o, e), radii);
    sweep__bvh_walk it;
    sweep__bvh_walk_begin(&it, w, lo, hi);
    uint32_t i;
    while (sweep__bvh_walk_next(&it, &i)) {
        sweep__offer_sweep_tri(k, o, d, radii, inv, &w->tris[i], SWEEP_HIT_LEVEL, SWEEP_NO_MOVER, back);
        if (k->done)
            return;
    }
}
