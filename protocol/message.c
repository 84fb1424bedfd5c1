/*
 * message.c - what is known of a message kind (its name, who may send it,
 * whether it is recorded: its row of kinds.h), the names of wire codes,
 * and the mappings from core statuses and codec errors onto wire codes
 * (message.h). The names are spelled as in sweep.fbs so a log line can be
 * matched against the schema.
 */
#include "protocol/message.h"

#include <stddef.h>
#include <string.h>

#include "core/history.h"
#include "core/motion.h"
#include "core/mover.h"
#include "core/query.h"
#include "protocol/kinds.h"

/* MoverTransform.flags are the core's state flags as they are. */
_Static_assert((unsigned)SWEEP_WIRE_MOVER_TRIGGERED == (unsigned)SWEEP_MOVER_TRIGGERED &&
                   (unsigned)SWEEP_WIRE_MOVER_BLOCKED == (unsigned)SWEEP_MOVER_BLOCKED &&
                   (unsigned)SWEEP_WIRE_MOVER_MOVED == (unsigned)SWEEP_MOVER_MOVED,
               "MoverFlags in sweep.fbs must equal the core's SWEEP_MOVER_* flags");

/* The first Rule bits are the core's, so a MoveResult passes them on as they are. */
_Static_assert((unsigned)SWEEP_WIRE_RULE_SPEED == (unsigned)SWEEP_RULE_SPEED &&
                   (unsigned)SWEEP_WIRE_RULE_JUMP == (unsigned)SWEEP_RULE_JUMP &&
                   (unsigned)SWEEP_WIRE_RULE_LIMIT == (unsigned)SWEEP_RULE_LIMIT,
               "Rule in sweep.fbs must start with the core's SWEEP_RULE_* bits");

/* What is known of a kind, indexed by kind: its row of kinds.h. NONE is no
 * kind anyone sends, and is named as the schema names it. */
typedef struct kind_facts {
    const char *name;
    sweep_msg_sender sender;
    bool recorded;
} kind_facts;

