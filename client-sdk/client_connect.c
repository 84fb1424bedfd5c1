/*
 * client_connect.c - connecting: from the server's address to a session
 * ready for requests (sweep_client_connect, sweep_client_connect_step,
 * sweep_client_poll_events); sweep_client_connect_start (client.c) makes
 * the client and opens the first address here. The handshake is a
 * protocol of its own, which runs once before any request and is then
 * done: apart from it, the client's life and its requests read without
 * its states.
 *
 * Connecting is a small state machine (enum sweep__state) that
 * sweep_client_connect_step drives as far as what arrived allows, never
 * waiting longer than its caller said: a TCP connect in progress, the
 * Hello (over UDP: the padded Hello, then the Hello with the Challenge's
 * cookie), and over UDP the Ping to the session's own port; the message
 * in flight is kept in `hs` to be resent. sweep_client_connect runs it to
 * the end.
 */
/* POSIX names (getaddrinfo) without the GNU ones, as in client.c. */
#define _POSIX_C_SOURCE 200809L
#include "client-sdk/client_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/encode.h"

/* The longest host part of an address (a name or a numeric address). */
#define SWEEP__HOST_MAX 255u

sweep_client_status sweep_client_check_address(const char *address, sweep_client_error *err)
{
    const char *colon = address ? strrchr(address, ':') : NULL;
    if (colon == NULL || colon == address || colon[1] == '\0' || (size_t)(colon - address) > SWEEP__HOST_MAX)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ADDRESS, "'%s' is not HOST:PORT", address ? address : "(null)");
    /* getaddrinfo takes a numeric port modulo 65536: 99999 would connect
     * to 34463 and report that port's refusal. */
    const char *port = colon + 1;
    if (strspn(port, "0123456789") == strlen(port)) {
        unsigned long p = strlen(port) > 5 ? 65536ul : strtoul(port, NULL, 10);
        if (p == 0 || p > 65535)
            return sweep__client_fail(err, SWEEP_CLIENT_E_ADDRESS, "%s: port %s is not in 1..65535", address, port);
    }
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep__client_resolve(const char *address, int socktype, struct addrinfo **res,
                                          sweep_client_error *err)
{
    sweep_client_status s = sweep_client_check_address(address, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    char host[SWEEP__HOST_MAX + 1];
    const char *colon = strrchr(address, ':'), *port = colon + 1;
    size_t hl = (size_t)(colon - address);
    memcpy(host, address, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl >= 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = socktype};
    int rc = getaddrinfo(host, port, &hints, res);
    if (rc != 0) {
        /* Winsock's words end in ". " (its line break made a space), as
         * its socket errors' end in ".\r\n" (sweep__net_text): a message
         * may go on after them. */
        char why[160];
        snprintf(why, sizeof why, "%s", gai_strerror(rc));
        size_t n = strlen(why);
        while (n > 0 && strchr(" .\r\n", why[n - 1]))
            why[--n] = '\0';
        return sweep__client_fail(err, SWEEP_CLIENT_E_ADDRESS, "%s: %s", address, why);
    }
    return SWEEP_CLIENT_OK;
}

/* Fails the handshake for good with e: every later call reports it. */
static sweep_client_status connect_failed(sweep_client *c, const sweep_client_error *e, sweep_client_error *err)
{
    c->state = SWEEP__FAILED;
    if (c->fatal.status == SWEEP_CLIENT_OK)
        c->fatal = *e;
    if (err)
        *err = c->fatal;
    return c->fatal.status;
}

static sweep_client_status connect_fail(sweep_client *c, sweep_client_error *err, sweep_client_status s,
                                        const char *fmt, ...) SWEEP__PRINTF(4, 5);
static sweep_client_status connect_fail(sweep_client *c, sweep_client_error *err, sweep_client_status s,
                                        const char *fmt, ...)
{
    sweep_client_error e = {.status = s};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    return connect_failed(c, &e, err);
}

/* The Hello as sent over UDP: padded so the datagram is at least
 * SWEEP_UDP_HELLO_MIN bytes (the server never answers more than it got). */
static sweep_client_status udp_hello(sweep_client *c, sweep_message *m, sweep_client_error *err)
{
    static const uint8_t zeros[SWEEP_UDP_HELLO_MIN];
    uint32_t pad = 0;
    for (int tries = 0; tries < 8; tries++) {
        m->as.hello.padding.ptr = pad ? zeros : NULL;
        m->as.hello.padding.len = pad;
        const uint8_t *out;
        size_t len;
        sweep_client_status s = sweep__client_encode(c, m, &out, &len, err);
        if (s != SWEEP_CLIENT_OK)
            return s;
        if (len >= SWEEP_UDP_HELLO_MIN)
            return SWEEP_CLIENT_OK;
        pad += (uint32_t)(SWEEP_UDP_HELLO_MIN - len);
        if (pad > sizeof zeros)
            pad = sizeof zeros;
    }
    return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "cannot pad the Hello to %u bytes", SWEEP_UDP_HELLO_MIN);
}

