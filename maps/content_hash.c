/*
 * content_hash.c - the canonical serialization of a level and its SHA-256
 * (the format is specified in content_hash.h).
 *
 * Values are written into a small staging buffer byte by byte, so the
 * result does not depend on the host's byte order or struct padding.
 */
#include "maps/content_hash.h"

#include <stdlib.h>
#include <string.h>

typedef struct hash_writer {
    sweep_sha256 sha;
    uint8_t buf[4096];
    size_t n;
} hash_writer;

static void flush(hash_writer *w)
{
    sweep_sha256_update(&w->sha, w->buf, w->n);
    w->n = 0;
}

static void put_u32(hash_writer *w, uint32_t v)
{
    if (w->n + 4 > sizeof w->buf)
        flush(w);
    for (int i = 0; i < 4; i++)
        w->buf[w->n++] = (uint8_t)(v >> (8 * i));
}

static void put_f64(hash_writer *w, double d)
{
    uint64_t v;
    if (d == 0.0)
        d = 0.0; /* -0.0 compares equal to 0.0: both hash as +0.0 */
    memcpy(&v, &d, sizeof v);
    if (w->n + 8 > sizeof w->buf)
        flush(w);
    for (int i = 0; i < 8; i++)
        w->buf[w->n++] = (uint8_t)(v >> (8 * i));
}

static void put_vec3(hash_writer *w, sweep_vec3 v)
{
    put_f64(w, v.x);
    put_f64(w, v.y);
    put_f64(w, v.z);
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const sweep_material *)a)->id, y = ((const sweep_material *)b)->id;
    return x < y ? -1 : x > y;
}

sweep_status sweep_level_content_hash(const sweep_level *lv, sweep_content_hash *out)
{
    if (!lv || !out)
        return SWEEP_E_ARG;
    if ((lv->vertex_count && !lv->vertices) || (lv->triangle_count && (!lv->indices || !lv->materials)) ||
        (lv->material_count && !lv->material_table))
        return SWEEP_E_ARG;
    /* A copy, because materials may sit in any order in the level while the
     * hash wants them by id. Tables are small. */
    sweep_material *mats = NULL;
    if (lv->material_count) {
        mats = malloc((size_t)lv->material_count * sizeof *mats);
        if (!mats)
            return SWEEP_E_NOMEM;
        memcpy(mats, lv->material_table, (size_t)lv->material_count * sizeof *mats);
        qsort(mats, lv->material_count, sizeof *mats, by_id);
    }

    hash_writer *w = malloc(sizeof *w);
    if (!w) {
        free(mats);
        return SWEEP_E_NOMEM;
    }
    sweep_sha256_init(&w->sha);
    w->n = 0;
    memcpy(w->buf, "SWEEPMAP", 8);
    w->n = 8;
    put_u32(w, SWEEP_CONTENT_HASH_VERSION);

    put_vec3(w, lv->config.gravity);
    put_f64(w, lv->config.walkable_normal_up);
    put_f64(w, lv->config.step_height);
    put_vec3(w, lv->default_radii);
    put_f64(w, lv->tick_rate);

    put_u32(w, lv->vertex_count);
    for (uint32_t i = 0; i < lv->vertex_count; i++)
        put_vec3(w, lv->vertices[i]);

    put_u32(w, lv->triangle_count);
    for (uint32_t t = 0; t < lv->triangle_count; t++) {
        const uint32_t *ix = &lv->indices[3 * (size_t)t];
        put_u32(w, ix[0]);
        put_u32(w, ix[1]);
        put_u32(w, ix[2]);
        put_u32(w, lv->materials[t]);
    }

    put_u32(w, lv->material_count);
    for (uint32_t m = 0; m < lv->material_count; m++) {
        put_u32(w, mats[m].id);
        put_f64(w, mats[m].friction);
        put_u32(w, mats[m].flags);
    }

    flush(w);
    sweep_sha256_final(&w->sha, out->bytes);
    free(w);
    free(mats);
    return SWEEP_OK;
}

void sweep_content_hash_hex(const sweep_content_hash *h, char out[2 * SWEEP_SHA256_SIZE + 1])
{
    sweep_sha256_hex(h->bytes, out);
}
