/*
 * message.h - the messages of sweep.fbs as plain C structs, and the wire
 * error codes.
 *
 * These structs are what the rest of sweep handles: the decoder fills them
 * from a verified buffer, the encoder turns them into bytes. They mirror
 * sweep.fbs field for field (the schema stays the contract; the interop
 * tests check that the two agree, value by value, through the official
 * runtime).
 *
 * Conventions:
 *   - Strings and byte vectors are views (sweep_str, sweep_bytes) into the
 *     buffer they were decoded from: valid as long as that buffer is, never
 *     copied. A decoded string is NUL-terminated (the verifier checked it);
 *     ptr == NULL means the field was absent.
 *   - Batches and lists (movers, entity states, entity commands and their
 *     results, a Stats' worlds) point into storage the caller lent to the
 *     decoder (sweep_decoder, decode.h); contacts are held inline, at most
 *     SWEEP_MAX_CONTACTS as in the core. The wire's Contact has no mover
 *     or body field (a struct cannot grow): a decoded contact's `mover`
 *     and `body` are UINT32_MAX, and a client that needs them asks its
 *     own core about the triangle number (sweep_movers_of_triangle,
 *     sweep_crowd_slot_of_triangle).
 *   - Mover ids on the wire are the map's movers.id (>= 1, 0 = none),
 *     never the core's mover index.
 *   - Message.sequence is the request's sequence, or in an answer the
 *     sequence answered; Message.server_tick is the tick an answer was
 *     computed at. Move and MoveResult carry their own sequence too, because
 *     a batch holds many of them.
 */
#ifndef SWEEP_PROTOCOL_MESSAGE_H
#define SWEEP_PROTOCOL_MESSAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/move.h"
#include "core/status.h"
#include "core/vec3.h"
#include "protocol/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Protocol.Version in sweep.fbs. */
#define SWEEP_PROTOCOL_VERSION 1u
/* file_identifier in sweep.fbs: bytes 4..7 of every buffer (after the size
 * prefix, if any). */
#define SWEEP_WIRE_IDENTIFIER "SWP1"

/* Union Body in sweep.fbs, same numbers. */
typedef enum sweep_msg_kind {
    SWEEP_MSG_NONE = 0,
    SWEEP_MSG_HELLO,
    SWEEP_MSG_WELCOME,
    SWEEP_MSG_SPAWN,
    SWEEP_MSG_SPAWNED,
    SWEEP_MSG_DESPAWN,
    SWEEP_MSG_DESPAWNED,
    SWEEP_MSG_MOVE,
    SWEEP_MSG_MOVE_RESULT,
    SWEEP_MSG_MOVE_BATCH,
    SWEEP_MSG_MOVE_RESULT_BATCH,
    SWEEP_MSG_COLLIDE,
    SWEEP_MSG_COLLIDE_RESULT,
    SWEEP_MSG_WORLD_STATE,
    SWEEP_MSG_PING,
    SWEEP_MSG_PONG,
    SWEEP_MSG_GET_STATS,
    SWEEP_MSG_STATS,
    SWEEP_MSG_ERROR,
    SWEEP_MSG_BYE,
    SWEEP_MSG_CHALLENGE,
    SWEEP_MSG_WATCH_WORLD,
    SWEEP_MSG_MOVER_COMMAND,
    SWEEP_MSG_MOVER_COMMANDED,
    SWEEP_MSG_ENTITY_COMMANDS,
    SWEEP_MSG_ENTITY_COMMANDS_RESULT,
    SWEEP_MSG_WATCH_ENTITIES,
    SWEEP_MSG_ENTITY_STATES,
    SWEEP_MSG_GET_ENTITY,
    SWEEP_MSG_OPEN_WORLD,
    SWEEP_MSG_WORLD_OPENED,
    SWEEP_MSG_CLOSE_WORLD,
    SWEEP_MSG_WORLD_CLOSED,
    SWEEP_MSG_QUERY,
    SWEEP_MSG_QUERY_RESULT,
    SWEEP_MSG_KIND_COUNT
} sweep_msg_kind;

