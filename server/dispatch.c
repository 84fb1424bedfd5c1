/*
 * dispatch.c - one verified request in, its answers out.
 *
 * Every request is decoded (the decoder verifies first), checked against
 * the session (welcomed? rate? owner? role?) and answered: a result, or an
 * Error naming the code and the sequence refused. Nothing here can stop
 * the server: bad input only ever produces an Error.
 *
 * The work of the requests that change the world lives beside this file:
 * who a session is (auth.c), where an entity is placed (spawn.c) and what
 * a move does (moves.c, whose comment is the exact order of operations a
 * predicting client follows). An entity id that is not the session's own
 * is answered exactly as one that does not exist, so ids of other
 * sessions cannot be probed.
 */
#include <math.h>
#include <string.h>

#include "protocol/from_core.h"
#include "server/record.h"
#include "server/server_impl.h"

/* The most moves a MoveBatch of this peer may hold: what its Welcome
 * announced (over UDP, what one datagram holds with every field and a
 * claimed position in each move). */
static uint32_t batch_limit(const sweep_server *s, const sweep__peer *p)
{
    return p->tcp || s->opt.max_batch < s->udp_max_batch ? s->opt.max_batch : s->udp_max_batch;
}

static void fill_welcome(sweep_server *s, const sweep__session *ss, const sweep__peer *p, sweep_message *m,
                         uint32_t sequence)
{
    memset(m, 0, sizeof *m);
    m->kind = SWEEP_MSG_WELCOME;
    m->sequence = sequence;
    m->server_tick = ss->world->tick;
    sweep_msg_welcome *w = &m->as.welcome;
    w->protocol_version = SWEEP_PROTOCOL_VERSION;
    w->session_id = ss->id;
    w->tick_rate = ss->world->tick_rate;
    w->map_name = sweep_str_of(ss->world->level.name);
    w->map_hash.ptr = ss->world->hash.bytes;
    w->map_hash.len = sizeof ss->world->hash.bytes;
    /* Over UDP a batch must fit one datagram: announce what does. */
    w->max_batch = batch_limit(s, p);
    w->max_frame_size = p->tcp ? s->opt.max_frame : SWEEP_UDP_MAX_DATAGRAM;
    w->max_entities = s->opt.max_entities;
    w->role = (uint8_t)ss->role;
    w->identity = sweep_str_of(ss->identity);
    w->time_bank = s->opt.time_bank;
    /* The thread's own port (--threads N > 1; 0, so absent, with one):
     * where the session's datagrams reach its world's thread directly. */
    w->udp_port = p->tcp ? 0 : (uint16_t)s->direct_port;
}

