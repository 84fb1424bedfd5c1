/*
 * volume.c - volumes of a world and what they do to a walking body (the
 * rules are in volume.h).
 *
 * A step looks at the volumes listed in the cells of a grid that its two
 * ends lie in (world_impl.h: columns across x and y, cut along z; the
 * liquids and ladders listed apart, by column, for core/medium.h): a
 * volume acts only on a step one of whose ends its box holds, so no other
 * cell can list one that does. Box first, then in index order. A level
 * holds tens of volumes, a few of them as large as the level (a void's
 * kill volume): the cut along z keeps those out of the cells a step above
 * them looks at. A move that starts away from every volume skips even
 * that while it stays within what its start's cell says
 * (core/volume_clear.c). Nothing here allocates during a move.
 */
#include "core/volume.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/medium.h"
#include "core/volume_step.h"
#include "core/world_impl.h"

static const char *const kind_names[SWEEP_VOLUME_KIND_COUNT] = {"push",    "teleport", "hurt",  "kill",
                                                                 "trigger", "liquid",   "ladder"};

const char *sweep_volume_kind_name(sweep_volume_kind k)
{
    return (unsigned)k < SWEEP_VOLUME_KIND_COUNT ? kind_names[k] : "unknown";
}

static const char *const liquid_names[SWEEP_LIQUID_COUNT] = {"none", "water", "slime", "lava"};

const char *sweep_liquid_name(sweep_liquid l)
{
    return (unsigned)l < SWEEP_LIQUID_COUNT ? liquid_names[l] : "unknown";
}

static sweep_status bad(const char **why, const char *text, sweep_status st)
{
    if (why)
        *why = text;
    return st;
}

double sweep_volume_speed(const sweep_volume *v)
{
    return v->kind == SWEEP_VOLUME_PUSH       ? sweep_v3_len(v->velocity)
           : v->kind == SWEEP_VOLUME_TELEPORT ? v->exit_speed
                                              : 0.0;
}

