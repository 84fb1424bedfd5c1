/*
 * levelgen.c - deterministic generated levels (see levelgen.h).
 *
 * Layout: an S x S grid of 1-unit terrain cells (two triangles each) whose
 * heights are two octaves of value noise on coarse lattices, blended with a
 * smoothstep polynomial, which keeps every terrain slope well under 45
 * degrees. Every 16 cells (away from the border) a block gets one feature
 * chosen by the hash: stairs, a walkable or a steep ramp, a wall, pillars, a
 * low platform, or nothing. Features stand on the terrain with their base
 * sunk below it, so there are no gaps to fall through. Four boundary walls
 * keep walkers inside.
 *
 * All randomness is splitmix64 of (seed, coordinates); all arithmetic is
 * + - * / on doubles and integers, so the output is identical everywhere.
 */
#include "maps/levelgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 16     /* cells per feature block */
#define LATTICE1 8   /* cells per lattice step, fine octave */
#define LATTICE2 32  /* coarse octave */
#define AMP1 1.2
#define AMP2 3.0

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return mix(mix(mix(seed ^ UINT64_C(0x5157) ^ a) ^ b) ^ c);
}

/* Uniform in [0, 1) from the top 53 bits. */
static double unit(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

static double smooth(double f)
{
    return f * f * (3.0 - 2.0 * f);
}

/* Value noise: smoothly blended lattice values at integer cell (x, y). */
static double noise(uint64_t seed, uint32_t octave, int64_t x, int64_t y, int64_t step)
{
    int64_t gx = x / step, gy = y / step;
    double fx = smooth((double)(x - gx * step) / (double)step);
    double fy = smooth((double)(y - gy * step) / (double)step);
    double v00 = unit(hash3(seed, octave, (uint64_t)gx, (uint64_t)gy));
    double v10 = unit(hash3(seed, octave, (uint64_t)gx + 1, (uint64_t)gy));
    double v01 = unit(hash3(seed, octave, (uint64_t)gx, (uint64_t)gy + 1));
    double v11 = unit(hash3(seed, octave, (uint64_t)gx + 1, (uint64_t)gy + 1));
    double a = v00 + (v10 - v00) * fx, b = v01 + (v11 - v01) * fx;
    return a + (b - a) * fy;
}

static double height(uint64_t seed, int64_t x, int64_t y)
{
    return AMP1 * noise(seed, 1, x, y, LATTICE1) + AMP2 * noise(seed, 2, x, y, LATTICE2);
}

typedef struct gen {
    sweep_level *lv;
    uint64_t seed;
    uint32_t side;   /* cells per side */
    double *heights; /* (side + 1)^2 terrain vertex heights */
    sweep_status st;
} gen;

static double h_at(const gen *g, uint32_t x, uint32_t y)
{
    return g->heights[(size_t)y * (g->side + 1) + x];
}

/* Highest and lowest terrain vertex over the cell rectangle [x0, x1] x [y0, y1]. */
static void h_range(const gen *g, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, double *lo, double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (uint32_t y = y0; y <= y1; y++)
        for (uint32_t x = x0; x <= x1; x++) {
            double h = h_at(g, x, y);
            *lo = h < *lo ? h : *lo;
            *hi = h > *hi ? h : *hi;
        }
}

static void box(gen *g, sweep_vec3 lo, sweep_vec3 hi, uint32_t mat)
{
    if (g->st == SWEEP_OK)
        g->st = sweep_level_add_box(g->lv, lo, hi, mat, 0);
}

/* A quad whose triangles are wound to face `out`. */
static void quad_facing(gen *g, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 d, sweep_vec3 out, uint32_t mat)
{
    if (g->st != SWEEP_OK)
        return;
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    if (sweep_v3_dot(n, out) < 0.0)
        g->st = sweep_level_add_quad(g->lv, d, c, b, a, mat);
    else
        g->st = sweep_level_add_quad(g->lv, a, b, c, d, mat);
}

/* A wedge rising along +x from z_low to z_low + slope * length, base at zb. */
static void ramp(gen *g, double x0, double y0, double len, double wid, double zb, double z_low, double slope,
                 uint32_t mat)
{
    double x1 = x0 + len, y1 = y0 + wid, zh = z_low + slope * len;
    quad_facing(g, sweep_v3(x0, y0, z_low), sweep_v3(x1, y0, zh), sweep_v3(x1, y1, zh), sweep_v3(x0, y1, z_low),
                sweep_v3(-slope, 0, 1), mat);
    quad_facing(g, sweep_v3(x0, y0, zb), sweep_v3(x1, y0, zb), sweep_v3(x1, y0, zh), sweep_v3(x0, y0, z_low),
                sweep_v3(0, -1, 0), mat);
    quad_facing(g, sweep_v3(x0, y1, zb), sweep_v3(x1, y1, zb), sweep_v3(x1, y1, zh), sweep_v3(x0, y1, z_low),
                sweep_v3(0, 1, 0), mat);
    quad_facing(g, sweep_v3(x1, y0, zb), sweep_v3(x1, y1, zb), sweep_v3(x1, y1, zh), sweep_v3(x1, y0, zh),
                sweep_v3(1, 0, 0), mat);
    quad_facing(g, sweep_v3(x0, y0, zb), sweep_v3(x0, y1, zb), sweep_v3(x0, y1, z_low), sweep_v3(x0, y0, z_low),
                sweep_v3(-1, 0, 0), mat);
}

static void feature(gen *g, uint32_t bx, uint32_t by)
{
    uint64_t h = hash3(g->seed, 7, bx, by);
    uint32_t x0 = bx * BLOCK + 4, y0 = by * BLOCK + 4; /* feature area: 8 x 8 cells */
    double lo, hi;
    h_range(g, x0, y0, x0 + 8, y0 + 8, &lo, &hi);
    double zb = lo - 0.5;
    double fx = x0, fy = y0;
    switch (h % 7) {
    case 0: { /* stairs: 6 steps of one rise from 0.15 to 0.35 */
        static const double rises[3] = {0.15, 0.25, 0.35};
        double rise = rises[(h >> 8) % 3];
        for (int i = 0; i < 6; i++)
            box(g, sweep_v3(fx + 0.6 * i, fy, zb), sweep_v3(fx + 0.6 * (i + 1), fy + 3.0, hi + rise * (i + 1)),
                SWEEP_GEN_MAT_STONE);
        box(g, sweep_v3(fx + 3.6, fy, zb), sweep_v3(fx + 6.0, fy + 3.0, hi + rise * 6), SWEEP_GEN_MAT_STONE);
        break;
    }
    case 1: /* walkable ramp, about 20 degrees */
        ramp(g, fx, fy, 6.0, 3.0, zb, hi - 0.3, 0.36, SWEEP_GEN_MAT_METAL);
        break;
    case 2: /* steep ramp, about 55 degrees */
        ramp(g, fx, fy, 3.0, 3.0, zb, hi - 0.3, 1.43, SWEEP_GEN_MAT_METAL);
        break;
    case 3: /* wall */
        box(g, sweep_v3(fx, fy + 3.0, zb), sweep_v3(fx + 7.0, fy + 3.3, hi + 2.5), SWEEP_GEN_MAT_WALL);
        break;
    case 4: /* pillars */
        for (int i = 0; i < 4; i++) {
            double px = fx + 1.0 + 2.0 * (i & 1), py = fy + 1.0 + 2.0 * (i >> 1);
            box(g, sweep_v3(px, py, zb), sweep_v3(px + 0.6, py + 0.6, hi + 3.0), SWEEP_GEN_MAT_WALL);
        }
        break;
    case 5: /* low platform: one step up from its highest ground */
        box(g, sweep_v3(fx + 1.0, fy + 1.0, zb), sweep_v3(fx + 5.0, fy + 5.0, hi + 0.3), SWEEP_GEN_MAT_STONE);
        break;
    default:
        break;
    }
}

/* Rotation about +z by a multiple of 45 degrees, from sqrt alone. */
static sweep_quat turn_z(int eighths)
{
    const double h = sqrt(0.5), s22 = sqrt((1.0 - h) / 2.0), c22 = sqrt((1.0 + h) / 2.0);
    /* half angles 0, 22.5, 45, ..., 157.5 degrees */
    const double sn[8] = {0.0, s22, h, c22, 1.0, c22, h, s22};
    const double cs[8] = {1.0, c22, h, s22, 0.0, -s22, -h, -c22};
    sweep_quat q = {0.0, 0.0, sn[eighths & 7], cs[eighths & 7]};
    return q;
}

/* Rotation about +z by a multiple of 120 degrees (0, 120, 240, 360). */
static sweep_quat third_z(int k)
{
    const double s60 = sqrt(3.0) / 2.0;
    const double sn[4] = {0.0, s60, s60, 0.0}, cs[4] = {1.0, 0.5, -0.5, -1.0};
    sweep_quat q = {0.0, 0.0, sn[k & 3], cs[k & 3]};
    return q;
}

/* A closed box lo..hi, faces outwards, into mover m's local frame. */
static void mover_box(gen *g, sweep_level_mover *m, sweep_vec3 lo, sweep_vec3 hi, uint32_t mat)
{
    static const int faces[6][4] = {{4, 5, 7, 6}, {0, 2, 3, 1}, {1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}};
    uint32_t v[8];
    for (int k = 0; k < 8 && g->st == SWEEP_OK; k++)
        g->st = sweep_level_mover_add_vertex(m, sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z),
                                             &v[k]);
    for (int f = 0; f < 6 && g->st == SWEEP_OK; f++) {
        const int *q = faces[f];
        g->st = sweep_level_mover_add_triangle(m, v[q[0]], v[q[1]], v[q[2]], mat);
        if (g->st == SWEEP_OK)
            g->st = sweep_level_mover_add_triangle(m, v[q[0]], v[q[2]], v[q[3]], mat);
    }
}

