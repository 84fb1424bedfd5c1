/*
 * fuzz_world.c - libFuzzer harness over the world library's requests
 * (server/world/world.h): sessions of every role sending any well-formed
 * request with any values in it, between ticks, on the sample maps.
 *
 * The protocol's own harness (fuzz_protocol.c) sends bytes at the codec,
 * where nearly every mutation stops at the verifier. Here the input is a
 * script read field by field: which map and options, then requests and
 * ticks. Each request is built from the script's values (NaN, infinities,
 * subnormals, huge and negative numbers, unknown modes and ops, ids of
 * nobody or of another owner's entity, batches past the limit, ...),
 * encoded, and decoded by the decoder sweepd uses, so the world sees
 * exactly what a client could make it see, and nothing the decoder
 * refuses.
 *
 * Beyond "no crash, no sanitizer report" (ASan, UBSan, and the world's
 * and the core's own invariants: SWEEP_CHECKS, after every request and
 * tick), it checks on every input:
 * - every message the world hands its sink encodes, and decodes back:
 *   the server never makes an answer it cannot send;
 * - every request is answered once, by a message of its sequence (a
 *   move too old to have a kept result may go unanswered);
 * - an Error names a code and says why;
 * - every velocity a MoveResult, CollideResult or EntityState holds is
 *   finite, and every entity's position is within the map's coordinate
 *   limit;
 * - a player session's move takes its entity no farther than the rules
 *   let it (speed_limit for the time granted, a step up or down a step,
 *   the change of stance), unless a teleporter moved it;
 * - every entity made is freed when its owners are released;
 * - the script replays: run again on a world opened apart, as a replay
 *   runs a log (the ids each Spawn was given instead of draws, no memory
 *   limit, no clock, the requests the first run dropped left out), it
 *   gives the same messages byte for byte, the same moves and ids in the
 *   same order and the same state hash. So nothing the world does depends on
 *   memory left over, on where the worlds lie, or on anything a log does
 *   not keep.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (server.mk): `make
 * fuzz-world FUZZ_SECONDS=N`, and a bounded smoke run in `make test`. The
 * seeds are scripts written by tests/fuzz/make_world_seeds.c.
 *
 * The script: byte 0 picks the map (arena, pads, pool, the arena with
 * crouching) and the world's options; then, to its end, an op byte each:
 *   0xF0 | n      n + 1 ticks
 *   else          a request of owner (op & 3) (a TCP player, a UDP player,
 *                 the server role over TCP, the server role over UDP),
 *                 its kind (op >> 2) % 9, its fields read from what follows
 *                 (tests/fuzz/world_script.h says how).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "server/world/log.h"
#include "server/world/request_decoder.h"
#include "server/world/world.h"
#include "tests/fuzz/sample_maps.h"
#include "tests/fuzz/world_script.h"

#define OWNERS 4u
/* The sample maps, and the arena with crouching (fuzz_crouching_copy). */
#define MAPS 4u
static const char *const map_names[MAPS - 1] = {"arena.db", "pads.db", "pool.db"};
static char map_paths[MAPS][4096];
static char scratch[64];

static void remove_scratch(void)
{
    unlink(map_paths[MAPS - 1]);
    rmdir(scratch);
}

static void fail(const char *what, uint64_t at)
{
    fprintf(stderr, "fuzz_world: %s (%llu)\n", what, (unsigned long long)at);
    abort();
}

/* One run of a script: what its sink saw, hashed as it came. */
typedef struct run {
    uint64_t hash;      /* FNV-1a over every callback and its bytes */
    uint64_t calls;
    int entities;       /* entities made less entities freed */
    uint32_t mem_left;  /* entities mem_fits still lets in */
    uint32_t draws;     /* ids drawn */
    uint8_t *enc;       /* where messages are encoded */
    size_t enc_cap;
    /* Where each entity of a player session was last said to be (ids
     * are drawn from 1 to 24: on_draw_id). */
    struct {
        int known;
        sweep_vec3 position;
    } players[25];
    uint32_t requests; /* requests applied (or, replaying, passed over) */
    const sweep__owner *asker; /* the request being applied: its owner, */
    uint32_t asked;            /* its sequence */
    uint32_t answers;          /* and the messages that answered it */
    const sweep_msg_move_batch *batch; /* the request, when a MoveBatch */
    int replaying; /* the second run: ids and drops from the plan, no draws, no memory limit */
    int dropped;   /* the request being applied was dropped */
} run;

