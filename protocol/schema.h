/*
 * schema.h - internal: sweep.fbs as data. Field ids of every table (used by
 * the encoder and the decoder) and a description of each table's fields
 * (used by the verifier).
 *
 * The field id of a FlatBuffers field is its position in the table's
 * declaration, counting a union as two (its type, then its value); the
 * vtable entry of id i is at byte 4 + 2 * i of the vtable. Any change to
 * sweep.fbs must be mirrored here; the interop tests (official runtime
 * against this codec, both ways, every message kind) catch a mismatch.
 */
#ifndef SWEEP_PROTOCOL_SCHEMA_H
#define SWEEP_PROTOCOL_SCHEMA_H

#include <stdint.h>

#include "protocol/message.h"

/* Inline sizes of the schema's structs. */
#define SWEEP__VEC3_SIZE 24u
#define SWEEP__CONTACT_SIZE 56u
#define SWEEP__MOVER_SIZE 64u
#define SWEEP__MOVER_PATH_SIZE 12u
#define SWEEP__MOVER_PATH_ALIGN 4u
#define SWEEP__ENTITY_STATE_SIZE 96u /* 92 bytes of fields, padded to its alignment */
#define SWEEP__HIT_SHAPE_SIZE 80u
#define SWEEP__QUERY_HIT_SIZE 88u
#define SWEEP__STRUCT_ALIGN 8u /* all of them hold doubles */

