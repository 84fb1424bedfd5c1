/*
 * test_queries.c - libsweep's Query against a real sweepd on the arena,
 * over TCP and UDP: a game server (the command token) moves a target
 * entity, and a player's shot at the tick the target stood somewhere hits
 * it there, lag-compensated, while the same shot now misses; a player's
 * look back past the rewind cap is refused by name where the server
 * role's is answered. Over UDP an answer too large for one datagram is
 * gathered whole and in order (QueryResult.first), equal bit for bit to
 * the TCP answer; the call that does not wait hands the answer out as
 * events. `sweep query` prints each answer, text and JSON, exiting 1 when
 * one was refused. A malformed Query (a vector of ignored ids running past
 * the buffer) gets an Error naming the verifier's finding, and the
 * connection goes on.
 *
 * sweepd runs with --rewind-cap-ms 1000 and --history-ms 3000, so that a
 * loaded machine's delays between the steps stay inside both.
 */
#include "tests/sweepd_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "client-sdk/client.h"

static fx_server D;
static char SWEEP[4096];

static int setup(void **state)
{
    (void)state;
    fx_build("bin/sweep", SWEEP, sizeof SWEEP);
    const char *args[] = {FX_SERVER_ARGS, "--rewind-cap-ms", "1000", "--history-ms", "3000", NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

static sweep_client *connect_as(sweep_client_transport t, const char *token)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.auth_token = token;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK)
        fail_msg("connect %s: %s: %s", o.address, sweep_client_error_name(&e), e.message);
    return c;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Teleports e to p; the tick the world was at (its next frame holds p). */
static uint64_t teleport(sweep_client *game, uint32_t e, sweep_vec3 p)
{
    sweep_msg_entity_command c = {.entity = e, .op = SWEEP_WIRE_OP_TELEPORT, .vector = p};
    sweep_msg_entity_command_result r;
    sweep_client_error err;
    assert_int_equal(sweep_client_entity_commands(game, &c, 1, &r, &err), SWEEP_CLIENT_OK);
    assert_int_equal(r.code, SWEEP_WIRE_NONE);
    sweep_wire_entity_state st;
    uint64_t tick = 0;
    assert_int_equal(sweep_client_get_entity(game, e, &st, &tick, &err), SWEEP_CLIENT_OK);
    return tick;
}

/* A shot across the target's line (y from -12 to -2) at x, chest high. */
static sweep_msg_query_item shot(double x, uint64_t tick, double fraction)
{
    sweep_msg_query_item q;
    memset(&q, 0, sizeof q);
    q.kind = SWEEP_WIRE_QUERY_RAY;
    q.from = sweep_v3(x, -12.0, 1.0);
    q.to = sweep_v3(x, -2.0, 1.0);
    q.filter = 4; /* entities only: other tests' entities aside, only the target is on the line */
    q.tick = tick;
    q.fraction = fraction;
    return q;
}

static void lag_compensated_shot(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client_transport tr = t ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
        sweep_client *game = connect_as(tr, FX_TOKEN), *player = connect_as(tr, NULL);
        sweep_msg_spawned sp;
        sweep_client_error e;
        double y = -6.0 - 2.0 * t; /* each transport its own line */
        assert_int_equal(sweep_client_spawn(game, sweep_v3(-4, y, 1), sweep_v3(0, 0, 0), &sp, &e), SWEEP_CLIENT_OK);
        uint32_t target = sp.entity;
        uint64_t t0 = teleport(game, target, sweep_v3(3, y, 1));
        sleep_ms(100);
        teleport(game, target, sweep_v3(8, y, 1));
        sleep_ms(50);
        /* Where it stood at t0 + 1: hit there, on its near side. */
        sweep_msg_query_item q[3] = {shot(3.0, t0 + 1, 0.0), shot(3.0, 0, 0.0), shot(8.0, 0, 0.0)};
        sweep_msg_query_answer a[3];
        assert_int_equal(sweep_client_query(player, q, 3, a, &e), SWEEP_CLIENT_OK);
        for (int i = 0; i < 3; i++)
            if (a[i].code != SWEEP_WIRE_NONE)
                fail_msg("item %d: %s: %s", i, sweep_wire_code_name(a[i].code), a[i].message.ptr);
        assert_int_equal(a[0].tick, t0 + 1);
        assert_int_equal(a[0].hit_count, 1);
        assert_int_equal(a[0].hits[0].entity, target);
        assert_int_equal(a[0].hits[0].kind, 3);
        assert_true(fabs(a[0].hits[0].point.x - 3.0) < 1e-9);
        assert_true(fabs(a[0].hits[0].point.y - (y - 0.4)) < 1e-9);
        /* Now it is at x = 8: the same shot misses, one there hits. */
        assert_true(a[1].tick > t0 + 1);
        assert_int_equal(a[1].hit_count, 0);
        assert_int_equal(a[2].hit_count, 1);
        assert_int_equal(a[2].hits[0].entity, target);
        /* Past the player's cap (60 ticks at 60 Hz) TooOld by name; the
         * server role is answered. */
        uint64_t newest = a[1].tick;
        if (newest > 100) {
            sweep_msg_query_item old = shot(0.0, newest - 90, 0.5);
            assert_int_equal(sweep_client_query(player, &old, 1, a, &e), SWEEP_CLIENT_OK);
            assert_int_equal(a[0].code, SWEEP_WIRE_TOO_OLD);
            assert_non_null(strstr(a[0].message.ptr, "rewind cap"));
            assert_int_equal(sweep_client_query(game, &old, 1, a, &e), SWEEP_CLIENT_OK);
            assert_int_equal(a[0].code, SWEEP_WIRE_NONE);
        }
        /* After the newest tick: InFuture. */
        sweep_msg_query_item future = shot(0.0, newest + 100000, 0.0);
        assert_int_equal(sweep_client_query(player, &future, 1, a, &e), SWEEP_CLIENT_OK);
        assert_int_equal(a[0].code, SWEEP_WIRE_IN_FUTURE);
        /* Nothing to ask, nowhere to answer: refused here. */
        assert_int_equal(sweep_client_query(player, q, 0, a, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_query(player, NULL, 1, a, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_query(player, q, 1, NULL, &e), SWEEP_CLIENT_E_ARG);
        sweep_client_close(player);
        sweep_client_close(game);
    }
}

/* RayAll along the arena's length at a fixed past tick, n of them: the
 * same answers over both transports, UDP's in several datagrams. */
static void udp_answer_gathered_equal_to_tcp(void **state)
{
    (void)state;
    sweep_client *tcp = connect_as(SWEEP_CLIENT_TCP, FX_TOKEN), *udp = connect_as(SWEEP_CLIENT_UDP, FX_TOKEN);
    sweep_msg_query_item probe = shot(0.0, 0, 0.0);
    sweep_msg_query_answer a;
    sweep_client_error e;
    /* A tick both sessions' world has (each request catches the world up
     * to the clock first). */
    assert_int_equal(sweep_client_query(udp, &probe, 1, &a, &e), SWEEP_CLIENT_OK);
    uint64_t at = a.tick;
    assert_int_equal(sweep_client_query(tcp, &probe, 1, &a, &e), SWEEP_CLIENT_OK);
    at = (a.tick < at ? a.tick : at) - 5;
    uint32_t n = sweep_client_max_batch(udp);
    assert_true(n >= 8);
    sweep_msg_query_item *q = calloc(n, sizeof *q);
    sweep_msg_query_answer *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y);
    sweep_wire_query_hit *keep = calloc((size_t)n * SWEEP_WIRE_QUERY_HITS_MAX, sizeof *keep);
    for (uint32_t i = 0; i < n; i++) {
        q[i].kind = SWEEP_WIRE_QUERY_RAY_ALL;
        q[i].from = sweep_v3(-0.5 + 0.01 * i, -40, 0.5);
        q[i].to = sweep_v3(-0.5 + 0.01 * i, 40, 0.5);
        q[i].filter = 1 | 8; /* the level, both sides of its walls */
        q[i].tick = at;
    }
    assert_int_equal(sweep_client_query(tcp, q, n, x, &e), SWEEP_CLIENT_OK);
    /* The TCP answers' hits live until the next receiving call: keep them. */
    for (uint32_t i = 0; i < n; i++) {
        memcpy(keep + i * SWEEP_WIRE_QUERY_HITS_MAX, x[i].hits, x[i].hit_count * sizeof *keep);
        x[i].hits = keep + i * SWEEP_WIRE_QUERY_HITS_MAX;
    }
    sweep_client_counters before, after;
    sweep_client_get_counters(udp, &before);
    assert_int_equal(sweep_client_query(udp, q, n, y, &e), SWEEP_CLIENT_OK);
    sweep_client_get_counters(udp, &after);
    for (uint32_t i = 0; i < n; i++)
        if (y[i].code != SWEEP_WIRE_NONE || x[i].code != SWEEP_WIRE_NONE)
            fail_msg("dropped %llu resends %llu dup %llu frames %llu; answer %u: %s %s / %s %s",
                     (unsigned long long)(after.datagrams_dropped - before.datagrams_dropped),
                     (unsigned long long)(after.resends - before.resends),
                     (unsigned long long)(after.duplicates - before.duplicates),
                     (unsigned long long)(after.frames_received - before.frames_received), i, sweep_wire_code_name(x[i].code), x[i].message.ptr ? x[i].message.ptr : "",
                     sweep_wire_code_name(y[i].code), y[i].message.ptr ? y[i].message.ptr : "");
    if (after.frames_received - before.frames_received < 2)
        fail_msg("%llu datagrams for %u answers (%llu bytes)", (unsigned long long)(after.frames_received - before.frames_received), n, (unsigned long long)(after.bytes_received - before.bytes_received));
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(x[i].code, SWEEP_WIRE_NONE);
        assert_int_equal(y[i].code, SWEEP_WIRE_NONE);
        assert_int_equal(x[i].tick, at);
        assert_true(x[i].hit_count >= 4);
        assert_int_equal(y[i].hit_count, x[i].hit_count);
        assert_memory_equal(y[i].hits, x[i].hits, x[i].hit_count * sizeof *x[i].hits);
    }
    /* Without waiting: events, their runs placed by first. */
    uint32_t seq = 0, got = 0;
    assert_int_equal(sweep_client_send_query(udp, q, n, &seq, &e), SWEEP_CLIENT_OK);
    while (got < n) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(udp, 5000, &ev, &e), SWEEP_CLIENT_OK);
        if (ev.kind != SWEEP_CLIENT_EV_QUERY_RESULTS)
            continue;
        assert_int_equal(ev.sequence, seq);
        assert_int_equal(ev.as.query_results.first, got);
        for (uint32_t k = 0; k < ev.as.query_results.count; k++)
            assert_memory_equal(ev.as.query_results.answers[k].hits, x[got + k].hits,
                                x[got + k].hit_count * sizeof *x[got + k].hits);
        got += ev.as.query_results.count;
    }
    assert_int_equal(sweep_client_send_query(udp, q, n + 1, NULL, &e), SWEEP_CLIENT_E_ARG);
    free(q);
    free(x);
    free(y);
    free(keep);
    sweep_client_close(tcp);
    sweep_client_close(udp);
}