/* What the first run of a script did that a log keeps apart from its
 * requests, for the second run to replay: the ids each request's Spawns
 * were given, and which requests were dropped (refused for the process's
 * room, changing nothing: a log never holds them). */
#define PLAN_REQUESTS 8192u
static struct {
    uint32_t count;                    /* requests the first run applied */
    uint8_t dropped[PLAN_REQUESTS];
    uint32_t first[PLAN_REQUESTS + 1]; /* request i's ids: ids[first[i] .. first[i + 1]) */
    uint32_t ids[PLAN_REQUESTS];
    uint32_t id_count;
} plan;

/* A client's decoder, with room for every list an answer may hold. */
#define BACK 256u
static sweep_msg_move back_moves[BACK];
static sweep_msg_move_result back_results[BACK];
static sweep_wire_mover back_movers[BACK];
static sweep_msg_entity_command back_commands[BACK];
static sweep_msg_entity_command_result back_command_results[BACK];
static sweep_wire_entity_state back_states[BACK];
static sweep_wire_world_info back_worlds[BACK];
static sweep_msg_query_item back_items[BACK];
static sweep_msg_query_answer back_answers[BACK];
static sweep_wire_query_hit back_hits[BACK * SWEEP_WIRE_QUERY_HITS_MAX];
static uint32_t back_ignore[BACK];
static sweep_wire_hit_shape back_shapes[BACK];
static const sweep_decoder back = {
    .moves = back_moves, .moves_cap = BACK, .results = back_results, .results_cap = BACK,
    .movers = back_movers, .movers_cap = BACK, .commands = back_commands, .commands_cap = BACK,
    .command_results = back_command_results, .command_results_cap = BACK,
    .entity_states = back_states, .entity_states_cap = BACK, .worlds = back_worlds, .worlds_cap = BACK,
    .query_items = back_items, .query_items_cap = BACK, .query_answers = back_answers,
    .query_answers_cap = BACK, .query_hits = back_hits, .query_hits_cap = BACK * SWEEP_WIRE_QUERY_HITS_MAX,
    .query_ignore = back_ignore, .query_ignore_cap = BACK, .hit_shapes = back_shapes, .hit_shapes_cap = BACK,
};

static void mix(run *r, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        r->hash = (r->hash ^ b[i]) * 1099511628211ull;
}

static void mix_u64(run *r, uint64_t v)
{
    mix(r, &v, sizeof v);
}

static void check_vec(sweep_vec3 v, const char *what, uint64_t at)
{
    if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z))
        fail(what, at);
}

/* Where an entity can be: finite, and within the map's coordinate limit. */
static const sweep_config *place_limit;
static const sweep_rules *player_rules;
static sweep_vec3 player_radii;
static void check_place(sweep_vec3 v, const char *what, uint64_t at)
{
    check_vec(v, what, at);
    if (!sweep_config_contains(place_limit, v))
        fail(what, at);
}

