/*
 * entity_motion.h - internal: what one applied move does to an entity's
 * actor (step 6 of the order in moves.c), for the server's moves and the
 * core depth of a replay (client-sdk/replay_core.c), so that both run the
 * same code rather than two copies that could drift apart.
 */
#ifndef SWEEP_SERVER_ENTITY_MOTION_H
#define SWEEP_SERVER_ENTITY_MOTION_H

#include <stdint.h>

#include "core/crowd.h"
#include "core/motion.h"
#include "core/move.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The entity a move starts from. */
typedef struct sweep__mover_entity {
    sweep_actor actor;
    sweep_vec3 radii;
    double max_speed;   /* Fly and Noclip: the entity's own limits */
    double step_height;
} sweep__mover_entity;

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
    const sweep_wish wish = {velocity, buttons & SWEEP_WISH_JUMP};
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
