/*
 * replay.c - re-running session logs (replay.h) on the world library
 * sweepd serves (server/world/world.h) and comparing every message and
 * state hash.
 *
 * A request (IN) or tick (TICK) of the log is followed by the ID records
 * of the entities it made and the OUT records of what the server sent
 * because of it; the replay reads that whole group first, runs the request
 * or tick on the world with those ids, encodes what the world answers as
 * sweepd does for the session's transport (a TCP frame, or the datagrams
 * of a result batch cut as protocol/result_pieces.h cuts them) and
 * compares the two lists, message by message, as bytes. Only when they
 * differ are both sides decoded, to name the first field that does.
 *
 * A version 2 log also has a MOVE record per applied move (record.h),
 * before its answer: the world's sink makes its own at the same place and
 * they are compared like the messages.
 *
 * At the core depth the same loop, groups, segments and divergences
 * serve replay_core.c, which runs each group through the core alone
 * instead of the world (replay_impl.h); of a version 2 log it
 * runs the requests of moves answered by their results, and a TICK that
 * ends its frame, in a lean loop of its own, over the records where they
 * lie, before this loop reads the next record (unless a watcher wants
 * every message decoded).
 */
#include "client-sdk/replay.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client-sdk/replay_impl.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/framing.h"
#include "protocol/result_pieces.h"
#include "server/record/record.h"
#include "server/record/record_move.h"
#include "server/record/record_results.h"
#include "server/record/record_window.h"
#include "server/world/log.h"
#include "server/world/request_decoder.h"
#include "server/world/world.h"

typedef struct replay_session {
    uint64_t id;
    sweep__owner *own; /* its own allocation: the world's entities point at it */
    int tcp;
    uint32_t datagram; /* UDP: the size its answers were cut to (its OPEN's) */
} replay_session;

/* One message the world sent (OUT), or one of its moves (MOVE): in the
 * arena, or only said to be the record the log holds at its place (same;
 * on_sent_as). */
typedef struct sent {
    uint64_t session;
    size_t at, len;
    uint8_t type;
    uint8_t same;
} sent;

struct sweep_replay {
    sweep_record_reader *reader;
    char path[1024];     /* the segment being read */
    char map[1024];
    unsigned flags;           /* sweep_replay_open_flags */
    int ahead_started;        /* read_ahead has run for the first segment */
    sweep__replay_core *core; /* the core depth's state; NULL at the full depth */
    sweep__world *world;      /* the full depth's world; NULL at the core depth */
    sweep__request_decoder requests; /* the requests, decoded as sweepd decoded them */
    uint8_t *out_buf;         /* what the world answers, encoded */
    size_t out_cap;
    int moves_recorded;       /* a version 2 log: MOVE records are compared too */
    int results_recorded;     /* a version 5 log: move results are RESULTS records, compared as such */
    int moves_compact;        /* a log of version 6 on: MOVE images are compact (record_move.h) */
    sweep__record_moved moved; /* the results the world's MOVEs of the group were made from */
    uint8_t *results_buf;     /* the world's answer as a RESULTS payload */
    size_t results_cap;
    /* Rebuilding a RESULTS record (a difference, a watcher): the group's
     * MOVE payloads so far, and room for the results of both sides. */
    const uint8_t **group_moves;
    uint32_t *group_move_lens;
    uint32_t group_move_count, group_move_cap;
    sweep_msg_move_result *rebuilt[2];
    uint32_t rebuilt_cap[2];
    uint32_t udp_max_batch;   /* what a UDP Welcome announced (found by trial encodings: once) */
    /* Records are read in place into these (sweep_record_next writes only
     * the fields of a record's type): one for a record on its own, and two
     * arrays a group is read into in turn, so the record that ended one
     * group (peek, the next to be handled) stays where it is while the
     * next group is read into the other array. */
    sweep_record one;
    sweep_record *recs[2];
    uint32_t recs_cap[2];
    int side; /* the array the next group is read into */
    const sweep_record *peek;
    int has_peek;
    replay_session *sessions;
    uint32_t session_count, session_cap;
    /* Where find_session last found a session of each id modulo
     * SESSION_HINTS: checked against the array, so a stale one (a session
     * closed, the last moved into its place) only costs the search. */
    uint32_t session_hint[64];
    /* The group being replayed: ids to give, OUT and MOVE records
     * expected (in recs[side ^ 1] once read). */
    uint32_t *ids;
    uint32_t id_count, id_cap;
    const sweep_record *expect;
    uint32_t expect_count;
    /* What the world sent for it. */
    sent *sent;
    uint32_t sent_count, sent_cap;
    uint8_t *arena;
    size_t arena_len, arena_cap;
    int arena_failed;
    uint64_t *input;     /* an 8-aligned copy of the request */
    size_t input_cap;    /* in uint64_t */
    /* Decoding for differences and watchers. */
    sweep_decoder dec[2];
    sweep_msg_move *dec_moves[2];
    sweep_msg_move_result *dec_results[2];
    sweep_wire_mover *dec_movers[2];
    sweep_msg_entity_command *dec_commands[2];
    sweep_msg_entity_command_result *dec_command_results[2];
    sweep_msg_query_item *dec_query_items[2];
    sweep_msg_query_answer *dec_query_answers[2];
    sweep_wire_query_hit *dec_query_hits[2];
    uint32_t *dec_query_ignore[2];
    sweep_wire_hit_shape *dec_hit_shapes[2];
    uint64_t *scratch[2];
    size_t scratch_cap[2]; /* in uint64_t */
    sweep_replay_watcher watcher;
    const sweep_message *request; /* the request being replayed (watchers' events), NULL between */
    void *watcher_ctx;
    sweep__replay_rewriter rewriter; /* re-answering (replay_reanswer.c): differences handed to it */
    void *rewriter_ctx;
    sweep_replay_stats stats;
    sweep_replay_divergence div;
    int diverged;
    char error[1400];
    int done;
    uint64_t bytes_before; /* sizes of the segments already read */
};

