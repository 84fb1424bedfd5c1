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

void sweep__medium_step_report(const sweep_world *w, const sweep__medium *was, const sweep__medium *now, double h,
                               sweep_volume_report *rep)
{
    uint32_t was_level = was->level, was_liquid = was->liquid;
    uint32_t ev = rep->events & ~(uint32_t)(SWEEP_VOLUME_EV_IN_LIQUID | SWEEP_VOLUME_EV_ON_LADDER);
    if (now->level) {
        const sweep_volume *v = &w->volumes[now->liquid];
        if (!was_level) {
            ev |= SWEEP_VOLUME_EV_LIQUID_ENTERED;
            rep->liquid_entered = now->liquid;
        }
        ev |= SWEEP_VOLUME_EV_IN_LIQUID;
        rep->liquid = now->liquid;
        rep->liquid_type = (uint32_t)v->liquid;
        if (v->damage > 0.0) {
            rep->damage += v->damage * (double)now->level * h;
            ev |= SWEEP_VOLUME_EV_HURT;
            rep->hurt_by = now->liquid;
        }
    } else {
        if (was_level) {
            ev |= SWEEP_VOLUME_EV_LIQUID_LEFT;
            rep->liquid_left = was_liquid;
        }
        rep->liquid = 0;
        rep->liquid_type = SWEEP_LIQUID_NONE;
    }
    rep->liquid_level = now->level;
    if (now->ladder != SWEEP__NO_LADDER) {
        ev |= SWEEP_VOLUME_EV_ON_LADDER;
        rep->ladder = now->ladder;
    } else {
        rep->ladder = 0;
    }
    rep->events = ev;
}
