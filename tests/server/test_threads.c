/*
 * test_threads.c - sweepd --threads: worlds on several event-loop threads
 * behind one port.
 *
 * Two generated maps (sweep-mapgen, seeds 1 and 2: different content
 * hashes, so a Welcome says which world answered), served by two threads:
 * world 0 on thread 0, world 1 on thread 1. The kernel spreads
 * connections and datagrams over the threads' sockets (SO_REUSEPORT) by
 * the clients' addresses, so with a couple of dozen clients some reach the
 * thread that does not own their world and are passed on: a test that
 * needs a handoff uses enough clients that none happening has odds below
 * 1 in 10^6, and checks the count in the metrics.
 *
 * What is checked: both worlds answer over TCP and UDP; a handed-over
 * connection keeps the requests it sent behind its Hello (also when the
 * Hello came in two reads); forwarded UDP
 * sessions work (a raw client that ignores Welcome.udp_port, and with one
 * thread the field is absent); libsweep's UDP sessions move to their
 * thread's own port and are never forwarded; a datagram from an address
 * without a session on that port is not taken; --max-sessions counts every thread's sessions; GetStats
 * and /metrics sum the threads; SIGTERM ends every thread's sessions with
 * a Bye and exit 0; the same moves give the same results bit for bit on
 * one thread and on two; and each world's session log, written by its own
 * thread, replays bit for bit.
 */
#include <dirent.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "tests/sweepd_fixture.h"

#define CLIENTS 24 /* each reaches the wrong thread with odds 1/2: none does with odds 2^-24 */

static char dir[] = "/tmp/sweep-test-threads-XXXXXX";
static char map0[300], map1[300];
static fx_rx *rx;
static fx_server srv;
static int metrics_port;
static uint8_t hash0[32], hash1[32];

static int group_setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    if (!rx || !mkdtemp(dir))
        return -1;
    char gen[1100];
    fx_build("bin/sweep-mapgen", gen, sizeof gen);
    snprintf(map0, sizeof map0, "%s/w0.db", dir);
    snprintf(map1, sizeof map1, "%s/w1.db", dir);
    for (int i = 0; i < 2; i++) {
        char cmd[2600];
        snprintf(cmd, sizeof cmd, "'%s' --tris 2000 --seed %d --quiet -o '%s'", gen, i + 1, i ? map1 : map0);
        if (fx_run(cmd, NULL) != 0) {
            fprintf(stderr, "test_threads: %s failed\n", cmd);
            return -1;
        }
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    unlink(map0);
    unlink(map1);
    rmdir(dir);
    free(rx);
    return 0;
}

/* sweepd on both maps with `threads` threads, metrics on, the fixture's
 * command token, and the extra arguments (NULL-terminated, may be NULL). */