int sweep__hello(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    const sweep_msg_hello *h = &m->as.hello;
    sweep_message out;
    if (p->session && !p->tcp && !s->offline) {
        /* Over UDP an address is not a client: the cookie says whether this
         * is the session's own client again or a new one (udp.c). */
        if (sweep__udp_rehello(s, p, m) == SWEEP__REHELLO_DONE)
            return -1;
    }
    if (h->protocol_version != SWEEP_PROTOCOL_VERSION) {
        sweep__send_error(s, p, SWEEP_WIRE_VERSION_MISMATCH, m->sequence, 0,
                          "protocol version %u is not supported; this server speaks %u", h->protocol_version,
                          SWEEP_PROTOCOL_VERSION);
        return -1;
    }
    if (p->session) {
        /* A repeated Hello (a UDP client whose Welcome was lost, with the
         * session's cookie) gets the same Welcome again; the session and
         * its world stay. */
        fill_welcome(s, p->session, p, &out, m->sequence);
        return sweep__send(s, p, &out);
    }
    if (s->stopping)
        return -1;
    unsigned owner = s->thread;
    sweep__world *w = sweep__world_find(s, h->world.ptr, &owner);
    if (!w) {
        char q[80];
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_WORLD, m->sequence, 0, "no world named %s (the first is '%s')",
                          sweep__log_quote(h->world.ptr, h->world.len, q, sizeof q),
                          s->group->servers[0]->worlds[0].level.name);
        return -1;
    }
    if (owner != s->thread) {
        /* Another thread's world (threads.c): the connection, or this
         * datagram, goes there and is answered there, and counted there:
         * the owner dispatches this Hello again. */
        s->stats.requests_total--;
        if (p->conn) {
            p->conn->handover_to = owner + 1;
            return 0;
        }
        if (s->udp_datagram)
            return sweep__handoff_datagram(s, owner, p->addr, s->udp_datagram, s->udp_datagram_len, 0);
        return -1;
    }
    if (!sweep__session_slot_take(s)) {
        sweep__send_error(s, p, SWEEP_WIRE_TOO_MANY_SESSIONS, m->sequence, 0,
                          "the server already has its maximum of %u sessions", s->opt.max_sessions);
        if (p->conn)
            sweep__conn_drain(p->conn);
        return -1;
    }
    uint32_t role;
    char identity[SWEEP_TOKEN_IDENTITY_MAX + 1];
    if (sweep__authenticate(s, p, m, &role, identity, sizeof identity) != 0) {
        sweep__session_slot_give(s);
        return -1;
    }
    sweep__session *ss = sweep__session_create(s, w, p->conn ? SWEEP__TCP : SWEEP__UDP);
    if (!ss) {
        sweep__session_slot_give(s);
        char peer[64];
        if (p->conn)
            snprintf(peer, sizeof peer, "%s", p->conn->peer);
        else
            sweep__addr_text(p->addr, peer, sizeof peer);
        sweep__log(SWEEP_LOG_ERROR, "session_failed", "peer=%s error=\"out of memory\"", peer);
        sweep__send_error(s, p, SWEEP_WIRE_INTERNAL, m->sequence, 0, "out of memory for a new session");
        return -1;
    }
    ss->role = role;
    memcpy(ss->identity, identity, sizeof ss->identity);
    if (p->conn) {
        ss->conn = p->conn;
        p->conn->session = ss;
        snprintf(ss->peer, sizeof ss->peer, "%s", p->conn->peer);
    } else {
        sweep__udp_session_bind(ss, p->addr);
        /* Checked by udp.c before this: the Hello's cookie is valid, so of
         * the right size. The session answers to it alone from now on. */
        if (h->cookie.ptr && h->cookie.len == sizeof ss->cookie)
            memcpy(ss->cookie, h->cookie.ptr, sizeof ss->cookie);
    }
    if (h->client_name.ptr) {
        size_t n = h->client_name.len < sizeof ss->client_name - 1 ? h->client_name.len : sizeof ss->client_name - 1;
        memcpy(ss->client_name, h->client_name.ptr, n);
        ss->client_name[n] = 0;
    }
    p->session = ss;
    p->budget = SIZE_MAX;
    if (w->rec)
        sweep__record_open(w, ss);
    char q[96], qi[96];
    sweep__log(SWEEP_LOG_INFO, "session_open",
               "session=%llu transport=%s peer=%s world=%s client=%s role=%s identity=%s",
               (unsigned long long)ss->id, p->conn ? "tcp" : "udp", ss->peer, w->level.name,
               sweep__log_quote(ss->client_name, strlen(ss->client_name), q, sizeof q),
               sweep_wire_role_name(ss->role), sweep__log_quote(ss->identity, strlen(ss->identity), qi, sizeof qi));
    fill_welcome(s, ss, p, &out, m->sequence);
    return sweep__send(s, p, &out);
}

sweep__entity *sweep__own_entity(sweep_server *s, sweep__peer *p, uint32_t id, uint32_t sequence)
{
    sweep__entity *e = sweep__entity_table_find(&s->entities, id);
    if (!e || e->owner != p->session) {
        /* One answer for both, word for word: another session's ids are
         * not to be found by trying. */
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_ENTITY, sequence, id, "no entity %u in this session", id);
        return NULL;
    }
    return e;
}

