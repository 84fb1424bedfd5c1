/*
 * move.c - collide-and-slide for one ellipsoid (see move.h for the passes).
 *
 * All sliding happens in eSpace, where the ellipsoid is a unit sphere and a
 * sweep is one call to the scene. A pass is the CollideEllipsoid loop of
 * "Collision Detection and Response" (chapter 12 of a game programming
 * course): sweep, stop `skin` short of the contact along the
 * path (Fauerby's veryCloseDistance, which never drifts sideways on a
 * slope), project the rest of the displacement onto the sliding plane, and
 * repeat, at most max_iterations times. The jitter filter ends a pass when
 * the slide would turn against the pass's input displacement; when the
 * iterations run out the pass falls back to the first contact along the
 * original displacement, where its first sweep stopped: a straight sweep
 * crosses nothing (a start inside the level or a mover is pushed out
 * along its deepest contact, as that first sweep did; another body's
 * shell never pushes, scene.h).
 *
 * Positions are carried in eSpace and turned back into world space once, as
 * start + (eSpace displacement) * radii, so a body that does not move keeps
 * its position bit for bit.
 *
 * Invariants (asserted in checked builds: core/check.h):
 *   - The shape a ctx takes from the thread's cache is what a remake
 *     would give: the inverse radii the same bits, and the up axis unit
 *     length when there is one (a gravity whose length squares to a
 *     normal double).
 *   - The slide along a contact plane, the rest of the displacement less
 *     its part along the plane's unit normal (Fauerby's projection onto
 *     the sliding plane), does not run into it: |slid . n| is at most
 *     SLIDE_TOL |rest|. A velocity projected onto a sliding plane no
 *     longer points into it: v . n >= -SLIDE_TOL (|v| + |into|), where
 *     |v| + |into| bounds the velocity before, whose size sets the
 *     rounding. Both are checked before the crease rule, whose direction
 *     between two nearly opposite planes is only as good as their cross
 *     product.
 *   - A pass sweeps at most max_iterations times plus the fallback's one;
 *     a move runs at most MAX_PASSES passes (lateral slide, the step-up's
 *     rise, slide and fall, vertical pass, snap), so it sweeps at most
 *     MAX_PASSES (max_iterations + 1) times.
 *   - A move's contacts are at most SWEEP_MAX_CONTACTS, each triangle
 *     once; a grounded move stands on walkable ground (its normal passed
 *     the very test that made it ground).
 *   - A move ends at a finite position with a finite velocity, provided
 *     its eSpace numbers (start, displacement, inverse radii) are below
 *     1e150: the config admits any positive radius, and radii near 1e-300
 *     overflow eSpace, which no map's do.
 */
#include "core/move.h"
#include "core/mover.h"

#include <string.h>

#include "core/check.h"
#include "core/compiler.h"
#include "core/crowd.h"
#include "core/move_impl.h"
#include "core/mover_impl.h"
#include "core/scene.h"
#include "core/world_impl.h"

/* A remaining eSpace displacement shorter than this is not worth a sweep. */
#define MIN_DISP 1e-9

/* Checked builds: how far a projection onto a plane may still run into
 * it, relative to the size of what was projected. A projection onto a
 * unit normal leaves a few units in the last place (1e-15); a normal is
 * unit within 1e-9 (check.h), which this allows with room to spare. */
#define SLIDE_TOL 1e-8

/* The passes one move may run (see the invariants above). */
#define MAX_PASSES 6

/* Checked builds: is every component of v below 1e150, where eSpace
 * arithmetic stays far from overflow? */
static inline int espace_tame(sweep_vec3 v)
{
    return fabs(v.x) < 1e150 && fabs(v.y) < 1e150 && fabs(v.z) < 1e150;
}

typedef struct ctx {
    const sweep_config *cfg;
    sweep_vec3 radii, inv_radii;
    sweep_vec3 up; /* world, unit; zero when there is no gravity */
    int has_up;
    double foot;   /* centre to lowest point of the ellipsoid, along up */
    sweep_move_result *res;
    sweep__scene scene; /* the triangles this move is near */
} ctx;

enum mode {
    MODE_SLIDE, /* lateral: steep surfaces act as vertical walls */
    MODE_FALL,  /* along up: moving down stops on walkable ground */
    MODE_PROBE  /* one sweep, stop at the first contact, no slide */
};

