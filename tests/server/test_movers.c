/*
 * test_movers.c - movers through sweepd: WatchWorld and its WorldState
 * pushes (TCP, and UDP split over datagrams), MoverCommand (refused
 * without the --command-token, UnknownMover for a bad name, fired with
 * it), an entity riding a lift (ground_mover, carried, start_position),
 * an entity crushed by a CRUSH mover (an unasked Despawned), and bad
 * input to the new messages.
 *
 * The map is built here (maps/writer.h), not taken from arena.sql, so the
 * test says exactly what it stands on: a floor, a lift that always runs
 * up and down, a door and a crusher that run on command, and enough idle
 * boxes that the movers do not fit one UDP datagram. The server reads the
 * token from a config file, which is also how the man page advises
 * passing it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "maps/loader.h"
#include "maps/writer.h"
#include "protocol/builder.h"
#include "tests/sweepd_fixture.h"

#define TOKEN "lift-operator-7f3a"
#define LIFT_ID 7u
#define DOOR_ID 9u
#define CRUSHER_ID 11u
#define DECO_FIRST_ID 100u
#define DECO_COUNT 20u
#define MOVER_COUNT (3u + DECO_COUNT)

static fx_server srv;
static fx_rx *rx;
static char dir[64], map_path[128], conf_path[128];
static const double DT = 1.0 / 60.0;
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

/* An axis-aligned box lo..hi in the mover's frame, faces out. */
static sweep_status box_mover(sweep_level *lv, uint32_t id, const char *name, sweep_vec3 lo, sweep_vec3 hi,
                              sweep_level_mover **out)
{
    uint32_t index;
    sweep_status st = sweep_level_add_mover(lv, id, name, &index);
    if (st != SWEEP_OK)
        return st;
    sweep_level_mover *m = &lv->movers[index];
    for (uint32_t i = 0; i < 8 && st == SWEEP_OK; i++)
        st = sweep_level_mover_add_vertex(m, sweep_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z),
                                          NULL);
    static const uint32_t tris[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                                         {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    for (int t = 0; t < 12 && st == SWEEP_OK; t++)
        st = sweep_level_mover_add_triangle(m, tris[t][0], tris[t][1], tris[t][2], 1);
    *out = m;
    return st;
}

/* Two keyframes, no rotation: from a at 0 s to b at `seconds`. */
static sweep_status path(sweep_level_mover *m, sweep_vec3 a, sweep_vec3 b, double seconds)
{
    sweep_status st = sweep_level_mover_add_keyframe(m, 0.0, a, sweep_quat_identity());
    return st == SWEEP_OK ? sweep_level_mover_add_keyframe(m, seconds, b, sweep_quat_identity()) : st;
}

static int make_map(void)
{
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "movers-test");
    lv.tick_rate = 60.0;
    sweep_status st = sweep_level_add_material(&lv, 1, "floor", 0.8, 0);
    if (st == SWEEP_OK)
        st = sweep_level_add_quad(&lv, sweep_v3(-40, -40, 0), sweep_v3(40, -40, 0), sweep_v3(40, 40, 0),
                                  sweep_v3(-40, 40, 0), 1);
    if (st == SWEEP_OK)
        st = sweep_level_add_spawn(&lv, sweep_v3(0, 0, 1));
    sweep_level_mover *m = NULL;
    /* The lift: a 2 x 2 m platform, top from z = 0.5 to 3.5 and back, for ever. */
    if (st == SWEEP_OK)
        st = box_mover(&lv, LIFT_ID, "lift", sweep_v3(-1, -1, -0.5), sweep_v3(1, 1, 0), &m);
    if (st == SWEEP_OK) {
        m->mode = SWEEP_MOVER_PINGPONG;
        m->trigger = SWEEP_TRIGGER_ALWAYS;
        m->blocked = SWEEP_BLOCKED_STOP;
        st = path(m, sweep_v3(5, 0, 0.5), sweep_v3(5, 0, 3.5), 1.0);
    }
    /* The door: slides 2 m along +y once commanded. */
    if (st == SWEEP_OK)
        st = box_mover(&lv, DOOR_ID, "door", sweep_v3(-0.1, -1, 0), sweep_v3(0.1, 1, 2.5), &m);
    if (st == SWEEP_OK) {
        m->trigger = SWEEP_TRIGGER_COMMAND;
        st = path(m, sweep_v3(-5, 10, 0), sweep_v3(-5, 12, 0), 1.0);
    }
    /* The crusher: a block coming down onto the floor once commanded. */
    if (st == SWEEP_OK)
        st = box_mover(&lv, CRUSHER_ID, "crusher", sweep_v3(-1, -1, 0), sweep_v3(1, 1, 1), &m);
    if (st == SWEEP_OK) {
        m->trigger = SWEEP_TRIGGER_COMMAND;
        m->blocked = SWEEP_BLOCKED_CRUSH;
        st = path(m, sweep_v3(-15, 0, 3), sweep_v3(-15, 0, 0), 0.5);
    }
    /* Idle boxes, so that the movers need more than one UDP datagram. */
    for (uint32_t i = 0; i < DECO_COUNT && st == SWEEP_OK; i++) {
        char name[32];
        snprintf(name, sizeof name, "deco_%u", i);
        st = box_mover(&lv, DECO_FIRST_ID + i, name, sweep_v3(-0.25, -0.25, 0), sweep_v3(0.25, 0.25, 0.5), &m);
        if (st == SWEEP_OK) {
            m->trigger = SWEEP_TRIGGER_COMMAND;
            st = path(m, sweep_v3(25, -20.0 + 2 * i, 0), sweep_v3(25, -20.0 + 2 * i, 1), 1.0);
        }
    }
    char err[512];
    if (st != SWEEP_OK || sweep_map_write(map_path, &lv, NULL, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "test map: %s\n", st != SWEEP_OK ? sweep_status_message(st) : err);
        sweep_level_free(&lv);
        return -1;
    }
    sweep_level_free(&lv);
    /* Every test below needs the movers: a map that loses them fails setup. */
    sweep_level back;
    if (sweep_map_load(map_path, &back, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "test map does not load back: %s\n", err);
        return -1;
    }
    int kept = back.mover_count == MOVER_COUNT;
    if (!kept)
        fprintf(stderr, "test map: written with %u movers, loaded back with %u\n", MOVER_COUNT, back.mover_count);
    sweep_level_free(&back);
    return kept ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    snprintf(dir, sizeof dir, "/tmp/sweep-movers-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(map_path, sizeof map_path, "%s/movers.db", dir);
    snprintf(conf_path, sizeof conf_path, "%s/sweepd.conf", dir);
    FILE *f = fopen(conf_path, "w");
    if (!f)
        return -1;
    fprintf(f, "# trusted game servers say this in Hello.auth_token\ncommand-token = %s\n", TOKEN);
    fclose(f);
    if (make_map() != 0)
        return -1;
    const char *args[] = {"--config", conf_path, NULL};
    return fx_start_map(&srv, map_path, args);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&srv);
    free(rx);
    unlink(map_path);
    unlink(conf_path);
    rmdir(dir);
    return rc == 0 ? 0 : -1;
}

