/*
 * volume.h - regions of a level that act on the bodies walking through
 * them: jump pads, teleporters, hurting and killing places, and named
 * triggers the game hears about.
 *
 * A volume is a convex region in the space of body centres: a box (lo ..
 * hi) cut by up to SWEEP_VOLUME_MAX_PLANES half-spaces (normal . p <=
 * offset). A body is in a volume when its ellipsoid's centre is: a tool
 * that makes a volume from a solid brush grows the brush by the body's
 * radii first (maps/import_bsp.c does), so that "the centre is inside the
 * grown region" is "the ellipsoid touches the brush", as Quake 3's
 * trigger touch is. A point on a face is inside.
 *
 * What a volume does is part of the movement rules (core/motion.h): after
 * each step of sweep_act, the body's new centre is tested against every
 * volume of the world in index order, and
 *   push      sets the body's velocity to the launch velocity and makes it
 *             airborne, every step it is inside (Quake 3's trigger_push
 *             sets the velocity on every touch);
 *   teleport  moves the centre to the destination if the body fits there
 *             (the embedded-start test every placement uses: the level,
 *             the movers at their poses and the crowd), airborne, with
 *             its velocity kept or replaced by facing * exit_speed; the
 *             remaining volumes are not tested for this step (the body is
 *             elsewhere). A body that does not fit stays where it is, the
 *             result says the teleport was blocked, and the volumes after
 *             it act as if it were not there (a hurt volume on the same
 *             spot still hurts, a later teleport may still take the body);
 *   hurt      adds damage per second * the step's seconds to the result;
 *   kill      ends the move where the step ended: no later step runs,
 *             and neither the volumes after it in index order nor any
 *             trigger act on that step;
 *   trigger   is reported when a step starts outside it and ends inside
 *             (entered), or starts inside and ends outside (left); the
 *             triggers are looked at after the other kinds.
 * A step that leaves a trigger by a teleport leaves it; one whose stance
 * turned at its start (core/stance.h: the centre moves, the feet stay)
 * enters or leaves a trigger or a liquid by that turn as by a walk.
 * A crouched body: the regions are the standing shape's centres, and a
 * crouched body (its feet where a standing one's would be, its centre
 * lift lower, lift the difference of the two shapes' half heights along
 * up) is in one when the standing centre over its feet (its centre +
 * lift up) and the point 2 lift below that both are: for a brush grown by
 * the standing radii, when the crouched shape itself touches the brush
 * (a kill brush just under the floor does not reach it; a pad at its
 * feet does). Two kinds decide how the body moves rather than act after
 * a step (core/motion.h says how; core/medium.h finds them):
 *   liquid    (water, slime, lava) is the liquid itself, not grown by the
 *             radii: how deep a body is in it is sampled, as Quake 3's
 *             waterlevel is, at three points on the line along up through
 *             the centre: the feet (15/16 of the ellipsoid's extent along
 *             up below the centre), the centre and the eyes (3/4 of it
 *             above). Level 1: the feet are in a liquid, 2: the centre
 *             too (the body swims), 3: the eyes too. The liquid named is
 *             the first, in index order, that holds the feet; the points
 *             above may be in any liquid (a pool made of several
 *             brushes). A liquid with damage hurts damage * level per
 *             second, reported as a hurt volume's (Quake 3's lava and
 *             slime hurt by depth);
 *   ladder    is grown like the others (by the radii and a small margin,
 *             so that a body against the climbed face is inside); a body
 *             whose centre is inside climbs. The ladder's normal points
 *             out of the climbed face: a wish towards the ladder climbs.
 * Volumes act on
 * Walk moves (sweep_act) only: raw moves of trusted roles (Fly, Noclip)
 * pass through them untouched, as a game server's own scripted motion does.
 *
 * Deterministic: + - * / and comparisons only, in a fixed order; no
 * allocation during a move. A world lists its volumes in a grid and a
 * step tests the boxes of those in its cells first (core/volume.c); a
 * move told at its start that no volume lies within its reach skips even
 * that for the steps that stay within it (core/volume_clear.c). A level
 * has tens of volumes, not thousands.
 */
#ifndef SWEEP_CORE_VOLUME_H
#define SWEEP_CORE_VOLUME_H

