/*
 * import_bsp_impl.h - internal: what the Quake 3 importer's files share
 * (the importer is import_bsp.c and the import_bsp_*.c beside it; what
 * becomes what is import_bsp.h's to say). Not installed.
 *
 * One `bsp` holds a whole import: the file's bytes and its checked lumps,
 * the entities, the level being filled and the scratch each stage grows
 * and reuses. The stages, each in a file of its own:
 *   import_bsp_read.c     the header, the lumps and the entity text, checked
 *                         before anything trusts them; entity keys; the
 *                         materials; where triangles go (a sink)
 *   import_bsp_brush.c    brushes into shells, cut down to what a body can
 *                         touch; a model's whole geometry
 *   import_bsp_patch.c    curved patches into triangles
 *   import_bsp_movers.c   doors, platforms, bobbing and rotating models,
 *                         trains
 *   import_bsp_volumes.c  jump pads, teleporters, hurt and kill volumes,
 *                         triggers, liquids and ladders
 *   import_bsp.c          the level from those, and the files and .pk3
 *                         members it comes from
 * A stage that fails says why with sweep__bsp_fail (or sweep__bsp_nomem)
 * and returns 0; every caller passes the 0 on, and sweep_import_bsp_memory
 * frees what was built.
 */
#ifndef SWEEP_MAPS_IMPORT_BSP_IMPL_H
#define SWEEP_MAPS_IMPORT_BSP_IMPL_H

#include <stdint.h>
#include <string.h>

#include "core/vec3.h"
#include "maps/face_merge.h"
#include "maps/import_bsp.h"

#define PI 3.14159265358979323846

/* Two planes with normals this close (dot product) are parallel. */
#define PARALLEL_DOT (1.0 - 1e-9)
/* Quake 3's player box half sizes; its centre is 4 above the origin. */
#define PLAYER_HALF_X 15.0
#define PLAYER_HALF_Z 28.0
#define PLAYER_CENTRE_UP 4.0
/* Quake 3's contents and surface flags used here. */
#define CONTENTS_SOLID 0x1u
#define CONTENTS_LAVA 0x8u
#define CONTENTS_SLIME 0x10u
#define CONTENTS_WATER 0x20u
#define CONTENTS_LIQUID (CONTENTS_LAVA | CONTENTS_SLIME | CONTENTS_WATER)
#define CONTENTS_PLAYERCLIP 0x10000u
#define PLAYER_SOLID (CONTENTS_SOLID | CONTENTS_PLAYERCLIP)
#define SURF_SLICK 0x2u
#define SURF_LADDER 0x8u

enum {
    L_ENTITIES, L_SHADERS, L_PLANES, L_NODES, L_LEAFS, L_LEAFFACES, L_LEAFBRUSHES, L_MODELS, L_BRUSHES,
    L_BRUSHSIDES, L_VERTEXES, L_MESHVERTS, L_EFFECTS, L_FACES, L_LIGHTMAPS, L_LIGHTVOLS, L_VISDATA, LUMP_COUNT
};
/* Each lump's name, and its bytes per record (1 for the free-form lumps). */
extern const char *const sweep__bsp_lump_names[LUMP_COUNT];
extern const uint32_t sweep__bsp_lump_record[LUMP_COUNT];

/* "lump 8 (brushes)" */
#define LUMP_FMT "lump %d (%s)"
#define LUMP_ARG(l) (l), sweep__bsp_lump_names[l]
/* "lump 0 (entities): entity 12 (func_door)" */
#define ENT_FMT LUMP_FMT ": entity %u (%s)"
#define ENT_ARG(b, e) LUMP_ARG(L_ENTITIES), (uint32_t)((e) - (b)->ents), (e)->classname

typedef struct shader {
    char name[65];
    uint32_t flags, contents;
    uint32_t material; /* map material id, 0 until a triangle uses it */
} shader;

typedef struct plane {
    double n[3], d; /* inside the brush: dot(n, x) <= d */
} plane;