static void check_message(const sweep_message *m)
{
    switch (m->kind) {
    case SWEEP_MSG_ERROR:
        if (m->as.error.code == SWEEP_WIRE_NONE || !m->as.error.message.ptr || m->as.error.message.len == 0)
            fail("an Error without a code or a reason", m->sequence);
        break;
    case SWEEP_MSG_SPAWNED:
        check_place(m->as.spawned.position, "a Spawned position outside the map", m->as.spawned.entity);
        check_vec(m->as.spawned.radii, "Spawned radii not finite", m->as.spawned.entity);
        break;
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        for (uint32_t i = 0; i < m->as.move_result_batch.count; i++) {
            const sweep_msg_move_result *res = &m->as.move_result_batch.results[i];
            check_place(res->position, "a MoveResult position outside the map", res->entity);
            check_vec(res->velocity, "a MoveResult velocity not finite", res->entity);
        }
        break;
    case SWEEP_MSG_MOVE_RESULT:
        check_place(m->as.move_result.position, "a MoveResult position outside the map", m->as.move_result.entity);
        check_vec(m->as.move_result.velocity, "a MoveResult velocity not finite", m->as.move_result.entity);
        break;
    case SWEEP_MSG_COLLIDE_RESULT:
        check_vec(m->as.collide_result.position, "a CollideResult position not finite", m->sequence);
        check_vec(m->as.collide_result.velocity, "a CollideResult velocity not finite", m->sequence);
        break;
    case SWEEP_MSG_ENTITY_STATES:
        for (uint32_t i = 0; i < m->as.entity_states.count; i++) {
            const sweep_wire_entity_state *es = &m->as.entity_states.entities[i];
            check_place(es->position, "an EntityState position outside the map", es->entity);
            check_vec(es->velocity, "an EntityState velocity not finite", es->entity);
        }
        break;
    case SWEEP_MSG_ENTITY_COMMANDS_RESULT:
        for (uint32_t i = 0; i < m->as.entity_commands_result.count; i++) {
            const sweep_msg_entity_command_result *cr = &m->as.entity_commands_result.results[i];
            if (cr->code != SWEEP_WIRE_NONE && (!cr->message.ptr || cr->message.len == 0))
                fail("a refused EntityCommand without a reason", cr->entity);
            if (cr->has_state) {
                check_place(cr->position, "an EntityCommandResult position outside the map", cr->entity);
                check_vec(cr->velocity, "an EntityCommandResult velocity not finite", cr->entity);
            }
        }
        break;
    default:
        break;
    }
}

/* The message as sweepd would send it: encoded (the bytes hashed), and
 * decoded back by a client's decoder. */
static void encode_hashed(run *r, const sweep_message *m)
{
    const uint8_t *out;
    size_t len;
    sweep_proto_error e = sweep_encode(m, 0, r->enc, r->enc_cap, &out, &len);
    if (e != SWEEP_PROTO_OK)
        fail("a message the world made does not encode", (uint64_t)m->kind);
    sweep_message decoded;
    if (sweep_decode(&back, out, len, 0, &decoded) != SWEEP_PROTO_OK)
        fail("a message the world made does not decode", (uint64_t)m->kind);
    mix(r, out, len);
}

/* The refusals of a MoveBatch as a whole; any other Error while one runs
 * refuses one of its moves (server/world/requests.c, moves.c). */
static int batch_refused(sweep_wire_code code)
{
    return code == SWEEP_WIRE_BATCH_TOO_LARGE || code == SWEEP_WIRE_AUTH_FAILED;
}

/* FUZZ_WORLD_TRACE=1: each message the world hands out, on stderr (to
 * read what a crashing script did). */
static int trace;

static void on_message(void *ctx, sweep__owner *to, const sweep_message *m)
{
    run *r = ctx;
    r->calls++;
    if (to == r->asker && r->batch && m->kind == SWEEP_MSG_ERROR && !batch_refused(m->as.error.code)) {
        /* One move of the batch refused: the Error carries that move's
         * sequence (in Message.sequence too), not the batch's, and is no
         * answer to the batch. */
        int named = 0;
        for (uint32_t k = 0; k < r->batch->count && !named; k++)
            named = r->batch->moves[k].sequence == m->as.error.sequence;
        if (!named || m->sequence != m->as.error.sequence)
            fail("a batch's Error that names none of its moves", m->as.error.sequence);
    } else if (to == r->asker && m->sequence == r->asked)
        r->answers++;
    if (trace)
        fprintf(stderr, "to %llu: %s %u %.*s\n", (unsigned long long)to->id, sweep_msg_kind_name(m->kind),
                m->sequence, m->kind == SWEEP_MSG_ERROR ? (int)m->as.error.message.len : 0,
                m->kind == SWEEP_MSG_ERROR ? m->as.error.message.ptr : "");
    mix_u64(r, 'M' ^ (to->id << 8));
    check_message(m);
    encode_hashed(r, m);
    if (to->role != SWEEP_WIRE_ROLE_PLAYER)
        return;
    if (m->kind == SWEEP_MSG_SPAWNED && m->as.spawned.entity < 25) {
        r->players[m->as.spawned.entity].known = 1;
        r->players[m->as.spawned.entity].position = m->as.spawned.position;
    } else if (m->kind == SWEEP_MSG_DESPAWNED && m->as.despawned.entity < 25) {
        r->players[m->as.despawned.entity].known = 0;
    }
}

