/*
 * test_observe.c - the server role observing a world through a real
 * sweepd: WatchEntities over TCP and UDP on a world of 201 entities (200
 * of one game-server session, one of a player), so that every push is
 * several EntityStates (a datagram holds about a dozen; the server runs
 * with --max-frame 8192, which holds 84), each entity exactly once per
 * push tick in spawn order, pushes every N-th tick until 0 stops them;
 * GetEntity of another session's entity; a player refused both. And the
 * size of a watch: a world of 1,000 entities pushed every tick, its bytes
 * summed over both transports (printed as a BENCH line).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"

#define SERVER_ENTITIES 200u
#define ALL (SERVER_ENTITIES + 1u)
#define MAX_FRAME 8192u
#define BIG 1000u

static fx_server srv;
static fx_rx *rx;
static int game_fd, player_fd;           /* the two owners, kept open */
static uint64_t game_session, player_session;
static uint32_t ids[ALL];                 /* spawn order: the game server's, then the player's */
static sweep_vec3 at[ALL];                /* where each was placed */

/* A place in the arena's open floor for entity i (they may overlap each
 * other: players do not block here). */
static sweep_vec3 place(uint32_t i)
{
    return sweep_v3(-5.0 + 0.01 * (i % 100), 5.0 + 0.01 * (i / 100), 1.0);
}

/* Spawns n entities of the server role on fd, pipelined, into out_ids and
 * out_at (may be NULL). */
static void spawn_many(int fd, uint32_t n, uint32_t *out_ids, sweep_vec3 *out_at)
{
    for (uint32_t i = 0; i < n; i++) {
        sweep_message m = fx_spawn_msg(100 + i, place(i), sweep_v3(0.4, 0.4, 0.9));
        assert_int_equal(fx_send(fd, &m), 0);
    }
    for (uint32_t i = 0; i < n; i++) {
        sweep_message m;
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        if (m.kind != SWEEP_MSG_SPAWNED)
            fail_msg("spawn %u: %s", i, m.kind == SWEEP_MSG_ERROR ? m.as.error.message.ptr : sweep_msg_kind_name(m.kind));
        assert_int_equal(m.sequence, 100 + i);
        if (out_ids)
            out_ids[i] = m.as.spawned.entity;
        if (out_at)
            out_at[i] = m.as.spawned.position;
    }
}

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    const char *args[] = {FX_SERVER_ARGS, "--max-frame", "8192", NULL};
    if (fx_start(&srv, args) != 0)
        return -1;
    game_fd = fx_tcp_connect(srv.port);
    player_fd = fx_tcp_connect(srv.port);
    if (game_fd < 0 || player_fd < 0)
        return -1;
    game_session = fx_hello_token(game_fd, rx, FX_TOKEN);
    player_session = fx_hello(player_fd, rx);
    if (!game_session || !player_session)
        return -1;
    spawn_many(game_fd, SERVER_ENTITIES, ids, at);
    sweep_message m = fx_msg(SWEEP_MSG_SPAWN, 7);
    if (fx_send(player_fd, &m) != 0 || fx_recv(player_fd, rx, &m) != 1 || m.kind != SWEEP_MSG_SPAWNED)
        return -1;
    ids[SERVER_ENTITIES] = m.as.spawned.entity;
    at[SERVER_ENTITIES] = m.as.spawned.position;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    close(game_fd);
    close(player_fd);
    int rc = fx_stop(&srv);
    free(rx);
    return rc == 0 ? 0 : -1;
}

static int index_of(uint32_t id)
{
    for (uint32_t i = 0; i < ALL; i++)
        if (ids[i] == id)
            return (int)i;
    return -1;
}

/* The states of one push tick (or one answer) as its parts arrive. */
typedef struct tally {
    uint32_t sequence;
    uint64_t tick;
    uint32_t parts, seen;
    uint32_t hits[ALL];
} tally;

static void tally_start(tally *t, const sweep_message *m)
{
    memset(t, 0, sizeof *t);
    t->sequence = m->sequence;
    t->tick = m->as.entity_states.tick;
}

/* One part: a whole EntityStates of the tick, holding the next run of the
 * world's entities in spawn order, each as it was placed. */
