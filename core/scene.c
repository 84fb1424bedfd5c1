/*
 * scene.c - a sweep through the whole world (see scene.h).
 *
 * The broad phase is the world-space box around the swept ellipsoid,
 * tested against the BVH's boxes depth first, first child before the next,
 * four children at a time, with a fixed-size stack (world_impl.h bounds the
 * depth). Candidate triangles are
 * scaled into eSpace per move, so one world serves every ellipsoid size;
 * a move keeps the few it is near (sweep__scene_begin) because its several
 * sweeps mostly see the same ones.
 *
 * Invariants (asserted in checked builds: core/check.h):
 *   - Every narrow-phase answer a sweep considers has t in [-1, 1]: the
 *     running tmax never exceeds 1, a contact is at most tmax (or 0), an
 *     embedded start at least -1 (swept_sphere.c).
 *   - The set of earliest contacts holds at most SWEEP__MAX_SIMULTANEOUS;
 *     once finished, every one lies in [t_min, t_min + SWEEP__TIE_EPS]
 *     (t_min only ever falls to a contact's t) and they are sorted by
 *     triangle index, which is what makes hits[0] the stable choice.
 *   - The kept static candidates, at most SWEEP__MAX_CANDIDATES, come in
 *     the order of the world's tris[] (a BVH walk meets the leaves in that
 *     order: world_impl.h), so a sweep through them tests what the walk
 *     would, in the walk's order; the moving ones are at most
 *     SWEEP__MAX_MOVER_CANDIDATES, the prepared forms at most
 *     SWEEP__MAX_PREPARED.
 *   - A BVH walk pops only real nodes and leaves within tris[], and its
 *     stack has room for a node's four children before each push
 *     (bvh_walk.h).
 */
#include "core/scene.h"

#include "core/bvh_walk.h"
#include "core/check.h"
#include "core/compiler.h"
#include "core/crowd_impl.h"
#include "core/mover_impl.h"
#include "core/scene_cull.h"
#include "core/swept_sphere.h"
#include "core/world_impl.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif

/* The query box grows by this fraction of the radii, so rounding in the
 * eSpace round trip can never hide a triangle the narrow phase would see. */
#define BOX_MARGIN 1e-3


static void note_soft(sweep__scene_result *r, const sweep_sphere_hit *h, const sweep__tri *tri, uint32_t body,
                      const sweep__path *path);

/* Adds one narrow-phase contact to the running set of earliest contacts;
 * a start inside another body's shell goes to the soft notes instead. */
static void consider(sweep__scene_result *r, const sweep_sphere_hit *h, const sweep__tri *tri, uint32_t mover,
                     uint32_t body, const sweep__path *path)
{
    SWEEP_CORE_CHECK(h->t >= -1.0 && h->t <= 1.0);
    if (h->t < 0.0 && body != SWEEP_NO_BODY) {
        note_soft(r, h, tri, body, path);
        return;
    }
    uint32_t index = tri->index;
    sweep__scene_hit sh = {h->t, h->normal, *tri, index, mover, body};
    if (r->count == 0 || h->t < r->t_min - SWEEP__TIE_EPS) {
        r->count = 1;
        r->hits[0] = sh;
        r->t_min = h->t;
        return;
    }
    if (h->t > r->t_min + SWEEP__TIE_EPS)
        return;
    if (h->t < r->t_min)
        r->t_min = h->t;
    if (r->count < SWEEP__MAX_SIMULTANEOUS) {
        r->hits[r->count++] = sh;
        return;
    }
    /* Full: keep the lowest indices, so the primary is never pushed out. */
    uint32_t worst = 0;
    for (uint32_t i = 1; i < r->count; i++)
        if (r->hits[i].index > r->hits[worst].index)
            worst = i;
    if (index < r->hits[worst].index)
        r->hits[worst] = sh;
}

/*
 * Does a sweep along path run deeper into a shell whose nearest point
 * lies along -n? The distance from a point to a convex solid is a convex
 * function along a line, whose slope where the point is outside is the
 * displacement along the unit direction from the nearest point (n): a
 * sweep that does not close in at its start never comes closer, and one
 * that does is stopped where it is.
 */
static int runs_into(const sweep__path *path, sweep_vec3 n)
{
    return sweep_v3_dot(path->disp, n) < -SWEEP__SOFT_INTO * path->disp_len;
}

/* The contact at t = 0 that stops a sweep running deeper into a shell
 * (it keeps the normal it was found with, and so the slide along it). */
static void stop_soft(sweep__scene_result *r, const sweep_sphere_hit *h, const sweep__tri *tri, uint32_t body,
                      const sweep__path *path)
{
    sweep_sphere_hit at0 = *h;
    at0.t = 0.0;
    at0.embedded = 0;
    consider(r, &at0, tri, SWEEP_NO_MOVER, body, path);
}

/*
 * A start inside another body's shell, which the level's embedded-sphere
 * correction would push out along the contact's normal, however deep,
 * into whatever lies behind: a wall, a door. A shell gives way instead:
 * bodies may overlap (a mover's push, which does not see the crowd,
 * leaves them so), and what decides whether a sweep may go on is whether
 * it runs deeper into the shell as a whole. That is told by the shell's
 * deepest contact, its nearest triangle, on which the nearest point of
 * the convex shell lies (runs_into); one of its other triangles may be
 * closed in on by a sweep that goes no deeper, as a slide along a side
 * nears the far edge of that side's other triangle. So each shell is
 * noted here with its deepest contact, and decided once the sweep has met
 * all its triangles (resolve_soft). Past SWEEP__MAX_SOFT shells at once,
 * each further contact decides for itself: stricter, never deeper.
 */
