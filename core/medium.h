/*
 * medium.h - internal: what a body is in that decides how it moves, the
 * world's liquids and ladders (core/volume.h says how they are tested,
 * core/motion.h what each mode does). Not installed.
 */
#ifndef SWEEP_CORE_MEDIUM_H
#define SWEEP_CORE_MEDIUM_H

#include <math.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/bytes.h"
#include "core/vec3.h"
#include "core/volume.h"
#include "core/world_impl.h"

/* No ladder (sweep__medium.ladder). */
#define SWEEP__NO_LADDER UINT32_MAX

typedef struct sweep__medium {
    uint32_t level;  /* 0 none, 1 feet, 2 centre, 3 eyes in a liquid */
    uint32_t liquid; /* level > 0: the first liquid holding the feet */
    uint32_t ladder; /* the first ladder holding the centre, or SWEEP__NO_LADDER */
} sweep__medium;

/* Where a body's depth is sampled, relative to its centre, and the box of
 * that span: made once a move (the body's shape and up do not change). */
typedef struct sweep__medium_probe {
    sweep_vec3 feet, eyes; /* offsets from the centre */
    sweep_vec3 lo, hi;     /* the box of feet .. eyes, as offsets */
    int upright;           /* feet, centre and eyes share x and y (up is z, or -z) */
} sweep__medium_probe;

/* Where the feet and the eyes are sampled, as fractions of the extent
 * along up: Quake 3 samples one unit above the bottom of a 56 unit box
 * and at the eyes, 3/4 of the way up from the centre. */
#define SWEEP__MEDIUM_FEET (15.0 / 16.0)
#define SWEEP__MEDIUM_EYES (3.0 / 4.0)

/* The probe of a body of these radii along the unit vector up: the feet
 * 15/16 of its extent along up (its support, how far its top is above
 * its centre) below the centre, the eyes 3/4 of it above. */
static inline void sweep__medium_probe_of(sweep_vec3 radii, sweep_vec3 up, sweep__medium_probe *p)
{
    double x = radii.x * up.x, y = radii.y * up.y, z = radii.z * up.z;
    double extent = sqrt(x * x + y * y + z * z);
    p->feet = sweep_v3_scale(up, -SWEEP__MEDIUM_FEET * extent);
    p->eyes = sweep_v3_scale(up, SWEEP__MEDIUM_EYES * extent);
    /* Comparisons rather than fmin and fmax: no NaN can be here (finite
     * radii and up), and libm's are calls. */
    const sweep_vec3 f = p->feet, e = p->eyes;
    p->lo = sweep_v3(f.x < e.x ? f.x : e.x, f.y < e.y ? f.y : e.y, f.z < e.z ? f.z : e.z);
    p->hi = sweep_v3(f.x < e.x ? e.x : f.x, f.y < e.y ? e.y : f.y, f.z < e.z ? e.z : f.z);
    p->upright = p->lo.x == p->hi.x && p->lo.y == p->hi.y;
}

/* The probe last made on this thread, by the bits of the radii and the up
 * it was made for. Nearly every move of a process has a shape and an up
 * it has seen before; making the probe again (a square root, a dozen
 * comparisons) was an eighth of what the liquids and ladders cost a move
 * near them. The zeroed memo matches no query: up is a unit vector. */
typedef struct sweep__medium_memo {
    sweep_vec3 key[2]; /* radii, then up */
    sweep__medium_probe probe;
} sweep__medium_memo;

extern _Thread_local sweep__medium_memo sweep__medium_memo_last;

/* The memo made again for radii and up: out of line, as it is rare. */
const sweep__medium_probe *sweep__medium_probe_remake(sweep_vec3 radii, sweep_vec3 up);

/* The probe of a body of these radii along the unit vector up
 * (sweep__medium_probe_of's, the same bits), valid until the next call on
 * this thread. */
static SWEEP__ALWAYS_INLINE const sweep__medium_probe *sweep__medium_probe_for(sweep_vec3 radii, sweep_vec3 up)
{
    const sweep_vec3 key[2] = {radii, up};
    if (sweep__same_bits(key, sweep__medium_memo_last.key, sizeof key))
        return &sweep__medium_memo_last.probe;
    return sweep__medium_probe_remake(radii, up);
}

