/*
 * loader.h - loading a sweep map (an SQLite database in the format of
 * maps/schema.sql) into a sweep_level, and building its core world.
 *
 * The map is external input: the loader opens it read-only, refuses
 * anything it cannot fully trust (wrong file type, truncated or damaged
 * file, unknown schema version, missing tables, a NaN or out-of-range
 * number, an index out of range, an unknown material, a material, mover,
 * volume or spawn id that stands twice, no triangles, a mover that the
 * core would refuse) and says exactly what and where: the message names
 * the table and the row id ("triangles row id=12: vertex b=900 is out of
 * range ..."); rows of the mover tables, keyed by mover and id, are named
 * "mover_keyframes row mover=3 id=2: ...". The message does not repeat the
 * path; the caller prints it.
 *
 * Maps of schema version 1 (before movers and movement rules) load as
 * levels without movers under the default rules (sweep_level_init);
 * maps of versions 1 and 2 load without volumes.
 *
 * The map row's numbers (gravity, radii, slope, the movement rules, ...)
 * go through sweep_map_check_values and sweep_map_apply_values, which the
 * tools also use for values they take from elsewhere (--rules files), so
 * a value is refused in the same words wherever it comes from. The map's
 * speed_limit becomes the level's config.max_speed: no move on the map
 * may ask for more.
 *
 * Degenerate triangles are not an error: they are dropped, counted in
 * sweep_map_load_info and the rest keep their order (see schema.sql).
 *
 * Typical use:
 *
 *   sweep_level lv;
 *   sweep_map_load_info info;
 *   char err[256];
 *   if (sweep_map_load(path, &lv, &info, err, sizeof err) != SWEEP_OK)
 *       die("%s: %s", path, err);
 *   sweep_world *w;
 *   if (sweep_map_build_world(&lv, &w, NULL, err, sizeof err) != SWEEP_OK) ...
 *   ... sweep_world_destroy(w); sweep_level_free(&lv);
 */
#ifndef SWEEP_MAPS_LOADER_H
#define SWEEP_MAPS_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/world.h"
#include "maps/level.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The schema version (PRAGMA user_version) this build writes; it reads
 * every version from SWEEP_MAP_SCHEMA_VERSION_MIN up to this one. */
#define SWEEP_MAP_SCHEMA_VERSION 4
#define SWEEP_MAP_SCHEMA_VERSION_MIN 1
/* PRAGMA application_id of every sweep map: "SWMP". */
#define SWEEP_MAP_APPLICATION_ID 0x53574D50
/* A map has at most this many materials (a level image too). */
#define SWEEP_MAP_MAX_MATERIALS 65536u

/* Why a load failed, finer than sweep_status. Names and values are stable
 * (new codes are added at the end). Mover rows reuse the general codes
 * where the fault is the same: VALUE for a NULL, text or non-finite number,
 * VERTEX_ID for mover vertex ids with gaps, INDEX for a vertex not in the
 * triangle's mover, MATERIAL, TOO_BIG, SCHEMA for a missing mover table. */
typedef enum sweep_map_error {
    SWEEP_MAP_OK = 0,
    SWEEP_MAP_E_ARG,          /* NULL path or output */
    SWEEP_MAP_E_OPEN,         /* missing, unreadable or not a regular file */
    SWEEP_MAP_E_EMPTY_FILE,   /* zero bytes */
    SWEEP_MAP_E_NOT_DATABASE, /* not an SQLite database at all */
    SWEEP_MAP_E_TRUNCATED,    /* shorter than its own header says */
    SWEEP_MAP_E_CORRUPT,      /* SQLite found the file damaged */
    SWEEP_MAP_E_NOT_MAP,      /* an SQLite database, but not a sweep map */
    SWEEP_MAP_E_VERSION,      /* a sweep map of a schema version this build does not read */
    SWEEP_MAP_E_SCHEMA,       /* a table or column is missing */
    SWEEP_MAP_E_METADATA,     /* the map row is missing, repeated or out of range */
    SWEEP_MAP_E_VALUE,        /* NULL, text, NaN, infinite or out-of-range number in a row */
    SWEEP_MAP_E_VERTEX_ID,    /* vertex ids do not run 0, 1, 2, ... */
    SWEEP_MAP_E_INDEX,        /* a triangle names a vertex that does not exist */
    SWEEP_MAP_E_MATERIAL,     /* unknown material on a triangle, or a bad materials row */
    SWEEP_MAP_E_NO_TRIANGLES, /* no triangles, or all of them degenerate */
    SWEEP_MAP_E_TOO_BIG,      /* more rows than the core accepts */
    SWEEP_MAP_E_NOMEM,        /* out of memory */
    SWEEP_MAP_E_IO,           /* any other error reported by SQLite while reading */
    SWEEP_MAP_E_MOVER,        /* a bad movers row (name, mode, trigger, blocked, waits, volume), a row
                                 of another mover table naming no mover, mover triangle ids with
                                 gaps, or a mover without a usable triangle */
    SWEEP_MAP_E_KEYFRAME,     /* a bad mover path: keyframe ids with gaps, fewer than 2 keyframes,
                                 first time not 0, times not increasing, a rotation that is not a
                                 unit quaternion, a loop that does not end where it starts */
    SWEEP_MAP_E_VOLUME,       /* a bad volumes row (name, kind, a column its kind reads missing or one
                                 it does not read set, what the core refuses: sweep_volume_check) or
                                 volume_planes row (no such volume, ids with gaps, too many planes) */
    SWEEP_MAP_ERROR_COUNT
} sweep_map_error;

