/*
 * import_bsp_volumes.c - Quake 3's trigger brush models into volumes
 * (core/volume.h): jump pads (trigger_push), teleporters
 * (trigger_teleport), hurt and kill volumes (trigger_hurt) and named
 * triggers (trigger_multiple); and the world's water, slime, lava and
 * ladder brushes into liquids and ladders.
 *
 * A volume holds player centres, so each brush of the trigger's model is
 * grown by the player box's half sizes: the centre is inside the grown
 * brush exactly when Quake 3's player box (centre 4 above its origin)
 * touches the brush, short of the box's edge bevels, which make the grown
 * region a little larger at its edges.
 */
#include "maps/import_bsp_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/move.h"
#include "maps/loader.h"

/* Quake 3's TeleportPlayer: the player's origin goes 1 unit above the
 * destination's and leaves at 400 units/s along its facing. */
#define TELEPORT_RAISE 1.0
#define TELEPORT_SPEED 400.0
#define TELEPORT_SPECTATOR 1 /* spawnflags: spectators only */
/* trigger_hurt: "dmg" (default 5) every server frame of 100 ms it is
 * touched, or once a second with spawnflag 16 (SLOW); one touch of at
 * least 200 (the most health a Quake 3 player can have) kills. */
#define HURT_DEFAULT 5.0
#define HURT_PERIOD 0.1
#define HURT_START_OFF 1
#define HURT_SLOW 16
#define HURT_KILLS 200.0

/* The first entity whose targetname is name (Quake 3's G_PickTarget picks
 * one of them at random; a level names one). */
static const entity *find_target(const bsp *b, const char *name)
{
    if (!name || !*name)
        return NULL;
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const char *t = sweep__bsp_ent_get(b, &b->ents[i], "targetname");
        if (t && strcmp(t, name) == 0)
            return &b->ents[i];
    }
    return NULL;
}

/* The entity e's "target" names, or NULL after a warning that no `what`
 * was made of e (model m). */
static const entity *target_of(bsp *b, const entity *e, uint32_t m, const char *what)
{
    const char *tn = sweep__bsp_ent_get(b, e, "target");
    const entity *t = find_target(b, tn);
    if (t)
        b->ents[t - b->ents].used = 1;
    else
        sweep__bsp_warn(b, "entity %u (%s, model *%u): its target '%s' names no entity; no %s made",
                        (uint32_t)(e - b->ents), e->classname, m, tn ? tn : "", what);
    return t;
}

/* Fills v's box and planes with brush k of model md (convex) grown by
 * half (each side pushed out by the half sizes along its normal) and
 * moved by o, in the box of the model's bounds grown likewise; `what`
 * names the brush in a warning. 0 if nothing is left of it. */
static int brush_region(bsp *b, const model *md, uint32_t k, const double half[3], const double o[3],
                        const char *what, sweep_volume *v)
{
    const uint8_t *r = record(b, L_BRUSHES, md->first_brush + k);
    uint32_t first = (uint32_t)i32_at(r), n = (uint32_t)i32_at(r + 4);
    if (n < 4)
        return 0;
    v->plane_count = 0;
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = md->mins[a] + o[a] - half[a];
        hi[a] = md->maxs[a] + o[a] + half[a];
    }
    for (uint32_t i = 0; i < n; i++) {
        const plane *p = sweep__bsp_side_plane(b, first, i);
        double grow = fabs(p->n[0]) * half[0] + fabs(p->n[1]) * half[1] + fabs(p->n[2]) * half[2];
        double d = p->d + p->n[0] * o[0] + p->n[1] * o[1] + p->n[2] * o[2] + grow;
        /* An axial side is the box's own: it tightens the box. */
        int axis = -1;
        for (int a = 0; a < 3; a++)
            if (fabs(p->n[a]) >= PARALLEL_DOT)
                axis = a;
        if (axis >= 0) {
            if (p->n[axis] > 0 && d < hi[axis])
                hi[axis] = d;
            else if (p->n[axis] < 0 && -d > lo[axis])
                lo[axis] = -d;
            continue;
        }
        if (v->plane_count == SWEEP_VOLUME_MAX_PLANES) {
            sweep__bsp_warn(
                b,
                "%s: a brush of more than %u slanted sides: the rest are left out, so its volume is a little "
                "larger",
                what, SWEEP_VOLUME_MAX_PLANES);
            break;
        }
        v->planes[v->plane_count].normal = sweep_v3(p->n[0], p->n[1], p->n[2]);
        v->planes[v->plane_count].offset = d;
        v->plane_count++;
    }
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]))
        return 0;
    v->lo = sweep_v3(lo[0], lo[1], lo[2]);
    v->hi = sweep_v3(hi[0], hi[1], hi[2]);
    return 1;
}

