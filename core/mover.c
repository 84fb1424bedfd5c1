/*
 * mover.c - mover descriptions, paths and the per-tick state machine (see
 * mover.h for the rules; push.c carries and pushes bodies).
 *
 * Path time is counted in whole ticks. A path of T seconds lasts
 * ceil(T * tick_rate) ticks; the pose at path tick s is the keyframe path at
 * s / tick_rate seconds, and at the last tick exactly the last keyframe.
 * Waits are whole ticks too, rounded to nearest. These are the only places a
 * double meets a tick count, and both are computed once, at creation.
 *
 * Invariants (asserted in checked builds: core/check.h):
 *   - A mover's state is always one its machine can reach
 *     (sweep__mover_state_ok, mover_impl.h): the machine keeps it so from
 *     the idle start, and push.c's blocked rules only restore an earlier
 *     state or turn one round at the same place.
 *   - A path pose's rotation is unit within UNIT_TOLERANCE, the tolerance
 *     every keyframe passed (sweep_mover_desc_check): the ends are
 *     keyframes, anything between is normalised by nlerp. Poses put from
 *     outside (sweep_movers_set_pose) are only known to be finite.
 *   - Between two keyframes the interpolation fraction u is at least 0,
 *     and at most 1 while the tick's time is before the later keyframe;
 *     on the last stretch s / tick_rate may round past the last keyframe
 *     by an ulp, and u past 1 by that ulp over the stretch's length (nlerp
 *     takes such a u as 1, and the position lies as little beyond the
 *     last keyframe's).
 */
#include "core/mover_impl.h"

#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/hash.h"

#define COORD_LIMIT 1e7
#define UNIT_TOLERANCE 1e-6

static const char *const mode_names[] = {"once", "loop", "pingpong"};
static const char *const trigger_names[] = {"always", "volume", "touch", "command"};
static const char *const blocked_names[] = {"stop", "reverse", "crush"};

const char *sweep_mover_mode_name(sweep_mover_mode m)
{
    return (unsigned)m < SWEEP_MOVER_MODE_COUNT ? mode_names[m] : NULL;
}

const char *sweep_mover_trigger_name(sweep_mover_trigger t)
{
    return (unsigned)t < SWEEP_TRIGGER_COUNT ? trigger_names[t] : NULL;
}

const char *sweep_mover_blocked_name(sweep_mover_blocked b)
{
    return (unsigned)b < SWEEP_BLOCKED_COUNT ? blocked_names[b] : NULL;
}

static const char *const problem_texts[SWEEP_MOVER_PROBLEM_COUNT] = {
    [SWEEP_MOVER_FINE] = "the mover is valid",
    [SWEEP_MOVER_NO_TRIANGLES] = "the mover has no triangles that are not degenerate",
    [SWEEP_MOVER_TOO_MANY_TRIANGLES] = "the mover has more than 65536 triangles",
    [SWEEP_MOVER_BAD_VERTEX] = "a mover vertex is not finite or lies beyond 1e7",
    [SWEEP_MOVER_BAD_INDEX] = "a mover triangle names a vertex that does not exist",
    [SWEEP_MOVER_FEW_KEYFRAMES] = "a mover path needs 2 to 4096 keyframes",
    [SWEEP_MOVER_FIRST_TIME] = "the first keyframe's time must be 0",
    [SWEEP_MOVER_TIME_ORDER] = "keyframe times must increase strictly and stay within 86400 s",
    [SWEEP_MOVER_BAD_POSITION] = "a keyframe position is not finite or lies beyond 1e7",
    [SWEEP_MOVER_NOT_UNIT] = "a keyframe rotation is not a unit quaternion",
    [SWEEP_MOVER_BAD_MODE] = "unknown mover mode (once, loop, pingpong)",
    [SWEEP_MOVER_BAD_TRIGGER] = "unknown mover trigger (always, volume, touch, command)",
    [SWEEP_MOVER_BAD_BLOCKED] = "unknown blocked rule (stop, reverse, crush)",
    [SWEEP_MOVER_BAD_WAIT] = "a wait must be a finite number of seconds in [0, 86400]",
    [SWEEP_MOVER_BAD_VOLUME] = "a volume trigger needs a finite box with min below max",
    [SWEEP_MOVER_OPEN_LOOP] = "a loop path must end at the pose it starts from",
};

const char *sweep_mover_problem_text(sweep_mover_problem p)
{
    return (unsigned)p < SWEEP_MOVER_PROBLEM_COUNT ? problem_texts[p] : "unknown mover problem";
}

