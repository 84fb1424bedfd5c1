/*
 * replay_core.c - the core depth of a replay (replay.h): every move a log
 * answered is run again by the core alone, with the exact input sweepd
 * gave it, and what the core computes is compared with the recorded
 * MoveResult bit for bit.
 *
 * The input of a move is rebuilt from the log as server/world/moves.c builds it
 * (its top comment is the order of operations followed here, step 6 and
 * 7): the entity's actor is where its last applied move left it (position,
 * velocity, grounded), or its Spawned place at rest for its first move,
 * with the position the movers' ticks gave it since; the wish is the
 * Move's velocity and jump button; the time is what the server granted
 * (MoveResult.applied_dt: the time budget is the server's business, not
 * the core's). The motion, what the entity keeps of it, what a tick
 * makes of it and the result's fields are the world library's own rules
 * (server/world/entity_motion.h: sweep__motion_run, sweep__entity_keep,
 * sweep__entity_body and _take_body, sweep__entity_result), run on the
 * same state the world keeps (sweep__entity_state), so no rule of a move
 * or a tick is written twice. Fields only the server decides (the claim
 * and its correction, the time budget's rules, time_excess, the Vertical
 * rule) are taken from the recorded answer, so only the core's fields can
 * differ, and a difference is named by replay.c exactly as the full depth
 * names it.
 *
 * The movers are built as server/world/world.c builds them and ticked at
 * each TICK record with the live entities as bodies, in spawn order, so each
 * move meets the movers at the poses the server's did, and the positions,
 * carries and pushes of the tick are this replay's own: a move after a
 * mover moved its entity is compared on its start_position and what moved
 * it too, and a crush on the Despawned the server sent.
 *
 * With --players-block on, a move also meets the other players' shells,
 * which the log does not hold between moves; such logs are refused at
 * open rather than half checked. Resent answers (a sequence already
 * applied) are not runs of the core and are skipped; moves answered with
 * an Error have no result and are counted.
 *
 * A version 2 log holds a MOVE record (server/record/record.h) for every move
 * the core ran and the server applied: its input (wish, buttons, mode,
 * granted time) and the core's output. There each MOVE is run from its
 * own input and what the core made of it compared with the record where
 * it lies, as the writer's image of it (server/record/record_move.h); the Move
 * and MoveResult are not decoded (of an answer only its kind is read),
 * unless the images differ: then the answer is decoded to name the field
 * as above, or, when it is the MOVE record alone that differs, the MOVE's
 * field ("MOVE.position.x"). Version 1 logs are checked on their
 * MoveResults as described above.
 *
 * Most requests of a version 2 log are moves answered with their results
 * and nothing else: those are run by a lean loop (sweep__replay_core_lean)
 * over the records where they lie in the log's frame, without reading
 * them into records and groups first; any request with anything else in
 * its group (a spawn, an Error, a Despawned, a MoverCommanded, an answer
 * to another session), a record that is not right, a group that reaches
 * the end of its frame, and a tick with anything after it in its frame go
 * through replay.c's records and groups to the code below, and so does a
 * failure found by the lean loop to be named: what a replay says is the
 * same either way. A TICK that ends its frame (nearly every one) the lean
 * loop runs itself (lean_tick). A Walk move granted time runs sweep_act
 * on the entity's own actor (run_checked); the other modes, and a move
 * watched by an observer, go through apply_move.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/replay_impl.h"
#include "core/motion.h"
#include "core/move.h"
#include "core/mover.h"
#include "maps/content_hash.h"
#include "maps/loader.h"
#include "protocol/decode.h"
#include "protocol/decode_checked.h"
#include "protocol/format.h"
#include "protocol/from_core.h"
#include "server/world/entity_motion.h"
#include "server/record/record_move.h"
#include "server/record/record_window.h"

/* What sweepd keeps of an entity for its motion (server_impl.h,
 * sweep__entity): what a move or a tick reads or writes. */
typedef struct core_entity {
    uint32_t id;
    uint64_t session;
    /* What a move and a tick read and write, as the world keeps it
     * (server/world/entity_motion.h): its actor, radii, and Fly and Noclip
     * limits from its Spawn (st.m, handed to sweep__motion_run where it
     * lies), its ground, the movers under and against it, and what the
     * ticks did to it since its last move. */
    sweep__entity_state st;
    int gone;                           /* removed, until the array is compacted */
} core_entity;

typedef struct core_session {
    uint64_t id;
    int tcp;
    unsigned role;        /* sweep_wire_role, as its OPEN said */
    uint32_t last_entity; /* index in ents of the entity its last MOVE moved: a guess, checked before use */
    /* UDP: the sequence of its last EntityCommands applied, whose repeat the
     * world answers again without applying (server/world/commands.c). */
    int has_commands;
    uint32_t commands_sequence;
} core_session;

/* Indices by id: open addressing, a power of two at least twice the
 * count; rebuilt whenever entries leave. */
typedef struct index_map {
    uint64_t *keys;
    uint32_t *slots; /* UINT32_MAX: empty */
    uint32_t cap;
} index_map;

/* A buffer of 8-byte words: messages are decoded from a copy aligned as
 * they were sent. */
typedef struct aligned_buf {
    uint64_t *words;
    size_t cap; /* in words */
} aligned_buf;

struct sweep__replay_core {
    sweep_level level;
    int level_loaded;
    sweep_world *world;
    sweep_content_hash hash;
    double tick_rate;
    sweep_movers *movers; /* NULL when the map has none, as on the server */
    sweep_space space;    /* the world and its movers, as every move meets them (no other players) */
    uint64_t tick;
    core_entity *ents; /* in spawn order: the order the movers carry and push them in */
    uint32_t ent_count, ent_cap;
    index_map ent_index;
    core_session *sessions;
    uint32_t session_count, session_cap;
    index_map session_index;
    /* The lean loop's sessions by the low bits of their ids: a request a
     * move looks its session up; cleared whenever sessions move. */
    struct {
        uint64_t id;
        uint32_t slot; /* UINT32_MAX: empty */
    } session_cache[64];
    sweep_body *bodies;
    uint32_t body_cap;
    uint32_t *crushed; /* this tick's, as entity index and mover pairs */
    uint32_t crushed_cap;
    sweep_decoder dec_in, dec_out;
    aligned_buf in_buf, out_buf;
    uint64_t moves, outputs, refused;
    int compact; /* a version 2 log: moves checked on their MOVE records */
    unsigned lean_results; /* SWEEP__LEAN_RESULTS from version 5 (a lean group may hold RESULTS),
                            * SWEEP__LEAN_COMPACT from version 6 (its images compact) and
                            * SWEEP__LEAN_ANSWER from version 7 (ANSWERs), else 0 */
    size_t prefetched; /* lean_prefetch's place in the log */
    sweep_record *group; /* the lean loop's group, read again to name a failure */
    uint32_t group_cap;
    sweep__replay_core_observer observer;
    void (*ticked)(void *ctx);
    void *observer_ctx;
    sweep__replay_core_movers_observer movers_observer;
};

/* ---- ids to indices -------------------------------------------------------- */

static uint32_t map_hash_key(uint64_t key, uint32_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (uint32_t)key & (cap - 1);
}

static uint32_t map_get(const index_map *m, uint64_t key)
{
    if (!m->cap)
        return UINT32_MAX;
    for (uint32_t i = map_hash_key(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i] == UINT32_MAX)
            return UINT32_MAX;
        if (m->keys[i] == key)
            return m->slots[i];
    }
}

static void map_put(index_map *m, uint64_t key, uint32_t slot)
{
    uint32_t i = map_hash_key(key, m->cap);
    while (m->slots[i] != UINT32_MAX && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->slots[i] = slot;
}

/* Sizes the map for `count` entries and empties it. */
static int map_reset(index_map *m, uint32_t count)
{
    uint32_t cap = 16;
    while (cap < 2 * count + 2)
        cap *= 2;
    if (cap != m->cap) {
        uint64_t *k = realloc(m->keys, cap * sizeof *k);
        if (!k)
            return -1;
        m->keys = k;
        uint32_t *s = realloc(m->slots, cap * sizeof *s);
        if (!s)
            return -1;
        m->slots = s;
        m->cap = cap;
    }
    memset(m->slots, 0xff, m->cap * sizeof *m->slots);
    return 0;
}

static int rebuild_entities(sweep__replay_core *c)
{
    if (map_reset(&c->ent_index, c->ent_count) != 0)
        return -1;
    for (uint32_t i = 0; i < c->ent_count; i++)
        map_put(&c->ent_index, c->ents[i].id, i);
    return 0;
}

static int rebuild_sessions(sweep__replay_core *c)
{
    for (size_t i = 0; i < sizeof c->session_cache / sizeof c->session_cache[0]; i++)
        c->session_cache[i].slot = UINT32_MAX;
    if (map_reset(&c->session_index, c->session_count) != 0)
        return -1;
    for (uint32_t i = 0; i < c->session_count; i++)
        map_put(&c->session_index, c->sessions[i].id, i);
    return 0;
}

static core_entity *find_entity(sweep__replay_core *c, uint32_t id)
{
    uint32_t i = map_get(&c->ent_index, id);
    return i == UINT32_MAX || c->ents[i].gone ? NULL : &c->ents[i];
}

static core_session *find_session(sweep__replay_core *c, uint64_t id)
{
    uint32_t i = map_get(&c->session_index, id);
    return i == UINT32_MAX ? NULL : &c->sessions[i];
}

/* find_session through session_cache. */
static inline core_session *find_session_cached(sweep__replay_core *c, uint64_t id)
{
    size_t k = id & (sizeof c->session_cache / sizeof c->session_cache[0] - 1);
    if (c->session_cache[k].slot != UINT32_MAX && c->session_cache[k].id == id)
        return &c->sessions[c->session_cache[k].slot];
    core_session *s = find_session(c, id);
    if (s) {
        c->session_cache[k].id = id;
        c->session_cache[k].slot = (uint32_t)(s - c->sessions);
    }
    return s;
}

/* Takes out the entities marked gone, the others keeping their order (a
 * tick's outcome depends on it, as server/world/world.c says). */
static int compact_entities(sweep__replay_core *c)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->ent_count; i++)
        if (!c->ents[i].gone)
            c->ents[n++] = c->ents[i];
    if (n == c->ent_count)
        return 0;
    c->ent_count = n;
    return rebuild_entities(c);
}

