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
static char maps_dir[] = "/tmp/sweep-test-metrics-maps-XXXXXX";
static char maps_link[128];

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    int fd = mkstemp(log_path);
    if (fd < 0)
        return -1;
    close(fd);
    /* A maps directory (a copy of the arena: it takes no links) for a
     * world opened at run time. */
    if (!mkdtemp(maps_dir))
        return -1;
    char arena[1100];
    fx_build("maps/arena.db", arena, sizeof arena);
    snprintf(maps_link, sizeof maps_link, "%s/field.db", maps_dir);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", arena, maps_link);
    if (fx_run(cmd, NULL) != 0)
        return -1;
    /* And one whose level name is not UTF-8 (SQLite keeps TEXT as given):
     * "odd\xffname". */
    snprintf(cmd, sizeof cmd,
             "cp '%s' '%s/odd.db' && /usr/bin/python3 -c \"import sqlite3; c = sqlite3.connect('%s/odd.db'); "
             "c.execute('UPDATE map SET name = CAST(X\\'6F6464FF6E616D65\\' AS TEXT)'); c.commit()\"",
             arena, maps_dir, maps_dir);
    if (fx_run(cmd, NULL) != 0)
        return -1;
    const char *extra[] = {"--metrics",  "127.0.0.1:0", "--log-level",  "info",
                           "--maps-dir", maps_dir,      FX_SERVER_ARGS, NULL};
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
    unlink(maps_link);
    char odd[128];
    snprintf(odd, sizeof odd, "%s/odd.db", maps_dir);
    unlink(odd);
    rmdir(maps_dir);
    return rc == 0 ? 0 : -1;
}

/* --- HTTP ---------------------------------------------------------------------- */

typedef fx_http_answer http_answer;

/* One request to the metrics port, answered (the fixture's HTTP). */
static void http(const char *method, const char *path, http_answer *a)
{
    if (fx_http(metrics_port, NULL, method, path, FX_TIMEOUT_MS, a) != 0)
        fail_msg("%s %s: no answer", method, path);
}

/* --- the exposition format ------------------------------------------------------ */

/* sweepd's own series, and the process_* ones every client library has. */
static int our_name(const char *name)
{
    return strncmp(name, "sweep_", 6) == 0 || strncmp(name, "process_", 8) == 0;
}

/* Is `name` a sample of the family `family` of type `type`: the family's
 * own name, or for a histogram its _bucket, _sum or _count? */
static int of_family(const char *name, const char *family, const char *type)
{
    size_t n = strlen(family);
    if (strncmp(name, family, n) != 0)
        return 0;
    if (!name[n])
        return strcmp(type, "histogram") != 0;
    return strcmp(type, "histogram") == 0 &&
           (strcmp(name + n, "_bucket") == 0 || strcmp(name + n, "_sum") == 0 || strcmp(name + n, "_count") == 0);
}

/* Checks every line: a "# HELP name text" or "# TYPE name
 * counter|gauge|histogram" comment, or `name{labels} value` with a finite
 * value (+Inf only as a bucket's le), a name of a family whose TYPE line
 * came before it, every name sweepd's (sweep_) or a process_ one, and
 * counters ending in _total. Returns the number of samples. */
static int check_format(const char *body)
{
    char typed[96][64], types[96][64];
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
                assert_true(our_name(name));
                continue;
            }
            assert_int_equal(sscanf(l, "# TYPE %63s %15s", name, word), 2);
            assert_true(strcmp(word, "counter") == 0 || strcmp(word, "gauge") == 0 ||
                        strcmp(word, "histogram") == 0);
            if (strcmp(word, "counter") == 0) {
                size_t n = strlen(name);
                assert_true(n > 6 && strcmp(name + n - 6, "_total") == 0);
            }
            assert_true(ntyped < 96);
            snprintf(types[ntyped], sizeof types[0], "%s", word);
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
        assert_true(our_name(name));
        int found = 0;
        for (int i = 0; i < ntyped; i++)
            found |= of_family(name, typed[i], types[i]);
        if (!found)
            fail_msg("sample of %s without a TYPE line before it", name);
        int bucket = strlen(name) > 7 && strcmp(name + strlen(name) - 7, "_bucket") == 0;
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
        if (bucket != (strstr(l, ",le=\"") != NULL || strstr(l, "{le=\"") != NULL))
            fail_msg("a bucket without le, or le off a bucket: %s", l);
        samples++;
    }
    return samples;
}

