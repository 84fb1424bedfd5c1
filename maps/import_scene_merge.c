/*
 * import_scene_merge.c - a scene node's coplanar triangles merged into
 * fewer, larger ones (import.h, "Merged faces").
 *
 * A modelling tool subdivides: a floor exported as a grid of hundreds of
 * triangles is one rectangle to a player, but every move across it meets
 * the pieces its box touches, and their inner edges are contacts a sweep
 * must test. The Quake 3 importer merges brush faces the way level
 * compilers do (maps/face_merge.h); this applies the same merge to the
 * triangles each node put into the static level, once every node is in
 * (so that corners other nodes use are known) and before the twins are
 * made (so that they are made of the merged triangles and stay exact
 * twins; import_scene_sides.c).
 *
 * The merge wants one exact plane per group, which a mesh's triangles do
 * not give (each one's normal is rounded its own way), so groups are
 * grown: from each triangle not yet in one, in order, across edges shared
 * exactly (corners at the same position), to neighbours of the same
 * material and node that face the same way and whose three corners all
 * lie within eps (a millionth of the node's size) of the first one's
 * plane (each compared with the first, so the plane does not drift along
 * a curve). The group's triangles are then
 * merged on the first one's plane. A group of more than CHUNK is cut in
 * two across its wider side until each part has at most CHUNK (the merge
 * compares pairs), along a line of the mesh where it has one. A corner
 * that a part's merge drops as collinear while triangles outside the part
 * still use it (another face of the same closed shell, another part,
 * another material) is pinned, and the parts are merged again (up to
 * PIN_ROUNDS, then with every corner two parts share pinned); within a
 * part, the merge's keep_shared does the same among its polygons. So no
 * T-junction is made: a closed shell stays closed edge for edge, and the
 * level check reads it as before. A part keeps its own triangles,
 * untouched, unless its merge comes out in fewer, drops no polygon as a
 * sliver, covers the same area to within eps times its outline, and
 * faces the plane's way in every triangle. Every corner of a merged
 * triangle is one of the node's vertices, or the centre of a fan the
 * merge adds; so the surface moves by at most eps. Everything runs in a
 * fixed order (sorts with an index as the last key): the same scene gives
 * the same map.
 */
#include "maps/import_scene_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/world.h"
#include "maps/face_merge.h"
#include "maps/grow.h"

/* The most triangles merged together (face_merge.h has its own limit). */
#define CHUNK 1024
/* Rounds of merging with the corners found wanting pinned, before every
 * shared corner is. */
#define PIN_ROUNDS 4
/* eps: this times the node's size (the longest side of its box), not its
 * distance from the origin, which would flatten real shapes far out.
 * Corners this close are one, a corner this close to its neighbours' line
 * is on it, a triangle this close to a plane is on it: far below what a
 * player's shape can tell. Where a single-precision file rounds its
 * coordinates by more (a small node far out), fewer triangles merge. */
#define MERGE_EPS_REL 1e-6
/* Facing the same way: normals within about 8 degrees. The distance test
 * is what decides; this only keeps a back face off a front one. */
#define SAME_FACING 0.99
/* The most triangles on one edge that a group is grown across. */
#define EDGE_USES 16
/* A merged triangle faces the plane's way: its normal within 2.6 degrees
 * of the plane's (cosine). */
#define SAME_PLANE 0.999
/* A merge covers the area its triangles covered, to rounding. */
#define AREA_SLACK 1e-9

#define NONE UINT32_MAX

/* A position and the level vertex it came from: corners welded by exact
 * position, and a merged corner's vertex found again. */
typedef struct spot {
    double p[3];
    uint32_t v;
} spot;

/* Positions by x, then y, then z (-0 equal to +0). */
static int pos_cmp(const double a[3], const double b[3])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static int spot_cmp(const void *pa, const void *pb)
{
    const spot *a = pa, *b = pb;
    int c = pos_cmp(a->p, b->p);
    return c ? c : a->v < b->v ? -1 : a->v > b->v;
}