static void mover_key(gen *g, sweep_level_mover *m, double t, sweep_vec3 p, sweep_quat q)
{
    if (g->st == SWEEP_OK)
        g->st = sweep_level_mover_add_keyframe(m, t, p, q);
}

/*
 * Mover number i in block (bx, by), of kind i % 4, in the block's feature
 * area. *rest gets where a rider's centre should start (above the lift or
 * turntable), or the area's middle above ground for doors.
 */
static void mover_feature(gen *g, uint32_t i, uint32_t bx, uint32_t by, sweep_vec3 *rest)
{
    uint32_t x0 = bx * BLOCK + 4, y0 = by * BLOCK + 4;
    double lo, hi;
    h_range(g, x0, y0, x0 + 8, y0 + 8, &lo, &hi);
    double zb = lo - 0.5, fx = x0, fy = y0;
    char name[SWEEP_LEVEL_NAME_MAX];
    static const char *const kinds[4] = {"lift", "turntable", "door", "swing"};
    snprintf(name, sizeof name, "%s%u", kinds[i % 4], i);
    uint32_t mi;
    if (g->st == SWEEP_OK)
        g->st = sweep_level_add_mover(g->lv, i + 1, name, &mi);
    if (g->st != SWEEP_OK)
        return;
    sweep_level_mover *m = &g->lv->movers[mi];
    m->trigger = SWEEP_TRIGGER_ALWAYS;
    sweep_vec3 c = sweep_v3(fx + 4.0, fy + 4.0, hi);
    *rest = sweep_v3(c.x, c.y, hi + 3.0);
    switch (i % 4) {
    case 0: /* lift: a column whose top is one step up from the highest ground,
             * up 3 units and back; like a Quake plat it goes back up when
             * someone is under it */
        mover_box(g, m, sweep_v3(-1.5, -1.5, zb - hi), sweep_v3(1.5, 1.5, 0.3), SWEEP_GEN_MAT_METAL);
        m->mode = SWEEP_MOVER_PINGPONG, m->blocked = SWEEP_BLOCKED_REVERSE;
        m->wait_start = m->wait_end = 1.0;
        mover_key(g, m, 0.0, c, turn_z(0));
        mover_key(g, m, 2.0, sweep_v3(c.x, c.y, hi + 3.0), turn_z(0));
        break;
    case 1: /* turntable: a full turn in 9 s, a column standing in the ground */
        mover_box(g, m, sweep_v3(-2.0, -2.0, zb - hi), sweep_v3(2.0, 2.0, 0.3), SWEEP_GEN_MAT_STONE);
        m->mode = SWEEP_MOVER_LOOP, m->blocked = SWEEP_BLOCKED_STOP;
        for (int k = 0; k <= 3; k++)
            mover_key(g, m, 3.0 * k, c, third_z(k));
        break;
    case 2: /* sliding door across the area, waiting while blocked */
        mover_box(g, m, sweep_v3(-0.1, -1.5, zb - hi), sweep_v3(0.1, 1.5, 2.5), SWEEP_GEN_MAT_WALL);
        m->mode = SWEEP_MOVER_PINGPONG, m->blocked = SWEEP_BLOCKED_STOP;
        m->wait_start = m->wait_end = 0.5;
        mover_key(g, m, 0.0, sweep_v3(c.x - 3.0, c.y, hi), turn_z(0));
        mover_key(g, m, 1.5, sweep_v3(c.x + 3.0, c.y, hi), turn_z(0));
        *rest = sweep_v3(c.x, c.y + 2.5, hi + 2.0);
        break;
    default: /* swinging door on a hinge at the area's middle, crushing what blocks it */
        mover_box(g, m, sweep_v3(0.0, -0.1, zb - hi), sweep_v3(3.0, 0.1, 2.5), SWEEP_GEN_MAT_WALL);
        m->mode = SWEEP_MOVER_PINGPONG, m->blocked = SWEEP_BLOCKED_CRUSH;
        m->wait_end = 1.0;
        mover_key(g, m, 0.0, c, turn_z(0));
        mover_key(g, m, 0.75, c, turn_z(1));
        mover_key(g, m, 1.5, c, turn_z(2));
        *rest = sweep_v3(c.x + 1.5, c.y + 1.5, hi + 2.0);
        break;
    }
}