/* Runs `sweep ARGS`: its exit status, and its output in *out. */
#define sweep(out, ...) fx_run_program(SWEEP, out, __VA_ARGS__)

static void cli(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(sweep(&out, "--help"), 0);
    assert_non_null(strstr(out, "query ITEM"));
    free(out);
    assert_int_equal(sweep(&out, "query --connect %s", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "query --connect %s shoot 0,0,0 1,1,1", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "query --connect %s --at 5+1.5 ray 0,0,0 1,1,1", D.tcp), 2);
    free(out);
    /* A negative tick is not the largest one (strtoull's wrap). */
    assert_int_equal(sweep(&out, "query --connect %s --at -1 ray 0,0,0 1,1,1", D.tcp), 2);
    assert_non_null(strstr(out, "--at wants TICK"));
    free(out);
    for (int t = 0; t < 2; t++) {
        const char *addr = t ? D.udp : D.tcp, *udp = t ? "--udp" : "";
        assert_int_equal(sweep(&out, "query --connect %s %s ray 0,0,1 0,0,-5 los 0,0,1 5,0,1 overlap 30,0,1 0.5", addr,
                               udp),
                         0);
        assert_non_null(strstr(out, "item 0 kind=Ray result=None tick="));
        assert_non_null(strstr(out, "  hit level triangle="));
        assert_non_null(strstr(out, " distance=1 point=(0, 0, 0) normal=(0, 0, 1)"));
        assert_non_null(strstr(out, "item 1 kind=LineOfSight result=None"));
        assert_non_null(strstr(out, " clear=true hits=0"));
        assert_non_null(strstr(out, "item 2 kind=Overlap result=None"));
        free(out);
        assert_int_equal(sweep(&out, "query --connect %s %s --json --at 999999999+0.25 ray 0,0,1 0,0,-5", addr, udp), 1);
        assert_non_null(strstr(out, "{\"item\":0,\"kind\":\"Ray\",\"result\":\"InFuture\""));
        assert_non_null(strstr(out, "tick 999999999 + 0.25 is after the newest tick"));
        free(out);
    }
}

