/*
 * client_receive.c - what a received message becomes: events in the
 * client's queue, with what each kind of message settles on its way in
 * (the Welcome's and the Challenge's settings, round trips timed, moves
 * and Spawns answered, repeats dropped, an Error about a whole MoveBatch
 * made one per move, the pieces of an EntityCommands' answer placed), and
 * the handing out of events: to sweep_client_poll and
 * sweep_client_dispatch, or to a blocking call waiting for its answer
 * (client.c). Apart from the socket that brings the messages, so that a
 * new kind of message, or what an event holds, is a change of this file.
 *
 * A WorldState's movers (an EntityStates' entities) are copied out of the
 * receive buffer into an array of their own when the message is queued
 * (the decoder's storage is reused by the next message); the event owns
 * that array until it is handed to the caller, then `handed` owns it until
 * the next receiving call frees it.
 */
/* POSIX names without the GNU ones, as in client.c. */
#define _POSIX_C_SOURCE 200809L
#include "client-sdk/client_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* --- event queue ------------------------------------------------------------ */

sweep_client_event *sweep__client_queue_push(sweep_client *c)
{
    if (c->qhead + c->qlen == c->qcap) {
        if (c->qhead > 0) {
            memmove(c->q, c->q + c->qhead, c->qlen * sizeof *c->q);
            c->qhead = 0;
        } else {
            size_t cap = c->qcap ? 2 * c->qcap : 64;
            sweep_client_event *q = realloc(c->q, cap * sizeof *q);
            if (q == NULL)
                return NULL;
            c->q = q;
            c->qcap = cap;
        }
    }
    sweep_client_event *ev = &c->q[c->qhead + c->qlen++];
    memset(ev, 0, sizeof *ev);
    return ev;
}

void sweep__client_queue_take(sweep_client *c, size_t i, sweep_client_event *out)
{
    assert(i < c->qlen);
    *out = c->q[c->qhead + i];
    if (i == 0) {
        c->qhead++;
    } else {
        memmove(&c->q[c->qhead + i], &c->q[c->qhead + i + 1], (c->qlen - i - 1) * sizeof *c->q);
    }
    if (--c->qlen == 0)
        c->qhead = 0;
}

void sweep__client_release_handed(sweep_client *c)
{
    free(c->handed);
    c->handed = NULL;
}

void *sweep__client_owned_array(const sweep_client_event *ev)
{
    if (ev->kind == SWEEP_CLIENT_EV_WORLD_STATE)
        return (void *)ev->as.world_state.movers;
    if (ev->kind == SWEEP_CLIENT_EV_ENTITY_STATES)
        return (void *)ev->as.entity_states.entities;
    if (ev->kind == SWEEP_CLIENT_EV_COMMAND_RESULTS)
        return (void *)ev->as.command_results.results;
    if (ev->kind == SWEEP_CLIENT_EV_QUERY_RESULTS)
        return (void *)ev->as.query_results.answers;
    if (ev->kind == SWEEP_CLIENT_EV_STATS)
        return (void *)ev->as.stats.worlds;
    return NULL;
}

void sweep__client_hand_out(sweep_client *c, const sweep_client_event *ev)
{
    if (ev->kind == SWEEP_CLIENT_EV_WORLD_STATE || ev->kind == SWEEP_CLIENT_EV_ENTITY_STATES ||
        ev->kind == SWEEP_CLIENT_EV_COMMAND_RESULTS || ev->kind == SWEEP_CLIENT_EV_QUERY_RESULTS ||
        ev->kind == SWEEP_CLIENT_EV_STATS) {
        sweep__client_release_handed(c);
        c->handed = sweep__client_owned_array(ev);
    }
}

void sweep__client_free_queue(sweep_client *c)
{
    for (size_t i = 0; i < c->qlen; i++)
        free(sweep__client_owned_array(&c->q[c->qhead + i]));
    free(c->q);
    c->q = NULL;
    c->qhead = c->qlen = c->qcap = 0;
    sweep__client_release_handed(c);
}

