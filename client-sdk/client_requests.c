/*
 * client_requests.c - the requests a game makes of its entities and the
 * world: Spawn (blocking, or sent without waiting and serviced until
 * answered), Despawn, moves (blocking, sent without waiting, with the
 * unanswered ones again over UDP, or in MoveBatches), Collide, Ping,
 * GetStats, the watches, GetEntity, MoverCommand, OpenWorld and
 * CloseWorld. Each fills a message from its arguments, remembers what its
 * answer will need (client_internal.h: the Spawns waiting, the MoveBatches
 * sent, the moves' send times) and sends it through client.c, which waits
 * for the answer of a blocking one.
 */
/* POSIX names without the GNU ones, as in client.c. */
#define _POSIX_C_SOURCE 200809L
#include "client-sdk/client_internal.h"

#include <stdlib.h>
#include <string.h>

/* MoveBatch datagrams sent together by one sweep_client_send_batch call
 * (UDP): a game server's tick of a thousand moves is 84 datagrams (12
 * moves each), sent by three system calls. Half the ring of
 * SWEEP__BATCHES, so a group never overwrites a batch of its own that a
 * failed send forgets. */
#define SWEEP__TX_DGRAMS 32u

/* Sends one Spawn and remembers it until answered (sweep__client_service_spawns). */
static sweep_client_status send_spawn(sweep_client *c, const sweep_client_spawn_req *r, uint32_t *sequence,
                                      sweep_client_error *err)
{
    if (r == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL spawn");
    if (c->nspawns == c->spawns_cap) {
        uint32_t cap = c->spawns_cap ? 2 * c->spawns_cap : 16;
        sweep__spawn_wait *n = realloc(c->spawns, (size_t)cap * sizeof *n);
        if (n == NULL)
            return sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        c->spawns = n;
        c->spawns_cap = cap;
    }
    sweep_message m = {.kind = SWEEP_MSG_SPAWN, .sequence = c->next_seq};
    m.as.spawn.position = r->position;
    m.as.spawn.radii = r->radii;
    m.as.spawn.spawn_point = r->spawn_point;
    m.as.spawn.max_speed = r->max_speed;
    m.as.spawn.step_height = r->step_height;
    m.as.spawn.player = r->player;
    sweep_client_status s = sweep__client_send_message(c, &m, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    c->next_seq++;
    uint64_t now = sweep_client_now_ns();
    c->spawns[c->nspawns++] = (sweep__spawn_wait){
        .sequence = m.sequence,
        .spawn = m.as.spawn,
        .expire_ns = now + (uint64_t)c->timeout_ms * 1000000u,
        .resend_ns = now + (uint64_t)c->retry_ms * 1000000u,
    };
    c->newest_spawn = m.sequence;
    if (sequence)
        *sequence = m.sequence;
    return sweep__client_ok(err);
}

sweep_client_status sweep_client_send_spawn(sweep_client *c, const sweep_client_spawn_req *r, uint32_t *sequence,
                                            sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, send_spawn(c, r, sequence, &c->last), err);
}

/* The blocking spawns: one sent without waiting, then waited for. */
static sweep_client_status spawn(sweep_client *c, const sweep_client_spawn_req *r, sweep_msg_spawned *out,
                                 sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    err = &c->last;
    sweep__client_release_handed(c);
    uint32_t seq;
    sweep_client_status s = send_spawn(c, r, &seq, err);
    if (s == SWEEP_CLIENT_OK) {
        sweep_client_event ev;
        s = sweep__client_await_answer(c, NULL, "Spawn", SWEEP_CLIENT_EV_SPAWNED, seq,
                                       sweep__client_deadline_after(c->timeout_ms), &ev, err);
        /* Given up here: no TIMEOUT event for it later. */
        sweep__client_settle_spawn(c, seq);
        if (s == SWEEP_CLIENT_OK && out)
            *out = ev.as.spawned;
    }
    return s;
}

sweep_client_status sweep_client_spawn(sweep_client *c, sweep_vec3 position, sweep_vec3 radii,
                                       sweep_msg_spawned *out, sweep_client_error *err)
{
    sweep_client_spawn_req r = {.position = position, .radii = radii};
    sweep_client_status s = spawn(c, &r, out, err);
    return c ? sweep__client_done(c, s, err) : s;
}

sweep_client_status sweep_client_spawn_at_point(sweep_client *c, uint32_t point, sweep_vec3 radii,
                                                sweep_msg_spawned *out, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_client_spawn_req r = {.radii = radii, .spawn_point = point};
    return sweep__client_done(c, spawn(c, &r, out, err), err);
}

sweep_client_status sweep_client_spawn_player(sweep_client *c, uint32_t point, sweep_msg_spawned *out,
                                              sweep_client_error *err)
{
    sweep_client_spawn_req r = {.spawn_point = point};
    sweep_client_status s = spawn(c, &r, out, err);
    return c ? sweep__client_done(c, s, err) : s;
}

/* A blocking request on a client: its answer into *ev. */
static sweep_client_status ask(sweep_client *c, sweep_message *m, int kind, sweep_client_event *ev,
                               sweep_client_error *err)
{
    m->sequence = c->next_seq++;
    return sweep__client_done(c, sweep__client_request(c, m, kind, ev, &c->last), err);
}

sweep_client_status sweep_client_despawn(sweep_client *c, uint32_t entity, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_DESPAWN};
    m.as.despawn.entity = entity;
    sweep_client_event ev;
    return ask(c, &m, SWEEP_CLIENT_EV_DESPAWNED, &ev, err);
}

