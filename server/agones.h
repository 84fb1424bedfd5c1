/*
 * agones.h - sweepd as an Agones game server: it speaks the Agones SDK
 * itself, over the REST gateway of the SDK server that Agones runs beside
 * it in the pod (http://localhost:$AGONES_SDK_HTTP_PORT).
 *
 * What sweepd says and when:
 *   - Ready, once every map is loaded and every listener is up (the ready
 *     line), retried while the SDK server is not answering yet; not sent
 *     again to a GameServer already Ready, Reserved or Allocated (a
 *     restarted container must not put an allocated server back in the
 *     pool);
 *   - Health every --agones-health-ms, only while every event loop is
 *     alive: each loop's housekeeping counts a beat, and a ping goes only
 *     when every loop beat since the last one, so a stalled loop stops the
 *     pings and Agones marks the GameServer Unhealthy;
 *   - the Counter "worlds" (count: the open worlds; capacity: --max-worlds)
 *     and the List "players" (one value a connected player: its identity,
 *     or "session-N" for a guest), kept current so that allocations can
 *     pack many matches into one sweepd;
 *   - Shutdown once the last open world closes (--agones-shutdown-when-
 *     empty), after there was one; Agones then sends SIGTERM, which drains
 *     as ever.
 * What it hears: the GameServer's watch stream. Each allocation (state
 * Allocated with a new agones.dev/last-allocated annotation) whose
 * annotations or labels name a map (sweep.dev/map, and optionally the
 * world's name, sweep.dev/world) opens a world on it, as an OpenWorld of
 * the maps directory would.
 *
 * Two threads of its own do the HTTP (libcurl) and the JSON (jansson): one
 * for the calls, one for the watch stream. No call ever runs on an event
 * loop: the loops only count beats and players under a mutex, and an
 * allocation reaches thread 0's loop through a uv_async. A failing or late
 * SDK server is retried and logged, never fatal.
 */
#ifndef SWEEP_SERVER_AGONES_H
#define SWEEP_SERVER_AGONES_H

#include <stdint.h>
#include <stddef.h>

typedef struct sweep__agones sweep__agones;
struct sweep_server;

/* The annotations (or labels) of an allocation that name the map and the
 * world to open. */
#define SWEEP__AGONES_MAP_KEY "sweep.dev/map"
#define SWEEP__AGONES_WORLD_KEY "sweep.dev/world"
#define SWEEP__AGONES_COUNTER "worlds"
#define SWEEP__AGONES_LIST "players"

/* Is the SDK to be spoken (--agones, or auto and AGONES_SDK_HTTP_PORT
 * set)? Then made for the group of server 0 s (its loop takes the
 * allocations): 0 with *out (NULL when off), or -1 with err (a bad
 * AGONES_SDK_HTTP_PORT). Nothing is sent before sweep__agones_start. */
int sweep__agones_create(struct sweep_server *s, sweep__agones **out, char *err, size_t errlen);
/* Every listener is up: the threads start; Ready goes out. */
void sweep__agones_start(sweep__agones *a);
/* A player's session welcomed (+1) or ended (-1); value is its List entry.
 * Any thread. */
void sweep__agones_player(sweep__agones *a, const char *value, int delta);
/* The open worlds changed: the Counter (and Shutdown) are seen to now. */
void sweep__agones_poke(sweep__agones *a);
/* Stops and joins the threads (what is not sent by then is not). */
void sweep__agones_stop(sweep__agones *a);
/* Closes the uv_async on server 0's loop (before that loop's last run). */
void sweep__agones_close(sweep__agones *a);
void sweep__agones_free(sweep__agones *a);

#endif
