/*
 * mover.h - doors, lifts and platforms: geometry that the server animates on
 * its fixed tick, and what it does to the bodies in its way.
 *
 * A mover is a small triangle mesh in its own local frame, placed in the
 * world by a pose (translation, then rotation as a unit quaternion: world
 * point = rotate(rotation, local) + position). Its path is a list of
 * keyframes (time in seconds from the start of the path, pose); between two
 * keyframes the position is lerped and the rotation nlerped (quat.h), so no
 * trigonometry ever runs. Mover time is the tick number: the path position
 * is an integer count of ticks, and the pose at path tick s is the path at
 * s / tick_rate seconds. Nothing depends on the wall clock.
 *
 * The state machine of one mover, advanced once per tick:
 *   - idle at the start until its trigger fires (ALWAYS fires every tick);
 *   - runs the path forward; at the end it waits wait_end seconds, then
 *       ONCE      stays at the end for good,
 *       PINGPONG  runs back, waits wait_start at the start, and goes again
 *                 (a triggered one goes idle at the start instead),
 *       LOOP      carries on from the start (the path is closed: its last
 *                 pose equals its first), and a triggered one goes idle;
 *   - a triggered PINGPONG mover that is triggered while it runs back
 *     (a door closing on someone) turns round; one triggered while it
 *     waits at the end waits again from the beginning.
 * Triggers: ALWAYS; VOLUME (a body's centre is inside a world box); TOUCH
 * (a body's last move stood on or touched the mover); COMMAND (a caller
 * said so, sweep_movers_trigger).
 *
 * Each tick, in mover order (sweep_movers_tick): the mover takes its next
 * pose; bodies standing on it are carried with it (rotation included), and
 * bodies in its way are pushed. The push is found in the mover's frame
 * ("Collision Detection and Response", chapter 12 of a game programming
 * course, on dynamic objects): the body's motion relative to
 * the mover over the tick is swept against the mover at its previous
 * placement, the slide result is mapped back into the world by the mover's
 * motion, and the body then slides there through everything else. Because
 * the relative motion is swept, a mover that crosses the whole body in one
 * tick still catches it. A body's ellipsoid stays aligned with the world,
 * so in the frame of a mover that turns it turns too, which that sweep does
 * not see unless the body is round about the turn (a turn about z and
 * rx == ry); any other body (one in front of a flap swinging up about a
 * horizontal hinge) is then tested against the mover where it now stands
 * and pushed out of it through everything else. A body that cannot be
 * carried or pushed clear (a door pressing it against a wall) blocks the
 * mover, which then follows its blocked rule: STOP (the mover stays where
 * it was this tick, and so do the bodies it moved), REVERSE (the same, and
 * it turns round), or CRUSH (the mover keeps going and reports the body
 * crushed; the caller must take a crushed body out of the world, since the
 * mover now overlaps it).
 *
 * Triangles: a mover triangle is named, in contacts and in the ground of a
 * move, by first_triangle + its running number over all movers' triangles
 * in mover order (sweep_movers_create), so static and mover triangles never
 * share a number. Degenerate mover triangles are kept out of collision as
 * in a static world (sweep_triangle_is_degenerate).
 *
 * Determinism: the same descriptions, tick rate, triggers and bodies in the
 * same order give the same poses and body positions, bit for bit;
 * sweep_movers_hash proves it. A movers object is not thread-safe: the
 * owner advances it and runs moves against it on one thread.
 */
#ifndef SWEEP_CORE_MOVER_H
#define SWEEP_CORE_MOVER_H

#include <stdint.h>

#include "core/move.h"
#include "core/quat.h"
#include "core/status.h"
#include "core/vec3.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The value of a mover index that names no mover. */
#define SWEEP_NO_MOVER UINT32_MAX
/* Limits a description must respect. */
#define SWEEP_MOVER_MAX_TRIANGLES 65536u
#define SWEEP_MOVER_MAX_KEYFRAMES 4096u
#define SWEEP_MOVER_MAX_SECONDS 86400.0 /* longest path and longest wait */

typedef enum sweep_mover_mode {
    SWEEP_MOVER_ONCE = 0,
    SWEEP_MOVER_LOOP = 1,
    SWEEP_MOVER_PINGPONG = 2,
    SWEEP_MOVER_MODE_COUNT
} sweep_mover_mode;

typedef enum sweep_mover_trigger {
    SWEEP_TRIGGER_ALWAYS = 0,
    SWEEP_TRIGGER_VOLUME = 1,
    SWEEP_TRIGGER_TOUCH = 2,
    SWEEP_TRIGGER_COMMAND = 3,
    SWEEP_TRIGGER_COUNT
} sweep_mover_trigger;

typedef enum sweep_mover_blocked {
    SWEEP_BLOCKED_STOP = 0,
    SWEEP_BLOCKED_REVERSE = 1,
    SWEEP_BLOCKED_CRUSH = 2,
    SWEEP_BLOCKED_COUNT
} sweep_mover_blocked;

/* Stable lower-case names ("once", "volume", "crush", ...) as the map format
 * spells them; NULL when out of range. */
