/*
 * world.c - worlds: one per --map, each a loaded level, its core world,
 * content hash and movers, its entities in spawn order, and its fixed-rate
 * tick.
 *
 * Tick numbers are integers and are scheduled from the start time, never
 * by adding periods to "now": tick n is due at start + n * period on the
 * monotonic clock (uv_hrtime), so timer lateness never accumulates into
 * drift. A late callback runs every tick that came due, one at a time; if
 * the loop stalled for more than SWEEP__TICK_CATCHUP ticks the excess is
 * skipped and logged, so a stall does not become a burst of thousands of
 * ticks. A request of a session runs its world's due ticks before it is
 * handled (sweep__world_catch_up), the timer's callback or not: a move
 * is credited time (moves.c) by the tick it meets, and after a stall of
 * the loop (a busy or starved server, its datagrams waiting in the socket)
 * the tick of the last callback lags the clock by the stall, so an honest
 * client, asking the time that passed, would meet a budget short by as
 * much and be cut (TimeBudget) for the server's own lateness.
 *
 * One tick (tick_movers): every entity of the world becomes a sweep_body
 * (its position, radii, and the mover its last move stood on and touched),
 * in spawn order, and sweep_movers_tick advances the movers, carrying and
 * pushing those bodies; positions are written back (only positions: a
 * carried or pushed entity keeps the velocity and grounded flag of its
 * last move, which its next move starts from), each entity remembers
 * what carried or pushed it for its next MoveResult, and crushed entities
 * are removed, their owners told with an unasked Despawned. What a tick
 * does depends on the tick number and the entities only, never on the
 * clock. After the due ticks, each watching session whose interval came
 * round gets one WorldState (the latest poses).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "maps/loader.h"
#include "server/alloc.h"
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

/* Builds the world's movers from its level at the world's own tick rate
 * (which --tick-rate may have changed from the map's), numbering their
 * triangles after the static ones as every client's core does. */
static int build_movers(sweep__world *w, char *err, size_t errlen)
{
    const sweep_level *lv = &w->level;
    w->mover_count = lv->mover_count;
    if (lv->mover_count == 0)
        return 0;
    if (w->tick_rate < 1.0) {
        snprintf(err, errlen, "the map has %u movers, which need at least 1 tick per second (tick rate %g)",
                 lv->mover_count, w->tick_rate);
        return -1;
    }
    sweep_mover_desc *d = sweep__calloc(lv->mover_count, sizeof *d);
    w->mover_blocked = sweep__calloc(lv->mover_count, sizeof *w->mover_blocked);
    w->wire = sweep__calloc(lv->mover_count, sizeof *w->wire);
    if (!d || !w->mover_blocked || !w->wire) {
        free(d);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < lv->mover_count; i++)
        d[i] = sweep_level_mover_desc(lv, i);
    sweep_status st = sweep_movers_create(d, lv->mover_count, w->tick_rate, lv->triangle_count, &w->movers);
    free(d);
    if (st != SWEEP_OK) {
        snprintf(err, errlen, "cannot build the movers: %s", sweep_status_message(st));
        w->movers = NULL;
        return -1;
    }
    return 0;
}

