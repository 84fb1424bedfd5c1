/*
 * moves.c - one Move of one entity, in the order a predicting client must
 * follow to get the same bits (server/README.md repeats it):
 *
 *   1. the entity must be the session's own (else UnknownEntity);
 *   2. a sequence not above the last applied one is not applied again:
 *      its kept result is answered (the last SWEEP__KEPT_RESULTS, or as
 *      many of them as fit: kept.h), or,
 *      kept no longer or never applied, it is dropped without an answer;
 *   3. the mode: Walk for anyone; Fly and Noclip only for the server role's
 *      own entities on a server with --allow-free-move on (else NotAllowed,
 *      counted as FreeMove: a player's, and an entity the server role
 *      spawned with Spawn.player, are Walk only); any other value
 *      NotAllowed;
 *   4. the numbers: velocity and claimed_position finite (BadNumber), a
 *      claimed_position within the coordinate limit (BadPosition), a
 *      Walk wish of finite length (BadVelocity), 0 < dt <= max_dt (BadDt);
 *   5. time (players' entities, and the server role's spawned with
 *      Spawn.player: a game server relaying its players): the budget is
 *      credited with the tick period and the clocks' drift allowance
 *      (SWEEP__CLOCK_DRIFT, 0.5% of it) for each tick since it was last
 *      credited, up to --time-bank; a dt
 *      within it (1 us of slack for rounding, paid back from the next
 *      credit) is granted whole, a larger one gets what the budget holds
 *      (TimeBudget, time_excess); the server role's own are granted dt;
 *   6. the motion, from the entity's actor (position where its last move
 *      or since then a mover left it, velocity and grounded of its last
 *      move), over the world, its movers at their poses of the last
 *      completed tick and, with --players-block, the other entities'
 *      shells:
 *        Walk    sweep_act(space, world config, map rules, standing radii,
 *                actor, {velocity, buttons & (SWEEP_WISH_JUMP |
 *                SWEEP_WISH_CROUCH)}, granted dt); with nothing granted no
 *                step runs and the actor stays; the entity's shape becomes
 *                its stance's (core/stance.h);
 *        Fly     sweep_move_in with velocity as given, the entity's Spawn
 *                limits, SWEEP_INPUT_GROUNDED from the actor; the actor
 *                takes the result's position, velocity and ground;
 *        Noclip  position + velocity * granted dt, no collision, within
 *                the coordinate limit; velocity kept, not grounded;
 *      a move whose end is beyond the coordinate limit is refused
 *      (BadPosition) and the entity stays where it was;
 *   7. report: correction = |claimed - position| when claimed, corrected
 *      (and rule Correction) when above the map's correction_threshold
 *      (a threshold of 0: when the claim differs from the position in any
 *      bit, the sign of a zero included),
 *      except for half a second of ticks after a mover carried or pushed
 *      it or its move met one, its move met another entity's shell (with
 *      --players-block: a client is not told where the others are), or
 *      an EntityCommand moved it (a client claims where its last
 *      WorldState had it; sweep__entity_unflag),
 *      and for half a second after moves of the entity were lost (its
 *      sequence skipped some; before its first move, counted from its
 *      player Spawn's, sweep__entity_spawned_at) a claim within that
 *      gap's reach: the
 *      threshold and what speed_limit covers in the time the lost moves
 *      can have taken (their number times dt, at most the ticks since
 *      the entity's previous move and 0.1 s, and at most 0.5 s), and the
 *      height of a jump (one of them may have jumped); there a jump
 *      refused off
 *      the ground is not named Jump, at most one per 2 s on average
 *      (entity_motion.h, sweep__entity_gap);
 *      Vertical when a Walk wish had a part along up beyond the rules'
 *      tolerance (SWEEP_RULE_TOLERANCE of the walk speed) and no step of
 *      the move swam or climbed (which use it); Buttons when the
 *      buttons held bits the mode does not read (crouch on a map without
 *      crouching); the stance and whether the one asked had no room
 *      (crouched, stance_blocked); what the movers did
 *      since the previous move; what the map's volumes did (launched,
 *      teleported, hurt, killed, entered, left, the liquid and ladder:
 *      sweep_act's report); the
 *      rules counted and logged;
 *   8. a Walk move that ended in a kill volume removes its entity; the
 *      owner is told after the answer (sweep__world_tell_killed).
 *
 * A refused move (an Error) changes nothing, not even the budget.
 *
 * Steps 6 and 7's rules of an entity (the motion, what it keeps, the
 * result's fields from them) are entity_motion.h's, which the core depth
 * of a replay (client-sdk/replay_core.c) runs too; client-sdk/predict.c
 * follows the whole order: a change here changes it too, and the golden
 * session logs of tests/replay/ say so.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/bytes.h"
#include "protocol/from_core.h"
#include "server/world/entity_motion.h"
#include "server/world/kept.h"
#include "server/world/world_impl.h"

/* Rounding slack of the time budget, seconds: a move asking its whole
 * budget must not be cut by the last bits of a sum of tick periods. */
