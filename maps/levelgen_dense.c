/*
 * levelgen_dense.c - generated dense levels (see levelgen_dense.h).
 *
 * Room r of an n x n grid spans [256 i, 256 (i + 1)] x [256 j, 256 (j + 1)];
 * its floor is the inside, [8, 248] in its own coordinates, cut into
 * cells of the size asked for (8 to 48 units), and the walls
 * between rooms are 16 thick, each room drawing its own side facing in, so
 * the level is closed without a face anyone stands behind. A doorway
 * through a wall is 48 wide and 96 high at the wall's middle, with its
 * jambs, lintel and floor. The furniture is placed in the room's own
 * coordinates and turned about its centre by a quarter turn times a hash of
 * (seed, room): turns by right angles swap and negate coordinates, which is
 * exact, and keep every triangle's winding.
 *
 * The curved parts are cut from a circle without trigonometry: a column's
 * 16 corners are the constants cos and sin of multiples of 22.5 degrees,
 * and the hump's height across it is sqrt(R^2 - y^2) less a constant.
 */
#include "maps/levelgen_dense.h"

#include <math.h>
#include <stdio.h>

#include "core/world.h"

#define ROOM 256.0   /* room pitch */
#define INSIDE 8.0   /* half a wall: the floor begins here */
#define ROW 16.0     /* wall rows and column rings */
#define WALL_ROWS 8  /* wall height 128 */
#define DOOR_LO 104.0 /* the doorway along its wall, 96 high */
#define DOOR_HI 152.0
#define DOOR_ROWS 6
#define KERB 4.0     /* kerb height and depth */

enum {
    MAT_FLOOR = 1,
    MAT_WALL = 2,
    MAT_TRIM = 3,
    MAT_COLUMN = 4,
    MAT_FENCE = 5
};

/* cos and sin of k * 22.5 degrees, k = 0..4 (the rest by symmetry). */
static const double COS16[5] = {1.0, 0.92387953251128674, 0.70710678118654757, 0.38268343236508978, 0.0};

typedef struct gen {
    sweep_level *lv;
    double cell; /* floor cells and wall columns: it divides 96 and 144, so the doorway falls on cells */
    int cells;   /* cells across a floor, (ROOM - 2 INSIDE) / cell */
    double ox, oy; /* the room's corner */
    int turn;      /* quarter turns of the furniture */
    sweep_status st;
} gen;

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* A point of the room's own frame in the level (the furniture's turn
 * applied when `turned`). */
static sweep_vec3 at(const gen *g, double x, double y, double z, int turned)
{
    double u = x, v = y;
    switch (turned ? g->turn : 0) {
    case 1: u = ROOM - y, v = x; break;
    case 2: u = ROOM - x, v = ROOM - y; break;
    case 3: u = y, v = ROOM - x; break;
    default: break;
    }
    return sweep_v3(g->ox + u, g->oy + v, z);
}

/* One triangle of points already in the level, wound to face `out`. */
static void tri(gen *g, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 out, uint32_t mat)
{
    if (g->st != SWEEP_OK)
        return;
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    if (sweep_v3_dot(n, out) < 0.0) {
        sweep_vec3 t = b;
        b = c, c = t;
    }
    uint32_t ia, ib, ic;
    g->st = sweep_level_add_vertex(g->lv, a, &ia);
    if (g->st == SWEEP_OK)
        g->st = sweep_level_add_vertex(g->lv, b, &ib);
    if (g->st == SWEEP_OK)
        g->st = sweep_level_add_vertex(g->lv, c, &ic);
    if (g->st == SWEEP_OK)
        g->st = sweep_level_add_triangle(g->lv, ia, ib, ic, mat);
}

static void quad(gen *g, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 d, sweep_vec3 out, uint32_t mat)
{
    tri(g, a, b, c, out, mat);
    tri(g, a, c, d, out, mat);
}

/* The direction `out` of the room's frame in the level's. */
static sweep_vec3 dir(const gen *g, double x, double y, double z, int turned)
{
    sweep_vec3 o = at(g, 0.0, 0.0, 0.0, turned), p = at(g, x, y, z, turned);
    return sweep_v3(p.x - o.x, p.y - o.y, z);
}

