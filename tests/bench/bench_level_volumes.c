/*
 * bench_level_volumes.c - what a level's own volumes (a Quake 3 level's
 * jump pads, teleporters, hurting places and triggers, as sweep-import
 * makes them) cost a move, on the level itself.
 *
 * Bodies start above each volume and walk the level through sweep_act,
 * launched by its pads and sent on by its teleporters, each on a heading of
 * its own that turns every second. Every move is made twice from the same
 * actor: through the world with its volumes (the move kept) and through
 * the same world without them (the result thrown away), in alternating
 * order, each timed alone, so the pair differs only by the volumes' tests
 * and what they did, and the shared machine's noise falls on both alike. A
 * move is near when it starts within two body heights of a volume's box
 * (inside included): the moves a volume can cost most. A near move is
 * `acted` on when the two ended apart (a pad launched it, a teleporter
 * moved it, a kill ended it, it swam or climbed): the plain move is then
 * another motion (a fall to a pool's floor against a swim), whose cost
 * says nothing of the volumes' tests; the others (`same`: the tests ran
 * and changed nothing, or only reported) are the like-for-like pairs.
 * Those are split again: `quiet` ones, whose volume report is empty (the
 * tests alone), and `reported` ones (a hurt volume's damage, a trigger
 * entered, a kill: the volume's own work besides the tests). Of the
 * reported ones, the kills and the hurts (a kill volume's and a hurt
 * volume's moves, which on the corpus are most of them) are given apart
 * too: a body that starts in a kill volume is killed at its first step,
 * starts there again, and is killed at every tick, so each kill volume
 * adds two kills to every tick's near moves (a quarter of dm7's).
 *
 * The whole walk is run ROUNDS times (default 5) from the same start, the
 * first second of each round not counted (caches and branch history warm
 * up), the order of each pair alternating by tick, body and round. A
 * round's figure for a kind of move is the median of its per-move ratios
 * (each move's clock reads, about 20 ns, in both of its times; no mean: on
 * a shared machine one move another process preempted outweighs
 * thousands); the line gives the median of the rounds' figures and their
 * range. Prints
 *
 *   BENCH name=core.level_volumes map=<name> volumes=<n> bodies=<n>
 *         rounds=<n> near=<fraction of moves> acted=<fraction of near>
 *         near_ns_p50=<x> near_plain_ns_p50=<x> far_ns_p50=<x>
 *         far_plain_ns_p50=<x> near_ratio=<x>
 *         near_ratio_min=<x> near_ratio_max=<x> same_ratio=<x>
 *         same_ratio_min=<x> same_ratio_max=<x> acted_ratio=<x>
 *         far_ratio=<x> far_ratio_min=<x> far_ratio_max=<x>
 *         near_ratio_mid=<x> same_ratio_mid=<x> far_ratio_mid=<x>
 *         launched=<moves> failed=<moves> quiet=<fraction of near>
 *         quiet_ratio=<x> quiet_ratio_mid=<x> reported_ratio=<x>
 *         reported_ratio_mid=<x> same_mean_ratio=<x> far_mean_ratio=<x>
 *         killed=<fraction of near> killed_ratio=<x>
 *         hurt=<fraction of near> hurt_ratio=<x>
 *
 * (near_* of every near move, same_ and acted_ of the two parts; *_mid
 * the median over rounds of the mean of each round's middle half of the
 * per-move ratios, which the clock's steps of about 10 ns do not move in
 * steps of 3% as they move the medians of cheap moves; launched and
 * failed counted over all rounds; same_mean_ratio and far_mean_ratio the
 * mean time of those moves over their plain twins' mean, the pairs with a
 * time past its 99th percentile left out: what the volumes cost the moves
 * all told, where a per-move ratio weighs a fixed cost by how cheap the
 * move it rides on is.) The two calls are functions of
 * their own (move_near_with, move_near_plain, move_far_with,
 * move_far_plain), never inlined nor merged, so that valgrind
 * --tool=callgrind counts each kind's instructions apart:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=OUT bench_level_volumes L.db 300 1
 *   callgrind_annotate --inclusive=yes OUT | grep move_
 *
 * Usage: bench_level_volumes MAP.db [TICKS [ROUNDS]] (default 2000 ticks of
 * 1/60 s, 5 rounds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/motion.h"
#include "core/volume.h"
#include "maps/level.h"
#include "maps/loader.h"

#define DT (1.0 / 60.0)
#define BODIES_PER_VOLUME 2
#define TURN_EVERY 60
/* Ticks at the start of each round that are run but not counted. */
#define WARM_TICKS 60
#define ROUNDS 5

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

