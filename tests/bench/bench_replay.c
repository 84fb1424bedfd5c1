/*
 * bench_replay.c - what a replay costs against the core alone, on the same
 * moves: a session log that sweepd --record wrote is replayed in-process
 * (client-sdk/replay.h: decode, dispatch, moves, ticks and a bit-for-bit
 * comparison of every answer), and the same log's Walk moves are fed to
 * sweep_act directly, each with the exact input the server gave it.
 *
 * The core's inputs come from the log alone: the actor of a move is the
 * entity's previous MoveResult (position, velocity, grounded), or its
 * Spawned position at rest for its first move, with the MoveResult's
 * start_position when a mover moved it in between; the wish is the Move's
 * velocity and jump button; dt is the time the server granted
 * (MoveResult.applied_dt). A move that was granted no time never reaches
 * sweep_act on the server either, and is left out of the core's count.
 *
 * The movers are built as sweepd builds them and ticked in step with the
 * log's TICK records, carrying the entities as they stood after their
 * recorded moves (spawn order, as the server's tick), so each move meets
 * the movers at the poses the server's did. Only the sweep_act calls are
 * timed: all moves between two ticks in one stretch, the ticks and the
 * bookkeeping outside it. With --players-block on, the other players'
 * shells are left out of the space, so moves that touched another player
 * may come out different: the counts printed say how many did.
 *
 * Replay and core runs alternate, so a noisy neighbour hits both alike.
 *
 *   bench_replay LOG [RUNS]      (RUNS default 5; the map is the log's path)
 *   BENCH name=replay map=<stem> moves=<n> moves_per_s=<x> ratio_to_core=<x> bytes_per_move=<x>
 *
 * moves_per_s is the replay's median, ratio_to_core the replay's moves/s
 * over the core's (medians), bytes_per_move the log's size per move.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client-sdk/replay.h"
#include "core/motion.h"
#include "core/mover.h"
#include "maps/content_hash.h"
#include "maps/loader.h"
#include "protocol/decode.h"
#include "server/record.h"

#define MAX_RUNS 99

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "bench_replay: out of memory\n");
        exit(2);
    }
    return q;
}

#define PUSH(arr, count, cap, value)                                                                                  \
    do {                                                                                                              \
        if ((count) == (cap)) {                                                                                       \
            (cap) = (cap) ? 2 * (cap) : 256;                                                                          \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                                                           \
        }                                                                                                             \
        (arr)[(count)++] = (value);                                                                                   \
    } while (0)

/* ---- what the log says, turned into a script of events --------------- */

/* An entity, from its Spawned to its Despawned or its session's CLOSE. */
typedef struct slot {
    uint32_t id;
    uint64_t session;
    int alive;
    sweep_vec3 spawned_at, radii;
    /* While reading the log: its state after its last recorded move. */
    sweep_actor actor;
    int has_last;
    uint32_t last_sequence;
} slot;

/* One applied move. core: a Walk move with time granted, run by sweep_act;
 * otherwise the entity only takes its recorded place. */
typedef struct step {
    uint32_t slot;
    int core;
    sweep_actor actor; /* the input */
    sweep_wish wish;
    double dt;
    int has_start;     /* a mover moved the entity since its previous move */
    sweep_actor recorded; /* the MoveResult */
    int ran;           /* the server ran a motion (ground and touch mover are new) */
    uint32_t ground, touch; /* mover indices after it, SWEEP_NO_MOVER if none */
} step;

enum { EV_STEP, EV_TICK, EV_SPAWN, EV_REMOVE, EV_TRIGGER };

typedef struct event {
    uint32_t kind, arg;
} event;

typedef struct script {
    const sweep_record_head *head;
    sweep_level level;
    sweep_world *world;
    double tick_rate;
    sweep_movers *movers; /* for the triangle -> mover lookup while reading */
    slot *slots;
    uint32_t slot_count, slot_cap;
    step *steps;
    uint32_t step_count, step_cap;
    event *events;
    uint32_t event_count, event_cap;
    uint64_t applied, zero_dt, other_mode, resent;
    /* sessions: id and TCP */
    uint64_t *sess;
    uint8_t *sess_tcp;
    uint32_t sess_count, sess_cap;
} script;

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "bench_replay: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(2);
}

