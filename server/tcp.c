/*
 * tcp.c - the TCP side: accepting connections, cutting each byte stream
 * into frames, and writing answers with a bounded queue.
 *
 * A connection's life: OPEN (reading, answering) -> DRAINING (no more
 * reads; queued answers flush, then the write side is shut down) ->
 * CLOSING (uv_close; the close callback frees the connection and ends its
 * session). DRAINING has a deadline (--drain-timeout): a peer that never
 * reads cannot keep a connection, or its memory, alive.
 *
 * Broken framing (a frame announcing more than --max-frame) ends the
 * connection after one final Error, because the stream cannot be resynced.
 * A malformed buffer inside a well-framed frame only gets an Error: the
 * next frame boundary is still known.
 *
 * Writes first try the socket directly (uv_try_write) when nothing is
 * queued, so the common case allocates nothing; what the kernel does not
 * take is copied into one heap block per answer. When the queued bytes
 * would pass --max-write-queue the client is a slow reader: it gets a final
 * Error (allowed past the cap, once) and is drained.
 */
#include <stdlib.h>
#include <string.h>

#include "server/alloc.h"
#include "server/server_impl.h"

typedef struct sweep__write {
    uv_write_t req;
    sweep__conn *conn;
    size_t len;
    uint8_t data[];
} sweep__write;

static void on_close(uv_handle_t *h)
{
    sweep__conn *c = h->data;
    sweep_server *s = c->server;
    if (c->session)
        sweep__session_destroy(c->session);
    if (c->prev)
        c->prev->next = c->next;
    else if (s->conns == c)
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    s->conn_count--;
    sweep__log(SWEEP_LOG_DEBUG, "conn_close", "peer=%s", c->peer);
    free(c->frame_storage);
    free(c);
}

void sweep__conn_close(sweep__conn *c)
{
    if (c->state == SWEEP__CONN_CLOSING)
        return;
    c->state = SWEEP__CONN_CLOSING;
    uv_close((uv_handle_t *)&c->handle, on_close);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    (void)status;
    sweep__conn_close(req->data);
}

void sweep__conn_drain(sweep__conn *c)
{
    if (c->state != SWEEP__CONN_OPEN)
        return;
    c->state = SWEEP__CONN_DRAINING;
    c->drain_deadline_ns = uv_hrtime() + (uint64_t)(c->server->opt.drain_timeout * 1e9);
    uv_read_stop((uv_stream_t *)&c->handle);
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->handle, on_shutdown) != 0)
        sweep__conn_close(c);
}

void sweep__conns_check_drain(sweep_server *s, uint64_t now_ns)
{
    sweep__conn *next;
    for (sweep__conn *c = s->conns; c; c = next) {
        next = c->next;
        if (c->state == SWEEP__CONN_DRAINING && now_ns >= c->drain_deadline_ns) {
            sweep__log(SWEEP_LOG_INFO, "conn_drain_timeout", "peer=%s pending=%zu", c->peer, c->write_pending);
            sweep__conn_close(c);
        } else if (c->state == SWEEP__CONN_OPEN && !c->session && now_ns >= c->hello_deadline_ns) {
            /* Without this, connections that never say Hello would hold
             * the slots every real client needs, for ever. */
            sweep__log(SWEEP_LOG_INFO, "conn_no_hello", "peer=%s", c->peer);
            sweep__peer p = {.tcp = 1, .conn = c, .session = NULL, .budget = SIZE_MAX};
            sweep__send_error(s, &p, SWEEP_WIRE_NOT_WELCOMED, 0, 0, "no Hello within %g s: closing",
                              s->opt.handshake_timeout);
            sweep__conn_drain(c);
        }
    }
}

static void on_write(uv_write_t *req, int status)
{
    sweep__write *w = (sweep__write *)req;
    sweep__conn *c = w->conn;
    c->write_pending -= w->len;
    free(w);
    if (status < 0 && status != UV_ECANCELED)
        sweep__conn_close(c);
}

/* The slow-reader exit: one last Error past the cap, then drain. */
static void drop_slow_reader(sweep__conn *c, size_t wanted)
{
    sweep_server *s = c->server;
    char text[200];
    uint8_t buf[512];
    const uint8_t *out;
    size_t len;
    sweep__log(SWEEP_LOG_WARN, "slow_reader", "peer=%s pending=%zu max_write_queue=%u", c->peer, c->write_pending,
               s->opt.max_write_queue);
    snprintf(text, sizeof text,
             "%zu bytes of answers are waiting and %zu more would pass the write "
             "queue limit of %u bytes: the client does not read; disconnecting",
             c->write_pending, wanted, s->opt.max_write_queue);
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_ERROR;
    m.as.error.code = SWEEP_WIRE_SLOW_READER;
    m.as.error.message = sweep_str_of(text);
    sweep__stats_error(&s->stats, SWEEP_WIRE_SLOW_READER);
    if (sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len) == SWEEP_PROTO_OK)
        sweep__conn_write(c, out, len, 1);
    sweep__conn_drain(c);
}