/* The first spot at exactly p, or NONE. */
static uint32_t spot_find(const spot *s, uint32_t n, const double p[3])
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pos_cmp(s[mid].p, p) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && pos_cmp(s[lo].p, p) == 0 ? lo : NONE;
}

/* An edge between two welded corners (their first spots, lo < hi) of
 * triangle t (the level's numbering). */
typedef struct edge {
    uint64_t key;
    uint32_t t;
} edge;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* A triangle in a group: the part it is merged in, and its largest
 * coordinate on each of the two axes other than its plane's normal's
 * largest. */
typedef struct cand {
    uint32_t t; /* the level's numbering */
    uint32_t part;
    double c[2];
} cand;

static int by_c0(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->c[0] != b->c[0])
        return a->c[0] < b->c[0] ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

static int by_c1(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->c[1] != b->c[1])
        return a->c[1] < b->c[1] ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Cuts c[0..n) (one group) into parts of at most CHUNK, numbered from
 * *parts: across the wider side, between the triangles that reach no
 * farther than the middle one and those that reach past it, so that a
 * grid is cut along one of its lines (a straight cut leaves both sides
 * convex pieces that still merge); in halves if that cuts nothing off. */
static void cut(cand *c, uint32_t n, uint32_t *parts)
{
    if (n <= CHUNK) {
        for (uint32_t i = 0; i < n; i++)
            c[i].part = *parts;
        ++*parts;
        return;
    }
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
            lo[k] = fmin(lo[k], c[i].c[k]), hi[k] = fmax(hi[k], c[i].c[k]);
    const int k = hi[0] - lo[0] >= hi[1] - lo[1] ? 0 : 1;
    qsort(c, n, sizeof *c, k == 0 ? by_c0 : by_c1);
    uint32_t half = n / 2;
    while (half < n && c[half].c[k] == c[n / 2 - 1].c[k])
        half++;
    if (half == n)
        half = n / 2;
    cut(c, half, parts);
    cut(c + half, n - half, parts);
}

typedef struct merge_work {
    uint32_t nv, nt;    /* the whole static level's vertices and triangles */
    uint32_t *node;     /* per triangle: its node's static group, or nodes if none */
    uint32_t nodes;     /* how many static groups */
    double *node_eps;   /* per static group: its eps */
    spot *spots;        /* the level's vertices, sorted by position */
    uint32_t *run;      /* per triangle corner (3 t + k): its first spot */
    edge *edges;        /* 3 per triangle, sorted */
    double (*plane)[4]; /* per triangle: unit normal and distance; normal 0 if it has none */
    uint32_t *group;    /* per triangle: its group, NONE until grown */
    uint32_t *seed;     /* per group: its first triangle, whose plane it is merged on */
    uint32_t *queue;
    cand *cand;        /* every triangle, by group, then by part */
    uint32_t *part_of; /* per triangle: its part */
    uint8_t *pinned;   /* per spot: no merge drops it (2: pinned since the last round) */
    uint32_t *use;     /* per spot: 1 + the first part using it, 0 if none */
    uint8_t *twice;    /* per spot: more than one part uses it */
    uint32_t *stamp;   /* per spot: 1 + the part last marked using it */
    uint32_t *out;     /* merged triangles: a, b, c (spots or FRESH + i), material each */
    uint32_t out_len, out_cap;
    uint32_t *part_at, *part_len; /* per part: its triangles in out; len NONE: it keeps its own */
    uint32_t *mesh_vertex;        /* per vertex of a merge's result: its spot, or FRESH + i */
    uint32_t mesh_vertex_cap;
    double (*fresh)[3];     /* fans' new centres */
    uint32_t *fresh_vertex; /* per centre: its level vertex once made, or NONE */
    uint32_t fresh_len, fresh_cap;
    uint32_t *new_ix, *new_mat; /* the static triangles as they end */
    uint32_t *pos;              /* per triangle (and one past): where it went */
    uint32_t *renumber;
    sweep__face_set set;
    sweep__face_mesh mesh;
} merge_work;