/* The movers as sweepd builds them (server/world.c): the world's tick
 * rate, mover triangles numbered after the static ones. */
static sweep_movers *build_movers(const script *sc)
{
    const sweep_level *lv = &sc->level;
    sweep_mover_desc *d = xrealloc(NULL, (lv->mover_count + 1) * sizeof *d);
    for (uint32_t i = 0; i < lv->mover_count; i++)
        d[i] = sweep_level_mover_desc(lv, i);
    sweep_movers *mv = NULL;
    sweep_status st = sweep_movers_create(d, lv->mover_count, sc->tick_rate, lv->triangle_count, &mv);
    free(d);
    if (st != SWEEP_OK)
        die("cannot build the movers: %s%s", sweep_status_message(st), "");
    return mv;
}

static uint32_t mover_index(const script *sc, uint32_t id)
{
    for (uint32_t i = 0; id && i < sc->level.mover_count; i++)
        if (sc->level.movers[i].id == id)
            return i;
    return SWEEP_NO_MOVER;
}

static slot *find_slot(script *sc, uint32_t id)
{
    for (uint32_t i = sc->slot_count; i-- > 0;)
        if (sc->slots[i].alive && sc->slots[i].id == id)
            return &sc->slots[i];
    return NULL;
}

static int session_tcp(const script *sc, uint64_t id)
{
    for (uint32_t i = 0; i < sc->sess_count; i++)
        if (sc->sess[i] == id)
            return sc->sess_tcp[i];
    return 0;
}

static void event_add(script *sc, uint32_t kind, uint32_t arg)
{
    PUSH(sc->events, sc->event_count, sc->event_cap, ((event){kind, arg}));
}

/* Decoding wants the buffer aligned as it was sent: a copy in 8-byte words. */
typedef struct aligned {
    uint64_t *words;
    size_t cap;
} aligned;

static int decode(const sweep_decoder *dec, aligned *buf, const sweep_record_bytes *b, int tcp, sweep_message *m)
{
    size_t n = ((size_t)b->len + 7) / 8;
    if (n > buf->cap) {
        buf->words = xrealloc(buf->words, n * 8);
        buf->cap = n;
    }
    memcpy(buf->words, b->ptr, b->len);
    return sweep_decode(dec, buf->words, b->len, tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0, m) == SWEEP_PROTO_OK ? 0 : -1;
}

