/*
 * import_bsp.h - a Quake 3 level (IBSP version 46, a .bsp file on its own
 * or a member of a .pk3 zip) into a sweep_level, for sweep-import. Only
 * the importer links libzip.
 *
 * What becomes what (the world is the BSP's model 0):
 *   - Collision hull, not the render mesh. Every brush of the world whose
 *     shader's contents stop a player (CONTENTS_SOLID 0x1 or
 *     CONTENTS_PLAYERCLIP 0x10000) becomes a closed convex shell of
 *     triangles facing out: each side's plane is clipped by all the other
 *     planes of the brush, in double precision, a corner within
 *     SWEEP_BSP_PLANE_EPSILON of a plane counting as on it; a side that
 *     keeps no area (a bevel plane, touching the brush along an edge or at
 *     a corner) gives nothing; a side on the plane of an earlier one, or
 *     nearly parallel to it and never more than SWEEP_BSP_COPLANAR_EPSILON
 *     away from it over the brush (one plane rounded two ways), is dropped;
 *     corners closer than SWEEP_BSP_WELD_EPSILON are merged and a corner
 *     lying on another side's edge is inserted into that edge, so
 *     neighbouring sides share their vertices exactly and every edge of a
 *     shell belongs to two of its triangles; a face whose corners all
 *     belong to another face (a sliver thinner than the weld) is kept once.
 *     Brushes left without volume are left out and counted.
 *     Then what nobody can touch is dropped (unless keep_hidden_faces):
 *     each face is cut by every other player-solid brush of the same model
 *     (the world, a func_static, a mover) whose box meets it, as level
 *     compilers cut visible faces (q3map's CSG): the part inside that
 *     brush, or back to back against one of its faces (on its plane,
 *     normals opposite, within its other planes), is dropped, the parts
 *     outside are kept as new polygons. A face on a plane of the other
 *     brush facing the same way is kept whole (a surface both show). "On"
 *     is within SWEEP_BSP_HIDDEN_EPSILON. The shells of the level are then
 *     the boundary of the union of the brushes, closed as a surface but no
 *     longer brush by brush, nor by shared vertices (a cut edge lies on the
 *     face of the brush that cut it, as brushes already meet at T-junctions).
 *     A face of the world (or a piece of one) that comes nowhere within
 *     half a unit of a leaf of the world's BSP tree that is not opaque
 *     (cluster -1: inside structural solid, or the outside q3map fills in
 *     a sealed level) goes too; a leaked level, a tree with an index out
 *     of range or no leaf that is not opaque loses nothing this way. The
 *     import summary counts both as triangles fewer for hidden faces.
 *     Last (unless no_merge_faces, or keep_hidden_faces), the faces and
 *     pieces of faces the model's brushes kept are merged across brushes
 *     as level compilers merge faces (maps/face_merge.h): two on the same
 *     plane, facing the same way, of the same shader (so the same
 *     material and surface flags), sharing an edge (corners of different
 *     brushes within SWEEP_BSP_MERGE_EPSILON are one vertex; a corner of
 *     one lying on the other's edge is put into that edge) become one
 *     when the union is still convex, until none merge; each polygon left
 *     loses its collinear corners and is fanned from its best corner. The
 *     surface covers the same area with fewer, larger triangles; the
 *     summary counts the triangles fewer for merged faces.
 *   - Every player-solid curved patch (face type 2) is tessellated: each
 *     3x3 block of its control grid is a biquadratic Bezier patch, cut
 *     into a grid of quads (each split into two triangles) only as finely
 *     as its curve needs: no point of the exact surface is farther than the
 *     tolerance (sweep_bsp_options.patch_tolerance, SWEEP_BSP_PATCH_TOLERANCE
 *     units by default) from the triangles, a bound the importer proves
 *     for each block (sampled distances plus the interpolation error
 *     between samples), not an estimate. A flat block with evenly spaced
 *     control points is one quad. A whole column (row) of blocks of a
 *     patch is cut alike, so the blocks of one patch share the vertices of
 *     their seams and the patch has no crack; two separate patches that
 *     meet along an edge may cut it differently (each within the tolerance
 *     of the same curve), which leaves a gap of at most twice the
 *     tolerance, far narrower than a player (Quake 3's collision model
 *     has the same gaps, at its 16 units). SWEEP_BSP_PATCH_FIXED gives the
 *     tessellation of older imports, SWEEP_BSP_PATCH_LEVEL x
 *     SWEEP_BSP_PATCH_LEVEL quads a block, whose two patches meeting
 *     along an edge with the same control points split it alike. A patch
 *     is a surface, not a solid, so each triangle is written in both
 *     windings.
 *   - Materials are the shaders those triangles use: the shader's name
 *     (cut to 63 bytes, bytes outside printable ASCII written as '_', and
 *     "~2", "~3", ... appended when two shaders would share a name), its
 *     surface flags in materials.flags (SURF_SLICK 0x2, SURF_LADDER 0x8,
 *     SURF_NOSTEPS 0x2000, ... as Quake 3 numbers them), friction 0 for a
 *     slick surface (Quake 3 applies no ground friction there) and 1 for any
 *     other; ids 1, 2, ... in order of first use.
 *   - Spawn points: every info_player_deathmatch and info_player_start
 *     entity. Quake 3 puts a player's origin 9 units above the spawn
 *     entity's origin, and the player's box is mins (-15, -15, -24), maxs
 *     (15, 15, 32) around that origin; sweep's spawn is the ellipsoid's
 *     centre, which is the centre of that box: the entity's origin plus
 *     (0, 0, 9 + 4).
 *   - func_static brush models are static geometry like the world.
 *   - Movers (the brush model's player-solid brushes and patches, in the
 *     mover's local frame; that frame's origin is the entity's origin
 *     (its origin brush) for what turns, and the centre of the model's
 *     bounds for what only slides):
 *       func_door    slides along "angle"/"angles" (-1 up, -2 down) by
 *                    the model's size along that way, plus 2 (Quake 3
 *                    spreads a model's bounds by one unit each side), minus
 *                    "lip" (8), at "speed" (400 u/s); pingpong, waits
 *                    "wait" seconds (2) open (-1: none).
 *                    Triggered as Quake 3 does: a door with neither
 *                    "targetname" nor "health" opens on a volume, its team's
 *                    ("team" key) bounds grown by 120 units on their
 *                    thinnest axis; a door with a "targetname" opens on the
 *                    volume of the one trigger_multiple, trigger_once or
 *                    func_button that targets it, and on a command when
 *                    there is not exactly one; a door with "health" (shot
 *                    open) on a command. START_OPEN (1) starts it open.
 *                    Blocked: reverse, crush with CRUSHER (4).
 *       func_button  the same with lip 4, speed 40, wait 1, triggered by
 *                    touch (command with "health"); blocked: stop.
 *       func_plat    a lift: rests "height" (or its size plus 2 minus lip
 *                    8) below where it is built, rises at "speed" (200)
 *                    when touched, waits 1 s at the top (Quake 3 ignores
 *                    "wait" here) and comes back down; pingpong; blocked:
 *                    reverse.
 *       func_bobbing origin + height * sin(2 pi (t / speed - phase)) along
 *                    z, or x (spawnflags 1) or y (2); "height" 32, "speed"
 *                    (the period) 4 s, "phase" 0; sampled at import every
 *                    1/SWEEP_BSP_BOB_SAMPLES of a period; loop, always;
 *                    blocked: crush (Quake 3's bobbing movers kill what
 *                    blocks them).
 *       func_train   from the path_corner its "target" names, along the
 *                    chain of target/targetname back to that corner: each
 *                    leg at the departing corner's "speed" (else the
 *                    train's, 100), after waiting its "wait"; the train's
 *                    origin is on the corners; loop, always; blocked: stop.
 *       func_rotating turns about its origin at "speed" degrees/s (100;
 *                    negative turns the other way) about z, or x
 *                    (spawnflags 4) or y (8); a keyframe every
 *                    SWEEP_BSP_TURN_STEP_DEG degrees, quaternions computed
 *                    here; loop, always; blocked: stop.
 *     Volume boxes are grown by the player's half box (15, 15, 28), so a
 *     centre inside the box is exactly a Quake 3 player box touching the
 *     trigger. Mover names are "<classname>_<model number>". A mover that
 *     cannot move (a train without a closed path, a mover without solid
 *     brushes, nonsense numbers) is reported as a warning and stays static.
 *     Other entities are left out and named in one warning by class with
 *     their count ("skipped: 3 x target_speaker, 1 x shooter_rocket (4
 *     entities the importer does not turn into anything)"); a
 *     trigger_multiple or trigger_once whose box opens a door counts as
 *     used; any other trigger_multiple is a trigger volume (core/volume.h,
 *     grown as the other volumes are) named after its "target" (or
 *     "trigger_multiple_<model number>" without one), which tells a game
 *     when a player enters and leaves it. The "gametype" and "!gametype" filters are ignored (every
 *     entity is kept, as in free for all).
 *   - Rules: Quake 3's, in its units (the map's units are "in"): gravity
 *     (0, 0, -g) with g the worldspawn's "gravity" (800), step 18, the
 *     walkable slope acos(0.7) in degrees (45.57), player radii (15, 15,
 *     28), 60 ticks/s, walk 320 u/s, ground acceleration 3200 u/s^2 and air
 *     acceleration 320 u/s^2 (pm_accelerate 10 and pm_airaccelerate 1
 *     times the speed), jumps at 270 u/s, steps of at most 1/30 s, a speed
 *     limit of 3000 u/s or what a fall from the top of the world to its
 *     bottom reaches, if more, and a correction threshold of 8 units;
 *     crouching as Quake 3 ducks: radii (15, 15, 20) (the box's top 16
 *     above the origin instead of 32, its bottom where it was) at 80 u/s.
 *     sweep-import --rules applies its file after these.
 *
 * Every malformed input is refused with a message naming the lump and the
 * record (a truncated file, a bad magic or version, a lump out of the file
 * or of a size that is no whole number of records, counts or indices out
 * of range, numbers that are not finite, unreadable entity text), never an
 * assertion or a crash.
 */
