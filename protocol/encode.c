/*
 * encode.c - sweep_message to FlatBuffer (encode.h), one function per table
 * of sweep.fbs on top of builder.c, the body's found by kind in a table
 * built from kinds.h. Each writes its children (strings, vectors,
 * sub-tables) before opening its own table, as the back-to-front builder
 * requires.
 */
#include "protocol/encode.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/compiler.h"
#include "protocol/builder_inline.h"
#include "protocol/contact_image.h"
#include "protocol/encode_internal.h"
#include "protocol/format.h"
#include "protocol/kinds.h"
#include "protocol/medium_image.h"
#include "protocol/result_rare.h"
#include "protocol/schema.h"

/* Scalars at their default are omitted, like the official builders do. */
static void u8_if(sweep_builder *b, unsigned id, uint8_t v)
{
    if (v)
        sweep__builder_add_u8(b, id, v);
}

static void u16_if(sweep_builder *b, unsigned id, uint16_t v)
{
    if (v)
        sweep__builder_add_u16(b, id, v);
}

static void u32_if(sweep_builder *b, unsigned id, uint32_t v)
{
    if (v)
        sweep__builder_add_u32(b, id, v);
}

static void u64_if(sweep_builder *b, unsigned id, uint64_t v)
{
    if (v)
        sweep__builder_add_u64(b, id, v);
}

/* Compared by bits, so -0.0 is written (it is not the default's bits). */
static void f64_if(sweep_builder *b, unsigned id, double v)
{
    uint8_t bits[8];
    sweep__wrf64(bits, v);
    if (sweep__rd64(bits) != 0)
        sweep__builder_add_f64(b, id, v);
}

/* The optional ground normal is written when grounded, and also whenever
 * it is not all-zero bits, so that what is encoded decodes to the same
 * struct (absent decodes as zero). */
static int vec3_is_zero(sweep_vec3 v)
{
    uint8_t bits[24];
    sweep__wrvec3(bits, v);
    for (int i = 0; i < 24; i++)
        if (bits[i])
            return 0;
    return 1;
}

static sweep_ref str_opt(sweep_builder *b, sweep_str s)
{
    return s.ptr ? sweep_builder_string(b, s.ptr, s.len) : 0;
}

static void ref_if(sweep_builder *b, unsigned id, sweep_ref r)
{
    if (r)
        sweep__builder_add_ref(b, id, r);
}

/* The vector of contacts through the builder's calls (what contacts does
 * when room is short). */
static sweep_ref contacts_slow(sweep_builder *b, const sweep_contact *c, uint32_t count)
{
    sweep__builder_vector_start(b, SWEEP__CONTACT_SIZE, count, SWEEP__STRUCT_ALIGN);
    for (uint32_t i = count; i-- > 0;) {
        uint8_t *p = sweep__builder_push(b, SWEEP__CONTACT_SIZE);
        if (p)
            sweep__contact_write(p, &c[i]);
    }
    return sweep__builder_vector_end(b, count);
}

/* The same bytes with one check of the room (a MoveResult has a contact or
 * two almost always): the vector's start aligns the count to 4 and then
 * the elements to 8, and elements of 56 bytes keep both, so the padding
 * is whatever brings `used` to a multiple of 8. Inline in its one caller:
 * the call and its saved registers were a fifth of its cost. */
static SWEEP__ALWAYS_INLINE sweep_ref contacts(sweep_builder *b, const sweep_contact *c, uint32_t count)
{
    size_t pad = (0u - b->used) & 7u;
    size_t total = pad + SWEEP__CONTACT_SIZE * (size_t)count + 4;
    if (b->failed || count > SWEEP_MAX_CONTACTS || total > b->cap - b->used - b->front)
        return contacts_slow(b, c, count);
    uint8_t *const end = b->buf + b->cap;
    size_t u = b->used;
    sweep__builder_zeros(end - u - pad, pad);
    u += pad;
    for (uint32_t i = count; i-- > 0;) {
        u += SWEEP__CONTACT_SIZE;
        sweep__contact_write(end - u, &c[i]);
    }
    u += 4;
    sweep__wr32(end - u, count);
    b->used = u;
    b->minalign = b->minalign > SWEEP__STRUCT_ALIGN ? b->minalign : SWEEP__STRUCT_ALIGN;
    return (sweep_ref)u;
}

/* A [ulong] vector, or nothing when empty (absent decodes as empty). */
static sweep_ref u64s(sweep_builder *b, const uint64_t *v, uint32_t count)
{
    if (count == 0)
        return 0;
    sweep__builder_vector_start(b, 8, count, 8);
    for (uint32_t i = count; i-- > 0;) {
        uint8_t *p = sweep__builder_push(b, 8);
        if (p)
            sweep__wr64(p, v[i]);
    }
    return sweep__builder_vector_end(b, count);
}

/* The table of one Move, alone or in a batch. */
static sweep_ref move_table(sweep_builder *b, const sweep_msg_move *m)
{
    sweep__builder_table_start(b);
    sweep__builder_add_vec3(b, SWEEP__MOVE_VELOCITY, m->velocity);
    if (m->has_claimed_position)
        sweep__builder_add_vec3(b, SWEEP__MOVE_CLAIMED_POSITION, m->claimed_position);
    u64_if(b, SWEEP__MOVE_CLIENT_TICK, m->client_tick);
    f64_if(b, SWEEP__MOVE_DT, m->dt);
    u32_if(b, SWEEP__MOVE_ENTITY, m->entity);
    u32_if(b, SWEEP__MOVE_SEQUENCE, m->sequence);
    u32_if(b, SWEEP__MOVE_BUTTONS, m->buttons);
    u8_if(b, SWEEP__MOVE_MODE, m->mode);
    return sweep__builder_table_end(b);
}

/* The table of one MoveResult through the builder's calls, field by field:
 * the definition of its layout, which move_result_table below writes in
 * one go. Used when the builder is short of room (or already failed), so
 * that the failure happens exactly as it always did. */
static sweep_ref move_result_fields(sweep_builder *b, const sweep_msg_move_result *r, sweep_ref c)
{
    sweep__builder_table_start(b);
    sweep__builder_add_vec3(b, SWEEP__MR_POSITION, r->position);
    sweep__builder_add_vec3(b, SWEEP__MR_VELOCITY, r->velocity);
    if (r->grounded || !vec3_is_zero(r->ground_normal))
        sweep__builder_add_vec3(b, SWEEP__MR_GROUND_NORMAL, r->ground_normal);
    if (r->has_start_position)
        sweep__builder_add_vec3(b, SWEEP__MR_START_POSITION, r->start_position);
    u64_if(b, SWEEP__MR_SERVER_TICK, r->server_tick);
    f64_if(b, SWEEP__MR_CORRECTION, r->correction);
    f64_if(b, SWEEP__MR_SPEED_EXCESS, r->speed_excess);
    f64_if(b, SWEEP__MR_TIME_EXCESS, r->time_excess);
    f64_if(b, SWEEP__MR_APPLIED_DT, r->applied_dt);
    f64_if(b, SWEEP__MR_DAMAGE, r->damage);
    u32_if(b, SWEEP__MR_ENTITY, r->entity);
    u32_if(b, SWEEP__MR_SEQUENCE, r->sequence);
    u32_if(b, SWEEP__MR_GROUND_MATERIAL, r->ground_material);
    ref_if(b, SWEEP__MR_CONTACTS, c);
    u32_if(b, SWEEP__MR_GROUND_MOVER, r->ground_mover);
    u32_if(b, SWEEP__MR_PUSHED_BY, r->pushed_by);
    u32_if(b, SWEEP__MR_RULES, r->rules);
    u32_if(b, SWEEP__MR_LAUNCHED_BY, r->launched_by);
    u32_if(b, SWEEP__MR_TELEPORTED_BY, r->teleported_by);
    u32_if(b, SWEEP__MR_HURT_BY, r->hurt_by);
    u32_if(b, SWEEP__MR_KILLED_BY, r->killed_by);
    u32_if(b, SWEEP__MR_ENTERED, r->entered);
    u32_if(b, SWEEP__MR_LEFT, r->left);
    if (sweep__medium_present(r)) {
        uint8_t *p = sweep__builder_field(b, SWEEP__MR_MEDIUM, SWEEP__MEDIUM_SIZE, SWEEP__MEDIUM_ALIGN);
        if (p)
            sweep__medium_write(p, r);
    }
    u8_if(b, SWEEP__MR_GROUNDED, r->grounded);
    u8_if(b, SWEEP__MR_CORRECTED, r->corrected);
    u8_if(b, SWEEP__MR_CARRIED, r->carried);
    u8_if(b, SWEEP__MR_PUSHED, r->pushed);
    u8_if(b, SWEEP__MR_TELEPORT_BLOCKED, r->teleport_blocked);
    u8_if(b, SWEEP__MR_CROUCHED, r->crouched);
    u8_if(b, SWEEP__MR_STANCE_BLOCKED, r->stance_blocked);
    return sweep__builder_table_end(b);
}

