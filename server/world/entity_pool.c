/*
 * entity_pool.c - where a world's entities live: in chunks of
 * SWEEP__ENTITY_CHUNK, handed out and taken back by the world, the last
 * one taken back handed out first.
 *
 * Why not one allocation each: a tick passes over every entity of its
 * world three times (the movers' bodies, what the movers did, the pose
 * history's frame), and so do the watch pushes. Allocated one by one,
 * between the other allocations of a session's life (its ring of kept
 * results alone is 8 KB), entities lay a page or more apart, and on this
 * kind of machine a pass over 10,000 of them waited on a TLB miss for
 * each. Chunked, the heads of entities spawned together are neighbours.
 * An entity's address reaches no result (the world orders entities by
 * spawn and by id), so where it lives changes nothing a client sees.
 *
 * A slot taken back is not freed, so AddressSanitizer would not see a use
 * of a despawned entity's memory; in such a build (SANITIZER=address) a
 * free slot is poisoned until it is handed out again, and such a use is
 * reported as it would be for freed memory.
 */
#include <stdlib.h>
#include <string.h>

#include "core/compiler.h"

#ifdef SWEEP__ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "server/world/alloc.h"
#include "server/world/world_impl.h"

sweep__entity *sweep__entity_alloc(sweep__world *w)
{
    sweep__entity_pool *p = &w->pool;
    if (p->free_count == 0) {
        /* Room in the free stack for every slot first, so that taking an
         * entity back can never fail. */
        sweep__entity **chunks = sweep__realloc(p->chunks, (p->chunk_count + 1) * sizeof *chunks);
        if (!chunks)
            return NULL;
        p->chunks = chunks;
        sweep__entity **stack = sweep__realloc(p->free, (size_t)(p->chunk_count + 1) * SWEEP__ENTITY_CHUNK * sizeof *stack);
        if (!stack)
            return NULL;
        p->free = stack;
        sweep__entity *c = sweep__calloc(SWEEP__ENTITY_CHUNK, sizeof *c);
        if (!c)
            return NULL;
        p->chunks[p->chunk_count++] = c;
        /* Handed out in address order. */
        for (uint32_t i = SWEEP__ENTITY_CHUNK; i-- > 0;)
            p->free[p->free_count++] = &c[i];
        POISON(c, SWEEP__ENTITY_CHUNK * sizeof *c);
    }
    sweep__entity *e = p->free[p->free_count - 1];
    UNPOISON(e, sizeof *e);
    memset(e, 0, sizeof *e);
    e->kept = sweep__malloc(sizeof *e->kept);
    if (!e->kept) {
        POISON(e, sizeof *e);
        return NULL;
    }
    sweep__kept_init(e->kept);
    p->free_count--;
    return e;
}

void sweep__entity_release(sweep__world *w, sweep__entity *e)
{
    free(e->kept);
    e->kept = NULL;
    w->pool.free[w->pool.free_count++] = e;
    POISON(e, sizeof *e);
}

void sweep__entity_pool_free(sweep__entity_pool *p)
{
    for (uint32_t i = 0; i < p->chunk_count; i++) {
        UNPOISON(p->chunks[i], SWEEP__ENTITY_CHUNK * sizeof *p->chunks[i]);
        free(p->chunks[i]);
    }
    free(p->chunks);
    free(p->free);
    memset(p, 0, sizeof *p);
}
