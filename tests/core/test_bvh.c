/*
 * test_bvh.c - what the 4-wide BVH promises (core/world_impl.h,
 * core/bvh_walk.h): collapsed from the binary tree, it keeps the binary
 * leaves in their left-to-right order and their boxes, which nest, so a
 * walk reaches exactly the leaves whose own box meets the query, in the
 * order of tris[] - the triangles, and the order, of the binary walk it
 * replaced. Checked on the tree's structure (order, coverage, nesting,
 * leaf boxes holding their triangles) and on thousands of random boxes
 * against a brute-force list of the leaves, with the four-lane SSE test
 * compared with the scalar comparisons on every node.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/bvh_walk.h"
#include "core/world.h"
#include "core/world_impl.h"

#define QUERIES 4000

static uint64_t lcg_state;

static double lcg(void) /* [0, 1) */
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) * 0x1p-53;
}

/* A leaf of the wide tree, found by the structure check. */
typedef struct leaf {
    float lo[3], hi[3];
    uint32_t first, count;
} leaf;

typedef struct tree_check {
    const sweep_world *w;
    leaf *leaves;
    uint32_t leaf_count;
    uint32_t nodes_seen;
} tree_check;

/* Depth first, first child first: used slots before unused ones, every
 * child inside its parent's box, leaves in the order of tris[] and
 * covering it, each holding its triangles' exact boxes. */
static void check_node(tree_check *tc, uint32_t at, const float *plo, const float *phi, uint32_t depth)
{
    const sweep_world *w = tc->w;
    assert_true(at < w->node_count);
    assert_true(depth <= w->depth);
    tc->nodes_seen++;
    const sweep__node *n = &w->nodes[at];
    int used = 1;
    for (uint32_t k = 0; k < SWEEP__BVH_WIDTH; k++) {
        if (isnan(n->lo[0][k])) {
            /* Unused: NaN throughout, and only after the used ones. */
            for (int a = 0; a < 3; a++)
                assert_true(isnan(n->lo[a][k]) && isnan(n->hi[a][k]));
            assert_int_equal(n->child[k].count, 0);
            used = 0;
            continue;
        }
        assert_true(used);
        float lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = n->lo[a][k], hi[a] = n->hi[a][k];
            assert_true(lo[a] <= hi[a]);
            if (plo)
                assert_true(plo[a] <= lo[a] && hi[a] <= phi[a]);
        }
        const sweep__child *c = &n->child[k];
        if (c->count == 0) {
            check_node(tc, c->first, lo, hi, depth + 1);
            continue;
        }
        uint32_t expect = tc->leaf_count ? tc->leaves[tc->leaf_count - 1].first +
                                               tc->leaves[tc->leaf_count - 1].count
                                         : 0;
        assert_int_equal(c->first, expect);
        assert_true(c->first + c->count <= w->tri_count);
        for (uint32_t i = c->first; i < c->first + c->count; i++) {
            const sweep__tri *t = &w->tris[i];
            sweep_vec3 tlo = sweep_v3_min(t->a, sweep_v3_min(t->b, t->c));
            sweep_vec3 thi = sweep_v3_max(t->a, sweep_v3_max(t->b, t->c));
            assert_true(lo[0] <= tlo.x && lo[1] <= tlo.y && lo[2] <= tlo.z);
            assert_true(hi[0] >= thi.x && hi[1] >= thi.y && hi[2] >= thi.z);
        }
        leaf *l = &tc->leaves[tc->leaf_count++];
        memcpy(l->lo, lo, sizeof lo), memcpy(l->hi, hi, sizeof hi);
        l->first = c->first, l->count = c->count;
    }
}

