/*
 * world_impl.h - internal: what the files of the world library share
 * (never included outside server/world/).
 */
#ifndef SWEEP_SERVER_WORLD_WORLD_IMPL_H
#define SWEEP_SERVER_WORLD_WORLD_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "server/world/log.h"
#include "server/world/world.h"

/* entity_table.c */
int sweep__entity_table_init(sweep__entity_table *t);
void sweep__entity_table_free(sweep__entity_table *t);
/* The slot where the probe for id starts: ids are sequential, a
 * multiplicative hash spreads them. */
static inline uint32_t sweep__entity_slot_of(uint32_t id, uint32_t cap)
{
    return (uint32_t)((id * 2654435761u) & (cap - 1));
}
/* The entity of that id, or NULL. Inline: every move looks its entity up,
 * and the call was a third of the lookup's cost. */
static inline sweep__entity *sweep__entity_table_find(const sweep__entity_table *t, uint32_t id)
{
    if (id == 0 || !t->slots)
        return NULL;
    for (uint32_t i = sweep__entity_slot_of(id, t->cap);; i = (i + 1) & (t->cap - 1)) {
        uint32_t at = t->slots[i].id;
        if (at == id)
            return t->slots[i].e;
        if (at == 0)
            return NULL;
    }
}
int sweep__entity_table_insert(sweep__entity_table *t, sweep__entity *e);
void sweep__entity_table_remove(sweep__entity_table *t, uint32_t id);

/* world.c */
int sweep__world_add_entity(sweep__world *w, sweep__entity *e);
/* An entity of w zeroed, with its ring of kept results; NULL without
 * memory. Given back by sweep__entity_release (entity_pool.c). */
sweep__entity *sweep__entity_alloc(sweep__world *w);
void sweep__entity_release(sweep__world *w, sweep__entity *e);
void sweep__entity_pool_free(sweep__entity_pool *p);
void sweep__world_remove_entity(sweep__world *w, sweep__entity *e);
/* For half a second from now, the entity's claimed positions are not
 * flagged: something its client could not foresee moved it (a lost move, a
 * mover), and the claims it sent before hearing are off by that. */
void sweep__entity_unflag(const sweep__world *w, sweep__entity *e);
/* moves.c: w->wish_up from the map's gravity, once the level is loaded. */
void sweep__world_wish_up(sweep__world *w);
/* Puts the entity's shell where the entity is now (players as obstacles). */
void sweep__world_place_entity(sweep__world *w, sweep__entity *e);
/* What a move of entity e (NULL: a stateless Collide) meets. */
static inline sweep_space sweep__world_space(const sweep__world *w, const sweep__entity *e)
{
    sweep_space sp = {w->world, w->movers, w->crowd, e ? e->crowd_slot : SWEEP_NO_BODY};
    return sp;
}

/* owner.c */
/* A new entity of the owner, or NULL with *why saying what failed. */
sweep__entity *sweep__owner_spawn(const sweep__request *rq, const char **why);
void sweep__owner_despawn(sweep__owner *o, sweep__entity *e, const sweep__world_sink *sink);

/* requests.c */
/* The Error UnknownEntity of sweep__own_entity; NULL. */
sweep__entity *sweep__own_entity_refused(const sweep__request *rq, uint32_t id, uint32_t sequence);
/* The owner's entity of that id, or NULL after an Error UnknownEntity
 * (the same for an id that exists elsewhere as for one that does not).
 * Inline, the refusal out of line: every move asks it. */
