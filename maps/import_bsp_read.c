/*
 * import_bsp_read.c - the Quake 3 importer's reading: the header, the
 * lumps and the entity text, the keys of an entity, the materials, and the
 * sinks triangles go into.
 *
 * The file is read whole into memory (from disk, or from a .pk3 through
 * libzip) and every lump the importer uses is checked before it is used:
 * its place in the file, its size in whole records, and each record's
 * counts, indices and numbers. Nothing later trusts the file: indices are
 * compared in 64 bits, so counts that would overflow are refused rather
 * than wrapped.
 */
#include "maps/import_bsp_impl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The IBSP header: magic, version, 17 lump entries of (offset, length). */
#define HEADER_BYTES 144
#define IBSP_VERSION 46
/* q3map builds brushes of at most 300 sides (MAX_BUILD_SIDES); more is a
 * broken file, and would only make the per-brush work quadratic for no
 * level's sake. */
#define MAX_BRUSH_SIDES 300
/* Longest entity token (Quake 3 stops at 1024). */
#define MAX_TOKEN 4096

const char *const sweep__bsp_lump_names[LUMP_COUNT] = {
    "entities",   "shaders",  "planes",    "nodes",   "leafs", "leaffaces", "leafbrushes", "models", "brushes",
    "brushsides", "vertexes", "meshverts", "effects", "faces", "lightmaps", "lightvols",   "visdata"};
const uint32_t sweep__bsp_lump_record[LUMP_COUNT] = {1, 72, 16, 36, 48, 4, 4, 40, 12, 8, 44, 4, 72, 104, 49152, 8, 1};

/* ------------------------------------------------------------------------
 * Messages
 */

