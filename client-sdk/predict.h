/*
 * predict.h - client-side prediction and reconciliation with the same core
 * the server runs, among the same movers.
 *
 * A game cannot wait a round trip to show where its player went, so it
 * moves the player locally at once with the core on the same map, sends
 * the move, and later compares the server's answer with what it predicted.
 * Because the core is deterministic and the map the same (checked with the
 * content hash from Welcome, sweep_client_check_map), the two agree bit for
 * bit and nothing needs correcting. When they do not (a move lost on UDP,
 * refused by the server, a mover that carried or pushed the player, or a
 * state the client got wrong), the predictor rewinds to the server's answer
 * and replays the moves the server has not answered yet on top of it, so
 * the predicted state converges again.
 *
 * The entity model is the server's, exactly (server/README.md): the state
 * is the server's actor (core/motion.h: position, velocity, grounded,
 * stance) and the mover it stands on; the radii are the spawned ones, its
 * standing shape (crouched, the map's crouch radii: core/stance.h). A player's move
 * is a wish (a velocity across the ground and buttons such as
 * SWEEP_WISH_JUMP) and a dt, and the server runs sweep_act with the map's
 * rules (sweep_level.rules) and config through the static world and the
 * movers at their current poses: the rules clamp the wish to the walk
 * speed, accelerate towards it, start jumps from walkable ground only,
 * add gravity and split long moves into steps. The new actor and ground
 * mover are kept. A freshly spawned entity starts at rest, not grounded.
 * sweep_predict_run is that rule, and the only place the predictor moves
 * anything; it is the server's Walk mode, the one mode a player may use.
 * The server may grant less time than a move asks (its time budget,
 * MoveResult.applied_dt): an honest client never asks for more than the
 * time that passed, so that does not happen to it, and when it does the
 * answer differs and is taken like any other difference.

 * Movers. The server moves its movers on its tick and, between two moves
 * of an entity, its ticks carry the entity if it stands on one and push it
 * if one runs into it; the next move starts where they left it, and the
 * MoveResult says so (carried, pushed, pushed_by, start_position). The
 * client follows the poses through WorldState (sweep_client_watch_world,
 * every = 1 for a predicting client) and sets them on its own sweep_movers
 * (built from the same map, sweep_predict_build_movers). Then:
 *   - with the poses of the tick a move was applied at (MoveResult.server_tick)
 *     and the state the server started it from (sweep_predict_server_start:
 *     the previous answer, or start_position when a mover moved the entity),
 *     sweep_predict_run gives the server's answer bit for bit;
 *   - given the tick the server will apply a move at
 *     (sweep_predictor_step_at, with sweep_client_estimate_tick: client.h,
 *     tick_clock.h), the predictor predicts it against the poses of that
 *     tick: WorldState also says where each mover is on its path
 *     (WorldState.paths), and movers are functions of the tick, so it
 *     puts its own copy of the movers at the told state of the tick the
 *     entity's previous move was applied at (or the newest tick told
 *     before it) and runs them on to the move's tick with the core's own
 *     mover tick (sweep_movers_tick), the entity as its body: riders are
 *     carried, and bodies in a mover's way pushed, exactly as the
 *     server's ticks do between two moves. No arithmetic of its own
 *     extrapolates anything. Then the answer equals the first prediction
 *     bit for bit, unless the server met another tick (a move that
 *     travelled or was read late: ack.predicted_tick against
 *     MoveResult.server_tick), or something the client is not told moved
 *     a mover (another player blocking or triggering it, a MoverCommand
 *     in the tick before);
 *   - without the tick (sweep_predictor_step), or when it cannot run the
 *     movers (a server that sends no paths, no tick told with them within
 *     the history), it predicts against the newest poses it has, carrying
 *     a predicted state standing on a mover (its ground_mover) from the
 *     poses it was computed against to the newest ones (the same place on
 *     the mover, as the server's tick carries riders); pushes are not
 *     foreseen then, and the server's answer (start_position) brings them;
 *   - when an answer differs it checks the answer exactly if it still
 *     holds the poses of the answer's tick (re-running the move from the
 *     server's start: ack.rerun / rerun_match), takes the answer, and
 *     replays the later moves, each at the tick it was predicted at.
 *   The predictor keeps the last SWEEP_PREDICT_HISTORY ticks' poses and
 *   paths it was given.
 * Other players: a sweepd run with --players-block on makes every entity
 * an obstacle to the others. The protocol does not tell a client where the
 * others are, so near them its predictions (and re-runs) differ from the
 * answers; that is not a desync, and the answers still reconcile it.
 */
