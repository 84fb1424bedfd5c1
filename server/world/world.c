/*
 * world.c - a world (world.h): its map loaded with its core world, content
 * hash and movers, its entities in spawn order, its tick and its state
 * hash.
 *
 * One tick (tick_movers): every entity of the world becomes a sweep_body
 * (its position, radii, and the mover its last move stood on and touched),
 * in spawn order, and sweep_movers_tick advances the movers, carrying and
 * pushing those bodies; positions are written back (only positions: a
 * carried or pushed entity keeps the velocity and grounded flag of its
 * last move, which its next move starts from), each entity remembers
 * what carried or pushed it for its next MoveResult, and crushed entities
 * are removed, their owners told with an unasked Despawned. What a tick
 * does depends on the tick number and the entities only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "maps/loader.h"
#include "server/world/alloc.h"
#include "server/world/world_impl.h"

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

sweep__world *sweep__world_open(const char *path, const sweep__world_options *opt, unsigned index, char *err,
                                size_t errlen)
{
    sweep__world *w = sweep__calloc(1, sizeof *w);
    if (!w || sweep__entity_table_init(&w->entities) != 0) {
        free(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->opt = *opt;
    w->index = index;
    w->results = sweep__calloc(opt->max_batch ? opt->max_batch : 1, sizeof *w->results);
    uint32_t nb = opt->max_batch ? opt->max_batch : 1;
    w->command_results = sweep__calloc(nb, sizeof *w->command_results);
    w->command_texts = sweep__calloc(nb, sizeof *w->command_texts);
    w->killed = sweep__calloc(nb, sizeof *w->killed);
    if (!w->results || !w->command_results || !w->command_texts || !w->killed) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    char msg[512];
    sweep_map_load_info info;
    if (sweep_map_load(path, &w->level, &info, msg, sizeof msg) != SWEEP_OK) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    if (sweep_map_build_world(&w->level, &w->world, NULL, msg, sizeof msg) != SWEEP_OK) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    if (sweep_level_content_hash(&w->level, &w->hash) != SWEEP_OK) {
        snprintf(err, errlen, "%s: cannot hash the map", path);
        goto fail;
    }
    /* The rules are the map's, but sweep_act refuses rules that do not
     * fit the config: better to say so now than on every move. */
    const sweep_level *lv = &w->level;
    if (sweep_rules_check(&lv->rules) != SWEEP_OK || !(lv->rules.speed_limit <= lv->config.max_speed)) {
        snprintf(err, errlen,
                 "%s: the map's movement rules are out of range (walk_speed %g, speed_limit %g, max_speed %g)",
                 path, lv->rules.walk_speed, lv->rules.speed_limit, lv->config.max_speed);
        goto fail;
    }
    if (!(lv->correction_threshold >= 0.0 && isfinite(lv->correction_threshold))) {
        snprintf(err, errlen, "%s: correction_threshold %g is not a distance", path, lv->correction_threshold);
        goto fail;
    }
    sweep__world_wish_up(w);
    w->tick_rate = opt->tick_rate > 0.0 ? opt->tick_rate : w->level.tick_rate;
    if (!(w->tick_rate > 0.0) || w->tick_rate > 10000.0)
        w->tick_rate = 60.0;
    w->period_s = 1.0 / w->tick_rate;
    if (opt->time_bank < w->period_s)
        sweep__log(SWEEP_LOG_WARN, "time_bank_short",
                   "world=%u time_bank=%g tick_period=%g: a player's entity cannot bank one tick's time, so "
                   "every move asking a tick's worth is cut", index, opt->time_bank, w->period_s);
    if (build_movers(w, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    if (opt->players_block && sweep_crowd_create(64, &w->crowd) != SWEEP_OK) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    if (sweep__world_history_open(w, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    return w;
fail:
    sweep__world_close(w);
    return NULL;
}

void sweep__world_close(sweep__world *w)
{
    if (!w)
        return;
    if (w->world)
        sweep_world_destroy(w->world);
    sweep_movers_destroy(w->movers);
    sweep_crowd_destroy(w->crowd);
    sweep__entity_table_free(&w->entities);
    sweep__entity_pool_free(&w->pool);
    free(w->mover_blocked);
    free(w->wire);
    free(w->ents);
    free(w->bodies);
    free(w->results);
    free(w->command_results);
    free(w->command_texts);
    free(w->killed);
    sweep__world_history_close(w);
    sweep_level_free(&w->level);
    free(w);
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
    w->hist_order_stale = 1;
    e->world = w;
    return 0;
}

void sweep__world_place_entity(sweep__world *w, sweep__entity *e)
{
    /* Radii and positions were checked on the way in, so this cannot fail. */
    if (w->crowd && e->crowd_slot != SWEEP_NO_BODY)
        sweep_crowd_set(w->crowd, e->crowd_slot, e->st.m.actor.position, e->st.m.radii);
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
            w->hist_order_stale = 1;
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
static void crush(sweep__world *w, sweep__entity *e, uint32_t mover, const sweep__world_sink *sink)
{
    sweep__owner *owner = e->owner;
    uint32_t id = e->id;
    char q[96];
    sweep__log(SWEEP_LOG_INFO, "mover_crushed", "world=%u tick=%llu mover=%u name=%s entity=%u session=%llu", w->index,
               (unsigned long long)w->tick, sweep__world_mover_id(w, mover), mover_name(w, mover, q, sizeof q), id,
               (unsigned long long)owner->id);
    sweep__owner_despawn(owner, e, sink);
    w->counts.crushed_total++;
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_DESPAWNED;
    m.sequence = 0;
    m.server_tick = w->tick;
    m.as.despawned.entity = id;
    m.as.despawned.crushed_by = sweep__world_mover_id(w, mover);
    sink->message(sink->ctx, owner, &m);
}

/* One tick of the world's movers (see the file comment). Runs after
 * w->tick was advanced, so logs and pushes name the tick just done. */
static void tick_movers(sweep__world *w, const sweep__world_sink *sink)
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
        if (i + 8 < n)
            sweep__entity_prefetch(w->ents[i + 8]);
        w->bodies[i] = sweep__entity_body(&w->ents[i]->st);
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
        const sweep_body *b = &w->bodies[i];
        /* A body the movers left alone (no flag) is where its entity is,
         * and so is its shell in the crowd (every move, command and spawn
         * places it): nothing to write back, and most ticks most entities
         * are not visited at all. */
        if (!b->flags)
            continue;
        sweep__entity *e = w->ents[i];
        if (sweep__entity_take_body(&e->st, b))
            sweep__entity_unflag(w, e);
        sweep__world_place_entity(w, e);
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
            crush(w, w->ents[i], w->bodies[i].mover, sink);
            crushed--;
        }
    }
}

const sweep_wire_mover *sweep__world_movers_wire(sweep__world *w)
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
        o->path_tick = st.path_tick;
        o->wait = st.wait;
        o->dir = st.dir;
    }
    return w->wire;
}

