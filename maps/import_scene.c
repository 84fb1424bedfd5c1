/*
 * import_scene.c - an assimp scene into a sweep_level (see import.h).
 *
 * assimp hands back single-precision vertices and node matrices; they are
 * widened to double at once and every transform is composed in double, so
 * a vertex is rounded once on the way into the map, not once per level of
 * the node tree. The node tree is walked depth first in child order, which
 * fixes the order of vertices, triangles, materials and movers: the same
 * file always gives the same map and so the same content hash.
 *
 * Movers ride on the same walk: below a mover node (or a node or mesh the
 * side file claims) meshes go into that mover's arrays instead of the
 * level's, and static geometry elsewhere is converted exactly as if there
 * were no movers at all. A mover's keyframes are computed here, once: the
 * animation's keys merged on one time line, lerped and nlerped, composed
 * with the parents' transforms and turned z up; and the side file's
 * axis-and-angle keys turned into quaternions. This file is the only place
 * where a sine or a cosine meets a mover: the server and the clients only
 * ever lerp and nlerp what the map stores.
 *
 * Sides (import.h): players collide with front faces only, so once a
 * node's meshes are in place each destination's share of them is checked
 * for being a closed shell (vertices welded by exact position, then every
 * edge run once each way) and an open one gets reversed twins, appended
 * after it. Sorting by position and by edge, with ids breaking ties, keeps
 * the result independent of qsort and of any hashing: the map's bytes stay
 * a function of the file and the options.
 */
#include "maps/import.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h> /* with anim.h and metadata.h, in the order they need */

#include "core/quat.h"
#include "core/world.h"
#include "core/parse.h"
#include "maps/shell_volume.h"
#include "maps/tally.h"

#define MAX_DEPTH 256
/* Words on one side-file line (so names on one 'mesh' line). */
#define SIDE_MAX_WORDS 256
/* How far from unit length a quaternion written in the side file may be:
 * four-digit rounding passes, a typo does not. */
#define SIDE_QUAT_SLACK 1e-2
/* Relative slack for "the same" in assimp's single-precision data: a
 * uniform scale, orthogonal axes, a constant scale key, a closed loop. */
#define FLOAT_SLACK 1e-5
/* What assimp's documentation suggests when a file gives no tick rate. */
#define DEFAULT_TICKS_PER_SECOND 25.0
/* How close (relative to its size) the end of a loop must come to its
 * start to be closed exactly: a few single-precision roundings. */
#define LOOP_SLACK 1e-6
#define PI 3.14159265358979323846

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
    open_mesh *open;
    uint32_t open_count, open_cap;
    uint32_t *open_head; /* per assimp mesh: its first open_mesh record, or UINT32_MAX */
    /* What the designer is told about after the walk: leaf nodes that
     * become nothing, by kind; spawn nodes at the file's origin and
     * spawn-named nodes holding meshes, by name. */
    sweep__tally skipped, spawn_at_origin, spawn_with_meshes;
    char *err;
    size_t errlen;
    sweep_status status;
} importer;

static int ifail(importer *im, sweep_status st, const char *fmt, ...)
{
    if (im->status != SWEEP_OK)
        return 0;
    im->status = st;
    if (im->err && im->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(im->err, im->errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* An error about line `line` of the side file. */
static int side_fail(importer *im, unsigned line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ifail(im, SWEEP_E_GEOMETRY, "%s line %u: %s", im->side.path, line, msg);
}

/* Makes room for one more item; 0 when out of memory. */
static int grow(void **p, uint32_t *cap, uint32_t count, size_t size)
{
    if (count < *cap)
        return 1;
    if (*cap > UINT32_MAX / 4)
        return 0;
    uint32_t n = *cap ? *cap * 2 : 8;
    void *q = realloc(*p, (size_t)n * size);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* --- transforms ----------------------------------------------------------- */

static xform xform_of(const struct aiMatrix4x4 *a)
{
    xform x = {{{a->a1, a->a2, a->a3, a->a4}, {a->b1, a->b2, a->b3, a->b4}, {a->c1, a->c2, a->c3, a->c4}}};
    return x;
}

static xform xform_diag(double sx, double sy, double sz)
{
    xform x = {{{sx, 0, 0, 0}, {0, sy, 0, 0}, {0, 0, sz, 0}}};
    return x;
}

/* parent * local, both affine. */
static xform xform_mul(const xform *p, const xform *l)
{
    xform r;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++)
            r.m[i][j] = p->m[i][0] * l->m[0][j] + p->m[i][1] * l->m[1][j] + p->m[i][2] * l->m[2][j];
        r.m[i][3] += p->m[i][3];
    }
    return r;
}

/* A point of the file through a node transform, to z up, then scaled. */
static sweep_vec3 to_map(const importer *im, const xform *x, double px, double py, double pz)
{
    double v[3];
    for (int i = 0; i < 3; i++)
        v[i] = x->m[i][0] * px + x->m[i][1] * py + x->m[i][2] * pz + x->m[i][3];
    double s = im->opt->scale;
    if (im->opt->up_axis_y)
        return sweep_v3(v[0] * s, -v[2] * s, v[1] * s);
    return sweep_v3(v[0] * s, v[1] * s, v[2] * s);
}

/* -0 as +0: a map stores a whole-number REAL as an integer, so it keeps
 * no sign on zero; a mover made with +0 is bit for bit what its map loads
 * (and hashes the same on the server). */
static double plus_zero(double x)
{
    return x == 0.0 ? 0.0 : x;
}

static sweep_vec3 v3_plus_zero(sweep_vec3 v)
{
    return sweep_v3(plus_zero(v.x), plus_zero(v.y), plus_zero(v.z));
}

static sweep_quat quat_plus_zero(sweep_quat q)
{
    sweep_quat r = {plus_zero(q.x), plus_zero(q.y), plus_zero(q.z), plus_zero(q.w)};
    return r;
}

static int within_limit(const importer *im, sweep_vec3 v)
{
    double l = im->lv->config.max_coordinate;
    return sweep_v3_isfinite(v) && fabs(v.x) <= l && fabs(v.y) <= l && fabs(v.z) <= l;
}

/* The unit quaternion of a rotation matrix r (rows; r applied to column
 * vectors), by the largest of w, x, y, z so the division is well away from
 * zero. Import time only. */
static sweep_quat quat_of_matrix(const double r[3][3])
{
    sweep_quat q;
    double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q.w = 0.25 * s, q.x = (r[2][1] - r[1][2]) / s, q.y = (r[0][2] - r[2][0]) / s, q.z = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double s = sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2.0;
        q.w = (r[2][1] - r[1][2]) / s, q.x = 0.25 * s, q.y = (r[0][1] + r[1][0]) / s, q.z = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        double s = sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2.0;
        q.w = (r[0][2] - r[2][0]) / s, q.x = (r[0][1] + r[1][0]) / s, q.y = 0.25 * s, q.z = (r[1][2] + r[2][1]) / s;
    } else {
        double s = sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2.0;
        q.w = (r[1][0] - r[0][1]) / s, q.x = (r[0][2] + r[2][0]) / s, q.y = (r[1][2] + r[2][1]) / s, q.z = 0.25 * s;
    }
    return sweep_quat_normalize(q);
}

/* The turn from file axes to map axes: (x, y, z) -> (x, -z, y) for a y-up
 * file (a quarter turn about x), none otherwise. */
static void axis_turn(const importer *im, double c[3][3])
{
    static const double y_up[3][3] = {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}};
    static const double z_up[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(c, im->opt->up_axis_y ? y_up : z_up, sizeof y_up);
}

/*
 * Splits the linear part of x into scale and rotation: column j of x is
 * scale[j] times column j of rot. 0 when that is not possible: a zero or
 * non-finite column, axes that are not orthogonal (shear), or a mirror.
 */
static int split_linear(const xform *x, double scale[3], double rot[3][3])
{
    for (int j = 0; j < 3; j++) {
        scale[j] = sqrt(x->m[0][j] * x->m[0][j] + x->m[1][j] * x->m[1][j] + x->m[2][j] * x->m[2][j]);
        if (!(scale[j] > 0.0 && isfinite(scale[j])))
            return 0;
        for (int i = 0; i < 3; i++)
            rot[i][j] = x->m[i][j] / scale[j];
    }
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (!(fabs(rot[0][a] * rot[0][b] + rot[1][a] * rot[1][b] + rot[2][a] * rot[2][b]) <= FLOAT_SLACK))
                return 0;
    double det = rot[0][0] * (rot[1][1] * rot[2][2] - rot[1][2] * rot[2][1]) -
                 rot[0][1] * (rot[1][0] * rot[2][2] - rot[1][2] * rot[2][0]) +
                 rot[0][2] * (rot[1][0] * rot[2][1] - rot[1][1] * rot[2][0]);
    return det > 0.0;
}

/* --- materials and meshes ------------------------------------------------ */

static int excluded(importer *im, const struct aiString *name)
{
    for (size_t i = 0; i < im->opt->exclude_count; i++) {
        if (strcmp(im->opt->exclude[i], name->data) == 0) {
            if (i < 64)
                im->stats->exclude_matched |= UINT64_C(1) << i;
            return 1;
        }
    }
    return 0;
}

/* The map id of assimp material `index`, adding it on first use. */
static int material_id(importer *im, unsigned index, uint32_t *out)
{
    if (index >= im->scene->mNumMaterials)
        return ifail(im, SWEEP_E_GEOMETRY, "a mesh names material %u, but the file has %u", index,
                     im->scene->mNumMaterials);
    if (im->material_ids[index]) {
        *out = im->material_ids[index];
        return 1;
    }
    char name[SWEEP_LEVEL_NAME_MAX];
    struct aiString s;
    s.length = 0;
    s.data[0] = '\0';
    if (aiGetMaterialString(im->scene->mMaterials[index], AI_MATKEY_NAME, &s) != aiReturn_SUCCESS ||
        s.length == 0)
        snprintf(name, sizeof name, "material%u", index);
    else if (s.length >= sizeof name)
        return ifail(im, SWEEP_E_GEOMETRY, "material name '%.40s...' is longer than %d bytes", s.data,
                     SWEEP_LEVEL_NAME_MAX - 1);
    else
        memcpy(name, s.data, (size_t)s.length + 1);
    /* Same name as a material already added: share its id. */
    sweep_level *lv = im->lv;
    for (uint32_t k = 0; k < lv->material_count; k++) {
        if (strcmp(lv->material_table[k].name, name) == 0) {
            im->material_ids[index] = lv->material_table[k].id;
            *out = lv->material_table[k].id;
            return 1;
        }
    }
    uint32_t id = lv->material_count + 1;
    if (!grow((void **)&im->material_sides, &im->material_sides_cap, id, 1) ||
        sweep_level_add_material(lv, id, name, 1.0, 0) != SWEEP_OK)
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    /* Its rule is looked up once here, not per triangle. */
    im->material_sides[id] = SIDES_MESH;
    const sweep_import_options *o = im->opt;
    for (size_t i = 0; i < o->two_sided_count; i++)
        if (strcmp(o->two_sided_materials[i], name) == 0) {
            im->material_sides[id] = SIDES_TWO_MAT;
            if (i < 64)
                im->stats->two_sided_matched |= UINT64_C(1) << i;
        }
    for (size_t i = 0; i < o->one_sided_count; i++)
        if (strcmp(o->one_sided_materials[i], name) == 0) {
            im->material_sides[id] = SIDES_ONE_MAT;
            if (i < 64)
                im->stats->one_sided_matched |= UINT64_C(1) << i;
        }
    im->material_ids[index] = id;
    im->stats->materials++;
    *out = id;
    return 1;
}

/*
 * Face f of mesh as three indices into `vertices` (the mesh's first vertex
 * at base): 1 for a usable triangle; 0 for a face skipped and counted
 * (points, lines, degenerate triangles); -1 after an error (ifail).
 */
static int face_of(importer *im, const struct aiMesh *mesh, unsigned f, uint32_t base, const sweep_vec3 *vertices,
                   uint32_t ix[3])
{
    const struct aiFace *face = &mesh->mFaces[f];
    if (face->mNumIndices != 3) {
        im->stats->other_faces_skipped++;
        return 0;
    }
    for (int k = 0; k < 3; k++) {
        if (face->mIndices[k] >= mesh->mNumVertices) {
            ifail(im, SWEEP_E_GEOMETRY, "mesh '%s': face %u names vertex %u of %u", mesh->mName.data, f,
                  face->mIndices[k], mesh->mNumVertices);
            return -1;
        }
        ix[k] = base + face->mIndices[k];
    }
    if (sweep_triangle_is_degenerate(vertices[ix[0]], vertices[ix[1]], vertices[ix[2]])) {
        im->stats->degenerate_dropped++;
        return 0;
    }
    return 1;
}

/* The static level's share of add_mesh: vertices and triangles in map
 * coordinates, as they always were. */
static int add_static_mesh(importer *im, const struct aiMesh *mesh, const xform *x, const char *node_name,
                           uint32_t mat)
{
    sweep_level *lv = im->lv;
    if ((uint64_t)lv->vertex_count + mesh->mNumVertices >= UINT32_MAX - 1)
        return ifail(im, SWEEP_E_GEOMETRY, "more than %u vertices", UINT32_MAX - 2);
    uint32_t base = lv->vertex_count;
    const double limit = lv->config.max_coordinate;
    for (unsigned i = 0; i < mesh->mNumVertices; i++) {
        const struct aiVector3D *p = &mesh->mVertices[i];
        sweep_vec3 v = to_map(im, x, p->x, p->y, p->z);
        if (!sweep_v3_isfinite(v))
            return ifail(im, SWEEP_E_GEOMETRY, "mesh '%s' (node '%s'): vertex %u is not a finite number",
                         mesh->mName.data, node_name, i);
        if (!(fabs(v.x) <= limit && fabs(v.y) <= limit && fabs(v.z) <= limit))
            return ifail(im, SWEEP_E_GEOMETRY,
                         "mesh '%s' (node '%s'): vertex %u at (%g, %g, %g) is beyond the coordinate limit %g "
                         "(check --scale)",
                         mesh->mName.data, node_name, i, v.x, v.y, v.z, limit);
        if (sweep_level_add_vertex(lv, v, NULL) != SWEEP_OK)
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
    }
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
        uint32_t ix[3];
        int k = face_of(im, mesh, f, base, lv->vertices, ix);
        if (k <= 0) {
            if (k < 0)
                return 0;
            continue;
        }
        sweep_status st = sweep_level_add_triangle(lv, ix[0], ix[1], ix[2], mat);
        if (st != SWEEP_OK)
            return ifail(im, st, st == SWEEP_E_NOMEM ? "out of memory" : "more triangles than the core accepts");
        im->stats->triangles++;
    }
    return 1;
}

