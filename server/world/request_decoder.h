/*
 * request_decoder.h - the decoder of requests as sweepd runs it, with the
 * room it lends, and the size of the buffer its answers are encoded in.
 *
 * A replay must decode a logged request exactly as sweepd did (a batch
 * too large for the decoder's room is refused for it) and encode the
 * world's answers as sweepd did, so both take them from here.
 */
#ifndef SWEEP_SERVER_WORLD_REQUEST_DECODER_H
#define SWEEP_SERVER_WORLD_REQUEST_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/decode.h"

typedef struct sweep__request_decoder {
    sweep_decoder dec;
    sweep_msg_move *moves;
    sweep_msg_move_result *results;
    sweep_wire_mover *movers;
    sweep_msg_entity_command *commands;
    sweep_wire_hit_shape *hit_shapes;
    sweep_msg_query_item *query_items;
    uint32_t *query_ignore;
} sweep__request_decoder;

/* Room for any batch a frame of max_frame bytes can hold (so an oversized
 * batch is decoded, and refused by count naming its sequence), and at
 * least max_batch + 1 moves. 0, or -1 when out of memory (nothing held). */
int sweep__request_decoder_init(sweep__request_decoder *d, uint32_t max_frame, uint32_t max_batch);
void sweep__request_decoder_free(sweep__request_decoder *d);

/* Bytes of the buffer answers are encoded in, for batches of max_batch. */
static inline size_t sweep__answer_buffer_size(uint32_t max_batch)
{
    return 4096u + (size_t)max_batch * 1100u;
}

#endif