sweep_status sweep_volume_check(const sweep_volume *v, double max_speed, double max_coordinate, const char **why)
{
    if (!v)
        return bad(why, "no volume", SWEEP_E_ARG);
    if ((unsigned)v->kind >= SWEEP_VOLUME_KIND_COUNT)
        return bad(why, "unknown kind", SWEEP_E_CONFIG);
    if (!sweep_v3_isfinite(v->lo) || !sweep_v3_isfinite(v->hi))
        return bad(why, "box is not finite", SWEEP_E_NONFINITE);
    if (!(v->lo.x <= v->hi.x && v->lo.y <= v->hi.y && v->lo.z <= v->hi.z))
        return bad(why, "box min is above its max", SWEEP_E_CONFIG);
    if (v->plane_count > SWEEP_VOLUME_MAX_PLANES)
        return bad(why, "more planes than a volume may have", SWEEP_E_CONFIG);
    for (uint32_t i = 0; i < v->plane_count; i++) {
        const sweep_volume_plane *p = &v->planes[i];
        if (!sweep_v3_isfinite(p->normal) || !isfinite(p->offset))
            return bad(why, "a plane is not finite", SWEEP_E_NONFINITE);
        if (sweep_v3_len2(p->normal) == 0.0)
            return bad(why, "a plane's normal is zero", SWEEP_E_CONFIG);
    }
    switch (v->kind) {
    case SWEEP_VOLUME_PUSH:
        if (!sweep_v3_isfinite(v->velocity))
            return bad(why, "launch velocity is not finite", SWEEP_E_NONFINITE);
        if (!(sweep_v3_len2(v->velocity) <= max_speed * max_speed))
            return bad(why, "launch velocity is faster than the speed limit", SWEEP_E_VELOCITY);
        break;
    case SWEEP_VOLUME_TELEPORT: {
        if (!sweep_v3_isfinite(v->destination) || !sweep_v3_isfinite(v->facing) || !isfinite(v->exit_speed))
            return bad(why, "destination, facing or exit speed is not finite", SWEEP_E_NONFINITE);
        sweep_vec3 d = v->destination;
        if (!(fabs(d.x) <= max_coordinate && fabs(d.y) <= max_coordinate && fabs(d.z) <= max_coordinate))
            return bad(why, "destination is beyond the coordinate limit", SWEEP_E_POSITION);
        if (!(fabs(sweep_v3_len2(v->facing) - 1.0) <= 1e-6))
            return bad(why, "facing is not a unit vector", SWEEP_E_CONFIG);
        if (!(v->exit_speed >= 0.0 && v->exit_speed <= max_speed))
            return bad(why, "exit speed is not in [0, speed limit]", SWEEP_E_VELOCITY);
        if (v->keep_velocity > 1)
            return bad(why, "keep_velocity is not 0 or 1", SWEEP_E_CONFIG);
        break;
    }
    case SWEEP_VOLUME_HURT:
        if (!isfinite(v->damage))
            return bad(why, "damage is not finite", SWEEP_E_NONFINITE);
        if (!(v->damage > 0.0))
            return bad(why, "damage per second is not above 0", SWEEP_E_CONFIG);
        if (!(v->damage <= SWEEP_VOLUME_MAX_DAMAGE))
            return bad(why, "damage per second is above 1e6 (a kill volume ends a player whatever its health)",
                       SWEEP_E_CONFIG);
        break;
    case SWEEP_VOLUME_LIQUID:
        if (v->liquid == SWEEP_LIQUID_NONE || (unsigned)v->liquid >= SWEEP_LIQUID_COUNT)
            return bad(why, "unknown liquid", SWEEP_E_CONFIG);
        if (!isfinite(v->damage))
            return bad(why, "damage is not finite", SWEEP_E_NONFINITE);
        if (!(v->damage >= 0.0))
            return bad(why, "damage per second is below 0", SWEEP_E_CONFIG);
        if (!(v->damage <= SWEEP_VOLUME_MAX_DAMAGE))
            return bad(why, "damage per second is above 1e6", SWEEP_E_CONFIG);
        break;
    case SWEEP_VOLUME_LADDER:
        if (!sweep_v3_isfinite(v->normal))
            return bad(why, "ladder normal is not finite", SWEEP_E_NONFINITE);
        if (!(fabs(sweep_v3_len2(v->normal) - 1.0) <= 1e-6))
            return bad(why, "ladder normal is not a unit vector", SWEEP_E_CONFIG);
        break;
    default:
        break;
    }
    return SWEEP_OK;
}

int sweep_volume_contains(const sweep_volume *v, sweep_vec3 p)
{
    /* No status to return: no volume holds anything. Moves test the
     * world's own copies inline (medium.h), never through this call. */
    if (!v)
        return 0;
    if (!(p.x >= v->lo.x && p.x <= v->hi.x && p.y >= v->lo.y && p.y <= v->hi.y && p.z >= v->lo.z &&
          p.z <= v->hi.z))
        return 0;
    for (uint32_t i = 0; i < v->plane_count; i++)
        if (sweep_v3_dot(v->planes[i].normal, p) > v->planes[i].offset)
            return 0;
    return 1;
}

/* Quads q[0 .. count) with every lane empty: no box meets one whose low
 * corner is above its high one. */
static void quads_empty(sweep__volume_quad *q, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        for (uint32_t j = 0; j < 4; j++) {
            q[k].lo_x[j] = q[k].lo_y[j] = q[k].lo_z[j] = INFINITY;
            q[k].hi_x[j] = q[k].hi_y[j] = q[k].hi_z[j] = -INFINITY;
        }
}

/* Puts v's box, as floats, in lane k of the quads q. */
static void quad_put(sweep__volume_quad *q, uint32_t k, const sweep_volume *v)
{
    sweep__volume_quad *o = &q[k / 4];
    uint32_t j = k % 4;
    o->lo_x[j] = (float)v->lo.x, o->lo_y[j] = (float)v->lo.y, o->lo_z[j] = (float)v->lo.z;
    o->hi_x[j] = (float)v->hi.x, o->hi_y[j] = (float)v->hi.y, o->hi_z[j] = (float)v->hi.z;
}

