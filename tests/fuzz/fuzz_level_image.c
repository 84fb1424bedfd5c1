/*
 * fuzz_level_image.c - libFuzzer harness over the level image reader
 * (maps/level_image.c): any bytes read as the level image a game ships
 * and libsweep loads to predict on (no SQLite), and a level that comes out
 * built into a world and movers as the SDK builds it.
 *
 * Beyond "no crash, no sanitizer report" it checks, on every input:
 * - a refusal is SWEEP_E_GEOMETRY, SWEEP_E_CONFIG or SWEEP_E_NOMEM with a
 *   message, and leaves an empty level;
 * - a level read is one the map format and the core take
 *   (tests/fuzz/level_invariants.h);
 * - its world and its movers are built, or refused with a message;
 * - players walk it as a game's would (walk_players): from each spawn
 *   point (the first four) a second of sweep_act among its movers, its
 *   volumes, liquids and ladders acting, its movers ticking with the
 *   players aboard, wishes in eight headings with jumps and crouches; each
 *   step is taken, or refused with a status, and a player taken is at a
 *   finite place.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-image FUZZ_SECONDS=N`, and a bounded smoke run in `make test`. The
 * seeds are the level images make builds of the sample maps.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/crowd.h"
#include "core/motion.h"
#include "core/mover.h"
#include "core/world.h"
#include "maps/level.h"
#include "maps/level_image.h"
#include "maps/loader.h"
#include "tests/fuzz/level_invariants.h"

enum { WALKERS = 4, STEPS = 60 };

/* A second of play on the level: the input's own rules and radii, from
 * its spawns (a level without any is not walked). */
static void walk_players(const sweep_level *lv, const sweep_world *w, sweep_movers *mv)
{
    uint32_t n = lv->spawn_count < WALKERS ? lv->spawn_count : WALKERS;
    sweep_actor a[WALKERS];
    sweep_body b[WALKERS];
    for (uint32_t i = 0; i < n; i++) {
        memset(&a[i], 0, sizeof a[i]);
        a[i].position = lv->spawns[i];
    }
    sweep_space space = {w, mv, NULL, SWEEP_NO_BODY};
    for (uint32_t t = 0; t < STEPS; t++) {
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_level lv;
    char err[1024] = "";
    sweep_status s = sweep_level_image_read(data, size, &lv, err, sizeof err);
    if (s != SWEEP_OK) {
        if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_CONFIG && s != SWEEP_E_NOMEM) || err[0] == '\0')
            fuzz_fail("a refusal without its message", (uint32_t)s);
        if (lv.triangle_count || lv.vertex_count || lv.mover_count || lv.volume_count)
            fuzz_fail("a refusal that leaves a level behind", (uint32_t)s);
        sweep_level_free(&lv);
        return 0;
    }
    fuzz_check_level(&lv);
    sweep_world *w = NULL;
    err[0] = '\0';
    s = sweep_map_build_world(&lv, &w, NULL, err, sizeof err);
    if (s != SWEEP_OK && err[0] == '\0')
        fuzz_fail("a world refused without a message", (uint32_t)s);
    sweep_movers *mv = NULL;
    if (sweep_level_build_movers(&lv, &mv) != SWEEP_OK)
        mv = NULL;
    if (w)
        walk_players(&lv, w, mv);
    sweep_movers_destroy(mv);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
    return 0;
}