static void set_port(struct sockaddr_storage *sa, uint16_t port)
{
    if (sa->ss_family == AF_INET)
        ((struct sockaddr_in *)sa)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/* Sends the handshake's request in flight (c->hs): the Hello, padded over
 * UDP, or the Ping to the session's own port. */
static sweep_client_status send_hs(sweep_client *c, sweep_client_error *err)
{
    sweep_client_status s;
    if (c->hs.kind == SWEEP_MSG_HELLO && c->transport == SWEEP_CLIENT_UDP &&
        (s = udp_hello(c, &c->hs, err)) != SWEEP_CLIENT_OK)
        return s;
    const uint8_t *bytes;
    size_t len;
    if ((s = sweep__client_encode(c, &c->hs, &bytes, &len, err)) != SWEEP_CLIENT_OK)
        return s;
    c->hs_resend_at = sweep_client_now_ns() + (uint64_t)c->retry_ms * 1000000u;
    return sweep__client_send_bytes(c, bytes, len, c->connect_deadline, err);
}

/* Sends a Hello (cookie: the Challenge's, or none) and awaits its answer:
 * the Welcome, or over UDP without a cookie the Challenge. Each Hello has
 * a number of its own. */
static sweep_client_status send_hello(sweep_client *c, const uint8_t *cookie, uint32_t cookie_len,
                                      sweep_client_error *err)
{
    sweep_message *m = &c->hs;
    memset(m, 0, sizeof *m);
    c->udp_key = 0; /* a new handshake, a new session: the last one's key is nobody's */
    m->kind = SWEEP_MSG_HELLO;
    m->sequence = c->next_seq++;
    m->as.hello.protocol_version = SWEEP_PROTOCOL_VERSION;
    m->as.hello.client_name = sweep_str_of(c->client_name ? c->client_name : "libsweep");
    m->as.hello.auth_token = sweep_str_of(c->auth_token);
    m->as.hello.world = sweep_str_of(c->world);
    /* Absent unless more than the protocol's own: the Hello of a client
     * that asks nothing is the same bytes as before the field. */
    if (c->transport == SWEEP_CLIENT_UDP && c->udp_asked > SWEEP_UDP_MAX_DATAGRAM)
        m->as.hello.max_datagram = c->udp_asked;
    if (cookie_len) {
        memcpy(c->hs_cookie, cookie, cookie_len);
        m->as.hello.cookie.ptr = c->hs_cookie;
        m->as.hello.cookie.len = cookie_len;
    }
    int udp = c->transport == SWEEP_CLIENT_UDP;
    c->state = udp && cookie_len ? SWEEP__COOKIE : SWEEP__HELLO;
    c->hs_kind = udp && !cookie_len ? SWEEP__EV_CHALLENGE : SWEEP__EV_WELCOME;
    return send_hs(c, err);
}

/* UDP: when the address being tried, if it has not answered by then,
 * gives way to the next: an equal share of the time left for it and each
 * address after it. Nothing refuses a datagram that a firewall drops or a
 * host ignores, so silence is all a dead address may say, and it must not
 * hold the others' time; a live one answers long before its share ends
 * (a round trip, a few resends on a lossy path). 0 for the last address,
 * which has all that is left. */
static uint64_t address_share(const sweep_client *c)
{
    uint64_t n = 0, now = sweep_client_now_ns();
    for (const struct addrinfo *a = c->ai_at; a; a = a->ai_next)
        n++;
    if (n < 2 || c->connect_deadline <= now)
        return 0;
    return now + (c->connect_deadline - now) / n;
}

sweep_client_status sweep__client_open_next(sweep_client *c, sweep_client_error *err)
{
    for (; c->ai_at; c->ai_at = c->ai_at->ai_next) {
        struct addrinfo *ai = c->ai_at;
        /* Non-blocking, without Nagle's delay over TCP, and with the
         * kernel's arrival times where the system gives them. */
        sweep__sock fd = sweep__sock_open(ai->ai_family, ai->ai_socktype, ai->ai_protocol, &c->ai_sys);
        if (fd == SWEEP__NO_SOCK)
            continue;
        sweep__net_kind k = sweep__sock_connect(fd, ai->ai_addr, ai->ai_addrlen, &c->ai_sys);
        if (k == SWEEP__NET_IN_PROGRESS) {
            c->fd = fd;
            c->state = SWEEP__TCP_CONNECTING;
            return SWEEP_CLIENT_OK;
        }
        if (k != SWEEP__NET_OK) {
            sweep__sock_close(fd);
            continue;
        }
        c->fd = fd;
        if (c->transport == SWEEP_CLIENT_UDP) {
            c->ai_deadline = address_share(c);
            struct sockaddr_storage sa;
            socklen_t len = sizeof sa;
            if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0 &&
                (sa.ss_family == AF_INET || sa.ss_family == AF_INET6))
                c->shared_port = ntohs(sa.ss_family == AF_INET ? ((struct sockaddr_in *)&sa)->sin_port
                                                               : ((struct sockaddr_in6 *)&sa)->sin6_port);
        }
        return send_hello(c, NULL, 0, err);
    }
    if (sweep__net_classify(c->ai_sys) == SWEEP__NET_TIMED_OUT)
        return connect_fail(c, err, SWEEP_CLIENT_E_TIMEOUT, "connecting to %s timed out", c->address);
    if (c->ai_sys == 0)
        return connect_fail(c, err, SWEEP_CLIENT_E_CONNECT, "cannot connect to %s: Connection refused", c->address);
    return connect_fail(c, err, SWEEP_CLIENT_E_CONNECT, "cannot connect to %s: %s", c->address, NET_TEXT(c->ai_sys));
}