/* A mover's share: vertices in the mover's frame (x takes the mesh there,
 * to_map turns it z up and scales it, the pivot is taken off). */
static int add_mover_mesh(importer *im, const struct aiMesh *mesh, const xform *x, const char *node_name,
                          uint32_t mat, const sink *s)
{
    sweep_level_mover *m = &im->lv->movers[s->mover];
    if ((uint64_t)m->vertex_count + mesh->mNumVertices >= UINT32_MAX - 1)
        return ifail(im, SWEEP_E_GEOMETRY, "mover '%s': more than %u vertices", m->name, UINT32_MAX - 2);
    uint32_t base = m->vertex_count;
    for (unsigned i = 0; i < mesh->mNumVertices; i++) {
        const struct aiVector3D *p = &mesh->mVertices[i];
        sweep_vec3 v = v3_plus_zero(sweep_v3_sub(to_map(im, x, p->x, p->y, p->z), s->pivot));
        if (!within_limit(im, v))
            return ifail(im, SWEEP_E_GEOMETRY,
                         "mover '%s', mesh '%s' (node '%s'): vertex %u at (%g, %g, %g) in the mover's frame is "
                         "not finite or beyond the coordinate limit %g (check --scale)",
                         m->name, mesh->mName.data, node_name, i, v.x, v.y, v.z, im->lv->config.max_coordinate);
        if (sweep_level_mover_add_vertex(m, v, NULL) != SWEEP_OK)
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
    }
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
        uint32_t ix[3];
        int k = face_of(im, mesh, f, base, m->vertices, ix);
        if (k <= 0) {
            if (k < 0)
                return 0;
            continue;
        }
        sweep_status st = sweep_level_mover_add_triangle(m, ix[0], ix[1], ix[2], mat);
        if (st != SWEEP_OK)
            return ifail(im, st, st == SWEEP_E_NOMEM ? "out of memory" : "mover '%s' has more than %u triangles",
                         m->name, SWEEP_MOVER_MAX_TRIANGLES);
        im->stats->mover_triangles++;
    }
    return 1;
}

static int add_mesh(importer *im, const struct aiMesh *mesh, const xform *x, const char *node_name, const sink *s)
{
    if (mesh->mNumFaces == 0)
        return 1;
    uint32_t mat = 0;
    if (!material_id(im, mesh->mMaterialIndex, &mat))
        return 0;
    if (s->mover == SWEEP_NO_MOVER)
        return add_static_mesh(im, mesh, x, node_name, mat);
    return add_mover_mesh(im, mesh, x, node_name, mat, s);
}

static uint32_t count_instances(const struct aiNode *n, int depth)
{
    if (depth > MAX_DEPTH)
        return 0;
    uint32_t c = n->mNumMeshes;
    for (unsigned i = 0; i < n->mNumChildren; i++)
        c += count_instances(n->mChildren[i], depth + 1);
    return c;
}

/* --- one-sided and two-sided meshes (import.h) --------------------------- */

/* Makes room for `need` items; 0 when out of memory. */
static int reserve(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    void *q = realloc(*p, (size_t)need * size);
    if (!q)
        return 0;
    *p = q;
    *cap = need;
    return 1;
}

/* How many vertices and triangles the destination holds now. */
static void dest_counts(const importer *im, uint32_t mover, uint32_t *vc, uint32_t *tc)
{
    if (mover == SWEEP_NO_MOVER) {
        *vc = im->lv->vertex_count, *tc = im->lv->triangle_count;
    } else {
        *vc = im->lv->movers[mover].vertex_count, *tc = im->lv->movers[mover].triangle_count;
    }
}

/* Before the meshes of node n: none has gone anywhere yet. */
static int sides_begin(importer *im, const struct aiNode *n)
{
    if (!reserve((void **)&im->mesh_dest, &im->mesh_dest_cap, n->mNumMeshes, sizeof *im->mesh_dest))
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    for (unsigned i = 0; i < n->mNumMeshes; i++)
        im->mesh_dest[i] = DEST_NONE;
    im->group_count = 0;
    return 1;
}

/* Mesh i of the node is about to go to `mover` (or the level): notes it,
 * and where that destination's share of the node starts. */
static int sides_track(importer *im, unsigned i, uint32_t mover)
{
    im->mesh_dest[i] = mover;
    for (uint32_t g = 0; g < im->group_count; g++)
        if (im->groups[g].mover == mover)
            return 1;
    if (!grow((void **)&im->groups, &im->group_cap, im->group_count, sizeof *im->groups))
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    side_group *g = &im->groups[im->group_count++];
    g->mover = mover;
    dest_counts(im, mover, &g->v0, &g->t0);
    return 1;
}

typedef struct weld_vertex {
    double x, y, z;
    uint32_t id;
} weld_vertex;

/* By position (-0 equal to +0), then by id, so that the order, and with it
 * everything after, never depends on qsort's choices. */
static int weld_cmp(const void *pa, const void *pb)
{
    const weld_vertex *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* An edge between welded vertices lo < hi; dir 1 if the triangle runs it
 * from hi to lo. */
typedef struct side_edge {
    uint64_t key; /* lo << 32 | hi */
    uint32_t dir;
} side_edge;

static int edge_cmp(const void *pa, const void *pb)
{
    const side_edge *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->dir < b->dir ? -1 : a->dir > b->dir;
}

/*
 * Counts the edges of triangles [t0, tc) (vertices in [v0, vc)) that keep
 * them from being a closed shell, after welding vertices at exactly the
 * same position: *boundary edges of one triangle, *bad edges of three or
 * more, or of two running the same way. 0 when out of memory.
 */
static int sides_edges(importer *im, const sweep_vec3 *v, uint32_t v0, uint32_t vc, const uint32_t *idx,
                       uint32_t t0, uint32_t tc, uint32_t *boundary, uint32_t *bad)
{
    uint32_t nv = vc - v0, nt = tc - t0;
    weld_vertex *wv = malloc((size_t)nv * sizeof *wv);
    uint32_t *weld = malloc((size_t)nv * sizeof *weld);
    side_edge *e = malloc((size_t)nt * 3 * sizeof *e);
    if (!wv || !weld || !e) {
        free(wv), free(weld), free(e);
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < nv; k++)
        wv[k] = (weld_vertex){v[v0 + k].x, v[v0 + k].y, v[v0 + k].z, k};
    qsort(wv, nv, sizeof *wv, weld_cmp);
    /* A welded vertex is named by the first of its run. */
    uint32_t cls = 0;
    for (uint32_t k = 0; k < nv; k++) {
        if (k == 0 || wv[k].x != wv[k - 1].x || wv[k].y != wv[k - 1].y || wv[k].z != wv[k - 1].z)
            cls = k;
        weld[wv[k].id] = cls;
    }
    size_t ne = 0;
    for (uint32_t t = t0; t < tc; t++)
        for (int j = 0; j < 3; j++) {
            uint32_t a = weld[idx[3 * (size_t)t + j] - v0], b = weld[idx[3 * (size_t)t + (j + 1) % 3] - v0];
            if (a == b)
                continue; /* only a degenerate triangle has one; none is kept */
            uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            e[ne++] = (side_edge){(uint64_t)lo << 32 | hi, a > b};
        }
    qsort(e, ne, sizeof *e, edge_cmp);
    *boundary = *bad = 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        uint32_t back = 0;
        while (j < ne && e[j].key == e[i].key)
            back += e[j++].dir;
        uint32_t uses = (uint32_t)(j - i), fwd = uses - back;
        if (uses == 1)
            (*boundary)++;
        else if (!(fwd == 1 && back == 1))
            (*bad)++;
        i = j;
    }
    free(wv), free(weld), free(e);
    return 1;
}

/* Notes open group g of node n for its warning: a new record, or one more
 * instance of a mesh seen before. */
