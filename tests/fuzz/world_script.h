/*
 * world_script.h - how fuzz_world.c reads a request out of its script,
 * and how make_world_seeds.c writes one: the two must agree, so both
 * take the layout from here.
 *
 * A request is its kind (the op's high bits, % WS_KINDS) and then its
 * fields in a fixed order, each read with one of the readers below; a
 * script that ends early reads zeros. A number is a mode byte and its
 * bytes:
 *   0  zero                      4  one of special_numbers (a byte)
 *   1  a small integer (int8)    5  an int16, in map units
 *   2  an int16 / 16              6  a float (4 bytes)
 *   3  a double (8 bytes)        7  a byte / 64 (fractions, dt)
 * so that the fuzzer reaches NaN, infinities, subnormals and the map's
 * scale alike. An id is a byte: below 0xF0 a small id (% 32), else the
 * four bytes after it.
 */
#ifndef SWEEP_TESTS_FUZZ_WORLD_SCRIPT_H
#define SWEEP_TESTS_FUZZ_WORLD_SCRIPT_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/message.h"
#include "server/world/request_decoder.h"

typedef struct ws_reader {
    const uint8_t *p;
    size_t n;
} ws_reader;

static inline uint8_t ws_u8(ws_reader *s)
{
    if (!s->n)
        return 0;
    s->n--;
    return *s->p++;
}

static inline void ws_bytes(ws_reader *s, void *out, size_t n)
{
    uint8_t *o = out;
    for (size_t i = 0; i < n; i++)
        o[i] = ws_u8(s);
}

static inline uint32_t ws_u32(ws_reader *s)
{
    uint32_t v;
    ws_bytes(s, &v, sizeof v);
    return v;
}

static const double special_numbers[] = {
    INFINITY, -INFINITY, NAN, -0.0, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
    1e300, -1e300, 1e-300, 1e7, -1e7, 1e7 + 1, 1e9, 65536.0, 1.0 / 60.0, 0.5, 1e-9, 2.0, 1e15, -1.0,
};
#define WS_SPECIALS (sizeof special_numbers / sizeof special_numbers[0])

enum { WS_ZERO, WS_SMALL, WS_FINE, WS_DOUBLE, WS_SPECIAL, WS_UNITS, WS_FLOAT, WS_FRACTION };

static inline double ws_num(ws_reader *s)
{
    uint8_t mode = ws_u8(s) & 7u;
    int16_t i16;
    float f;
    double d;
    switch (mode) {
    case WS_SMALL:
        return (double)(int8_t)ws_u8(s);
    case WS_FINE:
        ws_bytes(s, &i16, sizeof i16);
        return i16 / 16.0;
    case WS_DOUBLE:
        ws_bytes(s, &d, sizeof d);
        return d;
    case WS_SPECIAL:
        return special_numbers[ws_u8(s) % WS_SPECIALS];
    case WS_UNITS:
        ws_bytes(s, &i16, sizeof i16);
        return i16;
    case WS_FLOAT:
        ws_bytes(s, &f, sizeof f);
        return f;
    case WS_FRACTION:
        return ws_u8(s) / 64.0;
    default:
        return 0.0;
    }
}

static inline sweep_vec3 ws_vec(ws_reader *s)
{
    sweep_vec3 v;
    v.x = ws_num(s);
    v.y = ws_num(s);
    v.z = ws_num(s);
    return v;
}

static inline uint32_t ws_id(ws_reader *s)
{
    uint8_t b = ws_u8(s);
    return b < 0xF0 ? b % 32u : ws_u32(s);
}

/* Storage a built request points into, and the decoder sweepd uses. */
#define WS_MAX_MOVES 40u    /* past the world's max_batch of 8 */
#define WS_MAX_COMMANDS 8u
#define WS_MAX_SHAPES 10u   /* past SWEEP_WIRE_HIT_SHAPES_MAX a command */
#define WS_MAX_ITEMS 8u
#define WS_MAX_IGNORE 18u   /* past SWEEP_WIRE_QUERY_IGNORE_MAX an item */
#define WS_NAME 24u

