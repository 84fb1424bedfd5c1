/*
 * test_bad_input.c - every kind of bad input over the network gets a clear
 * Error (code and sequence) and never brings sweepd down: garbage bytes,
 * truncated frames, frames over --max-frame, unknown entities, another
 * session's entity (answered exactly as an unknown one), NaN and
 * out-of-range numbers (in the server role's raw moves and spawns, and in
 * a player's wishes), batches over
 * --max-batch, too many entities, sessions and requests, oversized
 * datagrams; garbage pays the session's rate like requests. Broken
 * framing closes only that connection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "tests/sweepd_fixture.h"

static fx_server srv;
static fx_rx *rx;
static const double DT = 1.0 / 60.0;

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    const char *args[] = {"--max-batch", "4", "--max-entities", "2", "--max-frame", "1024", FX_SERVER_ARGS, NULL};
    return fx_start(&srv, args);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&srv);
    free(rx);
    return rc == 0 ? 0 : -1;
}

/* A welcomed TCP connection. */
static int welcomed(void)
{
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    return fd;
}

/* A welcomed TCP connection of the server role. */
static int welcomed_server(void)
{
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    return fd;
}

/* The connection still answers a Ping. */
static void assert_usable(int fd)
{
    sweep_message p = fx_msg(SWEEP_MSG_PING, 77), r;
    assert_int_equal(fx_send(fd, &p), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
}

static void test_garbage_in_a_frame_keeps_connection(void **state)
{
    (void)state;
    int fd = welcomed();
    uint8_t junk[64];
    junk[0] = 60;
    junk[1] = junk[2] = junk[3] = 0;
    for (int i = 4; i < 64; i++)
        junk[i] = (uint8_t)(i * 91 + 7);
    assert_int_equal(fx_write_all(fd, junk, sizeof junk), 0);
    sweep_message r;
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_true(r.as.error.code != SWEEP_WIRE_NONE);
    assert_non_null(r.as.error.message.ptr);
    assert_usable(fd);
    close(fd);
}

static void test_garbage_stream_closes_after_error(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    uint8_t junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = (uint8_t)(0xff - i);
    assert_int_equal(fx_write_all(fd, junk, sizeof junk), 0);
    sweep_message r;
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_FRAME_TOO_LARGE);
    assert_int_equal(fx_wait_eof(fd, rx, NULL), 1);
    close(fd);
}

static void test_truncated_frame(void **state)
{
    (void)state;
    int fd = welcomed();
    /* A valid Spawn frame cut in half, with a prefix saying so. */
    sweep_message s = fx_spawn_msg(5, sweep_v3(0, 0, 1), sweep_v3(0.4, 0.4, 0.9));
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&s, SWEEP_WIRE_SIZE_PREFIXED, fx_out, sizeof fx_out, &out, &len), SWEEP_PROTO_OK);
    uint8_t cut[512];
    size_t half = (len - 4) / 2;
    memcpy(cut, out, 4 + half);
    cut[0] = (uint8_t)half;
    cut[1] = cut[2] = cut[3] = 0;
    assert_int_equal(fx_write_all(fd, cut, 4 + half), 0);
    sweep_message r;
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_usable(fd);
    close(fd);

    /* A frame cut by the end of the stream: the server closes, and lives. */
    fd = welcomed();
    assert_int_equal(fx_write_all(fd, out, len / 2), 0);
    shutdown(fd, SHUT_WR);
    assert_int_equal(fx_wait_eof(fd, rx, NULL), 1);
    close(fd);
    fd = welcomed();
    assert_usable(fd);
    close(fd);
}

static void test_frame_too_large(void **state)
{
    (void)state;
    int fd = welcomed();
    uint8_t hdr[4 + 100] = {0xd0, 0x07, 0, 0}; /* 2000 > --max-frame 1024 */
    assert_int_equal(fx_write_all(fd, hdr, sizeof hdr), 0);
    sweep_message r;
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_FRAME_TOO_LARGE);
    assert_non_null(strstr(r.as.error.message.ptr, "2000"));
    assert_int_equal(fx_wait_eof(fd, rx, NULL), 1);
    close(fd);
}

