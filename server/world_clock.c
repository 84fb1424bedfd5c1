/*
 * world_clock.c - the worlds sweepd serves (one per --map, and those a
 * game server opens, world_open.c; each a world of the world library on
 * this thread) and the clock that ticks them.
 *
 * Tick numbers are integers and are scheduled from the start time, never
 * by adding periods to "now": tick n is due at start + n * period on the
 * monotonic clock (uv_hrtime), so timer lateness never accumulates into
 * drift; the timer is armed for that instant to the microsecond
 * (tick_timer.h), not rounded up to libuv's milliseconds. A late callback
 * runs every tick that came due, one at a time; if the loop stalled for
 * more than SWEEP__TICK_CATCHUP ticks the excess is skipped and logged, so
 * a stall does not become a burst of thousands of ticks. A request of a
 * session runs its world's due ticks before it is handled
 * (sweep__world_catch_up), the timer's callback or not: a move is credited
 * time (server/world/moves.c) by the tick it meets, and after a stall of
 * the loop (a busy or starved server, its datagrams waiting in the socket)
 * the tick of the last callback lags the clock by the stall, so an honest
 * client, asking the time that passed, would meet a budget short by as
 * much and be cut (TimeBudget) for the server's own lateness.
 *
 * Each tick is recorded around the world's own (TICK before, HASH every
 * --record-hash-every ticks after, the frame written once the due ticks
 * ran). After the due ticks, each watching session whose interval came
 * round gets one WorldState (the latest poses) and, watching entities
 * (entity_watch.c), one EntityStates.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"
#include "server/server_impl.h"

#define SWEEP__TICK_CATCHUP 1000u

/* The file name of path without directory and last extension. */
static void file_stem(const char *path, char *out, size_t outlen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, base, n);
    out[n] = 0;
}

/* What every world of s is run with besides its map. */
static sweep__world_options world_options(const sweep_server *s)
{
    sweep__world_options wo = {
        .tick_rate = s->opt.tick_rate,
        .time_bank = s->opt.time_bank,
        .allow_free_move = s->opt.allow_free_move,
        .players_block = s->opt.players_block,
        .max_entities = s->opt.max_entities,
        .max_entities_server = s->opt.max_entities_server,
        .max_batch = s->opt.max_batch,
        .server_role_possible = sweep__server_role_possible(s),
        .history_ms = s->opt.history_ms,
        .rewind_cap_ms = s->opt.rewind_cap_ms,
        .history_entities = s->opt.history_entities,
        .history_max_bytes = (uint64_t)s->opt.history_memory_mb * 1024u * 1024u,
        .query_rate = s->opt.query_rate,
    };
    return wo;
}

