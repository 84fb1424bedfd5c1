/*
 * test_hostile_server.c - libsweep against servers that do not behave as
 * sweepd does: a child process on 127.0.0.1 says Welcome to the client's
 * Hello and then, by the test,
 * - writes Pings without end and never reads (a send must still time out
 *   when its time is up: it used to read them for ever);
 * - says nothing more (a blocking call's timeout names its request, as
 *   client.h says);
 * - answers GetStats and sends 256 KiB more at once (the worlds' names the
 *   answer hands out must outlive the reads after it in the same call);
 * - says Welcome with a max_batch of 2 and hangs up (a batch of 2,000 moves
 *   then fails by name: more batches are pending than the client keeps in
 *   its ring of sent batches, where it once dereferenced NULL);
 * and over UDP (its challenge and cookie first) answers EntityCommands in
 * two pieces, the second first and then twice: the client places the
 * overtaking piece where its commands say (it dropped it, and with it
 * every piece after a lost first one) and counts the repeat.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/protocol.h"
#include "tests/client-sdk/fake_server.h"

typedef enum { FLOOD, SILENT, STATS, HANG_UP, BYE_THEN_ANSWER } behaviour;


/* The child: one connection, then as b says; it ends within 20 s. */
static void serve(int listener, behaviour b)
{
    alarm(20);
    int fd = accept(listener, NULL, NULL);
    if (fd < 0)
        _exit(2);
    uint8_t in[4096];
    if (recv(fd, in, sizeof in, 0) <= 0) /* the Hello */
        _exit(0);
    static uint8_t out[1 << 19];
    size_t len = 0;
    sweep_message w = fake_welcome_msg(1, b == HANG_UP ? 2 : 64, 65536);
    fake_put(&w, out, sizeof out, &len);
    fake_send(fd, out, len);
    if (b == HANG_UP)
        _exit(0);
    if (b == BYE_THEN_ANSWER) {
        /* The next request (a Ping, sequence 2) gets a Bye and then its
         * answer, in one write: read together, as a session's end and a
         * late answer can be. */
        if (recv(fd, in, sizeof in, 0) <= 0)
            _exit(0);
        len = 0;
        sweep_message bye = {.kind = SWEEP_MSG_BYE};
        bye.as.bye.reason = sweep_str_of("going away");
        sweep_message pong = {.kind = SWEEP_MSG_PONG, .sequence = 2};
        fake_put(&bye, out, sizeof out, &len);
        fake_put(&pong, out, sizeof out, &len);
        fake_send(fd, out, len);
        pause();
        _exit(0);
    }
    /* 64 KiB of Pings, which a client takes and drops. */
    static uint8_t pings[1 << 16];
    size_t np = 0;
    sweep_message p = {.kind = SWEEP_MSG_PING};
    p.as.ping.client_time = 1;
    uint8_t one[128];
    size_t ol = 0;
    fake_put(&p, one, sizeof one, &ol);
    while (np + ol <= sizeof pings) {
        memcpy(pings + np, one, ol);
        np += ol;
    }
    if (b == FLOOD) {
        for (;;)
            fake_send(fd, pings, np);
    }
    if (b == STATS) {
        if (recv(fd, in, sizeof in, 0) <= 0) /* the GetStats, sequence 2 */
            _exit(0);
        sweep_wire_world_info world = {.world = 7,
                                       .name = sweep_str_of("world-name-AAAA"),
                                       .map = sweep_str_of("map-name-BBBB"),
                                       .sessions = 3,
                                       .triangles = 454};
        sweep_message s = {.kind = SWEEP_MSG_STATS, .sequence = 2};
        s.as.stats.worlds = &world;
        s.as.stats.worlds_count = 1;
        s.as.stats.worlds_open = 1;
        len = 0;
        fake_put(&s, out, sizeof out, &len);
        for (int k = 0; k < 4; k++) {
            memcpy(out + len, pings, np);
            len += np;
        }
        fake_send(fd, out, len);
    }
    pause(); /* silent: until the parent ends it */
    _exit(0);
}

/* The UDP child: the handshake, then each EntityCommands of n commands
 * answered as results[1 .. n), results[0 .. 1), results[1 .. n). */