#ifndef SWEEP_MAPS_IMPORT_BSP_H
#define SWEEP_MAPS_IMPORT_BSP_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"

/* The most a patch's triangles may stray from its curved surface (units)
 * unless sweep_bsp_options says otherwise: Quake 3's renderer cuts patches
 * to the same distance (r_subdivisions, 4 by default), so the collision
 * surface is as near the true one as the picture is. On the corpus it
 * cuts the patch triangles of patch-heavy levels to a fifth or less and
 * takes 12% of dm6's instructions a move (docs/performance.md); 2 units
 * keeps more triangles than the fixed grid on six levels. */
#define SWEEP_BSP_PATCH_TOLERANCE 4.0
/* sweep_bsp_options.patch_tolerance for the fixed tessellation: every 3x3
 * Bezier block of a patch cut into SWEEP_BSP_PATCH_LEVEL x
 * SWEEP_BSP_PATCH_LEVEL quads, as before the tolerance existed. */
#define SWEEP_BSP_PATCH_FIXED (-1.0)
#define SWEEP_BSP_PATCH_LEVEL 4
/* The most quads along one side of a block, whatever the tolerance. */
#define SWEEP_BSP_PATCH_MAX_STEPS 16
/* Corners of a brush's sides closer than this (units) are one vertex. */
#define SWEEP_BSP_WELD_EPSILON 0.1
/* A corner this close to a plane (units) is on it when clipping. */
#define SWEEP_BSP_PLANE_EPSILON 0.05
/* Two sides of a brush whose planes stay this close (units) over the
 * brush are one side. */