/* Keeps the send time of move `seq` for its round trip. */
static void time_move(sweep_client *c, uint32_t seq, uint64_t now)
{
    c->move_sent_seq[seq % SWEEP__MOVES_TIMED] = seq;
    c->move_sent_ns[seq % SWEEP__MOVES_TIMED] = now;
}

static void fill_move(sweep_msg_move *mv, const sweep_client_move_req *r, uint32_t seq)
{
    memset(mv, 0, sizeof *mv);
    mv->entity = r->entity;
    mv->sequence = seq;
    mv->client_tick = r->client_tick;
    mv->velocity = r->velocity;
    mv->dt = r->dt;
    mv->has_claimed_position = r->has_claimed_position != 0;
    mv->claimed_position = r->claimed_position;
    mv->buttons = r->buttons;
    mv->mode = (uint8_t)r->mode;
}

/* A mode the wire cannot carry would be sent as another one: refuse it. */
static int mode_ok(const sweep_client_move_req *r)
{
    return r->mode <= UINT8_MAX;
}

sweep_client_status sweep_client_move_request(sweep_client *c, const sweep_client_move_req *r,
                                              sweep_msg_move_result *out, uint32_t *sequence,
                                              sweep_client_error *err)
{
    if (c == NULL || r == NULL) {
        sweep_client_status s = sweep__client_fail(c ? &c->last : err, SWEEP_CLIENT_E_ARG, "NULL client or move");
        return c ? sweep__client_done(c, s, err) : s;
    }
    if (!mode_ok(r))
        return sweep__client_done(c,
                                  sweep__client_fail(&c->last, SWEEP_CLIENT_E_ARG, "move mode %u is not a MoveMode",
                                                     r->mode),
                                  err);
    sweep_message m = {.kind = SWEEP_MSG_MOVE};
    fill_move(&m.as.move, r, c->next_seq);
    if (sequence)
        *sequence = c->next_seq;
    time_move(c, c->next_seq, sweep_client_now_ns());
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_MOVE_RESULT, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.move_result;
    return s;
}

