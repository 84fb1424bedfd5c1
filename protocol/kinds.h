/*
 * kinds.h - internal: every message kind as one row, and each fact of a
 * kind as a column of it. Adding a message kind is one row here plus its
 * handler (server/dispatch.c); the codec's pieces and every per-kind answer
 * are built from the rows.
 *
 * Each row is X(KIND, stem, name, sender, recorded):
 *   KIND      the sweep_msg_kind without its SWEEP_MSG_ prefix;
 *   stem      what its codec pieces are called: encode_<stem> (encode.c),
 *             decode_<stem> (decode.c) and t_<stem> (schema.c);
 *   name      what users see (sweep_msg_kind_name): as spelled in
 *             sweep.fbs, so a log line can be matched against the schema;
 *   sender    who may send it to a server, sweep_msg_sender without its
 *             SWEEP_MSG_SENDER_ prefix: NOBODY (a kind only the server
 *             sends, so no request), ANYONE (before Hello too), WELCOMED
 *             (a session) or SERVER_ROLE (a session of the server role);
 *   recorded  RECORDED if a request of this kind can change the world, or
 *             its answer must be checked by a replay (a Query: what the
 *             world answered about its past), so goes into the session log
 *             (server/record.h), else UNRECORDED.
 *
 * A table is built as
 *
 *     #define ROW(kind, stem, name, sender, recorded) [SWEEP_MSG_##kind] = encode_##stem,
 *     static const body_encoder encoders[SWEEP_MSG_KIND_COUNT] = {SWEEP__MSG_KINDS(ROW)};
 *
 * so a row without all its columns, or a kind without its encoder, decoder
 * or description, does not compile, and the checks below refuse a list
 * that drifts from sweep_msg_kind or a column value that does not exist.
 * The kind's number is its place in sweep_msg_kind (message.h, the order
 * of union Body).
 */
#ifndef SWEEP_PROTOCOL_KINDS_H
#define SWEEP_PROTOCOL_KINDS_H

#include "protocol/message.h"

#define SWEEP__MSG_KINDS(X) \
    X(HELLO,             hello,             "Hello",           ANYONE,      UNRECORDED) \
    X(WELCOME,           welcome,           "Welcome",         NOBODY,      UNRECORDED) \
    X(SPAWN,             spawn,             "Spawn",           WELCOMED,    RECORDED) \
    X(SPAWNED,           spawned,           "Spawned",         NOBODY,      UNRECORDED) \
    X(DESPAWN,           despawn,           "Despawn",         WELCOMED,    RECORDED) \
    X(DESPAWNED,         despawned,         "Despawned",       NOBODY,      UNRECORDED) \
    X(MOVE,              move,              "Move",            WELCOMED,    RECORDED) \
    X(MOVE_RESULT,       move_result,       "MoveResult",      NOBODY,      UNRECORDED) \
    X(MOVE_BATCH,        move_batch,        "MoveBatch",       WELCOMED,    RECORDED) \
    X(MOVE_RESULT_BATCH, move_result_batch, "MoveResultBatch", NOBODY,      UNRECORDED) \
    X(COLLIDE,           collide,           "Collide",         WELCOMED,    UNRECORDED) \
    X(COLLIDE_RESULT,    collide_result,    "CollideResult",   NOBODY,      UNRECORDED) \
    X(WORLD_STATE,       world_state,       "WorldState",      NOBODY,      UNRECORDED) \
    X(PING,              ping,              "Ping",            ANYONE,      UNRECORDED) \
    X(PONG,              pong,              "Pong",            NOBODY,      UNRECORDED) \
    X(GET_STATS,         get_stats,         "GetStats",        WELCOMED,    UNRECORDED) \
    X(STATS,             stats,             "Stats",           NOBODY,      UNRECORDED) \
    X(ERROR,             error,             "Error",           NOBODY,      UNRECORDED) \
    X(BYE,               bye,               "Bye",             ANYONE,      UNRECORDED) \
    X(CHALLENGE,         challenge,         "Challenge",       NOBODY,      UNRECORDED) \
    X(WATCH_WORLD,       watch_world,       "WatchWorld",      WELCOMED,    UNRECORDED) \
    X(MOVER_COMMAND,     mover_command,     "MoverCommand",    SERVER_ROLE, RECORDED) \
    X(MOVER_COMMANDED,   mover_commanded,   "MoverCommanded",  NOBODY,      UNRECORDED) \
    X(ENTITY_COMMANDS,   entity_commands,   "EntityCommands",  SERVER_ROLE, RECORDED) \
    X(ENTITY_COMMANDS_RESULT, entity_commands_result, "EntityCommandsResult", NOBODY, UNRECORDED) \
    X(WATCH_ENTITIES,    watch_entities,    "WatchEntities",   SERVER_ROLE, UNRECORDED) \
    X(ENTITY_STATES,     entity_states,     "EntityStates",    NOBODY,      UNRECORDED) \
    X(GET_ENTITY,        get_entity,        "GetEntity",       SERVER_ROLE, UNRECORDED) \
    X(OPEN_WORLD,        open_world,        "OpenWorld",       SERVER_ROLE, UNRECORDED) \
    X(WORLD_OPENED,      world_opened,      "WorldOpened",     NOBODY,      UNRECORDED) \
    X(CLOSE_WORLD,       close_world,       "CloseWorld",      SERVER_ROLE, UNRECORDED) \
    X(WORLD_CLOSED,      world_closed,      "WorldClosed",     NOBODY,      UNRECORDED) \
    X(QUERY,             query,             "Query",           WELCOMED,    RECORDED) \
    X(QUERY_RESULT,      query_result,      "QueryResult",     NOBODY,      UNRECORDED)