static int sides_record(importer *im, const struct aiNode *n, const side_group *g, uint32_t boundary,
                        uint32_t bad)
{
    uint32_t k = 0, *key = malloc((size_t)n->mNumMeshes * sizeof *key);
    if (!key)
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    for (unsigned i = 0; i < n->mNumMeshes; i++)
        if (im->mesh_dest[i] == g->mover)
            key[k++] = n->mMeshes[i];
    for (uint32_t r = im->open_head[key[0]]; r != UINT32_MAX; r = im->open[r].next) {
        open_mesh *o = &im->open[r];
        if (o->mesh_count == k && memcmp(o->meshes, key, (size_t)k * sizeof *key) == 0) {
            o->instances++;
            free(key);
            return 1;
        }
    }
    if (!grow((void **)&im->open, &im->open_cap, im->open_count, sizeof *im->open)) {
        free(key);
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    }
    open_mesh *o = &im->open[im->open_count];
    o->meshes = key, o->mesh_count = k, o->instances = 1, o->boundary = boundary, o->bad = bad;
    o->next = im->open_head[key[0]];
    im->open_head[key[0]] = im->open_count++;
    const struct aiString *mn = &im->scene->mMeshes[key[0]]->mName;
    const char *node = n->mName.data;
    int w;
    if (k > 1 || mn->length == 0)
        w = snprintf(o->what, sizeof o->what, k > 1 ? "node '%.120s' (%u meshes)" : "node '%.120s'", node, k);
    else if (strcmp(mn->data, node) == 0)
        w = snprintf(o->what, sizeof o->what, "mesh '%.120s'", node);
    else
        w = snprintf(o->what, sizeof o->what, "mesh '%.120s' (node '%.120s')", mn->data, node);
    if (g->mover != SWEEP_NO_MOVER && w > 0 && (size_t)w < sizeof o->what)
        snprintf(o->what + w, sizeof o->what - (size_t)w, " in mover '%s'", im->lv->movers[g->mover].name);
    return 1;
}

/* Decides the sides of group g of node n, adds the twins it needs after
 * its last triangle and notes it if it is open. */
static int sides_group(importer *im, const struct aiNode *n, const side_group *g)
{
    sweep_level *lv = im->lv;
    sweep_level_mover *m = g->mover == SWEEP_NO_MOVER ? NULL : &lv->movers[g->mover];
    uint32_t vc, tc;
    dest_counts(im, g->mover, &vc, &tc);
    const uint32_t *mat = m ? m->materials : lv->materials;
    uint32_t ruled = 0; /* triangles no material option decides */
    for (uint32_t t = g->t0; t < tc; t++)
        ruled += im->material_sides[mat[t]] == SIDES_MESH;
    const sweep_import_sides sides = im->opt->sides;
    uint32_t boundary = 0, bad = 0;
    if (ruled && sides != SWEEP_SIDES_TWO &&
        !sides_edges(im, m ? m->vertices : lv->vertices, g->v0, vc, m ? m->indices : lv->indices, g->t0, tc,
                     &boundary, &bad))
        return 0;
    const int open = boundary || bad;
    const int mesh_two = sides == SWEEP_SIDES_TWO || (sides == SWEEP_SIDES_AUTO && open);
    /* The arrays grow as twins are added: read them afresh each time. */
    for (uint32_t t = g->t0; t < tc; t++) {
        const uint32_t *ix = (m ? m->indices : lv->indices) + 3 * (size_t)t;
        uint32_t mt = (m ? m->materials : lv->materials)[t], rule = im->material_sides[mt];
        if (!(rule == SIDES_TWO_MAT || (rule == SIDES_MESH && mesh_two)))
            continue;
        uint32_t a = ix[0], b = ix[1], c = ix[2];
        sweep_status st =
            m ? sweep_level_mover_add_triangle(m, a, c, b, mt) : sweep_level_add_triangle(lv, a, c, b, mt);
        if (st != SWEEP_OK) {
            if (st == SWEEP_E_NOMEM)
                return ifail(im, st, "out of memory");
            if (m)
                return ifail(im, st, "mover '%s' has more than %u triangles once two-sided", m->name,
                             SWEEP_MOVER_MAX_TRIANGLES);
            return ifail(im, st, "more triangles than the core accepts once two-sided");
        }
        if (m)
            im->stats->mover_triangles++;
        else
            im->stats->triangles++;
        im->stats->twins++;
    }
    if (open && ruled) {
        im->stats->meshes_open++;
        if (sides == SWEEP_SIDES_AUTO)
            im->stats->meshes_two_sided++;
        return sides_record(im, n, g, boundary, bad);
    }
    return 1;
}

/* After the meshes of node n: each destination's share decided. */
static int sides_end(importer *im, const struct aiNode *n)
{
    for (uint32_t g = 0; g < im->group_count; g++)
        if (!sides_group(im, n, &im->groups[g]))
            return 0;
    return 1;
}

/* The open meshes' warnings, in the order the meshes came. */
static void sides_warn(importer *im)
{
    for (uint32_t r = 0; r < im->open_count; r++) {
        const open_mesh *o = &im->open[r];
        char msg[640], bad[128] = "", inst[64] = "";
        if (o->bad)
            snprintf(bad, sizeof bad, ", %u edge%s of three or more triangles or of two wound the same way", o->bad,
                     o->bad == 1 ? "" : "s");
        if (o->instances > 1)
            snprintf(inst, sizeof inst, ", %u instances", o->instances);
        snprintf(msg, sizeof msg, "%s is open (%u boundary edge%s%s%s): %s", o->what, o->boundary,
                 o->boundary == 1 ? "" : "s", bad, inst,
                 im->opt->sides == SWEEP_SIDES_AUTO ? "made two-sided"
                                                    : "kept one-sided, so players pass through it from behind");
        im->stats->open_warnings++;
        if (im->opt->warning)
            im->opt->warning(im->opt->warning_ctx, msg);
    }
}

static void warn_of(importer *im, const char *fmt, ...)
{
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (im->opt->warning)
        im->opt->warning(im->opt->warning_ctx, msg);
}

/* Nothing the scene holds is dropped without a word: spawns that cannot
 * be where the designer meant, and the nodes that became nothing. */
static void spawns_and_skipped_warn(importer *im)
{
    for (uint32_t i = 0; i < im->spawn_at_origin.count; i++)
        warn_of(im,
                "spawn node '%s' is at the file's origin (0, 0, 0): the node has no position of its own (an OBJ "
                "object never has one, whatever its vertices say); place it as an empty node with a position, or "
                "give spawn points with --spawns FILE",
                im->spawn_at_origin.rows[i].name);
    for (uint32_t i = 0; i < im->spawn_with_meshes.count; i++)
        warn_of(im,
                "node '%s' is named as a spawn point but holds meshes: they were imported as geometry and no spawn "
                "point was made (a spawn is an empty node, or a line of --spawns FILE)",
                im->spawn_with_meshes.rows[i].name);
    if (im->skipped.total) {
        char list[400];
        sweep__tally_format(&im->skipped, list, sizeof list);
        warn_of(im, "skipped: %s (node%s without meshes the importer does not turn into anything)", list,
                im->skipped.total == 1 ? "" : "s");
    }
}

static void sides_free(importer *im)
{
    for (uint32_t r = 0; r < im->open_count; r++)
        free(im->open[r].meshes);
    free(im->open);
    free(im->open_head);
    free(im->groups);
    free(im->mesh_dest);
    free(im->material_sides);
}

/* --- rules (shared by the side file and node extras) ---------------------- */

/* The value of rule `what` ('m'ode, 't'rigger, 'b'locked) spelled s, or -1. */
static int rule_value(char what, const char *s)
{
    for (int i = 0;; i++) {
        const char *n = what == 'm'   ? sweep_mover_mode_name((sweep_mover_mode)i)
                        : what == 't' ? sweep_mover_trigger_name((sweep_mover_trigger)i)
                                      : sweep_mover_blocked_name((sweep_mover_blocked)i);
        if (!n)
            return -1;
        if (strcmp(n, s) == 0)
            return i;
    }
}

/* "once, loop or pingpong": the spellings of rule `what`, for messages. */
static const char *rule_spellings(char what)
{
    return what == 'm' ? "once, loop or pingpong" : what == 't' ? "always, volume, touch or command"
                                                                : "stop, reverse or crush";
}

static void rules_default(rules *r)
{
    memset(r, 0, sizeof *r);
    r->mode = SWEEP_MOVER_PINGPONG;
    r->trigger = SWEEP_TRIGGER_ALWAYS;
    r->blocked = SWEEP_BLOCKED_STOP;
}

/* Sets rule `what` to the value spelled s; 0 if s spells none. */
static int rules_set(rules *r, char what, const char *s)
{
    int v = rule_value(what, s);
    if (v < 0)
        return 0;
    if (what == 'm')
        r->mode = (sweep_mover_mode)v, r->set |= RULE_MODE;
    else if (what == 't')
        r->trigger = (sweep_mover_trigger)v, r->set |= RULE_TRIGGER;
    else
        r->blocked = (sweep_mover_blocked)v, r->set |= RULE_BLOCKED;
    return 1;
}

/* Copies the rules r gives (all of them when all is set) onto mover m. */
static void rules_apply(const rules *r, int all, sweep_level_mover *m)
{
    if (all || (r->set & RULE_MODE))
        m->mode = r->mode;
    if (all || (r->set & RULE_TRIGGER))
        m->trigger = r->trigger;
    if (all || (r->set & RULE_BLOCKED))
        m->blocked = r->blocked;
    if (all || (r->set & RULE_WAIT))
        m->wait_start = r->wait_start, m->wait_end = r->wait_end;
    if (all || (r->set & RULE_VOLUME))
        m->volume_min = r->volume_min, m->volume_max = r->volume_max;
}

static int box_ok(sweep_vec3 lo, sweep_vec3 hi)
{
    return lo.x < hi.x && lo.y < hi.y && lo.z < hi.z;
}

/* --- the side file -------------------------------------------------------- */

/*
 * Splits line into words in place: blanks separate them, "double quotes"
 * keep blanks inside one, '#' outside quotes ends the line. Returns the
 * count, -1 for an unterminated quote, -2 for more than max words.
 */
static int split_words(char *line, char **w, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0' || *p == '#')
            return n;
        if (n == max)
            return -2;
        if (*p == '"') {
            char *end = strchr(p + 1, '"');
            if (!end)
                return -1;
            *end = '\0';
            w[n++] = p + 1;
            p = end + 1;
            if (*p && !strchr(" \t\r\n#", *p))
                return -1;
            continue;
        }
        w[n++] = p;
        while (*p && !strchr(" \t\r\n", *p))
            p++;
        if (*p)
            *p++ = '\0';
    }
}

/* Word w read as a number in [lo, hi] for `what`; 0 after an error. */
static int side_number(importer *im, unsigned line, const char *w, double lo, double hi, const char *what,
                       double *out)
{
    if (sweep_parse_double(w, lo, hi, out))
        return 1;
    return side_fail(im, line, "%s: '%s' is not a number in [%g, %g]", what, w, lo, hi);
}

/* Three words as a point in map coordinates. */
static int side_point(importer *im, unsigned line, char **w, const char *what, sweep_vec3 *out)
{
    double l = im->lv->config.max_coordinate, v[3];
    for (int k = 0; k < 3; k++)
        if (!side_number(im, line, w[k], -l, l, what, &v[k]))
            return 0;
    *out = sweep_v3(v[0], v[1], v[2]);
    return 1;
}

/* RULEs in words w[i..n) of line `line`. */
static int side_rules(importer *im, unsigned line, char **w, int i, int n, rules *r)
{
    while (i < n) {
        const char *k = w[i];
        if (strcmp(k, "mode") == 0 || strcmp(k, "trigger") == 0 || strcmp(k, "blocked") == 0) {
            if (i + 1 >= n)
                return side_fail(im, line, "'%s' wants one of %s", k, rule_spellings(k[0]));
            if (!rules_set(r, k[0], w[i + 1]))
                return side_fail(im, line, "unknown %s '%s' (%s)", k, w[i + 1], rule_spellings(k[0]));
            i += 2;
        } else if (strcmp(k, "wait") == 0) {
            if (i + 2 >= n)
                return side_fail(im, line, "'wait' wants two numbers of seconds: START END");
            if (!side_number(im, line, w[i + 1], 0.0, SWEEP_MOVER_MAX_SECONDS, "wait START", &r->wait_start) ||
                !side_number(im, line, w[i + 2], 0.0, SWEEP_MOVER_MAX_SECONDS, "wait END", &r->wait_end))
                return 0;
            r->set |= RULE_WAIT;
            i += 3;
        } else if (strcmp(k, "volume") == 0) {
            if (i + 6 >= n)
                return side_fail(im, line, "'volume' wants six numbers: X0 Y0 Z0 X1 Y1 Z1");
            if (!side_point(im, line, &w[i + 1], "volume", &r->volume_min) ||
                !side_point(im, line, &w[i + 4], "volume", &r->volume_max))
                return 0;
            if (!box_ok(r->volume_min, r->volume_max))
                return side_fail(im, line, "the volume box needs X0 < X1, Y0 < Y1 and Z0 < Z1");
            r->set |= RULE_VOLUME;
            i += 7;
        } else {
            return side_fail(im, line, "unknown word '%s' (a rule is mode, trigger, blocked, wait or volume)", k);
        }
    }
    return 1;
}

