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
 *     front) and multiplied by scale; where the transform mirrors (its
 *     linear part has a negative determinant: a negative scale) the
 *     triangle's winding is reversed, as glTF says, so that it keeps its
 *     front (volume shells and movers' meshes too);
 *   - points and lines are skipped and counted; degenerate triangles (see
 *     sweep_triangle_is_degenerate in core/world.h) are dropped and counted;
 *   - a vertex that is not a finite number, in a mesh that is imported
 *     (not excluded), is refused, naming the mesh, its node and the
 *     vertex's index in the file's mesh;
 *   - each source material used becomes a map material, named after it
 *     (an unnamed one becomes "material<N>"); ids 1, 2, ... in order of
 *     first use; materials with the same name share an id;
 *   - a node without meshes whose name starts with spawn_prefix (case
 *     insensitive), other than the root (which assimp names after an OBJ
 *     file), becomes a spawn point at its origin: the player's centre,
 *     not its feet; one at the file's origin (an OBJ object always is,
 *     whatever its vertices say) and a spawn-named node holding meshes
 *     (imported as geometry, no spawn) are each warned about by name;
 *   - a node without meshes or children that becomes nothing (a light, a
 *     camera, an empty node) is counted by kind in one warning
 *     ("skipped: 2 x empty node, 1 x light ...");
 *   - a node or mesh whose name equals one of `exclude` is left out (a
 *     node with its whole subtree);
 *   - a mover node (below) becomes a mover instead of static geometry,
 *     with its whole subtree.
 * The files a scene names (a glTF's buffers, an OBJ's .mtl) are read only
 * when they are regular files in the scene's folder or below it, symbolic
 * links resolved (a buffer naming a FIFO would hang the import, one naming
 * ../x or an absolute path would read any file); a scene naming any other
 * is refused, the file named, as is a scene that is not a regular file.
 * The level gets the default rules of sweep_level_init (z up, gravity
 * 9.81, radii 0.4/0.4/0.9, step 0.35, 45 degrees, 60 ticks/s).
 *
 * One-sided triangles and open meshes. Players collide with the front of a
 * map triangle only (schema.sql), but a render mesh is often an open sheet
 * (a floor plane, a terrain, a wall seen from one side) drawn with
 * back-face culling off; imported one-sided, a player would rise through
 * that floor from below or walk out through the wall from behind. So each
 * mesh is sorted, per node instance and destination (the static level or
 * one mover), the node's meshes together (assimp splits an OBJ object or a
 * glTF mesh into one mesh per material):
 *   - closed: every edge of its kept triangles, after welding vertices at
 *     exactly the same position (exports repeat a vertex per face for its
 *     normals and UVs), belongs to exactly two triangles that run along it
 *     in opposite directions, i.e. a watertight, consistently wound shell;
 *     a player outside cannot reach its inside, and it stays one-sided;
 *   - open: anything else (a boundary edge, an edge of three or more
 *     triangles, two neighbours wound against each other).
 * sides says what becomes of them: SWEEP_SIDES_AUTO (the default, 0) makes
 * an open mesh two-sided: after the mesh's last triangle come the reversed
 * twins (a, c, b) of its triangles, in order, on the same vertices and with
 * the same materials;
 * SWEEP_SIDES_ONE keeps every triangle as the file winds it;
 * SWEEP_SIDES_TWO doubles every mesh, closed or not. Under AUTO and ONE an
 * open mesh is reported through `warning` once per distinct mesh (its
 * instances counted), naming it with its boundary edges. A material named
 * in two_sided_materials is doubled wherever it is used and one named in
 * one_sided_materials never is, whatever the mesh rule and sides say; the
 * mesh rule decides only the other triangles, and a mesh whose triangles
 * all follow a material option is not reported. Movers' meshes follow the
 * same rules (a mover is checked apart from the static level).
 * Twins count in stats->triangles or stats->mover_triangles, and in
 * stats->twins.
 *
 * Merged faces (unless no_merge_faces). Once every node's static
 * triangles are in and each node is found closed or open, and before any
 * twins are made, they are merged as the Quake 3 importer merges brush
 * faces (maps/face_merge.h):
 * per plane, facing and material, pieces that share an edge become larger
 * convex polygons, cut again into triangles, so a subdivided floor is a
 * few triangles, not hundreds (parts of at most 1,024 triangles, cut
 * across the floor's wider side). A plane is one when every corner lies
 * within a millionth of the node's size of the first triangle's plane, so
 * floors at an angle merge too. A corner that other triangles still use
 * (the node's or another node's) stays a corner (no T-junction is made),
 * so a closed shell stays closed edge for edge; a part keeps its own
 * triangles unless its merge comes out in fewer, covering the same area
 * (to within the tolerance times its outline), each facing the plane's
 * way; vertices no triangle uses any more go. Triangles of two nodes are
 * never merged together. Each node's twins then follow its triangles, as
 * they would unmerged. The static triangles fewer
 * are stats->merge_dropped (triangles counts what is kept).
 *
 * Movers from the scene (glTF node animations, or any format assimp reads
 * animations from). A node is a mover when its name starts with
 * mover_prefix (any case; the mover is named after the rest: "mover_lift"
 * is "lift") or when its glTF extras hold "sweep_mover" (assimp 5.2 turns a
 * node's extras into its aiNode metadata):
 *     "extras": {"sweep_mover": {"name": "lift", "mode": "pingpong",
 *         "trigger": "volume", "blocked": "reverse", "wait_start": 1,
 *         "wait_end": 2, "volume": [minx, miny, minz, maxx, maxy, maxz]}}
 * Every key is optional ("sweep_mover": {} or true is enough); unknown keys
 * are refused; the defaults are pingpong, always, stop, no waits; the name
 * defaults to the node's (without the prefix). The volume is a world box
 * in map coordinates (z up, after scale), like the side file's, and is kept
 * only with trigger volume (a map stores no box for the others).
 *   - Its mesh is the meshes of the node and of its subtree in the node's
 *     own frame (the node's scale baked in: a negative one mirrors the
 *     mesh, rewound as above), turned z up and scaled; the pose carries
 *     where the node is.
 *   - Its path is the first animation channel that targets the node
 *     (animations in file order, channels in assimp's order; later ones
 *     are counted in stats->channels_ignored): its position and rotation
 *     keys merged on one time line (ticks / ticks per second, 25 ticks/s
 *     when the file gives none), the position lerped and the rotation
 *     nlerped at each merged time, here at import.
 *     Time 0 of the animation is the start of the path: keys that start
 *     later get a first keyframe at time 0 holding the first pose.
 *   - Each pose is the node's animated local transform under its parents'
 *     rest transforms, turned z up (positions through (x, y, z) -> (x, -z,
 *     y) and rotations conjugated by the same turn: q' = r q r^-1), then
 *     scaled; quaternions are unit.
 *   - Refused, with the node named: a mover without an animation channel
 *     or with fewer than two distinct key times; a scale that changes over
 *     the animation; two keys of one kind at the same time (step jumps);
 *     parents that scale unevenly, shear or mirror (the mover would not stay
 *     rigid); a mover inside another; two movers of one name; bad extras.
 *     glTF STEP and CUBICSPLINE samplers come through assimp 5.2 as plain
 *     keys (CUBICSPLINE without its tangents) and are interpolated
 *     linearly like LINEAR ones.
 * An animated node that is not a mover stays at its rest pose, in the
 * static geometry or in the mover it lies in (counted in
 * stats->animated_static).
 *
 * Movers from a side file (movers_path), for formats without animations
 * (OBJ) or to set the rules of scene movers. A line-based text file; '#'
 * starts a comment, names may be "double quoted", all coordinates are map
 * coordinates (z up, after up axis and scale), like the spawn file's:
 *     mover NAME [RULE...]   starts a mover block; RULEs may also be lines
 *                            of their own in the block:
 *       mode once|loop|pingpong       (default pingpong)
 *       trigger always|volume|touch|command  (default always)
 *       blocked stop|reverse|crush    (default stop)
 *       wait START END                seconds at the start and at the end
 *       volume X0 Y0 Z0 X1 Y1 Z1      the box of a volume trigger
 *     mesh NAME [NAME...]    nodes (with their subtrees) or meshes of the
 *                            scene that form the mover, taken out of the
 *                            static geometry
 *     pivot X Y Z            the mover's local origin (default 0 0 0): its
 *                            vertices are stored relative to it
 *     key T X Y Z QX QY QZ QW         at T seconds the pivot is at (X, Y, Z)
 *     key T X Y Z axis AX AY AZ deg D and the mover turned by the unit
 *                            quaternion Q, or by D degrees about the axis
 *                            (computed here, at import; Q is normalised)
 * Keys start at time 0 and increase; successive keys must turn less than
 * 180 degrees (nlerp takes the shorter way), else the later one is
 * refused: two axis-form keys about one axis turn by the difference of
 * their degrees (so a whole turn is not taken for none), other keys by the
 * angle between their quaternions as written. A block with `mesh` needs two
 * keys or more; a block with neither `mesh` nor `key` sets the rules of
 * the scene mover of that NAME. Mover ids (1, 2, ...) follow the side
 * file's order, then the scene's. Every error names the file and line.
 *
 * Volumes from the scene (core/volume.h). A node (not the root) is a
 * volume when its name starts with volume_prefix (any case) followed by
 * its kind ("sweep_volume_push_pad": a push volume named "push_pad") or
 * when its glTF extras hold "sweep_volume":
 *     "extras": {"sweep_volume": {"kind": "teleport", "name": "tp",
 *         "destination": [x, y, z], "facing": [1, 0, 0],
 *         "exit_speed": 4, "keep_velocity": false}}
 * The extras' kind wins over the name's, and must be push, teleport, hurt,
 * kill or trigger: the core's liquid and ladder are refused by name (a
 * scene does not give what they need, a liquid's kind or a ladder's
 * normal); a push needs "velocity", a teleport "destination", a hurt
 * "damage" (per second); every vector is in map coordinates and units (z
 * up, after scale); facing defaults to (1, 0, 0), exit_speed to 0,
 * keep_velocity to false; unknown keys are refused. The node's own meshes
 * are the volume's shell and no geometry: they must be one closed convex
 * shell wound outward (maps/shell_volume.h says the test; what is wrong is
 * named), and bound the player's centre (nothing is grown by the radii).
 * Its children are walked as any node's. Refused: a volume node inside a
 * mover, or marked a mover too; a push whose launch speed or a teleporter
 * whose exit speed is above the speed limit the map will have (speed_limit
 * in the options, else the level's default rules'), both speeds named; a
 * volume the core refuses (sweep_volume_check, under that speed limit and
 * the level's coordinate limit). Volume ids (1, 2, ...) follow the walk's
 * order; stats->volumes counts them.
 */
#ifndef SWEEP_MAPS_IMPORT_H
#define SWEEP_MAPS_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"

/* What becomes two-sided (see above). */
typedef enum sweep_import_sides {
    SWEEP_SIDES_AUTO = 0, /* open meshes two-sided, closed ones one-sided */
    SWEEP_SIDES_ONE,      /* every triangle as the file winds it */
    SWEEP_SIDES_TWO       /* every triangle with its reversed twin */
} sweep_import_sides;

typedef struct sweep_import_options {
    int up_axis_y;              /* 1: the file is y up (glTF, most OBJ); 0: already z up */
    double scale;               /* file units to map units, > 0 */
    const char *const *exclude; /* names of nodes or meshes to leave out */
    size_t exclude_count;
    const char *spawn_prefix;   /* NULL: no spawn points from nodes */
    /* Called per mesh instance converted; may be NULL. */
    void (*progress)(void *ctx, uint32_t done, uint32_t total);
    void *progress_ctx;
    const char *mover_prefix;   /* NULL or "": no movers by name (sweep-import uses "mover_") */
    const char *movers_path;    /* side file of movers; NULL: none */
    sweep_import_sides sides;   /* 0 (SWEEP_SIDES_AUTO) unless set */
    /* Materials (map names, as written: "material<N>" for an unnamed one)
     * always two-sided or always one-sided; a name may not be in both. */
    const char *const *two_sided_materials;
    size_t two_sided_count;
    const char *const *one_sided_materials;
    size_t one_sided_count;
    /* Called with each warning once the scene is converted: open meshes
     * in the order they came, then spawn nodes without a position or with
     * meshes, then what was skipped; may be NULL. */
    void (*warning)(void *ctx, const char *msg);
    void *warning_ctx;
    const char *volume_prefix;  /* NULL or "": no volumes by name (sweep-import uses "sweep_volume_") */
    /* The speed limit the map will have (its rules' speed_limit), which a
     * push volume's launch and a teleporter's exit keep to; 0: that of the
     * level's default rules. */
    double speed_limit;
    /* 1: every triangle as the file has it; 0 (the default): a node's
     * coplanar triangles merged first (below). */
    int no_merge_faces;
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
    uint32_t movers;             /* all movers made */
    uint32_t movers_from_file;   /* of which from the side file */
    uint32_t mover_triangles;    /* kept in movers (not in `triangles`) */
    uint32_t animated_static;    /* animated nodes that are no mover, kept at rest */
    uint32_t channels_ignored;   /* channels of a mover node past the first one used */
    uint64_t exclude_matched;    /* bit i set if exclude[i] matched something (first 64) */
    uint32_t meshes_open;        /* mesh instances found open whose other triangles the mesh rule decided
                                    (AUTO and ONE; none are looked for under TWO) */
    uint32_t meshes_two_sided;   /* of which made two-sided (AUTO) */
    uint32_t open_warnings;      /* warnings about them: one per distinct mesh */
    uint32_t twins;              /* reversed twins added, static and movers */
    uint64_t two_sided_matched;  /* bit i set if two_sided_materials[i] named a material used (first 64) */
    uint64_t one_sided_matched;  /* the same for one_sided_materials */
    uint32_t volumes;            /* volume nodes made volumes */
    uint32_t merge_dropped;      /* static triangles fewer for merged faces (before twins) */
} sweep_import_stats;

/*
 * Reads the scene at path into *out (initialised here). On failure *out is
 * empty, err says why (the file cannot be read, assimp refused it, a file
 * it names lies outside its folder or is not a regular file, the scene is
 * incomplete, a coordinate is not finite or out of range, nothing is left
 * to import, every triangle went to movers (a map needs static ones; the
 * movers are named), a mover or the side file is wrong) and the status is
 * SWEEP_E_GEOMETRY (SWEEP_E_ARG for bad options, such as a material both
 * one- and two-sided; SWEEP_E_NOMEM when out of memory). Warnings are
 * only given for an import that succeeds.
 */
sweep_status sweep_import_scene(const char *path, const sweep_import_options *opt, sweep_level *out,
                                sweep_import_stats *stats, char *err, size_t errlen);

#endif
