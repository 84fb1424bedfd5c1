/*
 * result_pieces.c - a list of results cut to its transport (result_pieces.h).
 */
#include "protocol/result_pieces.h"

#include <string.h>

#include "protocol/encode.h"
#include "protocol/encode_internal.h"
#include "protocol/framing.h"

/* The list of results a message holds, to be cut: its first item and count. */
typedef struct list {
    const void *items;
    size_t size;
    uint32_t count;
} list;

static int list_of(const sweep_message *m, list *l)
{
    switch (m->kind) {
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        *l = (list){m->as.move_result_batch.results, sizeof *m->as.move_result_batch.results,
                    m->as.move_result_batch.count};
        return 1;
    case SWEEP_MSG_ENTITY_COMMANDS_RESULT:
        *l = (list){m->as.entity_commands_result.results, sizeof *m->as.entity_commands_result.results,
                    m->as.entity_commands_result.count};
        return 1;
    case SWEEP_MSG_QUERY_RESULT:
        *l = (list){m->as.query_result.answers, sizeof *m->as.query_result.answers, m->as.query_result.count};
        return 1;
    default:
        return 0;
    }
}

/* m with only the run [start, start + n) of its results. */
static sweep_message run_of(const sweep_message *m, const list *l, uint32_t start, uint32_t n)
{
    sweep_message r = *m;
    const void *first = n ? (const uint8_t *)l->items + (size_t)start * l->size : NULL;
    if (m->kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
        r.as.move_result_batch.results = first;
        r.as.move_result_batch.count = n;
    } else if (m->kind == SWEEP_MSG_ENTITY_COMMANDS_RESULT) {
        r.as.entity_commands_result.results = first;
        r.as.entity_commands_result.count = n;
    } else {
        r.as.query_result.answers = first;
        r.as.query_result.count = n;
        r.as.query_result.first = m->as.query_result.first + start;
    }
    return r;
}

/* Whether the MoveResults [start, start + k) may fit `datagram` bytes:
 * not when the least bytes each adds already exceed it. */
static int run_may_fit(const list *l, uint32_t start, uint32_t k, size_t datagram)
{
    const sweep_msg_move_result *r = (const sweep_msg_move_result *)l->items + start;
    size_t least = 0;
    for (uint32_t i = 0; i < k; i++) {
        least += sweep__move_result_least(&r[i]);
        if (least > datagram)
            return 0;
    }
    return 1;
}

sweep_proto_error sweep_encode_pieces(const sweep_message *m, int tcp, size_t datagram, void *buf, size_t cap,
                                      sweep_result_piece_fn piece, void *ctx)
{
    const uint8_t *out;
    size_t len;
    list l;
    if (tcp || !list_of(m, &l)) {
        /* Results are the server's, which sends no key. */
        sweep_proto_error e = sweep_encode_keyed(m, 0, tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0, buf, cap, &out, &len);
        if (e != SWEEP_PROTO_OK)
            return e;
        return piece(ctx, out, len) ? SWEEP_PROTO_E_ARG : SWEEP_PROTO_OK;
    }
    uint32_t start = 0;
    do {
        uint32_t k = l.count - start;
        for (;;) {
            /* A run of MoveResults whose least bytes exceed the datagram
             * cannot fit: the next count is tried without encoding this
             * one, which the halving would only have refused (a batch's
             * answers over UDP of 1,200 bytes are two or more datagrams,
             * and each of its results was encoded twice). The same counts
             * are kept, so the same pieces leave. */
            if (k > 1 && m->kind == SWEEP_MSG_MOVE_RESULT_BATCH && !run_may_fit(&l, start, k, datagram)) {
                k = (k + 1) / 2;
                continue;
            }
            sweep_message r = run_of(m, &l, start, k);
            sweep_proto_error e = sweep_encode_keyed(&r, 0, 0, buf, cap, &out, &len);
            if (e == SWEEP_PROTO_OK && len <= datagram)
                break;
            if (k <= 1)
                return e == SWEEP_PROTO_OK ? SWEEP_PROTO_E_DATAGRAM_TOO_LARGE : e;
            k = (k + 1) / 2;
        }
        if (piece(ctx, out, len))
            return SWEEP_PROTO_E_ARG;
        start += k;
    } while (start < l.count);
    return SWEEP_PROTO_OK;
}
