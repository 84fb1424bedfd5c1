/*
 * queries.c - Query: questions of the world as it is or as it was (ray,
 * every hit of a ray, line of sight, swept ellipsoid, overlap), many in
 * one message, answered in order in one QueryResult. The arithmetic is
 * the core's (core/query.h) over the world's pose history (history.c);
 * here is what the wire asks of it and who may ask what.
 *
 * Each item is answered on its own: a refused one (its code and why in
 * its answer) does not stop the others; only a message of more items than
 * the owner's max_batch is refused whole (BatchTooLarge, as a MoveBatch).
 * In the order checked:
 *
 *   RateLimited   a player owner's items are paid from a bucket credited
 *                 by the world's ticks (query_rate items a second, a
 *                 second's worth at most): ticks, not a clock, so a
 *                 replay refuses the same items;
 *   NotAllowed    an unknown kind, more than SWEEP_WIRE_QUERY_IGNORE_MAX
 *                 ignored entities, a filter bit that is no QueryFilter;
 *   BadNumber     a fraction outside [0, 1), a NaN or infinite number;
 *   InFuture      a time after the newest frame;
 *   TooOld        a time before the oldest frame, or a player's more than
 *                 the rewind cap before the newest (the server role may
 *                 ask anything the history keeps);
 *   UnknownEntity an entity endpoint that does not exist now (a player's
 *                 must be its own, answered as for any unknown id, so
 *                 other owners' ids are not probed);
 *   the core's    BadPosition for an endpoint (or an Overlap's centre)
 *                 beyond SWEEP_QUERY_MAX_COORDINATE; BadRadii for a
 *                 Sweep's radii outside the range core/query.h gives or
 *                 an Overlap's radius below zero.
 *
 * Time: tick 0 asks the newest frame (its fraction is not read); else a
 * kept tick plus a fraction of the way to the next one. Entity endpoints
 * are where the entity was at that time plus the item's offset (a shooter
 * fires from where it stood when it fired, as what it fires at is
 * rewound; one spawned since fires from where it is now), and the
 * from-entity is never hit (nor, for LineOfSight, the to-entity).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/query.h"
#include "server/world/world_impl.h"

/* The core's flags, as the wire's QueryFilter spells them. */
_Static_assert(SWEEP_QUERY_LEVEL == 1 && SWEEP_QUERY_MOVERS == 2 && SWEEP_QUERY_ENTITIES == 4 &&
                   SWEEP_QUERY_BACK_FACES == 8 && SWEEP_QUERY_ELLIPSOIDS == 16,
               "QueryFilter in sweep.fbs must equal the core's SWEEP_QUERY_* bits");
_Static_assert(SWEEP_WIRE_QUERY_IGNORE_MAX + 2 <= SWEEP_QUERY_IGNORE_MAX,
               "the core must take a wire item's ignored entities and its two endpoints");

#define FILTER_BITS (SWEEP_QUERY_ALL | SWEEP_QUERY_BACK_FACES | SWEEP_QUERY_ELLIPSOIDS)

/* One item's answer being filled, and the room for its message and hits. */
typedef struct item {
    sweep__world *w;
    const sweep__request *rq;
    sweep_msg_query_answer *out;
    char *text;
    sweep_wire_query_hit *hits; /* SWEEP_WIRE_QUERY_HITS_MAX */
} item;

static void refuse(item *it, sweep_wire_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(item *it, sweep_wire_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->text, SWEEP__COMMAND_TEXT, fmt, ap);
    va_end(ap);
    it->out->code = code;
    it->out->message = sweep_str_of(it->text);
    it->out->hit_count = 0;
    it->out->hits = NULL;
}

/* A player owner's bucket, credited up to the world's tick: 1 and one
 * item paid, or 0. */
static int pay(sweep__world *w, sweep__owner *o)
{
    double rate = w->opt.query_rate;
    if (o->role == SWEEP_WIRE_ROLE_SERVER || !(rate > 0.0))
        return 1;
    double burst = rate > 1.0 ? rate : 1.0;
    if (w->tick > o->query_tick) {
        o->query_tokens += (double)(w->tick - o->query_tick) * rate * w->period_s;
        if (o->query_tokens > burst)
            o->query_tokens = burst;
        o->query_tick = w->tick;
    }
    if (o->query_tokens < 1.0)
        return 0;
    o->query_tokens -= 1.0;
    return 1;
}

void sweep__owner_queries_init(sweep__owner *o, const sweep__world *w)
{
    double rate = w->opt.query_rate;
    o->query_tokens = rate > 1.0 ? rate : 1.0;
    o->query_tick = w->tick;
}

/* The time asked, checked against the history and the owner's cap: 0 with
 * *at, or -1 after refusing the item. */