int sweep__conn_write(sweep__conn *c, const uint8_t *data, size_t len, int final)
{
    if (c->state != SWEEP__CONN_OPEN)
        return -1;
    if (!final && c->write_pending + len > c->server->opt.max_write_queue) {
        drop_slow_reader(c, len);
        return -1;
    }
    c->server->stats.bytes_out[SWEEP__TCP] += len;
    if (c->write_pending == 0) {
        uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
        int r = uv_try_write((uv_stream_t *)&c->handle, &b, 1);
        if (r > 0) {
            data += r;
            len -= (size_t)r;
        } else if (r != UV_EAGAIN && r != UV_ENOSYS) {
            sweep__conn_close(c);
            return -1;
        }
        if (len == 0)
            return 0;
    }
    sweep__write *w = sweep__malloc(sizeof *w + len);
    if (!w) {
        sweep__conn_close(c);
        return -1;
    }
    memcpy(w->data, data, len);
    w->conn = c;
    w->len = len;
    uv_buf_t b = uv_buf_init((char *)w->data, (unsigned)len);
    if (uv_write(&w->req, (uv_stream_t *)&c->handle, &b, 1, on_write) != 0) {
        free(w);
        sweep__conn_close(c);
        return -1;
    }
    c->write_pending += len;
    return 0;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    sweep__conn *c = h->data;
    /* One shared buffer: the read callback consumes it before the next alloc. */
    *buf = uv_buf_init((char *)c->server->read_buf, sizeof c->server->read_buf);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    sweep__conn *c = st->data;
    sweep_server *s = c->server;
    if (nread == 0)
        return;
    if (nread < 0) {
        if (nread == UV_EOF) {
            if (c->framer.end > c->framer.start)
                sweep__log(SWEEP_LOG_INFO, "conn_eof_mid_frame", "peer=%s buffered=%zu", c->peer,
                           c->framer.end - c->framer.start);
            sweep__conn_drain(c);
        } else {
            sweep__log(SWEEP_LOG_DEBUG, "conn_read_error", "peer=%s error=%s", c->peer, uv_err_name((int)nread));
            sweep__conn_close(c);
        }
        return;
    }
    const uint8_t *data = (const uint8_t *)buf->base;
    size_t left = (size_t)nread;
    s->stats.bytes_in[SWEEP__TCP] += left;
    while (left > 0 && c->state == SWEEP__CONN_OPEN) {
        size_t took = sweep_framer_feed(&c->framer, data, left);
        data += took;
        left -= took;
        for (;;) {
            const uint8_t *frame;
            size_t flen;
            sweep_frame_status fs = sweep_framer_next(&c->framer, &frame, &flen);
            if (fs == SWEEP_FRAME_NEED_MORE)
                break;
            if (fs == SWEEP_FRAME_TOO_LARGE) {
                const uint8_t *h = c->framer.buf + c->framer.start;
                uint32_t announced = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
                sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
                sweep__send_error(s, &p, SWEEP_WIRE_FRAME_TOO_LARGE, 0, 0,
                                  "a frame announces %u bytes; at most %u are accepted; closing the connection",
                                  announced, s->opt.max_frame);
                sweep__conn_drain(c);
                return;
            }
            sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
            sweep__dispatch(s, &p, frame, flen, SWEEP_WIRE_SIZE_PREFIXED);
            if (c->state != SWEEP__CONN_OPEN)
                return;
        }
        if (took == 0)
            break; /* cannot happen: storage holds any legal frame */
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    sweep_server *s = server->data;
    if (status < 0) {
        sweep__log(SWEEP_LOG_WARN, "accept_error", "error=%s", uv_err_name(status));
        return;
    }
    sweep__conn *c = sweep__calloc(1, sizeof *c);
    if (!c)
        return;
    c->server = s;
    uv_tcp_init(&s->loop, &c->handle);
    c->handle.data = c;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    s->conn_count++;
    snprintf(c->peer, sizeof c->peer, "unknown");
    if (uv_accept(server, (uv_stream_t *)&c->handle) != 0) {
        sweep__conn_close(c);
        return;
    }
    struct sockaddr_storage ss;
    int sl = sizeof ss;
    if (uv_tcp_getpeername(&c->handle, (struct sockaddr *)&ss, &sl) == 0)
        sweep__addr_text((const struct sockaddr *)&ss, c->peer, sizeof c->peer);
    /* Connections beyond sessions + a margin for handshakes are refused at once. */
    if (s->stopping || s->conn_count > s->opt.max_sessions + 64u) {
        sweep__log(SWEEP_LOG_WARN, "conn_refused", "peer=%s connections=%u", c->peer, s->conn_count);
        sweep__conn_close(c);
        return;
    }
    size_t cap = SWEEP_FRAME_PREFIX + (size_t)s->opt.max_frame;
    c->frame_storage = sweep__malloc(cap);
    if (!c->frame_storage || sweep_framer_init(&c->framer, c->frame_storage, cap, s->opt.max_frame) != SWEEP_PROTO_OK) {
        sweep__conn_close(c);
        return;
    }
    c->hello_deadline_ns = uv_hrtime() + (uint64_t)(s->opt.handshake_timeout * 1e9);
    uv_tcp_nodelay(&c->handle, 1);
    sweep__log(SWEEP_LOG_DEBUG, "conn_open", "peer=%s", c->peer);
    if (uv_read_start((uv_stream_t *)&c->handle, on_alloc, on_read) != 0)
        sweep__conn_close(c);
}

int sweep__tcp_start(sweep_server *s, char *err, size_t errlen)
{
    int r = uv_listen((uv_stream_t *)&s->tcp, 511, on_connection);
    if (r != 0) {
        snprintf(err, errlen, "listen: %s", uv_strerror(r));
        return -1;
    }
    return 0;
}