enum {
    SWEEP__MESSAGE_SEQUENCE, SWEEP__MESSAGE_SERVER_TICK, SWEEP__MESSAGE_BODY_TYPE, SWEEP__MESSAGE_BODY, SWEEP__MESSAGE_KEY
};
enum {
    SWEEP__HELLO_PROTOCOL_VERSION, SWEEP__HELLO_CLIENT_NAME, SWEEP__HELLO_AUTH_TOKEN, SWEEP__HELLO_WORLD,
    SWEEP__HELLO_COOKIE, SWEEP__HELLO_PADDING, SWEEP__HELLO_MAX_DATAGRAM
};
enum {
    SWEEP__WELCOME_PROTOCOL_VERSION, SWEEP__WELCOME_SESSION_ID, SWEEP__WELCOME_TICK_RATE,
    SWEEP__WELCOME_MAP_NAME, SWEEP__WELCOME_MAP_HASH, SWEEP__WELCOME_MAX_BATCH,
    SWEEP__WELCOME_MAX_FRAME_SIZE, SWEEP__WELCOME_MAX_ENTITIES, SWEEP__WELCOME_ROLE,
    SWEEP__WELCOME_IDENTITY, SWEEP__WELCOME_TIME_BANK, SWEEP__WELCOME_UDP_PORT, SWEEP__WELCOME_UDP_KEY
};
enum {
    SWEEP__SPAWN_RADII,
    SWEEP__SPAWN_POSITION,
    SWEEP__SPAWN_MAX_SPEED,
    SWEEP__SPAWN_STEP_HEIGHT,
    SWEEP__SPAWN_SPAWN_POINT,
    SWEEP__SPAWN_PLAYER
};
enum {
    SWEEP__SPAWNED_ENTITY, SWEEP__SPAWNED_POSITION, SWEEP__SPAWNED_RADII, SWEEP__SPAWNED_RULES,
    SWEEP__SPAWNED_SPAWN_POINT, SWEEP__SPAWNED_PLAYER
};
enum { /* Despawn (first only), Despawned */
    SWEEP__ENTITY_ENTITY, SWEEP__DESPAWNED_CRUSHED_BY, SWEEP__DESPAWNED_KILLED_BY, SWEEP__DESPAWNED_REASON
};
enum {
    SWEEP__MOVE_ENTITY, SWEEP__MOVE_SEQUENCE, SWEEP__MOVE_CLIENT_TICK, SWEEP__MOVE_VELOCITY,
    SWEEP__MOVE_DT, SWEEP__MOVE_CLAIMED_POSITION, SWEEP__MOVE_BUTTONS, SWEEP__MOVE_MODE
};
enum {
    SWEEP__MR_ENTITY, SWEEP__MR_SEQUENCE, SWEEP__MR_SERVER_TICK, SWEEP__MR_POSITION,
    SWEEP__MR_VELOCITY, SWEEP__MR_GROUNDED, SWEEP__MR_GROUND_NORMAL, SWEEP__MR_GROUND_MATERIAL,
    SWEEP__MR_CONTACTS, SWEEP__MR_CORRECTED, SWEEP__MR_CORRECTION, SWEEP__MR_GROUND_MOVER,
    SWEEP__MR_PUSHED_BY, SWEEP__MR_CARRIED, SWEEP__MR_PUSHED, SWEEP__MR_START_POSITION,
    SWEEP__MR_RULES, SWEEP__MR_SPEED_EXCESS, SWEEP__MR_TIME_EXCESS, SWEEP__MR_APPLIED_DT,
    SWEEP__MR_LAUNCHED_BY, SWEEP__MR_TELEPORTED_BY, SWEEP__MR_TELEPORT_BLOCKED, SWEEP__MR_HURT_BY,
    SWEEP__MR_DAMAGE, SWEEP__MR_KILLED_BY, SWEEP__MR_ENTERED, SWEEP__MR_LEFT,
    SWEEP__MR_CROUCHED, SWEEP__MR_STANCE_BLOCKED, SWEEP__MR_MEDIUM
};
enum { SWEEP__BATCH_ITEMS }; /* MoveBatch.moves, MoveResultBatch.results */
enum { SWEEP__COLLIDE_POSITION, SWEEP__COLLIDE_RADII, SWEEP__COLLIDE_VELOCITY, SWEEP__COLLIDE_DT, SWEEP__COLLIDE_GROUNDED };
enum {
    SWEEP__CR_POSITION, SWEEP__CR_VELOCITY, SWEEP__CR_GROUNDED, SWEEP__CR_GROUND_NORMAL,
    SWEEP__CR_GROUND_MATERIAL, SWEEP__CR_CONTACTS, SWEEP__CR_GROUND_MOVER
};
enum { SWEEP__WS_TICK, SWEEP__WS_MOVERS, SWEEP__WS_MOVER_COUNT, SWEEP__WS_PATHS };
enum { SWEEP__PING_CLIENT_TIME };
enum { SWEEP__PONG_CLIENT_TIME, SWEEP__PONG_SERVER_TIME };
enum {
    SWEEP__STATS_SESSIONS, SWEEP__STATS_ENTITIES, SWEEP__STATS_MOVES_TOTAL, SWEEP__STATS_ERRORS_TOTAL,
    SWEEP__STATS_TICK_NS_P50, SWEEP__STATS_TICK_NS_P99, SWEEP__STATS_MOVERS, SWEEP__STATS_CRUSHED_TOTAL,
    SWEEP__STATS_RULES_TOTAL, SWEEP__STATS_SESSION_RULES, SWEEP__STATS_ERRORS_BY_CODE, SWEEP__STATS_TCP_BYTES_IN,
    SWEEP__STATS_TCP_BYTES_OUT, SWEEP__STATS_UDP_BYTES_IN, SWEEP__STATS_UDP_BYTES_OUT, SWEEP__STATS_UDP_DROPPED,
    SWEEP__STATS_TICKS_TOTAL, SWEEP__STATS_TICK_NS_TOTAL, SWEEP__STATS_MOVE_NS_TOTAL, SWEEP__STATS_WORLDS,
    SWEEP__STATS_WORLDS_OPEN
};
enum {
    SWEEP__WI_WORLD, SWEEP__WI_NAME, SWEEP__WI_MAP, SWEEP__WI_SESSIONS, SWEEP__WI_ENTITIES, SWEEP__WI_TRIANGLES,
    SWEEP__WI_TICK
};
enum { SWEEP__ERROR_CODE, SWEEP__ERROR_MESSAGE, SWEEP__ERROR_SEQUENCE, SWEEP__ERROR_ENTITY };
enum { SWEEP__BYE_REASON };
enum { SWEEP__CHALLENGE_COOKIE };
enum { SWEEP__WATCH_EVERY };
enum { SWEEP__COMMAND_MOVER };
enum { SWEEP__COMMANDED_MOVER, SWEEP__COMMANDED_TICK };
enum { SWEEP__EC_ENTITY, SWEEP__EC_OP, SWEEP__EC_VECTOR, SWEEP__EC_SHAPES };
enum {
    SWEEP__ECR_ENTITY, SWEEP__ECR_OP, SWEEP__ECR_CODE, SWEEP__ECR_MESSAGE, SWEEP__ECR_POSITION, SWEEP__ECR_VELOCITY,
    SWEEP__ECR_RADII, SWEEP__ECR_FLAGS
};
/* EntityCommands.commands, EntityCommandsResult.results: SWEEP__BATCH_ITEMS */
enum { SWEEP__ES_TICK, SWEEP__ES_ENTITIES, SWEEP__ES_ENTITY_COUNT };
/* WatchEntities.every: SWEEP__WATCH_EVERY; GetEntity.entity: SWEEP__ENTITY_ENTITY */
enum { SWEEP__OPEN_MAP, SWEEP__OPEN_NAME };
enum { SWEEP__OPENED_WORLD, SWEEP__OPENED_NAME, SWEEP__OPENED_MAP_HASH };
enum { SWEEP__CLOSE_WORLD };
enum { SWEEP__CLOSED_WORLD, SWEEP__CLOSED_REASON };
enum {
    SWEEP__QI_KIND, SWEEP__QI_FROM, SWEEP__QI_TO, SWEEP__QI_FROM_ENTITY, SWEEP__QI_TO_ENTITY, SWEEP__QI_RADII,
    SWEEP__QI_RADIUS, SWEEP__QI_TICK, SWEEP__QI_FRACTION, SWEEP__QI_FILTER, SWEEP__QI_IGNORE, SWEEP__QI_MAX_HITS
};
enum {
    SWEEP__QA_CODE, SWEEP__QA_MESSAGE, SWEEP__QA_TICK, SWEEP__QA_FRACTION, SWEEP__QA_FLAGS, SWEEP__QA_HITS
};
/* Query.items, QueryResult.answers: SWEEP__BATCH_ITEMS */
enum { SWEEP__QR_ANSWERS, SWEEP__QR_FIRST };

