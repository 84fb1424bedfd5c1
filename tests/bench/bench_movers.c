/*
 * bench_movers.c - what movers cost: moves among many doors, lifts and
 * platforms, against the same moves on the same level with the movers
 * frozen into static geometry.
 *
 * The level is a flat floor of 1 m quads with a grid of movers (lifts,
 * sliding doors, turntables and swinging doors, a quarter each), two bodies
 * per mover: one riding it (lifts and turntables) or walking through its
 * path (doors), one walking around it. Each tick runs sweep_movers_tick
 * over every body, then one move per body, as sweepd does. The static run
 * replaces each mover by its triangles at its first pose and sends every
 * body the same inputs. Prints
 *
 *   BENCH name=core.movers movers=<n> riders=<n> moves_per_s=<x> ns_per_move_p50=<x>
 *         ns_per_move_p99=<x> tick_ns_p50=<x> static_ns_per_move_p50=<x> ratio_to_static=<x>
 *
 * Usage: bench_movers [MOVERS [TICKS]] (default 120 movers, 570 ticks: the
 * lifts end away from the floor, so riders_on_board counts every rider).
 * Medians over every move; the machine is shared, so read the ratio.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mover.h"
#include "maps/level.h"

#define RATE 60.0
#define DT (1.0 / RATE)
#define SPACING 12.0

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void check(sweep_status st, const char *what)
{
    if (st != SWEEP_OK) {
        fprintf(stderr, "bench_movers: %s: %s\n", what, sweep_status_name(st));
        exit(1);
    }
}

static sweep_quat about_z(double degrees)
{
    double h = degrees * 3.14159265358979323846 / 360.0; /* set-up only: the core never sees an angle */
    sweep_quat q = {0.0, 0.0, sin(h), cos(h)};
    return q;
}

/* A closed box in the mover's local frame, faces outwards. */
static void mover_box(sweep_level_mover *m, sweep_vec3 lo, sweep_vec3 hi)
{
    static const int faces[6][4] = {{4, 5, 7, 6}, {0, 2, 3, 1}, {1, 3, 7, 5},
                                    {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}};
    uint32_t v[8];
    for (int k = 0; k < 8; k++)
        check(sweep_level_mover_add_vertex(m, sweep_v3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z),
                                           &v[k]),
              "mover vertex");
    for (int f = 0; f < 6; f++) {
        check(sweep_level_mover_add_triangle(m, v[faces[f][0]], v[faces[f][1]], v[faces[f][2]], 1), "mover tri");
        check(sweep_level_mover_add_triangle(m, v[faces[f][0]], v[faces[f][2]], v[faces[f][3]], 1), "mover tri");
    }
}

static void key(sweep_level_mover *m, double t, sweep_vec3 p, sweep_quat q)
{
    check(sweep_level_mover_add_keyframe(m, t, p, q), "keyframe");
}

typedef struct body {
    sweep_body b;
    sweep_vec3 vel, home;
    int grounded;
    int kind; /* 0 rider, 1 walker */
} body;