int sweep__worlds_load(sweep_server *s, char *err, size_t errlen)
{
    s->worlds = sweep__calloc(s->opt.map_count, sizeof *s->worlds);
    if (!s->worlds) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* This thread's share: maps thread, thread + threads, ... (threads.c);
     * index stays the map's place on the command line. */
    unsigned step = s->group->count;
    for (unsigned i = s->thread; i < s->opt.map_count; i += step) {
        const char *path = s->opt.maps[i];
        sweep__world *w = &s->worlds[s->world_count];
        char msg[512];
        sweep_map_load_info info;
        w->server = s;
        w->index = i;
        if (sweep_map_load(path, &w->level, &info, msg, sizeof msg) != SWEEP_OK) {
            snprintf(err, errlen, "%s: %s", path, msg);
            sweep_level_free(&w->level);
            return -1;
        }
        s->world_count++; /* from here on the level is freed by worlds_free */
        if (sweep_map_build_world(&w->level, &w->world, NULL, msg, sizeof msg) != SWEEP_OK) {
            snprintf(err, errlen, "%s: %s", path, msg);
            return -1;
        }
        if (sweep_level_content_hash(&w->level, &w->hash) != SWEEP_OK) {
            snprintf(err, errlen, "%s: cannot hash the map", path);
            return -1;
        }
        file_stem(path, w->stem, sizeof w->stem);
        /* The rules are the map's, but sweep_act refuses rules that do not
         * fit the config: better to say so now than on every move. */
        const sweep_level *lv = &w->level;
        if (sweep_rules_check(&lv->rules) != SWEEP_OK || !(lv->rules.speed_limit <= lv->config.max_speed)) {
            snprintf(err, errlen,
                     "%s: the map's movement rules are out of range (walk_speed %g, speed_limit %g, max_speed %g)",
                     path, lv->rules.walk_speed, lv->rules.speed_limit, lv->config.max_speed);
            return -1;
        }
        if (!(lv->correction_threshold >= 0.0 && isfinite(lv->correction_threshold))) {
            snprintf(err, errlen, "%s: correction_threshold %g is not a distance", path, lv->correction_threshold);
            return -1;
        }
        w->tick_rate = s->opt.tick_rate > 0.0 ? s->opt.tick_rate : w->level.tick_rate;
        if (!(w->tick_rate > 0.0) || w->tick_rate > 10000.0)
            w->tick_rate = 60.0;
        w->period_s = 1.0 / w->tick_rate;
        if (s->opt.time_bank < w->period_s)
            sweep__log(SWEEP_LOG_WARN, "time_bank_short",
                       "world=%u time_bank=%g tick_period=%g: a player's entity cannot bank one tick's time, so "
                       "every move asking a tick's worth is cut", i, s->opt.time_bank, w->period_s);
        w->period_ns = (uint64_t)(1e9 / w->tick_rate + 0.5);
        if (w->period_ns == 0)
            w->period_ns = 1;
        if (build_movers(w, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s: %s", path, msg);
            return -1;
        }
        if (s->opt.players_block && sweep_crowd_create(64, &w->crowd) != SWEEP_OK) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
        char hex[2 * SWEEP_SHA256_SIZE + 1];
        sweep_content_hash_hex(&w->hash, hex);
        sweep__log(SWEEP_LOG_INFO, "world_loaded",
                   "world=%u thread=%u name=%s stem=%s path=%s triangles=%u movers=%u spawns=%u tick_rate=%g players_block=%s "
                   "walk_speed=%g speed_limit=%g correction_threshold=%g hash=%s",
                   i, s->thread, w->level.name, w->stem, path, w->level.triangle_count, w->mover_count, w->level.spawn_count,
                   w->tick_rate, w->crowd ? "on" : "off", w->level.rules.walk_speed, w->level.rules.speed_limit,
                   w->level.correction_threshold, hex);
    }
    return 0;
}

uint32_t sweep__world_mover_id(const sweep__world *w, uint32_t index)
{
    return index < w->mover_count ? w->level.movers[index].id : 0;
}

/* Room for n bodies in the tick's scratch (worlds with movers only). */
static int bodies_reserve(sweep__world *w, uint32_t n)
{
    if (!w->movers || n <= w->body_cap)
        return 0;
    uint32_t ncap = w->body_cap ? w->body_cap : 16;
    while (ncap < n)
        ncap *= 2;
    sweep_body *b = sweep__realloc(w->bodies, ncap * sizeof *b);
    if (!b)
        return -1;
    w->bodies = b;
    w->body_cap = ncap;
    return 0;
}

int sweep__world_add_entity(sweep__world *w, sweep__entity *e)
{
    e->crowd_slot = SWEEP_NO_BODY;
    if (w->crowd) {
        uint32_t slot = sweep_crowd_first_free(w->crowd);
        if (slot == SWEEP_NO_BODY) {
            slot = sweep_crowd_slots(w->crowd);
            if (sweep_crowd_grow(w->crowd, 2 * slot) != SWEEP_OK)
                return -1;
        }
        e->crowd_slot = slot; /* taken by the first place_entity */
    }
    if (w->ent_count == w->ent_cap) {
        uint32_t ncap = w->ent_cap ? w->ent_cap * 2 : 16;
        sweep__entity **n = sweep__realloc(w->ents, ncap * sizeof *n);
        if (!n)
            return -1;
        w->ents = n;
        w->ent_cap = ncap;
    }
    /* The tick's scratch grows here, where a failure refuses one Spawn,
     * rather than in the tick, where it would skip the movers' step and
     * make this run differ from its replay. */
    if (bodies_reserve(w, w->ent_count + 1) != 0)
        return -1;
    w->ents[w->ent_count++] = e;
    e->world = w;
    return 0;
}

void sweep__world_place_entity(sweep__world *w, sweep__entity *e)
{
    /* Radii and positions were checked on the way in, so this cannot fail. */
    if (w->crowd && e->crowd_slot != SWEEP_NO_BODY)
        sweep_crowd_set(w->crowd, e->crowd_slot, e->actor.position, e->radii);
}

sweep_space sweep__world_space(const sweep__world *w, const sweep__entity *e)
{
    sweep_space sp = {w->world, w->movers, w->crowd, e ? e->crowd_slot : SWEEP_NO_BODY};
    return sp;
}

/* Keeps the others in spawn order: the tick's outcome depends on it. */
void sweep__world_remove_entity(sweep__world *w, sweep__entity *e)
{
    if (w->crowd && e->crowd_slot != SWEEP_NO_BODY)
        sweep_crowd_clear(w->crowd, e->crowd_slot);
    for (uint32_t i = 0; i < w->ent_count; i++) {
        if (w->ents[i] == e) {
            memmove(&w->ents[i], &w->ents[i + 1], (w->ent_count - i - 1) * sizeof *w->ents);
            w->ent_count--;
            return;
        }
    }
}

/* A mover's name for logs, quoted: the map may put spaces in it. */
static const char *mover_name(const sweep__world *w, uint32_t index, char *out, size_t outlen)
{
    const char *n = index < w->mover_count ? w->level.movers[index].name : "?";
    return sweep__log_quote(n, strlen(n), out, outlen);
}

/* Takes out an entity a mover crushed and tells its owner, unasked. */
static void crush(sweep__world *w, sweep__entity *e, uint32_t mover)
{
    sweep_server *s = w->server;
    sweep__session *owner = e->owner;
    uint32_t id = e->id;
    char q[96];
    sweep__log(SWEEP_LOG_INFO, "mover_crushed", "world=%u tick=%llu mover=%u name=%s entity=%u session=%llu", w->index,
               (unsigned long long)w->tick, sweep__world_mover_id(w, mover), mover_name(w, mover, q, sizeof q), id,
               (unsigned long long)owner->id);
    sweep__session_despawn(owner, e);
    s->stats.crushed_total++;
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_DESPAWNED;
    m.sequence = 0;
    m.server_tick = w->tick;
    m.as.despawned.entity = id;
    m.as.despawned.crushed_by = sweep__world_mover_id(w, mover);
    sweep__peer p = sweep__session_peer(owner);
    sweep__send(s, &p, &m);
}

/* One tick of the world's movers (see the file comment). Runs after
 * w->tick was advanced, so logs and pushes name the tick just done. */
static void tick_movers(sweep__world *w)
{
    if (!w->movers)
        return;
    uint32_t n = w->ent_count;
    if (bodies_reserve(w, n) != 0) { /* cannot happen: each Spawn made room */
        sweep__log(SWEEP_LOG_ERROR, "mover_tick_failed", "world=%u tick=%llu error=\"out of memory\"", w->index,
                   (unsigned long long)w->tick);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const sweep__entity *e = w->ents[i];
        sweep_body *b = &w->bodies[i];
        b->position = e->actor.position;
        b->radii = e->radii;
        b->ground_mover = e->ground_mover;
        b->touch_mover = e->touch_mover;
        b->flags = 0;
        b->mover = SWEEP_NO_MOVER;
    }
    sweep_tick_report rep;
    sweep_status st = sweep_movers_tick(w->movers, w->world, &w->level.config, w->bodies, n, &rep);
    if (st != SWEEP_OK) {
        /* Nothing moved; the next tick tries again. */
        sweep__log(SWEEP_LOG_ERROR, "mover_tick_failed", "world=%u tick=%llu error=\"%s\"", w->index,
                   (unsigned long long)w->tick, sweep_status_message(st));
        return;
    }
    uint32_t crushed = 0;
    for (uint32_t i = 0; i < n; i++) {
        sweep__entity *e = w->ents[i];
        const sweep_body *b = &w->bodies[i];
        e->actor.position = b->position; /* velocity and grounded stay those of its last move */
        sweep__world_place_entity(w, e);
        uint32_t moved = b->flags & (SWEEP_BODY_CARRIED | SWEEP_BODY_PUSHED);
        if (moved) {
            e->moved_flags |= moved;
            e->moved_by = b->mover;
            sweep__entity_unflag(w, e);
        }
        crushed += (b->flags & SWEEP_BODY_CRUSHED) != 0;
    }
    /* Say when a mover starts being blocked (not every tick it stays so),
     * naming the first body in its way. */
    for (uint32_t m = 0; m < w->mover_count; m++) {
        sweep_mover_state ms;
        sweep_movers_get(w->movers, m, NULL, &ms);
        uint8_t blocked = (ms.flags & SWEEP_MOVER_BLOCKED) != 0;
        if (blocked && !w->mover_blocked[m]) {
            uint32_t by = 0;
            for (uint32_t i = 0; i < n && !by; i++)
                if ((w->bodies[i].flags & (SWEEP_BODY_BLOCKED | SWEEP_BODY_CRUSHED)) && w->bodies[i].mover == m)
                    by = w->ents[i]->id;
            char q[96];
            sweep__log(SWEEP_LOG_INFO, "mover_blocked", "world=%u tick=%llu mover=%u name=%s entity=%u rule=%s",
                       w->index, (unsigned long long)w->tick, sweep__world_mover_id(w, m),
                       mover_name(w, m, q, sizeof q), by, sweep_mover_blocked_name(w->level.movers[m].blocked));
        }
        w->mover_blocked[m] = blocked;
    }
    /* Crushed entities leave last, from the end, so the indices of those
     * still to visit do not move under us. */
    for (uint32_t i = n; crushed && i-- > 0;) {
        if (w->bodies[i].flags & SWEEP_BODY_CRUSHED) {
            crush(w, w->ents[i], w->bodies[i].mover);
            crushed--;
        }
    }
}

/* Fills the world's wire movers with the current poses and states. */
static void fill_wire(sweep__world *w)
{
    for (uint32_t m = 0; m < w->mover_count; m++) {
        sweep_mover_pose pose;
        sweep_mover_state st;
        sweep_movers_get(w->movers, m, &pose, &st);
        sweep_wire_mover *o = &w->wire[m];
        o->id = w->level.movers[m].id;
        o->flags = st.flags & (SWEEP_MOVER_TRIGGERED | SWEEP_MOVER_BLOCKED | SWEEP_MOVER_MOVED);
        o->position = pose.position;
        o->rotation[0] = pose.rotation.x;
        o->rotation[1] = pose.rotation.y;
        o->rotation[2] = pose.rotation.z;
        o->rotation[3] = pose.rotation.w;
    }
}

int sweep__send_world_state(sweep_server *s, sweep__peer *p, sweep__world *w, uint32_t sequence)
{
    fill_wire(w);
    /* Over UDP as many movers per datagram as fit; over TCP as many as a
     * frame of the server's own maximum holds (a MoverTransform is 64
     * bytes; halving below covers the estimate). Each part is a whole
     * WorldState of the same tick. */
    size_t limit = p->tcp ? s->opt.max_frame : SWEEP_UDP_MAX_DATAGRAM;
    uint32_t chunk = p->tcp ? (s->opt.max_frame - 128u) / 64u : s->udp_max_movers;
    uint32_t start = 0;
    do {
        uint32_t left = w->mover_count - start;
        uint32_t k = left < chunk ? left : chunk;
        for (;;) {
            sweep_message m;
            memset(&m, 0, sizeof m);
            m.kind = SWEEP_MSG_WORLD_STATE;
            m.sequence = sequence;
            m.server_tick = w->tick;
            m.as.world_state.tick = w->tick;
            m.as.world_state.movers = k ? w->wire + start : NULL;
            m.as.world_state.count = k;
            m.as.world_state.mover_count = w->mover_count;
            int r = sweep__send_sized(s, p, &m, limit);
            if (r < 0)
                return -1;
            if (r == 0)
                break;
            if (k <= 1) {
                sweep__log(SWEEP_LOG_ERROR, "world_state_too_large", "world=%u limit=%zu", w->index, limit);
                return -1;
            }
            k = (k + 1) / 2;
        }
        start += k;
    } while (start < w->mover_count);
    return 0;
}

/* Sends the latest WorldState to each session of w whose interval came
 * round in the ticks (before, w->tick]: one per session per callback even
 * when a late callback ran several ticks. */
static void push_world_states(sweep__world *w, uint64_t before)
{
    sweep_server *s = w->server;
    for (sweep__session *ss = s->sessions; ss; ss = ss->next) {
        if (ss->world != w || ss->watch_every == 0)
            continue;
        if (w->tick / ss->watch_every == before / ss->watch_every)
            continue;
        sweep__peer p = sweep__session_peer(ss);
        sweep__send_world_state(s, &p, w, 0);
    }
}

void sweep__world_tick(sweep__world *w)
{
    sweep_server *s = w->server;
    w->tick++;
    if (w->rec)
        sweep__record_tick(w);
    s->capturing = w->rec || s->offline; /* a crushed entity's Despawned */
    tick_movers(w);
    s->capturing = 0;
    if (w->rec && w->tick % s->opt.record_hash_every == 0)
        sweep__record_hash(w);
}

uint64_t sweep__world_state_hash(const sweep__world *w)
{
    uint64_t h = sweep_hash_u64(SWEEP_HASH_INIT, w->tick);
    if (w->movers)
        h = sweep_movers_hash(w->movers, h);
    h = sweep_hash_u32(h, w->next_spawn);
    h = sweep_hash_u32(h, w->ent_count);
    for (uint32_t i = 0; i < w->ent_count; i++) {
        const sweep__entity *e = w->ents[i];
        h = sweep_hash_u32(h, e->id);
        h = sweep_hash_body(h, e->actor.position, e->actor.velocity, (uint32_t)e->actor.grounded);
        h = sweep_hash_vec3(h, e->radii);
        h = sweep_hash_double(h, e->max_speed);
        h = sweep_hash_double(h, e->step_height);
        h = sweep_hash_vec3(h, e->ground_normal);
        h = sweep_hash_u32(h, e->ground_material);
        h = sweep_hash_double(h, e->budget);
        h = sweep_hash_u64(h, e->budget_tick);
        h = sweep_hash_u32(h, (uint32_t)e->has_last);
        h = sweep_hash_u32(h, e->last_sequence);
        h = sweep_hash_u64(h, e->unflagged_until);
        h = sweep_hash_u32(h, e->ground_mover);
        h = sweep_hash_u32(h, e->touch_mover);
        h = sweep_hash_u32(h, e->moved_flags);
        h = sweep_hash_u32(h, e->moved_by);
        h = sweep_hash_u32(h, e->crowd_slot);
    }
    return h;
}

static void on_tick(uv_timer_t *t);

/* When the world's next tick is due (monotonic ns). */
static inline uint64_t next_due(const sweep__world *w)
{
    return w->start_ns + (w->tick + 1) * w->period_ns;
}

/* Arms the timer for the next due tick. */
static void schedule_next(sweep__world *w)
{
    uint64_t due = next_due(w);
    uint64_t now = uv_hrtime();
    uint64_t ms = due > now ? (due - now + 999999u) / 1000000u : 0;
    uv_update_time(w->timer.loop);
    uv_timer_start(&w->timer, on_tick, ms, 0);
}

/* Runs every tick due at t0 (at most SWEEP__TICK_CATCHUP of them), with
 * what follows a tick: the frame's end, the invariants, the figures and
 * the WorldStates. */
static void run_due(sweep__world *w, uint64_t t0)
{
    sweep_server *s = w->server;
    uint64_t before = w->tick;
    unsigned steps = 0;
    /* Moves that waited through a stall of the server this long meet a
     * budget filled to the bank at most, less than the time that passed:
     * honest players are cut (TimeBudget) as a lag switch would be. Said,
     * so that such a cut is not taken for a client's fault. */
    uint64_t due = next_due(w);
    double late = due < t0 ? (double)(t0 - due) / 1e9 : 0.0;
    if (late > s->opt.time_bank - 2 * w->period_s && late > w->period_s && !s->stopping)
        sweep__log(SWEEP_LOG_WARN, "tick_late",
                   "world=%u late_s=%.3f time_bank=%g", w->index, late,
                   s->opt.time_bank);
    /* The ticks' time is measured from when they start, not from t0: a
     * request's t0 (sweep__world_catch_up) is its receive batch's clock
     * reading, which the requests handled before it have made old, and
     * their time is not the ticks'. */
    uint64_t begin = 0;
    while (next_due(w) <= t0 && steps < SWEEP__TICK_CATCHUP) {
        if (steps == 0)
            begin = uv_hrtime();
        sweep__world_tick(w);
        steps++;
    }
    if (steps) {
        sweep__record_tick_end(w);
        sweep__check_invariants(s);
    }
    if (steps == SWEEP__TICK_CATCHUP && next_due(w) <= t0) {
        uint64_t behind = (t0 - w->start_ns) / w->period_ns - w->tick;
        sweep__log(SWEEP_LOG_WARN, "tick_overrun", "world=%u skipped=%llu", w->index, (unsigned long long)behind);
        w->start_ns = t0 - w->tick * w->period_ns; /* re-anchor: tick numbers stay contiguous */
    }
    if (steps)
        sweep__stats_record_ticks(&s->stats, uv_hrtime() - begin, steps);
    if (steps && !s->stopping)
        push_world_states(w, before);
}

/* Runs every tick that is due, then re-arms. */
static void on_tick(uv_timer_t *t)
{
    sweep__world *w = t->data;
    run_due(w, uv_hrtime());
    schedule_next(w);
}

void sweep__world_catch_up(sweep__world *w, uint64_t now)
{
    /* Before the timer's first arming (a world not started) nothing is due;
     * an offline server's ticks are the log's. */
    if (!w->timer_open || w->server->offline)
        return;
    if (next_due(w) <= now)
        run_due(w, now);
}

void sweep__worlds_start(sweep_server *s)
{
    uint64_t now = uv_hrtime();
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__world *w = &s->worlds[i];
        uv_timer_init(&s->loop, &w->timer);
        w->timer.data = w;
        w->timer_open = 1;
        w->start_ns = now;
        w->tick = 0;
        uv_update_time(&s->loop);
        uv_timer_start(&w->timer, on_tick, (w->period_ns + 999999u) / 1000000u, 0);
    }
}

