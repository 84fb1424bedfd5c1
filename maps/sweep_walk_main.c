/*
 * sweep_walk_main.c - sweep-walk: walkers on a level, as a benchmark and as
 * a quick check that a level is walkable.
 *
 * It builds a generated level (or loads a map), places walkers at the
 * spawn points, runs the walker workload of walker.h and prints one BENCH
 * line (moves per second, per-move latency percentiles, memory per
 * triangle, BVH build time) and the final state hash, which is the same on
 * every machine for the same arguments. With --svg it also draws the level
 * and where each walker went (maps/plot.h).
 */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/version.h"
#include "core/move.h"
#include "core/world.h"
#include "maps/level.h"
#include "maps/levelgen.h"
#include "maps/loader.h"
#include "maps/plot.h"
#include "core/parse.h"
#include "maps/text_input.h"
#include "core/walker.h"

static const char usage[] =
    "usage: sweep-walk [options]\n"
    "\n"
    "Walks simulated players over a level and reports speed and the final\n"
    "state hash (identical on every machine for the same options).\n"
    "\n"
    "level:\n"
    "  --tris N           generated level of about N triangles (default 10000)\n"
    "  --level-seed S     seed of the generated level (default 1)\n"
    "  --movers N         give the generated level N movers (lifts, turntables, doors;\n"
    "                     default 0); a map's own movers always run\n"
    "  --map FILE         a SQLite map instead of a generated level\n"
    "walkers:\n"
    "  --walkers N        number of walkers (default 64)\n"
    "  --steps N          steps per walker (default 1000)\n"
    "  --dt SECONDS       time step (default 1/60)\n"
    "  --speed U          walking speed across the up axis, units/s (default: the\n"
    "                     level's walk speed, from its rules)\n"
    "  --heading-every N  steps between heading changes (default 60)\n"
    "  --gravity X,Y,Z    gravity, units/s^2 (default: the level's)\n"
    "  --radii X,Y,Z      ellipsoid radii (default: the level's)\n"
    "  --seed S           seed of the headings (default 1)\n"
    "  --no-prepare       do not prepare the world for the walkers' radii (the same\n"
    "                     walk, slower: each move prepares the triangles it meets)\n"
    "  --spawns FILE      start points, one 'x y z' per line, # comments allowed\n"
    "                     (default: the level's)\n"
    "output:\n"
    "  --dump FILE        write the final position of each walker: 'id x y z' lines\n"
    "  --bench-only       print only the BENCH and hash lines\n"
    "  --level-bench      also print a BENCH name=core.level line (the map's volumes,\n"
    "                     mean cost, fallback moves, stuck, trapped and inside\n"
    "                     walkers, walkers that left\n"
    "                     the level); its mean comes from the same walk run again,\n"
    "                     timed a step (every walker's move) at a time, since the\n"
    "                     clock reads around each move add about 20 ns to each\n"
    "                     sample that p50 and p99 are taken from (their mean is\n"
    "                     ns_per_move_mean_clocked)\n"
    "  --demo             also tell what happened to each walker (at most 16)\n"
    "  --svg FILE         draw the level with each walker's path, where walkers\n"
    "                     started and were crushed, and the movers' paths (SVG;\n"
    "                     the drawing is timed with the walk's moves per second)\n"
    "  --axis A           the axis --svg looks along: x, y or z (default z: from above)\n"
    "  --help             this text\n"
    "  --version          the release of sweep this tool belongs to\n"
    "\n"
    "The state line counts walkers that left the level (left=), and those that\n"
    "went nowhere (less than a radius) in the last 300 steps, or in the last half\n"
    "of a shorter walk (still=). Each still walker is judged by tests that do not\n"
    "use the core's sweep: stuck= counts the core's failures (a walker inside\n"
    "geometry, or one that cannot walk although the level has room for it),\n"
    "trapped= the walkers the level itself holds (a closet: no room to walk two\n"
    "radii in any direction); the rest only met a corner with unlucky headings.\n"
    "inside= counts every walker that ends overlapping geometry (in stuck= too).\n"
    "fell= counts the walkers that fell out of the level: below its lowest point\n"
    "by more than their height, falling longer than a fall from its top to its\n"
    "bottom takes, or into one of its kill volumes; each is named with the place\n"
    "and step where it last stood (\"walker 7 left at (x, y, z) step 812\", and\n"
    "\"into kill volume 5 'void'\" for a kill) and --svg marks that place. A walker\n"
    "killed is respawned at its spawn point, as a crushed one is (killed= counts\n"
    "those moves). The walkers move as the core moves a body, not by the movement\n"
    "rules: no other kind of volume (pads, teleporters, liquids, ladders) acts on\n"
    "them; sweep move --map walks a player through those.\n"
    "Without --speed, --gravity and --radii the walkers take the level's rules (its\n"
    "walk speed, gravity and player radii, in its units); a line says which.\n";

