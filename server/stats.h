/*
 * stats.h - the server's counters and the tick-duration record behind the
 * Stats message.
 *
 * Counters only ever grow. Tick durations (the time one world's tick
 * callback spent working, in nanoseconds) are kept in a ring of the last
 * SWEEP__TICK_SAMPLES ticks of all worlds; percentiles are computed from a
 * sorted copy when asked, which is rare (GetStats; the metrics endpoint
 * has histograms of its own, server/histogram.h), so
 * recording stays O(1). Time spent in ticks and moves is also summed, from
 * uv_hrtime() readings the caller already has or takes once per call.
 *
 * Everything here belongs to the loop thread; the metrics endpoint reads a
 * copy the loop publishes (server/metrics.h).
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
    uint64_t udp_dropped;     /* datagrams dropped: received unverified or too large, or not sent (budget, full socket) */
    uint64_t udp_bad_key;     /* of those, received from a session's address without its key */
    uint64_t udp_reads[2];    /* system calls that read a UDP socket: [0] found datagrams, [1] found it empty */
    uint64_t udp_sends[2];    /* system calls that wrote a UDP socket: [0] sendmmsg (a queue's run), [1] one datagram */
    uint64_t crushed_total;   /* entities removed because a mover crushed them */
    uint64_t queries_total;   /* Query items answered, refusals included */
    uint64_t moves_ignored;   /* old moves with no kept result, dropped without an answer */
    uint64_t rules_total[SWEEP_WIRE_RULE_COUNT]; /* times each rule acted, all sessions */
    uint64_t errors_by_code[SWEEP_WIRE_CODE_COUNT]; /* Errors sent, by code; they sum to errors_total */
    uint64_t bytes_in[2];     /* received, indexed by transport (0 TCP, 1 UDP: sweep__transport) */
    uint64_t bytes_out[2];    /* handed to the socket, the same way */
    uint64_t ticks_total;     /* world ticks run, all worlds */
    uint64_t tick_ns_total;   /* time spent running them */
    uint64_t move_ns_total;   /* time spent applying Moves (one or a batch's), answers not included */
    uint64_t handoffs[2];     /* passed to the thread of their world (threads.c): connections, datagrams */
    uint64_t worlds_opened;   /* OpenWorld that opened a world (world_open.c), on the thread that answered */
    uint64_t worlds_closed;   /* worlds ended by a CloseWorld, on the thread that ran them */
    uint64_t tick_ns[SWEEP__TICK_SAMPLES];
    uint32_t tick_count; /* samples held, <= SWEEP__TICK_SAMPLES */
    uint32_t tick_next;  /* ring position */
} sweep__stats;

/* One tick of ns nanoseconds. */
void sweep__stats_record_tick(sweep__stats *st, uint64_t ns);

/* One timer callback ran `steps` ticks (>= 1) in `ns` nanoseconds: each
 * goes into the ring as ns / steps, and into the totals. */
void sweep__stats_record_ticks(sweep__stats *st, uint64_t ns, unsigned steps);

/* One Error was sent: errors_total and its code's count (a code this build
 * does not know is in the total only). */
void sweep__stats_error(sweep__stats *st, unsigned code);

/* p in [0, 100]: nearest-rank percentile of the recorded ticks, 0 if none. */
uint64_t sweep__stats_tick_percentile(const sweep__stats *st, unsigned p);

#endif