/* ErrorCode in sweep.fbs, same numbers. */
typedef enum sweep_wire_code {
    SWEEP_WIRE_NONE = 0,
    SWEEP_WIRE_MALFORMED_BUFFER,
    SWEEP_WIRE_BAD_IDENTIFIER,
    SWEEP_WIRE_MISALIGNED,
    SWEEP_WIRE_MISSING_FIELD,
    SWEEP_WIRE_TOO_COMPLEX,
    SWEEP_WIRE_FRAME_TOO_LARGE,
    SWEEP_WIRE_DATAGRAM_TOO_LARGE,
    SWEEP_WIRE_UNKNOWN_MESSAGE,
    SWEEP_WIRE_UNKNOWN_ENTITY,
    SWEEP_WIRE_NOT_YOUR_ENTITY,
    SWEEP_WIRE_BAD_NUMBER,
    SWEEP_WIRE_BAD_RADII,
    SWEEP_WIRE_BAD_VELOCITY,
    SWEEP_WIRE_BAD_DT,
    SWEEP_WIRE_BAD_POSITION,
    SWEEP_WIRE_BATCH_TOO_LARGE,
    SWEEP_WIRE_RATE_LIMITED,
    SWEEP_WIRE_TOO_MANY_ENTITIES,
    SWEEP_WIRE_TOO_MANY_SESSIONS,
    SWEEP_WIRE_NOT_WELCOMED,
    SWEEP_WIRE_VERSION_MISMATCH,
    SWEEP_WIRE_UNKNOWN_WORLD,
    SWEEP_WIRE_AUTH_FAILED,
    SWEEP_WIRE_INTERNAL,
    SWEEP_WIRE_BAD_COOKIE,
    SWEEP_WIRE_STALE_SEQUENCE,
    SWEEP_WIRE_SLOW_READER,
    SWEEP_WIRE_UNKNOWN_MOVER,
    SWEEP_WIRE_NOT_ALLOWED,   /* the session's role or the server's settings forbid it */
    SWEEP_WIRE_SPAWN_REFUSED, /* the spawn place overlaps something, or no spawn point is free */
    SWEEP_WIRE_WORLD_LIMIT,   /* OpenWorld: too many worlds, or too many triangles to load */
    SWEEP_WIRE_NO_ROOM,       /* EntityCommand Teleport/SetRadii: no free place or size there */
    SWEEP_WIRE_UNKNOWN_MAP,   /* OpenWorld names no map of the server */
    SWEEP_WIRE_WORLD_EXISTS,  /* OpenWorld names a world open on another map */
    SWEEP_WIRE_TOO_OLD,       /* Query: older than the history keeps, or than a player's rewind cap */
    SWEEP_WIRE_IN_FUTURE,     /* Query: after the world's newest tick */
    SWEEP_WIRE_CODE_COUNT
} sweep_wire_code;

/* Most entries a Stats.errors_by_code vector may hold here: room for codes
 * newer than this build (ErrorCode is a ushort; a longer vector is refused
 * as SWEEP_PROTO_E_CAPACITY, as a Rule vector past SWEEP_WIRE_RULE_SLOTS). */
#define SWEEP_WIRE_CODE_SLOTS 64

/* Role in sweep.fbs (Welcome.role). */
typedef enum sweep_wire_role {
    SWEEP_WIRE_ROLE_PLAYER = 0, /* motion, time, spawning and radii are the server's */
    SWEEP_WIRE_ROLE_SERVER = 1  /* a game server, a test, a tool: may spawn anywhere, command movers,
                                   and send raw moves where the server allows them */
} sweep_wire_role;

/* MoveMode in sweep.fbs (Move.mode). */
typedef enum sweep_wire_mode {
    SWEEP_WIRE_MODE_WALK = 0,   /* the map's movement rules: velocity is a wish (sweep_act) */
    SWEEP_WIRE_MODE_FLY = 1,    /* velocity as given, with collision (sweep_move) */
    SWEEP_WIRE_MODE_NOCLIP = 2, /* position += velocity * dt, no collision */
    SWEEP_WIRE_MODE_COUNT
} sweep_wire_mode;

/* Rule in sweep.fbs: bit numbers (Stats vectors are indexed by them) and
 * the bits of MoveResult.rules and Spawned.rules. The first three are the
 * core's SWEEP_RULE_* (core/motion.h), bit for bit. */