static void start(int threads, const char *const *more)
{
    char t[16];
    snprintf(t, sizeof t, "%d", threads);
    const char *extra[40] = {"--map", map1, "--threads", t, "--metrics", "127.0.0.1:0", FX_SERVER_ARGS};
    int n = 0;
    while (extra[n])
        n++;
    for (int i = 0; more && more[i] && n < 38; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    char line[512];
    assert_int_equal(fx_launch(&srv, NULL, map0, extra, NULL, line, sizeof line), 0);
    int tport = -1, uport = -1;
    metrics_port = -1;
    if (sscanf(line, "sweepd ready tcp=127.0.0.1:%d udp=127.0.0.1:%d metrics=127.0.0.1:%d", &tport, &uport,
               &metrics_port) != 3) {
        fprintf(stderr, "test_threads: bad ready line '%s'\n", line);
        fx_stop(&srv);
        fail();
    }
    srv.port = tport;
}

/* --- clients ----------------------------------------------------------------------- */

static sweep_message hello_msg(const char *world, const char *token)
{
    sweep_message m = fx_hello_msg("threads");
    m.as.hello.world = sweep_str_of(world);
    m.as.hello.auth_token = sweep_str_of(token);
    return m;
}

/* A TCP session on world (NULL: the first); its Welcome's map hash into
 * hash. Returns the socket, or -1 without a Welcome. */
static int tcp_session(const char *world, uint8_t hash[32])
{
    int fd = fx_tcp_connect(srv.port);
    if (fd < 0)
        return -1;
    sweep_message m = hello_msg(world, NULL);
    if (fx_send(fd, &m) != 0 || fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_WELCOME ||
        m.as.welcome.map_hash.len != 32) {
        close(fd);
        return -1;
    }
    if (hash)
        memcpy(hash, m.as.welcome.map_hash.ptr, 32);
    return fd;
}

/* The UDP handshake for world; the session's socket, or -1. The Welcome's
 * udp_port into *udp_port (may be NULL); the socket stays on the shared
 * port, as a client that ignores the field. */
static int udp_session(const char *world, uint8_t hash[32], uint16_t *udp_port)
{
    int fd = fx_udp_socket(srv.port);
    if (fd < 0)
        return -1;
    for (int attempt = 0; attempt < 5; attempt++) {
        sweep_message m = hello_msg(world, NULL), r;
        if (fx_udp_send(fd, &m) < 0 || fx_udp_recv(fd, rx, &r, 5000) <= 0 || r.kind != SWEEP_MSG_CHALLENGE)
            continue;
        uint8_t cookie[64];
        uint32_t cl = r.as.challenge.cookie.len < sizeof cookie ? r.as.challenge.cookie.len : sizeof cookie;
        memcpy(cookie, r.as.challenge.cookie.ptr, cl);
        m.as.hello.cookie.ptr = cookie;
        m.as.hello.cookie.len = cl;
        m.sequence = 2;
        if (fx_udp_send(fd, &m) < 0 || fx_udp_recv(fd, rx, &r, 5000) <= 0 || r.kind != SWEEP_MSG_WELCOME)
            continue;
        if (hash)
            memcpy(hash, r.as.welcome.map_hash.ptr, 32);
        if (udp_port)
            *udp_port = r.as.welcome.udp_port;
        return fd;
    }
    close(fd);
    return -1;
}

/* One sample of the metrics text (-1 if absent). */
static double scrape(const char *name)
{
    return fx_scrape(metrics_port, name);
}

/* Waits (a few housekeeping periods at most) for a sample to reach v. */
static double scrape_until(const char *name, double v)
{
    double got = -1;
    for (uint64_t end = fx_now_ms() + 5000; fx_now_ms() < end; usleep(50000))
        if ((got = scrape(name)) >= v)
            break;
    return got;
}

/* The hashes of the two worlds, each from a session on it. */
static double scrape_settled(const char *name);

static void learn_hashes(void)
{
    int a = tcp_session("w0", hash0), b = tcp_session("w1", hash1);
    assert_true(a >= 0 && b >= 0);
    assert_memory_not_equal(hash0, hash1, 32);
    close(a);
    close(b);
}

/* --- tests --------------------------------------------------------------------------- */

/* Every Hello, on whichever thread it lands, gets the world it names. */
static void test_both_worlds_answer(void **state)
{
    (void)state;
    start(2, NULL);
    learn_hashes();
    uint8_t h[32];
    int fd = tcp_session(NULL, h); /* no name: the first map */
    assert_true(fd >= 0);
    assert_memory_equal(h, hash0, 32);
    close(fd);
    for (int i = 0; i < CLIENTS; i++) {
        fd = tcp_session(i % 2 ? "w1" : "w0", h);
        assert_true(fd >= 0);
        assert_memory_equal(h, i % 2 ? hash1 : hash0, 32);
        uint32_t e = fx_spawn(fd, rx, 2, (sweep_vec3){0, 0, 0}, (sweep_vec3){0.4, 0.4, 0.9});
        assert_true(e != 0);
        close(fd);
    }
    assert_true(scrape_until("sweep_thread_handoffs_total{transport=\"tcp\"}", 1) >= 1);
    /* Each request counted once, by the thread that answered it: a Hello
     * handed over is not counted by the thread that passed it on too. The
     * two Hellos of learn_hashes, one more, then a Hello and a Spawn per
     * client. */
    assert_int_equal(scrape_settled("sweep_requests_total"), 3 + 2 * CLIENTS);
    assert_int_equal(fx_stop(&srv), 0);
}

/* A connection handed over keeps what it sent behind its Hello: Hello,
 * Spawn and two GetStats in one write, answered in order. */
static void test_handover_keeps_pipelined_bytes(void **state)
{
    (void)state;
    start(2, NULL);
    learn_hashes();
    for (int i = 0; i < CLIENTS; i++) {
        int fd = fx_tcp_connect(srv.port);
        assert_true(fd >= 0);
        uint8_t all[4096];
        size_t len = 0;
        sweep_message req[4];
        req[0] = hello_msg(i % 2 ? "w1" : "w0", NULL);
        req[1] = fx_spawn_msg(2, (sweep_vec3){0, 0, 0}, (sweep_vec3){0.4, 0.4, 0.9});
        for (int k = 0; k < 4; k++) {
            if (k >= 2)
                req[k] = fx_msg(SWEEP_MSG_GET_STATS, (uint32_t)k + 1);
            const uint8_t *out;
            size_t n;
            assert_int_equal(sweep_encode(&req[k], SWEEP_WIRE_SIZE_PREFIXED, all + len, sizeof all - len, &out, &n),
                             SWEEP_PROTO_OK);
            memmove(all + len, out, n);
            len += n;
        }
        if (i % 4 < 2) {
            assert_int_equal(fx_write_all(fd, all, len), 0);
        } else {
            /* The Hello in two reads (most likely): it is handed over from
             * the buffer of a frame begun in an earlier read. */
            assert_int_equal(fx_write_all(fd, all, 7), 0);
            usleep(20000);
            assert_int_equal(fx_write_all(fd, all + 7, len - 7), 0);
        }
        sweep_message m;
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_WELCOME);
        assert_memory_equal(m.as.welcome.map_hash.ptr, i % 2 ? hash1 : hash0, 32);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
        assert_int_equal(m.sequence, 2);
        for (uint32_t k = 3; k <= 4; k++) {
            assert_int_equal(fx_recv(fd, rx, &m), 1);
            assert_int_equal(m.kind, SWEEP_MSG_STATS);
            assert_int_equal(m.sequence, k);
        }
        close(fd);
    }
    assert_true(scrape_until("sweep_thread_handoffs_total{transport=\"tcp\"}", 1) >= 1);
    /* The two Hellos of learn_hashes, then four requests per client, each
     * counted once however it travelled. */
    assert_int_equal(scrape_settled("sweep_requests_total"), 2 + 4 * CLIENTS);
    assert_int_equal(fx_stop(&srv), 0);
}

