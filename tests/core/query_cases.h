/*
 * query_cases.h - the property the queries promise, checked: a level
 * walked by 64 entities (and its movers running) kept in a history, random
 * queries of every kind at random past times and filters, each answer
 * equal bit for bit to the oracle's (query_oracle.h). For
 * tests/core/test_query.c (generated levels) and
 * tests/maps/test_query_corpus.c (the corpus of real levels). Header-only;
 * <cmocka.h> must come first.
 */
#ifndef SWEEP_TESTS_QUERY_CASES_H
#define SWEEP_TESTS_QUERY_CASES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/query.h"
#include "maps/level.h"
#include "tests/core/query_oracle.h"

#define ENTITIES 64
#define CAPACITY 32
#define TICKS 40 /* pushed: the ring has wrapped */

typedef struct world {
    sweep_level lv;
    sweep_world *w;
    sweep_movers *mv;
    sweep_history *h;
    sweep_vec3 lo, hi;
    uint64_t oldest, newest;
} world;

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom
     * Number Generators", 2014). */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1p-53;
}

static double rng_range(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * rng_unit(s);
}

/* A point of the box lo..hi, its coordinates drawn x, y, z in turn (the
 * arguments of one call are drawn in an order each compiler picks). */
static sweep_vec3 rng_point(uint64_t *s, sweep_vec3 lo, sweep_vec3 hi)
{
    double x = rng_range(s, lo.x, hi.x);
    double y = rng_range(s, lo.y, hi.y);
    double z = rng_range(s, lo.z, hi.z);
    return sweep_v3(x, y, z);
}

/* W->lv loaded: its world and movers, and a history of 64 entities
 * walking on it while the movers run their paths. Entity i is left out of
 * the ticks where (tick + i) % 13 == 0 (gone and back); odd ones have hit
 * shapes, which change at every 5th tick (so are not blended across it).
 * Sizes and speeds are a player's of (0.4, 0.4, 0.9) times scale. */
static void world_walk(world *W, uint64_t seed, double scale)
{
    sweep_world_desc d = sweep_level_world_desc(&W->lv);
    assert_int_equal(sweep_world_create(&d, &W->w), SWEEP_OK);
    assert_int_equal(sweep_level_build_movers(&W->lv, &W->mv), SWEEP_OK);
    uint32_t movers = sweep_movers_count(W->mv);
    assert_int_equal(sweep_history_create(CAPACITY, ENTITIES, movers, &W->h), SWEEP_OK);
    sweep_world_info info;
    sweep_world_get_info(W->w, &info);
    W->lo = info.bounds_min, W->hi = info.bounds_max;
    uint64_t rs = seed * 7 + 1;
    sweep_vec3 pos[ENTITIES], vel[ENTITIES];
    for (int i = 0; i < ENTITIES; i++) {
        pos[i] = rng_point(&rs, W->lo, W->hi);
        vel[i] = sweep_v3_scale(rng_point(&rs, sweep_v3(-0.3, -0.3, -0.05), sweep_v3(0.3, 0.3, 0.05)), scale);
    }
    sweep_hit_shape shapes[ENTITIES][3];
    sweep_mover_pose poses[256];
    assert_true(movers <= 256);
    for (uint64_t t = 0; t < TICKS; t++) {
        sweep_history_entity e[ENTITIES];
        uint32_t n = 0;
        for (int i = 0; i < ENTITIES; i++) {
            pos[i] = sweep_v3_add(pos[i], vel[i]);
            if ((t + (uint64_t)i) % 13 == 0)
                continue;
            /* Listed in a scrambled order: the history sorts. */
            int j = (i * 37) % ENTITIES;
            sweep_history_entity *x = &e[n++];
            x->id = 1000 + (uint64_t)j * 3;
            x->position = pos[j];
            x->radii = sweep_v3_scale(j % 4 == 0 ? sweep_v3(0.5, 0.5, 0.5) : sweep_v3(0.4, 0.4, 0.9), scale);
            x->shapes = NULL, x->shape_count = 0;
            if (j % 2) {
                double wob = (double)(t / 5 % 2) * 0.05;
                sweep_hit_shape *s = shapes[j];
                sweep_hit_shape h = {1, SWEEP_SHAPE_SPHERE, {0, 0, 0.7 + wob}, {0, 0, 0}, {0.2, 0, 0}};
                sweep_hit_shape b = {2, SWEEP_SHAPE_CAPSULE, {0, 0, -0.5}, {0.1, 0, 0.3 - wob}, {0.3, 0, 0}};
                sweep_hit_shape a = {3, SWEEP_SHAPE_ELLIPSOID, {0.3, 0.1, 0.2}, {0, 0, 0}, {0.1, 0.35, 0.15}};
                s[0] = h, s[1] = b, s[2] = a;
                for (int k = 0; k < 3; k++) {
                    s[k].a = sweep_v3_scale(s[k].a, scale), s[k].b = sweep_v3_scale(s[k].b, scale);
                    s[k].radii = sweep_v3_scale(s[k].radii, scale);
                }
                x->shapes = s, x->shape_count = t / 5 % 3 == 1 ? 2 : 3;
            }
        }
        for (uint32_t m = 0; m < movers; m++) {
            uint32_t len = sweep_movers_path_ticks(W->mv, m);
            poses[m] = sweep_movers_path_pose(W->mv, m, (uint32_t)((t * (m + 1)) % (len + 1)));
            assert_int_equal(sweep_movers_set_pose(W->mv, m, &poses[m]), SWEEP_OK);
        }
        assert_int_equal(sweep_history_push(W->h, t, e, n, poses, movers), SWEEP_OK);
    }
    assert_int_equal(sweep_history_span(W->h, &W->oldest, &W->newest), 1);
    assert_true(W->newest - W->oldest + 1 == CAPACITY);
}

