/*
 * bench_query.c - what lag-compensated queries and the history behind
 * them cost, on a generated level or a map file.
 *
 *   BENCH name=core.query kind=<ray|sweep|overlap|los> map=<level> entities=64
 *         age_ms=<0|100|250> ns_per_query_mean=<x> ns_per_query_p99=<x>
 *   BENCH name=core.history entities=<n> tick_ns=<x> tick_ns_added=<x>
 *         ratio_added=<x> bytes_per_entity_second=<x>
 *         bytes_per_entity_second_given=<x> clock_ns=<x>
 *
 * 64 walkers walk the level (sweep_walker, its movers running) for a
 * second and a half of ticks, each tick kept in a history of one second;
 * then each kind of query is asked 20,000 times at each age, half a tick
 * past that many milliseconds before the newest tick (0: the newest tick
 * itself): a shot from one entity (ignored by its own query) at where
 * another was then, carried on for half as far again (ray, line of
 * sight; a sweep is the same path with a ball of a tenth of a player's
 * largest radius), and an explosion of 8 player radii at an entity (overlap,
 * the level blocking the view). The mean is the thread's CPU time over the
 * whole batch, the median of 3 batches; p99 from the same queries timed one
 * at a time on the monotonic clock (its reads included, some 20-40 ns;
 * on a busy machine it also holds the times the thread was not running).
 *
 * core.history: N walkers walk for a second of ticks (filling the
 * history's ring) and then 300 more (movers ticking), and over those the
 * time of a tick's moves is compared with the time of pushing its frame
 * (every other entity with 3 hit shapes), each timed on the monotonic
 * clock tick by tick: tick_ns is the moves', tick_ns_added the push's
 * (each the mean over the 8 phases of a set's period of that phase's
 * median, less clock_ns, what reading the clock costs), ratio_added
 * their ratio; bytes_per_entity_second is what the history holds for
 * one entity for one second of ticks (room for SWEEP_HIT_SHAPES_MAX shapes
 * each), bytes_per_entity_second_given the same with a pool of only the
 * shapes given (sweep_history_create_shapes).
 *
 * Usage: bench_query [--map FILE.db | --tris N] [--name NAME] [--speed U/S]
 *        [--kind KIND] [--history N]  (default --tris 10000; --kind asks
 * only that kind; --history N runs only the history figure for N
 * entities).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/history.h"
#include "core/history_impl.h"
#include "core/query.h"
#include "core/walker.h"
#include "maps/level.h"
#include "maps/levelgen.h"
#include "maps/loader.h"

#define ENTITIES 64
#define QUERIES 20000
#define ROUNDS 3

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* This thread's CPU time: what a batch cost, whatever else the (shared,
 * busy) machine ran meanwhile. */
static double cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct game {
    sweep_level lv;
    sweep_world *w;
    sweep_movers *mv;
    sweep_walk_params wp;
    sweep_walker *wk;
    sweep_hit_shape (*shapes)[3];
    sweep_history_entity *ents;
    sweep_mover_pose *poses;
    uint32_t n, movers, step;
} game;

static int game_open(game *g, const char *map, uint32_t tris)
{
    memset(g, 0, sizeof *g);
    sweep_level_init(&g->lv);
    char err[256];
    if (map ? sweep_map_load(map, &g->lv, NULL, err, sizeof err) != SWEEP_OK
            : sweep_levelgen(&(sweep_levelgen_params){1, tris, 64, 16}, &g->lv) != SWEEP_OK) {
        fprintf(stderr, "bench_query: cannot load %s: %s\n", map ? map : "a generated level", map ? err : "");
        return 0;
    }
    sweep_world_desc d = sweep_level_world_desc(&g->lv);
    if (sweep_world_create(&d, &g->w) != SWEEP_OK || sweep_level_build_movers(&g->lv, &g->mv) != SWEEP_OK ||
        g->lv.spawn_count == 0) {
        fprintf(stderr, "bench_query: the level cannot be walked\n");
        return 0;
    }
    sweep_world_prepare_radii(g->w, g->lv.default_radii);
    g->movers = sweep_movers_count(g->mv);
    return 1;
}

