/*
 * import_bsp.c - a Quake 3 BSP (IBSP version 46) into a sweep_level (see
 * import_bsp.h for what becomes what).
 *
 * The file is read whole into memory (from disk, or from a .pk3 through
 * libzip) and every lump the importer uses is checked before it is used:
 * its place in the file, its size in whole records, and each record's
 * counts, indices and numbers. Nothing later trusts the file: indices are
 * compared in 64 bits, so counts that would overflow are refused rather
 * than wrapped.
 *
 * Geometry is the collision hull: Quake 3 collides with brushes (convex
 * solids given as planes) and patches, not with the render faces. A brush
 * becomes its boundary: each side's plane is cut down to a polygon by all
 * the other planes (in double, from the single-precision planes), the
 * polygons' corners are welded so that neighbouring sides share vertices,
 * a corner lying on another polygon's edge is inserted into that edge (so
 * no crack opens at a T), and each polygon is fanned into triangles whose
 * front, cross(b - a, c - a), is the side's outward normal. A side whose
 * polygon keeps no area is a bevel plane (q3map adds them for box traces)
 * and gives nothing. Compilers round planes to single precision, so one
 * plane may come twice, a hair apart, crossing inside the brush: such
 * sides are merged, and a sliver face that welds into another face is kept
 * once; on the corpus every brush then closes. Last, the faces are cut by
 * the other solid brushes of the model and what lies inside them is
 * dropped (see "Hidden faces" below), so the level's shells are the
 * boundary of the union of its brushes: closed as a surface, though no
 * longer brush by brush. The faces and pieces left are not fanned brush
 * by brush then, but kept until the model's brushes are all done and
 * merged across brushes where they lie on one plane, face one way, have
 * one shader and share an edge (maps/face_merge.c, emit_merged), as q3map
 * merges the faces it keeps: a floor cut into pieces by the walls standing
 * on it becomes as few convex polygons as the classic merge finds.
 *
 * Sides: map triangles are one-sided (players collide with fronts only),
 * and a Quake 3 level answers that itself, so sweep-import's rule for
 * scenes (--sides and the material options, import.h) does not apply
 * here. A brush is a solid, and its shell, facing out, stays one-sided:
 * nobody reaches its inside, nor the inside of the union of brushes. A patch is a surface with no
 * inside, hit from either side in Quake 3, so each of its triangles is
 * written in both windings.
 *
 * Patches are cut as their curves need (patch_steps): a block is measured
 * against its triangles and its column or row of the patch cut once more
 * until it is within the tolerance, as Quake 3's collision model cuts a
 * patch's columns until each curve's midpoint is near its chord (it stops
 * at 16 units, far coarser than the default here). Flat parts become big
 * quads, and a player pressed into a curve meets far fewer triangles than
 * with a fixed 4 x 4 grid a block, which cut flat blocks as finely as
 * curved ones and large arches too coarsely. Cracks: inside a patch there
 * are none, since a seam between blocks is cut once for both. Between two
 * patches meeting along an edge nothing is welded: with the fixed grid
 * both cut the edge at the same parameters, so their points agree to the
 * rounding of the sums (exactly when both run the edge the same way);
 * cut adaptively, each patch's edge is within the tolerance of the same
 * curve, so a gap is at most twice the tolerance, which no player fits
 * through.
 *
 * Everything is deterministic: lumps are walked in file order, entities in
 * text order, so the same file gives the same map and content hash. This
 * file is also where Quake 3's angles meet trigonometry, once: movers'
 * directions, sampled sines and rotation quaternions are computed here and
 * stored, as the map format requires.
 */
#include "maps/import_bsp.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zip.h>

#include "core/quat.h"
#include "core/world.h"
#include "maps/face_merge.h"
#include "maps/grow.h"
#include "maps/tally.h"

#define PI 3.14159265358979323846

/* The IBSP header: magic, version, 17 lump entries of (offset, length). */
#define HEADER_BYTES 144
#define IBSP_VERSION 46
/* IBSP offsets are signed 32-bit: no valid file is larger. */
#define MAX_FILE_BYTES 0x7fffffffu
/* q3map builds brushes of at most 300 sides (MAX_BUILD_SIDES); more is a
 * broken file, and would only make the per-brush work quadratic for no
 * level's sake. */
#define MAX_BRUSH_SIDES 300
/* Patch control grids wider than this are refused (q3map stays at 65). */
#define MAX_PATCH_SIDE 257
/* Half the size of the polygon a side starts from before clipping, units;
 * a finished polygon reaching half of it means the brush is not closed. */
#define BASE_WINDING 1048576.0
/* Two planes with normals this close (dot product) are parallel; this
 * close (about 0.1 degree), maybe one plane rounded two ways. */
#define PARALLEL_DOT (1.0 - 1e-9)
#define NEAR_PARALLEL_DOT (1.0 - 2e-6)
/* A shell enclosing less than this (cubic units) has no volume. */
#define MIN_VOLUME 1e-3
/* Longest entity token (Quake 3 stops at 1024). */
#define MAX_TOKEN 4096
/* Quake 3's player box half sizes; its centre is 4 above the origin. */
#define PLAYER_HALF_X 15.0
#define PLAYER_HALF_Z 28.0
#define PLAYER_CENTRE_UP 4.0
/* Quake 3 raises a spawned player this far above the spawn point. */
#define SPAWN_RAISE 9.0
/* Quake 3's contents and surface flags used here. */
#define CONTENTS_SOLID 0x1u
#define CONTENTS_LAVA 0x8u
#define CONTENTS_SLIME 0x10u
#define CONTENTS_WATER 0x20u
#define CONTENTS_LIQUID (CONTENTS_LAVA | CONTENTS_SLIME | CONTENTS_WATER)
#define CONTENTS_PLAYERCLIP 0x10000u
#define PLAYER_SOLID (CONTENTS_SOLID | CONTENTS_PLAYERCLIP)
#define SURF_SLICK 0x2u
#define SURF_LADDER 0x8u
#define FACE_PATCH 2

enum {
    L_ENTITIES, L_SHADERS, L_PLANES, L_NODES, L_LEAFS, L_LEAFFACES, L_LEAFBRUSHES, L_MODELS, L_BRUSHES,
    L_BRUSHSIDES, L_VERTEXES, L_MESHVERTS, L_EFFECTS, L_FACES, L_LIGHTMAPS, L_LIGHTVOLS, L_VISDATA, LUMP_COUNT
};
static const char *const lump_names[LUMP_COUNT] = {
    "entities",  "shaders", "planes",    "nodes",  "leafs", "leaffaces", "leafbrushes", "models",  "brushes",
    "brushsides", "vertexes", "meshverts", "effects", "faces", "lightmaps", "lightvols",   "visdata"};
/* Bytes per record; 1 for the free-form lumps. */
static const uint32_t lump_record[LUMP_COUNT] = {1, 72, 16, 36, 48, 4, 4, 40, 12, 8, 44, 4, 72, 104, 49152, 8, 1};

typedef struct shader {
    char name[65];
    uint32_t flags, contents;
    uint32_t material; /* map material id, 0 until a triangle uses it */
} shader;

typedef struct plane {
    double n[3], d; /* inside the brush: dot(n, x) <= d */
} plane;

typedef struct model {
    double mins[3], maxs[3];
    uint32_t first_face, faces, first_brush, brushes;
} model;

typedef struct keyval {
    const char *key, *value;
} keyval;

typedef struct entity {
    uint32_t first, count; /* in bsp.kv */
    uint32_t offset;       /* byte of its '{' in the lump, for messages */
    const char *classname; /* "" if none */
    int used;              /* 1 when a class not in handled_classes was turned into something */
} entity;

/* Where triangles go: the static level, or one mover in its own frame.
 * Every vertex is moved by `shift` on the way in. */
typedef struct sink {
    sweep_level *lv;
    sweep_level_mover *mover;
    double shift[3];
    uint32_t triangles, patch_triangles, patches;
} sink;

/* A polygon under construction: points[] of count points. */
typedef struct poly {
    double (*p)[3];
    uint32_t n;
} poly;

/* A list of polygons: polygon i is points p[at[i] .. at[i] + len[i]). */
typedef struct polys {
    double (*p)[3];
    uint32_t points, point_cap;
    uint32_t *at, *len;
    uint32_t n, cap;
} polys;

typedef struct bsp {
    const uint8_t *data;
    size_t size;
    const char *label;
    const sweep_bsp_options *opt;
    sweep_level *lv;
    sweep_bsp_stats *st;
    double patch_tolerance; /* units; 0: the fixed SWEEP_BSP_PATCH_LEVEL */
    char *err;
    size_t errlen;
    int nomem;

    const uint8_t *lump[LUMP_COUNT];
    uint32_t count[LUMP_COUNT]; /* records */

    shader *shaders;
    plane *planes;
    model *models;
    char *text;       /* the entity lump's strings, each NUL-terminated */
    keyval *kv;
    uint32_t kv_count, kv_cap;
    entity *ents;
    uint32_t ent_count, ent_cap;
    uint32_t next_mover_id;

    /* Scratch for one brush, grown as needed. */
    double (*pts)[3];    /* polygon points, one block per side */
    uint32_t pts_cap;
    double (*verts)[3];  /* welded corners of the brush */
    uint32_t vert_cap;
    uint32_t *ring;      /* a face's corner ids */
    uint32_t ring_cap;
    uint32_t *tris;      /* 4 per triangle: a, b, c, shader */
    uint32_t tri_cap;

    /* The player-solid brushes with volume of the model being built, in
     * brush order, with their boxes: what cuts hidden faces away. */
    uint32_t *cut_brush;
    double (*cut_lo)[3], (*cut_hi)[3];
    uint32_t cut_count, cut_cap;
    /* Polygons being cut (two lists, swapped brush by brush) and a block
     * of points for one polygon's pieces. */
    polys frag[2];
    double (*work)[3];
    uint32_t work_cap;
    int64_t hidden_net; /* brush triangles fewer for the cuts, all models */
    /* The world's BSP tree may be asked (read_tree), and model 0 is being
     * built; room for splitting a polygon down the tree. */
    int tree, in_world;
    double (*tree_scratch)[3];
    uint32_t tree_scratch_cap;
    /* Merging coplanar faces across the brushes of the model being built
     * (merging): the faces kept, merged and triangulated once all its
     * brushes are done; the triangles they would have been fanned into
     * on their own (merge_before), and the net saving, all models. */
    int merging;
    sweep__face_set faces;
    sweep__face_mesh mesh;
    double (*face_pts)[3];
    uint32_t face_pts_cap;
    int64_t merge_before, merge_net;
} bsp;

/* ------------------------------------------------------------------------
 * Messages
 */

