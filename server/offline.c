/*
 * offline.c - sweepd's world code without sockets (offline.h): what
 * replays of session logs run.
 */
#include <string.h>

#include "server/offline.h"
#include "server/server_impl.h"

sweep_server *sweep__offline_create(const sweep_server_options *opt, char *err, size_t errlen)
{
    sweep_server_options o = *opt;
    o.log_level = SWEEP_LOG_ERROR;
    o.rate_limit = 0.0;     /* the log holds only what the limit let through */
    o.record_dir[0] = 0;
    /* max_sessions stays as given: only a Hello checks it, and an offline
     * server takes none (UINT32_MAX here overflowed the address table's
     * sizing into its 1M-bucket cap, 8 MB for no address at all). */
    return sweep__server_create(&o, 1, err, errlen);
}

sweep__session *sweep__offline_open(sweep_server *s, uint64_t id, uint32_t role, int tcp, const char *identity,
                                    size_t identity_len)
{
    sweep__session_slot_take(s); /* always granted offline */
    sweep__session *ss = sweep__session_create(s, &s->worlds[0], tcp ? SWEEP__TCP : SWEEP__UDP);
    if (!ss) {
        sweep__session_slot_give(s);
        return NULL;
    }
    ss->id = id;
    ss->role = role;
    if (identity_len >= sizeof ss->identity)
        identity_len = sizeof ss->identity - 1;
    memcpy(ss->identity, identity, identity_len);
    ss->identity[identity_len] = 0;
    return ss;
}

void sweep__offline_close(sweep__session *ss)
{
    sweep__session_destroy(ss);
}

void sweep__offline_request(sweep_server *s, sweep__session *ss, const uint8_t *bytes, size_t len,
                            const uint32_t *ids, uint32_t id_count, sweep__offline_sink sink, void *ctx)
{
    sweep__peer p = sweep__session_peer(ss);
    s->sink = sink;
    s->sink_ctx = ctx;
    s->next_ids = ids;
    s->next_id_count = id_count;
    sweep__dispatch(s, &p, bytes, len, p.tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0);
    s->next_ids = NULL;
    s->next_id_count = 0;
}

void sweep__offline_record_moves(sweep_server *s, sweep__offline_sink move_sink)
{
    s->move_sink = move_sink;
}

void sweep__offline_tick(sweep_server *s, sweep__offline_sink sink, void *ctx)
{
    s->sink = sink;
    s->sink_ctx = ctx;
    sweep__world_tick(&s->worlds[0]);
}

uint64_t sweep__offline_world_tick(const sweep_server *s)
{
    return s->worlds[0].tick;
}

uint64_t sweep__offline_state_hash(const sweep_server *s)
{
    return sweep__world_state_hash(&s->worlds[0]);
}

const sweep_level *sweep__offline_level(const sweep_server *s)
{
    return &s->worlds[0].level;
}

int sweep__offline_mover_position(const sweep_server *s, uint32_t index, double position[3])
{
    const sweep__world *w = &s->worlds[0];
    if (index >= w->mover_count)
        return -1;
    sweep_mover_pose pose;
    sweep_movers_get(w->movers, index, &pose, NULL);
    position[0] = pose.position.x;
    position[1] = pose.position.y;
    position[2] = pose.position.z;
    return 0;
}

const uint8_t *sweep__offline_map_hash(const sweep_server *s)
{
    return s->worlds[0].hash.bytes;
}

uint64_t sweep__offline_moves(const sweep_server *s)
{
    return s->stats.moves_total;
}
