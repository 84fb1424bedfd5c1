/*
 * test_relay_example.c - the example game server (client-sdk/examples/
 * relay_server.c, built as $(BUILD)/examples/relay_server) against a real
 * sweepd on the arena, as its README section runs it: 100 honest players
 * spawned without waiting and relayed at 60 Hz for 10 s in batches, over
 * TCP and over UDP, each move predicted and claimed, every entity watched.
 * Every move must be answered, none refused, no claim corrected, no rule
 * named (in the answers and in the server's rule counters) and no
 * prediction differ; the server's own Stats must count exactly the moves
 * the example says it sent; every tick's round trip measured, and each
 * push holding the whole world. Then what it does when sweepd refuses it:
 * more players than a session may own, and no server-role token.
 */
#include "tests/sweepd_fixture.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"

#define TOKEN "relay-example-token"

static fx_server D;
static char RELAY[4096], ARENA[4096];

static int setup(void **state)
{
    (void)state;
    fx_build("examples/relay_server", RELAY, sizeof RELAY);
    fx_build("maps/arena.db", ARENA, sizeof ARENA);
    /* The game server's own cap (--max-entities-server) at 128 lets a run
     * ask for 130 and be refused. Its players move by the player rules
     * (Spawn.player), paid from time banks the ticks fill: a bank of 2 s
     * rather than 0.25 keeps a scheduler stall of the relay, which shares
     * two loaded cores with sweepd and the other tests, from cutting an
     * honest player (a cut is what a lag switch gets). */
    const char *args[] = {"--command-token", TOKEN, "--max-entities-server", "128", "--time-bank", "2", NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

/* The server's Stats, through a session of its own. */
static sweep_msg_stats server_stats(void)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = D.tcp;
    o.auth_token = TOKEN;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
    sweep_msg_stats st;
    assert_int_equal(sweep_client_get_stats(c, &st, &e), SWEEP_CLIENT_OK);
    sweep_client_close(c);
    return st;
}

/* Where the value of `key=` in the summary line begins, or fails. */
static const char *value_of(const char *line, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, " %s=", key);
    const char *at = strstr(line, k);
    if (at == NULL)
        fail_msg("no %s in: %s", key, line);
    return at + strlen(k);
}

static uint64_t field(const char *line, const char *key)
{
    return strtoull(value_of(line, key), NULL, 10);
}

static double field_f(const char *line, const char *key)
{
    return strtod(value_of(line, key), NULL);
}

/* Runs the example with `extra` options; its output in *out, the status returned. */
static int run_relay(const char *address, const char *extra, char **out)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "SWEEP_TOKEN=%s '%s' --connect %s --timeout-ms 20000 %s", TOKEN, RELAY, address,
             extra);
    return fx_run(cmd, out);
}

/* Runs the example with 100 players for `duration` seconds; with_map: each
 * move predicted and claimed, and every entity watched (--watch 1) after a
 * second of warmup. */
