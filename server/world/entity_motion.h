/*
 * entity_motion.h - internal: what one applied move and one tick of the
 * movers do to an entity (steps 6 and 7 of the order in moves.c, and
 * world.c's tick), for the world library and the core depth of a replay
 * (client-sdk/replay_core.c), so that both run the same rules rather than
 * two copies that could drift apart. The rules are inline: the core depth
 * runs them once a move in its lean loop.
 */
#ifndef SWEEP_SERVER_ENTITY_MOTION_H
#define SWEEP_SERVER_ENTITY_MOTION_H

#include <stdint.h>

#include "core/crowd.h"
#include "core/motion.h"
#include "core/move.h"
#include "core/mover.h"
#include "core/stance.h"
#include "maps/level.h"
#include "protocol/from_core.h"
#include "protocol/message.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The entity a move starts from. */
typedef struct sweep__mover_entity {
    sweep_actor actor;
    sweep_vec3 radii;       /* the shape it has: its stance's (core/stance.h) */
    sweep_vec3 stand_radii; /* its standing shape (Spawn, SetRadii), which a Walk move is given */
    double max_speed;   /* Fly and Noclip: the entity's own limits */
    double step_height;
} sweep__mover_entity;

/* What a move and a tick read and write of an entity: the world's
 * entities (world.h) and the core depth's hold it alike. Mover numbers
 * are core indices, SWEEP_NO_MOVER for none. */
typedef struct sweep__entity_state {
    sweep__mover_entity m;     /* where its next move starts, and its shape */
    sweep_vec3 ground_normal;  /* of its last move that ran, while grounded */
    uint32_t ground_material;
    uint32_t ground_mover;     /* stood on after its last move: the tick carries it */
    uint32_t touch_mover;      /* first mover its last move touched (TOUCH triggers) */
    uint32_t moved_flags;      /* SWEEP_BODY_CARRIED | PUSHED | SWEEP__ENTITY_PLACED since its last move */
    uint32_t moved_by;         /* the last mover that carried or pushed it since then */
    int has_last;              /* a move was applied */
    uint32_t last_sequence;    /* the last applied move's; before one, its player Spawn's when spawn_based */
    int spawn_based;           /* no move yet: lost moves are counted from last_sequence (sweep__entity_gap) */
    uint64_t gap_grace_until;  /* moves were lost (sweep__entity_gap) or a cut forgiven (sweep__entity_cut_forgiven):
                                  a refused Jump's grace holds before this tick */
    uint64_t jump_next;        /* the pace of Jumps forgiven in it: when the next is due, GCRA */
} sweep__entity_state;

/* A bit of sweep__entity_state.moved_flags beside the movers'
 * SWEEP_BODY_CARRIED and PUSHED (core/mover.h): an EntityCommand Teleport
 * placed the entity since its last move. Like a mover's doing, its next
 * MoveResult says so with start_position (where that move started: the
 * place, or where movers took it from there), which a predicting client
 * starts its check of the move from (client-sdk/predict.c). */
#define SWEEP__ENTITY_PLACED (1u << 16)

/* The unit vector against gravity; +z in a world without gravity (what
 * a place is checked along, and what an EntityCommand's velocity is
 * measured against: world.h). */
static inline sweep_vec3 sweep__config_up(const sweep_config *cfg)
{
    double g = sweep_v3_len(cfg->gravity);
    return g > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / g) : sweep_v3(0, 0, 1);
}

/* A limit a Spawn asked for its raw moves (max_speed, step_height): a
 * client may tighten the world's, never loosen it; 0 asks for the world's. */
static inline double sweep__spawn_limit(double asked, double world)
{
    return asked > 0.0 && asked < world ? asked : world;
}

