/*
 * bullet_walk.h - walkers moved by Bullet's kinematic character controller
 * (btKinematicCharacterController, Debian's libbullet-dev), for
 * bench_vs_bullet.c to time against sweep's core on the same level, the
 * same starts and the same headings. C on the outside, C++ inside
 * (bullet_walk.cpp).
 */
#ifndef SWEEP_TESTS_BENCH_BULLET_WALK_H
#define SWEEP_TESTS_BENCH_BULLET_WALK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bullet_walk bullet_walk;

/* What the walkers are and where they walk. */
typedef struct bullet_walk_desc {
    const double *vertices; /* xyz, vertex_count of them */
    uint32_t vertex_count;
    const uint32_t *indices; /* 3 per triangle */
    uint32_t triangle_count;
    double radius;      /* the capsule's, across up (z) */
    double half_height; /* of the whole capsule along up, its caps included */
    double step_height;
    double gravity; /* units/s^2, down along -z */
    double fall_speed; /* the fastest a character falls, units/s */
    double max_slope; /* radians */
    const double *starts; /* xyz of each walker's centre */
    uint32_t walkers;
} bullet_walk_desc;

/* A world of the level's triangles (one static BVH mesh) and one character
 * per walker, each at its start; NULL when Bullet refuses it. */
bullet_walk *bullet_walk_new(const bullet_walk_desc *d);

/* Every walker back at its start, at rest. */
void bullet_walk_reset(bullet_walk *b);

/* One step of dt seconds: walker i walks by walk[3 i ..] this step (its
 * velocity across up times dt), falls under gravity, and the world steps
 * (its broad phase and every character's update). */
void bullet_walk_step(bullet_walk *b, const double *walk, double dt);

/* Where walker i's centre is. */
void bullet_walk_position(const bullet_walk *b, uint32_t i, double out[3]);

void bullet_walk_free(bullet_walk *b);

#ifdef __cplusplus
}
#endif

#endif
