/*
 * smooth.c - the drawn position's offset and its decay (smooth.h).
 */
#include "client-sdk/smooth.h"

#include <math.h>

void sweep_smooth_init(sweep_smooth *s, double half_life, double snap)
{
    if (s == NULL)
        return;
    s->offset = sweep_v3(0.0, 0.0, 0.0);
    s->half_life = isfinite(half_life) && half_life > 0.0 ? half_life : 0.1;
    s->snap = isfinite(snap) && snap > 0.0 ? snap : 0.0;
}

void sweep_smooth_reset(sweep_smooth *s)
{
    if (s == NULL)
        return;
    s->offset = sweep_v3(0.0, 0.0, 0.0);
}

void sweep_smooth_correct(sweep_smooth *s, const sweep_predict_ack *ack)
{
    if (s == NULL || ack == NULL || !(ack->shift_len > 0.0))
        return;
    sweep_vec3 offset = sweep_v3_sub(s->offset, ack->shift);
    if (s->snap > 0.0 && (ack->shift_len > s->snap || !(sweep_v3_len(offset) <= s->snap)))
        offset = sweep_v3(0.0, 0.0, 0.0);
    s->offset = offset;
}

sweep_vec3 sweep_smooth_shown(sweep_smooth *s, sweep_vec3 predicted, double frame_dt)
{
    /* No smoother has no offset: what is drawn is the prediction. */
    if (s == NULL || (s->offset.x == 0.0 && s->offset.y == 0.0 && s->offset.z == 0.0))
        return predicted;
    if (isfinite(frame_dt) && frame_dt > 0.0) {
        /* exp(-k) with k = ln 2 * dt / half_life, as 1 / (1 + k + k^2/2 +
         * k^3/6): within 2% of the exponential for a frame up to a
         * half-life long, and never negative. */
        double k = 0.69314718055994531 * frame_dt / s->half_life;
        double keep = 1.0 / (1.0 + k * (1.0 + k * (0.5 + k * (1.0 / 6.0))));
        s->offset = sweep_v3_scale(s->offset, keep);
        /* Below a micrometre per unit of the position's size it is gone. */
        double size = fabs(predicted.x) + fabs(predicted.y) + fabs(predicted.z) + 1.0;
        if (sweep_v3_len(s->offset) < 1e-9 * size)
            s->offset = sweep_v3(0.0, 0.0, 0.0);
    }
    return sweep_v3_add(predicted, s->offset);
}
