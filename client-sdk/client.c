/*
 * client.c - libsweep's connection (client.h): a client's life from
 * sweep_client_connect_start to sweep_client_close, its errors, its socket,
 * and the wait of a blocking call for its answer. What the connection does
 * besides has files of its own, one idea each, so that each reads and
 * changes without the others: connecting (client_connect.c), what a
 * received message becomes (client_receive.c), and the requests
 * (client_requests.c, and client_commands.c for those answered in pieces).
 * They share the client's structure through client_internal.h.
 *
 * Everything runs on one non-blocking socket driven by poll(2) (or what
 * the system has instead: the platform layer, platform.h, holds every
 * call that is not the same everywhere). Received
 * bytes go through the protocol's framer (TCP) or are taken up to
 * SWEEP__RX_BATCH datagrams per read (UDP: recvmmsg(2) on Linux), are
 * verified and decoded by sweep_decode, and become events in a FIFO
 * queue (client_receive.c), each stamped with the kernel's arrival time
 * where the system gives it (Linux: SO_TIMESTAMPNS, moved to the
 * monotonic clock), else the time of its read. A blocking call sends its
 * request and pumps the socket until the queue holds the answer to its
 * sequence, which it takes out of the queue; everything else stays
 * queued, in arrival order, for sweep_client_poll. While a TCP write
 * waits for room the socket is read too, so a client and a server that
 * both write a lot cannot deadlock.
 *
 * Every public call on a client keeps its outcome in `last`
 * (sweep_client_last_error): it runs with err = &c->last inside and copies
 * that to the caller's err on the way out (sweep__client_done).
 */
/* POSIX names (getaddrinfo) without the GNU ones: the platform layer
 * alone asks for more. Nothing on Windows. */
#define _POSIX_C_SOURCE 200809L
#include "client-sdk/client_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/encode.h"

#define SWEEP__TX_CAP (SWEEP_FRAME_PREFIX + SWEEP_FRAME_DEFAULT_MAX)
/* Bytes a MoverTransform (a struct of sweep.fbs) takes in a buffer: a
 * buffer of n bytes holds at most n / this many. */
#define SWEEP__WIRE_MOVER_BYTES 64u
/* ... and an EntityState. */
#define SWEEP__WIRE_ENTITY_STATE_BYTES 96u
/* ... and an EntityCommandResult at least (its offset in the vector and
 * its table's offset to a vtable another may share). */
#define SWEEP__WIRE_COMMAND_RESULT_BYTES 8u

static const char *const status_names[SWEEP_CLIENT_STATUS_COUNT] = {
    "OK",      "ARG",      "ADDRESS", "CONNECT", "IO",        "CLOSED",
    "TIMEOUT", "PROTOCOL", "SERVER",  "NOMEM",   "TOO_LARGE", "MAP_MISMATCH", "AGAIN",
};

const char *sweep_client_status_name(sweep_client_status s)
{
    return (unsigned)s < SWEEP_CLIENT_STATUS_COUNT ? status_names[s] : "UNKNOWN";
}

const char *sweep_client_error_name(const sweep_client_error *e)
{
    if (e == NULL)
        return "UNKNOWN";
    if (e->status == SWEEP_CLIENT_E_SERVER)
        return sweep_wire_code_name(e->code);
    return sweep_client_status_name(e->status);
}

const char *sweep_client_rules_string(uint32_t rules, const char *sep, char *buf, size_t cap)
{
    if (buf == NULL || cap == 0)
        return buf;
    buf[0] = '\0';
    size_t len = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        if (!(rules & (1u << bit)))
            continue;
        const char *name = sweep_wire_rule_name(bit);
        char unknown[16];
        if (strcmp(name, "Unknown") == 0) {
            snprintf(unknown, sizeof unknown, "Bit%u", bit);
            name = unknown;
        }
        int w = snprintf(buf + len, cap - len, "%s%s", len ? (sep ? sep : ",") : "", name);
        if (w < 0 || (size_t)w >= cap - len)
            break; /* truncated: snprintf kept it terminated */
        len += (size_t)w;
    }
    return buf;
}

uint64_t sweep_client_now_ns(void)
{
    return sweep__clock_ns();
}

sweep_client_status sweep__client_fail(sweep_client_error *err, sweep_client_status s, const char *fmt, ...)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return s;
}

sweep_client_status sweep__client_fatal(sweep_client *c, sweep_client_error *err, sweep_client_status s,
                                        const char *fmt, ...)
{
    if (c->fatal.status == SWEEP_CLIENT_OK) {
        c->fatal.status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fatal.message, sizeof c->fatal.message, fmt, ap);
        va_end(ap);
    }
    if (err)
        *err = c->fatal;
    return c->fatal.status;
}

