/*
 * bsp_writer.h - a tiny IBSP (Quake 3 BSP, version 46) writer for tests:
 * lumps built record by record (shaders, planes, brush sides, brushes,
 * models, vertices, faces, the entity text), then laid out after the
 * header, 4-byte aligned. make_level writes the importer tests' level: a
 * floor, a wall with a bevel plane and a repeated side, a water brush, a
 * player-clip brush, one curved patch, two spawn points and brush-model
 * movers of every kind the importer reads. Used by
 * tests/maps/test_import_bsp.c and by the BSP fuzzer's seed maker
 * (tests/fuzz/make_bsp_seeds.c). Out of memory aborts: a test tool.
 */
#ifndef SWEEP_TESTS_MAPS_BSP_WRITER_H
#define SWEEP_TESTS_MAPS_BSP_WRITER_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void bspw_need(const void *p)
{
    if (!p) {
        fputs("bsp_writer: out of memory\n", stderr);
        abort();
    }
}

enum { L_ENT, L_SHADERS, L_PLANES, L_MODELS = 7, L_BRUSHES, L_SIDES, L_VERTS, L_FACES = 13, LUMPS = 17 };

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

typedef struct bspw {
    wbuf l[LUMPS];
    uint32_t brush_first_side;
} bspw;

static inline void put(wbuf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        bspw_need(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static inline void put_i32(wbuf *b, int32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)((uint32_t)v >> 24)};
    put(b, x, 4);
}

static inline void put_f32(wbuf *b, double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    put_i32(b, (int32_t)u);
}

static inline int32_t shader(bspw *w, const char *name, uint32_t flags, uint32_t contents)
{
    char n[64] = {0};
    memcpy(n, name, strlen(name) < 64 ? strlen(name) : 64);
    put(&w->l[L_SHADERS], n, 64);
    put_i32(&w->l[L_SHADERS], (int32_t)flags);
    put_i32(&w->l[L_SHADERS], (int32_t)contents);
    return (int32_t)(w->l[L_SHADERS].n / 72 - 1);
}

static inline int32_t plane(bspw *w, double nx, double ny, double nz, double d)
{
    put_f32(&w->l[L_PLANES], nx);
    put_f32(&w->l[L_PLANES], ny);
    put_f32(&w->l[L_PLANES], nz);
    put_f32(&w->l[L_PLANES], d);
    return (int32_t)(w->l[L_PLANES].n / 16 - 1);
}

static inline void side(bspw *w, int32_t pl, int32_t sh)
{
    put_i32(&w->l[L_SIDES], pl);
    put_i32(&w->l[L_SIDES], sh);
}

static inline void brush_begin(bspw *w)
{
    w->brush_first_side = (uint32_t)(w->l[L_SIDES].n / 8);
}

static inline int32_t brush_end(bspw *w, int32_t sh)
{
    put_i32(&w->l[L_BRUSHES], (int32_t)w->brush_first_side);
    put_i32(&w->l[L_BRUSHES], (int32_t)(w->l[L_SIDES].n / 8 - w->brush_first_side));
    put_i32(&w->l[L_BRUSHES], sh);
    return (int32_t)(w->l[L_BRUSHES].n / 12 - 1);
}

/* The six axial sides of a box, in q3map's order; side_sh[k] < 0 takes sh.
 * skip (0..5, or -1) leaves one side out (a brush that is not closed). */
static inline void box_sides(bspw *w, const double lo[3], const double hi[3], int32_t sh, const int32_t *side_sh,
                             int skip)
{
    for (int k = 0; k < 3; k++) {
        double n[3] = {0, 0, 0};
        n[k] = -1;
        if (2 * k != skip)
            side(w, plane(w, n[0], n[1], n[2], -lo[k]), side_sh && side_sh[2 * k] >= 0 ? side_sh[2 * k] : sh);
        n[k] = 1;
        if (2 * k + 1 != skip)
            side(w, plane(w, n[0], n[1], n[2], hi[k]), side_sh && side_sh[2 * k + 1] >= 0 ? side_sh[2 * k + 1] : sh);
    }
}

static inline int32_t box(bspw *w, double x0, double y0, double z0, double x1, double y1, double z1, int32_t sh)
{
    const double lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
    brush_begin(w);
    box_sides(w, lo, hi, sh, NULL, -1);
    return brush_end(w, sh);
}

