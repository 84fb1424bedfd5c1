/*
 * test_replay.c - session logs (server/record/record.h) and their replay
 * (client-sdk/replay.h), end to end.
 *
 * The golden logs of tests/replay/golden (README.md there: walking,
 * jumping, riding the arena's movers, refused cheats) must replay bit for
 * bit on the arena this build makes, with what each scenario is about in
 * its messages: a change to movement that was not meant shows up here.
 * Then what a replay must say about a log that is not right: a MoveResult
 * changed under a valid checksum is a divergence naming the field and both
 * values, and so is any bit changed in any answer; a byte changed under
 * the old checksum is corruption at the frame's byte offset, and a
 * record no log of its version could hold is corruption at the record's
 * under a right one; a file cut inside its last frame replays to there
 * and says it was truncated;
 * another map, a file that is not a log, an empty one, a later segment
 * given first and a chain with a segment missing are refused, saying why.
 * Then logs a real sweepd writes: killed with SIGKILL at different moments
 * while bots play (the log must still replay, at most with a torn tail),
 * and rotated every 0.3 s (the replay follows the segments). sweep-replay's
 * exit statuses are checked once.
 *
 * Programs come from $(BUILD)/bin and the arena from $(BUILD)/maps, found
 * beside this program (tests/sweepd_fixture.h); the golden logs
 * from $(BUILD)/../tests/replay/golden, or SWEEP_REPLAY_GOLDEN.
 */
#include "tests/sweepd_fixture.h"

#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include <libdeflate.h>

#include "client-sdk/replay.h"
#include "core/history.h"
#include "client-sdk/replay_impl.h"
#include "client-sdk/replay_plot.h"
#include "protocol/decode.h"
#include "server/record/record.h"
#include "server/record/record_window.h"

static char g_map[1024];    /* $(BUILD)/maps/arena.db */
static char g_golden[1024]; /* tests/replay/golden */
static char g_bin[1024];    /* $(BUILD)/bin */
static char g_tmp[256];     /* this run's scratch directory */

/* ---- files --------------------------------------------------------------- */

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, r;
    uint8_t *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static void write_all(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static const char *golden(const char *scenario, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s.sweeplog", g_golden, scenario);
    return buf;
}

static const char *scratch(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", g_tmp, name);
    return buf;
}

/* The logs some tests read are recorded by a test before them (named in
 * each reader). Run alone (SWEEP_TEST_FILTER), a reader records its log
 * first: make is that test, run when the scratch entry `name` is missing. */
static void needs(const char *name, void (*make)(void **))
{
    char path[400];
    struct stat st;
    if (stat(scratch(name, path, sizeof path), &st) != 0)
        make(NULL);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* How many records of the log a reader hands out as `type` (to its end),
 * and where the last of them starts (*last: 0 for none; may be NULL). */
static unsigned records_of_type(const char *log, uint8_t type, uint64_t *last)
{
    char err[1400];
    sweep_record_reader *rd = sweep_record_open(log, err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    sweep_record x;
    unsigned n = 0;
    uint64_t at = 0;
    while (sweep_record_next(rd, &x, err, sizeof err) == 1)
        if (x.type == type) {
            n++;
            at = x.offset;
        }
    sweep_record_close(rd);
    if (last)
        *last = at;
    return n;
}

static unsigned records_read_as(const char *log, uint8_t type)
{
    return records_of_type(log, type, NULL);
}

/* The type and length of the record at `offset` of the file, as written
 * (a reader hands an IN_PATCH out as an IN and an ANSWER as a RESULTS). */
static uint8_t type_in_file(const char *log, uint64_t offset, uint32_t *len)
{
    size_t n;
    uint8_t *buf = read_all(log, &n);
    assert_non_null(buf);
    assert_true(offset + 5 <= n);
    uint8_t type = buf[offset];
    *len = sweep__rd32(buf + offset + 1);
    free(buf);
    return type;
}

/* The frame (start of its 8-byte header, and body length) holding byte
 * `at` of a log in memory, walking the frames from the file header. */
static int frame_holding(const uint8_t *buf, size_t len, size_t at, size_t *start, uint32_t *body)
{
    size_t pos = SWEEP_RECORD_HEADER_SIZE;
    while (pos + SWEEP_RECORD_FRAME_HEADER <= len) {
        uint32_t n = le32(buf + pos);
        if (pos + SWEEP_RECORD_FRAME_HEADER + n > len)
            return -1;
        if (at >= pos && at < pos + SWEEP_RECORD_FRAME_HEADER + n) {
            *start = pos;
            *body = n;
            return 0;
        }
        pos += SWEEP_RECORD_FRAME_HEADER + n;
    }
    return -1;
}

/* The last whole frame of a log in memory. */
static void last_frame(const uint8_t *buf, size_t len, size_t *start, uint32_t *body)
{
    size_t pos = SWEEP_RECORD_HEADER_SIZE;
    *start = 0;
    while (pos + SWEEP_RECORD_FRAME_HEADER <= len) {
        uint32_t n = le32(buf + pos);
        if (pos + SWEEP_RECORD_FRAME_HEADER + n > len)
            break;
        *start = pos;
        *body = n;
        pos += SWEEP_RECORD_FRAME_HEADER + n;
    }
    assert_int_equal(pos, len); /* the golden logs end on a frame boundary */
    assert_true(*start >= SWEEP_RECORD_HEADER_SIZE);
}

static void fix_crc(uint8_t *buf, size_t start, uint32_t body)
{
    uint32_t c = libdeflate_crc32(0, buf + start + SWEEP_RECORD_FRAME_HEADER, body);
    for (int i = 0; i < 4; i++)
        buf[start + 4 + i] = (uint8_t)(c >> (8 * i));
}

/* ---- reading a log's records ------------------------------------------------ */

typedef struct scan {
    uint32_t segment, hash_every, players_block;
    uint64_t first_tick;
    char map_name[64], previous[256];
    uint8_t content_hash[32];
    uint32_t opens, tcp, udp, server_role;
    uint32_t ins, outs, ids, ticks, hashes, closes, ends;
} scan;

/* Reads every record of one segment with the reader API; 0, or -1 with
 * err. */
static int scan_log(const char *path, scan *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    sweep_record_reader *r = sweep_record_open(path, err, errlen);
    if (!r)
        return -1;
    const sweep_record_head *h = sweep_record_head_of(r);
    s->segment = h->segment;
    s->hash_every = h->hash_every;
    s->players_block = h->players_block;
    s->first_tick = h->first_tick;
    snprintf(s->map_name, sizeof s->map_name, "%.*s", (int)h->map_name.len, (const char *)h->map_name.ptr);
    snprintf(s->previous, sizeof s->previous, "%.*s", (int)h->previous.len, (const char *)h->previous.ptr);
    memcpy(s->content_hash, h->content_hash, 32);
    sweep_record x;
    int got;
    while ((got = sweep_record_next(r, &x, err, errlen)) == 1) {
        switch (x.type) {
        case SWEEP_RECORD_OPEN:
            s->opens++;
            if (x.transport == 0)
                s->tcp++;
            else
                s->udp++;
            s->server_role += x.role == SWEEP_WIRE_ROLE_SERVER;
            break;
        case SWEEP_RECORD_IN: s->ins++; break;
        case SWEEP_RECORD_OUT: s->outs++; break;
        case SWEEP_RECORD_ID: s->ids++; break;
        case SWEEP_RECORD_TICK: s->ticks++; break;
        case SWEEP_RECORD_HASH: s->hashes++; break;
        case SWEEP_RECORD_CLOSE: s->closes++; break;
        case SWEEP_RECORD_END: s->ends++; break;
        default: break;
        }
    }
    sweep_record_close(r);
    return got;
}

/* ---- replaying -------------------------------------------------------------- */

/* What the messages of a replay held (sweep_replay_watch). */
typedef struct tally {
    uint64_t messages, answers, results, spawned, despawned, commanded, errors;
    uint64_t error_codes[SWEEP_WIRE_CODE_COUNT];
    uint32_t rules;     /* every rule bit of MoveResults and Spawneds */
    uint64_t ruled;     /* MoveResults with a rule */
    uint64_t corrected; /* MoveResults flagged as corrected */
    uint64_t airborne;  /* MoveResults not on the ground */
    uint64_t carried_on[8]; /* carried MoveResults by ground mover id */
    uint64_t started_elsewhere; /* has_start_position: a mover moved it */
    uint32_t commanded_mover;
    double max_z;
    uint64_t last_tick;
    int tick_went_back;
} tally;

static void tally_result(tally *t, const sweep_msg_move_result *r)
{
    t->results++;
    t->rules |= r->rules;
    t->ruled += r->rules != 0;
    t->corrected += r->corrected;
    t->airborne += !r->grounded;
    if (r->carried && r->ground_mover < 8)
        t->carried_on[r->ground_mover]++;
    t->started_elsewhere += r->has_start_position;
    if (r->position.z > t->max_z)
        t->max_z = r->position.z;
}

static void on_event(void *ctx, const sweep_replay_event *ev)
{
    tally *t = ctx;
    const sweep_message *m = ev->message;
    t->messages++;
    t->answers += m->kind == SWEEP_MSG_MOVE_RESULT || m->kind == SWEEP_MSG_MOVE_RESULT_BATCH ||
                  m->kind == SWEEP_MSG_SPAWNED || m->kind == SWEEP_MSG_DESPAWNED ||
                  m->kind == SWEEP_MSG_MOVER_COMMANDED || m->kind == SWEEP_MSG_ERROR;
    t->tick_went_back |= ev->tick < t->last_tick || ev->session == 0;
    t->last_tick = ev->tick;
    switch (m->kind) {
    case SWEEP_MSG_MOVE_RESULT: tally_result(t, &m->as.move_result); break;
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        for (uint32_t i = 0; i < m->as.move_result_batch.count; i++)
            tally_result(t, &m->as.move_result_batch.results[i]);
        break;
    case SWEEP_MSG_SPAWNED:
        t->spawned++;
        t->rules |= m->as.spawned.rules;
        break;
    case SWEEP_MSG_DESPAWNED: t->despawned++; break;
    case SWEEP_MSG_MOVER_COMMANDED:
        t->commanded++;
        t->commanded_mover = m->as.mover_commanded.mover;
        break;
    case SWEEP_MSG_ERROR:
        t->errors++;
        if (m->as.error.code < SWEEP_WIRE_CODE_COUNT)
            t->error_codes[m->as.error.code]++;
        break;
    default: break;
    }
}

/* Replays a whole log on `map` at the depth `flags` (replay.h); fails the
 * test, saying why, unless every bit matched. */
static void replay_at(const char *log, const char *map, unsigned flags, sweep_replay_stats *st, tally *t)
{
    char err[1400];
    sweep_replay *r = sweep_replay_open_flags(log, map, flags, err, sizeof err);
    if (!r)
        fail_msg("%s: cannot open (flags %u): %s", log, flags, err);
    assert_int_equal(sweep_replay_flags(r), flags);
    if (t) {
        memset(t, 0, sizeof *t);
        sweep_replay_watch(r, on_event, t);
    }
    int rc = sweep_replay_run(r);
    if (rc != 0) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        fail_msg("%s (%s depth): %s", log, flags ? "core" : "full", d ? d->text : sweep_replay_error(r));
    }
    *st = *sweep_replay_stats_of(r);
    /* Stepping after the end stays at the end. */
    assert_int_equal(sweep_replay_step(r), 0);
    assert_null(sweep_replay_divergence_of(r));
    assert_string_equal(sweep_replay_error(r), "");
    sweep_replay_close(r);
}

static void replay_ok(const char *log, const char *map, sweep_replay_stats *st, tally *t)
{
    replay_at(log, map, 0, st, t);
}

/* ---- the golden logs ----------------------------------------------------- */

static void golden_common(const char *scenario, scan *s, sweep_replay_stats *st, tally *t)
{
    char path[1200], err[1400];
    golden(scenario, path, sizeof path);
    if (scan_log(path, s, err, sizeof err) != 0)
        fail_msg("%s: %s", path, err);
    assert_int_equal(s->segment, 0);
    assert_string_equal(s->map_name, "arena");
    assert_int_equal(s->hash_every, 15);
    assert_int_equal(s->ends, 1);
    replay_ok(path, g_map, st, t);
    /* Every record the reader saw is accounted for by the replay. */
    assert_int_equal(st->ticks, s->ticks);
    assert_int_equal(st->hashes, s->hashes);
    assert_int_equal(st->requests, s->ins);
    assert_int_equal(st->outputs, s->outs);
    assert_int_equal(st->sessions, s->opens);
    assert_int_equal(t->messages, s->outs);
    assert_int_equal(st->segments, 1);
    assert_true(st->ended);
    assert_false(st->truncated);
    assert_true(st->ticks > 30);
    assert_true(st->moves > 50);
    assert_true(st->hashes >= 2);
    assert_true(st->bytes > 1000 && st->bytes < 200 * 1024);
    assert_false(t->tick_went_back);
    assert_int_equal(t->spawned, s->ids); /* one id drawn per entity spawned */
    /* These scenarios send no batches and nothing is crushed: each request
     * has one answer, each move applied one MoveResult. */
    assert_int_equal(t->answers, st->requests);
    assert_int_equal(t->results, st->moves);
}

/* Honest players: two over TCP, one over UDP; nothing refused, nothing
 * corrected. */
static void golden_walking(void **state)
{
    (void)state;
    scan s;
    sweep_replay_stats st;
    tally t;
    golden_common("walking", &s, &st, &t);
    assert_int_equal(s.tcp, 2);
    assert_int_equal(s.udp, 1);
    assert_int_equal(s.server_role, 0);
    assert_int_equal(t.spawned, 3);
    assert_int_equal(t.errors, 0);
    assert_int_equal(t.rules, 0);
    assert_int_equal(t.corrected, 0);
    assert_int_equal(t.results, st.moves);
}

/* Jumps: granted from the ground (a body well above its standing height),
 * refused in the air (Jump) and a wish upwards (Vertical). */
static void golden_jumping(void **state)
{
    (void)state;
    scan s;
    sweep_replay_stats st;
    tally t;
    golden_common("jumping", &s, &st, &t);
    assert_int_equal(t.spawned, 3);
    assert_int_equal(t.errors, 0);
    assert_true(t.rules & SWEEP_WIRE_RULE_JUMP);
    assert_true(t.rules & SWEEP_WIRE_RULE_VERTICAL);
    assert_true(t.airborne > 20);
    assert_true(t.max_z > 1.5); /* standing, a centre is at 0.9 */
}

/* The movers, players blocking: riders carried by the lift (mover 3) and
 * the platform (mover 4), the sliding door (mover 1) commanded. */
static void golden_movers(void **state)
{
    (void)state;
    scan s;
    sweep_replay_stats st;
    tally t;
    golden_common("movers", &s, &st, &t);
    assert_int_equal(s.players_block, 1);
    assert_int_equal(s.server_role, 4);
    assert_int_equal(s.udp, 1);
    assert_int_equal(t.errors, 0);
    assert_int_equal(t.commanded, 1);
    assert_int_equal(t.commanded_mover, 1);
    assert_true(t.carried_on[3] > 20);
    assert_true(t.carried_on[4] > 5);
    assert_true(t.started_elsewhere > 20);
    assert_true(t.max_z > 2.0); /* the lift raised its riders */
}

/* Cheats: every rule they trip is named, free moves and a guest's
 * MoverCommand are refused with Errors. */
static void golden_cheats(void **state)
{
    (void)state;
    scan s;
    sweep_replay_stats st;
    tally t;
    golden_common("cheats", &s, &st, &t);
    assert_int_equal(s.server_role, 0);
    const uint32_t want = SWEEP_WIRE_RULE_SPEED | SWEEP_WIRE_RULE_JUMP | SWEEP_WIRE_RULE_TIME_BUDGET |
                          SWEEP_WIRE_RULE_CORRECTION | SWEEP_WIRE_RULE_SPAWN_POSITION | SWEEP_WIRE_RULE_SPAWN_RADII;
    assert_int_equal(t.rules & want, want);
    assert_true(t.ruled > 50);
    assert_true(t.corrected > 10);
    assert_true(t.error_codes[SWEEP_WIRE_NOT_ALLOWED] > 20); /* Fly and Noclip */
    assert_int_equal(t.error_codes[SWEEP_WIRE_AUTH_FAILED], 1);  /* the MoverCommand */
    assert_int_equal(t.errors, t.error_codes[SWEEP_WIRE_NOT_ALLOWED] + 1);
    /* A refused move moves nothing: the requests are the moves applied,
     * the spawns and the refusals. */
    assert_int_equal(st.requests, st.moves + t.spawned + t.despawned + t.errors);
}

/* ---- the core depth ------------------------------------------------------- */

/* The core depth after the full one on the same log: it checks, with the
 * core alone, every move the full depth applied, reads the same records,
 * and hands the watcher the same messages. */
static void core_matches_full_on(const char *log, const char *map, const sweep_replay_stats *full, const tally *tf,
                                 sweep_replay_stats *core, tally *tc)
{
    replay_at(log, map, SWEEP_REPLAY_CORE, core, tc);
    assert_int_equal(core->moves, full->moves);
    assert_int_equal(core->outputs, core->moves); /* one result compared per move */
    assert_int_equal(core->hashes, 0);
    assert_int_equal(full->refused, 0);
    assert_int_equal(core->ticks, full->ticks);
    assert_int_equal(core->sessions, full->sessions);
    assert_int_equal(core->requests, full->requests);
    assert_int_equal(core->segments, full->segments);
    assert_int_equal(core->bytes, full->bytes);
    assert_int_equal(core->ended, full->ended);
    assert_int_equal(core->truncated, full->truncated);
    assert_int_equal(tc->messages, tf->messages);
    assert_int_equal(tc->results, tf->results);
    assert_int_equal(tc->spawned, tf->spawned);
    assert_int_equal(tc->despawned, tf->despawned);
    assert_int_equal(tc->errors, tf->errors);
    assert_int_equal(tc->commanded, tf->commanded);
    assert_int_equal(tc->started_elsewhere, tf->started_elsewhere);
    assert_memory_equal(tc->carried_on, tf->carried_on, sizeof tc->carried_on);
    assert_false(tc->tick_went_back);
}

static void core_matches_full(const char *log, const sweep_replay_stats *full, const tally *tf,
                              sweep_replay_stats *core, tally *tc)
{
    core_matches_full_on(log, g_map, full, tf, core, tc);
}

static void both_depths(const char *log, sweep_replay_stats *full, tally *tf, sweep_replay_stats *core, tally *tc)
{
    replay_ok(log, g_map, full, tf);
    core_matches_full(log, full, tf, core, tc);
}

/* The golden logs recorded without --players-block replay at the core
 * depth too; the refused Fly and Noclip moves of the cheats are counted,
 * having no result to compare. */
static void golden_core_depth(void **state)
{
    (void)state;
    static const char *const scenarios[] = {"walking", "jumping", "cheats"};
    for (unsigned i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        char path[1200];
        sweep_replay_stats full, core;
        tally tf, tc;
        both_depths(golden(scenarios[i], path, sizeof path), &full, &tf, &core, &tc);
        assert_true(core.moves > 50);
        if (strcmp(scenarios[i], "cheats") == 0) {
            assert_true(core.refused > 20);
            assert_int_equal(core.refused, tf.error_codes[SWEEP_WIRE_NOT_ALLOWED]);
        } else {
            assert_int_equal(core.refused, 0);
        }
    }
}

/* With --players-block on, every move meets the other players' shells,
 * which the log does not hold between moves: the core depth refuses such
 * a log at open, saying why, rather than checking half of it. */
static void golden_players_block_refused_at_core_depth(void **state)
{
    (void)state;
    char path[1200], err[1400];
    golden("movers", path, sizeof path);
    err[0] = 0;
    sweep_replay *r = sweep_replay_open_flags(path, g_map, SWEEP_REPLAY_CORE, err, sizeof err);
    if (r) {
        sweep_replay_close(r);
        fail_msg("%s was opened at the core depth", path);
    }
    if (!strstr(err, path) || !strstr(err, "core replay does not support logs recorded with --players-block on") ||
        !strstr(err, "use the full replay"))
        fail_msg("error '%s'", err);
    /* The full depth takes it, as golden_movers shows; unknown flags are
     * refused. */
    assert_null(sweep_replay_open_flags(path, g_map, 0x80u, err, sizeof err));
    assert_non_null(strstr(err, "flags"));
}

/* ---- a log that is not right ------------------------------------------------- */

/* Where a MoveResult's position.x lies in a log. */
/* The TCP sessions a reader has met so far, whose messages keep their
 * size prefix: fed every record, it says how to decode a message of x's
 * session. */
typedef struct tcp_sessions {
    uint64_t id[64];
    unsigned n;
} tcp_sessions;

static unsigned wire_flags(tcp_sessions *t, const sweep_record *x)
{
    if (x->type == SWEEP_RECORD_OPEN && x->transport == 0 && t->n < 64)
        t->id[t->n++] = x->session;
    for (unsigned i = 0; i < t->n; i++)
        if (t->id[i] == x->session)
            return SWEEP_WIRE_SIZE_PREFIXED;
    return 0;
}

typedef struct target {
    uint64_t record;  /* offset of the OUT record */
    size_t x_at;      /* file offset of position.x's lowest byte */
    uint64_t session;
    uint32_t entity;
    double x;
} target;

/* The first MoveResult of the log whose position's 24 bytes occur once in
 * its message (so the byte changed can only be position.x). */
static void find_result(const char *log, target *t)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    tcp_sessions tcp = {.n = 0};
    uint64_t aligned[8192];
    sweep_record x;
    int found = 0;
    while (!found && sweep_record_next(r, &x, err, sizeof err) == 1) {
        unsigned flags = wire_flags(&tcp, &x);
        if (x.type != SWEEP_RECORD_OUT || x.bytes.len > sizeof aligned)
            continue;
        memcpy(aligned, x.bytes.ptr, x.bytes.len);
        sweep_message m;
        if (sweep_decode(NULL, aligned, x.bytes.len, flags, &m) != SWEEP_PROTO_OK || m.kind != SWEEP_MSG_MOVE_RESULT)
            continue;
        const sweep_vec3 p = m.as.move_result.position;
        double xyz[3] = {p.x, p.y, p.z};
        const uint8_t *at = memmem(x.bytes.ptr, x.bytes.len, xyz, sizeof xyz);
        if (!at || memmem(at + 1, x.bytes.len - (size_t)(at + 1 - x.bytes.ptr), xyz, sizeof xyz))
            continue;
        t->record = x.offset;
        t->x_at = (size_t)x.offset + 5 + 8 + (size_t)(at - x.bytes.ptr);
        t->session = x.session;
        t->entity = m.as.move_result.entity;
        t->x = p.x;
        found = 1;
    }
    sweep_record_close(r);
    assert_true(found);
}

/* Writes a copy of `log` to `out` with position.x of t changed by its
 * lowest bit; with `fix`, the frame's checksum is made right again. */
static void tamper(const char *log, const target *t, int fix, const char *out, size_t *frame_at)
{
    size_t len;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    assert_true(t->x_at < len);
    uint32_t body = 0;
    assert_int_equal(frame_holding(buf, len, t->x_at, frame_at, &body), 0);
    buf[t->x_at] ^= 0x01;
    if (fix)
        fix_crc(buf, *frame_at, body);
    write_all(out, buf, len);
    free(buf);
}

static void bits_text(double v, char *out, size_t n)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    snprintf(out, n, "0x%016" PRIx64, b);
}

/* A MoveResult changed under a valid checksum: the replay's answer
 * differs there, and the divergence names the field and both values. */