static void note_soft(sweep__scene_result *r, const sweep_sphere_hit *h, const sweep__tri *tri, uint32_t body,
                      const sweep__path *path)
{
    sweep__scene_hit sh = {h->t, h->normal, *tri, tri->index, SWEEP_NO_MOVER, body};
    for (uint32_t k = 0; k < r->soft_count; k++)
        if (r->soft[k].body == body) {
            if (h->t < r->soft[k].t)
                r->soft[k] = sh;
            return;
        }
    if (r->soft_count < SWEEP__MAX_SOFT) {
        r->soft[r->soft_count++] = sh;
        return;
    }
    if (runs_into(path, h->normal))
        stop_soft(r, h, tri, body, path);
}

/* Stops the sweep at each shell it started inside of and runs deeper into. */
static void resolve_soft(sweep__scene_result *r, const sweep__path *path)
{
    for (uint32_t k = 0; k < r->soft_count; k++) {
        const sweep__scene_hit *sh = &r->soft[k];
        if (!runs_into(path, sh->normal))
            continue;
        sweep_sphere_hit h = {.t = 0.0, .normal = sh->normal};
        stop_soft(r, &h, &sh->tri, sh->body, path);
    }
}

/* Checked builds: is a finished set of contacts as scene.c's invariants
 * say: in range, within the tie window of t_min, sorted by index? */
static inline int finished_ok(const sweep__scene_result *r)
{
    if (!(r->count <= SWEEP__MAX_SIMULTANEOUS && r->t_min >= -1.0 && r->t_min <= 1.0))
        return 0;
    for (uint32_t i = 0; i < r->count; i++)
        if (!(r->hits[i].t >= r->t_min && r->hits[i].t <= r->t_min + SWEEP__TIE_EPS) ||
            (i > 0 && r->hits[i - 1].index > r->hits[i].index))
            return 0;
    return 1;
}

/* Drops contacts that a later, earlier contact made non-simultaneous and
 * sorts the rest by triangle index (insertion sort: at most 8). */
static void finish(sweep__scene_result *r)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->count; i++)
        if (r->hits[i].t <= r->t_min + SWEEP__TIE_EPS)
            r->hits[k++] = r->hits[i];
    r->count = k;
    for (uint32_t i = 1; i < k; i++) {
        sweep__scene_hit x = r->hits[i];
        uint32_t j = i;
        while (j > 0 && r->hits[j - 1].index > x.index) {
            r->hits[j] = r->hits[j - 1];
            j--;
        }
        r->hits[j] = x;
    }
    SWEEP_CORE_CHECK(finished_ok(r));
}

/* The float form of a box, widened: it holds the double box. */
static inline void float_box(sweep__tri_box *f, sweep_vec3 lo, sweep_vec3 hi)
{
    f->lo[0] = sweep__widen_down(lo.x), f->lo[1] = sweep__widen_down(lo.y), f->lo[2] = sweep__widen_down(lo.z);
    f->hi[0] = sweep__widen_up(hi.x), f->hi[1] = sweep__widen_up(hi.y), f->hi[2] = sweep__widen_up(hi.z);
}

static inline int box_meets(const sweep__tri_box *a, const sweep__tri_box *b)
{
    return a->lo[0] <= b->hi[0] && a->hi[0] >= b->lo[0] && a->lo[1] <= b->hi[1] && a->hi[1] >= b->lo[1] &&
           a->lo[2] <= b->hi[2] && a->hi[2] >= b->lo[2];
}

/*
 * A sweep's float box, ready to meet a kept triangle's: with SSE, all
 * three axes in one comparison each way (the same comparisons as
 * box_meets, so the same answers), which is most of the time of a sweep
 * through a move's kept triangles.
 */
typedef struct sweep_box {
    sweep__tri_box f;
#ifdef __SSE2__
    __m128 lo, hi; /* f.lo and f.hi, the fourth lane never failing */
#endif
} sweep_box;

#ifdef __SSE2__
/* sweep__widen_down (up: sweep__widen_up) of both lanes of x, rounded to
 * float in the two low lanes of the answer: the same operations, so the
 * same bits. */
static inline __m128 widen2(__m128d x, int up)
{
    __m128d out = _mm_add_pd(_mm_mul_pd(_mm_andnot_pd(_mm_set1_pd(-0.0), x), _mm_set1_pd(SWEEP__WIDEN_REL)),
                             _mm_set1_pd(SWEEP__WIDEN_ABS));
    return _mm_cvtpd_ps(up ? _mm_add_pd(x, out) : _mm_sub_pd(x, out));
}
#endif

/* Made once per sweep: inline, and two axes at a time with SSE, since
 * passing the boxes to a call cost about as much as the work. */
static SWEEP__ALWAYS_INLINE void sweep_box_init(sweep_box *b, sweep_vec3 lo, sweep_vec3 hi)
{
#ifdef __SSE2__
    /* The fourth lane never fails: an infinity widens to itself. */
    b->lo = _mm_movelh_ps(widen2(_mm_setr_pd(lo.x, lo.y), 0), widen2(_mm_setr_pd(lo.z, -INFINITY), 0));
    b->hi = _mm_movelh_ps(widen2(_mm_setr_pd(hi.x, hi.y), 1), widen2(_mm_setr_pd(hi.z, INFINITY), 1));
    float l[4], h[4];
    _mm_storeu_ps(l, b->lo), _mm_storeu_ps(h, b->hi);
    b->f.lo[0] = l[0], b->f.lo[1] = l[1], b->f.lo[2] = l[2];
    b->f.hi[0] = h[0], b->f.hi[1] = h[1], b->f.hi[2] = h[2];
#else
    float_box(&b->f, lo, hi);
#endif
}