/* One MoveResult answering the request `req` of session `session`. */
static void on_result(script *sc, uint64_t session, const sweep_message *req, const sweep_msg_move_result *r)
{
    slot *e = find_slot(sc, r->entity);
    if (!e || e->session != session)
        return;
    if (e->has_last && r->sequence <= e->last_sequence) {
        sc->resent++; /* a kept answer sent again: nothing was applied */
        return;
    }
    const sweep_msg_move *mv = NULL;
    if (req && req->kind == SWEEP_MSG_MOVE) {
        mv = &req->as.move;
    } else if (req && req->kind == SWEEP_MSG_MOVE_BATCH) {
        for (uint32_t i = 0; i < req->as.move_batch.count && !mv; i++)
            if (req->as.move_batch.moves[i].entity == r->entity && req->as.move_batch.moves[i].sequence == r->sequence)
                mv = &req->as.move_batch.moves[i];
    }
    if (!mv || mv->entity != r->entity || mv->sequence != r->sequence) {
        fprintf(stderr, "bench_replay: a MoveResult (entity %u sequence %u) answers no Move of its request\n",
                r->entity, r->sequence);
        exit(2);
    }
    step s;
    memset(&s, 0, sizeof s);
    s.slot = (uint32_t)(e - sc->slots);
    s.actor = e->actor;
    if (r->has_start_position) {
        s.actor.position = r->start_position;
        s.has_start = 1;
    }
    s.wish.velocity = mv->velocity;
    s.wish.buttons = mv->buttons & SWEEP_WISH_JUMP;
    s.dt = r->applied_dt;
    s.recorded.position = r->position;
    s.recorded.velocity = r->velocity;
    s.recorded.grounded = r->grounded;
    /* As moves.c: Walk runs sweep_act only with time granted; Fly and
     * Noclip always run. */
    s.ran = mv->mode != SWEEP_WIRE_MODE_WALK || r->applied_dt > 0.0;
    s.core = mv->mode == SWEEP_WIRE_MODE_WALK && r->applied_dt > 0.0;
    s.ground = mover_index(sc, r->ground_mover);
    s.touch = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < r->contact_count && s.touch == SWEEP_NO_MOVER; i++)
        s.touch = sweep_movers_of_triangle(sc->movers, r->contacts[i].triangle);
    sc->applied++;
    if (mv->mode != SWEEP_WIRE_MODE_WALK)
        sc->other_mode++;
    else if (!s.core)
        sc->zero_dt++;
    e->actor = s.recorded;
    e->has_last = 1;
    e->last_sequence = r->sequence;
    PUSH(sc->steps, sc->step_count, sc->step_cap, s);
    event_add(sc, EV_STEP, sc->step_count - 1);
}

static void remove_slot(script *sc, slot *e)
{
    e->alive = 0;
    event_add(sc, EV_REMOVE, (uint32_t)(e - sc->slots));
}

/* Reads the whole log into sc (one segment: a rotated log is refused). */
static void read_log(script *sc, sweep_record_reader *rd, const char *path)
{
    uint32_t cap = sc->head->max_frame / 4u + 1u;
    sweep_decoder dec;
    memset(&dec, 0, sizeof dec);
    dec.moves = xrealloc(NULL, cap * sizeof *dec.moves);
    dec.moves_cap = cap;
    dec.results = xrealloc(NULL, cap * sizeof *dec.results);
    dec.results_cap = cap;
    dec.movers = xrealloc(NULL, (sc->level.mover_count + 1) * sizeof *dec.movers);
    dec.movers_cap = sc->level.mover_count + 1;
    aligned in_buf = {0}, out_buf = {0};
    sweep_message req; /* the last IN, decoded; valid while in_buf holds it */
    int has_req = 0;
    uint64_t req_session = 0;
    char err[1400];
    sweep_record x;
    int got;
    while ((got = sweep_record_next(rd, &x, err, sizeof err)) == 1) {
        switch (x.type) {
        case SWEEP_RECORD_OPEN:
            PUSH(sc->sess, sc->sess_count, sc->sess_cap, x.session);
            sc->sess_tcp = xrealloc(sc->sess_tcp, sc->sess_cap);
            sc->sess_tcp[sc->sess_count - 1] = x.transport == 0;
            break;
        case SWEEP_RECORD_CLOSE:
            for (uint32_t i = 0; i < sc->slot_count; i++)
                if (sc->slots[i].alive && sc->slots[i].session == x.session)
                    remove_slot(sc, &sc->slots[i]);
            break;
        case SWEEP_RECORD_IN:
            has_req = decode(&dec, &in_buf, &x.bytes, session_tcp(sc, x.session), &req) == 0;
            req_session = x.session;
            break;
        case SWEEP_RECORD_TICK:
            has_req = 0;
            event_add(sc, EV_TICK, 0);
            break;
        case SWEEP_RECORD_OUT: {
            sweep_message m;
            if (decode(&dec, &out_buf, &x.bytes, session_tcp(sc, x.session), &m) != 0)
                die("%s: an OUT record does not decode%s", path, "");
            const sweep_message *rq = has_req && req_session == x.session ? &req : NULL;
            if (m.kind == SWEEP_MSG_SPAWNED) {
                slot s;
                memset(&s, 0, sizeof s);
                s.id = m.as.spawned.entity;
                s.session = x.session;
                s.alive = 1;
                s.spawned_at = m.as.spawned.position;
                s.radii = m.as.spawned.radii;
                s.actor.position = s.spawned_at; /* at rest, not grounded, as spawn.c leaves it */
                PUSH(sc->slots, sc->slot_count, sc->slot_cap, s);
                event_add(sc, EV_SPAWN, sc->slot_count - 1);
            } else if (m.kind == SWEEP_MSG_DESPAWNED) {
                slot *e = find_slot(sc, m.as.despawned.entity);
                if (e)
                    remove_slot(sc, e);
            } else if (m.kind == SWEEP_MSG_MOVE_RESULT) {
                on_result(sc, x.session, rq, &m.as.move_result);
            } else if (m.kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
                for (uint32_t i = 0; i < m.as.move_result_batch.count; i++)
                    on_result(sc, x.session, rq, &m.as.move_result_batch.results[i]);
            } else if (m.kind == SWEEP_MSG_MOVER_COMMANDED) {
                /* dispatch.c fires the trigger when it answers */
                uint32_t i = mover_index(sc, m.as.mover_commanded.mover);
                if (i != SWEEP_NO_MOVER)
                    event_add(sc, EV_TRIGGER, i);
            }
            break;
        }
        case SWEEP_RECORD_END:
            if (x.text.len == 7 && memcmp(x.text.ptr, "rotated", 7) == 0)
                die("%s: the log goes on in another segment; record a shorter session%s", path, "");
            break;
        default:
            break;
        }
    }
    if (got < 0)
        die("%s%s", err, "");
    free(dec.moves);
    free(dec.results);
    free(dec.movers);
    free(in_buf.words);
    free(out_buf.words);
}