static int within(sweep_vec3 v)
{
    return sweep_v3_isfinite(v) && fabs(v.x) <= COORD_LIMIT && fabs(v.y) <= COORD_LIMIT &&
           fabs(v.z) <= COORD_LIMIT;
}

static int pose_equal(const sweep_mover_pose *a, const sweep_mover_pose *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static sweep_mover_problem fail(uint32_t *at, uint32_t where, sweep_mover_problem p)
{
    if (at)
        *at = where;
    return p;
}

sweep_mover_problem sweep_mover_desc_check(const sweep_mover_desc *d, uint32_t *at)
{
    if (at)
        *at = 0;
    if (!d)
        return SWEEP_MOVER_NO_TRIANGLES; /* no description: nothing to collide with */
    if ((unsigned)d->mode >= SWEEP_MOVER_MODE_COUNT)
        return SWEEP_MOVER_BAD_MODE;
    if ((unsigned)d->trigger >= SWEEP_TRIGGER_COUNT)
        return SWEEP_MOVER_BAD_TRIGGER;
    if ((unsigned)d->blocked >= SWEEP_BLOCKED_COUNT)
        return SWEEP_MOVER_BAD_BLOCKED;
    if (!(d->wait_start >= 0.0 && d->wait_start <= SWEEP_MOVER_MAX_SECONDS) ||
        !(d->wait_end >= 0.0 && d->wait_end <= SWEEP_MOVER_MAX_SECONDS))
        return SWEEP_MOVER_BAD_WAIT;
    if (d->trigger == SWEEP_TRIGGER_VOLUME &&
        !(within(d->volume_min) && within(d->volume_max) && d->volume_min.x < d->volume_max.x &&
          d->volume_min.y < d->volume_max.y && d->volume_min.z < d->volume_max.z))
        return SWEEP_MOVER_BAD_VOLUME;
    if (d->triangle_count > SWEEP_MOVER_MAX_TRIANGLES)
        return SWEEP_MOVER_TOO_MANY_TRIANGLES;
    /* The vertices are read for their count even with no triangle. */
    if ((d->triangle_count > 0 && !d->indices) || ((d->triangle_count > 0 || d->vertex_count > 0) && !d->vertices))
        return SWEEP_MOVER_NO_TRIANGLES;
    for (uint32_t i = 0; i < d->vertex_count; i++)
        if (!within(d->vertices[i]))
            return fail(at, i, SWEEP_MOVER_BAD_VERTEX);
    uint32_t usable = 0;
    for (uint32_t t = 0; t < d->triangle_count; t++) {
        const uint32_t *ix = &d->indices[3 * (size_t)t];
        if (ix[0] >= d->vertex_count || ix[1] >= d->vertex_count || ix[2] >= d->vertex_count)
            return fail(at, t, SWEEP_MOVER_BAD_INDEX);
        if (!sweep_triangle_is_degenerate(d->vertices[ix[0]], d->vertices[ix[1]], d->vertices[ix[2]]))
            usable++;
    }
    if (usable == 0)
        return SWEEP_MOVER_NO_TRIANGLES;
    if (d->key_count < 2 || d->key_count > SWEEP_MOVER_MAX_KEYFRAMES || !d->keys)
        return SWEEP_MOVER_FEW_KEYFRAMES;
    for (uint32_t k = 0; k < d->key_count; k++) {
        const sweep_keyframe *kf = &d->keys[k];
        if (!isfinite(kf->time) || (k == 0 && kf->time != 0.0))
            return fail(at, k, k == 0 ? SWEEP_MOVER_FIRST_TIME : SWEEP_MOVER_TIME_ORDER);
        if (k > 0 && !(kf->time > d->keys[k - 1].time && kf->time <= SWEEP_MOVER_MAX_SECONDS))
            return fail(at, k, SWEEP_MOVER_TIME_ORDER);
        if (!within(kf->pose.position))
            return fail(at, k, SWEEP_MOVER_BAD_POSITION);
        sweep_quat q = kf->pose.rotation;
        if (!sweep_quat_isfinite(q) || !(fabs(sweep_quat_dot(q, q) - 1.0) <= UNIT_TOLERANCE))
            return fail(at, k, SWEEP_MOVER_NOT_UNIT);
    }
    if (d->mode == SWEEP_MOVER_LOOP) {
        const sweep_mover_pose *a = &d->keys[0].pose, *b = &d->keys[d->key_count - 1].pose;
        int same_turn = sweep_quat_dot(a->rotation, b->rotation) >= 1.0 - UNIT_TOLERANCE ||
                        sweep_quat_dot(a->rotation, b->rotation) <= -1.0 + UNIT_TOLERANCE;
        if (sweep_v3_len2(sweep_v3_sub(a->position, b->position)) != 0.0 || !same_turn)
            return fail(at, d->key_count - 1, SWEEP_MOVER_OPEN_LOOP);
    }
    return SWEEP_MOVER_FINE;
}

/* Whole ticks for a span of seconds: ceil for the path (so the last tick
 * reaches the end), nearest for waits. */
static uint32_t ticks_ceil(double seconds, double rate)
{
    double x = seconds * rate;
    uint32_t n = (uint32_t)x;
    return (double)n < x ? n + 1 : n;
}

static uint32_t ticks_round(double seconds, double rate)
{
    return (uint32_t)(seconds * rate + 0.5);
}

/* A point placed at a pose whose rotation is the identity (a lift's, a
 * door's): sweep__pose_apply's rotation then only adds zeros to p, so
 * p + position has its bits wherever the sum is not zero; a zero's sign
 * may depend on those zeros, so a point placed on a coordinate plane
 * takes the whole formula. Placing the sample arena's lifts and doors
 * cost about 300 instructions a move of its replayed sessions with the
 * rotation, 215 without. */
static inline sweep_vec3 place_point(const sweep_mover_pose *pose, int translation, sweep_vec3 p)
{
    if (translation) {
        sweep_vec3 r = sweep_v3_add(p, pose->position);
        if (r.x != 0.0 && r.y != 0.0 && r.z != 0.0)
            return r;
    }
    return sweep__pose_apply(pose, p);
}

void sweep__mover_place(const sweep__mover *m, const sweep_mover_pose *pose, sweep__tri *out, sweep_vec3 *lo,
                        sweep_vec3 *hi)
{
    sweep_vec3 l = sweep_v3(INFINITY, INFINITY, INFINITY), h = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
    const sweep_quat q = pose->rotation;
    const int translation = q.x == 0.0 && q.y == 0.0 && q.z == 0.0 && q.w == 1.0;
    for (uint32_t i = 0; i < m->tri_count; i++) {
        const sweep__tri *s = &m->local[i];
        sweep__tri *t = &out[i];
        t->a = place_point(pose, translation, s->a);
        t->b = place_point(pose, translation, s->b);
        t->c = place_point(pose, translation, s->c);
        t->index = s->index;
        t->material = s->material;
        l = sweep_v3_min(l, sweep_v3_min(t->a, sweep_v3_min(t->b, t->c)));
        h = sweep_v3_max(h, sweep_v3_max(t->a, sweep_v3_max(t->b, t->c)));
    }
    *lo = l, *hi = h;
}

/* The ball round m's local triangles: centred on their box, its radius
 * the farthest corner's distance, grown by 2^-30 of itself and of the
 * centre's size, far beyond the rounding of a rotation and a move. */
static void local_ball(sweep__mover *m)
{
    sweep_vec3 lo = sweep_v3(INFINITY, INFINITY, INFINITY), hi = sweep_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < m->tri_count; i++) {
        const sweep__tri *t = &m->local[i];
        lo = sweep_v3_min(lo, sweep_v3_min(t->a, sweep_v3_min(t->b, t->c)));
        hi = sweep_v3_max(hi, sweep_v3_max(t->a, sweep_v3_max(t->b, t->c)));
    }
    m->local_center = m->tri_count ? sweep_v3_scale(sweep_v3_add(lo, hi), 0.5) : sweep_v3(0, 0, 0);
    double r2 = 0.0;
    for (uint32_t i = 0; i < m->tri_count; i++) {
        const sweep__tri *t = &m->local[i];
        sweep_vec3 v[3] = {t->a, t->b, t->c};
        for (int k = 0; k < 3; k++) {
            double d2 = sweep_v3_len2(sweep_v3_sub(v[k], m->local_center));
            r2 = d2 > r2 ? d2 : r2;
        }
    }
    double size = fabs(m->local_center.x) + fabs(m->local_center.y) + fabs(m->local_center.z);
    m->local_radius = sqrt(r2) * (1.0 + 0x1p-30) + size * 0x1p-30;
}