const char *sweep_mover_mode_name(sweep_mover_mode m);
const char *sweep_mover_trigger_name(sweep_mover_trigger t);
const char *sweep_mover_blocked_name(sweep_mover_blocked b);

typedef struct sweep_mover_pose {
    sweep_vec3 position;
    sweep_quat rotation; /* unit */
} sweep_mover_pose;

typedef struct sweep_keyframe {
    double time; /* seconds from the start of the path */
    sweep_mover_pose pose;
} sweep_keyframe;

typedef struct sweep_mover_desc {
    const sweep_vec3 *vertices; /* local frame */
    uint32_t vertex_count;
    const uint32_t *indices;    /* 3 per triangle */
    const uint32_t *materials;  /* one per triangle; NULL = material 0 */
    uint32_t triangle_count;
    const sweep_keyframe *keys;
    uint32_t key_count;
    sweep_mover_mode mode;
    sweep_mover_trigger trigger;
    sweep_mover_blocked blocked;
    double wait_start, wait_end; /* seconds, >= 0 */
    sweep_vec3 volume_min, volume_max; /* world box of a VOLUME trigger */
} sweep_mover_desc;

/* What is wrong with a description, for the map loader's messages. */
typedef enum sweep_mover_problem {
    SWEEP_MOVER_FINE = 0,
    SWEEP_MOVER_NO_TRIANGLES,     /* no triangles, or all of them degenerate */
    SWEEP_MOVER_TOO_MANY_TRIANGLES,
    SWEEP_MOVER_BAD_VERTEX,       /* a vertex is not finite or beyond 1e7 */
    SWEEP_MOVER_BAD_INDEX,        /* a triangle names a vertex that does not exist */
    SWEEP_MOVER_FEW_KEYFRAMES,    /* fewer than 2, or more than the limit */
    SWEEP_MOVER_FIRST_TIME,       /* the first keyframe's time is not 0 */
    SWEEP_MOVER_TIME_ORDER,       /* times not strictly increasing, or past the limit */
    SWEEP_MOVER_BAD_POSITION,     /* a keyframe position is not finite or beyond 1e7 */
    SWEEP_MOVER_NOT_UNIT,         /* a keyframe rotation is not a unit quaternion (|len^2 - 1| > 1e-6) */
    SWEEP_MOVER_BAD_MODE,
    SWEEP_MOVER_BAD_TRIGGER,
    SWEEP_MOVER_BAD_BLOCKED,
    SWEEP_MOVER_BAD_WAIT,         /* a wait is negative, not finite or past the limit */
    SWEEP_MOVER_BAD_VOLUME,       /* a VOLUME trigger's box is empty or not finite */
    SWEEP_MOVER_OPEN_LOOP,        /* LOOP mode, but the last pose is not the first */
    SWEEP_MOVER_PROBLEM_COUNT
} sweep_mover_problem;

/* One sentence saying what the problem is ("keyframe times must increase"). */
const char *sweep_mover_problem_text(sweep_mover_problem p);

/* Checks a description; on a problem *at (may be NULL) is the keyframe,
 * triangle or vertex it is about (0 when about the whole mover). A NULL
 * description, or NULL vertices, indices or keys it counts entries of,
 * is a problem too (NO_TRIANGLES, or FEW_KEYFRAMES for the keys). */
sweep_mover_problem sweep_mover_desc_check(const sweep_mover_desc *d, uint32_t *at);

/* Where a mover is on its path: enough, with the description and the tick
 * rate, to know its pose. Sent, recorded and hashed as it is. */
enum {
    SWEEP_MOVER_TRIGGERED = 1u << 0, /* a trigger fired this tick (or a command waits for the next) */
    SWEEP_MOVER_BLOCKED = 1u << 1,   /* the last tick was blocked by a body */
    SWEEP_MOVER_MOVED = 1u << 2      /* the last tick changed the pose */
};

typedef struct sweep_mover_state {
    uint32_t path_tick; /* ticks along the path, 0 .. its length in ticks */
    int32_t dir;        /* +1 forward, -1 back, 0 idle */
    uint32_t wait;      /* ticks still to wait before moving on */
    uint32_t flags;     /* SWEEP_MOVER_* */
} sweep_mover_state;

typedef struct sweep_movers sweep_movers;

/*
 * Builds the movers of one world from count descriptions (each checked as
 * sweep_mover_desc_check: SWEEP_E_GEOMETRY if one fails). tick_rate is the
 * world's ticks per second, in [1, 10000]. Mover triangle numbers start at
 * first_triangle (usually the static world's triangle count). Every mover
 * starts at the first keyframe, idle or (ALWAYS) about to run. Zero movers
 * is allowed. On failure *out is untouched.
 */
sweep_status sweep_movers_create(const sweep_mover_desc *descs, uint32_t count, double tick_rate,
                                 uint32_t first_triangle, sweep_movers **out);

void sweep_movers_destroy(sweep_movers *mv);

uint32_t sweep_movers_count(const sweep_movers *mv);

/* Ticks advanced so far. */
uint64_t sweep_movers_tick_count(const sweep_movers *mv);

