/*
 * owner.c - owners and the entities they own.
 *
 * An owner is what a session is to a world: its role, its entities, its
 * rule counts. Releasing an owner despawns everything it owns, so no
 * entity outlives its owner and an id can never be moved by anyone else.
 *
 * A new entity's id is the next one the request gives (a replay: the ids
 * its log drew), else one the sink draws at random (sweepd: the kernel's
 * generator), 32 bits, never 0, never one living in the world: a client
 * learns nothing about other owners' entities from its own ids, and
 * guessing one is a 1 in 2^32 shot that is answered as an unknown id
 * anyway. Each id given is told to the sink (an ID record), so a replay
 * gives the same.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"
#include "server/world/world_impl.h"

/* What a rule line of the log an owner may cause a second. */
#define SWEEP__RULE_LOG_RATE 10.0

void sweep__owner_init(sweep__owner *o, sweep__world *w, uint64_t id, uint32_t role, int udp, uint32_t max_batch,
                       const char *identity, size_t identity_len, uint64_t now)
{
    memset(o, 0, sizeof *o);
    o->id = id;
    o->world = w;
    o->role = role;
    o->udp = udp;
    /* The world answers a batch from results of its own max_batch. */
    o->max_batch = max_batch < w->opt.max_batch ? max_batch : w->opt.max_batch;
    o->max_entities = role == SWEEP_WIRE_ROLE_SERVER ? w->opt.max_entities_server : w->opt.max_entities;
    if (identity_len >= sizeof o->identity)
        identity_len = sizeof o->identity - 1;
    memcpy(o->identity, identity, identity_len);
    o->identity[identity_len] = 0;
    sweep__bucket_init(&o->rule_log, SWEEP__RULE_LOG_RATE, now);
    sweep__bucket_init(&o->line_log, SWEEP__LINE_LOG_RATE, now);
    sweep__owner_queries_init(o, w);
}

/* Removes e from the world's table and array and gives its memory back to
 * the world's pool (entity_pool.c); the caller fixes the owner's array. */
static void entity_free(sweep__entity *e, const sweep__world_sink *sink)
{
    sweep__world *w = e->world;
    sweep__entity_table_remove(&w->entities, e->id);
    sweep__world_remove_entity(w, e);
    sweep__entity_release(w, e);
    if (sink && sink->entities)
        sink->entities(sink->ctx, -1);
}

void sweep__owner_release(sweep__owner *o, const sweep__world_sink *sink)
{
    for (uint32_t i = 0; i < o->entity_count; i++)
        entity_free(o->entities[i], sink);
    free(o->entities);
    o->entities = NULL;
    o->entity_count = o->entity_cap = 0;
    free(o->commands_kept);
    free(o->commands_text);
    o->commands_kept = NULL;
    o->commands_text = NULL;
    o->has_commands = 0;
}

/* The entity's id: the request's next, else drawn. 0 when none can be had. */
static uint32_t entity_id(const sweep__request *rq, const sweep__world *w, uint32_t *given)
{
    uint32_t id = 0;
    if (*given < rq->id_count)
        id = rq->ids[(*given)++];
    const sweep__world_sink *sink = rq->sink;
    for (int tries = 0; id == 0 || sweep__entity_table_find(&w->entities, id); tries++) {
        if (tries == 64 || !sink->draw_id)
            return 0;
        id = sink->draw_id(sink->ctx);
    }
    return id;
}

sweep__entity *sweep__owner_spawn(const sweep__request *rq, const char **why)
{
    sweep__owner *o = rq->owner;
    sweep__world *w = o->world;
    if (o->entity_count == o->entity_cap) {
        uint32_t ncap = o->entity_cap ? o->entity_cap * 2 : 4;
        sweep__entity **n = sweep__realloc(o->entities, ncap * sizeof *n);
        if (!n) {
            *why = "out of memory for the session's entity list";
            return NULL;
        }
        o->entities = n;
        o->entity_cap = ncap;
    }
    sweep__entity *e = sweep__entity_alloc(w);
    if (!e) {
        *why = "out of memory for the entity";
        return NULL;
    }
    uint32_t given = 0;
    e->id = entity_id(rq, w, &given);
    if (e->id == 0) {
        sweep__owner_log(o, rq->now, SWEEP_LOG_ERROR, "entity_id_failed", "session=%llu", (unsigned long long)o->id);
        sweep__entity_release(w, e);
        *why = "no entity id could be drawn";
        return NULL;
    }
    e->owner = o;
    e->st.ground_mover = e->st.touch_mover = e->st.moved_by = SWEEP_NO_MOVER;
    if (sweep__entity_table_insert(&w->entities, e) != 0) {
        sweep__entity_release(w, e);
        *why = "out of memory for the entity table";
        return NULL;
    }
    if (sweep__world_add_entity(w, e) != 0) {
        sweep__entity_table_remove(&w->entities, e->id);
        sweep__entity_release(w, e);
        *why = "out of memory for the world's entity arrays";
        return NULL;
    }
    o->entities[o->entity_count++] = e;
    if (rq->sink->entities)
        rq->sink->entities(rq->sink->ctx, +1);
    if (rq->sink->entity_id)
        rq->sink->entity_id(rq->sink->ctx, e->id);
    return e;
}

void sweep__owner_despawn(sweep__owner *o, sweep__entity *e, const sweep__world_sink *sink)
{
    for (uint32_t i = 0; i < o->entity_count; i++) {
        if (o->entities[i] == e) {
            o->entities[i] = o->entities[--o->entity_count];
            break;
        }
    }
    entity_free(e, sink);
}
