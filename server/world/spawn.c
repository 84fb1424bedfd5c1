/*
 * spawn.c - placing a new entity: where, how big, and whether the place is
 * free.
 *
 * A player never chooses: Spawn.spawn_point N > 0 is the map's N-th point,
 * 0 lets the server pick, round robin over the map's points from the one
 * after the last it gave (per world, so the choice depends on the order of
 * Spawns only), skipping points that are not free. The radii are the
 * map's. What a player asked and did not get is named, not refused: a
 * position other than the point given (SpawnPosition), radii other than
 * the map's (SpawnRadii), both sent as zeros by a client that asks for
 * nothing. The server role places where it says (or at the N-th point,
 * its position then named SpawnPosition if it sent one) with the radii it
 * says (zeros: the map's), also when it asks that the entity be governed
 * by the player rules (Spawn.player: a game server relaying one of its
 * players): then its moves are a player's (moves.c). The limits of raw
 * moves (max_speed, step_height) may only tighten the world's: a looser
 * one is the world's, and any one asked for a governed entity (which
 * walks by the map's rules) is ignored, each named (SpawnSpeed,
 * SpawnStep), so that no field of a Spawn is dropped silently.
 *
 * A place is free when the ellipsoid overlaps neither the level, nor a
 * mover at its current pose, nor (with --players-block) another entity
 * (place.c, the rule a Teleport's target shares). A place that is not
 * free is refused with SpawnRefused naming what is in the way.
 *
 * A new entity is at rest, not grounded, with a full time bank.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server/world/world_impl.h"

static void send_spawned(const sweep__world *w, const sweep__request *rq, uint32_t sequence, const sweep__entity *e,
                         uint32_t rules, uint32_t point)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_SPAWNED;
    m.sequence = sequence;
    m.server_tick = w->tick;
    m.as.spawned.entity = e->id;
    m.as.spawned.position = e->st.m.actor.position;
    m.as.spawned.radii = e->st.m.radii;
    m.as.spawned.rules = rules;
    m.as.spawned.spawn_point = point;
    m.as.spawned.player = e->player && rq->owner->role == SWEEP_WIRE_ROLE_SERVER;
    sweep__answer(rq, &m);
}

static int is_zero(sweep_vec3 v)
{
    return v.x == 0.0 && v.y == 0.0 && v.z == 0.0;
}

static int same(sweep_vec3 a, sweep_vec3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* The rule bit (of `bit`) when a Spawn limit asked (0: none) is not what
 * the entity gets: a governed entity walks by the map's rules, so any
 * limit it asks is ignored (amount: the limit asked); another gets the
 * world's in place of a looser one (amount: how much looser). */
static uint32_t limit_not_taken(double asked, double taken, int governed, unsigned bit, sweep__rule_amounts *a)
{
    if (asked == 0.0 || (!governed && asked == taken))
        return 0;
    a->v[bit] = governed ? asked : asked - taken;
    return 1u << bit;
}