static double sample(const char *body, const char *series)
{
    return fx_http_sample(body, series);
}

/* The histogram `name` of world `world`: its buckets in the order of
 * their bounds, each counting what the ones before it count and more
 * (cumulative), the last le="+Inf" and equal to _count, a _sum that is
 * not negative. Returns _count (-1 when the world has no such series). */
static double check_histogram(const char *body, const char *name, const char *world)
{
    char series[160];
    snprintf(series, sizeof series, "%s_bucket{world=\"%s\",le=\"", name, world);
    size_t n = strlen(series);
    double last_le = -1, last = 0;
    int buckets = 0, inf = 0;
    for (const char *l = body; *l;) {
        const char *eol = strchr(l, '\n');
        assert_non_null(eol);
        if (strncmp(l, series, n) == 0) {
            assert_false(inf); /* +Inf is the last */
            const char *le = l + n, *q = strchr(le, '"');
            assert_non_null(q);
            if (strncmp(le, "+Inf\"", 5) == 0)
                inf = 1;
            else {
                char *end;
                double b = strtod(le, &end);
                assert_true(end == q && b > last_le);
                last_le = b;
            }
            double v = strtod(q + 3, NULL); /* past '"} ' */
            assert_true(v >= last);
            last = v;
            buckets++;
        }
        l = eol + 1;
    }
    if (buckets == 0)
        return -1;
    assert_true(inf && buckets >= 10);
    snprintf(series, sizeof series, "%s_count{world=\"%s\"}", name, world);
    double count = sample(body, series);
    if (count != last)
        fail_msg("%s: +Inf bucket %g, _count %g", series, last, count);
    snprintf(series, sizeof series, "%s_sum{world=\"%s\"}", name, world);
    assert_true(sample(body, series) >= 0);
    return count;
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

/* Scrapes until `series` has the value v (the snapshot is published
 * every 100 ms); that answer, whatever it says by the deadline. */
static void scrape_until(http_answer *a, const char *series, double v)
{
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    for (;;) {
        http("GET", "/metrics", a);
        if (sample(a->body, series) == v || fx_now_ms() > deadline)
            return;
        free(a->body);
        usleep(50000);
    }
}

/* Scrapes until the figures of what the test did show (counters that only
 * grow, so the last answer has them all). */
static void scrape_until_seen(http_answer *a, double moves, double bad_dt, double dropped)
{
    scrape_until(a, "sweep_moves_total", moves);
    free(a->body);
    scrape_until(a, "sweep_errors_total{code=\"BadDt\"}", bad_dt);
    free(a->body);
    scrape_until(a, "sweep_udp_dropped_total", dropped);
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
    /* From the session's address, one without its key is dropped too, and
     * counted as that. */
    assert_int_equal(send(ufd, "no key", 6, 0), 6);

    http_answer a;
    scrape_until_seen(&a, MOVES, BAD_DTS, 2);
    assert_int_equal(a.status, 200);
    assert_true(strncmp(a.content_type, "text/plain; version=0.0.4", 25) == 0);
    assert_true(check_format(a.body) > 40);
    assert_true(sample(a.body, "sweep_moves_total") == MOVES);
    assert_true(sample(a.body, "sweep_errors_total{code=\"BadDt\"}") == BAD_DTS);
    assert_true(sample(a.body, "sweep_errors_total{code=\"UnknownEntity\"}") == 1);
    assert_true(sample(a.body, "sweep_errors_total{code=\"RateLimited\"}") == 0);
    assert_true(sample(a.body, "sweep_udp_dropped_total") == 2);
    assert_true(sample(a.body, "sweep_udp_bad_key_total") == 1);
    assert_true(sample(a.body, "sweep_sessions{transport=\"tcp\"}") == 1);
    assert_true(sample(a.body, "sweep_sessions{transport=\"udp\"}") == 1);
    assert_true(sample(a.body, "sweep_sessions_opened_total") == 2);
    assert_true(sample(a.body, "sweep_entities") == 1);
    assert_true(sample(a.body, "sweep_worlds") == 1);
    assert_true(sample(a.body, "sweep_requests_total") >= 2 + MOVES + BAD_DTS + 1);
    assert_true(sample(a.body, "sweep_received_bytes_total{transport=\"tcp\"}") > 0);
    assert_true(sample(a.body, "sweep_received_bytes_total{transport=\"udp\"}") >= SWEEP_UDP_HELLO_MIN * 2 + 11 + 6);
    assert_true(sample(a.body, "sweep_sent_bytes_total{transport=\"tcp\"}") > 0);
    assert_true(sample(a.body, "sweep_sent_bytes_total{transport=\"udp\"}") > 0);
    assert_true(sample(a.body, "sweep_move_seconds_total") > 0);
    assert_true(sample(a.body, "sweep_ticks_total") > 0);
    assert_true(sample(a.body, "sweep_tick_seconds_total") > 0);
    assert_true(check_histogram(a.body, "sweep_tick_duration_seconds", "arena") > 0);
    assert_true(check_histogram(a.body, "sweep_move_latency_seconds", "arena") == MOVES); /* the answered ones */
    assert_true(sample(a.body, "sweep_world_moves_total{world=\"arena\"}") == MOVES);
    assert_true(sample(a.body, "sweep_world_entities{world=\"arena\"}") == 1);
    assert_true(sample(a.body, "sweep_world_sessions{world=\"arena\"}") == 2);
    assert_true(sample(a.body, "sweep_move_latency_seconds_sum{world=\"arena\"}") > 0);
    assert_null(strstr(a.body, "sweep_tick_p50_seconds")); /* replaced by the histogram */
    assert_true(sample(a.body, "sweep_uptime_seconds") > 0);
    assert_true(sample(a.body, "sweep_crushed_total") == 0);
    assert_true(sample(a.body, "sweep_queries_total") == 0);
    assert_true(sample(a.body, "sweep_info{version=\"" SWEEP_SERVER_VERSION "\",protocol=\"1\"}") == 1);
    const char *build = strstr(a.body, "\nsweep_build_info{version=\"" SWEEP_SERVER_VERSION "\",protocol=\"1\",compiler=\"");
    assert_non_null(build);
    assert_non_null(strstr(build, "\"} 1\n"));

    /* Stats says the same (the counters that nothing has moved since). */
    sweep_msg_stats st;
    stats_of(fd, &st);
    assert_true(st.moves_total == MOVES);
    assert_int_equal(st.errors_by_code_count, SWEEP_WIRE_CODE_COUNT);
    assert_true(st.errors_by_code[SWEEP_WIRE_BAD_DT] == BAD_DTS);
    assert_true(st.errors_by_code[SWEEP_WIRE_UNKNOWN_ENTITY] == 1);
    assert_true(st.errors_total == BAD_DTS + 1);
    assert_true(st.udp_dropped == 2);
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

/* Each Ping over UDP answered before the next is sent: a wake-up of
 * sweepd's each, whose one recvmmsg reads less than it could. That left
 * the socket empty, and sweepd makes no second read only to find so (a
 * system call per wake-up, which libuv made): sweep_udp_reads_total
 * counts every read and none empty. */
static void test_udp_reads_stop_at_a_short_batch(void **state)
{
    (void)state;
    enum { PINGS = 40 };
    int ufd = fx_udp_socket(srv.port);
    assert_true(ufd >= 0);
    assert_true(fx_udp_handshake(ufd, rx) != 0);
    usleep(300000); /* the snapshot (every 100 ms) has the handshake's reads */
    http_answer a;
    http("GET", "/metrics", &a);
    double reads0 = sample(a.body, "sweep_udp_reads_total{result=\"datagrams\"}");
    double empty0 = sample(a.body, "sweep_udp_reads_total{result=\"empty\"}");
    free(a.body);
    assert_true(reads0 >= 2 && empty0 >= 0); /* the Hellos' */
    for (uint32_t i = 0; i < PINGS; i++) {
        sweep_message p = fx_msg(SWEEP_MSG_PING, 500 + i), r;
        assert_true(fx_udp_send(ufd, &p) > 0);
        assert_true(fx_udp_recv(ufd, rx, &r, FX_TIMEOUT_MS) > 0);
        assert_int_equal(r.kind, SWEEP_MSG_PONG);
        assert_int_equal(r.sequence, 500 + i);
    }
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    double reads, empty;
    for (;;) {
        http("GET", "/metrics", &a);
        reads = sample(a.body, "sweep_udp_reads_total{result=\"datagrams\"}");
        empty = sample(a.body, "sweep_udp_reads_total{result=\"empty\"}");
        free(a.body);
        if (reads >= reads0 + PINGS || fx_now_ms() > deadline)
            break;
        usleep(50000);
    }
    printf("metrics: %d Pings one at a time: %.0f reads with datagrams, %.0f empty\n", PINGS, reads - reads0,
           empty - empty0);
    assert_true(reads >= reads0 + PINGS);
    assert_true(empty == empty0);
    close(ufd);
}

/* A UDP session watching 200 entities gets each tick's push in some 19
 * datagrams at 1,200 bytes: sweepd hands a tick's pushes to the socket
 * in one sendmmsg (a run of up to 64), not a system call each, and
 * sweep_udp_sends_total counts the calls of both kinds. */
static void test_udp_pushes_leave_in_batches(void **state)
{
    (void)state;
    enum { ENTITIES = 200, WATCH_MS = 1000 };
    int ufd = fx_udp_socket(srv.port);
    assert_true(ufd >= 0);
    int rcvbuf = 1 << 22;
    setsockopt(ufd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    assert_true(fx_udp_handshake_token(ufd, rx, FX_TOKEN, NULL) != 0);
    sweep_message m;
    for (uint32_t at = 0; at < ENTITIES; at += 50) {
        for (uint32_t i = at; i < at + 50; i++) {
            m = fx_spawn_msg(100 + i, sweep_v3(-5.0 + 0.05 * (i % 50), 5.0 + 0.05 * (i / 50), 1.0),
                             sweep_v3(0.4, 0.4, 0.9));
            assert_true(fx_udp_send(ufd, &m) > 0);
        }
        for (uint32_t i = at; i < at + 50; i++) {
            assert_true(fx_udp_recv(ufd, rx, &m, FX_TIMEOUT_MS) > 0);
            assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
        }
    }
    usleep(300000); /* the snapshot (every 100 ms) has the spawns' sends */
    http_answer a;
    http("GET", "/metrics", &a);
    double many0 = sample(a.body, "sweep_udp_sends_total{call=\"sendmmsg\"}");
    double one0 = sample(a.body, "sweep_udp_sends_total{call=\"sendmsg\"}");
    free(a.body);
    assert_true(many0 >= 1 && one0 >= 0);

    m = fx_msg(SWEEP_MSG_WATCH_ENTITIES, 2);
    m.as.watch_entities.every = 1;
    assert_true(fx_udp_send(ufd, &m) > 0);
    uint32_t datagrams = 0, pushes = 0;
    uint64_t tick = 0, until = fx_now_ms() + WATCH_MS;
    while (fx_now_ms() < until) {
        if (fx_udp_recv(ufd, rx, &m, FX_TIMEOUT_MS) <= 0)
            break;
        if (m.kind != SWEEP_MSG_ENTITY_STATES)
            continue;
        datagrams++;
        if (m.as.entity_states.tick != tick)
            pushes++;
        tick = m.as.entity_states.tick;
    }
    m = fx_msg(SWEEP_MSG_WATCH_ENTITIES, 3);
    m.as.watch_entities.every = 0;
    assert_true(fx_udp_send(ufd, &m) > 0);
    while (fx_udp_recv(ufd, rx, &m, 300) > 0)
        if (m.kind == SWEEP_MSG_ENTITY_STATES)
            datagrams++;
    usleep(300000);
    http("GET", "/metrics", &a);
    double many = sample(a.body, "sweep_udp_sends_total{call=\"sendmmsg\"}") - many0;
    double one = sample(a.body, "sweep_udp_sends_total{call=\"sendmsg\"}") - one0;
    free(a.body);
    printf("metrics: %u pushes in %u datagrams left in %.0f sendmmsg and %.0f sendmsg\n", pushes, datagrams, many,
           one);
    assert_true(pushes >= 10);
    assert_true(datagrams >= pushes * (ENTITIES / sweep_udp_max_entity_states_in(SWEEP_UDP_MAX_DATAGRAM)));
    /* One a datagram, as pushes left before, would be some 19 a push. */
    assert_true(one * 10 < datagrams);
    assert_true(many * 4 <= datagrams);
    /* The entities go with the session: the later tests count the arena's. */
    m = fx_msg(SWEEP_MSG_BYE, 4);
    assert_true(fx_udp_send(ufd, &m) > 0);
    close(ufd);
    scrape_until(&a, "sweep_world_entities{world=\"arena\"}", 0);
    assert_true(sample(a.body, "sweep_world_entities{world=\"arena\"}") == 0);
    free(a.body);
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

/* `sweep stats` prints the new counters and the open worlds, as text and
 * as JSON. */
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
            assert_non_null(strstr(out, "\"udp_dropped\":2,"));
            assert_non_null(strstr(out, "\"move_ns_total\":"));
            assert_null(strstr(out, "\"move_ns_total\":0,"));
            assert_non_null(strstr(out, "\"worlds_open\":"));
            assert_non_null(strstr(out, "\"worlds\":[{\"world\":1,\"name\":\""));
            assert_non_null(strstr(out, ",\"triangles\":"));
        } else {
            assert_non_null(strstr(out, " errors_by_code=UnknownEntity:1,BadDt:3 ")); /* in code order */
            assert_non_null(strstr(out, " udp_dropped=2 "));
            assert_non_null(strstr(out, " tcp_bytes_in="));
            assert_null(strstr(out, " tcp_bytes_in=0 "));
            assert_non_null(strstr(out, " ticks_total="));
            assert_null(strstr(out, " move_ns_total=0 "));
            assert_non_null(strstr(out, " worlds_open="));
            assert_non_null(strstr(out, "\nworld=1 name="));
            assert_non_null(strstr(out, " triangles="));
        }
    }
}

/* CloseWorld of world `id` (sequence 3) by the server-role session gs,
 * answered WorldClosed. */
static void close_world(int gs, uint32_t id)
{
    sweep_message m = fx_msg(SWEEP_MSG_CLOSE_WORLD, 3), r;
    m.as.close_world.world = id;
    assert_int_equal(fx_send(gs, &m), 0);
    assert_int_equal(fx_recv(gs, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_CLOSED);
}

/* A world named after a level whose name is not UTF-8 (a map's TEXT is
 * whatever bytes it holds) is labelled with U+FFFD in their place: the
 * whole scrape stays UTF-8, which Prometheus requires of every value. */
static void test_labels_stay_utf8(void **state)
{
    (void)state;
    int gs = fx_tcp_connect(srv.port);
    assert_true(gs >= 0);
    assert_true(fx_hello_token(gs, rx, FX_TOKEN) != 0); /* the server role */
    sweep_message r, m = fx_msg(SWEEP_MSG_OPEN_WORLD, 2);
    m.as.open_world.map = sweep_str_of("odd");
    assert_int_equal(fx_send(gs, &m), 0);
    assert_int_equal(fx_recv(gs, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_OPENED);
    uint32_t opened = r.as.world_opened.world;
    http_answer a;
    const char *series = "sweep_world_entities{world=\"odd\xEF\xBF\xBDname\"}";
    scrape_until(&a, series, 0);
    assert_true(sample(a.body, series) == 0);
    for (const unsigned char *p = (const unsigned char *)a.body; *p; p++)
        assert_true(*p != 0xFF && *p != 0xFE);
    free(a.body);
    close_world(gs, opened);
    close(gs);
}

/* Each open world has its own series, labelled with its name: a world
 * opened at run time appears; moves in one world show in its move
 * latency histogram (one observation a Move or MoveBatch answered) and
 * its moves counter (one a move), not in the other's; every histogram is
 * cumulative with +Inf equal to _count. */
static void test_per_world_series_and_histograms(void **state)
{
    (void)state;
    int gs = fx_tcp_connect(srv.port);
    assert_true(gs >= 0);
    sweep_message m = fx_hello_msg("metrics-gs"), r;
    m.as.hello.auth_token = sweep_str_of(FX_TOKEN);
    assert_int_equal(fx_send(gs, &m), 0);
    assert_int_equal(fx_recv(gs, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_WELCOME);
    /* A name that is not UTF-8 is refused: a metrics label must be. */
    m = fx_msg(SWEEP_MSG_OPEN_WORLD, 2);
    m.as.open_world.map = sweep_str_of("field");
    m.as.open_world.name = sweep_str_of("bad\xff\xfename");
    assert_int_equal(fx_send(gs, &m), 0);
    assert_int_equal(fx_recv(gs, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_NOT_ALLOWED);
    assert_non_null(strstr(r.as.error.message.ptr, "bytes of UTF-8"));
    m = fx_msg(SWEEP_MSG_OPEN_WORLD, 2);
    m.as.open_world.map = sweep_str_of("field");
    m.as.open_world.name = sweep_str_of("second \"match\"");
    assert_int_equal(fx_send(gs, &m), 0);
    assert_int_equal(fx_recv(gs, rx, &r), 1);
    if (r.kind != SWEEP_MSG_WORLD_OPENED)
        fail_msg("OpenWorld answered by %s: %.*s", sweep_msg_kind_name(r.kind),
                 r.kind == SWEEP_MSG_ERROR ? (int)r.as.error.message.len : 0,
                 r.kind == SWEEP_MSG_ERROR ? r.as.error.message.ptr : "");
    uint32_t opened = r.as.world_opened.world;

    /* The name is written with the format's escapes. */
    const char *second = "second \\\"match\\\"";
    char series[160];
    snprintf(series, sizeof series, "sweep_world_entities{world=\"%s\"}", second);
    http_answer a;
    scrape_until(&a, "sweep_worlds", 2);
    assert_true(sample(a.body, "sweep_worlds") == 2);
    assert_true(sample(a.body, series) == 0);
    assert_true(check_format(a.body) > 80);
    double before = check_histogram(a.body, "sweep_move_latency_seconds", "arena");
    double moves_before = sample(a.body, "sweep_world_moves_total{world=\"arena\"}");
    assert_true(before >= 0 && moves_before >= 0);
    assert_true(check_histogram(a.body, "sweep_move_latency_seconds", second) == 0);
    assert_true(check_histogram(a.body, "sweep_tick_duration_seconds", second) >= 0);
    free(a.body);

    /* In the arena: single Moves and one MoveBatch of three. */
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    uint32_t e = fx_spawn(fd, rx, 3, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(e != 0);
    const unsigned singles = 7;
    for (unsigned i = 0; i < singles; i++) {
        m = fx_move_msg(e, 100 + i, sweep_v3(1, 0, 0), 1.0 / 120.0);
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &r), 1);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
    }
    sweep_msg_move batch[3];
    for (unsigned i = 0; i < 3; i++)
        batch[i] = fx_move_msg(e, 300 + i, sweep_v3(1, 0, 0), 1.0 / 240.0).as.move;
    m = fx_msg(SWEEP_MSG_MOVE_BATCH, 200);
    m.as.move_batch.moves = batch;
    m.as.move_batch.count = 3;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT_BATCH);

    snprintf(series, sizeof series, "sweep_move_latency_seconds_count{world=\"arena\"}");
    scrape_until(&a, series, before + singles + 1);
    assert_true(check_histogram(a.body, "sweep_move_latency_seconds", "arena") == before + singles + 1);
    double moves_after = sample(a.body, "sweep_world_moves_total{world=\"arena\"}");
    if (moves_after != moves_before + singles + 3)
        fail_msg("sweep_world_moves_total: %g before, %g after %u moves and a batch of 3", moves_before, moves_after,
                 singles);
    assert_true(check_histogram(a.body, "sweep_move_latency_seconds", second) == 0);
    snprintf(series, sizeof series, "sweep_world_moves_total{world=\"%s\"}", second);
    assert_true(sample(a.body, series) == 0);
    assert_true(sample(a.body, "sweep_world_entities{world=\"arena\"}") == 1);
    /* Ticks run in both, each counted in its own histogram. */
    assert_true(check_histogram(a.body, "sweep_tick_duration_seconds", "arena") > 0);
    assert_true(check_histogram(a.body, "sweep_tick_duration_seconds", second) > 0);
    free(a.body);

    /* Closed, the world's series go. */
    close_world(gs, opened);
    scrape_until(&a, "sweep_worlds", 1);
    snprintf(series, sizeof series, "sweep_world_entities{world=\"%s\"}", second);
    assert_true(sample(a.body, series) == -1);
    assert_true(check_histogram(a.body, "sweep_tick_duration_seconds", second) == -1);
    free(a.body);
    close(fd);
    close(gs);
}

/* The process_* series say what /proc says of the server's process. */
static void test_process_series(void **state)
{
    (void)state;
    http_answer a;
    http("GET", "/metrics", &a);
    assert_int_equal(a.status, 200);
    assert_true(sample(a.body, "process_cpu_seconds_total") > 0);
    double rss = sample(a.body, "process_resident_memory_bytes");
    double vsz = sample(a.body, "process_virtual_memory_bytes");
    assert_true(rss > 1e6 && vsz >= rss);
    /* The limit is the server's, as /proc/PID/limits says it. */
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/limits", (int)srv.pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    double limit = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Max open files", 14) == 0)
            limit = strtod(line + 14, NULL);
    fclose(f);
    assert_true(limit > 0);
    assert_true(sample(a.body, "process_max_fds") == limit);
    /* Its listeners and log at least; fewer than the limit. */
    double fds = sample(a.body, "process_open_fds");
    assert_true(fds >= 5 && fds < limit);
    double start = sample(a.body, "process_start_time_seconds");
    time_t now = time(NULL);
    assert_true(start <= (double)now + 1 && start >= (double)now - 600);
    assert_true(start <= (double)now - sample(a.body, "sweep_uptime_seconds") + 2);
    free(a.body);
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
    char want[192];
    snprintf(want, sizeof want, "level=error event=start_failed error=\"--metrics: cannot listen on %s: Address already in use\"", addr);
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
    /* /healthz's bound: 2 s, in seconds, not below a few housekeeping ticks. */
    assert_true(o.health_stall == 2.0);
    assert_int_equal(sweep_server_options_set(&o, "health-stall", "0.5", err, sizeof err), SWEEP_OPTIONS_OK);
    assert_true(o.health_stall == 0.5);
    assert_int_equal(sweep_server_options_set(&o, "health-stall", "0.1", err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--health-stall: 0.1 is out of range [0.2, 3600]"));
    assert_int_equal(sweep_server_options_set(&o, "health-stall", "2s", err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--health-stall: '2s' is not a number"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_count_what_clients_did),
        cmocka_unit_test(test_udp_reads_stop_at_a_short_batch),
        cmocka_unit_test(test_udp_pushes_leave_in_batches),
        cmocka_unit_test(test_other_paths_are_not_found),
        cmocka_unit_test(test_sweep_stats_prints_them),
        cmocka_unit_test(test_per_world_series_and_histograms),
        cmocka_unit_test(test_labels_stay_utf8),
        cmocka_unit_test(test_process_series),
        cmocka_unit_test(test_log_lines_start_with_utc_time),
        cmocka_unit_test(test_busy_metrics_port_stops_sweepd),
        cmocka_unit_test(test_metrics_option),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
