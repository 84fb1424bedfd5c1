/*
 * scene.h - one straight sweep of the unit sphere (eSpace) through a world:
 * BVH broad phase, narrow phase per candidate, nearest contact with the
 * simultaneous contacts beside it (EllipsoidIntersectScene in "Collision
 * Detection and Response", chapter 12 of a game programming course).
 * Internal to core/.
 */
#ifndef SWEEP_CORE_SCENE_H
#define SWEEP_CORE_SCENE_H

#include <stdint.h>

#include "core/crowd.h"
#include "core/mover.h"
#include "core/swept_sphere.h"
#include "core/vec3.h"
#include "core/world.h"
#include "core/world_impl.h"

/* Contacts closer than this in t count as simultaneous. */
#define SWEEP__TIE_EPS 1e-9
#define SWEEP__MAX_SIMULTANEOUS 8

typedef struct sweep__scene_hit {
    double t;              /* as sweep_sphere_hit.t */
    sweep_vec3 normal;     /* eSpace, unit */
    sweep__tri tri;        /* world space, a copy: a shell lives only as long as the walk that built it */
    uint32_t index;        /* the triangle's number (tie-break key) */
    uint32_t mover;        /* the mover it belongs to, or SWEEP_NO_MOVER */
    uint32_t body;         /* the crowd slot whose shell it is, or SWEEP_NO_BODY */
} sweep__scene_hit;

/* Most shells one sweep keeps its start inside of, each by its deepest
 * contact; a sweep inside more decides for the others triangle by
 * triangle (scene.c). */
#define SWEEP__MAX_SOFT 4

/* A shell's contact counts only while the sweep runs deeper into it than
 * this (a fraction of the displacement): a slide along a shell's face,
 * projected onto its normal, is left that far off the plane by rounding,
 * and the normal of a start inside, taken from the nearest point, by far
 * more when the centre lies close to the face. */
#define SWEEP__SOFT_INTO 1e-6

typedef struct sweep__scene_result {
    double t_min;   /* earliest t over all contacts: where the sphere may go */
    uint32_t count; /* simultaneous contacts, sorted by index; hits[0] is the primary */
    /* The shells the sweep starts inside of (t < 0), in slot order, each
     * by its deepest contact: the move reports them as touched, whether or
     * not they are among hits (at t = 0, when the sweep runs deeper in:
     * scene.c). Set by every sweep, touching or not; beside count, so that
     * the two are cleared by one store. */
    uint32_t soft_count;
    double disp_len; /* |e_disp| (sweep_v3_len), which the sweep needed too */
    sweep__scene_hit hits[SWEEP__MAX_SIMULTANEOUS];
    sweep__scene_hit soft[SWEEP__MAX_SOFT];
} sweep__scene_result;

/* Most static triangles one move keeps at hand, and most mover and shell
 * triangles; a move near more falls back to walking the BVH (or the
 * movers) on every sweep (same answers, more time). The real levels of the
 * corpus keep up to about 500 static triangles for a move at Quake speeds. */
#define SWEEP__MAX_CANDIDATES 768
#define SWEEP__MAX_MOVER_CANDIDATES 64
/* Most kept triangles prepared (turned into eSpace with their derived
 * data, or taken prepared from the world) in one move: a triangle is
 * prepared only when a sweep first needs it, since many kept triangles are
 * never near a sweep. Past this, a triangle is prepared on the spot for
 * each test (same bits, more time). */
#define SWEEP__MAX_PREPARED 160
/* Most bodies' shells one move keeps at hand (built for it: crowd.c); a
 * move near more walks the movers and shells on every sweep. */
#define SWEEP__MAX_SHELLS 4

/*
 * A triangle kept for a move: its world box in float, widened so that it
 * holds the exact double box (a cheap first test that never rejects what
 * the exact test keeps), and where its prepared eSpace form is.
 *
 * Stack: a sweep__scene is 79 KiB (48 bytes per kept triangle, 200 per
 * one prepared here, 2,240 per kept shell), on the stack of sweep_move_in
 * and of the mover push (one at a time); it was 30 KiB when every kept
 * triangle was prepared, 70 KiB before shells were built by the move.
 */