/* The leaves of w, checked; the caller frees them. */
static leaf *leaves_of(const sweep_world *w, uint32_t *count)
{
    tree_check tc = {w, calloc(w->tri_count + 1, sizeof(leaf)), 0, 0};
    assert_non_null(tc.leaves);
    if (w->tri_count > 0)
        check_node(&tc, 0, NULL, NULL, 1);
    uint32_t covered = tc.leaf_count ? tc.leaves[tc.leaf_count - 1].first + tc.leaves[tc.leaf_count - 1].count : 0;
    assert_int_equal(covered, w->tri_count);
    assert_int_equal(tc.nodes_seen, w->node_count);
    *count = tc.leaf_count;
    return tc.leaves;
}

static int meets(const sweep__tri_box *q, const float *lo, const float *hi)
{
    return q->lo[0] <= hi[0] && q->hi[0] >= lo[0] && q->lo[1] <= hi[1] && q->hi[1] >= lo[1] && q->lo[2] <= hi[2] &&
           q->hi[2] >= lo[2];
}

/* The four-lane test against the scalar comparisons, on every node. */
static void same_masks(const sweep_world *w, const sweep__bvh_box *b)
{
    for (uint32_t at = 0; at < w->node_count; at++) {
        const sweep__node *n = &w->nodes[at];
        unsigned m = 0;
        for (uint32_t k = 0; k < SWEEP__BVH_WIDTH; k++) {
            float lo[3] = {n->lo[0][k], n->lo[1][k], n->lo[2][k]}, hi[3] = {n->hi[0][k], n->hi[1][k], n->hi[2][k]};
            m |= (unsigned)meets(&b->f, lo, hi) << k;
        }
        assert_int_equal(sweep__bvh_children_meeting(n, b), m);
    }
}

/* Random boxes, some at a leaf's exact float bounds, each walked and
 * compared with the leaves whose box meets it, in order. */
static void walks_match(const sweep_world *w, sweep_vec3 wlo, sweep_vec3 whi, double scale)
{
    uint32_t nleaves;
    leaf *leaves = leaves_of(w, &nleaves);
    uint32_t *got = malloc((w->tri_count + 1) * sizeof *got);
    assert_non_null(got);
    uint32_t empty = 0, many = 0;
    for (int q = 0; q < QUERIES; q++) {
        sweep_vec3 lo, hi;
        if (q % 4 == 3 && nleaves > 0) {
            /* Touching a leaf's box from outside on one side, exactly. */
            const leaf *l = &leaves[(uint32_t)(lcg() * nleaves)];
            int a = (int)(lcg() * 3);
            lo = sweep_v3(l->lo[0], l->lo[1], l->lo[2]);
            hi = sweep_v3(l->hi[0], l->hi[1], l->hi[2]);
            double *plo = a == 0 ? &lo.x : a == 1 ? &lo.y : &lo.z, *phi = a == 0 ? &hi.x : a == 1 ? &hi.y : &hi.z;
            if (lcg() < 0.5)
                *plo = *phi, *phi = *plo + scale * lcg();
            else
                *phi = *plo, *plo = *phi - scale * lcg();
        } else {
            sweep_vec3 c = sweep_v3(wlo.x + (whi.x - wlo.x) * lcg(), wlo.y + (whi.y - wlo.y) * lcg(),
                                    wlo.z + (whi.z - wlo.z) * lcg());
            sweep_vec3 h = sweep_v3_scale(sweep_v3(lcg(), lcg(), lcg()), scale * (q % 2 ? 0.05 : 1.0));
            lo = sweep_v3_sub(c, h), hi = sweep_v3_add(c, h);
        }
        sweep__bvh_walk it;
        sweep__bvh_walk_begin(&it, w, lo, hi);
        if (q % 50 == 0)
            same_masks(w, &it.box);
        uint32_t n = 0, i;
        while (sweep__bvh_walk_next(&it, &i)) {
            assert_true(n < w->tri_count);
            got[n++] = i;
        }
        uint32_t k = 0;
        for (uint32_t j = 0; j < nleaves; j++) {
            if (!meets(&it.box.f, leaves[j].lo, leaves[j].hi))
                continue;
            for (uint32_t t = leaves[j].first; t < leaves[j].first + leaves[j].count; t++) {
                if (k >= n || got[k] != t)
                    fail_msg("query %d: walk gave %u triangles, triangle %u of leaf %u missing or out of order", q,
                             n, t, j);
                k++;
            }
        }
        assert_int_equal(k, n);
        empty += n == 0;
        many += n > 8;
    }
    /* The queries meant something: some meet nothing, many meet much. */
    assert_true(empty > 0 && empty < QUERIES / 2);
    assert_true(many > QUERIES / 10);
    free(got);
    free(leaves);
}

