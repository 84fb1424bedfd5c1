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

_Thread_local sweep__medium_memo sweep__medium_memo_last;

const sweep__medium_probe *sweep__medium_probe_remake(sweep_vec3 radii, sweep_vec3 up)
{
    sweep__medium_memo *m = &sweep__medium_memo_last;
    memcpy(&m->key[0], &radii.x, 8), memcpy(&m->key[1], &radii.y, 8), memcpy(&m->key[2], &radii.z, 8);
    memcpy(&m->key[3], &up.x, 8), memcpy(&m->key[4], &up.y, 8), memcpy(&m->key[5], &up.z, 8);
    sweep__medium_probe_of(radii, up, &m->probe);
    return &m->probe;
}

void sweep__medium_step_report(const sweep_world *w, const sweep__medium_probe *p, sweep_vec3 c, double h,
                               const uint32_t *list, uint32_t len, sweep__medium *m, sweep_volume_report *rep)
{
    uint32_t was_level = m->level, was_liquid = m->liquid, was_ladder = m->ladder;
    sweep__medium_in(w, p, c, list, len, m);
    /* From nothing to nothing, with a report that says none already
     * (zeros, as sweep_act clears it, or as the last step wrote them): the
     * rest would write what is there. A body in a column that lists a
     * liquid or a ladder whose boxes it is away from ends here. */
    if ((was_level | m->level) == 0 && (was_ladder & m->ladder) == SWEEP__NO_LADDER &&
        !(rep->events & (SWEEP_VOLUME_EV_IN_LIQUID | SWEEP_VOLUME_EV_ON_LADDER)) &&
        (rep->liquid | rep->liquid_level | rep->liquid_type | rep->ladder) == 0)
        return;
    uint32_t ev = rep->events & ~(uint32_t)(SWEEP_VOLUME_EV_IN_LIQUID | SWEEP_VOLUME_EV_ON_LADDER);
    if (m->level) {
        const sweep__volume_form *v = &w->volume_forms[m->liquid];
        const double damage = w->volume_damage[m->liquid];
        if (!was_level) {
            ev |= SWEEP_VOLUME_EV_LIQUID_ENTERED;
            rep->liquid_entered = m->liquid;
        }
        ev |= SWEEP_VOLUME_EV_IN_LIQUID;
        rep->liquid = m->liquid;
        rep->liquid_type = (uint32_t)v->liquid;
        if (damage > 0.0) {
            rep->damage += damage * (double)m->level * h;
            ev |= SWEEP_VOLUME_EV_HURT;
            rep->hurt_by = m->liquid;
        }
    } else {
        if (was_level) {
            ev |= SWEEP_VOLUME_EV_LIQUID_LEFT;
            rep->liquid_left = was_liquid;
        }
        rep->liquid = 0;
        rep->liquid_type = SWEEP_LIQUID_NONE;
    }
    rep->liquid_level = m->level;
    if (m->ladder != SWEEP__NO_LADDER) {
        ev |= SWEEP_VOLUME_EV_ON_LADDER;
        rep->ladder = m->ladder;
    } else {
        rep->ladder = 0;
    }
    rep->events = ev;
}
