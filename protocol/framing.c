/*
 * framing.c - TCP frame splitting and the UDP size rule (framing.h).
 *
 * The framer keeps buffered bytes in buf[start, end). A returned frame is a
 * view into that storage; feeding compacts the storage (moves the unread
 * tail to the front), which is why a frame is only valid until the next
 * feed. Every legal frame fits because cap >= prefix + max_frame.
 */
#include "protocol/framing.h"

#include <string.h>

#include "protocol/format.h"

sweep_frame_status sweep_frame_peek(const void *data, size_t len, uint32_t max_frame,
                                    size_t *frame_len)
{
    if (len < SWEEP_FRAME_PREFIX)
        return SWEEP_FRAME_NEED_MORE;
    uint32_t body = sweep__rd32(data);
    if (body > max_frame)
        return SWEEP_FRAME_TOO_LARGE;
    if (len - SWEEP_FRAME_PREFIX < body)
        return SWEEP_FRAME_NEED_MORE;
    *frame_len = SWEEP_FRAME_PREFIX + (size_t)body;
    return SWEEP_FRAME_READY;
}

sweep_proto_error sweep_framer_init(sweep_framer *f, void *storage, size_t cap, uint32_t max_frame)
{
    if (f == NULL || storage == NULL || cap < SWEEP_FRAME_PREFIX + (size_t)max_frame)
        return SWEEP_PROTO_E_ARG;
    memset(f, 0, sizeof *f);
    f->buf = storage;
    f->cap = cap;
    f->max_frame = max_frame;
    return SWEEP_PROTO_OK;
}

size_t sweep_framer_feed(sweep_framer *f, const void *data, size_t len)
{
    if (f->broken)
        return 0;
    if (f->start > 0) {
        memmove(f->buf, f->buf + f->start, f->end - f->start);
        f->end -= f->start;
        f->start = 0;
    }
    size_t take = f->cap - f->end < len ? f->cap - f->end : len;
    if (take)
        memcpy(f->buf + f->end, data, take);
    f->end += take;
    return take;
}

sweep_frame_status sweep_framer_next(sweep_framer *f, const uint8_t **frame, size_t *frame_len)
{
    if (f->broken)
        return SWEEP_FRAME_TOO_LARGE;
    size_t n;
    sweep_frame_status s = sweep_frame_peek(f->buf + f->start, f->end - f->start, f->max_frame, &n);
    if (s == SWEEP_FRAME_TOO_LARGE) {
        f->broken = 1;
    } else if (s == SWEEP_FRAME_READY) {
        *frame = f->buf + f->start;
        *frame_len = n;
        f->start += n;
    }
    return s;
}

sweep_proto_error sweep_frame_check(size_t body_len, uint32_t max_frame)
{
    return body_len > max_frame ? SWEEP_PROTO_E_FRAME_TOO_LARGE : SWEEP_PROTO_OK;
}

sweep_proto_error sweep_datagram_check(size_t len)
{
    return len > SWEEP_UDP_MAX_DATAGRAM ? SWEEP_PROTO_E_DATAGRAM_TOO_LARGE : SWEEP_PROTO_OK;
}

uint32_t sweep_udp_datagram_agreed(uint32_t asked, uint32_t server_max)
{
    uint32_t n = asked < server_max ? asked : server_max;
    if (n < SWEEP_UDP_MAX_DATAGRAM)
        return SWEEP_UDP_MAX_DATAGRAM;
    return n > SWEEP_UDP_LARGEST_DATAGRAM ? SWEEP_UDP_LARGEST_DATAGRAM : n;
}