/* A new entity at rest at position: nothing under it, nothing touched. */
static inline void sweep__entity_state_init(sweep__entity_state *s, sweep_vec3 position, sweep_vec3 radii,
                                            double max_speed, double step_height)
{
    s->m.actor.position = position;
    s->m.actor.velocity = sweep_v3(0, 0, 0);
    s->m.actor.grounded = 0;
    s->m.actor.stance = SWEEP_STANCE_STAND;
    s->m.radii = s->m.stand_radii = radii;
    s->m.max_speed = max_speed;
    s->m.step_height = step_height;
    s->ground_normal = sweep_v3(0, 0, 0);
    s->ground_material = 0;
    s->ground_mover = s->touch_mover = s->moved_by = SWEEP_NO_MOVER;
    s->moved_flags = 0;
    s->has_last = 0;
    s->last_sequence = 0;
    s->spawn_based = 0;
    s->gap_grace_until = 0;
    s->jump_next = 0;
}

/*
 * Lost moves. A move whose sequence skips some follows moves the server
 * never got, but its client predicted: its claims are off by them, and
 * it may press jump where its prediction (not the server) has it landed,
 * until the answers reach it. Each such gap opens a grace of
 * SWEEP__GAP_GRACE_S (a later gap replaces it), which the world
 * (moves.c) and the core depth of a replay (client-sdk/replay_core.c)
 * keep alike:
 *   - a claim is forgiven in it only within the reach of that gap: the
 *     map's threshold and what speed_limit covers in the time the lost
 *     moves can have taken (their number times this move's dt, but never
 *     more than the time since the entity's previous move and
 *     SWEEP__GAP_SLACK_S of jitter, nor than the grace itself): one lost
 *     move of an honest client at 60 Hz is about 1 m, skipping sequences
 *     at will hides no claim beyond what the clock explains, and a pause
 *     however long no more than speed_limit * SWEEP__GAP_GRACE_S (30 m
 *     under the default rules), and the height of a jump, since a lost
 *     move may have jumped and the client rises on in its prediction
 *     until it hears (sweep__jump_rise; the world's rule, moves.c);
 *   - a jump refused off the ground within SWEEP__GAP_JUMP_S of the gap
 *     (gap_grace_until) is not named Jump, at most SWEEP__GAP_BURST at
 *     once and one per SWEEP__GAP_EVERY_S on average (a generic cell
 *     rate: jump_next is when the next is due), so a cheater skipping a
 *     sequence before every jump held in the air is still named nearly
 *     every time; an honest client loses its landing and jumps on the
 *     next move far less often. A second, not half of one: the client
 *     presses jump on its predicted ground until it hears, a round trip
 *     after the gap, and the pace, not the window, is what holds a
 *     cheater.
 * The jump is refused all the same: only its naming waits.
 */
#define SWEEP__GAP_GRACE_S 0.5
#define SWEEP__GAP_JUMP_S 1.0
/* A claims' grace is longer where they are still off: a client hears of
 * what put them off (lost moves, a mover, another body, a command) a
 * round trip after the server does, and claims its old prediction until
 * then, so each claim a grace forgives keeps it open another half second,
 * up to this long after it opened (moves.c, keep_open): round trips up
 * to about a second, which covers the games that play at all. The price:
 * a cheater who pauses (a gap) or touches a mover or another player has
 * claims hidden for this long after each, not half a second (a gap's
 * only within its reach, a touch's past its first half second only
 * within what walking since and a jump explain; skipping sequences or
 * touching more often hid them anyway). The world's alone: a Jump's
 * window (SWEEP__GAP_JUMP_S), which the core depth of a replay keeps
 * too, is fixed. What a refused jump's
 * prediction does in a long round trip can still run past a gap's reach:
 * honest clients without redundancy are named now and then from about
 * 0.8 s (docs/performance.md, "Authority: false flags"). */
#define SWEEP__CLAIM_GRACE_MAX_S 1.0
#define SWEEP__GAP_SLACK_S 0.1
#define SWEEP__GAP_EVERY_S 2.0
#define SWEEP__GAP_BURST 2u

/* How far above the ground a jump takes a body under the rules: the apex,
 * jump_speed^2 / 2g, or without gravity (or for an apex beyond it) what
 * jump_speed covers in the grace. */
