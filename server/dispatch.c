/*
 * dispatch.c - one verified request in, its answers out.
 *
 * Every request is decoded (the decoder verifies first), checked against
 * the session (welcomed? rate? owner?) and answered: a result, or an Error
 * naming the code and the sequence refused. Nothing here can stop the
 * server: bad input only ever produces an Error.
 *
 * Movement semantics (the client SDK's prediction must do exactly this to
 * be bit-identical; documented in server/README.md and sweepd(8)):
 *   - the entity's state is position, radii, grounded flag and its limits,
 *     plus what the movers need (the mover it stands on and the first one
 *     it touched in its last move, and what carried or pushed it since);
 *   - a Move calls sweep_move_in over the world, its movers (at their
 *     poses of the last tick) and, with --players-block, the other
 *     entities' shells where they are now (so the order moves arrive in
 *     decides who blocks whom), with in.position = the stored position
 *     (where the movers left it), in.radii = the spawned radii,
 *     in.velocity = Move.velocity and in.dt = Move.dt exactly as received
 *     (the client adds gravity itself), in.flags = SWEEP_INPUT_GROUNDED if the entity's previous
 *     applied move ended grounded (never, before the first move);
 *   - cfg is the world's config with max_speed and step_height replaced by
 *     the entity's Spawn values when those are > 0 and below the world's;
 *   - on success the new position, grounded flag and movers stood on and
 *     touched are stored, and the result tells what the movers did to the
 *     entity since its previous move (then forgotten); on error nothing
 *     changes;
 *   - a Move whose sequence is not above the entity's last applied one is
 *     not applied: the same sequence gets the stored result again, an older
 *     one an Error.
 */
#include <math.h>
#include <string.h>

#include "server/server_impl.h"

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
    w->max_batch = p->conn || s->opt.max_batch < s->udp_max_batch ? s->opt.max_batch : s->udp_max_batch;
    w->max_frame_size = p->conn ? s->opt.max_frame : SWEEP_UDP_MAX_DATAGRAM;
    w->max_entities = s->opt.max_entities;
}

/* Does a Hello's auth_token equal the command token? Compared in time
 * that depends on the lengths only, so answers cannot be timed to guess
 * the token byte by byte. No token configured trusts nobody. */
static int token_matches(const char *token, sweep_str given)
{
    size_t n = strlen(token);
    if (n == 0 || given.ptr == NULL || given.len != n)
        return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(token[i] ^ given.ptr[i]);
    return diff == 0;
}

int sweep__hello(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    const sweep_msg_hello *h = &m->as.hello;
    sweep_message out;
    if (h->protocol_version != SWEEP_PROTOCOL_VERSION) {
        sweep__send_error(s, p, SWEEP_WIRE_VERSION_MISMATCH, m->sequence, 0,
                          "protocol version %u is not supported; this server speaks %u", h->protocol_version,
                          SWEEP_PROTOCOL_VERSION);
        return -1;
    }
    if (p->session) {
        /* A repeated Hello (a UDP client whose Welcome was lost) gets the
         * same Welcome again; the session and its world stay. */
        fill_welcome(s, p->session, p, &out, m->sequence);
        return sweep__send(s, p, &out);
    }
    if (s->stopping)
        return -1;
    sweep__world *w = sweep__world_find(s, h->world.ptr);
    if (!w) {
        char q[80];
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_WORLD, m->sequence, 0, "no world named %s (the first is '%s')",
                          sweep__log_quote(h->world.ptr, h->world.len, q, sizeof q), s->worlds[0].level.name);
        return -1;
    }
    if (s->session_count >= s->opt.max_sessions) {
        sweep__send_error(s, p, SWEEP_WIRE_TOO_MANY_SESSIONS, m->sequence, 0,
                          "the server already has its maximum of %u sessions", s->opt.max_sessions);
        if (p->conn)
            sweep__conn_drain(p->conn);
        return -1;
    }
    sweep__session *ss = sweep__session_create(s, w, p->conn ? SWEEP__TCP : SWEEP__UDP);
    if (!ss) {
        sweep__send_error(s, p, SWEEP_WIRE_INTERNAL, m->sequence, 0, "out of memory");
        return -1;
    }
    ss->trusted = token_matches(s->opt.command_token, h->auth_token);
    if (p->conn) {
        ss->conn = p->conn;
        p->conn->session = ss;
        snprintf(ss->peer, sizeof ss->peer, "%s", p->conn->peer);
    } else {
        sweep__udp_session_bind(ss, p->addr);
    }
    if (h->client_name.ptr) {
        size_t n = h->client_name.len < sizeof ss->client_name - 1 ? h->client_name.len : sizeof ss->client_name - 1;
        memcpy(ss->client_name, h->client_name.ptr, n);
        ss->client_name[n] = 0;
    }
    p->session = ss;
    p->budget = SIZE_MAX;
    char q[96];
    sweep__log(SWEEP_LOG_INFO, "session_open", "session=%llu transport=%s peer=%s world=%s client=%s trusted=%d",
               (unsigned long long)ss->id, p->conn ? "tcp" : "udp", ss->peer, w->level.name,
               sweep__log_quote(ss->client_name, strlen(ss->client_name), q, sizeof q), ss->trusted);
    fill_welcome(s, ss, p, &out, m->sequence);
    return sweep__send(s, p, &out);
}

