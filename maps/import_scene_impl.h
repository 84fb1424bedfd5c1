/*
 * import_scene_impl.h - internal: what the scene importer's files share
 * (the importer is import_scene.c and the import_scene_*.c beside it;
 * import.h says what it makes of a scene). Not installed.
 *
 * One `importer` holds a whole import: the assimp scene, the options, the
 * level being filled, and what each stage keeps. The stages:
 *   import_scene.c           the walk of the node tree: meshes and
 *                            materials into the level or a mover, spawns,
 *                            the warnings, the movers finished
 *   import_scene_xform.c     transforms, in double, and the turn to z up
 *   import_scene_sides.c     one-sided and two-sided meshes: closed shells
 *                            found, open ones given reversed twins
 *   import_scene_merge.c     each node's coplanar triangles merged, before
 *                            the static level's twins are made
 *   import_scene_side_file.c the --movers side file, and the mover rules
 *                            it shares with node extras
 *   import_scene_anim.c      animation channels into a mover's keyframes
 *   import_scene_nodes.c     which nodes are movers and volumes (by name
 *                            or extras), and the volumes' shells
 *   import_scene_files.c     the files assimp may read: regular ones in
 *                            the scene's folder
 * A stage that fails says why with sweep__scene_fail and returns 0 (the
 * first failure is kept); sweep_import_scene frees what was built.
 */
#ifndef SWEEP_MAPS_IMPORT_SCENE_IMPL_H
#define SWEEP_MAPS_IMPORT_SCENE_IMPL_H

#include <stdint.h>

#include <assimp/scene.h> /* with anim.h and metadata.h, in the order they need */

#include "core/quat.h"
#include "maps/import.h"
#include "maps/tally.h"

/* Relative slack for "the same" in assimp's single-precision data: a
 * uniform scale, orthogonal axes, a constant scale key, a closed loop. */
#define FLOAT_SLACK 1e-5

typedef struct xform {
    double m[3][4]; /* rows of an affine transform: p' = m * (p, 1) */
} xform;

/* Rules a side-file block or a node's extras give; `set` says which. */
enum { RULE_MODE = 1, RULE_TRIGGER = 2, RULE_BLOCKED = 4, RULE_WAIT = 8, RULE_VOLUME = 16 };

typedef struct rules {
    unsigned set;
    sweep_mover_mode mode;
    sweep_mover_trigger trigger;
    sweep_mover_blocked blocked;
    double wait_start, wait_end;
    sweep_vec3 volume_min, volume_max;
} rules;

/* One 'mover' block of the side file. */
typedef struct side_mover {
    char name[SWEEP_LEVEL_NAME_MAX];
    unsigned line;      /* its 'mover' line */
    unsigned mesh_line; /* its first 'mesh' line, 0 if none */
    unsigned key_line;  /* its last 'key' line, 0 if none */
    rules r;
    sweep_vec3 pivot;
    sweep_keyframe *keys;
    uint32_t key_count, key_cap;
    /* Its last key as written in the axis form (unit axis, degrees), if it
     * was: a turn about one axis is measured in the file's degrees. */
    int axis_form;
    double axis[3], deg;
    uint32_t mover; /* index in lv->movers once made, else SWEEP_NO_MOVER */
} side_mover;

/* A node or mesh name a 'mesh' line gives to a side-file mover. */
typedef struct claim {
    char *name;
    unsigned line;
    uint32_t side; /* index in side_file.movers */
    int used;
} claim;

typedef struct side_file {
    const char *path;
    side_mover *movers;
    uint32_t count, cap;
    claim *claims;
    uint32_t claim_count, claim_cap;
} side_file;

/* An animation channel, in a table sorted by node name, then by file order. */
typedef struct channel_ref {
    const char *node;
    const struct aiAnimation *anim;
    const struct aiNodeAnim *ch;
    uint64_t order;
} channel_ref;

/* Where a level mover came from, for messages. */
typedef struct mover_origin {
    const struct aiNode *node; /* the scene node, or NULL */
    uint32_t side;             /* the side-file block, or SWEEP_NO_MOVER */
} mover_origin;

/* Where the meshes of the subtree being walked go. */
typedef struct sink {
    uint32_t mover;   /* index in lv->movers; SWEEP_NO_MOVER: the static level */
    uint32_t side;    /* the side-file block it is, or SWEEP_NO_MOVER */
    sweep_vec3 pivot; /* subtracted from map coordinates */
} sink;

/* Where a node's meshes went: one group per destination (the static
 * level or a mover), with the counts it had before the first of them. */
typedef struct side_group {
    uint32_t mover; /* index in lv->movers, or SWEEP_NO_MOVER */
    uint32_t v0, t0;
} side_group;

/* A node's share of the static level: its triangles [t0, t1), and whether
 * its mesh rule makes them two-sided. Its twins are made once every node
 * is in and the coplanar triangles are merged (sweep__scene_sides_finish). */
typedef struct static_group {
    uint32_t t0, t1;
    int mesh_two;
} static_group;

/* An open mesh found, for its warning: the assimp meshes it is made of
 * (a node's meshes with one destination) and how it was found. */
typedef struct open_mesh {
    uint32_t *meshes;
    uint32_t mesh_count;
    uint32_t next;      /* the next record whose first mesh is the same, or UINT32_MAX */
    uint32_t instances;
    uint32_t boundary;  /* edges of one triangle */
    uint32_t bad;       /* edges of three or more triangles, or of two wound the same way */
    char what[320];     /* "mesh 'Floor'", "mesh 'M' (node 'N')", "node 'N' (2 meshes)" */
} open_mesh;