#ifdef __SSE2__
/* Does b meet the float box lo..hi? Loads four floats from each of lo and
 * hi: the fourth lane is whatever follows, and its answer is dropped. */
static inline int meets_ps(const sweep_box *b, const float *lo, const float *hi)
{
    __m128 ok = _mm_and_ps(_mm_cmple_ps(b->lo, _mm_loadu_ps(hi)), _mm_cmpge_ps(b->hi, _mm_loadu_ps(lo)));
    return (_mm_movemask_ps(ok) & 7) == 7;
}
#endif

/* Does the candidate's box meet the sweep's? Reads the 4 bytes after the
 * box (the candidate goes on), in a lane whose answer is dropped. */
static inline int cand_meets(const sweep_box *b, const sweep__candidate *cd)
{
#ifdef __SSE2__
    return meets_ps(b, cd->box.lo, cd->box.hi);
#else
    return box_meets(&b->f, &cd->box);
#endif
}

/* Does the world's widened box of a triangle meet b? As cand_meets; the
 * lane read past the box (the next box's first float, or the zero box
 * after the last: world_impl.h) is dropped. */
static inline int tri_meets(const sweep_box *b, const sweep__tri_box *t)
{
#ifdef __SSE2__
    return meets_ps(b, t->lo, t->hi);
#else
    return box_meets(&b->f, t);
#endif
}

static int box_overlaps(sweep_vec3 alo, sweep_vec3 ahi, sweep_vec3 blo, sweep_vec3 bhi)
{
    return alo.x <= bhi.x && ahi.x >= blo.x && alo.y <= bhi.y && ahi.y >= blo.y && alo.z <= bhi.z &&
           ahi.z >= blo.z;
}

static int box_inside(sweep_vec3 lo, sweep_vec3 hi, sweep_vec3 olo, sweep_vec3 ohi)
{
    return lo.x >= olo.x && lo.y >= olo.y && lo.z >= olo.z && hi.x <= ohi.x && hi.y <= ohi.y && hi.z <= ohi.z;
}

static void tri_box(const sweep__tri *t, sweep_vec3 *lo, sweep_vec3 *hi)
{
    *lo = sweep_v3_min(t->a, sweep_v3_min(t->b, t->c));
    *hi = sweep_v3_max(t->a, sweep_v3_max(t->b, t->c));
}

/* The triangles of mover m that src sweeps against, and their box. */
static const sweep__tri *mover_tris(const sweep__scene_src *src, uint32_t m, sweep_vec3 *lo, sweep_vec3 *hi)
{
    const sweep__mover *mo = &src->movers->m[m];
    if (src->prev) {
        *lo = mo->prev_lo, *hi = mo->prev_hi;
        return mo->prev;
    }
    *lo = mo->cur_lo, *hi = mo->cur_hi;
    return mo->cur;
}

static void keep(sweep__candidate *cd, const sweep__tri *t, sweep_vec3 tlo, sweep_vec3 thi, uint32_t mover,
                 uint32_t body)
{
    cd->box.lo[0] = sweep__widen_down(tlo.x), cd->box.lo[1] = sweep__widen_down(tlo.y);
    cd->box.lo[2] = sweep__widen_down(tlo.z);
    cd->box.hi[0] = sweep__widen_up(thi.x), cd->box.hi[1] = sweep__widen_up(thi.y);
    cd->box.hi[2] = sweep__widen_up(thi.z);
    cd->tri = t, cd->mover = mover, cd->body = body;
    cd->prep = NULL;
}

/* What of a sweep__centre_box the flat faces are culled by: its centre's
 * and half size's z, the radius along z and the margin. Copied, not
 * pointed to, so that the box itself stays out of memory. */
typedef struct flat_cull {
    double cz, hz, rz, margin;
} flat_cull;

/*
 * Can no sweep whose centre stays in cb touch a shell's flat face at
 * height z, facing up (up) or down? sweep__culled() for the plane
 * (0, 0, +-1), +-z, in double, and with no size test: that plane is exact
 * in direction in eSpace too (every edge's z is exactly 0 there), so the
 * narrow phase sees it up to the rounding of its offset. Which way it
 * faces there is the orientation of the octagon's corners, which rounding
 * cannot turn while the body's radii are far above the rounding of its
 * position (shell_flat_culled). The margin grows by the shell's own distance from
 * the origin, since a body may stand outside the world's box, which
 * bounds the world's triangles only.
 */
static int flat_face_culled(const flat_cull *cb, double z, int up, double margin)
{
    double mid = up ? cb->cz - z : z - cb->cz;
    double clear = mid - cb->hz - margin;
    int behind = mid + cb->hz < -margin;
    int beyond = (clear > 0.0) & (clear * clear > cb->rz * cb->rz * (1.0 + 1e-5));
    return behind | beyond;
}

/* The triangles of shell b's flat faces that no sweep whose centre stays
 * in cb can touch (bit j for triangle j). */
static uint32_t shell_flat_culled(const flat_cull *cb, const sweep_crowd *c, uint32_t b, const sweep__shell *sh)
{
    sweep_vec3 p = c->pos[b], r = c->radii[b];
    double size = 1.0 + fabs(p.x) + fabs(p.y) + fabs(p.z) + r.x + r.y + r.z;
    if (!((r.x < r.y ? r.x : r.y) >= 1e-9 * size))
        return 0;
    double margin = cb->margin + 1e-6 * size;
    return (flat_face_culled(cb, sh->zt, 1, margin) ? SWEEP__CROWD_SHELL_TOPS : 0u) |
           (flat_face_culled(cb, sh->zb, 0, margin) ? SWEEP__CROWD_SHELL_BOTTOMS : 0u);
}

