/*
 * test_datagram_size.c - the UDP datagram size a handshake agrees, against
 * the real sweepd (--udp-max-datagram 60000) on 127.0.0.1.
 *
 * The Welcome announces the smaller of Hello.max_datagram and the server's
 * limit (1200 for a Hello without the field, and for one asking less), and
 * a max_batch that one datagram of that size holds; a datagram above the
 * session's size is refused with DatagramTooLarge naming it, one within it
 * is served; and what the server cuts into datagrams (a watch of 1,000
 * entities, a MoveResultBatch, a WorldState) is cut to the session's size,
 * each part whole and in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"

#define WIDEST 60000u
#define ENTITIES 1000u

static fx_server srv;
static fx_rx *rx;

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    const char *args[] = {FX_SERVER_ARGS, "--udp-max-datagram", "60000", "--max-batch", "2048", NULL};
    return fx_start(&srv, args);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&srv);
    free(rx);
    return rc == 0 ? 0 : -1;
}

/* A UDP socket with room for a tick's datagrams. */
static int udp_socket(void)
{
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    int rcvbuf = 1 << 22;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    return fd;
}

/* A session of the server role that asked for `asked` bytes (0: the field
 * absent): its Welcome into *w. */
static int session(uint32_t asked, sweep_msg_welcome *w)
{
    int fd = udp_socket();
    sweep_message h = fx_hello_msg("datagram-test"), r;
    h.as.hello.auth_token = sweep_str_of(FX_TOKEN);
    h.as.hello.max_datagram = asked;
    assert_true(fx_udp_handshake_hello(fd, rx, &h, &r) != 0);
    assert_int_equal(r.kind, SWEEP_MSG_WELCOME);
    *w = r.as.welcome;
    return fd;
}

static void bye(int fd)
{
    sweep_message m = fx_msg(SWEEP_MSG_BYE, 999999);
    fx_udp_send(fd, &m);
    close(fd);
}

static void test_agrees_the_smaller(void **state)
{
    (void)state;
    struct {
        uint32_t asked, agreed;
    } cases[] = {{2000, 2000}, {60000, 60000}, {65507, WIDEST}, {100000, WIDEST}, {500, 1200}, {1200, 1200}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sweep_msg_welcome w;
        int fd = session(cases[i].asked, &w);
        assert_int_equal(w.max_frame_size, cases[i].agreed);
        assert_int_equal(w.max_batch, sweep_udp_max_batch_claimed_in(cases[i].agreed));
        bye(fd);
    }
    /* More room, more moves: the larger sizes hold far more than 1200's. */
    assert_true(sweep_udp_max_batch_claimed_in(WIDEST) > 40u * sweep_udp_max_batch_claimed());
    assert_true(sweep_udp_max_batch_claimed_in(WIDEST) < 2048u);
}

/* A Hello without the field (an older client) gets what it always got. */
static void test_old_hello_gets_1200(void **state)
{
    (void)state;
    sweep_msg_welcome w;
    int fd = session(0, &w);
    assert_int_equal(w.max_frame_size, SWEEP_UDP_MAX_DATAGRAM);
    assert_int_equal(w.max_batch, sweep_udp_max_batch_claimed());
    bye(fd);
}

/* A MoveBatch of n moves of entity 1 (no claimed positions). */
static sweep_message batch_of(sweep_msg_move *mv, uint32_t n, uint32_t seq)
{
    for (uint32_t i = 0; i < n; i++) {
        memset(&mv[i], 0, sizeof mv[i]);
        mv[i].entity = 1;
        mv[i].sequence = i + 1;
        mv[i].dt = 1.0 / 60.0;
    }
    sweep_message b = fx_msg(SWEEP_MSG_MOVE_BATCH, seq);
    b.as.move_batch.moves = mv;
    b.as.move_batch.count = n;
    return b;
}

/* The encoded size of m. */
static size_t size_of(const sweep_message *m)
{
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(m, 0, fx_out, sizeof fx_out, &out, &len), SWEEP_PROTO_OK);
    return len;
}