static inline double sweep__jump_rise(const sweep_rules *r, const sweep_config *cfg)
{
    double g = sweep_v3_len(cfg->gravity), grace = r->jump_speed * SWEEP__GAP_GRACE_S;
    double apex = g > 0.0 ? r->jump_speed * r->jump_speed / (2.0 * g) : grace;
    return apex < grace ? apex : grace;
}

/* Ticks of s seconds at tick_rate, at least 1. */
static inline uint64_t sweep__ticks_of(double s, double tick_rate)
{
    uint64_t n = (uint64_t)(tick_rate * s + 0.5);
    return n ? n : 1;
}

/* An entity a player's own Spawn of `sequence` (Message.sequence) made.
 * A player's client numbers its requests and its moves from one counter
 * (libsweep, the Python client), so its first move follows the Spawn and
 * moves lost before it are a gap as any other. Without this the first
 * move to arrive had nothing to count from: the claims after the first
 * moves of a session lost were named Correction. It decides no more than
 * a gap: which moves are applied again still waits for one applied
 * (has_last), so a client numbering its moves from 1 whatever its Spawn's
 * sequence is served as ever (no gap then, as before). Not for the server
 * role's Spawns: a game server relaying a player forwards the player's
 * own move sequences, which its Spawn's says nothing of. */
static inline void sweep__entity_spawned_at(sweep__entity_state *s, uint32_t sequence)
{
    s->last_sequence = sequence;
    s->spawn_based = 1;
}

/* A move of `sequence` about to be applied at world tick `tick`: the
 * number of moves it skips (0: none), a grace opened for them. Before
 * sweep__entity_keep, which takes the sequence. */
static inline uint32_t sweep__entity_gap(sweep__entity_state *s, uint32_t sequence, uint64_t tick, double tick_rate)
{
    if (!(s->has_last || s->spawn_based) || sequence <= s->last_sequence + 1u)
        return 0;
    s->gap_grace_until = tick + sweep__ticks_of(SWEEP__GAP_JUMP_S, tick_rate);
    return sequence - s->last_sequence - 1u;
}

/* A move whose time the world cut and forgave at `tick`, after a stall
 * of the network (moves.c, forgive_cut): its client predicted the whole
 * move, as it predicts moves the server lost, and may press jump where
 * that prediction landed until it hears; so a refused Jump is not named
 * in the same window as after a gap, at the same pace. The world and the
 * core depth of a replay (which reads it from the MOVE record) keep it
 * alike. */
static inline void sweep__entity_cut_forgiven(sweep__entity_state *s, uint64_t tick, double tick_rate)
{
    s->gap_grace_until = tick + sweep__ticks_of(SWEEP__GAP_JUMP_S, tick_rate);
}

/* The core's rules of a move applied at `tick` as the answer names them:
 * a refused Jump forgiven in a gap's grace, as often as the pace allows
 * (which it then spends). */
static inline uint32_t sweep__entity_named_rules(sweep__entity_state *s, uint64_t tick, double tick_rate,
                                                 uint32_t rules)
{
    if (!(rules & SWEEP_RULE_JUMP) || tick >= s->gap_grace_until)
        return rules;
    uint64_t every = sweep__ticks_of(SWEEP__GAP_EVERY_S, tick_rate);
    if (s->jump_next > tick + (SWEEP__GAP_BURST - 1u) * every)
        return rules;
    s->jump_next = (s->jump_next > tick ? s->jump_next : tick) + every;
    return rules & ~(uint32_t)SWEEP_RULE_JUMP;
}

/* The shape an entity has once a move left its actor in a stance. */
static inline void sweep__entity_take_stance(sweep__entity_state *s, const sweep_rules *rules)
{
    s->m.radii = sweep_stance_radii(rules, s->m.stand_radii, s->m.actor.stance);
}

/* What an entity keeps of a move that ran besides its actor (res: the
 * move's result): the ground and its mover, and the first mover touched. */