void sweep__worlds_stop(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__world *w = &s->worlds[i];
        if (w->timer_open) {
            uv_timer_stop(&w->timer);
            uv_close((uv_handle_t *)&w->timer, NULL);
            w->timer_open = 0;
        }
    }
}

void sweep__worlds_free(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__world *w = &s->worlds[i];
        if (w->world)
            sweep_world_destroy(w->world);
        sweep_movers_destroy(w->movers);
        sweep_crowd_destroy(w->crowd);
        free(w->mover_blocked);
        free(w->wire);
        free(w->ents);
        free(w->bodies);
        sweep_level_free(&w->level);
    }
    free(s->worlds);
    s->worlds = NULL;
    s->world_count = 0;
}

/* Map i is world i / count of thread i % count (worlds_load). */
static sweep__world *world_at(const sweep__group *g, unsigned i, unsigned *owner)
{
    *owner = i % g->count;
    return &g->servers[*owner]->worlds[i / g->count];
}

sweep__world *sweep__world_find(sweep_server *s, const char *name, unsigned *owner)
{
    const sweep__group *g = s->group;
    unsigned n = s->opt.map_count;
    if (!name || !*name)
        return n ? world_at(g, 0, owner) : NULL;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(world_at(g, i, owner)->level.name, name) == 0)
            return world_at(g, i, owner);
    for (unsigned i = 0; i < n; i++)
        if (strcmp(world_at(g, i, owner)->stem, name) == 0)
            return world_at(g, i, owner);
    return NULL;
}
