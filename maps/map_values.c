/*
 * map_values.c - the numbers of a map row (sweep_map_values, loader.h):
 * their ranges, checked in the words the loader and the tools use, and how
 * they become a level's config and rules.
 *
 * Kept apart from the SQLite loader so that a level that comes from
 * elsewhere (a level image, maps/level_image.h, on a platform without
 * SQLite) is checked and configured by the same code, to the same bits.
 */
#include "maps/loader.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/move.h"

#define MAX_GRAVITY 1000.0

/* The ranges of the map row's single values. The movement rules' ranges
 * are the core's (sweep_rules_check in core/motion.c), restated here only
 * to name the column at fault; sweep_rules_check still has the last word. */
typedef struct value_range {
    const char *column;
    size_t offset;         /* of the double in sweep_map_values */
    double lo, hi;
    int lo_open, hi_open;  /* the bound itself is refused */
    const char *range;     /* how the message states it */
} value_range;

#define VALUE_AT(field) offsetof(sweep_map_values, field)
static const value_range value_ranges[] = {
    {"tick_rate", VALUE_AT(tick_rate), 1.0, 1000.0, 0, 0, "must be between 1 and 1000 ticks/s"},
    /* 90 degrees would make walls walkable. */
    {"walkable_slope_deg", VALUE_AT(walkable_slope_deg), 0.0, 90.0, 0, 1, "must be in [0, 90)"},
    {"step_height", VALUE_AT(step_height), 0.0, 1e6, 0, 0, "must be in [0, 1e6]"},
    {"walk_speed", VALUE_AT(rules.walk_speed), 0.0, 1e6, 1, 0, "must be in (0, 1e6] units/s"},
    {"ground_accel", VALUE_AT(rules.ground_accel), 0.0, 1e9, 1, 0, "must be in (0, 1e9] units/s^2"},
    {"air_accel", VALUE_AT(rules.air_accel), 0.0, 1e9, 0, 0, "must be in [0, 1e9] units/s^2"},
    {"jump_speed", VALUE_AT(rules.jump_speed), 0.0, 1e6, 0, 0, "must be in [0, 1e6] units/s"},
    {"max_step", VALUE_AT(rules.max_step), 1e-3, 1.0, 0, 0, "must be in [0.001, 1] s"},
    {"speed_limit", VALUE_AT(rules.speed_limit), 0.0, 1e7, 1, 0, "must be in (0, 1e7] units/s"},
    {"correction_threshold", VALUE_AT(correction_threshold), 0.0, DBL_MAX, 0, 0,
     "must be finite and at least 0 units"},
    {"history_ms", VALUE_AT(history_ms), 1.0, 60000.0, 0, 0, "must be between 1 and 60000 ms"},
    {"rewind_cap_ms", VALUE_AT(rewind_cap_ms), 1.0, 60000.0, 0, 0, "must be between 1 and 60000 ms"},
    {"crouch_speed", VALUE_AT(rules.crouch_speed), 0.0, 1e6, 0, 0, "must be in [0, walk_speed] units/s (0: no crouching)"},
    {"swim_speed", VALUE_AT(rules.swim_speed), 0.0, 1e6, 0, 0, "must be in [0, 1e6] units/s"},
    {"swim_accel", VALUE_AT(rules.swim_accel), 0.0, 1e9, 0, 0, "must be in [0, 1e9] units/s^2"},
    {"swim_drag", VALUE_AT(rules.swim_drag), 0.0, 1e3, 0, 0, "must be in [0, 1000] per second"},
    {"swim_sink", VALUE_AT(rules.swim_sink), -1e6, 1e6, 0, 0, "must be in [-1e6, 1e6] units/s"},
    {"swim_jump", VALUE_AT(rules.swim_jump), 0.0, 1e6, 0, 0, "must be in [0, 1e6] units/s"},
    {"climb_speed", VALUE_AT(rules.climb_speed), 0.0, 1e6, 0, 0, "must be in [0, 1e6] units/s"},
    {"climb_accel", VALUE_AT(rules.climb_accel), 0.0, 1e9, 0, 0, "must be in [0, 1e9] units/s^2"},
};
#undef VALUE_AT

static sweep_status bad_value(const char **key, const char *name, char *err, size_t errlen, const char *fmt, ...)
{
    if (key)
        *key = name;
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SWEEP_E_CONFIG;
}

void sweep_map_values_of(const sweep_level *lv, double walkable_slope_deg, sweep_map_values *out)
{
    out->gravity = lv->config.gravity;
    out->tick_rate = lv->tick_rate;
    out->radii = lv->default_radii;
    out->walkable_slope_deg = walkable_slope_deg;
    out->step_height = lv->config.step_height;
    out->rules = lv->rules;
    out->correction_threshold = lv->correction_threshold;
    out->history_ms = lv->history_ms;
    out->rewind_cap_ms = lv->rewind_cap_ms;
}

/* The config a level gets from v: the core's defaults for everything a
 * map does not say. */
static sweep_config config_of(const sweep_map_values *v)
{
    sweep_config c;
    sweep_config_default(&c);
    c.gravity = v->gravity;
    c.walkable_normal_up = sweep_cos_degrees(v->walkable_slope_deg);
    c.step_height = v->step_height;
    c.max_speed = v->rules.speed_limit;
    return c;
}

