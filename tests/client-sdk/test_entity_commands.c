/*
 * test_entity_commands.c - libsweep's EntityCommands against a real sweepd
 * on the arena, over TCP and UDP: a game server session (the command
 * token) teleports its entity, sets its velocity and despawns a player
 * session's entity, which that session hears of (Despawned, sequence 0);
 * refusals (NoRoom, UnknownEntity, NotAllowed) come per command with the
 * server's text and change nothing; a player's client gets AuthFailed.
 * Over UDP a message of max_batch commands whose answer the server cuts
 * into several datagrams is gathered whole and in order, by the blocking
 * call and as events by the call that does not wait; more than max_batch
 * commands go in several messages. Through a link that drops and reorders
 * datagrams (netem.h) the blocking call sends the request again until one
 * whole answer has come. And `sweep entity` prints each result, text and
 * JSON, exiting 1 when one was refused.
 */
#include "tests/sweepd_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/netem.h"

static fx_server D;
static char SWEEP[4096];

static int setup(void **state)
{
    (void)state;
    fx_build("bin/sweep", SWEEP, sizeof SWEEP);
    const char *args[] = {FX_SERVER_ARGS, NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

static sweep_client *connect_to(sweep_client_transport t, const char *address, const char *token, int retry_ms)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = address;
    o.auth_token = token;
    o.timeout_ms = 20000;
    o.udp_retry_ms = retry_ms;
    o.udp_keep_port = 1; /* a relay in between knows only that port */
    sweep_client *c = NULL;
    sweep_client_error e;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK)
        fail_msg("connect %s: %s: %s", address, sweep_client_error_name(&e), e.message);
    return c;
}

static sweep_client *connect_as(sweep_client_transport t, const char *token)
{
    return connect_to(t, t == SWEEP_CLIENT_TCP ? D.tcp : D.udp, token, 0);
}

static sweep_msg_entity_command cmd(uint32_t entity, uint8_t op, double x, double y, double z)
{
    return (sweep_msg_entity_command){.entity = entity, .op = op, .vector = {x, y, z}};
}

