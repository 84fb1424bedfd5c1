/*
 * test_relayed_players.c - a game server (the server role) relaying its
 * players to a real sweepd over TCP and UDP: an entity it spawns with
 * Spawn.player moves by the player rules, so the cheats it relays are
 * prevented and named as a player's own would be (the world library's
 * tests/world/test_player_rules.c proves the answers are the same bits; this
 * proves it over the wire, Spawned.player and the session's rule counts
 * included), and that a tick's MoveBatches sent in one write are all
 * answered, in order, before a frame later in that write closes the
 * connection (sweepd gathers the answers to one read and writes them
 * together).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"

static fx_rx *rx;

/* One connection of the server role, TCP or UDP. */
typedef struct relay {
    int fd, udp;
    uint32_t seq;
} relay;

static int relay_send(relay *c, const sweep_message *m)
{
    return c->udp ? (fx_udp_send(c->fd, m) > 0 ? 0 : -1) : fx_send(c->fd, m);
}

static int relay_recv(relay *c, sweep_message *m)
{
    return c->udp ? (fx_udp_recv(c->fd, rx, m, FX_TIMEOUT_MS) > 0 ? 1 : 0) : fx_recv(c->fd, rx, m);
}

/* Sends m and returns its answer (UDP: the first answer of its sequence;
 * loopback loses none here). */
static sweep_message ask(relay *c, sweep_message m)
{
    assert_int_equal(relay_send(c, &m), 0);
    sweep_message a;
    do
        assert_int_equal(relay_recv(c, &a), 1);
    while (a.sequence != m.sequence);
    return a;
}

static uint32_t spawn_relayed(relay *c, double x, double y)
{
    sweep_message m = fx_spawn_msg(c->seq++, sweep_v3(x, y, 0.9), sweep_v3(0, 0, 0));
    m.as.spawn.player = true;
    sweep_message a = ask(c, m);
    assert_int_equal(a.kind, SWEEP_MSG_SPAWNED);
    assert_true(a.as.spawned.player); /* taken: governed by the player rules */
    return a.as.spawned.entity;
}

static sweep_message move(relay *c, uint32_t entity, uint32_t mode, sweep_vec3 wish, double dt)
{
    sweep_message m = fx_move_msg(entity, c->seq++, wish, dt);
    m.as.move.mode = (uint8_t)mode;
    return ask(c, m);
}

static void relayed_cheats(int udp)
{
    fx_server srv;
    const char *args[] = {"--command-token", FX_TOKEN, "--allow-free-move", "on", NULL};
    assert_int_equal(fx_start(&srv, args), 0);
    relay c = {udp ? fx_udp_socket(srv.port) : fx_tcp_connect(srv.port), udp, 3};
    assert_true(c.fd >= 0);
    if (udp)
        assert_true(fx_udp_handshake_token(c.fd, rx, FX_TOKEN, NULL) != 0);
    else
        assert_true(fx_hello_token(c.fd, rx, FX_TOKEN) != 0);
    uint32_t e = spawn_relayed(&c, 8, 8);

    /* Speed: a wish far above the walk speed is held to it and named. */
    uint32_t speed = 0;
    for (int i = 0; i < 10; i++) {
        sweep_message a = move(&c, e, SWEEP_WIRE_MODE_WALK, sweep_v3(40, 0, 0), 1.0 / 60);
        assert_int_equal(a.kind, SWEEP_MSG_MOVE_RESULT);
        speed += (a.as.move_result.rules & SWEEP_WIRE_RULE_SPEED) != 0;
        usleep(17000);
    }
    assert_true(speed > 0);

    /* Time dilation: moves asking a second each, back to back, get what
     * the bank holds and no more. */
    uint32_t cut = 0;
    for (int i = 0; i < 5; i++) {
        sweep_message a = move(&c, e, SWEEP_WIRE_MODE_WALK, sweep_v3(1, 0, 0), 0.1);
        assert_int_equal(a.kind, SWEEP_MSG_MOVE_RESULT);
        if (a.as.move_result.rules & SWEEP_WIRE_RULE_TIME_BUDGET) {
            cut++;
            assert_true(a.as.move_result.applied_dt < 0.1);
        }
    }
    assert_true(cut > 0);

    /* Fly and Noclip: refused, though the server role may fly its own. */
    for (uint32_t mode = SWEEP_WIRE_MODE_FLY; mode <= SWEEP_WIRE_MODE_NOCLIP; mode++) {
        sweep_message a = move(&c, e, mode, sweep_v3(0, 0, 3), 1.0 / 60);
        assert_int_equal(a.kind, SWEEP_MSG_ERROR);
        assert_int_equal(a.as.error.code, SWEEP_WIRE_NOT_ALLOWED);
        assert_non_null(strstr(a.as.error.message.ptr, "governed by the player rules"));
    }
    sweep_message own = fx_spawn_msg(c.seq++, sweep_v3(8, 12, 0.9), sweep_v3(0, 0, 0));
    sweep_message sp = ask(&c, own);
    assert_int_equal(sp.kind, SWEEP_MSG_SPAWNED);
    assert_false(sp.as.spawned.player);
    assert_int_equal(move(&c, sp.as.spawned.entity, SWEEP_WIRE_MODE_FLY, sweep_v3(0, 0, 3), 1.0 / 60).kind,
                     SWEEP_MSG_MOVE_RESULT);

    /* The session's rule counts name each cheat, as a player's would. */
    sweep_message st = ask(&c, fx_msg(SWEEP_MSG_GET_STATS, c.seq++));
    assert_int_equal(st.kind, SWEEP_MSG_STATS);
    assert_true(st.as.stats.session_rules[SWEEP_WIRE_RULE_SPEED_BIT] >= speed);
    assert_true(st.as.stats.session_rules[SWEEP_WIRE_RULE_TIME_BUDGET_BIT] >= cut);
    assert_int_equal(st.as.stats.session_rules[SWEEP_WIRE_RULE_FREE_MOVE_BIT], 2);
    close(c.fd);
    assert_int_equal(fx_stop(&srv), 0);
}

