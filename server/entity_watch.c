/*
 * entity_watch.c - WatchEntities: a session of the server role (a game
 * server relaying its players, a tool) sees every entity of its world,
 * whoever owns it, after every N-th tick.
 *
 * The states are the world library's (server/world/observe.c: spawn
 * order, movers.id for the ground, the owner's session id); here are the
 * session's interval and the sending. A world of more entities than one
 * datagram (sweep_udp_max_entity_states()) or one frame of --max-frame
 * holds goes as several EntityStates of the same tick, each a run of the
 * entities in order with entity_count the whole count, as a WorldState is
 * split (sweep__send_parts). Each run is filled from the world into the
 * server's scratch (s->entity_wire) just before it is encoded, so nothing
 * is allocated per push and a push costs the world nothing but reads.
 *
 * Nothing here is recorded: watching changes no world, and GetEntity (one
 * entity, answered by the world library itself) neither.
 */
#include <string.h>

#include "server/server_impl.h"

/* An EntityStates of the world's entities [start, start + k). */
typedef struct entity_parts {
    sweep_server *s;
    const sweep__world *w;
    uint32_t sequence;
} entity_parts;

static void fill_entity_states(void *ctx, sweep_message *m, uint32_t start, uint32_t k)
{
    const entity_parts *ep = ctx;
    uint32_t n = sweep__world_entity_states(ep->w, start, ep->s->entity_wire, k);
    memset(m, 0, sizeof *m);
    m->kind = SWEEP_MSG_ENTITY_STATES;
    m->sequence = ep->sequence;
    m->server_tick = ep->w->tick;
    m->as.entity_states.tick = ep->w->tick;
    m->as.entity_states.entities = ep->s->entity_wire;
    m->as.entity_states.count = n;
    m->as.entity_states.entity_count = ep->w->ent_count;
}

int sweep__send_entity_states(sweep_server *s, sweep__peer *p, sweep__served *sw, uint32_t sequence)
{
    entity_parts ep = {s, sw->world, sequence};
    uint32_t per = p->tcp ? s->tcp_max_entity_states : sweep__peer_udp_fit(s, p)->entity_states;
    return sweep__send_parts(s, p, sw->world->ent_count, per, fill_entity_states, &ep, "entities");
}

void sweep__watch_entities(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    char why[256];
    if (sweep__role_refusal(m->kind, ss->own.role, ss->world->world->opt.server_role_possible, why, sizeof why)) {
        sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0, "%s", why);
        return;
    }
    uint32_t every = m->as.watch_entities.every;
    if (every != ss->watch_entities_every)
        sweep__owner_log(&ss->own, p->now ? p->now : uv_hrtime(), SWEEP_LOG_DEBUG, "watch_entities",
                         "session=%llu every=%u", (unsigned long long)ss->id, every);
    ss->watch_entities_every = every;
    sweep__session_watch(ss);
    sweep__send_entity_states(s, p, ss->world, m->sequence);
}
