/*
 * bench_replay.c - what a replay costs against the core alone, on the same
 * moves: a session log that sweepd --record wrote is replayed in-process at
 * both depths of client-sdk/replay.h, the full one (decode, dispatch, moves,
 * ticks and a bit-for-bit comparison of every answer) and the core one (the
 * log read, each move's core input rebuilt from it and run, the result
 * compared with the recorded one), and the same moves are fed to sweep_act
 * alone, each with the exact input the server gave it.
 *
 * The core's own speed on the session is its moves and its ticks: the
 * core alone cannot give these moves their results without moving the
 * movers between them. It is measured twice.
 *
 * The core on its own (the reference of ratio_to_core): one run of the
 * core depth, before the timed ones, hands over by its observers
 * (client-sdk/replay_impl.h) everything the core did, in order: each Walk
 * move's exact sweep_act input (the actor before, wish, time, config,
 * rules, radii) and the actor it came out with, each mover trigger, and
 * each tick's bodies as handed to sweep_movers_tick and as it left them,
 * with the movers' state and poses (hashed) after it. Each round, that
 * work is run again with nothing else in between, on fresh movers built as
 * the replay builds them (and the same static world): the triggers, the
 * ticks on copies of the bodies, the moves. Timed from one tick to the
 * next, the comparisons outside the clock: every tick's status, bodies
 * and movers and every actor must equal the core depth's, bit for bit, or
 * the bench fails (the pass would not be the core's work).
 *
 * The core run again beside the replay (ratio_to_core_warm, the figure
 * ratio_to_core was until the pass above existed): a third run of the core
 * depth hands over every move it checked, and just before each tick the
 * Walk moves since the last one are run again by sweep_act against the
 * space as the replay holds it then, the movers at the poses those moves
 * met, timed one stretch per tick, and so is each tick of the movers (the
 * bodies handed to sweep_movers_tick and the tick, as the core depth runs
 * it). Each of these moves runs microseconds after the replay ran it,
 * over the same triangles and tree nodes, so it finds them in the cache:
 * this reference came out about 6% faster a move than the core on its own
 * on the arena and about 20% on oacmpdm7 (a larger level), which is why
 * it is no longer ratio_to_core's.
 * Each sweep_act run again must give the actor the core depth got.
 *
 * Neither times the reading, the comparisons or the bookkeeping. A Walk
 * move granted no time never reaches sweep_act, on the server either, and
 * Fly and Noclip moves are not sweep_act's: neither is in the core's
 * count.
 *
 * The four runs alternate, so a noisy neighbour hits all alike.
 *
 *   bench_replay LOG [RUNS]      (RUNS default 5; the map is the log's path)
 *   BENCH name=replay map=<stem> moves=<n> moves_per_s=<x> ratio_to_core=<x>
 *         ratio_to_core_warm=<x> ratio_to_act=<x> cpu_ratio=<x>
 *         full_moves_per_s=<x> full_ratio_to_core=<x> full_ratio_to_act=<x>
 *         bytes_per_move=<x> cpus=<n> ratio_to_core_min=<x> ratio_to_core_max=<x>
 *         full_ratio_to_core_min=<x> full_ratio_to_core_max=<x>
 *         read_ns_per_move=<x> ratio_ceiling=<x>
 *
 * moves_per_s is the core depth's median (the replay that is "the core
 * plus reading", sweep-replay --core), ratio_to_core its moves/s over the
 * core's on its own (medians; its moves and ticks), ratio_to_core_warm
 * over the core's run again beside the replay (its moves and ticks);
 * full_moves_per_s and full_ratio_to_core the same for the full depth (the
 * core on its own); ratio_to_act and full_ratio_to_act the two over
 * sweep_act alone as run again beside the replay, without the ticks (the
 * figure before the ticks were counted, on a map with movers the lower);
 * cpu_ratio the core depth's CPU time (the process's, every thread) over
 * its wall time, median: above 1 when a thread reads ahead; bytes_per_move
 * the log's size per move; cpus the CPUs the bench may run on (its
 * affinity: run it under taskset -c N for one), where with one the replay
 * streams the log and starts no thread, with two or more it maps the log
 * and a thread reads ahead; the _min and _max the range of the rounds' own
 * ratios (each round runs both depths and the core on its own);
 * read_ns_per_move what bringing the log's bytes into the process and
 * summing them costs a move alone (read 128 KB at a time into one buffer
 * and CRC-32'd, each round, median), and ratio_ceiling the core's time a
 * move over the core's and that together: the ratio_to_core a core depth
 * would reach if the reading were all it did besides the core. A line
 * before it gives both references in nanoseconds a move.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>

#include "client-sdk/replay.h"
#include "client-sdk/replay_impl.h"
#include "server/record/record.h"
#include "server/record/record_window.h"
#include "tests/bench/median.h"

#define MAX_RUNS 99

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU time of the whole process, every thread. */
static double cpu_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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