static inline void sweep__entity_keep_ground(sweep__entity_state *s, const sweep_move_result *res)
{
    s->ground_mover = res->ground_mover;
    s->ground_normal = res->ground_normal;
    s->ground_material = res->ground_material;
    s->touch_mover = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < res->contact_count; i++) {
        if (res->contacts[i].mover != SWEEP_NO_MOVER) {
            s->touch_mover = res->contacts[i].mover;
            break;
        }
    }
}

/* An applied move of `sequence` (ran: a step ran, res its result): the
 * sequence it had, and what it keeps of the ground. The actor is the
 * caller's to set (the world sets it from the motion, the core depth runs
 * the motion on it). */
static inline void sweep__entity_keep(sweep__entity_state *s, const sweep_move_result *res, uint32_t sequence, int ran)
{
    s->has_last = 1;
    s->last_sequence = sequence;
    s->spawn_based = 0;
    if (ran)
        sweep__entity_keep_ground(s, res);
}

/* The map's movers.id of a core mover index, 0 for none. */
static inline uint32_t sweep__level_mover_id(const sweep_level *lv, uint32_t index)
{
    return index < lv->mover_count ? lv->movers[index].id : 0;
}

/* Step 7: the fields of a move's result that its motion and the movers
 * give, for an entity that kept the move (sweep__entity_keep) and whose
 * actor is now *a: where it ended (and the ground it stands on, while
 * grounded), what it touched (ran: the core's contacts in their wire
 * form), the mover under it, and what the ticks did to it since its last
 * move (carried, pushed, by which mover, from where the move started),
 * mover numbers as the map's movers.id. The other fields are the
 * caller's; the caller then forgets the ticks' doings
 * (sweep__entity_moved_told). */
static inline void sweep__entity_result(const sweep__entity_state *s, const sweep_level *lv, const sweep_actor *a,
                                        int ran, const sweep_move_result *res, sweep_vec3 start,
                                        sweep_msg_move_result *out)
{
    out->position = a->position;
    out->velocity = a->velocity;
    out->grounded = a->grounded != 0;
    out->ground_normal = a->grounded ? s->ground_normal : sweep_v3(0, 0, 0);
    out->ground_material = a->grounded ? s->ground_material : 0;
    out->contact_count = ran ? sweep__wire_contacts_from_core(out->contacts, res) : 0;
    out->ground_mover = sweep__level_mover_id(lv, s->ground_mover);
    out->carried = (s->moved_flags & SWEEP_BODY_CARRIED) != 0;
    out->pushed = (s->moved_flags & SWEEP_BODY_PUSHED) != 0;
    out->pushed_by = s->moved_flags ? sweep__level_mover_id(lv, s->moved_by) : 0;
    out->has_start_position = s->moved_flags != 0;
    out->start_position = s->moved_flags ? start : sweep_v3(0, 0, 0);
    out->crouched = a->stance == SWEEP_STANCE_CROUCH;
}

/* The stance fields of a move's result besides crouched (the actor's):
 * whether the stance asked had no room (act: the motion's; zero for a
 * move of another mode or one that did not run). */
static inline void sweep__entity_stance(const sweep_act_result *act, sweep_msg_move_result *out)
{
    out->stance_blocked = act->stance_blocked != 0;
}

/* The map's volumes.id of a core volume index, 0 for none. */
static inline uint32_t sweep__level_volume_id(const sweep_level *lv, uint32_t index)
{
    return index < lv->volume_count ? lv->volumes[index].id : 0;
}

/* The fields of a move's result that the volumes give (v: what they did
 * to the move, sweep_act_result.volumes; zero for a move of another mode
 * or one that did not run), volume numbers as the map's volumes.id. */