/* 'key T X Y Z QX QY QZ QW' or 'key T X Y Z axis AX AY AZ deg D'. */
static int side_key(importer *im, unsigned line, char **w, int n, side_mover *sm)
{
    int quat_form = n == 9, axis_form = n == 11 && strcmp(w[5], "axis") == 0 && strcmp(w[9], "deg") == 0;
    if (!quat_form && !axis_form)
        return side_fail(im, line, "'key' wants T X Y Z QX QY QZ QW, or T X Y Z axis AX AY AZ deg D");
    double t;
    sweep_vec3 p;
    if (!side_number(im, line, w[1], 0.0, SWEEP_MOVER_MAX_SECONDS, "key time", &t) ||
        !side_point(im, line, &w[2], "key position", &p))
        return 0;
    if (sm->key_count == 0 && t != 0.0)
        return side_fail(im, line, "the first key of mover '%s' must be at time 0, not %g", sm->name, t);
    if (sm->key_count > 0 && !(t > sm->keys[sm->key_count - 1].time))
        return side_fail(im, line, "key time %g is not after the previous key's %g", t,
                         sm->keys[sm->key_count - 1].time);
    if (sm->key_count >= SWEEP_MOVER_MAX_KEYFRAMES)
        return side_fail(im, line, "mover '%s' has more than %u keys", sm->name, SWEEP_MOVER_MAX_KEYFRAMES);
    sweep_quat q;
    if (quat_form) {
        double c[4];
        for (int k = 0; k < 4; k++)
            if (!side_number(im, line, w[5 + k], -2.0, 2.0, "quaternion", &c[k]))
                return 0;
        q.x = c[0], q.y = c[1], q.z = c[2], q.w = c[3];
        double len = sqrt(sweep_quat_dot(q, q));
        if (!(fabs(len - 1.0) <= SIDE_QUAT_SLACK))
            return side_fail(im, line,
                             "the quaternion (%g %g %g %g) has length %g, not 1 (give QX QY QZ QW of a unit "
                             "quaternion, or 'axis AX AY AZ deg D')",
                             q.x, q.y, q.z, q.w, len);
        q = sweep_quat_normalize(q);
    } else {
        double a[3], deg;
        for (int k = 0; k < 3; k++)
            if (!side_number(im, line, w[6 + k], -1e6, 1e6, "axis", &a[k]))
                return 0;
        if (!side_number(im, line, w[10], -1e6, 1e6, "angle in degrees", &deg))
            return 0;
        double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (!(len > 1e-12))
            return side_fail(im, line, "the rotation axis (%g %g %g) has no direction", a[0], a[1], a[2]);
        double h = deg * (PI / 360.0), s = sin(h) / len;
        q.x = a[0] * s, q.y = a[1] * s, q.z = a[2] * s, q.w = cos(h);
        q = sweep_quat_normalize(q);
    }
    if (!grow((void **)&sm->keys, &sm->key_cap, sm->key_count, sizeof *sm->keys))
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    sweep_keyframe *k = &sm->keys[sm->key_count++];
    k->time = t;
    k->pose.position = v3_plus_zero(p);
    k->pose.rotation = quat_plus_zero(q);
    sm->key_line = line;
    return 1;
}

static uint32_t side_find(const side_file *sf, const char *name)
{
    for (uint32_t i = 0; i < sf->count; i++)
        if (strcmp(sf->movers[i].name, name) == 0)
            return i;
    return SWEEP_NO_MOVER;
}

/* One non-empty line of the side file, split into n words. */
static int side_line(importer *im, unsigned line, char **w, int n, uint32_t *cur)
{
    side_file *sf = &im->side;
    const char *k = w[0];
    if (strcmp(k, "mover") == 0) {
        if (n < 2)
            return side_fail(im, line, "'mover' wants a NAME");
        size_t len = strlen(w[1]);
        if (len == 0 || len >= SWEEP_LEVEL_NAME_MAX)
            return side_fail(im, line, "a mover name must be 1 to %d bytes", SWEEP_LEVEL_NAME_MAX - 1);
        uint32_t prev = side_find(sf, w[1]);
        if (prev != SWEEP_NO_MOVER)
            return side_fail(im, line, "mover '%s' is already defined on line %u", w[1], sf->movers[prev].line);
        if (!grow((void **)&sf->movers, &sf->cap, sf->count, sizeof *sf->movers))
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
        side_mover *sm = &sf->movers[sf->count];
        memset(sm, 0, sizeof *sm);
        memcpy(sm->name, w[1], len + 1);
        sm->line = line;
        sm->mover = SWEEP_NO_MOVER;
        rules_default(&sm->r);
        *cur = sf->count++;
        return side_rules(im, line, w, 2, n, &sm->r);
    }
    int rule = strcmp(k, "mode") == 0 || strcmp(k, "trigger") == 0 || strcmp(k, "blocked") == 0 ||
               strcmp(k, "wait") == 0 || strcmp(k, "volume") == 0;
    if (!rule && strcmp(k, "mesh") != 0 && strcmp(k, "pivot") != 0 && strcmp(k, "key") != 0)
        return side_fail(im, line, "unknown word '%s' (a line starts with mover, mesh, pivot, key, mode, "
                                   "trigger, blocked, wait or volume)", k);
    if (*cur == SWEEP_NO_MOVER)
        return side_fail(im, line, "'%s' before any 'mover NAME' line", k);
    side_mover *sm = &sf->movers[*cur];
    if (rule)
        return side_rules(im, line, w, 0, n, &sm->r);
    if (strcmp(k, "pivot") == 0) {
        if (n != 4)
            return side_fail(im, line, "'pivot' wants three numbers: X Y Z");
        return side_point(im, line, &w[1], "pivot", &sm->pivot);
    }
    if (strcmp(k, "key") == 0)
        return side_key(im, line, w, n, sm);
    /* mesh NAME... */
    if (n < 2)
        return side_fail(im, line, "'mesh' wants the names of nodes or meshes of the scene");
    for (int i = 1; i < n; i++) {
        for (uint32_t c = 0; c < sf->claim_count; c++)
            if (strcmp(sf->claims[c].name, w[i]) == 0)
                return side_fail(im, line, "'%s' is already given to mover '%s' on line %u", w[i],
                                 sf->movers[sf->claims[c].side].name, sf->claims[c].line);
        if (!grow((void **)&sf->claims, &sf->claim_cap, sf->claim_count, sizeof *sf->claims))
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
        claim *c = &sf->claims[sf->claim_count];
        c->name = strdup(w[i]);
        if (!c->name)
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
        c->line = line, c->side = *cur, c->used = 0;
        sf->claim_count++;
    }
    if (!sm->mesh_line)
        sm->mesh_line = line;
    return 1;
}