typedef struct pass_out {
    int hit_low;      /* (SLIDE) touched something that cannot support the body, no
                       * higher than step_height above the feet (a riser) */
    int hit_edge;     /* stood on the edge of a walkable face (a step's nose) */
    int ground;       /* ended on walkable ground (FALL, PROBE) */
    sweep_vec3 ground_normal;
    double ground_height; /* world height along up of the supporting point */
    uint32_t ground_index, ground_material, ground_mover, ground_body;
} pass_out;

static sweep_vec3 to_world_normal(const ctx *c, sweep_vec3 ne)
{
    return sweep_v3_normalize(sweep_v3_mul(ne, c->inv_radii));
}

static sweep_vec3 to_espace_normal(const ctx *c, sweep_vec3 nw)
{
    return sweep_v3_normalize(sweep_v3_mul(nw, c->radii));
}

static int is_walkable(const ctx *c, sweep_vec3 nw)
{
    return c->has_up && sweep_v3_dot(nw, c->up) >= c->cfg->walkable_normal_up;
}

/* How far above the body's lowest point (along up) contact h touches it. */
static double contact_height(const ctx *c, const sweep__scene_hit *h)
{
    sweep_vec3 rel = sweep_v3_mul(h->normal, c->radii); /* centre minus contact point */
    return c->foot - sweep_v3_dot(rel, c->up);
}

/*
 * Does this contact hold the body up? Either its own normal is walkable, or
 * it is the edge or corner of a walkable face that touches the body no
 * higher than step_height above its lowest point. The second rule is what a
 * round body needs: it meets a step, a kerb or a ledge at the step's top
 * edge, where the contact normal is steep although the surface is a floor.
 * nw is the contact's world normal. Fills *ground_n with the normal of the
 * surface stood on.
 */
static int supports(const ctx *c, const sweep__scene_hit *h, sweep_vec3 nw, sweep_vec3 *ground_n)
{
    if (is_walkable(c, nw)) {
        *ground_n = nw;
        return 1;
    }
    if (!c->has_up || !(c->cfg->step_height > 0.0) || sweep_v3_dot(nw, c->up) <= 0.0)
        return 0;
    const sweep__tri *t = &h->tri;
    sweep_vec3 face = sweep_v3_normalize(sweep_v3_cross(sweep_v3_sub(t->b, t->a), sweep_v3_sub(t->c, t->a)));
    if (!is_walkable(c, face))
        return 0;
    if (contact_height(c, h) > c->cfg->step_height)
        return 0;
    *ground_n = face;
    return 1;
}

/* Does one of a sweep's contacts touch the body no higher than step_height
 * above its lowest point? Only such a contact can be stepped over: a body
 * that rises by step_height still meets a surface it touched higher up. */
static int touches_low(const ctx *c, const sweep__scene_result *sr)
{
    for (uint32_t i = 0; i < sr->count; i++)
        if (contact_height(c, &sr->hits[i]) <= c->cfg->step_height)
            return 1;
    return 0;
}

/* The first of a sweep's simultaneous contacts that supports the body; nw
 * holds their world normals. */
static const sweep__scene_hit *support_of(const ctx *c, const sweep__scene_result *sr, const sweep_vec3 *nw,
                                          sweep_vec3 *ground_n)
{
    for (uint32_t i = 0; i < sr->count; i++)
        if (supports(c, &sr->hits[i], nw[i], ground_n))
            return &sr->hits[i];
    return NULL;
}

/* Appends one contact (a new triangle only) and grows the extents box;
 * e_at is the eSpace centre at the contact, nw its world normal. */
static inline void record_hit(ctx *c, const sweep__scene_hit *h, sweep_vec3 nw, sweep_vec3 e_at)
{
    sweep_move_result *res = c->res;
    sweep_vec3 rel = sweep_v3_mul(sweep_v3_scale(h->normal, -1.0), c->radii);
    res->extents_min = sweep_v3_min(res->extents_min, rel);
    res->extents_max = sweep_v3_max(res->extents_max, rel);
    uint32_t k = 0;
    while (k < res->contact_count && res->contacts[k].triangle != h->index)
        k++;
    if (k < res->contact_count || k == SWEEP_MAX_CONTACTS)
        return;
    sweep_contact *ct = &res->contacts[res->contact_count++];
    ct->point = sweep_v3_mul(sweep_v3_sub(e_at, h->normal), c->radii);
    ct->normal = nw;
    ct->triangle = h->index;
    ct->material = h->tri.material;
    ct->mover = h->mover;
    ct->body = h->body;
}

