/*
 * place.c - whether an ellipsoid has room at a place of a world: what a
 * Spawn's place, a Teleport's target and a SetRadii's new shape are
 * checked with, so that every way an entity comes to be somewhere obeys
 * one rule.
 *
 * A place is free when the ellipsoid overlaps neither the level, nor a
 * mover at its current pose, nor (with --players-block) another entity.
 * The level and the movers are checked with the core's room test
 * (sweep_room_at, core/stance.h: its embedded-start test, which a player
 * standing up from a crouch is checked with too), and the contact it
 * started in names what is there. Other entities are checked by their
 * boxes (position +- radii), which contain their shells' sides: a
 * centre inside another's shell would meet only back faces too. The
 * entity being placed (an existing one, moved or reshaped) is no obstacle
 * to itself: neither its box nor its shell is counted.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/stance.h"
#include "server/world/world_impl.h"

int sweep__world_obstacle(const sweep__world *w, const sweep__entity *self, sweep_vec3 q, sweep_vec3 r,
                          sweep__obstacle *ob, sweep_status *st)
{
    const sweep_config *cfg = &w->level.config;
    memset(ob, 0, sizeof *ob);
    for (uint32_t i = 0; w->crowd && i < w->ent_count; i++) {
        const sweep__entity *o = w->ents[i];
        if (o == self)
            continue;
        sweep_vec3 d = sweep_v3_sub(q, o->st.m.actor.position);
        if (fabs(d.x) < r.x + o->st.m.radii.x && fabs(d.y) < r.y + o->st.m.radii.y && fabs(d.z) < r.z + o->st.m.radii.z) {
            ob->kind = SWEEP__OBSTACLE_ENTITY;
            ob->entity = o->id;
            return 1;
        }
    }
    sweep_space space = sweep__world_space(w, self);
    sweep_move_result res;
    int free = 0;
    *st = sweep_room_at(&space, cfg, q, r, sweep__config_up(cfg), &free, &res);
    if (*st != SWEEP_OK)
        return -1;
    if (free)
        return 0;
    const sweep_contact *c = res.contact_count ? &res.contacts[0] : NULL;
    if (c && c->mover != SWEEP_NO_MOVER) {
        ob->kind = SWEEP__OBSTACLE_MOVER;
        ob->mover = c->mover;
    } else if (c && c->body != SWEEP_NO_BODY) {
        ob->kind = SWEEP__OBSTACLE_ENTITY;
        for (uint32_t i = 0; i < w->ent_count; i++)
            if (w->ents[i]->crowd_slot == c->body)
                ob->entity = w->ents[i]->id;
    } else {
        ob->kind = SWEEP__OBSTACLE_LEVEL;
        ob->triangle = c ? c->triangle : 0u;
    }
    return 1;
}

void sweep__obstacle_name(const sweep__world *w, const sweep__obstacle *ob, char *what, size_t whatlen)
{
    switch (ob->kind) {
    case SWEEP__OBSTACLE_ENTITY:
        if (ob->entity)
            snprintf(what, whatlen, "entity %llu", (unsigned long long)ob->entity);
        else
            snprintf(what, whatlen, "another entity");
        break;
    case SWEEP__OBSTACLE_MOVER: {
        char qn[96];
        const char *n = w->level.movers[ob->mover].name;
        snprintf(what, whatlen, "mover %u %s", w->level.movers[ob->mover].id, sweep__log_quote(n, strlen(n), qn, sizeof qn));
        break;
    }
    default:
        snprintf(what, whatlen, "the level (triangle %u)", ob->triangle);
        break;
    }
}

int sweep__world_overlaps(const sweep__world *w, const sweep__entity *self, sweep_vec3 q, sweep_vec3 r, char *what,
                          size_t whatlen, sweep_status *st)
{
    sweep__obstacle ob;
    int o = sweep__world_obstacle(w, self, q, r, &ob, st);
    if (o == 1)
        sweep__obstacle_name(w, &ob, what, whatlen);
    return o;
}
