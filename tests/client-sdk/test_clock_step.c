/*
 * test_clock_step.c - arrival times across a step of the real-time clock
 * (NTP stepping it, a user setting the time, a virtual machine resumed).
 * The kernel stamps what a socket receives on that clock and libsweep
 * moves the stamps to the monotonic one (platform_posix.c): a stamp taken
 * before a step and moved by the clocks' difference after it is off by
 * the whole step, so a forward step of 5 s while datagrams waited in the
 * socket put their arrivals 5 s before they came: before the requests
 * they answer (a Ping's round trip below zero, wrapped), and every tick
 * estimate 300 ticks ahead.
 *
 * The step is this process's alone: clock_gettime is defined here (the
 * static libsweep calls it through the program's own symbol), adding the
 * step to CLOCK_REALTIME once it is taken; the kernel's own stamps stay
 * on its real clock, as those of what arrived before a real step do, and
 * recvmsg and recvmmsg, also defined here, move the stamps of what arrived
 * after the step by it, as the kernel's stepped clock would have. So each
 * arrival is stamped as a real step would stamp it.
 *
 * Over loopback, between libsweep's platform layer and sockets of the
 * test's own (UDP and TCP), and a client watching the world of a real
 * sweepd.
 */
#include "tests/sweepd_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/platform.h"

#define STEP_NS 5000000000ll /* the step: 5 s forward */
#define WAIT_US 30000        /* how long what was sent waits before it is read */

static int64_t shift_ns;   /* the step, once taken */
static int64_t step_at_ns; /* the kernel's real time when it was taken */
static int step_armed;     /* take it when the real-time clock is next read */

static int64_t ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t kernel_real_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
    return ts_ns(&ts);
}

static void take_step(void)
{
    step_at_ns = kernel_real_ns();
    shift_ns = STEP_NS;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    /* libsweep reads the real-time clock only to time what a read of a
     * socket returns, so the armed step comes as the client reads: after
     * WAIT_US more, so that what is on its way waits in the socket,
     * stamped before the step, as the step is taken. */
    if (id == CLOCK_REALTIME && step_armed) {
        step_armed = 0;
        usleep(WAIT_US);
        take_step();
    }
    int r = (int)syscall(SYS_clock_gettime, id, ts);
    if (r == 0 && id == CLOCK_REALTIME && shift_ns) {
        int64_t t = ts_ns(ts) + shift_ns;
        ts->tv_sec = t / 1000000000;
        ts->tv_nsec = t % 1000000000;
    }
    return r;
}

/* A stamp the kernel took after the step, on the stepped clock. */
static void shift_stamps(struct msghdr *h)
{
    if (!shift_ns)
        return;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm != NULL; cm = CMSG_NXTHDR(h, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS)
            continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(cm), sizeof ts);
        int64_t t = ts_ns(&ts);
        if (t >= step_at_ns) {
            t += shift_ns;
            ts.tv_sec = t / 1000000000;
            ts.tv_nsec = t % 1000000000;
            memcpy(CMSG_DATA(cm), &ts, sizeof ts);
        }
    }
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *tmo)
{
    int r = (int)syscall(SYS_recvmmsg, fd, v, n, flags, tmo);
    for (int i = 0; i < r; i++)
        shift_stamps(&v[i].msg_hdr);
    return r;
}

ssize_t recvmsg(int fd, struct msghdr *h, int flags)
{
    ssize_t r = (ssize_t)syscall(SYS_recvmsg, fd, h, flags);
    if (r >= 0)
        shift_stamps(h);
    return r;
}

static int reset(void **state)
{
    (void)state;
    shift_ns = step_at_ns = 0;
    step_armed = 0;
    return 0;
}

/* Linux turns its receive stamps on for the first socket that asks for
 * them a moment later (a deferred work item), and stamps what arrives
 * before that at its read: the tests wait that moment out before they
 * look at a stamp. */
static void let_stamps_start(void)
{
    usleep(50000);
}

static void wait_readable(sweep__sock s)
{
    int revents, sys = 0;
    assert_int_equal(sweep__sock_wait(s, SWEEP__WAIT_IN, 5000, &revents, &sys), 1);
}

/* A datagram socket of libsweep's (stamps asked for) on 127.0.0.1, and
 * the test's own connected to it. */