/* Reads the side file into im->side and checks each block on its own. */
static int side_read(importer *im, const char *path)
{
    side_file *sf = &im->side;
    sf->path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return ifail(im, SWEEP_E_GEOMETRY, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned no = 0;
    uint32_t cur = SWEEP_NO_MOVER;
    int ok = 1;
    char **w = malloc(SIDE_MAX_WORDS * sizeof *w);
    if (!w)
        ok = ifail(im, SWEEP_E_NOMEM, "out of memory");
    while (ok && (len = getline(&line, &cap, f)) != -1) {
        no++;
        if (strlen(line) != (size_t)len) {
            ok = side_fail(im, no, "a NUL byte (this is not a text file)");
            break;
        }
        int n = split_words(line, w, SIDE_MAX_WORDS);
        if (n == -1)
            ok = side_fail(im, no, "a \"quoted name\" is not closed, or runs into the next word");
        else if (n == -2)
            ok = side_fail(im, no, "more than %d words on one line", SIDE_MAX_WORDS);
        else if (n > 0)
            ok = side_line(im, no, w, n, &cur);
    }
    if (ok && ferror(f))
        ok = ifail(im, SWEEP_E_GEOMETRY, "%s: read error", path);
    free(w);
    free(line);
    fclose(f);
    for (uint32_t i = 0; ok && i < sf->count; i++) {
        const side_mover *sm = &sf->movers[i];
        if (sm->key_count && !sm->mesh_line)
            ok = side_fail(im, sm->line, "mover '%s' has keys but no 'mesh' line naming the nodes or meshes "
                                         "that form it", sm->name);
        else if (sm->mesh_line && sm->key_count < 2)
            ok = side_fail(im, sm->line, "mover '%s' needs two 'key' lines or more (it has %u)", sm->name,
                           sm->key_count);
    }
    return ok;
}

/* Makes a level mover for every side-file block with meshes, in file order. */
static int side_make_movers(importer *im)
{
    side_file *sf = &im->side;
    for (uint32_t i = 0; i < sf->count; i++) {
        side_mover *sm = &sf->movers[i];
        if (!sm->mesh_line)
            continue;
        sweep_level *lv = im->lv;
        uint32_t mi;
        if (!grow((void **)&im->origins, &im->origin_cap, lv->mover_count, sizeof *im->origins) ||
            sweep_level_add_mover(lv, lv->mover_count + 1, sm->name, &mi) != SWEEP_OK)
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
        im->origins[mi].node = NULL;
        im->origins[mi].side = i;
        sweep_level_mover *m = &lv->movers[mi];
        rules_apply(&sm->r, 1, m);
        for (uint32_t k = 0; k < sm->key_count; k++)
            if (sweep_level_mover_add_keyframe(m, sm->keys[k].time, sm->keys[k].pose.position,
                                               sm->keys[k].pose.rotation) != SWEEP_OK)
                return ifail(im, SWEEP_E_NOMEM, "out of memory");
        sm->mover = mi;
        im->stats->movers_from_file++;
    }
    return 1;
}

/* The claim on `name`, or NULL. */
static claim *side_claim(importer *im, const char *name)
{
    for (uint32_t c = 0; c < im->side.claim_count; c++)
        if (strcmp(im->side.claims[c].name, name) == 0)
            return &im->side.claims[c];
    return NULL;
}

static void side_free(side_file *sf)
{
    for (uint32_t i = 0; i < sf->count; i++)
        free(sf->movers[i].keys);
    for (uint32_t c = 0; c < sf->claim_count; c++)
        free(sf->claims[c].name);
    free(sf->movers);
    free(sf->claims);
}

/* --- animation channels --------------------------------------------------- */

static int channel_cmp(const void *a, const void *b)
{
    const channel_ref *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Indexes every animation channel by node name. */
static int index_channels(importer *im)
{
    const struct aiScene *sc = im->scene;
    uint64_t total = 0;
    for (unsigned a = 0; a < sc->mNumAnimations; a++)
        if (sc->mAnimations[a])
            total += sc->mAnimations[a]->mNumChannels;
    if (total == 0)
        return 1;
    if (total > UINT32_MAX / 2)
        return ifail(im, SWEEP_E_GEOMETRY, "more than %u animation channels", UINT32_MAX / 2);
    im->channels = malloc((size_t)total * sizeof *im->channels);
    if (!im->channels)
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    for (unsigned a = 0; a < sc->mNumAnimations; a++) {
        const struct aiAnimation *an = sc->mAnimations[a];
        for (unsigned c = 0; an && c < an->mNumChannels; c++) {
            if (!an->mChannels[c])
                continue;
            channel_ref *r = &im->channels[im->channel_count++];
            r->node = an->mChannels[c]->mNodeName.data;
            r->anim = an;
            r->ch = an->mChannels[c];
            r->order = (uint64_t)a << 32 | c;
        }
    }
    qsort(im->channels, im->channel_count, sizeof *im->channels, channel_cmp);
    return 1;
}

/* The first channel that animates node `name`, and in *more how many more
 * do; NULL if none. */
static const channel_ref *find_channel(const importer *im, const char *name, uint32_t *more)
{
    uint32_t lo = 0, hi = im->channel_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(im->channels[mid].node, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == im->channel_count || strcmp(im->channels[lo].node, name) != 0)
        return NULL;
    uint32_t end = lo + 1;
    while (end < im->channel_count && strcmp(im->channels[end].node, name) == 0)
        end++;
    if (more)
        *more = end - lo - 1;
    return &im->channels[lo];
}

static int channel_moves(const struct aiNodeAnim *ch)
{
    return ch->mNumPositionKeys > 1 || ch->mNumRotationKeys > 1 || ch->mNumScalingKeys > 1;
}

/* Checks a channel's key times: finite, not negative, strictly increasing. */
static int check_times(importer *im, const char *mover, const char *what, const double *t0, size_t stride,
                       unsigned n)
{
    double prev = 0.0;
    for (unsigned i = 0; i < n; i++) {
        double t = *(const double *)((const char *)t0 + i * stride);
        if (!isfinite(t) || t < 0.0)
            return ifail(im, SWEEP_E_GEOMETRY, "mover '%s': %s key %u has time %g (negative or not a number)",
                         mover, what, i, t);
        if (i > 0 && !(t > prev))
            return ifail(im, SWEEP_E_GEOMETRY,
                         "mover '%s': %s keys %u and %u are not in increasing time order (%g, %g); a step "
                         "animation cannot be a mover",
                         mover, what, i - 1, i, prev, t);
        prev = t;
    }
    return 1;
}

static sweep_vec3 vkey(const struct aiVectorKey *k)
{
    return sweep_v3(k->mValue.x, k->mValue.y, k->mValue.z);
}

static sweep_quat qkey(const struct aiQuatKey *k)
{
    sweep_quat q = {k->mValue.x, k->mValue.y, k->mValue.z, k->mValue.w};
    return sweep_quat_normalize(q);
}

/* Position keys k[0..n) at time t (ticks): lerp, held at the ends. */
static sweep_vec3 position_at(const struct aiVectorKey *k, unsigned n, double t)
{
    if (t <= k[0].mTime)
        return vkey(&k[0]);
    for (unsigned i = 0; i + 1 < n; i++) {
        if (t <= k[i + 1].mTime) {
            double u = (t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime);
            sweep_vec3 a = vkey(&k[i]), b = vkey(&k[i + 1]);
            return sweep_v3_add(a, sweep_v3_scale(sweep_v3_sub(b, a), u));
        }
    }
    return vkey(&k[n - 1]);
}

/* Rotation keys k[0..n) at time t (ticks): nlerp, held at the ends. */
static sweep_quat rotation_at(const struct aiQuatKey *k, unsigned n, double t)
{
    if (t <= k[0].mTime)
        return qkey(&k[0]);
    for (unsigned i = 0; i + 1 < n; i++)
        if (t <= k[i + 1].mTime)
            return sweep_quat_nlerp(qkey(&k[i]), qkey(&k[i + 1]),
                                    (t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime));
    return qkey(&k[n - 1]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * The keyframes of mover mi from the animation channel of its node n: the
 * channel gives the node's local translation, rotation and scale over time
 * (a part without keys keeps the node's rest value); parent is the parents'
 * rest transform. The pose at time t is parent * local(t), turned z up and
 * scaled; what is not rigid in it (the node's own scale, the parents'
 * uniform scale) goes into *vx, the transform of the mover's local vertices.
 */
static int scene_keys(importer *im, uint32_t mi, const struct aiNode *n, const channel_ref *cr,
                      const xform *parent, xform *vx)
{
    const struct aiNodeAnim *ch = cr->ch;
    const char *name = im->lv->movers[mi].name;
    double tps = cr->anim->mTicksPerSecond;
    if (!(isfinite(tps) && tps > 0.0))
        tps = DEFAULT_TICKS_PER_SECOND;
    if (!check_times(im, name, "position", ch->mNumPositionKeys ? &ch->mPositionKeys[0].mTime : NULL,
                     sizeof *ch->mPositionKeys, ch->mNumPositionKeys) ||
        !check_times(im, name, "rotation", ch->mNumRotationKeys ? &ch->mRotationKeys[0].mTime : NULL,
                     sizeof *ch->mRotationKeys, ch->mNumRotationKeys) ||
        !check_times(im, name, "scaling", ch->mNumScalingKeys ? &ch->mScalingKeys[0].mTime : NULL,
                     sizeof *ch->mScalingKeys, ch->mNumScalingKeys))
        return 0;
    for (unsigned i = 0; i < ch->mNumRotationKeys; i++) {
        const struct aiQuaternion *q = &ch->mRotationKeys[i].mValue;
        double l2 = (double)q->x * q->x + (double)q->y * q->y + (double)q->z * q->z + (double)q->w * q->w;
        if (!(isfinite(l2) && l2 > 1e-12))
            return ifail(im, SWEEP_E_GEOMETRY, "mover '%s': rotation key %u is not a rotation", name, i);
    }
    for (unsigned i = 0; i < ch->mNumPositionKeys; i++)
        if (!sweep_v3_isfinite(vkey(&ch->mPositionKeys[i])))
            return ifail(im, SWEEP_E_GEOMETRY, "mover '%s': position key %u is not finite", name, i);

    /* The node's rest transform stands in for a part the channel leaves out
     * (glTF files through assimp always have all three). */
    xform rest = xform_of(&n->mTransformation);
    double rest_scale[3], rest_rot[3][3];
    int rest_ok = split_linear(&rest, rest_scale, rest_rot);
    if (!rest_ok && (ch->mNumRotationKeys == 0 || ch->mNumScalingKeys == 0))
        return ifail(im, SWEEP_E_GEOMETRY,
                     "mover '%s' (node '%s'): its rest transform shears or mirrors it; a mover must stay rigid",
                     name, n->mName.data);

    /* The node's own scale: constant over the animation, baked into the
     * local vertices. */
    double own[3] = {rest_scale[0], rest_scale[1], rest_scale[2]};
    if (ch->mNumScalingKeys > 0) {
        sweep_vec3 s0 = vkey(&ch->mScalingKeys[0]);
        own[0] = s0.x, own[1] = s0.y, own[2] = s0.z;
        for (unsigned i = 0; i < 3; i++)
            if (!(isfinite(own[i]) && fabs(own[i]) > 1e-12))
                return ifail(im, SWEEP_E_GEOMETRY, "mover '%s': its scale (%g, %g, %g) flattens or breaks it",
                             name, own[0], own[1], own[2]);
        for (unsigned i = 1; i < ch->mNumScalingKeys; i++) {
            sweep_vec3 s = vkey(&ch->mScalingKeys[i]);
            if (!(fabs(s.x - s0.x) <= FLOAT_SLACK * fabs(s0.x) && fabs(s.y - s0.y) <= FLOAT_SLACK * fabs(s0.y) &&
                  fabs(s.z - s0.z) <= FLOAT_SLACK * fabs(s0.z)))
                return ifail(im, SWEEP_E_GEOMETRY,
                             "mover '%s': its scale changes over the animation (key %u); a mover is rigid", name, i);
        }
    }

    /* The parents: a rotation and one uniform scale, or the mover would
     * change shape as it turns. */
    double pscale[3], prot[3][3];
    if (!split_linear(parent, pscale, prot) || !(fabs(pscale[1] - pscale[0]) <= FLOAT_SLACK * pscale[0]) ||
        !(fabs(pscale[2] - pscale[0]) <= FLOAT_SLACK * pscale[0]))
        return ifail(im, SWEEP_E_GEOMETRY,
                     "mover '%s' (node '%s'): its parent nodes scale it unevenly, shear or mirror it; a mover "
                     "must stay rigid",
                     name, n->mName.data);
    double s = pscale[0];
    *vx = xform_diag(s * own[0], s * own[1], s * own[2]);

    /* Map rotation at t: c * p * r(t) * c^-1, with c the axis turn and p
     * the parents' rotation. */
    double c[3][3], cp[3][3];
    axis_turn(im, c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cp[i][j] = c[i][0] * prot[0][j] + c[i][1] * prot[1][j] + c[i][2] * prot[2][j];
    sweep_quat pre = quat_of_matrix((const double(*)[3])cp), post = sweep_quat_conj(quat_of_matrix((const double(*)[3])c));
    sweep_vec3 rest_t = sweep_v3(rest.m[0][3], rest.m[1][3], rest.m[2][3]);
    sweep_quat rest_q = rest_ok ? quat_of_matrix((const double(*)[3])rest_rot) : sweep_quat_identity();

    /* One time line: every position and rotation key time, and 0. */
    size_t nt = (size_t)ch->mNumPositionKeys + ch->mNumRotationKeys + 1;
    double *times = malloc(nt * sizeof *times);
    if (!times)
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    size_t k = 0;
    times[k++] = 0.0;
    for (unsigned i = 0; i < ch->mNumPositionKeys; i++)
        times[k++] = ch->mPositionKeys[i].mTime;
    for (unsigned i = 0; i < ch->mNumRotationKeys; i++)
        times[k++] = ch->mRotationKeys[i].mTime;
    qsort(times, nt, sizeof *times, cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < nt; i++)
        if (u == 0 || times[i] != times[u - 1])
            times[u++] = times[i];
    if (u < 2) {
        free(times);
        return ifail(im, SWEEP_E_GEOMETRY,
                     "mover '%s' (node '%s'): its animation has a single key time; a mover needs two or more",
                     name, n->mName.data);
    }
    if (u > SWEEP_MOVER_MAX_KEYFRAMES) {
        free(times);
        return ifail(im, SWEEP_E_GEOMETRY, "mover '%s' (node '%s'): %zu key times, more than the %u a mover may have",
                     name, n->mName.data, u, SWEEP_MOVER_MAX_KEYFRAMES);
    }
    int ok = 1;
    double prev = -1.0;
    for (size_t i = 0; ok && i < u; i++) {
        double t = times[i];
        sweep_vec3 lp = ch->mNumPositionKeys ? position_at(ch->mPositionKeys, ch->mNumPositionKeys, t) : rest_t;
        sweep_quat lq = ch->mNumRotationKeys ? rotation_at(ch->mRotationKeys, ch->mNumRotationKeys, t) : rest_q;
        sweep_vec3 p = v3_plus_zero(to_map(im, parent, lp.x, lp.y, lp.z));
        sweep_quat q = quat_plus_zero(sweep_quat_normalize(sweep_quat_mul(sweep_quat_mul(pre, lq), post)));
        double seconds = t / tps;
        if (!within_limit(im, p))
            ok = ifail(im, SWEEP_E_GEOMETRY,
                       "mover '%s' (node '%s'): at %g s it is at (%g, %g, %g), not finite or beyond the coordinate "
                       "limit %g (check --scale)",
                       name, n->mName.data, seconds, p.x, p.y, p.z, im->lv->config.max_coordinate);
        else if (!(seconds > prev && seconds <= SWEEP_MOVER_MAX_SECONDS))
            ok = ifail(im, SWEEP_E_GEOMETRY,
                       "mover '%s' (node '%s'): key time %g s is too close to the one before or past %g s", name,
                       n->mName.data, seconds, SWEEP_MOVER_MAX_SECONDS);
        else if (sweep_level_mover_add_keyframe(&im->lv->movers[mi], seconds, p, q) != SWEEP_OK)
            ok = ifail(im, SWEEP_E_NOMEM, "out of memory");
        prev = seconds;
    }
    free(times);
    return ok;
}

/* --- node extras ---------------------------------------------------------- */

/* A number from metadata (JSON numbers come as uint64, int32 or double). */
static int md_number(const struct aiMetadataEntry *e, double *out)
{
    if (!e->mData)
        return 0;
    switch (e->mType) {
    case AI_INT32:
        *out = *(const int32_t *)e->mData;
        return 1;
    case AI_UINT64:
        *out = (double)*(const uint64_t *)e->mData;
        return 1;
    case AI_FLOAT:
        *out = *(const float *)e->mData;
        return 1;
    case AI_DOUBLE:
        *out = *(const double *)e->mData;
        return 1;
    default:
        return 0;
    }
}

/*
 * The node's `key` extras ("sweep_mover", "sweep_volume"): 1 when the node
 * is a mover (a volume) by them (with *out the object of rules, or NULL for
 * `true`), 0 when it is not, -1 after an error.
 */
static int node_extras(importer *im, const struct aiNode *n, const char *key, const struct aiMetadata **out)
{
    const struct aiMetadata *md = n->mMetaData;
    *out = NULL;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        if (strcmp(md->mKeys[i].data, key) != 0)
            continue;
        const struct aiMetadataEntry *e = &md->mValues[i];
        if (e->mType == AI_AIMETADATA && e->mData) {
            *out = e->mData;
            return 1;
        }
        if (e->mType == AI_BOOL && e->mData)
            return *(const bool *)e->mData ? 1 : 0;
        ifail(im, SWEEP_E_GEOMETRY, "node '%s': its %s extras must be an object of rules or true", n->mName.data,
              key);
        return -1;
    }
    return 0;
}

/* The rules (and name) in a node's sweep_mover extras object. */
static int parse_extras(importer *im, const struct aiNode *n, const struct aiMetadata *md, rules *r,
                        char name[SWEEP_LEVEL_NAME_MAX])
{
    const char *node = n->mName.data;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        const char *k = md->mKeys[i].data;
        const struct aiMetadataEntry *e = &md->mValues[i];
        const char *str = e->mType == AI_AISTRING && e->mData ? ((const struct aiString *)e->mData)->data : NULL;
        double v;
        if (strcmp(k, "name") == 0) {
            if (!str || !*str || strlen(str) >= SWEEP_LEVEL_NAME_MAX)
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_mover name must be a string of 1 to %d bytes",
                             node, SWEEP_LEVEL_NAME_MAX - 1);
            snprintf(name, SWEEP_LEVEL_NAME_MAX, "%s", str);
        } else if (strcmp(k, "mode") == 0 || strcmp(k, "trigger") == 0 || strcmp(k, "blocked") == 0) {
            if (!str || !rules_set(r, k[0], str))
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_mover %s must be one of %s", node, k,
                             rule_spellings(k[0]));
        } else if (strcmp(k, "wait_start") == 0 || strcmp(k, "wait_end") == 0) {
            if (!md_number(e, &v) || !(v >= 0.0 && v <= SWEEP_MOVER_MAX_SECONDS))
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_mover %s must be a number of seconds in [0, %g]",
                             node, k, SWEEP_MOVER_MAX_SECONDS);
            if (strcmp(k, "wait_start") == 0)
                r->wait_start = v;
            else
                r->wait_end = v;
            r->set |= RULE_WAIT;
        } else if (strcmp(k, "volume") == 0) {
            const struct aiMetadata *a = e->mType == AI_AIMETADATA ? e->mData : NULL;
            double b[6];
            int good = a && a->mNumProperties == 6;
            for (unsigned j = 0; good && j < 6; j++)
                good = md_number(&a->mValues[j], &b[j]) && isfinite(b[j]) &&
                       fabs(b[j]) <= im->lv->config.max_coordinate;
            if (good) {
                r->volume_min = sweep_v3(b[0], b[1], b[2]);
                r->volume_max = sweep_v3(b[3], b[4], b[5]);
                good = box_ok(r->volume_min, r->volume_max);
            }
            if (!good)
                return ifail(im, SWEEP_E_GEOMETRY,
                             "node '%s': sweep_mover volume must be [x0, y0, z0, x1, y1, z1] in map coordinates "
                             "with x0 < x1, y0 < y1, z0 < z1",
                             node);
            r->set |= RULE_VOLUME;
        } else {
            return ifail(im, SWEEP_E_GEOMETRY,
                         "node '%s': unknown key '%s' in its sweep_mover extras (name, mode, trigger, blocked, "
                         "wait_start, wait_end, volume)",
                         node, k);
        }
    }
    return 1;
}

/* Whether node n is a mover by its name or extras: 1 (with its rules and
 * name filled in), 0, or -1 after an error. */
/*
 * Whether node n is marked a `what` ("mover", "volume") by its name
 * (starting with prefix, any case) or by its `key` extras: 1 with *md the
 * extras object (NULL for `true` or none) and name the node's name without
 * the prefix (the whole name where that leaves nothing), 0, or -1 after
 * an error.
 */
static int node_marked(importer *im, const struct aiNode *n, const char *prefix, const char *key, const char *what,
                       const struct aiMetadata **md, char name[SWEEP_LEVEL_NAME_MAX])
{
    size_t plen = prefix ? strlen(prefix) : 0;
    int by_name = plen && strncasecmp(n->mName.data, prefix, plen) == 0;
    int by_extras = node_extras(im, n, key, md);
    if (by_extras < 0)
        return -1;
    if (!by_name && !by_extras)
        return 0;
    const char *base = by_name && n->mName.data[plen] ? n->mName.data + plen : n->mName.data;
    if (strlen(base) >= SWEEP_LEVEL_NAME_MAX) {
        ifail(im, SWEEP_E_GEOMETRY, "%s node '%.40s...': the %s's name is longer than %d bytes", what, n->mName.data,
              what, SWEEP_LEVEL_NAME_MAX - 1);
        return -1;
    }
    snprintf(name, SWEEP_LEVEL_NAME_MAX, "%s", base);
    return 1;
}

static int scene_mover_of(importer *im, const struct aiNode *n, rules *r, char name[SWEEP_LEVEL_NAME_MAX])
{
    const struct aiMetadata *md = NULL;
    int marked = node_marked(im, n, im->opt->mover_prefix, "sweep_mover", "mover", &md, name);
    if (marked <= 0)
        return marked;
    rules_default(r);
    if (md && !parse_extras(im, n, md, r, name))
        return -1;
    if (!*name) {
        ifail(im, SWEEP_E_GEOMETRY, "a mover node has no name; name it or give a sweep_mover name");
        return -1;
    }
    return 1;
}

/* Starts the mover of scene node n (its keys from its channel); its index
 * in *mi and the transform of its local vertices in *vx. */
static int make_scene_mover(importer *im, const struct aiNode *n, const rules *r, const char *name,
                            const xform *parent, uint32_t *mi, xform *vx)
{
    sweep_level *lv = im->lv;
    uint32_t prev = sweep_level_find_mover(lv, name);
    if (prev != SWEEP_NO_MOVER) {
        const mover_origin *o = &im->origins[prev];
        if (o->node)
            return ifail(im, SWEEP_E_GEOMETRY, "nodes '%s' and '%s' both make a mover named '%s'",
                         o->node->mName.data, n->mName.data, name);
        return ifail(im, SWEEP_E_GEOMETRY, "node '%s' makes a mover named '%s', as %s line %u does", n->mName.data,
                     name, im->side.path, im->side.movers[o->side].line);
    }
    uint32_t more = 0;
    const channel_ref *cr = find_channel(im, n->mName.data, &more);
    if (!cr)
        return ifail(im, SWEEP_E_GEOMETRY,
                     "mover '%s' (node '%s') has no animation: animate the node, or name its nodes in a --movers "
                     "file instead of marking it",
                     name, n->mName.data);
    if (!grow((void **)&im->origins, &im->origin_cap, lv->mover_count, sizeof *im->origins) ||
        sweep_level_add_mover(lv, lv->mover_count + 1, name, mi) != SWEEP_OK)
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    im->origins[*mi].node = n;
    im->origins[*mi].side = SWEEP_NO_MOVER;
    rules_apply(r, 1, &lv->movers[*mi]);
    im->stats->channels_ignored += more;
    return scene_keys(im, *mi, n, cr, parent, vx);
}

/* --- volumes -------------------------------------------------------------- */

/* The volume kind spelled s (len bytes), as the map writes it. */
static int volume_kind_of(const char *s, size_t len, sweep_volume_kind *out)
{
    for (int k = 0; k < SWEEP_VOLUME_KIND_COUNT; k++) {
        const char *name = sweep_volume_kind_name((sweep_volume_kind)k);
        if (strlen(name) == len && strncasecmp(s, name, len) == 0) {
            *out = (sweep_volume_kind)k;
            return 1;
        }
    }
    return 0;
}

/* Three finite numbers [x, y, z] from metadata. */
static int md_vec3(const struct aiMetadataEntry *e, sweep_vec3 *out)
{
    const struct aiMetadata *a = e->mType == AI_AIMETADATA ? e->mData : NULL;
    double b[3];
    if (!a || a->mNumProperties != 3)
        return 0;
    for (unsigned j = 0; j < 3; j++)
        if (!md_number(&a->mValues[j], &b[j]) || !isfinite(b[j]))
            return 0;
    *out = sweep_v3(b[0], b[1], b[2]);
    return 1;
}

/* What a volume's extras or name set, beside its shell. */
enum { VOL_KIND = 1, VOL_VELOCITY = 2, VOL_DESTINATION = 4, VOL_DAMAGE = 8 };

/* The keys of a node's sweep_volume extras object into *v and name. */
static int parse_volume_extras(importer *im, const struct aiNode *n, const struct aiMetadata *md, sweep_volume *v,
                               char name[SWEEP_LEVEL_NAME_MAX], unsigned *set)
{
    const char *node = n->mName.data;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        const char *k = md->mKeys[i].data;
        const struct aiMetadataEntry *e = &md->mValues[i];
        const char *str = e->mType == AI_AISTRING && e->mData ? ((const struct aiString *)e->mData)->data : NULL;
        double x;
        if (strcmp(k, "kind") == 0) {
            if (!str || !volume_kind_of(str, strlen(str), &v->kind))
                return ifail(im, SWEEP_E_GEOMETRY,
                             "node '%s': sweep_volume kind must be one of push, teleport, hurt, kill, trigger", node);
            *set |= VOL_KIND;
        } else if (strcmp(k, "name") == 0) {
            if (!str || !*str || strlen(str) >= SWEEP_LEVEL_NAME_MAX)
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_volume name must be a string of 1 to %d bytes",
                             node, SWEEP_LEVEL_NAME_MAX - 1);
            snprintf(name, SWEEP_LEVEL_NAME_MAX, "%s", str);
        } else if (strcmp(k, "velocity") == 0 || strcmp(k, "destination") == 0 || strcmp(k, "facing") == 0) {
            sweep_vec3 p;
            if (!md_vec3(e, &p))
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_volume %s must be [x, y, z], finite numbers",
                             node, k);
            if (k[0] == 'v')
                v->velocity = p, *set |= VOL_VELOCITY;
            else if (k[0] == 'd')
                v->destination = p, *set |= VOL_DESTINATION;
            else
                v->facing = p;
        } else if (strcmp(k, "exit_speed") == 0 || strcmp(k, "damage") == 0) {
            if (!md_number(e, &x) || !isfinite(x))
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_volume %s must be a number", node, k);
            if (k[0] == 'e')
                v->exit_speed = x;
            else
                v->damage = x, *set |= VOL_DAMAGE;
        } else if (strcmp(k, "keep_velocity") == 0) {
            if (e->mType != AI_BOOL || !e->mData)
                return ifail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_volume keep_velocity must be true or false", node);
            v->keep_velocity = *(const bool *)e->mData ? 1u : 0u;
        } else {
            return ifail(im, SWEEP_E_GEOMETRY,
                         "node '%s': unknown key '%s' in its sweep_volume extras (kind, name, velocity, destination, "
                         "facing, exit_speed, keep_velocity, damage)",
                         node, k);
        }
    }
    return 1;
}

