/*
 * requests.c - one decoded request of an owner applied to its world, its
 * answer and everything it causes handed to the request's sink.
 *
 * The requests that change the world live beside this file: where an
 * entity is placed (spawn.c), what a move does (moves.c, whose comment
 * is the exact order of operations a predicting client follows) and what
 * the server role's EntityCommands do to any entity (commands.c), and
 * what a Query asks of the world's past (queries.c). Here are
 * the small ones (Despawn, Collide, MoverCommand) and the batch; what the
 * server role reads of every owner's entities is observe.c's. An entity
 * id that is not the owner's own is answered exactly as one that does not
 * exist, so ids of other owners cannot be probed (the server role's
 * GetEntity and EntityCommands alone reach every owner's).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "protocol/from_core.h"
#include "server/world/world_impl.h"

void sweep__answer(const sweep__request *rq, const sweep_message *m)
{
    rq->sink->message(rq->sink->ctx, rq->owner, m);
}

void sweep__refuse(const sweep__request *rq, sweep_wire_code code, uint32_t sequence, uint32_t entity,
                   const char *fmt, ...)
{
    /* The text says what happened, once: the code, sequence and entity are
     * fields of their own, which clients print beside it. */
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sweep_message m = sweep_msg_error_of(code, sequence, entity, rq->owner->world->tick, msg);
    sweep__answer(rq, &m);
}

sweep__entity *sweep__world_entity(const sweep__world *w, const sweep__owner *o, uint32_t id)
{
    sweep__entity *e = sweep__entity_table_find(&w->entities, id);
    return e && e->owner == o ? e : NULL;
}

sweep__entity *sweep__own_entity_refused(const sweep__request *rq, uint32_t id, uint32_t sequence)
{
    /* One answer for both, word for word: another owner's ids are not to
     * be found by trying. */
    sweep__refuse(rq, SWEEP_WIRE_UNKNOWN_ENTITY, sequence, id, "no entity %u in this session", id);
    return NULL;
}

static void on_despawn(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    sweep__entity *e = sweep__own_entity(w, rq, m->as.despawn.entity, m->sequence);
    if (!e)
        return;
    uint32_t id = e->id;
    sweep__owner_despawn(rq->owner, e, rq->sink);
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_DESPAWNED;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    out.as.despawned.entity = id;
    sweep__answer(rq, &out);
}

static void on_move(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    sweep_message out; /* the move fills its result (contacts past its count aside); the rest is never read */
    if (sweep__apply_move(w, rq, &m->as.move, &out.as.move_result) != 0)
        return; /* an Error was sent, or an old move is dropped unanswered */
    out.kind = SWEEP_MSG_MOVE_RESULT;
    out.sequence = m->sequence;
    out.server_tick = out.as.move_result.server_tick;
    out.key = 0; /* what the server sends carries no key */
    sweep__answer(rq, &out);
    if (w->killed_count) /* a kill volume ended it: seldom */
        sweep__world_tell_killed(w, rq);
}

static void on_move_batch(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    const sweep_msg_move_batch *b = &m->as.move_batch;
    uint32_t limit = rq->owner->max_batch;
    if (b->count > limit) {
        sweep__refuse(rq, SWEEP_WIRE_BATCH_TOO_LARGE, m->sequence, 0,
                      "batch of %u moves; at most %u are accepted (Welcome.max_batch%s)", b->count, limit,
                      rq->owner->udp ? ", what one datagram holds" : "");
        return;
    }
    /* Applied whole even if the answer cannot be delivered (a slow
     * reader): what the world does never depends on the sockets, so a
     * replay of the log does the same. */
    uint32_t n = 0;
    /* While a move runs, the entities of the next two are fetched (a
     * game server's batch names a thousand entities, each a cache and TLB
     * miss of its own): the next one's kept result, the one after's head. */
    if (b->count > 0)
        sweep__move_prefetch(w, &b->moves[0], 0);
    for (uint32_t i = 0; i < b->count; i++) {
        if (i + 2 < b->count)
            sweep__move_prefetch(w, &b->moves[i + 2], 0);
        if (i + 1 < b->count)
            sweep__move_prefetch(w, &b->moves[i + 1], 1);
        if (sweep__apply_move(w, rq, &b->moves[i], &w->results[n]) == 0)
            n++;
    }
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    out.as.move_result_batch.results = w->results;
    out.as.move_result_batch.count = n;
    sweep__answer(rq, &out);
    sweep__world_tell_killed(w, rq);
}

static void on_collide(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    const sweep_msg_collide *c = &m->as.collide;
    sweep_move_input in;
    in.position = c->position;
    in.radii = c->radii;
    in.velocity = c->velocity;
    in.dt = c->dt;
    in.flags = c->grounded ? SWEEP_INPUT_GROUNDED : 0;
    sweep_move_result res;
    sweep_space space = sweep__world_space(w, NULL);
    sweep_status st = sweep_move_in(&space, &w->level.config, &in, &res);
    if (st != SWEEP_OK) {
        sweep__refuse(rq, sweep_wire_code_from_status(st), m->sequence, 0, "collide: %s", sweep_status_message(st));
        return;
    }
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_COLLIDE_RESULT;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    sweep__collide_result_from_move(&out.as.collide_result, &res, sweep__world_mover_id(w, res.ground_mover));
    sweep__answer(rq, &out);
}