/* Appends the contacts of one sweep; nw holds their world normals. */
static void record(ctx *c, const sweep__scene_result *sr, const sweep_vec3 *nw, sweep_vec3 e_at)
{
    c->res->flags |= SWEEP_MOVED_HIT;
    for (uint32_t i = 0; i < sr->count; i++)
        record_hit(c, &sr->hits[i], nw[i], e_at);
}

/*
 * The shells a sweep from e_from started inside of are touched, whether
 * or not they stopped it (scene.h: a shell is soft); the move's first
 * sweep starting inside one started embedded, as it would have in the
 * level, which is what a room test (stance.h) asks.
 */
static SWEEP__NOINLINE void record_soft(ctx *c, const sweep__scene_result *sr, sweep_vec3 e_from, int first)
{
    c->res->flags |= SWEEP_MOVED_HIT | (first ? SWEEP_MOVED_STARTED_EMBEDDED : 0u);
    for (uint32_t i = 0; i < sr->soft_count; i++)
        record_hit(c, &sr->soft[i], to_world_normal(c, sr->soft[i].normal), e_from);
}

/* Where the sphere may stop for a sweep result: `skin` short of the contact
 * along the path, or pushed out along the normal when it started embedded
 * (in the level or a mover: another body's shell never gives a contact
 * before t = 0, scene.h, so it never pushes). */
static sweep_vec3 stop_point(const ctx *c, sweep_vec3 from, sweep_vec3 disp, const sweep__scene_result *sr)
{
    double skin = c->cfg->skin;
    if (sr->t_min < 0.0)
        return sweep_v3_madd(from, sr->hits[0].normal, -sr->t_min + skin);
    double len = sr->disp_len; /* sweep_v3_len(disp) */
    double t = len > 0.0 ? sr->t_min - skin / len : 0.0;
    return t > 0.0 ? sweep_v3_madd(from, disp, t) : from;
}

/* The sliding planes met so far in one pass (eSpace and world normals). */
#define MAX_PLANES 4
typedef struct plane_set {
    sweep_vec3 e[MAX_PLANES], w[MAX_PLANES];
    uint32_t count;
} plane_set;

/* Planes closer than this (cosine) are one plane: unwelded coplanar
 * triangles must not make a crease. */
#define SAME_PLANE 0.999999

/*
 * Creases (Quake's PM_SlideMove does the same): when the slide along the
 * new plane n runs into a plane met earlier in the pass, moving along
 * either one alone would ping-pong between them until the iterations run
 * out, so the slide follows the line where the two meet instead, and stops
 * when a third plane closes that line too (a corner). `slid` is rest slid
 * along n; returns the displacement to try next and adds n to the set.
 * *vel (may be NULL) follows the crease the same way.
 */
static sweep_vec3 follow_creases(plane_set *ps, sweep_vec3 ne, sweep_vec3 nw, sweep_vec3 rest, sweep_vec3 slid,
                                 sweep_vec3 *vel)
{
    double tiny = 1e-12 * sweep_v3_len(rest);
    for (uint32_t k = 0; k < ps->count; k++) {
        if (sweep_v3_dot(ne, ps->e[k]) > SAME_PLANE || !(sweep_v3_dot(slid, ps->e[k]) < -tiny))
            continue;
        sweep_vec3 crease = sweep_v3_normalize(sweep_v3_cross(ne, ps->e[k]));
        slid = sweep_v3_scale(crease, sweep_v3_dot(rest, crease));
        if (vel) {
            sweep_vec3 cw = sweep_v3_normalize(sweep_v3_cross(nw, ps->w[k]));
            *vel = sweep_v3_scale(cw, sweep_v3_dot(*vel, cw));
        }
        for (uint32_t j = 0; j < ps->count; j++)
            if (j != k && sweep_v3_dot(ne, ps->e[j]) <= SAME_PLANE && sweep_v3_dot(slid, ps->e[j]) < -tiny) {
                slid = sweep_v3(0, 0, 0);
                if (vel)
                    *vel = sweep_v3(0, 0, 0);
                break;
            }
        break;
    }
    if (ps->count < MAX_PLANES) {
        ps->e[ps->count] = ne;
        ps->w[ps->count] = nw;
        ps->count++;
    }
    return slid;
}

