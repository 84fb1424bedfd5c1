/*
 * push.c - one tick of the movers: each takes its next pose, then carries
 * the bodies that stand on it and pushes the bodies in its way (mover.h
 * says what the caller sees; this file says how).
 *
 * A mover's motion over the tick is the map X = cur * prev^-1 (a rigid
 * motion: world point at the previous placement -> the same mover point at
 * the current one). For a body at p:
 *   - a rider is carried to X(p): it keeps its place on the mover exactly,
 *     so it neither sinks into a rising floor nor floats above a falling
 *     one, and turns about the mover's pivot with it;
 *   - any other body near the mover's swept box is pushed: seen from the
 *     mover, the body moves from p to X^-1(p) while the mover stands at its
 *     previous placement. That relative path is slid against the mover
 *     alone ("Collision Detection and Response", chapter 12 of a game
 *     programming course, extends the sweep by a dynamic object's motion
 *     the same way); if it touches, the slide's end q is
 *     where the body sits relative to the mover, and X(q) where it must go.
 *     Sweeping the relative path is what catches a mover fast enough to
 *     cross the whole body in one tick.
 * Either way the body then slides from p towards its target through the
 * static world and every other mover, so it is never pushed into them, nor
 * past the coordinate limit (it stays, as against a wall).
 * Whether it got clear is checked in the mover's frame again: the path from
 * a place known to be outside the mover (p for a rider, q for a pushed
 * body) to X^-1(where it ended) must not enter the mover. A body that did
 * not get clear blocks the mover (its rule decides what happens).
 *
 * All of that takes the body's ellipsoid, which stays aligned with the
 * world's axes, as the same shape in the mover's frame at both ends of the
 * tick. Seen from a mover that turns, though, the ellipsoid turns the other
 * way, so the frame's sweep is exact only when the body is round about the
 * tick's turn: any translation, and a turn about z of a body with rx == ry
 * (every turn the level generator makes). Otherwise (a flap or drawbridge
 * swinging about a horizontal hinge, Quake 3's func_rotating about x or y)
 * a body the frame's sweep leaves touching the mover can end well inside
 * it. So for such a body the end is tested against the mover as it now
 * stands with the body's real shape: an overlap is pushed out along the
 * separating direction (the deepest contact's normal, as an embedded move
 * is, "Collision Detection and Response", chapter 12) by a slide through
 * everything else, a few times at most, and a body still inside blocks the
 * mover. The path check from the place outside uses the ball inscribed in
 * the ellipsoid, shrunk by the skin: a ball turns into itself, so the
 * frame's sweep of it is exact, and it still catches a mover that crossed
 * the body's middle.
 *
 * Bodies are visited in array order and movers in index order, so the
 * whole tick is a function of its inputs. Scratch memory (the positions to
 * restore when a mover is stopped) grows with the body count and is kept.
 *
 * Invariants (asserted in checked builds: core/check.h):
 *   - A mover's next state, and the state a blocked rule leaves it in,
 *     is one its machine can reach (sweep__mover_state_ok).
 *   - The bodies a mover moved in one tick, each saved once, fit the
 *     scratch (sized to the body count).
 *   - A mover that STOP or REVERSE undid stands at its previous pose.
 *   - The report counts at most every mover (moved, and blocked among
 *     them) and at most every body (carried, pushed, crushed).
 */
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/compiler.h"
#include "core/mover_impl.h"

/* Slack on the relative check: a contact this close to the end of the path
 * is the skin gap the slide left, not an overlap. */
#define CLEAR_T 1.0

/* Push-outs a body turned into a mover gets before it counts as caught: a
 * convex mover needs one, a corner of two faces two. */
#define SETTLE_TRIES 4

typedef struct sweep__saved_body {
    uint32_t index;
    sweep_vec3 position;
    uint32_t flags, mover;
} sweep__saved_body;

static sweep_vec3 motion(const sweep__mover *m, sweep_vec3 p)
{
    return sweep__pose_apply(&m->pose, sweep__pose_unapply(&m->prev_pose, p));
}

static sweep_vec3 motion_inverse(const sweep__mover *m, sweep_vec3 p)
{
    return sweep__pose_apply(&m->prev_pose, sweep__pose_unapply(&m->pose, p));
}

