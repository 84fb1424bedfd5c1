/*
 * test_scene.c - what the scene's shortcuts promise (core/scene.h): a sweep
 * through the triangles a move kept, prepared lazily and picked by widened
 * float boxes, gives the same bits as the same sweep walking the BVH and
 * preparing every triangle on the spot; and the widened float boxes always
 * hold the exact double boxes, so the float tests never drop a triangle the
 * exact test would keep.
 *
 * The world is a bumpy floor of small triangles (0.25 units, heights
 * drawn from a fixed LCG), dense enough that one move keeps more triangles
 * than the prepared pool holds, so preparing on the spot past the pool is
 * covered too.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/scene.h"
#include "core/world.h"
#include "core/world_impl.h"

#define GRID 48     /* cells a side */
#define CELL 0.25   /* units */
#define SWEEPS 400

static uint64_t lcg_state;

static double lcg(void) /* [0, 1) */
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) * 0x1p-53;
}

/* The floor, and with `under` its underside too: the same cells facing
 * -z, 0.05 lower (a slab's other face). */
static sweep_world *floor_of(int under)
{
    static sweep_vec3 v[2 * (GRID + 1) * (GRID + 1)];
    static uint32_t ix[2 * GRID * GRID * 6];
    const uint32_t nv = (GRID + 1) * (GRID + 1);
    lcg_state = 7;
    for (uint32_t y = 0; y <= GRID; y++)
        for (uint32_t x = 0; x <= GRID; x++)
            v[y * (GRID + 1) + x] = sweep_v3(x * CELL, y * CELL, 0.2 * lcg() - 0.1);
    uint32_t k = 0;
    for (uint32_t y = 0; y < GRID; y++)
        for (uint32_t x = 0; x < GRID; x++) {
            uint32_t a = y * (GRID + 1) + x, b = a + 1, c = a + GRID + 2, d = a + GRID + 1;
            ix[k++] = a, ix[k++] = b, ix[k++] = c; /* facing +z */
            ix[k++] = a, ix[k++] = c, ix[k++] = d;
            if (under) {
                ix[k++] = nv + a, ix[k++] = nv + c, ix[k++] = nv + b; /* facing -z */
                ix[k++] = nv + a, ix[k++] = nv + d, ix[k++] = nv + c;
            }
        }
    for (uint32_t i = 0; i < nv; i++)
        v[nv + i] = sweep_v3(v[i].x, v[i].y, v[i].z - 0.05);
    sweep_world_desc desc = {v, under ? 2 * nv : nv, ix, NULL, k / 3};
    sweep_world *w = NULL;
    assert_int_equal(sweep_world_create(&desc, &w), SWEEP_OK);
    return w;
}

static sweep_world *bumpy_floor(void)
{
    return floor_of(0);
}

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

static void begin(sweep__scene *s, const sweep_world *w, sweep_vec3 lo, sweep_vec3 hi)
{
    sweep__scene_src src = {.world = w, .skip = SWEEP_NO_MOVER, .self = SWEEP_NO_BODY};
    sweep_vec3 inv = sweep_v3(1.0 / RADII.x, 1.0 / RADII.y, 1.0 / RADII.z);
    sweep__scene_begin(s, &src, RADII, inv, lo, hi);
}

/* Bit for bit: the answer, the time, each contact's time, normal,
 * triangle and owner. */
static void same_result(int ra, const sweep__scene_result *a, int rb, const sweep__scene_result *b, int sweep)
{
    if (ra != rb)
        fail_msg("sweep %d: contact %d kept, %d walked", sweep, ra, rb);
    if (!ra)
        return;
    if (a->count != b->count || memcmp(&a->t_min, &b->t_min, sizeof a->t_min) != 0)
        fail_msg("sweep %d: %u contacts at %.17g kept, %u at %.17g walked", sweep, a->count, a->t_min, b->count,
                 b->t_min);
    for (uint32_t i = 0; i < a->count; i++) {
        const sweep__scene_hit *x = &a->hits[i], *y = &b->hits[i];
        if (memcmp(&x->t, &y->t, sizeof x->t) != 0 || memcmp(&x->normal, &y->normal, sizeof x->normal) != 0 ||
            x->index != y->index || memcmp(&x->tri, &y->tri, sizeof x->tri) != 0 || x->mover != y->mover || x->body != y->body)
            fail_msg("sweep %d: contact %u differs (triangle %u kept, %u walked)", sweep, i, x->index, y->index);
    }
}