/* The moves an answer (or Error) about `seq` of `entity` settles: itself
 * and the older moves of that entity stop being sent again. */
static void settle_unanswered(sweep_client *c, uint32_t entity, uint32_t seq)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->nunanswered; i++) {
        const sweep_msg_move *m = &c->unanswered[i];
        if (m->sequence == seq || (m->entity == entity && m->sequence < seq))
            continue;
        c->unanswered[k++] = *m;
    }
    c->nunanswered = k;
}

int sweep__client_settle_spawn(sweep_client *c, uint32_t seq)
{
    for (uint32_t i = 0; i < c->nspawns; i++) {
        if (c->spawns[i].sequence != seq)
            continue;
        memmove(&c->spawns[i], &c->spawns[i + 1], (c->nspawns - i - 1) * sizeof *c->spawns);
        c->nspawns--;
        return 1;
    }
    return 0;
}

sweep__batch_sent *sweep__client_batch_sent(sweep_client *c, uint32_t seq)
{
    if (seq == 0)
        return NULL;
    for (uint32_t i = 0; i < SWEEP__BATCHES; i++)
        if (c->batches[i].sequence == seq && c->batches[i].count > 0)
            return &c->batches[i];
    return NULL;
}

/* 1 if the answer to request `seq` was already queued once (UDP: a resent
 * move or Spawn answered again); else remembers it. */
static int repeated_answer(sweep_client *c, uint32_t seq)
{
    if (c->seen == NULL || seq == 0)
        return 0;
    uint32_t *slot = &c->seen[seq % SWEEP__SEEN];
    if (*slot == seq) {
        c->counters.duplicates++;
        return 1;
    }
    *slot = seq;
    return 0;
}

static void copy_str(char *dst, size_t cap, sweep_str s)
{
    size_t n = s.ptr ? s.len : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

/* A copy of n items out of the decoder's storage, which the next message
 * reuses: NULL when out of memory. */
static void *copy_out(const void *items, uint32_t n, size_t size)
{
    void *copy = malloc((size_t)n * size);
    if (copy != NULL)
        memcpy(copy, items, (size_t)n * size);
    return copy;
}

/* Stats.worlds[0 .. n) and their names in one block the event owns (the
 * decoded ones point into the receive buffer and the decoder's storage,
 * which the next read reuses); NULL when out of memory. */
static sweep_wire_world_info *copy_worlds(const sweep_wire_world_info *w, uint32_t n)
{
    size_t bytes = (size_t)n * sizeof *w;
    for (uint32_t i = 0; i < n; i++)
        bytes += (size_t)w[i].name.len + 1 + (size_t)w[i].map.len + 1;
    sweep_wire_world_info *copy = malloc(bytes);
    if (copy == NULL)
        return NULL;
    char *text = (char *)(copy + n);
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = w[i];
        const sweep_str *from[2] = {&w[i].name, &w[i].map};
        sweep_str *to[2] = {&copy[i].name, &copy[i].map};
        for (int k = 0; k < 2; k++) {
            if (from[k]->len)
                memcpy(text, from[k]->ptr, from[k]->len);
            text[from[k]->len] = '\0';
            to[k]->ptr = from[k]->ptr ? text : NULL;
            text += from[k]->len + 1;
        }
    }
    return copy;
}

/* A new event of the message whose size *bytes holds: the first one made
 * of it takes the size, so that events sum to the bytes they came in
 * (sweep_client_event.wire_bytes). NULL when out of memory. */
static sweep_client_event *message_event(sweep_client *c, uint32_t *bytes)
{
    sweep_client_event *ev = sweep__client_queue_push(c);
    if (ev != NULL) {
        ev->wire_bytes = *bytes;
        *bytes = 0;
    }
    return ev;
}

/* An Error about the whole of MoveBatch b (RateLimited, BatchTooLarge):
 * one Error event per move, naming the move and its entity, so that each
 * move the caller sent gets its own answer. Returns 0, or -1 when memory
 * runs out. */