/* After a Welcome naming the session's own port (a sweepd with --threads,
 * protocol/README.md): the socket is connected there (use_udp_port), and a
 * Ping sent there (state SWEEP__PORT), same server
 * address, same local port, so the session's address stays the one its
 * cookie verified. Its datagrams then reach the thread of its world
 * without a hop between threads, and only answers from that port are
 * taken (the kernel filters a connected socket).
 *
 * Only if a Ping there is answered, within two resend periods: between
 * client and server a NAT, a container's published ports or a relay may
 * pass the port the client was given and nothing else. Unanswered, the
 * socket goes back to that port, which serves the session as well (with a
 * hop between the server's threads), and udp_port reads 0. */
/* The thread's own port did not answer (or refused): back to the port the
 * Hello went to, which serves the session as well. */
static sweep_client_status keep_shared_port(sweep_client *c, sweep_client_error *err)
{
    /* Out of memory is the client's own failure, and a Bye the session's
     * end, not the port's: they stay fatal. */
    if (c->fatal.status == SWEEP_CLIENT_E_NOMEM || c->said_bye)
        return connect_failed(c, &c->fatal, err);
    /* What failed was that port alone (a refusal there, say): the session
     * is still good on the other. */
    memset(&c->fatal, 0, sizeof c->fatal);
    c->welcome.udp_port = 0;
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    if (getpeername(c->fd, (struct sockaddr *)&sa, &len) != 0)
        return connect_fail(c, err, SWEEP_CLIENT_E_IO, "getpeername: %s", NET_TEXT(sweep__net_last()));
    set_port(&sa, c->shared_port);
    int sys = 0;
    if (sweep__sock_connect(c->fd, (struct sockaddr *)&sa, len, &sys) != SWEEP__NET_OK)
        return connect_fail(c, err, SWEEP_CLIENT_E_CONNECT, "connecting back to port %u: %s", c->shared_port,
                            NET_TEXT(sys));
    c->state = SWEEP__READY;
    return sweep__client_ok(err);
}

