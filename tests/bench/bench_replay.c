/*
 * bench_replay.c - what a replay costs against the core alone, on the same
 * moves: a session log that sweepd --record wrote is replayed in-process at
 * both depths of client-sdk/replay.h, the full one (decode, dispatch, moves,
 * ticks and a bit-for-bit comparison of every answer) and the core one (the
 * log read, each move's core input rebuilt from it and run, the result
 * compared with the recorded one), and the same moves are fed to sweep_act
 * alone, each with the exact input the server gave it.
 *
 * Those inputs are the core depth's own: a third run of it hands over, by
 * its observer (client-sdk/replay_impl.h), every move it checked, and just
 * before each tick the Walk moves since the last one are run again by
 * sweep_act against the space as the replay holds it then, the movers at
 * the poses those moves met. These sweep_act calls are timed, one stretch
 * per tick, and so is each tick of the movers (the bodies handed to
 * sweep_movers_tick and the tick, as the core depth runs it): the core
 * alone cannot give these moves their results without moving the movers
 * between them, so the core's own speed on this session is its moves and
 * its ticks; the reading, the comparisons and the bookkeeping are not
 * timed. A Walk move granted no time never reaches sweep_act, on the
 * server either, and Fly and Noclip moves are not sweep_act's: neither is
 * in the core's count. Each sweep_act run again must give the actor the
 * core depth got.
 *
 * The three runs alternate, so a noisy neighbour hits all alike.
 *
 *   bench_replay LOG [RUNS]      (RUNS default 5; the map is the log's path)
 *   BENCH name=replay map=<stem> moves=<n> moves_per_s=<x> ratio_to_core=<x>
 *         ratio_to_act=<x> cpu_ratio=<x> full_moves_per_s=<x>
 *         full_ratio_to_core=<x> full_ratio_to_act=<x> bytes_per_move=<x>
 *
 * moves_per_s is the core depth's median (the replay that is "the core
 * plus reading", sweep-replay --core), ratio_to_core its moves/s over the
 * core's (medians; the core's moves and ticks); full_moves_per_s and
 * full_ratio_to_core the same for the full depth; ratio_to_act and
 * full_ratio_to_act the two over sweep_act alone, without the ticks (the
 * figure before the ticks were counted, on a map with movers the lower);
 * cpu_ratio the core depth's CPU time (the process's, every thread) over
 * its wall time, median: above 1 when a thread reads ahead; bytes_per_move
 * the log's size per move.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client-sdk/replay.h"
#include "client-sdk/replay_impl.h"
#include "server/record.h"

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
    sweep_record_close(rd);

    double full_s[MAX_RUNS], depth_s[MAX_RUNS], core_s[MAX_RUNS], act_s[MAX_RUNS], cpu_s[MAX_RUNS], cpu, unused;
    sweep_replay_stats full, depth, seen;
    core_run core;
    memset(&core, 0, sizeof core);
    for (int i = 0; i < runs; i++) {
        if (run_replay(log, 0, NULL, &full_s[i], &unused, &full) != 0 ||
            run_replay(log, SWEEP_REPLAY_CORE, NULL, &depth_s[i], &cpu, &depth) != 0 ||
            run_replay(log, SWEEP_REPLAY_CORE, &core, &unused, &unused, &seen) != 0)
            return 1;
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
    double cpu_ratio = median(cpu_s, runs);
    printf("BENCH name=replay map=%s moves=%" PRIu64 " moves_per_s=%.0f ratio_to_core=%.3f ratio_to_act=%.3f "
           "cpu_ratio=%.2f full_moves_per_s=%.0f full_ratio_to_core=%.3f full_ratio_to_act=%.3f bytes_per_move=%.1f\n",
           stem, depth.moves, depth_mps, core_mps > 0.0 ? depth_mps / core_mps : 0.0,
           act_mps > 0.0 ? depth_mps / act_mps : 0.0, cpu_ratio, full_mps, core_mps > 0.0 ? full_mps / core_mps : 0.0,
           act_mps > 0.0 ? full_mps / act_mps : 0.0, full.moves ? (double)full.bytes / (double)full.moves : 0.0);
    free(core.moves);
    free(core.got);
    free(core.st);
    return 0;
}
