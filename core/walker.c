/*
 * walker.c - the walker workload (see walker.h).
 */
#include "core/walker.h"

#include <math.h>
#include <stdlib.h>

#include "core/hash.h"
#include "core/mover_impl.h"
#include "core/swept_sphere.h"
#include "core/world_impl.h"

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

/* One move of wk along its heading at `speed`, as a player falls (see
 * walker.h); updates wk from the result. */
static sweep_status walk_move(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                              const sweep_walk_params *p, double speed, sweep_walker *wk, sweep_move_result *res)
{
    double g = sweep_v3_len(cfg->gravity);
    sweep_vec3 up = sweep_walk_up(cfg);
    sweep_vec3 vertical = g > 0.0 ? sweep_v3_scale(up, sweep_v3_dot(wk->velocity, up)) : sweep_v3(0, 0, 0);
    sweep_move_input in;
    in.position = wk->position;
    in.radii = p->radii;
    in.velocity = sweep_v3_madd(sweep_v3_madd(vertical, wk->heading, speed), cfg->gravity, p->dt);
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

sweep_status sweep_walk_step_among(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                                   const sweep_walk_params *p, uint32_t id, uint32_t step, sweep_walker *wk,
                                   sweep_move_result *res)
{
    uint32_t every = p->heading_every ? p->heading_every : 1;
    if (step % every == 0)
        wk->heading = heading(p->seed, id, step / every, sweep_walk_up(cfg));
    return walk_move(w, mv, cfg, p, p->speed, wk, res);
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
            sweep_walk_respawn(spawns, spawn_count, i, &walkers[i]);
            if (crushed)
                (*crushed)++;
        }
    }
    free(bodies);
    return st;
}

void sweep_walk_respawn(const sweep_vec3 *spawns, uint32_t spawn_count, uint32_t id, sweep_walker *walker)
{
    walker->position = spawn_count ? spawns[id % spawn_count] : sweep_v3(0, 0, 0);
    walker->velocity = sweep_v3(0, 0, 0);
    walker->grounded = 0;
    walker->ground_mover = SWEEP_NO_MOVER;
}

uint32_t sweep_walk_kill_volume(const sweep_volume *v, uint32_t n, sweep_vec3 position)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i].kind == SWEEP_VOLUME_KILL && sweep_volume_contains(&v[i], position))
            return i;
    return SWEEP_WALK_NOT_KILLED;
}

uint64_t sweep_walk_hash(const sweep_walker *walkers, uint32_t count)
{
    uint64_t h = SWEEP_HASH_INIT;
    for (uint32_t i = 0; i < count; i++)
        h = sweep_hash_body(h, walkers[i].position, walkers[i].velocity, walkers[i].grounded);
    return h;
}

/* --- the judge -------------------------------------------------------- */

static double smallest(sweep_vec3 r)
{
    return r.x < r.y ? (r.x < r.z ? r.x : r.z) : (r.y < r.z ? r.y : r.z);
}

/* Does the unit sphere at eSpace e overlap triangle t (world space), seen
 * from its front? `lo`, `hi` bound the body in world space. */
static int tri_overlaps(const sweep__tri *t, sweep_vec3 e, sweep_vec3 inv, sweep_vec3 lo, sweep_vec3 hi)
{
    double tlx = fmin(t->a.x, fmin(t->b.x, t->c.x)), thx = fmax(t->a.x, fmax(t->b.x, t->c.x));
    double tly = fmin(t->a.y, fmin(t->b.y, t->c.y)), thy = fmax(t->a.y, fmax(t->b.y, t->c.y));
    double tlz = fmin(t->a.z, fmin(t->b.z, t->c.z)), thz = fmax(t->a.z, fmax(t->b.z, t->c.z));
    if (thx < lo.x || tlx > hi.x || thy < lo.y || tly > hi.y || thz < lo.z || tlz > hi.z)
        return 0;
    sweep_vec3 a = sweep_v3_mul(t->a, inv), b = sweep_v3_mul(t->b, inv), c = sweep_v3_mul(t->c, inv);
    sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(b, a), sweep_v3_sub(c, a));
    if (sweep_v3_dot(n, sweep_v3_sub(e, a)) < 0.0)
        return 0; /* behind it: one-sided, as the core collides */
    sweep_vec3 q = sweep_closest_point_on_triangle(e, a, b, c);
    return sweep_v3_len2(sweep_v3_sub(e, q)) < (1.0 - 1e-6) * (1.0 - 1e-6);
}

