/*
 * level_check.c - the level check (level_check.h): spawns tested with the
 * core's own move and queries, shells found by welding and sorting edges,
 * movers posed along their paths and their edges cast against the level
 * (and the level's edges against them).
 *
 * Two triangles cross when an edge of one passes through the other
 * (for triangles not in one plane, the test of Moller's "A Fast
 * Triangle-Triangle Intersection Test" comes down to that), so a mover
 * crossing the level is found with segment-triangle tests both ways
 * (Moller and Trumbore, "Fast, Minimum Storage Ray/Triangle
 * Intersection"), between triangles whose boxes meet. A tool's check, so
 * triangles are walked in plain loops, boxes first, not through the
 * world's BVH. A
 * closed shell's signed volume is the sum of the tetrahedra its triangles
 * make with one point (the divergence theorem); inward-facing triangles
 * make it negative.
 */
#include "maps/level_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crowd.h"
#include "core/move.h"
#include "core/mover.h"
#include "core/swept_sphere.h"
#include "maps/loader.h"
#include "maps/tri_grid.h"


static const char *const kind_names[SWEEP_CHECK_KIND_COUNT] = {
    "spawn-inside", "spawn-floating", "inside-out", "open-mesh", "mover-crosses", "teleport-blocked"};

const char *sweep_check_kind_name(sweep_check_kind k)
{
    return (unsigned)k < SWEEP_CHECK_KIND_COUNT ? kind_names[k] : NULL;
}

typedef struct checker {
    const sweep_level *lv;
    sweep_world *world;
    sweep_movers *movers;
    sweep_check_report report;
    void *ctx;
    sweep_check_summary *sum;
    double size;     /* the level's bounding box diagonal */
    double tol;      /* lengths below this are rounding: 1e-7 of size */
    sweep_vec3 lo, hi;
    sweep_vec3 up; /* against gravity; +z without it */
    const uint8_t *skip; /* per level triangle: in no piece (check_shells) */
    uint8_t *solid; /* per level triangle, enum triangle_solid */
    uint32_t *piece_of; /* per level triangle of a SOLID_PIECE: its piece; else UINT32_MAX */
    sweep__tri_grid *grid; /* the level's triangles by cell: what a point or a ray may meet */
} checker;

/* What a level triangle bounds, as the movers' test needs it. */
enum triangle_solid {
    SOLID_UNKNOWN = 0, /* its piece is no solid; what lies behind it not yet looked at */
    SOLID_PIECE,       /* its piece is a solid (closed, or open only at its base, where other
                          geometry closes it, or where a gap leads into another solid) */
    SOLID_BEHIND,      /* just behind its middle lies the inside of a solid (enters_a_solid) */
    SOLID_NONE         /* neither */
};

static void found(checker *c, sweep_check_kind kind, sweep_vec3 at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void found(checker *c, sweep_check_kind kind, sweep_vec3 at, const char *fmt, ...)
{
    sweep_check_finding f;
    f.kind = kind;
    f.at = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f.text, sizeof f.text, fmt, ap);
    va_end(ap);
    c->sum->findings++;
    c->sum->by_kind[kind]++;
    if (c->report)
        c->report(c->ctx, &f);
}

static sweep_vec3 tri_vertex(const sweep_level *lv, uint32_t t, int k)
{
    return lv->vertices[lv->indices[3 * t + k]];
}

static sweep_vec3 tri_normal(const sweep_level *lv, uint32_t t)
{
    sweep_vec3 a = tri_vertex(lv, t, 0), b = tri_vertex(lv, t, 1), c = tri_vertex(lv, t, 2);
    return sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
}

static sweep_vec3 tri_middle(const sweep_level *lv, uint32_t t)
{
    sweep_vec3 corners = sweep_v3_add(tri_vertex(lv, t, 0), tri_vertex(lv, t, 1));
    return sweep_v3_scale(sweep_v3_add(corners, tri_vertex(lv, t, 2)), 1.0 / 3.0);
}

/* ---- spawns --------------------------------------------------------------- */

/* Barycentric slack: a segment through a triangle's edge or corner only
 * touches it. */
#define INSIDE_SLACK 1e-9

/* 1 with *t (the fraction along a -> b) if the segment passes through
 * triangle (p, q, r) from either side (Moller and Trumbore); through its
 * inside when strict, not along its border. */
static int segment_triangle_in(sweep_vec3 a, sweep_vec3 b, sweep_vec3 p, sweep_vec3 q, sweep_vec3 r, double *t,
                               double slack)
{
    sweep_vec3 d = sweep_v3_sub(b, a), e1 = sweep_v3_sub(q, p), e2 = sweep_v3_sub(r, p);
    sweep_vec3 h = sweep_v3_cross(d, e2);
    double det = sweep_v3_dot(e1, h);
    if (fabs(det) <= 1e-300)
        return 0; /* parallel to the plane */
    double inv = 1.0 / det;
    sweep_vec3 s = sweep_v3_sub(a, p);
    double u = sweep_v3_dot(s, h) * inv;
    if (u < slack || u > 1.0 - slack)
        return 0;
    sweep_vec3 qv = sweep_v3_cross(s, e1);
    double v = sweep_v3_dot(d, qv) * inv;
    if (v < slack || u + v > 1.0 - slack)
        return 0;
    double f = sweep_v3_dot(e2, qv) * inv;
    if (f < 0.0 || f > 1.0)
        return 0;
    *t = f;
    return 1;
}

static int segment_triangle(sweep_vec3 a, sweep_vec3 b, sweep_vec3 p, sweep_vec3 q, sweep_vec3 r, double *t)
{
    return segment_triangle_in(a, b, p, q, r, t, 0.0);
}

/* What the six axis directions out of p meet first: *backs of them the
 * back of a level face (its front looks away from p), *open nothing at
 * all; the others a front. *tri is the first face met upwards. */
static void ways_out(const checker *c, sweep_vec3 p, int *backs, int *open, uint32_t *tri)
{
    static const double dirs[6][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    const sweep_level *lv = c->lv;
    *backs = *open = 0;
    *tri = 0;
    for (int d = 0; d < 6; d++) {
        sweep_vec3 dir = sweep_v3(dirs[d][0], dirs[d][1], dirs[d][2]);
        sweep_vec3 to = sweep_v3_madd(p, dir, 2.0 * c->size);
        double best = INFINITY;
        int front = 0;
        uint32_t first = 0, n;
        /* Those the ray's box reaches, in the order of them all. */
        const uint32_t *near = sweep__tri_grid_query(c->grid, sweep_v3_min(p, to), sweep_v3_max(p, to), &n);
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t t = near[k];
            double f;
            if (!segment_triangle(p, to, tri_vertex(lv, t, 0), tri_vertex(lv, t, 1), tri_vertex(lv, t, 2), &f))
                continue;
            int faces_p = sweep_v3_dot(tri_normal(lv, t), dir) < 0.0;
            /* Among faces at the nearest distance (a twin lies on its
             * face), one facing p counts as facing it. */
            if (f < best - 1e-12) {
                best = f, front = faces_p, first = t;
            } else if (f <= best + 1e-12) {
                front |= faces_p;
            }
        }
        if (best == INFINITY)
            ++*open;
        else if (!front)
            ++*backs;
        if (d == 0)
            *tri = first;
    }
}

/* 1 if p is behind the faces of a solid, which the core's move test
 * misses (it collides with front faces only): no way out along the axes
 * is open, and five or six meet the back of a face first (*backs says how
 * many; five: a solid standing on a floor that faces up into it). *tri is
 * the first face met upwards. */