sweep_status sweep_levelgen(const sweep_levelgen_params *p, sweep_level *lv)
{
    if (!p || !lv || p->target_triangles < 200 || p->target_triangles > SWEEP_WORLD_MAX_TRIANGLES / 2)
        return SWEEP_E_ARG;
    gen g = {lv, p->seed, 0, NULL, SWEEP_OK};
    /* Terrain is ~95% of the triangles: 2 per cell. */
    g.side = (uint32_t)sqrt((double)p->target_triangles * 0.95 / 2.0);
    if (g.side < 8)
        g.side = 8;
    uint32_t n = g.side + 1;
    g.heights = malloc((size_t)n * n * sizeof *g.heights);
    if (!g.heights)
        return SWEEP_E_NOMEM;

    snprintf(lv->name, sizeof lv->name, "generated-%u-%llu", p->target_triangles, (unsigned long long)p->seed);
    g.st = sweep_level_add_material(lv, SWEEP_GEN_MAT_TERRAIN, "terrain", 0.8, 0);
    if (g.st == SWEEP_OK)
        g.st = sweep_level_add_material(lv, SWEEP_GEN_MAT_STONE, "stone", 0.7, 0);
    if (g.st == SWEEP_OK)
        g.st = sweep_level_add_material(lv, SWEEP_GEN_MAT_METAL, "metal", 0.4, 0);
    if (g.st == SWEEP_OK)
        g.st = sweep_level_add_material(lv, SWEEP_GEN_MAT_WALL, "wall", 0.6, 0);

    double top = -INFINITY;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            double h = height(p->seed, x, y);
            g.heights[(size_t)y * n + x] = h;
            top = h > top ? h : top;
            if (g.st == SWEEP_OK)
                g.st = sweep_level_add_vertex(lv, sweep_v3(x, y, h), NULL);
        }
    for (uint32_t y = 0; y < g.side && g.st == SWEEP_OK; y++)
        for (uint32_t x = 0; x < g.side && g.st == SWEEP_OK; x++) {
            uint32_t a = y * n + x, b = a + 1, c = a + n + 1, d = a + n;
            g.st = sweep_level_add_triangle(lv, a, b, c, SWEEP_GEN_MAT_TERRAIN);
            if (g.st == SWEEP_OK)
                g.st = sweep_level_add_triangle(lv, a, c, d, SWEEP_GEN_MAT_TERRAIN);
        }

    uint32_t blocks = g.side / BLOCK;
    uint32_t movers = p->mover_count < blocks * blocks ? p->mover_count : blocks * blocks;
    sweep_vec3 *rests = movers ? malloc(movers * sizeof *rests) : NULL;
    if (movers && !rests)
        g.st = SWEEP_E_NOMEM;
    for (uint32_t by = 0; by < blocks; by++)
        for (uint32_t bx = 0; bx < blocks; bx++) {
            uint32_t i = by * blocks + bx;
            if (i < movers)
                mover_feature(&g, i, bx, by, &rests[i]);
            else
                feature(&g, bx, by);
        }

    /* Boundary walls just outside the terrain. */
    double s = g.side, wz = top + 4.0;
    box(&g, sweep_v3(-1, -1, -1), sweep_v3(0, s + 1, wz), SWEEP_GEN_MAT_WALL);
    box(&g, sweep_v3(s, -1, -1), sweep_v3(s + 1, s + 1, wz), SWEEP_GEN_MAT_WALL);
    box(&g, sweep_v3(0, -1, -1), sweep_v3(s, 0, wz), SWEEP_GEN_MAT_WALL);
    box(&g, sweep_v3(0, s, -1), sweep_v3(s, s + 1, wz), SWEEP_GEN_MAT_WALL);

    /* The first spawns ride the movers; the rest are over open terrain:
     * inside a block's empty margin. */
    for (uint32_t i = 0; i < p->spawn_count && i < movers && g.st == SWEEP_OK; i++)
        g.st = sweep_level_add_spawn(lv, rests[i]);
    free(rests);
    for (uint32_t i = movers < p->spawn_count ? movers : p->spawn_count; i < p->spawn_count && g.st == SWEEP_OK; i++) {
        uint64_t h = hash3(p->seed, 11, i, 0);
        uint32_t x = 1 + (uint32_t)(h % (g.side - 2)), y = 1 + (uint32_t)((h >> 32) % (g.side - 2));
        if (x % BLOCK >= 3 && x % BLOCK <= 13 && x / BLOCK < blocks)
            x = (x / BLOCK) * BLOCK + 1; /* keep out of feature areas */
        double zx = h_at(&g, x, y), z1 = h_at(&g, x + 1, y + 1);
        double z = (zx > z1 ? zx : z1) + 2.0;
        g.st = sweep_level_add_spawn(lv, sweep_v3(x + 0.5, y + 0.5, z));
    }
    free(g.heights);
    if (g.st != SWEEP_OK)
        sweep_level_free(lv);
    return g.st;
}
