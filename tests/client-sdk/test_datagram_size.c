/*
 * test_datagram_size.c - libsweep's side of the UDP datagram size agreed
 * in the handshake (sweep_client_options.udp_max_datagram), against real
 * sweepd processes on 127.0.0.1.
 *
 * A client asking 60,000 bytes of a sweepd that allows 60,000 gets them,
 * cuts a batch to the Welcome's max_batch (hundreds of moves, one
 * datagram each way per few hundred), and has every move answered once,
 * in a handful of datagrams; of a sweepd left at its default it gets
 * 1,200 and the old batch size; a client asking nothing gets 1,200 of
 * either; and a size outside 1,200 to 65,507 is refused before anything
 * is sent.
 */
#include "tests/sweepd_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"

#define TOKEN "datagram-test-token"
#define WIDE 60000u

static fx_server wide, plain;

static int setup(void **state)
{
    (void)state;
    const char *w[] = {"--command-token", TOKEN, "--udp-max-datagram", "60000", "--max-batch", "1024",
                       "--rate-limit", "0", NULL};
    const char *p[] = {"--command-token", TOKEN, "--max-batch", "1024", NULL};
    if (fx_start(&wide, w) != 0)
        return -1;
    return fx_start(&plain, p);
}

static int teardown(void **state)
{
    (void)state;
    int a = fx_stop(&wide), b = fx_stop(&plain);
    return a == 0 && b == 0 ? 0 : -1;
}

static sweep_client_status connect_asking(const fx_server *d, uint32_t asked, sweep_client **c, sweep_client_error *e)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = SWEEP_CLIENT_UDP;
    o.address = d->udp;
    o.client_name = "test_datagram_size";
    o.auth_token = TOKEN;
    o.timeout_ms = 20000;
    o.udp_max_datagram = asked;
    return sweep_client_connect(&o, c, e);
}

static sweep_client *connected(const fx_server *d, uint32_t asked)
{
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_client_status s = connect_asking(d, asked, &c, &e);
    if (s != SWEEP_CLIENT_OK)
        fail_msg("connect %s: %s: %s", d->udp, sweep_client_error_name(&e), e.message);
    return c;
}

static void agrees_with_each_server(void **state)
{
    (void)state;
    sweep_client *c = connected(&wide, WIDE);
    assert_int_equal(sweep_client_get_welcome(c)->max_frame_size, WIDE);
    assert_int_equal(sweep_client_max_batch(c), sweep_udp_max_batch_claimed_in(WIDE));
    sweep_client_close(c);
    /* Asking more than the server allows: the server's. */
    c = connected(&wide, 65507);
    assert_int_equal(sweep_client_get_welcome(c)->max_frame_size, WIDE);
    sweep_client_close(c);
    /* A server at its default, or a client asking nothing: 1,200. */
    c = connected(&plain, WIDE);
    assert_int_equal(sweep_client_get_welcome(c)->max_frame_size, SWEEP_UDP_MAX_DATAGRAM);
    assert_int_equal(sweep_client_max_batch(c), sweep_udp_max_batch_claimed());
    sweep_client_close(c);
    c = connected(&wide, 0);
    assert_int_equal(sweep_client_get_welcome(c)->max_frame_size, SWEEP_UDP_MAX_DATAGRAM);
    assert_int_equal(sweep_client_max_batch(c), sweep_udp_max_batch_claimed());
    sweep_client_close(c);
}

static void refuses_sizes_out_of_range(void **state)
{
    (void)state;
    uint32_t bad[] = {1199, 65508, 100};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sweep_client *c = NULL;
        sweep_client_error e;
        assert_int_equal(connect_asking(&wide, bad[i], &c, &e), SWEEP_CLIENT_E_ARG);
        assert_null(c);
        char text[120];
        snprintf(text, sizeof text, "udp_max_datagram %u is outside 1200 to 65507 (0: 1200)", bad[i]);
        assert_string_equal(e.message, text);
    }
}

/* A batch of 2,000 moves: cut to the Welcome's max_batch, a few MoveBatch
 * datagrams out, a few answers back, every move answered once. */
static void large_batches_in_few_datagrams(void **state)
{
    (void)state;
    enum { ENTITIES = 50, MOVES = 2000 };
    sweep_client *c = connected(&wide, WIDE);
    sweep_client_error e;
    uint32_t per = sweep_client_max_batch(c);
    assert_true(per > 500 && per < MOVES);
    uint32_t entity[ENTITIES];
    for (int i = 0; i < ENTITIES; i++) {
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, sweep_v3(-10 + 0.2 * i, -7, 0.95), sweep_v3(0, 0, 0), &sp, &e),
                         SWEEP_CLIENT_OK);
        entity[i] = sp.entity;
    }
    static sweep_client_move_req m[MOVES];
    for (int i = 0; i < MOVES; i++)
        m[i] = (sweep_client_move_req){.entity = entity[i % ENTITIES], .velocity = sweep_v3(0, 1, 0),
                                       .dt = 1.0 / 600, .has_claimed_position = 1,
                                       .claimed_position = sweep_v3(0, 0, 1)};
    static uint32_t seq[MOVES];
    sweep_client_counters c0, c1;
    sweep_client_get_counters(c, &c0);
    assert_int_equal(sweep_client_send_batch(c, m, MOVES, seq, &e), SWEEP_CLIENT_OK);
    static int answered[MOVES];
    uint32_t next = 0;
    for (int got = 0; got < MOVES; got++) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_ERROR)
            fail_msg("%s: %s", sweep_client_error_name(&ev.as.error), ev.as.error.message);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        /* In the order sent: the batches' pieces came whole and in order. */
        while (next < MOVES && seq[next] != ev.as.move_result.sequence)
            next++;
        assert_true(next < MOVES);
        assert_int_equal(answered[next]++, 0);
        assert_int_equal(ev.as.move_result.entity, m[next].entity);
    }
    sweep_client_get_counters(c, &c1);
    uint32_t batches = (MOVES + per - 1) / per;
    assert_int_equal(c1.frames_sent - c0.frames_sent, batches);
    /* At 1,200 bytes a dozen moves' results a datagram; here hundreds. */
    assert_true(c1.frames_received - c0.frames_received < MOVES / 100);
    assert_int_equal(c1.datagrams_dropped, c0.datagrams_dropped);
    sweep_client_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agrees_with_each_server),
        cmocka_unit_test(refuses_sizes_out_of_range),
        cmocka_unit_test(large_batches_in_few_datagrams),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