static int boxes_overlap(sweep_vec3 alo, sweep_vec3 ahi, sweep_vec3 blo, sweep_vec3 bhi)
{
    return alo.x <= bhi.x && ahi.x >= blo.x && alo.y <= bhi.y && ahi.y >= blo.y && alo.z <= bhi.z &&
           ahi.z >= blo.z;
}

/* Does the unit-sphere path from a to b (world points, eSpace of radii)
 * enter mover m at its previous placement before its end? */
static int enters(const sweep_movers *mv, uint32_t m, sweep_vec3 radii, sweep_vec3 a, sweep_vec3 b)
{
    sweep__scene_src src = {.movers = mv, .first = m, .end = m + 1, .skip = SWEEP_NO_MOVER, .prev = 1, .self = SWEEP_NO_BODY};
    sweep_vec3 inv = sweep__inverse_radii(radii);
    sweep_vec3 pad = sweep_v3_scale(radii, 1.01);
    sweep__scene sc;
    sweep__scene_begin(&sc, &src, radii, inv, sweep_v3_sub(sweep_v3_min(a, b), pad),
                       sweep_v3_add(sweep_v3_max(a, b), pad));
    sweep__scene_result r;
    sweep_vec3 ea = sweep_v3_mul(a, inv), ed = sweep_v3_sub(sweep_v3_mul(b, inv), ea);
    if (!sweep__scene_sweep(&sc, ea, ed, &r))
        return 0;
    return r.t_min < CLEAR_T;
}

/* Pairs of world axes a mover's turn this tick mixes: a body keeps its
 * shape in the mover's frame if its radii along each pair are equal. */
enum { MIX_XY = 1u << 0, MIX_YZ = 1u << 1, MIX_XZ = 1u << 2 };

/*
 * The pairs mover m's turn over the tick (its rotation now times the
 * inverse of the one before) mixes. When both rotations are about one
 * world axis their product keeps the other two components exactly zero,
 * so a turntable or a door turning about z mixes x and y only, as it
 * should; a turn that rounding puts off its axis mixes every pair and
 * takes the slower, sound way (and one it puts onto an axis is off by
 * rounding, far inside the skin). The same rotation at both ends mixes
 * nothing: compared as bits, since the product of a tilted rotation and
 * its inverse rounds off zero.
 */
static unsigned turn_mixes(const sweep__mover *m)
{
    if (memcmp(&m->pose.rotation, &m->prev_pose.rotation, sizeof m->pose.rotation) == 0)
        return 0;
    sweep_quat turn = sweep_quat_mul(m->pose.rotation, sweep_quat_conj(m->prev_pose.rotation));
    int ox = turn.x == 0.0, oy = turn.y == 0.0, oz = turn.z == 0.0;
    if (ox && oy && oz)
        return 0;
    if (ox && oy)
        return MIX_XY;
    if (oy && oz)
        return MIX_YZ;
    if (ox && oz)
        return MIX_XZ;
    return MIX_XY | MIX_YZ | MIX_XZ;
}

/* Is an ellipsoid of radii r round about a turn that mixes these pairs? */
static int keeps_shape(unsigned mixes, sweep_vec3 r)
{
    return (!(mixes & MIX_XY) || r.x == r.y) && (!(mixes & MIX_YZ) || r.y == r.z) && (!(mixes & MIX_XZ) || r.x == r.z);
}

/*
 * Does the body of the given radii at world point p overlap mover m as it
 * now stands? If so, *out is the world displacement that takes it a skin
 * clear of the deepest triangle, along the direction from that triangle's
 * closest point (the embedded answer of the swept sphere, swept_sphere.h).
 * Kept out of line: its scene is large, and act_on's slides have their own.
 */