/* A box of the room's frame, its faces out, its bottom left out (it
 * stands on the floor). */
static void box(gen *g, double x0, double y0, double z0, double x1, double y1, double z1, uint32_t mat, int bottom)
{
    sweep_vec3 p[8];
    for (int k = 0; k < 8; k++)
        p[k] = at(g, k & 1 ? x1 : x0, k & 2 ? y1 : y0, k & 4 ? z1 : z0, 1);
    quad(g, p[4], p[5], p[7], p[6], sweep_v3(0, 0, 1), mat);
    if (bottom)
        quad(g, p[0], p[1], p[3], p[2], sweep_v3(0, 0, -1), mat);
    quad(g, p[0], p[1], p[5], p[4], dir(g, 0, -1, 0, 1), mat);
    quad(g, p[2], p[3], p[7], p[6], dir(g, 0, 1, 0, 1), mat);
    quad(g, p[0], p[2], p[6], p[4], dir(g, -1, 0, 0, 1), mat);
    quad(g, p[1], p[3], p[7], p[5], dir(g, 1, 0, 0, 1), mat);
}

/* The floor: each cell fanned from its centre, as floors cut by their
 * shaders into pieces are. */
static void floor_cells(gen *g)
{
    const double cell = g->cell;
    for (int j = 0; j < g->cells; j++)
        for (int i = 0; i < g->cells; i++) {
            double x0 = INSIDE + cell * i, y0 = INSIDE + cell * j, x1 = x0 + cell, y1 = y0 + cell;
            sweep_vec3 m = at(g, x0 + 0.5 * cell, y0 + 0.5 * cell, 0.0, 0);
            sweep_vec3 a = at(g, x0, y0, 0.0, 0), b = at(g, x1, y0, 0.0, 0), c = at(g, x1, y1, 0.0, 0),
                       d = at(g, x0, y1, 0.0, 0);
            tri(g, m, a, b, sweep_v3(0, 0, 1), MAT_FLOOR);
            tri(g, m, b, c, sweep_v3(0, 0, 1), MAT_FLOOR);
            tri(g, m, c, d, sweep_v3(0, 0, 1), MAT_FLOOR);
            tri(g, m, d, a, sweep_v3(0, 0, 1), MAT_FLOOR);
        }
}

/*
 * Wall w of the room (0: y = 8 facing +y, 1: x = 248 facing -x, 2: y = 248
 * facing -y, 3: x = 8 facing +x), in 16-unit squares, with the doorway
 * left open when `door`: its jambs, lintel and floor through the wall's
 * half belong to this room.
 */
static void wall(gen *g, int w, int door)
{
    /* Along the wall: the point at u (8..248) and height z; in: inward. */
    sweep_vec3 in = w == 0 ? sweep_v3(0, 1, 0) : w == 1 ? sweep_v3(-1, 0, 0) : w == 2 ? sweep_v3(0, -1, 0)
                                                                                    : sweep_v3(1, 0, 0);
#define WALL_AT(u, d, z)                                                                                        \
    (w == 0   ? at(g, (u), INSIDE - (d), (z), 0)                                                                \
     : w == 1 ? at(g, ROOM - INSIDE + (d), (u), (z), 0)                                                         \
     : w == 2 ? at(g, (u), ROOM - INSIDE + (d), (z), 0)                                                         \
              : at(g, INSIDE - (d), (u), (z), 0))
    for (int r = 0; r < WALL_ROWS; r++)
        for (int c = 0; c < g->cells; c++) {
            double u0 = INSIDE + g->cell * c, u1 = u0 + g->cell, z0 = ROW * r, z1 = z0 + ROW;
            if (door && u0 >= DOOR_LO && u1 <= DOOR_HI && r < DOOR_ROWS)
                continue;
            quad(g, WALL_AT(u0, 0.0, z0), WALL_AT(u1, 0.0, z0), WALL_AT(u1, 0.0, z1), WALL_AT(u0, 0.0, z1), in,
                 MAT_WALL);
        }
    if (!door)
        return;
    double u0 = DOOR_LO, u1 = DOOR_HI, top = ROW * DOOR_ROWS;
    sweep_vec3 along = sweep_v3_sub(WALL_AT(1.0, 0.0, 0.0), WALL_AT(0.0, 0.0, 0.0));
    /* Jambs face into the opening; the lintel faces down; the floor up. */
    quad(g, WALL_AT(u0, 0.0, 0.0), WALL_AT(u0, INSIDE, 0.0), WALL_AT(u0, INSIDE, top), WALL_AT(u0, 0.0, top), along,
         MAT_WALL);
    quad(g, WALL_AT(u1, 0.0, 0.0), WALL_AT(u1, INSIDE, 0.0), WALL_AT(u1, INSIDE, top), WALL_AT(u1, 0.0, top),
         sweep_v3_scale(along, -1.0), MAT_WALL);
    quad(g, WALL_AT(u0, 0.0, top), WALL_AT(u1, 0.0, top), WALL_AT(u1, INSIDE, top), WALL_AT(u0, INSIDE, top),
         sweep_v3(0, 0, -1), MAT_WALL);
    quad(g, WALL_AT(u0, 0.0, 0.0), WALL_AT(u1, 0.0, 0.0), WALL_AT(u1, INSIDE, 0.0), WALL_AT(u0, INSIDE, 0.0),
         sweep_v3(0, 0, 1), MAT_FLOOR);
#undef WALL_AT
}