static int set_error(sweep_replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_error(sweep_replay *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->done = 1;
    return -1;
}

/* The world's tick and the map's content hash, at either depth. */
static uint64_t world_tick(const sweep_replay *r)
{
    return r->core ? sweep__replay_core_tick(r->core) : r->world->tick;
}

static const uint8_t *map_hash(const sweep_replay *r)
{
    return r->core ? sweep__replay_core_map_hash(r->core) : r->world->hash.bytes;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*p, (size_t)ncap * size);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

/* Room for need bytes at *p (doubling from 64 KiB); -1 when there is none. */
static int grow_bytes(uint8_t **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64u * 1024u;
    while (ncap < need)
        ncap *= 2;
    uint8_t *n = realloc(*p, ncap);
    if (!n)
        return -1;
    *p = n;
    *cap = ncap;
    return 0;
}

/* What the world sent, kept for compare(). Nearly always it is the
 * record the log holds at its place, which the group was read for before
 * the request ran: compared here, as it is made, and then not copied
 * (compare() reads the bytes of a message that differs, and of the first
 * one past the log's, never of one that matched): 78 instructions a move
 * fewer at the full depth (callgrind, the arena's 20 s log of 16 bots). */
static SWEEP__ALWAYS_INLINE void on_sent_as(sweep_replay *r, uint8_t type, uint64_t session, const uint8_t *bytes, size_t len)
{
    if (grow((void **)&r->sent, &r->sent_cap, r->sent_count + 1, sizeof *r->sent) != 0) {
        r->arena_failed = 1;
        return;
    }
    if (r->sent_count < r->expect_count) {
        const sweep_record *x = &r->expect[r->sent_count];
        if (x->type == type && x->session == session && x->bytes.len == len && memcmp(x->bytes.ptr, bytes, len) == 0) {
            r->sent[r->sent_count++] = (sent){session, 0, len, type, 1};
            return;
        }
    }
    if (grow_bytes(&r->arena, &r->arena_cap, r->arena_len + len) != 0) {
        r->arena_failed = 1;
        return;
    }
    memcpy(r->arena + r->arena_len, bytes, len);
    r->sent[r->sent_count++] = (sent){session, r->arena_len, len, type, 0};
    r->arena_len += len;
}

#define SESSION_HINTS (sizeof ((sweep_replay *)0)->session_hint / sizeof ((sweep_replay *)0)->session_hint[0])

/* Every request looks its session up: a log of 16 bots searched half of
 * them each time (47 instructions a move), where the hint finds it. */
static replay_session *find_session(sweep_replay *r, uint64_t id)
{
    uint32_t *hint = &r->session_hint[id % SESSION_HINTS];
    if (*hint < r->session_count && r->sessions[*hint].id == id)
        return &r->sessions[*hint];
    for (uint32_t i = 0; i < r->session_count; i++) {
        if (r->sessions[i].id == id) {
            *hint = i;
            return &r->sessions[i];
        }
    }
    return NULL;
}

/* --- the world's sink: what sweepd would have sent, as bytes ------------ */

typedef struct piece_of {
    sweep_replay *r;
    uint64_t session;
} piece_of;

static int on_piece(void *ctx, const uint8_t *bytes, size_t len)
{
    piece_of *p = ctx;
    on_sent_as(p->r, SWEEP_RECORD_OUT, p->session, bytes, len);
    return 0;
}

/* A move answer of a version 5 log: the RESULTS payload sweepd would have
 * written of it (record_results.h), compared as the record. */
static void on_results(sweep_replay *r, uint64_t session, const sweep_message *m)
{
    uint32_t count = m->kind == SWEEP_MSG_MOVE_RESULT_BATCH ? m->as.move_result_batch.count : 1;
    if (grow_bytes(&r->results_buf, &r->results_cap, sweep__record_results_bound(count)) != 0) {
        r->arena_failed = 1;
        return;
    }
    size_t n = sweep__record_results_encode(r->results_buf, r->moves_compact, session, m, &r->moved);
    on_sent_as(r, SWEEP_RECORD_RESULTS, session, r->results_buf, n);
}

static void on_message(void *ctx, sweep__owner *to, const sweep_message *m)
{
    sweep_replay *r = ctx;
    if (r->results_recorded && sweep__record_results_kind(m->kind)) {
        on_results(r, to->id, m);
        return;
    }
    const replay_session *rs = find_session(r, to->id);
    int tcp = rs && rs->tcp;
    /* As sweepd's outcomes.c: a result batch cut to the transport, any
     * other message whole. */
    piece_of p = {r, to->id};
    sweep_encode_pieces(m, tcp, rs ? rs->datagram : SWEEP_UDP_MAX_DATAGRAM, r->out_buf, r->out_cap, on_piece, &p);
}

static void on_move(void *ctx, const sweep__owner *o, const sweep_msg_move *mv, const sweep_msg_move_result *res)
{
    sweep_replay *r = ctx;
    if (!r->moves_recorded)
        return;
    uint8_t image[SWEEP__RECORD_MOVE_MAX];
    size_t n = sweep__record_move_encode(image, r->moves_compact, o->id, mv->mode, mv->buttons, mv->velocity,
                                         sweep__record_move_cut_forgiven(res), res);
    on_sent_as(r, SWEEP_RECORD_MOVE, o->id, image, n);
    if (r->results_recorded) {
        sweep__record_moved *mo = &r->moved;
        if (grow((void **)&mo->res, &mo->cap, mo->count + 1, sizeof *mo->res) != 0) {
            r->arena_failed = 1;
            return;
        }
        mo->res[mo->count++] = res;
    }
}

/* No ids drawn, no memory limit: the ids are the log's, and a replay does
 * what the log did. */
static sweep__world_sink sink_of(sweep_replay *r)
{
    return (sweep__world_sink){.message = on_message, .move = on_move, .ctx = r};
}

/* The next record, read into *into (or the one a group ended with). */
static int next_record(sweep_replay *r, sweep_record *into, const sweep_record **out)
{
    if (r->has_peek) {
        *out = r->peek;
        r->has_peek = 0;
        return 1;
    }
    char err[1200];
    int got = sweep_record_next(r->reader, into, err, sizeof err);
    if (got < 0)
        return set_error(r, "%s", err);
    *out = into;
    return got;
}

/* ---- describing a difference ------------------------------------------ */

static void text_double(char *out, size_t n, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    snprintf(out, n, "%.17g (0x%016" PRIx64 ")", v, b);
}

typedef struct differ {
    char field[96];
    char a[128], b[128];
    int found;
} differ;

static int diff_u64(differ *d, const char *field, uint64_t a, uint64_t b)
{
    if (d->found || a == b)
        return d->found;
    snprintf(d->field, sizeof d->field, "%s", field);
    snprintf(d->a, sizeof d->a, "%" PRIu64, a);
    snprintf(d->b, sizeof d->b, "%" PRIu64, b);
    return d->found = 1;
}

static int diff_f64(differ *d, const char *field, double a, double b)
{
    if (d->found || memcmp(&a, &b, sizeof a) == 0)
        return d->found;
    snprintf(d->field, sizeof d->field, "%s", field);
    text_double(d->a, sizeof d->a, a);
    text_double(d->b, sizeof d->b, b);
    return d->found = 1;
}

static int diff_vec(differ *d, const char *field, sweep_vec3 a, sweep_vec3 b)
{
    char f[96];
    snprintf(f, sizeof f, "%s.x", field);
    diff_f64(d, f, a.x, b.x);
    snprintf(f, sizeof f, "%s.y", field);
    diff_f64(d, f, a.y, b.y);
    snprintf(f, sizeof f, "%s.z", field);
    return diff_f64(d, f, a.z, b.z);
}

static int diff_str(differ *d, const char *field, sweep_str a, sweep_str b)
{
    if (d->found || (a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0)))
        return d->found;
    snprintf(d->field, sizeof d->field, "%s", field);
    snprintf(d->a, sizeof d->a, "\"%.*s\"", (int)(a.len < 100 ? a.len : 100), a.ptr ? a.ptr : "");
    snprintf(d->b, sizeof d->b, "\"%.*s\"", (int)(b.len < 100 ? b.len : 100), b.ptr ? b.ptr : "");
    return d->found = 1;
}

static void diff_result(differ *d, const char *pre, const sweep_msg_move_result *a, const sweep_msg_move_result *b)
{
    char f[96];
#define F(name) (snprintf(f, sizeof f, "%s.%s", pre, name), f)
    diff_u64(d, F("entity"), a->entity, b->entity);
    diff_u64(d, F("sequence"), a->sequence, b->sequence);
    diff_u64(d, F("server_tick"), a->server_tick, b->server_tick);
    diff_vec(d, F("position"), a->position, b->position);
    diff_vec(d, F("velocity"), a->velocity, b->velocity);
    diff_u64(d, F("grounded"), a->grounded, b->grounded);
    diff_vec(d, F("ground_normal"), a->ground_normal, b->ground_normal);
    diff_u64(d, F("ground_material"), a->ground_material, b->ground_material);
    diff_u64(d, F("contact_count"), a->contact_count, b->contact_count);
    for (uint32_t i = 0; i < a->contact_count && i < b->contact_count && !d->found; i++) {
        char c[64];
        snprintf(c, sizeof c, "contacts[%u].point", i);
        diff_vec(d, F(c), a->contacts[i].point, b->contacts[i].point);
        snprintf(c, sizeof c, "contacts[%u].normal", i);
        diff_vec(d, F(c), a->contacts[i].normal, b->contacts[i].normal);
        snprintf(c, sizeof c, "contacts[%u].triangle", i);
        diff_u64(d, F(c), a->contacts[i].triangle, b->contacts[i].triangle);
        snprintf(c, sizeof c, "contacts[%u].material", i);
        diff_u64(d, F(c), a->contacts[i].material, b->contacts[i].material);
        snprintf(c, sizeof c, "contacts[%u].mover", i);
        diff_u64(d, F(c), a->contacts[i].mover, b->contacts[i].mover);
    }
    diff_u64(d, F("corrected"), a->corrected, b->corrected);
    diff_f64(d, F("correction"), a->correction, b->correction);
    diff_u64(d, F("ground_mover"), a->ground_mover, b->ground_mover);
    diff_u64(d, F("pushed_by"), a->pushed_by, b->pushed_by);
    diff_u64(d, F("carried"), a->carried, b->carried);
    diff_u64(d, F("pushed"), a->pushed, b->pushed);
    diff_u64(d, F("has_start_position"), a->has_start_position, b->has_start_position);
    diff_vec(d, F("start_position"), a->start_position, b->start_position);
    diff_u64(d, F("rules"), a->rules, b->rules);
    diff_f64(d, F("speed_excess"), a->speed_excess, b->speed_excess);
    diff_f64(d, F("time_excess"), a->time_excess, b->time_excess);
    diff_f64(d, F("applied_dt"), a->applied_dt, b->applied_dt);
    diff_u64(d, F("launched_by"), a->launched_by, b->launched_by);
    diff_u64(d, F("teleported_by"), a->teleported_by, b->teleported_by);
    diff_u64(d, F("teleport_blocked"), a->teleport_blocked, b->teleport_blocked);
    diff_u64(d, F("hurt_by"), a->hurt_by, b->hurt_by);
    diff_f64(d, F("damage"), a->damage, b->damage);
    diff_u64(d, F("killed_by"), a->killed_by, b->killed_by);
    diff_u64(d, F("entered"), a->entered, b->entered);
    diff_u64(d, F("left"), a->left, b->left);
    diff_u64(d, F("liquid"), a->liquid, b->liquid);
    diff_u64(d, F("liquid_type"), a->liquid_type, b->liquid_type);
    diff_u64(d, F("liquid_level"), a->liquid_level, b->liquid_level);
    diff_u64(d, F("entered_liquid"), a->entered_liquid, b->entered_liquid);
    diff_u64(d, F("left_liquid"), a->left_liquid, b->left_liquid);
    diff_u64(d, F("ladder"), a->ladder, b->ladder);
#undef F
}

