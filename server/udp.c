/*
 * udp.c - the UDP side: one message per datagram, and the challenge-cookie
 * handshake that verifies an address before it gets a session.
 *
 * A datagram from an address with a session is dispatched like a TCP
 * frame (without the size prefix). From any other address only a Hello of
 * at least SWEEP_UDP_HELLO_MIN bytes is looked at: without a cookie it gets
 * a Challenge, with a wrong or expired cookie an Error BadCookie, with a
 * good one a Welcome (or the Hello's own refusal: the address is verified
 * by then); the Challenge and BadCookie are capped at the size of the
 * Hello (see cookie.h, send.c). Everything else from an unverified address
 * gets nothing back. The socket is read one datagram per callback (no
 * UV_UDP_RECVMMSG: it needs a far larger buffer and gains little here).
 */
#include <string.h>

#include "server/server_impl.h"

int sweep__udp_send(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len)
{
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
    int r = uv_udp_try_send(&s->udp, &b, 1, addr);
    if (r < 0) {
        /* A full socket buffer loses the datagram, as the network could. */
        s->stats.udp_dropped++;
        return -1;
    }
    s->stats.bytes_out[SWEEP__UDP] += len;
    return 0;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    sweep_server *s = h->data;
    *buf = uv_buf_init((char *)s->read_buf, sizeof s->read_buf);
}

/* The stateless handshake for an address without a session. */
static void handshake(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len)
{
    sweep_message m;
    if (len < SWEEP_UDP_HELLO_MIN || sweep_decode(&s->decoder, data, len, 0, &m) != SWEEP_PROTO_OK ||
        m.kind != SWEEP_MSG_HELLO) {
        s->stats.udp_dropped++;
        if (sweep__log_enabled(SWEEP_LOG_DEBUG)) {
            char a[64];
            sweep__addr_text(addr, a, sizeof a);
            sweep__log(SWEEP_LOG_DEBUG, "udp_unverified_dropped", "peer=%s bytes=%zu", a, len);
        }
        return;
    }
    sweep__peer p = {.addr = addr, .budget = len};
    uint64_t now = uv_hrtime();
    const sweep_bytes *cookie = &m.as.hello.cookie;
    if (!cookie->ptr) {
        uint8_t c[SWEEP__COOKIE_SIZE];
        if (sweep__cookie_make(&s->cookie, addr, sweep__cookie_bucket(&s->cookie, now), c) != 0)
            return;
        sweep_message out;
        memset(&out, 0, sizeof out);
        out.kind = SWEEP_MSG_CHALLENGE;
        out.sequence = m.sequence;
        out.as.challenge.cookie.ptr = c;
        out.as.challenge.cookie.len = sizeof c;
        sweep__send(s, &p, &out);
        return;
    }
    if (!sweep__cookie_check(&s->cookie, addr, now, cookie->ptr, cookie->len)) {
        sweep__send_error(s, &p, SWEEP_WIRE_BAD_COOKIE, m.sequence, 0,
                          "wrong or expired cookie; send a Hello without one for a new challenge");
        return;
    }
    /* The cookie proves the sender receives at this address: from here on
     * an answer (a Welcome, or an AuthFailed naming a long identity) may be
     * larger than the Hello without amplifying anything towards a victim. */
    p.budget = SIZE_MAX;
    sweep__hello(s, &p, &m);
}

static void on_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf, const struct sockaddr *addr, unsigned flags)
{
    sweep_server *s = h->data;
    if (nread < 0) {
        sweep__log(SWEEP_LOG_DEBUG, "udp_recv_error", "error=%s", uv_err_name((int)nread));
        return;
    }
    if (!addr || s->stopping)
        return;
    const uint8_t *data = (const uint8_t *)buf->base;
    size_t len = (size_t)nread;
    s->stats.bytes_in[SWEEP__UDP] += len;
    sweep__session *ss = sweep__udp_session_find(s, addr);
    if (ss)
        ss->last_seen_ns = uv_hrtime();
    if ((flags & UV_UDP_PARTIAL) || len > SWEEP_UDP_MAX_DATAGRAM) {
        if (ss) {
            sweep__peer p = {.addr = (const struct sockaddr *)&ss->addr, .session = ss, .budget = SIZE_MAX};
            sweep__send_error(s, &p, SWEEP_WIRE_DATAGRAM_TOO_LARGE, 0, 0, "a datagram of %zu bytes; at most %u",
                              len, SWEEP_UDP_MAX_DATAGRAM);
        } else {
            s->stats.udp_dropped++;
        }
        return;
    }
    if (!ss) {
        handshake(s, addr, data, len);
        return;
    }
    sweep__peer p = {.addr = (const struct sockaddr *)&ss->addr, .session = ss, .budget = SIZE_MAX};
    sweep__dispatch(s, &p, data, len, 0);
}

int sweep__udp_start(sweep_server *s, char *err, size_t errlen)
{
    int r = uv_udp_recv_start(&s->udp, on_alloc, on_recv);
    if (r != 0) {
        snprintf(err, errlen, "udp receive: %s", uv_strerror(r));
        return -1;
    }
    return 0;
}