/* n forms on whole 64-byte lines, as their type asks: malloc's 16 bytes
 * are not enough, and C11's aligned_alloc is not everywhere the core is
 * built (MinGW's C library has none). *block is what to free. */
static sweep__volume_form *forms_alloc(uint32_t n, void **block)
{
    const uintptr_t line = _Alignof(sweep__volume_form);
    uint8_t *b = malloc((size_t)n * sizeof(sweep__volume_form) + line - 1);
    *block = b;
    return b ? (sweep__volume_form *)(((uintptr_t)b + line - 1) & ~(line - 1)) : NULL;
}

sweep_status sweep_world_set_volumes(sweep_world *w, const sweep_volume *v, uint32_t n, double max_speed,
                                     double max_coordinate, uint32_t *bad_index, const char **why)
{
    if (!w || (n && !v))
        return SWEEP_E_ARG;
    if (n > SWEEP_VOLUME_MAX)
        return bad(why, "more volumes than a world may hold", SWEEP_E_ARG);
    for (uint32_t i = 0; i < n; i++) {
        sweep_status st = sweep_volume_check(&v[i], max_speed, max_coordinate, why);
        if (st != SWEEP_OK) {
            if (bad_index)
                *bad_index = i;
            return st;
        }
    }
    sweep_volume *copy = NULL;
    double *damage = NULL;
    sweep_vec3 lo = sweep_v3(0, 0, 0), hi = sweep_v3(0, 0, 0);
    uint32_t modes = 0;
    for (uint32_t i = 0; i < n; i++)
        modes += v[i].kind == SWEEP_VOLUME_LIQUID || v[i].kind == SWEEP_VOLUME_LADDER;
    if (n) {
        copy = malloc((size_t)n * sizeof *copy);
        damage = malloc((size_t)n * sizeof *damage);
        if (!copy || !damage) {
            free(copy);
            free(damage);
            return SWEEP_E_NOMEM;
        }
        memcpy(copy, v, (size_t)n * sizeof *copy);
        lo = v[0].lo, hi = v[0].hi;
        for (uint32_t i = 0; i < n; i++) {
            damage[i] = v[i].damage;
            lo = sweep_v3(fmin(lo.x, v[i].lo.x), fmin(lo.y, v[i].lo.y), fmin(lo.z, v[i].lo.z));
            hi = sweep_v3(fmax(hi.x, v[i].hi.x), fmax(hi.y, v[i].hi.y), fmax(hi.z, v[i].hi.z));
        }
    }
    sweep_vec3 none[2] = {sweep_v3(INFINITY, INFINITY, INFINITY), sweep_v3(-INFINITY, -INFINITY, -INFINITY)};
    sweep_vec3 act[2] = {none[0], none[1]}, mode_box[2] = {none[0], none[1]};
    for (uint32_t i = 0; i < n; i++) {
        sweep_vec3 *b = v[i].kind == SWEEP_VOLUME_LIQUID || v[i].kind == SWEEP_VOLUME_LADDER ? mode_box : act;
        b[0] = sweep_v3(fmin(b[0].x, v[i].lo.x), fmin(b[0].y, v[i].lo.y), fmin(b[0].z, v[i].lo.z));
        b[1] = sweep_v3(fmax(b[1].x, v[i].hi.x), fmax(b[1].y, v[i].hi.y), fmax(b[1].z, v[i].hi.z));
    }
    /* The grid: about one volume a column, at most 64 x 64 columns, each
     * cut along z as finely, at most 8 times: the volumes of a level lie
     * at many heights (a void's kill volume under every column), and a
     * step looks only at those of its own height. */
    uint32_t grid = 1;
    while (grid < 64 && grid * grid < n)
        grid++;
    uint32_t grid_z = grid < 8 ? grid : 8;
    double inv[3] = {hi.x > lo.x ? grid / (hi.x - lo.x) : 0.0, hi.y > lo.y ? grid / (hi.y - lo.y) : 0.0,
                     hi.z > lo.z ? grid_z / (hi.z - lo.z) : 0.0};
    /* The cut is kept while the lists stay small: volumes as tall as the
     * level (a map's, which is outside input) would be listed in every
     * cell of their columns, up to eight times the memory for nothing. */
    uint64_t flat = 0, cut = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t columns = (uint64_t)(sweep__volume_cell(v[i].hi.x, lo.x, inv[0], grid) -
                                      sweep__volume_cell(v[i].lo.x, lo.x, inv[0], grid) + 1) *
                           (sweep__volume_cell(v[i].hi.y, lo.y, inv[1], grid) -
                            sweep__volume_cell(v[i].lo.y, lo.y, inv[1], grid) + 1);
        flat += columns;
        cut += columns * (sweep__volume_cell(v[i].hi.z, lo.z, inv[2], grid_z) -
                          sweep__volume_cell(v[i].lo.z, lo.z, inv[2], grid_z) + 1);
    }
    if (cut > 2 * flat && cut > ((uint64_t)1 << 20)) {
        grid_z = 1;
        inv[2] = hi.z > lo.z ? 1.0 / (hi.z - lo.z) : 0.0;
    }
    /* The cells' lists of volumes that act after a step, then the
     * columns' lists of liquids and ladders, then the list of every
     * liquid and ladder (world_impl.h). */
    uint32_t cells = grid * grid * grid_z, slots = cells + grid * grid + 1;
    uint32_t *first = calloc((size_t)slots + 1, sizeof *first), *items = NULL;
    if (!first) {
        free(copy);
        free(damage);
        return SWEEP_E_NOMEM;
    }
    /* Counted first, then filled, each list in volume order. */
    for (int fill = 0; fill < 2; fill++) {
        uint32_t *at = NULL;
        if (fill) {
            for (uint32_t c = 0; c < slots; c++)
                first[c + 1] += first[c];
            /* One more than listed: a step reads its cell's first entry
             * before it knows whether the list is empty (volume_step.h),
             * and the last list may be empty. It names volume 0, which
             * exists wherever a step reads it. */
            items = malloc(((size_t)first[slots] + 1) * sizeof *items);
            if (items)
                items[first[slots]] = 0;
            at = calloc(slots, sizeof *at);
            if (!items || !at) {
                free(copy), free(damage), free(first), free(items), free(at);
                return SWEEP_E_NOMEM;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            int mode = v[i].kind == SWEEP_VOLUME_LIQUID || v[i].kind == SWEEP_VOLUME_LADDER;
            uint32_t x0 = sweep__volume_cell(v[i].lo.x, lo.x, inv[0], grid);
            uint32_t x1 = sweep__volume_cell(v[i].hi.x, lo.x, inv[0], grid);
            uint32_t y0 = sweep__volume_cell(v[i].lo.y, lo.y, inv[1], grid);
            uint32_t y1 = sweep__volume_cell(v[i].hi.y, lo.y, inv[1], grid);
            uint32_t z0 = mode ? 0 : sweep__volume_cell(v[i].lo.z, lo.z, inv[2], grid_z);
            uint32_t z1 = mode ? 0 : sweep__volume_cell(v[i].hi.z, lo.z, inv[2], grid_z);
            for (uint32_t z = z0; z <= z1; z++)
                for (uint32_t y = y0; y <= y1; y++)
                    for (uint32_t x = x0; x <= x1; x++) {
                        uint32_t c = mode ? cells + y * grid + x : (z * grid + y) * grid + x;
                        if (fill)
                            items[first[c] + at[c]++] = i;
                        else
                            first[c + 1]++;
                    }
            if (mode) {
                const uint32_t all = slots - 1;
                if (fill)
                    items[first[all] + at[all]++] = i;
                else
                    first[all + 1]++;
            }
        }
        free(at);
    }
    /* What a step's tests read of each volume, on a line of its own, its
     * planes side by side, and, where they are few, the boxes of those
     * that act after a step in quads (world_impl.h). */
    uint32_t plane_total = 0;
    for (uint32_t i = 0; i < n; i++)
        plane_total += v[i].plane_count;
    void *forms_block = NULL;
    sweep__volume_form *forms = forms_alloc(n ? n : 1, &forms_block);
    sweep_volume_plane *planes = malloc(plane_total ? plane_total * sizeof *planes : 1);
    sweep__volume_quad *quads = NULL;
    uint32_t acting = n - modes, quad_count = 0, lane[SWEEP__VOLUME_SCAN_MAX] = {0};
    if (acting && acting <= SWEEP__VOLUME_SCAN_MAX) {
        quad_count = (acting + 3) / 4;
        quads = malloc(quad_count * sizeof *quads);
    }
    sweep__volume_clear clear;
    if (!forms || !planes || (quad_count && !quads) ||
        sweep__volume_clear_make(v, n, lo, inv, grid, grid_z, &clear) != SWEEP_OK) {
        free(copy), free(damage), free(first), free(items), free(forms_block), free(planes), free(quads);
        return SWEEP_E_NOMEM;
    }
    quads_empty(quads, quad_count);
    for (uint32_t i = 0, k = 0, at = 0; i < n; i++) {
        int trigger = v[i].kind == SWEEP_VOLUME_TRIGGER;
        uint32_t may = v[i].kind == SWEEP_VOLUME_LIQUID || v[i].kind == SWEEP_VOLUME_LADDER ? SWEEP__MAY_NONE
                       : !trigger                                                         ? SWEEP__MAY_AT_END
                       : v[i].plane_count                                                 ? SWEEP__MAY_EITHER
                                                                                          : SWEEP__MAY_ACROSS;
        memset(&forms[i], 0, sizeof forms[i]);
        forms[i].lo_xy[0] = v[i].lo.x, forms[i].lo_xy[1] = v[i].lo.y;
        forms[i].hi_xy[0] = v[i].hi.x, forms[i].hi_xy[1] = v[i].hi.y;
        forms[i].lo_z = v[i].lo.z, forms[i].hi_z = v[i].hi.z;
        forms[i].may = (uint8_t)may, forms[i].kind = (uint8_t)v[i].kind, forms[i].liquid = (uint8_t)v[i].liquid;
        forms[i].plane_count = (uint16_t)v[i].plane_count, forms[i].plane_first = at;
        memcpy(planes + at, v[i].planes, v[i].plane_count * sizeof *planes);
        at += v[i].plane_count;
        if (may != SWEEP__MAY_NONE && quads)
            quad_put(quads, k, &v[i]), lane[k++] = i;
    }
    free(w->volumes);
    free(w->volume_damage);
    free(w->volume_forms_block);
    free(w->volume_planes);
    w->volume_forms = forms, w->volume_forms_block = forms_block;
    w->volume_planes = planes;
    free(w->volume_cell_first);
    free(w->volume_cell_items);
    free(w->volume_quads);
    w->volumes = copy;
    w->volume_damage = damage;
    w->volume_count = n;
    w->volume_mode_count = modes;
    w->volume_lo = lo;
    w->volume_hi = hi;
    w->volume_act_box[0] = act[0], w->volume_act_box[1] = act[1];
    w->volume_act_inner = !sweep_v3_same_bits(act[0], lo) || !sweep_v3_same_bits(act[1], hi);
    w->volume_mode_box[0] = mode_box[0], w->volume_mode_box[1] = mode_box[1];
    w->volume_grid = grid;
    w->volume_grid_z = grid_z;
    w->volume_cell_inv[0] = inv[0];
    w->volume_cell_inv[1] = inv[1];
    w->volume_cell_inv[2] = inv[2];
    w->volume_cell_top[0] = w->volume_cell_top[1] = (double)(grid - 1);
    w->volume_cell_top[2] = (double)(grid_z - 1);
    w->volume_cell_first = first;
    w->volume_cell_items = items;
    w->volume_column_first = first + cells;
    w->volume_quads = quads;
    w->volume_quad_count = quad_count;
    free(w->volume_clear.first);
    free(w->volume_clear.items);
    w->volume_clear = clear;
    memcpy(w->volume_lane, lane, sizeof lane);
    return SWEEP_OK;
}