/* Which of a MoveResult's fields are written (those at their default are
 * not), and the bytes they take in its table: those of 4 bytes or more
 * (body; contacts, a vector when any, as the 4 bytes of its offset) and
 * the 1-byte ones (bytes). */
typedef struct result_layout {
    int normal, correction, speed, time, applied, damage, medium;
    size_t body, bytes;
} result_layout;

/* Whether any of a MoveResult's rare fields may be written: the movers
 * (ground_mover, pushed_by, carried, pushed, a start position), the
 * volumes (their six ids, damage, a blocked teleport) and the medium. 0
 * means none is (each is at its default); 1 leaves each to its own test.
 * A player's answer has none of them almost always, so one test stands
 * for some twenty in the layout and as many in the writing. */
static SWEEP__ALWAYS_INLINE int any_rare(const sweep_msg_move_result *r)
{
    uint64_t more = (uint64_t)(r->ground_mover | r->pushed_by) |
                    (uint64_t)(r->carried | r->pushed | r->has_start_position | r->teleport_blocked);
    return sweep__result_rare_any(r, more);
}

/* The layout; with rare 0 (any_rare), the rare fields are taken as absent
 * without a look. */
static SWEEP__ALWAYS_INLINE result_layout layout_of(const sweep_msg_move_result *r, int contacts, int rare)
{
    result_layout l;
    l.normal = r->grounded || !vec3_is_zero(r->ground_normal);
    l.correction = sweep__f64_nonzero(r->correction);
    l.speed = sweep__f64_nonzero(r->speed_excess);
    l.time = sweep__f64_nonzero(r->time_excess);
    l.applied = sweep__f64_nonzero(r->applied_dt);
    l.body = 24 * (size_t)(2 + l.normal) +
             8 * (size_t)((r->server_tick != 0) + l.correction + l.speed + l.time + l.applied) +
             4 * (size_t)((r->entity != 0) + (r->sequence != 0) + (r->ground_material != 0) + (contacts != 0) +
                          (r->rules != 0));
    l.bytes = (size_t)((r->grounded != 0) + (r->corrected != 0) + (r->crouched != 0) + (r->stance_blocked != 0));
    l.damage = 0;
    l.medium = 0;
    if (rare) {
        l.damage = sweep__f64_nonzero(r->damage);
        l.medium = sweep__medium_present(r);
        l.body += 24 * (size_t)r->has_start_position + 8 * (size_t)l.damage +
                  4 * (size_t)((r->ground_mover != 0) + (r->pushed_by != 0) + (r->launched_by != 0) +
                               (r->teleported_by != 0) + (r->hurt_by != 0) + (r->killed_by != 0) +
                               (r->entered != 0) + (r->left != 0)) +
                  SWEEP__MEDIUM_SIZE * (size_t)l.medium;
        l.bytes += (size_t)((r->carried != 0) + (r->pushed != 0) + (r->teleport_blocked != 0));
    }
    return l;
}

size_t sweep__move_result_least(const sweep_msg_move_result *r)
{
    result_layout l = layout_of(r, r->contact_count != 0, 1);
    /* The table (its fields, their last padding, its soffset), the
     * contacts' vector (count and elements) and the batch's offset to it. */
    size_t c = r->contact_count ? 4 + SWEEP__CONTACT_SIZE * (size_t)r->contact_count : 0;
    return l.body + l.bytes + ((0u - l.bytes) & 3u) + 4 + c + 4;
}

/*
 * The table of one MoveResult, alone or in a batch (the answer to every
 * move); its contact count was checked by the caller.
 *
 * Writes the very bytes move_result_fields writes, without its per-field
 * calls: those each align, check the room left, record the field and
 * later turn the records into a vtable. Here the layout is known once the
 * fields present are: fields are added largest alignment first (24- and
 * 8-byte ones, then 4-, then 1-byte ones), so after the padding that puts
 * the first vec3 on 8 bytes nothing needs padding until the soffset, which
 * follows the 1-byte fields and is padded to 4. So the table's size is
 * known up front, room is checked once, the values are stored back to
 * front in the same order, and each vtable entry is written as its field
 * is, the table's final place being known. With message_table below,
 * encoding a MoveResult message went from ~1,390 to ~780 callgrind
 * instructions (a recorded 50-bot session replayed), the same bytes;
 * tests/protocol/test_encode_fast.c holds the two ways to the same bytes.
 */
