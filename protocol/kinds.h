/*
 * kinds.h - internal: the members of union Body as one list, from which
 * every per-kind table of the codec is built: the encoders (encode.c), the
 * decoders (decode.c) and the verifier's table descriptions (schema.c).
 *
 * Each row is X(KIND, stem): KIND is the sweep_msg_kind without its
 * SWEEP_MSG_ prefix, stem the name its pieces carry: encode_<stem>,
 * decode_<stem> and t_<stem>. A table is built as
 *
 *     #define ROW(kind, stem) [SWEEP_MSG_##kind] = encode_##stem,
 *     static const body_encoder encoders[SWEEP_MSG_KIND_COUNT] = {SWEEP__MSG_KINDS(ROW)};
 *
 * so a kind listed here without its encoder, decoder or description does
 * not compile, and the checks below refuse a list that drifts from
 * sweep_msg_kind. Adding a message: its number in sweep_msg_kind (message.h,
 * the order of union Body), its row here, then whatever fails to compile.
 */
#ifndef SWEEP_PROTOCOL_KINDS_H
#define SWEEP_PROTOCOL_KINDS_H

#include "protocol/message.h"

#define SWEEP__MSG_KINDS(X) \
    X(HELLO, hello) \
    X(WELCOME, welcome) \
    X(SPAWN, spawn) \
    X(SPAWNED, spawned) \
    X(DESPAWN, despawn) \
    X(DESPAWNED, despawned) \
    X(MOVE, move) \
    X(MOVE_RESULT, move_result) \
    X(MOVE_BATCH, move_batch) \
    X(MOVE_RESULT_BATCH, move_result_batch) \
    X(COLLIDE, collide) \
    X(COLLIDE_RESULT, collide_result) \
    X(WORLD_STATE, world_state) \
    X(PING, ping) \
    X(PONG, pong) \
    X(GET_STATS, get_stats) \
    X(STATS, stats) \
    X(ERROR, error) \
    X(BYE, bye) \
    X(CHALLENGE, challenge) \
    X(WATCH_WORLD, watch_world) \
    X(MOVER_COMMAND, mover_command) \
    X(MOVER_COMMANDED, mover_commanded)

/* The list holds every kind of sweep_msg_kind, once and in its order (the
 * union's type numbers): a row's position equals its kind's number, and
 * the rows end where the kinds do. Designated initializers would accept a
 * row missing or written twice; these do not. */
#define SWEEP__KIND_POSITION(kind, stem) SWEEP__KIND_AT_##kind,
enum { SWEEP__KIND_AT_NONE, SWEEP__MSG_KINDS(SWEEP__KIND_POSITION) SWEEP__KIND_ROWS };
#undef SWEEP__KIND_POSITION
#define SWEEP__KIND_IN_ORDER(kind, stem) \
    _Static_assert((int)SWEEP__KIND_AT_##kind == (int)SWEEP_MSG_##kind, \
                   "kinds.h: row " #kind " is not at its place in sweep_msg_kind");
SWEEP__MSG_KINDS(SWEEP__KIND_IN_ORDER)
#undef SWEEP__KIND_IN_ORDER
_Static_assert((int)SWEEP__KIND_ROWS == (int)SWEEP_MSG_KIND_COUNT,
               "kinds.h: every sweep_msg_kind needs its row (and no row names a kind that does not exist)");

#endif