/* The level: floor, then the movers (kinds in turn) and the bodies. */
static void build_level(sweep_level *lv, uint32_t movers, body *bodies)
{
    sweep_level_init(lv);
    lv->tick_rate = RATE;
    uint32_t side = (uint32_t)ceil(sqrt((double)movers));
    double extent = side * SPACING;
    for (double x = -6; x < extent - 6; x += 1.0)
        for (double y = -6; y < extent - 6; y += 1.0)
            check(sweep_level_add_quad(lv, sweep_v3(x, y, 0), sweep_v3(x + 1, y, 0), sweep_v3(x + 1, y + 1, 0),
                                       sweep_v3(x, y + 1, 0), 1),
                  "floor");
    for (uint32_t i = 0; i < movers; i++) {
        sweep_vec3 c = sweep_v3((i % side) * SPACING, (i / side) * SPACING, 0);
        char name[32];
        snprintf(name, sizeof name, "mover%u", i);
        uint32_t mi;
        check(sweep_level_add_mover(lv, i + 1, name, &mi), "mover");
        sweep_level_mover *m = &lv->movers[mi];
        m->trigger = SWEEP_TRIGGER_ALWAYS;
        m->blocked = SWEEP_BLOCKED_STOP;
        body *rider = &bodies[2 * i], *walker = &bodies[2 * i + 1];
        rider->kind = 0, walker->kind = 1;
        rider->home = sweep_v3(c.x + 0.3, c.y - 0.2, 0.9005);
        walker->home = sweep_v3(c.x - 3.0, c.y + 2.5, 0.9005);
        switch (i % 4) {
        case 0: /* lift, standing on the floor at its lowest */
            mover_box(m, sweep_v3(-1.5, -1.5, 0), sweep_v3(1.5, 1.5, 0.2));
            rider->home.z += 0.2;
            m->mode = SWEEP_MOVER_PINGPONG, m->wait_start = m->wait_end = 0.5;
            key(m, 0, c, sweep_quat_identity());
            key(m, 2, sweep_v3(c.x, c.y, 3), sweep_quat_identity());
            break;
        case 1: /* turntable */
            mover_box(m, sweep_v3(-2, -2, -0.1), sweep_v3(2, 2, 0.1));
            m->mode = SWEEP_MOVER_LOOP;
            for (int k = 0; k <= 3; k++)
                key(m, 2.0 * k, c, about_z(120.0 * k));
            rider->home.z += 0.1;
            break;
        case 2: /* sliding door, the rider walks through its lane */
            mover_box(m, sweep_v3(-0.1, -1, 0.05), sweep_v3(0.1, 1, 2.5));
            m->mode = SWEEP_MOVER_PINGPONG, m->wait_start = m->wait_end = 1.0;
            m->blocked = SWEEP_BLOCKED_REVERSE;
            key(m, 0, sweep_v3(c.x - 2, c.y, 0), sweep_quat_identity());
            key(m, 1, sweep_v3(c.x + 2, c.y, 0), sweep_quat_identity());
            rider->kind = 1;
            break;
        default: /* swinging door about a hinge at the centre */
            mover_box(m, sweep_v3(0, -0.05, 0.05), sweep_v3(2, 0.05, 2.5));
            m->mode = SWEEP_MOVER_PINGPONG, m->wait_end = 0.5;
            key(m, 0, c, sweep_quat_identity());
            key(m, 0.75, c, about_z(45));
            key(m, 1.5, c, about_z(90));
            rider->kind = 1;
            rider->home = sweep_v3(c.x + 1.2, c.y + 0.9, 0.9005);
            break;
        }
    }
}

/* The static twin: each mover's triangles at its first pose become floor-like static geometry. */
static void freeze_movers(sweep_level *lv)
{
    for (uint32_t i = 0; i < lv->mover_count; i++) {
        const sweep_level_mover *m = &lv->movers[i];
        const sweep_mover_pose *p = &m->keys[0].pose;
        uint32_t base = lv->vertex_count;
        for (uint32_t v = 0; v < m->vertex_count; v++)
            check(sweep_level_add_vertex(lv, sweep_v3_add(sweep_quat_rotate(p->rotation, m->vertices[v]), p->position),
                                         NULL),
                  "frozen vertex");
        for (uint32_t t = 0; t < m->triangle_count; t++)
            check(sweep_level_add_triangle(lv, base + m->indices[3 * t], base + m->indices[3 * t + 1],
                                           base + m->indices[3 * t + 2], 1),
                  "frozen tri");
    }
}

static void place(body *bodies, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        body *b = &bodies[i];
        b->b.position = b->home;
        b->b.radii = RADII;
        b->b.ground_mover = b->b.touch_mover = b->b.mover = SWEEP_NO_MOVER;
        b->b.flags = 0;
        b->vel = sweep_v3(0, 0, 0);
        b->grounded = 0;
    }
}

/* The lateral wish of body i at tick t: riders stand, walkers pace. */
static sweep_vec3 wish(const body *b, uint32_t i, uint32_t t)
{
    if (b->kind == 0)
        return sweep_v3(0, 0, 0);
    int leg = (int)((t / 90 + i) % 4);
    static const double dx[4] = {2.5, 0, -2.5, 0}, dy[4] = {0.4, -2.5, -0.4, 2.5};
    return sweep_v3(dx[leg], dy[leg], 0);
}

