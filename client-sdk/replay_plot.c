/*
 * replay_plot.c - sweep-replay --svg: what a replayed session did, drawn
 * over its level with maps/plot.h.
 *
 * Everything drawn comes from what the server sent, as the replay re-sends
 * it (a watcher on the replay): each MoveResult puts its entity where the
 * server put it (after where a mover carried it from, when one did), and
 * says whether the move was corrected and which rules acted; Spawned and
 * Despawned say where entities came in and where movers crushed them. The
 * movers are the replay's own, sampled after every tick. Each shot a Query
 * asked (a ray, every hit of one, a line of sight, a sweep, between two
 * points) is drawn from where it started to its first hit, or to its end,
 * on the track "shots", and each first hit is marked with what it hit and
 * when the query asked (the QueryResult with the Query it answers, which
 * the full depth hands watchers). Shots from or to an entity are marked
 * at their hit only: where the entity stood is the server's, not the log's.
 */
#include "client-sdk/replay_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/plot.h"
#include "protocol/message.h"

/* An entity's track, found by its id (0 is never an entity). */
typedef struct entity_slot {
    uint32_t entity;
    int track;
    sweep_vec3 last;
    int has_last;
} entity_slot;

struct sweep_replay_plot {
    sweep_replay *r;
    sweep_plot *plot;
    entity_slot *slots;
    size_t slot_count, nslots;
    int shots;  /* the track of the queries' shots, -1 until the first */
    int claims; /* the track from each corrected claim to where it was put, -1 until the first */
    int failed; /* a point or mark was lost (memory): the write says so */
};

static size_t slot_hash(uint32_t id, size_t nslots)
{
    return (size_t)((id * 2654435761u) ^ (id >> 16)) & (nslots - 1);
}

static int slots_grow(sweep_replay_plot *p)
{
    size_t n = p->nslots ? p->nslots * 2 : 64;
    entity_slot *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < p->nslots; i++) {
        if (!p->slots[i].entity)
            continue;
        size_t j = slot_hash(p->slots[i].entity, n);
        while (s[j].entity)
            j = (j + 1) & (n - 1);
        s[j] = p->slots[i];
    }
    free(p->slots);
    p->slots = s;
    p->nslots = n;
    return 0;
}

/* The entity's slot, made (with a new track) the first time it is seen;
 * NULL when memory runs out. */
static entity_slot *entity_of(sweep_replay_plot *p, uint32_t id, uint64_t session)
{
    if ((p->slot_count + 1) * 2 > p->nslots && slots_grow(p) != 0)
        return NULL;
    size_t j = slot_hash(id, p->nslots);
    for (; p->slots[j].entity; j = (j + 1) & (p->nslots - 1))
        if (p->slots[j].entity == id)
            return &p->slots[j];
    /* Named by who moved it: the session that spawned it, its identity
     * and role, when the replay knows them (the full depth). */
    char name[160], identity[80];
    unsigned role;
    if (session && sweep_replay_session_of(p->r, session, &role, identity, sizeof identity) == 0)
        snprintf(name, sizeof name, "entity %u: session %llu, %s, %s", id, (unsigned long long)session,
                 identity[0] ? identity : "guest", sweep_wire_role_name(role));
    else
        snprintf(name, sizeof name, "entity %u", id);
    int track = sweep_plot_track(p->plot, name);
    if (track < 0)
        return NULL;
    entity_slot *s = &p->slots[j];
    s->entity = id;
    s->track = track;
    s->has_last = 0;
    p->slot_count++;
    return s;
}

/* Only looks: an entity never seen is NULL. */
static entity_slot *entity_find(sweep_replay_plot *p, uint32_t id)
{
    if (!p->nslots)
        return NULL;
    for (size_t j = slot_hash(id, p->nslots); p->slots[j].entity; j = (j + 1) & (p->nslots - 1))
        if (p->slots[j].entity == id)
            return &p->slots[j];
    return NULL;
}

static void put_point(sweep_replay_plot *p, entity_slot *s, sweep_vec3 at)
{
    if (sweep_plot_point(p->plot, s->track, at) != 0 && sweep_v3_isfinite(at))
        p->failed = 1;
    s->last = at;
    s->has_last = 1;
}

static void put_mark(sweep_replay_plot *p, sweep_plot_mark_kind kind, sweep_vec3 at, const char *label)
{
    if (sweep_plot_mark(p->plot, kind, at, label) != 0 && sweep_v3_isfinite(at))
        p->failed = 1;
}

/* "Speed+TimeBudget": the rules named by their bits, cut to fit. */
static void rule_names(uint32_t rules, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned bit = 0; bit < 32 && n + 1 < cap; bit++) {
        if (!(rules & (1u << bit)))
            continue;
        int w = snprintf(out + n, cap - n, "%s%s", n ? "+" : "", sweep_wire_rule_name(bit));
        if (w < 0)
            break;
        n += (size_t)w < cap - n ? (size_t)w : cap - n - 1;
    }
}

