/*
 * result_pieces.h - a MoveResultBatch cut to its transport: what a server
 * sends for a batch's answers, and what a replay of its log must make
 * again bit for bit.
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

/* Encodes results[0..n) as MoveResultBatch messages of sequence and tick,
 * into buf (cap bytes: what sweep_encode needs for the whole batch), and
 * hands each to piece before encoding the next: over TCP (tcp != 0) one
 * size-prefixed frame; over UDP as many results per datagram of at most
 * SWEEP_UDP_MAX_DATAGRAM bytes as fit, halving the count until they do.
 * SWEEP_PROTO_OK; the encoder's error; SWEEP_PROTO_E_DATAGRAM_TOO_LARGE
 * when one result alone does not fit a datagram; SWEEP_PROTO_E_ARG when
 * piece stopped it. */
sweep_proto_error sweep_encode_result_pieces(uint32_t sequence, uint64_t tick, const sweep_msg_move_result *results,
                                             uint32_t n, int tcp, void *buf, size_t cap, sweep_result_piece_fn piece,
                                             void *ctx);

#ifdef __cplusplus
}
#endif

#endif
