/*
 * motion.h - the movement rules: what a player's wish becomes, applied the
 * same way by the server (which owns every entity's velocity) and by a
 * predicting client (which must get the same bits).
 *
 * A player does not say how it moves, only what it wants: a wished
 * velocity across the ground plane and a jump button (sweep_wish). One
 * step of sweep_act, in this order:
 *   0. the stance turns to the one the wish asks, where its shape has
 *      room (core/stance.h), on every step;
 *   1. the wish loses its part along up and is clamped to walk_speed
 *      (crouch_speed while crouched)
 *      (SWEEP_RULE_SPEED, with the excess, when it is beyond the
 *      tolerance: SWEEP_RULE_TOLERANCE);
 *   2. the horizontal velocity turns towards the wish by at most
 *      ground_accel * dt on walkable ground, air_accel * dt in the air
 *      (Quake's friction-free acceleration towards a target velocity);
 *      in the air under SWEEP_AIR_ALONG, the wish only adds speed along
 *      itself (Quake 3's air move, see sweep_rules.air_move);
 *   3. a jump starts only from walkable ground: the velocity along up
 *      becomes jump_speed (a jump asked in the air: SWEEP_RULE_JUMP,
 *      refused); on the ground the velocity along up is zero;
 *   4. gravity is added, and the velocity is capped at speed_limit
 *      (SWEEP_RULE_LIMIT, beyond the tolerance: terminal velocity, a law
 *      of the world rather than a cheat): on walkable ground gravity * dt,
 *      which holds the body to the ground (stepping down stairs, following
 *      a ramp); in the air (a jump's first step too) gravity * dt / 2, so
 *      that the step moves by its mean velocity under constant gravity;
 *   5. one collide-and-slide (sweep_move_in) with that velocity; the
 *      integration velocity it returns is the actor's new velocity. In
 *      the air, unless the step landed, the other half step of gravity is
 *      added to it (and capped again): the velocity at the step's end.
 *      A ceiling or a steep face met in the air takes its part of the
 *      mean velocity; the half step added after it runs into the surface
 *      again, and the next step's slide takes that away, as it took a
 *      whole step's gravity when the step moved by its end velocity;
 *   6. the world's volumes act on where the step ended (core/volume.h):
 *      a pad launches, a teleporter moves, a kill volume ends the move
 *      (steps then counts the steps that ran).
 * In a world with liquids or ladders (core/volume.h) a step starts by
 * asking what the body is in, and moves in one of two other modes
 * instead of 1 to 4 (Quake 3's PM_WaterMove, and the ladder move of its
 * descendants); what the body is in is asked again after 6, for the
 * result (entered, left, depth, damage of lava and slime) and the next
 * step:
 *   swim  (liquid level 2 or 3: the centre is in a liquid): the velocity
 *         loses speed * swim_drag * level * dt (Quake 3's water
 *         friction), then turns towards the wish in three dimensions (its
 *         part along up is used), clamped to swim_speed, by at most
 *         swim_accel * dt; with no wish the target is swim_sink along
 *         down (negative: the body rises). No gravity. A jump at level 2
 *         (the head out) sets the velocity along up to swim_jump, the
 *         way out of the water at the edge (Quake 3's water jump); deeper
 *         it does nothing. With the feet in a liquid a jump is never
 *         refused, whatever the mode (a swimmer holding it after the
 *         water jump is no cheat);
 *   climb (not swimming, the centre in a ladder): the wish's part towards
 *         the ladder (against its normal) becomes a part along up, so
 *         that pushing forward climbs; the velocity turns towards that
 *         wish, clamped to climb_speed, by at most climb_accel * dt, with
 *         no gravity: no wish holds the body still. The jump button is
 *         neither applied nor refused on a ladder.
 * In both a wish faster than walk_speed in three dimensions is named
 * Speed, as a walker's across the ground is; the clamp to the mode's
 * speed is the mode's law, not a cheat, and not named.
 * A move longer than max_step is split into equal steps no longer than it
 * (as Quake 3 splits a long user command); the jump is tried on the first
 * step only. A move of k equal steps is k moves of one step, bit for bit,
 * but steps of other lengths make other paths; how much the chopping of
 * a client's time can change:
 *   - a flight below speed_limit, from its first step to the one that
 *     touches anything (after walking off an edge, a jump, a pad's
 *     launch, a teleport's exit): along up, nothing but the rounding.
 *     Each step's end lies on the parabola of constant gravity, so a
 *     jump rises to jump_speed^2 / 2g whatever the rate, and its highest
 *     step end falls short of that by at most g h^2 / 8 (h the step),
 *     the drop half a step from the top;
 *   - across the ground, the turn towards the wish: it is made at the
 *     step's start and held for the step, so a body speeding up (or
 *     slowing down) covers up to accel * h / 2 per second of it more than
 *     under a steady acceleration, and one in the air likewise;
 *   - walking and contacts: a walker's step keeps the whole step's
 *     gravity, so one walking off an edge starts its fall up to
 *     g h^2 / 2 lower; steps up and down, snapping to the ground,
 *     slides along walls and landings are resolved once a step, at the
 *     step's velocity, and volumes act on where a step ends;
 *   - swimming and climbing: their drag and turns are made once a step,
 *     as the turn across the ground is.
 *
 * Everything is in the map's units and seconds (sweep_rules_default gives
 * values for metres). The actor is the whole state a server keeps for an
 * entity and a client needs to predict it; the rules come with the map
 * (its content hash covers them).
 */