/* The Error an id gets from session fd, its text with the id written as X. */
static void error_for(int fd, sweep_message *req, uint32_t id, int *code, char *text, size_t textlen)
{
    sweep_message r;
    assert_int_equal(fx_send(fd, req), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.entity, id);
    *code = (int)r.as.error.code;
    char idtext[16];
    snprintf(idtext, sizeof idtext, "%u", id);
    const char *at = strstr(r.as.error.message.ptr, idtext);
    assert_non_null(at);
    snprintf(text, textlen, "%.*sX%s", (int)(at - r.as.error.message.ptr), r.as.error.message.ptr,
             at + strlen(idtext));
}

static void test_entities_unknown_and_foreign(void **state)
{
    (void)state;
    int a = welcomed(), b = welcomed();
    uint32_t ea = fx_spawn(a, rx, 2, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(ea != 0);
    uint32_t unknown = ea ^ 0x5a5a5a5au;
    sweep_message m = fx_move_msg(unknown, 3, sweep_v3(1, 0, 0), DT);
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(b, rx, &m, &seq), SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(seq, 3);
    /* Another session's id is answered exactly as an id nobody has: the
     * same code, the same words (only the number differs). */
    int c1, c2;
    char t1[400], t2[400];
    m = fx_move_msg(unknown, 4, sweep_v3(1, 0, 0), DT);
    error_for(b, &m, unknown, &c1, t1, sizeof t1);
    m = fx_move_msg(ea, 4, sweep_v3(1, 0, 0), DT);
    error_for(b, &m, ea, &c2, t2, sizeof t2);
    assert_int_equal(c1, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(c2, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_string_equal(t1, t2);
    sweep_message d = fx_msg(SWEEP_MSG_DESPAWN, 5);
    d.as.despawn.entity = ea;
    error_for(b, &d, ea, &c2, t2, sizeof t2);
    d.as.despawn.entity = unknown;
    error_for(b, &d, unknown, &c1, t1, sizeof t1);
    assert_int_equal(c1, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(c2, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_string_equal(t1, t2);
    /* The owner still moves it. */
    assert_int_equal(fx_send(a, &m), 0);
    assert_int_equal(fx_recv(a, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
    close(a);
    close(b);
}

static void test_bad_numbers(void **state)
{
    (void)state;
    int fd = welcomed_server();
    uint32_t e = fx_spawn(fd, rx, 2, sweep_v3(8, 8, 0.9), sweep_v3(0.4, 0.4, 0.9));
    assert_true(e != 0);
    sweep_message m = fx_fly_msg(e, 3, sweep_v3(NAN, 0, 0), DT);
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_BAD_NUMBER);
    assert_int_equal(seq, 3);
    m = fx_fly_msg(e, 4, sweep_v3(0, INFINITY, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_NUMBER);
    m = fx_fly_msg(e, 5, sweep_v3(1e6, 0, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_VELOCITY);
    m = fx_fly_msg(e, 6, sweep_v3(1, 0, 0), 0.0);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_DT);
    m = fx_fly_msg(e, 7, sweep_v3(1, 0, 0), DT);
    m.as.move.has_claimed_position = true;
    m.as.move.claimed_position = sweep_v3(NAN, 0, 0);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_NUMBER);
    /* Noclip: a position past the world's limit, a speed past its own. */
    m = fx_fly_msg(e, 8, sweep_v3(0, 0, 50), 1.0);
    m.as.move.mode = SWEEP_WIRE_MODE_NOCLIP;
    m.as.move.velocity = sweep_v3(0, 0, 1e6);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_VELOCITY);
    /* A mode no server knows. */
    m = fx_fly_msg(e, 9, sweep_v3(1, 0, 0), DT);
    m.as.move.mode = 3;
    assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_NOT_ALLOWED);
    assert_int_equal(seq, 9);
    /* Walk: a wish may be fast (it is clamped and named), not endless. */
    m = fx_move_msg(e, 10, sweep_v3(1e300, 1e300, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_VELOCITY);
    m = fx_move_msg(e, 11, sweep_v3(1, 0, 0), 2.0);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_DT);
    m = fx_move_msg(e, 12, sweep_v3(1, 0, 0), NAN);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_NUMBER);
    /* Refused moves changed nothing: a good one with a later sequence applies. */
    m = fx_fly_msg(e, 13, sweep_v3(1, 0, 0), DT);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
    assert_true(m.as.move_result.position.x > 8.0);
    /* Noclip goes through anything, within the world's limit. */
    m = fx_fly_msg(e, 14, sweep_v3(0, 0, -30), 0.5);
    m.as.move.mode = SWEEP_WIRE_MODE_NOCLIP;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
    assert_true(m.as.move_result.position.z == 0.9 - 15.0); /* under the floor */
    assert_int_equal(m.as.move_result.contact_count, 0);
    assert_false(m.as.move_result.grounded);
    /* A claim beyond the world's limit: its distance would overflow. */
    m = fx_fly_msg(e, 15, sweep_v3(1, 0, 0), DT);
    m.as.move.has_claimed_position = true;
    m.as.move.claimed_position = sweep_v3(1e300, -1e300, 0);
    assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_BAD_POSITION);
    assert_int_equal(seq, 15);
    sweep_message s = fx_spawn_msg(9, sweep_v3(0, 0, 1), sweep_v3(NAN, 1, 1));
    assert_int_equal(fx_expect_error(fd, rx, &s, NULL), SWEEP_WIRE_BAD_NUMBER);
    s = fx_spawn_msg(10, sweep_v3(0, 0, 1), sweep_v3(-1, 1, 1));
    assert_int_equal(fx_expect_error(fd, rx, &s, NULL), SWEEP_WIRE_BAD_RADII);
    s = fx_spawn_msg(11, sweep_v3(1e300, 0, 1), sweep_v3(0.4, 0.4, 0.9));
    assert_int_equal(fx_expect_error(fd, rx, &s, NULL), SWEEP_WIRE_BAD_POSITION);
    close(fd);

    /* A move that would end past the world's limit is refused, and the
     * entity stays usable where it was. */
    fd = welcomed_server();
    uint32_t edge = fx_spawn(fd, rx, 30, sweep_v3(1e7 - 0.05, 0, 1e7 - 1), sweep_v3(0.4, 0.4, 0.9));
    assert_true(edge != 0);
    m = fx_fly_msg(edge, 1, sweep_v3(10, 0, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_BAD_POSITION);
    assert_int_equal(seq, 1);
    m = fx_fly_msg(edge, 2, sweep_v3(-10, 0, 0), DT);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
    assert_true(m.as.move_result.position.x < 1e7 - 0.05);
    close(fd);

    /* A player: NaN is refused the same way; wrong radii and places are
     * not taken (test_authority.c names them). */
    fd = welcomed();
    s = fx_spawn_msg(12, sweep_v3(0, 0, 0), sweep_v3(NAN, 0, 0));
    assert_int_equal(fx_expect_error(fd, rx, &s, NULL), SWEEP_WIRE_BAD_NUMBER);
    e = fx_spawn(fd, rx, 13, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(e != 0);
    m = fx_move_msg(e, 1, sweep_v3(0, INFINITY, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_NUMBER);
    m = fx_move_msg(e, 2, sweep_v3(1, 0, 0), -DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_DT);
    close(fd);
}

/* Valid messages the server does not take, too large for its storage:
 * refused as what they are (UnknownMessage), not as a batch too large. */
static void test_not_a_request(void **state)
{
    (void)state;
    fx_server big; /* frames large enough to outgrow the decoder's storage */
    const char *args[] = {FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&big, args), 0);
    int fd = fx_tcp_connect(big.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    static sweep_wire_mover movers[200];
    for (uint32_t i = 0; i < 200; i++) {
        movers[i].id = i + 1;
        movers[i].rotation[3] = 1.0;
    }
    sweep_message w = fx_msg(SWEEP_MSG_WORLD_STATE, 51);
    w.as.world_state.movers = movers;
    w.as.world_state.count = 200;
    w.as.world_state.mover_count = 200;
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(fd, rx, &w, &seq), SWEEP_WIRE_UNKNOWN_MESSAGE);
    assert_int_equal(seq, 51);
    static sweep_msg_move_result results[100];
    memset(results, 0, sizeof results);
    sweep_message b = fx_msg(SWEEP_MSG_MOVE_RESULT_BATCH, 52);
    b.as.move_result_batch.results = results;
    b.as.move_result_batch.count = 100;
    assert_int_equal(fx_expect_error(fd, rx, &b, &seq), SWEEP_WIRE_UNKNOWN_MESSAGE);
    assert_int_equal(seq, 52);
    assert_usable(fd);
    close(fd);
    assert_int_equal(fx_stop(&big), 0);
}

/* What only a server sends (the game server's answers and pushes among
 * them), sent to it, is no request: UnknownMessage with its sequence, a
 * player's and the server role's alike, and the connection stays usable.
 * Every request of the protocol is served (each has its handler's tests). */
static void test_unserved_requests(void **state)
{
    (void)state;
    static sweep_wire_entity_state states[200];
    static sweep_msg_entity_command_result results[100];
    static const uint8_t hash[32];
    sweep_message asks[13];
    unsigned n = 0;
    /* Only a server sends these: large lists, and the plain ones. */
    asks[n] = fx_msg(SWEEP_MSG_ENTITY_STATES, 0);
    asks[n].as.entity_states.entities = states;
    asks[n++].as.entity_states.count = 200;
    asks[n] = fx_msg(SWEEP_MSG_ENTITY_COMMANDS_RESULT, 0);
    asks[n].as.entity_commands_result.results = results;
    asks[n++].as.entity_commands_result.count = 100;
    asks[n] = fx_msg(SWEEP_MSG_WORLD_OPENED, 0);
    asks[n].as.world_opened.name = sweep_str_of("x");
    asks[n].as.world_opened.map_hash.ptr = hash;
    asks[n++].as.world_opened.map_hash.len = sizeof hash;
    asks[n++] = fx_msg(SWEEP_MSG_WORLD_CLOSED, 0);
    fx_server big; /* frames large enough for the lists */
    const char *args[] = {FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&big, args), 0);
    for (int role = 0; role < 2; role++) {
        int fd = fx_tcp_connect(big.port);
        assert_true(fd >= 0);
        assert_true((role ? fx_hello_token(fd, rx, FX_TOKEN) : fx_hello(fd, rx)) != 0);
        for (unsigned i = 0; i < n; i++) {
            asks[i].sequence = 60 + i;
            uint32_t seq = 0;
            int code = fx_expect_error(fd, rx, &asks[i], &seq);
            if (code != SWEEP_WIRE_UNKNOWN_MESSAGE || seq != 60 + i)
                fail_msg("%s (%s): code %d, sequence %u", sweep_msg_kind_name(asks[i].kind), role ? "server" : "player",
                         code, seq);
        }
        assert_usable(fd);
        close(fd);
    }
    assert_int_equal(fx_stop(&big), 0);
}

/* Under a correction threshold of 0 a claim must be the position bit for
 * bit: -0.0 for +0.0 is corrected, though its distance is 0. */
static void test_exact_claims(void **state)
{
    (void)state;
    char map[] = "/tmp/sweep-exact-XXXXXX";
    int tmp = mkstemp(map);
    assert_true(tmp >= 0);
    FILE *in = fopen(srv.arena, "rb"), *out = fdopen(tmp, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(map, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE map SET correction_threshold = 0", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    fx_server exact;
    const char *args[] = {FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start_map(&exact, map, args), 0);
    int fd = fx_tcp_connect(exact.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    uint32_t e = fx_spawn(fd, rx, 2, sweep_v3(8, 0, 0.9), sweep_v3(0.4, 0.4, 0.9));
    assert_true(e != 0);
    /* Flying along x keeps y at +0.0. */
    sweep_message m = fx_fly_msg(e, 3, sweep_v3(1, 0, 0), DT), r;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
    sweep_vec3 at = r.as.move_result.position;
    assert_true(at.y == 0.0 && !signbit(at.y));
    for (uint32_t k = 0; k < 2; k++) {
        m = fx_fly_msg(e, 4 + k, sweep_v3(0, 0, 0), DT);
        m.as.move.has_claimed_position = true;
        m.as.move.claimed_position = sweep_v3(at.x, k ? -0.0 : 0.0, at.z);
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &r), 1);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
        assert_true(r.as.move_result.position.x == at.x && r.as.move_result.position.y == 0.0);
        assert_true(r.as.move_result.correction == 0.0);
        assert_int_equal(r.as.move_result.corrected, k == 1);
        at = r.as.move_result.position;
    }
    close(fd);
    assert_int_equal(fx_stop(&exact), 0);
    unlink(map);
}

static void test_batch_and_entity_limits(void **state)
{
    (void)state;
    int fd = welcomed();
    uint32_t e = fx_spawn(fd, rx, 2, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(e != 0);
    sweep_msg_move moves[5];
    for (int i = 0; i < 5; i++) {
        memset(&moves[i], 0, sizeof moves[i]);
        moves[i].entity = e;
        moves[i].sequence = 10 + (uint32_t)i;
        moves[i].velocity = sweep_v3(1, 0, 0);
        moves[i].dt = DT;
    }
    sweep_message b = fx_msg(SWEEP_MSG_MOVE_BATCH, 33);
    b.as.move_batch.moves = moves;
    b.as.move_batch.count = 5; /* --max-batch 4 */
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(fd, rx, &b, &seq), SWEEP_WIRE_BATCH_TOO_LARGE);
    assert_int_equal(seq, 33);
    b.as.move_batch.count = 4;
    sweep_message r;
    assert_int_equal(fx_send(fd, &b), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT_BATCH);
    assert_int_equal(r.as.move_result_batch.count, 4);

    assert_true(fx_spawn(fd, rx, 40, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0)) != 0);
    sweep_message s = fx_spawn_msg(41, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_int_equal(fx_expect_error(fd, rx, &s, &seq), SWEEP_WIRE_TOO_MANY_ENTITIES);
    assert_int_equal(seq, 41);
    close(fd);
}

static void test_udp_datagram_too_large(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_udp_handshake(fd, rx) != 0);
    uint8_t big[1500];
    assert_int_equal(fx_udp_keyed_bytes(fd, big, sizeof big, 0), 0);
    assert_int_equal(send(fd, big, sizeof big, 0), (ssize_t)sizeof big);
    sweep_message r;
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_DATAGRAM_TOO_LARGE);
    /* Garbage with the session's key gets an Error too. */
    assert_int_equal(fx_udp_keyed_bytes(fd, big, 100, 1), 0);
    assert_int_equal(send(fd, big, 100, 0), 100);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    close(fd);
}

static void test_rate_and_session_limits(void **state)
{
    (void)state;
    fx_server small;
    const char *args[] = {"--max-sessions", "2", "--rate-limit", "5", NULL};
    assert_int_equal(fx_start(&small, args), 0);
    int a = fx_tcp_connect(small.port), b = fx_tcp_connect(small.port), c = fx_tcp_connect(small.port);
    assert_true(a >= 0 && b >= 0 && c >= 0);
    assert_true(fx_hello(a, rx) != 0);
    assert_true(fx_hello(b, rx) != 0);
    sweep_message h = fx_hello_msg("third");
    assert_int_equal(fx_expect_error(c, rx, &h, NULL), SWEEP_WIRE_TOO_MANY_SESSIONS);
    /* 40 requests at once against 5 per second: the first beyond the
     * burst gets one RateLimited naming its sequence, the rest of that
     * second's get nothing; a Ping after the window is the next answer. */
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 40; i++) {
            sweep_message g = fx_msg(round ? SWEEP_MSG_PING : SWEEP_MSG_GET_STATS, 100 + 100 * round + i);
            assert_int_equal(fx_send(a, &g), 0);
        }
        usleep(1200 * 1000);
        sweep_message ping = fx_msg(SWEEP_MSG_PING, 999);
        assert_int_equal(fx_send(a, &ping), 0);
        int limited = 0, answered = 0;
        for (;;) {
            sweep_message r;
            assert_int_equal(fx_recv(a, rx, &r), 1);
            if (r.kind == SWEEP_MSG_PONG && r.sequence == 999)
                break;
            if (r.kind == SWEEP_MSG_ERROR && r.as.error.code == SWEEP_WIRE_RATE_LIMITED) {
                assert_true(r.as.error.sequence >= 100 && r.as.error.sequence < 300);
                limited++;
            } else {
                /* Pings are requests too: they drain the same bucket. */
                assert_int_equal(r.kind, round ? SWEEP_MSG_PONG : SWEEP_MSG_STATS);
                answered++;
            }
        }
        assert_int_equal(limited, 1);
        assert_true(answered >= 1 && answered < 39);
    }
    close(a);
    close(b);
    close(c);
    assert_int_equal(fx_stop(&small), 0);
}

