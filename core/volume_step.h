/*
 * volume_step.h - internal: what the world's volumes do after one step of
 * sweep_act (core/volume.h says the rule; core/motion.c calls it). Not
 * installed.
 */
#ifndef SWEEP_CORE_VOLUME_STEP_H
#define SWEEP_CORE_VOLUME_STEP_H

#include <math.h>

#include "core/compiler.h"
#include "core/crowd.h"
#include "core/medium.h"
#include "core/motion.h"
#include "core/volume.h"
#include "core/world_impl.h"

/* The volumes that may act on a step (candidates) are listed first, up
 * to this many; a step among more tests every volume. */
#define SWEEP__VOLUME_CANDIDATES 64u

/* A step's candidates: when listed, the volumes that may do something to
 * it (sweep__volume_may), n of them in index order (n >
 * SWEEP__VOLUME_CANDIDATES: too many to list, every volume is looked at).
 * Through the grid (world_impl.h), the cells of its two ends: a volume
 * acts on a step only when its box holds one of them, so the lists of
 * those two cells hold every volume that can. A step whose ends share a
 * cell (nearly every one) is listed from it before the call; one across
 * cells has sweep__volumes_step merge both lists. */
typedef struct sweep__volume_step_cells {
    uint32_t from_cell, to_cell;
    int listed;
    uint32_t n;
    uint32_t cand[SWEEP__VOLUME_CANDIDATES + 1];
} sweep__volume_step_cells;

/* Adds to cand[0 .. n) the volumes of cell c that may do something to the
 * step from .. to, up to one more than SWEEP__VOLUME_CANDIDATES; the new
 * count. No test of the segment's box first: sweep__volume_may already
 * says no of a volume whose box holds neither end, and asking it alone
 * costs less than a box test before it. Without a branch on it, and the
 * first entry read even from an empty list (the next list's, or the one
 * the items end with: volume.c) and then counted for nothing: most cells
 * list no volume or one, and which, step after step, was a branch the
 * processor guessed wrong (docs/performance.md, "Volumes on a real
 * level"). */
static SWEEP__ALWAYS_INLINE uint32_t sweep__volumes_collect(const sweep_world *w, uint32_t c, sweep_vec3 from,
                                                            sweep_vec3 to, uint32_t *cand, uint32_t n)
{
    const uint32_t *list = w->volume_cell_items + w->volume_cell_first[c];
    uint32_t len = w->volume_cell_first[c + 1] - w->volume_cell_first[c];
    for (uint32_t k = 0; (k < len || k == 0) && n <= SWEEP__VOLUME_CANDIDATES; k++) {
        cand[n] = list[k];
        n += (k < len) & sweep__volume_may(w, list[k], from, to);
    }
    return n;
}

/* The candidates of a world whose volumes are in quads (world_impl.h):
 * every quad's boxes tested against lo .. hi at once, as floats, then
 * those that meet asked sweep__volume_may, exactly, in index order; their
 * count. */
static SWEEP__ALWAYS_INLINE uint32_t sweep__volumes_scan(const sweep_world *w, sweep_vec3 lo, sweep_vec3 hi,
                                                         sweep_vec3 from, sweep_vec3 to, uint32_t *cand)
{
    uint32_t n = 0;
    for (uint64_t meets = sweep__volume_quads_meet(w->volume_quads, w->volume_quad_count, lo, hi); meets;
         meets &= meets - 1) {
        const uint32_t i = w->volume_lane[SWEEP__CTZ64(meets)];
        cand[n] = i;
        n += sweep__volume_may(w, i, from, to);
    }
    return n;
}

/* Makes *out, the lists of which volumes of v[0 .. n) that act after a
 * step lie near each cell of a grid of grid x grid x grid_z cells from
 * lo, inv cells a unit along each axis (world_impl.h); none (first NULL)
 * where none acts, or where they would hold more than a million entries.
 * SWEEP_E_NOMEM when they cannot be held. */
sweep_status sweep__volume_clear_make(const sweep_volume *v, uint32_t n, sweep_vec3 lo, const double inv[3],
                                      uint32_t grid, uint32_t grid_z, sweep__volume_clear *out);

/* A start whose cell lists more volumes than this is told nothing:
 * measuring them all would cost it more than its steps' looks do. */
#define SWEEP__VOLUME_CLEAR_LIST_MAX 64u

/* How far every volume that acts after a step lies from p at least, along
 * the axis on which it lies farthest, or, for a trigger of a box alone
 * that holds p, how far its nearest face lies: the least of the
 * volume_clear's reach and the distances of the volumes p's cell lists;
 * 0 or less where no step may go unlooked at (in another volume's box,
 * on a trigger's face, or no volume acts). */
