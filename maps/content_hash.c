/*
 * content_hash.c - the canonical serialization of a level and its SHA-256
 * (the format is specified in content_hash.h).
 *
 * Values are written into a small staging buffer byte by byte, so the
 * result does not depend on the host's byte order or struct padding.
 * Movers and volumes are appended only when there are some, so the stream
 * of a level without them has no such part at all.
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

/* The 8 bytes that open a part of the stream. */
static void put_tag(hash_writer *w, const char tag[8])
{
    if (w->n + 8 > sizeof w->buf)
        flush(w);
    memcpy(w->buf + w->n, tag, 8);
    w->n += 8;
}

static void put_name(hash_writer *w, const char *name, size_t cap)
{
    size_t len = strnlen(name, cap);
    put_u32(w, (uint32_t)len);
    for (size_t k = 0; k < len; k++) {
        if (w->n + 1 > sizeof w->buf)
            flush(w);
        w->buf[w->n++] = (uint8_t)name[k];
    }
}

/* The movers part of the serialization (content_hash.h). */
static void put_movers(hash_writer *w, const sweep_level *lv)
{
    put_tag(w, "MOVERS\0\0");
    put_u32(w, lv->mover_count);
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        const sweep_level_mover *m = &lv->movers[i];
        put_u32(w, m->id);
        put_name(w, m->name, sizeof m->name);
        put_u32(w, (uint32_t)m->mode);
        put_u32(w, (uint32_t)m->trigger);
        put_u32(w, (uint32_t)m->blocked);
        put_f64(w, m->wait_start);
        put_f64(w, m->wait_end);
        /* Only a volume trigger reads its box; the map stores NULL for the
         * others, so a stray box in memory must not change the hash. */
        if (m->trigger == SWEEP_TRIGGER_VOLUME) {
            put_vec3(w, m->volume_min);
            put_vec3(w, m->volume_max);
        }
        put_u32(w, m->vertex_count);
        for (uint32_t v = 0; v < m->vertex_count; v++)
            put_vec3(w, m->vertices[v]);
        put_u32(w, m->triangle_count);
        for (uint32_t t = 0; t < m->triangle_count; t++) {
            const uint32_t *ix = &m->indices[3 * (size_t)t];
            put_u32(w, ix[0]);
            put_u32(w, ix[1]);
            put_u32(w, ix[2]);
            put_u32(w, m->materials[t]);
        }
        put_u32(w, m->key_count);
        for (uint32_t k = 0; k < m->key_count; k++) {
            const sweep_keyframe *kf = &m->keys[k];
            put_f64(w, kf->time);
            put_vec3(w, kf->pose.position);
            put_f64(w, kf->pose.rotation.x);
            put_f64(w, kf->pose.rotation.y);
            put_f64(w, kf->pose.rotation.z);
            put_f64(w, kf->pose.rotation.w);
        }
    }
}

/* The volumes part of the serialization (content_hash.h): only what the
 * volume's kind reads, so a stray field in memory cannot change it. */
static void put_volumes(hash_writer *w, const sweep_level *lv)
{
    put_tag(w, "VOLUMES\0");
    put_u32(w, lv->volume_count);
    for (uint32_t i = 0; i < lv->volume_count; i++) {
        const sweep_level_volume *e = &lv->volumes[i];
        const sweep_volume *v = &e->v;
        put_u32(w, e->id);
        put_name(w, e->name, sizeof e->name);
        put_u32(w, (uint32_t)v->kind);
        put_vec3(w, v->lo);
        put_vec3(w, v->hi);
        put_u32(w, v->plane_count);
        for (uint32_t k = 0; k < v->plane_count && k < SWEEP_VOLUME_MAX_PLANES; k++) {
            put_vec3(w, v->planes[k].normal);
            put_f64(w, v->planes[k].offset);
        }
        switch (v->kind) {
        case SWEEP_VOLUME_PUSH:
            put_vec3(w, v->velocity);
            break;
        case SWEEP_VOLUME_TELEPORT:
            put_vec3(w, v->destination);
            put_vec3(w, v->facing);
            put_u32(w, v->keep_velocity);
            put_f64(w, v->exit_speed);
            break;
        case SWEEP_VOLUME_HURT:
            put_f64(w, v->damage);
            break;
        case SWEEP_VOLUME_LIQUID:
            put_u32(w, (uint32_t)v->liquid);
            put_f64(w, v->damage);
            break;
        case SWEEP_VOLUME_LADDER:
            put_vec3(w, v->normal);
            break;
        default:
            break;
        }
    }
    /* The swimming and climbing rules move bodies only where there are
     * liquids or ladders, and are hashed only then, so that the hash of
     * every map without them is what it was. */
    int modes = 0;
    for (uint32_t i = 0; i < lv->volume_count; i++)
        modes |= lv->volumes[i].v.kind == SWEEP_VOLUME_LIQUID || lv->volumes[i].v.kind == SWEEP_VOLUME_LADDER;
    if (modes) {
        const sweep_rules *r = &lv->rules;
        put_tag(w, "MODES\0\0\0");
        put_f64(w, r->swim_speed);
        put_f64(w, r->swim_accel);
        put_f64(w, r->swim_drag);
        put_f64(w, r->swim_sink);
        put_f64(w, r->swim_jump);
        put_f64(w, r->climb_speed);
        put_f64(w, r->climb_accel);
    }
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
        (lv->material_count && !lv->material_table) || (lv->mover_count && !lv->movers) ||
        (lv->volume_count && !lv->volumes))
        return SWEEP_E_ARG;
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        const sweep_level_mover *m = &lv->movers[i];
        if ((m->vertex_count && !m->vertices) || (m->triangle_count && (!m->indices || !m->materials)) ||
            (m->key_count && !m->keys))
            return SWEEP_E_ARG;
    }
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
    /* The movement rules decide every move as much as the geometry does. */
    put_f64(w, lv->rules.walk_speed);
    put_f64(w, lv->rules.ground_accel);
    put_f64(w, lv->rules.air_accel);
    put_f64(w, lv->rules.jump_speed);
    put_f64(w, lv->rules.max_step);
    put_f64(w, lv->rules.speed_limit);
    put_f64(w, lv->correction_threshold);

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
    if (lv->mover_count)
        put_movers(w, lv);
    if (lv->volume_count)
        put_volumes(w, lv);
    if (lv->rules.crouch_speed > 0.0) {
        /* A stance's shape and speed decide moves as the rules do. */
        put_tag(w, "CROUCH\0\0");
        put_vec3(w, lv->rules.crouch_radii);
        put_f64(w, lv->rules.crouch_speed);
    }
    if (lv->rules.air_move != SWEEP_AIR_TOWARDS) {
        /* Hashed only when it is not the default, so that every map of
         * before keeps its hash, and a build that does not know the rule
         * sees another hash for a level where it matters. */
        put_tag(w, "AIRMOVE\0");
        put_f64(w, lv->rules.air_move);
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