static void test_above_the_agreed_size_is_refused(void **state)
{
    (void)state;
    static sweep_msg_move mv[1024];
    sweep_msg_welcome w;
    int fd = session(2000, &w);
    assert_int_equal(w.max_frame_size, 2000);
    /* Within 2000 bytes but above 1200: served (entity 1 is nobody's here,
     * so its moves are refused one by one, not the datagram). */
    uint32_t n = 1;
    sweep_message b = batch_of(mv, n, 7);
    while (size_of(&b) <= 1500)
        b = batch_of(mv, ++n, 7);
    assert_true(size_of(&b) > SWEEP_UDP_MAX_DATAGRAM && size_of(&b) <= 2000);
    sweep_message r;
    assert_true(fx_udp_send(fd, &b) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_true(r.kind != SWEEP_MSG_ERROR || r.as.error.code != SWEEP_WIRE_DATAGRAM_TOO_LARGE);
    while (fx_udp_recv(fd, rx, NULL, 300) > 0) /* the rest of its answers */
        ;
    /* Above 2000: refused whole, the limit named. */
    while (size_of(&b) <= 2000)
        b = batch_of(mv, ++n, 8);
    ssize_t sent = fx_udp_send(fd, &b); /* with the session's key: a few bytes more than size_of */
    assert_true(sent > 2000);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_DATAGRAM_TOO_LARGE);
    char text[200];
    snprintf(text, sizeof text, "a datagram of %zd bytes; at most 2000 (the session's, Welcome.max_frame_size)",
             sent);
    assert_int_equal(r.as.error.message.len, strlen(text));
    assert_memory_equal(r.as.error.message.ptr, text, strlen(text));
    bye(fd);

    /* A session of the protocol's own size is held to it. */
    fd = session(0, &w);
    b = batch_of(mv, n, 9);
    assert_true(fx_udp_send(fd, &b) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_DATAGRAM_TOO_LARGE);
    assert_non_null(strstr(r.as.error.message.ptr, "at most 1200 "));
    bye(fd);
}

/* Spawns n entities of fd's session over UDP, pipelined a hundred at a
 * time, into ids. */
