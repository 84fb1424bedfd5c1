/*
 * stance.c - a stance turned where its shape has room (see stance.h).
 */
#include "core/stance.h"

#include <math.h>

double sweep_half_height(sweep_vec3 r, sweep_vec3 u)
{
    double x = r.x * u.x, y = r.y * u.y, z = r.z * u.z;
    return sqrt(x * x + y * y + z * z);
}

sweep_status sweep_room_at(const sweep_space *space, const sweep_config *cfg, sweep_vec3 q, sweep_vec3 r,
                           sweep_vec3 up, int *free, sweep_move_result *res)
{
    /* cfg is read before the move's own checks, and *free written after. */
    if (!cfg || !free)
        return SWEEP_E_ARG;
    double dt = cfg->max_dt < 1.0 ? cfg->max_dt : 1.0;
    sweep_move_input in = {q, r, sweep_v3_scale(up, 1e-6 / dt), dt, 0};
    sweep_status st = sweep_move_in(space, cfg, &in, res);
    if (st == SWEEP_OK)
        *free = !(res->flags & SWEEP_MOVED_STARTED_EMBEDDED);
    return st;
}

sweep_status sweep__stance_turn(const sweep_space *space, const sweep_config *cfg, const sweep_rules *rules,
                                sweep_vec3 radii, sweep_actor *a, uint32_t want, int *blocked)
{
    double g = sweep_v3_len(cfg->gravity);
    sweep_vec3 up = g > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / g) : sweep_v3(0, 0, 1);
    sweep_vec3 from = sweep_stance_radii(rules, radii, a->stance), to = sweep_stance_radii(rules, radii, want);
    sweep_vec3 q = sweep_v3_madd(a->position, up, sweep_half_height(to, up) - sweep_half_height(from, up));
    *blocked = 1;
    if (!sweep__config_contains_inline(cfg, q))
        return SWEEP_OK; /* no room beyond the coordinate limit */
    sweep_move_result res;
    int free = 0;
    sweep_status st = sweep_room_at(space, cfg, q, to, up, &free, &res);
    if (st != SWEEP_OK || !free)
        return st;
    *blocked = 0;
    a->position = q;
    a->stance = want;
    return SWEEP_OK;
}