static SWEEP__ALWAYS_INLINE double sweep__volume_clearance(const sweep_world *w, sweep_vec3 p)
{
    const sweep__volume_clear *c = &w->volume_clear;
    if (!c->first)
        return 0.0;
    uint32_t cell, same;
    sweep__volume_cells_of(w, p, p, &cell, &same);
    if (c->first[cell + 1] - c->first[cell] > SWEEP__VOLUME_CLEAR_LIST_MAX)
        return 0.0;
    double clear = c->reach;
    /* Each listed box's distance along each axis, the largest (below 0
     * inside): each a subtraction of p's coordinate, rounded as a step's
     * end's distance from p is, so an end in the box is never found
     * nearer p than this. With SSE2 two axes at a time, (lo - p, p - hi)
     * along x and y, then along z (hi - p negated: p - hi to the bit).
     * From inside a trigger of a box alone, which a step sets off only by
     * crossing its faces, the distance to the nearest face, which is that
     * negated (p - lo is lo - p negated, to the bit). */
#ifdef __SSE2__
    const __m128d pxy = _mm_loadu_pd(&p.x), pz = _mm_set1_pd(p.z), flip = _mm_set_pd(-0.0, 0.0);
    __m128d least = _mm_set1_pd(clear);
    for (uint32_t k = c->first[cell]; k < c->first[cell + 1]; k++) {
        const sweep__volume_form *f = &w->volume_forms[c->items[k]];
        const __m128d xy = _mm_max_pd(_mm_sub_pd(_mm_load_pd(f->lo_xy), pxy), _mm_sub_pd(pxy, _mm_load_pd(f->hi_xy)));
        const __m128d z = _mm_xor_pd(_mm_sub_pd(_mm_load_pd(&f->lo_z), pz), flip);
        __m128d g = _mm_max_pd(xy, z);
        g = _mm_max_sd(g, _mm_unpackhi_pd(g, g));
        if (f->may == SWEEP__MAY_ACROSS)
            g = _mm_andnot_pd(_mm_set_sd(-0.0), g);
        least = _mm_min_sd(least, g);
    }
    clear = _mm_cvtsd_f64(least);
#else
    for (uint32_t k = c->first[cell]; k < c->first[cell + 1]; k++) {
        const sweep__volume_form *f = &w->volume_forms[c->items[k]];
        double g = f->lo_xy[0] - p.x, e = p.x - f->hi_xy[0];
        g = g > e ? g : e;
        e = f->lo_xy[1] - p.y, g = g > e ? g : e;
        e = p.y - f->hi_xy[1], g = g > e ? g : e;
        e = f->lo_z - p.z, g = g > e ? g : e;
        e = p.z - f->hi_z, g = g > e ? g : e;
        if (f->may == SWEEP__MAY_ACROSS)
            g = fabs(g);
        clear = clear < g ? clear : g;
    }
#endif
    return clear;
}

/* 1 when p and q both lie nearer `start` than `clear` along every axis
 * (with SSE2 the six distances at once, without a branch: the same
 * subtractions, so the same answer for finite coordinates, which are all
 * a move has). */
static SWEEP__ALWAYS_INLINE int sweep__volume_near_start(sweep_vec3 p, sweep_vec3 q, sweep_vec3 start, double clear)
{
#ifdef __SSE2__
    const __m128d sign = _mm_set1_pd(-0.0), s = _mm_loadu_pd(&start.x);
    const __m128d dp = _mm_andnot_pd(sign, _mm_sub_pd(_mm_loadu_pd(&p.x), s));
    const __m128d dq = _mm_andnot_pd(sign, _mm_sub_pd(_mm_loadu_pd(&q.x), s));
    const __m128d dz = _mm_andnot_pd(sign, _mm_sub_pd(_mm_set_pd(q.z, p.z), _mm_set1_pd(start.z)));
    const __m128d far = _mm_max_pd(_mm_max_pd(dp, dq), dz);
    return _mm_movemask_pd(_mm_cmplt_pd(far, _mm_set1_pd(clear))) == 3;
#else
    return fabs(p.x - start.x) < clear && fabs(p.y - start.y) < clear && fabs(p.z - start.z) < clear &&
           fabs(q.x - start.x) < clear && fabs(q.y - start.y) < clear && fabs(q.z - start.z) < clear;
#endif
}

/* What volume i of w, a push, hurt or kill volume (its kind) that holds
 * where the step of h seconds ended, does to *a, added to *rep (volume.h
 * says the rule): 1 when it ends the move (a kill). */
static SWEEP__ALWAYS_INLINE int sweep__volume_at_end(const sweep_world *w, uint32_t i, uint32_t kind, sweep_actor *a,
                                                     double h, sweep_volume_report *rep)
{
    if (kind == SWEEP_VOLUME_PUSH) {
        a->velocity = w->volumes[i].velocity;
        a->grounded = 0;
        rep->events |= SWEEP_VOLUME_EV_LAUNCHED;
        rep->launched_by = i;
        return 0;
    }
    if (kind == SWEEP_VOLUME_HURT) {
        rep->damage += w->volume_damage[i] * h;
        rep->events |= SWEEP_VOLUME_EV_HURT;
        rep->hurt_by = i;
        return 0;
    }
    rep->events |= SWEEP_VOLUME_EV_KILLED;
    rep->killed_by = i;
    return 1;
}

/* Applies the volumes of space->world to *a, which a step of h seconds
 * took from `from` to where it is now, and adds what they did to *rep:
 * the volumes looked at are those *sc (of this step) lists, or finds.
 * Returns 1 when the move ends here (a kill volume), 0 to go on. */