static void serve_udp(int fd)
{
    alarm(20);
    static sweep_msg_entity_command cmds[64];
    static sweep_msg_entity_command_result res[64];
    sweep_decoder d = {0};
    d.commands = cmds;
    d.commands_cap = 64;
    for (;;) {
        uint8_t in[2048], buf[4096];
        struct sockaddr_in peer;
        socklen_t pl = sizeof peer;
        ssize_t n = recvfrom(fd, in, sizeof in, 0, (struct sockaddr *)&peer, &pl);
        sweep_message m, out[3];
        int nout = 0;
        if (n <= 0 || sweep_decode(&d, in, (size_t)n, 0, &m) != SWEEP_PROTO_OK)
            continue;
        if (m.kind == SWEEP_MSG_HELLO && m.as.hello.cookie.ptr == NULL) {
            out[nout] = (sweep_message){.kind = SWEEP_MSG_CHALLENGE, .sequence = m.sequence};
            out[nout++].as.challenge.cookie = (sweep_bytes){(const uint8_t *)"cookie01", 8};
        } else if (m.kind == SWEEP_MSG_HELLO) {
            sweep_message w = fake_welcome_msg(m.sequence, 12, 1200);
            w.as.welcome.role = SWEEP_WIRE_ROLE_SERVER;
            w.as.welcome.identity = sweep_str_of("#command-token");
            out[nout++] = w;
        } else if (m.kind == SWEEP_MSG_ENTITY_COMMANDS) {
            uint32_t count = m.as.entity_commands.count;
            for (uint32_t i = 0; i < count; i++)
                res[i] = (sweep_msg_entity_command_result){.entity = cmds[i].entity, .op = cmds[i].op};
            sweep_message p0 = {.kind = SWEEP_MSG_ENTITY_COMMANDS_RESULT, .sequence = m.sequence, .server_tick = 100};
            p0.as.entity_commands_result.results = res;
            p0.as.entity_commands_result.count = 1;
            sweep_message p1 = p0;
            p1.as.entity_commands_result.results = res + 1;
            p1.as.entity_commands_result.count = count - 1;
            out[nout++] = p1, out[nout++] = p0, out[nout++] = p1;
        }
        for (int k = 0; k < nout; k++) {
            const uint8_t *bytes;
            size_t len;
            if (sweep_encode(&out[k], 0, buf, sizeof buf, &bytes, &len) != SWEEP_PROTO_OK)
                _exit(2);
            sendto(fd, bytes, len, 0, (struct sockaddr *)&peer, pl);
        }
    }
}


static void start_udp(fake *f)
{
    int fd = fake_bound(f, SOCK_DGRAM);
    f->pid = fork();
    assert_true(f->pid >= 0);
    if (f->pid == 0)
        serve_udp(fd);
    close(fd);
}

static void start(fake *f, behaviour b)
{
    int ls = fake_bound(f, SOCK_STREAM);
    assert_int_equal(listen(ls, 1), 0);
    f->pid = fork();
    assert_true(f->pid >= 0);
    if (f->pid == 0)
        serve(ls, b);
    close(ls);
}


static sweep_client *connect_to(const fake *f, int timeout_ms)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = f->address;
    o.timeout_ms = timeout_ms;
    sweep_client *c = NULL;
    sweep_client_error e;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK)
        fail_msg("connect to %s: %s", f->address, e.message);
    return c;
}

static void a_send_times_out_while_the_server_floods(void **state)
{
    (void)state;
    fake f;
    start(&f, FLOOD);
    sweep_client *c = connect_to(&f, 500);
    static sweep_client_move_req moves[1000];
    for (int i = 0; i < 1000; i++)
        moves[i].entity = 1, moves[i].dt = 1.0 / 60.0;
    sweep_client_status s = SWEEP_CLIENT_OK;
    sweep_client_error e;
    uint64_t longest = 0;
    /* The server never reads: the socket's buffers fill within a few
     * calls, and the call that finds them full gives up at its time. */
    for (int i = 0; i < 500 && s == SWEEP_CLIENT_OK; i++) {
        uint64_t t0 = sweep_client_now_ns();
        s = sweep_client_send_batch(c, moves, 1000, NULL, &e);
        uint64_t ms = (sweep_client_now_ns() - t0) / 1000000u;
        longest = ms > longest ? ms : longest;
    }
    sweep_client_close(c);
    fake_stop(&f);
    if (s != SWEEP_CLIENT_E_TIMEOUT || longest > 5000)
        fail_msg("the sends ended %s (%s), the longest call %llu ms (timeout 500 ms)", sweep_client_status_name(s),
                 e.message, (unsigned long long)longest);
}

/* A Bye ends the session whatever follows it in the same read: a ping
 * whose Pong came right behind the Bye says CLOSED, with the Bye's reason
 * (it once took the Pong and said OK, on a session already over). */
static void nothing_after_a_bye_is_the_sessions(void **state)
{
    (void)state;
    fake f;
    start(&f, BYE_THEN_ANSWER);
    sweep_client *c = connect_to(&f, 2000);
    sweep_client_error e;
    sweep_client_status st = sweep_client_ping(c, NULL, &e);
    if (st != SWEEP_CLIENT_E_CLOSED)
        fail_msg("a ping answered behind a Bye: %s (%s)", sweep_client_status_name(st), e.message);
    assert_string_equal(e.message, "the server said Bye: going away");
    /* The Bye is still to be handed out: a program's own loop is told to
     * poll at once, and to close only once it has it. */
    int ms = -1;
    assert_true(sweep_client_poll_events(c, &ms) & POLLIN);
    assert_int_equal(ms, 0);
    sweep_client_event ev;
    assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_OK);
    assert_int_equal(ev.kind, SWEEP_CLIENT_EV_BYE);
    assert_int_equal(sweep_client_poll_events(c, &ms), 0);
    assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_E_CLOSED);
    sweep_client_close(c);
    fake_stop(&f);
}