static sweep_ref move_result_table(sweep_builder *b, const sweep_msg_move_result *r)
{
    sweep_ref c = r->contact_count ? contacts(b, r->contacts, r->contact_count) : 0;
    const int rare = any_rare(r);
    const result_layout l = layout_of(r, c != 0, rare);
    const int normal = l.normal, start = rare && r->has_start_position, correction = l.correction, speed = l.speed;
    const int time = l.time, applied = l.applied, damage = l.damage, medium = l.medium;
    const size_t body = l.body, bytes = l.bytes;
    size_t pad0 = (0u - b->used) & 7u, pad1 = (0u - bytes) & 3u;
    size_t total = pad0 + body + bytes + pad1 + 4; /* the last 4: the soffset */
    if (b->failed || total > b->cap - b->used - b->front)
        return move_result_fields(b, r, c);

    uint8_t *const end = b->buf + b->cap;
    size_t u = b->used;
    const size_t table = u + total;
    /* The vtable's size, from the last field present, so that it can be
     * written in place as the fields are (sweep__builder_vtable_at). */
    uint32_t ids = 1u << SWEEP__MR_VELOCITY | (uint32_t)(r->grounded != 0) << SWEEP__MR_GROUNDED |
                   (uint32_t)normal << SWEEP__MR_GROUND_NORMAL |
                   (uint32_t)(r->ground_material != 0) << SWEEP__MR_GROUND_MATERIAL |
                   (uint32_t)(c != 0) << SWEEP__MR_CONTACTS | (uint32_t)(r->corrected != 0) << SWEEP__MR_CORRECTED |
                   (uint32_t)correction << SWEEP__MR_CORRECTION | (uint32_t)(r->rules != 0) << SWEEP__MR_RULES |
                   (uint32_t)speed << SWEEP__MR_SPEED_EXCESS | (uint32_t)time << SWEEP__MR_TIME_EXCESS |
                   (uint32_t)applied << SWEEP__MR_APPLIED_DT | (uint32_t)(r->crouched != 0) << SWEEP__MR_CROUCHED |
                   (uint32_t)(r->stance_blocked != 0) << SWEEP__MR_STANCE_BLOCKED;
    if (rare)
        ids |= (uint32_t)(r->ground_mover != 0) << SWEEP__MR_GROUND_MOVER |
               (uint32_t)(r->pushed_by != 0) << SWEEP__MR_PUSHED_BY |
               (uint32_t)(r->carried != 0) << SWEEP__MR_CARRIED | (uint32_t)(r->pushed != 0) << SWEEP__MR_PUSHED |
               (uint32_t)start << SWEEP__MR_START_POSITION |
               (uint32_t)(r->launched_by != 0) << SWEEP__MR_LAUNCHED_BY |
               (uint32_t)(r->teleported_by != 0) << SWEEP__MR_TELEPORTED_BY |
               (uint32_t)(r->teleport_blocked != 0) << SWEEP__MR_TELEPORT_BLOCKED |
               (uint32_t)(r->hurt_by != 0) << SWEEP__MR_HURT_BY | (uint32_t)damage << SWEEP__MR_DAMAGE |
               (uint32_t)(r->killed_by != 0) << SWEEP__MR_KILLED_BY |
               (uint32_t)(r->entered != 0) << SWEEP__MR_ENTERED | (uint32_t)(r->left != 0) << SWEEP__MR_LEFT |
               (uint32_t)medium << SWEEP__MR_MEDIUM;
    const size_t vsize = 4 + 2 * (size_t)(32u - SWEEP__CLZ(ids));
    const uint32_t head = sweep__vtable_head(vsize, total);
    uint8_t spare[4 + 2 * (SWEEP__MR_MEDIUM + 1)];
    uint8_t *vt = sweep__builder_vtable_begin(b, table, vsize, total, spare);
    b->minalign = b->minalign > SWEEP__STRUCT_ALIGN ? b->minalign : SWEEP__STRUCT_ALIGN;
    /* Reserves the n bytes of field id at p; its vtable entry is its
     * distance from the table's start. */
#define FIELD(id, n) (u += (n), sweep__wr16(vt + 4 + 2 * (id), (uint16_t)(table - u)), end - u)
    sweep__builder_zeros(end - u - pad0, pad0);
    u += pad0;
    sweep__wrvec3(FIELD(SWEEP__MR_POSITION, 24), r->position);
    sweep__wrvec3(FIELD(SWEEP__MR_VELOCITY, 24), r->velocity);
    if (normal)
        sweep__wrvec3(FIELD(SWEEP__MR_GROUND_NORMAL, 24), r->ground_normal);
    if (start)
        sweep__wrvec3(FIELD(SWEEP__MR_START_POSITION, 24), r->start_position);
    if (r->server_tick)
        sweep__wr64(FIELD(SWEEP__MR_SERVER_TICK, 8), r->server_tick);
    if (correction)
        sweep__wrf64(FIELD(SWEEP__MR_CORRECTION, 8), r->correction);
    if (speed)
        sweep__wrf64(FIELD(SWEEP__MR_SPEED_EXCESS, 8), r->speed_excess);
    if (time)
        sweep__wrf64(FIELD(SWEEP__MR_TIME_EXCESS, 8), r->time_excess);
    if (applied)
        sweep__wrf64(FIELD(SWEEP__MR_APPLIED_DT, 8), r->applied_dt);
    if (damage)
        sweep__wrf64(FIELD(SWEEP__MR_DAMAGE, 8), r->damage);
    if (r->entity)
        sweep__wr32(FIELD(SWEEP__MR_ENTITY, 4), r->entity);
    if (r->sequence)
        sweep__wr32(FIELD(SWEEP__MR_SEQUENCE, 4), r->sequence);
    if (r->ground_material)
        sweep__wr32(FIELD(SWEEP__MR_GROUND_MATERIAL, 4), r->ground_material);
    if (c) {
        uint8_t *p = FIELD(SWEEP__MR_CONTACTS, 4);
        sweep__wr32(p, (uint32_t)(u - c));
    }
    if (rare) {
        if (r->ground_mover)
            sweep__wr32(FIELD(SWEEP__MR_GROUND_MOVER, 4), r->ground_mover);
        if (r->pushed_by)
            sweep__wr32(FIELD(SWEEP__MR_PUSHED_BY, 4), r->pushed_by);
    }
    if (r->rules)
        sweep__wr32(FIELD(SWEEP__MR_RULES, 4), r->rules);
    if (rare) {
        if (r->launched_by)
            sweep__wr32(FIELD(SWEEP__MR_LAUNCHED_BY, 4), r->launched_by);
        if (r->teleported_by)
            sweep__wr32(FIELD(SWEEP__MR_TELEPORTED_BY, 4), r->teleported_by);
        if (r->hurt_by)
            sweep__wr32(FIELD(SWEEP__MR_HURT_BY, 4), r->hurt_by);
        if (r->killed_by)
            sweep__wr32(FIELD(SWEEP__MR_KILLED_BY, 4), r->killed_by);
        if (r->entered)
            sweep__wr32(FIELD(SWEEP__MR_ENTERED, 4), r->entered);
        if (r->left)
            sweep__wr32(FIELD(SWEEP__MR_LEFT, 4), r->left);
        if (medium)
            sweep__medium_write(FIELD(SWEEP__MR_MEDIUM, SWEEP__MEDIUM_SIZE), r);
    }
    if (r->grounded)
        *FIELD(SWEEP__MR_GROUNDED, 1) = r->grounded;
    if (r->corrected)
        *FIELD(SWEEP__MR_CORRECTED, 1) = r->corrected;
    if (rare) {
        if (r->carried)
            *FIELD(SWEEP__MR_CARRIED, 1) = r->carried;
        if (r->pushed)
            *FIELD(SWEEP__MR_PUSHED, 1) = r->pushed;
        if (r->teleport_blocked)
            *FIELD(SWEEP__MR_TELEPORT_BLOCKED, 1) = r->teleport_blocked;
    }
    if (r->crouched)
        *FIELD(SWEEP__MR_CROUCHED, 1) = r->crouched;
    if (r->stance_blocked)
        *FIELD(SWEEP__MR_STANCE_BLOCKED, 1) = r->stance_blocked;
#undef FIELD
    sweep__builder_zeros(end - u - pad1, pad1);
    u += pad1 + 4;
    b->used = u;
    return sweep__builder_vtable(b, end - table, table, vt, vsize, head);
}

/* A batch writes its items' tables first, keeping their refs in scratch
 * at the front of the output buffer (so a batch of any size needs no memory
 * of ours), then the vector of offsets to them in message order. */
static sweep_ref batch(sweep_builder *b, const void *items, size_t item_size, uint32_t count,
                       sweep_ref (*one)(sweep_builder *, const void *))
{
    uint8_t *refs = sweep_builder_scratch(b, 4 * (size_t)count);
    if (refs == NULL)
        return 0;
    /* Last item first, so item i's table lies after item i-1's: a reader
     * walking the vector walks memory forward. */
    for (uint32_t i = count; i-- > 0;)
        sweep__wr32(refs + 4 * (size_t)i, one(b, (const uint8_t *)items + item_size * i));
    sweep_ref v = sweep_builder_ref_vector(b, refs, count);
    sweep_builder_scratch_release(b);
    return v;
}

static sweep_ref move_any(sweep_builder *b, const void *m)
{
    return move_table(b, m);
}

static sweep_ref move_result_any(sweep_builder *b, const void *r)
{
    return move_result_table(b, r);
}

/*
 * The body encoders, one per kind, in the order of union Body. Each writes
 * the body table of msg->as and returns true with its ref in *body, or
 * returns false, before writing anything, for a message no buffer can hold
 * (a required string or vector left NULL, more items than the struct has
 * room for): sweep_encode's SWEEP_PROTO_E_ARG. A builder out of space is
 * not refused here; sweep_builder_finish reports it.
 */
typedef bool (*body_encoder)(sweep_builder *b, const sweep_message *msg, sweep_ref *body);

