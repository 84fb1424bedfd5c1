/*
 * level.h - a level as plain arrays: vertices, indexed triangles with a
 * material each, named materials, spawn points and the movement rules.
 *
 * This is what every map source produces (the SQLite loader, the
 * generator, the importer) and what sweep_world_create consumes, through
 * sweep_level_world_desc(). Arrays grow as items are added; a level owns its
 * memory and sweep_level_free() releases it.
 */
#ifndef SWEEP_MAPS_LEVEL_H
#define SWEEP_MAPS_LEVEL_H

#include <stdint.h>

#include "core/motion.h"
#include "core/move.h"
#include "core/mover.h"
#include "core/status.h"
#include "core/vec3.h"
#include "core/volume.h"
#include "core/world.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_LEVEL_NAME_MAX 64

typedef struct sweep_material {
    uint32_t id;
    char name[SWEEP_LEVEL_NAME_MAX];
    double friction;
    uint32_t flags;
} sweep_material;

/* A mover (door, lift, platform; core/mover.h) as the map describes it: its
 * triangles in its own local frame, its keyframed path and its rules. */
typedef struct sweep_level_mover {
    uint32_t id;                     /* movers.id in the map, >= 1: the id on the wire */
    char name[SWEEP_LEVEL_NAME_MAX]; /* unique in the level; COMMAND triggers use it */
    sweep_mover_mode mode;
    sweep_mover_trigger trigger;
    sweep_mover_blocked blocked;
    double wait_start, wait_end;     /* seconds */
    sweep_vec3 volume_min, volume_max; /* VOLUME trigger box, world units */
    sweep_vec3 *vertices;            /* local frame */
    uint32_t vertex_count, vertex_cap;
    uint32_t *indices;               /* 3 per triangle */
    uint32_t *materials;             /* material id per triangle */
    uint32_t triangle_count, triangle_cap;
    sweep_keyframe *keys;
    uint32_t key_count, key_cap;
} sweep_level_mover;

/* A volume (jump pad, teleporter, ...; core/volume.h) as the map names it. */
typedef struct sweep_level_volume {
    uint32_t id;                     /* volumes.id in the map, >= 1: the id on the wire */
    char name[SWEEP_LEVEL_NAME_MAX]; /* the event, reason or trigger name the game hears */
    sweep_volume v;                  /* index in lv->volumes = the core's volume index */
} sweep_level_volume;

typedef struct sweep_level {
    char name[SWEEP_LEVEL_NAME_MAX];
    sweep_config config;       /* gravity, slope, step height, limits */
    sweep_rules rules;         /* what a player's wish becomes (core/motion.h) */
    double correction_threshold; /* a claimed position this far off is reported corrected, units */
    double history_ms;           /* poses kept for lag-compensated queries, ms (server/world/history.c) */
    double rewind_cap_ms;        /* how far back of the newest tick a player may query, ms */
    sweep_vec3 default_radii;  /* player ellipsoid if a spawn gives none */
    double tick_rate;          /* server ticks per second */

    sweep_vec3 *vertices;
    uint32_t vertex_count, vertex_cap;
    uint32_t *indices;         /* 3 per triangle */
    uint32_t *materials;       /* material id per triangle */
    uint32_t triangle_count, triangle_cap;
    sweep_material *material_table;
    uint32_t material_count, material_cap;
    sweep_vec3 *spawns;
    uint32_t spawn_count, spawn_cap;
    sweep_level_mover *movers;       /* in id order */
    uint32_t mover_count, mover_cap;
    sweep_level_volume *volumes;     /* in id order */
    uint32_t volume_count, volume_cap;
} sweep_level;

/* An empty level with default rules (sweep_config_default and
 * sweep_rules_default), radii (0.4, 0.4, 0.9), a correction threshold of 0.25 and 60 ticks per
 * second. */
void sweep_level_init(sweep_level *lv);
/* Frees what lv holds and leaves it empty (as sweep_level_init); NULL, or
 * movers counted without their array, are taken. */
void sweep_level_free(sweep_level *lv);

/* Each add returns SWEEP_OK or SWEEP_E_NOMEM (or SWEEP_E_GEOMETRY when a
 * count would pass SWEEP_WORLD_MAX_TRIANGLES); ids are returned in *out. */
sweep_status sweep_level_add_vertex(sweep_level *lv, sweep_vec3 v, uint32_t *out);
sweep_status sweep_level_add_triangle(sweep_level *lv, uint32_t a, uint32_t b, uint32_t c, uint32_t material);
/* A planar quad a-b-c-d (in order around it) as two triangles facing the
 * same way as (a, b, c). */
sweep_status sweep_level_add_quad(sweep_level *lv, sweep_vec3 a, sweep_vec3 b, sweep_vec3 c, sweep_vec3 d,
                                  uint32_t material);
/* An axis-aligned box with outward faces; the bottom face is left out when
 * `bottom` is 0 (boxes standing on terrain never show it). */
sweep_status sweep_level_add_box(sweep_level *lv, sweep_vec3 lo, sweep_vec3 hi, uint32_t material, int bottom);
sweep_status sweep_level_add_material(sweep_level *lv, uint32_t id, const char *name, double friction,
                                      uint32_t flags);
sweep_status sweep_level_add_spawn(sweep_level *lv, sweep_vec3 p);

/* Adds an empty mover (ONCE, ALWAYS, STOP, no waits) named `name` with map
 * id `id`; its index in lv->movers is returned in *out. */
sweep_status sweep_level_add_mover(sweep_level *lv, uint32_t id, const char *name, uint32_t *out);
sweep_status sweep_level_mover_add_vertex(sweep_level_mover *m, sweep_vec3 v, uint32_t *out);
sweep_status sweep_level_mover_add_triangle(sweep_level_mover *m, uint32_t a, uint32_t b, uint32_t c,
                                            uint32_t material);
sweep_status sweep_level_mover_add_keyframe(sweep_level_mover *m, double time, sweep_vec3 position,
                                            sweep_quat rotation);
/* Adds a volume with map id `id` (ids increase with each add) named
 * `name` (copied, cut to 63 bytes). SWEEP_E_NOMEM, or SWEEP_E_ARG past
 * SWEEP_VOLUME_MAX volumes. The volume is checked when a world is built
 * (sweep_map_build_world) and when a map is loaded. */
sweep_status sweep_level_add_volume(sweep_level *lv, uint32_t id, const char *name, const sweep_volume *v);

/* The index of the mover named `name`, or SWEEP_NO_MOVER. */
uint32_t sweep_level_find_mover(const sweep_level *lv, const char *name);

/* The core description of mover i (valid while lv lives). */
sweep_mover_desc sweep_level_mover_desc(const sweep_level *lv, uint32_t i);

/* Builds the core movers of the level (sweep_movers_create with the
 * level's tick rate, numbering mover triangles after the static ones).
 * A level without movers gets an empty set. */
sweep_status sweep_level_build_movers(const sweep_level *lv, sweep_movers **out);

/* The world description over the level's arrays (valid while lv lives). */
sweep_world_desc sweep_level_world_desc(const sweep_level *lv);

#ifdef __cplusplus
}
#endif

#endif
