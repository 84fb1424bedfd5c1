/*
 * test_handshake.c - sweepd's Hello/Welcome over TCP and the UDP challenge
 * cookie, against the real binary on 127.0.0.1.
 *
 * UDP rules checked here: a Hello without a cookie gets a Challenge no
 * larger than itself; a wrong cookie is refused (BadCookie, again no
 * larger than the Hello); a datagram that is not a Hello, or a Hello below
 * SWEEP_UDP_HELLO_MIN, from an address without a session gets no reply
 * larger than itself (in practice none).
 *
 * And the address is not the client: every Challenge has a cookie of its
 * own; a session answers a Hello with its own cookie (a lost Welcome) with
 * the same Welcome, a Hello without a cookie from its address with a
 * Challenge, a bad cookie with BadCookie, all leaving it alone; a new
 * socket on a closed one's port that completes a handshake of its own gets
 * a new session, and the old one's entities are gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "maps/content_hash.h"
#include "maps/loader.h"
#include "tests/sweepd_fixture.h"

static fx_server srv;
static fx_rx *rx;

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    return fx_start(&srv, NULL);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&srv);
    free(rx);
    return rc == 0 ? 0 : -1;
}

static void test_tcp_hello_welcome(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    sweep_message m = fx_hello_msg("tcp-test");
    m.sequence = 41;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WELCOME);
    assert_int_equal(m.sequence, 41);
    assert_int_equal(m.as.welcome.protocol_version, SWEEP_PROTOCOL_VERSION);
    assert_true(m.as.welcome.session_id != 0);
    assert_string_equal(m.as.welcome.map_name.ptr, "arena");
    assert_true(m.as.welcome.tick_rate == 60.0);
    assert_int_equal(m.as.welcome.max_batch, 64);
    assert_int_equal(m.as.welcome.max_frame_size, 65536);

    /* The map hash is the one of the map we can load ourselves. */
    sweep_level lv;
    char err[256];
    assert_int_equal(sweep_map_load(srv.arena, &lv, NULL, err, sizeof err), SWEEP_OK);
    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(&lv, &h), SWEEP_OK);
    assert_int_equal(m.as.welcome.map_hash.len, 32);
    assert_memory_equal(m.as.welcome.map_hash.ptr, h.bytes, 32);
    sweep_level_free(&lv);

    /* Ping works, and a world by file stem works too. */
    sweep_message p = fx_msg(SWEEP_MSG_PING, 42);
    p.as.ping.client_time = 123456789;
    assert_int_equal(fx_send(fd, &p), 0);
    assert_int_equal(fx_recv(fd, rx, &p), 1);
    assert_int_equal(p.kind, SWEEP_MSG_PONG);
    assert_int_equal(p.sequence, 42);
    assert_int_equal(p.as.pong.client_time, 123456789);
    close(fd);
}

static void test_tcp_hello_refusals(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    /* Requests before Hello. */
    sweep_message s = fx_spawn_msg(3, sweep_v3(0, 0, 1), sweep_v3(0, 0, 0));
    assert_int_equal(fx_expect_error(fd, rx, &s, NULL), SWEEP_WIRE_NOT_WELCOMED);
    /* Wrong version, unknown world: refused, connection stays usable. */
    sweep_message h = fx_hello_msg("x");
    h.as.hello.protocol_version = 99;
    assert_int_equal(fx_expect_error(fd, rx, &h, NULL), SWEEP_WIRE_VERSION_MISMATCH);
    h = fx_hello_msg("x");
    h.as.hello.world = sweep_str_of("no-such-world");
    assert_int_equal(fx_expect_error(fd, rx, &h, NULL), SWEEP_WIRE_UNKNOWN_WORLD);
    h.as.hello.world = sweep_str_of("arena");
    assert_int_equal(fx_send(fd, &h), 0);
    assert_int_equal(fx_recv(fd, rx, &h), 1);
    assert_int_equal(h.kind, SWEEP_MSG_WELCOME);
    /* An answer kind sent as a request. */
    sweep_message w = fx_msg(SWEEP_MSG_PONG, 9);
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(fd, rx, &w, &seq), SWEEP_WIRE_UNKNOWN_MESSAGE);
    assert_int_equal(seq, 9);
    close(fd);
}

