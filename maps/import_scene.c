/*
 * import_scene.c - an assimp scene into a sweep_level (see import.h): the
 * walk of the node tree, and the level made of what the other stages
 * (import_scene_impl.h lists them) make of the nodes it meets.
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
 * were no movers at all. A mover's keyframes are computed once, at import
 * (import_scene_anim.c, import_scene_side_file.c): no sine or cosine
 * meets a mover anywhere else; the server and the clients only ever lerp
 * and nlerp what the map stores.
 */
#include "maps/import_scene_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>

#include "core/world.h"

#define MAX_DEPTH 256
/* How close (relative to its size) the end of a loop must come to its
 * start to be closed exactly: a few single-precision roundings. */
#define LOOP_SLACK 1e-6

int sweep__scene_fail(importer *im, sweep_status st, const char *fmt, ...)
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
int sweep__scene_side_fail(importer *im, unsigned line, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s line %u: %s", im->side.path, line, msg);
}

/* Makes room for one more item; 0 when out of memory. */
int sweep__scene_grow(void **p, uint32_t *cap, uint32_t count, size_t size)
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


/* --- materials and meshes ------------------------------------------------ */

int sweep__scene_excluded(importer *im, const struct aiString *name)
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

/* 0 (failed) when mesh `index` of the file has a vertex that is not a
 * finite number. */
int sweep__scene_mesh_finite(importer *im, unsigned index, const char *node_name)
{
    if (!im->bad_vertex[index])
        return 1;
    return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "mesh '%s' (node '%s'): vertex %u is not a finite number",
                             im->scene->mMeshes[index]->mName.data, node_name, im->bad_vertex[index] - 1);
}

/* Finds each mesh's first vertex that is not finite, before the welding
 * of vertices sees them: a NaN equals nothing, and the welding took it
 * for another vertex, a triangle through it then made where the file put
 * none. */
static int find_bad_vertices(importer *im)
{
    const struct aiScene *sc = im->scene;
    im->bad_vertex = calloc(sc->mNumMeshes + 1u, sizeof *im->bad_vertex);
    if (!im->bad_vertex)
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        for (unsigned i = 0; i < mesh->mNumVertices; i++) {
            const struct aiVector3D *p = &mesh->mVertices[i];
            if (!(isfinite(p->x) && isfinite(p->y) && isfinite(p->z))) {
                im->bad_vertex[m] = i + 1;
                break;
            }
        }
    }
    return 1;
}

/* Welds identical vertices, now that they are known to be numbers. */
static int join_vertices(importer *im)
{
    /* NULL, the scene released, when a step fails. */
    im->scene = aiApplyPostProcessing(im->scene, aiProcess_JoinIdenticalVertices);
    if (im->scene)
        return 1;
    const char *why = aiGetErrorString();
    return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "cannot import: %s",
                             why && *why ? why : "joining identical vertices failed");
}

/* The map id of assimp material `index`, adding it on first use. */
static int material_id(importer *im, unsigned index, uint32_t *out)
{
    if (index >= im->scene->mNumMaterials)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "a mesh names material %u, but the file has %u", index,
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
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "material name '%.40s...' is longer than %d bytes", s.data,
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
    if (!sweep__scene_grow((void **)&im->material_sides, &im->material_sides_cap, id, 1) ||
        sweep_level_add_material(lv, id, name, 1.0, 0) != SWEEP_OK)
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
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
 * at base), wound as the map keeps it (flip: under a mirroring node,
 * sweep__scene_mirrors, the other way round): 1 for a usable triangle; 0
 * for a face skipped and counted (points, lines, degenerate triangles);
 * -1 after an error (ifail).
 */