/* A connection whose Hellos name the two threads' worlds in turn is
 * handed over at each, and keeps its handshake as it stood: its deadline
 * (--handshake-timeout 1 closes it about a second after it connected,
 * where each handover once gave it a new one) and its rate before a
 * session (8 a second, where each handover once gave it a full bucket).
 * A wrong token is refused with AuthFailed and leaves it without one. */
static void test_bounced_hellos_keep_their_handshake(void **state)
{
    (void)state;
    const char *more[] = {"--handshake-timeout", "1", NULL};
    start(2, more);
    learn_hashes();
    /* 40 Hellos in one write: each answered only while the bucket lasts. */
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    uint8_t all[16384];
    size_t len = 0;
    for (int k = 0; k < 40; k++) {
        sweep_message h = hello_msg(k % 2 ? "w1" : "w0", "not-the-token");
        h.sequence = (uint32_t)k + 1;
        const uint8_t *out;
        size_t n;
        assert_int_equal(sweep_encode(&h, SWEEP_WIRE_SIZE_PREFIXED, all + len, sizeof all - len, &out, &n),
                         SWEEP_PROTO_OK);
        memmove(all + len, out, n);
        len += n;
    }
    assert_int_equal(fx_write_all(fd, all, len), 0);
    int refused = 0, limited = 0;
    sweep_message m;
    while (fx_recv(fd, rx, &m) == 1) {
        if (m.kind == SWEEP_MSG_ERROR && m.as.error.code == SWEEP_WIRE_AUTH_FAILED)
            refused++;
        if (m.kind == SWEEP_MSG_ERROR && m.as.error.code == SWEEP_WIRE_RATE_LIMITED)
            limited++;
    }
    close(fd);
    if (refused > 9 || limited < 1)
        fail_msg("40 Hellos in one write: %d answered AuthFailed (at most 9 wanted), %d RateLimited", refused, limited);
    /* One Hello every 0.3 s: closed by the deadline, about 1 s in. */
    fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    uint64_t t0 = fx_now_ms();
    int closed = 0;
    for (int k = 0; k < 20 && !closed; k++) {
        sweep_message h = hello_msg(k % 2 ? "w1" : "w0", "not-the-token");
        h.sequence = (uint32_t)k + 1;
        if (fx_send(fd, &h) != 0)
            break;
        uint64_t until = fx_now_ms() + 300;
        while (!closed && fx_now_ms() < until) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            if (poll(&p, 1, (int)(until - fx_now_ms())) > 0) {
                int r = fx_recv(fd, rx, &m);
                closed = r == 0 || (r == 1 && m.kind == SWEEP_MSG_ERROR && m.as.error.code == SWEEP_WIRE_NOT_WELCOMED);
            }
        }
    }
    uint64_t held = fx_now_ms() - t0;
    close(fd);
    assert_int_equal(fx_stop(&srv), 0);
    if (!closed || held > 2500)
        fail_msg("a connection bouncing its Hellos between the threads was held %llu ms (closed: %d) under "
                 "--handshake-timeout 1",
                 (unsigned long long)held, closed);
}

/* Seven requests and then a Hello, in one write, are within the rate
 * before a session (8 a second, a burst of 8) on whichever thread the
 * kernel puts the connection: one handed over for its Hello is welcomed
 * too. Its Hello once paid that rate twice, once on each thread, and was
 * refused RateLimited. */
