/*
 * motion.c - a player's wish through the movement rules (see motion.h).
 *
 * Every quantity comes from + - * / and sqrt on the inputs, in a fixed
 * order, so the server and a predicting client get the same bits.
 */
#include "core/motion.h"

#include "core/stance.h"
#include "core/volume_step.h"

#include <stddef.h>
#include <string.h>

void sweep_rules_default(sweep_rules *r)
{
    r->walk_speed = 5.0;
    r->ground_accel = 50.0;
    r->air_accel = 10.0;
    r->jump_speed = 5.0;
    r->max_step = 1.0 / 30.0;
    r->speed_limit = 60.0;
    r->crouch_radii = sweep_v3(0, 0, 0);
    r->crouch_speed = 0.0;
}

sweep_status sweep_rules_check(const sweep_rules *r)
{
    if (!r)
        return SWEEP_E_ARG;
    if (!(r->walk_speed > 0.0 && r->walk_speed <= 1e6))
        return SWEEP_E_CONFIG;
    if (!(r->ground_accel > 0.0 && r->ground_accel <= 1e9) || !(r->air_accel >= 0.0 && r->air_accel <= 1e9))
        return SWEEP_E_CONFIG;
    if (!(r->jump_speed >= 0.0 && r->jump_speed <= 1e6))
        return SWEEP_E_CONFIG;
    if (!(r->max_step >= 1e-3 && r->max_step <= 1.0))
        return SWEEP_E_CONFIG;
    if (!(r->speed_limit >= r->walk_speed && r->speed_limit >= r->jump_speed && r->speed_limit <= 1e7))
        return SWEEP_E_CONFIG;
    /* No crouching is said by zeros alone (a NaN is no zero); crouching,
     * by a shape above zero that sweep_act checks against its config's
     * radius limits (an infinity is beyond them). */
    const sweep_vec3 c = r->crouch_radii;
    if (!(r->crouch_speed >= 0.0 && r->crouch_speed <= r->walk_speed))
        return SWEEP_E_CONFIG;
    if (r->crouch_speed > 0.0 ? !(c.x > 0.0 && c.y > 0.0 && c.z > 0.0) : (c.x != 0.0 || c.y != 0.0 || c.z != 0.0))
        return SWEEP_E_CONFIG;
    return SWEEP_OK;
}

/* v without its part along up (v itself when there is no up). */
static sweep_vec3 across(sweep_vec3 v, sweep_vec3 up)
{
    return sweep_v3_madd(v, up, -sweep_v3_dot(v, up));
}

/* Turns horizontal velocity h towards target by at most max_change. */
static sweep_vec3 accelerate(sweep_vec3 h, sweep_vec3 target, double max_change)
{
    sweep_vec3 d = sweep_v3_sub(target, h);
    double l2 = sweep_v3_len2(d);
    if (l2 <= max_change * max_change)
        return target;
    return sweep_v3_madd(h, d, max_change / sqrt(l2));
}

