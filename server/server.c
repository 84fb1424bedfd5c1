/*
 * server.c - the server object: creation (maps, sockets, buffers), the
 * loop, signals and the graceful shutdown.
 *
 * Shutdown (SIGTERM, SIGINT or sweep_server_stop): the listener closes so
 * no connection is accepted; the world ticks stop; every UDP session gets
 * a Bye and ends; every TCP connection gets a Bye after the answers it is
 * already owed (requests already read were answered synchronously, so
 * "in flight" means queued) and is drained, each within --drain-timeout.
 * When the last handle has closed the loop returns and run() returns 0. A
 * second signal during shutdown closes whatever is left at once.
 *
 * With --threads N there are N such servers (threads.c), one per thread;
 * the one sweep_server_create returns runs on the caller's thread, takes
 * the signals and passes every shutdown on to the others, and run()
 * returns once every thread's loop has ended.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"
#include "server/server_impl.h"

#define SWEEP__HOUSEKEEPING_MS 100

static void close_handle(uv_handle_t *h, int *open)
{
    if (*open) {
        *open = 0;
        if (!uv_is_closing(h))
            uv_close(h, NULL);
    }
}

static void shutdown_server(sweep_server *s, const char *reason)
{
    /* Server 0 takes the signals and stop(): the other threads hear of it
     * through their own stop handles (a second time forces them too). */
    if (s->thread == 0)
        for (unsigned i = 1; i < s->group->count; i++)
            uv_async_send(&s->group->servers[i]->stop_async);
    if (s->stopping) {
        sweep__log(SWEEP_LOG_WARN, "shutdown_forced", "reason=%s connections=%u", reason, s->conn_count);
        for (sweep__conn *c = s->conns; c; c = c->next)
            sweep__conn_close(c);
        return;
    }
    s->stopping = 1;
    sweep__metrics_set_state(s->metrics, SWEEP__METRICS_DRAINING);
    sweep__log(SWEEP_LOG_INFO, "shutdown", "reason=%s sessions=%u connections=%u", reason, s->session_count,
               s->conn_count);
    sweep__tcp_stop(s);
    /* What was read but held for a later turn is answered before the Byes. */
    sweep__tcp_serve_held(s);
    sweep__udp_serve_held(s);
    sweep__worlds_stop(s);
    sweep__session *ss = s->sessions;
    while (ss) {
        sweep__session *next = ss->next;
        if (ss->transport == SWEEP__UDP) {
            sweep__peer p = {.addr = (const struct sockaddr *)&ss->addr, .session = ss, .budget = SIZE_MAX};
            sweep__send_bye(s, &p, "server shutting down");
            ss->close_reason = "shutdown";
            sweep__session_destroy(ss);
        }
        ss = next;
    }
    sweep__udp_close(s);
    for (sweep__conn *c = s->conns; c; c = c->next) {
        if (c->state == SWEEP__CONN_OPEN) {
            sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
            sweep__send_bye(s, &p, "server shutting down");
            sweep__conn_drain(c);
        }
    }
    /* The signal handles stay (a second signal forces the end) but no
     * longer keep the loop alive; sweep_server_destroy closes them. */
    if (s->signals_open) {
        uv_unref((uv_handle_t *)&s->sigterm);
        uv_unref((uv_handle_t *)&s->sigint);
        uv_unref((uv_handle_t *)&s->sighup);
    }
    /* So do the stop and inbox handles: another thread may still signal
     * them (a forced stop, a handover on its way; destroy drains it). */
    uv_unref((uv_handle_t *)&s->stop_async);
    if (s->inbox_open)
        uv_unref((uv_handle_t *)&s->inbox_async);
    if (s->conn_count == 0)
        close_handle((uv_handle_t *)&s->housekeeping, &s->housekeeping_open);
}