static void test_udp_handshake(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    sweep_message h = fx_hello_msg("udp"), r;
    ssize_t sent = fx_udp_send(fd, &h);
    assert_true(sent >= (ssize_t)SWEEP_UDP_HELLO_MIN);
    ssize_t got = fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS);
    assert_true(got > 0);
    assert_true(got <= sent); /* never more bytes than the unverified address sent */
    assert_int_equal(r.kind, SWEEP_MSG_CHALLENGE);
    assert_true(r.as.challenge.cookie.len >= 16);
    uint8_t cookie[64];
    uint32_t cl = r.as.challenge.cookie.len;
    memcpy(cookie, r.as.challenge.cookie.ptr, cl);

    /* A wrong cookie is refused, with at most as many bytes. */
    uint8_t bad[64];
    memcpy(bad, cookie, cl);
    bad[0] ^= 0xff;
    h.as.hello.cookie.ptr = bad;
    h.as.hello.cookie.len = cl;
    sent = fx_udp_send(fd, &h);
    got = fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS);
    assert_true(got > 0 && got <= sent);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_BAD_COOKIE);

    /* The right cookie gets a Welcome; the session then answers requests. */
    h.as.hello.cookie.ptr = cookie;
    assert_true(fx_udp_send(fd, &h) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_WELCOME);
    assert_int_equal(r.as.welcome.max_frame_size, SWEEP_UDP_MAX_DATAGRAM);
    /* The batch it announces fits one datagram (the TCP default, 64, does not). */
    assert_int_equal(r.as.welcome.max_batch, sweep_udp_max_batch_claimed());
    uint64_t sid = r.as.welcome.session_id;
    assert_true(sid != 0);
    sweep_message p = fx_msg(SWEEP_MSG_PING, 5);
    assert_true(fx_udp_send(fd, &p) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, 5);
    /* ... and is what the server enforces: one move more is refused, even
     * in a batch small enough to fit a datagram (no claimed positions). */
    uint32_t limit = sweep_udp_max_batch_claimed();
    sweep_msg_move mv[64];
    memset(mv, 0, sizeof mv);
    for (uint32_t i = 0; i <= limit; i++) {
        mv[i].entity = 1;
        mv[i].sequence = i + 1;
        mv[i].dt = 1.0 / 60.0;
    }
    sweep_message b = fx_msg(SWEEP_MSG_MOVE_BATCH, 7);
    b.as.move_batch.moves = mv;
    b.as.move_batch.count = limit + 1;
    assert_true(limit + 1 <= sweep_udp_max_batch());
    assert_true(fx_udp_send(fd, &b) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_BATCH_TOO_LARGE);
    assert_int_equal(r.as.error.sequence, 7);
    /* A repeated Hello (lost Welcome) gets the same session. */
    assert_true(fx_udp_send(fd, &h) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_WELCOME);
    assert_int_equal(r.as.welcome.session_id, sid);
    /* Bye ends the session: afterwards the address is unknown again. */
    sweep_message bye = fx_msg(SWEEP_MSG_BYE, 6);
    assert_true(fx_udp_send(fd, &bye) > 0);
    assert_true(fx_udp_send(fd, &p) > 0);
    assert_int_equal(fx_udp_recv(fd, rx, NULL, 500), 0);
    close(fd);
}

