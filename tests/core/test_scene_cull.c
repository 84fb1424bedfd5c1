/*
 * test_scene_cull.c - the gathering's plane test two triangles at a time
 * (SSE2, core/scene_cull.h) against the one triangle form, to the bit:
 * which of them a move keeps must not depend on which form kept it.
 *
 * The cases are drawn so that both answers come often and many lie within
 * the rounding of a threshold: planes a hair either side of the box's
 * reach (behind it, beyond the ellipsoid's reach in front), axis-aligned
 * and zero normals, boxes about as large as the size cut-off, centre
 * boxes from a point to a room. The walks that gather through it
 * (test_scene, test_determinism, the corpus walks) hold the rest.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/scene_cull.h"
#include "tests/test_skip.h"

#define CASES 400000

static uint64_t lcg_state;

static double lcg(void) /* [0, 1) */
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) * 0x1p-53;
}

static double signed_unit(void)
{
    return 2.0 * lcg() - 1.0;
}

static void centre_box(sweep__centre_box *cb)
{
    double scale = lcg() < 0.5 ? 4096.0 : 64.0;
    cb->c = sweep_v3(scale * signed_unit(), scale * signed_unit(), scale * signed_unit());
    double room = lcg() < 0.2 ? 0.0 : 40.0 * lcg();
    cb->h = sweep_v3(room * lcg(), room * lcg(), room * lcg());
    cb->radii = sweep_v3(15.0, 15.0, lcg() < 0.5 ? 28.0 : 1.0 + 30.0 * lcg());
    cb->margin = 1e-6 * (1.0 + fabs(cb->c.x) + fabs(cb->c.y) + fabs(cb->c.z) + 3.0 * scale);
    cb->min_size = (float)(2e-4 * (cb->h.x + cb->h.y + cb->h.z + cb->radii.x + cb->radii.y + cb->radii.z));
}

/* A plane near cb: a hair either side of one of its thresholds, or
 * anywhere near the box. */
static void plane_near(const sweep__centre_box *cb, sweep__tri_plane *pl)
{
    double n[3];
    double pick = lcg();
    if (pick < 0.15) {
        int axis = (int)(3.0 * lcg());
        n[0] = n[1] = n[2] = 0.0;
        n[axis] = lcg() < 0.5 ? -1.0 : 1.0;
    } else if (pick < 0.17) {
        n[0] = n[1] = n[2] = 0.0;
    } else {
        n[0] = signed_unit(), n[1] = signed_unit(), n[2] = signed_unit();
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int a = 0; a < 3 && len > 0.0; a++)
            n[a] /= len;
    }
    for (int a = 0; a < 3; a++)
        pl->n[a] = (float)n[a];
    double nx = pl->n[0], ny = pl->n[1], nz = pl->n[2];
    double at = nx * cb->c.x + ny * cb->c.y + nz * cb->c.z;
    double spread = fabs(nx) * cb->h.x + fabs(ny) * cb->h.y + fabs(nz) * cb->h.z;
    double rx = nx * cb->radii.x, ry = ny * cb->radii.y, rz = nz * cb->radii.z;
    double reach = sqrt((rx * rx + ry * ry + rz * rz) * (1.0 + 1e-5));
    double hair = cb->margin * 4.0 * signed_unit();
    double d;
    pick = lcg();
    if (pick < 0.35)
        d = at + spread + cb->margin + hair; /* behind the whole box, or just not */
    else if (pick < 0.7)
        d = at - spread - cb->margin - reach + hair; /* just beyond the reach, or just not */
    else
        d = at + (spread + reach + 10.0) * signed_unit();
    /* Nudged by a few float steps, so the rounding of d does not always
     * land on the same side. */
    float df = (float)d;
    for (int k = (int)(5.0 * lcg()) - 2; k != 0; k += k > 0 ? -1 : 1)
        df = nextafterf(df, k > 0 ? INFINITY : -INFINITY);
    pl->d = df;
}

/* A box about as large as the size cut-off, or well above it. */
static void box_near(const sweep__centre_box *cb, sweep__tri_box *b)
{
    double size = lcg() < 0.3 ? cb->min_size * (0.9 + 0.2 * lcg()) / 3.0 : 100.0 * lcg();
    for (int a = 0; a < 3; a++) {
        double lo = (a == 0 ? cb->c.x : a == 1 ? cb->c.y : cb->c.z) + 50.0 * signed_unit();
        b->lo[a] = (float)lo;
        b->hi[a] = (float)(lo + size * lcg() * 3.0);
    }
}

