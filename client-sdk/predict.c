/*
 * predict.c - prediction, rewind and replay over the core (predict.h), and
 * the map check against Welcome.
 *
 * Comparisons are of bit patterns (memcmp of the doubles), never of values
 * within a tolerance: the whole point is that client and server compute the
 * same bits, and a tolerance would hide a map or build mismatch until it
 * grows into a visible desync.
 */
#include "client-sdk/predict.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/content_hash.h"

void sweep_predictor_init(sweep_predictor *p, const sweep_world *world, const sweep_config *cfg,
                          sweep_vec3 position, sweep_vec3 radii)
{
    memset(p, 0, sizeof *p);
    p->world = world;
    p->config = *cfg;
    p->radii = radii;
    p->confirmed.position = position;
}

void sweep_predictor_free(sweep_predictor *p)
{
    if (p == NULL)
        return;
    free(p->pending);
    p->pending = NULL;
    p->count = p->cap = 0;
}

sweep_status sweep_predict_run(const sweep_world *world, const sweep_config *cfg, sweep_vec3 radii,
                               sweep_predict_state *s, sweep_vec3 velocity, double dt, sweep_move_result *out)
{
    sweep_move_input in = {
        .position = s->position,
        .radii = radii,
        .velocity = velocity,
        .dt = dt,
        .flags = s->grounded ? SWEEP_INPUT_GROUNDED : 0,
    };
    sweep_move_result r;
    sweep_status st = sweep_move(world, cfg, &in, &r);
    if (st != SWEEP_OK)
        return st;
    s->position = r.position;
    s->velocity = r.velocity;
    s->grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
    if (out)
        *out = r;
    return SWEEP_OK;
}

sweep_predict_state sweep_predictor_current(const sweep_predictor *p)
{
    return p->count ? p->pending[p->count - 1].predicted : p->confirmed;
}

sweep_status sweep_predictor_step(sweep_predictor *p, uint32_t sequence, sweep_vec3 velocity, double dt,
                                  sweep_move_result *out)
{
    if (p == NULL)
        return SWEEP_E_ARG;
    if (p->count == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 64;
        sweep_predict_pending *n = realloc(p->pending, (size_t)cap * sizeof *n);
        if (n == NULL)
            return SWEEP_E_NOMEM;
        p->pending = n;
        p->cap = cap;
    }
    sweep_predict_state s = sweep_predictor_current(p);
    sweep_status st = sweep_predict_run(p->world, &p->config, p->radii, &s, velocity, dt, out);
    if (st != SWEEP_OK)
        return st;
    sweep_predict_pending *e = &p->pending[p->count++];
    e->sequence = sequence;
    e->velocity = velocity;
    e->dt = dt;
    e->predicted = s;
    p->predicted_moves++;
    return SWEEP_OK;
}

static int same_bits(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

int sweep_predict_state_equal(const sweep_predict_state *s, const sweep_msg_move_result *r)
{
    return same_bits(s->position, r->position) && same_bits(s->velocity, r->velocity) &&
           (s->grounded != 0) == (r->grounded != 0);
}

/* Recomputes pending[from ..) on top of `confirmed`. A move the core now
 * refuses (it cannot, with the same inputs, but a rewind may have moved the
 * body somewhere odd) keeps the state unchanged, as the server's Error
 * would. */
static uint32_t replay(sweep_predictor *p, uint32_t from)
{
    sweep_predict_state s = from ? p->pending[from - 1].predicted : p->confirmed;
    for (uint32_t i = from; i < p->count; i++) {
        (void)sweep_predict_run(p->world, &p->config, p->radii, &s, p->pending[i].velocity, p->pending[i].dt,
                                NULL);
        p->pending[i].predicted = s;
    }
    p->replayed_moves += p->count - from;
    return p->count - from;
}

/* Index of the pending move numbered seq, or count if none. */
static uint32_t find(const sweep_predictor *p, uint32_t seq)
{
    for (uint32_t i = 0; i < p->count; i++)
        if (p->pending[i].sequence == seq)
            return i;
    return p->count;
}

/* Drops pending[0 .. n). */
static void drop_front(sweep_predictor *p, uint32_t n)
{
    assert(n <= p->count);
    memmove(p->pending, p->pending + n, (size_t)(p->count - n) * sizeof *p->pending);
    p->count -= n;
}

sweep_status sweep_predictor_ack(sweep_predictor *p, const sweep_msg_move_result *r, sweep_predict_ack *info)
{
    sweep_predict_ack a = {0};
    if (p == NULL || r == NULL)
        return SWEEP_E_ARG;
    uint32_t i = find(p, r->sequence);
    if (i < p->count) {
        a.found = 1;
        a.dropped = i;
        /* Moves before it were never answered: the server has not applied
         * them, so its answer is the truth and the prediction must follow. */
        a.mismatch = i > 0 || !sweep_predict_state_equal(&p->pending[i].predicted, r);
        p->confirmed.position = r->position;
        p->confirmed.velocity = r->velocity;
        p->confirmed.grounded = r->grounded;
        drop_front(p, i + 1);
        if (a.mismatch) {
            p->mismatches++;
            a.replayed = replay(p, 0);
        } else {
            p->acks_matched++;
        }
    }
    if (info)
        *info = a;
    return SWEEP_OK;
}

sweep_status sweep_predictor_reject(sweep_predictor *p, uint32_t sequence, sweep_predict_ack *info)
{
    sweep_predict_ack a = {0};
    if (p == NULL)
        return SWEEP_E_ARG;
    uint32_t i = find(p, sequence);
    if (i < p->count) {
        a.found = 1;
        a.mismatch = 1;
        memmove(p->pending + i, p->pending + i + 1, (size_t)(p->count - i - 1) * sizeof *p->pending);
        p->count--;
        p->rejected++;
        a.replayed = replay(p, i);
    }
    if (info)
        *info = a;
    return SWEEP_OK;
}

sweep_client_status sweep_client_check_map(const sweep_client *c, const sweep_level *lv, sweep_client_error *err)
{
    sweep_content_hash h;
    if (c == NULL || lv == NULL || sweep_level_content_hash(lv, &h) != SWEEP_OK) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->status = SWEEP_CLIENT_E_ARG;
            snprintf(err->message, sizeof err->message, "cannot hash the local map");
        }
        return SWEEP_CLIENT_E_ARG;
    }
    const sweep_client_welcome *w = sweep_client_get_welcome(c);
    if (w->map_hash_len == sizeof h.bytes && memcmp(w->map_hash, h.bytes, sizeof h.bytes) == 0) {
        if (err)
            memset(err, 0, sizeof *err);
        return SWEEP_CLIENT_OK;
    }
    if (err) {
        char local[2 * SWEEP_SHA256_SIZE + 1], remote[2 * 32 + 1];
        sweep_content_hash_hex(&h, local);
        for (uint32_t i = 0; i < w->map_hash_len; i++)
            snprintf(remote + 2 * i, 3, "%02x", w->map_hash[i]);
        remote[2 * w->map_hash_len] = '\0';
        memset(err, 0, sizeof *err);
        err->status = SWEEP_CLIENT_E_MAP_MISMATCH;
        snprintf(err->message, sizeof err->message, "server map '%.40s' hash %.64s, local map hash %.64s", w->map_name,
                 remote, local);
    }
    return SWEEP_CLIENT_E_MAP_MISMATCH;
}
