/*
 * level_walk.h - players walking a level a fuzzer's reader accepted
 * (tests/fuzz/fuzz_bsp.c, fuzz_level_image.c), as a game's would: from
 * each spawn point (the first four) a second of sweep_act with the level's
 * own rules and radii, among its movers, its volumes, liquids and ladders
 * acting, its movers ticking with the players aboard; wishes in eight
 * headings with jumps and crouches. Each step is taken, or refused with a
 * status (and the player left where it was); a player taken is at a
 * finite place, and so is one a mover carried. A level without spawns is
 * not walked. fuzz_build_and_walk builds what the walk needs first.
 */
#ifndef SWEEP_TESTS_FUZZ_LEVEL_WALK_H
#define SWEEP_TESTS_FUZZ_LEVEL_WALK_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/crowd.h"
#include "core/motion.h"
#include "core/mover.h"
#include "core/world.h"
#include "maps/level.h"
#include "maps/loader.h"
#include "tests/fuzz/level_invariants.h"

enum { FUZZ_WALKERS = 4, FUZZ_STEPS = 60 };

static inline void fuzz_walk_players(const sweep_level *lv, const sweep_world *w, sweep_movers *mv)
{
    uint32_t n = lv->spawn_count < FUZZ_WALKERS ? lv->spawn_count : FUZZ_WALKERS;
    sweep_actor a[FUZZ_WALKERS];
    sweep_body b[FUZZ_WALKERS];
    for (uint32_t i = 0; i < n; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].position = lv->spawns[i];
    }
    sweep_space space = {w, mv, NULL, SWEEP_NO_BODY};
    for (uint32_t t = 0; t < FUZZ_STEPS; t++) {
        for (uint32_t i = 0; i < n; i++) {
            double ang = (double)((t / 8 + 3 * i) % 8) * 0.785398163397448;
            sweep_wish wish = {sweep_v3_scale(sweep_v3(cos(ang), sin(ang), 0.0), lv->rules.walk_speed),
                               (t % 17 == 5 ? SWEEP_WISH_JUMP : 0u) | (t % 23 > 15 ? SWEEP_WISH_CROUCH : 0u)};
            sweep_act_result r;
            sweep_actor before = a[i];
            if (sweep_act(&space, &lv->config, &lv->rules, lv->default_radii, &a[i], &wish, 1.0 / 60.0, &r) !=
                SWEEP_OK) {
                a[i] = before; /* refused: left as it was */
                continue;
            }
            if (!sweep_v3_isfinite(a[i].position) || !sweep_v3_isfinite(a[i].velocity))
                fuzz_fail("a step taken to a place that is not finite", i);
        }
        if (!mv)
            continue;
        for (uint32_t i = 0; i < n; i++) {
            memset(&b[i], 0, sizeof b[i]);
            b[i].position = a[i].position;
            b[i].radii = lv->default_radii;
            b[i].ground_mover = b[i].touch_mover = SWEEP_NO_MOVER;
        }
        if (sweep_movers_tick(mv, w, &lv->config, b, n, NULL) != SWEEP_OK)
            continue;
        for (uint32_t i = 0; i < n; i++) {
            if (!sweep_v3_isfinite(b[i].position))
                fuzz_fail("a mover carried a player to a place that is not finite", i);
            a[i].position = b[i].position;
        }
    }
}

/* What a game makes of a level a reader accepted: its world, built or
 * refused with a message, and its movers, built or left out; then players
 * walk it (above), and everything is freed. */
static inline void fuzz_build_and_walk(const sweep_level *lv)
{
    char err[1024] = "";
    sweep_world *w = NULL;
    sweep_status s = sweep_map_build_world(lv, &w, NULL, err, sizeof err);
    if (s != SWEEP_OK && err[0] == '\0')
        fuzz_fail("a world refused without a message", (uint32_t)s);
    sweep_movers *mv = NULL;
    if (sweep_level_build_movers(lv, &mv) != SWEEP_OK)
        mv = NULL;
    if (w)
        fuzz_walk_players(lv, w, mv);
    sweep_movers_destroy(mv);
    sweep_world_destroy(w);
}

#endif