static int fail(bsp *b, const char *fmt, ...)
{
    if (b->err && b->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->err, b->errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int out_of_memory(bsp *b)
{
    b->nomem = 1;
    return fail(b, "out of memory");
}

static void warn(bsp *b, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->st->warnings++;
    if (b->opt && b->opt->warn)
        b->opt->warn(b->opt->warn_ctx, msg);
}

/* "lump 8 (brushes)" */
#define LUMP_FMT "lump %d (%s)"
#define LUMP_ARG(l) (l), lump_names[l]

/* ------------------------------------------------------------------------
 * Little-endian reads (the file need not be aligned, nor the host little)
 */

static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int64_t i32_at(const uint8_t *p)
{
    uint32_t u = u32_at(p);
    int32_t i;
    memcpy(&i, &u, sizeof i);
    return i;
}

static double f32_at(const uint8_t *p)
{
    uint32_t u = u32_at(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

static const uint8_t *record(const bsp *b, int lump, uint32_t i)
{
    return b->lump[lump] + (size_t)i * lump_record[lump];
}

/* ------------------------------------------------------------------------
 * Header and lumps
 */

static int read_header(bsp *b)
{
    if (b->size < HEADER_BYTES)
        return fail(b, "truncated: %zu bytes, but an IBSP header alone is %d", b->size, HEADER_BYTES);
    if (memcmp(b->data, "IBSP", 4) != 0) {
        char m[5];
        for (int i = 0; i < 4; i++)
            m[i] = b->data[i] >= 0x20 && b->data[i] < 0x7f ? (char)b->data[i] : '?';
        m[4] = '\0';
        return fail(b, "bad magic '%s': not a Quake 3 BSP (IBSP)", m);
    }
    int64_t version = i32_at(b->data + 4);
    if (version != IBSP_VERSION)
        return fail(b, "IBSP version %lld is not supported (Quake 3 levels are version %d)", (long long)version,
                    IBSP_VERSION);
    for (int l = 0; l < LUMP_COUNT; l++) {
        int64_t off = i32_at(b->data + 8 + 8 * l), len = i32_at(b->data + 12 + 8 * l);
        if (off < 0 || len < 0)
            return fail(b, LUMP_FMT ": negative offset %lld or length %lld", LUMP_ARG(l), (long long)off,
                        (long long)len);
        if ((uint64_t)off + (uint64_t)len > b->size)
            return fail(b, LUMP_FMT ": bytes %lld..%lld run past the end of the file (%zu bytes; truncated?)",
                        LUMP_ARG(l), (long long)off, (long long)(off + len), b->size);
        if ((uint64_t)len % lump_record[l] != 0)
            return fail(b, LUMP_FMT ": length %lld is not a whole number of %u-byte records", LUMP_ARG(l),
                        (long long)len, lump_record[l]);
        if (len > 0 && off < HEADER_BYTES)
            return fail(b, LUMP_FMT ": offset %lld lies inside the header", LUMP_ARG(l), (long long)off);
        b->lump[l] = b->data + off;
        b->count[l] = (uint32_t)((uint64_t)len / lump_record[l]);
    }
    return 1;
}

/* Index idx (a signed field) must name a record of lump `target`. */
static int check_index(bsp *b, int lump, uint32_t rec, const char *what, int64_t idx, int target)
{
    if (idx < 0 || idx >= (int64_t)b->count[target])
        return fail(b, LUMP_FMT ": record %u: %s %lld is out of range (" LUMP_FMT " has %u)", LUMP_ARG(lump), rec,
                    what, (long long)idx, LUMP_ARG(target), b->count[target]);
    return 1;
}

/* first .. first + n - 1 must all be records of lump `target`. */
static int check_range(bsp *b, int lump, uint32_t rec, const char *what, int64_t first, int64_t n, int target)
{
    if (first < 0 || n < 0 || first + n > (int64_t)b->count[target])
        return fail(b, LUMP_FMT ": record %u: %s %lld + %lld runs past the %u records of " LUMP_FMT,
                    LUMP_ARG(lump), rec, what, (long long)first, (long long)n, b->count[target], LUMP_ARG(target));
    return 1;
}

static int check_finite(bsp *b, int lump, uint32_t rec, const char *what, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabs(v[i]) > 1e7)
            return fail(b, LUMP_FMT ": record %u: %s is not a finite number within 1e7 (%g)", LUMP_ARG(lump), rec,
                        what, v[i]);
    return 1;
}

static int read_shaders(bsp *b)
{
    uint32_t n = b->count[L_SHADERS];
    b->shaders = calloc(n ? n : 1, sizeof *b->shaders);
    if (!b->shaders)
        return out_of_memory(b);
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
        return out_of_memory(b);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = record(b, L_PLANES, i);
        double v[4] = {f32_at(r), f32_at(r + 4), f32_at(r + 8), f32_at(r + 12)};
        if (!check_finite(b, L_PLANES, i, "a coefficient", v, 4))
            return 0;
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(len > 0.5 && len < 2.0))
            return fail(b, LUMP_FMT ": record %u: normal (%g, %g, %g) is not of unit length", LUMP_ARG(L_PLANES),
                        i, v[0], v[1], v[2]);
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
        return fail(b, LUMP_FMT ": empty; a level needs its world model (model 0)", LUMP_ARG(L_MODELS));
    b->models = malloc(n * sizeof *b->models);
    if (!b->models)
        return out_of_memory(b);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *r = record(b, L_MODELS, i);
        model *m = &b->models[i];
        for (int k = 0; k < 3; k++) {
            m->mins[k] = f32_at(r + 4 * k);
            m->maxs[k] = f32_at(r + 12 + 4 * k);
        }
        if (!check_finite(b, L_MODELS, i, "a bound", m->mins, 3) ||
            !check_finite(b, L_MODELS, i, "a bound", m->maxs, 3))
            return 0;
        int64_t ff = i32_at(r + 24), nf = i32_at(r + 28), fb = i32_at(r + 32), nb = i32_at(r + 36);
        if (!check_range(b, L_MODELS, i, "faces", ff, nf, L_FACES) ||
            !check_range(b, L_MODELS, i, "brushes", fb, nb, L_BRUSHES))
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
        if (!check_range(b, L_BRUSHES, i, "sides", first, n, L_BRUSHSIDES) ||
            !check_index(b, L_BRUSHES, i, "shader", i32_at(r + 8), L_SHADERS))
            return 0;
        if (n > MAX_BRUSH_SIDES)
            return fail(b, LUMP_FMT ": record %u: %lld sides (at most %d)", LUMP_ARG(L_BRUSHES), i, (long long)n,
                        MAX_BRUSH_SIDES);
    }
    for (uint32_t i = 0; i < b->count[L_BRUSHSIDES]; i++) {
        const uint8_t *r = record(b, L_BRUSHSIDES, i);
        if (!check_index(b, L_BRUSHSIDES, i, "plane", i32_at(r), L_PLANES) ||
            !check_index(b, L_BRUSHSIDES, i, "shader", i32_at(r + 4), L_SHADERS))
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
            return out_of_memory(b);
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
            return out_of_memory(b);
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
            fail(b, LUMP_FMT ": entity %u: the quoted string at byte %u is not closed", LUMP_ARG(L_ENTITIES),
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
        fail(b, LUMP_FMT ": entity %u: the string at byte %u is longer than %d bytes", LUMP_ARG(L_ENTITIES),
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
        return out_of_memory(b);
    uint32_t pos = 0, out = 0, at;
    for (;;) {
        uint32_t no = b->ent_count;
        int t = next_token(b, src, len, &pos, &out, &at, no);
        if (t == TOK_ERROR)
            return 0;
        if (t == TOK_END)
            break;
        if (t != TOK_OPEN)
            return fail(b, LUMP_FMT ": entity %u: expected '{' at byte %u", LUMP_ARG(L_ENTITIES), no, at);
        if (!add_entity(b, at))
            return 0;
        for (;;) {
            t = next_token(b, src, len, &pos, &out, &at, no);
            if (t == TOK_ERROR)
                return 0;
            if (t == TOK_END)
                return fail(b, LUMP_FMT ": entity %u: not closed by '}' before the end of the text",
                            LUMP_ARG(L_ENTITIES), no);
            if (t == TOK_CLOSE)
                break;
            if (t == TOK_OPEN)
                return fail(b, LUMP_FMT ": entity %u: '{' at byte %u inside an entity", LUMP_ARG(L_ENTITIES), no,
                            at);
            const char *key = b->text + out;
            out += (uint32_t)strlen(key) + 1;
            t = next_token(b, src, len, &pos, &out, &at, no);
            if (t == TOK_ERROR)
                return 0;
            if (t != TOK_STRING)
                return fail(b, LUMP_FMT ": entity %u: key '%s' has no value", LUMP_ARG(L_ENTITIES), no, key);
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
static const char *ent_get(const bsp *b, const entity *e, const char *key)
{
    const char *v = NULL;
    for (uint32_t i = 0; i < e->count; i++)
        if (strcasecmp(b->kv[e->first + i].key, key) == 0)
            v = b->kv[e->first + i].value;
    return v;
}

/* Reads up to n numbers from s; 1 if s is exactly n finite numbers. */
static int parse_numbers(const char *s, double *v, int n)
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

#define ENT_FMT LUMP_FMT ": entity %u (%s)"
#define ENT_ARG(b, e) LUMP_ARG(L_ENTITIES), (uint32_t)((e) - (b)->ents), (e)->classname

/* n numbers from key (def when the key is missing); 0 and err if the
 * value is not n finite numbers. */
static int ent_numbers(bsp *b, const entity *e, const char *key, double *v, int n, const double *def)
{
    const char *s = ent_get(b, e, key);
    if (!s) {
        memcpy(v, def, n * sizeof *v);
        return 1;
    }
    if (!parse_numbers(s, v, n))
        return fail(b, ENT_FMT ": \"%s\" \"%s\" is not %s", ENT_ARG(b, e), key, s,
                    n == 1 ? "a finite number" : "three finite numbers");
    return 1;
}

static int ent_number(bsp *b, const entity *e, const char *key, double def, double *v)
{
    return ent_numbers(b, e, key, v, 1, &def);
}

static int ent_int(bsp *b, const entity *e, const char *key, long def, long *v)
{
    double d;
    if (!ent_number(b, e, key, (double)def, &d))
        return 0;
    if (d != floor(d))
        return fail(b, ENT_FMT ": \"%s\" is not a whole number", ENT_ARG(b, e), key);
    *v = (long)d;
    return 1;
}

static int ent_origin(bsp *b, const entity *e, double o[3])
{
    static const double zero[3] = {0, 0, 0};
    return ent_numbers(b, e, "origin", o, 3, zero);
}

/* The brush model "*N" of e: 1 and *m, or 1 and *m = 0 when e has no
 * brush model; 0 and err for a model number out of range. */
static int ent_model(bsp *b, const entity *e, uint32_t *m)
{
    *m = 0;
    const char *s = ent_get(b, e, "model");
    if (!s || s[0] != '*')
        return 1;
    char *end;
    errno = 0;
    long long k = strtoll(s + 1, &end, 10);
    if (end == s + 1 || *end != '\0' || errno == ERANGE || k < 1 || k >= (long long)b->count[L_MODELS])
        return fail(b, ENT_FMT ": model '%s' is out of range (" LUMP_FMT " has models *1..*%u)", ENT_ARG(b, e), s,
                    LUMP_ARG(L_MODELS), b->count[L_MODELS] - 1);
    *m = (uint32_t)k;
    return 1;
}

static int is_class(const entity *e, const char *name)
{
    return strcasecmp(e->classname, name) == 0;
}

/* ------------------------------------------------------------------------
 * Materials
 */

/* The map material of shader s, made on first use. */
static int material_of(bsp *b, uint32_t s, uint32_t *out)
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
    char name[64];
    snprintf(name, sizeof name, "%s", base);
    for (uint32_t k = 2;; k++) {
        int taken = 0;
        for (uint32_t i = 0; i < b->lv->material_count && !taken; i++)
            taken = strcmp(b->lv->material_table[i].name, name) == 0;
        if (!taken)
            break;
        char suffix[16];
        int sl = snprintf(suffix, sizeof suffix, "~%u", k);
        size_t keep = strlen(base);
        if (keep + (size_t)sl > 63)
            keep = 63 - (size_t)sl;
        snprintf(name, sizeof name, "%.*s%s", (int)keep, base, suffix);
    }
    uint32_t id = b->lv->material_count + 1;
    sweep_status r = sweep_level_add_material(b->lv, id, name, (sh->flags & SURF_SLICK) ? 0.0 : 1.0, sh->flags);
    if (r != SWEEP_OK)
        return out_of_memory(b);
    *out = sh->material = id;
    return 1;
}

/* ------------------------------------------------------------------------
 * Sinks: adding vertices and triangles to the level or a mover
 */

static int sink_vertex(bsp *b, sink *s, const double p[3], uint32_t *out)
{
    sweep_vec3 v = sweep_v3(p[0] + s->shift[0], p[1] + s->shift[1], p[2] + s->shift[2]);
    if (!(fabs(v.x) <= 1e7 && fabs(v.y) <= 1e7 && fabs(v.z) <= 1e7))
        return fail(b, "a vertex (%g, %g, %g) lies beyond the map limit of 1e7 units", v.x, v.y, v.z);
    sweep_status r = s->mover ? sweep_level_mover_add_vertex(s->mover, v, out) : sweep_level_add_vertex(s->lv, v, out);
    return r == SWEEP_OK ? 1 : (r == SWEEP_E_NOMEM ? out_of_memory(b) : fail(b, "too many vertices"));
}

static int sink_triangle(bsp *b, sink *s, uint32_t a, uint32_t c1, uint32_t c2, uint32_t material)
{
    sweep_status r;
    if (s->mover) {
        if (s->mover->triangle_count >= SWEEP_MOVER_MAX_TRIANGLES)
            return fail(b, "mover '%s' has more than %u triangles", s->mover->name, SWEEP_MOVER_MAX_TRIANGLES);
        r = sweep_level_mover_add_triangle(s->mover, a, c1, c2, material);
    } else {
        r = sweep_level_add_triangle(s->lv, a, c1, c2, material);
    }
    if (r != SWEEP_OK)
        return r == SWEEP_E_NOMEM ? out_of_memory(b) : fail(b, "too many triangles");
    s->triangles++;
    return 1;
}

/* ------------------------------------------------------------------------
 * Brushes to shells
 */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static sweep_vec3 v3_of(const double p[3])
{
    return sweep_v3(p[0], p[1], p[2]);
}

static int grow_scratch(bsp *b, void **arr, uint32_t *cap, uint32_t need, size_t size)
{
    return sweep__grow(arr, cap, need, size) || out_of_memory(b);
}

/* A square of half size BASE_WINDING on plane p, counter-clockwise seen
 * from the front (the side the normal points to). */
static void base_winding(const plane *p, double out[4][3])
{
    const double *n = p->n;
    double up[3] = {0, 0, 1};
    if (fabs(n[2]) >= fabs(n[0]) && fabs(n[2]) >= fabs(n[1]))
        up[0] = 1, up[2] = 0;
    double k = dot3(up, n);
    for (int i = 0; i < 3; i++)
        up[i] -= k * n[i];
    double l = sqrt(dot3(up, up));
    for (int i = 0; i < 3; i++)
        up[i] /= l;
    double right[3];
    cross3(up, n, right); /* right x up = n: (right, up) is counter-clockwise about n */
    for (int i = 0; i < 3; i++) {
        double o = n[i] * p->d;
        out[0][i] = o - right[i] * BASE_WINDING - up[i] * BASE_WINDING;
        out[1][i] = o + right[i] * BASE_WINDING - up[i] * BASE_WINDING;
        out[2][i] = o + right[i] * BASE_WINDING + up[i] * BASE_WINDING;
        out[3][i] = o - right[i] * BASE_WINDING + up[i] * BASE_WINDING;
    }
}

/* Keeps the part of polygon in[0..n) behind plane p (dot(n, x) <= d, with
 * points within SWEEP_BSP_PLANE_EPSILON of it kept as they are); returns
 * the new point count, at most n + 1, written to out. */
static uint32_t clip(const double (*in)[3], uint32_t n, const plane *p, double (*out)[3])
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = in[i], *c = in[(i + 1) % n];
        double da = dot3(p->n, a) - p->d, dc = dot3(p->n, c) - p->d;
        int sa = da > SWEEP_BSP_PLANE_EPSILON ? 1 : da < -SWEEP_BSP_PLANE_EPSILON ? -1 : 0;
        int sc = dc > SWEEP_BSP_PLANE_EPSILON ? 1 : dc < -SWEEP_BSP_PLANE_EPSILON ? -1 : 0;
        if (sa <= 0)
            memcpy(out[m++], a, sizeof out[0]);
        if (sa * sc < 0) {
            /* from the back point towards the front one, so both sides of
             * an edge compute the same expression */
            const double *bk = sa < 0 ? a : c, *fr = sa < 0 ? c : a;
            double db = sa < 0 ? da : dc, df = sa < 0 ? dc : da, t = db / (db - df);
            for (int k = 0; k < 3; k++)
                out[m][k] = bk[k] + t * (fr[k] - bk[k]);
            m++;
        }
    }
    return m;
}

/* The welded corner within SWEEP_BSP_WELD_EPSILON of x, added if none. */
static int weld(bsp *b, uint32_t *count, const double x[3], uint32_t *out)
{
    for (uint32_t i = 0; i < *count; i++) {
        double dx = b->verts[i][0] - x[0], dy = b->verts[i][1] - x[1], dz = b->verts[i][2] - x[2];
        if (dx * dx + dy * dy + dz * dz <= SWEEP_BSP_WELD_EPSILON * SWEEP_BSP_WELD_EPSILON) {
            *out = i;
            return 1;
        }
    }
    if (!grow_scratch(b, (void **)&b->verts, &b->vert_cap, *count + 1, sizeof b->verts[0]))
        return 0;
    memcpy(b->verts[*count], x, sizeof b->verts[0]);
    *out = (*count)++;
    return 1;
}

static int push_tri(bsp *b, uint32_t *nt, uint32_t a, uint32_t c1, uint32_t c2, uint32_t sh)
{
    if (!grow_scratch(b, (void **)&b->tris, &b->tri_cap, 4 * (*nt + 1), sizeof b->tris[0]))
        return 0;
    uint32_t *t = &b->tris[4 * (*nt)++];
    t[0] = a, t[1] = c1, t[2] = c2, t[3] = sh;
    return 1;
}

/* Fans the face ring[0..k) (corner ids, counter-clockwise about normal n)
 * into triangles: from the first corner whose fan has no degenerate or
 * backward triangle, else from a new corner at the centroid. */
static int fan_face(bsp *b, uint32_t k, const double n[3], uint32_t sh, uint32_t *nverts, uint32_t *nt)
{
    for (uint32_t apex = 0; apex < k; apex++) {
        int ok = 1;
        for (uint32_t j = 1; j + 1 < k && ok; j++) {
            const double *a = b->verts[b->ring[apex]], *p = b->verts[b->ring[(apex + j) % k]],
                         *q = b->verts[b->ring[(apex + j + 1) % k]];
            double e1[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]}, e2[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]},
                   c[3];
            cross3(e1, e2, c);
            ok = dot3(c, n) > 0.0 && !sweep_triangle_is_degenerate(v3_of(a), v3_of(p), v3_of(q));
        }
        if (!ok)
            continue;
        for (uint32_t j = 1; j + 1 < k; j++)
            if (!push_tri(b, nt, b->ring[apex], b->ring[(apex + j) % k], b->ring[(apex + j + 1) % k], sh))
                return 0;
        return 1;
    }
    double c[3] = {0, 0, 0};
    for (uint32_t j = 0; j < k; j++)
        for (int i = 0; i < 3; i++)
            c[i] += b->verts[b->ring[j]][i] / k;
    if (!grow_scratch(b, (void **)&b->verts, &b->vert_cap, *nverts + 1, sizeof b->verts[0]))
        return 0;
    uint32_t ci = (*nverts)++;
    memcpy(b->verts[ci], c, sizeof c);
    for (uint32_t j = 0; j < k; j++)
        if (!push_tri(b, nt, ci, b->ring[j], b->ring[(j + 1) % k], sh))
            return 0;
    return 1;
}

/* Keeps the face b->ring[0..k) (on plane pf, shader sh) for merging
 * across brushes, when merging. */
static int keep_face(bsp *b, uint32_t k, const plane *pf, uint32_t sh)
{
    if (!b->merging)
        return 1;
    if (!grow_scratch(b, (void **)&b->face_pts, &b->face_pts_cap, k, sizeof b->face_pts[0]))
        return 0;
    for (uint32_t e = 0; e < k; e++)
        memcpy(b->face_pts[e], b->verts[b->ring[e]], sizeof b->face_pts[0]);
    return sweep__face_add(&b->faces, (const double(*)[3])b->face_pts, k, pf->n, pf->d, sh) ? 1 : out_of_memory(b);
}

/* The plane of side i of the brush whose sides start at `first`. */
static const plane *side_plane(const bsp *b, uint32_t first, uint32_t i)
{
    return &b->planes[i32_at(record(b, L_BRUSHSIDES, first + i))];
}

/* Cuts each kept side's plane down to the polygon the other kept sides
 * leave of it: side i's points go to pts[i * cap ..], their number to
 * counts[i] (0 when nothing is left). */
static int clip_sides(bsp *b, uint32_t br, uint32_t first, uint32_t n, const uint32_t *keep, uint32_t cap,
                      uint32_t *counts)
{
    /* ping-pong between two scratch blocks after the sides' blocks */
    double (*tmp0)[3] = b->pts + (size_t)n * cap, (*tmp1)[3] = tmp0 + cap;
    for (uint32_t i = 0; i < n; i++) {
        counts[i] = 0;
        if (!keep[i])
            continue;
        const plane *pi = side_plane(b, first, i);
        double w[4][3];
        base_winding(pi, w);
        memcpy(tmp0, w, sizeof w);
        uint32_t m = 4;
        double (*cur)[3] = tmp0, (*nxt)[3] = tmp1;
        for (uint32_t j = 0; j < n && m >= 3; j++) {
            if (j == i || !keep[j])
                continue;
            if (m + 1 > cap)
                break; /* cannot happen for a convex polygon; stop rather than overrun */
            m = clip((const double(*)[3])cur, m, side_plane(b, first, j), nxt);
            double (*t)[3] = cur;
            cur = nxt, nxt = t;
        }
        if (m < 3)
            continue;
        double reach = 0.0;
        for (uint32_t k = 0; k < m; k++)
            for (int c = 0; c < 3; c++)
                reach = fmax(reach, fabs(cur[k][c]));
        if (!(reach < BASE_WINDING / 2))
            return fail(b, LUMP_FMT ": record %u: the brush is not closed (side %u, plane %lld, reaches %g)",
                        LUMP_ARG(L_BRUSHES), br, i, (long long)i32_at(record(b, L_BRUSHSIDES, first + i)), reach);
        memcpy(b->pts + (size_t)i * cap, cur, m * sizeof cur[0]);
        counts[i] = m;
    }
    return 1;
}

/* Two kept sides whose planes are almost parallel and never more than
 * SWEEP_BSP_COPLANAR_EPSILON apart over the brush's box (a compiler's
 * rounding, not a shape) are one: the later one is dropped, or its
 * sliver of a face would not meet its neighbours. 1 if any was dropped. */
static int merge_coplanar(bsp *b, uint32_t first, uint32_t n, uint32_t *keep, uint32_t cap, const uint32_t *counts)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < counts[i]; k++)
            for (int c = 0; c < 3; c++) {
                lo[c] = fmin(lo[c], b->pts[(size_t)i * cap + k][c]);
                hi[c] = fmax(hi[c], b->pts[(size_t)i * cap + k][c]);
            }
    if (!(lo[0] <= hi[0]))
        return 0;
    int merged = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (!keep[j])
            continue;
        const plane *pj = side_plane(b, first, j);
        for (uint32_t i = 0; i < j && keep[j]; i++) {
            const plane *pi = side_plane(b, first, i);
            if (!keep[i] || dot3(pi->n, pj->n) < NEAR_PARALLEL_DOT)
                continue;
            /* the gap between them is linear: largest at a corner of the box */
            double gap = 0.0;
            for (int corner = 0; corner < 8; corner++) {
                double x[3] = {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1], corner & 4 ? hi[2] : lo[2]};
                gap = fmax(gap, fabs((dot3(pi->n, x) - pi->d) - (dot3(pj->n, x) - pj->d)));
            }
            if (gap <= SWEEP_BSP_COPLANAR_EPSILON)
                keep[j] = 0, merged = 1;
        }
    }
    return merged;
}