#include <stdint.h>

#include "core/status.h"
#include "core/vec3.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Most half-spaces one volume is cut by (a Quake 3 brush has a few more
 * than its box's six sides). */
#define SWEEP_VOLUME_MAX_PLANES 32u
/* Most volumes one world holds. */
#define SWEEP_VOLUME_MAX 4096u
/* The most damage per second a hurt volume or a liquid may do: far above
 * any player's health a tick (a kill volume ends a player whatever it
 * has), and low enough that a move's summed damage, over every step and
 * every volume, stays a finite number a game can add up. */
#define SWEEP_VOLUME_MAX_DAMAGE 1e6

typedef enum sweep_volume_kind {
    SWEEP_VOLUME_PUSH = 0,
    SWEEP_VOLUME_TELEPORT,
    SWEEP_VOLUME_HURT,
    SWEEP_VOLUME_KILL,
    SWEEP_VOLUME_TRIGGER,
    SWEEP_VOLUME_LIQUID,
    SWEEP_VOLUME_LADDER,
    SWEEP_VOLUME_KIND_COUNT
} sweep_volume_kind;

/* Stable lower-case name ("push", "teleport", ...), as the map writes it;
 * "unknown" out of range. */
const char *sweep_volume_kind_name(sweep_volume_kind k);

/* What a liquid volume holds; 0 is none (a body in no liquid). */
typedef enum sweep_liquid {
    SWEEP_LIQUID_NONE = 0,
    SWEEP_LIQUID_WATER,
    SWEEP_LIQUID_SLIME,
    SWEEP_LIQUID_LAVA,
    SWEEP_LIQUID_COUNT
} sweep_liquid;

/* Stable lower-case name ("water", "slime", "lava"), as the map writes
 * it; "none" for 0, "unknown" out of range. */
const char *sweep_liquid_name(sweep_liquid l);

typedef struct sweep_volume_plane {
    sweep_vec3 normal; /* need not be unit length; inside: normal . p <= offset */
    double offset;
} sweep_volume_plane;

typedef struct sweep_volume {
    sweep_volume_kind kind;
    sweep_vec3 lo, hi; /* the box of centres, lo <= hi on every axis */
    uint32_t plane_count;
    sweep_volume_plane planes[SWEEP_VOLUME_MAX_PLANES];
    sweep_vec3 velocity;    /* push: the launch velocity, units/s */
    sweep_vec3 destination; /* teleport: the new centre */
    sweep_vec3 facing;      /* teleport: unit vector the body faces on arrival */
    double exit_speed;      /* teleport: speed along facing when the velocity is not kept, units/s, >= 0 */
    uint32_t keep_velocity; /* teleport: 1 keeps the velocity, 0 replaces it */
    double damage;          /* hurt: per second, > 0; liquid: per second at each depth level, >= 0 */
    sweep_liquid liquid;    /* liquid: what it holds (not NONE) */
    sweep_vec3 normal;      /* ladder: unit vector out of the climbed face */
} sweep_volume;

/* SWEEP_OK if v can act in a world of this speed limit (max_speed, the
 * config's) and coordinate limit: a known kind, finite numbers, lo <= hi,
 * at most SWEEP_VOLUME_MAX_PLANES planes with a normal that is not zero,
 * a launch velocity within the speed limit, a destination within the
 * coordinate limit, a unit facing (|f|^2 within 1e-6 of 1), an exit speed
 * in [0, max_speed], keep_velocity 0 or 1, damage above 0 for hurt, a
 * known liquid and damage at least 0 for a liquid (at most
 * SWEEP_VOLUME_MAX_DAMAGE for both), a unit normal (as the facing) for a
 * ladder.
 * SWEEP_E_NONFINITE, SWEEP_E_VELOCITY, SWEEP_E_POSITION, SWEEP_E_CONFIG
 * otherwise; *why (may be NULL) gets a short English reason. */
sweep_status sweep_volume_check(const sweep_volume *v, double max_speed, double max_coordinate, const char **why);

/* The speed a volume gives a body it acts on: a push's launch speed, a
 * teleport's exit speed, 0 for the other kinds. What a map's speed limit
 * bounds (sweep_volume_check), for a tool to name beside the limit. */
