/*
 * bench_authority.c - the authority's false flags: honest bots with
 * natural wishes through loss, jitter, reordering and redundancy against
 * the world library in simulated time (tests/world/honest_sim.h), one
 * line:
 *
 *   BENCH name=authority.honest moves=N flagged=0 lost=N jumps=N ...
 *
 * moves is what the world applied, flagged every rule it named on any of
 * them (it must be 0: an honest player is never flagged), lost the moves
 * whose every copy the network lost. Usage: bench_authority MAP [BOTS
 * [MOVES_PER_BOT [SEED [LATENCY_MS [REDUNDANCY]]]]] (a latency each way
 * before the jitter, default 0; earlier unanswered moves each datagram
 * carries, default 3); exit status 1 when anything was flagged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/world/honest_sim.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MAP [BOTS [MOVES_PER_BOT [SEED [LATENCY_MS [REDUNDANCY]]]]]\n", argv[0]);
        return 2;
    }
    hs_options o = {.bots = argc > 2 ? (uint32_t)atoi(argv[2]) : 50,
                    .moves = argc > 3 ? (uint32_t)atoi(argv[3]) : 4000,
                    .loss = 0.05,
                    .jitter_ms = 30,
                    .latency_ms = argc > 5 ? atof(argv[5]) : 0.0,
                    .reorder = 0.05,
                    .redundancy = argc > 6 ? (uint32_t)atoi(argv[6]) : 3,
                    .seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1};
    if (!(o.latency_ms >= 0.0 && o.latency_ms <= 10000.0) || o.redundancy >= HS_MAX_CARRY) {
        fprintf(stderr, "bench_authority: a latency of 0 to 10000 ms and a redundancy below %u, please\n",
                HS_MAX_CARRY);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hs_report r;
    hs_run(argv[1], &o, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r.error[0]) {
        fprintf(stderr, "bench_authority: %s\n", r.error);
        return 2;
    }
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("BENCH name=authority.honest moves=%llu flagged=%llu lost=%llu jumps=%llu bots=%u loss=%.2f jitter_ms=%.0f "
           "reorder=%.2f redundancy=%u latency_ms=%.0f seconds=%.2f\n",
           (unsigned long long)r.applied, (unsigned long long)r.flagged, (unsigned long long)r.lost,
           (unsigned long long)r.jumps, o.bots, o.loss, o.jitter_ms, o.reorder, o.redundancy, o.latency_ms, s);
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
        if (r.rules[i])
            fprintf(stderr, "bench_authority: rule %s named %llu times\n", sweep_wire_rule_name(i),
                    (unsigned long long)r.rules[i]);
    return r.flagged ? 1 : 0;
}