static int time_of(item *it, const sweep_msg_query_item *q, sweep_query_time *at)
{
    const sweep__world *w = it->w;
    uint64_t oldest = 0, newest = 0;
    if (!w->history || !sweep_history_span(w->history, &oldest, &newest)) {
        refuse(it, SWEEP_WIRE_TOO_OLD, "the world keeps no poses yet");
        return -1;
    }
    if (q->tick == 0) {
        at->tick = newest;
        at->fraction = 0.0;
        return 0;
    }
    if (!(q->fraction >= 0.0 && q->fraction < 1.0)) {
        refuse(it, SWEEP_WIRE_BAD_NUMBER, "fraction %g is not in [0, 1)", q->fraction);
        return -1;
    }
    if (q->tick > newest || (q->tick == newest && q->fraction > 0.0)) {
        refuse(it, SWEEP_WIRE_IN_FUTURE, "tick %llu + %g is after the newest tick %llu",
               (unsigned long long)q->tick, q->fraction, (unsigned long long)newest);
        return -1;
    }
    if (q->tick < oldest) {
        refuse(it, SWEEP_WIRE_TOO_OLD, "tick %llu is older than the history keeps (ticks %llu to %llu)",
               (unsigned long long)q->tick, (unsigned long long)oldest, (unsigned long long)newest);
        return -1;
    }
    /* A player's cap counts from the newest tick back to the time asked:
     * the cap's ticks exactly are allowed, any part of a tick more is not
     * (tick newest - cap - 1 plus any fraction is older than the cap). */
    if (it->rq->owner->role != SWEEP_WIRE_ROLE_SERVER && newest - q->tick > w->rewind_cap_ticks) {
        refuse(it, SWEEP_WIRE_TOO_OLD, "tick %llu is more than the rewind cap of %u ticks before the newest tick %llu",
               (unsigned long long)q->tick, w->rewind_cap_ticks, (unsigned long long)newest);
        return -1;
    }
    at->tick = q->tick;
    at->fraction = q->fraction;
    return 0;
}

/* Where an endpoint is: the point itself, or entity id's position at the
 * item's time (now if the history did not keep it then) plus the point as
 * an offset. 0, or -1 after refusing the item. */
static int endpoint(item *it, uint32_t id, sweep_vec3 p, sweep_query_time at, sweep_vec3 *out)
{
    if (id == 0) {
        *out = p;
        return 0;
    }
    const sweep__owner *o = it->rq->owner;
    const sweep__entity *e = o->role == SWEEP_WIRE_ROLE_SERVER ? sweep__world_any_entity(it->w, id)
                                                              : sweep__world_entity(it->w, o, id);
    if (!e) {
        refuse(it, SWEEP_WIRE_UNKNOWN_ENTITY, o->role == SWEEP_WIRE_ROLE_SERVER ? "no entity %u in this world"
                                                                                : "no entity %u in this session",
               id);
        return -1;
    }
    sweep_vec3 where = e->st.m.actor.position;
    if (it->w->history)
        (void)sweep_history_entity_at(it->w->history, id, at.tick, at.fraction, &where, NULL);
    *out = sweep_v3_add(where, p);
    return 0;
}

static sweep_wire_query_hit wire_hit(const sweep__world *w, const sweep_query_hit *h)
{
    sweep_wire_query_hit o;
    o.kind = h->kind;
    o.triangle = h->triangle;
    o.material = h->material;
    o.mover = h->mover == SWEEP_NO_MOVER ? 0 : sweep__world_mover_id(w, h->mover);
    o.entity = (uint32_t)h->entity;
    o.shape = h->shape;
    o.fraction = h->fraction;
    o.distance = h->distance;
    o.point = h->point;
    o.normal = h->normal;
    return o;
}