/*
 * One pass from *e_pos by e_disp (eSpace). *vel (world, may be NULL) loses
 * the part that runs into each sliding plane. Updates *e_pos; fills *po.
 */
static void run_pass(ctx *c, enum mode mode, sweep_vec3 *e_pos, sweep_vec3 e_disp, sweep_vec3 *vel,
                     pass_out *po)
{
    memset(po, 0, sizeof *po);
    sweep_vec3 from = *e_pos, target = sweep_v3_add(from, e_disp);
    const sweep_vec3 input = e_disp;
    int moving_down = c->has_up && sweep_v3_dot(sweep_v3_mul(e_disp, c->radii), c->up) < 0.0;
    plane_set planes;
    planes.count = 0;
    uint32_t i;
    for (i = 0; i < c->cfg->max_iterations; i++) {
        sweep_vec3 disp = sweep_v3_sub(target, from);
        if (sweep_v3_len2(disp) < MIN_DISP * MIN_DISP)
            break;
        sweep__scene_result sr;
        int first = c->res->iterations == 0;
        c->res->iterations++;
        int touched = sweep__scene_sweep(&c->scene, from, disp, &sr);
        if (sr.soft_count)
            record_soft(c, &sr, from, first);
        if (!touched) {
            from = target;
            break;
        }
        if (first && sr.t_min < 0.0)
            c->res->flags |= SWEEP_MOVED_STARTED_EMBEDDED;
        sweep_vec3 at = stop_point(c, from, disp, &sr);
        /* Each contact's world normal, once: the support test, the contact
         * list and the slide all want it. */
        sweep_vec3 nws[SWEEP__MAX_SIMULTANEOUS];
        nws[0] = to_world_normal(c, sr.hits[0].normal); /* a contact has at least one */
        for (uint32_t k = 1; k < sr.count; k++)
            nws[k] = to_world_normal(c, sr.hits[k].normal);
        record(c, &sr, nws, at);
        sweep_vec3 ne = sr.hits[0].normal, nw = nws[0], gn;
        const sweep__scene_hit *support = support_of(c, &sr, nws, &gn);
        if (!support) {
            /* only the lateral slide's is read (the step-up's trigger) */
            if (mode == MODE_SLIDE && c->has_up && !po->hit_low)
                po->hit_low = touches_low(c, &sr);
        } else if (!is_walkable(c, nw))
            po->hit_edge = 1;
        from = at;
        if (support && mode == MODE_FALL && moving_down) {
            po->ground = 1;
            po->ground_normal = gn;
            po->ground_height = sweep_v3_dot(sweep_v3_mul(sweep_v3_sub(at, support->normal), c->radii), c->up);
            po->ground_index = support->index;
            po->ground_material = support->tri.material;
            po->ground_mover = support->mover;
            po->ground_body = support->body;
        }
        if (mode == MODE_PROBE || po->ground)
            break;
        sweep_vec3 rest = sweep_v3_sub(target, from);
        if (mode == MODE_SLIDE && c->has_up && !support) {
            /* Walking treats a steep surface as a wall: slide along its
             * horizontal normal, never up it. Only when the slide along
             * the surface itself would rise, though: a slide that goes
             * level or down (pressed down by an overhang or a crease)
             * climbs nothing, and the horizontal stand-in would let it
             * run back into the very face it touches, at t = 0 each
             * iteration, until the iterations ran out. */
            double u = sweep_v3_dot(nw, c->up);
            sweep_vec3 flat = sweep_v3_normalize(sweep_v3_madd(nw, c->up, -u));
            sweep_vec3 along = sweep_v3_madd(rest, ne, -sweep_v3_dot(rest, ne));
            int rises = sweep_v3_dot(sweep_v3_mul(along, c->radii), c->up) > 0.0;
            if (u > 0.0 && rises && sweep_v3_len2(flat) > 0.0) {
                nw = flat;
                ne = to_espace_normal(c, flat);
            }
        }
        sweep_vec3 slid = sweep_v3_madd(rest, ne, -sweep_v3_dot(rest, ne));
        SWEEP_CORE_CHECK(!(sweep__check_unit(ne) && espace_tame(rest)) ||
                         fabs(sweep_v3_dot(slid, ne)) <= SLIDE_TOL * sweep_v3_len(rest));
        if (vel) {
            double into = sweep_v3_dot(*vel, nw);
            if (into < 0.0) {
                *vel = sweep_v3_madd(*vel, nw, -into);
                SWEEP_CORE_CHECK(!sweep__check_unit(nw) ||
                                 sweep_v3_dot(*vel, nw) >= -SLIDE_TOL * (sweep_v3_len(*vel) + fabs(into)));
            }
        }
        slid = follow_creases(&planes, ne, nw, rest, slid, vel);
        target = sweep_v3_add(from, slid);
        if (sweep_v3_dot(sweep_v3_sub(target, from), input) < 0.0)
            break; /* the jitter filter: the slide turned back */
    }
    if (i == c->cfg->max_iterations) {
        /* Out of iterations: settle for the first contact along the input,
         * where the pass's own first sweep stopped. */
        c->res->flags |= SWEEP_MOVED_ITERATION_LIMIT;
        sweep__scene_result sr;
        from = *e_pos;
        c->res->iterations++;
        if (sweep__scene_sweep(&c->scene, from, input, &sr))
            from = stop_point(c, from, input, &sr);
        else
            from = sweep_v3_add(from, input);
    }
    *e_pos = from;
}