/* ---- the core alone ---------------------------------------------------- */

/* The Walk moves of one tick, waiting to be run again, and the counts. */
typedef struct core_run {
    sweep__replay_core_move *moves;
    sweep_actor *got;
    sweep_status *st;
    size_t count, cap;
    double seconds;      /* in sweep_act only */
    double tick_seconds; /* in the movers' ticks (the bodies handed over and sweep_movers_tick) */
    double tick_t0;
    uint64_t timed, zero_dt, other_mode, starts;
    uint64_t same_actor, failed; /* of the timed: the core depth's actor again, bit for bit; refused */
} core_run;

/* Runs the waiting moves as one timed stretch, then checks them. */
static void flush(core_run *c)
{
    if (!c->count)
        return;
    sweep_act_result ar;
    double t0 = now_s();
    for (size_t i = 0; i < c->count; i++) {
        const sweep__replay_core_move *m = &c->moves[i];
        sweep_actor a = m->before;
        c->st[i] = sweep_act(&m->space, m->config, m->rules, m->radii, &a, &m->wish, m->dt, &ar);
        c->got[i] = a;
    }
    c->seconds += now_s() - t0;
    for (size_t i = 0; i < c->count; i++) {
        const sweep_actor *a = &c->got[i], *b = &c->moves[i].after;
        c->timed++;
        c->failed += c->st[i] != SWEEP_OK;
        c->same_actor += memcmp(&a->position, &b->position, sizeof a->position) == 0 &&
                         memcmp(&a->velocity, &b->velocity, sizeof a->velocity) == 0 && a->grounded == b->grounded;
    }
    c->count = 0;
}

static void observe(void *ctx, const sweep__replay_core_move *m)
{
    core_run *c = ctx;
    if (!m) {
        flush(c); /* a tick is next: the movers are about to move */
        c->tick_t0 = now_s();
        return;
    }
    c->starts += m->started_moved != 0;
    if (m->mode != SWEEP_WIRE_MODE_WALK) {
        c->other_mode++;
        return;
    }
    if (!(m->dt > 0.0)) {
        c->zero_dt++;
        return;
    }
    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->moves = xrealloc(c->moves, c->cap * sizeof *c->moves);
        c->got = xrealloc(c->got, c->cap * sizeof *c->got);
        c->st = xrealloc(c->st, c->cap * sizeof *c->st);
    }
    c->moves[c->count++] = *m;
}

static void ticked(void *ctx)
{
    core_run *c = ctx;
    c->tick_seconds += now_s() - c->tick_t0;
}

/* ---- the core on its own ----------------------------------------------- */

/* The core's work on the session in the order the core depth did it,
 * collected once from a run of it: each Walk move that reached sweep_act
 * (its exact input and the actor it came out with), each mover trigger,
 * and each tick of the movers (the bodies handed to it, and what it left:
 * the bodies, its status, a hash of every mover's state and pose). */
enum { OWN_MOVE, OWN_TRIGGER, OWN_TICK };

typedef struct own_event {
    uint32_t kind, index; /* index: of the move, the mover, the tick */
} own_event;