#define SWEEP_BSP_COPLANAR_EPSILON 0.25
/* A point this close (units, at the origin; the allowance grows with the
 * plane's distance from it) to another brush's plane is on it when brush
 * faces are cut by other brushes to drop what nobody can touch. */
#define SWEEP_BSP_HIDDEN_EPSILON 1e-3
/* When coplanar faces are merged: corners of different brushes' faces
 * this close (units) are one vertex, and a corner this close to the line
 * through its neighbours is on it (see maps/face_merge.h). */
#define SWEEP_BSP_MERGE_EPSILON 0.01
/* Keyframes per period of a func_bobbing. */
#define SWEEP_BSP_BOB_SAMPLES 32
/* Degrees between keyframes of a func_rotating. */
#define SWEEP_BSP_TURN_STEP_DEG 15.0

typedef struct sweep_bsp_options {
    /* The .bsp member of a .pk3 to import ("maps/NAME.bsp", any case).
     * NULL: the file is a .bsp, or a .pk3 holding exactly one. */
    const char *member;
    /* Called with each warning (a mover left static, ...); may be NULL. */
    void (*warn)(void *ctx, const char *message);
    void *warn_ctx;
    /* 1: every brush face whole, each brush a closed shell of its own (no
     * hidden face is dropped); for comparing and debugging. */
    int keep_hidden_faces;
    /* The most (units) a patch's triangles may stray from the curved
     * surface: 0 means SWEEP_BSP_PATCH_TOLERANCE, SWEEP_BSP_PATCH_FIXED the
     * fixed tessellation; anything else must be in (0, 1e6]. */
    double patch_tolerance;
    /* 1: the faces left after hidden faces are cut away are fanned piece
     * by piece, as before face merging existed, instead of merged across
     * brushes; for comparing and debugging. No effect with
     * keep_hidden_faces (each brush is then a shell of its own). */
    int no_merge_faces;
} sweep_bsp_options;