/* ---- the map, the movers ---------------------------------------------------- */

static uint32_t mover_id(const sweep__replay_core *c, uint32_t index)
{
    return index < c->level.mover_count ? c->level.movers[index].id : 0;
}

static uint32_t mover_index(const sweep__replay_core *c, uint32_t id)
{
    for (uint32_t i = 0; id && i < c->level.mover_count; i++)
        if (c->level.movers[i].id == id)
            return i;
    return SWEEP_NO_MOVER;
}

sweep__replay_core *sweep__replay_core_open(const sweep_record_head *h, const char *map, char *err, size_t errlen)
{
    if (h->players_block) {
        /* Each move would meet the other players' shells where they stand
         * at that moment, and a refused spawn or a blocked walk depends on
         * them too: the core alone cannot be given that from the log. */
        snprintf(err, errlen, "core replay does not support logs recorded with --players-block on; use the full "
                              "replay");
        return NULL;
    }
    sweep__replay_core *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char msg[1024];
    if (sweep_map_load(map, &c->level, NULL, msg, sizeof msg) != SWEEP_OK) {
        snprintf(err, errlen, "cannot load the map: %s: %s", map, msg);
        sweep_level_free(&c->level);
        free(c);
        return NULL;
    }
    c->level_loaded = 1;
    if (sweep_map_build_world(&c->level, &c->world, NULL, msg, sizeof msg) != SWEEP_OK ||
        sweep_level_content_hash(&c->level, &c->hash) != SWEEP_OK) {
        snprintf(err, errlen, "cannot load the map: %s: %s", map, c->world ? "cannot hash the map" : msg);
        sweep__replay_core_close(c);
        return NULL;
    }
    /* The world's tick rate as sweepd chose it (server/world/world.c). */
    c->tick_rate = h->tick_rate > 0.0 ? h->tick_rate : c->level.tick_rate;
    if (!(c->tick_rate > 0.0) || c->tick_rate > 10000.0)
        c->tick_rate = 60.0;
    const sweep_level *lv = &c->level;
    if (lv->mover_count > 0) {
        if (c->tick_rate < 1.0) {
            snprintf(err, errlen, "cannot load the map: %s: the map has %u movers, which need at least 1 tick per "
                     "second (tick rate %g)", map, lv->mover_count, c->tick_rate);
            sweep__replay_core_close(c);
            return NULL;
        }
        sweep_mover_desc *d = calloc(lv->mover_count, sizeof *d);
        sweep_status st = SWEEP_E_ARG;
        if (d) {
            for (uint32_t i = 0; i < lv->mover_count; i++)
                d[i] = sweep_level_mover_desc(lv, i);
            /* Mover triangles numbered after the static ones, at the
             * world's own tick rate, as sweepd builds them. */
            st = sweep_movers_create(d, lv->mover_count, c->tick_rate, lv->triangle_count, &c->movers);
            free(d);
        }
        if (st != SWEEP_OK) {
            c->movers = NULL;
            snprintf(err, errlen, "cannot load the map: %s: cannot build the movers: %s", map,
                     d ? sweep_status_message(st) : "out of memory");
            sweep__replay_core_close(c);
            return NULL;
        }
    }
    c->space = (sweep_space){c->world, c->movers, NULL, SWEEP_NO_BODY};
    c->tick = h->first_tick;
    c->compact = h->version >= 2;
    c->lean_results = (h->version >= 5 ? SWEEP__LEAN_RESULTS : 0) |
                      (sweep__record_move_compact_in(h->version) ? SWEEP__LEAN_COMPACT : 0) |
                      (h->version >= 7 ? SWEEP__LEAN_ANSWER : 0);
    /* As replay.c sizes its decoders: a move takes at least 4 bytes. */
    uint32_t cap = h->max_frame / 4u + 1u;
    c->dec_in.moves = calloc(cap, sizeof *c->dec_in.moves);
    c->dec_in.moves_cap = cap;
    c->dec_out.results = calloc(cap, sizeof *c->dec_out.results);
    c->dec_out.results_cap = cap;
    c->dec_out.movers = calloc(lv->mover_count + 1, sizeof *c->dec_out.movers);
    c->dec_out.movers_cap = lv->mover_count + 1;
    /* EntityCommands, a batch as moves are; their results, to follow. */
    c->dec_in.commands = calloc(cap, sizeof *c->dec_in.commands);
    c->dec_in.commands_cap = cap;
    c->dec_out.command_results = calloc(cap, sizeof *c->dec_out.command_results);
    c->dec_out.command_results_cap = cap;
    /* Hit shapes of EntityCommands, and Queries and their answers, which
     * change nothing here but are read for their kind; as large as a
     * frame holds them. */
    uint32_t shapes_cap = h->max_frame / 80u + 1u, hits_cap = h->max_frame / 88u + 1u;
    c->dec_in.hit_shapes = calloc(shapes_cap, sizeof *c->dec_in.hit_shapes);
    c->dec_in.hit_shapes_cap = shapes_cap;
    c->dec_in.query_items = calloc(cap, sizeof *c->dec_in.query_items);
    c->dec_in.query_items_cap = cap;
    c->dec_in.query_ignore = calloc(cap, sizeof *c->dec_in.query_ignore);
    c->dec_in.query_ignore_cap = cap;
    c->dec_out.query_answers = calloc(cap, sizeof *c->dec_out.query_answers);
    c->dec_out.query_answers_cap = cap;
    c->dec_out.query_hits = calloc(hits_cap, sizeof *c->dec_out.query_hits);
    c->dec_out.query_hits_cap = hits_cap;
    if (!c->dec_in.moves || !c->dec_out.results || !c->dec_out.movers || !c->dec_in.commands ||
        !c->dec_out.command_results || !c->dec_in.hit_shapes || !c->dec_in.query_items || !c->dec_in.query_ignore ||
        !c->dec_out.query_answers || !c->dec_out.query_hits || rebuild_entities(c) != 0 ||
        rebuild_sessions(c) != 0) {
        snprintf(err, errlen, "out of memory");
        sweep__replay_core_close(c);
        return NULL;
    }
    return c;
}

void sweep__replay_core_close(sweep__replay_core *c)
{
    if (!c)
        return;
    sweep_movers_destroy(c->movers);
    if (c->world)
        sweep_world_destroy(c->world);
    if (c->level_loaded)
        sweep_level_free(&c->level);
    free(c->ents);
    free(c->ent_index.keys);
    free(c->ent_index.slots);
    free(c->sessions);
    free(c->session_index.keys);
    free(c->session_index.slots);
    free(c->bodies);
    free(c->crushed);
    free(c->group);
    free(c->dec_in.moves);
    free(c->dec_out.results);
    free(c->dec_out.movers);
    free(c->dec_in.commands);
    free(c->dec_out.command_results);
    free(c->dec_in.hit_shapes);
    free(c->dec_in.query_items);
    free(c->dec_in.query_ignore);
    free(c->dec_out.query_answers);
    free(c->dec_out.query_hits);
    free(c->in_buf.words);
    free(c->out_buf.words);
    free(c);
}

uint64_t sweep__replay_core_tick(const sweep__replay_core *c)
{
    return c->tick;
}

const uint8_t *sweep__replay_core_map_hash(const sweep__replay_core *c)
{
    return c->hash.bytes;
}

const sweep_level *sweep__replay_core_level(const sweep__replay_core *c)
{
    return &c->level;
}

int sweep__replay_core_mover_position(const sweep__replay_core *c, uint32_t index, double position[3])
{
    if (!c->movers || index >= c->level.mover_count)
        return -1;
    sweep_mover_pose pose;
    sweep_movers_get(c->movers, index, &pose, NULL);
    position[0] = pose.position.x;
    position[1] = pose.position.y;
    position[2] = pose.position.z;
    return 0;
}

void sweep__replay_core_observe_movers(sweep__replay_core *c, const sweep__replay_core_movers_observer *o)
{
    if (o)
        c->movers_observer = *o;
    else
        memset(&c->movers_observer, 0, sizeof c->movers_observer);
}