typedef struct options {
    uint32_t tris, walkers, steps, heading_every, movers;
    uint64_t level_seed, seed;
    double dt, speed;
    int has_gravity, has_radii, has_speed, bench_only, demo, level_bench, no_prepare;
    sweep_vec3 gravity, radii;
    const char *spawns, *dump, *map, *svg;
    char axis;
} options;

static int fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "sweep-walk: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return 2;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The walk run again from the start on fresh walkers and movers, with the
 * clock read around each step's moves (every walker's) instead of around
 * each move: the mean cost of a move without the two clock reads that a
 * per-move sample includes (about 20 ns on the benchmark machine, two
 * percent of the costliest level's move). The movers' ticks are outside
 * the clock, as they are outside the per-move samples. The walk must end
 * in the same state as the first (*hash), or the mean is not of it: 0
 * then, and on an error.
 */
static double mean_by_step(const sweep_world *world, const sweep_level *lv, const sweep_config *cfg,
                           const sweep_walk_params *wp, const sweep_vec3 *spawns, uint32_t spawn_count,
                           const sweep_volume *vols, uint64_t want_hash)
{
    sweep_movers *movers = NULL;
    sweep_walker *walkers = calloc(wp->walkers, sizeof *walkers);
    double mean = 0.0, sum_ns = 0.0;
    uint64_t crushed = 0;
    if (!walkers || (lv->mover_count > 0 && sweep_level_build_movers(lv, &movers) != SWEEP_OK))
        goto done;
    sweep_walk_place(wp, spawns, spawn_count, walkers);
    sweep_move_result res;
    for (uint32_t s = 0; s < wp->steps; s++) {
        if (movers && sweep_walk_tick(movers, world, cfg, wp, spawns, spawn_count, walkers, &crushed) != SWEEP_OK)
            goto done;
        double a = now_ns();
        for (uint32_t i = 0; i < wp->walkers; i++)
            sweep_walk_step_among(world, movers, cfg, wp, i, s, &walkers[i], &res);
        sum_ns += now_ns() - a;
        /* Off the clock, as in the walk: a walker's move does not see the
         * others, so killing them after the step's moves is the same. */
        for (uint32_t i = 0; vols && i < wp->walkers; i++)
            if (sweep_walk_kill_volume(vols, lv->volume_count, walkers[i].position) != SWEEP_WALK_NOT_KILLED)
                sweep_walk_respawn(spawns, spawn_count, i, &walkers[i]);
    }
    uint64_t hash = sweep_walk_hash(walkers, wp->walkers);
    if (movers)
        hash = sweep_movers_hash(movers, hash);
    if (hash == want_hash)
        mean = sum_ns / ((double)wp->walkers * wp->steps);
done:
    sweep_movers_destroy(movers);
    free(walkers);
    return mean;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/*
 * Walkers that fell out of the level: lower than its lowest point along
 * up by more than their height, or in the air longer than a fall from the
 * level's top to its bottom (and their height) takes: nothing is under
 * them; or into a kill volume, which ends a player wherever it is (the
 * walk then respawns it). Each is remembered with where and when it last
 * stood, the place it left the level, the first time it did.
 */
typedef struct fall_track {
    sweep_vec3 left_at;  /* where it last stood (its start if it never did) */
    uint32_t left_step;  /* the step after it last stood */
    uint32_t airborne;   /* steps in the air since */
    int fell;
    uint32_t killed_by;  /* the level's volume index + 1 of the kill that ended it, or 0 */
} fall_track;

typedef struct fall_watch {
    fall_track *w;
    sweep_vec3 up;
    double lowest;       /* the level's lowest point along up, less the walkers' height */
    uint32_t max_airborne; /* steps */
    uint32_t fell;
} fall_watch;

static int fall_watch_start(fall_watch *f, const sweep_world_info *info, const sweep_config *cfg,
                            const sweep_walk_params *wp, const sweep_walker *walkers)
{
    memset(f, 0, sizeof *f);
    f->w = calloc(wp->walkers, sizeof *f->w);
    if (!f->w)
        return 0;
    f->up = sweep_walk_up(cfg);
    sweep_vec3 r = wp->radii, u = f->up;
    double height = 2.0 * sqrt(r.x * r.x * u.x * u.x + r.y * r.y * u.y * u.y + r.z * r.z * u.z * u.z);
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < 8; k++) {
        sweep_vec3 c = sweep_v3(k & 1 ? info->bounds_max.x : info->bounds_min.x,
                                k & 2 ? info->bounds_max.y : info->bounds_min.y,
                                k & 4 ? info->bounds_max.z : info->bounds_min.z);
        double h = sweep_v3_dot(c, u);
        lo = h < lo ? h : lo, hi = h > hi ? h : hi;
    }
    f->lowest = lo - height;
    double g = sweep_v3_len(cfg->gravity);
    double fall_s = g > 0.0 ? sqrt(2.0 * (hi - lo + height) / g) + 1.0 : INFINITY;
    f->max_airborne = fall_s / wp->dt < 4e9 ? (uint32_t)ceil(fall_s / wp->dt) : UINT32_MAX;
    for (uint32_t i = 0; i < wp->walkers; i++)
        f->w[i].left_at = walkers[i].position;
    return 1;
}

/* After walker i's move at `step`: 1 if it has just fallen out. */
static int fall_watch_step(fall_watch *f, uint32_t i, uint32_t step, const sweep_walker *w)
{
    fall_track *t = &f->w[i];
    if (t->fell)
        return 0; /* the first fall is the one told (a killed walker walks on) */
    if (w->grounded) {
        t->left_at = w->position;
        t->left_step = step + 1;
        t->airborne = 0;
        return 0;
    }
    t->airborne++;
    if (!(sweep_v3_dot(w->position, f->up) < f->lowest || t->airborne > f->max_airborne))
        return 0;
    t->fell = 1;
    f->fell++;
    return 1;
}

/* After walker i's move ended in the level's kill volume k (its index):
 * a fall, counted once a walker, the first one remembered (the walk then
 * respawns it). 1 if this is its first fall. */
static int fall_watch_killed(fall_watch *f, uint32_t i, uint32_t k)
{
    fall_track *t = &f->w[i];
    if (t->fell)
        return 0;
    t->fell = 1;
    t->killed_by = k + 1;
    f->fell++;
    return 1;
}

/* "fell=2: walker 7 left at (x, y, z) step 812, ..." (the first 16); a
 * kill names its volume: "... step 812 into kill volume 5 'lava'". */
static void fall_watch_report(const fall_watch *f, uint32_t n, const sweep_level *lv)
{
    if (!f->fell)
        return;
    printf("fell=%u:", f->fell);
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n && shown < 16; i++) {
        const fall_track *t = &f->w[i];
        if (!t->fell)
            continue;
        printf("%s walker %u left at (%.6g, %.6g, %.6g) step %u", shown ? "," : "", i, t->left_at.x, t->left_at.y,
               t->left_at.z, t->left_step);
        if (t->killed_by)
            printf(" into kill volume %u '%s'", lv->volumes[t->killed_by - 1].id, lv->volumes[t->killed_by - 1].name);
        shown++;
    }
    if (f->fell > shown)
        printf(", and %u more", f->fell - shown);
    printf("\n");
}