sweep__served *sweep__served_new(sweep_server *to, const char *path, uint32_t id, char *err, size_t errlen)
{
    sweep__served *w = sweep__calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sweep__world_options wo = world_options(to);
    w->server = to;
    w->id = id;
    w->index = id ? id - 1 : 0;
    w->world = sweep__world_open(path, &wo, w->index, err, errlen);
    if (!w->world) {
        free(w);
        return NULL;
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    file_stem(path, w->stem, sizeof w->stem);
    snprintf(w->name, sizeof w->name, "%s", w->world->level.name);
    w->period_ns = (uint64_t)(1e9 / w->world->tick_rate + 0.5);
    if (w->period_ns == 0)
        w->period_ns = 1;
    return w;
}

void sweep__served_log_loaded(const sweep__served *w)
{
    const sweep__world *ww = w->world;
    char hex[2 * SWEEP_SHA256_SIZE + 1], q[2 * SWEEP__WORLD_NAME_MAX + 8];
    sweep_content_hash_hex(&ww->hash, hex);
    sweep__log(SWEEP_LOG_INFO, "world_loaded",
               "world=%u id=%u thread=%u name=%s stem=%s path=%s triangles=%u movers=%u spawns=%u tick_rate=%g "
               "players_block=%s walk_speed=%g speed_limit=%g correction_threshold=%g hash=%s",
               w->index, w->id, w->server->thread, sweep__log_quote(w->name, strlen(w->name), q, sizeof q),
               w->stem, w->path, ww->level.triangle_count, ww->mover_count, ww->level.spawn_count, ww->tick_rate,
               ww->crowd ? "on" : "off", ww->level.rules.walk_speed, ww->level.rules.speed_limit,
               ww->level.correction_threshold, hex);
}

int sweep__worlds_load(sweep_server *s, char *err, size_t errlen)
{
    /* This thread's share: maps thread, thread + threads, ... (threads.c);
     * index stays the map's place on the command line, its id that + 1. */
    unsigned step = s->group->count;
    for (unsigned i = s->thread; i < s->opt.map_count; i += step) {
        sweep__served *w = sweep__served_new(s, s->opt.maps[i], i + 1, err, errlen);
        if (!w)
            return -1;
        sweep__world_adopt(s, w);
        if (!w->started) {
            sweep__served_free(w);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        /* from here on the world is freed by worlds_free */
        if (sweep__world_table_add_map(s->group, w, s->thread) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        sweep__served_log_loaded(w);
    }
    return 0;
}

/* A WorldState of the movers [start, start + k). */
typedef struct world_state_parts {
    const sweep__world *w;
    const sweep_wire_mover *wire;
    uint32_t sequence;
} world_state_parts;

static void fill_world_state(void *ctx, sweep_message *m, uint32_t start, uint32_t k)
{
    const world_state_parts *ws = ctx;
    memset(m, 0, sizeof *m);
    m->kind = SWEEP_MSG_WORLD_STATE;
    m->sequence = ws->sequence;
    m->server_tick = ws->w->tick;
    m->as.world_state.tick = ws->w->tick;
    m->as.world_state.movers = k ? ws->wire + start : NULL;
    m->as.world_state.count = k;
    m->as.world_state.mover_count = ws->w->mover_count;
    m->as.world_state.path_count = k;
}

int sweep__send_world_state(sweep_server *s, sweep__peer *p, sweep__served *sw, uint32_t sequence)
{
    sweep__world *w = sw->world;
    world_state_parts ws = {w, sweep__world_movers_wire(w), sequence};
    /* Over UDP as many movers per datagram as fit; over TCP as many as a
     * frame of the server's own maximum holds (a MoverTransform is 64
     * bytes and its MoverPath 12; 128 covers the rest). */
    uint32_t per = p->tcp ? (s->opt.max_frame - 128u) / (64u + 12u) : sweep__peer_udp_fit(s, p)->movers;
    return sweep__send_parts(s, p, w->mover_count, per, fill_world_state, &ws, "movers");
}

/* A multiple of every (0: never) is among the ticks (before, tick]. */
static int came_round(uint32_t every, uint64_t before, uint64_t tick)
{
    return every != 0 && tick / every != before / every;
}

/* Sends the latest WorldState and EntityStates to each session of w whose
 * interval came round in the ticks (before, w->tick]: one of each per
 * session per callback even when a late callback ran several ticks. */
static void push_watches(sweep__served *w, uint64_t before)
{
    sweep_server *s = w->server;
    uint64_t tick = w->world->tick;
    for (sweep__session *ss = w->watchers; ss; ss = ss->watch_next) {
        int world = came_round(ss->watch_every, before, tick);
        int entities = came_round(ss->watch_entities_every, before, tick);
        if (!world && !entities)
            continue;
        sweep__peer p = sweep__session_peer(ss);
        if (world)
            sweep__send_world_state(s, &p, w, 0);
        if (entities)
            sweep__send_entity_states(s, &p, w, 0);
    }
}

/* One tick, recorded: its TICK (outcomes.c), what it caused, and HASH
 * after it when due. */
static void tick_recorded(sweep__served *w)
{
    sweep_server *s = w->server;
    sweep__served_tick(w);
    if (w->rec && w->world->tick % s->opt.record_hash_every == 0)
        sweep__record_hash(w);
}

static void on_tick(sweep__tick_timer *t);

/* When the world's next tick is due (monotonic ns). */
static inline uint64_t next_due(const sweep__served *w)
{
    return w->start_ns + (w->world->tick + 1) * w->period_ns;
}

/* Arms the timer for the next due tick, to the microsecond where the
 * system allows (tick_timer.h). */
static void schedule_next(sweep__served *w)
{
    sweep__tick_timer_arm(&w->timer, next_due(w), on_tick);
}

/* Runs every tick due at t0 (at most SWEEP__TICK_CATCHUP of them), with
 * what follows a tick: the frame's end, the invariants, the figures and
 * the WorldStates and EntityStates. */
static void run_due(sweep__served *w, uint64_t t0)
{
    sweep_server *s = w->server;
    double period_s = w->world->period_s;
    uint64_t before = w->world->tick;
    unsigned steps = 0;
    /* Moves that waited through a stall of the server this long meet a
     * budget filled to the bank at most, less than the time that passed:
     * honest players are cut (TimeBudget) as a lag switch would be. Said,
     * so that such a cut is not taken for a client's fault. */
    uint64_t due = next_due(w);
    double late = due < t0 ? (double)(t0 - due) / 1e9 : 0.0;
    if (late > s->opt.time_bank - 2 * period_s && late > period_s && !s->stopping)
        sweep__log(SWEEP_LOG_WARN, "tick_late",
                   "world=%u late_s=%.3f time_bank=%g", w->index, late,
                   s->opt.time_bank);
    /* The ticks' time is measured from when they start, not from t0: a
     * request's t0 (sweep__world_catch_up) is its receive batch's clock
     * reading, which the requests handled before it have made old, and
     * their time is not the ticks'. */
    uint64_t begin = 0;
    /* What the ticks send (a crushed entity's Despawned) and their pushes
     * leave as one queue, in the order made, a sendmmsg per 64 (udp.c's
     * queue), not a system call each: a thousand relayed players' pushes
     * are some 84 EntityStates at 1,200 bytes. Inside a reading they join
     * its queue. */
    int open = sweep__udp_batch_begin(s);
    while (next_due(w) <= t0 && steps < SWEEP__TICK_CATCHUP) {
        if (steps == 0)
            begin = uv_hrtime();
        tick_recorded(w);
        steps++;
    }
    if (steps) {
        sweep__record_tick_end(w);
        sweep__check_invariants(s);
    }
    if (steps == SWEEP__TICK_CATCHUP && next_due(w) <= t0) {
        uint64_t behind = (t0 - w->start_ns) / w->period_ns - w->world->tick;
        sweep__log(SWEEP_LOG_WARN, "tick_overrun", "world=%u skipped=%llu", w->index, (unsigned long long)behind);
        w->start_ns = t0 - w->world->tick * w->period_ns; /* re-anchor: tick numbers stay contiguous */
    }
    if (steps) {
        uint64_t took = uv_hrtime() - begin;
        sweep__stats_record_ticks(&s->stats, took, steps);
        sweep__histogram_observe_n(&w->tick_time, took / steps, steps);
    }
    if (steps && !s->stopping)
        push_watches(w, before);
    if (!open)
        sweep__udp_batch_end(s);
}

/* Runs every tick that is due, then re-arms. */
static void on_tick(sweep__tick_timer *t)
{
    sweep__served *w = t->data;
    run_due(w, uv_hrtime());
    schedule_next(w);
}

void sweep__world_catch_up(sweep__served *w, uint64_t now)
{
    /* Before the timer's first arming (a world not started) nothing is due. */
    if (!w->timer_open)
        return;
    if (next_due(w) <= now)
        run_due(w, now);
}

void sweep__served_start(sweep__served *w)
{
    sweep_server *s = w->server;
    sweep__tick_timer_init(&s->loop, &w->timer, w);
    w->timer_open = 1;
    w->start_ns = uv_hrtime();
    schedule_next(w);
}

void sweep__worlds_start(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__served *w = s->worlds[i];
        w->world->tick = 0;
        sweep__served_start(w);
    }
}

void sweep__worlds_stop(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__served *w = s->worlds[i];
        if (w->timer_open) {
            sweep__tick_timer_close(&w->timer, NULL);
            w->timer_open = 0;
        }
    }
}

/* The timer's memory is the world's: freed once libuv is done with it. */
static void on_timer_closed(sweep__tick_timer *t)
{
    free(t->data);
}

void sweep__served_free(sweep__served *w)
{
    if (!w)
        return;
    sweep__world_close(w->world);
    w->world = NULL;
    if (w->timer_open) {
        w->timer_open = 0;
        sweep__tick_timer_close(&w->timer, on_timer_closed);
        return;
    }
    free(w);
}

void sweep__worlds_free(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++)
        sweep__served_free(s->worlds[i]);
    free(s->worlds);
    s->worlds = NULL;
    s->world_count = s->world_cap = 0;
}