enum {
    SWEEP_WIRE_RULE_SPEED_BIT = 0,
    SWEEP_WIRE_RULE_JUMP_BIT = 1,
    SWEEP_WIRE_RULE_LIMIT_BIT = 2,
    SWEEP_WIRE_RULE_TIME_BUDGET_BIT = 3,
    SWEEP_WIRE_RULE_CORRECTION_BIT = 4,
    SWEEP_WIRE_RULE_VERTICAL_BIT = 5,
    SWEEP_WIRE_RULE_SPAWN_POSITION_BIT = 6,
    SWEEP_WIRE_RULE_SPAWN_RADII_BIT = 7,
    SWEEP_WIRE_RULE_FREE_MOVE_BIT = 8,
    SWEEP_WIRE_RULE_SPAWN_SPEED_BIT = 9,
    SWEEP_WIRE_RULE_SPAWN_STEP_BIT = 10,
    SWEEP_WIRE_RULE_BUTTONS_BIT = 11,
    SWEEP_WIRE_RULE_COUNT = 12, /* rules this build knows */
    SWEEP_WIRE_RULE_SLOTS = 32 /* most a Stats vector holds (Rule is a uint of bits) */
};
enum {
    SWEEP_WIRE_RULE_SPEED = 1u << SWEEP_WIRE_RULE_SPEED_BIT,
    SWEEP_WIRE_RULE_JUMP = 1u << SWEEP_WIRE_RULE_JUMP_BIT,
    SWEEP_WIRE_RULE_LIMIT = 1u << SWEEP_WIRE_RULE_LIMIT_BIT,
    SWEEP_WIRE_RULE_TIME_BUDGET = 1u << SWEEP_WIRE_RULE_TIME_BUDGET_BIT,
    SWEEP_WIRE_RULE_CORRECTION = 1u << SWEEP_WIRE_RULE_CORRECTION_BIT,
    SWEEP_WIRE_RULE_VERTICAL = 1u << SWEEP_WIRE_RULE_VERTICAL_BIT,
    SWEEP_WIRE_RULE_SPAWN_POSITION = 1u << SWEEP_WIRE_RULE_SPAWN_POSITION_BIT,
    SWEEP_WIRE_RULE_SPAWN_RADII = 1u << SWEEP_WIRE_RULE_SPAWN_RADII_BIT,
    SWEEP_WIRE_RULE_FREE_MOVE = 1u << SWEEP_WIRE_RULE_FREE_MOVE_BIT,
    SWEEP_WIRE_RULE_SPAWN_SPEED = 1u << SWEEP_WIRE_RULE_SPAWN_SPEED_BIT,
    SWEEP_WIRE_RULE_SPAWN_STEP = 1u << SWEEP_WIRE_RULE_SPAWN_STEP_BIT,
    SWEEP_WIRE_RULE_BUTTONS = 1u << SWEEP_WIRE_RULE_BUTTONS_BIT
};

typedef struct sweep_str {
    const char *ptr; /* NULL = absent */
    uint32_t len;    /* bytes, without the terminating NUL */
} sweep_str;

typedef struct sweep_bytes {
    const uint8_t *ptr; /* NULL = absent */
    uint32_t len;
} sweep_bytes;

typedef struct sweep_msg_hello {
    uint32_t protocol_version;
    sweep_str client_name; /* required */
    sweep_str auth_token;
    sweep_str world;
    sweep_bytes cookie;  /* UDP: the Challenge's cookie echoed; absent over TCP */
    sweep_bytes padding; /* UDP: filler up to SWEEP_UDP_HELLO_MIN bytes */
    uint32_t max_datagram; /* UDP: the largest datagram the client takes; 0 = SWEEP_UDP_MAX_DATAGRAM */
} sweep_msg_hello;

/* UDP only: the server's stateless answer to a Hello without a valid cookie. */
typedef struct sweep_msg_challenge {
    sweep_bytes cookie; /* required */
} sweep_msg_challenge;

typedef struct sweep_msg_welcome {
    uint32_t protocol_version;
    uint64_t session_id;
    double tick_rate;
    sweep_str map_name;  /* required */
    sweep_bytes map_hash; /* required; 32 bytes of SHA-256 in practice */
    uint32_t max_batch;
    uint32_t max_frame_size;
    uint32_t max_entities;
    uint8_t role;       /* sweep_wire_role; may hold a value newer than this build */
    sweep_str identity; /* the token's identity, "#guest", "#command-token"; absent from older servers */
    double time_bank;   /* seconds a player's entity may bank */
    uint16_t udp_port;  /* UDP: the session's own port from here on; 0 = the Hello's */
    uint64_t udp_key;   /* UDP: what every later datagram of the session carries (sweep_message.key); 0 over TCP */
} sweep_msg_welcome;

typedef struct sweep_msg_spawn {
    sweep_vec3 radii;
    sweep_vec3 position;
    double max_speed;   /* 0 = the world's limit */
    double step_height; /* 0 = the world's rule */
    uint32_t spawn_point; /* N > 0: the map's N-th spawn point, position ignored; 0: the server
                             role's position, a player's next free point */
    bool player; /* the server role: govern the entity by the player rules (a player's always are) */
} sweep_msg_spawn;

typedef struct sweep_msg_spawned {
    uint32_t entity;
    sweep_vec3 position;
    sweep_vec3 radii;
    uint32_t rules;       /* SWEEP_WIRE_RULE_* bits: what was not taken from the Spawn */
    uint32_t spawn_point; /* the map's spawn point used (1-based), 0 = a position given */
    bool player;          /* a server role's Spawn.player taken (false for a player's own entity, always
                             governed, and from a server older than the field) */
} sweep_msg_spawned;

typedef struct sweep_msg_entity {
    uint32_t entity;
} sweep_msg_entity; /* Despawn */