void sweep__replay_core_observe(sweep__replay_core *c, sweep__replay_core_observer fn, void (*ticked)(void *ctx),
                                void *ctx)
{
    c->observer = fn;
    c->ticked = ticked;
    c->observer_ctx = ctx;
}

void sweep__replay_core_counts(const sweep__replay_core *c, uint64_t *moves, uint64_t *outputs, uint64_t *refused)
{
    *moves = c->moves;
    *outputs = c->outputs;
    *refused = c->refused;
}

/* ---- reading messages ------------------------------------------------------- */

static int align_copy(aligned_buf *b, const sweep_record_bytes *bytes)
{
    size_t words = ((size_t)bytes->len + 7) / 8;
    if (words > b->cap) {
        uint64_t *n = realloc(b->words, words * 8);
        if (!n)
            return -1;
        b->words = n;
        b->cap = words;
    }
    memcpy(b->words, bytes->ptr, bytes->len);
    return 0;
}

static int decode(const sweep_decoder *d, aligned_buf *b, const sweep_record_bytes *bytes, int tcp, sweep_message *m)
{
    if (align_copy(b, bytes) != 0)
        return -1;
    return sweep_decode(d, b->words, bytes->len, tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0, m) == SWEEP_PROTO_OK ? 0 : -1;
}

/* Most messages of a log are moves and their results, and all the core
 * depth reads of them is the moves or results: sweep_decode_motion
 * verifies as sweep_decode does but fills no whole sweep_message. Any
 * other kind (and everything when a watcher wants whole messages) is then
 * decoded in full into *m; *full says which was done. */
static int decode_motion(const sweep_decoder *d, aligned_buf *b, const sweep_record_bytes *bytes, int tcp,
                         int want_full, sweep_decoded_motion *v, sweep_message *m, int *full)
{
    unsigned flags = tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    /* A single Move or MoveResult is read in place, bounds-checked
     * (protocol/decode_checked.h); anything else, or one that reader
     * gives up on, verified from an aligned copy, whose error names what
     * is wrong. */
    if (!want_full && sweep__decode_motion_checked(d, bytes->ptr, bytes->len, flags, v) == SWEEP_PROTO_OK) {
        *full = 0;
        m->kind = v->kind;
        return 0;
    }
    if (align_copy(b, bytes) != 0 || sweep_decode_motion(d, b->words, bytes->len, flags, v) != SWEEP_PROTO_OK)
        return -1;
    *full = want_full || (v->move_count == 0 && v->result_count == 0);
    if (!*full) {
        m->kind = v->kind;
        return 0;
    }
    return sweep_decode(d, b->words, bytes->len, flags, m) == SWEEP_PROTO_OK ? 0 : -1;
}

/* Decodes an OUT record for its session; -1 after sweep__replay_fail.
 * With v, as decode_motion: a result or batch of them only into *v unless
 * *full says m was decoded too. */
static int decode_out(sweep_replay *r, sweep__replay_core *c, const sweep_record *o, sweep_message *m,
                      sweep_decoded_motion *v, int *full)
{
    const core_session *s = find_session(c, o->session);
    if (!s)
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": OUT for session %" PRIu64 ", which no OPEN began "
                                  "(corrupt log)", sweep__replay_path(r), o->offset, o->session);
    int rc = v ? decode_motion(&c->dec_out, &c->out_buf, &o->bytes, s->tcp, sweep__replay_watched(r), v, m, full)
               : decode(&c->dec_out, &c->out_buf, &o->bytes, s->tcp, m);
    if (rc != 0)
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": a message the server sent does not decode (corrupt log)",
                                  sweep__replay_path(r), o->offset);
    return 0;
}

/* ---- sessions ---------------------------------------------------------------- */

int sweep__replay_core_on_open(sweep_replay *r, sweep__replay_core *c, const sweep_record *x)
{
    if (find_session(c, x->session))
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": session %" PRIu64 " opened twice (corrupt log)",
                                  sweep__replay_path(r), x->offset, x->session);
    if (x->transport > 1)
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": transport %u is neither TCP (0) nor UDP (1) (corrupt "
                                  "log)", sweep__replay_path(r), x->offset, x->transport);
    if (sweep__replay_grow((void **)&c->sessions, &c->session_cap, c->session_count + 1, sizeof *c->sessions) != 0)
        return sweep__replay_fail(r, "out of memory");
    c->sessions[c->session_count++] = (core_session){x->session, x->transport == 0, x->role, UINT32_MAX, 0, 0};
    if (c->session_index.cap < 2 * c->session_count + 2)
        return rebuild_sessions(c) == 0 ? 0 : sweep__replay_fail(r, "out of memory");
    map_put(&c->session_index, x->session, c->session_count - 1);
    return 0;
}

/* A session's end takes its entities with it. */
int sweep__replay_core_on_close(sweep_replay *r, sweep__replay_core *c, const sweep_record *x)
{
    core_session *s = find_session(c, x->session);
    if (!s)
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": CLOSE of session %" PRIu64 ", which no OPEN began "
                                  "(corrupt log)", sweep__replay_path(r), x->offset, x->session);
    *s = c->sessions[--c->session_count];
    for (uint32_t i = 0; i < c->ent_count; i++)
        if (c->ents[i].session == x->session)
            c->ents[i].gone = 1;
    if (rebuild_sessions(c) != 0 || compact_entities(c) != 0)
        return sweep__replay_fail(r, "out of memory");
    return 0;
}

/* ---- spawns and despawns ------------------------------------------------------- */

/* A Spawned answer: a new entity at rest, not grounded, where the server
 * placed it (spawn.c; where is the server's choice, not the core's). A
 * Spawned for an entity the session already has is a resent answer. */
static int on_spawned(sweep_replay *r, sweep__replay_core *c, uint64_t session, const sweep_message *req,
                      const sweep_msg_spawned *sp)
{
    if (find_entity(c, sp->entity))
        return 0;
    if (sweep__replay_grow((void **)&c->ents, &c->ent_cap, c->ent_count + 1, sizeof *c->ents) != 0)
        return sweep__replay_fail(r, "out of memory");
    const sweep_config *cfg = &c->level.config;
    core_entity *e = &c->ents[c->ent_count++];
    memset(e, 0, sizeof *e);
    e->id = sp->entity;
    e->session = session;
    /* The limits its Spawn asked, as the world takes them. */
    double max_speed = 0.0, step_height = 0.0;
    if (req && req->kind == SWEEP_MSG_SPAWN) {
        max_speed = req->as.spawn.max_speed;
        step_height = req->as.spawn.step_height;
    }
    sweep__entity_state_init(&e->st, sp->position, sp->radii, sweep__spawn_limit(max_speed, cfg->max_speed),
                             sweep__spawn_limit(step_height, cfg->step_height));
    /* A player's own Spawn is where its lost moves count from, as in the
     * world (spawn.c), for the Jumps a gap's grace leaves unnamed. */
    const core_session *own = find_session(c, session);
    if (own && own->role != SWEEP_WIRE_ROLE_SERVER && req && req->kind == SWEEP_MSG_SPAWN)
        sweep__entity_spawned_at(&e->st, req->sequence);
    if (c->ent_index.cap < 2 * c->ent_count + 2)
        return rebuild_entities(c) == 0 ? 0 : sweep__replay_fail(r, "out of memory");
    map_put(&c->ent_index, e->id, c->ent_count - 1);
    return 0;
}

static int on_despawned(sweep_replay *r, sweep__replay_core *c, const sweep_msg_despawned *d)
{
    core_entity *e = find_entity(c, d->entity);
    if (!e)
        return 0;
    e->gone = 1;
    return compact_entities(c) == 0 ? 0 : sweep__replay_fail(r, "out of memory");
}

/* An EntityCommandsResult: what each applied command left of its entity,
 * as the results report it (the state after it), through the world's own
 * rule (sweep__entity_commanded, entity_motion.h), so that the moves after
 * it start where the server's did; a Despawn takes the entity out (its
 * owner's Despawned, when another session had it, finds it gone). Where a
 * Teleport put an entity, and whether the world refused a command, are
 * the server's choices, left to the full depth. */
static int on_commanded(sweep_replay *r, sweep__replay_core *c, const sweep_record *o,
                        const sweep_msg_entity_commands_result *er)
{
    sweep_vec3 up = sweep__config_up(&c->level.config);
    int gone = 0;
    for (uint32_t i = 0; i < er->count; i++) {
        const sweep_msg_entity_command_result *x = &er->results[i];
        if (x->code != SWEEP_WIRE_NONE)
            continue;
        core_entity *e = find_entity(c, x->entity);
        if (!e && x->op == SWEEP_WIRE_OP_DESPAWN)
            continue; /* another session's: its Despawned came first */
        if (!e)
            return sweep__replay_fail(r, "%s: byte %" PRIu64 ": EntityCommandsResult applies a command to entity %u, "
                                      "which does not exist (corrupt log)", sweep__replay_path(r), o->offset,
                                      x->entity);
        if (x->op == SWEEP_WIRE_OP_DESPAWN) {
            e->gone = 1;
            gone = 1;
            continue;
        }
        if (!x->has_state)
            return sweep__replay_fail(r, "%s: byte %" PRIu64 ": EntityCommandsResult applies a command to entity %u "
                                      "without its state (corrupt log)", sweep__replay_path(r), o->offset, x->entity);
        sweep__entity_commanded(&e->st, x->op, x->position, x->velocity, x->radii, up);
    }
    if (gone && compact_entities(c) != 0)
        return sweep__replay_fail(r, "out of memory");
    return 0;
}