static void test_handover_charges_a_hello_once(void **state)
{
    (void)state;
    start(2, NULL);
    learn_hashes();
    for (int i = 0; i < CLIENTS; i++) {
        int fd = fx_tcp_connect(srv.port);
        assert_true(fd >= 0);
        uint8_t all[4096];
        size_t len = 0;
        for (uint32_t k = 1; k <= 8; k++) {
            sweep_message m = k < 8 ? fx_msg(SWEEP_MSG_PING, k) : hello_msg(i % 2 ? "w1" : "w0", NULL);
            m.sequence = k;
            const uint8_t *out;
            size_t n;
            assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, all + len, sizeof all - len, &out, &n),
                             SWEEP_PROTO_OK);
            memmove(all + len, out, n);
            len += n;
        }
        assert_int_equal(fx_write_all(fd, all, len), 0);
        int pongs = 0, welcomed = 0;
        sweep_message m;
        while (!welcomed && fx_recv(fd, rx, &m) == 1) {
            if (m.kind == SWEEP_MSG_PONG)
                pongs++;
            else if (m.kind == SWEEP_MSG_WELCOME)
                welcomed = 1;
            else
                fail_msg("client %d (world w%d): %s (code %d) where 7 Pongs and a Welcome were due", i, i % 2,
                         sweep_msg_kind_name(m.kind), m.kind == SWEEP_MSG_ERROR ? (int)m.as.error.code : 0);
        }
        close(fd);
        if (pongs != 7 || !welcomed)
            fail_msg("client %d: %d Pongs, welcomed %d", i, pongs, welcomed);
    }
    assert_true(scrape_until("sweep_thread_handoffs_total{transport=\"tcp\"}", 1) >= 1);
    assert_int_equal(fx_stop(&srv), 0);
}

/* UDP sessions of both worlds work wherever the kernel sends their
 * datagrams: a Spawn and a Move each, answered. */
static void test_udp_forwarded(void **state)
{
    (void)state;
    start(2, NULL);
    learn_hashes();
    double requests0 = scrape_settled("sweep_requests_total");
    for (int i = 0; i < CLIENTS; i++) {
        uint8_t h[32];
        uint16_t own = 0;
        int fd = udp_session(i % 2 ? "w1" : "w0", h, &own);
        assert_true(fd >= 0);
        assert_memory_equal(h, i % 2 ? hash1 : hash0, 32);
        /* Offered, and ignored: the socket stays connected to the shared
         * port, so every answer below came from there. */
        assert_true(own != 0 && own != srv.port);
        sweep_message m = fx_spawn_msg(3, (sweep_vec3){0, 0, 0}, (sweep_vec3){0.4, 0.4, 0.9}), r;
        assert_true(fx_udp_send(fd, &m) > 0);
        assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
        assert_int_equal(r.kind, SWEEP_MSG_SPAWNED);
        uint32_t e = r.as.spawned.entity;
        m = fx_move_msg(e, 4, (sweep_vec3){1, 0, 0}, 1.0 / 60);
        assert_true(fx_udp_send(fd, &m) > 0);
        assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
        assert_int_equal(r.as.move_result.entity, e);
        m = fx_msg(SWEEP_MSG_BYE, 5);
        fx_udp_send(fd, &m);
        close(fd);
    }
    assert_true(scrape_until("sweep_thread_handoffs_total{transport=\"udp\"}", 1) >= 1);
    /* Counted once each: a Spawn, a Move and a Bye a client (a handshake's
     * Hellos are not requests dispatched; one handed to the other thread
     * was once taken off the count all the same). */
    double requests = scrape_settled("sweep_requests_total") - requests0;
    if (requests != 3.0 * CLIENTS)
        fail_msg("%.0f requests counted, not %d", requests, 3 * CLIENTS);
    assert_int_equal(fx_stop(&srv), 0);
}

/* The port a connected socket sends to. */
static int peer_port(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    assert_int_equal(getpeername(fd, (struct sockaddr *)&a, &l), 0);
    return ntohs(a.sin_port);
}

/* A metric that has stopped changing: read until two reads three
 * housekeeping periods apart (when every thread publishes) agree. */
static double scrape_settled(const char *name)
{
    double a = scrape(name), b = -2;
    for (uint64_t end = fx_now_ms() + 10000; fx_now_ms() < end; a = b) {
        usleep(300000);
        if ((b = scrape(name)) == a)
            break;
    }
    return a;
}

/* libsweep over UDP with two threads: every session is told its thread's
 * own port, switches to it, and from then on nothing of it is forwarded
 * although the kernel sends about half of the shared port's datagrams to
 * the other thread. Its answers come from that port: the socket is
 * connected there, and the kernel drops anything from elsewhere. */
