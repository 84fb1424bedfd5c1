/*
 * test_corpus_volumes.c - jump pads and kill volumes of real levels: the
 * Quake 3 levels of the corpus (Debian's openarena-oacmp1, found or
 * installed by tests/install-corpus.sh; the test skips, saying why,
 * without it) imported by the real sweep-import with their trigger_push,
 * trigger_teleport and trigger_hurt brushes. oacmpdm7 has the 9 jump pads
 * and the kill volume a level designer counts in it. On every level, a
 * walker put in each jump pad is launched with the pad's velocity, and a
 * flight that meets nothing on its way up tops out vz^2 / 2g above where
 * it was last launched (Quake 3's apex rule: the pad's target height),
 * within a step and a half of its rise; a walker dropped just above each
 * kill volume falls into it and its move ends killed. The water of the
 * levels that have some (their world brushes of water contents) is found,
 * counted per level, and a walker dropped above each pool deeper than a
 * player falls into it and swims; no corpus level has a ladder.
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/motion.h"
#include "core/volume.h"
#include "maps/loader.h"

#define DT (1.0 / 60.0)

static int setup(void **state)
{
    *state = fixture_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_cleanup(*state);
    return 0;
}

typedef struct level_count {
    const char *member;
    uint32_t pads, kills;
} level_count;

/* What the levels with volumes hold (counted from their entities). */
static const level_count levels[] = {
    {"maps/oacmpdm7.bsp", 9, 1},  {"maps/oacmpdm2.bsp", 8, 1}, {"maps/oacmpdm3.bsp", 6, 0},
    {"maps/oacmpdm4.bsp", 0, 1},  {"maps/oacmpdm5.bsp", 8, 0}, {"maps/oacmpdm9.bsp", 0, 1},
    {"maps/oacmpdm10.bsp", 19, 0}, {"maps/oacmpctf1.bsp", 8, 0}, {"maps/oacmpctf3.bsp", 2, 1},
};

/* Imports level `member` of the corpus with the real sweep-import, and
 * loads it and its world. */