int sweep__world_mover_position(const sweep__world *w, uint32_t index, double position[3])
{
    if (index >= w->mover_count)
        return -1;
    sweep_mover_pose pose;
    sweep_movers_get(w->movers, index, &pose, NULL);
    position[0] = pose.position.x;
    position[1] = pose.position.y;
    position[2] = pose.position.z;
    return 0;
}

void sweep__world_tick(sweep__world *w, const sweep__world_sink *sink)
{
    w->tick++;
    if (sink->tick)
        sink->tick(sink->ctx, w->tick);
    tick_movers(w, sink);
    sweep__world_history_push(w);
    sweep__world_check(w);
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
        h = sweep_hash_body(h, e->st.m.actor.position, e->st.m.actor.velocity, (uint32_t)e->st.m.actor.grounded);
        h = sweep_hash_vec3(h, e->st.m.radii);
        h = sweep_hash_double(h, e->st.m.max_speed);
        h = sweep_hash_double(h, e->st.m.step_height);
        h = sweep_hash_vec3(h, e->st.ground_normal);
        h = sweep_hash_u32(h, e->st.ground_material);
        h = sweep_hash_double(h, e->budget);
        h = sweep_hash_u64(h, e->budget_tick);
        h = sweep_hash_u32(h, (uint32_t)e->st.has_last);
        h = sweep_hash_u32(h, e->st.last_sequence);
        h = sweep_hash_u64(h, e->unflagged_until);
        h = sweep_hash_u32(h, e->st.ground_mover);
        h = sweep_hash_u32(h, e->st.touch_mover);
        h = sweep_hash_u32(h, e->st.moved_flags);
        h = sweep_hash_u32(h, e->st.moved_by);
        h = sweep_hash_u32(h, e->crowd_slot);
        /* Hashed only where set: a world without governed entities of the
         * server role hashes as it did before they existed. */
        if (e->player && e->owner->role == SWEEP_WIRE_ROLE_SERVER)
            h = sweep_hash_u32(h, 0x706c6179u);
        /* Likewise lost moves counted from a player's Spawn, until its
         * first move. */
        if (e->st.spawn_based)
            h = sweep_hash_u32(h, 0x73706e62u);
        /* Likewise a gap's grace: an entity that never lost a move hashes
         * as before lost moves had a grace of their own. */
        if (e->st.gap_grace_until) {
            h = sweep_hash_u64(h, e->st.gap_grace_until);
            h = sweep_hash_u64(h, e->st.jump_next);
        }
        /* Likewise a claims' grace, which lost moves or a forgiven cut
         * open (the latter without a gap: on its own). */
        if (e->claim_grace_until) {
            h = sweep_hash_u64(h, e->claim_grace_until);
            h = sweep_hash_u64(h, e->gap_tick);
            h = sweep_hash_double(h, e->gap_reach);
        }
        /* Likewise the tick a mover, a body or a command last moved it. */
        if (e->unflag_tick) {
            h = sweep_hash_u64(h, e->unflag_tick);
            h = sweep_hash_u64(h, e->unflag_kept_until);
        }
        /* Likewise a network's stall after a silence. */
        if (e->stall_until) {
            h = sweep_hash_u64(h, e->stall_until);
            h = sweep_hash_u64(h, e->stall_next);
            h = sweep_hash_double(h, e->stall_forgive);
        }
    }
    return h;
}