static void work_free(merge_work *w)
{
    free(w->spots), free(w->run), free(w->edges), free(w->plane), free(w->group), free(w->seed);
    free(w->queue), free(w->cand), free(w->part_of), free(w->pinned), free(w->use), free(w->twice);
    free(w->stamp), free(w->fresh), free(w->out);
    free(w->part_at), free(w->part_len), free(w->mesh_vertex), free(w->new_ix), free(w->new_mat);
    free(w->renumber), free(w->pos), free(w->node), free(w->node_eps), free(w->fresh_vertex);
    sweep__face_set_free(&w->set);
    sweep__face_mesh_free(&w->mesh);
}

static const sweep_vec3 *corner(const sweep_level *lv, uint32_t t, int k)
{
    return &lv->vertices[lv->indices[3 * (size_t)t + k]];
}

/* Triangle t may join the group grown from triangle s. */
static int joins(const sweep_level *lv, const merge_work *w, uint32_t s, uint32_t t)
{
    const double *ps = w->plane[s], *pt = w->plane[t];
    const double eps = w->node_eps[w->node[s]];
    if (w->node[s] != w->node[t] || w->node[s] == w->nodes || lv->materials[s] != lv->materials[t] ||
        ps[0] * pt[0] + ps[1] * pt[1] + ps[2] * pt[2] < SAME_FACING)
        return 0;
    for (int k = 0; k < 3; k++) {
        const sweep_vec3 *p = corner(lv, t, k);
        if (!(fabs(ps[0] * p->x + ps[1] * p->y + ps[2] * p->z - ps[3]) <= eps))
            return 0;
    }
    return 1;
}