typedef struct own_tick {
    size_t body_at;
    uint32_t count;
    sweep_status status;
    uint64_t hash;
} own_tick;

typedef struct own_log {
    own_event *ev;
    size_t ev_count, ev_cap;
    sweep__replay_core_move *moves;
    sweep_actor *got;
    sweep_status *st;
    size_t move_count, move_cap;
    own_tick *ticks;
    size_t tick_count, tick_cap;
    sweep_body *bodies_in, *bodies_out, *work;
    size_t body_count, body_cap;
    uint32_t work_cap;
    const sweep_world *world; /* the static world the moves met */
    int foreign;              /* a move met a space this pass cannot rebuild */
} own_log;

#define OWN_HASH_SEED 0xcbf29ce484222325ull

static void own_push(own_log *o, uint32_t kind, uint32_t index)
{
    if (o->ev_count == o->ev_cap) {
        o->ev_cap = o->ev_cap ? 2 * o->ev_cap : 4096;
        o->ev = xrealloc(o->ev, o->ev_cap * sizeof *o->ev);
    }
    o->ev[o->ev_count++] = (own_event){kind, index};
}

static void own_move(void *ctx, const sweep__replay_core_move *m)
{
    own_log *o = ctx;
    if (!m || m->mode != SWEEP_WIRE_MODE_WALK || !(m->dt > 0.0))
        return; /* the ticks come by own_before_tick; the rest is not sweep_act's */
    if (m->space.crowd || m->space.self != SWEEP_NO_BODY)
        o->foreign = 1;
    o->world = m->space.world;
    if (o->move_count == o->move_cap) {
        o->move_cap = o->move_cap ? 2 * o->move_cap : 4096;
        o->moves = xrealloc(o->moves, o->move_cap * sizeof *o->moves);
    }
    own_push(o, OWN_MOVE, (uint32_t)o->move_count);
    o->moves[o->move_count++] = *m;
}

static void own_trigger(void *ctx, uint32_t mover)
{
    own_push(ctx, OWN_TRIGGER, mover);
}

static void own_bodies(own_log *o, const sweep_body *b, uint32_t n)
{
    if (o->body_count + n > o->body_cap) {
        while (o->body_count + n > o->body_cap)
            o->body_cap = o->body_cap ? 2 * o->body_cap : 4096;
        o->bodies_in = xrealloc(o->bodies_in, o->body_cap * sizeof *o->bodies_in);
        o->bodies_out = xrealloc(o->bodies_out, o->body_cap * sizeof *o->bodies_out);
    }
    memcpy(o->bodies_in + o->body_count, b, n * sizeof *b);
}

static void own_before_tick(void *ctx, const sweep_body *bodies, uint32_t count)
{
    own_log *o = ctx;
    own_bodies(o, bodies, count);
    if (o->tick_count == o->tick_cap) {
        o->tick_cap = o->tick_cap ? 2 * o->tick_cap : 1024;
        o->ticks = xrealloc(o->ticks, o->tick_cap * sizeof *o->ticks);
    }
    own_push(o, OWN_TICK, (uint32_t)o->tick_count);
    o->ticks[o->tick_count++] = (own_tick){o->body_count, count, SWEEP_OK, 0};
    if (count > o->work_cap)
        o->work_cap = count;
}

static void own_after_tick(void *ctx, const sweep_movers *movers, const sweep_body *bodies, uint32_t count,
                           sweep_status status)
{
    own_log *o = ctx;
    own_tick *t = &o->ticks[o->tick_count - 1];
    memcpy(o->bodies_out + t->body_at, bodies, count * sizeof *bodies);
    o->body_count += count;
    t->status = status;
    t->hash = sweep_movers_hash(movers, OWN_HASH_SEED);
}

/* Replays the collected work on fresh movers (the static world, config
 * and rules are the collecting replay's, still open), timed per stretch
 * between two ticks and per tick, without any comparison inside; every
 * tick's bodies, status and movers and, at the end, every actor are
 * checked against the core depth's. 0, or -1 (said why) when anything
 * differs: the pass would then not be the core's work. */
