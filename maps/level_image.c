/*
 * level_image.c - the level image (format and rules in level_image.h):
 * written from a loaded level, read back with every value checked.
 *
 * Bytes are put and taken one at a time in little-endian order, and
 * doubles through their 64-bit pattern, so the image is the same on any
 * machine and a value read back is the value written, every bit.
 *
 * The reader never trusts a count: before it reads the items a count
 * announces, it checks that the bytes left can hold them, so a damaged
 * image cannot make it allocate more than the image's own size warrants.
 * Invariants on success are the loader's (loader.c): every index in range,
 * every material in the table, every number finite, every vertex, spawn
 * point and keyframe position within the map row's coordinate limit, each
 * mover passes sweep_mover_desc_check, and the map row passes
 * sweep_map_check_values.
 */
#include "maps/level_image.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/loader.h"

static const char image_magic[8] = {'S', 'W', 'E', 'E', 'P', 'L', 'V', 'L'};

/* --- writing ---------------------------------------------------------------- */

typedef struct out_buf {
    unsigned char *p;
    size_t len, cap;
    int nomem;
} out_buf;

static void put(out_buf *o, const void *src, size_t n)
{
    if (o->nomem)
        return;
    if (o->cap - o->len < n) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->len < n)
            cap *= 2;
        unsigned char *p = realloc(o->p, cap);
        if (!p) {
            o->nomem = 1;
            return;
        }
        o->p = p, o->cap = cap;
    }
    memcpy(o->p + o->len, src, n);
    o->len += n;
}

static void put_u32(out_buf *o, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(o, b, 4);
}

static void put_f64(out_buf *o, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(o, b, 8);
}

static void put_vec(out_buf *o, sweep_vec3 v)
{
    put_f64(o, v.x), put_f64(o, v.y), put_f64(o, v.z);
}