static int same(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The text of a result: present, NUL-terminated at its length, holding `part`. */
static void expect_text(const sweep_msg_entity_command_result *r, const char *part)
{
    assert_non_null(r->message.ptr);
    assert_int_equal(strlen(r->message.ptr), r->message.len);
    if (strstr(r->message.ptr, part) == NULL)
        fail_msg("'%s' not in '%s'", part, r->message.ptr);
}

static uint32_t spawn_at(sweep_client *c, sweep_vec3 at)
{
    sweep_msg_spawned sp;
    sweep_client_error e;
    assert_int_equal(sweep_client_spawn(c, at, sweep_v3(0, 0, 0), &sp, &e), SWEEP_CLIENT_OK);
    return sp.entity;
}

/* An id no entity of the world has. */
static uint32_t nobody(uint32_t a, uint32_t b)
{
    uint32_t id = a ^ 0x5a5a5a5au;
    return id == b ? id ^ 1u : id;
}

static void applied_and_refused(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client_transport tr = t ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
        sweep_client *game = connect_as(tr, FX_TOKEN), *player = connect_as(tr, NULL);
        sweep_client_error e;
        uint32_t g = spawn_at(game, sweep_v3(0, -6, 1));
        sweep_msg_spawned ps;
        assert_int_equal(sweep_client_spawn_player(player, 0, &ps, &e), SWEEP_CLIENT_OK);
        uint32_t p = ps.entity, none = nobody(g, p);

        sweep_msg_entity_command c[6] = {
            cmd(g, SWEEP_WIRE_OP_TELEPORT, -13, -6, 1),
            cmd(g, SWEEP_WIRE_OP_SET_VELOCITY, 0, 0, 4),
            cmd(g, SWEEP_WIRE_OP_TELEPORT, -12, 7.8, 1), /* against the thin wall: nowhere free */
            cmd(none, SWEEP_WIRE_OP_DESPAWN, 0, 0, 0),
            cmd(p, SWEEP_WIRE_OP_DESPAWN, 0, 0, 0),
            cmd(g, 77, 1, 2, 3),
        };
        sweep_msg_entity_command_result r[6];
        assert_int_equal(sweep_client_entity_commands(game, c, 6, r, &e), SWEEP_CLIENT_OK);
        for (int i = 0; i < 6; i++) {
            assert_int_equal(r[i].entity, c[i].entity);
            assert_int_equal(r[i].op, c[i].op);
        }
        /* Applied, in order: the velocity kept by the refused teleport. */
        assert_int_equal(r[0].code, SWEEP_WIRE_NONE);
        assert_null(r[0].message.ptr);
        assert_true(r[0].has_state);
        assert_true(same(r[0].position, sweep_v3(-13, -6, 1)));
        assert_int_equal(r[0].flags, 0);
        assert_int_equal(r[1].code, SWEEP_WIRE_NONE);
        assert_true(same(r[1].velocity, sweep_v3(0, 0, 4)));
        assert_true(same(r[1].position, sweep_v3(-13, -6, 1)));
        assert_int_equal(r[2].code, SWEEP_WIRE_NO_ROOM);
        expect_text(&r[2], "the level");
        assert_true(r[2].has_state);
        assert_true(same(r[2].position, sweep_v3(-13, -6, 1))); /* as it was */
        assert_true(same(r[2].velocity, sweep_v3(0, 0, 4)));
        assert_int_equal(r[3].code, SWEEP_WIRE_UNKNOWN_ENTITY);
        expect_text(&r[3], "no entity");
        assert_false(r[3].has_state);
        assert_int_equal(r[4].code, SWEEP_WIRE_NONE);
        assert_false(r[4].has_state);
        assert_int_equal(r[5].code, SWEEP_WIRE_NOT_ALLOWED);
        expect_text(&r[5], "not an EntityOp");

        /* The server says the same when asked. */
        sweep_wire_entity_state st;
        assert_int_equal(sweep_client_get_entity(game, g, &st, NULL, &e), SWEEP_CLIENT_OK);
        assert_true(same(st.position, sweep_v3(-13, -6, 1)));
        assert_int_equal(sweep_client_get_entity(game, p, &st, NULL, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_ENTITY);

        /* The player's session hears of its entity's end, unasked. */
        sweep_client_event ev;
        do
            assert_int_equal(sweep_client_poll(player, 5000, &ev, &e), SWEEP_CLIENT_OK);
        while (ev.kind != SWEEP_CLIENT_EV_DESPAWNED);
        assert_int_equal(ev.sequence, 0);
        assert_int_equal(ev.as.despawned.entity, p);

        /* A player may not, whatever the commands; nor is anything applied. */
        sweep_msg_entity_command mine = cmd(g, SWEEP_WIRE_OP_SET_VELOCITY, 1, 0, 0);
        uint32_t seq = sweep_client_next_sequence(player);
        assert_int_equal(sweep_client_entity_commands(player, &mine, 1, r, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
        assert_int_equal(e.sequence, seq);
        assert_int_equal(sweep_client_last_error(player)->code, SWEEP_WIRE_AUTH_FAILED);
        assert_int_equal(sweep_client_get_entity(game, g, &st, NULL, &e), SWEEP_CLIENT_OK);
        assert_true(same(st.velocity, sweep_v3(0, 0, 4)));

        /* Arguments. */
        assert_int_equal(sweep_client_entity_commands(game, c, 0, r, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_entity_commands(game, NULL, 1, r, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_entity_commands(game, c, 1, NULL, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_entity_commands(NULL, c, 1, r, &e), SWEEP_CLIENT_E_ARG);
        sweep_client_close(player);
        sweep_client_close(game);
    }
}

/* n commands on entity e whose results do not fit one datagram: AddImpulse
 * of 0.5 and, every other one, an op the server does not know (a refusal
 * with a long text, the state included). */
static void split_commands(sweep_msg_entity_command *c, uint32_t n, uint32_t e)
{
    for (uint32_t i = 0; i < n; i++)
        c[i] = cmd(e, (uint8_t)(i % 2 ? 40 + i % 200 : SWEEP_WIRE_OP_ADD_IMPULSE), 0.5, 0, 0);
    /* (ops 40 to 239: none an EntityOp) */
}

/* The results of split_commands, in order: each impulse adds to the ones
 * before it (from velocity x0), the refusals keep it. */
static void expect_split(const sweep_msg_entity_command *c, const sweep_msg_entity_command_result *r, uint32_t n,
                         uint32_t first, double x0)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = first + k;
        assert_int_equal(r[k].entity, c[i].entity);
        assert_int_equal(r[k].op, c[i].op);
        assert_int_equal(r[k].code, i % 2 ? SWEEP_WIRE_NOT_ALLOWED : SWEEP_WIRE_NONE);
        if (i % 2)
            expect_text(&r[k], "is not an EntityOp");
        assert_true(fabs(r[k].velocity.x - (x0 + 0.5 * (double)(i / 2 + 1))) < 1e-12);
    }
}

/* Entity e at rest again (the impulses of a test would pass max_speed). */
static void stop(sweep_client *c, uint32_t e)
{
    sweep_msg_entity_command s = cmd(e, SWEEP_WIRE_OP_SET_VELOCITY, 0, 0, 0);
    sweep_msg_entity_command_result r;
    sweep_client_error err;
    assert_int_equal(sweep_client_entity_commands(c, &s, 1, &r, &err), SWEEP_CLIENT_OK);
    assert_int_equal(r.code, SWEEP_WIRE_NONE);
}

static void udp_answers_gathered(void **state)
{
    (void)state;
    sweep_client *game = connect_as(SWEEP_CLIENT_UDP, FX_TOKEN);
    sweep_client_error e;
    uint32_t g = spawn_at(game, sweep_v3(0, -6, 1));
    uint32_t n = sweep_client_max_batch(game);
    assert_true(n >= 8);
    sweep_msg_entity_command *c = calloc(2 * n + 3, sizeof *c);
    sweep_msg_entity_command_result *r = calloc(2 * n + 3, sizeof *r);
    assert_true(c && r);

    /* The blocking call: one message, its answer in several datagrams. */
    split_commands(c, n, g);
    sweep_client_counters before, after;
    sweep_client_get_counters(game, &before);
    assert_int_equal(sweep_client_entity_commands(game, c, n, r, &e), SWEEP_CLIENT_OK);
    sweep_client_get_counters(game, &after);
    assert_int_equal(after.frames_sent - before.frames_sent, 1 + (after.resends - before.resends));
    assert_true(after.frames_received - before.frames_received >= 2);
    expect_split(c, r, n, 0, 0.0);

    /* Without waiting: the same, as events placed by first. */
    stop(game, g);
    uint32_t seq = 0;
    assert_int_equal(sweep_client_send_entity_commands(game, c, n, &seq, &e), SWEEP_CLIENT_OK);
    assert_int_equal(seq, sweep_client_next_sequence(game) - 1);
    uint32_t have = 0, events = 0;
    while (have < n) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(game, 5000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_COMMAND_RESULTS);
        assert_int_equal(ev.sequence, seq);
        const sweep_client_command_results *cr = &ev.as.command_results;
        assert_int_equal(cr->total, n);
        assert_int_equal(cr->first, have);
        assert_true(cr->count > 0);
        expect_split(c, cr->results, cr->count, cr->first, 0.0);
        have += cr->count;
        events++;
    }
    assert_true(events >= 2);
    /* Above what one message holds: refused without waiting, split by the blocking call. */
    assert_int_equal(sweep_client_send_entity_commands(game, c, n + 1, NULL, &e), SWEEP_CLIENT_E_ARG);
    /* Set the velocity back first, or the impulses pass max_speed. */
    c[0] = cmd(g, SWEEP_WIRE_OP_SET_VELOCITY, 0, 0, 0);
    split_commands(c + 1, 2 * n + 2, g);
    uint32_t seq0 = sweep_client_next_sequence(game);
    assert_int_equal(sweep_client_entity_commands(game, c, 2 * n + 3, r, &e), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_client_next_sequence(game), seq0 + 3); /* n, n, 3 */
    assert_int_equal(r[0].code, SWEEP_WIRE_NONE);
    assert_true(same(r[0].velocity, sweep_v3(0, 0, 0)));
    expect_split(c + 1, r + 1, 2 * n + 2, 0, 0.0);
    free(c);
    free(r);
    sweep_client_close(game);
}

/* TCP: the answer in one event, whole. */
static void tcp_answer_is_one_event(void **state)
{
    (void)state;
    sweep_client *game = connect_as(SWEEP_CLIENT_TCP, FX_TOKEN);
    sweep_client_error e;
    uint32_t g = spawn_at(game, sweep_v3(0, -6, 1));
    uint32_t n = sweep_client_max_batch(game);
    if (n > 64)
        n = 64;
    sweep_msg_entity_command c[64];
    split_commands(c, n, g);
    uint32_t seq;
    assert_int_equal(sweep_client_send_entity_commands(game, c, n, &seq, &e), SWEEP_CLIENT_OK);
    sweep_client_event ev;
    assert_int_equal(sweep_client_poll(game, 5000, &ev, &e), SWEEP_CLIENT_OK);
    assert_int_equal(ev.kind, SWEEP_CLIENT_EV_COMMAND_RESULTS);
    assert_int_equal(ev.sequence, seq);
    assert_int_equal(ev.as.command_results.first, 0);
    assert_int_equal(ev.as.command_results.count, n);
    assert_int_equal(ev.as.command_results.total, n);
    expect_split(c, ev.as.command_results.results, n, 0, 0.0);
    /* A player's refusal comes as an Error event naming the request. */
    sweep_client *player = connect_as(SWEEP_CLIENT_TCP, NULL);
    assert_int_equal(sweep_client_send_entity_commands(player, c, 1, &seq, &e), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_client_poll(player, 5000, &ev, &e), SWEEP_CLIENT_OK);
    assert_int_equal(ev.kind, SWEEP_CLIENT_EV_ERROR);
    assert_int_equal(ev.as.error.code, SWEEP_WIRE_AUTH_FAILED);
    assert_int_equal(ev.as.error.sequence, seq);
    sweep_client_close(player);
    sweep_client_close(game);
}

/* Through a link that drops a fifth of the datagrams each way and holds
 * some back to be overtaken: every call ends with one whole answer, the
 * request sent again as often as it took. Teleports and velocities give
 * the same results however often they are applied, so every answer must
 * be exactly the one expected. */
static void udp_loss_is_resent(void **state)
{
    (void)state;
    sweep_netem_options no = {.loss = 0.2, .reorder = 0.1, .jitter_ms = 2, .seed = 7};
    sweep_netem *net = NULL;
    char err[256];
    if (sweep_netem_start(&no, D.udp, 1, &net, err, sizeof err) != 0)
        fail_msg("netem: %s", err);
    sweep_client *game = connect_to(SWEEP_CLIENT_UDP, sweep_netem_address(net, 0), FX_TOKEN, 40);
    sweep_client_error e;
    uint32_t g = spawn_at(game, sweep_v3(0, -6, 1));
    uint32_t n = sweep_client_max_batch(game);
    sweep_msg_entity_command *c = calloc(n, sizeof *c);
    sweep_msg_entity_command_result *r = calloc(n, sizeof *r);
    assert_true(c && r);
    for (uint32_t i = 0; i < n; i++)
        c[i] = i % 3 == 0 ? cmd(g, SWEEP_WIRE_OP_TELEPORT, -13.0 + 0.01 * i, -6, 1)
             : i % 3 == 1 ? cmd(g, SWEEP_WIRE_OP_SET_VELOCITY, 0.1 * i, 0, 0)
                          : cmd(g, (uint8_t)(100 + i % 100), 0, 0, 0);
    sweep_netem_impair(net, 1);
    for (int round = 0; round < 6; round++) {
        memset(r, 0, n * sizeof *r);
        assert_int_equal(sweep_client_entity_commands(game, c, n, r, &e), SWEEP_CLIENT_OK);
        /* The velocity before the first SetVelocity is whatever the
         * application before left: only the ones after it are known. */
        sweep_vec3 pos = {0, 0, 0}, vel = {0, 0, 0};
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(r[i].entity, g);
            assert_int_equal(r[i].op, c[i].op);
            if (i % 3 == 0)
                pos = c[i].vector;
            else if (i % 3 == 1)
                vel = c[i].vector;
            assert_int_equal(r[i].code, i % 3 == 2 ? SWEEP_WIRE_NOT_ALLOWED : SWEEP_WIRE_NONE);
            if (i % 3 == 2)
                expect_text(&r[i], "is not an EntityOp");
            assert_true(r[i].has_state);
            assert_true(same(r[i].position, pos));
            if (i >= 1)
                assert_true(same(r[i].velocity, vel));
        }
    }
    sweep_client_counters k;
    sweep_client_get_counters(game, &k);
    sweep_netem_counters nk;
    sweep_netem_impair(net, 0);
    sweep_client_close(game);
    sweep_netem_stop(net, &nk);
    assert_true(nk.dropped[0] + nk.dropped[1] > 0);
    assert_true(k.resends > 0);
    free(c);
    free(r);
}

/* Runs `sweep ARGS`: its exit status, and its output in *out. */
#define sweep(out, ...) fx_run_program(SWEEP, out, __VA_ARGS__)

static void cli(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(sweep(&out, "--help"), 0);
    assert_non_null(strstr(out, "entity OP ID"));
    free(out);
    /* Bad command lines. */
    assert_int_equal(sweep(&out, "entity --connect %s", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "entity --connect %s teleport 5", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "entity --connect %s shove 5 1,0,0", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "entity teleport 5 1,0,0"), 2); /* no --connect */
    free(out);
    for (int t = 0; t < 2; t++) {
        sweep_client_transport tr = t ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
        const char *addr = t ? D.udp : D.tcp, *udp = t ? "--udp" : "";
        sweep_client *owner = connect_as(tr, FX_TOKEN);
        uint32_t g = spawn_at(owner, sweep_v3(0, -6, 1)), none = nobody(g, g);
        /* Text: each result in order; a refusal makes the status 1. */
        assert_int_equal(sweep(&out, "entity --connect %s %s --token %s -- teleport %u -13,-6,1 velocity %u 0,0,4 "
                                     "despawn %u",
                               addr, udp, FX_TOKEN, g, g, none),
                         1);
        char want[256];
        snprintf(want, sizeof want, "command 0 entity=%u op=Teleport result=None position=(-13, -6, 1)", g);
        assert_non_null(strstr(out, want));
        snprintf(want, sizeof want, "command 1 entity=%u op=SetVelocity result=None position=(-13, -6, 1) velocity=(0, 0, 4)", g);
        assert_non_null(strstr(out, want));
        snprintf(want, sizeof want, "command 2 entity=%u op=Despawn result=UnknownEntity message=no entity %u", none,
                 none);
        assert_non_null(strstr(out, want));
        free(out);
        /* JSON, all applied: status 0, the entity gone from its owner. */
        assert_int_equal(sweep(&out, "entity --connect %s %s --token %s --json radii %u 0.4,0.4,0.5 despawn %u", addr,
                               udp, FX_TOKEN, g, g),
                         0);
        snprintf(want, sizeof want, "{\"command\":0,\"entity\":%u,\"op\":\"SetRadii\",\"result\":\"None\",\"position\":", g);
        assert_non_null(strstr(out, want));
        assert_non_null(strstr(out, ",\"radii\":[0.4,0.4,0.5],\"pushed_out\":false}"));
        snprintf(want, sizeof want, "{\"command\":1,\"entity\":%u,\"op\":\"Despawn\",\"result\":\"None\",\"pushed_out\":false}", g);
        assert_non_null(strstr(out, want));
        free(out);
        sweep_client_event ev;
        sweep_client_error e;
        do
            assert_int_equal(sweep_client_poll(owner, 5000, &ev, &e), SWEEP_CLIENT_OK);
        while (ev.kind != SWEEP_CLIENT_EV_DESPAWNED);
        assert_int_equal(ev.as.despawned.entity, g);
        sweep_client_close(owner);
        /* Without a token: AuthFailed by name. */
        assert_int_equal(sweep(&out, "entity --connect %s %s despawn 1", addr, udp), 1);
        assert_non_null(strstr(out, "error AuthFailed"));
        free(out);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applied_and_refused),
        cmocka_unit_test(udp_answers_gathered),
        cmocka_unit_test(tcp_answer_is_one_event),
        cmocka_unit_test(udp_loss_is_resent),
        cmocka_unit_test(cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