static int welcomed(const char *token)
{
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, token) != 0);
    return fd;
}

/* The next frame that is not an unasked WorldState push. */
static void recv_answer(int fd, sweep_message *m)
{
    for (;;) {
        assert_int_equal(fx_recv(fd, rx, m), 1);
        if (!(m->kind == SWEEP_MSG_WORLD_STATE && m->sequence == 0))
            return;
    }
}

/* 1 if nothing at all arrives on fd within ms milliseconds. */
static int silent_for(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) == 0;
}

static sweep_message watch_msg(uint32_t seq, uint32_t every)
{
    sweep_message m = fx_msg(SWEEP_MSG_WATCH_WORLD, seq);
    m.as.watch_world.every = every;
    return m;
}

static sweep_message command_msg(uint32_t seq, const char *name, uint32_t len)
{
    sweep_message m = fx_msg(SWEEP_MSG_MOVER_COMMAND, seq);
    m.as.mover_command.mover.ptr = name;
    m.as.mover_command.mover.len = len;
    return m;
}

static void assert_full_world_state(const sweep_message *m)
{
    assert_int_equal(m->kind, SWEEP_MSG_WORLD_STATE);
    assert_int_equal(m->as.world_state.mover_count, MOVER_COUNT);
    assert_int_equal(m->as.world_state.count, MOVER_COUNT);
    assert_int_equal(m->as.world_state.tick, m->server_tick);
    const sweep_wire_mover *v = m->as.world_state.movers;
    assert_int_equal(v[0].id, LIFT_ID);
    assert_int_equal(v[1].id, DOOR_ID);
    assert_int_equal(v[2].id, CRUSHER_ID);
    for (uint32_t i = 0; i < DECO_COUNT; i++)
        assert_int_equal(v[3 + i].id, DECO_FIRST_ID + i);
    for (uint32_t i = 0; i < MOVER_COUNT; i++) {
        assert_true(sweep_v3_isfinite(v[i].position));
        assert_int_equal(v[i].flags & ~7u, 0);
    }
}