/*
 * The moving triangles of a source near a box: each mover's (in mover
 * order) then each other body's shell (in slot order), each in its own
 * triangle order, whole groups skipped by their box. The one order every
 * sweep of a scene tests them in, kept or not.
 */
/* Most bodies one walk takes from the crowd's broad phase; a box near more
 * (a crowd packed tighter than bodies can stand) scans every slot. */
#define NEAR_MAX 48u

typedef struct dyn_walk {
    const sweep__scene_src *src;
    sweep_vec3 lo, hi;
    uint32_t m, b;             /* next mover, next slot (or next of near[]) */
    const sweep__tri *tris;    /* the current group */
    uint32_t k, n;             /* next triangle of it, its size */
    uint32_t mover, body;      /* what the current group is */
    uint32_t near_n;           /* bodies in near[], in slot order; UINT32_MAX: scan every slot */
    uint32_t near[NEAR_MAX];
    /* Where shells are built: each in turn into shells (a scene's, whose
     * candidates point into it), or, if NULL, each over the last in local
     * (a sweep that tests each triangle as it comes). Only the triangles
     * whose box meets the walk's are built (left: those not yet given),
     * and with cull set not those of the flat faces that no sweep whose
     * centre stays in the scene's centre box can touch (shell_flat_culled). */
    int cull;
    flat_cull fc;
    sweep__tri *shells;
    uint32_t shells_n, shells_max;
    int full; /* a shell did not fit in shells: the walk stopped there */
    uint32_t left;
    sweep__shell shell;
    sweep__tri local[SWEEP_CROWD_SHELL_TRIANGLES];
} dyn_walk;

/* Most cells one walk visits in the crowd's grid; a box over more (a move
 * far longer than a body is wide) scans every slot. */
#define NEAR_CELLS 36

/* Adds body b to near[] (kept in slot order); 0 when near[] is full. */
static inline int near_add(dyn_walk *it, uint32_t *n, uint32_t b)
{
    if (*n == NEAR_MAX)
        return 0;
    uint32_t j = (*n)++;
    while (j > 0 && it->near[j - 1] > b) {
        it->near[j] = it->near[j - 1];
        j--;
    }
    it->near[j] = b;
    return 1;
}

/* The bodies whose box meets [lo, hi], other than the mover's own, in slot
 * order: the same bodies in the same order as a scan of every slot. */
static void dyn_near(dyn_walk *it, const sweep_crowd *c, uint32_t self)
{
    it->near_n = UINT32_MAX;
    if (c->count <= c->scan_max)
        return;
    /* Each below the rounding of its subtraction too. */
    double fx = it->lo.x - c->widest, fy = it->lo.y - c->widest_y;
    fx -= fabs(fx) * 1e-12, fy -= fabs(fy) * 1e-12;
    int32_t x0 = sweep__crowd_key(fx, c->inv_cell), x1 = sweep__crowd_key(it->hi.x, c->inv_cell);
    int32_t y0 = sweep__crowd_key(fy, c->inv_cell), y1 = sweep__crowd_key(it->hi.y, c->inv_cell);
    if ((int64_t)x1 - x0 + 1 > NEAR_CELLS || ((int64_t)x1 - x0 + 1) * ((int64_t)y1 - y0 + 1) > NEAR_CELLS)
        return;
    uint32_t n = 0;
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++)
            for (uint32_t b = c->head[sweep__crowd_bucket(c, x, y)]; b != SWEEP_NO_BODY; b = c->next[b]) {
                if (c->cx[b] != x || c->cy[b] != y || b == self ||
                    !box_overlaps(c->lo[b], c->hi[b], it->lo, it->hi))
                    continue;
                if (!near_add(it, &n, b))
                    return;
            }
    it->near_n = n;
}

static void dyn_begin(dyn_walk *it, const sweep__scene_src *src, sweep_vec3 lo, sweep_vec3 hi, sweep__tri *shells,
                      uint32_t shells_max, const sweep__centre_box *cull)
{
    it->src = src, it->lo = lo, it->hi = hi;
    it->cull = cull != NULL;
    if (cull)
        it->fc.cz = cull->c.z, it->fc.hz = cull->h.z, it->fc.rz = cull->radii.z, it->fc.margin = cull->margin;
    it->shells = shells, it->shells_n = 0, it->shells_max = shells_max, it->full = 0;
    it->m = src->movers ? src->first : src->end;
    it->b = 0;
    it->k = it->n = 0;
    it->left = 0;
    it->near_n = UINT32_MAX;
    if (src->crowd)
        dyn_near(it, src->crowd, src->self);
}

