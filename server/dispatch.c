/*
 * dispatch.c - one verified request in, its answers out.
 *
 * Every request is decoded (the decoder verifies first), checked against
 * the session (welcomed? rate? owner? role?) and answered: a result, or an
 * Error naming the code and the sequence refused. Nothing here can stop
 * the server: bad input only ever produces an Error.
 *
 * Who a session is comes from auth.c; the requests that act on a world
 * (Spawn, Despawn, Move, MoveBatch, Collide, MoverCommand, EntityCommands)
 * or read it (GetEntity) are the world library's (server/world/), applied
 * through outcomes.c, whose sink turns what they cause into sends and
 * records. Here are the session's own: Hello, Ping, Bye, GetStats,
 * WatchWorld and WatchEntities (entity_watch.c); and the server's own, of
 * the server role: OpenWorld and CloseWorld (world_open.c).
 */
#include <math.h>
#include <string.h>

#include "server/record/record.h"
#include "server/server_impl.h"
#include "server/world/alloc.h"

/* The most moves a MoveBatch of this peer may hold: what its Welcome
 * announced (over UDP, what one datagram of the session's agreed size
 * holds with every field and a claimed position in each move). */
static uint32_t batch_limit(const sweep_server *s, const sweep__peer *p, const sweep__udp_fit *fit)
{
    return p->tcp || s->opt.max_batch < fit->batch ? s->opt.max_batch : fit->batch;
}

static void fill_welcome(sweep_server *s, const sweep__session *ss, const sweep__peer *p, sweep_message *m,
                         uint32_t sequence)
{
    memset(m, 0, sizeof *m);
    m->kind = SWEEP_MSG_WELCOME;
    m->sequence = sequence;
    const sweep__world *world = ss->world->world;
    m->server_tick = world->tick;
    sweep_msg_welcome *w = &m->as.welcome;
    w->protocol_version = SWEEP_PROTOCOL_VERSION;
    w->session_id = ss->id;
    w->tick_rate = world->tick_rate;
    w->map_name = sweep_str_of(world->level.name);
    w->map_hash.ptr = world->hash.bytes;
    w->map_hash.len = sizeof world->hash.bytes;
    /* Over UDP a batch must fit one datagram: announce what does, and
     * the datagram size the handshake agreed. */
    w->max_batch = batch_limit(s, p, &ss->udp_fit);
    w->max_frame_size = p->tcp ? s->opt.max_frame : ss->udp_fit.datagram;
    w->max_entities = ss->own.max_entities; /* its role's */
    w->role = (uint8_t)ss->own.role;
    w->identity = sweep_str_of(ss->own.identity);
    w->time_bank = s->opt.time_bank;
    /* The thread's own port (--threads N > 1; 0, so absent, with one):
     * where the session's datagrams reach its world's thread directly. */
    w->udp_port = p->tcp ? 0 : (uint16_t)s->direct_port;
    w->udp_key = ss->udp_key;
}