/* 1 if p is on the inner side of every plane of volume i of w. */
static inline int sweep__medium_within(const sweep_world *w, uint32_t i, sweep_vec3 p)
{
    const sweep__volume_form *f = &w->volume_forms[i];
    const sweep_volume_plane *pl = w->volume_planes + f->plane_first;
    for (uint32_t k = 0; k < f->plane_count; k++)
        if (sweep_v3_dot(pl[k].normal, p) > pl[k].offset)
            return 0;
    return 1;
}

/* 1 if p is in volume i of w: its box (its form's copy) and its planes;
 * sweep_volume_contains, the same bits. */
static inline int sweep__medium_holds(const sweep_world *w, uint32_t i, sweep_vec3 p)
{
    const sweep__volume_form *f = &w->volume_forms[i];
    return p.x >= f->lo_xy[0] && p.x <= f->hi_xy[0] && p.y >= f->lo_xy[1] && p.y <= f->hi_xy[1] && p.z >= f->lo_z &&
           p.z <= f->hi_z && sweep__medium_within(w, i, p);
}

/* Which of the feet (1), the centre (2) and the eyes (4) liquid i of w holds,
 * of those not yet known to be in a liquid (`known`). An upright probe's
 * three points share x and y, which the box meeting the span has already
 * put in the box's range: only z is left to compare there. Inline: as a
 * call (its three points passed on the stack) it was 38 of the 424
 * instructions a move of bench_liquids paid for its puddle and ladder. */
static SWEEP__ALWAYS_INLINE unsigned sweep__medium_liquid(const sweep_world *w, uint32_t i, int upright,
                                                          sweep_vec3 feet, sweep_vec3 c, sweep_vec3 eyes,
                                                          unsigned known)
{
    unsigned in = 0;
    if (upright) {
        double lo = w->volume_forms[i].lo_z, hi = w->volume_forms[i].hi_z;
        if (!(known & 1u) && feet.z >= lo && feet.z <= hi && sweep__medium_within(w, i, feet))
            in |= 1u;
        if (!(known & 2u) && c.z >= lo && c.z <= hi && sweep__medium_within(w, i, c))
            in |= 2u;
        if (!(known & 4u) && eyes.z >= lo && eyes.z <= hi && sweep__medium_within(w, i, eyes))
            in |= 4u;
        return in;
    }
    const sweep_vec3 pt[3] = {feet, c, eyes};
    for (unsigned k = 0; k < 3; k++)
        if (!(known & (1u << k)) && sweep__medium_holds(w, i, pt[k]))
            in |= 1u << k;
    return in;
}

/* 0 when the probe centred at c meets no liquid's nor ladder's box: the
 * body is in none of them. */
static SWEEP__ALWAYS_INLINE int sweep__medium_near(const sweep_world *w, const sweep__medium_probe *p,
                                                   sweep_vec3 c)
{
    return sweep__volume_box_meets(w->volume_mode_box, sweep_v3_add(c, p->lo), sweep_v3_add(c, p->hi));
}

/* The liquids and ladders a probe spanning lo .. hi may meet: its column's
 * list (*len of them, by index) when it lies in one column of the
 * volumes' grid, as an upright probe does; else the list of every liquid
 * and ladder. */
static SWEEP__ALWAYS_INLINE const uint32_t *sweep__medium_column(const sweep_world *w, const sweep__medium_probe *p,
                                                                 sweep_vec3 lo, sweep_vec3 hi, uint32_t *len)
{
    uint32_t grid = w->volume_grid, cx, cy, hx = 0, hy = 0;
    const sweep_vec3 o = w->volume_lo;
    const double *inv = w->volume_cell_inv;
    sweep__volume_cell2(lo.x, o.x, inv[0], grid, lo.y, o.y, inv[1], grid, &cx, &cy);
    if (!p->upright)
        sweep__volume_cell2(hi.x, o.x, inv[0], grid, hi.y, o.y, inv[1], grid, &hx, &hy);
    const uint32_t *first = w->volume_column_first;
    const uint32_t column = p->upright || ((cx == hx) & (cy == hy)) ? cy * grid + cx : grid * grid;
    *len = first[column + 1] - first[column];
    return w->volume_cell_items + first[column];
}

/* The medium of a body centred at c in world w among the liquids and
 * ladders of list[0 .. len), as sweep__medium_column gave them. */