/* The index of the mover named exactly `name` (bytes, not a C string: a
 * name with a NUL inside matches nothing), or SWEEP_NO_MOVER. */
static uint32_t find_mover(const sweep__world *w, sweep_str name)
{
    for (uint32_t i = 0; i < w->mover_count; i++) {
        const char *n = w->level.movers[i].name;
        if (strlen(n) == name.len && memcmp(n, name.ptr, name.len) == 0)
            return i;
    }
    return SWEEP_NO_MOVER;
}

int sweep__role_refusal(sweep_msg_kind kind, uint32_t role, int server_role_possible, char *why, size_t whylen)
{
    if (sweep_msg_kind_sender(kind) != SWEEP_MSG_SENDER_SERVER_ROLE || role == SWEEP_WIRE_ROLE_SERVER)
        return 0;
    const char *name = sweep_msg_kind_name(kind);
    if (!server_role_possible)
        snprintf(why, whylen,
                 "%s needs the server role, and this server trusts none (no --command-token, no "
                 "--auth-secret-file)",
                 name);
    else
        snprintf(why, whylen,
                 "%s needs the server role: Hello.auth_token must be a server token (sweep1:server:...) or "
                 "the server's --command-token",
                 name);
    return 1;
}

/* The refusal of role_allows, out of line: its text's room made every
 * request's frame larger. */
static SWEEP__NOINLINE int role_refused(const sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    char why[200];
    if (!sweep__role_refusal(m->kind, rq->owner->role, w->opt.server_role_possible, why, sizeof why))
        return 1;
    sweep__refuse(rq, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0, "%s", why);
    return 0;
}

/* May the owner send a request of this kind (its sender column in
 * protocol/kinds.h)? 1, or 0 after an Error AuthFailed. Checked before
 * anything else of the request, so a player cannot even learn which names
 * (of movers, say) exist. The server role and a kind any session sends
 * (a Move) pass without a call, as sweep__role_refusal would let them. */
static int role_allows(const sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    if (rq->owner->role == SWEEP_WIRE_ROLE_SERVER || sweep_msg_kind_sender(m->kind) != SWEEP_MSG_SENDER_SERVER_ROLE)
        return 1;
    return role_refused(w, rq, m);
}

/* MoverCommand: owners of the server role (role_allows) fire a mover's
 * trigger at the next tick. */
static void on_mover_command(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    const sweep__owner *o = rq->owner;
    sweep_str name = m->as.mover_command.mover;
    char q[96];
    if (name.len == 0) {
        sweep__refuse(rq, SWEEP_WIRE_UNKNOWN_MOVER, m->sequence, 0, "MoverCommand.mover is empty; name a mover");
        return;
    }
    uint32_t i = find_mover(w, name);
    if (i == SWEEP_NO_MOVER || sweep_movers_trigger(w->movers, i) != SWEEP_OK) {
        sweep__refuse(rq, SWEEP_WIRE_UNKNOWN_MOVER, m->sequence, 0, "world %s has no mover named %s (%u movers)",
                      w->level.name, sweep__log_quote(name.ptr, name.len, q, sizeof q), w->mover_count);
        return;
    }
    sweep__owner_log(rq->owner, rq->now, SWEEP_LOG_INFO, "mover_command",
                     "session=%llu world=%u mover=%u name=%s fires_at=%llu", (unsigned long long)o->id, w->index,
                     w->level.movers[i].id, sweep__log_quote(name.ptr, name.len, q, sizeof q),
                     (unsigned long long)(w->tick + 1));
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_MOVER_COMMANDED;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    out.as.mover_commanded.mover = w->level.movers[i].id;
    out.as.mover_commanded.tick = w->tick + 1;
    sweep__answer(rq, &out);
}

/* The requests a world applies, one handler each: a new request kind of
 * the world is its row in protocol/kinds.h and its handler here. */
typedef void (*handler)(sweep__world *w, const sweep__request *rq, const sweep_message *m);
static const handler handlers[SWEEP_MSG_KIND_COUNT] = {
    [SWEEP_MSG_SPAWN] = sweep__spawn,
    [SWEEP_MSG_DESPAWN] = on_despawn,
    [SWEEP_MSG_MOVE] = on_move,
    [SWEEP_MSG_MOVE_BATCH] = on_move_batch,
    [SWEEP_MSG_COLLIDE] = on_collide,
    [SWEEP_MSG_MOVER_COMMAND] = on_mover_command,
    [SWEEP_MSG_GET_ENTITY] = sweep__get_entity,
    [SWEEP_MSG_ENTITY_COMMANDS] = sweep__entity_commands,
    [SWEEP_MSG_QUERY] = sweep__query,
};

int sweep__world_handles(sweep_msg_kind kind)
{
    return (unsigned)kind < SWEEP_MSG_KIND_COUNT && handlers[kind] != NULL;
}

void sweep__world_request(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    if (!sweep__world_handles(m->kind))
        sweep__refuse(rq, SWEEP_WIRE_UNKNOWN_MESSAGE, m->sequence, 0, "%s is not a request this server accepts",
                      sweep_msg_kind_name(m->kind));
    else if (role_allows(w, rq, m))
        handlers[m->kind](w, rq, m);
    sweep__world_check(w);
}