static void test_udp_unverified_gets_nothing_bigger(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    /* A Ping, a Move, a tiny Hello and garbage from an address without a
     * session: the Ping's NotWelcomed would be larger than the Ping. */
    sweep_message p = fx_msg(SWEEP_MSG_PING, 1);
    ssize_t sent = fx_udp_send(fd, &p);
    assert_true(sent > 0);
    ssize_t got = fx_udp_recv(fd, rx, NULL, 500);
    assert_true(got <= sent);
    /* A Move of no session is told NotWelcomed (a client whose session
     * the idle timeout ended learns to say Hello again), in fewer bytes. */
    sweep_message mv = fx_move_msg(1, 7, sweep_v3(1, 0, 0), 0.016), r;
    sent = fx_udp_send(fd, &mv);
    got = fx_udp_recv(fd, rx, &r, 2000);
    assert_true(got > 0 && got <= sent);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_NOT_WELCOMED);
    assert_int_equal(r.sequence, 7);
    sweep_message h = fx_hello_msg("small");
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&h, 0, fx_out, sizeof fx_out, &out, &len), SWEEP_PROTO_OK);
    assert_true(len < SWEEP_UDP_HELLO_MIN);
    assert_int_equal(send(fd, out, len, 0), (ssize_t)len);
    assert_int_equal(fx_udp_recv(fd, rx, NULL, 500), 0); /* too small to be answered */
    uint8_t junk[40];
    for (unsigned i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)(i * 37 + 11);
    assert_int_equal(send(fd, junk, sizeof junk, 0), (ssize_t)sizeof junk);
    assert_int_equal(fx_udp_recv(fd, rx, NULL, 500), 0);
    /* The server is still fine. */
    assert_true(fx_udp_handshake(fd, rx) != 0);
    close(fd);
}

/* --- UDP sessions and their cookies ---------------------------------------- */

typedef struct udp_cookie {
    uint8_t bytes[64];
    uint32_t len;
} udp_cookie;

/* A Hello with cookie c (NULL: none) from fd; the answer into *r (decoded
 * in rx), its size returned (0: none within timeout_ms). *sent gets the
 * Hello's size. */
static ssize_t udp_hello(int fd, const udp_cookie *c, uint32_t seq, sweep_message *r, ssize_t *sent,
                         int timeout_ms)
{
    sweep_message h = fx_hello_msg("udp-cookie");
    h.sequence = seq;
    if (c) {
        h.as.hello.cookie.ptr = c->bytes;
        h.as.hello.cookie.len = c->len;
    }
    ssize_t n = fx_udp_send(fd, &h);
    assert_true(n >= (ssize_t)SWEEP_UDP_HELLO_MIN);
    if (sent)
        *sent = n;
    return fx_udp_recv(fd, rx, r, timeout_ms);
}

/* A Hello without a cookie: the Challenge's cookie. */
static udp_cookie udp_challenge(int fd, uint32_t seq)
{
    sweep_message r;
    ssize_t sent = 0;
    ssize_t got = udp_hello(fd, NULL, seq, &r, &sent, FX_TIMEOUT_MS);
    assert_true(got > 0 && got <= sent);
    assert_int_equal(r.kind, SWEEP_MSG_CHALLENGE);
    assert_int_equal(r.sequence, seq);
    udp_cookie c;
    assert_true(r.as.challenge.cookie.len > 0 && r.as.challenge.cookie.len <= sizeof c.bytes);
    c.len = r.as.challenge.cookie.len;
    memcpy(c.bytes, r.as.challenge.cookie.ptr, c.len);
    return c;
}

/* A Hello with cookie c that must be Welcomed: the session id. */
static uint64_t udp_welcome(int fd, const udp_cookie *c, uint32_t seq)
{
    sweep_message r;
    assert_true(udp_hello(fd, c, seq, &r, NULL, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_WELCOME);
    assert_int_equal(r.sequence, seq);
    assert_true(r.as.welcome.session_id != 0);
    return r.as.welcome.session_id;
}

/* Sends m over UDP and returns the answer's kind (decoded into *r). */
static sweep_msg_kind udp_ask(int fd, const sweep_message *m, sweep_message *r)
{
    assert_true(fx_udp_send(fd, m) > 0);
    assert_true(fx_udp_recv(fd, rx, r, FX_TIMEOUT_MS) > 0);
    return r->kind;
}

static uint32_t udp_spawn(int fd, uint32_t seq)
{
    sweep_message s = fx_spawn_msg(seq, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0)), r;
    assert_int_equal(udp_ask(fd, &s, &r), SWEEP_MSG_SPAWNED);
    assert_true(r.as.spawned.entity != 0);
    return r.as.spawned.entity;
}