/* The next triangle whose own box meets the walk's box, with its box. */
static inline const sweep__tri *dyn_next(dyn_walk *it, sweep_vec3 *tlo, sweep_vec3 *thi)
{
    const sweep__scene_src *src = it->src;
    for (;;) {
        if (it->left) {
            uint32_t j = SWEEP__CTZ(it->left);
            it->left &= it->left - 1;
            const sweep__tri *t = &it->tris[j];
            if (j < SWEEP__CROWD_SHELL_FLAT)
                sweep__shell_side_box(&it->shell, j >> 1, tlo, thi);
            else
                tri_box(t, tlo, thi);
            return t;
        }
        while (it->k < it->n) {
            const sweep__tri *t = &it->tris[it->k++];
            tri_box(t, tlo, thi);
            if (box_overlaps(*tlo, *thi, it->lo, it->hi))
                return t;
        }
        while (it->m < src->end) {
            sweep_vec3 glo, ghi;
            uint32_t m = it->m++;
            const sweep__tri *tris = mover_tris(src, m, &glo, &ghi);
            if (m == src->skip || !box_overlaps(glo, ghi, it->lo, it->hi))
                continue;
            it->tris = tris;
            it->n = src->movers->m[m].tri_count;
            it->k = 0, it->mover = m, it->body = SWEEP_NO_BODY;
            break;
        }
        if (it->k < it->n)
            continue;
        /* Shells: a tight scan, since a crowd may have thousands of slots. */
        const sweep_crowd *c = src->crowd;
        if (!c)
            return NULL;
        uint32_t b = it->b;
        if (it->near_n != UINT32_MAX) {
            if (b >= it->near_n)
                return NULL;
            it->b = b + 1;
            b = it->near[b];
        } else {
            while (b < c->slots && (!c->used[b] || b == src->self || !box_overlaps(c->lo[b], c->hi[b], it->lo, it->hi)))
                b++;
            if (b >= c->slots) {
                it->b = b;
                return NULL;
            }
            it->b = b + 1;
        }
        sweep__crowd_shell_of(c, b, &it->shell);
        uint32_t meets = sweep__shell_meets(&it->shell, it->lo, it->hi);
        if (it->cull && meets >> SWEEP__CROWD_SHELL_FLAT)
            meets &= ~shell_flat_culled(&it->fc, c, b, &it->shell);
        if (!meets)
            continue;
        sweep__tri *out = it->local;
        if (it->shells) {
            if (it->shells_n == it->shells_max) {
                it->full = 1;
                return NULL;
            }
            out = &it->shells[(size_t)it->shells_n++ * SWEEP_CROWD_SHELL_TRIANGLES];
        }
        sweep__crowd_shell_tris(&it->shell, meets, out);
        it->tris = out;
        it->left = meets;
        it->k = it->n = 0, it->mover = SWEEP_NO_MOVER, it->body = b;
    }
}

/* Keeps the moving triangles near [lo, hi] (dyn_walk order), but for the
 * shells' faces that no sweep whose centre stays in cb can touch. */
static void begin_dynamic(sweep__scene *s, sweep_vec3 lo, sweep_vec3 hi, const sweep__centre_box *cb)
{
    s->mover_count = 0;
    s->movers_kept = 1;
    if (!s->src.movers && !s->src.crowd)
        return;
    dyn_walk it;
    sweep_vec3 tlo, thi;
    const sweep__tri *t;
    dyn_begin(&it, &s->src, lo, hi, s->shells, SWEEP__MAX_SHELLS, cb);
    while ((t = dyn_next(&it, &tlo, &thi))) {
        if (s->mover_count == SWEEP__MAX_MOVER_CANDIDATES) {
            s->movers_kept = 0;
            return;
        }
        keep(&s->mover_cand[s->mover_count++], t, tlo, thi, it.mover, it.body);
    }
    if (it.full)
        s->movers_kept = 0;
}

/*
 * Keeps triangle i of the world, which meets the move's box, if `keep`
 * (its plane is in reach: sweep__culled). Without a branch on keep: the
 * triangle is written to the next free slot, which moves on only if it is
 * kept. Whether its plane is out of reach is close to a coin toss on the
 * corpus (half are), and a mispredicted branch costs more than the
 * arithmetic it skips. (The box test before it stays a branch: without
 * one, the lighter levels lost more to the work on triangles outside the
 * box than the heavy ones gained.) 0 when the scene has no room for a
 * kept one: then no candidates are kept at all. wp is s->world_prep, in
 * hand: read through s, it was read again after every store to a
 * candidate.
 */
static SWEEP__ALWAYS_INLINE int gather(sweep__scene *s, const sweep_world *w, const sweep__tri_prep *wp, uint32_t i,
                                        int keep)
{
    /* A sweep soon reads nearly every kept triangle's prepared form (its
     * first and third cache lines), or else prepares it from its world
     * corners: fetch whichever now. */
    if (wp) {
        SWEEP__PREFETCH(&wp[i]);
        SWEEP__PREFETCH((const char *)&wp[i] + 128);
    } else {
        SWEEP__PREFETCH(&w->tris[i]);
    }
    if (s->count == SWEEP__MAX_CANDIDATES) {
        if (keep)
            s->kept = 0;
        return !keep;
    }
    /* The last kept one came before this one in tris[]. */
    SWEEP_CORE_CHECK(s->count == 0 || s->cand[s->count - 1].tri < &w->tris[i]);
    sweep__candidate *cd = &s->cand[s->count];
    cd->box = w->boxes[i];
    cd->tri = &w->tris[i], cd->mover = SWEEP_NO_MOVER, cd->body = SWEEP_NO_BODY;
    cd->prep = wp ? &wp[i] : NULL;
    s->count += (uint32_t)keep;
    return 1;
}

static void reach_ball_scene(sweep__scene *s);