#define SWEEP__TIME_SLACK 1e-6

/* The budget credited up to the world's current tick, capped at the bank:
 * each tick its period and the clocks' drift allowance (world.h), so that
 * an honest client whose clock runs a little fast never meets the bottom. */
static void credit(sweep__entity *e, const sweep__world *w, double bank)
{
    if (w->tick > e->budget_tick) {
        double b = e->budget + (double)(w->tick - e->budget_tick) * w->period_s * (1.0 + SWEEP__CLOCK_DRIFT);
        e->budget = b < bank ? b : bank;
        e->budget_tick = w->tick;
    }
}

/* Whether a move stood on or touched another entity's shell. */
static int meets_body(const sweep_move_result *res)
{
    if (res->ground_body != SWEEP_NO_BODY)
        return 1;
    for (uint32_t i = 0; i < res->contact_count; i++)
        if (res->contacts[i].body != SWEEP_NO_BODY)
            return 1;
    return 0;
}

void sweep__world_wish_up(sweep__world *w)
{
    /* The unit vector against gravity, or zero without gravity (the
     * core's up). */
    const sweep_config *cfg = &w->level.config;
    double g = sweep_v3_len(cfg->gravity);
    w->wish_up = g > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / g) : sweep_v3(0, 0, 0);
}

static int refuse_mode(const sweep__request *rq, const sweep_msg_move *mv, const sweep__entity *e)
{
    sweep__rule_amounts a;
    sweep__rule_amounts_init(&a);
    a.v[SWEEP_WIRE_RULE_FREE_MOVE_BIT] = mv->mode;
    sweep__rules_report(rq, e->id, SWEEP_WIRE_RULE_FREE_MOVE, &a);
    const char *name = sweep_wire_mode_name(mv->mode);
    if (rq->owner->role != SWEEP_WIRE_ROLE_SERVER)
        sweep__refuse(rq, SWEEP_WIRE_NOT_ALLOWED, mv->sequence, e->id,
                      "rule FreeMove: a player moves in Walk mode only; %s moves need the server role", name);
    else if (e->player)
        sweep__refuse(rq, SWEEP_WIRE_NOT_ALLOWED, mv->sequence, e->id,
                      "rule FreeMove: entity %u is governed by the player rules (Spawn.player): Walk mode only; %s "
                      "moves are for the server role's own entities",
                      e->id, name);
    else
        sweep__refuse(rq, SWEEP_WIRE_NOT_ALLOWED, mv->sequence, e->id,
                      "rule FreeMove: %s moves need a server started with --allow-free-move on", name);
    return -1;
}

void sweep__move_prefetch(const sweep__world *w, const sweep_msg_move *mv, int kept)
{
    const sweep__entity *e = sweep__entity_table_find(&w->entities, mv->entity);
    if (!e)
        return;
    if (!kept) {
        sweep__entity_prefetch(e);
        return;
    }
    /* Its head was asked for a move earlier, so the ring's place is at hand. */
    sweep__kept_prefetch(e->kept);
}

void sweep__entity_unflag(const sweep__world *w, sweep__entity *e)
{
    /* Enough for the answer that shows the change to reach the client,
     * and longer while its claims are still off (keep_open). */
    uint64_t grace = (uint64_t)(w->tick_rate * 0.5 + 0.5);
    e->unflagged_until = w->tick + (grace ? grace : 1);
    e->unflag_kept_until = e->unflagged_until;
    e->unflag_tick = w->tick;
}