/* ---- moves --------------------------------------------------------------------- */

static int same_bits(const void *a, const void *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

/* Every field replay.c's diff_result looks at, bit for bit: when this
 * says they differ, the divergence names the first field that does. */
static int same_result(const sweep_msg_move_result *a, const sweep_msg_move_result *b)
{
    if (a->entity != b->entity || a->sequence != b->sequence || a->server_tick != b->server_tick ||
        !same_bits(&a->position, &b->position, sizeof a->position) ||
        !same_bits(&a->velocity, &b->velocity, sizeof a->velocity) || a->grounded != b->grounded ||
        !same_bits(&a->ground_normal, &b->ground_normal, sizeof a->ground_normal) ||
        a->ground_material != b->ground_material || a->contact_count != b->contact_count)
        return 0;
    for (uint32_t i = 0; i < a->contact_count; i++) {
        const sweep_contact *x = &a->contacts[i], *y = &b->contacts[i];
        if (!same_bits(&x->point, &y->point, sizeof x->point) || !same_bits(&x->normal, &y->normal, sizeof x->normal) ||
            x->triangle != y->triangle || x->material != y->material || x->mover != y->mover)
            return 0;
    }
    return a->corrected == b->corrected && same_bits(&a->correction, &b->correction, sizeof a->correction) &&
           a->ground_mover == b->ground_mover && a->pushed_by == b->pushed_by && a->carried == b->carried &&
           a->pushed == b->pushed && a->has_start_position == b->has_start_position &&
           same_bits(&a->start_position, &b->start_position, sizeof a->start_position) && a->rules == b->rules &&
           same_bits(&a->speed_excess, &b->speed_excess, sizeof a->speed_excess) &&
           same_bits(&a->time_excess, &b->time_excess, sizeof a->time_excess) &&
           same_bits(&a->applied_dt, &b->applied_dt, sizeof a->applied_dt) && a->launched_by == b->launched_by &&
           a->teleported_by == b->teleported_by && a->teleport_blocked == b->teleport_blocked &&
           a->hurt_by == b->hurt_by && same_bits(&a->damage, &b->damage, sizeof a->damage) &&
           a->killed_by == b->killed_by && a->entered == b->entered && a->left == b->left &&
           a->liquid == b->liquid && a->liquid_type == b->liquid_type && a->liquid_level == b->liquid_level &&
           a->entered_liquid == b->entered_liquid && a->left_liquid == b->left_liquid && a->ladder == b->ladder;
}

/* The Move of the request a result answers: results come in the order of
 * the moves, so the search starts after the last one found. */
static const sweep_msg_move *move_of(const sweep_msg_move *moves, uint32_t count, uint32_t *cursor,
                                     const sweep_msg_move_result *res)
{
    for (uint32_t k = 0; k < count; k++) {
        uint32_t i = (*cursor + k) % count;
        if (moves[i].entity == res->entity && moves[i].sequence == res->sequence) {
            *cursor = i + 1;
            return &moves[i];
        }
    }
    return NULL;
}

/* Names a result for a divergence: "MoveResult" or its place in a batch. */
static const char *result_name(char *buf, size_t n, int batch, uint32_t i)
{
    if (batch)
        snprintf(buf, n, "MoveResultBatch.results[%u]", i);
    else
        snprintf(buf, n, "MoveResult");
    return buf;
}

/* Step 6 of moves.c for one move of e: the motion (into *mo) from its
 * actor by the server's own code (server/world/entity_motion.h) and what the
 * entity keeps, but for what the ticks did to it since its last move
 * (moved_flags, moved_by), which result_of reads and
 * sweep__entity_moved_told then clears; *start is where the move started. SWEEP_OK, or the status the
 * server would have refused the move with (nothing changed then). cut_forgiven: the server cut the move's
 * time and forgave it (its MOVE's flag, or its recorded answer). */
static inline __attribute__((always_inline)) sweep_status
apply_move(sweep__replay_core *c, core_entity *e, uint32_t mode, sweep_vec3 wish, uint32_t buttons, double granted,
           int cut_forgiven, uint32_t sequence, sweep__motion *mo, sweep__replay_core_move *om, sweep_vec3 *start)
{
    const sweep_config *wcfg = &c->level.config;
    *start = e->st.m.actor.position;
    sweep__motion_run(&c->space, wcfg, &c->level.rules, &e->st.m, mode, wish, buttons, granted, mo);
    /* The server refuses what the core refuses, and a move ending beyond
     * the coordinate limit. */
    sweep_status st = mo->beyond_limit ? SWEEP_E_POSITION : mo->status;
    if (st != SWEEP_OK)
        return st;
    /* A forgiven cut's and a gap's grace, as the world keeps them: its
     * Jump is not named. */
    if (cut_forgiven)
        sweep__entity_cut_forgiven(&e->st, c->tick, c->tick_rate);
    sweep__entity_gap(&e->st, sequence, c->tick, c->tick_rate);
    mo->act.rules = sweep__entity_named_rules(&e->st, c->tick, c->tick_rate, mo->act.rules);
    const sweep_move_result *res = &mo->act.move;
    if (c->observer)
        *om = (sweep__replay_core_move){c->space, wcfg, &c->level.rules, e->st.m.stand_radii, e->st.m.actor,
                                        mo->actor, {wish, buttons & (SWEEP_WISH_JUMP | SWEEP_WISH_CROUCH)},
                                        granted, mode, e->st.moved_flags != 0};

    e->st.m.actor = mo->actor;
    sweep__entity_take_stance(&e->st, &c->level.rules);
    sweep__entity_keep(&e->st, res, sequence, mo->ran);
    return SWEEP_OK;
}

/* Step 7: the result of a move apply_move applied to e, before the
 * ticks' doings are told (sweep__entity_moved_told), filled as the world
 * fills it (sweep__entity_result), at the world's tick; the fields only
 * the server decides (the claim's, the time budget's) are left as they
 * were in *rep. */
static void result_of(const sweep__replay_core *c, const core_entity *e, const sweep__motion *mo, sweep_vec3 start,
                      uint32_t sequence, double granted, sweep_msg_move_result *rep)
{
    rep->entity = e->id;
    rep->sequence = sequence;
    rep->server_tick = c->tick;
    sweep__entity_result(&e->st, &c->level, &mo->actor, mo->ran, &mo->act.move, start, rep);
    sweep__entity_volumes(&c->level, &mo->act.volumes, rep);
    sweep__entity_stance(&mo->act, rep);
    rep->rules = (rep->rules & ~SWEEP__RECORD_MOVE_RULES) | (mo->act.rules & SWEEP__RECORD_MOVE_RULES);
    rep->speed_excess = mo->act.speed_excess;
    rep->applied_dt = granted;
}

/* The fields of the MOVE image of a move apply_move applied to e (before
 * its ticks' doings are told), but its session: its result's (result_of),
 * its input, and the core's contacts as the core made them (the image
 * converts them as the wire does). */
static void move_fields(const sweep__replay_core *c, const core_entity *e, const sweep__motion *mo, sweep_vec3 start,
                        sweep_vec3 wish, double granted, int cut_forgiven, uint32_t buttons, uint32_t mode,
                        uint32_t sequence, sweep__record_move_fields *f)
{
    sweep_msg_move_result r;
    r.rules = 0;
    result_of(c, e, mo, start, sequence, granted, &r);
    f->entity = e->id;
    f->sequence = sequence;
    f->wish = wish;
    f->granted = granted;
    f->buttons = buttons;
    f->mode = mode;
    f->position = r.position;
    f->velocity = r.velocity;
    f->grounded = r.grounded;
    f->ground_normal = r.ground_normal;
    f->ground_material = r.ground_material;
    f->contact_count = r.contact_count;
    f->contacts = mo->act.move.contacts;
    f->ground_mover = r.ground_mover;
    f->carried = r.carried;
    f->pushed = r.pushed;
    f->pushed_by = r.pushed_by;
    f->has_start_position = r.has_start_position;
    f->crouched = r.crouched;
    f->stance_blocked = r.stance_blocked;
    f->cut_forgiven = cut_forgiven;
    f->start_position = r.start_position;
    f->rules = r.rules;
    f->speed_excess = r.speed_excess;
}

/* One recorded MoveResult (a version 1 log): the move run again, its
 * result compared. */
static int check_result(sweep_replay *r, sweep__replay_core *c, const sweep_record *o, const sweep_msg_move *moves,
                        uint32_t move_count, uint32_t *cursor, const sweep_msg_move_result *rec, int batch,
                        uint32_t index)
{
    char name[64];
    core_entity *e = find_entity(c, rec->entity);
    if (!e || e->session != o->session) {
        char field[96], what[96];
        snprintf(field, sizeof field, "%s.entity", result_name(name, sizeof name, batch, index));
        snprintf(what, sizeof what, "no entity %u in session %" PRIu64, rec->entity, o->session);
        return sweep__replay_diverge(r, o->session, rec->entity, o->offset, field, "a result for it", what);
    }
    /* A sequence not above the last applied one is a kept answer sent
     * again (moves.c step 2): nothing ran. */
    if (e->st.has_last && rec->sequence <= e->st.last_sequence)
        return 0;
    const sweep_msg_move *mv = move_of(moves, move_count, cursor, rec);
    if (!mv)
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": a MoveResult (entity %u, sequence %u) answers no Move of "
                                  "its request (corrupt log)", sweep__replay_path(r), o->offset, rec->entity,
                                  rec->sequence);
    /* What only the server decides comes from the record. */
    sweep_msg_move_result rep;
    rep.corrected = rec->corrected;
    rep.correction = rec->correction;
    rep.rules = rec->rules;
    rep.time_excess = rec->time_excess;
    sweep__replay_core_move om;
    sweep__motion mo;
    sweep_vec3 start;
    sweep_status st = apply_move(c, e, mv->mode, mv->velocity, mv->buttons, rec->applied_dt,
                                 sweep__record_move_cut_forgiven(rec), rec->sequence, &mo, &om,
                                 &start);
    if (st != SWEEP_OK) {
        char what[160];
        snprintf(what, sizeof what, "refused: %s", sweep_status_message(st));
        return sweep__replay_diverge(r, o->session, rec->entity, o->offset, result_name(name, sizeof name, batch, index),
                                     "applied", what);
    }
    result_of(c, e, &mo, start, rec->sequence, rec->applied_dt, &rep);
    sweep__entity_moved_told(&e->st);
    c->moves++;
    c->outputs++;
    if (same_result(rec, &rep)) {
        if (c->observer)
            c->observer(c->observer_ctx, &om);
        return 0;
    }
    result_name(name, sizeof name, batch, index);
    if (sweep__replay_diverge_result(r, o->session, o->offset, name, rec, &rep) < 0)
        return -1;
    return sweep__replay_diverge(r, o->session, rec->entity, o->offset, name, "recorded", "differs");
}