static SWEEP__ALWAYS_INLINE void sweep__medium_in(const sweep_world *w, const sweep__medium_probe *p, sweep_vec3 c,
                                                  const uint32_t *list, uint32_t len, sweep__medium *m)
{
    m->liquid = 0;
    m->ladder = SWEEP__NO_LADDER;
    const sweep_vec3 lo = sweep_v3_add(c, p->lo), hi = sweep_v3_add(c, p->hi);
    unsigned in = 0; /* feet 1, centre 2, eyes 4 in some liquid */
    for (uint32_t k = 0; k < len; k++) {
        uint32_t i = list[k];
        const sweep__volume_form *f = &w->volume_forms[i];
        if (!sweep__volume_form_meets(f, lo, hi))
            continue;
        const uint8_t kind = f->kind;
        if (kind == SWEEP_VOLUME_LADDER) {
            if (m->ladder == SWEEP__NO_LADDER && sweep__medium_holds(w, i, c))
                m->ladder = i;
        } else if (kind == SWEEP_VOLUME_LIQUID && in != 7u) {
            unsigned now = sweep__medium_liquid(w, i, p->upright, sweep_v3_add(c, p->feet), c,
                                                sweep_v3_add(c, p->eyes), in);
            if (now & 1u)
                m->liquid = i;
            in |= now;
        }
    }
    /* Each level needs the ones below: the feet, then the centre. */
    static const uint8_t level[8] = {0, 1, 0, 2, 0, 1, 0, 3};
    m->level = level[in];
}

/* The medium of a body centred at c in world w (which holds at least one
 * liquid or ladder), the liquids and ladders looked at narrowed by the
 * volumes' grid to the cell of the span feet .. eyes, whose list of them
 * holds no other kind, as the volumes' own step does. Inline: sweep_act
 * asks it before the first step, and the call was a fifth of its cost. */
static SWEEP__ALWAYS_INLINE void sweep__medium_at(const sweep_world *w, const sweep__medium_probe *p, sweep_vec3 c,
                                                  sweep__medium *m)
{
    /* Away from every liquid and ladder (most moves of a level) one box
     * test answers, before the grid's cells are worked out. */
    if (!sweep__medium_near(w, p, c)) {
        m->liquid = 0, m->ladder = SWEEP__NO_LADDER, m->level = 0;
        return;
    }
    uint32_t len;
    const uint32_t *list =
        sweep__medium_column(w, p, sweep_v3_add(c, p->lo), sweep_v3_add(c, p->hi), &len);
    sweep__medium_in(w, p, c, list, len, m);
}

/* After a step of h seconds that took a body to centre c, whose medium
 * there is among list[0 .. len) (sweep__medium_in's): *m becomes it, and
 * *rep gets what the step tells. Inline (sweep_act's only): as a call,
 * its frame and arguments were about 30 of the 400 instructions a move
 * near a liquid and a ladder paid for them. */
static SWEEP__ALWAYS_INLINE void sweep__medium_step_report(const sweep_world *w, const sweep__medium_probe *p,
                                                           sweep_vec3 c, double h, const uint32_t *list,
                                                           uint32_t len, sweep__medium *m, sweep_volume_report *rep)
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

/* After a step of h seconds that took a body in medium *m to centre c:
 * *m becomes its medium there, and *rep gets what the step tells:
 * entering and leaving a liquid, the liquid's damage at the new depth,
 * where the body is now. A body in nothing that is still out of reach of
 * every liquid and ladder changes neither: its report already says none
 * (zeros, as sweep_act clears it, or as the last step wrote them), so
 * most moves of a level end at one inline box test, without the call.
 * The column found here is the one the call looks in: it is not found
 * twice. */
static SWEEP__ALWAYS_INLINE void sweep__medium_after_step(const sweep_world *w, const sweep__medium_probe *p,
                                                          sweep_vec3 c, double h, sweep__medium *m,
                                                          sweep_volume_report *rep)
{
    static const uint32_t none[1] = {0};
    const uint32_t *list = none;
    uint32_t len = 0;
    if (sweep__medium_near(w, p, c))
        list = sweep__medium_column(w, p, sweep_v3_add(c, p->lo), sweep_v3_add(c, p->hi), &len);
    /* Out of every liquid's and ladder's reach, or in a column of the
     * grid that lists none (the box round them all may span the level: a
     * pool at one end, a ladder at the other), the report would find the
     * body in none and write what it already holds. */
    if (m->level == 0 && m->ladder == SWEEP__NO_LADDER && len == 0)
        return;
    sweep__medium_step_report(w, p, c, h, list, len, m, rep);
}

#endif