static void free_mover(sweep__mover *m)
{
    free(m->keys);
    free(m->local);
    free(m->cur);
    free(m->prev);
}

void sweep_movers_destroy(sweep_movers *mv)
{
    if (!mv)
        return;
    for (uint32_t i = 0; i < mv->count; i++)
        free_mover(&mv->m[i]);
    free(mv->m);
    free(mv->scratch);
    free(mv);
}

sweep_status sweep_movers_create(const sweep_mover_desc *descs, uint32_t count, double tick_rate,
                                 uint32_t first_triangle, sweep_movers **out)
{
    if (!out || (count > 0 && !descs))
        return SWEEP_E_ARG;
    if (!(tick_rate >= 1.0 && tick_rate <= 10000.0))
        return SWEEP_E_CONFIG;
    uint64_t total = first_triangle;
    for (uint32_t i = 0; i < count; i++) {
        if (sweep_mover_desc_check(&descs[i], NULL) != SWEEP_MOVER_FINE)
            return SWEEP_E_GEOMETRY;
        total += descs[i].triangle_count;
    }
    if (total > SWEEP_WORLD_MAX_TRIANGLES)
        return SWEEP_E_GEOMETRY;
    sweep_movers *mv = calloc(1, sizeof *mv);
    if (!mv)
        return SWEEP_E_NOMEM;
    mv->tick_rate = tick_rate;
    mv->first_triangle = first_triangle;
    mv->end_triangle = (uint32_t)total;
    if (count && !(mv->m = calloc(count, sizeof *mv->m))) {
        free(mv);
        return SWEEP_E_NOMEM;
    }
    uint32_t next = first_triangle;
    for (uint32_t i = 0; i < count; i++) {
        const sweep_mover_desc *d = &descs[i];
        sweep__mover *m = &mv->m[i];
        mv->count = i + 1; /* from here on destroy frees it */
        m->mode = d->mode, m->trigger = d->trigger, m->blocked = d->blocked;
        m->volume_min = d->volume_min, m->volume_max = d->volume_max;
        m->first_tri = next;
        m->described_tris = d->triangle_count;
        next += d->triangle_count;
        m->keys = malloc(d->key_count * sizeof *m->keys);
        m->local = malloc(d->triangle_count * sizeof *m->local);
        m->cur = malloc(d->triangle_count * sizeof *m->cur);
        m->prev = malloc(d->triangle_count * sizeof *m->prev);
        if (!m->keys || !m->local || !m->cur || !m->prev) {
            sweep_movers_destroy(mv);
            return SWEEP_E_NOMEM;
        }
        memcpy(m->keys, d->keys, d->key_count * sizeof *m->keys);
        m->key_count = d->key_count;
        for (uint32_t t = 0; t < d->triangle_count; t++) {
            const uint32_t *ix = &d->indices[3 * (size_t)t];
            sweep_vec3 a = d->vertices[ix[0]], b = d->vertices[ix[1]], c = d->vertices[ix[2]];
            if (sweep_triangle_is_degenerate(a, b, c))
                continue;
            sweep__tri *lt = &m->local[m->tri_count++];
            lt->a = a, lt->b = b, lt->c = c;
            lt->index = m->first_tri + t;
            lt->material = d->materials ? d->materials[t] : 0;
        }
        local_ball(m);
        m->path_ticks = ticks_ceil(d->keys[d->key_count - 1].time, tick_rate);
        if (m->path_ticks == 0)
            m->path_ticks = 1;
        m->wait_start_ticks = ticks_round(d->wait_start, tick_rate);
        m->wait_end_ticks = ticks_round(d->wait_end, tick_rate);
        m->pose = m->prev_pose = m->keys[0].pose;
        sweep__mover_place(m, &m->pose, m->cur, &m->cur_lo, &m->cur_hi);
        memcpy(m->prev, m->cur, m->tri_count * sizeof *m->cur);
        m->prev_lo = m->cur_lo, m->prev_hi = m->cur_hi;
        m->state.path_tick = 0;
        m->state.dir = 0;
        m->state.wait = 0;
        m->state.flags = 0;
    }
    *out = mv;
    return SWEEP_OK;
}