/*
 * Whether node n is a volume by its name (volume_prefix, then the kind:
 * "sweep_volume_push_pad") or its sweep_volume extras: 1 with *v's kind
 * and what it reads and the name filled in, 0, or -1 after an error.
 */
static int scene_volume_of(importer *im, const struct aiNode *n, sweep_volume *v, char name[SWEEP_LEVEL_NAME_MAX])
{
    const char *prefix = im->opt->volume_prefix;
    const struct aiMetadata *md = NULL;
    int marked = node_marked(im, n, prefix, "sweep_volume", "volume", &md, name);
    if (marked <= 0)
        return marked;
    memset(v, 0, sizeof *v);
    v->facing = sweep_v3(1.0, 0.0, 0.0);
    unsigned set = 0;
    /* By its name, its kind is the name's first word. */
    if (volume_kind_of(name, strcspn(name, "_.- "), &v->kind))
        set |= VOL_KIND;
    if (md && !parse_volume_extras(im, n, md, v, name, &set))
        return -1;
    const char *node = n->mName.data;
    if (!(set & VOL_KIND)) {
        ifail(im, SWEEP_E_GEOMETRY,
              "volume node '%s': no kind: name it %s<kind>... or give sweep_volume extras a kind (push, teleport, "
              "hurt, kill, trigger)",
              node, prefix && *prefix ? prefix : "sweep_volume_");
        return -1;
    }
    static const struct {
        sweep_volume_kind kind;
        unsigned need;
        const char *key;
    } needs[] = {{SWEEP_VOLUME_PUSH, VOL_VELOCITY, "velocity"},
                 {SWEEP_VOLUME_TELEPORT, VOL_DESTINATION, "destination"},
                 {SWEEP_VOLUME_HURT, VOL_DAMAGE, "damage"}};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (v->kind == needs[i].kind && !(set & needs[i].need)) {
            ifail(im, SWEEP_E_GEOMETRY, "volume node '%s': a %s volume needs its %s in the sweep_volume extras", node,
                  sweep_volume_kind_name(v->kind), needs[i].key);
            return -1;
        }
    if (!*name) {
        ifail(im, SWEEP_E_GEOMETRY, "a volume node has no name; name it or give a sweep_volume name");
        return -1;
    }
    return 1;
}

