/*
 * histogram.h - internal: a latency histogram of fixed buckets, what the
 * metrics endpoint exposes as a Prometheus histogram (server/metrics.c).
 *
 * Why buckets and not the percentiles of a ring: percentiles of several
 * worlds or pods cannot be combined, bucket counts can (summed, then a
 * quantile estimated from the sum). The bounds span what sweepd's ticks
 * and moves take, from a few microseconds (a tick of a world with nothing
 * moving, one move on a small map) to a quarter of a second (a stalled
 * loop), with three bounds a decade (1, 2.5, 5) so that an estimated
 * quantile is within a factor of 2.5 of the truth.
 *
 * Counts are per bucket here (an observation adds to one), made
 * cumulative when rendered. Recording is a few comparisons and three
 * additions; everything belongs to the thread that records, and is read
 * by others only as a copy published under a lock (metrics.h).
 */
#ifndef SWEEP_SERVER_HISTOGRAM_H
#define SWEEP_SERVER_HISTOGRAM_H

#include <stdint.h>

/* Finite upper bounds; the last bucket (+Inf) holds what is above them all. */
#define SWEEP__HISTOGRAM_BOUNDS 15u

typedef struct sweep__histogram {
    uint64_t bucket[SWEEP__HISTOGRAM_BOUNDS + 1]; /* observations in (bound[i-1], bound[i]]; the last, above all */
    uint64_t count;
    uint64_t sum_ns;
} sweep__histogram;

/* The finite upper bounds in nanoseconds, ascending. */
extern const uint64_t sweep__histogram_bound_ns[SWEEP__HISTOGRAM_BOUNDS];

/* One observation of ns nanoseconds. */
void sweep__histogram_observe(sweep__histogram *h, uint64_t ns);

/* n observations of ns nanoseconds each (a timer callback that ran n ticks). */
void sweep__histogram_observe_n(sweep__histogram *h, uint64_t ns, uint64_t n);

#endif