static void relayed_cheats_tcp(void **state)
{
    (void)state;
    relayed_cheats(0);
}

static void relayed_cheats_udp(void **state)
{
    (void)state;
    relayed_cheats(1);
}

/* A tick's MoveBatches in one write, and after them a frame announcing
 * more than --max-frame: every move is answered, batch by batch in order,
 * then FrameTooLarge, then the close. The answers to the read wait to be
 * written together, so the close must send them first, not drop them. */
static void tick_in_one_write_answered_before_a_close(void **state)
{
    (void)state;
    fx_server srv;
    const char *args[] = {"--command-token", FX_TOKEN, NULL};
    assert_int_equal(fx_start(&srv, args), 0);
    relay c = {fx_tcp_connect(srv.port), 0, 3};
    assert_true(c.fd >= 0);
    assert_true(fx_hello_token(c.fd, rx, FX_TOKEN) != 0);
    enum { PLAYERS = 40, BATCHES = 4, PER = PLAYERS / BATCHES };
    uint32_t ids[PLAYERS];
    for (uint32_t i = 0; i < PLAYERS; i++)
        ids[i] = spawn_relayed(&c, 4 + (i % 8), 4 + (i / 8));

    static uint8_t wire[64 * 1024];
    size_t used = 0;
    sweep_msg_move moves[PER];
    uint32_t batch_seq[BATCHES];
    for (uint32_t b = 0; b < BATCHES; b++) {
        batch_seq[b] = c.seq++;
        for (uint32_t k = 0; k < PER; k++) {
            moves[k] = fx_move_msg(ids[b * PER + k], c.seq++, sweep_v3(1, 0.5, 0), 1.0 / 60).as.move;
        }
        sweep_message m = fx_msg(SWEEP_MSG_MOVE_BATCH, batch_seq[b]);
        m.as.move_batch.moves = moves;
        m.as.move_batch.count = PER;
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, wire + used, sizeof wire - used, &out, &len),
                         SWEEP_PROTO_OK);
        memmove(wire + used, out, len);
        used += len;
    }
    /* The prefix of a frame far above the 64 KiB default --max-frame. */
    const uint8_t too_large[4] = {0, 0, 0, 0x10};
    memcpy(wire + used, too_large, sizeof too_large);
    used += sizeof too_large;
    assert_int_equal(fx_write_all(c.fd, wire, used), 0);

    uint32_t answered = 0, next_batch = 0;
    sweep_message a;
    for (;;) {
        assert_int_equal(fx_recv(c.fd, rx, &a), 1);
        if (a.kind != SWEEP_MSG_MOVE_RESULT_BATCH)
            break;
        assert_true(next_batch < BATCHES);
        assert_int_equal(a.sequence, batch_seq[next_batch]);
        assert_int_equal(a.as.move_result_batch.count, PER);
        for (uint32_t k = 0; k < PER; k++) {
            assert_int_equal(a.as.move_result_batch.results[k].entity, ids[next_batch * PER + k]);
            assert_int_equal(a.as.move_result_batch.results[k].sequence, batch_seq[next_batch] + 1 + k);
        }
        answered += PER;
        next_batch++;
    }
    assert_int_equal(answered, PLAYERS);
    assert_int_equal(a.kind, SWEEP_MSG_ERROR);
    assert_int_equal(a.as.error.code, SWEEP_WIRE_FRAME_TOO_LARGE);
    assert_int_equal(fx_wait_eof(c.fd, rx, NULL), 1);
    close(c.fd);
    assert_int_equal(fx_stop(&srv), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    rx = fx_rx_new();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relayed_cheats_tcp),
        cmocka_unit_test(relayed_cheats_udp),
        cmocka_unit_test(tick_in_one_write_answered_before_a_close),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(rx);
    return rc;
}
