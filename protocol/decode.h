/*
 * decode.h - from untrusted bytes to a sweep_message.
 *
 * sweep_decode always runs the verifier first and reads nothing before it
 * passed: there is no "decode without verifying" entry point. Decoding
 * allocates nothing: strings and byte vectors become views into buf (keep
 * buf alive while using them), contacts are copied inline, and batches and
 * mover lists are copied into arrays the caller lends through a
 * sweep_decoder (one per connection or thread; it is only read).
 *
 * A field absent from the buffer decodes as its schema default (0, false,
 * a zero vector, an absent view). Values are not judged here (NaN, radii,
 * speed): that is the core's job, with its own statuses.
 */
#ifndef SWEEP_PROTOCOL_DECODE_H
#define SWEEP_PROTOCOL_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"
#include "protocol/message.h"
#include "protocol/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep_decoder {
    sweep_msg_move *moves;         /* MoveBatch storage */
    uint32_t moves_cap;
    sweep_msg_move_result *results; /* MoveResultBatch storage */
    uint32_t results_cap;
    sweep_wire_mover *movers;      /* WorldState storage */
    uint32_t movers_cap;
    sweep_verify_limits limits;    /* zeros = verifier defaults */
} sweep_decoder;

/* Verifies buf[0..len) (flags: SWEEP_WIRE_SIZE_PREFIXED) and decodes it
 * into *out. Errors: every verifier error; SWEEP_PROTO_E_CAPACITY if a batch
 * or mover list is longer than the decoder's storage (d == NULL lends none)
 * or a result has more than SWEEP_MAX_CONTACTS contacts; SWEEP_PROTO_E_ARG
 * for NULL buf or out. *out is only written on success. */
sweep_proto_error sweep_decode(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                               sweep_message *out);

/* Verifies buf like sweep_decode and reads only its kind and sequence:
 * what a receiver needs to refuse a message it could not decode (one too
 * large for its storage) by what it is. */
sweep_proto_error sweep_decode_kind(const void *buf, size_t len, unsigned flags, sweep_msg_kind *kind,
                                    uint32_t *sequence);

#ifdef __cplusplus
}
#endif

#endif
