/*
 * motion.c - a player's wish through the movement rules (see motion.h).
 *
 * Every quantity comes from + - * / and sqrt on the inputs, in a fixed
 * order, so the server and a predicting client get the same bits.
 */
#include "core/motion.h"

#include "core/medium.h"
#include "core/move_impl.h"
#include "core/bytes.h"
#include "core/stance.h"
#include "core/volume_step.h"

#include <stddef.h>
#include <string.h>

void sweep_rules_default(sweep_rules *r)
{
    if (!r)
        return; /* no status to return: nothing to fill */
    r->walk_speed = 5.0;
    r->ground_accel = 50.0;
    r->air_accel = 10.0;
    r->jump_speed = 5.0;
    r->max_step = 1.0 / 30.0;
    r->speed_limit = 60.0;
    r->crouch_radii = sweep_v3(0, 0, 0);
    r->crouch_speed = 0.0;
    r->swim_speed = 2.5;
    r->swim_accel = 10.0;
    r->swim_drag = 1.0;
    r->swim_sink = 0.9375;
    r->swim_jump = 6.5;
    r->climb_speed = 2.5;
    r->climb_accel = 50.0;
    r->air_move = SWEEP_AIR_TOWARDS;
}

/* 1 if x is in [0, hi] (NaN is not). */
static int in_range(double x, double hi)
{
    return x >= 0.0 && x <= hi;
}

/* 1 if air_move names one of SWEEP_AIR_* (a NaN does not). */
static int air_move_ok(const sweep_rules *r)
{
    return r->air_move == SWEEP_AIR_TOWARDS || r->air_move == SWEEP_AIR_ALONG;
}