/* Moves entity e a little: 1 if it was this session's (a MoveResult), 0 if
 * the server did not know it (UnknownEntity). */
static int udp_moves(int fd, uint32_t e, uint32_t seq)
{
    sweep_message mv = fx_move_msg(e, seq, sweep_v3(0, 0, 0), 1.0 / 60.0), r;
    sweep_msg_kind k = udp_ask(fd, &mv, &r);
    if (k == SWEEP_MSG_MOVE_RESULT) {
        assert_int_equal(r.as.move_result.entity, e);
        return 1;
    }
    assert_int_equal(k, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(r.as.error.entity, e);
    return 0;
}

static sweep_msg_stats udp_stats(int fd, uint32_t seq)
{
    sweep_message g = fx_msg(SWEEP_MSG_GET_STATS, seq), r;
    assert_int_equal(udp_ask(fd, &g, &r), SWEEP_MSG_STATS);
    return r.as.stats;
}

static void udp_ping(int fd, uint32_t seq)
{
    sweep_message p = fx_msg(SWEEP_MSG_PING, seq), r;
    assert_int_equal(udp_ask(fd, &p, &r), SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, seq);
}

static void udp_bye(int fd)
{
    sweep_message bye = fx_msg(SWEEP_MSG_BYE, 999);
    assert_true(fx_udp_send(fd, &bye) > 0);
}

static uint16_t udp_local_port(int fd)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    return ntohs(a.sin_port);
}

/* A UDP socket bound to 127.0.0.1:local_port and connected to the server. */
static int udp_socket_at(uint16_t local_port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    int one = 1;
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), 0);
    struct sockaddr_in a = fx_addr(0);
    a.sin_port = htons(local_port);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    struct sockaddr_in to = fx_addr(srv.port);
    assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof to), 0);
    return fd;
}

/* Two handshakes from one address, moments apart (so almost surely in one
 * time bucket): two different cookies, each good for a session. */
static void test_udp_cookies_unique(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    udp_cookie a = udp_challenge(fd, 1);
    udp_cookie b = udp_challenge(fd, 2);
    assert_int_equal(a.len, b.len);
    assert_memory_not_equal(a.bytes, b.bytes, a.len);
    /* The later one, then the earlier: the earlier is a stray from before
     * the session and is not answered, the session stays. */
    uint64_t sid = udp_welcome(fd, &b, 3);
    sweep_message r;
    assert_int_equal(udp_hello(fd, &a, 4, &r, NULL, 500), 0);
    assert_int_equal(udp_welcome(fd, &b, 5), sid);
    udp_bye(fd);
    close(fd);
}

/* The session's own cookie again (its Welcome was lost): the same session,
 * with its entity. */
static void test_udp_repeated_hello_same_session(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    udp_cookie c = udp_challenge(fd, 1);
    uint64_t sid = udp_welcome(fd, &c, 2);
    uint32_t e = udp_spawn(fd, 3);
    assert_int_equal(udp_welcome(fd, &c, 4), sid);
    assert_int_equal(udp_welcome(fd, &c, 5), sid);
    assert_int_equal(udp_moves(fd, e, 6), 1);
    udp_bye(fd);
    close(fd);
}

/* A client gone without Bye, and a new socket on its port: the new one's
 * own handshake makes a new session, and the old one's entity is gone. */