static int game_walkers(game *g, uint32_t n, double speed)
{
    g->n = n;
    g->wp = (sweep_walk_params){n, 0, 45, 1.0 / g->lv.tick_rate, speed, g->lv.default_radii, 7};
    g->wk = calloc(n, sizeof *g->wk);
    g->shapes = calloc(n, sizeof *g->shapes);
    g->ents = calloc(n, sizeof *g->ents);
    g->poses = calloc(g->movers ? g->movers : 1, sizeof *g->poses);
    if (!g->wk || !g->shapes || !g->ents || !g->poses)
        return 0;
    sweep_walk_place(&g->wp, g->lv.spawns, g->lv.spawn_count, g->wk);
    sweep_vec3 r = g->lv.default_radii;
    for (uint32_t i = 0; i < n; i++) {
        /* Head, torso and an arm, inside the body's reach. */
        sweep_hit_shape head = {1, SWEEP_SHAPE_SPHERE, {0, 0, r.z * 0.75}, {0, 0, 0}, {r.x * 0.5, 0, 0}};
        sweep_hit_shape torso = {2, SWEEP_SHAPE_CAPSULE, {0, 0, -r.z * 0.5}, {0, 0, r.z * 0.3}, {r.x * 0.8, 0, 0}};
        sweep_hit_shape arm = {3, SWEEP_SHAPE_ELLIPSOID, {r.x, 0, r.z * 0.2}, {0, 0, 0}, {r.x * 0.3, r.x * 0.3, r.z * 0.4}};
        g->shapes[i][0] = head, g->shapes[i][1] = torso, g->shapes[i][2] = arm;
    }
    return 1;
}

/* One tick's moves: the movers, then every walker's step. */
static void game_moves(game *g)
{
    sweep_move_result res;
    sweep_walk_tick(g->mv, g->w, &g->lv.config, &g->wp, g->lv.spawns, g->lv.spawn_count, g->wk, NULL);
    for (uint32_t i = 0; i < g->n; i++)
        sweep_walk_step_among(g->w, g->mv, &g->lv.config, &g->wp, i, g->step, &g->wk[i], &res);
    g->step++;
}

/* The frame of the tick just moved. */
static sweep_status game_push(game *g, sweep_history *h, uint64_t tick)
{
    for (uint32_t i = 0; i < g->n; i++) {
        sweep_history_entity *e = &g->ents[i];
        e->id = 100 + i, e->position = g->wk[i].position, e->radii = g->lv.default_radii;
        e->shapes = g->shapes[i], e->shape_count = i % 2 ? 3 : 0;
    }
    for (uint32_t m = 0; m < g->movers; m++)
        sweep_movers_get(g->mv, m, &g->poses[m], NULL);
    return sweep_history_push(h, tick, g->ents, g->n, g->poses, g->movers);
}

static void game_close(game *g)
{
    free(g->wk), free(g->shapes), free(g->ents), free(g->poses);
    sweep_movers_destroy(g->mv);
    sweep_world_destroy(g->w);
    sweep_level_free(&g->lv);
}

typedef enum kind { K_RAY, K_SWEEP, K_OVERLAP, K_LOS, K_COUNT } kind;
static const char *const KIND_NAME[K_COUNT] = {"ray", "sweep", "overlap", "los"};

typedef struct qcase {
    sweep_vec3 from, to;
    uint64_t shooter;
} qcase;

static volatile uint64_t sink_bits;

static void ask(const sweep_query_space *s, kind k, const qcase *c, double player)
{
    sweep_query_filter f = {0, &c->shooter, 1};
    sweep_query_hit hit;
    int clear;
    uint32_t n;
    int more;
    sweep_query_found found[8];
    sweep_status st = SWEEP_OK;
    switch (k) {
    case K_RAY:
        st = sweep_query_ray(s, c->from, c->to, &f, &hit);
        sink_bits += hit.kind;
        break;
    case K_SWEEP: {
        double r = player * 0.1;
        st = sweep_query_sweep(s, c->from, c->to, sweep_v3(r, r, r), &f, &hit);
        sink_bits += hit.kind;
        break;
    }
    case K_OVERLAP:
        st = sweep_query_overlap(s, c->from, player * 8.0, &f, found, 8, &n, &more);
        sink_bits += n;
        break;
    default:
        st = sweep_query_line_of_sight(s, c->from, c->to, &f, &clear);
        sink_bits += (uint64_t)clear;
        break;
    }
    if (st != SWEEP_OK) {
        fprintf(stderr, "bench_query: %s failed: %s\n", KIND_NAME[k], sweep_status_name(st));
        exit(1);
    }
}