/* The same over UDP, where a request is charged at the clock reading of
 * its receive batch: 40 Pings at once against 5 per second get one
 * RateLimited; 1.2 s later the bucket has refilled and a Ping is answered
 * (a reading that did not move on would leave it empty). Datagrams too
 * large for the session are charged too (each was answered). */
static void test_udp_rate_limit(void **state)
{
    (void)state;
    fx_server small;
    const char *args[] = {"--rate-limit", "5", NULL};
    assert_int_equal(fx_start(&small, args), 0);
    int fd = fx_udp_socket(small.port);
    assert_true(fd >= 0);
    assert_true(fx_udp_handshake(fd, rx) != 0);
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 40; i++) {
            sweep_message g = fx_msg(SWEEP_MSG_PING, 100 + 100 * round + i);
            assert_true(fx_udp_send(fd, &g) > 0);
        }
        usleep(1200 * 1000);
        sweep_message ping = fx_msg(SWEEP_MSG_PING, 999);
        assert_true(fx_udp_send(fd, &ping) > 0);
        int limited = 0, answered = 0;
        for (;;) {
            sweep_message r;
            assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
            if (r.kind == SWEEP_MSG_PONG && r.sequence == 999)
                break;
            if (r.kind == SWEEP_MSG_ERROR && r.as.error.code == SWEEP_WIRE_RATE_LIMITED) {
                assert_true(r.as.error.sequence >= 100 && r.as.error.sequence < 300);
                limited++;
            } else {
                assert_int_equal(r.kind, SWEEP_MSG_PONG);
                answered++;
            }
        }
        assert_int_equal(limited, 1);
        assert_true(answered >= 1 && answered < 39);
    }
    /* Datagrams too large pay as requests do: each was answered. */
    usleep(1200 * 1000);
    uint8_t big[1500];
    assert_int_equal(fx_udp_keyed_bytes(fd, big, sizeof big, 0), 0);
    for (int i = 0; i < 40; i++)
        assert_int_equal(send(fd, big, sizeof big, 0), (ssize_t)sizeof big);
    sweep_message ping = fx_msg(SWEEP_MSG_PING, 999);
    usleep(300 * 1000);
    assert_true(fx_udp_send(fd, &ping) > 0);
    int too_large = 0, limited = 0;
    for (;;) {
        sweep_message r;
        if (fx_udp_recv(fd, rx, &r, 1500) <= 0)
            break; /* the Ping itself is over the rate now */
        if (r.kind == SWEEP_MSG_ERROR && r.as.error.code == SWEEP_WIRE_DATAGRAM_TOO_LARGE)
            too_large++;
        else if (r.kind == SWEEP_MSG_ERROR && r.as.error.code == SWEEP_WIRE_RATE_LIMITED)
            limited++;
    }
    if (too_large < 1 || too_large > 8 || limited != 1)
        fail_msg("40 datagrams too large: %d answered DatagramTooLarge (1 to 8 wanted), %d RateLimited (1 wanted)",
                 too_large, limited);
    close(fd);
    assert_int_equal(fx_stop(&small), 0);
}

