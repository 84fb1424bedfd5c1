/*
 * import_bsp_movers.c - Quake 3's moving brush models into movers: doors
 * and buttons (func_door, func_button), platforms (func_plat), bobbing
 * and rotating models (func_bobbing, func_rotating) and trains
 * (func_train along its path_corner entities), with Quake 3's speeds,
 * waits and lips.
 *
 * This is where Quake 3's angles meet trigonometry, once: movers'
 * directions, sampled sines and rotation quaternions are computed here
 * and stored as keyframes, as the map format requires, so that the run
 * time does none.
 */
#include "maps/import_bsp_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/quat.h"

/* Quake 3's move direction from "angle"/"angles": -1 up, -2 down,
 * otherwise the forward vector of (pitch, yaw, roll). */
static int ent_movedir(bsp *b, const entity *e, double dir[3])
{
    double ang[3] = {0, 0, 0};
    /* "angle" and "angles" both set the angles: the later one wins. */
    for (uint32_t i = 0; i < e->count; i++) {
        const keyval *kv = &b->kv[e->first + i];
        if (strcasecmp(kv->key, "angle") == 0) {
            double y;
            if (!sweep__bsp_parse_numbers(kv->value, &y, 1))
                return sweep__bsp_fail(b, ENT_FMT ": \"angle\" \"%s\" is not a finite number", ENT_ARG(b, e),
                                       kv->value);
            ang[0] = 0, ang[1] = y, ang[2] = 0;
        } else if (strcasecmp(kv->key, "angles") == 0) {
            if (!sweep__bsp_parse_numbers(kv->value, ang, 3))
                return sweep__bsp_fail(b, ENT_FMT ": \"angles\" \"%s\" is not three finite numbers", ENT_ARG(b, e),
                                       kv->value);
        }
    }
    if (ang[0] == 0 && ang[1] == -1 && ang[2] == 0) {
        dir[0] = 0, dir[1] = 0, dir[2] = 1;
    } else if (ang[0] == 0 && ang[1] == -2 && ang[2] == 0) {
        dir[0] = 0, dir[1] = 0, dir[2] = -1;
    } else {
        /* In degrees, by the core's series: libm's sin and cos may differ in
         * their last bit from one CPU to another, and the map with them. */
        double p = ang[0], y = ang[1];
        dir[0] = sweep_cos_degrees(p) * sweep_cos_degrees(y), dir[1] = sweep_cos_degrees(p) * sweep_sin_degrees(y),
        dir[2] = -sweep_sin_degrees(p);
        /* Keep axis-aligned doors exact whatever their angles' rounding. */
        for (int k = 0; k < 3; k++)
            if (fabs(dir[k]) < 1e-12)
                dir[k] = 0.0;
    }
    return 1;
}

/* The box of model m (spread by one unit as Quake 3's collision model
 * does), placed at world offset `at`. */
static void model_box(const bsp *b, uint32_t m, const double at[3], double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = b->models[m].mins[k] - 1.0 + at[k];
        hi[k] = b->models[m].maxs[k] + 1.0 + at[k];
    }
}

/* A trigger box as the volume of mover mv: a player's centre inside the
 * box grown by its half box is its box touching the trigger. */
static void set_volume(sweep_level_mover *mv, const double lo[3], const double hi[3])
{
    static const double half[3] = {PLAYER_HALF_X, PLAYER_HALF_X, PLAYER_HALF_Z};
    mv->trigger = SWEEP_TRIGGER_VOLUME;
    mv->volume_min = sweep_v3(lo[0] - half[0], lo[1] - half[1], lo[2] - half[2]);
    mv->volume_max = sweep_v3(hi[0] + half[0], hi[1] + half[1], hi[2] + half[2]);
}

/* A mover with model m's geometry, its local origin at `pivot` (model
 * coordinates). *idx is its index, or UINT32_MAX (with a warning) when the
 * model has nothing solid. */
