/*
 * history.h - where every body and mover of a world was over its last N
 * ticks: the memory that lag-compensated queries (query.h) look back into.
 *
 * The owner of a world pushes one frame per tick, after the movers have
 * advanced and the tick's moves are applied: each entity's pose (position,
 * radii and its hit shapes) and each mover's pose. The history keeps the
 * newest `capacity` frames in a ring; pushing into a full ring forgets the
 * oldest. Each frame also keeps the box around all its entities (and around
 * each entity's hit shapes), so a query skips a frame's entities it cannot
 * reach without looking at them one by one.
 *
 * A past time is a tick plus a fraction of a tick (sweep_query_time). A
 * pose between two kept ticks is interpolated with + - * / only:
 * position p0 + (p1 - p0) * f, radii and hit shapes the same way, a mover's
 * rotation by normalised lerp (quat.h). So every build answers the same
 * bits. An entity kept at tick k but not at k + 1 (despawned) is where it
 * was at k for every fraction; one that appears only at k + 1 is not there
 * before k + 1.
 *
 * Entities are keyed by a 64-bit id chosen by the owner. A frame holds
 * them sorted by id (the history sorts what it is given), so answers never
 * depend on the order the owner happened to list them in.
 *
 * Memory is allocated once, at creation: capacity frames of max_entities
 * entities and the movers' poses, and capacity + 7 pools (fewer for a
 * ring under 8 ticks), each with room for the radii of max_entities
 * entities and the hit shapes they may have in all (SWEEP_HIT_SHAPES_MAX
 * each, or the owner's own limit). sweep_history_bytes says what one
 * costs; the docs state it per entity per second. Pushing never allocates
 * and never fails for lack of memory. An entity's radii and shapes are
 * kept once while they stay the same bits, for up to 8 ticks, and
 * written again into the newest tick's pool after that: a push checks,
 * boxes and copies only the shapes that changed, and an entity that
 * changes them every tick still fits.
 *
 * Not thread-safe: the world's thread pushes and queries. A client may keep
 * a history of its own view and ask it the same questions with the same
 * code.
 */
#ifndef SWEEP_CORE_HISTORY_H
#define SWEEP_CORE_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/mover.h"
#include "core/status.h"
#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Most hit shapes one entity may have (head, torso, legs, arms ...). */
#define SWEEP_HIT_SHAPES_MAX 8u
/* Most ticks one history may keep: the newest and a minute before it at
 * 128 Hz. */
#define SWEEP_HISTORY_MAX_TICKS 7681u

typedef enum sweep_hit_shape_kind {
    SWEEP_SHAPE_SPHERE = 0,    /* centre a, radius radii.x */
    SWEEP_SHAPE_CAPSULE = 1,   /* segment a..b, radius radii.x */
    SWEEP_SHAPE_ELLIPSOID = 2, /* centre a, axis-aligned radii */
    SWEEP_SHAPE_KIND_COUNT
} sweep_hit_shape_kind;

/* One hit shape, relative to the entity's position (world axes). The id is
 * the game's own (1 = head, ...) and comes back in a hit. */
typedef struct sweep_hit_shape {
    uint32_t id;
    uint32_t kind; /* sweep_hit_shape_kind */
    sweep_vec3 a, b;
    sweep_vec3 radii;
} sweep_hit_shape;

/*
 * SWEEP_OK if the shapes can be kept: count <= SWEEP_HIT_SHAPES_MAX, a known
 * kind, finite values, radii above zero, and every point within `reach` of
 * the entity's position (a shape far from its body is a mistake, and would
 * defeat the frame's box). Otherwise SWEEP_E_ARG, SWEEP_E_NONFINITE or
 * SWEEP_E_RADII; *bad (may be NULL) is then the index of the first bad shape.
 */
sweep_status sweep_hit_shapes_check(const sweep_hit_shape *shapes, uint32_t count, double reach, uint32_t *bad);

/* One entity as the owner gives it to sweep_history_push. With no shapes it
 * is hit as its collision ellipsoid (position, radii). */
typedef struct sweep_history_entity {
    uint64_t id;
    sweep_vec3 position;
    sweep_vec3 radii;
    const sweep_hit_shape *shapes; /* checked by sweep_hit_shapes_check */
    uint32_t shape_count;
} sweep_history_entity;

typedef struct sweep_history sweep_history;

/*
 * A history of `capacity` ticks (1 .. SWEEP_HISTORY_MAX_TICKS) for up to
 * max_entities entities and exactly mover_count movers. SWEEP_E_ARG for
 * bad sizes, SWEEP_E_NOMEM; on failure *out is untouched.
 */
sweep_status sweep_history_create(uint32_t capacity, uint32_t max_entities, uint32_t mover_count,
                                  sweep_history **out);

void sweep_history_destroy(sweep_history *h);

/* Bytes sweep_history_create would allocate for these sizes (0 if they are
 * bad), so an owner can hold it to a memory limit before creating it. */
size_t sweep_history_bytes(uint32_t capacity, uint32_t max_entities, uint32_t mover_count);

/*
 * As sweep_history_create and sweep_history_bytes, for an owner that
 * allows fewer shapes than SWEEP_HIT_SHAPES_MAX an entity: each frame
 * keeps at most max_shapes hit shapes over all its entities, and a push
 * of more is refused (SWEEP_E_ARG, nothing kept). max_entities below 2^31,
 * and max_entities and max_shapes times the pools below 2^32.
 */
sweep_status sweep_history_create_shapes(uint32_t capacity, uint32_t max_entities, uint32_t max_shapes,
                                         uint32_t mover_count, sweep_history **out);
size_t sweep_history_bytes_shapes(uint32_t capacity, uint32_t max_entities, uint32_t max_shapes, uint32_t mover_count);

/*
 * Keeps the frame of `tick`: count entities (any order; ids unique) and the
 * poses of the movers (mover_count of them, in mover order; NULL if
 * mover_count is 0). tick must be the newest tick plus one, or anything
 * when the history is empty. SWEEP_E_ARG for a tick out of order, too many
 * entities or shapes, a repeated id or a wrong mover count; SWEEP_E_NONFINITE,
 * SWEEP_E_RADII for a bad pose or shape; SWEEP_E_ARG for a mover rotation
 * not of unit length (|len^2 - 1| > 1e-6). An entity's shapes are checked
 * with a reach of 4 times its largest radius. On failure nothing is kept.
 */
sweep_status sweep_history_push(sweep_history *h, uint64_t tick, const sweep_history_entity *entities, uint32_t count,
                                const sweep_mover_pose *movers, uint32_t mover_count);

/* Forgets every frame (a world reset). */
void sweep_history_clear(sweep_history *h);

/*
 * Where entity `id` was at a kept tick plus a fraction of the way to the
 * next (interpolated as above): its position and radii (either pointer
 * may be NULL). SWEEP_E_TIME for a time the history does not hold (as the
 * queries), SWEEP_E_ARG when the entity is not kept at that tick (not yet
 * spawned, or NULL arguments). A shot from an entity starts where it was
 * when the shooter fired.
 */
sweep_status sweep_history_entity_at(const sweep_history *h, uint64_t id, uint64_t tick, double fraction,
                                     sweep_vec3 *position, sweep_vec3 *radii);

/* The oldest and newest ticks kept; 0 (and both untouched) when empty. */
int sweep_history_span(const sweep_history *h, uint64_t *oldest, uint64_t *newest);

#ifdef __cplusplus
}
#endif

#endif