/*
 * The kerb along the foot of the walls, in the room's turned frame: a
 * 4 x 4 trim in 16-unit pieces, broken at the doorways' cells and where
 * the wedge stands (the first wall, cells 1 to 4), closed at each break.
 */
static void kerbs(gen *g)
{
    for (int w = 0; w < 4; w++)
        for (int c = 0; c < g->cells; c++) {
            double u0 = INSIDE + g->cell * c, u1 = u0 + g->cell;
            if ((u0 >= DOOR_LO && u1 <= DOOR_HI) || (w == 0 && u1 > 24.0 && u0 < 88.0))
                continue;
            /* The piece as a box in the frame of wall 0, then turned to
             * wall w about the room's centre by swapping coordinates. */
            double x0 = u0, x1 = u1, y0 = INSIDE, y1 = INSIDE + KERB;
            if (c == 0)
                x0 = INSIDE + KERB; /* the corner belongs to the wall before */
            double bx0, by0, bx1, by1;
            switch (w) {
            case 0: bx0 = x0, by0 = y0, bx1 = x1, by1 = y1; break;
            case 1: bx0 = ROOM - y1, by0 = x0, bx1 = ROOM - y0, by1 = x1; break;
            case 2: bx0 = ROOM - x1, by0 = ROOM - y1, bx1 = ROOM - x0, by1 = ROOM - y0; break;
            default: bx0 = y0, by0 = ROOM - x1, bx1 = y1, by1 = ROOM - x0; break;
            }
            box(g, bx0, by0, 0.0, bx1, by1, KERB, MAT_TRIM, 0);
        }
}

/* The steep wedge against the first wall: 24 high at the wall, reaching
 * 16 into the room (56 degrees), from u = 24 to 88 in four pieces, each
 * face in two rows, its ends closed. */
static void wedge(gen *g)
{
    const double h = 24.0, depth = 16.0;
    sweep_vec3 up_in = dir(g, 0.0, h, depth, 1); /* the slope's normal: in and up */
    for (int c = 0; c < 4; c++) {
        double x0 = 24.0 + 16.0 * c, x1 = x0 + 16.0;
        for (int r = 0; r < 2; r++) {
            double f0 = r * 0.5, f1 = f0 + 0.5; /* from the foot (0) to the top (1) */
            double y0 = INSIDE + depth * (1.0 - f0), y1 = INSIDE + depth * (1.0 - f1);
            quad(g, at(g, x0, y0, h * f0, 1), at(g, x1, y0, h * f0, 1), at(g, x1, y1, h * f1, 1),
                 at(g, x0, y1, h * f1, 1), up_in, MAT_TRIM);
        }
    }
    tri(g, at(g, 24.0, INSIDE, 0.0, 1), at(g, 24.0, INSIDE + depth, 0.0, 1), at(g, 24.0, INSIDE, h, 1),
        dir(g, -1, 0, 0, 1), MAT_TRIM);
    tri(g, at(g, 88.0, INSIDE, 0.0, 1), at(g, 88.0, INSIDE + depth, 0.0, 1), at(g, 88.0, INSIDE, h, 1),
        dir(g, 1, 0, 0, 1), MAT_TRIM);
}

