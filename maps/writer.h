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
 *
 * The tools' --rules files (the level's physics and movement rules, as
 * "key = value" lines) are read here too, by sweep_map_read_rules, into
 * the values the written map row will hold.
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

#ifdef __cplusplus
extern "C" {
#endif

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

/*
 * Reads a --rules file into *v, which holds the values to start from: a
 * key the file leaves out keeps its value. The format (also the tools'
 * --help, SWEEP_MAP_RULES_HELP): one "key = value" a line, blank lines and
 * '#' comments (to the end of a line) ignored, each key at most once;
 * keys are the map row's column names (maps/schema.sql), in its units:
 *   gravity = X,Y,Z    radii = X,Y,Z    tick_rate    walkable_slope_deg
 *   step_height    walk_speed    ground_accel    air_accel    jump_speed
 *   max_step    speed_limit    correction_threshold    history_ms
 *   rewind_cap_ms    crouch_radii = X,Y,Z    crouch_speed
 * Numbers are finite decimals. The values are checked as the loader checks
 * a map row (sweep_map_check_values), so a file the tool accepts never
 * makes a map the loader refuses. Returns 1 on success; on failure 0 and
 * err says "FILE line N: what is wrong" (or "FILE: ..." if no line is to
 * blame), and *v may be partly changed.
 */
int sweep_map_read_rules(const char *path, sweep_map_values *v, char *err, size_t errlen);

/* The --rules paragraph of sweep-mapgen's and sweep-import's --help. */
#define SWEEP_MAP_RULES_HELP                                                                                   \
    "The --rules file: one 'key = value' a line, '#' comments; keys left out keep\n"                           \
    "the defaults, in map units and seconds:\n"                                                               \
    "  gravity = X,Y,Z          units/s^2, at most 1000 long; \"up\" is against it\n"                           \
    "                           (default 0,0,-9.81)\n"                                                         \
    "  radii = X,Y,Z            player ellipsoid semi-axes, 0.01 to 100 (0.4,0.4,0.9)\n"                      \
    "  tick_rate                server ticks per second, 1 to 1000 (60)\n"                                    \
    "  walkable_slope_deg       steepest walkable slope, [0, 90) degrees (45)\n"                              \
    "  step_height              highest step climbed (0.35)\n"                                                \
    "  walk_speed               fastest speed a player may wish for, units/s (5)\n"                           \
    "  ground_accel, air_accel  how fast it gets there on the ground, in the air,\n"                          \
    "                           units/s^2 (50, 10)\n"                                                          \
    "  air_move                 0: in the air the velocity turns towards the wish\n"                            \
    "                           as on the ground; 1: Quake 3's air move, the wish\n"                            \
    "                           only adds along itself, air_accel at a wish of\n"                               \
    "                           walk_speed, and nothing wished slows a flight (0)\n"                            \
    "  jump_speed               upward speed of a jump, 0 = no jumping (5)\n"                                 \
    "  max_step                 longest step a move is split into, 0.001 to 1 s (1/30)\n"                     \
    "  speed_limit              no velocity is longer, and no move may ask for more,\n"                       \
    "                           units/s, at least walk_speed and jump_speed (60)\n"                           \
    "  correction_threshold     a claimed position farther off is flagged corrected (0.25)\n"                 \
    "  history_ms               poses kept for lag-compensated queries, 1 to 60000 ms (1000)\n"              \
    "  rewind_cap_ms            how far back a player's query may ask, 1 to 60000 ms (250)\n"                \
    "  crouch_radii = X,Y,Z     the crouched ellipsoid, as radii; with crouch_speed\n"                        \
    "  crouch_speed             fastest wish while crouched, up to walk_speed;\n"                             \
    "                           0 = no crouching (0,0,0 and 0)\n"                                              \
    "  swim_speed, swim_accel   fastest swimming, units/s, and how fast it gets there,\n"                      \
    "                           units/s^2 (2.5, 10): only in liquids\n"                                       \
    "  swim_drag                speed lost per second at each depth level (1)\n"                              \
    "  swim_sink                sinking speed with no wish, negative floats (0.9375)\n"                     \
    "  swim_jump                upward speed of a jump with the head out (6.5)\n"                            \
    "  climb_speed, climb_accel climbing a ladder, units/s and units/s^2 (2.5, 50)\n"                        \
    "The defaults are for metres: a level in other units needs its own (a level in\n"                        \
    "inches: gravity = 0,0,-386.1, speed_limit = 2400, ...). Example:\n"                                      \
    "  # inches\n"                                                                                              \
    "  gravity = 0, 0, -386.1\n"                                                                                \
    "  radii = 16, 16, 36\n"                                                                                  \
    "  step_height = 14\n"                                                                                     \
    "  walk_speed = 200\n"                                                                                     \
    "  ground_accel = 2000\n"                                                                                  \
    "  air_accel = 400\n"                                                                                      \
    "  jump_speed = 200\n"                                                                                     \
    "  speed_limit = 2400\n"                                                                                   \
    "  correction_threshold = 10\n"

#ifdef __cplusplus
}
#endif

#endif
