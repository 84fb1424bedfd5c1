/*
 * move.h - collide-and-slide: moving one ellipsoid through a world.
 *
 * This is the entry point the server, the client SDK's prediction and the
 * tools call for every player step. One call:
 *
 *   1. splits the displacement velocity * dt into a lateral part (across the
 *      up axis) and a vertical part (along it), as Fauerby's gravity pass;
 *   2. slides the lateral part along what it hits (bounded iterations, the
 *      jitter filter and the iteration-limit fallback of "Collision Detection
 *      and Response", chapter 12 of a game programming course); steep
 *      surfaces act as vertical walls here whenever sliding along them
 *      would rise, so walking never climbs a steep ramp;
 *   3. if the body was grounded and the lateral move was blocked by
 *      something it could step over (touched no higher than step_height
 *      above its feet: a riser, a step's nose), tries to step up by at most
 *      step_height and keeps the step only if it lands on walkable ground
 *      and goes further; a wall touched only higher up is slid along;
 *   4. moves the vertical part: falling stops on walkable ground, slides
 *      down steep ground;
 *   5. if the body was grounded, is not moving up and lost the ground, snaps
 *      down by at most step_height onto walkable ground (stairs down, ramps);
 *   6. reports the new position, the integration velocity (the input velocity
 *      with what the surfaces took away; zero along up while grounded), the
 *      ground, the contacts and the collision extents.
 *
 * Without gravity (zero vector) there is no up axis: the whole displacement
 * is one slide and there is no ground logic.
 *
 * A move that starts overlapping the level or a mover is pushed out along
 * its deepest contact's normal, a skin clear of it (that chapter's
 * embedded-sphere correction). Another body's shell never pushes
 * (crowd.h): it only stops a sweep that runs deeper into it.
 *
 * The call is a pure function of (world, config, input): no allocation,
 * bit-identical on every machine (see vec3.h conventions). Its state is
 * per thread and changes no answer: the inverse radii and up axis made for
 * the last radii and gravity, reused while they are the same bits (they are
 * what a remake would give), and the last config that passed its check.
 * Bad input returns an error and writes nothing. It keeps the triangles it
 * is near on the stack: about 97 KiB of it at the deepest, which a thread
 * calling it must have (glibc's default thread stack is 8 MiB, musl's 128 KiB).
 */
#ifndef SWEEP_CORE_MOVE_H
#define SWEEP_CORE_MOVE_H

#include <stdint.h>

#include "core/status.h"
#include "core/vec3.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif
#define SWEEP_MAX_CONTACTS 8

/* Movement rules and limits, usually one per world (the map supplies them). */
typedef struct sweep_config {
    sweep_vec3 gravity;        /* units/s^2; only its direction is used here */
    double walkable_normal_up; /* cosine of the steepest walkable slope, in (0, 1] */
    double step_height;        /* highest step climbed or snapped down, units; 0 = none */
    double skin;               /* gap kept to surfaces, in eSpace units (fraction of a radius) */
    uint32_t max_iterations;   /* slide iterations per pass, 1..64 */
    /* Limits on input; anything outside is refused with an error. */
    double min_radius, max_radius; /* units */
    double max_anisotropy;         /* largest radius / smallest radius */
    double max_speed;              /* units/s */
    double max_dt;                 /* seconds */
    double max_coordinate;         /* |position component|, units */
} sweep_config;

/* Fills cfg with the documented defaults: z up, 9.81 gravity, 45 degree
 * walkable slope, 0.35 step, skin 1e-3, 8 iterations, radii 0.01..100,
 * anisotropy 32, speed 1000, dt 1, coordinates 1e7. A NULL cfg: nothing. */
void sweep_config_default(sweep_config *cfg);

/* SWEEP_OK if every field is finite and in range, SWEEP_E_CONFIG otherwise.
 * A config with the very bits of the last one that passed on this thread
 * passes again without the range tests. */
sweep_status sweep_config_check(const sweep_config *cfg);

/* The one rule for radii, shared by every move and every place that makes
 * a body (spawns, maps): each within [min_radius, max_radius] and the
 * largest at most max_anisotropy times the smallest. 1 if r fits (NaN
 * never does, nor anything a NULL cfg). */
int sweep_config_radii_ok(const sweep_config *cfg, sweep_vec3 r);

/* The one rule for positions: every coordinate within [-max_coordinate,
 * max_coordinate]. 1 if p is inside (NaN never is, nor anything a NULL
 * cfg). */
int sweep_config_contains(const sweep_config *cfg, sweep_vec3 p);

/* The same, inline where it is tested once a move beside the core
 * (server/world/entity_motion.c): a call passing p on the stack cost several
 * times the test. */