static int own_pass(own_log *o, const sweep_level *lv, const sweep_world *world, double tick_rate, double *seconds,
                    double *tick_seconds)
{
    sweep_movers *mv = NULL;
    if (lv->mover_count > 0) {
        sweep_mover_desc *d = xrealloc(NULL, lv->mover_count * sizeof *d);
        for (uint32_t i = 0; i < lv->mover_count; i++)
            d[i] = sweep_level_mover_desc(lv, i);
        sweep_status st = sweep_movers_create(d, lv->mover_count, tick_rate, lv->triangle_count, &mv);
        free(d);
        if (st != SWEEP_OK) {
            fprintf(stderr, "bench_replay: own pass: cannot build the movers: %s\n", sweep_status_message(st));
            return -1;
        }
    }
    if (!o->got) {
        o->got = xrealloc(NULL, o->move_count * sizeof *o->got);
        o->st = xrealloc(NULL, o->move_count * sizeof *o->st);
        o->work = xrealloc(NULL, (o->work_cap ? o->work_cap : 1) * sizeof *o->work);
    }
    const sweep_space space = {world, mv, NULL, SWEEP_NO_BODY};
    sweep_act_result ar;
    double total = 0.0, ticks = 0.0, t0 = now_s();
    int rc = 0;
    for (size_t k = 0; k < o->ev_count && rc == 0; k++) {
        const own_event *e = &o->ev[k];
        if (e->kind == OWN_MOVE) {
            const sweep__replay_core_move *m = &o->moves[e->index];
            sweep_actor a = m->before;
            o->st[e->index] = sweep_act(&space, m->config, m->rules, m->radii, &a, &m->wish, m->dt, &ar);
            o->got[e->index] = a;
        } else if (e->kind == OWN_TRIGGER) {
            if (!mv || sweep_movers_trigger(mv, e->index) != SWEEP_OK) {
                fprintf(stderr, "bench_replay: own pass: the trigger of mover %u fails on fresh movers\n",
                        (unsigned)e->index);
                rc = -1;
            }
        } else {
            const own_tick *t = &o->ticks[e->index];
            double t1 = now_s();
            memcpy(o->work, o->bodies_in + t->body_at, t->count * sizeof *o->work);
            sweep_status ts = sweep_movers_tick(mv, world, &lv->config, o->work, t->count, NULL);
            double t2 = now_s();
            total += t2 - t0;
            ticks += t2 - t1;
            if (ts != t->status || memcmp(o->work, o->bodies_out + t->body_at, t->count * sizeof *o->work) != 0 ||
                sweep_movers_hash(mv, OWN_HASH_SEED) != t->hash) {
                fprintf(stderr, "bench_replay: own pass: tick %zu of %zu differs from the core depth's (status %d "
                        "against %d, bodies or movers)\n", (size_t)e->index, o->tick_count, (int)ts, (int)t->status);
                rc = -1;
            }
            t0 = now_s();
        }
    }
    total += now_s() - t0;
    sweep_movers_destroy(mv);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < o->move_count; i++) {
        const sweep_actor *a = &o->got[i], *b = &o->moves[i].after;
        if (o->st[i] != SWEEP_OK || memcmp(&a->position, &b->position, sizeof a->position) != 0 ||
            memcmp(&a->velocity, &b->velocity, sizeof a->velocity) != 0 || a->grounded != b->grounded) {
            fprintf(stderr, "bench_replay: own pass: move %zu of %zu: sweep_act gave another actor than the core "
                    "depth's (status %d)\n", i, o->move_count, (int)o->st[i]);
            return -1;
        }
    }
    *seconds = total;
    *tick_seconds = ticks;
    return 0;
}

/* ---- replays ------------------------------------------------------------ */

/* One replay of the whole log in-process at the depth `flags`, with the
 * core run again beside it when `core` is given; 0 when every bit
 * matched. */
