/*
 * level.c - growable arrays behind sweep_level (see level.h).
 */
#include "maps/level.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sweep_level_init(sweep_level *lv)
{
    memset(lv, 0, sizeof *lv);
    sweep_config_default(&lv->config);
    sweep_rules_default(&lv->rules);
    lv->correction_threshold = 0.25;
    lv->history_ms = 1000.0;
    lv->rewind_cap_ms = 250.0;
    lv->default_radii = sweep_v3(0.4, 0.4, 0.9);
    lv->tick_rate = 60.0;
}

void sweep_level_free(sweep_level *lv)
{
    if (!lv)
        return;
    free(lv->vertices);
    free(lv->indices);
    free(lv->materials);
    free(lv->material_table);
    free(lv->spawns);
    /* A level put together by hand may count movers it has no array of. */
    for (uint32_t i = 0; lv->movers && i < lv->mover_count; i++) {
        free(lv->movers[i].vertices);
        free(lv->movers[i].indices);
        free(lv->movers[i].materials);
        free(lv->movers[i].keys);
    }
    free(lv->movers);
    free(lv->volumes);
    sweep_level_init(lv);
}

/* Makes room for one more element of `size` bytes in *arr (doubling). */
static int grow(void **arr, uint32_t *cap, uint32_t count, size_t size, uint32_t limit)
{
    if (count < *cap)
        return 1;
    if (count >= limit)
        return 0;
    uint64_t n = *cap ? 2 * (uint64_t)*cap : 64;
    if (n > limit)
        n = limit;
    void *p = realloc(*arr, (size_t)n * size);
    if (!p)
        return 0;
    *arr = p;
    *cap = (uint32_t)n;
    return 1;
}

sweep_status sweep_level_add_vertex(sweep_level *lv, sweep_vec3 v, uint32_t *out)
{
    if (lv->vertex_count >= UINT32_MAX - 1)
        return SWEEP_E_GEOMETRY;
    if (!grow((void **)&lv->vertices, &lv->vertex_cap, lv->vertex_count, sizeof *lv->vertices, UINT32_MAX - 1))
        return SWEEP_E_NOMEM;
    lv->vertices[lv->vertex_count] = v;
    if (out)
        *out = lv->vertex_count;
    lv->vertex_count++;
    return SWEEP_OK;
}

sweep_status sweep_level_add_triangle(sweep_level *lv, uint32_t a, uint32_t b, uint32_t c, uint32_t material)
{
    if (lv->triangle_count >= SWEEP_WORLD_MAX_TRIANGLES)
        return SWEEP_E_GEOMETRY;
    uint32_t cap = lv->triangle_cap;
    if (!grow((void **)&lv->materials, &cap, lv->triangle_count, sizeof *lv->materials,
              SWEEP_WORLD_MAX_TRIANGLES))
        return SWEEP_E_NOMEM;
    if (cap != lv->triangle_cap) {
        uint32_t *p = realloc(lv->indices, (size_t)cap * 3 * sizeof *p);
        if (!p)
            return SWEEP_E_NOMEM; /* materials grew; the next call reuses that room */
        lv->indices = p;
        lv->triangle_cap = cap;
    }
    uint32_t *ix = &lv->indices[3 * (size_t)lv->triangle_count];
    ix[0] = a, ix[1] = b, ix[2] = c;
    lv->materials[lv->triangle_count++] = material;
    return SWEEP_OK;
}

sweep_status sweep_level_add_quad(sweep_level *lv, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 d,
                                  uint32_t material)
{
    uint32_t i[4];
    sweep_vec3 v[4] = {a, b, c, d};
    for (int k = 0; k < 4; k++) {
        sweep_status st = sweep_level_add_vertex(lv, v[k], &i[k]);
        if (st != SWEEP_OK)
            return st;
    }
    sweep_status st = sweep_level_add_triangle(lv, i[0], i[1], i[2], material);
    if (st == SWEEP_OK)
        st = sweep_level_add_triangle(lv, i[0], i[2], i[3], material);
    return st;
}

sweep_status sweep_level_add_box(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi, uint32_t material, int bottom)
{
    /* Corners named by which coordinate is high: xyz bit pattern. */
    sweep_vec3 p[8];
    for (int k = 0; k < 8; k++)
        p[k] = sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
    /* Each face listed counter-clockwise seen from outside, so that
     * cross(b - a, c - a) points out of the box. */
    static const int faces[6][4] = {
        {4, 5, 7, 6}, /* +z top */
        {0, 2, 3, 1}, /* -z bottom */
        {1, 3, 7, 5}, /* +x */
        {0, 4, 6, 2}, /* -x */
        {2, 6, 7, 3}, /* +y */
        {0, 1, 5, 4}, /* -y */
    };
    for (int f = 0; f < 6; f++) {
        if (f == 1 && !bottom)
            continue;
        const int *q = faces[f];
        sweep_status st = sweep_level_add_quad(lv, p[q[0]], p[q[1]], p[q[2]], p[q[3]], material);
        if (st != SWEEP_OK)
            return st;
    }
    return SWEEP_OK;
}

sweep_status sweep_level_add_material(sweep_level *lv, uint32_t id, const char *name, double friction,
                                      uint32_t flags)
{
    if (!grow((void **)&lv->material_table, &lv->material_cap, lv->material_count, sizeof *lv->material_table,
              UINT32_MAX))
        return SWEEP_E_NOMEM;
    sweep_material *m = &lv->material_table[lv->material_count++];
    memset(m, 0, sizeof *m);
    m->id = id;
    if (name) {
        strncpy(m->name, name, sizeof m->name - 1);
    }
    m->friction = friction;
    m->flags = flags;
    return SWEEP_OK;
}