/* Checks an entity id against the session: the entity, or NULL after
 * sending UnknownEntity / NotYourEntity. */
static sweep__entity *own_entity(sweep_server *s, sweep__peer *p, uint32_t id, uint32_t sequence)
{
    sweep__entity *e = sweep__entity_table_find(&s->entities, id);
    if (!e) {
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_ENTITY, sequence, id, "no entity %u", id);
        return NULL;
    }
    if (e->owner != p->session) {
        sweep__send_error(s, p, SWEEP_WIRE_NOT_YOUR_ENTITY, sequence, id,
                          "entity %u belongs to another session", id);
        return NULL;
    }
    return e;
}

static void send_spawned(sweep_server *s, sweep__peer *p, uint32_t sequence, const sweep__entity *e)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_SPAWNED;
    m.sequence = sequence;
    m.server_tick = p->session->world->tick;
    m.as.spawned.entity = e->id;
    m.as.spawned.position = e->position;
    m.as.spawned.radii = e->radii;
    sweep__send(s, p, &m);
}

static void on_spawn(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    const sweep_msg_spawn *sp = &m->as.spawn;
    const sweep_config *cfg = &ss->world->level.config;
    uint32_t seq = m->sequence;

    /* UDP may deliver a Spawn twice: the same sequence gets the same entity. */
    if (ss->transport == SWEEP__UDP && ss->has_spawn && ss->spawn_sequence == seq) {
        sweep__entity *e = sweep__entity_table_find(&s->entities, ss->spawn_entity);
        if (e && e->owner == ss) {
            send_spawned(s, p, seq, e);
            return;
        }
    }
    if (ss->entity_count >= s->opt.max_entities) {
        sweep__send_error(s, p, SWEEP_WIRE_TOO_MANY_ENTITIES, seq, 0, "a session may own at most %u entities",
                          s->opt.max_entities);
        return;
    }
    sweep_vec3 r = sp->radii;
    if (r.x == 0.0 && r.y == 0.0 && r.z == 0.0)
        r = ss->world->level.default_radii;
    if (!sweep_v3_isfinite(r) || !sweep_v3_isfinite(sp->position) || !isfinite(sp->max_speed) ||
        !isfinite(sp->step_height)) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_NUMBER, seq, 0, "Spawn holds a NaN or infinite number");
        return;
    }
    /* The same radius rule as sweep_move, so a spawned entity can move. */
    double rmin = fmin(r.x, fmin(r.y, r.z)), rmax = fmax(r.x, fmax(r.y, r.z));
    if (!(rmin >= cfg->min_radius && rmax <= cfg->max_radius && rmax <= rmin * cfg->max_anisotropy)) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_RADII, seq, 0,
                          "radii (%g, %g, %g) outside [%g, %g] or more anisotropic than %g", r.x, r.y, r.z,
                          cfg->min_radius, cfg->max_radius, cfg->max_anisotropy);
        return;
    }
    sweep_vec3 q = sp->position;
    if (sp->spawn_point > 0) {
        const sweep_level *lv = &ss->world->level;
        if (sp->spawn_point > lv->spawn_count) {
            sweep__send_error(s, p, SWEEP_WIRE_BAD_POSITION, seq, 0, "spawn point %u asked, the map has %u",
                              sp->spawn_point, lv->spawn_count);
            return;
        }
        q = lv->spawns[sp->spawn_point - 1];
    }
    if (fabs(q.x) > cfg->max_coordinate || fabs(q.y) > cfg->max_coordinate || fabs(q.z) > cfg->max_coordinate) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_POSITION, seq, 0, "position beyond the world limit %g",
                          cfg->max_coordinate);
        return;
    }
    if (sp->max_speed < 0.0) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_VELOCITY, seq, 0, "max_speed %g is negative", sp->max_speed);
        return;
    }
    if (sp->step_height < 0.0) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_NUMBER, seq, 0, "step_height %g is negative", sp->step_height);
        return;
    }
    sweep__entity *e = sweep__session_spawn(ss);
    if (!e) {
        sweep__send_error(s, p, SWEEP_WIRE_INTERNAL, seq, 0, "out of memory");
        return;
    }
    e->position = q;
    e->radii = r;
    e->grounded = 0;
    sweep__world_place_entity(ss->world, e);
    /* A client may tighten the world's limits for its entity, never loosen them. */
    e->max_speed = sp->max_speed > 0.0 && sp->max_speed < cfg->max_speed ? sp->max_speed : cfg->max_speed;
    e->step_height = sp->step_height > 0.0 && sp->step_height < cfg->step_height ? sp->step_height : cfg->step_height;
    ss->has_spawn = 1;
    ss->spawn_sequence = seq;
    ss->spawn_entity = e->id;
    sweep__log(SWEEP_LOG_DEBUG, "spawn", "session=%llu entity=%u", (unsigned long long)ss->id, e->id);
    send_spawned(s, p, seq, e);
}