sweep_client_status sweep__client_ok(sweep_client_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_done(sweep_client *c, sweep_client_status s, sweep_client_error *err)
{
    if (s == SWEEP_CLIENT_OK)
        memset(&c->last, 0, sizeof c->last);
    if (err)
        *err = c->last;
    return s;
}

sweep_client_status sweep__client_keep_error(sweep_client *c, sweep_client_status s, const sweep_client_error *err)
{
    if (c == NULL)
        return s;
    if (err && s != SWEEP_CLIENT_OK)
        c->last = *err;
    return sweep__client_done(c, s, NULL);
}

/* What every call on a NULL client reports (client.h). */
static const sweep_client_error no_client = {
    .status = SWEEP_CLIENT_E_ARG, .code = SWEEP_WIRE_NONE, .message = "NULL client"};

const sweep_client_error *sweep_client_last_error(const sweep_client *c)
{
    return c ? &c->last : &no_client;
}

sweep_client_status sweep__client_not_ready(sweep_client *c, sweep_client_error *err)
{
    if (c->state == SWEEP__FAILED || c->fatal.status != SWEEP_CLIENT_OK)
        return sweep__client_fatal(c, err, c->fatal.status ? c->fatal.status : SWEEP_CLIENT_E_CLOSED, "%s",
                                   c->fatal.message);
    return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "the client is still connecting (sweep_client_connect_step)");
}

void sweep_client_options_init(sweep_client_options *opts)
{
    if (opts)
        memset(opts, 0, sizeof *opts);
}

/* The answers about no client (client.h): nothing to read, no socket,
 * no number, nothing waiting, no counts, no room for a move. */
const sweep_client_welcome *sweep_client_get_welcome(const sweep_client *c)
{
    return c ? &c->welcome : NULL;
}

int sweep_client_fd(const sweep_client *c)
{
    /* A Windows SOCKET is a handle value, which fits an int in practice
     * (client.h). */
    return c ? (int)c->fd : -1;
}

sweep_client_transport sweep_client_get_transport(const sweep_client *c)
{
    return c ? c->transport : SWEEP_CLIENT_TCP;
}

uint32_t sweep_client_next_sequence(const sweep_client *c)
{
    return c ? c->next_seq : 0;
}

size_t sweep_client_pending(const sweep_client *c)
{
    if (c == NULL)
        return 0;
    /* The handshake's own events, which poll drops, are not counted. */
    size_t n = 0;
    for (size_t i = 0; i < c->qlen; i++)
        n += (int)c->q[c->qhead + i].kind < SWEEP__EV_WELCOME;
    return n;
}

void sweep_client_get_counters(const sweep_client *c, sweep_client_counters *out)
{
    if (out == NULL)
        return;
    if (c)
        *out = c->counters;
    else
        memset(out, 0, sizeof *out);
}

uint32_t sweep_client_max_batch(const sweep_client *c)
{
    if (c == NULL)
        return 0;
    uint32_t m = c->welcome.max_batch ? c->welcome.max_batch : 1;
    /* Over UDP the datagram's room is known from the Welcome on: before
     * it, 1 as over TCP (never 0, which sweep_client_batch_sequences
     * divides by). */
    if (c->transport == SWEEP_CLIENT_UDP && c->udp_max_batch && c->udp_max_batch < m)
        m = c->udp_max_batch;
    return m;
}

void sweep_client_batch_sequences(const sweep_client *c, uint32_t count, uint32_t *sequences)
{
    if (sequences == NULL)
        return;
    if (c == NULL) {
        /* 0 is no number: what sweep_client_send_batch leaves for a move not sent. */
        memset(sequences, 0, (size_t)count * sizeof *sequences);
        return;
    }
    uint32_t per = sweep_client_max_batch(c), seq = c->next_seq;
    for (uint32_t i = 0; i < count; i++) {
        if (i % per == 0)
            seq++; /* the batch message's own number */
        sequences[i] = seq++;
    }
}

uint64_t sweep_client_estimate_tick(sweep_client *c)
{
    return c ? sweep_tick_clock_estimate(&c->clock, sweep_client_now_ns()) : 0;
}

uint64_t sweep_client_next_tick_ns(const sweep_client *c, uint64_t after_ns)
{
    return c ? sweep_tick_clock_next_due(&c->clock, after_ns) : 0;
}

const sweep_tick_clock *sweep_client_tick_clock(const sweep_client *c)
{
    return c ? &c->clock : NULL;
}

/* --- socket I/O ---------------------------------------------------------------- */

/* Mover and entity storage for decoding a buffer of len bytes: enough
 * for every MoverTransform (EntityState) it can hold, so a WorldState (an
 * EntityStates) never fails for capacity; the same for a QueryResult's
 * answers (each at least an offset and a table's 4 bytes) and hits. */