static int batch_error(sweep_client *c, const sweep_message *m, sweep__batch_sent *b, uint64_t now, uint32_t *bytes)
{
    if (repeated_answer(c, b->sequence))
        return 0;
    for (uint32_t i = 0; i < b->count; i++) {
        settle_unanswered(c, b->entities[i], b->moves[i]);
        if (repeated_answer(c, b->moves[i]))
            continue;
        sweep_client_event *ev = message_event(c, bytes);
        if (ev == NULL)
            return -1;
        ev->kind = SWEEP_CLIENT_EV_ERROR;
        ev->sequence = b->moves[i];
        ev->server_tick = m->server_tick;
        ev->received_ns = now;
        ev->as.error.status = SWEEP_CLIENT_E_SERVER;
        ev->as.error.code = m->as.error.code;
        ev->as.error.sequence = b->moves[i];
        ev->as.error.entity = b->entities[i];
        copy_str(ev->as.error.message, sizeof ev->as.error.message, m->as.error.message);
    }
    b->count = 0;
    return 0;
}

sweep__commands_sent *sweep__client_commands_sent(sweep_client *c, uint32_t seq)
{
    if (seq == 0)
        return NULL;
    for (uint32_t i = 0; i < SWEEP__COMMANDS; i++)
        if (c->commands[i].sequence == seq && c->commands[i].count > 0)
            return &c->commands[i];
    return NULL;
}

/* Do results r[0 .. n) echo the commands of s from `at` on? */
static int results_fit(const sweep__commands_sent *s, const sweep_msg_entity_command_result *r, uint32_t n,
                       uint32_t at)
{
    if (at > s->count || n > s->count - at)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (r[i].entity != s->entities[at + i] || r[i].op != s->ops[at + i])
            return 0;
    return 1;
}

/* Whether results [at, at + n) of the answer being gathered are all
 * placed already. */
static int all_got(const sweep__commands_sent *s, uint32_t at, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!s->got[at + i])
            return 0;
    return 1;
}

/* Where a run of results (a piece of an answer) of server_tick `tick`
 * belongs among the commands of s, or -1 for nowhere. A run carries no
 * offset, but the server sends an answer's runs in order, each result
 * echoing its command's entity and op. Of the answer being gathered (the
 * same tick), the run goes on from where its last run ended, or else is
 * the first place after that where it fits (a piece between them was
 * lost). Of another answer (the first piece to come, or over UDP the
 * answer to the request sent again, of a later tick) it starts at the
 * first command. Else, the one place where it fits that is not placed
 * yet: a piece whose first pieces were lost, or that overtook them, is
 * placed only when its commands say where without doubt (a short run of
 * commands that repeat fits in several places). -2 for a run that fits
 * only where the answer is placed already (a datagram come twice). */
static int64_t place_run(const sweep__commands_sent *s, const sweep_msg_entity_command_result *r, uint32_t n,
                         uint64_t tick)
{
    int gathering = s->placed > 0 && tick == s->tick;
    if (gathering) {
        for (uint32_t at = s->next; at < s->count; at++)
            if (results_fit(s, r, n, at) && !all_got(s, at, n))
                return at;
    } else if (results_fit(s, r, n, 0)) {
        return 0;
    }
    int64_t only = -1;
    int fits = 0, repeat = 0;
    for (uint32_t at = 0; at < s->count; at++) {
        if (!results_fit(s, r, n, at))
            continue;
        if (gathering && all_got(s, at, n)) {
            repeat = 1;
            continue;
        }
        only = at;
        fits++;
    }
    return fits == 1 ? only : repeat && fits == 0 ? -2 : -1;
}

/* A copy of results r[0 .. n) with their messages' texts in the same
 * allocation, which the next message's decoding would overwrite: NULL
 * when out of memory. */
