/*
 * offline.h - sweepd's own world code without sockets, for replaying
 * session logs (client-sdk/replay.h is the public face).
 *
 * An offline server loads its maps like sweepd and runs requests through
 * the same dispatch, the same moves, spawns and ticks, but sends nothing:
 * every message it would send to a session goes to the sink given with
 * the request or tick that caused it. Sessions are made by the caller with
 * the ids, roles and transports a log names, and the entity ids a Spawn
 * draws are the ones the caller passes (the log's ID records). Nothing it
 * does depends on a clock: what it answers depends on the requests and the
 * ticks only, which is what lets a replay compare every bit.
 */
#ifndef SWEEP_SERVER_OFFLINE_H
#define SWEEP_SERVER_OFFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "maps/level.h"
#include "server/options.h"
#include "server/server.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep__session sweep__session;

/* Receives one message as the server would have sent it to `session`
 * (a TCP session's with its size prefix). */
typedef void (*sweep__offline_sink)(void *ctx, uint64_t session, const uint8_t *bytes, size_t len);

/* Loads the maps of opt (only map, tick rate, time bank, free moves,
 * players block and the entity, batch and frame limits matter); no socket,
 * no loop, no recording, logs only at level error. NULL with err. */
sweep_server *sweep__offline_create(const sweep_server_options *opt, char *err, size_t errlen);

/* A session of world 0 as a log's OPEN names it; NULL if out of memory. */
sweep__session *sweep__offline_open(sweep_server *s, uint64_t id, uint32_t role, int tcp, const char *identity,
                                    size_t identity_len);

/* Ends a session and despawns its entities, as a CLOSE does. */
void sweep__offline_close(sweep__session *ss);

/* One request as received (bytes aligned to 8; a TCP session's keep their
 * size prefix); `ids` are the entity ids a Spawn may draw, in order. */
void sweep__offline_request(sweep_server *s, sweep__session *ss, const uint8_t *bytes, size_t len,
                            const uint32_t *ids, uint32_t id_count, sweep__offline_sink sink, void *ctx);

/* From now on every applied move's MOVE payload (record.h) goes to
 * move_sink, with the ctx of the request's sink, just before the answer
 * is sent: for a version 2 log, whose MOVE records are compared too. */
void sweep__offline_record_moves(sweep_server *s, sweep__offline_sink move_sink);

/* One tick of world 0. */
void sweep__offline_tick(sweep_server *s, sweep__offline_sink sink, void *ctx);

/* World 0's tick, state hash (as in a log's HASH records), level, and
 * mover poses (index order; 0 with *position set, -1 past the last). */
uint64_t sweep__offline_world_tick(const sweep_server *s);
uint64_t sweep__offline_state_hash(const sweep_server *s);
const sweep_level *sweep__offline_level(const sweep_server *s);
int sweep__offline_mover_position(const sweep_server *s, uint32_t index, double position[3]);
/* World 0's map content hash (32 bytes) and the moves applied so far. */
const uint8_t *sweep__offline_map_hash(const sweep_server *s);
uint64_t sweep__offline_moves(const sweep_server *s);

#ifdef __cplusplus
}
#endif

#endif
