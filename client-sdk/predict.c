/*
 * predict.c - prediction, rewind and replay over the core (predict.h), the
 * movers a client follows through WorldState, and the map check against
 * Welcome.
 *
 * Comparisons are of bit patterns (memcmp of the doubles), never of values
 * within a tolerance: the whole point is that client and server compute the
 * same bits, and a tolerance would hide a map or build mismatch until it
 * grows into a visible desync.
 *
 * Mover poses seen so far are kept in a ring of SWEEP_PREDICT_HISTORY
 * ticks (slot = tick % SWEEP_PREDICT_HISTORY, each entry tagged with its
 * tick + 1 so that 0 means empty), so that the state of an answer computed
 * at tick T can be placed on its mover's pose of tick T. `latest` holds,
 * per mover, tick + 1 of the newest pose applied: a late UDP part never
 * moves a mover back, and "the predictor holds the poses of tick T" means
 * every mover's latest is T + 1.
 *
 * With every mover's path told too (WorldState.paths) the ring holds each
 * tick's states beside its poses, and a move given the tick it will meet
 * (sweep_predictor_step_at) is predicted against `sim`, the predictor's
 * own copy of the movers: put at the told state of the tick the state
 * before the move stands at (or the newest told tick before it), then run
 * on by sweep_movers_tick, the server's own tick, with the entity as its
 * one body, to the move's tick. `sim_tick` is the tick sim stands at, so
 * the next move of a run goes on from there when nothing newer was told.
 *
 * Errors follow libsweep's one convention (client.h): a sweep_client_status
 * and a sweep_client_error, kept in the predictor too; a status of the core
 * becomes SWEEP_CLIENT_E_ARG with the wire code the server answers the
 * same input with (core_error).
 *
 * Invariants: pending[0 .. count) are the moves sent and not yet answered,
 * in increasing sequence order, each with the state it predicted and the
 * pose of the mover that state stands on when it was computed (its
 * anchor) and the tick it was predicted at (0: against the newest poses);
 * `confirmed` is the state after the last answered move (or the spawn)
 * with the pose of its mover at the answer's tick, confirmed_tick that
 * tick (0: none yet); the current prediction is the last pending state as
 * predicted when it has a tick, else it (or `confirmed` when nothing is
 * pending) carried from its anchor to the mover's newest pose.
 */
#include "client-sdk/predict.h"

#include "core/stance.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/client_impl.h"
#include "core/quat.h"
#include "maps/content_hash.h"

struct sweep_predict_history {
    uint32_t count;          /* movers */
    uint64_t *latest;        /* [count] */
    uint64_t *tag;           /* [SWEEP_PREDICT_HISTORY * count] */
    sweep_mover_pose *poses; /* [SWEEP_PREDICT_HISTORY * count] */
    sweep_mover_state *states; /* [SWEEP_PREDICT_HISTORY * count], where stated */
    uint8_t *stated;           /* [SWEEP_PREDICT_HISTORY * count]: the entry came with its path */
};

/* Where a predicted state sits on the mover it stands on: that mover's
 * pose when the state was computed, so the state can be carried to the
 * mover's newer poses. */
typedef struct sweep_predict_anchor {
    int valid; /* 0: on no mover, or the pose is not known */
    sweep_mover_pose pose;
} sweep_predict_anchor;

typedef struct sweep_predict_pending {
    uint32_t sequence;
    sweep_wish wish; /* as sent: wished velocity and buttons */
    double dt;
    sweep_predict_state predicted;
    sweep_predict_anchor anchor;
    uint64_t tick;        /* the tick it was predicted at; 0: against the newest poses */
    uint32_t touch_mover; /* the first mover its move touched (TOUCH triggers), SWEEP_NO_MOVER if none */
} sweep_predict_pending;

struct sweep_predictor {
    const sweep_world *world; /* borrowed; outlives the predictor */
    sweep_config config;
    sweep_rules rules;        /* the map's movement rules */
    sweep_vec3 radii;
    sweep_predict_state confirmed;
    sweep_predict_anchor confirmed_anchor; /* the pose, at the answer's tick, of the mover it stands on */
    sweep_predict_pending *pending;
    uint32_t count, cap;
    /* Movers (sweep_predictor_set_movers); NULL = static world only. */
    sweep_movers *movers;     /* borrowed */
    const sweep_level *level; /* borrowed: the map the movers were built from (their ids) */
    uint64_t tick;            /* newest tick whose WorldState was applied */
    struct sweep_predict_history *history;
    sweep_movers *sim;        /* own: the movers run on to the ticks moves are predicted at */
    uint64_t sim_tick;        /* the tick sim stands at; 0: none */
    uint64_t confirmed_tick;  /* server_tick of the last answer taken; 0: none yet */
    uint32_t confirmed_touch; /* the first mover that answer's move touched */
    sweep_predict_counters counters;
    sweep_client_error last; /* the last call's outcome (sweep_predictor_last_error) */
};

/* Fills err (may be NULL) and returns s. */
static sweep_client_status say(sweep_client_error *err, sweep_client_status s, sweep_wire_code code,
                               const char *fmt, ...) SWEEP__PRINTF(4, 5);
static sweep_client_status say(sweep_client_error *err, sweep_client_status s, sweep_wire_code code,
                               const char *fmt, ...)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->status = s;
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return s;
}

static sweep_client_status ok(sweep_client_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    return SWEEP_CLIENT_OK;
}