/* What --demo tells about one walker. */
typedef struct demo_track {
    sweep_vec3 up;
    sweep_vec3 start;
    double path, lowest, highest; /* along up */
    uint32_t steps_climbed, snaps, hits, airborne, embedded;
    sweep_vec3 last;
    int verdict; /* sweep_walk_verdict of a still walker, -1 for one that kept moving */
} demo_track;

static demo_track *demo_start(const sweep_walker *walkers, uint32_t n, const sweep_config *cfg)
{
    demo_track *t = calloc(n, sizeof *t);
    for (uint32_t i = 0; t && i < n; i++) {
        t[i].up = sweep_walk_up(cfg);
        t[i].start = t[i].last = walkers[i].position;
        t[i].verdict = -1;
    }
    return t;
}

static void demo_note(demo_track *t, const sweep_move_result *r)
{
    double h = sweep_v3_dot(sweep_v3_sub(r->position, t->start), t->up);
    t->lowest = h < t->lowest ? h : t->lowest;
    t->highest = h > t->highest ? h : t->highest;
    t->path += sweep_v3_len(sweep_v3_sub(r->position, t->last));
    t->last = r->position;
    t->steps_climbed += (r->flags & SWEEP_MOVED_STEPPED) != 0;
    t->snaps += (r->flags & SWEEP_MOVED_SNAPPED) != 0;
    t->hits += (r->flags & SWEEP_MOVED_HIT) != 0;
    t->airborne += (r->flags & SWEEP_MOVED_GROUNDED) == 0;
    t->embedded += (r->flags & SWEEP_MOVED_STARTED_EMBEDDED) != 0;
}

/* What --demo says of a walker's verdict (sweep_walk_judge). */
static const char *verdict_note(int v)
{
    switch (v) {
    case SWEEP_WALK_FREE:
        return "; went nowhere lately, but can walk on (its headings were unlucky)";
    case SWEEP_WALK_TRAPPED:
        return "; TRAPPED: the level leaves it no room to walk";
    case SWEEP_WALK_STUCK:
        return "; STUCK: there is room, but it cannot walk there";
    case SWEEP_WALK_INSIDE:
        return "; STUCK inside geometry";
    default:
        return "";
    }
}

