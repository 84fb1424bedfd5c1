/*
 * mapgen_main.c - sweep-mapgen: writes a generated level (maps/levelgen.h)
 * as a sweep map file, for benchmarks and for trying the server on a level
 * of any size.
 *
 * The same (--tris, --seed, --rules file) always gives the same map, and
 * so the same content hash, which the program prints. The level is made
 * for metres under the default rules; --rules sets other physics and
 * movement rules in the map row (the geometry stays as generated). The
 * map is written through maps/writer.h: into a temporary file, loaded
 * back to check it, then renamed, so an interrupted or failed run leaves
 * no half-written map.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/version.h"
#include "core/move.h"
#include "maps/content_hash.h"
#include "maps/level.h"
#include "maps/levelgen.h"
#include "maps/levelgen_dense.h"
#include "core/parse.h"
#include "maps/writer.h"

static const char usage[] =
    "usage: sweep-mapgen --tris N [--seed S] [--spawns K] [--movers M] [--dense [--cell U]] [--rules FILE] [--progress]\n"
    "                    [--quiet] -o OUT.db\n"
    "\n"
    "Writes a generated level (heightfield terrain with stairs, ramps below\n"
    "and above the walkable slope, walls, pillars and platforms) as a sweep\n"
    "map. The same N, S and --rules file always give the same map.\n"
    "\n"
    "  --tris N      about N triangles, 200 to 536870912 (a few million is practical)\n"
    "  --seed S      level seed, a whole number (default 1)\n"
    "  --spawns K    spawn points on open terrain, 0 to 100000 (default 16); with movers\n"
    "                the first ones are above the lifts and turntables\n"
    "  --movers M    replace the first M features by movers, in turn a lift, a turntable,\n"
    "                a sliding door and a swinging door (default 0; at most one per\n"
    "                16 x 16 block: fewer, with a warning, when the level is too small)\n"
    "  --dense       a dense level instead (maps/levelgen_dense.h): rooms in Quake units\n"
    "                (radii 15,15,28, gravity 800, steps of 18, walking at 320 units/s)\n"
    "                whose floors and walls are cut into cells, with kerbs, a steep\n"
    "                wedge, faceted columns, a curved hump and a fence in each; four\n"
    "                spawn points a room (--spawns and --movers do not apply)\n"
    "  --cell U      a dense level's floor cells, units: 8, 12, 16, 24 or 48 (default 16)\n"
    "  --rules FILE  the map's physics and movement rules (format below; default: the\n"
    "                rules for metres, walk 5 m/s, jump 5 m/s, speed limit 60 m/s, ...)\n"
    "  -o OUT.db     the map to write; replaced only when the new one is complete\n"
    "  --progress    show progress on stderr (default: only when stderr is a terminal)\n"
    "  --quiet       print nothing but errors\n"
    "  --help        this text\n"
    "  --version     the release of sweep this tool belongs to\n"
    "\n"
    "Prints one line: the file, its triangle count and its content hash.\n"
    "\n" SWEEP_MAP_RULES_HELP;

static int fail(const char *fmt, ...)
{
    va_list ap;
    fputs("sweep-mapgen: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}


static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    enum { O_TRIS = 256, O_SEED, O_SPAWNS, O_PROGRESS, O_QUIET, O_HELP, O_VERSION, O_MOVERS, O_RULES, O_DENSE, O_CELL };
    static const struct option longopts[] = {
        {"tris", 1, 0, O_TRIS},         {"seed", 1, 0, O_SEED},     {"spawns", 1, 0, O_SPAWNS},
        {"progress", 0, 0, O_PROGRESS}, {"quiet", 0, 0, O_QUIET},   {"help", 0, 0, O_HELP}, {"version", 0, 0, O_VERSION},
        {"output", 1, 0, 'o'},          {"movers", 1, 0, O_MOVERS}, {"rules", 1, 0, O_RULES},
        {"dense", 0, 0, O_DENSE},       {"cell", 1, 0, O_CELL},
        {0, 0, 0, 0}};
    uint64_t tris = 0, seed = 1, spawns = 16, movers = 0, cell = 16;
    const char *out = NULL, *rules = NULL;
    int progress = isatty(2), quiet = 0, dense = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        switch (c) {
        case O_TRIS:
            if (!sweep_parse_u64(optarg, 200, SWEEP_WORLD_MAX_TRIANGLES / 2, &tris))
                return fail("--tris wants a whole number from 200 to %u, got '%s'", SWEEP_WORLD_MAX_TRIANGLES / 2,
                            optarg);
            break;
        case O_SEED:
            if (!sweep_parse_u64(optarg, 0, UINT64_MAX, &seed))
                return fail("--seed wants a whole number, got '%s'", optarg);
            break;
        case O_SPAWNS:
            if (!sweep_parse_u64(optarg, 0, 100000, &spawns))
                return fail("--spawns wants a whole number from 0 to 100000, got '%s'", optarg);
            break;
        case O_MOVERS:
            if (!sweep_parse_u64(optarg, 0, 100000, &movers))
                return fail("--movers wants a whole number from 0 to 100000, got '%s'", optarg);
            break;
        case O_DENSE:
            dense = 1;
            break;
        case O_CELL:
            if (!sweep_parse_u64(optarg, 8, 48, &cell) || !sweep_levelgen_dense_cell_ok((uint32_t)cell))
                return fail("--cell wants 8, 12, 16, 24 or 48, got '%s'", optarg);
            break;
        case O_RULES:
            rules = optarg;
            break;
        case O_PROGRESS:
            progress = 1;
            break;
        case O_QUIET:
            quiet = 1;
            progress = 0;
            break;
        case 'o':
            out = optarg;
            break;
        case O_VERSION:
            printf("sweep-mapgen %s\n", SWEEP_VERSION);
            return 0;
        case O_HELP:
            fputs(usage, stdout);
            return 0;
        default:
            return fail("unknown option or missing value in '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return fail("unexpected argument '%s' (see --help)", argv[optind]);
    if (!tris)
        return fail("--tris N is required (see --help)");
    if (!out || !*out)
        return fail("-o OUT.db is required (see --help)");

    /* The generated level is made for metres at 45 degrees under the
     * default rules (levelgen leaves sweep_level_init's values alone), so
     * the file is read against those: before generating, so that a bad
     * file costs nothing. A dense level brings rules of its own (Quake
     * units), which the file is read against once it is made. */
    const double default_slope_deg = 45.0;
    sweep_map_values values;
    char err[512];
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_map_values_of(&lv, default_slope_deg, &values);
    if (!dense && rules && !sweep_map_read_rules(rules, &values, err, sizeof err))
        return fail("%s", err);

    double t0 = now_s();
    sweep_levelgen_params gp = {seed, (uint32_t)tris, (uint32_t)spawns, (uint32_t)movers};
    sweep_status st = dense ? sweep_levelgen_dense((uint32_t)tris, (uint32_t)cell, seed, &lv) : sweep_levelgen(&gp, &lv);
    if (st != SWEEP_OK)
        return fail("generating the level failed: %s", sweep_status_message(st));
    /* Fewer movers than asked is still a level, but not the one asked for. */
    if (movers > lv.mover_count && dense)
        fprintf(stderr, "sweep-mapgen: warning: --movers %" PRIu64 ": a dense level has no movers; made 0\n", movers);
    else if (movers > lv.mover_count)
        fprintf(stderr,
                "sweep-mapgen: warning: --movers %" PRIu64 ": the level has room for %u (one a 16 x 16 block of "
                "terrain; more --tris make more blocks); made %u\n",
                movers, lv.mover_count, lv.mover_count);
    if (dense) {
        sweep_map_values_of(&lv, default_slope_deg, &values);
        if (rules && !sweep_map_read_rules(rules, &values, err, sizeof err)) {
            sweep_level_free(&lv);
            return fail("%s", err);
        }
    }

    /* The map stores the slope limit in degrees. Generated levels use the
     * core's default of 45 degrees; make sure that is still true. */
    if (!(fabs(sweep_cos_degrees(default_slope_deg) - lv.config.walkable_normal_up) < 1e-12)) {
        sweep_level_free(&lv);
        return fail("the generated level's walkable slope is not %g degrees; update sweep-mapgen",
                    default_slope_deg);
    }
    sweep_map_apply_values(&values, &lv);

    sweep_map_write_options wo = {dense ? "in" : "m", values.walkable_slope_deg, progress ? sweep_map_progress_stderr : NULL,
                                  "sweep-mapgen", sweep_map_write_stop_on_signals()};
    sweep_map_write_result res;
    st = sweep_map_write(out, &lv, &wo, &res, err, sizeof err);
    sweep_level_free(&lv);
    if (st != SWEEP_OK && *wo.cancel) {
        fprintf(stderr, "sweep-mapgen: interrupted; %s was not written\n", out);
        return 130;
    }
    if (st != SWEEP_OK)
        return fail("%s: %s", out, err);
    if (!quiet) {
        char hex[2 * SWEEP_SHA256_SIZE + 1];
        sweep_content_hash_hex(&res.hash, hex);
        printf("sweep-mapgen: wrote %s: %u triangles (%u degenerate dropped), seed %" PRIu64
               ", content hash %s, %.2f s\n",
               out, res.triangle_count, res.load.degenerate_dropped, seed, hex, now_s() - t0);
    }
    return 0;
}