/* A result before any pass: no contacts, no ground, empty extents. */
static void result_init(sweep_move_result *res, sweep_vec3 radii)
{
    memset(res, 0, sizeof *res);
    res->ground_triangle = SWEEP_NO_TRIANGLE;
    res->ground_mover = SWEEP_NO_MOVER;
    res->ground_body = SWEEP_NO_BODY;
    res->extents_min = radii;
    res->extents_max = sweep_v3_scale(radii, -1.0);
}

static double horizontal_len2(const ctx *c, sweep_vec3 d)
{
    return sweep_v3_len2(sweep_v3_madd(d, c->up, -sweep_v3_dot(d, c->up)));
}

static void set_ground(sweep_move_result *res, const pass_out *po)
{
    res->flags |= SWEEP_MOVED_GROUNDED;
    res->ground_normal = po->ground_normal;
    res->ground_triangle = po->ground_index;
    res->ground_material = po->ground_material;
    res->ground_mover = po->ground_mover;
    res->ground_body = po->ground_body;
}

/*
 * Step-up (Quake's StepSlideMove in ellipsoid form): up by at most
 * step_height, the same lateral slide, then down onto walkable ground. Keeps
 * the result only if it lands and gets further across than the plain slide.
 */
static void try_step(ctx *c, sweep_vec3 e_start, sweep_vec3 e_lat, sweep_vec3 vel_in, sweep_vec3 *e_pos,
                     sweep_vec3 *vel)
{
    /* The plain slide's contacts were only a try: the step starts afresh,
     * from the result as it was before the slide (the move's first pass),
     * in a result of its own, copied over the plain one only if the step
     * is kept (one try in five on the corpus). */
    sweep_move_result *plain = c->res, step;
    result_init(&step, c->radii);
    step.iterations = plain->iterations;
    c->res = &step;
    double plain_progress = horizontal_len2(c, sweep_v3_mul(sweep_v3_sub(*e_pos, e_start), c->radii));

    pass_out po;
    sweep_vec3 p = e_start, v = vel_in;
    sweep_vec3 rise = sweep_v3_mul(sweep_v3_scale(c->up, c->cfg->step_height), c->inv_radii);
    run_pass(c, MODE_PROBE, &p, rise, NULL, &po);
    sweep_vec3 risen = sweep_v3_sub(p, e_start);
    run_pass(c, MODE_SLIDE, &p, e_lat, &v, &po);
    run_pass(c, MODE_FALL, &p, sweep_v3_scale(risen, -1.0), NULL, &po);
    double progress = horizontal_len2(c, sweep_v3_mul(sweep_v3_sub(p, e_start), c->radii));
    /* What holds the body up now must be at most one step above where its
     * feet were: otherwise a body could perch on a higher edge and creep up
     * it over several moves. */
    double feet = sweep_v3_dot(sweep_v3_mul(e_start, c->radii), c->up) - c->foot;
    c->res = plain;
    if (po.ground && progress > plain_progress && po.ground_height - feet <= c->cfg->step_height) {
        step.flags |= SWEEP_MOVED_STEPPED;
        *plain = step;
        *e_pos = p;
        *vel = v;
        return;
    }
    plain->iterations = step.iterations;
}

