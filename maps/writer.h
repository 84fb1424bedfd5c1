/*
 * writer.h - writing a sweep_level (static geometry and movers) as a
 * sweep map of schema version SWEEP_MAP_SCHEMA_VERSION (maps/schema.sql),
 * for sweep-mapgen and sweep-import.
 *
 * The map is written into a temporary file beside the destination, in one
 * transaction with prepared statements, then loaded back with the loader
 * (so a tool can never write a map the server would refuse), flushed to
 * disk and renamed over the destination. Whatever fails, no half-written
 * map is left at the destination and the temporary file is removed.
 */
#ifndef SWEEP_MAPS_WRITER_H
#define SWEEP_MAPS_WRITER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "maps/content_hash.h"
#include "maps/level.h"
#include "maps/loader.h"

/* Called now and then while writing; done <= total rows of `stage`. */
typedef void (*sweep_map_progress_fn)(void *ctx, const char *stage, uint64_t done, uint64_t total);

/* A progress function for command-line tools: one self-overwriting line
 * "PROGRAM: writing STAGE NN%" on stderr; ctx is the program's name. */
void sweep_map_progress_stderr(void *ctx, const char *stage, uint64_t done, uint64_t total);

typedef struct sweep_map_write_options {
    const char *units;           /* map.units; NULL means "m" */
    double walkable_slope_deg;   /* map.walkable_slope_deg, [0, 90) */
    sweep_map_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    /* When not NULL and it turns non-zero (a tool's SIGINT handler sets
     * it), the write stops soon after, fails with "interrupted" and leaves
     * nothing behind. */
    const volatile sig_atomic_t *cancel;
} sweep_map_write_options;

/* What the written map loads back as (filled on success). */
typedef struct sweep_map_write_result {
    sweep_map_load_info load;  /* from loading the written file */
    uint32_t triangle_count;   /* triangles kept by the loader */
    sweep_content_hash hash;   /* content hash of the loaded map */
} sweep_map_write_result;

/*
 * Writes lv to path (replacing any file there only on success). result may
 * be NULL. On failure err says why and nothing exists at path that was not
 * there before.
 */
sweep_status sweep_map_write(const char *path, const sweep_level *lv, const sweep_map_write_options *opt,
                             sweep_map_write_result *result, char *err, size_t errlen);

/*
 * For command-line tools: from now on SIGINT, SIGTERM and SIGHUP no longer
 * kill the process but set the flag returned, which a write given it as
 * `cancel` obeys, so an interrupted tool leaves no temporary file behind.
 * The tool then reports the interruption and exits itself.
 */
const volatile sig_atomic_t *sweep_map_write_stop_on_signals(void);

#endif