sweep_client_status sweep_client_move(sweep_client *c, uint32_t entity, sweep_vec3 velocity, double dt,
                                      sweep_msg_move_result *out, sweep_client_error *err)
{
    sweep_client_move_req r = {.entity = entity, .velocity = velocity, .dt = dt};
    return sweep_client_move_request(c, &r, out, NULL, err);
}

sweep_client_status sweep_client_collide(sweep_client *c, const sweep_msg_collide *q,
                                         sweep_msg_collide_result *out, sweep_client_error *err)
{
    if (c == NULL || q == NULL) {
        sweep_client_status s = sweep__client_fail(c ? &c->last : err, SWEEP_CLIENT_E_ARG, "NULL client or query");
        return c ? sweep__client_done(c, s, err) : s;
    }
    sweep_message m = {.kind = SWEEP_MSG_COLLIDE};
    m.as.collide = *q;
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_COLLIDE_RESULT, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.collide_result;
    return s;
}

sweep_client_status sweep_client_ping(sweep_client *c, uint64_t *rtt_ns, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    uint64_t t0 = sweep_client_now_ns();
    sweep_message m = {.kind = SWEEP_MSG_PING};
    m.as.ping.client_time = t0;
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_PONG, &ev, err);
    if (s == SWEEP_CLIENT_OK && rtt_ns)
        *rtt_ns = ev.received_ns - t0;
    return s;
}

sweep_client_status sweep_client_get_stats(sweep_client *c, sweep_msg_stats *out, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    if (c->dec.worlds == NULL) {
        c->dec.worlds = calloc(SWEEP__STATS_WORLDS, sizeof *c->dec.worlds);
        if (c->dec.worlds == NULL)
            return sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "no memory for the stats' worlds");
        c->dec.worlds_cap = SWEEP__STATS_WORLDS;
    }
    sweep_message m = {.kind = SWEEP_MSG_GET_STATS};
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_STATS, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.stats;
    return s;
}

sweep_client_status sweep_client_watch_world(sweep_client *c, uint32_t every, sweep_msg_world_state *out,
                                             sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_WATCH_WORLD};
    m.as.watch_world.every = every;
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_WORLD_STATE, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.world_state;
    return s;
}

sweep_client_status sweep_client_watch_entities(sweep_client *c, uint32_t every, sweep_msg_entity_states *out,
                                                sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_WATCH_ENTITIES};
    m.as.watch_entities.every = every;
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_ENTITY_STATES, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.entity_states;
    return s;
}

sweep_client_status sweep_client_get_entity(sweep_client *c, uint32_t entity, sweep_wire_entity_state *out,
                                            uint64_t *tick, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_GET_ENTITY};
    m.as.get_entity.entity = entity;
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_ENTITY_STATES, &ev, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    if (ev.as.entity_states.count != 1 || ev.as.entity_states.entities[0].entity != entity)
        return sweep__client_done(c,
                                  sweep__client_fail(&c->last, SWEEP_CLIENT_E_PROTOCOL,
                                                     "GetEntity %u answered with %u entities", entity,
                                                     ev.as.entity_states.count),
                                  err);
    if (out)
        *out = ev.as.entity_states.entities[0];
    if (tick)
        *tick = ev.as.entity_states.tick;
    return s;
}

sweep_client_status sweep_client_mover_command(sweep_client *c, const char *mover, sweep_msg_mover_commanded *out,
                                               sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    if (mover == NULL || mover[0] == '\0')
        return sweep__client_done(c,
                                  sweep__client_fail(&c->last, SWEEP_CLIENT_E_ARG,
                                                     "a mover command needs the mover's name"),
                                  err);
    sweep_message m = {.kind = SWEEP_MSG_MOVER_COMMAND};
    m.as.mover_command.mover = sweep_str_of(mover);
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_MOVER_COMMANDED, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.mover_commanded;
    return s;
}