#ifndef SWEEP_CLIENT_SDK_PREDICT_H
#define SWEEP_CLIENT_SDK_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "client-sdk/client.h"
#include "core/motion.h"
#include "core/move.h"
#include "core/mover.h"
#include "core/world.h"
#include "maps/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ticks of mover poses a predictor keeps for carrying riders (one second
 * at 64 ticks per second: a round trip longer than that is not carried). */
#define SWEEP_PREDICT_HISTORY 64u

/* One entity's state as the server keeps it: its actor (core/motion.h)
 * and the mover it stands on. */
typedef struct sweep_predict_state {
    sweep_vec3 position;
    sweep_vec3 velocity;   /* the actor's velocity: the last step's integration velocity (zero at spawn) */
    int grounded;          /* the last step ended on walkable ground */
    uint32_t ground_mover; /* mover index (core/mover.h) stood on after the last move, SWEEP_NO_MOVER if none;
                              written by sweep_predict_run, never read by it */
    uint32_t stance;       /* the actor's SWEEP_STANCE_* (core/stance.h): crouched, on a map with crouching */
} sweep_predict_state;

/* A state at position, not grounded, on no mover: an entity as spawned. */
sweep_predict_state sweep_predict_state_at(sweep_vec3 position);

/* The predictor of one entity; its state is reached through the calls
 * below (the pending moves, the confirmed state and the counters it keeps
 * are its own: a caller that changed them would break its invariants). */
typedef struct sweep_predictor sweep_predictor;

/* Starts predicting for an entity of the given radii at position (as
 * Spawned said), at rest and not grounded; *out is the new predictor.
 * world, cfg and rules are the map's (sweep_map_build_world, level.config,
 * level.rules); world is borrowed and must outlive the predictor. The
 * world sweep_map_build_world makes holds the map's volumes (jump pads,
 * teleporters, ...: core/volume.h), which the movement rules run, so a
 * prediction meets them as the server's moves do. No movers until
 * sweep_predictor_set_movers. SWEEP_CLIENT_E_ARG, _E_NOMEM. */
sweep_client_status sweep_predictor_create(const sweep_world *world, const sweep_config *cfg,
                                           const sweep_rules *rules, sweep_vec3 position, sweep_vec3 radii,
                                           sweep_predictor **out, sweep_client_error *err);

/* Frees the predictor (not the world nor the movers it borrows). NULL is ignored. */
void sweep_predictor_destroy(sweep_predictor *p);

/*
 * Predicts among movers: mv (borrowed; NULL = none again) was built from
 * lv (borrowed, the same map as the world) with sweep_predict_build_movers
 * or sweep_level_build_movers; the predictor moves its poses only through
 * sweep_predictor_world_state. Both must outlive the predictor (or the
 * next call). SWEEP_CLIENT_E_ARG (err says why) when lv is missing or has
 * another number of movers than mv, SWEEP_CLIENT_E_NOMEM; nothing changes
 * then.
 */
sweep_client_status sweep_predictor_set_movers(sweep_predictor *p, sweep_movers *mv, const sweep_level *lv,
                                               sweep_client_error *err);

/* Applies a WorldState (or one part of a split UDP one) to the predictor's
 * movers and remembers its poses for carrying. A part older than what a
 * mover already has (a late datagram) does not move it back. Errors as
 * sweep_predict_apply_world_state, and SWEEP_CLIENT_E_ARG without movers;
 * nothing changes on error. */
sweep_client_status sweep_predictor_world_state(sweep_predictor *p, const sweep_msg_world_state *ws,
                                                sweep_client_error *err);

/* Predicts the move numbered `sequence` (the wish and dt as the client
 * sent them) against the newest poses, and keeps it until answered; *out
 * (may be NULL) is the core's full result, its `rules` what the server
 * will report for the move. SWEEP_CLIENT_OK; SWEEP_CLIENT_E_NOMEM;
 * SWEEP_CLIENT_E_ARG for a NULL wish, or for input the core refuses,
 * err->code then naming what the server answers it with (BadNumber,
 * BadDt, BadVelocity, ...; BadPosition for a move that would end beyond
 * the map's coordinate limit): nothing is kept, since the server will
 * refuse the move as well. */
sweep_client_status sweep_predictor_step(sweep_predictor *p, uint32_t sequence, const sweep_wish *wish, double dt,
                                         sweep_act_result *out, sweep_client_error *err);

/* The same for a move the server will apply at server tick `tick`
 * (sweep_client_estimate_tick right after sending it): predicted among
 * the movers as they will be at that tick (see the file comment), or at
 * the tick of the entity's previous move if that is later; tick 0, or
 * movers that cannot be run on (no paths told), predict as
 * sweep_predictor_step does. */
