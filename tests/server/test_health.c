/*
 * test_health.c - the metrics port as an orchestrator's probes and a
 * fleet's scraper meet it: GET /healthz and /readyz answer without a
 * session or a log line; /readyz turns 503 while sweepd drains; /healthz
 * turns 503 while an event loop is stalled and 200 again when it runs;
 * and one host that holds many connections trickling half-sent requests
 * does not keep a scrape from another address from being answered, and a
 * request left half sent is closed after the listener's timeout; while
 * the maps load, /healthz is 200 and /readyz 503 "starting".
 *
 * The stall is made, not waited for, as in test_stall.c: the server's
 * stderr is a FIFO of one page that this test stops reading; a burst of
 * requests for an unknown entity makes it log (--log-level debug, one
 * request_error line each) until its loop blocks in write(2). The probes
 * are answered by the HTTP thread meanwhile: they take no lock the loop
 * holds and write no log line.
 *
 * Time bounds here only keep a broken server from hanging the test, with
 * one exception that is the point of the slow-loris test: the scrape from
 * the other address must be answered within SCRAPE_BOUND_MS, far less
 * than the tricklers would hold the listener for.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"

/* The listener's limits (server/metrics.c): per address, and silence. */
#define PER_ADDRESS 8
#define IDLE_TIMEOUT_S 3
#define TRICKLERS 100
#define SCRAPE_BOUND_MS 2000

static fx_rx *rx;

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    return rx ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(rx);
    return 0;
}

/* sweepd with --metrics on a free port and the extra arguments, its log
 * into log (NULL: the fixture's file); the metrics port. */