/* Names a MOVE that did not match as the full depth would name its
 * answer: the recorded result of its OUT (the field, in "MoveResult" or
 * "MoveResultBatch.results[i]", at the OUT's offset), when that differs
 * from the replayed one; otherwise (the MOVE record itself is what
 * differs, or a version 5 log, whose answers' core fields are the MOVE
 * records) the MOVE's own field. *rep is the replayed result as
 * result_of made it (its server_tick the world's), when st is SWEEP_OK. */
static int diverge_move(sweep_replay *r, sweep__replay_core *c, const sweep_record *mo,
                        const sweep_record *outs, uint32_t out_count, sweep_msg_move_result *rep,
                        sweep_status st)
{
    char name[64], what[160];
    uint32_t sequence = rep->sequence;
    for (uint32_t k = 0; k < out_count; k++) {
        const sweep_record *o = &outs[k];
        sweep_message m;
        sweep_decoded_motion v;
        int full;
        /* A RESULTS (version 5) holds no core field of its own: the
         * MOVE is what differs, named below. */
        if (o->type != SWEEP_RECORD_OUT || o->session != mo->session ||
            decode_out(r, c, &outs[k], &m, &v, &full) != 0)
            continue;
        for (uint32_t i = 0; i < v.result_count; i++) {
            const sweep_msg_move_result *rec = &v.results[i];
            if (rec->entity != mo->entity || rec->sequence != sequence)
                continue;
            result_name(name, sizeof name, v.kind == SWEEP_MSG_MOVE_RESULT_BATCH, i);
            if (st != SWEEP_OK) {
                snprintf(what, sizeof what, "refused: %s", sweep_status_message(st));
                return sweep__replay_diverge(r, o->session, rec->entity, o->offset, name, "applied", what);
            }
            sweep_msg_move_result full_rep = *rep;
            full_rep.corrected = rec->corrected;
            full_rep.correction = rec->correction;
            full_rep.rules = (rec->rules & ~SWEEP__RECORD_MOVE_RULES) | (rep->rules & SWEEP__RECORD_MOVE_RULES);
            full_rep.time_excess = rec->time_excess;
            if (sweep__replay_diverge_result(r, o->session, o->offset, name, rec, &full_rep) < 0)
                return -1;
        }
    }
    if (st != SWEEP_OK) {
        snprintf(what, sizeof what, "refused: %s", sweep_status_message(st));
        return sweep__replay_diverge(r, mo->session, mo->entity, mo->offset, "MOVE", "applied", what);
    }
    sweep__move_record rec;
    sweep__record_move_decode(mo->bytes.ptr, mo->bytes.len, &rec);
    rep->server_tick = 0; /* not in the record */
    if (sweep__replay_diverge_result(r, mo->session, mo->offset, "MOVE", &rec.result, rep) < 0)
        return -1;
    return sweep__replay_diverge(r, mo->session, mo->entity, mo->offset, "MOVE bytes", "recorded", "differs");
}

/* What running a MOVE record came to (run_checked). */
enum {
    MOVE_MATCHED,   /* the core's image is the record's */
    MOVE_NO_ENTITY, /* names an entity its session has not spawned */
    MOVE_SEQUENCE,  /* its sequence is not above the last applied */
    MOVE_REFUSED,   /* the core (or the limit) refused it: nothing changed */
    MOVE_DIFFERS    /* ran and was applied, but the images differ */
};

typedef struct move_run {
    core_entity *e;
    uint32_t sequence;
    sweep_status st;
    sweep__motion motion;
    sweep__replay_core_move om;
    /* MOVE_DIFFERS: the move's input and start, for move_fields again */
    sweep_vec3 start, wish;
    double granted;
    uint32_t buttons, mode;
} move_run;

/* A MOVE record's payload p (len bytes, its layout checked) of `session`
 * and `entity`: the move run again from the input it holds, and what the
 * core made of it compared with the record as the writer's image of it
 * (server/record/record_move.h). Counted and handed to the observer when it
 * matches. */
static inline __attribute__((always_inline)) int run_checked(sweep__replay_core *c, core_session *own,
                                                            uint64_t session, uint32_t entity, const uint8_t *p,
                                                            uint32_t len, int compact, move_run *m)
{
    /* A session mostly moves one entity: the one its last MOVE moved is
     * tried before the index (entities leave, so it is checked). */
    core_entity *e;
    uint32_t guess = own->last_entity;
    if (session == own->id && guess < c->ent_count && c->ents[guess].id == entity && !c->ents[guess].gone) {
        e = &c->ents[guess];
    } else {
        e = find_entity(c, entity);
        if (e && session == own->id)
            own->last_entity = (uint32_t)(e - c->ents);
    }
    m->e = e;
    if (!e || e->session != session)
        return MOVE_NO_ENTITY;
    uint32_t sequence = sweep__rd32(p + 12);
    m->sequence = sequence;
    /* The server writes a MOVE only for a move it applied: above the
     * last sequence applied. */
    if (e->st.has_last && sequence <= e->st.last_sequence)
        return MOVE_SEQUENCE;
    uint32_t mode = p[52], buttons = sweep__rd32(p + 48);
    sweep_vec3 wish = sweep__rdvec3(p + 16);
    double granted = sweep__rdf64(p + 40);
    /* Whether the server forgave a cut of its time: the move's input, as
     * the granted time is (the time asked is not in the log). */
    const uint32_t cut_forgiven = (p[53] & SWEEP__RECORD_MOVE_CUT_FORGIVEN) != 0;
    sweep_vec3 start;
    if (mode == SWEEP_WIRE_MODE_WALK && granted > 0.0 && !c->observer) {
        /* Nearly every move: apply_move's Walk, sweep_act run on the
         * entity's own actor rather than on a copy handed back. A refused
         * move ends the replay, so what it leaves in the entity is never
         * read (move_failed names it from m). */
        sweep_act_result *act = &m->motion.act;
        int beyond;
        /* Only what the call needs is kept across it: the start in *m,
         * the sequence applied before (a refused move ends the replay),
         * and the input read again from p when the images differ. */
        m->start = e->st.m.actor.position;
        if (cut_forgiven)
            sweep__entity_cut_forgiven(&e->st, c->tick, c->tick_rate);
        sweep__entity_gap(&e->st, sequence, c->tick, c->tick_rate);
        e->st.has_last = 1;
        e->st.last_sequence = sequence;
        e->st.spawn_based = 0;
        sweep_status st = sweep__motion_walk(&c->space, &c->level.config, &c->level.rules, e->st.m.stand_radii,
                                             &e->st.m.actor, wish, buttons, granted, act, &beyond);
        if (st != SWEEP_OK || beyond) {
            m->st = st != SWEEP_OK ? st : SWEEP_E_POSITION;
            return MOVE_REFUSED;
        }
        act->rules = sweep__entity_named_rules(&e->st, c->tick, c->tick_rate, act->rules);
        sweep__entity_take_stance(&e->st, &c->level.rules);
        sweep__entity_keep_ground(&e->st, &act->move);
        c->moves++;
        c->outputs++;
        /* The image compared straight from the core's output, as
         * move_fields would make its fields (record_move.h). */
        uint32_t moved = e->st.moved_flags;
        if (sweep__record_move_same_act_in(p, compact, &e->st.m.actor, &act->move, act->rules & SWEEP__RECORD_MOVE_RULES,
                                           act->speed_excess, act->stance_blocked, cut_forgiven,
                                           mover_id(c, e->st.ground_mover), moved,
                                           moved ? mover_id(c, e->st.moved_by) : 0, &m->start)) {
            sweep__entity_moved_told(&e->st);
            return MOVE_MATCHED;
        }
        m->st = SWEEP_OK;
        m->motion.status = SWEEP_OK;
        m->motion.beyond_limit = 0;
        m->motion.ran = 1;
        m->motion.actor = e->st.m.actor;
        m->wish = sweep__rdvec3(p + 16);
        m->granted = sweep__rdf64(p + 40);
        m->buttons = sweep__rd32(p + 48);
        m->mode = p[52];
        return MOVE_DIFFERS;
    }
    m->st = apply_move(c, e, mode, wish, buttons, granted, (int)cut_forgiven, sequence, &m->motion, &m->om, &start);
    if (m->st != SWEEP_OK)
        return MOVE_REFUSED;
    c->moves++;
    c->outputs++;
    /* The fields in a local the compiler keeps in registers; on a
     * difference move_failed makes them again from *m, to name it. */
    sweep__record_move_fields f;
    move_fields(c, e, &m->motion, start, wish, granted, (int)cut_forgiven, buttons, mode, sequence, &f);
    f.session = session;
    if (!sweep__record_move_same_output(p, len, &f)) {
        m->start = start;
        m->wish = wish;
        m->granted = granted;
        m->buttons = buttons;
        m->mode = mode;
        return MOVE_DIFFERS;
    }
    sweep__entity_moved_told(&e->st);
    if (c->observer)
        c->observer(c->observer_ctx, &m->om);
    return MOVE_MATCHED;
}