sweep_client_status sweep_predictor_step_at(sweep_predictor *p, uint32_t sequence, const sweep_wish *wish, double dt,
                                            uint64_t tick, sweep_act_result *out, sweep_client_error *err);

/* What one answer did. */
typedef struct sweep_predict_ack {
    int found;         /* the answer named a pending move */
    int mismatch;      /* it differed from the prediction: rewound and replayed */
    uint32_t dropped;  /* older pending moves given up (never answered: lost) */
    uint32_t replayed; /* pending moves recomputed on top of the answer */
    int moved;         /* a mover carried or pushed the entity before this move (start_position) */
    int rerun;         /* the answer differed and the predictor held the poses of its tick, so it
                          ran the move again from where the server started it, for the time
                          the server granted (applied_dt when time_excess says it was cut) ... */
    int rerun_match;   /* ... and got the server's answer bit for bit: the difference was only
                          where the move started or which poses it met, not the computation */
    uint64_t predicted_tick; /* the tick the move was predicted at (0: against the newest poses);
                                the answer's server_tick is the one it met */
    sweep_vec3 shift;  /* how far the current prediction moved (after minus before): what a
                          game shows jumps by this much unless it smooths it (smooth.h) */
    double shift_len;  /* |shift|; 0 when the answer matched */
} sweep_predict_ack;

/* Reconciles with the server's answer to a move. Moves older than it that
 * are still pending are given up (the server applies moves in order: they
 * were lost, or their answers were, and this answer is the state after
 * them either way); if the answer differs from the prediction in
 * position, velocity or grounded flag (bits), the state is set to the
 * server's and the later moves are replayed (see the file comment for
 * movers). An answer to no pending move (a duplicate, or one overtaken by
 * a later answer) changes nothing (info->found is 0). SWEEP_CLIENT_E_ARG
 * for NULL arguments; SWEEP_CLIENT_E_PROTOCOL, naming the field, for an
 * answer no server of the map gives (a position, start or velocity not
 * finite, a place past the map's coordinate limit, more contacts than an
 * answer holds, an applied_dt outside [0, 1]), which changes nothing
 * either. */
sweep_client_status sweep_predictor_ack(sweep_predictor *p, const sweep_msg_move_result *r, sweep_predict_ack *info,
                                        sweep_client_error *err);

/* The server refused the move numbered `sequence` (an Error naming it): it
 * is forgotten and the later pending moves are replayed without it. */
sweep_client_status sweep_predictor_reject(sweep_predictor *p, uint32_t sequence, sweep_predict_ack *info,
                                           sweep_client_error *err);

/* The current prediction: after every pending move, at the tick the last
 * one was predicted at, or (predicted against the newest poses, or none
 * pending) carried to the newest poses.
 * The calls from here to sweep_predictor_last_error cannot report an
 * error: given a NULL predictor they answer as about an entity spawned at
 * the origin with nothing pending, no tick and all counters 0 (a NULL out
 * is left alone), and sweep_predictor_last_error gives an error of status
 * SWEEP_CLIENT_E_ARG, as every call on a NULL predictor reports. */
sweep_predict_state sweep_predictor_current(const sweep_predictor *p);

/* The state the server last confirmed: its last answer taken (or where
 * the entity spawned), as that answer had it. */
sweep_predict_state sweep_predictor_confirmed(const sweep_predictor *p);

/* Moves predicted and not answered yet (nor given up or refused). */
uint32_t sweep_predictor_pending(const sweep_predictor *p);

/* The newest tick whose WorldState was applied (0: none). */
uint64_t sweep_predictor_tick(const sweep_predictor *p);

/* What a predictor has done, counted since it was created. */
typedef struct sweep_predict_counters {
    uint64_t predicted_moves;
    uint64_t acks_matched;    /* answers equal to the prediction, bit for bit */
    uint64_t mismatches;      /* answers that differed: each caused a rewind */
    uint64_t replayed_moves;  /* moves recomputed after rewinds */
    uint64_t rejected;        /* moves the server refused with an Error */
    uint64_t moved_by_movers; /* answers saying a mover carried or pushed the entity before the move */
    uint64_t reruns;          /* differing answers checked by re-running from the server's start */
    uint64_t rerun_matches;   /* ... that gave the server's answer bit for bit */
    uint64_t carries;         /* predicted states carried with the mover they stand on */
    uint64_t world_states;    /* WorldStates (or parts) applied */
    uint64_t projected;       /* moves predicted at the tick they were to meet, the movers run on to it */
    uint64_t tick_misses;     /* answers to those that met another tick than predicted */
    uint64_t sim_ticks;       /* ticks the predictor ran its own movers */
} sweep_predict_counters;