static void on_despawn(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__entity *e = sweep__own_entity(s, p, m->as.despawn.entity, m->sequence);
    if (!e)
        return;
    uint32_t id = e->id;
    sweep__session_despawn(p->session, e);
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_DESPAWNED;
    out.sequence = m->sequence;
    out.server_tick = p->session->world->tick;
    out.as.despawned.entity = id;
    sweep__send(s, p, &out);
}

/* The clock around a Move or a whole MoveBatch, for the move total (what
 * the metrics call move seconds): two reads per request, not per move. A
 * replay measures itself and reads none. */
static uint64_t move_clock(const sweep_server *s)
{
    return s->offline ? 0 : uv_hrtime();
}

static void on_move(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep_message out; /* the move fills its result (contacts past its count aside); the rest is never read */
    uint64_t t0 = move_clock(s);
    int r = sweep__apply_move(s, p, &m->as.move, &out.as.move_result);
    s->stats.move_ns_total += move_clock(s) - t0;
    if (r != 0)
        return; /* an Error was sent, or an old move is dropped unanswered */
    out.kind = SWEEP_MSG_MOVE_RESULT;
    out.sequence = m->sequence;
    out.server_tick = out.as.move_result.server_tick;
    sweep__send(s, p, &out);
}

static void on_move_batch(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    const sweep_msg_move_batch *b = &m->as.move_batch;
    uint32_t limit = batch_limit(s, p);
    if (b->count > limit) {
        sweep__send_error(s, p, SWEEP_WIRE_BATCH_TOO_LARGE, m->sequence, 0,
                          "batch of %u moves; at most %u are accepted (Welcome.max_batch%s)", b->count, limit,
                          p->tcp ? "" : ", what one datagram holds");
        return;
    }
    /* Applied whole even if the connection is dropped while answering (a
     * slow reader): what the world does never depends on the sockets, so
     * a replay of the log does the same. */
    uint32_t n = 0;
    uint64_t t0 = move_clock(s);
    for (uint32_t i = 0; i < b->count; i++)
        if (sweep__apply_move(s, p, &b->moves[i], &s->results[n]) == 0)
            n++;
    s->stats.move_ns_total += move_clock(s) - t0;
    sweep__send_results(s, p, m->sequence, p->session->world->tick, s->results, n);
}

static void on_collide(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    const sweep_msg_collide *c = &m->as.collide;
    sweep__world *w = p->session->world;
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
        sweep__send_error(s, p, sweep_wire_code_from_status(st), m->sequence, 0, "collide: %s",
                          sweep_status_message(st));
        return;
    }
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_COLLIDE_RESULT;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    sweep__collide_result_from_move(&out.as.collide_result, &res, sweep__world_mover_id(w, res.ground_mover));
    sweep__send(s, p, &out);
}

static void on_stats(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    /* Every thread's figures (threads.c): this one's as of now, the
     * others' as of their last housekeeping tick. */
    sweep__metrics_snapshot sum;
    sweep__group_figures(s, &sum);
    const sweep__stats *st = &sum.stats;
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_STATS;
    out.sequence = m->sequence;
    out.server_tick = p->session->world->tick;
    out.as.stats.sessions = sweep__sessions_open(s);
    out.as.stats.entities = sum.entities;
    out.as.stats.moves_total = st->moves_total;
    out.as.stats.errors_total = st->errors_total;
    out.as.stats.tick_ns_p50 = sweep__stats_tick_percentile(st, 50);
    out.as.stats.tick_ns_p99 = sweep__stats_tick_percentile(st, 99);
    out.as.stats.movers = sum.movers;
    out.as.stats.crushed_total = st->crushed_total;
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++) {
        out.as.stats.rules_total[i] = st->rules_total[i];
        out.as.stats.session_rules[i] = p->session->rule_counts[i];
    }
    out.as.stats.rules_total_count = SWEEP_WIRE_RULE_COUNT;
    out.as.stats.session_rules_count = SWEEP_WIRE_RULE_COUNT;
    memcpy(out.as.stats.errors_by_code, st->errors_by_code, sizeof st->errors_by_code);
    out.as.stats.errors_by_code_count = SWEEP_WIRE_CODE_COUNT;
    out.as.stats.tcp_bytes_in = st->bytes_in[SWEEP__TCP];
    out.as.stats.tcp_bytes_out = st->bytes_out[SWEEP__TCP];
    out.as.stats.udp_bytes_in = st->bytes_in[SWEEP__UDP];
    out.as.stats.udp_bytes_out = st->bytes_out[SWEEP__UDP];
    out.as.stats.udp_dropped = st->udp_dropped;
    out.as.stats.ticks_total = st->ticks_total;
    out.as.stats.tick_ns_total = st->tick_ns_total;
    out.as.stats.move_ns_total = st->move_ns_total;
    sweep__send(s, p, &out);
}