/* Many sweeps through one move's kept triangles, each compared with the
 * same sweep through a scene that keeps nothing near it (it walks the
 * BVH) and one that keeps too much to keep anything. */
static void kept_lazy_equals_walked(void **state)
{
    (void)state;
    sweep_world *w = bumpy_floor();
    static sweep__scene kept, walked, none;
    sweep_vec3 c = sweep_v3(GRID * CELL / 2, GRID * CELL / 2, 0.0);
    sweep_vec3 half = sweep_v3(2.0, 2.0, 2.0);
    begin(&kept, w, sweep_v3_sub(c, half), sweep_v3_add(c, half));
    assert_true(kept.kept);
    /* More kept than the pool: preparing on the spot is exercised. */
    assert_true(kept.count > SWEEP__MAX_PREPARED);
    assert_true(kept.count <= SWEEP__MAX_CANDIDATES);
    begin(&walked, w, sweep_v3(-100, -100, -100), sweep_v3(-99, -99, -99));
    begin(&none, w, sweep_v3(-1, -1, -1), sweep_v3(GRID * CELL + 1, GRID * CELL + 1, 1));
    assert_false(none.kept);

    lcg_state = 99;
    int contacts = 0, embedded = 0, inside = 0;
    for (int i = 0; i < SWEEPS; i++) {
        /* Starts from touching the floor to a little above it, moving
         * any way by up to 0.35 units; some start embedded. */
        sweep_vec3 from = sweep_v3(c.x + 1.4 * lcg() - 0.7, c.y + 1.4 * lcg() - 0.7, 0.75 + 0.4 * lcg());
        sweep_vec3 disp = sweep_v3(0.7 * lcg() - 0.35, 0.7 * lcg() - 0.35, 0.7 * lcg() - 0.5);
        sweep_vec3 ef = sweep_v3_mul(from, kept.inv_radii), ed = sweep_v3_mul(disp, kept.inv_radii);
        sweep__scene_result a, b, n;
        int ra = sweep__scene_sweep(&kept, ef, ed, &a);
        int rb = sweep__scene_sweep(&walked, ef, ed, &b);
        int rn = sweep__scene_sweep(&none, ef, ed, &n);
        same_result(ra, &a, rb, &b, i);
        same_result(rn, &n, rb, &b, i);
        contacts += ra;
        embedded += ra && a.t_min < 0.0;
        /* Did this sweep use the kept triangles? (its box within the move's) */
        sweep_vec3 to = sweep_v3_add(from, disp), pad = sweep_v3_scale(RADII, 1.001);
        sweep_vec3 lo = sweep_v3_sub(sweep_v3_min(from, to), pad), hi = sweep_v3_add(sweep_v3_max(from, to), pad);
        inside += lo.x >= kept.lo.x && lo.y >= kept.lo.y && lo.z >= kept.lo.z && hi.x <= kept.hi.x &&
                  hi.y <= kept.hi.y && hi.z <= kept.hi.z;
    }
    /* The comparisons meant something: contacts of both kinds, most
     * sweeps served by the kept triangles, and the pool ran out. */
    assert_true(contacts > SWEEPS / 4);
    assert_true(embedded > 0 && embedded < contacts);
    assert_true(inside > SWEEPS * 3 / 4);
    assert_int_equal(kept.prepared, SWEEP__MAX_PREPARED);
    /* Nothing was prepared where nothing was kept. */
    assert_int_equal(walked.prepared, 0);
    assert_int_equal(none.prepared, 0);
    sweep_world_destroy(w);
}

/*
 * A move's scene drops the triangles whose plane none of its sweeps can
 * reach (the underside of a slab seen from above, a floor far below):
 * sweeps through the rest give the bits of the same sweeps walking the
 * BVH, which drops nothing.
 */