static int behind_faces(const checker *c, sweep_vec3 p, uint32_t *tri, int *backs)
{
    int open;
    ways_out(c, p, backs, &open, tri);
    return open == 0 && *backs >= 5;
}

/* Sweeps the player (eSpace centre ec moving by ed; inv its inverse
 * radii) against triangle (a, b, d) when its box meets lo .. hi, keeping
 * the earliest front contact in *best and its point in *at. */
static int sweep_one(sweep_vec3 ec, sweep_vec3 ed, sweep_vec3 inv, sweep_vec3 r, sweep_vec3 lo, sweep_vec3 hi,
                     sweep_vec3 a, sweep_vec3 b, sweep_vec3 d, double *best, sweep_vec3 *at)
{
    sweep_vec3 tlo = sweep_v3_min(a, sweep_v3_min(b, d)), thi = sweep_v3_max(a, sweep_v3_max(b, d));
    if (tlo.x > hi.x || thi.x < lo.x || tlo.y > hi.y || thi.y < lo.y || tlo.z > hi.z || thi.z < lo.z ||
        sweep_triangle_is_degenerate(a, b, d))
        return 0;
    sweep_sphere_hit h;
    if (sweep_sphere_sweep_triangle(ec, ed, sweep_v3_mul(a, inv), sweep_v3_mul(b, inv), sweep_v3_mul(d, inv), *best,
                                    &h) &&
        !h.embedded && h.t <= *best) {
        *best = h.t;
        *at = sweep_v3_mul(h.point, r);
        return 1;
    }
    return 0;
}

static sweep_vec3 posed(sweep_mover_pose pose, sweep_vec3 v);

/* The first level triangle, or mover triangle where the mover starts, a
 * player of radii r meets moving from p by disp (front faces, as a move
 * meets them): 1 with the fraction of the way in *t and the point met in
 * *at; 0 if none. Embedded starts are the spawn test's. */
static int sweep_level_triangles(const checker *c, sweep_vec3 p, sweep_vec3 disp, sweep_vec3 r, double *t,
                                 sweep_vec3 *at)
{
    const sweep_level *lv = c->lv;
    sweep_vec3 inv = sweep_v3(1.0 / r.x, 1.0 / r.y, 1.0 / r.z);
    sweep_vec3 end = sweep_v3_add(p, disp);
    sweep_vec3 lo = sweep_v3_sub(sweep_v3_min(p, end), r), hi = sweep_v3_add(sweep_v3_max(p, end), r);
    sweep_vec3 ec = sweep_v3_mul(p, inv), ed = sweep_v3_mul(disp, inv);
    int hit = 0;
    double best = 1.0;
    uint32_t n;
    const uint32_t *near = sweep__tri_grid_query(c->grid, lo, hi, &n);
    for (uint32_t i = 0; i < n; i++)
        hit |= sweep_one(ec, ed, inv, r, lo, hi, tri_vertex(lv, near[i], 0), tri_vertex(lv, near[i], 1),
                         tri_vertex(lv, near[i], 2), &best, at);
    for (uint32_t m = 0; m < lv->mover_count; m++) {
        const sweep_level_mover *mv = &lv->movers[m];
        sweep_mover_pose pose = sweep_movers_path_pose(c->movers, m, 0);
        for (uint32_t k = 0; k < mv->triangle_count; k++) {
            const uint32_t *ix = &mv->indices[3 * (size_t)k];
            hit |= sweep_one(ec, ed, inv, r, lo, hi, posed(pose, mv->vertices[ix[0]]), posed(pose, mv->vertices[ix[1]]),
                             posed(pose, mv->vertices[ix[2]]), &best, at);
        }
    }
    *t = best;
    return hit;
}

/* The direction a ray from a spawn point is cast along to tell inside from
 * outside by its crossings: none a level is built along, so the ray meets
 * no edge of it. */
static const sweep_vec3 SPAWN_RAY = {0.5773, 0.5779, 0.5768};

/* Vertex v of a mover at pose. */
static sweep_vec3 posed(sweep_mover_pose pose, sweep_vec3 v)
{
    return sweep_v3_add(pose.position, sweep_quat_rotate(pose.rotation, v));
}

/* 1 with *mover if p lies inside a mover as it starts: behind every face
 * of it, where the core sees none of them (its embedded test looks at
 * fronts), so a player placed there is not found in the way of the
 * mover and is carried about inside it. Inside when a ray from p crosses
 * the posed mover an odd number of times and the first face it meets
 * looks away from p: a closed mover facing inward (a cabin) around p is
 * a room. The ray runs twice the diagonal of the posed mover's box, which
 * holds p: past every face of it, however large the mover is beside the
 * static level. */
static int inside_a_mover(const checker *c, sweep_vec3 p, uint32_t *mover)
{
    const sweep_level *lv = c->lv;
    const sweep_vec3 dir = SPAWN_RAY;
    for (uint32_t m = 0; m < lv->mover_count; m++) {
        const sweep_level_mover *mv = &lv->movers[m];
        sweep_mover_pose pose;
        sweep_movers_get(c->movers, m, &pose, NULL);
        sweep_vec3 lo = sweep_v3(INFINITY, INFINITY, INFINITY), hi = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
        for (uint32_t v = 0; v < mv->vertex_count; v++) {
            sweep_vec3 w = posed(pose, mv->vertices[v]);
            lo = sweep_v3_min(lo, w), hi = sweep_v3_max(hi, w);
        }
        if (p.x < lo.x || p.x > hi.x || p.y < lo.y || p.y > hi.y || p.z < lo.z || p.z > hi.z)
            continue;
        sweep_vec3 to = sweep_v3_madd(p, dir, 2.0 * sweep_v3_len(sweep_v3_sub(hi, lo)));
        uint32_t crossings = 0;
        double nearest = INFINITY;
        int away = 0;
        for (uint32_t t = 0; t < mv->triangle_count; t++) {
            sweep_vec3 a[3];
            for (int k = 0; k < 3; k++)
                a[k] = posed(pose, mv->vertices[mv->indices[3 * t + k]]);
            double f;
            if (!segment_triangle(p, to, a[0], a[1], a[2], &f))
                continue;
            crossings++;
            if (f < nearest) {
                nearest = f;
                away = sweep_v3_dot(sweep_v3_cross(sweep_v3_sub(a[1], a[0]), sweep_v3_sub(a[2], a[0])), dir) > 0.0;
            }
        }
        if ((crossings & 1) && away) {
            *mover = m;
            return 1;
        }
    }
    return 0;
}