static inline void sweep__entity_volumes(const sweep_level *lv, const sweep_volume_report *v,
                                         sweep_msg_move_result *out)
{
    uint32_t e = v->events;
    out->launched_by = e & SWEEP_VOLUME_EV_LAUNCHED ? sweep__level_volume_id(lv, v->launched_by) : 0;
    out->teleported_by = e & (SWEEP_VOLUME_EV_TELEPORTED | SWEEP_VOLUME_EV_TELEPORT_BLOCKED)
                             ? sweep__level_volume_id(lv, v->teleported_by)
                             : 0;
    out->teleport_blocked = (e & SWEEP_VOLUME_EV_TELEPORT_BLOCKED) != 0;
    out->hurt_by = e & SWEEP_VOLUME_EV_HURT ? sweep__level_volume_id(lv, v->hurt_by) : 0;
    out->damage = e & SWEEP_VOLUME_EV_HURT ? v->damage : 0.0;
    out->killed_by = e & SWEEP_VOLUME_EV_KILLED ? sweep__level_volume_id(lv, v->killed_by) : 0;
    out->entered = e & SWEEP_VOLUME_EV_ENTERED ? sweep__level_volume_id(lv, v->entered) : 0;
    out->left = e & SWEEP_VOLUME_EV_LEFT ? sweep__level_volume_id(lv, v->left) : 0;
    out->liquid = e & SWEEP_VOLUME_EV_IN_LIQUID ? sweep__level_volume_id(lv, v->liquid) : 0;
    out->liquid_type = e & SWEEP_VOLUME_EV_IN_LIQUID ? v->liquid_type : 0;
    out->liquid_level = e & SWEEP_VOLUME_EV_IN_LIQUID ? v->liquid_level : 0;
    out->entered_liquid = e & SWEEP_VOLUME_EV_LIQUID_ENTERED ? sweep__level_volume_id(lv, v->liquid_entered) : 0;
    out->left_liquid = e & SWEEP_VOLUME_EV_LIQUID_LEFT ? sweep__level_volume_id(lv, v->liquid_left) : 0;
    out->ladder = e & SWEEP_VOLUME_EV_ON_LADDER ? sweep__level_volume_id(lv, v->ladder) : 0;
}

/* What the ticks did to an entity is told in its next move's result,
 * once: then forgotten. */
static inline void sweep__entity_moved_told(sweep__entity_state *s)
{
    s->moved_flags = 0;
    s->moved_by = SWEEP_NO_MOVER;
}

/* What an applied EntityCommand (op, SWEEP_WIRE_OP_*) leaves of an
 * entity, given what its EntityCommandResult reports after it (position,
 * velocity, radii): the world applies each command so (commands.c), and
 * the core depth of a replay follows the log's results so
 * (client-sdk/replay_core.c), with one rule for both.
 *   Teleport     the position; velocity kept; not grounded, standing on
 *                and touching no mover (the next tick carries it with
 *                nothing it left); its next result has start_position;
 *   SetVelocity, AddImpulse
 *                the velocity; grounded is cleared when it points up
 *                (along `up`), as a jump clears it: a grounded entity's
 *                motion drops its velocity along up (core/motion.c), so an
 *                upward impulse would otherwise be lost; else kept;
 *   SetRadii     the radii and the position (the world keeps a grounded
 *                entity's lowest point where it was); grounded kept; the
 *                radii are its standing shape, and it stands in them.
 * Despawn leaves nothing to keep. */
static inline void sweep__entity_commanded(sweep__entity_state *s, uint32_t op, sweep_vec3 position,
                                           sweep_vec3 velocity, sweep_vec3 radii, sweep_vec3 up)
{
    switch (op) {
    case SWEEP_WIRE_OP_TELEPORT:
        s->m.actor.position = position;
        s->m.actor.grounded = 0;
        s->ground_normal = sweep_v3(0, 0, 0);
        s->ground_material = 0;
        s->ground_mover = s->touch_mover = SWEEP_NO_MOVER;
        s->moved_flags |= SWEEP__ENTITY_PLACED;
        break;
    case SWEEP_WIRE_OP_SET_VELOCITY:
    case SWEEP_WIRE_OP_ADD_IMPULSE:
        s->m.actor.velocity = velocity;
        if (sweep_v3_dot(velocity, up) > 0.0)
            s->m.actor.grounded = 0;
        break;
    case SWEEP_WIRE_OP_SET_RADII:
        s->m.radii = s->m.stand_radii = radii;
        s->m.actor.stance = SWEEP_STANCE_STAND;
        s->m.actor.position = position;
        break;
    default:
        break;
    }
}