static void culled_planes_change_nothing(void **state)
{
    (void)state;
    sweep_world *w = floor_of(1);
    static sweep__scene kept, walked;
    sweep_vec3 c = sweep_v3(GRID * CELL / 2, GRID * CELL / 2, 0.0);
    sweep_vec3 lo = sweep_v3(c.x - 1.5, c.y - 1.5, -0.2), hi = sweep_v3(c.x + 1.5, c.y + 1.5, 3.0);
    begin(&kept, w, lo, hi);
    begin(&walked, w, sweep_v3(-100, -100, -100), sweep_v3(-99, -99, -99));
    assert_true(kept.kept);
    /* What the box meets, and how many of those no sweep can reach. */
    uint32_t meets = 0;
    for (uint32_t i = 0; i < w->tri_count; i++) {
        const sweep__tri_box *b = &w->boxes[i];
        meets += b->lo[0] <= hi.x && b->hi[0] >= lo.x && b->lo[1] <= hi.y && b->hi[1] >= lo.y && b->lo[2] <= hi.z &&
                 b->hi[2] >= lo.z;
    }
    print_message("kept %u of the %u triangles the box meets\n", kept.count, meets);
    assert_true(kept.count < meets * 3 / 4); /* most undersides went */

    lcg_state = 5;
    int contacts = 0, used = 0;
    for (int i = 0; i < SWEEPS; i++) {
        /* From anywhere a sweep of the move may start, in any direction,
         * some straight down onto the floor. */
        sweep_vec3 from = sweep_v3(c.x + 1.6 * lcg() - 0.8, c.y + 1.6 * lcg() - 0.8, 0.75 + 1.3 * lcg());
        sweep_vec3 disp = i % 3 ? sweep_v3(0.3 * lcg() - 0.15, 0.3 * lcg() - 0.15, -(from.z - 0.72) * lcg())
                                : sweep_v3(0.2 * lcg() - 0.1, 0.2 * lcg() - 0.1, -(from.z - 0.05));
        sweep_vec3 to = sweep_v3_add(from, disp), pad = sweep_v3_scale(RADII, 1.001);
        sweep_vec3 slo = sweep_v3_sub(sweep_v3_min(from, to), pad), shi = sweep_v3_add(sweep_v3_max(from, to), pad);
        used += slo.x >= lo.x && slo.y >= lo.y && slo.z >= lo.z && shi.x <= hi.x && shi.y <= hi.y && shi.z <= hi.z;
        sweep__scene_result a, b;
        int ra = sweep__scene_sweep(&kept, sweep_v3_mul(from, kept.inv_radii), sweep_v3_mul(disp, kept.inv_radii), &a);
        int rb =
            sweep__scene_sweep(&walked, sweep_v3_mul(from, walked.inv_radii), sweep_v3_mul(disp, walked.inv_radii), &b);
        same_result(ra, &a, rb, &b, i);
        contacts += ra;
    }
    print_message("%d sweeps used the kept triangles, %d touched\n", used, contacts);
    assert_true(used > SWEEPS / 2);
    assert_true(contacts > SWEEPS / 4);
    sweep_world_destroy(w);
}

/* A kept triangle's prepared data is what preparing it on the spot gives,
 * whether the scene made it when a sweep first needed it or took the
 * world's (prepared for RADII) when it kept the triangle. */