typedef struct sweep_msg_despawned {
    uint32_t entity;
    uint32_t crushed_by; /* mover id that crushed it (an unasked push); 0 = an answer to Despawn */
    uint32_t killed_by;  /* volume id of the kill volume its move ended in (unasked); 0 = none */
    sweep_str reason;    /* with killed_by: the volume's name */
} sweep_msg_despawned;

typedef struct sweep_msg_move {
    uint32_t entity;
    uint32_t sequence;
    uint64_t client_tick;
    sweep_vec3 velocity;
    double dt;
    bool has_claimed_position;
    sweep_vec3 claimed_position;
    uint32_t buttons; /* Walk: SWEEP_WISH_* (core/motion.h) */
    uint8_t mode;     /* sweep_wire_mode; may hold a value newer than this build */
} sweep_msg_move;

typedef struct sweep_msg_move_result {
    uint32_t entity;
    uint32_t sequence; /* the Move.sequence answered */
    uint64_t server_tick;
    sweep_vec3 position;
    sweep_vec3 velocity;
    bool grounded;
    sweep_vec3 ground_normal; /* zero when absent */
    uint32_t ground_material;
    uint32_t contact_count;
    sweep_contact contacts[SWEEP_MAX_CONTACTS];
    bool corrected;
    double correction;
    /* Movers; ids are the map's movers.id, 0 = none. */
    uint32_t ground_mover; /* stood on after the move */
    uint32_t pushed_by;    /* last mover that carried or pushed it since its previous move */
    bool carried;          /* since its previous move */
    bool pushed;
    bool has_start_position; /* a mover moved it since its previous move: */
    sweep_vec3 start_position; /* where this move started */
    /* The rules the server enforced on this move. */
    uint32_t rules;      /* SWEEP_WIRE_RULE_* bits */
    double speed_excess; /* units/s the wish was above walk_speed */
    double time_excess;  /* seconds asked and not granted */
    double applied_dt;   /* seconds the move ran for */
    /* Volumes that acted (core/volume.h); ids are the map's volumes.id,
     * 0 = none. */
    uint32_t launched_by, teleported_by, hurt_by, killed_by, entered, left;
    bool teleport_blocked;
    double damage;
    /* Stance (core/stance.h). */
    bool crouched;       /* ends the move crouched */
    bool stance_blocked; /* the stance the wish asked had no room */
    /* Liquids and ladders (core/motion.h): the liquid the feet are in
     * after the move, its SWEEP_LIQUID_* (core/volume.h) and depth level
     * 0..3, a liquid entered from none and one left into none, the ladder
     * it is on; ids as above. */
    uint32_t liquid, liquid_type, liquid_level, entered_liquid, left_liquid, ladder;
} sweep_msg_move_result;

typedef struct sweep_msg_move_batch {
    const sweep_msg_move *moves;
    uint32_t count;
} sweep_msg_move_batch;

typedef struct sweep_msg_move_result_batch {
    const sweep_msg_move_result *results;
    uint32_t count;
} sweep_msg_move_result_batch;

typedef struct sweep_msg_collide {
    sweep_vec3 position;
    sweep_vec3 radii;
    sweep_vec3 velocity;
    double dt;
    bool grounded;
} sweep_msg_collide;

typedef struct sweep_msg_collide_result {
    sweep_vec3 position;
    sweep_vec3 velocity;
    bool grounded;
    sweep_vec3 ground_normal;
    uint32_t ground_material;
    uint32_t contact_count;
    sweep_contact contacts[SWEEP_MAX_CONTACTS];
    uint32_t ground_mover; /* movers.id stood on, 0 = none */
} sweep_msg_collide_result;

/* MoverFlags in sweep.fbs: the bits of sweep_wire_mover.flags, equal to
 * the core's SWEEP_MOVER_* state flags (core/mover.h). */
enum {
    SWEEP_WIRE_MOVER_TRIGGERED = 1u << 0,
    SWEEP_WIRE_MOVER_BLOCKED = 1u << 1,
    SWEEP_WIRE_MOVER_MOVED = 1u << 2
};

/* MoverTransform in sweep.fbs. */
typedef struct sweep_wire_mover {
    uint32_t id;    /* the map's movers.id */
    uint32_t flags; /* SWEEP_WIRE_MOVER_* */
    sweep_vec3 position;
    double rotation[4]; /* unit quaternion x, y, z, w */
    /* MoverPath (WorldState.paths): read only when the WorldState's
     * path_count equals its count. */
    uint32_t path_tick; /* ticks along the path */
    uint32_t wait;      /* ticks still to wait */
    int32_t dir;        /* +1 forward, -1 back, 0 idle */
} sweep_wire_mover;