static sweep_client_status use_udp_port(sweep_client *c, uint16_t port, sweep_client_error *err)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    if (getpeername(c->fd, (struct sockaddr *)&sa, &len) != 0)
        return connect_fail(c, err, SWEEP_CLIENT_E_IO, "getpeername: %s", NET_TEXT(sweep__net_last()));
    if (sa.ss_family != AF_INET && sa.ss_family != AF_INET6) {
        c->welcome.udp_port = 0;
        c->state = SWEEP__READY;
        return sweep__client_ok(err);
    }
    set_port(&sa, port);
    int sys = 0;
    if (sweep__sock_connect(c->fd, (struct sockaddr *)&sa, len, &sys) != SWEEP__NET_OK)
        return keep_shared_port(c, err);
    memset(&c->hs, 0, sizeof c->hs);
    c->hs.kind = SWEEP_MSG_PING;
    c->hs.sequence = c->next_seq++;
    c->hs.as.ping.client_time = sweep_client_now_ns();
    c->hs_kind = SWEEP_CLIENT_EV_PONG;
    c->state = SWEEP__PORT;
    int wait = 2 * c->retry_ms < c->timeout_ms ? 2 * c->retry_ms : c->timeout_ms;
    c->port_deadline = sweep__client_deadline_after(wait);
    return send_hs(c, err);
}

/* What comes after the Welcome: the decoder sized for the server's
 * batches, and over UDP the session's own port if it named one. */
