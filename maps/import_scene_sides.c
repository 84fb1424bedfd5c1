/*
 * import_scene_sides.c - one-sided and two-sided meshes (import.h).
 *
 * Players collide with front faces only, so once a node's meshes are in
 * place each destination's share of them is checked for being a closed
 * shell (vertices welded by exact position, then every edge run once each
 * way) and an open one gets reversed twins, appended after it. Sorting by
 * position and by edge, with ids breaking ties, keeps the result
 * independent of qsort and of any hashing: the map's bytes stay a
 * function of the file and the options.
 */
#include "maps/import_scene_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int sweep__scene_sides_begin(importer *im, const struct aiNode *n)
{
    if (!reserve((void **)&im->mesh_dest, &im->mesh_dest_cap, n->mNumMeshes, sizeof *im->mesh_dest))
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    for (unsigned i = 0; i < n->mNumMeshes; i++)
        im->mesh_dest[i] = DEST_NONE;
    im->group_count = 0;
    return 1;
}

/* Mesh i of the node is about to go to `mover` (or the level): notes it,
 * and where that destination's share of the node starts. */
int sweep__scene_sides_track(importer *im, unsigned i, uint32_t mover)
{
    im->mesh_dest[i] = mover;
    for (uint32_t g = 0; g < im->group_count; g++)
        if (im->groups[g].mover == mover)
            return 1;
    if (!sweep__scene_grow((void **)&im->groups, &im->group_cap, im->group_count, sizeof *im->groups))
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
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
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
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
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
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
    if (!sweep__scene_grow((void **)&im->open, &im->open_cap, im->open_count, sizeof *im->open)) {
        free(key);
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
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

/* A triangle of material mt gets a twin: its material says so, or its
 * mesh rule does (mesh_two) and its material leaves it to the rule. */
static int wants_twin(const importer *im, uint32_t mt, int mesh_two)
{
    uint32_t rule = im->material_sides[mt];
    return rule == SIDES_TWO_MAT || (rule == SIDES_MESH && mesh_two);
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
    /* The static level's twins wait until its triangles are merged, which
     * needs every node's: which corners other nodes use. */
    if (!m) {
        if (!sweep__scene_grow((void **)&im->statics, &im->static_cap, im->static_count, sizeof *im->statics))
            return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        im->statics[im->static_count++] = (static_group){g->t0, tc, mesh_two};
    }
    /* A mover's twins now (its arrays grow as they are added: read them
     * afresh each time). */
    for (uint32_t t = g->t0; m && t < tc; t++) {
        const uint32_t *ix = m->indices + 3 * (size_t)t;
        uint32_t mt = m->materials[t];
        if (!wants_twin(im, mt, mesh_two))
            continue;
        sweep_status st = sweep_level_mover_add_triangle(m, ix[0], ix[2], ix[1], mt);
        if (st == SWEEP_E_NOMEM)
            return sweep__scene_fail(im, st, "out of memory");
        if (st != SWEEP_OK)
            return sweep__scene_fail(im, st, "mover '%s' has more than %u triangles once two-sided", m->name,
                                     SWEEP_MOVER_MAX_TRIANGLES);
        im->stats->mover_triangles++;
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
int sweep__scene_sides_end(importer *im, const struct aiNode *n)
{
    for (uint32_t g = 0; g < im->group_count; g++)
        if (!sides_group(im, n, &im->groups[g]))
            return 0;
    return 1;
}

int sweep__scene_sides_finish(importer *im)
{
    if (!im->opt->no_merge_faces && !sweep__scene_merge_faces(im))
        return 0;
    sweep_level *lv = im->lv;
    uint64_t twins = 0;
    for (uint32_t g = 0; g < im->static_count; g++)
        for (uint32_t t = im->statics[g].t0; t < im->statics[g].t1; t++)
            twins += wants_twin(im, lv->materials[t], im->statics[g].mesh_two);
    if (twins == 0)
        return 1;
    const uint64_t total = (uint64_t)lv->triangle_count + twins;
    if (total > SWEEP_WORLD_MAX_TRIANGLES)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "more triangles than the core accepts once two-sided");
    uint32_t *ix = malloc((size_t)total * 3 * sizeof *ix), *mat = malloc((size_t)total * sizeof *mat);
    if (!ix || !mat) {
        free(ix), free(mat);
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    }
    /* Each node's triangles, then the reversed twins (a, c, b) of those
     * that want one, in order: where they were made node by node before
     * the merge waited for them. */
    uint32_t k = 0, next = 0;
    for (uint32_t g = 0; g < im->static_count; g++) {
        const static_group *sg = &im->statics[g];
        for (; next < sg->t1; next++, k++) {
            memcpy(ix + 3 * (size_t)k, lv->indices + 3 * (size_t)next, 3 * sizeof *ix);
            mat[k] = lv->materials[next];
        }
        for (uint32_t t = sg->t0; t < sg->t1; t++) {
            if (!wants_twin(im, lv->materials[t], sg->mesh_two))
                continue;
            const uint32_t *a = lv->indices + 3 * (size_t)t;
            ix[3 * (size_t)k] = a[0], ix[3 * (size_t)k + 1] = a[2], ix[3 * (size_t)k + 2] = a[1];
            mat[k++] = lv->materials[t];
        }
    }
    for (; next < lv->triangle_count; next++, k++) {
        memcpy(ix + 3 * (size_t)k, lv->indices + 3 * (size_t)next, 3 * sizeof *ix);
        mat[k] = lv->materials[next];
    }
    free(lv->indices), free(lv->materials);
    lv->indices = ix, lv->materials = mat;
    lv->triangle_count = lv->triangle_cap = (uint32_t)total;
    im->stats->triangles += (uint32_t)twins;
    im->stats->twins += (uint32_t)twins;
    return 1;
}

/* The open meshes' warnings, in the order the meshes came. */
void sweep__scene_sides_warn(importer *im)
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

void sweep__scene_sides_free(importer *im)
{
    for (uint32_t r = 0; r < im->open_count; r++)
        free(im->open[r].meshes);
    free(im->open);
    free(im->open_head);
    free(im->groups);
    free(im->statics);
    free(im->mesh_dest);
    free(im->material_sides);
}
