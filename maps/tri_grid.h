/*
 * tri_grid.h - a level's triangles listed by the cells of a uniform grid
 * their boxes reach into, for the level check's questions about a point
 * or an axis-aligned ray (which triangles could hold it, or be met by it)
 * without reading every triangle of the level each time.
 *
 * A query hands back the triangles of the cells its box reaches into,
 * each once and in increasing order: every triangle whose box meets the
 * query's box is among them (a cell is found by rounding down, which
 * never turns an overlap round), and the order is the one a loop over all
 * triangles has, so a test run over the answer finds what that loop
 * finds, ties included. A grid that would hold too many entries (huge
 * triangles across many cells) is not built: its queries then answer
 * every triangle.
 */
#ifndef SWEEP_MAPS_TRI_GRID_H
#define SWEEP_MAPS_TRI_GRID_H

#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"

typedef struct sweep__tri_grid {
    uint32_t triangles; /* of the level */
    int built;          /* 0: every query answers all triangles */
    sweep_vec3 lo;      /* the grid's corner */
    double cell;        /* its cells' side */
    uint32_t dim[3];
    uint32_t *first; /* cell c's triangles: items[first[c] .. first[c + 1]) */
    uint32_t *items;
    uint32_t *seen; /* per triangle: the query that last listed it */
    uint32_t query;
    uint32_t *out; /* a query's answer */
} sweep__tri_grid;

/* Builds the grid over lv's triangles. SWEEP_E_NOMEM, or SWEEP_OK. */
sweep_status sweep__tri_grid_build(sweep__tri_grid *g, const sweep_level *lv);

/* The triangles whose cells reach into lo .. hi, once each, increasing;
 * their count in *n. The array lives until the next query. */
const uint32_t *sweep__tri_grid_query(sweep__tri_grid *g, sweep_vec3 lo, sweep_vec3 hi, uint32_t *n);

void sweep__tri_grid_free(sweep__tri_grid *g);

#endif
