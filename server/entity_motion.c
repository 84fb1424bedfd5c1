/*
 * entity_motion.c - what one applied move does to an entity's actor
 * (entity_motion.h).
 */
#include "server/entity_motion.h"

#include "protocol/message.h"

void sweep__motion_run(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                       const sweep__mover_entity *e, uint32_t mode, sweep_vec3 velocity, uint32_t buttons,
                       double granted, sweep__motion *out)
{
    sweep_actor a = e->actor;
    out->status = SWEEP_OK;
    out->beyond_limit = 0;
    out->ran = 0;
    out->rules = 0;
    out->speed_excess = 0.0;
    /* What a Noclip move or no move leaves: no ground, no contact. */
    out->result.contact_count = 0;
    out->result.ground_mover = SWEEP_NO_MOVER;
    out->result.ground_body = SWEEP_NO_BODY;
    out->result.ground_normal = sweep_v3(0, 0, 0);
    out->result.ground_material = 0;
    out->result.flags = 0;
    if (mode == SWEEP_WIRE_MODE_WALK) {
        if (granted > 0.0) {
            sweep_wish wish = {velocity, buttons & SWEEP_WISH_JUMP};
            sweep_act_result ar;
            out->status = sweep_act(space, cfg, rules, e->radii, &a, &wish, granted, &ar);
            if (out->status == SWEEP_OK) {
                out->result = ar.move;
                out->rules = ar.rules;
                out->speed_excess = ar.speed_excess;
                out->ran = 1;
            }
        }
    } else if (mode == SWEEP_WIRE_MODE_FLY) {
        sweep_config fly = *cfg;
        fly.max_speed = e->max_speed;
        fly.step_height = e->step_height;
        sweep_move_input in = {a.position, e->radii, velocity, granted, a.grounded ? SWEEP_INPUT_GROUNDED : 0};
        out->status = sweep_move_in(space, &fly, &in, &out->result);
        if (out->status == SWEEP_OK) {
            a.position = out->result.position;
            a.velocity = out->result.velocity;
            a.grounded = (out->result.flags & SWEEP_MOVED_GROUNDED) != 0;
            out->ran = 1;
        }
    } else if (mode == SWEEP_WIRE_MODE_NOCLIP) {
        sweep_vec3 to = sweep_v3_madd(a.position, velocity, granted);
        if (sweep_v3_len(velocity) > e->max_speed)
            out->status = SWEEP_E_VELOCITY;
        else if (!sweep_config_contains(cfg, to))
            out->status = SWEEP_E_POSITION;
        if (out->status == SWEEP_OK) {
            a.position = to;
            a.velocity = velocity;
            a.grounded = 0;
            out->result.position = to;
            out->result.velocity = velocity;
            out->ran = 1;
        }
    } else {
        out->status = SWEEP_E_ARG;
    }
    /* A move may not carry an entity past the limit: from there every
     * later move would be refused and the entity lost. */
    if (out->status == SWEEP_OK && !sweep_config_contains(cfg, a.position))
        out->beyond_limit = 1;
    out->actor = a;
}