typedef struct sweep_msg_world_state {
    uint64_t tick;
    const sweep_wire_mover *movers;
    uint32_t count;
    uint32_t mover_count; /* movers in the world; above count in a split UDP push */
    uint32_t path_count;  /* MoverPaths: count (each mover's path_tick, wait, dir), or 0 (an older
                             server); the encoder refuses any other number, the decoder gives the
                             vector's length (movers[i] holds paths[i] for i below both counts) */
} sweep_msg_world_state;

typedef struct sweep_msg_watch_world {
    uint32_t every; /* 0 = stop; N = a WorldState every N ticks */
} sweep_msg_watch_world;

typedef struct sweep_msg_mover_command {
    sweep_str mover; /* required: the mover's name in the map */
} sweep_msg_mover_command;

typedef struct sweep_msg_mover_commanded {
    uint32_t mover; /* movers.id */
    uint64_t tick;  /* the tick at which the trigger fires */
} sweep_msg_mover_commanded;

/* EntityOp in sweep.fbs (EntityCommand.op). */
typedef enum sweep_wire_entity_op {
    SWEEP_WIRE_OP_TELEPORT = 0,     /* vector: the position */
    SWEEP_WIRE_OP_SET_VELOCITY = 1, /* vector: the velocity */
    SWEEP_WIRE_OP_ADD_IMPULSE = 2,  /* vector: added to the velocity */
    SWEEP_WIRE_OP_SET_RADII = 3,    /* vector: the radii */
    SWEEP_WIRE_OP_DESPAWN = 4,      /* no vector */
    SWEEP_WIRE_OP_SET_HIT_SHAPES = 5, /* shapes: what a Query hits of it */
    SWEEP_WIRE_OP_COUNT
} sweep_wire_entity_op;

/* EntityCommandFlags in sweep.fbs: bits of sweep_msg_entity_command_result.flags. */
enum {
    SWEEP_WIRE_COMMAND_PUSHED_OUT = 1u << 0 /* a Teleport target was moved out of what it overlapped */
};

/* Most hit shapes an entity may have (HitShape; core/history.h
 * SWEEP_HIT_SHAPES_MAX). */
#define SWEEP_WIRE_HIT_SHAPES_MAX 8u

/* HitShapeKind in sweep.fbs (core/history.h SWEEP_SHAPE_*). */
enum {
    SWEEP_WIRE_SHAPE_SPHERE = 0,    /* centre a, radius radii.x */
    SWEEP_WIRE_SHAPE_CAPSULE = 1,   /* segment a..b, radius radii.x */
    SWEEP_WIRE_SHAPE_ELLIPSOID = 2  /* centre a, semi-axes radii */
};

/* HitShape in sweep.fbs (80 bytes on the wire), field for field the
 * core's sweep_hit_shape (core/history.h). */
typedef struct sweep_wire_hit_shape {
    uint32_t id;   /* the game's own: QueryHit.shape of a hit on it */
    uint32_t kind; /* SWEEP_WIRE_SHAPE_*; may hold a value newer than this build */
    sweep_vec3 a, b;
    sweep_vec3 radii;
} sweep_wire_hit_shape;

/* EntityCommand in sweep.fbs. */
typedef struct sweep_msg_entity_command {
    uint32_t entity;
    uint8_t op;        /* sweep_wire_entity_op; may hold a value newer than this build */
    sweep_vec3 vector; /* by op: position, velocity, impulse or radii; zero when absent */
    /* SetHitShapes: in the decoder's hit_shapes storage (more than
     * SWEEP_WIRE_HIT_SHAPES_MAX is the world's to refuse by name). */
    const sweep_wire_hit_shape *shapes;
    uint32_t shape_count;
} sweep_msg_entity_command;

typedef struct sweep_msg_entity_commands {
    const sweep_msg_entity_command *commands; /* in the decoder's commands storage */
    uint32_t count;
} sweep_msg_entity_commands;

/* EntityCommandResult in sweep.fbs. */
typedef struct sweep_msg_entity_command_result {
    uint32_t entity;
    uint8_t op;           /* the command's */
    sweep_wire_code code; /* SWEEP_WIRE_NONE: applied; may hold a value newer than this build */
    sweep_str message;    /* why not, when code is not NONE; absent otherwise */
    bool has_state;       /* the entity exists after the command: position, velocity and radii are
                             on the wire (absent after a Despawn or for an unknown entity) */
    sweep_vec3 position;
    sweep_vec3 velocity;
    sweep_vec3 radii;
    uint32_t flags; /* SWEEP_WIRE_COMMAND_* */
} sweep_msg_entity_command_result;

typedef struct sweep_msg_entity_commands_result {
    const sweep_msg_entity_command_result *results; /* in the decoder's command_results storage */
    uint32_t count;
} sweep_msg_entity_commands_result;