static void check_spawns(checker *c)
{
    const sweep_level *lv = c->lv;
    const sweep_config *cfg = &lv->config;
    sweep_vec3 r = lv->default_radii;
    sweep_vec3 g = cfg->gravity;
    double glen = sweep_v3_len(g);
    sweep_vec3 up = glen > 0.0 ? sweep_v3_scale(g, -1.0 / glen) : sweep_v3(0.0, 0.0, 1.0);
    double dt = cfg->max_dt < 1.0 ? cfg->max_dt : 1.0;
    /* The height of the player along up: its ellipsoid's extent that way. */
    double half = sqrt(r.x * r.x * up.x * up.x + r.y * r.y * up.y * up.y + r.z * r.z * up.z * up.z);
    /* Far: a drop deeper than a player is tall plus the height its jump
     * reaches (a level's spawns may sit a little above the floor). */
    double jump = glen > 0.0 ? lv->rules.jump_speed * lv->rules.jump_speed / (2.0 * glen) : 0.0;
    double far = 2.0 * half + jump;
    sweep_space space = {c->world, c->movers, NULL, SWEEP_NO_BODY};
    for (uint32_t i = 0; i < lv->spawn_count; i++) {
        sweep_vec3 p = lv->spawns[i];
        uint32_t n = i + 1; /* numbered as on the wire */
        sweep_move_input in = {p, r, sweep_v3_scale(up, 1e-6 / dt), dt, 0};
        sweep_move_result res;
        if (sweep_move_in(&space, cfg, &in, &res) != SWEEP_OK) {
            found(c, SWEEP_CHECK_SPAWN_INSIDE, p,
                  "spawn point %u at (%g, %g, %g): the core refuses a player there (beyond the world limit?)", n,
                  p.x, p.y, p.z);
            continue;
        }
        if (res.flags & SWEEP_MOVED_STARTED_EMBEDDED) {
            const sweep_contact *ct = res.contact_count ? &res.contacts[0] : NULL;
            if (ct && ct->mover != SWEEP_NO_MOVER)
                found(c, SWEEP_CHECK_SPAWN_INSIDE, p,
                      "spawn point %u at (%g, %g, %g) overlaps mover %u '%s' where it starts: a player cannot be "
                      "placed there",
                      n, p.x, p.y, p.z, lv->movers[ct->mover].id, lv->movers[ct->mover].name);
            else
                found(c, SWEEP_CHECK_SPAWN_INSIDE, p,
                      "spawn point %u at (%g, %g, %g) is inside the level's geometry (triangle %u): a player of "
                      "radii (%g, %g, %g) cannot be placed there",
                      n, p.x, p.y, p.z, ct ? ct->triangle : 0u, r.x, r.y, r.z);
            continue;
        }
        uint32_t m;
        if (inside_a_mover(c, p, &m)) {
            found(c, SWEEP_CHECK_SPAWN_INSIDE, p,
                  "spawn point %u at (%g, %g, %g) is inside mover %u '%s' where it starts, behind all its faces: "
                  "a player placed there is carried inside it",
                  n, p.x, p.y, p.z, lv->movers[m].id, lv->movers[m].name);
            continue;
        }
        uint32_t tri = 0;
        int backs = 0;
        if (behind_faces(c, p, &tri, &backs)) {
            found(c, SWEEP_CHECK_SPAWN_INSIDE, p,
                  "spawn point %u at (%g, %g, %g) is inside a solid: %d of the 6 ways out along the axes meet "
                  "the back of a face first (triangle %u above it)",
                  n, p.x, p.y, p.z, backs, tri);
            continue;
        }
        if (glen == 0.0)
            continue; /* nothing falls */
        double t;
        sweep_vec3 at;
        if (!sweep_level_triangles(c, p, sweep_v3_scale(up, -2.0 * c->size), r, &t, &at)) {
            found(c, SWEEP_CHECK_SPAWN_FLOATING, p,
                  "spawn point %u at (%g, %g, %g) has no floor below it: a player placed there falls out of the "
                  "level",
                  n, p.x, p.y, p.z);
        } else if (t * 2.0 * c->size > far) {
            found(c, SWEEP_CHECK_SPAWN_FLOATING, p,
                  "spawn point %u at (%g, %g, %g) floats %.6g above the floor below it (at (%g, %g, %g)), more "
                  "than a player's height and a jump (%.6g): a player placed there falls first",
                  n, p.x, p.y, p.z, t * 2.0 * c->size, at.x, at.y, at.z, far);
        }
    }
}

/* ---- shells --------------------------------------------------------------- */

typedef struct edge {
    uint32_t lo, hi; /* welded vertex ids, lo < hi */
    uint32_t tri;
    int8_t forward;  /* 1 if the triangle runs lo -> hi */
} edge;

static const sweep_vec3 *sort_v;

static int by_position(const void *pa, const void *pb)
{
    sweep_vec3 a = sort_v[*(const uint32_t *)pa], b = sort_v[*(const uint32_t *)pb];
    if (a.x != b.x)
        return a.x < b.x ? -1 : 1;
    if (a.y != b.y)
        return a.y < b.y ? -1 : 1;
    if (a.z != b.z)
        return a.z < b.z ? -1 : 1;
    return *(const uint32_t *)pa < *(const uint32_t *)pb ? -1 : *(const uint32_t *)pa > *(const uint32_t *)pb;
}

static int same_position(sweep_vec3 a, sweep_vec3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* 1 if welded ids a come before b, in order of their first, second, third. */
static int ids_before(const uint32_t *a, const uint32_t *b)
{
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k];
    return 0;
}

/* The group of edges from i on that join the same two vertices: returns
 * where the next group starts, with how many run each way. */
static uint32_t edge_group(const edge *edges, uint32_t ne, uint32_t i, int *fw, int *bw)
{
    uint32_t j = i;
    *fw = *bw = 0;
    for (; j < ne && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi; j++)
        edges[j].forward ? ++*fw : ++*bw;
    return j;
}

static sweep_vec3 edge_middle(const sweep_level *lv, const edge *e, const uint32_t *first_vertex)
{
    return sweep_v3_scale(sweep_v3_add(lv->vertices[first_vertex[e->lo]], lv->vertices[first_vertex[e->hi]]), 0.5);
}

static int by_edge(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

/* A triangle as its welded ids, rotated to start at the smallest. */
typedef struct tkey {
    uint32_t v[3];
    uint32_t tri;
} tkey;

static int by_tkey(const void *pa, const void *pb)
{
    const tkey *a = pa, *b = pb;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k])
            return a->v[k] < b->v[k] ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

static tkey make_tkey(uint32_t a, uint32_t b, uint32_t c, uint32_t tri)
{
    tkey k = {{a, b, c}, tri};
    while (k.v[0] > k.v[1] || k.v[0] > k.v[2]) {
        uint32_t t = k.v[0];
        k.v[0] = k.v[1], k.v[1] = k.v[2], k.v[2] = t;
    }
    return k;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* One piece's tallies. */
typedef struct piece {
    uint32_t triangles, edges, matched, one_sided, bad;
    uint32_t first_one_sided; /* index into the edge array of an unsealed one, UINT32_MAX if none */
    uint32_t unsealed;
    uint32_t open_above_base; /* one-sided edges not at its base */
    int solid;
    int folds;                /* a face turned 90 degrees or more from the piece's mean facing */
    double volume6;           /* six times the signed volume, about `ref` */
    sweep_vec3 ref, lo, hi;
    sweep_vec3 facing;        /* the sum of its faces' cross products: their mean facing, by area */
    sweep_vec3 rim;           /* the sum of its edges of one triangle's middles */
} piece;

/* 1 if the middle of edge e lies on a level triangle other than its own:
 * an edge of one triangle closed by another surface (a box standing on
 * the floor, a face cut where another brush meets it). */
static int sealed(const checker *c, const edge *e, const uint32_t *first_vertex)
{
    const sweep_level *lv = c->lv;
    sweep_vec3 m = edge_middle(lv, e, first_vertex);
    double eps = 1e3 * c->tol;
    uint32_t n;
    const uint32_t *near =
        sweep__tri_grid_query(c->grid, sweep_v3_sub(m, sweep_v3(eps, eps, eps)), sweep_v3_add(m, sweep_v3(eps, eps, eps)), &n);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t t = near[k];
        if (t == e->tri)
            continue;
        sweep_vec3 p = tri_vertex(lv, t, 0), q = tri_vertex(lv, t, 1), r = tri_vertex(lv, t, 2);
        if (m.x < fmin(p.x, fmin(q.x, r.x)) - eps || m.x > fmax(p.x, fmax(q.x, r.x)) + eps ||
            m.y < fmin(p.y, fmin(q.y, r.y)) - eps || m.y > fmax(p.y, fmax(q.y, r.y)) + eps ||
            m.z < fmin(p.z, fmin(q.z, r.z)) - eps || m.z > fmax(p.z, fmax(q.z, r.z)) + eps)
            continue;
        if (sweep_triangle_is_degenerate(p, q, r))
            continue;
        sweep_vec3 cp = sweep_closest_point_on_triangle(m, p, q, r);
        if (sweep_v3_len(sweep_v3_sub(cp, m)) <= eps)
            return 1;
    }
    return 0;
}