double sweep_volume_speed(const sweep_volume *v);

/* 1 if the point p is inside v (its box and every plane); 0 for NULL v. */
int sweep_volume_contains(const sweep_volume *v, sweep_vec3 p);

/* Gives the world these volumes (copied; index i is v[i]), replacing any
 * it had; n = 0 takes them away. Each is checked first
 * (sweep_volume_check with these limits: the config's max_speed and
 * max_coordinate the world's moves run under): on an error the world is
 * unchanged and *bad (may be NULL) is the index of the volume at fault.
 * SWEEP_E_ARG past SWEEP_VOLUME_MAX, SWEEP_E_NOMEM. Not safe while other
 * threads move bodies in this world: call it before sharing it. */
sweep_status sweep_world_set_volumes(sweep_world *w, const sweep_volume *v, uint32_t n, double max_speed,
                                     double max_coordinate, uint32_t *bad, const char **why);

/* The world's volumes, and how many (NULL and 0 for none). */
const sweep_volume *sweep_world_volumes(const sweep_world *w, uint32_t *count);

/* Events of a move in volumes (sweep_volume_report.events). */
enum {
    SWEEP_VOLUME_EV_LAUNCHED = 1u << 0,         /* a push volume set the velocity */
    SWEEP_VOLUME_EV_TELEPORTED = 1u << 1,       /* a teleport volume moved the body */
    SWEEP_VOLUME_EV_TELEPORT_BLOCKED = 1u << 2, /* a teleport's destination had no room: stayed */
    SWEEP_VOLUME_EV_HURT = 1u << 3,             /* a hurt volume added damage */
    SWEEP_VOLUME_EV_KILLED = 1u << 4,           /* a kill volume ended the move */
    SWEEP_VOLUME_EV_ENTERED = 1u << 5,          /* a step entered a trigger */
    SWEEP_VOLUME_EV_LEFT = 1u << 6,             /* a step left a trigger */
    SWEEP_VOLUME_EV_SWAM = 1u << 7,             /* a step moved swimming (core/motion.h) */
    SWEEP_VOLUME_EV_CLIMBED = 1u << 8,          /* a step moved climbing a ladder */
    SWEEP_VOLUME_EV_LIQUID_ENTERED = 1u << 9,   /* a step took the feet from no liquid into one */
    SWEEP_VOLUME_EV_LIQUID_LEFT = 1u << 10,     /* a step took the feet out of every liquid */
    SWEEP_VOLUME_EV_IN_LIQUID = 1u << 11,       /* the move ended with the feet in a liquid */
    SWEEP_VOLUME_EV_ON_LADDER = 1u << 12        /* the move ended on a ladder */
};

/* What volumes did to one move (sweep_act_result.volumes). Each index
 * (into the world's volumes) is meaningful only when its event is set,
 * and is the last one of its kind, in step order and then volume order. */
typedef struct sweep_volume_report {
    uint32_t events;      /* SWEEP_VOLUME_EV_* of every step, or-ed */
    uint32_t launched_by; /* LAUNCHED */
    uint32_t teleported_by; /* TELEPORTED or TELEPORT_BLOCKED: the last that acted or was blocked */
    uint32_t hurt_by;     /* HURT */
    uint32_t killed_by;   /* KILLED */
    uint32_t entered;     /* ENTERED */
    uint32_t left;        /* LEFT */
    double damage;        /* HURT: damage of every step, summed */
    sweep_vec3 facing;    /* TELEPORTED: the destination's facing */
    uint32_t liquid;      /* IN_LIQUID: the liquid the feet are in at the end */
    uint32_t liquid_level; /* at the end: 0 none, 1 feet, 2 waist, 3 eyes under (the liquid rule) */
    uint32_t liquid_type; /* IN_LIQUID: that liquid's sweep_liquid (else NONE) */
    uint32_t liquid_entered; /* LIQUID_ENTERED */
    uint32_t liquid_left; /* LIQUID_LEFT */
    uint32_t ladder;      /* ON_LADDER: the ladder the body is on at the end */
} sweep_volume_report;

#ifdef __cplusplus
}
#endif

#endif