/* EntityFlags in sweep.fbs: bits of sweep_wire_entity_state.flags. */
enum {
    SWEEP_WIRE_ENTITY_GROUNDED = 1u << 0, /* stands on walkable ground */
    SWEEP_WIRE_ENTITY_PLAYER = 1u << 1    /* governed by the player rules */
};

/* EntityState in sweep.fbs (a struct: 96 bytes on the wire). */
typedef struct sweep_wire_entity_state {
    uint32_t entity;
    uint32_t flags;         /* SWEEP_WIRE_ENTITY_* */
    uint64_t owner_session; /* Welcome.session_id of its owner */
    sweep_vec3 position;
    sweep_vec3 velocity;
    sweep_vec3 radii;
    uint32_t ground_mover; /* movers.id stood on, 0 = none */
} sweep_wire_entity_state;

typedef struct sweep_msg_entity_states {
    uint64_t tick;
    const sweep_wire_entity_state *entities; /* in the decoder's entity_states storage */
    uint32_t count;
    uint32_t entity_count; /* entities the whole answer holds; above count in a split push */
} sweep_msg_entity_states;

typedef struct sweep_msg_watch_entities {
    uint32_t every; /* 0 = stop; N = EntityStates every N ticks */
} sweep_msg_watch_entities;

typedef struct sweep_msg_get_entity {
    uint32_t entity;
} sweep_msg_get_entity;

typedef struct sweep_msg_open_world {
    sweep_str map;  /* required: a map of the server, by name or file stem */
    sweep_str name; /* the world's name; absent or empty: the server's choice */
} sweep_msg_open_world;

typedef struct sweep_msg_world_opened {
    uint32_t world;       /* its id: non-zero, never reused */
    sweep_str name;       /* required: Hello.world for its sessions */
    sweep_bytes map_hash; /* required; 32 bytes of SHA-256 in practice */
} sweep_msg_world_opened;

typedef struct sweep_msg_close_world {
    uint32_t world;
} sweep_msg_close_world;

typedef struct sweep_msg_world_closed {
    uint32_t world;
    sweep_str reason;
} sweep_msg_world_closed;

/* WorldInfo in sweep.fbs: one world of a Stats. */
typedef struct sweep_wire_world_info {
    uint32_t world;
    sweep_str name;
    sweep_str map;
    uint32_t sessions;
    uint32_t entities;
    uint32_t triangles;
    uint64_t tick;
} sweep_wire_world_info;

/* QueryKind in sweep.fbs. */
typedef enum sweep_wire_query_kind {
    SWEEP_WIRE_QUERY_RAY = 0,
    SWEEP_WIRE_QUERY_RAY_ALL = 1,
    SWEEP_WIRE_QUERY_LINE_OF_SIGHT = 2,
    SWEEP_WIRE_QUERY_SWEEP = 3,
    SWEEP_WIRE_QUERY_OVERLAP = 4,
    SWEEP_WIRE_QUERY_KIND_COUNT
} sweep_wire_query_kind;

/* QueryHit.kind in sweep.fbs (core/query.h sweep_hit_kind). */
enum {
    SWEEP_WIRE_HIT_LEVEL = 1,
    SWEEP_WIRE_HIT_MOVER = 2,
    SWEEP_WIRE_HIT_ENTITY = 3
};

/* QueryAnswerFlags in sweep.fbs. */
enum {
    SWEEP_WIRE_QUERY_CLEAR = 1u << 0, /* LineOfSight: nothing in the way */
    SWEEP_WIRE_QUERY_MORE = 1u << 1   /* RayAll, Overlap: more hits than max_hits */
};

/* Most entities one QueryItem may ignore (core/query.h SWEEP_QUERY_IGNORE_MAX
 * holds them and the item's two endpoints). */
#define SWEEP_WIRE_QUERY_IGNORE_MAX 16u
/* Most hits one QueryAnswer holds: ten fit a UDP datagram with room to spare. */
#define SWEEP_WIRE_QUERY_HITS_MAX 10u

/* QueryItem in sweep.fbs. */
typedef struct sweep_msg_query_item {
    uint8_t kind;         /* sweep_wire_query_kind; may hold a value newer than this build */
    sweep_vec3 from, to;  /* points, or offsets from from_entity / to_entity */
    uint32_t from_entity; /* 0 = none */
    uint32_t to_entity;
    sweep_vec3 radii;     /* Sweep */
    double radius;        /* Overlap */
    uint64_t tick;        /* 0 = the newest frame */
    double fraction;
    uint32_t filter;      /* QueryFilter bits: core/query.h's SWEEP_QUERY_* (1 level, 2 movers, 4 entities,
                             8 back faces, 16 ellipsoids); 0: level, movers and entities */
    uint32_t max_hits;    /* RayAll, Overlap */
    /* In the decoder's query_ignore storage (more than
     * SWEEP_WIRE_QUERY_IGNORE_MAX is the world's to refuse by name). */
    const uint32_t *ignore;
    uint32_t ignore_count;
} sweep_msg_query_item;

