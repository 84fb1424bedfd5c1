/*
 * history.c - the world's memory of where its entities and movers were:
 * one frame per tick in a ring (core/history.h), what a Query looks back
 * into (queries.c).
 *
 * The frame of tick T is the world as tick T left it: every entity's pose
 * after the moves applied before the tick and the tick's mover step (so
 * where a carried or pushed entity ended), with its hit shapes, and every
 * mover's pose after that step. Moves applied after tick T are in the
 * frame of tick T + 1. The world pushes frame 0 when it opens (its movers
 * at rest, no entities), so a history is never empty.
 *
 * Sizes: history_ms of ticks (the map's rule, or the caller's option;
 * rounded up, at least one; the world's tick rate decides how many), for history_entities entities and the map's
 * movers, allocated once when the world opens and held to
 * history_max_bytes first. A Spawn past history_entities is refused
 * (spawn.c), so every entity of the world is in every frame.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"
#include "server/world/world_impl.h"

/* Ticks in `ms` milliseconds at the world's rate, rounded up, at least 1
 * (a minute at the options' 10,000 Hz is 600,000: it fits). */
static uint32_t ticks_of(const sweep__world *w, uint32_t ms)
{
    double t = ceil((double)ms * w->tick_rate / 1000.0);
    return t < 1.0 ? 1u : (uint32_t)t;
}

int sweep__world_history_open(sweep__world *w, char *err, size_t errlen)
{
    const sweep__world_options *o = &w->opt;
    uint32_t nb = o->max_batch ? o->max_batch : 1;
    w->query_answers = sweep__calloc(nb, sizeof *w->query_answers);
    w->query_hits = sweep__calloc((size_t)nb * SWEEP_WIRE_QUERY_HITS_MAX, sizeof *w->query_hits);
    w->query_texts = sweep__calloc(nb, sizeof *w->query_texts);
    if (!w->query_answers || !w->query_hits || !w->query_texts) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (o->no_history) {
        w->history_entities = UINT32_MAX;
        return 0;
    }
    /* The map's rules (loader-checked, 1 to 60000), unless the caller's
     * options override them. */
    uint32_t ms = o->history_ms ? o->history_ms : (uint32_t)ceil(w->level.history_ms);
    uint32_t cap_ms = o->rewind_cap_ms ? o->rewind_cap_ms : (uint32_t)ceil(w->level.rewind_cap_ms);
    w->history_ms = ms;
    w->rewind_cap_ms = cap_ms;
    w->history_ticks = ticks_of(w, ms) + 1; /* the newest frame and ms of frames before it */
    w->rewind_cap_ticks = ticks_of(w, cap_ms);
    if (w->history_ticks > SWEEP_HISTORY_MAX_TICKS) {
        snprintf(err, errlen,
                 "a pose history of %u ms at %g ticks a second is %u frames; at most %u are kept (a minute at "
                 "128 Hz: lower --history-ms or the map's history_ms)",
                 ms, w->tick_rate, w->history_ticks, SWEEP_HISTORY_MAX_TICKS);
        return -1;
    }
    w->history_entities = o->history_entities ? o->history_entities : SWEEP__HISTORY_ENTITIES;
    size_t bytes = sweep_history_bytes(w->history_ticks, w->history_entities, w->mover_count);
    if (bytes == 0) {
        snprintf(err, errlen, "a history of %u ticks for %u entities and %u movers is beyond what one may hold",
                 w->history_ticks, w->history_entities, w->mover_count);
        return -1;
    }
    if (o->history_max_bytes && bytes > o->history_max_bytes) {
        snprintf(err, errlen,
                 "its pose history (%u ms = %u ticks of %u entities) needs %zu bytes, above the limit of %llu "
                 "(--history-memory; or lower --history-ms or --history-entities)",
                 ms, w->history_ticks, w->history_entities, bytes, (unsigned long long)o->history_max_bytes);
        return -1;
    }
    w->hist_entities = sweep__calloc(w->history_entities, sizeof *w->hist_entities);
    w->hist_order = sweep__calloc(w->history_entities, sizeof *w->hist_order);
    w->hist_order_stale = 1;
    w->hist_movers = sweep__calloc(w->mover_count ? w->mover_count : 1, sizeof *w->hist_movers);
    if (!w->hist_entities || !w->hist_order || !w->hist_movers ||
        sweep_history_create(w->history_ticks, w->history_entities, w->mover_count, &w->history) != SWEEP_OK) {
        snprintf(err, errlen, "out of memory for its pose history (%zu bytes)", bytes);
        return -1;
    }
    sweep__world_history_push(w);
    return 0;
}

void sweep__world_history_close(sweep__world *w)
{
    sweep_history_destroy(w->history);
    free(w->hist_entities);
    free(w->hist_order);
    free(w->hist_movers);
    free(w->query_answers);
    free(w->query_hits);
    free(w->query_texts);
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = (*(sweep__entity *const *)a)->id, y = (*(sweep__entity *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* The frame of w's tick, made of these entities (with or without their
 * hit shapes), given in id order: the history keeps them so, and sorts
 * what it is given unless it comes in order. Ids are unique, so this
 * order is the one it would make. */
static sweep_status push(sweep__world *w, int shapes)
{
    uint32_t n = w->ent_count;
    if (w->hist_order_stale) {
        /* A world with no entity yet may have no arrays: memcpy and qsort
         * want real pointers even for nothing. */
        if (n) {
            memcpy(w->hist_order, w->ents, (size_t)n * sizeof *w->hist_order);
            qsort(w->hist_order, n, sizeof *w->hist_order, by_id);
        }
        w->hist_order_stale = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i + 8 < n)
            sweep__entity_prefetch(w->hist_order[i + 8]);
        const sweep__entity *e = w->hist_order[i];
        sweep_history_entity *h = &w->hist_entities[i];
        h->id = e->id;
        h->position = e->st.m.actor.position;
        h->radii = e->st.m.radii;
        h->shapes = shapes && e->shape_count ? e->shapes : NULL;
        h->shape_count = shapes ? e->shape_count : 0;
    }
    for (uint32_t m = 0; m < w->mover_count; m++)
        sweep_movers_get(w->movers, m, &w->hist_movers[m], NULL);
    return sweep_history_push(w->history, w->tick, w->hist_entities, n, w->mover_count ? w->hist_movers : NULL,
                              w->mover_count);
}

void sweep__world_history_push(sweep__world *w)
{
    if (!w->history)
        return;
    sweep_status st = push(w, 1);
    if (st == SWEEP_OK)
        return;
    /* A shape the entity's radii no longer reach (it shrank since its
     * shapes were set) is the only way here: the frame is kept with every
     * entity as its ellipsoid rather than lost, and the log says so. The
     * same requests lead here in a replay, so it answers the same. */
    sweep__log(SWEEP_LOG_WARN, "history_shapes_dropped", "world=%u tick=%llu error=\"%s\"", w->index,
               (unsigned long long)w->tick, sweep_status_message(st));
    st = push(w, 0);
    if (st != SWEEP_OK) {
        /* Cannot happen (Spawn keeps the count within the history's, and
         * every pose was checked on its way in); an empty history then
         * answers TooOld rather than something untrue. */
        sweep__log(SWEEP_LOG_ERROR, "history_push_failed", "world=%u tick=%llu error=\"%s\"", w->index,
                   (unsigned long long)w->tick, sweep_status_message(st));
        sweep_history_clear(w->history);
    }
}
