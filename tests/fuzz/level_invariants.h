/*
 * level_invariants.h - what the fuzzers hold a level to when a reader
 * accepted their bytes (tests/fuzz/fuzz_bsp.c, fuzz_scene.c,
 * fuzz_level_image.c, fuzz_map.c): one the map format and the core take.
 * Every index within its vertices, every vertex, spawn point and keyframe
 * finite and within the level's coordinate limit, every triangle's
 * material in the level's table, each mover's keyframes in time order
 * with rotations of unit length; and the level check judges it or says
 * why not. A broken one aborts, which libFuzzer reports as a crash with
 * its input.
 */
#ifndef SWEEP_TESTS_FUZZ_LEVEL_INVARIANTS_H
#define SWEEP_TESTS_FUZZ_LEVEL_INVARIANTS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "maps/level.h"
#include "maps/level_check.h"

static inline void fuzz_fail(const char *what, uint32_t at)
{
    fprintf(stderr, "fuzz: %s (%u)\n", what, at);
    abort();
}

/* Finite and within the level's own coordinate limit (its map row's
 * max_coordinate, at most the map format's 1e7). */
static inline void fuzz_check_point(const sweep_level *lv, sweep_vec3 v, const char *what, uint32_t at)
{
    if (!(lv->config.max_coordinate <= 1e7) || !sweep_config_contains(&lv->config, v))
        fuzz_fail(what, at);
}

static inline int fuzz_has_material(const sweep_level *lv, uint32_t id)
{
    for (uint32_t m = 0; m < lv->material_count; m++)
        if (lv->material_table[m].id == id)
            return 1;
    return 0;
}

static inline void fuzz_check_level(const sweep_level *lv)
{
    for (uint32_t i = 0; i < lv->vertex_count; i++)
        fuzz_check_point(lv, lv->vertices[i], "a vertex beyond the limit", i);
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        for (int k = 0; k < 3; k++)
            if (lv->indices[3 * t + k] >= lv->vertex_count)
                fuzz_fail("a triangle's index past the vertices", t);
        if (!fuzz_has_material(lv, lv->materials[t]))
            fuzz_fail("a triangle's material not in the table", t);
    }
    for (uint32_t i = 0; i < lv->spawn_count; i++)
        fuzz_check_point(lv, lv->spawns[i], "a spawn point beyond the limit", i);
    for (uint32_t m = 0; m < lv->mover_count; m++) {
        const sweep_level_mover *mv = &lv->movers[m];
        for (uint32_t i = 0; i < mv->vertex_count; i++)
            fuzz_check_point(lv, mv->vertices[i], "a mover's vertex beyond the limit", m);
        for (uint32_t t = 0; t < mv->triangle_count; t++)
            for (int k = 0; k < 3; k++)
                if (mv->indices[3 * t + k] >= mv->vertex_count)
                    fuzz_fail("a mover's index past its vertices", m);
        for (uint32_t k = 0; k < mv->key_count; k++) {
            const sweep_keyframe *key = &mv->keys[k];
            fuzz_check_point(lv, key->pose.position, "a keyframe beyond the limit", m);
            if (!isfinite(key->time) || (k > 0 && !(key->time > mv->keys[k - 1].time)))
                fuzz_fail("keyframes out of time order", m);
            const sweep_quat q = key->pose.rotation;
            if (!(fabs(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1.0) < 1e-6))
                fuzz_fail("a keyframe's rotation not of unit length", m);
        }
    }
}

/* A reader's refusal leaves an empty level (fuzz_level_image.c,
 * fuzz_map.c, fuzz_scene.c). */
static inline void fuzz_check_refused_empty(const sweep_level *lv, sweep_status s)
{
    if (lv->triangle_count || lv->vertex_count || lv->mover_count || lv->volume_count || lv->spawn_count)
        fuzz_fail("a refusal that leaves a level behind", (uint32_t)s);
}

/* The level check (maps/level_check.h) judges the level, or says why it
 * cannot (fuzz_bsp.c, fuzz_scene.c). */
static inline void fuzz_level_check(const sweep_level *lv)
{
    sweep_check_summary sum;
    char err[1024] = "";
    sweep_status s = sweep_level_check(lv, NULL, NULL, &sum, err, sizeof err);
    if (s != SWEEP_OK && err[0] == '\0')
        fuzz_fail("a check refused without a message", (uint32_t)s);
}

#endif