const sweep_volume *sweep_world_volumes(const sweep_world *w, uint32_t *count)
{
    if (count)
        *count = w ? w->volume_count : 0;
    return w ? w->volumes : NULL;
}

/* Whether a body of these radii has room at p: the embedded-start test of
 * every placement (server/world/place.c), a move of 1e-6 units along up
 * that reports starting embedded when the ellipsoid overlaps a front face
 * there. */
static int fits(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 p)
{
    double g = sweep_v3_len(cfg->gravity);
    sweep_vec3 up = g > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / g) : sweep_v3(0, 0, 1);
    double dt = cfg->max_dt < 1.0 ? cfg->max_dt : 1.0;
    sweep_move_input in = {p, radii, sweep_v3_scale(up, 1e-6 / dt), dt, 0};
    sweep_move_result res;
    if (sweep_move_in(space, cfg, &in, &res) != SWEEP_OK)
        return 0;
    return !(res.flags & SWEEP_MOVED_STARTED_EMBEDDED);
}

/* Puts cand[0 .. n) in increasing order, each index once; their count
 * (n > SWEEP__VOLUME_CANDIDATES is left as it is: too many to list). A step's
 * candidates are a handful: insertion. */
static uint32_t sorted_once(uint32_t *cand, uint32_t n)
{
    if (n > SWEEP__VOLUME_CANDIDATES)
        return n;
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = cand[k], j = m;
        while (j > 0 && cand[j - 1] > i)
            j--;
        if (j > 0 && cand[j - 1] == i)
            continue;
        memmove(&cand[j + 1], &cand[j], (m - j) * sizeof *cand);
        cand[j] = i;
        m++;
    }
    return m;
}