typedef struct mv {
    const sweep_space *space;
    const sweep_config *cfg;
    const sweep_rules *rules;
    sweep_vec3 radii;
} mv;

/* One of the four kinds of call, never inlined nor merged with the others. */
#define MOVE_CALL(name)                                                                                        \
    static __attribute__((noinline, noipa)) sweep_status name(const mv *m, sweep_actor *a, const sweep_wish *w, \
                                                              sweep_act_result *r)                           \
    {                                                                                                          \
        return sweep_act(m->space, m->cfg, m->rules, m->radii, a, w, DT, r);                                   \
    }
MOVE_CALL(move_near_with)
MOVE_CALL(move_near_plain)
MOVE_CALL(move_far_with)
MOVE_CALL(move_far_plain)

/* 1 when p is within `reach` of volume v's box. */
static int near_box(const sweep_volume *v, sweep_vec3 p, double reach)
{
    return p.x >= v->lo.x - reach && p.x <= v->hi.x + reach && p.y >= v->lo.y - reach && p.y <= v->hi.y + reach &&
           p.z >= v->lo.z - reach && p.z <= v->hi.z + reach;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Near moves whose pair ended alike, near moves a volume acted on, and
 * moves away from every volume. */
enum { SAME, ACTED, FAR, KINDS };
/* A round's figures: each kind's median ratio (by kind), the near moves'
 * median ratio and times, each kind's middle mean (MID + kind), the near
 * moves' middle mean, the far moves' median times. */
enum {
    NEAR = KINDS,
    NEAR_WITH,
    NEAR_PLAIN,
    MID,
    NEAR_MID = MID + KINDS,
    FAR_WITH,
    FAR_PLAIN,
    QUIET,
    QUIET_MID,
    REPORTED,
    REPORTED_MID,
    KILLED,
    HURT,
    SAME_MEAN,
    FAR_MEAN,
    FIGS
};

/* One kind's moves of one round: each move's ratio and its two times. */
typedef struct kind_samples {
    double *ratio, *with, *plain;
    size_t n;
} kind_samples;

static double median(double *x, size_t n)
{
    qsort(x, n, sizeof *x, by_value);
    return x[n / 2];
}

/* The mean of the middle half of x[0 .. n), sorted (median sorts it).
 * The clock here reads in steps of about 10 ns (kvm-clock), 3% of a 350 ns
 * move, so a median of per-move ratios moves in steps of about 3%; a mean
 * of the middle half averages the steps out and still leaves out the moves
 * another process preempted. No finer clock is to be had in these guests:
 * the time stamp counter (RDTSCP, about 2.1 GHz) advances in steps of 21
 * ticks, the same 10 ns, so reading it instead changes nothing. */
static double middle_mean(const double *x, size_t n)
{
    size_t a = n / 4, b = n - n / 4;
    double sum = 0.0;
    for (size_t i = a; i < b; i++)
        sum += x[i];
    return sum / (double)(b - a);
}

/* The mean time of the moves against their plain twins' over the pairs
 * of x[0 .. n) and y[0 .. n) (unsorted, each pair one move), leaving out
 * a pair either of whose times is past its own 99th percentile (a move
 * another process preempted): what the volumes cost the moves all told,
 * where a median of per-move ratios weighs a fixed cost by the cheapest
 * moves it rides on. 0 when n is 0 or memory is short. */
static double pair_mean_ratio(const double *x, const double *y, size_t n)
{
    double *sx = malloc(n * sizeof *sx), *sy = malloc(n * sizeof *sy);
    double r = 0.0;
    if (n > 0 && sx && sy) {
        memcpy(sx, x, n * sizeof *sx), memcpy(sy, y, n * sizeof *sy);
        qsort(sx, n, sizeof *sx, by_value), qsort(sy, n, sizeof *sy, by_value);
        double cx = sx[n * 99 / 100], cy = sy[n * 99 / 100], sum_x = 0.0, sum_y = 0.0;
        for (size_t i = 0; i < n; i++)
            if (x[i] <= cx && y[i] <= cy)
                sum_x += x[i], sum_y += y[i];
        r = sum_y > 0.0 ? sum_x / sum_y : 0.0;
    }
    free(sx), free(sy);
    return r;
}

/* 1 when the two moves ended in different states (compared field by
 * field: the struct's padding is not the move's). */
static int apart(const sweep_actor *x, const sweep_actor *y)
{
    return memcmp(&x->position, &y->position, sizeof x->position) != 0 ||
           memcmp(&x->velocity, &y->velocity, sizeof x->velocity) != 0 || x->grounded != y->grounded ||
           x->stance != y->stance;
}

/* Where body i starts: above its volume's middle, falling onto what lies
 * below. */
static sweep_vec3 start_of(const sweep_level *lv, uint32_t i)
{
    const sweep_volume *v = &lv->volumes[i / BODIES_PER_VOLUME].v;
    return sweep_v3(0.5 * (v->lo.x + v->hi.x), 0.5 * (v->lo.y + v->hi.y), v->hi.z);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_level_volumes MAP.db [TICKS [ROUNDS]]\n");
        return 2;
    }
    uint32_t ticks = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    uint32_t rounds = argc > 3 ? (uint32_t)atoi(argv[3]) : ROUNDS;
    if (ticks < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_level_volumes MAP.db [TICKS [ROUNDS]]: TICKS and ROUNDS at least 1\n");
        return 2;
    }
    sweep_level lv;
    char err[512];
    if (sweep_map_load(argv[1], &lv, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "bench_level_volumes: %s\n", err);
        return 1;
    }
    uint32_t n = lv.volume_count;
    if (n == 0) {
        fprintf(stderr, "bench_level_volumes: %s has no volumes\n", argv[1]);
        return 1;
    }
    sweep_world *with = NULL, *plain = NULL;
    if (sweep_map_build_world(&lv, &with, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "bench_level_volumes: %s\n", err);
        return 1;
    }
    lv.volume_count = 0; /* the same level without them */
    sweep_status st = sweep_map_build_world(&lv, &plain, NULL, err, sizeof err);
    lv.volume_count = n;
    if (st != SWEEP_OK) {
        fprintf(stderr, "bench_level_volumes: %s\n", err);
        return 1;
    }
    sweep_vec3 radii = lv.default_radii;
    double floor_z = 0.0;
    for (uint32_t k = 0; k < lv.vertex_count; k++)
        floor_z = k == 0 || lv.vertices[k].z < floor_z ? lv.vertices[k].z : floor_z;
    double reach = 4.0 * radii.z;
    uint32_t bodies = n * BODIES_PER_VOLUME;
    size_t cap = (size_t)bodies * ticks;
    sweep_actor *a = calloc(bodies, sizeof *a);
    double *heading = calloc(bodies, sizeof *heading);
    kind_samples ks[KINDS];
    /* Per round: each kind's median ratio, and the near moves' (both
     * kinds together) median ratio and times. */
    double *fig[FIGS];
    for (int k = 0; k < FIGS; k++)
        fig[k] = calloc(rounds, sizeof *fig[k]);
    double *near_all = calloc(cap, sizeof *near_all), *near_with = calloc(cap, sizeof *near_with),
           *near_plain = calloc(cap, sizeof *near_plain);
    /* The same moves' ratios, split by whether their report was empty. */
    double *quiet = calloc(cap, sizeof *quiet), *reported = calloc(cap, sizeof *reported);
    /* Of the reported ones, those a kill ended, and those a hurt volume
     * hurt (and no kill ended). */
    double *killed = calloc(cap, sizeof *killed), *hurt = calloc(cap, sizeof *hurt);
    int ok = a && heading && near_all && near_with && near_plain && quiet && reported && killed && hurt;
    for (int k = 0; k < KINDS; k++) {
        ks[k].ratio = calloc(cap, sizeof(double));
        ks[k].with = calloc(cap, sizeof(double));
        ks[k].plain = calloc(cap, sizeof(double));
        ok = ok && ks[k].ratio && ks[k].with && ks[k].plain;
    }
    for (int k = 0; k < FIGS; k++)
        ok = ok && fig[k];
    if (!ok) {
        fprintf(stderr, "bench_level_volumes: out of memory\n");
        return 1;
    }
    sweep_space sw = {with, NULL, NULL, SWEEP_NO_BODY}, sp = {plain, NULL, NULL, SWEEP_NO_BODY};
    mv mw = {&sw, &lv.config, &lv.rules, radii}, mp = {&sp, &lv.config, &lv.rules, radii};
    uint64_t launched = 0, failed = 0, counted = 0, near_count = 0, acted_count = 0, quiet_count = 0;
    uint64_t killed_count = 0, hurt_count = 0;
    for (uint32_t round = 0; round < rounds; round++) {
        /* Every round walks the same walk from the same start. */
        uint64_t seed = 1;
        for (uint32_t i = 0; i < bodies; i++) {
            memset(&a[i], 0, sizeof a[i]);
            a[i].position = start_of(&lv, i);
            heading[i] = (double)(splitmix(&seed) >> 11) * (2.0 * 3.14159265358979 / 9007199254740992.0);
        }
        for (int k = 0; k < KINDS; k++)
            ks[k].n = 0;
        size_t nn = 0, nq = 0, nr = 0, nk = 0, nh = 0;
        for (uint32_t t = 0; t < ticks; t++) {
            for (uint32_t i = 0; i < bodies; i++) {
                if (t % TURN_EVERY == 0 && t > 0)
                    heading[i] += 1.0 + (double)(splitmix(&seed) >> 11) / 9007199254740992.0;
                double s = lv.rules.walk_speed;
                /* cos and sin: the bench's own wish, not the core's arithmetic. */
                sweep_wish w = {sweep_v3(s * cos(heading[i]), s * sin(heading[i]), 0), 0};
                int near = 0;
                for (uint32_t k = 0; k < n && !near; k++)
                    near = near_box(&lv.volumes[k].v, a[i].position, reach);
                sweep_actor copy = a[i];
                sweep_act_result r, rp;
                double tw = 0.0, tp = 0.0, t0;
                sweep_status sw_st = SWEEP_OK, sp_st = SWEEP_OK;
                for (int pass = 0; pass < 2; pass++) {
                    int vol = (pass == 0) == ((t + i + round) % 2 == 0);
                    t0 = now_ns();
                    if (vol)
                        sw_st = near ? move_near_with(&mw, &a[i], &w, &r) : move_far_with(&mw, &a[i], &w, &r);
                    else
                        sp_st = near ? move_near_plain(&mp, &copy, &w, &rp) : move_far_plain(&mp, &copy, &w, &rp);
                    double d = now_ns() - t0;
                    if (vol)
                        tw = d;
                    else
                        tp = d;
                }
                if (sw_st != SWEEP_OK || sp_st != SWEEP_OK) {
                    failed++;
                    continue;
                }
                launched += (r.volumes.events & SWEEP_VOLUME_EV_LAUNCHED) != 0;
                if (t >= WARM_TICKS || ticks <= WARM_TICKS) {
                    int kind = !near ? FAR : apart(&a[i], &copy) ? ACTED : SAME;
                    kind_samples *k = &ks[kind];
                    k->ratio[k->n] = tw / tp, k->with[k->n] = tw, k->plain[k->n] = tp;
                    k->n++;
                    if (near) {
                        near_all[nn] = tw / tp, near_with[nn] = tw, near_plain[nn] = tp;
                        nn++;
                        near_count++;
                        acted_count += kind == ACTED;
                    }
                    if (kind == SAME) {
                        if (r.volumes.events == 0)
                            quiet[nq++] = tw / tp, quiet_count++;
                        else
                            reported[nr++] = tw / tp;
                        if (r.volumes.events & SWEEP_VOLUME_EV_KILLED)
                            killed[nk++] = tw / tp, killed_count++;
                        else if (r.volumes.events & SWEEP_VOLUME_EV_HURT)
                            hurt[nh++] = tw / tp, hurt_count++;
                    }
                    counted++;
                }
                /* A body that fell out of the level starts again at its volume. */
                if (a[i].position.z < floor_z - 10.0 * radii.z || r.volumes.events & SWEEP_VOLUME_EV_KILLED) {
                    memset(&a[i], 0, sizeof a[i]);
                    a[i].position = start_of(&lv, i);
                }
            }
        }
        if (nn == 0 || ks[FAR].n == 0) {
            fprintf(stderr, "bench_level_volumes: %zu near and %zu far moves: nothing to compare\n", nn,
                    ks[FAR].n);
            return 1;
        }
        /* Before any median below sorts the kinds' times. */
        fig[SAME_MEAN][round] = pair_mean_ratio(ks[SAME].with, ks[SAME].plain, ks[SAME].n);
        fig[FAR_MEAN][round] = pair_mean_ratio(ks[FAR].with, ks[FAR].plain, ks[FAR].n);
        /* A kind with no moves in a round (a level whose volumes never act)
         * has no figure: 0, left out below. */
        for (int k = 0; k < KINDS; k++) {
            fig[k][round] = ks[k].n ? median(ks[k].ratio, ks[k].n) : 0.0;
            fig[MID + k][round] = ks[k].n ? middle_mean(ks[k].ratio, ks[k].n) : 0.0;
        }
        fig[NEAR][round] = median(near_all, nn);
        fig[NEAR_MID][round] = middle_mean(near_all, nn);
        fig[NEAR_WITH][round] = median(near_with, nn);
        fig[NEAR_PLAIN][round] = median(near_plain, nn);
        fig[FAR_WITH][round] = median(ks[FAR].with, ks[FAR].n);
        fig[FAR_PLAIN][round] = median(ks[FAR].plain, ks[FAR].n);
        fig[QUIET][round] = nq ? median(quiet, nq) : 0.0;
        fig[QUIET_MID][round] = nq ? middle_mean(quiet, nq) : 0.0;
        fig[REPORTED][round] = nr ? median(reported, nr) : 0.0;
        fig[REPORTED_MID][round] = nr ? middle_mean(reported, nr) : 0.0;
        fig[KILLED][round] = nk ? median(killed, nk) : 0.0;
        fig[HURT][round] = nh ? median(hurt, nh) : 0.0;
    }
    /* The median of the rounds' figures and their range; a kind some
     * round had no moves of is taken over the rounds that had some. */
    double mid[FIGS], lo[FIGS], hi[FIGS];
    for (int k = 0; k < FIGS; k++) {
        size_t m = 0;
        for (uint32_t r = 0; r < rounds; r++)
            if (fig[k][r] > 0.0)
                fig[k][m++] = fig[k][r];
        mid[k] = m ? median(fig[k], m) : 0.0;
        lo[k] = m ? fig[k][0] : 0.0;
        hi[k] = m ? fig[k][m - 1] : 0.0;
    }
    printf("BENCH name=core.level_volumes map=%s volumes=%u bodies=%u rounds=%u near=%.2f acted=%.2f "
           "near_ns_p50=%.0f near_plain_ns_p50=%.0f far_ns_p50=%.0f far_plain_ns_p50=%.0f near_ratio=%.3f near_ratio_min=%.3f near_ratio_max=%.3f "
           "same_ratio=%.3f same_ratio_min=%.3f same_ratio_max=%.3f acted_ratio=%.3f far_ratio=%.3f "
           "far_ratio_min=%.3f far_ratio_max=%.3f near_ratio_mid=%.3f same_ratio_mid=%.3f far_ratio_mid=%.3f "
           "launched=%llu failed=%llu quiet=%.2f quiet_ratio=%.3f quiet_ratio_mid=%.3f reported_ratio=%.3f "
           "reported_ratio_mid=%.3f same_mean_ratio=%.3f far_mean_ratio=%.3f killed=%.2f killed_ratio=%.3f hurt=%.2f "
           "hurt_ratio=%.3f\n",
           lv.name, n, bodies, rounds, (double)near_count / (double)counted,
           (double)acted_count / (double)near_count, mid[NEAR_WITH], mid[NEAR_PLAIN], mid[FAR_WITH], mid[FAR_PLAIN], mid[NEAR], lo[NEAR],
           hi[NEAR], mid[SAME], lo[SAME], hi[SAME], mid[ACTED], mid[FAR], lo[FAR], hi[FAR], mid[NEAR_MID],
           mid[MID + SAME], mid[MID + FAR], (unsigned long long)launched, (unsigned long long)failed,
           (double)quiet_count / (double)near_count, mid[QUIET], mid[QUIET_MID], mid[REPORTED], mid[REPORTED_MID],
           mid[SAME_MEAN], mid[FAR_MEAN], (double)killed_count / (double)near_count, mid[KILLED],
           (double)hurt_count / (double)near_count, mid[HURT]);
    for (int k = 0; k < KINDS; k++)
        free(ks[k].ratio), free(ks[k].with), free(ks[k].plain);
    for (int k = 0; k < FIGS; k++)
        free(fig[k]);
    free(a), free(heading), free(near_all), free(near_with), free(near_plain), free(quiet), free(reported);
    free(killed), free(hurt);
    sweep_world_destroy(with);
    sweep_world_destroy(plain);
    sweep_level_free(&lv);
    return 0;
}
