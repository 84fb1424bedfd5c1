/*
 * schema.c - internal: the tables of sweep.fbs described for the verifier
 * (schema.h). One array of fields per table, indexed by field id, written
 * in declaration order so it can be read against sweep.fbs line by line.
 */
#include "protocol/schema.h"

#include <stddef.h>

#include "protocol/kinds.h"
#include "protocol/medium_image.h"

#define U8 {SWEEP__F_SCALAR, 1, 1, 0, NULL, NULL, 0}
#define U16 {SWEEP__F_SCALAR, 2, 2, 0, NULL, NULL, 0}
#define U32 {SWEEP__F_SCALAR, 4, 4, 0, NULL, NULL, 0}
#define U64 {SWEEP__F_SCALAR, 8, 8, 0, NULL, NULL, 0}
#define F64 U64
#define VEC3 {SWEEP__F_STRUCT, SWEEP__VEC3_SIZE, SWEEP__STRUCT_ALIGN, 0, NULL, NULL, 0}
#define VEC3_REQ {SWEEP__F_STRUCT, SWEEP__VEC3_SIZE, SWEEP__STRUCT_ALIGN, 1, NULL, NULL, 0}
#define STR {SWEEP__F_STRING, 0, 0, 0, NULL, NULL, 0}
#define STR_REQ {SWEEP__F_STRING, 0, 0, 1, NULL, NULL, 0}
#define COUNT(a) ((uint8_t)(sizeof(a) / sizeof((a)[0])))
#define TABLE(var, nm, fields) const sweep__table var = {nm, COUNT(fields), fields}

#define BYTES {SWEEP__F_VECTOR, 1, 1, 0, NULL, NULL, 0}
#define BYTES_REQ {SWEEP__F_VECTOR, 1, 1, 1, NULL, NULL, 0}

static const sweep__field hello[] = {U32, STR_REQ, STR, STR, BYTES, BYTES, U32};
static const sweep__field welcome[] = {
    U32, U64, F64, STR_REQ, BYTES_REQ, U32, U32, U32, U8, STR, F64, U16, U64,
};
static const sweep__field spawn[] = {VEC3_REQ, VEC3_REQ, F64, F64, U32, U8};
static const sweep__field spawned[] = {U32, VEC3_REQ, VEC3_REQ, U32, U32, U8};
static const sweep__field entity[] = {U32};
static const sweep__field despawned[] = {U32, U32, U32, STR};
static const sweep__field move[] = {U32, U32, U64, VEC3_REQ, F64, VEC3, U32, U8};
static const sweep__field move_result[] = {
    U32, U32, U64, VEC3_REQ, VEC3_REQ, U8, VEC3, U32,
    {SWEEP__F_VECTOR, SWEEP__CONTACT_SIZE, SWEEP__STRUCT_ALIGN, 0, NULL, NULL, 0}, U8, F64,
    U32, U32, U8, U8, VEC3, U32, F64, F64, F64,
    U32, U32, U8, U32, F64, U32, U32, U32, U8, U8,
    {SWEEP__F_STRUCT, SWEEP__MEDIUM_SIZE, SWEEP__MEDIUM_ALIGN, 0, NULL, NULL, 0},
};
static const sweep__field collide[] = {VEC3_REQ, VEC3_REQ, VEC3_REQ, F64, U8};
static const sweep__field collide_result[] = {
    VEC3_REQ, VEC3_REQ, U8, VEC3, U32,
    {SWEEP__F_VECTOR, SWEEP__CONTACT_SIZE, SWEEP__STRUCT_ALIGN, 0, NULL, NULL, 0}, U32,
};
static const sweep__field world_state[] = {
    U64, {SWEEP__F_VECTOR, SWEEP__MOVER_SIZE, SWEEP__STRUCT_ALIGN, 1, NULL, NULL, 0}, U32,
    {SWEEP__F_VECTOR, SWEEP__MOVER_PATH_SIZE, SWEEP__MOVER_PATH_ALIGN, 0, NULL, NULL, 0},
};
static const sweep__field ping[] = {U64};
static const sweep__field pong[] = {U64, U64};
#define U64S {SWEEP__F_VECTOR, 8, 8, 0, NULL, NULL, 0}
static const sweep__field world_info[] = {U32, STR, STR, U32, U32, U32, U64};
static TABLE(t_world_info, "WorldInfo", world_info);
static const sweep__field stats[] = {U32, U32, U64, U64, U64, U64, U32, U64, U64S, U64S,
                                     U64S, U64, U64, U64, U64, U64, U64, U64, U64,
                                     {SWEEP__F_TABLE_VECTOR, 4, 4, 0, &t_world_info, NULL, 0}, U32};
