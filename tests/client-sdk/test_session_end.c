/*
 * test_session_end.c - how a session's end reaches libsweep, against real
 * sweepd processes on the sample arena, one a test: the server's Bye (its
 * idle timeout, its shutdown) is handed out as an event, then every call
 * fails CLOSED with the Bye's reason, over UDP as over TCP (where the
 * server also closes the connection), whether the program was polling or
 * in a blocking call; over UDP, once the server is gone, the refusal its
 * closed port sends back does not hide the Bye it sent before going; and a
 * Bye before the Welcome, an earlier session's, ends nothing.
 */
#include "tests/sweepd_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "protocol/encode.h"
#include "tests/client-sdk/fake_server.h"

static sweep_client *connect_to(const fx_server *d, sweep_client_transport t)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? d->tcp : d->udp;
    o.client_name = "test_session_end";
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_client_status s = sweep_client_connect(&o, &c, &e);
    if (s != SWEEP_CLIENT_OK)
        fail_msg("connect %s: %s: %s", o.address, sweep_client_error_name(&e), e.message);
    return c;
}

static uint32_t spawned(sweep_client *c)
{
    sweep_msg_spawned sp;
    sweep_client_error e;
    if (sweep_client_spawn_player(c, 0, &sp, &e) != SWEEP_CLIENT_OK)
        fail_msg("spawn: %s: %s", sweep_client_error_name(&e), e.message);
    return sp.entity;
}

/* The next event within 10 s must be the Bye, saying why. */
static void expect_bye(sweep_client *c, const char *reason)
{
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s = sweep_client_poll(c, 10000, &ev, &e);
    if (s != SWEEP_CLIENT_OK)
        fail_msg("no Bye (\"%s\") but %s: %s", reason, sweep_client_error_name(&e), e.message);
    assert_int_equal(ev.kind, SWEEP_CLIENT_EV_BYE);
    assert_string_equal(ev.as.error.message, reason);
}

/* Every call on a client whose session ended fails CLOSED, at once, and
 * says the Bye's reason. */
static void expect_closed(sweep_client *c, uint32_t entity, const char *reason)
{
    sweep_client_event ev;
    sweep_client_error e;
    char says[128];
    snprintf(says, sizeof says, "the server said Bye: %s", reason);
    uint64_t t0 = fx_now_ms();
    assert_int_equal(sweep_client_pending(c), 0);
    assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_CLOSED);
    assert_string_equal(e.message, says);
    assert_int_equal(sweep_client_poll(c, 5000, &ev, &e), SWEEP_CLIENT_E_CLOSED);
    sweep_msg_move_result r;
    assert_int_equal(sweep_client_move(c, entity, sweep_v3(1, 0, 0), 1.0 / 60, &r, &e), SWEEP_CLIENT_E_CLOSED);
    assert_string_equal(e.message, says);
    assert_int_equal(sweep_client_ping(c, NULL, &e), SWEEP_CLIENT_E_CLOSED);
    sweep_client_move_req m = {.entity = entity, .dt = 1.0 / 60};
    assert_int_equal(sweep_client_send_move(c, &m, NULL, &e), SWEEP_CLIENT_E_CLOSED);
    assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_E_CLOSED);
    assert_true(fx_now_ms() - t0 < 5000); /* none of them waited */
    int ms;
    assert_int_equal(sweep_client_poll_events(c, &ms), 0);
}

/* The server ends a silent session with Bye "idle timeout". Over UDP the
 * client stayed ready: the next poll timed out, a move came back SERVER
 * (NotWelcomed: no session) and a ping timed out. Over TCP the calls said
 * CLOSED only once the server had closed the connection too. */
static void a_bye_ends_the_session(void **state)
{
    (void)state;
    fx_server d;
    const char *args[] = {"--udp-idle-timeout", "0.5", "--idle-timeout", "0.5", NULL};
    assert_int_equal(fx_start(&d, args), 0);
    for (int t = 0; t < 2; t++) {
        /* Polling when the Bye comes. */
        sweep_client *c = connect_to(&d, (sweep_client_transport)t);
        uint32_t entity = spawned(c);
        expect_bye(c, "idle timeout");
        expect_closed(c, entity, "idle timeout");
        sweep_client_close(c);
        /* In a blocking call when it comes: the call says CLOSED, and the
         * Bye it read is handed out after. */
        c = connect_to(&d, (sweep_client_transport)t);
        entity = spawned(c);
        usleep(1500000);
        sweep_msg_move_result r;
        sweep_client_error e;
        assert_int_equal(sweep_client_move(c, entity, sweep_v3(1, 0, 0), 1.0 / 60, &r, &e), SWEEP_CLIENT_E_CLOSED);
        expect_bye(c, "idle timeout");
        expect_closed(c, entity, "idle timeout");
        sweep_client_close(c);
    }
    assert_int_equal(fx_stop(&d), 0);
}

/* The server says Bye "server shutting down" and its port closes; the
 * client's next datagram there brings back a refusal (an ICMP port
 * unreachable), which Linux reports ahead of the datagrams still queued.
 * The client ended CONNECT ("nobody listening") on it, the Bye unread,
 * whether a poll's read met the refusal or a send did. */