static sweep_msg_entity_command_result *copy_results(const sweep_msg_entity_command_result *r, uint32_t n)
{
    size_t text = 0;
    for (uint32_t i = 0; i < n; i++)
        text += r[i].message.ptr ? (size_t)r[i].message.len + 1 : 0;
    sweep_msg_entity_command_result *copy = malloc((size_t)n * sizeof *copy + text);
    if (copy == NULL)
        return NULL;
    char *t = (char *)(copy + n);
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = r[i];
        if (r[i].message.ptr == NULL)
            continue;
        memcpy(t, r[i].message.ptr, r[i].message.len);
        t[r[i].message.len] = '\0';
        copy[i].message.ptr = t;
        t += r[i].message.len + 1;
    }
    return copy;
}

/* A piece of an EntityCommandsResult (all of it over TCP): one event,
 * placed among its request's commands. A piece of an answer already taken
 * whole is a repeat, one that fits nowhere is dropped. Returns 0, or -1
 * when memory runs out. */
static int command_results(sweep_client *c, const sweep_message *m, uint64_t now, uint32_t *bytes)
{
    const sweep_msg_entity_commands_result *er = &m->as.entity_commands_result;
    uint32_t first = 0, total = er->count;
    sweep__commands_sent *s = sweep__client_commands_sent(c, m->sequence);
    if (s) {
        if (s->closed) {
            c->counters.duplicates++;
            return 0;
        }
        if (s->placed > 0 && m->server_tick < s->tick) {
            /* A late piece of an application before the one being
             * gathered (the request was sent again): superseded. */
            c->counters.duplicates++;
            return 0;
        }
        int64_t at = place_run(s, er->results, er->count, m->server_tick);
        if (at < 0) {
            if (at == -2)
                c->counters.duplicates++;
            else
                c->counters.datagrams_dropped++;
            return 0;
        }
        if (m->server_tick != s->tick || s->placed == 0) {
            s->placed = 0; /* another answer begins */
            memset(s->got, 0, s->count);
        }
        first = (uint32_t)at;
        total = s->count;
        s->tick = m->server_tick;
        s->next = first + er->count;
        for (uint32_t i = first; i < first + er->count; i++) {
            s->placed += !s->got[i];
            s->got[i] = 1;
        }
        if (s->placed >= s->count)
            s->closed = 1;
    }
    sweep_client_event *ev = message_event(c, bytes);
    if (ev == NULL)
        return -1;
    ev->kind = SWEEP_CLIENT_EV_COMMAND_RESULTS;
    ev->sequence = m->sequence;
    ev->server_tick = m->server_tick;
    ev->received_ns = now;
    ev->as.command_results.count = er->count;
    ev->as.command_results.first = first;
    ev->as.command_results.total = total;
    if (er->count > 0 && (ev->as.command_results.results = copy_results(er->results, er->count)) == NULL) {
        c->qlen--;
        return -1;
    }
    return 0;
}

sweep_msg_query_answer *sweep__client_copy_answers(const sweep_msg_query_answer *a, uint32_t n)
{
    size_t hits = 0, text = 0;
    for (uint32_t i = 0; i < n; i++) {
        hits += a[i].hits ? a[i].hit_count : 0;
        text += a[i].message.ptr ? (size_t)a[i].message.len + 1 : 0;
    }
    sweep_msg_query_answer *copy = malloc((size_t)n * sizeof *copy + hits * sizeof(sweep_wire_query_hit) + text);
    if (copy == NULL)
        return NULL;
    sweep_wire_query_hit *h = (sweep_wire_query_hit *)(copy + n);
    char *t = (char *)(h + hits);
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = a[i];
        if (a[i].hits && a[i].hit_count) {
            memcpy(h, a[i].hits, a[i].hit_count * sizeof *h);
            copy[i].hits = h;
            h += a[i].hit_count;
        } else {
            copy[i].hits = NULL;
            copy[i].hit_count = 0;
        }
        if (a[i].message.ptr) {
            memcpy(t, a[i].message.ptr, a[i].message.len);
            t[a[i].message.len] = '\0';
            copy[i].message.ptr = t;
            t += a[i].message.len + 1;
        }
    }
    return copy;
}