static void test_udp_direct_port(void **state)
{
    (void)state;
    start(2, NULL);
    learn_hashes();
    char address[64];
    snprintf(address, sizeof address, "127.0.0.1:%d", srv.port);
    sweep_client *c[CLIENTS];
    uint16_t ports[2] = {0, 0};
    for (int i = 0; i < CLIENTS; i++) {
        sweep_client_options o;
        sweep_client_options_init(&o);
        o.transport = SWEEP_CLIENT_UDP;
        o.address = address;
        o.world = i % 2 ? "w1" : "w0";
        sweep_client_error err;
        assert_int_equal(sweep_client_connect(&o, &c[i], &err), SWEEP_CLIENT_OK);
        const sweep_client_welcome *w = sweep_client_get_welcome(c[i]);
        assert_memory_equal(w->map_hash, i % 2 ? hash1 : hash0, 32);
        assert_true(w->udp_port != 0 && w->udp_port != srv.port);
        /* One port per thread, so per world here. */
        if (!ports[i % 2])
            ports[i % 2] = w->udp_port;
        assert_int_equal(w->udp_port, ports[i % 2]);
        assert_int_equal(peer_port(sweep_client_fd(c[i])), w->udp_port);
    }
    assert_int_not_equal(ports[0], ports[1]);
    /* Some Hellos reached the wrong thread and were forwarded (odds of
     * none: 2^-24); that is all the forwarding there may be. */
    const char *handoffs = "sweep_thread_handoffs_total{transport=\"udp\"}";
    assert_true(scrape_until("sweep_sessions{transport=\"udp\"}", CLIENTS) == CLIENTS);
    double before = scrape_settled(handoffs);
    assert_true(before >= 1);
    for (int i = 0; i < CLIENTS; i++) {
        sweep_msg_spawned sp;
        sweep_client_error err;
        if (sweep_client_spawn_player(c[i], 0, &sp, &err) != SWEEP_CLIENT_OK)
            fprintf(stderr, "test_threads: spawn: %s\n", err.message);
        assert_int_equal(err.status, SWEEP_CLIENT_OK);
        for (int k = 0; k < 3; k++) {
            sweep_msg_move_result r;
            assert_int_equal(sweep_client_move(c[i], sp.entity, (sweep_vec3){1, 0, 0}, 1.0 / 60, &r, NULL),
                             SWEEP_CLIENT_OK);
            assert_int_equal(r.entity, sp.entity);
        }
    }
    /* Every thread has published since the moves (the count includes
     * them), so the handoffs below include any made for them. */
    assert_true(scrape_until("sweep_moves_total", 3 * CLIENTS) >= 3 * CLIENTS);
    assert_true(scrape_settled(handoffs) == before);
    for (int i = 0; i < CLIENTS; i++)
        sweep_client_close(c[i]);
    assert_int_equal(fx_stop(&srv), 0);
}

/* A thread's own port takes only the datagrams of its own sessions: a
 * Hello sent there first gets no Challenge (the handshake is the shared
 * port's), and the same client is then served through the shared port.
 * With one thread there is no own port: the Welcome has no udp_port. */
static void test_udp_direct_port_rules(void **state)
{
    (void)state;
    start(2, NULL);
    uint16_t own = 0;
    int fd = udp_session("w0", NULL, &own);
    assert_true(fd >= 0 && own != 0);
    /* Strangers on the own port, a Hello and a Ping: nothing back. */
    int stranger = fx_udp_socket(own);
    assert_true(stranger >= 0);
    sweep_message m = hello_msg("w0", NULL), r;
    assert_true(fx_udp_send(stranger, &m) > 0);
    int direct = fx_udp_socket(own);
    assert_true(direct >= 0);
    m = fx_msg(SWEEP_MSG_PING, 7);
    assert_true(fx_udp_send(direct, &m) > 0);
    /* The session's own client on its own port: answered from it. */
    struct sockaddr_in to = fx_addr(own);
    assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof to), 0);
    m = fx_msg(SWEEP_MSG_PING, 8);
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, 8);
    /* On loopback a datagram is queued at its receiver before the send
     * returns: a Challenge made before that Pong would be waiting now. */
    assert_int_equal(fx_udp_recv(stranger, rx, NULL, 0), 0);
    assert_int_equal(fx_udp_recv(direct, rx, NULL, 0), 0);
    /* Both were seen, and dropped (a Challenge is not a drop). */
    assert_true(scrape_until("sweep_udp_dropped_total", 2) >= 2);
    close(stranger);
    close(direct);
    close(fd);
    assert_int_equal(fx_stop(&srv), 0);

    start(1, NULL);
    fd = udp_session("w1", NULL, &own);
    assert_true(fd >= 0);
    assert_int_equal(own, 0);
    close(fd);
    assert_int_equal(fx_stop(&srv), 0);
}

/* A relay that knows one server port, as a NAT or a container's published
 * port would: datagrams to its front go to the shared port from its back
 * socket, answers back to whoever sent last. Runs until stop is set. */
typedef struct relay {
    int front, back;
    int stop; /* set by the test, read by the relay: atomic both sides */
} relay;

static void *relay_main(void *arg)
{
    relay *r = arg;
    struct sockaddr_storage client;
    socklen_t cl = 0;
    uint8_t buf[2048];
    while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
        struct pollfd p[2] = {{.fd = r->front, .events = POLLIN}, {.fd = r->back, .events = POLLIN}};
        if (poll(p, 2, 50) <= 0)
            continue;
        if (p[0].revents & POLLIN) {
            socklen_t l = sizeof client;
            ssize_t n = recvfrom(r->front, buf, sizeof buf, 0, (struct sockaddr *)&client, &l);
            if (n > 0) {
                cl = l;
                send(r->back, buf, (size_t)n, 0);
            }
        }
        if (p[1].revents & POLLIN) {
            ssize_t n = recv(r->back, buf, sizeof buf, 0);
            if (n > 0 && cl)
                sendto(r->front, buf, (size_t)n, 0, (struct sockaddr *)&client, cl);
        }
    }
    return NULL;
}