sweep_status sweep_map_check_values(const sweep_map_values *v, const char **key, char *err, size_t errlen)
{
    if (key)
        *key = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!v)
        return SWEEP_E_ARG;
    const sweep_vec3 g = v->gravity, r = v->radii;
    if (!sweep_v3_isfinite(g))
        return bad_value(key, "gravity", err, errlen, "gravity (%g, %g, %g) is not finite", g.x, g.y, g.z);
    if (!(sweep_v3_len2(g) <= MAX_GRAVITY * MAX_GRAVITY))
        return bad_value(key, "gravity", err, errlen, "gravity (%g, %g, %g) is longer than %g units/s^2", g.x, g.y,
                         g.z, MAX_GRAVITY);
    sweep_config c;
    sweep_config_default(&c);
    static const char *const rn[3] = {"radius_x", "radius_y", "radius_z"};
    const double ra[3] = {r.x, r.y, r.z};
    for (int i = 0; i < 3; i++)
        if (!(ra[i] >= c.min_radius && ra[i] <= c.max_radius))
            return bad_value(key, "radii", err, errlen, "%s=%g must be between %g and %g", rn[i], ra[i],
                             c.min_radius, c.max_radius);
    for (size_t i = 0; i < sizeof value_ranges / sizeof value_ranges[0]; i++) {
        const value_range *vr = &value_ranges[i];
        double x;
        memcpy(&x, (const char *)v + vr->offset, sizeof x);
        int ok = (vr->lo_open ? x > vr->lo : x >= vr->lo) && (vr->hi_open ? x < vr->hi : x <= vr->hi);
        if (!ok)
            return bad_value(key, vr->column, err, errlen, "%s=%g %s", vr->column, x, vr->range);
    }

    /* A choice, not a quantity: no range says it. */
    if (!(v->rules.air_move == SWEEP_AIR_TOWARDS || v->rules.air_move == SWEEP_AIR_ALONG))
        return bad_value(key, "air_move", err, errlen,
                         "air_move=%.17g must be 0 (the velocity turns towards the wish) or 1 (Quake 3's air "
                         "move: the wish only adds along itself)",
                         v->rules.air_move);

    /* The rules that tie several values together. */
    double rmin = fmin(r.x, fmin(r.y, r.z)), rmax = fmax(r.x, fmax(r.y, r.z));
    if (!(rmax <= c.max_anisotropy * rmin))
        return bad_value(key, "radii", err, errlen, "radii (%g, %g, %g): largest / smallest is above %g", r.x, r.y,
                         r.z, c.max_anisotropy);
    const sweep_rules *ru = &v->rules;
    const sweep_vec3 cr = ru->crouch_radii;
    if (!(ru->crouch_speed <= ru->walk_speed))
        return bad_value(key, "crouch_speed", err, errlen, "crouch_speed=%g must be at most walk_speed=%g",
                         ru->crouch_speed, ru->walk_speed);
    if (ru->crouch_speed > 0.0 && !sweep_config_radii_ok(&c, cr))
        return bad_value(key, "crouch_radii", err, errlen,
                         "crouch radii (%g, %g, %g) outside [%g, %g] or more anisotropic than %g", cr.x, cr.y, cr.z,
                         c.min_radius, c.max_radius, c.max_anisotropy);
    /* Crouching makes a body smaller: a crouch shape larger than the
     * standing one on any axis would grow it into whatever it crouched
     * beside (its centre lowered by the difference of the half heights). */
    if (ru->crouch_speed > 0.0 && !(cr.x <= r.x && cr.y <= r.y && cr.z <= r.z))
        return bad_value(key, "crouch_radii", err, errlen,
                         "crouch radii (%g, %g, %g) must fit inside the standing radii (%g, %g, %g): at most as "
                         "large on every axis",
                         cr.x, cr.y, cr.z, r.x, r.y, r.z);
    if (!(ru->crouch_speed > 0.0) && !(cr.x == 0.0 && cr.y == 0.0 && cr.z == 0.0))
        return bad_value(key, "crouch_radii", err, errlen,
                         "crouch radii (%g, %g, %g) without a crouch_speed: set crouch_speed, or all to 0", cr.x,
                         cr.y, cr.z);
    if (!(ru->speed_limit >= ru->walk_speed && ru->speed_limit >= ru->jump_speed))
        return bad_value(key, "speed_limit", err, errlen,
                         "speed_limit=%g must be at least walk_speed=%g and jump_speed=%g", ru->speed_limit,
                         ru->walk_speed, ru->jump_speed);
    /* The core's own checks, in case its ranges ever grow stricter than
     * the ones above. */
    if (sweep_rules_check(ru) != SWEEP_OK)
        return bad_value(key, NULL, err, errlen,
                         "the movement rules (walk_speed %g, ground_accel %g, air_accel %g, jump_speed %g, "
                         "max_step %g, speed_limit %g) are out of the core's range",
                         ru->walk_speed, ru->ground_accel, ru->air_accel, ru->jump_speed, ru->max_step,
                         ru->speed_limit);
    c = config_of(v);
    if (sweep_config_check(&c) != SWEEP_OK)
        return bad_value(key, NULL, err, errlen, "gravity, walkable_slope_deg and step_height are out of the "
                                                 "core's range");
    return SWEEP_OK;
}

void sweep_map_apply_values(const sweep_map_values *v, sweep_level *lv)
{
    sweep_config c = config_of(v);
    lv->config.gravity = c.gravity;
    lv->config.walkable_normal_up = c.walkable_normal_up;
    lv->config.step_height = c.step_height;
    lv->config.max_speed = c.max_speed;
    lv->default_radii = v->radii;
    lv->tick_rate = v->tick_rate;
    lv->rules = v->rules;
    lv->correction_threshold = v->correction_threshold;
    lv->history_ms = v->history_ms;
    lv->rewind_cap_ms = v->rewind_cap_ms;
}