static void the_bye_comes_before_the_refusal(void **state)
{
    (void)state;
    for (int by_send = 0; by_send < 2; by_send++) {
        fx_server d;
        assert_int_equal(fx_start(&d, NULL), 0);
        sweep_client *c = connect_to(&d, SWEEP_CLIENT_UDP);
        uint32_t entity = spawned(c);
        assert_int_equal(fx_stop(&d), 0);
        sweep_client_move_req m = {.entity = entity, .dt = 1.0 / 60};
        sweep_client_error e;
        assert_int_equal(sweep_client_send_move(c, &m, NULL, &e), SWEEP_CLIENT_OK);
        /* The refusal is there once the socket reports an error. */
        struct pollfd p = {.fd = sweep_client_fd(c), .events = POLLIN};
        for (int i = 0; i < 200 && (poll(&p, 1, 10) < 1 || !(p.revents & POLLERR)); i++)
            ;
        assert_true(p.revents & POLLERR);
        if (by_send) {
            sweep_client_status s = sweep_client_send_move(c, &m, NULL, &e);
            if (s != SWEEP_CLIENT_E_CLOSED)
                fail_msg("send after the refusal: %s: %s", sweep_client_error_name(&e), e.message);
            assert_string_equal(e.message, "the server said Bye: server shutting down");
        }
        expect_bye(c, "server shutting down");
        expect_closed(c, entity, "server shutting down");
        sweep_client_close(c);
    }
}

/* Without a Bye (the server killed), the refusal ends the client as
 * before: CONNECT, nobody listening, after nothing. */
static void a_refusal_alone_still_ends_the_client(void **state)
{
    (void)state;
    fx_server d;
    assert_int_equal(fx_start(&d, NULL), 0);
    sweep_client *c = connect_to(&d, SWEEP_CLIENT_UDP);
    uint32_t entity = spawned(c);
    kill(d.pid, SIGKILL);
    waitpid(d.pid, NULL, 0);
    d.pid = 0; /* ended here: fx_wait only cleans up */
    fx_wait(&d);
    sweep_client_move_req m = {.entity = entity, .dt = 1.0 / 60};
    sweep_client_error e;
    assert_int_equal(sweep_client_send_move(c, &m, NULL, &e), SWEEP_CLIENT_OK);
    sweep_client_event ev;
    assert_int_equal(sweep_client_poll(c, 5000, &ev, &e), SWEEP_CLIENT_E_CONNECT);
    assert_non_null(strstr(e.message, "nobody listening"));
    assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_CONNECT);
    sweep_client_close(c);
}

/* Over UDP a Bye that comes before the Welcome is for an earlier session
 * of this address and port, which the handshake replaces (its idle
 * timeout came as a new client took the port): the handshake goes on,
 * and no Bye is handed out. The test answers as the server, step by
 * step. */
static void a_bye_before_the_welcome_is_not_ours(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(a.sin_port));
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = SWEEP_CLIENT_UDP;
    o.address = addr;
    o.timeout_ms = 5000;
    o.udp_retry_ms = 60000; /* one Hello of each round, no resend */
    sweep_client *c = NULL;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
    struct sockaddr_in from;
    sweep_message hello = fake_next_hello(fd, &from);
    sweep_message bye = {.kind = SWEEP_MSG_BYE};
    bye.as.bye.reason = sweep_str_of("idle timeout");
    for (int round = 0; round < 2; round++) {
        /* Before the Challenge and before the Welcome. */
        fake_answer(fd, &bye, &from);
        sweep_message reply = {.kind = SWEEP_MSG_CHALLENGE, .sequence = hello.sequence};
        if (round == 0)
            reply.as.challenge.cookie = (sweep_bytes){(const uint8_t *)"cookie01", 8};
        else
            reply = fake_welcome_msg(hello.sequence, 12, 1200);
        fake_answer(fd, &reply, &from);
        if (round == 0) {
            /* Stepped until the Hello with the cookie goes. */
            struct pollfd p = {.fd = fd, .events = POLLIN};
            for (int i = 0; i < 500 && poll(&p, 1, 10) == 0; i++)
                assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_E_AGAIN);
            hello = fake_next_hello(fd, &from);
            assert_non_null(hello.as.hello.cookie.ptr);
        }
    }
    sweep_client_status s = sweep_client_connect_step(c, 2000, &e);
    if (s != SWEEP_CLIENT_OK)
        fail_msg("connect: %s: %s", sweep_client_error_name(&e), e.message);
    assert_string_equal(sweep_client_get_welcome(c)->map_name, "fake");
    assert_int_equal(sweep_client_pending(c), 0);
    sweep_client_event ev;
    assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_TIMEOUT);
    sweep_client_counters cc;
    sweep_client_get_counters(c, &cc);
    assert_int_equal(cc.datagrams_dropped, 2);
    sweep_client_close(c);
    close(fd);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bye_ends_the_session),
        cmocka_unit_test(the_bye_comes_before_the_refusal),
        cmocka_unit_test(a_refusal_alone_still_ends_the_client),
        cmocka_unit_test(a_bye_before_the_welcome_is_not_ours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
