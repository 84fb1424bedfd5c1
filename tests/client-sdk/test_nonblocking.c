/*
 * test_nonblocking.c - libsweep's calls that do not wait, against real
 * sweepd processes on the sample arena: connecting step by step from the
 * caller's own poll loop (TCP and UDP), within a deadline the caller
 * chooses (a peer that never answers, a refusal, a refused token); many
 * Spawns sent at once and answered through sweep_client_poll, matched by
 * sequence, a refused one among them; a Spawn nobody answers in time,
 * given up with an error event, its late answer still handed out once;
 * batches larger than Welcome.max_batch cut into several, every move
 * answered once, the bytes of the answers counted once in the events'
 * wire_bytes; an Error about a whole batch handed out per move; and the
 * last error a client keeps.
 *
 * The sessions say Hello with the server's --command-token: the server
 * role spawns where it asks, as a game server relaying its players does.
 */
#include "tests/sweepd_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "core/vec3.h"

#define TOKEN "nonblocking-test-token"

static fx_server D;

static int setup(void **state)
{
    (void)state;
    const char *args[] = {"--command-token", TOKEN, NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

static void options_for(sweep_client_options *o, const fx_server *d, sweep_client_transport t, const char *token)
{
    sweep_client_options_init(o);
    o->transport = t;
    o->address = t == SWEEP_CLIENT_TCP ? d->tcp : d->udp;
    o->client_name = "test_nonblocking";
    o->auth_token = token;
    o->timeout_ms = 20000;
}

static sweep_client *connect_to(const fx_server *d, sweep_client_transport t)
{
    sweep_client_options o;
    options_for(&o, d, t, TOKEN);
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_client_status s = sweep_client_connect(&o, &c, &e);
    if (s != SWEEP_CLIENT_OK)
        fprintf(stderr, "connect %s: %s: %s\n", o.address, sweep_client_error_name(&e), e.message);
    assert_int_equal(s, SWEEP_CLIENT_OK);
    return c;
}

/* Drives a started client with the caller's own poll(2), as a game loop
 * would: waits for what sweep_client_poll_events says, then steps
 * without waiting. Returns the final status and counts the steps that
 * said AGAIN. */
static sweep_client_status drive(sweep_client *c, sweep_client_error *e, int *again)
{
    *again = 0;
    for (;;) {
        sweep_client_status s = sweep_client_connect_step(c, 0, e);
        if (s != SWEEP_CLIENT_E_AGAIN)
            return s;
        (*again)++;
        int ms;
        int events = sweep_client_poll_events(c, &ms);
        assert_true(events != 0);
        assert_true(ms >= 0); /* connecting always has a deadline */
        struct pollfd p = {.fd = sweep_client_fd(c), .events = (short)events};
        assert_true(poll(&p, 1, ms) >= 0);
    }
}

static void connecting_step_by_step(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client_options o;
        options_for(&o, &D, (sweep_client_transport)t, TOKEN);
        char addr[128];
        snprintf(addr, sizeof addr, "%s", o.address);
        o.address = addr;
        sweep_client *c = NULL;
        sweep_client_error e;
        assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
        assert_non_null(c);
        /* The options are the caller's again at once. */
        memset(addr, 'x', sizeof addr - 1);
        /* Nothing but the handshake goes out before the Welcome. */
        sweep_client_move_req m = {.entity = 1, .velocity = sweep_v3(1, 0, 0), .dt = 0.016};
        assert_int_equal(sweep_client_send_move(c, &m, NULL, &e), SWEEP_CLIENT_E_ARG);
        assert_non_null(strstr(e.message, "connecting"));
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_ARG);
        int again;
        sweep_client_status s = drive(c, &e, &again);
        if (s != SWEEP_CLIENT_OK)
            fprintf(stderr, "step: %s: %s\n", sweep_client_error_name(&e), e.message);
        assert_int_equal(s, SWEEP_CLIENT_OK);
        /* (How many steps it took is the scheduler's business: a step
         * goes as far as what arrived allows, the whole handshake if the
         * server answers as fast as the client reads.) */
        (void)again;
        const sweep_client_welcome *w = sweep_client_get_welcome(c);
        assert_string_equal(w->map_name, "arena");
        assert_int_equal(w->role, SWEEP_WIRE_ROLE_SERVER);
        assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_OK); /* done stays done */
        /* Connected: it waits to read, with no deadline of its own. */
        int ms;
        assert_int_equal(sweep_client_poll_events(c, &ms), POLLIN);
        assert_int_equal(ms, -1);
        uint64_t rtt;
        assert_int_equal(sweep_client_ping(c, &rtt, &e), SWEEP_CLIENT_OK);
        sweep_client_close(c);
    }
}