int sweep__bsp_fail(bsp *b, const char *fmt, ...)
{
    if (b->err && b->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->err, b->errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

int sweep__bsp_nomem(bsp *b)
{
    b->nomem = 1;
    return sweep__bsp_fail(b, "out of memory");
}

static void hand_on(bsp *b, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (b->opt && b->opt->warn)
        b->opt->warn(b->opt->warn_ctx, msg);
}

void sweep__bsp_warn(bsp *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    b->st->warnings++;
    hand_on(b, fmt, ap);
    va_end(ap);
}

void sweep__bsp_note(bsp *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    hand_on(b, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------
 * Header and lumps
 */

static int read_header(bsp *b)
{
    if (b->size < HEADER_BYTES)
        return sweep__bsp_fail(b, "truncated: %zu bytes, but an IBSP header alone is %d", b->size, HEADER_BYTES);
    if (memcmp(b->data, "IBSP", 4) != 0) {
        char m[5];
        for (int i = 0; i < 4; i++)
            m[i] = b->data[i] >= 0x20 && b->data[i] < 0x7f ? (char)b->data[i] : '?';
        m[4] = '\0';
        return sweep__bsp_fail(b, "bad magic '%s': not a Quake 3 BSP (IBSP)", m);
    }
    int64_t version = i32_at(b->data + 4);
    if (version != IBSP_VERSION)
        return sweep__bsp_fail(b, "IBSP version %lld is not supported (Quake 3 levels are version %d)",
                               (long long)version, IBSP_VERSION);
    for (int l = 0; l < LUMP_COUNT; l++) {
        int64_t off = i32_at(b->data + 8 + 8 * l), len = i32_at(b->data + 12 + 8 * l);
        if (off < 0 || len < 0)
            return sweep__bsp_fail(b, LUMP_FMT ": negative offset %lld or length %lld", LUMP_ARG(l), (long long)off,
                                   (long long)len);
        if ((uint64_t)off + (uint64_t)len > b->size)
            return sweep__bsp_fail(b,
                                   LUMP_FMT ": bytes %lld..%lld run past the end of the file (%zu bytes; truncated?)",
                                   LUMP_ARG(l), (long long)off, (long long)(off + len), b->size);
        if ((uint64_t)len % sweep__bsp_lump_record[l] != 0)
            return sweep__bsp_fail(b, LUMP_FMT ": length %lld is not a whole number of %u-byte records", LUMP_ARG(l),
                                   (long long)len, sweep__bsp_lump_record[l]);
        if (len > 0 && off < HEADER_BYTES)
            return sweep__bsp_fail(b, LUMP_FMT ": offset %lld lies inside the header", LUMP_ARG(l), (long long)off);
        b->lump[l] = b->data + off;
        b->count[l] = (uint32_t)((uint64_t)len / sweep__bsp_lump_record[l]);
    }
    return 1;
}

/* Index idx (a signed field) must name a record of lump `target`. */
int sweep__bsp_check_index(bsp *b, int lump, uint32_t rec, const char *what, int64_t idx, int target)
{
    if (idx < 0 || idx >= (int64_t)b->count[target])
        return sweep__bsp_fail(b, LUMP_FMT ": record %u: %s %lld is out of range (" LUMP_FMT " has %u)", LUMP_ARG(lump),
                               rec, what, (long long)idx, LUMP_ARG(target), b->count[target]);
    return 1;
}

/* first .. first + n - 1 must all be records of lump `target`. */
int sweep__bsp_check_range(bsp *b, int lump, uint32_t rec, const char *what, int64_t first, int64_t n, int target)
{
    if (first < 0 || n < 0 || first + n > (int64_t)b->count[target])
        return sweep__bsp_fail(b, LUMP_FMT ": record %u: %s %lld + %lld runs past the %u records of " LUMP_FMT,
                               LUMP_ARG(lump), rec, what, (long long)first, (long long)n, b->count[target],
                               LUMP_ARG(target));
    return 1;
}

int sweep__bsp_check_finite(bsp *b, int lump, uint32_t rec, const char *what, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabs(v[i]) > 1e7)
            return sweep__bsp_fail(b, LUMP_FMT ": record %u: %s is not a finite number within 1e7 (%g)", LUMP_ARG(lump),
                                   rec, what, v[i]);
    return 1;
}

static int read_shaders(bsp *b)
{
    uint32_t n = b->count[L_SHADERS];
    b->shaders = calloc(n ? n : 1, sizeof *b->shaders);
    if (!b->shaders)
        return sweep__bsp_nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = record(b, L_SHADERS, i);
        shader *s = &b->shaders[i];
        memcpy(s->name, r, 64);
        s->name[64] = '\0';
        s->flags = u32_at(r + 64);
        s->contents = u32_at(r + 68);
    }
    return 1;
}

static int read_planes(bsp *b)
{
    uint32_t n = b->count[L_PLANES];
    b->planes = malloc((n ? n : 1) * sizeof *b->planes);
    if (!b->planes)
        return sweep__bsp_nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = record(b, L_PLANES, i);
        double v[4] = {f32_at(r), f32_at(r + 4), f32_at(r + 8), f32_at(r + 12)};
        if (!sweep__bsp_check_finite(b, L_PLANES, i, "a coefficient", v, 4))
            return 0;
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(len > 0.5 && len < 2.0))
            return sweep__bsp_fail(b, LUMP_FMT ": record %u: normal (%g, %g, %g) is not of unit length",
                                   LUMP_ARG(L_PLANES), i, v[0], v[1], v[2]);
        plane *p = &b->planes[i];
        for (int k = 0; k < 3; k++)
            p->n[k] = v[k] / len;
        p->d = v[3] / len;
    }
    return 1;
}