#ifndef SWEEP_CORE_MOTION_H
#define SWEEP_CORE_MOTION_H

#include <stdint.h>

#include "core/crowd.h"
#include "core/move.h"
#include "core/status.h"
#include "core/vec3.h"
#include "core/volume.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Most steps one move is split into. */
#define SWEEP_ACT_MAX_STEPS 64u

typedef struct sweep_rules {
    double walk_speed;   /* fastest horizontal speed a player may wish for, units/s, > 0 */
    double ground_accel; /* horizontal acceleration on walkable ground, units/s^2, > 0 */
    double air_accel;    /* horizontal acceleration in the air (air control), units/s^2, >= 0 */
    double jump_speed;   /* speed along up a jump starts with, units/s, >= 0 (0: no jumping) */
    double max_step;     /* longest step of one move, s, in [0.001, 1]; longer moves are split */
    double speed_limit;  /* no velocity is longer than this, units/s, >= walk_speed and >= jump_speed */
    /* Crouching (core/stance.h): the crouched shape and the fastest wish
     * while crouched, in (0, walk_speed]; crouch_speed 0 (and zero radii):
     * the map has no crouching. */
    sweep_vec3 crouch_radii;
    double crouch_speed;
    /* Liquids and ladders (core/volume.h); a world without them never
     * reads these, and 0 is valid for each. What they make is capped at
     * speed_limit as any velocity is. */
    double swim_speed;  /* fastest swimming, units/s, in [0, 1e6] */
    double swim_accel;  /* how fast a swimmer's velocity turns towards the wish, units/s^2, in [0, 1e9] */
    double swim_drag;   /* speed lost per second at each level of depth, as a fraction, in [0, 1e3] */
    double swim_sink;   /* speed along down of a swimmer with no wish, units/s, |.| <= 1e6 */
    double swim_jump;   /* speed along up of a jump from the surface, units/s, in [0, 1e6] */
    double climb_speed; /* fastest climbing, units/s, in [0, 1e6] */
    double climb_accel; /* how fast a climber's velocity turns towards the wish, units/s^2, in [0, 1e9] */
    /* What the air acceleration does (SWEEP_AIR_*): a number, exactly 0
     * or 1, as every other rule and map column is. */
    double air_move;
} sweep_rules;

/* sweep_rules.air_move */
enum {
    /* The horizontal velocity turns towards the wish by at most
     * air_accel * dt a step, as it does on the ground: a body in the air
     * that wishes nothing slows down. */
    SWEEP_AIR_TOWARDS = 0,
    /* Quake 3's air move (PM_AirMove, Id Software 1999): the wish adds
     * speed along its own direction, at most air_accel * dt a step at a
     * wish of walk_speed (a slower wish adds in proportion, as Quake 3
     * scales by the wished speed), and only until the velocity's part
     * along it reaches the wish's speed. A crouched body's wish is held
     * to crouch_speed in the air too, as everywhere in sweep (Quake 3
     * scales a crouched walk on the ground only): its gain is a quarter
     * under Quake 3's numbers. Speed the wish does not work against is kept:
     * a body launched faster than it may walk, or wishing nothing, keeps
     * its horizontal velocity, so a jump pad's flight lands where Quake
     * 3's arithmetic says. Without gravity every step is in the air, so
     * a body that wishes nothing never slows down. */
    SWEEP_AIR_ALONG = 1
};