/* 1 if just beyond edge e, past its triangle and in front of it, lies
 * the inside of another solid (behind_faces): a gap along e opens into
 * that solid, not into space a player is in, as where a beam runs into a
 * wall and the level compiler dropped its end face. */
static int beyond_is_solid(const checker *c, const edge *e, const uint32_t *first_vertex)
{
    const sweep_level *lv = c->lv;
    sweep_vec3 m = edge_middle(lv, e, first_vertex);
    sweep_vec3 n = tri_normal(lv, e->tri);
    n = sweep_v3_scale(n, 1.0 / sweep_v3_len(n));
    /* Away from the triangle's middle, along its plane. */
    sweep_vec3 out = sweep_v3_sub(m, tri_middle(lv, e->tri));
    out = sweep_v3_sub(out, sweep_v3_scale(n, sweep_v3_dot(out, n)));
    double len = sweep_v3_len(out);
    if (!(len > 0.0))
        return 0;
    double eps = 1e3 * c->tol;
    sweep_vec3 q = sweep_v3_madd(sweep_v3_madd(m, out, eps / len), n, eps);
    uint32_t above;
    int backs;
    return behind_faces(c, q, &above, &backs);
}

/* 1 if edge e lies at the lowest height of its piece (along up): a solid
 * open at its base stands on something, as generated boxes on terrain
 * do, and nobody reaches below it. */
static int at_base(const checker *c, const piece *p, const edge *e, const uint32_t *first_vertex)
{
    const sweep_level *lv = c->lv;
    double base = INFINITY;
    sweep_vec3 corner[8];
    for (int k = 0; k < 8; k++) {
        corner[k] = sweep_v3(k & 1 ? p->hi.x : p->lo.x, k & 2 ? p->hi.y : p->lo.y, k & 4 ? p->hi.z : p->lo.z);
        /* A comparison, not fmin: Debian 12's aarch64 gcc crashes
         * vectorising an fmin reduction here at -O2. */
        double h = sweep_v3_dot(corner[k], c->up);
        if (h < base)
            base = h;
    }
    double ha = sweep_v3_dot(lv->vertices[first_vertex[e->lo]], c->up);
    double hb = sweep_v3_dot(lv->vertices[first_vertex[e->hi]], c->up);
    return ha <= base + 1e3 * c->tol && hb <= base + 1e3 * c->tol;
}

/* 1 if a spawn point lies inside closed piece k (a ray from it crosses
 * the piece's triangles an odd number of times): a shell facing inward
 * around the players is a room, not a solid wound the wrong way. */
static int holds_a_spawn(const checker *c, uint32_t k, const uint32_t *piece_ix, uint32_t *parent, const piece *p)
{
    const sweep_level *lv = c->lv;
    for (uint32_t i = 0; i < lv->spawn_count; i++) {
        sweep_vec3 s = lv->spawns[i];
        if (s.x < p->lo.x || s.x > p->hi.x || s.y < p->lo.y || s.y > p->hi.y || s.z < p->lo.z || s.z > p->hi.z)
            continue;
        sweep_vec3 to = sweep_v3_madd(s, SPAWN_RAY, 4.0 * c->size);
        uint32_t crossings = 0;
        for (uint32_t t = 0; t < lv->triangle_count; t++) {
            double f;
            if (!c->skip[t] && piece_ix[find(parent, t)] == k &&
                segment_triangle(s, to, tri_vertex(lv, t, 0), tri_vertex(lv, t, 1), tri_vertex(lv, t, 2), &f))
                crossings++;
        }
        if (crossings & 1)
            return 1;
    }
    return 0;
}

/* A point just behind the middle of level triangle t (not degenerate): by
 * far more than rounding, far less than a wall is thick. */
static sweep_vec3 behind_middle(const checker *c, uint32_t t)
{
    sweep_vec3 n = tri_normal(c->lv, t);
    return sweep_v3_madd(tri_middle(c->lv, t), n, -1e3 * c->tol / sweep_v3_len(n));
}

/* 1 if closed piece k, wound inside-out, is a pocket sealed inside a
 * solid: just behind its largest face (its outside), every way out along
 * the axes meets the back of a face first, or nothing (the void beyond a
 * compiled level's hull, towards which it keeps no face). No player
 * reaches such a pocket, nor the outside of its faces; a level compiled
 * from brushes keeps one wherever its brushes enclose a space, as a
 * hollow wall does. */
static int sealed_pocket(const checker *c, uint32_t k, const uint32_t *piece_ix, uint32_t *parent)
{
    const sweep_level *lv = c->lv;
    double best = 0.0;
    uint32_t face = UINT32_MAX;
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        if (c->skip[t] || piece_ix[find(parent, t)] != k)
            continue;
        sweep_vec3 a = tri_vertex(lv, t, 0), b = tri_vertex(lv, t, 1), d = tri_vertex(lv, t, 2);
        double area2 = sweep_v3_len(sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(d, a)));
        if (area2 > best)
            best = area2, face = t;
    }
    if (face == UINT32_MAX)
        return 0;
    uint32_t above;
    int backs, open;
    ways_out(c, behind_middle(c, face), &backs, &open, &above);
    /* One way out, back through the face, always meets the shell's own
     * back: a shell over the void (nothing anywhere else) is no pocket. */
    return backs >= 2 && backs + open == 6;
}

/* A piece that looks meant to be solid: no triangles wound against each
 * other; at most a quarter of its edges open above its base; closed with
 * a fan from the middle of its edges of one triangle, a volume on the
 * side its faces look away from (a room, a yard or a shaft facing inward,
 * a floor with a pit in it, close on one their faces look into); and
 * faces turned a right angle or more from the way the piece faces as a
 * whole (a box's sides), unless it rises from a rim all at its base, as a
 * dome does. So a sheet is no solid however finely it is cut: a floor of
 * many pieces, a terrain. */
static int mostly_closed(const checker *c, const piece *p)
{
    if (p->triangles < 4 || p->bad != 0 || 4 * p->open_above_base > p->edges)
        return 0;
    if (p->one_sided == 0)
        return 1;
    /* Six times the volume about the rim's middle m: each triangle's
     * determinant about m is the one about ref less (m - ref) . its cross
     * product, and the fan's own triangles, which have m as a corner, add
     * nothing. */
    sweep_vec3 m = sweep_v3_scale(p->rim, 1.0 / p->one_sided);
    if (!(p->volume6 - sweep_v3_dot(sweep_v3_sub(m, p->ref), p->facing) > 0.0))
        return 0;
    if (p->folds)
        return 1;
    return p->open_above_base == 0 && sweep_v3_dot(sweep_v3_sub(p->hi, p->lo), c->up) > 1e3 * c->tol;
}