/* WatchWorld: the session's interval, and the poses at once. */
static void on_watch_world(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    uint32_t every = m->as.watch_world.every;
    if (every != ss->watch_every)
        sweep__log(SWEEP_LOG_DEBUG, "watch_world", "session=%llu every=%u", (unsigned long long)ss->id, every);
    ss->watch_every = every;
    sweep__send_world_state(s, p, ss->world, m->sequence);
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

/* MoverCommand: sessions of the server role (checked before, by
 * sweep__role_allows) fire a mover's trigger at the next tick. */
static void on_mover_command(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    sweep__world *w = ss->world;
    sweep_str name = m->as.mover_command.mover;
    char q[96];
    if (name.len == 0) {
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_MOVER, m->sequence, 0, "MoverCommand.mover is empty; name a mover");
        return;
    }
    uint32_t i = find_mover(w, name);
    if (i == SWEEP_NO_MOVER || sweep_movers_trigger(w->movers, i) != SWEEP_OK) {
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_MOVER, m->sequence, 0, "world %s has no mover named %s (%u movers)",
                          w->level.name, sweep__log_quote(name.ptr, name.len, q, sizeof q), w->mover_count);
        return;
    }
    sweep__log(SWEEP_LOG_INFO, "mover_command", "session=%llu world=%u mover=%u name=%s fires_at=%llu",
               (unsigned long long)ss->id, w->index, w->level.movers[i].id,
               sweep__log_quote(name.ptr, name.len, q, sizeof q), (unsigned long long)(w->tick + 1));
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_MOVER_COMMANDED;
    out.sequence = m->sequence;
    out.server_tick = w->tick;
    out.as.mover_commanded.mover = w->level.movers[i].id;
    out.as.mover_commanded.tick = w->tick + 1;
    sweep__send(s, p, &out);
}

static void on_ping(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_PONG;
    out.sequence = m->sequence;
    out.server_tick = p->session ? p->session->world->tick : 0;
    out.as.pong.client_time = m->as.ping.client_time;
    out.as.pong.server_time = uv_hrtime();
    sweep__send(s, p, &out);
}

static void dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags);

void sweep__dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags)
{
    /* The world's tick as of the request's arrival, not of the timer's
     * last callback (world.c): between requests, so the TICK records go
     * before the request's IN and a replay meets them in the same order. */
    if (p->session && p->session->world && !s->offline) {
        if (!p->now)
            p->now = uv_hrtime(); /* TCP: read once, for the rate limit below too */
        sweep__world_catch_up(p->session->world, p->now);
    }
    dispatch(s, p, buf, len, flags);
    sweep__check_invariants(s);
}

