/*
 * outcomes.c - what the world library's requests and ticks cause, turned
 * into what sweepd does: sends to sessions (send.c) and, while the world
 * records, the session log's records (recorder.c).
 *
 * A request's sink knows the peer it answers (the session's connection or
 * UDP address, with the datagram's byte budget); a message for another
 * owner (a crushed entity's Despawned) goes to that session's own peer.
 * An Error is counted (Stats.errors_by_code) where it leaves. A result
 * batch (MoveResultBatch, EntityCommandsResult) is split to the transport
 * here (send.c): the world hands it over whole.
 */
#include <stddef.h>
#include <string.h>

#include "server/record/record.h"
#include "server/server_impl.h"

/* One request's or tick's context. */
typedef struct outcome {
    sweep_server *s;
    sweep__served *w;
    sweep__peer *p; /* the peer answered; NULL on a tick */
    int record;     /* a recorded request or a tick of a recording world */
    uint64_t t0;    /* a Move or MoveBatch: when it began, until its answer (Stats.move_ns_total) */
    uint64_t arrived; /* ... and when it arrived (p->now), until its answer is queued (move_latency) */
} outcome;

static sweep__session *session_of(sweep__owner *o)
{
    return (sweep__session *)((char *)o - offsetof(sweep__session, own));
}

static void on_message(void *ctx, sweep__owner *to, const sweep_message *m)
{
    outcome *oc = ctx;
    sweep_server *s = oc->s;
    sweep__session *ss = session_of(to);
    sweep__peer pushed;
    sweep__peer *p = oc->p;
    if (!p || p->session != ss) {
        pushed = sweep__session_peer(ss);
        p = &pushed;
    }
    p->record = oc->record;
    int answer = oc->t0 && (m->kind == SWEEP_MSG_MOVE_RESULT || m->kind == SWEEP_MSG_MOVE_RESULT_BATCH);
    if (answer) {
        /* The moves' time, answers not included: two clock readings a
         * request, not a move. */
        s->stats.move_ns_total += uv_hrtime() - oc->t0;
        oc->t0 = 0;
    }
    /* Move results are recorded once (a RESULTS record, beside their
     * MOVE records), not as the bytes sent. */
    if (p->record && (m->kind == SWEEP_MSG_MOVE_RESULT || m->kind == SWEEP_MSG_MOVE_RESULT_BATCH) && oc->w->rec) {
        sweep__record_results(oc->w, ss->id, m);
        p->record = 0;
    }
    if (m->kind == SWEEP_MSG_MOVE_RESULT_BATCH || m->kind == SWEEP_MSG_ENTITY_COMMANDS_RESULT ||
        m->kind == SWEEP_MSG_QUERY_RESULT)
        sweep__send_results(s, p, m);
    else
        sweep__send(s, p, m);
    /* The latency a client sees of the server: from the request's arrival
     * (its receive batch's clock reading over UDP, its frame's dispatch
     * over TCP) to its answer queued, the catch-up ticks, the moves and
     * the encoding included; one more clock reading a request. */
    if (answer && oc->arrived)
        sweep__histogram_observe(&oc->w->move_latency, uv_hrtime() - oc->arrived);
}

static void on_move(void *ctx, const sweep__owner *o, const sweep_msg_move *mv, const sweep_msg_move_result *res)
{
    outcome *oc = ctx;
    if (oc->record && oc->w->rec)
        sweep__record_move(oc->w, o->id, mv, res);
}

static void on_entity_id(void *ctx, uint32_t id)
{
    outcome *oc = ctx;
    if (oc->record && oc->w->rec)
        sweep__record_id(oc->w, id);
}

static void on_dropped(void *ctx)
{
    outcome *oc = ctx;
    if (oc->w->rec)
        sweep__record_drop_request(oc->w);
    /* What is sent from here on (the Error) is not the log's either. */
    oc->record = 0;
}

static void on_tick(void *ctx, uint64_t tick)
{
    outcome *oc = ctx;
    (void)tick; /* the world's own, which the record reads */
    if (oc->w->rec)
        sweep__record_tick(oc->w);
}

static void on_entities(void *ctx, int delta)
{
    outcome *oc = ctx;
    sweep__entity_mem_count(oc->s, delta);
}

static int on_mem_fits(void *ctx, size_t more, char *why, size_t whylen)
{
    outcome *oc = ctx;
    return sweep__mem_fits(oc->s, more, why, whylen);
}

/* SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", 2014): one well-mixed output per counter value. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint32_t on_draw_id(void *ctx)
{
    outcome *oc = ctx;
    uint32_t id = 0;
    uint64_t seed = oc->s->opt.seed;
    if (seed) {
        /* --seed: the world's n-th draw is the same in every run, and
         * worlds of one seed draw apart. */
        while (id == 0)
            id = (uint32_t)(splitmix64(seed ^ splitmix64(((uint64_t)oc->w->id << 40) + oc->w->id_draws++)) >> 32);
        return id;
    }
    if (uv_random(NULL, NULL, &id, sizeof id, 0, NULL) != 0)
        return 0;
    return id;
}

static const sweep__world_sink sink_proto = {on_message, on_move, on_entity_id, on_dropped, on_tick,
                                             on_entities, on_mem_fits, on_draw_id, NULL};

void sweep__world_apply(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    sweep__served *w = ss->world;
    int moves = m->kind == SWEEP_MSG_MOVE || m->kind == SWEEP_MSG_MOVE_BATCH;
    outcome oc = {s, w, p, p->record, moves ? uv_hrtime() : 0, moves ? p->now : 0};
    sweep__world_sink sink = sink_proto;
    sink.ctx = &oc;
    /* sweep__dispatch read the clock for the world's catch-up: the rule
     * lines' rate counts from the same reading. */
    sweep__request rq = {&ss->own, &sink, p->now ? p->now : uv_hrtime(), NULL, 0};
    sweep__world_request(w->world, &rq, m);
    p->record = 0;
}

void sweep__served_tick(sweep__served *w)
{
    outcome oc = {w->server, w, NULL, w->rec != NULL, 0, 0};
    sweep__world_sink sink = sink_proto;
    sink.ctx = &oc;
    sweep__world_tick(w->world, &sink);
}