/* Where one kind of a material option sends a material (by map id). */
enum { SIDES_MESH = 0, SIDES_ONE_MAT = 1, SIDES_TWO_MAT = 2 };

/* mesh_dest value of a mesh that adds nothing (excluded, no faces). */
#define DEST_NONE (UINT32_MAX - 1)

typedef struct importer {
    const struct aiScene *scene;
    const sweep_import_options *opt;
    sweep_level *lv;
    sweep_import_stats *stats;
    uint32_t *material_ids; /* per assimp material: map id, 0 = not yet used */
    uint32_t instances_total, instances_done;
    side_file side;
    channel_ref *channels;
    uint32_t channel_count;
    mover_origin *origins; /* parallel to lv->movers */
    uint32_t origin_cap;
    uint8_t *material_sides; /* per map material id: SIDES_* of its name */
    uint32_t material_sides_cap;
    /* The node being converted: each mesh's destination, and the groups. */
    uint32_t *mesh_dest;
    uint32_t mesh_dest_cap;
    side_group *groups;
    uint32_t group_count, group_cap;
    static_group *statics; /* every node's share of the static level, in order */
    uint32_t static_count, static_cap;
    open_mesh *open;
    uint32_t open_count, open_cap;
    uint32_t *open_head; /* per assimp mesh: its first open_mesh record, or UINT32_MAX */
    /* Per assimp mesh: 1 + its first vertex that is not finite, numbered
     * as before vertices were welded, or 0. */
    uint32_t *bad_vertex;
    /* What the designer is told about after the walk: leaf nodes that
     * become nothing, by kind; spawn nodes at the file's origin and
     * spawn-named nodes holding meshes, by name. */
    sweep__tally skipped, spawn_at_origin, spawn_with_meshes;
    char *err;
    size_t errlen;
    sweep_status status;
} importer;

/* import_scene.c */
/* Keeps the first failure (status and message); returns 0. */
int sweep__scene_fail(importer *im, sweep_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A failure about line `line` of the side file. */
int sweep__scene_side_fail(importer *im, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sweep__scene_grow(void **p, uint32_t *cap, uint32_t count, size_t size);
int sweep__scene_excluded(importer *im, const struct aiString *name);
int sweep__scene_mesh_finite(importer *im, unsigned index, const char *node_name);

/* import_scene_files.c */
/* assimp's scene at path, read with post-processing `flags`; NULL after
 * a failure. */
const struct aiScene *sweep__scene_read(importer *im, const char *path, unsigned flags);

/* import_scene_xform.c */
xform sweep__scene_xform_of(const struct aiMatrix4x4 *a);
xform sweep__scene_xform_diag(double sx, double sy, double sz);
xform sweep__scene_xform_mul(const xform *p, const xform *l);
sweep_vec3 sweep__scene_to_map(const importer *im, const xform *x, double px, double py, double pz);
double sweep__scene_plus_zero(double x);
sweep_vec3 sweep__scene_v3_plus_zero(sweep_vec3 v);
sweep_quat sweep__scene_quat_plus_zero(sweep_quat q);
int sweep__scene_within_limit(const importer *im, sweep_vec3 v);
sweep_quat sweep__scene_quat_of_matrix(const double r[3][3]);
void sweep__scene_axis_turn(const importer *im, double c[3][3]);
int sweep__scene_mirrors(const importer *im, const xform *x);
int sweep__scene_split_linear(const xform *x, double scale[3], double rot[3][3]);

/* import_scene_sides.c */
int sweep__scene_sides_begin(importer *im, const struct aiNode *n);
int sweep__scene_sides_track(importer *im, unsigned i, uint32_t mover);
int sweep__scene_sides_end(importer *im, const struct aiNode *n);
/* Once every node is in: the static triangles merged (unless
 * no_merge_faces), then each node's twins made after its triangles. */
int sweep__scene_sides_finish(importer *im);

/* import_scene_merge.c: each node's coplanar static triangles merged into
 * fewer (im->statics updated to where each node's triangles now are). */
int sweep__scene_merge_faces(importer *im);
void sweep__scene_sides_warn(importer *im);
void sweep__scene_sides_free(importer *im);

/* import_scene_side_file.c */
const char *sweep__scene_rule_spellings(char what);
void sweep__scene_rules_default(rules *r);
int sweep__scene_rules_set(rules *r, char what, const char *s);
void sweep__scene_rules_apply(const rules *r, int all, sweep_level_mover *m);
int sweep__scene_box_ok(sweep_vec3 lo, sweep_vec3 hi);
int sweep__scene_side_read(importer *im, const char *path);
int sweep__scene_side_make_movers(importer *im);
claim *sweep__scene_side_claim(importer *im, const char *name);
void sweep__scene_side_free(side_file *sf);

/* import_scene_anim.c */
int sweep__scene_index_channels(importer *im);
const channel_ref *sweep__scene_find_channel(const importer *im, const char *name, uint32_t *more);
int sweep__scene_channel_moves(const struct aiNodeAnim *ch);
int sweep__scene_keys(importer *im, uint32_t mi, const struct aiNode *n, const channel_ref *cr, const xform *parent,
                      xform *vx);

/* import_scene_nodes.c */
int sweep__scene_mover_of(importer *im, const struct aiNode *n, rules *r, char name[SWEEP_LEVEL_NAME_MAX]);
int sweep__scene_make_mover(importer *im, const struct aiNode *n, const rules *r, const char *name, const xform *parent,
                            uint32_t *mi, xform *vx);
int sweep__scene_volume_of(importer *im, const struct aiNode *n, sweep_volume *v, char name[SWEEP_LEVEL_NAME_MAX]);
int sweep__scene_make_volume(importer *im, const struct aiNode *n, const xform *x, sweep_volume *v, const char *name);

#endif