static sweep_status check_shells(checker *c)
{
    const sweep_level *lv = c->lv;
    uint32_t nv = lv->vertex_count, nt = lv->triangle_count;
    sweep_status st = SWEEP_E_NOMEM;
    uint32_t *order = malloc((size_t)nv * sizeof *order), *weld = malloc((size_t)nv * sizeof *weld);
    uint32_t *first_vertex = malloc((size_t)nv * sizeof *first_vertex);
    tkey *keys = malloc((size_t)nt * sizeof *keys);
    uint8_t *skip = calloc(nt ? nt : 1, 1);
    edge *edges = malloc((size_t)nt * 3 * sizeof *edges);
    uint32_t *parent = malloc((size_t)nt * sizeof *parent);
    piece *pieces = NULL;
    if ((nv && (!order || !weld || !first_vertex)) || (nt && (!keys || !edges || !parent)) || !skip)
        goto done;

    /* Weld: the same id for every vertex at one position. */
    for (uint32_t i = 0; i < nv; i++)
        order[i] = i;
    sort_v = lv->vertices;
    qsort(order, nv, sizeof *order, by_position);
    uint32_t ids = 0;
    for (uint32_t i = 0; i < nv; i++) {
        if (i == 0 || !same_position(lv->vertices[order[i - 1]], lv->vertices[order[i]]))
            first_vertex[ids++] = order[i];
        weld[order[i]] = ids - 1;
    }

    /* Two-sided surfaces (a triangle and its reversed twin) and degenerate
     * triangles are no part of a solid. */
    uint32_t nk = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t a = weld[lv->indices[3 * t]], b = weld[lv->indices[3 * t + 1]], d = weld[lv->indices[3 * t + 2]];
        if (a == b || b == d || a == d ||
            sweep_triangle_is_degenerate(tri_vertex(lv, t, 0), tri_vertex(lv, t, 1), tri_vertex(lv, t, 2))) {
            skip[t] = 1;
            continue;
        }
        keys[nk++] = make_tkey(a, b, d, t);
    }
    qsort(keys, nk, sizeof *keys, by_tkey);
    for (uint32_t t = 0; t < nt; t++) {
        if (skip[t] == 1)
            continue;
        tkey rev = make_tkey(weld[lv->indices[3 * t]], weld[lv->indices[3 * t + 2]], weld[lv->indices[3 * t + 1]], 0);
        /* The first key with the twin's ids, if any. */
        size_t lo = 0, hi = nk;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ids_before(keys[mid].v, rev.v))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nk && !ids_before(rev.v, keys[lo].v))
            skip[t] = 2;
    }

    c->skip = skip;
    /* Edges, sorted so that the triangles of one edge are together. */
    uint32_t ne = 0;
    for (uint32_t t = 0; t < nt; t++) {
        parent[t] = t;
        if (skip[t])
            continue;
        for (int k = 0; k < 3; k++) {
            uint32_t u = weld[lv->indices[3 * t + k]], v = weld[lv->indices[3 * t + (k + 1) % 3]];
            edges[ne++] = (edge){u < v ? u : v, u < v ? v : u, t, (int8_t)(u < v)};
        }
    }
    qsort(edges, ne, sizeof *edges, by_edge);
    for (uint32_t i = 0; i + 1 < ne; i++)
        if (edges[i].lo == edges[i + 1].lo && edges[i].hi == edges[i + 1].hi) {
            uint32_t x = find(parent, edges[i].tri), y = find(parent, edges[i + 1].tri);
            if (x != y)
                parent[x > y ? x : y] = x < y ? x : y; /* the lower number roots: a fixed order */
        }

    /* Pieces, numbered by their lowest triangle. */
    uint32_t *piece_ix = malloc((size_t)nt * sizeof *piece_ix);
    if (nt && !piece_ix)
        goto done;
    uint32_t np = 0;
    for (uint32_t t = 0; t < nt; t++)
        if (!skip[t] && find(parent, t) == t)
            np++;
    pieces = calloc(np ? np : 1, sizeof *pieces);
    if (!pieces) {
        free(piece_ix);
        goto done;
    }
    np = 0;
    for (uint32_t t = 0; t < nt; t++) {
        if (skip[t])
            continue;
        uint32_t root = find(parent, t);
        if (root == t) {
            piece_ix[t] = np;
            pieces[np].ref = tri_vertex(lv, t, 0);
            pieces[np].lo = pieces[np].hi = pieces[np].ref;
            pieces[np].first_one_sided = UINT32_MAX;
            np++;
        }
        piece *p = &pieces[piece_ix[root]];
        p->triangles++;
        sweep_vec3 a = sweep_v3_sub(tri_vertex(lv, t, 0), p->ref), b = sweep_v3_sub(tri_vertex(lv, t, 1), p->ref),
                   d = sweep_v3_sub(tri_vertex(lv, t, 2), p->ref);
        p->volume6 += sweep_v3_dot(a, sweep_v3_cross(b, d));
        p->facing = sweep_v3_add(p->facing, tri_normal(lv, t));
        for (int k = 0; k < 3; k++) {
            p->lo = sweep_v3_min(p->lo, tri_vertex(lv, t, k));
            p->hi = sweep_v3_max(p->hi, tri_vertex(lv, t, k));
        }
    }
    /* A face within a thousandth of a right angle of the mean facing
     * counts as turned: a wall beside a floor. */
    for (uint32_t t = 0; t < nt; t++) {
        if (skip[t])
            continue;
        piece *p = &pieces[piece_ix[find(parent, t)]];
        sweep_vec3 n = tri_normal(lv, t);
        if (sweep_v3_dot(n, p->facing) <= 1e-3 * sweep_v3_len(n) * sweep_v3_len(p->facing))
            p->folds = 1;
    }
    for (uint32_t i = 0, j; i < ne; i = j) {
        int fw, bw;
        j = edge_group(edges, ne, i, &fw, &bw);
        piece *p = &pieces[piece_ix[find(parent, edges[i].tri)]];
        p->edges++;
        /* As many running one way as the other: one surface, or solids
         * meeting along the edge. One more one way: an edge of one
         * triangle. More: triangles wound against each other. */
        if (fw == bw) {
            p->matched++;
        } else if (fw - bw == 1 || bw - fw == 1) {
            p->one_sided++;
            p->rim = sweep_v3_add(p->rim, edge_middle(lv, &edges[i], first_vertex));
            if (!at_base(c, p, &edges[i], first_vertex))
                p->open_above_base++;
            c->sum->one_sided_edges++;
            if (c->sum->one_sided_edges == 1)
                c->sum->one_sided_at = edge_middle(lv, &edges[i], first_vertex);
        } else {
            p->bad++;
        }
    }
    c->sum->meshes = np;

    /* A mostly closed piece has its edges of one triangle above its base
     * tested against the rest of the level. */
    for (uint32_t i = 0, j; i < ne; i = j) {
        int fw, bw;
        j = edge_group(edges, ne, i, &fw, &bw);
        piece *p = &pieces[piece_ix[find(parent, edges[i].tri)]];
        if (fw + bw == 1 && mostly_closed(c, p) && p->open_above_base && !at_base(c, p, &edges[i], first_vertex) &&
            !sealed(c, &edges[i], first_vertex) && !beyond_is_solid(c, &edges[i], first_vertex)) {
            if (p->first_one_sided == UINT32_MAX)
                p->first_one_sided = i;
            p->unsealed++;
        }
    }

    /* Findings, piece by piece in order. */
    for (uint32_t k = 0; k < np; k++) {
        piece *p = &pieces[k];
        sweep_vec3 centre = sweep_v3_scale(sweep_v3_add(p->lo, p->hi), 0.5);
        sweep_vec3 ext = sweep_v3_sub(p->hi, p->lo);
        double diag = sweep_v3_len(ext);
        if (p->one_sided == 0 && p->bad == 0) {
            p->solid = 1;
            c->sum->shells++;
            if (!(p->volume6 < -1e-9 * diag * diag * diag) || holds_a_spawn(c, k, piece_ix, parent, p))
                continue;
            if (sealed_pocket(c, k, piece_ix, parent)) {
                c->sum->pockets++;
                continue;
            }
            found(c, SWEEP_CHECK_INSIDE_OUT, centre,
                  "a closed shell of %u triangles around (%g, %g, %g) is wound inside-out (volume %.6g) and "
                  "holds no spawn point: its faces point inward, so a player walks into it from outside and "
                  "is held inside; unless it is a room of its own, reverse its triangles' winding",
                  p->triangles, centre.x, centre.y, centre.z, p->volume6 / 6.0);
            continue;
        }
        if (!mostly_closed(c, p))
            continue;
        p->solid = p->unsealed == 0;
        if (p->unsealed) {
            sweep_vec3 m = edge_middle(lv, &edges[p->first_one_sided], first_vertex);
            found(c, SWEEP_CHECK_OPEN_MESH, m,
                  "a mesh of %u triangles around (%g, %g, %g) is nearly closed but open: %u of its %u edges "
                  "belong to one triangle and touch nothing else (one at (%g, %g, %g)); if it is meant to be "
                  "solid, close it, or a player walks into it through the gap",
                  p->triangles, centre.x, centre.y, centre.z, p->unsealed, p->edges, m.x, m.y, m.z);
        }
    }
    for (uint32_t t = 0; t < nt; t++) {
        int in_solid = !skip[t] && pieces[piece_ix[find(parent, t)]].solid;
        c->solid[t] = in_solid ? SOLID_PIECE : SOLID_UNKNOWN;
        c->piece_of[t] = in_solid ? piece_ix[find(parent, t)] : UINT32_MAX;
    }
    free(piece_ix);
    st = SWEEP_OK;