void sweep__scene_begin(sweep__scene *s, const sweep__scene_src *src, sweep_vec3 radii, sweep_vec3 inv_radii,
                        sweep_vec3 lo, sweep_vec3 hi)
{
    const sweep_world *w = src->world;
    s->src = *src;
    s->radii = radii, s->inv_radii = inv_radii;
    s->lo = lo, s->hi = hi;
    s->count = 0;
    s->kept = 1;
    s->prepared = 0;
    s->world_prep = w && w->prep && sweep_v3_same_bits(w->prep_inv_radii, inv_radii) ? w->prep : NULL;
    reach_ball_scene(s);
    sweep__centre_box cb;
    cb.c = sweep_v3_scale(sweep_v3_add(lo, hi), 0.5);
    cb.h = sweep_v3_max(sweep_v3_sub(sweep_v3_scale(sweep_v3_sub(hi, lo), 0.5), radii), sweep_v3(0, 0, 0));
    cb.radii = radii;
    cb.min_size = (float)(2e-4 * (cb.h.x + cb.h.y + cb.h.z + radii.x + radii.y + radii.z));
    sweep_vec3 far = sweep_v3(0, 0, 0);
    if (w)
        far = sweep_v3_max(sweep_v3(fabs(w->lo.x), fabs(w->lo.y), fabs(w->lo.z)),
                           sweep_v3(fabs(w->hi.x), fabs(w->hi.y), fabs(w->hi.z)));
    cb.margin = 1e-6 * (1.0 + fabs(cb.c.x) + fabs(cb.c.y) + fabs(cb.c.z) + cb.h.x + cb.h.y + cb.h.z + far.x + far.y +
                        far.z);
    begin_dynamic(s, lo, hi, &cb);
    if (!w)
        return;
    /* The walk of sweep__bvh_walk_next (depth first, first child first),
     * inline. The world's
     * widened float boxes pick the triangles: a few just outside [lo, hi]
     * may be kept too, which sweep_kept allows for. */
    sweep_box b;
    sweep_box_init(&b, lo, hi);
    sweep__bvh_box nb;
    sweep__bvh_box_set(&nb, &b.f);
    const sweep__node *nodes = w->nodes;
    const sweep__tri_prep *wp = s->world_prep;
    sweep__child stack[SWEEP__BVH_STACK];
    uint32_t sp = 0;
#ifdef __SSE2__
    sweep__centre_box2 cb2;
    sweep__centre_box2_init(&cb2, &cb);
    uint32_t pending = UINT32_MAX; /* a triangle met, its plane test not yet made */
#endif
    if (w->tri_count > 0)
        sweep__bvh_push(stack, &sp, nodes, 0, &nb);
    while (sp > 0) {
        sweep__child e = stack[--sp];
        SWEEP_CORE_CHECK(sweep__bvh_child_ok(w, e));
        if (e.count == 0) {
            sweep__bvh_push(stack, &sp, nodes, e.first, &nb);
            continue;
        }
        /* With SSE2 the plane tests go two at a time (scene_cull.h): a
         * triangle that meets the box waits for the next one that does,
         * across leaves, and the last alone is tested on its own. */
        for (uint32_t i = e.first, end = e.first + e.count; i < end; i++) {
            if (!tri_meets(&b, &w->boxes[i]))
                continue;
#ifdef __SSE2__
            if (pending == UINT32_MAX) {
                pending = i;
                continue;
            }
            unsigned cull = sweep__culled_pair(&cb, &cb2, w->planes, w->boxes, pending, i);
            if (!gather(s, w, wp, pending, !(cull & 1u)) || !gather(s, w, wp, i, !(cull & 2u)))
                return;
            pending = UINT32_MAX;
#else
            if (!gather(s, w, wp, i, !sweep__culled(&cb, &w->planes[i], &w->boxes[i])))
                return;
#endif
        }
    }
#ifdef __SSE2__
    if (pending != UINT32_MAX)
        gather(s, w, wp, pending, !sweep__culled(&cb, &w->planes[pending], &w->boxes[pending]));
#endif
}

/* The running tmax: nothing later than the earliest contact (plus the tie
 * window) can matter. */
static double limit(const sweep__scene_result *r)
{
    double tmax = r->count ? r->t_min + SWEEP__TIE_EPS : 1.0;
    return tmax > 1.0 ? 1.0 : tmax;
}

static void prepare(const sweep__scene *s, const sweep__tri *t, sweep__tri_prep *p)
{
    sweep__tri_prepare_espace(t, s->inv_radii, p);
}

/*
 * The ball every contact of a sweep up to tmax lies in. A contact at t in
 * [0, tmax] (or an embedded start, t = 0) touches a point of the triangle
 * one unit from the centre at t, which is at most tmax |disp| / 2 from the
 * centre at tmax / 2: so the triangle comes within 1 + tmax |disp| / 2 of
 * that midpoint (eSpace). The narrow phase answers only such contacts, up
 * to its rounding (about 1e-8 of a unit at a grazing double root, far less
 * elsewhere); the bound is grown by a millionth of itself and of the scale
 * of the coordinates, far above that. A triangle whose box lies beyond the
 * ball is one the narrow phase answers 0 for, so leaving it out changes no
 * bit. It is the sweep's box that is too generous where walkers press into
 * finely cut surfaces: a body standing on a floor of small pieces has all
 * of those under its box in the box of its fall, and the ball only the few
 * under its centre (a fall is short, and the floor a radius below).
 *
 * Measured against the kept world boxes (world space, widened floats), the
 * gap per axis scaled by the inverse radii into eSpace. With SSE, in float:
 * the midpoint rounded to float, each gap then taken down by 2^-21 of
 * itself and of the midpoint's coordinate (more than the two roundings of
 * the difference), the scaling down by 2^-21, and the sum of squares
 * compared with the bound grown by 2^-18: each step only ever makes the
 * test keep more, never drop a triangle the exact gap would keep.
 */
typedef struct reach_ball {
    sweep_vec3 mid; /* world */
    double r2;      /* the bound, squared (eSpace) */
#ifdef __SSE2__
    __m128 m, scale, slack; /* the midpoint; the scene's ball_scale and ball_slack */
    float r2f;
#endif
} reach_ball;

/* The parts of every reach ball of a scene that depend on the scene
 * alone: a kept sweep's midpoint lies in [lo, hi], so 2^-21 of the
 * larger end of each axis (and of 1) bounds its share of the slack. */