static bool encode_hello(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_hello *h = &msg->as.hello;
    if (h->client_name.ptr == NULL)
        return false;
    sweep_ref name = str_opt(b, h->client_name);
    sweep_ref token = str_opt(b, h->auth_token);
    sweep_ref world = str_opt(b, h->world);
    sweep_ref cookie = h->cookie.ptr ? sweep_builder_bytes(b, h->cookie.ptr, h->cookie.len) : 0;
    sweep_ref padding = h->padding.ptr ? sweep_builder_bytes(b, h->padding.ptr, h->padding.len) : 0;
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__HELLO_CLIENT_NAME, name);
    ref_if(b, SWEEP__HELLO_AUTH_TOKEN, token);
    ref_if(b, SWEEP__HELLO_WORLD, world);
    ref_if(b, SWEEP__HELLO_COOKIE, cookie);
    ref_if(b, SWEEP__HELLO_PADDING, padding);
    u32_if(b, SWEEP__HELLO_PROTOCOL_VERSION, h->protocol_version);
    u32_if(b, SWEEP__HELLO_MAX_DATAGRAM, h->max_datagram);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_welcome(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_welcome *w = &msg->as.welcome;
    if (w->map_name.ptr == NULL || w->map_hash.ptr == NULL)
        return false;
    sweep_ref map_name = str_opt(b, w->map_name);
    sweep_ref map_hash = sweep_builder_bytes(b, w->map_hash.ptr, w->map_hash.len);
    sweep_ref identity = str_opt(b, w->identity);
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__WELCOME_SESSION_ID, w->session_id);
    u64_if(b, SWEEP__WELCOME_UDP_KEY, w->udp_key);
    f64_if(b, SWEEP__WELCOME_TICK_RATE, w->tick_rate);
    f64_if(b, SWEEP__WELCOME_TIME_BANK, w->time_bank);
    ref_if(b, SWEEP__WELCOME_IDENTITY, identity);
    sweep__builder_add_ref(b, SWEEP__WELCOME_MAP_NAME, map_name);
    sweep__builder_add_ref(b, SWEEP__WELCOME_MAP_HASH, map_hash);
    u32_if(b, SWEEP__WELCOME_PROTOCOL_VERSION, w->protocol_version);
    u32_if(b, SWEEP__WELCOME_MAX_BATCH, w->max_batch);
    u32_if(b, SWEEP__WELCOME_MAX_FRAME_SIZE, w->max_frame_size);
    u32_if(b, SWEEP__WELCOME_MAX_ENTITIES, w->max_entities);
    u16_if(b, SWEEP__WELCOME_UDP_PORT, w->udp_port);
    u8_if(b, SWEEP__WELCOME_ROLE, w->role);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_spawn(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_spawn *s = &msg->as.spawn;
    sweep__builder_table_start(b);
    sweep__builder_add_vec3(b, SWEEP__SPAWN_RADII, s->radii);
    sweep__builder_add_vec3(b, SWEEP__SPAWN_POSITION, s->position);
    f64_if(b, SWEEP__SPAWN_MAX_SPEED, s->max_speed);
    f64_if(b, SWEEP__SPAWN_STEP_HEIGHT, s->step_height);
    u32_if(b, SWEEP__SPAWN_SPAWN_POINT, s->spawn_point);
    u8_if(b, SWEEP__SPAWN_PLAYER, s->player);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_spawned(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_spawned *s = &msg->as.spawned;
    sweep__builder_table_start(b);
    sweep__builder_add_vec3(b, SWEEP__SPAWNED_POSITION, s->position);
    sweep__builder_add_vec3(b, SWEEP__SPAWNED_RADII, s->radii);
    u32_if(b, SWEEP__SPAWNED_ENTITY, s->entity);
    u32_if(b, SWEEP__SPAWNED_RULES, s->rules);
    u32_if(b, SWEEP__SPAWNED_SPAWN_POINT, s->spawn_point);
    u8_if(b, SWEEP__SPAWNED_PLAYER, s->player);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_despawn(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__ENTITY_ENTITY, msg->as.despawn.entity);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_despawned(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_despawned *d = &msg->as.despawned;
    sweep_ref reason = str_opt(b, d->reason);
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__ENTITY_ENTITY, d->entity);
    u32_if(b, SWEEP__DESPAWNED_CRUSHED_BY, d->crushed_by);
    u32_if(b, SWEEP__DESPAWNED_KILLED_BY, d->killed_by);
    ref_if(b, SWEEP__DESPAWNED_REASON, reason);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_move(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    *body = move_table(b, &msg->as.move);
    return true;
}

static bool encode_move_result(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    if (msg->as.move_result.contact_count > SWEEP_MAX_CONTACTS)
        return false;
    *body = move_result_table(b, &msg->as.move_result);
    return true;
}

static bool encode_move_batch(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_move_batch *mb = &msg->as.move_batch;
    if (mb->moves == NULL && mb->count)
        return false;
    sweep_ref moves = batch(b, mb->moves, sizeof *mb->moves, mb->count, move_any);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__BATCH_ITEMS, moves);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_move_result_batch(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_move_result_batch *rb = &msg->as.move_result_batch;
    if (rb->results == NULL && rb->count)
        return false;
    for (uint32_t i = 0; i < rb->count; i++)
        if (rb->results[i].contact_count > SWEEP_MAX_CONTACTS)
            return false;
    sweep_ref results = batch(b, rb->results, sizeof *rb->results, rb->count, move_result_any);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__BATCH_ITEMS, results);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_collide(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_collide *c = &msg->as.collide;
    sweep__builder_table_start(b);
    sweep__builder_add_vec3(b, SWEEP__COLLIDE_POSITION, c->position);
    sweep__builder_add_vec3(b, SWEEP__COLLIDE_RADII, c->radii);
    sweep__builder_add_vec3(b, SWEEP__COLLIDE_VELOCITY, c->velocity);
    f64_if(b, SWEEP__COLLIDE_DT, c->dt);
    u8_if(b, SWEEP__COLLIDE_GROUNDED, c->grounded);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_collide_result(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_collide_result *c = &msg->as.collide_result;
    if (c->contact_count > SWEEP_MAX_CONTACTS)
        return false;
    sweep_ref cs = c->contact_count ? contacts(b, c->contacts, c->contact_count) : 0;
    sweep__builder_table_start(b);
    sweep__builder_add_vec3(b, SWEEP__CR_POSITION, c->position);
    sweep__builder_add_vec3(b, SWEEP__CR_VELOCITY, c->velocity);
    if (c->grounded || !vec3_is_zero(c->ground_normal))
        sweep__builder_add_vec3(b, SWEEP__CR_GROUND_NORMAL, c->ground_normal);
    u32_if(b, SWEEP__CR_GROUND_MATERIAL, c->ground_material);
    ref_if(b, SWEEP__CR_CONTACTS, cs);
    u32_if(b, SWEEP__CR_GROUND_MOVER, c->ground_mover);
    u8_if(b, SWEEP__CR_GROUNDED, c->grounded);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_world_state(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_world_state *w = &msg->as.world_state;
    if ((w->movers == NULL && w->count) || (w->path_count != 0 && w->path_count != w->count))
        return false;
    sweep_ref paths = 0;
    if (w->path_count) {
        sweep__builder_vector_start(b, SWEEP__MOVER_PATH_SIZE, w->count, SWEEP__MOVER_PATH_ALIGN);
        for (uint32_t i = w->count; i-- > 0;) {
            uint8_t *p = sweep__builder_push(b, SWEEP__MOVER_PATH_SIZE);
            if (p) {
                sweep__wr32(p, w->movers[i].path_tick);
                sweep__wr32(p + 4, w->movers[i].wait);
                sweep__wr32(p + 8, (uint32_t)w->movers[i].dir);
            }
        }
        paths = sweep__builder_vector_end(b, w->count);
    }
    sweep__builder_vector_start(b, SWEEP__MOVER_SIZE, w->count, SWEEP__STRUCT_ALIGN);
    for (uint32_t i = w->count; i-- > 0;) {
        uint8_t *p = sweep__builder_push(b, SWEEP__MOVER_SIZE);
        if (p) {
            sweep__wr32(p, w->movers[i].id);
            sweep__wr32(p + 4, w->movers[i].flags);
            sweep__wrvec3(p + 8, w->movers[i].position);
            for (int k = 0; k < 4; k++)
                sweep__wrf64(p + 32 + 8 * k, w->movers[i].rotation[k]);
        }
    }
    sweep_ref movers = sweep__builder_vector_end(b, w->count);
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__WS_TICK, w->tick);
    sweep__builder_add_ref(b, SWEEP__WS_MOVERS, movers);
    u32_if(b, SWEEP__WS_MOVER_COUNT, w->mover_count);
    ref_if(b, SWEEP__WS_PATHS, paths);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_ping(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__PING_CLIENT_TIME, msg->as.ping.client_time);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_pong(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__PONG_CLIENT_TIME, msg->as.pong.client_time);
    u64_if(b, SWEEP__PONG_SERVER_TIME, msg->as.pong.server_time);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_get_stats(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    (void)msg; /* an empty table */
    sweep__builder_table_start(b);
    *body = sweep__builder_table_end(b);
    return true;
}

static sweep_ref world_info_table(sweep_builder *b, const void *item)
{
    const sweep_wire_world_info *w = item;
    sweep_ref name = str_opt(b, w->name);
    sweep_ref map = str_opt(b, w->map);
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__WI_TICK, w->tick);
    u32_if(b, SWEEP__WI_WORLD, w->world);
    ref_if(b, SWEEP__WI_NAME, name);
    ref_if(b, SWEEP__WI_MAP, map);
    u32_if(b, SWEEP__WI_SESSIONS, w->sessions);
    u32_if(b, SWEEP__WI_ENTITIES, w->entities);
    u32_if(b, SWEEP__WI_TRIANGLES, w->triangles);
    return sweep__builder_table_end(b);
}

static bool encode_stats(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_stats *s = &msg->as.stats;
    if (s->rules_total_count > SWEEP_WIRE_RULE_SLOTS || s->session_rules_count > SWEEP_WIRE_RULE_SLOTS ||
        s->errors_by_code_count > SWEEP_WIRE_CODE_SLOTS || (s->worlds == NULL && s->worlds_count))
        return false;
    /* No worlds, no vector: a server without them sends what it always did. */
    sweep_ref worlds =
        s->worlds_count ? batch(b, s->worlds, sizeof *s->worlds, s->worlds_count, world_info_table) : 0;
    sweep_ref rules_total = u64s(b, s->rules_total, s->rules_total_count);
    sweep_ref session_rules = u64s(b, s->session_rules, s->session_rules_count);
    sweep_ref errors_by_code = u64s(b, s->errors_by_code, s->errors_by_code_count);
    sweep__builder_table_start(b);
    ref_if(b, SWEEP__STATS_RULES_TOTAL, rules_total);
    ref_if(b, SWEEP__STATS_SESSION_RULES, session_rules);
    ref_if(b, SWEEP__STATS_ERRORS_BY_CODE, errors_by_code);
    ref_if(b, SWEEP__STATS_WORLDS, worlds);
    u64_if(b, SWEEP__STATS_TCP_BYTES_IN, s->tcp_bytes_in);
    u64_if(b, SWEEP__STATS_TCP_BYTES_OUT, s->tcp_bytes_out);
    u64_if(b, SWEEP__STATS_UDP_BYTES_IN, s->udp_bytes_in);
    u64_if(b, SWEEP__STATS_UDP_BYTES_OUT, s->udp_bytes_out);
    u64_if(b, SWEEP__STATS_UDP_DROPPED, s->udp_dropped);
    u64_if(b, SWEEP__STATS_TICKS_TOTAL, s->ticks_total);
    u64_if(b, SWEEP__STATS_TICK_NS_TOTAL, s->tick_ns_total);
    u64_if(b, SWEEP__STATS_MOVE_NS_TOTAL, s->move_ns_total);
    u64_if(b, SWEEP__STATS_MOVES_TOTAL, s->moves_total);
    u64_if(b, SWEEP__STATS_ERRORS_TOTAL, s->errors_total);
    u64_if(b, SWEEP__STATS_TICK_NS_P50, s->tick_ns_p50);
    u64_if(b, SWEEP__STATS_TICK_NS_P99, s->tick_ns_p99);
    u64_if(b, SWEEP__STATS_CRUSHED_TOTAL, s->crushed_total);
    u32_if(b, SWEEP__STATS_SESSIONS, s->sessions);
    u32_if(b, SWEEP__STATS_ENTITIES, s->entities);
    u32_if(b, SWEEP__STATS_MOVERS, s->movers);
    u32_if(b, SWEEP__STATS_WORLDS_OPEN, s->worlds_open);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_error(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_error *e = &msg->as.error;
    if (e->message.ptr == NULL || (unsigned)e->code > 0xffff)
        return false;
    sweep_ref message = str_opt(b, e->message);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__ERROR_MESSAGE, message);
    u32_if(b, SWEEP__ERROR_SEQUENCE, e->sequence);
    u32_if(b, SWEEP__ERROR_ENTITY, e->entity);
    u16_if(b, SWEEP__ERROR_CODE, (uint16_t)e->code);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_bye(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep_ref reason = str_opt(b, msg->as.bye.reason);
    sweep__builder_table_start(b);
    ref_if(b, SWEEP__BYE_REASON, reason);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_challenge(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_challenge *c = &msg->as.challenge;
    if (c->cookie.ptr == NULL)
        return false;
    sweep_ref cookie = sweep_builder_bytes(b, c->cookie.ptr, c->cookie.len);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__CHALLENGE_COOKIE, cookie);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_watch_world(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__WATCH_EVERY, msg->as.watch_world.every);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_mover_command(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_mover_command *c = &msg->as.mover_command;
    if (c->mover.ptr == NULL)
        return false;
    sweep_ref mover = str_opt(b, c->mover);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__COMMAND_MOVER, mover);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_mover_commanded(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__COMMANDED_TICK, msg->as.mover_commanded.tick);
    u32_if(b, SWEEP__COMMANDED_MOVER, msg->as.mover_commanded.mover);
    *body = sweep__builder_table_end(b);
    return true;
}

/* A command's hit shapes: absent when it has none (absent decodes as none). */
static sweep_ref hit_shapes(sweep_builder *b, const sweep_wire_hit_shape *s, uint32_t count)
{
    if (count == 0)
        return 0;
    sweep__builder_vector_start(b, SWEEP__HIT_SHAPE_SIZE, count, SWEEP__STRUCT_ALIGN);
    for (uint32_t i = count; i-- > 0;) {
        uint8_t *p = sweep__builder_push(b, SWEEP__HIT_SHAPE_SIZE);
        if (p) {
            sweep__wr32(p, s[i].id);
            sweep__wr32(p + 4, s[i].kind);
            sweep__wrvec3(p + 8, s[i].a);
            sweep__wrvec3(p + 32, s[i].b);
            sweep__wrvec3(p + 56, s[i].radii);
        }
    }
    return sweep__builder_vector_end(b, count);
}

static sweep_ref entity_command_table(sweep_builder *b, const void *item)
{
    const sweep_msg_entity_command *c = item;
    sweep_ref shapes = hit_shapes(b, c->shapes, c->shape_count);
    sweep__builder_table_start(b);
    ref_if(b, SWEEP__EC_SHAPES, shapes);
    /* Absent decodes as zero: written only when it is not (a Despawn has none). */
    if (!vec3_is_zero(c->vector))
        sweep__builder_add_vec3(b, SWEEP__EC_VECTOR, c->vector);
    u32_if(b, SWEEP__EC_ENTITY, c->entity);
    u8_if(b, SWEEP__EC_OP, c->op);
    return sweep__builder_table_end(b);
}

static bool encode_entity_commands(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_entity_commands *ec = &msg->as.entity_commands;
    if (ec->commands == NULL && ec->count)
        return false;
    for (uint32_t i = 0; i < ec->count; i++)
        if (ec->commands[i].shapes == NULL && ec->commands[i].shape_count)
            return false;
    sweep_ref commands = batch(b, ec->commands, sizeof *ec->commands, ec->count, entity_command_table);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__BATCH_ITEMS, commands);
    *body = sweep__builder_table_end(b);
    return true;
}

static sweep_ref entity_command_result_table(sweep_builder *b, const void *item)
{
    const sweep_msg_entity_command_result *r = item;
    sweep_ref message = str_opt(b, r->message);
    sweep__builder_table_start(b);
    if (r->has_state) {
        sweep__builder_add_vec3(b, SWEEP__ECR_POSITION, r->position);
        sweep__builder_add_vec3(b, SWEEP__ECR_VELOCITY, r->velocity);
        sweep__builder_add_vec3(b, SWEEP__ECR_RADII, r->radii);
    }
    u32_if(b, SWEEP__ECR_ENTITY, r->entity);
    ref_if(b, SWEEP__ECR_MESSAGE, message);
    u32_if(b, SWEEP__ECR_FLAGS, r->flags);
    u16_if(b, SWEEP__ECR_CODE, (uint16_t)r->code);
    u8_if(b, SWEEP__ECR_OP, r->op);
    return sweep__builder_table_end(b);
}

static bool encode_entity_commands_result(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_entity_commands_result *er = &msg->as.entity_commands_result;
    if (er->results == NULL && er->count)
        return false;
    for (uint32_t i = 0; i < er->count; i++)
        if ((unsigned)er->results[i].code > 0xffff)
            return false;
    sweep_ref results = batch(b, er->results, sizeof *er->results, er->count, entity_command_result_table);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__BATCH_ITEMS, results);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_watch_entities(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__WATCH_EVERY, msg->as.watch_entities.every);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_entity_states(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_entity_states *es = &msg->as.entity_states;
    if (es->entities == NULL && es->count)
        return false;
    sweep__builder_vector_start(b, SWEEP__ENTITY_STATE_SIZE, es->count, SWEEP__STRUCT_ALIGN);
    for (uint32_t i = es->count; i-- > 0;) {
        uint8_t *p = sweep__builder_push(b, SWEEP__ENTITY_STATE_SIZE);
        if (p) {
            const sweep_wire_entity_state *e = &es->entities[i];
            sweep__wr32(p, e->entity);
            sweep__wr32(p + 4, e->flags);
            sweep__wr64(p + 8, e->owner_session);
            sweep__wrvec3(p + 16, e->position);
            sweep__wrvec3(p + 40, e->velocity);
            sweep__wrvec3(p + 64, e->radii);
            sweep__wr32(p + 88, e->ground_mover);
            sweep__builder_zeros(p + 92, 4); /* the struct's padding */
        }
    }
    sweep_ref entities = sweep__builder_vector_end(b, es->count);
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__ES_TICK, es->tick);
    sweep__builder_add_ref(b, SWEEP__ES_ENTITIES, entities);
    u32_if(b, SWEEP__ES_ENTITY_COUNT, es->entity_count);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_get_entity(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__ENTITY_ENTITY, msg->as.get_entity.entity);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_open_world(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_open_world *o = &msg->as.open_world;
    if (o->map.ptr == NULL)
        return false;
    sweep_ref map = str_opt(b, o->map);
    sweep_ref name = str_opt(b, o->name);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__OPEN_MAP, map);
    ref_if(b, SWEEP__OPEN_NAME, name);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_world_opened(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_world_opened *o = &msg->as.world_opened;
    if (o->name.ptr == NULL || o->map_hash.ptr == NULL)
        return false;
    sweep_ref name = str_opt(b, o->name);
    sweep_ref map_hash = sweep_builder_bytes(b, o->map_hash.ptr, o->map_hash.len);
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__OPENED_WORLD, o->world);
    sweep__builder_add_ref(b, SWEEP__OPENED_NAME, name);
    sweep__builder_add_ref(b, SWEEP__OPENED_MAP_HASH, map_hash);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_close_world(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__CLOSE_WORLD, msg->as.close_world.world);
    *body = sweep__builder_table_end(b);
    return true;
}

static bool encode_world_closed(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_world_closed *c = &msg->as.world_closed;
    sweep_ref reason = str_opt(b, c->reason);
    sweep__builder_table_start(b);
    u32_if(b, SWEEP__CLOSED_WORLD, c->world);
    ref_if(b, SWEEP__CLOSED_REASON, reason);
    *body = sweep__builder_table_end(b);
    return true;
}

static sweep_ref query_item_table(sweep_builder *b, const void *item)
{
    const sweep_msg_query_item *q = item;
    sweep_ref ignore = 0;
    if (q->ignore_count) {
        sweep__builder_vector_start(b, 4, q->ignore_count, 4);
        for (uint32_t i = q->ignore_count; i-- > 0;) {
            uint8_t *p = sweep__builder_push(b, 4);
            if (p)
                sweep__wr32(p, q->ignore[i]);
        }
        ignore = sweep__builder_vector_end(b, q->ignore_count);
    }
    sweep__builder_table_start(b);
    /* Points and radii absent decode as zero: written only when they are not. */
    if (!vec3_is_zero(q->from))
        sweep__builder_add_vec3(b, SWEEP__QI_FROM, q->from);
    if (!vec3_is_zero(q->to))
        sweep__builder_add_vec3(b, SWEEP__QI_TO, q->to);
    if (!vec3_is_zero(q->radii))
        sweep__builder_add_vec3(b, SWEEP__QI_RADII, q->radii);
    f64_if(b, SWEEP__QI_RADIUS, q->radius);
    u64_if(b, SWEEP__QI_TICK, q->tick);
    f64_if(b, SWEEP__QI_FRACTION, q->fraction);
    u32_if(b, SWEEP__QI_FROM_ENTITY, q->from_entity);
    u32_if(b, SWEEP__QI_TO_ENTITY, q->to_entity);
    u32_if(b, SWEEP__QI_FILTER, q->filter);
    ref_if(b, SWEEP__QI_IGNORE, ignore);
    u32_if(b, SWEEP__QI_MAX_HITS, q->max_hits);
    u8_if(b, SWEEP__QI_KIND, q->kind);
    return sweep__builder_table_end(b);
}

static bool encode_query(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_query *q = &msg->as.query;
    if (q->items == NULL && q->count)
        return false;
    for (uint32_t i = 0; i < q->count; i++)
        if (q->items[i].ignore == NULL && q->items[i].ignore_count)
            return false;
    sweep_ref items = batch(b, q->items, sizeof *q->items, q->count, query_item_table);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__BATCH_ITEMS, items);
    *body = sweep__builder_table_end(b);
    return true;
}

static sweep_ref query_answer_table(sweep_builder *b, const void *item)
{
    const sweep_msg_query_answer *a = item;
    sweep_ref message = str_opt(b, a->message);
    sweep_ref hits = 0;
    if (a->hit_count) {
        sweep__builder_vector_start(b, SWEEP__QUERY_HIT_SIZE, a->hit_count, SWEEP__STRUCT_ALIGN);
        for (uint32_t i = a->hit_count; i-- > 0;) {
            uint8_t *p = sweep__builder_push(b, SWEEP__QUERY_HIT_SIZE);
            if (p) {
                const sweep_wire_query_hit *h = &a->hits[i];
                sweep__wr32(p, h->kind);
                sweep__wr32(p + 4, h->triangle);
                sweep__wr32(p + 8, h->material);
                sweep__wr32(p + 12, h->mover);
                sweep__wr32(p + 16, h->entity);
                sweep__wr32(p + 20, h->shape);
                sweep__wrf64(p + 24, h->fraction);
                sweep__wrf64(p + 32, h->distance);
                sweep__wrvec3(p + 40, h->point);
                sweep__wrvec3(p + 64, h->normal);
            }
        }
        hits = sweep__builder_vector_end(b, a->hit_count);
    }
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__QA_TICK, a->tick);
    f64_if(b, SWEEP__QA_FRACTION, a->fraction);
    ref_if(b, SWEEP__QA_MESSAGE, message);
    u32_if(b, SWEEP__QA_FLAGS, a->flags);
    ref_if(b, SWEEP__QA_HITS, hits);
    u16_if(b, SWEEP__QA_CODE, (uint16_t)a->code);
    return sweep__builder_table_end(b);
}