/* A TCP listener that never accepts (the kernel completes the connect,
 * nobody reads) or a UDP socket that never answers, on 127.0.0.1. */
static int silent_peer(int type, char *addr, size_t cap)
{
    int fd = socket(AF_INET, type, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    if (type == SOCK_STREAM)
        assert_int_equal(listen(fd, 4), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    snprintf(addr, cap, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    return fd;
}

static void connecting_gives_up_when_the_caller_said(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        char addr[64];
        int peer = silent_peer(t == SWEEP_CLIENT_TCP ? SOCK_STREAM : SOCK_DGRAM, addr, sizeof addr);
        sweep_client_options o;
        sweep_client_options_init(&o);
        o.transport = (sweep_client_transport)t;
        o.address = addr;
        o.timeout_ms = 1500; /* room for a loaded machine between the calls */
        o.udp_retry_ms = 50;
        sweep_client *c = NULL;
        sweep_client_error e;
        assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
        /* Without waiting, it comes back at once: nobody answers. */
        assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_E_AGAIN);
        assert_string_equal(sweep_client_status_name(e.status), "AGAIN");
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_E_AGAIN);
        /* Waiting without a limit ends at the client's own deadline. */
        assert_int_equal(sweep_client_connect_step(c, -1, &e), SWEEP_CLIENT_E_TIMEOUT);
        assert_non_null(strstr(e.message, "1500 ms"));
        if (t == SWEEP_CLIENT_UDP) {
            sweep_client_counters cc;
            sweep_client_get_counters(c, &cc);
            assert_true(cc.resends >= 2); /* the Hello, every 50 ms */
        }
        /* A failed client says so from then on, and waits for nothing. */
        assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_E_TIMEOUT);
        int ms;
        assert_int_equal(sweep_client_poll_events(c, &ms), 0);
        assert_int_equal(sweep_client_ping(c, NULL, NULL), SWEEP_CLIENT_E_TIMEOUT);
        sweep_client_close(c);
        close(peer);
        /* The blocking connect: the same, then no client. */
        peer = silent_peer(t == SWEEP_CLIENT_TCP ? SOCK_STREAM : SOCK_DGRAM, addr, sizeof addr);
        c = (sweep_client *)&o; /* anything: it must become NULL */
        assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_TIMEOUT);
        assert_null(c);
        close(peer);
    }
}

static void connecting_refused(void **state)
{
    (void)state;
    /* Nobody listening (port 1 is privileged and unused): CONNECT. */
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = "127.0.0.1:1";
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_client_status s = sweep_client_connect_start(&o, &c, &e);
    if (s == SWEEP_CLIENT_OK) { /* the refusal may come after the start */
        int again;
        s = drive(c, &e, &again);
        sweep_client_close(c);
    }
    assert_int_equal(s, SWEEP_CLIENT_E_CONNECT);
    /* The server's Error to the Hello, with its code. */
    for (int t = 0; t < 2; t++) {
        options_for(&o, &D, (sweep_client_transport)t, "not the token");
        assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
        int again;
        assert_int_equal(drive(c, &e, &again), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
        assert_int_equal(sweep_client_last_error(c)->code, SWEEP_WIRE_AUTH_FAILED);
        sweep_client_close(c);
    }
}

static void many_spawns_one_wait(void **state)
{
    (void)state;
    enum { N = 40 };
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to(&D, (sweep_client_transport)t);
        sweep_client_error e;
        uint32_t seq[N + 1];
        for (int i = 0; i < N; i++) {
            sweep_client_spawn_req r = {.position = sweep_v3(-10 + 0.5 * i, -7, 0.95)};
            assert_int_equal(sweep_client_send_spawn(c, &r, &seq[i], &e), SWEEP_CLIENT_OK);
            if (i > 0)
                assert_true(seq[i] > seq[i - 1]);
        }
        /* One the server refuses, among them. */
        sweep_client_spawn_req bad = {.position = sweep_v3(0, -7, 0.95), .radii = sweep_v3(0, 1, 1)};
        assert_int_equal(sweep_client_send_spawn(c, &bad, &seq[N], &e), SWEEP_CLIENT_OK);
        /* While they wait, the client wants to be called back before the
         * first would be given up. */
        int ms;
        assert_int_equal(sweep_client_poll_events(c, &ms), POLLIN);
        assert_true(ms >= 0 && ms <= 20000);
        int spawned[N] = {0}, refused = 0;
        uint32_t entities[N];
        for (int got = 0; got < N + 1;) {
            sweep_client_event ev;
            assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
            if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
                assert_int_equal(ev.as.error.sequence, seq[N]);
                assert_int_equal(ev.as.error.code, SWEEP_WIRE_BAD_RADII);
                refused++;
                got++;
                continue;
            }
            assert_int_equal(ev.kind, SWEEP_CLIENT_EV_SPAWNED);
            int i = 0;
            while (i < N && seq[i] != ev.sequence)
                i++;
            assert_true(i < N);
            assert_int_equal(spawned[i], 0);
            spawned[i] = 1;
            entities[i] = ev.as.spawned.entity;
            assert_true(ev.as.spawned.position.x == -10 + 0.5 * i);
            got++;
        }
        assert_int_equal(refused, 1);
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++)
                assert_true(entities[i] != entities[j]);
        /* Nothing more, and nothing left to wait for. */
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 200, &ev, &e), SWEEP_CLIENT_E_TIMEOUT);
        assert_int_equal(sweep_client_poll_events(c, &ms), POLLIN);
        assert_int_equal(ms, -1);
        /* The entities are this session's: each moves. */
        sweep_msg_move_result r;
        assert_int_equal(sweep_client_move(c, entities[N - 1], sweep_v3(1, 0, 0), 1.0 / 60, &r, &e), SWEEP_CLIENT_OK);
        sweep_client_close(c);
    }
}