static void relays(int udp, int with_map, const char *duration)
{
    sweep_msg_stats before = server_stats();
    char extra[4600], *out = NULL;
    snprintf(extra, sizeof extra, "--entities 100 --duration %s %s%s%s %s", duration,
             with_map ? "--watch 1 --warmup 1 --map '" : "", with_map ? ARENA : "", with_map ? "'" : "",
             udp ? "--udp" : "");
    int rc = run_relay(udp ? D.udp : D.tcp, extra, &out);
    assert_non_null(out);
    const char *line = strstr(out, "relay transport=");
    if (rc != 0 || line == NULL)
        fail_msg("relay_server exited %d:\n%s", rc, out);
    assert_non_null(strstr(line, udp ? "transport=udp" : "transport=tcp"));
    assert_int_equal(field(line, "entities"), 100);
    uint64_t ticks = field(line, "ticks"), sent = field(line, "moves_sent");
    assert_true(ticks > 0);
    assert_int_equal(sent, 100 * ticks); /* a move of every player, every tick */
    assert_int_equal(field(line, "answered"), sent);
    assert_int_equal(field(line, "errors"), 0);
    assert_int_equal(field(line, "lost"), 0);
    assert_int_equal(field(line, "corrections"), 0);
    assert_int_equal(field(line, "ruled"), 0);
    /* Every tick's last answer came: a round trip each, the ones of the
     * warmup left out. */
    assert_int_equal(field(line, "unfinished_ticks"), 0);
    uint64_t measured = field(line, "rtt_ticks");
    assert_true(measured > 0 && (with_map ? measured < ticks : measured == ticks));
    double p50 = field_f(line, "tick_rtt_p50_us"), p99 = field_f(line, "tick_rtt_p99_us");
    assert_true(p50 > 0 && p50 <= p99 && p99 <= field_f(line, "tick_rtt_max_us"));
    if (with_map) {
        assert_int_equal(field(line, "mismatches"), 0);
        /* sweepd's own ticks pushed the world: all 100 entities a tick
         * (over UDP in datagrams of a dozen, which may be lost, as any
         * push may), each of them 96 bytes and more on the wire. */
        uint64_t watched = field(line, "watch_ticks");
        assert_true(watched > measured / 2);
        double per_tick = field_f(line, "watch_entities_per_tick");
        if (udp)
            assert_true(per_tick > 0 && per_tick <= 100);
        else
            assert_true(per_tick == 100);
        assert_true(field_f(line, "watch_bytes_per_tick") > 96 * per_tick);
    } else {
        assert_null(strstr(line, "mismatches="));
        assert_null(strstr(line, "watch_ticks="));
    }
    /* The server applied exactly those, refused nothing, and no rule of
     * its acted on them. */
    sweep_msg_stats after = server_stats();
    assert_int_equal(after.moves_total - before.moves_total, sent);
    assert_int_equal(after.errors_total, before.errors_total);
    assert_int_equal(after.rules_total_count, before.rules_total_count);
    assert_true(after.rules_total_count >= SWEEP_WIRE_RULE_COUNT);
    for (uint32_t k = 0; k < after.rules_total_count; k++)
        if (after.rules_total[k] != before.rules_total[k])
            fail_msg("rule %u acted %" PRIu64 " times", k, after.rules_total[k] - before.rules_total[k]);
    free(out);
}

static void relays_a_hundred_players_over_tcp(void **state)
{
    (void)state;
    relays(0, 1, "10");
}

static void relays_a_hundred_players_over_udp(void **state)
{
    (void)state;
    relays(1, 1, "10");
}

static void relays_without_predicting(void **state)
{
    (void)state;
    relays(0, 0, "1");
    relays(1, 0, "1");
}

/* Asking for larger datagrams of a sweepd at its default (1200): the
 * session agrees 1200, and the line says so and what a tick took. */
static void says_the_datagram_agreed(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run_relay(D.udp, "--entities 100 --duration 1 --udp --udp-max-datagram 60000", &out);
    assert_non_null(out);
    const char *line = strstr(out, "relay transport=");
    if (rc != 0 || line == NULL)
        fail_msg("relay_server exited %d:\n%s", rc, out);
    assert_int_equal(field(line, "datagram"), SWEEP_UDP_MAX_DATAGRAM);
    assert_int_equal(field(line, "max_batch"), sweep_udp_max_batch_claimed());
    /* 100 moves a tick, cut to max_batch: that many MoveBatch datagrams. */
    uint32_t per = sweep_udp_max_batch_claimed();
    assert_true(field_f(line, "frames_sent_per_tick") >= (100 + per - 1) / per);
    free(out);
    /* A size out of range: libsweep's refusal, named. */
    rc = run_relay(D.udp, "--entities 1 --duration 1 --udp --udp-max-datagram 70000", &out);
    assert_true(rc != 0);
    assert_non_null(strstr(out, "udp_max_datagram 70000 is outside 1200 to 65507"));
    free(out);
}

static void says_what_sweepd_refused(void **state)
{
    (void)state;
    char *out = NULL;
    /* More players than the session may own: the Spawns past the cap are
     * refused, named, and the run fails. */
    assert_int_equal(run_relay(D.tcp, "--entities 130 --duration 1", &out), 1);
    assert_non_null(strstr(out, "TooManyEntities"));
    assert_null(strstr(out, "relay transport="));
    free(out);
    /* Not the server role: a guest may not place players. */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' --connect %s --udp --duration 1", RELAY, D.udp);
    assert_int_equal(fx_run(cmd, &out), 1);
    assert_non_null(strstr(out, "--command-token"));
    free(out);
    /* A bad command line. */
    snprintf(cmd, sizeof cmd, "'%s' --connect %s --entities 0", RELAY, D.tcp);
    assert_int_equal(fx_run(cmd, &out), 2);
    free(out);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relays_a_hundred_players_over_tcp),
        cmocka_unit_test(relays_a_hundred_players_over_udp),
        cmocka_unit_test(relays_without_predicting),
        cmocka_unit_test(says_the_datagram_agreed),
        cmocka_unit_test(says_what_sweepd_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