static void pair_equals_single(void **state)
{
    (void)state;
#ifndef __SSE2__
    skip_because("no SSE2 on this target: the gathering tests one plane at a time, the only form");
#else
    /* The pair reads the float after a box, as the world's zero box
     * after the last allows (world_impl.h). */
    sweep__tri_plane planes[2];
    static sweep__tri_box boxes[3];
    lcg_state = 11;
    uint64_t culled = 0, kept = 0, near = 0;
    for (int i = 0; i < CASES; i++) {
        sweep__centre_box cb;
        centre_box(&cb);
        sweep__centre_box2 cb2;
        sweep__centre_box2_init(&cb2, &cb);
        for (int k = 0; k < 2; k++) {
            plane_near(&cb, &planes[k]);
            box_near(&cb, &boxes[k]);
        }
        unsigned one = (unsigned)sweep__culled(&cb, &planes[0], &boxes[0]);
        unsigned two = (unsigned)sweep__culled(&cb, &planes[1], &boxes[1]);
        unsigned pair = sweep__culled_pair(&cb, &cb2, planes, boxes, 0, 1);
        if (pair != (one | two << 1))
            fail_msg("case %d: the pair says %u, one at a time %u and %u", i, pair, one, two);
        assert_int_equal(sweep__culled_pair(&cb, &cb2, planes, boxes, 1, 0), two | one << 1);
        assert_int_equal(sweep__culled_pair(&cb, &cb2, planes, boxes, 0, 0), one | one << 1);
        culled += one + two;
        kept += 2 - one - two;
        /* How many lie within a few margins of the behind threshold:
         * the cases whose answer rounding could turn. */
        double nx = planes[0].n[0], ny = planes[0].n[1], nz = planes[0].n[2];
        double mid = nx * cb.c.x + ny * cb.c.y + nz * cb.c.z - planes[0].d;
        double spread = fabs(nx) * cb.h.x + fabs(ny) * cb.h.y + fabs(nz) * cb.h.z;
        near += fabs(mid + spread + cb.margin) < 8.0 * cb.margin;
    }
    /* Exact ties: small integers and an axis for a normal, so that each
     * sum is exact and a plane lies on the behind threshold itself (a
     * comparison the wrong way round, or a term left out, shows). */
    uint64_t ties = 0;
    for (int i = 0; i < CASES / 4; i++) {
        sweep__centre_box cb;
        cb.c = sweep_v3(floor(64.0 * signed_unit()), floor(64.0 * signed_unit()), floor(64.0 * signed_unit()));
        cb.h = sweep_v3(floor(8.0 * lcg()), floor(8.0 * lcg()), floor(8.0 * lcg()));
        cb.radii = sweep_v3(15.0, 15.0, 28.0);
        cb.margin = 0.25;
        cb.min_size = 0.0f;
        sweep__centre_box2 cb2;
        sweep__centre_box2_init(&cb2, &cb);
        for (int k = 0; k < 2; k++) {
            int axis = (int)(3.0 * lcg());
            double sign = lcg() < 0.5 ? -1.0 : 1.0;
            planes[k].n[0] = planes[k].n[1] = planes[k].n[2] = 0.0f;
            planes[k].n[axis] = (float)sign;
            double c = axis == 0 ? cb.c.x : axis == 1 ? cb.c.y : cb.c.z;
            double h = axis == 0 ? cb.h.x : axis == 1 ? cb.h.y : cb.h.z;
            double r = axis == 2 ? 28.0 : 15.0;
            /* On the behind threshold, a quarter either side, or on the
             * far side of the reach (clear = r, whose square the reach's
             * 1 + 1e-5 just keeps). */
            double step = 0.25 * (double)((int)(3.0 * lcg()) - 1);
            planes[k].d = (float)(lcg() < 0.7 ? sign * c + h + 0.25 + step : sign * c - h - 0.25 - r + step);
            boxes[k] = (sweep__tri_box){{0.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}};
        }
        unsigned one = (unsigned)sweep__culled(&cb, &planes[0], &boxes[0]);
        unsigned two = (unsigned)sweep__culled(&cb, &planes[1], &boxes[1]);
        if (sweep__culled_pair(&cb, &cb2, planes, boxes, 0, 1) != (one | two << 1))
            fail_msg("tie case %d: the pair differs from one at a time (%u, %u)", i, one, two);
        double mid = planes[0].n[0] * cb.c.x + planes[0].n[1] * cb.c.y + planes[0].n[2] * cb.c.z - planes[0].d;
        double spread = fabs(planes[0].n[0]) * cb.h.x + fabs(planes[0].n[1]) * cb.h.y + fabs(planes[0].n[2]) * cb.h.z;
        ties += mid + spread == -cb.margin;
    }
    assert_true(ties > CASES / 100);
    print_message("%llu culled, %llu kept, %llu near the behind threshold\n", (unsigned long long)culled,
                  (unsigned long long)kept, (unsigned long long)near);
    /* Both answers, and many close calls, or the comparison shows little. */
    assert_true(culled > CASES / 4 && kept > CASES / 4 && near > CASES / 20);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pair_equals_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