static sweep_client_status welcomed(sweep_client *c, sweep_client_error *err)
{
    if (c->welcome.protocol_version != SWEEP_PROTOCOL_VERSION)
        return connect_fail(c, err, SWEEP_CLIENT_E_PROTOCOL, "server speaks protocol version %u, this client %u",
                            c->welcome.protocol_version, SWEEP_PROTOCOL_VERSION);
    if (c->transport == SWEEP_CLIENT_UDP) {
        /* The size agreed: what the Welcome says, within what was asked (a
         * server older than the agreement says 1200). */
        uint32_t agreed = c->welcome.max_frame_size;
        if (agreed < SWEEP_UDP_MAX_DATAGRAM || agreed > c->udp_asked)
            return connect_fail(c, err, SWEEP_CLIENT_E_PROTOCOL,
                                "the Welcome's datagram size %u is outside 1200 to the %u asked", agreed, c->udp_asked);
        c->udp_datagram = agreed;
    }
    if (sweep__client_size_decoder(c, c->welcome.max_batch) < 0)
        return connect_fail(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory");
    c->udp_max_batch = sweep_udp_max_batch_claimed_in(c->udp_datagram);
    if (c->welcome.udp_port && c->keep_port)
        c->welcome.udp_port = 0;
    if (c->welcome.udp_port)
        return use_udp_port(c, c->welcome.udp_port, err);
    c->state = SWEEP__READY;
    return sweep__client_ok(err);
}

/* One look at a TCP connect under way: on to the handshake once it is
 * made, to the next address if it failed. */
static sweep_client_status advance_connecting(sweep_client *c, sweep_client_error *err)
{
    int revents, sys = 0;
    int r = sweep__sock_wait(c->fd, SWEEP__WAIT_OUT, 0, &revents, &sys);
    if (r < 0)
        return connect_fail(c, err, SWEEP_CLIENT_E_IO, "poll: %s", NET_TEXT(sys));
    if (r == 0) {
        if (sweep_client_now_ns() >= c->connect_deadline)
            return connect_fail(c, err, SWEEP_CLIENT_E_TIMEOUT, "connecting to %s timed out", c->address);
        return sweep__client_fail(err, SWEEP_CLIENT_E_AGAIN, "connecting to %s", c->address);
    }
    int soerr = sweep__sock_connect_result(c->fd);
    if (soerr != 0) {
        c->ai_sys = soerr;
        sweep__sock_close(c->fd);
        c->fd = SWEEP__NO_SOCK;
        c->ai_at = c->ai_at->ai_next;
        return sweep__client_open_next(c, err);
    }
    return send_hello(c, NULL, 0, err);
}

/* UDP, before the Welcome: on to the next address the name has, with a
 * socket and a handshake of its own. Whatever the last one left queued
 * (a Challenge to a resent Hello) belongs to its handshake, not this one. */
static sweep_client_status next_address(sweep_client *c, sweep_client_error *err)
{
    while (c->qlen > 0) {
        sweep_client_event ev;
        sweep__client_queue_take(c, 0, &ev);
        free(sweep__client_owned_array(&ev));
    }
    memset(&c->fatal, 0, sizeof c->fatal);
    sweep__sock_close(c->fd);
    c->fd = SWEEP__NO_SOCK;
    c->hs_round = 0;
    c->ai_at = c->ai_at->ai_next;
    return sweep__client_open_next(c, err);
}

/* The handshake's request or read failed (c->fatal, or else err, says
 * why). A refusal before the Welcome (an ICMP port unreachable: nobody
 * listens at this address) fails this address only, as a refused TCP
 * connect does: "localhost" is often ::1 first and the server on
 * 127.0.0.1 alone. Anything else fails the handshake. OK when it goes on:
 * on the next address, or (the session's own port failing) on the shared
 * one, ready. */
static sweep_client_status step_failed(sweep_client *c, sweep_client_error *err)
{
    if (c->state == SWEEP__PORT)
        return keep_shared_port(c, err);
    if (c->transport == SWEEP_CLIENT_UDP && c->fatal.status == SWEEP_CLIENT_E_CONNECT &&
        (c->state == SWEEP__HELLO || c->state == SWEEP__COOKIE) && c->ai_at && c->ai_at->ai_next)
        return next_address(c, err);
    return connect_failed(c, err, err);
}

/* Advances the handshake without waiting: takes the answer to the request
 * in flight if it came, resends over UDP what is due, gives up past the
 * deadline. OK once connected, AGAIN while not, or the failure. */
static sweep_client_status advance(sweep_client *c, sweep_client_error *err)
{
    sweep_client_status s;
    if (c->state == SWEEP__TCP_CONNECTING && (s = advance_connecting(c, err)) != SWEEP_CLIENT_OK)
        return s;
    while (c->state != SWEEP__READY && c->state != SWEEP__FAILED && c->state != SWEEP__TCP_CONNECTING) {
        s = sweep__client_read_some(c, err);
        if (s != SWEEP_CLIENT_OK) {
            if ((s = step_failed(c, err)) != SWEEP_CLIENT_OK)
                return s;
            continue;
        }
        sweep_client_event ev;
        size_t i = 0;
        while (i < c->qlen && !sweep__client_answers(&c->q[c->qhead + i], c->hs_kind, c->hs.sequence))
            i++;
        if (i == c->qlen) {
            /* Read without an answer, but the session may have ended (a Bye). */
            if (c->fatal.status != SWEEP_CLIENT_OK && (s = step_failed(c, err)) != SWEEP_CLIENT_OK)
                return s;
            break;
        }
        sweep__client_queue_take(c, i, &ev);
        c->ai_deadline = 0; /* the address answered: it keeps the rest of the time */
        if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
            if (c->state == SWEEP__PORT)
                return keep_shared_port(c, err);
            /* A BadCookie (the cookie expired, or a NAT gave us another
             * port between the rounds) starts over, a few times. */
            if (c->state == SWEEP__COOKIE && ev.as.error.code == SWEEP_WIRE_BAD_COOKIE && c->hs_round++ < 2) {
                s = send_hello(c, NULL, 0, err);
            } else {
                return connect_failed(c, &ev.as.error, err);
            }
        } else if (c->state == SWEEP__HELLO && c->hs_kind == SWEEP__EV_CHALLENGE) {
            /* Round 2 proves we receive at this address. Each Challenge has
             * a cookie of its own, and the session the server makes is
             * bound to the cookie of the Hello that made it: resends of
             * round 2 (a lost Welcome) carry that same cookie, kept in
             * hs_cookie, not whatever a late Challenge to a resent round 1
             * leaves in c->cookie (a newer cookie would be taken for a new
             * client on this port). */
            s = send_hello(c, c->cookie, c->cookie_len, err);
        } else if (ev.kind == SWEEP_CLIENT_EV_PONG) {
            c->state = SWEEP__READY;
            s = sweep__client_ok(err);
        } else {
            s = welcomed(c, err);
        }
        if (s != SWEEP_CLIENT_OK && (c->state == SWEEP__FAILED || (s = step_failed(c, err)) != SWEEP_CLIENT_OK))
            return s;
    }
    if (c->state == SWEEP__READY)
        return sweep__client_ok(err);
    if (c->state == SWEEP__FAILED)
        return connect_failed(c, &c->fatal, err);
    if (c->state == SWEEP__TCP_CONNECTING)
        return sweep__client_fail(err, SWEEP_CLIENT_E_AGAIN, "connecting to %s", c->address);
    uint64_t now = sweep_client_now_ns();
    /* The session exists once welcomed: the port check has a deadline of
     * its own, and missing it only keeps the shared port. */
    if (c->state == SWEEP__PORT && now >= c->port_deadline)
        return keep_shared_port(c, err);
    if (c->state != SWEEP__PORT && now >= c->connect_deadline)
        return connect_fail(c, err, SWEEP_CLIENT_E_TIMEOUT, "no answer to Hello (sequence %u) from %s within %d ms",
                            c->hs.sequence, c->address, c->timeout_ms);
    if (c->ai_deadline && now >= c->ai_deadline && (s = next_address(c, err)) != SWEEP_CLIENT_OK)
        return s;
    if (c->transport == SWEEP_CLIENT_UDP && now >= c->hs_resend_at) {
        if ((s = send_hs(c, err)) == SWEEP_CLIENT_OK)
            c->counters.resends++;
        else if ((s = step_failed(c, err)) != SWEEP_CLIENT_OK || c->state == SWEEP__READY)
            return s;
    }
    return sweep__client_fail(err, SWEEP_CLIENT_E_AGAIN, "connecting to %s: %s", c->address,
                              c->state == SWEEP__PORT ? "checking the session's own UDP port"
                                                      : "waiting for the server's answer");
}

