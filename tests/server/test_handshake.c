/*
 * test_handshake.c - sweepd's Hello/Welcome over TCP and the UDP challenge
 * cookie, against the real binary on 127.0.0.1.
 *
 * UDP rules checked here: a Hello without a cookie gets a Challenge no
 * larger than itself; a wrong cookie is refused (BadCookie, again no
 * larger than the Hello); a datagram that is not a Hello, or a Hello below
 * SWEEP_UDP_HELLO_MIN, from an address without a session gets no reply
 * larger than itself (in practice none).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "maps/content_hash.h"
#include "maps/loader.h"
#include "server_fixture.h"

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
    /* A Ping, a Move, a tiny Hello and garbage from an address without a session. */
    sweep_message p = fx_msg(SWEEP_MSG_PING, 1);
    ssize_t sent = fx_udp_send(fd, &p);
    assert_true(sent > 0);
    ssize_t got = fx_udp_recv(fd, rx, NULL, 500);
    assert_true(got <= sent);
    sweep_message mv = fx_move_msg(1, 1, sweep_v3(1, 0, 0), 0.016);
    sent = fx_udp_send(fd, &mv);
    got = fx_udp_recv(fd, rx, NULL, 500);
    assert_true(got <= sent);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_hello_welcome),
        cmocka_unit_test(test_tcp_hello_refusals),
        cmocka_unit_test(test_udp_handshake),
        cmocka_unit_test(test_udp_unverified_gets_nothing_bigger),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
