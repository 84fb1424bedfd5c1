/*
 * send.c - answers on their way out: encode a sweep_message once, then
 * hand the bytes to the transport of the peer.
 *
 * TCP gets a size-prefixed frame (tcp.c queues it with a cap). UDP gets one
 * unprefixed buffer per datagram, at most the session's agreed size
 * (SWEEP_UDP_MAX_DATAGRAM before a session: the handshake) and never more
 * than the peer's budget: an address that has not answered a
 * challenge has a budget equal to the datagram it sent, so the server can
 * never be used to amplify traffic towards a spoofed address. A result
 * batch (MoveResultBatch, EntityCommandsResult) too large for one datagram
 * is split into several of its kind carrying the same Message.sequence
 * (protocol/result_pieces.c); a WorldState or an EntityStates too large
 * for one datagram (or TCP frame) is split the same way, each part a whole
 * message of the same tick (sweep__send_parts).
 */
#include <stdarg.h>
#include <string.h>

#include "protocol/result_pieces.h"
#include "server/record/record.h"
#include "server/server_impl.h"

/* While a world-changing request or a tick of a recording world is
 * handled (p->record), what is sent is recorded too. */
static void capture(const sweep__peer *p, const uint8_t *out, size_t len)
{
    if (p->record && p->session && p->session->world->rec)
        sweep__record_message(p->session->world, SWEEP_RECORD_OUT, p->session->id, out, len);
}

/* Hands an encoded message to the peer's transport; in_room: it was
 * encoded in the UDP queue's next room (sweep__udp_room). */
static int transmit(sweep_server *s, sweep__peer *p, const sweep_message *m, const uint8_t *out, size_t len,
                    int in_room)
{
    capture(p, out, len);
    if (p->conn)
        return sweep__conn_write(p->conn, out, len, 0);
    if (len > p->budget || len > sweep__peer_udp_fit(s, p)->datagram) {
        s->stats.udp_dropped++;
        sweep__log(SWEEP_LOG_DEBUG, "udp_reply_dropped", "kind=%s bytes=%zu budget=%zu",
                   sweep_msg_kind_name(m->kind), len, p->budget);
        return -1;
    }
    int direct = p->session && p->session->udp_direct;
    if (in_room)
        return sweep__udp_send_room(s, p->addr, out, len, direct);
    return sweep__udp_send(s, p->addr, out, len, direct);
}

/* Every Error leaves through sweep__send: counted (Stats.errors_by_code)
 * and logged here, whether sweepd or a world refused. A session's refusals
 * are info lines, under its cap: an operator sees what clients were
 * refused and why without debug's every line. Before a session (a
 * handshake's junk) they stay at debug. */
static void count_error(sweep_server *s, const sweep__peer *p, const sweep_message *m)
{
    sweep__stats_error(&s->stats, m->as.error.code);
    if (p->session) {
        char q[200];
        const sweep_msg_error *e = &m->as.error;
        sweep__owner_log(&p->session->own, p->now ? p->now : uv_hrtime(), SWEEP_LOG_INFO, "request_error",
                         "session=%llu code=%s sequence=%u entity=%u message=%s", (unsigned long long)p->session->id,
                         sweep_wire_code_name(e->code), e->sequence, e->entity,
                         sweep__log_quote(e->message.ptr ? e->message.ptr : "", e->message.len, q, sizeof q));
    } else
        sweep__log(SWEEP_LOG_DEBUG, "request_error", "session=0 code=%s sequence=%u entity=%u",
                   sweep_wire_code_name(m->as.error.code), m->as.error.sequence, m->as.error.entity);
}

int sweep__send(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    if (m->kind == SWEEP_MSG_ERROR)
        count_error(s, p, m);
    const uint8_t *out;
    size_t len;
    if (!p->tcp && !p->conn) {
        /* A datagram that will wait in the send queue is encoded where it
         * waits, not encoded here and copied there. What does not fit
         * there (more than any session's datagram) or fails is encoded as
         * before, to the same end. */
        size_t cap;
        uint8_t *room = sweep__udp_room(s, &cap);
        if (room && sweep_encode_keyed(m, 0, 0, room, cap, &out, &len) == SWEEP_PROTO_OK)
            return transmit(s, p, m, out, len, 1);
    }
    unsigned flags = p->tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    /* The key is the client's to send, never the server's (a message
     * built field by field may hold anything there): encoded without. */
    sweep_proto_error e = sweep_encode_keyed(m, 0, flags, s->out_buf, s->out_cap, &out, &len);
    if (e != SWEEP_PROTO_OK) {
        sweep__log(SWEEP_LOG_ERROR, "encode_failed", "kind=%s error=%s", sweep_msg_kind_name(m->kind),
                   sweep_proto_error_name(e));
        return -1;
    }
    return transmit(s, p, m, out, len, 0);
}