/* The rate limit is on work: an EntityCommands pays for each of its
 * commands as a MoveBatch does for its moves. With 10 requests a second
 * for the server role (--rate-limit-server), one message of 10 commands
 * empties the bucket, and a Ping right after it is refused. */
static void test_entity_commands_pay_per_command(void **state)
{
    (void)state;
    fx_server small;
    const char *args[] = {"--rate-limit-server", "10", "--command-token", FX_TOKEN, NULL};
    assert_int_equal(fx_start(&small, args), 0);
    int fd = fx_tcp_connect(small.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0); /* before the session: not from its bucket */
    sweep_msg_entity_command cmds[10];
    memset(cmds, 0, sizeof cmds);
    for (uint32_t i = 0; i < 10; i++) {
        cmds[i].entity = 1000 + i; /* none exists: each answered UnknownEntity, and paid */
        cmds[i].op = SWEEP_WIRE_OP_SET_VELOCITY;
    }
    sweep_message m = fx_msg(SWEEP_MSG_ENTITY_COMMANDS, 5), r;
    m.as.entity_commands.commands = cmds;
    m.as.entity_commands.count = 10;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ENTITY_COMMANDS_RESULT);
    sweep_message ping = fx_msg(SWEEP_MSG_PING, 6);
    assert_int_equal(fx_send(fd, &ping), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_RATE_LIMITED);
    assert_int_equal(r.as.error.sequence, 6);
    close(fd);
    assert_int_equal(fx_stop(&small), 0);
}