/* The first of the sorted edges with this key (or past them all). */
static uint32_t first_edge(const merge_work *w, uint64_t key)
{
    uint32_t lo = 0, hi = 3 * w->nt;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->edges[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t edge_key(const merge_work *w, uint32_t t, int k)
{
    uint32_t a = w->run[3 * t + k], b = w->run[3 * t + (k + 1) % 3];
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* 1 if edge k of triangle t is no other triangle's of its part: on the
 * part's outline (an edge of more than EDGE_USES counts as inside). */
static int on_outline(const merge_work *w, uint32_t t, int k)
{
    uint64_t key = edge_key(w, t, k);
    uint32_t e = first_edge(w, key);
    for (uint32_t n = 0; e < 3 * w->nt && w->edges[e].key == key; e++, n++)
        if (n >= EDGE_USES || (w->edges[e].t != t && w->part_of[w->edges[e].t] == w->part_of[t]))
            return 0;
    return 1;
}

/* Grows every group; their number. An edge that more than EDGE_USES
 * triangles share is not crossed: no mesh a player walks on has one, and
 * a file of a million triangles on one edge must not make the import
 * quadratic in them. */
static uint32_t grow_groups(const sweep_level *lv, merge_work *w)
{
    uint32_t groups = 0;
    for (uint32_t t = 0; t < w->nt; t++)
        w->group[t] = NONE;
    for (uint32_t s = 0; s < w->nt; s++) {
        if (w->group[s] != NONE)
            continue;
        w->seed[groups] = s;
        w->group[s] = groups;
        if (w->plane[s][0] == 0 && w->plane[s][1] == 0 && w->plane[s][2] == 0) {
            groups++;
            continue;
        }
        uint32_t head = 0, tail = 0;
        w->queue[tail++] = s;
        while (head < tail) {
            uint32_t t = w->queue[head++];
            for (int k = 0; k < 3; k++) {
                uint64_t key = edge_key(w, t, k);
                uint32_t lo = first_edge(w, key), end = lo;
                while (end < 3 * w->nt && end - lo <= EDGE_USES && w->edges[end].key == key)
                    end++;
                if (end - lo > EDGE_USES)
                    continue;
                for (uint32_t e = lo; e < end; e++) {
                    uint32_t u = w->edges[e].t;
                    if (w->group[u] == NONE && joins(lv, w, s, u)) {
                        w->group[u] = groups;
                        w->queue[tail++] = u;
                    }
                }
            }
        }
        groups++;
    }
    return groups;
}

/* The area of triangle (a, b, c) seen along the unit normal pl (negative
 * if it faces away). */
static double area_along(const double a[3], const double b[3], const double c[3], const double pl[4])
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    return 0.5 * ((e1[1] * e2[2] - e1[2] * e2[1]) * pl[0] + (e1[2] * e2[0] - e1[0] * e2[2]) * pl[1] +
                  (e1[0] * e2[1] - e1[1] * e2[0]) * pl[2]);
}

/* A corner of a merged triangle in w->out: a spot (< nv), or FRESH + the
 * index of a new position in w->fresh (a fan's centre). */
#define FRESH 0x80000000u

/* Merges part `part` (cand[a, b), one group's), keeping the corners
 * w->pinned marks; its triangles go to w->out, or it keeps its own
 * (part_len NONE). 0 when out of memory. */
static int merge_part(const sweep_level *lv, merge_work *w, uint32_t part, uint32_t a, uint32_t b)
{
    w->part_len[part] = NONE;
    if (b - a < 2)
        return 1;
    const double *pl = w->plane[w->seed[w->group[w->cand[a].t]]];
    const double eps = w->node_eps[w->node[w->cand[a].t]];
    double area_in = 0.0, edges = 0.0; /* the part's outline's length */
    sweep__face_set_clear(&w->set);
    w->set.keep_shared = 1;
    for (uint32_t i = a; i < b; i++) {
        uint32_t t = w->cand[i].t;
        double p[3][3];
        for (int k = 0; k < 3; k++) {
            const sweep_vec3 *v = corner(lv, t, k);
            p[k][0] = v->x, p[k][1] = v->y, p[k][2] = v->z;
        }
        if (!sweep__face_add(&w->set, (const double(*)[3])p, 3, pl, pl[3], lv->materials[t]))
            return 0;
        area_in += area_along(p[0], p[1], p[2], pl);
        for (int k = 0; k < 3; k++) {
            const double *q = p[k], *r = p[(k + 1) % 3];
            if (on_outline(w, t, k))
                edges +=
                    sqrt((r[0] - q[0]) * (r[0] - q[0]) + (r[1] - q[1]) * (r[1] - q[1]) + (r[2] - q[2]) * (r[2] - q[2]));
        }
        for (int k = 0; k < 3; k++)
            if (w->pinned[w->run[3 * t + k]] && !sweep__face_pin(&w->set, p[k]))
                return 0;
    }
    if (!sweep__face_merge(&w->set, eps, &w->mesh))
        return 0;
    const sweep__face_mesh *m = &w->mesh;
    /* Kept only if it is fewer and loses nothing: no polygon dropped as a
     * sliver, the same area, every triangle one the core keeps and facing
     * the plane's way (no needle whose normal rounding chose). */
    if (m->triangles >= b - a || m->dropped)
        return 1;
    double area_out = 0.0;
    for (uint32_t t = 0; t < m->triangles; t++) {
        const uint32_t *x = &m->tri[4 * t];
        sweep_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = (sweep_vec3){m->v[x[k]][0], m->v[x[k]][1], m->v[x[k]][2]};
        if (sweep_triangle_is_degenerate(p[0], p[1], p[2]))
            return 1;
        double along = area_along(m->v[x[0]], m->v[x[1]], m->v[x[2]], pl);
        sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(p[1], p[0]), sweep_v3_sub(p[2], p[0]));
        if (!(along >= SAME_PLANE * 0.5 * sweep_v3_len(n)))
            return 1;
        area_out += along;
    }
    /* a corner dropped within eps of its neighbours' line moves the
     * outline by at most eps */
    if (!(fabs(area_out - area_in) <= AREA_SLACK * area_in + eps * edges))
        return 1;
    /* Each corner is one of the level's vertices (a welded corner keeps the
     * first position met), or a fan's new centre. */
    if (!sweep__grow((void **)&w->mesh_vertex, &w->mesh_vertex_cap, m->vertices, sizeof *w->mesh_vertex) ||
        !sweep__grow((void **)&w->out, &w->out_cap, (uint64_t)w->out_len + 4 * m->triangles, sizeof *w->out))
        return 0;
    for (uint32_t v = 0; v < m->vertices; v++) {
        uint32_t s = spot_find(w->spots, w->nv, m->v[v]);
        if (s == NONE) {
            if (!sweep__grow((void **)&w->fresh, &w->fresh_cap, (uint64_t)w->fresh_len + 1, sizeof *w->fresh))
                return 0;
            memcpy(w->fresh[w->fresh_len], m->v[v], sizeof w->fresh[0]);
            s = FRESH + w->fresh_len++;
        }
        w->mesh_vertex[v] = s;
    }
    w->part_at[part] = w->out_len, w->part_len[part] = m->triangles;
    for (uint32_t t = 0; t < m->triangles; t++)
        for (int k = 0; k < 4; k++) {
            uint32_t x = m->tri[4 * t + k];
            w->out[w->out_len++] = k < 3 ? w->mesh_vertex[x] : x;
        }
    return 1;
}

static void note_use(merge_work *w, uint32_t s, uint32_t part)
{
    if (w->use[s] == 0)
        w->use[s] = part + 1;
    else if (w->use[s] != part + 1)
        w->twice[s] = 1;
}

/* Merges every part; then pins each corner that a part's merge dropped
 * while another part's triangles still use it (which would leave a corner
 * on one side of an edge and not the other). The number of corners newly
 * pinned; NONE when out of memory. */
static uint32_t merge_round(const sweep_level *lv, merge_work *w, int first)
{
    /* The first round merges every part; a later one only those with a
     * corner pinned since (pinned 2), the others' results standing. A
     * part merged again adds its triangles after the rest of w->out. */
    for (uint32_t a = 0, b; a < w->nt; a = b) {
        int again = first;
        for (b = a; b < w->nt && w->cand[b].part == w->cand[a].part; b++)
            for (int k = 0; k < 3; k++)
                again |= w->pinned[w->run[3 * w->cand[b].t + k]] == 2;
        if (again && !merge_part(lv, w, w->cand[a].part, a, b))
            return NONE;
    }
    for (uint32_t s = 0; s < w->nv; s++)
        w->pinned[s] = w->pinned[s] != 0;
    /* Which parts' final triangles (merged, or their own) use each spot. */
    memset(w->use, 0, (size_t)w->nv * sizeof *w->use);
    memset(w->stamp, 0, (size_t)w->nv * sizeof *w->stamp);
    for (uint32_t i = 0; i < w->nt; i++) {
        uint32_t t = w->cand[i].t, p = w->cand[i].part;
        if (w->part_len[p] == NONE) {
            for (int k = 0; k < 3; k++)
                note_use(w, w->run[3 * t + k], p);
        } else if (i == 0 || w->cand[i - 1].part != p) {
            for (uint32_t j = 0; j < 3 * w->part_len[p]; j++) {
                uint32_t s = w->out[w->part_at[p] + 4 * (j / 3) + j % 3];
                if (s < FRESH)
                    note_use(w, s, p);
            }
        }
    }
    uint32_t pinned = 0;
    for (uint32_t a = 0, b; a < w->nt; a = b) {
        uint32_t p = w->cand[a].part;
        for (b = a + 1; b < w->nt && w->cand[b].part == p; b++)
            ;
        if (w->part_len[p] == NONE)
            continue;
        for (uint32_t j = 0; j < 3 * w->part_len[p]; j++) {
            uint32_t s = w->out[w->part_at[p] + 4 * (j / 3) + j % 3];
            if (s < FRESH)
                w->stamp[s] = p + 1;
        }
        for (uint32_t i = a; i < b; i++)
            for (int k = 0; k < 3; k++) {
                uint32_t s = w->run[3 * w->cand[i].t + k];
                /* dropped here, used by another part */
                if (w->stamp[s] != p + 1 && w->use[s] != 0 && !w->pinned[s]) {
                    w->pinned[s] = 2;
                    pinned++;
                }
            }
    }
    return pinned;
}

/* The static triangles again, in their order (a merged part's where its
 * first triangle was), each node's range moved with them, then only the
 * vertices they use; 0 when out of memory. */
static int rewrite(importer *im, merge_work *w)
{
    sweep_level *lv = im->lv;
    const uint32_t nt = w->nt;
    w->new_ix = malloc((size_t)nt * 3 * sizeof *w->new_ix);
    w->new_mat = malloc((size_t)nt * sizeof *w->new_mat);
    w->pos = malloc(((size_t)nt + 1) * sizeof *w->pos);
    w->fresh_vertex = malloc(((size_t)w->fresh_len + 1) * sizeof *w->fresh_vertex);
    if (!w->new_ix || !w->new_mat || !w->pos || !w->fresh_vertex)
        return 0;
    for (uint32_t i = 0; i < w->fresh_len; i++)
        w->fresh_vertex[i] = NONE;
    uint32_t k = 0;
    for (uint32_t t = 0; t < nt; t++) {
        w->pos[t] = k;
        uint32_t p = w->part_of[t];
        if (w->part_len[p] == NONE) {
            memcpy(w->new_ix + 3 * (size_t)k, lv->indices + 3 * (size_t)t, 3 * sizeof *w->new_ix);
            w->new_mat[k++] = lv->materials[t];
        } else if (w->part_at[p] != NONE) {
            for (uint32_t i = 0; i < w->part_len[p]; i++, k++) {
                const uint32_t *x = &w->out[w->part_at[p] + 4 * i];
                for (int c = 0; c < 3; c++) {
                    uint32_t v = x[c];
                    if (v >= FRESH) {
                        uint32_t *made = &w->fresh_vertex[v - FRESH];
                        const double *f = w->fresh[v - FRESH];
                        if (*made == NONE &&
                            sweep_level_add_vertex(lv, (sweep_vec3){f[0], f[1], f[2]}, made) != SWEEP_OK)
                            return 0;
                        v = *made;
                    } else {
                        v = w->spots[v].v;
                    }
                    w->new_ix[3 * (size_t)k + c] = v;
                }
                w->new_mat[k] = x[3];
            }
            w->part_at[p] = NONE; /* written */
        }
    }
    w->pos[nt] = k;
    if (k == nt)
        return 1;
    for (uint32_t g = 0; g < im->static_count; g++) {
        static_group *sg = &im->statics[g];
        sg->t0 = w->pos[sg->t0], sg->t1 = w->pos[sg->t1];
    }
    memcpy(lv->indices, w->new_ix, 3 * (size_t)k * sizeof *w->new_ix);
    memcpy(lv->materials, w->new_mat, (size_t)k * sizeof *w->new_mat);
    lv->triangle_count = k;
    im->stats->triangles -= nt - k;
    im->stats->merge_dropped += nt - k;
    const uint32_t vn = lv->vertex_count; /* with the fans' centres */
    if (!(w->renumber = malloc((size_t)(vn ? vn : 1) * sizeof *w->renumber)))
        return 0;
    for (uint32_t v = 0; v < vn; v++)
        w->renumber[v] = NONE;
    for (size_t i = 0; i < 3 * (size_t)k; i++)
        w->renumber[w->new_ix[i]] = 0;
    uint32_t kept = 0;
    for (uint32_t v = 0; v < vn; v++)
        if (w->renumber[v] != NONE) {
            lv->vertices[kept] = lv->vertices[v];
            w->renumber[v] = kept++;
        }
    lv->vertex_count = kept;
    for (size_t i = 0; i < 3 * (size_t)k; i++)
        lv->indices[i] = w->renumber[w->new_ix[i]];
    return 1;
}

/* Everything but the rewrite; 0 when out of memory. */
static int merge_level(const importer *im, sweep_level *lv, merge_work *w)
{
    const uint32_t nt = w->nt, nv = w->nv;
    w->node = malloc((size_t)nt * sizeof *w->node);
    w->node_eps = malloc(((size_t)im->static_count + 1) * sizeof *w->node_eps);
    w->spots = malloc((size_t)nv * sizeof *w->spots);
    w->run = malloc((size_t)nt * 3 * sizeof *w->run);
    w->edges = malloc((size_t)nt * 3 * sizeof *w->edges);
    w->plane = malloc((size_t)nt * sizeof *w->plane);
    w->group = malloc((size_t)nt * sizeof *w->group);
    w->seed = malloc((size_t)nt * sizeof *w->seed);
    w->queue = malloc((size_t)nt * sizeof *w->queue);
    w->cand = malloc((size_t)nt * sizeof *w->cand);
    w->part_of = malloc((size_t)nt * sizeof *w->part_of);
    w->pinned = calloc(nv, 1);
    w->use = malloc((size_t)nv * sizeof *w->use);
    w->twice = malloc(nv);
    w->stamp = malloc((size_t)nv * sizeof *w->stamp);
    w->part_at = malloc((size_t)nt * sizeof *w->part_at);
    w->part_len = malloc((size_t)nt * sizeof *w->part_len);
    if (!w->spots || !w->run || !w->edges || !w->plane || !w->group || !w->seed || !w->queue || !w->cand ||
        !w->part_of || !w->pinned || !w->use || !w->twice || !w->stamp || !w->part_at || !w->part_len || !w->node ||
        !w->node_eps)
        return 0;
    /* Each node's triangles, and its eps from its own size: the largest
     * side of its box, not its distance from the origin. A triangle in no
     * node (none is: every static mesh is tracked before it is added)
     * joins no group (joins), so a merged part never leaves its node's
     * range. */
    w->nodes = im->static_count;
    for (uint32_t t = 0; t < nt; t++)
        w->node[t] = im->static_count;
    w->node_eps[im->static_count] = 0.0;
    for (uint32_t g = 0; g < im->static_count; g++) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t t = im->statics[g].t0; t < im->statics[g].t1; t++) {
            w->node[t] = g;
            for (int k = 0; k < 3; k++) {
                const sweep_vec3 *v = corner(lv, t, k);
                double c[3] = {v->x, v->y, v->z};
                for (int i = 0; i < 3; i++)
                    lo[i] = fmin(lo[i], c[i]), hi[i] = fmax(hi[i], c[i]);
            }
        }
        double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
        w->node_eps[g] = size > 0.0 ? MERGE_EPS_REL * size : 0.0;
    }
    for (uint32_t v = 0; v < nv; v++) {
        const sweep_vec3 *p = &lv->vertices[v];
        w->spots[v] = (spot){{p->x, p->y, p->z}, v};
    }
    qsort(w->spots, nv, sizeof *w->spots, spot_cmp);
    for (uint32_t t = 0; t < nt; t++) {
        for (int k = 0; k < 3; k++) {
            const sweep_vec3 *v = corner(lv, t, k);
            uint32_t s = spot_find(w->spots, nv, (const double[3]){v->x, v->y, v->z});
            if (s == NONE)
                return -1; /* a corner not among the level's vertices: leave it all */
            w->run[3 * t + k] = s;
        }
        for (int k = 0; k < 3; k++)
            w->edges[3 * t + k] = (edge){edge_key(w, t, k), t};
        const sweep_vec3 *a = corner(lv, t, 0);
        sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(*corner(lv, t, 1), *a), sweep_v3_sub(*corner(lv, t, 2), *a));
        double len = sweep_v3_len(n);
        double *pl = w->plane[t];
        if (len > 0.0 && isfinite(len)) {
            pl[0] = n.x / len, pl[1] = n.y / len, pl[2] = n.z / len;
            pl[3] = pl[0] * a->x + pl[1] * a->y + pl[2] * a->z;
        } else {
            pl[0] = pl[1] = pl[2] = pl[3] = 0.0;
        }
    }
    qsort(w->edges, 3 * (size_t)nt, sizeof *w->edges, edge_cmp);
    const uint32_t groups = grow_groups(lv, w);
    /* The triangles by group (in order within each), then cut into parts. */
    uint32_t *at = w->part_at; /* borrowed as each group's first place */
    for (uint32_t g = 0; g < groups; g++)
        at[g] = 0;
    for (uint32_t t = 0; t < nt; t++)
        at[w->group[t]]++;
    for (uint32_t g = 0, sum = 0; g < groups; g++) {
        uint32_t c = at[g];
        at[g] = sum, sum += c;
    }
    for (uint32_t t = 0; t < nt; t++) {
        const double *pl = w->plane[w->seed[w->group[t]]];
        int ax = fabs(pl[0]) >= fabs(pl[1]) && fabs(pl[0]) >= fabs(pl[2]) ? 0 : fabs(pl[1]) >= fabs(pl[2]) ? 1 : 2;
        double c[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < 3; k++) {
            const sweep_vec3 *v = corner(lv, t, k);
            c[0] = fmax(c[0], v->x), c[1] = fmax(c[1], v->y), c[2] = fmax(c[2], v->z);
        }
        w->cand[at[w->group[t]]++] = (cand){t, 0, {c[(ax + 1) % 3], c[(ax + 2) % 3]}};
    }
    uint32_t parts = 0;
    for (uint32_t a = 0, b; a < nt; a = b) {
        for (b = a + 1; b < nt && w->group[w->cand[b].t] == w->group[w->cand[a].t]; b++)
            ;
        cut(w->cand + a, b - a, &parts);
    }
    for (uint32_t i = 0; i < nt; i++)
        w->part_of[w->cand[i].t] = w->cand[i].part;
    /* First no corner pinned; then those whose dropping one round found
     * another part still using; if some are still found after
     * PIN_ROUNDS, every corner that two parts share. */
    uint32_t found = 1;
    for (int round = 0; round < PIN_ROUNDS && found; round++)
        if ((found = merge_round(lv, w, round == 0)) == NONE)
            return 0;
    if (found) {
        memset(w->use, 0, (size_t)nv * sizeof *w->use);
        memset(w->twice, 0, nv);
        for (uint32_t t = 0; t < nt; t++)
            for (int k = 0; k < 3; k++)
                note_use(w, w->run[3 * t + k], w->part_of[t]);
        for (uint32_t s = 0; s < nv; s++)
            if (w->twice[s] && !w->pinned[s])
                w->pinned[s] = 2;
        if (merge_round(lv, w, 0) == NONE)
            return 0;
    }
    return 1;
}

int sweep__scene_merge_faces(importer *im)
{
    sweep_level *lv = im->lv;
    /* FRESH marks a fan's centre: the spots' numbers must stay below it */
    if (lv->triangle_count < 2 || lv->vertex_count == 0 || lv->vertex_count >= FRESH)
        return 1;
    merge_work w;
    memset(&w, 0, sizeof w);
    w.nv = lv->vertex_count, w.nt = lv->triangle_count;
    int r = merge_level(im, lv, &w);
    if (r > 0)
        r = rewrite(im, &w);
    work_free(&w);
    if (r == 0)
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    return 1;
}