/*
 * Keeps the triangles a move will most likely sweep against: the box swept
 * by the ellipsoid from position along disp, grown by the skin, by `bend`
 * for slides that bend the path, and along up by step_up. Only speed
 * depends on it: a sweep that leaves it walks the BVH (scene.h).
 */
static void begin_scene(ctx *c, const sweep__scene_src *src, sweep_vec3 position, sweep_vec3 disp, double bend,
                        double step_up)
{
    double grow = 1.0 + 4.0 * c->cfg->skin + 2e-3;
    sweep_vec3 pad = sweep_v3_add(sweep_v3_scale(c->radii, grow), sweep_v3(bend, bend, bend));
    sweep_vec3 end = sweep_v3_add(position, disp);
    sweep_vec3 lo = sweep_v3_sub(sweep_v3_min(position, end), pad);
    sweep_vec3 hi = sweep_v3_add(sweep_v3_max(position, end), pad);
    sweep_vec3 u = sweep_v3_scale(c->up, step_up);
    lo = sweep_v3_add(lo, sweep_v3_min(u, sweep_v3(0, 0, 0)));
    hi = sweep_v3_add(hi, sweep_v3_max(u, sweep_v3(0, 0, 0)));
    sweep__scene_begin(&c->scene, src, c->radii, c->inv_radii, lo, hi);
}

static sweep_status check_input(const sweep_config *cfg, const sweep_move_input *in)
{
    if (!sweep_v3_isfinite(in->position) || !sweep_v3_isfinite(in->radii) ||
        !sweep_v3_isfinite(in->velocity) || !isfinite(in->dt))
        return SWEEP_E_NONFINITE;
    if (!sweep__config_radii_ok(cfg, in->radii))
        return SWEEP_E_RADII;
    if (!(in->dt > 0.0 && in->dt <= cfg->max_dt))
        return SWEEP_E_DT;
    if (sweep_v3_len2(in->velocity) > cfg->max_speed * cfg->max_speed)
        return SWEEP_E_VELOCITY;
    if (!sweep__config_contains_inline(cfg, in->position))
        return SWEEP_E_POSITION;
    return SWEEP_OK;
}

/* The part of a ctx that depends only on the radii and gravity. */
typedef struct ctx_shape {
    sweep_vec3 radii, gravity; /* the inputs, compared bit for bit */
    int valid;
    sweep_vec3 inv_radii, up;
    int has_up;
    double foot;
} ctx_shape;

/* The last shape made on this thread (one for moves, one for the movers'
 * slides, which have no up): a world's bodies mostly share their
 * radii and all share its gravity, and making a shape is a chain of
 * divisions and square roots each waiting for the last, at the head of
 * every move. A hit gives the very values a remake would (the same inputs,
 * bit for bit, through the same operations). */
static _Thread_local ctx_shape last_shape[2]; /* without, with up */

/* Fills the fixed part of a ctx for an ellipsoid of the given radii. */
static void ctx_init(ctx *c, const sweep_config *cfg, sweep_vec3 radii, int with_up, sweep_move_result *res)
{
    c->cfg = cfg, c->radii = radii, c->res = res;
    ctx_shape *sh = &last_shape[with_up != 0];
    if (!sh->valid || !sweep_v3_same_bits(sh->radii, radii) || !sweep_v3_same_bits(sh->gravity, cfg->gravity)) {
        sh->radii = radii, sh->gravity = cfg->gravity, sh->valid = 1;
        sh->inv_radii = sweep__inverse_radii(radii);
        sh->up = sweep_v3(0, 0, 0), sh->has_up = 0, sh->foot = 0.0;
        double g = sweep_v3_len(cfg->gravity);
        if (with_up && g > 0.0) {
            sh->up = sweep_v3_scale(cfg->gravity, -1.0 / g);
            sh->has_up = 1;
            sweep_vec3 ru = sweep_v3_mul(radii, sh->up);
            sh->foot = sweep_v3_len(ru);
        }
    }
    c->inv_radii = sh->inv_radii, c->up = sh->up, c->has_up = sh->has_up, c->foot = sh->foot;
    SWEEP_CORE_CHECK(sweep_v3_same_bits(c->inv_radii, sweep__inverse_radii(radii)));
    SWEEP_CORE_CHECK(!c->has_up || sweep__check_unit_from(c->up, sweep_v3_len(cfg->gravity)));
}

