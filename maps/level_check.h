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
 *     embedded), or stands inside a mover at its first pose, behind all
 *     its faces (which that test does not see: a ray out crosses the mover
 *     an odd number of times and first meets the back of a face), or
 *     stands inside a solid: five or six of the six axis directions out of
 *     it meet the back of a level face first (five: a solid standing on a
 *     floor that faces up into it).
 *   - spawn-floating: the same player swept down along gravity from the
 *     spawn point meets no level triangle, or meets one farther below
 *     than its height (twice its radius along up) plus the height its
 *     jump reaches (jump_speed^2 / 2g): it would fall first.
 *   - inside-out: a closed shell (below) whose signed volume is negative
 *     and inside which no spawn point lies: its faces point inward, so
 *     players walk into it from outside and are held inside. One around a
 *     spawn point is a room. One whose outside, just behind its largest
 *     face, is enclosed by faces looking away (each of the six axis
 *     directions out of there meets the back of a face first, or nothing:
 *     the void beyond a compiled level's hull; at least two of them a
 *     back, since the way back through the face always meets the shell's
 *     own) is a pocket sealed inside a solid, which no player reaches: a
 *     hollow in brushwork. It is counted (pockets), not reported.
 *   - open-mesh: a piece that looks meant to be solid (no triangles wound
 *     against each other, at most a quarter of its edges of one triangle
 *     once those at its base are left out: a box standing on the floor is
 *     open there; closed with a fan from the middle of its edges of one
 *     triangle, a volume on the side its faces look away from: a yard,
 *     a shaft facing inward, a floor with a pit close on a space they
 *     look into; and faces turned 90 degrees or more from its mean
 *     facing, as a box's sides are, unless every edge of one triangle
 *     lies at its base and it rises above them, as a dome does: a floor
 *     cut into pieces or a terrain is a sheet, however finely it is cut)
 *     with edges of one triangle above its base whose middle
 *     touches no other level triangle and beyond which lies no other
 *     solid (a point just past the edge, in front of its triangle, inside
 *     a solid as for spawn-inside: a beam run into a wall, its end face
 *     gone): a face missing, a hole. One finding per piece, its place one
 *     such edge. A level is usually open at its sky and its floors are
 *     open sheets, so edges of one triangle elsewhere are only counted
 *     (the summary).
 *   - mover-crosses: a mover whose triangles, at SWEEP_CHECK_MOVER_SAMPLES
 *     or more poses along its path (below), its last and one at each
 *     keyframe, cross a level triangle that is not part of a solid (a
 *     closed piece, or one
 *     whose edges of one triangle are all at its base, touch other
 *     triangles or lead into another solid), nor one just behind whose
 *     middle lies the inside of a solid (as for spawn-inside: brushwork,
 *     whose faces cut where brushes meet form no closed pieces though each
 *     bounds a solid): an edge of one passes through the inside of the
 *     other, away from its ends. A door sliding into its wall is a pocket,
 *     not a finding; one moving through a floor sheet presses what it
 *     carries into the level, and so does one going through a solid
 *     piece: crossing, at one pose or two, two of its faces that look
 *     opposite ways, each crossing behind the other face, with air just
 *     outside both (in at one side, out at the other; the two jambs of a
 *     doorway face each other across a gap, a plate's back may rest on a
 *     wall).
 * Pieces are the level's static triangles after welding vertices at
 * exactly the same position, joined by their shared edges; a triangle with
 * a reversed twin (a two-sided surface) and a degenerate one belong to
 * none. Along each edge, the triangles running it one way and those
 * running it the other match in pairs (two solids may meet along an
 * edge); one left over makes an edge of one triangle, more make the piece
 * wound against itself. A piece is a closed shell when nothing is left
 * over.
 *   - teleport-blocked: a teleport volume whose destination has no room
 *     for a player of the map's radii (the level or a mover where it
 *     starts overlaps one there: the teleporter never sends anyone), lies
 *     inside a mover or a solid as for spawn-inside, or lies inside a
 *     teleport volume (its own, or another: the body is sent on at once,
 *     and back again when that one leads here).
 * Everything is deterministic: findings come in a fixed order (spawns in
 * order, then shells, then movers, then teleporters), whatever the
 * machine.
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

/* Poses tested along a mover's path (evenly by path tick, from its first),
 * besides its last: at least this many, more for a thin mover on a long
 * path (no vertex moves half its thinnest side from one to the next), up
 * to one a tick and SWEEP_CHECK_MOVER_MAX_SAMPLES. */
#define SWEEP_CHECK_MOVER_SAMPLES 64u
#define SWEEP_CHECK_MOVER_MAX_SAMPLES 4096u

typedef enum sweep_check_kind {
    SWEEP_CHECK_SPAWN_INSIDE = 0,
    SWEEP_CHECK_SPAWN_FLOATING,
    SWEEP_CHECK_INSIDE_OUT,
    SWEEP_CHECK_OPEN_MESH,
    SWEEP_CHECK_MOVER_CROSSES,
    SWEEP_CHECK_TELEPORT_BLOCKED,
    SWEEP_CHECK_KIND_COUNT
} sweep_check_kind;

/* "spawn-inside", "spawn-floating", "inside-out", "open-mesh",
 * "mover-crosses", "teleport-blocked"; NULL when out of range. */
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
    uint32_t pockets;         /* of which inside-out ones sealed inside a solid (no finding) */
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