/* A QueryResult (over UDP a piece of one): one event. Returns 0, or -1
 * when memory runs out. */
static int query_results(sweep_client *c, const sweep_message *m, uint64_t now, uint32_t *bytes)
{
    const sweep_msg_query_result *qr = &m->as.query_result;
    sweep_client_event *ev = message_event(c, bytes);
    if (ev == NULL)
        return -1;
    ev->kind = SWEEP_CLIENT_EV_QUERY_RESULTS;
    ev->sequence = m->sequence;
    ev->server_tick = m->server_tick;
    ev->received_ns = now;
    ev->as.query_results.count = qr->count;
    ev->as.query_results.first = qr->first;
    ev->as.query_results.answers = NULL;
    if (qr->count > 0 && (ev->as.query_results.answers = sweep__client_copy_answers(qr->answers, qr->count)) == NULL) {
        c->qlen--;
        return -1;
    }
    return 0;
}

/* The answer to move `seq` arrived at now, naming the tick the move met:
 * a round trip, and the tick a move sent then met, once. */
static void time_answer(sweep_client *c, uint32_t seq, uint64_t tick, uint64_t now)
{
    uint32_t k = seq % SWEEP__MOVES_TIMED;
    if (seq == 0 || c->move_sent_seq[k] != seq || c->move_sent_ns[k] > now)
        return;
    sweep_tick_clock_round_trip(&c->clock, now - c->move_sent_ns[k], now);
    sweep_tick_clock_met(&c->clock, c->move_sent_ns[k], tick);
    c->move_sent_seq[k] = 0;
}

