/*
 * entity_motion.c - what one applied move does to an entity's actor
 * (entity_motion.h).
 */
#include "server/world/entity_motion.h"

#include <string.h>

#include "protocol/message.h"

/* What a Noclip move, or a move that did not run, leaves: no ground, no
 * contact, no rule. */
static void no_motion(sweep__motion *out)
{
    sweep_move_result *res = &out->act.move;
    out->act.rules = 0;
    out->act.speed_excess = 0.0;
    out->act.stance_blocked = 0;
    memset(&out->act.volumes, 0, sizeof out->act.volumes);
    res->contact_count = 0;
    res->ground_mover = SWEEP_NO_MOVER;
    res->ground_body = SWEEP_NO_BODY;
    res->ground_normal = sweep_v3(0, 0, 0);
    res->ground_material = 0;
    res->flags = 0;
}

void sweep__motion_run(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                       const sweep__mover_entity *e, uint32_t mode, sweep_vec3 velocity, uint32_t buttons,
                       double granted, sweep__motion *out)
{
    sweep_actor a = e->actor;
    sweep_move_result *res = &out->act.move;
    out->status = SWEEP_OK;
    out->beyond_limit = 0;
    out->ran = 0;
    if (mode == SWEEP_WIRE_MODE_WALK) {
        if (granted > 0.0) {
            /* Straight into out: sweep_act fills every field on success. */
            out->status = sweep__motion_walk(space, cfg, rules, e->stand_radii, &a, velocity, buttons, granted, &out->act,
                                             &out->beyond_limit);
            out->ran = out->status == SWEEP_OK;
        }
        if (!out->ran)
            no_motion(out);
        out->actor = a;
        return;
    } else if (mode == SWEEP_WIRE_MODE_FLY) {
        no_motion(out);
        sweep_config fly = *cfg;
        fly.max_speed = e->max_speed;
        fly.step_height = e->step_height;
        sweep_move_input in = {a.position, e->radii, velocity, granted, a.grounded ? SWEEP_INPUT_GROUNDED : 0};
        out->status = sweep_move_in(space, &fly, &in, res);
        if (out->status == SWEEP_OK) {
            a.position = res->position;
            a.velocity = res->velocity;
            a.grounded = (res->flags & SWEEP_MOVED_GROUNDED) != 0;
            out->ran = 1;
        }
    } else if (mode == SWEEP_WIRE_MODE_NOCLIP) {
        no_motion(out);
        sweep_vec3 to = sweep_v3_madd(a.position, velocity, granted);
        if (sweep_v3_len(velocity) > e->max_speed)
            out->status = SWEEP_E_VELOCITY;
        else if (!sweep__config_contains_inline(cfg, to))
            out->status = SWEEP_E_POSITION;
        if (out->status == SWEEP_OK) {
            a.position = to;
            a.velocity = velocity;
            a.grounded = 0;
            res->position = to;
            res->velocity = velocity;
            out->ran = 1;
        }
    } else {
        no_motion(out);
        out->status = SWEEP_E_ARG;
    }
    /* A move may not carry an entity past the limit: from there every
     * later move would be refused and the entity lost. */
    if (out->status == SWEEP_OK && !sweep__config_contains_inline(cfg, a.position))
        out->beyond_limit = 1;
    out->actor = a;
}