static void answer_one(item *it, const sweep_msg_query_item *q)
{
    sweep__world *w = it->w;
    sweep_msg_query_answer *out = it->out;
    memset(out, 0, sizeof *out);
    if (!pay(w, it->rq->owner)) {
        refuse(it, SWEEP_WIRE_RATE_LIMITED, "a player may ask %g query items a second (--query-rate)",
               w->opt.query_rate);
        return;
    }
    if (q->kind >= SWEEP_WIRE_QUERY_KIND_COUNT) {
        refuse(it, SWEEP_WIRE_NOT_ALLOWED,
               "kind %u is not a QueryKind (Ray 0, RayAll 1, LineOfSight 2, Sweep 3, Overlap 4)", (unsigned)q->kind);
        return;
    }
    if (q->ignore_count > SWEEP_WIRE_QUERY_IGNORE_MAX) {
        refuse(it, SWEEP_WIRE_NOT_ALLOWED, "%u entities ignored; at most %u are", q->ignore_count,
               SWEEP_WIRE_QUERY_IGNORE_MAX);
        return;
    }
    if (q->filter & ~(uint32_t)FILTER_BITS) {
        refuse(it, SWEEP_WIRE_NOT_ALLOWED,
               "filter 0x%x holds bits that are not a QueryFilter (Level 1, Movers 2, Entities 4, BackFaces 8, "
               "Ellipsoids 16)",
               q->filter);
        return;
    }
    sweep_query_space space = {w->world, w->movers, w->history, {0, 0.0}};
    if (time_of(it, q, &space.at) != 0)
        return;
    out->tick = space.at.tick;
    out->fraction = space.at.fraction;
    sweep_vec3 from, to;
    if (endpoint(it, q->from_entity, q->from, space.at, &from) != 0 ||
        endpoint(it, q->to_entity, q->to, space.at, &to) != 0)
        return;
    uint64_t ignore[SWEEP_QUERY_IGNORE_MAX + 2];
    uint32_t n = 0;
    for (uint32_t k = 0; k < q->ignore_count; k++)
        ignore[n++] = q->ignore[k];
    if (q->from_entity)
        ignore[n++] = q->from_entity;
    if (q->to_entity && q->kind == SWEEP_WIRE_QUERY_LINE_OF_SIGHT)
        ignore[n++] = q->to_entity;
    sweep_query_filter f = {q->filter, ignore, n};
    uint32_t max = q->max_hits && q->max_hits < SWEEP_WIRE_QUERY_HITS_MAX ? q->max_hits : SWEEP_WIRE_QUERY_HITS_MAX;
    sweep_query_hit hits[SWEEP_WIRE_QUERY_HITS_MAX];
    sweep_query_found found[SWEEP_WIRE_QUERY_HITS_MAX];
    uint32_t count = 0;
    int more = 0, clear = 0;
    sweep_status st;
    switch (q->kind) {
    case SWEEP_WIRE_QUERY_RAY:
        st = sweep_query_ray(&space, from, to, &f, &hits[0]);
        count = st == SWEEP_OK && hits[0].kind != SWEEP_HIT_NONE;
        break;
    case SWEEP_WIRE_QUERY_RAY_ALL:
        st = sweep_query_ray_all(&space, from, to, &f, hits, max, &count, &more);
        break;
    case SWEEP_WIRE_QUERY_LINE_OF_SIGHT:
        st = sweep_query_line_of_sight(&space, from, to, &f, &clear);
        break;
    case SWEEP_WIRE_QUERY_SWEEP:
        st = sweep_query_sweep(&space, from, to, q->radii, &f, &hits[0]);
        count = st == SWEEP_OK && hits[0].kind != SWEEP_HIT_NONE;
        break;
    default: /* SWEEP_WIRE_QUERY_OVERLAP */
        st = sweep_query_overlap(&space, from, q->radius, &f, found, max, &count, &more);
        for (uint32_t k = 0; st == SWEEP_OK && k < count; k++) {
            memset(&hits[k], 0, sizeof hits[k]);
            hits[k].kind = SWEEP_HIT_ENTITY;
            hits[k].triangle = SWEEP_NO_TRIANGLE;
            hits[k].mover = SWEEP_NO_MOVER;
            hits[k].entity = found[k].entity;
            hits[k].shape = UINT32_MAX;
            hits[k].distance = found[k].distance;
            hits[k].point = found[k].point;
        }
        break;
    }
    if (st != SWEEP_OK) {
        sweep_wire_code code = st == SWEEP_E_ARG ? SWEEP_WIRE_NOT_ALLOWED : sweep_wire_code_from_status(st);
        refuse(it, code, "%s: %s", sweep_wire_query_kind_name(q->kind), sweep_status_message(st));
        return;
    }
    for (uint32_t k = 0; k < count; k++)
        it->hits[k] = wire_hit(w, &hits[k]);
    out->hits = count ? it->hits : NULL;
    out->hit_count = count;
    out->flags = (clear ? SWEEP_WIRE_QUERY_CLEAR : 0u) | (more ? SWEEP_WIRE_QUERY_MORE : 0u);
}

void sweep__query(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    const sweep_msg_query *q = &m->as.query;
    sweep__owner *o = rq->owner;
    if (q->count > o->max_batch) {
        sweep__refuse(rq, SWEEP_WIRE_BATCH_TOO_LARGE, m->sequence, 0,
                      "Query of %u items; at most %u are accepted (Welcome.max_batch%s)", q->count, o->max_batch,
                      o->udp ? ", what one datagram holds" : "");
        return;
    }
    for (uint32_t i = 0; i < q->count; i++) {
        item it = {w, rq, &w->query_answers[i], w->query_texts[i], &w->query_hits[(size_t)i * SWEEP_WIRE_QUERY_HITS_MAX]};
        answer_one(&it, &q->items[i]);
    }
    w->counts.queries_total += q->count;
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_QUERY_RESULT;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    out.as.query_result.answers = w->query_answers;
    out.as.query_result.count = q->count;
    sweep__answer(rq, &out);
}
