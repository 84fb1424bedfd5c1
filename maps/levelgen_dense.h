/*
 * levelgen_dense.h - generated dense levels: what makes a move costly on
 * real levels (many small triangles near every body, curved surfaces cut
 * into facets, trims and fences walkers press against), at a size asked
 * for, for the core's benchmark and sweep-mapgen --dense.
 *
 * A level is a grid of square rooms in Quake units (player radii 15, 15,
 * 28, gravity 800, steps of 18, walking at 320 units/s), each with the same
 * furniture: a floor cut into cells of four triangles (the cell size a
 * choice: 16 units is several times as fine as the corpus's finest floors
 * near a body, 48 about as fine), walls cut as finely with a doorway to
 * each neighbour, a kerb along the
 * foot of the walls (a 4-unit riser: a step-up each time a body meets it), a
 * steep wedge (56 degrees, 24 high: too steep to walk, low enough to try to
 * step), four columns of 16 facets in 16-unit rings, a low curved hump cut
 * as a patch is, and a fence of posts closer than a body is wide. z is up.
 *
 * Only + - * / and sqrt on doubles, and constants: a (rooms, seed) pair
 * gives the same level, bit for bit, everywhere.
 */
#ifndef SWEEP_MAPS_LEVELGEN_DENSE_H
#define SWEEP_MAPS_LEVELGEN_DENSE_H

#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Is cell a floor cell size sweep_levelgen_dense takes: 8, 12, 16, 24 or
 * 48 units (those that put the doorways on cells)? */
int sweep_levelgen_dense_cell_ok(uint32_t cell);

/* Triangles one room of a dense level of that cell size has, about. */
uint32_t sweep_levelgen_dense_room_triangles(uint32_t cell);

/* Fills an initialised, empty level with a grid of rooms of about
 * target_triangles in all (one room at least) whose floors are cut into
 * cells of `cell` units (each fanned into four triangles from its centre)
 * and whose walls into columns as wide and rows of 16; its rules in Quake
 * units and four spawn points a room. The seed turns the furniture of each
 * room a quarter turn at a time. SWEEP_E_ARG for a target out of range
 * (200 to SWEEP_WORLD_MAX_TRIANGLES / 2) or a cell size not taken,
 * SWEEP_E_NOMEM if memory runs out (the level is then freed). */
sweep_status sweep_levelgen_dense(uint32_t target_triangles, uint32_t cell, uint64_t seed, sweep_level *out);

#ifdef __cplusplus
}
#endif

#endif
