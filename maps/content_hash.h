/*
 * content_hash.h - the map content hash: one SHA-256 digest that says two
 * programs hold the same level, in the sense that every move gives the same
 * result on both.
 *
 * The server sends it in Welcome; a client compares it with the hash of the
 * map it predicts with. It is computed from a loaded sweep_level (after the
 * loader dropped degenerate triangles), never from the file bytes, so two
 * files that load to the same level (different page sizes, row order on
 * disk, SQLite versions) hash the same, and a generated level can be hashed
 * without writing it.
 *
 * Serialization (version 2), fed to SHA-256 (FIPS 180-4) in this order.
 * u32 = 4 bytes little-endian; f64 = the 8 bytes of the IEEE-754 binary64
 * value, little-endian, with -0.0 written as +0.0 (SQLite does not keep the
 * sign of zero, so it cannot be part of a map's identity):
 *
 *   8 bytes  the ASCII text "SWEEPMAP"
 *   u32      2 (version of this serialization)
 *   rules:   f64 gravity x, y, z; f64 walkable_normal_up; f64 step_height;
 *            f64 default radii x, y, z; f64 tick_rate;
 *            f64 walk_speed, ground_accel, air_accel, jump_speed, max_step,
 *            speed_limit (the movement rules, core/motion.h);
 *            f64 correction_threshold (not the query rules history_ms and
 *            rewind_cap_ms: a client predicts the same with any)
 *   u32      vertex count V, then V times: f64 x, y, z
 *   u32      triangle count T, then T times: u32 a, b, c, material id
 *   u32      material count M, then M times in increasing id order:
 *            u32 id, f64 friction, u32 flags
 *
 * and only when the level has movers (a level without movers, such as
 * every map of schema version 1, has no movers part):
 *
 *   8 bytes  the ASCII text "MOVERS" and two zero bytes
 *   u32      mover count N, then N times, in the level's order (id order
 *            when loaded):
 *     u32    id
 *     u32    name length L in bytes, then the L bytes of the name (COMMAND
 *            triggers and the wire name movers by it)
 *     u32    mode, trigger, blocked (the values of the core's enums)
 *     f64    wait_start, wait_end
 *     f64    volume min x, y, z, max x, y, z (only when trigger is VOLUME)
 *     u32    vertex count V, then V times: f64 x, y, z (local frame)
 *     u32    triangle count T, then T times: u32 a, b, c, material id
 *     u32    keyframe count K, then K times: f64 time, f64 position x, y,
 *            z, f64 rotation x, y, z, w
 and then only when the level has volumes (schema version 3; a level
 * without volumes, such as every map of versions 1 and 2, has no volumes
 * part, and its hash is what it was):
 *   8 bytes  the ASCII text "VOLUMES" and one zero byte
 *   u32      volume count N, then N times, in the level's order (id order
 *            when loaded):
 *     u32    id
 *     u32    name length L in bytes, then the L bytes of the name (the
 *            event, reason or trigger name games hear)
 *     u32    kind (the core's enum sweep_volume_kind)
 *     f64    box min x, y, z, max x, y, z
 *     u32    plane count P, then P times: f64 normal x, y, z, f64 offset
 *     push:     f64 velocity x, y, z
 *     teleport: f64 destination x, y, z, f64 facing x, y, z,
 *               u32 keep_velocity, f64 exit_speed
 *     hurt:     f64 damage per second
 *     liquid:   u32 liquid (the core's enum sweep_liquid), f64 damage
 *     ladder:   f64 normal x, y, z
 *   and, only when one of them is a liquid or a ladder (schema version 4;
 *   the rules no move of another level reads, so its hash is what it was):
 *   8 bytes  the ASCII text "MODES" and three zero bytes
 *   f64      swim_speed, swim_accel, swim_drag, swim_sink, swim_jump,
 *            climb_speed, climb_accel
 * and then only when the level has crouching (schema version 4, core/
 * stance.h; a level without it has no crouch part, and its hash is what
 * it was):
 *   8 bytes  the ASCII text "CROUCH" and two zero bytes
 *   f64      crouch radii x, y, z, crouch_speed
 * and last, only when the level's air_move is not 0 (core/motion.h; a
 * level of sweep's own air control has no such part, and its hash is
 * what it was):
 *   8 bytes  the ASCII text "AIRMOVE" and one zero byte
 *   f64      air_move
 *
 * Left out on purpose: the level's name, units, material names and spawn
 * points (labels and server-side choices that cannot change a move), and
 * the core's own limits (skin, iteration count, input limits), which belong
 * to the build of the core, not to the map; the one input limit a map sets,
 * config.max_speed, is its speed_limit, already in. A mover's name is in,
 * unlike the other labels, because games address movers by name.
 *
 * Version 1 had no movement rules and no correction threshold: every
 * map's hash changed with version 2, schema version 1 maps too (they load
 * with the default rules, and those are now part of what the hash says).
 */
#ifndef SWEEP_MAPS_CONTENT_HASH_H
#define SWEEP_MAPS_CONTENT_HASH_H

#include <stdint.h>

#include "core/status.h"
#include "maps/level.h"
#include "core/sha256.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_CONTENT_HASH_VERSION 2

typedef struct sweep_content_hash {
    uint8_t bytes[SWEEP_SHA256_SIZE];
} sweep_content_hash;

/* Hashes lv as described above. SWEEP_E_ARG if a pointer is NULL,
 * SWEEP_E_NOMEM if sorting the material table needs memory it cannot get. */
sweep_status sweep_level_content_hash(const sweep_level *lv, sweep_content_hash *out);

/* Lower-case hex, 64 characters and a NUL. */
void sweep_content_hash_hex(const sweep_content_hash *h, char out[2 * SWEEP_SHA256_SIZE + 1]);

#ifdef __cplusplus
}
#endif

#endif
