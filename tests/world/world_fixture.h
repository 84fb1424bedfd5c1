/*
 * world_fixture.h - the world library (server/world/world.h) driven the
 * way its callers drive it, with no transport: a world opened on the
 * sample arena, owners, decoded requests applied through a sink that
 * records everything it is handed, and ticks.
 *
 * The recording sink keeps a copy of every message (the library's
 * messages point into its own scratch and stack: an Error's text, a
 * MoveResultBatch's results, an EntityStates' entities, an
 * EntityCommandsResult's results, so they are copied before the request
 * returns), every applied move with its answer, the ids given, and, in
 * `calls`, the order the callbacks came in, one letter each:
 *   M message   v move   i entity_id   d dropped   t tick
 *   + entities(+1)   - entities(-1)   f mem_fits   r draw_id
 * so that a test can say what fired and in which order.
 *
 * Where the arena is: $SWEEP_BUILD_DIR/maps/arena.db if set, else two
 * levels above the test program (tests live in $(BUILD)/tests/world/),
 * where make builds it from maps/arena.sql before the tests.
 *
 * Header-only (static functions), as every test program is one .c file.
 */
#ifndef SWEEP_TESTS_WORLD_FIXTURE_H
#define SWEEP_TESTS_WORLD_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <libgen.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/encode.h"
#include "server/world/log.h"
#include "server/world/world.h"

#define WF_MAX_MSGS 16   /* messages one step of a test may cause */
#define WF_MAX_BATCH 16  /* results of one MoveResultBatch kept */
#define WF_MAX_MOVES 64  /* applied moves kept */
#define WF_MAX_IDS 64

typedef struct wf_msg {
    sweep__owner *to;
    sweep_message m; /* its pointers lead to text and batch below */
    char text[400];
    sweep_msg_move_result batch[WF_MAX_BATCH];
    sweep_wire_entity_state states[WF_MAX_BATCH];
    sweep_msg_entity_command_result commands[WF_MAX_BATCH]; /* an EntityCommandsResult's */
    char command_text[WF_MAX_BATCH][200];
} wf_msg;

typedef struct wf_rec {
    /* What the sink was handed since the last wf_clear. */
    char calls[256];     /* '~' last: more than it holds */
    size_t ncalls;
    wf_msg msgs[WF_MAX_MSGS];
    uint32_t nmsgs;
    sweep_msg_move moves[WF_MAX_MOVES];
    sweep_msg_move_result move_results[WF_MAX_MOVES];
    uint32_t nmoves;
    uint32_t ids[WF_MAX_IDS];
    uint32_t nids;
    int entities;        /* sum of the entities deltas */
    uint64_t last_tick;  /* what the tick callback said last */
    /* How the sink answers (kept across wf_clear). */
    int mem_full;        /* mem_fits says no */
    const char *mem_why; /* and why */
    uint32_t draw;       /* the state of draw_id's generator; 0: no draw_id at all */
} wf_rec;

static inline void wf_call(wf_rec *r, char c)
{
    /* A long run of ticks fills it: the end is marked, never compared equal. */
    if (r->ncalls + 2 >= sizeof r->calls) {
        r->calls[sizeof r->calls - 2] = '~';
        r->calls[sizeof r->calls - 1] = 0;
        return;
    }
    r->calls[r->ncalls++] = c;
    r->calls[r->ncalls] = 0;
}