static bool encode_query_result(sweep_builder *b, const sweep_message *msg, sweep_ref *body)
{
    const sweep_msg_query_result *r = &msg->as.query_result;
    if (r->answers == NULL && r->count)
        return false;
    for (uint32_t i = 0; i < r->count; i++)
        if ((unsigned)r->answers[i].code > 0xffff || (r->answers[i].hits == NULL && r->answers[i].hit_count))
            return false;
    sweep_ref answers = batch(b, r->answers, sizeof *r->answers, r->count, query_answer_table);
    sweep__builder_table_start(b);
    sweep__builder_add_ref(b, SWEEP__QR_ANSWERS, answers);
    u32_if(b, SWEEP__QR_FIRST, r->first);
    *body = sweep__builder_table_end(b);
    return true;
}

/* Indexed by kind, built from kinds.h: a kind without its encoder does not
 * compile. NONE has none, so it is refused like a kind out of range. */
#define ENCODER_ROW(kind, stem, name, sender, recorded) [SWEEP_MSG_##kind] = encode_##stem,
static const body_encoder encoders[SWEEP_MSG_KIND_COUNT] = {SWEEP__MSG_KINDS(ENCODER_ROW)};
#undef ENCODER_ROW

/* The root table through the builder's calls: the definition of its
 * layout, and what message_table does when room is short. */