static inline void model(bspw *w, double x0, double y0, double z0, double x1, double y1, double z1, int32_t face,
                         int32_t faces, int32_t brush, int32_t brushes)
{
    const double v[6] = {x0, y0, z0, x1, y1, z1};
    for (int i = 0; i < 6; i++)
        put_f32(&w->l[L_MODELS], v[i]);
    put_i32(&w->l[L_MODELS], face);
    put_i32(&w->l[L_MODELS], faces);
    put_i32(&w->l[L_MODELS], brush);
    put_i32(&w->l[L_MODELS], brushes);
}

static inline void vertex(bspw *w, double x, double y, double z)
{
    put_f32(&w->l[L_VERTS], x);
    put_f32(&w->l[L_VERTS], y);
    put_f32(&w->l[L_VERTS], z);
    for (int i = 0; i < 8; i++)
        put_i32(&w->l[L_VERTS], 0);
}

static inline void face(bspw *w, int32_t sh, int32_t type, int32_t first_vertex, int32_t n, int32_t pw, int32_t ph)
{
    int32_t v[26] = {0};
    v[0] = sh, v[1] = -1, v[2] = type, v[3] = first_vertex, v[4] = n, v[7] = -1, v[24] = pw, v[25] = ph;
    for (int i = 0; i < 26; i++)
        put_i32(&w->l[L_FACES], v[i]);
}

/* The header and the lumps one after another, 4-byte aligned. */
static inline uint8_t *bspw_finish(bspw *w, size_t *size)
{
    size_t off = 144;
    for (int l = 0; l < LUMPS; l++)
        off += (w->l[l].n + 3) & ~(size_t)3;
    uint8_t *out = calloc(1, off);
    bspw_need(out);
    memcpy(out, "IBSP", 4);
    out[4] = 46;
    size_t at = 144;
    for (int l = 0; l < LUMPS; l++) {
        uint32_t o = (uint32_t)at, n = (uint32_t)w->l[l].n;
        for (int k = 0; k < 4; k++) {
            out[8 + 8 * l + k] = (uint8_t)(o >> (8 * k));
            out[12 + 8 * l + k] = (uint8_t)(n >> (8 * k));
        }
        if (n)
            memcpy(out + at, w->l[l].p, n);
        at += (n + 3) & ~(size_t)3;
        free(w->l[l].p);
    }
    *size = off;
    return out;
}

static const char level_entities[] =
    "// a comment, as Quake 3 allows\n"
    "{\n\"classname\" \"worldspawn\"\n\"message\" \"test level\"\n\"gravity\" \"800\"\n}\n"
    "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
    "{ \"classname\" \"info_player_start\" \"origin\" \"64 0 24\" \"angle\" \"90\" }\n"
    "{ \"classname\" \"func_door\" \"model\" \"*1\" \"angle\" \"90\" \"speed\" \"100\" }\n"
    "{ \"classname\" \"func_plat\" \"model\" \"*2\" \"height\" \"64\" }\n"
    "{ \"classname\" \"func_bobbing\" \"model\" \"*3\" \"origin\" \"0 300 64\" \"height\" \"16\" \"speed\" \"2\" }\n"
    "{ \"classname\" \"func_rotating\" \"model\" \"*4\" \"origin\" \"-300 0 64\" \"speed\" \"90\" }\n"
    "{ \"classname\" \"func_train\" \"model\" \"*5\" \"origin\" \"0 -300 64\" \"target\" \"c1\" \"speed\" \"50\" }\n"
    "{ \"classname\" \"path_corner\" \"targetname\" \"c1\" \"target\" \"c2\" \"origin\" \"0 -300 64\" "
    "\"wait\" \"1\" }\n"
    "{ \"classname\" \"path_corner\" \"targetname\" \"c2\" \"target\" \"c3\" \"origin\" \"100 -300 64\" }\n"
    "{ \"classname\" \"path_corner\" \"targetname\" \"c3\" \"target\" \"c1\" \"origin\" \"100 -200 64\" \"speed\" "
    "\"200\" }\n"
    "{ \"classname\" \"trigger_multiple\" \"model\" \"*6\" \"target\" \"gate\" }\n"
    "{ \"classname\" \"func_door\" \"model\" \"*7\" \"targetname\" \"gate\" \"angle\" \"-1\" \"lip\" \"0\" "
    "\"spawnflags\" \"4\" }\n"
    "{ \"classname\" \"func_static\" \"model\" \"*8\" }\n"
    "{ \"classname\" \"light\" \"origin\" \"0 0 100\" }\n";