/* The walking rules' ranges. */
static sweep_status walk_rules_check(const sweep_rules *r)
{
    if (!air_move_ok(r))
        return SWEEP_E_CONFIG;
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

/* The walking rules (every field before swim_speed) that last passed on
 * this thread: a server moves every body under the same rules, and the
 * same bits pass again without their twenty comparisons (64 instructions,
 * against about 25 for the comparison of their bytes). */
#define WALK_RULES_BYTES offsetof(sweep_rules, swim_speed)
_Static_assert(WALK_RULES_BYTES % 16 == 0, "the walking rules no longer fall in 16-byte pieces");
static _Thread_local struct {
    sweep_rules rules;
    int valid;
} last_walk;

static sweep_status walk_rules_check_kept(const sweep_rules *r)
{
    /* air_move lies past the kept bytes: the walk reads it, so it is
     * checked on every move. */
    if (last_walk.valid && sweep__same_bits(r, &last_walk.rules, WALK_RULES_BYTES))
        return air_move_ok(r) ? SWEEP_OK : SWEEP_E_CONFIG;
    sweep_status st = walk_rules_check(r);
    if (st == SWEEP_OK) {
        memcpy(&last_walk.rules, r, WALK_RULES_BYTES);
        last_walk.valid = 1;
    }
    return st;
}

/* The swimming and climbing rules' ranges: speeds in walk_speed's and
 * jump_speed's, as what they make is capped at speed_limit like any
 * velocity. */
static sweep_status mode_rules_check(const sweep_rules *r)
{
    if (!in_range(r->swim_speed, 1e6) || !in_range(r->swim_accel, 1e9) || !in_range(r->swim_drag, 1e3) ||
        !(fabs(r->swim_sink) <= 1e6) || !in_range(r->swim_jump, 1e6) || !in_range(r->climb_speed, 1e6) ||
        !in_range(r->climb_accel, 1e9))
        return SWEEP_E_CONFIG;
    return SWEEP_OK;
}

sweep_status sweep_rules_check(const sweep_rules *r)
{
    if (!r)
        return SWEEP_E_ARG;
    sweep_status st = walk_rules_check(r);
    return st == SWEEP_OK ? mode_rules_check(r) : st;
}

/* v without its part along up (v itself when there is no up). */
static sweep_vec3 across(sweep_vec3 v, sweep_vec3 up)
{
    return sweep_v3_madd(v, up, -sweep_v3_dot(v, up));
}

/* Turns velocity h towards target by at most max_change. Inline in the
 * walk, as it was before swimming and climbing called it too. */
static SWEEP__ALWAYS_INLINE sweep_vec3 accelerate(sweep_vec3 h, sweep_vec3 target, double max_change)
{
    sweep_vec3 d = sweep_v3_sub(target, h);
    double l2 = sweep_v3_len2(d);
    if (l2 <= max_change * max_change)
        return target;
    return sweep_v3_madd(h, d, max_change / sqrt(l2));
}

/* Quake 3's air acceleration (SWEEP_AIR_ALONG): velocity h gains along
 * the wish t (already across up and clamped) at most full_change times
 * the wish's share of walk_speed (Quake 3 scales it by the wished speed),
 * and only while its part along t is short of t's length; what h has
 * across t, or beyond t's speed along it, stays. */
static SWEEP__NOINLINE sweep_vec3 add_along(sweep_vec3 h, sweep_vec3 t, double full_change, double walk_speed)
{
    double t2 = sweep_v3_len2(t);
    if (!(t2 > 0.0))
        return h;
    double speed = sqrt(t2);
    double add = speed - sweep_v3_dot(h, t) / speed;
    if (!(add > 0.0))
        return h;
    double most = full_change * (speed / walk_speed);
    return sweep_v3_madd(h, t, (add < most ? add : most) / speed);
}

/* w clamped to the length `limit`. */
static sweep_vec3 clamped(sweep_vec3 w, double len, double limit)
{
    return len > limit ? sweep_v3_scale(w, limit / len) : w;
}

/* v capped at speed_limit (motion.h, 4), naming the cap in *rules when v
 * was past it by more than the tolerance (named_limit). */
static SWEEP__ALWAYS_INLINE sweep_vec3 limited(sweep_vec3 v, double limit, double named_limit, uint32_t *rules)
{
    double v2 = sweep_v3_len2(v);
    if (v2 > limit * limit) {
        if (v2 > named_limit * named_limit)
            *rules |= SWEEP_RULE_LIMIT;
        v = sweep_clamp_speed(v, limit);
    }
    return v;
}

/* A swimmer's velocity for one step of h seconds at this depth (motion.h,
 * swim): drag, then the turn towards the wish (w3, of length len3) or,
 * with none, towards sinking. */
static sweep_vec3 swim(const sweep_rules *r, sweep_vec3 vel, sweep_vec3 w3, double len3, sweep_vec3 up,
                       uint32_t level, double h)
{
    double keep = 1.0 - r->swim_drag * (double)level * h;
    sweep_vec3 v = sweep_v3_scale(vel, keep > 0.0 ? keep : 0.0);
    sweep_vec3 target = len3 > 0.0 ? clamped(w3, len3, r->swim_speed) : sweep_v3_scale(up, -r->swim_sink);
    return accelerate(v, target, r->swim_accel * h);
}

/* A climber's velocity for one step of h seconds on a ladder whose face
 * looks along n (motion.h, climb). */
static sweep_vec3 climb(const sweep_rules *r, sweep_vec3 vel, sweep_vec3 w3, sweep_vec3 up, sweep_vec3 n, double h)
{
    double wu = sweep_v3_dot(w3, up);
    sweep_vec3 wh = across(w3, up);
    double into = -sweep_v3_dot(wh, n);
    if (into > 0.0) {
        wh = sweep_v3_madd(wh, n, into);
        wu = wu + into;
    }
    sweep_vec3 target = sweep_v3_madd(wh, up, wu);
    return accelerate(vel, clamped(target, sweep_v3_len(target), r->climb_speed), r->climb_accel * h);
}

/* A step's result once its volumes took the body off the ground it ended
 * on (a teleport, a pad's launch): no ground, so no mover carries the
 * body from where it stood and the answer names none. Its contacts stay:
 * the move did touch them. */
static SWEEP__NOINLINE void left_the_ground(sweep_move_result *mv)
{
    mv->flags &= ~(uint32_t)SWEEP_MOVED_GROUNDED;
    mv->ground_normal = sweep_v3(0, 0, 0);
    mv->ground_triangle = SWEEP_NO_TRIANGLE;
    mv->ground_material = 0;
    mv->ground_mover = SWEEP_NO_MOVER;
    mv->ground_body = SWEEP_NO_BODY;
}

/* The probe and the medium of a body whose stance turned: rare, and out
 * of line, so that sweep_act's code, which shares the instruction cache
 * with the move's own, holds one copy of the medium test, not two. */
static SWEEP__NOINLINE void medium_of_stance(const sweep_world *w, sweep_vec3 radii, sweep_vec3 up, sweep_vec3 c,
                                             const sweep__medium_probe **p, sweep__medium *m)
{
    *p = sweep__medium_probe_for(radii, up);
    sweep__medium_at(w, *p, c, m);
}

sweep_status sweep_act(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                       sweep_vec3 radii, sweep_actor *actor, const sweep_wish *wish, double dt,
                       sweep_act_result *out)
{
    if (!space || !space->world || !cfg || !rules || !actor || !wish)
        return SWEEP_E_ARG;
    const sweep_world *world = space->world;
    int media = world->volume_mode_count != 0;
    sweep_status st = sweep_config_check(cfg);
    if (st == SWEEP_OK)
        st = walk_rules_check_kept(rules);
    if (st != SWEEP_OK)
        return st;
    if (!(rules->speed_limit <= cfg->max_speed))
        return SWEEP_E_CONFIG;
    const int can_crouch = sweep_rules_crouch(rules);
    if (can_crouch && !sweep__config_radii_ok(cfg, rules->crouch_radii))
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
    /* Liquids and ladders: what the body is in is known before each step
     * (motion.h); a world without them never looks. The probe is the
     * shape's: a stance turn makes it again. Found here, before the
     * wish's arithmetic, whose values would be live across its loop. */
    sweep__medium md = {0, 0, SWEEP__NO_LADDER};
    const sweep__medium_probe *probe = NULL;
    const sweep_vec3 probe_up = g > 0.0 ? up : sweep_v3(0, 0, 1);
    if (media) {
        probe = sweep__medium_probe_for(sweep_stance_radii(rules, radii, actor->stance), probe_up);
        sweep__medium_at(world, probe, actor->position, &md);
    }

    /* Not cleared whole: res.move is made by sweep_move_in on each step
     * (n >= 1, and it clears it first), and nearly all of its 600-odd
     * bytes are the contact list, which every move cleared twice. The
     * fields after it are, padding and all, so that *out holds the same
     * bytes for the same move, as it did. A move of one step (nearly
     * every one) has sweep_move_in build its result in *out itself: that
     * call is the only one after which nothing can fail, and it leaves
     * *out untouched when it does, so *out is still untouched on an
     * error; the copy of those 600-odd bytes was about 100 instructions a
     * move. */
    sweep_act_result res;
    sweep__zero_bytes(&res.rules, sizeof res - offsetof(sweep_act_result, rules));
    sweep_move_result *const mv = out && n == 1 ? &out->move : &res.move;
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

    /* The actor and the result's tail are copied and cleared in pieces
     * (core/bytes.h): as struct copies and memset, GCC made them string
     * instructions, a tenth of a move's time. */
    sweep_actor a;
    sweep__copy_bytes(&a, actor, sizeof a);
    /* How far the volumes that act after a step lie from where the move
     * starts: its steps that stay nearer than that do not look for them. */
    const double clear = sweep__volume_clearance(world, actor->position);
    double len3 = -1.0; /* the wish's length in three dimensions, once a step swims or climbs */
    for (uint32_t i = 0; i < n; i++) {
        /* Where the step begins, for its reports: a stance turned at its
         * start moves the centre (the feet stay), and a trigger or liquid
         * that turn takes the body into or out of is entered or left on
         * this step, as if it had walked there. */
        const sweep_vec3 step_from = a.position;
        const uint32_t stance_from = a.stance;
        /* The medium the step moves in: a turned shape's own, while md
         * stays where the step began for its report. */
        sweep__medium turned;
        const sweep__medium *mode = &md;
        if (a.stance != want) {
            int blocked;
            const uint32_t was = a.stance;
            st = sweep__stance_turn(space, cfg, rules, radii, &a, want, &blocked);
            if (st != SWEEP_OK)
                return st;
            res.stance_blocked = (uint32_t)blocked;
            if (media && a.stance != was) {
                medium_of_stance(world, sweep_stance_radii(rules, radii, a.stance), probe_up, a.position, &probe,
                                 &turned);
                mode = &turned;
            }
        }
        const sweep_vec3 *shape = a.stance ? &rules->crouch_radii : &radii;
        int grounded = g > 0.0 && a.grounded, air = 0;
        sweep_vec3 v;
        if (mode->level >= 2 || mode->ladder != SWEEP__NO_LADDER) {
            int swimming = mode->level >= 2;
            /* The first step that reads the swimming and climbing rules
             * checks them (motion.h); *actor is not yet touched. */
            if (len3 < 0.0) {
                if ((st = mode_rules_check(rules)) != SWEEP_OK)
                    return st;
                len3 = sweep_v3_len(wish->velocity);
            }
            if (len3 > rules->walk_speed * (1.0 + SWEEP_RULE_TOLERANCE)) {
                res.rules |= SWEEP_RULE_SPEED;
                res.speed_excess = len3 - rules->walk_speed;
            }
            if (swimming) {
                v = swim(rules, a.velocity, wish->velocity, len3, up, mode->level, h);
                if (i == 0 && (wish->buttons & SWEEP_WISH_JUMP) && mode->level == 2 && g > 0.0)
                    v = sweep_v3_madd(across(v, up), up, rules->swim_jump);
                res.volumes.events |= SWEEP_VOLUME_EV_SWAM;
            } else {
                v = climb(rules, a.velocity, wish->velocity, up, world->volumes[mode->ladder].normal, h);
                res.volumes.events |= SWEEP_VOLUME_EV_CLIMBED;
            }
        } else {
            double vu = grounded ? 0.0 : sweep_v3_dot(a.velocity, up);
            if (i == 0 && (wish->buttons & SWEEP_WISH_JUMP)) {
                if (grounded && rules->jump_speed > 0.0) {
                    vu = rules->jump_speed;
                    grounded = 0;
                } else if (!mode->level) {
                    res.rules |= SWEEP_RULE_JUMP;
                }
            }
            double accel = grounded ? rules->ground_accel : rules->air_accel;
            const sweep_vec3 aim = a.stance ? crouch_target : target, h0 = across(a.velocity, up);
            sweep_vec3 hv = grounded || rules->air_move == SWEEP_AIR_TOWARDS ? accelerate(h0, aim, accel * h)
                                                                             : add_along(h0, aim, accel * h, rules->walk_speed);
            /* In flight the step moves by its mean velocity under constant
             * gravity, the one at its middle, and the other half of the
             * gravity is added after the move: a free flight lands on the
             * parabola at every step's end however the time is chopped
             * (moving by the end velocity, a jump rose v h / 2 less, the
             * shorter the steps the higher: a client chopping its time
             * finer jumped higher). Walking keeps the whole step's gravity
             * in the move: it is what holds a walker to the ground. */
            air = !grounded && g > 0.0;
            v = sweep_v3_madd(sweep_v3_madd(hv, up, vu), cfg->gravity, air ? 0.5 * h : h);
        }
        v = limited(v, rules->speed_limit, named_limit, &res.rules);
        sweep_move_input in = {a.position, *shape, v, h, grounded ? SWEEP_INPUT_GROUNDED : 0};
        st = sweep__move_in_config_checked(space, cfg, &in, mv);
        if (st != SWEEP_OK)
            return st;
        a.position = mv->position;
        a.grounded = (mv->flags & SWEEP_MOVED_GROUNDED) != 0;
        /* The flight's end velocity: what the surfaces left of the mean
         * one, plus the other half step of gravity. A landing took the
         * part along up, which stays none. Against a ceiling or down a
         * steep face the half step runs into the surface and the next
         * step's sweep takes it away again: each step's mean velocity is
         * the last one as the surfaces left it plus one step of gravity,
         * so a body held under a ceiling or sliding down a face moves as
         * one moved by its end velocity does. The result reports what the
         * next step starts from. */
        if (air && !a.grounded)
            mv->velocity = limited(sweep_v3_madd(mv->velocity, cfg->gravity, 0.5 * h), rules->speed_limit,
                                   named_limit, &res.rules);
        a.velocity = mv->velocity;
        res.flags |= mv->flags;
        /* The volumes the step ended in (core/volume.h); a kill ends the
         * move, after the liquid it ended in has had its say. */
        int killed;
        if ((a.stance | stance_from) == SWEEP_STANCE_CROUCH && world->volume_count != world->volume_mode_count) {
            /* A crouched body is tested for the standing shape's volumes
             * as the shorter body it is (volume.h). */
            const double lift = sweep_half_height(radii, probe_up) - sweep_half_height(rules->crouch_radii, probe_up);
            killed = sweep__volumes_crouched(space, cfg, in.radii, step_from, stance_from == SWEEP_STANCE_CROUCH,
                                             a.stance == SWEEP_STANCE_CROUCH, &a, h, &res.volumes,
                                             sweep_v3_scale(probe_up, lift > 0.0 ? lift : 0.0));
        } else {
            killed = sweep__volumes_after_step(space, cfg, in.radii, step_from, &a, h, &res.volumes, actor->position,
                                               clear);
        }
        if (!a.grounded && (mv->flags & SWEEP_MOVED_GROUNDED))
            left_the_ground(mv);
        if (media)
            sweep__medium_after_step(world, probe, a.position, h, &md, &res.volumes);
        if (killed) {
            n = i + 1;
            break;
        }
    }
    res.steps = n;
    sweep__copy_bytes(actor, &a, sizeof a);
    if (out) {
        if (mv != &out->move)
            out->move = res.move;
        sweep__copy_bytes(&out->rules, &res.rules, sizeof res - offsetof(sweep_act_result, rules));
    }
    return SWEEP_OK;
}