/* A core status as libsweep's error: out of memory is NOMEM, anything
 * else an argument the core refused, with the code the server answers the
 * same input with (BadDt, BadNumber, ...; none for a bad level). */
static sweep_client_status core_error(sweep_client_error *err, sweep_status st, const char *what)
{
    if (st == SWEEP_OK)
        return ok(err);
    if (st == SWEEP_E_NOMEM)
        return say(err, SWEEP_CLIENT_E_NOMEM, SWEEP_WIRE_NONE, "%s: out of memory", what);
    sweep_wire_code code = sweep_wire_code_from_status(st);
    return say(err, SWEEP_CLIENT_E_ARG, code == SWEEP_WIRE_INTERNAL ? SWEEP_WIRE_NONE : code, "%s: %s (%s)", what,
               sweep_status_message(st), sweep_status_name(st));
}

/* The end of a public call on p that ran with err = &p->last. */
static sweep_client_status done(sweep_predictor *p, sweep_client_status s, sweep_client_error *err)
{
    if (s == SWEEP_CLIENT_OK)
        memset(&p->last, 0, sizeof p->last);
    if (err)
        *err = p->last;
    return s;
}

sweep_predict_state sweep_predict_state_at(sweep_vec3 position)
{
    sweep_predict_state s;
    memset(&s, 0, sizeof s);
    s.position = position;
    s.ground_mover = SWEEP_NO_MOVER;
    return s;
}

sweep_client_status sweep_predictor_create(const sweep_world *world, const sweep_config *cfg,
                                           const sweep_rules *rules, sweep_vec3 position, sweep_vec3 radii,
                                           sweep_predictor **out, sweep_client_error *err)
{
    if (out)
        *out = NULL;
    if (world == NULL || cfg == NULL || rules == NULL || out == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "a predictor needs a world, config, rules and output");
    sweep_predictor *p = calloc(1, sizeof *p);
    if (p == NULL)
        return say(err, SWEEP_CLIENT_E_NOMEM, SWEEP_WIRE_NONE, "out of memory");
    p->world = world;
    p->config = *cfg;
    p->rules = *rules;
    p->radii = radii;
    p->confirmed = sweep_predict_state_at(position);
    p->confirmed_touch = SWEEP_NO_MOVER;
    *out = p;
    return ok(err);
}

static void free_history(struct sweep_predict_history *h)
{
    if (h == NULL)
        return;
    free(h->latest);
    free(h->tag);
    free(h->poses);
    free(h->states);
    free(h->stated);
    free(h);
}

static sweep_client_status set_movers(sweep_predictor *p, sweep_movers *mv, const sweep_level *lv,
                                      sweep_client_error *err)
{
    struct sweep_predict_history *h = NULL;
    sweep_movers *sim = NULL;
    if (mv != NULL) {
        if (lv == NULL)
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                       "movers need the level they were built from (their ids)");
        uint32_t n = sweep_movers_count(mv);
        if (n != lv->mover_count)
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                       "the movers (%u) were not built from this level (%u movers)", n, lv->mover_count);
        h = calloc(1, sizeof *h);
        size_t slots = (size_t)SWEEP_PREDICT_HISTORY * n;
        if (h == NULL || (n && ((h->latest = calloc(n, sizeof *h->latest)) == NULL ||
                                (h->tag = calloc(slots, sizeof *h->tag)) == NULL ||
                                (h->poses = calloc(slots, sizeof *h->poses)) == NULL ||
                                (h->states = calloc(slots, sizeof *h->states)) == NULL ||
                                (h->stated = calloc(slots, sizeof *h->stated)) == NULL))) {
            free_history(h);
            return say(err, SWEEP_CLIENT_E_NOMEM, SWEEP_WIRE_NONE, "out of memory for the movers' pose history");
        }
        h->count = n;
        sweep_client_status st = sweep_predict_build_movers(lv, sweep_movers_tick_rate(mv), &sim, err);
        if (st != SWEEP_CLIENT_OK) {
            free_history(h);
            return st;
        }
    }
    free_history(p->history);
    sweep_movers_destroy(p->sim);
    p->history = h;
    p->sim = sim;
    p->sim_tick = 0;
    p->movers = mv;
    p->level = mv ? lv : NULL;
    p->tick = 0;
    /* Anchors were poses of other movers (or none): start afresh. */
    p->confirmed_anchor.valid = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        p->pending[i].anchor.valid = 0;
        p->pending[i].tick = 0;
    }
    return ok(err);
}

