/*
 * mover_impl.h - the inside of a sweep_movers set, shared by the path and
 * state machine (mover.c), the sweeps that see movers (scene.c, move.c) and
 * the tick that carries and pushes bodies (push.c). Not installed.
 *
 * Invariants:
 *   - local[] holds a mover's collidable triangles in its own frame, in
 *     description order; local[i].index is the global triangle number.
 *   - cur[] and prev[] are local[] placed at `pose` and `prev_pose`, in the
 *     same order; cur_lo/cur_hi and prev_lo/prev_hi bound them exactly.
 *   - The ball of local_radius about local_center holds every local
 *     triangle, with room to spare for the rounding of placing it (a query
 *     at a past pose tests the placed ball before placing a triangle).
 *   - Between ticks (when moves run) prev_pose is the pose of the tick
 *     before; during a tick, a mover not yet advanced has prev == cur.
 *   - state is one the machine of mover.c can reach (sweep__mover_state_ok,
 *     asserted in checked builds): path_tick within 0 .. path_ticks, dir
 *     -1, 0 or +1, never heading past an end (forward at path_ticks, back
 *     at 0), and a wait no longer than the longer of its two waits.
 */
#ifndef SWEEP_CORE_MOVER_IMPL_H
#define SWEEP_CORE_MOVER_IMPL_H

#include "core/mover.h"
#include "core/scene.h"
#include "core/world_impl.h"

typedef struct sweep__mover {
    sweep_keyframe *keys;
    uint32_t key_count;
    sweep_mover_mode mode;
    sweep_mover_trigger trigger;
    sweep_mover_blocked blocked;
    sweep_vec3 volume_min, volume_max;
    uint32_t path_ticks, wait_start_ticks, wait_end_ticks;
    uint32_t first_tri, described_tris; /* global numbers first_tri .. + described_tris */
    sweep__tri *local, *cur, *prev;
    uint32_t tri_count;
    sweep_vec3 local_center;
    double local_radius;
    sweep_vec3 cur_lo, cur_hi, prev_lo, prev_hi;
    sweep_mover_pose pose, prev_pose;
    sweep_mover_state state;
    int command; /* a trigger waits for the next tick */
} sweep__mover;

struct sweep__saved_body; /* push.c */

struct sweep_movers {
    sweep__mover *m;
    uint32_t count;
    struct sweep__saved_body *scratch; /* the tick's record of bodies moved */
    uint32_t scratch_cap;
    double tick_rate;
    uint64_t tick;
    uint32_t first_triangle, end_triangle;
};

/* Checked builds: can the state machine of mover.c reach s for m? */
static inline int sweep__mover_state_ok(const sweep__mover *m, sweep_mover_state s)
{
    uint32_t longest = m->wait_start_ticks > m->wait_end_ticks ? m->wait_start_ticks : m->wait_end_ticks;
    return s.path_tick <= m->path_ticks && s.dir >= -1 && s.dir <= 1 && !(s.dir > 0 && s.path_tick == m->path_ticks) &&
           !(s.dir < 0 && s.path_tick == 0) && s.wait <= longest;
}

/* Places local triangles at a pose into out[], and their bounds. */
void sweep__mover_place(const sweep__mover *m, const sweep_mover_pose *pose, sweep__tri *out, sweep_vec3 *lo,
                        sweep_vec3 *hi);

/* Moves m to pose, keeping the old placement as the previous one. */
void sweep__mover_set(sweep__mover *m, const sweep_mover_pose *pose);

/* Puts m back at its previous placement (a blocked tick undone). */
void sweep__mover_undo(sweep__mover *m);

/* The state after one tick given whether the trigger fired (pure). */
sweep_mover_state sweep__mover_next(const sweep__mover *m, int fired);

/* The pose of m at path tick s. */
sweep_mover_pose sweep__mover_pose_of(const sweep_movers *mv, const sweep__mover *m, uint32_t path_tick);

/* A plain collide-and-slide (no up, no ground rules) of an ellipsoid from
 * position by disp through src: where it ends; *hit (may be NULL) says
 * whether it touched anything. In move.c, with the move's passes. */
sweep_vec3 sweep__slide(const sweep__scene_src *src, const sweep_config *cfg, sweep_vec3 radii, sweep_vec3 position,
                        sweep_vec3 disp, int *hit);

/* world point of a local point p at pose. */
static inline sweep_vec3 sweep__pose_apply(const sweep_mover_pose *pose, sweep_vec3 p)
{
    return sweep_v3_add(sweep_quat_rotate(pose->rotation, p), pose->position);
}

/* The local point of world point p at pose. */
static inline sweep_vec3 sweep__pose_unapply(const sweep_mover_pose *pose, sweep_vec3 p)
{
    return sweep_quat_rotate(sweep_quat_conj(pose->rotation), sweep_v3_sub(p, pose->position));
}

#endif
