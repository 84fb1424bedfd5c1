/*
 * query_oracle.h - brute-force answers to the queries of core/query.h:
 * every level triangle, every mover triangle placed at its pose and every
 * entity, with no BVH, no frame or entity box and no mover ball, through
 * the same narrow tests (core/query_impl.h). A query equals its oracle bit
 * for bit exactly when its walks leave out nothing they should not.
 * Header-only, for tests/core/test_query.c and the corpus test.
 */
#ifndef SWEEP_TESTS_QUERY_ORACLE_H
#define SWEEP_TESTS_QUERY_ORACLE_H

#include <math.h>
#include <string.h>

#include "core/query_impl.h"

static void oracle_path(const sweep__qctx *q, sweep_vec3 o, sweep_vec3 d, const sweep_vec3 *radii, sweep__sink *k)
{
    int back = (q->flags & SWEEP_QUERY_BACK_FACES) != 0;
    sweep_vec3 inv = radii ? sweep__inverse_radii(*radii) : sweep_v3(1, 1, 1);
    if (q->flags & SWEEP_QUERY_LEVEL)
        for (uint32_t i = 0; i < q->world->tri_count && !k->done; i++) {
            if (radii)
                sweep__offer_sweep_tri(k, o, d, *radii, inv, &q->world->tris[i], SWEEP_HIT_LEVEL, SWEEP_NO_MOVER, back);
            else
                sweep__offer_ray_tri(k, o, d, &q->world->tris[i], SWEEP_HIT_LEVEL, SWEEP_NO_MOVER, back);
        }
    if ((q->flags & SWEEP_QUERY_MOVERS) && q->movers)
        for (uint32_t m = 0; m < q->movers->count && !k->done; m++) {
            const sweep__mover *mo = &q->movers->m[m];
            sweep_mover_pose pose = sweep__qctx_mover_pose(q, m);
            for (uint32_t i = 0; i < mo->tri_count && !k->done; i++) {
                sweep__tri t;
                sweep__place_tri(&pose, &mo->local[i], &t);
                if (radii)
                    sweep__offer_sweep_tri(k, o, d, *radii, inv, &t, SWEEP_HIT_MOVER, m, back);
                else
                    sweep__offer_ray_tri(k, o, d, &t, SWEEP_HIT_MOVER, m, back);
            }
        }
    if (!(q->flags & SWEEP_QUERY_ENTITIES) || !q->has_at)
        return;
    double grow = radii ? sweep__sweep_grow(*radii) : 0.0;
    sweep__hist_iter it;
    sweep__hist_ref ref;
    sweep__history_iter_begin(&it, &q->at);
    while (!k->done && sweep__history_iter_next(&it, &ref)) {
        sweep__hist_pose p;
        sweep__history_pose(&q->at, &ref, &p);
        if (sweep__ignored(q, p.id))
            continue;
        sweep__offer_entity(k, q, &p, o, d, grow);
    }
}

/* The oracle's hits of a path in a sink of this mode: what
 * sweep_query_ray, _sweep (FIRST) or _ray_all (ALL) keep. */
static sweep_status oracle_run(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, const sweep_vec3 *radii,
                               const sweep_query_filter *f, sweep__sink_mode mode, sweep_query_hit *hits,
                               uint32_t max, sweep__sink *k)
{
    sweep__qctx q;
    sweep_status st = sweep__qctx_init(s, f, &q);
    if (st != SWEEP_OK)
        return st;
    sweep__sink_init(k, mode, hits, max);
    oracle_path(&q, from, sweep_v3_sub(to, from), radii, k);
    double len = sweep_v3_len(sweep_v3_sub(to, from));
    for (uint32_t i = 0; i < k->count; i++)
        hits[i].distance = hits[i].fraction * len;
    return SWEEP_OK;
}

/* The oracle's first hit (kind NONE when none). */
static sweep_status oracle_first(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, const sweep_vec3 *radii,
                                 const sweep_query_filter *f, sweep_query_hit *hit)
{
    sweep__sink k;
    sweep_status st = oracle_run(s, from, to, radii, f, SWEEP__SINK_FIRST, hit, 1, &k);
    if (st == SWEEP_OK && k.count == 0) {
        memset(hit, 0, sizeof *hit);
        hit->kind = SWEEP_HIT_NONE, hit->triangle = SWEEP_NO_TRIANGLE, hit->mover = SWEEP_NO_MOVER;
        hit->shape = UINT32_MAX, hit->fraction = 1.0, hit->point = to;
        hit->distance = sweep_v3_len(sweep_v3_sub(to, from));
    }
    return st;
}

static sweep_status oracle_all(const sweep_query_space *s, sweep_vec3 from, sweep_vec3 to, const sweep_query_filter *f,
                               sweep_query_hit *hits, uint32_t max, uint32_t *count, int *more)
{
    sweep__sink k;
    sweep_status st = oracle_run(s, from, to, NULL, f, SWEEP__SINK_ALL, hits, max, &k);
    *count = k.count, *more = k.more;
    return st;
}

/* Entities within radius, nearest first, ties by id, with the view from
 * the centre met by the oracle's own path. */
static sweep_status oracle_overlap(const sweep_query_space *s, sweep_vec3 center, double radius,
                                   const sweep_query_filter *f, sweep_query_found *found, uint32_t max, uint32_t *count,
                                   int *more)
{
    sweep__qctx q;
    sweep_status st = sweep__qctx_init(s, f, &q);
    if (st != SWEEP_OK)
        return st;
    uint32_t n = 0;
    *more = 0;
    if (q.has_at) {
        sweep__hist_iter it;
        sweep__hist_ref ref;
        sweep__history_iter_begin(&it, &q.at);
        while (sweep__history_iter_next(&it, &ref))
            sweep__overlap_entity(&q, &ref, center, radius, oracle_path, found, max, &n, more);
    }
    *count = n;
    return SWEEP_OK;
}

#endif
