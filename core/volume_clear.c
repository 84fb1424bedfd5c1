/*
 * volume_clear.c - which volumes that act after a step lie near each
 * cell of the volumes' grid (sweep__volume_clear, world_impl.h), for a
 * move to know at its start how far it may go before one of its steps
 * could end in one.
 *
 * Nearly every move of a level with volumes is made away from them.
 * Asking the grid at each of its steps whether the step's ends lie in a
 * volume's box costs a few dozen instructions a step, most of them a
 * chain of loads, for nothing; so a move reads its start's cell once,
 * measures the few volumes listed there, and each step compares its ends
 * with that start (volume_step.h).
 *
 * The lists hold each volume grown by twice the reach along every axis,
 * and a move is told only the reach: a place whose cell does not list a
 * volume lies more than twice the reach from it, as the grid's cells are
 * found (rounded), so more than the reach in exact arithmetic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/volume_step.h"
#include "core/world_impl.h"

/* The reach, as a fraction of the narrowest side of a cell. An eighth:
 * grown by twice that, a volume is listed in the cells next to its own
 * only when it lies within a quarter of a cell of their side, and a move
 * of a Quake 3 level may go 12 to 70 units unlooked at (its player walks
 * 5 a tick). */
#define REACH_OF_CELL 0.125

static int acts(const sweep_volume *v)
{
    return v->kind != SWEEP_VOLUME_LIQUID && v->kind != SWEEP_VOLUME_LADDER;
}

/* The cells [c0, c1] along each axis that v's box grown by twice the
 * reach reaches into. */
static void grown_cells(const sweep_volume *v, double reach, const double o[3], const double inv[3],
                        const uint32_t dim[3], uint32_t c0[3], uint32_t c1[3])
{
    const double vl[3] = {v->lo.x, v->lo.y, v->lo.z}, vh[3] = {v->hi.x, v->hi.y, v->hi.z};
    for (int a = 0; a < 3; a++) {
        c0[a] = sweep__volume_cell(vl[a] - 2.0 * reach, o[a], inv[a], dim[a]);
        c1[a] = sweep__volume_cell(vh[a] + 2.0 * reach, o[a], inv[a], dim[a]);
    }
}

sweep_status sweep__volume_clear_make(const sweep_volume *v, uint32_t n, sweep_vec3 lo, const double inv[3],
                                      uint32_t grid, uint32_t grid_z, sweep__volume_clear *out)
{
    memset(out, 0, sizeof *out);
    uint32_t acting = 0;
    for (uint32_t i = 0; i < n; i++)
        acting += acts(&v[i]);
    if (!acting)
        return SWEEP_OK;
    /* A cell's narrowest side (along an axis where the volumes' box has
     * no extent the cells have none; where it has none along any, no
     * reach at all). */
    double side = INFINITY;
    for (int a = 0; a < 3; a++)
        if (inv[a] > 0.0)
            side = fmin(side, 1.0 / inv[a]);
    /* A reach lost in the coordinates' rounding is none: a volume's face
     * grown by twice the reach is rounded by half a unit in the last
     * place of its coordinate, which the reach must be far above. */
    double far = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double c[6] = {v[i].lo.x, v[i].lo.y, v[i].lo.z, v[i].hi.x, v[i].hi.y, v[i].hi.z};
        for (int k = 0; k < 6; k++)
            far = fmax(far, fabs(c[k]));
    }
    double reach = side * REACH_OF_CELL;
    if (!isfinite(reach) || !(reach > 1e-9 * far))
        reach = 0.0;
    const double o[3] = {lo.x, lo.y, lo.z};
    const uint32_t dim[3] = {grid, grid, grid_z};
    const uint32_t cells = grid * grid * grid_z;
    /* Grown, a volume may be listed in three times the cells along each
     * axis the grid lists it in. Past a million entries (thousands of
     * volumes as large as the level: a map's, which is outside input;
     * a level of tens of volumes lists a few hundred) there are none,
     * and every step looks, as with the grid alone: most of those cells
     * would list more than a start is told of anyway. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c0[3], c1[3];
        if (acts(&v[i])) {
            grown_cells(&v[i], reach, o, inv, dim, c0, c1);
            total += (uint64_t)(c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1);
        }
    }
    if (total > ((uint64_t)1 << 20))
        return SWEEP_OK;
    uint32_t *first = calloc((size_t)cells + 1, sizeof *first), *items = NULL, *at = NULL;
    if (!first)
        return SWEEP_E_NOMEM;
    /* Counted first, then filled, each list in volume order. */
    for (int fill = 0; fill < 2; fill++) {
        if (fill) {
            for (uint32_t c = 0; c < cells; c++)
                first[c + 1] += first[c];
            items = malloc(((size_t)first[cells] + 1) * sizeof *items);
            at = calloc(cells, sizeof *at);
            if (!items || !at) {
                free(first), free(items), free(at);
                return SWEEP_E_NOMEM;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            if (!acts(&v[i]))
                continue;
            uint32_t c0[3], c1[3];
            grown_cells(&v[i], reach, o, inv, dim, c0, c1);
            for (uint32_t z = c0[2]; z <= c1[2]; z++)
                for (uint32_t y = c0[1]; y <= c1[1]; y++)
                    for (uint32_t x = c0[0]; x <= c1[0]; x++) {
                        const uint32_t c = (z * grid + y) * grid + x;
                        if (fill)
                            items[first[c] + at[c]++] = i;
                        else
                            first[c + 1]++;
                    }
        }
    }
    free(at);
    out->first = first;
    out->items = items;
    out->reach = reach;
    return SWEEP_OK;
}