static int read_models(bsp *b)
{
    uint32_t n = b->count[L_MODELS];
    if (n == 0)
        return sweep__bsp_fail(b, LUMP_FMT ": empty; a level needs its world model (model 0)", LUMP_ARG(L_MODELS));
    b->models = malloc(n * sizeof *b->models);
    if (!b->models)
        return sweep__bsp_nomem(b);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = record(b, L_MODELS, i);
        model *m = &b->models[i];
        for (int k = 0; k < 3; k++) {
            m->mins[k] = f32_at(r + 4 * k);
            m->maxs[k] = f32_at(r + 12 + 4 * k);
        }
        if (!sweep__bsp_check_finite(b, L_MODELS, i, "a bound", m->mins, 3) ||
            !sweep__bsp_check_finite(b, L_MODELS, i, "a bound", m->maxs, 3))
            return 0;
        int64_t ff = i32_at(r + 24), nf = i32_at(r + 28), fb = i32_at(r + 32), nb = i32_at(r + 36);
        if (!sweep__bsp_check_range(b, L_MODELS, i, "faces", ff, nf, L_FACES) ||
            !sweep__bsp_check_range(b, L_MODELS, i, "brushes", fb, nb, L_BRUSHES))
            return 0;
        m->first_face = (uint32_t)ff, m->faces = (uint32_t)nf;
        m->first_brush = (uint32_t)fb, m->brushes = (uint32_t)nb;
    }
    return 1;
}