typedef struct sweep__candidate {
    sweep__tri_box box;    /* world space, widened */
    const sweep__tri *tri;
    uint32_t mover;        /* SWEEP_NO_MOVER for static triangles */
    uint32_t body;         /* SWEEP_NO_BODY unless a crowd shell */
    const sweep__tri_prep *prep; /* its prepared form (the world's or the scene's), or NULL until needed */
} sweep__candidate;

/*
 * What a scene sweeps against: the static world (or none), a range of
 * movers at their current or previous placement, less one, and the other
 * bodies' shells (or none). A move sees the world, every mover and every
 * other body as they are now; a mover's tick sees one mover where it was
 * (the push in its frame), or everything but that mover.
 */
typedef struct sweep__scene_src {
    const sweep_world *world;   /* NULL: no static geometry */
    const sweep_movers *movers; /* NULL: no movers */
    uint32_t first, end;        /* movers first .. end-1 */
    uint32_t skip;              /* a mover left out, or SWEEP_NO_MOVER */
    int prev;                   /* 1: the movers' previous placement */
    const sweep_crowd *crowd;   /* NULL: no bodies */
    uint32_t self;              /* the body left out, or SWEEP_NO_BODY */
} sweep__scene_src;

/*
 * What one move sweeps against. sweep__scene_begin walks the BVH once with a
 * box around everything the move is likely to reach and keeps the
 * triangles in it, in BVH order; each sweep whose own box
 * lies inside that box then tests only those. A sweep that leaves the box,
 * or a move near too many triangles, walks the BVH as if nothing were kept.
 * Either way a sweep tests, in the same order, every triangle the BVH walk
 * would test that could be touched, so the answers are the same bits.
 */
typedef struct sweep__scene {
    sweep__scene_src src;
    sweep_vec3 radii, inv_radii;
    sweep_vec3 lo, hi; /* world box the candidates cover */
    int kept;          /* 0: no candidates kept, every sweep walks the BVH */
    uint32_t count;
    int movers_kept;   /* 0: too many mover and shell triangles near, every sweep walks them */
    uint32_t mover_count;
    /* The world's triangles prepared for these radii (its prep, when
     * made with inv_radii), or NULL: then each is prepared here. */
    const sweep__tri_prep *world_prep;
    uint32_t prepared; /* entries of prep in use */
    /* For the kept sweeps' reach test (scene.c): the inverse radii a
     * shade down and the slack of a float gap anywhere in [lo, hi], per
     * axis, the fourth lanes 0. */
    float ball_scale[4], ball_slack[4];
    sweep__candidate cand[SWEEP__MAX_CANDIDATES];
    sweep__candidate mover_cand[SWEEP__MAX_MOVER_CANDIDATES];
    sweep__tri_prep prep[SWEEP__MAX_PREPARED];
    sweep__tri shells[SWEEP__MAX_SHELLS * SWEEP_CROWD_SHELL_TRIANGLES]; /* the kept shells' triangles */
} sweep__scene;

/* Prepares the candidates of one move: triangles of src touching the world
 * box [lo, hi], for an ellipsoid of the given radii. */
void sweep__scene_begin(sweep__scene *s, const sweep__scene_src *src, sweep_vec3 radii, sweep_vec3 inv_radii,
                        sweep_vec3 lo, sweep_vec3 hi);

/*
 * Sweeps the unit sphere from e_from by e_disp (eSpace) against the world
 * of s. Returns 1 and fills *out on contact (or embedded start), 0 if the
 * path is clear (then *out holds only soft_count and soft). The primary
 * contact is the lowest triangle index among those within SWEEP__TIE_EPS
 * of the earliest, so the answer depends on nothing but the inputs. s is
 * written only to remember the triangles it prepared.
 *
 * Another body's shell is soft: a sweep that starts inside it (t < 0) is
 * never given the contact to be pushed out along, which could push it
 * into the level or a mover behind; the shell only stops it, at t = 0,
 * when the sweep runs deeper in (scene.c). The level and the movers keep
 * their embedded answers.
 */
int sweep__scene_sweep(sweep__scene *s, sweep_vec3 e_from, sweep_vec3 e_disp, sweep__scene_result *out);

#endif
