/*
 * stance.h - standing and crouching: the shape a player has, and where it
 * may change it.
 *
 * A map's rules may give a crouch shape (sweep_rules.crouch_radii) and
 * the fastest wish while crouched (crouch_speed). A player holds
 * SWEEP_WISH_CROUCH to be crouched and releases it to stand; sweep_act
 * turns the actor's stance at the start of every step (so a move split
 * into steps does what the same time chopped into moves does), and only
 * where the new shape has room: the test a Spawn's place, a Teleport and
 * an EntityCommand SetRadii are checked with (sweep_room_at), over the
 * same space the move sweeps. A shape that does not fit leaves the stance
 * as it was, and the move's result says so (stance_blocked): a player
 * under a low ceiling stays crouched, moving at crouch speed, until the
 * standing shape fits.
 *
 * The feet stay where they are: the centre moves along up (against
 * gravity; +z without it) by the change of the shape's half-height along
 * up, so a crouched player on a floor stays on it, and one in the air
 * draws its head in rather than its feet up (as a Quake player does).
 * Everything is + - * / and sqrt in a fixed order, so a predicting client
 * turns at the same step to the same bits.
 */
#ifndef SWEEP_CORE_STANCE_H
#define SWEEP_CORE_STANCE_H

#include <stdint.h>

#include "core/crowd.h"
#include "core/motion.h"
#include "core/move.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the rules allow crouching (crouch_speed > 0); NULL rules do not.
 * Where r is known not to be NULL (sweep_act has tested it) the test
 * folds away. */
static inline int sweep_rules_crouch(const sweep_rules *r)
{
    return r && r->crouch_speed > 0.0;
}

/* The shape of an actor of standing radii `radii` in `stance` (radii for
 * NULL rules, which have no crouching). r is tested only for a crouched
 * actor, so a standing one costs what it did. */
static inline sweep_vec3 sweep_stance_radii(const sweep_rules *r, sweep_vec3 radii, uint32_t stance)
{
    return stance == SWEEP_STANCE_CROUCH && r ? r->crouch_radii : radii;
}

/* Half the extent along unit u of the axis-aligned ellipsoid of radii r:
 * how far its lowest point is below its centre. */
double sweep_half_height(sweep_vec3 r, sweep_vec3 u);

/*
 * Whether an ellipsoid of radii r centred at q has room in the space: the
 * core's own embedded-start test, a move of 1e-6 units along up (unit)
 * from q, which reports SWEEP_MOVED_STARTED_EMBEDDED and the contact it
 * started in when the ellipsoid overlaps a triangle's front (a centre
 * behind every face of a closed solid is not seen: the core collides with
 * front faces only). Returns SWEEP_OK and *free (1: room; 0: *res's first
 * contact says what is in the way), or why the move was refused
 * (SWEEP_E_ARG for a NULL pointer or a space without a world).
 */
sweep_status sweep_room_at(const sweep_space *space, const sweep_config *cfg, sweep_vec3 q, sweep_vec3 r,
                           sweep_vec3 up, int *free, sweep_move_result *res);

/* Internal (core/motion.c): turns *a to `want` at the start of a step if
 * its shape has room there (radii: standing). Returns SWEEP_OK and
 * *blocked (1: no room, *a unchanged), or an error of the room test. */
sweep_status sweep__stance_turn(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                                sweep_vec3 radii, sweep_actor *a, uint32_t want, int *blocked);

#ifdef __cplusplus
}
#endif

#endif