static inline void wf_on_message(void *ctx, sweep__owner *to, const sweep_message *m)
{
    wf_rec *r = ctx;
    wf_call(r, 'M');
    assert_true(r->nmsgs < WF_MAX_MSGS);
    wf_msg *c = &r->msgs[r->nmsgs++];
    c->to = to;
    c->m = *m;
    if (m->kind == SWEEP_MSG_ERROR) {
        assert_non_null(m->as.error.message.ptr);
        assert_true(m->as.error.message.len < sizeof c->text);
        memcpy(c->text, m->as.error.message.ptr, m->as.error.message.len);
        c->text[m->as.error.message.len] = 0;
        c->m.as.error.message.ptr = c->text;
    } else if (m->kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
        assert_true(m->as.move_result_batch.count <= WF_MAX_BATCH);
        memcpy(c->batch, m->as.move_result_batch.results, m->as.move_result_batch.count * sizeof c->batch[0]);
        c->m.as.move_result_batch.results = c->batch;
    } else if (m->kind == SWEEP_MSG_ENTITY_STATES) {
        assert_true(m->as.entity_states.count <= WF_MAX_BATCH);
        memcpy(c->states, m->as.entity_states.entities, m->as.entity_states.count * sizeof c->states[0]);
        c->m.as.entity_states.entities = c->states;
    } else if (m->kind == SWEEP_MSG_ENTITY_COMMANDS_RESULT) {
        const sweep_msg_entity_commands_result *er = &m->as.entity_commands_result;
        assert_true(er->count <= WF_MAX_BATCH);
        for (uint32_t i = 0; i < er->count; i++) {
            c->commands[i] = er->results[i];
            sweep_str t = er->results[i].message;
            assert_true(t.len < sizeof c->command_text[i]);
            if (t.len)
                memcpy(c->command_text[i], t.ptr, t.len);
            c->command_text[i][t.len] = 0;
            c->commands[i].message.ptr = c->command_text[i];
        }
        c->m.as.entity_commands_result.results = c->commands;
    }
}

static inline void wf_on_move(void *ctx, const sweep__owner *o, const sweep_msg_move *mv, const sweep_msg_move_result *res)
{
    (void)o;
    wf_rec *r = ctx;
    wf_call(r, 'v');
    assert_true(r->nmoves < WF_MAX_MOVES);
    r->moves[r->nmoves] = *mv;
    r->move_results[r->nmoves++] = *res;
}

static inline void wf_on_entity_id(void *ctx, uint32_t id)
{
    wf_rec *r = ctx;
    wf_call(r, 'i');
    assert_true(r->nids < WF_MAX_IDS);
    r->ids[r->nids++] = id;
}

static inline void wf_on_dropped(void *ctx)
{
    wf_call(ctx, 'd');
}

static inline void wf_on_tick(void *ctx, uint64_t tick)
{
    wf_rec *r = ctx;
    wf_call(r, 't');
    r->last_tick = tick;
}

static inline void wf_on_entities(void *ctx, int delta)
{
    wf_rec *r = ctx;
    assert_true(delta == 1 || delta == -1);
    wf_call(r, delta > 0 ? '+' : '-');
    r->entities += delta;
}

static inline int wf_on_mem_fits(void *ctx, size_t more, char *why, size_t whylen)
{
    wf_rec *r = ctx;
    wf_call(r, 'f');
    assert_true(more > 0);
    if (!r->mem_full)
        return 1;
    snprintf(why, whylen, "%s", r->mem_why);
    return 0;
}

/* A fixed sequence of non-zero ids (xorshift32), the same for every
 * recorder started from the same state: two worlds fed alike draw alike. */
static inline uint32_t wf_on_draw_id(void *ctx)
{
    wf_rec *r = ctx;
    wf_call(r, 'r');
    uint32_t x = r->draw;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->draw = x;
    return x;
}

static inline sweep__world_sink wf_sink(wf_rec *r)
{
    sweep__world_sink s = {wf_on_message, wf_on_move, wf_on_entity_id, wf_on_dropped, wf_on_tick,
                           wf_on_entities, wf_on_mem_fits, r->draw ? wf_on_draw_id : NULL, r};
    return s;
}

/* Forgets what was recorded; keeps how the sink answers. */
static inline void wf_clear(wf_rec *r)
{
    r->ncalls = 0;
    r->calls[0] = 0;
    r->nmsgs = 0;
    r->nmoves = 0;
    r->nids = 0;
    r->entities = 0;
}

static inline wf_rec *wf_rec_new(void)
{
    wf_rec *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->draw = 2463534242u;
    return r;
}

/* --- the world ------------------------------------------------------------ */