/* ------------------------------------------------------------------------
 * Hidden faces: the parts of a brush's faces inside another brush
 *
 * A player-solid brush's inside is out of every body's reach, so a face,
 * or the part of one, inside another player-solid brush of the same model
 * or back to back against one of its faces, can only cost the core time.
 * Level compilers cut visible faces the same way (q3map's CSG: a face is
 * clipped by each other brush, the pieces outside it kept): a polygon
 * is split by the other brush's planes one after another, each piece in
 * front of a plane is outside the brush and kept, and what is behind them
 * all is inside and dropped. If the polygon is in front of some plane as a
 * whole it does not enter the brush, and it is kept whole rather than in
 * pieces.
 */

/* How far off a plane a point may be and still count as on it. Planes are
 * stored in single precision: one d units from the origin is good to about
 * d * 6e-8 units (half a float's step), the corners computed from such
 * planes to a few times that; 1e-3 units is well above that anywhere in a
 * Quake 3 level (its coordinates stay within +-8192, q3map's limit being
 * 65536), and the allowance grows past 8192 units in proportion. It only
 * decides where thin slivers go. A piece within it of another brush is
 * dropped, so the surface may open by at most that much along the line
 * where two brushes meet; no body passes a slit a thousandth of a unit
 * wide (Quake 3's player is 30 x 30 x 56): the triangles on both sides of
 * it keep their edges, which a swept ellipsoid hits, and behind it lies
 * only the inside of a solid, whose faces all face away (one-sided). */
static double hidden_eps(const plane *q)
{
    return SWEEP_BSP_HIDDEN_EPSILON * fmax(1.0, fabs(q->d) / 8192.0);
}

static int polys_add(bsp *b, polys *l, const double (*p)[3], uint32_t n)
{
    if (!grow_scratch(b, (void **)&l->p, &l->point_cap, l->points + n, sizeof l->p[0]))
        return 0;
    uint32_t cap = l->cap;
    if (!grow_scratch(b, (void **)&l->at, &l->cap, l->n + 1, sizeof *l->at) ||
        !grow_scratch(b, (void **)&l->len, &cap, l->n + 1, sizeof *l->len))
        return 0;
    memcpy(l->p + l->points, p, n * sizeof p[0]);
    l->at[l->n] = l->points, l->len[l->n++] = n;
    l->points += n;
    return 1;
}

/* Splits the convex polygon in[0..n) by plane q: the part in front (or on
 * it, within eps) to front[0..*nf), the part behind (or on it) to
 * back[0..*nb); at most cap points each, 0 if that is not enough. */
static int split(const double (*in)[3], uint32_t n, const plane *q, double eps, uint32_t cap, double (*front)[3],
                 uint32_t *nf, double (*back)[3], uint32_t *nb)
{
    uint32_t f = 0, k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = in[i], *c = in[(i + 1) % n];
        double da = dot3(q->n, a) - q->d, dc = dot3(q->n, c) - q->d;
        int sa = da > eps ? 1 : da < -eps ? -1 : 0, sc = dc > eps ? 1 : dc < -eps ? -1 : 0;
        if (f + 2 > cap || k + 2 > cap)
            return 0;
        if (sa >= 0)
            memcpy(front[f++], a, sizeof front[0]);
        if (sa <= 0)
            memcpy(back[k++], a, sizeof back[0]);
        if (sa * sc < 0) {
            /* from the back point towards the front one, as clip() does */
            const double *bk = sa < 0 ? a : c, *fr = sa < 0 ? c : a;
            double db = sa < 0 ? da : dc, df = sa < 0 ? dc : da, t = db / (db - df);
            for (int j = 0; j < 3; j++)
                front[f][j] = back[k][j] = bk[j] + t * (fr[j] - bk[j]);
            f++, k++;
        }
    }
    *nf = f, *nb = k;
    return 1;
}

/* Appends to out what of polygon in[0..n) (on plane pf, facing its
 * normal) lies outside brush c: the pieces in front of c's planes, or the
 * polygon whole if none of it is inside c, or if it lies on a plane of c
 * facing the same way (a surface of both). *cut is set if it was cut. */
static int cut_by_brush(bsp *b, const double (*in)[3], uint32_t n, const plane *pf, uint32_t c, polys *out, int *cut)
{
    const uint8_t *r = record(b, L_BRUSHES, c);
    uint32_t first = (uint32_t)i32_at(r), sides = (uint32_t)i32_at(r + 4);
    const uint32_t cap = 2 * (n + sides) + 8;
    if (!grow_scratch(b, (void **)&b->work, &b->work_cap, 3 * cap, sizeof b->work[0]))
        return 0;
    double (*cur)[3] = b->work, (*front)[3] = b->work + cap, (*back)[3] = b->work + 2 * cap;
    memcpy(cur, in, n * sizeof in[0]);
    uint32_t m = n, mark_n = out->n, mark_points = out->points;
    for (uint32_t j = 0; j < sides; j++) {
        const plane *q = side_plane(b, first, j);
        double eps = hidden_eps(q), dp = dot3(q->n, pf->n);
        if (dp >= PARALLEL_DOT && fabs(q->d - pf->d) <= eps)
            goto whole; /* the same surface, facing the same way: both show it */
        if (dp <= -PARALLEL_DOT && fabs(q->d + pf->d) <= eps)
            continue; /* back to back: behind this plane */
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t k = 0; k < m; k++) {
            double d = dot3(q->n, cur[k]) - q->d;
            lo = fmin(lo, d), hi = fmax(hi, d);
        }
        if (lo >= -eps)
            goto whole; /* what is left does not enter c: none of it does */
        if (hi <= eps)
            continue;
        uint32_t nf, nb;
        if (!split((const double(*)[3])cur, m, q, eps, cap, front, &nf, back, &nb))
            goto whole; /* not a convex polygon: keep it rather than guess */
        if (nf >= 3 && !polys_add(b, out, (const double(*)[3])front, nf))
            return 0;
        double (*t)[3] = cur;
        cur = back, back = t, m = nb;
        if (m < 3)
            goto whole;
    }
    *cut = 1; /* cur is inside c: dropped */
    return 1;
whole:
    out->n = mark_n, out->points = mark_points;
    return polys_add(b, out, in, n);
}

/* Cuts the face ring[0..k) (corner ids into b->verts, on plane pf) of
 * brush `self` by every other cutting brush whose box meets it, in brush
 * order; the pieces left are b->frag[*which]. *cut is 0 if nothing was cut
 * away (the face is then kept as it was). */
static int cut_face(bsp *b, uint32_t self, const plane *pf, const uint32_t *ring, uint32_t k, uint32_t *which,
                    int *cut)
{
    polys *src = &b->frag[0];
    src->n = src->points = 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (!grow_scratch(b, (void **)&src->p, &src->point_cap, k, sizeof src->p[0]))
        return 0;
    for (uint32_t e = 0; e < k; e++)
        for (int i = 0; i < 3; i++) {
            double x = b->verts[ring[e]][i];
            src->p[e][i] = x;
            lo[i] = fmin(lo[i], x), hi[i] = fmax(hi[i], x);
        }
    uint32_t cap = src->cap;
    if (!grow_scratch(b, (void **)&src->at, &src->cap, 1, sizeof *src->at) ||
        !grow_scratch(b, (void **)&src->len, &cap, 1, sizeof *src->len))
        return 0;
    src->at[0] = 0, src->len[0] = k, src->n = 1, src->points = k;
    uint32_t w = 0;
    *cut = 0;
    /* a box filter only, far wider than any epsilon: the planes decide */
    const double slack = 0.01 + 1e-6 * fmax(fabs(pf->d), 1.0);
    for (uint32_t c = 0; c < b->cut_count && src->n; c++) {
        if (b->cut_brush[c] == self)
            continue;
        int apart = 0;
        for (int i = 0; i < 3; i++)
            apart |= b->cut_lo[c][i] > hi[i] + slack || b->cut_hi[c][i] < lo[i] - slack;
        if (apart)
            continue;
        polys *dst = &b->frag[w ^ 1];
        dst->n = dst->points = 0;
        for (uint32_t i = 0; i < src->n; i++)
            if (!cut_by_brush(b, (const double(*)[3])(src->p + src->at[i]), src->len[i], pf, b->cut_brush[c], dst,
                              cut))
                return 0;
        w ^= 1, src = dst;
    }
    *which = w;
    return 1;
}

/* ------------------------------------------------------------------------
 * Faces towards the void: the world's BSP tree
 *
 * q3map fills the outside of a sealed level and marks its leaves opaque,
 * as it does the leaves inside structural solid; an opaque leaf has
 * cluster -1. No body is ever in one, and between them and the leaves a
 * body can be in stand structural brush faces, which face those leaves and
 * are kept. So a face (or piece) of the world that lies wholly in opaque
 * leaves, seen from its front, is never touched. A face is pushed down the
 * tree and split by its planes; one on a node's plane goes to the side its
 * normal faces. A leaked level has no opaque outside and loses nothing.
 */

/* Deeper than any tree q3map writes; a face deeper than this is kept. */
#define MAX_TREE_DEPTH 256
/* A polygon within this of a node's plane (units) goes down both sides:
 * a face is dropped only if no point of it comes this close to a leaf that
 * is not opaque. Detail brushes do not split the tree, and their faces
 * may lie a hundredth of a unit behind a structural plane (rounding),
 * with the open leaf just in front of them; a body touches nothing
 * farther than its skin from the space it is in. */
#define TREE_REACH 0.5

/* The world's tree, read only if every index in it is in range and some
 * leaf is not opaque; 0 (no tree) otherwise, and nothing is dropped. */
static int read_tree(bsp *b)
{
    uint32_t nn = b->count[L_NODES], nl = b->count[L_LEAFS];
    if (nn == 0 || nl == 0)
        return 1;
    int open = 0;
    for (uint32_t i = 0; i < nl; i++)
        open |= i32_at(record(b, L_LEAFS, i)) >= 0;
    for (uint32_t i = 0; i < nn; i++) {
        const uint8_t *r = record(b, L_NODES, i);
        int64_t pl = i32_at(r), c0 = i32_at(r + 4), c1 = i32_at(r + 8);
        if (pl < 0 || pl >= (int64_t)b->count[L_PLANES])
            return 1;
        int64_t c[2] = {c0, c1};
        for (int k = 0; k < 2; k++)
            if (c[k] >= (int64_t)nn || (c[k] < 0 && -(c[k] + 1) >= (int64_t)nl))
                return 1;
    }
    b->tree = open;
    return 1;
}

/* 1 if some part of polygon p[0..n) (on plane pf, facing its normal)
 * lies, in front of itself, in a leaf that is not opaque, below `node`
 * (>= 0 a node, < 0 the leaf -(node + 1)). scratch holds 2 * cap points
 * for each level of depth left. */
static int reaches_open_leaf(const bsp *b, const double (*p)[3], uint32_t n, int64_t node, uint32_t depth,
                             double (*scratch)[3], uint32_t cap)
{
    while (node >= 0) {
        if (depth == 0)
            return 1;
        const uint8_t *r = record(b, L_NODES, (uint32_t)node);
        const plane *q = &b->planes[i32_at(r)];
        int64_t front = i32_at(r + 4), back = i32_at(r + 8);
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t k = 0; k < n; k++) {
            double d = dot3(q->n, p[k]) - q->d;
            lo = fmin(lo, d), hi = fmax(hi, d);
        }
        if (lo >= TREE_REACH) {
            node = front;
        } else if (hi <= -TREE_REACH) {
            node = back;
        } else {
            /* both sides, each with what lies within TREE_REACH of it */
            double (*f)[3] = scratch, (*k)[3] = scratch + cap, (*x)[3] = scratch + 2 * cap;
            uint32_t nf, nb, nx;
            plane fq = {{q->n[0], q->n[1], q->n[2]}, q->d - TREE_REACH};
            plane bq = {{q->n[0], q->n[1], q->n[2]}, q->d + TREE_REACH};
            if (n + 2 > cap || !split(p, n, &fq, 0.0, cap, f, &nf, x, &nx) ||
                !split(p, n, &bq, 0.0, cap, x, &nx, k, &nb))
                return 1;
            if (nf >= 3 && reaches_open_leaf(b, (const double(*)[3])f, nf, front, depth - 1, scratch + 3 * cap, cap))
                return 1;
            if (nb < 3)
                return 0;
            p = (const double(*)[3])k, n = nb, node = back;
            scratch += 3 * cap;
        }
        depth--;
    }
    return i32_at(record(b, L_LEAFS, (uint32_t)(-(node + 1)))) >= 0;
}

/* 1 if polygon p[0..n) of the world may be touched: it
 * reaches a leaf that is not opaque, or there is no tree to ask. */
static int faces_open_space(bsp *b, const double (*p)[3], uint32_t n, int *ok)
{
    if (!b->tree || !b->in_world)
        return 1;
    const uint32_t cap = n + MAX_TREE_DEPTH + 4;
    if (!grow_scratch(b, (void **)&b->tree_scratch, &b->tree_scratch_cap, 3 * cap * (MAX_TREE_DEPTH + 1),
                      sizeof b->tree_scratch[0])) {
        *ok = 0;
        return 1;
    }
    return reaches_open_leaf(b, p, n, 0, MAX_TREE_DEPTH, b->tree_scratch, cap);
}

/* Triangles tri[4 t] = (corner, corner, corner, shader) over corners v into
 * s, each corner written once however many triangles share it; degenerate
 * triangles are counted and left out. *written (if given) counts the
 * triangles written. */
static int write_triangles(bsp *b, sink *s, const double (*v)[3], uint32_t nverts, const uint32_t *tri, uint32_t nt,
                           int64_t *written)
{
    uint32_t *remap = malloc((nverts ? nverts : 1) * sizeof *remap);
    if (!remap)
        return out_of_memory(b);
    for (uint32_t i = 0; i < nverts; i++)
        remap[i] = UINT32_MAX;
    int ok = 1;
    for (uint32_t t = 0; t < nt && ok; t++) {
        const uint32_t *x = &tri[4 * t];
        if (sweep_triangle_is_degenerate(v3_of(v[x[0]]), v3_of(v[x[1]]), v3_of(v[x[2]]))) {
            b->st->degenerate_dropped++;
            continue;
        }
        uint32_t mat, vi[3];
        ok = material_of(b, x[3], &mat);
        for (int c = 0; c < 3 && ok; c++) {
            if (remap[x[c]] == UINT32_MAX)
                ok = sink_vertex(b, s, v[x[c]], &remap[x[c]]);
            vi[c] = remap[x[c]];
        }
        if (ok)
            ok = sink_triangle(b, s, vi[0], vi[1], vi[2], mat);
        if (ok && written)
            (*written)++;
    }
    free(remap);
    return ok;
}