static inline int sweep__config_contains_inline(const sweep_config *cfg, sweep_vec3 p)
{
    double l = cfg->max_coordinate;
    return fabs(p.x) <= l && fabs(p.y) <= l && fabs(p.z) <= l;
}

/*
 * v shortened to at most `limit` long, by the test every move's input
 * check uses (|v|^2 > limit^2 is refused): v itself when it passes, else v
 * scaled to the limit. Scaling by limit / |v| alone lands an ulp beyond the
 * limit about one time in four, and a velocity clamped that way (a fall at
 * terminal speed) would have every later move refused; so the factor is
 * shrunk an ulp at a time until the result passes. + - * / sqrt and
 * nextafter only: the same bits everywhere. A v that is not finite gives
 * one that is not either (the move check refuses it); limit >= 0.
 */
sweep_vec3 sweep_clamp_speed(sweep_vec3 v, double limit);

/* cos(degrees) from + - * / only, so a slope limit given in degrees turns into
 * the same walkable_normal_up on every machine. Within 1e-15 of the true
 * value; any finite argument is accepted (NaN for NaN or infinity). */
double sweep_cos_degrees(double degrees);
/* sin(degrees) likewise (the importers' angles and turns: a libm's sin may
 * differ in its last bit from one CPU to the next, and so would a map). */
double sweep_sin_degrees(double degrees);

enum {
    SWEEP_INPUT_GROUNDED = 1u << 0 /* the previous move ended grounded */
};

typedef struct sweep_move_input {
    sweep_vec3 position; /* ellipsoid centre, units */
    sweep_vec3 radii;    /* semi-axes along x, y, z, units */
    sweep_vec3 velocity; /* requested velocity for this step, units/s */
    double dt;           /* seconds */
    uint32_t flags;      /* SWEEP_INPUT_* */
} sweep_move_input;

enum {
    SWEEP_MOVED_HIT = 1u << 0,             /* touched at least one surface */
    SWEEP_MOVED_GROUNDED = 1u << 1,        /* ends standing on walkable ground */
    SWEEP_MOVED_STARTED_EMBEDDED = 1u << 2, /* began overlapping geometry: pushed out of the level or a
                                             * mover; another body's shell only keeps it from going deeper
                                             * (crowd.h) */
    SWEEP_MOVED_ITERATION_LIMIT = 1u << 3, /* a pass ran out of iterations; fallback used */
    SWEEP_MOVED_STEPPED = 1u << 4,         /* climbed a step */
    SWEEP_MOVED_SNAPPED = 1u << 5          /* snapped down onto ground */
};

typedef struct sweep_contact {
    sweep_vec3 point;  /* world point on the ellipsoid surface where it touched */
    sweep_vec3 normal; /* world unit normal of the sliding plane, towards the ellipsoid */
    uint32_t triangle; /* triangle index as given to sweep_world_create (mover triangles: mover.h) */
    uint32_t material;
    uint32_t mover;    /* index of the mover touched (mover.h), or UINT32_MAX for static geometry */
    uint32_t body;     /* crowd slot of the body touched (crowd.h), or UINT32_MAX */
} sweep_contact;

typedef struct sweep_move_result {
    sweep_vec3 position;      /* new centre */
    sweep_vec3 velocity;      /* integration velocity, units/s */
    sweep_vec3 ground_normal; /* world unit normal under the body if grounded, else zero */
    uint32_t ground_triangle; /* SWEEP_NO_TRIANGLE if not grounded */
    uint32_t ground_material; /* 0 if not grounded */
    uint32_t ground_mover;    /* mover stood on (mover.h), UINT32_MAX if none */
    uint32_t ground_body;     /* crowd slot of the body stood on (crowd.h), UINT32_MAX if none */
    uint32_t flags;           /* SWEEP_MOVED_* */
    uint32_t iterations;      /* scene sweeps performed, all passes together */
    uint32_t contact_count;
    /* Surfaces touched during this move, in the order first touched, each
     * triangle once, at most SWEEP_MAX_CONTACTS. */
    sweep_contact contacts[SWEEP_MAX_CONTACTS];
    /* Bounding box of the contact points relative to the centre at contact
     * (the collision extents of that chapter's CollideEllipsoid): min =
     * +radii and max = -radii when empty. */
    sweep_vec3 extents_min, extents_max;
} sweep_move_result;

/*
 * Moves one ellipsoid. Returns SWEEP_OK and fills *out, or an error
 * (NONFINITE, RADII, VELOCITY, DT, POSITION, CONFIG, ARG) and leaves *out
 * untouched.
 */
sweep_status sweep_move(const sweep_world *world, const sweep_config *cfg,
                        const sweep_move_input *in, sweep_move_result *out);

#ifdef __cplusplus
}
#endif

#endif
