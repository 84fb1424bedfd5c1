/*
 * honest_sim.h - honest players against the world library through a bad
 * network, in simulated time: no socket, no clock, the same run for the
 * same seed, so a test can ask for 100,000 moves and none flagged, and
 * the benchmark (tests/bench/bench_authority.c) can report it.
 *
 * Each bot is a player of the world as sweep-bots' honest mode plays
 * (client-sdk/bots/run.c): a move every 1/60 s asking 1/60 s, its wish
 * computed the natural way, walk_speed * (cos a, sin a), along a heading
 * that turns a little every move, and jump about once a second while its
 * prediction has stood for six moves; every move predicted with libsweep's
 * predictor (client-sdk/predict.h) and its predicted position claimed;
 * every answer taken by the predictor. Each datagram carries the move and
 * the bot's last `redundancy` unanswered ones as one MoveBatch, as
 * libsweep's redundancy does. The network is sweep-bots' (netem.h), both
 * ways: a datagram is lost with probability `loss`, else delayed by
 * latency_ms and a uniform [0, jitter_ms], and with probability `reorder` 20 to 40 ms more,
 * so that later ones overtake it; with a stall, what is sent during it
 * (either way) is held until its end, as a network that stalls does (a
 * TCP retransmission, a Wi-Fi hiccup). The world ticks at its rate; a datagram
 * arriving meets the ticks due by then, as sweepd runs them.
 *
 * What the server flagged is read from the world itself: every rule it
 * named on any move or spawn (Correction, Jump, Speed, TimeBudget, ...),
 * counted in its own counters.
 *
 * Header-only (static functions): the test and the benchmark include it.
 */
#ifndef SWEEP_TESTS_WORLD_HONEST_SIM_H
#define SWEEP_TESTS_WORLD_HONEST_SIM_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/predict.h"
#include "server/world/world.h"

#define HS_RING 64u      /* moves a bot remembers until answered */
#define HS_MAX_CARRY 8u  /* most moves one datagram carries */

typedef struct hs_options {
    uint32_t bots;
    uint32_t moves;      /* each bot sends this many */
    double loss;         /* per datagram, each way */
    double jitter_ms;
    double latency_ms;   /* each way, before the jitter: a round trip of twice this */
    double reorder;
    uint32_t redundancy; /* earlier unanswered moves each datagram carries too, < HS_MAX_CARRY */
    double stall_at, stall; /* seconds: what is sent in [stall_at, stall_at + stall) is held until its end */
    int in_order;        /* each bot's datagrams arrive in the order sent, either way (as over TCP) */
    uint64_t seed;
} hs_options;

typedef struct hs_report {
    uint64_t sent;       /* moves the bots sent (once each) */
    uint64_t applied;    /* moves the world applied */
    uint64_t answered;   /* moves whose answer reached their bot */
    uint64_t flagged;    /* rules the world named, all kinds, spawns included */
    uint64_t rules[SWEEP_WIRE_RULE_COUNT];
    uint64_t lost;       /* moves never applied (every copy lost or overtaken) */
    uint64_t jumps;      /* jumps pressed */
    uint64_t datagrams, dropped, reordered;
    char error[400];     /* set when the run could not be made */
} hs_report;

/* One datagram on its way, either way. */
typedef struct hs_event {
    double at;           /* seconds */
    uint64_t order;      /* ties keep their order */
    uint32_t bot;
    int kind;            /* HS_SEND, HS_UP (moves to the world), HS_DOWN (results to the bot) */
    uint32_t count;
    sweep_msg_move moves[HS_MAX_CARRY];
    sweep_msg_move_result *results; /* HS_DOWN: count of them */
} hs_event;

enum { HS_SEND, HS_UP, HS_DOWN };

typedef struct hs_bot {
    sweep__owner owner;
    uint32_t entity;
    sweep_predictor *pred;
    uint32_t next_seq;
    sweep_msg_move ring[HS_RING];  /* sent moves by sequence % HS_RING */
    uint8_t unanswered[HS_RING];
    uint8_t answered[HS_RING];
    double heading, turn;          /* degrees, and degrees a move */
    uint32_t grounded_run, last_jump;
    double last_up, last_down;     /* when its last datagram arrived, each way (in_order) */
} hs_bot;