/* The first field where two MOVE records differ: the move given to the
 * core, then what it made of it. */
static void diff_move(differ *d, const sweep__move_record *a, const sweep__move_record *b)
{
    diff_u64(d, "MOVE.mode", a->mode, b->mode);
    diff_u64(d, "MOVE.buttons", a->buttons, b->buttons);
    diff_vec(d, "MOVE.wish", a->wish, b->wish);
    diff_u64(d, "MOVE.cut_forgiven", (uint64_t)a->cut_forgiven, (uint64_t)b->cut_forgiven);
    diff_result(d, "MOVE", &a->result, &b->result);
}

/* The first field where two decoded messages differ, and the entity it
 * is about. */
static uint32_t diff_message(differ *d, const sweep_message *a, const sweep_message *b)
{
    const char *kind = sweep_msg_kind_name(a->kind);
    char f[96];
    if (diff_u64(d, "message kind", a->kind, b->kind)) {
        snprintf(d->a, sizeof d->a, "%s", sweep_msg_kind_name(a->kind));
        snprintf(d->b, sizeof d->b, "%s", sweep_msg_kind_name(b->kind));
        return 0;
    }
    snprintf(f, sizeof f, "%s.sequence", kind);
    diff_u64(d, f, a->sequence, b->sequence);
    snprintf(f, sizeof f, "%s.server_tick", kind);
    diff_u64(d, f, a->server_tick, b->server_tick);
    switch (a->kind) {
    case SWEEP_MSG_MOVE_RESULT:
        diff_result(d, kind, &a->as.move_result, &b->as.move_result);
        return a->as.move_result.entity;
    case SWEEP_MSG_MOVE_RESULT_BATCH: {
        const sweep_msg_move_result_batch *x = &a->as.move_result_batch, *y = &b->as.move_result_batch;
        diff_u64(d, "MoveResultBatch.count", x->count, y->count);
        for (uint32_t i = 0; i < x->count && i < y->count && !d->found; i++) {
            snprintf(f, sizeof f, "MoveResultBatch.results[%u]", i);
            diff_result(d, f, &x->results[i], &y->results[i]);
            if (d->found)
                return x->results[i].entity;
        }
        return 0;
    }
    case SWEEP_MSG_SPAWNED:
        diff_u64(d, "Spawned.entity", a->as.spawned.entity, b->as.spawned.entity);
        diff_vec(d, "Spawned.position", a->as.spawned.position, b->as.spawned.position);
        diff_vec(d, "Spawned.radii", a->as.spawned.radii, b->as.spawned.radii);
        diff_u64(d, "Spawned.rules", a->as.spawned.rules, b->as.spawned.rules);
        diff_u64(d, "Spawned.spawn_point", a->as.spawned.spawn_point, b->as.spawned.spawn_point);
        return a->as.spawned.entity;
    case SWEEP_MSG_DESPAWNED:
        diff_u64(d, "Despawned.entity", a->as.despawned.entity, b->as.despawned.entity);
        diff_u64(d, "Despawned.crushed_by", a->as.despawned.crushed_by, b->as.despawned.crushed_by);
        diff_u64(d, "Despawned.killed_by", a->as.despawned.killed_by, b->as.despawned.killed_by);
        diff_str(d, "Despawned.reason", a->as.despawned.reason, b->as.despawned.reason);
        return a->as.despawned.entity;
    case SWEEP_MSG_ERROR:
        diff_u64(d, "Error.code", a->as.error.code, b->as.error.code);
        diff_u64(d, "Error.entity", a->as.error.entity, b->as.error.entity);
        diff_str(d, "Error.message", a->as.error.message, b->as.error.message);
        return a->as.error.entity;
    case SWEEP_MSG_ENTITY_COMMANDS_RESULT: {
        const sweep_msg_entity_commands_result *x = &a->as.entity_commands_result, *y = &b->as.entity_commands_result;
        diff_u64(d, "EntityCommandsResult.count", x->count, y->count);
        for (uint32_t i = 0; i < x->count && i < y->count && !d->found; i++) {
            const sweep_msg_entity_command_result *p = &x->results[i], *q = &y->results[i];
            char g[96];
#define FIELD(name) (snprintf(g, sizeof g, "EntityCommandsResult.results[%u].%s", i, name), g)
            diff_u64(d, FIELD("entity"), p->entity, q->entity);
            diff_u64(d, FIELD("op"), p->op, q->op);
            diff_u64(d, FIELD("code"), p->code, q->code);
            diff_str(d, FIELD("message"), p->message, q->message);
            diff_u64(d, FIELD("has_state"), p->has_state, q->has_state);
            diff_vec(d, FIELD("position"), p->position, q->position);
            diff_vec(d, FIELD("velocity"), p->velocity, q->velocity);
            diff_vec(d, FIELD("radii"), p->radii, q->radii);
            diff_u64(d, FIELD("flags"), p->flags, q->flags);
#undef FIELD
            if (d->found)
                return p->entity;
        }
        return 0;
    }
    case SWEEP_MSG_QUERY_RESULT: {
        const sweep_msg_query_result *x = &a->as.query_result, *y = &b->as.query_result;
        diff_u64(d, "QueryResult.count", x->count, y->count);
        diff_u64(d, "QueryResult.first", x->first, y->first);
        for (uint32_t i = 0; i < x->count && i < y->count && !d->found; i++) {
            const sweep_msg_query_answer *p = &x->answers[i], *q = &y->answers[i];
            char g[96];
#define FIELD(name) (snprintf(g, sizeof g, "QueryResult.answers[%u].%s", x->first + i, name), g)
            diff_u64(d, FIELD("code"), p->code, q->code);
            diff_str(d, FIELD("message"), p->message, q->message);
            diff_u64(d, FIELD("tick"), p->tick, q->tick);
            diff_f64(d, FIELD("fraction"), p->fraction, q->fraction);
            diff_u64(d, FIELD("flags"), p->flags, q->flags);
            diff_u64(d, FIELD("hits.length"), p->hit_count, q->hit_count);
#undef FIELD
            for (uint32_t k = 0; k < p->hit_count && k < q->hit_count && !d->found; k++) {
                const sweep_wire_query_hit *s = &p->hits[k], *t = &q->hits[k];
#define FIELD(name) (snprintf(g, sizeof g, "QueryResult.answers[%u].hits[%u].%s", x->first + i, k, name), g)
                diff_u64(d, FIELD("kind"), s->kind, t->kind);
                diff_u64(d, FIELD("triangle"), s->triangle, t->triangle);
                diff_u64(d, FIELD("material"), s->material, t->material);
                diff_u64(d, FIELD("mover"), s->mover, t->mover);
                diff_u64(d, FIELD("entity"), s->entity, t->entity);
                diff_u64(d, FIELD("shape"), s->shape, t->shape);
                diff_f64(d, FIELD("fraction"), s->fraction, t->fraction);
                diff_f64(d, FIELD("distance"), s->distance, t->distance);
                diff_vec(d, FIELD("point"), s->point, t->point);
                diff_vec(d, FIELD("normal"), s->normal, t->normal);
#undef FIELD
                if (d->found)
                    return s->entity;
            }
        }
        return 0;
    }
    case SWEEP_MSG_MOVER_COMMANDED:
        diff_u64(d, "MoverCommanded.mover", a->as.mover_commanded.mover, b->as.mover_commanded.mover);
        diff_u64(d, "MoverCommanded.tick", a->as.mover_commanded.tick, b->as.mover_commanded.tick);
        return 0;
    default:
        return 0;
    }
}