static void reach_ball_scene(sweep__scene *s)
{
    const double down = 1.0 - 0x1p-21;
    sweep_vec3 far = sweep_v3_max(sweep_v3(fabs(s->lo.x), fabs(s->lo.y), fabs(s->lo.z)),
                                  sweep_v3(fabs(s->hi.x), fabs(s->hi.y), fabs(s->hi.z)));
    s->ball_scale[0] = (float)(s->inv_radii.x * down), s->ball_scale[1] = (float)(s->inv_radii.y * down);
    s->ball_scale[2] = (float)(s->inv_radii.z * down), s->ball_scale[3] = 0.0f;
    s->ball_slack[0] = (float)(0x1p-21 * (far.x + 1.0)), s->ball_slack[1] = (float)(0x1p-21 * (far.y + 1.0));
    s->ball_slack[2] = (float)(0x1p-21 * (far.z + 1.0)), s->ball_slack[3] = 0.0f;
}

static inline void reach_ball_set(reach_ball *b, const sweep__scene *s, const sweep__path *path, double tmax)
{
    double half = 0.5 * tmax;
    sweep_vec3 mid = sweep_v3_madd(path->center, path->disp, half);
    double bound = (1.0 + half * path->disp_len) * (1.0 + 1e-6) + 1e-6 * (1.0 + path->size + path->disp_len);
    b->mid = sweep_v3_mul(mid, s->radii);
    b->r2 = bound * bound;
#ifdef __SSE2__
    b->m = _mm_setr_ps((float)b->mid.x, (float)b->mid.y, (float)b->mid.z, 0.0f);
    b->scale = _mm_loadu_ps(s->ball_scale);
    b->slack = _mm_loadu_ps(s->ball_slack);
    b->r2f = (float)(b->r2 * (1.0 + 0x1p-18));
#endif
}

/* How far x lies outside [lo, hi], or 0 (comparisons, not libm's fmax). */
static inline double gap(double lo, double hi, double x)
{
    double below = lo - x, above = x - hi;
    double g = below > above ? below : above;
    return g > 0.0 ? g : 0.0;
}

/* Can the box of a candidate hold a point the ball reaches? The box holds
 * the world triangle, and so, scaled by the inverse radii, the eSpace one
 * (up to the rounding of that scaling, a few parts in 1e16 of a
 * coordinate, which the bound's margin covers). */
static inline int ball_meets(const reach_ball *b, sweep_vec3 inv_radii, const sweep__candidate *cd)
{
#ifdef __SSE2__
    (void)inv_radii;
    /* Lanes 0-2 the axes; lane 3 reads past lo and hi (hi[0], then the
     * candidate's next field, cleared first so that no bits of a pointer
     * are taken for a number) and is zeroed by the scale. */
    __m128 lo = _mm_loadu_ps(cd->box.lo);
    __m128 hi = _mm_and_ps(_mm_loadu_ps(cd->box.hi), _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0)));
    __m128 g = _mm_max_ps(_mm_sub_ps(lo, b->m), _mm_sub_ps(b->m, hi));
    __m128 abs_g = _mm_andnot_ps(_mm_set1_ps(-0.0f), g);
    g = _mm_sub_ps(g, _mm_add_ps(_mm_mul_ps(abs_g, _mm_set1_ps(0x1p-21f)), b->slack));
    g = _mm_mul_ps(_mm_max_ps(g, _mm_setzero_ps()), b->scale);
    g = _mm_mul_ps(g, g);
    __m128 sum = _mm_add_ps(g, _mm_movehl_ps(g, g));
    sum = _mm_add_ss(sum, _mm_shuffle_ps(sum, sum, 1));
    return _mm_cvtss_f32(sum) <= b->r2f;
#else
    double gx = gap(cd->box.lo[0], cd->box.hi[0], b->mid.x) * inv_radii.x;
    double gy = gap(cd->box.lo[1], cd->box.hi[1], b->mid.y) * inv_radii.y;
    double gz = gap(cd->box.lo[2], cd->box.hi[2], b->mid.z) * inv_radii.z;
    return gx * gx + gy * gy + gz * gz <= b->r2;
#endif
}

/*
 * Tests kept candidates whose widened float box meets the sweep's float
 * box: every triangle whose exact box meets the sweep's box, and perhaps
 * a few just outside it, which the narrow phase cannot touch (the sweep's
 * box is padded by BOX_MARGIN) and which the BVH walk tests anyway, since
 * it tests every triangle of the leaves it reaches. So the answer is the
 * walk's, without the exact box of each triangle. Of those, the ones whose
 * box the sweep's reach ball (above) does not meet are passed over before
 * their prepared form is read: the narrow phase would answer 0.
 */
static SWEEP__ALWAYS_INLINE void sweep_kept_in(sweep__scene *s, sweep__candidate *cand, uint32_t n,
                                               const sweep__path *path, const sweep_box *f, sweep__scene_result *r,
                                               const int use_ball)
{
    sweep_sphere_hit h;
    double tmax = limit(r); /* changes only with r */
    /* The ball is made again after a contact lowers tmax: the smaller
     * ball, which lies inside the last (its centre moves back by as much
     * as its radius shrinks), ends more of the triangles beside the one
     * touched. */
    reach_ball ball = {.r2 = 0.0}; /* only read when use_ball */
    if (use_ball)
        reach_ball_set(&ball, s, path, tmax);
    for (uint32_t k = 0; k < n; k++) {
        sweep__candidate *cd = &cand[k];
        if (!cand_meets(f, cd))
            continue;
        if (use_ball && !ball_meets(&ball, s->inv_radii, cd))
            continue;
        const sweep__tri_prep *p = cd->prep;
        sweep__tri_prep local;
        if (!p) {
            if (s->prepared < SWEEP__MAX_PREPARED) {
                sweep__tri_prep *fresh = &s->prep[s->prepared++];
                prepare(s, cd->tri, fresh);
                p = cd->prep = fresh;
            } else {
                prepare(s, cd->tri, &local);
                p = &local;
            }
        }
        double dist = 0.0, nv = 0.0;
        int c = sweep__sphere_plane_case(path, p, tmax, &dist, &nv);
        if (!c)
            continue;
        if (sweep__sphere_sweep_case(path, p, tmax, c, dist, nv, &h)) {
            consider(r, &h, cd->tri, cd->mover, cd->body, path);
            tmax = limit(r);
            if (use_ball)
                reach_ball_set(&ball, s, path, tmax);
        }
    }
}

