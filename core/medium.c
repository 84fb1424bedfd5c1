/*
 * medium.c - which liquid and which ladder a body is in (core/medium.h;
 * the rule is core/volume.h's).
 *
 * The depth is sampled at three points as Quake 3 samples its waterlevel
 * (feet, waist, eyes), each against the liquids of the world (the test
 * itself is inline, in medium.h). + - * / and sqrt only, in a fixed
 * order.
 */
#include "core/medium.h"

void sweep__medium_after_step(const sweep_world *w, const sweep__medium_probe *p, sweep_vec3 c, double h,
                              sweep__medium *m, sweep_volume_report *rep)
{
    const sweep__medium was_m = *m, *was = &was_m, *now = m;
    sweep__medium_at(w, p, c, m);
    if (now->level && !was->level) {
        rep->events |= SWEEP_VOLUME_EV_LIQUID_ENTERED;
        rep->liquid_entered = now->liquid;
    } else if (was->level && !now->level) {
        rep->events |= SWEEP_VOLUME_EV_LIQUID_LEFT;
        rep->liquid_left = was->liquid;
    }
    rep->events &= ~(uint32_t)(SWEEP_VOLUME_EV_IN_LIQUID | SWEEP_VOLUME_EV_ON_LADDER);
    rep->liquid = 0;
    rep->liquid_type = SWEEP_LIQUID_NONE;
    rep->liquid_level = now->level;
    rep->ladder = 0;
    if (now->level) {
        const sweep_volume *v = &w->volumes[now->liquid];
        rep->events |= SWEEP_VOLUME_EV_IN_LIQUID;
        rep->liquid = now->liquid;
        rep->liquid_type = (uint32_t)v->liquid;
        if (v->damage > 0.0) {
            rep->damage += v->damage * (double)now->level * h;
            rep->events |= SWEEP_VOLUME_EV_HURT;
            rep->hurt_by = now->liquid;
        }
    }
    if (now->ladder != SWEEP__NO_LADDER) {
        rep->events |= SWEEP_VOLUME_EV_ON_LADDER;
        rep->ladder = now->ladder;
    }
}
