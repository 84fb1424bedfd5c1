/*
 * walker.c - the walker workload (see walker.h).
 */
#include "core/walker.h"

#include <math.h>
#include <stdlib.h>

#include "core/hash.h"

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Two unit vectors spanning the plane normal to up (any up, no handedness). */
static void plane_basis(sweep_vec3 up, sweep_vec3 *e1, sweep_vec3 *e2)
{
    sweep_vec3 ax = fabs(up.x) < 0.57 ? sweep_v3(1, 0, 0) : fabs(up.y) < 0.57 ? sweep_v3(0, 1, 0) : sweep_v3(0, 0, 1);
    *e1 = sweep_v3_normalize(sweep_v3_cross(up, ax));
    *e2 = sweep_v3_cross(up, *e1);
}

/* A random unit heading in the walking plane: rejection-sample the unit
 * disk, so no sin/cos is needed and the draw is exact everywhere. */
static sweep_vec3 heading(uint64_t seed, uint32_t id, uint32_t period, sweep_vec3 up)
{
    sweep_vec3 e1, e2;
    plane_basis(up, &e1, &e2);
    uint64_t h = mix(seed ^ mix(((uint64_t)id << 32) | period));
    for (;;) {
        h = mix(h);
        double u = (double)(h >> 40) / 8388608.0 - 1.0; /* 24 bits -> [-1, 1) */
        double v = (double)((h >> 16) & 0xffffff) / 8388608.0 - 1.0;
        double r2 = u * u + v * v;
        if (r2 > 1e-4 && r2 <= 1.0) {
            double r = sqrt(r2);
            return sweep_v3_add(sweep_v3_scale(e1, u / r), sweep_v3_scale(e2, v / r));
        }
    }
}

void sweep_walk_place(const sweep_walk_params *p, const sweep_vec3 *spawns, uint32_t spawn_count,
                      sweep_walker *walkers)
{
    for (uint32_t i = 0; i < p->walkers; i++) {
        walkers[i].position = spawn_count ? spawns[i % spawn_count] : sweep_v3(0, 0, 0);
        walkers[i].velocity = sweep_v3(0, 0, 0);
        walkers[i].heading = sweep_v3(0, 0, 0);
        walkers[i].grounded = 0;
        walkers[i].ground_mover = SWEEP_NO_MOVER;
        walkers[i].touch_mover = SWEEP_NO_MOVER;
    }
}

sweep_vec3 sweep_walk_up(const sweep_config *cfg)
{
    double g = sweep_v3_len(cfg->gravity);
    return g > 0.0 ? sweep_v3_scale(cfg->gravity, -1.0 / g) : sweep_v3(0, 0, 1);
}

sweep_status sweep_walk_step(const sweep_world *w, const sweep_config *cfg, const sweep_walk_params *p,
                             uint32_t id, uint32_t step, sweep_walker *wk, sweep_move_result *res)
{
    return sweep_walk_step_among(w, NULL, cfg, p, id, step, wk, res);
}

sweep_status sweep_walk_step_among(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                                   const sweep_walk_params *p, uint32_t id, uint32_t step, sweep_walker *wk,
                                   sweep_move_result *res)
{
    double g = sweep_v3_len(cfg->gravity);
    sweep_vec3 up = sweep_walk_up(cfg);
    uint32_t every = p->heading_every ? p->heading_every : 1;
    if (step % every == 0)
        wk->heading = heading(p->seed, id, step / every, up);

    sweep_vec3 vertical = g > 0.0 ? sweep_v3_scale(up, sweep_v3_dot(wk->velocity, up)) : sweep_v3(0, 0, 0);
    sweep_move_input in;
    in.position = wk->position;
    in.radii = p->radii;
    in.velocity = sweep_v3_madd(sweep_v3_madd(vertical, wk->heading, p->speed), cfg->gravity, p->dt);
    /* A long fall reaches the map's speed limit and goes no faster, as a
     * player under the movement rules does. */
    in.velocity = sweep_clamp_speed(in.velocity, cfg->max_speed);
    in.dt = p->dt;
    in.flags = wk->grounded ? SWEEP_INPUT_GROUNDED : 0;
    sweep_status st = sweep_move_among(w, mv, cfg, &in, res);
    if (st != SWEEP_OK)
        return st;
    wk->position = res->position;
    wk->velocity = res->velocity;
    wk->grounded = (res->flags & SWEEP_MOVED_GROUNDED) != 0;
    wk->ground_mover = res->ground_mover;
    wk->touch_mover = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < res->contact_count && wk->touch_mover == SWEEP_NO_MOVER; i++)
        wk->touch_mover = res->contacts[i].mover;
    return SWEEP_OK;
}

sweep_status sweep_walk_tick(sweep_movers *mv, const sweep_world *w, const sweep_config *cfg,
                             const sweep_walk_params *p, const sweep_vec3 *spawns, uint32_t spawn_count,
                             sweep_walker *walkers, uint64_t *crushed)
{
    sweep_body *bodies = malloc((p->walkers ? p->walkers : 1) * sizeof *bodies);
    if (!bodies)
        return SWEEP_E_NOMEM;
    for (uint32_t i = 0; i < p->walkers; i++) {
        sweep_body *b = &bodies[i];
        b->position = walkers[i].position;
        b->radii = p->radii;
        b->ground_mover = walkers[i].ground_mover;
        b->touch_mover = walkers[i].touch_mover;
        b->flags = 0;
        b->mover = SWEEP_NO_MOVER;
    }
    sweep_status st = sweep_movers_tick(mv, w, cfg, bodies, p->walkers, NULL);
    for (uint32_t i = 0; st == SWEEP_OK && i < p->walkers; i++) {
        walkers[i].position = bodies[i].position;
        if (bodies[i].flags & SWEEP_BODY_CRUSHED) {
            /* A game would kill and respawn the player: so does the walk. */
            walkers[i].position = spawn_count ? spawns[i % spawn_count] : sweep_v3(0, 0, 0);
            walkers[i].velocity = sweep_v3(0, 0, 0);
            walkers[i].grounded = 0;
            walkers[i].ground_mover = SWEEP_NO_MOVER;
            if (crushed)
                (*crushed)++;
        }
    }
    free(bodies);
    return st;
}

uint64_t sweep_walk_hash(const sweep_walker *walkers, uint32_t count)
{
    uint64_t h = SWEEP_HASH_INIT;
    for (uint32_t i = 0; i < count; i++)
        h = sweep_hash_body(h, walkers[i].position, walkers[i].velocity, walkers[i].grounded);
    return h;
}
