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
 * started in names what is there. That test collides with front faces
 * only, so a centre inside a closed solid (a pillar, a crate), behind all
 * its faces, overlaps none of them: such a place is found by the rays
 * out of it instead (behind_faces, below). Other entities are checked by
 * their boxes (position +- radii), which contain their shells' sides: a
 * centre inside another's shell would meet only back faces too. The
 * entity being placed (an existing one, moved or reshaped) is no obstacle
 * to itself: neither its box nor its shell is counted.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/query.h"
#include "core/stance.h"
#include "server/world/world_impl.h"

/* The ways out of a place: up first, so that a solid of the level is
 * named by the face above the place. */
static const sweep_vec3 WAYS_OUT[6] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};

/*
 * 1 if q lies behind the faces of a closed solid of the level or of a
 * mover where it is now: no way out of q along the six axes is open, and
 * five or six of them meet the back of a face before any front (five: a
 * solid standing on a floor, whose face up into it is the floor's). The
 * ways are cast twice, once meeting both sides of a face and once fronts
 * only, 4 times the world limit far: a mover's vertex and its position
 * each lie within the limit on every axis, so a rotated one reaches
 * 1 + sqrt(3) times it at most, and q lies within it too; a back and a front at the same distance
 * (a face and its twin) count as a front. A closed mover facing in (a
 * cabin) is a room around q: its faces are fronts. *ob names the solid: a
 * mover when five of the backs met are its own (another mover's face may
 * be met first on one way, as a lift's floor above a closed bin is), else
 * the level, by the first back face of it met (upwards when that one is),
 * else (backs of movers alone, none five of one) the mover met most,
 * first met on a tie. 0 if q is not inside, -1 with *st if the queries
 * refuse q.
 */
static int behind_faces(const sweep__world *w, sweep_vec3 q, sweep__obstacle *ob, sweep_status *st)
{
    sweep_query_space space = {w->world, w->movers, NULL, {0, 0.0}};
    sweep_query_filter both = {SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS | SWEEP_QUERY_BACK_FACES, NULL, 0};
    sweep_query_filter fronts = {SWEEP_QUERY_LEVEL | SWEEP_QUERY_MOVERS, NULL, 0};
    double reach = 4.0 * w->level.config.max_coordinate;
    int backs = 0, movers = 0, met[6] = {0};
    uint32_t mover[6], triangle = SWEEP_NO_TRIANGLE;
    for (int k = 0; k < 6; k++) {
        if (k - backs >= 2)
            return 0; /* two ways not behind a face: not inside */
        sweep_vec3 to = sweep_v3_madd(q, WAYS_OUT[k], reach);
        sweep_query_hit any, front;
        *st = sweep_query_ray(&space, q, to, &both, &any);
        if (*st == SWEEP_OK)
            *st = sweep_query_ray(&space, q, to, &fronts, &front);
        if (*st != SWEEP_OK)
            return -1;
        if (any.kind == SWEEP_HIT_NONE)
            return 0; /* open: a way out */
        if (front.kind != SWEEP_HIT_NONE && !(any.fraction < front.fraction))
            continue; /* a front first */
        backs++;
        if (any.kind == SWEEP_HIT_MOVER) {
            int m = 0;
            while (m < movers && mover[m] != any.mover)
                m++;
            if (m == movers)
                mover[movers++] = any.mover;
            met[m]++;
        }
        if (any.kind == SWEEP_HIT_LEVEL && triangle == SWEEP_NO_TRIANGLE)
            triangle = any.triangle;
    }
    if (backs < 5)
        return 0;
    int most = 0;
    for (int m = 1; m < movers; m++)
        if (met[m] > met[most])
            most = m;
    memset(ob, 0, sizeof *ob);
    ob->inside = 1;
    if (movers > 0 && (met[most] >= 5 || triangle == SWEEP_NO_TRIANGLE)) {
        ob->kind = SWEEP__OBSTACLE_MOVER;
        ob->mover = mover[most];
    } else {
        ob->kind = SWEEP__OBSTACLE_LEVEL;
        ob->triangle = triangle;
    }
    return 1;
}

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
        return behind_faces(w, q, ob, st);
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
        snprintf(what, whatlen, "%smover %u %s%s", ob->inside ? "the inside of " : "", w->level.movers[ob->mover].id,
                 sweep__log_quote(n, strlen(n), qn, sizeof qn), ob->inside ? " (behind all its faces)" : "");
        break;
    }
    default:
        if (ob->inside)
            snprintf(what, whatlen, "the inside of a solid of the level (behind triangle %u)", ob->triangle);
        else
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
