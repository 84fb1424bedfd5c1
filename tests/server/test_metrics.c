/*
 * test_metrics.c - sweepd --metrics: the Prometheus text on GET /metrics
 * counts what clients did (moves, errors by code, sessions by transport,
 * bytes, a dropped datagram) and agrees with the Stats message, which
 * carries the same counters; `sweep stats` prints them; a busy metrics
 * address stops sweepd; and log lines start with a UTC timestamp.
 *
 * The server is started with --metrics 127.0.0.1:0 and the port it picked
 * is read from its ready line (`... metrics=127.0.0.1:PORT`). The endpoint
 * serves a snapshot the server publishes every 100 ms, so a scrape is
 * repeated until the last action shows (within FX_TIMEOUT_MS), then
 * checked whole. HTTP is spoken over a plain socket, on purpose: the test
 * shares no code with the server's HTTP library.
 */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

#include <cmocka.h>

#include "server/options.h"
#include "tests/sweepd_fixture.h"

#define MOVES 10u
#define BAD_DTS 3u

static fx_server srv;
static int metrics_port;
static fx_rx *rx;
static char log_path[] = "/tmp/sweep-test-metrics-XXXXXX";

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    int fd = mkstemp(log_path);
    if (fd < 0)
        return -1;
    close(fd);
    const char *extra[] = {"--metrics", "127.0.0.1:0", "--log-level", "info", NULL};
    char line[256];
    int tport = -1, uport = -1;
    if (fx_launch(&srv, NULL, NULL, extra, log_path, line, sizeof line) != 0)
        return -1;
    if (sscanf(line, "sweepd ready tcp=127.0.0.1:%d udp=127.0.0.1:%d metrics=127.0.0.1:%d", &tport, &uport,
               &metrics_port) != 3 ||
        tport <= 0 || metrics_port <= 0 || metrics_port == tport) {
        fprintf(stderr, "test_metrics: bad ready line '%s'\n", line);
        fx_stop(&srv);
        return -1;
    }
    srv.port = tport;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&srv);
    free(rx);
    unlink(log_path);
    return rc == 0 ? 0 : -1;
}

/* --- HTTP over a plain socket ----------------------------------------------- */

typedef struct http_answer {
    int status;
    char content_type[128];
    char *body; /* NUL-terminated, malloc'ed */
} http_answer;

/* Sends one request (Connection: close) and reads the answer to EOF. */
static void http(const char *method, const char *path, http_answer *a)
{
    memset(a, 0, sizeof *a);
    int fd = fx_tcp_connect(metrics_port);
    assert_true(fd >= 0);
    char req[256];
    snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", method, path);
    assert_int_equal(fx_write_all(fd, req, strlen(req)), 0);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    for (;;) {
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)(deadline - fx_now_ms());
        assert_true(left > 0 && poll(&p, 1, left) == 1);
        ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
        assert_true(r >= 0);
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = 0;
    assert_int_equal(sscanf(buf, "HTTP/1.1 %d", &a->status), 1);
    char *end = strstr(buf, "\r\n\r\n");
    assert_non_null(end);
    *end = 0;
    for (char *h = strstr(buf, "\r\n"); h; h = strstr(h + 2, "\r\n"))
        if (strncasecmp(h + 2, "Content-Type:", 13) == 0) {
            const char *v = h + 15;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t n = strcspn(v, "\r");
            snprintf(a->content_type, sizeof a->content_type, "%.*s", (int)n, v);
        }
    a->body = strdup(end + 4);
    assert_non_null(a->body);
    free(buf);
}

/* --- the exposition format ------------------------------------------------------ */

/* Checks every line: a "# HELP name text" or "# TYPE name counter|gauge"
 * comment, or `name{labels} value` with a finite value, a name with a
 * TYPE line before it, all names starting sweep_ and counters ending in
 * _total. Returns the number of samples. */