static int size_movers(sweep_client *c, size_t len)
{
    size_t n = len / SWEEP__WIRE_MOVER_BYTES + 1;
    if (n > c->dec.movers_cap) {
        sweep_wire_mover *m = realloc(c->dec.movers, n * sizeof *m);
        if (m == NULL)
            return -1;
        c->dec.movers = m;
        c->dec.movers_cap = (uint32_t)n;
    }
    n = len / SWEEP__WIRE_ENTITY_STATE_BYTES + 1;
    if (n > c->dec.entity_states_cap) {
        sweep_wire_entity_state *e = realloc(c->dec.entity_states, n * sizeof *e);
        if (e == NULL)
            return -1;
        c->dec.entity_states = e;
        c->dec.entity_states_cap = (uint32_t)n;
    }
    n = len / 8 + 1;
    if (n > c->dec.query_answers_cap) {
        sweep_msg_query_answer *a = realloc(c->dec.query_answers, n * sizeof *a);
        if (a == NULL)
            return -1;
        c->dec.query_answers = a;
        c->dec.query_answers_cap = (uint32_t)n;
    }
    n = len / 88 + 1;
    if (n > c->dec.query_hits_cap) {
        sweep_wire_query_hit *h = realloc(c->dec.query_hits, n * sizeof *h);
        if (h == NULL)
            return -1;
        c->dec.query_hits = h;
        c->dec.query_hits_cap = (uint32_t)n;
    }
    return 0;
}

int sweep__client_size_decoder(sweep_client *c, uint32_t n)
{
    if (n > c->dec.results_cap) {
        sweep_msg_move_result *r = realloc(c->dec.results, (size_t)n * sizeof *r);
        if (r == NULL)
            return -1;
        c->dec.results = r;
        c->dec.results_cap = n;
    }
    uint32_t k = n;
    if (c->transport == SWEEP_CLIENT_UDP && k < c->udp_asked / SWEEP__WIRE_COMMAND_RESULT_BYTES + 1)
        k = c->udp_asked / SWEEP__WIRE_COMMAND_RESULT_BYTES + 1;
    if (k > c->dec.command_results_cap) {
        sweep_msg_entity_command_result *r = realloc(c->dec.command_results, (size_t)k * sizeof *r);
        if (r == NULL)
            return -1;
        c->dec.command_results = r;
        c->dec.command_results_cap = k;
    }
    return 0;
}

/* Reads the datagrams the socket holds, SWEEP__RX_BATCH at a time (a
 * read that returns fewer has emptied it), and queues their events: at
 * most 64 a call, as the caller waits. After a refusal (refused: one a
 * send was told of), it reads on until the socket is empty, then ends the
 * client with it. */