int sweep_client_poll_events(const sweep_client *c, int *timeout_ms)
{
    if (c == NULL) {
        /* As a client that failed: nothing to wait for. */
        if (timeout_ms)
            *timeout_ms = 0;
        return 0;
    }
    uint64_t due = 0;
    int events = SWEEP__WAIT_IN;
    switch (c->state) {
    case SWEEP__FAILED:
        events = 0;
        break;
    case SWEEP__TCP_CONNECTING:
        events = SWEEP__WAIT_OUT;
        due = c->connect_deadline;
        break;
    case SWEEP__READY:
        if (c->fatal.status != SWEEP_CLIENT_OK) {
            /* Events kept from before the end (a Bye and what came before
             * it) are still handed out: poll at once, then nothing. */
            events = c->qlen > 0 ? SWEEP__WAIT_IN : 0;
            due = 1;
        } else {
            due = sweep__client_spawns_due(c);
        }
        break;
    default:
        due = c->state == SWEEP__PORT ? c->port_deadline : c->connect_deadline;
        if (c->transport == SWEEP_CLIENT_UDP && c->hs_resend_at < due)
            due = c->hs_resend_at;
        if (c->ai_deadline && c->ai_deadline < due)
            due = c->ai_deadline;
        break;
    }
    if (timeout_ms)
        *timeout_ms = events == 0 ? 0 : due == 0 ? -1 : sweep__client_ms_left(due);
    return events;
}

static sweep_client_status connect_step(sweep_client *c, int timeout_ms, sweep_client_error *err)
{
    uint64_t until = sweep__client_deadline_after(timeout_ms);
    for (;;) {
        sweep_client_status s = advance(c, err);
        if (s != SWEEP_CLIENT_E_AGAIN)
            return s;
        int wait;
        int events = sweep_client_poll_events(c, &wait);
        int left = sweep__client_ms_left(until);
        if (left == 0)
            return s;
        if (wait < 0 || (left >= 0 && left < wait))
            wait = left;
        int revents, sys = 0;
        if (sweep__sock_wait(c->fd, events, wait, &revents, &sys) < 0)
            return connect_fail(c, err, SWEEP_CLIENT_E_IO, "poll: %s", NET_TEXT(sys));
    }
}

sweep_client_status sweep_client_connect_step(sweep_client *c, int timeout_ms, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, connect_step(c, timeout_ms, &c->last), err);
}

sweep_client_status sweep_client_connect(const sweep_client_options *opts, sweep_client **out,
                                         sweep_client_error *err)
{
    if (out)
        *out = NULL;
    if (out == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "sweep_client_connect: missing output");
    sweep_client *c;
    sweep_client_status s = sweep_client_connect_start(opts, &c, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    if ((s = connect_step(c, -1, &c->last)) != SWEEP_CLIENT_OK) {
        if (err)
            *err = c->last;
        sweep_client_close(c);
        return s;
    }
    *out = c;
    return sweep__client_done(c, s, err);
}