/* A player's move goes no farther than its rules let it: speed_limit for
 * the time granted, a step up or down each step, and the change of
 * stance; unless a teleporter moved it (a mover's push is told as
 * the move's start). */
static void check_player_reach(run *r, const sweep_msg_move_result *res)
{
    if (res->entity >= 25)
        fail("a player's entity with an id never drawn", res->entity);
    if (r->players[res->entity].known && !res->teleported_by) {
        sweep_vec3 from = res->has_start_position ? res->start_position : r->players[res->entity].position;
        double dx = res->position.x - from.x, dy = res->position.y - from.y, dz = res->position.z - from.z;
        double d = sqrt(dx * dx + dy * dy + dz * dz);
        const sweep_rules *ru = player_rules;
        double steps = ceil(res->applied_dt / ru->max_step) + 1.0;
        double stance = fabs(ru->crouch_radii.z - player_radii.z);
        double reach = ru->speed_limit * res->applied_dt + steps * place_limit->step_height + stance +
                       1e-6 * (1.0 + fabs(from.x) + fabs(from.y) + fabs(from.z));
        if (!(res->applied_dt >= 0.0) || !(d <= reach)) {
            fprintf(stderr, "fuzz_world: entity %u moved %g in %g s (reach %g)\n", res->entity, d, res->applied_dt,
                    reach);
            fail("a player's move went farther than its rules allow", res->sequence);
        }
    }
    r->players[res->entity].known = 1;
    r->players[res->entity].position = res->position;
}

static void on_move(void *ctx, const sweep__owner *o, const sweep_msg_move *mv, const sweep_msg_move_result *res)
{
    run *r = ctx;
    r->calls++;
    mix_u64(r, 'v' ^ (o->id << 8));
    sweep_message m = {.kind = SWEEP_MSG_MOVE, .sequence = mv->sequence};
    m.as.move = *mv;
    encode_hashed(r, &m);
    m = (sweep_message){.kind = SWEEP_MSG_MOVE_RESULT, .sequence = res->sequence};
    m.as.move_result = *res;
    check_message(&m);
    encode_hashed(r, &m);
    if (o->role == SWEEP_WIRE_ROLE_PLAYER)
        check_player_reach(r, res);
}

static void on_entity_id(void *ctx, uint32_t id)
{
    run *r = ctx;
    r->calls++;
    if (r->replaying == 0 && plan.id_count < PLAN_REQUESTS)
        plan.ids[plan.id_count++] = id;
    mix_u64(r, 'i' ^ ((uint64_t)id << 8));
}

static void on_dropped(void *ctx)
{
    run *r = ctx;
    r->calls++;
    if (trace)
        fprintf(stderr, "dropped: request %u\n", r->requests - 1);
    if (r->replaying)
        fail("a request dropped in the replay", 0);
    r->dropped = 1;
    mix_u64(r, 'd');
}

static void on_tick(void *ctx, uint64_t tick)
{
    run *r = ctx;
    r->calls++;
    mix_u64(r, 't' ^ (tick << 8));
}

static void on_entities(void *ctx, int delta)
{
    run *r = ctx;
    if (delta != 1 && delta != -1)
        fail("entities told by other than one", (uint64_t)(int64_t)delta);
    r->entities += delta;
    if (r->entities < 0)
        fail("more entities freed than made", 0);
    mix_u64(r, delta > 0 ? '+' : '-');
}

static int on_mem_fits(void *ctx, size_t more, char *why, size_t whylen)
{
    run *r = ctx;
    if (more == 0)
        fail("mem_fits asked for nothing", 0);
    if (r->mem_left == 0) {
        snprintf(why, whylen, "the fuzzer's memory limit (entities)");
        return 0;
    }
    r->mem_left--;
    return 1;
}

/* Ids from a short cycle, so that some draws meet a living entity's id
 * and the world draws again (or gives up). */
static uint32_t on_draw_id(void *ctx)
{
    run *r = ctx;
    return 1 + r->draws++ % 24u;
}