static int run_replay(const char *log, unsigned flags, core_run *core, double *seconds, double *cpu,
                      sweep_replay_stats *stats)
{
    char err[1400];
    sweep_replay *r = sweep_replay_open_flags(log, NULL, flags, err, sizeof err);
    if (!r) {
        fprintf(stderr, "bench_replay: %s\n", err);
        return -1;
    }
    if (core) {
        core_run keep = {core->moves, core->got, core->st, 0, core->cap, 0.0, 0.0, 0.0, 0, 0, 0, 0, 0, 0};
        *core = keep;
        sweep__replay_core_observe(sweep__replay_core_of(r), observe, ticked, core);
    }
    double t0 = now_s(), c0 = cpu_now_s();
    int rc = sweep_replay_run(r);
    *seconds = now_s() - t0;
    *cpu = cpu_now_s() - c0;
    if (core)
        flush(core);
    *stats = *sweep_replay_stats_of(r);
    if (rc != 0) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        fprintf(stderr, "bench_replay: %s depth: %s\n", flags & SWEEP_REPLAY_CORE ? "core" : "full",
                d ? d->text : sweep_replay_error(r));
    }
    sweep_replay_close(r);
    return rc;
}

/* The log's bytes brought in and summed, nothing else: read 128 KB at a
 * time into one buffer used again (as the replay streams a log on one
 * CPU) and each chunk's CRC-32 taken (every byte of a frame's body is
 * summed when it is read). The least any reading of this log costs on
 * this machine, whatever the replay does with its records. Its seconds,
 * or a negative number when the file cannot be read. */
static volatile uint32_t read_sum; /* kept, so that no sum is thrown away */

static double read_floor(const char *log)
{
    static uint8_t buf[128 * 1024];
    int fd = open(log, O_RDONLY);
    if (fd < 0)
        return -1.0;
    uint32_t crc = 0;
    double t0 = now_s();
    for (off_t at = 0;;) {
        ssize_t n = pread(fd, buf, sizeof buf, at);
        if (n <= 0) {
            close(fd);
            read_sum = crc;
            return n < 0 ? -1.0 : now_s() - t0;
        }
        crc = libdeflate_crc32(crc, buf, (size_t)n);
        at += n;
    }
}

/* One run of the core depth that collects its work into *o; the replay is
 * left open (its world, config and rules are the own pass's), NULL when it
 * failed. */