#define FACTS_ROW(kind, stem, name, sender, recorded) \
    [SWEEP_MSG_##kind] = {name, SWEEP_MSG_SENDER_##sender, SWEEP__KIND_##recorded},
static const kind_facts kinds[SWEEP_MSG_KIND_COUNT] = {
    [SWEEP_MSG_NONE] = {"NONE", SWEEP_MSG_SENDER_NOBODY, false},
    SWEEP__MSG_KINDS(FACTS_ROW)
};
#undef FACTS_ROW

static const char *const code_names[SWEEP_WIRE_CODE_COUNT] = {
    "None",          "MalformedBuffer", "BadIdentifier",   "Misaligned",     "MissingField",
    "TooComplex",    "FrameTooLarge",   "DatagramTooLarge", "UnknownMessage", "UnknownEntity",
    "NotYourEntity", "BadNumber",       "BadRadii",        "BadVelocity",    "BadDt",
    "BadPosition",   "BatchTooLarge",   "RateLimited",     "TooManyEntities", "TooManySessions",
    "NotWelcomed",   "VersionMismatch", "UnknownWorld",    "AuthFailed",     "Internal",
    "BadCookie",     "StaleSequence",   "SlowReader",      "UnknownMover",   "NotAllowed",
    "SpawnRefused",  "WorldLimit",      "NoRoom",          "UnknownMap",     "WorldExists",
    "TooOld",        "InFuture",
};

static const char *const rule_names[SWEEP_WIRE_RULE_COUNT] = {
    "Speed", "Jump", "Limit", "TimeBudget", "Correction", "Vertical", "SpawnPosition", "SpawnRadii", "FreeMove",
    "SpawnSpeed", "SpawnStep", "Buttons",
};

static const char *const mode_names[SWEEP_WIRE_MODE_COUNT] = {"Walk", "Fly", "Noclip"};

static const char *const op_names[SWEEP_WIRE_OP_COUNT] = {"Teleport", "SetVelocity", "AddImpulse", "SetRadii",
                                                          "Despawn",  "SetHitShapes"};

static const char *const query_kind_names[SWEEP_WIRE_QUERY_KIND_COUNT] = {"Ray", "RayAll", "LineOfSight", "Sweep",
                                                                         "Overlap"};

/* A HitShape is the core's sweep_hit_shape field for field, and the wire's
 * numbers are the core's. */
_Static_assert(SWEEP_WIRE_HIT_SHAPES_MAX == SWEEP_HIT_SHAPES_MAX, "HitShape count: the wire's and the core's");
_Static_assert(sizeof(sweep_wire_hit_shape) == sizeof(sweep_hit_shape) &&
                   offsetof(sweep_wire_hit_shape, a) == offsetof(sweep_hit_shape, a) &&
                   offsetof(sweep_wire_hit_shape, radii) == offsetof(sweep_hit_shape, radii),
               "HitShape: the wire's struct and the core's");
_Static_assert((unsigned)SWEEP_WIRE_SHAPE_SPHERE == (unsigned)SWEEP_SHAPE_SPHERE &&
                   (unsigned)SWEEP_WIRE_SHAPE_CAPSULE == (unsigned)SWEEP_SHAPE_CAPSULE &&
                   (unsigned)SWEEP_WIRE_SHAPE_ELLIPSOID == (unsigned)SWEEP_SHAPE_ELLIPSOID,
               "HitShapeKind in sweep.fbs must equal the core's SWEEP_SHAPE_*");
_Static_assert((unsigned)SWEEP_WIRE_HIT_LEVEL == (unsigned)SWEEP_HIT_LEVEL &&
                   (unsigned)SWEEP_WIRE_HIT_MOVER == (unsigned)SWEEP_HIT_MOVER &&
                   (unsigned)SWEEP_WIRE_HIT_ENTITY == (unsigned)SWEEP_HIT_ENTITY,
               "QueryHit.kind in sweep.fbs must equal the core's sweep_hit_kind");

sweep_str sweep_str_of(const char *s)
{
    sweep_str r = {s, s ? (uint32_t)strlen(s) : 0};
    return r;
}

const char *sweep_msg_kind_name(sweep_msg_kind k)
{
    return (unsigned)k < SWEEP_MSG_KIND_COUNT ? kinds[k].name : "Unknown";
}

sweep_msg_sender sweep_msg_kind_sender(sweep_msg_kind k)
{
    return (unsigned)k < SWEEP_MSG_KIND_COUNT ? kinds[k].sender : SWEEP_MSG_SENDER_NOBODY;
}

bool sweep_msg_kind_is_request(sweep_msg_kind k)
{
    return sweep_msg_kind_sender(k) != SWEEP_MSG_SENDER_NOBODY;
}

bool sweep_msg_kind_is_recorded(sweep_msg_kind k)
{
    return (unsigned)k < SWEEP_MSG_KIND_COUNT && kinds[k].recorded;
}

const char *sweep_wire_code_name(sweep_wire_code c)
{
    return (unsigned)c < SWEEP_WIRE_CODE_COUNT ? code_names[c] : "Unknown";
}

const char *sweep_wire_rule_name(unsigned bit)
{
    return bit < SWEEP_WIRE_RULE_COUNT ? rule_names[bit] : "Unknown";
}

const char *sweep_wire_mode_name(unsigned mode)
{
    return mode < SWEEP_WIRE_MODE_COUNT ? mode_names[mode] : "Unknown";
}

const char *sweep_wire_entity_op_name(unsigned op)
{
    return op < SWEEP_WIRE_OP_COUNT ? op_names[op] : "Unknown";
}

const char *sweep_wire_query_kind_name(unsigned kind)
{
    return kind < SWEEP_WIRE_QUERY_KIND_COUNT ? query_kind_names[kind] : "Unknown";
}

const char *sweep_wire_role_name(unsigned role)
{
    return role == SWEEP_WIRE_ROLE_PLAYER ? "Player" : role == SWEEP_WIRE_ROLE_SERVER ? "Server" : "Unknown";
}

sweep_wire_code sweep_wire_code_from_status(sweep_status s)
{
    switch (s) {
    case SWEEP_OK: return SWEEP_WIRE_NONE;
    case SWEEP_E_NONFINITE: return SWEEP_WIRE_BAD_NUMBER;
    case SWEEP_E_RADII: return SWEEP_WIRE_BAD_RADII;
    case SWEEP_E_VELOCITY: return SWEEP_WIRE_BAD_VELOCITY;
    case SWEEP_E_DT: return SWEEP_WIRE_BAD_DT;
    case SWEEP_E_POSITION: return SWEEP_WIRE_BAD_POSITION;
    case SWEEP_E_TIME: return SWEEP_WIRE_TOO_OLD;
    case SWEEP_E_CONFIG:
    case SWEEP_E_GEOMETRY:
    case SWEEP_E_NOMEM:
    case SWEEP_E_ARG:
    default: return SWEEP_WIRE_INTERNAL;
    }
}

sweep_wire_code sweep_wire_code_from_proto(sweep_proto_error e)
{
    switch (e) {
    case SWEEP_PROTO_OK: return SWEEP_WIRE_NONE;
    case SWEEP_PROTO_E_IDENTIFIER: return SWEEP_WIRE_BAD_IDENTIFIER;
    case SWEEP_PROTO_E_ALIGNMENT: return SWEEP_WIRE_MISALIGNED;
    case SWEEP_PROTO_E_REQUIRED: return SWEEP_WIRE_MISSING_FIELD;
    case SWEEP_PROTO_E_DEPTH:
    case SWEEP_PROTO_E_TOO_MANY_TABLES: return SWEEP_WIRE_TOO_COMPLEX;
    case SWEEP_PROTO_E_UNION_TYPE: return SWEEP_WIRE_UNKNOWN_MESSAGE;
    case SWEEP_PROTO_E_FRAME_TOO_LARGE: return SWEEP_WIRE_FRAME_TOO_LARGE;
    case SWEEP_PROTO_E_DATAGRAM_TOO_LARGE: return SWEEP_WIRE_DATAGRAM_TOO_LARGE;
    case SWEEP_PROTO_E_CAPACITY: return SWEEP_WIRE_BATCH_TOO_LARGE;
    case SWEEP_PROTO_E_TRUNCATED:
    case SWEEP_PROTO_E_SIZE_PREFIX:
    case SWEEP_PROTO_E_TOO_BIG:
    case SWEEP_PROTO_E_ROOT_OFFSET:
    case SWEEP_PROTO_E_OFFSET:
    case SWEEP_PROTO_E_VTABLE:
    case SWEEP_PROTO_E_TABLE_BOUNDS:
    case SWEEP_PROTO_E_STRING_BOUNDS:
    case SWEEP_PROTO_E_STRING_NUL:
    case SWEEP_PROTO_E_VECTOR_BOUNDS:
    case SWEEP_PROTO_E_UNION_VALUE: return SWEEP_WIRE_MALFORMED_BUFFER;
    case SWEEP_PROTO_E_BUFFER_SPACE:
    case SWEEP_PROTO_E_ARG:
    default: return SWEEP_WIRE_INTERNAL;
    }
}

sweep_message sweep_msg_error_of(sweep_wire_code code, uint32_t sequence, uint32_t entity, uint64_t tick,
                              const char *text)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_ERROR;
    m.sequence = sequence;
    m.server_tick = tick;
    m.as.error.code = code;
    m.as.error.message = sweep_str_of(text);
    m.as.error.sequence = sequence;
    m.as.error.entity = entity;
    return m;
}