static const sweep__world_sink sink_proto = {on_message, on_move, on_entity_id, on_dropped, on_tick,
                                             on_entities, on_mem_fits, on_draw_id, NULL};

/* Runs the script once on a world of its own; 0, or -1 when the world
 * could not be opened (the same both times: the script is skipped). */
static int run_script(const uint8_t *data, size_t size, run *r, uint64_t *state)
{
    ws_reader s = {data, size};
    uint8_t head = ws_u8(&s);
    sweep__world_options opt = {
        .tick_rate = 0,
        /* sweepd's default, or its least (0.001 to 60 s: with none, a
         * player's moves are granted nothing at all). */
        .time_bank = (head & 0x08) ? 0.001 : 0.25,
        .allow_free_move = (head & 0x10) != 0,
        .players_block = (head & 0x20) != 0,
        .max_entities = 6,
        .max_entities_server = 12,
        .max_batch = 8,
        .server_role_possible = 1,
        .history_ms = (head & 0x40) ? 100 : 0,
        .history_entities = 8,
        .query_rate = (head & 0x80) ? 30.0 : 0.0,
    };
    r->mem_left = (head & 0x04) ? 5 : UINT32_MAX;
    char err[1024];
    sweep__world *w = sweep__world_open(map_paths[head & 3u], &opt, 0, err, sizeof err);
    if (!w) {
        fprintf(stderr, "fuzz_world: %s\n", err);
        return -1;
    }
    place_limit = &w->level.config;
    player_rules = &w->level.rules;
    player_radii = w->level.default_radii;
    sweep__world_sink sink = sink_proto;
    sink.ctx = r;
    if (!r->replaying) {
        plan.count = 0;
        plan.id_count = 0;
    } else {
        /* As a replay runs a log: no draws (the ids are the log's), no
         * process beside the world to run out of room. */
        sink.draw_id = NULL;
        sink.mem_fits = NULL;
    }
    static const char *const idents[OWNERS] = {"player-tcp", "player-udp", "server-tcp", "server-udp"};
    sweep__owner own[OWNERS];
    for (uint32_t i = 0; i < OWNERS; i++)
        sweep__owner_init(&own[i], w, i + 1, i >= 2 ? SWEEP_WIRE_ROLE_SERVER : SWEEP_WIRE_ROLE_PLAYER, i & 1,
                          i & 1 ? 4 : 8, idents[i], strlen(idents[i]), 0);
    static ws_builder b;
    if (ws_builder_init(&b) != 0)
        fail("out of memory", 0);
    while (s.n) {
        uint8_t op = ws_u8(&s);
        if (op >= 0xF0) {
            for (unsigned t = 0; t <= (op & 0x0Fu); t++) {
                sweep__world_tick(w, &sink);
                sweep__world_check(w);
            }
            continue;
        }
        sweep__owner *o = &own[op & 3u];
        sweep_message m;
        ws_build(&s, &b, op >> 2, w->tick, &m);
        const uint8_t *out;
        size_t len;
        if (sweep_encode(&m, 0, r->enc, r->enc_cap, &out, &len) != SWEEP_PROTO_OK)
            fail("a request the script made does not encode", (uint64_t)m.kind);
        /* What sweepd's decoder would hand the world (in its own buffer:
         * the encoder's scratch is reused for the answers). */
        uint8_t *copy = malloc(len ? len : 1);
        if (!copy)
            fail("out of memory", len);
        memcpy(copy, out, len);
        sweep_message in;
        if (sweep_decode(&b.dec.dec, copy, len, 0, &in) == SWEEP_PROTO_OK && sweep__world_handles(in.kind)) {
            uint32_t i = r->requests++;
            if (trace)
                fprintf(stderr, "%s request %u: %s of session %llu\n", r->replaying ? "replay" : "run", i,
                        sweep_msg_kind_name(in.kind), (unsigned long long)o->id);
            if (i >= PLAN_REQUESTS)
                fail("more requests than the plan holds", i);
            sweep__request rq = {o, &sink, 0, NULL, 0};
            r->asker = o;
            r->asked = in.sequence;
            r->answers = 0;
            r->batch = in.kind == SWEEP_MSG_MOVE_BATCH ? &in.as.move_batch : NULL;
            if (!r->replaying) {
                /* sweepd's clock, a millisecond a request: only the rule
                 * log's rate may read it (a replay has none). */
                rq.now = 1000000000ull + (uint64_t)i * 1000000ull;
                plan.first[i] = plan.id_count;
                uint64_t hash = r->hash, calls = r->calls;
                r->dropped = 0;
                mix_u64(r, 'R' ^ ((uint64_t)in.kind << 8));
                sweep__world_request(w, &rq, &in);
                /* What a dropped request sent is not the log's. */
                plan.dropped[i] = (uint8_t)r->dropped;
                if (r->dropped) {
                    r->hash = hash;
                    r->calls = calls;
                    plan.id_count = plan.first[i];
                }
                plan.first[i + 1] = plan.id_count;
                plan.count = i + 1;
            } else if (!plan.dropped[i]) {
                rq.ids = plan.ids + plan.first[i];
                rq.id_count = plan.first[i + 1] - plan.first[i];
                mix_u64(r, 'R' ^ ((uint64_t)in.kind << 8));
                sweep__world_request(w, &rq, &in);
            }
            /* One answer a request, named by its sequence; a move too old
             * to have a kept result may go unanswered. */
            int moves = in.kind == SWEEP_MSG_MOVE || in.kind == SWEEP_MSG_MOVE_BATCH;
            if (r->answers > 1 || (r->answers == 0 && !moves && !(r->replaying && plan.dropped[i])))
                fail("a request answered other than once", r->answers);
            r->asker = NULL;
            r->batch = NULL;
            sweep__world_check(w);
        }
        free(copy);
    }
    if (r->replaying && r->requests != plan.count)
        fail("the replay read other requests than the run", r->requests);
    *state = sweep__world_state_hash(w);
    for (uint32_t i = 0; i < OWNERS; i++)
        sweep__owner_release(&own[i], &sink);
    ws_builder_free(&b);
    sweep__world_close(w);
    if (r->entities != 0)
        fail("entities left after every owner was released", (uint64_t)r->entities);
    return 0;
}

