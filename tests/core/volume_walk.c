/*
 * volume_walk.c - a walk through every kind of volume, for the
 * cross-compiler check (cross_build.sh): prints the state hash of walkers
 * moved by the movement rules (sweep_act) over a level with jump pads, a
 * teleporter (and one whose destination has no room), a hurt and a
 * trigger volume and a kill strip, as `state_hash=<16 hex digits>` plus
 * what the volumes did. Walkers the kill strip takes start again where
 * they first stood. With the argument `liquids` the level has instead a
 * tank of water, a pool of slime and one of lava standing on the floor
 * and a ladder up the block's face, and the walkers' wishes rise and sink
 * too: they swim, climb, jump out and are hurt by depth. Built from the
 * core and maps/level.c alone, so each compiler and flag set of
 * cross_build.sh builds it from source.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "core/motion.h"
#include "core/volume.h"
#include "maps/level.h"

#define WALKERS 24
#define STEPS 1500

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

static sweep_volume box_volume(sweep_volume_kind kind, double x0, double y0, double x1, double y1, double z1)
{
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = kind;
    v.lo = sweep_v3(x0, y0, 0.0);
    v.hi = sweep_v3(x1, y1, z1);
    v.facing = sweep_v3(1, 0, 0);
    return v;
}

int main(int argc, char **argv)
{
    int liquids = argc > 1 && strcmp(argv[1], "liquids") == 0;
    if (argc > 1 && !liquids) {
        fprintf(stderr, "usage: volume_walk [liquids]\n");
        return 2;
    }
    sweep_level lv;
    sweep_level_init(&lv);
    /* A 60 x 60 floor of 2 m quads, a block to land on and a pillar. */
    for (int x = -30; x < 30; x += 2)
        for (int y = -30; y < 30; y += 2)
            if (sweep_level_add_quad(&lv, sweep_v3(x, y, 0), sweep_v3(x + 2, y, 0), sweep_v3(x + 2, y + 2, 0),
                                     sweep_v3(x, y + 2, 0), 1) != SWEEP_OK)
                return 1;
    if (sweep_level_add_box(&lv, sweep_v3(10, -6, 0), sweep_v3(18, 6, 3), 2, 0) != SWEEP_OK ||
        sweep_level_add_box(&lv, sweep_v3(-12, 8, 0), sweep_v3(-10, 10, 6), 2, 0) != SWEEP_OK)
        return 1;
    sweep_world_desc d = sweep_level_world_desc(&lv);
    sweep_world *w;
    if (sweep_world_create(&d, &w) != SWEEP_OK)
        return 1;
    sweep_config cfg;
    sweep_config_default(&cfg);
    sweep_rules rules;
    sweep_rules_default(&rules);

    sweep_volume v[7];
    uint32_t nv = 7;
    v[0] = box_volume(SWEEP_VOLUME_PUSH, -2, -2, 2, 2, 1.2);
    v[0].velocity = sweep_v3(5.5, 0.25, 9.0);
    v[1] = box_volume(SWEEP_VOLUME_TELEPORT, -20, -2, -17, 2, 1.5);
    v[1].destination = sweep_v3(14, 0, 3.9005);
    v[1].facing = sweep_v3(0.6, 0.8, 0.0);
    v[1].exit_speed = 3.0;
    v[2] = box_volume(SWEEP_VOLUME_TELEPORT, -8, 12, 8, 22, 1.5);
    v[2].destination = sweep_v3(-12.2, 9, 3); /* against the pillar: no room */
    v[2].keep_velocity = 1;
    v[3] = box_volume(SWEEP_VOLUME_HURT, 5, -20, 9, -16, 2);
    v[3].damage = 12.5;
    v[4] = box_volume(SWEEP_VOLUME_TRIGGER, -30, -9, 30, -8, 3);
    v[5] = box_volume(SWEEP_VOLUME_KILL, 24, -30, 30, 30, 2);
    v[6] = box_volume(SWEEP_VOLUME_PUSH, 20, 20, 24, 24, 1.0);
    v[6].velocity = sweep_v3(-4, -4, 6);
    v[6].plane_count = 1; /* a wedge: x + y <= 46 */
    v[6].planes[0].normal = sweep_v3(1, 1, 0);
    v[6].planes[0].offset = 46.0;
    if (liquids) {
        nv = 5;
        v[0] = box_volume(SWEEP_VOLUME_LIQUID, -9, -9, 9, 9, 2.5);
        v[0].liquid = SWEEP_LIQUID_WATER;
        v[1] = box_volume(SWEEP_VOLUME_LIQUID, -28, -2, -10, 24, 1.2);
        v[1].liquid = SWEEP_LIQUID_SLIME;
        v[1].damage = 10.0;
        v[2] = box_volume(SWEEP_VOLUME_LIQUID, 10, -28, 28, -8, 3.0);
        v[2].liquid = SWEEP_LIQUID_LAVA;
        v[2].damage = 30.0;
        v[2].plane_count = 1; /* a slanted surface: z <= 3 - (x - 10) / 8 */
        v[2].planes[0].normal = sweep_v3(0.125, 0, 1);
        v[2].planes[0].offset = 3.0 + 10.0 * 0.125;
        /* The ladder: the block's whole face at x = 10, grown. */
        v[3] = box_volume(SWEEP_VOLUME_LADDER, 9.55, -6.45, 10, 6.45, 3.95);
        v[3].lo.z = -0.95;
        v[3].normal = sweep_v3(-1, 0, 0);
        /* The tank's deep end, overlapping it: where the level counts. */
        v[4] = box_volume(SWEEP_VOLUME_LIQUID, 0, -9, 9, 0, 3.5);
        v[4].liquid = SWEEP_LIQUID_WATER;
    }
    const char *why = NULL;
    if (sweep_world_set_volumes(w, v, nv, cfg.max_speed, cfg.max_coordinate, NULL, &why) != SWEEP_OK) {
        fprintf(stderr, "volume_walk: %s\n", why);
        return 1;
    }
    sweep_space sp = {w, NULL, NULL, SWEEP_NO_BODY};
    sweep_actor a[WALKERS];
    sweep_vec3 start[WALKERS];
    uint32_t seed = 12345u;
    for (int i = 0; i < WALKERS; i++) {
        start[i] = sweep_v3(-24.0 + 2.0 * i, -24.0 + 1.5 * i, 0.9005);
        memset(&a[i], 0, sizeof a[i]);
        a[i].position = start[i];
    }
    uint64_t events[13] = {0};
    double damage = 0.0;
    for (int s = 0; s < STEPS; s++)
        for (int i = 0; i < WALKERS; i++) {
            if (s % 90 == 0) /* a new heading now and then, from an LCG */
                seed = seed * 1103515245u + 12345u;
            uint32_t r = seed ^ (uint32_t)(i * 2654435761u);
            sweep_wish wish = {sweep_v3((double)(int)(r % 11) - 5.0, (double)(int)((r >> 8) % 11) - 5.0,
                                        liquids ? (double)(int)((r >> 20) % 5) - 2.0 : 0.0),
                               (r >> 16) % 7 == 0 ? SWEEP_WISH_JUMP : 0u};
            sweep_act_result res;
            if (sweep_act(&sp, &cfg, &rules, RADII, &a[i], &wish, 1.0 / 60.0, &res) != SWEEP_OK) {
                fprintf(stderr, "volume_walk: a move failed\n");
                return 1;
            }
            for (int k = 0; k < 13; k++)
                events[k] += (res.volumes.events >> k) & 1u;
            damage += res.volumes.damage;
            if (res.volumes.events & SWEEP_VOLUME_EV_KILLED) {
                memset(&a[i], 0, sizeof a[i]);
                a[i].position = start[i];
            }
        }
    uint64_t h = SWEEP_HASH_INIT;
    for (int i = 0; i < WALKERS; i++)
        h = sweep_hash_body(h, a[i].position, a[i].velocity, a[i].grounded);
    h = sweep_hash_double(h, damage);
    /* The volumes' walk hashes what it always did; the liquids' the
     * events of swimming and climbing too. */
    for (int k = 0; k < (liquids ? 13 : 7); k++)
        h = sweep_hash_u64(h, events[k]);
    if (liquids)
        printf("state_hash=%016" PRIx64 " hurt=%" PRIu64 " swam=%" PRIu64 " climbed=%" PRIu64 " liquid_entered=%" PRIu64
               " liquid_left=%" PRIu64 "\n",
               h, events[3], events[7], events[8], events[9], events[10]);
    else
        printf("state_hash=%016" PRIx64 " launched=%" PRIu64 " teleported=%" PRIu64 " blocked=%" PRIu64
               " hurt=%" PRIu64 " killed=%" PRIu64 " entered=%" PRIu64 " left=%" PRIu64 "\n",
               h, events[0], events[1], events[2], events[3], events[4], events[5], events[6]);
    sweep_world_destroy(w);
    sweep_level_free(&lv);
    return 0;
}