static void tally_part(tally *t, const sweep_message *m, uint32_t per)
{
    const sweep_msg_entity_states *es = &m->as.entity_states;
    assert_int_equal(m->kind, SWEEP_MSG_ENTITY_STATES);
    assert_int_equal(m->sequence, t->sequence);
    assert_int_equal(es->tick, t->tick);
    assert_int_equal(m->server_tick, t->tick);
    assert_int_equal(es->entity_count, ALL);
    assert_true(es->count >= 1 && es->count <= per);
    for (uint32_t k = 0; k < es->count; k++) {
        const sweep_wire_entity_state *e = &es->entities[k];
        int i = index_of(e->entity);
        assert_true(i >= 0);
        assert_int_equal((uint32_t)i, t->seen + k); /* the world's order, run after run */
        t->hits[i]++;
        int player = (uint32_t)i == SERVER_ENTITIES;
        assert_int_equal(e->owner_session, player ? player_session : game_session);
        assert_int_equal(e->flags & SWEEP_WIRE_ENTITY_PLAYER, player ? SWEEP_WIRE_ENTITY_PLAYER : 0u);
        assert_memory_equal(&e->position, &at[i], sizeof at[i]);
        assert_int_equal(e->ground_mover, 0);
    }
    t->seen += es->count;
    t->parts++;
}

/* Every entity exactly once, in as many parts as `per` a part makes. */
static void tally_whole(const tally *t, uint32_t per)
{
    assert_int_equal(t->seen, ALL);
    for (uint32_t i = 0; i < ALL; i++)
        assert_int_equal(t->hits[i], 1);
    assert_int_equal(t->parts, (ALL + per - 1) / per);
}

static sweep_message watch_msg(uint32_t seq, uint32_t every)
{
    sweep_message m = fx_msg(SWEEP_MSG_WATCH_ENTITIES, seq);
    m.as.watch_entities.every = every;
    return m;
}

/* Receives one TCP frame: its size on the wire (the prefix counted). */
static size_t recv_frame(int fd, sweep_message *m)
{
    assert_int_equal(fx_recv(fd, rx, m), 1);
    uint32_t n = (uint32_t)rx->buf[0] | (uint32_t)rx->buf[1] << 8 | (uint32_t)rx->buf[2] << 16 |
                 (uint32_t)rx->buf[3] << 24;
    return 4u + n;
}

static int silent_for(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) == 0;
}

/* TCP: the answer at once, then a push every third tick, every entity
 * exactly once each time in frames of at most --max-frame; 0 stops. */
static void test_watch_tcp(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    uint32_t per = (MAX_FRAME - 128u) / 96u;
    sweep_message m = watch_msg(5, 3);
    assert_int_equal(fx_send(fd, &m), 0);
    tally t;
    for (int n = 0; n == 0 || t.seen < ALL; n++) {
        assert_true(recv_frame(fd, &m) - 4u <= MAX_FRAME);
        if (n == 0) {
            assert_int_equal(m.sequence, 5);
            tally_start(&t, &m);
        }
        tally_part(&t, &m, per);
    }
    tally_whole(&t, per);
    uint64_t last = t.tick;
    for (int pushes = 0; pushes < 5; pushes++) {
        assert_true(recv_frame(fd, &m) - 4u <= MAX_FRAME);
        assert_int_equal(m.sequence, 0);
        tally_start(&t, &m);
        /* A multiple of 3 is among the ticks since the last push (a late
         * timer runs several ticks and pushes only the latest). */
        assert_true(t.tick > last && t.tick / 3 > last / 3);
        last = t.tick;
        tally_part(&t, &m, per);
        while (t.seen < ALL) {
            assert_true(recv_frame(fd, &m) - 4u <= MAX_FRAME);
            tally_part(&t, &m, per);
        }
        tally_whole(&t, per);
    }
    m = watch_msg(6, 0);
    assert_int_equal(fx_send(fd, &m), 0);
    do /* pushes already on the way, then the answer */
        recv_frame(fd, &m);
    while (m.sequence != 6);
    tally_start(&t, &m);
    tally_part(&t, &m, per);
    while (t.seen < ALL) {
        recv_frame(fd, &m);
        tally_part(&t, &m, per);
    }
    tally_whole(&t, per);
    assert_true(silent_for(fd, 300)); /* 18 ticks: no push any more */
    close(fd);
}

/* UDP: the same in datagrams of at most 1200 bytes, as many entities each
 * as sweep_udp_max_entity_states() says, every second tick. */