/* What a field holds, as far as the verifier cares. */
typedef enum sweep__field_kind {
    SWEEP__F_SCALAR,       /* size = align = 1, 2, 4 or 8 */
    SWEEP__F_STRUCT,       /* inline struct: size, align */
    SWEEP__F_STRING,       /* offset to a string */
    SWEEP__F_VECTOR,       /* offset to a vector of scalars/structs: element size, align */
    SWEEP__F_TABLE_VECTOR, /* offset to a vector of offsets to tables of type `table` */
    SWEEP__F_UNION_TYPE,   /* u8 type of the union whose value is the next field */
    SWEEP__F_UNION         /* offset to a table of type members[type] */
} sweep__field_kind;

struct sweep__table;

typedef struct sweep__field {
    uint8_t kind; /* sweep__field_kind */
    uint8_t size;
    uint8_t align;
    uint8_t required;
    const struct sweep__table *table;          /* SWEEP__F_TABLE_VECTOR */
    const struct sweep__table *const *members; /* SWEEP__F_UNION, indexed by type */
    uint8_t member_count;                      /* SWEEP__F_UNION: types 1..count-1 valid */
} sweep__field;

typedef struct sweep__table {
    const char *name;
    uint8_t field_count;
    const sweep__field *fields; /* indexed by field id */
} sweep__table;

/* The root table. */
extern const sweep__table sweep__table_message;

#endif