/* Room for `need` items in *p; 0 when out of memory. */
static int room(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* The volume of node n, whose meshes (in map coordinates through x) must
 * be one closed convex shell: added to the level. */
static int make_scene_volume(importer *im, const struct aiNode *n, const xform *x, sweep_volume *v, const char *name)
{
    sweep_level *lv = im->lv;
    sweep_vec3 *pts = NULL;
    uint32_t *tri = NULL, np = 0, nt = 0;
    size_t pcap = 0, tcap = 0;
    int ok = 1;
    for (unsigned i = 0; ok && i < n->mNumMeshes; i++) {
        if (n->mMeshes[i] >= im->scene->mNumMeshes) {
            ok = ifail(im, SWEEP_E_GEOMETRY, "node '%s' names mesh %u, but the file has %u", n->mName.data,
                       n->mMeshes[i], im->scene->mNumMeshes);
            break;
        }
        const struct aiMesh *mesh = im->scene->mMeshes[n->mMeshes[i]];
        if (excluded(im, &mesh->mName))
            continue;
        uint32_t base = np;
        if (!room((void **)&pts, &pcap, (size_t)np + mesh->mNumVertices, sizeof *pts)) {
            ok = ifail(im, SWEEP_E_NOMEM, "out of memory");
            break;
        }
        for (unsigned k = 0; k < mesh->mNumVertices; k++) {
            const struct aiVector3D *p = &mesh->mVertices[k];
            pts[np++] = to_map(im, x, p->x, p->y, p->z);
            if (!within_limit(im, pts[np - 1])) {
                ok = ifail(im, SWEEP_E_GEOMETRY, "volume node '%s': a vertex is not finite or beyond the limit",
                           n->mName.data);
                break;
            }
        }
        for (unsigned f = 0; ok && f < mesh->mNumFaces; f++) {
            const struct aiFace *fc = &mesh->mFaces[f];
            if (fc->mNumIndices != 3)
                continue; /* points and lines bound nothing */
            if (!room((void **)&tri, &tcap, 3 * ((size_t)nt + 1), sizeof *tri)) {
                ok = ifail(im, SWEEP_E_NOMEM, "out of memory");
                break;
            }
            for (int c = 0; c < 3; c++)
                tri[3 * nt + c] = base + fc->mIndices[c];
            nt++;
        }
    }
    char why[300];
    const char *cwhy = NULL;
    if (ok && nt == 0)
        ok = ifail(im, SWEEP_E_GEOMETRY,
                   "volume '%s' (node '%s') has no triangles: its mesh is the volume's shell, a closed convex mesh",
                   name, n->mName.data);
    else if (ok && sweep__shell_volume(pts, np, tri, nt, v, why, sizeof why) != 0)
        ok = ifail(im, SWEEP_E_GEOMETRY,
                   "volume '%s' (node '%s'): its mesh must be one closed convex shell, faces outward: %s", name,
                   n->mName.data, why);
    if (ok) {
        /* As a map stores them (see plus_zero), so that the level is bit
         * for bit what its map loads. */
        v->lo = v3_plus_zero(v->lo), v->hi = v3_plus_zero(v->hi);
        for (uint32_t k = 0; k < v->plane_count; k++) {
            v->planes[k].normal = v3_plus_zero(v->planes[k].normal);
            v->planes[k].offset = plus_zero(v->planes[k].offset);
        }
        v->velocity = v3_plus_zero(v->velocity), v->destination = v3_plus_zero(v->destination);
        v->facing = v3_plus_zero(v->facing);
        v->exit_speed = plus_zero(v->exit_speed), v->damage = plus_zero(v->damage);
    }
    if (ok && sweep_volume_check(v, lv->config.max_speed, lv->config.max_coordinate, &cwhy) != SWEEP_OK)
        ok = ifail(im, SWEEP_E_GEOMETRY, "volume '%s' (node '%s'): %s", name, n->mName.data,
                   cwhy ? cwhy : "out of range");
    if (ok) {
        sweep_status st = sweep_level_add_volume(lv, lv->volume_count + 1, name, v);
        if (st != SWEEP_OK)
            ok = ifail(im, st, st == SWEEP_E_NOMEM ? "out of memory" : "more than %u volumes", SWEEP_VOLUME_MAX);
        else
            im->stats->volumes++;
    }
    free(pts);
    free(tri);
    return ok;
}

/* --- the walk ------------------------------------------------------------- */

/* What a node without meshes or children is: a light or a camera of the
 * scene (they name their node), else an empty node. */
static const char *leaf_kind(const importer *im, const struct aiString *name)
{
    for (unsigned i = 0; i < im->scene->mNumLights; i++)
        if (im->scene->mLights[i]->mName.length == name->length && strcmp(im->scene->mLights[i]->mName.data, name->data) == 0)
            return "light";
    for (unsigned i = 0; i < im->scene->mNumCameras; i++)
        if (im->scene->mCameras[i]->mName.length == name->length &&
            strcmp(im->scene->mCameras[i]->mName.data, name->data) == 0)
            return "camera";
    return "empty node";
}

/*
 * Converts node n and its subtree. parent is the parents' rest transform
 * (spawns and side-file movers use it), vparent the transform of the
 * parent's vertices into the frame of the sink s (the same as parent for
 * the static level).
 */
static int walk(importer *im, const struct aiNode *n, const xform *parent, const xform *vparent, sink s, int depth)
{
    if (depth > MAX_DEPTH)
        return ifail(im, SWEEP_E_GEOMETRY, "the node tree is deeper than %d levels", MAX_DEPTH);
    if (depth > 0 && excluded(im, &n->mName)) {
        im->stats->nodes_excluded++;
        im->stats->meshes_excluded += count_instances(n, depth);
        return 1;
    }
    xform local = xform_of(&n->mTransformation);
    xform x = xform_mul(parent, &local);
    xform vx = xform_mul(vparent, &local);
    const char *prefix = im->opt->spawn_prefix;
    /* Not the root: assimp names an OBJ's root after the file. */
    const int spawn_named =
        depth > 0 && prefix && *prefix && strncasecmp(n->mName.data, prefix, strlen(prefix)) == 0;
    if (n->mNumMeshes == 0 && spawn_named) {
        sweep_vec3 p = to_map(im, &x, 0.0, 0.0, 0.0);
        if (!within_limit(im, p))
            return ifail(im, SWEEP_E_GEOMETRY, "spawn node '%s' is not at a finite position within the limit",
                         n->mName.data);
        if (sweep_level_add_spawn(im->lv, p) != SWEEP_OK)
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
        im->stats->spawns++;
        /* An OBJ object has no transform: its spawn lands here whatever
         * its vertices say. */
        if (p.x == 0.0 && p.y == 0.0 && p.z == 0.0 && !sweep__tally_add(&im->spawn_at_origin, n->mName.data))
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
    } else if (spawn_named && !sweep__tally_add(&im->spawn_with_meshes, n->mName.data)) {
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    }

    /* Does a mover start here? */
    rules r;
    char name[SWEEP_LEVEL_NAME_MAX];
    int marked = scene_mover_of(im, n, &r, name);
    if (marked < 0)
        return 0;
    /* Or is it a volume? Its meshes are its shell, not geometry. */
    sweep_volume vol;
    int volume = depth > 0 ? scene_volume_of(im, n, &vol, name) : 0;
    if (volume < 0)
        return 0;
    if (volume) {
        if (marked || side_claim(im, n->mName.data))
            return ifail(im, SWEEP_E_GEOMETRY, "node '%s' is marked both a mover and a volume", n->mName.data);
        if (s.mover != SWEEP_NO_MOVER)
            return ifail(im, SWEEP_E_GEOMETRY, "volume node '%s' lies inside mover '%s'; volumes do not move",
                         n->mName.data, im->lv->movers[s.mover].name);
        if (!make_scene_volume(im, n, &x, &vol, name))
            return 0;
        im->instances_done += n->mNumMeshes;
        for (unsigned i = 0; i < n->mNumChildren; i++)
            if (!walk(im, n->mChildren[i], &x, &vx, s, depth + 1))
                return 0;
        return 1;
    }
    claim *cl = side_claim(im, n->mName.data);
    const char *inside = s.mover != SWEEP_NO_MOVER ? im->lv->movers[s.mover].name : NULL;
    if (marked && inside)
        return ifail(im, SWEEP_E_GEOMETRY, "node '%s' is a mover inside mover '%s'; movers cannot nest",
                     n->mName.data, inside);
    if (cl && inside && cl->side != s.side)
        return ifail(im, SWEEP_E_GEOMETRY, "%s line %u: '%s' lies inside mover '%s'; movers cannot nest",
                     im->side.path, cl->line, n->mName.data, inside);
    if (marked && cl)
        return ifail(im, SWEEP_E_GEOMETRY, "%s line %u: node '%s' is already a mover by its name or extras",
                     im->side.path, cl->line, n->mName.data);
    if (cl) {
        cl->used = 1;
        if (!inside) {
            s.side = cl->side;
            s.mover = im->side.movers[cl->side].mover;
            s.pivot = im->side.movers[cl->side].pivot;
            vx = x;
        }
    } else if (marked) {
        if (!make_scene_mover(im, n, &r, name, parent, &s.mover, &vx))
            return 0;
        s.side = SWEEP_NO_MOVER;
        s.pivot = sweep_v3(0.0, 0.0, 0.0);
    } else {
        const channel_ref *cr = find_channel(im, n->mName.data, NULL);
        if (cr && channel_moves(cr->ch))
            im->stats->animated_static++;
    }

    if (depth > 0 && n->mNumMeshes == 0 && n->mNumChildren == 0 && !spawn_named && !marked && !cl &&
        !sweep__tally_add(&im->skipped, leaf_kind(im, &n->mName)))
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    if (!sides_begin(im, n))
        return 0;
    for (unsigned i = 0; i < n->mNumMeshes; i++) {
        if (n->mMeshes[i] >= im->scene->mNumMeshes)
            return ifail(im, SWEEP_E_GEOMETRY, "node '%s' names mesh %u, but the file has %u", n->mName.data,
                         n->mMeshes[i], im->scene->mNumMeshes);
        const struct aiMesh *mesh = im->scene->mMeshes[n->mMeshes[i]];
        if (excluded(im, &mesh->mName)) {
            im->stats->meshes_excluded++;
        } else {
            /* A mesh the side file claims by name, where it is not yet in
             * a mover, goes to that mover alone. */
            claim *mc = mesh->mName.length ? side_claim(im, mesh->mName.data) : NULL;
            sink ms = s;
            const xform *mx = &vx;
            if (mc && s.mover != SWEEP_NO_MOVER && mc->side != s.side)
                return ifail(im, SWEEP_E_GEOMETRY, "%s line %u: mesh '%s' lies inside mover '%s'; movers cannot nest",
                             im->side.path, mc->line, mesh->mName.data, im->lv->movers[s.mover].name);
            if (mc) {
                mc->used = 1;
                if (s.mover == SWEEP_NO_MOVER) {
                    ms.side = mc->side;
                    ms.mover = im->side.movers[mc->side].mover;
                    ms.pivot = im->side.movers[mc->side].pivot;
                    mx = &x;
                }
            }
            if (mesh->mNumFaces && !sides_track(im, i, ms.mover))
                return 0;
            if (!add_mesh(im, mesh, mx, n->mName.data, &ms))
                return 0;
            im->stats->meshes++;
        }
        im->instances_done++;
        if (im->opt->progress)
            im->opt->progress(im->opt->progress_ctx, im->instances_done, im->instances_total);
    }
    /* Before the children, which reuse the node's bookkeeping. */
    if (!sides_end(im, n))
        return 0;
    for (unsigned i = 0; i < n->mNumChildren; i++)
        if (!walk(im, n->mChildren[i], &x, &vx, s, depth + 1))
            return 0;
    return 1;
}

/* --- after the walk ------------------------------------------------------- */

/* "mover 'lift' (node 'mover_lift')" or "FILE line N: mover 'lift'". */
static void mover_context(const importer *im, uint32_t i, char *buf, size_t len)
{
    const mover_origin *o = &im->origins[i];
    if (o->node)
        snprintf(buf, len, "mover '%s' (node '%.200s')", im->lv->movers[i].name, o->node->mName.data);
    else
        snprintf(buf, len, "%.200s line %u: mover '%s'", im->side.path, im->side.movers[o->side].line,
                 im->lv->movers[i].name);
}

/* Side-file rules for scene movers, then every mover checked as the core
 * will check it. */
static int finish_movers(importer *im)
{
    sweep_level *lv = im->lv;
    side_file *sf = &im->side;
    for (uint32_t c = 0; c < sf->claim_count; c++)
        if (!sf->claims[c].used)
            return side_fail(im, sf->claims[c].line, "no node or mesh named '%s' in the scene (or it is excluded)",
                             sf->claims[c].name);
    for (uint32_t i = 0; i < sf->count; i++) {
        const side_mover *sm = &sf->movers[i];
        if (sm->mover != SWEEP_NO_MOVER)
            continue;
        uint32_t mi = sweep_level_find_mover(lv, sm->name);
        if (mi == SWEEP_NO_MOVER)
            return side_fail(im, sm->line,
                             "mover '%s' has no 'mesh' or 'key' lines, and the scene has no mover of that name to "
                             "give its rules to",
                             sm->name);
        rules_apply(&sm->r, 0, &lv->movers[mi]);
    }
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        sweep_level_mover *m = &lv->movers[i];
        char what[400];
        mover_context(im, i, what, sizeof what);
        if (m->trigger == SWEEP_TRIGGER_VOLUME && !box_ok(m->volume_min, m->volume_max))
            return ifail(im, SWEEP_E_GEOMETRY, "%s has trigger volume but no volume box", what);
        /* Only a volume trigger has a box in a map (schema.sql); keep none
         * for the others, so that the level is what the map will load. */
        if (m->trigger != SWEEP_TRIGGER_VOLUME)
            m->volume_min = m->volume_max = sweep_v3(0.0, 0.0, 0.0);
        m->volume_min = v3_plus_zero(m->volume_min), m->volume_max = v3_plus_zero(m->volume_max);
        m->wait_start = plus_zero(m->wait_start), m->wait_end = plus_zero(m->wait_end);
        /* A loop must end exactly where it starts; single-precision keys
         * that meant to close the loop come within a rounding of it. */
        if (m->mode == SWEEP_MOVER_LOOP && m->key_count >= 2) {
            sweep_mover_pose *a = &m->keys[0].pose, *b = &m->keys[m->key_count - 1].pose;
            double size = 1.0 + fabs(a->position.x) + fabs(a->position.y) + fabs(a->position.z);
            if (sweep_v3_len(sweep_v3_sub(a->position, b->position)) <= LOOP_SLACK * size)
                b->position = a->position;
            double d = sweep_quat_dot(a->rotation, b->rotation);
            if (fabs(d) >= 1.0 - LOOP_SLACK)
                b->rotation = d > 0.0 ? a->rotation
                                      : quat_plus_zero((sweep_quat){-a->rotation.x, -a->rotation.y, -a->rotation.z,
                                                                    -a->rotation.w});
        }
        if (m->triangle_count == 0)
            return ifail(im, SWEEP_E_GEOMETRY, "%s has no triangles (its meshes are empty, excluded or degenerate)",
                         what);
        sweep_mover_desc d = sweep_level_mover_desc(lv, i);
        uint32_t at = 0;
        sweep_mover_problem p = sweep_mover_desc_check(&d, &at);
        if (p != SWEEP_MOVER_FINE)
            return ifail(im, SWEEP_E_GEOMETRY, "%s: %s (at %u)", what, sweep_mover_problem_text(p), at);
    }
    im->stats->movers = lv->mover_count;
    return 1;
}