typedef struct ws_builder {
    sweep_msg_move moves[WS_MAX_MOVES];
    sweep_msg_entity_command commands[WS_MAX_COMMANDS];
    sweep_wire_hit_shape shapes[WS_MAX_COMMANDS][WS_MAX_SHAPES];
    sweep_msg_query_item items[WS_MAX_ITEMS];
    uint32_t ignore[WS_MAX_ITEMS][WS_MAX_IGNORE];
    char name[WS_NAME];
    uint32_t sequence; /* the requests' running sequence */
    sweep__request_decoder dec;
} ws_builder;

static inline int ws_builder_init(ws_builder *b)
{
    memset(b, 0, sizeof *b);
    return sweep__request_decoder_init(&b->dec, 1u << 16, 8);
}

static inline void ws_builder_free(ws_builder *b)
{
    sweep__request_decoder_free(&b->dec);
}

/* The kinds, in the order (op >> 2) % WS_KINDS picks them. */
static const sweep_msg_kind ws_kinds[] = {
    SWEEP_MSG_SPAWN, SWEEP_MSG_MOVE, SWEEP_MSG_MOVE_BATCH, SWEEP_MSG_DESPAWN, SWEEP_MSG_COLLIDE,
    SWEEP_MSG_MOVER_COMMAND, SWEEP_MSG_GET_ENTITY, SWEEP_MSG_ENTITY_COMMANDS, SWEEP_MSG_QUERY,
};
#define WS_KINDS (sizeof ws_kinds / sizeof ws_kinds[0])

/* The sample maps' mover names, and one of nobody's. */
static const char *const ws_mover_names[] = {"sliding door", "swinging door", "lift", "platform", "nobody"};

static inline void ws_move(ws_reader *s, sweep_msg_move *mv, uint32_t *sequence, uint64_t tick)
{
    memset(mv, 0, sizeof *mv);
    mv->entity = ws_id(s);
    uint8_t how = ws_u8(s);
    /* Mostly the next sequence and the world's tick, as a client sends
     * them; else any. */
    mv->sequence = how & 1 ? ws_u32(s) : ++*sequence;
    mv->client_tick = how & 2 ? ws_u32(s) : tick;
    mv->velocity = ws_vec(s);
    mv->dt = ws_num(s);
    mv->has_claimed_position = (how & 4) != 0;
    if (mv->has_claimed_position)
        mv->claimed_position = ws_vec(s);
    mv->buttons = how & 8 ? ws_u32(s) : (uint32_t)(how >> 6);
    mv->mode = ws_u8(s) % 4u;
}