/* Plain-language account of each walker's trip, for make run and level checks. */
static void demo_report(const demo_track *t, const sweep_walker *w, uint32_t n, const sweep_config *cfg,
                        uint32_t steps, double dt, const fall_watch *falls)
{
    printf("\n%u walkers, %u steps of %.4g s each (%.1f s of play); step height %.3g, walkable slope "
           "cos %.3f:\n", n, steps, dt, steps * dt, cfg->step_height, cfg->walkable_normal_up);
    for (uint32_t i = 0; i < n && i < 16; i++) {
        const demo_track *d = &t[i];
        printf("  walker %2u: (%.2f, %.2f, %.2f) -> (%.2f, %.2f, %.2f), walked %.1f units, height %+.2f..%+.2f;\n"
               "             touched surfaces on %u steps, climbed %u steps, snapped down %u times, airborne %u steps,"
               " %s at the end%s%s\n",
               i, d->start.x, d->start.y, d->start.z, w[i].position.x, w[i].position.y, w[i].position.z, d->path,
               d->lowest, d->highest, d->hits, d->steps_climbed, d->snaps, d->airborne,
               w[i].grounded ? "standing" : "in the air", d->embedded ? " (started embedded at least once)" : "",
               falls->w[i].fell ? "; FELL out of the level" : verdict_note(d->verdict));
    }
    if (n > 16)
        printf("  (%u more walkers not shown)\n", n - 16);
}

/* What --svg draws with: the plot, each walker a track of the same number,
 * and where the walkers were before the movers' tick (to see who was
 * crushed). */
typedef struct walk_plot {
    sweep_plot *plot;
    sweep_walker *before;
} walk_plot;

static void plot_movers(walk_plot *wp, const sweep_movers *movers)
{
    for (uint32_t m = 0; movers && m < sweep_movers_count(movers); m++) {
        sweep_mover_pose pose;
        sweep_movers_get(movers, m, &pose, NULL);
        sweep_plot_mover_point(wp->plot, m, pose.position);
    }
}

static int plot_start(walk_plot *wp, const sweep_level *lv, char axis, const sweep_walker *walkers, uint32_t n,
                      const sweep_movers *movers)
{
    wp->plot = sweep_plot_create(lv, axis);
    wp->before = movers ? malloc(n * sizeof *wp->before) : NULL;
    if (!wp->plot || (movers && !wp->before))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "walker %u", i);
        if (sweep_plot_track(wp->plot, name) < 0 || sweep_plot_point(wp->plot, (int)i, walkers[i].position) != 0 ||
            sweep_plot_mark(wp->plot, SWEEP_PLOT_SPAWN, walkers[i].position, name) != 0)
            return -1;
    }
    plot_movers(wp, movers);
    return 0;
}

/* After a tick of the movers: their positions, and the walkers the tick
 * crushed, which sweep_walk_tick has put back at their spawn point at
 * rest: crossed out where they were, their path broken. */
static void plot_tick(walk_plot *wp, const sweep_walker *walkers, uint32_t n, const sweep_movers *movers,
                      const sweep_vec3 *spawns, uint32_t spawn_count, int any_crushed)
{
    plot_movers(wp, movers);
    for (uint32_t i = 0; any_crushed && i < n; i++) {
        sweep_vec3 home = spawns[i % spawn_count], was = wp->before[i].position, now = walkers[i].position;
        if (now.x != home.x || now.y != home.y || now.z != home.z || walkers[i].grounded ||
            (was.x == home.x && was.y == home.y && was.z == home.z))
            continue;
        char label[48];
        snprintf(label, sizeof label, "walker %u crushed", i);
        sweep_plot_mark(wp->plot, SWEEP_PLOT_CRUSH, was, label);
        sweep_plot_break(wp->plot, (int)i);
        sweep_plot_point(wp->plot, (int)i, now);
    }
}

static void plot_free(walk_plot *wp)
{
    sweep_plot_destroy(wp->plot);
    free(wp->before);
    wp->plot = NULL;
    wp->before = NULL;
}