sweep_client_status sweep_client_open_world(sweep_client *c, const char *map, const char *name,
                                            sweep_client_world *out, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    if (map == NULL || map[0] == '\0')
        return sweep__client_done(c, sweep__client_fail(&c->last, SWEEP_CLIENT_E_ARG, "OpenWorld needs a map's name"),
                                  err);
    sweep_message m = {.kind = SWEEP_MSG_OPEN_WORLD};
    m.as.open_world.map = sweep_str_of(map);
    m.as.open_world.name = sweep_str_of(name && name[0] ? name : NULL);
    sweep_client_event ev;
    sweep_client_status s = ask(c, &m, SWEEP_CLIENT_EV_WORLD_OPENED, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.world_opened;
    return s;
}

sweep_client_status sweep_client_close_world(sweep_client *c, uint32_t world, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_CLOSE_WORLD};
    m.as.close_world.world = world;
    sweep_client_event ev;
    return ask(c, &m, SWEEP_CLIENT_EV_WORLD_CLOSED, &ev, err);
}

static sweep_client_status set_redundancy(sweep_client *c, uint32_t n, sweep_client_error *err)
{
    if (n > 0 && c->transport != SWEEP_CLIENT_UDP)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "redundancy is for UDP: TCP loses nothing");
    if (n > SWEEP_CLIENT_REDUNDANCY_MAX)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "redundancy %u is above %u moves per datagram", n,
                                  SWEEP_CLIENT_REDUNDANCY_MAX);
    c->redundancy = n;
    if (n == 0)
        c->nunanswered = 0;
    return sweep__client_ok(err);
}

sweep_client_status sweep_client_set_redundancy(sweep_client *c, uint32_t n, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, set_redundancy(c, n, &c->last), err);
}

/* Remembers a move just sent for redundancy, dropping the oldest when full. */
static void keep_unanswered(sweep_client *c, const sweep_msg_move *mv)
{
    if (c->nunanswered == SWEEP_CLIENT_REDUNDANCY_MAX) {
        memmove(c->unanswered, c->unanswered + 1, (SWEEP_CLIENT_REDUNDANCY_MAX - 1) * sizeof *c->unanswered);
        c->nunanswered--;
    }
    c->unanswered[c->nunanswered++] = *mv;
}

/* Sends mv with the newest unanswered moves before it in one MoveBatch
 * (Message.sequence is mv's own), as many as fit the datagram. */
static sweep_client_status send_redundant(sweep_client *c, const sweep_msg_move *mv, sweep_client_error *err)
{
    uint32_t n = c->nunanswered < c->redundancy ? c->nunanswered : c->redundancy;
    for (;; n--) {
        memcpy(c->red_batch, c->unanswered + (c->nunanswered - n), (size_t)n * sizeof *c->red_batch);
        c->red_batch[n] = *mv;
        sweep_message m = {.kind = SWEEP_MSG_MOVE_BATCH, .sequence = mv->sequence};
        m.as.move_batch.moves = c->red_batch;
        m.as.move_batch.count = n + 1;
        if (n == 0) {
            m.kind = SWEEP_MSG_MOVE;
            m.as.move = *mv;
        }
        sweep_client_error e;
        sweep_client_status s = sweep__client_send_message(c, &m, &e);
        if (s == SWEEP_CLIENT_E_TOO_LARGE && n > 0)
            continue; /* long claims: fewer old moves */
        if (s != SWEEP_CLIENT_OK) {
            if (err)
                *err = e;
            return s;
        }
        c->counters.redundant_moves += n;
        return sweep__client_ok(err);
    }
}