static void on_despawn(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__entity *e = own_entity(s, p, m->as.despawn.entity, m->sequence);
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

/* Applies one Move (or answers a duplicate): 0 with *out filled, or -1
 * after an Error was sent. */
static int apply_move(sweep_server *s, sweep__peer *p, const sweep_msg_move *mv, sweep_msg_move_result *out)
{
    sweep__entity *e = own_entity(s, p, mv->entity, mv->sequence);
    if (!e)
        return -1;
    if (e->has_last && mv->sequence <= e->last_sequence) {
        if (mv->sequence == e->last_sequence) {
            *out = e->last_result; /* a resend: the answer it already had */
            return 0;
        }
        sweep__send_error(s, p, SWEEP_WIRE_STALE_SEQUENCE, mv->sequence, e->id,
                          "stale sequence: move %u is older than the last applied move %u of entity %u",
                          mv->sequence, e->last_sequence, e->id);
        return -1;
    }
    if (mv->has_claimed_position && !sweep_v3_isfinite(mv->claimed_position)) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_NUMBER, mv->sequence, e->id, "claimed_position is not finite");
        return -1;
    }
    sweep__world *w = p->session->world;
    sweep_config cfg = w->level.config;
    cfg.max_speed = e->max_speed;
    cfg.step_height = e->step_height;
    sweep_move_input in;
    in.position = e->position;
    in.radii = e->radii;
    in.velocity = mv->velocity;
    in.dt = mv->dt;
    in.flags = e->grounded ? SWEEP_INPUT_GROUNDED : 0;
    sweep_move_result res;
    sweep_space space = sweep__world_space(w, e);
    sweep_status st = sweep_move_in(&space, &cfg, &in, &res);
    if (st != SWEEP_OK) {
        sweep__send_error(s, p, sweep_wire_code_from_status(st), mv->sequence, e->id, "move of entity %u: %s", e->id,
                          sweep_status_message(st));
        return -1;
    }
    e->position = res.position;
    sweep__world_place_entity(w, e);
    e->grounded = (res.flags & SWEEP_MOVED_GROUNDED) != 0;
    e->has_last = 1;
    e->last_sequence = mv->sequence;
    e->ground_mover = res.ground_mover;
    e->touch_mover = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < res.contact_count; i++) {
        if (res.contacts[i].mover != SWEEP_NO_MOVER) {
            e->touch_mover = res.contacts[i].mover;
            break;
        }
    }

    memset(out, 0, sizeof *out);
    out->entity = e->id;
    out->sequence = mv->sequence;
    out->server_tick = w->tick;
    out->position = res.position;
    out->velocity = res.velocity;
    out->grounded = e->grounded != 0;
    out->ground_normal = res.ground_normal;
    out->ground_material = res.ground_material;
    out->contact_count = res.contact_count;
    memcpy(out->contacts, res.contacts, res.contact_count * sizeof res.contacts[0]);
    if (mv->has_claimed_position) {
        sweep_vec3 c = mv->claimed_position;
        out->corrected = c.x != res.position.x || c.y != res.position.y || c.z != res.position.z;
        out->correction = out->corrected ? sweep_v3_len(sweep_v3_sub(c, res.position)) : 0.0;
    }
    /* What the movers did since the previous move is told once, here. */
    out->ground_mover = sweep__world_mover_id(w, res.ground_mover);
    if (e->moved_flags) {
        out->carried = (e->moved_flags & SWEEP_BODY_CARRIED) != 0;
        out->pushed = (e->moved_flags & SWEEP_BODY_PUSHED) != 0;
        out->pushed_by = sweep__world_mover_id(w, e->moved_by);
        out->has_start_position = true;
        out->start_position = in.position;
        e->moved_flags = 0;
        e->moved_by = SWEEP_NO_MOVER;
    }
    e->last_result = *out;
    s->stats.moves_total++;
    return 0;
}