/* 63 'a's after "textures/", then '1' or '2': 64 bytes, no NUL, equal in
 * their first 63 bytes. */
#define LONG_NAME(c) "textures/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" c

enum { OPEN_FLOOR = 1, NO_SOLID = 2 };

/* The test level as an IBSP file; `ents` replaces its entity text. */
static inline uint8_t *make_level(const char *ents, int variant, size_t *size)
{
    bspw w;
    memset(&w, 0, sizeof w);
    const uint32_t solid = variant & NO_SOLID ? 0x20 : 0x1;
    int32_t s_floor = shader(&w, "textures/test/floor", 0, solid);
    int32_t s_wall = shader(&w, "textures/test/wall", 0x2 /* slick */ | 0x10, solid);
    int32_t s_water = shader(&w, "textures/liquids/water", 0x4000, 0x20);
    int32_t s_clip = shader(&w, "textures/common/clip", 0x80, variant & NO_SOLID ? 0x20 : 0x10000);
    int32_t s_curve = shader(&w, "textures/test/curve", 0, solid);
    int32_t s_door = shader(&w, "textures/test/door", 0, 0x1);
    int32_t s_trig = shader(&w, "textures/common/trigger", 0x80, 0x40000000);
    int32_t s_long1 = shader(&w, LONG_NAME("1"), 0, solid);
    int32_t s_long2 = shader(&w, LONG_NAME("2"), 0, solid);
    int32_t s_dupe = shader(&w, "textures/test/dupe", 0, solid);

    /* World (model 0): brushes 0..3. */
    const double flo[3] = {-512, -512, -16}, fhi[3] = {512, 512, 0};
    brush_begin(&w);
    box_sides(&w, flo, fhi, s_floor, NULL, variant & OPEN_FLOOR ? 4 : -1);
    side(&w, plane(&w, 0, 0, 1, 0), s_dupe); /* the top again: adds nothing */
    brush_end(&w, s_floor);
    const double wlo[3] = {200, -256, 0}, whi[3] = {216, 256, 128};
    const int32_t wall_sides[6] = {s_long1, s_long2, -1, -1, -1, -1};
    brush_begin(&w);
    box_sides(&w, wlo, whi, s_wall, wall_sides, -1);
    /* a bevel: touches the box along its (216, 256) edge only */
    side(&w, plane(&w, sqrt(0.5), sqrt(0.5), 0, (216 + 256) * sqrt(0.5)), s_wall);
    brush_end(&w, s_wall);
    box(&w, -100, -100, 0, -50, -50, 64, s_water);
    box(&w, -300, -300, 0, -200, -200, 100, s_clip);
    /* Movers and the others: brushes 4.. */
    int32_t b_door = box(&w, 300, -32, 0, 308, 32, 96, s_door);
    int32_t b_plat = box(&w, -400, 300, 0, -336, 364, 8, s_door);
    int32_t b_bob = box(&w, -16, -16, -8, 16, 16, 8, s_door);
    int32_t b_rot = box(&w, -32, -4, -4, 32, 4, 4, s_door);
    int32_t b_train = box(&w, -8, -8, -8, 8, 8, 8, s_door);
    int32_t b_trig = box(&w, -200, 100, 0, -100, 200, 64, s_trig);
    int32_t b_gate = box(&w, -150, 250, 0, -100, 260, 100, s_door);
    int32_t b_static = box(&w, 400, 400, 0, 432, 432, 32, s_floor);

    /* The patch (face 0, a 3 x 3 dome) and a flat face that is ignored. */
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            vertex(&w, -480 + 32 * i, -480 + 32 * j, i == 1 || j == 1 ? 32 : 0);
    face(&w, s_curve, 2, 0, 9, 3, 3);
    face(&w, s_floor, 1, 0, 3, 0, 0);

    model(&w, -512, -512, -16, 512, 512, 128, 0, 2, 0, 4);
    model(&w, 300, -32, 0, 308, 32, 96, 2, 0, b_door, 1);
    model(&w, -400, 300, 0, -336, 364, 8, 2, 0, b_plat, 1);
    model(&w, -16, -16, -8, 16, 16, 8, 2, 0, b_bob, 1);
    model(&w, -32, -4, -4, 32, 4, 4, 2, 0, b_rot, 1);
    model(&w, -8, -8, -8, 8, 8, 8, 2, 0, b_train, 1);
    model(&w, -200, 100, 0, -100, 200, 64, 2, 0, b_trig, 1);
    model(&w, -150, 250, 0, -100, 260, 100, 2, 0, b_gate, 1);
    model(&w, 400, 400, 0, 432, 432, 32, 2, 0, b_static, 1);

    put(&w.l[L_ENT], ents ? ents : level_entities, strlen(ents ? ents : level_entities) + 1);
    return bspw_finish(&w, size);
}