static void spawn_udp(int fd, uint32_t n, uint32_t *ids)
{
    for (uint32_t at = 0; at < n; at += 100) {
        uint32_t k = n - at < 100 ? n - at : 100;
        for (uint32_t i = 0; i < k; i++) {
            uint32_t j = at + i;
            sweep_message m = fx_spawn_msg(100 + j, sweep_v3(-5.0 + 0.01 * (j % 100), 5.0 + 0.01 * (j / 100), 1.0),
                                           sweep_v3(0.4, 0.4, 0.9));
            assert_true(fx_udp_send(fd, &m) > 0);
        }
        for (uint32_t i = 0; i < k; i++) {
            sweep_message m;
            assert_true(fx_udp_recv(fd, rx, &m, FX_TIMEOUT_MS) > 0);
            assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
            assert_true(m.sequence >= 100 + at && m.sequence < 100 + at + k);
            ids[m.sequence - 100] = m.as.spawned.entity;
        }
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* 1,000 entities watched by a session of 60,000 bytes: each push in two
 * datagrams (an EntityState is 96 bytes), whole and in order; and a
 * MoveBatch of them all answered in a few datagrams, in order. */
static void test_watch_and_batches_use_the_agreed_size(void **state)
{
    (void)state;
    static uint32_t ids[ENTITIES];
    sweep_msg_welcome w;
    int fd = session(WIDEST, &w);
    assert_int_equal(w.max_frame_size, WIDEST);
    spawn_udp(fd, ENTITIES, ids);

    sweep_message m = fx_msg(SWEEP_MSG_WATCH_ENTITIES, 2);
    m.as.watch_entities.every = 1;
    assert_true(fx_udp_send(fd, &m) > 0);
    uint32_t per = sweep_udp_max_entity_states_in(WIDEST);
    assert_int_equal((ENTITIES + per - 1) / per, 2);
    /* The first push's order of entities: every later one the same, and
     * together exactly the entities spawned. */
    static uint32_t order[ENTITIES];
    uint32_t seen = 0, datagrams = 0, pushes = 0;
    uint64_t tick = 0;
    for (int n = 0; n < 10000 && pushes < 3; n++) {
        ssize_t len = fx_udp_recv(fd, rx, &m, 5000);
        assert_true(len > 0 && len <= (ssize_t)WIDEST);
        if (m.kind != SWEEP_MSG_ENTITY_STATES || m.sequence != 0)
            continue;
        assert_int_equal(m.as.entity_states.entity_count, ENTITIES);
        if (m.as.entity_states.tick != tick) {
            /* A new push starts at the world's first entity. */
            assert_true(seen == 0 || seen == ENTITIES);
            tick = m.as.entity_states.tick;
            seen = datagrams = 0;
        }
        assert_true(m.as.entity_states.count <= per);
        assert_true(seen + m.as.entity_states.count <= ENTITIES);
        for (uint32_t i = 0; i < m.as.entity_states.count; i++) {
            uint32_t e = m.as.entity_states.entities[i].entity;
            if (pushes == 0)
                order[seen + i] = e;
            else
                assert_int_equal(order[seen + i], e);
        }
        seen += m.as.entity_states.count;
        datagrams++;
        if (seen == ENTITIES) {
            assert_int_equal(datagrams, 2);
            pushes++;
        }
    }
    assert_int_equal(pushes, 3);
    static uint32_t spawned[ENTITIES];
    memcpy(spawned, ids, sizeof spawned);
    qsort(spawned, ENTITIES, sizeof *spawned, cmp_u32);
    qsort(order, ENTITIES, sizeof *order, cmp_u32);
    assert_memory_equal(spawned, order, sizeof order);
    m = fx_msg(SWEEP_MSG_WATCH_ENTITIES, 3);
    m.as.watch_entities.every = 0;
    assert_true(fx_udp_send(fd, &m) > 0);
    while (fx_udp_recv(fd, rx, NULL, 300) > 0)
        ;

    /* A batch of as many moves as the Welcome allows, each entity once:
     * its results come back in pieces of at most 60,000 bytes, in order,
     * every move answered once. */
    static sweep_msg_move mv[ENTITIES];
    uint32_t n = w.max_batch < ENTITIES ? w.max_batch : ENTITIES;
    assert_true(n > 500);
    for (uint32_t i = 0; i < n; i++) {
        mv[i] = fx_move_msg(ids[i], 1, sweep_v3(0, 0, 0), 1.0 / 60.0).as.move;
        mv[i].sequence = 1000 + i;
    }
    sweep_message b = fx_msg(SWEEP_MSG_MOVE_BATCH, 40);
    b.as.move_batch.moves = mv;
    b.as.move_batch.count = n;
    assert_true(fx_udp_send(fd, &b) > (ssize_t)SWEEP_UDP_MAX_DATAGRAM);
    uint32_t answered = 0, pieces = 0;
    size_t bytes = 0;
    while (answered < n) {
        ssize_t len = fx_udp_recv(fd, rx, &m, FX_TIMEOUT_MS);
        assert_true(len > 0 && len <= (ssize_t)WIDEST);
        assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT_BATCH);
        assert_int_equal(m.sequence, 40);
        for (uint32_t i = 0; i < m.as.move_result_batch.count; i++) {
            assert_int_equal(m.as.move_result_batch.results[i].sequence, 1000 + answered);
            assert_int_equal(m.as.move_result_batch.results[i].entity, ids[answered]);
            answered++;
        }
        bytes += (size_t)len;
        pieces++;
    }
    /* As few pieces as 60,000 bytes allow: each but the last more than
     * half full (the count is halved until a piece fits). */
    assert_true(pieces <= (uint32_t)(bytes / (WIDEST / 2)) + 1u);
    assert_true(pieces < n / 8u);

    /* The arena's movers' WorldState, one datagram either way. */
    m = fx_msg(SWEEP_MSG_WATCH_WORLD, 41);
    m.as.watch_world.every = 1;
    assert_true(fx_udp_send(fd, &m) > 0);
    for (;;) {
        assert_true(fx_udp_recv(fd, rx, &m, FX_TIMEOUT_MS) > 0);
        if (m.kind == SWEEP_MSG_WORLD_STATE) {
            assert_int_equal(m.as.world_state.count, m.as.world_state.mover_count);
            break;
        }
    }
    bye(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agrees_the_smaller),
        cmocka_unit_test(test_old_hello_gets_1200),
        cmocka_unit_test(test_above_the_agreed_size_is_refused),
        cmocka_unit_test(test_watch_and_batches_use_the_agreed_size),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