static sweep_client_status read_datagrams(sweep_client *c, int refused, sweep_client_error *err)
{
    sweep_message m;
    int rounds = refused ? (int)(SWEEP__RX_DRAIN / SWEEP__RX_BATCH) : 64 / (int)SWEEP__RX_BATCH;
    for (int round = 0; round < rounds; round++) {
        sweep__net_kind kind = SWEEP__NET_OK;
        int sys = 0;
        int n = sweep__sock_recv_batch(c->fd, c->rx_batch, &c->rx_clock, c->rx_got, &kind, &sys);
        if (n < 0 && kind == SWEEP__NET_REFUSED && !refused) {
            /* The server's port closed (an ICMP port unreachable), which
             * the system reports once and ahead of the datagrams still
             * queued: what the server sent before it went, its Bye among
             * them. Those come first. */
            refused = 1;
            rounds = round + 1 + (int)(SWEEP__RX_DRAIN / SWEEP__RX_BATCH);
            continue;
        }
        if (n < 0 && kind == SWEEP__NET_REFUSED)
            break;
        if (n < 0)
            return sweep__client_fatal(c, err, SWEEP_CLIENT_E_IO, "udp receive: %s", NET_TEXT(sys));
        for (int k = 0; k < n; k++) {
            const sweep__datagram *dg = &c->rx_got[k];
            size_t len = dg->len;
            c->counters.bytes_received += len;
            if (dg->truncated || len > c->udp_asked || sweep_decode(&c->dec, dg->data, len, 0, &m) != SWEEP_PROTO_OK) {
                /* Datagrams can be forged or stray; one bad one is not the server. */
                c->counters.datagrams_dropped++;
                continue;
            }
            c->counters.frames_received++;
            if (sweep__client_handle_message(c, &m, dg->arrived, (uint32_t)len) < 0)
                return sweep__client_fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory queueing events");
        }
        /* A failure told with datagrams (Windows reports a refusal after
         * what it read): they are queued, and it is dealt with now, as the
         * system may not tell it again. */
        if (kind == SWEEP__NET_REFUSED) {
            if (refused)
                break;
            refused = 1;
            rounds = round + 1 + (int)(SWEEP__RX_DRAIN / SWEEP__RX_BATCH);
            continue;
        }
        if (kind != SWEEP__NET_OK && kind != SWEEP__NET_AGAIN)
            return sweep__client_fatal(c, err, SWEEP_CLIENT_E_IO, "udp receive: %s", NET_TEXT(sys));
        if ((unsigned)n < SWEEP__RX_BATCH)
            break;
    }
    /* After a Bye the refusal is only the server gone as it said: the
     * session ends CLOSED, with the Bye's reason. */
    if (refused)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_CONNECT, "udp: nobody listening (connection refused)");
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_read_some(sweep_client *c, sweep_client_error *err)
{
    if (c->fatal.status != SWEEP_CLIENT_OK)
        return sweep__client_fatal(c, err, c->fatal.status, "%s", c->fatal.message);
    if (c->transport == SWEEP_CLIENT_UDP)
        return read_datagrams(c, 0, err);
    sweep_message m;
    sweep__net_kind kind = SWEEP__NET_OK;
    int sys = 0;
    uint8_t *tmp = c->rx_read;
    for (int n = 0; n < 64; n++) {
        /* The stamp is the newest segment's: the frames this read completes
         * were whole by then (the earlier ones sooner, so never too early). */
        uint64_t arrived;
        long r = sweep__sock_recv(c->fd, tmp, SWEEP__RX_READ, &c->rx_clock, &arrived, &kind, &sys);
        if (r < 0) {
            if (kind == SWEEP__NET_AGAIN)
                return SWEEP_CLIENT_OK;
            return sweep__client_fatal(c, err, kind == SWEEP__NET_CLOSED ? SWEEP_CLIENT_E_CLOSED : SWEEP_CLIENT_E_IO,
                                       "recv: %s", NET_TEXT(sys));
        }
        if (r == 0)
            return sweep__client_fatal(c, err, SWEEP_CLIENT_E_CLOSED, "the server closed the connection");
        c->counters.bytes_received += (uint64_t)r;
        size_t off = 0;
        while (off < (size_t)r) {
            off += sweep_framer_feed(&c->framer, tmp + off, (size_t)r - off);
            const uint8_t *frame;
            size_t flen;
            sweep_frame_status fs;
            while ((fs = sweep_framer_next(&c->framer, &frame, &flen)) == SWEEP_FRAME_READY) {
                if (size_movers(c, flen) < 0)
                    return sweep__client_fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory decoding a frame");
                sweep_proto_error pe = sweep_decode(&c->dec, frame, flen, SWEEP_WIRE_SIZE_PREFIXED, &m);
                if (pe != SWEEP_PROTO_OK)
                    return sweep__client_fatal(c, err, SWEEP_CLIENT_E_PROTOCOL, "server sent an invalid frame (%s)",
                                               sweep_proto_error_name(pe));
                c->counters.frames_received++;
                if (sweep__client_handle_message(c, &m, arrived, (uint32_t)flen) < 0)
                    return sweep__client_fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory queueing events");
            }
            if (fs == SWEEP_FRAME_TOO_LARGE)
                return sweep__client_fatal(c, err, SWEEP_CLIENT_E_PROTOCOL, "server announced a frame above %u bytes",
                                           SWEEP__RX_MAX_FRAME);
        }
        if ((size_t)r < SWEEP__RX_READ)
            return SWEEP_CLIENT_OK;
    }
    return SWEEP_CLIENT_OK;
}

int sweep__client_ms_left(uint64_t deadline_ns)
{
    if (deadline_ns == 0)
        return -1;
    uint64_t now = sweep_client_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999) / 1000000;
    return ms > 1000000 ? 1000000 : (int)ms;
}

uint64_t sweep__client_deadline_after(int ms)
{
    return ms < 0 ? 0 : sweep_client_now_ns() + (uint64_t)ms * 1000000u;
}

/* After a send that failed with kind (sys): the fatal status it means,
 * or, when there was no room, OK once the socket may take more (reading
 * meanwhile) before deadline_ns. */