uint32_t sweep_movers_count(const sweep_movers *mv)
{
    return mv ? mv->count : 0;
}

uint64_t sweep_movers_tick_count(const sweep_movers *mv)
{
    return mv ? mv->tick : 0;
}

uint32_t sweep_movers_of_triangle(const sweep_movers *mv, uint32_t tri)
{
    if (!mv || tri < mv->first_triangle || tri >= mv->end_triangle)
        return SWEEP_NO_MOVER;
    uint32_t lo = 0, hi = mv->count; /* first mover whose range ends past tri */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (mv->m[mid].first_tri + mv->m[mid].described_tris <= tri)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < mv->count ? lo : SWEEP_NO_MOVER;
}

void sweep_movers_get(const sweep_movers *mv, uint32_t m, sweep_mover_pose *pose, sweep_mover_state *state)
{
    if (!mv || m >= mv->count)
        return;
    if (pose)
        *pose = mv->m[m].pose;
    if (state)
        *state = mv->m[m].state;
}

void sweep_movers_bounds(const sweep_movers *mv, uint32_t m, sweep_vec3 *lo, sweep_vec3 *hi)
{
    if (!mv || m >= mv->count)
        return;
    if (lo)
        *lo = mv->m[m].cur_lo;
    if (hi)
        *hi = mv->m[m].cur_hi;
}