sweep_client_status sweep_predictor_set_movers(sweep_predictor *p, sweep_movers *mv, const sweep_level *lv,
                                               sweep_client_error *err)
{
    if (p == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no predictor");
    return done(p, set_movers(p, mv, lv, &p->last), err);
}

void sweep_predictor_destroy(sweep_predictor *p)
{
    if (p == NULL)
        return;
    free(p->pending);
    free_history(p->history);
    sweep_movers_destroy(p->sim);
    free(p);
}

/* --- the server's rule for one move ---------------------------------------------- */

sweep_client_status sweep_predict_run(const sweep_world *world, const sweep_movers *mv, const sweep_config *cfg,
                                      const sweep_rules *rules, sweep_vec3 radii, sweep_predict_state *s,
                                      const sweep_wish *wish, double dt, sweep_act_result *out,
                                      sweep_client_error *err)
{
    if (world == NULL || cfg == NULL || rules == NULL || s == NULL || wish == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "a move needs a world, config, rules, state and wish");
    /* The server refuses a wish too long to measure before the rules see
     * it (its length would be infinite): so does the prediction, with the
     * code the server gives. One with a NaN or infinity is the core's. */
    if (sweep_v3_isfinite(wish->velocity) && !isfinite(sweep_v3_dot(wish->velocity, wish->velocity)))
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_BAD_VELOCITY,
                   "the wish is too long to measure (the server refuses it)");
    /* No crowd: other players are not predicted (see the file comment). */
    sweep_space space = {.world = world, .movers = mv, .crowd = NULL, .self = SWEEP_NO_BODY};
    sweep_actor a = {
        .position = s->position, .velocity = s->velocity, .grounded = s->grounded != 0, .stance = s->stance};
    sweep_act_result r;
    sweep_status st = sweep_act(&space, cfg, rules, radii, &a, wish, dt, &r);
    if (st != SWEEP_OK)
        return core_error(err, st, "the move");
    /* The server refuses a move that would end beyond the coordinate
     * limit (from there every later move would be refused), and the
     * entity stays: so does the prediction. */
    if (!sweep_config_contains(cfg, a.position))
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_BAD_POSITION,
                   "the move would end beyond the world limit of %g (the server refuses it)", cfg->max_coordinate);
    s->position = a.position;
    s->velocity = a.velocity;
    s->grounded = a.grounded != 0;
    s->stance = a.stance;
    s->ground_mover = r.move.ground_mover;
    if (out)
        *out = r;
    return ok(err);
}

sweep_predict_state sweep_predict_server_start(const sweep_predict_state *before, const sweep_msg_move_result *r)
{
    /* No state before: an entity as spawned at the origin (predict.h). */
    sweep_predict_state s = before ? *before : sweep_predict_state_at(sweep_v3(0.0, 0.0, 0.0));
    if (r && r->has_start_position)
        s.position = r->start_position;
    return s;
}

static int same_bits(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

int sweep_predict_state_equal(const sweep_predict_state *s, const sweep_msg_move_result *r)
{
    if (s == NULL || r == NULL)
        return 0;
    return same_bits(s->position, r->position) && same_bits(s->velocity, r->velocity) &&
           (s->grounded != 0) == (r->grounded != 0) && (s->stance != 0) == (r->crouched != 0);
}

/* --- movers of the map -------------------------------------------------------------- */

sweep_client_status sweep_predict_build_movers(const sweep_level *lv, double tick_rate, sweep_movers **out,
                                               sweep_client_error *err)
{
    if (lv == NULL || out == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no level or output");
    if (lv->mover_count > 0 && lv->movers == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "the level counts %u movers but holds none",
                   lv->mover_count);
    if (tick_rate == 0.0)
        tick_rate = lv->tick_rate;
    if (!(tick_rate >= 1.0 && tick_rate <= 10000.0))
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "tick rate %g is not in [1, 10000]", tick_rate);
    sweep_mover_desc *d = NULL;
    if (lv->mover_count && (d = calloc(lv->mover_count, sizeof *d)) == NULL)
        return say(err, SWEEP_CLIENT_E_NOMEM, SWEEP_WIRE_NONE, "out of memory");
    for (uint32_t i = 0; i < lv->mover_count; i++)
        d[i] = sweep_level_mover_desc(lv, i);
    sweep_status st = sweep_movers_create(d, lv->mover_count, tick_rate, lv->triangle_count, out);
    free(d);
    return core_error(err, st, "the map's movers");
}

/* The index of mover id in lv, trying `hint` first: a WorldState lists its
 * movers in map order, so the next one is usually the next index. */
static uint32_t find_mover(const sweep_level *lv, uint32_t id, uint32_t hint)
{
    if (id == 0)
        return SWEEP_NO_MOVER;
    if (hint < lv->mover_count && lv->movers[hint].id == id)
        return hint;
    /* Levels keep movers in id order; a hand-made one may not. */
    uint32_t lo = 0, hi = lv->mover_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lv->movers[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < lv->mover_count && lv->movers[lo].id == id)
        return lo;
    for (uint32_t i = 0; i < lv->mover_count; i++)
        if (lv->movers[i].id == id)
            return i;
    return SWEEP_NO_MOVER;
}

/* A level that counts movers it does not hold has none to find. */
uint32_t sweep_predict_mover_index(const sweep_level *lv, uint32_t id)
{
    return lv && lv->movers ? find_mover(lv, id, id - 1) : SWEEP_NO_MOVER;
}

uint32_t sweep_predict_mover_id(const sweep_level *lv, uint32_t i)
{
    return lv && lv->movers && i < lv->mover_count ? lv->movers[i].id : 0;
}

static sweep_mover_pose wire_pose(const sweep_wire_mover *w)
{
    sweep_mover_pose pose;
    pose.position = w->position;
    pose.rotation = (sweep_quat){w->rotation[0], w->rotation[1], w->rotation[2], w->rotation[3]};
    return pose;
}

/* Where a mover is on its path (WorldState.paths), as the core keeps it. */
static sweep_mover_state wire_path(const sweep_wire_mover *w)
{
    sweep_mover_state s = {.path_tick = w->path_tick, .dir = w->dir, .wait = w->wait, .flags = w->flags};
    return s;
}

/* Checks every mover of ws against lv and mv before anything is set, so
 * that a bad WorldState changes nothing. */
static sweep_client_status check_world_state(const sweep_movers *mv, const sweep_level *lv,
                                             const sweep_msg_world_state *ws, sweep_client_error *err)
{
    if (mv == NULL || lv == NULL || ws == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no movers, level or WorldState");
    if (lv->mover_count > 0 && lv->movers == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "the level counts %u movers but holds none",
                   lv->mover_count);
    if (sweep_movers_count(mv) != lv->mover_count)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                   "the movers (%u) were not built from this level (%u movers)", sweep_movers_count(mv),
                   lv->mover_count);
    if (ws->count > 0 && ws->movers == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "the WorldState says %u movers but holds none",
                   ws->count);
    if (ws->path_count != 0 && ws->path_count != ws->count)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                   "WorldState of tick %llu holds %u mover paths for %u movers (every mover's or none)",
                   (unsigned long long)ws->tick, ws->path_count, ws->count);
    uint32_t at = 0;
    for (uint32_t j = 0; j < ws->count; j++) {
        const sweep_wire_mover *w = &ws->movers[j];
        uint32_t i = find_mover(lv, w->id, at);
        if (i == SWEEP_NO_MOVER)
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                       "WorldState of tick %llu names mover id %u, which the map '%s' does not have",
                       (unsigned long long)ws->tick, w->id, lv->name);
        sweep_mover_pose pose = wire_pose(w);
        if (!sweep_v3_isfinite(pose.position) || !sweep_quat_isfinite(pose.rotation))
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_BAD_NUMBER,
                       "WorldState of tick %llu: mover id %u has a non-finite pose", (unsigned long long)ws->tick,
                       w->id);
        /* Its riders go where it goes: no server puts it past the map. */
        if (!sweep_config_contains(&lv->config, pose.position))
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                       "WorldState of tick %llu: mover id %u is at (%g, %g, %g), past the map's coordinate limit %g",
                       (unsigned long long)ws->tick, w->id, pose.position.x, pose.position.y, pose.position.z,
                       lv->config.max_coordinate);
        if (fabs(sweep_quat_dot(pose.rotation, pose.rotation) - 1.0) > 1e-6)
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                       "WorldState of tick %llu: mover id %u has a rotation that is not a unit quaternion",
                       (unsigned long long)ws->tick, w->id);
        sweep_mover_state path = wire_path(w);
        if (ws->path_count && !sweep_movers_state_valid(mv, i, &path))
            return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                       "WorldState of tick %llu: mover id %u is at path tick %u, direction %d, waiting %u ticks, "
                       "where the map's mover cannot be",
                       (unsigned long long)ws->tick, w->id, w->path_tick, w->dir, w->wait);
        at = i + 1;
    }
    return ok(err);
}