static inline const char *wf_arena(void)
{
    static char path[4200];
    const char *dir = getenv("SWEEP_BUILD_DIR");
    if (dir && *dir) {
        snprintf(path, sizeof path, "%s/maps/arena.db", dir);
        return path;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    snprintf(path, sizeof path, "%s/../../maps/arena.db", dirname(self));
    return path;
}

/* What sweepd runs a world with by default (server/options.c), with room
 * for a few entities per owner. */
static inline sweep__world_options wf_options(void)
{
    sweep__world_options o = {
        .tick_rate = 0, /* the map's: 60 */
        .time_bank = 0.25,
        .allow_free_move = 0,
        .players_block = 0,
        .max_entities = 8,
        .max_entities_server = 12,
        .max_batch = WF_MAX_BATCH,
        .server_role_possible = 1,
    };
    return o;
}

static inline sweep__world *wf_open(const sweep__world_options *opt)
{
    /* Rule lines and the like are the server's log, not the test's output. */
    sweep__log_set_level(SWEEP_LOG_ERROR);
    char err[600] = "";
    sweep__world *w = sweep__world_open(wf_arena(), opt, 0, err, sizeof err);
    if (!w)
        fail_msg("cannot open the arena at %s: %s", wf_arena(), err);
    assert_string_equal(w->level.name, "arena");
    return w;
}

/* An owner of w; role SWEEP_WIRE_ROLE_PLAYER or _SERVER, over UDP or not. */
static inline void wf_owner(sweep__owner *o, sweep__world *w, uint64_t id, uint32_t role, int udp)
{
    sweep__owner_init(o, w, id, role, udp, w->opt.max_batch, "tester", 6, 0);
}

/* What most tests start from: a world on the arena, a recorder, one owner
 * and, once spawned, its entity. */
typedef struct wf_one {
    sweep__world *w;
    wf_rec *r;
    sweep__owner o;
    sweep_msg_spawned sp;
} wf_one;

static inline void wf_one_open(wf_one *s, const sweep__world_options *opt, uint32_t role, int udp)
{
    memset(s, 0, sizeof *s);
    s->w = wf_open(opt);
    s->r = wf_rec_new();
    wf_owner(&s->o, s->w, 1, role, udp);
}

static inline void wf_one_close(wf_one *s)
{
    sweep__owner_release(&s->o, NULL);
    sweep__world_close(s->w);
    free(s->r);
}

/* Applies one request of o; ids (may be NULL) are the ids a Spawn gives. */
static inline void wf_request_ids(sweep__world *w, sweep__owner *o, wf_rec *r, const sweep_message *m, const uint32_t *ids,
                           uint32_t id_count)
{
    sweep__world_sink sink = wf_sink(r);
    sweep__request rq = {o, &sink, 0, ids, id_count};
    sweep__world_request(w, &rq, m);
    sweep__world_check(w);
}

static inline void wf_request(sweep__world *w, sweep__owner *o, wf_rec *r, const sweep_message *m)
{
    wf_request_ids(w, o, r, m, NULL, 0);
}

static inline void wf_ticks(sweep__world *w, wf_rec *r, unsigned n)
{
    sweep__world_sink sink = wf_sink(r);
    for (unsigned i = 0; i < n; i++)
        sweep__world_tick(w, &sink);
}

/* --- requests ----------------------------------------------------------- */

static inline sweep_message wf_spawn_msg(uint32_t sequence)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_SPAWN;
    m.sequence = sequence;
    return m;
}

/* A Spawn of the server role at a position of its choosing. */
static inline sweep_message wf_spawn_at(uint32_t sequence, double x, double y, double z)
{
    sweep_message m = wf_spawn_msg(sequence);
    m.as.spawn.position = sweep_v3(x, y, z);
    return m;
}

static inline sweep_message wf_move_msg(uint32_t entity, uint32_t sequence, sweep_vec3 velocity, double dt)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE;
    m.sequence = sequence;
    m.as.move.entity = entity;
    m.as.move.sequence = sequence;
    m.as.move.velocity = velocity;
    m.as.move.dt = dt;
    m.as.move.mode = SWEEP_WIRE_MODE_WALK;
    return m;
}

static inline sweep_message wf_despawn_msg(uint32_t entity, uint32_t sequence)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_DESPAWN;
    m.sequence = sequence;
    m.as.despawn.entity = entity;
    return m;
}