/* Adds brush `br` as a closed shell to s, less its hidden faces when
 * `cull` (cut by b->cut_brush). *made is 1 if it had volume. With
 * `measure`, nothing is added: box[0], box[1] get the brush's bounds. */
static int brush_shell(bsp *b, uint32_t br, sink *s, int *made, int cull, int measure, double box[2][3])
{
    const uint8_t *r = record(b, L_BRUSHES, br);
    uint32_t first = (uint32_t)i32_at(r), n = (uint32_t)i32_at(r + 4);
    *made = 0;
    if (n < 4)
        return 1;
    const uint32_t cap = 2 * n + 8; /* points a side's polygon may reach */
    if (!grow_scratch(b, (void **)&b->pts, &b->pts_cap, (n + 2) * cap, sizeof b->pts[0]))
        return 0;
    uint32_t *counts = calloc(n, sizeof *counts), *keep = calloc(n, sizeof *keep);
    if (!counts || !keep) {
        free(counts), free(keep);
        return out_of_memory(b);
    }
    /* Sides on the same plane as an earlier side add nothing. */
    for (uint32_t i = 0; i < n; i++) {
        const plane *pi = side_plane(b, first, i);
        keep[i] = 1;
        for (uint32_t j = 0; j < i && keep[i]; j++) {
            const plane *pj = side_plane(b, first, j);
            if (keep[j] && dot3(pi->n, pj->n) >= PARALLEL_DOT && fabs(pi->d - pj->d) <= SWEEP_BSP_PLANE_EPSILON)
                keep[i] = 0;
        }
    }
    int ok = clip_sides(b, br, first, n, keep, cap, counts);
    if (ok && merge_coplanar(b, first, n, keep, cap, counts))
        ok = clip_sides(b, br, first, n, keep, cap, counts);
    /* Weld every corner, then build each face's ring of corner ids. */
    uint32_t nverts = 0, nt = 0;
    uint32_t *ids = NULL;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += counts[i];
    if (ok && !(ids = malloc((total ? total : 1) * sizeof *ids)))
        ok = out_of_memory(b);
    for (uint32_t i = 0, at = 0; i < n && ok; at += counts[i], i++)
        for (uint32_t k = 0; k < counts[i] && ok; k++)
            ok = weld(b, &nverts, b->pts[(size_t)i * cap + k], &ids[at + k]);
    /* Each face's ring and its sorted corner ids (a face holds at most all
     * the corners), kept until all faces are known. */
    uint32_t corners = nverts, faces = 0, used = 0, face_cap = 0;
    uint32_t *face_side = ok ? malloc(n * sizeof *face_side) : NULL, *face_at = ok ? malloc(n * sizeof *face_at) : NULL;
    uint32_t *face_len = ok ? malloc(n * sizeof *face_len) : NULL, *face_ring = NULL, *face_ids = NULL;
    uint32_t *kept = ok ? malloc(n * sizeof *kept) : NULL, nkept = 0;
    if (ok && (!face_len || !face_side || !face_at || !kept))
        ok = out_of_memory(b);
    for (uint32_t i = 0, at = 0; i < n && ok; at += counts[i], i++) {
        if (counts[i] < 3)
            continue;
        /* Room for every corner of the brush on each edge of this face. */
        if (!(ok = grow_scratch(b, (void **)&b->ring, &b->ring_cap, counts[i] * (corners + 1) + 1,
                                sizeof b->ring[0])))
            break;
        uint32_t k = 0;
        for (uint32_t e = 0; e < counts[i]; e++) {
            uint32_t u = ids[at + e], v = ids[at + (e + 1) % counts[i]];
            if (k == 0 || b->ring[k - 1] != u)
                b->ring[k++] = u;
            if (u == v)
                continue;
            /* Corners of other faces lying on this edge go into it, in
             * order along it, so that both faces of the edge agree. */
            const double *pu = b->verts[u], *pv = b->verts[v];
            double d[3] = {pv[0] - pu[0], pv[1] - pu[1], pv[2] - pu[2]}, len2 = dot3(d, d);
            uint32_t k0 = k;
            for (uint32_t w = 0; w < corners; w++) {
                if (w == u || w == v)
                    continue;
                const double *pw = b->verts[w];
                double q[3] = {pw[0] - pu[0], pw[1] - pu[1], pw[2] - pu[2]}, t = dot3(q, d) / len2;
                if (!(t > 0.0 && t < 1.0))
                    continue;
                double x[3] = {q[0] - t * d[0], q[1] - t * d[1], q[2] - t * d[2]};
                if (dot3(x, x) > SWEEP_BSP_WELD_EPSILON * SWEEP_BSP_WELD_EPSILON)
                    continue;
                uint32_t pos = k;
                while (pos > k0) {
                    const double *pp = b->verts[b->ring[pos - 1]];
                    double qp[3] = {pp[0] - pu[0], pp[1] - pu[1], pp[2] - pu[2]};
                    if (dot3(qp, d) / len2 <= t)
                        break;
                    b->ring[pos] = b->ring[pos - 1];
                    pos--;
                }
                b->ring[pos] = w;
                k++;
            }
        }
        while (k > 1 && b->ring[k - 1] == b->ring[0])
            k--;
        if (k < 3)
            continue;
        uint32_t cap0 = face_cap;
        if (!(ok = grow_scratch(b, (void **)&face_ring, &face_cap, used + k, sizeof *face_ring)))
            break;
        if (!(ok = grow_scratch(b, (void **)&face_ids, &cap0, used + k, sizeof *face_ids)))
            break;
        uint32_t *mine = face_ids + used;
        for (uint32_t e = 0; e < k; e++) {
            uint32_t x = b->ring[e], pos = e;
            while (pos > 0 && mine[pos - 1] > x)
                mine[pos] = mine[pos - 1], pos--;
            mine[pos] = x;
        }
        memcpy(face_ring + used, b->ring, k * sizeof *b->ring);
        face_side[faces] = i, face_at[faces] = used, face_len[faces++] = k;
        used += k;
    }
    /* A face all of whose corners are corners of another face lies in it:
     * two planes crossing inside a sliver thinner than the weld. It is
     * kept once, as the larger face (the first of equal ones). */
    for (uint32_t f = 0; f < faces && ok; f++) {
        int inside = 0;
        for (uint32_t g = 0; g < faces && !inside; g++) {
            if (g == f || face_len[g] < face_len[f] || (face_len[g] == face_len[f] && g > f))
                continue;
            const uint32_t *a = face_ids + face_at[f], *c = face_ids + face_at[g];
            uint32_t x = 0, y = 0;
            while (x < face_len[f] && y < face_len[g])
                if (a[x] == c[y])
                    x++, y++;
                else if (a[x] > c[y])
                    y++;
                else
                    break;
            inside = x == face_len[f];
        }
        if (inside)
            continue;
        kept[nkept++] = f;
        const uint8_t *sd = record(b, L_BRUSHSIDES, first + face_side[f]);
        memcpy(b->ring, face_ring + face_at[f], face_len[f] * sizeof *b->ring);
        ok = fan_face(b, face_len[f], b->planes[i32_at(sd)].n, (uint32_t)i32_at(sd + 4), &nverts, &nt);
    }
    /* A shell of no volume (a flat brush, or one cut away to nothing) is
     * no solid. */
    double vol = 0.0;
    for (uint32_t t = 0; t < nt && ok; t++) {
        const uint32_t *x = &b->tris[4 * t];
        double c[3];
        cross3(b->verts[x[1]], b->verts[x[2]], c);
        vol += dot3(b->verts[x[0]], c) / 6.0;
    }
    int solid = ok && nt >= 4 && vol > MIN_VOLUME;
    if (solid && measure) {
        for (int i = 0; i < 3; i++)
            box[0][i] = INFINITY, box[1][i] = -INFINITY;
        for (uint32_t t = 0; t < 3 * nt; t++)
            for (int i = 0; i < 3; i++) {
                double x = b->verts[b->tris[4 * (t / 3) + t % 3]][i];
                box[0][i] = fmin(box[0][i], x), box[1][i] = fmax(box[1][i], x);
            }
        *made = 1;
    }
    /* The faces again, cut: a face nothing cut is fanned as above, the
     * pieces of one that was cut are welded and fanned one by one. */
    if (solid && cull && !measure) {
        uint32_t whole = nt;
        nt = 0;
        for (uint32_t i = 0; i < nkept && ok; i++) {
            uint32_t f = kept[i], which;
            const uint8_t *sd = record(b, L_BRUSHSIDES, first + face_side[f]);
            const plane *pf = &b->planes[i32_at(sd)];
            uint32_t sh = (uint32_t)i32_at(sd + 4);
            int cut;
            /* a face that meets no space a body can be in goes whole */
            if (!(ok = grow_scratch(b, (void **)&b->work, &b->work_cap, face_len[f], sizeof b->work[0])))
                break;
            for (uint32_t e = 0; e < face_len[f]; e++)
                memcpy(b->work[e], b->verts[face_ring[face_at[f] + e]], sizeof b->work[0]);
            if (!faces_open_space(b, (const double(*)[3])b->work, face_len[f], &ok) || !ok)
                continue;
            if (!(ok = cut_face(b, br, pf, face_ring + face_at[f], face_len[f], &which, &cut)))
                break;
            uint32_t before = nt, faces_before = b->faces.count, points_before = b->faces.points;
            memcpy(b->ring, face_ring + face_at[f], face_len[f] * sizeof *b->ring);
            if (!(ok = fan_face(b, face_len[f], pf->n, sh, &nverts, &nt)))
                break;
            if (!cut) {
                ok = keep_face(b, face_len[f], pf, sh);
                continue;
            }
            /* The pieces, unless they take more triangles than the whole
             * face (a small hole in a large face): what costs the core is
             * the triangles a move meets, not the area. */
            uint32_t whole_face = nt - before;
            nt = before;
            const polys *l = &b->frag[which];
            for (uint32_t g = 0; g < l->n && ok; g++) {
                if (!(ok = grow_scratch(b, (void **)&b->ring, &b->ring_cap, l->len[g], sizeof b->ring[0])))
                    break;
                if (!faces_open_space(b, (const double(*)[3])(l->p + l->at[g]), l->len[g], &ok) || !ok)
                    continue;
                uint32_t k = 0;
                for (uint32_t e = 0; e < l->len[g] && ok; e++) {
                    uint32_t id;
                    /* weld() may grow b->verts, never l */
                    ok = weld(b, &nverts, l->p[l->at[g] + e], &id);
                    if (ok && (k == 0 || b->ring[k - 1] != id))
                        b->ring[k++] = id;
                }
                while (k > 1 && b->ring[k - 1] == b->ring[0])
                    k--;
                if (ok && k >= 3)
                    ok = fan_face(b, k, pf->n, sh, &nverts, &nt) && keep_face(b, k, pf, sh);
            }
            if (ok && nt - before > whole_face) {
                nt = before;
                b->faces.count = faces_before, b->faces.points = points_before;
                memcpy(b->ring, face_ring + face_at[f], face_len[f] * sizeof *b->ring);
                ok = fan_face(b, face_len[f], pf->n, sh, &nverts, &nt) && keep_face(b, face_len[f], pf, sh);
            }
        }
        b->hidden_net += (int64_t)whole - (int64_t)nt;
    }
    free(ids);
    free(face_len);
    free(face_ids);
    free(face_side);
    free(face_at);
    free(face_ring);
    free(kept);
    free(counts);
    free(keep);
    if (!ok)
        return 0;
    if (!solid || measure)
        return 1;
    if (cull && b->merging) {
        /* the faces wait for the model's other brushes (emit_merged) */
        for (uint32_t t = 0; t < nt; t++) {
            const uint32_t *x = &b->tris[4 * t];
            b->merge_before +=
                !sweep_triangle_is_degenerate(v3_of(b->verts[x[0]]), v3_of(b->verts[x[1]]), v3_of(b->verts[x[2]]));
        }
        *made = 1;
        return 1;
    }
    ok = write_triangles(b, s, b->verts, nverts, b->tris, nt, NULL);
    *made = ok;
    return ok;
}

/* ------------------------------------------------------------------------
 * Patches
 */

/* Quadratic Bernstein weights at u. */
static void bernstein(double u, double w[3])
{
    double v = 1.0 - u;
    w[0] = v * v, w[1] = 2.0 * u * v, w[2] = u * u;
}

static double norm_of(double x, double y, double z)
{
    return sqrt(x * x + y * y + z * z);
}

/* The point of block (jx, jy) of a patch at (u, v), summed as the grid of
 * patch_face sums it, so that a corner comes out the same. */
static void patch_point(const double *cp, int64_t w, uint32_t jx, uint32_t jy, double u, double v, double p[3])
{
    double wu[3], wv[3];
    bernstein(u, wu);
    bernstein(v, wv);
    p[0] = p[1] = p[2] = 0.0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            const double *q = &cp[3 * ((2 * (size_t)jy + a) * (size_t)w + 2 * (size_t)jx + c)];
            for (int k = 0; k < 3; k++)
                p[k] += wv[a] * wu[c] * q[k];
        }
}

/* Distance from p to the triangle (a, b, c): the closest point as in
 * Ericson, "Real-Time Collision Detection" (2005), 5.1.5. */