static sweep_client_status send_move(sweep_client *c, const sweep_client_move_req *r, uint32_t *sequence,
                                     sweep_client_error *err)
{
    if (r == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL move");
    if (!mode_ok(r))
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "move mode %u is not a MoveMode", r->mode);
    sweep_message m = {.kind = SWEEP_MSG_MOVE, .sequence = c->next_seq};
    fill_move(&m.as.move, r, m.sequence);
    sweep_client_status s;
    if (c->redundancy > 0) {
        s = send_redundant(c, &m.as.move, err);
        if (s == SWEEP_CLIENT_OK)
            keep_unanswered(c, &m.as.move);
    } else {
        s = sweep__client_send_message(c, &m, err);
    }
    if (s != SWEEP_CLIENT_OK)
        return s;
    time_move(c, m.sequence, sweep_client_now_ns());
    c->next_seq++;
    if (sequence)
        *sequence = m.sequence;
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep_client_send_move(sweep_client *c, const sweep_client_move_req *r, uint32_t *sequence,
                                           sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, send_move(c, r, sequence, &c->last), err);
}

/* Remembers MoveBatch `seq` of moves b[0 .. n) for batch_error. Returns 0,
 * or -1 when memory runs out (then nothing is remembered). */
static int remember_batch(sweep_client *c, uint32_t seq, const sweep_msg_move *b, uint32_t n)
{
    sweep__batch_sent *r = &c->batches[c->batch_next];
    if (n > r->cap) {
        uint32_t *m = realloc(r->moves, (size_t)n * sizeof *m);
        if (m == NULL)
            return -1;
        r->moves = m;
        uint32_t *e = realloc(r->entities, (size_t)n * sizeof *e);
        if (e == NULL)
            return -1;
        r->entities = e;
        r->cap = n;
    }
    r->sequence = seq;
    r->count = n;
    for (uint32_t i = 0; i < n; i++) {
        r->moves[i] = b[i].sequence;
        r->entities[i] = b[i].entity;
    }
    c->batch_next = (c->batch_next + 1) % SWEEP__BATCHES;
    return 0;
}

/* MoveBatches encoded but not sent yet: their frames (UDP: datagrams, of
 * lens[0..dgrams) bytes) side by side in c->tx, the first one's number,
 * and where their moves start in the caller's array. */
typedef struct pending_batches {
    size_t bytes;
    uint32_t first_seq, first_move, moves;
    unsigned dgrams;
    size_t lens[SWEEP__TX_DGRAMS];
} pending_batches;

/* Sends the pending frames in one write (UDP: datagrams in as few calls
 * as the platform allows), then what a sent batch gets: its moves' send
 * times and numbers. On failure the batches that did not go are
 * forgotten, their numbers left 0, and the next batch takes the first
 * one's number. */
static sweep_client_status send_pending(sweep_client *c, pending_batches *p, uint32_t per, uint32_t *sequences,
                                        sweep_client_error *err)
{
    if (p->bytes == 0)
        return SWEEP_CLIENT_OK;
    uint64_t deadline = sweep__client_deadline_after(c->timeout_ms);
    unsigned went = 0; /* batches sent, on a failure */
    sweep_client_status s = c->transport == SWEEP_CLIENT_UDP
                                ? sweep__client_send_datagrams(c, c->tx, p->lens, p->dgrams, deadline, &went, err)
                                : sweep__client_send_bytes(c, c->tx, p->bytes, deadline, err);
    uint64_t sent = sweep_client_now_ns();
    uint32_t seq = p->first_seq, at = p->first_move, resume = 0;
    for (uint32_t left = p->moves, b = 0; left > 0; b++) {
        uint32_t n = left < per ? left : per;
        int ok = s == SWEEP_CLIENT_OK || b < went;
        if (!ok) {
            /* Forgotten, if still remembered: over TCP more batches may be
             * pending than the ring of SWEEP__BATCHES keeps, and an Error
             * about a whole batch may have settled it already. */
            sweep__batch_sent *forgotten = sweep__client_batch_sent(c, seq);
            if (forgotten)
                forgotten->count = 0;
            if (resume == 0)
                resume = seq;
        }
        for (uint32_t i = 1; ok && i <= n; i++) {
            time_move(c, seq + i, sent);
            if (sequences)
                sequences[at + i - 1] = seq + i;
        }
        seq += 1 + n;
        at += n;
        left -= n;
    }
    if (s != SWEEP_CLIENT_OK)
        c->next_seq = resume;
    p->bytes = 0;
    p->first_seq = c->next_seq;
    p->first_move = at;
    p->moves = 0;
    p->dgrams = 0;
    return s;
}