/* WatchWorld over TCP: a WorldState at once, then pushes with increasing
 * ticks, until every = 0 stops them. */
static void test_watch_world_tcp(void **state)
{
    (void)state;
    int fd = welcomed(NULL);
    sweep_message m = watch_msg(5, 3);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.sequence, 5);
    assert_full_world_state(&m);
    uint64_t last = m.as.world_state.tick;
    double lift_z = m.as.world_state.movers[0].position.z;
    int lift_moved = 0;
    for (int i = 0; i < 8; i++) {
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.sequence, 0);
        assert_full_world_state(&m);
        /* Every third tick: a multiple of 3 is among the ticks since the
         * last one; a late timer may run several ticks at once and then
         * sends only the latest, which need not be that multiple. */
        assert_true(m.as.world_state.tick > last);
        assert_true(m.as.world_state.tick / 3 > last / 3);
        last = m.as.world_state.tick;
        lift_moved |= m.as.world_state.movers[0].position.z != lift_z;
        /* The lift runs without a trigger; the door waits for one. */
        assert_true(m.as.world_state.movers[0].position.z >= 0.5 && m.as.world_state.movers[0].position.z <= 3.5);
        assert_int_equal(m.as.world_state.movers[1].flags & SWEEP_WIRE_MOVER_MOVED, 0);
    }
    assert_true(lift_moved);

    m = watch_msg(6, 0);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &m);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_STATE);
    assert_int_equal(m.sequence, 6);
    assert_true(silent_for(fd, 300)); /* 18 ticks: no push any more */
    close(fd);
}

/* The next push (sequence 0) on fd: its tick, after every earlier one. */
static uint64_t next_push(int fd, uint64_t after)
{
    sweep_message m;
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_STATE);
    assert_int_equal(m.sequence, 0);
    assert_true(m.as.world_state.tick > after);
    return m.as.world_state.tick;
}

/* The ticks push to the sessions that watch, and only to them, as they
 * start and stop watching or leave, whichever place they hold among the
 * watchers (the first to watch, one in between, the latest). */
static void test_watchers_come_and_go(void **state)
{
    (void)state;
    int fd[4];
    sweep_message m;
    for (int i = 0; i < 3; i++) {
        fd[i] = welcomed(NULL);
        m = watch_msg(1, 2);
        assert_int_equal(fx_send(fd[i], &m), 0);
        recv_answer(fd[i], &m);
        assert_int_equal(m.sequence, 1);
    }
    close(fd[1]); /* one in between leaves without a word */
    m = watch_msg(2, 0); /* the first to watch stops */
    assert_int_equal(fx_send(fd[0], &m), 0);
    recv_answer(fd[0], &m);
    assert_int_equal(m.sequence, 2);
    fd[3] = welcomed(NULL); /* and one more starts */
    m = watch_msg(3, 1);
    assert_int_equal(fx_send(fd[3], &m), 0);
    recv_answer(fd[3], &m);
    assert_int_equal(m.sequence, 3);
    uint64_t t2 = 0, t3 = 0;
    for (int i = 0; i < 4; i++) {
        t2 = next_push(fd[2], t2);
        t3 = next_push(fd[3], t3);
    }
    assert_true(silent_for(fd[0], 200));
    /* The latest to watch stops; the one left keeps its pushes. */
    m = watch_msg(4, 0);
    assert_int_equal(fx_send(fd[3], &m), 0);
    recv_answer(fd[3], &m);
    assert_int_equal(m.sequence, 4);
    for (int i = 0; i < 3; i++)
        t2 = next_push(fd[2], t2);
    assert_true(silent_for(fd[3], 200));
    close(fd[2]);
    close(fd[3]);
    /* The first watches again, alone now. */
    m = watch_msg(5, 1);
    assert_int_equal(fx_send(fd[0], &m), 0);
    recv_answer(fd[0], &m);
    assert_int_equal(m.sequence, 5);
    uint64_t t0 = 0;
    for (int i = 0; i < 3; i++)
        t0 = next_push(fd[0], t0);
    close(fd[0]);
}