/* make_level's entities for its volumes: a jump pad aimed at a
 * target_position, a teleporter and its destination, hurt volumes (one a
 * kill), and a pad whose target is missing. */
static const char volume_entities[] =
    "{ \"classname\" \"worldspawn\" \"gravity\" \"800\" }\n"
    "{ \"classname\" \"info_player_deathmatch\" \"origin\" \"0 0 24\" }\n"
    "{ \"classname\" \"trigger_push\" \"model\" \"*6\" \"target\" \"t1\" }\n"
    "{ \"classname\" \"target_position\" \"targetname\" \"t1\" \"origin\" \"-150 650 432\" }\n"
    "{ \"classname\" \"trigger_teleport\" \"model\" \"*7\" \"target\" \"d1\" }\n"
    "{ \"classname\" \"misc_teleporter_dest\" \"targetname\" \"d1\" \"origin\" \"0 -100 24\" \"angle\" \"90\" }\n"
    "{ \"classname\" \"trigger_hurt\" \"model\" \"*2\" \"dmg\" \"10\" }\n"
    "{ \"classname\" \"trigger_hurt\" \"model\" \"*3\" \"dmg\" \"20\" \"spawnflags\" \"16\" }\n"
    "{ \"classname\" \"trigger_hurt\" \"model\" \"*8\" \"dmg\" \"1000\" }\n"
    "{ \"classname\" \"trigger_push\" \"model\" \"*4\" \"target\" \"nowhere\" }\n";

/* A floor with a pool of water, one of lava and one of slime standing on
 * it, and a solid box whose -x side is a ladder. */
static inline uint8_t *make_liquids_level_sides(size_t *size, int ladder_everywhere)
{
    bspw w;
    memset(&w, 0, sizeof w);
    int32_t solid = shader(&w, "textures/test/solid", 0, 0x1), water = shader(&w, "textures/liquids/water", 0, 0x20),
            lava = shader(&w, "textures/liquids/lava", 0, 0x8), slime = shader(&w, "textures/liquids/slime", 0, 0x30),
            ladder = shader(&w, "textures/test/ladder", 0x8, 0x1);
    box(&w, -512, -512, -16, 512, 512, 0, solid);
    box(&w, 100, 100, 0, 200, 200, 64, water);
    box(&w, -200, 100, 0, -100, 200, 64, lava);
    box(&w, -200, -200, 0, -100, -100, 64, slime);
    const double lo[3] = {300, -32, 0}, hi[3] = {364, 32, 256};
    const int32_t sides[6] = {ladder, -1, -1, -1, -1, -1};
    brush_begin(&w);
    box_sides(&w, lo, hi, ladder_everywhere ? ladder : solid, ladder_everywhere ? NULL : sides, -1);
    brush_end(&w, ladder_everywhere ? ladder : solid);
    model(&w, -512, -512, -16, 512, 512, 256, 0, 0, 0, 5);
    const char *ents = "{ \"classname\" \"worldspawn\" }\n";
    put(&w.l[L_ENT], ents, strlen(ents) + 1);
    return bspw_finish(&w, size);
}

static inline uint8_t *make_liquids_level(size_t *size)
{
    return make_liquids_level_sides(size, 0);
}

#endif