sweep_status sweep_import_scene(const char *path, const sweep_import_options *opt, sweep_level *out,
                                sweep_import_stats *stats, char *err, size_t errlen)
{
    sweep_import_stats local_stats;
    importer im;
    memset(&im, 0, sizeof im);
    im.opt = opt, im.lv = out, im.stats = stats ? stats : &local_stats;
    im.err = err, im.errlen = errlen, im.status = SWEEP_OK;
    if (err && errlen)
        err[0] = '\0';
    if (!path || !opt || !out) {
        ifail(&im, SWEEP_E_ARG, "no input, options or output");
        return SWEEP_E_ARG;
    }
    memset(im.stats, 0, sizeof *im.stats);
    sweep_level_init(out);
    if (!(opt->scale > 0.0 && opt->scale < 1e12)) {
        ifail(&im, SWEEP_E_ARG, "the scale must be a positive number");
        return SWEEP_E_ARG;
    }
    if (opt->sides != SWEEP_SIDES_AUTO && opt->sides != SWEEP_SIDES_ONE && opt->sides != SWEEP_SIDES_TWO) {
        ifail(&im, SWEEP_E_ARG, "sides must be auto, one or two");
        return SWEEP_E_ARG;
    }
    for (size_t i = 0; i < opt->two_sided_count; i++)
        for (size_t k = 0; k < opt->one_sided_count; k++)
            if (strcmp(opt->two_sided_materials[i], opt->one_sided_materials[k]) == 0) {
                ifail(&im, SWEEP_E_ARG, "material '%s' cannot be both two-sided and one-sided",
                      opt->two_sided_materials[i]);
                return SWEEP_E_ARG;
            }
    /* The side file first: its mistakes are cheaper to find than a scene. */
    if (opt->movers_path && !side_read(&im, opt->movers_path)) {
        side_free(&im.side);
        sweep_level_free(out);
        return im.status;
    }

    /* Triangulate polygons; join identical vertices so the map shares them;
     * SortByPType splits points and lines off into their own meshes;
     * ValidateDataStructure makes assimp refuse scenes with bad indices. */
    im.scene = aiImportFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType |
                                      aiProcess_ValidateDataStructure);
    if (!im.scene) {
        const char *why = aiGetErrorString();
        ifail(&im, SWEEP_E_GEOMETRY, "cannot import: %s", why && *why ? why : "unknown or unsupported format");
    } else if (im.scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
        ifail(&im, SWEEP_E_GEOMETRY, "cannot import: the file holds an incomplete scene (no usable geometry)");
    } else if (!im.scene->mRootNode) {
        ifail(&im, SWEEP_E_GEOMETRY, "cannot import: the scene has no nodes");
    } else {
        im.material_ids = calloc(im.scene->mNumMaterials + 1u, sizeof *im.material_ids);
        im.open_head = malloc((im.scene->mNumMeshes + 1u) * sizeof *im.open_head);
        if (im.open_head)
            memset(im.open_head, 0xff, (im.scene->mNumMeshes + 1u) * sizeof *im.open_head); /* UINT32_MAX: none */
        if (!im.material_ids || !im.open_head) {
            ifail(&im, SWEEP_E_NOMEM, "out of memory");
        } else if (index_channels(&im) && side_make_movers(&im)) {
            im.instances_total = count_instances(im.scene->mRootNode, 0);
            xform identity = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
            sink level = {SWEEP_NO_MOVER, SWEEP_NO_MOVER, {0.0, 0.0, 0.0}};
            if (walk(&im, im.scene->mRootNode, &identity, &identity, level, 0) && finish_movers(&im) &&
                out->triangle_count == 0 && out->mover_count == 0)
                ifail(&im, SWEEP_E_GEOMETRY,
                      "nothing to import: no triangles left (%u meshes, %u excluded, %u degenerate triangles, "
                      "%u points or lines)",
                      im.stats->meshes, im.stats->meshes_excluded, im.stats->degenerate_dropped,
                      im.stats->other_faces_skipped);
        }
    }
    if (im.status == SWEEP_OK) {
        sides_warn(&im);
        spawns_and_skipped_warn(&im);
    }
    sweep__tally_free(&im.skipped);
    sweep__tally_free(&im.spawn_at_origin);
    sweep__tally_free(&im.spawn_with_meshes);
    sides_free(&im);
    free(im.material_ids);
    free(im.channels);
    free(im.origins);
    side_free(&im.side);
    if (im.scene)
        aiReleaseImport(im.scene);
    if (im.status != SWEEP_OK)
        sweep_level_free(out);
    return im.status;
}