static int parse_args(int argc, char **argv, options *o)
{
    enum { O_TRIS = 256, O_LSEED, O_WALKERS, O_STEPS, O_DT, O_SPEED, O_HEADING, O_GRAVITY, O_RADII, O_SEED,
           O_SPAWNS, O_DUMP, O_BENCH, O_HELP, O_VERSION, O_MAP, O_DEMO, O_MOVERS, O_LEVEL_BENCH, O_SVG, O_AXIS, O_NO_PREPARE };
    static const struct option longopts[] = {
        {"tris", 1, 0, O_TRIS},       {"level-seed", 1, 0, O_LSEED}, {"walkers", 1, 0, O_WALKERS},
        {"steps", 1, 0, O_STEPS},     {"dt", 1, 0, O_DT},            {"speed", 1, 0, O_SPEED},
        {"heading-every", 1, 0, O_HEADING}, {"gravity", 1, 0, O_GRAVITY}, {"radii", 1, 0, O_RADII},
        {"seed", 1, 0, O_SEED},       {"spawns", 1, 0, O_SPAWNS},    {"dump", 1, 0, O_DUMP},
        {"bench-only", 0, 0, O_BENCH}, {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION},       {"map", 1, 0, O_MAP},
        {"demo", 0, 0, O_DEMO},       {"movers", 1, 0, O_MOVERS},    {"level-bench", 0, 0, O_LEVEL_BENCH},
        {"svg", 1, 0, O_SVG},         {"axis", 1, 0, O_AXIS},        {"no-prepare", 0, 0, O_NO_PREPARE},
        {0, 0, 0, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case O_TRIS:
            if (!sweep_parse_u32(a, 200, SWEEP_WORLD_MAX_TRIANGLES / 2, &o->tris))
                return fail("--tris wants a whole number from 200 up, got '%s'", a);
            break;
        case O_LSEED:
            if (!sweep_parse_u64(a, 0, UINT64_MAX, &o->level_seed))
                return fail("--level-seed wants a whole number, got '%s'", a);
            break;
        case O_MOVERS:
            if (!sweep_parse_u32(a, 0, 100000, &o->movers))
                return fail("--movers wants a whole number from 0 to 100000, got '%s'", a);
            break;
        case O_WALKERS:
            if (!sweep_parse_u32(a, 1, 1000000, &o->walkers))
                return fail("--walkers wants a number from 1 to 1000000, got '%s'", a);
            break;
        case O_STEPS:
            if (!sweep_parse_u32(a, 1, 100000000, &o->steps))
                return fail("--steps wants a number from 1 to 100000000, got '%s'", a);
            break;
        case O_DT:
            if (!sweep_parse_double(a, -DBL_MAX, DBL_MAX, &o->dt) || !(o->dt > 0.0))
                return fail("--dt wants a positive number of seconds, got '%s'", a);
            break;
        case O_SPEED:
            if (!sweep_parse_double(a, -DBL_MAX, DBL_MAX, &o->speed) || o->speed < 0.0)
                return fail("--speed wants a number >= 0, got '%s'", a);
            o->has_speed = 1;
            break;
        case O_HEADING:
            if (!sweep_parse_u32(a, 1, UINT32_MAX, &o->heading_every))
                return fail("--heading-every wants a number >= 1, got '%s'", a);
            break;
        case O_GRAVITY:
            if (!sweep_parse_vec3(a, &o->gravity) || !sweep_v3_isfinite(o->gravity))
                return fail("--gravity wants X,Y,Z (finite numbers), got '%s'", a);
            o->has_gravity = 1;
            break;
        case O_NO_PREPARE:
            o->no_prepare = 1;
            break;
        case O_RADII:
            if (!sweep_parse_vec3(a, &o->radii) || !sweep_v3_isfinite(o->radii))
                return fail("--radii wants X,Y,Z (finite numbers), got '%s'", a);
            o->has_radii = 1;
            break;
        case O_SEED:
            if (!sweep_parse_u64(a, 0, UINT64_MAX, &o->seed))
                return fail("--seed wants a whole number, got '%s'", a);
            break;
        case O_SPAWNS:
            o->spawns = a;
            break;
        case O_DUMP:
            o->dump = a;
            break;
        case O_LEVEL_BENCH:
            o->level_bench = 1;
            o->bench_only = 1;
            break;
        case O_BENCH:
            o->bench_only = 1;
            break;
        case O_MAP:
            o->map = a;
            break;
        case O_DEMO:
            o->demo = 1;
            break;
        case O_SVG:
            o->svg = a;
            break;
        case O_AXIS:
            if (strlen(a) != 1 || !strchr("xyz", a[0]))
                return fail("--axis wants x, y or z, got '%s'", a);
            o->axis = a[0];
            break;
        case O_VERSION:
            printf("sweep-walk %s\n", SWEEP_VERSION);
            exit(0);
        case O_HELP:
            fputs(usage, stdout);
            exit(0);
        default:
            return fail("unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return fail("unexpected argument '%s' (see --help)", argv[optind]);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.tris = 10000, o.walkers = 64, o.steps = 1000, o.heading_every = 60;
    o.level_seed = 1, o.seed = 1, o.dt = 1.0 / 60.0, o.axis = 'z';
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;

    sweep_level lv;
    sweep_level_init(&lv);
    sweep_status st;
    if (o.map) {
        char err[512];
        st = sweep_map_load(o.map, &lv, NULL, err, sizeof err);
        if (st != SWEEP_OK) {
            fprintf(stderr, "sweep-walk: %s: %s\n", o.map, err);
            return 1;
        }
    } else {
        sweep_levelgen_params gp = {o.level_seed, o.tris, o.walkers < 256 ? o.walkers : 256, o.movers};
        st = sweep_levelgen(&gp, &lv);
        if (st != SWEEP_OK) {
            fprintf(stderr, "sweep-walk: generating the level failed: %s\n", sweep_status_message(st));
            return 1;
        }
    }
    sweep_config cfg = lv.config;
    if (o.has_gravity)
        cfg.gravity = o.gravity;
    /* The level's own rules, in its units, unless told otherwise: a level
     * in inches walked at 5 units/s would barely move. */
    if (!o.has_speed)
        o.speed = lv.rules.walk_speed;
    sweep_walk_params wp = {o.walkers, o.steps, o.heading_every, o.dt, o.speed,
                            o.has_radii ? o.radii : lv.default_radii, o.seed};
    if (o.dt > cfg.max_dt || o.speed > cfg.max_speed) {
        fprintf(stderr, "sweep-walk: --dt must be at most %g s and --speed at most %g units/s\n", cfg.max_dt,
                cfg.max_speed);
        return 2;
    }

    sweep_vec3 *spawns = lv.spawns;
    uint32_t spawn_count = lv.spawn_count;
    sweep_vec3 *file_spawns = NULL;
    if (o.spawns) {
        char err[600];
        if (!sweep_read_points(o.spawns, cfg.max_coordinate, &file_spawns, &spawn_count, err, sizeof err)) {
            fprintf(stderr, "sweep-walk: %s\n", err);
            return 1;
        }
        if (spawn_count == 0) {
            fprintf(stderr, "sweep-walk: %s has no spawn points\n", o.spawns);
            return 1;
        }
        spawns = file_spawns;
    }
    if (spawn_count == 0) {
        fprintf(stderr, "sweep-walk: the level has no spawn points; give some with --spawns\n");
        return 1;
    }

    sweep_world_desc desc = sweep_level_world_desc(&lv);
    sweep_world *world;
    double t0 = now_ns();
    st = sweep_world_create(&desc, &world);
    if (st == SWEEP_OK && !o.no_prepare)
        st = sweep_world_prepare_radii(world, wp.radii);
    double build_ms = (now_ns() - t0) / 1e6;
    if (st != SWEEP_OK) {
        fprintf(stderr, "sweep-walk: building the world failed: %s\n", sweep_status_message(st));
        return 1;
    }
    sweep_world_info info;
    sweep_world_get_info(world, &info);
    /* A map's movers run too: each step is one tick of theirs, then one
     * move of every walker, as sweepd runs them. */
    sweep_movers *movers = NULL;
    if (lv.mover_count > 0 && (st = sweep_level_build_movers(&lv, &movers)) != SWEEP_OK) {
        fprintf(stderr, "sweep-walk: building the movers failed: %s\n", sweep_status_message(st));
        return 1;
    }

    sweep_walker *walkers = calloc(o.walkers, sizeof *walkers);
    uint64_t moves = (uint64_t)o.walkers * o.steps;
    float *samples = malloc(moves * sizeof *samples);
    if (!walkers || !samples) {
        fprintf(stderr, "sweep-walk: out of memory for %" PRIu64 " moves\n", moves);
        return 1;
    }
    sweep_walk_place(&wp, spawns, spawn_count, walkers);
    demo_track *track = NULL;
    if (o.demo && !(track = demo_start(walkers, o.walkers, &cfg))) {
        fprintf(stderr, "sweep-walk: out of memory\n");
        return 1;
    }
    walk_plot plot = {0};
    if (o.svg && plot_start(&plot, &lv, o.axis, walkers, o.walkers, movers) != 0) {
        fprintf(stderr, "sweep-walk: out of memory for --svg\n");
        return 1;
    }

    fall_watch falls;
    if (!fall_watch_start(&falls, &info, &cfg, &wp, walkers)) {
        fprintf(stderr, "sweep-walk: out of memory\n");
        return 1;
    }
    /* The level's volumes in its index order, for its kill volumes: the
     * only kind that acts on the walk's moves (walker.h). */
    sweep_volume *vols = NULL;
    for (uint32_t v = 0; v < lv.volume_count && !vols; v++)
        if (lv.volumes[v].v.kind == SWEEP_VOLUME_KILL && !(vols = malloc(lv.volume_count * sizeof *vols))) {
            fprintf(stderr, "sweep-walk: out of memory\n");
            return 1;
        }
    for (uint32_t v = 0; vols && v < lv.volume_count; v++)
        vols[v] = lv.volumes[v].v;
    uint64_t embedded = 0, limits = 0, errors = 0, crushed = 0, killed = 0, k = 0;
    sweep_move_result res;
    /* Where each walker was `window` steps before the end: one that has not
     * gone a radius since, through several heading changes, is still. */
    uint32_t window = o.steps / 2 < 300 ? o.steps / 2 : 300;
    sweep_vec3 *mark = malloc(o.walkers * sizeof *mark);
    if (!mark) {
        fprintf(stderr, "sweep-walk: out of memory\n");
        return 1;
    }
    double start = now_ns();
    for (uint32_t s = 0; s < o.steps; s++) {
        if (s == o.steps - window)
            for (uint32_t i = 0; i < o.walkers; i++)
                mark[i] = walkers[i].position;
        uint64_t crushed_before = crushed;
        if (plot.plot && movers)
            memcpy(plot.before, walkers, o.walkers * sizeof *walkers);
        if (movers && (st = sweep_walk_tick(movers, world, &cfg, &wp, spawns, spawn_count, walkers, &crushed)) != SWEEP_OK) {
            fprintf(stderr, "sweep-walk: mover tick %u: %s\n", s, sweep_status_message(st));
            return 1;
        }
        if (plot.plot && movers)
            plot_tick(&plot, walkers, o.walkers, movers, spawns, spawn_count, crushed != crushed_before);
        for (uint32_t i = 0; i < o.walkers; i++) {
            double a = now_ns();
            st = sweep_walk_step_among(world, movers, &cfg, &wp, i, s, &walkers[i], &res);
            samples[k++] = (float)(now_ns() - a);
            if (st != SWEEP_OK) {
                if (errors++ == 0)
                    fprintf(stderr, "sweep-walk: walker %u step %u: %s\n", i, s, sweep_status_message(st));
                continue;
            }
            embedded += (res.flags & SWEEP_MOVED_STARTED_EMBEDDED) != 0;
            limits += (res.flags & SWEEP_MOVED_ITERATION_LIMIT) != 0;
            if (track)
                demo_note(&track[i], &res);
            if (plot.plot)
                sweep_plot_point(plot.plot, (int)i, walkers[i].position);
            /* A kill first: a step that ends in a kill volume and below
             * the level is told as the kill. */
            uint32_t kv = vols ? sweep_walk_kill_volume(vols, lv.volume_count, walkers[i].position)
                               : SWEEP_WALK_NOT_KILLED;
            if (kv != SWEEP_WALK_NOT_KILLED) {
                if (fall_watch_killed(&falls, i, kv) && plot.plot) {
                    char label[128];
                    snprintf(label, sizeof label, "walker %u killed by volume %u '%s'", i, lv.volumes[kv].id,
                             lv.volumes[kv].name);
                    sweep_plot_mark(plot.plot, SWEEP_PLOT_FELL, falls.w[i].left_at, label);
                }
                killed++;
                sweep_walk_respawn(spawns, spawn_count, i, &walkers[i]);
            } else if (fall_watch_step(&falls, i, s, &walkers[i]) && plot.plot) {
                char label[48];
                snprintf(label, sizeof label, "walker %u fell out of the level", i);
                sweep_plot_mark(plot.plot, SWEEP_PLOT_FELL, falls.w[i].left_at, label);
            }
        }
    }
    double total_s = (now_ns() - start) / 1e9;
    double sum_ns = 0.0;
    for (uint64_t i = 0; i < moves; i++)
        sum_ns += samples[i];
    qsort(samples, moves, sizeof *samples, cmp_float);
    double p50 = samples[moves / 2], p99 = samples[moves * 99 / 100];

    /* Left the level: below its lowest triangle or beside its bounds by more
     * than a body. Still: not gone a radius since `mark`; each still walker
     * is judged (walker.h): stuck (the core failed: inside geometry, or
     * going nowhere where the level has room) or trapped (the level holds
     * it), or merely unlucky with its headings. Inside: any walker that
     * ends overlapping geometry, still or not, which is stuck too. */
    uint32_t grounded = 0, left = 0, still = 0, stuck = 0, trapped = 0, inside = 0;
    sweep_vec3 r = wp.radii;
    double rmin = r.x < r.y ? (r.x < r.z ? r.x : r.z) : (r.y < r.z ? r.y : r.z);
    for (uint32_t i = 0; i < o.walkers; i++) {
        sweep_vec3 p = walkers[i].position;
        grounded += walkers[i].grounded;
        int out = p.x < info.bounds_min.x - 2 * r.x || p.x > info.bounds_max.x + 2 * r.x ||
                  p.y < info.bounds_min.y - 2 * r.y || p.y > info.bounds_max.y + 2 * r.y ||
                  p.z < info.bounds_min.z - 2 * r.z;
        left += out;
        if (out)
            continue;
        int is_still = window > 0 && sweep_v3_len(sweep_v3_sub(p, mark[i])) < rmin;
        still += is_still;
        sweep_walk_verdict v = SWEEP_WALK_FREE;
        if (is_still)
            v = sweep_walk_judge(world, movers, &cfg, &wp, &walkers[i]);
        else if (sweep_walk_overlaps(world, movers, &wp, p))
            v = SWEEP_WALK_INSIDE;
        inside += v == SWEEP_WALK_INSIDE;
        stuck += v == SWEEP_WALK_INSIDE || v == SWEEP_WALK_STUCK;
        trapped += v == SWEEP_WALK_TRAPPED;
        if (track)
            track[i].verdict = is_still ? (int)v : -1;
    }
    free(mark);
    uint64_t hash = sweep_walk_hash(walkers, o.walkers);
    if (movers)
        hash = sweep_movers_hash(movers, hash);

    printf("BENCH name=core.walk tris=%u moves_per_s=%.0f ns_per_move_p50=%.0f ns_per_move_p99=%.0f "
           "bytes_per_tri=%.1f build_ms=%.1f\n",
           info.triangle_count, (double)moves / total_s, p50, p99,
           (double)info.bytes / (info.triangle_count ? info.triangle_count : 1), build_ms);
    printf("state_hash=%016" PRIx64 " walkers=%u steps=%u grounded=%u embedded_starts=%" PRIu64
           " iteration_limits=%" PRIu64 " errors=%" PRIu64 " left=%u still=%u stuck=%u trapped=%u inside=%u fell=%u\n",
           hash, o.walkers, o.steps, grounded, embedded, limits, errors, left, still, stuck, trapped, inside,
           falls.fell);
    if (o.level_bench) {
        double mean = mean_by_step(world, &lv, &cfg, &wp, spawns, spawn_count, vols, hash);
        if (!(mean > 0.0)) {
            fprintf(stderr, "sweep-walk: the walk run again for the mean did not end as the first did\n");
            return 1;
        }
        /* The mean of the per-move samples (clock reads included) last. */
        printf("BENCH name=core.level map=%s tris=%u volumes=%u moves_per_s=%.0f ns_per_move_mean=%.0f "
               "ns_per_move_p50=%.0f ns_per_move_p99=%.0f fallback_moves=%" PRIu64 " stuck=%u trapped=%u inside=%u "
               "left=%u ns_per_move_mean_clocked=%.0f\n",
               lv.name, info.triangle_count, lv.volume_count, (double)moves / total_s, mean, p50, p99, limits, stuck,
               trapped, inside, left, sum_ns / (double)moves);
    }
    if (movers)
        printf("movers=%u crushed=%" PRIu64 "\n", sweep_movers_count(movers), crushed);
    if (!o.bench_only) {
        fall_watch_report(&falls, o.walkers, &lv);
        if (killed)
            printf("killed=%" PRIu64 ": moves that ended in a kill volume (each walker respawned at its spawn "
                   "point)\n",
                   killed);
        printf("walkers: speed %g units/s (%s), gravity (%g, %g, %g) (%s), radii (%g, %g, %g) (%s)\n", o.speed,
               o.has_speed ? "--speed" : "the level's walk speed", cfg.gravity.x, cfg.gravity.y, cfg.gravity.z,
               o.has_gravity ? "--gravity" : "the level's", wp.radii.x, wp.radii.y, wp.radii.z,
               o.has_radii ? "--radii" : "the level's");
        printf("level: %s, %u triangles (%u degenerate), BVH %u nodes, depth %u, %.1f MiB\n", lv.name,
               info.triangle_count, info.degenerate_count, info.node_count, info.bvh_depth,
               (double)info.bytes / 1048576.0);
        printf("walked: %" PRIu64 " moves in %.3f s; per-move timing includes ~2 clock reads\n", moves, total_s);
    }

    if (track) {
        demo_report(track, walkers, o.walkers, &cfg, o.steps, o.dt, &falls);
        free(track);
    }
    free(falls.w);

    /* A picture that cannot be written fails the run, after the rest of
     * the output and the cleanup. */
    int svg_failed = 0;
    if (plot.plot) {
        char err[1200], title[160];
        snprintf(title, sizeof title, "sweep-walk: %u walkers, %u steps of %.4g s", o.walkers, o.steps, o.dt);
        svg_failed = sweep_plot_write(plot.plot, o.svg, title, err, sizeof err) != 0;
        plot_free(&plot);
        if (svg_failed)
            fprintf(stderr, "sweep-walk: %s\n", err);
    }

    if (o.dump) {
        FILE *f = fopen(o.dump, "w");
        if (!f) {
            fprintf(stderr, "sweep-walk: cannot write %s: %s\n", o.dump, strerror(errno));
            return 1;
        }
        for (uint32_t i = 0; i < o.walkers; i++)
            fprintf(f, "%u %.17g %.17g %.17g\n", i, walkers[i].position.x, walkers[i].position.y,
                    walkers[i].position.z);
        if (fclose(f) != 0) {
            fprintf(stderr, "sweep-walk: writing %s failed: %s\n", o.dump, strerror(errno));
            return 1;
        }
    }
    free(samples);
    free(vols);
    free(walkers);
    free(file_spawns);
    sweep_movers_destroy(movers);
    sweep_world_destroy(world);
    sweep_level_free(&lv);
    return errors || svg_failed ? 1 : 0;
}