static SWEEP__NOINLINE int overlaps(const sweep_movers *mv, uint32_t m, const sweep_config *cfg, sweep_vec3 radii,
                                    sweep_vec3 p, sweep_vec3 *out)
{
    sweep__scene_src src = {.movers = mv, .first = m, .end = m + 1, .skip = SWEEP_NO_MOVER, .prev = 0,
                            .self = SWEEP_NO_BODY};
    sweep_vec3 inv = sweep__inverse_radii(radii);
    sweep_vec3 pad = sweep_v3_scale(radii, 1.01);
    sweep__scene sc;
    sweep__scene_begin(&sc, &src, radii, inv, sweep_v3_sub(p, pad), sweep_v3_add(p, pad));
    sweep__scene_result r;
    if (!sweep__scene_sweep(&sc, sweep_v3_mul(p, inv), sweep_v3(0, 0, 0), &r) || !(r.t_min < 0.0))
        return 0;
    *out = sweep_v3_mul(sweep_v3_scale(r.hits[0].normal, -r.t_min + cfg->skin), radii);
    return 1;
}

/* Is body b's centre inside mover m's trigger box? */
static int in_volume(const sweep__mover *m, const sweep_body *b)
{
    sweep_vec3 p = b->position;
    return p.x >= m->volume_min.x && p.x <= m->volume_max.x && p.y >= m->volume_min.y && p.y <= m->volume_max.y &&
           p.z >= m->volume_min.z && p.z <= m->volume_max.z;
}

static int fired(sweep__mover *m, uint32_t index, const sweep_body *bodies, uint32_t count)
{
    int yes = m->command;
    m->command = 0;
    switch (m->trigger) {
    case SWEEP_TRIGGER_ALWAYS:
        return 1;
    case SWEEP_TRIGGER_VOLUME:
        for (uint32_t i = 0; i < count && !yes; i++)
            if (!(bodies[i].flags & SWEEP_BODY_CRUSHED) && in_volume(m, &bodies[i]))
                yes = 1;
        return yes;
    case SWEEP_TRIGGER_TOUCH:
        for (uint32_t i = 0; i < count && !yes; i++)
            if (!(bodies[i].flags & SWEEP_BODY_CRUSHED) &&
                (bodies[i].touch_mover == index || bodies[i].ground_mover == index))
                yes = 1;
        return yes;
    default:
        return yes;
    }
}

/* The state a REVERSE mover takes when blocked while going `going` (+1 or
 * -1) from state s: the same place, heading back. At an end of an open
 * path there is nowhere back to go, so it rests there; a loop's ends are
 * the same pose, so it carries on round the other way. */
static sweep_mover_state reversed(const sweep__mover *m, sweep_mover_state s, int32_t going)
{
    int loop = m->mode == SWEEP_MOVER_LOOP;
    s.wait = 0;
    s.dir = -going;
    if (s.dir < 0 && s.path_tick == 0) {
        if (loop)
            s.path_tick = m->path_ticks;
        else
            s.dir = 0;
    } else if (s.dir > 0 && s.path_tick == m->path_ticks) {
        if (loop)
            s.path_tick = 0;
        else
            s.dir = 0;
    }
    return s;
}

static int grow_scratch(sweep_movers *mv, uint32_t count)
{
    if (count <= mv->scratch_cap)
        return 1;
    sweep__saved_body *p = realloc(mv->scratch, (size_t)count * sizeof *p);
    if (!p)
        return 0;
    mv->scratch = p;
    mv->scratch_cap = count;
    return 1;
}

/* Can mover m, going from its previous to its current box (swept_lo ..
 * swept_hi), reach body b at all? Riders always; others by boxes. */
static int within_reach(const sweep_body *b, uint32_t mi, sweep_vec3 swept_lo, sweep_vec3 swept_hi, double grow)
{
    if (b->ground_mover == mi)
        return 1;
    sweep_vec3 r = sweep_v3_scale(b->radii, grow);
    return boxes_overlap(sweep_v3_sub(b->position, r), sweep_v3_add(b->position, r), swept_lo, swept_hi);
}

/*
 * The end of a body that mover mi's turn changes the shape of (keeps_shape
 * says no), at b->position: pushed out of the mover as it now stands, each
 * time by a slide through everything else, so that it never ends inside
 * the level or another mover; then the inscribed ball's path from outside,
 * a place known to be clear of the mover, to the end, in the mover's frame,
 * must not enter the mover. Returns 1 if the body got clear.
 */