/* Says what a MOVE record mo that run_checked did not match (how: rc)
 * is, in the group of OUT and MOVE records it came in; returns -1. */
static int move_failed(sweep_replay *r, sweep__replay_core *c, const sweep_record *mo, const sweep_record *outs,
                       uint32_t out_count, int rc, const move_run *m)
{
    /* What a MOVE does not hold (the server's corrected, correction,
     * time_excess, ...) stays zero, as sweep__record_move_decode leaves it
     * in the recorded side that diverge_move compares with. */
    sweep_msg_move_result rep;
    memset(&rep, 0, sizeof rep);
    rep.sequence = m->sequence;
    switch (rc) {
    case MOVE_NO_ENTITY:
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": MOVE of entity %u, which session %" PRIu64 " has not "
                                  "spawned (corrupt log)", sweep__replay_path(r), mo->offset, mo->entity,
                                  mo->session);
    case MOVE_SEQUENCE:
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": MOVE of entity %u with sequence %u, not above the last "
                                  "applied (%u) (corrupt log)", sweep__replay_path(r), mo->offset, mo->entity,
                                  m->sequence, m->e->st.last_sequence);
    case MOVE_REFUSED:
        return diverge_move(r, c, mo, outs, out_count, &rep, m->st);
    default: {
        result_of(c, m->e, &m->motion, m->start, m->sequence, m->granted, &rep);
        sweep__entity_moved_told(&m->e->st);
        return diverge_move(r, c, mo, outs, out_count, &rep, SWEEP_OK);
    }
    }
}

/* One MOVE record (a version 2 log), as run_checked. */
static int check_move(sweep_replay *r, sweep__replay_core *c, core_session *own, const sweep_record *mo,
                      const sweep_record *outs, uint32_t out_count)
{
    move_run m;
    int rc = run_checked(c, own, mo->session, mo->entity, mo->bytes.ptr, mo->bytes.len,
                         (mo->bytes.ptr[55] & SWEEP__RECORD_MOVE_COMPACT) != 0, &m);
    return rc == MOVE_MATCHED ? 0 : move_failed(r, c, mo, outs, out_count, rc, &m);
}

/* ---- requests and ticks ----------------------------------------------------------- */

/* The request of a group, decoded when first needed: of a move's request
 * only the moves; a Spawn whole (on_spawned takes its limits). At the
 * core depth of a version 2 log a move's request is never read: its MOVE
 * records hold what the core was given. */
typedef struct request {
    const sweep_record *x;
    core_session *s; /* its session */
    int tcp, decoded;
    int commands_seen;   /* an EntityCommandsResult of it was met (a UDP answer may be in pieces) */
    int commands_repeat; /* ... answering a repeat, which applied nothing */
    sweep_message req;
    sweep_decoded_motion rv;
} request;

static int request_decode(sweep_replay *r, sweep__replay_core *c, request *q)
{
    if (q->decoded)
        return 0;
    const sweep_record *x = q->x;
    int full;
    if (decode_motion(&c->dec_in, &c->in_buf, &x->bytes, q->tcp, 0, &q->rv, &q->req, &full) != 0) {
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": a request the server took does not decode (corrupt log)",
                                  sweep__replay_path(r), x->offset);
    }
    q->decoded = 1;
    return 0;
}

/* An answer that is not a move's result. */
static int on_answer(sweep_replay *r, sweep__replay_core *c, const sweep_record *o, request *q, const sweep_message *m)
{
    switch (m->kind) {
    case SWEEP_MSG_ERROR:
        /* A refused move has no result; a batch refused whole for its
         * size refuses every move in it. */
        if (request_decode(r, c, q) != 0)
            return -1;
        if (q->rv.move_count)
            c->refused += m->as.error.code == SWEEP_WIRE_BATCH_TOO_LARGE ? q->rv.move_count : 1;
        return 0;
    case SWEEP_MSG_SPAWNED:
        if (request_decode(r, c, q) != 0)
            return -1;
        return on_spawned(r, c, o->session, &q->req, &m->as.spawned);
    case SWEEP_MSG_DESPAWNED:
        return on_despawned(r, c, &m->as.despawned);
    case SWEEP_MSG_ENTITY_COMMANDS_RESULT:
        /* Over UDP the world answers a repeat of the session's last
         * EntityCommands from what it kept, applying nothing: decided
         * once a request, whatever pieces its answer came in. */
        if (!q->commands_seen) {
            q->commands_seen = 1;
            q->commands_repeat = !q->tcp && q->s->has_commands && q->s->commands_sequence == m->sequence;
            if (!q->tcp) {
                q->s->has_commands = 1;
                q->s->commands_sequence = m->sequence;
            }
        }
        return q->commands_repeat ? 0 : on_commanded(r, c, o, &m->as.entity_commands_result);
    case SWEEP_MSG_MOVER_COMMANDED: {
        /* dispatch.c fires the trigger as it answers; it runs at the
         * next tick. */
        uint32_t i = mover_index(c, m->as.mover_commanded.mover);
        if (i == SWEEP_NO_MOVER || !c->movers || sweep_movers_trigger(c->movers, i) != SWEEP_OK)
            return sweep__replay_fail(r, "%s: byte %" PRIu64 ": MoverCommanded names mover %u, which the map does not "
                                      "have (corrupt log)", sweep__replay_path(r), o->offset,
                                      m->as.mover_commanded.mover);
        if (c->movers_observer.trigger)
            c->movers_observer.trigger(c->movers_observer.ctx, i);
        return 0;
    }
    default:
        return 0;
    }
}

/* A version 2 log: each MOVE is checked on its own; of the OUT records
 * only the kind is read, and a move's result (what the MOVE holds) is not
 * decoded unless a watcher wants it. */
static int on_request_moves(sweep_replay *r, sweep__replay_core *c, request *q, const sweep_record *outs,
                            uint32_t out_count)
{
    int watched = sweep__replay_watched(r);
    core_session *own = q->s; /* most answers go to the request's session */
    for (uint32_t k = 0; k < out_count; k++) {
        const sweep_record *o = &outs[k];
        if (o->type == SWEEP_RECORD_MOVE) {
            if (check_move(r, c, own, o, outs, out_count) != 0)
                return -1;
            continue;
        }
        if (o->type == SWEEP_RECORD_RESULTS) {
            /* The results are the MOVE records just checked and what
             * only the server decides: nothing for the core. */
            if (watched) {
                sweep_message m;
                if (sweep__replay_results_message(r, outs, k, &m) != 0)
                    return -1;
                sweep__replay_notify(r, o->session, &m);
            }
            continue;
        }
        const core_session *s = o->session == q->x->session ? own : find_session(c, o->session);
        if (!s)
            return sweep__replay_fail(r, "%s: byte %" PRIu64 ": OUT for session %" PRIu64 ", which no OPEN began "
                                      "(corrupt log)", sweep__replay_path(r), o->offset, o->session);
        if (!watched && sweep__lean_is_result(o->bytes.ptr, o->bytes.len, s->tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0))
            continue;
        sweep_message m;
        if (decode_out(r, c, &outs[k], &m, NULL, NULL) != 0 || on_answer(r, c, o, q, &m) != 0)
            return -1;
        if (watched)
            sweep__replay_notify(r, o->session, &m);
    }
    return 0;
}