static void malformed_query_is_an_error(void **state)
{
    (void)state;
    fx_rx *rx = fx_rx_new();
    int fd = fx_tcp_connect(D.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    uint32_t marker = 0xabcdef12u;
    sweep_msg_query_item q;
    memset(&q, 0, sizeof q);
    q.kind = SWEEP_WIRE_QUERY_RAY;
    q.to = sweep_v3(0, 0, -5);
    q.from = sweep_v3(0, 0, 1);
    q.ignore = &marker;
    q.ignore_count = 1;
    sweep_message m = fx_msg(SWEEP_MSG_QUERY, 7);
    m.as.query.items = &q;
    m.as.query.count = 1;
    static uint8_t buf[4096];
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len), SWEEP_PROTO_OK);
    uint8_t bad[4096];
    memcpy(bad, out, len);
    size_t at = 0;
    for (size_t i = 8; i + 4 <= len; i++)
        if (memcmp(bad + i, &marker, 4) == 0)
            at = i;
    assert_true(at >= 4);
    /* The ignore vector's count, far past the buffer. */
    uint32_t huge = 0x10000000u;
    memcpy(bad + at - 4, &huge, 4);
    assert_int_equal(fx_write_all(fd, bad, len), 0);
    sweep_message got;
    assert_int_equal(fx_recv(fd, rx, &got), 1);
    assert_int_equal(got.kind, SWEEP_MSG_ERROR);
    assert_int_equal(got.as.error.code, SWEEP_WIRE_MALFORMED_BUFFER);
    assert_non_null(strstr(got.as.error.message.ptr, "refused by the verifier"));
    /* The connection is still there: the good Query is answered. */
    assert_int_equal(fx_write_all(fd, out, len), 0);
    assert_int_equal(fx_recv(fd, rx, &got), 1);
    assert_int_equal(got.kind, SWEEP_MSG_QUERY_RESULT);
    assert_int_equal(got.sequence, 7);
    assert_int_equal(got.as.query_result.count, 1);
    assert_int_equal(got.as.query_result.answers[0].code, SWEEP_WIRE_NONE);
    close(fd);
    free(rx);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lag_compensated_shot),
        cmocka_unit_test(udp_answer_gathered_equal_to_tcp),
        cmocka_unit_test(cli),
        cmocka_unit_test(malformed_query_is_an_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