static int start(fx_server *srv, const char *const *more, const char *log)
{
    const char *extra[32] = {"--metrics", "127.0.0.1:0"};
    int n = 2;
    for (int i = 0; more && more[i] && n < 31; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    char line[256];
    int tport = -1, uport = -1, mport = -1;
    assert_int_equal(fx_launch(srv, NULL, NULL, extra, log, line, sizeof line), 0);
    if (sscanf(line, "sweepd ready tcp=127.0.0.1:%d udp=127.0.0.1:%d metrics=127.0.0.1:%d", &tport, &uport,
               &mport) != 3) {
        fx_stop(srv);
        fail_msg("bad ready line '%s'", line);
    }
    srv->port = tport;
    return mport;
}

/* GET path from src (NULL: any): its status, with the body's start in want
 * when want is not NULL. */
static int probe(int port, const char *src, const char *path, const char *want)
{
    fx_http_answer a;
    if (fx_http(port, src, "GET", path, FX_TIMEOUT_MS, &a) != 0)
        fail_msg("GET %s: no answer", path);
    if (want && strncmp(a.body, want, strlen(want)) != 0)
        fail_msg("GET %s: %d '%s', not '%s...'", path, a.status, a.body, want);
    assert_string_equal(a.content_type, "text/plain; charset=utf-8");
    free(a.body);
    return a.status;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Probes open no session and write no log line, even at debug level. */
static void test_probes_are_silent(void **state)
{
    (void)state;
    fx_server srv;
    const char *more[] = {"--log-level", "debug", NULL};
    int port = start(&srv, more, NULL);
    assert_int_equal(probe(port, NULL, "/healthz", "ok\n"), 200);
    /* What the server says at start is written: from here, nothing. */
    long size = -1, was;
    do {
        was = size;
        usleep(200000);
        size = file_size(srv.log);
    } while (size != was);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(probe(port, NULL, "/healthz", "ok\n"), 200);
        assert_int_equal(probe(port, NULL, "/readyz", "ok\n"), 200);
    }
    fx_http_answer a;
    assert_int_equal(fx_http(port, NULL, "HEAD", "/readyz", FX_TIMEOUT_MS, &a), 0);
    assert_int_equal(a.status, 200);
    free(a.body);
    usleep(300000);
    if (file_size(srv.log) != size)
        fail_msg("the log grew from %ld to %ld bytes during the probes", size, file_size(srv.log));
    assert_true(fx_scrape(port, "sweep_sessions_opened_total") == 0);
    assert_true(fx_scrape(port, "sweep_tcp_connections") == 0);
    assert_int_equal(fx_stop(&srv), 0);
}

/* Draining (SIGTERM): /readyz says so while a connection keeps the server
 * up; /healthz still answers 200. */
static void test_readyz_while_draining(void **state)
{
    (void)state;
    fx_server srv;
    const char *more[] = {"--drain-timeout", "20", NULL};
    int port = start(&srv, more, NULL);
    assert_int_equal(probe(port, NULL, "/readyz", "ok\n"), 200);
    /* A session that never reads its Bye nor closes: the drain waits. */
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    assert_int_equal(kill(srv.pid, SIGTERM), 0);
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    int status;
    while ((status = probe(port, NULL, "/readyz", NULL)) == 200 && fx_now_ms() < deadline)
        usleep(20000);
    assert_int_equal(status, 503);
    assert_int_equal(probe(port, NULL, "/readyz", "draining"), 503);
    assert_int_equal(probe(port, NULL, "/healthz", "ok\n"), 200);
    close(fd);
    assert_int_equal(fx_wait(&srv), 0);
}

/* A loop blocked past --health-stall: /healthz and /readyz answer 503 and
 * name it; once it runs again, 200. */
static void test_healthz_sees_a_stalled_loop(void **state)
{
    (void)state;
    char dir[] = "/tmp/sweep-health-XXXXXX", fifo[64];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/sweepd.log", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int lfd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(lfd >= 0);
    fx_server srv;
    const char *more[] = {"--log-level", "debug", "--health-stall", "0.5", NULL};
    int port = start(&srv, more, fifo);
    int cap = fcntl(lfd, F_SETPIPE_SZ, 4096);
    assert_true(cap >= 4096);
    fx_fifo_drain(lfd);
    assert_int_equal(probe(port, NULL, "/healthz", "ok\n"), 200);

    /* Requests that log until the pipe is full and the loop blocks. A
     * session writes 10 lines a second at most, so they come from several. */
    enum { FILLERS = 12 };
    int filler[FILLERS];
    for (int k = 0; k < FILLERS; k++) {
        filler[k] = fx_tcp_connect(srv.port);
        assert_true(filler[k] >= 0);
        sweep_message m = fx_hello_msg("stall");
        assert_int_equal(fx_send(filler[k], &m), 0);
    }
    for (int k = 0; k < FILLERS; k++)
        for (uint32_t i = 0; i < 20; i++) {
            sweep_message bad = fx_move_msg(12345, 100 + i, sweep_v3(1, 0, 0), 1.0 / 60.0);
            assert_int_equal(fx_send(filler[k], &bad), 0);
        }
    if (fx_fifo_wait_full(lfd, cap) != 0)
        fail_msg("the server's log pipe never filled");
    usleep(800000); /* past the bound, and the last beat's 100 ms */
    assert_int_equal(probe(port, NULL, "/healthz", "stalled: the event loop of thread 0 has not turned for "), 503);
    assert_int_equal(probe(port, NULL, "/readyz", "stalled: "), 503);

    /* Unblocked, it beats again. */
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    int status;
    do {
        fx_fifo_drain(lfd);
        usleep(20000);
        fx_fifo_drain(lfd);
        status = probe(port, NULL, "/healthz", NULL);
    } while (status != 200 && fx_now_ms() < deadline);
    assert_int_equal(status, 200);
    for (int k = 0; k < FILLERS; k++)
        close(filler[k]);
    fx_fifo_release(lfd, fifo);
    assert_int_equal(fx_stop(&srv), 0);
    close(lfd);
    unlink(fifo);
    rmdir(dir);
}

/* While the maps load, the probes answer: /healthz 200 (alive: do not
 * restart it), /readyz 503 "starting" (send nobody yet). The load is held
 * still, not raced: sweepd's stderr is a FIFO this test filled before it
 * started, so the server blocks writing the line that says its map is
 * loaded, and goes on when the FIFO is read. */
static void test_probes_answer_while_maps_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/sweep-health-XXXXXX", fifo[64], bin[1100], arena[1100], mport[16];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/sweepd.log", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int lfd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(lfd >= 0);
    int wfd = open(fifo, O_WRONLY | O_NONBLOCK);
    assert_true(wfd >= 0);
    assert_true(fcntl(lfd, F_SETPIPE_SZ, 4096) >= 4096);
    char fill[512];
    memset(fill, '#', sizeof fill);
    while (write(wfd, fill, sizeof fill) > 0)
        ;
    assert_int_equal(errno, EAGAIN);
    int port = fx_free_port(); /* known before the ready line, which a loading server has not written */
    assert_true(port > 0);
    snprintf(mport, sizeof mport, "127.0.0.1:%d", port);
    fx_build("bin/sweepd", bin, sizeof bin);
    fx_build("maps/arena.db", arena, sizeof arena);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int null = open("/dev/null", O_WRONLY);
        int blocking = open(fifo, O_WRONLY);
        dup2(null, 1);
        dup2(blocking, 2);
        execl(bin, bin, "--map", arena, "--listen", "127.0.0.1:0", "--metrics", mport, "--log-level", "info",
              (char *)NULL);
        _exit(127);
    }
    close(wfd);
    /* Listening, while the map's line waits in write(2). */
    fx_http_answer a;
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    int answered;
    while ((answered = fx_http(port, NULL, "GET", "/healthz", 1000, &a)) != 0 && fx_now_ms() < deadline)
        usleep(20000);
    if (answered != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fail_msg("no answer on the metrics port while the map loads");
    }
    free(a.body);
    assert_int_equal(probe(port, NULL, "/healthz", "ok\n"), 200);
    assert_int_equal(probe(port, NULL, "/readyz", "starting: "), 503);
    /* Read, it goes on and becomes ready. */
    int status;
    deadline = fx_now_ms() + FX_TIMEOUT_MS;
    do {
        fx_fifo_drain(lfd);
        usleep(20000);
        status = fx_http(port, NULL, "GET", "/readyz", 1000, &a) == 0 ? a.status : -1;
        if (status != -1)
            free(a.body);
    } while (status != 200 && fx_now_ms() < deadline);
    assert_int_equal(status, 200);
    fx_fifo_release(lfd, fifo);
    kill(pid, SIGTERM);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    close(lfd);
    unlink(fifo);
    rmdir(dir);
}