/* Whether volume i holds a body centred at p: p itself, or for a crouched
 * body (lift not NULL) both p + lift and p - lift (volume.h, "A crouched
 * body"). */
static SWEEP__ALWAYS_INLINE int holds_body(const sweep_world *w, uint32_t i, sweep_vec3 p, const sweep_vec3 *lift)
{
    if (!lift)
        return sweep__medium_holds(w, i, p);
    return sweep__medium_holds(w, i, sweep_v3_add(p, *lift)) && sweep__medium_holds(w, i, sweep_v3_sub(p, *lift));
}

/* sweep__volumes_step, with the body crouched or not at each end of the
 * step: lift_from for its start, lift_to for its end (NULL: standing). */
static SWEEP__ALWAYS_INLINE int volumes_step_in(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii,
                                                sweep_vec3 from, sweep_actor *a, double h, sweep_volume_report *rep,
                                                sweep__volume_step_cells *sc, const sweep_vec3 *lift_from,
                                                const sweep_vec3 *lift_to)
{
    const sweep_world *w = space->world;
    const sweep_volume *vs = w->volumes;
    /* A listed step came with its candidates (volume_step.h); through the
     * grid, one whose ends lie in two cells looks at the volumes of both. */
    uint32_t count = w->volume_count;
    uint32_t *cand = sc->cand, n = sc->n;
    if (!sc->listed) {
        n = sweep__volumes_collect(w, sc->from_cell, from, a->position, cand, 0);
        n = sweep__volumes_collect(w, sc->to_cell, from, a->position, cand, n);
        /* Two cells may list the same volume: back in index order, once. */
        n = sorted_once(cand, n);
    }
    int listed = n <= SWEEP__VOLUME_CANDIDATES, teleported = 0;
    if (!listed)
        n = count;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t i = listed ? cand[c] : c;
        const sweep_volume *v = &vs[i];
        /* Triggers come last; liquids and ladders are the motion's
         * (core/medium.h). The test is sweep_volume_contains's, inline,
         * on the world's copy of the box (medium.h). */
        const sweep__volume_form *f = &w->volume_forms[i];
        if (f->kind >= SWEEP_VOLUME_TRIGGER || !holds_body(w, i, a->position, lift_to))
            continue;
        if (f->kind != SWEEP_VOLUME_TELEPORT) {
            if (sweep__volume_at_end(w, i, f->kind, a, h, rep))
                return 1;
        } else {
            rep->teleported_by = i;
            if (fits(space, cfg, radii, v->destination)) {
                teleported = 1;
                a->position = v->destination;
                a->grounded = 0;
                if (!v->keep_velocity)
                    a->velocity = sweep_v3_scale(v->facing, v->exit_speed);
                rep->events |= SWEEP_VOLUME_EV_TELEPORTED;
                rep->facing = v->facing;
                break; /* the body is elsewhere */
            }
            /* Blocked: the body stayed, so the volumes after this one
             * act on it as if the teleporter were not there. */
            rep->events |= SWEEP_VOLUME_EV_TELEPORT_BLOCKED;
        }
    }
    /* Triggers last, from where the step began to where the body is now
     * (a teleport's destination included: then every trigger is looked
     * at, the destination being outside the segment's box). */
    if (teleported) {
        listed = 0;
        n = count;
    }
    for (uint32_t c = 0; c < n; c++) {
        uint32_t i = listed ? cand[c] : c;
        if (w->volume_forms[i].kind != SWEEP_VOLUME_TRIGGER)
            continue;
        int was = holds_body(w, i, from, lift_from), in = holds_body(w, i, a->position, lift_to);
        if (in && !was) {
            rep->events |= SWEEP_VOLUME_EV_ENTERED;
            rep->entered = i;
        } else if (was && !in) {
            rep->events |= SWEEP_VOLUME_EV_LEFT;
            rep->left = i;
        }
    }
    return 0;
}