/* Brushes and their sides: every index checked once, here. */
static int check_brushes(bsp *b)
{
    for (uint32_t i = 0; i < b->count[L_BRUSHES]; i++) {
        const uint8_t *r = record(b, L_BRUSHES, i);
        int64_t first = i32_at(r), n = i32_at(r + 4);
        if (!sweep__bsp_check_range(b, L_BRUSHES, i, "sides", first, n, L_BRUSHSIDES) ||
            !sweep__bsp_check_index(b, L_BRUSHES, i, "shader", i32_at(r + 8), L_SHADERS))
            return 0;
        if (n > MAX_BRUSH_SIDES)
            return sweep__bsp_fail(b, LUMP_FMT ": record %u: %lld sides (at most %d)", LUMP_ARG(L_BRUSHES), i,
                                   (long long)n, MAX_BRUSH_SIDES);
    }
    for (uint32_t i = 0; i < b->count[L_BRUSHSIDES]; i++) {
        const uint8_t *r = record(b, L_BRUSHSIDES, i);
        if (!sweep__bsp_check_index(b, L_BRUSHSIDES, i, "plane", i32_at(r), L_PLANES) ||
            !sweep__bsp_check_index(b, L_BRUSHSIDES, i, "shader", i32_at(r + 4), L_SHADERS))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * Entities: { "key" "value" ... } blocks
 */

static int add_kv(bsp *b, const char *k, const char *v)
{
    if (b->kv_count == b->kv_cap) {
        uint32_t cap = b->kv_cap ? 2 * b->kv_cap : 256;
        keyval *p = realloc(b->kv, cap * sizeof *p);
        if (!p)
            return sweep__bsp_nomem(b);
        b->kv = p, b->kv_cap = cap;
    }
    b->kv[b->kv_count].key = k;
    b->kv[b->kv_count].value = v;
    b->kv_count++;
    return 1;
}

static int add_entity(bsp *b, uint32_t offset)
{
    if (b->ent_count == b->ent_cap) {
        uint32_t cap = b->ent_cap ? 2 * b->ent_cap : 64;
        entity *p = realloc(b->ents, cap * sizeof *p);
        if (!p)
            return sweep__bsp_nomem(b);
        b->ents = p, b->ent_cap = cap;
    }
    entity *e = &b->ents[b->ent_count++];
    e->first = b->kv_count, e->count = 0, e->offset = offset, e->classname = "", e->used = 0;
    return 1;
}

enum { TOK_ERROR = -1, TOK_END, TOK_OPEN, TOK_CLOSE, TOK_STRING };

/* The next token of the entity text src[*pos..len): a brace, or a string
 * (quoted, or a bare word as Quake 3 also reads), copied NUL-terminated to
 * b->text + *out. *at is the byte it starts at. Quake 3 knows no escapes. */
static int next_token(bsp *b, const char *src, uint32_t len, uint32_t *pos, uint32_t *out, uint32_t *at,
                      uint32_t entity_no)
{
    uint32_t i = *pos;
    for (;;) {
        while (i < len && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n'))
            i++;
        if (i + 1 < len && src[i] == '/' && src[i + 1] == '/') {
            while (i < len && src[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    *at = i;
    if (i >= len)
        return TOK_END;
    if (src[i] == '{' || src[i] == '}') {
        *pos = i + 1;
        return src[i] == '{' ? TOK_OPEN : TOK_CLOSE;
    }
    uint32_t start, end;
    if (src[i] == '"') {
        start = ++i;
        while (i < len && src[i] != '"')
            i++;
        if (i >= len) {
            sweep__bsp_fail(b, LUMP_FMT ": entity %u: the quoted string at byte %u is not closed", LUMP_ARG(L_ENTITIES),
                            entity_no, start - 1);
            return TOK_ERROR;
        }
        end = i++;
    } else {
        start = i;
        while (i < len && src[i] != ' ' && src[i] != '\t' && src[i] != '\r' && src[i] != '\n' && src[i] != '{' &&
               src[i] != '}' && src[i] != '"')
            i++;
        end = i;
    }
    if (end - start > MAX_TOKEN) {
        sweep__bsp_fail(b, LUMP_FMT ": entity %u: the string at byte %u is longer than %d bytes", LUMP_ARG(L_ENTITIES),
                        entity_no, start, MAX_TOKEN);
        return TOK_ERROR;
    }
    memcpy(b->text + *out, src + start, end - start);
    b->text[*out + (end - start)] = '\0';
    *pos = i;
    return TOK_STRING;
}

static int read_entities(bsp *b)
{
    uint32_t len = b->count[L_ENTITIES];
    const char *src = (const char *)b->lump[L_ENTITIES];
    const char *nul = memchr(src, '\0', len);
    if (nul)
        len = (uint32_t)(nul - src); /* the text ends at its NUL, as Quake 3 reads it */
    /* Each string needs at most its own bytes and a NUL, and is at least
     * one byte of the text followed by another or the end. */
    b->text = malloc(2 * (size_t)len + 2);
    if (!b->text)
        return sweep__bsp_nomem(b);
    uint32_t pos = 0, out = 0, at;
    for (;;) {
        uint32_t no = b->ent_count;
        int t = next_token(b, src, len, &pos, &out, &at, no);
        if (t == TOK_ERROR)
            return 0;
        if (t == TOK_END)
            break;
        if (t != TOK_OPEN)
            return sweep__bsp_fail(b, LUMP_FMT ": entity %u: expected '{' at byte %u", LUMP_ARG(L_ENTITIES), no, at);
        if (!add_entity(b, at))
            return 0;
        for (;;) {
            t = next_token(b, src, len, &pos, &out, &at, no);
            if (t == TOK_ERROR)
                return 0;
            if (t == TOK_END)
                return sweep__bsp_fail(b, LUMP_FMT ": entity %u: not closed by '}' before the end of the text",
                                       LUMP_ARG(L_ENTITIES), no);
            if (t == TOK_CLOSE)
                break;
            if (t == TOK_OPEN)
                return sweep__bsp_fail(b, LUMP_FMT ": entity %u: '{' at byte %u inside an entity", LUMP_ARG(L_ENTITIES),
                                       no, at);
            const char *key = b->text + out;
            out += (uint32_t)strlen(key) + 1;
            t = next_token(b, src, len, &pos, &out, &at, no);
            if (t == TOK_ERROR)
                return 0;
            if (t != TOK_STRING)
                return sweep__bsp_fail(b, LUMP_FMT ": entity %u: key '%s' has no value", LUMP_ARG(L_ENTITIES), no, key);
            const char *value = b->text + out;
            out += (uint32_t)strlen(value) + 1;
            if (!add_kv(b, key, value))
                return 0;
            b->ents[no].count++;
            if (strcasecmp(key, "classname") == 0)
                b->ents[no].classname = value;
        }
    }
    b->st->entities = b->ent_count;
    return 1;
}

/* The value of key in entity e (the last one given), or NULL. */
const char *sweep__bsp_ent_get(const bsp *b, const entity *e, const char *key)
{
    const char *v = NULL;
    for (uint32_t i = 0; i < e->count; i++)
        if (strcasecmp(b->kv[e->first + i].key, key) == 0)
            v = b->kv[e->first + i].value;
    return v;
}

/* Reads up to n numbers from s; 1 if s is exactly n finite numbers. */
int sweep__bsp_parse_numbers(const char *s, double *v, int n)
{
    const char *p = s;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[i]) || fabs(v[i]) > 1e7)
            return 0;
        p = end;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\0';
}

/* n numbers from key (def when the key is missing); 0 and err if the
 * value is not n finite numbers. */
int sweep__bsp_ent_numbers(bsp *b, const entity *e, const char *key, double *v, int n, const double *def)
{
    const char *s = sweep__bsp_ent_get(b, e, key);
    if (!s) {
        memcpy(v, def, n * sizeof *v);
        return 1;
    }
    if (!sweep__bsp_parse_numbers(s, v, n))
        return sweep__bsp_fail(b, ENT_FMT ": \"%s\" \"%s\" is not %s", ENT_ARG(b, e), key, s,
                               n == 1 ? "a finite number" : "three finite numbers");
    return 1;
}

int sweep__bsp_ent_number(bsp *b, const entity *e, const char *key, double def, double *v)
{
    return sweep__bsp_ent_numbers(b, e, key, v, 1, &def);
}

int sweep__bsp_ent_int(bsp *b, const entity *e, const char *key, long def, long *v)
{
    double d;
    if (!sweep__bsp_ent_number(b, e, key, (double)def, &d))
        return 0;
    if (d != floor(d))
        return sweep__bsp_fail(b, ENT_FMT ": \"%s\" is not a whole number", ENT_ARG(b, e), key);
    *v = (long)d;
    return 1;
}

int sweep__bsp_ent_origin(bsp *b, const entity *e, double o[3])
{
    static const double zero[3] = {0, 0, 0};
    return sweep__bsp_ent_numbers(b, e, "origin", o, 3, zero);
}

/* The brush model "*N" of e: 1 and *m, or 1 and *m = 0 when e has no
 * brush model; 0 and err for a model number out of range. */
int sweep__bsp_ent_model(bsp *b, const entity *e, uint32_t *m)
{
    *m = 0;
    const char *s = sweep__bsp_ent_get(b, e, "model");
    if (!s || s[0] != '*')
        return 1;
    char *end;
    errno = 0;
    long long k = strtoll(s + 1, &end, 10);
    if (end == s + 1 || *end != '\0' || errno == ERANGE || k < 1 || k >= (long long)b->count[L_MODELS])
        return sweep__bsp_fail(b, ENT_FMT ": model '%s' is out of range (" LUMP_FMT " has models *1..*%u)",
                               ENT_ARG(b, e), s, LUMP_ARG(L_MODELS), b->count[L_MODELS] - 1);
    *m = (uint32_t)k;
    return 1;
}

int sweep__bsp_is_class(const entity *e, const char *name)
{
    return strcasecmp(e->classname, name) == 0;
}

/* ------------------------------------------------------------------------
 * Materials
 */

/* The map material of shader s, made on first use. */
int sweep__bsp_material_of(bsp *b, uint32_t s, uint32_t *out)
{
    shader *sh = &b->shaders[s];
    if (sh->material) {
        *out = sh->material;
        return 1;
    }
    /* Shaders of the same name and flags share a material. */
    for (uint32_t i = 0; i < b->count[L_SHADERS]; i++)
        if (b->shaders[i].material && b->shaders[i].flags == sh->flags && strcmp(b->shaders[i].name, sh->name) == 0)
            return *out = sh->material = b->shaders[i].material, 1;
    char base[64];
    size_t n = 0;
    for (const char *p = sh->name; *p && n < 63; p++)
        base[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '_';
    base[n] = '\0';
    if (n == 0)
        snprintf(base, sizeof base, "shader%u", s);
    /* The first of base, base~2, base~3, ... that no material has: tried
     * from where the last material of this base left off (no name is ever
     * taken back, so nothing before it is free), which spares each new one
     * the tries of all before it (4,000 shaders of one name and different
     * flags took 33 s). */
    struct bsp_name_base *nb = NULL;
    for (uint32_t i = 0; i < b->base_count && !nb; i++)
        if (strcmp(b->bases[i].base, base) == 0)
            nb = &b->bases[i];
    if (!nb) {
        if (b->base_count == b->base_cap) {
            uint32_t cap = b->base_cap ? 2 * b->base_cap : 16;
            struct bsp_name_base *nbs = realloc(b->bases, (size_t)cap * sizeof *nbs);
            if (!nbs)
                return sweep__bsp_nomem(b);
            b->bases = nbs, b->base_cap = cap;
        }
        nb = &b->bases[b->base_count++];
        snprintf(nb->base, sizeof nb->base, "%s", base);
        nb->next = 1;
    }
    char name[64];
    for (uint32_t k = nb->next;; k++) {
        if (k == 1) {
            snprintf(name, sizeof name, "%s", base);
        } else {
            char suffix[16];
            int sl = snprintf(suffix, sizeof suffix, "~%u", k);
            size_t keep = strlen(base);
            if (keep + (size_t)sl > 63)
                keep = 63 - (size_t)sl;
            snprintf(name, sizeof name, "%.*s%s", (int)keep, base, suffix);
        }
        int taken = 0;
        for (uint32_t i = 0; i < b->lv->material_count && !taken; i++)
            taken = strcmp(b->lv->material_table[i].name, name) == 0;
        if (!taken) {
            nb->next = k + 1;
            break;
        }
    }
    uint32_t id = b->lv->material_count + 1;
    sweep_status r = sweep_level_add_material(b->lv, id, name, (sh->flags & SURF_SLICK) ? 0.0 : 1.0, sh->flags);
    if (r != SWEEP_OK)
        return sweep__bsp_nomem(b);
    *out = sh->material = id;
    return 1;
}

/* ------------------------------------------------------------------------
 * Sinks: adding vertices and triangles to the level or a mover
 */

int sweep__bsp_sink_vertex(bsp *b, sink *s, const double p[3], uint32_t *out)
{
    sweep_vec3 v = sweep_v3(p[0] + s->shift[0], p[1] + s->shift[1], p[2] + s->shift[2]);
    if (!(fabs(v.x) <= 1e7 && fabs(v.y) <= 1e7 && fabs(v.z) <= 1e7))
        return sweep__bsp_fail(b, "a vertex (%g, %g, %g) lies beyond the map limit of 1e7 units", v.x, v.y, v.z);
    sweep_status r = s->mover ? sweep_level_mover_add_vertex(s->mover, v, out) : sweep_level_add_vertex(s->lv, v, out);
    return r == SWEEP_OK ? 1 : (r == SWEEP_E_NOMEM ? sweep__bsp_nomem(b) : sweep__bsp_fail(b, "too many vertices"));
}

int sweep__bsp_sink_triangle(bsp *b, sink *s, uint32_t a, uint32_t c1, uint32_t c2, uint32_t material)
{
    sweep_status r;
    if (s->mover) {
        if (s->mover->triangle_count >= SWEEP_MOVER_MAX_TRIANGLES)
            return sweep__bsp_fail(b, "mover '%s' has more than %u triangles", s->mover->name,
                                   SWEEP_MOVER_MAX_TRIANGLES);
        r = sweep_level_mover_add_triangle(s->mover, a, c1, c2, material);
    } else {
        r = sweep_level_add_triangle(s->lv, a, c1, c2, material);
    }
    if (r != SWEEP_OK)
        return r == SWEEP_E_NOMEM ? sweep__bsp_nomem(b) : sweep__bsp_fail(b, "too many triangles");
    s->triangles++;
    return 1;
}

/* The header, the lumps the importer uses and the entities, each checked
 * (the world's tree is the brushes' to read: sweep__bsp_read_tree). */
int sweep__bsp_read(bsp *b)
{
    return read_header(b) && read_shaders(b) && read_planes(b) && read_models(b) && check_brushes(b) &&
           read_entities(b);
}