/*
 * Among more than 16 kept triangles the reach ball goes first, before the
 * plane tests, so that a triangle it passes over costs neither its plane
 * test nor the read of its prepared form; among fewer (most moves on the
 * corpus) there is no ball, which would end too few tests to pay for
 * itself. Two copies of the loop, each with its tests fixed, run fewer
 * instructions than one loop choosing as it went, with the ball before
 * the plane tests or after them (docs/performance.md, "Dense levels").
 * Either order keeps exactly the triangles the narrow phase can touch,
 * so the answers are the same bits.
 */
static void sweep_kept(sweep__scene *s, sweep__candidate *cand, uint32_t n, const sweep__path *path,
                       const sweep_box *f, sweep__scene_result *r)
{
    if (n > 16)
        sweep_kept_in(s, cand, n, path, f, r, 1);
    else
        sweep_kept_in(s, cand, n, path, f, r, 0);
}

/* Tests one triangle: prepared by the world, or else on the spot. */
static void sweep_one(const sweep__scene *s, const sweep__path *path, const sweep__tri *tr,
                      const sweep__tri_prep *ready, uint32_t mover, uint32_t body, sweep__scene_result *r)
{
    sweep__tri_prep p;
    sweep_sphere_hit h;
    if (!ready) {
        prepare(s, tr, &p);
        ready = &p;
    }
    if (sweep__sphere_sweep_prepared(path, ready, limit(r), &h))
        consider(r, &h, tr, mover, body, path);
}

/* The moving part of a sweep (movers, then other bodies' shells): kept
 * candidates when the sweep stays in the kept box, otherwise every such
 * triangle near the sweep, in the same order. */
static void sweep_dynamic(sweep__scene *s, const sweep__path *path, const sweep_box *f, sweep_vec3 lo, sweep_vec3 hi,
                          sweep__scene_result *r)
{
    const sweep__scene_src *src = &s->src;
    if (!src->movers && !src->crowd)
        return;
    if (s->movers_kept && box_inside(lo, hi, s->lo, s->hi)) {
        /* None kept (no mover nor body near the move, most moves): no
         * call, whose frame alone cost a sweep some 30 instructions. */
        if (s->mover_count)
            sweep_kept(s, s->mover_cand, s->mover_count, path, f, r);
        return;
    }
    dyn_walk it;
    sweep_vec3 tlo, thi;
    const sweep__tri *t;
    dyn_begin(&it, src, lo, hi, NULL, 0, NULL);
    while ((t = dyn_next(&it, &tlo, &thi)))
        sweep_one(s, path, t, NULL, it.mover, it.body, r);
}

int sweep__scene_sweep(sweep__scene *s, sweep_vec3 e_from, sweep_vec3 e_disp, sweep__scene_result *out)
{
    const sweep_world *w = s->src.world;
    sweep_vec3 from = sweep_v3_mul(e_from, s->radii);
    sweep_vec3 to = sweep_v3_mul(sweep_v3_add(e_from, e_disp), s->radii);
    sweep_vec3 pad = sweep_v3_scale(s->radii, 1.0 + BOX_MARGIN);
    sweep_vec3 lo = sweep_v3_sub(sweep_v3_min(from, to), pad);
    sweep_vec3 hi = sweep_v3_add(sweep_v3_max(from, to), pad);
    SWEEP_CORE_CHECK(s->count <= SWEEP__MAX_CANDIDATES && s->mover_count <= SWEEP__MAX_MOVER_CANDIDATES &&
                     s->prepared <= SWEEP__MAX_PREPARED);
    sweep__path path;
    sweep__path_init(&path, e_from, e_disp);
    sweep_box f;
    sweep_box_init(&f, lo, hi);

    /* Built in place: *out is scratch until the answer is 1. */
    sweep__scene_result *r = out;
    r->count = 0;
    r->soft_count = 0;
    r->t_min = 1.0;
    r->disp_len = path.disp_len;
    if (!w || w->tri_count == 0) {
        /* no static geometry */
    } else if (s->kept && box_inside(lo, hi, s->lo, s->hi)) {
        /* A kept triangle outside this sweep's box cannot be touched by it,
         * and one inside is one the BVH walk would test, in this order. */
        sweep_kept(s, s->cand, s->count, &path, &f, r);
    } else {
        sweep__bvh_walk it;
        uint32_t i;
        sweep__bvh_walk_begin(&it, w, lo, hi);
        while (sweep__bvh_walk_next(&it, &i))
            sweep_one(s, &path, &w->tris[i], s->world_prep ? &s->world_prep[i] : NULL, SWEEP_NO_MOVER, SWEEP_NO_BODY,
                      r);
    }
    sweep_dynamic(s, &path, &f, lo, hi, r);
    if (r->soft_count)
        resolve_soft(r, &path);
    if (r->count == 0)
        return 0;
    finish(r);
    return 1;
}