/* A cut of `cut` seconds went unnamed after a stall of the network
 * (world.h). The first starts the pace of one such stall in
 * SWEEP__STALL_EVERY_S. Its client predicted the whole move and claims
 * that until it hears, so the cut opens a claims' grace as lost moves do,
 * reaching what speed_limit covers in the time cut (added up over the
 * stall's cuts, at most a bank's worth) and a jump's height, and a
 * refused Jump's window (sweep__entity_cut_forgiven). */
static void forgive_cut(sweep__entity *e, const sweep__world *w, double cut, double rise)
{
    e->stall_forgive -= cut;
    if (w->tick >= e->stall_next)
        e->stall_next = w->tick + sweep__ticks_of(SWEEP__STALL_EVERY_S, w->tick_rate);
    double reach = w->level.rules.speed_limit * cut, most = w->level.rules.speed_limit * SWEEP__GAP_GRACE_S;
    if (w->tick < e->claim_grace_until)
        reach += e->gap_reach - rise;
    e->gap_reach = (reach < most ? reach : most) + rise;
    e->gap_tick = w->tick;
    uint64_t until = w->tick + sweep__ticks_of(SWEEP__GAP_GRACE_S, w->tick_rate);
    e->claim_grace_until = until > e->claim_grace_until ? until : e->claim_grace_until;
    sweep__entity_cut_forgiven(&e->st, w->tick, w->tick_rate);
}

/* A claim's grace opened at tick `opened` has just forgiven a claim that
 * is off: its client has not heard of what put it off yet (a round trip
 * after the server), so the grace stays open another half second from
 * now, up to SWEEP__CLAIM_GRACE_MAX_S after it opened. */
static void keep_open(uint64_t *until, const sweep__world *w, uint64_t opened)
{
    uint64_t later = w->tick + sweep__ticks_of(SWEEP__GAP_GRACE_S, w->tick_rate);
    uint64_t most = opened + sweep__ticks_of(SWEEP__CLAIM_GRACE_MAX_S, w->tick_rate);
    later = later < most ? later : most;
    if (later > *until)
        *until = later;
}