/* A connection from 127.0.0.1 to the port, begun and not waited for (the
 * listener's backlog may hold it a while). */
static int connect_pending(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in from = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in to = fx_addr(port);
    if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof from) != 0 ||
        (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Slow loris: from 127.0.0.1, TRICKLERS connections each sending a
 * request a byte a second, never finishing it. A scrape from 127.0.0.2 is
 * answered within SCRAPE_BOUND_MS all the same, and 127.0.0.1 holds at
 * most PER_ADDRESS of them. A request left half sent and silent is
 * closed after the idle timeout. */
static void test_one_host_cannot_starve_the_listener(void **state)
{
    (void)state;
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur < 4 * TRICKLERS && rl.rlim_max > rl.rlim_cur) {
        rl.rlim_cur = rl.rlim_max < 4 * TRICKLERS ? rl.rlim_max : 4 * TRICKLERS;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
    }
    fx_server srv;
    int port = start(&srv, NULL, NULL);
    int fds[TRICKLERS], open_count = 0;
    static const char head[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    for (int i = 0; i < TRICKLERS; i++) {
        fds[i] = connect_pending(port);
        assert_true(fds[i] >= 0);
    }
    /* Half a request each, then a byte a second past the idle timeout. */
    uint64_t start_ms = fx_now_ms();
    for (int round = 0; fx_now_ms() - start_ms < (IDLE_TIMEOUT_S + 2) * 1000u; round++) {
        for (int i = 0; i < TRICKLERS; i++) {
            if (fds[i] < 0)
                continue;
            char buf[256];
            ssize_t r = recv(fds[i], buf, sizeof buf, MSG_DONTWAIT);
            int gone = r == 0 || (r < 0 && errno != EAGAIN && errno != ENOTCONN);
            if (!gone) {
                ssize_t w = round == 0 ? send(fds[i], head, sizeof head - 1, MSG_NOSIGNAL | MSG_DONTWAIT)
                                       : send(fds[i], "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
                gone = w < 0 && errno != EAGAIN && errno != ENOTCONN;
            }
            if (gone) {
                close(fds[i]);
                fds[i] = -1;
            }
        }
        usleep(1000000);
    }
    for (int i = 0; i < TRICKLERS; i++)
        open_count += fds[i] >= 0;

    /* Another host is served at once. */
    uint64_t t0 = fx_now_ms();
    fx_http_answer a;
    if (fx_http(port, "127.0.0.2", "GET", "/metrics", SCRAPE_BOUND_MS, &a) != 0)
        fail_msg("a scrape from 127.0.0.2 was not answered within %d ms (127.0.0.1 holds %d connections)",
                 SCRAPE_BOUND_MS, open_count);
    assert_int_equal(a.status, 200);
    assert_non_null(strstr(a.body, "\nsweep_uptime_seconds "));
    free(a.body);
    assert_true(fx_now_ms() - t0 <= SCRAPE_BOUND_MS);
    assert_int_equal(probe(port, "127.0.0.2", "/healthz", "ok\n"), 200);
    /* The others were closed as they came. */
    if (open_count > PER_ADDRESS)
        fail_msg("127.0.0.1 holds %d connections, more than %d", open_count, PER_ADDRESS);
    for (int i = 0; i < TRICKLERS; i++)
        if (fds[i] >= 0)
            close(fds[i]);

    /* Half a request, then silence: closed after the idle timeout. */
    int fd = fx_http_connect_from(port, "127.0.0.3", FX_TIMEOUT_MS);
    assert_true(fd >= 0);
    assert_int_equal(send(fd, head, sizeof head - 1, MSG_NOSIGNAL), (ssize_t)(sizeof head - 1));
    uint64_t deadline = fx_now_ms() + (IDLE_TIMEOUT_S + 5) * 1000u;
    int closed = 0;
    while (!closed && fx_now_ms() < deadline) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) == 1) {
            char buf[256];
            ssize_t r = recv(fd, buf, sizeof buf, 0);
            closed = r == 0 || (r < 0 && errno != EAGAIN);
        }
    }
    close(fd);
    if (!closed)
        fail_msg("a half-sent request is still open after %d s", IDLE_TIMEOUT_S + 5);
    assert_int_equal(fx_stop(&srv), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probes_are_silent),
        cmocka_unit_test(test_readyz_while_draining),
        cmocka_unit_test(test_healthz_sees_a_stalled_loop),
        cmocka_unit_test(test_probes_answer_while_maps_load),
        cmocka_unit_test(test_one_host_cannot_starve_the_listener),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