/* Makes the current placement the previous one (no copy when unchanged). */
static void keep_previous(sweep__mover *m)
{
    if (!pose_equal(&m->prev_pose, &m->pose)) {
        memcpy(m->prev, m->cur, m->tri_count * sizeof *m->cur);
        m->prev_lo = m->cur_lo, m->prev_hi = m->cur_hi;
        m->prev_pose = m->pose;
    }
}

/* Moves m to pose, keeping the old placement as the previous one. */
void sweep__mover_set(sweep__mover *m, const sweep_mover_pose *pose)
{
    keep_previous(m);
    if (!pose_equal(&m->pose, pose)) {
        m->pose = *pose;
        sweep__mover_place(m, pose, m->cur, &m->cur_lo, &m->cur_hi);
    }
}

void sweep__mover_undo(sweep__mover *m)
{
    if (!pose_equal(&m->prev_pose, &m->pose)) {
        memcpy(m->cur, m->prev, m->tri_count * sizeof *m->cur);
        m->cur_lo = m->prev_lo, m->cur_hi = m->prev_hi;
        m->pose = m->prev_pose;
    }
}

sweep_status sweep_movers_set_pose(sweep_movers *mv, uint32_t m, const sweep_mover_pose *pose)
{
    if (!mv || !pose || m >= mv->count)
        return SWEEP_E_ARG;
    if (!sweep_v3_isfinite(pose->position) || !sweep_quat_isfinite(pose->rotation))
        return SWEEP_E_NONFINITE;
    sweep__mover_set(&mv->m[m], pose);
    return SWEEP_OK;
}

int sweep_movers_state_valid(const sweep_movers *mv, uint32_t m, const sweep_mover_state *state)
{
    return mv && state && m < mv->count && sweep__mover_state_ok(&mv->m[m], *state);
}

sweep_status sweep_movers_set_state(sweep_movers *mv, uint32_t m, const sweep_mover_state *state)
{
    if (!sweep_movers_state_valid(mv, m, state))
        return SWEEP_E_ARG;
    mv->m[m].state = *state;
    mv->m[m].command = 0;
    return SWEEP_OK;
}

double sweep_movers_tick_rate(const sweep_movers *mv)
{
    return mv ? mv->tick_rate : 0.0;
}

static sweep_mover_pose path_pose(const sweep__mover *m, double tick_rate, uint32_t s)
{
    if (s >= m->path_ticks)
        return m->keys[m->key_count - 1].pose;
    if (s == 0)
        return m->keys[0].pose;
    double t = (double)s / tick_rate;
    uint32_t lo = 0, hi = m->key_count - 1; /* keys[lo].time <= t < keys[hi].time */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->keys[mid].time <= t)
            lo = mid;
        else
            hi = mid;
    }
    const sweep_keyframe *a = &m->keys[lo], *b = &m->keys[hi];
    double u = (t - a->time) / (b->time - a->time);
    sweep_mover_pose p;
    /* a + (b - a) u: a coordinate the two keyframes share stays exact. */
    p.position = sweep_v3_madd(a->pose.position, sweep_v3_sub(b->pose.position, a->pose.position), u);
    p.rotation = sweep_quat_nlerp(a->pose.rotation, b->pose.rotation, u);
    SWEEP_CORE_CHECK(u >= 0.0 && (u <= 1.0 || t > b->time));
    SWEEP_CORE_CHECK(fabs(sweep_quat_dot(p.rotation, p.rotation) - 1.0) <= UNIT_TOLERANCE);
    return p;
}