typedef struct sweep_msg_query {
    const sweep_msg_query_item *items; /* in the decoder's query_items storage */
    uint32_t count;
} sweep_msg_query;

/* QueryHit in sweep.fbs (88 bytes on the wire). */
typedef struct sweep_wire_query_hit {
    uint32_t kind;     /* SWEEP_WIRE_HIT_* */
    uint32_t triangle; /* UINT32_MAX for an entity */
    uint32_t material;
    uint32_t mover;    /* movers.id, 0 = none */
    uint32_t entity;   /* 0 = none */
    uint32_t shape;    /* hit shape id; UINT32_MAX: the collision ellipsoid */
    double fraction;
    double distance;
    sweep_vec3 point;
    sweep_vec3 normal;
} sweep_wire_query_hit;

/* QueryAnswer in sweep.fbs. */
typedef struct sweep_msg_query_answer {
    sweep_wire_code code; /* SWEEP_WIRE_NONE: answered; may hold a value newer than this build */
    sweep_str message;    /* why not, when code is not NONE */
    uint64_t tick;        /* the time answered at */
    double fraction;
    uint32_t flags;       /* SWEEP_WIRE_QUERY_CLEAR, _MORE */
    const sweep_wire_query_hit *hits; /* in the decoder's query_hits storage */
    uint32_t hit_count;
} sweep_msg_query_answer;

typedef struct sweep_msg_query_result {
    const sweep_msg_query_answer *answers; /* in the decoder's query_answers storage */
    uint32_t count;
    uint32_t first; /* the item answers[0] answers: above 0 in a later piece of a split UDP answer */
} sweep_msg_query_result;

typedef struct sweep_msg_ping {
    uint64_t client_time;
} sweep_msg_ping;

typedef struct sweep_msg_pong {
    uint64_t client_time;
    uint64_t server_time;
} sweep_msg_pong;

typedef struct sweep_msg_stats {
    uint32_t sessions;
    uint32_t entities;
    uint64_t moves_total;
    uint64_t errors_total;
    uint64_t tick_ns_p50;
    uint64_t tick_ns_p99;
    uint32_t movers;
    uint64_t crushed_total;
    /* Times each rule acted, indexed by SWEEP_WIRE_RULE_*_BIT; counts are the
     * vectors' lengths on the wire (a newer server may send more). */
    uint64_t rules_total[SWEEP_WIRE_RULE_SLOTS];
    uint32_t rules_total_count;
    uint64_t session_rules[SWEEP_WIRE_RULE_SLOTS];
    uint32_t session_rules_count;
    /* Errors sent, indexed by sweep_wire_code; the count is the vector's
     * length on the wire (0 from a server older than the field). */
    uint64_t errors_by_code[SWEEP_WIRE_CODE_SLOTS];
    uint32_t errors_by_code_count;
    uint64_t tcp_bytes_in, tcp_bytes_out; /* bytes received / handed to the socket, by transport */
    uint64_t udp_bytes_in, udp_bytes_out;
    uint64_t udp_dropped;   /* datagrams dropped, in and out */
    uint64_t ticks_total;   /* world ticks run, all worlds */
    uint64_t tick_ns_total; /* nanoseconds spent in them */
    uint64_t move_ns_total; /* nanoseconds spent applying Moves */
    /* The worlds of the server, in the decoder's worlds storage: the first
     * worlds_count of the vector, as many as that storage holds (a Stats is
     * never refused for its worlds, so a decoder that lends none still
     * reads the rest). */
    const sweep_wire_world_info *worlds;
    uint32_t worlds_count;
    uint32_t worlds_open; /* worlds open on the server: above worlds_count when not all came or fit */
} sweep_msg_stats;

typedef struct sweep_msg_error {
    sweep_wire_code code; /* may hold a value newer than this build */
    sweep_str message;    /* required */
    uint32_t sequence;
    uint32_t entity;
} sweep_msg_error;

typedef struct sweep_msg_bye {
    sweep_str reason;
} sweep_msg_bye;