static sweep_ref message_fields(sweep_builder *b, const sweep_message *msg, uint64_t key, sweep_ref body)
{
    sweep__builder_table_start(b);
    u64_if(b, SWEEP__MESSAGE_SERVER_TICK, msg->server_tick);
    u64_if(b, SWEEP__MESSAGE_KEY, key);
    sweep__builder_add_ref(b, SWEEP__MESSAGE_BODY, body);
    u32_if(b, SWEEP__MESSAGE_SEQUENCE, msg->sequence);
    sweep__builder_add_u8(b, SWEEP__MESSAGE_BODY_TYPE, (uint8_t)msg->kind);
    return sweep__builder_table_end(b);
}

/* The root table, every message's: the same bytes as message_fields,
 * written as move_result_table writes its table (see there). Its layout:
 * [pad to 8, server_tick, key] [pad to 4, body offset] [sequence]
 * body_type, 3 bytes of padding, the soffset; a vtable of four entries, or
 * five with a key (only a client's UDP datagrams have one). */
static sweep_ref message_table(sweep_builder *b, const sweep_message *msg, uint64_t the_key, sweep_ref body)
{
    const int tick = msg->server_tick != 0, key = the_key != 0, seq = msg->sequence != 0;
    const int wide = tick | key;
    size_t pad_tick = wide ? (0u - b->used) & 7u : 0;
    size_t pad_body = (0u - (b->used + pad_tick)) & 3u;
    size_t total = pad_tick + 8 * (size_t)tick + 8 * (size_t)key + pad_body + 4 + 4 * (size_t)seq + 1 + 3 + 4;
    if (b->failed || total > b->cap - b->used - b->front)
        return message_fields(b, msg, the_key, body);

    uint8_t *const end = b->buf + b->cap;
    size_t u = b->used;
    const size_t table = u + total;
    const size_t vsize = 4 + 2 * (key ? SWEEP__MESSAGE_KEY + 1 : SWEEP__MESSAGE_BODY + 1);
    const uint32_t head = sweep__vtable_head(vsize, total);
    uint8_t spare[4 + 2 * (SWEEP__MESSAGE_KEY + 1)];
    uint8_t *vt = sweep__builder_vtable_begin(b, table, vsize, total, spare);
    size_t align = wide ? 8 : 4;
    b->minalign = b->minalign > align ? b->minalign : align;
#define FIELD(id, n) (u += (n), sweep__wr16(vt + 4 + 2 * (id), (uint16_t)(table - u)), end - u)
    sweep__builder_zeros(end - u - pad_tick, pad_tick);
    u += pad_tick;
    if (tick)
        sweep__wr64(FIELD(SWEEP__MESSAGE_SERVER_TICK, 8), msg->server_tick);
    if (key)
        sweep__wr64(FIELD(SWEEP__MESSAGE_KEY, 8), the_key);
    sweep__builder_zeros(end - u - pad_body, pad_body);
    u += pad_body;
    uint8_t *p = FIELD(SWEEP__MESSAGE_BODY, 4);
    sweep__wr32(p, (uint32_t)(u - body));
    if (seq)
        sweep__wr32(FIELD(SWEEP__MESSAGE_SEQUENCE, 4), msg->sequence);
    *FIELD(SWEEP__MESSAGE_BODY_TYPE, 1) = (uint8_t)msg->kind;
#undef FIELD
    sweep__builder_zeros(end - u - 3, 3);
    b->used = table;
    return sweep__builder_vtable(b, end - table, table, vt, vsize, head);
}