static void put_str(out_buf *o, const char *s)
{
    const char *end = memchr(s, '\0', SWEEP_LEVEL_NAME_MAX - 1);
    size_t n = end ? (size_t)(end - s) : SWEEP_LEVEL_NAME_MAX - 1;
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

static void put_triangles(out_buf *o, const uint32_t *indices, const uint32_t *materials, uint32_t count)
{
    put_u32(o, count);
    for (uint32_t t = 0; t < count; t++) {
        put_u32(o, indices[3 * t]), put_u32(o, indices[3 * t + 1]), put_u32(o, indices[3 * t + 2]);
        put_u32(o, materials[t]);
    }
}

sweep_status sweep_level_image_make(const sweep_level *lv, double walkable_slope_deg, unsigned char **out,
                                    size_t *len)
{
    if (!lv || !out || !len)
        return SWEEP_E_ARG;
    out_buf o = {0};
    put(&o, image_magic, sizeof image_magic);
    sweep_map_values v;
    sweep_map_values_of(lv, walkable_slope_deg, &v);
    put_u32(&o, SWEEP_LEVEL_IMAGE_VERSION);
    put_str(&o, lv->name);
    put_vec(&o, v.gravity);
    put_f64(&o, v.tick_rate);
    put_vec(&o, v.radii);
    put_f64(&o, v.walkable_slope_deg);
    put_f64(&o, v.step_height);
    put_f64(&o, v.rules.walk_speed), put_f64(&o, v.rules.ground_accel), put_f64(&o, v.rules.air_accel);
    put_f64(&o, v.rules.jump_speed), put_f64(&o, v.rules.max_step), put_f64(&o, v.rules.speed_limit);
    put_f64(&o, v.correction_threshold);
    put_f64(&o, v.history_ms), put_f64(&o, v.rewind_cap_ms);
    put_f64(&o, v.rules.swim_speed), put_f64(&o, v.rules.swim_accel), put_f64(&o, v.rules.swim_drag);
    put_f64(&o, v.rules.swim_sink), put_f64(&o, v.rules.swim_jump);
    put_f64(&o, v.rules.climb_speed), put_f64(&o, v.rules.climb_accel);
    put_vec(&o, v.rules.crouch_radii);
    put_f64(&o, v.rules.crouch_speed);
    put_f64(&o, v.rules.air_move);
    put_u32(&o, lv->vertex_count);
    for (uint32_t i = 0; i < lv->vertex_count; i++)
        put_vec(&o, lv->vertices[i]);
    put_triangles(&o, lv->indices, lv->materials, lv->triangle_count);
    put_u32(&o, lv->material_count);
    for (uint32_t i = 0; i < lv->material_count; i++) {
        const sweep_material *m = &lv->material_table[i];
        put_u32(&o, m->id);
        put_str(&o, m->name);
        put_f64(&o, m->friction);
        put_u32(&o, m->flags);
    }
    put_u32(&o, lv->spawn_count);
    for (uint32_t i = 0; i < lv->spawn_count; i++)
        put_vec(&o, lv->spawns[i]);
    put_u32(&o, lv->mover_count);
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        const sweep_level_mover *m = &lv->movers[i];
        put_u32(&o, m->id);
        put_str(&o, m->name);
        put_u32(&o, (uint32_t)m->mode), put_u32(&o, (uint32_t)m->trigger), put_u32(&o, (uint32_t)m->blocked);
        put_f64(&o, m->wait_start), put_f64(&o, m->wait_end);
        put_vec(&o, m->volume_min), put_vec(&o, m->volume_max);
        put_u32(&o, m->vertex_count);
        for (uint32_t k = 0; k < m->vertex_count; k++)
            put_vec(&o, m->vertices[k]);
        put_triangles(&o, m->indices, m->materials, m->triangle_count);
        put_u32(&o, m->key_count);
        for (uint32_t k = 0; k < m->key_count; k++) {
            const sweep_keyframe *key = &m->keys[k];
            put_f64(&o, key->time);
            put_vec(&o, key->pose.position);
            put_f64(&o, key->pose.rotation.x), put_f64(&o, key->pose.rotation.y);
            put_f64(&o, key->pose.rotation.z), put_f64(&o, key->pose.rotation.w);
        }
    }
    put_u32(&o, lv->volume_count);
    for (uint32_t i = 0; i < lv->volume_count; i++) {
        const sweep_level_volume *lvv = &lv->volumes[i];
        const sweep_volume *v = &lvv->v;
        put_u32(&o, lvv->id);
        put_str(&o, lvv->name);
        put_u32(&o, (uint32_t)v->kind);
        put_vec(&o, v->lo), put_vec(&o, v->hi);
        put_u32(&o, v->plane_count);
        for (uint32_t k = 0; k < v->plane_count; k++)
            put_vec(&o, v->planes[k].normal), put_f64(&o, v->planes[k].offset);
        put_vec(&o, v->velocity), put_vec(&o, v->destination), put_vec(&o, v->facing);
        put_f64(&o, v->exit_speed);
        put_u32(&o, v->keep_velocity);
        put_f64(&o, v->damage);
        put_u32(&o, (uint32_t)v->liquid);
        put_vec(&o, v->normal);
    }
    if (o.nomem) {
        free(o.p);
        return SWEEP_E_NOMEM;
    }
    *out = o.p, *len = o.len;
    return SWEEP_OK;
}

/* --- reading ---------------------------------------------------------------- */

typedef struct in_buf {
    const unsigned char *p;
    size_t len, at;
    char *err;
    size_t errlen;
    sweep_status status; /* SWEEP_OK until the first failure */
    uint32_t *ids;       /* the materials' ids, sorted, once read (look-ups by halves) */
    uint32_t id_count;
} in_buf;

