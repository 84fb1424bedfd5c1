/*
 * entity_table.c - the server's entities by id: open addressing with linear
 * probing and backward-shift deletion (no tombstones, so lookups stay short
 * however many spawns and despawns a long-running server sees).
 *
 * Invariant: the table is at most half full; ids are never 0, so an id
 * of 0 marks an empty slot. Lookups are
 * what every Move does, so they must not depend on how many entities
 * another session owns: the id alone finds the entity, and ownership is
 * checked afterwards (that is how "not your entity" differs from
 * "unknown entity").
 */
#include <stdlib.h>

#include "server/world/alloc.h"
#include "server/world/world_impl.h"

int sweep__entity_table_init(sweep__entity_table *t)
{
    t->cap = 64;
    t->count = 0;
    t->slots = sweep__calloc(t->cap, sizeof *t->slots);
    return t->slots ? 0 : -1;
}

void sweep__entity_table_free(sweep__entity_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = 0;
}

/* Doubles the table and reinserts everything. */
static int grow(sweep__entity_table *t)
{
    uint32_t ncap = t->cap * 2;
    sweep__entity_slot *ns = sweep__calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (t->slots[i].id == 0)
            continue;
        uint32_t j = sweep__entity_slot_of(t->slots[i].id, ncap);
        while (ns[j].id)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

int sweep__entity_table_insert(sweep__entity_table *t, sweep__entity *e)
{
    if ((t->count + 1) * 2 > t->cap && grow(t) != 0)
        return -1;
    uint32_t i = sweep__entity_slot_of(e->id, t->cap);
    while (t->slots[i].id)
        i = (i + 1) & (t->cap - 1);
    t->slots[i] = (sweep__entity_slot){e->id, e};
    t->count++;
    return 0;
}

void sweep__entity_table_remove(sweep__entity_table *t, uint32_t id)
{
    uint32_t mask = t->cap - 1, i = sweep__entity_slot_of(id, t->cap);
    while (t->slots[i].id && t->slots[i].id != id)
        i = (i + 1) & mask;
    if (!t->slots[i].id)
        return;
    t->slots[i] = (sweep__entity_slot){0, NULL};
    t->count--;
    /* Backward shift: move later members of the probe run into the hole if
     * their home slot is not strictly between the hole and them. */
    for (uint32_t j = (i + 1) & mask; t->slots[j].id; j = (j + 1) & mask) {
        uint32_t home = sweep__entity_slot_of(t->slots[j].id, t->cap);
        int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            t->slots[i] = t->slots[j];
            t->slots[j] = (sweep__entity_slot){0, NULL};
            i = j;
        }
    }
}