/* ---- the core run ------------------------------------------------------ */

typedef struct core_run {
    double seconds; /* in sweep_act only */
    uint64_t moves;
    uint64_t same_position, same_actor, failed;
    uint64_t starts, same_start; /* mover-moved starts, and those our own ticks reproduced */
} core_run;

/* Plays the script once: movers fresh from the map, ticked at each TICK
 * with the live entities as bodies; every run of core moves between two
 * other events is timed as one stretch. */
static void run_core(const script *sc, core_run *out)
{
    memset(out, 0, sizeof *out);
    sweep_movers *mv = build_movers(sc);
    const sweep_space space = {sc->world, mv, NULL, SWEEP_NO_BODY};
    const sweep_config *cfg = &sc->level.config;
    const sweep_rules *rules = &sc->level.rules;
    uint32_t n = sc->slot_count;
    sweep_vec3 *pos = xrealloc(NULL, (n + 1) * sizeof *pos);
    uint32_t *ground = xrealloc(NULL, (n + 1) * sizeof *ground);
    uint32_t *touch = xrealloc(NULL, (n + 1) * sizeof *touch);
    uint32_t *order = xrealloc(NULL, (n + 1) * sizeof *order);
    sweep_body *bodies = xrealloc(NULL, (n + 1) * sizeof *bodies);
    sweep_actor *got = xrealloc(NULL, (sc->step_count + 1) * sizeof *got);
    sweep_status *st = xrealloc(NULL, (sc->step_count + 1) * sizeof *st);
    uint32_t live = 0;
    for (uint32_t i = 0; i < sc->event_count;) {
        const event *ev = &sc->events[i];
        if (ev->kind == EV_STEP && sc->steps[ev->arg].core) {
            uint32_t end = i;
            while (end < sc->event_count && sc->events[end].kind == EV_STEP && sc->steps[sc->events[end].arg].core)
                end++;
            sweep_act_result ar;
            double t0 = now_s();
            for (uint32_t k = i; k < end; k++) {
                const step *s = &sc->steps[sc->events[k].arg];
                sweep_actor a = s->actor;
                st[k - i] = sweep_act(&space, cfg, rules, sc->slots[s->slot].radii, &a, &s->wish, s->dt, &ar);
                got[k - i] = a;
            }
            out->seconds += now_s() - t0;
            for (uint32_t k = i; k < end; k++) {
                const step *s = &sc->steps[sc->events[k].arg];
                const sweep_actor *a = &got[k - i];
                out->moves++;
                out->failed += st[k - i] != SWEEP_OK;
                int same = memcmp(&a->position, &s->recorded.position, sizeof a->position) == 0;
                out->same_position += same;
                out->same_actor += same && memcmp(&a->velocity, &s->recorded.velocity, sizeof a->velocity) == 0 &&
                                   a->grounded == s->recorded.grounded;
                if (s->has_start) {
                    out->starts++;
                    out->same_start += memcmp(&pos[s->slot], &s->actor.position, sizeof pos[0]) == 0;
                }
                pos[s->slot] = s->recorded.position;
                ground[s->slot] = s->ground;
                touch[s->slot] = s->touch;
            }
            i = end;
            continue;
        }
        switch (ev->kind) {
        case EV_STEP: {
            const step *s = &sc->steps[ev->arg];
            pos[s->slot] = s->recorded.position;
            if (s->ran) {
                ground[s->slot] = s->ground;
                touch[s->slot] = s->touch;
            }
            break;
        }
        case EV_SPAWN:
            pos[ev->arg] = sc->slots[ev->arg].spawned_at;
            ground[ev->arg] = touch[ev->arg] = SWEEP_NO_MOVER;
            order[live++] = ev->arg;
            break;
        case EV_REMOVE:
            for (uint32_t k = 0; k < live; k++) {
                if (order[k] == ev->arg) {
                    memmove(&order[k], &order[k + 1], (live - k - 1) * sizeof *order);
                    live--;
                    break;
                }
            }
            break;
        case EV_TRIGGER:
            sweep_movers_trigger(mv, ev->arg);
            break;
        case EV_TICK:
            if (sc->level.mover_count == 0)
                break;
            for (uint32_t k = 0; k < live; k++) {
                uint32_t e = order[k];
                bodies[k] = (sweep_body){pos[e], sc->slots[e].radii, ground[e], touch[e], 0, SWEEP_NO_MOVER};
            }
            if (sweep_movers_tick(mv, sc->world, cfg, bodies, live, NULL) == SWEEP_OK)
                for (uint32_t k = 0; k < live; k++)
                    pos[order[k]] = bodies[k].position;
            break;
        }
        i++;
    }
    free(pos);
    free(ground);
    free(touch);
    free(order);
    free(bodies);
    free(got);
    free(st);
    sweep_movers_destroy(mv);
}