static void udp_pair(sweep__sock *rx, int *tx)
{
    int sys = 0;
    *rx = sweep__sock_open(AF_INET, SOCK_DGRAM, 0, &sys);
    assert_true(*rx != SWEEP__NO_SOCK);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(*rx, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(*rx, (struct sockaddr *)&a, &al), 0);
    *tx = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(*tx >= 0);
    assert_int_equal(connect(*tx, (struct sockaddr *)&a, sizeof a), 0);
}

static void send_datagrams(int tx, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(send(tx, "datagram", 8, 0), 8);
}

/* Reads every datagram waiting, in batches of `batch`: each arrival no
 * earlier than `after` nor than the one before it, none later than its
 * read; their number. */
static int read_datagrams(sweep__sock rx, sweep__rx_clock *clk, unsigned batch, uint64_t after)
{
    uint8_t bufs[32][64];
    sweep__datagram got[32];
    sweep__rx_batch *b = sweep__rx_batch_create(&bufs[0][0], sizeof bufs[0], batch);
    assert_non_null(b);
    int total = 0;
    uint64_t prev = after;
    for (;;) {
        sweep__net_kind kind = SWEEP__NET_OK;
        int sys = 0;
        int n = sweep__sock_recv_batch(rx, b, clk, got, &kind, &sys);
        uint64_t now = sweep__clock_ns();
        assert_true(n >= 0);
        if (n == 0)
            break;
        for (int i = 0; i < n; i++) {
            if (got[i].arrived < prev)
                fail_msg("datagram %d arrived %.3f s before %s", total + i, (double)(prev - got[i].arrived) / 1e9,
                         prev == after ? "it was sent" : "the one before it");
            assert_true(got[i].arrived <= now);
            prev = got[i].arrived;
        }
        total += n;
    }
    sweep__rx_batch_destroy(b);
    return total;
}

/* One read of a datagram sent WAIT_US before it: its arrival is the
 * kernel's stamp, not the time of the read. */
static void stamped_as_sent(sweep__sock rx, int tx, sweep__rx_clock *clk)
{
    uint64_t sent = sweep__clock_ns();
    send_datagrams(tx, 1);
    usleep(WAIT_US);
    uint8_t buf[64];
    sweep__datagram got;
    sweep__rx_batch *b = sweep__rx_batch_create(buf, sizeof buf, 1);
    assert_non_null(b);
    sweep__net_kind kind = SWEEP__NET_OK;
    int sys = 0;
    assert_int_equal(sweep__sock_recv_batch(rx, b, clk, &got, &kind, &sys), 1);
    uint64_t now = sweep__clock_ns();
    sweep__rx_batch_destroy(b);
    assert_true(got.arrived >= sent);
    assert_true(got.arrived + WAIT_US * 1000 / 2 <= now);
}

/* Forty datagrams wait in the socket (more than one batch of 32 reads)
 * while the clock steps: none is timed before it was sent, nor before the
 * one before it, whichever read took it; and the stamps of datagrams that
 * arrive after the step are the kernel's again. */
static void datagrams_across_a_forward_step(void **state)
{
    (void)state;
    sweep__sock rx;
    int tx;
    udp_pair(&rx, &tx);
    let_stamps_start();
    sweep__rx_clock clk = {0};
    stamped_as_sent(rx, tx, &clk);
    uint64_t sent = sweep__clock_ns();
    send_datagrams(tx, 40);
    usleep(WAIT_US);
    take_step();
    assert_int_equal(read_datagrams(rx, &clk, 32, sent), 40);
    stamped_as_sent(rx, tx, &clk);
    close(tx);
    sweep__sock_close(rx);
}

/* The same over a stream: the bytes' arrival is that of the newest
 * segment read with them. */