static int face_of(importer *im, const struct aiMesh *mesh, unsigned f, uint32_t base, const sweep_vec3 *vertices,
                   int flip, uint32_t ix[3])
{
    const struct aiFace *face = &mesh->mFaces[f];
    if (face->mNumIndices != 3) {
        im->stats->other_faces_skipped++;
        return 0;
    }
    for (int k = 0; k < 3; k++) {
        if (face->mIndices[k] >= mesh->mNumVertices) {
            sweep__scene_fail(im, SWEEP_E_GEOMETRY, "mesh '%s': face %u names vertex %u of %u", mesh->mName.data, f,
                              face->mIndices[k], mesh->mNumVertices);
            return -1;
        }
        ix[k == 0 || !flip ? k : 3 - k] = base + face->mIndices[k];
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
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "more than %u vertices", UINT32_MAX - 2);
    uint32_t base = lv->vertex_count;
    const double limit = lv->config.max_coordinate;
    for (unsigned i = 0; i < mesh->mNumVertices; i++) {
        const struct aiVector3D *p = &mesh->mVertices[i];
        sweep_vec3 v = sweep__scene_to_map(im, x, p->x, p->y, p->z);
        if (!sweep_v3_isfinite(v))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "mesh '%s' (node '%s'): vertex %u is not a finite number",
                                     mesh->mName.data, node_name, i);
        if (!(fabs(v.x) <= limit && fabs(v.y) <= limit && fabs(v.z) <= limit))
            return sweep__scene_fail(
                im, SWEEP_E_GEOMETRY,
                "mesh '%s' (node '%s'): vertex %u at (%g, %g, %g) is beyond the coordinate limit %g "
                "(check --scale)",
                mesh->mName.data, node_name, i, v.x, v.y, v.z, limit);
        if (sweep_level_add_vertex(lv, v, NULL) != SWEEP_OK)
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    }
    const int flip = sweep__scene_mirrors(im, x);
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
        uint32_t ix[3];
        int k = face_of(im, mesh, f, base, lv->vertices, flip, ix);
        if (k <= 0) {
            if (k < 0)
                return 0;
            continue;
        }
        sweep_status st = sweep_level_add_triangle(lv, ix[0], ix[1], ix[2], mat);
        if (st != SWEEP_OK)
            return sweep__scene_fail(im, st,
                                     st == SWEEP_E_NOMEM ? "out of memory" : "more triangles than the core accepts");
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
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "mover '%s': more than %u vertices", m->name, UINT32_MAX - 2);
    uint32_t base = m->vertex_count;
    for (unsigned i = 0; i < mesh->mNumVertices; i++) {
        const struct aiVector3D *p = &mesh->mVertices[i];
        sweep_vec3 v = sweep__scene_v3_plus_zero(sweep_v3_sub(sweep__scene_to_map(im, x, p->x, p->y, p->z), s->pivot));
        if (!sweep__scene_within_limit(im, v))
            return sweep__scene_fail(
                im, SWEEP_E_GEOMETRY,
                "mover '%s', mesh '%s' (node '%s'): vertex %u at (%g, %g, %g) in the mover's frame is "
                "not finite or beyond the coordinate limit %g (check --scale)",
                m->name, mesh->mName.data, node_name, i, v.x, v.y, v.z, im->lv->config.max_coordinate);
        if (sweep_level_mover_add_vertex(m, v, NULL) != SWEEP_OK)
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    }
    const int flip = sweep__scene_mirrors(im, x);
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
        uint32_t ix[3];
        int k = face_of(im, mesh, f, base, m->vertices, flip, ix);
        if (k <= 0) {
            if (k < 0)
                return 0;
            continue;
        }
        sweep_status st = sweep_level_mover_add_triangle(m, ix[0], ix[1], ix[2], mat);
        if (st != SWEEP_OK)
            return sweep__scene_fail(im, st,
                                     st == SWEEP_E_NOMEM ? "out of memory" : "mover '%s' has more than %u triangles",
                                     m->name, SWEEP_MOVER_MAX_TRIANGLES);
        im->stats->mover_triangles++;
    }
    return 1;
}

static int add_mesh(importer *im, unsigned index, const xform *x, const char *node_name, const sink *s)
{
    const struct aiMesh *mesh = im->scene->mMeshes[index];
    if (mesh->mNumFaces == 0)
        return 1;
    uint32_t mat = 0;
    if (!sweep__scene_mesh_finite(im, index, node_name) || !material_id(im, mesh->mMaterialIndex, &mat))
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
        /* By kind and name, so that a misspelt spawn or volume stands out;
         * a list longer than a line goes on in lines of its own. */
        char list[400];
        uint32_t next = sweep__tally_format_part(&im->skipped, 0, list, sizeof list);
        warn_of(im, "skipped: %s (node%s without meshes the importer does not turn into anything%s)", list,
                im->skipped.total == 1 ? "" : "s", next < im->skipped.count ? "; the rest below" : "");
        while (next < im->skipped.count) {
            next = sweep__tally_format_part(&im->skipped, next, list, sizeof list);
            warn_of(im, "skipped, continued: %s", list);
        }
    }
}


/* --- the walk ------------------------------------------------------------- */

/* What a node without meshes or children is: a light or a camera of the
 * scene (they name their node), else an empty node. */
static const char *leaf_kind(const importer *im, const struct aiString *name);

/* Counts a node that becomes nothing, as "empty node 'lamp'"; 0 when
 * memory runs out. */