done:
    free(order), free(weld), free(first_vertex), free(keys), free(skip), free(edges), free(parent), free(pieces);
    return st;
}

/* ---- movers --------------------------------------------------------------- */

/* 1 with *where if segment a -> b passes through triangle (p, q, r)
 * deeper than a rounding's margin from its ends, from one side of its
 * plane to the other: a segment lying in the plane (a crate's edge on a
 * ramp it slides along) is off it only by rounding, and crosses nothing. */
static int crosses(const checker *c, sweep_vec3 a, sweep_vec3 b, sweep_vec3 p, sweep_vec3 q, sweep_vec3 r,
                   sweep_vec3 *where)
{
    double len = sweep_v3_len(sweep_v3_sub(b, a)), margin = 1e3 * c->tol, f;
    if (!(len > 2.0 * margin) || !segment_triangle_in(a, b, p, q, r, &f, INSIDE_SLACK))
        return 0;
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(q, p), sweep_v3_sub(r, p));
    double nl = sweep_v3_len(n);
    if (!(fabs(sweep_v3_dot(sweep_v3_sub(a, p), n)) > c->tol * nl && fabs(sweep_v3_dot(sweep_v3_sub(b, p), n)) > c->tol * nl))
        return 0;
    if (!(f * len > margin && f * len < len - margin))
        return 0;
    *where = sweep_v3_madd(a, sweep_v3_sub(b, a), f);
    return 1;
}

/* 1 if triangles (a0, a1, a2) and (b0, b1, b2) cross: an edge of one
 * through the other. */
static int triangles_cross(const checker *c, const sweep_vec3 *a, const sweep_vec3 *b, sweep_vec3 *where)
{
    for (int e = 0; e < 3; e++)
        if (crosses(c, a[e], a[(e + 1) % 3], b[0], b[1], b[2], where) ||
            crosses(c, b[e], b[(e + 1) % 3], a[0], a[1], a[2], where))
            return 1;
    return 0;
}

static int boxes_meet(sweep_vec3 alo, sweep_vec3 ahi, sweep_vec3 blo, sweep_vec3 bhi)
{
    return !(alo.x > bhi.x || ahi.x < blo.x || alo.y > bhi.y || ahi.y < blo.y || alo.z > bhi.z || ahi.z < blo.z);
}

/* The path tick of mover mv's keyframe k, within the path. */
static uint32_t key_tick(const sweep_level *lv, const sweep_level_mover *mv, uint32_t k, uint32_t ticks)
{
    double t = mv->keys[k].time * lv->tick_rate + 0.5;
    return t < (double)ticks ? (uint32_t)t : ticks;
}

/* 1 if a mover's part that passes through level triangle t enters a
 * solid, a pocket: t belongs to a solid piece, or just behind its middle
 * lies the inside of a solid (behind_faces). The second is brushwork's
 * case: faces cut where brushes meet no longer share their corners and so
 * form no closed pieces, though each bounds the solid behind it. Looked
 * at once per triangle, the answer kept in c->solid. */
static int enters_a_solid(checker *c, uint32_t t)
{
    if (c->solid[t] == SOLID_UNKNOWN) {
        uint32_t above;
        int backs;
        c->solid[t] = behind_faces(c, behind_middle(c, t), &above, &backs) ? SOLID_BEHIND : SOLID_NONE;
    }
    return c->solid[t] == SOLID_PIECE || c->solid[t] == SOLID_BEHIND;
}

/* A mover's crossings with faces of solid pieces along its path, kept to
 * find two of one piece facing opposite ways: in at one side, out at the
 * other, at one pose or two. */
#define SOLID_CROSSINGS 32

typedef struct solid_crossing {
    uint32_t tri;
    sweep_vec3 n;  /* the face's cross product */
    sweep_vec3 at; /* where the mover crossed it */
} solid_crossing;

/* 1 if crossings x (earlier) and y, of faces of one piece, are in at one
 * side of a solid and out at the other: the faces look opposite ways,
 * each crossing lies behind the other's face (the solid is between them,
 * not a gap, as two jambs of a doorway face each other), and just outside
 * each face is air: at most one of the six ways out along the axes meets
 * the back of a face first (out of a thin plate into the wall behind it
 * is a pocket still; a wall against the plate's back ties with it, so the
 * stricter test of a solid, five backs, would not see it). */
static int through(checker *c, const solid_crossing *x, const solid_crossing *y)
{
    const sweep_level *lv = c->lv;
    if (!(sweep_v3_dot(x->n, y->n) < 0.0))
        return 0;
    if (!(sweep_v3_dot(y->n, sweep_v3_sub(x->at, tri_vertex(lv, y->tri, 0))) < 0.0) ||
        !(sweep_v3_dot(x->n, sweep_v3_sub(y->at, tri_vertex(lv, x->tri, 0))) < 0.0))
        return 0;
    double eps = 1e3 * c->tol;
    uint32_t above;
    int backs, open;
    for (int k = 0; k < 2; k++) {
        const solid_crossing *s = k ? y : x;
        ways_out(c, sweep_v3_madd(s->at, s->n, eps / sweep_v3_len(s->n)), &backs, &open, &above);
        if (backs > 1)
            return 0;
    }
    return 1;
}