int sweep__hello(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    const sweep_msg_hello *h = &m->as.hello;
    sweep_message out;
    if (p->session && !p->tcp) {
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
    sweep__served *w = sweep__world_find(s, h->world.ptr, &owner);
    if (!w) {
        char q[80];
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_WORLD, m->sequence, 0, "no world named %s (%u are open)",
                          sweep__log_quote(h->world.ptr, h->world.len, q, sizeof q), sweep__world_table_open(s));
        return -1;
    }
    if (owner != s->thread) {
        /* Another thread's world (threads.c): the connection, or this
         * datagram, goes there and is answered there, and counted there:
         * the owner dispatches this Hello again (a UDP handshake's Hello
         * was not counted here: that would wrap the counter round). */
        if (p->counted)
            s->stats.requests_total--;
        if (p->conn) {
            p->conn->handover_to = owner + 1;
            return 0;
        }
        if (p->datagram)
            return sweep__handoff_datagram(s, owner, p->addr, p->datagram, p->datagram_len, 0);
        return -1;
    }
    /* A world opened for this thread may be named before its inbox is
     * read: it joins the thread now. */
    sweep__world_adopt(s, w);
    if (!w->started) {
        sweep__send_error(s, p, SWEEP_WIRE_INTERNAL, m->sequence, 0, "world %s could not be started here",
                          w->name);
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
    /* UDP: the datagram size of the session, both ways, from now on. */
    uint32_t asked = h->max_datagram ? h->max_datagram : SWEEP_UDP_MAX_DATAGRAM;
    sweep__udp_fit_for(s, p->tcp ? SWEEP_UDP_MAX_DATAGRAM : sweep_udp_datagram_agreed(asked, s->opt.udp_max_datagram),
                       &ss->udp_fit);
    sweep__session_own(ss, role, identity, batch_limit(s, p, &ss->udp_fit));
    if (p->conn) {
        ss->conn = p->conn;
        p->conn->session = ss;
        snprintf(ss->peer, sizeof ss->peer, "%s", p->conn->peer);
    } else {
        sweep__udp_session_bind(ss, p->addr, p->direct);
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
               (unsigned long long)ss->id, p->conn ? "tcp" : "udp", ss->peer, w->name,
               sweep__log_quote(ss->client_name, strlen(ss->client_name), q, sizeof q),
               sweep_wire_role_name(ss->own.role),
               sweep__log_quote(ss->own.identity, strlen(ss->own.identity), qi, sizeof qi));
    fill_welcome(s, ss, p, &out, m->sequence);
    sweep__session_welcomed(ss);
    return sweep__send(s, p, &out);
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
    out.server_tick = p->session->world->world->tick;
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
        out.as.stats.session_rules[i] = p->session->own.rule_counts[i];
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
    /* The open worlds, as many as the message holds (a datagram, or the
     * server's frame): the largest count that fits, by bisection. */
    uint32_t n = 0;
    sweep__world_entry *list = sweep__world_table_list(s, &n);
    sweep_wire_world_info *info = n ? sweep__calloc(n, sizeof *info) : NULL;
    if (!info)
        n = 0;
    for (uint32_t i = 0; i < n; i++) {
        info[i].world = list[i].id;
        info[i].name = sweep_str_of(list[i].name);
        info[i].map = sweep_str_of(list[i].map);
        info[i].sessions = list[i].sessions;
        info[i].entities = list[i].entities;
        info[i].triangles = list[i].triangles;
        info[i].tick = list[i].tick;
    }
    out.as.stats.worlds = info;
    out.as.stats.worlds_open = sweep__world_table_open(s);
    size_t limit = p->tcp ? s->opt.max_frame : sweep__peer_udp_fit(s, p)->datagram;
    uint32_t lo = 0, hi = n; /* lo fits (no worlds always does), hi is the most to try */
    out.as.stats.worlds_count = hi;
    if (sweep__send_sized(s, p, &out, limit) == 1) {
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            out.as.stats.worlds_count = mid;
            const uint8_t *bytes;
            size_t len;
            sweep_proto_error e = sweep_encode(&out, 0, s->out_buf, s->out_cap, &bytes, &len);
            if (e == SWEEP_PROTO_OK && len <= limit)
                lo = mid;
            else
                hi = mid;
        }
        out.as.stats.worlds_count = lo;
        out.as.stats.worlds = lo ? info : NULL;
        sweep__send(s, p, &out);
    }
    free(info);
    free(list);
}

/* WatchWorld: the session's interval, and the poses at once. */
static void on_watch_world(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    uint32_t every = m->as.watch_world.every;
    if (every != ss->watch_every)
        sweep__owner_log(&ss->own, p->now ? p->now : uv_hrtime(), SWEEP_LOG_DEBUG, "watch_world",
                         "session=%llu every=%u", (unsigned long long)ss->id, every);
    ss->watch_every = every;
    sweep__session_watch(ss);
    sweep__send_world_state(s, p, ss->world, m->sequence);
}

static void on_ping(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_PONG;
    out.sequence = m->sequence;
    out.server_tick = p->session ? p->session->world->world->tick : 0;
    out.as.pong.client_time = m->as.ping.client_time;
    out.as.pong.server_time = uv_hrtime();
    sweep__send(s, p, &out);
}

static void dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags);

