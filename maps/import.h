/*
 * import.h - turning a 3D scene file (anything libassimp reads: Wavefront
 * OBJ, glTF 2.0 .gltf/.glb, FBX, COLLADA, ...) into a sweep_level, for
 * sweep-import. Only the importer links libassimp; the rest of maps/ and
 * the server never see it.
 *
 * What becomes what:
 *   - every triangle of every mesh instance in the node tree, transformed
 *     by its node's global transform, then turned to z up (with
 *     up_axis_y: (x, y, z) -> (x, -z, y), a rotation, so faces keep their
 *     front) and multiplied by scale;
 *   - points and lines are skipped and counted; degenerate triangles (see
 *     sweep_triangle_is_degenerate in core/world.h) are dropped and counted;
 *   - each source material used becomes a map material, named after it
 *     (an unnamed one becomes "material<N>"); ids 1, 2, ... in order of
 *     first use; materials with the same name share an id;
 *   - a node without meshes whose name starts with spawn_prefix (case
 *     insensitive) becomes a spawn point at its origin: the player's
 *     centre, not its feet;
 *   - a node or mesh whose name equals one of `exclude` is left out (a
 *     node with its whole subtree).
 * The level gets the default rules of sweep_level_init (z up, gravity
 * 9.81, radii 0.4/0.4/0.9, step 0.35, 45 degrees, 60 ticks/s).
 */
#ifndef SWEEP_MAPS_IMPORT_H
#define SWEEP_MAPS_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"

typedef struct sweep_import_options {
    int up_axis_y;              /* 1: the file is y up (glTF, most OBJ); 0: already z up */
    double scale;               /* file units to map units, > 0 */
    const char *const *exclude; /* names of nodes or meshes to leave out */
    size_t exclude_count;
    const char *spawn_prefix;   /* NULL: no spawn points from nodes */
    /* Called per mesh instance converted; may be NULL. */
    void (*progress)(void *ctx, uint32_t done, uint32_t total);
    void *progress_ctx;
} sweep_import_options;

typedef struct sweep_import_stats {
    uint32_t meshes;             /* mesh instances converted */
    uint32_t meshes_excluded;    /* mesh instances left out by name (including under excluded nodes) */
    uint32_t nodes_excluded;     /* nodes left out by name */
    uint32_t triangles;          /* kept */
    uint32_t degenerate_dropped;
    uint32_t other_faces_skipped; /* points and lines */
    uint32_t materials;
    uint32_t spawns;             /* from nodes */
    uint64_t exclude_matched;    /* bit i set if exclude[i] matched something (first 64) */
} sweep_import_stats;

/*
 * Reads the scene at path into *out (initialised here). On failure *out is
 * empty, err says why (the file cannot be read, assimp refused it, the
 * scene is incomplete, a coordinate is not finite or out of range, nothing
 * is left to import) and the status is SWEEP_E_GEOMETRY (SWEEP_E_ARG for
 * bad options, SWEEP_E_NOMEM when out of memory).
 */
sweep_status sweep_import_scene(const char *path, const sweep_import_options *opt, sweep_level *out,
                                sweep_import_stats *stats, char *err, size_t errlen);

#endif