/* ---- the lean loop (a version 2 log) ---------------------------------------------- */

/* The records after a group's IN (at `first`, `count` of them) read again
 * into c->group by sweep_record_next, for move_failed to name a failure
 * among them as the general path would; 0, or -1 after
 * sweep__replay_fail. */
static int group_records(sweep_replay *r, sweep__replay_core *c, sweep_record_reader *rd, size_t first,
                         uint32_t count)
{
    if (sweep__replay_grow((void **)&c->group, &c->group_cap, count, sizeof *c->group) != 0)
        return sweep__replay_fail(r, "out of memory");
    sweep__record_seek(rd, first);
    char err[1200];
    for (uint32_t k = 0; k < count; k++) {
        int got = sweep_record_next(rd, &c->group[k], err, sizeof err);
        if (got != 1)
            return sweep__replay_fail(r, "%s", got < 0 ? err : "the log ended inside a group it had whole");
    }
    return 0;
}

/* How far past the lean loop's place a mapped log is fetched into the
 * cache when no thread reads ahead (lean_prefetch): a frame is a tick's
 * records, 8 to 9 KB on the 16-bot logs, so about two frames, a few
 * hundred microseconds of moves. On oacmpdm7 on one CPU, with the log
 * mapped, 4 KB gained nothing and 64 KB and 256 KB lost; 16 KB gained
 * about 4%, the arena's about 0. A log streamed into buffers (one CPU
 * since) is not fetched ahead: on the version 6 logs of bench_replay the
 * prefetches cost 40 instructions a move and, left out, the core depth
 * ran 2.4% (arena) and 3.7% (oacmpdm7) more moves a second (medians of 5
 * and 4 alternating rounds). */
#define LEAN_PREFETCH 16384u

/* lean_prefetch is called once the lines to ask for make this many bytes,
 * not every request: the call and its set-up were most of its cost (37
 * instructions a move on the arena for about 6 lines), and the farthest
 * line asked for stays within a few requests of 16 KB ahead. */
#define LEAN_PREFETCH_STEP 1024u

/* Without the thread (one CPU) the reader sums each frame as the replay
 * reaches it, and summing is then mostly waiting for the frame's bytes to
 * come from memory. Asked for a few cache lines a request, as far ahead
 * as the loop has come (c->prefetched: the log's bytes up to there were
 * asked for), they arrive while the core runs the moves before them. Out
 * of line, so that the loop with the thread keeps its registers: with it
 * the bytes are in the shared cache already, and prefetching them only
 * cost. */
static __attribute__((noinline)) void lean_prefetch(sweep__replay_core *c, const uint8_t *d, size_t at, size_t size)
{
    size_t pf = c->prefetched, lim = at + LEAN_PREFETCH < size ? at + LEAN_PREFETCH : size;
    if (pf < at || pf > lim) /* the first request, or another segment's or buffer's places */
        pf = at;
    /* Four lines a turn: the loop's own count and test were most of
     * what a line cost. */
    for (; lim - pf >= 256; pf += 256) {
        __builtin_prefetch(d + pf, 0, 3);
        __builtin_prefetch(d + pf + 64, 0, 3);
        __builtin_prefetch(d + pf + 128, 0, 3);
        __builtin_prefetch(d + pf + 192, 0, 3);
    }
    for (; pf < lim; pf += 64)
        __builtin_prefetch(d + pf, 0, 3);
    c->prefetched = pf;
}

/* A TICK at `at` that ends the frame [.., end) of d, the world's next
 * tick: the next frame read (as replay.c reads the group after a TICK
 * before running it, so a bad frame there is named first), then the tick
 * run as replay.c's on_tick runs it with nothing after it. 1, with *at
 * and *end the next frame's (both the log's end when there is none); 0
 * when it is not such a TICK (the general path takes it); -1 after
 * sweep__replay_fail or a divergence. Out of line: once a tick. */
static __attribute__((noinline)) int lean_tick(sweep_replay *r, sweep__replay_core *c, sweep_record_reader *rd,
                                               const uint8_t *d, size_t *at, size_t *end, uint64_t *ticks)
{
    size_t x_at = *at;
    if (*end - x_at != 5u + 8u || sweep__rd32(d + x_at + 1) != 8u || sweep__rd64(d + x_at + 5) != c->tick + 1)
        return 0;
    sweep_record x;
    x.type = SWEEP_RECORD_TICK;
    x.offset = sweep__record_window_base(rd) + x_at;
    x.tick = c->tick + 1;
    sweep__record_seek(rd, *end);
    char err[1200];
    if (sweep__record_next_frame(rd, err, sizeof err) < 0)
        return sweep__replay_fail(r, "%s", err);
    sweep__record_window(rd, at, end);
    (*ticks)++;
    sweep__record_passed(rd, x.tick, 0, 0);
    return sweep__replay_core_on_tick(r, c, &x, NULL, 0) == 0 ? 1 : -1;
}

/* The reader told where the lean loop left the log (an ANSWER after it
 * leaves out what the reader then knows): the last group run, of
 * `session`'s IN, the records [first, end) of d, waits for its answer
 * when none of them is a RESULTS or an ANSWER. Out of line: once a call. */
static __attribute__((noinline)) void lean_passed(sweep_record_reader *rd, uint64_t tick, const uint8_t *d,
                                                  uint64_t session, size_t first, size_t end)
{
    int open = 1;
    for (size_t pos = first; pos < end; pos += 5 + (size_t)sweep__rd32(d + pos + 1))
        if (d[pos] == SWEEP_RECORD_RESULTS || d[pos] == SWEEP_RECORD_ANSWER)
            open = 0;
    sweep__record_passed(rd, tick, session, open);
}

/* With the thread, the bytes of the request after this one (its IN and
 * MOVE records, from `at`: 6 lines cover both on the 16-bot logs), asked
 * for into the second-level cache while the core runs this one. The
 * thread read them last, on the other CPU: perf put a third of the lean
 * loop's own samples on oacmpdm7 on its first reads of a request's IN and
 * MOVE, and these prefetches took bench_replay's ratio_to_core there
 * from 0.921-0.925 to 0.942 (8 and 10 alternating rounds); the arena's
 * did not move (0.930-0.937 against 0.929-0.937). Into the first-level
 * cache did the same; 4 or 8 lines the same; a stream of every line 1 or
 * 2 KB ahead, as lean_prefetch does, lost on the arena. */
static inline void lean_prefetch_next(const uint8_t *d, size_t at)
{
    for (unsigned k = 0; k < 6; k++)
        __builtin_prefetch(d + at + 64u * k, 0, 2);
}

/* sweep__replay_core_lean for one layout of MOVE images (compact: a log's
 * of version 6 on), a constant in each of its two calls. */
static inline __attribute__((always_inline)) int lean_in(sweep_replay *r, sweep__replay_core *c,
                                                        sweep_record_reader *rd, size_t from, uint64_t *requests,
                                                        uint64_t *ticks, size_t *stop, int compact)
{
    size_t at, end;
    const uint8_t *d = sweep__record_window(rd, &at, &end);
    at = from;
    if (!c->compact) {
        *stop = at;
        return 0;
    }
    sweep__plan_queue *plan = sweep__record_plan_queue(rd);
    /* Counted here and handed back once: through the pointer, a store a
     * request that the moves' stores (which might alias it) made the
     * compiler load again. */
    uint64_t n_requests = 0;
    /* The last group run: its IN's session and records, for the reader's
     * view of the log when the loop hands it back (lean_passed). */
    uint64_t last_session = 0;
    size_t last_first = 0, last_end = 0;
    size_t size = sweep__record_window_held(rd);
    /* Only a mapped log with no thread ahead of the loop is fetched ahead
     * here (lean_prefetch): a streamed one's buffer was just filled by the
     * kernel's copy. */
    int prefetch = !plan && sweep__record_buffered(rd) == 0;
    /* From version 6 a log's request may be a patch of its session's base
     * (record_patch.h): the core depth reads past it as past a whole one,
     * and keeps each whole one that is a base, as the reader would. */
    while (end - at >= 5 && (d[at] == SWEEP_RECORD_IN || (compact && d[at] == SWEEP_RECORD_IN_PATCH))) {
        /* Wraps to a large value when c->prefetched lies past the
         * farthest line (another segment's or buffer's places), so lean_prefetch
         * starts again here. */
        if (prefetch && at + LEAN_PREFETCH - c->prefetched >= LEAN_PREFETCH_STEP)
            lean_prefetch(c, d, at, size);
        uint32_t len = sweep__rd32(d + at + 1);
        if (end - at - 5 < len || len <= 8)
            break;
        uint64_t session = sweep__rd64(d + at + 5);
        core_session *s = find_session_cached(c, session);
        if (!s || (compact && d[at] == SWEEP_RECORD_IN && sweep__record_keep_request(rd, session, d + at + 13, len - 8)))
            break;
        size_t first = at + 5 + len, group_end, moves_end;
        /* The group as the thread reading ahead found it, or as found
         * here when it has not (record_window.h). The walk below stops
         * at moves_end: a pair's one MOVE is its first record, and its
         * RESULTS need not be stepped over. */
        unsigned framing = s->tcp ? SWEEP__LEAN_TCP : SWEEP__LEAN_UDP, ok = 0;
        /* What the group may hold: RESULTS from version 5 (always in a
         * log of version 6 on), and the images' layout, both constants
         * where compact is; ANSWERs from version 7. */
        unsigned lean = compact ? c->lean_results | SWEEP__LEAN_RESULTS | SWEEP__LEAN_COMPACT
                                : c->lean_results & ~SWEEP__LEAN_COMPACT;
        uint32_t count;
        if (!plan || !sweep__record_planned(plan, at, &group_end, &ok)) {
            ok = framing | lean;
            group_end = sweep__record_lean_pair(d, first, end, session, ok);
            moves_end = first + 1;
            if (!group_end)
                group_end = moves_end = sweep__record_lean_group(d, first, end, session, ok, &ok, &count);
        } else {
            moves_end = group_end;
        }
        if (!group_end || !(ok & framing))
            break;
        n_requests++;
        last_session = session, last_first = first, last_end = group_end;
        if (plan)
            lean_prefetch_next(d, group_end);
        for (size_t pos = first; pos < moves_end;) {
            const uint8_t *q = d + pos + 5;
            uint32_t l = sweep__rd32(d + pos + 1);
            if (d[pos] == SWEEP_RECORD_MOVE) {
                move_run m;
                int rc = run_checked(c, s, sweep__rd64(q), sweep__rd32(q + 8), q, l, compact, &m);
                if (rc != MOVE_MATCHED) {
                    *requests += n_requests;
                    sweep__record_lean_group(d, first, end, session, framing | lean, &ok, &count);
                    sweep__record_passed(rd, c->tick, session, 1);
                    if (group_records(r, c, rd, first, count) != 0)
                        return -1;
                    uint32_t k = 0;
                    while (c->group[k].offset != sweep__record_window_base(rd) + pos)
                        k++;
                    return move_failed(r, c, &c->group[k], c->group, count, rc, &m);
                }
            }
            pos += 5 + (size_t)l;
        }
        at = group_end;
    }
    *requests += n_requests;
    if (n_requests)
        lean_passed(rd, c->tick, d, last_session, last_first, last_end);
    if (end - at >= 5 && d[at] == SWEEP_RECORD_TICK) {
        int t = lean_tick(r, c, rd, d, &at, &end, ticks);
        if (t != 0) {
            *stop = at;
            return t;
        }
    }
    *stop = at;
    return 0;
}