/* A client that cannot reach the own port (behind the relay: its Ping
 * there comes from an address without a session, and gets nothing) goes
 * back to the port it knows, and is served through it; one that asks to
 * keep its port is not moved at all. */
static void test_udp_direct_port_unreachable(void **state)
{
    (void)state;
    start(2, NULL);
    relay r = {.front = socket(AF_INET, SOCK_DGRAM, 0), .back = fx_udp_socket(srv.port)};
    assert_true(r.front >= 0 && r.back >= 0);
    struct sockaddr_in a = fx_addr(0);
    socklen_t al = sizeof a;
    assert_int_equal(bind(r.front, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(r.front, (struct sockaddr *)&a, &al), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, relay_main, &r), 0);
    for (int keep = 0; keep < 2; keep++) {
        char address[64];
        snprintf(address, sizeof address, "127.0.0.1:%d", keep ? srv.port : ntohs(a.sin_port));
        sweep_client_options o;
        sweep_client_options_init(&o);
        o.transport = SWEEP_CLIENT_UDP;
        o.address = address;
        o.world = "w1";
        o.udp_keep_port = keep;
        sweep_client *c;
        sweep_client_error err;
        assert_int_equal(sweep_client_connect(&o, &c, &err), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_get_welcome(c)->udp_port, 0);
        assert_int_equal(peer_port(sweep_client_fd(c)), keep ? srv.port : ntohs(a.sin_port));
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn_player(c, 0, &sp, &err), SWEEP_CLIENT_OK);
        sweep_msg_move_result mr;
        assert_int_equal(sweep_client_move(c, sp.entity, (sweep_vec3){1, 0, 0}, 1.0 / 60, &mr, &err),
                         SWEEP_CLIENT_OK);
        assert_int_equal(mr.entity, sp.entity);
        sweep_client_close(c);
    }
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    close(r.front);
    close(r.back);
    assert_int_equal(fx_stop(&srv), 0);
}

/* --max-sessions counts every thread's sessions, TCP and UDP: full with
 * sessions on both worlds, whichever world the next one asks for. */
static void test_limits_global(void **state)
{
    (void)state;
    const char *more[] = {"--max-sessions", "4", NULL};
    start(2, more);
    int a = tcp_session("w0", NULL), b = tcp_session("w0", NULL), c = tcp_session("w1", NULL);
    int u = udp_session("w1", NULL, NULL);
    assert_true(a >= 0 && b >= 0 && c >= 0 && u >= 0);
    for (int i = 0; i < 4; i++) {
        int fd = fx_tcp_connect(srv.port);
        assert_true(fd >= 0);
        /* Refused at accept, before any Hello: the sessions of both
         * threads are counted there. */
        sweep_message m;
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_ERROR);
        assert_int_equal(m.as.error.code, SWEEP_WIRE_TOO_MANY_SESSIONS);
        close(fd);
    }
    /* A session of thread 1 ends: thread 0 may welcome one more. */
    close(c);
    int d = -1;
    for (uint64_t end = fx_now_ms() + 5000; d < 0 && fx_now_ms() < end; usleep(20000))
        d = tcp_session("w0", NULL);
    assert_true(d >= 0);
    close(a);
    close(b);
    close(d);
    close(u);
    assert_int_equal(fx_stop(&srv), 0);
}

/* GetStats and /metrics add up the threads: moves on both worlds, asked
 * from a session of one of them. */
static void test_figures_summed(void **state)
{
    (void)state;
    start(2, NULL);
    int fd[2];
    for (int w = 0; w < 2; w++) {
        fd[w] = tcp_session(w ? "w1" : "w0", NULL);
        assert_true(fd[w] >= 0);
        uint32_t e = fx_spawn(fd[w], rx, 2, (sweep_vec3){0, 0, 0}, (sweep_vec3){0.4, 0.4, 0.9});
        assert_true(e != 0);
        for (uint32_t k = 0; k < 5u + 2u * (uint32_t)w; k++) { /* 5 on w0, 7 on w1 */
            sweep_message m = fx_move_msg(e, 10 + k, (sweep_vec3){1, 0, 0}, 1.0 / 60);
            assert_int_equal(fx_send(fd[w], &m), 0);
            assert_int_equal(fx_recv(fd[w], rx, &m), 1);
            assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
        }
    }
    sweep_message m;
    uint64_t moves = 0;
    for (uint64_t end = fx_now_ms() + 5000; fx_now_ms() < end; usleep(50000)) {
        m = fx_msg(SWEEP_MSG_GET_STATS, 99);
        assert_int_equal(fx_send(fd[0], &m), 0);
        assert_int_equal(fx_recv(fd[0], rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_STATS);
        if ((moves = m.as.stats.moves_total) == 12)
            break;
    }
    assert_int_equal(moves, 12);
    assert_int_equal(m.as.stats.sessions, 2);
    assert_int_equal(m.as.stats.entities, 2);
    assert_true(scrape_until("sweep_moves_total", 12) == 12);
    assert_true(scrape("sweep_worlds") == 2);
    assert_true(scrape("sweep_entities") == 2);
    assert_true(scrape("sweep_sessions{transport=\"tcp\"}") == 2);
    close(fd[0]);
    close(fd[1]);
    assert_int_equal(fx_stop(&srv), 0);
}

/* SIGTERM: every thread's sessions get their Bye, and sweepd exits 0. */
static void test_sigterm_stops_every_thread(void **state)
{
    (void)state;
    start(2, NULL);
    int t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = tcp_session(i % 2 ? "w1" : "w0", NULL);
        assert_true(t[i] >= 0);
    }
    int u = udp_session("w1", NULL, NULL);
    assert_true(u >= 0);
    kill(srv.pid, SIGTERM);
    for (int i = 0; i < 4; i++) {
        unsigned seen = 0;
        fx_wait_eof(t[i], rx, &seen);
        assert_true(seen & (1u << SWEEP_MSG_BYE));
        close(t[i]);
    }
    sweep_message r;
    int bye = 0;
    for (int k = 0; k < 10 && !bye; k++)
        bye = fx_udp_recv(u, rx, &r, 5000) > 0 && r.kind == SWEEP_MSG_BYE;
    assert_true(bye);
    close(u);
    assert_int_equal(fx_wait(&srv), 0);
}