/* How many poses, evenly along mover m's path of `ticks` ticks, keep every
 * vertex's move from one to the next under half the mover's thinnest
 * side, so that it cannot pass a sheet between two of them: at least
 * SWEEP_CHECK_MOVER_SAMPLES, at most one a tick and SWEEP_CHECK_MOVER_MAX_SAMPLES.
 * A vertex moves by at most what the pivot does plus the turn (its angle
 * times the vertex's distance from the pivot), measured between the
 * SWEEP_CHECK_MOVER_SAMPLES poses and the keyframes' ticks in order. */
static uint32_t mover_samples(const checker *c, uint32_t m, uint32_t ticks)
{
    const sweep_level_mover *mv = &c->lv->movers[m];
    if (ticks <= SWEEP_CHECK_MOVER_SAMPLES || mv->vertex_count == 0)
        return ticks < SWEEP_CHECK_MOVER_SAMPLES ? ticks : SWEEP_CHECK_MOVER_SAMPLES;
    sweep_vec3 lo = mv->vertices[0], hi = mv->vertices[0];
    double reach = 0.0;
    for (uint32_t v = 0; v < mv->vertex_count; v++) {
        lo = sweep_v3_min(lo, mv->vertices[v]), hi = sweep_v3_max(hi, mv->vertices[v]);
        reach = fmax(reach, sweep_v3_len(mv->vertices[v]));
    }
    sweep_vec3 ext = sweep_v3_sub(hi, lo);
    double thin = fmin(ext.x, fmin(ext.y, ext.z));
    if (!(thin > 0.0))
        thin = fmax(ext.x, fmax(ext.y, ext.z)); /* a flat mover: its own size */
    if (!(thin > 0.0))
        return SWEEP_CHECK_MOVER_SAMPLES;
    double travel = 0.0;
    sweep_mover_pose last = sweep_movers_path_pose(c->movers, m, 0);
    for (uint32_t k = 1; k <= SWEEP_CHECK_MOVER_SAMPLES; k++) {
        sweep_mover_pose p =
            sweep_movers_path_pose(c->movers, m, (uint32_t)((uint64_t)ticks * k / SWEEP_CHECK_MOVER_SAMPLES));
        double d = fabs(sweep_quat_dot(last.rotation, p.rotation));
        double turn = 2.0 * acos(d < 1.0 ? d : 1.0);
        travel += sweep_v3_len(sweep_v3_sub(p.position, last.position)) + turn * reach;
        last = p;
    }
    /* The coarse poses may cut a corner of the path: twice the length
     * they measure, a pose each half-thinnest-side of it. */
    double want = ceil(4.0 * travel / thin);
    double most = ticks < SWEEP_CHECK_MOVER_MAX_SAMPLES ? ticks : SWEEP_CHECK_MOVER_MAX_SAMPLES;
    return want < SWEEP_CHECK_MOVER_SAMPLES ? SWEEP_CHECK_MOVER_SAMPLES : want > most ? (uint32_t)most : (uint32_t)want;
}

static sweep_status check_movers(checker *c)
{
    const sweep_level *lv = c->lv;
    uint32_t *near = malloc((lv->triangle_count ? lv->triangle_count : 1) * sizeof *near);
    if (!near)
        return SWEEP_E_NOMEM;
    solid_crossing into[SOLID_CROSSINGS];
    for (uint32_t m = 0; m < lv->mover_count; m++) {
        const sweep_level_mover *mv = &lv->movers[m];
        uint32_t ticks = sweep_movers_path_ticks(c->movers, m);
        uint32_t samples = mover_samples(c, m, ticks);
        sweep_vec3 *at_pose = malloc((mv->vertex_count ? mv->vertex_count : 1) * sizeof *at_pose);
        if (!at_pose) {
            free(near);
            return SWEEP_E_NOMEM;
        }
        int crossed = 0;
        uint32_t n_into = 0;
        /* Evenly along the path, then at each keyframe (a corner of a
         * train's path may fall between two samples). */
        for (uint32_t k = 0; k <= samples + mv->key_count && !crossed; k++) {
            uint32_t at = k > samples ? key_tick(lv, mv, k - samples - 1, ticks)
                          : samples   ? (uint32_t)((uint64_t)ticks * k / samples)
                                      : 0;
            sweep_mover_pose pose = sweep_movers_path_pose(c->movers, m, at);
            sweep_vec3 lo = sweep_v3(INFINITY, INFINITY, INFINITY), hi = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
            for (uint32_t v = 0; v < mv->vertex_count; v++) {
                at_pose[v] = posed(pose, mv->vertices[v]);
                lo = sweep_v3_min(lo, at_pose[v]), hi = sweep_v3_max(hi, at_pose[v]);
            }
            /* The level triangles near the mover at this pose. */
            uint32_t nn = 0, nc;
            const uint32_t *cells = sweep__tri_grid_query(c->grid, lo, hi, &nc);
            for (uint32_t k2 = 0; k2 < nc; k2++) {
                const uint32_t t = cells[k2];
                sweep_vec3 p = tri_vertex(lv, t, 0), q = tri_vertex(lv, t, 1), r = tri_vertex(lv, t, 2);
                if (c->solid[t] != SOLID_BEHIND &&
                    boxes_meet(sweep_v3_min(p, sweep_v3_min(q, r)), sweep_v3_max(p, sweep_v3_max(q, r)), lo, hi) &&
                    !sweep_triangle_is_degenerate(p, q, r))
                    near[nn++] = t;
            }
            sweep_vec3 where = sweep_v3(0, 0, 0);
            uint32_t tri = 0, out_tri = UINT32_MAX;
            for (uint32_t t = 0; t < mv->triangle_count && !crossed; t++) {
                sweep_vec3 a[3] = {at_pose[mv->indices[3 * t]], at_pose[mv->indices[3 * t + 1]],
                                   at_pose[mv->indices[3 * t + 2]]};
                if (sweep_triangle_is_degenerate(a[0], a[1], a[2]))
                    continue;
                sweep_vec3 alo = sweep_v3_min(a[0], sweep_v3_min(a[1], a[2]));
                sweep_vec3 ahi = sweep_v3_max(a[0], sweep_v3_max(a[1], a[2]));
                for (uint32_t i = 0; i < nn && !crossed; i++) {
                    sweep_vec3 b[3] = {tri_vertex(lv, near[i], 0), tri_vertex(lv, near[i], 1),
                                       tri_vertex(lv, near[i], 2)};
                    if (!boxes_meet(alo, ahi, sweep_v3_min(b[0], sweep_v3_min(b[1], b[2])),
                                    sweep_v3_max(b[0], sweep_v3_max(b[1], b[2]))) ||
                        !triangles_cross(c, a, b, &where))
                        continue;
                    if (c->solid[near[i]] != SOLID_PIECE) {
                        if (!enters_a_solid(c, near[i]))
                            crossed = 1, tri = near[i];
                        continue;
                    }
                    /* Into a solid piece is a pocket (a door into its
                     * wall); through it, in at one face and out at one
                     * facing the other way, is a crossing. */
                    solid_crossing y = {near[i], tri_normal(lv, near[i]), where};
                    for (uint32_t k = 0; k < n_into && !crossed; k++)
                        if (c->piece_of[into[k].tri] == c->piece_of[near[i]] && through(c, &into[k], &y))
                            crossed = 1, tri = into[k].tri, out_tri = near[i];
                    if (!crossed && n_into < SOLID_CROSSINGS)
                        into[n_into++] = y;
                }
            }
            if (crossed && out_tri != UINT32_MAX) {
                double secs = lv->tick_rate > 0 ? at / lv->tick_rate : 0.0;
                found(c, SWEEP_CHECK_MOVER_CROSSES, where,
                      "mover %u '%s' passes through a solid along its path: %.6g s into it, at (%g, %g, %g), it "
                      "crosses level triangles %u and %u, faces of one closed piece looking opposite ways; what it "
                      "carries or pushes there is pressed into the level",
                      mv->id, mv->name, secs, where.x, where.y, where.z, tri, out_tri);
            } else if (crossed) {
                double secs = lv->tick_rate > 0 ? at / lv->tick_rate : 0.0;
                found(c, SWEEP_CHECK_MOVER_CROSSES, where,
                      "mover %u '%s' crosses the level's geometry along its path: %.6g s into it, at (%g, %g, %g), "
                      "it passes through level triangle %u; what it carries or pushes there is pressed into the "
                      "level",
                      mv->id, mv->name, secs, where.x, where.y, where.z, tri);
            }
        }
        free(at_pose);
    }
    free(near);
    return SWEEP_OK;
}