static void on_signal(uv_signal_t *h, int signum)
{
    shutdown_server(h->data, signum == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* SIGHUP: every world's session log starts a new segment at its next
 * tick (the old one ends "rotated", as a size or age rotation). The
 * server's own lines go to stderr, which sweepd never reopens: whoever
 * redirected it owns the file. */
static void on_hangup(uv_signal_t *h, int signum)
{
    (void)signum;
    sweep_server *s = h->data;
    __atomic_add_fetch(&s->group->hangups, 1, __ATOMIC_RELAXED);
    sweep__log(SWEEP_LOG_INFO, "sighup", "recording=%s stderr=kept", s->opt.record_dir[0] ? "new_segment" : "off");
}

static void on_stop_async(uv_async_t *h)
{
    shutdown_server(h->data, "stop");
}

/* Periodic chores: idle UDP and TCP sessions, connections that drain too
 * long or never say Hello, and the end of the shutdown once every
 * connection is gone. */
static void on_housekeeping(uv_timer_t *t)
{
    sweep_server *s = t->data;
    uint64_t now = uv_hrtime();
    if (!s->stopping)
        sweep__sessions_expire(s, now);
    sweep__conns_check_drain(s, now);
    sweep__server_publish(s);
    __atomic_store_n(&s->group->beats[s->thread], now, __ATOMIC_RELAXED);
    if (s->stopping && s->conn_count == 0)
        close_handle((uv_handle_t *)&s->housekeeping, &s->housekeeping_open);
}

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 16;
    while (p < n && p < (1u << 20))
        p <<= 1;
    return p;
}

static void destroy_one(sweep_server *s);

/* The server of thread `thread` of g, with its share of the maps. An
 */
static sweep_server *create_one(const sweep_server_options *opt, sweep__group *g, unsigned thread, char *err,
                                size_t errlen)
{
    sweep_server *s = sweep__calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->opt = *opt;
    s->group = g;
    s->thread = thread;
    s->cookie = &g->cookie;
    s->ready_out = stdout;
    if (uv_loop_init(&s->loop) != 0) {
        snprintf(err, errlen, "cannot create the event loop");
        goto fail;
    }
    s->loop_open = 1;
    /* Guests by default only where nobody can prove who they are. */
    s->allow_guests = opt->allow_guests >= 0 ? opt->allow_guests : opt->auth_secret_len == 0;
    sweep__bucket_init(&s->auth_log, 10.0, uv_hrtime());
    if (opt->auth_secret_loose && thread == 0)
        sweep__log(SWEEP_LOG_WARN, "auth_secret_readable",
                   "file=%s: group or others may read it; anyone who can mints tokens of any role (chmod 600)",
                   opt->auth_secret_file);
    sweep__udp_fit_init(s);
    int decoder = sweep__request_decoder_init(&s->requests, s->opt.max_frame, s->opt.max_batch);
    s->out_cap = sweep__answer_buffer_size(s->opt.max_batch);
    /* Any message a session's widest datagram holds is encoded here too. */
    if (s->out_cap < (size_t)s->udp_widest.datagram + 4096u)
        s->out_cap = (size_t)s->udp_widest.datagram + 4096u;
    s->out_buf = sweep__malloc(s->out_cap);
    /* EntityStates (entity_watch.c): as many entities a message as one
     * datagram holds, or as a frame of --max-frame that the output buffer
     * can encode (an EntityState is 96 bytes, the rest of a message well
     * under 128; sweep__send_parts halves a part the estimate overfills). */
    size_t frame = s->out_cap - SWEEP_FRAME_PREFIX;
    if (frame > s->opt.max_frame)
        frame = s->opt.max_frame;
    s->tcp_max_entity_states = frame >= 128u + 96u ? (uint32_t)((frame - 128u) / 96u) : 1u;
    uint32_t states_cap = s->tcp_max_entity_states > s->udp_widest.entity_states ? s->tcp_max_entity_states
                                                                                 : s->udp_widest.entity_states;
    s->entity_wire = sweep__calloc(states_cap, sizeof *s->entity_wire);
    /* A power of two: session.c takes a hash's bucket by a mask. */
    s->addr_bucket_count = pow2_at_least(s->opt.max_sessions * 2u);
    s->addr_buckets = sweep__calloc(s->addr_bucket_count, sizeof *s->addr_buckets);
    if (decoder != 0 || !s->out_buf || !s->entity_wire || !s->addr_buckets) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* The probes answer from before the maps load (/healthz 200, /readyz
     * 503 "starting"), as an orchestrator waiting on a large map expects. */
    if (thread == 0 && opt->metrics && !(s->metrics = sweep__metrics_start(s, uv_hrtime(), err, errlen)))
        goto fail;
    if (thread > 0)
        s->metrics = g->servers[0]->metrics;
    if (sweep__worlds_load(s, err, errlen) != 0)
        goto fail;
    /* The others share the port the first one got (SO_REUSEPORT). */
    if (thread > 0)
        s->opt.port = g->servers[0]->port;
    if (sweep__listen_bind(s, err, errlen) != 0)
        goto fail;
    if (sweep__record_start(s, err, errlen) != 0)
        goto fail;
    uv_async_init(&s->loop, &s->stop_async, on_stop_async);
    s->stop_async.data = s;
    s->async_open = 1;
    sweep__inbox_open(s);
    return s;
fail:
    destroy_one(s);
    return NULL;
}

sweep_server *sweep_server_create(const sweep_server_options *opt, char *err, size_t errlen)
{
    sweep__log_set_level(opt->log_level);
    if (sweep_server_options_check(opt, err, errlen) != SWEEP_OPTIONS_OK)
        return NULL;
    unsigned n = sweep_server_options_threads(opt);
    sweep__group *g = sweep__group_create(n, opt->max_sessions);
    if (!g) {
        snprintf(err, errlen, "out of memory (or no random bytes for the cookie secret)");
        return NULL;
    }
    g->next_world_id = opt->map_count + 1; /* --map worlds are 1..map_count */
    for (unsigned i = 0; i < n; i++) {
        g->servers[i] = create_one(opt, g, i, err, errlen);
        if (!g->servers[i]) {
            while (i-- > 0)
                destroy_one(g->servers[i]);
            sweep__group_free(g);
            return NULL;
        }
    }
    if (sweep__agones_create(g->servers[0], &g->agones, err, errlen) != 0) {
        sweep_server_destroy(g->servers[0]);
        return NULL;
    }
    return g->servers[0];
}

int sweep_server_port(const sweep_server *s)
{
    return s->port;
}

void sweep_server_set_ready_output(sweep_server *s, FILE *out)
{
    s->ready_out = out;
}

/* Everything of one server but its loop's run: sockets, timers, ticks. */
static int start_one(sweep_server *s, char *err, size_t errlen)
{
    if (sweep__tcp_start(s, err, errlen) != 0 || sweep__udp_start(s, err, errlen) != 0)
        return -1;
    uv_timer_init(&s->loop, &s->housekeeping);
    s->housekeeping.data = s;
    s->housekeeping_open = 1;
    uv_timer_start(&s->housekeeping, on_housekeeping, SWEEP__HOUSEKEEPING_MS, SWEEP__HOUSEKEEPING_MS);
    sweep__worlds_start(s);
    s->serving = 1;
    return 0;
}

int sweep_server_run(sweep_server *s)
{
    char err[256];
    sweep__group *g = s->group;
    /* A peer that resets while we write must not kill the process. */
    signal(SIGPIPE, SIG_IGN);
    /* Before anything listens: a priority the loops cannot have stops the
     * start, named, rather than serve without it. */
    if (sweep__realtime_check(s->opt.realtime, err, sizeof err) != 0) {
        sweep__log(SWEEP_LOG_ERROR, "start_failed", "error=\"%s\"", err);
        return 1;
    }
    /* Every loop is set up here, before any thread runs one: nothing is
     * served until all of them listen. */
    for (unsigned i = 0; i < g->count; i++) {
        if (start_one(g->servers[i], err, sizeof err) != 0) {
            sweep__log(SWEEP_LOG_ERROR, "start_failed", "thread=%u error=\"%s\"", i, err);
            return 1;
        }
    }
    uv_signal_init(&s->loop, &s->sigterm);
    uv_signal_init(&s->loop, &s->sigint);
    uv_signal_init(&s->loop, &s->sighup);
    s->sigterm.data = s->sigint.data = s->sighup.data = s;
    uv_signal_start(&s->sigterm, on_signal, SIGTERM);
    uv_signal_start(&s->sigint, on_signal, SIGINT);
    uv_signal_start(&s->sighup, on_hangup, SIGHUP);
    s->signals_open = 1;
    /* --metrics: "127.0.0.1:9100" (the port picked, for port 0) for both
     * lines below, so a scrape right after the ready line has figures. */
    char metrics[100] = "off";
    if (s->metrics) {
        snprintf(metrics, sizeof metrics, "%s:%d", sweep__metrics_host(s->metrics), sweep__metrics_port(s->metrics));
        uint64_t now = uv_hrtime();
        for (unsigned i = 0; i < g->count; i++) {
            sweep__server_publish(g->servers[i]);
            __atomic_store_n(&g->beats[i], now, __ATOMIC_RELAXED); /* their loops start now */
        }
        /* Every map is loaded and every listener up: /readyz says so
         * before the ready line, so a probe after that line sees it. */
        sweep__metrics_set_state(s->metrics, SWEEP__METRICS_READY);
    }
    /* The threads' own UDP ports (Welcome.udp_port), for a firewall that
     * must let them through: "none" with one thread. */
    char own[16 * 7 + 8] = "none";
    for (unsigned i = 0, at = 0; i < g->count && g->servers[i]->direct_port; i++)
        at += (unsigned)snprintf(own + at, sizeof own - at, "%s%d", i ? "," : "", g->servers[i]->direct_port);
    sweep__log(SWEEP_LOG_INFO, "ready",
               "tcp=%s:%d udp=%s:%d worlds=%u threads=%u max_sessions=%u max_frame=%u tokens=%s command_token=%s "
               "guests=%s free_move=%s time_bank=%g metrics=%s udp_own_ports=%s agones=%s realtime=%u",
               s->host_text, s->port, s->host_text, s->port, sweep__world_table_open(s), g->count, s->opt.max_sessions,
               s->opt.max_frame, s->opt.auth_secret_len ? "on" : "off", s->opt.command_token[0] ? "on" : "off",
               s->allow_guests ? "on" : "off", s->opt.allow_free_move ? "on" : "off", s->opt.time_bank, metrics,
               own, g->agones ? "on" : "off", s->opt.realtime);
    /* Fault-injection builds count allocations from here: what a test
     * fails is the requests' and the ticks', never the start-up's. */
    sweep__faults_arm();
    if (s->ready_out) {
        fprintf(s->ready_out, "sweepd ready tcp=%s:%d udp=%s:%d%s%s\n", s->host_text, s->port, s->host_text, s->port,
                s->metrics ? " metrics=" : "", s->metrics ? metrics : "");
        fflush(s->ready_out);
    }
    /* Maps loaded, every listener up: Agones may send players now. */
    sweep__agones_start(g->agones);
    unsigned started = (unsigned)sweep__group_run_threads(g);
    int rc = 0;
    if (started < g->count) {
        sweep__log(SWEEP_LOG_ERROR, "thread_failed", "started=%u threads=%u", started, g->count);
        shutdown_server(s, "thread_failed");
        rc = 1;
    }
    /* The other loops' threads took their priority themselves. */
    sweep__loop_realtime(s);
    uv_run(&s->loop, UV_RUN_DEFAULT);
    sweep__group_join_threads(g, started);
    sweep__metrics_snapshot *all = sweep__calloc(g->count + 1, sizeof *all);
    if (all) {
        for (unsigned i = 0; i < g->count; i++)
            sweep__server_snapshot(g->servers[i], &all[i + 1]);
        sweep__metrics_snapshot_sum(all, all + 1, g->count);
        sweep__log(SWEEP_LOG_INFO, "stopped", "moves_total=%llu errors_total=%llu sessions_total=%llu",
                   (unsigned long long)all->stats.moves_total, (unsigned long long)all->stats.errors_total,
                   (unsigned long long)all->stats.sessions_total);
        free(all);
    }
    return rc;
}

void sweep_server_stop(sweep_server *s)
{
    uv_async_send(&s->stop_async);
}

static void destroy_one(sweep_server *s)
{
    if (!s)
        return;
    if (s->thread == 0) {
        sweep__metrics_stop(s->metrics); /* first: no scrape runs while the rest goes */
        sweep__agones_close(s->group->agones);
    }
    s->metrics = NULL;
    if (s->loop_open) {
        sweep__tcp_stop(s);
        sweep__udp_close(s);
        close_handle((uv_handle_t *)&s->stop_async, &s->async_open);
        close_handle((uv_handle_t *)&s->inbox_async, &s->inbox_open);
        close_handle((uv_handle_t *)&s->housekeeping, &s->housekeeping_open);
        if (s->signals_open) {
            uv_close((uv_handle_t *)&s->sigterm, NULL);
            uv_close((uv_handle_t *)&s->sigint, NULL);
            uv_close((uv_handle_t *)&s->sighup, NULL);
            s->signals_open = 0;
        }
        sweep__worlds_stop(s);
        for (sweep__conn *c = s->conns; c; c = c->next)
            sweep__conn_close(c);
        uv_run(&s->loop, UV_RUN_DEFAULT);
        uv_loop_close(&s->loop);
    }
    s->stopping = 1; /* a world handed over now is kept only to be freed */
    if (s->inbox_tail)
        sweep__inbox_drain(s); /* handed to it after its loop ended */
    while (s->sessions) {
        s->sessions->close_reason = "shutdown";
        sweep__session_destroy(s->sessions);
    }
    sweep__tcp_free(s); /* after the sessions, which take themselves off its counts */
    sweep__record_stop(s, "shutdown");
    sweep__worlds_free(s);
    sweep__request_decoder_free(&s->requests);
    free(s->out_buf);
    free(s->entity_wire);
    sweep__udp_free(s);
    free(s->addr_buckets);
    free(s);
}

void sweep_server_destroy(sweep_server *s)
{
    if (!s)
        return;
    /* Every thread has ended (run joins them); server 0 goes last, with
     * the metrics endpoint that reads the group. */
    sweep__group *g = s->group;
    /* Its threads first: they read the world table and post to server 0's loop. */
    sweep__agones_stop(g->agones);
    for (unsigned i = g->count; i-- > 0;)
        destroy_one(g->servers[i]);
    sweep__agones_free(g->agones);
    sweep__group_free(g);
}