/* Sends moves in MoveBatches of at most max_batch moves (see client.h).
 * The batches' frames go out together, as many as the transmit buffer
 * holds in one write over TCP (a game server's tick of a thousand moves
 * is two writes, and two wakes of the server, rather than sixteen), up
 * to SWEEP__TX_DGRAMS datagrams a sendmmsg over UDP. */
static sweep_client_status send_batch(sweep_client *c, const sweep_client_move_req *moves, uint32_t count,
                                      uint32_t *sequences, sweep_client_error *err)
{
    if (moves == NULL && count > 0)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL moves");
    for (uint32_t i = 0; i < count; i++)
        if (!mode_ok(&moves[i]))
            return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "move %u: mode %u is not a MoveMode", i, moves[i].mode);
    if (c->state != SWEEP__READY)
        return sweep__client_not_ready(c, err);
    uint32_t per = sweep_client_max_batch(c);
    uint32_t chunk = count < per ? count : per;
    if (chunk > c->batch_cap) {
        sweep_msg_move *b = realloc(c->batch, (size_t)chunk * sizeof *b);
        if (b == NULL)
            return sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        c->batch = b;
        c->batch_cap = chunk;
    }
    if (sequences)
        memset(sequences, 0, (size_t)count * sizeof *sequences);
    pending_batches p = {0, c->next_seq, 0, 0, 0, {0}};
    for (uint32_t done_moves = 0; done_moves < count;) {
        uint32_t n = count - done_moves < per ? count - done_moves : per;
        sweep_message m = {.kind = SWEEP_MSG_MOVE_BATCH, .sequence = c->next_seq};
        for (uint32_t i = 0; i < n; i++)
            fill_move(&c->batch[i], &moves[done_moves + i], c->next_seq + 1 + i);
        m.as.move_batch.moves = c->batch;
        m.as.move_batch.count = n;
        const uint8_t *bytes;
        size_t len;
        sweep_client_status s = sweep__client_encode_from(c, p.bytes, &m, &bytes, &len, err);
        if (s == SWEEP_CLIENT_E_AGAIN) {
            /* No room beside the pending frames: they go first. */
            if ((s = send_pending(c, &p, per, sequences, err)) != SWEEP_CLIENT_OK)
                return s;
            s = sweep__client_encode(c, &m, &bytes, &len, err);
        }
        if (s != SWEEP_CLIENT_OK) {
            sweep_client_status sp = send_pending(c, &p, per, sequences, err);
            return sp != SWEEP_CLIENT_OK ? sp : s;
        }
        if (remember_batch(c, m.sequence, c->batch, n) < 0) {
            sweep_client_status sp = send_pending(c, &p, per, sequences, err);
            return sp != SWEEP_CLIENT_OK ? sp : sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        }
        memmove(c->tx + p.bytes, bytes, len);
        p.bytes += len;
        p.moves += n;
        if (c->transport == SWEEP_CLIENT_UDP)
            p.lens[p.dgrams++] = len;
        c->next_seq += 1 + n;
        done_moves += n;
        if (p.dgrams == SWEEP__TX_DGRAMS) {
            sweep_client_status sp = send_pending(c, &p, per, sequences, err);
            if (sp != SWEEP_CLIENT_OK)
                return sp;
        }
    }
    sweep_client_status s = send_pending(c, &p, per, sequences, err);
    return s != SWEEP_CLIENT_OK ? s : sweep__client_ok(err);
}

sweep_client_status sweep_client_send_batch(sweep_client *c, const sweep_client_move_req *moves, uint32_t count,
                                            uint32_t *sequences, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, send_batch(c, moves, count, sequences, &c->last), err);
}