static sweep_world *world_of(const sweep_vec3 *v, uint32_t nv, const uint32_t *ix, uint32_t nt)
{
    sweep_world_desc desc = {v, nv, ix, NULL, nt};
    sweep_world *w = NULL;
    assert_int_equal(sweep_world_create(&desc, &w), SWEEP_OK);
    return w;
}

/* Triangles of every size anywhere, some on a coarse grid so that many
 * bounds are equal. */
static void soup(void **state)
{
    (void)state;
    enum { N = 3000 };
    static sweep_vec3 v[3 * N];
    static uint32_t ix[3 * N];
    lcg_state = 11;
    for (uint32_t t = 0; t < N; t++) {
        double size = pow(10.0, 3.0 * lcg() - 1.5);
        sweep_vec3 c = sweep_v3(400 * lcg() - 200, 400 * lcg() - 200, 100 * lcg() - 50);
        if (t % 3 == 0)
            c = sweep_v3(floor(c.x / 8) * 8, floor(c.y / 8) * 8, floor(c.z / 8) * 8);
        for (int k = 0; k < 3; k++) {
            v[3 * t + k] = sweep_v3_add(c, sweep_v3_scale(sweep_v3(lcg() - 0.5, lcg() - 0.5, lcg() - 0.5), size));
            ix[3 * t + k] = 3 * t + k;
        }
    }
    sweep_world *w = world_of(v, 3 * N, ix, N);
    sweep_world_info info;
    sweep_world_get_info(w, &info);
    print_message("%u triangles, %u nodes, depth %u\n", w->tri_count, info.node_count, info.bvh_depth);
    /* Wide: far fewer nodes than the binary tree's 2 per leaf. */
    assert_true(info.node_count < w->tri_count / 2);
    walks_match(w, sweep_v3(-210, -210, -60), sweep_v3(210, 210, 60), 30.0);
    sweep_world_destroy(w);
}

/* A floor of small cells at coordinates that are not floats (0.1 steps). */
static void floor_grid(void **state)
{
    (void)state;
    enum { G = 40 };
    static sweep_vec3 v[(G + 1) * (G + 1)];
    static uint32_t ix[G * G * 6];
    lcg_state = 12;
    for (uint32_t y = 0; y <= G; y++)
        for (uint32_t x = 0; x <= G; x++)
            v[y * (G + 1) + x] = sweep_v3(x * 0.1, y * 0.1, 0.02 * lcg());
    uint32_t k = 0;
    for (uint32_t y = 0; y < G; y++)
        for (uint32_t x = 0; x < G; x++) {
            uint32_t a = y * (G + 1) + x, b = a + 1, c = a + G + 2, d = a + G + 1;
            ix[k++] = a, ix[k++] = b, ix[k++] = c;
            ix[k++] = a, ix[k++] = c, ix[k++] = d;
        }
    sweep_world *w = world_of(v, (G + 1) * (G + 1), ix, k / 3);
    walks_match(w, sweep_v3(-0.1, -0.1, -0.2), sweep_v3(G * 0.1 + 0.1, G * 0.1 + 0.1, 0.2), 0.6);
    sweep_world_destroy(w);
}

/* Worlds of 1, 4 and 5 triangles: a root that is one leaf, and the
 * smallest tree that splits. */
