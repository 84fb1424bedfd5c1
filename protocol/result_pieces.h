/*
 * result_pieces.h - a list of results (a MoveResultBatch, an
 * EntityCommandsResult, a QueryResult) cut to its transport: what a server sends for a
 * batch's answers, and what a replay of its log must make again bit for
 * bit.
 */
#ifndef SWEEP_PROTOCOL_RESULT_PIECES_H
#define SWEEP_PROTOCOL_RESULT_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"
#include "protocol/message.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives one piece's bytes; non-zero stops the cutting. */
typedef int (*sweep_result_piece_fn)(void *ctx, const uint8_t *bytes, size_t len);

/* Encodes m into buf (cap bytes: what sweep_encode needs for the whole
 * message) and hands each piece to piece before encoding the next: over
 * TCP (tcp != 0) one size-prefixed frame; over UDP a MoveResultBatch, an
 * EntityCommandsResult or a QueryResult as runs of its results in order, each the same
 * message (sequence, tick) with as many as fit a datagram of at most
 * `datagram` bytes (the session's agreed size, at least
 * SWEEP_UDP_MAX_DATAGRAM), halving the count until they do; any
 * other kind whole. SWEEP_PROTO_OK; the encoder's error;
 * SWEEP_PROTO_E_DATAGRAM_TOO_LARGE when one result alone does not fit a
 * datagram; SWEEP_PROTO_E_ARG when piece stopped it. Whatever m->key
 * holds, the pieces carry no key: they are the server's. */
sweep_proto_error sweep_encode_pieces(const sweep_message *m, int tcp, size_t datagram, void *buf, size_t cap,
                                      sweep_result_piece_fn piece, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