/* The results of one fixed walk on world 1, run alone on a fresh server. */
#define WALK 90
static void walk(int threads, sweep_msg_move_result *out)
{
    const char *more[] = {"--time-bank", "60", NULL};
    start(threads, more);
    int fd = tcp_session("w1", NULL);
    assert_true(fd >= 0);
    sweep_message m = fx_msg(SWEEP_MSG_SPAWN, 2); /* a player: the map's first spawn point */
    m.as.spawn.radii = (sweep_vec3){0.4, 0.4, 0.9};
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
    uint32_t e = m.as.spawned.entity;
    for (uint32_t k = 0; k < WALK; k++) {
        double a = k * 0.15;
        m = fx_move_msg(e, 10 + k, (sweep_vec3){6 * cos(a), 6 * sin(a), k % 30 == 0 ? 5.0 : 0.0}, 1.0 / 60);
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
        out[k] = m.as.move_result;
    }
    close(fd);
    assert_int_equal(fx_stop(&srv), 0);
}

/* Determinism: a world does on thread 1 of two what it does alone. */
static void test_same_results_one_and_two_threads(void **state)
{
    (void)state;
    static sweep_msg_move_result one[WALK], two[WALK];
    walk(1, one);
    walk(2, two);
    for (int k = 0; k < WALK; k++) {
        assert_memory_equal(&one[k].position, &two[k].position, sizeof one[k].position);
        assert_memory_equal(&one[k].velocity, &two[k].velocity, sizeof one[k].velocity);
        assert_int_equal(one[k].grounded, two[k].grounded);
        assert_int_equal(one[k].rules, two[k].rules);
    }
    /* It did move: the comparison is of something. */
    assert_true(one[WALK - 1].position.x != one[0].position.x || one[WALK - 1].position.y != one[0].position.y);
}

/* --record with two threads: each world's log is written by its own thread
 * and replays bit for bit. */
static void test_recording_per_thread(void **state)
{
    (void)state;
    char rec[64];
    snprintf(rec, sizeof rec, "%s/rec", dir);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *more[] = {"--record", rec, "--record-hash-every", "1", NULL};
    start(2, more);
    for (int w = 0; w < 2; w++) {
        int fd = tcp_session(w ? "w1" : "w0", NULL);
        assert_true(fd >= 0);
        uint32_t e = fx_spawn(fd, rx, 2, (sweep_vec3){0, 0, 0}, (sweep_vec3){0.4, 0.4, 0.9});
        assert_true(e != 0);
        for (uint32_t k = 0; k < 20; k++) {
            sweep_message m = fx_move_msg(e, 10 + k, (sweep_vec3){2, 1, 0}, 1.0 / 60);
            assert_int_equal(fx_send(fd, &m), 0);
            assert_int_equal(fx_recv(fd, rx, &m), 1);
            assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
        }
        close(fd);
    }
    assert_int_equal(fx_stop(&srv), 0);
    char replay[1100];
    fx_build("bin/sweep-replay", replay, sizeof replay);
    DIR *d = opendir(rec);
    assert_non_null(d);
    int logs[2] = {0, 0};
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[400], cmd[1700], *out = NULL;
        snprintf(path, sizeof path, "%s/%s", rec, de->d_name);
        snprintf(cmd, sizeof cmd, "'%s' '%s'", replay, path);
        int rc = fx_run(cmd, &out);
        if (rc != 0 || !strstr(out, "replay ok"))
            fprintf(stderr, "test_threads: %s: %s\n", path, out ? out : "");
        assert_int_equal(rc, 0);
        free(out);
        logs[de->d_name[1] == '1']++;
        unlink(path);
    }
    closedir(d);
    rmdir(rec);
    assert_int_equal(logs[0], 1);
    assert_int_equal(logs[1], 1);
}