static void test_udp_reused_port_new_session(void **state)
{
    (void)state;
    int old = fx_udp_socket(srv.port);
    assert_true(old >= 0);
    udp_cookie c1 = udp_challenge(old, 1);
    uint64_t sid1 = udp_welcome(old, &c1, 2);
    uint32_t e = udp_spawn(old, 3);
    sweep_msg_stats before = udp_stats(old, 4);
    assert_true(before.entities >= 1);
    uint16_t port = udp_local_port(old);
    close(old); /* no Bye */

    int fd = udp_socket_at(port);
    assert_int_equal(udp_local_port(fd), port);
    udp_cookie c2 = udp_challenge(fd, 1);
    assert_memory_not_equal(c1.bytes, c2.bytes, c1.len);
    uint64_t sid2 = udp_welcome(fd, &c2, 2);
    assert_true(sid2 != sid1);
    /* The old entity is not the new session's, nor anyone's. */
    assert_int_equal(udp_moves(fd, e, 3), 0);
    sweep_msg_stats after = udp_stats(fd, 4);
    assert_int_equal(after.entities, before.entities - 1);
    assert_int_equal(after.sessions, before.sessions); /* one ended, one began */
    /* The new session is a whole one, and its own cookie is what it
     * answers to now, not the old one's. */
    uint32_t e2 = udp_spawn(fd, 5);
    assert_int_equal(udp_moves(fd, e2, 6), 1);
    assert_int_equal(udp_welcome(fd, &c2, 7), sid2);
    sweep_message r;
    assert_int_equal(udp_hello(fd, &c1, 8, &r, NULL, 500), 0);
    assert_int_equal(udp_moves(fd, e2, 9), 1);
    udp_bye(fd);
    close(fd);
}

/* A Hello without a cookie from a session's address: a Challenge no larger
 * than the Hello, never a Welcome, and the session goes on as it was. */
static void test_udp_cookieless_hello_challenged(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    udp_cookie c = udp_challenge(fd, 1);
    uint64_t sid = udp_welcome(fd, &c, 2);
    uint32_t e = udp_spawn(fd, 3);
    udp_cookie again = udp_challenge(fd, 4);
    assert_memory_not_equal(c.bytes, again.bytes, c.len);
    udp_ping(fd, 5);
    assert_int_equal(udp_moves(fd, e, 6), 1);
    assert_int_equal(udp_welcome(fd, &c, 7), sid);
    udp_bye(fd);
    close(fd);
}

/* A forged cookie from a session's address: BadCookie no larger than the
 * Hello, and the session goes on as it was. */
static void test_udp_bad_cookie_leaves_session(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    udp_cookie c = udp_challenge(fd, 1);
    uint64_t sid = udp_welcome(fd, &c, 2);
    uint32_t e = udp_spawn(fd, 3);
    udp_cookie forged[3] = {c, c, c};
    forged[0].bytes[c.len - 1] ^= 0x01; /* the MAC */
    forged[1].bytes[0] ^= 0x80;         /* the nonce: a "later" cookie, unsigned */
    forged[2].len = c.len - 1;          /* a cut one */
    /* Dropped unanswered: from a session's address a bad cookie is a
     * forger's (its BadCookie, naming the forger's sequence, would reach
     * the session's client as an answer to one of its own requests). */
    for (int i = 0; i < 3; i++) {
        sweep_message r;
        ssize_t sent = 0;
        assert_int_equal(udp_hello(fd, &forged[i], 10 + (uint32_t)i, &r, &sent, 500), 0);
    }
    udp_ping(fd, 20);
    assert_int_equal(udp_moves(fd, e, 21), 1);
    assert_int_equal(udp_welcome(fd, &c, 22), sid);
    udp_bye(fd);
    close(fd);
}

/* What waits on the UDP socket is read in one loop iteration (up to about
 * a receive buffer's worth), not libuv's 32 or so: held (SIGSTOP), the
 * server gets 200 Pings from a session, then one Ping over TCP; resumed,
 * it answers every UDP Ping before the TCP one, which the same iteration
 * reads. Reading a few dozen datagrams an iteration starved
 * UDP behind busy TCP connections: the receive buffer dropped the rest,
 * the same clients' each time, until their sessions idled out. */