/* The body an entity is to a tick of the movers: its position and radii,
 * and the movers its last move stood on and touched. */
static inline sweep_body sweep__entity_body(const sweep__entity_state *s)
{
    sweep_body b = {s->m.actor.position, s->m.radii, s->ground_mover, s->touch_mover, 0, SWEEP_NO_MOVER};
    return b;
}

/* What an entity keeps of a tick (b: its body after sweep_movers_tick):
 * the position only (velocity and grounded stay those of its last move,
 * which its next move starts from), and what carried or pushed it, for
 * its next result. Returns the carried and pushed bits (0: not moved). */
static inline uint32_t sweep__entity_take_body(sweep__entity_state *s, const sweep_body *b)
{
    s->m.actor.position = b->position;
    uint32_t moved = b->flags & (SWEEP_BODY_CARRIED | SWEEP_BODY_PUSHED);
    if (moved) {
        s->moved_flags |= moved;
        s->moved_by = b->mover;
    }
    return moved;
}

typedef struct sweep__motion {
    sweep_status status;   /* SWEEP_OK, or why the core refused the move */
    int beyond_limit;      /* ran, but would end beyond the coordinate limit: refused too */
    int ran;               /* a step ran: result and actor are the move's */
    sweep_actor actor;     /* after the move */
    /* act.move is the result: Walk, Fly: the core's; Noclip: position and
     * velocity, no ground, no contact. act.rules (SWEEP_RULE_* bits) and
     * act.speed_excess are sweep_act's (Walk), 0 otherwise. sweep_act
     * writes straight into it: a copy of its ~600-byte result per move
     * was a measurable part of a replay's cost. */
    sweep_act_result act;
} sweep__motion;

/* The motion of a Walk move granted time (granted > 0), as
 * sweep__motion_run runs it: sweep_act on *a, which changes only when it
 * returns SWEEP_OK; *beyond then says whether the move ends beyond the
 * coordinate limit (refused all the same: beyond_limit). Inline, for the
 * core depth of a replay (client-sdk/replay_core.c), which runs it on the
 * entity's own actor once a move: through sweep__motion_run, the call and
 * the actor's copies in and out were about a sixth of what the replay
 * ran per move besides the core. */
static inline sweep_status sweep__motion_walk(const sweep_space *space, const sweep_config *cfg,
                                              const sweep_rules *rules, sweep_vec3 radii, sweep_actor *a,
                                              sweep_vec3 velocity, uint32_t buttons, double granted,
                                              sweep_act_result *act, int *beyond)
{
    const sweep_wish wish = {velocity, buttons & (SWEEP_WISH_JUMP | SWEEP_WISH_CROUCH)};
    sweep_status st = sweep_act(space, cfg, rules, radii, a, &wish, granted, act);
    /* A move may not carry an entity past the limit: from there every
     * later move would be refused and the entity lost. */
    *beyond = st == SWEEP_OK && !sweep__config_contains_inline(cfg, a->position);
    return st;
}

/* Runs the motion of a move of `mode` (SWEEP_WIRE_MODE_*; another value is
 * SWEEP_E_ARG) with the wish or velocity and buttons given, over `granted`
 * seconds (Walk runs nothing for 0): Walk through sweep_act with the map's
 * rules, Fly through sweep_move_in with the entity's limits, Noclip as
 * position + velocity * granted within the limits. */
void sweep__motion_run(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                       const sweep__mover_entity *e, uint32_t mode, sweep_vec3 velocity, uint32_t buttons,
                       double granted, sweep__motion *out);

#ifdef __cplusplus
}
#endif

#endif