/* ---- teleporters ---------------------------------------------------------- */

/* Each teleporter's destination as a spawn point's place is checked: room
 * for a player there (the level, the movers where they start), not inside
 * a mover or a solid; and not inside a teleporter, its own or another,
 * which would send the body on the next step, and back again if that one
 * leads here. */
static void check_teleports(checker *c)
{
    const sweep_level *lv = c->lv;
    const sweep_config *cfg = &lv->config;
    const sweep_vec3 r = lv->default_radii;
    double glen = sweep_v3_len(cfg->gravity);
    sweep_vec3 up = glen > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / glen) : sweep_v3(0.0, 0.0, 1.0);
    double dt = cfg->max_dt < 1.0 ? cfg->max_dt : 1.0;
    sweep_space space = {c->world, c->movers, NULL, SWEEP_NO_BODY};
    for (uint32_t i = 0; i < lv->volume_count; i++) {
        const sweep_level_volume *tv = &lv->volumes[i];
        if (tv->v.kind != SWEEP_VOLUME_TELEPORT)
            continue;
        const sweep_vec3 p = tv->v.destination;
        sweep_move_input in = {p, r, sweep_v3_scale(up, 1e-6 / dt), dt, 0};
        sweep_move_result res;
        uint32_t m = 0, tri = 0;
        int backs = 0;
        if (sweep_move_in(&space, cfg, &in, &res) != SWEEP_OK) {
            found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                  "teleporter %u '%s' sends players to (%g, %g, %g), where the core refuses a player (beyond the "
                  "world limit?)",
                  tv->id, tv->name, p.x, p.y, p.z);
        } else if (res.flags & SWEEP_MOVED_STARTED_EMBEDDED) {
            const sweep_contact *ct = res.contact_count ? &res.contacts[0] : NULL;
            if (ct && ct->mover != SWEEP_NO_MOVER)
                found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                      "teleporter %u '%s' sends players to (%g, %g, %g), which overlaps mover %u '%s' where it "
                      "starts: it is blocked while the mover is there",
                      tv->id, tv->name, p.x, p.y, p.z, lv->movers[ct->mover].id, lv->movers[ct->mover].name);
            else
                found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                      "teleporter %u '%s' sends players to (%g, %g, %g), inside the level's geometry (triangle "
                      "%u): a player of radii (%g, %g, %g) has no room there, so it never sends anyone",
                      tv->id, tv->name, p.x, p.y, p.z, ct ? ct->triangle : 0u, r.x, r.y, r.z);
        } else if (inside_a_mover(c, p, &m)) {
            found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                  "teleporter %u '%s' sends players to (%g, %g, %g), inside mover %u '%s' where it starts, behind "
                  "all its faces",
                  tv->id, tv->name, p.x, p.y, p.z, lv->movers[m].id, lv->movers[m].name);
        } else if (behind_faces(c, p, &tri, &backs)) {
            found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                  "teleporter %u '%s' sends players to (%g, %g, %g), inside a solid: %d of the 6 ways out along "
                  "the axes meet the back of a face first (triangle %u above it)",
                  tv->id, tv->name, p.x, p.y, p.z, backs, tri);
        } else {
            for (uint32_t j = 0; j < lv->volume_count; j++) {
                const sweep_level_volume *o = &lv->volumes[j];
                if (o->v.kind != SWEEP_VOLUME_TELEPORT || !sweep_volume_contains(&o->v, p))
                    continue;
                if (j == i)
                    found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                          "teleporter %u '%s' sends players to (%g, %g, %g), inside itself: a body there is sent "
                          "again every step",
                          tv->id, tv->name, p.x, p.y, p.z);
                else
                    found(c, SWEEP_CHECK_TELEPORT_BLOCKED, p,
                          "teleporter %u '%s' sends players to (%g, %g, %g), inside teleporter %u '%s': a body is "
                          "sent on at once%s",
                          tv->id, tv->name, p.x, p.y, p.z, o->id, o->name,
                          sweep_volume_contains(&tv->v, o->v.destination) ? ", and back again, for ever" : "");
                break;
            }
        }
    }
}

sweep_status sweep_level_check(const sweep_level *lv, sweep_check_report report, void *ctx,
                               sweep_check_summary *sum, char *err, size_t errlen)
{
    sweep_check_summary dummy;
    if (!sum)
        sum = &dummy;
    memset(sum, 0, sizeof *sum);
    if (err && errlen)
        err[0] = '\0';
    if (!lv)
        return SWEEP_E_ARG;
    checker c = {.lv = lv, .report = report, .ctx = ctx, .sum = sum};
    sweep_world_info wi;
    sweep_status st = sweep_map_build_world(lv, &c.world, &wi, err, errlen);
    if (st != SWEEP_OK)
        return st;
    st = sweep_level_build_movers(lv, &c.movers);
    if (st != SWEEP_OK) {
        sweep_world_destroy(c.world);
        if (err && errlen)
            snprintf(err, errlen, "building the movers failed: %s", sweep_status_message(st));
        return st;
    }
    c.lo = wi.bounds_min, c.hi = wi.bounds_max;
    c.size = sweep_v3_len(sweep_v3_sub(c.hi, c.lo));
    if (!(c.size > 0.0))
        c.size = 1.0;
    c.tol = 1e-7 * c.size;
    double glen = sweep_v3_len(lv->config.gravity);
    c.up = glen > 0.0 ? sweep_v3_scale(lv->config.gravity, -1.0 / glen) : sweep_v3(0.0, 0.0, 1.0);
    c.solid = calloc(lv->triangle_count ? lv->triangle_count : 1, 1);
    c.piece_of = malloc((lv->triangle_count ? lv->triangle_count : 1) * sizeof *c.piece_of);
    sweep__tri_grid grid;
    c.grid = &grid;
    if (!c.solid || !c.piece_of || sweep__tri_grid_build(&grid, lv) != SWEEP_OK) {
        free(c.solid), free(c.piece_of);
        sweep_movers_destroy(c.movers);
        sweep_world_destroy(c.world);
        return SWEEP_E_NOMEM;
    }
    check_spawns(&c);
    st = check_shells(&c);
    if (st == SWEEP_OK)
        st = check_movers(&c);
    if (st == SWEEP_OK)
        check_teleports(&c);
    if (st != SWEEP_OK && err && errlen)
        snprintf(err, errlen, "checking the level failed: %s", sweep_status_message(st));
    free(c.solid), free(c.piece_of);
    sweep__tri_grid_free(&grid);
    sweep_movers_destroy(c.movers);
    sweep_world_destroy(c.world);
    return st;
}
