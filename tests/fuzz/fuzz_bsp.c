/*
 * fuzz_bsp.c - libFuzzer harness over the Quake 3 BSP importer
 * (maps/import_bsp.c) and the level check (maps/level_check.c): any bytes
 * imported as a .bsp someone hands sweep-import, and a level that comes
 * out checked as every import checks it.
 *
 * Beyond "no crash, no sanitizer report" it checks, on every input:
 * - a refusal is SWEEP_E_GEOMETRY (or SWEEP_E_NOMEM) with a message that
 *   names the file;
 * - an imported level is one the map format and the core take: every
 *   index within its vertices, every vertex, spawn point and keyframe
 *   finite and within the map format's limit, every triangle's material
 *   in the level's table, each mover's keyframes in time order;
 * - the level check runs on it to the end (SWEEP_OK, or a refusal with a
 *   message).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-bsp FUZZ_SECONDS=N`, and a bounded smoke run in `make test`. The
 * seeds are written by tests/fuzz/make_bsp_seeds.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/import_bsp.h"
#include "maps/level.h"
#include "maps/level_check.h"

/* The map format's coordinate limit (maps/schema.sql). */
#define COORD_LIMIT 1e7

static void fail(const char *what, uint32_t at)
{
    fprintf(stderr, "fuzz_bsp: %s (%u)\n", what, at);
    abort();
}

static void check_point(sweep_vec3 v, const char *what, uint32_t at)
{
    if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z) || fabs(v.x) > COORD_LIMIT ||
        fabs(v.y) > COORD_LIMIT || fabs(v.z) > COORD_LIMIT)
        fail(what, at);
}

static int has_material(const sweep_level *lv, uint32_t id)
{
    for (uint32_t m = 0; m < lv->material_count; m++)
        if (lv->material_table[m].id == id)
            return 1;
    return 0;
}

static void check_level(const sweep_level *lv)
{
    for (uint32_t i = 0; i < lv->vertex_count; i++)
        check_point(lv->vertices[i], "a vertex beyond the limit", i);
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        for (int k = 0; k < 3; k++)
            if (lv->indices[3 * t + k] >= lv->vertex_count)
                fail("a triangle's index past the vertices", t);
        if (!has_material(lv, lv->materials[t]))
            fail("a triangle's material not in the table", t);
    }
    for (uint32_t i = 0; i < lv->spawn_count; i++)
        check_point(lv->spawns[i], "a spawn point beyond the limit", i);
    for (uint32_t m = 0; m < lv->mover_count; m++) {
        const sweep_level_mover *mv = &lv->movers[m];
        for (uint32_t i = 0; i < mv->vertex_count; i++)
            check_point(mv->vertices[i], "a mover's vertex beyond the limit", m);
        for (uint32_t t = 0; t < mv->triangle_count; t++)
            for (int k = 0; k < 3; k++)
                if (mv->indices[3 * t + k] >= mv->vertex_count)
                    fail("a mover's index past its vertices", m);
        for (uint32_t k = 0; k < mv->key_count; k++) {
            const sweep_keyframe *key = &mv->keys[k];
            check_point(key->pose.position, "a keyframe beyond the limit", m);
            if (!isfinite(key->time) || (k > 0 && !(key->time > mv->keys[k - 1].time)))
                fail("keyframes out of time order", m);
            const sweep_quat q = key->pose.rotation;
            if (!(fabs(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w - 1.0) < 1e-6))
                fail("a keyframe's rotation not of unit length", m);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    sweep_status s = sweep_import_bsp_memory(data, size, "fuzz.bsp", NULL, &lv, &st, err, sizeof err);
    if (s != SWEEP_OK) {
        if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_NOMEM) || !strstr(err, "fuzz.bsp"))
            fail("a refusal without its file's name", (uint32_t)s);
        return 0;
    }
    check_level(&lv);
    sweep_check_summary sum;
    s = sweep_level_check(&lv, NULL, NULL, &sum, err, sizeof err);
    if (s != SWEEP_OK && err[0] == '\0')
        fail("a check refused without a message", (uint32_t)s);
    sweep_level_free(&lv);
    return 0;
}