/* One replay of the whole log in-process; 0 when every bit matched. */
static int run_replay(const char *log, double *seconds, sweep_replay_stats *stats)
{
    char err[1400];
    sweep_replay *r = sweep_replay_open(log, NULL, err, sizeof err);
    if (!r) {
        fprintf(stderr, "bench_replay: %s\n", err);
        return -1;
    }
    double t0 = now_s();
    int rc = sweep_replay_run(r);
    *seconds = now_s() - t0;
    *stats = *sweep_replay_stats_of(r);
    if (rc != 0) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        fprintf(stderr, "bench_replay: %s\n", d ? d->text : sweep_replay_error(r));
    }
    sweep_replay_close(r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_replay LOG [RUNS]\n");
        return 2;
    }
    const char *log = argv[1];
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_replay: RUNS must be 1..%d\n", MAX_RUNS);
        return 2;
    }
    char err[1400];
    sweep_record_reader *rd = sweep_record_open(log, err, sizeof err);
    if (!rd) {
        fprintf(stderr, "bench_replay: %s\n", err);
        return 2;
    }
    script sc;
    memset(&sc, 0, sizeof sc);
    sc.head = sweep_record_head_of(rd);
    char map[1024], stem[256];
    snprintf(map, sizeof map, "%.*s", (int)sc.head->map_path.len, (const char *)sc.head->map_path.ptr);
    snprintf(stem, sizeof stem, "%.*s", (int)sc.head->map_stem.len, (const char *)sc.head->map_stem.ptr);
    if (sweep_map_load(map, &sc.level, NULL, err, sizeof err) != SWEEP_OK)
        die("%s: %s", map, err);
    sweep_content_hash hash;
    if (sweep_level_content_hash(&sc.level, &hash) != SWEEP_OK ||
        memcmp(hash.bytes, sc.head->content_hash, sizeof hash.bytes) != 0)
        die("%s: not the map %s was recorded on (content hash)", map, log);
    if (sweep_map_build_world(&sc.level, &sc.world, NULL, err, sizeof err) != SWEEP_OK)
        die("%s: %s", map, err);
    /* The world's tick rate as sweepd chose it (server/world.c). */
    sc.tick_rate = sc.head->tick_rate > 0.0 ? sc.head->tick_rate : sc.level.tick_rate;
    if (!(sc.tick_rate > 0.0) || sc.tick_rate > 10000.0)
        sc.tick_rate = 60.0;
    sc.movers = build_movers(&sc);
    read_log(&sc, rd, log);
    if (sc.head->players_block)
        fprintf(stderr, "bench_replay: %s was recorded with --players-block on; the core runs without the "
                        "other players' shells (see the counts)\n", log);

    double replay_s[MAX_RUNS], core_s[MAX_RUNS];
    sweep_replay_stats rs;
    core_run cr;
    for (int i = 0; i < runs; i++) {
        if (run_replay(log, &replay_s[i], &rs) != 0)
            return 1;
        run_core(&sc, &cr);
        core_s[i] = cr.seconds;
    }
    if (rs.moves != sc.applied)
        fprintf(stderr, "bench_replay: the replay applied %" PRIu64 " moves, the log answers %" PRIu64 "\n", rs.moves,
                sc.applied);
    double replay_med = median(replay_s, runs), core_med = median(core_s, runs);
    double replay_mps = replay_med > 0.0 ? (double)rs.moves / replay_med : 0.0;
    double core_mps = core_med > 0.0 ? (double)cr.moves / core_med : 0.0;
    printf("bench_replay: %s: %" PRIu64 " moves applied (%" PRIu64 " Walk moves run by the core, %" PRIu64
           " granted no time, %" PRIu64 " in other modes, %" PRIu64 " answers resent), %u ticks\n",
           log, sc.applied, cr.moves, sc.zero_dt, sc.other_mode, sc.resent, (unsigned)rs.ticks);
    printf("bench_replay: core results equal to the recorded MoveResult bit for bit: position %" PRIu64 " of %" PRIu64
           ", position+velocity+grounded %" PRIu64 ", refused %" PRIu64 "; starts after a mover moved the entity: %"
           PRIu64 ", reproduced by the bench's own mover ticks %" PRIu64 "\n",
           cr.same_position, cr.moves, cr.same_actor, cr.failed, cr.starts, cr.same_start);
    printf("bench_replay: median of %d: replay %.0f moves/s (%.2f ms), core %.0f moves/s (%.2f ms in sweep_act)\n",
           runs, replay_mps, replay_med * 1e3, core_mps, core_med * 1e3);
    printf("BENCH name=replay map=%s moves=%" PRIu64 " moves_per_s=%.0f ratio_to_core=%.3f bytes_per_move=%.1f\n",
           stem, rs.moves, replay_mps, core_mps > 0.0 ? replay_mps / core_mps : 0.0,
           rs.moves ? (double)rs.bytes / (double)rs.moves : 0.0);
    sweep_movers_destroy(sc.movers);
    sweep_world_destroy(sc.world);
    sweep_level_free(&sc.level);
    free(sc.slots);
    free(sc.steps);
    free(sc.events);
    free(sc.sess);
    free(sc.sess_tcp);
    sweep_record_close(rd);
    return 0;
}
