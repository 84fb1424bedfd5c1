/*
 * volume_step.h - internal: what the world's volumes do after one step of
 * sweep_act (core/volume.h says the rule; core/motion.c calls it). Not
 * installed.
 */
#ifndef SWEEP_CORE_VOLUME_STEP_H
#define SWEEP_CORE_VOLUME_STEP_H

#include "core/compiler.h"
#include "core/crowd.h"
#include "core/motion.h"
#include "core/volume.h"
#include "core/world_impl.h"

/* Boxes a step's segment from .. to meets (candidates) are listed first,
 * up to this many; a step among more tests every volume. */
#define SWEEP__VOLUME_CANDIDATES 64u

/* A step's candidates: the box lo .. hi of its segment and, when
 * listed, the volumes that may do something to it (sweep__volume_may), n
 * of them in index order (n > SWEEP__VOLUME_CANDIDATES: too many to list,
 * every volume is looked at). Through the grid (world_impl.h), the cells
 * (x, y, z) of lo then of hi; a segment across cells is not listed, and
 * sweep__volumes_step merges their lists. */
typedef struct sweep__volume_step_cells {
    sweep_vec3 lo, hi;
    uint32_t cell[6];
    int listed;
    uint32_t n;
    uint32_t cand[SWEEP__VOLUME_CANDIDATES + 1];
} sweep__volume_step_cells;

/* Adds to cand[0 .. n) the volumes of cell c whose boxes meet lo .. hi
 * and that may do something to the step from .. to, up to one more than
 * SWEEP__VOLUME_CANDIDATES; the new count. Without a branch on either
 * test, and the first entry read even from an empty list (the next
 * list's, or the one the items end with: volume.c) and then counted for
 * nothing: most cells list no volume or one, and which, step after step,
 * was a branch the processor guessed wrong (ctf3, 66 volumes through the
 * grid: near moves whose volumes did nothing 1.13 times a move without
 * them, 1.10 so; docs/performance.md). */
static SWEEP__ALWAYS_INLINE uint32_t sweep__volumes_collect(const sweep_world *w, uint32_t c, sweep_vec3 lo,
                                                            sweep_vec3 hi, sweep_vec3 from, sweep_vec3 to,
                                                            uint32_t *cand, uint32_t n)
{
    const uint32_t *list = w->volume_cell_items + w->volume_cell_first[c];
    uint32_t len = w->volume_cell_first[c + 1] - w->volume_cell_first[c];
    for (uint32_t k = 0; (k < len || k == 0) && n <= SWEEP__VOLUME_CANDIDATES; k++) {
        const sweep_vec3 *b = w->volume_boxes[list[k]];
        unsigned meets = (b[0].x <= hi.x) & (b[1].x >= lo.x) & (b[0].y <= hi.y) & (b[1].y >= lo.y) &
                         (b[0].z <= hi.z) & (b[1].z >= lo.z) & (k < len);
        cand[n] = list[k];
        n += meets & sweep__volume_may(w, list[k], from, to);
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

/* Applies the volumes of space->world to *a, which a step of h seconds
 * took from `from` to where it is now, and adds what they did to *rep:
 * the volumes looked at are those *sc (of this segment) lists, or finds.
 * Returns 1 when the move ends here (a kill volume), 0 to go on. */
int sweep__volumes_step(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 from,
                        sweep_actor *a, double h, sweep_volume_report *rep, sweep__volume_step_cells *sc);

/* The same, with what settles most steps inline, before the call: a
 * world without volumes that act after a step (liquids and ladders are
 * not this pass's, core/medium.h), a segment away from all of them, and a
 * segment no volume may do anything to: of a world whose volumes are in
 * quads, or within one cell of the grid (nearly every step). Only a
 * volume whose box meets the box of the segment can hold either end. */
static SWEEP__ALWAYS_INLINE int sweep__volumes_after_step(const sweep_space *space, const sweep_config *cfg,
                                                          sweep_vec3 radii, sweep_vec3 from, sweep_actor *a,
                                                          double h, sweep_volume_report *rep)
{
    const sweep_world *w = space->world;
    if (w->volume_count == w->volume_mode_count)
        return 0;
    sweep__volume_step_cells sc;
    const sweep_vec3 to = a->position;
    sc.lo = sweep_v3(from.x < to.x ? from.x : to.x, from.y < to.y ? from.y : to.y, from.z < to.z ? from.z : to.z);
    sc.hi = sweep_v3(from.x < to.x ? to.x : from.x, from.y < to.y ? to.y : from.y, from.z < to.z ? to.z : from.z);
    if (!sweep__volume_box_meets(w->volume_act_box, sc.lo, sc.hi))
        return 0;
    if (w->volume_quad_count) {
        sc.listed = 1;
        sc.n = sweep__volumes_scan(w, sc.lo, sc.hi, from, to, sc.cand);
        return sc.n ? sweep__volumes_step(space, cfg, radii, from, a, h, rep, &sc) : 0;
    }
    /* The cells of the box's corners, in pairs (sweep__volume_cell2). */
    const double *inv = w->volume_cell_inv;
    const sweep_vec3 o = w->volume_lo;
    const uint32_t grid = w->volume_grid, grid_z = w->volume_grid_z;
    uint32_t *cell = sc.cell;
    sweep__volume_cell2(sc.lo.x, o.x, inv[0], grid, sc.lo.y, o.y, inv[1], grid, &cell[0], &cell[1]);
    sweep__volume_cell2(sc.hi.x, o.x, inv[0], grid, sc.hi.y, o.y, inv[1], grid, &cell[3], &cell[4]);
    sweep__volume_cell2(sc.lo.z, o.z, inv[2], grid_z, sc.hi.z, o.z, inv[2], grid_z, &cell[2], &cell[5]);
    sc.listed = (cell[0] == cell[3]) & (cell[1] == cell[4]) & (cell[2] == cell[5]);
    sc.n = SWEEP__VOLUME_CANDIDATES + 1;
    if (sc.listed) {
        sc.n = sweep__volumes_collect(w, (cell[2] * grid + cell[1]) * grid + cell[0], sc.lo, sc.hi, from, to,
                                      sc.cand, 0);
        if (sc.n == 0)
            return 0;
    }
    return sweep__volumes_step(space, cfg, radii, from, a, h, rep, &sc);
}

#endif