/* Rules for a level in metres: walk 5 m/s, 50 m/s^2 on the ground, 10 in
 * the air (turning towards the wish, SWEEP_AIR_TOWARDS), jumps of 5 m/s (about 1.3 m high under 9.81), steps of at most
 * 1/30 s, 60 m/s at most; Quake 3's water rules scaled by its walk speed
 * (320 units/s to 5 m/s): swim 2.5 m/s, 10 m/s^2, drag 1, sinking at
 * 0.9375 m/s, jumping out at 6.5 m/s (Quake 3's 350 against its 270 of a
 * jump, rounded); climbing 2.5 m/s at 50 m/s^2. A NULL r: nothing. */
void sweep_rules_default(sweep_rules *r);

/* SWEEP_OK if every field is finite and in range, SWEEP_E_CONFIG otherwise. */
sweep_status sweep_rules_check(const sweep_rules *r);

enum {
    SWEEP_WISH_JUMP = 1u << 0,  /* jump, if standing on walkable ground */
    SWEEP_WISH_CROUCH = 1u << 1 /* be crouched (held); released: stand up where the standing shape fits */
};

typedef struct sweep_wish {
    sweep_vec3 velocity; /* wished velocity; its part along up is ignored but swimming and climbing */
    uint32_t buttons;    /* SWEEP_WISH_* */
} sweep_wish;

/* sweep_actor.stance (core/stance.h) */
enum {
    SWEEP_STANCE_STAND = 0u,
    SWEEP_STANCE_CROUCH = 1u
};

/* What a server keeps of an entity, and a client predicts. */
typedef struct sweep_actor {
    sweep_vec3 position;
    sweep_vec3 velocity;   /* the last step's integration velocity */
    uint32_t grounded;     /* 1: the last step ended on walkable ground */
    uint32_t stance;       /* SWEEP_STANCE_* (core/stance.h) */
} sweep_actor;

/*
 * How far past its limit a wish or a velocity may be before the rule that
 * clamps it is named, as a fraction of the limit: 1e-9 of walk_speed for
 * Speed (5e-9 m/s under the default rules), of speed_limit for Limit. The
 * clamp itself is exact and always applied, whatever the excess; only the
 * naming waits for one that changes the outcome. An honest client's wish
 * computed the natural way, walk_speed * (cos a, sin a), is an ulp or two
 * longer than walk_speed on about one heading in twenty: naming that
 * would call an honest player a cheat, while a billionth of the limit is
 * millions of ulps and far below any excess worth having. A comparison
 * only: no new arithmetic reaches a result.
 */
#define SWEEP_RULE_TOLERANCE 1e-9

/* Rules that acted on a move (sweep_act_result.rules). */
enum {
    SWEEP_RULE_SPEED = 1u << 0, /* the wish was faster than walk_speed beyond the tolerance: clamped */
    SWEEP_RULE_JUMP = 1u << 1,  /* a jump was asked off the ground: refused */
    SWEEP_RULE_LIMIT = 1u << 2  /* the velocity passed speed_limit beyond the tolerance: capped */
};

typedef struct sweep_act_result {
    sweep_move_result move; /* the last step's sweep (its contacts, ground, flags; no ground once a
                             * teleport or a pad took the body off it): where the sweep left the
                             * body, before a teleport or a pad acted on that step; *actor holds
                             * where the move left it */
    uint32_t rules;         /* SWEEP_RULE_* that acted, any step */
    uint32_t steps;         /* core steps the move was split into */
    uint32_t flags;         /* SWEEP_MOVED_* of every step, or-ed */
    uint32_t stance_blocked; /* 1: the wish asked a stance the shape had no room for (core/stance.h) */
    double speed_excess;    /* how much faster than walk_speed the wish was, units/s, when SPEED is named (else 0) */
    sweep_volume_report volumes; /* what the world's volumes did (core/volume.h) */
} sweep_act_result;

/*
 * Moves an actor of the given radii (standing: a crouched actor has the
 * rules' crouch_radii) by its wish for dt seconds (0 < dt <=
 * cfg->max_dt) under the rules, through the space. On SWEEP_OK *actor is
 * the new state and *out (may be NULL) says what happened; on an error
 * (bad rules, bad wish, what sweep_move refuses) nothing changes. The
 * swimming and climbing rules are checked only by a move that swims or
 * climbs, the only one that reads them.
 */
sweep_status sweep_act(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                       sweep_vec3 radii, sweep_actor *actor, const sweep_wish *wish, double dt,
                       sweep_act_result *out);

#ifdef __cplusplus
}
#endif

#endif