/* Adds v, named name, as the level's next volume. */
static int add_volume(bsp *b, const char *name, const sweep_volume *v)
{
    sweep_status st = sweep_level_add_volume(b->lv, b->lv->volume_count + 1, name, v);
    if (st == SWEEP_E_NOMEM)
        return sweep__bsp_nomem(b);
    if (st != SWEEP_OK)
        return sweep__bsp_fail(b, "more than %u volumes in the level", SWEEP_VOLUME_MAX);
    return 1;
}

/* One volume per brush of model m (each is convex), all like *proto, named
 * name: the brush's sides grown by the player's half sizes, in the box of
 * the model's bounds grown likewise (and moved by the entity's origin). */
static int add_trigger_volumes(bsp *b, const entity *e, uint32_t m, const sweep_volume *proto, const char *name)
{
    static const double half[3] = {PLAYER_HALF_X, PLAYER_HALF_X, PLAYER_HALF_Z};
    double o[3];
    if (!sweep__bsp_ent_origin(b, e, o))
        return 0;
    const model *md = &b->models[m];
    char what[96];
    snprintf(what, sizeof what, "entity %u (%s, model *%u)", (uint32_t)(e - b->ents), e->classname, m);
    uint32_t made = 0;
    for (uint32_t k = 0; k < md->brushes; k++) {
        sweep_volume v = *proto;
        if (!brush_region(b, md, k, half, o, what, &v))
            continue;
        if (!add_volume(b, name, &v))
            return 0;
        made++;
    }
    if (!made)
        sweep__bsp_warn(b, "entity %u (%s, model *%u): no brush with volume; no volume made", (uint32_t)(e - b->ents),
                        e->classname, m);
    return 1;
}

/* trigger_push aimed at its target the way Quake 3's AimAtTarget aims it,
 * from the centre of the trigger's bounds, under gravity g: the flight
 * takes time = sqrt(height / (g / 2)) to rise to the target's height (its
 * top), covering the horizontal distance in that time. */
static int make_push(bsp *b, const entity *e, uint32_t m, double g)
{
    const entity *t = target_of(b, e, m, "jump pad");
    if (!t)
        return 1;
    double o[3], to[3];
    if (!sweep__bsp_ent_origin(b, e, o) || !sweep__bsp_ent_origin(b, t, to))
        return 0;
    const model *md = &b->models[m];
    double c[3];
    for (int a = 0; a < 3; a++)
        c[a] = 0.5 * (md->mins[a] + md->maxs[a]) + o[a];
    double height = to[2] - c[2];
    if (!(height > 0.0)) {
        sweep__bsp_warn(b,
                        "entity %u (trigger_push, model *%u): its target is not above it (height %g); no jump pad made",
                        (uint32_t)(e - b->ents), m, height);
        return 1;
    }
    double time = sqrt(height / (0.5 * g));
    double dx = to[0] - c[0], dy = to[1] - c[1];
    double dist = sqrt(dx * dx + dy * dy);
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_PUSH;
    v.facing = sweep_v3(1, 0, 0);
    v.velocity = dist > 0.0 ? sweep_v3(dx / dist * (dist / time), dy / dist * (dist / time), time * g)
                            : sweep_v3(0.0, 0.0, time * g);
    char name[SWEEP_LEVEL_NAME_MAX];
    snprintf(name, sizeof name, "trigger_push_%u", m);
    b->st->jump_pads++;
    return add_trigger_volumes(b, e, m, &v, name);
}

/* trigger_teleport to its misc_teleporter_dest (or any entity its target
 * names): the player box's centre 1 + 4 above the destination's origin,
 * facing its "angle" (yaw, degrees) or "angles" (pitch yaw roll), leaving
 * at 400 units/s along the horizontal facing, as Quake 3 sends it out.
 * One with spawnflags 1 takes spectators only: no volume. */
