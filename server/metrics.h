/*
 * metrics.h - internal: sweepd's Prometheus endpoint (--metrics HOST:PORT),
 * GET /metrics in the text exposition format 0.0.4, served by libmicrohttpd,
 * and on the same port the orchestrator's probes: GET /healthz (is every
 * event loop turning?) and GET /readyz (are the maps loaded and the
 * listeners up, and not draining?).
 *
 * Threading: libmicrohttpd answers in a thread of its own; the server's
 * loop threads never wait for a scrape, and a scrape never reads the
 * loops' structures. Instead each loop thread (one per --threads) publishes
 * a snapshot (the counters, the tick ring and the gauges it counts) under
 * the group's stats lock once per housekeeping tick (100 ms,
 * sweep__server_publish in threads.c) and the scrape copies them out under
 * the same lock, then sums and formats without it. So a scrape sees values
 * at most one housekeeping period old, each thread's from one instant.
 *
 * Why not libmicrohttpd's external select mode on libuv (uv_poll on its
 * sockets)? Its set of sockets changes with every connection and its
 * timeouts have to be re-armed after every call: more code on the loop
 * thread than the copy of ~10 KiB ten times a second that this costs,
 * and a slow or stuck scraper could then cost the loop time too. It is
 * also what lets /healthz see a stalled loop: its answer does not wait
 * for the loop it judges.
 *
 * The worlds' own figures (entities, moves, the tick and move latency
 * histograms) come from the group's world table, which each thread
 * updates for its worlds at the same housekeeping tick (world_table.c).
 * Probes read a few atomics and a clock: no lock, no session, no log line.
 */
#ifndef SWEEP_SERVER_METRICS_H
#define SWEEP_SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "server/stats.h"

typedef struct sweep_server sweep_server;
typedef struct sweep__metrics sweep__metrics;
typedef struct sweep__world_entry sweep__world_entry;
typedef struct sweep__process_figures sweep__process_figures;

/* What a scrape reports: copied from the loop thread by
 * sweep__server_publish (threads.c). */
typedef struct sweep__metrics_snapshot {
    sweep__stats stats;   /* counters and the tick ring */
    uint32_t sessions[2]; /* by transport (0 TCP, 1 UDP) */
    uint32_t connections; /* TCP connections, with or without a session */
    uint32_t entities;
    uint32_t worlds;
    uint32_t movers;      /* in all worlds */
} sweep__metrics_snapshot;

/* Binds s->opt.metrics_host:metrics_port and starts serving; NULL with err
 * set ("--metrics: cannot bind ...") when it cannot. start_ns is when the
 * server started (uptime). */
sweep__metrics *sweep__metrics_start(const sweep_server *s, uint64_t start_ns, char *err, size_t errlen);

/* What GET /readyz answers: 503 while starting (maps loading, listeners
 * not all up) and while draining (a SIGTERM or SIGINT, sweep_server_stop),
 * 200 in between. */
enum { SWEEP__METRICS_STARTING = 0, SWEEP__METRICS_READY = 1, SWEEP__METRICS_DRAINING = 2 };

/* The server's state for /readyz (any thread; NULL is fine). */
void sweep__metrics_set_state(sweep__metrics *m, int state);

/* The loop of `thread` turned at now (uv_hrtime): what /healthz judges.
 * Called at each housekeeping tick (every 100 ms), so a loop held up by
 * anything (a long tick, a blocked write, a lock) stops beating. Any
 * thread; NULL is fine. */
void sweep__metrics_beat(sweep__metrics *m, unsigned thread, uint64_t now);

/* The port bound (the one the kernel picked for port 0) and the host as
 * printed (127.0.0.1, [::1]). */
int sweep__metrics_port(const sweep__metrics *m);
const char *sweep__metrics_host(const sweep__metrics *m);

/* The figures of n threads as one: counters and gauges added, the tick
 * ring filled from each thread's latest samples. */
void sweep__metrics_snapshot_sum(sweep__metrics_snapshot *out, const sweep__metrics_snapshot *in, unsigned n);

/* Stops serving (waits for a scrape in progress) and frees; NULL is fine. */
void sweep__metrics_stop(sweep__metrics *m);

/* The exposition text of a snapshot taken uptime_ns after the start, with
 * the n open worlds' series (a copy of the world table) and the process's
 * figures, in a malloc'ed buffer (*len bytes, not NUL-terminated); NULL if
 * out of memory. Every line is a comment or `name{labels} value`. */
char *sweep__metrics_render(const sweep__metrics_snapshot *snap, const sweep__world_entry *worlds, uint32_t n,
                            const sweep__process_figures *proc, uint64_t uptime_ns, size_t *len);

#endif