static void stream_across_a_forward_step(void **state)
{
    (void)state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(lfd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &al), 0);
    assert_int_equal(listen(lfd, 1), 0);
    int sys = 0;
    sweep__sock s = sweep__sock_open(AF_INET, SOCK_STREAM, 0, &sys);
    assert_true(s != SWEEP__NO_SOCK);
    sweep__net_kind k = sweep__sock_connect(s, (struct sockaddr *)&a, sizeof a, &sys);
    assert_true(k == SWEEP__NET_OK || k == SWEEP__NET_IN_PROGRESS);
    int peer = accept(lfd, NULL, NULL);
    assert_true(peer >= 0);
    let_stamps_start();
    sweep__rx_clock clk = {0};
    uint8_t buf[256];
    uint64_t arrived;
    for (int round = 0; round < 3; round++) {
        uint64_t sent = sweep__clock_ns();
        assert_int_equal(send(peer, "segment", 7, 0), 7);
        usleep(WAIT_US);
        if (round == 1)
            take_step();
        wait_readable(s);
        sweep__net_kind kind = SWEEP__NET_OK;
        assert_int_equal(sweep__sock_recv(s, buf, sizeof buf, &clk, &arrived, &kind, &sys), 7);
        uint64_t now = sweep__clock_ns();
        if (arrived < sent)
            fail_msg("round %d: the bytes arrived %.3f s before they were sent", round,
                     (double)(sent - arrived) / 1e9);
        assert_true(arrived <= now);
        if (round != 1) /* before the step and after it: the kernel's stamp */
            assert_true(arrived + WAIT_US * 1000 / 2 <= now);
    }
    close(peer);
    close(lfd);
    sweep__sock_close(s);
}

/* A client watching the world, whose Pong waited in the socket among
 * WorldStates as the clock stepped: a round trip of its true length (not
 * one wrapped below zero), events that never arrive before the ones
 * before them, and a tick estimate no further ahead of the newest tick
 * heard than the time since. */
static void client_across_a_forward_step(void **state)
{
    (void)state;
    fx_server fx;
    assert_int_equal(fx_start(&fx, NULL), 0);
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = SWEEP_CLIENT_UDP;
    o.address = fx.udp;
    o.client_name = "test_clock_step";
    o.timeout_ms = 20000;
    sweep_client *c;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
    sweep_msg_world_state ws;
    assert_int_equal(sweep_client_watch_world(c, 1, &ws, &e), SWEEP_CLIENT_OK);
    uint64_t rtt = 0;
    assert_int_equal(sweep_client_ping(c, &rtt, &e), SWEEP_CLIENT_OK);
    step_armed = 1;
    uint64_t before = sweep__clock_ns();
    assert_int_equal(sweep_client_ping(c, &rtt, &e), SWEEP_CLIENT_OK);
    uint64_t took = sweep__clock_ns() - before;
    assert_int_equal(step_armed, 0);
    if (rtt > took)
        fail_msg("round trip %.3f s, in a call of %.3f s", (double)rtt / 1e9, (double)took / 1e9);
    sweep_client_event ev;
    uint64_t prev = 0, deadline = sweep__clock_ns() + 200000000u;
    int states = 0;
    while (sweep__clock_ns() < deadline) {
        while (sweep_client_poll(c, 10, &ev, &e) == SWEEP_CLIENT_OK) {
            if (ev.received_ns < prev)
                fail_msg("an event of tick %llu arrived %.3f s before the one before it",
                         (unsigned long long)ev.server_tick, (double)(prev - ev.received_ns) / 1e9);
            prev = ev.received_ns;
            states += ev.kind == SWEEP_CLIENT_EV_WORLD_STATE;
        }
    }
    assert_true(states > 0);
    const sweep_tick_clock *k = sweep_client_tick_clock(c);
    uint64_t now = sweep__clock_ns(), estimate = sweep_client_estimate_tick(c);
    assert_true(k->newest_tick > 0);
    double since = (double)(now - k->newest_ns) / k->period_ns;
    if ((double)estimate > (double)k->newest_tick + since + 2)
        fail_msg("estimate %llu, %.0f ticks ahead of the newest heard (%llu) and the time since",
                 (unsigned long long)estimate, (double)estimate - (double)k->newest_tick - since,
                 (unsigned long long)k->newest_tick);
    sweep_client_close(c);
    assert_int_equal(fx_stop(&fx), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(datagrams_across_a_forward_step, reset),
        cmocka_unit_test_setup(stream_across_a_forward_step, reset),
        cmocka_unit_test_setup(client_across_a_forward_step, reset),
    };
    return cmocka_run_group_tests_name("clock step", tests, NULL, NULL);
}