static void on_move(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep_message out;
    memset(&out, 0, sizeof out);
    if (apply_move(s, p, &m->as.move, &out.as.move_result) != 0)
        return;
    out.kind = SWEEP_MSG_MOVE_RESULT;
    out.sequence = m->sequence;
    out.server_tick = out.as.move_result.server_tick;
    sweep__send(s, p, &out);
}

static void on_move_batch(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    const sweep_msg_move_batch *b = &m->as.move_batch;
    if (b->count > s->opt.max_batch) {
        sweep__send_error(s, p, SWEEP_WIRE_BATCH_TOO_LARGE, m->sequence, 0,
                          "batch of %u moves; at most %u are accepted", b->count, s->opt.max_batch);
        return;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->count; i++) {
        if (apply_move(s, p, &b->moves[i], &s->results[n]) == 0)
            n++;
        if (p->conn && p->conn->state != SWEEP__CONN_OPEN)
            return; /* dropped as a slow reader while answering */
    }
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
    sweep_msg_collide_result *r = &out.as.collide_result;
    r->position = res.position;
    r->velocity = res.velocity;
    r->grounded = (res.flags & SWEEP_MOVED_GROUNDED) != 0;
    r->ground_normal = res.ground_normal;
    r->ground_material = res.ground_material;
    r->contact_count = res.contact_count;
    memcpy(r->contacts, res.contacts, res.contact_count * sizeof res.contacts[0]);
    r->ground_mover = sweep__world_mover_id(w, res.ground_mover);
    sweep__send(s, p, &out);
}

static void on_stats(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_STATS;
    out.sequence = m->sequence;
    out.server_tick = p->session->world->tick;
    out.as.stats.sessions = s->session_count;
    out.as.stats.entities = s->entities.count;
    out.as.stats.moves_total = s->stats.moves_total;
    out.as.stats.errors_total = s->stats.errors_total;
    out.as.stats.tick_ns_p50 = sweep__stats_tick_percentile(&s->stats, 50);
    out.as.stats.tick_ns_p99 = sweep__stats_tick_percentile(&s->stats, 99);
    for (unsigned i = 0; i < s->world_count; i++)
        out.as.stats.movers += s->worlds[i].mover_count;
    out.as.stats.crushed_total = s->stats.crushed_total;
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

/* MoverCommand: trusted sessions fire a mover's trigger at the next tick.
 * Trust is checked first, so others cannot even learn which names exist. */
static void on_mover_command(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    sweep__world *w = ss->world;
    sweep_str name = m->as.mover_command.mover;
    char q[96];
    if (!ss->trusted) {
        if (!s->opt.command_token[0])
            sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0,
                              "MoverCommand needs a trusted session, and this server trusts none (no "
                              "--command-token)");
        else
            sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0,
                              "MoverCommand needs a trusted session: Hello.auth_token must be the server's "
                              "--command-token");
        return;
    }
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

void sweep__dispatch(sweep_server *s, sweep__peer *p, const uint8_t *buf, size_t len, unsigned flags)
{
    sweep_message m;
    sweep_proto_error e = sweep_decode(&s->decoder, buf, len, flags, &m);
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
        if (!sweep__bucket_take(&p->session->bucket, (double)n, uv_hrtime())) {
            sweep__send_error(s, p, SWEEP_WIRE_RATE_LIMITED, m.sequence, 0,
                              "over the limit of %g requests per second", s->opt.rate_limit);
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
    switch (m.kind) {
    case SWEEP_MSG_SPAWN:
        on_spawn(s, p, &m);
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
}
