/*
 * medium.c - which liquid and which ladder a body is in (core/medium.h;
 * the rule is core/volume.h's).
 *
 * The depth is sampled at three points as Quake 3 samples its waterlevel
 * (feet, waist, eyes), each against the liquids of the world; the grid of
 * the world's volumes narrows the liquids and ladders looked at to those
 * listed in the cell of the span feet .. eyes, as the volumes' own step
 * does. + - * / and sqrt only, in a fixed order.
 */
#include "core/medium.h"

#include <math.h>

/* Where the feet and the eyes are sampled, as fractions of the extent
 * along up: Quake 3 samples one unit above the bottom of a 56 unit box
 * and at the eyes, 3/4 of the way up from the centre. */
#define FEET (15.0 / 16.0)
#define EYES (3.0 / 4.0)

double sweep__medium_extent(sweep_vec3 radii, sweep_vec3 up)
{
    double x = radii.x * up.x, y = radii.y * up.y, z = radii.z * up.z;
    return sqrt(x * x + y * y + z * z);
}

static inline int box_meets(const sweep_vec3 *box, sweep_vec3 lo, sweep_vec3 hi)
{
    return box[0].x <= hi.x && box[1].x >= lo.x && box[0].y <= hi.y && box[1].y >= lo.y && box[0].z <= hi.z &&
           box[1].z >= lo.z;
}

void sweep__medium_at(const sweep_world *w, sweep_vec3 up, double extent, sweep_vec3 c, sweep__medium *m)
{
    m->level = 0;
    m->liquid = 0;
    m->ladder = SWEEP__NO_LADDER;
    sweep_vec3 feet = sweep_v3_madd(c, up, -FEET * extent), eyes = sweep_v3_madd(c, up, EYES * extent);
    sweep_vec3 lo = sweep_v3(fmin(feet.x, eyes.x), fmin(feet.y, eyes.y), fmin(feet.z, eyes.z));
    sweep_vec3 hi = sweep_v3(fmax(feet.x, eyes.x), fmax(feet.y, eyes.y), fmax(feet.z, eyes.z));
    sweep_vec3 all[2] = {w->volume_lo, w->volume_hi};
    if (!box_meets(all, lo, hi))
        return;
    uint32_t grid = w->volume_grid, len = w->volume_count;
    uint32_t cx = sweep__volume_cell(lo.x, w->volume_lo.x, w->volume_cell_inv[0], grid);
    uint32_t cy = sweep__volume_cell(lo.y, w->volume_lo.y, w->volume_cell_inv[1], grid);
    const uint32_t *list = NULL;
    if (cx == sweep__volume_cell(hi.x, w->volume_lo.x, w->volume_cell_inv[0], grid) &&
        cy == sweep__volume_cell(hi.y, w->volume_lo.y, w->volume_cell_inv[1], grid)) {
        uint32_t cell = cy * grid + cx;
        list = w->volume_cell_items + w->volume_cell_first[cell];
        len = w->volume_cell_first[cell + 1] - w->volume_cell_first[cell];
    }
    int feet_in = 0, waist_in = 0, eyes_in = 0;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t i = list ? list[k] : k;
        const sweep_volume *v = &w->volumes[i];
        if (v->kind < SWEEP_VOLUME_LIQUID || !box_meets(w->volume_boxes[i], lo, hi))
            continue;
        if (v->kind == SWEEP_VOLUME_LADDER) {
            if (m->ladder == SWEEP__NO_LADDER && sweep_volume_contains(v, c))
                m->ladder = i;
            continue;
        }
        if (!feet_in && sweep_volume_contains(v, feet)) {
            feet_in = 1;
            m->liquid = i;
        }
        waist_in = waist_in || sweep_volume_contains(v, c);
        eyes_in = eyes_in || sweep_volume_contains(v, eyes);
    }
    m->level = feet_in ? (waist_in ? (eyes_in ? 3u : 2u) : 1u) : 0u;
}

void sweep__medium_report(const sweep_world *w, const sweep__medium *was, const sweep__medium *now, double h,
                          sweep_volume_report *rep)
{
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