/* Stable upper-case name ("TRUNCATED", ...); "UNKNOWN" if out of range. */
const char *sweep_map_error_name(sweep_map_error e);

typedef struct sweep_map_load_info {
    sweep_map_error error;     /* SWEEP_MAP_OK on success */
    char table[16];            /* table the error is about, "" if none */
    int64_t row_id;            /* its row id, -1 if the error is not about one row */
    int64_t mover_id;          /* the mover the error is about (movers.id, or the mover column of a
                                  mover_* row), -1 if none */
    uint32_t schema_version;
    char units[16];            /* map.units */
    double walkable_slope_deg; /* map.walkable_slope_deg, as stored */
    uint32_t triangle_rows;    /* rows in the triangles table */
    uint32_t degenerate_dropped;
    int64_t first_degenerate_id; /* row id of the first dropped triangle, -1 if none */
    uint32_t mover_degenerate; /* degenerate mover triangles (kept, never collide) */
} sweep_map_load_info;

/*
 * Loads the map at path into *out (which need not be initialised). On
 * SWEEP_OK the caller owns *out and frees it with sweep_level_free. On
 * failure *out is an empty initialised level, err holds one line saying
 * what is wrong (if err is not NULL), info->error says why, and the status
 * is SWEEP_E_NOMEM when memory ran out, SWEEP_E_ARG for a NULL argument,
 * SWEEP_E_CONFIG for bad movement rules in the map row, and
 * SWEEP_E_GEOMETRY for everything else wrong with the file. info may be
 * NULL.
 */
sweep_status sweep_map_load(const char *path, sweep_level *out, sweep_map_load_info *info, char *err,
                            size_t errlen);

/*
 * The name of the map at path (its map row), without loading the rest:
 * 0 with the name in out, or -1 (not a map, no such row, a name longer
 * than outlen - 1). What a server reads to find a map by name among many.
 */
int sweep_map_read_name(const char *path, char *out, size_t outlen);

/*
 * The numbers of the map row, as stored: the level's physics and its
 * movement rules, in map units and seconds, the slope in degrees.
 */
typedef struct sweep_map_values {
    sweep_vec3 gravity;          /* gravity_x, gravity_y, gravity_z */
    double tick_rate;
    sweep_vec3 radii;            /* radius_x, radius_y, radius_z */
    double walkable_slope_deg;
    double step_height;
    sweep_rules rules;           /* walk_speed, ground_accel, air_accel, jump_speed, max_step, speed_limit;
                                    version 4: crouch_radius_x, _y, _z, crouch_speed */
    double correction_threshold;
    double history_ms;           /* version 3: poses kept for queries, ms */
    double rewind_cap_ms;        /* version 3: how far back a player may query, ms */
} sweep_map_values;

/* The values of lv. A level keeps only the cosine of its slope, so the
 * caller says the slope it was made with. */
void sweep_map_values_of(const sweep_level *lv, double walkable_slope_deg, sweep_map_values *out);

/*
 * SWEEP_OK if a map may hold these values (the loader's rules, the core's
 * ranges: sweep_config_check and sweep_rules_check). Otherwise
 * SWEEP_E_CONFIG, err says what is wrong naming the column and its value
 * ("walk_speed=0 must be in (0, 1e6] units/s"), and *key (may be NULL)
 * names the value at fault as a --rules file does: the column's name, or
 * "gravity" or "radii" for the three columns of those vectors (NULL if
 * only the core's own last check refuses them). Each value is checked
 * alone first, then the rules that tie several together: the radii's
 * proportions (*key "radii") and speed_limit against walk_speed and
 * jump_speed (*key "speed_limit").
 */
sweep_status sweep_map_check_values(const sweep_map_values *v, const char **key, char *err, size_t errlen);

/* Puts checked values into lv: config (gravity, walkable_normal_up by the
 * core's deterministic cosine, step_height, max_speed = speed_limit),
 * default_radii, tick_rate, rules, correction_threshold and the query
 * rules. */
void sweep_map_apply_values(const sweep_map_values *v, sweep_level *lv);

/*
 * Builds the core world (with its BVH) over a loaded level, prepared for
 * bodies of the level's default radii (sweep_world_prepare_radii), with
 * the level's volumes (sweep_world_set_volumes, under the level's speed
 * and coordinate limits). The
 * world does not keep pointers into lv. world_info may be NULL. On failure *out is
 * untouched and err says why.
 */
sweep_status sweep_map_build_world(const sweep_level *lv, sweep_world **out, sweep_world_info *world_info,
                                   char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