static void queries(game *g, const char *name, double speed, const char *only)
{
    double rate = g->lv.tick_rate;
    uint32_t keep = (uint32_t)ceil(rate), warm = keep + keep / 2;
    sweep_history *h;
    if (!game_walkers(g, ENTITIES, speed) || sweep_history_create(keep, ENTITIES, g->movers, &h) != SWEEP_OK) {
        fprintf(stderr, "bench_query: set-up failed\n");
        exit(1);
    }
    for (uint32_t t = 0; t < warm; t++) {
        game_moves(g);
        if (game_push(g, h, t) != SWEEP_OK) {
            fprintf(stderr, "bench_query: push failed\n");
            exit(1);
        }
    }
    uint64_t newest = warm - 1;
    double player = fmax(g->lv.default_radii.x, fmax(g->lv.default_radii.y, g->lv.default_radii.z));
    qcase *cases = malloc(QUERIES * sizeof *cases);
    double *samples = malloc(QUERIES * sizeof *samples);
    static const int ages[] = {0, 100, 250};
    for (size_t a = 0; a < sizeof ages / sizeof ages[0]; a++) {
        uint64_t back = (uint64_t)floor(ages[a] * rate / 1000.0 + 0.5);
        sweep_query_space s = {g->w, g->mv, h, {newest - back, back ? 0.5 : 0.0}};
        if (back)
            s.at.tick = newest - back; /* + half a tick */
        sweep__hist_at at;
        if (sweep__history_at(h, s.at.tick, s.at.fraction, &at) != SWEEP_OK) {
            fprintf(stderr, "bench_query: age %d ms is outside the history\n", ages[a]);
            exit(1);
        }
        uint64_t rs = 11 + a;
        for (uint32_t i = 0; i < QUERIES; i++) {
            const sweep__hist_entity *shooter = &at.e0[rng(&rs) % at.f0->count];
            const sweep__hist_entity *target = &at.e0[rng(&rs) % at.f0->count];
            qcase *c = &cases[i];
            c->shooter = shooter->id;
            c->from = sweep_v3_add(shooter->position, sweep_v3(0, 0, g->lv.default_radii.z * 0.7));
            c->to = sweep_v3_madd(c->from, sweep_v3_sub(target->position, c->from), 1.5);
        }
        for (int k = 0; k < K_COUNT; k++) {
            if (only && strcmp(only, KIND_NAME[k]))
                continue;
            double means[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                double t0 = cpu_ns();
                for (uint32_t i = 0; i < QUERIES; i++)
                    ask(&s, (kind)k, &cases[i], player);
                means[r] = (cpu_ns() - t0) / QUERIES;
            }
            for (uint32_t i = 0; i < QUERIES; i++) {
                double t0 = now_ns();
                ask(&s, (kind)k, &cases[i], player);
                samples[i] = now_ns() - t0;
            }
            qsort(means, ROUNDS, sizeof *means, cmp_double);
            qsort(samples, QUERIES, sizeof *samples, cmp_double);
            printf("BENCH name=core.query kind=%s map=%s entities=%d age_ms=%d ns_per_query_mean=%.0f "
                   "ns_per_query_p99=%.0f\n",
                   KIND_NAME[k], name, ENTITIES, ages[a], means[ROUNDS / 2], samples[QUERIES * 99 / 100]);
        }
    }
    free(cases), free(samples);
    sweep_history_destroy(h);
}

/* What one reading of the monotonic clock costs (some 20-30 ns, no
 * system call), the median of 101 empty intervals: each interval timed
 * below holds about one reading, which is no part of what it times. */
static double clock_cost(void)
{
    double d[101];
    for (int i = 0; i < 101; i++) {
        double t0 = now_ns();
        d[i] = now_ns() - t0;
    }
    qsort(d, 101, sizeof *d, cmp_double);
    return d[50];
}

/* A figure over ticks first_tick .. + n of what d[] timed each: a push's
 * cost has a period of SWEEP__HISTORY_SET_TICKS ticks (a set that lasts
 * is written again once in as many, here every walker's in the same
 * tick), so the median of each phase of that period, and the mean of
 * those. A median leaves out the ticks in which the busy machine ran
 * something else, which a mean would count. n: two periods at least
 * (each phase then has a tick); phase: room for n. */
static double phase_median(const double *d, uint32_t n, uint64_t first_tick, double *phase)
{
    uint32_t period = SWEEP__HISTORY_SET_TICKS;
    double sum = 0.0;
    for (uint32_t k = 0; k < period; k++) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            if ((first_tick + i) % period == k)
                phase[m++] = d[i];
        qsort(phase, m, sizeof *phase, cmp_double);
        sum += m % 2 ? phase[m / 2] : (phase[m / 2 - 1] + phase[m / 2]) / 2;
    }
    return sum / period;
}