static int make_teleport(bsp *b, const entity *e, uint32_t m)
{
    long flags;
    if (!sweep__bsp_ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    if (flags & TELEPORT_SPECTATOR) {
        sweep__bsp_warn(b, "entity %u (trigger_teleport, model *%u): for spectators only (spawnflags 1); no teleporter made",
                        (uint32_t)(e - b->ents), m);
        return 1;
    }
    const entity *t = target_of(b, e, m, "teleporter");
    if (!t)
        return 1;
    double to[3], yaw = 0.0, angles[3];
    static const double zero[3] = {0, 0, 0};
    if (!sweep__bsp_ent_origin(b, t, to) || !sweep__bsp_ent_number(b, t, "angle", 0.0, &yaw) ||
        !sweep__bsp_ent_numbers(b, t, "angles", angles, 3, zero))
        return 0;
    if (sweep__bsp_ent_get(b, t, "angles"))
        yaw = angles[1];
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_TELEPORT;
    v.destination = sweep_v3(to[0], to[1], to[2] + TELEPORT_RAISE + PLAYER_CENTRE_UP);
    v.facing = sweep_v3(sweep_cos_degrees(yaw), sweep_sin_degrees(yaw), 0.0);
    v.exit_speed = TELEPORT_SPEED;
    v.keep_velocity = 0;
    char name[SWEEP_LEVEL_NAME_MAX];
    snprintf(name, sizeof name, "trigger_teleport_%u", m);
    b->st->teleporters++;
    return add_trigger_volumes(b, e, m, &v, name);
}

/* trigger_hurt: damage per second from "dmg" and its period; a touch
 * that takes more than any player's health is a kill volume. One with
 * spawnflags 1 starts off until what targets it switches it on, which a
 * volume cannot follow: none is made. */
static int make_hurt(bsp *b, const entity *e, uint32_t m)
{
    double dmg;
    long flags;
    if (!sweep__bsp_ent_number(b, e, "dmg", HURT_DEFAULT, &dmg) || !sweep__bsp_ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    if (flags & HURT_START_OFF) {
        sweep__bsp_warn(b,
                        "entity %u (trigger_hurt, model *%u): starts off (spawnflags 1) until something switches it "
                        "on, which a volume cannot follow; no volume made",
                        (uint32_t)(e - b->ents), m);
        return 1;
    }
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.facing = sweep_v3(1, 0, 0);
    char name[SWEEP_LEVEL_NAME_MAX];
    if (dmg >= HURT_KILLS) {
        v.kind = SWEEP_VOLUME_KILL;
        snprintf(name, sizeof name, "trigger_hurt_%u", m);
        b->st->kills++;
    } else if (dmg > 0.0) {
        v.kind = SWEEP_VOLUME_HURT;
        v.damage = dmg / ((flags & HURT_SLOW) ? 1.0 : HURT_PERIOD);
        snprintf(name, sizeof name, "trigger_hurt_%u", m);
        b->st->hurts++;
    } else {
        sweep__bsp_warn(b, "entity %u (trigger_hurt, model *%u): dmg %g hurts nobody; no volume made",
                        (uint32_t)(e - b->ents), m, dmg);
        return 1;
    }
    return add_trigger_volumes(b, e, m, &v, name);
}

/* Liquids and ladders of the world model: a brush whose shader's
 * contents hold lava, slime or water is a liquid volume, the brush itself
 * (core/volume.h: a liquid is not grown), hurting as Quake 3's
 * P_WorldEffects does (lava 30, slime 10 a second at each depth level);
 * each side of a brush whose shader has SURF_LADDER and that faces across
 * up is a ladder volume: the brush grown by the player's half sizes and
 * LADDER_REACH (the unit ahead that the ladder move of Quake 3's
 * descendants traces) and cut at that side's plane (only a centre in
 * front of it climbs), its normal that side's across up. Volumes follow the triggers', in brush order. */
#define LADDER_REACH 1.0
#define LAVA_DAMAGE 30.0
#define SLIME_DAMAGE 10.0

/* Cuts v down to the centres on or in front of side plane p: a ladder is
 * climbed from its face, not from behind the brush or over its top. 0 if
 * nothing is left. */
static int in_front_of(bsp *b, const plane *p, const char *what, sweep_volume *v)
{
    double lo[3] = {v->lo.x, v->lo.y, v->lo.z}, hi[3] = {v->hi.x, v->hi.y, v->hi.z};
    int axis = -1;
    for (int a = 0; a < 3; a++)
        if (fabs(p->n[a]) >= PARALLEL_DOT)
            axis = a;
    if (axis >= 0) {
        /* n . c >= d along an axis: c >= d, or c <= -d facing down it. */
        if (p->n[axis] > 0 && p->d > lo[axis])
            lo[axis] = p->d;
        else if (p->n[axis] < 0 && -p->d < hi[axis])
            hi[axis] = -p->d;
    } else if (v->plane_count < SWEEP_VOLUME_MAX_PLANES) {
        v->planes[v->plane_count].normal = sweep_v3(-p->n[0], -p->n[1], -p->n[2]);
        v->planes[v->plane_count].offset = -p->d;
        v->plane_count++;
    } else {
        sweep__bsp_warn(b, "%s: no room for its ladder side's plane: it may be climbed from behind", what);
    }
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]))
        return 0;
    v->lo = sweep_v3(lo[0], lo[1], lo[2]);
    v->hi = sweep_v3(hi[0], hi[1], hi[2]);
    return 1;
}