sweep_status sweep_act(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                       sweep_vec3 radii, sweep_actor *actor, const sweep_wish *wish, double dt,
                       sweep_act_result *out)
{
    if (!space || !cfg || !rules || !actor || !wish)
        return SWEEP_E_ARG;
    sweep_status st = sweep_config_check(cfg);
    if (st == SWEEP_OK)
        st = sweep_rules_check(rules);
    if (st != SWEEP_OK)
        return st;
    if (!(rules->speed_limit <= cfg->max_speed))
        return SWEEP_E_CONFIG;
    const int can_crouch = sweep_rules_crouch(rules);
    if (can_crouch && !sweep_config_radii_ok(cfg, rules->crouch_radii))
        return SWEEP_E_CONFIG;
    /* Only a map with crouching has a crouched actor. */
    if (actor->stance > (uint32_t)can_crouch)
        return SWEEP_E_ARG;
    if (!sweep_v3_isfinite(wish->velocity) || !isfinite(dt) || !sweep_v3_isfinite(actor->velocity))
        return SWEEP_E_NONFINITE;
    if (!(dt > 0.0 && dt <= cfg->max_dt))
        return SWEEP_E_DT;
    uint32_t n = (uint32_t)(dt / rules->max_step);
    if ((double)n * rules->max_step < dt)
        n++;
    if (n == 0)
        n = 1;
    if (n > SWEEP_ACT_MAX_STEPS)
        return SWEEP_E_DT;
    double h = dt / (double)n;

    sweep_vec3 up = sweep_v3(0, 0, 0);
    double g = sweep_v3_len(cfg->gravity);
    if (g > 0.0)
        up = sweep_v3_scale(cfg->gravity, -1.0 / g);

    /* Not cleared whole: res.move is made by sweep_move_in on each step
     * (n >= 1, and it clears it first), and nearly all of its 600-odd
     * bytes are the contact list, which every move cleared twice. The
     * fields after it are, padding and all, so that *out holds the same
     * bytes for the same move, as it did. */
    sweep_act_result res;
    memset(&res.rules, 0, sizeof res - offsetof(sweep_act_result, rules));
    sweep_vec3 target = across(wish->velocity, up), crouch_target = target;
    double speed = sweep_v3_len(target);
    /* The stance the wish asks; its speed is what Speed is named against
     * (a player held crouched under a ceiling is slowed, not named). */
    uint32_t want = SWEEP_STANCE_STAND;
    double asked = rules->walk_speed;
    if (can_crouch) {
        if (wish->buttons & SWEEP_WISH_CROUCH)
            want = SWEEP_STANCE_CROUCH, asked = rules->crouch_speed;
        if (speed > rules->crouch_speed)
            crouch_target = sweep_v3_scale(target, rules->crouch_speed / speed);
    }
    if (speed > asked && speed > asked * (1.0 + SWEEP_RULE_TOLERANCE)) {
        res.rules |= SWEEP_RULE_SPEED;
        res.speed_excess = speed - asked;
    }
    if (speed > rules->walk_speed)
        target = sweep_v3_scale(target, rules->walk_speed / speed);
    /* Past it by more than the tolerance, squared as the test is. */
    double named_limit = rules->speed_limit * (1.0 + SWEEP_RULE_TOLERANCE);

    sweep_actor a = *actor;
    for (uint32_t i = 0; i < n; i++) {
        if (a.stance != want) {
            int blocked;
            st = sweep__stance_turn(space, cfg, rules, radii, &a, want, &blocked);
            if (st != SWEEP_OK)
                return st;
            res.stance_blocked = (uint32_t)blocked;
        }
        const sweep_vec3 *shape = a.stance ? &rules->crouch_radii : &radii;
        int grounded = g > 0.0 && a.grounded;
        double vu = grounded ? 0.0 : sweep_v3_dot(a.velocity, up);
        if (i == 0 && (wish->buttons & SWEEP_WISH_JUMP)) {
            if (grounded && rules->jump_speed > 0.0) {
                vu = rules->jump_speed;
                grounded = 0;
            } else {
                res.rules |= SWEEP_RULE_JUMP;
            }
        }
        double accel = grounded ? rules->ground_accel : rules->air_accel;
        sweep_vec3 hv = accelerate(across(a.velocity, up), a.stance ? crouch_target : target, accel * h);
        sweep_vec3 v = sweep_v3_madd(sweep_v3_madd(hv, up, vu), cfg->gravity, h);
        double v2 = sweep_v3_len2(v);
        if (v2 > rules->speed_limit * rules->speed_limit) {
            if (v2 > named_limit * named_limit)
                res.rules |= SWEEP_RULE_LIMIT;
            v = sweep_clamp_speed(v, rules->speed_limit);
        }
        sweep_move_input in = {a.position, *shape, v, h, grounded ? SWEEP_INPUT_GROUNDED : 0};
        st = sweep_move_in(space, cfg, &in, &res.move);
        if (st != SWEEP_OK)
            return st;
        a.position = res.move.position;
        a.velocity = res.move.velocity;
        a.grounded = (res.move.flags & SWEEP_MOVED_GROUNDED) != 0;
        res.flags |= res.move.flags;
        /* The volumes the step ended in (core/volume.h); a kill ends the move. */
        if (sweep__volumes_after_step(space, cfg, in.radii, in.position, &a, h, &res.volumes)) {
            n = i + 1;
            break;
        }
    }
    res.steps = n;
    *actor = a;
    if (out)
        *out = res;
    return SWEEP_OK;
}