/* WatchWorld over UDP: 23 movers need two datagrams per tick, each a
 * whole WorldState of the same tick within 1200 bytes. */
static void test_watch_world_udp_split(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_udp_handshake(fd, rx) != 0);
    sweep_message m = watch_msg(9, 2);
    assert_true(fx_udp_send(fd, &m) > 0);
    uint32_t per_datagram = sweep_udp_max_movers();
    assert_true(per_datagram < MOVER_COUNT);
    /* The answer: datagrams with sequence 9; then pushes (sequence 0). */
    uint64_t tick = UINT64_MAX;
    uint32_t answer_movers = 0, pushed_ticks = 0, pushed_movers = 0;
    uint64_t push_tick = UINT64_MAX;
    for (int n = 0; n < 200 && pushed_ticks < 3; n++) {
        ssize_t len = fx_udp_recv(fd, rx, &m, 5000);
        assert_true(len > 0);
        assert_true(len <= SWEEP_UDP_MAX_DATAGRAM);
        assert_int_equal(m.kind, SWEEP_MSG_WORLD_STATE);
        assert_int_equal(m.as.world_state.mover_count, MOVER_COUNT);
        assert_true(m.as.world_state.count >= 1 && m.as.world_state.count <= per_datagram);
        if (m.sequence == 9) {
            if (tick == UINT64_MAX)
                tick = m.as.world_state.tick;
            assert_int_equal(m.as.world_state.tick, tick);
            answer_movers += m.as.world_state.count;
            continue;
        }
        assert_int_equal(m.sequence, 0);
        if (m.as.world_state.tick != push_tick) {
            if (push_tick != UINT64_MAX && pushed_movers == MOVER_COUNT)
                pushed_ticks++;
            push_tick = m.as.world_state.tick;
            pushed_movers = 0;
        }
        pushed_movers += m.as.world_state.count;
    }
    assert_int_equal(answer_movers, MOVER_COUNT);
    assert_true(pushed_ticks >= 3);
    m = watch_msg(10, 0);
    assert_true(fx_udp_send(fd, &m) > 0);
    for (;;) { /* pushes already on the way, then the answer */
        assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
        if (m.sequence == 10)
            break;
    }
    while (fx_udp_recv(fd, rx, &m, 100) > 0) /* the answer's second datagram */
        assert_int_equal(m.sequence, 10);
    assert_int_equal(fx_udp_recv(fd, rx, &m, 300), 0);
    m = fx_msg(SWEEP_MSG_BYE, 11);
    fx_udp_send(fd, &m);
    close(fd);
}

/* Only a session of the server role (here: whose Hello carried the
 * command token) may command movers; the others learn nothing about the
 * names. A token that is neither the command token nor a sweep1 token
 * does not even get a Welcome. */