sweep_status sweep_level_add_spawn(sweep_level *lv, sweep_vec3 p)
{
    if (!grow((void **)&lv->spawns, &lv->spawn_cap, lv->spawn_count, sizeof *lv->spawns, UINT32_MAX))
        return SWEEP_E_NOMEM;
    lv->spawns[lv->spawn_count++] = p;
    return SWEEP_OK;
}

sweep_world_desc sweep_level_world_desc(const sweep_level *lv)
{
    sweep_world_desc d = {lv->vertices, lv->vertex_count, lv->indices, lv->materials, lv->triangle_count};
    return d;
}

sweep_status sweep_level_add_mover(sweep_level *lv, uint32_t id, const char *name, uint32_t *out)
{
    if (!grow((void **)&lv->movers, &lv->mover_cap, lv->mover_count, sizeof *lv->movers, UINT32_MAX - 1))
        return SWEEP_E_NOMEM;
    sweep_level_mover *m = &lv->movers[lv->mover_count];
    memset(m, 0, sizeof *m);
    m->id = id;
    if (name)
        strncpy(m->name, name, sizeof m->name - 1);
    m->mode = SWEEP_MOVER_ONCE;
    m->trigger = SWEEP_TRIGGER_ALWAYS;
    m->blocked = SWEEP_BLOCKED_STOP;
    if (out)
        *out = lv->mover_count;
    lv->mover_count++;
    return SWEEP_OK;
}

sweep_status sweep_level_mover_add_vertex(sweep_level_mover *m, sweep_vec3 v, uint32_t *out)
{
    if (!grow((void **)&m->vertices, &m->vertex_cap, m->vertex_count, sizeof *m->vertices, UINT32_MAX - 1))
        return SWEEP_E_NOMEM;
    m->vertices[m->vertex_count] = v;
    if (out)
        *out = m->vertex_count;
    m->vertex_count++;
    return SWEEP_OK;
}

sweep_status sweep_level_mover_add_triangle(sweep_level_mover *m, uint32_t a, uint32_t b, uint32_t c,
                                            uint32_t material)
{
    if (m->triangle_count >= SWEEP_MOVER_MAX_TRIANGLES)
        return SWEEP_E_GEOMETRY;
    uint32_t cap = m->triangle_cap;
    if (!grow((void **)&m->materials, &cap, m->triangle_count, sizeof *m->materials, SWEEP_MOVER_MAX_TRIANGLES))
        return SWEEP_E_NOMEM;
    if (cap != m->triangle_cap) {
        uint32_t *p = realloc(m->indices, (size_t)cap * 3 * sizeof *m->indices);
        if (!p)
            return SWEEP_E_NOMEM;
        m->indices = p;
        m->triangle_cap = cap;
    }
    uint32_t *t = &m->indices[3 * (size_t)m->triangle_count];
    t[0] = a, t[1] = b, t[2] = c;
    m->materials[m->triangle_count++] = material;
    return SWEEP_OK;
}

sweep_status sweep_level_mover_add_keyframe(sweep_level_mover *m, double time, sweep_vec3 position,
                                            sweep_quat rotation)
{
    if (!grow((void **)&m->keys, &m->key_cap, m->key_count, sizeof *m->keys, UINT32_MAX - 1))
        return SWEEP_E_NOMEM;
    sweep_keyframe *k = &m->keys[m->key_count++];
    k->time = time;
    k->pose.position = position;
    k->pose.rotation = rotation;
    return SWEEP_OK;
}

uint32_t sweep_level_find_mover(const sweep_level *lv, const char *name)
{
    for (uint32_t i = 0; i < lv->mover_count; i++)
        if (name && strcmp(lv->movers[i].name, name) == 0)
            return i;
    return SWEEP_NO_MOVER;
}

sweep_mover_desc sweep_level_mover_desc(const sweep_level *lv, uint32_t i)
{
    const sweep_level_mover *m = &lv->movers[i];
    sweep_mover_desc d;
    memset(&d, 0, sizeof d);
    d.vertices = m->vertices, d.vertex_count = m->vertex_count;
    d.indices = m->indices, d.materials = m->materials, d.triangle_count = m->triangle_count;
    d.keys = m->keys, d.key_count = m->key_count;
    d.mode = m->mode, d.trigger = m->trigger, d.blocked = m->blocked;
    d.wait_start = m->wait_start, d.wait_end = m->wait_end;
    d.volume_min = m->volume_min, d.volume_max = m->volume_max;
    return d;
}

sweep_status sweep_level_build_movers(const sweep_level *lv, sweep_movers **out)
{
    sweep_mover_desc *d = NULL;
    if (lv->mover_count) {
        d = malloc(lv->mover_count * sizeof *d);
        if (!d)
            return SWEEP_E_NOMEM;
        for (uint32_t i = 0; i < lv->mover_count; i++)
            d[i] = sweep_level_mover_desc(lv, i);
    }
    sweep_status st = sweep_movers_create(d, lv->mover_count, lv->tick_rate, lv->triangle_count, out);
    free(d);
    return st;
}

sweep_status sweep_level_add_volume(sweep_level *lv, uint32_t id, const char *name, const sweep_volume *v)
{
    if (lv->volume_count >= SWEEP_VOLUME_MAX)
        return SWEEP_E_ARG;
    if (!grow((void **)&lv->volumes, &lv->volume_cap, lv->volume_count, sizeof *lv->volumes, SWEEP_VOLUME_MAX))
        return SWEEP_E_NOMEM;
    sweep_level_volume *e = &lv->volumes[lv->volume_count++];
    memset(e, 0, sizeof *e);
    e->id = id;
    snprintf(e->name, sizeof e->name, "%s", name ? name : "");
    e->v = *v;
    return SWEEP_OK;
}