int sweep__replay_core_lean(sweep_replay *r, sweep__replay_core *c, sweep_record_reader *rd, size_t from,
                            uint64_t *requests, uint64_t *ticks, size_t *stop)
{
    if (c->lean_results & SWEEP__LEAN_COMPACT)
        return lean_in(r, c, rd, from, requests, ticks, stop, 1);
    return lean_in(r, c, rd, from, requests, ticks, stop, 0);
}

int sweep__replay_core_on_request(sweep_replay *r, sweep__replay_core *c, const sweep_record *x,
                                  const sweep_record *outs, uint32_t out_count)
{
    core_session *s = find_session(c, x->session);
    if (!s)
        return sweep__replay_fail(r, "%s: byte %" PRIu64 ": IN for session %" PRIu64 ", which no OPEN began (corrupt "
                                  "log)", sweep__replay_path(r), x->offset, x->session);
    request q;
    q.x = x;
    q.s = s;
    q.tcp = s->tcp;
    q.decoded = 0;
    q.commands_seen = q.commands_repeat = 0;
    if (c->compact)
        return on_request_moves(r, c, &q, outs, out_count);
    /* A version 1 log: the moves of the request, for the results. */
    if (request_decode(r, c, &q) != 0)
        return -1;
    const sweep_msg_move *moves = q.rv.moves;
    uint32_t move_count = q.rv.move_count, cursor = 0;
    for (uint32_t k = 0; k < out_count; k++) {
        const sweep_record *o = &outs[k];
        sweep_message m;
        sweep_decoded_motion v;
        int full;
        if (decode_out(r, c, &outs[k], &m, &v, &full) != 0)
            return -1;
        int rc = 0;
        if (m.kind == SWEEP_MSG_MOVE_RESULT || m.kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
            for (uint32_t i = 0; i < v.result_count && rc == 0; i++)
                rc = check_result(r, c, o, moves, move_count, &cursor, &v.results[i],
                                  m.kind == SWEEP_MSG_MOVE_RESULT_BATCH, i);
        } else {
            rc = on_answer(r, c, o, &q, &m);
        }
        if (rc < 0)
            return -1;
        if (sweep__replay_watched(r))
            sweep__replay_notify(r, o->session, &m);
    }
    return 0;
}

/* One tick of the movers, as server/world/world.c's tick_movers: every
 * entity its body in spawn order, and what it keeps of the tick (the
 * world's rules, entity_motion.h); crushed entities taken out, each compared with the Despawned the server
 * sent its owner (from the last body to the first, as it sends them). */
int sweep__replay_core_on_tick(sweep_replay *r, sweep__replay_core *c, const sweep_record *x,
                               const sweep_record *outs, uint32_t out_count)
{
    if (c->observer)
        c->observer(c->observer_ctx, NULL);
    c->tick = x->tick;
    uint32_t n = c->ent_count, crushed = 0;
    if (c->movers) {
        if (sweep__replay_grow((void **)&c->bodies, &c->body_cap, n + 1, sizeof *c->bodies) != 0 ||
            sweep__replay_grow((void **)&c->crushed, &c->crushed_cap, 2 * n + 2, sizeof *c->crushed) != 0)
            return sweep__replay_fail(r, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            c->bodies[i] = sweep__entity_body(&c->ents[i].st);
        if (c->movers_observer.before_tick)
            c->movers_observer.before_tick(c->movers_observer.ctx, c->bodies, n);
        /* A failed tick moves nothing (the server logs it and goes on). */
        sweep_status ts = sweep_movers_tick(c->movers, c->world, &c->level.config, c->bodies, n, NULL);
        if (c->ticked)
            c->ticked(c->observer_ctx);
        if (c->movers_observer.after_tick)
            c->movers_observer.after_tick(c->movers_observer.ctx, c->movers, c->bodies, n, ts);
        if (ts == SWEEP_OK) {
            uint32_t any_crushed = 0;
            for (uint32_t i = 0; i < n; i++) {
                sweep__entity_take_body(&c->ents[i].st, &c->bodies[i]);
                any_crushed |= c->bodies[i].flags & SWEEP_BODY_CRUSHED;
            }
            for (uint32_t i = n; any_crushed && i-- > 0;) {
                if (c->bodies[i].flags & SWEEP_BODY_CRUSHED) {
                    c->crushed[2 * crushed] = i;
                    c->crushed[2 * crushed + 1] = c->bodies[i].mover;
                    crushed++;
                }
            }
        }
    } else if (c->ticked) {
        c->ticked(c->observer_ctx);
    }
    for (uint32_t k = 0; k < out_count || k < crushed; k++) {
        char rec[128], rep[128];
        if (k >= out_count || k >= crushed) {
            snprintf(rec, sizeof rec, "%u", out_count);
            snprintf(rep, sizeof rep, "%u (entities crushed)", crushed);
            const sweep_record *o = k < out_count ? &outs[k] : NULL;
            return sweep__replay_diverge(r, o ? o->session : 0, 0, o ? o->offset : x->offset,
                                         "number of messages sent", rec, rep);
        }
        const sweep_record *o = &outs[k];
        sweep_message m;
        if (o->type != SWEEP_RECORD_OUT)
            return sweep__replay_fail(r, "%s: byte %" PRIu64 ": %s record after a TICK, which runs no move (corrupt "
                                      "log)", sweep__replay_path(r), o->offset, sweep_record_type_name(o->type));
        if (decode_out(r, c, &outs[k], &m, NULL, NULL) != 0)
            return -1;
        const core_entity *e = &c->ents[c->crushed[2 * k]];
        uint32_t by = mover_id(c, c->crushed[2 * k + 1]);
        if (m.kind != SWEEP_MSG_DESPAWNED) {
            snprintf(rep, sizeof rep, "%s", sweep_msg_kind_name(SWEEP_MSG_DESPAWNED));
            return sweep__replay_diverge(r, o->session, e->id, o->offset, "message kind", sweep_msg_kind_name(m.kind),
                                         rep);
        }
        if (m.as.despawned.entity != e->id || m.as.despawned.crushed_by != by || o->session != e->session) {
            int which = m.as.despawned.entity != e->id || o->session != e->session;
            snprintf(rec, sizeof rec, "%u", which ? m.as.despawned.entity : m.as.despawned.crushed_by);
            snprintf(rep, sizeof rep, "%u", which ? e->id : by);
            return sweep__replay_diverge(r, o->session, m.as.despawned.entity, o->offset,
                                         which ? "Despawned.entity" : "Despawned.crushed_by", rec, rep);
        }
        if (sweep__replay_watched(r))
            sweep__replay_notify(r, o->session, &m);
    }
    for (uint32_t k = 0; k < crushed; k++)
        c->ents[c->crushed[2 * k]].gone = 1;
    if (crushed && compact_entities(c) != 0)
        return sweep__replay_fail(r, "out of memory");
    return 0;
}
