/*
 * world_table.c - the open worlds of a whole sweepd, every thread's, in
 * one table of the group: what a Hello, an OpenWorld, a CloseWorld or a
 * GetStats on any thread may know of a world another thread runs.
 *
 * Invariants (under the table's lock, g->worlds_lock):
 *   - An entry is a world open now: entered at start (--map) or by an
 *     OpenWorld, taken out by the CloseWorld that ends it (its thread ends
 *     it after; world_open.c). Ids grow from 1 and are never reused, so
 *     the table is in id order; names are unique among its entries.
 *   - table_triangles is the sum of the entries' triangles: what
 *     --max-world-triangles limits, with table_count for --max-worlds.
 *   - entry->served is dereferenced only on entry->thread, the one thread
 *     that may free it, and only after finding it here (a world taken out
 *     is ended by that thread alone).
 *   - The figures of an entry (sessions, entities, tick, moves, the
 *     histograms) are its thread's
 *     as of its last housekeeping, like every other figure of another
 *     thread (threads.c); a thread reads its own worlds' as of now.
 *
 * The lock is taken alone or before the group's lock (a world handed to
 * another thread is queued in its inbox), never the other way round.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "server/world/alloc.h"
#include "server/server_impl.h"

void sweep__world_table_init(sweep__group *g, uint32_t first_id)
{
    pthread_mutex_init(&g->worlds_lock, NULL);
    g->next_world_id = first_id;
}

void sweep__world_table_free(sweep__group *g)
{
    pthread_mutex_destroy(&g->worlds_lock);
    free(g->table);
    g->table = NULL;
    g->table_count = g->table_cap = 0;
    g->table_ever = 0;
}

/* Room for one more entry (under the lock): 0, or -1. */
static int grow(sweep__group *g)
{
    if (g->table_count < g->table_cap)
        return 0;
    uint32_t cap = g->table_cap ? g->table_cap * 2 : 16;
    sweep__world_entry *t = sweep__realloc(g->table, cap * sizeof *t);
    if (!t)
        return -1;
    g->table = t;
    g->table_cap = cap;
    return 0;
}

/* Fills e from w (its fixed facts). */
static void fill(sweep__world_entry *e, const sweep__served *w, unsigned thread, uint64_t dev, uint64_t ino)
{
    memset(e, 0, sizeof *e);
    e->id = w->id;
    e->thread = thread;
    e->served = (sweep__served *)w;
    snprintf(e->name, sizeof e->name, "%s", w->name);
    snprintf(e->map, sizeof e->map, "%s", w->world->level.name);
    memcpy(e->hash, w->world->hash.bytes, sizeof e->hash);
    e->dev = dev;
    e->ino = ino;
    e->triangles = w->world->level.triangle_count;
}

/* Inserts e in id order (under the lock; room was made). */
static void insert(sweep__group *g, const sweep__world_entry *e)
{
    uint32_t at = g->table_count;
    while (at > 0 && g->table[at - 1].id > e->id)
        at--;
    memmove(&g->table[at + 1], &g->table[at], (g->table_count - at) * sizeof *g->table);
    g->table[at] = *e;
    g->table_count++;
    g->table_ever++;
    g->table_triangles += e->triangles;
}

static sweep__world_entry *by_name(sweep__group *g, const char *name)
{
    for (uint32_t i = 0; i < g->table_count; i++)
        if (strcmp(g->table[i].name, name) == 0)
            return &g->table[i];
    return NULL;
}

int sweep__world_table_add_map(sweep__group *g, sweep__served *w, unsigned thread)
{
    uint64_t dev = 0, ino = 0;
    struct stat st;
    if (stat(w->path, &st) == 0) {
        dev = (uint64_t)st.st_dev;
        ino = (uint64_t)st.st_ino;
    }
    pthread_mutex_lock(&g->worlds_lock);
    int rc = grow(g);
    if (rc == 0) {
        sweep__world_entry e;
        fill(&e, w, thread, dev, ino);
        snprintf(e.stem, sizeof e.stem, "%s", w->stem);
        insert(g, &e);
    }
    pthread_mutex_unlock(&g->worlds_lock);
    return rc;
}