static void dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags)
{
    sweep_message m;
    sweep_proto_error e = sweep_decode(&s->decoder, buf, len, flags, &m);
    if (e == SWEEP_PROTO_E_CAPACITY) {
        /* Valid, but more than the server's storage holds: a batch too
         * large, or something that is no request at all (a WorldState or a
         * MoveResult with many contacts), refused as what it is. */
        sweep_msg_kind kind;
        uint32_t seq;
        if (sweep_decode_kind(buf, len, flags, &kind, &seq) == SWEEP_PROTO_OK && !sweep_msg_kind_is_request(kind)) {
            sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_MESSAGE, seq, 0, "%s is not a request this server accepts",
                              sweep_msg_kind_name(kind));
            return;
        }
    }
    if (e != SWEEP_PROTO_OK) {
        sweep__send_error(s, p, sweep_wire_code_from_proto(e), 0, 0, "message refused by the verifier: %s",
                          sweep_proto_error_name(e));
        return;
    }
    s->stats.requests_total++;
    /* Everything a session sends is paid for, Pings and repeated Hellos
     * too, a batch by its moves (at most max_batch: an oversized batch is
     * refused below without emptying the bucket). Bye is always free. */
    if (p->session && m.kind != SWEEP_MSG_BYE) {
        uint32_t n = m.kind == SWEEP_MSG_MOVE_BATCH ? m.as.move_batch.count : 1;
        n = n < 1 ? 1 : n > s->opt.max_batch ? s->opt.max_batch : n;
        /* The clock only when there is a limit: reading it per request is
         * a measurable part of a move otherwise. A UDP request brings the
         * reading of its receive batch: the datagrams of one recvmmsg came
         * in together. */
        uint64_t now = s->opt.rate_limit > 0.0 ? (p->now ? p->now : uv_hrtime()) : 0;
        if (!sweep__bucket_take(&p->session->bucket, (double)n, now)) {
            /* One RateLimited a second, the rest dropped unanswered: a
             * client over its rate must not get an answer per request. */
            sweep__session *ss = p->session;
            ss->rate_dropped++;
            if (!ss->rate_noticed || now - ss->rate_notice_ns >= 1000000000u) {
                ss->rate_noticed = 1;
                ss->rate_notice_ns = now;
                sweep__send_error(s, p, SWEEP_WIRE_RATE_LIMITED, m.sequence, 0,
                                  "over the limit of %g requests per second: this request and the others "
                                  "beyond it in the next second are dropped unanswered",
                                  s->opt.rate_limit);
            }
            return;
        }
    }
    switch (m.kind) {
    case SWEEP_MSG_HELLO:
        sweep__hello(s, p, &m);
        return;
    case SWEEP_MSG_PING:
        on_ping(s, p, &m);
        return;
    case SWEEP_MSG_BYE:
        if (p->conn) {
            sweep__conn_drain(p->conn);
        } else if (p->session) {
            p->session->close_reason = "bye";
            sweep__session_destroy(p->session);
            p->session = NULL;
        }
        return;
    default:
        break;
    }
    if (!p->session) {
        sweep__send_error(s, p, SWEEP_WIRE_NOT_WELCOMED, m.sequence, 0, "%s before Hello/Welcome",
                          sweep_msg_kind_name(m.kind));
        return;
    }
    /* The log keeps each request that changes the world, then what it
     * caused (record.h); the others change nothing a replay needs. */
    sweep__world *w = p->session->world;
    int recorded = sweep_msg_kind_is_recorded(m.kind);
    if (recorded && w->rec)
        sweep__record_message(w, SWEEP_RECORD_IN, p->session->id, buf, len);
    s->capturing = recorded && (w->rec || s->offline);
    if (!sweep__role_allows(s, p, &m)) {
        s->capturing = 0;
        return;
    }
    switch (m.kind) {
    case SWEEP_MSG_SPAWN:
        sweep__spawn(s, p, &m);
        break;
    case SWEEP_MSG_DESPAWN:
        on_despawn(s, p, &m);
        break;
    case SWEEP_MSG_MOVE:
        on_move(s, p, &m);
        break;
    case SWEEP_MSG_MOVE_BATCH:
        on_move_batch(s, p, &m);
        break;
    case SWEEP_MSG_COLLIDE:
        on_collide(s, p, &m);
        break;
    case SWEEP_MSG_GET_STATS:
        on_stats(s, p, &m);
        break;
    case SWEEP_MSG_WATCH_WORLD:
        on_watch_world(s, p, &m);
        break;
    case SWEEP_MSG_MOVER_COMMAND:
        on_mover_command(s, p, &m);
        break;
    default:
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_MESSAGE, m.sequence, 0, "%s is not a request this server accepts",
                          sweep_msg_kind_name(m.kind));
        break;
    }
    s->capturing = 0;
}
