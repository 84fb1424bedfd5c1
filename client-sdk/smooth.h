/*
 * smooth.h - showing a correction over a few frames instead of at once.
 *
 * When the server's answer differs from the prediction, the predictor
 * takes the answer at once (the authoritative state must be right for the
 * next moves), and the predicted position jumps by the ack's shift
 * (predict.h). A game that draws that position shows the jump. This helper
 * keeps what is drawn continuous: at a correction the drawn position stays
 * where it was (the shift goes into an offset), and the offset then shrinks
 * every frame, about halving every half_life seconds, so the drawn player
 * glides onto the predicted one. Only what is drawn is smoothed; the
 * predictor and everything sent to the server use the predicted state.
 *
 * A shift longer than `snap` (a teleport, a respawn, a lift that carried
 * the player far) is shown at once: gliding across a level looks worse
 * than a cut.
 *
 * The decay is a rational approximation of the exponential (+ - * / only),
 * so the frames it gives are the same on every build, as the rest of
 * libsweep.
 *
 *     sweep_smooth sm;
 *     sweep_smooth_init(&sm, 0.1, 2.0);            // half-life 100 ms, snap past 2 m
 *     ... on each answer:
 *     sweep_predictor_ack(p, &result, &ack, NULL);
 *     sweep_smooth_correct(&sm, &ack);
 *     ... on each frame:
 *     draw_player(sweep_smooth_shown(&sm, sweep_predictor_current(p).position, frame_dt));
 *
 * docs/smoothing.svg shows one correction (drawn by
 * client-sdk/examples/smooth_plot.c).
 */
#ifndef SWEEP_CLIENT_SMOOTH_H
#define SWEEP_CLIENT_SMOOTH_H

#include "client-sdk/predict.h"
#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef struct sweep_smooth {
    sweep_vec3 offset; /* drawn minus predicted */
    double half_life;  /* seconds for the offset to halve (about) */
    double snap;       /* shifts longer than this are shown at once; 0: never */
} sweep_smooth;

/* half_life > 0 seconds (not finite or not above 0: 0.1); snap >= 0
 * (0: never snap). The offset starts at zero.
 * These calls cannot report errors: given a NULL s, init, correct and
 * reset do nothing and sweep_smooth_shown returns `predicted`; a NULL ack
 * is no correction. */
void sweep_smooth_init(sweep_smooth *s, double half_life, double snap);

/* An answer moved the prediction by ack->shift: keep the drawn position
 * (or, past snap, let it jump and forget the offset). */
void sweep_smooth_correct(sweep_smooth *s, const sweep_predict_ack *ack);

/* The position to draw this frame for the predicted one, frame_dt seconds
 * after the last frame (the offset shrinks by that much time first). With
 * no offset it is `predicted`, bit for bit. */
sweep_vec3 sweep_smooth_shown(sweep_smooth *s, sweep_vec3 predicted, double frame_dt);

/* Forgets the offset (the player respawned). */
void sweep_smooth_reset(sweep_smooth *s);

#ifdef __cplusplus
}
#endif

#endif