typedef struct hs_sim {
    hs_options o;
    hs_report *rep;
    sweep__world *w;
    hs_bot *bots;
    hs_event **heap;
    uint32_t heap_n, heap_cap;
    uint64_t order, rng;
    uint32_t reply_bot;            /* whose request the sink answers */
    double now;                    /* seconds: the event being handled */
    int failed;                    /* out of memory, or an Error answered */
} hs_sim;

/* Uniform in [0, 1): splitmix64, the top 53 bits. */
static inline double hs_draw(hs_sim *s)
{
    uint64_t z = (s->rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static inline int hs_before(const hs_event *a, const hs_event *b)
{
    return a->at < b->at || (a->at == b->at && a->order < b->order);
}

static inline int hs_push(hs_sim *s, hs_event *e)
{
    if (s->heap_n == s->heap_cap) {
        uint32_t cap = s->heap_cap ? 2 * s->heap_cap : 256;
        hs_event **h = realloc(s->heap, cap * sizeof *h);
        if (!h)
            return -1;
        s->heap = h;
        s->heap_cap = cap;
    }
    e->order = s->order++;
    uint32_t i = s->heap_n++;
    while (i > 0 && hs_before(e, s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = e;
    return 0;
}

static inline hs_event *hs_pop(hs_sim *s)
{
    hs_event *top = s->heap[0], *last = s->heap[--s->heap_n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= s->heap_n)
            break;
        if (c + 1 < s->heap_n && hs_before(s->heap[c + 1], s->heap[c]))
            c++;
        if (!hs_before(s->heap[c], last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->heap_n)
        s->heap[i] = last;
    return top;
}

/* The network: a datagram sent at `at` arrives when this says, or never
 * (-1), by netem.h's model. */
static inline double hs_network(hs_sim *s, double at, double *last)
{
    s->rep->datagrams++;
    if (hs_draw(s) < s->o.loss) {
        s->rep->dropped++;
        return -1.0;
    }
    double ms = s->o.latency_ms + hs_draw(s) * s->o.jitter_ms;
    if (hs_draw(s) < s->o.reorder) {
        ms += 20.0 + 20.0 * hs_draw(s);
        s->rep->reordered++;
    }
    if (at >= s->o.stall_at && at < s->o.stall_at + s->o.stall)
        at = s->o.stall_at + s->o.stall;
    at += ms / 1000.0;
    if (s->o.in_order) {
        at = at > *last ? at : *last;
        *last = at;
    }
    return at;
}

/* The world's answer to a bot's datagram goes back over the network. */
static inline void hs_on_message(void *ctx, sweep__owner *to, const sweep_message *m)
{
    hs_sim *s = ctx;
    (void)to;
    const sweep_msg_move_result *r = NULL;
    uint32_t n = 0;
    if (m->kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
        r = m->as.move_result_batch.results;
        n = m->as.move_result_batch.count;
    } else if (m->kind == SWEEP_MSG_MOVE_RESULT) {
        r = &m->as.move_result;
        n = 1;
    } else if (m->kind == SWEEP_MSG_ERROR) {
        snprintf(s->rep->error, sizeof s->rep->error, "bot %u was answered an Error %s: %.*s", s->reply_bot,
                 sweep_wire_code_name(m->as.error.code), (int)m->as.error.message.len, m->as.error.message.ptr);
        s->failed = 1;
        return;
    }
    if (n == 0)
        return;
    double at = hs_network(s, s->now, &s->bots[s->reply_bot].last_down);
    if (at < 0.0)
        return;
    hs_event *e = calloc(1, sizeof *e);
    sweep_msg_move_result *copy = e ? malloc(n * sizeof *copy) : NULL;
    if (copy) {
        memcpy(copy, r, n * sizeof *copy);
        e->at = at;
        e->bot = s->reply_bot;
        e->kind = HS_DOWN;
        e->count = n;
        e->results = copy;
    }
    if (!copy || hs_push(s, e) != 0) {
        free(copy);
        free(e);
        s->failed = 1;
    }
}

static inline sweep__world_sink hs_sink(hs_sim *s)
{
    sweep__world_sink k;
    memset(&k, 0, sizeof k);
    k.message = hs_on_message;
    k.ctx = s;
    return k;
}

/* Bot b sends its next move at s->now: predicted, claimed, and carried
 * with its last unanswered ones. */
static inline void hs_send(hs_sim *s, uint32_t b)
{
    hs_bot *bot = &s->bots[b];
    const sweep_rules *rules = &s->w->level.rules;
    const double dt = 1.0 / 60.0;
    uint32_t seq = bot->next_seq++;
    bot->heading = fmod(bot->heading + bot->turn, 360.0);
    double a = bot->heading * (3.14159265358979323846 / 180.0);
    sweep_wish wish = {sweep_v3(rules->walk_speed * cos(a), rules->walk_speed * sin(a), 0), 0};
    sweep_predict_state now = sweep_predictor_current(bot->pred);
    bot->grounded_run = now.grounded ? bot->grounded_run + 1 : 0;
    if (bot->grounded_run >= 6 && seq >= bot->last_jump + 60) {
        wish.buttons = SWEEP_WISH_JUMP;
        bot->last_jump = seq;
        s->rep->jumps++;
    }
    sweep_client_error err;
    if (sweep_predictor_step(bot->pred, seq, &wish, dt, NULL, &err) != SWEEP_CLIENT_OK) {
        snprintf(s->rep->error, sizeof s->rep->error, "bot %u: prediction failed: %.300s", b, err.message);
        s->failed = 1;
        return;
    }
    sweep_msg_move *mv = &bot->ring[seq % HS_RING];
    memset(mv, 0, sizeof *mv);
    mv->entity = bot->entity;
    mv->sequence = seq;
    mv->velocity = wish.velocity;
    mv->buttons = wish.buttons;
    mv->dt = dt;
    mv->has_claimed_position = true;
    mv->claimed_position = sweep_predictor_current(bot->pred).position;
    mv->mode = SWEEP_WIRE_MODE_WALK;
    bot->unanswered[seq % HS_RING] = 1;
    bot->answered[seq % HS_RING] = 0;
    s->rep->sent++;

    hs_event *e = calloc(1, sizeof *e);
    if (!e) {
        s->failed = 1;
        return;
    }
    /* The last unanswered moves before it, oldest first, then it. */
    uint32_t carry[HS_MAX_CARRY], nc = 0;
    for (uint32_t back = 1; back < HS_RING && back < seq && nc < s->o.redundancy && nc + 1 < HS_MAX_CARRY; back++)
        if (bot->unanswered[(seq - back) % HS_RING])
            carry[nc++] = (seq - back) % HS_RING;
    while (nc > 0)
        e->moves[e->count++] = bot->ring[carry[--nc]];
    e->moves[e->count++] = *mv;
    e->at = hs_network(s, s->now, &bot->last_up);
    e->bot = b;
    e->kind = HS_UP;
    if (e->at < 0.0) {
        free(e); /* lost on the way */
    } else if (hs_push(s, e) != 0) {
        free(e);
        s->failed = 1;
        return;
    }
    /* Its next move, a frame later. */
    if (bot->next_seq <= s->o.moves) {
        hs_event *n = calloc(1, sizeof *n);
        if (n) {
            n->at = s->now + dt;
            n->bot = b;
            n->kind = HS_SEND;
        }
        if (!n || hs_push(s, n) != 0) {
            free(n);
            s->failed = 1;
        }
    }
}

/* Bot b takes the answers of one datagram. */
static inline void hs_take(hs_sim *s, uint32_t b, const hs_event *e)
{
    hs_bot *bot = &s->bots[b];
    for (uint32_t i = 0; i < e->count; i++) {
        const sweep_msg_move_result *r = &e->results[i];
        uint32_t k = r->sequence % HS_RING;
        if (bot->ring[k].sequence == r->sequence && !bot->answered[k]) {
            bot->answered[k] = 1;
            s->rep->answered++;
        }
        /* The world applies moves in order: those before it are answered
         * or lost for good, and worth no more copies (as libsweep). */
        for (uint32_t k2 = 0; k2 < HS_RING; k2++)
            if (bot->ring[k2].sequence <= r->sequence)
                bot->unanswered[k2] = 0;
        sweep_predict_ack ack;
        sweep_predictor_ack(bot->pred, r, &ack, NULL);
    }
}

/* Runs the bots of o on the map at `map` (the arena) to the end; *rep
 * says what happened (rep->error set: the run could not be made). */
static inline void hs_run(const char *map, const hs_options *o, hs_report *rep)
{
    memset(rep, 0, sizeof *rep);
    hs_sim s;
    memset(&s, 0, sizeof s);
    s.o = *o;
    s.rep = rep;
    s.rng = o->seed ? o->seed : 1;
    if (s.o.redundancy >= HS_MAX_CARRY)
        s.o.redundancy = HS_MAX_CARRY - 1;
    /* sweepd's defaults for what the players meet. */
    sweep__world_options wo = {.tick_rate = 0, .time_bank = 0.25, .max_entities = 8, .max_entities_server = 8,
                               .max_batch = 64};
    char err[600] = "";
    /* What it names is counted, not read from the log. */
    sweep__log_set_level(SWEEP_LOG_ERROR);
    s.w = sweep__world_open(map, &wo, 0, err, sizeof err);
    if (!s.w) {
        snprintf(rep->error, sizeof rep->error, "%.150s: %.240s", map, err);
        return;
    }
    s.bots = calloc(o->bots ? o->bots : 1, sizeof *s.bots);
    sweep__world_sink sink = hs_sink(&s);
    for (uint32_t b = 0; s.bots && b < o->bots && !s.failed; b++) {
        hs_bot *bot = &s.bots[b];
        sweep__owner_init(&bot->owner, s.w, 1 + b, SWEEP_WIRE_ROLE_PLAYER, 1, 64, "honest", 6, 0);
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_SPAWN;
        m.sequence = 1;
        const uint32_t id = 0x10000u + b;
        sweep__request rq = {&bot->owner, &sink, 0, &id, 1};
        s.reply_bot = b;
        sweep__world_request(s.w, &rq, &m);
        const sweep__entity *en = sweep__world_entity(s.w, &bot->owner, id);
        sweep_client_error ce;
        if (!en || sweep_predictor_create(s.w->world, &s.w->level.config, &s.w->level.rules, en->st.m.actor.position,
                                          en->st.m.radii, &bot->pred, &ce) != SWEEP_CLIENT_OK) {
            snprintf(rep->error, sizeof rep->error, "bot %u could not spawn and predict", b);
            s.failed = 1;
            break;
        }
        bot->entity = id;
        bot->next_seq = 1;
        bot->heading = 360.0 * hs_draw(&s);
        bot->turn = (0.3 + 1.2 * hs_draw(&s)) * (hs_draw(&s) < 0.5 ? -1.0 : 1.0);
        hs_event *e = calloc(1, sizeof *e);
        if (e) {
            e->at = hs_draw(&s) / 60.0;
            e->bot = b;
            e->kind = HS_SEND;
        }
        if (!e || hs_push(&s, e) != 0) {
            free(e);
            s.failed = 1;
        }
    }
    if (!s.bots)
        s.failed = 1;
    const double period = 1.0 / s.w->tick_rate;
    while (s.heap_n && !s.failed) {
        hs_event *e = hs_pop(&s);
        s.now = e->at;
        /* The ticks due by then first, as sweepd runs them. */
        while ((double)(s.w->tick + 1) * period <= s.now)
            sweep__world_tick(s.w, &sink);
        if (e->kind == HS_SEND) {
            hs_send(&s, e->bot);
        } else if (e->kind == HS_UP) {
            sweep_message m;
            memset(&m, 0, sizeof m);
            m.kind = SWEEP_MSG_MOVE_BATCH;
            m.as.move_batch.moves = e->moves;
            m.as.move_batch.count = e->count;
            sweep__request rq = {&s.bots[e->bot].owner, &sink, (uint64_t)(s.now * 1e9), NULL, 0};
            s.reply_bot = e->bot;
            sweep__world_request(s.w, &rq, &m);
        } else {
            hs_take(&s, e->bot, e);
        }
        free(e->results);
        free(e);
    }
    rep->applied = s.w->counts.moves_total;
    rep->lost = rep->sent > rep->applied ? rep->sent - rep->applied : 0;
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++) {
        rep->rules[i] = s.w->counts.rules_total[i];
        rep->flagged += rep->rules[i];
    }
    if (s.failed && !rep->error[0])
        snprintf(rep->error, sizeof rep->error, "out of memory");
    while (s.heap_n) {
        hs_event *e = hs_pop(&s);
        free(e->results);
        free(e);
    }
    free(s.heap);
    for (uint32_t b = 0; s.bots && b < o->bots; b++) {
        sweep_predictor_destroy(s.bots[b].pred);
        if (s.bots[b].entity)
            sweep__owner_release(&s.bots[b].owner, NULL);
    }
    free(s.bots);
    sweep__world_close(s.w);
}
#endif