sweep_proto_error sweep_encode(const sweep_message *msg, unsigned flags, void *buf, size_t cap,
                               const uint8_t **out, size_t *out_len)
{
    return msg ? sweep_encode_keyed(msg, msg->key, flags, buf, cap, out, out_len) : SWEEP_PROTO_E_ARG;
}

sweep_proto_error sweep_encode_keyed(const sweep_message *msg, uint64_t key, unsigned flags, void *buf, size_t cap,
                                     const uint8_t **out, size_t *out_len)
{
    if (msg == NULL || buf == NULL || out == NULL || out_len == NULL)
        return SWEEP_PROTO_E_ARG;
    body_encoder encode_body = (unsigned)msg->kind < SWEEP_MSG_KIND_COUNT ? encoders[msg->kind] : NULL;
    sweep_builder b;
    sweep__builder_init(&b, buf, cap);
    sweep_ref r;
    if (encode_body == NULL || !encode_body(&b, msg, &r))
        return SWEEP_PROTO_E_ARG;
    sweep_ref root = message_table(&b, msg, key, r);
    return sweep__builder_finish(&b, root, SWEEP_WIRE_IDENTIFIER, (flags & SWEEP_WIRE_SIZE_PREFIXED) != 0, out,
                                 out_len);
}

/* Zeros for Hello.padding; a padded Hello never needs more than this. */
static const uint8_t zero_pad[SWEEP_UDP_HELLO_MIN];

sweep_proto_error sweep_encode_padded(const sweep_message *msg, unsigned flags, size_t min_size,
                                      void *buf, size_t cap, const uint8_t **out, size_t *out_len)
{
    if (msg == NULL || msg->kind != SWEEP_MSG_HELLO || msg->as.hello.padding.ptr != NULL ||
        min_size > sizeof zero_pad)
        return SWEEP_PROTO_E_ARG;
    sweep_proto_error e = sweep_encode(msg, flags, buf, cap, out, out_len);
    if (e != SWEEP_PROTO_OK || *out_len >= min_size)
        return e;
    /* The padding vector costs its bytes plus a count, an offset, a vtable
     * entry and some alignment, so a padding of exactly the gap lands on
     * min_size or a few bytes (< 24) above it; never below. */
    sweep_message m = *msg;
    m.as.hello.padding.ptr = zero_pad;
    m.as.hello.padding.len = (uint32_t)(min_size - *out_len);
    return sweep_encode(&m, flags, buf, cap, out, out_len);
}