int sweep__client_handle_message(sweep_client *c, const sweep_message *m, uint64_t now, uint32_t bytes)
{
    sweep_client_event *ev;
    /* After the Bye nothing is the session's: a request's answer read in
     * the same batch (a NotWelcomed of a move sent as the session ended)
     * must not end a blocking call as if the session went on. */
    if (c->said_bye) {
        if (c->transport == SWEEP_CLIENT_UDP)
            c->counters.datagrams_dropped++;
        return 0;
    }
    sweep_tick_clock_heard(&c->clock, m->server_tick, now);
    if (m->kind == SWEEP_MSG_ENTITY_COMMANDS_RESULT)
        return command_results(c, m, now, &bytes);
    if (m->kind == SWEEP_MSG_QUERY_RESULT)
        return query_results(c, m, now, &bytes);
    if (m->kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
        for (uint32_t i = 0; i < m->as.move_result_batch.count; i++) {
            const sweep_msg_move_result *r = &m->as.move_result_batch.results[i];
            time_answer(c, r->sequence, m->server_tick, now);
            settle_unanswered(c, r->entity, r->sequence);
            if (repeated_answer(c, r->sequence))
                continue;
            if ((ev = message_event(c, &bytes)) == NULL)
                return -1;
            ev->kind = SWEEP_CLIENT_EV_MOVE_RESULT;
            ev->sequence = m->as.move_result_batch.results[i].sequence;
            ev->server_tick = m->server_tick;
            ev->received_ns = now;
            ev->as.move_result = m->as.move_result_batch.results[i];
        }
        return 0;
    }
    if (m->kind == SWEEP_MSG_MOVE_RESULT) {
        time_answer(c, m->as.move_result.sequence, m->server_tick, now);
        settle_unanswered(c, m->as.move_result.entity, m->as.move_result.sequence);
        if (repeated_answer(c, m->as.move_result.sequence))
            return 0;
    } else if (m->kind == SWEEP_MSG_SPAWNED) {
        sweep__client_settle_spawn(c, m->sequence);
        if (repeated_answer(c, m->sequence))
            return 0;
    } else if (m->kind == SWEEP_MSG_ERROR && m->as.error.sequence != 0) {
        uint32_t about = m->as.error.sequence;
        sweep__batch_sent *b = sweep__client_batch_sent(c, about);
        if (b)
            return batch_error(c, m, b, now, &bytes);
        settle_unanswered(c, m->as.error.entity, about);
        sweep__client_settle_spawn(c, about);
        if (repeated_answer(c, about))
            return 0;
    }
    if ((ev = message_event(c, &bytes)) == NULL)
        return -1;
    ev->sequence = m->sequence;
    ev->server_tick = m->server_tick;
    ev->received_ns = now;
    switch (m->kind) {
    case SWEEP_MSG_WELCOME: {
        const sweep_msg_welcome *w = &m->as.welcome;
        ev->kind = (sweep_client_event_kind)SWEEP__EV_WELCOME;
        /* A late repeat (a resent Hello answered again) changes nothing
         * the handshake already settled, such as the port kept. */
        if (c->state != SWEEP__HELLO && c->state != SWEEP__COOKIE)
            break;
        c->welcome.protocol_version = w->protocol_version;
        c->welcome.session_id = w->session_id;
        c->welcome.tick_rate = w->tick_rate;
        sweep_tick_clock_init(&c->clock, w->tick_rate);
        copy_str(c->welcome.map_name, sizeof c->welcome.map_name, w->map_name);
        c->welcome.map_hash_len = w->map_hash.len < 32 ? w->map_hash.len : 32;
        if (c->welcome.map_hash_len)
            memcpy(c->welcome.map_hash, w->map_hash.ptr, c->welcome.map_hash_len);
        c->welcome.max_batch = w->max_batch;
        c->welcome.max_frame_size = w->max_frame_size;
        c->welcome.max_entities = w->max_entities;
        c->welcome.role = w->role;
        copy_str(c->welcome.identity, sizeof c->welcome.identity, w->identity);
        c->welcome.has_roles = w->identity.ptr != NULL;
        c->welcome.time_bank = w->time_bank;
        c->welcome.udp_port = c->transport == SWEEP_CLIENT_UDP ? w->udp_port : 0;
        c->udp_key = c->transport == SWEEP_CLIENT_UDP ? w->udp_key : 0;
        break;
    }
    case SWEEP_MSG_CHALLENGE:
        ev->kind = (sweep_client_event_kind)SWEEP__EV_CHALLENGE;
        /* Only the handshake's: once welcomed, a Challenge is another
         * socket's on this address (a forger's Hello answered), not ours. */
        if (c->state != SWEEP__HELLO)
            break;
        c->cookie_len = m->as.challenge.cookie.len < SWEEP__COOKIE_MAX ? m->as.challenge.cookie.len
                                                                         : SWEEP__COOKIE_MAX;
        if (c->cookie_len)
            memcpy(c->cookie, m->as.challenge.cookie.ptr, c->cookie_len);
        break;
    case SWEEP_MSG_MOVE_RESULT:
        ev->kind = SWEEP_CLIENT_EV_MOVE_RESULT;
        ev->as.move_result = m->as.move_result;
        break;
    case SWEEP_MSG_ERROR:
        ev->kind = SWEEP_CLIENT_EV_ERROR;
        ev->as.error.status = SWEEP_CLIENT_E_SERVER;
        ev->as.error.code = m->as.error.code;
        ev->as.error.sequence = m->as.error.sequence;
        ev->as.error.entity = m->as.error.entity;
        copy_str(ev->as.error.message, sizeof ev->as.error.message, m->as.error.message);
        break;
    case SWEEP_MSG_SPAWNED:
        ev->kind = SWEEP_CLIENT_EV_SPAWNED;
        ev->as.spawned = m->as.spawned;
        break;
    case SWEEP_MSG_DESPAWNED:
        ev->kind = SWEEP_CLIENT_EV_DESPAWNED;
        ev->as.despawned = m->as.despawned;
        /* The text lives in the receive buffer, which the next read
         * reuses: an event names the kill volume by killed_by, whose name
         * the map holds (sweep_level.volumes). */
        ev->as.despawned.reason = (sweep_str){NULL, 0};
        break;
    case SWEEP_MSG_COLLIDE_RESULT:
        ev->kind = SWEEP_CLIENT_EV_COLLIDE_RESULT;
        ev->as.collide_result = m->as.collide_result;
        break;
    case SWEEP_MSG_PONG:
        ev->kind = SWEEP_CLIENT_EV_PONG;
        ev->as.pong = m->as.pong;
        /* Pings this client sends carry its own clock (a caller's own
         * client_time beyond now is no trip) */
        if (m->as.pong.client_time > 0 && m->as.pong.client_time <= now)
            sweep_tick_clock_round_trip(&c->clock, now - m->as.pong.client_time, now);
        break;
    case SWEEP_MSG_STATS: {
        const sweep_msg_stats *st = &m->as.stats;
        ev->kind = SWEEP_CLIENT_EV_STATS;
        ev->as.stats = *st;
        ev->as.stats.worlds = NULL; /* owned by the event: none, or the copy */
        if (st->worlds_count > 0 && (ev->as.stats.worlds = copy_worlds(st->worlds, st->worlds_count)) == NULL) {
            c->qlen--;
            return -1;
        }
        break;
    }
    case SWEEP_MSG_WORLD_STATE: {
        const sweep_msg_world_state *ws = &m->as.world_state;
        ev->kind = SWEEP_CLIENT_EV_WORLD_STATE;
        ev->as.world_state = *ws;
        ev->as.world_state.movers = NULL; /* owned by the event: none, or the copy */
        if (ws->count > 0 &&
            (ev->as.world_state.movers = copy_out(ws->movers, ws->count, sizeof *ws->movers)) == NULL) {
            c->qlen--;
            return -1;
        }
        break;
    }
    case SWEEP_MSG_ENTITY_STATES: {
        const sweep_msg_entity_states *es = &m->as.entity_states;
        ev->kind = SWEEP_CLIENT_EV_ENTITY_STATES;
        ev->as.entity_states = *es;
        ev->as.entity_states.entities = NULL;
        if (es->count > 0 &&
            (ev->as.entity_states.entities = copy_out(es->entities, es->count, sizeof *es->entities)) == NULL) {
            c->qlen--;
            return -1;
        }
        break;
    }
    case SWEEP_MSG_MOVER_COMMANDED:
        ev->kind = SWEEP_CLIENT_EV_MOVER_COMMANDED;
        ev->as.mover_commanded = m->as.mover_commanded;
        break;
    case SWEEP_MSG_WORLD_OPENED: {
        const sweep_msg_world_opened *o = &m->as.world_opened;
        ev->kind = SWEEP_CLIENT_EV_WORLD_OPENED;
        ev->as.world_opened.world = o->world;
        copy_str(ev->as.world_opened.name, sizeof ev->as.world_opened.name, o->name);
        memset(ev->as.world_opened.map_hash, 0, sizeof ev->as.world_opened.map_hash);
        if (o->map_hash.ptr)
            memcpy(ev->as.world_opened.map_hash, o->map_hash.ptr, o->map_hash.len < 32 ? o->map_hash.len : 32);
        break;
    }
    case SWEEP_MSG_WORLD_CLOSED:
        ev->kind = SWEEP_CLIENT_EV_WORLD_CLOSED;
        ev->as.world_closed.world = m->as.world_closed.world;
        copy_str(ev->as.world_closed.reason, sizeof ev->as.world_closed.reason, m->as.world_closed.reason);
        break;
    case SWEEP_MSG_BYE:
        /* Over UDP a Bye before the Welcome may be for an earlier session
         * from this address and port (its idle timeout), which this
         * handshake replaces: nothing of ours, and no event. */
        if (c->transport == SWEEP_CLIENT_UDP && c->state != SWEEP__READY && c->state != SWEEP__PORT) {
            c->qlen--;
            c->counters.datagrams_dropped++;
            break;
        }
        ev->kind = SWEEP_CLIENT_EV_BYE;
        ev->as.error.status = SWEEP_CLIENT_E_CLOSED;
        copy_str(ev->as.error.message, sizeof ev->as.error.message, m->as.bye.reason);
        /* The Bye ends the session, once its event is handed out
         * (poll_event hands out what is queued before the end): nothing
         * follows it but the close of the connection (TCP, maybe a while
         * later) or silence, and a refusal once the server is gone (UDP). */
        c->said_bye = 1;
        sweep__client_fatal(c, NULL, SWEEP_CLIENT_E_CLOSED, "the server said Bye: %s",
                            ev->as.error.message[0] ? ev->as.error.message : "no reason given");
        break;
    default:
        /* A request kind sent to a client: nothing to do with it. */
        c->qlen--;
        c->counters.datagrams_dropped++;
        break;
    }
    return 0;
}