static void tiny_worlds(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 4, 5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        sweep_vec3 v[15];
        uint32_t ix[15];
        for (uint32_t t = 0; t < n; t++) {
            v[3 * t] = sweep_v3(3.0 * t, 0, 0);
            v[3 * t + 1] = sweep_v3(3.0 * t + 1, 0, 0);
            v[3 * t + 2] = sweep_v3(3.0 * t, 1, 0.5);
            for (int k = 0; k < 3; k++)
                ix[3 * t + k] = 3 * t + k;
        }
        sweep_world *w = world_of(v, 3 * n, ix, n);
        assert_int_equal(w->tri_count, n);
        lcg_state = 13 + s;
        uint32_t nleaves;
        free(leaves_of(w, &nleaves));
        if (n <= SWEEP__BVH_LEAF_SIZE)
            assert_int_equal(w->node_count, 1);
        /* A box around everything gets every triangle, in order. */
        sweep__bvh_walk it;
        sweep__bvh_walk_begin(&it, w, sweep_v3(-1, -1, -1), sweep_v3(3.0 * n + 1, 2, 1));
        uint32_t i, k = 0;
        while (sweep__bvh_walk_next(&it, &i))
            assert_int_equal(i, k++);
        assert_int_equal(k, n);
        sweep_world_destroy(w);
    }
}

/* Centroids a few units in the last place of a subnormal apart along an
 * axis (a map may give corners such as 8e-320): the split search's scale
 * of that axis is infinite. The tree is built, and walks as any other. */
static void subnormal_spread(void **state)
{
    (void)state;
    enum { N = 64 };
    static sweep_vec3 v[3 * N];
    static uint32_t ix[3 * N];
    lcg_state = 14;
    for (uint32_t t = 0; t < N; t++) {
        double x = 2.0 * (t % 8), y = 2.0 * (t / 8);
        /* Every third triangle lifts one corner by a subnormal on z, every
         * fifth on all three axes. */
        double dz = t % 3 == 0 ? 8e-320 : 0.0, dxy = t % 5 == 0 ? 5e-324 : 0.0;
        v[3 * t] = sweep_v3(x + dxy, y + dxy, dz);
        v[3 * t + 1] = sweep_v3(x + 1, y, 0);
        v[3 * t + 2] = sweep_v3(x, y + 1, 0);
        for (int k = 0; k < 3; k++)
            ix[3 * t + k] = 3 * t + k;
    }
    sweep_world *w = world_of(v, 3 * N, ix, N);
    assert_int_equal(w->tri_count, N);
    walks_match(w, sweep_v3(-1, -1, -1), sweep_v3(17, 17, 1), 3.0);
    sweep_world_destroy(w);
    /* The same on a column: centroids apart on z by subnormals alone. */
    for (uint32_t t = 0; t < N; t++) {
        double z = t * 1e-321;
        v[3 * t] = sweep_v3(0, 0, z);
        v[3 * t + 1] = sweep_v3(1, 0, z);
        v[3 * t + 2] = sweep_v3(0, 1, z);
    }
    w = world_of(v, 3 * N, ix, N);
    assert_int_equal(w->tri_count, N);
    sweep_world_destroy(w);
}

/* An empty world has no nodes, and a walk through it finds nothing. */
static void empty_world(void **state)
{
    (void)state;
    sweep_world *w = world_of(NULL, 0, NULL, 0);
    sweep__bvh_walk it;
    uint32_t i;
    sweep__bvh_walk_begin(&it, w, sweep_v3(-1, -1, -1), sweep_v3(1, 1, 1));
    assert_false(sweep__bvh_walk_next(&it, &i));
    sweep_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(soup),
        cmocka_unit_test(floor_grid),
        cmocka_unit_test(tiny_worlds),
        cmocka_unit_test(subnormal_spread),
        cmocka_unit_test(empty_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
