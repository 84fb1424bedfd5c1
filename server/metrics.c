/*
 * metrics.c - the Prometheus endpoint (see metrics.h for the threading).
 *
 * The listening socket is created and bound here, not by libmicrohttpd, so
 * that a busy or wrong address stops sweepd with the same kind of message
 * as a busy --listen, and so that port 0 can be read back with
 * getsockname. libmicrohttpd gets the socket and does all of HTTP.
 *
 * The listener serves an orchestrator's probes and a scraper, not the
 * public, so it is kept from being starved by one host: a host holds at
 * most SWEEP__METRICS_PER_ADDRESS connections (one that trickles a
 * request a byte at a time, or many, blocks only its own), all hosts
 * together SWEEP__METRICS_MAX_CONNECTIONS, and a connection silent for
 * SWEEP__METRICS_TIMEOUT_S seconds (a request left half sent) is closed.
 */
#include "server/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/process_figures.h"
#include "server/server_impl.h"
#include "server/utf8.h"

#define SWEEP__METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define SWEEP__TEXT_TYPE "text/plain; charset=utf-8"
/* A scraper and a kubelet's probes need a few connections each; a host
 * that holds more, or keeps one silent longer, is not one of them. */
#define SWEEP__METRICS_MAX_CONNECTIONS 64u
#define SWEEP__METRICS_PER_ADDRESS 8u
#define SWEEP__METRICS_TIMEOUT_S 3u

struct sweep__metrics {
    struct MHD_Daemon *daemon;
    sweep__group *group;           /* its published figures, one per thread, under its stats_lock */
    uint64_t start_ns;
    int port;
    char host_text[80];
    int state;                     /* SWEEP__METRICS_*: atomic */
    uint64_t stall_ns;             /* --health-stall */
    unsigned threads;
};

/* --- the exposition text ---------------------------------------------------- */

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Seconds from nanoseconds without rounding: whole seconds, nine decimals. */
static void put_seconds(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000u, ns % 1000000000u);
}

