/*
 * medium.c - the probe of a body's shape kept per thread (core/medium.h,
 * where the medium's test and the report are, inline; the rule is
 * core/volume.h's).
 *
 * The depth is sampled at three points as Quake 3 samples its waterlevel
 * (feet, waist, eyes), each against the liquids of the world. + - * / and
 * sqrt only, in a fixed order.
 */
#include "core/medium.h"

_Thread_local sweep__medium_memo sweep__medium_memo_last;

const sweep__medium_probe *sweep__medium_probe_remake(sweep_vec3 radii, sweep_vec3 up)
{
    sweep__medium_memo *m = &sweep__medium_memo_last;
    m->key[0] = radii, m->key[1] = up;
    sweep__medium_probe_of(radii, up, &m->probe);
    return &m->probe;
}