static void test_watch_udp(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    int rcvbuf = 1 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    assert_true(fx_udp_handshake_token(fd, rx, FX_TOKEN, NULL) != 0);
    uint32_t per = sweep_udp_max_entity_states();
    assert_true(per >= 8 && per < ALL / 10); /* so a push here is many datagrams */
    sweep_message m = watch_msg(9, 2);
    assert_true(fx_udp_send(fd, &m) > 0);
    tally t;
    int answered = 0, pushes = 0;
    uint64_t last = 0;
    while (pushes < 4) {
        ssize_t len = fx_udp_recv(fd, rx, &m, 5000);
        assert_true(len > 0 && len <= (ssize_t)SWEEP_UDP_MAX_DATAGRAM);
        if (!answered || m.sequence == 0) {
            if (m.as.entity_states.entities[0].entity == ids[0]) {
                assert_int_equal(m.sequence, answered ? 0u : 9u);
                if (answered)
                    assert_true(m.as.entity_states.tick > last && m.as.entity_states.tick / 2 > last / 2);
                tally_start(&t, &m);
            }
        }
        tally_part(&t, &m, per);
        if (t.seen == ALL) {
            tally_whole(&t, per);
            last = t.tick;
            pushes += answered;
            answered = 1;
        }
    }
    m = watch_msg(10, 0);
    assert_true(fx_udp_send(fd, &m) > 0);
    do
        assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
    while (m.sequence != 10);
    tally_start(&t, &m);
    tally_part(&t, &m, per);
    while (t.seen < ALL) {
        assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
        tally_part(&t, &m, per);
    }
    tally_whole(&t, per);
    assert_int_equal(fx_udp_recv(fd, rx, &m, 300), 0);
    m = fx_msg(SWEEP_MSG_BYE, 11);
    fx_udp_send(fd, &m);
    close(fd);
}

static sweep_message get_msg(uint32_t seq, uint32_t entity)
{
    sweep_message m = fx_msg(SWEEP_MSG_GET_ENTITY, seq);
    m.as.get_entity.entity = entity;
    return m;
}

/* One entity of another session, as the watch shows it. */
static void expect_entity(int fd, uint32_t seq, uint32_t i)
{
    sweep_message m = get_msg(seq, ids[i]);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    if (m.kind == SWEEP_MSG_ERROR)
        fail_msg("GetEntity: %s", m.as.error.message.ptr);
    tally t;
    tally_start(&t, &m);
    const sweep_msg_entity_states *es = &m.as.entity_states;
    assert_int_equal(m.sequence, seq);
    assert_int_equal(es->count, 1);
    assert_int_equal(es->entity_count, 1);
    assert_int_equal(es->entities[0].entity, ids[i]);
    assert_int_equal(es->entities[0].owner_session, i == SERVER_ENTITIES ? player_session : game_session);
    assert_memory_equal(&es->entities[0].position, &at[i], sizeof at[i]);
}

/* The server role reads any session's entity; a player may neither read
 * nor watch, refused in the world's role-check words; an unknown id is
 * UnknownEntity. */
static void test_get_entity(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    expect_entity(fd, 20, 0);
    expect_entity(fd, 21, SERVER_ENTITIES / 2);
    expect_entity(fd, 22, SERVER_ENTITIES); /* the player's */
    expect_entity(game_fd, 23, SERVER_ENTITIES);
    uint32_t nobody = 0x5a5a5a5au;
    while (index_of(nobody) >= 0)
        nobody++;
    sweep_message m = get_msg(24, nobody);
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(seq, 24);
    close(fd);

    /* The player: its own entity and another's alike. */
    char text[2][300];
    sweep_message asks[3] = {get_msg(30, ids[SERVER_ENTITIES]), get_msg(31, ids[0]), watch_msg(32, 1)};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fx_send(player_fd, &asks[i]), 0);
        assert_int_equal(fx_recv(player_fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_ERROR);
        assert_int_equal(m.as.error.code, SWEEP_WIRE_AUTH_FAILED);
        assert_int_equal(m.as.error.sequence, 30 + i);
        snprintf(text[i == 2], sizeof text[0], "%.*s", (int)m.as.error.message.len, m.as.error.message.ptr);
    }
    assert_string_equal(text[0], "GetEntity needs the server role: Hello.auth_token must be a server token "
                                 "(sweep1:server:...) or the server's --command-token");
    assert_string_equal(text[1], "WatchEntities needs the server role: Hello.auth_token must be a server token "
                                 "(sweep1:server:...) or the server's --command-token");
    /* Refused, it watches nothing. */
    assert_true(silent_for(player_fd, 200));
}