static void metric(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
    head(f, name, type, help);
    fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void metric_seconds(FILE *f, const char *name, const char *type, const char *help, uint64_t ns)
{
    head(f, name, type, help);
    fprintf(f, "%s ", name);
    put_seconds(f, ns);
}

static void by_transport(FILE *f, const char *name, const char *type, const char *help, uint64_t tcp, uint64_t udp)
{
    head(f, name, type, help);
    fprintf(f, "%s{transport=\"tcp\"} %" PRIu64 "\n%s{transport=\"udp\"} %" PRIu64 "\n", name, tcp, name, udp);
}

/* Seconds of a bucket bound: the shortest decimal, as client libraries
 * write them ("0.000005", "0.25"). */
static void put_le(FILE *f, uint64_t ns)
{
    char t[32];
    snprintf(t, sizeof t, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
    size_t n = strlen(t);
    while (t[n - 1] == '0')
        n--;
    if (t[n - 1] == '.')
        n--;
    fwrite(t, 1, n, f);
}

/* A label value in the exposition format's escapes (a world's name is a
 * client's text, or a map's): a byte that starts no UTF-8 sequence is
 * written as U+FFFD, since one value that is not UTF-8 fails the whole
 * scrape. */
static void put_label_value(FILE *f, const char *v)
{
    size_t n = strlen(v);
    for (size_t at = 0, len; at < n; at += len) {
        const char c = v[at];
        len = sweep__utf8_next((const uint8_t *)v + at, n - at);
        if (len == 0) {
            fputs("\xEF\xBF\xBD", f);
            len = 1;
        } else if (c == '\\' || c == '"') {
            fputc('\\', f);
            fputc(c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else {
            fwrite(v + at, 1, len, f);
        }
    }
}

/* `name{world="..."` and, when more follows, a comma: the start of a
 * per-world sample. */
static void world_series(FILE *f, const char *name, const sweep__world_entry *w, int more)
{
    fprintf(f, "%s{world=\"", name);
    put_label_value(f, w->name);
    fputs(more ? "\"," : "\"}", f);
}

/* One world's histogram: cumulative buckets up to +Inf (which is the
 * count), then the sum and the count. */
static void put_histogram(FILE *f, const char *name, const sweep__world_entry *w, const sweep__histogram *h)
{
    char series[96];
    snprintf(series, sizeof series, "%s_bucket", name);
    uint64_t below = 0;
    for (unsigned i = 0; i <= SWEEP__HISTOGRAM_BOUNDS; i++) {
        below += h->bucket[i];
        world_series(f, series, w, 1);
        fputs("le=\"", f);
        if (i < SWEEP__HISTOGRAM_BOUNDS)
            put_le(f, sweep__histogram_bound_ns[i]);
        else
            fputs("+Inf", f);
        fprintf(f, "\"} %" PRIu64 "\n", below);
    }
    snprintf(series, sizeof series, "%s_sum", name);
    world_series(f, series, w, 0);
    fputc(' ', f);
    put_seconds(f, h->sum_ns);
    snprintf(series, sizeof series, "%s_count", name);
    world_series(f, series, w, 0);
    fprintf(f, " %" PRIu64 "\n", h->count);
}

/* The series of each open world, one family at a time (the format wants a
 * family's samples together). */
static void per_world(FILE *f, const sweep__world_entry *worlds, uint32_t n)
{
    head(f, "sweep_world_entities", "gauge", "Entities in the world.");
    for (uint32_t i = 0; i < n; i++) {
        world_series(f, "sweep_world_entities", &worlds[i], 0);
        fprintf(f, " %" PRIu32 "\n", worlds[i].entities);
    }
    head(f, "sweep_world_sessions", "gauge", "Sessions of the world.");
    for (uint32_t i = 0; i < n; i++) {
        world_series(f, "sweep_world_sessions", &worlds[i], 0);
        fprintf(f, " %" PRIu32 "\n", worlds[i].sessions);
    }
    head(f, "sweep_world_moves_total", "counter", "Moves applied in the world (a batch counts each of its moves).");
    for (uint32_t i = 0; i < n; i++) {
        world_series(f, "sweep_world_moves_total", &worlds[i], 0);
        fprintf(f, " %" PRIu64 "\n", worlds[i].moves);
    }
    head(f, "sweep_tick_duration_seconds", "histogram",
         "Duration of one tick of the world (movers, carried and pushed entities); _count is its ticks run.");
    for (uint32_t i = 0; i < n; i++)
        put_histogram(f, "sweep_tick_duration_seconds", &worlds[i], &worlds[i].tick_time);
    head(f, "sweep_move_latency_seconds", "histogram",
         "Time from a Move or MoveBatch request's arrival to its answer queued for sending.");
    for (uint32_t i = 0; i < n; i++)
        put_histogram(f, "sweep_move_latency_seconds", &worlds[i], &worlds[i].move_latency);
}

/* The process_* series every Prometheus client library exports. */
static void process(FILE *f, const sweep__process_figures *p)
{
    head(f, "process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.");
    fprintf(f, "process_cpu_seconds_total %.6f\n", p->cpu_seconds);
    if (p->have_memory) {
        metric(f, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", p->resident_bytes);
        metric(f, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", p->virtual_bytes);
    }
    if (p->have_fds)
        metric(f, "process_open_fds", "gauge", "Number of open file descriptors.", p->open_fds);
    if (p->have_max_fds)
        metric(f, "process_max_fds", "gauge", "Maximum number of open file descriptors.", p->max_fds);
    if (p->have_start) {
        head(f, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.");
        fprintf(f, "process_start_time_seconds %.2f\n", p->start_time_seconds);
    }
}

char *sweep__metrics_render(const sweep__metrics_snapshot *snap, const sweep__world_entry *worlds, uint32_t nworlds,
                            const sweep__process_figures *proc, uint64_t uptime_ns, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    const sweep__stats *st = &snap->stats;
    head(f, "sweep_build_info", "gauge",
         "The server's version, wire protocol version and compiler (the value is always 1).");
    fprintf(f, "sweep_build_info{version=\"%s\",protocol=\"%u\",compiler=\"", SWEEP_SERVER_VERSION,
            (unsigned)SWEEP_PROTOCOL_VERSION);
#ifdef __VERSION__
    put_label_value(f, __VERSION__);
#endif
    fputs("\"} 1\n", f);
    head(f, "sweep_info", "gauge", "Deprecated, removed after 0.1: sweep_build_info says the same.");
    fprintf(f, "sweep_info{version=\"%s\",protocol=\"%u\"} 1\n", SWEEP_SERVER_VERSION, (unsigned)SWEEP_PROTOCOL_VERSION);
    metric_seconds(f, "sweep_uptime_seconds", "gauge", "Seconds since the server started.", uptime_ns);
    metric(f, "sweep_worlds", "gauge", "Worlds open, the --map ones and those opened at run time.", snap->worlds);
    metric(f, "sweep_worlds_opened_total", "counter", "Worlds opened at run time (OpenWorld).", st->worlds_opened);
    metric(f, "sweep_worlds_closed_total", "counter", "Worlds closed (CloseWorld).", st->worlds_closed);
    metric(f, "sweep_movers", "gauge", "Movers (doors, lifts, platforms) in all worlds.", snap->movers);
    by_transport(f, "sweep_sessions", "gauge", "Sessions open, by transport.", snap->sessions[0], snap->sessions[1]);
    metric(f, "sweep_sessions_opened_total", "counter", "Sessions opened (Welcomes sent).", st->sessions_total);
    metric(f, "sweep_tcp_connections", "gauge", "TCP connections open, with or without a session.",
           snap->connections);
    metric(f, "sweep_entities", "gauge", "Entities in all worlds.", snap->entities);
    metric(f, "sweep_requests_total", "counter", "Requests decoded and dispatched.", st->requests_total);
    metric(f, "sweep_moves_total", "counter", "Moves applied.", st->moves_total);
    metric(f, "sweep_moves_ignored_total", "counter", "Moves older than any kept result, dropped unanswered.",
           st->moves_ignored);
    head(f, "sweep_errors_total", "counter", "Error messages sent, by ErrorCode.");
    for (unsigned c = 1; c < SWEEP_WIRE_CODE_COUNT; c++)
        fprintf(f, "sweep_errors_total{code=\"%s\"} %" PRIu64 "\n", sweep_wire_code_name((sweep_wire_code)c),
                st->errors_by_code[c]);
    head(f, "sweep_rule_reports_total", "counter", "Times each server rule acted, all sessions.");
    for (unsigned r = 0; r < SWEEP_WIRE_RULE_COUNT; r++)
        fprintf(f, "sweep_rule_reports_total{rule=\"%s\"} %" PRIu64 "\n", sweep_wire_rule_name(r), st->rules_total[r]);
    metric(f, "sweep_crushed_total", "counter", "Entities removed because a mover crushed them.", st->crushed_total);
    metric(f, "sweep_queries_total", "counter", "Query items answered (refused ones included), open worlds.",
           st->queries_total);
    metric(f, "sweep_ticks_total", "counter", "World ticks run, all worlds.", st->ticks_total);
    metric_seconds(f, "sweep_tick_seconds_total", "counter",
                   "Seconds spent running world ticks (movers, carried and pushed entities).", st->tick_ns_total);
    metric_seconds(f, "sweep_move_seconds_total", "counter", "Seconds spent applying moves (answers not included).",
                   st->move_ns_total);
    by_transport(f, "sweep_received_bytes_total", "counter", "Bytes received, by transport.", st->bytes_in[0],
                 st->bytes_in[1]);
    by_transport(f, "sweep_sent_bytes_total", "counter", "Bytes handed to the sockets, by transport.", st->bytes_out[0],
                 st->bytes_out[1]);
    metric(f, "sweep_udp_dropped_total", "counter",
           "UDP datagrams dropped: received unverified and not a Hello, too large, or not sent (over the "
           "address's byte budget, socket buffer full).",
           st->udp_dropped);
    metric(f, "sweep_udp_bad_key_total", "counter",
           "UDP datagrams dropped because they came from a session's address without its key (forged, or "
           "from a client that does not send Message.key).",
           st->udp_bad_key);
    head(f, "sweep_udp_reads_total", "counter",
         "System calls that read a UDP socket, by what they found: datagrams (one or a batch) or none.");
    fprintf(f, "sweep_udp_reads_total{result=\"datagrams\"} %" PRIu64 "\nsweep_udp_reads_total{result=\"empty\"} %" PRIu64
               "\n",
            st->udp_reads[0], st->udp_reads[1]);
    head(f, "sweep_udp_sends_total", "counter",
         "System calls that wrote a UDP socket, by kind: sendmmsg (a run of queued datagrams) or sendmsg (one).");
    fprintf(f, "sweep_udp_sends_total{call=\"sendmmsg\"} %" PRIu64 "\nsweep_udp_sends_total{call=\"sendmsg\"} %" PRIu64
               "\n",
            st->udp_sends[0], st->udp_sends[1]);
    by_transport(f, "sweep_thread_handoffs_total", "counter",
                 "Connections and datagrams passed to the thread of their world (--threads).", st->handoffs[0],
                 st->handoffs[1]);
    per_world(f, worlds, nworlds);
    process(f, proc);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* --- HTTP --------------------------------------------------------------------- */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
                              const char *type, const char *allow)
{
    /* Copied: the body's owner frees it whatever libmicrohttpd does. */
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

/* The first loop that has not turned within --health-stall, and for how
 * long (ns) into *age; -1 when every one has. Only while serving: before,
 * the loops have not started (maps loading), and while draining each
 * closes its timers as its connections end. */
static int stalled_loop(const sweep__metrics *m, uint64_t *age)
{
    if (__atomic_load_n(&m->state, __ATOMIC_ACQUIRE) != SWEEP__METRICS_READY)
        return -1;
    uint64_t now = uv_hrtime();
    for (unsigned t = 0; t < m->threads; t++) {
        uint64_t beat = __atomic_load_n(&m->group->beats[t], __ATOMIC_RELAXED);
        if (now > beat && now - beat > m->stall_ns) {
            *age = now - beat;
            return (int)t;
        }
    }
    return -1;
}

/* GET /healthz (liveness) and /readyz (readiness): a few atomics, no
 * lock, no session, no log line, so that probes cost the server nothing
 * and work while its loops are stuck. */
static enum MHD_Result probe(sweep__metrics *m, struct MHD_Connection *c, int ready)
{
    char text[200];
    uint64_t age = 0;
    int stuck = stalled_loop(m, &age);
    int state = __atomic_load_n(&m->state, __ATOMIC_ACQUIRE);
    unsigned status = MHD_HTTP_SERVICE_UNAVAILABLE;
    if (stuck >= 0)
        snprintf(text, sizeof text, "stalled: the event loop of thread %d has not turned for %.3f s (--health-stall %g)\n",
                 stuck, (double)age / 1e9, (double)m->stall_ns / 1e9);
    else if (ready && state == SWEEP__METRICS_STARTING)
        snprintf(text, sizeof text, "starting: maps loading or listeners not yet up\n");
    else if (ready && state == SWEEP__METRICS_DRAINING)
        snprintf(text, sizeof text, "draining: sweepd is shutting down\n");
    else {
        snprintf(text, sizeof text, "ok\n");
        status = MHD_HTTP_OK;
    }
    return answer(c, status, text, strlen(text), SWEEP__TEXT_TYPE, NULL);
}

static enum MHD_Result scrape(sweep__metrics *m, struct MHD_Connection *c)
{
    /* The copies are ~10 KiB each: on the heap, not this thread's stack. */
    unsigned n = m->group->count;
    sweep__metrics_snapshot *snap = malloc((n + 1) * sizeof *snap);
    if (!snap)
        return MHD_NO;
    pthread_mutex_lock(&m->group->stats_lock);
    memcpy(snap + 1, m->group->published, n * sizeof *snap);
    pthread_mutex_unlock(&m->group->stats_lock);
    sweep__metrics_snapshot_sum(snap, snap + 1, n);
    /* The table may grow between its count and its copy: again then. */
    sweep__world_entry *worlds = NULL;
    uint32_t cap = 0, nworlds;
    while ((nworlds = sweep__world_table_copy(m->group, worlds, cap)) > cap) {
        free(worlds);
        cap = nworlds + 4;
        if (!(worlds = malloc(cap * sizeof *worlds))) {
            free(snap);
            return MHD_NO;
        }
    }
    sweep__process_figures proc;
    sweep__process_figures_read(&proc);
    size_t len = 0;
    char *body = sweep__metrics_render(snap, worlds, nworlds, &proc, uv_hrtime() - m->start_ns, &len);
    free(snap);
    free(worlds);
    if (!body)
        return MHD_NO;
    enum MHD_Result ok = answer(c, MHD_HTTP_OK, body, len, SWEEP__METRICS_TYPE, NULL);
    free(body);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    sweep__metrics *m = cls;
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)req_cls;
    int path = strcmp(url, "/metrics") == 0 ? 1 : strcmp(url, "/healthz") == 0 ? 2 : strcmp(url, "/readyz") == 0 ? 3 : 0;
    if (!path) {
        static const char text[] = "not found: sweepd serves /metrics, /healthz and /readyz\n";
        return answer(c, MHD_HTTP_NOT_FOUND, text, sizeof text - 1, SWEEP__TEXT_TYPE, NULL);
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char text[] = "only GET and HEAD\n";
        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, text, sizeof text - 1, SWEEP__TEXT_TYPE, "GET, HEAD");
    }
    return path == 1 ? scrape(m, c) : probe(m, c, path == 3);
}

/* libmicrohttpd's complaints (a client that breaks HTTP, a failed accept)
 * become log lines like the server's own. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char text[256], q[300];
    int n = vsnprintf(text, sizeof text, fmt, ap);
    if (n < 0)
        return;
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--;
    sweep__log(SWEEP_LOG_DEBUG, "metrics_http", "message=%s", sweep__log_quote(text, len, q, sizeof q));
}

/* --- start, publish, stop ----------------------------------------------------- */

sweep__metrics *sweep__metrics_start(const sweep_server *s, uint64_t start_ns, char *err, size_t errlen)
{
    const char *host = s->opt.metrics_host;
    int port = s->opt.metrics_port;
    struct sockaddr_storage sa;
    if (sweep__resolve(host, port, &sa) != 0) {
        snprintf(err, errlen, "--metrics: '%s' is not a numeric IPv4 or IPv6 address", host);
        return NULL;
    }
    int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "--metrics: socket: %s", strerror(errno));
        return NULL;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (sa.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    socklen_t salen = sa.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (bind(fd, (const struct sockaddr *)&sa, salen) != 0 || listen(fd, 64) != 0) {
        snprintf(err, errlen, "--metrics: cannot listen on %s:%d: %s", host, port, strerror(errno));
        close(fd);
        return NULL;
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &gl);
    sweep__metrics *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return NULL;
    }
    m->start_ns = start_ns;
    m->group = s->group;
    m->threads = s->group->count;
    m->stall_ns = (uint64_t)(s->opt.health_stall * 1e9);
    m->port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                              : ((struct sockaddr_in *)&got)->sin_port);
    snprintf(m->host_text, sizeof m->host_text, sa.ss_family == AF_INET6 ? "[%s]" : "%s",
             strcmp(host, "localhost") == 0 ? "127.0.0.1" : host);
    /* Signals stay with the loop thread (libuv's handlers): the HTTP
     * thread starts with all of them blocked. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    m->daemon = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, m,
                                 MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET,
                                 (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT, SWEEP__METRICS_MAX_CONNECTIONS,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, SWEEP__METRICS_PER_ADDRESS,
                                 MHD_OPTION_CONNECTION_TIMEOUT, SWEEP__METRICS_TIMEOUT_S, MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!m->daemon) {
        /* fd is not closed: whether a failed start closed it already is
         * not documented, and closing a number twice could close another
         * file. sweepd exits on this error anyway. */
        snprintf(err, errlen, "--metrics: libmicrohttpd could not serve on %s:%d", m->host_text, m->port);
        free(m);
        return NULL;
    }
    return m;
}

void sweep__metrics_set_state(sweep__metrics *m, int state)
{
    if (m)
        __atomic_store_n(&m->state, state, __ATOMIC_RELEASE);
}

int sweep__metrics_port(const sweep__metrics *m)
{
    return m->port;
}

const char *sweep__metrics_host(const sweep__metrics *m)
{
    return m->host_text;
}

void sweep__metrics_snapshot_sum(sweep__metrics_snapshot *out, const sweep__metrics_snapshot *in, unsigned n)
{
    memset(out, 0, sizeof *out);
    sweep__stats *st = &out->stats;
    uint32_t samples = 0;
    for (unsigned k = 0; k < n; k++) {
        const sweep__stats *a = &in[k].stats;
        st->moves_total += a->moves_total;
        st->errors_total += a->errors_total;
        st->requests_total += a->requests_total;
        st->sessions_total += a->sessions_total;
        st->udp_dropped += a->udp_dropped;
        st->udp_bad_key += a->udp_bad_key;
        st->udp_reads[0] += a->udp_reads[0];
        st->udp_reads[1] += a->udp_reads[1];
        st->udp_sends[0] += a->udp_sends[0];
        st->udp_sends[1] += a->udp_sends[1];
        st->crushed_total += a->crushed_total;
        st->queries_total += a->queries_total;
        st->moves_ignored += a->moves_ignored;
        for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
            st->rules_total[i] += a->rules_total[i];
        for (unsigned i = 0; i < SWEEP_WIRE_CODE_COUNT; i++)
            st->errors_by_code[i] += a->errors_by_code[i];
        for (unsigned i = 0; i < 2; i++) {
            st->bytes_in[i] += a->bytes_in[i];
            st->bytes_out[i] += a->bytes_out[i];
            out->sessions[i] += in[k].sessions[i];
        }
        st->ticks_total += a->ticks_total;
        st->tick_ns_total += a->tick_ns_total;
        st->move_ns_total += a->move_ns_total;
        st->handoffs[0] += a->handoffs[0];
        st->handoffs[1] += a->handoffs[1];
        st->worlds_opened += a->worlds_opened;
        st->worlds_closed += a->worlds_closed;
        out->connections += in[k].connections;
        out->entities += in[k].entities;
        out->worlds += in[k].worlds;
        out->movers += in[k].movers;
        samples += a->tick_count;
    }
    /* The tick ring: each thread's latest samples, in proportion to what
     * it holds when they do not all fit; percentiles need no order. */
    for (unsigned k = 0; k < n; k++) {
        const sweep__stats *a = &in[k].stats;
        uint32_t take = samples <= SWEEP__TICK_SAMPLES
                            ? a->tick_count
                            : (uint32_t)((uint64_t)a->tick_count * SWEEP__TICK_SAMPLES / samples);
        for (uint32_t j = 1; j <= take && st->tick_count < SWEEP__TICK_SAMPLES; j++) {
            uint32_t at = (a->tick_next + SWEEP__TICK_SAMPLES - j) % SWEEP__TICK_SAMPLES;
            st->tick_ns[st->tick_count++] = a->tick_ns[at];
        }
    }
    st->tick_next = st->tick_count % SWEEP__TICK_SAMPLES;
}

void sweep__metrics_stop(sweep__metrics *m)
{
    if (!m)
        return;
    MHD_stop_daemon(m->daemon); /* joins the thread and closes the socket */
    free(m);
}
