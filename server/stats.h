/*
 * stats.h - the server's counters and the tick-duration record behind the
 * Stats message.
 *
 * Counters only ever grow. Tick durations (the time one world's tick
 * callback spent working, in nanoseconds) are kept in a ring of the last
 * SWEEP__TICK_SAMPLES ticks of all worlds; percentiles are computed from a
 * sorted copy when asked, which is rare (GetStats), so recording stays O(1).
 */
#ifndef SWEEP_SERVER_STATS_H
#define SWEEP_SERVER_STATS_H

#include <stdint.h>

#include "protocol/message.h"

#define SWEEP__TICK_SAMPLES 1024u

typedef struct sweep__stats {
    uint64_t moves_total;
    uint64_t errors_total;
    uint64_t requests_total;
    uint64_t sessions_total;
    uint64_t udp_dropped;
    uint64_t crushed_total;   /* entities removed because a mover crushed them */
    uint64_t moves_ignored;   /* old moves with no kept result, dropped without an answer */
    uint64_t rules_total[SWEEP_WIRE_RULE_COUNT]; /* times each rule acted, all sessions */
    uint64_t tick_ns[SWEEP__TICK_SAMPLES];
    uint32_t tick_count; /* samples held, <= SWEEP__TICK_SAMPLES */
    uint32_t tick_next;  /* ring position */
} sweep__stats;

void sweep__stats_record_tick(sweep__stats *st, uint64_t ns);

/* p in [0, 100]: nearest-rank percentile of the recorded ticks, 0 if none. */
uint64_t sweep__stats_tick_percentile(const sweep__stats *st, unsigned p);

#endif