/* The bytes of one push tick of a world of 1,000 entities watched every
 * tick, over TCP (--max-frame 65536, the default) and UDP. */
static void test_bytes_per_tick(void **state)
{
    (void)state;
    fx_server big;
    const char *args[] = {FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&big, args), 0);
    int owner = fx_tcp_connect(big.port);
    assert_true(owner >= 0);
    assert_true(fx_hello_token(owner, rx, FX_TOKEN) != 0);
    spawn_many(owner, BIG, NULL, NULL);

    /* TCP: the frames of the first whole push. */
    int fd = fx_tcp_connect(big.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    sweep_message m = watch_msg(2, 1);
    assert_int_equal(fx_send(fd, &m), 0);
    size_t tcp_bytes = 0;
    uint32_t tcp_frames = 0, seen = 0;
    uint64_t tick = 0;
    for (;;) {
        size_t n = recv_frame(fd, &m);
        assert_int_equal(m.kind, SWEEP_MSG_ENTITY_STATES);
        assert_int_equal(m.as.entity_states.entity_count, BIG);
        if (m.sequence != 0)
            continue;
        if (m.as.entity_states.tick != tick) {
            assert_int_equal(seen, 0); /* TCP loses nothing: a push starts where one ended */
            tick = m.as.entity_states.tick;
        }
        tcp_bytes += n;
        tcp_frames++;
        seen += m.as.entity_states.count;
        if (seen == BIG)
            break;
    }
    close(fd);

    /* UDP: the datagrams of a whole push (one that lost a datagram to a
     * full socket buffer is skipped). */
    fd = fx_udp_socket(big.port);
    assert_true(fd >= 0);
    int rcvbuf = 1 << 22;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    assert_true(fx_udp_handshake_token(fd, rx, FX_TOKEN, NULL) != 0);
    m = watch_msg(2, 1);
    assert_true(fx_udp_send(fd, &m) > 0);
    size_t udp_bytes = 0;
    uint32_t datagrams = 0;
    uint32_t per = sweep_udp_max_entity_states();
    seen = 0;
    tick = 0;
    for (int n = 0; n < 100000; n++) {
        ssize_t len = fx_udp_recv(fd, rx, &m, 5000);
        assert_true(len > 0 && len <= (ssize_t)SWEEP_UDP_MAX_DATAGRAM);
        if (m.sequence != 0)
            continue;
        assert_true(m.as.entity_states.count <= per);
        if (m.as.entity_states.tick != tick) {
            tick = m.as.entity_states.tick;
            udp_bytes = 0;
            datagrams = 0;
            seen = 0;
        }
        udp_bytes += (size_t)len;
        datagrams++;
        seen += m.as.entity_states.count;
        if (seen == BIG)
            break;
    }
    assert_int_equal(seen, BIG);
    m = watch_msg(3, 0);
    fx_udp_send(fd, &m);
    m = fx_msg(SWEEP_MSG_BYE, 4);
    fx_udp_send(fd, &m);
    close(fd);
    close(owner);
    assert_int_equal(fx_stop(&big), 0);

    /* 96 bytes an entity, and what framing adds. */
    assert_int_equal(datagrams, (BIG + per - 1) / per);
    assert_true(udp_bytes > 96u * BIG && udp_bytes < 96u * BIG + 128u * datagrams);
    assert_true(tcp_bytes > 96u * BIG && tcp_bytes < 96u * BIG + 128u * tcp_frames);
    /* What leaves the machine: 28 bytes of IPv4 and UDP headers a datagram. */
    printf("BENCH name=entity_states entities=%u per_datagram=%u udp_datagrams=%u udp_bytes_per_tick=%zu "
           "udp_wire_bytes_per_tick=%zu tcp_frames=%u tcp_bytes_per_tick=%zu udp_bytes_per_s_60hz=%zu "
           "tcp_bytes_per_s_60hz=%zu\n",
           BIG, per, datagrams, udp_bytes, udp_bytes + 28u * datagrams, tcp_frames, tcp_bytes, udp_bytes * 60u,
           tcp_bytes * 60u);
}

int main(int argc, char **argv)
{
    fx_init(argv[0]);
    (void)argc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_tcp),
        cmocka_unit_test(test_watch_udp),
        cmocka_unit_test(test_get_entity),
        cmocka_unit_test(test_bytes_per_tick),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