/* The server role's own rate holds without a player's: with --rate-limit 0
 * and --rate-limit-server 10, a game server that spent its second's worth
 * is told so, naming the option that limits it, and is served again a
 * second later (its bucket once never filled again: the clock was read
 * only when players had a limit). */
static void test_server_rate_refills_alone(void **state)
{
    (void)state;
    fx_server small;
    const char *args[] = {"--rate-limit", "0", "--rate-limit-server", "10", "--command-token", FX_TOKEN, NULL};
    assert_int_equal(fx_start(&small, args), 0);
    int fd = fx_tcp_connect(small.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    for (int round = 0; round < 2; round++) {
        int pongs = 0, limited = 0;
        for (uint32_t i = 0; i < 12; i++) {
            sweep_message g = fx_msg(SWEEP_MSG_PING, 100 + 100 * round + i);
            assert_int_equal(fx_send(fd, &g), 0);
        }
        while (pongs + limited < 11) {
            sweep_message r;
            assert_int_equal(fx_recv(fd, rx, &r), 1);
            if (r.kind == SWEEP_MSG_PONG) {
                pongs++;
            } else {
                assert_int_equal(r.kind, SWEEP_MSG_ERROR);
                assert_int_equal(r.as.error.code, SWEEP_WIRE_RATE_LIMITED);
                assert_non_null(strstr(r.as.error.message.ptr, "--rate-limit-server"));
                limited++;
            }
        }
        assert_int_equal(pongs, 10);
        assert_int_equal(limited, 1);
        usleep(1200 * 1000);
    }
    close(fd);
    assert_int_equal(fx_stop(&small), 0);
}

/* Each role has its rate: 40 Pings at once against --rate-limit 5 get a
 * player one RateLimited, while the server role (--rate-limit-server,
 * unlimited by default: a game server relays thousands of players) gets
 * 40 Pongs. */
static void test_rate_limit_by_role(void **state)
{
    (void)state;
    fx_server small;
    const char *args[] = {"--rate-limit", "5", "--command-token", FX_TOKEN, NULL};
    assert_int_equal(fx_start(&small, args), 0);
    for (int server = 0; server < 2; server++) {
        int fd = fx_tcp_connect(small.port);
        assert_true(fd >= 0);
        assert_true((server ? fx_hello_token(fd, rx, FX_TOKEN) : fx_hello(fd, rx)) != 0);
        for (uint32_t i = 0; i < 40; i++) {
            sweep_message g = fx_msg(SWEEP_MSG_PING, 100 + i);
            assert_int_equal(fx_send(fd, &g), 0);
        }
        sweep_message last = fx_msg(SWEEP_MSG_GET_STATS, 999);
        assert_int_equal(fx_send(fd, &last), 0);
        int pongs = 0, limited = 0;
        for (;;) {
            sweep_message r;
            if (fx_recv(fd, rx, &r) != 1)
                break;
            if (r.kind == SWEEP_MSG_PONG)
                pongs++;
            else if (r.kind == SWEEP_MSG_ERROR && r.as.error.code == SWEEP_WIRE_RATE_LIMITED)
                limited++;
            else if (r.kind == SWEEP_MSG_STATS && r.sequence == 999)
                break;
            if (!server && limited && pongs + limited >= 6)
                break; /* the rest are dropped unanswered, GetStats with them */
        }
        if (server) {
            assert_int_equal(pongs, 40);
            assert_int_equal(limited, 0);
        } else {
            assert_int_equal(limited, 1);
            assert_true(pongs >= 1 && pongs < 40);
        }
        close(fd);
    }
    assert_int_equal(fx_stop(&small), 0);
}

/* What the verifier refuses is paid for like a request: 40 garbage frames
 * at once against --rate-limit 5 get a few named Errors and one
 * RateLimited, not an Error each, and the session then waits its rate like
 * any other. */
static void test_garbage_pays_the_rate(void **state)
{
    (void)state;
    fx_server small;
    const char *args[] = {"--rate-limit", "5", NULL};
    assert_int_equal(fx_start(&small, args), 0);
    int fd = fx_tcp_connect(small.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    uint8_t junk[40 * 64];
    for (int f = 0; f < 40; f++) {
        uint8_t *j = junk + f * 64;
        j[0] = 60;
        j[1] = j[2] = j[3] = 0;
        for (int i = 4; i < 64; i++)
            j[i] = (uint8_t)(i * 91 + 7 + f);
    }
    assert_int_equal(fx_write_all(fd, junk, sizeof junk), 0);
    int errors = 0, limited = 0;
    sweep_message r;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    while (poll(&pf, 1, 500) > 0 && fx_recv(fd, rx, &r) == 1) {
        assert_int_equal(r.kind, SWEEP_MSG_ERROR);
        if (r.as.error.code == SWEEP_WIRE_RATE_LIMITED)
            limited++;
        else
            errors++;
    }
    printf("bad_input: 40 garbage frames against --rate-limit 5: %d Errors, %d RateLimited\n", errors, limited);
    assert_int_equal(limited, 1);
    assert_true(errors >= 1 && errors <= 8);
    close(fd);
    assert_int_equal(fx_stop(&small), 0);
}

static void test_server_survived(void **state)
{
    (void)state;
    assert_true(fx_alive(&srv));
    int fd = welcomed();
    sweep_message g = fx_msg(SWEEP_MSG_GET_STATS, 1), r;
    assert_int_equal(fx_send(fd, &g), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_STATS);
    assert_true(r.as.stats.errors_total >= 15);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_garbage_in_a_frame_keeps_connection),
        cmocka_unit_test(test_garbage_stream_closes_after_error),
        cmocka_unit_test(test_truncated_frame),
        cmocka_unit_test(test_frame_too_large),
        cmocka_unit_test(test_entities_unknown_and_foreign),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_not_a_request),
        cmocka_unit_test(test_unserved_requests),
        cmocka_unit_test(test_entity_commands_pay_per_command),
        cmocka_unit_test(test_rate_limit_by_role),
        cmocka_unit_test(test_server_rate_refills_alone),
        cmocka_unit_test(test_garbage_pays_the_rate),
        cmocka_unit_test(test_exact_claims),
        cmocka_unit_test(test_batch_and_entity_limits),
        cmocka_unit_test(test_udp_datagram_too_large),
        cmocka_unit_test(test_rate_and_session_limits),
        cmocka_unit_test(test_udp_rate_limit),
        cmocka_unit_test(test_server_survived),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