/* The most items (at least 1) of the message m one datagram of `datagram`
 * bytes holds, m holding *count of them, their storage `items` of room for
 * `most`: found by encoding, so whatever the builder's layout, the answer
 * is what really fits. A message grows with its count, so the largest
 * count that fits is found by bisection. */
static uint32_t udp_fit(sweep_message *m, uint32_t *count, uint32_t *also, size_t datagram, uint32_t most)
{
    /* The encoder borrows 4 bytes an item at the front as scratch. */
    size_t cap = datagram + 4u * (size_t)most + 1024u;
    uint8_t small[4096]; /* enough for 1,200 bytes: no allocation for the protocol's own size */
    uint8_t *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf)
        return 0;
    uint32_t lo = 1, hi = most; /* lo is the answer so far (1 even when none fits) */
    while (lo < hi) {
        uint32_t n = lo + (hi - lo + 1) / 2;
        *count = n;
        if (also)
            *also = n;
        const uint8_t *out;
        size_t len;
        if (sweep_encode(m, 0, buf, cap, &out, &len) == SWEEP_PROTO_OK && len <= datagram)
            lo = n;
        else
            hi = n - 1;
    }
    if (buf != small)
        free(buf);
    return lo;
}

/* Room for the items of a datagram: none of them takes fewer than 16
 * bytes, so no more than this many fit. */
static uint32_t most_items(size_t datagram)
{
    return (uint32_t)(datagram / 16u) + 1u;
}

/* A message of kind k with its header's fields at their largest. */
static sweep_message largest(sweep_msg_kind k)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = k;
    m.sequence = UINT32_MAX;
    m.server_tick = UINT64_MAX;
    return m;
}

/* Every fit is asked for a datagram of 1,200 to SWEEP_UDP_LARGEST_DATAGRAM
 * bytes (anything else is taken as the nearer end). Out of memory for the
 * trial, the answer for 1,200 bytes: smaller, so still true. */
static size_t datagram_of(size_t datagram)
{
    return datagram < SWEEP_UDP_MAX_DATAGRAM     ? SWEEP_UDP_MAX_DATAGRAM
           : datagram > SWEEP_UDP_LARGEST_DATAGRAM ? SWEEP_UDP_LARGEST_DATAGRAM
                                                   : datagram;
}

/* What a fit found (n), or when it ran out of memory (0) the fit of the
 * protocol's own 1,200 bytes, smaller and so still true. */
static uint32_t found_or_less(uint32_t n, size_t datagram, uint32_t (*fit)(size_t))
{
    if (n)
        return n;
    return datagram > SWEEP_UDP_MAX_DATAGRAM ? fit(SWEEP_UDP_MAX_DATAGRAM) : 1;
}

/* Most moves of a MoveBatch one datagram holds, every field of every move
 * present (and a claimed position too when `claims`); 0 out of memory. */
static uint32_t udp_batch_fit(int claims, size_t datagram)
{
    uint32_t most = most_items(datagram);
    sweep_msg_move *moves = malloc((size_t)most * sizeof *moves);
    if (!moves)
        return 0;
    for (uint32_t i = 0; i < most; i++) {
        memset(&moves[i], 0, sizeof moves[i]);
        moves[i].entity = UINT32_MAX;
        moves[i].sequence = UINT32_MAX;
        moves[i].client_tick = UINT64_MAX;
        moves[i].velocity = sweep_v3(1, 1, 1);
        moves[i].dt = 1;
        moves[i].has_claimed_position = claims != 0;
        moves[i].claimed_position = sweep_v3(1, 1, 1);
        moves[i].buttons = UINT32_MAX;
        moves[i].mode = UINT8_MAX;
    }
    sweep_message m = largest(SWEEP_MSG_MOVE_BATCH);
    /* A client's request: no server_tick, and over UDP its session's key,
     * of the same size and alignment (so the counts are those of before
     * the key). */
    m.server_tick = 0;
    m.key = UINT64_MAX;
    m.as.move_batch.moves = moves;
    uint32_t n = udp_fit(&m, &m.as.move_batch.count, NULL, datagram, most);
    free(moves);
    return n;
}

uint32_t sweep_udp_max_batch(void)
{
    return sweep_udp_max_batch_in(SWEEP_UDP_MAX_DATAGRAM);
}

uint32_t sweep_udp_max_batch_claimed(void)
{
    return sweep_udp_max_batch_claimed_in(SWEEP_UDP_MAX_DATAGRAM);
}

uint32_t sweep_udp_max_batch_in(size_t datagram)
{
    datagram = datagram_of(datagram);
    return found_or_less(udp_batch_fit(0, datagram), datagram, sweep_udp_max_batch_in);
}

uint32_t sweep_udp_max_batch_claimed_in(size_t datagram)
{
    datagram = datagram_of(datagram);
    return found_or_less(udp_batch_fit(1, datagram), datagram, sweep_udp_max_batch_claimed_in);
}

/* Most movers of a WorldState, paths included; 0 out of memory. */
static uint32_t udp_movers_fit(size_t datagram)
{
    uint32_t most = most_items(datagram);
    sweep_wire_mover *movers = malloc((size_t)most * sizeof *movers);
    if (!movers)
        return 0;
    for (uint32_t i = 0; i < most; i++) {
        movers[i].id = UINT32_MAX;
        movers[i].flags = UINT32_MAX;
        movers[i].position = sweep_v3(1, 1, 1);
        for (int k = 0; k < 4; k++)
            movers[i].rotation[k] = 0.5;
        movers[i].path_tick = UINT32_MAX;
        movers[i].wait = UINT32_MAX;
        movers[i].dir = -1;
    }
    sweep_message m = largest(SWEEP_MSG_WORLD_STATE);
    m.as.world_state.tick = UINT64_MAX;
    m.as.world_state.mover_count = UINT32_MAX;
    m.as.world_state.movers = movers;
    /* with their paths, as a server sends them */
    uint32_t n = udp_fit(&m, &m.as.world_state.count, &m.as.world_state.path_count, datagram, most);
    free(movers);
    return n;
}

uint32_t sweep_udp_max_movers_in(size_t datagram)
{
    datagram = datagram_of(datagram);
    return found_or_less(udp_movers_fit(datagram), datagram, sweep_udp_max_movers_in);
}

uint32_t sweep_udp_max_movers(void)
{
    return sweep_udp_max_movers_in(SWEEP_UDP_MAX_DATAGRAM);
}

/* Most entities of an EntityStates; 0 out of memory. */
static uint32_t udp_entity_states_fit(size_t datagram)
{
    uint32_t most = most_items(datagram);
    sweep_wire_entity_state *states = malloc((size_t)most * sizeof *states);
    if (!states)
        return 0;
    for (uint32_t i = 0; i < most; i++) {
        states[i].entity = UINT32_MAX;
        states[i].flags = UINT32_MAX;
        states[i].owner_session = UINT64_MAX;
        states[i].position = sweep_v3(1, 1, 1);
        states[i].velocity = sweep_v3(1, 1, 1);
        states[i].radii = sweep_v3(1, 1, 1);
        states[i].ground_mover = UINT32_MAX;
    }
    sweep_message m = largest(SWEEP_MSG_ENTITY_STATES);
    m.as.entity_states.tick = UINT64_MAX;
    m.as.entity_states.entity_count = UINT32_MAX;
    m.as.entity_states.entities = states;
    uint32_t n = udp_fit(&m, &m.as.entity_states.count, NULL, datagram, most);
    free(states);
    return n;
}

uint32_t sweep_udp_max_entity_states_in(size_t datagram)
{
    datagram = datagram_of(datagram);
    return found_or_less(udp_entity_states_fit(datagram), datagram, sweep_udp_max_entity_states_in);
}

uint32_t sweep_udp_max_entity_states(void)
{
    return sweep_udp_max_entity_states_in(SWEEP_UDP_MAX_DATAGRAM);
}