typedef struct model {
    double mins[3], maxs[3];
    uint32_t first_face, faces, first_brush, brushes;
} model;

typedef struct keyval {
    const char *key, *value;
} keyval;

typedef struct entity {
    uint32_t first, count; /* in bsp.kv */
    uint32_t offset;       /* byte of its '{' in the lump, for messages */
    const char *classname; /* "" if none */
    int used;              /* 1 when a class not in handled_classes was turned into something */
} entity;

/* Where triangles go: the static level, or one mover in its own frame.
 * Every vertex is moved by `shift` on the way in. */
typedef struct sink {
    sweep_level *lv;
    sweep_level_mover *mover;
    double shift[3];
    uint32_t triangles, patch_triangles, patches;
} sink;

/* A list of polygons: polygon i is points p[at[i] .. at[i] + len[i]). */
typedef struct polys {
    double (*p)[3];
    uint32_t points, point_cap;
    uint32_t *at, *len;
    uint32_t n, cap;
} polys;

typedef struct bsp {
    const uint8_t *data;
    size_t size;
    const char *label;
    const sweep_bsp_options *opt;
    sweep_level *lv;
    sweep_bsp_stats *st;
    double patch_tolerance; /* units; 0: the fixed SWEEP_BSP_PATCH_LEVEL */
    uint64_t patch_triangles; /* the patches' triangles so far (SWEEP_BSP_PATCH_TRIANGLES_MAX) */
    char *err;
    size_t errlen;
    int nomem;

    const uint8_t *lump[LUMP_COUNT];
    uint32_t count[LUMP_COUNT]; /* records */

    shader *shaders;
    plane *planes;
    model *models;
    char *text;       /* the entity lump's strings, each NUL-terminated */
    keyval *kv;
    uint32_t kv_count, kv_cap;
    entity *ents;
    uint32_t ent_count, ent_cap;
    uint32_t next_mover_id;
    /* Per material name's base (a shader's name, sanitised): the suffix to
     * try first for the next material of that base (1: the base itself),
     * since names are only ever added (sweep__bsp_material_of). */
    struct bsp_name_base {
        char base[64];
        uint32_t next;
    } *bases;
    uint32_t base_count, base_cap;

    /* Scratch for one brush, grown as needed. */
    double (*pts)[3];    /* polygon points, one block per side */
    uint32_t pts_cap;
    double (*verts)[3];  /* welded corners of the brush */
    uint32_t vert_cap;
    uint32_t *ring;      /* a face's corner ids */
    uint32_t ring_cap;
    uint32_t *tris;      /* 4 per triangle: a, b, c, shader */
    uint32_t tri_cap;

    /* The player-solid brushes with volume of the model being built, in
     * brush order, with their boxes: what cuts hidden faces away. */
    uint32_t *cut_brush;
    double (*cut_lo)[3], (*cut_hi)[3];
    uint32_t cut_count, cut_cap;
    /* Polygons being cut (two lists, swapped brush by brush) and a block
     * of points for one polygon's pieces. */
    polys frag[2];
    double (*work)[3];
    uint32_t work_cap;
    int64_t hidden_net; /* brush triangles fewer for the cuts, all models */
    /* The world's BSP tree may be asked (sweep__bsp_read_tree), and model 0
     * is being built; room for splitting a polygon down the tree. */
    int tree, in_world;
    double (*tree_scratch)[3];
    uint32_t tree_scratch_cap;
    /* Merging coplanar faces across the brushes of the model being built
     * (merging): the faces kept, merged and triangulated once all its
     * brushes are done; the triangles they would have been fanned into
     * on their own (merge_before), and the net saving, all models. */
    int merging;
    sweep__face_set faces;
    sweep__face_mesh mesh;
    double (*face_pts)[3];
    uint32_t face_pts_cap;
    int64_t merge_before, merge_net;
} bsp;