/* A Spawn the server does not answer in time (stopped with SIGSTOP) is
 * given up with an Error event of the client's own; over UDP the newest
 * Spawn is resent meanwhile, and once the server runs again its answer
 * still comes, once. */
static void an_unanswered_spawn_is_given_up(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        fx_server d;
        const char *args[] = {"--command-token", TOKEN, NULL};
        assert_int_equal(fx_start(&d, args), 0);
        sweep_client_options o;
        options_for(&o, &d, (sweep_client_transport)t, TOKEN);
        o.timeout_ms = 2000;
        o.udp_retry_ms = 50;
        sweep_client *c = NULL;
        sweep_client_error e;
        assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
        assert_int_equal(kill(d.pid, SIGSTOP), 0);
        uint32_t seq;
        sweep_client_spawn_req r = {.position = sweep_v3(4, -7, 0.95)};
        assert_int_equal(sweep_client_send_spawn(c, &r, &seq, &e), SWEEP_CLIENT_OK);
        sweep_client_event ev;
        sweep_client_status s;
        while ((s = sweep_client_poll(c, 5000, &ev, &e)) == SWEEP_CLIENT_OK && ev.kind != SWEEP_CLIENT_EV_ERROR)
            ;
        assert_int_equal(s, SWEEP_CLIENT_OK);
        assert_int_equal(ev.as.error.status, SWEEP_CLIENT_E_TIMEOUT);
        assert_int_equal(ev.as.error.sequence, seq);
        assert_int_equal(ev.sequence, seq);
        assert_string_equal(sweep_client_error_name(&ev.as.error), "TIMEOUT");
        sweep_client_counters cc;
        sweep_client_get_counters(c, &cc);
        if (t == SWEEP_CLIENT_UDP)
            assert_true(cc.resends >= 3);
        assert_int_equal(kill(d.pid, SIGCONT), 0);
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_SPAWNED);
        assert_int_equal(ev.sequence, seq);
        /* The Pong comes after every answer to what was sent before it:
         * over UDP every copy of the Spawn was answered, with the same
         * entity, and only one answer was handed out. */
        assert_int_equal(sweep_client_ping(c, NULL, &e), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_TIMEOUT);
        if (t == SWEEP_CLIENT_UDP) {
            sweep_client_get_counters(c, &cc);
            assert_true(cc.duplicates >= 1);
        }
        /* A blocking spawn gives up alike, and leaves no event behind. */
        assert_int_equal(kill(d.pid, SIGSTOP), 0);
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, r.position, sweep_v3(0, 0, 0), &sp, &e), SWEEP_CLIENT_E_TIMEOUT);
        assert_non_null(strstr(e.message, "Spawn"));
        assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_TIMEOUT);
        assert_int_equal(kill(d.pid, SIGCONT), 0);
        sweep_client_close(c);
        assert_int_equal(fx_stop(&d), 0);
    }
}

