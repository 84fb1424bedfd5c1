/*
 * floor_platform.h - what the argument tests of the core and of libsweep
 * stand on: a 100 x 100 floor at z = 0 and one mover, a 2 x 2 platform
 * at (5, 5) carried from z = 1 to z = 2 over a second and back. Tests
 * include it after cmocka.h.
 */
#ifndef SWEEP_TESTS_FLOOR_PLATFORM_H
#define SWEEP_TESTS_FLOOR_PLATFORM_H

#include <string.h>

#include "core/mover.h"
#include "core/world.h"
#include "maps/level.h"

static const sweep_vec3 PLATFORM_VERTICES[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
static const uint32_t PLATFORM_INDICES[6] = {0, 1, 2, 0, 2, 3};
static const sweep_keyframe PLATFORM_KEYS[2] = {{0.0, {{5, 5, 1}, {0, 0, 0, 1}}}, {1.0, {{5, 5, 2}, {0, 0, 0, 1}}}};

static inline sweep_mover_desc platform_desc(void)
{
    sweep_mover_desc d;
    memset(&d, 0, sizeof d);
    d.vertices = PLATFORM_VERTICES, d.vertex_count = 4;
    d.indices = PLATFORM_INDICES, d.triangle_count = 2;
    d.keys = PLATFORM_KEYS, d.key_count = 2;
    d.mode = SWEEP_MOVER_PINGPONG, d.trigger = SWEEP_TRIGGER_ALWAYS, d.blocked = SWEEP_BLOCKED_STOP;
    return d;
}

/* The floor into lv (initialised here), its world into *w and the
 * platform's movers, at 60 ticks a second, into *mv. */
static inline void floor_platform_build(sweep_level *lv, sweep_world **w, sweep_movers **mv)
{
    sweep_level_init(lv);
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(-50, -50, 0), sweep_v3(50, -50, 0), sweep_v3(50, 50, 0),
                                          sweep_v3(-50, 50, 0), 1),
                     SWEEP_OK);
    sweep_world_desc wd = sweep_level_world_desc(lv);
    assert_int_equal(sweep_world_create(&wd, w), SWEEP_OK);
    sweep_mover_desc md = platform_desc();
    assert_int_equal(sweep_movers_create(&md, 1, 60.0, wd.triangle_count, mv), SWEEP_OK);
}

/* Undoes floor_platform_build. */
static inline void floor_platform_free(sweep_level *lv, sweep_world *w, sweep_movers *mv)
{
    sweep_movers_destroy(mv);
    sweep_world_destroy(w);
    sweep_level_free(lv);
}

#endif