/* The root table Message: envelope plus one body. */
typedef struct sweep_message {
    sweep_msg_kind kind;
    uint32_t sequence;
    uint64_t server_tick;
    /* UDP, a client's datagrams after its Welcome: Welcome.udp_key, without
     * which the server drops them. 0 (absent) otherwise. */
    uint64_t key;
    union {
        sweep_msg_hello hello;
        sweep_msg_welcome welcome;
        sweep_msg_spawn spawn;
        sweep_msg_spawned spawned;
        sweep_msg_entity despawn;
        sweep_msg_despawned despawned;
        sweep_msg_move move;
        sweep_msg_move_result move_result;
        sweep_msg_move_batch move_batch;
        sweep_msg_move_result_batch move_result_batch;
        sweep_msg_collide collide;
        sweep_msg_collide_result collide_result;
        sweep_msg_world_state world_state;
        sweep_msg_ping ping;
        sweep_msg_pong pong;
        sweep_msg_stats stats;
        sweep_msg_error error;
        sweep_msg_bye bye;
        sweep_msg_challenge challenge;
        sweep_msg_watch_world watch_world;
        sweep_msg_mover_command mover_command;
        sweep_msg_mover_commanded mover_commanded;
        sweep_msg_entity_commands entity_commands;
        sweep_msg_entity_commands_result entity_commands_result;
        sweep_msg_watch_entities watch_entities;
        sweep_msg_entity_states entity_states;
        sweep_msg_get_entity get_entity;
        sweep_msg_open_world open_world;
        sweep_msg_world_opened world_opened;
        sweep_msg_close_world close_world;
        sweep_msg_world_closed world_closed;
        sweep_msg_query query;
        sweep_msg_query_result query_result;
    } as;
} sweep_message;

/* A view of a C string (NULL stays absent). */
sweep_str sweep_str_of(const char *s);

/* Stable name of a kind as in sweep.fbs ("Hello", "MoveBatch", ...);
 * "Unknown" if out of range. */
const char *sweep_msg_kind_name(sweep_msg_kind k);

/* An Error refusing request `sequence` (Message.sequence and
 * Error.sequence both), about entity (0: none), at the server's tick, with
 * text (not copied: it must outlive the message's encoding). */
sweep_message sweep_msg_error_of(sweep_wire_code code, uint32_t sequence, uint32_t entity, uint64_t tick,
                              const char *text);

/* Who may send a kind to a server. */
typedef enum sweep_msg_sender {
    SWEEP_MSG_SENDER_NOBODY = 0,  /* only the server sends it (a result, an Error): no request */
    SWEEP_MSG_SENDER_ANYONE,      /* a request, before Hello too: Hello, Ping, Bye */
    SWEEP_MSG_SENDER_WELCOMED,    /* a request of a session (after its Welcome) */
    SWEEP_MSG_SENDER_SERVER_ROLE, /* a request of a session of SWEEP_WIRE_ROLE_SERVER */
} sweep_msg_sender;

/* Who may send kind k; SWEEP_MSG_SENDER_NOBODY for NONE and out of range. */
sweep_msg_sender sweep_msg_kind_sender(sweep_msg_kind k);
/* Is k a request a server accepts (someone may send it)? */
bool sweep_msg_kind_is_request(sweep_msg_kind k);
/* Does a request of kind k change the world, so go into the session log? */
bool sweep_msg_kind_is_recorded(sweep_msg_kind k);

/* Stable name of a wire code as in sweep.fbs ("BadRadii", ...); "Unknown" if out of range. */
const char *sweep_wire_code_name(sweep_wire_code c);

/* Name of a Rule by bit number as in sweep.fbs ("Speed", "TimeBudget", ...);
 * "Unknown" if out of range. */
const char *sweep_wire_rule_name(unsigned bit);

/* "Walk", "Fly", "Noclip"; "Unknown" if out of range. */
const char *sweep_wire_mode_name(unsigned mode);

/* "Teleport", "SetVelocity", "AddImpulse", "SetRadii", "Despawn", "SetHitShapes"; "Unknown" if out of range. */
const char *sweep_wire_entity_op_name(unsigned op);

/* "Ray", "RayAll", "LineOfSight", "Sweep", "Overlap"; "Unknown" if out of range. */
const char *sweep_wire_query_kind_name(unsigned kind);

/* "Player", "Server"; "Unknown" if out of range. */
const char *sweep_wire_role_name(unsigned role);

/* The wire code the server sends for a core status (SWEEP_OK gives NONE):
 * bad input maps to its Bad* code; CONFIG, GEOMETRY, NOMEM and ARG are the
 * server's own fault and map to INTERNAL. */
sweep_wire_code sweep_wire_code_from_status(sweep_status s);

/* The wire code for a codec error: the verifier's fine classes fold into
 * MALFORMED_BUFFER, BAD_IDENTIFIER, MISALIGNED, MISSING_FIELD, TOO_COMPLEX
 * or UNKNOWN_MESSAGE; CAPACITY (a batch larger than the server's storage)
 * becomes BATCH_TOO_LARGE. */
sweep_wire_code sweep_wire_code_from_proto(sweep_proto_error e);

#ifdef __cplusplus
}
#endif

#endif
