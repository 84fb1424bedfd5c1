/*
 * decode.c - verified FlatBuffer to sweep_message (decode.h), one function
 * per table of sweep.fbs, the body's found by kind in a table built from
 * kinds.h.
 *
 * Everything below runs only on a buffer sweep_verify_with accepted, so it
 * reads without bounds checks: an offset, a vtable entry or a vector count
 * here is known to be in range. The asserts restate what the verifier
 * proved; they are never about the caller's input.
 */
#include "protocol/decode.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "core/bytes.h"
#include "protocol/contact_image.h"
#include "protocol/format.h"
#include "protocol/kinds.h"
#include "protocol/medium_image.h"
#include "protocol/schema.h"
#include "protocol/verify_internal.h"

/* A table inside a verified buffer. */
typedef struct tab {
    const uint8_t *b;
    size_t pos;
    size_t vt;
    uint16_t vsize;
} tab;

static tab tab_at(const uint8_t *b, size_t pos)
{
    tab t = {b, pos, 0, 0};
    t.vt = (size_t)((int64_t)pos - (int32_t)sweep__rd32(b + pos));
    t.vsize = sweep__rd16(b + t.vt);
    return t;
}

/* Position of field id, or 0 if absent. */
static size_t fpos(const tab *t, unsigned id)
{
    size_t entry = 4 + 2 * (size_t)id;
    if (entry + 2 > t->vsize)
        return 0;
    uint16_t o = sweep__rd16(t->b + t->vt + entry);
    return o ? t->pos + o : 0;
}

static size_t deref(const tab *t, size_t pos)
{
    return pos + sweep__rd32(t->b + pos);
}

static uint8_t get_u8(const tab *t, unsigned id)
{
    size_t p = fpos(t, id);
    return p ? t->b[p] : 0;
}

static uint16_t get_u16(const tab *t, unsigned id)
{
    size_t p = fpos(t, id);
    return p ? sweep__rd16(t->b + p) : 0;
}

static uint32_t get_u32(const tab *t, unsigned id)
{
    size_t p = fpos(t, id);
    return p ? sweep__rd32(t->b + p) : 0;
}

static uint64_t get_u64(const tab *t, unsigned id)
{
    size_t p = fpos(t, id);
    return p ? sweep__rd64(t->b + p) : 0;
}

static double get_f64(const tab *t, unsigned id)
{
    size_t p = fpos(t, id);
    return p ? sweep__rdf64(t->b + p) : 0.0;
}

static sweep_vec3 get_vec3(const tab *t, unsigned id, bool *present)
{
    size_t p = fpos(t, id);
    if (present)
        *present = p != 0;
    return p ? sweep__rdvec3(t->b + p) : sweep_v3(0.0, 0.0, 0.0);
}

static sweep_str get_str(const tab *t, unsigned id)
{
    sweep_str s = {NULL, 0};
    size_t p = fpos(t, id);
    if (p) {
        size_t at = deref(t, p);
        s.len = sweep__rd32(t->b + at);
        s.ptr = (const char *)t->b + at + 4;
        assert(s.ptr[s.len] == '\0');
    }
    return s;
}

/* Vector at field id: its count and the position of element 0. */
static uint32_t get_vector(const tab *t, unsigned id, size_t *elems)
{
    size_t p = fpos(t, id);
    if (!p)
        return 0;
    size_t at = deref(t, p);
    *elems = at + 4;
    return sweep__rd32(t->b + at);
}

/* A [ubyte] field as a view into the buffer; ptr NULL when absent (an
 * empty but present vector keeps a non-NULL ptr, so presence survives). */
static sweep_bytes get_bytes(const tab *t, unsigned id)
{
    sweep_bytes v = {NULL, 0};
    size_t e = 0;
    if (fpos(t, id)) {
        v.len = get_vector(t, id, &e);
        v.ptr = t->b + e;
    }
    return v;
}

static sweep_proto_error get_contacts(const tab *t, unsigned id, sweep_contact *out, uint32_t *count)
{
    size_t e = 0;
    uint32_t n = get_vector(t, id, &e);
    if (n > SWEEP_MAX_CONTACTS)
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++)
        out[i] = sweep__contact_read(t->b + e + (size_t)i * SWEEP__CONTACT_SIZE);
    *count = n;
    return SWEEP_PROTO_OK;
}

static void get_move(const tab *t, sweep_msg_move *m)
{
    m->entity = get_u32(t, SWEEP__MOVE_ENTITY);
    m->sequence = get_u32(t, SWEEP__MOVE_SEQUENCE);
    m->client_tick = get_u64(t, SWEEP__MOVE_CLIENT_TICK);
    m->velocity = get_vec3(t, SWEEP__MOVE_VELOCITY, NULL);
    m->dt = get_f64(t, SWEEP__MOVE_DT);
    m->claimed_position = get_vec3(t, SWEEP__MOVE_CLAIMED_POSITION, &m->has_claimed_position);
    m->buttons = get_u32(t, SWEEP__MOVE_BUTTONS);
    m->mode = get_u8(t, SWEEP__MOVE_MODE);
}

/* A [ulong] vector of at most cap entries (the room in the message); absent
 * is empty. */