/* The recorded column's two words; any other word does not compile. */
#define SWEEP__KIND_RECORDED 1
#define SWEEP__KIND_UNRECORDED 0

/* The list holds every kind of sweep_msg_kind, once and in its order (the
 * union's type numbers): a row's position equals its kind's number, and
 * the rows end where the kinds do. Designated initializers would accept a
 * row missing or written twice; these do not. */
#define SWEEP__KIND_POSITION(kind, stem, name, sender, recorded) SWEEP__KIND_AT_##kind,
enum { SWEEP__KIND_AT_NONE, SWEEP__MSG_KINDS(SWEEP__KIND_POSITION) SWEEP__KIND_ROWS };
#undef SWEEP__KIND_POSITION
#define SWEEP__KIND_IN_ORDER(kind, stem, name, sender, recorded) \
    _Static_assert((int)SWEEP__KIND_AT_##kind == (int)SWEEP_MSG_##kind, \
                   "kinds.h: row " #kind " is not at its place in sweep_msg_kind");
SWEEP__MSG_KINDS(SWEEP__KIND_IN_ORDER)
#undef SWEEP__KIND_IN_ORDER
_Static_assert((int)SWEEP__KIND_ROWS == (int)SWEEP_MSG_KIND_COUNT,
               "kinds.h: every sweep_msg_kind needs its row (and no row names a kind that does not exist)");

/* Each row's columns agree: a name that is a string literal, a sender that
 * is one of sweep_msg_sender, and only a request recorded (a kind nobody
 * may send changes nothing). */
#define SWEEP__KIND_COLUMNS(kind, stem, name, sender, recorded) \
    _Static_assert(sizeof("" name) > 1 && \
                       (!SWEEP__KIND_##recorded || SWEEP_MSG_SENDER_##sender != SWEEP_MSG_SENDER_NOBODY), \
                   "kinds.h: row " #kind " has an empty name or records what is no request");
SWEEP__MSG_KINDS(SWEEP__KIND_COLUMNS)
#undef SWEEP__KIND_COLUMNS

#endif