/* 200 datagrams waiting (while sweepd is stopped) are all read and
 * answered before a TCP request sent after them: the socket is read until
 * it is empty, not libuv's 32 datagrams an iteration. They come from 20
 * sessions, 10 each, within a session's share of a turn (16). */
static void test_udp_waiting_datagrams_read_together(void **state)
{
    (void)state;
    enum { SESSIONS = 20, EACH = 10, PINGS = SESSIONS * EACH };
    int tcp = fx_tcp_connect(srv.port);
    assert_true(tcp >= 0);
    assert_true(fx_hello(tcp, rx) != 0);
    int fds[SESSIONS];
    for (int k = 0; k < SESSIONS; k++) {
        fds[k] = fx_udp_socket(srv.port);
        assert_true(fds[k] >= 0);
        udp_cookie c = udp_challenge(fds[k], 1);
        udp_welcome(fds[k], &c, 2);
    }

    assert_int_equal(kill(srv.pid, SIGSTOP), 0);
    for (uint32_t i = 0; i < PINGS; i++) {
        sweep_message p = fx_msg(SWEEP_MSG_PING, 100 + i);
        assert_true(fx_udp_send(fds[i % SESSIONS], &p) > 0);
    }
    sweep_message tp = fx_msg(SWEEP_MSG_PING, 7), r;
    assert_int_equal(fx_send(tcp, &tp), 0);
    assert_int_equal(kill(srv.pid, SIGCONT), 0);

    /* Pong.server_time is when each was answered, on one clock. */
    assert_int_equal(fx_recv(tcp, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, 7);
    uint64_t tcp_at = r.as.pong.server_time;
    unsigned pongs = 0, before = 0;
    for (int k = 0; k < SESSIONS; k++) {
        unsigned got = 0;
        while (got < EACH && fx_udp_recv(fds[k], rx, &r, FX_TIMEOUT_MS) > 0) {
            if (r.kind != SWEEP_MSG_PONG)
                continue;
            got++;
            before += r.as.pong.server_time <= tcp_at;
        }
        pongs += got;
        udp_bye(fds[k]);
        close(fds[k]);
    }
    assert_int_equal(pongs, PINGS);
    assert_int_equal(before, PINGS);
    close(tcp);
}

/* A session with 400 datagrams waiting does not make a session behind it
 * wait for them all: it is served its share of the turn (16), the rest
 * are set aside for the next turns, and the other's one Ping, read in the
 * same reading, is answered before them; all 400 are still answered, in
 * the order sent. When the reading served everything it read, all 400
 * came first. */
/* Sends `burst` Pings from a session owning `entities` entities while
 * sweepd is stopped, then one Ping from another session; every Pong of
 * the burst comes back, in order. How many of them were answered before the
 * other session's one. */
static unsigned udp_burst_before_other(unsigned entities, unsigned burst)
{
    int a = fx_udp_socket(srv.port), b = fx_udp_socket(srv.port);
    assert_true(a >= 0 && b >= 0);
    int big = 4 << 20; /* room for every Pong (the kernel may give less) */
    (void)setsockopt(a, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    udp_cookie ca = udp_challenge(a, 1), cb = udp_challenge(b, 1);
    udp_welcome(a, &ca, 2);
    udp_welcome(b, &cb, 2);
    for (unsigned i = 0; i < entities; i++)
        udp_spawn(a, 3 + i);

    assert_int_equal(kill(srv.pid, SIGSTOP), 0);
    for (uint32_t i = 0; i < burst; i++) {
        sweep_message p = fx_msg(SWEEP_MSG_PING, 100 + i);
        assert_true(fx_udp_send(a, &p) > 0);
    }
    sweep_message bp = fx_msg(SWEEP_MSG_PING, 7), r;
    assert_true(fx_udp_send(b, &bp) > 0);
    assert_int_equal(kill(srv.pid, SIGCONT), 0);

    assert_true(fx_udp_recv(b, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, 7);
    uint64_t b_at = r.as.pong.server_time;
    unsigned pongs = 0, before = 0;
    uint32_t last = 0;
    while (pongs < burst && fx_udp_recv(a, rx, &r, FX_TIMEOUT_MS) > 0) {
        if (r.kind != SWEEP_MSG_PONG)
            continue;
        assert_true(r.sequence > last);
        last = r.sequence;
        pongs++;
        before += r.as.pong.server_time <= b_at;
    }
    printf("handshake: %u of the %u waiting Pings of a session owning %u entities answered before another "
           "session's one\n",
           before, burst, entities);
    assert_int_equal(pongs, burst);
    udp_bye(a);
    udp_bye(b);
    close(a);
    close(b);
    return before;
}

static void test_udp_burst_waits_its_turn(void **state)
{
    (void)state;
    assert_true(udp_burst_before_other(0, 400) <= 16);
}

/* A session's share grows with the entities it owns (a game server speaks
 * for its players): 40 entities give it 16 + 40 datagrams a turn, so a
 * burst of 50 is served whole before the other session's one; without
 * the entities, 16 of them. */
static void test_udp_share_grows_with_entities(void **state)
{
    (void)state;
    assert_int_equal(udp_burst_before_other(40, 50), 50);
    assert_true(udp_burst_before_other(0, 50) <= 16);
}

/* --- the session key ------------------------------------------------------- */

/* m sent from fd, so from the session's own address and port, as anyone
 * who forges that address can: with `key` (0: none) rather than the one
 * the session was given. */
static void send_forged(int fd, const sweep_message *m, uint64_t key)
{
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode_keyed(m, key, 0, fx_out, sizeof fx_out, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(send(fd, out, len, 0), (ssize_t)len);
}

/* A UDP Welcome carries a key, random and so different for each session;
 * a TCP Welcome none. */
static void test_udp_welcome_keys(void **state)
{
    (void)state;
    int a = fx_udp_socket(srv.port), b = fx_udp_socket(srv.port), t = fx_tcp_connect(srv.port);
    assert_true(a >= 0 && b >= 0 && t >= 0);
    sweep_message wa, wb, wt;
    memset(&wa, 0, sizeof wa);
    memset(&wb, 0, sizeof wb);
    assert_true(fx_udp_handshake_token(a, rx, NULL, &wa) != 0);
    assert_true(fx_udp_handshake_token(b, rx, NULL, &wb) != 0);
    assert_int_equal(wa.kind, SWEEP_MSG_WELCOME);
    assert_int_equal(wb.kind, SWEEP_MSG_WELCOME);
    assert_true(wa.as.welcome.udp_key != 0 && wb.as.welcome.udp_key != 0);
    assert_true(wa.as.welcome.udp_key != wb.as.welcome.udp_key);
    assert_true(wa.key == 0 && wb.key == 0); /* the server puts no key on what it sends */
    sweep_message h = fx_hello_msg("tcp-key");
    assert_int_equal(fx_send(t, &h), 0);
    assert_int_equal(fx_recv(t, rx, &wt), 1);
    assert_int_equal(wt.kind, SWEEP_MSG_WELCOME);
    assert_true(wt.as.welcome.udp_key == 0);
    /* Each key is its own session's: a's key from b's address is no key. */
    sweep_message p = fx_msg(SWEEP_MSG_PING, 5);
    send_forged(b, &p, wa.as.welcome.udp_key);
    assert_int_equal(fx_udp_recv(b, rx, NULL, 400), 0);
    assert_true(fx_udp_send(b, &p) > 0);
    sweep_message r;
    assert_true(fx_udp_recv(b, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    /* Nor does a MoveResult, the answer the server makes most. */
    sweep_message sp = fx_spawn_msg(6, sweep_v3(0, 0, 2), sweep_v3(0.4, 0.4, 0.9));
    assert_true(fx_udp_send(b, &sp) > 0);
    assert_true(fx_udp_recv(b, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_SPAWNED);
    assert_true(r.key == 0);
    sweep_message mv = fx_move_msg(r.as.spawned.entity, 7, sweep_v3(1, 0, 0), 1.0 / 60.0);
    assert_true(fx_udp_send(b, &mv) > 0);
    assert_true(fx_udp_recv(b, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
    assert_true(r.key == 0);
    close(a);
    close(b);
    close(t);
}

/* Datagrams from a session's address without its key (a forged Bye, a
 * forged WatchWorld that would stream WorldStates at the client, junk, a
 * wrong key) change nothing: the session stays, is sent nothing it did not
 * ask for, and is not kept alive by them, so it idles out at
 * --udp-idle-timeout however long the forger goes on. The client, with
 * its key, is served throughout. */
static void test_udp_forged_datagrams_change_nothing(void **state)
{
    (void)state;
    fx_server own;
    const char *args[] = {"--udp-idle-timeout", "0.8", NULL};
    assert_int_equal(fx_start(&own, args), 0);
    int fd = fx_udp_socket(own.port);
    assert_true(fd >= 0);
    sweep_message w, r;
    assert_true(fx_udp_handshake_token(fd, rx, NULL, &w) != 0);
    uint64_t key = w.as.welcome.udp_key;
    assert_true(key != 0);

    sweep_message bye = fx_msg(SWEEP_MSG_BYE, 0), watch = fx_msg(SWEEP_MSG_WATCH_WORLD, 3);
    watch.as.watch_world.every = 1;
    sweep_message ping = fx_msg(SWEEP_MSG_PING, 4);
    for (int round = 0; round < 2; round++) {
        uint64_t forged = round == 0 ? 0 : key ^ 1;
        send_forged(fd, &watch, forged);
        send_forged(fd, &bye, forged);
        send_forged(fd, &ping, forged);
        assert_int_equal(send(fd, "x", 1, 0), 1);
    }
    /* Nothing came of them: no WorldState, no Pong, no Error. */
    assert_int_equal(fx_udp_recv(fd, rx, NULL, 500), 0);
    /* The session is still there, and its client is answered. */
    ping.sequence = 9;
    assert_true(fx_udp_send(fd, &ping) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, 9);

    /* The client falls silent; the forger goes on. */
    uint64_t quiet = fx_now_ms(), ended = 0;
    while (fx_now_ms() - quiet < 3000 && !ended) {
        send_forged(fd, &ping, 0);
        send_forged(fd, &watch, key + 1);
        assert_int_equal(send(fd, "x", 1, 0), 1);
        if (fx_udp_recv(fd, rx, &r, 100) > 0) {
            assert_int_equal(r.kind, SWEEP_MSG_BYE); /* and nothing else before it */
            char reason[64];
            snprintf(reason, sizeof reason, "%.*s", (int)r.as.bye.reason.len, r.as.bye.reason.ptr);
            assert_string_equal(reason, "idle timeout");
            ended = fx_now_ms();
        }
    }
    assert_true(ended >= quiet + 700 && ended < quiet + 2500);
    close(fd);
    assert_int_equal(fx_stop(&own), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_hello_welcome),
        cmocka_unit_test(test_tcp_hello_refusals),
        cmocka_unit_test(test_udp_handshake),
        cmocka_unit_test(test_udp_unverified_gets_nothing_bigger),
        cmocka_unit_test(test_udp_cookies_unique),
        cmocka_unit_test(test_udp_repeated_hello_same_session),
        cmocka_unit_test(test_udp_reused_port_new_session),
        cmocka_unit_test(test_udp_cookieless_hello_challenged),
        cmocka_unit_test(test_udp_bad_cookie_leaves_session),
        cmocka_unit_test(test_udp_waiting_datagrams_read_together),
        cmocka_unit_test(test_udp_burst_waits_its_turn),
        cmocka_unit_test(test_udp_share_grows_with_entities),
        cmocka_unit_test(test_udp_welcome_keys),
        cmocka_unit_test(test_udp_forged_datagrams_change_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