static double point_triangle_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return norm_of(ap[0], ap[1], ap[2]);
    double bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return norm_of(bp[0], bp[1], bp[2]);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double t = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + t * ab[k];
        return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return norm_of(cp[0], cp[1], cp[2]);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double t = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + t * ac[k];
        return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + t * (c[k] - b[k]);
        return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    }
    double den = va + vb + vc;
    if (!(den > 0)) /* a degenerate triangle: its nearest corner will do */
        return norm_of(ap[0], ap[1], ap[2]);
    double v = vb / den, t = vc / den;
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + v * ab[k] + t * ac[k];
    return norm_of(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/*
 * How far a block's piecewise-linear interpolant on an m x n grid of its
 * parameters (each cell split along the diagonal patch_face uses) is from
 * the block, at most, point for point:
 *     a / m^2 + b / n^2 + c / (m n)
 * (the interpolation error of a tensor-product surface, split into its
 * parts as in de Boor, "A Practical Guide to Splines"): a is the most a
 * u-curve's midpoint strays from its chord, |P0 - 2 P1 + P2| / 4 for the
 * control rows (a quadratic's second derivative is constant, and linear
 * interpolation errs by at most |C''| h^2 / 8 on a step h); b the same
 * along v; c the largest twist |P(a+1,c+1) - P(a+1,c) - P(a,c+1) + P(a,c)|
 * of the control grid, which bounds what the diagonal split of a cell adds
 * to bilinear interpolation (a quarter of the cell's twist, at most
 * 4 c / (m n)). This is a distance between points of the same parameters,
 * so it also counts how unevenly the parameters run along the surface,
 * which moves no point off the surface: used for the tessellation itself
 * it cuts far more than needed, so it only bounds what lies between the
 * samples of patch_error.
 */
typedef struct patch_block {
    double a, b, c;
} patch_block;

static double patch_bound(const patch_block *k, double m, double n)
{
    return k->a / (m * m) + k->b / (n * n) + k->c / (m * n);
}

static void patch_block_of(const double *cp, int64_t w, uint32_t jx, uint32_t jy, patch_block *k)
{
#define CP(r, col) (&cp[3 * ((2 * (size_t)jy + (r)) * (size_t)w + 2 * (size_t)jx + (col))])
    k->a = k->b = k->c = 0.0;
    for (int i = 0; i < 3; i++) {
        const double *p0 = CP(i, 0), *p1 = CP(i, 1), *p2 = CP(i, 2);
        double d = norm_of(p0[0] - 2 * p1[0] + p2[0], p0[1] - 2 * p1[1] + p2[1], p0[2] - 2 * p1[2] + p2[2]) / 4;
        k->a = d > k->a ? d : k->a;
        p0 = CP(0, i), p1 = CP(1, i), p2 = CP(2, i);
        d = norm_of(p0[0] - 2 * p1[0] + p2[0], p0[1] - 2 * p1[1] + p2[1], p0[2] - 2 * p1[2] + p2[2]) / 4;
        k->b = d > k->b ? d : k->b;
    }
    for (int r = 0; r < 2; r++)
        for (int col = 0; col < 2; col++) {
            const double *p00 = CP(r, col), *p01 = CP(r, col + 1), *p10 = CP(r + 1, col), *p11 = CP(r + 1, col + 1);
            double d = norm_of(p11[0] - p10[0] - p01[0] + p00[0], p11[1] - p10[1] - p01[1] + p00[1],
                               p11[2] - p10[2] - p01[2] + p00[2]);
            k->c = d > k->c ? d : k->c;
        }
#undef CP
}

/* Samples per cell side when measuring a tessellation's error. */
#define PATCH_SAMPLES 4

/*
 * The most block (jx, jy) (its bounds k) can be from its tessellation
 * into nu x nv cells. Each cell is sampled on a lattice of
 * PATCH_SAMPLES + 1 points a side, and each sample's distance taken to the
 * cell's triangle its parameters fall in (to both on the diagonal). The
 * samples' own triangles (the lattice split along the same diagonal) lie
 * each within one of the cell's triangles, so by convexity of the
 * distance to a triangle no point of a sample triangle is farther from it
 * than its corners; and no point of the surface is farther from the
 * sample triangles than patch_bound on the lattice. Their sum is the
 * block's error, a bound, not an estimate. The distance is to a triangle,
 * not to the point of the same parameters, so a curve whose control points
 * lie unevenly along a straight line costs nothing (Quake 3's renderer
 * measures curves off their chords for the same reason).
 */
static double patch_error(const double *cp, int64_t w, uint32_t jx, uint32_t jy, const patch_block *k, uint32_t nu,
                          uint32_t nv)
{
    const uint32_t K = PATCH_SAMPLES;
    double worst = 0.0;
    for (uint32_t j = 0; j < nv; j++)
        for (uint32_t i = 0; i < nu; i++) {
            double c00[3], c10[3], c11[3], c01[3];
            patch_point(cp, w, jx, jy, (double)i / nu, (double)j / nv, c00);
            patch_point(cp, w, jx, jy, (double)(i + 1) / nu, (double)j / nv, c10);
            patch_point(cp, w, jx, jy, (double)(i + 1) / nu, (double)(j + 1) / nv, c11);
            patch_point(cp, w, jx, jy, (double)i / nu, (double)(j + 1) / nv, c01);
            for (uint32_t t = 0; t <= K; t++)
                for (uint32_t s = 0; s <= K; s++) {
                    double p[3], d = 0.0;
                    patch_point(cp, w, jx, jy, ((double)i + (double)s / K) / nu, ((double)j + (double)t / K) / nv, p);
                    /* the triangles (00, 10, 11) for s >= t, (00, 11, 01) for s <= t */
                    if (s >= t)
                        d = point_triangle_distance(p, c00, c10, c11);
                    if (s <= t)
                        d = fmax(d, point_triangle_distance(p, c00, c11, c01));
                    worst = d > worst ? d : worst;
                }
        }
    return worst + patch_bound(k, (double)nu * K, (double)nv * K);
}

/*
 * Steps across each block column (nu[jx]) and block row (nv[jy]) of a
 * patch of bx x by blocks, so that every block is within tol of its
 * tessellation (patch_error). A whole column (row) of the patch is cut
 * alike, so two blocks sharing an edge split it at the same points and
 * share its vertices (Quake 3's collision model cuts its patch grids by
 * whole columns and rows for the same reason). Each block, in order, whose
 * error exceeds tol has its column or row cut once more, whichever leaves
 * the smaller error (the column on a tie), until it fits; passes repeat
 * until one changes nothing, since cutting a block's column anew need not
 * lower another block's error. At most SWEEP_BSP_PATCH_MAX_STEPS steps a
 * block, whatever the tolerance. tol <= 0: every block
 * SWEEP_BSP_PATCH_LEVEL steps each way, the fixed tessellation.
 */
static void patch_steps(const double *cp, int64_t w, uint32_t bx, uint32_t by, double tol, uint32_t *nu,
                        uint32_t *nv)
{
    for (uint32_t j = 0; j < bx; j++)
        nu[j] = tol > 0 ? 1 : SWEEP_BSP_PATCH_LEVEL;
    for (uint32_t j = 0; j < by; j++)
        nv[j] = tol > 0 ? 1 : SWEEP_BSP_PATCH_LEVEL;
    if (!(tol > 0))
        return;
    const uint32_t M = SWEEP_BSP_PATCH_MAX_STEPS;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t jy = 0; jy < by; jy++)
            for (uint32_t jx = 0; jx < bx; jx++) {
                patch_block k;
                patch_block_of(cp, w, jx, jy, &k);
                double e = patch_error(cp, w, jx, jy, &k, nu[jx], nv[jy]);
                while (e > tol && (nu[jx] < M || nv[jy] < M)) {
                    double eu = nu[jx] < M ? patch_error(cp, w, jx, jy, &k, nu[jx] + 1, nv[jy]) : INFINITY;
                    double ev = nv[jy] < M ? patch_error(cp, w, jx, jy, &k, nu[jx], nv[jy] + 1) : INFINITY;
                    if (eu <= ev)
                        nu[jx]++, e = eu;
                    else
                        nv[jy]++, e = ev;
                    changed = 1;
                }
            }
    }
}

/* For each of the n[0] + ... + n[blocks - 1] + 1 grid lines along one
 * side of a patch: the block it is computed in and its parameter there (a
 * line on a seam belongs to the block after it, the last to the last
 * block, whose parameter is then 1). */
static void patch_lines(const uint32_t *n, uint32_t blocks, uint32_t *blk, double *t)
{
    uint32_t g = 0;
    for (uint32_t j = 0; j < blocks; j++)
        for (uint32_t k = 0; k < n[j]; k++, g++)
            blk[g] = j, t[g] = (double)k / n[j];
    blk[g] = blocks - 1, t[g] = 1.0;
}

/* Checks face f and, if it is a player-solid patch, tessellates it into s
 * (patch_steps says how finely). */
static int patch_face(bsp *b, uint32_t f, sink *s)
{
    const uint8_t *r = record(b, L_FACES, f);
    if (i32_at(r + 8) != FACE_PATCH)
        return 1;
    int64_t sh = i32_at(r);
    if (!check_index(b, L_FACES, f, "shader", sh, L_SHADERS))
        return 0;
    if (!(b->shaders[sh].contents & PLAYER_SOLID))
        return 1;
    int64_t first = i32_at(r + 12), nv = i32_at(r + 16), w = i32_at(r + 96), h = i32_at(r + 100);
    if (w < 3 || h < 3 || w > MAX_PATCH_SIDE || h > MAX_PATCH_SIDE || w % 2 == 0 || h % 2 == 0)
        return fail(b, LUMP_FMT ": record %u: a patch of %lld x %lld control points (each must be odd, 3 to %d)",
                    LUMP_ARG(L_FACES), f, (long long)w, (long long)h, MAX_PATCH_SIDE);
    if (nv != w * h)
        return fail(b, LUMP_FMT ": record %u: a patch of %lld x %lld control points has %lld vertices",
                    LUMP_ARG(L_FACES), f, (long long)w, (long long)h, (long long)nv);
    if (!check_range(b, L_FACES, f, "vertices", first, nv, L_VERTEXES))
        return 0;
    double *cp = malloc((size_t)nv * 3 * sizeof *cp);
    if (!cp)
        return out_of_memory(b);
    for (int64_t i = 0; i < nv; i++) {
        const uint8_t *v = record(b, L_VERTEXES, (uint32_t)(first + i));
        for (int k = 0; k < 3; k++)
            cp[3 * i + k] = f32_at(v + 4 * k);
        if (!check_finite(b, L_VERTEXES, (uint32_t)(first + i), "a position", &cp[3 * i], 3)) {
            free(cp);
            return 0;
        }
    }
    const uint32_t bx = (uint32_t)(w - 1) / 2, by = (uint32_t)(h - 1) / 2;
    uint32_t *su = malloc(((size_t)bx + by) * sizeof *su), *sv = su ? su + bx : NULL;
    if (!su) {
        free(cp);
        return out_of_memory(b);
    }
    patch_steps(cp, w, bx, by, b->patch_tolerance, su, sv);
    uint32_t gw = 1, gh = 1;
    for (uint32_t j = 0; j < bx; j++)
        gw += su[j];
    for (uint32_t j = 0; j < by; j++)
        gh += sv[j];
    uint32_t *grid = malloc((size_t)gw * gh * sizeof *grid);
    double (*gp)[3] = malloc((size_t)gw * gh * sizeof *gp);
    uint32_t *colblk = malloc(((size_t)gw + gh) * sizeof *colblk);
    double *colu = malloc(((size_t)gw + gh) * sizeof *colu);
    uint32_t mat;
    int ok = grid && gp && colblk && colu && material_of(b, (uint32_t)sh, &mat);
    if (!grid || !gp || !colblk || !colu)
        ok = out_of_memory(b);
    uint32_t *rowblk = colblk ? colblk + gw : NULL;
    double *rowv = colu ? colu + gw : NULL;
    if (ok) {
        patch_lines(su, bx, colblk, colu);
        patch_lines(sv, by, rowblk, rowv);
    }
    /* Each grid point once, from the block it lies in (a point on a
     * block's edge takes the weights 1, 0, 0 of either block, so it is the
     * same control point exactly). */
    for (uint32_t gy = 0; gy < gh && ok; gy++) {
        uint32_t jy = rowblk[gy];
        double wv[3];
        bernstein(rowv[gy], wv);
        for (uint32_t gx = 0; gx < gw; gx++) {
            uint32_t jx = colblk[gx];
            double wu[3], p[3] = {0, 0, 0};
            bernstein(colu[gx], wu);
            for (int a = 0; a < 3; a++)
                for (int c = 0; c < 3; c++) {
                    const double *q = &cp[3 * ((2 * jy + a) * (size_t)w + 2 * jx + c)];
                    for (int k = 0; k < 3; k++)
                        p[k] += wv[a] * wu[c] * q[k];
                }
            memcpy(gp[(size_t)gy * gw + gx], p, sizeof p);
            grid[(size_t)gy * gw + gx] = UINT32_MAX;
        }
    }
    uint32_t before = s->triangles;
    for (uint32_t gy = 0; gy + 1 < gh && ok; gy++)
        for (uint32_t gx = 0; gx + 1 < gw && ok; gx++) {
            size_t q[4] = {(size_t)gy * gw + gx, (size_t)gy * gw + gx + 1, (size_t)(gy + 1) * gw + gx + 1,
                           (size_t)(gy + 1) * gw + gx};
            static const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
            for (int t = 0; t < 2 && ok; t++) {
                size_t a = q[tri[t][0]], c1 = q[tri[t][1]], c2 = q[tri[t][2]];
                if (sweep_triangle_is_degenerate(v3_of(gp[a]), v3_of(gp[c1]), v3_of(gp[c2]))) {
                    b->st->degenerate_dropped += 2;
                    continue;
                }
                size_t id[3] = {a, c1, c2};
                for (int c = 0; c < 3 && ok; c++)
                    if (grid[id[c]] == UINT32_MAX)
                        ok = sink_vertex(b, s, gp[id[c]], &grid[id[c]]);
                /* both windings: a patch is hit from either side */
                ok = ok && sink_triangle(b, s, grid[a], grid[c1], grid[c2], mat) &&
                     sink_triangle(b, s, grid[a], grid[c2], grid[c1], mat);
            }
        }
    free(cp);
    free(su);
    free(grid);
    free(gp);
    free(colblk);
    free(colu);
    if (ok) {
        s->patches++;
        s->patch_triangles += s->triangles - before;
    }
    return ok;
}

/* The faces the model's brushes kept, merged across brushes where they
 * lie on one plane, face the same way, have the same shader and share an
 * edge (maps/face_merge.h), and triangulated into s. */
static int emit_merged(bsp *b, sink *s)
{
    if (!sweep__face_merge(&b->faces, SWEEP_BSP_MERGE_EPSILON, &b->mesh))
        return out_of_memory(b);
    const sweep__face_mesh *m = &b->mesh;
    int64_t written = 0;
    int ok = write_triangles(b, s, m->v, m->vertices, m->tri, m->triangles, &written);
    b->merge_net += b->merge_before - written;
    b->merge_before = 0;
    sweep__face_set_clear(&b->faces);
    return ok;
}

/* Every player-solid brush and patch of model m into s. */
static int model_geometry(bsp *b, uint32_t m, sink *s, uint32_t *solid, uint32_t *empty)
{
    const model *md = &b->models[m];
    const int cull = !(b->opt && b->opt->keep_hidden_faces);
    b->merging = cull && !(b->opt && b->opt->no_merge_faces);
    sweep__face_set_clear(&b->faces);
    b->merge_before = 0;
    b->in_world = m == 0;
    /* The model's solid brushes and their boxes first: they cut each
     * other's faces. */
    b->cut_count = 0;
    for (uint32_t i = 0; cull && i < md->brushes; i++) {
        uint32_t br = md->first_brush + i;
        int64_t sh = i32_at(record(b, L_BRUSHES, br) + 8);
        if (!(b->shaders[sh].contents & PLAYER_SOLID))
            continue;
        int made = 0;
        double box[2][3];
        if (!brush_shell(b, br, s, &made, 0, 1, box))
            return 0;
        if (!made)
            continue;
        uint32_t c0 = b->cut_cap, c1 = b->cut_cap;
        if (!grow_scratch(b, (void **)&b->cut_brush, &b->cut_cap, b->cut_count + 1, sizeof *b->cut_brush) ||
            !grow_scratch(b, (void **)&b->cut_lo, &c0, b->cut_count + 1, sizeof *b->cut_lo) ||
            !grow_scratch(b, (void **)&b->cut_hi, &c1, b->cut_count + 1, sizeof *b->cut_hi))
            return 0;
        b->cut_brush[b->cut_count] = br;
        memcpy(b->cut_lo[b->cut_count], box[0], sizeof box[0]);
        memcpy(b->cut_hi[b->cut_count++], box[1], sizeof box[1]);
    }
    for (uint32_t i = 0; i < md->brushes; i++) {
        uint32_t br = md->first_brush + i;
        int64_t sh = i32_at(record(b, L_BRUSHES, br) + 8);
        if (!(b->shaders[sh].contents & PLAYER_SOLID))
            continue;
        int made;
        if (!brush_shell(b, br, s, &made, cull, 0, NULL))
            return 0;
        if (solid)
            (*solid)++;
        if (!made && empty)
            (*empty)++;
    }
    if (b->merging && !emit_merged(b, s))
        return 0;
    for (uint32_t i = 0; i < md->faces; i++)
        if (!patch_face(b, md->first_face + i, s))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Movers
 */

/* Quake 3's move direction from "angle"/"angles": -1 up, -2 down,
 * otherwise the forward vector of (pitch, yaw, roll). */
static int ent_movedir(bsp *b, const entity *e, double dir[3])
{
    double ang[3] = {0, 0, 0};
    /* "angle" and "angles" both set the angles: the later one wins. */
    for (uint32_t i = 0; i < e->count; i++) {
        const keyval *kv = &b->kv[e->first + i];
        if (strcasecmp(kv->key, "angle") == 0) {
            double y;
            if (!parse_numbers(kv->value, &y, 1))
                return fail(b, ENT_FMT ": \"angle\" \"%s\" is not a finite number", ENT_ARG(b, e), kv->value);
            ang[0] = 0, ang[1] = y, ang[2] = 0;
        } else if (strcasecmp(kv->key, "angles") == 0) {
            if (!parse_numbers(kv->value, ang, 3))
                return fail(b, ENT_FMT ": \"angles\" \"%s\" is not three finite numbers", ENT_ARG(b, e), kv->value);
        }
    }
    if (ang[0] == 0 && ang[1] == -1 && ang[2] == 0) {
        dir[0] = 0, dir[1] = 0, dir[2] = 1;
    } else if (ang[0] == 0 && ang[1] == -2 && ang[2] == 0) {
        dir[0] = 0, dir[1] = 0, dir[2] = -1;
    } else {
        double p = ang[0] * (PI / 180.0), y = ang[1] * (PI / 180.0);
        dir[0] = cos(p) * cos(y), dir[1] = cos(p) * sin(y), dir[2] = -sin(p);
        /* cos(90 degrees) is 6e-17, not 0: keep axis-aligned doors exact */
        for (int k = 0; k < 3; k++)
            if (fabs(dir[k]) < 1e-12)
                dir[k] = 0.0;
    }
    return 1;
}

/* The box of model m (spread by one unit as Quake 3's collision model
 * does), placed at world offset `at`. */
static void model_box(const bsp *b, uint32_t m, const double at[3], double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = b->models[m].mins[k] - 1.0 + at[k];
        hi[k] = b->models[m].maxs[k] + 1.0 + at[k];
    }
}

