/*
 * level_check.h - what is wrong with a level, told as a level designer
 * needs it: a kind, a place and a sentence per finding. sweep-import runs
 * it on every level it makes (the findings are its warnings) and on a map
 * with --check.
 *
 * What is looked for:
 *   - spawn-inside: a spawn point whose player (the level's default radii)
 *     overlaps the level or a mover at its first pose (the server's own
 *     test, place.c: a move of a millionth of a unit that starts
 *     embedded), or stands inside a solid: every axis direction out of it
 *     meets the back of a level face first.
 *   - spawn-floating: the same player swept down along gravity from the
 *     spawn point meets nothing, or meets a floor more than a player's
 *     height (twice radii.z) below its feet.
 *   - inside-out: a closed shell (below) whose signed volume is negative:
 *     its faces point inward, so players walk into it from outside and
 *     are held inside it.
 *   - open-mesh: a mesh that is nearly a closed shell (at most a quarter
 *     of its edges belong to one triangle) but has edges of one triangle
 *     that touch no other triangle of the level (a face missing from a
 *     solid, a hole): one finding per mesh, the place one such edge. A
 *     level is usually open at its sky and its floors are open sheets, so
 *     edges of one triangle elsewhere are only counted (the summary).
 *   - mover-crosses: a mover whose triangles, at SWEEP_CHECK_MOVER_SAMPLES
 *     poses along its path (and its first and last), cross a level
 *     triangle: an edge of one passes through the other deeper than the
 *     tolerance. A player it carries or pushes would be pressed into the
 *     wall.
 * Meshes here are the level's static triangles after welding vertices at
 * exactly the same position, split into the pieces their shared edges
 * join; a triangle with a reversed twin (a two-sided surface) and a
 * degenerate one belong to none. A piece is a closed shell when each of
 * its edges belongs to exactly two of its triangles, running it in
 * opposite directions.
 * Everything is deterministic: findings come in a fixed order (spawns in
 * order, then shells, then movers), whatever the machine.
 */
#ifndef SWEEP_MAPS_LEVEL_CHECK_H
#define SWEEP_MAPS_LEVEL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/vec3.h"
#include "maps/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Poses tested along a mover's path, besides its first and last. */
#define SWEEP_CHECK_MOVER_SAMPLES 64u

typedef enum sweep_check_kind {
    SWEEP_CHECK_SPAWN_INSIDE = 0,
    SWEEP_CHECK_SPAWN_FLOATING,
    SWEEP_CHECK_INSIDE_OUT,
    SWEEP_CHECK_OPEN_MESH,
    SWEEP_CHECK_MOVER_CROSSES,
    SWEEP_CHECK_KIND_COUNT
} sweep_check_kind;

/* "spawn-inside", "spawn-floating", "inside-out", "open-mesh",
 * "mover-crosses"; NULL when out of range. */
const char *sweep_check_kind_name(sweep_check_kind k);

typedef struct sweep_check_finding {
    sweep_check_kind kind;
    sweep_vec3 at;  /* where, in map coordinates */
    char text[384]; /* one sentence, naming the spawn point, mesh or mover */
} sweep_check_finding;

typedef struct sweep_check_summary {
    uint32_t findings;
    uint32_t by_kind[SWEEP_CHECK_KIND_COUNT];
    uint32_t meshes;          /* pieces of one-sided static triangles */
    uint32_t shells;          /* of which closed shells */
    uint32_t one_sided_edges; /* edges of one triangle only, in every piece */
    sweep_vec3 one_sided_at;  /* the middle of the first of them */
} sweep_check_summary;

/* Called with each finding, in order; the finding lives for the call. */
typedef void (*sweep_check_report)(void *ctx, const sweep_check_finding *f);

/*
 * Checks lv (its static triangles, spawns, movers and rules). report may
 * be NULL; sum is filled (may be NULL). SWEEP_OK however many findings;
 * SWEEP_E_NOMEM, or SWEEP_E_GEOMETRY when the core refuses the level, with
 * err saying why.
 */
sweep_status sweep_level_check(const sweep_level *lv, sweep_check_report report, void *ctx,
                               sweep_check_summary *sum, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
