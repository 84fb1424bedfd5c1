/*
 * server.h - sweepd as a library: the authoritative collision server that
 * the thin program server/sweepd_main.c runs, and that tests may embed.
 *
 * A server owns one libuv loop, a TCP listener and a UDP socket on the same
 * port, one world per loaded map (each with its own fixed-rate tick), the
 * sessions of its clients and the entities they spawned. Everything runs on
 * the thread that calls sweep_server_run (with opt.threads > 1, that thread
 * and opt.threads - 1 more it starts and joins, each a loop of its own with
 * its share of the worlds); the only call that may come from another thread
 * is sweep_server_stop.
 *
 * Typical use (what sweepd does):
 *
 *   sweep_server_options opt;
 *   sweep_server_options_default(&opt);
 *   ... sweep_server_options_parse(&opt, argc, argv, ...) ...
 *   sweep_server *s = sweep_server_create(&opt, err, sizeof err);
 *   int rc = sweep_server_run(s);      // prints the ready line, returns on SIGTERM/SIGINT
 *   sweep_server_destroy(s);
 */
#ifndef SWEEP_SERVER_SERVER_H
#define SWEEP_SERVER_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "server/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep_server sweep_server;

/* Loads every map, binds TCP and UDP on opt->listen (port 0: a free port
 * usable for both) and prepares the loop. NULL on failure with err saying
 * why (a map that does not load, an address in use, ...). The options are
 * copied. */
sweep_server *sweep_server_create(const sweep_server_options *opt, char *err, size_t errlen);

/* The port TCP and UDP are bound to (useful with port 0). */
int sweep_server_port(const sweep_server *s);

/* Writes "sweepd ready tcp=HOST:PORT udp=HOST:PORT" and a newline to `out`
 * (flushed) once listening; NULL writes nothing. Default: stdout. */
void sweep_server_set_ready_output(sweep_server *s, FILE *out);

/* Runs the loop until a graceful shutdown completes (SIGTERM, SIGINT or
 * sweep_server_stop). Returns 0 after a clean shutdown, 1 on a loop error. */
int sweep_server_run(sweep_server *s);

/* Asks a running server to shut down gracefully; safe from any thread and
 * from signal-free contexts such as a test's main thread. */
void sweep_server_stop(sweep_server *s);

/* Frees everything; the server must not be running. NULL is ignored. */
void sweep_server_destroy(sweep_server *s);

#ifdef __cplusplus
}
#endif

#endif