static int settle(const sweep_movers *mv, uint32_t mi, const sweep_world *w, const sweep_config *cfg, sweep_body *b,
                  sweep_vec3 outside)
{
    sweep__scene_src rest = {.world = w, .movers = mv, .end = mv->count, .skip = mi, .self = SWEEP_NO_BODY};
    sweep_vec3 end = b->position, out;
    for (int k = 0; overlaps(mv, mi, cfg, b->radii, end, &out); k++) {
        if (k == SETTLE_TRIES)
            return 0;
        end = sweep__slide(&rest, cfg, b->radii, end, out, NULL);
        if (!sweep__config_contains_inline(cfg, end))
            return 0;
        b->position = end;
    }
    sweep_vec3 r = b->radii;
    double least = r.x < r.y ? (r.x < r.z ? r.x : r.z) : (r.y < r.z ? r.y : r.z);
    double ball = least * (1.0 - cfg->skin);
    return !enters(mv, mi, sweep_v3(ball, ball, ball), outside, motion_inverse(&mv->m[mi], end));
}

/*
 * Carries or pushes body b for mover index mi, which has just moved and
 * can reach it (within_reach). mixes is what the mover's turn this tick
 * mixes (turn_mixes).
 * Returns 1 if the body got clear, 0 if it blocks the mover. Fills
 * *touched when the mover acted on it at all.
 */
static int act_on(const sweep_movers *mv, uint32_t mi, unsigned mixes, const sweep_world *w,
                  const sweep_config *cfg, sweep_body *b, int *touched)
{
    const sweep__mover *m = &mv->m[mi];
    sweep_vec3 p = b->position, outside, target;
    *touched = 0;
    if (b->ground_mover == mi) {
        outside = p;
        target = motion(m, p);
        b->flags |= SWEEP_BODY_CARRIED;
    } else {
        sweep__scene_src only = {.movers = mv, .first = mi, .end = mi + 1, .skip = SWEEP_NO_MOVER, .prev = 1,
                                 .self = SWEEP_NO_BODY};
        int hit = 0;
        outside = sweep__slide(&only, cfg, b->radii, p, sweep_v3_sub(motion_inverse(m, p), p), &hit);
        if (hit) {
            target = motion(m, outside);
        } else {
            /* Missed in the mover's frame, where a turned body's shape is
             * wrong: the mover may still have turned into it. Then it
             * stays, and settle pushes it out. */
            sweep_vec3 unused;
            if (keeps_shape(mixes, b->radii) || !overlaps(mv, mi, cfg, b->radii, p, &unused))
                return 1;
            outside = p;
            target = p;
        }
        b->flags |= SWEEP_BODY_PUSHED;
    }
    *touched = 1;
    b->mover = mi;
    sweep__scene_src rest = {.world = w, .movers = mv, .end = mv->count, .skip = mi, .self = SWEEP_NO_BODY};
    int blocked_on_way = 0;
    sweep_vec3 end = sweep__slide(&rest, cfg, b->radii, p, sweep_v3_sub(target, p), &blocked_on_way);
    /* Nothing on the way: exactly where the mover sends it (the slide's
     * round trip through eSpace may be an ulp off), which is also what a
     * client carrying its own player computes. */
    if (!blocked_on_way)
        end = target;
    /* The world ends at the coordinate limit: a body sent past it (from
     * where every later move is refused) stays and blocks the mover, as a
     * wall would. */
    if (!sweep__config_contains_inline(cfg, end))
        return 0;
    b->position = end;
    if (!keeps_shape(mixes, b->radii))
        return settle(mv, mi, w, cfg, b, outside);
    /* Where it was sent is clear of the mover by construction. */
    if (memcmp(&end, &target, sizeof end) == 0)
        return 1;
    return !enters(mv, mi, b->radii, outside, motion_inverse(m, end));
}

