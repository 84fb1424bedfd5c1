/*
 * bench_maps_load.c - how long loading a map takes: read and validate every
 * row (sweep_map_load) plus build the core world and its BVH
 * (sweep_map_build_world), as a server does at start.
 *
 * Usage: bench_maps_load MAP.db [RUNS]. Loads the map RUNS times (default
 * 5) in this process and prints one line:
 *
 *   BENCH name=maps.load tris=<n> load_ms=<median> rss_mb=<peak>
 *
 * rss_mb is this process's peak resident set (getrusage ru_maxrss), so run
 * one process per map: the peak is that of loading one map (each run frees
 * everything before the next). The content hash is timed apart, on the
 * last run, as name=maps.hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "maps/content_hash.h"
#include "maps/loader.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_maps_load MAP.db [RUNS]\n");
        return 2;
    }
    int runs = argc == 3 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > 100) {
        fprintf(stderr, "bench_maps_load: RUNS must be 1 to 100\n");
        return 2;
    }
    double times[100], hash_ms = 0.0;
    uint32_t tris = 0;
    for (int r = 0; r < runs; r++) {
        char err[512];
        sweep_level lv;
        sweep_world *w;
        double t0 = now_ms();
        if (sweep_map_load(argv[1], &lv, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "bench_maps_load: %s: %s\n", argv[1], err);
            return 1;
        }
        if (sweep_map_build_world(&lv, &w, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "bench_maps_load: %s: %s\n", argv[1], err);
            sweep_level_free(&lv);
            return 1;
        }
        times[r] = now_ms() - t0;
        tris = lv.triangle_count;
        if (r == runs - 1) {
            sweep_content_hash h;
            double t1 = now_ms();
            sweep_level_content_hash(&lv, &h);
            hash_ms = now_ms() - t1;
        }
        sweep_world_destroy(w);
        sweep_level_free(&lv);
    }
    qsort(times, (size_t)runs, sizeof times[0], cmp_double);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("BENCH name=maps.load tris=%u load_ms=%.1f rss_mb=%.1f\n", tris, times[runs / 2],
           (double)ru.ru_maxrss / 1024.0);
    printf("BENCH name=maps.hash tris=%u hash_ms=%.1f\n", tris, hash_ms);
    return 0;
}