static inline sweep__entity *sweep__own_entity(const sweep__world *w, const sweep__request *rq, uint32_t id,
                                               uint32_t sequence)
{
    sweep__entity *e = sweep__entity_table_find(&w->entities, id);
    if (e && e->owner == rq->owner)
        return e;
    return sweep__own_entity_refused(rq, id, sequence);
}
/* Sends the answer m (its sequence and tick filled by the caller). */
void sweep__answer(const sweep__request *rq, const sweep_message *m);
/* Answers an Error: the code, the sequence refused, the entity, why. */
void sweep__refuse(const sweep__request *rq, sweep_wire_code code, uint32_t sequence, uint32_t entity,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* rules.c */
/* What each rule's amount is (NAN: none) for the log; indexed by bit. */
typedef struct sweep__rule_amounts {
    double v[SWEEP_WIRE_RULE_COUNT];
} sweep__rule_amounts;
void sweep__rule_amounts_init(sweep__rule_amounts *a);
/* Counts each rule of `bits` for the owner and the world and logs it
 * (event=rule, at most SWEEP__RULE_LOG_RATE lines a second per owner). */
void sweep__rules_report(const sweep__request *rq, uint32_t entity, uint32_t bits, const sweep__rule_amounts *amounts);

/* place.c */
/* 0 if an ellipsoid of radii r at q overlaps nothing of w but self (the
 * entity being placed, NULL for a new one), 1 if it does (what says
 * what, for the refusal), -1 with *st for a place the core refuses
 * outright. */
int sweep__world_overlaps(const sweep__world *w, const sweep__entity *self, sweep_vec3 q, sweep_vec3 r, char *what,
                          size_t whatlen, sweep_status *st);
/* What is in the way, for a refusal that names it in its own words. */
typedef enum { SWEEP__OBSTACLE_LEVEL = 1, SWEEP__OBSTACLE_MOVER, SWEEP__OBSTACLE_ENTITY } sweep__obstacle_kind;
typedef struct sweep__obstacle {
    sweep__obstacle_kind kind;
    uint64_t entity;   /* its id (ENTITY) */
    uint32_t mover;    /* its index in the level (MOVER) */
    uint32_t triangle; /* the level triangle met (LEVEL) */
    int inside;        /* 1: the centre is behind all the faces of a closed solid of it, touching none */
} sweep__obstacle;
/* sweep__world_overlaps with what is in the way as data. */
int sweep__world_obstacle(const sweep__world *w, const sweep__entity *self, sweep_vec3 q, sweep_vec3 r,
                          sweep__obstacle *ob, sweep_status *st);
/* "entity 7", "mover 2 \"door\"", "the level (triangle 12)"; inside a
 * solid, "the inside of mover 2 \"crate\" (behind all its faces)", "the
 * inside of a solid of the level (behind triangle 12)". */
void sweep__obstacle_name(const sweep__world *w, const sweep__obstacle *ob, char *what, size_t whatlen);

/* commands.c */
void sweep__entity_commands(sweep__world *w, const sweep__request *rq, const sweep_message *m);

/* spawn.c */
void sweep__spawn(sweep__world *w, const sweep__request *rq, const sweep_message *m);

/* history.c */
/* Sizes the world's history by its options and tick rate, checks it
 * against history_max_bytes, allocates it and the Query scratch, and
 * pushes frame 0: 0, or -1 with err. */
int sweep__world_history_open(sweep__world *w, char *err, size_t errlen);
void sweep__world_history_close(sweep__world *w);
/* Keeps the frame of w->tick (after the tick's movers). */
void sweep__world_history_push(sweep__world *w);

/* queries.c */
void sweep__query(sweep__world *w, const sweep__request *rq, const sweep_message *m);
/* A new owner's query bucket: full, credited from the world's tick. */
void sweep__owner_queries_init(sweep__owner *o, const sweep__world *w);

/* observe.c */
void sweep__get_entity(sweep__world *w, const sweep__request *rq, const sweep_message *m);

/* moves.c */
/* Applies one Move, or answers a resend: 0 with *out filled (its contacts
 * past contact_count are not: nothing reads them), 1 for an old move with
 * no kept result (ignored: nothing to send), -1 after an Error. */
int sweep__apply_move(sweep__world *w, const sweep__request *rq, const sweep_msg_move *mv, sweep_msg_move_result *out);

/* Asks for the head of an entity (all of it before its hit shapes: what
 * a move, a tick and a push read first) to be loaded ahead of its use.
 * Entities are allocated one by one, so a loop over a thousand of them
 * otherwise waits on memory at each; a hint, which changes no result. */
static inline void sweep__entity_prefetch(const sweep__entity *e)
{
    for (size_t off = 0; off < offsetof(sweep__entity, shapes); off += 64)
        SWEEP__PREFETCH((const char *)e + off);
}

/* The same for the entity a move of a batch names, and the kept result
 * that move will write (moves.c). */
void sweep__move_prefetch(const sweep__world *w, const sweep_msg_move *mv, int kept);

/* Tells the request's owner of each entity a kill volume took out while
 * the request was applied (an unasked Despawned with the volume and its
 * name), after the request's answer; then forgets them. */
void sweep__world_tell_killed(sweep__world *w, const sweep__request *rq);

#endif