static int check_format(const char *body)
{
    char typed[64][64];
    int ntyped = 0, samples = 0;
    const char *line = body;
    assert_true(*body);
    while (*line) {
        const char *eol = strchr(line, '\n');
        assert_non_null(eol); /* every line ends with a newline, the last too */
        char l[512];
        assert_true((size_t)(eol - line) < sizeof l);
        memcpy(l, line, (size_t)(eol - line));
        l[eol - line] = 0;
        line = eol + 1;
        char name[64], word[64];
        if (l[0] == '#') {
            if (sscanf(l, "# HELP %63s %63s", name, word) == 2) {
                assert_true(strncmp(name, "sweep_", 6) == 0);
                continue;
            }
            assert_int_equal(sscanf(l, "# TYPE %63s %63s", name, word), 2);
            assert_true(strcmp(word, "counter") == 0 || strcmp(word, "gauge") == 0);
            if (strcmp(word, "counter") == 0) {
                size_t n = strlen(name);
                assert_true(n > 6 && strcmp(name + n - 6, "_total") == 0);
            }
            assert_true(ntyped < 64);
            snprintf(typed[ntyped++], sizeof typed[0], "%s", name);
            continue;
        }
        /* name [{k="v",...}] value */
        size_t n = 0;
        assert_true(isalpha((unsigned char)l[0]) || l[0] == '_');
        while (isalnum((unsigned char)l[n]) || l[n] == '_' || l[n] == ':')
            n++;
        assert_true(n < sizeof name);
        memcpy(name, l, n);
        name[n] = 0;
        assert_true(strncmp(name, "sweep_", 6) == 0);
        int found = 0;
        for (int i = 0; i < ntyped; i++)
            found |= strcmp(typed[i], name) == 0;
        if (!found)
            fail_msg("sample of %s without a TYPE line before it", name);
        const char *p = l + n;
        if (*p == '{') {
            p++;
            while (*p != '}') {
                assert_true(isalpha((unsigned char)*p) || *p == '_');
                while (isalnum((unsigned char)*p) || *p == '_')
                    p++;
                assert_true(p[0] == '=' && p[1] == '"');
                p += 2;
                while (*p && *p != '"') {
                    if (*p == '\\')
                        p++;
                    assert_true(*p);
                    p++;
                }
                assert_true(*p == '"');
                p++;
                if (*p == ',')
                    p++;
                else
                    assert_true(*p == '}');
            }
            p++;
        }
        assert_true(*p == ' ');
        p++;
        char *end;
        double v = strtod(p, &end);
        if (end == p || *end || !isfinite(v))
            fail_msg("not a finite number in: %s", l);
        samples++;
    }
    return samples;
}

/* The value of the sample written exactly `series` (name and labels), or
 * -1 if there is none. */
static double sample(const char *body, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = body; *l; l = strchr(l, '\n') + 1) {
        if (strncmp(l, series, n) == 0 && l[n] == ' ')
            return strtod(l + n + 1, NULL);
        if (!strchr(l, '\n'))
            break;
    }
    return -1;
}

/* --- clients ------------------------------------------------------------------ */

static void stats_of(int fd, sweep_msg_stats *st)
{
    sweep_message m = fx_msg(SWEEP_MSG_GET_STATS, 900), r;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_STATS);
    *st = r.as.stats;
}

/* Scrapes until the figures of what the test did show, and returns that
 * answer (the snapshot is published every 100 ms). */
static void scrape_until_seen(http_answer *a, double moves, double bad_dt, double dropped)
{
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    for (;;) {
        http("GET", "/metrics", a);
        if ((sample(a->body, "sweep_moves_total") == moves &&
             sample(a->body, "sweep_errors_total{code=\"BadDt\"}") == bad_dt &&
             sample(a->body, "sweep_udp_dropped_total") == dropped) ||
            fx_now_ms() > deadline)
            return;
        free(a->body);
        usleep(50000);
    }
}

/* A player over TCP and a session over UDP move, err and drop; the
 * endpoint and Stats both count it. */
