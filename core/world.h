/*
 * world.h - static level geometry prepared for collision queries.
 *
 * A world is built once from an indexed triangle list (the maps loader does
 * this from a SQLite map; tests and benchmarks from generated levels) and is
 * read-only afterwards, so any number of moves may query it at once from
 * any number of threads without locking.
 *
 * The front of a triangle (a, b, c) is the side that cross(b - a, c - a)
 * points to; the ellipsoid collides only with front faces. Triangles whose
 * area is zero or negligible against their edge lengths (collinear, needle or
 * repeated vertices) cannot give a usable plane: they are counted in
 * sweep_world_info.degenerate_count and left out of collision.
 *
 * Every triangle keeps the index it had in the description. That index is
 * the stable key that breaks ties between equal times of impact and the
 * number reported in contacts, so it must not depend on load order quirks.
 */
#ifndef SWEEP_CORE_WORLD_H
#define SWEEP_CORE_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Upper bound on triangles in one world (indices stay below 2^31). */
#define SWEEP_WORLD_MAX_TRIANGLES (1u << 30)

/* The value of a triangle index that names no triangle. */
#define SWEEP_NO_TRIANGLE UINT32_MAX

typedef struct sweep_world sweep_world;

/*
 * 1 if the triangle (a, b, c) cannot give a usable plane: twice its area is
 * not above 1e-8 times its longest edge squared (repeated vertices,
 * collinear points, needles). Exported so the map loader and importer drop
 * exactly what the core would, and triangle indices agree everywhere.
 */
int sweep_triangle_is_degenerate(sweep_vec3 a, sweep_vec3 b, sweep_vec3 c);

typedef struct sweep_world_desc {
    const sweep_vec3 *vertices;
    uint32_t vertex_count;
    const uint32_t *indices;   /* 3 per triangle, into vertices */
    const uint32_t *materials; /* one per triangle; NULL means material 0 everywhere */
    uint32_t triangle_count;
} sweep_world_desc;

typedef struct sweep_world_info {
    uint32_t triangle_count;   /* triangles in the description */
    uint32_t degenerate_count; /* of those, left out of collision */
    uint32_t node_count;       /* BVH nodes (of up to 4 children each) */
    uint32_t bvh_depth;        /* nodes from the root to the deepest leaf, root = 1 */
    size_t bytes;              /* memory the world holds */
    sweep_vec3 bounds_min;     /* of the collidable triangles; zero if none */
    sweep_vec3 bounds_max;
} sweep_world_info;

/*
 * Builds a world from desc. Fails with SWEEP_E_GEOMETRY if a vertex is not
 * finite, an index is out of range or there are more than
 * SWEEP_WORLD_MAX_TRIANGLES triangles; SWEEP_E_NOMEM if memory runs out.
 * Zero triangles is allowed (an empty world collides with nothing).
 * SWEEP_E_ARG for NULL desc or out, or a NULL vertices or indices that
 * the description counts entries of. On failure *out is left untouched.
 */
sweep_status sweep_world_create(const sweep_world_desc *desc, sweep_world **out);

void sweep_world_destroy(sweep_world *world);

/* Fills *out (nothing if out is NULL; all zero if world is NULL). */
void sweep_world_get_info(const sweep_world *world, sweep_world_info *out);

/*
 * Prepares the world for bodies of these radii (a map's default player
 * shape): each triangle's ellipsoid-space form, which every move otherwise
 * makes again for every triangle it comes near, is made once here. Moves of
 * bodies with exactly these radii then take it from the world; other radii
 * make their own. Only speed and memory change (about 200 bytes a
 * triangle, counted in sweep_world_info.bytes): a move's result is the
 * same bits either way. Replaces an earlier preparation. Not safe while
 * other threads move bodies in this world: call it before sharing it.
 * SWEEP_E_RADII unless every radius is finite and above zero;
 * SWEEP_E_NOMEM leaves the world as it was.
 */
sweep_status sweep_world_prepare_radii(sweep_world *world, sweep_vec3 radii);

#ifdef __cplusplus
}
#endif

#endif