static sweep_client_status send_failed(sweep_client *c, sweep__net_kind kind, int sys, uint64_t deadline_ns,
                                       sweep_client_error *err)
{
    /* Over UDP the refusal, reported once, goes ahead of the datagrams
     * the server sent before its port closed: they are read first. */
    if (kind == SWEEP__NET_REFUSED && c->transport == SWEEP_CLIENT_UDP)
        return read_datagrams(c, 1, err);
    if (kind == SWEEP__NET_REFUSED)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_CONNECT, "nobody listening (connection refused)");
    if (kind == SWEEP__NET_CLOSED)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_CLOSED, "the server closed the connection");
    if (kind != SWEEP__NET_AGAIN)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_IO, "send: %s", NET_TEXT(sys));
    /* No room (or a signal): read meanwhile, so a server blocked
     * writing to us can go on. The deadline holds whether or not the
     * server keeps sending: one that writes and never reads would
     * otherwise keep the send going for ever. */
    int t = sweep__client_ms_left(deadline_ns), revents;
    if (t == 0)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_TIMEOUT, "timed out writing to the server");
    int r = sweep__sock_wait(c->fd, SWEEP__WAIT_OUT | SWEEP__WAIT_IN, t, &revents, &sys);
    if (r < 0)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_IO, "poll: %s", NET_TEXT(sys));
    if (r == 0 && sweep__client_ms_left(deadline_ns) == 0)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_TIMEOUT, "timed out writing to the server");
    if (r > 0 && (revents & (SWEEP__WAIT_IN | SWEEP__WAIT_ERR)))
        return sweep__client_read_some(c, err);
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_send_bytes(sweep_client *c, const uint8_t *data, size_t len, uint64_t deadline_ns,
                                             sweep_client_error *err)
{
    if (c->fatal.status != SWEEP_CLIENT_OK)
        return sweep__client_fatal(c, err, c->fatal.status, "%s", c->fatal.message);
    size_t off = 0;
    while (off < len) {
        sweep__net_kind kind = SWEEP__NET_OK;
        int sys = 0;
        long w = sweep__sock_send(c->fd, data + off, len - off, &kind, &sys);
        if (w >= 0) {
            if (c->transport == SWEEP_CLIENT_UDP)
                break; /* a datagram goes whole or not at all */
            off += (size_t)w;
            continue;
        }
        sweep_client_status s = send_failed(c, kind, sys, deadline_ns, err);
        if (s != SWEEP_CLIENT_OK)
            return s;
    }
    c->counters.frames_sent++;
    c->counters.bytes_sent += len;
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_send_datagrams(sweep_client *c, const uint8_t *data, const size_t *lens,
                                                 unsigned count, uint64_t deadline_ns, unsigned *sent,
                                                 sweep_client_error *err)
{
    *sent = 0;
    if (c->fatal.status != SWEEP_CLIENT_OK)
        return sweep__client_fatal(c, err, c->fatal.status, "%s", c->fatal.message);
    size_t off = 0;
    while (*sent < count) {
        sweep__net_kind kind = SWEEP__NET_OK;
        int sys = 0;
        int w = sweep__sock_send_datagrams(c->fd, data + off, lens + *sent, count - *sent, &kind, &sys);
        if (w < 0) {
            sweep_client_status s = send_failed(c, kind, sys, deadline_ns, err);
            if (s != SWEEP_CLIENT_OK)
                return s;
            continue;
        }
        for (int k = 0; k < w; k++, (*sent)++) {
            off += lens[*sent];
            c->counters.frames_sent++;
            c->counters.bytes_sent += lens[*sent];
        }
    }
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_encode_from(sweep_client *c, size_t from, const sweep_message *m, const uint8_t **out,
                                              size_t *len, sweep_client_error *err)
{
    unsigned flags = c->transport == SWEEP_CLIENT_TCP ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    /* The server takes a datagram from the session's address as the
     * session's only with its key; a Hello answers to its cookie instead. */
    uint64_t key = c->transport == SWEEP_CLIENT_UDP && m->kind != SWEEP_MSG_HELLO ? c->udp_key : 0;
    sweep_proto_error pe = sweep_encode_keyed(m, key, flags, c->tx + from, c->tx_cap - from, out, len);
    if (pe == SWEEP_PROTO_E_BUFFER_SPACE && from > 0)
        return SWEEP_CLIENT_E_AGAIN;
    if (pe == SWEEP_PROTO_E_BUFFER_SPACE)
        return sweep__client_fail(err, SWEEP_CLIENT_E_TOO_LARGE, "%s does not fit a frame",
                                  sweep_msg_kind_name(m->kind));
    if (pe != SWEEP_PROTO_OK)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "cannot encode %s: %s", sweep_msg_kind_name(m->kind),
                                  sweep_proto_error_name(pe));
    if (c->transport == SWEEP_CLIENT_UDP && *len > c->udp_datagram)
        return sweep__client_fail(err, SWEEP_CLIENT_E_TOO_LARGE, "%s is %zu bytes, above the %u of a datagram",
                                  sweep_msg_kind_name(m->kind), *len, c->udp_datagram);
    if (c->transport == SWEEP_CLIENT_TCP && c->welcome.max_frame_size &&
        *len - SWEEP_FRAME_PREFIX > c->welcome.max_frame_size)
        return sweep__client_fail(err, SWEEP_CLIENT_E_TOO_LARGE, "%s is %zu bytes, above the server's frame limit %u",
                                  sweep_msg_kind_name(m->kind), *len - SWEEP_FRAME_PREFIX, c->welcome.max_frame_size);
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_encode(sweep_client *c, const sweep_message *m, const uint8_t **out, size_t *len,
                                         sweep_client_error *err)
{
    return sweep__client_encode_from(c, 0, m, out, len, err);
}

sweep_client_status sweep__client_send_message(sweep_client *c, const sweep_message *m, sweep_client_error *err)
{
    if (c->state != SWEEP__READY)
        return sweep__client_not_ready(c, err);
    const uint8_t *bytes;
    size_t len;
    sweep_client_status s = sweep__client_encode(c, m, &bytes, &len, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    return sweep__client_send_bytes(c, bytes, len, sweep__client_deadline_after(c->timeout_ms), err);
}

sweep_client_status sweep__client_pump(sweep_client *c, uint64_t deadline_ns, sweep_client_error *err)
{
    int revents, sys = 0;
    int r = sweep__sock_wait(c->fd, SWEEP__WAIT_IN, sweep__client_ms_left(deadline_ns), &revents, &sys);
    if (r < 0)
        return sweep__client_fatal(c, err, SWEEP_CLIENT_E_IO, "poll: %s", NET_TEXT(sys));
    if (r > 0)
        return sweep__client_read_some(c, err);
    return SWEEP_CLIENT_OK;
}

/* --- a blocking call's wait ----------------------------------------------------- */

int sweep__client_answers(const sweep_client_event *ev, int kind, uint32_t seq)
{
    if (ev->kind == SWEEP_CLIENT_EV_ERROR)
        return ev->sequence == seq || ev->as.error.sequence == seq;
    if ((int)ev->kind != kind)
        return 0;
    if (kind == SWEEP_CLIENT_EV_MOVE_RESULT)
        return ev->as.move_result.sequence == seq;
    /* The handshake's answers may not repeat a sequence. */
    return kind >= SWEEP__EV_WELCOME || ev->sequence == seq;
}

uint64_t sweep__client_spawns_due(const sweep_client *c)
{
    uint64_t due = 0;
    for (uint32_t i = 0; i < c->nspawns; i++) {
        const sweep__spawn_wait *w = &c->spawns[i];
        uint64_t t = w->expire_ns;
        if (c->transport == SWEEP_CLIENT_UDP && w->sequence == c->newest_spawn && w->resend_ns < t)
            t = w->resend_ns;
        if (due == 0 || t < due)
            due = t;
    }
    return due;
}

sweep_client_status sweep__client_service_spawns(sweep_client *c, sweep_client_error *err)
{
    if (c->nspawns == 0)
        return SWEEP_CLIENT_OK;
    uint64_t now = sweep_client_now_ns();
    for (uint32_t i = 0; i < c->nspawns;) {
        sweep__spawn_wait *w = &c->spawns[i];
        if (now >= w->expire_ns) {
            sweep_client_event *ev = sweep__client_queue_push(c);
            if (ev == NULL)
                return sweep__client_fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory queueing events");
            ev->kind = SWEEP_CLIENT_EV_ERROR;
            ev->sequence = w->sequence;
            ev->received_ns = now;
            ev->as.error.status = SWEEP_CLIENT_E_TIMEOUT;
            ev->as.error.sequence = w->sequence;
            snprintf(ev->as.error.message, sizeof ev->as.error.message,
                     "no answer to Spawn (sequence %u) within %d ms", w->sequence, c->timeout_ms);
            sweep__client_settle_spawn(c, w->sequence); /* spawns[i] is the next one now */
            continue;
        }
        if (c->transport == SWEEP_CLIENT_UDP && w->sequence == c->newest_spawn && now >= w->resend_ns) {
            sweep_message m = {.kind = SWEEP_MSG_SPAWN, .sequence = w->sequence};
            m.as.spawn = w->spawn;
            sweep_client_status s = sweep__client_send_message(c, &m, err);
            if (s != SWEEP_CLIENT_OK)
                return s;
            c->counters.resends++;
            w->resend_ns = now + (uint64_t)c->retry_ms * 1000000u;
        }
        i++;
    }
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_wait_more(sweep_client *c, const sweep_message *resend, uint64_t now,
                                            uint64_t deadline, uint64_t *resend_at, sweep_client_error *err)
{
    sweep_client_status s;
    uint64_t wait_until = deadline;
    if (resend && c->transport == SWEEP_CLIENT_UDP) {
        if (now >= *resend_at) {
            /* The transmit buffer may have been reused: encode again. */
            const uint8_t *bytes;
            size_t len;
            if ((s = sweep__client_encode(c, resend, &bytes, &len, err)) != SWEEP_CLIENT_OK)
                return s;
            if ((s = sweep__client_send_bytes(c, bytes, len, deadline, err)) != SWEEP_CLIENT_OK)
                return s;
            c->counters.resends++;
            *resend_at = now + (uint64_t)c->retry_ms * 1000000u;
        }
        if (*resend_at < wait_until)
            wait_until = *resend_at;
    }
    uint64_t due = sweep__client_spawns_due(c);
    if (due && due < wait_until)
        wait_until = due > now ? due : now + 1;
    return sweep__client_pump(c, wait_until, err);
}

sweep_client_status sweep__client_await_answer(sweep_client *c, const sweep_message *resend, const char *what, int kind,
                                               uint32_t seq, uint64_t deadline, sweep_client_event *out,
                                               sweep_client_error *err)
{
    uint64_t resend_at = sweep_client_now_ns() + (uint64_t)c->retry_ms * 1000000u;
    sweep_client_status s;
    for (;;) {
        if (c->fatal.status == SWEEP_CLIENT_OK && (s = sweep__client_service_spawns(c, err)) != SWEEP_CLIENT_OK)
            return s;
        for (size_t i = 0; i < c->qlen; i++) {
            if (sweep__client_answers(&c->q[c->qhead + i], kind, seq)) {
                sweep__client_queue_take(c, i, out);
                sweep__client_hand_out(c, out);
                if (out->kind == SWEEP_CLIENT_EV_ERROR) {
                    if (err)
                        *err = out->as.error;
                    return out->as.error.status;
                }
                return sweep__client_ok(err);
            }
        }
        /* A read that brought no answer may have ended the session (a
         * Bye): no answer comes after that. */
        if (c->fatal.status != SWEEP_CLIENT_OK)
            return sweep__client_fatal(c, err, c->fatal.status, "%s", c->fatal.message);
        uint64_t now = sweep_client_now_ns();
        if (now >= deadline) {
            s = sweep__client_fail(err, SWEEP_CLIENT_E_TIMEOUT, "no answer to %s (sequence %u) within %d ms", what,
                                   seq, c->timeout_ms);
            if (err)
                err->sequence = seq; /* the request given up on (client.h) */
            return s;
        }
        /* A wait that ended the session (a refusal read past to a Bye) may
         * have queued the answer before the end: the queue is looked at
         * once more, then the end is told. */
        if ((s = sweep__client_wait_more(c, resend, now, deadline, &resend_at, err)) != SWEEP_CLIENT_OK &&
            c->fatal.status == SWEEP_CLIENT_OK)
            return s;
    }
}

sweep_client_status sweep__client_request(sweep_client *c, const sweep_message *m, int kind, sweep_client_event *out,
                                          sweep_client_error *err)
{
    if (c->state != SWEEP__READY)
        return sweep__client_not_ready(c, err);
    const uint8_t *bytes;
    size_t len;
    sweep__client_release_handed(c);
    sweep_client_status s = sweep__client_encode(c, m, &bytes, &len, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    uint64_t deadline = sweep__client_deadline_after(c->timeout_ms);
    if ((s = sweep__client_send_bytes(c, bytes, len, deadline, err)) != SWEEP_CLIENT_OK)
        return s;
    return sweep__client_await_answer(c, m, sweep_msg_kind_name(m->kind), kind, m->sequence, deadline, out, err);
}

/* --- a client's life ------------------------------------------------------------ */

/* Frees everything the client holds but the socket. */
static void free_client(sweep_client *c)
{
    sweep__client_free_queue(c);
    free(c->tx);
    free(c->rx);
    free(c->rx_read);
    free(c->dec.results);
    free(c->dec.command_results);
    free(c->dec.movers);
    free(c->dec.entity_states);
    free(c->dec.query_answers);
    free(c->dec.query_hits);
    free(c->dec.worlds);
    free(c->batch);
    free(c->seen);
    sweep__rx_batch_destroy(c->rx_batch);
    free(c->spawns);
    for (uint32_t i = 0; i < SWEEP__BATCHES; i++) {
        free(c->batches[i].moves);
        free(c->batches[i].entities);
    }
    for (uint32_t i = 0; i < SWEEP__COMMANDS; i++) {
        free(c->commands[i].entities);
        free(c->commands[i].ops);
        free(c->commands[i].got);
    }
    if (c->ai)
        freeaddrinfo(c->ai);
    free(c->strings);
    if (c->net_started)
        sweep__net_stop();
    free(c);
}

/* Copies the options' strings into one allocation the client owns. */
static int copy_strings(sweep_client *c, const sweep_client_options *o)
{
    const char *in[4] = {o->address, o->client_name, o->auth_token, o->world};
    size_t total = 0;
    for (int i = 0; i < 4; i++)
        total += in[i] ? strlen(in[i]) + 1 : 0;
    if ((c->strings = malloc(total ? total : 1)) == NULL)
        return -1;
    const char *outp[4] = {NULL, NULL, NULL, NULL};
    char *at = c->strings;
    for (int i = 0; i < 4; i++) {
        if (!in[i])
            continue;
        size_t n = strlen(in[i]) + 1;
        memcpy(at, in[i], n);
        outp[i] = at;
        at += n;
    }
    c->address = outp[0];
    c->client_name = outp[1];
    c->auth_token = outp[2];
    c->world = outp[3];
    return 0;
}

sweep_client_status sweep_client_connect_start(const sweep_client_options *opts, sweep_client **out,
                                               sweep_client_error *err)
{
    if (out)
        *out = NULL;
    if (opts == NULL || out == NULL || opts->address == NULL ||
        (opts->transport != SWEEP_CLIENT_TCP && opts->transport != SWEEP_CLIENT_UDP))
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "sweep_client_connect: missing options, address or output");
    sweep_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
    c->fd = SWEEP__NO_SOCK;
    c->transport = opts->transport;
    c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 5000;
    c->retry_ms = opts->udp_retry_ms > 0 ? opts->udp_retry_ms : 250;
    c->keep_port = opts->udp_keep_port;
    c->next_seq = 1;
    c->udp_asked = opts->udp_max_datagram ? opts->udp_max_datagram : SWEEP_UDP_MAX_DATAGRAM;
    c->udp_datagram = SWEEP_UDP_MAX_DATAGRAM;
    if (c->transport == SWEEP_CLIENT_UDP &&
        (c->udp_asked < SWEEP_UDP_MAX_DATAGRAM || c->udp_asked > SWEEP_UDP_LARGEST_DATAGRAM)) {
        uint32_t asked = c->udp_asked;
        free(c);
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "udp_max_datagram %u is outside %u to %u (0: %u)", asked,
                                  SWEEP_UDP_MAX_DATAGRAM, SWEEP_UDP_LARGEST_DATAGRAM, SWEEP_UDP_MAX_DATAGRAM);
    }
    /* Room for a batch of the largest datagram too (the encoder borrows 4
     * bytes an item beside the output). */
    c->tx_cap = SWEEP__TX_CAP + (c->transport == SWEEP_CLIENT_UDP ? c->udp_asked : 0);
    c->rx_cap = c->transport == SWEEP_CLIENT_TCP ? SWEEP_FRAME_PREFIX + SWEEP__RX_MAX_FRAME : c->udp_asked + 1u;
    c->tx = malloc(c->tx_cap);
    sweep_client_status s;
    if (c->transport == SWEEP_CLIENT_UDP) {
        c->rx = malloc(SWEEP__RX_BATCH * c->rx_cap);
        c->seen = calloc(SWEEP__SEEN, sizeof *c->seen);
        if (c->rx)
            c->rx_batch = sweep__rx_batch_create(c->rx, c->rx_cap, SWEEP__RX_BATCH);
    } else {
        c->rx = malloc(c->rx_cap);
        c->rx_read = malloc(SWEEP__RX_READ);
    }
    if (c->tx == NULL || c->rx == NULL || (c->transport == SWEEP_CLIENT_TCP && c->rx_read == NULL) ||
        sweep__client_size_decoder(c, 64) < 0 || copy_strings(c, opts) < 0 ||
        (c->transport == SWEEP_CLIENT_UDP &&
         (size_movers(c, c->rx_cap) < 0 || c->seen == NULL || c->rx_batch == NULL))) {
        s = sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        goto failed;
    }
    int sys = 0;
    if (sweep__net_start(&sys) != 0) {
        s = sweep__client_fail(err, SWEEP_CLIENT_E_IO, "cannot start the system's sockets: %s", NET_TEXT(sys));
        goto failed;
    }
    c->net_started = 1;
    if (c->transport == SWEEP_CLIENT_TCP)
        sweep_framer_init(&c->framer, c->rx, c->rx_cap, SWEEP__RX_MAX_FRAME);
    if ((s = sweep__client_resolve(c->address, c->transport == SWEEP_CLIENT_TCP ? SOCK_STREAM : SOCK_DGRAM, &c->ai,
                                   err)) != SWEEP_CLIENT_OK)
        goto failed;
    c->ai_at = c->ai;
    c->connect_deadline = sweep__client_deadline_after(c->timeout_ms);
    if ((s = sweep__client_open_next(c, err)) != SWEEP_CLIENT_OK)
        goto failed;
    *out = c;
    return sweep__client_done(c, SWEEP_CLIENT_OK, err);
failed:
    sweep__sock_close(c->fd);
    free_client(c);
    return s;
}

void sweep_client_close(sweep_client *c)
{
    if (c == NULL)
        return;
    if (c->fd != SWEEP__NO_SOCK && c->state == SWEEP__READY && c->fatal.status == SWEEP_CLIENT_OK) {
        /* Best effort and without waiting: the server cleans up anyway. */
        sweep_message m = {.kind = SWEEP_MSG_BYE, .sequence = c->next_seq++};
        m.as.bye.reason = sweep_str_of("client closing");
        const uint8_t *bytes;
        size_t len;
        if (sweep__client_encode(c, &m, &bytes, &len, NULL) == SWEEP_CLIENT_OK) {
            sweep__net_kind kind;
            int sys;
            (void)sweep__sock_send(c->fd, bytes, len, &kind, &sys);
        }
    }
    sweep__sock_close(c->fd);
    free_client(c);
}