static int failf(in_buf *in, sweep_status st, const char *fmt, ...)
{
    if (in->status != SWEEP_OK)
        return 0;
    in->status = st;
    if (in->err && in->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(in->err, in->errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* 1 if n more bytes are there; what follows names `what` otherwise. */
static int have(in_buf *in, size_t n, const char *what)
{
    if (in->status != SWEEP_OK)
        return 0;
    if (in->len - in->at < n)
        return failf(in, SWEEP_E_GEOMETRY, "level image truncated at byte %zu, in %s", in->at, what);
    return 1;
}

static uint32_t get_u32(in_buf *in, const char *what)
{
    if (!have(in, 4, what))
        return 0;
    const unsigned char *b = in->p + in->at;
    in->at += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A double that must be finite. */
static double get_f64(in_buf *in, const char *what)
{
    if (!have(in, 8, what))
        return 0.0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)in->p[in->at + i] << (8 * i);
    in->at += 8;
    double d;
    memcpy(&d, &v, sizeof d);
    if (!isfinite(d))
        return failf(in, SWEEP_E_GEOMETRY, "level image: %s is not a finite number", what), 0.0;
    return d;
}

static sweep_vec3 get_vec(in_buf *in, const char *what)
{
    sweep_vec3 v;
    v.x = get_f64(in, what);
    v.y = get_f64(in, what);
    v.z = get_f64(in, what);
    return v;
}

/* A point of the level (a vertex, a spawn point, a keyframe's position):
 * within the map row's coordinate limit, as the loader takes it. */
static sweep_vec3 get_point(in_buf *in, const sweep_level *lv, const char *what)
{
    sweep_vec3 v = get_vec(in, what);
    if (in->status == SWEEP_OK && !sweep_config_contains(&lv->config, v))
        failf(in, SWEEP_E_GEOMETRY, "level image: %s at (%g, %g, %g) is beyond the coordinate limit %g", what, v.x,
              v.y, v.z, lv->config.max_coordinate);
    return v;
}

static void get_str(in_buf *in, char out[SWEEP_LEVEL_NAME_MAX], const char *what)
{
    out[0] = '\0';
    uint32_t n = get_u32(in, what);
    if (in->status != SWEEP_OK)
        return;
    if (n >= SWEEP_LEVEL_NAME_MAX) {
        failf(in, SWEEP_E_GEOMETRY, "level image: %s is %u bytes long, at most %u allowed", what, n,
              SWEEP_LEVEL_NAME_MAX - 1);
        return;
    }
    if (!have(in, n, what))
        return;
    memcpy(out, in->p + in->at, n);
    out[n] = '\0';
    in->at += n;
    if (strlen(out) != n)
        failf(in, SWEEP_E_GEOMETRY, "level image: %s holds a NUL byte", what);
}

/* A count of items of item_size bytes each, which the bytes left must hold. */
static uint32_t get_count(in_buf *in, size_t item_size, const char *what)
{
    uint32_t n = get_u32(in, what);
    if (in->status == SWEEP_OK && (in->len - in->at) / item_size < n)
        return failf(in, SWEEP_E_GEOMETRY, "level image: %u %s do not fit in the %zu bytes left", n, what,
                     in->len - in->at), 0;
    return n;
}

static int nomem(in_buf *in, sweep_status st)
{
    if (st == SWEEP_OK)
        return 1;
    return failf(in, st, st == SWEEP_E_NOMEM ? "out of memory reading the level image"
                                             : "level image: more triangles than the core accepts");
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The materials' ids sorted into in->ids, a repeated one refused: a
 * triangle's material is then found in log time (a linear look-up made
 * 200,000 triangles over as many materials a 76 s read). */
static void sort_material_ids(in_buf *in, const sweep_level *lv)
{
    in->ids = malloc((lv->material_count ? lv->material_count : 1) * sizeof *in->ids);
    if (!in->ids) {
        failf(in, SWEEP_E_NOMEM, "out of memory reading the level image");
        return;
    }
    in->id_count = lv->material_count;
    for (uint32_t i = 0; i < lv->material_count; i++)
        in->ids[i] = lv->material_table[i].id;
    qsort(in->ids, in->id_count, sizeof *in->ids, by_id);
    for (uint32_t i = 1; i < in->id_count; i++)
        if (in->ids[i] == in->ids[i - 1]) {
            failf(in, SWEEP_E_GEOMETRY, "level image: material %u appears twice", in->ids[i]);
            return;
        }
}

static int material_known(const in_buf *in, uint32_t id)
{
    return bsearch(&id, in->ids, in->id_count, sizeof *in->ids, by_id) != NULL;
}

/* Triangles of the static level (m NULL) or of mover m, checked against
 * vertex_count and, once the materials are known, their ids. */
static void get_triangles(in_buf *in, sweep_level *lv, sweep_level_mover *m, uint32_t vertex_count,
                          const char *what)
{
    uint32_t n = get_count(in, 16, "triangles");
    for (uint32_t t = 0; t < n && in->status == SWEEP_OK; t++) {
        uint32_t a = get_u32(in, what), b = get_u32(in, what), c = get_u32(in, what), mat = get_u32(in, what);
        if (in->status != SWEEP_OK)
            return;
        if (a >= vertex_count || b >= vertex_count || c >= vertex_count) {
            failf(in, SWEEP_E_GEOMETRY, "level image: %s %u names vertex %u, %u or %u of %u", what, t, a, b, c,
                  vertex_count);
            return;
        }
        /* The loader dropped these; the core would too, renumbering the rest. */
        if (!m && sweep_triangle_is_degenerate(lv->vertices[a], lv->vertices[b], lv->vertices[c])) {
            failf(in, SWEEP_E_GEOMETRY, "level image: %s %u is degenerate", what, t);
            return;
        }
        nomem(in, m ? sweep_level_mover_add_triangle(m, a, b, c, mat) : sweep_level_add_triangle(lv, a, b, c, mat));
    }
}

/* Vertices of the static level (m NULL) or of mover m: their count. */
static uint32_t get_vertices(in_buf *in, sweep_level *lv, sweep_level_mover *m, const char *many, const char *one)
{
    uint32_t n = get_count(in, 24, many);
    for (uint32_t i = 0; i < n && in->status == SWEEP_OK; i++) {
        sweep_vec3 v = get_point(in, lv, one);
        if (in->status == SWEEP_OK)
            nomem(in, m ? sweep_level_mover_add_vertex(m, v, NULL) : sweep_level_add_vertex(lv, v, NULL));
    }
    return n;
}

static void check_materials(in_buf *in, const uint32_t *materials, uint32_t count, const char *what)
{
    for (uint32_t t = 0; t < count && in->status == SWEEP_OK; t++)
        if (!material_known(in, materials[t]))
            failf(in, SWEEP_E_GEOMETRY, "level image: %s %u has material %u, not in the materials", what, t,
                  materials[t]);
}

static void get_mover(in_buf *in, sweep_level *lv)
{
    uint32_t id = get_u32(in, "mover id");
    char name[SWEEP_LEVEL_NAME_MAX];
    get_str(in, name, "mover name");
    uint32_t at;
    if (in->status != SWEEP_OK || !nomem(in, sweep_level_add_mover(lv, id, name, &at)))
        return;
    sweep_level_mover *m = &lv->movers[at];
    uint32_t mode = get_u32(in, "mover mode"), trigger = get_u32(in, "mover trigger"),
             blocked = get_u32(in, "mover blocked");
    /* Out of range, each stays as read for sweep_mover_desc_check to name. */
    m->mode = mode < SWEEP_MOVER_MODE_COUNT ? (sweep_mover_mode)mode : SWEEP_MOVER_MODE_COUNT;
    m->trigger = trigger < SWEEP_TRIGGER_COUNT ? (sweep_mover_trigger)trigger : SWEEP_TRIGGER_COUNT;
    m->blocked = blocked < SWEEP_BLOCKED_COUNT ? (sweep_mover_blocked)blocked : SWEEP_BLOCKED_COUNT;
    m->wait_start = get_f64(in, "mover wait_start");
    m->wait_end = get_f64(in, "mover wait_end");
    m->volume_min = get_vec(in, "mover volume");
    m->volume_max = get_vec(in, "mover volume");
    uint32_t nv = get_vertices(in, lv, m, "mover vertices", "a mover vertex");
    get_triangles(in, lv, m, nv, "mover triangle");
    uint32_t nk = get_count(in, 64, "mover keyframes");
    for (uint32_t k = 0; k < nk && in->status == SWEEP_OK; k++) {
        double time = get_f64(in, "keyframe time");
        sweep_vec3 pos = get_point(in, lv, "keyframe position");
        sweep_quat q;
        q.x = get_f64(in, "keyframe rotation");
        q.y = get_f64(in, "keyframe rotation");
        q.z = get_f64(in, "keyframe rotation");
        q.w = get_f64(in, "keyframe rotation");
        if (in->status == SWEEP_OK)
            nomem(in, sweep_level_mover_add_keyframe(m, time, pos, q));
    }
}

/* One volume, checked as a world would check it (sweep_volume_check,
 * under the map's own limits) and with its id above the one before. */
static void get_volume(in_buf *in, sweep_level *lv, uint32_t version)
{
    sweep_volume v;
    memset(&v, 0, sizeof v);
    uint32_t id = get_u32(in, "volume id");
    char name[SWEEP_LEVEL_NAME_MAX];
    get_str(in, name, "volume name");
    v.kind = (sweep_volume_kind)get_u32(in, "volume kind");
    v.lo = get_vec(in, "volume box");
    v.hi = get_vec(in, "volume box");
    v.plane_count = get_u32(in, "volume planes");
    if (in->status != SWEEP_OK)
        return;
    if (v.plane_count > SWEEP_VOLUME_MAX_PLANES) {
        failf(in, SWEEP_E_GEOMETRY, "level image: volume %u has %u planes; at most %u", id, v.plane_count,
              SWEEP_VOLUME_MAX_PLANES);
        return;
    }
    for (uint32_t k = 0; k < v.plane_count; k++) {
        v.planes[k].normal = get_vec(in, "volume plane");
        v.planes[k].offset = get_f64(in, "volume plane");
    }
    v.velocity = get_vec(in, "volume velocity");
    v.destination = get_vec(in, "volume destination");
    v.facing = get_vec(in, "volume facing");
    v.exit_speed = get_f64(in, "volume exit_speed");
    v.keep_velocity = get_u32(in, "volume keep_velocity");
    v.damage = get_f64(in, "volume damage");
    if (version >= 3) {
        v.liquid = (sweep_liquid)get_u32(in, "volume liquid");
        v.normal = get_vec(in, "volume normal");
    }
    if (in->status != SWEEP_OK)
        return;
    const char *why = "";
    if (id == 0 || (lv->volume_count && id <= lv->volumes[lv->volume_count - 1].id)) {
        failf(in, SWEEP_E_GEOMETRY, "level image: volume ids not increasing at volume %u", id);
        return;
    }
    if (sweep_volume_check(&v, lv->config.max_speed, lv->config.max_coordinate, &why) != SWEEP_OK) {
        failf(in, SWEEP_E_GEOMETRY, "level image: volume %u (%s): %s", id, name, why);
        return;
    }
    nomem(in, sweep_level_add_volume(lv, id, name, &v));
}

static void read_image(in_buf *in, sweep_level *lv)
{
    if (!have(in, sizeof image_magic, "the header") || memcmp(in->p, image_magic, sizeof image_magic) != 0) {
        failf(in, SWEEP_E_GEOMETRY, "not a sweep level image (no SWEEPLVL header)");
        return;
    }
    in->at = sizeof image_magic;
    uint32_t version = get_u32(in, "the header");
    if (in->status == SWEEP_OK && (version < 1 || version > SWEEP_LEVEL_IMAGE_VERSION)) {
        failf(in, SWEEP_E_GEOMETRY, "level image version %u; this build reads versions 1 to %u", version,
              SWEEP_LEVEL_IMAGE_VERSION);
        return;
    }
    get_str(in, lv->name, "the level name");

    sweep_map_values v;
    v.gravity = get_vec(in, "gravity");
    v.tick_rate = get_f64(in, "tick_rate");
    v.radii = get_vec(in, "radii");
    v.walkable_slope_deg = get_f64(in, "walkable_slope_deg");
    v.step_height = get_f64(in, "step_height");
    v.rules.walk_speed = get_f64(in, "walk_speed");
    v.rules.ground_accel = get_f64(in, "ground_accel");
    v.rules.air_accel = get_f64(in, "air_accel");
    v.rules.jump_speed = get_f64(in, "jump_speed");
    v.rules.max_step = get_f64(in, "max_step");
    v.rules.speed_limit = get_f64(in, "speed_limit");
    v.correction_threshold = get_f64(in, "correction_threshold");
    v.history_ms = get_f64(in, "history_ms");
    v.rewind_cap_ms = get_f64(in, "rewind_cap_ms");
    /* Version 1 had neither crouching nor the swimming and climbing
     * rules, version 2 crouching alone: what an image lacks is the
     * core's default (no crouching; swimming and climbing as in metres,
     * which no move of a level without liquids or ladders reads). */
    sweep_rules defaults;
    sweep_rules_default(&defaults);
    v.rules.swim_speed = defaults.swim_speed, v.rules.swim_accel = defaults.swim_accel;
    v.rules.swim_drag = defaults.swim_drag, v.rules.swim_sink = defaults.swim_sink;
    v.rules.swim_jump = defaults.swim_jump;
    v.rules.climb_speed = defaults.climb_speed, v.rules.climb_accel = defaults.climb_accel;
    if (version >= 3) {
        v.rules.swim_speed = get_f64(in, "swim_speed");
        v.rules.swim_accel = get_f64(in, "swim_accel");
        v.rules.swim_drag = get_f64(in, "swim_drag");
        v.rules.swim_sink = get_f64(in, "swim_sink");
        v.rules.swim_jump = get_f64(in, "swim_jump");
        v.rules.climb_speed = get_f64(in, "climb_speed");
        v.rules.climb_accel = get_f64(in, "climb_accel");
    }
    v.rules.crouch_radii = sweep_v3(0, 0, 0);
    v.rules.crouch_speed = 0.0;
    if (version >= 2) {
        v.rules.crouch_radii = get_vec(in, "crouch radii");
        v.rules.crouch_speed = get_f64(in, "crouch_speed");
    }
    v.rules.air_move = version >= 4 ? get_f64(in, "air_move") : defaults.air_move;
    if (in->status != SWEEP_OK)
        return;
    char why[256];
    if (sweep_map_check_values(&v, NULL, why, sizeof why) != SWEEP_OK) {
        failf(in, SWEEP_E_CONFIG, "level image: the map row: %s", why);
        return;
    }
    sweep_map_apply_values(&v, lv);

    uint32_t nv = get_vertices(in, lv, NULL, "vertices", "a vertex");
    get_triangles(in, lv, NULL, nv, "triangle");
    uint32_t nm = get_count(in, 20, "materials");
    if (in->status == SWEEP_OK && nm > SWEEP_MAP_MAX_MATERIALS) {
        failf(in, SWEEP_E_GEOMETRY, "level image: %u materials, at most %u (as in a map)", nm, SWEEP_MAP_MAX_MATERIALS);
        return;
    }
    for (uint32_t i = 0; i < nm && in->status == SWEEP_OK; i++) {
        uint32_t id = get_u32(in, "material id");
        char name[SWEEP_LEVEL_NAME_MAX];
        get_str(in, name, "material name");
        double friction = get_f64(in, "material friction");
        uint32_t flags = get_u32(in, "material flags");
        if (in->status != SWEEP_OK)
            return;
        nomem(in, sweep_level_add_material(lv, id, name, friction, flags));
    }
    if (in->status == SWEEP_OK)
        sort_material_ids(in, lv);
    check_materials(in, lv->materials, lv->triangle_count, "triangle");
    uint32_t ns = get_count(in, 24, "spawn points");
    for (uint32_t i = 0; i < ns && in->status == SWEEP_OK; i++) {
        sweep_vec3 p = get_point(in, lv, "a spawn point");
        if (in->status == SWEEP_OK)
            nomem(in, sweep_level_add_spawn(lv, p));
    }
    uint32_t nmov = get_count(in, 4, "movers");
    for (uint32_t i = 0; i < nmov && in->status == SWEEP_OK; i++)
        get_mover(in, lv);
    uint32_t nvol = get_count(in, 4 + 4 + 4 + 48 + 4 + 72 + 8 + 4 + 8, "volumes");
    for (uint32_t i = 0; i < nvol && in->status == SWEEP_OK; i++)
        get_volume(in, lv, version);
    if (in->status != SWEEP_OK)
        return;
    if (in->at != in->len) {
        failf(in, SWEEP_E_GEOMETRY, "level image: %zu bytes after its end", in->len - in->at);
        return;
    }
    if (lv->triangle_count == 0) {
        failf(in, SWEEP_E_GEOMETRY, "level image: no triangles");
        return;
    }
    for (uint32_t i = 0; i < lv->mover_count && in->status == SWEEP_OK; i++) {
        const sweep_level_mover *m = &lv->movers[i];
        if (i > 0 && m->id <= lv->movers[i - 1].id) {
            failf(in, SWEEP_E_GEOMETRY, "level image: mover ids not increasing at mover %u", m->id);
            return;
        }
        check_materials(in, m->materials, m->triangle_count, "mover triangle");
        sweep_mover_desc d = sweep_level_mover_desc(lv, i);
        uint32_t at = 0;
        sweep_mover_problem p = sweep_mover_desc_check(&d, &at);
        if (p != SWEEP_MOVER_FINE)
            failf(in, SWEEP_E_GEOMETRY, "level image: mover %u (%s), item %u: %s", m->id, m->name, at,
                  sweep_mover_problem_text(p));
    }
}

sweep_status sweep_level_image_read(const unsigned char *bytes, size_t len, sweep_level *out, char *err,
                                    size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return SWEEP_E_ARG;
    sweep_level_init(out);
    if (!bytes)
        return SWEEP_E_ARG;
    in_buf in = {bytes, len, 0, err, errlen, SWEEP_OK, NULL, 0};
    read_image(&in, out);
    free(in.ids);
    if (in.status != SWEEP_OK) {
        sweep_level_free(out);
        sweep_level_init(out);
    }
    return in.status;
}

static sweep_status io_fail(char *err, size_t errlen, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "%s: %s", what, strerror(errno));
    return SWEEP_E_GEOMETRY;
}

sweep_status sweep_level_image_load(const char *path, sweep_level *out, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return SWEEP_E_ARG;
    sweep_level_init(out);
    if (!path)
        return SWEEP_E_ARG;
    FILE *f = fopen(path, "rb");
    if (!f)
        return io_fail(err, errlen, "cannot open");
    unsigned char *bytes = NULL;
    size_t len = 0, cap = 0;
    sweep_status st = SWEEP_OK;
    for (;;) {
        if (cap - len < 65536) {
            unsigned char *p = realloc(bytes, cap ? cap * 2 : 65536);
            if (!p) {
                st = SWEEP_E_NOMEM;
                break;
            }
            bytes = p, cap = cap ? cap * 2 : 65536;
        }
        size_t n = fread(bytes + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f))
                st = io_fail(err, errlen, "cannot read");
            break;
        }
    }
    fclose(f);
    if (st == SWEEP_OK)
        st = sweep_level_image_read(bytes, len, out, err, errlen);
    else if (st == SWEEP_E_NOMEM && err && errlen)
        snprintf(err, errlen, "out of memory reading the level image");
    free(bytes);
    return st;
}

sweep_status sweep_level_image_save(const char *path, const sweep_level *lv, double walkable_slope_deg, char *err,
                                    size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !lv)
        return SWEEP_E_ARG;
    unsigned char *bytes;
    size_t len;
    sweep_status st = sweep_level_image_make(lv, walkable_slope_deg, &bytes, &len);
    if (st != SWEEP_OK) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory making the level image");
        return st;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(bytes);
        return io_fail(err, errlen, "cannot create");
    }
    int ok = fwrite(bytes, 1, len, f) == len;
    if (!ok)
        io_fail(err, errlen, "cannot write");
    if (fclose(f) != 0 && ok) {
        ok = 0;
        io_fail(err, errlen, "cannot write");
    }
    free(bytes);
    if (!ok) {
        remove(path);
        return SWEEP_E_GEOMETRY;
    }
    return SWEEP_OK;
}