static int mover_begin(bsp *b, const entity *e, uint32_t m, const double pivot[3], uint32_t *idx)
{
    *idx = UINT32_MAX;
    char name[SWEEP_LEVEL_NAME_MAX];
    snprintf(name, sizeof name, "%.40s_%u", e->classname, m);
    if (sweep_level_find_mover(b->lv, name) != SWEEP_NO_MOVER)
        snprintf(name, sizeof name, "%.30s_%u_%u", e->classname, m, (uint32_t)(e - b->ents));
    uint32_t i;
    if (sweep_level_add_mover(b->lv, b->next_mover_id, name, &i) != SWEEP_OK)
        return sweep__bsp_nomem(b);
    sink s = {.lv = b->lv, .mover = &b->lv->movers[i]};
    for (int k = 0; k < 3; k++)
        s.shift[k] = -pivot[k];
    if (!sweep__bsp_model_geometry(b, m, &s, NULL, NULL))
        return 0;
    b->st->patches += s.patches;
    if (s.triangles == 0) {
        sweep_level_mover *mv = &b->lv->movers[i];
        free(mv->vertices), free(mv->indices), free(mv->materials), free(mv->keys);
        b->lv->mover_count--;
        sweep__bsp_warn(b, "entity %u (%s, model *%u): nothing player-solid, no mover made", (uint32_t)(e - b->ents),
                        e->classname, m);
        return 1;
    }
    b->next_mover_id++;
    *idx = i;
    return 1;
}

/* Drops mover idx (the last one made) again, with a warning, and puts its
 * model into the static geometry at `origin` instead. */
static int mover_abandon(bsp *b, const entity *e, uint32_t m, uint32_t idx, const double origin[3],
                         const char *why)
{
    sweep_level_mover *mv = &b->lv->movers[idx];
    free(mv->vertices), free(mv->indices), free(mv->materials), free(mv->keys);
    b->lv->mover_count--;
    b->next_mover_id--;
    sweep__bsp_warn(b, "entity %u (%s, model *%u): %s; kept as static geometry", (uint32_t)(e - b->ents), e->classname,
                    m, why);
    sink s = {.lv = b->lv};
    memcpy(s.shift, origin, sizeof s.shift);
    if (!sweep__bsp_model_geometry(b, m, &s, NULL, NULL))
        return 0;
    b->st->patch_triangles += s.patch_triangles;
    b->st->patches += s.patches;
    return 1;
}

static int add_key(bsp *b, sweep_level_mover *mv, double t, const double p[3], sweep_quat q)
{
    if (mv->key_count >= SWEEP_MOVER_MAX_KEYFRAMES)
        return sweep__bsp_fail(b, "mover '%s' needs more than %u keyframes", mv->name, SWEEP_MOVER_MAX_KEYFRAMES);
    if (sweep_level_mover_add_keyframe(mv, t, sweep_v3(p[0], p[1], p[2]), q) != SWEEP_OK)
        return sweep__bsp_nomem(b);
    return 1;
}

static void model_centre(const bsp *b, uint32_t m, double c[3])
{
    for (int k = 0; k < 3; k++)
        c[k] = 0.5 * (b->models[m].mins[k] + b->models[m].maxs[k]);
}

/* Which doors' trigger box a door shares: its "team", or itself. */
static int same_team(const bsp *b, const entity *a, const entity *c)
{
    if (a == c)
        return 1;
    const char *ta = sweep__bsp_ent_get(b, a, "team"), *tc = sweep__bsp_ent_get(b, c, "team");
    return ta && tc && *ta && strcmp(ta, tc) == 0 && sweep__bsp_is_class(c, "func_door");
}

