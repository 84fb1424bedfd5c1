/*
 * encode_internal.h - internal: what the encoder knows of a message's size
 * before encoding it, for the cutting of result lists (result_pieces.c).
 */
#ifndef SWEEP_PROTOCOL_ENCODE_INTERNAL_H
#define SWEEP_PROTOCOL_ENCODE_INTERNAL_H

#include <stddef.h>

#include "protocol/message.h"

/* The bytes a MoveResult adds to a MoveResultBatch at least, however it is
 * encoded: its table, its contacts' vector and the batch's offset to it,
 * without alignment padding or a vtable (which it may share). An
 * encoding of results whose sum of these exceeds a size is larger than
 * it. */
size_t sweep__move_result_least(const sweep_msg_move_result *r);

#endif