static int skip_leaf(importer *im, const struct aiString *name)
{
    char key[sizeof name->data + 32];
    snprintf(key, sizeof key, "%s '%s'", leaf_kind(im, name), name->data);
    return sweep__tally_add(&im->skipped, key);
}

static const char *leaf_kind(const importer *im, const struct aiString *name)
{
    for (unsigned i = 0; i < im->scene->mNumLights; i++)
        if (im->scene->mLights[i]->mName.length == name->length &&
            strcmp(im->scene->mLights[i]->mName.data, name->data) == 0)
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
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "the node tree is deeper than %d levels", MAX_DEPTH);
    if (depth > 0 && sweep__scene_excluded(im, &n->mName)) {
        im->stats->nodes_excluded++;
        im->stats->meshes_excluded += count_instances(n, depth);
        return 1;
    }
    xform local = sweep__scene_xform_of(&n->mTransformation);
    xform x = sweep__scene_xform_mul(parent, &local);
    xform vx = sweep__scene_xform_mul(vparent, &local);
    const char *prefix = im->opt->spawn_prefix;
    /* Not the root: assimp names an OBJ's root after the file. */
    const int spawn_named =
        depth > 0 && prefix && *prefix && strncasecmp(n->mName.data, prefix, strlen(prefix)) == 0;
    if (n->mNumMeshes == 0 && spawn_named) {
        sweep_vec3 p = sweep__scene_to_map(im, &x, 0.0, 0.0, 0.0);
        if (!sweep__scene_within_limit(im, p))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                     "spawn node '%s' is not at a finite position within the limit", n->mName.data);
        if (sweep_level_add_spawn(im->lv, p) != SWEEP_OK)
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        im->stats->spawns++;
        /* An OBJ object has no transform: its spawn lands here whatever
         * its vertices say. */
        if (p.x == 0.0 && p.y == 0.0 && p.z == 0.0 && !sweep__tally_add(&im->spawn_at_origin, n->mName.data))
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    } else if (spawn_named && !sweep__tally_add(&im->spawn_with_meshes, n->mName.data)) {
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    }

    /* Does a mover start here? */
    rules r;
    char name[SWEEP_LEVEL_NAME_MAX];
    int marked = sweep__scene_mover_of(im, n, &r, name);
    if (marked < 0)
        return 0;
    /* Or is it a volume? Its meshes are its shell, not geometry. */
    sweep_volume vol;
    int volume = depth > 0 ? sweep__scene_volume_of(im, n, &vol, name) : 0;
    if (volume < 0)
        return 0;
    if (volume) {
        if (marked || sweep__scene_side_claim(im, n->mName.data))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s' is marked both a mover and a volume",
                                     n->mName.data);
        if (s.mover != SWEEP_NO_MOVER)
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                     "volume node '%s' lies inside mover '%s'; volumes do not move", n->mName.data,
                                     im->lv->movers[s.mover].name);
        if (!sweep__scene_make_volume(im, n, &x, &vol, name))
            return 0;
        im->instances_done += n->mNumMeshes;
        for (unsigned i = 0; i < n->mNumChildren; i++)
            if (!walk(im, n->mChildren[i], &x, &vx, s, depth + 1))
                return 0;
        return 1;
    }
    claim *cl = sweep__scene_side_claim(im, n->mName.data);
    const char *inside = s.mover != SWEEP_NO_MOVER ? im->lv->movers[s.mover].name : NULL;
    if (marked && inside)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s' is a mover inside mover '%s'; movers cannot nest",
                                 n->mName.data, inside);
    if (cl && inside && cl->side != s.side)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s line %u: '%s' lies inside mover '%s'; movers cannot nest",
                                 im->side.path, cl->line, n->mName.data, inside);
    if (marked && cl)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s line %u: node '%s' is already a mover by its name or extras",
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
        if (!sweep__scene_make_mover(im, n, &r, name, parent, &s.mover, &vx))
            return 0;
        s.side = SWEEP_NO_MOVER;
        s.pivot = sweep_v3(0.0, 0.0, 0.0);
    } else {
        const channel_ref *cr = sweep__scene_find_channel(im, n->mName.data, NULL);
        if (cr && sweep__scene_channel_moves(cr->ch))
            im->stats->animated_static++;
    }

    if (depth > 0 && n->mNumMeshes == 0 && n->mNumChildren == 0 && !spawn_named && !marked && !cl &&
        !skip_leaf(im, &n->mName))
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    if (!sweep__scene_sides_begin(im, n))
        return 0;
    for (unsigned i = 0; i < n->mNumMeshes; i++) {
        if (n->mMeshes[i] >= im->scene->mNumMeshes)
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s' names mesh %u, but the file has %u",
                                     n->mName.data, n->mMeshes[i], im->scene->mNumMeshes);
        const struct aiMesh *mesh = im->scene->mMeshes[n->mMeshes[i]];
        if (sweep__scene_excluded(im, &mesh->mName)) {
            im->stats->meshes_excluded++;
        } else {
            /* A mesh the side file claims by name, where it is not yet in
             * a mover, goes to that mover alone. */
            claim *mc = mesh->mName.length ? sweep__scene_side_claim(im, mesh->mName.data) : NULL;
            sink ms = s;
            const xform *mx = &vx;
            if (mc && s.mover != SWEEP_NO_MOVER && mc->side != s.side)
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "%s line %u: mesh '%s' lies inside mover '%s'; movers cannot nest",
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
            if (mesh->mNumFaces && !sweep__scene_sides_track(im, i, ms.mover))
                return 0;
            if (!add_mesh(im, n->mMeshes[i], mx, n->mName.data, &ms))
                return 0;
            im->stats->meshes++;
        }
        im->instances_done++;
        if (im->opt->progress)
            im->opt->progress(im->opt->progress_ctx, im->instances_done, im->instances_total);
    }
    /* Before the children, which reuse the node's bookkeeping. */
    if (!sweep__scene_sides_end(im, n))
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
            return sweep__scene_side_fail(im, sf->claims[c].line,
                                          "no node or mesh named '%s' in the scene (or it is excluded)",
                                          sf->claims[c].name);
    for (uint32_t i = 0; i < sf->count; i++) {
        const side_mover *sm = &sf->movers[i];
        if (sm->mover != SWEEP_NO_MOVER)
            continue;
        uint32_t mi = sweep_level_find_mover(lv, sm->name);
        if (mi == SWEEP_NO_MOVER)
            return sweep__scene_side_fail(
                im, sm->line,
                "mover '%s' has no 'mesh' or 'key' lines, and the scene has no mover of that name to "
                "give its rules to",
                sm->name);
        sweep__scene_rules_apply(&sm->r, 0, &lv->movers[mi]);
    }
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        sweep_level_mover *m = &lv->movers[i];
        char what[400];
        mover_context(im, i, what, sizeof what);
        if (m->trigger == SWEEP_TRIGGER_VOLUME && !sweep__scene_box_ok(m->volume_min, m->volume_max))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s has trigger volume but no volume box", what);
        /* Only a volume trigger has a box in a map (schema.sql); keep none
         * for the others, so that the level is what the map will load. */
        if (m->trigger != SWEEP_TRIGGER_VOLUME)
            m->volume_min = m->volume_max = sweep_v3(0.0, 0.0, 0.0);
        m->volume_min = sweep__scene_v3_plus_zero(m->volume_min),
        m->volume_max = sweep__scene_v3_plus_zero(m->volume_max);
        m->wait_start = sweep__scene_plus_zero(m->wait_start), m->wait_end = sweep__scene_plus_zero(m->wait_end);
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
                                      : sweep__scene_quat_plus_zero((sweep_quat){-a->rotation.x, -a->rotation.y,
                                                                                 -a->rotation.z, -a->rotation.w});
        }
        if (m->triangle_count == 0)
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                     "%s has no triangles (its meshes are empty, excluded or degenerate)", what);
        sweep_mover_desc d = sweep_level_mover_desc(lv, i);
        uint32_t at = 0;
        sweep_mover_problem p = sweep_mover_desc_check(&d, &at);
        if (p != SWEEP_MOVER_FINE)
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s: %s (at %u)", what, sweep_mover_problem_text(p), at);
    }
    im->stats->movers = lv->mover_count;
    return 1;
}