/* func_door and func_button: slide from pos1 by the size along movedir. */
int sweep__bsp_make_slider(bsp *b, const entity *e, uint32_t m, int button)
{
    double origin[3], dir[3], speed, wait, lip;
    long flags, health;
    if (!sweep__bsp_ent_origin(b, e, origin) || !ent_movedir(b, e, dir) ||
        !sweep__bsp_ent_number(b, e, "speed", 0, &speed) || !sweep__bsp_ent_number(b, e, "wait", 0, &wait) ||
        !sweep__bsp_ent_number(b, e, "lip", button ? 4 : 8, &lip) ||
        !sweep__bsp_ent_int(b, e, "spawnflags", 0, &flags) || !sweep__bsp_ent_int(b, e, "health", 0, &health))
        return 0;
    /* Quake 3 takes 0 for "the default", and so do we for nonsense. */
    if (!(speed > 0))
        speed = button ? 40 : 400;
    if (wait == 0)
        wait = button ? 1 : 2;
    if (wait < 0)
        wait = 0; /* "-1: return at once" */
    double size = 0, c[3];
    for (int k = 0; k < 3; k++)
        size += fabs(dir[k]) * (b->models[m].maxs[k] - b->models[m].mins[k] + 2.0);
    double dist = size - lip, time = dist / speed;
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    if (!(dist > 0) || !(time <= SWEEP_MOVER_MAX_SECONDS) || !(wait <= SWEEP_MOVER_MAX_SECONDS))
        return mover_abandon(b, e, m, idx, origin, "it would not move (its lip, speed or wait)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    double p1[3], p2[3];
    for (int k = 0; k < 3; k++) {
        p1[k] = origin[k] + c[k];
        p2[k] = p1[k] + dist * dir[k];
    }
    if (!button && (flags & 1)) { /* START_OPEN: starts moved, closes when used */
        double t[3];
        memcpy(t, p1, sizeof t), memcpy(p1, p2, sizeof t), memcpy(p2, t, sizeof t);
    }
    if (!add_key(b, mv, 0.0, p1, sweep_quat_identity()) || !add_key(b, mv, time, p2, sweep_quat_identity()))
        return 0;
    mv->mode = SWEEP_MOVER_PINGPONG;
    mv->wait_end = wait;
    mv->blocked = button ? SWEEP_BLOCKED_STOP : (flags & 4) ? SWEEP_BLOCKED_CRUSH : SWEEP_BLOCKED_REVERSE;
    const char *tn = sweep__bsp_ent_get(b, e, "targetname");
    if (health) {
        mv->trigger = SWEEP_TRIGGER_COMMAND; /* shot open: the game says when */
    } else if (button) {
        mv->trigger = SWEEP_TRIGGER_TOUCH;
    } else if (tn && *tn) {
        /* Opened by whatever targets it: one trigger's box, or commands. */
        const entity *by = NULL;
        uint32_t n = 0, bm = 0;
        for (uint32_t i = 0; i < b->ent_count; i++) {
            const entity *t = &b->ents[i];
            const char *tg = sweep__bsp_ent_get(b, t, "target");
            if (tg && strcmp(tg, tn) == 0 &&
                (sweep__bsp_is_class(t, "trigger_multiple") || sweep__bsp_is_class(t, "trigger_once") ||
                 sweep__bsp_is_class(t, "func_button")))
                by = t, n++;
        }
        double to[3], lo[3], hi[3];
        if (n == 1 && (!sweep__bsp_ent_model(b, by, &bm) || !sweep__bsp_ent_origin(b, by, to)))
            return 0;
        if (n == 1 && bm) {
            model_box(b, bm, to, lo, hi);
            set_volume(mv, lo, hi);
            b->ents[by - b->ents].used = 1;
        } else {
            mv->trigger = SWEEP_TRIGGER_COMMAND;
        }
    } else {
        /* Quake 3's door trigger: the team's box where it starts, grown by
         * 120 units along its thinnest axis. */
        double lo[3], hi[3], at[3];
        for (int k = 0; k < 3; k++)
            at[k] = p1[k] - c[k];
        model_box(b, m, at, lo, hi);
        for (uint32_t i = 0; i < b->ent_count; i++) {
            const entity *t = &b->ents[i];
            uint32_t tm;
            double to[3], tl[3], th[3];
            if (t == e || !same_team(b, e, t))
                continue;
            if (!sweep__bsp_ent_model(b, t, &tm) || !sweep__bsp_ent_origin(b, t, to))
                return 0;
            if (!tm)
                continue;
            model_box(b, tm, to, tl, th);
            for (int k = 0; k < 3; k++)
                lo[k] = fmin(lo[k], tl[k]), hi[k] = fmax(hi[k], th[k]);
        }
        int thin = 0;
        for (int k = 1; k < 3; k++)
            if (hi[k] - lo[k] < hi[thin] - lo[thin])
                thin = k;
        lo[thin] -= 120.0, hi[thin] += 120.0;
        set_volume(mv, lo, hi);
    }
    return 1;
}

/* func_plat: rests `height` below where it is built, rises when touched. */
int sweep__bsp_make_plat(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], speed, lip, height, c[3];
    if (!sweep__bsp_ent_origin(b, e, origin) || !sweep__bsp_ent_number(b, e, "speed", 200, &speed) ||
        !sweep__bsp_ent_number(b, e, "lip", 8, &lip))
        return 0;
    if (!(speed > 0))
        speed = 200;
    if (sweep__bsp_ent_get(b, e, "height")) {
        if (!sweep__bsp_ent_number(b, e, "height", 0, &height))
            return 0;
    } else {
        height = b->models[m].maxs[2] - b->models[m].mins[2] + 2.0 - lip;
    }
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    double time = height / speed;
    if (!(height > 0) || !(time <= SWEEP_MOVER_MAX_SECONDS))
        return mover_abandon(b, e, m, idx, origin, "it would not move (its height, lip or speed)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    double top[3], bottom[3];
    for (int k = 0; k < 3; k++)
        top[k] = bottom[k] = origin[k] + c[k];
    bottom[2] -= height;
    if (!add_key(b, mv, 0.0, bottom, sweep_quat_identity()) || !add_key(b, mv, time, top, sweep_quat_identity()))
        return 0;
    mv->mode = SWEEP_MOVER_PINGPONG;
    mv->wait_end = 1.0;
    mv->blocked = SWEEP_BLOCKED_REVERSE;
    const char *tn = sweep__bsp_ent_get(b, e, "targetname");
    mv->trigger = tn && *tn ? SWEEP_TRIGGER_COMMAND : SWEEP_TRIGGER_TOUCH;
    return 1;
}

/* func_bobbing: a sine along one axis, sampled. */
int sweep__bsp_make_bobbing(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], period, height, phase, c[3];
    long flags;
    if (!sweep__bsp_ent_origin(b, e, origin) || !sweep__bsp_ent_number(b, e, "speed", 4, &period) ||
        !sweep__bsp_ent_number(b, e, "height", 32, &height) || !sweep__bsp_ent_number(b, e, "phase", 0, &phase) ||
        !sweep__bsp_ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    if (!(period > 0) || !(period <= SWEEP_MOVER_MAX_SECONDS) || height == 0)
        return mover_abandon(b, e, m, idx, origin, "it would not move (its speed, the period, or height)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    int axis = (flags & 1) ? 0 : (flags & 2) ? 1 : 2;
    double p0[3];
    for (int i = 0; i <= SWEEP_BSP_BOB_SAMPLES; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = origin[k] + c[k];
        p[axis] += height * sweep_sin_degrees(360.0 * ((double)i / SWEEP_BSP_BOB_SAMPLES - phase));
        if (i == 0)
            memcpy(p0, p, sizeof p0);
        if (i == SWEEP_BSP_BOB_SAMPLES)
            memcpy(p, p0, sizeof p); /* a loop ends exactly where it starts */
        if (!add_key(b, mv, period * i / SWEEP_BSP_BOB_SAMPLES, p, sweep_quat_identity()))
            return 0;
    }
    mv->mode = SWEEP_MOVER_LOOP;
    mv->trigger = SWEEP_TRIGGER_ALWAYS;
    mv->blocked = SWEEP_BLOCKED_CRUSH;
    return 1;
}

/* func_rotating: a whole turn about one axis through its origin. */
int sweep__bsp_make_rotating(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], speed;
    long flags;
    static const double zero[3] = {0, 0, 0};
    if (!sweep__bsp_ent_origin(b, e, origin) || !sweep__bsp_ent_number(b, e, "speed", 100, &speed) ||
        !sweep__bsp_ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    if (speed == 0)
        speed = 100;
    uint32_t idx;
    if (!mover_begin(b, e, m, zero, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    const int steps = (int)ceil(360.0 / SWEEP_BSP_TURN_STEP_DEG);
    const double step = 360.0 / steps, dt = step / fabs(speed);
    if (!(dt * steps <= SWEEP_MOVER_MAX_SECONDS))
        return mover_abandon(b, e, m, idx, origin, "it turns too slowly (a turn would take over a day)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    /* Quake 3: yaw (about z) by default, X_AXIS (4) rolls about x, Y_AXIS
     * (8) pitches about y; positive is counter-clockwise about the axis. */
    int axis = (flags & 4) ? 0 : (flags & 8) ? 1 : 2;
    double sign = speed < 0 ? -1.0 : 1.0;
    for (int i = 0; i <= steps; i++) {
        double half = 0.5 * sign * i * step, v[3] = {0, 0, 0}; /* degrees */
        v[axis] = sweep_sin_degrees(half);
        sweep_quat q = {v[0], v[1], v[2], sweep_cos_degrees(half)};
        if (i == steps)
            q = (sweep_quat){0, 0, 0, -1}; /* a whole turn, exactly */
        if (!add_key(b, mv, dt * i, origin, q))
            return 0;
    }
    mv->mode = SWEEP_MOVER_LOOP;
    mv->trigger = SWEEP_TRIGGER_ALWAYS;
    mv->blocked = SWEEP_BLOCKED_STOP;
    return 1;
}

/* The first path_corner named `name`, or NULL. */
static const entity *find_corner(const bsp *b, const char *name)
{
    for (uint32_t i = 0; name && i < b->ent_count; i++) {
        const entity *t = &b->ents[i];
        const char *tn = sweep__bsp_ent_get(b, t, "targetname");
        if (tn && strcmp(tn, name) == 0 && sweep__bsp_is_class(t, "path_corner"))
            return t;
    }
    return NULL;
}

/* func_train: around its path_corner chain, waiting at corners. */
int sweep__bsp_make_train(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], speed, c[3];
    if (!sweep__bsp_ent_origin(b, e, origin) || !sweep__bsp_ent_number(b, e, "speed", 100, &speed))
        return 0;
    if (!(speed > 0))
        speed = 100;
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    const entity *start = find_corner(b, sweep__bsp_ent_get(b, e, "target"));
    if (!start)
        return mover_abandon(b, e, m, idx, origin, "its target names no path_corner");
    double t = 0.0, p0[3];
    uint32_t legs = 0;
    const entity *at = start;
    sweep_level_mover *mv = &b->lv->movers[idx];
    for (;;) {
        double here[3], there[3], wait, leg_speed;
        const entity *next = find_corner(b, sweep__bsp_ent_get(b, at, "target"));
        if (!next)
            return mover_abandon(b, e, m, idx, origin, "its path does not lead back to its first corner");
        if (!sweep__bsp_ent_origin(b, at, here) || !sweep__bsp_ent_origin(b, next, there) ||
            !sweep__bsp_ent_number(b, at, "wait", 0, &wait) || !sweep__bsp_ent_number(b, at, "speed", 0, &leg_speed))
            return 0;
        if (!(leg_speed > 0))
            leg_speed = speed;
        if (leg_speed < 1)
            leg_speed = 1; /* as Quake 3 */
        for (int k = 0; k < 3; k++)
            here[k] += c[k], there[k] += c[k];
        if (at == start) {
            memcpy(p0, here, sizeof p0);
            if (!add_key(b, mv, 0.0, here, sweep_quat_identity()))
                return 0;
        }
        if (wait > 0) {
            t += wait;
            if (!(t <= SWEEP_MOVER_MAX_SECONDS))
                return mover_abandon(b, e, m, idx, origin, "its path takes longer than a day");
            if (!add_key(b, mv, t, here, sweep_quat_identity()))
                return 0;
        }
        double d[3] = {there[0] - here[0], there[1] - here[1], there[2] - here[2]};
        double len = sqrt(dot3(d, d));
        if (next == start)
            memcpy(there, p0, sizeof there); /* a loop ends exactly where it starts */
        if (len > 0) {
            t += len / leg_speed;
            if (!(t <= SWEEP_MOVER_MAX_SECONDS))
                return mover_abandon(b, e, m, idx, origin, "its path takes longer than a day");
            if (!add_key(b, mv, t, there, sweep_quat_identity()))
                return 0;
        }
        if (next == start)
            break;
        if (++legs > b->ent_count)
            return mover_abandon(b, e, m, idx, origin, "its path does not lead back to its first corner");
        at = next;
    }
    if (mv->key_count < 2 || mv->keys[mv->key_count - 1].pose.position.x != p0[0] ||
        mv->keys[mv->key_count - 1].pose.position.y != p0[1] || mv->keys[mv->key_count - 1].pose.position.z != p0[2])
        return mover_abandon(b, e, m, idx, origin, "its path does not move it");
    mv->mode = SWEEP_MOVER_LOOP;
    mv->trigger = SWEEP_TRIGGER_ALWAYS;
    mv->blocked = SWEEP_BLOCKED_STOP;
    return 1;
}