static void history_cost(game *g, uint32_t n, double speed)
{
    uint32_t keep = (uint32_t)ceil(g->lv.tick_rate), ticks = 300;
    sweep_history *h;
    if (!game_walkers(g, n, speed) || sweep_history_create(keep, n, g->movers, &h) != SWEEP_OK) {
        fprintf(stderr, "bench_query: set-up failed\n");
        exit(1);
    }
    /* The ring is filled first, and run on to a server's steady state:
     * every page touched (the first touch of each costs a fault, once).
     * A set that lasts is written every SWEEP__HISTORY_SET_TICKS ticks
     * into the pool of its tick, so the pools have all been written only
     * after that many times as many ticks as there are pools. */
    uint32_t warm = (keep + SWEEP__HISTORY_SET_TICKS) * SWEEP__HISTORY_SET_TICKS;
    for (uint32_t t = 0; t < warm; t++) {
        game_moves(g);
        if (game_push(g, h, t) != SWEEP_OK) {
            fprintf(stderr, "bench_query: push failed\n");
            exit(1);
        }
    }
    /* Each tick's moves and push timed on the monotonic clock: the
     * thread's CPU clock is a system call here, as long as a push of 64
     * entities, and with its cost taken off each interval a push of 64
     * entities still read some 600 ns more than on the monotonic clock,
     * a third of its figure. */
    double clock = clock_cost();
    double *moves = malloc(ticks * sizeof *moves), *pushes = malloc(ticks * sizeof *pushes),
           *phase = malloc(ticks * sizeof *phase);
    if (!moves || !pushes || !phase) {
        fprintf(stderr, "bench_query: set-up failed\n");
        exit(1);
    }
    for (uint32_t i = 0; i < ticks; i++) {
        double t0 = now_ns();
        game_moves(g);
        double t1 = now_ns();
        if (game_push(g, h, warm + i) != SWEEP_OK) {
            fprintf(stderr, "bench_query: push failed\n");
            exit(1);
        }
        double t2 = now_ns();
        moves[i] = t1 - t0 - clock, pushes[i] = t2 - t1 - clock;
    }
    double tick_ns = phase_median(moves, ticks, warm, phase), added_ns = phase_median(pushes, ticks, warm, phase);
    free(moves), free(pushes), free(phase);
    double per_entity_second = (double)(sweep_history_bytes(keep, n, 0) - sweep_history_bytes(keep, 0, 0)) / n *
                               g->lv.tick_rate / keep;
    /* The same with a pool of only the shapes given (3 every other
     * entity), as an owner that allows no more would make it. */
    uint32_t given = (n / 2) * 3;
    double given_second = (double)(sweep_history_bytes_shapes(keep, n, given, 0) - sweep_history_bytes(keep, 0, 0)) /
                          n * g->lv.tick_rate / keep;
    printf("BENCH name=core.history entities=%u tick_ns=%.0f tick_ns_added=%.0f ratio_added=%.4f "
           "bytes_per_entity_second=%.0f bytes_per_entity_second_given=%.0f clock_ns=%.0f\n",
           n, tick_ns, added_ns, added_ns / tick_ns, per_entity_second, given_second, clock);
    sweep_history_destroy(h);
}

int main(int argc, char **argv)
{
    const char *map = NULL, *name = NULL, *only = NULL;
    uint32_t tris = 10000, history = 0;
    double speed = 0.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--map") && i + 1 < argc)
            map = argv[++i];
        else if (!strcmp(argv[i], "--tris") && i + 1 < argc)
            tris = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--name") && i + 1 < argc)
            name = argv[++i];
        else if (!strcmp(argv[i], "--speed") && i + 1 < argc)
            speed = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--kind") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--history") && i + 1 < argc)
            history = (uint32_t)strtoul(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench_query [--map FILE.db | --tris N] [--name NAME] [--speed U/S] "
                            "[--kind KIND] [--history N]\n");
            return 2;
        }
    }
    char gen[64];
    snprintf(gen, sizeof gen, "generated-%u", tris);
    if (!name)
        name = map ? map : gen;
    game g;
    if (!game_open(&g, map, tris))
        return 1;
    if (speed <= 0.0)
        speed = 6.0 * g.lv.default_radii.z / 0.9; /* a run, in the level's units */
    if (history)
        history_cost(&g, history, speed);
    else
        queries(&g, name, speed, only);
    game_close(&g);
    return 0;
}