static void a_timeout_names_its_request(void **state)
{
    (void)state;
    fake f;
    start(&f, SILENT);
    sweep_client *c = connect_to(&f, 300);
    uint64_t rtt = 0;
    sweep_client_error e;
    assert_int_equal(sweep_client_ping(c, &rtt, &e), SWEEP_CLIENT_E_TIMEOUT);
    assert_int_equal(e.sequence, 2); /* the Hello was 1 */
    assert_int_equal(sweep_client_last_error(c)->sequence, 2);
    assert_non_null(strstr(e.message, "(sequence 2)"));
    sweep_client_close(c);
    fake_stop(&f);
}

static void stats_worlds_outlive_the_reads_after_them(void **state)
{
    (void)state;
    fake f;
    start(&f, STATS);
    sweep_client *c = connect_to(&f, 2000);
    sweep_msg_stats st;
    sweep_client_error e;
    if (sweep_client_get_stats(c, &st, &e) != SWEEP_CLIENT_OK)
        fail_msg("GetStats: %s", e.message);
    assert_int_equal(st.worlds_open, 1);
    assert_int_equal(st.worlds_count, 1);
    assert_int_equal(st.worlds[0].world, 7);
    assert_int_equal(st.worlds[0].triangles, 454);
    assert_int_equal(st.worlds[0].name.len, 15);
    assert_memory_equal(st.worlds[0].name.ptr, "world-name-AAAA", 16);
    assert_int_equal(st.worlds[0].map.len, 13);
    assert_memory_equal(st.worlds[0].map.ptr, "map-name-BBBB", 14);
    sweep_client_close(c);
    fake_stop(&f);
}

static void a_batch_to_a_server_gone_fails_by_name(void **state)
{
    (void)state;
    fake f;
    start(&f, HANG_UP);
    sweep_client *c = connect_to(&f, 2000);
    waitpid(f.pid, NULL, 0); /* it has hung up */
    enum { N = 2000 };
    static sweep_client_move_req moves[N];
    static uint32_t seqs[N];
    for (int i = 0; i < N; i++)
        moves[i].entity = 1, moves[i].dt = 1.0 / 60.0;
    sweep_client_error e;
    sweep_client_status s = sweep_client_send_batch(c, moves, N, seqs, &e);
    if (s != SWEEP_CLIENT_E_CLOSED && s != SWEEP_CLIENT_E_IO)
        fail_msg("a batch to a server gone: %s (%s)", sweep_client_status_name(s), e.message);
    sweep_client_close(c);
}

static void pieces_of_an_answer_are_placed_as_they_come(void **state)
{
    (void)state;
    fake f;
    start_udp(&f);
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = f.address;
    o.timeout_ms = 2000;
    o.transport = SWEEP_CLIENT_UDP;
    sweep_client *c = NULL;
    sweep_client_error e;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK)
        fail_msg("connect: %s", e.message);
    sweep_msg_entity_command cmds[4];
    for (int i = 0; i < 4; i++)
        cmds[i] = (sweep_msg_entity_command){.entity = 11u + (uint32_t)i, .op = SWEEP_WIRE_OP_SET_VELOCITY};
    uint32_t seq;
    assert_int_equal(sweep_client_send_entity_commands(c, cmds, 4, &seq, &e), SWEEP_CLIENT_OK);
    /* The overtaking piece first, where it belongs; then the first. */
    static const uint32_t firsts[2] = {1, 0}, counts[2] = {3, 1};
    for (int k = 0; k < 2; k++) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 2000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_COMMAND_RESULTS);
        assert_int_equal(ev.sequence, seq);
        assert_int_equal(ev.as.command_results.first, firsts[k]);
        assert_int_equal(ev.as.command_results.count, counts[k]);
        for (uint32_t i = 0; i < counts[k]; i++)
            assert_int_equal(ev.as.command_results.results[i].entity, 11u + firsts[k] + i);
    }
    sweep_client_event ev;
    assert_int_equal(sweep_client_poll(c, 300, &ev, &e), SWEEP_CLIENT_E_TIMEOUT);
    sweep_client_counters k;
    sweep_client_get_counters(c, &k);
    assert_int_equal(k.duplicates, 1);
    assert_int_equal(k.datagrams_dropped, 0);
    /* The blocking call gathers the same pieces into one answer, in order. */
    sweep_msg_entity_command_result r[4];
    assert_int_equal(sweep_client_entity_commands(c, cmds, 4, r, &e), SWEEP_CLIENT_OK);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(r[i].entity, 11u + i);
    sweep_client_close(c);
    fake_stop(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_send_times_out_while_the_server_floods),
        cmocka_unit_test(a_timeout_names_its_request),
        cmocka_unit_test(nothing_after_a_bye_is_the_sessions),
        cmocka_unit_test(stats_worlds_outlive_the_reads_after_them),
        cmocka_unit_test(a_batch_to_a_server_gone_fails_by_name),
        cmocka_unit_test(pieces_of_an_answer_are_placed_as_they_come),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