/* A trigger box as the volume of mover mv: a player's centre inside the
 * box grown by its half box is its box touching the trigger. */
static void set_volume(sweep_level_mover *mv, const double lo[3], const double hi[3])
{
    static const double half[3] = {PLAYER_HALF_X, PLAYER_HALF_X, PLAYER_HALF_Z};
    mv->trigger = SWEEP_TRIGGER_VOLUME;
    mv->volume_min = sweep_v3(lo[0] - half[0], lo[1] - half[1], lo[2] - half[2]);
    mv->volume_max = sweep_v3(hi[0] + half[0], hi[1] + half[1], hi[2] + half[2]);
}

/* A mover with model m's geometry, its local origin at `pivot` (model
 * coordinates). *idx is its index, or UINT32_MAX (with a warning) when the
 * model has nothing solid. */
static int mover_begin(bsp *b, const entity *e, uint32_t m, const double pivot[3], uint32_t *idx)
{
    *idx = UINT32_MAX;
    char name[SWEEP_LEVEL_NAME_MAX];
    snprintf(name, sizeof name, "%.40s_%u", e->classname, m);
    if (sweep_level_find_mover(b->lv, name) != SWEEP_NO_MOVER)
        snprintf(name, sizeof name, "%.30s_%u_%u", e->classname, m, (uint32_t)(e - b->ents));
    uint32_t i;
    if (sweep_level_add_mover(b->lv, b->next_mover_id, name, &i) != SWEEP_OK)
        return out_of_memory(b);
    sink s = {.lv = b->lv, .mover = &b->lv->movers[i]};
    for (int k = 0; k < 3; k++)
        s.shift[k] = -pivot[k];
    if (!model_geometry(b, m, &s, NULL, NULL))
        return 0;
    b->st->patches += s.patches;
    if (s.triangles == 0) {
        sweep_level_mover *mv = &b->lv->movers[i];
        free(mv->vertices), free(mv->indices), free(mv->materials), free(mv->keys);
        b->lv->mover_count--;
        warn(b, "entity %u (%s, model *%u): nothing player-solid, no mover made", (uint32_t)(e - b->ents),
             e->classname, m);
        return 1;
    }
    b->next_mover_id++;
    *idx = i;
    return 1;
}

/* Drops mover idx (the last one made) again, with a warning, and puts its
 * model into the static geometry at `origin` instead. */
static int mover_abandon(bsp *b, const entity *e, uint32_t m, uint32_t idx, const double origin[3],
                         const char *why)
{
    sweep_level_mover *mv = &b->lv->movers[idx];
    free(mv->vertices), free(mv->indices), free(mv->materials), free(mv->keys);
    b->lv->mover_count--;
    b->next_mover_id--;
    warn(b, "entity %u (%s, model *%u): %s; kept as static geometry", (uint32_t)(e - b->ents), e->classname, m, why);
    sink s = {.lv = b->lv};
    memcpy(s.shift, origin, sizeof s.shift);
    if (!model_geometry(b, m, &s, NULL, NULL))
        return 0;
    b->st->patch_triangles += s.patch_triangles;
    b->st->patches += s.patches;
    return 1;
}

static int add_key(bsp *b, sweep_level_mover *mv, double t, const double p[3], sweep_quat q)
{
    if (mv->key_count >= SWEEP_MOVER_MAX_KEYFRAMES)
        return fail(b, "mover '%s' needs more than %u keyframes", mv->name, SWEEP_MOVER_MAX_KEYFRAMES);
    if (sweep_level_mover_add_keyframe(mv, t, sweep_v3(p[0], p[1], p[2]), q) != SWEEP_OK)
        return out_of_memory(b);
    return 1;
}

static void model_centre(const bsp *b, uint32_t m, double c[3])
{
    for (int k = 0; k < 3; k++)
        c[k] = 0.5 * (b->models[m].mins[k] + b->models[m].maxs[k]);
}

/* Which doors' trigger box a door shares: its "team", or itself. */
static int same_team(const bsp *b, const entity *a, const entity *c)
{
    if (a == c)
        return 1;
    const char *ta = ent_get(b, a, "team"), *tc = ent_get(b, c, "team");
    return ta && tc && *ta && strcmp(ta, tc) == 0 && is_class(c, "func_door");
}

/* func_door and func_button: slide from pos1 by the size along movedir. */
static int make_slider(bsp *b, const entity *e, uint32_t m, int button)
{
    double origin[3], dir[3], speed, wait, lip;
    long flags, health;
    if (!ent_origin(b, e, origin) || !ent_movedir(b, e, dir) || !ent_number(b, e, "speed", 0, &speed) ||
        !ent_number(b, e, "wait", 0, &wait) || !ent_number(b, e, "lip", button ? 4 : 8, &lip) ||
        !ent_int(b, e, "spawnflags", 0, &flags) || !ent_int(b, e, "health", 0, &health))
        return 0;
    /* Quake 3 takes 0 for "the default", and so do we for nonsense. */
    if (!(speed > 0))
        speed = button ? 40 : 400;
    if (wait == 0)
        wait = button ? 1 : 2;
    if (wait < 0)
        wait = 0; /* "-1: return at once" */
    double size = 0, c[3];
    for (int k = 0; k < 3; k++)
        size += fabs(dir[k]) * (b->models[m].maxs[k] - b->models[m].mins[k] + 2.0);
    double dist = size - lip, time = dist / speed;
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    if (!(dist > 0) || !(time <= SWEEP_MOVER_MAX_SECONDS) || !(wait <= SWEEP_MOVER_MAX_SECONDS))
        return mover_abandon(b, e, m, idx, origin, "it would not move (its lip, speed or wait)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    double p1[3], p2[3];
    for (int k = 0; k < 3; k++) {
        p1[k] = origin[k] + c[k];
        p2[k] = p1[k] + dist * dir[k];
    }
    if (!button && (flags & 1)) { /* START_OPEN: starts moved, closes when used */
        double t[3];
        memcpy(t, p1, sizeof t), memcpy(p1, p2, sizeof t), memcpy(p2, t, sizeof t);
    }
    if (!add_key(b, mv, 0.0, p1, sweep_quat_identity()) || !add_key(b, mv, time, p2, sweep_quat_identity()))
        return 0;
    mv->mode = SWEEP_MOVER_PINGPONG;
    mv->wait_end = wait;
    mv->blocked = button ? SWEEP_BLOCKED_STOP : (flags & 4) ? SWEEP_BLOCKED_CRUSH : SWEEP_BLOCKED_REVERSE;
    const char *tn = ent_get(b, e, "targetname");
    if (health) {
        mv->trigger = SWEEP_TRIGGER_COMMAND; /* shot open: the game says when */
    } else if (button) {
        mv->trigger = SWEEP_TRIGGER_TOUCH;
    } else if (tn && *tn) {
        /* Opened by whatever targets it: one trigger's box, or commands. */
        const entity *by = NULL;
        uint32_t n = 0, bm = 0;
        for (uint32_t i = 0; i < b->ent_count; i++) {
            const entity *t = &b->ents[i];
            const char *tg = ent_get(b, t, "target");
            if (tg && strcmp(tg, tn) == 0 &&
                (is_class(t, "trigger_multiple") || is_class(t, "trigger_once") || is_class(t, "func_button")))
                by = t, n++;
        }
        double to[3], lo[3], hi[3];
        if (n == 1 && (!ent_model(b, by, &bm) || !ent_origin(b, by, to)))
            return 0;
        if (n == 1 && bm) {
            model_box(b, bm, to, lo, hi);
            set_volume(mv, lo, hi);
            b->ents[by - b->ents].used = 1;
        } else {
            mv->trigger = SWEEP_TRIGGER_COMMAND;
        }
    } else {
        /* Quake 3's door trigger: the team's box where it starts, grown by
         * 120 units along its thinnest axis. */
        double lo[3], hi[3], at[3];
        for (int k = 0; k < 3; k++)
            at[k] = p1[k] - c[k];
        model_box(b, m, at, lo, hi);
        for (uint32_t i = 0; i < b->ent_count; i++) {
            const entity *t = &b->ents[i];
            uint32_t tm;
            double to[3], tl[3], th[3];
            if (t == e || !same_team(b, e, t))
                continue;
            if (!ent_model(b, t, &tm) || !ent_origin(b, t, to))
                return 0;
            if (!tm)
                continue;
            model_box(b, tm, to, tl, th);
            for (int k = 0; k < 3; k++)
                lo[k] = fmin(lo[k], tl[k]), hi[k] = fmax(hi[k], th[k]);
        }
        int thin = 0;
        for (int k = 1; k < 3; k++)
            if (hi[k] - lo[k] < hi[thin] - lo[thin])
                thin = k;
        lo[thin] -= 120.0, hi[thin] += 120.0;
        set_volume(mv, lo, hi);
    }
    return 1;
}

/* func_plat: rests `height` below where it is built, rises when touched. */
static int make_plat(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], speed, lip, height, c[3];
    if (!ent_origin(b, e, origin) || !ent_number(b, e, "speed", 200, &speed) || !ent_number(b, e, "lip", 8, &lip))
        return 0;
    if (!(speed > 0))
        speed = 200;
    if (ent_get(b, e, "height")) {
        if (!ent_number(b, e, "height", 0, &height))
            return 0;
    } else {
        height = b->models[m].maxs[2] - b->models[m].mins[2] + 2.0 - lip;
    }
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    double time = height / speed;
    if (!(height > 0) || !(time <= SWEEP_MOVER_MAX_SECONDS))
        return mover_abandon(b, e, m, idx, origin, "it would not move (its height, lip or speed)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    double top[3], bottom[3];
    for (int k = 0; k < 3; k++)
        top[k] = bottom[k] = origin[k] + c[k];
    bottom[2] -= height;
    if (!add_key(b, mv, 0.0, bottom, sweep_quat_identity()) || !add_key(b, mv, time, top, sweep_quat_identity()))
        return 0;
    mv->mode = SWEEP_MOVER_PINGPONG;
    mv->wait_end = 1.0;
    mv->blocked = SWEEP_BLOCKED_REVERSE;
    const char *tn = ent_get(b, e, "targetname");
    mv->trigger = tn && *tn ? SWEEP_TRIGGER_COMMAND : SWEEP_TRIGGER_TOUCH;
    return 1;
}

/* func_bobbing: a sine along one axis, sampled. */
static int make_bobbing(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], period, height, phase, c[3];
    long flags;
    if (!ent_origin(b, e, origin) || !ent_number(b, e, "speed", 4, &period) ||
        !ent_number(b, e, "height", 32, &height) || !ent_number(b, e, "phase", 0, &phase) ||
        !ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    if (!(period > 0) || !(period <= SWEEP_MOVER_MAX_SECONDS) || height == 0)
        return mover_abandon(b, e, m, idx, origin, "it would not move (its speed, the period, or height)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    int axis = (flags & 1) ? 0 : (flags & 2) ? 1 : 2;
    double p0[3];
    for (int i = 0; i <= SWEEP_BSP_BOB_SAMPLES; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = origin[k] + c[k];
        p[axis] += height * sin(2.0 * PI * ((double)i / SWEEP_BSP_BOB_SAMPLES - phase));
        if (i == 0)
            memcpy(p0, p, sizeof p0);
        if (i == SWEEP_BSP_BOB_SAMPLES)
            memcpy(p, p0, sizeof p); /* a loop ends exactly where it starts */
        if (!add_key(b, mv, period * i / SWEEP_BSP_BOB_SAMPLES, p, sweep_quat_identity()))
            return 0;
    }
    mv->mode = SWEEP_MOVER_LOOP;
    mv->trigger = SWEEP_TRIGGER_ALWAYS;
    mv->blocked = SWEEP_BLOCKED_CRUSH;
    return 1;
}

/* func_rotating: a whole turn about one axis through its origin. */
static int make_rotating(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], speed;
    long flags;
    static const double zero[3] = {0, 0, 0};
    if (!ent_origin(b, e, origin) || !ent_number(b, e, "speed", 100, &speed) ||
        !ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    if (speed == 0)
        speed = 100;
    uint32_t idx;
    if (!mover_begin(b, e, m, zero, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    const int steps = (int)ceil(360.0 / SWEEP_BSP_TURN_STEP_DEG);
    const double step = 360.0 / steps, dt = step / fabs(speed);
    if (!(dt * steps <= SWEEP_MOVER_MAX_SECONDS))
        return mover_abandon(b, e, m, idx, origin, "it turns too slowly (a turn would take over a day)");
    sweep_level_mover *mv = &b->lv->movers[idx];
    /* Quake 3: yaw (about z) by default, X_AXIS (4) rolls about x, Y_AXIS
     * (8) pitches about y; positive is counter-clockwise about the axis. */
    int axis = (flags & 4) ? 0 : (flags & 8) ? 1 : 2;
    double sign = speed < 0 ? -1.0 : 1.0;
    for (int i = 0; i <= steps; i++) {
        double half = 0.5 * sign * i * step * (PI / 180.0), v[3] = {0, 0, 0};
        v[axis] = sin(half);
        sweep_quat q = {v[0], v[1], v[2], cos(half)};
        if (i == steps)
            q = (sweep_quat){0, 0, 0, -1}; /* a whole turn, exactly */
        if (!add_key(b, mv, dt * i, origin, q))
            return 0;
    }
    mv->mode = SWEEP_MOVER_LOOP;
    mv->trigger = SWEEP_TRIGGER_ALWAYS;
    mv->blocked = SWEEP_BLOCKED_STOP;
    return 1;
}

/* The first path_corner named `name`, or NULL. */
static const entity *find_corner(const bsp *b, const char *name)
{
    for (uint32_t i = 0; name && i < b->ent_count; i++) {
        const entity *t = &b->ents[i];
        const char *tn = ent_get(b, t, "targetname");
        if (tn && strcmp(tn, name) == 0 && is_class(t, "path_corner"))
            return t;
    }
    return NULL;
}

/* func_train: around its path_corner chain, waiting at corners. */
static int make_train(bsp *b, const entity *e, uint32_t m)
{
    double origin[3], speed, c[3];
    if (!ent_origin(b, e, origin) || !ent_number(b, e, "speed", 100, &speed))
        return 0;
    if (!(speed > 0))
        speed = 100;
    model_centre(b, m, c);
    uint32_t idx;
    if (!mover_begin(b, e, m, c, &idx))
        return 0;
    if (idx == UINT32_MAX)
        return 1;
    const entity *start = find_corner(b, ent_get(b, e, "target"));
    if (!start)
        return mover_abandon(b, e, m, idx, origin, "its target names no path_corner");
    double t = 0.0, p0[3];
    uint32_t legs = 0;
    const entity *at = start;
    sweep_level_mover *mv = &b->lv->movers[idx];
    for (;;) {
        double here[3], there[3], wait, leg_speed;
        const entity *next = find_corner(b, ent_get(b, at, "target"));
        if (!next)
            return mover_abandon(b, e, m, idx, origin, "its path does not lead back to its first corner");
        if (!ent_origin(b, at, here) || !ent_origin(b, next, there) || !ent_number(b, at, "wait", 0, &wait) ||
            !ent_number(b, at, "speed", 0, &leg_speed))
            return 0;
        if (!(leg_speed > 0))
            leg_speed = speed;
        if (leg_speed < 1)
            leg_speed = 1; /* as Quake 3 */
        for (int k = 0; k < 3; k++)
            here[k] += c[k], there[k] += c[k];
        if (at == start) {
            memcpy(p0, here, sizeof p0);
            if (!add_key(b, mv, 0.0, here, sweep_quat_identity()))
                return 0;
        }
        if (wait > 0) {
            t += wait;
            if (!(t <= SWEEP_MOVER_MAX_SECONDS))
                return mover_abandon(b, e, m, idx, origin, "its path takes longer than a day");
            if (!add_key(b, mv, t, here, sweep_quat_identity()))
                return 0;
        }
        double d[3] = {there[0] - here[0], there[1] - here[1], there[2] - here[2]};
        double len = sqrt(dot3(d, d));
        if (next == start)
            memcpy(there, p0, sizeof there); /* a loop ends exactly where it starts */
        if (len > 0) {
            t += len / leg_speed;
            if (!(t <= SWEEP_MOVER_MAX_SECONDS))
                return mover_abandon(b, e, m, idx, origin, "its path takes longer than a day");
            if (!add_key(b, mv, t, there, sweep_quat_identity()))
                return 0;
        }
        if (next == start)
            break;
        if (++legs > b->ent_count)
            return mover_abandon(b, e, m, idx, origin, "its path does not lead back to its first corner");
        at = next;
    }
    if (mv->key_count < 2 || mv->keys[mv->key_count - 1].pose.position.x != p0[0] ||
        mv->keys[mv->key_count - 1].pose.position.y != p0[1] || mv->keys[mv->key_count - 1].pose.position.z != p0[2])
        return mover_abandon(b, e, m, idx, origin, "its path does not move it");
    mv->mode = SWEEP_MOVER_LOOP;
    mv->trigger = SWEEP_TRIGGER_ALWAYS;
    mv->blocked = SWEEP_BLOCKED_STOP;
    return 1;
}

/* ------------------------------------------------------------------------
 * Volumes: trigger_push, trigger_teleport, trigger_hurt and
 * trigger_multiple brush models
 * (core/volume.h). A volume holds player centres, so each brush of the
 * trigger's model is grown by the player box's half sizes: the centre is
 * inside the grown brush exactly when Quake 3's player box (centre 4
 * above its origin) touches the brush, short of the box's edge bevels,
 * which make the grown region a little larger at its edges.
 */

/* Quake 3's TeleportPlayer: the player's origin goes 1 unit above the
 * destination's and leaves at 400 units/s along its facing. */
#define TELEPORT_RAISE 1.0
#define TELEPORT_SPEED 400.0
/* trigger_hurt: "dmg" (default 5) every server frame of 100 ms it is
 * touched, or once a second with spawnflag 16 (SLOW); one touch of at
 * least 200 (the most health a Quake 3 player can have) kills. */
#define HURT_DEFAULT 5.0
#define HURT_PERIOD 0.1
#define HURT_SLOW 16
#define HURT_KILLS 200.0

/* The first entity whose targetname is name (Quake 3's G_PickTarget picks
 * one of them at random; a level names one). */
static const entity *find_target(const bsp *b, const char *name)
{
    if (!name || !*name)
        return NULL;
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const char *t = ent_get(b, &b->ents[i], "targetname");
        if (t && strcmp(t, name) == 0)
            return &b->ents[i];
    }
    return NULL;
}

/* The entity e's "target" names, or NULL after a warning that no `what`
 * was made of e (model m). */
static const entity *target_of(bsp *b, const entity *e, uint32_t m, const char *what)
{
    const char *tn = ent_get(b, e, "target");
    const entity *t = find_target(b, tn);
    if (t)
        b->ents[t - b->ents].used = 1;
    else
        warn(b, "entity %u (%s, model *%u): its target '%s' names no entity; no %s made", (uint32_t)(e - b->ents),
             e->classname, m, tn ? tn : "", what);
    return t;
}

/* Fills v's box and planes with brush k of model md (convex) grown by
 * half (each side pushed out by the half sizes along its normal) and
 * moved by o, in the box of the model's bounds grown likewise; `what`
 * names the brush in a warning. 0 if nothing is left of it. */
static int brush_region(bsp *b, const model *md, uint32_t k, const double half[3], const double o[3],
                        const char *what, sweep_volume *v)
{
    const uint8_t *r = record(b, L_BRUSHES, md->first_brush + k);
    uint32_t first = (uint32_t)i32_at(r), n = (uint32_t)i32_at(r + 4);
    if (n < 4)
        return 0;
    v->plane_count = 0;
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = md->mins[a] + o[a] - half[a];
        hi[a] = md->maxs[a] + o[a] + half[a];
    }
    for (uint32_t i = 0; i < n; i++) {
        const plane *p = side_plane(b, first, i);
        double grow = fabs(p->n[0]) * half[0] + fabs(p->n[1]) * half[1] + fabs(p->n[2]) * half[2];
        double d = p->d + p->n[0] * o[0] + p->n[1] * o[1] + p->n[2] * o[2] + grow;
        /* An axial side is the box's own: it tightens the box. */
        int axis = -1;
        for (int a = 0; a < 3; a++)
            if (fabs(p->n[a]) >= PARALLEL_DOT)
                axis = a;
        if (axis >= 0) {
            if (p->n[axis] > 0 && d < hi[axis])
                hi[axis] = d;
            else if (p->n[axis] < 0 && -d > lo[axis])
                lo[axis] = -d;
            continue;
        }
        if (v->plane_count == SWEEP_VOLUME_MAX_PLANES) {
            warn(b, "%s: a brush of more than %u slanted sides: the rest are left out, so its volume is a little "
                    "larger", what, SWEEP_VOLUME_MAX_PLANES);
            break;
        }
        v->planes[v->plane_count].normal = sweep_v3(p->n[0], p->n[1], p->n[2]);
        v->planes[v->plane_count].offset = d;
        v->plane_count++;
    }
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]))
        return 0;
    v->lo = sweep_v3(lo[0], lo[1], lo[2]);
    v->hi = sweep_v3(hi[0], hi[1], hi[2]);
    return 1;
}