/* --threads is checked, and more threads than maps start as many as there
 * are maps. */
static void test_threads_option(void **state)
{
    (void)state;
    char bin[1100], cmd[3000];
    char *out = NULL;
    fx_build("bin/sweepd", bin, sizeof bin);
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --threads 0", bin, map0);
    assert_int_equal(fx_run(cmd, &out), 2);
    assert_non_null(strstr(out, "--threads"));
    free(out);
    const char *more[] = {"--threads", "4", "--log-level", "info", NULL};
    start(2, more);
    assert_true(tcp_session("w1", NULL) >= 0);
    char logp[1100];
    snprintf(logp, sizeof logp, "%s", srv.log);
    FILE *f = fopen(logp, "r");
    assert_non_null(f);
    char line[2048];
    int ready = 0;
    while (fgets(line, sizeof line, f)) {
        const char *own = strstr(line, " udp_own_ports=");
        int a = 0, b = 0;
        /* Both threads' own ports, for a firewall to let through. */
        ready |= strstr(line, "event=ready") && strstr(line, " threads=2 ") && own &&
                 sscanf(own, " udp_own_ports=%d,%d", &a, &b) == 2 && a > 0 && b > 0 && a != b;
    }
    fclose(f);
    assert_true(ready);
    assert_int_equal(fx_stop(&srv), 0);
}

/* A UDP socket bound to 127.0.0.1:port, or -1 if the port is taken. */
static int udp_bound(int port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* --udp-thread-ports P: thread i's own port is P + i (world 1 on thread
 * 1), said on the ready line and in Welcomes; a range past 65535 is
 * refused, and a port of it that is taken stops sweepd with the port
 * named. */
static void test_udp_thread_ports(void **state)
{
    (void)state;
    int first = 0;
    for (int p = 20000 + (int)(getpid() % 20000); p < 65000 && !first; p += 7) {
        int a = udp_bound(p), b = udp_bound(p + 1);
        if (a >= 0 && b >= 0)
            first = p;
        if (a >= 0)
            close(a);
        if (b >= 0)
            close(b);
    }
    assert_true(first > 0);
    char ports[16];
    snprintf(ports, sizeof ports, "%d", first);
    const char *more[] = {"--udp-thread-ports", ports, "--log-level", "info", NULL};
    start(2, more);
    for (int w = 0; w < 2; w++) {
        uint16_t own = 0;
        int fd = udp_session(w ? "w1" : "w0", NULL, &own);
        assert_true(fd >= 0);
        assert_int_equal(own, first + w);
        close(fd);
    }
    FILE *f = fopen(srv.log, "r");
    assert_non_null(f);
    char line[2048], want[64];
    snprintf(want, sizeof want, " udp_own_ports=%d,%d", first, first + 1);
    int ready = 0;
    while (fgets(line, sizeof line, f))
        ready |= strstr(line, "event=ready") && strstr(line, want);
    fclose(f);
    assert_true(ready);
    assert_int_equal(fx_stop(&srv), 0);

    char bin[1100], cmd[3000];
    char *out = NULL;
    fx_build("bin/sweepd", bin, sizeof bin);
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --map '%s' --threads 2 --udp-thread-ports 65535 2>&1", bin, map0, map1);
    assert_int_equal(fx_run(cmd, &out), 2);
    assert_non_null(strstr(out, "--udp-thread-ports: 2 threads from port 65535 run past port 65535"));
    free(out);
    out = NULL;
    int taken = udp_bound(first + 1);
    assert_true(taken >= 0);
    snprintf(cmd, sizeof cmd,
             "'%s' --map '%s' --map '%s' --threads 2 --listen 127.0.0.1:0 --udp-thread-ports %d 2>&1", bin, map0,
             map1, first);
    assert_int_not_equal(fx_run(cmd, &out), 0);
    snprintf(want, sizeof want, "udp bind 127.0.0.1:%d (thread 1's own port", first + 1);
    assert_non_null(strstr(out, want));
    free(out);
    close(taken);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_worlds_answer),
        cmocka_unit_test(test_handover_keeps_pipelined_bytes),
        cmocka_unit_test(test_bounced_hellos_keep_their_handshake),
        cmocka_unit_test(test_handover_charges_a_hello_once),
        cmocka_unit_test(test_udp_forwarded),
        cmocka_unit_test(test_udp_direct_port),
        cmocka_unit_test(test_udp_direct_port_rules),
        cmocka_unit_test(test_udp_direct_port_unreachable),
        cmocka_unit_test(test_limits_global),
        cmocka_unit_test(test_figures_summed),
        cmocka_unit_test(test_sigterm_stops_every_thread),
        cmocka_unit_test(test_same_results_one_and_two_threads),
        cmocka_unit_test(test_recording_per_thread),
        cmocka_unit_test(test_threads_option),
        cmocka_unit_test(test_udp_thread_ports),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
