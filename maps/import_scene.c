/*
 * import_scene.c - an assimp scene into a sweep_level (see import.h).
 *
 * assimp hands back single-precision vertices and node matrices; they are
 * widened to double at once and every transform is composed in double, so
 * a vertex is rounded once on the way into the map, not once per level of
 * the node tree. The node tree is walked depth first in child order, which
 * fixes the order of vertices, triangles and materials: the same file
 * always gives the same map and so the same content hash.
 */
#include "maps/import.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "core/world.h"

#define MAX_DEPTH 256

typedef struct xform {
    double m[3][4]; /* rows of an affine transform: p' = m * (p, 1) */
} xform;

typedef struct importer {
    const struct aiScene *scene;
    const sweep_import_options *opt;
    sweep_level *lv;
    sweep_import_stats *stats;
    uint32_t *material_ids; /* per assimp material: map id, 0 = not yet used */
    uint32_t instances_total, instances_done;
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

static xform xform_of(const struct aiMatrix4x4 *a)
{
    xform x = {{{a->a1, a->a2, a->a3, a->a4}, {a->b1, a->b2, a->b3, a->b4}, {a->c1, a->c2, a->c3, a->c4}}};
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
    if (sweep_level_add_material(lv, id, name, 1.0, 0) != SWEEP_OK)
        return ifail(im, SWEEP_E_NOMEM, "out of memory");
    im->material_ids[index] = id;
    im->stats->materials++;
    *out = id;
    return 1;
}

static int add_mesh(importer *im, const struct aiMesh *mesh, const xform *x, const char *node_name)
{
    sweep_level *lv = im->lv;
    if (mesh->mNumFaces == 0)
        return 1;
    uint32_t mat = 0;
    if (!material_id(im, mesh->mMaterialIndex, &mat))
        return 0;
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
        const struct aiFace *face = &mesh->mFaces[f];
        if (face->mNumIndices != 3) {
            im->stats->other_faces_skipped++;
            continue;
        }
        uint32_t ix[3];
        for (int k = 0; k < 3; k++) {
            if (face->mIndices[k] >= mesh->mNumVertices)
                return ifail(im, SWEEP_E_GEOMETRY, "mesh '%s': face %u names vertex %u of %u", mesh->mName.data,
                             f, face->mIndices[k], mesh->mNumVertices);
            ix[k] = base + face->mIndices[k];
        }
        if (sweep_triangle_is_degenerate(lv->vertices[ix[0]], lv->vertices[ix[1]], lv->vertices[ix[2]])) {
            im->stats->degenerate_dropped++;
            continue;
        }
        sweep_status st = sweep_level_add_triangle(lv, ix[0], ix[1], ix[2], mat);
        if (st != SWEEP_OK)
            return ifail(im, st, st == SWEEP_E_NOMEM ? "out of memory" : "more triangles than the core accepts");
        im->stats->triangles++;
    }
    return 1;
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

static int walk(importer *im, const struct aiNode *n, const xform *parent, int depth)
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
    const char *prefix = im->opt->spawn_prefix;
    if (n->mNumMeshes == 0 && prefix && *prefix && strncasecmp(n->mName.data, prefix, strlen(prefix)) == 0) {
        sweep_vec3 p = to_map(im, &x, 0.0, 0.0, 0.0);
        if (!sweep_v3_isfinite(p) || !(fabs(p.x) <= im->lv->config.max_coordinate &&
                                       fabs(p.y) <= im->lv->config.max_coordinate &&
                                       fabs(p.z) <= im->lv->config.max_coordinate))
            return ifail(im, SWEEP_E_GEOMETRY, "spawn node '%s' is not at a finite position within the limit",
                         n->mName.data);
        if (sweep_level_add_spawn(im->lv, p) != SWEEP_OK)
            return ifail(im, SWEEP_E_NOMEM, "out of memory");
        im->stats->spawns++;
    }
    for (unsigned i = 0; i < n->mNumMeshes; i++) {
        if (n->mMeshes[i] >= im->scene->mNumMeshes)
            return ifail(im, SWEEP_E_GEOMETRY, "node '%s' names mesh %u, but the file has %u", n->mName.data,
                         n->mMeshes[i], im->scene->mNumMeshes);
        const struct aiMesh *mesh = im->scene->mMeshes[n->mMeshes[i]];
        if (excluded(im, &mesh->mName)) {
            im->stats->meshes_excluded++;
        } else {
            if (!add_mesh(im, mesh, &x, n->mName.data))
                return 0;
            im->stats->meshes++;
        }
        im->instances_done++;
        if (im->opt->progress)
            im->opt->progress(im->opt->progress_ctx, im->instances_done, im->instances_total);
    }
    for (unsigned i = 0; i < n->mNumChildren; i++)
        if (!walk(im, n->mChildren[i], &x, depth + 1))
            return 0;
    return 1;
}

sweep_status sweep_import_scene(const char *path, const sweep_import_options *opt, sweep_level *out,
                                sweep_import_stats *stats, char *err, size_t errlen)
{
    sweep_import_stats local_stats;
    importer im = {NULL, opt, out, stats ? stats : &local_stats, NULL, 0, 0, err, errlen, SWEEP_OK};
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
        if (!im.material_ids) {
            ifail(&im, SWEEP_E_NOMEM, "out of memory");
        } else {
            im.instances_total = count_instances(im.scene->mRootNode, 0);
            xform identity = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
            if (walk(&im, im.scene->mRootNode, &identity, 0) && out->triangle_count == 0)
                ifail(&im, SWEEP_E_GEOMETRY,
                      "nothing to import: no triangles left (%u meshes, %u excluded, %u degenerate triangles, "
                      "%u points or lines)",
                      im.stats->meshes, im.stats->meshes_excluded, im.stats->degenerate_dropped,
                      im.stats->other_faces_skipped);
        }
    }
    free(im.material_ids);
    if (im.scene)
        aiReleaseImport(im.scene);
    if (im.status != SWEEP_OK)
        sweep_level_free(out);
    return im.status;
}