int sweep__bsp_liquids_and_ladders(bsp *b)
{
    static const double none[3] = {0, 0, 0};
    static const double ladder_half[3] = {PLAYER_HALF_X + LADDER_REACH, PLAYER_HALF_X + LADDER_REACH,
                                          PLAYER_HALF_Z + LADDER_REACH};
    if (b->count[L_MODELS] == 0)
        return 1;
    const model *md = &b->models[0];
    for (uint32_t k = 0; k < md->brushes; k++) {
        const uint8_t *r = record(b, L_BRUSHES, md->first_brush + k);
        uint32_t first = (uint32_t)i32_at(r), n = (uint32_t)i32_at(r + 4);
        uint32_t contents = b->shaders[i32_at(r + 8)].contents;
        char what[48];
        snprintf(what, sizeof what, "world brush %u", md->first_brush + k);
        sweep_volume v;
        memset(&v, 0, sizeof v);
        if (contents & CONTENTS_LIQUID) {
            /* Quake 3's point contents name lava before slime before water. */
            v.kind = SWEEP_VOLUME_LIQUID;
            v.liquid = contents & CONTENTS_LAVA    ? SWEEP_LIQUID_LAVA
                       : contents & CONTENTS_SLIME ? SWEEP_LIQUID_SLIME
                                                   : SWEEP_LIQUID_WATER;
            v.damage = v.liquid == SWEEP_LIQUID_LAVA    ? LAVA_DAMAGE
                       : v.liquid == SWEEP_LIQUID_SLIME ? SLIME_DAMAGE
                                                        : 0.0;
            if (brush_region(b, md, k, none, none, what, &v)) {
                if (!add_volume(b, sweep_liquid_name(v.liquid), &v))
                    return 0;
                b->st->liquids++;
            }
        }
        /* One ladder a side that has the flag and faces across up: a
         * ladder brush whose shader is on every side (a ladder clip) is
         * climbed from whichever side a player meets. */
        uint32_t ladder_sides = 0, flat_sides = 0;
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *side = record(b, L_BRUSHSIDES, first + i);
            if (!(b->shaders[i32_at(side + 4)].flags & SURF_LADDER))
                continue;
            const plane *p = sweep__bsp_side_plane(b, first, i);
            double h = sqrt(p->n[0] * p->n[0] + p->n[1] * p->n[1]);
            if (!(h > 1e-6)) {
                flat_sides++;
                continue;
            }
            ladder_sides++;
            memset(&v, 0, sizeof v);
            v.kind = SWEEP_VOLUME_LADDER;
            v.normal = sweep_v3(p->n[0] / h, p->n[1] / h, 0.0);
            if (brush_region(b, md, k, ladder_half, none, what, &v) && in_front_of(b, p, what, &v)) {
                if (!add_volume(b, "ladder", &v))
                    return 0;
                b->st->ladders++;
            }
        }
        if (flat_sides && !ladder_sides)
            sweep__bsp_warn(b, "%s: its ladder sides face up or down; no ladder made", what);
    }
    return 1;
}

/* trigger_multiple that opens no door (a door takes its trigger's box):
 * a trigger volume, which says when a player enters and leaves it, named
 * after what it fires (its "target"), for the game to act on as Quake 3
 * fires its targets; without a target, after its model. */
static int make_trigger(bsp *b, const entity *e, uint32_t m)
{
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_TRIGGER;
    v.facing = sweep_v3(1, 0, 0);
    const char *tn = sweep__bsp_ent_get(b, e, "target");
    char name[SWEEP_LEVEL_NAME_MAX];
    if (tn && *tn)
        snprintf(name, sizeof name, "%s", tn);
    else
        snprintf(name, sizeof name, "trigger_multiple_%u", m);
    b->st->triggers++;
    return add_trigger_volumes(b, e, m, &v, name);
}