void sweep__spawn(sweep__world *w, const sweep__request *rq, const sweep_message *m)
{
    sweep__owner *ss = rq->owner;
    const sweep_msg_spawn *sp = &m->as.spawn;
    const sweep_level *lv = &w->level;
    const sweep_config *cfg = &lv->config;
    uint32_t seq = m->sequence;
    int player = ss->role != SWEEP_WIRE_ROLE_SERVER;
    /* Governed by the player rules: every player's, and the server role's
     * that asks (its placement stays the server role's). */
    int governed = player || sp->player;

    /* UDP may deliver a Spawn twice: the same sequence gets the same entity. */
    if (ss->udp && ss->has_spawn && ss->spawn_sequence == seq) {
        sweep__entity *e = sweep__world_entity(w, ss, ss->spawn_entity);
        if (e) {
            send_spawned(w, rq, seq, e, ss->spawn_rules, ss->spawn_point);
            return;
        }
    }
    if (ss->entity_count >= ss->max_entities) {
        if (player)
            sweep__refuse(rq, SWEEP_WIRE_TOO_MANY_ENTITIES, seq, 0, "a session may own at most %u entities",
                          ss->max_entities);
        else
            sweep__refuse(rq, SWEEP_WIRE_TOO_MANY_ENTITIES, seq, 0,
                          "a session of the server role may own at most %u entities (--max-entities-server)",
                          ss->max_entities);
        return;
    }
    if (w->ent_count >= w->history_entities) {
        sweep__refuse(rq, SWEEP_WIRE_TOO_MANY_ENTITIES, seq, 0,
                      "the world keeps the poses of at most %u entities (--history-entities)", w->history_entities);
        return;
    }
    char why_full[200];
    if (rq->sink->mem_fits && !rq->sink->mem_fits(rq->sink->ctx, SWEEP__ENTITY_BYTES, why_full, sizeof why_full)) {
        /* The process's room (every world's entities, every connection's
         * buffers) is no part of the world a log keeps: a replay would
         * spawn it. Nothing changed, so the log forgets the request. */
        if (rq->sink->dropped)
            rq->sink->dropped(rq->sink->ctx);
        sweep__refuse(rq, SWEEP_WIRE_TOO_MANY_ENTITIES, seq, 0, "%s: no room for another entity", why_full);
        return;
    }
    if (!sweep_v3_isfinite(sp->radii) || !sweep_v3_isfinite(sp->position) || !isfinite(sp->max_speed) ||
        !isfinite(sp->step_height)) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_NUMBER, seq, 0, "Spawn holds a NaN or infinite number");
        return;
    }
    if (sp->max_speed < 0.0) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_VELOCITY, seq, 0, "max_speed %g is negative", sp->max_speed);
        return;
    }
    if (sp->step_height < 0.0) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_NUMBER, seq, 0, "step_height %g is negative", sp->step_height);
        return;
    }
    uint32_t rules = 0;
    sweep__rule_amounts amounts;
    sweep__rule_amounts_init(&amounts);
    sweep_vec3 r = sp->radii;
    if (player || is_zero(r)) {
        if (player && !is_zero(r) && !same(r, lv->default_radii)) {
            rules |= SWEEP_WIRE_RULE_SPAWN_RADII;
            sweep_vec3 d = sweep_v3_sub(r, lv->default_radii);
            amounts.v[SWEEP_WIRE_RULE_SPAWN_RADII_BIT] = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
        }
        r = lv->default_radii;
    }
    /* The same radius rule as every move, so a spawned entity can move. */
    if (!sweep_config_radii_ok(cfg, r)) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_RADII, seq, 0,
                          "radii (%g, %g, %g) outside [%g, %g] or more anisotropic than %g", r.x, r.y, r.z,
                          cfg->min_radius, cfg->max_radius, cfg->max_anisotropy);
        return;
    }
    if (sp->spawn_point > lv->spawn_count) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_POSITION, seq, 0, "spawn point %u asked, the map has %u",
                          sp->spawn_point, lv->spawn_count);
        return;
    }

    /* Where: candidates in the order they are tried. */
    uint32_t first, tries;
    if (sp->spawn_point > 0) {
        first = sp->spawn_point - 1;
        tries = 1;
    } else if (player) {
        if (lv->spawn_count == 0) {
            sweep__refuse(rq, SWEEP_WIRE_SPAWN_REFUSED, seq, 0,
                              "the map has no spawn points, so a player cannot be placed");
            return;
        }
        first = w->next_spawn % lv->spawn_count;
        tries = lv->spawn_count;
    } else {
        first = UINT32_MAX; /* the server role's own position */
        tries = 1;
    }
    sweep_vec3 q = sp->position;
    uint32_t point = 0;
    char what[160] = "";
    sweep__obstacle ob = {0};
    int placed = 0;
    for (uint32_t k = 0; k < tries && !placed; k++) {
        if (first != UINT32_MAX) {
            point = (first + k) % lv->spawn_count + 1;
            q = lv->spawns[point - 1];
        }
        if (!sweep_config_contains(cfg, q)) {
            sweep__refuse(rq, SWEEP_WIRE_BAD_POSITION, seq, 0, "position beyond the world limit %g",
                              cfg->max_coordinate);
            return;
        }
        sweep_status st;
        int o = sweep__world_obstacle(w, NULL, q, r, &ob, &st);
        if (o < 0) {
            sweep__refuse(rq, sweep_wire_code_from_status(st), seq, 0, "Spawn: %s", sweep_status_message(st));
            return;
        }
        placed = o == 0;
    }
    if (!placed) {
        /* "Occupied" is said of an entity only: a point inside the level
         * or a mover is the map's fault, and reads so. */
        char why[320];
        sweep__obstacle_name(w, &ob, what, sizeof what);
        if (ob.kind == SWEEP__OBSTACLE_ENTITY)
            snprintf(why, sizeof why, "spawn point %u is occupied by %s", point, what);
        else if (ob.kind == SWEEP__OBSTACLE_MOVER && ob.inside)
            snprintf(why, sizeof why, "spawn point %u at (%g, %g, %g) lies in %s", point, q.x, q.y, q.z, what);
        else if (ob.kind == SWEEP__OBSTACLE_MOVER)
            snprintf(why, sizeof why, "spawn point %u at (%g, %g, %g) is blocked by %s", point, q.x, q.y, q.z, what);
        else
            snprintf(why, sizeof why, "spawn point %u is inside the level's geometry at (%g, %g, %g) (%striangle %u)",
                     point, q.x, q.y, q.z, ob.inside ? "behind all the faces of a solid, " : "", ob.triangle);
        if (tries > 1)
            sweep__refuse(rq, SWEEP_WIRE_SPAWN_REFUSED, seq, 0,
                              "no spawn point of the map (%u) is free; the last tried: %s", tries, why);
        else if (point)
            sweep__refuse(rq, SWEEP_WIRE_SPAWN_REFUSED, seq, 0, "%s", why);
        else
            sweep__refuse(rq, SWEEP_WIRE_SPAWN_REFUSED, seq, 0,
                              "(%g, %g, %g) with radii (%g, %g, %g) overlaps %s", q.x, q.y, q.z, r.x, r.y, r.z, what);
        return;
    }
    /* The server role's position too is not taken when it names a point. */
    if (!is_zero(sp->position) && !same(sp->position, q)) {
        rules |= SWEEP_WIRE_RULE_SPAWN_POSITION;
        amounts.v[SWEEP_WIRE_RULE_SPAWN_POSITION_BIT] = sweep_v3_len(sweep_v3_sub(sp->position, q));
    }
    double max_speed = sweep__spawn_limit(sp->max_speed, cfg->max_speed);
    double step_height = sweep__spawn_limit(sp->step_height, cfg->step_height);
    rules |= limit_not_taken(sp->max_speed, max_speed, governed, SWEEP_WIRE_RULE_SPAWN_SPEED_BIT, &amounts);
    rules |= limit_not_taken(sp->step_height, step_height, governed, SWEEP_WIRE_RULE_SPAWN_STEP_BIT, &amounts);

    const char *why = "";
    sweep__entity *e = sweep__owner_spawn(rq, &why);
    if (!e) {
        sweep__owner_log(ss, rq->now, SWEEP_LOG_ERROR, "spawn_failed", "session=%llu error=\"%s\"",
                         (unsigned long long)ss->id, why);
        /* Nothing changed, and a replay would not fail: the log forgets it. */
        if (rq->sink->dropped)
            rq->sink->dropped(rq->sink->ctx);
        sweep__refuse(rq, SWEEP_WIRE_INTERNAL, seq, 0, "Spawn: %s", why);
        return;
    }
    if (player && sp->spawn_point == 0)
        w->next_spawn = point % lv->spawn_count; /* the point after the one given */
    sweep__entity_state_init(&e->st, q, r, max_speed, step_height);
    if (player)
        sweep__entity_spawned_at(&e->st, seq);
    e->player = governed;
    e->budget = w->opt.time_bank;
    e->budget_tick = w->tick;
    sweep__world_place_entity(w, e);
    ss->has_spawn = 1;
    ss->spawn_sequence = seq;
    ss->spawn_entity = e->id;
    ss->spawn_rules = rules;
    ss->spawn_point = point;
    sweep__owner_log(ss, rq->now, SWEEP_LOG_DEBUG, "spawn", "session=%llu entity=%u spawn_point=%u",
                     (unsigned long long)ss->id, e->id, point);
    if (rules)
        sweep__rules_report(rq, e->id, rules, &amounts);
    send_spawned(w, rq, seq, e, rules, point);
}