static void test_metrics_count_what_clients_did(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    uint32_t e = fx_spawn(fd, rx, 2, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(e != 0);
    uint32_t seq = 10;
    for (unsigned i = 0; i < MOVES; i++) {
        sweep_message m = fx_move_msg(e, ++seq, sweep_v3(1, 0, 0), 1.0 / 60.0), r;
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &r), 1);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
    }
    for (unsigned i = 0; i < BAD_DTS; i++) {
        sweep_message m = fx_move_msg(e, ++seq, sweep_v3(1, 0, 0), i == 0 ? 0.0 : -1.0);
        assert_int_equal(fx_expect_error(fd, rx, &m, NULL), SWEEP_WIRE_BAD_DT);
    }
    uint32_t other = e == 1 ? 2 : 1; /* ids are random: 1 is almost surely nobody's */
    sweep_message unknown = fx_move_msg(other, ++seq, sweep_v3(1, 0, 0), 1.0 / 60.0);
    assert_int_equal(fx_expect_error(fd, rx, &unknown, NULL), SWEEP_WIRE_UNKNOWN_ENTITY);

    int ufd = fx_udp_socket(srv.port);
    assert_true(ufd >= 0);
    assert_true(fx_udp_handshake(ufd, rx) != 0);
    /* From an address without a session, a datagram that is no Hello is
     * dropped unanswered: one for udp_dropped. */
    int stray = fx_udp_socket(srv.port);
    assert_true(stray >= 0);
    assert_int_equal(send(stray, "not a hello", 11, 0), 11);

    http_answer a;
    scrape_until_seen(&a, MOVES, BAD_DTS, 1);
    assert_int_equal(a.status, 200);
    assert_true(strncmp(a.content_type, "text/plain; version=0.0.4", 25) == 0);
    assert_true(check_format(a.body) > 40);
    assert_true(sample(a.body, "sweep_moves_total") == MOVES);
    assert_true(sample(a.body, "sweep_errors_total{code=\"BadDt\"}") == BAD_DTS);
    assert_true(sample(a.body, "sweep_errors_total{code=\"UnknownEntity\"}") == 1);
    assert_true(sample(a.body, "sweep_errors_total{code=\"RateLimited\"}") == 0);
    assert_true(sample(a.body, "sweep_udp_dropped_total") == 1);
    assert_true(sample(a.body, "sweep_sessions{transport=\"tcp\"}") == 1);
    assert_true(sample(a.body, "sweep_sessions{transport=\"udp\"}") == 1);
    assert_true(sample(a.body, "sweep_sessions_opened_total") == 2);
    assert_true(sample(a.body, "sweep_entities") == 1);
    assert_true(sample(a.body, "sweep_worlds") == 1);
    assert_true(sample(a.body, "sweep_requests_total") >= 2 + MOVES + BAD_DTS + 1);
    assert_true(sample(a.body, "sweep_received_bytes_total{transport=\"tcp\"}") > 0);
    assert_true(sample(a.body, "sweep_received_bytes_total{transport=\"udp\"}") >= SWEEP_UDP_HELLO_MIN * 2 + 11);
    assert_true(sample(a.body, "sweep_sent_bytes_total{transport=\"tcp\"}") > 0);
    assert_true(sample(a.body, "sweep_sent_bytes_total{transport=\"udp\"}") > 0);
    assert_true(sample(a.body, "sweep_move_seconds_total") > 0);
    assert_true(sample(a.body, "sweep_ticks_total") > 0);
    assert_true(sample(a.body, "sweep_tick_seconds_total") > 0);
    assert_true(sample(a.body, "sweep_tick_p99_seconds") >= sample(a.body, "sweep_tick_p50_seconds"));
    assert_true(sample(a.body, "sweep_uptime_seconds") > 0);
    assert_true(sample(a.body, "sweep_crushed_total") == 0);
    assert_true(sample(a.body, "sweep_queries_total") == 0);
    assert_true(sample(a.body, "sweep_info{version=\"" SWEEP_SERVER_VERSION "\",protocol=\"1\"}") == 1);

    /* Stats says the same (the counters that nothing has moved since). */
    sweep_msg_stats st;
    stats_of(fd, &st);
    assert_true(st.moves_total == MOVES);
    assert_int_equal(st.errors_by_code_count, SWEEP_WIRE_CODE_COUNT);
    assert_true(st.errors_by_code[SWEEP_WIRE_BAD_DT] == BAD_DTS);
    assert_true(st.errors_by_code[SWEEP_WIRE_UNKNOWN_ENTITY] == 1);
    assert_true(st.errors_total == BAD_DTS + 1);
    assert_true(st.udp_dropped == 1);
    assert_true(sample(a.body, "sweep_movers") == st.movers);
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++) {
        char series[96];
        snprintf(series, sizeof series, "sweep_rule_reports_total{rule=\"%s\"}", sweep_wire_rule_name(i));
        assert_true(sample(a.body, series) == (double)st.rules_total[i]);
    }
    /* Byte counts only grow: the scrape was taken first. */
    assert_true(st.tcp_bytes_in >= sample(a.body, "sweep_received_bytes_total{transport=\"tcp\"}"));
    assert_true(st.tcp_bytes_out >= sample(a.body, "sweep_sent_bytes_total{transport=\"tcp\"}"));
    assert_true(st.udp_bytes_in >= sample(a.body, "sweep_received_bytes_total{transport=\"udp\"}"));
    assert_true(st.udp_bytes_out > 0 && st.move_ns_total > 0 && st.ticks_total > 0 && st.tick_ns_total > 0);
    free(a.body);
    close(stray);
    close(ufd);
    close(fd);
}