sweep_client_status sweep_predict_apply_world_state(sweep_movers *mv, const sweep_level *lv,
                                                    const sweep_msg_world_state *ws, sweep_client_error *err)
{
    sweep_client_status st = check_world_state(mv, lv, ws, err);
    if (st != SWEEP_CLIENT_OK)
        return st;
    uint32_t at = 0;
    for (uint32_t j = 0; j < ws->count; j++) {
        uint32_t i = find_mover(lv, ws->movers[j].id, at);
        sweep_mover_pose pose = wire_pose(&ws->movers[j]);
        (void)sweep_movers_set_pose(mv, i, &pose); /* checked above: cannot fail */
        at = i + 1;
    }
    return ok(err);
}

/* The pose of mover m at tick, from the history; 0 if not known. */
static int pose_at(const struct sweep_predict_history *h, uint32_t m, uint64_t tick, sweep_mover_pose *out)
{
    if (h == NULL || m >= h->count)
        return 0;
    size_t k = (size_t)(tick % SWEEP_PREDICT_HISTORY) * h->count + m;
    if (h->tag[k] != tick + 1)
        return 0;
    *out = h->poses[k];
    return 1;
}

/* 1 if the movers are at their poses of `tick` (all of them: a lost UDP
 * part leaves one behind), or there are none to be at. */
static int holds_tick(const sweep_predictor *p, uint64_t tick)
{
    if (p->movers == NULL || p->history == NULL)
        return 1;
    for (uint32_t m = 0; m < p->history->count; m++)
        if (p->history->latest[m] != tick + 1)
            return 0;
    return 1;
}

static sweep_client_status world_state(sweep_predictor *p, const sweep_msg_world_state *ws, sweep_client_error *err)
{
    if (p->movers == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE,
                   "the predictor has no movers (sweep_predictor_set_movers)");
    sweep_client_status st = check_world_state(p->movers, p->level, ws, err);
    if (st != SWEEP_CLIENT_OK)
        return st;
    struct sweep_predict_history *h = p->history;
    uint32_t at = 0;
    for (uint32_t j = 0; j < ws->count; j++) {
        uint32_t i = find_mover(p->level, ws->movers[j].id, at);
        at = i + 1;
        if (h->latest[i] > ws->tick + 1)
            continue; /* a late datagram: the mover is already further on */
        sweep_mover_pose pose = wire_pose(&ws->movers[j]);
        (void)sweep_movers_set_pose(p->movers, i, &pose);
        h->latest[i] = ws->tick + 1;
        size_t k = (size_t)(ws->tick % SWEEP_PREDICT_HISTORY) * h->count + i;
        h->tag[k] = ws->tick + 1;
        h->poses[k] = pose;
        h->stated[k] = ws->path_count != 0;
        h->states[k] = wire_path(&ws->movers[j]);
    }
    if (ws->tick > p->tick)
        p->tick = ws->tick;
    p->counters.world_states++;
    return ok(err);
}

