/*
 * world.c - building a sweep_world: validating the triangle list, leaving out
 * degenerate triangles, and building the bounding volume hierarchy.
 *
 * The BVH is a binary tree built top-down with a binned surface-area
 * heuristic (16 bins along the widest centroid axis), then collapsed into
 * nodes of 4 children for the queries (world_impl.h). Everything about the
 * build is a deterministic function of the description: bins come from
 * double arithmetic, partitions are in-place two-pointer swaps, and there is
 * no randomness or pointer-dependent order. The same description therefore
 * gives the same tree, and so the same traversal order, on every machine.
 * Invariants of the result are listed in world_impl.h.
 */
#include "core/world.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/world_impl.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#define BINS 16
/* Past this depth the builder splits at the median, which halves the range
 * each time, so no leaf can be deeper than SWEEP__BVH_MAX_DEPTH. */
#define SAH_MAX_DEPTH 36
/* A triangle whose doubled area is below this fraction of its longest edge
 * squared is a needle or a point: its plane is numerically meaningless. */
#define DEGENERATE_RATIO 1e-8

typedef struct prim {
    sweep_vec3 lo, hi, c; /* bounds and centroid */
    uint32_t tri;         /* the triangle's index in the description */
} prim;

/* A node of the binary tree: an inner node's left child is the next node
 * in the array and its right child is nodes[first]; a leaf has count > 0
 * and covers prims[first .. first + count). */
typedef struct bnode {
    float lo[3], hi[3];
    uint32_t first; /* leaf: first triangle; inner: right child */
    uint32_t count; /* leaf: triangles (> 0); inner: 0 */
} bnode;

typedef struct builder {
    prim *prims;
    bnode *nodes;
    uint32_t node_count;
    uint32_t depth;
} builder;