int sweep__volumes_step(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 from,
                        sweep_actor *a, double h, sweep_volume_report *rep, sweep__volume_step_cells *sc)
{
    return volumes_step_in(space, cfg, radii, from, a, h, rep, sc, NULL, NULL);
}

int sweep__volumes_crouched(const sweep_space *space, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 from,
                            int from_crouched, int to_crouched, sweep_actor *a, double h, sweep_volume_report *rep,
                            sweep_vec3 lift)
{
    const sweep_world *w = space->world;
    if (w->volume_count == w->volume_mode_count)
        return 0;
    /* None of the shortcuts: the volumes of a few quads are all looked at;
     * on a grid, those listed in the cells of the points a volume must
     * hold to act or to have held the body where the step began (the
     * upper test point of a crouched body), unfiltered. */
    sweep__volume_step_cells sc;
    sc.listed = 1;
    sc.n = SWEEP__VOLUME_CANDIDATES + 1;
    if (w->volume_quad_count == 0) {
        const sweep_vec3 fp = from_crouched ? sweep_v3_add(from, lift) : from;
        const sweep_vec3 tp = to_crouched ? sweep_v3_add(a->position, lift) : a->position;
        uint32_t cells[2], n = 0;
        sweep__volume_cells_of(w, fp, tp, &cells[0], &cells[1]);
        for (int k = 0; k < 2 && n <= SWEEP__VOLUME_CANDIDATES; k++) {
            const uint32_t *list = w->volume_cell_items + w->volume_cell_first[cells[k]];
            const uint32_t len = w->volume_cell_first[cells[k] + 1] - w->volume_cell_first[cells[k]];
            for (uint32_t j = 0; j < len && n <= SWEEP__VOLUME_CANDIDATES; j++)
                sc.cand[n++] = list[j];
        }
        sc.n = sorted_once(sc.cand, n);
    }
    return volumes_step_in(space, cfg, radii, from, a, h, rep, &sc, from_crouched ? &lift : NULL,
                           to_crouched ? &lift : NULL);
}