/* --- what came back ------------------------------------------------------- */

/* The one message the last step caused, of that kind. */
static inline const sweep_message *wf_only(const wf_rec *r, sweep_msg_kind kind)
{
    if (r->nmsgs != 1)
        fail_msg("expected one message, got %u (calls %s)", r->nmsgs, r->calls);
    const sweep_message *m = &r->msgs[0].m;
    if (m->kind != kind)
        fail_msg("expected %s, got %s%s%s", sweep_msg_kind_name(kind), sweep_msg_kind_name(m->kind),
                 m->kind == SWEEP_MSG_ERROR ? ": " : "", m->kind == SWEEP_MSG_ERROR ? r->msgs[0].text : "");
    return m;
}

/* The one Error the last step caused, of that code, for that sequence: its text. */
static inline const char *wf_error(const wf_rec *r, sweep_wire_code code, uint32_t sequence)
{
    const sweep_message *m = wf_only(r, SWEEP_MSG_ERROR);
    if (m->as.error.code != code)
        fail_msg("expected Error %s, got %s: %s", sweep_wire_code_name(code), sweep_wire_code_name(m->as.error.code),
                 r->msgs[0].text);
    assert_int_equal(m->as.error.sequence, sequence);
    assert_int_equal(m->sequence, sequence);
    return r->msgs[0].text;
}

/* Spawns a player at the server's choice and returns the Spawned. */
static inline sweep_msg_spawned wf_spawn(sweep__world *w, sweep__owner *o, wf_rec *r, uint32_t sequence)
{
    wf_clear(r);
    sweep_message m = wf_spawn_msg(sequence);
    wf_request(w, o, r, &m);
    return wf_only(r, SWEEP_MSG_SPAWNED)->as.spawned;
}

/* Spawns at the map's spawn point n, which either role may name. */
static inline sweep_msg_spawned wf_spawn_point(sweep__world *w, sweep__owner *o, wf_rec *r, uint32_t sequence,
                                               uint32_t n)
{
    wf_clear(r);
    sweep_message m = wf_spawn_msg(sequence);
    m.as.spawn.spawn_point = n;
    wf_request(w, o, r, &m);
    return wf_only(r, SWEEP_MSG_SPAWNED)->as.spawned;
}

/* A Spawn of o at (x, y, z) with the map's radii, Spawn.player as given
 * (the server role: a relayed player); returns the entity's id. */
static inline uint32_t wf_spawn_at_id(sweep__world *w, sweep__owner *o, wf_rec *r, uint32_t sequence, double x,
                                      double y, double z, int player)
{
    sweep_message m = wf_spawn_at(sequence, x, y, z);
    m.as.spawn.player = player != 0;
    wf_clear(r);
    wf_request(w, o, r, &m);
    const sweep_message *sp = wf_only(r, SWEEP_MSG_SPAWNED);
    assert_non_null(sp);
    return sp->as.spawned.entity;
}

/* wf_one_open, and the owner's entity spawned at the map's first point. */
static inline void wf_one_spawned(wf_one *s, const sweep__world_options *opt, uint32_t role)
{
    wf_one_open(s, opt, role, 0);
    s->sp = wf_spawn_point(s->w, &s->o, s->r, 1, 1);
}

/* Moves and returns the MoveResult. */
static inline sweep_msg_move_result wf_move(sweep__world *w, sweep__owner *o, wf_rec *r, const sweep_message *m)
{
    wf_clear(r);
    wf_request(w, o, r, m);
    return wf_only(r, SWEEP_MSG_MOVE_RESULT)->as.move_result;
}

/* The bytes a client would receive for m (TCP frame): what "the same
 * answer" means on the wire. Returns the length; the bytes are copied to out. */
static inline size_t wf_encode(const sweep_message *m, uint8_t *out, size_t cap)
{
    static uint8_t buf[1u << 16];
    const uint8_t *p;
    size_t n;
    assert_int_equal(sweep_encode(m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &p, &n), SWEEP_PROTO_OK);
    assert_true(n <= cap);
    memcpy(out, p, n);
    return n;
}

#endif