/* Half the surface area of a box: the SAH cost weight. */
static double half_area(sweep_vec3 lo, sweep_vec3 hi)
{
    sweep_vec3 d = sweep_v3_sub(hi, lo);
    if (d.x < 0.0 || d.y < 0.0 || d.z < 0.0)
        return 0.0;
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

static double axis_of(sweep_vec3 v, int axis)
{
    return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

int sweep_triangle_is_degenerate(sweep_vec3 a, sweep_vec3 b, sweep_vec3 c)
{
    sweep_vec3 ab = sweep_v3_sub(b, a), ac = sweep_v3_sub(c, a), bc = sweep_v3_sub(c, b);
    double cross = sweep_v3_len(sweep_v3_cross(ab, ac));
    double longest = sweep_v3_len2(ab);
    if (sweep_v3_len2(ac) > longest)
        longest = sweep_v3_len2(ac);
    if (sweep_v3_len2(bc) > longest)
        longest = sweep_v3_len2(bc);
    return !(cross > DEGENERATE_RATIO * longest);
}

/* The bin, 0 .. BINS - 1, of a centroid at c along an axis whose centroids
 * start at cmin, BINS / scale of them a bin. Centroids a few units in the
 * last place of a subnormal apart (a map's input may be so) make scale
 * infinite, and the first centroid's 0 * inf a NaN, which no conversion
 * to int may meet: what is not a number from 0 up goes to bin 0, as
 * everything past the last bin goes to it. Any other centroid gets the
 * bin it always had, so every tree is built as before. */
static int bin_of(double c, double cmin, double scale)
{
    double t = (c - cmin) * scale;
    if (!(t >= 0.0))
        return 0;
    return t < (double)BINS ? (int)t : BINS - 1;
}

/* Finds the cheapest binned SAH split of prims[begin, end). Returns 1 and the
 * split (axis, bin boundary) if splitting beats keeping a leaf. */
static int find_split(const prim *prims, uint32_t begin, uint32_t end, sweep_vec3 lo, sweep_vec3 hi,
                      sweep_vec3 clo, sweep_vec3 chi, int *out_axis, int *out_bin)
{
    double best = half_area(lo, hi) * (double)(end - begin); /* cost of a leaf */
    int found = 0;
    for (int axis = 0; axis < 3; axis++) {
        double cmin = axis_of(clo, axis), extent = axis_of(chi, axis) - cmin;
        if (!(extent > 0.0))
            continue;
        double scale = (double)BINS / extent;
        uint32_t count[BINS] = {0};
        sweep_vec3 blo[BINS], bhi[BINS];
        for (int i = 0; i < BINS; i++) {
            blo[i] = sweep_v3(INFINITY, INFINITY, INFINITY);
            bhi[i] = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
        }
        for (uint32_t i = begin; i < end; i++) {
            int b = bin_of(axis_of(prims[i].c, axis), cmin, scale);
            count[b]++;
            blo[b] = sweep_v3_min(blo[b], prims[i].lo);
            bhi[b] = sweep_v3_max(bhi[b], prims[i].hi);
        }
        /* Right-to-left suffix costs, then a left-to-right sweep. */
        double right_cost[BINS];
        sweep_vec3 rlo = sweep_v3(INFINITY, INFINITY, INFINITY), rhi = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
        uint32_t rcount = 0;
        for (int i = BINS - 1; i > 0; i--) {
            rlo = sweep_v3_min(rlo, blo[i]);
            rhi = sweep_v3_max(rhi, bhi[i]);
            rcount += count[i];
            right_cost[i] = half_area(rlo, rhi) * (double)rcount;
        }
        sweep_vec3 llo = sweep_v3(INFINITY, INFINITY, INFINITY), lhi = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
        uint32_t lcount = 0;
        for (int i = 0; i < BINS - 1; i++) {
            llo = sweep_v3_min(llo, blo[i]);
            lhi = sweep_v3_max(lhi, bhi[i]);
            lcount += count[i];
            if (lcount == 0 || lcount == end - begin)
                continue;
            double cost = half_area(llo, lhi) * (double)lcount + right_cost[i + 1];
            if (cost < best) {
                best = cost;
                *out_axis = axis;
                *out_bin = i + 1;
                found = 1;
            }
        }
    }
    return found;
}

/* Moves the prims whose centroid falls in a bin below `bin` to the front;
 * returns the first index of the right part. */
static uint32_t partition(prim *prims, uint32_t begin, uint32_t end, int axis, int bin, double cmin,
                          double extent)
{
    double scale = (double)BINS / extent;
    uint32_t i = begin, j = end;
    while (i < j) {
        if (bin_of(axis_of(prims[i].c, axis), cmin, scale) < bin) {
            i++;
        } else {
            j--;
            prim t = prims[i];
            prims[i] = prims[j];
            prims[j] = t;
        }
    }
    return i;
}

/* Builds the subtree over prims[begin, end) at node index `at` (pre-order). */
static void build_node(builder *bd, uint32_t at, uint32_t begin, uint32_t end, uint32_t depth)
{
    prim *prims = bd->prims;
    sweep_vec3 lo = prims[begin].lo, hi = prims[begin].hi;
    sweep_vec3 clo = prims[begin].c, chi = prims[begin].c;
    for (uint32_t i = begin + 1; i < end; i++) {
        lo = sweep_v3_min(lo, prims[i].lo);
        hi = sweep_v3_max(hi, prims[i].hi);
        clo = sweep_v3_min(clo, prims[i].c);
        chi = sweep_v3_max(chi, prims[i].c);
    }
    bnode *n = &bd->nodes[at];
    n->lo[0] = sweep__float_down(lo.x), n->lo[1] = sweep__float_down(lo.y), n->lo[2] = sweep__float_down(lo.z);
    n->hi[0] = sweep__float_up(hi.x), n->hi[1] = sweep__float_up(hi.y), n->hi[2] = sweep__float_up(hi.z);
    if (depth > bd->depth)
        bd->depth = depth;

    uint32_t count = end - begin, mid = begin;
    if (count > SWEEP__BVH_LEAF_SIZE) {
        int axis = 0, bin = 0;
        if (depth < SAH_MAX_DEPTH && find_split(prims, begin, end, lo, hi, clo, chi, &axis, &bin)) {
            mid = partition(prims, begin, end, axis, bin, axis_of(clo, axis),
                            axis_of(chi, axis) - axis_of(clo, axis));
        } else if (depth >= SAH_MAX_DEPTH || count > 4 * SWEEP__BVH_LEAF_SIZE) {
            /* Too deep, or SAH sees no gain on a big range (identical
             * centroids): halve by position so leaves stay small. */
            mid = begin + count / 2;
        }
    }
    if (mid == begin || mid == end) {
        n->first = begin;
        n->count = count;
        return;
    }
    n->count = 0;
    uint32_t left = ++bd->node_count - 1;
    assert(left == at + 1);
    build_node(bd, left, begin, mid, depth + 1);
    uint32_t right = ++bd->node_count - 1;
    bd->nodes[at].first = right; /* re-fetch: n is still valid, nodes never move */
    build_node(bd, right, mid, end, depth + 1);
}

/* The float half area of a binary node's box: which child to open first. */
static double bnode_area(const bnode *n)
{
    double dx = (double)n->hi[0] - n->lo[0], dy = (double)n->hi[1] - n->lo[1], dz = (double)n->hi[2] - n->lo[2];
    return dx * dy + dy * dz + dz * dx;
}

typedef struct collapser {
    const bnode *bin;
    sweep__node *nodes;
    uint32_t count, depth;
} collapser;

/*
 * Makes the wide node for binary node `at` (and, depth first, those
 * below it); returns its index. Its children are the binary children,
 * with the largest inner one opened into its own two in place until there
 * are 4 or only leaves: the left-to-right order of the binary tree stays,
 * and which nodes are opened changes only speed, never the leaves a walk
 * reaches nor their order (world_impl.h). A binary leaf at the root (a
 * world of at most SWEEP__BVH_LEAF_SIZE triangles) becomes the one child.
 */
static uint32_t collapse(collapser *c, uint32_t at, uint32_t depth)
{
    const bnode *bin = c->bin;
    uint32_t me = c->count++;
    if (depth > c->depth)
        c->depth = depth;
    uint32_t slot[SWEEP__BVH_WIDTH], n = 0;
    if (bin[at].count > 0) {
        slot[n++] = at;
    } else {
        slot[n++] = at + 1;
        slot[n++] = bin[at].first;
    }
    while (n < SWEEP__BVH_WIDTH) {
        uint32_t open = n;
        double best = -1.0;
        for (uint32_t k = 0; k < n; k++)
            if (bin[slot[k]].count == 0 && bnode_area(&bin[slot[k]]) > best)
                open = k, best = bnode_area(&bin[slot[k]]);
        if (open == n)
            break;
        uint32_t inner = slot[open];
        for (uint32_t k = n; k > open + 1; k--)
            slot[k] = slot[k - 1];
        slot[open] = inner + 1;
        slot[open + 1] = bin[inner].first;
        n++;
    }
    sweep__node *q = &c->nodes[me];
    for (uint32_t k = 0; k < SWEEP__BVH_WIDTH; k++) {
        for (int a = 0; a < 3; a++)
            q->lo[a][k] = k < n ? bin[slot[k]].lo[a] : NAN, q->hi[a][k] = k < n ? bin[slot[k]].hi[a] : NAN;
        q->child[k].first = 0, q->child[k].count = 0;
        if (k < n && bin[slot[k]].count > 0)
            q->child[k].first = bin[slot[k]].first, q->child[k].count = bin[slot[k]].count;
    }
    for (uint32_t k = 0; k < n; k++)
        if (bin[slot[k]].count == 0) {
            uint32_t child = collapse(c, slot[k], depth + 1);
            c->nodes[me].child[k].first = child; /* re-fetch: q is still valid, nodes never move */
        }
    return me;
}

static sweep_status check_desc(const sweep_world_desc *d)
{
    if (d->triangle_count > SWEEP_WORLD_MAX_TRIANGLES)
        return SWEEP_E_GEOMETRY;
    /* The vertices are read for their count even with no triangle. */
    if ((d->triangle_count > 0 && !d->indices) || ((d->triangle_count > 0 || d->vertex_count > 0) && !d->vertices))
        return SWEEP_E_ARG;
    for (uint32_t i = 0; i < d->vertex_count; i++)
        if (!sweep_v3_isfinite(d->vertices[i]))
            return SWEEP_E_GEOMETRY;
    for (uint64_t i = 0; i < 3 * (uint64_t)d->triangle_count; i++)
        if (d->indices[i] >= d->vertex_count)
            return SWEEP_E_GEOMETRY;
    return SWEEP_OK;
}

/* The float plane of a triangle (world_impl.h), or zero for a needle or a
 * tiny triangle. The offset is taken along the float normal itself. */
static void plane_of(const sweep__tri *t, sweep__tri_plane *pl)
{
    memset(pl, 0, sizeof *pl);
    sweep_vec3 ab = sweep_v3_sub(t->b, t->a), ac = sweep_v3_sub(t->c, t->a);
    sweep_vec3 nn = sweep_v3_cross(ab, ac);
    double l2 = sweep_v3_len2(nn), ab2 = sweep_v3_len2(ab), ac2 = sweep_v3_len2(ac);
    double size = 1.0 + fabs(t->a.x) + fabs(t->a.y) + fabs(t->a.z);
    if (!(l2 > 0.0 && l2 >= 1e-6 * ab2 * ac2 && ab2 >= 1e-10 * size * size && ac2 >= 1e-10 * size * size))
        return;
    sweep_vec3 n = sweep_v3_scale(nn, 1.0 / sqrt(l2));
    pl->n[0] = (float)n.x, pl->n[1] = (float)n.y, pl->n[2] = (float)n.z;
    pl->d = (float)(pl->n[0] * t->a.x + pl->n[1] * t->a.y + pl->n[2] * t->a.z);
}

/*
 * Memory for a world's large arrays. On Linux an array of 1 MiB or more is
 * mapped on its own, 2 MiB aligned, rounded up to whole 2 MiB and marked
 * for transparent huge pages: a map's arrays are written whole as it
 * loads, and on a virtual machine faulting them in 4 KiB at a time costs
 * more than building the tree. A load takes 28 to 53% less time so
 * (docs/performance.md, "The world's arrays on huge pages"); a move is
 * no faster. Below 1 MiB the rounding would waste more than it is worth.
 * Only speed depends on the kernel taking the hint.
 *
 * Mapped, not taken from the heap: a heap range once marked for huge
 * pages stays marked for whatever the heap puts there after the array is
 * freed. So an array is given back with sweep__world_free and its size.
 * AddressSanitizer's builds take them from the heap as any array, so that
 * it still watches their bounds (SWEEP__WORLD_MAPPED, world_impl.h).
 */
#define HUGE_PAGE ((size_t)2 << 20)

static int on_huge_pages(size_t bytes)
{
    return SWEEP__WORLD_MAPPED && bytes >= HUGE_PAGE / 2;
}

/* bytes rounded up to whole huge pages. */
static size_t whole_pages(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

size_t sweep__world_held(size_t bytes)
{
    return on_huge_pages(bytes) ? whole_pages(bytes) : bytes;
}

void *sweep__world_alloc(size_t bytes)
{
#if SWEEP__WORLD_MAPPED
    if (on_huge_pages(bytes)) {
        /* A huge page more than asked, then the parts before the first
         * 2 MiB boundary and after the array given back. */
        size_t held = sweep__world_held(bytes);
        uint8_t *m = mmap(NULL, held + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        size_t lead = (HUGE_PAGE - (uintptr_t)m % HUGE_PAGE) % HUGE_PAGE;
        if (lead)
            munmap(m, lead);
        munmap(m + lead + held, HUGE_PAGE - lead);
        madvise(m + lead, held, MADV_HUGEPAGE);
        return m + lead;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

void sweep__world_free(void *p, size_t bytes)
{
    if (!p)
        return;
#if SWEEP__WORLD_MAPPED
    if (on_huge_pages(bytes)) {
        munmap(p, sweep__world_held(bytes));
        return;
    }
#else
    (void)bytes;
#endif
    free(p);
}

sweep_status sweep_world_create(const sweep_world_desc *desc, sweep_world **out)
{
    if (!desc || !out)
        return SWEEP_E_ARG;
    sweep_status st = check_desc(desc);
    if (st != SWEEP_OK)
        return st;

    sweep_world *w = calloc(1, sizeof *w);
    if (!w)
        return SWEEP_E_NOMEM;
    w->described_count = desc->triangle_count;

    uint32_t n = 0;
    for (uint32_t i = 0; i < desc->triangle_count; i++) {
        const uint32_t *ix = &desc->indices[3 * (size_t)i];
        if (sweep_triangle_is_degenerate(desc->vertices[ix[0]], desc->vertices[ix[1]], desc->vertices[ix[2]]))
            w->degenerate_count++;
        else
            n++;
    }
    w->tri_count = n;
    if (n == 0)
        goto done;

    builder bd = {0};
    const size_t prims_bytes = (size_t)n * sizeof *bd.prims, bnodes_bytes = 2 * (size_t)n * sizeof *bd.nodes;
    bd.prims = sweep__world_alloc(prims_bytes);
    bd.nodes = sweep__world_alloc(bnodes_bytes);
    w->tris = sweep__world_alloc((size_t)n * sizeof *w->tris);
    w->boxes = sweep__world_alloc((size_t)(n + 1) * sizeof *w->boxes);
    w->planes = sweep__world_alloc((size_t)n * sizeof *w->planes);
    if (!bd.prims || !bd.nodes || !w->tris || !w->boxes || !w->planes) {
        sweep__world_free(bd.prims, prims_bytes), sweep__world_free(bd.nodes, bnodes_bytes);
        sweep_world_destroy(w);
        return SWEEP_E_NOMEM;
    }

    uint32_t k = 0;
    for (uint32_t i = 0; i < desc->triangle_count; i++) {
        const uint32_t *ix = &desc->indices[3 * (size_t)i];
        sweep_vec3 a = desc->vertices[ix[0]], b = desc->vertices[ix[1]], c = desc->vertices[ix[2]];
        if (sweep_triangle_is_degenerate(a, b, c))
            continue;
        prim *p = &bd.prims[k];
        p->lo = sweep_v3_min(a, sweep_v3_min(b, c));
        p->hi = sweep_v3_max(a, sweep_v3_max(b, c));
        p->c = sweep_v3_scale(sweep_v3_add(a, sweep_v3_add(b, c)), 1.0 / 3.0);
        p->tri = i;
        k++;
    }

    bd.node_count = 1;
    build_node(&bd, 0, 0, n, 1);
    assert(bd.depth <= SWEEP__BVH_MAX_DEPTH);

    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = bd.prims[i].tri;
        const uint32_t *ix = &desc->indices[3 * (size_t)d];
        sweep__tri *t = &w->tris[i];
        t->a = desc->vertices[ix[0]], t->b = desc->vertices[ix[1]], t->c = desc->vertices[ix[2]];
        t->index = d;
        t->material = desc->materials ? desc->materials[d] : 0;
        const prim *p = &bd.prims[i];
        sweep__tri_box *b = &w->boxes[i];
        b->lo[0] = sweep__widen_down(p->lo.x), b->lo[1] = sweep__widen_down(p->lo.y);
        b->lo[2] = sweep__widen_down(p->lo.z);
        b->hi[0] = sweep__widen_up(p->hi.x), b->hi[1] = sweep__widen_up(p->hi.y), b->hi[2] = sweep__widen_up(p->hi.z);
        plane_of(t, &w->planes[i]);
    }
    memset(&w->boxes[n], 0, sizeof w->boxes[n]);
    w->lo = bd.prims[0].lo, w->hi = bd.prims[0].hi;
    for (uint32_t i = 1; i < n; i++) {
        w->lo = sweep_v3_min(w->lo, bd.prims[i].lo);
        w->hi = sweep_v3_max(w->hi, bd.prims[i].hi);
    }
    sweep__world_free(bd.prims, prims_bytes);
    /* A wide node takes the place of at least one inner binary node (or of
     * the root leaf): at most as many as the binary tree has inner nodes,
     * plus one. Not shrunk with realloc: that would copy it out of its
     * huge pages. The unused tail was never touched, so past the last page
     * the nodes reach it holds no memory. */
    w->node_room = bd.node_count / 2 + 1;
    collapser cl = {bd.nodes, sweep__world_alloc((size_t)w->node_room * sizeof *cl.nodes), 0, 0};
    if (!cl.nodes) {
        sweep__world_free(bd.nodes, bnodes_bytes);
        sweep_world_destroy(w);
        return SWEEP_E_NOMEM;
    }
    collapse(&cl, 0, 1);
    assert(cl.count <= w->node_room && cl.depth <= bd.depth);
    sweep__world_free(bd.nodes, bnodes_bytes);
    w->nodes = cl.nodes;
    w->node_count = cl.count;
    w->depth = cl.depth;
done:
    *out = w;
    return SWEEP_OK;
}

void sweep_world_destroy(sweep_world *w)
{
    if (!w)
        return;
    size_t n = w->tri_count;
    sweep__world_free(w->tris, n * sizeof *w->tris);
    sweep__world_free(w->boxes, (n + 1) * sizeof *w->boxes);
    sweep__world_free(w->planes, n * sizeof *w->planes);
    sweep__world_free(w->nodes, (size_t)w->node_room * sizeof *w->nodes);
    sweep__world_free(w->prep, n * sizeof *w->prep);
    free(w->volumes);
    free(w->volume_damage);
    free(w->volume_forms_block);
    free(w->volume_planes);
    free(w->volume_cell_first);
    free(w->volume_cell_items);
    free(w->volume_quads);
    free(w->volume_clear.first);
    free(w->volume_clear.items);
    free(w);
}

void sweep_world_get_info(const sweep_world *w, sweep_world_info *out)
{
    /* No status to return: a caller's NULL gets nothing, or zeros. */
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!w)
        return;
    out->triangle_count = w->described_count;
    out->degenerate_count = w->degenerate_count;
    out->node_count = w->node_count;
    out->bvh_depth = w->depth;
    /* Each array as sweep__world_alloc holds it: on huge pages, its whole
     * 2 MiB pages. Of the tree's room only the pages its nodes reach hold
     * memory: the rest was never touched. */
    size_t n = w->tri_count, room = (size_t)w->node_room * sizeof *w->nodes;
    size_t nodes = (size_t)w->node_count * sizeof *w->nodes;
    if (on_huge_pages(room))
        nodes = whole_pages(nodes);
    out->bytes = sizeof *w + sweep__world_held(n * sizeof *w->tris) + sweep__world_held((n + 1) * sizeof *w->boxes) +
                 sweep__world_held(n * sizeof *w->planes) + nodes + (w->prep ? sweep__world_held(n * sizeof *w->prep) : 0);
    out->bounds_min = w->lo;
    out->bounds_max = w->hi;
}