static void test_command_needs_token(void **state)
{
    (void)state;
    const char *wrong[] = {"lift-operator", TOKEN "x", TOKEN "\n"};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        int fd = fx_tcp_connect(srv.port);
        assert_true(fd >= 0);
        sweep_message h = fx_hello_msg("impostor"), r;
        h.as.hello.auth_token = sweep_str_of(wrong[i]);
        assert_int_equal(fx_expect_error(fd, rx, &h, NULL), SWEEP_WIRE_AUTH_FAILED);
        sweep_message m = command_msg(3, "door", 4);
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &r), 1);
        assert_int_equal(r.kind, SWEEP_MSG_ERROR);
        assert_int_equal(r.as.error.code, SWEEP_WIRE_NOT_WELCOMED);
        close(fd);
    }
    const char *guests[] = {NULL, ""};
    for (size_t i = 0; i < sizeof guests / sizeof guests[0]; i++) {
        int fd = welcomed(guests[i]);
        sweep_message m = command_msg(3, "door", 4), r;
        assert_int_equal(fx_send(fd, &m), 0);
        recv_answer(fd, &r);
        assert_int_equal(r.kind, SWEEP_MSG_ERROR);
        assert_int_equal(r.as.error.code, SWEEP_WIRE_AUTH_FAILED);
        assert_int_equal(r.as.error.sequence, 3);
        /* Word for word: the text is built from the kind's name (auth.c). */
        assert_string_equal(r.as.error.message.ptr,
                            "MoverCommand needs the server role: Hello.auth_token must be a server token "
                            "(sweep1:server:...) or the server's --command-token");
        m = command_msg(4, "nope", 4);
        assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_AUTH_FAILED);
        close(fd);
    }
}

/* With the token: bad names are UnknownMover, a good one fires at the
 * next tick and the door is seen moving. */
static void test_command_with_token(void **state)
{
    (void)state;
    int fd = welcomed(TOKEN);
    uint32_t seq = 0;
    sweep_message m = command_msg(20, "nope", 4);
    assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_UNKNOWN_MOVER);
    assert_int_equal(seq, 20);
    m = command_msg(21, "", 0);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_UNKNOWN_MOVER);
    m = command_msg(22, "door\0x", 6); /* a NUL inside names nothing */
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_UNKNOWN_MOVER);
    m = command_msg(23, "doo", 3);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_UNKNOWN_MOVER);
    char longname[300];
    memset(longname, 'd', sizeof longname);
    m = command_msg(24, longname, sizeof longname);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_UNKNOWN_MOVER);

    m = command_msg(25, "door", 4);
    sweep_message r;
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_MOVER_COMMANDED);
    assert_int_equal(r.sequence, 25);
    assert_int_equal(r.as.mover_commanded.mover, DOOR_ID);
    assert_int_equal(r.as.mover_commanded.tick, r.server_tick + 1);
    uint64_t fires = r.as.mover_commanded.tick;

    /* Watch every tick until the door has slid its 2 m. */
    m = watch_msg(26, 1);
    assert_int_equal(fx_send(fd, &m), 0);
    int moved = 0;
    double y = 10.0;
    uint64_t deadline = fx_now_ms() + 10000;
    while (y < 12.0 && fx_now_ms() < deadline) {
        assert_int_equal(fx_recv(fd, rx, &r), 1);
        assert_int_equal(r.kind, SWEEP_MSG_WORLD_STATE);
        const sweep_wire_mover *door = &r.as.world_state.movers[1];
        assert_int_equal(door->id, DOOR_ID);
        assert_true(door->position.y >= y);
        if (door->position.y > 10.0) {
            assert_true(r.as.world_state.tick >= fires);
            moved = 1;
        }
        y = door->position.y;
    }
    assert_true(moved);
    assert_true(y == 12.0);
    m = watch_msg(27, 0);
    assert_int_equal(fx_send(fd, &m), 0);
    close(fd);
}

/* An entity that lands on the lift stands on it (ground_mover), and the
 * ticks carry it: its next MoveResult says carried, by whom, and where
 * the lift had taken it. */
