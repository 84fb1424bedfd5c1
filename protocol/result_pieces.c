/*
 * result_pieces.c - a MoveResultBatch cut to its transport (result_pieces.h).
 */
#include "protocol/result_pieces.h"

#include <string.h>

#include "protocol/encode.h"
#include "protocol/framing.h"

static sweep_proto_error encode_batch(uint32_t sequence, uint64_t tick, const sweep_msg_move_result *r, uint32_t n,
                                      unsigned flags, void *buf, size_t cap, const uint8_t **out, size_t *len)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
    m.sequence = sequence;
    m.server_tick = tick;
    m.as.move_result_batch.results = r;
    m.as.move_result_batch.count = n;
    return sweep_encode(&m, flags, buf, cap, out, len);
}

sweep_proto_error sweep_encode_result_pieces(uint32_t sequence, uint64_t tick, const sweep_msg_move_result *results,
                                             uint32_t n, int tcp, void *buf, size_t cap, sweep_result_piece_fn piece,
                                             void *ctx)
{
    const uint8_t *out;
    size_t len;
    if (tcp) {
        sweep_proto_error e = encode_batch(sequence, tick, results, n, SWEEP_WIRE_SIZE_PREFIXED, buf, cap, &out, &len);
        if (e != SWEEP_PROTO_OK)
            return e;
        return piece(ctx, out, len) ? SWEEP_PROTO_E_ARG : SWEEP_PROTO_OK;
    }
    uint32_t start = 0;
    do {
        uint32_t k = n - start;
        for (;;) {
            sweep_proto_error e = encode_batch(sequence, tick, results + start, k, 0, buf, cap, &out, &len);
            if (e == SWEEP_PROTO_OK && len <= SWEEP_UDP_MAX_DATAGRAM)
                break;
            if (k <= 1)
                return e == SWEEP_PROTO_OK ? SWEEP_PROTO_E_DATAGRAM_TOO_LARGE : e;
            k = (k + 1) / 2;
        }
        if (piece(ctx, out, len))
            return SWEEP_PROTO_E_ARG;
        start += k;
    } while (start < n);
    return SWEEP_PROTO_OK;
}