static void world_free(world *W)
{
    sweep_history_destroy(W->h);
    sweep_movers_destroy(W->mv);
    sweep_world_destroy(W->w);
    sweep_level_free(&W->lv);
}

/* One random query's inputs. */
typedef struct qcase {
    sweep_query_space s;
    sweep_query_filter f;
    uint64_t ignore[3];
    sweep_vec3 from, to, radii;
    double radius;
} qcase;

static void qcase_make(const world *W, uint64_t *rs, qcase *c)
{
    static const uint32_t flags[] = {0,
                                     SWEEP_QUERY_LEVEL,
                                     SWEEP_QUERY_ENTITIES,
                                     SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS,
                                     SWEEP_QUERY_ALL | SWEEP_QUERY_BACK_FACES,
                                     SWEEP_QUERY_ALL | SWEEP_QUERY_ELLIPSOIDS,
                                     SWEEP_QUERY_MOVERS | SWEEP_QUERY_ENTITIES};
    uint64_t span = W->newest - W->oldest;
    uint64_t tick = W->oldest + rng_next(rs) % (span + 1);
    double fr = tick == W->newest || rng_next(rs) % 4 == 0 ? 0.0 : rng_unit(rs);
    c->s.world = W->w, c->s.movers = W->mv, c->s.history = W->h;
    c->s.at.tick = tick, c->s.at.fraction = fr;
    c->f.flags = flags[rng_next(rs) % (sizeof flags / sizeof flags[0])];
    c->f.ignore_count = (uint32_t)(rng_next(rs) % 4);
    for (uint32_t i = 0; i < c->f.ignore_count; i++)
        c->ignore[i] = 1000 + (rng_next(rs) % ENTITIES) * 3;
    c->f.ignore = c->ignore;
    sweep_vec3 span3 = sweep_v3_sub(W->hi, W->lo);
    c->from = rng_point(rs, W->lo, sweep_v3(W->hi.x, W->hi.y, W->hi.z + 2));
    /* Two in five aimed at an entity's position at some tick (often a
     * hit), one at a mover, the rest anywhere, long or short. */
    uint64_t k = rng_next(rs) % 5;
    if (k == 4 && W->mv->count > 0) {
        const sweep__mover *mo = &W->mv->m[rng_next(rs) % W->mv->count];
        sweep_vec3 target = sweep__pose_apply(&mo->pose, mo->local_center);
        c->to = sweep_v3_madd(c->from, sweep_v3_sub(target, c->from), 1.3);
        k = 5;
    }
    if (k < 2) {
        sweep__hist_at at;
        assert_int_equal(sweep__history_at(W->h, tick, 0.0, &at), SWEEP_OK);
        sweep_vec3 target = at.e0[rng_next(rs) % at.f0->count].position;
        sweep_vec3 dir = sweep_v3_sub(target, c->from);
        c->to = sweep_v3_madd(c->from, dir, k == 0 ? 1.5 : rng_range(rs, 0.2, 1.2));
    } else if (k == 2 || k == 4) { /* 4: a level without movers */
        c->to = rng_point(rs, W->lo, W->hi);
    } else if (k == 3) {
        double r = 0.05 * (span3.x + span3.y);
        c->to = sweep_v3_add(c->from, rng_point(rs, sweep_v3(-r, -r, -r), sweep_v3(r, r, r)));
    }
    double rad = rng_range(rs, 0.05, 0.6);
    c->radii = rng_next(rs) % 2 ? sweep_v3(rad, rad, rad) : sweep_v3(rad, rad * 0.7, rad * 1.6);
    c->radius = rng_range(rs, 0.0, 0.1 * (span3.x + span3.y));
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_hit(const sweep_query_hit *a, const sweep_query_hit *b)
{
    return a->kind == b->kind && a->triangle == b->triangle && a->material == b->material && a->mover == b->mover &&
           a->entity == b->entity && a->shape == b->shape && same_double(a->fraction, b->fraction) &&
           same_double(a->distance, b->distance) && sweep_v3_same_bits(a->point, b->point) &&
           sweep_v3_same_bits(a->normal, b->normal);
}

static void print_hit(const char *who, const sweep_query_hit *h)
{
    print_message("%s: kind %u tri %u mover %u entity %llu shape %u fraction %.17g\n", who, h->kind, h->triangle,
                  h->mover, (unsigned long long)h->entity, h->shape, h->fraction);
}

/* The queries of each kind: SWEEP_QUERY_PROPERTY_N, or dflt. */
static uint32_t property_n(uint32_t dflt)
{
    const char *e = getenv("SWEEP_QUERY_PROPERTY_N");
    long n = e ? strtol(e, NULL, 10) : 0;
    return n > 0 ? (uint32_t)n : dflt;
}

typedef struct tally {
    uint32_t hits[4]; /* by kind */
    uint32_t ray, all, los, sweep, overlap;
} tally;

/* Query i of a run: every kind asked, each answer the oracle's. */
static void check_case(const qcase *cp, uint32_t i, tally *t)
{
    qcase c = *cp;
    sweep_query_hit a, b;
    /* Ray. */
    assert_int_equal(sweep_query_ray(&c.s, c.from, c.to, &c.f, &a), SWEEP_OK);
    assert_int_equal(oracle_first(&c.s, c.from, c.to, NULL, &c.f, &b), SWEEP_OK);
    if (!same_hit(&a, &b)) {
        print_message("ray %u differs\n", i);
        print_hit("query", &a), print_hit("oracle", &b);
        fail();
    }
    t->hits[a.kind]++, t->ray++;
    if (a.kind != SWEEP_HIT_NONE)
        assert_true(fabs(sweep_v3_len2(a.normal) - 1.0) < 1e-12 &&
                    sweep_v3_dot(a.normal, sweep_v3_sub(c.to, c.from)) <= 0.0);
    /* Line of sight: clear exactly when the ray meets nothing. */
    int clear;
    assert_int_equal(sweep_query_line_of_sight(&c.s, c.from, c.to, &c.f, &clear), SWEEP_OK);
    assert_int_equal(clear, a.kind == SWEEP_HIT_NONE);
    t->los++;
    /* Every hit, at most 6. */
    sweep_query_hit ha[6], hb[6];
    uint32_t na, nb;
    int ma, mb;
    assert_int_equal(sweep_query_ray_all(&c.s, c.from, c.to, &c.f, ha, 6, &na, &ma), SWEEP_OK);
    assert_int_equal(oracle_all(&c.s, c.from, c.to, &c.f, hb, 6, &nb, &mb), SWEEP_OK);
    assert_int_equal(na, nb);
    assert_int_equal(ma, mb);
    for (uint32_t j = 0; j < na; j++)
        assert_true(same_hit(&ha[j], &hb[j]));
    if (na > 0)
        assert_true(same_hit(&ha[0], &a));
    t->all++;
    /* Sweep. */
    assert_int_equal(sweep_query_sweep(&c.s, c.from, c.to, c.radii, &c.f, &a), SWEEP_OK);
    assert_int_equal(oracle_first(&c.s, c.from, c.to, &c.radii, &c.f, &b), SWEEP_OK);
    if (!same_hit(&a, &b)) {
        print_message("sweep %u differs\n", i);
        print_hit("query", &a), print_hit("oracle", &b);
        fail();
    }
    t->sweep++;
    /* Overlap. */
    sweep_query_found fa[8], fb[8];
    assert_int_equal(sweep_query_overlap(&c.s, c.from, c.radius, &c.f, fa, 8, &na, &ma), SWEEP_OK);
    assert_int_equal(oracle_overlap(&c.s, c.from, c.radius, &c.f, fb, 8, &nb, &mb), SWEEP_OK);
    assert_int_equal(na, nb);
    assert_int_equal(ma, mb);
    for (uint32_t j = 0; j < na; j++)
        assert_true(fa[j].entity == fb[j].entity && same_double(fa[j].distance, fb[j].distance) &&
                    sweep_v3_same_bits(fa[j].point, fb[j].point));
    t->overlap += na;
}

static void check_world(world *W, uint64_t seed, uint32_t n, tally *t)
{
    uint64_t rs = seed;
    for (uint32_t i = 0; i < n; i++) {
        qcase c;
        qcase_make(W, &rs, &c);
        check_case(&c, i, t);
    }
}

#endif