/* Adds v, named name, as the level's next volume. */
static int add_volume(bsp *b, const char *name, const sweep_volume *v)
{
    sweep_status st = sweep_level_add_volume(b->lv, b->lv->volume_count + 1, name, v);
    if (st == SWEEP_E_NOMEM)
        return out_of_memory(b);
    if (st != SWEEP_OK)
        return fail(b, "more than %u volumes in the level", SWEEP_VOLUME_MAX);
    return 1;
}

/* One volume per brush of model m (each is convex), all like *proto, named
 * name: the brush's sides grown by the player's half sizes, in the box of
 * the model's bounds grown likewise (and moved by the entity's origin). */
static int add_trigger_volumes(bsp *b, const entity *e, uint32_t m, const sweep_volume *proto, const char *name)
{
    static const double half[3] = {PLAYER_HALF_X, PLAYER_HALF_X, PLAYER_HALF_Z};
    double o[3];
    if (!ent_origin(b, e, o))
        return 0;
    const model *md = &b->models[m];
    char what[96];
    snprintf(what, sizeof what, "entity %u (%s, model *%u)", (uint32_t)(e - b->ents), e->classname, m);
    uint32_t made = 0;
    for (uint32_t k = 0; k < md->brushes; k++) {
        sweep_volume v = *proto;
        if (!brush_region(b, md, k, half, o, what, &v))
            continue;
        if (!add_volume(b, name, &v))
            return 0;
        made++;
    }
    if (!made)
        warn(b, "entity %u (%s, model *%u): no brush with volume; no volume made", (uint32_t)(e - b->ents),
             e->classname, m);
    return 1;
}

/* trigger_push aimed at its target the way Quake 3's AimAtTarget aims it,
 * from the centre of the trigger's bounds, under gravity g: the flight
 * takes time = sqrt(height / (g / 2)) to rise to the target's height (its
 * top), covering the horizontal distance in that time. */
static int make_push(bsp *b, const entity *e, uint32_t m, double g)
{
    const entity *t = target_of(b, e, m, "jump pad");
    if (!t)
        return 1;
    double o[3], to[3];
    if (!ent_origin(b, e, o) || !ent_origin(b, t, to))
        return 0;
    const model *md = &b->models[m];
    double c[3];
    for (int a = 0; a < 3; a++)
        c[a] = 0.5 * (md->mins[a] + md->maxs[a]) + o[a];
    double height = to[2] - c[2];
    if (!(height > 0.0)) {
        warn(b, "entity %u (trigger_push, model *%u): its target is not above it (height %g); no jump pad made",
             (uint32_t)(e - b->ents), m, height);
        return 1;
    }
    double time = sqrt(height / (0.5 * g));
    double dx = to[0] - c[0], dy = to[1] - c[1];
    double dist = sqrt(dx * dx + dy * dy);
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_PUSH;
    v.facing = sweep_v3(1, 0, 0);
    v.velocity = dist > 0.0 ? sweep_v3(dx / dist * (dist / time), dy / dist * (dist / time), time * g)
                            : sweep_v3(0.0, 0.0, time * g);
    char name[SWEEP_LEVEL_NAME_MAX];
    snprintf(name, sizeof name, "trigger_push_%u", m);
    b->st->jump_pads++;
    return add_trigger_volumes(b, e, m, &v, name);
}

/* trigger_teleport to its misc_teleporter_dest (or any entity its target
 * names): the player box's centre 1 + 4 above the destination's origin,
 * facing its "angle" (yaw, degrees) or "angles" (pitch yaw roll), leaving
 * at 400 units/s along the horizontal facing, as Quake 3 sends it out. */
static int make_teleport(bsp *b, const entity *e, uint32_t m)
{
    const entity *t = target_of(b, e, m, "teleporter");
    if (!t)
        return 1;
    double to[3], yaw = 0.0, angles[3];
    static const double zero[3] = {0, 0, 0};
    if (!ent_origin(b, t, to) || !ent_number(b, t, "angle", 0.0, &yaw) || !ent_numbers(b, t, "angles", angles, 3, zero))
        return 0;
    if (ent_get(b, t, "angles"))
        yaw = angles[1];
    double r = yaw * (PI / 180.0);
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_TELEPORT;
    v.destination = sweep_v3(to[0], to[1], to[2] + TELEPORT_RAISE + PLAYER_CENTRE_UP);
    v.facing = sweep_v3(cos(r), sin(r), 0.0);
    v.exit_speed = TELEPORT_SPEED;
    v.keep_velocity = 0;
    char name[SWEEP_LEVEL_NAME_MAX];
    snprintf(name, sizeof name, "trigger_teleport_%u", m);
    b->st->teleporters++;
    return add_trigger_volumes(b, e, m, &v, name);
}

/* trigger_hurt: damage per second from "dmg" and its period; a touch
 * that takes more than any player's health is a kill volume. */
static int make_hurt(bsp *b, const entity *e, uint32_t m)
{
    double dmg;
    long flags;
    if (!ent_number(b, e, "dmg", HURT_DEFAULT, &dmg) || !ent_int(b, e, "spawnflags", 0, &flags))
        return 0;
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.facing = sweep_v3(1, 0, 0);
    char name[SWEEP_LEVEL_NAME_MAX];
    if (dmg >= HURT_KILLS) {
        v.kind = SWEEP_VOLUME_KILL;
        snprintf(name, sizeof name, "trigger_hurt_%u", m);
        b->st->kills++;
    } else if (dmg > 0.0) {
        v.kind = SWEEP_VOLUME_HURT;
        v.damage = dmg / ((flags & HURT_SLOW) ? 1.0 : HURT_PERIOD);
        snprintf(name, sizeof name, "trigger_hurt_%u", m);
        b->st->hurts++;
    } else {
        warn(b, "entity %u (trigger_hurt, model *%u): dmg %g hurts nobody; no volume made", (uint32_t)(e - b->ents),
             m, dmg);
        return 1;
    }
    return add_trigger_volumes(b, e, m, &v, name);
}

/* Liquids and ladders of the world model: a brush whose shader's
 * contents hold lava, slime or water is a liquid volume, the brush itself
 * (core/volume.h: a liquid is not grown), hurting as Quake 3's
 * P_WorldEffects does (lava 30, slime 10 a second at each depth level);
 * a brush with a side whose shader has SURF_LADDER is a ladder volume,
 * grown by the player's half sizes and LADDER_REACH (the unit ahead that
 * the ladder move of Quake 3's descendants traces), its normal that
 * side's across up. Volumes follow the triggers', in brush order. */
#define LADDER_REACH 1.0
#define LAVA_DAMAGE 30.0
#define SLIME_DAMAGE 10.0

static int do_liquids_and_ladders(bsp *b)
{
    static const double none[3] = {0, 0, 0};
    static const double ladder_half[3] = {PLAYER_HALF_X + LADDER_REACH, PLAYER_HALF_X + LADDER_REACH,
                                          PLAYER_HALF_Z + LADDER_REACH};
    if (b->count[L_MODELS] == 0)
        return 1;
    const model *md = &b->models[0];
    for (uint32_t k = 0; k < md->brushes; k++) {
        const uint8_t *r = record(b, L_BRUSHES, md->first_brush + k);
        uint32_t first = (uint32_t)i32_at(r), n = (uint32_t)i32_at(r + 4);
        uint32_t contents = b->shaders[i32_at(r + 8)].contents;
        char what[48];
        snprintf(what, sizeof what, "world brush %u", md->first_brush + k);
        sweep_volume v;
        memset(&v, 0, sizeof v);
        if (contents & CONTENTS_LIQUID) {
            /* Quake 3's point contents name lava before slime before water. */
            v.kind = SWEEP_VOLUME_LIQUID;
            v.liquid = contents & CONTENTS_LAVA    ? SWEEP_LIQUID_LAVA
                       : contents & CONTENTS_SLIME ? SWEEP_LIQUID_SLIME
                                                   : SWEEP_LIQUID_WATER;
            v.damage = v.liquid == SWEEP_LIQUID_LAVA ? LAVA_DAMAGE : v.liquid == SWEEP_LIQUID_SLIME ? SLIME_DAMAGE : 0.0;
            if (brush_region(b, md, k, none, none, what, &v)) {
                if (!add_volume(b, sweep_liquid_name(v.liquid), &v))
                    return 0;
                b->st->liquids++;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *side = record(b, L_BRUSHSIDES, first + i);
            if (!(b->shaders[i32_at(side + 4)].flags & SURF_LADDER))
                continue;
            const plane *p = side_plane(b, first, i);
            double h = sqrt(p->n[0] * p->n[0] + p->n[1] * p->n[1]);
            if (!(h > 1e-6)) {
                warn(b, "%s: its ladder side faces up or down; no ladder made", what);
                break;
            }
            memset(&v, 0, sizeof v);
            v.kind = SWEEP_VOLUME_LADDER;
            v.normal = sweep_v3(p->n[0] / h, p->n[1] / h, 0.0);
            if (brush_region(b, md, k, ladder_half, none, what, &v)) {
                if (!add_volume(b, "ladder", &v))
                    return 0;
                b->st->ladders++;
            }
            break;
        }
    }
    return 1;
}

/* trigger_multiple that opens no door (a door takes its trigger's box):
 * a trigger volume, which says when a player enters and leaves it, named
 * after what it fires (its "target"), for the game to act on as Quake 3
 * fires its targets; without a target, after its model. */
static int make_trigger(bsp *b, const entity *e, uint32_t m)
{
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_TRIGGER;
    v.facing = sweep_v3(1, 0, 0);
    const char *tn = ent_get(b, e, "target");
    char name[SWEEP_LEVEL_NAME_MAX];
    if (tn && *tn)
        snprintf(name, sizeof name, "%s", tn);
    else
        snprintf(name, sizeof name, "trigger_multiple_%u", m);
    b->st->triggers++;
    return add_trigger_volumes(b, e, m, &v, name);
}

/* Every trigger the level's volumes come from, in entity order (so the
 * volumes' ids follow the entities'). */
static int do_volumes(bsp *b, double g)
{
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const entity *e = &b->ents[i];
        int push = is_class(e, "trigger_push"), tele = is_class(e, "trigger_teleport"),
            hurt = is_class(e, "trigger_hurt"), trig = is_class(e, "trigger_multiple") && !e->used;
        if (!push && !tele && !hurt && !trig)
            continue;
        uint32_t m;
        if (!ent_model(b, e, &m))
            return 0;
        if (m == 0) {
            warn(b, "entity %u (%s) has no brush model; ignored", i, e->classname);
            continue;
        }
        int ok = push   ? make_push(b, e, m, g)
                 : tele ? make_teleport(b, e, m)
                 : hurt ? make_hurt(b, e, m)
                        : make_trigger(b, e, m);
        if (!ok)
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * The level
 */

/* The entity classes the importer turns into something (a spawn, static
 * geometry, a mover, a train's path, a volume, the level's gravity);
 * triggers that open a door are marked used where the door takes their
 * box, and the targets of jump pads and teleporters where they aim them. */
static const char *const handled_classes[] = {
    "worldspawn",  "info_player_deathmatch", "info_player_start", "func_static",  "func_door", "func_button",
    "func_plat",   "func_bobbing",           "func_rotating",     "func_train",   "path_corner",
    "trigger_push", "trigger_teleport",      "trigger_hurt",      "trigger_multiple"};

/* Names every other entity by class with its count, in one warning, so
 * that nothing the level holds is dropped without a word. */
static int warn_skipped(bsp *b)
{
    sweep__tally t = {0};
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const entity *e = &b->ents[i];
        int handled = e->used;
        for (size_t k = 0; !handled && k < sizeof handled_classes / sizeof handled_classes[0]; k++)
            handled = is_class(e, handled_classes[k]);
        if (!handled && !sweep__tally_add(&t, *e->classname ? e->classname : "(no classname)")) {
            sweep__tally_free(&t);
            return out_of_memory(b);
        }
    }
    if (t.total) {
        char list[400];
        sweep__tally_format(&t, list, sizeof list);
        warn(b, "skipped: %s (%u entit%s the importer does not turn into anything)", list, t.total,
             t.total == 1 ? "y" : "ies");
    }
    b->st->entities_skipped = t.total;
    sweep__tally_free(&t);
    return 1;
}

static int do_entities(bsp *b)
{
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const entity *e = &b->ents[i];
        if (is_class(e, "info_player_deathmatch") || is_class(e, "info_player_start")) {
            double o[3];
            if (!ent_origin(b, e, o))
                return 0;
            if (sweep_level_add_spawn(b->lv, sweep_v3(o[0], o[1], o[2] + SPAWN_RAISE + PLAYER_CENTRE_UP)) !=
                SWEEP_OK)
                return out_of_memory(b);
            b->st->spawns++;
            continue;
        }
        static const char *const brush_classes[] = {"func_static", "func_door",    "func_button", "func_plat",
                                                    "func_bobbing", "func_rotating", "func_train"};
        int cls = -1;
        for (int k = 0; k < (int)(sizeof brush_classes / sizeof brush_classes[0]); k++)
            if (is_class(e, brush_classes[k]))
                cls = k;
        if (cls < 0)
            continue;
        uint32_t m;
        if (!ent_model(b, e, &m))
            return 0;
        if (m == 0) {
            warn(b, "entity %u (%s) has no brush model; ignored", i, e->classname);
            continue;
        }
        int ok = 1;
        switch (cls) {
        case 0: {
            double o[3];
            sink s = {.lv = b->lv};
            ok = ent_origin(b, e, o);
            memcpy(s.shift, o, sizeof o);
            ok = ok && model_geometry(b, m, &s, NULL, NULL);
            b->st->patch_triangles += s.patch_triangles;
            b->st->patches += s.patches;
            b->st->static_models++;
            break;
        }
        case 1:
        case 2:
            ok = make_slider(b, e, m, cls == 2);
            break;
        case 3:
            ok = make_plat(b, e, m);
            break;
        case 4:
            ok = make_bobbing(b, e, m);
            break;
        case 5:
            ok = make_rotating(b, e, m);
            break;
        case 6:
            ok = make_train(b, e, m);
            break;
        }
        if (!ok)
            return 0;
    }
    return 1;
}