/* The position the client claimed for the move a result answers, when it
 * claimed one (a Move, or its move in a MoveBatch). */
static const sweep_vec3 *claimed(const sweep_message *rq, uint32_t sequence)
{
    if (rq && rq->kind == SWEEP_MSG_MOVE && rq->as.move.has_claimed_position)
        return &rq->as.move.claimed_position;
    if (rq && rq->kind == SWEEP_MSG_MOVE_BATCH)
        for (uint32_t i = 0; i < rq->as.move_batch.count; i++)
            if (rq->as.move_batch.moves[i].sequence == sequence && rq->as.move_batch.moves[i].has_claimed_position)
                return &rq->as.move_batch.moves[i].claimed_position;
    return NULL;
}

static void on_result(sweep_replay_plot *p, uint64_t session, const sweep_msg_move_result *mr,
                      const sweep_message *rq)
{
    entity_slot *s = entity_of(p, mr->entity, session);
    if (!s) {
        p->failed = 1;
        return;
    }
    /* A mover carried or pushed it between its moves: the path goes
     * through where this move started. */
    if (mr->has_start_position)
        put_point(p, s, mr->start_position);
    put_point(p, s, mr->position);
    char label[128];
    if (mr->corrected) {
        /* Where the client said it was, joined to where the server put it. */
        const sweep_vec3 *c = claimed(rq, mr->sequence);
        if (c) {
            if (p->claims < 0 && (p->claims = sweep_plot_track(p->plot, "claimed, then corrected")) < 0) {
                p->failed = 1;
                return;
            }
            sweep_plot_break(p->plot, p->claims);
            if (sweep_plot_point(p->plot, p->claims, *c) != 0 || sweep_plot_point(p->plot, p->claims, mr->position) != 0)
                p->failed = 1;
            sweep_plot_break(p->plot, p->claims);
            snprintf(label, sizeof label, "entity %u corrected by %.3g from its claim (%.3g, %.3g, %.3g)", mr->entity,
                     mr->correction, c->x, c->y, c->z);
        } else {
            snprintf(label, sizeof label, "entity %u corrected by %.3g", mr->entity, mr->correction);
        }
        put_mark(p, SWEEP_PLOT_CORRECTION, mr->position, label);
    }
    if (mr->rules) {
        rule_names(mr->rules, label, sizeof label);
        put_mark(p, SWEEP_PLOT_RULE, mr->position, label);
    }
}

static void on_spawned(sweep_replay_plot *p, uint64_t session, const sweep_msg_spawned *sp)
{
    entity_slot *s = entity_of(p, sp->entity, session);
    if (!s) {
        p->failed = 1;
        return;
    }
    sweep_plot_break(p->plot, s->track);
    put_point(p, s, sp->position);
    char label[128];
    if (sp->spawn_point)
        snprintf(label, sizeof label, "entity %u at spawn point %u", sp->entity, sp->spawn_point);
    else
        snprintf(label, sizeof label, "entity %u", sp->entity);
    put_mark(p, SWEEP_PLOT_SPAWN, sp->position, label);
}

static void on_despawned(sweep_replay_plot *p, const sweep_msg_despawned *d)
{
    entity_slot *s = entity_find(p, d->entity);
    if (!s)
        return;
    sweep_plot_break(p->plot, s->track);
    if (!d->crushed_by || !s->has_last)
        return;
    /* Where it last was is where the mover caught it. */
    const sweep_level *lv = sweep_replay_level(p->r);
    const char *mover = NULL;
    for (uint32_t i = 0; lv && i < lv->mover_count && !mover; i++)
        if (lv->movers[i].id == d->crushed_by)
            mover = lv->movers[i].name;
    char label[128];
    if (mover)
        snprintf(label, sizeof label, "entity %u crushed by %s", d->entity, mover);
    else
        snprintf(label, sizeof label, "entity %u crushed by mover %u", d->entity, d->crushed_by);
    put_mark(p, SWEEP_PLOT_CRUSH, s->last, label);
}

static const char *const hit_what[] = {"nothing", "the level", "a mover", "entity"};

/* An endpoint of a query item: the point, or entity id's position at the
 * answer's time plus the point. -1 when the history does not place it. */
static int endpoint_at(const sweep_replay_plot *p, uint32_t id, const sweep_msg_query_answer *a, sweep_vec3 *at)
{
    if (!id)
        return 0;
    double was[3];
    if (sweep_replay_entity_at(p->r, id, a->tick, a->fraction, was) != 0)
        return -1;
    *at = sweep_v3_add(sweep_v3(was[0], was[1], was[2]), *at);
    return 0;
}