static void batches_are_cut_to_max_batch(void **state)
{
    (void)state;
    enum { ENTITIES = 10, MOVES = 100 };
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to(&D, (sweep_client_transport)t);
        sweep_client_error e;
        uint32_t per = sweep_client_max_batch(c);
        assert_true(per < MOVES); /* 64 over TCP, what a datagram holds over UDP */
        uint32_t entity[ENTITIES];
        for (int i = 0; i < ENTITIES; i++) {
            sweep_msg_spawned sp;
            assert_int_equal(sweep_client_spawn(c, sweep_v3(-10 + 2.0 * i, -7, 0.95), sweep_v3(0, 0, 0), &sp, &e),
                             SWEEP_CLIENT_OK);
            entity[i] = sp.entity;
        }
        sweep_client_move_req m[MOVES];
        for (int i = 0; i < MOVES; i++)
            m[i] = (sweep_client_move_req){.entity = entity[i % ENTITIES], .velocity = sweep_v3(0, 1, 0),
                                           .dt = 1.0 / 60, .has_claimed_position = 1,
                                           .claimed_position = sweep_v3(0, 0, 1)};
        uint32_t told[MOVES], seq[MOVES];
        sweep_client_batch_sequences(c, MOVES, told);
        uint32_t first = sweep_client_next_sequence(c);
        sweep_client_counters c0, c1;
        sweep_client_get_counters(c, &c0);
        assert_int_equal(sweep_client_send_batch(c, m, MOVES, seq, &e), SWEEP_CLIENT_OK);
        assert_memory_equal(seq, told, sizeof seq);
        /* One number for each MoveBatch, then its moves'. */
        uint32_t batches = (MOVES + per - 1) / per;
        assert_int_equal(sweep_client_next_sequence(c), first + batches + MOVES);
        uint32_t gaps = seq[0] - first;
        for (int i = 1; i < MOVES; i++)
            gaps += seq[i] - seq[i - 1] - 1;
        assert_int_equal(gaps, batches);
        /* Every move answered once, none refused; the answers' messages
         * counted once each in wire_bytes, which add up to what came. */
        int answered[MOVES] = {0};
        uint64_t wire = 0, carrying = 0;
        for (int got = 0; got < MOVES; got++) {
            sweep_client_event ev;
            assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
            if (ev.kind == SWEEP_CLIENT_EV_ERROR)
                fail_msg("%s: %s", sweep_client_error_name(&ev.as.error), ev.as.error.message);
            wire += ev.wire_bytes;
            carrying += ev.wire_bytes != 0;
            assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
            int i = 0;
            while (i < MOVES && seq[i] != ev.as.move_result.sequence)
                i++;
            assert_true(i < MOVES);
            assert_int_equal(answered[i]++, 0);
            assert_int_equal(ev.as.move_result.entity, m[i].entity);
        }
        sweep_client_get_counters(c, &c1);
        assert_int_equal(wire, c1.bytes_received - c0.bytes_received);
        assert_int_equal(carrying, c1.frames_received - c0.frames_received);
        assert_true(carrying < MOVES); /* results come several to a message */
        /* Bad arguments send nothing at all. */
        m[MOVES / 2].mode = 300;
        uint32_t before = sweep_client_next_sequence(c);
        assert_int_equal(sweep_client_send_batch(c, m, MOVES, seq, NULL), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_next_sequence(c), before);
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_E_ARG);
        assert_non_null(strstr(sweep_client_last_error(c)->message, "mode 300"));
        sweep_client_close(c);
    }
}

/* More MoveBatch datagrams than one system call sends (the client sends
 * them in groups, sendmmsg on Linux): every one goes, once, in order, and
 * each move is answered once with the number the caller was told. */
static void many_datagrams_go_whole_and_in_order(void **state)
{
    (void)state;
    enum { MOVES = 150 };
    fx_server d;
    const char *args[] = {"--command-token", TOKEN, "--max-batch", "2", "--rate-limit", "0", NULL};
    assert_int_equal(fx_start(&d, args), 0);
    sweep_client *c = connect_to(&d, SWEEP_CLIENT_UDP);
    sweep_client_error e;
    assert_int_equal(sweep_client_max_batch(c), 2);
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, sweep_v3(4, -7, 0.95), sweep_v3(0, 0, 0), &sp, &e), SWEEP_CLIENT_OK);
    sweep_client_move_req m[MOVES];
    for (int i = 0; i < MOVES; i++)
        m[i] = (sweep_client_move_req){.entity = sp.entity, .velocity = sweep_v3(0.1 * (i % 7), 0, 0),
                                       .dt = 1.0 / 60};
    uint32_t told[MOVES], seq[MOVES];
    sweep_client_batch_sequences(c, MOVES, told);
    sweep_client_counters c0, c1;
    sweep_client_get_counters(c, &c0);
    assert_int_equal(sweep_client_send_batch(c, m, MOVES, seq, &e), SWEEP_CLIENT_OK);
    assert_memory_equal(seq, told, sizeof seq);
    sweep_client_get_counters(c, &c1);
    assert_int_equal(c1.frames_sent - c0.frames_sent, MOVES / 2); /* 75 datagrams: three groups */
    /* One entity's moves are applied in the order sent, so their answers
     * come in that order. */
    for (int got = 0; got < MOVES; got++) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_ERROR)
            fail_msg("%s: %s", sweep_client_error_name(&ev.as.error), ev.as.error.message);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        assert_int_equal(ev.as.move_result.sequence, seq[got]);
    }
    sweep_client_get_counters(c, &c1);
    assert_int_equal(c1.resends, c0.resends);
    sweep_client_close(c);
    assert_int_equal(fx_stop(&d), 0);
}