/* --- receiving ------------------------------------------------------------------ */

static sweep_client_status poll_event(sweep_client *c, int timeout_ms, sweep_client_event *ev,
                                      sweep_client_error *err)
{
    if (ev == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL event");
    if (c->state != SWEEP__READY)
        return sweep__client_not_ready(c, err);
    sweep__client_release_handed(c);
    uint64_t deadline = timeout_ms < 0 ? 0 : sweep_client_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        sweep_client_status s;
        if (c->fatal.status == SWEEP_CLIENT_OK && (s = sweep__client_service_spawns(c, err)) != SWEEP_CLIENT_OK)
            return s;
        /* Events left by the handshake are internal; drop them on the way. */
        while (c->qlen > 0) {
            sweep__client_queue_take(c, 0, ev);
            if ((int)ev->kind < SWEEP__EV_WELCOME) {
                sweep__client_hand_out(c, ev);
                return sweep__client_ok(err);
            }
        }
        if (c->fatal.status != SWEEP_CLIENT_OK)
            return sweep__client_fatal(c, err, c->fatal.status, "%s", c->fatal.message);
        int left = sweep__client_ms_left(deadline);
        if (timeout_ms >= 0 && left == 0) {
            /* One look without waiting, so a zero timeout still reads. A
             * read that ended the connection may have queued what came
             * before the end (a Bye), which the loop's top hands out first. */
            s = sweep__client_read_some(c, err);
            if (s != SWEEP_CLIENT_OK && c->qlen == 0)
                return s;
            if (c->qlen > 0)
                continue;
            return sweep__client_fail(err, SWEEP_CLIENT_E_TIMEOUT, "no event within %d ms", timeout_ms);
        }
        uint64_t wait_until = deadline, due = sweep__client_spawns_due(c);
        if (due && (wait_until == 0 || due < wait_until))
            wait_until = due;
        s = sweep__client_pump(c, wait_until, err);
        if (s != SWEEP_CLIENT_OK && c->qlen == 0)
            return s;
    }
}

sweep_client_status sweep_client_poll(sweep_client *c, int timeout_ms, sweep_client_event *ev,
                                      sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client or event");
    return sweep__client_done(c, poll_event(c, timeout_ms, ev, &c->last), err);
}

sweep_client_status sweep_client_dispatch(sweep_client *c, int timeout_ms, sweep_client_event_cb cb, void *user,
                                          unsigned *handled, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    unsigned n = 0;
    sweep_client_event ev;
    sweep_client_status s = poll_event(c, timeout_ms, &ev, &c->last);
    while (s == SWEEP_CLIENT_OK) {
        if (cb)
            cb(user, &ev);
        n++;
        s = poll_event(c, 0, &ev, &c->last);
    }
    if (handled)
        *handled = n;
    return sweep__client_done(c, s == SWEEP_CLIENT_E_TIMEOUT ? SWEEP_CLIENT_OK : s, err);
}