/* Runs the session; samples get one time per move; tick_ns one per tick. */
static void run(const sweep_world *w, sweep_movers *mv, const sweep_config *cfg, body *bodies, uint32_t n,
                uint32_t ticks, float *samples, float *tick_ns)
{
    sweep_body *tb = malloc(n * sizeof *tb);
    if (!tb)
        exit(1);
    place(bodies, n);
    size_t k = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        if (mv) {
            for (uint32_t i = 0; i < n; i++)
                tb[i] = bodies[i].b;
            double a = now_ns();
            check(sweep_movers_tick(mv, w, cfg, tb, n, NULL), "tick");
            tick_ns[t] = (float)(now_ns() - a);
            for (uint32_t i = 0; i < n; i++)
                bodies[i].b = tb[i];
        }
        for (uint32_t i = 0; i < n; i++) {
            body *b = &bodies[i];
            sweep_vec3 l = wish(b, i, t);
            sweep_move_input in = {b->b.position, RADII, sweep_v3(l.x, l.y, b->vel.z - 9.81 * DT), DT,
                                   b->grounded ? SWEEP_INPUT_GROUNDED : 0};
            sweep_move_result r;
            double a = now_ns();
            sweep_status st = sweep_move_among(w, mv, cfg, &in, &r);
            samples[k++] = (float)(now_ns() - a);
            check(st, "move");
            b->b.position = r.position;
            b->vel = r.velocity;
            b->grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
            b->b.ground_mover = b->grounded ? r.ground_mover : SWEEP_NO_MOVER;
            b->b.touch_mover = r.contact_count && r.contacts[0].mover != SWEEP_NO_MOVER ? r.contacts[0].mover
                                                                                        : SWEEP_NO_MOVER;
        }
    }
    free(tb);
}

static double pct(float *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_float);
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return v[i];
}

int main(int argc, char **argv)
{
    uint32_t movers = argc > 1 ? (uint32_t)atoi(argv[1]) : 120;
    uint32_t ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 570;
    if (movers < 1 || movers > 10000 || ticks < 1 || ticks > 100000) {
        fprintf(stderr, "usage: bench_movers [MOVERS 1..10000 [TICKS 1..100000]]\n");
        return 2;
    }
    uint32_t n = 2 * movers;
    body *bodies = calloc(n, sizeof *bodies);
    size_t moves = (size_t)n * ticks;
    float *samples = malloc(moves * sizeof *samples), *tick_ns = malloc(ticks * sizeof *tick_ns);
    if (!bodies || !samples || !tick_ns)
        return 1;

    sweep_level lv;
    build_level(&lv, movers, bodies);
    sweep_world *w;
    sweep_movers *mv;
    sweep_world_desc d = sweep_level_world_desc(&lv);
    check(sweep_world_create(&d, &w), "world");
    check(sweep_level_build_movers(&lv, &mv), "movers");
    uint32_t riders = 0;
    for (uint32_t i = 0; i < n; i++)
        riders += bodies[i].kind == 0;

    double t0 = now_ns();
    run(w, mv, &lv.config, bodies, n, ticks, samples, tick_ns);
    double total = 0.0;
    for (size_t i = 0; i < moves; i++)
        total += samples[i];
    (void)t0;
    double p50 = pct(samples, moves, 50), p99 = pct(samples, moves, 99);
    double tick_p50 = pct(tick_ns, ticks, 50);
    uint32_t carried_riders = 0;
    for (uint32_t i = 0; i < n; i++)
        carried_riders += bodies[i].kind == 0 && bodies[i].b.ground_mover != SWEEP_NO_MOVER;

    /* The same level with the movers frozen where they start. */
    sweep_level frozen;
    build_level(&frozen, movers, bodies);
    freeze_movers(&frozen);
    sweep_world *fw;
    sweep_world_desc fd = sweep_level_world_desc(&frozen);
    check(sweep_world_create(&fd, &fw), "frozen world");
    run(fw, NULL, &frozen.config, bodies, n, ticks, samples, tick_ns);
    double static_p50 = pct(samples, moves, 50);

    printf("BENCH name=core.movers movers=%u riders=%u moves_per_s=%.0f ns_per_move_p50=%.0f ns_per_move_p99=%.0f "
           "tick_ns_p50=%.0f static_ns_per_move_p50=%.0f ratio_to_static=%.2f riders_on_board=%u\n",
           movers, riders, (double)moves / (total / 1e9), p50, p99, tick_p50, static_p50, p50 / static_p50,
           carried_riders);
    sweep_movers_destroy(mv);
    sweep_world_destroy(w);
    sweep_world_destroy(fw);
    sweep_level_free(&lv);
    sweep_level_free(&frozen);
    free(bodies);
    free(samples);
    free(tick_ns);
    return 0;
}