sweep_vec3 sweep__slide(const sweep__scene_src *src, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 position,
                        sweep_vec3 disp, int *hit)
{
    sweep_move_result res;
    result_init(&res, radii);
    ctx c;
    ctx_init(&c, cfg, radii, 0, &res);
    begin_scene(&c, src, position, disp, 0.5 * sweep_v3_len(disp), 0.0);
    const sweep_vec3 e_start = sweep_v3_mul(position, c.inv_radii);
    sweep_vec3 e_pos = e_start;
    pass_out po;
    run_pass(&c, MODE_SLIDE, &e_pos, sweep_v3_mul(disp, c.inv_radii), NULL, &po);
    SWEEP_CORE_CHECK(res.iterations <= cfg->max_iterations + 1);
    if (hit)
        *hit = (res.flags & SWEEP_MOVED_HIT) != 0;
    return sweep_v3_add(position, sweep_v3_mul(sweep_v3_sub(e_pos, e_start), radii));
}

/* Checked builds: does a move's result keep the invariants above (its
 * sweeps, its contacts, its ground)? */
static inline int result_ok(const ctx *c, const sweep_move_result *res)
{
    if (!(res->iterations <= MAX_PASSES * (c->cfg->max_iterations + 1) && res->contact_count <= SWEEP_MAX_CONTACTS))
        return 0;
    for (uint32_t i = 0; i < res->contact_count; i++)
        for (uint32_t k = 0; k < i; k++)
            if (res->contacts[k].triangle == res->contacts[i].triangle)
                return 0;
    return !(res->flags & SWEEP_MOVED_GROUNDED) || is_walkable(c, res->ground_normal);
}

sweep_status sweep_move(const sweep_world *world, const sweep_config *cfg, const sweep_move_input *in,
                        sweep_move_result *out)
{
    return sweep_move_among(world, NULL, cfg, in, out);
}

sweep_status sweep_move_among(const sweep_world *world, const sweep_movers *mv, const sweep_config *cfg,
                              const sweep_move_input *in, sweep_move_result *out)
{
    sweep_space sp = {world, mv, NULL, SWEEP_NO_BODY};
    return sweep_move_in(&sp, cfg, in, out);
}

sweep_status sweep_move_in(const sweep_space *space, const sweep_config *cfg, const sweep_move_input *in,
                           sweep_move_result *out)
{
    if (!space || !space->world || !cfg || !in || !out)
        return SWEEP_E_ARG;
    sweep_status st = sweep_config_check(cfg);
    if (st != SWEEP_OK)
        return st;
    return sweep__move_in_config_checked(space, cfg, in, out);
}