static int diverge(sweep_replay *r, uint64_t session, uint32_t entity, uint64_t offset, const differ *d)
{
    sweep_replay_divergence *v = &r->div;
    memset(v, 0, sizeof *v);
    v->tick = world_tick(r);
    v->session = session;
    v->entity = entity;
    v->offset = offset;
    snprintf(v->file, sizeof v->file, "%s", r->path);
    snprintf(v->field, sizeof v->field, "%s", d->field);
    snprintf(v->recorded, sizeof v->recorded, "%s", d->a);
    snprintf(v->replayed, sizeof v->replayed, "%s", d->b);
    snprintf(v->text, sizeof v->text,
             "divergence at tick %" PRIu64 " (%s, byte %" PRIu64 "): session %" PRIu64 " entity %u %s: recorded %s, "
             "replayed %s",
             v->tick, v->file, offset, session, entity, v->field, v->recorded, v->replayed);
    r->diverged = 1;
    r->done = 1;
    return -1;
}

/* ---- for the core depth (replay_impl.h) ---------------------------------- */

int sweep__replay_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    return grow(p, cap, need, size);
}

int sweep__replay_fail(sweep_replay *r, const char *fmt, ...)
{
    char text[sizeof r->error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return set_error(r, "%s", text);
}

const char *sweep__replay_path(const sweep_replay *r)
{
    return r->path;
}

int sweep__replay_diverge(sweep_replay *r, uint64_t session, uint32_t entity, uint64_t offset, const char *field,
                          const char *recorded, const char *replayed)
{
    differ d;
    memset(&d, 0, sizeof d);
    snprintf(d.field, sizeof d.field, "%s", field);
    snprintf(d.a, sizeof d.a, "%s", recorded);
    snprintf(d.b, sizeof d.b, "%s", replayed);
    d.found = 1;
    return diverge(r, session, entity, offset, &d);
}

int sweep__replay_diverge_result(sweep_replay *r, uint64_t session, uint64_t offset, const char *prefix,
                                 const sweep_msg_move_result *recorded, const sweep_msg_move_result *replayed)
{
    differ d;
    memset(&d, 0, sizeof d);
    diff_result(&d, prefix, recorded, replayed);
    return d.found ? diverge(r, session, recorded->entity, offset, &d) : 0;
}

sweep__replay_core *sweep__replay_core_of(sweep_replay *r)
{
    return r->core;
}

static int rebuild_in(sweep_replay *r, const sweep_record *group, uint32_t i, const uint8_t *p, size_t len,
                      int side, sweep_message *m, char *why, size_t whylen);

int sweep__replay_results_message(sweep_replay *r, const sweep_record *group, uint32_t i, sweep_message *m)
{
    char why[160];
    const sweep_record *x = &group[i];
    if (rebuild_in(r, group, i, x->bytes.ptr, x->bytes.len, 0, m, why, sizeof why) == 0)
        return 0;
    return sweep__replay_fail(r, "%s: byte %" PRIu64 ": RESULTS: %s (corrupt log)", r->path, x->offset, why);
}

int sweep__replay_watched(const sweep_replay *r)
{
    return r->watcher != NULL;
}

void sweep__replay_notify(sweep_replay *r, uint64_t session, const sweep_message *m)
{
    sweep_replay_event ev = {world_tick(r), session, m, NULL};
    r->watcher(r->watcher_ctx, &ev);
}

/* Decodes one message into side's scratch (decoding wants the buffer
 * aligned as it was sent); valid until the next decode of that side. */
static int decode(sweep_replay *r, int side, uint64_t session, const uint8_t *bytes, size_t len, sweep_message *m)
{
    const replay_session *rs = find_session(r, session);
    unsigned flags = rs && rs->tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    size_t words = (len + 7) / 8;
    if (words > r->scratch_cap[side]) {
        uint64_t *n = realloc(r->scratch[side], words * 8);
        if (!n)
            return -1;
        r->scratch[side] = n;
        r->scratch_cap[side] = words;
    }
    memcpy(r->scratch[side], bytes, len);
    return sweep_decode(&r->dec[side], r->scratch[side], len, flags, m) == SWEEP_PROTO_OK ? 0 : -1;
}

/* The message of a RESULTS payload p (the record's or the world's) at
 * place i of group: the MOVE records before it, less those the
 * RESULTS before it took, give its results their core fields. Into side's
 * room; 0, or -1 with why. Only for a watcher or a difference: it reads
 * the group again from its start. */
static int rebuild_in(sweep_replay *r, const sweep_record *group, uint32_t i, const uint8_t *p, size_t len,
                      int side, sweep_message *m, char *why, size_t whylen)
{
    r->group_move_count = 0;
    for (uint32_t k = 0; k < i; k++) {
        const sweep_record *x = &group[k];
        if (x->type != SWEEP_RECORD_MOVE)
            continue;
        if (grow((void **)&r->group_moves, &r->group_move_cap, r->group_move_count + 1, sizeof *r->group_moves) ||
            (r->group_move_lens = realloc(r->group_move_lens, r->group_move_cap * sizeof *r->group_move_lens)) == NULL) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        r->group_moves[r->group_move_count] = x->bytes.ptr;
        r->group_move_lens[r->group_move_count++] = x->bytes.len;
    }
    uint32_t taken = 0;
    for (uint32_t k = 0; k <= i; k++) {
        const sweep_record *x = &group[k];
        if (k < i && x->type != SWEEP_RECORD_RESULTS)
            continue;
        const uint8_t *q = k < i ? x->bytes.ptr : p;
        size_t ql = k < i ? x->bytes.len : len;
        uint32_t count = sweep__record_results_count(q);
        if (grow((void **)&r->rebuilt[side], &r->rebuilt_cap[side], count ? count : 1, sizeof *r->rebuilt[side])) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        if (sweep__record_results_rebuild(q, ql, r->group_moves, r->group_move_lens, r->group_move_count, &taken, m,
                                          r->rebuilt[side], why, whylen) != 0)
            return -1;
    }
    return 0;
}

/* rebuild_in, in the group being compared. */
static int rebuild_at(sweep_replay *r, uint32_t i, const uint8_t *p, size_t len, int side, sweep_message *m,
                      char *why, size_t whylen)
{
    return rebuild_in(r, r->expect, i, p, len, side, m, why, whylen);
}

/* Compares what was sent with what the log expects (see the file comment). */
static int compare(sweep_replay *r, uint64_t group_offset)
{
    if (r->arena_failed)
        return set_error(r, "out of memory while replaying");
    uint32_t n = r->expect_count < r->sent_count ? r->expect_count : r->sent_count;
    for (uint32_t i = 0; i < n; i++) {
        const sweep_record *x = &r->expect[i];
        const sent *y = &r->sent[i];
        /* A message marked same was never copied to the arena (which may
         * then hold nothing at all: no pointer into it). */
        const uint8_t *yb = y->same ? NULL : r->arena + y->at;
        if (y->same || (x->type == y->type && x->session == y->session && x->bytes.len == y->len &&
                        memcmp(x->bytes.ptr, yb, y->len) == 0)) {
            if (x->type == SWEEP_RECORD_MOVE)
                continue;
            r->stats.outputs++;
            if (r->watcher) {
                sweep_message m;
                char why[160];
                if (x->type == SWEEP_RECORD_RESULTS
                        ? rebuild_at(r, i, x->bytes.ptr, x->bytes.len, 0, &m, why, sizeof why) == 0
                        : decode(r, 0, x->session, x->bytes.ptr, x->bytes.len, &m) == 0) {
                    sweep_replay_event ev = {r->world->tick, x->session, &m, r->request};
                    r->watcher(r->watcher_ctx, &ev);
                }
            }
            continue;
        }
        differ d;
        memset(&d, 0, sizeof d);
        uint32_t entity = 0;
        if (x->type != y->type) {
            snprintf(d.field, sizeof d.field, "record type");
            snprintf(d.a, sizeof d.a, "%s", sweep_record_type_name(x->type));
            snprintf(d.b, sizeof d.b, "%s", sweep_record_type_name(y->type));
            d.found = 1;
            return diverge(r, x->session, x->type == SWEEP_RECORD_MOVE ? x->entity : 0, x->offset, &d);
        }
        if (diff_u64(&d, "message to session", x->session, y->session))
            return diverge(r, x->session, 0, x->offset, &d);
        if (r->rewriter && x->type == SWEEP_RECORD_OUT) {
            /* Only a message of the same kind is re-answered: an answer
             * that became an Error (or anything else) is a difference
             * to see, named below. */
            sweep_message a, b;
            if (decode(r, 0, x->session, x->bytes.ptr, x->bytes.len, &a) == 0 &&
                decode(r, 1, y->session, yb, y->len, &b) == 0 && a.kind == b.kind) {
                if (r->rewriter(r->rewriter_ctx, x->offset, y->session, yb, y->len, 0) != 0)
                    return set_error(r, "out of memory");
                r->stats.outputs++;
                continue;
            }
        }
        if (x->type == SWEEP_RECORD_MOVE) {
            /* Both images have the layout (the world's is made by the
             * writer's own code): name the field. */
            sweep__move_record a, b;
            char why[160];
            if (sweep__record_move_check(yb, y->len, r->moves_compact, why, sizeof why) == 0) {
                sweep__record_move_decode(x->bytes.ptr, x->bytes.len, &a);
                sweep__record_move_decode(yb, y->len, &b);
                diff_move(&d, &a, &b);
            }
            if (!d.found) {
                snprintf(d.field, sizeof d.field, "MOVE bytes");
                snprintf(d.a, sizeof d.a, "%u bytes", x->bytes.len);
                snprintf(d.b, sizeof d.b, "%zu bytes", y->len);
                d.found = 1;
            }
            return diverge(r, x->session, x->entity, x->offset, &d);
        }
        sweep_message a, b;
        int da, db;
        if (x->type == SWEEP_RECORD_RESULTS) {
            /* Every MOVE before it matched: both rebuilt from the
             * record's, so only what the RESULTS hold can differ. */
            char why[160];
            da = rebuild_at(r, i, x->bytes.ptr, x->bytes.len, 0, &a, why, sizeof why);
            db = rebuild_at(r, i, yb, y->len, 1, &b, why, sizeof why);
        } else {
            da = decode(r, 0, x->session, x->bytes.ptr, x->bytes.len, &a);
            db = decode(r, 1, y->session, yb, y->len, &b);
        }
        if (da == 0 && db == 0)
            entity = diff_message(&d, &a, &b);
        if (!d.found) {
            snprintf(d.field, sizeof d.field, x->type == SWEEP_RECORD_RESULTS ? "RESULTS bytes" : "message bytes");
            snprintf(d.a, sizeof d.a, "%u bytes%s", x->bytes.len, da ? " (not decodable)" : "");
            snprintf(d.b, sizeof d.b, "%zu bytes%s", y->len, db ? " (not decodable)" : "");
        }
        return diverge(r, x->session, entity, x->offset, &d);
    }
    if (r->expect_count != r->sent_count) {
        differ d;
        memset(&d, 0, sizeof d);
        snprintf(d.field, sizeof d.field, "number of messages sent");
        snprintf(d.a, sizeof d.a, "%u", r->expect_count);
        snprintf(d.b, sizeof d.b, "%u", r->sent_count);
        uint64_t session = 0;
        if (r->sent_count > n) {
            session = r->sent[n].session;
            sweep_message b;
            if (r->sent[n].type == SWEEP_RECORD_MOVE || r->sent[n].type == SWEEP_RECORD_RESULTS) {
                snprintf(d.b + strlen(d.b), sizeof d.b - strlen(d.b), " (first extra: a %s record)",
                         sweep_record_type_name(r->sent[n].type));
            } else if (decode(r, 1, session, r->arena + r->sent[n].at, r->sent[n].len, &b) == 0) {
                snprintf(d.b + strlen(d.b), sizeof d.b - strlen(d.b), " (first extra: %s)",
                         sweep_msg_kind_name(b.kind));
            }
        } else {
            session = r->expect[n].session;
        }
        return diverge(r, session, 0, n < r->expect_count ? r->expect[n].offset : group_offset, &d);
    }
    return 0;
}

/* Reads the ID, MOVE and OUT records that follow a request or tick. Each
 * record is read straight into the next slot of recs[side], so none is
 * copied; the one record that ends the group stays there as peek. */
static int read_group(sweep_replay *r)
{
    r->id_count = r->sent_count = 0;
    r->arena_len = 0;
    r->moved.count = r->moved.taken = 0;
    int side = r->side;
    uint32_t n = 0;
    char err[1200];
    for (;;) {
        if (n == r->recs_cap[side] &&
            grow((void **)&r->recs[side], &r->recs_cap[side], n + 1, sizeof *r->recs[side]) != 0)
            return set_error(r, "out of memory");
        sweep_record *x = &r->recs[side][n];
        /* Never a peek here: the caller took it. */
        int got = sweep_record_next(r->reader, x, err, sizeof err);
        if (got < 0)
            return set_error(r, "%s", err);
        if (got == 0)
            break;
        if (x->type == SWEEP_RECORD_OUT || x->type == SWEEP_RECORD_MOVE || x->type == SWEEP_RECORD_RESULTS) {
            n++;
        } else if (x->type == SWEEP_RECORD_ID) {
            if (grow((void **)&r->ids, &r->id_cap, r->id_count + 1, sizeof *r->ids) != 0)
                return set_error(r, "out of memory");
            r->ids[r->id_count++] = x->entity;
        } else {
            r->peek = x;
            r->has_peek = 1;
            break;
        }
    }
    r->expect = r->recs[side];
    r->expect_count = n;
    r->side = side ^ 1;
    return 0;
}

static int on_request(sweep_replay *r, const sweep_record *x)
{
    if (r->core) {
        if (read_group(r) < 0)
            return -1;
        r->stats.requests++;
        return sweep__replay_core_on_request(r, r->core, x, r->expect, r->expect_count);
    }
    replay_session *rs = find_session(r, x->session);
    if (!rs)
        return set_error(r, "%s: byte %" PRIu64 ": IN for session %" PRIu64 ", which no OPEN began (corrupt log)",
                         r->path, x->offset, x->session);
    if (read_group(r) < 0)
        return -1;
    size_t words = (x->bytes.len + 7) / 8;
    if (words > r->input_cap) {
        uint64_t *n = realloc(r->input, words * 8);
        if (!n)
            return set_error(r, "out of memory");
        r->input = n;
        r->input_cap = words;
    }
    memcpy(r->input, x->bytes.ptr, x->bytes.len);
    r->stats.requests++;
    sweep_message m;
    sweep_proto_error e = sweep_decode(&r->requests.dec, r->input, x->bytes.len, rs->tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0, &m);
    if (e != SWEEP_PROTO_OK)
        return set_error(r, "%s: byte %" PRIu64 ": IN of session %" PRIu64 " is no valid request: %s (corrupt log)",
                         r->path, x->offset, x->session, sweep_proto_error_name(e));
    if (!sweep__world_handles(m.kind))
        return set_error(r, "%s: byte %" PRIu64 ": IN of session %" PRIu64 " is a %s, which changes no world (corrupt log)",
                         r->path, x->offset, x->session, sweep_msg_kind_name(m.kind));
    sweep__world_sink sink = sink_of(r);
    sweep__request rq = {rs->own, &sink, 0, r->ids, r->id_count};
    sweep__world_request(r->world, &rq, &m);
    r->request = &m;
    int rc = compare(r, x->offset);
    r->request = NULL;
    return rc;
}

static int on_tick(sweep_replay *r, const sweep_record *x)
{
    uint64_t now = world_tick(r);
    if (x->tick != now + 1)
        return set_error(r, "%s: byte %" PRIu64 ": TICK %" PRIu64 " follows tick %" PRIu64 " (corrupt log)", r->path,
                         x->offset, x->tick, now);
    if (read_group(r) < 0)
        return -1;
    r->stats.ticks++;
    if (r->core)
        return sweep__replay_core_on_tick(r, r->core, x, r->expect, r->expect_count);
    sweep__world_sink sink = sink_of(r);
    sweep__world_tick(r->world, &sink);
    return compare(r, x->offset);
}

static int on_hash(sweep_replay *r, const sweep_record *x)
{
    uint64_t now = world_tick(r);
    if (x->tick != now)
        return set_error(r, "%s: byte %" PRIu64 ": HASH of tick %" PRIu64 " at tick %" PRIu64 " (corrupt log)",
                         r->path, x->offset, x->tick, now);
    if (r->core)
        return 0; /* the hash covers what only the server keeps (budgets, claims): not the core's to check */
    uint64_t h = sweep__world_state_hash(r->world);
    r->stats.hashes++;
    if (h == x->hash)
        return 0;
    if (r->rewriter)
        return r->rewriter(r->rewriter_ctx, x->offset, 0, NULL, 0, h) == 0 ? 0 : set_error(r, "out of memory");
    differ d;
    memset(&d, 0, sizeof d);
    snprintf(d.field, sizeof d.field, "state hash (every entity and mover)");
    snprintf(d.a, sizeof d.a, "%016" PRIx64, x->hash);
    snprintf(d.b, sizeof d.b, "%016" PRIx64, h);
    return diverge(r, 0, 0, x->offset, &d);
}

static int on_open(sweep_replay *r, const sweep_record *x)
{
    if (r->core) {
        if (sweep__replay_core_on_open(r, r->core, x) < 0)
            return -1;
        r->stats.sessions++;
        return 0;
    }
    if (find_session(r, x->session))
        return set_error(r, "%s: byte %" PRIu64 ": session %" PRIu64 " opened twice (corrupt log)", r->path,
                         x->offset, x->session);
    if (x->transport > 1)
        return set_error(r, "%s: byte %" PRIu64 ": transport %u is neither TCP (0) nor UDP (1) (corrupt log)",
                         r->path, x->offset, x->transport);
    if (grow((void **)&r->sessions, &r->session_cap, r->session_count + 1, sizeof *r->sessions) != 0)
        return set_error(r, "out of memory");
    sweep__owner *own = malloc(sizeof *own);
    if (!own)
        return set_error(r, "out of memory");
    /* What sweepd's Welcome announced: a UDP batch fits one datagram of
     * the size the session agreed. */
    int tcp = x->transport == 0;
    if (!tcp && (x->datagram < SWEEP_UDP_MAX_DATAGRAM || x->datagram > SWEEP_UDP_LARGEST_DATAGRAM)) {
        free(own);
        return set_error(r, "%s: byte %" PRIu64 ": a datagram size of %u is outside 1200 to 65507 (corrupt log)",
                         r->path, x->offset, x->datagram);
    }
    uint32_t max_batch = r->world->opt.max_batch;
    uint32_t udp_batch = tcp || x->datagram == SWEEP_UDP_MAX_DATAGRAM ? r->udp_max_batch
                                                                      : sweep_udp_max_batch_claimed_in(x->datagram);
    sweep__owner_init(own, r->world, x->session, x->role, !tcp, tcp || max_batch < udp_batch ? max_batch : udp_batch,
                      (const char *)x->text.ptr, x->text.len, 0);
    r->sessions[r->session_count++] = (replay_session){x->session, own, tcp, x->datagram};
    r->stats.sessions++;
    return 0;
}

static int on_close(sweep_replay *r, const sweep_record *x)
{
    if (r->core)
        return sweep__replay_core_on_close(r, r->core, x);
    replay_session *rs = find_session(r, x->session);
    if (!rs)
        return set_error(r, "%s: byte %" PRIu64 ": CLOSE of session %" PRIu64 ", which no OPEN began (corrupt log)",
                         r->path, x->offset, x->session);
    sweep__owner_release(rs->own, NULL);
    free(rs->own);
    *rs = r->sessions[--r->session_count];
    return 0;
}

/* Are the settings of the HEAD of the segment at path ones sweepd
 * records? They size the decoders and the world. */
static int check_settings(const char *path, const sweep_record_head *h, char *err, size_t errlen)
{
    char why[200];
    if (sweep_record_head_check(h, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "%s: its HEAD says %s, which no sweepd records (corrupt log)", path, why);
    return -1;
}

/* Checks a segment's HEAD against the world the replay runs. */
static int check_head(sweep_replay *r, const sweep_record_head *h, char *err, size_t errlen)
{
    if (check_settings(r->path, h, err, errlen) != 0)
        return -1;
    if (h->protocol_version != SWEEP_PROTOCOL_VERSION) {
        snprintf(err, errlen, "%s: recorded with protocol version %u; this build speaks %u", r->path,
                 h->protocol_version, SWEEP_PROTOCOL_VERSION);
        return -1;
    }
    if (memcmp(h->content_hash, map_hash(r), 32) != 0) {
        char a[65], b[65];
        for (int i = 0; i < 32; i++) {
            snprintf(a + 2 * i, 3, "%02x", h->content_hash[i]);
            snprintf(b + 2 * i, 3, "%02x", map_hash(r)[i]);
        }
        snprintf(err, errlen,
                 "%s: recorded on map '%.*s' with content hash %s; %s has content hash %s (not the same map)",
                 r->path, (int)h->map_name.len, (const char *)h->map_name.ptr, a, r->map, b);
        return -1;
    }
    return 0;
}

/* The checksums of the frames on a second CPU, ahead of the replay: they
 * were a sixth of what the core depth spends besides the core; and at the
 * core depth of a version 2 log without a watcher, the lean loop's groups
 * (record_window.h), a fifth of what was left. Started by the first step,
 * not by the open: work done while the map loads would be reading that no
 * timing of the replay's run sees, and the replay's speed is measured
 * against the core's over the same run. */
static void read_ahead(sweep_replay *r, sweep_record_reader *reader)
{
    if (r->core && !r->watcher && sweep_record_head_of(reader)->version >= 2)
        sweep__record_plan_ahead(reader);
    sweep_record_check_ahead(reader);
}

/* A log segment opened to be read once from end to end: mapped where a
 * thread may read ahead on a second CPU (it touches each page of the log
 * first, there), streamed into buffers used again where it may not (one
 * CPU: a first touch of each mapped page cost the core depth about a third
 * of its time on a virtual machine; record.h). */
static sweep_record_reader *open_reader(const char *path, char *err, size_t errlen)
{
    return sweep__record_cpus() > 1 ? sweep_record_open(path, err, errlen) : sweep_record_open_stream(path, err, errlen);
}

/* After an END "rotated": the next segment, named like this one with the
 * segment number after (sweepd writes it with at least four digits:
 * -0009, -0010, ..., -10000), whose HEAD names this one as the previous
 * and says that number. */
static int next_segment(sweep_replay *r)
{
    const sweep_record_head *old = sweep_record_head_of(r->reader);
    char next[sizeof r->path];
    size_t n = strlen(r->path), sl = strlen(SWEEP_RECORD_SUFFIX), digits = n >= sl ? n - sl : 0;
    while (digits > 0 && r->path[digits - 1] >= '0' && r->path[digits - 1] <= '9')
        digits--;
    if (n < sl + 5 || strcmp(r->path + n - sl, SWEEP_RECORD_SUFFIX) != 0 || n - sl - digits < 4 || digits == 0 ||
        r->path[digits - 1] != '-')
        return set_error(r, "%s: rotated, but the name does not end in -NNNN%s, so the next segment cannot be found",
                         r->path, SWEEP_RECORD_SUFFIX);
    snprintf(next, sizeof next, "%.*s%04u%s", (int)digits, r->path, old->segment + 1, SWEEP_RECORD_SUFFIX);
    const char *base = strrchr(r->path, '/');
    base = base ? base + 1 : r->path;
    char err[1200];
    sweep_record_reader *nr = open_reader(next, err, sizeof err);
    if (!nr)
        return set_error(r, "the log continues in a next segment: %s", err);
    const sweep_record_head *h = sweep_record_head_of(nr);
    if (h->previous.len != strlen(base) || memcmp(h->previous.ptr, base, h->previous.len) != 0 ||
        h->first_tick != world_tick(r) || h->segment != old->segment + 1) {
        unsigned said = h->segment;
        sweep_record_close(nr);
        return set_error(r,
                         "%s does not continue %s (its HEAD names another previous segment or tick, or is segment "
                         "%u where %u follows)",
                         next, r->path, said, old->segment + 1);
    }
    read_ahead(r, nr);
    r->bytes_before += sweep_record_size(r->reader);
    sweep_record_close(r->reader);
    r->reader = nr;
    snprintf(r->path, sizeof r->path, "%s", next);
    r->stats.segments++;
    if (check_head(r, h, err, sizeof err) != 0)
        return set_error(r, "%s", err);
    return 0;
}

/* 0 if the END x is the last thing in its segment, as sweepd writes it:
 * a record, a frame or a torn frame after it is corruption, named. */
static int nothing_after_end(sweep_replay *r, const sweep_record *x)
{
    uint64_t end_at = x->offset;
    uint8_t end_type = x->type;
    sweep_record more;
    const sweep_record *y;
    int got = next_record(r, &more, &y);
    if (got < 0)
        return -1;
    if (got > 0)
        return set_error(r, "%s: byte %" PRIu64 ": %s record after the %s at byte %" PRIu64 " (corrupt log)", r->path,
                         y->offset, sweep_record_type_name(y->type), sweep_record_type_name(end_type), end_at);
    uint64_t at;
    if (sweep_record_truncated(r->reader, &at))
        return set_error(r, "%s: byte %" PRIu64 ": a frame after the %s at byte %" PRIu64 " (corrupt log)", r->path,
                         at, sweep_record_type_name(end_type), end_at);
    return 0;
}

int sweep_replay_step(sweep_replay *r)
{
    if (!r)
        return -1;
    if (r->done)
        return r->diverged || r->error[0] ? -1 : 0;
    if (!r->ahead_started) {
        r->ahead_started = 1;
        read_ahead(r, r->reader);
    }
    for (;;) {
        /* Of the records read so far the replay holds only a group's last
         * (the peek) from one turn to the next. */
        sweep_record_release(r->reader, r->has_peek ? r->peek->offset : UINT64_MAX);
        /* The core depth of a version 2 log runs the requests of moves in
         * place (replay_impl.h); whatever it leaves, or a watched replay,
         * goes the general way below. */
        if (r->core && !r->watcher && (!r->has_peek || r->peek->type == SWEEP_RECORD_IN)) {
            size_t at, end, stop;
            sweep__record_window(r->reader, &at, &end);
            size_t from = r->has_peek ? (size_t)(r->peek->offset - sweep__record_window_base(r->reader)) : at;
            int lean = sweep__replay_core_lean(r, r->core, r->reader, from, &r->stats.requests, &r->stats.ticks,
                                               &stop);
            if (lean < 0)
                return -1;
            /* After a tick, stop is in the next frame, whose buffer may
             * start where the peek's did: the peek was run all the same. */
            if (lean == 1 || stop != from) {
                r->has_peek = 0;
                sweep__record_seek(r->reader, stop);
            }
            if (lean == 1)
                return 1; /* it ran a tick */
        }
        const sweep_record *x;
        int got = next_record(r, &r->one, &x);
        if (got < 0)
            return -1;
        if (got == 0) {
            uint64_t at;
            r->stats.truncated = sweep_record_truncated(r->reader, &at);
            r->done = 1;
            return 0;
        }
        int rc = 0;
        switch (x->type) {
        case SWEEP_RECORD_HEAD:
            /* A segment's HEAD is read when it is opened: this is another. */
            rc = set_error(r, "%s: byte %" PRIu64 ": a second HEAD in one segment (corrupt log)", r->path, x->offset);
            break;
        case SWEEP_RECORD_OPEN:
            rc = on_open(r, x);
            break;
        case SWEEP_RECORD_CLOSE:
            rc = on_close(r, x);
            break;
        case SWEEP_RECORD_IN:
            rc = on_request(r, x);
            break;
        case SWEEP_RECORD_TICK:
            if (on_tick(r, x) < 0)
                return -1;
            return 1;
        case SWEEP_RECORD_HASH:
            rc = on_hash(r, x);
            break;
        case SWEEP_RECORD_END: {
            /* Its reason read first: looking past it may move the reader's
             * buffer, which the record's text points into. */
            const int rotated = x->text.len == 7 && memcmp(x->text.ptr, "rotated", 7) == 0;
            if (nothing_after_end(r, x) != 0)
                return -1;
            if (rotated) {
                rc = next_segment(r);
            } else {
                r->stats.ended = 1;
                r->done = 1;
                return 0;
            }
            break;
        }
        default:
            rc = set_error(r, "%s: byte %" PRIu64 ": %s record where a request, tick or session was due (corrupt log)",
                           r->path, x->offset, sweep_record_type_name(x->type));
            break;
        }
        if (rc < 0)
            return -1;
    }
}

int sweep_replay_run(sweep_replay *r)
{
    int rc;
    while ((rc = sweep_replay_step(r)) == 1) {
    }
    return rc;
}

/* The full depth's world, as sweepd ran it by the log's HEAD, with the
 * decoder and the encoder's buffer sized as sweepd's (server/world/request_decoder.h). */
static int open_world(sweep_replay *r, const sweep_record_head *h, char *err, size_t errlen)
{
    sweep__world_options wo = {
        .tick_rate = h->tick_rate,
        .time_bank = h->time_bank,
        .allow_free_move = h->allow_free_move,
        .players_block = h->players_block,
        .max_entities = h->max_entities,
        .max_entities_server = h->max_entities_server,
        .max_batch = h->max_batch,
        /* The log does not say whether a command token or an auth secret
         * was set: a player's MoverCommand is refused in the words of a
         * server without either. */
        .server_role_possible = 0,
        .history_ms = h->history_ms,
        .rewind_cap_ms = h->rewind_cap_ms,
        .history_entities = h->history_entities,
        /* The log does not say what --history-memory was: a HEAD may ask
         * for any history its settings allow (terabytes), so the replay
         * holds at most SWEEP_REPLAY_HISTORY_MAX_BYTES, four times
         * sweepd's default limit. */
        .history_max_bytes = SWEEP_REPLAY_HISTORY_MAX_BYTES,
        .query_rate = h->query_rate,
        /* Older logs come from worlds without a history, so none of their
         * Spawns was refused for its room. */
        .no_history = h->version < 4,
    };
    /* Rule and mover lines of the world are sweepd's log, not a replay's
     * (process-wide, as a sweepd's level is). */
    sweep__log_set_level(SWEEP_LOG_ERROR);
    r->world = sweep__world_open(r->map, &wo, 0, err, errlen);
    if (!r->world)
        return -1;
    r->moves_recorded = h->version >= 2;
    r->results_recorded = h->version >= 5;
    r->moves_compact = sweep__record_move_compact_in(h->version);
    r->udp_max_batch = sweep_udp_max_batch_claimed();
    r->out_cap = sweep__answer_buffer_size(h->max_batch);
    r->out_buf = malloc(r->out_cap);
    if (sweep__request_decoder_init(&r->requests, h->max_frame, h->max_batch) != 0 || !r->out_buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

sweep_replay *sweep_replay_open(const char *log, const char *map, char *err, size_t errlen)
{
    return sweep_replay_open_flags(log, map, 0, err, errlen);
}

/* Without --map: the path the log recorded, or, when nothing is there any
 * more (a log copied off the server, a map in another checkout), a file
 * named after the map's stem beside the log or in a directory of
 * $SWEEP_MAPS (colon-separated). Whichever is found, the content hash
 * decides whether it is the same map (check_head). */
static void recorded_map(sweep_replay *r, const sweep_record_head *h, const char *log)
{
    snprintf(r->map, sizeof r->map, "%.*s", (int)h->map_path.len, (const char *)h->map_path.ptr);
    if (access(r->map, R_OK) == 0 || h->map_stem.len == 0)
        return;
    /* The stem is a file name's start, as sweepd writes it: one that
     * names a directory ("../x", "/x", ".x") is not looked for, so a log
     * from elsewhere cannot send the replay to open files outside the
     * folders searched. */
    const char *stem = (const char *)h->map_stem.ptr;
    if (stem[0] == '.' || memchr(stem, '/', h->map_stem.len) || memchr(stem, '\\', h->map_stem.len) ||
        memchr(stem, '\0', h->map_stem.len))
        return;
    char dirs[4096], candidate[sizeof r->map];
    const char *slash = strrchr(log, '/');
    int n = slash ? snprintf(dirs, sizeof dirs, "%.*s", (int)(slash - log), log) : snprintf(dirs, sizeof dirs, ".");
    const char *env = getenv("SWEEP_MAPS");
    if (env && *env && n >= 0 && (size_t)n < sizeof dirs)
        snprintf(dirs + n, sizeof dirs - (size_t)n, ":%s", env);
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        int w = snprintf(candidate, sizeof candidate, "%s/%.*s.db", d, (int)h->map_stem.len,
                         (const char *)h->map_stem.ptr);
        if (w > 0 && (size_t)w < sizeof candidate && access(candidate, R_OK) == 0) {
            snprintf(r->map, sizeof r->map, "%s", candidate);
            return;
        }
    }
}

sweep_replay *sweep_replay_open_flags(const char *log, const char *map, unsigned flags, char *err, size_t errlen)
{
    char no_room[1]; /* where what goes wrong is said when the caller gave nowhere */
    if (!err || !errlen)
        err = no_room, errlen = sizeof no_room;
    if (!log) {
        snprintf(err, errlen, "no log to replay (NULL path)");
        return NULL;
    }
    if (flags & ~SWEEP_REPLAY_CORE) {
        snprintf(err, errlen, "%s: unknown replay flags 0x%x", log, flags & ~SWEEP_REPLAY_CORE);
        return NULL;
    }
    sweep_replay *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(r->path, sizeof r->path, "%s", log);
    r->reader = open_reader(log, err, errlen);
    if (!r->reader) {
        free(r);
        return NULL;
    }
    const sweep_record_head *h = sweep_record_head_of(r->reader);
    if (h->segment != 0) {
        snprintf(err, errlen, "%s: segment %u of a log; a replay starts at segment 0 (this one continues %.*s)", log,
                 h->segment, (int)h->previous.len, (const char *)h->previous.ptr);
        sweep_replay_close(r);
        return NULL;
    }
    /* Before the world and the decoders are sized by them. */
    if (check_settings(log, h, err, errlen) != 0) {
        sweep_replay_close(r);
        return NULL;
    }
    if (map)
        snprintf(r->map, sizeof r->map, "%s", map);
    else
        recorded_map(r, h, log);
    r->flags = flags & SWEEP_REPLAY_CORE;
    char sub[1024];
    if (flags & SWEEP_REPLAY_CORE) {
        r->core = sweep__replay_core_open(h, r->map, sub, sizeof sub);
        if (!r->core)
            snprintf(err, errlen, "%s: %s", log, sub);
    } else if (open_world(r, h, sub, sizeof sub) != 0) {
        snprintf(err, errlen, "%s: cannot load the map: %s%s%.*s%s", log, sub,
                 map ? "" : " (give --map FILE, or put ", map ? 0 : (int)h->map_stem.len,
                 map ? "" : (const char *)h->map_stem.ptr, map ? "" : ".db beside the log or in a directory of $SWEEP_MAPS)");
    }
    if ((!r->core && !r->world) || check_head(r, h, err, errlen) != 0) {
        sweep_replay_close(r);
        return NULL;
    }
    uint32_t moves_cap = h->max_frame / 4u + 1u;
    for (int i = 0; i < 2; i++) {
        r->dec_moves[i] = calloc(moves_cap, sizeof *r->dec_moves[i]);
        r->dec_results[i] = calloc(moves_cap, sizeof *r->dec_results[i]);
        r->dec_movers[i] = calloc(64, sizeof *r->dec_movers[i]);
        r->dec_commands[i] = calloc(moves_cap, sizeof *r->dec_commands[i]);
        r->dec_command_results[i] = calloc(moves_cap, sizeof *r->dec_command_results[i]);
        /* A Query and its answer, as large as a frame may hold them. */
        uint32_t hits_cap = h->max_frame / 88u + 1u, shapes_cap = h->max_frame / 80u + 1u;
        r->dec_query_items[i] = calloc(moves_cap, sizeof *r->dec_query_items[i]);
        r->dec_query_answers[i] = calloc(moves_cap, sizeof *r->dec_query_answers[i]);
        r->dec_query_hits[i] = calloc(hits_cap, sizeof *r->dec_query_hits[i]);
        r->dec_query_ignore[i] = calloc(moves_cap, sizeof *r->dec_query_ignore[i]);
        r->dec_hit_shapes[i] = calloc(shapes_cap, sizeof *r->dec_hit_shapes[i]);
        if (!r->dec_moves[i] || !r->dec_results[i] || !r->dec_movers[i] || !r->dec_commands[i] ||
            !r->dec_command_results[i] || !r->dec_query_items[i] || !r->dec_query_answers[i] ||
            !r->dec_query_hits[i] || !r->dec_query_ignore[i] || !r->dec_hit_shapes[i]) {
            snprintf(err, errlen, "out of memory");
            sweep_replay_close(r);
            return NULL;
        }
        r->dec[i].moves = r->dec_moves[i];
        r->dec[i].moves_cap = moves_cap;
        r->dec[i].results = r->dec_results[i];
        r->dec[i].results_cap = moves_cap;
        r->dec[i].movers = r->dec_movers[i];
        r->dec[i].movers_cap = 64;
        r->dec[i].commands = r->dec_commands[i];
        r->dec[i].commands_cap = moves_cap;
        r->dec[i].command_results = r->dec_command_results[i];
        r->dec[i].command_results_cap = moves_cap;
        r->dec[i].query_items = r->dec_query_items[i];
        r->dec[i].query_items_cap = moves_cap;
        r->dec[i].query_answers = r->dec_query_answers[i];
        r->dec[i].query_answers_cap = moves_cap;
        r->dec[i].query_hits = r->dec_query_hits[i];
        r->dec[i].query_hits_cap = hits_cap;
        r->dec[i].query_ignore = r->dec_query_ignore[i];
        r->dec[i].query_ignore_cap = moves_cap;
        r->dec[i].hit_shapes = r->dec_hit_shapes[i];
        r->dec[i].hit_shapes_cap = shapes_cap;
    }
    r->stats.segments = 1;
    return r;
}

/* The calls below answer about a NULL replay as replay.h says: nothing
 * diverged, no level, no tick, no mover; sweep_replay_error names it. */
const sweep_replay_divergence *sweep_replay_divergence_of(const sweep_replay *r)
{
    return r && r->diverged ? &r->div : NULL;
}

const char *sweep_replay_error(const sweep_replay *r)
{
    return r ? r->error : "no replay (NULL)";
}

unsigned sweep_replay_flags(const sweep_replay *r)
{
    return r ? r->flags : 0;
}

const sweep_replay_stats *sweep_replay_stats_of(const sweep_replay *r)
{
    if (!r)
        return NULL;
    sweep_replay *m = (sweep_replay *)r;
    if (r->core)
        sweep__replay_core_counts(r->core, &m->stats.moves, &m->stats.outputs, &m->stats.refused);
    else
        m->stats.moves = r->world->counts.moves_total;
    m->stats.bytes = m->bytes_before + (r->reader ? sweep_record_size(r->reader) : 0);
    return &r->stats;
}

uint64_t sweep_replay_tick(const sweep_replay *r)
{
    return r ? world_tick(r) : 0;
}

const sweep_level *sweep_replay_level(const sweep_replay *r)
{
    if (!r)
        return NULL;
    return r->core ? sweep__replay_core_level(r->core) : &r->world->level;
}

int sweep_replay_session_of(const sweep_replay *r, uint64_t session, unsigned *role, char *identity,
                            size_t identity_len)
{
    const replay_session *rs = r && !r->core ? find_session((sweep_replay *)r, session) : NULL;
    if (!rs)
        return -1;
    if (role)
        *role = rs->own->role;
    if (identity && identity_len)
        snprintf(identity, identity_len, "%s", rs->own->identity);
    return 0;
}

int sweep_replay_entity_at(const sweep_replay *r, uint32_t entity, uint64_t tick, double fraction,
                           double position[3])
{
    sweep_vec3 p;
    if (!r || !position || r->core || !r->world || !r->world->history ||
        sweep_history_entity_at(r->world->history, entity, tick, fraction, &p, NULL) != SWEEP_OK)
        return -1;
    position[0] = p.x, position[1] = p.y, position[2] = p.z;
    return 0;
}

int sweep_replay_mover_position(const sweep_replay *r, uint32_t index, double position[3])
{
    if (!r || !position)
        return -1;
    if (r->core)
        return sweep__replay_core_mover_position(r->core, index, position);
    return sweep__world_mover_position(r->world, index, position);
}

void sweep_replay_watch(sweep_replay *r, sweep_replay_watcher fn, void *ctx)
{
    if (!r)
        return;
    r->watcher = fn;
    r->watcher_ctx = ctx;
    if (fn)
        sweep__record_plan_stop(r->reader); /* a watched replay takes the general path */
}

void sweep__replay_rewrite(sweep_replay *r, sweep__replay_rewriter fn, void *ctx)
{
    r->rewriter = fn;
    r->rewriter_ctx = ctx;
}

void sweep_replay_close(sweep_replay *r)
{
    if (!r)
        return;
    sweep_record_close(r->reader);
    for (uint32_t i = 0; i < r->session_count; i++) {
        sweep__owner_release(r->sessions[i].own, NULL);
        free(r->sessions[i].own);
    }
    sweep__world_close(r->world);
    sweep__request_decoder_free(&r->requests);
    free(r->out_buf);
    sweep__replay_core_close(r->core);
    for (int i = 0; i < 2; i++) {
        free(r->dec_moves[i]);
        free(r->dec_results[i]);
        free(r->dec_movers[i]);
        free(r->dec_commands[i]);
        free(r->dec_command_results[i]);
        free(r->dec_query_items[i]);
        free(r->dec_query_answers[i]);
        free(r->dec_query_hits[i]);
        free(r->dec_query_ignore[i]);
        free(r->dec_hit_shapes[i]);
        free(r->scratch[i]);
    }
    free(r->sessions);
    free(r->ids);
    free(r->recs[0]);
    free(r->recs[1]);
    free(r->sent);
    free(r->arena);
    free(r->input);
    free(r->moved.res);
    free(r->results_buf);
    free(r->group_moves);
    free(r->group_move_lens);
    free(r->rebuilt[0]);
    free(r->rebuilt[1]);
    free(r);
}
