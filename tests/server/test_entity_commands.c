/*
 * test_entity_commands.c - EntityCommands against a real sweepd: a game
 * server session (the command token) teleports and despawns a player's
 * entity over TCP, the player hearing of the despawn unasked and its next
 * move starting where the teleport put it; a player is refused with
 * AuthFailed; over UDP a full message of commands whose results do not
 * fit one datagram comes back as several EntityCommandsResult of the
 * request's sequence, the results in order.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"

static fx_server srv;
static fx_rx *rx;

static int setup(void **state)
{
    (void)state;
    const char *args[] = {FX_SERVER_ARGS, NULL};
    rx = fx_rx_new();
    return fx_start(&srv, args);
}

static int teardown(void **state)
{
    (void)state;
    free(rx);
    return fx_stop(&srv);
}

static sweep_message commands_msg(uint32_t seq, const sweep_msg_entity_command *c, uint32_t n)
{
    sweep_message m = fx_msg(SWEEP_MSG_ENTITY_COMMANDS, seq);
    m.as.entity_commands.commands = c;
    m.as.entity_commands.count = n;
    return m;
}

static void over_tcp(void **state)
{
    (void)state;
    int player = fx_tcp_connect(srv.port), game = fx_tcp_connect(srv.port);
    assert_true(player >= 0 && game >= 0);
    assert_true(fx_hello(player, rx) != 0);
    assert_true(fx_hello_token(game, rx, FX_TOKEN) != 0);
    uint32_t e = fx_spawn(player, rx, 2, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(e != 0);

    /* A player may not. */
    sweep_msg_entity_command c[2] = {{.entity = e, .op = SWEEP_WIRE_OP_TELEPORT, .vector = {0, -6, 1}},
                                     {.entity = e, .op = SWEEP_WIRE_OP_SET_VELOCITY, .vector = {0, 0, 4}}};
    sweep_message m = commands_msg(3, c, 2);
    assert_int_equal(fx_expect_error(player, rx, &m, NULL), SWEEP_WIRE_AUTH_FAILED);

    /* The game server may, on the player's entity. */
    m = commands_msg(7, c, 2);
    assert_int_equal(fx_send(game, &m), 0);
    assert_int_equal(fx_recv(game, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_ENTITY_COMMANDS_RESULT);
    assert_int_equal(m.sequence, 7);
    const sweep_msg_entity_commands_result *er = &m.as.entity_commands_result;
    assert_int_equal(er->count, 2);
    assert_int_equal(er->results[0].code, SWEEP_WIRE_NONE);
    assert_int_equal(er->results[0].entity, e);
    assert_true(er->results[0].has_state);
    assert_true(er->results[0].position.x == 0 && er->results[0].position.y == -6 && er->results[0].position.z == 1);
    assert_int_equal(er->results[1].code, SWEEP_WIRE_NONE);
    assert_true(er->results[1].velocity.z == 4);

    /* The player's next move starts there and says so. */
    m = fx_move_msg(e, 4, sweep_v3(0, 0, 0), 1.0 / 60.0);
    assert_int_equal(fx_send(player, &m), 0);
    assert_int_equal(fx_recv(player, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
    assert_true(m.as.move_result.has_start_position);
    assert_true(m.as.move_result.start_position.y == -6 && m.as.move_result.start_position.z == 1);
    assert_true(m.as.move_result.position.z > 1); /* the upward velocity it was given */

    /* A despawn: the owner is told, unasked. */
    sweep_msg_entity_command d = {.entity = e, .op = SWEEP_WIRE_OP_DESPAWN};
    m = commands_msg(8, &d, 1);
    assert_int_equal(fx_send(game, &m), 0);
    assert_int_equal(fx_recv(game, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_ENTITY_COMMANDS_RESULT);
    assert_int_equal(m.as.entity_commands_result.results[0].code, SWEEP_WIRE_NONE);
    assert_false(m.as.entity_commands_result.results[0].has_state);
    assert_int_equal(fx_recv(player, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_DESPAWNED);
    assert_int_equal(m.sequence, 0);
    assert_int_equal(m.as.despawned.entity, e);
    close(player);
    close(game);
}

static void over_udp_split(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    sweep_message w = fx_msg(SWEEP_MSG_WELCOME, 0);
    assert_true(fx_udp_handshake_token(fd, rx, FX_TOKEN, &w) != 0);
    uint32_t n = w.as.welcome.max_batch;
    assert_true(n >= 8);
    sweep_message m = fx_spawn_msg(3, sweep_v3(0, -6, 1), sweep_v3(0, 0, 0));
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
    assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
    uint32_t e = m.as.spawned.entity;
    /* Each result a long refusal with the state: far more than a datagram. */
    sweep_msg_entity_command c[64];
    assert_true(n <= 64);
    for (uint32_t i = 0; i < n; i++)
        c[i] = (sweep_msg_entity_command){.entity = e, .op = (uint8_t)(i % 2 ? 40 + i : SWEEP_WIRE_OP_ADD_IMPULSE),
                                          .vector = {0.5, 0, 0}};
    m = commands_msg(9, c, n);
    assert_true(fx_udp_send(fd, &m) > 0);
    uint32_t got = 0, pieces = 0;
    while (got < n) {
        ssize_t len = fx_udp_recv(fd, rx, &m, 5000);
        assert_true(len > 0);
        assert_true(len <= SWEEP_UDP_MAX_DATAGRAM);
        assert_int_equal(m.kind, SWEEP_MSG_ENTITY_COMMANDS_RESULT);
        assert_int_equal(m.sequence, 9);
        const sweep_msg_entity_commands_result *er = &m.as.entity_commands_result;
        assert_true(er->count > 0 && got + er->count <= n);
        for (uint32_t k = 0; k < er->count; k++, got++) {
            const sweep_msg_entity_command_result *r = &er->results[k];
            assert_int_equal(r->op, c[got].op);
            assert_int_equal(r->code, got % 2 ? SWEEP_WIRE_NOT_ALLOWED : SWEEP_WIRE_NONE);
            /* In order: each impulse adds to the ones before it. */
            assert_true(fabs(r->velocity.x - 0.5 * (double)(got / 2 + 1)) < 1e-12);
        }
        pieces++;
    }
    assert_true(pieces > 1);
    /* Above max_batch: one Error for the whole message. */
    sweep_msg_entity_command big[65];
    for (uint32_t i = 0; i <= n; i++)
        big[i] = c[0];
    m = commands_msg(10, big, n + 1);
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
    assert_int_equal(m.kind, SWEEP_MSG_ERROR);
    assert_int_equal(m.as.error.code, SWEEP_WIRE_BATCH_TOO_LARGE);
    assert_int_equal(m.as.error.sequence, 10);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(over_tcp),
        cmocka_unit_test(over_udp_split),
    };
    return cmocka_run_group_tests_name("sweepd entity commands", tests, setup, teardown);
}