int sweep__request_paid(sweep_server *s, sweep__peer *p, uint32_t n, uint32_t seq)
{
    /* The clock only when there is a limit: reading it per request is a
     * measurable part of a move otherwise. A UDP request brings the
     * reading of its receive batch: the datagrams of one recvmmsg came in
     * together. */
    sweep__session *ss = p->session;
    uint64_t now = ss->bucket.rate > 0.0 ? (p->now ? p->now : uv_hrtime()) : 0;
    if (sweep__bucket_take(&ss->bucket, (double)n, now))
        return 1;
    ss->rate_dropped++;
    if (!ss->rate_noticed || now - ss->rate_notice_ns >= 1000000000u) {
        ss->rate_noticed = 1;
        ss->rate_notice_ns = now;
        sweep__send_error(s, p, SWEEP_WIRE_RATE_LIMITED, seq, 0,
                          "over the limit of %g requests per second (%s): this request and the others "
                          "beyond it in the next second are dropped unanswered",
                          ss->bucket.rate,
                          ss->own.role == SWEEP_WIRE_ROLE_SERVER ? "--rate-limit-server" : "--rate-limit");
    }
    return 0;
}

void sweep__dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags)
{
    /* The world's tick as of the request's arrival, not of the timer's
     * last callback (world.c): between requests, so the TICK records go
     * before the request's IN and a replay meets them in the same order. */
    if (p->session && p->session->world) {
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
    sweep_proto_error e = sweep_decode(&s->requests.dec, buf, len, flags, &m);
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
        /* A session pays for what the verifier refuses as for a request:
         * garbage at any speed got an Error each, more of the server's work
         * than the session's rate allows it. */
        if (p->session && !sweep__request_paid(s, p, 1, 0))
            return;
        sweep__send_error(s, p, sweep_wire_code_from_proto(e), 0, 0, "message refused by the verifier: %s",
                          sweep_proto_error_name(e));
        return;
    }
    s->stats.requests_total++;
    p->counted = 1;
    /* Everything a session sends is paid for, Pings and repeated Hellos
     * too, a batch by its moves, EntityCommands by its commands and a
     * Query by its items (at most max_batch: an oversized one is refused
     * below without emptying the bucket). Bye is always free. */
    if (p->session && m.kind != SWEEP_MSG_BYE) {
        uint32_t n = m.kind == SWEEP_MSG_MOVE_BATCH       ? m.as.move_batch.count
                     : m.kind == SWEEP_MSG_ENTITY_COMMANDS ? m.as.entity_commands.count
                     : m.kind == SWEEP_MSG_QUERY           ? m.as.query.count
                                                           : 1;
        n = n < 1 ? 1 : n > s->opt.max_batch ? s->opt.max_batch : n;
        if (!sweep__request_paid(s, p, n, m.sequence))
            return;
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
     * caused (record.h); the others change nothing a replay needs. A kind
     * recorded by the protocol that this world does not apply (yet) changes
     * nothing either, and a replay would call its IN a corrupt log. */
    sweep__served *w = p->session->world;
    const int handled = sweep__world_handles(m.kind);
    int recorded = handled && sweep_msg_kind_is_recorded(m.kind);
    if (recorded && w->rec)
        sweep__record_message(w, SWEEP_RECORD_IN, p->session->id, buf, len);
    p->record = recorded && w->rec;
    if (handled) {
        sweep__world_apply(s, p, &m);
        p->record = 0;
        return;
    }
    switch (m.kind) {
    case SWEEP_MSG_GET_STATS:
        on_stats(s, p, &m);
        break;
    case SWEEP_MSG_WATCH_WORLD:
        on_watch_world(s, p, &m);
        break;
    case SWEEP_MSG_WATCH_ENTITIES:
        sweep__watch_entities(s, p, &m);
        break;
    case SWEEP_MSG_OPEN_WORLD:
        sweep__open_world(s, p, &m);
        break;
    case SWEEP_MSG_CLOSE_WORLD:
        sweep__close_world(s, p, &m);
        break;
    default:
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_MESSAGE, m.sequence, 0, "%s is not a request this server accepts",
                          sweep_msg_kind_name(m.kind));
        break;
    }
    p->record = 0;
}