/* A level without static triangles: a map needs some (the loader refuses
 * one without), so this is said here, before anything is written. */
static void nothing_static(importer *im)
{
    const sweep_level *lv = im->lv;
    if (lv->mover_count == 0) {
        sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                          "nothing to import: no triangles left (%u meshes, %u excluded, %u degenerate triangles, "
                          "%u points or lines)",
                          im->stats->meshes, im->stats->meshes_excluded, im->stats->degenerate_dropped,
                          im->stats->other_faces_skipped);
        return;
    }
    /* Each mover with where it came from: a node, or a side-file line. */
    char names[600];
    size_t n = 0;
    for (uint32_t i = 0; i < lv->mover_count && n < sizeof names; i++) {
        const mover_origin *o = &im->origins[i];
        if (o->node)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s'%s' (node '%.100s')", i ? ", " : "",
                                  lv->movers[i].name, o->node->mName.data);
        else
            n += (size_t)snprintf(names + n, sizeof names - n, "%s'%s' (%.200s line %u)", i ? ", " : "",
                                  lv->movers[i].name, im->side.path, im->side.movers[o->side].line);
    }
    if (n >= sizeof names)
        memcpy(names + sizeof names - 4, "...", 4);
    sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                      "no static triangles: all %u triangles of the scene went to mover%s %s; a map needs static "
                      "geometry, a floor at least",
                      im->stats->mover_triangles, lv->mover_count == 1 ? "" : "s", names);
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
        sweep__scene_fail(&im, SWEEP_E_ARG, "no input, options or output");
        return SWEEP_E_ARG;
    }
    memset(im.stats, 0, sizeof *im.stats);
    sweep_level_init(out);
    if (!(opt->scale > 0.0 && opt->scale < 1e12)) {
        sweep__scene_fail(&im, SWEEP_E_ARG, "the scale must be a positive number");
        return SWEEP_E_ARG;
    }
    if (opt->sides != SWEEP_SIDES_AUTO && opt->sides != SWEEP_SIDES_ONE && opt->sides != SWEEP_SIDES_TWO) {
        sweep__scene_fail(&im, SWEEP_E_ARG, "sides must be auto, one or two");
        return SWEEP_E_ARG;
    }
    for (size_t i = 0; i < opt->two_sided_count; i++)
        for (size_t k = 0; k < opt->one_sided_count; k++)
            if (strcmp(opt->two_sided_materials[i], opt->one_sided_materials[k]) == 0) {
                sweep__scene_fail(&im, SWEEP_E_ARG, "material '%s' cannot be both two-sided and one-sided",
                                  opt->two_sided_materials[i]);
                return SWEEP_E_ARG;
            }
    /* The side file first: its mistakes are cheaper to find than a scene. */
    if (opt->movers_path && !sweep__scene_side_read(&im, opt->movers_path)) {
        sweep__scene_side_free(&im.side);
        sweep_level_free(out);
        return im.status;
    }

    /* Triangulate polygons; SortByPType splits points and lines off into
     * their own meshes; ValidateDataStructure makes assimp refuse scenes
     * with bad indices. Identical vertices are joined afterwards, so that
     * the map shares them, once every vertex is known to be a number
     * (find_bad_vertices); assimp would have joined them last anyway. */
    im.scene =
        sweep__scene_read(&im, path, aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure);
    if (im.scene && (im.scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE)) {
        sweep__scene_fail(&im, SWEEP_E_GEOMETRY,
                          "cannot import: the file holds an incomplete scene (no usable geometry)");
    } else if (im.scene && !im.scene->mRootNode) {
        sweep__scene_fail(&im, SWEEP_E_GEOMETRY, "cannot import: the scene has no nodes");
    } else if (im.scene && find_bad_vertices(&im) && join_vertices(&im)) {
        im.material_ids = calloc(im.scene->mNumMaterials + 1u, sizeof *im.material_ids);
        im.open_head = malloc((im.scene->mNumMeshes + 1u) * sizeof *im.open_head);
        if (im.open_head)
            memset(im.open_head, 0xff, (im.scene->mNumMeshes + 1u) * sizeof *im.open_head); /* UINT32_MAX: none */
        if (!im.material_ids || !im.open_head) {
            sweep__scene_fail(&im, SWEEP_E_NOMEM, "out of memory");
        } else if (sweep__scene_index_channels(&im) && sweep__scene_side_make_movers(&im)) {
            im.instances_total = count_instances(im.scene->mRootNode, 0);
            xform identity = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
            sink level = {SWEEP_NO_MOVER, SWEEP_NO_MOVER, {0.0, 0.0, 0.0}};
            if (walk(&im, im.scene->mRootNode, &identity, &identity, level, 0) && sweep__scene_sides_finish(&im) &&
                finish_movers(&im) &&
                out->triangle_count == 0)
                nothing_static(&im);
        }
    }
    if (im.status == SWEEP_OK) {
        sweep__scene_sides_warn(&im);
        spawns_and_skipped_warn(&im);
    }
    sweep__tally_free(&im.skipped);
    sweep__tally_free(&im.spawn_at_origin);
    sweep__tally_free(&im.spawn_with_meshes);
    sweep__scene_sides_free(&im);
    free(im.material_ids);
    free(im.bad_vertex);
    free(im.channels);
    free(im.origins);
    sweep__scene_side_free(&im.side);
    if (im.scene)
        aiReleaseImport(im.scene);
    if (im.status != SWEEP_OK)
        sweep_level_free(out);
    return im.status;
}
