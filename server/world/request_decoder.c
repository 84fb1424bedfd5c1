/*
 * request_decoder.c - the decoder of requests as sweepd runs it
 * (request_decoder.h).
 */
#include "server/world/request_decoder.h"

#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"

int sweep__request_decoder_init(sweep__request_decoder *d, uint32_t max_frame, uint32_t max_batch)
{
    memset(d, 0, sizeof *d);
    /* Every vector entry may point at one shared Move table, so a frame
     * holds up to one move per 4-byte offset. */
    uint32_t moves_cap = max_frame / 4u + 1u;
    if (moves_cap < max_batch + 1u)
        moves_cap = max_batch + 1u;
    d->moves = sweep__calloc(moves_cap, sizeof *d->moves);
    d->results = sweep__calloc(64, sizeof *d->results);
    /* A WorldState is the server's to send, but one sent to it should be
     * refused as such (UnknownMessage), not as too large to decode. */
    d->movers = sweep__calloc(64, sizeof *d->movers);
    /* EntityCommands, a batch too: the same room as moves. */
    d->commands = sweep__calloc(moves_cap, sizeof *d->commands);
    /* A Query, a batch too; the hit shapes and ignored ids of a whole
     * message as many as the frame's bytes can hold. */
    d->query_items = sweep__calloc(moves_cap, sizeof *d->query_items);
    uint32_t shapes_cap = max_frame / 80u + 1u, ignore_cap = max_frame / 4u + 1u;
    d->hit_shapes = sweep__calloc(shapes_cap, sizeof *d->hit_shapes);
    d->query_ignore = sweep__calloc(ignore_cap, sizeof *d->query_ignore);
    if (!d->moves || !d->results || !d->movers || !d->commands || !d->query_items || !d->hit_shapes ||
        !d->query_ignore) {
        sweep__request_decoder_free(d);
        return -1;
    }
    d->dec.moves = d->moves;
    d->dec.moves_cap = moves_cap;
    d->dec.results = d->results;
    d->dec.results_cap = 64;
    d->dec.movers = d->movers;
    d->dec.movers_cap = 64;
    d->dec.commands = d->commands;
    d->dec.commands_cap = moves_cap;
    d->dec.query_items = d->query_items;
    d->dec.query_items_cap = moves_cap;
    d->dec.hit_shapes = d->hit_shapes;
    d->dec.hit_shapes_cap = shapes_cap;
    d->dec.query_ignore = d->query_ignore;
    d->dec.query_ignore_cap = ignore_cap;
    return 0;
}

void sweep__request_decoder_free(sweep__request_decoder *d)
{
    free(d->moves);
    free(d->results);
    free(d->movers);
    free(d->commands);
    free(d->hit_shapes);
    free(d->query_items);
    free(d->query_ignore);
    memset(d, 0, sizeof *d);
}