/* Reads one request of kind index k from s into *m (pointing into b). */
static inline void ws_build(ws_reader *s, ws_builder *b, uint32_t k, uint64_t tick, sweep_message *m)
{
    memset(m, 0, sizeof *m);
    m->kind = ws_kinds[k % WS_KINDS];
    m->sequence = ++b->sequence;
    switch (m->kind) {
    case SWEEP_MSG_SPAWN: {
        sweep_msg_spawn *sp = &m->as.spawn;
        uint8_t how = ws_u8(s);
        sp->radii = ws_vec(s);
        sp->position = ws_vec(s);
        if (how & 1)
            sp->max_speed = ws_num(s);
        if (how & 2)
            sp->step_height = ws_num(s);
        sp->spawn_point = how & 4 ? ws_id(s) : 0;
        sp->player = (how & 8) != 0;
        break;
    }
    case SWEEP_MSG_MOVE:
        ws_move(s, &m->as.move, &b->sequence, tick);
        break;
    case SWEEP_MSG_MOVE_BATCH: {
        uint8_t n = ws_u8(s);
        uint32_t count = n < 0xF0 ? n % 10u : n % WS_MAX_MOVES;
        for (uint32_t i = 0; i < count; i++)
            ws_move(s, &b->moves[i], &b->sequence, tick);
        m->as.move_batch.moves = b->moves;
        m->as.move_batch.count = count;
        break;
    }
    case SWEEP_MSG_DESPAWN:
        m->as.despawn.entity = ws_id(s);
        break;
    case SWEEP_MSG_COLLIDE:
        m->as.collide.position = ws_vec(s);
        m->as.collide.radii = ws_vec(s);
        m->as.collide.velocity = ws_vec(s);
        m->as.collide.dt = ws_num(s);
        m->as.collide.grounded = ws_u8(s) & 1;
        break;
    case SWEEP_MSG_MOVER_COMMAND: {
        uint8_t n = ws_u8(s);
        if (n < 0xC0) {
            m->as.mover_command.mover = sweep_str_of(ws_mover_names[n % 5u]);
        } else {
            uint32_t len = n % WS_NAME;
            ws_bytes(s, b->name, len);
            m->as.mover_command.mover = (sweep_str){b->name, len};
        }
        break;
    }
    case SWEEP_MSG_GET_ENTITY:
        m->as.get_entity.entity = ws_id(s);
        break;
    case SWEEP_MSG_ENTITY_COMMANDS: {
        uint32_t count = ws_u8(s) % (WS_MAX_COMMANDS + 1);
        for (uint32_t i = 0; i < count; i++) {
            sweep_msg_entity_command *c = &b->commands[i];
            memset(c, 0, sizeof *c);
            c->entity = ws_id(s);
            c->op = ws_u8(s) % (SWEEP_WIRE_OP_COUNT + 1);
            c->vector = ws_vec(s);
            if (c->op == SWEEP_WIRE_OP_SET_HIT_SHAPES) {
                c->shape_count = ws_u8(s) % (WS_MAX_SHAPES + 1);
                for (uint32_t j = 0; j < c->shape_count; j++) {
                    sweep_wire_hit_shape *h = &b->shapes[i][j];
                    h->id = ws_id(s);
                    h->kind = ws_u8(s) % 4u;
                    h->a = ws_vec(s);
                    h->b = ws_vec(s);
                    h->radii = ws_vec(s);
                }
                c->shapes = b->shapes[i];
            }
        }
        m->as.entity_commands.commands = b->commands;
        m->as.entity_commands.count = count;
        break;
    }
    case SWEEP_MSG_QUERY: {
        uint32_t count = ws_u8(s) % (WS_MAX_ITEMS + 1);
        for (uint32_t i = 0; i < count; i++) {
            sweep_msg_query_item *q = &b->items[i];
            memset(q, 0, sizeof *q);
            uint8_t how = ws_u8(s);
            q->kind = how % (SWEEP_WIRE_QUERY_KIND_COUNT + 1);
            q->from = ws_vec(s);
            q->to = ws_vec(s);
            if (how & 0x08)
                q->from_entity = ws_id(s);
            if (how & 0x10)
                q->to_entity = ws_id(s);
            q->radii = ws_vec(s);
            q->radius = ws_num(s);
            /* The newest frame, one some ticks back, or any. */
            uint8_t t = ws_u8(s);
            q->tick = t < 0x80 ? 0 : t < 0xF0 ? tick - (t & 0x3Fu) : ws_u32(s);
            q->fraction = ws_num(s);
            q->filter = ws_u8(s);
            q->max_hits = ws_u8(s);
            if (how & 0x20) {
                q->ignore_count = ws_u8(s) % (WS_MAX_IGNORE + 1);
                for (uint32_t j = 0; j < q->ignore_count; j++)
                    b->ignore[i][j] = ws_id(s);
                q->ignore = b->ignore[i];
            }
        }
        m->as.query.items = b->items;
        m->as.query.count = count;
        break;
    }
    default:
        break;
    }
}

#endif