static sweep_replay *collect(const char *log, own_log *o)
{
    char err[1400];
    sweep_replay *r = sweep_replay_open_flags(log, NULL, SWEEP_REPLAY_CORE, err, sizeof err);
    if (!r) {
        fprintf(stderr, "bench_replay: %s\n", err);
        return NULL;
    }
    sweep__replay_core *c = sweep__replay_core_of(r);
    const sweep__replay_core_movers_observer mo = {own_trigger, own_before_tick, own_after_tick, o};
    sweep__replay_core_observe(c, own_move, NULL, o);
    sweep__replay_core_observe_movers(c, &mo);
    int rc = sweep_replay_run(r);
    sweep__replay_core_observe(c, NULL, NULL, NULL);
    sweep__replay_core_observe_movers(c, NULL);
    if (rc != 0 || o->foreign) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        fprintf(stderr, "bench_replay: collecting the core's work: %s\n",
                o->foreign ? "a move ran among other bodies, which the own pass does not rebuild"
                           : d ? d->text : sweep_replay_error(r));
        sweep_replay_close(r);
        return NULL;
    }
    return r;
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
    char err[1400], stem[256];
    sweep_record_reader *rd = sweep_record_open(log, err, sizeof err);
    if (!rd) {
        fprintf(stderr, "bench_replay: %s\n", err);
        return 2;
    }
    const sweep_record_head *h = sweep_record_head_of(rd);
    snprintf(stem, sizeof stem, "%.*s", (int)h->map_stem.len, (const char *)h->map_stem.ptr);
    double head_tick_rate = h->tick_rate;
    sweep_record_close(rd);

    /* The core's work, collected once; the own pass runs it each round. */
    own_log own;
    memset(&own, 0, sizeof own);
    sweep_replay *kept = collect(log, &own);
    if (!kept)
        return 1;
    if (!own.world) {
        fprintf(stderr, "bench_replay: the log holds no move sweep_act runs\n");
        return 1;
    }
    const sweep_level *lv = sweep__replay_core_level(sweep__replay_core_of(kept));
    /* The world's tick rate as sweepd chose it, as replay_core.c builds the
     * movers (a difference would show in the own pass's first tick). */
    double tick_rate = head_tick_rate > 0.0 ? head_tick_rate : lv->tick_rate;
    if (!(tick_rate > 0.0) || tick_rate > 10000.0)
        tick_rate = 60.0;

    double full_s[MAX_RUNS], depth_s[MAX_RUNS], core_s[MAX_RUNS], act_s[MAX_RUNS], cpu_s[MAX_RUNS], cpu, unused;
    double own_s[MAX_RUNS], own_act_s[MAX_RUNS], own_tick, read_s[MAX_RUNS];
    sweep_replay_stats full, depth, seen;
    core_run core;
    memset(&core, 0, sizeof core);
    for (int i = 0; i < runs; i++) {
        if (run_replay(log, 0, NULL, &full_s[i], &unused, &full) != 0 ||
            run_replay(log, SWEEP_REPLAY_CORE, NULL, &depth_s[i], &cpu, &depth) != 0 ||
            run_replay(log, SWEEP_REPLAY_CORE, &core, &unused, &unused, &seen) != 0 ||
            own_pass(&own, lv, own.world, tick_rate, &own_s[i], &own_tick) != 0)
            return 1;
        if ((read_s[i] = read_floor(log)) < 0.0) {
            fprintf(stderr, "bench_replay: %s: cannot be read again\n", log);
            return 1;
        }
        own_act_s[i] = own_s[i] - own_tick;
        cpu_s[i] = depth_s[i] > 0.0 ? cpu / depth_s[i] : 0.0;
        core_s[i] = core.seconds + core.tick_seconds;
        act_s[i] = core.seconds;
    }
    if (depth.moves != full.moves)
        fprintf(stderr, "bench_replay: the core depth checked %" PRIu64 " moves, the full replay applied %" PRIu64 "\n",
                depth.moves, full.moves);
    if (core.same_actor != core.timed)
        fprintf(stderr, "bench_replay: sweep_act run again gave another actor than the core depth's for %" PRIu64
                " moves\n", core.timed - core.same_actor);
    double full_med = median(full_s, runs), depth_med = median(depth_s, runs), core_med = median(core_s, runs);
    double full_mps = full_med > 0.0 ? (double)full.moves / full_med : 0.0;
    double depth_mps = depth_med > 0.0 ? (double)depth.moves / depth_med : 0.0;
    double core_mps = core_med > 0.0 ? (double)core.timed / core_med : 0.0;
    double act_med = median(act_s, runs), act_mps = act_med > 0.0 ? (double)core.timed / act_med : 0.0;
    printf("bench_replay: %s: %" PRIu64 " moves applied (%" PRIu64 " Walk moves run by sweep_act, %" PRIu64
           " granted no time, %" PRIu64 " in other modes), %" PRIu64 " refused, %" PRIu64 " ticks\n",
           log, full.moves, core.timed, core.zero_dt, core.other_mode, depth.refused, full.ticks);
    printf("bench_replay: the core depth's results equal the recorded MoveResults bit for bit: %" PRIu64 " of %" PRIu64
           "; sweep_act run again on the same inputs gave the same actor for %" PRIu64 " of %" PRIu64
           ", refused %" PRIu64 "; starts after a mover moved the entity, reproduced by the core depth's own mover "
           "ticks: %" PRIu64 "\n",
           depth.outputs, depth.moves, core.same_actor, core.timed, core.failed, core.starts);
    printf("bench_replay: median of %d: full replay %.0f moves/s (%.2f ms), core depth %.0f moves/s (%.2f ms), "
           "core %.0f moves/s (%.2f ms in sweep_act and the movers' ticks; sweep_act alone %.0f moves/s, %.2f ms)\n",
           runs, full_mps, full_med * 1e3, depth_mps, depth_med * 1e3, core_mps, core_med * 1e3, act_mps,
           act_med * 1e3);
    if (own.move_count != core.timed) {
        fprintf(stderr, "bench_replay: the own pass ran %zu moves, the core run beside the replay %" PRIu64 "\n",
                own.move_count, core.timed);
        return 1;
    }
    double own_med = median(own_s, runs), own_mps = own_med > 0.0 ? (double)own.move_count / own_med : 0.0;
    double own_act_med = median(own_act_s, runs);
    double own_act_mps = own_act_med > 0.0 ? (double)own.move_count / own_act_med : 0.0;
    printf("bench_replay: the core on its own (the same moves, triggers and ticks in the same order on fresh movers, "
           "%zu ticks, every actor and tick equal to the core depth's): %.0f moves/s (%.2f ms, %.1f ns a move; "
           "sweep_act alone %.0f moves/s); run again beside the replay: %.1f ns a move\n",
           own.tick_count, own_mps, own_med * 1e3, own_mps > 0.0 ? 1e9 / own_mps : 0.0, own_act_mps,
           core_mps > 0.0 ? 1e9 / core_mps : 0.0);
    double cpu_ratio = median(cpu_s, runs);
    /* The reading's floor a move, and the ratio the core depth would reach
     * if reading were all it did besides the core (its ceiling). */
    double read_ns = depth.moves ? median(read_s, runs) * 1e9 / (double)depth.moves : 0.0;
    double own_ns = own_mps > 0.0 ? 1e9 / own_mps : 0.0;
    /* The spread: each round's ratios, the core on its own and each depth
     * having run in the same round. */
    double lo = 0.0, hi = 0.0, full_lo = 0.0, full_hi = 0.0;
    for (int i = 0; i < runs; i++) {
        double r = depth_s[i] > 0.0 ? own_s[i] / depth_s[i] : 0.0, f = full_s[i] > 0.0 ? own_s[i] / full_s[i] : 0.0;
        lo = i == 0 || r < lo ? r : lo, hi = i == 0 || r > hi ? r : hi;
        full_lo = i == 0 || f < full_lo ? f : full_lo, full_hi = i == 0 || f > full_hi ? f : full_hi;
    }
    printf("BENCH name=replay map=%s moves=%" PRIu64 " moves_per_s=%.0f ratio_to_core=%.3f ratio_to_core_warm=%.3f "
           "ratio_to_act=%.3f cpu_ratio=%.2f full_moves_per_s=%.0f full_ratio_to_core=%.3f full_ratio_to_act=%.3f "
           "bytes_per_move=%.1f cpus=%ld ratio_to_core_min=%.3f ratio_to_core_max=%.3f full_ratio_to_core_min=%.3f "
           "full_ratio_to_core_max=%.3f read_ns_per_move=%.1f ratio_ceiling=%.3f\n",
           stem, depth.moves, depth_mps, own_mps > 0.0 ? depth_mps / own_mps : 0.0,
           core_mps > 0.0 ? depth_mps / core_mps : 0.0, act_mps > 0.0 ? depth_mps / act_mps : 0.0, cpu_ratio,
           full_mps, own_mps > 0.0 ? full_mps / own_mps : 0.0, act_mps > 0.0 ? full_mps / act_mps : 0.0,
           full.moves ? (double)full.bytes / (double)full.moves : 0.0, sweep__record_cpus(), lo, hi, full_lo, full_hi,
           read_ns, own_ns + read_ns > 0.0 ? own_ns / (own_ns + read_ns) : 0.0);
    sweep_replay_close(kept);
    free(own.ev);
    free(own.moves);
    free(own.got);
    free(own.st);
    free(own.ticks);
    free(own.bodies_in);
    free(own.bodies_out);
    free(own.work);
    free(core.moves);
    free(core.got);
    free(core.st);
    return 0;
}
