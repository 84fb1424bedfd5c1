/*
 * invariants.c - the ownership rules of world.h, checked with assert after
 * every request and every tick in builds that ask for it (SWEEP_CHECKS:
 * make DEBUG=1 and the sanitizer builds). A release build compiles this to
 * nothing: the walk is linear in entities.
 *
 * Only internal state is asserted here, never anything a client sent.
 */
#include "server/world/world_impl.h"

#if SWEEP_CHECKS
#include <assert.h>

/* How many times e appears in w's spawn-order array. */
static uint32_t times_in_world(const sweep__world *w, const sweep__entity *e)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->ent_count; i++)
        n += w->ents[i] == e;
    return n;
}

void sweep__world_check(const sweep__world *w)
{
    /* Every entity listed is alive, in the table once, its owner's and in
     * its owner's array: with the counts equal, no entity is in the world
     * without an owner and none is owned outside it. */
    assert(w->ent_count <= w->ent_cap);
    assert(w->ent_count == w->entities.count);
    for (uint32_t k = 0; k < w->ent_count; k++) {
        const sweep__entity *e = w->ents[k];
        const sweep__owner *o = e->owner;
        assert(e->id != 0);
        assert(e->world == w && o->world == w);
        assert(sweep__entity_table_find(&w->entities, e->id) == e);
        assert(times_in_world(w, e) == 1);
        assert(o->entity_count <= o->entity_cap);
        uint32_t held = 0;
        for (uint32_t i = 0; i < o->entity_count; i++)
            held += o->entities[i] == e;
        assert(held == 1);
    }
}
#endif