static int run_init(run *r)
{
    memset(r, 0, sizeof *r);
    r->hash = 1469598103934665603ull;
    r->enc_cap = sweep__answer_buffer_size(64) + (1u << 16);
    r->enc = malloc(r->enc_cap);
    return r->enc ? 0 : -1;
}

static void run_free(run *r)
{
    free(r->enc);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[4096];
    fuzz_sample_maps_dir(*argc, *argv, dir, sizeof dir);
    for (unsigned i = 0; i < MAPS - 1; i++) {
        snprintf(map_paths[i], sizeof map_paths[i], "%s/%s", dir, map_names[i]);
        if (access(map_paths[i], R_OK) != 0) {
            fprintf(stderr, "fuzz_world: no %s (make builds it; or set SWEEP_BUILD_DIR)\n", map_paths[i]);
            exit(1);
        }
    }
    snprintf(scratch, sizeof scratch, "/tmp/fuzz-world-XXXXXX");
    if (!mkdtemp(scratch))
        fail("cannot make a scratch directory", 0);
    snprintf(map_paths[MAPS - 1], sizeof map_paths[MAPS - 1], "%s/arena-crouch.db", scratch);
    atexit(remove_scratch);
    if (fuzz_crouching_copy(map_paths[0], map_paths[MAPS - 1]) != 0)
        exit(1);
    /* The rule lines a hostile script causes would bury the fuzzer's own. */
    sweep__log_set_level(SWEEP_LOG_ERROR);
    trace = getenv("FUZZ_WORLD_TRACE") != NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run a, b;
    if (run_init(&a) != 0 || run_init(&b) != 0)
        fail("out of memory", 0);
    uint64_t state_a = 0, state_b = 0;
    int ra = run_script(data, size, &a, &state_a);
    b.replaying = 1;
    int rb = run_script(data, size, &b, &state_b);
    if (ra != rb)
        fail("a map opened once and not the other time", 0);
    if (ra == 0 && (a.hash != b.hash || a.calls != b.calls || state_a != state_b))
        fail("the replay of a script differs from its run", a.calls);
    run_free(&a);
    run_free(&b);
    return 0;
}