static const sweep__field error[] = {U16, STR_REQ, U32, U32};
static const sweep__field bye[] = {STR};
static const sweep__field challenge[] = {BYTES_REQ};
static const sweep__field watch_world[] = {U32};
static const sweep__field mover_command[] = {STR_REQ};
static const sweep__field mover_commanded[] = {U32, U64};
static const sweep__field entity_command[] = {
    U32, U8, VEC3, {SWEEP__F_VECTOR, SWEEP__HIT_SHAPE_SIZE, SWEEP__STRUCT_ALIGN, 0, NULL, NULL, 0},
};
static const sweep__field entity_command_result[] = {U32, U8, U16, STR, VEC3, VEC3, VEC3, U32};
static const sweep__field entity_states[] = {
    U64, {SWEEP__F_VECTOR, SWEEP__ENTITY_STATE_SIZE, SWEEP__STRUCT_ALIGN, 1, NULL, NULL, 0}, U32,
};
static const sweep__field open_world[] = {STR_REQ, STR};
static const sweep__field world_opened[] = {U32, STR_REQ, BYTES_REQ};
static const sweep__field world_closed[] = {U32, STR};
static const sweep__field query_item[] = {
    U8, VEC3, VEC3, U32, U32, VEC3, F64, U64, F64, U32, {SWEEP__F_VECTOR, 4, 4, 0, NULL, NULL, 0}, U32,
};
static const sweep__field query_answer[] = {
    U16, STR, U64, F64, U32, {SWEEP__F_VECTOR, SWEEP__QUERY_HIT_SIZE, SWEEP__STRUCT_ALIGN, 0, NULL, NULL, 0},
};

static TABLE(t_hello, "Hello", hello);
static TABLE(t_welcome, "Welcome", welcome);
static TABLE(t_spawn, "Spawn", spawn);
static TABLE(t_spawned, "Spawned", spawned);
static TABLE(t_despawn, "Despawn", entity);
static TABLE(t_despawned, "Despawned", despawned);
static TABLE(t_move, "Move", move);
static TABLE(t_move_result, "MoveResult", move_result);
static const sweep__field move_batch[] = {{SWEEP__F_TABLE_VECTOR, 4, 4, 1, &t_move, NULL, 0}};
static const sweep__field move_result_batch[] = {{SWEEP__F_TABLE_VECTOR, 4, 4, 1, &t_move_result, NULL, 0}};
static TABLE(t_move_batch, "MoveBatch", move_batch);
static TABLE(t_move_result_batch, "MoveResultBatch", move_result_batch);
static TABLE(t_collide, "Collide", collide);
static TABLE(t_collide_result, "CollideResult", collide_result);
static TABLE(t_world_state, "WorldState", world_state);
static TABLE(t_ping, "Ping", ping);
static TABLE(t_pong, "Pong", pong);
static const sweep__table t_get_stats = {"GetStats", 0, NULL};
static TABLE(t_stats, "Stats", stats);
static TABLE(t_error, "Error", error);
static TABLE(t_bye, "Bye", bye);
static TABLE(t_challenge, "Challenge", challenge);
static TABLE(t_watch_world, "WatchWorld", watch_world);
static TABLE(t_mover_command, "MoverCommand", mover_command);
static TABLE(t_mover_commanded, "MoverCommanded", mover_commanded);
static TABLE(t_entity_command, "EntityCommand", entity_command);
static TABLE(t_entity_command_result, "EntityCommandResult", entity_command_result);
static const sweep__field entity_commands[] = {{SWEEP__F_TABLE_VECTOR, 4, 4, 1, &t_entity_command, NULL, 0}};
static const sweep__field entity_commands_result[] = {
    {SWEEP__F_TABLE_VECTOR, 4, 4, 1, &t_entity_command_result, NULL, 0},
};
static TABLE(t_entity_commands, "EntityCommands", entity_commands);
static TABLE(t_entity_commands_result, "EntityCommandsResult", entity_commands_result);
static TABLE(t_watch_entities, "WatchEntities", watch_world);
static TABLE(t_entity_states, "EntityStates", entity_states);
static TABLE(t_get_entity, "GetEntity", entity);
static TABLE(t_open_world, "OpenWorld", open_world);
static TABLE(t_world_opened, "WorldOpened", world_opened);
static TABLE(t_close_world, "CloseWorld", entity);
static TABLE(t_world_closed, "WorldClosed", world_closed);
static TABLE(t_query_item, "QueryItem", query_item);
static TABLE(t_query_answer, "QueryAnswer", query_answer);
static const sweep__field query[] = {{SWEEP__F_TABLE_VECTOR, 4, 4, 1, &t_query_item, NULL, 0}};
static const sweep__field query_result[] = {{SWEEP__F_TABLE_VECTOR, 4, 4, 1, &t_query_answer, NULL, 0}, U32};
static TABLE(t_query, "Query", query);
static TABLE(t_query_result, "QueryResult", query_result);

/* Union Body, indexed by type, built from kinds.h: a kind without its
 * table does not compile. 0 is NONE, which has none. */
#define BODY_ROW(kind, stem, name, sender, recorded) [SWEEP_MSG_##kind] = &t_##stem,
static const sweep__table *const body[SWEEP_MSG_KIND_COUNT] = {SWEEP__MSG_KINDS(BODY_ROW)};
#undef BODY_ROW

static const sweep__field message[] = {
    U32, U64, {SWEEP__F_UNION_TYPE, 1, 1, 0, NULL, NULL, 0},
    {SWEEP__F_UNION, 4, 4, 1, NULL, body, SWEEP_MSG_KIND_COUNT}, U64,
};
TABLE(sweep__table_message, "Message", message);