static sweep_proto_error get_u64s(const tab *t, unsigned id, uint64_t *out, uint32_t cap, uint32_t *count)
{
    size_t e = 0;
    uint32_t n = get_vector(t, id, &e);
    if (n > cap)
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++)
        out[i] = sweep__rd64(t->b + e + 8 * (size_t)i);
    *count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error get_move_result(const tab *t, sweep_msg_move_result *r)
{
    r->entity = get_u32(t, SWEEP__MR_ENTITY);
    r->sequence = get_u32(t, SWEEP__MR_SEQUENCE);
    r->server_tick = get_u64(t, SWEEP__MR_SERVER_TICK);
    r->position = get_vec3(t, SWEEP__MR_POSITION, NULL);
    r->velocity = get_vec3(t, SWEEP__MR_VELOCITY, NULL);
    r->grounded = get_u8(t, SWEEP__MR_GROUNDED) != 0;
    r->ground_normal = get_vec3(t, SWEEP__MR_GROUND_NORMAL, NULL);
    r->ground_material = get_u32(t, SWEEP__MR_GROUND_MATERIAL);
    r->corrected = get_u8(t, SWEEP__MR_CORRECTED) != 0;
    r->correction = get_f64(t, SWEEP__MR_CORRECTION);
    r->ground_mover = get_u32(t, SWEEP__MR_GROUND_MOVER);
    r->pushed_by = get_u32(t, SWEEP__MR_PUSHED_BY);
    r->carried = get_u8(t, SWEEP__MR_CARRIED) != 0;
    r->pushed = get_u8(t, SWEEP__MR_PUSHED) != 0;
    r->start_position = get_vec3(t, SWEEP__MR_START_POSITION, &r->has_start_position);
    r->rules = get_u32(t, SWEEP__MR_RULES);
    r->speed_excess = get_f64(t, SWEEP__MR_SPEED_EXCESS);
    r->time_excess = get_f64(t, SWEEP__MR_TIME_EXCESS);
    r->applied_dt = get_f64(t, SWEEP__MR_APPLIED_DT);
    r->launched_by = get_u32(t, SWEEP__MR_LAUNCHED_BY);
    r->teleported_by = get_u32(t, SWEEP__MR_TELEPORTED_BY);
    r->teleport_blocked = get_u8(t, SWEEP__MR_TELEPORT_BLOCKED) != 0;
    r->hurt_by = get_u32(t, SWEEP__MR_HURT_BY);
    r->damage = get_f64(t, SWEEP__MR_DAMAGE);
    r->killed_by = get_u32(t, SWEEP__MR_KILLED_BY);
    r->entered = get_u32(t, SWEEP__MR_ENTERED);
    r->left = get_u32(t, SWEEP__MR_LEFT);
    r->crouched = get_u8(t, SWEEP__MR_CROUCHED) != 0;
    r->stance_blocked = get_u8(t, SWEEP__MR_STANCE_BLOCKED) != 0;
    size_t medium = fpos(t, SWEEP__MR_MEDIUM);
    sweep__medium_read(medium ? t->b + medium : NULL, r);
    return get_contacts(t, SWEEP__MR_CONTACTS, r->contacts, &r->contact_count);
}

/* Element i of a vector of tables at `elems`. */
static tab table_elem(const uint8_t *b, size_t elems, uint32_t i)
{
    size_t p = elems + 4 * (size_t)i;
    return tab_at(b, p + sweep__rd32(b + p));
}

/*
 * The body decoders, one per kind, in the order of union Body. Each fills
 * m->as from the verified body table t; d lends the storage of batches and
 * movers (NULL: none, so any item is past capacity), and is unused by the
 * kinds whose values the message holds. SWEEP_PROTO_E_CAPACITY when the
 * buffer holds more than that storage or the struct has room for.
 */
typedef sweep_proto_error (*body_decoder)(const sweep_decoder *d, const tab *t, sweep_message *m);