static void lazy_prepared_equals_eager_in(int world_prepared)
{
    sweep_world *w = bumpy_floor();
    if (world_prepared)
        assert_int_equal(sweep_world_prepare_radii(w, RADII), SWEEP_OK);
    static sweep__scene s;
    sweep_vec3 c = sweep_v3(3.0, 3.0, 0.0), half = sweep_v3(1.5, 1.5, 2.5);
    begin(&s, w, sweep_v3_sub(c, half), sweep_v3_add(c, half));
    sweep__scene_result r;
    for (int i = 0; i < 20; i++)
        sweep__scene_sweep(&s, sweep_v3_mul(sweep_v3(2.5 + 0.05 * i, 3.0, 0.95), s.inv_radii),
                           sweep_v3(0.3, 0.1, -0.2), &r);
    uint32_t checked = 0;
    for (uint32_t k = 0; k < s.count; k++) {
        const sweep__candidate *cd = &s.cand[k];
        if (!cd->prep)
            continue;
        sweep__tri_prep eager;
        const sweep__tri *t = cd->tri;
        sweep__tri_prepare(sweep_v3_mul(t->a, s.inv_radii), sweep_v3_mul(t->b, s.inv_radii),
                           sweep_v3_mul(t->c, s.inv_radii), &eager);
        /* Every field, not the padding after the last. */
        assert_memory_equal(&eager, cd->prep, offsetof(sweep__tri_prep, sharp) + sizeof eager.sharp);
        /* From the world exactly when it was prepared for these radii. */
        int from_world = w->prep && cd->prep == &w->prep[cd->tri - w->tris];
        assert_int_equal(from_world, world_prepared);
        checked++;
    }
    assert_true(checked > 10);
    if (world_prepared)
        assert_int_equal(checked, s.count); /* all, from the start */
    else
        assert_true(checked < s.count); /* some were never needed */
    sweep_world_destroy(w);
}

static void lazy_prepared_equals_eager(void **state)
{
    (void)state;
    lazy_prepared_equals_eager_in(0);
    lazy_prepared_equals_eager_in(1);
}

static void widened_holds(double x)
{
    float lo = sweep__widen_down(x), hi = sweep__widen_up(x);
    if (!((double)lo <= x && (double)hi >= x))
        fail_msg("%.17g widened to [%.9g, %.9g]", x, lo, hi);
}

/* Widened floats lie outside the double they come from, for any size. */
static void widen_is_outward(void **state)
{
    (void)state;
    static const double fixed[] = {0.0, -0.0, 1e-300, -1e-300, 1e-40, -1e-40, 1.0, -1.0, 0.1, -0.1,
                                   16777217.0, -16777217.0, 1e30, -1e30, 3.0e38, -3.0e38};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        widened_holds(fixed[i]);
    lcg_state = 3;
    for (int i = 0; i < 200000; i++) {
        double m = lcg() * 2.0 - 1.0;
        int e = (int)(lcg() * 80.0) - 40;
        widened_holds(ldexp(m, e));
        widened_holds(nextafter(ldexp(m, e), 0.0));
    }
}

/* Every triangle's widened box holds its exact box, and boxes that touch
 * in double still meet in float. */
static void world_boxes_hold_triangles(void **state)
{
    (void)state;
    sweep_world *w = bumpy_floor();
    for (uint32_t i = 0; i < w->tri_count; i++) {
        const sweep__tri *t = &w->tris[i];
        const sweep__tri_box *b = &w->boxes[i];
        sweep_vec3 lo = sweep_v3_min(t->a, sweep_v3_min(t->b, t->c));
        sweep_vec3 hi = sweep_v3_max(t->a, sweep_v3_max(t->b, t->c));
        assert_true(b->lo[0] <= lo.x && b->lo[1] <= lo.y && b->lo[2] <= lo.z);
        assert_true(b->hi[0] >= hi.x && b->hi[1] >= hi.y && b->hi[2] >= hi.z);
    }
    /* A box that only touches a triangle's box (equal doubles that are not
     * floats) is kept by a scene whose box ends there. */
    const sweep__tri *t = &w->tris[w->tri_count / 2];
    sweep_vec3 hi = sweep_v3_max(t->a, sweep_v3_max(t->b, t->c));
    static sweep__scene s;
    begin(&s, w, hi, sweep_v3_add(hi, sweep_v3(1, 1, 1)));
    int found = 0;
    for (uint32_t k = 0; k < s.count; k++)
        found |= s.cand[k].tri == t;
    assert_true(found);
    sweep_world_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_lazy_equals_walked),
        cmocka_unit_test(lazy_prepared_equals_eager),
        cmocka_unit_test(culled_planes_change_nothing),
        cmocka_unit_test(widen_is_outward),
        cmocka_unit_test(world_boxes_hold_triangles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