sweep_status sweep_movers_tick(sweep_movers *mv, const sweep_world *w, const sweep_config *cfg, sweep_body *bodies,
                               uint32_t count, sweep_tick_report *rep)
{
    if (!mv || !cfg || (count > 0 && !bodies))
        return SWEEP_E_ARG;
    sweep_status st = sweep_config_check(cfg);
    if (st != SWEEP_OK)
        return st;
    if (!grow_scratch(mv, count))
        return SWEEP_E_NOMEM;
    sweep_tick_report r;
    memset(&r, 0, sizeof r);
    for (uint32_t i = 0; i < count; i++) {
        if (bodies[i].flags & SWEEP_BODY_CRUSHED)
            continue; /* left as the tick that crushed it reported it */
        bodies[i].flags = 0;
        bodies[i].mover = SWEEP_NO_MOVER;
    }
    sweep__saved_body *saved = mv->scratch;
    for (uint32_t mi = 0; mi < mv->count; mi++) {
        sweep__mover *m = &mv->m[mi];
        sweep_mover_state before = m->state;
        sweep_mover_state next = sweep__mover_next(m, fired(m, mi, bodies, count));
        SWEEP_CORE_CHECK(sweep__mover_state_ok(m, next));
        sweep_mover_pose pose = sweep__mover_pose_of(mv, m, next.path_tick);
        sweep__mover_set(m, &pose); /* prev = where it was, cur = pose */
        m->state = next;
        if (memcmp(&m->prev_pose, &m->pose, sizeof pose) == 0)
            continue;
        m->state.flags |= SWEEP_MOVER_MOVED;
        r.moved++;

        unsigned mixes = turn_mixes(m);
        uint32_t nsaved = 0, blocked = 0;
        sweep_vec3 swept_lo = sweep_v3_min(m->prev_lo, m->cur_lo), swept_hi = sweep_v3_max(m->prev_hi, m->cur_hi);
        double grow = 1.0 + 4.0 * cfg->skin;
        for (uint32_t i = 0; i < count; i++) {
            sweep_body *b = &bodies[i];
            if ((b->flags & SWEEP_BODY_CRUSHED) || !within_reach(b, mi, swept_lo, swept_hi, grow))
                continue;
            sweep__saved_body sv = {i, b->position, b->flags, b->mover};
            int touched;
            int clear = act_on(mv, mi, mixes, w, cfg, b, &touched);
            if (touched) {
                SWEEP_CORE_CHECK(nsaved < mv->scratch_cap);
                saved[nsaved++] = sv;
            }
            if (clear)
                continue;
            blocked++;
            if (m->blocked == SWEEP_BLOCKED_CRUSH) {
                b->flags |= SWEEP_BODY_CRUSHED;
                r.crushed++;
            } else {
                b->flags |= SWEEP_BODY_BLOCKED;
            }
        }
        if (!blocked)
            continue;
        r.blocked++;
        if (m->blocked == SWEEP_BLOCKED_CRUSH) {
            m->state.flags |= SWEEP_MOVER_BLOCKED;
            continue;
        }
        /* STOP and REVERSE: the mover stays where it was this tick, and so
         * does every body it moved; the blockers keep their flag. */
        for (uint32_t k = 0; k < nsaved; k++) {
            sweep_body *b = &bodies[saved[k].index];
            uint32_t keep = b->flags & SWEEP_BODY_BLOCKED;
            b->position = saved[k].position;
            b->flags = saved[k].flags | keep;
            b->mover = keep ? mi : saved[k].mover;
        }
        int32_t going = before.dir != 0 ? before.dir : next.dir;
        sweep__mover_undo(m);
        SWEEP_CORE_CHECK(memcmp(&m->pose, &m->prev_pose, sizeof m->pose) == 0);
        m->state = m->blocked == SWEEP_BLOCKED_REVERSE ? reversed(m, before, going) : before;
        m->state.flags = SWEEP_MOVER_BLOCKED | (next.flags & SWEEP_MOVER_TRIGGERED);
        SWEEP_CORE_CHECK(sweep__mover_state_ok(m, m->state));
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t f = bodies[i].flags;
        r.carried += (f & SWEEP_BODY_CARRIED) != 0;
        r.pushed += (f & SWEEP_BODY_PUSHED) != 0;
    }
    SWEEP_CORE_CHECK(r.blocked <= r.moved && r.moved <= mv->count && r.carried <= count && r.pushed <= count &&
                     r.crushed <= count);
    mv->tick++;
    if (rep)
        *rep = r;
    return SWEEP_OK;
}