static void changed_result_is_a_divergence(void **state)
{
    (void)state;
    char log[1200], out[400];
    target t;
    size_t frame_at = 0;
    find_result(golden("movers", log, sizeof log), &t);
    tamper(log, &t, 1, scratch("changed.sweeplog", out, sizeof out), &frame_at);
    char err[1400];
    sweep_replay *r = sweep_replay_open(out, g_map, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    int rc, steps = 0;
    while ((rc = sweep_replay_step(r)) == 1)
        steps++;
    assert_int_equal(rc, -1);
    assert_true(steps > 0); /* the log was fine up to there */
    const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
    assert_non_null(d);
    assert_string_equal(d->field, "MoveResult.position.x");
    assert_int_equal(d->session, t.session);
    assert_int_equal(d->entity, t.entity);
    assert_int_equal(d->offset, t.record);
    assert_string_equal(d->file, out);
    assert_int_equal(d->tick, sweep_replay_tick(r));
    double changed = t.x;
    uint8_t *b = (uint8_t *)&changed;
    b[0] ^= 0x01;
    char want_recorded[32], want_replayed[32];
    bits_text(changed, want_recorded, sizeof want_recorded);
    bits_text(t.x, want_replayed, sizeof want_replayed);
    if (!strstr(d->recorded, want_recorded) || !strstr(d->replayed, want_replayed))
        fail_msg("recorded '%s' (want %s), replayed '%s' (want %s)", d->recorded, want_recorded, d->replayed,
                 want_replayed);
    assert_non_null(strstr(d->text, "MoveResult.position.x"));
    assert_non_null(strstr(d->text, d->recorded));
    assert_non_null(strstr(d->text, d->replayed));
    /* It stays stopped. */
    assert_int_equal(sweep_replay_step(r), -1);
    assert_int_equal(sweep_replay_run(r), -1);
    sweep_replay_close(r);
}

/* The same at the core depth (on a log it takes): the recomputed result
 * differs from the changed one at that very record, named as the full
 * depth names it, with both values. */
static void core_changed_result_is_a_divergence(void **state)
{
    (void)state;
    char log[1200], out[400], err[1400];
    target t;
    size_t frame_at = 0;
    find_result(golden("walking", log, sizeof log), &t);
    tamper(log, &t, 1, scratch("core-changed.sweeplog", out, sizeof out), &frame_at);
    double changed = t.x;
    ((uint8_t *)&changed)[0] ^= 0x01;
    char want_recorded[32], want_replayed[32];
    bits_text(changed, want_recorded, sizeof want_recorded);
    bits_text(t.x, want_replayed, sizeof want_replayed);
    sweep_replay_divergence at[2];
    for (int depth = 0; depth < 2; depth++) {
        sweep_replay *r = sweep_replay_open_flags(out, g_map, depth ? SWEEP_REPLAY_CORE : 0, err, sizeof err);
        if (!r)
            fail_msg("%s", err);
        int rc, steps = 0;
        while ((rc = sweep_replay_step(r)) == 1)
            steps++;
        assert_int_equal(rc, -1);
        assert_true(steps > 0);
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        assert_non_null(d);
        assert_string_equal(sweep_replay_error(r), "");
        assert_string_equal(d->field, "MoveResult.position.x");
        assert_int_equal(d->session, t.session);
        assert_int_equal(d->entity, t.entity);
        assert_int_equal(d->offset, t.record);
        assert_string_equal(d->file, out);
        assert_int_equal(d->tick, sweep_replay_tick(r));
        if (!strstr(d->recorded, want_recorded) || !strstr(d->replayed, want_replayed))
            fail_msg("depth %d: recorded '%s' (want %s), replayed '%s' (want %s)", depth, d->recorded,
                     want_recorded, d->replayed, want_replayed);
        assert_int_equal(sweep_replay_run(r), -1); /* it stays stopped */
        /* Every move up to it was checked, one result each. */
        const sweep_replay_stats *st = sweep_replay_stats_of(r);
        assert_true(st->moves > 0);
        if (depth)
            assert_int_equal(st->outputs, st->moves);
        at[depth] = *d;
        sweep_replay_close(r);
    }
    /* The core depth stops where the full one does, saying the same. */
    assert_int_equal(at[1].tick, at[0].tick);
    assert_string_equal(at[1].recorded, at[0].recorded);
    assert_string_equal(at[1].replayed, at[0].replayed);
    assert_string_equal(at[1].text, at[0].text);
}

/* Any bit of any answer changed under a valid checksum is caught, as a
 * divergence at that very record: a replay compares every byte the
 * server sent, not only the fields it knows how to name. One bit in each
 * of about sixty answers of the cheats log (Spawneds, MoveResults with
 * rules, Errors), at positions spread over the messages. */
static void any_changed_answer_is_a_divergence(void **state)
{
    (void)state;
    char log[1200], out[512], err[1400];
    golden("cheats", log, sizeof log);
    scratch("bit.sweeplog", out, sizeof out);
    typedef struct answer {
        uint64_t offset, session;
        uint32_t len;
    } answer;
    static answer answers[4096];
    uint32_t n = 0;
    sweep_record_reader *rd = sweep_record_open(log, err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    sweep_record x;
    while (sweep_record_next(rd, &x, err, sizeof err) == 1 && n < 4096)
        if (x.type == SWEEP_RECORD_OUT)
            answers[n++] = (answer){x.offset, x.session, x.bytes.len};
    sweep_record_close(rd);
    assert_true(n > 100);
    size_t len;
    uint8_t *orig = read_all(log, &len);
    assert_non_null(orig);
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    unsigned tried = 0;
    for (uint32_t i = 0; i < n; i += n / 60) {
        const answer *a = &answers[i];
        size_t at = (size_t)a->offset + 5 + 8 + (size_t)((i * 7919u) % a->len);
        memcpy(buf, orig, len);
        buf[at] ^= (uint8_t)(1u << (i % 8));
        size_t start = 0;
        uint32_t body = 0;
        assert_int_equal(frame_holding(buf, len, at, &start, &body), 0);
        fix_crc(buf, start, body);
        write_all(out, buf, len);
        sweep_replay *r = sweep_replay_open(out, g_map, err, sizeof err);
        if (!r)
            fail_msg("%s", err);
        assert_int_equal(sweep_replay_run(r), -1);
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        if (!d)
            fail_msg("bit %u of byte %zu (answer at %" PRIu64 "): no divergence but '%s'", i % 8, at, a->offset,
                     sweep_replay_error(r));
        assert_int_equal(d->offset, a->offset);
        assert_int_equal(d->session, a->session);
        assert_true(d->field[0] && d->recorded[0] && d->replayed[0]);
        sweep_replay_close(r);
        tried++;
    }
    assert_true(tried >= 60);
    free(buf);
    free(orig);
}

/* A byte changed under the old checksum is corruption, named by the
 * frame's byte offset: no divergence is made up. */
static void bad_checksum_is_corruption(void **state)
{
    (void)state;
    char log[1200], out[400], err[1400], want[64];
    target t;
    size_t frame_at = 0;
    find_result(golden("walking", log, sizeof log), &t);
    tamper(log, &t, 0, scratch("corrupt.sweeplog", out, sizeof out), &frame_at);
    sweep_replay *r = sweep_replay_open(out, g_map, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_int_equal(sweep_replay_run(r), -1);
    assert_null(sweep_replay_divergence_of(r));
    const char *e = sweep_replay_error(r);
    snprintf(want, sizeof want, "frame at byte %zu ", frame_at);
    if (!strstr(e, want) || !strstr(e, "checksum") || !strstr(e, out))
        fail_msg("error '%s' does not name the file, '%s' and the checksum", e, want);
    const sweep_replay_stats *st = sweep_replay_stats_of(r);
    assert_false(st->ended);
    sweep_replay_close(r);

    /* In the first frame (the HEAD), opening already fails. */
    size_t len;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    buf[SWEEP_RECORD_HEADER_SIZE + SWEEP_RECORD_FRAME_HEADER + 10] ^= 0x40;
    write_all(out, buf, len);
    free(buf);
    assert_null(sweep_replay_open(out, g_map, err, sizeof err));
    snprintf(want, sizeof want, "frame at byte %u ", SWEEP_RECORD_HEADER_SIZE);
    if (!strstr(err, want) || !strstr(err, "checksum"))
        fail_msg("error '%s' does not say '%s' and checksum", err, want);
}

/* Cut inside the last frame (as a killed server leaves it): the replay
 * goes to the last whole frame and says the log was truncated. */
static void torn_tail_is_truncated(void **state)
{
    (void)state;
    char log[1200], out[400];
    size_t len;
    uint8_t *buf = read_all(golden("jumping", log, sizeof log), &len);
    assert_non_null(buf);
    size_t last = 0;
    uint32_t body = 0;
    last_frame(buf, len, &last, &body);
    sweep_replay_stats whole, st;
    tally t;
    replay_ok(log, g_map, &whole, &t);
    scratch("torn.sweeplog", out, sizeof out);
    /* In the body, in the frame header, and right at the frame's start. */
    const size_t cuts[] = {last + SWEEP_RECORD_FRAME_HEADER + body / 2, last + 5, last + 1,
                           last + SWEEP_RECORD_FRAME_HEADER + body - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_all(out, buf, cuts[i]);
        replay_ok(out, g_map, &st, NULL);
        assert_true(st.truncated);
        assert_false(st.ended);
        assert_int_equal(st.bytes, cuts[i]);
        assert_true(st.ticks > 0 && st.ticks <= whole.ticks);
        assert_true(st.moves > 0 && st.moves <= whole.moves);
    }
    /* The CLI says ok (exit 0) but, with --strict, fails it (exit 1). */
    char cmd[4096], *text = NULL;
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s", g_bin, out, g_map);
    assert_int_equal(fx_run(cmd, &text), 0);
    free(text);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --strict --json", g_bin, out, g_map);
    int rc = fx_run(cmd, &text);
    if (rc != 1 || !strstr(text, "\"ok\":false") || !strstr(text, "torn frame"))
        fail_msg("%s: exit %d: %s", cmd, rc, text);
    free(text);
    /* Cut at a frame boundary: nothing torn, but no END either. */
    write_all(out, buf, last);
    replay_ok(out, g_map, &st, NULL);
    assert_false(st.truncated);
    assert_false(st.ended);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --strict", g_bin, out, g_map);
    rc = fx_run(cmd, &text);
    if (rc != 1 || !strstr(text, "no END"))
        fail_msg("%s: exit %d: %s", cmd, rc, text);
    free(text);
    /* The whole log passes --strict. */
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --strict", g_bin, log, g_map);
    assert_int_equal(fx_run(cmd, &text), 0);
    free(text);
    free(buf);
}

/* Another map: refused at open, naming both content hashes. */
static void another_map_is_refused(void **state)
{
    (void)state;
    char log[1200], other[400], cmd[8192], err[1400], *out = NULL;
    scratch("other.db", other, sizeof other);
    snprintf(cmd, sizeof cmd, "%s/sweep-mapgen --tris 300 --quiet -o %s", g_bin, other);
    int rc = fx_run(cmd, &out);
    if (rc != 0)
        fail_msg("%s: exit %d: %s", cmd, rc, out ? out : "");
    free(out);
    golden("walking", log, sizeof log);
    assert_null(sweep_replay_open(log, other, err, sizeof err));
    scan s;
    char e2[1400];
    assert_int_equal(scan_log(log, &s, e2, sizeof e2), 0);
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", s.content_hash[i]);
    if (!strstr(err, "content hash") || !strstr(err, hex) || !strstr(err, other))
        fail_msg("error '%s' does not name the content hashes (recorded %s) and %s", err, hex, other);

    /* A map that is not there. */
    scratch("no-such-map.db", other, sizeof other);
    assert_null(sweep_replay_open(log, other, err, sizeof err));
    if (!strstr(err, "cannot load the map"))
        fail_msg("error '%s'", err);
}

static void refused_with(const char *path, const char *needle)
{
    char err[1400];
    err[0] = 0;
    sweep_replay *r = sweep_replay_open(path, g_map, err, sizeof err);
    if (r) {
        sweep_replay_close(r);
        fail_msg("%s was opened as a log", path);
    }
    if (!strstr(err, needle) || !strstr(err, path))
        fail_msg("%s: error '%s' does not name the file and say '%s'", path, err, needle);
}

/* Files that are not logs, or not all of one. */
static void not_a_log_is_refused(void **state)
{
    (void)state;
    char path[400];
    scratch("text.sweeplog", path, sizeof path);
    const char text[] = "this is a text file, not a session log at all\n";
    write_all(path, text, sizeof text - 1);
    refused_with(path, "not a sweep log");

    scratch("empty.sweeplog", path, sizeof path);
    write_all(path, "", 0);
    refused_with(path, "0 bytes");

    /* The header of a log and nothing after it (killed before it wrote its
     * HEAD frame). */
    scratch("header.sweeplog", path, sizeof path);
    uint8_t h[SWEEP_RECORD_HEADER_SIZE] = "SWEEPLOG\x01";
    write_all(path, h, sizeof h);
    refused_with(path, "no whole frame");

    /* Version 2 (with MOVE records) is read as well. */
    h[8] = 2;
    write_all(path, h, sizeof h);
    refused_with(path, "no whole frame");

    /* Version 3 (the server role's entity cap in HEAD) too. */
    h[8] = 3;
    write_all(path, h, sizeof h);
    refused_with(path, "no whole frame");

    /* Version 4 (the seed of the entity ids in HEAD) too. */
    h[8] = 4;
    write_all(path, h, sizeof h);
    refused_with(path, "no whole frame");

    /* A format from the future, and one from before the first. */
    h[8] = SWEEP_RECORD_VERSION + 1;
    write_all(path, h, sizeof h);
    char future[32];
    snprintf(future, sizeof future, "version %u", SWEEP_RECORD_VERSION + 1);
    refused_with(path, future);
    h[8] = 0;
    write_all(path, h, sizeof h);
    refused_with(path, "version 0");

    scratch("missing.sweeplog", path, sizeof path);
    refused_with(path, "cannot open");
    refused_with(g_tmp, "not a regular file");
}

/* ---- logs a real sweepd writes ------------------------------------------------ */

/* sweep-bots against d in the background: `clients` bots of `modes` on
 * the arena for `seconds`. Its output goes to `out`. */
static pid_t start_bots_with(const fx_server *d, const char *modes, int clients, double seconds, int udp,
                             const char *loss, const char *redundancy, const char *out);

static pid_t start_bots(const fx_server *d, const char *modes, int clients, double seconds, int udp, const char *out)
{
    return start_bots_with(d, modes, clients, seconds, udp, NULL, NULL, out);
}

/* start_bots, over UDP with each datagram dropped with probability loss
 * and carrying the last `redundancy` unanswered moves again (both NULL:
 * neither). */
static pid_t start_bots_with(const fx_server *d, const char *modes, int clients, double seconds, int udp,
                             const char *loss, const char *redundancy, const char *out)
{
    char bin[1100], n[16], dur[32];
    snprintf(bin, sizeof bin, "%s/sweep-bots", g_bin);
    snprintf(n, sizeof n, "%d", clients);
    snprintf(dur, sizeof dur, "%.3f", seconds);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        const char *argv[] = {bin,        "--connect", udp ? d->udp : d->tcp, "--map", g_map, "--mode", modes,
                              "--clients", n,          "--duration",          dur,     "--warmup", "0",
                              udp ? "--udp" : NULL,    NULL, NULL, NULL, NULL, NULL};
        if (udp && loss) {
            argv[14] = "--loss", argv[15] = loss;
            argv[16] = "--redundancy", argv[17] = redundancy;
        }
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits up to `seconds` for pid; then SIGTERM and SIGKILL it (it is ours). */
static void reap(pid_t pid, double seconds)
{
    for (int i = 0; i < (int)(seconds * 100); i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        usleep(10000);
    }
    kill(pid, SIGTERM);
    for (int i = 0; i < 300; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* The logs in dir, sorted by name (segment order); returns how many. */
static int logs_in(const char *dir, char names[][512], int cap)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < cap) {
        size_t l = strlen(e->d_name), sl = strlen(SWEEP_RECORD_SUFFIX);
        if (l > sl && strcmp(e->d_name + l - sl, SWEEP_RECORD_SUFFIX) == 0)
            snprintf(names[n++], 512, "%s/%s", dir, e->d_name);
    }
    closedir(dp);
    qsort(names, (size_t)n, 512, (int (*)(const void *, const void *))strcmp);
    return n;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* sweepd killed with SIGKILL while bots play, at different moments: the
 * log it leaves replays, to its last whole frame. Whether a kill lands
 * inside a write() (a torn tail) is luck; torn_tail_is_truncated makes
 * sure of that case. */
static void killed_server_log_replays(void **state)
{
    (void)state;
    static const struct {
        const char *modes;
        int clients, udp;
        double after; /* seconds after the log holds some moves */
    } rounds[] = {
        {"honest", 3, 0, 0.0},
        {"honest", 3, 0, 0.23},
        {"honest,speed,teleport,fly,flood", 5, 0, 0.41},
        {"honest", 2, 1, 0.67},
    };
    for (unsigned i = 0; i < sizeof rounds / sizeof rounds[0]; i++) {
        char dir[400], name[64], bots_out[440];
        snprintf(name, sizeof name, "killed-%u", i);
        scratch(name, dir, sizeof dir);
        assert_int_equal(mkdir(dir, 0700), 0);
        snprintf(bots_out, sizeof bots_out, "%s/bots.out", dir);
        char rec[480];
        snprintf(rec, sizeof rec, "%s/rec", dir);
        assert_int_equal(mkdir(rec, 0700), 0);
        const char *extra[] = {"--record", rec, "--record-hash-every", "10", NULL};
        fx_server d;
        assert_int_equal(fx_start(&d, extra), 0);
        pid_t bots = start_bots(&d, rounds[i].modes, rounds[i].clients, 20.0, rounds[i].udp, bots_out);
        /* Until the log holds a few dozen moves (each move and its answer
         * take a few hundred bytes), however slow the machine is. Nothing
         * is asserted before both programs are stopped. */
        char logs[4][512];
        int nlogs = logs_in(rec, logs, 4), waited = 0;
        while (bots > 0 && nlogs == 1 && file_size(logs[0]) < 24 * 1024 && waited < 3000) {
            usleep(10000);
            waited++;
        }
        usleep((useconds_t)(rounds[i].after * 1e6));
        kill(d.pid, SIGKILL);
        waitpid(d.pid, NULL, 0);
        d.pid = -1;
        fx_stop(&d);
        if (bots > 0)
            reap(bots, 0.0);
        assert_true(bots > 0);
        assert_int_equal(nlogs, 1);
        if (waited >= 3000) {
            char *o = (char *)read_all(bots_out, &(size_t){0});
            fail_msg("round %u: the log never grew past 24 KB; bots said: %s", i, o ? o : "");
        }
        sweep_replay_stats st;
        tally t;
        replay_ok(logs[0], g_map, &st, &t);
        assert_true(st.ticks > 0);
        assert_true(st.moves > 20);
        assert_true(st.hashes > 0);
        assert_false(st.ended);
        assert_true(st.sessions >= 1 && st.sessions <= (uint64_t)rounds[i].clients);
        /* A move and its answer are in one frame: both are kept or neither. */
        assert_int_equal(t.results, st.moves);
        if (getenv("SWEEP_TEST_VERBOSE"))
            fprintf(stderr, "round %u: %" PRIu64 " ticks, %" PRIu64 " moves, %" PRIu64 " bytes%s\n", i, st.ticks,
                    st.moves, st.bytes, st.truncated ? ", torn tail" : "");
        /* The core depth takes the same log, to the same last frame. */
        sweep_replay_stats cst;
        tally ct;
        core_matches_full(logs[0], &st, &t, &cst, &ct);
        assert_int_equal(cst.refused, t.errors);
    }
}

/* A request of commands, answered by its EntityCommandsResult (several
 * datagrams over UDP): the sequence of the answer, its results counted. */
static uint32_t command(int fd, int udp, fx_rx *rx, uint32_t seq, const sweep_msg_entity_command *c, uint32_t n)
{
    sweep_message m = fx_msg(SWEEP_MSG_ENTITY_COMMANDS, seq);
    m.as.entity_commands.commands = c;
    m.as.entity_commands.count = n;
    if (udp)
        assert_true(fx_udp_send(fd, &m) > 0);
    else
        assert_int_equal(fx_send(fd, &m), 0);
    uint32_t got = 0, applied = 0;
    while (got < n) {
        if (udp)
            assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
        else
            assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_ENTITY_COMMANDS_RESULT);
        assert_int_equal(m.sequence, seq);
        for (uint32_t k = 0; k < m.as.entity_commands_result.count; k++, got++)
            applied += m.as.entity_commands_result.results[k].code == SWEEP_WIRE_NONE;
    }
    return applied;
}

/* A move over TCP, answered. */
static sweep_msg_move_result moved(int fd, fx_rx *rx, sweep_message m)
{
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    if (m.kind != SWEEP_MSG_MOVE_RESULT)
        fail_msg("a move was answered with %s", sweep_msg_kind_name(m.kind));
    return m.as.move_result;
}

/* A game server's EntityCommands on a player's entity and its own,
 * recorded by a real sweepd (TCP, and UDP with an answer in several
 * datagrams), replay at the full depth (every message byte for byte, a
 * state hash every tick) and at the core depth, which follows what the
 * commands did to the entities from the logged results: the moves after
 * a teleport, an impulse and a new size start where the server's did. */
static void entity_commands_replay_at_both_depths(void **state)
{
    (void)state;
    char rec[400];
    scratch("commands", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *extra[] = {FX_SERVER_ARGS, "--record", rec, "--record-hash-every", "1", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int player = fx_tcp_connect(d.port), game = fx_tcp_connect(d.port), udp = fx_udp_socket(d.port);
    assert_true(player >= 0 && game >= 0 && udp >= 0);
    assert_true(fx_hello(player, rx) != 0);
    assert_true(fx_hello_token(game, rx, FX_TOKEN) != 0);
    sweep_message w = fx_msg(SWEEP_MSG_WELCOME, 0);
    assert_true(fx_udp_handshake_token(udp, rx, FX_TOKEN, &w) != 0);
    uint32_t e = fx_spawn(player, rx, 2, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    uint32_t g = fx_spawn(game, rx, 2, sweep_v3(-12, 7.3, 1), sweep_v3(0, 0, 0));
    assert_true(e != 0 && g != 0);
    const double dt = 1.0 / 60.0;
    uint32_t seq = 3;
    for (int i = 0; i < 10; i++, usleep(16000))
        moved(player, rx, fx_move_msg(e, seq++, sweep_v3(1, 0, 0), dt));
    /* Placed, pushed up and out of the floor, with an upward impulse. */
    sweep_msg_entity_command c1[2] = {{.entity = e, .op = SWEEP_WIRE_OP_TELEPORT, .vector = {0, -6, 0.5}},
                                      {.entity = e, .op = SWEEP_WIRE_OP_ADD_IMPULSE, .vector = {1, 0, 3}}};
    assert_int_equal(command(game, 0, rx, 3, c1, 2), 2);
    sweep_msg_move_result r = moved(player, rx, fx_move_msg(e, seq++, sweep_v3(0, 0, 0), dt));
    assert_true(r.has_start_position);
    for (int i = 0; i < 20; i++, usleep(16000))
        moved(player, rx, fx_move_msg(e, seq++, sweep_v3(0, 1, 0), dt));
    /* Crouched, then the game server's own entity at the thin wall. */
    sweep_msg_entity_command c2[3] = {{.entity = e, .op = SWEEP_WIRE_OP_SET_RADII, .vector = {0.4, 0.4, 0.5}},
                                      {.entity = g, .op = SWEEP_WIRE_OP_SET_VELOCITY, .vector = {0, 40, 0}},
                                      {.entity = 77, .op = SWEEP_WIRE_OP_DESPAWN}};
    assert_int_equal(command(game, 0, rx, 4, c2, 3), 2);
    for (int i = 0; i < 10; i++, usleep(16000)) {
        moved(player, rx, fx_move_msg(e, seq++, sweep_v3(1, 0, 0), dt));
        r = moved(game, rx, fx_move_msg(g, 10 + i, sweep_v3(0, 0, 0), dt));
        assert_true(r.position.y <= 8.0 - 0.4 + 1e-3);
    }
    /* Over UDP, more results than a datagram holds. */
    uint32_t n = w.as.welcome.max_batch;
    sweep_msg_entity_command many[64];
    assert_true(n >= 8 && n <= 64);
    for (uint32_t i = 0; i < n; i++)
        many[i] = (sweep_msg_entity_command){.entity = g, .op = (uint8_t)(i % 2 ? 50 : SWEEP_WIRE_OP_ADD_IMPULSE),
                                             .vector = {0, -0.5, 0}};
    assert_int_equal(command(udp, 1, rx, 5, many, n), (n + 1) / 2);
    /* Moves of that entity, then the same datagram again (a duplicate, or
     * a resend for a lost answer): answered with the first answer's
     * results, applying nothing again, which both depths must meet alike
     * (the core depth must not take the old states of those results). */
    for (int i = 0; i < 3; i++, usleep(16000))
        moved(game, rx, fx_move_msg(g, 20 + i, sweep_v3(0, 0, 0), dt));
    assert_int_equal(command(udp, 1, rx, 5, many, n), (n + 1) / 2);
    /* The player's entity despawned by the game server: its owner hears. */
    sweep_msg_entity_command c3 = {.entity = e, .op = SWEEP_WIRE_OP_DESPAWN};
    assert_int_equal(command(game, 0, rx, 6, &c3, 1), 1);
    sweep_message m;
    assert_int_equal(fx_recv(player, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_DESPAWNED);
    for (int i = 0; i < 5; i++, usleep(16000))
        moved(game, rx, fx_move_msg(g, 30 + i, sweep_v3(0, 0, 0), dt));
    close(player);
    close(game);
    close(udp);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);
    char logs[2][512];
    assert_int_equal(logs_in(rec, logs, 2), 1);
    sweep_replay_stats full, core;
    tally tf, tc;
    replay_ok(logs[0], g_map, &full, &tf);
    assert_int_equal(full.moves, 10 + 1 + 20 + 10 * 2 + 3 + 5);
    assert_true(full.hashes >= full.ticks - 1 && full.ticks > 10);
    replay_at(logs[0], g_map, SWEEP_REPLAY_CORE, &core, &tc);
    assert_int_equal(core.moves, full.moves);
    assert_int_equal(core.requests, full.requests);
}

/* A UDP session that agreed datagrams of 60,000 bytes has its batch's
 * results cut to that size, and one of 1,200 bytes beside it to its own:
 * the replay cuts each session's answers as sweepd did (the OPEN names the
 * larger size), at both depths. */
static void wide_datagrams_replay(void **state)
{
    (void)state;
    enum { N = 600 };
    char rec[400];
    scratch("wide", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *extra[] = {FX_SERVER_ARGS, "--record", rec, "--udp-max-datagram", "60000", "--max-batch", "1024",
                           "--rate-limit-server", "0", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int wide = fx_udp_socket(d.port), plain = fx_udp_socket(d.port);
    assert_true(wide >= 0 && plain >= 0);
    int rcvbuf = 1 << 22;
    setsockopt(wide, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    setsockopt(plain, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sweep_message h = fx_hello_msg("wide"), w;
    h.as.hello.auth_token = sweep_str_of(FX_TOKEN);
    h.as.hello.max_datagram = 60000;
    assert_true(fx_udp_handshake_hello(wide, rx, &h, &w) != 0);
    assert_int_equal(w.as.welcome.max_frame_size, 60000);
    assert_true(w.as.welcome.max_batch >= N);
    sweep_message wp;
    assert_true(fx_udp_handshake_token(plain, rx, FX_TOKEN, &wp) != 0);
    assert_int_equal(wp.as.welcome.max_frame_size, SWEEP_UDP_MAX_DATAGRAM);
    static uint32_t ids[N];
    for (uint32_t i = 0; i < N; i++) {
        sweep_message s = fx_spawn_msg(1 + i, sweep_v3(-5.0 + 0.01 * (i % 100), 5.0 + 0.01 * (i / 100), 1.0),
                                       sweep_v3(0.4, 0.4, 0.9)),
                      r;
        assert_true(fx_udp_send(wide, &s) > 0);
        assert_true(fx_udp_recv(wide, rx, &r, FX_TIMEOUT_MS) > 0);
        assert_int_equal(r.kind, SWEEP_MSG_SPAWNED);
        ids[i] = r.as.spawned.entity;
    }
    static sweep_msg_move mv[N];
    uint32_t datagrams[2] = {0, 0};
    for (int round = 0; round < 3; round++, usleep(16000)) {
        for (uint32_t i = 0; i < N; i++) {
            mv[i] = fx_move_msg(ids[i], 1, sweep_v3(0, 0, 0), 1.0 / 60.0).as.move;
            mv[i].sequence = 1000 + (uint32_t)round * N + i;
        }
        /* All of them from the wide session, a dozen of them from the other. */
        for (int k = 0; k < 2; k++) {
            sweep_message b = fx_msg(SWEEP_MSG_MOVE_BATCH, 5000 + (uint32_t)round);
            b.as.move_batch.moves = mv;
            b.as.move_batch.count = k == 0 ? N : wp.as.welcome.max_batch;
            int fd = k == 0 ? wide : plain;
            assert_true(fx_udp_send(fd, &b) > 0);
            uint32_t answered = 0;
            while (answered < b.as.move_batch.count) {
                sweep_message r;
                assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
                if (r.kind == SWEEP_MSG_MOVE_RESULT_BATCH)
                    answered += r.as.move_result_batch.count;
                else if (r.kind == SWEEP_MSG_ERROR)
                    answered++; /* another session's entity: refused, named */
                else
                    fail_msg("%s", sweep_msg_kind_name(r.kind));
                datagrams[k]++;
            }
        }
    }
    /* The wide session's 600 results a batch in a few datagrams. */
    assert_true(datagrams[0] <= 3 * 4);
    close(wide);
    close(plain);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);
    char logs[2][512];
    assert_int_equal(logs_in(rec, logs, 2), 1);
    sweep_replay_stats full, core;
    tally tf, tc;
    replay_ok(logs[0], g_map, &full, &tf);
    assert_int_equal(full.moves, 3 * N);
    replay_at(logs[0], g_map, SWEEP_REPLAY_CORE, &core, &tc);
    assert_int_equal(core.moves, full.moves);
}

/* A player of a recording sweepd over TCP, spawned at the arena's
 * origin, for the jump tests below. */
typedef struct jumper {
    char rec[400];
    fx_server d;
    fx_rx *rx;
    int fd;
    uint32_t e;
} jumper;

static void jumper_start(jumper *j, const char *name)
{
    scratch(name, j->rec, sizeof j->rec);
    assert_int_equal(mkdir(j->rec, 0700), 0);
    const char *extra[] = {FX_SERVER_ARGS, "--record", j->rec, NULL};
    assert_int_equal(fx_start(&j->d, extra), 0);
    j->rx = fx_rx_new();
    j->fd = fx_tcp_connect(j->d.port);
    assert_true(j->fd >= 0);
    assert_true(fx_hello(j->fd, j->rx) != 0);
    j->e = fx_spawn(j->fd, j->rx, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_true(j->e != 0);
}

/* Stops the server and replays its one log at both depths; the moves. */
static uint64_t jumper_replay(jumper *j)
{
    close(j->fd);
    free(j->rx);
    assert_int_equal(fx_stop(&j->d), 0);
    char logs[2][512];
    assert_int_equal(logs_in(j->rec, logs, 2), 1);
    sweep_replay_stats full, core;
    tally tf, tc;
    both_depths(logs[0], &full, &tf, &core, &tc);
    return full.moves;
}

/* A jump held in the air with a sequence skipped before every move: the
 * world forgives a few refused jumps in the graces of those gaps (its
 * pace) and names the rest; the core depth, which runs sweep_act and
 * compares its Jump bit, must follow the same graces at both depths. */
static void jumps_forgiven_after_gaps_replay(void **state)
{
    (void)state;
    jumper j;
    jumper_start(&j, "gaps");
    const int fd = j.fd;
    fx_rx *rx = j.rx;
    const uint32_t e = j.e;
    int forgiven = 0, named = 0;
    for (uint32_t i = 0; i < 240; i++, usleep(16000)) {
        sweep_message m = fx_move_msg(e, 2 + 2 * i, sweep_v3(0, 0, 0), 1.0 / 60.0);
        m.as.move.buttons = SWEEP_WISH_JUMP;
        sweep_msg_move_result r = moved(fd, rx, m);
        if (!r.grounded && r.velocity.z < 4.0) { /* in the air, not this move's own jump */
            named += (r.rules & SWEEP_WIRE_RULE_JUMP) != 0;
            forgiven += (r.rules & SWEEP_WIRE_RULE_JUMP) == 0;
        }
    }
    assert_true(forgiven >= 1);
    assert_true(named > 2 * forgiven);
    assert_int_equal(jumper_replay(&j), 240);
}

/* A stall of the network mid-jump: the moves held back arrive at once,
 * those past the time bank are cut and the cut forgiven, and a jump
 * pressed in the air on them (where the client's prediction, which ran
 * the whole time, has it landed) is refused but not named, as after lost
 * moves, at the same pace. The core depth, which does not know the time
 * asked, learns of the forgiven cut from the MOVE record's flag and
 * follows at both depths. */
static void jumps_after_a_forgiven_cut_replay(void **state)
{
    (void)state;
    jumper j;
    jumper_start(&j, "stall");
    const int fd = j.fd;
    fx_rx *rx = j.rx;
    const uint32_t e = j.e;
    uint32_t seq = 2;
    for (int i = 0; i < 20; i++, usleep(16000))
        moved(fd, rx, fx_move_msg(e, seq++, sweep_v3(0, 0, 0), 1.0 / 60.0));
    sweep_message m = fx_move_msg(e, seq++, sweep_v3(0, 0, 0), 1.0 / 60.0);
    m.as.move.buttons = SWEEP_WISH_JUMP;
    assert_false(moved(fd, rx, m).grounded);
    usleep(400000); /* the stall: longer than the bank of 0.25 s */
    int forgiven_cuts = 0, named_cuts = 0, unnamed = 0, named = 0;
    for (int i = 0; i < 30; i++, usleep(4000)) {
        m = fx_move_msg(e, seq++, sweep_v3(0, 0, 0), 1.0 / 60.0);
        m.as.move.buttons = SWEEP_WISH_JUMP;
        sweep_msg_move_result r = moved(fd, rx, m);
        named_cuts += (r.rules & SWEEP_WIRE_RULE_TIME_BUDGET) != 0;
        if (r.time_excess > 0.0 && !(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET))
            forgiven_cuts++;
        /* Ran, in the air, and not this move's own jump: a refused one. */
        if (forgiven_cuts && r.applied_dt > 0.0 && !r.grounded && r.velocity.z < 4.0) {
            named += (r.rules & SWEEP_WIRE_RULE_JUMP) != 0;
            unnamed += (r.rules & SWEEP_WIRE_RULE_JUMP) == 0;
        }
    }
    print_message("after the stall: %d cuts forgiven, %d named; refused jumps since the first: %d unnamed, %d named\n",
                  forgiven_cuts, named_cuts, unnamed, named);
    assert_true(forgiven_cuts >= 1);
    assert_int_equal(named_cuts, 0);
    assert_true(unnamed >= 1);
    assert_int_equal(jumper_replay(&j), 51);
}

/* ---- worlds opened at run time --------------------------------------------------- */

/* A guest in world `world` over TCP: the socket, its Spawned entity in
 * *entity, then `moves` Walk moves a frame apart. */
static int play_in(const fx_server *d, fx_rx *rx, const char *world, uint32_t *entity, int moves)
{
    int fd = fx_tcp_connect(d->port);
    assert_true(fd >= 0);
    sweep_message m = fx_hello_msg("match");
    m.as.hello.world = sweep_str_of(world);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WELCOME);
    m = fx_msg(SWEEP_MSG_SPAWN, 2);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
    *entity = m.as.spawned.entity;
    for (int i = 0; i < moves; i++) {
        m = fx_move_msg(*entity, 3 + (uint32_t)i, sweep_v3(i % 7 < 4 ? 2.0 : -1.0, 1.0, 0), 1.0 / 60.0);
        m.as.move.buttons = i % 9 == 0 ? SWEEP_WISH_JUMP : 0;
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
        usleep(12000);
    }
    return fd;
}

/* The game server opens a world on a generated map, players move in it,
 * it closes; the same name opens again on the arena, is played, closes.
 * Each world wrote a log of its own, ended with END "closed", that
 * replays bit for bit at both depths on the map its HEAD names. */
static void run_time_worlds_replay(void **state)
{
    (void)state;
    char base[400], maps[480], rec[480], gen_db[560], arena_db[560], cmd[4000];
    scratch("runtime", base, sizeof base);
    snprintf(maps, sizeof maps, "%s/maps", base);
    snprintf(rec, sizeof rec, "%s/rec", base);
    assert_int_equal(mkdir(base, 0700), 0);
    assert_int_equal(mkdir(maps, 0700), 0);
    assert_int_equal(mkdir(rec, 0700), 0);
    snprintf(gen_db, sizeof gen_db, "%s/gen.db", maps);
    snprintf(arena_db, sizeof arena_db, "%s/arena.db", maps);
    snprintf(cmd, sizeof cmd, "%s/sweep-mapgen --tris 500 --seed 3 --quiet -o %s && cp %s %s", g_bin, gen_db, g_map,
             arena_db);
    assert_int_equal(fx_run(cmd, NULL), 0);
    const char *extra[] = {FX_SERVER_ARGS, "--maps-dir", maps, "--record", rec, "--record-hash-every", "10", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int gs = fx_tcp_connect(d.port);
    assert_true(gs >= 0);
    assert_true(fx_hello_token(gs, rx, FX_TOKEN) != 0);
    static const char *const on[2] = {"gen", "arena"};
    for (int round = 0; round < 2; round++) {
        sweep_message m = fx_msg(SWEEP_MSG_OPEN_WORLD, 10 + (uint32_t)round);
        m.as.open_world.map = sweep_str_of(on[round]);
        m.as.open_world.name = sweep_str_of("match");
        assert_int_equal(fx_send(gs, &m), 0);
        assert_int_equal(fx_recv(gs, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_WORLD_OPENED);
        uint32_t id = m.as.world_opened.world;
        uint32_t e1, e2;
        int a = play_in(&d, rx, "match", &e1, 25);
        int b = play_in(&d, rx, "match", &e2, 15 + 5 * round);
        m = fx_msg(SWEEP_MSG_CLOSE_WORLD, 20 + (uint32_t)round);
        m.as.close_world.world = id;
        assert_int_equal(fx_send(gs, &m), 0);
        assert_int_equal(fx_recv(gs, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
        assert_true(fx_wait_eof(a, rx, NULL));
        assert_true(fx_wait_eof(b, rx, NULL));
        close(a);
        close(b);
    }
    close(gs);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);

    /* The arena's own log, then one per world opened: arena-w3, gen-w2. */
    char logs[4][512];
    assert_int_equal(logs_in(rec, logs, 4), 3);
    const char *runtime[2] = {logs[2], logs[1]}; /* gen-w2-..., arena-w3-... */
    assert_non_null(strstr(runtime[0], "/gen-w2-"));
    assert_non_null(strstr(runtime[1], "/arena-w3-"));
    for (int i = 0; i < 2; i++) {
        scan s;
        char err[1400];
        if (scan_log(runtime[i], &s, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_int_equal(s.opens, 2);
        assert_int_equal(s.closes, 2);
        assert_int_equal(s.ends, 1);
        /* Its END says why it ended. */
        sweep_record_reader *r = sweep_record_open(runtime[i], err, sizeof err);
        assert_non_null(r);
        const sweep_record_head *h = sweep_record_head_of(r);
        assert_int_equal(h->world_index, (uint32_t)(1 + i)); /* the id less one */
        assert_true(h->map_path.len == strlen(i ? arena_db : gen_db) &&
                    memcmp(h->map_path.ptr, i ? arena_db : gen_db, h->map_path.len) == 0);
        sweep_record x;
        int got, ended = 0;
        while ((got = sweep_record_next(r, &x, err, sizeof err)) == 1)
            if (x.type == SWEEP_RECORD_END)
                ended = x.text.len == 6 && memcmp(x.text.ptr, "closed", 6) == 0;
        sweep_record_close(r);
        assert_int_equal(got, 0);
        assert_true(ended);
        /* Bit for bit at both depths, on the map its HEAD names. */
        sweep_replay_stats full, core;
        tally tf, tc;
        replay_ok(runtime[i], NULL, &full, &tf);
        assert_true(full.ended);
        assert_int_equal(full.sessions, 2);
        assert_int_equal(tf.spawned, 2);
        assert_true(full.moves >= 40);
        assert_int_equal(tf.results, full.moves);
        core_matches_full_on(runtime[i], NULL, &full, &tf, &core, &tc);
    }
    /* The arena's world of --map lived on through both. */
    sweep_replay_stats st;
    replay_ok(logs[0], g_map, &st, NULL);
    assert_true(st.ended);
    assert_int_equal(st.sessions, 1);
    rm_tree(base);
}

/* A sweepd recording into the new scratch directory `name` (its path in
 * rec), started in *d; bots_out names a file beside it for the bots'
 * output. */
static void recording_server(const char *name, char *rec, size_t n, fx_server *d, char *bots_out, size_t bn)
{
    scratch(name, rec, n);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *extra[] = {"--record", rec, NULL};
    assert_int_equal(fx_start(d, extra), 0);
    snprintf(bots_out, bn, "%s.bots.out", rec);
}

/* Frames of 100 KB and more (bots sending batches of 200 moves without
 * pause) replayed at the core depth on one CPU, where the log is streamed
 * into buffers and a frame that does not fit the rest of one starts a
 * fresh one: after a frame that began with a request, the next frame's
 * first record lay at the same offset in its buffer as that request in
 * the last one, and the replay kept the request as the group it still had
 * to run, reading before its buffer (it crashed). */
static void big_frames_replay_at_the_core_depth_on_one_cpu(void **state)
{
    (void)state;
    char rec[400], bots_out[480], cmd[4000];
    fx_server d;
    scratch("bigframes", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *extra[] = {"--record", rec, "--max-batch", "256", NULL};
    assert_int_equal(fx_start(&d, extra), 0);
    snprintf(bots_out, sizeof bots_out, "%s.bots.out", rec);
    snprintf(cmd, sizeof cmd,
             "'%s/sweep-bots' --connect %s --map '%s' --clients 4 --rate 0 --batch 200 --duration 1.5 --warmup 0 "
             ">'%s' 2>&1",
             g_bin, d.tcp, g_map, bots_out);
    /* Its exit status is 1: beyond the rate limit some batches are
     * refused, which only the log's size here is about. */
    int bots = system(cmd);
    assert_int_equal(fx_stop(&d), 0);
    static char logs[8][512];
    assert_int_equal(logs_in(rec, logs, 8), 1);
    struct stat sb;
    assert_int_equal(stat(logs[0], &sb), 0);
    if (bots == -1 || sb.st_size < 4 * 1024 * 1024)
        fail_msg("the bots (exit status %d, their words in %s) left a log of %lld bytes, where 4 MB of large "
                 "frames were wanted",
                 bots, bots_out, (long long)sb.st_size);
    cpu_set_t all, one;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int k = 0; k < CPU_SETSIZE; k++)
        if (CPU_ISSET(k, &all)) {
            CPU_SET(k, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    sweep_replay_stats core, full;
    replay_at(logs[0], g_map, SWEEP_REPLAY_CORE, &core, NULL);
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
    replay_ok(logs[0], g_map, &full, NULL);
    assert_int_equal(core.moves, full.moves);
    assert_int_equal(core.ticks, full.ticks);
    assert_true(core.moves > 10000);
    rm_tree(rec);
}

static void rotated_log_follows_its_segments(void **state);

/* The Python log reader (client-sdk/python/sweep_log.py) as a command
 * line for Debian's python3, in cmd; 0 where either is missing. */
static int python_reader(char *cmd, size_t cap)
{
    char script[1200];
    const char *src = getenv("SWEEP_SRCDIR");
    if (src && *src)
        snprintf(script, sizeof script, "%s/client-sdk/python/sweep_log.py", src);
    else
        fx_build("../client-sdk/python/sweep_log.py", script, sizeof script);
    if (access(script, R_OK) != 0 || access("/usr/bin/python3", X_OK) != 0)
        return 0;
    snprintf(cmd, cap, "/usr/bin/python3 '%s'", script);
    return 1;
}

/* What a bare segment's HEAD says that segment 0 of the rotated log's
 * does not (NULL: as there). */
typedef struct bare_head {
    uint32_t segment;
    const char *previous, *stem, *path;
    int flaw; /* 1: the HEAD's frame twice; 2: a frame (a TICK) after the END */
} bare_head;

/* Appends string v (u32 length, bytes) to out[*n ..). */
static void put_string(uint8_t *out, size_t *n, const void *v, size_t len)
{
    sweep__wr32(out + *n, (uint32_t)len);
    memcpy(out + *n + 4, v, len);
    *n += 4 + len;
}

/* A segment of no ticks made from the HEAD of segment 0 of the rotated log
 * (rotated_log_follows_its_segments), with what *h says in its HEAD, then
 * END with `reason` at the tick the HEAD starts at. Written to dir/name. */
static void write_bare_segment(const char *dir, const char *name, const bare_head *h, const char *reason)
{
    char rot[400];
    static char logs[64][512];
    scratch("rotated", rot, sizeof rot);
    assert_true(logs_in(rot, logs, 64) >= 1);
    size_t len;
    uint8_t *buf = read_all(logs[0], &len);
    assert_non_null(buf);
    const uint8_t *head = buf + SWEEP_RECORD_HEADER_SIZE + SWEEP_RECORD_FRAME_HEADER;
    assert_int_equal(head[0], SWEEP_RECORD_HEAD);
    const uint8_t *pay = head + 5, *end = pay + le32(head + 1);
    static uint8_t out[4096];
    memcpy(out, buf, SWEEP_RECORD_HEADER_SIZE);
    size_t frame = SWEEP_RECORD_HEADER_SIZE, n = frame + SWEEP_RECORD_FRAME_HEADER, rec = n;
    n += 5;
    /* The fields in order (record.h), strings replaced where h says. */
    const uint8_t *at = pay;
    sweep__wr32(out + n, h->segment), n += 4, at += 4;
    memcpy(out + n, at, 8), n += 8, at += 8;                 /* start */
    const char *strings[4] = {NULL, NULL, h->stem, h->path}; /* version; name, stem, path */
    for (int k = 0; k < 4; k++) {
        size_t l = le32(at);
        if (k == 1) { /* protocol version and world index come before the name */
            memcpy(out + n, at, 8), n += 8, at += 8;
            l = le32(at);
        }
        put_string(out, &n, strings[k] ? strings[k] : (const char *)at + 4, strings[k] ? strlen(strings[k]) : l);
        at += 4 + l;
    }
    size_t fixed = 32 + 8 + 8 + 1 + 1 + 4 * 4; /* hash, tick rate, time bank, flags, limits */
    memcpy(out + n, at, fixed), n += fixed, at += fixed;
    uint64_t tick = sweep__rd64(at);
    memcpy(out + n, at, 8), n += 8, at += 8;
    size_t l = le32(at);
    put_string(out, &n, h->previous ? h->previous : (const char *)at + 4, h->previous ? strlen(h->previous) : l);
    at += 4 + l;
    memcpy(out + n, at, (size_t)(end - at)), n += (size_t)(end - at);
    out[rec] = SWEEP_RECORD_HEAD;
    sweep__wr32(out + rec + 1, (uint32_t)(n - rec - 5));
    sweep__wr32(out + frame, (uint32_t)(n - frame - SWEEP_RECORD_FRAME_HEADER));
    fix_crc(out, frame, (uint32_t)(n - frame - SWEEP_RECORD_FRAME_HEADER));
    if (h->flaw == 1) {
        memcpy(out + n, out + frame, n - frame);
        n += n - frame;
    }
    frame = n;
    n += SWEEP_RECORD_FRAME_HEADER;
    out[n] = SWEEP_RECORD_END;
    sweep__wr32(out + n + 1, (uint32_t)(8 + 4 + strlen(reason)));
    sweep__wr64(out + n + 5, tick);
    n += 13;
    put_string(out, &n, reason, strlen(reason));
    sweep__wr32(out + frame, (uint32_t)(n - frame - SWEEP_RECORD_FRAME_HEADER));
    fix_crc(out, frame, (uint32_t)(n - frame - SWEEP_RECORD_FRAME_HEADER));
    if (h->flaw == 2) {
        frame = n;
        out[n + SWEEP_RECORD_FRAME_HEADER] = SWEEP_RECORD_TICK;
        sweep__wr32(out + n + SWEEP_RECORD_FRAME_HEADER + 1, 8);
        sweep__wr64(out + n + SWEEP_RECORD_FRAME_HEADER + 5, tick + 1);
        n += SWEEP_RECORD_FRAME_HEADER + 13;
        sweep__wr32(out + frame, 13);
        fix_crc(out, frame, 13);
    }
    char path[900];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_all(path, out, n);
    free(buf);
}

/* A log that opens at both depths and stops as it is run, its error
 * saying `says`. */
static void stops_at_both_depths(const char *path, const char *says)
{
    char err[1400];
    for (unsigned flags = 0; flags <= SWEEP_REPLAY_CORE; flags += SWEEP_REPLAY_CORE) {
        sweep_replay *r = sweep_replay_open_flags(path, g_map, flags, err, sizeof err);
        if (!r)
            fail_msg("%s", err);
        assert_int_equal(sweep_replay_run(r), -1);
        if (!strstr(sweep_replay_error(r), says))
            fail_msg("%s (flags %u): error '%s' does not say '%s'", path, flags, sweep_replay_error(r), says);
        sweep_replay_close(r);
    }
}

/* Without --map a log's map is looked for by its stem beside the log (and
 * in $SWEEP_MAPS): a stem that names a directory is not followed there. */
static void a_log_names_no_map_outside_the_folders_searched(void **state)
{
    (void)state;
    needs("rotated", rotated_log_follows_its_segments);
    char dir[400], logs[500], path[900], cmd[5000], err[1400];
    scratch("stems", dir, sizeof dir);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' '%s/elsewhere' && cp '%s' '%s/elsewhere/arena.db' && cp '%s' '%s/arena.db'", logs, dir,
             g_map, dir, g_map, logs);
    assert_int_equal(system(cmd), 0);
    const char *maps_env = getenv("SWEEP_MAPS");
    char *maps = maps_env ? strdup(maps_env) : NULL;
    unsetenv("SWEEP_MAPS");
    /* The control: a plain stem finds arena.db beside the log. */
    write_bare_segment(logs, "plain-0000.sweeplog", &(bare_head){0, "", "arena", "/nonexistent/arena.db", 0},
                       "shutdown");
    snprintf(path, sizeof path, "%s/plain-0000.sweeplog", logs);
    sweep_replay *r = sweep_replay_open(path, NULL, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    sweep_replay_close(r);
    static const char *const stems[] = {"../elsewhere/arena", "/tmp/arena", ".hidden"};
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) {
        write_bare_segment(logs, "away-0000.sweeplog", &(bare_head){0, "", stems[i], "/nonexistent/arena.db", 0},
                           "shutdown");
        snprintf(path, sizeof path, "%s/away-0000.sweeplog", logs);
        r = sweep_replay_open(path, NULL, err, sizeof err);
        if (r)
            fail_msg("stem '%s': the replay found a map outside the folders searched", stems[i]);
        if (!strstr(err, "cannot load the map"))
            fail_msg("stem '%s': error '%s'", stems[i], err);
    }
    if (maps)
        setenv("SWEEP_MAPS", maps, 1);
    free(maps);
    rm_tree(dir);
}

/* A segment holds one HEAD, first, and nothing after its END: both readers
 * name a second HEAD (it was skipped, and the Python reader took its tick)
 * and a frame after the END (never read). */
static void nothing_but_one_head_and_nothing_after_the_end(void **state)
{
    (void)state;
    needs("rotated", rotated_log_follows_its_segments);
    char dir[400], path[900], py[1300], cmd[3000];
    scratch("flaws", dir, sizeof dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    static const struct {
        int flaw;
        const char *says;
    } flaws[] = {{1, "a second HEAD in one segment (corrupt log)"}, {2, "after the END at byte"}};
    int python = python_reader(py, sizeof py);
    for (size_t i = 0; i < 2; i++) {
        write_bare_segment(dir, "flaw-0000.sweeplog", &(bare_head){0, "", NULL, NULL, flaws[i].flaw}, "shutdown");
        snprintf(path, sizeof path, "%s/flaw-0000.sweeplog", dir);
        stops_at_both_depths(path, flaws[i].says);
        char *said = NULL;
        snprintf(cmd, sizeof cmd, "%s '%s'", py, path);
        int rc = python ? fx_run(cmd, &said) : 2;
        if (rc != 2 || (python && !strstr(said ? said : "", flaws[i].says)))
            fail_msg("sweep_log.py, flaw %d: exit %d: %s", flaws[i].flaw, rc, said ? said : "");
        free(said);
    }
    /* Without a flaw both read it whole. */
    write_bare_segment(dir, "flaw-0000.sweeplog", &(bare_head){0, "", NULL, NULL, 0}, "shutdown");
    sweep_replay_stats st;
    replay_ok(path, g_map, &st, NULL);
    assert_true(st.ended);
    rm_tree(dir);
}

/* A chain is followed by its segments' numbers: a segment whose HEAD
 * names it as its own successor is refused (the replay reopened it for
 * ever), and names go on past -9999 as sweepd writes them (-10000: the
 * replay looked for -110001). */
static void segment_chains_go_by_number(void **state)
{
    (void)state;
    needs("rotated", rotated_log_follows_its_segments);
    char dir[400], name[64], prev[64];
    scratch("chains", dir, sizeof dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    write_bare_segment(dir, "self-0001.sweeplog", &(bare_head){0, "self-0001.sweeplog", NULL, NULL, 0}, "rotated");
    char path[900];
    snprintf(path, sizeof path, "%s/self-0001.sweeplog", dir);
    stops_at_both_depths(path, "is segment 0 where 1 follows");
    /* 0000 to 10001, the last one closed: 10,002 segments. */
    for (uint32_t k = 0; k <= 10001; k++) {
        snprintf(name, sizeof name, "long-%04u.sweeplog", k);
        snprintf(prev, sizeof prev, "long-%04u.sweeplog", k - 1);
        write_bare_segment(dir, name, &(bare_head){k, k ? prev : "", NULL, NULL, 0},
                           k < 10001 ? "rotated" : "shutdown");
    }
    snprintf(path, sizeof path, "%s/long-0000.sweeplog", dir);
    sweep_replay_stats st;
    replay_ok(path, g_map, &st, NULL);
    assert_int_equal(st.segments, 10002);
    /* The Python reader follows the same chain, and refuses the same
     * self-successor. */
    char py[1300], cmd[3000], *out = NULL;
    if (python_reader(py, sizeof py)) {
        snprintf(cmd, sizeof cmd, "%s '%s'", py, path);
        int rc = fx_run(cmd, &out);
        if (rc != 0 || !out || !strstr(out, "10002 segments (from segment 0)"))
            fail_msg("sweep_log.py: exit %d: %s", rc, out ? out : "");
        free(out);
        snprintf(cmd, sizeof cmd, "%s '%s/self-0001.sweeplog'", py, dir);
        rc = fx_run(cmd, &out);
        if (rc != 2)
            fail_msg("sweep_log.py on a self-successor: exit %d: %s", rc, out ? out : "");
        free(out);
    }
    rm_tree(dir);
}

/* SIGHUP (a log rotation tool's signal) starts a new segment at the next
 * tick: the chain replays whole across it, and the server serves on. */
static void sighup_starts_a_new_segment(void **state)
{
    (void)state;
    char rec[400], bots_out[480];
    fx_server d;
    recording_server("hangup", rec, sizeof rec, &d, bots_out, sizeof bots_out);
    pid_t bots = start_bots(&d, "honest", 2, 1.5, 0, bots_out);
    usleep(600000);
    assert_int_equal(kill(d.pid, SIGHUP), 0);
    if (bots > 0)
        reap(bots, 30.0);
    assert_int_equal(fx_stop(&d), 0); /* alive until stopped: SIGHUP did not end it */
    assert_true(bots > 0);
    static char logs[8][512];
    assert_int_equal(logs_in(rec, logs, 8), 2);
    sweep_replay_stats st;
    tally t;
    replay_ok(logs[0], g_map, &st, &t);
    assert_int_equal(st.segments, 2);
    assert_true(st.ended);
    assert_int_equal(t.spawned, 2);
}

/* Players over a lossy UDP path that send each move again until it is
 * answered (sweep-bots --loss, --redundancy): the server answers a move
 * it applied already with the result it kept, which has no MOVE record,
 * so a RESULTS holds it whole. The log replays at both depths, every
 * move the full depth applied checked at the core depth too. */
static void resent_answers_replay_at_both_depths(void **state)
{
    (void)state;
    char rec[400], bots_out[480];
    fx_server d;
    recording_server("resent", rec, sizeof rec, &d, bots_out, sizeof bots_out);
    pid_t bots = start_bots_with(&d, "honest", 4, 2.0, 1, "0.2", "2", bots_out);
    if (bots > 0)
        reap(bots, 60.0);
    assert_int_equal(fx_stop(&d), 0);
    assert_true(bots > 0);
    char logs[2][512], err[1400];
    assert_int_equal(logs_in(rec, logs, 2), 1);
    sweep_record_reader *rd = sweep_record_open(logs[0], err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    uint32_t whole = 0, from_moves = 0;
    sweep_record x;
    while (sweep_record_next(rd, &x, err, sizeof err) == 1) {
        if (x.type != SWEEP_RECORD_RESULTS)
            continue;
        uint32_t n = sweep__record_results_count(x.bytes.ptr);
        sweep_message m;
        sweep_msg_move_result res[64];
        assert_true(n <= 64);
        /* Rebuilt with as many stand-in MOVEs (no contacts) as it has
         * results: those it takes are its results with a MOVE. */
        static const uint8_t blank[SWEEP_RECORD_MOVE_FIXED];
        const uint8_t *stand_in[64];
        uint32_t lens[64], taken = 0;
        for (uint32_t i = 0; i < n; i++)
            stand_in[i] = blank, lens[i] = SWEEP_RECORD_MOVE_FIXED;
        if (sweep__record_results_rebuild(x.bytes.ptr, x.bytes.len, stand_in, lens, n, &taken, &m, res, err,
                                          sizeof err) != 0)
            continue; /* movers of contacts the stand-ins lack */
        whole += n - taken;
        from_moves += taken;
    }
    sweep_record_close(rd);
    if (whole == 0)
        fail_msg("no answer resent whole in %s (from MOVEs: %u)", logs[0], from_moves);
    sweep_replay_stats full, core;
    tally tf, tc;
    replay_ok(logs[0], g_map, &full, &tf);
    replay_at(logs[0], g_map, SWEEP_REPLAY_CORE, &core, &tc);
    assert_int_equal(core.moves, full.moves);
    assert_int_equal(core.requests, full.requests);
    assert_true(full.moves > 20);
}

/* One sweepd run with --seed and --record-name: one client spawns (the
 * id it was given, from the CLI's output) and the log's path. */
static uint32_t seeded_run(const char *rec, const char *seed, char *log, size_t loglen)
{
    const char *extra[] = {"--record", rec, "--record-name", "run", "--seed", seed, NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s/sweep move --connect %s --velocity 1,0,0 --count 3", g_bin, d.tcp);
    assert_int_equal(fx_run(cmd, &out), 0);
    const char *at = strstr(out, "spawned entity=");
    assert_non_null(at);
    uint32_t id = (uint32_t)strtoul(at + strlen("spawned entity="), NULL, 10);
    free(out);
    assert_int_equal(fx_stop(&d), 0);
    snprintf(log, loglen, "%s/arena-run-0000.sweeplog", rec);
    return id;
}

/* --seed: two runs of one script give the same entity ids, recorded in
 * HEAD; another seed gives others; --record-name names the log. */
static void seeded_runs_repeat_their_ids(void **state)
{
    (void)state;
    char a[400], b[400], c[400], la[600], lb[600], lc[600], err[1400];
    scratch("seed-a", a, sizeof a);
    scratch("seed-b", b, sizeof b);
    scratch("seed-c", c, sizeof c);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    assert_int_equal(mkdir(c, 0700), 0);
    uint32_t ia = seeded_run(a, "7", la, sizeof la);
    uint32_t ib = seeded_run(b, "7", lb, sizeof lb);
    uint32_t ic = seeded_run(c, "8", lc, sizeof lc);
    assert_int_equal(ia, ib);
    assert_int_not_equal(ia, ic);
    sweep_record_reader *r = sweep_record_open(la, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_int_equal(sweep_record_head_of(r)->id_seed, 7);
    sweep_record_close(r);
    sweep_replay_stats st;
    replay_ok(lb, g_map, &st, NULL);
    assert_true(st.ended);
    /* The name is taken: a second recording there fails to start, and
     * the first log is kept. */
    const char *again[] = {"--record", a, "--record-name", "run", NULL};
    fx_server d;
    assert_int_not_equal(fx_start(&d, again), 0);
    replay_ok(la, g_map, &st, NULL);
    assert_true(st.ended);
}

/* A log whose recorded map path is gone finds the map by its stem beside
 * the log or in $SWEEP_MAPS; nowhere, the error says where to put it. */
static void a_moved_map_is_found_by_its_stem(void **state)
{
    (void)state;
    char dir[400], map[600], rec[400], beside[600], other[400], log[600], err[1400];
    scratch("mapgone", dir, sizeof dir);
    scratch("mapgone-logs", rec, sizeof rec);
    scratch("mapgone-maps", other, sizeof other);
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(mkdir(rec, 0700), 0);
    assert_int_equal(mkdir(other, 0700), 0);
    size_t len;
    uint8_t *bytes = read_all(g_map, &len);
    assert_non_null(bytes);
    snprintf(map, sizeof map, "%s/arena.db", dir);
    write_all(map, bytes, len);
    const char *extra[] = {"--record", rec, "--record-name", "gone", NULL};
    fx_server d;
    assert_int_equal(fx_start_map_log(&d, map, extra, NULL), 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/sweep move --connect %s --velocity 1,0,0 --count 3", g_bin, d.tcp);
    assert_int_equal(fx_run(cmd, NULL), 0);
    assert_int_equal(fx_stop(&d), 0);
    snprintf(log, sizeof log, "%s/arena-gone-0000.sweeplog", rec);
    assert_int_equal(unlink(map), 0);
    unsetenv("SWEEP_MAPS");
    assert_null(sweep_replay_open(log, NULL, err, sizeof err));
    if (!strstr(err, "give --map FILE") || !strstr(err, "arena.db beside the log"))
        fail_msg("error '%s'", err);
    /* In a directory of $SWEEP_MAPS. */
    snprintf(beside, sizeof beside, "%s/arena.db", other);
    write_all(beside, bytes, len);
    setenv("SWEEP_MAPS", other, 1);
    sweep_replay_stats st;
    replay_ok(log, NULL, &st, NULL);
    assert_int_equal(st.moves, 3);
    unsetenv("SWEEP_MAPS");
    /* Beside the log. */
    snprintf(beside, sizeof beside, "%s/arena.db", rec);
    write_all(beside, bytes, len);
    replay_ok(log, NULL, &st, NULL);
    assert_int_equal(st.moves, 3);
    free(bytes);
}

/* Rotation every 0.3 s: segment 0 leads through the chain; a later
 * segment is not a start; a missing middle segment is named. */
static void rotated_log_follows_its_segments(void **state)
{
    (void)state;
    char rec[400];
    scratch("rotated", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *extra[] = {"--record", rec, "--record-max-seconds", "0.3", "--record-hash-every", "10", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    char bots_out[480];
    snprintf(bots_out, sizeof bots_out, "%s.bots.out", rec);
    pid_t bots = start_bots(&d, "honest", 2, 1.5, 0, bots_out);
    if (bots > 0)
        reap(bots, 30.0);
    assert_int_equal(fx_stop(&d), 0);
    assert_true(bots > 0);

    static char logs[64][512];
    int n = logs_in(rec, logs, 64);
    assert_true(n >= 3);
    scan s;
    char err[1400];
    uint64_t tick = 0;
    for (int i = 0; i < n; i++) {
        if (scan_log(logs[i], &s, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_int_equal(s.segment, (uint32_t)i);
        assert_int_equal(s.ends, 1);
        if (i > 0) {
            const char *prev = strrchr(logs[i - 1], '/') + 1;
            assert_string_equal(s.previous, prev);
            assert_true(s.first_tick > tick);
        } else {
            assert_string_equal(s.previous, "");
        }
        tick = s.first_tick;
    }
    sweep_replay_stats st;
    tally t;
    replay_ok(logs[0], g_map, &st, &t);
    assert_int_equal(st.segments, (uint32_t)n);
    assert_true(st.ended);
    assert_false(st.truncated);
    assert_true(st.moves > 50);
    assert_true(st.hashes > 3);
    assert_int_equal(t.spawned, 2);
    assert_int_equal(t.errors, 0);
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += (uint64_t)file_size(logs[i]);
    assert_int_equal(st.bytes, total);
    /* The core depth follows the same segments, its world going on from
     * one to the next. */
    sweep_replay_stats cst;
    tally ct;
    core_matches_full(logs[0], &st, &t, &cst, &ct);
    assert_int_equal(cst.segments, (uint32_t)n);

    /* A later segment is not where a replay starts. */
    assert_null(sweep_replay_open(logs[1], g_map, err, sizeof err));
    if (!strstr(err, "segment 1") || !strstr(err, "segment 0"))
        fail_msg("error '%s'", err);

    /* Without the second segment the chain breaks there, by name. */
    char moved[600];
    snprintf(moved, sizeof moved, "%s.away", logs[1]);
    assert_int_equal(rename(logs[1], moved), 0);
    sweep_replay *r = sweep_replay_open(logs[0], g_map, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_int_equal(sweep_replay_run(r), -1);
    assert_null(sweep_replay_divergence_of(r));
    const char *e = sweep_replay_error(r);
    if (!strstr(e, "next segment") || !strstr(e, logs[1]))
        fail_msg("error '%s' does not name %s", e, logs[1]);
    assert_int_equal(sweep_replay_stats_of(r)->segments, 1);
    sweep_replay_close(r);
    r = sweep_replay_open_flags(logs[0], g_map, SWEEP_REPLAY_CORE, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_int_equal(sweep_replay_run(r), -1);
    assert_null(sweep_replay_divergence_of(r));
    e = sweep_replay_error(r);
    if (!strstr(e, "next segment") || !strstr(e, logs[1]))
        fail_msg("core depth: error '%s' does not name %s", e, logs[1]);
    sweep_replay_close(r);

    /* Another segment 1 in its place (the third, renamed) does not
     * continue segment 0. */
    assert_int_equal(rename(logs[2], logs[1]), 0);
    r = sweep_replay_open(logs[0], g_map, err, sizeof err);
    assert_non_null(r);
    assert_int_equal(sweep_replay_run(r), -1);
    e = sweep_replay_error(r);
    if (!strstr(e, "does not continue"))
        fail_msg("error '%s'", e);
    sweep_replay_close(r);
}

/* ---- sweep-replay ------------------------------------------------------------ */

static void cli_exit_statuses(void **state)
{
    (void)state;
    char log[1200], cmd[8192], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --json", g_bin, golden("cheats", log, sizeof log), g_map);
    int rc = fx_run(cmd, &out);
    if (rc != 0 || !strstr(out, "\"ok\":true") || !strstr(out, "\"ended\":true"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);

    /* A divergence: exit 1, with the field in the JSON and in the text. */
    char changed[400];
    target t;
    size_t frame_at = 0;
    find_result(golden("walking", log, sizeof log), &t);
    tamper(log, &t, 1, scratch("cli-changed.sweeplog", changed, sizeof changed), &frame_at);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --json", g_bin, changed, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 1 || !strstr(out, "\"ok\":false") || !strstr(out, "\"field\":\"MoveResult.position.x\""))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s", g_bin, changed, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 1 || !strstr(out, "divergence at tick") || !strstr(out, "MoveResult.position.x"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);

    /* Not a log, and corruption: exit 2. */
    char bad[400];
    const char text[] = "#!/bin/sh\necho this is a script, not a log\n";
    write_all(scratch("cli-bad.sweeplog", bad, sizeof bad), text, sizeof text - 1);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --json", g_bin, bad, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 2 || !strstr(out, "\"ok\":false") || !strstr(out, "not a sweep log"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    tamper(log, &t, 0, bad, &frame_at);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s", g_bin, bad, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 2 || !strstr(out, "checksum"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
}

/* The offset of the last HASH record of a log. */
static uint64_t last_hash_record(const char *log)
{
    uint64_t at = 0;
    assert_true(records_of_type(log, SWEEP_RECORD_HASH, &at) > 0);
    return at;
}

/* Flips one bit at byte `at` of a log file and sums its frame again. */
static void flip_under_valid_crc(const char *path, size_t at)
{
    size_t len, start;
    uint32_t body;
    uint8_t *buf = read_all(path, &len);
    assert_non_null(buf);
    assert_int_equal(frame_holding(buf, len, at, &start, &body), 0);
    buf[at] ^= 0x01;
    fix_crc(buf, start, body);
    write_all(path, buf, len);
    free(buf);
}

/* One OUT record of a log: where, to whom, what kind, how long. */
typedef struct out_rec {
    uint64_t offset, session;
    sweep_msg_kind kind;
    uint32_t len;
} out_rec;

/* The OUT records of a log that decode, in order, at most cap of them. */
static unsigned outs_of(const char *log, out_rec *out, unsigned cap)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    tcp_sessions tcp = {.n = 0};
    uint64_t aligned[8192];
    unsigned n = 0;
    sweep_record x;
    while (n < cap && sweep_record_next(r, &x, err, sizeof err) == 1) {
        unsigned flags = wire_flags(&tcp, &x);
        if (x.type != SWEEP_RECORD_OUT || x.bytes.len > sizeof aligned)
            continue;
        memcpy(aligned, x.bytes.ptr, x.bytes.len);
        sweep_message m;
        if (sweep_decode(NULL, aligned, x.bytes.len, flags, &m) != SWEEP_PROTO_OK)
            continue;
        out[n++] = (out_rec){x.offset, x.session, m.kind, x.bytes.len};
    }
    sweep_record_close(r);
    return n;
}

/* A copy of `log` at `out` whose record at byte `at` holds the payload of
 * the record at byte `from` instead of its own (so it may grow or
 * shrink), every frame's length and checksum made again. */
static void put_record(const char *log, const char *out, uint64_t at, uint64_t from)
{
    size_t len;
    uint8_t *in = read_all(log, &len);
    assert_non_null(in);
    uint32_t from_len = le32(in + from + 1);
    uint8_t *o = malloc(len + from_len + 5);
    assert_non_null(o);
    size_t w = SWEEP_RECORD_HEADER_SIZE;
    memcpy(o, in, w);
    int placed = 0;
    for (size_t p = SWEEP_RECORD_HEADER_SIZE; p + SWEEP_RECORD_FRAME_HEADER <= len;) {
        uint32_t body = le32(in + p);
        size_t frame = w;
        w += SWEEP_RECORD_FRAME_HEADER;
        for (size_t q = p + SWEEP_RECORD_FRAME_HEADER; q < p + SWEEP_RECORD_FRAME_HEADER + body;) {
            uint32_t rl = le32(in + q + 1);
            const uint8_t *rec = q == at ? in + from : in + q;
            uint32_t n = q == at ? from_len : rl;
            o[w] = in[q];
            memcpy(o + w + 1, rec + 1, 4 + (size_t)n);
            w += 5 + (size_t)n;
            placed += q == at;
            q += 5 + (size_t)rl;
        }
        uint32_t nb = (uint32_t)(w - frame - SWEEP_RECORD_FRAME_HEADER);
        for (int i = 0; i < 4; i++)
            o[frame + i] = (uint8_t)(nb >> (8 * i));
        fix_crc(o, frame, nb);
        p += SWEEP_RECORD_FRAME_HEADER + body;
    }
    assert_int_equal(placed, 1);
    write_all(out, o, w);
    free(o);
    free(in);
}

/* --reanswer on answers of another length, and of another kind: a
 * MoveResult recorded in the place of a longer or shorter one of the same
 * session comes back as the log was, byte for byte (every frame after it
 * moved); a Spawned recorded where the replay answers a MoveResult is not
 * an answer's contents but what it is: refused, naming the kind, nothing
 * written. */
static void reanswer_takes_any_length_but_not_another_kind(void **state)
{
    (void)state;
    char log[1200], changed[400], out_path[400], cmd[8192], *out = NULL;
    static out_rec outs[4096];
    unsigned n = outs_of(golden("walking", log, sizeof log), outs, 4096);
    const out_rec *spawned = NULL, *a = NULL, *b = NULL;
    for (unsigned i = 0; i < n && !(spawned && b); i++) {
        if (outs[i].kind == SWEEP_MSG_SPAWNED && !spawned)
            spawned = &outs[i];
        if (outs[i].kind != SWEEP_MSG_MOVE_RESULT || !spawned || outs[i].session != spawned->session)
            continue;
        if (!a)
            a = &outs[i];
        else if (outs[i].len != a->len)
            b = &outs[i];
    }
    assert_non_null(spawned);
    assert_non_null(a);
    assert_non_null(b); /* two MoveResults of one session, of different lengths */
    size_t want_len, got_len;
    uint8_t *want = read_all(log, &want_len);
    assert_non_null(want);
    scratch("re-length.sweeplog", changed, sizeof changed);
    scratch("re-length-answered.sweeplog", out_path, sizeof out_path);
    const out_rec *swaps[2][2] = {{b, a}, {a, b}}; /* b's place holds a's message, then the other way */
    for (int k = 0; k < 2; k++) {
        put_record(log, changed, swaps[k][0]->offset, swaps[k][1]->offset);
        snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --reanswer %s", g_bin, changed, g_map, out_path);
        int rc = fx_run(cmd, &out);
        if (rc != 0 || !strstr(out, "1 OUT and 0 HASH records rewritten"))
            fail_msg("%s: exit %d: %s", cmd, rc, out);
        free(out);
        uint8_t *got = read_all(out_path, &got_len);
        assert_int_equal(got_len, want_len);
        assert_memory_equal(got, want, want_len);
        free(got);
    }
    unlink(out_path);
    put_record(log, changed, a->offset, spawned->offset);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --reanswer %s", g_bin, changed, g_map, out_path);
    int rc = fx_run(cmd, &out);
    if (rc != 1 || !strstr(out, "cannot mend") || !strstr(out, "Spawned"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    assert_int_equal(access(out_path, F_OK), -1);
    free(want);
}

/* sweep-replay --reanswer: a log whose answer and state hash were changed
 * under valid checksums is given back what this build answers, which is
 * the log as recorded, byte for byte (into another file, and in place). A
 * log whose difference is not an answer's contents (a message recorded to
 * another session) is refused with the divergence named, nothing
 * written. */
static void reanswer_gives_back_what_the_build_answers(void **state)
{
    (void)state;
    char log[1200], changed[400], out_path[400], cmd[8192], *out = NULL;
    target t;
    size_t frame_at = 0, want_len, got_len;
    find_result(golden("movers", log, sizeof log), &t);
    tamper(log, &t, 1, scratch("re-changed.sweeplog", changed, sizeof changed), &frame_at);
    flip_under_valid_crc(changed, (size_t)last_hash_record(changed) + 5 + 8);
    uint8_t *want = read_all(log, &want_len);
    assert_non_null(want);

    scratch("re-answered.sweeplog", out_path, sizeof out_path);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --reanswer %s", g_bin, changed, g_map, out_path);
    int rc = fx_run(cmd, &out);
    if (rc != 0 || !strstr(out, "1 OUT and 1 HASH records rewritten"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    uint8_t *got = read_all(out_path, &got_len);
    assert_non_null(got);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    free(got);

    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --reanswer %s", g_bin, changed, g_map, changed);
    rc = fx_run(cmd, &out);
    if (rc != 0)
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    got = read_all(changed, &got_len);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    free(got);

    /* A message recorded to another session: not an answer to rewrite. */
    write_all(changed, want, want_len);
    flip_under_valid_crc(changed, (size_t)t.record + 5);
    unlink(out_path);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --reanswer %s", g_bin, changed, g_map, out_path);
    rc = fx_run(cmd, &out);
    if (rc != 1 || !strstr(out, "cannot mend") || !strstr(out, "message to session"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    assert_int_equal(access(out_path, F_OK), -1);

    /* Not a log: exit 2, nothing written. */
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --reanswer %s", g_bin, g_map, g_map, out_path);
    rc = fx_run(cmd, &out);
    if (rc != 2 || !strstr(out, "not a sweep log"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    assert_int_equal(access(out_path, F_OK), -1);
    free(want);
}

/* ---- the core depth on movers and raw moves ----------------------------------- */

/* The moves a log's requests hold, by mode (Walk, Fly, Noclip), and the
 * batches among them. */
static void count_modes(const char *log, uint64_t modes[3], uint64_t *batches)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    tcp_sessions tcp = {.n = 0};
    static uint64_t aligned[16384];
    static sweep_msg_move moves[1024];
    sweep_decoder dec = {.moves = moves, .moves_cap = 1024};
    sweep_record x;
    modes[0] = modes[1] = modes[2] = *batches = 0;
    while (sweep_record_next(r, &x, err, sizeof err) == 1) {
        unsigned flags = wire_flags(&tcp, &x);
        if (x.type != SWEEP_RECORD_IN || x.bytes.len > sizeof aligned)
            continue;
        memcpy(aligned, x.bytes.ptr, x.bytes.len);
        sweep_message m;
        assert_int_equal(sweep_decode(&dec, aligned, x.bytes.len, flags, &m), SWEEP_PROTO_OK);
        if (m.kind == SWEEP_MSG_MOVE && m.as.move.mode < 3) {
            modes[m.as.move.mode]++;
        } else if (m.kind == SWEEP_MSG_MOVE_BATCH) {
            (*batches)++;
            for (uint32_t i = 0; i < m.as.move_batch.count; i++)
                if (moves[i].mode < 3)
                    modes[moves[i].mode]++;
        }
    }
    sweep_record_close(r);
}

/* A log the golden ones cannot give the core depth: players passing
 * through each other (so nothing is refused at open), riders the lift
 * and the platform carry (each move after a tick that carried its entity
 * starts where this replay's own mover ticks put it), a door commanded,
 * and the server role's raw moves: Fly through sweep_move_in with the
 * entity's own limits, Noclip by arithmetic, some in batches. Both depths
 * must match it, and the core depth must check every move. */
/* Spawns at (x, y, 0.9) over TCP until one is refused: how many were
 * made (the refusal must be TooManyEntities). */
static uint32_t spawn_until_full(int fd, fx_rx *rx, uint32_t *seq, double x, double y)
{
    for (uint32_t made = 0;; made++) {
        sweep_message m = fx_spawn_msg((*seq)++, sweep_v3(x, y, 0.9), sweep_v3(0, 0, 0));
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        if (m.kind == SWEEP_MSG_ERROR) {
            assert_int_equal(m.as.error.code, SWEEP_WIRE_TOO_MANY_ENTITIES);
            return made;
        }
        assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
        assert_true(made < 400);
    }
}

/* The server role's entity cap is its own (--max-entities-server), and a
 * log says it in its HEAD (since format version 3): a replay refuses the same
 * spawns, bit for bit, for each role. */
static void entity_caps_by_role_replay(void **state)
{
    (void)state;
    char rec[400];
    scratch("caps", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    static const char token[] = "caps-test-command-token";
    const char *extra[] = {"--record", rec, "--command-token", token, "--max-entities", "2",
                           "--max-entities-server", "5", "--record-hash-every", "1", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int player = fx_tcp_connect(d.port), relay = fx_tcp_connect(d.port);
    assert_true(player >= 0 && relay >= 0);
    assert_true(fx_hello(player, rx) != 0);
    assert_true(fx_hello_token(relay, rx, token) != 0);
    uint32_t seq = 2;
    assert_int_equal(spawn_until_full(player, rx, &seq, 0, 0), 2);
    assert_int_equal(spawn_until_full(relay, rx, &seq, 8, 8), 5);
    close(player);
    close(relay);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);
    char logs[4][512];
    assert_int_equal(logs_in(rec, logs, 4), 1);
    char err[1400];
    sweep_record_reader *rd = sweep_record_open(logs[0], err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    assert_int_equal(sweep_record_head_of(rd)->version, SWEEP_RECORD_VERSION);
    assert_int_equal(sweep_record_head_of(rd)->max_entities, 2);
    assert_int_equal(sweep_record_head_of(rd)->max_entities_server, 5);
    sweep_record_close(rd);
    sweep_replay_stats st;
    tally t;
    replay_ok(logs[0], g_map, &st, &t);
    assert_int_equal(t.spawned, 7);
    assert_int_equal(t.error_codes[SWEEP_WIRE_TOO_MANY_ENTITIES], 2);
}

/* A HEAD whose settings no sweepd records (a crafted or corrupted log)
 * is refused by name before the replay sizes anything by them: a
 * max_batch of two billion once asked for 600 GB. */
static void head_settings_beyond_sweepd_are_refused(void **state)
{
    (void)state;
    char path[1200], err[1400];
    golden("walking", path, sizeof path);
    sweep_record_reader *rd = sweep_record_open(path, err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    const sweep_record_head good = *sweep_record_head_of(rd);
    char why[200];
    assert_int_equal(sweep_record_head_check(&good, why, sizeof why), 0);
    struct {
        const char *name;
        sweep_record_head h;
    } bad[8];
    for (int i = 0; i < 8; i++)
        bad[i].h = good;
    bad[0].name = "max_batch", bad[0].h.max_batch = 0x7fffffffu;
    bad[1].name = "max_batch", bad[1].h.max_batch = 0;
    bad[2].name = "max_frame", bad[2].h.max_frame = 0xffffffffu;
    bad[3].name = "tick_rate", bad[3].h.tick_rate = NAN;
    bad[4].name = "time_bank", bad[4].h.time_bank = -1.0;
    bad[5].name = "query_rate", bad[5].h.query_rate = INFINITY;
    bad[6].name = "history_ms", bad[6].h.history_ms = 4000000000u;
    bad[7].name = "history_entities", bad[7].h.history_entities = 4000000000u;
    for (int i = 0; i < 8; i++) {
        assert_int_equal(sweep_record_head_check(&bad[i].h, why, sizeof why), -1);
        assert_non_null(strstr(why, bad[i].name));
    }
    sweep_record_close(rd);
}

/* A log of one HEAD, written as sweepd writes one (record.h): the golden
 * walking log's, with a pose history of `entities` entities over 60 s. */
static void write_head_only(const char *path, uint32_t entities)
{
    char golden_path[1200], err[1400];
    golden("walking", golden_path, sizeof golden_path);
    sweep_record_reader *rd = sweep_record_open(golden_path, err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    const sweep_record_head *g = sweep_record_head_of(rd);
    uint8_t b[2048];
    size_t n = 16 + 8 + 5; /* header, frame header, record header */
#define PUT(v) (memcpy(b + n, &(v), sizeof(v)), n += sizeof(v))
#define PUT_STR(bytes)                                                                                                \
    do {                                                                                                              \
        uint32_t len_ = (bytes).len;                                                                                  \
        PUT(len_);                                                                                                    \
        memcpy(b + n, (bytes).ptr, len_);                                                                             \
        n += len_;                                                                                                    \
    } while (0)
    uint32_t u32 = 0, ms = 60000;
    uint64_t u64 = 0;
    double rate = 60.0, none = 0.0;
    uint8_t u8 = 0;
    PUT(u32);                                  /* segment */
    PUT(u64);                                  /* started */
    PUT_STR(g->server_version);
    uint32_t protocol = g->protocol_version;
    PUT(protocol);
    PUT(u32);                                  /* world index */
    PUT_STR(g->map_name);
    PUT_STR(g->map_stem);
    PUT_STR(g->map_path);
    memcpy(b + n, g->content_hash, 32), n += 32;
    PUT(rate);                                 /* tick rate */
    double bank = g->time_bank;
    PUT(bank);
    PUT(u8);                                   /* free moves */
    PUT(u8);                                   /* players block */
    uint32_t cap = 8, batch = g->max_batch, frame = g->max_frame, every = 10;
    PUT(cap);                                  /* max entities */
    PUT(batch);
    PUT(frame);
    PUT(every);
    PUT(u64);                                  /* first tick */
    PUT(u32);                                  /* previous: empty */
    PUT(cap);                                  /* max entities, server role */
    PUT(ms);                                   /* history_ms */
    PUT(ms);                                   /* rewind_cap_ms */
    PUT(entities);                             /* history_entities */
    PUT(none);                                 /* query rate */
    PUT(u64);                                  /* id seed */
#undef PUT
#undef PUT_STR
    sweep_record_close(rd);
    uint32_t version = SWEEP_RECORD_VERSION, zero = 0, body = (uint32_t)(n - 24), payload = body - 5;
    memcpy(b, SWEEP_RECORD_MAGIC, 8);
    memcpy(b + 8, &version, 4);
    memcpy(b + 12, &zero, 4);
    memcpy(b + 16, &body, 4);
    b[24] = SWEEP_RECORD_HEAD;
    memcpy(b + 25, &payload, 4);
    uint32_t crc = (uint32_t)libdeflate_crc32(0, b + 24, body);
    memcpy(b + 20, &crc, 4);
    write_all(path, b, n);
}

/* The log does not say what sweepd's --history-memory was, and a HEAD's
 * settings allow a history of terabytes: the replay keeps at most
 * SWEEP_REPLAY_HISTORY_MAX_BYTES and refuses a log that needs more,
 * saying so, where it once asked for all of it. */
static void a_history_past_the_replays_limit_is_refused(void **state)
{
    (void)state;
    char path[400], err[1400];
    scratch("history-head.sweeplog", path, sizeof path);
    /* A history that fits: the log opens (and holds nothing to replay). */
    write_head_only(path, 64);
    sweep_replay *r = sweep_replay_open(path, g_map, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    sweep_replay_close(r);
    /* Half again the limit, at 60 ticks a second over 60 s. */
    uint32_t entities = 64;
    while (sweep_history_bytes(3601, entities, 4) < SWEEP_REPLAY_HISTORY_MAX_BYTES / 2 * 3)
        entities *= 2;
    assert_true(entities <= SWEEP_RECORD_COUNT_LIMIT);
    write_head_only(path, entities);
    assert_null(sweep_replay_open(path, g_map, err, sizeof err));
    assert_non_null(strstr(err, "pose history"));
    assert_non_null(strstr(err, "above the limit"));
}

/* A Spawn refused because the entities would pass --max-memory is refused
 * for the process's room (every world's entities, every connection's
 * buffers), which no log holds: the log forgets the request, as it does
 * one refused for want of memory, and the session replays whole. */
static void memory_refusal_replays(void **state)
{
    (void)state;
    char rec[400];
    scratch("memory", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    static const char token[] = "memory-test-command-token";
    const char *extra[] = {"--record", rec, "--command-token", token, "--max-memory", "1", "--max-entities-server",
                           "1000", "--record-hash-every", "1", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int relay = fx_tcp_connect(d.port);
    assert_true(relay >= 0);
    assert_true(fx_hello_token(relay, rx, token) != 0);
    uint32_t seq = 2;
    uint32_t made = spawn_until_full(relay, rx, &seq, 8, 8);
    assert_true(made >= 30 && made < 300); /* about 9 KiB an entity: some 100 */
    /* Refused again: still nothing of it in the log. */
    assert_int_equal(spawn_until_full(relay, rx, &seq, 8, 8), 0);
    close(relay);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);
    char logs[4][512];
    assert_int_equal(logs_in(rec, logs, 4), 1);
    sweep_replay_stats st;
    tally t;
    replay_ok(logs[0], g_map, &st, &t);
    assert_int_equal(t.spawned, made);
    assert_int_equal(t.error_codes[SWEEP_WIRE_TOO_MANY_ENTITIES], 0);
    assert_int_equal(st.requests, made);
}

/* A game server relaying a player (Spawn.player): its cheats cut and
 * named by the player rules, recorded, replay bit for bit at both depths. */
static void relayed_player_replays(void **state)
{
    (void)state;
    char rec[400];
    scratch("relay", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    static const char token[] = "relay-test-command-token";
    const char *extra[] = {"--record", rec, "--command-token", token, "--record-hash-every", "1", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int fd = fx_tcp_connect(d.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, token) != 0);
    sweep_message m = fx_spawn_msg(2, sweep_v3(8, 8, 0.9), sweep_v3(0, 0, 0));
    m.as.spawn.player = true;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
    assert_true(m.as.spawned.player);
    uint32_t e = m.as.spawned.entity, seq = 3, cut = 0, fast = 0, refused = 0;
    for (int i = 0; i < 40; i++) {
        m = fx_move_msg(e, seq++, sweep_v3(i % 2 ? 40 : 2, 0, 0), i < 20 ? 1.0 / 60 : 0.1);
        if (i == 30)
            m.as.move.mode = SWEEP_WIRE_MODE_FLY;
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        if (m.kind == SWEEP_MSG_ERROR) {
            refused++;
            continue;
        }
        assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
        cut += (m.as.move_result.rules & SWEEP_WIRE_RULE_TIME_BUDGET) != 0;
        fast += (m.as.move_result.rules & SWEEP_WIRE_RULE_SPEED) != 0;
        if (i < 20)
            usleep(17000);
    }
    assert_true(cut > 0 && fast > 0);
    assert_int_equal(refused, 1);
    close(fd);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);
    char logs[4][512];
    assert_int_equal(logs_in(rec, logs, 4), 1);
    sweep_replay_stats full, core;
    tally tf, tc;
    both_depths(logs[0], &full, &tf, &core, &tc);
    assert_int_equal(tf.error_codes[SWEEP_WIRE_NOT_ALLOWED], 1);
    assert_true(full.hashes > 0);
}

/* Pins the calling thread (and the threads it starts) to one of the CPUs
 * it may use, as taskset -c would, saving its affinity in *saved for
 * all_cpus; 0 when it cannot. */
static int one_cpu(cpu_set_t *saved)
{
    if (sched_getaffinity(0, sizeof *saved, saved) != 0)
        return 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int i = 0; i < CPU_SETSIZE; i++) {
        if (CPU_ISSET(i, saved)) {
            CPU_SET(i, &one);
            break;
        }
    }
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 0;
    assert_int_equal(sweep__record_cpus(), 1);
    return 1;
}

static void all_cpus(const cpu_set_t *saved)
{
    assert_int_equal(sched_setaffinity(0, sizeof *saved, saved), 0);
}

/* A recording sweepd on a sample map of the build, the server role's
 * TCP session on it, and then both depths of the replay of its log. */
typedef struct recorded {
    char rec[400], map[1100];
    fx_server d;
    fx_rx *rx;
    int fd;
} recorded;

static void record_on(recorded *r, const char *name, const char *map)
{
    static const char token[] = "recorded-test-command-token";
    scratch(name, r->rec, sizeof r->rec);
    assert_int_equal(mkdir(r->rec, 0700), 0);
    fx_build(map, r->map, sizeof r->map);
    const char *extra[] = {"--record", r->rec, "--command-token", token, "--record-hash-every", "1", NULL};
    assert_int_equal(fx_start_map(&r->d, r->map, extra), 0);
    r->rx = fx_rx_new();
    r->fd = fx_tcp_connect(r->d.port);
    assert_true(r->fd >= 0);
    assert_true(fx_hello_token(r->fd, r->rx, token) != 0);
}

/* Stops the server; its one log replays bit for bit at both depths, and
 * again pinned to one CPU, where the replay streams the log (these logs
 * are several of the reader's buffers long) instead of mapping it. A
 * quick machine runs a whole session inside one tick, and a tick's hash
 * is written when the tick runs, so the server is stopped only after
 * three tick periods more (60 Hz): the log then holds hashes to check. */
static void replay_recorded(recorded *r, sweep_replay_stats *full, tally *tf)
{
    usleep(50000);
    close(r->fd);
    free(r->rx);
    assert_int_equal(fx_stop(&r->d), 0);
    char logs[4][512];
    assert_int_equal(logs_in(r->rec, logs, 4), 1);
    sweep_replay_stats core;
    tally tc;
    replay_ok(logs[0], r->map, full, tf);
    core_matches_full_on(logs[0], r->map, full, tf, &core, &tc);
    assert_true(full->hashes > 0);
    cpu_set_t saved;
    if (one_cpu(&saved)) {
        sweep_replay_stats full1, core1;
        tally tf1, tc1;
        replay_ok(logs[0], r->map, &full1, &tf1);
        core_matches_full_on(logs[0], r->map, &full1, &tf1, &core1, &tc1);
        all_cpus(&saved);
        assert_int_equal(full1.moves, full->moves);
        assert_int_equal(full1.outputs, full->outputs);
        assert_int_equal(full1.hashes, full->hashes);
        assert_int_equal(full1.ticks, full->ticks);
        assert_int_equal(core1.moves, core.moves);
        assert_int_equal(core1.ticks, core.ticks);
    }
}

/* A level with volumes (maps/pads.sql), recorded: a player through the
 * burning pool and the teleporter into the kill strip, whose Despawned
 * (killed_by) follows its answer, and one across the gate onto the jump
 * pad: both depths replay it bit for bit, the core depth following the
 * kill from the log's Despawned. */
static void volumes_replay_at_both_depths(void **state)
{
    (void)state;
    recorded rd;
    record_on(&rd, "volumes", "maps/pads.db");
    int fd = rd.fd;
    fx_rx *rx = rd.rx;
    uint32_t seq = 2, killed = 0, launched = 0, teleported = 0, hurt = 0;
    const double start_x[2] = {-24, 8}, wish_x[2] = {5, -5};
    for (int k = 0; k < 2; k++) {
        sweep_message m = fx_spawn_msg(seq++, sweep_v3(start_x[k], 0, 0.9005), sweep_v3(0, 0, 0));
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
        uint32_t e = m.as.spawned.entity;
        for (int i = 0; i < 600; i++) {
            m = fx_move_msg(e, seq++, sweep_v3(wish_x[k], 0, 0), 1.0 / 60);
            assert_int_equal(fx_send(fd, &m), 0);
            assert_int_equal(fx_recv(fd, rx, &m), 1);
            assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
            launched += m.as.move_result.launched_by != 0;
            teleported += m.as.move_result.teleported_by != 0;
            hurt += m.as.move_result.hurt_by != 0;
            if (m.as.move_result.killed_by) {
                assert_int_equal(fx_recv(fd, rx, &m), 1);
                assert_int_equal(m.kind, SWEEP_MSG_DESPAWNED);
                assert_int_equal(m.as.despawned.killed_by, 5);
                killed++;
                break;
            }
        }
    }
    assert_int_equal(killed, 1);
    assert_true(launched >= 1 && teleported == 1 && hurt > 0);
    sweep_replay_stats full;
    tally tf;
    replay_recorded(&rd, &full, &tf);
    assert_int_equal(tf.despawned, 1);
}

/* Liquids and a ladder (maps/pool.sql), recorded: a player off the deck
 * into the pool, across it with its head out and out by the water jump,
 * one into the slime corner (hurt by depth), one up the ladder onto the
 * tower: both depths replay it bit for bit, the medium of every result
 * included. */
static void liquids_replay_at_both_depths(void **state)
{
    (void)state;
    recorded rd;
    record_on(&rd, "liquids", "maps/pool.db");
    int fd = rd.fd;
    fx_rx *rx = rd.rx;
    uint32_t seq = 2, entered = 0, left = 0, swam = 0, hurt = 0, ladder = 0;
    const sweep_vec3 starts[3] = {{5, 0, 0.9005}, {8, 8, 0.9005}, {27, 0, 0.9005}};
    for (int k = 0; k < 3; k++) {
        sweep_message m = fx_spawn_msg(seq++, starts[k], sweep_v3(0, 0, 0));
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
        uint32_t e = m.as.spawned.entity;
        sweep_vec3 p = starts[k];
        for (int i = 0; i < 400; i++) {
            sweep_vec3 wish = sweep_v3(5, 0, 0);
            uint32_t buttons = 0;
            if (k == 0 && p.x > 10.5 && p.x < 21) {
                wish = sweep_v3(2.4, 0, p.z < -0.9 ? 0.6 : 0.0);
                if (p.x > 19.4)
                    wish = sweep_v3(4, 0, 0), buttons = SWEEP_WISH_JUMP;
            } else if (k == 1 && p.x >= 12) {
                wish = sweep_v3(0, 0, -1);
            }
            m = fx_move_msg(e, seq++, wish, 1.0 / 60);
            m.as.move.buttons = buttons;
            assert_int_equal(fx_send(fd, &m), 0);
            assert_int_equal(fx_recv(fd, rx, &m), 1);
            assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
            const sweep_msg_move_result *r = &m.as.move_result;
            entered += r->entered_liquid != 0;
            left += r->left_liquid != 0;
            swam += r->liquid_level >= 2;
            hurt += r->hurt_by == 2;
            ladder += r->ladder == 3;
            p = r->position;
        }
    }
    assert_true(entered >= 2 && left >= 1 && swam > 0 && hurt > 0 && ladder > 0);
    sweep_replay_stats full;
    tally tf;
    replay_recorded(&rd, &full, &tf);
}

static void core_depth_movers_and_raw_moves(void **state)
{
    (void)state;
    char rec[400];
    scratch("raw", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    static const char token[] = "core-depth-test-command-token";
    const char *extra[] = {"--record", rec, "--command-token", token, "--allow-free-move", "on", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    char cmd[8192], *out = NULL;
    /* One shell, so every client's output is kept with the others. */
    snprintf(cmd, sizeof cmd,
             "(S=%s/sweep; A=%s; M=%s; U=%s; "
             "$S move --connect $A --map $M --position 32.5,-9,2.5 --velocity 0,0,0 --count 60 --interval 16 & p1=$!; "
             "$S move --connect $U --udp --map $M --position 35,2,1.3 --velocity -0.5,0,0 --count 70 --interval 16 "
             "& p2=$!; "
             "$S move --connect $A --map $M --mode fly --position 24,-4,1.5 --velocity 1.5,0.5,-0.8 --count 60 "
             "--interval 16 & p3=$!; "
             "$S move --connect $A --map $M --mode fly --position 24,8,3 --velocity 0.5,-1,-2 --count 48 --batch "
             "--interval 16 & p4=$!; "
             "$S move --connect $A --map $M --mode noclip --position 25,4,1 --velocity 0.3,-0.4,0.2 --count 40 "
             "--interval 16 & p5=$!; "
             "sleep 0.3; $S command --connect $A 'sliding door' || exit 9; "
             "wait $p1 && wait $p2 && wait $p3 && wait $p4 && wait $p5)",
             g_bin, d.tcp, g_map, d.udp);
    setenv("SWEEP_TOKEN", token, 1);
    int rc = fx_run(cmd, &out);
    unsetenv("SWEEP_TOKEN");
    assert_int_equal(fx_stop(&d), 0);
    if (rc != 0)
        fail_msg("clients: exit %d: %s", rc, out ? out : "");
    free(out);
    char logs[4][512];
    assert_int_equal(logs_in(rec, logs, 4), 1);

    uint64_t modes[3], batches;
    count_modes(logs[0], modes, &batches);
    assert_true(modes[SWEEP_WIRE_MODE_WALK] >= 130);
    assert_true(modes[SWEEP_WIRE_MODE_FLY] >= 100);
    assert_true(modes[SWEEP_WIRE_MODE_NOCLIP] >= 40);
    assert_true(batches > 0);

    sweep_replay_stats full, core;
    tally tf, tc;
    both_depths(logs[0], &full, &tf, &core, &tc);
    /* Every move was applied and checked by the core: none refused. */
    assert_int_equal(core.refused, 0);
    assert_int_equal(tf.errors, 0);
    assert_int_equal(core.moves, modes[0] + modes[1] + modes[2]);
    assert_true(tc.carried_on[3] > 10); /* the lift */
    assert_true(tc.carried_on[4] > 5);  /* the platform */
    assert_true(tc.started_elsewhere > 15);
    assert_int_equal(tc.commanded, 1);
    assert_true(tc.max_z > 2.0);
}

/* ---- MOVE records (version 2) ----------------------------------------------------- */

/* The log core_depth_movers_and_raw_moves recorded (it runs first, or here
 * when a test that reads it runs alone). */
static void raw_log(char *out, size_t n)
{
    char rec[400];
    char logs[4][512];
    needs("raw", core_depth_movers_and_raw_moves);
    scratch("raw", rec, sizeof rec);
    assert_int_equal(logs_in(rec, logs, 4), 1);
    snprintf(out, n, "%s", logs[0]);
}

/* The offset (of its type byte) of the first record of `type` in log. */
static uint64_t first_record(const char *log, uint8_t type)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    sweep_record x;
    uint64_t at = 0;
    while (!at && sweep_record_next(r, &x, err, sizeof err) == 1)
        if (x.type == type)
            at = x.offset;
    sweep_record_close(r);
    assert_true(at > 0);
    return at;
}

/* The offset of the first TICK record of log that no request waits
 * before: every IN before it has had its first RESULTS (the reader hands
 * an ANSWER out as one, and a patched request as an IN). A request may
 * come in while its world catches up on due ticks, and so stand before a
 * TICK unanswered. */
static uint64_t first_unawaited_tick(const char *log)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    sweep_record x;
    uint64_t at = 0;
    int waits = 0;
    while (!at && sweep_record_next(r, &x, err, sizeof err) == 1) {
        if (x.type == SWEEP_RECORD_IN)
            waits = 1;
        else if (x.type == SWEEP_RECORD_RESULTS)
            waits = 0;
        else if (x.type == SWEEP_RECORD_TICK && !waits)
            at = x.offset;
        else if (x.type == SWEEP_RECORD_TICK)
            waits = 0;
    }
    sweep_record_close(r);
    assert_true(at > 0);
    return at;
}

/* A copy of log at out whose record at `offset` says it is of `type`,
 * its frame's checksum made right: only the reader's own checks of
 * records can find it. Then read to the end: the reader's error. */
static void read_retyped(const char *log, uint64_t offset, uint8_t type, const char *out, char *err, size_t errlen)
{
    size_t len, frame = 0;
    uint32_t body = 0;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    assert_int_equal(frame_holding(buf, len, (size_t)offset, &frame, &body), 0);
    buf[offset] = type;
    fix_crc(buf, frame, body);
    write_all(out, buf, len);
    free(buf);
    err[0] = 0;
    sweep_record_reader *r = sweep_record_open(out, err, errlen);
    if (!r)
        fail_msg("%s", err);
    sweep_record x;
    int got;
    while ((got = sweep_record_next(r, &x, err, errlen)) == 1)
        ;
    sweep_record_close(r);
    if (got != -1)
        fail_msg("a record of type %u at byte %" PRIu64 " was read to the end (%d)", type, offset, got);
}

/* A record of a kind its log's version has none of, of no kind at all,
 * shorter than its kind's fields, an answer no request waits for, or a
 * patch with nothing before it to patch, under a right checksum: each is
 * named as corrupt, at the record's byte. */
static void corrupt_records_are_named(void **state)
{
    (void)state;
    static const struct {
        uint8_t type;
        const char *says;
    } version_1[] = {
        {SWEEP_RECORD_MOVE, ": MOVE in a version 1 log, which has none (corrupt log)"},
        {SWEEP_RECORD_RESULTS, ": RESULTS in a version 1 log, which has none (corrupt log)"},
        {SWEEP_RECORD_IN_PATCH, ": IN_PATCH in a version 1 log, which has none (corrupt log)"},
        {SWEEP_RECORD_ANSWER, ": ANSWER in a version 1 log, which has none (corrupt log)"},
        {0xee, ": unknown type 238 (corrupt log, or a newer format)"},
        {SWEEP_RECORD_ID, " (ID): its 8 bytes do not hold its fields (corrupt log)"},
    };
    char log[1200], out[400], err[1400], want[200], py[1300], cmd[3000];
    golden("walking", log, sizeof log);
    scratch("retyped.sweeplog", out, sizeof out);
    uint64_t tick = first_record(log, SWEEP_RECORD_TICK); /* 8 bytes: the tick */
    int python = python_reader(py, sizeof py);
    for (size_t i = 0; i < sizeof version_1 / sizeof version_1[0]; i++) {
        read_retyped(log, tick, version_1[i].type, out, err, sizeof err);
        snprintf(want, sizeof want, "record at byte %" PRIu64 "%s", tick, version_1[i].says);
        if (!strstr(err, want) || !strstr(err, out))
            fail_msg("error '%s' does not name the file and say '%s'", err, want);
        /* The Python reader refuses each too (a MOVE there it once read). */
        char *said = NULL;
        snprintf(cmd, sizeof cmd, "%s '%s'", py, out);
        int rc = python ? fx_run(cmd, &said) : 2;
        if (rc != 2 || (python && i < 4 && !strstr(said ? said : "", want)))
            fail_msg("sweep_log.py: exit %d, not 2 with '%s': %s", rc, want, said ? said : "");
        free(said);
    }

    /* In a log of this build's version, an ANSWER stands for the first
     * RESULTS after a request: one after a TICK has none to answer. */
    needs("raw", core_depth_movers_and_raw_moves);
    raw_log(log, sizeof log);
    tick = first_unawaited_tick(log);
    read_retyped(log, tick, SWEEP_RECORD_ANSWER, out, err, sizeof err);
    snprintf(want, sizeof want, "record at byte %" PRIu64 " (ANSWER): no request before it waits for its answer", tick);
    if (!strstr(err, want))
        fail_msg("error '%s' does not say '%s'", err, want);
    /* A session's first request made a patch: nothing before it to patch. */
    uint64_t in = first_record(log, SWEEP_RECORD_IN);
    read_retyped(log, in, SWEEP_RECORD_IN_PATCH, out, err, sizeof err);
    snprintf(want, sizeof want, "record at byte %" PRIu64 " (IN_PATCH): session ", in);
    if (!strstr(err, want) || !strstr(err, "has no whole request before it in this segment to patch (corrupt log)"))
        fail_msg("error '%s' does not say '%s' and that nothing is there to patch", err, want);
}

/* The n-th MOVE record of a log with at least `contacts` contacts (and,
 * walk set, of a Walk move; parts set, of a compact image with every part:
 * on the ground, its rare part there): its offset (of the type byte),
 * session and entity. */
static void find_move_parts(const char *log, uint32_t contacts, int walk, int parts, unsigned nth, uint64_t *offset,
                            uint64_t *session, uint32_t *entity)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    assert_true(sweep_record_head_of(r)->version >= 2);
    sweep_record x;
    int found = 0;
    while (!found && sweep_record_next(r, &x, err, sizeof err) == 1) {
        if (x.type == SWEEP_RECORD_MOVE && x.bytes.ptr[54] >= contacts &&
            (!walk || x.bytes.ptr[52] == SWEEP_WIRE_MODE_WALK) &&
            (!parts || ((x.bytes.ptr[53] & SWEEP__RECORD_MOVE_GROUNDED) &&
                        x.bytes.ptr[55] == (SWEEP__RECORD_MOVE_COMPACT | SWEEP__RECORD_MOVE_RARE))) &&
            nth-- == 0) {
            *offset = x.offset;
            *session = x.session;
            *entity = x.entity;
            found = 1;
        }
    }
    sweep_record_close(r);
    assert_true(found);
}

static void find_move_of(const char *log, uint32_t contacts, int walk, unsigned nth, uint64_t *offset,
                         uint64_t *session, uint32_t *entity)
{
    find_move_parts(log, contacts, walk, 0, nth, offset, session, entity);
}

static void find_move(const char *log, uint32_t contacts, unsigned nth, uint64_t *offset, uint64_t *session,
                      uint32_t *entity)
{
    find_move_of(log, contacts, 0, nth, offset, session, entity);
}

/* A copy of log with byte `at` xor'ed with `bits` (at == SIZE_MAX: none),
 * the frame's checksum made right again. */
static void flip(const char *log, size_t at, uint8_t bits, const char *out)
{
    size_t len, start;
    uint32_t body;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    assert_true(at < len);
    assert_int_equal(frame_holding(buf, len, at, &start, &body), 0);
    buf[at] ^= bits;
    fix_crc(buf, start, body);
    write_all(out, buf, len);
    free(buf);
}

/* Replays out at a depth to its end: the divergence, or NULL with the
 * error in err. */
static const sweep_replay_divergence *replay_bad(const char *out, unsigned flags, sweep_replay_divergence *div,
                                                 char *err, size_t errlen)
{
    sweep_replay *r = sweep_replay_open_flags(out, g_map, flags, err, errlen);
    if (!r)
        return NULL;
    assert_int_equal(sweep_replay_run(r), -1);
    const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
    if (d)
        *div = *d;
    snprintf(err, errlen, "%s", sweep_replay_error(r));
    sweep_replay_close(r);
    return d ? div : NULL;
}

/* A version 2 log holds one MOVE per move the core ran, and the core
 * depth checks the moves on them: one bit of a MOVE's output is a
 * divergence naming that field at that record, at both depths (the full
 * depth compares the world's own MOVE records); one bit of its
 * input makes the replayed move differ from the answer the server sent,
 * named as the full depth names it. */
static void move_record_changed_is_a_divergence(void **state)
{
    (void)state;
    char log[600], out[400], err[1400];
    raw_log(log, sizeof log);
    /* As many MOVE records as moves the core depth checked. */
    uint64_t n_moves = records_read_as(log, SWEEP_RECORD_MOVE);
    sweep_replay_stats core;
    tally tc;
    replay_at(log, g_map, SWEEP_REPLAY_CORE, &core, &tc);
    assert_int_equal(core.moves, n_moves);
    assert_true(n_moves > 200);

    uint64_t at, session;
    uint32_t entity;
    scratch("move-bit.sweeplog", out, sizeof out);
    /* Every output field of the image, on a move of any mode and on a
     * Walk move (which the core depth compares straight from sweep_act's
     * output: record_move.h's sweep__record_move_same_act_in), each a move on
     * the ground that started elsewhere (the door moved it), so that its
     * compact image has every part: the ground part at 104, the rare part
     * at 132, its contacts at 176. A change the layout's check refuses (a
     * flag that says a part is there or not: the length no longer what
     * it makes) is corruption at the record; any other a divergence on
     * the field. */
    static const struct {
        size_t byte; /* in the payload */
        uint8_t bits;
        const char *field;
    } outputs[] = {
        {56, 0x01, "MOVE.position.x"},
        {80 + 16 + 7, 0x01, "MOVE.velocity.z"},
        {176 + 48, 0x01, "MOVE.contacts[0].triangle"},
        {53, 0x01, "MOVE.grounded"},
        {53, 0x02, "MOVE.carried"},
        {53, 0x04, "MOVE.pushed"},
        {53, 0x08, "MOVE.has_start_position"},
        {104 + 7, 0x01, "MOVE.ground_normal.x"},
        {104 + 16, 0x01, "MOVE.ground_normal.z"},
        {128, 0x01, "MOVE.ground_material"},
        {132, 0x01, "MOVE.start_position.x"},
        {132 + 16 + 7, 0x01, "MOVE.start_position.z"},
        {156, 0x01, "MOVE.speed_excess"},
        {164, 0x01, "MOVE.ground_mover"},
        {168, 0x01, "MOVE.pushed_by"},
        {172, 0x02, "MOVE.rules"},
        {176 + 7, 0x01, "MOVE.contacts[0].point.x"},
        {176 + 24 + 16, 0x01, "MOVE.contacts[0].normal.z"},
        {176 + 52, 0x01, "MOVE.contacts[0].material"},
    };
    unsigned corrupt = 0;
    for (int walk = 0; walk < 2; walk++) {
        find_move_parts(log, 1, walk, 1, 1, &at, &session, &entity);
        size_t len;
        uint8_t *bytes = read_all(log, &len);
        assert_non_null(bytes);
        uint32_t plen = sweep__rd32(bytes + at + 1);
        uint8_t payload[SWEEP__RECORD_MOVE_MAX];
        assert_true(plen <= sizeof payload && plen >= 176 + SWEEP_RECORD_MOVE_CONTACT);
        memcpy(payload, bytes + at + 5, plen);
        free(bytes);
        for (unsigned i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
            flip(log, (size_t)at + 5 + outputs[i].byte, outputs[i].bits, out);
            payload[outputs[i].byte] ^= outputs[i].bits;
            char why[160];
            int refused = sweep__record_move_check(payload, plen, 1, why, sizeof why) != 0;
            payload[outputs[i].byte] ^= outputs[i].bits;
            corrupt += refused;
            for (int depth = 0; depth < 2; depth++) {
                sweep_replay_divergence div;
                const sweep_replay_divergence *d =
                    replay_bad(out, depth ? SWEEP_REPLAY_CORE : 0, &div, err, sizeof err);
                if (refused) {
                    char want[64];
                    snprintf(want, sizeof want, "byte %" PRIu64, at);
                    if (d || !strstr(err, want) || !strstr(err, "corrupt log"))
                        fail_msg("walk %d, byte %zu, depth %d: not corruption at %s: %s", walk, outputs[i].byte,
                                 depth, want, d ? d->text : err);
                    continue;
                }
                if (!d)
                    fail_msg("walk %d, byte %zu, depth %d: no divergence: %s", walk, outputs[i].byte, depth, err);
                if (strcmp(d->field, outputs[i].field) != 0)
                    fail_msg("walk %d, byte %zu, depth %d: %s", walk, outputs[i].byte, depth, d->text);
                assert_int_equal(d->offset, at);
                assert_int_equal(d->session, session);
                assert_int_equal(d->entity, entity);
            }
        }
    }
    /* The ground flag always changes the length a compact image has. */
    assert_true(corrupt >= 2);
    /* The forgiven cut's flag is the move's input, as its granted time:
     * the core depth takes it as it is (a Jump it then names or not is
     * what it can tell), the full depth, which makes the image again from
     * the world's own answer, names it. */
    flip(log, (size_t)at + 5 + 53, SWEEP__RECORD_MOVE_CUT_FORGIVEN, out);
    {
        sweep_replay_divergence div;
        const sweep_replay_divergence *d = replay_bad(out, 0, &div, err, sizeof err);
        if (!d || strcmp(d->field, "MOVE.cut_forgiven") != 0)
            fail_msg("cut_forgiven flipped: %s", d ? d->text : err);
        assert_int_equal(d->offset, at);
    }
    /* The wish: the core depth runs the move it says, whose result is not
     * the one the server answered: in a version 5 log that answer's core
     * fields are the MOVE's, so it is named there. */
    flip(log, (size_t)at + 5 + 16 + 7, 0x40, out); /* wish.x's exponent */
    sweep_replay_divergence div;
    const sweep_replay_divergence *d = replay_bad(out, SWEEP_REPLAY_CORE, &div, err, sizeof err);
    if (!d)
        fail_msg("wish changed: no divergence: %s", err);
    if (strncmp(d->field, "MOVE", 4) != 0) /* a field of it, or the move refused */
        fail_msg("wish changed: %s", d->text);
    assert_int_equal(d->offset, at);
    assert_int_equal(d->entity, entity);
}

/* A Walk MOVE whose granted time the core refuses (far above the world's
 * max_dt) is a move the server applied and the core depth would have
 * refused: named on the MOVE (in a version 5 log its answer's core
 * fields), "applied" against "refused: " and why, as the full depth names
 * a refused move. The core
 * depth's Walk moves run sweep_act on the entity's own actor (a refused
 * one ends the replay, so nothing it left there is read). */
static void core_refused_move_is_a_divergence(void **state)
{
    (void)state;
    char log[600], out[400], err[1400];
    raw_log(log, sizeof log);
    uint64_t at, session;
    uint32_t entity;
    find_move_of(log, 0, 1, 5, &at, &session, &entity);
    scratch("move-dt.sweeplog", out, sizeof out);
    flip(log, (size_t)at + 5 + 40 + 7, 0x40, out); /* granted's exponent: about 1e300 seconds */
    sweep_replay_divergence div;
    const sweep_replay_divergence *d = replay_bad(out, SWEEP_REPLAY_CORE, &div, err, sizeof err);
    if (!d)
        fail_msg("granted time changed: no divergence: %s", err);
    if (strcmp(d->field, "MOVE") != 0 || strcmp(d->recorded, "applied") != 0 ||
        strncmp(d->replayed, "refused: ", 9) != 0)
        fail_msg("granted time changed: %s", d->text);
    assert_int_equal(d->session, session);
    assert_int_equal(d->entity, entity);
    assert_int_equal(d->offset, at);
}

/* A log of this version holds each move's results once: its MoveResults
 * are RESULTS records (none is an OUT), each result of a move that ran
 * its MOVE record plus what only the server decides. A RESULTS changed
 * under a valid checksum is a divergence of the full depth, named on the
 * field, at the record: the world's answer is compared with what the
 * record holds (a flag with nothing after it, the message's sequence, a
 * result made whole with no MOVE behind it). The core depth checks the
 * MOVE records, not what the server alone decides, and replays it whole. */
static void results_record_changed_is_a_divergence(void **state)
{
    (void)state;
    char log[600], out[400], err[1400];
    raw_log(log, sizeof log);
    sweep_record_reader *rd = sweep_record_open(log, err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    assert_int_equal(sweep_record_head_of(rd)->version, SWEEP_RECORD_VERSION);
    assert_true(SWEEP_RECORD_VERSION >= 5);
    sweep_record x;
    uint64_t at = 0, session = 0;
    uint32_t results = 0, moves = 0, nth = 0;
    tcp_sessions tcp = {.n = 0};
    while (sweep_record_next(rd, &x, err, sizeof err) == 1) {
        unsigned flags = wire_flags(&tcp, &x);
        if (x.type == SWEEP_RECORD_MOVE)
            moves++;
        if (x.type == SWEEP_RECORD_RESULTS) {
            results += sweep__record_results_count(x.bytes.ptr);
            /* the tenth with one result that has its MOVE (mask 0 or more) */
            if (sweep__record_results_count(x.bytes.ptr) == 1 &&
                !(sweep__rd32(x.bytes.ptr + SWEEP__RESULTS_FIXED) & SWEEP__RESULTS_WHOLE) && nth++ == 10) {
                at = x.offset;
                session = x.session;
            }
        }
        if (x.type == SWEEP_RECORD_OUT) {
            sweep_msg_kind kind;
            uint32_t seq;
            if (sweep_decode_kind(x.bytes.ptr, x.bytes.len, flags, &kind, &seq) == SWEEP_PROTO_OK)
                assert_false(sweep__record_results_kind(kind)); /* never an OUT */
        }
    }
    sweep_record_close(rd);
    assert_true(at > 0);
    assert_true(results >= moves && moves > 20); /* every move answered; resent answers beside */
    scratch("results-bit.sweeplog", out, sizeof out);
    static const struct {
        size_t byte; /* in the payload */
        uint8_t bits;
        const char *suffix; /* of the field named */
    } changes[] = {
        {SWEEP__RESULTS_FIXED, SWEEP__RESULTS_CORRECTED, ".corrected"},
        {SWEEP__RESULTS_FIXED + 1, SWEEP__RESULTS_TELEPORT_BLOCKED >> 8, ".teleport_blocked"},
        {12, 0x01, ".sequence"},
    };
    /* Written as an ANSWER (version 7: the first answer to a request),
     * its sequence is its first 4 bytes and its result follows. */
    uint32_t written_len;
    int answer = type_in_file(log, at, &written_len) == SWEEP_RECORD_ANSWER;
    assert_true(answer || SWEEP_RECORD_VERSION < 7);
    for (unsigned i = 0; i < sizeof changes / sizeof changes[0]; i++) {
        size_t byte = !answer                           ? changes[i].byte
                      : changes[i].byte < SWEEP__RESULTS_FIXED ? changes[i].byte - 12
                                                               : changes[i].byte - SWEEP__RECORD_ANSWER_GROWS;
        flip(log, (size_t)at + 5 + byte, changes[i].bits, out);
        sweep_replay_divergence div;
        const sweep_replay_divergence *d = replay_bad(out, 0, &div, err, sizeof err);
        if (!d)
            fail_msg("RESULTS byte %zu changed: no divergence: %s", changes[i].byte, err);
        size_t fl = strlen(d->field), sl = strlen(changes[i].suffix);
        if (strncmp(d->field, "MoveResult", 10) != 0 || fl < sl || strcmp(d->field + fl - sl, changes[i].suffix) != 0)
            fail_msg("RESULTS byte %zu changed: %s", changes[i].byte, d->text);
        assert_int_equal(d->offset, at);
        assert_int_equal(d->session, session);
        /* The core depth leaves the server's fields to the server. */
        sweep_replay *r = sweep_replay_open_flags(out, g_map, SWEEP_REPLAY_CORE, err, sizeof err);
        assert_non_null(r);
        assert_int_equal(sweep_replay_run(r), 0);
        sweep_replay_close(r);
    }
    /* A result held whole where its MOVE record stood: the layout holds,
     * the comparison does not. */
    size_t len, start;
    uint32_t body;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    assert_int_equal(frame_holding(buf, len, (size_t)at, &start, &body), 0);
    assert_int_equal(buf[at], answer ? SWEEP_RECORD_ANSWER : SWEEP_RECORD_RESULTS);
    /* What comes before the result: a RESULTS's fixed part, an ANSWER's
     * sequence. The record stays what it was. */
    size_t fixed = answer ? SWEEP__RECORD_ANSWER_FIXED : SWEEP__RESULTS_FIXED;
    uint32_t plen = sweep__rd32(buf + at + 1);
    assert_true(plen < 200);
    /* The image of the result the record's MOVE holds, input zeroed. */
    uint8_t payload[2048];
    memcpy(payload, buf + at + 5, plen);
    size_t move_at = (size_t)at;
    for (;;) { /* the MOVE before it */
        assert_true(move_at > start);
        move_at--;
        if (buf[move_at] == SWEEP_RECORD_MOVE && sweep__rd32(buf + move_at + 1) >= SWEEP__RECORD_MOVE_HEAD &&
            move_at + 5 + sweep__rd32(buf + move_at + 1) == at)
            break;
    }
    uint32_t mlen = sweep__rd32(buf + move_at + 1);
    uint8_t image[SWEEP__RECORD_MOVE_MAX];
    memcpy(image, buf + move_at + 5, mlen);
    memset(image, 0, 8);       /* session */
    memset(image + 16, 0, 24); /* wish */
    memset(image + 48, 0, 5);  /* buttons, mode */
    uint8_t whole[4096];
    memcpy(whole, payload, fixed);
    sweep__wr32(whole + fixed, sweep__rd32(payload + fixed) | SWEEP__RESULTS_WHOLE);
    memcpy(whole + fixed + 4, image, mlen);
    memcpy(whole + fixed + 4 + mlen, payload + fixed + 4, plen - fixed - 4);
    size_t wlen = plen + mlen;
    uint8_t expanded[4096];
    const uint8_t *check = whole;
    size_t check_len = wlen;
    if (answer) {
        check_len = sweep__record_answer_expand(whole, wlen, session, 0, expanded);
        check = expanded;
    }
    assert_int_equal(sweep__record_results_check(check, check_len, 1, err, sizeof err), 0);
    /* The frame rewritten with the longer record. */
    size_t nlen = len + mlen;
    uint8_t *nb = malloc(nlen);
    assert_non_null(nb);
    memcpy(nb, buf, (size_t)at);
    nb[at] = buf[at];
    sweep__wr32(nb + at + 1, (uint32_t)wlen);
    memcpy(nb + at + 5, whole, wlen);
    memcpy(nb + at + 5 + wlen, buf + at + 5 + plen, len - (at + 5 + plen));
    sweep__wr32(nb + start, body + mlen);
    fix_crc(nb, start, body + mlen);
    write_all(out, nb, nlen);
    free(nb);
    free(buf);
    sweep_replay_divergence div;
    const sweep_replay_divergence *d = replay_bad(out, 0, &div, err, sizeof err);
    if (!d)
        fail_msg("a result made whole: no divergence: %s", err);
    assert_int_equal(d->offset, at);
    assert_non_null(strstr(d->field, "RESULTS"));
}

/* A MOVE record that breaks its layout is corruption at its byte offset,
 * read by any reader: a length that is not its contacts', a count above 8,
 * a mode that is not a MoveMode; one naming an entity its session never
 * spawned stops the core depth the same way. */
static void bad_move_record_is_corruption(void **state)
{
    (void)state;
    char log[600], out[400], err[1400], want[160];
    raw_log(log, sizeof log);
    uint64_t at, session;
    uint32_t entity;
    find_move(log, 1, 0, &at, &session, &entity);
    scratch("move-bad.sweeplog", out, sizeof out);
    static const struct {
        size_t byte; /* in the record, its type byte 0 */
        uint8_t bits;
        const char *says;
    } cases[] = {
        {1, 0x30, "bytes, but"},                   /* length: the frame still holds it, its contacts do not */
        {5 + 54, 0x08, "contacts, more than"},     /* count 9 */
        {5 + 54, 0x02, "contacts make"},           /* another count than the record holds */
        {5 + 52, 0x04, "is not a MoveMode"},       /* mode 4 */
        {5 + 53, 0x80, "bits set that the layout"}, /* flag 128, which no move has */
        {5 + 55, 0x01, "bytes, but"},             /* the rare part said there or not: another length */
        {5 + 55, 0x80, "byte 55"},                /* the full layout's in a version 6 log */
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        flip(log, (size_t)at + cases[i].byte, cases[i].bits, out);
        for (int depth = 0; depth < 2; depth++) {
            sweep_replay_divergence div;
            if (replay_bad(out, depth ? SWEEP_REPLAY_CORE : 0, &div, err, sizeof err))
                fail_msg("case %u: a divergence, not corruption: %s", i, div.text);
            snprintf(want, sizeof want, "byte %" PRIu64, at);
            if (!strstr(err, want) || !strstr(err, cases[i].says) || !strstr(err, "corrupt log"))
                fail_msg("case %u depth %d: '%s' does not say '%s' and '%s'", i, depth, err, want, cases[i].says);
        }
    }
    /* A MOVE of an entity nobody spawned. */
    flip(log, (size_t)at + 5 + 8 + 3, 0x40, out);
    sweep_replay_divergence div;
    if (replay_bad(out, SWEEP_REPLAY_CORE, &div, err, sizeof err))
        fail_msg("a divergence, not corruption: %s", div.text);
    snprintf(want, sizeof want, "byte %" PRIu64 ": MOVE of entity %u", at, entity ^ 0x40000000u);
    if (!strstr(err, want) || !strstr(err, "has not spawned"))
        fail_msg("'%s' does not say '%s'", err, want);
}

/* The log at `out` is corrupt, not divergent, at both depths, and the
 * error says both things and "corrupt log". */
static void corrupt_at_both_depths(const char *out, const char *says, const char *and_says)
{
    char err[1400];
    for (int depth = 0; depth < 2; depth++) {
        sweep_replay_divergence div;
        if (replay_bad(out, depth ? SWEEP_REPLAY_CORE : 0, &div, err, sizeof err))
            fail_msg("depth %d: a divergence, not corruption: %s", depth, div.text);
        if (!strstr(err, says) || !strstr(err, and_says) || !strstr(err, "corrupt log"))
            fail_msg("depth %d: '%s' does not say '%s' and '%s'", depth, err, says, and_says);
    }
}

/* Where a record lies as written: its offset (of its type byte), its
 * payload's length, and its frame's offset and body length. */
typedef struct written {
    size_t at, frame;
    uint32_t len, body;
} written;

/* How many records of `type` a log's bytes hold as written (its frames
 * walked, not read: a reader hands an IN_PATCH out as an IN and an ANSWER
 * as a RESULTS); where the nth lies into *w (w may be NULL). */
static unsigned written_records(const uint8_t *buf, size_t len, uint8_t type, unsigned nth, written *w)
{
    unsigned count = 0;
    for (size_t pos = SWEEP_RECORD_HEADER_SIZE; pos + SWEEP_RECORD_FRAME_HEADER <= len;) {
        uint32_t n = le32(buf + pos);
        for (size_t r = pos + SWEEP_RECORD_FRAME_HEADER; r + 5 <= pos + SWEEP_RECORD_FRAME_HEADER + n;
             r += 5 + (size_t)le32(buf + r + 1)) {
            if (buf[r] == type && count++ == nth && w)
                *w = (written){r, pos, le32(buf + r + 1), n};
        }
        pos += SWEEP_RECORD_FRAME_HEADER + n;
    }
    return count;
}

/* The n-th IN_PATCH record of a log (its offset, of the type byte, and its
 * payload's length). */
static void find_patch(const char *log, unsigned nth, size_t *at, uint32_t *plen)
{
    size_t len;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    written w;
    assert_true(written_records(buf, len, SWEEP_RECORD_IN_PATCH, nth, &w) > nth);
    free(buf);
    *at = w.at, *plen = w.len;
}

/* A version 6 log holds most requests as patches of their session's last
 * whole one; the replays read them as the requests they stand for (the
 * full depth verifies and decodes each). A patch whose session has no
 * whole request before it in the segment is corruption at both depths,
 * named at its byte; one whose runs reach past its base is corruption at
 * the full depth, which makes the request (the core depth reads past a
 * move's request, as it always did). */
static void request_patches_read_back_or_are_corruption(void **state)
{
    (void)state;
    char log[600], out[400], err[1400], want[160];
    raw_log(log, sizeof log);
    /* Patches there, and far more of them than whole requests. */
    unsigned ins = records_read_as(log, SWEEP_RECORD_IN);
    size_t len, at = 0;
    uint32_t plen = 0;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    unsigned patches = written_records(buf, len, SWEEP_RECORD_IN_PATCH, UINT_MAX, NULL);
    unsigned whole = written_records(buf, len, SWEEP_RECORD_IN, UINT_MAX, NULL);
    free(buf);
    assert_int_equal(ins, patches + whole);
    if (patches < 100 || patches < 3 * whole)
        fail_msg("%u patches, %u whole requests", patches, whole);

    find_patch(log, 20, &at, &plen);
    scratch("patch-bad.sweeplog", out, sizeof out);
    /* Its session's id changed: no base. */
    flip(log, at + 5 + 6, 0x40, out);
    snprintf(want, sizeof want, "byte %zu (IN_PATCH)", at);
    corrupt_at_both_depths(out, want, "no whole request");
    /* Its first run made longer than the record holds. */
    buf = read_all(log, &len);
    assert_non_null(buf);
    uint8_t n0 = buf[at + 5 + 9];
    free(buf);
    assert_true(n0 < 0x80 && plen - 10u < n0 + 0x80u);
    flip(log, at + 5 + 9, 0x80, out);
    sweep_replay_divergence div;
    if (replay_bad(out, 0, &div, err, sizeof err))
        fail_msg("a divergence, not corruption: %s", div.text);
    snprintf(want, sizeof want, "byte %zu (IN_PATCH)", at);
    if (!strstr(err, want) || !strstr(err, "cut short or reach past") || !strstr(err, "corrupt log"))
        fail_msg("'%s' does not say '%s' and 'cut short or reach past'", err, want);
}

/* A version 7 log holds the first answer to a request as an ANSWER, which
 * leaves out what the readers know (its session, its tick); the replays
 * read it as the RESULTS it stands for (the full depth compares the
 * world's answer with it byte for byte). An ANSWER where no request waits
 * for one (a second after the same request), or in a log of an older
 * version, is corruption at both depths, named at its byte. */
static void answers_read_back_or_are_corruption(void **state)
{
    (void)state;
    char log[600], out[400], want[200];
    raw_log(log, sizeof log);
    size_t len;
    uint8_t *buf = read_all(log, &len);
    assert_non_null(buf);
    written w;
    unsigned answers = written_records(buf, len, SWEEP_RECORD_ANSWER, 20, &w);
    unsigned results = written_records(buf, len, SWEEP_RECORD_RESULTS, UINT_MAX, NULL);
    size_t at = w.at, start = w.frame;
    uint32_t alen = w.len, body = w.body;
    if (answers < 100 || answers < 3 * results)
        fail_msg("%u ANSWERs, %u RESULTS", answers, results);
    /* Read back as RESULTS, all of them. */
    assert_int_equal(records_read_as(log, SWEEP_RECORD_RESULTS), answers + results);

    /* The ANSWER twice: no request waits for the second. */
    size_t nlen = len + 5 + alen;
    uint8_t *nb = malloc(nlen);
    assert_non_null(nb);
    memcpy(nb, buf, at + 5 + alen);
    memcpy(nb + at + 5 + alen, buf + at, 5 + alen);
    memcpy(nb + at + 10 + 2 * (size_t)alen, buf + at + 5 + alen, len - (at + 5 + alen));
    sweep__wr32(nb + start, body + 5 + alen);
    fix_crc(nb, start, body + 5 + alen);
    scratch("answer-bad.sweeplog", out, sizeof out);
    write_all(out, nb, nlen);
    free(nb);
    snprintf(want, sizeof want, "byte %zu (ANSWER)", at + 5 + alen);
    corrupt_at_both_depths(out, want, "no request before it waits");
    /* The same log said to be of version 6, which has none. */
    buf[8] = 6;
    write_all(out, buf, len);
    free(buf);
    corrupt_at_both_depths(out, "ANSWER in a version 6 log", "ANSWER in a version 6 log");
}

/* sweep-replay --core: the depth in the text and the JSON, its exit
 * statuses, and a log it cannot take. */
static void cli_core_depth(void **state)
{
    (void)state;
    char log[1200], cmd[8192], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --core --json", g_bin,
             golden("cheats", log, sizeof log), g_map);
    int rc = fx_run(cmd, &out);
    if (rc != 0 || !strstr(out, "\"ok\":true") || !strstr(out, "\"depth\":\"core\"") ||
        !strstr(out, "\"hashes\":0") || !strstr(out, "\"refused\":"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --json", g_bin, log, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 0 || !strstr(out, "\"depth\":\"full\""))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --core --map %s", g_bin, log, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 0 || !strstr(out, "replay ok (core depth)"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);

    /* A divergence: exit 1, the field named, the depth said. */
    char changed[400];
    target t;
    size_t frame_at = 0;
    find_result(golden("walking", log, sizeof log), &t);
    tamper(log, &t, 1, scratch("cli-core-changed.sweeplog", changed, sizeof changed), &frame_at);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --core --json", g_bin, changed, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 1 || !strstr(out, "\"ok\":false") || !strstr(out, "\"depth\":\"core\"") ||
        !strstr(out, "\"field\":\"MoveResult.position.x\""))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --core", g_bin, changed, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 1 || !strstr(out, "divergence at tick") || !strstr(out, "MoveResult.position.x") ||
        !strstr(out, "core depth"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);

    /* Players blocking: exit 2, saying why and what to use instead. */
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --core", g_bin, golden("movers", log, sizeof log), g_map);
    rc = fx_run(cmd, &out);
    if (rc != 2 || !strstr(out, "--players-block on") || !strstr(out, "use the full replay"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/sweep-replay %s --map %s --core --json", g_bin, log, g_map);
    rc = fx_run(cmd, &out);
    if (rc != 2 || !strstr(out, "\"ok\":false") || !strstr(out, "\"depth\":\"core\"") ||
        !strstr(out, "--players-block on"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);

    snprintf(cmd, sizeof cmd, "%s/sweep-replay --help", g_bin);
    rc = fx_run(cmd, &out);
    if (rc != 0 || !strstr(out, "--core"))
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    free(out);
}

/* ---- a log that goes bad, read with and without its checksums ahead --------- */

/* Every record of a segment through the read-ahead, as (type, offset)
 * pairs, and how it ended. */
/* The records of a log as sweep_record_next gives them (type and offset
 * of each), and how it ends. */
typedef struct read_trace {
    uint64_t *items;
    size_t count;
    int rc;
    char err[1200];
} read_trace;

/* ahead: 1 or 2 the checksums summed ahead (2: the thread given a head
 * start), -1 the log streamed instead of mapped. */
static void trace_read(const char *path, int ahead, read_trace *t)
{
    char err[1400];
    memset(t, 0, sizeof *t);
    sweep_record_reader *rd = ahead < 0 ? sweep_record_open_stream(path, err, sizeof err)
                                        : sweep_record_open(path, err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    if (ahead > 0) {
        assert_int_equal(sweep_record_check_ahead(rd), sweep__record_cpus() > 1);
        /* Sometimes ahead of the reader, sometimes behind it. */
        if (ahead == 2)
            usleep(20000);
    }
    size_t cap = 0;
    sweep_record x;
    while ((t->rc = sweep_record_next(rd, &x, t->err, sizeof t->err)) == 1) {
        if (t->count + 2 > cap) {
            cap = cap ? 2 * cap : 1024;
            t->items = realloc(t->items, cap * sizeof *t->items);
            assert_non_null(t->items);
        }
        t->items[t->count++] = x.type;
        t->items[t->count++] = x.offset;
        sweep_record_release(rd, UINT64_MAX);
    }
    sweep_record_close(rd);
}

/* Replays a log that goes bad; err is the error, or the divergence's
 * text. */
static void replay_until_bad(const char *path, unsigned flags, sweep_replay_stats *st, char *err, size_t errlen)
{
    char e[1400];
    sweep_replay *r = sweep_replay_open_flags(path, g_map, flags, e, sizeof e);
    if (!r)
        fail_msg("%s: %s", path, e);
    assert_int_equal(sweep_replay_run(r), -1);
    const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
    snprintf(err, errlen, "%s", d ? d->text : sweep_replay_error(r));
    *st = *sweep_replay_stats_of(r);
    sweep_replay_close(r);
}

/* A log that goes bad in its last frame (a checksum that fails, a record
 * running past its frame, a message that does not decode, the last two
 * under a checksum made right): the reader gives the records up to there
 * and names the place, the same with the checksums checked ahead on a
 * second thread (sweep_record_check_ahead: the replays use it), whether
 * that thread is ahead or behind; both depths stop there alike. */
static void replays_stop_where_the_log_goes_bad(void **state)
{
    (void)state;
    char log[1200], out[400];
    size_t len;
    uint8_t *orig = read_all(golden("walking", log, sizeof log), &len);
    assert_non_null(orig);
    size_t last = 0;
    uint32_t body = 0;
    last_frame(orig, len, &last, &body);
    size_t first_rec = last + SWEEP_RECORD_FRAME_HEADER;
    /* The last frame's first OUT record. */
    size_t out_at = 0;
    for (size_t at = first_rec; at + 5 <= first_rec + body; at += 5 + le32(orig + at + 1)) {
        if (orig[at] == SWEEP_RECORD_OUT) {
            out_at = at;
            break;
        }
    }
    assert_true(out_at > 0);
    scratch("bad.sweeplog", out, sizeof out);
    const char *want[3] = {"checksum", "runs past the end of its frame", "does not decode"};
    for (int kind = 0; kind < 3; kind++) {
        uint8_t *buf = malloc(len);
        assert_non_null(buf);
        memcpy(buf, orig, len);
        char where[64];
        if (kind == 0) {
            buf[first_rec + body / 2] ^= 0x10;
            snprintf(where, sizeof where, "frame at byte %zu ", last);
        } else if (kind == 1) {
            buf[first_rec + 1] = (uint8_t)body; /* its length: the whole frame, and the header past it */
            buf[first_rec + 2] = (uint8_t)(body >> 8);
            buf[first_rec + 3] = (uint8_t)(body >> 16);
            buf[first_rec + 4] = (uint8_t)(body >> 24);
            fix_crc(buf, last, body);
            snprintf(where, sizeof where, "record at byte %zu ", first_rec);
        } else {
            /* The message after the session: neither a size prefix nor a
             * root offset that holds. */
            memset(buf + out_at + 5 + 8, 0xff, le32(buf + out_at + 1) - 8);
            fix_crc(buf, last, body);
            snprintf(where, sizeof where, "byte %zu: ", out_at);
        }
        write_all(out, buf, len);
        free(buf);

        read_trace tr, tr_ahead[3];
        trace_read(out, 0, &tr);
        assert_true(tr.count > 100);
        /* Checksums checked ahead on a second thread change nothing, nor
         * does reading the log streamed. */
        for (int a = 0; a < 3; a++) {
            trace_read(out, a < 2 ? a + 1 : -1, &tr_ahead[a]);
            assert_int_equal(tr_ahead[a].rc, tr.rc);
            assert_string_equal(tr_ahead[a].err, tr.err);
            assert_int_equal(tr_ahead[a].count, tr.count);
            assert_memory_equal(tr_ahead[a].items, tr.items, tr.count * sizeof *tr.items);
            free(tr_ahead[a].items);
        }
        if (kind < 2) {
            assert_int_equal(tr.rc, -1);
            if (!strstr(tr.err, where) || !strstr(tr.err, want[kind]))
                fail_msg("reader error '%s' does not say '%s' and '%s'", tr.err, where, want[kind]);
        } else {
            assert_int_equal(tr.rc, 0); /* the records are whole; the message is what is bad */
        }
        free(tr.items);

        /* Replays: the core depth and the full depth stop at the same
         * place, naming it. */
        char e_core[2100], e_full[2100];
        sweep_replay_stats s_core, s_full;
        replay_until_bad(out, SWEEP_REPLAY_CORE, &s_core, e_core, sizeof e_core);
        replay_until_bad(out, 0, &s_full, e_full, sizeof e_full);
        if (strstr(e_core, "divergence") || !strstr(e_core, where) || !strstr(e_core, want[kind]))
            fail_msg("core replay error '%s' does not say '%s' and '%s'", e_core, where, want[kind]);
        assert_true(s_core.moves > 0);
        /* Corruption, not a made-up divergence: the full depth fails
         * reading alike; it compares the recorded answer as bytes and
         * never decodes it, so there the garbled one differs from the
         * server's. */
        assert_int_equal(s_full.ticks, s_core.ticks);
        if (kind < 2)
            assert_string_equal(e_full, e_core);
        else if (!strstr(e_full, "divergence at tick") || !strstr(e_full, "message bytes"))
            fail_msg("full replay of a garbled answer: '%s'", e_full);
    }
    free(orig);
}

/* A log many of a streamed reader's buffers long, from the walking golden
 * log: its header and HEAD frame, then its other frames over and over,
 * with one frame in the middle made of many (longer than any buffer the
 * reader starts with), and, when `cut` is given, cut that many bytes into
 * its last frame. Whole records in whole frames: readers take it, though
 * no replay would. */
static void long_log(const char *out, size_t cut)
{
    char gl[1200];
    size_t len;
    uint8_t *g = read_all(golden("walking", gl, sizeof gl), &len);
    assert_non_null(g);
    size_t rest = SWEEP_RECORD_HEADER_SIZE + SWEEP_RECORD_FRAME_HEADER + le32(g + SWEEP_RECORD_HEADER_SIZE);
    size_t cap = rest + 24 * len, n = rest;
    uint8_t *b = malloc(cap);
    assert_non_null(b);
    memcpy(b, g, rest);
    for (int copy = 0; copy < 16; copy++) {
        if (copy == 8) {
            /* Every frame body of the copy, and of the two after it, in one. */
            size_t big = n;
            n += SWEEP_RECORD_FRAME_HEADER;
            for (int k = 0; k < 3; k++)
                for (size_t at = rest; at < len; at += SWEEP_RECORD_FRAME_HEADER + le32(g + at)) {
                    uint32_t body = le32(g + at);
                    memcpy(b + n, g + at + SWEEP_RECORD_FRAME_HEADER, body);
                    n += body;
                }
            uint32_t body = (uint32_t)(n - big - SWEEP_RECORD_FRAME_HEADER);
            assert_true(body > (192u << 10));
            for (int i = 0; i < 4; i++)
                b[big + i] = (uint8_t)(body >> (8 * i));
            fix_crc(b, big, body);
        }
        memcpy(b + n, g + rest, len - rest);
        n += len - rest;
    }
    assert_true(n <= cap && n > (1u << 20));
    write_all(out, b, n - cut);
    free(b);
    free(g);
}

/* One record of each reader, the same in every field its type sets and
 * in every byte its pointers show. */
static void same_record(const sweep_record *a, const sweep_record *b)
{
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->offset, b->offset);
    switch (a->type) {
    case SWEEP_RECORD_TICK:
        assert_int_equal(a->tick, b->tick);
        break;
    case SWEEP_RECORD_HASH:
        assert_int_equal(a->tick, b->tick);
        assert_int_equal(a->hash, b->hash);
        break;
    case SWEEP_RECORD_ID:
        assert_int_equal(a->entity, b->entity);
        break;
    case SWEEP_RECORD_OPEN:
    case SWEEP_RECORD_CLOSE:
    case SWEEP_RECORD_END:
        assert_int_equal(a->text.len, b->text.len);
        assert_memory_equal(a->text.ptr, b->text.ptr, a->text.len);
        break;
    default:
        assert_int_equal(a->session, b->session);
        assert_int_equal(a->bytes.len, b->bytes.len);
        assert_memory_equal(a->bytes.ptr, b->bytes.ptr, a->bytes.len);
        assert_ptr_not_equal(a->bytes.ptr, b->bytes.ptr);
        break;
    }
}

/* A log streamed into buffers reads as the same log mapped: every record
 * (its bytes included) and the HEAD, whether the caller lets go of each
 * record as it goes (its buffers then stay a few, however long the log),
 * holds every one to the end, or holds the last few; and a torn tail is
 * found at the same byte. */
static void a_streamed_log_reads_as_a_mapped_one(void **state)
{
    (void)state;
    char out[400], err[1400], e2[1400];
    scratch("long.sweeplog", out, sizeof out);
    for (size_t cut = 0; cut <= 1000; cut += 1000) {
        long_log(out, cut);
        for (int hold = 0; hold < 3; hold++) {
            sweep_record_reader *m = sweep_record_open(out, err, sizeof err);
            sweep_record_reader *st = sweep_record_open_stream(out, e2, sizeof e2);
            assert_non_null(m);
            assert_non_null(st);
            const sweep_record_head *hm = sweep_record_head_of(m), *hs = sweep_record_head_of(st);
            assert_int_equal(hm->map_path.len, hs->map_path.len);
            assert_memory_equal(hm->map_path.ptr, hs->map_path.ptr, hm->map_path.len);
            assert_memory_equal(hm->content_hash, hs->content_hash, 32);
            size_t cap = 1u << 16, count = 0, most = 0;
            sweep_record *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
            assert_non_null(a);
            assert_non_null(b);
            int ra, rb;
            for (;;) {
                assert_true(count < cap);
                ra = sweep_record_next(m, &a[count], err, sizeof err);
                rb = sweep_record_next(st, &b[count], e2, sizeof e2);
                assert_int_equal(ra, rb);
                if (ra != 1)
                    break;
                same_record(&a[count], &b[count]);
                count++;
                /* hold 0: nothing kept; 1: everything; 2: the last 40. */
                if (hold == 0)
                    sweep_record_release(st, UINT64_MAX);
                else if (hold == 2 && count > 40)
                    sweep_record_release(st, b[count - 40].offset);
                if (hold == 2 && count > 40)
                    for (size_t k = count - 40; k < count; k += 13)
                        same_record(&a[k], &b[k]);
                size_t now = sweep__record_buffered(st);
                most = now > most ? now : most;
            }
            assert_int_equal(ra, 0);
            assert_true(count > 5000);
            if (hold == 1)
                for (size_t k = 0; k < count; k++)
                    same_record(&a[k], &b[k]);
            else /* the first three buffers and the one the long frame took */
                assert_true(most <= (4u << 17) + (1u << 20));
            uint64_t tm = 0, ts = 0;
            assert_int_equal(sweep_record_truncated(m, &tm), cut != 0);
            assert_int_equal(sweep_record_truncated(st, &ts), cut != 0);
            assert_int_equal(tm, ts);
            assert_int_equal(sweep__record_buffered(m), 0);
            assert_int_equal(sweep_record_check_ahead(st), 0);
            free(a);
            free(b);
            sweep_record_close(m);
            sweep_record_close(st);
        }
    }
}

/* ---- the lean loop ------------------------------------------------------------ */

/* How a replay at the core depth went, step by step. */
typedef struct outcome {
    int rc;
    uint64_t steps, tick, events;
    sweep_replay_stats st;
    int diverged;
    sweep_replay_divergence div;
    char err[1400];
} outcome;

static void count_event(void *ctx, const sweep_replay_event *ev)
{
    (void)ev;
    (*(uint64_t *)ctx)++;
}

/* A watched replay never takes the core depth's lean loop for version 2
 * logs (replay.c): its requests all go the general way. */
static void core_outcome(const char *log, int watched, outcome *o)
{
    char e[1400];
    memset(o, 0, sizeof *o);
    sweep_replay *r = sweep_replay_open_flags(log, g_map, SWEEP_REPLAY_CORE, e, sizeof e);
    if (!r)
        fail_msg("%s: %s", log, e);
    if (watched)
        sweep_replay_watch(r, count_event, &o->events);
    while ((o->rc = sweep_replay_step(r)) == 1)
        o->steps++;
    o->tick = sweep_replay_tick(r);
    o->st = *sweep_replay_stats_of(r);
    const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
    if (d) {
        o->diverged = 1;
        o->div = *d;
    }
    snprintf(o->err, sizeof o->err, "%s", sweep_replay_error(r));
    sweep_replay_close(r);
}

/* The same log through the lean loop and the general path: the same
 * steps, counts, end, divergence (every field) and error. */
static void lean_matches_general(const char *log, const char *what, outcome *lean)
{
    outcome gen;
    core_outcome(log, 0, lean);
    core_outcome(log, 1, &gen);
    if (lean->rc != gen.rc || strcmp(lean->err, gen.err) != 0 || lean->diverged != gen.diverged ||
        strcmp(lean->div.text, gen.div.text) != 0)
        fail_msg("%s: lean %d '%s' '%s', general %d '%s' '%s'", what, lean->rc, lean->err, lean->div.text, gen.rc,
                 gen.err, gen.div.text);
    assert_true(gen.events > 0);
    assert_int_equal(lean->steps, gen.steps);
    assert_int_equal(lean->tick, gen.tick);
    const sweep_replay_stats *a = &lean->st, *b = &gen.st;
    assert_int_equal(a->ticks, b->ticks);
    assert_int_equal(a->sessions, b->sessions);
    assert_int_equal(a->requests, b->requests);
    assert_int_equal(a->moves, b->moves);
    assert_int_equal(a->outputs, b->outputs);
    assert_int_equal(a->hashes, b->hashes);
    assert_int_equal(a->bytes, b->bytes);
    assert_int_equal(a->segments, b->segments);
    assert_int_equal(a->truncated, b->truncated);
    assert_int_equal(a->ended, b->ended);
    assert_int_equal(a->refused, b->refused);
    if (lean->diverged) {
        const sweep_replay_divergence *x = &lean->div, *y = &gen.div;
        assert_int_equal(x->tick, y->tick);
        assert_int_equal(x->session, y->session);
        assert_int_equal(x->entity, y->entity);
        assert_int_equal(x->offset, y->offset);
        assert_string_equal(x->file, y->file);
        assert_string_equal(x->field, y->field);
        assert_string_equal(x->recorded, y->recorded);
        assert_string_equal(x->replayed, y->replayed);
    }
}

/* The record after the n-th MOVE of a log, and the first OUT after it
 * (the answer): their offsets and lengths. */
static void find_answer(const char *log, unsigned nth, uint64_t *move_at, uint64_t *out_at, uint32_t *out_len,
                        uint8_t *out_type)
{
    char err[1400];
    sweep_record_reader *r = sweep_record_open(log, err, sizeof err);
    if (!r)
        fail_msg("%s", err);
    sweep_record x;
    int moves = 0, found = 0;
    while (!found && sweep_record_next(r, &x, err, sizeof err) == 1) {
        if (x.type == SWEEP_RECORD_MOVE && moves++ == (int)nth)
            *move_at = x.offset;
        else if ((x.type == SWEEP_RECORD_OUT || x.type == SWEEP_RECORD_RESULTS) && moves > (int)nth) {
            /* as written: an OUT, a RESULTS or an ANSWER */
            *out_at = x.offset;
            *out_type = type_in_file(log, x.offset, out_len);
            found = 1;
        }
    }
    sweep_record_close(r);
    assert_true(found);
}

/* The logs the lean-loop tests run over: the raw one, and the two a
 * recording server left when SIGKILLed (the killed-0 and killed-2 cases). */
static void whole_and_killed_logs(char raw[600], char killed[2][600], const char *logs[3])
{
    raw_log(raw, 600);
    needs("killed-0", killed_server_log_replays);
    for (int i = 0; i < 2; i++) {
        char rec[400], names[4][512];
        scratch(i ? "killed-2/rec" : "killed-0/rec", rec, sizeof rec);
        assert_int_equal(logs_in(rec, names, 4), 1);
        snprintf(killed[i], 600, "%s", names[0]);
    }
    logs[0] = raw, logs[1] = killed[0], logs[2] = killed[1];
}

/* The core depth of a version 2 log runs most requests in a lean loop
 * that reads their records in place (replay_impl.h) and leaves anything
 * uncommon to the general path, which a watched replay takes for every
 * request: both must say the same of whole logs (spawns, Errors, riders,
 * a commanded door, Fly and Noclip moves, a log cut by SIGKILL, a log in
 * segments), of a MOVE's output or input changed (a divergence, named on
 * the MOVE or on the answer), of a garbled answer, and of a log cut in
 * the middle. */
static void lean_loop_cases(const char *rotated)
{
    char raw[600], killed[2][600], out[400], what[700];
    const char *logs[3];
    whole_and_killed_logs(raw, killed, logs);
    scratch("lean.sweeplog", out, sizeof out);
    /* The rotated log (below): from segment 0 through segment 1, stopping
     * where segment 2 is missing. */
    {
        outcome o;
        lean_matches_general(rotated, "rotated", &o);
        assert_int_equal(o.rc, -1);
        assert_int_equal(o.st.segments, 2);
        assert_non_null(strstr(o.err, "next segment"));
    }
    for (int l = 0; l < 3; l++) {
        outcome o;
        lean_matches_general(logs[l], logs[l], &o);
        assert_int_equal(o.rc, 0);
        assert_true(o.st.moves > 20);
        uint64_t moves = o.st.moves;
        for (unsigned k = 0; k < 3; k++) {
            unsigned nth = (unsigned)(moves * (k + 1) / 4);
            uint64_t move_at = 0, out_at = 0;
            uint32_t out_len = 0;
            uint8_t out_type = 0;
            find_answer(logs[l], nth, &move_at, &out_at, &out_len, &out_type);
            /* The output (position.x), then the input (wish.x's exponent). */
            for (int input = 0; input < 2; input++) {
                flip(logs[l], (size_t)move_at + 5 + (input ? 16 + 7 : 56), input ? 0x40 : 0x01, out);
                snprintf(what, sizeof what, "%s: MOVE %u's %s changed", logs[l], nth, input ? "wish" : "position");
                lean_matches_general(out, what, &o);
                /* A wish changed need not change anything (a Walk move
                 * granted no time runs nothing); a position always does. */
                if (!input && !o.diverged)
                    fail_msg("%s: no divergence (%d, '%s')", what, o.rc, o.err);
                /* An input changed is named on the answer, but a RESULTS
                 * (version 5) holds no core field: on the MOVE. */
                if (o.diverged)
                    assert_int_equal(o.div.offset, input && out_type == SWEEP_RECORD_OUT ? out_at : move_at);
            }
            /* The answer garbled under a checksum made right. */
            size_t len, start;
            uint32_t body;
            uint8_t *buf = read_all(logs[l], &len);
            assert_non_null(buf);
            assert_int_equal(frame_holding(buf, len, (size_t)out_at, &start, &body), 0);
            /* From an OUT's message or a RESULTS's kind, an ANSWER's mask. */
            size_t from = out_type == SWEEP_RECORD_ANSWER ? 4 : 8;
            assert_true(out_len > from);
            memset(buf + out_at + 5 + from, 0xff, out_len - from);
            fix_crc(buf, start, body);
            write_all(out, buf, len);
            snprintf(what, sizeof what, "%s: the answer to MOVE %u garbled", logs[l], nth);
            lean_matches_general(out, what, &o);
            assert_false(o.diverged);
            /* A RESULTS record's layout is the reader's to check. */
            assert_non_null(strstr(o.err, out_type == SWEEP_RECORD_RESULTS  ? "(RESULTS)"
                                          : out_type == SWEEP_RECORD_ANSWER ? "(ANSWER)"
                                                                            : "does not decode"));
            /* Cut there: a torn last frame. */
            write_all(out, buf, (size_t)out_at);
            free(buf);
            snprintf(what, sizeof what, "%s: cut at the answer to MOVE %u", logs[l], nth);
            lean_matches_general(out, what, &o);
            assert_int_equal(o.rc, 0);
            assert_true(o.st.truncated);
            assert_true(o.st.moves > 0 && o.st.moves < moves);
        }
    }
}

/* As above, with the CPUs the tests have (on two or more, the lean loop
 * takes the groups the thread planned when it has them) and pinned to one
 * (no thread, no plans: the lean loop scans every group itself). */
static void lean_loop_matches_general_path(void **state)
{
    (void)state;
    /* A log rotated into segments, as rotated_log_follows_its_segments
     * left it (its segment 1 moved away, the third renamed in its place):
     * segment 1 put back. */
    char rot[400], seg[64][512], away[600];
    needs("rotated", rotated_log_follows_its_segments);
    scratch("rotated", rot, sizeof rot);
    int n = logs_in(rot, seg, 64);
    assert_true(n >= 2);
    snprintf(away, sizeof away, "%s.away", seg[1]);
    assert_int_equal(rename(away, seg[1]), 0);
    lean_loop_cases(seg[0]);
    cpu_set_t saved;
    if (one_cpu(&saved)) {
        lean_loop_cases(seg[0]);
        all_cpus(&saved);
    }
}

/* The lean groups the thread reading ahead finds (sweep__record_plan_ahead)
 * are the ones the lean loop would find itself, IN record by IN record,
 * on whole logs and on logs cut by SIGKILL: the group's end and its
 * framings, a group that is not lean (a spawn, an Error) included. */
static void planned_groups_cases(void)
{
    char raw[600], killed[2][600];
    const char *logs[3];
    whole_and_killed_logs(raw, killed, logs);
    for (int l = 0; l < 3; l++) {
        char err[1400];
        sweep_record_reader *rd = sweep_record_open(logs[l], err, sizeof err);
        if (!rd)
            fail_msg("%s", err);
        assert_true(sweep_record_head_of(rd)->version >= 2);
        int two = sweep__record_cpus() > 1;
        assert_int_equal(sweep__record_plan_ahead(rd), two);
        int ahead = sweep_record_check_ahead(rd);
        assert_int_equal(ahead, two);
        sweep__record_ahead_wait(rd);
        if (!ahead)
            assert_null(sweep__record_plan_queue(rd));
        sweep_record x;
        unsigned lean = 0, other = 0, pairs = 0;
        while (sweep_record_next(rd, &x, err, sizeof err) == 1) {
            if (x.type != SWEEP_RECORD_IN)
                continue;
            size_t at, end, group_end = 0;
            unsigned ok = 0, planned_ok = 99;
            uint32_t count;
            const uint8_t *d = sweep__record_window(rd, &at, &end);
            uint32_t version = sweep_record_head_of(rd)->version;
            unsigned kinds = SWEEP__LEAN_TCP | SWEEP__LEAN_UDP | (version >= 5 ? SWEEP__LEAN_RESULTS : 0) |
                             (sweep__record_move_compact_in(version) ? SWEEP__LEAN_COMPACT : 0) |
                             (version >= 7 ? SWEEP__LEAN_ANSWER : 0);
            size_t want = sweep__record_lean_group(d, at, end, x.session, kinds, &ok, &count);
            /* The straight-line test of a MOVE and its RESULTS says what
             * the scan says, wherever it says anything. */
            size_t pair = sweep__record_lean_pair(d, at, end, x.session, kinds);
            if (pair) {
                assert_int_equal(pair, want);
                assert_int_equal(ok, kinds);
                assert_int_equal(count, 2);
                pairs++;
            }
            if (!ahead)
                continue;
            sweep__plan_queue *q = sweep__record_plan_queue(rd);
            assert_non_null(q);
            int planned = sweep__record_planned(q, (size_t)x.offset, &group_end, &planned_ok);
            if (!planned)
                fail_msg("%s: the IN at byte %" PRIu64 " was not planned", logs[l], x.offset);
            assert_int_equal(group_end, want);
            assert_int_equal(planned_ok, want ? ok : 0);
            if (want && ok)
                lean++;
            else
                other++;
        }
        if (ahead)
            assert_true(lean > 20 && other > 0);
        if (sweep_record_head_of(rd)->version >= 5)
            assert_true(pairs > 20);
        sweep_record_close(rd);
    }
}

/* The lean groups planned with the CPUs the tests have, and none when
 * pinned to one CPU (no thread, no queue: sweep__record_cpus). */
static void planned_groups_match_the_lean_scan(void **state)
{
    (void)state;
    planned_groups_cases();
    cpu_set_t saved;
    if (one_cpu(&saved)) {
        planned_groups_cases();
        all_cpus(&saved);
    }
}

/* The inline test of a RESULTS payload takes what the full check takes
 * and no more: one result naming movers (its flags beside or not), with
 * every count of movers and every length near the right one, among other
 * fields and other counts of results. */
static void results_ok_agrees_with_the_check(void **state)
{
    (void)state;
    static const uint32_t masks[] = {
        0,
        SWEEP__RESULTS_CORRECTED,
        SWEEP__RESULTS_MOVERS,
        SWEEP__RESULTS_MOVERS | SWEEP__RESULTS_CORRECTED,
        SWEEP__RESULTS_MOVERS | SWEEP__RESULTS_TELEPORT_BLOCKED,
        SWEEP__RESULTS_MOVERS | SWEEP__RESULTS_RULES,
        SWEEP__RESULTS_MOVERS | SWEEP__RESULTS_TICK,
        SWEEP__RESULTS_MOVERS | 1u << 21,
        SWEEP__RESULTS_RULES,
    };
    unsigned taken_movers = 0, checked = 0;
    for (uint32_t kind = 0; kind < 2; kind++) {
        for (uint32_t count = 1; count <= 2; count++) {
            for (unsigned m = 0; m < sizeof masks / sizeof masks[0]; m++) {
                for (uint32_t movers = 0; movers <= SWEEP_MAX_CONTACTS + 1; movers++) {
                    uint8_t p[512];
                    memset(p, 0, sizeof p);
                    sweep__wr64(p, 7);
                    sweep__wr32(p + 8, kind);
                    sweep__wr32(p + 24, count);
                    size_t at = SWEEP__RESULTS_FIXED;
                    for (uint32_t i = 0; i < count; i++) {
                        sweep__wr32(p + at, masks[m]);
                        at += 4;
                        at += (masks[m] & SWEEP__RESULTS_TICK) ? 8 : 0;
                        at += (masks[m] & SWEEP__RESULTS_RULES) ? 4 : 0;
                        if (masks[m] & SWEEP__RESULTS_MOVERS) {
                            sweep__wr32(p + at, movers);
                            for (uint32_t k = 0; k < movers; k++)
                                sweep__wr32(p + at + 4 + 4 * k, 100 + k);
                            at += 4 + 4 * (size_t)movers;
                        }
                    }
                    for (size_t len = at - 4; len <= at + 4; len += 4) {
                        int ok = sweep__record_results_ok(p, len, 1) != 0;
                        int full = sweep__record_results_check(p, len, 1, NULL, 0) == 0;
                        if (ok != full)
                            fail_msg("kind %u, %u results, mask 0x%x, %u movers, %zu bytes (%zu made): the inline "
                                     "test says %d, the full check %d", kind, count, masks[m], movers, len, at, ok,
                                     full);
                        taken_movers += ok && count == 1 && (masks[m] & SWEEP__RESULTS_MOVERS);
                        checked++;
                    }
                }
            }
        }
    }
    assert_true(checked > 500);
    assert_true(taken_movers >= 2 * 3 * SWEEP_MAX_CONTACTS);
}

/* ---- setup --------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    fx_build("maps/arena.db", g_map, sizeof g_map);
    fx_build("bin", g_bin, sizeof g_bin);
    const char *g = getenv("SWEEP_REPLAY_GOLDEN");
    if (g && *g)
        snprintf(g_golden, sizeof g_golden, "%s", g);
    else
        fx_build("../tests/replay/golden", g_golden, sizeof g_golden);
    char probe[1200];
    if (access(golden("walking", probe, sizeof probe), R_OK) != 0) {
        fprintf(stderr, "test_replay: no golden logs at %s (set SWEEP_REPLAY_GOLDEN)\n", g_golden);
        return -1;
    }
    if (access(g_map, R_OK) != 0) {
        fprintf(stderr, "test_replay: no arena at %s (make builds it)\n", g_map);
        return -1;
    }
    snprintf(g_tmp, sizeof g_tmp, "/tmp/sweep-replay-test-XXXXXX");
    if (!mkdtemp(g_tmp)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (g_tmp[0] && !getenv("SWEEP_TEST_KEEP"))
        rm_tree(g_tmp);
    return 0;
}

/* A Query of n items over TCP or UDP, its whole answer gathered: how many
 * items hit something (RateLimited and other refusals counted apart in
 * *refused, may be NULL). */
static uint32_t asked(int fd, int udp, fx_rx *rx, uint32_t seq, const sweep_msg_query_item *q, uint32_t n,
                      uint32_t *refused)
{
    sweep_message m = fx_msg(SWEEP_MSG_QUERY, seq);
    m.as.query.items = q;
    m.as.query.count = n;
    if (udp)
        assert_true(fx_udp_send(fd, &m) > 0);
    else
        assert_int_equal(fx_send(fd, &m), 0);
    uint32_t got = 0, hit = 0, no = 0;
    while (got < n) {
        if (udp)
            assert_true(fx_udp_recv(fd, rx, &m, 5000) > 0);
        else
            assert_int_equal(fx_recv(fd, rx, &m), 1);
        if (m.kind != SWEEP_MSG_QUERY_RESULT)
            fail_msg("a Query was answered with %s", sweep_msg_kind_name(m.kind));
        assert_int_equal(m.sequence, seq);
        assert_int_equal(m.as.query_result.first, got);
        for (uint32_t k = 0; k < m.as.query_result.count; k++, got++) {
            hit += m.as.query_result.answers[k].hit_count > 0;
            no += m.as.query_result.answers[k].code != SWEEP_WIRE_NONE;
        }
    }
    if (refused)
        *refused = no;
    return hit;
}

/* sweep-replay --svg's picture of a log, through the library: its text
 * (malloc'd, NUL-terminated), written to `svg`. */
static char *picture_of(const char *log, const char *svg, const char *title)
{
    char err[1400];
    sweep_replay *rp = sweep_replay_open(log, g_map, err, sizeof err);
    if (!rp)
        fail_msg("%s", err);
    sweep_replay_plot *pl = sweep_replay_plot_start(rp, 'z');
    assert_non_null(pl);
    assert_int_equal(sweep_replay_plot_run(pl), 0);
    assert_int_equal(sweep_replay_plot_write(pl, svg, title, err, sizeof err), 0);
    sweep_replay_plot_free(pl);
    sweep_replay_close(rp);
    size_t n;
    char *text = (char *)read_all(svg, &n);
    assert_non_null(text);
    text = realloc(text, n + 1);
    assert_non_null(text);
    text[n] = 0;
    return text;
}

/* Queries (a shot at a moving entity at past ticks, rays at the doors,
 * refusals) are recorded with their answers: both depths replay the log,
 * the full one checking every answer bit for bit, and an answer changed in
 * the log is a divergence that names its field. */
static void queries_replay_and_a_changed_answer_diverges(void **state)
{
    (void)state;
    char rec[400];
    scratch("queries", rec, sizeof rec);
    assert_int_equal(mkdir(rec, 0700), 0);
    const char *extra[] = {FX_SERVER_ARGS, "--record", rec, "--record-hash-every", "1", "--query-rate", "30", NULL};
    fx_server d;
    assert_int_equal(fx_start(&d, extra), 0);
    fx_rx *rx = fx_rx_new();
    int player = fx_tcp_connect(d.port), game = fx_tcp_connect(d.port), udp = fx_udp_socket(d.port);
    assert_true(player >= 0 && game >= 0 && udp >= 0);
    assert_true(fx_hello(player, rx) != 0);
    assert_true(fx_hello_token(game, rx, FX_TOKEN) != 0);
    assert_true(fx_udp_handshake(udp, rx) != 0);
    uint32_t e = fx_spawn(player, rx, 2, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    uint32_t g = fx_spawn(game, rx, 2, sweep_v3(-4, -6, 1), sweep_v3(0, 0, 0));
    assert_true(e != 0 && g != 0);
    /* Hit shapes on the target, then it walks along y = -6 while the
     * player shoots across its line at what it saw a few ticks back. */
    sweep_wire_hit_shape shapes[2] = {
        {.id = 1, .kind = SWEEP_WIRE_SHAPE_SPHERE, .a = {0, 0, 0.6}, .radii = {0.2, 0.2, 0.2}},
        {.id = 2, .kind = SWEEP_WIRE_SHAPE_CAPSULE, .a = {0, 0, -0.6}, .b = {0, 0, 0.3}, .radii = {0.3, 0.3, 0.3}},
    };
    sweep_msg_entity_command sh = {.entity = g, .op = SWEEP_WIRE_OP_SET_HIT_SHAPES, .shapes = shapes,
                                   .shape_count = 2};
    assert_int_equal(command(game, 0, rx, 3, &sh, 1), 1);
    uint32_t seq = 4, hits = 0, refused = 0, r = 0;
    for (int i = 0; i < 30; i++, usleep(16000)) {
        sweep_msg_entity_command tp = {.entity = g, .op = SWEEP_WIRE_OP_TELEPORT, .vector = {-4 + 0.25 * i, -6, 1}};
        assert_int_equal(command(game, 0, rx, seq++, &tp, 1), 1);
        sweep_msg_query_item q[3];
        memset(q, 0, sizeof q);
        for (int k = 0; k < 3; k++) {
            q[k].kind = (uint8_t)(k == 2 ? SWEEP_WIRE_QUERY_RAY_ALL : SWEEP_WIRE_QUERY_RAY);
            q[k].from = sweep_v3(-4 + 0.25 * i - 0.3 * k, -12, 1.0 + 0.3 * k);
            q[k].to = sweep_v3(-4 + 0.25 * i - 0.3 * k, -2, 1.0 + 0.3 * k);
        }
        /* A past fraction of the tick the player names (the newest tick
         * is not known here: tick 0 is the newest; i > 5: 5 back). */
        q[1].from_entity = e;
        q[1].from = sweep_v3(0, 0, 0.5);
        hits += asked(player, 0, rx, seq++, q, 3, &r);
        refused += r;
    }
    /* The doors through the partition and the entities, over UDP too, and a
     * Sweep and an Overlap for the game server. */
    sweep_msg_query_item doors[4];
    memset(doors, 0, sizeof doors);
    doors[0].kind = SWEEP_WIRE_QUERY_LINE_OF_SIGHT;
    doors[0].from = sweep_v3(27, -6.25, 1);
    doors[0].to = sweep_v3(31, -6.25, 1);
    doors[1].kind = SWEEP_WIRE_QUERY_SWEEP;
    doors[1].from = sweep_v3(27, 5.6, 1);
    doors[1].to = sweep_v3(31, 5.6, 1);
    doors[1].radii = sweep_v3(0.3, 0.3, 0.3);
    doors[2].kind = SWEEP_WIRE_QUERY_OVERLAP;
    doors[2].from = sweep_v3(0, -6, 1);
    doors[2].radius = 8;
    doors[3].kind = SWEEP_WIRE_QUERY_RAY_ALL;
    doors[3].from = sweep_v3(-0.5, -40, 0.5);
    doors[3].to = sweep_v3(-0.5, 40, 0.5);
    doors[3].filter = 1 | 8;
    hits += asked(udp, 1, rx, 1000, doors, 4, NULL);
    hits += asked(game, 0, rx, seq++, doors, 4, NULL);
    close(player);
    close(game);
    close(udp);
    free(rx);
    assert_int_equal(fx_stop(&d), 0);
    assert_true(hits > 20);
    char logs[2][512];
    assert_int_equal(logs_in(rec, logs, 2), 1);
    sweep_replay_stats full, core;
    tally tf, tc;
    replay_ok(logs[0], g_map, &full, &tf);
    replay_at(logs[0], g_map, SWEEP_REPLAY_CORE, &core, &tc);
    assert_int_equal(core.requests, full.requests);
    assert_true(full.requests >= 30 * 2 + 3 + 2);
    /* --svg draws the shots and marks their hits, the target's by id. */
    {
        char svg[512];
        scratch("queries.svg", svg, sizeof svg);
        char *text = picture_of(logs[0], svg, "queries");
        assert_non_null(strstr(text, ">shots</text>"));
        assert_null(strstr(text, "shot hits: 0<"));
        char want[96];
        snprintf(want, sizeof want, ": entity %u, shape ", g);
        assert_non_null(strstr(text, want));
        /* ... and where the target stood at the asked time. */
        snprintf(want, sizeof want, ">entity %u at tick ", g);
        assert_non_null(strstr(text, want));
        assert_non_null(strstr(text, "targets where they were: "));
        free(text);
    }
    /* A bit of each QueryResult's last hit changed: the full depth names
     * the answer's field. */
    char err[1400], out[512];
    scratch("query-bit.sweeplog", out, sizeof out);
    sweep_record_reader *rd = sweep_record_open(logs[0], err, sizeof err);
    if (!rd)
        fail_msg("%s", err);
    uint64_t offsets[64];
    uint32_t lens[64], n = 0;
    sweep_record x;
    while (sweep_record_next(rd, &x, err, sizeof err) == 1 && n < 64) {
        sweep_msg_kind kind;
        uint32_t s;
        /* Only an OUT record sets x.bytes (the reader leaves the rest). */
        if (x.type != SWEEP_RECORD_OUT)
            continue;
        unsigned fl = x.bytes.len > 8 && memcmp(x.bytes.ptr + 4, "SWP1", 4) != 0 ? SWEEP_WIRE_SIZE_PREFIXED : 0;
        if (sweep_decode_kind(x.bytes.ptr, x.bytes.len, fl, &kind, &s) == 0 &&
            kind == SWEEP_MSG_QUERY_RESULT && x.bytes.len > 600) {
            offsets[n] = x.offset;
            lens[n++] = x.bytes.len;
        }
    }
    sweep_record_close(rd);
    assert_true(n >= 2);
    size_t len;
    uint8_t *orig = read_all(logs[0], &len);
    uint8_t *buf = malloc(len);
    assert_non_null(orig);
    assert_non_null(buf);
    for (uint32_t i = 0; i < n; i++) {
        /* Past the record's type, length and session: a byte of the last
         * hit's point, 60 bytes before the buffer's end. */
        size_t at = (size_t)offsets[i] + 5 + 8 + lens[i] - 60;
        memcpy(buf, orig, len);
        buf[at] ^= 0x10;
        size_t start = 0;
        uint32_t body = 0;
        assert_int_equal(frame_holding(buf, len, at, &start, &body), 0);
        fix_crc(buf, start, body);
        write_all(out, buf, len);
        sweep_replay *rp = sweep_replay_open(out, g_map, err, sizeof err);
        if (!rp)
            fail_msg("%s", err);
        assert_int_equal(sweep_replay_run(rp), -1);
        const sweep_replay_divergence *dv = sweep_replay_divergence_of(rp);
        if (!dv)
            fail_msg("no divergence but '%s'", sweep_replay_error(rp));
        assert_int_equal(dv->offset, offsets[i]);
        if (!strstr(dv->field, "QueryResult.answers["))
            fail_msg("divergence in '%s'", dv->field);
        sweep_replay_close(rp);
    }
    free(orig);
    free(buf);
}

/* The picture of the cheats' session: each path named by the session,
 * identity and role that spawned it; each corrected claim joined to where
 * the server put it; the legend lists only what the picture holds. */
static void the_picture_names_who_and_what_was_claimed(void **state)
{
    (void)state;
    char log[1200], svg[512];
    golden("cheats", log, sizeof log);
    scratch("cheats.svg", svg, sizeof svg);
    char *text = picture_of(log, svg, "cheats");
    assert_non_null(strstr(text, ": session "));
    assert_non_null(strstr(text, ", Player</text>"));
    assert_non_null(strstr(text, ">claimed, then corrected</text>"));
    assert_non_null(strstr(text, "from its claim ("));
    assert_non_null(strstr(text, "corrections: "));
    assert_null(strstr(text, "crushes: 0"));
    assert_null(strstr(text, "shot hits: 0"));
    assert_null(strstr(text, "falls out of the level: 0"));
    /* Paths of different widths, so coinciding ones all show. */
    assert_non_null(strstr(text, "style=\"stroke-width:1.5\""));
    assert_non_null(strstr(text, "style=\"stroke-width:2.5\""));
    free(text);
}

/* Every call takes a NULL replay, and opening takes a NULL log and
 * nowhere to say why: each answers as replay.h says instead of crashing. */
static void null_replays_and_logs_are_answered(void **state)
{
    (void)state;
    char err[256] = "untouched";
    assert_null(sweep_replay_open(NULL, NULL, err, sizeof err));
    assert_non_null(strstr(err, "NULL"));
    assert_null(sweep_replay_open_flags(NULL, NULL, SWEEP_REPLAY_CORE, NULL, 0));
    assert_null(sweep_replay_open("/nonexistent/sweep.sweeplog", NULL, NULL, 0));
    assert_int_equal(sweep_replay_step(NULL), -1);
    assert_int_equal(sweep_replay_run(NULL), -1);
    assert_null(sweep_replay_divergence_of(NULL));
    assert_non_null(strstr(sweep_replay_error(NULL), "NULL"));
    assert_int_equal(sweep_replay_flags(NULL), 0);
    assert_null(sweep_replay_stats_of(NULL));
    assert_int_equal(sweep_replay_tick(NULL), 0);
    assert_null(sweep_replay_level(NULL));
    double p[3] = {7, 7, 7};
    assert_int_equal(sweep_replay_mover_position(NULL, 0, p), -1);
    assert_int_equal(sweep_replay_entity_at(NULL, 1, 0, 0.0, p), -1);
    assert_true(p[0] == 7 && p[1] == 7 && p[2] == 7);
    unsigned role = 99;
    assert_int_equal(sweep_replay_session_of(NULL, 1, &role, NULL, 0), -1);
    assert_int_equal(role, 99);
    sweep_replay_watch(NULL, NULL, NULL);
    sweep_replay_close(NULL);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_replays_and_logs_are_answered),
        cmocka_unit_test(golden_walking),
        cmocka_unit_test(golden_jumping),
        cmocka_unit_test(golden_movers),
        cmocka_unit_test(golden_cheats),
        cmocka_unit_test(golden_core_depth),
        cmocka_unit_test(golden_players_block_refused_at_core_depth),
        cmocka_unit_test(changed_result_is_a_divergence),
        cmocka_unit_test(core_changed_result_is_a_divergence),
        cmocka_unit_test(any_changed_answer_is_a_divergence),
        cmocka_unit_test(queries_replay_and_a_changed_answer_diverges),
        cmocka_unit_test(bad_checksum_is_corruption),
        cmocka_unit_test(torn_tail_is_truncated),
        cmocka_unit_test(another_map_is_refused),
        cmocka_unit_test(not_a_log_is_refused),
        cmocka_unit_test(killed_server_log_replays),
        cmocka_unit_test(rotated_log_follows_its_segments), cmocka_unit_test(sighup_starts_a_new_segment),
        cmocka_unit_test(seeded_runs_repeat_their_ids),
        cmocka_unit_test(a_moved_map_is_found_by_its_stem),
        cmocka_unit_test(the_picture_names_who_and_what_was_claimed),
        cmocka_unit_test(run_time_worlds_replay),
        cmocka_unit_test(cli_exit_statuses),
        cmocka_unit_test(reanswer_gives_back_what_the_build_answers),
        cmocka_unit_test(reanswer_takes_any_length_but_not_another_kind),
        cmocka_unit_test(entity_caps_by_role_replay),
        cmocka_unit_test(memory_refusal_replays),
        cmocka_unit_test(head_settings_beyond_sweepd_are_refused),
        cmocka_unit_test(a_history_past_the_replays_limit_is_refused),
        cmocka_unit_test(relayed_player_replays),
        cmocka_unit_test(volumes_replay_at_both_depths),
        cmocka_unit_test(liquids_replay_at_both_depths),
        cmocka_unit_test(core_depth_movers_and_raw_moves),
        cmocka_unit_test(corrupt_records_are_named),
        cmocka_unit_test(move_record_changed_is_a_divergence),
        cmocka_unit_test(results_record_changed_is_a_divergence),
        cmocka_unit_test(resent_answers_replay_at_both_depths),
        cmocka_unit_test(core_refused_move_is_a_divergence),
        cmocka_unit_test(bad_move_record_is_corruption),
        cmocka_unit_test(request_patches_read_back_or_are_corruption),
        cmocka_unit_test(answers_read_back_or_are_corruption),
        cmocka_unit_test(cli_core_depth),
        cmocka_unit_test(replays_stop_where_the_log_goes_bad),
        cmocka_unit_test(a_streamed_log_reads_as_a_mapped_one),
        cmocka_unit_test(lean_loop_matches_general_path),
        cmocka_unit_test(entity_commands_replay_at_both_depths),
        cmocka_unit_test(wide_datagrams_replay),
        cmocka_unit_test(jumps_forgiven_after_gaps_replay),
        cmocka_unit_test(jumps_after_a_forgiven_cut_replay),
        cmocka_unit_test(planned_groups_match_the_lean_scan),
        cmocka_unit_test(results_ok_agrees_with_the_check),
        cmocka_unit_test(big_frames_replay_at_the_core_depth_on_one_cpu),
        cmocka_unit_test(segment_chains_go_by_number),
        cmocka_unit_test(a_log_names_no_map_outside_the_folders_searched),
        cmocka_unit_test(nothing_but_one_head_and_nothing_after_the_end),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