/* A column of radius 12 at (x, y): 16 facets in 16-unit rings up to the
 * top of the walls. */
static void column(gen *g, double x, double y)
{
    const double r = 12.0;
    for (int k = 0; k < 16; k++) {
        /* Corners k and k + 1 around it: cos and sin from the table. */
        int q0 = k / 4, j0 = k % 4, q1 = (k + 1) / 4 % 4, j1 = (k + 1) % 4;
        double c0 = COS16[j0], s0 = COS16[4 - j0], c1 = COS16[j1], s1 = COS16[4 - j1];
        double x0 = q0 == 0 ? c0 : q0 == 1 ? -s0 : q0 == 2 ? -c0 : s0;
        double y0 = q0 == 0 ? s0 : q0 == 1 ? c0 : q0 == 2 ? -s0 : -c0;
        double x1 = q1 == 0 ? c1 : q1 == 1 ? -s1 : q1 == 2 ? -c1 : s1;
        double y1 = q1 == 0 ? s1 : q1 == 1 ? c1 : q1 == 2 ? -s1 : -c1;
        sweep_vec3 out = dir(g, x0 + x1, y0 + y1, 0.0, 1);
        for (int ring = 0; ring < WALL_ROWS; ring++) {
            double z0 = ROW * ring, z1 = z0 + ROW;
            quad(g, at(g, x + r * x0, y + r * y0, z0, 1), at(g, x + r * x1, y + r * y1, z0, 1),
                 at(g, x + r * x1, y + r * y1, z1, 1), at(g, x + r * x0, y + r * y0, z1, 1), out, MAT_COLUMN);
        }
    }
}

/*
 * A hump across the floor: the top 12 units of a cylinder of radius 24
 * lying along x, from x0 to x0 + 64 at y = yc, cut as a patch is: 12
 * strips across (height sqrt(R^2 - y^2) - 12) by four 16-unit pieces
 * along, its ends closed by fans. Its sides meet the floor at 60 degrees:
 * a body steps onto it.
 */
static void hump(gen *g, double x0, double yc)
{
    const double R = 24.0, sink = 12.0, len = 64.0;
    const double half = sqrt(R * R - sink * sink); /* where it meets the floor */
    enum { STRIPS = 12 };
    double ys[STRIPS + 1], zs[STRIPS + 1];
    for (int s = 0; s <= STRIPS; s++) {
        double y = -half + 2.0 * half * s / STRIPS;
        double z = sqrt(R * R - y * y) - sink;
        ys[s] = y, zs[s] = s == 0 || s == STRIPS ? 0.0 : z;
    }
    for (int s = 0; s < STRIPS; s++) {
        /* The strip's normal: across, and up by the slope. */
        sweep_vec3 out = dir(g, 0.0, -(zs[s + 1] - zs[s]), ys[s + 1] - ys[s], 1);
        for (int p = 0; p < 4; p++) {
            double xa = x0 + 16.0 * p, xb = xa + 16.0;
            quad(g, at(g, xa, yc + ys[s], zs[s], 1), at(g, xb, yc + ys[s], zs[s], 1),
                 at(g, xb, yc + ys[s + 1], zs[s + 1], 1), at(g, xa, yc + ys[s + 1], zs[s + 1], 1), out, MAT_FLOOR);
        }
    }
    for (int e = 0; e < 2; e++) {
        double x = e ? x0 + len : x0;
        sweep_vec3 out = dir(g, e ? 1.0 : -1.0, 0.0, 0.0, 1);
        for (int s = 1; s < STRIPS; s++)
            tri(g, at(g, x, yc + ys[0], 0.0, 1), at(g, x, yc + ys[s], zs[s], 1), at(g, x, yc + ys[s + 1], zs[s + 1], 1),
                out, MAT_FLOOR);
    }
}

/* A fence along x at y: five posts 4 x 4 x 48, 12 apart (a body is 30
 * wide), and a rail along their tops. */