/* The same for a step that ends or begins crouched (volume.h, "A crouched
 * body"): a crouched body's test points are its centre moved up and down
 * by lift (up, by how much shorter along it the crouched shape is), its
 * destination's too when a teleport sends it; from_crouched and
 * to_crouched say which ends of the step were crouched (a stance turned
 * at its start), the other's centre is tested alone. Looks at every
 * acting volume: such steps are few. */
int sweep__volumes_crouched(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 from,
                            int from_crouched, int to_crouched, sweep_actor *a, double h, sweep_volume_report *rep,
                            sweep_vec3 lift);

int sweep__volumes_step(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 from,
                        sweep_actor *a, double h, sweep_volume_report *rep, sweep__volume_step_cells *sc);

/* A step with one candidate, cand: when it is a push, hurt or kill volume,
 * what sweep__volumes_step would do, without the call; -1 for the call (a
 * teleport, a trigger). Its box holds the step's end, as the candidate's
 * test found, so the volume holds it when its planes do (medium.h), and
 * no trigger is among the candidates. A body standing in a hurt volume,
 * or falling into a kill volume, meets this at every step, where the call
 * was most of what the volume cost the move. */
static SWEEP__ALWAYS_INLINE int sweep__volume_lone(const sweep_world *w, uint32_t cand, sweep_actor *a, double h,
                                                   sweep_volume_report *rep)
{
    const sweep__volume_form *f = &w->volume_forms[cand];
    if (f->kind == SWEEP_VOLUME_TELEPORT || f->kind >= SWEEP_VOLUME_TRIGGER)
        return -1;
    if (!sweep__medium_within(w, cand, a->position))
        return 0;
    return sweep__volume_at_end(w, cand, f->kind, a, h, rep);
}

/* The same, with what settles most steps inline, before the call: a
 * world without volumes that act after a step (liquids and ladders are
 * not this pass's, core/medium.h), a step of a move that started
 * `clear` away from every such volume (sweep__volume_clearance of
 * `start`, its first step's from) and has not gone that far from where
 * it started, a step neither of whose ends lies in
 * the box round them all, a step no volume may do anything to (of a
 * world whose volumes are in quads, or with both ends in one cell of the
 * grid: nearly every step), and one whose only candidate is a push, hurt
 * or kill volume (sweep__volume_lone). */
static SWEEP__ALWAYS_INLINE int sweep__volumes_after_step(const sweep_space *space, const sweep_config *cfg,
                                                          sweep_vec3 radii, sweep_vec3 from, sweep_actor *a, double h,
                                                          sweep_volume_report *rep, sweep_vec3 start, double clear)
{
    const sweep_world *w = space->world;
    if (w->volume_count == w->volume_mode_count)
        return 0;
    sweep__volume_step_cells sc;
    const sweep_vec3 to = a->position;
    if (sweep__volume_near_start(to, from, start, clear))
        return 0;
    if (w->volume_quad_count) {
        /* The segment's box, which the quads' test wants anyway, against
         * the box round every acting volume first. */
        const sweep_vec3 lo =
            sweep_v3(from.x < to.x ? from.x : to.x, from.y < to.y ? from.y : to.y, from.z < to.z ? from.z : to.z);
        const sweep_vec3 hi =
            sweep_v3(from.x < to.x ? to.x : from.x, from.y < to.y ? to.y : from.y, from.z < to.z ? to.z : from.z);
        if (!sweep__volume_box_meets(w->volume_act_box, lo, hi))
            return 0;
        sc.listed = 1;
        sc.n = sweep__volumes_scan(w, lo, hi, from, to, sc.cand);
        if (sc.n == 0)
            return 0;
        if (sc.n == 1) {
            const int done = sweep__volume_lone(w, sc.cand[0], a, h, rep);
            if (done >= 0)
                return done;
        }
        return sweep__volumes_step(space, cfg, radii, from, a, h, rep, &sc);
    }
    /* Where the acting volumes' box is the grid's (no liquid or ladder
     * lies beyond it), the cells alone say as much as it would: a step
     * outside it reads an edge cell, whose volumes turn it away. */
    if (w->volume_act_inner && !sweep__volume_box_holds(w->volume_act_box, to) &&
        !sweep__volume_box_holds(w->volume_act_box, from))
        return 0;
    uint32_t cf, ct;
    sweep__volume_cells_of(w, from, to, &cf, &ct);
    if (cf == ct) {
        const uint32_t n = sweep__volumes_collect(w, ct, from, to, sc.cand, 0);
        if (n == 0)
            return 0;
        if (n == 1) {
            const int done = sweep__volume_lone(w, sc.cand[0], a, h, rep);
            if (done >= 0)
                return done;
        }
        sc.n = n, sc.listed = 1;
    } else {
        sc.n = SWEEP__VOLUME_CANDIDATES + 1, sc.listed = 0;
    }
    sc.from_cell = cf, sc.to_cell = ct;
    return sweep__volumes_step(space, cfg, radii, from, a, h, rep, &sc);
}

#endif