sweep__reserve sweep__world_table_reserve(sweep_server *s, sweep__served *w, const char *name, unsigned thread,
                                          uint64_t dev, uint64_t ino, sweep__world_entry *found, char *why,
                                          size_t whylen)
{
    sweep__group *g = s->group;
    sweep__reserve r = SWEEP__RESERVED;
    pthread_mutex_lock(&g->worlds_lock);
    sweep__world_entry *same = name[0] ? by_name(g, name) : NULL;
    if (same && same->dev == dev && same->ino == ino) {
        *found = *same;
        r = SWEEP__REOPENED;
    } else if (same) {
        snprintf(why, whylen, "a world named %s is open on map %s (world %u)", name, same->map, same->id);
        r = SWEEP__NAME_TAKEN;
    } else if (g->table_count >= s->opt.max_worlds) {
        snprintf(why, whylen, "the server holds its most worlds, %u (--max-worlds)", s->opt.max_worlds);
        r = SWEEP__LIMIT;
    } else if (w && s->opt.max_world_triangles &&
               g->table_triangles + w->world->level.triangle_count > s->opt.max_world_triangles) {
        snprintf(why, whylen,
                 "map %s has %u triangles; the open worlds have %llu of the %llu they may (--max-world-triangles)",
                 w->world->level.name, w->world->level.triangle_count, (unsigned long long)g->table_triangles,
                 (unsigned long long)s->opt.max_world_triangles);
        r = SWEEP__LIMIT;
    } else if (w && grow(g) != 0) {
        snprintf(why, whylen, "out of memory");
        r = SWEEP__NO_MEMORY;
    } else if (w) {
        w->id = g->next_world_id++;
        w->index = w->id - 1;
        const char *map = w->world->level.name;
        if (name[0])
            snprintf(w->name, sizeof w->name, "%s", name);
        else if (!by_name(g, map))
            snprintf(w->name, sizeof w->name, "%s", map);
        else
            snprintf(w->name, sizeof w->name, "%s#%u", map, w->id);
        /* A name given as map#id by a client may hold the one picked:
         * the id part grows until it is free (ids are never reused). */
        for (uint32_t k = 1; by_name(g, w->name); k++)
            snprintf(w->name, sizeof w->name, "%s#%u.%u", map, w->id, k);
        sweep__world_entry e;
        fill(&e, w, thread, dev, ino);
        insert(g, &e);
    }
    pthread_mutex_unlock(&g->worlds_lock);
    return r;
}

sweep__served *sweep__world_table_take(sweep_server *s, uint32_t id, unsigned *owner)
{
    sweep__group *g = s->group;
    sweep__served *w = NULL;
    pthread_mutex_lock(&g->worlds_lock);
    for (uint32_t i = 0; i < g->table_count; i++) {
        if (g->table[i].id != id)
            continue;
        w = g->table[i].served;
        *owner = g->table[i].thread;
        g->table_triangles -= g->table[i].triangles;
        memmove(&g->table[i], &g->table[i + 1], (g->table_count - i - 1) * sizeof *g->table);
        g->table_count--;
        break;
    }
    pthread_mutex_unlock(&g->worlds_lock);
    return w;
}

sweep__served *sweep__world_table_mine(sweep_server *s, uint32_t id)
{
    sweep__group *g = s->group;
    sweep__served *w = NULL;
    pthread_mutex_lock(&g->worlds_lock);
    for (uint32_t i = 0; i < g->table_count; i++)
        if (g->table[i].id == id && g->table[i].thread == s->thread)
            w = g->table[i].served;
    pthread_mutex_unlock(&g->worlds_lock);
    return w;
}