static void test_other_paths_are_not_found(void **state)
{
    (void)state;
    http_answer a;
    http("GET", "/other", &a);
    assert_int_equal(a.status, 404);
    assert_null(strstr(a.body, "sweep_moves_total"));
    free(a.body);
    http("GET", "/metrics/x", &a);
    assert_int_equal(a.status, 404);
    free(a.body);
    http("POST", "/metrics", &a);
    assert_int_equal(a.status, 405);
    free(a.body);
    http("HEAD", "/metrics", &a);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.body, "");
    free(a.body);
}

/* `sweep stats` prints the new counters, as text and as JSON. */
static void test_sweep_stats_prints_them(void **state)
{
    (void)state;
    char cmd[2400], out[8192];
    char sweep[1100];
    snprintf(sweep, sizeof sweep, "%s", srv.bin);
    char *slash = strrchr(sweep, '/');
    assert_non_null(slash);
    snprintf(slash + 1, sizeof sweep - (size_t)(slash + 1 - sweep), "sweep");
    for (int json = 0; json <= 1; json++) {
        snprintf(cmd, sizeof cmd, "'%s' stats --connect 127.0.0.1:%d%s", sweep, srv.port, json ? " --json" : "");
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        assert_int_equal(pclose(p), 0);
        if (json) {
            assert_non_null(strstr(out, "\"errors_by_code\":{\"None\":0,"));
            assert_non_null(strstr(out, "\"BadDt\":3,"));
            assert_non_null(strstr(out, "\"UnknownEntity\":1,"));
            assert_non_null(strstr(out, "\"udp_dropped\":1,"));
            assert_non_null(strstr(out, "\"move_ns_total\":"));
            assert_null(strstr(out, "\"move_ns_total\":0}"));
        } else {
            assert_non_null(strstr(out, " errors_by_code=UnknownEntity:1,BadDt:3 ")); /* in code order */
            assert_non_null(strstr(out, " udp_dropped=1 "));
            assert_non_null(strstr(out, " tcp_bytes_in="));
            assert_null(strstr(out, " tcp_bytes_in=0 "));
            assert_non_null(strstr(out, " ticks_total="));
            assert_null(strstr(out, " move_ns_total=0\n"));
        }
    }
}

/* Every log line starts with ts=<UTC now, to the millisecond> then t=. */
static void test_log_lines_start_with_utc_time(void **state)
{
    (void)state;
    FILE *f = fopen(log_path, "r");
    assert_non_null(f);
    char line[2048], ready[64];
    int lines = 0, ready_seen = 0;
    time_t now = time(NULL);
    snprintf(ready, sizeof ready, " metrics=127.0.0.1:%d", metrics_port);
    while (fgets(line, sizeof line, f)) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        int ms = -1, used = 0;
        if (sscanf(line, "ts=%4d-%2d-%2dT%2d:%2d:%2d.%3dZ t=%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec, &ms, &used) != 7 ||
            used != 30)
            fail_msg("log line without ts= first: %s", line);
        assert_true(ms >= 0 && ms <= 999);
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        time_t t = timegm(&tm);
        assert_true(t <= now + 1 && t >= now - 600); /* written during this test, in UTC */
        assert_true(isdigit((unsigned char)line[30]));
        lines++;
        if (strstr(line, " event=ready ") && strstr(line, ready))
            ready_seen = 1;
    }
    fclose(f);
    assert_true(lines >= 2);
    assert_true(ready_seen);
}

