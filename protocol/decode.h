/*
 * decode.h - from untrusted bytes to a sweep_message.
 *
 * sweep_decode always runs the verifier first and reads nothing before it
 * passed: there is no "decode without verifying" entry point. Decoding
 * allocates nothing: strings and byte vectors become views into buf (keep
 * buf alive while using them), contacts are copied inline, and batches and
 * lists (movers, entity states, commands, worlds) are copied into arrays
 * the caller lends through a
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
    /* Added later, after limits so that older initializers stay valid;
     * NULL/0 lends none. */
    sweep_msg_entity_command *commands;               /* EntityCommands storage */
    uint32_t commands_cap;
    sweep_msg_entity_command_result *command_results; /* EntityCommandsResult storage */
    uint32_t command_results_cap;
    sweep_wire_entity_state *entity_states;           /* EntityStates storage */
    uint32_t entity_states_cap;
    sweep_wire_world_info *worlds;                    /* Stats.worlds storage: read up to its room */
    uint32_t worlds_cap;
    sweep_msg_query_item *query_items;                /* Query storage */
    uint32_t query_items_cap;
    sweep_msg_query_answer *query_answers;            /* QueryResult storage: its answers */
    uint32_t query_answers_cap;
    sweep_wire_query_hit *query_hits;                 /* ... and all their hits, one after another */
    uint32_t query_hits_cap;
    uint32_t *query_ignore;                           /* Query: every item's ignored ids, one after another */
    uint32_t query_ignore_cap;
    sweep_wire_hit_shape *hit_shapes;                 /* EntityCommands: every command's hit shapes */
    uint32_t hit_shapes_cap;
} sweep_decoder;

/* Verifies buf[0..len) (flags: SWEEP_WIRE_SIZE_PREFIXED) and decodes it
 * into *out. Errors: every verifier error; SWEEP_PROTO_E_CAPACITY if a batch,
 * a mover, entity, command or query list (hit shapes, ignored ids and
 * query hits counted over the whole message) is longer than the decoder's storage
 * (d == NULL lends none) or a result has more than SWEEP_MAX_CONTACTS
 * contacts (Stats.worlds excepted: read as far as the storage goes, see
 * sweep_msg_stats); SWEEP_PROTO_E_ARG
 * for NULL buf or out. *out is only written on success, and then only its
 * kind, sequence, server_tick, key and the member of `as` its kind names (the
 * other members keep whatever they held: read only the kind's). */
sweep_proto_error sweep_decode(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                               sweep_message *out);

/* Verifies buf like sweep_decode and reads only its kind and sequence:
 * what a receiver needs to refuse a message it could not decode (one too
 * large for its storage) by what it is. */
sweep_proto_error sweep_decode_kind(const void *buf, size_t len, unsigned flags, sweep_msg_kind *kind,
                                    uint32_t *sequence);

/* The moves of a Move or MoveBatch, or the results of a MoveResult or
 * MoveResultBatch, as sweep_decode_motion reads them. */
typedef struct sweep_decoded_motion {
    sweep_msg_kind kind;
    uint32_t sequence;
    uint64_t server_tick;
    const sweep_msg_move *moves;          /* Move, MoveBatch: in the decoder's moves */
    uint32_t move_count;
    const sweep_msg_move_result *results; /* MoveResult, MoveResultBatch: in its results */
    uint32_t result_count;
} sweep_decoded_motion;

/* Verifies buf exactly as sweep_decode does, then reads only the moves or
 * results: a single Move or MoveResult goes into the decoder's storage too
 * (so that needs room for one), and no sweep_message (over a kilobyte,
 * most of it a result's contacts) is cleared or copied. For any other kind
 * only kind, sequence and server_tick are set and the counts are 0: decode
 * it with sweep_decode. Each move or result read equals what sweep_decode
 * gives; errors are sweep_decode's. *out is only written on success. */
sweep_proto_error sweep_decode_motion(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                                      sweep_decoded_motion *out);

/* The body's kind and Message.key of an unprefixed buffer (a datagram)
 * that nothing has verified yet, each read only where it lies inside
 * buf[0..len): a server tells a session's datagram from a forged one by
 * them before it spends anything on it, and the full verification waits
 * for sweep_decode. False when the root table or its vtable is out of
 * bounds or misplaced (such a buffer never verifies). An absent key reads
 * 0, an absent kind SWEEP_MSG_NONE. */
bool sweep_peek_key(const void *buf, size_t len, sweep_msg_kind *kind, uint64_t *key);

#ifdef __cplusplus
}
#endif

#endif