/* Neither has a status to return: a mover that does not exist has no
 * path, so no ticks, and the pose of no placement (mover.h). */
sweep_mover_pose sweep_movers_path_pose(const sweep_movers *mv, uint32_t m, uint32_t s)
{
    if (!mv || m >= mv->count) {
        sweep_mover_pose none = {sweep_v3(0, 0, 0), sweep_quat_identity()};
        return none;
    }
    return path_pose(&mv->m[m], mv->tick_rate, s);
}

uint32_t sweep_movers_path_ticks(const sweep_movers *mv, uint32_t m)
{
    return mv && m < mv->count ? mv->m[m].path_ticks : 0;
}

sweep_status sweep_movers_trigger(sweep_movers *mv, uint32_t m)
{
    if (!mv || m >= mv->count)
        return SWEEP_E_ARG;
    mv->m[m].command = 1;
    return SWEEP_OK;
}

/*
 * One tick of the state machine (mover.h): the next state of m given
 * whether its trigger fired. Pure: the caller decides whether to keep it.
 */
sweep_mover_state sweep__mover_next(const sweep__mover *m, int fired)
{
    SWEEP_CORE_CHECK(sweep__mover_state_ok(m, m->state));
    sweep_mover_state s = m->state;
    s.flags = fired ? SWEEP_MOVER_TRIGGERED : 0;
    int always = m->trigger == SWEEP_TRIGGER_ALWAYS;
    uint32_t end = m->path_ticks;
    if (s.wait > 0) {
        /* A door held open by its trigger keeps waiting. */
        if (fired && !always && s.path_tick == end && m->mode == SWEEP_MOVER_PINGPONG && s.dir < 0)
            s.wait = m->wait_end_ticks;
        else
            s.wait--;
        return s;
    }
    if (s.dir == 0) {
        if (!fired || (m->mode == SWEEP_MOVER_ONCE && s.path_tick == end))
            return s;
        s.dir = s.path_tick == end ? -1 : 1;
    } else if (s.dir < 0 && fired && !always && m->mode == SWEEP_MOVER_PINGPONG) {
        s.dir = 1; /* triggered while closing: open again */
    }
    if (s.dir > 0) {
        s.path_tick++;
        if (s.path_tick < end)
            return s;
        s.path_tick = end;
        switch (m->mode) {
        case SWEEP_MOVER_ONCE:
            s.dir = 0;
            break;
        case SWEEP_MOVER_PINGPONG:
            s.dir = -1;
            s.wait = m->wait_end_ticks;
            break;
        case SWEEP_MOVER_LOOP:
        default:
            s.path_tick = 0; /* the same pose: the path is closed */
            s.wait = m->wait_end_ticks;
            if (!always)
                s.dir = 0;
            break;
        }
        return s;
    }
    /* Back towards the start. */
    s.path_tick--;
    if (s.path_tick > 0)
        return s;
    if (m->mode == SWEEP_MOVER_LOOP) {
        s.path_tick = end; /* the same pose as 0 */
        s.wait = m->wait_start_ticks;
        if (!always)
            s.dir = 0;
    } else if (m->mode == SWEEP_MOVER_PINGPONG && always) {
        s.dir = 1;
        s.wait = m->wait_start_ticks;
    } else {
        s.dir = 0;
    }
    return s;
}

sweep_mover_pose sweep__mover_pose_of(const sweep_movers *mv, const sweep__mover *m, uint32_t path_tick)
{
    return path_pose(m, mv->tick_rate, path_tick);
}

uint64_t sweep_movers_hash(const sweep_movers *mv, uint64_t h)
{
    if (!mv)
        return h;
    h = sweep_hash_u64(h, mv->tick);
    for (uint32_t i = 0; i < mv->count; i++) {
        const sweep__mover *m = &mv->m[i];
        h = sweep_hash_u32(h, m->state.path_tick);
        h = sweep_hash_u32(h, (uint32_t)m->state.dir);
        h = sweep_hash_u32(h, m->state.wait);
        h = sweep_hash_u32(h, m->state.flags);
        h = sweep_hash_vec3(h, m->pose.position);
        h = sweep_hash_double(h, m->pose.rotation.x);
        h = sweep_hash_double(h, m->pose.rotation.y);
        h = sweep_hash_double(h, m->pose.rotation.z);
        h = sweep_hash_double(h, m->pose.rotation.w);
    }
    return h;
}