int sweep_walk_overlaps(const sweep_world *w, const sweep_movers *mv, const sweep_walk_params *p,
                        sweep_vec3 position)
{
    sweep_vec3 r = p->radii, inv = sweep_v3(1.0 / r.x, 1.0 / r.y, 1.0 / r.z);
    sweep_vec3 e = sweep_v3_mul(position, inv);
    sweep_vec3 lo = sweep_v3_sub(position, r), hi = sweep_v3_add(position, r);
    for (uint32_t i = 0; w && i < w->tri_count; i++)
        if (tri_overlaps(&w->tris[i], e, inv, lo, hi))
            return 1;
    for (uint32_t m = 0; mv && m < mv->count; m++) {
        const sweep__mover *mo = &mv->m[m];
        if (mo->cur_hi.x < lo.x || mo->cur_lo.x > hi.x || mo->cur_hi.y < lo.y || mo->cur_lo.y > hi.y ||
            mo->cur_hi.z < lo.z || mo->cur_lo.z > hi.z)
            continue;
        for (uint32_t i = 0; i < mo->tri_count; i++)
            if (tri_overlaps(&mo->cur[i], e, inv, lo, hi))
                return 1;
    }
    return 0;
}

/* cos and sin of k * 22.5 degrees, k = 0..3 (the rest by symmetry):
 * constants, so the directions are the same bits everywhere. */
static const double DIR_COS[4] = {1.0, 0.92387953251128674, 0.70710678118654757, 0.38268343236508978};

static sweep_vec3 direction(const sweep_config *cfg, uint32_t k)
{
    sweep_vec3 e1, e2;
    plane_basis(sweep_walk_up(cfg), &e1, &e2);
    uint32_t q = k / 4, j = k % 4;
    double c = DIR_COS[j], s = j ? DIR_COS[4 - j] : 0.0;
    double x = q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
    double y = q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
    return sweep_v3_add(sweep_v3_scale(e1, x), sweep_v3_scale(e2, y));
}

/* Points along the line sweep_walk_room tries, and heights at each. */
#define ROOM_SAMPLES 8
#define ROOM_HEIGHTS 5

uint32_t sweep_walk_room(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                         const sweep_walk_params *p, sweep_vec3 position)
{
    sweep_vec3 up = sweep_walk_up(cfg);
    double reach = 2.0 * smallest(p->radii);
    double step = sweep_v3_len(cfg->gravity) > 0.0 ? cfg->step_height : 0.0;
    uint32_t mask = 0;
    for (uint32_t k = 0; k < SWEEP_WALK_DIRECTIONS; k++) {
        sweep_vec3 d = direction(cfg, k);
        int room = 1;
        for (uint32_t j = 1; j <= ROOM_SAMPLES && room; j++) {
            sweep_vec3 at = sweep_v3_madd(position, d, reach * (double)j / ROOM_SAMPLES);
            int fits = 0;
            for (uint32_t h = 0; h < ROOM_HEIGHTS && !fits; h++) {
                if (h > 0 && !(step > 0.0))
                    break;
                fits = !sweep_walk_overlaps(w, mv, p, sweep_v3_madd(at, up, step * (double)h / (ROOM_HEIGHTS - 1)));
            }
            room = fits;
        }
        if (room)
            mask |= 1u << k;
    }
    return mask;
}

/* Steps a probe walks at most, and the steps in which it should cover two
 * radii when the walk's own speed is too slow to within PROBE_STEPS. */
#define PROBE_STEPS 120
#define PROBE_QUICK 60

sweep_walk_verdict sweep_walk_judge(const sweep_world *w, const sweep_movers *mv, const sweep_config *cfg,
                                    const sweep_walk_params *p, const sweep_walker *walker)
{
    if (sweep_walk_overlaps(w, mv, p, walker->position))
        return SWEEP_WALK_INSIDE;
    uint32_t room = sweep_walk_room(w, mv, cfg, p, walker->position);
    if (!room)
        return SWEEP_WALK_TRAPPED;
    sweep_vec3 up = sweep_walk_up(cfg);
    double rmin = smallest(p->radii);
    double speed = p->speed;
    if (!(speed * p->dt * PROBE_STEPS >= 2.0 * rmin))
        speed = 2.0 * rmin / (p->dt * PROBE_QUICK);
    for (uint32_t k = 0; k < SWEEP_WALK_DIRECTIONS; k++) {
        if (!(room & (1u << k)))
            continue;
        sweep_walker probe = *walker;
        probe.heading = direction(cfg, k);
        sweep_move_result res;
        for (uint32_t s = 0; s < PROBE_STEPS; s++) {
            if (walk_move(w, mv, cfg, p, speed, &probe, &res) != SWEEP_OK)
                break;
            sweep_vec3 d = sweep_v3_sub(probe.position, walker->position);
            if (sweep_v3_len(sweep_v3_madd(d, up, -sweep_v3_dot(d, up))) >= rmin)
                return SWEEP_WALK_FREE;
        }
    }
    return SWEEP_WALK_STUCK;
}