static void import_level(fixture *f, const char *pk3, const char *member, sweep_level *lv, sweep_world **w)
{
    char db[4200], cmd[13000];
    snprintf(db, sizeof db, "%s", fixture_path(f, "level.db"));
    snprintf(cmd, sizeof cmd, "'%s' '%s' --bsp '%s' -o '%s' --quiet >/dev/null 2>&1",
             fixture_build("bin/sweep-import"), pk3, member, db);
    if (system(cmd) != 0)
        fail_msg("sweep-import %s failed", member);
    char err[256];
    if (sweep_map_load(db, lv, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(lv, w, NULL, err, sizeof err) != SWEEP_OK)
        fail_msg("%s: %s", member, err);
}

static sweep_act_result step(const sweep_space *sp, const sweep_level *lv, sweep_actor *a)
{
    sweep_wish wish = {sweep_v3(0, 0, 0), 0};
    sweep_act_result r;
    sweep_status st = sweep_act(sp, &lv->config, &lv->rules, lv->default_radii, a, &wish, DT, &r);
    if (st != SWEEP_OK)
        fail_msg("sweep_act: %s", sweep_status_name(st));
    return r;
}

static sweep_vec3 centre_of(const sweep_volume *v)
{
    return sweep_v3(0.5 * (v->lo.x + v->hi.x), 0.5 * (v->lo.y + v->hi.y), 0.5 * (v->lo.z + v->hi.z));
}

static void pads_launch_and_kill_volumes_kill(void **state)
{
    fixture *f = *state;
    char pk3[4096];
    if (!fixture_corpus(f, pk3, sizeof pk3))
        skip();
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        sweep_level lv;
        sweep_world *w;
        import_level(f, pk3, levels[l].member, &lv, &w);
        /* The import's own rules: Quake 3's air move (air_move) takes no
         * speed from a flight, so it is the ballistic one Quake 3 aims. */
        assert_true(lv.rules.air_move == SWEEP_AIR_ALONG && lv.rules.air_accel > 0.0);
        sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
        double g = -lv.config.gravity.z;
        uint32_t pads = 0, launched = 0, checked = 0, obstructed = 0, kills = 0, killed = 0;
        for (uint32_t i = 0; i < lv.volume_count; i++) {
            const sweep_volume *v = &lv.volumes[i].v;
            if (v->kind == SWEEP_VOLUME_KILL) {
                kills++;
                sweep_vec3 c = centre_of(v);
                sweep_actor a = {sweep_v3(c.x, c.y, v->hi.z + 10.0), sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
                for (int s = 0; s < 600; s++) {
                    sweep_act_result r = step(&sp, &lv, &a);
                    if (r.volumes.events & SWEEP_VOLUME_EV_KILLED) {
                        assert_int_equal(r.volumes.killed_by, i);
                        killed++;
                        break;
                    }
                }
                continue;
            }
            if (v->kind != SWEEP_VOLUME_PUSH)
                continue;
            pads++;
            sweep_actor a = {centre_of(v), sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
            sweep_vec3 last = a.position, top = a.position;
            int launches = 0, hit = 0, rising = 1;
            /* The pad that launched it last: a flight may pass through
             * another pad (chains of pads), which launches it anew. */
            const sweep_volume *by = v;
            for (int s = 0; s < 600 && rising; s++) {
                sweep_act_result r = step(&sp, &lv, &a);
                if (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) {
                    /* Pads may overlap: the last one in id order launches. */
                    by = &lv.volumes[r.volumes.launched_by].v;
                    assert_int_equal(by->kind, SWEEP_VOLUME_PUSH);
                    assert_memory_equal(&a.velocity, &by->velocity, sizeof a.velocity);
                    launches++;
                    last = a.position;
                    top = a.position;
                    hit = 0;
                    continue;
                }
                if (launches && (r.flags & SWEEP_MOVED_HIT))
                    hit = 1;
                if (a.position.z > top.z)
                    top = a.position;
                rising = !launches || a.velocity.z > 0.0;
            }
            if (!launches)
                continue;
            launched++;
            if (hit) {
                obstructed++;
                continue;
            }
            double rise = by->velocity.z * by->velocity.z / (2.0 * g);
            if (fabs(top.z - last.z - rise) > 1.5 * by->velocity.z * DT)
                fail_msg("%s volume %u: rose %g above its last launch, Quake 3's apex rule says %g",
                         levels[l].member, lv.volumes[i].id, top.z - last.z, rise);
            /* Across up it flew at the pad's speed all the way: at the top
             * it is as far out as that speed for the rise's time carries
             * it, within the step and a half the top is sampled to. */
            if (a.velocity.x != by->velocity.x || a.velocity.y != by->velocity.y)
                fail_msg("%s volume %u: the flight's velocity across up went from (%g, %g) to (%g, %g)",
                         levels[l].member, lv.volumes[i].id, by->velocity.x, by->velocity.y, a.velocity.x,
                         a.velocity.y);
            const double t_up = by->velocity.z / g, across = hypot(by->velocity.x, by->velocity.y);
            const double out = hypot(top.x - last.x, top.y - last.y);
            if (fabs(out - across * t_up) > 1.5 * across * DT)
                fail_msg("%s volume %u: %g out from its last launch at the top, Quake 3's flight says %g",
                         levels[l].member, lv.volumes[i].id, out, across * t_up);
            checked++;
        }
        print_message("%s: %u jump pads, %u launched, %u flights to the top checked (%u met something on the "
                      "way up); %u kill volumes, %u walkers killed\n",
                      levels[l].member, pads, launched, checked, obstructed, kills, killed);
        assert_int_equal(pads, levels[l].pads);
        assert_int_equal(kills, levels[l].kills);
        assert_int_equal(launched, pads);
        assert_int_equal(killed, kills);
        assert_true(checked + obstructed == launched);
        sweep_world_destroy(w);
        sweep_level_free(&lv);
    }
}

/* The liquids and ladders every level of the corpus holds (counted from
 * its brushes' shaders: q3map2 keeps a liquid's contents on its brush). */
static const struct {
    const char *member;
    uint32_t liquids, ladders;
} media[] = {
    {"maps/oacmpctf1.bsp", 0, 0}, {"maps/oacmpctf2.bsp", 3, 0}, {"maps/oacmpctf3.bsp", 0, 0},
    {"maps/oacmpdm1.bsp", 0, 0},  {"maps/oacmpdm2.bsp", 0, 0},  {"maps/oacmpdm3.bsp", 0, 0},
    {"maps/oacmpdm4.bsp", 0, 0},  {"maps/oacmpdm5.bsp", 0, 0},  {"maps/oacmpdm6.bsp", 0, 0},
    {"maps/oacmpdm7.bsp", 0, 0},  {"maps/oacmpdm8.bsp", 0, 0},  {"maps/oacmpdm9.bsp", 0, 0},
    {"maps/oacmpdm10.bsp", 6, 0},
};

static void liquids_are_found_and_swum(void **state)
{
    fixture *f = *state;
    char pk3[4096];
    if (!fixture_corpus(f, pk3, sizeof pk3))
        skip();
    for (size_t l = 0; l < sizeof media / sizeof media[0]; l++) {
        sweep_level lv;
        sweep_world *w;
        import_level(f, pk3, media[l].member, &lv, &w);
        sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
        uint32_t liquids = 0, ladders = 0, deep = 0, swum = 0;
        for (uint32_t i = 0; i < lv.volume_count; i++) {
            const sweep_volume *v = &lv.volumes[i].v;
            ladders += v->kind == SWEEP_VOLUME_LADDER;
            if (v->kind != SWEEP_VOLUME_LIQUID)
                continue;
            liquids++;
            assert_int_equal(v->liquid, SWEEP_LIQUID_WATER);
            assert_true(v->damage == 0.0);
            /* Deep enough for a player's centre to be in it with its feet
             * above the bottom, and wide enough to fall in. */
            if (v->hi.z - v->lo.z < 2.0 * lv.default_radii.z ||
                v->hi.x - v->lo.x < 2.0 * lv.default_radii.x || v->hi.y - v->lo.y < 2.0 * lv.default_radii.y)
                continue;
            deep++;
            sweep_vec3 c = centre_of(v);
            sweep_actor a = {.position = sweep_v3(c.x, c.y, v->hi.z + lv.default_radii.z + 1.0)};
            uint32_t seen = 0;
            for (int s = 0; s < 120 && !(seen & SWEEP_VOLUME_EV_SWAM); s++) {
                sweep_act_result r = step(&sp, &lv, &a);
                if (r.volumes.events & SWEEP_VOLUME_EV_LIQUID_ENTERED)
                    assert_int_equal(r.volumes.liquid_entered, i);
                seen |= r.volumes.events;
            }
            swum += (seen & SWEEP_VOLUME_EV_LIQUID_ENTERED) && (seen & SWEEP_VOLUME_EV_SWAM);
        }
        print_message("%s: %u liquids (%u deep enough to swim in, %u swum in), %u ladders\n", media[l].member,
                      liquids, deep, swum, ladders);
        assert_int_equal(liquids, media[l].liquids);
        assert_int_equal(ladders, media[l].ladders);
        assert_int_equal(swum, deep);
        sweep_world_destroy(w);
        sweep_level_free(&lv);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pads_launch_and_kill_volumes_kill, setup, teardown),
        cmocka_unit_test_setup_teardown(liquids_are_found_and_swum, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