sweep__served *sweep__world_find(sweep_server *s, const char *name, unsigned *owner)
{
    sweep__group *g = s->group;
    const sweep__world_entry *e = NULL;
    pthread_mutex_lock(&g->worlds_lock);
    if (!name || !*name) {
        e = g->table_count ? &g->table[0] : NULL;
    } else {
        e = by_name(g, name);
        for (uint32_t i = 0; !e && i < g->table_count; i++)
            if (g->table[i].stem[0] && strcmp(g->table[i].stem, name) == 0)
                e = &g->table[i];
    }
    sweep__served *w = e ? e->served : NULL;
    if (e)
        *owner = e->thread;
    pthread_mutex_unlock(&g->worlds_lock);
    return w;
}

/* This thread's entities now (its worlds'). */
static uint32_t own_entities(const sweep_server *s)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < s->world_count; i++)
        n += s->worlds[i]->world->ent_count;
    return n;
}

unsigned sweep__world_table_least_loaded(sweep_server *s)
{
    sweep__group *g = s->group;
    if (g->count < 2)
        return 0;
    uint32_t *ents = sweep__calloc(2u * g->count, sizeof *ents);
    if (!ents)
        return s->thread;
    uint32_t *worlds = ents + g->count;
    pthread_mutex_lock(&g->stats_lock);
    for (unsigned t = 0; t < g->count; t++)
        ents[t] = g->published[t].entities;
    pthread_mutex_unlock(&g->stats_lock);
    ents[s->thread] = own_entities(s);
    pthread_mutex_lock(&g->worlds_lock);
    for (uint32_t i = 0; i < g->table_count; i++)
        worlds[g->table[i].thread]++;
    pthread_mutex_unlock(&g->worlds_lock);
    unsigned best = 0;
    for (unsigned t = 1; t < g->count; t++)
        if (ents[t] < ents[best] || (ents[t] == ents[best] && worlds[t] < worlds[best]))
            best = t;
    free(ents);
    return best;
}

/* An entry's figures from its served (on its thread). */
static void figures(sweep__world_entry *e)
{
    const sweep__served *w = e->served;
    e->sessions = w->session_count;
    e->entities = w->world->ent_count;
    e->tick = w->world->tick;
    e->moves = w->world->counts.moves_total;
    e->tick_time = w->tick_time;
    e->move_latency = w->move_latency;
}

sweep__world_entry *sweep__world_table_list(sweep_server *s, uint32_t *n)
{
    sweep__group *g = s->group;
    sweep__world_entry *out = NULL;
    *n = 0;
    pthread_mutex_lock(&g->worlds_lock);
    if (g->table_count && (out = sweep__malloc(g->table_count * sizeof *out))) {
        memcpy(out, g->table, g->table_count * sizeof *out);
        *n = g->table_count;
    }
    pthread_mutex_unlock(&g->worlds_lock);
    for (uint32_t i = 0; i < *n; i++)
        if (out[i].thread == s->thread)
            figures(&out[i]);
    return out;
}

uint32_t sweep__world_table_copy(sweep__group *g, sweep__world_entry *out, uint32_t cap)
{
    pthread_mutex_lock(&g->worlds_lock);
    uint32_t n = g->table_count;
    if (n <= cap && n)
        memcpy(out, g->table, n * sizeof *out);
    pthread_mutex_unlock(&g->worlds_lock);
    return n;
}

void sweep__world_table_publish(sweep_server *s)
{
    sweep__group *g = s->group;
    pthread_mutex_lock(&g->worlds_lock);
    for (uint32_t i = 0; i < g->table_count; i++)
        if (g->table[i].thread == s->thread)
            figures(&g->table[i]);
    pthread_mutex_unlock(&g->worlds_lock);
}

uint32_t sweep__world_table_open(sweep_server *s)
{
    uint64_t ever;
    return sweep__world_table_open_ever(s, &ever);
}

uint32_t sweep__world_table_open_ever(sweep_server *s, uint64_t *ever)
{
    pthread_mutex_lock(&s->group->worlds_lock);
    uint32_t n = s->group->table_count;
    *ever = s->group->table_ever;
    pthread_mutex_unlock(&s->group->worlds_lock);
    return n;
}