static sweep_proto_error decode_hello(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.hello.protocol_version = get_u32(t, SWEEP__HELLO_PROTOCOL_VERSION);
    m->as.hello.client_name = get_str(t, SWEEP__HELLO_CLIENT_NAME);
    m->as.hello.auth_token = get_str(t, SWEEP__HELLO_AUTH_TOKEN);
    m->as.hello.world = get_str(t, SWEEP__HELLO_WORLD);
    m->as.hello.cookie = get_bytes(t, SWEEP__HELLO_COOKIE);
    m->as.hello.padding = get_bytes(t, SWEEP__HELLO_PADDING);
    m->as.hello.max_datagram = get_u32(t, SWEEP__HELLO_MAX_DATAGRAM);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_welcome(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    sweep_msg_welcome *w = &m->as.welcome;
    w->protocol_version = get_u32(t, SWEEP__WELCOME_PROTOCOL_VERSION);
    w->session_id = get_u64(t, SWEEP__WELCOME_SESSION_ID);
    w->tick_rate = get_f64(t, SWEEP__WELCOME_TICK_RATE);
    w->map_name = get_str(t, SWEEP__WELCOME_MAP_NAME);
    w->map_hash = get_bytes(t, SWEEP__WELCOME_MAP_HASH);
    w->max_batch = get_u32(t, SWEEP__WELCOME_MAX_BATCH);
    w->max_frame_size = get_u32(t, SWEEP__WELCOME_MAX_FRAME_SIZE);
    w->max_entities = get_u32(t, SWEEP__WELCOME_MAX_ENTITIES);
    w->role = get_u8(t, SWEEP__WELCOME_ROLE);
    w->identity = get_str(t, SWEEP__WELCOME_IDENTITY);
    w->time_bank = get_f64(t, SWEEP__WELCOME_TIME_BANK);
    w->udp_port = get_u16(t, SWEEP__WELCOME_UDP_PORT);
    w->udp_key = get_u64(t, SWEEP__WELCOME_UDP_KEY);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_spawn(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.spawn.radii = get_vec3(t, SWEEP__SPAWN_RADII, NULL);
    m->as.spawn.position = get_vec3(t, SWEEP__SPAWN_POSITION, NULL);
    m->as.spawn.max_speed = get_f64(t, SWEEP__SPAWN_MAX_SPEED);
    m->as.spawn.step_height = get_f64(t, SWEEP__SPAWN_STEP_HEIGHT);
    m->as.spawn.spawn_point = get_u32(t, SWEEP__SPAWN_SPAWN_POINT);
    m->as.spawn.player = get_u8(t, SWEEP__SPAWN_PLAYER) != 0;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_spawned(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.spawned.entity = get_u32(t, SWEEP__SPAWNED_ENTITY);
    m->as.spawned.position = get_vec3(t, SWEEP__SPAWNED_POSITION, NULL);
    m->as.spawned.radii = get_vec3(t, SWEEP__SPAWNED_RADII, NULL);
    m->as.spawned.rules = get_u32(t, SWEEP__SPAWNED_RULES);
    m->as.spawned.spawn_point = get_u32(t, SWEEP__SPAWNED_SPAWN_POINT);
    m->as.spawned.player = get_u8(t, SWEEP__SPAWNED_PLAYER) != 0;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_despawn(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.despawn.entity = get_u32(t, SWEEP__ENTITY_ENTITY);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_despawned(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.despawned.entity = get_u32(t, SWEEP__ENTITY_ENTITY);
    m->as.despawned.crushed_by = get_u32(t, SWEEP__DESPAWNED_CRUSHED_BY);
    m->as.despawned.killed_by = get_u32(t, SWEEP__DESPAWNED_KILLED_BY);
    m->as.despawned.reason = get_str(t, SWEEP__DESPAWNED_REASON);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_move(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    get_move(t, &m->as.move);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_move_result(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    return get_move_result(t, &m->as.move_result);
}

/* Items of the batch at body table t into storage of room cap. */
static sweep_proto_error get_batch_moves(const tab *t, sweep_msg_move *store, uint32_t cap, uint32_t *count)
{
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__BATCH_ITEMS, &e);
    if (n > cap)
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        get_move(&it, &store[i]);
    }
    *count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error get_batch_results(const tab *t, sweep_msg_move_result *store, uint32_t cap,
                                           uint32_t *count)
{
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__BATCH_ITEMS, &e);
    if (n > cap)
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        sweep_proto_error err = get_move_result(&it, &store[i]);
        if (err != SWEEP_PROTO_OK)
            return err;
    }
    *count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_move_batch(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    uint32_t n = 0;
    sweep_proto_error e = get_batch_moves(t, d ? d->moves : NULL, d ? d->moves_cap : 0, &n);
    if (e != SWEEP_PROTO_OK)
        return e;
    m->as.move_batch.moves = n ? d->moves : NULL;
    m->as.move_batch.count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_move_result_batch(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    uint32_t n = 0;
    sweep_proto_error e = get_batch_results(t, d ? d->results : NULL, d ? d->results_cap : 0, &n);
    if (e != SWEEP_PROTO_OK)
        return e;
    m->as.move_result_batch.results = n ? d->results : NULL;
    m->as.move_result_batch.count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_collide(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.collide.position = get_vec3(t, SWEEP__COLLIDE_POSITION, NULL);
    m->as.collide.radii = get_vec3(t, SWEEP__COLLIDE_RADII, NULL);
    m->as.collide.velocity = get_vec3(t, SWEEP__COLLIDE_VELOCITY, NULL);
    m->as.collide.dt = get_f64(t, SWEEP__COLLIDE_DT);
    m->as.collide.grounded = get_u8(t, SWEEP__COLLIDE_GROUNDED) != 0;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_collide_result(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    sweep_msg_collide_result *c = &m->as.collide_result;
    c->position = get_vec3(t, SWEEP__CR_POSITION, NULL);
    c->velocity = get_vec3(t, SWEEP__CR_VELOCITY, NULL);
    c->grounded = get_u8(t, SWEEP__CR_GROUNDED) != 0;
    c->ground_normal = get_vec3(t, SWEEP__CR_GROUND_NORMAL, NULL);
    c->ground_material = get_u32(t, SWEEP__CR_GROUND_MATERIAL);
    c->ground_mover = get_u32(t, SWEEP__CR_GROUND_MOVER);
    return get_contacts(t, SWEEP__CR_CONTACTS, c->contacts, &c->contact_count);
}

static sweep_proto_error decode_world_state(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    m->as.world_state.tick = get_u64(t, SWEEP__WS_TICK);
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__WS_MOVERS, &e);
    if (n > (d ? d->movers_cap : 0))
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = t->b + e + (size_t)i * SWEEP__MOVER_SIZE;
        sweep_wire_mover *mv = &d->movers[i];
        mv->id = sweep__rd32(p);
        mv->flags = sweep__rd32(p + 4);
        mv->position = sweep__rdvec3(p + 8);
        for (int k = 0; k < 4; k++)
            mv->rotation[k] = sweep__rdf64(p + 32 + 8 * k);
    }
    m->as.world_state.movers = n ? d->movers : NULL;
    m->as.world_state.count = n;
    m->as.world_state.mover_count = get_u32(t, SWEEP__WS_MOVER_COUNT);
    size_t pe = 0;
    uint32_t np = get_vector(t, SWEEP__WS_PATHS, &pe);
    for (uint32_t i = 0; i < n; i++) {
        sweep_wire_mover *mv = &d->movers[i];
        const uint8_t *p = t->b + pe + (size_t)i * SWEEP__MOVER_PATH_SIZE;
        mv->path_tick = i < np ? sweep__rd32(p) : 0;
        mv->wait = i < np ? sweep__rd32(p + 4) : 0;
        mv->dir = i < np ? (int32_t)sweep__rd32(p + 8) : 0;
    }
    m->as.world_state.path_count = np;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_ping(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.ping.client_time = get_u64(t, SWEEP__PING_CLIENT_TIME);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_pong(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.pong.client_time = get_u64(t, SWEEP__PONG_CLIENT_TIME);
    m->as.pong.server_time = get_u64(t, SWEEP__PONG_SERVER_TIME);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_get_stats(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d; /* an empty table */
    (void)t;
    (void)m;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_stats(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    sweep_msg_stats *s = &m->as.stats;
    s->sessions = get_u32(t, SWEEP__STATS_SESSIONS);
    s->entities = get_u32(t, SWEEP__STATS_ENTITIES);
    s->moves_total = get_u64(t, SWEEP__STATS_MOVES_TOTAL);
    s->errors_total = get_u64(t, SWEEP__STATS_ERRORS_TOTAL);
    s->tick_ns_p50 = get_u64(t, SWEEP__STATS_TICK_NS_P50);
    s->tick_ns_p99 = get_u64(t, SWEEP__STATS_TICK_NS_P99);
    s->movers = get_u32(t, SWEEP__STATS_MOVERS);
    s->crushed_total = get_u64(t, SWEEP__STATS_CRUSHED_TOTAL);
    s->tcp_bytes_in = get_u64(t, SWEEP__STATS_TCP_BYTES_IN);
    s->tcp_bytes_out = get_u64(t, SWEEP__STATS_TCP_BYTES_OUT);
    s->udp_bytes_in = get_u64(t, SWEEP__STATS_UDP_BYTES_IN);
    s->udp_bytes_out = get_u64(t, SWEEP__STATS_UDP_BYTES_OUT);
    s->udp_dropped = get_u64(t, SWEEP__STATS_UDP_DROPPED);
    s->ticks_total = get_u64(t, SWEEP__STATS_TICKS_TOTAL);
    s->tick_ns_total = get_u64(t, SWEEP__STATS_TICK_NS_TOTAL);
    s->move_ns_total = get_u64(t, SWEEP__STATS_MOVE_NS_TOTAL);
    sweep_proto_error err =
        get_u64s(t, SWEEP__STATS_RULES_TOTAL, s->rules_total, SWEEP_WIRE_RULE_SLOTS, &s->rules_total_count);
    if (err == SWEEP_PROTO_OK)
        err = get_u64s(t, SWEEP__STATS_SESSION_RULES, s->session_rules, SWEEP_WIRE_RULE_SLOTS,
                       &s->session_rules_count);
    if (err == SWEEP_PROTO_OK)
        err = get_u64s(t, SWEEP__STATS_ERRORS_BY_CODE, s->errors_by_code, SWEEP_WIRE_CODE_SLOTS,
                       &s->errors_by_code_count);
    /* The worlds as far as the storage goes: a Stats is never refused for
     * them (worlds_open tells a caller that more exist). */
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__STATS_WORLDS, &e), cap = d ? d->worlds_cap : 0;
    n = n < cap ? n : cap;
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        sweep_wire_world_info *w = &d->worlds[i];
        w->world = get_u32(&it, SWEEP__WI_WORLD);
        w->name = get_str(&it, SWEEP__WI_NAME);
        w->map = get_str(&it, SWEEP__WI_MAP);
        w->sessions = get_u32(&it, SWEEP__WI_SESSIONS);
        w->entities = get_u32(&it, SWEEP__WI_ENTITIES);
        w->triangles = get_u32(&it, SWEEP__WI_TRIANGLES);
        w->tick = get_u64(&it, SWEEP__WI_TICK);
    }
    s->worlds = n ? d->worlds : NULL;
    s->worlds_count = n;
    s->worlds_open = get_u32(t, SWEEP__STATS_WORLDS_OPEN);
    return err;
}

static sweep_proto_error decode_error(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.error.code = (sweep_wire_code)get_u16(t, SWEEP__ERROR_CODE);
    m->as.error.message = get_str(t, SWEEP__ERROR_MESSAGE);
    m->as.error.sequence = get_u32(t, SWEEP__ERROR_SEQUENCE);
    m->as.error.entity = get_u32(t, SWEEP__ERROR_ENTITY);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_bye(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.bye.reason = get_str(t, SWEEP__BYE_REASON);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_challenge(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.challenge.cookie = get_bytes(t, SWEEP__CHALLENGE_COOKIE);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_watch_world(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.watch_world.every = get_u32(t, SWEEP__WATCH_EVERY);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_mover_command(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.mover_command.mover = get_str(t, SWEEP__COMMAND_MOVER);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_mover_commanded(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.mover_commanded.mover = get_u32(t, SWEEP__COMMANDED_MOVER);
    m->as.mover_commanded.tick = get_u64(t, SWEEP__COMMANDED_TICK);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_entity_commands(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__BATCH_ITEMS, &e);
    if (n > (d ? d->commands_cap : 0))
        return SWEEP_PROTO_E_CAPACITY;
    uint32_t used = 0; /* shapes of the commands before, in the decoder's hit_shapes */
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        sweep_msg_entity_command *c = &d->commands[i];
        c->entity = get_u32(&it, SWEEP__EC_ENTITY);
        c->op = get_u8(&it, SWEEP__EC_OP);
        c->vector = get_vec3(&it, SWEEP__EC_VECTOR, NULL);
        size_t se = 0;
        uint32_t k_n = get_vector(&it, SWEEP__EC_SHAPES, &se);
        if (k_n > d->hit_shapes_cap - used)
            return SWEEP_PROTO_E_CAPACITY;
        sweep_wire_hit_shape *shapes = d->hit_shapes + used;
        c->shapes = k_n ? shapes : NULL;
        c->shape_count = k_n;
        used += k_n;
        for (uint32_t k = 0; k < k_n; k++) {
            const uint8_t *p = t->b + se + (size_t)k * SWEEP__HIT_SHAPE_SIZE;
            sweep_wire_hit_shape *h = &shapes[k];
            h->id = sweep__rd32(p);
            h->kind = sweep__rd32(p + 4);
            h->a = sweep__rdvec3(p + 8);
            h->b = sweep__rdvec3(p + 32);
            h->radii = sweep__rdvec3(p + 56);
        }
    }
    m->as.entity_commands.commands = n ? d->commands : NULL;
    m->as.entity_commands.count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_entity_commands_result(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__BATCH_ITEMS, &e);
    if (n > (d ? d->command_results_cap : 0))
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        sweep_msg_entity_command_result *r = &d->command_results[i];
        r->entity = get_u32(&it, SWEEP__ECR_ENTITY);
        r->op = get_u8(&it, SWEEP__ECR_OP);
        r->code = (sweep_wire_code)get_u16(&it, SWEEP__ECR_CODE);
        r->message = get_str(&it, SWEEP__ECR_MESSAGE);
        r->position = get_vec3(&it, SWEEP__ECR_POSITION, &r->has_state);
        r->velocity = get_vec3(&it, SWEEP__ECR_VELOCITY, NULL);
        r->radii = get_vec3(&it, SWEEP__ECR_RADII, NULL);
        r->flags = get_u32(&it, SWEEP__ECR_FLAGS);
    }
    m->as.entity_commands_result.results = n ? d->command_results : NULL;
    m->as.entity_commands_result.count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_watch_entities(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.watch_entities.every = get_u32(t, SWEEP__WATCH_EVERY);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_entity_states(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    m->as.entity_states.tick = get_u64(t, SWEEP__ES_TICK);
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__ES_ENTITIES, &e);
    if (n > (d ? d->entity_states_cap : 0))
        return SWEEP_PROTO_E_CAPACITY;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = t->b + e + (size_t)i * SWEEP__ENTITY_STATE_SIZE;
        sweep_wire_entity_state *s = &d->entity_states[i];
        s->entity = sweep__rd32(p);
        s->flags = sweep__rd32(p + 4);
        s->owner_session = sweep__rd64(p + 8);
        s->position = sweep__rdvec3(p + 16);
        s->velocity = sweep__rdvec3(p + 40);
        s->radii = sweep__rdvec3(p + 64);
        s->ground_mover = sweep__rd32(p + 88);
    }
    m->as.entity_states.entities = n ? d->entity_states : NULL;
    m->as.entity_states.count = n;
    m->as.entity_states.entity_count = get_u32(t, SWEEP__ES_ENTITY_COUNT);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_get_entity(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.get_entity.entity = get_u32(t, SWEEP__ENTITY_ENTITY);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_open_world(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.open_world.map = get_str(t, SWEEP__OPEN_MAP);
    m->as.open_world.name = get_str(t, SWEEP__OPEN_NAME);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_world_opened(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.world_opened.world = get_u32(t, SWEEP__OPENED_WORLD);
    m->as.world_opened.name = get_str(t, SWEEP__OPENED_NAME);
    m->as.world_opened.map_hash = get_bytes(t, SWEEP__OPENED_MAP_HASH);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_close_world(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.close_world.world = get_u32(t, SWEEP__CLOSE_WORLD);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_world_closed(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    (void)d;
    m->as.world_closed.world = get_u32(t, SWEEP__CLOSED_WORLD);
    m->as.world_closed.reason = get_str(t, SWEEP__CLOSED_REASON);
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_query(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__BATCH_ITEMS, &e);
    if (n > (d ? d->query_items_cap : 0))
        return SWEEP_PROTO_E_CAPACITY;
    uint32_t used = 0; /* ids of the items before, in the decoder's query_ignore */
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        sweep_msg_query_item *q = &d->query_items[i];
        q->kind = get_u8(&it, SWEEP__QI_KIND);
        q->from = get_vec3(&it, SWEEP__QI_FROM, NULL);
        q->to = get_vec3(&it, SWEEP__QI_TO, NULL);
        q->from_entity = get_u32(&it, SWEEP__QI_FROM_ENTITY);
        q->to_entity = get_u32(&it, SWEEP__QI_TO_ENTITY);
        q->radii = get_vec3(&it, SWEEP__QI_RADII, NULL);
        q->radius = get_f64(&it, SWEEP__QI_RADIUS);
        q->tick = get_u64(&it, SWEEP__QI_TICK);
        q->fraction = get_f64(&it, SWEEP__QI_FRACTION);
        q->filter = get_u32(&it, SWEEP__QI_FILTER);
        q->max_hits = get_u32(&it, SWEEP__QI_MAX_HITS);
        size_t ie = 0;
        uint32_t k_n = get_vector(&it, SWEEP__QI_IGNORE, &ie);
        if (k_n > d->query_ignore_cap - used)
            return SWEEP_PROTO_E_CAPACITY;
        uint32_t *ids = d->query_ignore + used;
        for (uint32_t k = 0; k < k_n; k++)
            ids[k] = sweep__rd32(t->b + ie + 4 * (size_t)k);
        q->ignore = k_n ? ids : NULL;
        q->ignore_count = k_n;
        used += k_n;
    }
    m->as.query.items = n ? d->query_items : NULL;
    m->as.query.count = n;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error decode_query_result(const sweep_decoder *d, const tab *t, sweep_message *m)
{
    size_t e = 0;
    uint32_t n = get_vector(t, SWEEP__BATCH_ITEMS, &e);
    if (n > (d ? d->query_answers_cap : 0))
        return SWEEP_PROTO_E_CAPACITY;
    uint32_t used = 0; /* hits of the answers before, in the decoder's query_hits */
    for (uint32_t i = 0; i < n; i++) {
        tab it = table_elem(t->b, e, i);
        sweep_msg_query_answer *a = &d->query_answers[i];
        a->code = (sweep_wire_code)get_u16(&it, SWEEP__QA_CODE);
        a->message = get_str(&it, SWEEP__QA_MESSAGE);
        a->tick = get_u64(&it, SWEEP__QA_TICK);
        a->fraction = get_f64(&it, SWEEP__QA_FRACTION);
        a->flags = get_u32(&it, SWEEP__QA_FLAGS);
        size_t he = 0;
        uint32_t k = get_vector(&it, SWEEP__QA_HITS, &he);
        if (k > d->query_hits_cap - used)
            return SWEEP_PROTO_E_CAPACITY;
        sweep_wire_query_hit *h = d->query_hits + used;
        for (uint32_t j = 0; j < k; j++) {
            const uint8_t *p = t->b + he + (size_t)j * SWEEP__QUERY_HIT_SIZE;
            h[j].kind = sweep__rd32(p);
            h[j].triangle = sweep__rd32(p + 4);
            h[j].material = sweep__rd32(p + 8);
            h[j].mover = sweep__rd32(p + 12);
            h[j].entity = sweep__rd32(p + 16);
            h[j].shape = sweep__rd32(p + 20);
            h[j].fraction = sweep__rdf64(p + 24);
            h[j].distance = sweep__rdf64(p + 32);
            h[j].point = sweep__rdvec3(p + 40);
            h[j].normal = sweep__rdvec3(p + 64);
        }
        a->hits = k ? h : NULL;
        a->hit_count = k;
        used += k;
    }
    m->as.query_result.answers = n ? d->query_answers : NULL;
    m->as.query_result.count = n;
    m->as.query_result.first = get_u32(t, SWEEP__QR_FIRST);
    return SWEEP_PROTO_OK;
}

/* The bytes of each kind's member of sweep_message.as, by stem: what a
 * decode clears and copies out, so that a Move does not pay for the
 * kilobyte of the largest member (GetStats has no member). */
#define MEMBER_SIZE(member) sizeof(((const sweep_message *)0)->as.member)
#define BODY_SIZE_hello MEMBER_SIZE(hello)
#define BODY_SIZE_welcome MEMBER_SIZE(welcome)
#define BODY_SIZE_spawn MEMBER_SIZE(spawn)
#define BODY_SIZE_spawned MEMBER_SIZE(spawned)
#define BODY_SIZE_despawn MEMBER_SIZE(despawn)
#define BODY_SIZE_despawned MEMBER_SIZE(despawned)
#define BODY_SIZE_move MEMBER_SIZE(move)
#define BODY_SIZE_move_result MEMBER_SIZE(move_result)
#define BODY_SIZE_move_batch MEMBER_SIZE(move_batch)
#define BODY_SIZE_move_result_batch MEMBER_SIZE(move_result_batch)
#define BODY_SIZE_collide MEMBER_SIZE(collide)
#define BODY_SIZE_collide_result MEMBER_SIZE(collide_result)
#define BODY_SIZE_world_state MEMBER_SIZE(world_state)
#define BODY_SIZE_ping MEMBER_SIZE(ping)
#define BODY_SIZE_pong MEMBER_SIZE(pong)
#define BODY_SIZE_get_stats 0
#define BODY_SIZE_stats MEMBER_SIZE(stats)
#define BODY_SIZE_error MEMBER_SIZE(error)
#define BODY_SIZE_bye MEMBER_SIZE(bye)
#define BODY_SIZE_challenge MEMBER_SIZE(challenge)
#define BODY_SIZE_watch_world MEMBER_SIZE(watch_world)
#define BODY_SIZE_mover_command MEMBER_SIZE(mover_command)
#define BODY_SIZE_mover_commanded MEMBER_SIZE(mover_commanded)
#define BODY_SIZE_entity_commands MEMBER_SIZE(entity_commands)
#define BODY_SIZE_entity_commands_result MEMBER_SIZE(entity_commands_result)
#define BODY_SIZE_watch_entities MEMBER_SIZE(watch_entities)
#define BODY_SIZE_entity_states MEMBER_SIZE(entity_states)
#define BODY_SIZE_get_entity MEMBER_SIZE(get_entity)
#define BODY_SIZE_open_world MEMBER_SIZE(open_world)
#define BODY_SIZE_world_opened MEMBER_SIZE(world_opened)
#define BODY_SIZE_close_world MEMBER_SIZE(close_world)
#define BODY_SIZE_world_closed MEMBER_SIZE(world_closed)
#define BODY_SIZE_query MEMBER_SIZE(query)
#define BODY_SIZE_query_result MEMBER_SIZE(query_result)

typedef struct body_row {
    body_decoder decode;
    size_t size; /* of its member of sweep_message.as */
} body_row;

/* Indexed by kind, built from kinds.h: a kind without its decoder or its
 * size does not compile. NONE has none; the verifier lets neither it nor a
 * kind out of range through. */
#define DECODER_ROW(kind, stem, name, sender, recorded) [SWEEP_MSG_##kind] = {decode_##stem, BODY_SIZE_##stem},
static const body_row decoders[SWEEP_MSG_KIND_COUNT] = {SWEEP__MSG_KINDS(DECODER_ROW)};
#undef DECODER_ROW

/* The header of a sweep_message (kind, sequence, server_tick): what every
 * decode writes besides its member. */
#define HEADER_SIZE offsetof(sweep_message, as)

/* Verifies buf and finds its root Message table: what every decode starts
 * with. */
static sweep_proto_error open_root(const void *buf, size_t len, unsigned flags, const sweep_verify_limits *limits,
                                   tab *root)
{
    sweep_proto_error e = sweep_verify_with(buf, len, flags, limits);
    if (e != SWEEP_PROTO_OK)
        return e;
    const uint8_t *b = buf;
    size_t base = (flags & SWEEP_WIRE_SIZE_PREFIXED) ? 4 : 0;
    *root = tab_at(b, base + sweep__rd32(b + base));
    return SWEEP_PROTO_OK;
}

sweep_proto_error sweep_decode_kind(const void *buf, size_t len, unsigned flags, sweep_msg_kind *kind,
                                    uint32_t *sequence)
{
    if (buf == NULL || kind == NULL || sequence == NULL)
        return SWEEP_PROTO_E_ARG;
    tab root;
    sweep_proto_error e = open_root(buf, len, flags, NULL, &root);
    if (e != SWEEP_PROTO_OK)
        return e;
    *sequence = get_u32(&root, SWEEP__MESSAGE_SEQUENCE);
    *kind = (sweep_msg_kind)get_u8(&root, SWEEP__MESSAGE_BODY_TYPE);
    return SWEEP_PROTO_OK;
}

/* A lone Move the verifier's fast path accepted, read through the field
 * offsets it found (at): what get_move reads, each field's vtable entry
 * not looked up and bounds-checked against the vtable's size again. The
 * same bytes as the general way (the member cleared, then set). */
static void move_verified(const uint8_t *b, const sweep__verified_move *at, sweep_message *out)
{
    const uint8_t *t = b + at->message, *mt = b + at->move;
    const uint16_t *f = at->message_fo, *g = at->move_fo;
    out->kind = SWEEP_MSG_MOVE;
    out->sequence = f[SWEEP__MESSAGE_SEQUENCE] ? sweep__rd32(t + f[SWEEP__MESSAGE_SEQUENCE]) : 0;
    out->server_tick = f[SWEEP__MESSAGE_SERVER_TICK] ? sweep__rd64(t + f[SWEEP__MESSAGE_SERVER_TICK]) : 0;
    out->key = f[SWEEP__MESSAGE_KEY] ? sweep__rd64(t + f[SWEEP__MESSAGE_KEY]) : 0;
    sweep_msg_move *m = &out->as.move;
    sweep__zero_bytes(m, sizeof *m);
    m->entity = g[SWEEP__MOVE_ENTITY] ? sweep__rd32(mt + g[SWEEP__MOVE_ENTITY]) : 0;
    m->sequence = g[SWEEP__MOVE_SEQUENCE] ? sweep__rd32(mt + g[SWEEP__MOVE_SEQUENCE]) : 0;
    m->client_tick = g[SWEEP__MOVE_CLIENT_TICK] ? sweep__rd64(mt + g[SWEEP__MOVE_CLIENT_TICK]) : 0;
    m->velocity = sweep__rdvec3(mt + g[SWEEP__MOVE_VELOCITY]); /* required: the verifier saw it */
    m->dt = g[SWEEP__MOVE_DT] ? sweep__rdf64(mt + g[SWEEP__MOVE_DT]) : 0.0;
    m->has_claimed_position = g[SWEEP__MOVE_CLAIMED_POSITION] != 0;
    m->claimed_position = g[SWEEP__MOVE_CLAIMED_POSITION] ? sweep__rdvec3(mt + g[SWEEP__MOVE_CLAIMED_POSITION])
                                                          : sweep_v3(0.0, 0.0, 0.0);
    m->buttons = g[SWEEP__MOVE_BUTTONS] ? sweep__rd32(mt + g[SWEEP__MOVE_BUTTONS]) : 0;
    m->mode = g[SWEEP__MOVE_MODE] ? mt[g[SWEEP__MOVE_MODE]] : 0;
}

sweep_proto_error sweep_decode(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                               sweep_message *out)
{
    if (buf == NULL || out == NULL)
        return SWEEP_PROTO_E_ARG;
    /* Nearly every request a server decodes is a Move: read where the
     * verifier found its fields. */
    sweep__verified_move at;
    sweep_proto_error e = sweep__verify_at(buf, len, flags, d ? &d->limits : NULL, &at);
    if (e != SWEEP_PROTO_OK)
        return e;
    if (at.move) {
        move_verified(buf, &at, out);
        return SWEEP_PROTO_OK;
    }
    const uint8_t *b = buf;
    size_t base = (flags & SWEEP_WIRE_SIZE_PREFIXED) ? 4 : 0;
    tab root = tab_at(b, base + sweep__rd32(b + base));
    /* Only the header and the kind's member are cleared, filled and copied
     * out: the rest of the union is nobody's business. */
    sweep_message m;
    m.sequence = get_u32(&root, SWEEP__MESSAGE_SEQUENCE);
    m.server_tick = get_u64(&root, SWEEP__MESSAGE_SERVER_TICK);
    m.key = get_u64(&root, SWEEP__MESSAGE_KEY);
    m.kind = (sweep_msg_kind)get_u8(&root, SWEEP__MESSAGE_BODY_TYPE);
    const body_row *row = (unsigned)m.kind < SWEEP_MSG_KIND_COUNT ? &decoders[m.kind] : NULL;
    if (row == NULL || row->decode == NULL) {
        assert(!"the verifier let an unknown union type through");
        return SWEEP_PROTO_E_UNION_TYPE;
    }
    tab body = tab_at(root.b, deref(&root, fpos(&root, SWEEP__MESSAGE_BODY)));
    memset(&m.as, 0, row->size);
    e = row->decode(d, &body, &m);
    if (e != SWEEP_PROTO_OK)
        return e;
    memcpy(out, &m, HEADER_SIZE + row->size);
    return SWEEP_PROTO_OK;
}

sweep_proto_error sweep_decode_motion(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                                      sweep_decoded_motion *out)
{
    if (buf == NULL || out == NULL)
        return SWEEP_PROTO_E_ARG;
    tab root;
    sweep_proto_error e = open_root(buf, len, flags, d ? &d->limits : NULL, &root);
    if (e != SWEEP_PROTO_OK)
        return e;
    sweep_decoded_motion m = {SWEEP_MSG_NONE, 0, 0, NULL, 0, NULL, 0};
    m.sequence = get_u32(&root, SWEEP__MESSAGE_SEQUENCE);
    m.server_tick = get_u64(&root, SWEEP__MESSAGE_SERVER_TICK);
    m.kind = (sweep_msg_kind)get_u8(&root, SWEEP__MESSAGE_BODY_TYPE);
    tab body = tab_at(root.b, deref(&root, fpos(&root, SWEEP__MESSAGE_BODY)));
    sweep_msg_move *moves = d ? d->moves : NULL;
    sweep_msg_move_result *results = d ? d->results : NULL;
    uint32_t moves_cap = d ? d->moves_cap : 0, results_cap = d ? d->results_cap : 0;
    switch (m.kind) {
    case SWEEP_MSG_MOVE:
        if (moves_cap < 1)
            return SWEEP_PROTO_E_CAPACITY;
        get_move(&body, moves);
        m.move_count = 1;
        break;
    case SWEEP_MSG_MOVE_BATCH:
        e = get_batch_moves(&body, moves, moves_cap, &m.move_count);
        break;
    case SWEEP_MSG_MOVE_RESULT:
        if (results_cap < 1)
            return SWEEP_PROTO_E_CAPACITY;
        e = get_move_result(&body, results);
        m.result_count = 1;
        break;
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        e = get_batch_results(&body, results, results_cap, &m.result_count);
        break;
    default:
        break;
    }
    if (e != SWEEP_PROTO_OK)
        return e;
    m.moves = m.move_count ? moves : NULL;
    m.results = m.result_count ? results : NULL;
    *out = m;
    return SWEEP_PROTO_OK;
}

bool sweep_peek_key(const void *buf, size_t len, sweep_msg_kind *kind, uint64_t *key)
{
    const uint8_t *b = buf;
    if (b == NULL || len < 12 || len > SWEEP__MAX_BUFFER)
        return false;
    /* Not verified: every read is bounds-checked here, and in 64 bits
     * nothing below overflows (len and each offset are under 2^31). */
    int64_t root = sweep__rd32(b);
    if (root % 4 || root > (int64_t)len - 4)
        return false;
    int64_t vt = root - (int32_t)sweep__rd32(b + root);
    if (vt < 0 || vt % 2 || vt > (int64_t)len - 4)
        return false;
    int64_t vsize = sweep__rd16(b + vt), tsize = sweep__rd16(b + vt + 2);
    if (vsize < 4 || vt + vsize > (int64_t)len || tsize < 4 || root + tsize > (int64_t)len)
        return false;
    int64_t entry = 4 + 2 * SWEEP__MESSAGE_KEY, at = entry + 2 <= vsize ? sweep__rd16(b + vt + entry) : 0;
    if (at && (at < 4 || at + 8 > tsize))
        return false;
    *key = at ? sweep__rd64(b + root + at) : 0;
    entry = 4 + 2 * SWEEP__MESSAGE_BODY_TYPE;
    at = entry + 2 <= vsize ? sweep__rd16(b + vt + entry) : 0;
    if (at && (at < 4 || at + 1 > tsize))
        return false;
    *kind = at ? (sweep_msg_kind)b[root + at] : SWEEP_MSG_NONE;
    return true;
}