static void fence(gen *g, double x0, double y)
{
    for (int k = 0; k < 5; k++) {
        double x = x0 + 16.0 * k;
        box(g, x - 2.0, y - 2.0, 0.0, x + 2.0, y + 2.0, 48.0, MAT_FENCE, 0);
    }
    box(g, x0 - 2.0, y - 1.0, 48.0, x0 + 64.0 + 2.0, y + 1.0, 52.0, MAT_FENCE, 1);
}

static void room(gen *g, uint32_t i, uint32_t j, uint32_t n, uint64_t seed)
{
    g->ox = ROOM * i, g->oy = ROOM * j;
    g->turn = (int)(mix(seed ^ mix(((uint64_t)i << 32) | j)) & 3);
    floor_cells(g);
    wall(g, 0, j > 0);
    wall(g, 1, i + 1 < n);
    wall(g, 2, j + 1 < n);
    wall(g, 3, i > 0);
    kerbs(g);
    wedge(g);
    column(g, 64.0, 64.0);
    column(g, 192.0, 64.0);
    column(g, 64.0, 192.0);
    column(g, 192.0, 192.0);
    hump(g, 96.0, 128.0);
    fence(g, 96.0, 48.0);
    /* Open floor, clear of the furniture by more than a body. */
    static const double spawn[4][2] = {{32.0, 128.0}, {224.0, 128.0}, {128.0, 80.0}, {128.0, 200.0}};
    for (int k = 0; k < 4 && g->st == SWEEP_OK; k++)
        g->st = sweep_level_add_spawn(g->lv, at(g, spawn[k][0], spawn[k][1], 40.0, 1));
}

int sweep_levelgen_dense_cell_ok(uint32_t cell)
{
    return cell == 8 || cell == 12 || cell == 16 || cell == 24 || cell == 48;
}

uint32_t sweep_levelgen_dense_room_triangles(uint32_t cell)
{
    /* The floor's and the walls' share, and the furniture's (about 1,930). */
    uint32_t cells = sweep_levelgen_dense_cell_ok(cell) ? 240 / cell : 15;
    return 4 * cells * cells + 4 * 2 * WALL_ROWS * cells + 1930;
}

sweep_status sweep_levelgen_dense(uint32_t target_triangles, uint32_t cell, uint64_t seed, sweep_level *lv)
{
    if (!lv || target_triangles < 200 || target_triangles > SWEEP_WORLD_MAX_TRIANGLES / 2 ||
        !sweep_levelgen_dense_cell_ok(cell))
        return SWEEP_E_ARG;
    uint32_t n = (uint32_t)(sqrt((double)target_triangles / sweep_levelgen_dense_room_triangles(cell)) + 0.5);
    if (n < 1)
        n = 1;
    gen g = {lv, (double)cell, (int)(240 / cell), 0.0, 0.0, 0, SWEEP_OK};
    snprintf(lv->name, sizeof lv->name, "dense-%u-%u-%llu", target_triangles, cell, (unsigned long long)seed);
    /* Quake's units and rules (maps/import_bsp.c gives its levels the
     * same), at the default walkable slope of 45 degrees. */
    lv->config.gravity = sweep_v3(0.0, 0.0, -800.0);
    lv->config.step_height = 18.0;
    lv->default_radii = sweep_v3(15.0, 15.0, 28.0);
    lv->rules.walk_speed = 320.0;
    lv->rules.ground_accel = 10.0 * 320.0;
    lv->rules.air_accel = 320.0;
    lv->rules.jump_speed = 270.0;
    lv->rules.speed_limit = 3000.0;
    lv->config.max_speed = 3000.0;
    lv->correction_threshold = 8.0;
    static const char *names[] = {"floor", "wall", "trim", "column", "fence"};
    for (uint32_t m = 0; m < 5 && g.st == SWEEP_OK; m++)
        g.st = sweep_level_add_material(lv, MAT_FLOOR + m, names[m], 0.8, 0);
    for (uint32_t j = 0; j < n && g.st == SWEEP_OK; j++)
        for (uint32_t i = 0; i < n && g.st == SWEEP_OK; i++)
            room(&g, i, j, n, seed);
    if (g.st != SWEEP_OK)
        sweep_level_free(lv);
    return g.st;
}