typedef struct sweep_bsp_stats {
    uint32_t brushes;            /* brushes of the world model */
    uint32_t brushes_solid;      /* of which player-solid: made shells */
    uint32_t brushes_empty;      /* player-solid ones without volume, left out */
    uint32_t patches;            /* player-solid patches tessellated (world, static models, movers) */
    uint32_t triangles;          /* static triangles written */
    uint32_t patch_triangles;    /* of which from patches */
    uint32_t degenerate_dropped; /* triangles too thin to collide, not written */
    uint32_t hidden_dropped;     /* brush triangles fewer for the hidden faces dropped (net of the cuts) */
    uint32_t merge_dropped;      /* brush triangles fewer for merging coplanar faces */
    uint32_t materials;
    uint32_t spawns;
    uint32_t static_models;      /* func_static models merged into the static geometry */
    uint32_t movers;
    uint32_t mover_triangles;
    uint32_t entities;
    uint32_t jump_pads;          /* trigger_push entities made volumes (one per brush) */
    uint32_t teleporters;        /* trigger_teleport likewise */
    uint32_t hurts, kills;       /* trigger_hurt: hurting, and killing (one touch takes 200 or more) */
    uint32_t liquids;            /* world brushes of lava, slime or water made liquid volumes */
    uint32_t ladders;            /* world brushes with a SURF_LADDER side made ladder volumes */
    uint32_t triggers;           /* trigger_multiple that opens no door: trigger volumes named by its target */
    uint32_t entities_skipped;   /* not turned into anything: named by class in one warning */
    uint32_t warnings;
    double walkable_slope_deg;   /* the slope the level was given, for the map writer */
} sweep_bsp_stats;

/*
 * Reads the level at path (a .bsp, or opt->member of a .pk3; a file that
 * starts as a zip is taken for a .pk3) into *out, initialised here and
 * named after the .bsp without folder or extension. opt and stats may be
 * NULL. On failure *out is empty, err says why and the status is
 * SWEEP_E_GEOMETRY (SWEEP_E_NOMEM when out of memory, SWEEP_E_ARG for
 * NULL arguments).
 */
sweep_status sweep_import_bsp(const char *path, const sweep_bsp_options *opt, sweep_level *out,
                              sweep_bsp_stats *stats, char *err, size_t errlen);

/* The same from a .bsp already in memory; `label` names it in messages. */
sweep_status sweep_import_bsp_memory(const void *data, size_t size, const char *label,
                                     const sweep_bsp_options *opt, sweep_level *out, sweep_bsp_stats *stats,
                                     char *err, size_t errlen);

/*
 * The .bsp members of the .pk3 at path, in the zip's order: *names is a
 * malloc'ed array of *count malloc'ed strings (free with
 * sweep_bsp_list_free). 0 and err on failure.
 */
int sweep_bsp_list(const char *path, char ***names, uint32_t *count, char *err, size_t errlen);
void sweep_bsp_list_free(char **names, uint32_t count);

/* 1 if path names a .bsp or .pk3 file (by its extension, any case). */
int sweep_bsp_is_input(const char *path);

/* Puts Quake 3's movement rules into lv (see above) for gravity g > 0 and
 * a world height h >= 0 (units); returns the walkable slope in degrees. */
double sweep_bsp_rules(sweep_level *lv, double g, double h);

#endif
