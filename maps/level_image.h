/*
 * level_image.h - a loaded level as one block of bytes, read back to the
 * same level bit for bit without SQLite.
 *
 * A game client predicts on the server's map. Where SQLite is at hand it
 * opens the map itself (maps/loader.h); where it is not (a Windows,
 * console or phone build of libsweep that leaves SQLite out), it reads an
 * image of the level that `sweep-map-image` made from the map on a
 * machine that has it. The image holds the level as the loader left it
 * (degenerate triangles already dropped) and the map row's numbers as
 * stored, which go through the loader's own checks and application
 * (sweep_map_check_values, sweep_map_apply_values), so the level read
 * back has the same content hash (maps/content_hash.h) and moves to the
 * same bits as the map it came from.
 *
 * Format (version 4; version 1 had neither crouching nor the swimming and
 * climbing rules nor the liquid and normal of a volume, version 2 had
 * crouching alone, version 3 no air_move; all still read, what they lack
 * is the core's default).
 * u32 = 4 bytes little-endian; f64 = the 8 bytes of
 * the IEEE-754 binary64 value, little-endian, every bit kept (-0.0 too);
 * str = u32 length (< SWEEP_LEVEL_NAME_MAX) then that many bytes, no NUL:
 *
 *   8 bytes  "SWEEPLVL"
 *   u32      4 (the version)
 *   str      level name
 *   f64 x18  the map row: gravity x, y, z; tick_rate; radii x, y, z;
 *            walkable_slope_deg; step_height; walk_speed; ground_accel;
 *            air_accel; jump_speed; max_step; speed_limit;
 *            correction_threshold; history_ms; rewind_cap_ms
 *   f64 x7   versions 3 and 4: swim_speed; swim_accel; swim_drag; swim_sink;
 *            swim_jump; climb_speed; climb_accel
 *   f64 x4   versions 2 to 4: crouch radii x, y, z; crouch_speed
 *            (core/stance.h; all 0: no crouching)
 *   f64      version 4: air_move (core/motion.h, SWEEP_AIR_*)
 *   u32 V, then V times f64 x, y, z                       (vertices)
 *   u32 T, then T times u32 a, b, c, material id           (triangles)
 *   u32 M, then M times u32 id, str name, f64 friction, u32 flags
 *   u32 S, then S times f64 x, y, z                       (spawn points)
 *   u32 N, then N movers, each:
 *            u32 id, str name, u32 mode, trigger, blocked;
 *            f64 wait_start, wait_end; f64 volume min x, y, z, max x, y, z;
 *            u32 V, V times f64 x, y, z; u32 T, T times u32 a, b, c,
 *            material; u32 K, K times f64 time, position x, y, z,
 *            rotation x, y, z, w
 *   u32 W, then W volumes (jump pads, teleporters, ...; core/volume.h), each:
 *            u32 id, str name, u32 kind; f64 box lo x, y, z, hi x, y, z;
 *            u32 P, P times f64 normal x, y, z, offset; f64 velocity
 *            x, y, z, destination x, y, z, facing x, y, z, exit_speed;
 *            u32 keep_velocity; f64 damage; versions 3 and 4: u32 liquid; f64 normal x, y, z
 *
 * and nothing after. An image is external input: the reader checks every
 * count against the bytes left and the core's limits, every number is
 * finite, every index in range, every material known, the map row by
 * sweep_map_check_values, every mover by sweep_mover_desc_check and every
 * volume by sweep_volume_check, and
 * refuses anything else with one line naming what and where.
 */
#ifndef SWEEP_MAPS_LEVEL_IMAGE_H
#define SWEEP_MAPS_LEVEL_IMAGE_H

#include <stddef.h>

#include "core/status.h"
#include "maps/level.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_LEVEL_IMAGE_VERSION 4

/*
 * The image of lv, whose map row said walkable_slope_deg (a level keeps
 * only its cosine; sweep_map_load_info has the degrees): a malloc'd block
 * in *out, its size in *len. SWEEP_E_NOMEM, or SWEEP_E_ARG for NULLs.
 */
sweep_status sweep_level_image_make(const sweep_level *lv, double walkable_slope_deg, unsigned char **out,
                                    size_t *len);

/*
 * Reads the image in bytes[0, len) into *out (which need not be
 * initialised). On SWEEP_OK the caller frees *out with sweep_level_free.
 * Otherwise *out is an empty initialised level, err says what is wrong,
 * and the status is SWEEP_E_NOMEM, SWEEP_E_ARG (a NULL), SWEEP_E_CONFIG
 * (a map row out of range) or SWEEP_E_GEOMETRY (anything else).
 */
sweep_status sweep_level_image_read(const unsigned char *bytes, size_t len, sweep_level *out, char *err,
                                    size_t errlen);

/* The image file at path read as sweep_level_image_read does; a file
 * that cannot be read is SWEEP_E_GEOMETRY too, err saying why (the caller
 * adds the path). */
sweep_status sweep_level_image_load(const char *path, sweep_level *out, char *err, size_t errlen);

/* Writes the image of lv to path; a write that fails removes what it
 * wrote. */
sweep_status sweep_level_image_save(const char *path, const sweep_level *lv, double walkable_slope_deg, char *err,
                                    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