/* A server that refuses a whole MoveBatch (RateLimited: 12 requests a
 * second for the server role, 8 moves a batch) names the batch; the client hands out an Error
 * per move of it, naming the move and its entity. */
static void an_error_about_a_batch_comes_per_move(void **state)
{
    (void)state;
    fx_server d;
    const char *args[] = {"--command-token", TOKEN, "--rate-limit-server", "12", "--max-batch", "8", NULL};
    assert_int_equal(fx_start(&d, args), 0);
    sweep_client *c = connect_to(&d, SWEEP_CLIENT_TCP);
    sweep_client_error e;
    assert_int_equal(sweep_client_max_batch(c), 8);
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, sweep_v3(4, -7, 0.95), sweep_v3(0, 0, 0), &sp, &e), SWEEP_CLIENT_OK);
    /* 11 tokens left: the first batch (8) goes, the second does not. */
    sweep_client_move_req m[16];
    for (int i = 0; i < 16; i++)
        m[i] = (sweep_client_move_req){.entity = sp.entity, .velocity = sweep_v3(1, 0, 0), .dt = 1.0 / 60};
    uint32_t seq[16];
    assert_int_equal(sweep_client_send_batch(c, m, 16, seq, &e), SWEEP_CLIENT_OK);
    int results = 0, limited = 0;
    for (int got = 0; got < 16; got++) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_MOVE_RESULT) {
            assert_int_equal(ev.as.move_result.sequence, seq[results]);
            results++;
            continue;
        }
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_ERROR);
        assert_int_equal(ev.as.error.code, SWEEP_WIRE_RATE_LIMITED);
        assert_int_equal(ev.as.error.sequence, seq[8 + limited]);
        assert_int_equal(ev.sequence, seq[8 + limited]);
        assert_int_equal(ev.as.error.entity, sp.entity);
        limited++;
    }
    assert_int_equal(results, 8);
    assert_int_equal(limited, 8);
    sweep_client_close(c);
    assert_int_equal(fx_stop(&d), 0);
}

static void the_last_error_is_kept(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to(&D, (sweep_client_transport)t);
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_OK);
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, sweep_v3(4, -7, 0.95), sweep_v3(0, 0, 0), &sp, NULL), SWEEP_CLIENT_OK);
        /* The server's refusal, without an err to put it in. */
        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(1, 0, 0), 0.0, NULL, NULL), SWEEP_CLIENT_E_SERVER);
        const sweep_client_error *last = sweep_client_last_error(c);
        assert_int_equal(last->status, SWEEP_CLIENT_E_SERVER);
        assert_int_equal(last->code, SWEEP_WIRE_BAD_DT);
        assert_int_equal(last->entity, sp.entity);
        assert_true(last->sequence > 0);
        assert_true(strlen(last->message) > 0);
        /* The client's own refusal. */
        assert_int_equal(sweep_client_set_redundancy(c, 99, NULL), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_E_ARG);
        /* A success clears it. */
        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(1, 0, 0), 1.0 / 60, NULL, NULL), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_OK);
        assert_string_equal(sweep_client_last_error(c)->message, "");
        sweep_client_close(c);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(connecting_step_by_step),
        cmocka_unit_test(connecting_gives_up_when_the_caller_said),
        cmocka_unit_test(connecting_refused),
        cmocka_unit_test(many_spawns_one_wait),
        cmocka_unit_test(an_unanswered_spawn_is_given_up),
        cmocka_unit_test(batches_are_cut_to_max_batch),
        cmocka_unit_test(many_datagrams_go_whole_and_in_order),
        cmocka_unit_test(an_error_about_a_batch_comes_per_move),
        cmocka_unit_test(the_last_error_is_kept),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