/* Messages: sweep__bsp_fail keeps the first reason an import stops and
 * returns 0; sweep__bsp_nomem says it ran out of memory (the import's
 * status is then SWEEP_E_NOMEM); sweep__bsp_warn counts a warning and
 * hands it to the caller's callback; sweep__bsp_note hands on a line that
 * goes on with the last warning, not counted again. */
int sweep__bsp_fail(bsp *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sweep__bsp_nomem(bsp *b);
void sweep__bsp_warn(bsp *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sweep__bsp_note(bsp *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Little-endian reads (the file need not be aligned, nor the host little). */
static inline uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline int64_t i32_at(const uint8_t *p)
{
    uint32_t u = u32_at(p);
    int32_t i;
    memcpy(&i, &u, sizeof i);
    return i;
}

static inline double f32_at(const uint8_t *p)
{
    uint32_t u = u32_at(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

/* Record i of a lump sweep__bsp_read checked. */
static inline const uint8_t *record(const bsp *b, int lump, uint32_t i)
{
    return b->lump[lump] + (size_t)i * sweep__bsp_lump_record[lump];
}

static inline double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline sweep_vec3 v3_of(const double p[3])
{
    return sweep_v3(p[0], p[1], p[2]);
}

/* import_bsp_read.c */
int sweep__bsp_read(bsp *b);
int sweep__bsp_check_index(bsp *b, int lump, uint32_t rec, const char *what, int64_t idx, int target);
int sweep__bsp_check_range(bsp *b, int lump, uint32_t rec, const char *what, int64_t first, int64_t n, int target);
int sweep__bsp_check_finite(bsp *b, int lump, uint32_t rec, const char *what, const double *v, int n);
const char *sweep__bsp_ent_get(const bsp *b, const entity *e, const char *key);
int sweep__bsp_parse_numbers(const char *s, double *v, int n);
int sweep__bsp_ent_numbers(bsp *b, const entity *e, const char *key, double *v, int n, const double *def);
int sweep__bsp_ent_number(bsp *b, const entity *e, const char *key, double def, double *v);
int sweep__bsp_ent_int(bsp *b, const entity *e, const char *key, long def, long *v);
int sweep__bsp_ent_origin(bsp *b, const entity *e, double o[3]);
int sweep__bsp_ent_model(bsp *b, const entity *e, uint32_t *m);
int sweep__bsp_is_class(const entity *e, const char *name);
int sweep__bsp_material_of(bsp *b, uint32_t s, uint32_t *out);
int sweep__bsp_sink_vertex(bsp *b, sink *s, const double p[3], uint32_t *out);
int sweep__bsp_sink_triangle(bsp *b, sink *s, uint32_t a, uint32_t c1, uint32_t c2, uint32_t material);

/* import_bsp_brush.c */
const plane *sweep__bsp_side_plane(const bsp *b, uint32_t first, uint32_t i);
int sweep__bsp_read_tree(bsp *b);
int sweep__bsp_model_geometry(bsp *b, uint32_t m, sink *s, uint32_t *solid, uint32_t *empty);

/* import_bsp_patch.c */
int sweep__bsp_patch_face(bsp *b, uint32_t f, sink *s);

/* import_bsp_movers.c */
int sweep__bsp_make_slider(bsp *b, const entity *e, uint32_t m, int button);
int sweep__bsp_make_plat(bsp *b, const entity *e, uint32_t m);
int sweep__bsp_make_bobbing(bsp *b, const entity *e, uint32_t m);
int sweep__bsp_make_rotating(bsp *b, const entity *e, uint32_t m);
int sweep__bsp_make_train(bsp *b, const entity *e, uint32_t m);

/* import_bsp_volumes.c */
int sweep__bsp_liquids_and_ladders(bsp *b);
/* Once the level's rules are set: teleport destinations sunk less than a
 * step into the floor lifted onto it (import_bsp_volumes.c says why). */
int sweep__bsp_lift_teleports(bsp *b);
int sweep__bsp_volumes(bsp *b, double g);

#endif