sweep_client_status sweep_predictor_world_state(sweep_predictor *p, const sweep_msg_world_state *ws,
                                                sweep_client_error *err)
{
    if (p == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no predictor");
    return done(p, world_state(p, ws, &p->last), err);
}

/* --- carrying riders ------------------------------------------------------------------ */

/* The anchor of a state just computed against the current poses of mv
 * (the told movers, or sim). */
static sweep_predict_anchor anchor_in(const sweep_movers *mv, const sweep_predict_state *s)
{
    sweep_predict_anchor a = {0};
    if (mv && s->ground_mover < sweep_movers_count(mv)) {
        sweep_movers_get(mv, s->ground_mover, &a.pose, NULL);
        a.valid = 1;
    }
    return a;
}

/* Carries s, which stands on its ground mover at the anchor's pose, to
 * that mover's current pose: the same place on the mover, as the server's
 * tick carries a rider (core/push.c: cur * prev^-1 applied to the body).
 * Returns 1 if it moved. */
static int carry(const sweep_predictor *p, sweep_predict_state *s, const sweep_predict_anchor *a)
{
    if (!a->valid || p->movers == NULL || s->ground_mover >= sweep_movers_count(p->movers))
        return 0;
    sweep_mover_pose now;
    sweep_movers_get(p->movers, s->ground_mover, &now, NULL);
    if (memcmp(&now, &a->pose, sizeof now) == 0)
        return 0;
    sweep_vec3 local = sweep_quat_rotate(sweep_quat_conj(a->pose.rotation), sweep_v3_sub(s->position, a->pose.position));
    sweep_vec3 to = sweep_v3_add(sweep_quat_rotate(now.rotation, local), now.position);
    /* Past the coordinate limit the server's tick does not carry a rider
     * (it blocks the mover, core/push.c): nor does the prediction. */
    if (!sweep_config_contains(&p->config, to))
        return 0;
    s->position = to;
    return 1;
}

/* The newest predicted state and its anchor (not carried). */
static void last_state(const sweep_predictor *p, sweep_predict_state *s, sweep_predict_anchor *a)
{
    if (p->count) {
        *s = p->pending[p->count - 1].predicted;
        *a = p->pending[p->count - 1].anchor;
    } else {
        *s = p->confirmed;
        *a = p->confirmed_anchor;
    }
}

sweep_predict_state sweep_predictor_current(const sweep_predictor *p)
{
    if (p == NULL)
        return sweep_predict_state_at(sweep_v3(0.0, 0.0, 0.0));
    sweep_predict_state s;
    sweep_predict_anchor a;
    last_state(p, &s, &a);
    /* A state predicted at the tick its move meets is already where the
     * movers will have put it then. */
    if (p->count == 0 || p->pending[p->count - 1].tick == 0)
        carry(p, &s, &a);
    return s;
}

/* --- the movers run on to a move's tick ------------------------------------------------ */

/* 1 if the history holds every mover's pose and path of tick t. */
static int told_whole(const sweep_predictor *p, uint64_t t)
{
    const struct sweep_predict_history *h = p->history;
    if (h == NULL || p->sim == NULL)
        return 0;
    for (uint32_t m = 0; m < h->count; m++) {
        size_t k = (size_t)(t % SWEEP_PREDICT_HISTORY) * h->count + m;
        if (h->tag[k] != t + 1 || !h->stated[k])
            return 0;
    }
    return 1;
}

/* Puts sim at the told poses and paths of tick t (told_whole). */
static void sim_set(sweep_predictor *p, uint64_t t)
{
    const struct sweep_predict_history *h = p->history;
    for (uint32_t m = 0; m < h->count; m++) {
        size_t k = (size_t)(t % SWEEP_PREDICT_HISTORY) * h->count + m;
        (void)sweep_movers_set_pose(p->sim, m, &h->poses[k]);   /* checked when told */
        (void)sweep_movers_set_state(p->sim, m, &h->states[k]); /* the same */
    }
    p->sim_tick = t;
}

/* Runs sim on to tick e with the server's tick, the entity in state s
 * (touching mover `touch` in its last move) its one body, as the server's
 * ticks carry and push it between two of its moves; s NULL: no body.
 * Returns 1 if a tick moved the body. */
static int sim_run(sweep_predictor *p, uint64_t e, sweep_predict_state *s, uint32_t touch)
{
    int moved = 0;
    for (; p->sim_tick < e; p->sim_tick++) {
        sweep_body b = {.position = s ? s->position : sweep_v3(0, 0, 0),
                        .radii = p->radii,
                        .ground_mover = s ? s->ground_mover : SWEEP_NO_MOVER,
                        .touch_mover = touch,
                        .flags = 0,
                        .mover = SWEEP_NO_MOVER};
        /* It cannot fail: the config is the map's, checked when built. */
        (void)sweep_movers_tick(p->sim, p->world, &p->config, &b, s ? 1u : 0u, NULL);
        if (s && (b.flags & (SWEEP_BODY_CARRIED | SWEEP_BODY_PUSHED))) {
            s->position = b.position;
            moved = 1;
        }
        p->counters.sim_ticks++;
    }
    return moved;
}

/* Puts sim at tick b, where a state stands whose move was applied at b:
 * at the told state of b; else where sim already is, if that is b; else at
 * the newest tick before b told whole, run on to b without the body (what
 * the ticks before its move did to it is in the state already). 0 if none
 * of that can be. */
static int sim_at(sweep_predictor *p, uint64_t b)
{
    if (told_whole(p, b)) {
        sim_set(p, b);
        return 1;
    }
    if (b != 0 && p->sim_tick == b)
        return 1;
    for (uint64_t t = b; t > 0 && b - t < SWEEP_PREDICT_HISTORY - 1; t--) {
        if (told_whole(p, t - 1)) {
            sim_set(p, t - 1);
            sim_run(p, b, NULL, SWEEP_NO_MOVER);
            return 1;
        }
    }
    return 0;
}

/* What a move starts from: the state before it, its anchor, the tick the
 * move that left it there was applied at (0: not known) and the mover that
 * move touched. */
typedef struct sweep_predict_from {
    sweep_predict_state s;
    sweep_predict_anchor a;
    uint64_t tick;
    uint32_t touch;
} sweep_predict_from;

/* What pending[i] starts from. */
static sweep_predict_from from_before(const sweep_predictor *p, uint32_t i)
{
    sweep_predict_from f;
    if (i) {
        const sweep_predict_pending *e = &p->pending[i - 1];
        f.s = e->predicted, f.a = e->anchor, f.tick = e->tick, f.touch = e->touch_mover;
    } else {
        f.s = p->confirmed, f.a = p->confirmed_anchor, f.tick = p->confirmed_tick, f.touch = p->confirmed_touch;
    }
    return f;
}

/* Readies the movers for a move at tick `at` after f: sim at f's tick (f's
 * tick not known: at the newest tick told whole, f carried there with the
 * mover it stands on), then run on to `at` carrying or pushing f's body.
 * Returns the tick the move is predicted at (`at`, or f's tick if that is
 * later: the server applies moves in order), or 0 when sim cannot be put
 * anywhere (no paths told, or none within the history): the move is then
 * predicted against the newest poses, f carried to them. *carried: the
 * state moved. */
static uint64_t ready(sweep_predictor *p, sweep_predict_from *f, uint64_t at, int *carried)
{
    *carried = 0;
    uint64_t b = f->tick;
    if (at != 0 && b == 0 && told_whole(p, p->tick)) {
        b = p->tick;
        *carried = carry(p, &f->s, &f->a);
        sim_set(p, b);
    } else if (at == 0 || b == 0 || !sim_at(p, b)) {
        *carried = carry(p, &f->s, &f->a);
        return 0;
    }
    if (at < b)
        at = b;
    *carried |= sim_run(p, at, &f->s, f->touch);
    return at;
}

/* The first mover among a result's contacts, as the server keeps it for
 * TOUCH triggers. */
static uint32_t first_touch(const sweep_move_result *r)
{
    for (uint32_t i = 0; i < r->contact_count; i++)
        if (r->contacts[i].mover != SWEEP_NO_MOVER)
            return r->contacts[i].mover;
    return SWEEP_NO_MOVER;
}

/* The answers about no predictor (predict.h): an entity as spawned at the
 * origin, nothing pending, no tick, no counts, and as its last error the
 * one every call on it gives. */
sweep_predict_state sweep_predictor_confirmed(const sweep_predictor *p)
{
    return p ? p->confirmed : sweep_predict_state_at(sweep_v3(0.0, 0.0, 0.0));
}

uint32_t sweep_predictor_pending(const sweep_predictor *p)
{
    return p ? p->count : 0;
}

uint64_t sweep_predictor_tick(const sweep_predictor *p)
{
    return p ? p->tick : 0;
}

void sweep_predictor_get_counters(const sweep_predictor *p, sweep_predict_counters *out)
{
    if (out == NULL)
        return;
    if (p)
        *out = p->counters;
    else
        memset(out, 0, sizeof *out);
}

static const sweep_client_error no_predictor = {
    .status = SWEEP_CLIENT_E_ARG, .code = SWEEP_WIRE_NONE, .message = "no predictor"};

const sweep_client_error *sweep_predictor_last_error(const sweep_predictor *p)
{
    return p ? &p->last : &no_predictor;
}

/* --- prediction and reconciliation -------------------------------------------------- */

static sweep_client_status step(sweep_predictor *p, uint32_t sequence, const sweep_wish *wish, double dt,
                                 uint64_t at, sweep_act_result *out, sweep_client_error *err)
{
    if (wish == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no wish");
    if (p->count == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 64;
        sweep_predict_pending *n = realloc(p->pending, (size_t)cap * sizeof *n);
        if (n == NULL)
            return say(err, SWEEP_CLIENT_E_NOMEM, SWEEP_WIRE_NONE, "out of memory");
        p->pending = n;
        p->cap = cap;
    }
    sweep_predict_from f = from_before(p, p->count);
    int carried;
    uint64_t tick = ready(p, &f, at, &carried);
    const sweep_movers *mv = tick ? p->sim : p->movers;
    sweep_act_result r;
    sweep_client_status st = sweep_predict_run(p->world, mv, &p->config, &p->rules, p->radii, &f.s, wish, dt, &r,
                                               err);
    if (st != SWEEP_CLIENT_OK)
        return st;
    p->counters.carries += carried;
    sweep_predict_pending *e = &p->pending[p->count++];
    e->sequence = sequence;
    e->wish = *wish;
    e->dt = dt;
    e->predicted = f.s;
    e->anchor = anchor_in(mv, &f.s);
    e->tick = tick;
    e->touch_mover = first_touch(&r.move);
    p->counters.predicted_moves++;
    p->counters.projected += tick != 0;
    if (out)
        *out = r;
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep_predictor_step(sweep_predictor *p, uint32_t sequence, const sweep_wish *wish, double dt,
                                         sweep_act_result *out, sweep_client_error *err)
{
    if (p == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no predictor");
    return done(p, step(p, sequence, wish, dt, 0, out, &p->last), err);
}

sweep_client_status sweep_predictor_step_at(sweep_predictor *p, uint32_t sequence, const sweep_wish *wish, double dt,
                                            uint64_t tick, sweep_act_result *out, sweep_client_error *err)
{
    if (p == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no predictor");
    return done(p, step(p, sequence, wish, dt, tick, out, &p->last), err);
}

/* Recomputes pending[from ..) on top of pending[from - 1] (or `confirmed`),
 * each as it was first predicted: at its tick, among the movers run on to
 * it (ready), or, predicted against the newest poses, carried first to the
 * movers' current poses (the server starts a move where its ticks left the
 * entity, and the current poses are the client's best knowledge of where
 * they did). A move the core now refuses (it cannot, with the same inputs,
 * but a rewind may have moved the body somewhere odd) keeps the state
 * unchanged, as the server's Error would. */
static uint32_t replay(sweep_predictor *p, uint32_t from)
{
    for (uint32_t i = from; i < p->count; i++) {
        sweep_predict_pending *e = &p->pending[i];
        sweep_predict_from f = from_before(p, i);
        int carried;
        uint64_t tick = ready(p, &f, e->tick, &carried);
        const sweep_movers *mv = tick ? p->sim : p->movers;
        sweep_act_result r;
        if (sweep_predict_run(p->world, mv, &p->config, &p->rules, p->radii, &f.s, &e->wish, e->dt, &r, NULL) ==
            SWEEP_CLIENT_OK)
            e->touch_mover = first_touch(&r.move);
        p->counters.carries += carried;
        e->predicted = f.s;
        e->anchor = anchor_in(mv, &f.s);
        e->tick = tick;
    }
    p->counters.replayed_moves += p->count - from;
    return p->count - from;
}

/* Index of the pending move numbered seq, or count if none. */
static uint32_t find(const sweep_predictor *p, uint32_t seq)
{
    for (uint32_t i = 0; i < p->count; i++)
        if (p->pending[i].sequence == seq)
            return i;
    return p->count;
}

/* Drops pending[0 .. n). */
static void drop_front(sweep_predictor *p, uint32_t n)
{
    assert(n <= p->count);
    memmove(p->pending, p->pending + n, (size_t)(p->count - n) * sizeof *p->pending);
    p->count -= n;
}

/* The ack's shift: where the current prediction is now against where it
 * was before the answer (zero bits when nothing moved it). */
static void measure_shift(const sweep_predictor *p, sweep_vec3 before, sweep_predict_ack *a)
{
    a->shift = sweep_v3_sub(sweep_predictor_current(p).position, before);
    a->shift_len = sweep_v3_len(a->shift);
}

/* Is r an answer a server of this map could give? Its numbers become the
 * confirmed state every later prediction starts from, so one NaN or a
 * place past the map's limit (a corrupted or hostile peer) would spoil
 * them all: refused by name instead, and nothing changes. */
/* Whether the server granted the move less time than it asked: named
 * TimeBudget, or not where a stall of the network explains the cut (then
 * only time_excess says so). */
static int cut_by_budget(const sweep_msg_move_result *r)
{
    return (r->rules & SWEEP_WIRE_RULE_TIME_BUDGET) || r->time_excess > 0.0;
}

static sweep_client_status check_answer(sweep_predictor *p, const sweep_msg_move_result *r)
{
    const char *field = NULL, *kind = "place";
    sweep_vec3 v = {0, 0, 0};
    if (!sweep_v3_isfinite(r->position) || !sweep_config_contains(&p->config, r->position))
        field = "position", v = r->position;
    else if (!sweep_v3_isfinite(r->velocity))
        field = "velocity", kind = "velocity", v = r->velocity;
    else if (r->has_start_position &&
             (!sweep_v3_isfinite(r->start_position) || !sweep_config_contains(&p->config, r->start_position)))
        field = "start_position", v = r->start_position;
    if (field)
        return say(&p->last, SWEEP_CLIENT_E_PROTOCOL, SWEEP_WIRE_NONE,
                   "answer to move %u: %s (%g, %g, %g) is no %s a server of this map gives", r->sequence, field, v.x,
                   v.y, v.z, kind);
    if (r->contact_count > SWEEP_MAX_CONTACTS)
        return say(&p->last, SWEEP_CLIENT_E_PROTOCOL, SWEEP_WIRE_NONE,
                   "answer to move %u: %u contacts, more than the %u an answer holds", r->sequence, r->contact_count,
                   SWEEP_MAX_CONTACTS);
    if (cut_by_budget(r) && !(r->applied_dt >= 0.0 && r->applied_dt <= 1.0))
        return say(&p->last, SWEEP_CLIENT_E_PROTOCOL, SWEEP_WIRE_NONE,
                   "answer to move %u: applied_dt %g is outside [0, 1], the longest move", r->sequence, r->applied_dt);
    return SWEEP_CLIENT_OK;
}

sweep_client_status sweep_predictor_ack(sweep_predictor *p, const sweep_msg_move_result *r, sweep_predict_ack *info,
                                        sweep_client_error *err)
{
    sweep_predict_ack a = {0};
    if (p == NULL || r == NULL) {
        sweep_client_status s = say(p ? &p->last : err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no predictor or answer");
        return p ? done(p, s, err) : s;
    }
    sweep_client_status bad = check_answer(p, r);
    if (bad != SWEEP_CLIENT_OK) {
        if (info)
            *info = a;
        return done(p, bad, err);
    }
    sweep_vec3 before = sweep_predictor_current(p).position;
    uint32_t i = find(p, r->sequence);
    if (i < p->count) {
        a.found = 1;
        a.dropped = i;
        a.predicted_tick = p->pending[i].tick;
        p->counters.tick_misses += a.predicted_tick != 0 && a.predicted_tick != r->server_tick;
        a.moved = r->has_start_position;
        p->counters.moved_by_movers += a.moved;
        /* Moves before it are given up: their answers were lost (the
         * server applied them, and this answer is the state after them) or
         * they were (it did not, and this answer says where that left the
         * entity). Either way the answer is the truth; only when it differs
         * from the prediction must the later moves be replayed. */
        a.mismatch = !sweep_predict_state_equal(&p->pending[i].predicted, r);
        if (a.mismatch && holds_tick(p, r->server_tick)) {
            /* The same move from where the server started it, among the
             * poses it met, for the time it granted (when cut applied_dt,
             * and no step at all for none): a different answer here is a
             * real desync. */
            sweep_predict_state s = sweep_predict_server_start(&p->confirmed, r);
            double dt = p->pending[i].dt;
            int cut = cut_by_budget(r);
            if (cut)
                dt = r->applied_dt;
            a.rerun = 1;
            a.rerun_match = (cut && !(dt > 0) ? SWEEP_CLIENT_OK
                                             : sweep_predict_run(p->world, p->movers, &p->config, &p->rules, p->radii,
                                                                 &s, &p->pending[i].wish, dt, NULL, NULL)) ==
                                SWEEP_CLIENT_OK &&
                            sweep_predict_state_equal(&s, r);
            p->counters.reruns++;
            p->counters.rerun_matches += a.rerun_match;
        }
        p->confirmed.position = r->position;
        p->confirmed.velocity = r->velocity;
        p->confirmed.grounded = r->grounded;
        p->confirmed.stance = r->crouched ? SWEEP_STANCE_CROUCH : SWEEP_STANCE_STAND;
        p->confirmed.ground_mover = sweep_predict_mover_index(p->level, r->ground_mover);
        p->confirmed_anchor.valid = pose_at(p->history, p->confirmed.ground_mover, r->server_tick,
                                            &p->confirmed_anchor.pose);
        p->confirmed_tick = r->server_tick;
        p->confirmed_touch = SWEEP_NO_MOVER;
        for (uint32_t k = 0; k < r->contact_count && p->confirmed_touch == SWEEP_NO_MOVER; k++)
            p->confirmed_touch = sweep_movers_of_triangle(p->movers, r->contacts[k].triangle);
        drop_front(p, i + 1);
        if (a.mismatch) {
            p->counters.mismatches++;
            a.replayed = replay(p, 0);
        } else {
            p->counters.acks_matched++;
        }
        measure_shift(p, before, &a);
    }
    if (info)
        *info = a;
    return done(p, SWEEP_CLIENT_OK, err);
}

sweep_client_status sweep_predictor_reject(sweep_predictor *p, uint32_t sequence, sweep_predict_ack *info,
                                           sweep_client_error *err)
{
    sweep_predict_ack a = {0};
    if (p == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "no predictor");
    sweep_vec3 before = sweep_predictor_current(p).position;
    uint32_t i = find(p, sequence);
    if (i < p->count) {
        a.found = 1;
        a.mismatch = 1;
        memmove(p->pending + i, p->pending + i + 1, (size_t)(p->count - i - 1) * sizeof *p->pending);
        p->count--;
        p->counters.rejected++;
        a.replayed = replay(p, i);
        measure_shift(p, before, &a);
    }
    if (info)
        *info = a;
    return done(p, SWEEP_CLIENT_OK, err);
}

static sweep_client_status check_map(const sweep_client *c, const sweep_level *lv, sweep_client_error *err)
{
    sweep_content_hash h;
    if (lv == NULL || sweep_level_content_hash(lv, &h) != SWEEP_OK)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "cannot hash the local map");
    const sweep_client_welcome *w = sweep_client_get_welcome(c);
    if (w->map_hash_len == sizeof h.bytes && memcmp(w->map_hash, h.bytes, sizeof h.bytes) == 0)
        return ok(err);
    char local[2 * SWEEP_SHA256_SIZE + 1], remote[2 * 32 + 1];
    sweep_content_hash_hex(&h, local);
    for (uint32_t i = 0; i < w->map_hash_len; i++)
        snprintf(remote + 2 * i, 3, "%02x", w->map_hash[i]);
    remote[2 * w->map_hash_len] = '\0';
    return say(err, SWEEP_CLIENT_E_MAP_MISMATCH, SWEEP_WIRE_NONE, "server map '%.40s' hash %.64s, local map hash %.64s",
               w->map_name, remote, local);
}

sweep_client_status sweep_client_check_map(sweep_client *c, const sweep_level *lv, sweep_client_error *err)
{
    if (c == NULL)
        return say(err, SWEEP_CLIENT_E_ARG, SWEEP_WIRE_NONE, "NULL client");
    sweep_client_error e;
    sweep_client_status s = check_map(c, lv, &e);
    if (err)
        *err = e;
    return sweep__client_keep_error(c, s, &e);
}