static void test_lift_carries_entity(void **state)
{
    (void)state;
    /* The server role places the entity above the lift; its moves are
     * Walk moves wishing nothing: the map's gravity brings it down. */
    int fd = welcomed(TOKEN);
    uint32_t e = fx_spawn(fd, rx, 2, sweep_v3(5, 0, 4.6), RADII);
    assert_true(e != 0);
    uint32_t seq = 10;
    sweep_message m, r;
    int on_lift = 0;
    for (int i = 0; i < 600 && !on_lift; i++) {
        m = fx_move_msg(e, ++seq, sweep_v3(0, 0, 0), DT);
        assert_int_equal(fx_send(fd, &m), 0);
        recv_answer(fd, &r);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
        on_lift = r.as.move_result.grounded && r.as.move_result.ground_mover == LIFT_ID;
    }
    assert_true(on_lift);
    /* Stand still while the lift runs (about 12 ticks), then move. */
    sweep_vec3 before = r.as.move_result.position;
    sweep_vec3 vbefore = r.as.move_result.velocity;
    usleep(200000);
    m = fx_move_msg(e, ++seq, sweep_v3(0, 0, 0), DT);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
    const sweep_msg_move_result *mr = &r.as.move_result;
    assert_true(mr->carried);
    assert_int_equal(mr->pushed_by, LIFT_ID);
    assert_true(mr->has_start_position);
    assert_true(mr->start_position.z != before.z);
    assert_true(mr->start_position.x == before.x && mr->start_position.y == before.y);
    assert_int_equal(mr->ground_mover, LIFT_ID);
    /* The lift's top is 0.5 .. 3.5; the entity stands 0.9 above it. */
    assert_true(mr->position.z > 1.3 && mr->position.z < 4.5);
    /* Standing, it kept no speed across the ground while carried. */
    assert_true(vbefore.x == 0.0 && vbefore.y == 0.0);
    assert_true(mr->velocity.x == 0.0 && mr->velocity.y == 0.0);
    assert_int_equal(mr->rules, 0);
    /* A resend of the same sequence gets the same answer, mover fields
     * too, after a later move's answer was made in between. */
    sweep_msg_move_result first = *mr;
    sweep_message later = fx_move_msg(e, seq + 1, sweep_v3(3, 0, 0), DT);
    assert_int_equal(fx_send(fd, &later), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.as.move_result.sequence, seq + 1);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.as.move_result.sequence, seq);
    assert_int_equal(r.as.move_result.pushed_by, first.pushed_by);
    assert_true(r.as.move_result.carried);
    assert_memory_equal(&r.as.move_result.start_position, &first.start_position, sizeof first.start_position);
    /* Contacts too (a kept result keeps those it has). */
    assert_int_equal(r.as.move_result.contact_count, first.contact_count);
    for (uint32_t i = 0; i < first.contact_count; i++) {
        const sweep_contact *a = &r.as.move_result.contacts[i], *b = &first.contacts[i];
        assert_memory_equal(&a->point, &b->point, sizeof b->point);
        assert_memory_equal(&a->normal, &b->normal, sizeof b->normal);
        assert_int_equal(a->triangle, b->triangle);
        assert_int_equal(a->material, b->material);
    }
    close(fd);
}

/* A CRUSH mover coming down on an entity takes it out of the world; its
 * owner hears it unasked, and the id is unknown from then on. */
static void test_crusher_despawns_entity(void **state)
{
    (void)state;
    int fd = welcomed(TOKEN);
    uint32_t e = fx_spawn(fd, rx, 2, sweep_v3(-15, 0, 0.95), RADII);
    assert_true(e != 0);
    sweep_message m = command_msg(3, "crusher", 7), r;
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_MOVER_COMMANDED);
    assert_int_equal(r.as.mover_commanded.mover, CRUSHER_ID);
    assert_int_equal(fx_recv(fd, rx, &r), 1); /* within the 0.5 s of its path */
    assert_int_equal(r.kind, SWEEP_MSG_DESPAWNED);
    assert_int_equal(r.sequence, 0);
    assert_int_equal(r.as.despawned.entity, e);
    assert_int_equal(r.as.despawned.crushed_by, CRUSHER_ID);
    m = fx_move_msg(e, 4, sweep_v3(1, 0, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_UNKNOWN_ENTITY);
    m = fx_msg(SWEEP_MSG_GET_STATS, 5);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_STATS);
    assert_int_equal(r.as.stats.movers, MOVER_COUNT);
    assert_true(r.as.stats.crushed_total >= 1);
    close(fd);
}

/* A new request kind built by hand without its required field. */
static int send_raw_command_without_name(int fd)
{
    static uint8_t out[256];
    sweep_builder b;
    sweep_builder_init(&b, out, sizeof out);
    sweep_builder_table_start(&b);
    sweep_ref body = sweep_builder_table_end(&b);
    sweep_builder_table_start(&b);
    sweep_builder_add_ref(&b, 3, body);
    sweep_builder_add_u32(&b, 0, 31);
    sweep_builder_add_u8(&b, 2, SWEEP_MSG_MOVER_COMMAND);
    sweep_ref root = sweep_builder_table_end(&b);
    const uint8_t *buf;
    size_t len;
    if (sweep_builder_finish(&b, root, SWEEP_WIRE_IDENTIFIER, 1, &buf, &len) != SWEEP_PROTO_OK)
        return -1;
    return fx_write_all(fd, buf, len);
}