sweep_status sweep__move_in_config_checked(const sweep_space *space, const sweep_config *cfg,
                                           const sweep_move_input *in, sweep_move_result *out)
{
    sweep_status st = check_input(cfg, in);
    if (st != SWEEP_OK)
        return st;

    /* Built in place: nothing below fails, and a result is large (most
     * of it the contact list) to copy. */
    sweep_move_result *res = out;
    result_init(res, in->radii);
    ctx c;
    ctx_init(&c, cfg, in->radii, 1, res);

    sweep_vec3 disp = sweep_v3_scale(in->velocity, in->dt);
    sweep_vec3 vel_lat = in->velocity, vel_vert = sweep_v3(0, 0, 0);
    sweep_vec3 disp_lat = disp, disp_vert = sweep_v3(0, 0, 0);
    if (c.has_up) {
        double dv = sweep_v3_dot(disp, c.up), vv = sweep_v3_dot(in->velocity, c.up);
        disp_vert = sweep_v3_scale(c.up, dv);
        disp_lat = sweep_v3_sub(disp, disp_vert);
        vel_vert = sweep_v3_scale(c.up, vv);
        vel_lat = sweep_v3_sub(in->velocity, vel_vert);
    }
    int was_grounded = c.has_up && (in->flags & SWEEP_INPUT_GROUNDED);
    sweep__scene_src src = {.world = space->world, .movers = space->movers, .first = 0,
                            .end = sweep_movers_count(space->movers), .skip = SWEEP_NO_MOVER, .prev = 0,
                            .crowd = space->crowd, .self = space->self};
    /* The slack of half the displacement is the most one slide can bend
     * the path. A body on the ground may rise a step (the step-up). The
     * snap down a step (5 below) gathers its own column instead of every
     * move gathering a step deeper: it comes in under one move in five
     * on the corpus, and the shallower box saves more than the columns
     * cost on most levels (dense ones most). */
    begin_scene(&c, &src, in->position, disp, 0.5 * sweep_v3_len(disp), was_grounded ? cfg->step_height : 0.0);

    const sweep_vec3 e_start = sweep_v3_mul(in->position, c.inv_radii);
    sweep_vec3 e_pos = e_start;
    pass_out po;

    /* 1-3: lateral slide, and the step-up when something low blocked it. */
    sweep_vec3 e_lat = sweep_v3_mul(disp_lat, c.inv_radii);
    if (sweep_v3_len2(e_lat) > 0.0) {
        sweep_vec3 vel_in = vel_lat;
        run_pass(&c, MODE_SLIDE, &e_pos, e_lat, &vel_lat, &po);
        /* A riser, or a step's nose met by the round body: climbing over
         * the nose would bleed the speed away, stepping up keeps it. A
         * surface met only above step_height is no step: the body still
         * meets it after rising. On the corpus at Quake speed four tries
         * in five (all, on some levels) were such walls, each costing a
         * rise, a slide and a fall, most of a move, to find nothing; the
         * few they won were a few per cent more progress along a wall up
         * a ramp or over a bumpy floor, which a body away from the wall
         * does not get either. */
        if ((po.hit_low || po.hit_edge) && was_grounded && cfg->step_height > 0.0)
            try_step(&c, e_start, e_lat, vel_in, &e_pos, &vel_lat);
    }

    /* 4: the vertical pass (gravity and jumps). */
    memset(&po, 0, sizeof po);
    sweep_vec3 e_vert = sweep_v3_mul(disp_vert, c.inv_radii);
    if (sweep_v3_len2(e_vert) > 0.0)
        run_pass(&c, MODE_FALL, &e_pos, e_vert, &vel_vert, &po);
    if (po.ground)
        set_ground(res, &po);

    /* 5: keep a walking body on the ground over steps down and slopes. */
    if (!po.ground && was_grounded && cfg->step_height > 0.0 && sweep_v3_dot(disp, c.up) <= 0.0) {
        /* What the pass may change, to undo it if it finds no ground:
         * it only appends contacts, grows the extents and adds flags. */
        uint32_t flags = res->flags, contacts = res->contact_count;
        sweep_vec3 ext_min = res->extents_min, ext_max = res->extents_max;
        sweep_vec3 p = e_pos;
        sweep_vec3 down = sweep_v3_mul(sweep_v3_scale(c.up, -cfg->step_height), c.inv_radii);
        begin_scene(&c, &src, sweep_v3_add(in->position, sweep_v3_mul(sweep_v3_sub(p, e_start), c.radii)),
                    sweep_v3_scale(c.up, -cfg->step_height), 0.0, 0.0);
        run_pass(&c, MODE_FALL, &p, down, NULL, &po);
        if (po.ground) {
            e_pos = p;
            set_ground(res, &po);
            res->flags |= SWEEP_MOVED_SNAPPED;
        } else {
            res->flags = flags;
            memset(&res->contacts[contacts], 0, (res->contact_count - contacts) * sizeof res->contacts[0]);
            res->contact_count = contacts;
            res->extents_min = ext_min, res->extents_max = ext_max;
        }
    }

    /* 6: results. A grounded body has no velocity along up: the ground
     * took it, and gravity must not pile up while standing. */
    sweep_vec3 vel = sweep_v3_add(vel_lat, vel_vert);
    if (res->flags & SWEEP_MOVED_GROUNDED)
        vel = sweep_v3_madd(vel, c.up, -sweep_v3_dot(vel, c.up));
    res->velocity = vel;
    res->position = sweep_v3_add(in->position, sweep_v3_mul(sweep_v3_sub(e_pos, e_start), c.radii));
    SWEEP_CORE_CHECK(result_ok(&c, res));
    SWEEP_CORE_CHECK(!(espace_tame(e_start) && espace_tame(sweep_v3_mul(disp, c.inv_radii)) &&
                       espace_tame(c.inv_radii)) ||
                     (sweep_v3_isfinite(res->position) && sweep_v3_isfinite(res->velocity)));
    return SWEEP_OK;
}

