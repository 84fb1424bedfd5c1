/*
 * predict.h - client-side prediction and reconciliation with the same core
 * the server runs.
 *
 * A game cannot wait a round trip to show where its player went, so it
 * moves the player locally at once with sweep_move on the same map, sends
 * the move, and later compares the server's answer with what it predicted.
 * Because the core is deterministic and the map the same (checked with the
 * content hash from Welcome, sweep_client_check_map), the two agree bit for
 * bit and nothing needs correcting. When they do not (a move lost on UDP,
 * refused by the server, or a state the client got wrong), the predictor
 * rewinds to the server's answer and replays the moves the server has not
 * answered yet on top of it, so the predicted state converges again.
 *
 * The entity model is the server's, exactly: the state is position, radii
 * and a grounded flag; a move passes velocity and dt as given to sweep_move
 * with the world's config and SWEEP_INPUT_GROUNDED set when the previous
 * result was grounded; the new position and grounded flag are kept.
 * A freshly spawned entity starts not grounded.
 *
 * Invariants: pending[0 .. count) are the moves sent and not yet answered,
 * in increasing sequence order, each with the state it predicted;
 * `confirmed` is the state after the last answered move (or the spawn);
 * the current prediction is the last pending state, or `confirmed` when
 * nothing is pending.
 */
#ifndef SWEEP_CLIENT_SDK_PREDICT_H
#define SWEEP_CLIENT_SDK_PREDICT_H

#include <stdint.h>

#include "client-sdk/client.h"
#include "core/move.h"
#include "core/status.h"
#include "core/world.h"
#include "maps/level.h"

/* One entity's state as the server keeps it. */
typedef struct sweep_predict_state {
    sweep_vec3 position;
    sweep_vec3 velocity; /* integration velocity of the last move (zero at spawn) */
    int grounded;
} sweep_predict_state;

typedef struct sweep_predict_pending {
    uint32_t sequence;
    sweep_vec3 velocity; /* as sent */
    double dt;
    sweep_predict_state predicted;
} sweep_predict_pending;

typedef struct sweep_predictor {
    const sweep_world *world; /* borrowed; outlives the predictor */
    sweep_config config;
    sweep_vec3 radii;
    sweep_predict_state confirmed;
    sweep_predict_pending *pending;
    uint32_t count, cap;
    /* Counters. */
    uint64_t predicted_moves;
    uint64_t acks_matched;   /* answers equal to the prediction, bit for bit */
    uint64_t mismatches;     /* answers that differed: each caused a rewind */
    uint64_t replayed_moves; /* moves recomputed after rewinds */
    uint64_t rejected;       /* moves the server refused with an Error */
} sweep_predictor;

/* Starts predicting for an entity of the given radii at position (as
 * Spawned said). world and cfg are the map's (sweep_map_build_world and
 * level.config). */
void sweep_predictor_init(sweep_predictor *p, const sweep_world *world, const sweep_config *cfg,
                          sweep_vec3 position, sweep_vec3 radii);

void sweep_predictor_free(sweep_predictor *p);

/* Predicts the move numbered `sequence` (as the client sent it) and keeps
 * it until answered; *out (may be NULL) is the core's full result.
 * SWEEP_OK, SWEEP_E_NOMEM, or the core's status for bad input (then
 * nothing is kept: the server will refuse the move as well). */
sweep_status sweep_predictor_step(sweep_predictor *p, uint32_t sequence, sweep_vec3 velocity, double dt,
                                  sweep_move_result *out);

/* What one answer did. */
typedef struct sweep_predict_ack {
    int found;         /* the answer named a pending move */
    int mismatch;      /* it differed from the prediction: rewound and replayed */
    uint32_t dropped;  /* older pending moves given up (never answered: lost) */
    uint32_t replayed; /* pending moves recomputed on top of the answer */
} sweep_predict_ack;

/* Reconciles with the server's answer to a move. Moves older than it that
 * are still pending are given up (the server answers in order, so they
 * were lost); if the answer differs from the prediction in position,
 * velocity or grounded flag (bits), the state is set to the server's and
 * the later moves are replayed. An answer to no pending move (a duplicate)
 * changes nothing. */
sweep_status sweep_predictor_ack(sweep_predictor *p, const sweep_msg_move_result *r, sweep_predict_ack *info);

/* The server refused the move numbered `sequence` (an Error naming it): it
 * is forgotten and the later pending moves are replayed without it. */
sweep_status sweep_predictor_reject(sweep_predictor *p, uint32_t sequence, sweep_predict_ack *info);

/* The current prediction (after every pending move). */
sweep_predict_state sweep_predictor_current(const sweep_predictor *p);

/* 1 if the server result r equals the predicted state s bit for bit. */
int sweep_predict_state_equal(const sweep_predict_state *s, const sweep_msg_move_result *r);

/* Runs one move the way the server does for an entity in state *s, and
 * updates *s; *out (may be NULL) gets the full core result. */
sweep_status sweep_predict_run(const sweep_world *world, const sweep_config *cfg, sweep_vec3 radii,
                               sweep_predict_state *s, sweep_vec3 velocity, double dt, sweep_move_result *out);

/* Compares the map hash the server sent in Welcome with the content hash
 * of lv. SWEEP_CLIENT_OK if equal, SWEEP_CLIENT_E_MAP_MISMATCH (err says
 * both hashes) if not. */
sweep_client_status sweep_client_check_map(const sweep_client *c, const sweep_level *lv, sweep_client_error *err);

#endif