double sweep_bsp_rules(sweep_level *lv, double g, double h)
{
    const double slope = acos(0.7) * (180.0 / PI);
    lv->config.gravity = sweep_v3(0.0, 0.0, -g);
    lv->config.step_height = 18.0;
    lv->config.walkable_normal_up = sweep_cos_degrees(slope); /* what the loader will compute */
    lv->default_radii = sweep_v3(15.0, 15.0, 28.0);
    lv->tick_rate = 60.0;
    lv->rules.walk_speed = 320.0;
    lv->rules.ground_accel = 10.0 * 320.0;
    lv->rules.air_accel = 1.0 * 320.0;
    lv->rules.jump_speed = 270.0;
    lv->rules.max_step = 1.0 / 30.0;
    /* Quake 3's duck: the box's top comes down from 32 to 16 above the
     * origin, its bottom stays (the feet: core/stance.h keeps them too),
     * and the wish is scaled by pm_duckScale 0.25. */
    lv->rules.crouch_radii = sweep_v3(15.0, 15.0, 20.0);
    lv->rules.crouch_speed = 0.25 * 320.0;
    /* Falling from the top of the world to its bottom must not be capped
     * below what gravity gives; rounded up to 100 u/s. */
    double fall = h > 0 && g > 0 ? sqrt(2.0 * g * h) : 0.0;
    lv->rules.speed_limit = fall > 3000.0 ? 100.0 * ceil(fall / 100.0) : 3000.0;
    lv->config.max_speed = lv->rules.speed_limit;
    lv->correction_threshold = 8.0;
    /* Quake 3's water: pm_swimScale 0.5 of its speed, pm_wateraccelerate 4
     * (times the wished speed a second, as its PM_Accelerate adds it),
     * pm_waterfriction 1, sinking at 60 with no input, the water jump's
     * 350 up. Quake 3 has no ladder move: climbing at the swimming speed
     * with the ground's acceleration. */
    lv->rules.swim_speed = 0.5 * 320.0;
    lv->rules.swim_accel = 4.0 * 0.5 * 320.0;
    lv->rules.swim_drag = 1.0;
    lv->rules.swim_sink = 60.0;
    lv->rules.swim_jump = 350.0;
    lv->rules.climb_speed = 0.5 * 320.0;
    lv->rules.climb_accel = 10.0 * 320.0;
    return slope;
}

int sweep_bsp_is_input(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && (strcasecmp(path + n - 4, ".bsp") == 0 || strcasecmp(path + n - 4, ".pk3") == 0);
}

static void free_bsp(bsp *b)
{
    free(b->shaders), free(b->planes), free(b->models), free(b->text), free(b->kv), free(b->ents);
    free(b->pts), free(b->verts), free(b->ring), free(b->tris);
    free(b->cut_brush), free(b->cut_lo), free(b->cut_hi), free(b->work), free(b->tree_scratch);
    free(b->face_pts);
    sweep__face_set_free(&b->faces);
    sweep__face_mesh_free(&b->mesh);
    for (int i = 0; i < 2; i++)
        free(b->frag[i].p), free(b->frag[i].at), free(b->frag[i].len);
}

sweep_status sweep_import_bsp_memory(const void *data, size_t size, const char *label,
                                     const sweep_bsp_options *opt, sweep_level *out, sweep_bsp_stats *stats,
                                     char *err, size_t errlen)
{
    sweep_bsp_stats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    if (err && errlen)
        err[0] = '\0';
    if (!out || (!data && size))
        return SWEEP_E_ARG;
    sweep_level_init(out);
    double tol = opt ? opt->patch_tolerance : 0.0;
    if (tol == 0.0)
        tol = SWEEP_BSP_PATCH_TOLERANCE;
    else if (tol == SWEEP_BSP_PATCH_FIXED)
        tol = 0.0;
    else if (!(tol > 0.0 && tol <= 1e6)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: patch tolerance %g is not a positive number of units (at most 1e6)",
                     label ? label : "", tol);
        return SWEEP_E_ARG;
    }
    char msg[768] = "";
    bsp b = {.data = data, .size = size, .label = label ? label : "", .opt = opt, .lv = out, .st = stats,
             .patch_tolerance = tol, .err = msg, .errlen = sizeof msg, .next_mover_id = 1};
    int ok = read_header(&b) && read_shaders(&b) && read_planes(&b) && read_models(&b) && check_brushes(&b) &&
             read_tree(&b) && read_entities(&b);
    double g = 800.0;
    if (ok) {
        /* The world is model 0. */
        const entity *ws = b.ent_count ? &b.ents[0] : NULL;
        if (ws && is_class(ws, "worldspawn") && ent_get(&b, ws, "gravity")) {
            ok = ent_number(&b, ws, "gravity", 800.0, &g);
            if (ok && !(g > 0 && g <= 1000)) {
                warn(&b, "worldspawn gravity %g is outside (0, 1000]; using 800", g);
                g = 800.0;
            }
        }
        sink s = {.lv = out};
        stats->brushes = b.models[0].brushes;
        ok = ok && model_geometry(&b, 0, &s, &stats->brushes_solid, &stats->brushes_empty);
        stats->patch_triangles += s.patch_triangles;
        stats->patches += s.patches;
    }
    ok = ok && do_entities(&b) && do_volumes(&b, g) && do_liquids_and_ladders(&b) && warn_skipped(&b);
    if (ok && out->triangle_count == 0)
        ok = fail(&b, "the world model has no player-solid brush or patch: nothing to collide with");
    if (ok) {
        double h = b.models[0].maxs[2] - b.models[0].mins[2];
        stats->walkable_slope_deg = sweep_bsp_rules(out, g, h);
        stats->hidden_dropped = b.hidden_net > 0 ? (uint32_t)(b.hidden_net < UINT32_MAX ? b.hidden_net : UINT32_MAX) : 0;
        stats->merge_dropped = b.merge_net > 0 ? (uint32_t)(b.merge_net < UINT32_MAX ? b.merge_net : UINT32_MAX) : 0;
        stats->materials = out->material_count;
        stats->triangles = out->triangle_count;
        stats->movers = out->mover_count; /* the level started empty: all are the entities' */
        for (uint32_t i = 0; i < out->mover_count; i++)
            stats->mover_triangles += out->movers[i].triangle_count;
        /* The name: the file's, without folders or extension. */
        const char *base = strrchr(b.label, '/') ? strrchr(b.label, '/') + 1 : b.label;
        size_t n = strcspn(base, ".");
        if (n == 0)
            snprintf(out->name, sizeof out->name, "bsp");
        else
            snprintf(out->name, sizeof out->name, "%.*s", (int)(n < 63 ? n : 63), base);
    }
    int nomem = b.nomem;
    free_bsp(&b);
    if (!ok) {
        sweep_level_free(out);
        if (err && errlen)
            snprintf(err, errlen, "%s%s%s", label ? label : "", label ? ": " : "", msg);
        return nomem ? SWEEP_E_NOMEM : SWEEP_E_GEOMETRY;
    }
    return SWEEP_OK;
}

/* ------------------------------------------------------------------------
 * Files and .pk3 members
 */

static int is_zip(const uint8_t *head, size_t n)
{
    /* a local file header, or the end record of an empty zip */
    return n >= 4 && head[0] == 'P' && head[1] == 'K' &&
           ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6));
}

static void zip_message(int code, char *buf, size_t len)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    snprintf(buf, len, "%s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
}

static int has_bsp_ext(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcasecmp(name + n - 4, ".bsp") == 0;
}

static zip_t *open_zip(const char *path, char *err, size_t errlen)
{
    int code = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &code);
    if (!z) {
        char m[256];
        zip_message(code, m, sizeof m);
        snprintf(err, errlen, "%s: cannot open as a .pk3 (zip): %s", path, m);
    }
    return z;
}

int sweep_bsp_list(const char *path, char ***names, uint32_t *count, char *err, size_t errlen)
{
    *names = NULL;
    *count = 0;
    zip_t *z = open_zip(path, err, errlen);
    if (!z)
        return 0;
    zip_int64_t n = zip_get_num_entries(z, 0);
    char **out = calloc(n > 0 ? (size_t)n : 1, sizeof *out);
    if (!out) {
        zip_discard(z);
        snprintf(err, errlen, "out of memory");
        return 0;
    }
    uint32_t k = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || !has_bsp_ext(name))
            continue;
        if (!(out[k] = strdup(name))) {
            sweep_bsp_list_free(out, k);
            zip_discard(z);
            snprintf(err, errlen, "out of memory");
            return 0;
        }
        k++;
    }
    zip_discard(z);
    *names = out;
    *count = k;
    return 1;
}

void sweep_bsp_list_free(char **names, uint32_t count)
{
    for (uint32_t i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
}

/* Reads member (or the only .bsp) of the zip at path into *data. */
static sweep_status read_member(const char *path, const char *member, uint8_t **data, size_t *size, char *label,
                                size_t labellen, char *err, size_t errlen)
{
    zip_t *z = open_zip(path, err, errlen);
    if (!z)
        return SWEEP_E_GEOMETRY;
    zip_int64_t idx = -1;
    if (member) {
        idx = zip_name_locate(z, member, ZIP_FL_NOCASE);
    } else {
        zip_int64_t n = zip_get_num_entries(z, 0), found = 0;
        for (zip_int64_t i = 0; i < n; i++) {
            const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
            if (name && has_bsp_ext(name))
                idx = found++ ? idx : i;
            if (found > 1)
                break;
        }
        if (found != 1) {
            zip_discard(z);
            snprintf(err, errlen, "%s holds %s .bsp level: name one with --bsp maps/NAME.bsp (--list lists them)",
                     path, found ? "more than one" : "no");
            return SWEEP_E_GEOMETRY;
        }
    }
    if (idx < 0) {
        zip_discard(z);
        snprintf(err, errlen, "%s has no member '%s' (--list lists its levels)", path, member);
        return SWEEP_E_GEOMETRY;
    }
    const char *name = zip_get_name(z, (zip_uint64_t)idx, 0);
    snprintf(label, labellen, "%s:%s", path, name ? name : "?");
    zip_stat_t zs;
    if (zip_stat_index(z, (zip_uint64_t)idx, 0, &zs) != 0 || !(zs.valid & ZIP_STAT_SIZE)) {
        snprintf(err, errlen, "%s: cannot read the member's size: %s", label, zip_strerror(z));
        zip_discard(z);
        return SWEEP_E_GEOMETRY;
    }
    if (zs.size > MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s: %llu bytes is larger than any IBSP file can be", label,
                 (unsigned long long)zs.size);
        zip_discard(z);
        return SWEEP_E_GEOMETRY;
    }
    uint8_t *buf = malloc(zs.size ? (size_t)zs.size : 1);
    zip_file_t *f = buf ? zip_fopen_index(z, (zip_uint64_t)idx, 0) : NULL;
    if (!buf || !f) {
        if (buf)
            snprintf(err, errlen, "%s: cannot open the member: %s", label, zip_strerror(z));
        else
            snprintf(err, errlen, "out of memory");
        free(buf);
        zip_discard(z);
        return buf ? SWEEP_E_GEOMETRY : SWEEP_E_NOMEM;
    }
    zip_int64_t got = zip_fread(f, buf, zs.size);
    if (got < 0 || (zip_uint64_t)got != zs.size) {
        snprintf(err, errlen, "%s: reading the member failed: %s", label,
                 got < 0 ? zip_file_strerror(f) : "it is shorter than the zip says");
        zip_fclose(f);
        free(buf);
        zip_discard(z);
        return SWEEP_E_GEOMETRY;
    }
    zip_fclose(f);
    zip_discard(z);
    *data = buf;
    *size = (size_t)zs.size;
    return SWEEP_OK;
}

sweep_status sweep_import_bsp(const char *path, const sweep_bsp_options *opt, sweep_level *out,
                              sweep_bsp_stats *stats, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !out)
        return SWEEP_E_ARG;
    char dummy[8];
    if (!err || !errlen)
        err = dummy, errlen = sizeof dummy;
    sweep_level_init(out);
    if (stats)
        memset(stats, 0, sizeof *stats);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return SWEEP_E_GEOMETRY;
    }
    uint8_t head[4];
    size_t hn = fread(head, 1, sizeof head, f);
    const char *member = opt ? opt->member : NULL;
    if (member || is_zip(head, hn)) {
        fclose(f);
        if (!is_zip(head, hn)) {
            snprintf(err, errlen, "%s: --bsp %s was given, but the file is not a .pk3 (zip)", path, member);
            return SWEEP_E_GEOMETRY;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        char label[1024];
        sweep_status st = read_member(path, member, &data, &size, label, sizeof label, err, errlen);
        if (st != SWEEP_OK)
            return st;
        st = sweep_import_bsp_memory(data, size, label, opt, out, stats, err, errlen);
        free(data);
        return st;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        snprintf(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
        fclose(f);
        return SWEEP_E_GEOMETRY;
    }
    long len = ftell(f);
    if (len < 0 || (unsigned long)len > MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s: %s", path, len < 0 ? strerror(errno) : "larger than any IBSP file can be");
        fclose(f);
        return SWEEP_E_GEOMETRY;
    }
    uint8_t *data = malloc(len ? (size_t)len : 1);
    if (!data) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return SWEEP_E_NOMEM;
    }
    rewind(f);
    size_t got = fread(data, 1, (size_t)len, f);
    int rerr = ferror(f);
    fclose(f);
    if (got != (size_t)len || rerr) {
        snprintf(err, errlen, "%s: reading failed", path);
        free(data);
        return SWEEP_E_GEOMETRY;
    }
    sweep_status st = sweep_import_bsp_memory(data, got, path, opt, out, stats, err, errlen);
    free(data);
    return st;
}