int sweep__send_sized(sweep_server *s, sweep__peer *p, const sweep_message *m, size_t limit)
{
    const uint8_t *out;
    size_t len;
    unsigned flags = p->tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    size_t prefix = p->tcp ? SWEEP_FRAME_PREFIX : 0;
    sweep_proto_error e = sweep_encode_keyed(m, 0, flags, s->out_buf, s->out_cap, &out, &len);
    if (e == SWEEP_PROTO_E_BUFFER_SPACE || (e == SWEEP_PROTO_OK && len - prefix > limit))
        return 1;
    if (e != SWEEP_PROTO_OK) {
        sweep__log(SWEEP_LOG_ERROR, "encode_failed", "kind=%s error=%s", sweep_msg_kind_name(m->kind),
                   sweep_proto_error_name(e));
        return -1;
    }
    return transmit(s, p, m, out, len, 0) == 0 ? 0 : -1;
}

int sweep__send_parts(sweep_server *s, sweep__peer *p, uint32_t total, uint32_t per, sweep__part_fill fill, void *ctx,
                      const char *what)
{
    size_t limit = p->tcp ? s->opt.max_frame : sweep__peer_udp_fit(s, p)->datagram;
    uint32_t start = 0;
    do {
        uint32_t left = total - start;
        uint32_t k = left < per ? left : per;
        for (;;) {
            sweep_message m;
            fill(ctx, &m, start, k);
            int r = sweep__send_sized(s, p, &m, limit);
            if (r < 0)
                return -1;
            if (r == 0)
                break;
            if (k <= 1) {
                sweep__log(SWEEP_LOG_ERROR, "part_too_large", "kind=%s what=%s limit=%zu",
                           sweep_msg_kind_name(m.kind), what, limit);
                return -1;
            }
            k = (k + 1) / 2;
        }
        start += k;
    } while (start < total);
    return 0;
}

int sweep__send_error(sweep_server *s, sweep__peer *p, sweep_wire_code code, uint32_t sequence, uint32_t entity,
                      const char *fmt, ...)
{
    /* The text says what happened, once: the code, sequence and entity are
     * fields of their own, which clients print beside it. */
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sweep_message m = sweep_msg_error_of(code, sequence, entity, p->session ? p->session->world->world->tick : 0, msg);
    return sweep__send(s, p, &m);
}

/* One piece of a result batch, on its way to the peer. */
typedef struct piece_to {
    sweep_server *s;
    sweep__peer *p;
    int rc;
} piece_to;

static int send_piece(void *ctx, const uint8_t *out, size_t len)
{
    piece_to *t = ctx;
    sweep__peer *p = t->p;
    if (!p->tcp && len > p->budget) {
        t->rc = -1;
        return 1;
    }
    capture(p, out, len);
    if (p->tcp) {
        t->rc = sweep__conn_write(p->conn, out, len, 0);
        return 0;
    }
    sweep__udp_send(t->s, p->addr, out, len, p->session && p->session->udp_direct);
    return 0;
}

int sweep__send_results(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    piece_to t = {s, p, 0};
    sweep_proto_error e =
        sweep_encode_pieces(m, p->tcp, sweep__peer_udp_fit(s, p)->datagram, s->out_buf, s->out_cap, send_piece, &t);
    if (e == SWEEP_PROTO_E_DATAGRAM_TOO_LARGE)
        sweep__log(SWEEP_LOG_ERROR, "udp_result_too_large", "kind=%s sequence=%u", sweep_msg_kind_name(m->kind),
                   m->sequence);
    if (e != SWEEP_PROTO_OK && e != SWEEP_PROTO_E_ARG)
        return -1;
    return t.rc;
}

int sweep__send_bye(sweep_server *s, sweep__peer *p, const char *reason)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_BYE;
    m.server_tick = p->session ? p->session->world->world->tick : 0;
    m.as.bye.reason = sweep_str_of(reason);
    return sweep__send(s, p, &m);
}