int sweep__apply_move(sweep__world *w, const sweep__request *rq, const sweep_msg_move *mv, sweep_msg_move_result *out)
{
    sweep__owner *ss = rq->owner;
    sweep__entity *e = sweep__own_entity(w, rq, mv->entity, mv->sequence);
    if (!e)
        return -1;
    if (e->st.has_last && mv->sequence <= e->st.last_sequence) {
        if (sweep__kept_get(e->kept, mv->sequence, out))
            return 0; /* a resend: the answer it already had */
        w->counts.moves_ignored++;
        sweep__owner_log(ss, rq->now, SWEEP_LOG_DEBUG, "move_ignored", "session=%llu entity=%u sequence=%u last=%u",
                         (unsigned long long)ss->id, e->id, mv->sequence, e->st.last_sequence);
        return 1;
    }
    const sweep_config *wcfg = &w->level.config;
    /* Raw and unbudgeted: the server role's own entities; one it spawned
     * for a player (Spawn.player) moves by the player rules. */
    int server = ss->role == SWEEP_WIRE_ROLE_SERVER && !e->player;

    if (mv->mode >= SWEEP_WIRE_MODE_COUNT) {
        sweep__refuse(rq, SWEEP_WIRE_NOT_ALLOWED, mv->sequence, e->id,
                          "mode %u is not a MoveMode (Walk 0, Fly 1, Noclip 2)", (unsigned)mv->mode);
        return -1;
    }
    if (mv->mode != SWEEP_WIRE_MODE_WALK && !(server && w->opt.allow_free_move))
        return refuse_mode(rq, mv, e);
    if (!sweep_v3_isfinite(mv->velocity) || !isfinite(mv->dt)) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_NUMBER, mv->sequence, e->id, "move of entity %u: %s", e->id,
                          sweep_status_message(SWEEP_E_NONFINITE));
        return -1;
    }
    if (mv->has_claimed_position && !sweep_v3_isfinite(mv->claimed_position)) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_NUMBER, mv->sequence, e->id, "claimed_position is not finite");
        return -1;
    }
    /* Inside the limit, the claim's distance to any position is finite. */
    if (mv->has_claimed_position && !sweep__config_contains_inline(wcfg, mv->claimed_position)) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_POSITION, mv->sequence, e->id,
                          "claimed_position is beyond the world limit of %g", wcfg->max_coordinate);
        return -1;
    }
    /* Its length, the root of this sum, is finite exactly when the sum is. */
    if (mv->mode == SWEEP_WIRE_MODE_WALK && !isfinite(sweep_v3_dot(mv->velocity, mv->velocity))) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_VELOCITY, mv->sequence, e->id,
                          "move of entity %u: the wish is too long to measure", e->id);
        return -1;
    }
    if (!(mv->dt > 0.0 && mv->dt <= wcfg->max_dt)) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_DT, mv->sequence, e->id, "move of entity %u: dt %g is not in (0, %g]",
                          e->id, mv->dt, wcfg->max_dt);
        return -1;
    }

    /* The rules named, and each one's amount; the amounts are gathered
     * for the report only when a rule acted (most moves name none). */
    uint32_t rules = 0;
    double vertical = 0.0, correction = 0.0;
    double granted = mv->dt, time_excess = 0.0, budget = e->budget;
    /* Ticks since its previous move (a governed entity's budget is
     * credited at each): what moves lost since can have taken. */
    uint64_t since = w->tick - e->budget_tick;
    if (!server) {
        credit(e, w, w->opt.time_bank);
        budget = e->budget;
        if (since && (double)since * w->period_s >= w->opt.time_bank && w->tick >= e->stall_next) {
            e->stall_until = w->tick + sweep__ticks_of(SWEEP__STALL_EVERY_S, w->tick_rate);
            e->stall_forgive = w->opt.time_bank;
        }
        if (mv->dt <= budget + SWEEP__TIME_SLACK) {
            budget -= mv->dt; /* may dip below 0 by the slack: the next credit pays it */
        } else {
            granted = budget > 0.0 ? budget : 0.0;
            budget -= granted;
            time_excess = mv->dt - granted;
            /* Cut, but named only past what a network's stall explains
             * (world.h); the amount forgiven is spent only once the
             * move is applied, as the budget is. */
            if (!(w->tick < e->stall_until && time_excess <= e->stall_forgive))
                rules |= SWEEP_WIRE_RULE_TIME_BUDGET;
        }
    }

    sweep_space space = sweep__world_space(w, e);
    /* Walk reads the jump button, and crouch on a map with crouching;
     * the raw modes none: what else a client pressed is ignored, and said
     * so. */
    uint32_t walk_reads =
        SWEEP_WISH_JUMP | (sweep_rules_crouch(&w->level.rules) ? (uint32_t)SWEEP_WISH_CROUCH : 0u);
    uint32_t unused = mv->buttons & (mv->mode == SWEEP_WIRE_MODE_WALK ? ~walk_reads : ~0u);
    if (unused)
        rules |= SWEEP_WIRE_RULE_BUTTONS;
    sweep__motion mo;
    if (mv->mode == SWEEP_WIRE_MODE_WALK && granted > 0.0) {
        /* Nearly every move: sweep__motion_run's Walk with time granted,
         * its motion run in place as the core depth runs it (a refused one
         * is answered below, its result never read). */
        mo.actor = e->st.m.actor;
        mo.status = sweep__motion_walk(&space, wcfg, &w->level.rules, e->st.m.stand_radii, &mo.actor, mv->velocity,
                                       mv->buttons, granted, &mo.act, &mo.beyond_limit);
        mo.ran = mo.status == SWEEP_OK;
    } else {
        sweep__motion_run(&space, wcfg, &w->level.rules, &e->st.m, mv->mode, mv->velocity, mv->buttons, granted, &mo);
    }
    if (mo.status != SWEEP_OK) {
        sweep__refuse(rq, sweep_wire_code_from_status(mo.status), mv->sequence, e->id, "move of entity %u: %s",
                          e->id, sweep_status_message(mo.status));
        return -1;
    }
    if (mo.beyond_limit) {
        sweep__refuse(rq, SWEEP_WIRE_BAD_POSITION, mv->sequence, e->id,
                          "move of entity %u would end beyond the world limit of %g; the entity stays where it was",
                          e->id, wcfg->max_coordinate);
        return -1;
    }
    const sweep_actor *a = &mo.actor;
    const sweep_move_result *res = &mo.act.move;
    int ran = mo.ran;
    if (mv->mode == SWEEP_WIRE_MODE_WALK &&
        !(mo.act.volumes.events & (SWEEP_VOLUME_EV_SWAM | SWEEP_VOLUME_EV_CLIMBED))) {
        double vu = sweep_v3_dot(mv->velocity, w->wish_up);
        /* Ignored whatever it is; named beyond the rules' tolerance of the
         * walk speed, as Speed is: a wish turned by a tilted gravity may
         * keep the rounding of its arithmetic along up. A move that swam
         * or climbed used it (core/motion.h): not named. */
        if (fabs(vu) > SWEEP_RULE_TOLERANCE * w->level.rules.walk_speed) {
            rules |= SWEEP_WIRE_RULE_VERTICAL;
            vertical = fabs(vu);
        }
    }

    /* Applied: from here on nothing can fail. */
    if (!server) {
        e->budget = budget;
        if (time_excess > 0.0 && !(rules & SWEEP_WIRE_RULE_TIME_BUDGET))
            forgive_cut(e, w, time_excess, sweep__jump_rise(&w->level.rules, wcfg));
    }
    uint32_t lost = sweep__entity_gap(&e->st, mv->sequence, w->tick, w->tick_rate);
    if (lost) {
        /* How far the lost moves can have taken its prediction: their
         * time as this move's, no more than the clock allows, nor than
         * the grace lasts (a pause of a lag switch explains no more). */
        double t = (double)lost * mv->dt, clock = (double)since * w->period_s + SWEEP__GAP_SLACK_S;
        t = t < clock ? t : clock;
        e->gap_reach = w->level.rules.speed_limit * (t < SWEEP__GAP_GRACE_S ? t : SWEEP__GAP_GRACE_S) +
                       sweep__jump_rise(&w->level.rules, wcfg);
        e->gap_tick = w->tick;
        e->claim_grace_until = w->tick + sweep__ticks_of(SWEEP__GAP_GRACE_S, w->tick_rate);
    }
    mo.act.rules = sweep__entity_named_rules(&e->st, w->tick, w->tick_rate, mo.act.rules);
    rules |= mo.act.rules & (SWEEP_WIRE_RULE_SPEED | SWEEP_WIRE_RULE_JUMP | SWEEP_WIRE_RULE_LIMIT);
    double speed_excess = mo.act.speed_excess;
    sweep_vec3 start = e->st.m.actor.position;
    e->st.m.actor = *a;
    sweep__entity_take_stance(&e->st, &w->level.rules);
    sweep__world_place_entity(w, e);
    sweep__entity_keep(&e->st, res, mv->sequence, ran);
    /* Against a mover a client is only as exact as the poses it has: a
     * door that closed since its last WorldState is no cheat. Nor is
     * another player's shell (--players-block): a client is never told
     * where the others are, so it predicts through them until it hears. */
    if (ran && (e->st.ground_mover != SWEEP_NO_MOVER || e->st.touch_mover != SWEEP_NO_MOVER || meets_body(res)))
        sweep__entity_unflag(w, e);

    sweep__result_clear(out);
    out->entity = e->id;
    out->sequence = mv->sequence;
    out->server_tick = w->tick;
    /* What the motion and the movers give, the ticks' doings told once. */
    sweep__entity_result(&e->st, &w->level, a, ran, res, start, out);
    /* Without an event every volume field is the zero the clear left. */
    if (mo.act.volumes.events)
        sweep__entity_volumes(&w->level, &mo.act.volumes, out);
    sweep__entity_stance(&mo.act, out);
    sweep__entity_moved_told(&e->st);
    if (mv->has_claimed_position) {
        double d = sweep_v3_len(sweep_v3_sub(mv->claimed_position, a->position));
        out->correction = d;
        /* A threshold of 0 asks for exact prediction: any bit off counts,
         * -0.0 claimed for +0.0 too, though its distance is 0. */
        int off = w->level.correction_threshold > 0.0
                      ? d > w->level.correction_threshold
                      : memcmp(&mv->claimed_position, &a->position, sizeof a->position) != 0;
        /* Forgiven for half a second after a mover, another body or a
         * command moved it, and within a gap's grace and reach
         * (entity_motion.h); a grace that forgives a claim stays open
         * while its client has not heard, the first one past its half
         * second only as far as walking since it opened and a jump
         * explain (whatever the claims, a touch a second would hide them
         * all). */
        const double threshold = w->level.correction_threshold;
        int unflagged = w->tick < e->unflagged_until;
        int unflag_kept = !unflagged && w->tick < e->unflag_kept_until &&
                          d <= threshold + sweep__jump_rise(&w->level.rules, wcfg) +
                                   w->level.rules.walk_speed * (double)(w->tick - e->unflag_tick) * w->period_s;
        int gap_forgives = w->tick < e->claim_grace_until && d <= threshold + e->gap_reach;
        if (off && !unflagged && !unflag_kept && !gap_forgives) {
            out->corrected = true;
            rules |= SWEEP_WIRE_RULE_CORRECTION;
            correction = d;
        } else if (off) {
            if (unflagged || unflag_kept)
                keep_open(&e->unflag_kept_until, w, e->unflag_tick);
            if (gap_forgives)
                keep_open(&e->claim_grace_until, w, e->gap_tick);
        }
    }
    out->rules = rules;
    out->speed_excess = speed_excess;
    out->time_excess = time_excess;
    out->applied_dt = granted;
    sweep__kept_put(e->kept, out);
    /* The core's input and output, for a replay that re-runs the core
     * alone (a MOVE record): before the answer. */
    if (rq->sink->move)
        rq->sink->move(rq->sink->ctx, ss, mv, out);
    w->counts.moves_total++;
    if (rules) {
        /* Read only for the bits set: Jump and Limit have no amount. */
        sweep__rule_amounts amounts;
        sweep__rule_amounts_init(&amounts);
        amounts.v[SWEEP_WIRE_RULE_TIME_BUDGET_BIT] = time_excess;
        amounts.v[SWEEP_WIRE_RULE_BUTTONS_BIT] = unused;
        amounts.v[SWEEP_WIRE_RULE_VERTICAL_BIT] = vertical;
        amounts.v[SWEEP_WIRE_RULE_SPEED_BIT] = speed_excess;
        amounts.v[SWEEP_WIRE_RULE_CORRECTION_BIT] = correction;
        sweep__rules_report(rq, e->id, rules, &amounts);
    }
    /* A kill volume ended the move: the entity goes now, so that no later
     * move of a batch runs it, and is told so after the answer. */
    if (mo.act.volumes.events & SWEEP_VOLUME_EV_KILLED) {
        w->killed[w->killed_count].entity = e->id;
        w->killed[w->killed_count].volume = mo.act.volumes.killed_by;
        w->killed_count++;
        sweep__owner_despawn(ss, e, rq->sink);
    }
    return 0;
}

void sweep__world_tell_killed(sweep__world *w, const sweep__request *rq)
{
    for (uint32_t i = 0; i < w->killed_count; i++) {
        const sweep_level_volume *v = &w->level.volumes[w->killed[i].volume];
        char q[96];
        sweep__log(SWEEP_LOG_INFO, "volume_killed", "world=%u tick=%llu volume=%u name=%s entity=%u session=%llu",
                   w->index, (unsigned long long)w->tick, v->id, sweep__log_quote(v->name, strlen(v->name), q, sizeof q),
                   w->killed[i].entity, (unsigned long long)rq->owner->id);
        w->counts.killed_total++;
        sweep_message m;
        memset(&m, 0, sizeof m);
        m.kind = SWEEP_MSG_DESPAWNED;
        m.sequence = 0;
        m.server_tick = w->tick;
        m.as.despawned.entity = w->killed[i].entity;
        m.as.despawned.killed_by = v->id;
        m.as.despawned.reason = (sweep_str){v->name, (uint32_t)strlen(v->name)};
        rq->sink->message(rq->sink->ctx, rq->owner, &m);
    }
    w->killed_count = 0;
}