/* Bad input to the new messages: each gets a clear Error and the
 * connection stays usable. */
static void test_bad_new_messages(void **state)
{
    (void)state;
    sweep_message m, r;
    /* Before Hello. */
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    m = watch_msg(1, 1);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_NOT_WELCOMED);
    m = command_msg(2, "door", 4);
    assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_NOT_WELCOMED);
    close(fd);

    fd = welcomed(TOKEN);
    /* MoverCommand without its required name. */
    assert_int_equal(send_raw_command_without_name(fd), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_MISSING_FIELD);
    /* Messages only the server sends. */
    sweep_msg_kind kinds[] = {SWEEP_MSG_WORLD_STATE, SWEEP_MSG_MOVER_COMMANDED, SWEEP_MSG_DESPAWNED};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        m = fx_msg(kinds[i], 40 + (uint32_t)i);
        sweep_wire_mover one = {.id = LIFT_ID, .rotation = {0, 0, 0, 1}};
        if (kinds[i] == SWEEP_MSG_WORLD_STATE) {
            m.as.world_state.movers = &one;
            m.as.world_state.count = 1;
        }
        uint32_t seq = 0;
        assert_int_equal(fx_expect_error(fd, rx, &m, &seq), SWEEP_WIRE_UNKNOWN_MESSAGE);
        assert_int_equal(seq, 40 + (uint32_t)i);
    }
    /* An interval of any size is accepted: the answer comes at once. */
    m = watch_msg(50, UINT32_MAX);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_STATE);
    assert_int_equal(r.sequence, 50);
    m = watch_msg(51, 0);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.sequence, 51);
    m = fx_msg(SWEEP_MSG_PING, 52);
    assert_int_equal(fx_send(fd, &m), 0);
    recv_answer(fd, &r);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    close(fd);
}

/* A server without --command-token or --auth-secret-file trusts nobody:
 * a token is refused at Hello, a guest may not command; its WatchWorld
 * answers all the arena's movers (none is fine too). */
static void test_server_without_token(void **state)
{
    (void)state;
    fx_server plain;
    assert_int_equal(fx_start(&plain, NULL), 0);
    int fd = fx_tcp_connect(plain.port);
    assert_true(fd >= 0);
    sweep_message h = fx_hello_msg("with a token");
    h.as.hello.auth_token = sweep_str_of(TOKEN);
    assert_int_equal(fx_expect_error(fd, rx, &h, NULL), SWEEP_WIRE_AUTH_FAILED);
    assert_true(fx_hello(fd, rx) != 0);
    sweep_message m = command_msg(2, "door", 4), r;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_AUTH_FAILED);
    assert_string_equal(r.as.error.message.ptr, "MoverCommand needs the server role, and this server trusts none "
                                                "(no --command-token, no --auth-secret-file)");
    m = watch_msg(3, 1);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_STATE);
    assert_int_equal(r.sequence, 3);
    assert_int_equal(r.as.world_state.count, r.as.world_state.mover_count);
    close(fd);
    assert_int_equal(fx_stop(&plain), 0);
}

static void test_server_survived(void **state)
{
    (void)state;
    assert_true(fx_alive(&srv));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_world_tcp),
        cmocka_unit_test(test_watch_world_udp_split),
        cmocka_unit_test(test_watchers_come_and_go),
        cmocka_unit_test(test_command_needs_token),
        cmocka_unit_test(test_command_with_token),
        cmocka_unit_test(test_lift_carries_entity),
        cmocka_unit_test(test_crusher_despawns_entity),
        cmocka_unit_test(test_bad_new_messages),
        cmocka_unit_test(test_server_without_token),
        cmocka_unit_test(test_server_survived),
    };
    return cmocka_run_group_tests_name("sweepd movers", tests, setup, teardown);
}