/* A QueryResult (or a run of one) and the Query it answers. */
static void on_query(sweep_replay_plot *p, uint64_t session, const sweep_msg_query_result *qr, const sweep_message *rq)
{
    if (!rq || rq->kind != SWEEP_MSG_QUERY)
        return;
    const sweep_msg_query *q = &rq->as.query;
    for (uint32_t k = 0; k < qr->count && qr->first + k < q->count; k++) {
        const sweep_msg_query_item *it = &q->items[qr->first + k];
        const sweep_msg_query_answer *a = &qr->answers[k];
        if (a->code != SWEEP_WIRE_NONE || it->kind == SWEEP_WIRE_QUERY_OVERLAP)
            continue;
        const sweep_wire_query_hit *h = a->hit_count ? &a->hits[0] : NULL;
        /* An entity endpoint is where that entity was at the asked time
         * (the world has not ticked since it answered). */
        sweep_vec3 from = it->from, to = it->to;
        int placed = endpoint_at(p, it->from_entity, a, &from) == 0 && endpoint_at(p, it->to_entity, a, &to) == 0;
        if (placed) {
            if (p->shots < 0 && (p->shots = sweep_plot_track(p->plot, "shots")) < 0) {
                p->failed = 1;
                return;
            }
            sweep_plot_break(p->plot, p->shots);
            if (sweep_plot_point(p->plot, p->shots, from) != 0 ||
                sweep_plot_point(p->plot, p->shots, h ? h->point : to) != 0)
                p->failed = 1;
            sweep_plot_break(p->plot, p->shots);
        }
        if (!h)
            continue;
        double was[3];
        if (h->kind == 3 && sweep_replay_entity_at(p->r, h->entity, a->tick, a->fraction, was) == 0) {
            char who[96];
            snprintf(who, sizeof who, "entity %u at tick %llu + %g", h->entity, (unsigned long long)a->tick,
                     a->fraction);
            put_mark(p, SWEEP_PLOT_PAST, sweep_v3(was[0], was[1], was[2]), who);
        }
        char label[160];
        if (h->kind == 3)
            snprintf(label, sizeof label, "session %llu asked tick %llu + %g: entity %u, shape %u",
                     (unsigned long long)session, (unsigned long long)a->tick, a->fraction, h->entity, h->shape);
        else
            snprintf(label, sizeof label, "session %llu asked tick %llu + %g: %s", (unsigned long long)session,
                     (unsigned long long)a->tick, a->fraction, h->kind < 4 ? hit_what[h->kind] : "?");
        put_mark(p, SWEEP_PLOT_HIT, h->point, label);
    }
}

static void watch(void *ctx, const sweep_replay_event *ev)
{
    sweep_replay_plot *p = ctx;
    const sweep_message *m = ev->message;
    switch (m->kind) {
    case SWEEP_MSG_MOVE_RESULT:
        on_result(p, ev->session, &m->as.move_result, ev->request);
        break;
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        for (uint32_t i = 0; i < m->as.move_result_batch.count; i++)
            on_result(p, ev->session, &m->as.move_result_batch.results[i], ev->request);
        break;
    case SWEEP_MSG_SPAWNED:
        on_spawned(p, ev->session, &m->as.spawned);
        break;
    case SWEEP_MSG_DESPAWNED:
        on_despawned(p, &m->as.despawned);
        break;
    case SWEEP_MSG_QUERY_RESULT:
        on_query(p, ev->session, &m->as.query_result, ev->request);
        break;
    default:
        break;
    }
}

sweep_replay_plot *sweep_replay_plot_start(sweep_replay *r, char axis)
{
    sweep_replay_plot *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->r = r;
    p->shots = -1;
    p->claims = -1;
    p->plot = sweep_plot_create(sweep_replay_level(r), axis);
    if (!p->plot) {
        free(p);
        return NULL;
    }
    sweep_replay_watch(r, watch, p);
    return p;
}

static void sample_movers(sweep_replay_plot *p)
{
    double at[3];
    for (uint32_t i = 0; sweep_replay_mover_position(p->r, i, at) == 0; i++)
        if (sweep_plot_mover_point(p->plot, i, sweep_v3(at[0], at[1], at[2])) != 0)
            p->failed = 1;
}

int sweep_replay_plot_run(sweep_replay_plot *p)
{
    sample_movers(p);
    int rc;
    while ((rc = sweep_replay_step(p->r)) == 1)
        sample_movers(p);
    return rc;
}

int sweep_replay_plot_write(sweep_replay_plot *p, const char *path, const char *title, char *err, size_t errlen)
{
    if (p->failed) {
        snprintf(err, errlen, "cannot write %s: memory ran out while drawing", path);
        return -1;
    }
    return sweep_plot_write(p->plot, path, title, err, errlen);
}

void sweep_replay_plot_free(sweep_replay_plot *p)
{
    if (!p)
        return;
    /* The replay may go on without the picture. */
    sweep_replay_watch(p->r, NULL, NULL);
    sweep_plot_destroy(p->plot);
    free(p->slots);
    free(p);
}