/* A metrics address that cannot be bound stops sweepd at start-up with
 * exit status 1 and a message naming the option and the address. */
static void test_busy_metrics_port_stops_sweepd(void **state)
{
    (void)state;
    int busy = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = fx_addr(0);
    assert_int_equal(bind(busy, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(busy, 1), 0);
    socklen_t al = sizeof a;
    getsockname(busy, (struct sockaddr *)&a, &al);
    char addr[64], line[256], errlog[] = "/tmp/sweep-test-metrics-busy-XXXXXX";
    snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(a.sin_port));
    int lfd = mkstemp(errlog);
    assert_true(lfd >= 0);
    close(lfd);
    const char *extra[] = {"--metrics", addr, NULL};
    fx_server fx;
    assert_int_equal(fx_launch(&fx, NULL, NULL, extra, errlog, line, sizeof line), 0);
    assert_int_equal(fx_wait(&fx), 1);
    assert_string_equal(line, ""); /* no ready line */
    FILE *f = fopen(errlog, "r");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    unlink(errlog);
    char want[128];
    snprintf(want, sizeof want, "sweepd: --metrics: cannot listen on %s: Address already in use", addr);
    if (!strstr(text, want))
        fail_msg("expected '%s' in: %s", want, text);
    close(busy);
    /* A malformed address is an option error (exit 2), before any map loads. */
    const char *bad[] = {"--metrics", "127.0.0.1", NULL};
    assert_int_equal(fx_launch(&fx, NULL, NULL, bad, "/dev/null", line, sizeof line), 0);
    assert_int_equal(fx_wait(&fx), 2);
}

/* --metrics in the option table: HOST:PORT as --listen takes it, off to
 * undo a config file's, and errors naming the option. */
static void test_metrics_option(void **state)
{
    (void)state;
    sweep_server_options o;
    char err[256];
    sweep_server_options_default(&o);
    assert_int_equal(o.metrics, 0);
    assert_int_equal(sweep_server_options_set(&o, "metrics", "[::1]:0", err, sizeof err), SWEEP_OPTIONS_OK);
    assert_int_equal(o.metrics, 1);
    assert_string_equal(o.metrics_host, "::1");
    assert_int_equal(o.metrics_port, 0);
    assert_int_equal(sweep_server_options_set(&o, "metrics", ":9100", err, sizeof err), SWEEP_OPTIONS_OK);
    assert_string_equal(o.metrics_host, "::1"); /* kept, as --listen :PORT keeps its host */
    assert_int_equal(o.metrics_port, 9100);
    assert_string_equal(o.host, "127.0.0.1"); /* --listen untouched */
    assert_int_equal(o.port, SWEEP_SERVER_DEFAULT_PORT);
    assert_int_equal(sweep_server_options_set(&o, "metrics", "off", err, sizeof err), SWEEP_OPTIONS_OK);
    assert_int_equal(o.metrics, 0);
    assert_int_equal(sweep_server_options_set(&o, "metrics", "127.0.0.1:70000", err, sizeof err),
                     SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--metrics: 70000 is out of range"));
    assert_int_equal(sweep_server_options_set(&o, "metrics", "::1:80", err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--metrics: write IPv6 addresses as [ADDR]:PORT"));
    assert_int_equal(o.metrics, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_count_what_clients_did),
        cmocka_unit_test(test_other_paths_are_not_found),
        cmocka_unit_test(test_sweep_stats_prints_them),
        cmocka_unit_test(test_log_lines_start_with_utc_time),
        cmocka_unit_test(test_busy_metrics_port_stops_sweepd),
        cmocka_unit_test(test_metrics_option),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