/* The mover that owns triangle number tri, or SWEEP_NO_MOVER. */
uint32_t sweep_movers_of_triangle(const sweep_movers *mv, uint32_t tri);

/* The pose and state of mover m now (either pointer may be NULL). */
void sweep_movers_get(const sweep_movers *mv, uint32_t m, sweep_mover_pose *pose, sweep_mover_state *state);

/* World box of mover m at its current pose (either pointer may be NULL;
 * nothing is written for a bad index). */
void sweep_movers_bounds(const sweep_movers *mv, uint32_t m, sweep_vec3 *lo, sweep_vec3 *hi);

/*
 * Puts mover m at a pose given from outside (a client following the
 * server's WorldState): the current pose becomes the previous one. Moves
 * against the same poses give the same bits as on the server.
 * SWEEP_E_ARG for a bad index, SWEEP_E_NONFINITE for a non-finite pose.
 */
sweep_status sweep_movers_set_pose(sweep_movers *mv, uint32_t m, const sweep_mover_pose *pose);

/*
 * Puts mover m in a state given from outside (a client following the
 * server's WorldState.paths), so that sweep_movers_tick runs it on from
 * there as the server's own would; the pose is set apart
 * (sweep_movers_set_pose), and a command waiting for the next tick is
 * dropped. SWEEP_E_ARG for a bad index or a state the machine cannot
 * reach for that mover (a path tick past its end, dir not -1, 0 or +1,
 * heading past an end, a wait longer than its longer wait).
 */
sweep_status sweep_movers_set_state(sweep_movers *mv, uint32_t m, const sweep_mover_state *state);

/* 1 if mover m exists and sweep_movers_set_state would take state for it. */
int sweep_movers_state_valid(const sweep_movers *mv, uint32_t m, const sweep_mover_state *state);

/* The ticks per second mv was built for. */
double sweep_movers_tick_rate(const sweep_movers *mv);

/* The pose of mover m's path at path tick s (for tools and tests); the
 * origin and the identity rotation for a bad index. */
sweep_mover_pose sweep_movers_path_pose(const sweep_movers *mv, uint32_t m, uint32_t s);

/* Length of mover m's path in ticks; 0 for a bad index. */
uint32_t sweep_movers_path_ticks(const sweep_movers *mv, uint32_t m);

/* Fires mover m's trigger at the next tick (a COMMAND, or any mover forced
 * from outside). SWEEP_E_ARG for a bad index. */
sweep_status sweep_movers_trigger(sweep_movers *mv, uint32_t m);

/* A body the tick may carry or push: an entity's ellipsoid. */
enum {
    SWEEP_BODY_CARRIED = 1u << 0, /* moved with the mover it stands on */
    SWEEP_BODY_PUSHED = 1u << 1,  /* pushed by a mover in its way */
    SWEEP_BODY_CRUSHED = 1u << 2, /* could not get clear of a CRUSH mover: take it out */
    SWEEP_BODY_BLOCKED = 1u << 3  /* blocked a STOP or REVERSE mover this tick */
};

typedef struct sweep_body {
    sweep_vec3 position;   /* in and out */
    sweep_vec3 radii;
    uint32_t ground_mover; /* in: mover its last move ended standing on, or SWEEP_NO_MOVER */
    uint32_t touch_mover;  /* in: a mover its last move touched (TOUCH triggers), or SWEEP_NO_MOVER */
    uint32_t flags;        /* out: SWEEP_BODY_* this tick */
    uint32_t mover;        /* out: the mover that last carried, pushed or crushed it, or SWEEP_NO_MOVER */
} sweep_body;

typedef struct sweep_tick_report {
    uint32_t moved;   /* movers whose pose changed */
    uint32_t blocked; /* movers that were blocked */
    uint32_t carried, pushed, crushed; /* bodies */
} sweep_tick_report;

/*
 * Advances every mover by one tick, carrying and pushing the bodies (in
 * array order, which the caller keeps deterministic) through the static
 * world w under cfg (its skin and limits: a body the mover would send
 * past the coordinate limit stays and blocks it, as a wall would). Bodies
 * already flagged crushed on entry are ignored. w may be NULL (no static world: the movers meet
 * only each other and the bodies), and rep too. SWEEP_E_ARG for a NULL
 * mv or cfg, or NULL bodies when count > 0; SWEEP_E_CONFIG for a bad
 * config; otherwise SWEEP_OK.
 */
sweep_status sweep_movers_tick(sweep_movers *mv, const sweep_world *w, const sweep_config *cfg, sweep_body *bodies,
                               uint32_t count, sweep_tick_report *rep);

/* Folds every mover's state and pose (bit patterns) into h. */
uint64_t sweep_movers_hash(const sweep_movers *mv, uint64_t h);

/*
 * sweep_move against the static world and the movers at their current
 * poses (mv may be NULL: static world only). result.ground_mover names the
 * mover stood on; each contact's mover field the mover touched.
 */
sweep_status sweep_move_among(const sweep_world *world, const sweep_movers *mv, const sweep_config *cfg,
                              const sweep_move_input *in, sweep_move_result *out);

#ifdef __cplusplus
}
#endif

#endif