/* Every trigger the level's volumes come from, in entity order (so the
 * volumes' ids follow the entities'). */
int sweep__bsp_volumes(bsp *b, double g)
{
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const entity *e = &b->ents[i];
        int push = sweep__bsp_is_class(e, "trigger_push"), tele = sweep__bsp_is_class(e, "trigger_teleport"),
            hurt = sweep__bsp_is_class(e, "trigger_hurt"),
            trig = sweep__bsp_is_class(e, "trigger_multiple") && !e->used;
        if (!push && !tele && !hurt && !trig)
            continue;
        uint32_t m;
        if (!sweep__bsp_ent_model(b, e, &m))
            return 0;
        if (m == 0) {
            sweep__bsp_warn(b, "entity %u (%s) has no brush model; ignored", i, e->classname);
            continue;
        }
        int ok = push   ? make_push(b, e, m, g)
                 : tele ? make_teleport(b, e, m)
                 : hurt ? make_hurt(b, e, m)
                        : make_trigger(b, e, m);
        if (!ok)
            return 0;
    }
    return 1;
}

/* Quake 3 puts a teleported player at its destination whether its box
 * fits there or not; the core blocks a teleporter whose destination has
 * no room for the player, for good. So a destination that overlaps the
 * level's static geometry, and is clear a step height higher, is lowered
 * from there onto what it was sunk into, with a warning, and the
 * teleporter works. Movers are not looked at (they move); anything else
 * is left for the level check to name. */
static int room_at(const sweep_space *sp, const sweep_level *lv, sweep_vec3 p, sweep_vec3 up, double dt)
{
    sweep_move_input in = {p, lv->default_radii, sweep_v3_scale(up, 1e-6 / dt), dt, 0};
    sweep_move_result res;
    return sweep_move_in(sp, &lv->config, &in, &res) == SWEEP_OK && !(res.flags & SWEEP_MOVED_STARTED_EMBEDDED);
}

int sweep__bsp_lift_teleports(bsp *b)
{
    sweep_level *lv = b->lv;
    uint32_t n = 0;
    for (uint32_t i = 0; i < lv->volume_count; i++)
        n += lv->volumes[i].v.kind == SWEEP_VOLUME_TELEPORT;
    if (n == 0)
        return 1;
    sweep_world *w;
    char err[256];
    sweep_status st = sweep_map_build_world(lv, &w, NULL, err, sizeof err);
    if (st == SWEEP_E_NOMEM)
        return sweep__bsp_nomem(b);
    if (st != SWEEP_OK)
        return 1; /* the level is refused later, saying why */
    const sweep_config *cfg = &lv->config;
    double g = sweep_v3_len(cfg->gravity);
    sweep_vec3 up = g > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / g) : sweep_v3(0, 0, 1);
    double dt = cfg->max_dt < 1.0 ? cfg->max_dt : 1.0, step = cfg->step_height;
    sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
    for (uint32_t i = 0; i < lv->volume_count; i++) {
        sweep_level_volume *tv = &lv->volumes[i];
        sweep_vec3 d = tv->v.destination;
        if (tv->v.kind != SWEEP_VOLUME_TELEPORT || room_at(&sp, lv, d, up, dt))
            continue;
        sweep_vec3 high = sweep_v3_madd(d, up, step);
        if (!(step > 0.0) || !room_at(&sp, lv, high, up, dt))
            continue;
        sweep_move_input in = {high, lv->default_radii, sweep_v3_scale(up, -step / dt), dt, 0};
        sweep_move_result res;
        if (sweep_move_in(&sp, cfg, &in, &res) != SWEEP_OK || !room_at(&sp, lv, res.position, up, dt))
            continue;
        tv->v.destination = res.position;
        sweep__bsp_warn(b,
                        "%s: its destination (%g, %g, %g) has no room for a player (sunk %.3g into the floor), "
                        "which would block it for good; lifted onto the floor, to (%g, %g, %g)",
                        tv->name, d.x, d.y, d.z, sweep_v3_dot(sweep_v3_sub(res.position, d), up), res.position.x,
                        res.position.y, res.position.z);
    }
    sweep_world_destroy(w);
    return 1;
}
