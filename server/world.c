/*
 * world.c - worlds: one per --map, each a loaded level, its core world and
 * content hash, and its fixed-rate tick.
 *
 * Tick numbers are integers and are scheduled from the start time, never
 * by adding periods to "now": tick n is due at start + n * period on the
 * monotonic clock (uv_hrtime), so timer lateness never accumulates into
 * drift. A late callback runs every tick that came due (movers, when they
 * arrive, advance one tick at a time); if the loop stalled for more than
 * SWEEP__TICK_CATCHUP ticks the excess is skipped and logged, so a stall
 * does not become a burst of thousands of ticks.
 */
#include <stdlib.h>
#include <string.h>

#include "maps/loader.h"
#include "server/server_impl.h"

#define SWEEP__TICK_CATCHUP 1000u

/* The file name of path without directory and last extension. */
static void file_stem(const char *path, char *out, size_t outlen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, base, n);
    out[n] = 0;
}

int sweep__worlds_load(sweep_server *s, char *err, size_t errlen)
{
    s->worlds = calloc(s->opt.map_count, sizeof *s->worlds);
    if (!s->worlds) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned i = 0; i < s->opt.map_count; i++) {
        const char *path = s->opt.maps[i];
        sweep__world *w = &s->worlds[i];
        char msg[512];
        sweep_map_load_info info;
        w->server = s;
        w->index = i;
        if (sweep_map_load(path, &w->level, &info, msg, sizeof msg) != SWEEP_OK) {
            snprintf(err, errlen, "%s: %s", path, msg);
            sweep_level_free(&w->level);
            return -1;
        }
        s->world_count = i + 1; /* from here on the level is freed by worlds_free */
        if (sweep_map_build_world(&w->level, &w->world, NULL, msg, sizeof msg) != SWEEP_OK) {
            snprintf(err, errlen, "%s: %s", path, msg);
            return -1;
        }
        if (sweep_level_content_hash(&w->level, &w->hash) != SWEEP_OK) {
            snprintf(err, errlen, "%s: cannot hash the map", path);
            return -1;
        }
        file_stem(path, w->stem, sizeof w->stem);
        w->tick_rate = s->opt.tick_rate > 0.0 ? s->opt.tick_rate : w->level.tick_rate;
        if (!(w->tick_rate > 0.0) || w->tick_rate > 10000.0)
            w->tick_rate = 60.0;
        w->period_ns = (uint64_t)(1e9 / w->tick_rate + 0.5);
        if (w->period_ns == 0)
            w->period_ns = 1;
        char hex[2 * SWEEP_SHA256_SIZE + 1];
        sweep_content_hash_hex(&w->hash, hex);
        sweep__log(SWEEP_LOG_INFO, "world_loaded", "world=%u name=%s stem=%s path=%s triangles=%u spawns=%u tick_rate=%g hash=%s",
                   i, w->level.name, w->stem, path, w->level.triangle_count, w->level.spawn_count, w->tick_rate,
                   hex);
    }
    return 0;
}

static void on_tick(uv_timer_t *t);

/* Arms the timer for the next due tick. */
static void schedule_next(sweep__world *w)
{
    uint64_t due = w->start_ns + (w->tick + 1) * w->period_ns;
    uint64_t now = uv_hrtime();
    uint64_t ms = due > now ? (due - now + 999999u) / 1000000u : 0;
    uv_update_time(w->timer.loop);
    uv_timer_start(&w->timer, on_tick, ms, 0);
}

/* Runs every tick that is due, then re-arms. */
static void on_tick(uv_timer_t *t)
{
    sweep__world *w = t->data;
    sweep_server *s = w->server;
    uint64_t t0 = uv_hrtime();
    unsigned steps = 0;
    while (w->start_ns + (w->tick + 1) * w->period_ns <= t0 && steps < SWEEP__TICK_CATCHUP) {
        /* Per-tick world work (movers, riders) goes here; it must depend on
         * w->tick only, never on the clock. */
        w->tick++;
        steps++;
    }
    if (steps == SWEEP__TICK_CATCHUP && w->start_ns + (w->tick + 1) * w->period_ns <= t0) {
        uint64_t behind = (t0 - w->start_ns) / w->period_ns - w->tick;
        sweep__log(SWEEP_LOG_WARN, "tick_overrun", "world=%u skipped=%llu", w->index, (unsigned long long)behind);
        w->start_ns = t0 - w->tick * w->period_ns; /* re-anchor: tick numbers stay contiguous */
    }
    if (steps)
        sweep__stats_record_tick(&s->stats, (uv_hrtime() - t0) / steps);
    schedule_next(w);
}

void sweep__worlds_start(sweep_server *s)
{
    uint64_t now = uv_hrtime();
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__world *w = &s->worlds[i];
        uv_timer_init(&s->loop, &w->timer);
        w->timer.data = w;
        w->timer_open = 1;
        w->start_ns = now;
        w->tick = 0;
        uv_update_time(&s->loop);
        uv_timer_start(&w->timer, on_tick, (w->period_ns + 999999u) / 1000000u, 0);
    }
}

void sweep__worlds_stop(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++) {
        sweep__world *w = &s->worlds[i];
        if (w->timer_open) {
            uv_timer_stop(&w->timer);
            uv_close((uv_handle_t *)&w->timer, NULL);
            w->timer_open = 0;
        }
    }
}

void sweep__worlds_free(sweep_server *s)
{
    for (unsigned i = 0; i < s->world_count; i++) {
        if (s->worlds[i].world)
            sweep_world_destroy(s->worlds[i].world);
        sweep_level_free(&s->worlds[i].level);
    }
    free(s->worlds);
    s->worlds = NULL;
    s->world_count = 0;
}

sweep__world *sweep__world_find(sweep_server *s, const char *name)
{
    if (!name || !*name)
        return s->world_count ? &s->worlds[0] : NULL;
    for (unsigned i = 0; i < s->world_count; i++)
        if (strcmp(s->worlds[i].level.name, name) == 0)
            return &s->worlds[i];
    for (unsigned i = 0; i < s->world_count; i++)
        if (strcmp(s->worlds[i].stem, name) == 0)
            return &s->worlds[i];
    return NULL;
}