void sweep_predictor_get_counters(const sweep_predictor *p, sweep_predict_counters *out);

/* The error of the last call on p that returns a sweep_client_status
 * (status SWEEP_CLIENT_OK after one that succeeded). */
const sweep_client_error *sweep_predictor_last_error(const sweep_predictor *p);

/* 1 if the server result r equals the predicted state s bit for bit
 * (position, velocity, grounded, crouched); 0 if either is NULL. */
int sweep_predict_state_equal(const sweep_predict_state *s, const sweep_msg_move_result *r);

/*
 * Runs one Walk move the way the server does for an entity in state *s:
 * sweep_act with the rules and config, the wish and dt, through the
 * static world and the movers mv at their current poses (NULL: static
 * world only); updates *s on success; *out (may be NULL) gets the full
 * result (the last step's collision, the rules that acted). The one
 * function that does what the server does for a move. SWEEP_CLIENT_E_ARG
 * for a missing world, config, rules, state or wish, or for input the core
 * refuses (err->code: what the server answers it with, err->message the
 * core's reason); *s is unchanged on error.
 */
sweep_client_status sweep_predict_run(const sweep_world *world, const sweep_movers *mv, const sweep_config *cfg,
                                      const sweep_rules *rules, sweep_vec3 radii, sweep_predict_state *s,
                                      const sweep_wish *wish, double dt, sweep_act_result *out,
                                      sweep_client_error *err);

/* The state the server started the move answered by r from, given the
 * entity's state `before` it (the previous answer): the same, except at
 * r->start_position when a mover carried or pushed the entity in between.
 * The velocity and the grounded flag stay the previous answer's: a tick
 * that carries or pushes an entity moves only its position on the server
 * too (server/world/world.c). A NULL before is taken as
 * sweep_predict_state_at the origin, a NULL r as an answer without
 * start_position (no status to report them with). */
sweep_predict_state sweep_predict_server_start(const sweep_predict_state *before, const sweep_msg_move_result *r);

/* --- movers of the map ------------------------------------------------------- */

/* Builds the core movers of lv for prediction, at tick_rate ticks per
 * second (Welcome.tick_rate, which a server may set apart from the map's;
 * 0 = the map's), triangles numbered after the static ones as on the
 * server. Poses then come from WorldState; the tick rate only matters to
 * path queries. SWEEP_CLIENT_E_ARG for a tick rate out of [1, 10000] or a
 * level whose movers the core refuses, or that counts movers and has no
 * array of them (err says why), SWEEP_CLIENT_E_NOMEM. */
sweep_client_status sweep_predict_build_movers(const sweep_level *lv, double tick_rate, sweep_movers **out,
                                               sweep_client_error *err);

/* The index in lv->movers (and in movers built from lv) of the mover whose
 * map id is `id`, or SWEEP_NO_MOVER (id 0, not in the map, lv NULL or
 * without its movers array). */
uint32_t sweep_predict_mover_index(const sweep_level *lv, uint32_t id);

/* The map id of mover index i of lv, 0 for SWEEP_NO_MOVER or out of range
 * (or lv NULL or without its movers array). */
uint32_t sweep_predict_mover_id(const sweep_level *lv, uint32_t i);

/*
 * Puts each mover a WorldState lists at its pose (sweep_movers_set_pose),
 * mapping MoverTransform.id to its index through lv (the map mv was built
 * from). All or nothing: SWEEP_CLIENT_E_ARG for a mover id the map does
 * not have, a rotation that is not a unit quaternion (|q|^2 off 1 by more
 * than 1e-6), a position past the map's coordinate limit, mv with
 * another number of movers than lv, or a NaN or infinite pose (err->code
 * BadNumber); err says which mover. Also
 * SWEEP_CLIENT_E_ARG for NULL mv, lv or ws, a ws that counts movers and
 * holds none, and an lv that counts movers and has no array of them.
 */
sweep_client_status sweep_predict_apply_world_state(sweep_movers *mv, const sweep_level *lv,
                                                    const sweep_msg_world_state *ws, sweep_client_error *err);

/* Compares the map hash the server sent in Welcome with the content hash
 * of lv. SWEEP_CLIENT_OK if equal, SWEEP_CLIENT_E_MAP_MISMATCH (err says
 * both hashes) if not. */
sweep_client_status sweep_client_check_map(sweep_client *c, const sweep_level *lv, sweep_client_error *err);

#ifdef __cplusplus
}
#endif

#endif
