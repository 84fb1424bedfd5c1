/*
 * face_merge.h - coplanar convex polygons merged into fewer, larger ones,
 * then cut into triangles: what level compilers do to the faces they keep
 * (id Software's qbsp and q3map, "MergeFaces" / "TryMergeWinding"), here
 * for the collision hull the Quake 3 importer builds (maps/import_bsp_brush.c).
 *
 * The polygons come in with their plane (normal and distance, compared
 * exactly: pieces of one face, or faces of brushes that share a plane,
 * carry the same numbers) and a key (the importer's shader: material and
 * surface flags). Their corners are welded across all polygons (points
 * within eps are one vertex, the first one met). Within each group of
 * polygons on the same plane with the same key, in input order, two
 * polygons merge when one has an edge u -> v and the other the edge
 * v -> u (the same two welded vertices, opposite ways; along a chain of
 * such edges the whole chain goes) and the union is still convex: no
 * corner turns the wrong way by more than eps (a point within eps of the
 * line through its neighbours is collinear) and the outline winds once.
 * Merging repeats until no pair merges (a group of more than 4096
 * polygons, or an outline of more than 1024 corners, which no real level
 * has, is left unmerged). Two convex polygons on opposite sides of an
 * edge they share exactly cover, merged, the same area, so the shape of
 * the surface is kept. Where a polygon's corner lies on another's edge (a
 * T-junction) it is first put into that edge, as a corner on a straight
 * side, so that pieces which together span a neighbour's edge merge with
 * it once they have merged with each other.
 *
 * Each polygon left, merged or not, loses the corners that lie within eps
 * of the segment between the corners kept on either side (the collinear
 * points that merging leaves, and the corners neighbouring faces put on an
 * edge; a polygon all of whose corners lie within eps of one line, a
 * sliver thinner than eps, goes, as the importer drops triangles too thin
 * to collide), and is cut into a fan of triangles from the corner whose
 * fan has the best worst triangle (the largest smallest area / sum of squared
 * sides), so no needle is made where a better fan exists; a polygon that
 * no corner fans without a backward triangle is fanned from a new vertex
 * at its centroid. A pinned point (sweep__face_pin) is never dropped as
 * collinear: a corner that triangles outside the set also use (the edge
 * of a closed shell where another plane meets this one) stays a corner of
 * every outline it lies on, so those triangles still share whole edges
 * with the ones made here. With keep_shared, the same holds among the
 * polygons left: a corner one of them keeps, none whose outline holds it
 * drops. Everything runs in input order, with no hash table's
 * order in the result: the same polygons give the same triangles.
 */
#ifndef SWEEP_MAPS_FACE_MERGE_H
#define SWEEP_MAPS_FACE_MERGE_H

#include <stdint.h>

/* One polygon: points p[at .. at + len) of its set, counter-clockwise seen
 * from the side normal n points to, on the plane dot(n, x) = d. */
typedef struct sweep__face {
    uint32_t at, len, key;
    double n[3], d;
} sweep__face;

typedef struct sweep__face_set {
    double (*p)[3];
    uint32_t points, point_cap;
    sweep__face *f;
    uint32_t count, cap;
    double (*pin)[3]; /* points no outline drops as collinear */
    uint32_t pins, pin_cap;
    /* 1: a corner that one polygon left keeps, no other polygon whose
     * outline holds it drops (no T-junction among the set's own
     * triangles); 0: each polygon drops its collinear corners alone. */
    int keep_shared;
} sweep__face_set;

/* What merging made: vertices, and triangles as 4 numbers each (three
 * vertex indices, counter-clockwise about the face's normal, and the key). */
typedef struct sweep__face_mesh {
    double (*v)[3];
    uint32_t vertices, vertex_cap;
    uint32_t *tri;
    uint32_t triangles, tri_cap;
    uint32_t merged;  /* pairs of polygons merged */
    uint32_t dropped; /* polygons that welded to fewer than three corners */
} sweep__face_mesh;

/* Appends polygon p[0..n) (n >= 3); 0 when out of memory. */
int sweep__face_add(sweep__face_set *s, const double (*p)[3], uint32_t n, const double normal[3], double d,
                    uint32_t key);
/* Pins the corner at p (welded as every corner is): no outline drops it
 * as collinear. A point that no polygon's corner welds to pins nothing.
 * 0 when out of memory. */
int sweep__face_pin(sweep__face_set *s, const double p[3]);
/* Empties s, pins too, keeping its memory. */
void sweep__face_set_clear(sweep__face_set *s);
void sweep__face_set_free(sweep__face_set *s);

/* Welds, merges and triangulates the polygons of s into *out (emptied
 * first, its memory reused); eps > 0, in units. 0 when out of memory. */
int sweep__face_merge(const sweep__face_set *s, double eps, sweep__face_mesh *out);
void sweep__face_mesh_free(sweep__face_mesh *m);

#endif
