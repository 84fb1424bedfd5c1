/*
 * verify_internal.h - internal: the verifier with its fast path for a
 * Move, a MoveBatch, a MoveResult and a MoveResultBatch (verify.c)
 * switchable, so tests can hold the fast path to the general walk's
 * answer on any bytes.
 */
#ifndef SWEEP_PROTOCOL_VERIFY_INTERNAL_H
#define SWEEP_PROTOCOL_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/verify.h"

/* sweep_verify_with, taking the fast path for a Message whose body is a
 * Move, a MoveBatch, a MoveResult or a MoveResultBatch only when `fast`
 * is nonzero (sweep_verify_with passes 1). */
sweep_proto_error sweep__verify_general(const void *buf, size_t len, unsigned flags,
                                        const sweep_verify_limits *limits, int fast);

/* 1 when the fast path alone accepts the buffer (under the default
 * limits), without the general walk. */
int sweep__verify_fast_takes(const void *buf, size_t len, unsigned flags);

/* 1 when the fast path's table of a MoveResult's fields (their sizes,
 * alignments, which are offsets and which are required) is schema.c's. */
int sweep__verify_fast_layout_ok(void);

/* Where the fast path found the fields of a lone Move it accepted: the
 * Message's and the Move's tables (positions in the buffer) and each one's
 * field offsets from its table (0: absent), by the field ids of schema.h.
 * The decoder reads a Move through them rather than looking each field up
 * again in a vtable the verifier has just read. */
typedef struct sweep__verified_move {
    size_t move;    /* 0: not a lone Move the fast path accepted; the rest unset */
    size_t message;
    uint16_t message_fo[8]; /* the first 5 */
    uint16_t move_fo[8];
} sweep__verified_move;

/* sweep_verify_with, telling where a lone Move's fields are when its fast
 * path accepted one (at->move nonzero). */
sweep_proto_error sweep__verify_at(const void *buf, size_t len, unsigned flags, const sweep_verify_limits *limits,
                                   sweep__verified_move *at);

#endif
