/*
 * observe.c - the world as the server role sees it: every entity, whoever
 * owns it, in the wire's EntityState form, and GetEntity.
 *
 * A game server that relays its players, or a tool, watches a whole world
 * (sweepd pushes EntityStates after its ticks) or reads one entity of any
 * owner. Here only the states are made, in the world's spawn order (the
 * order of w->ents, the order a push lists them in); what sends them, how
 * often and in how many pieces is the caller's (sweepd: server/entity_watch.c).
 * Reading changes nothing, so nothing of it is recorded or replayed.
 *
 * Kept entity numbers are core mover indices; the wire names the map's
 * movers.id (world.h), translated here.
 */
#include <string.h>

#include "server/world/world_impl.h"

/* EntityState.flags Player: governed by the player rules (a player's
 * entity, or the server role's spawned with Spawn.player). */
void sweep__entity_wire(const sweep__world *w, const sweep__entity *e, sweep_wire_entity_state *out)
{
    const sweep_actor *a = &e->st.m.actor;
    memset(out, 0, sizeof *out);
    out->entity = e->id;
    out->flags = (a->grounded ? SWEEP_WIRE_ENTITY_GROUNDED : 0u) | (e->player ? SWEEP_WIRE_ENTITY_PLAYER : 0u);
    out->owner_session = e->owner->id;
    out->position = a->position;
    out->velocity = a->velocity;
    out->radii = e->st.m.radii;
    out->ground_mover = sweep__world_mover_id(w, e->st.ground_mover);
}

uint32_t sweep__world_entity_states(const sweep__world *w, uint32_t first, sweep_wire_entity_state *out, uint32_t n)
{
    if (first >= w->ent_count)
        return 0;
    uint32_t left = w->ent_count - first;
    if (n > left)
        n = left;
    for (uint32_t i = 0; i < n; i++) {
        if (i + 8 < n)
            sweep__entity_prefetch(w->ents[first + i + 8]);
        sweep__entity_wire(w, w->ents[first + i], &out[i]);
    }
    return n;
}

sweep__entity *sweep__world_any_entity(const sweep__world *w, uint32_t id)
{
    return sweep__entity_table_find(&w->entities, id);
}

/* GetEntity: one entity of any owner (the sender column lets only the
 * server role ask), as a one-entity EntityStates. */
void sweep__get_entity(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    uint32_t id = m->as.get_entity.entity;
    const sweep__entity *e = sweep__world_any_entity(w, id);
    if (!e) {
        sweep__refuse(rq, SWEEP_WIRE_UNKNOWN_ENTITY, m->sequence, id, "no entity %u in world %s", id,
                      w->level.name);
        return;
    }
    sweep_wire_entity_state st;
    sweep__entity_wire(w, e, &st);
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_ENTITY_STATES;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    out.as.entity_states.tick = w->tick;
    out.as.entity_states.entities = &st;
    out.as.entity_states.count = 1;
    out.as.entity_states.entity_count = 1;
    sweep__answer(rq, &out);
}
