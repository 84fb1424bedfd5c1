/*
 * histogram.c - fixed-bucket latency histograms (see histogram.h).
 */
#include "server/histogram.h"

const uint64_t sweep__histogram_bound_ns[SWEEP__HISTOGRAM_BOUNDS] = {
    5000u,     10000u,    25000u,    50000u,     100000u,    250000u,    500000u,    1000000u,
    2500000u,  5000000u,  10000000u, 25000000u,  50000000u,  100000000u, 250000000u,
};

void sweep__histogram_observe_n(sweep__histogram *h, uint64_t ns, uint64_t n)
{
    unsigned i = 0;
    while (i < SWEEP__HISTOGRAM_BOUNDS && ns > sweep__histogram_bound_ns[i])
        i++;
    h->bucket[i] += n;
    h->count += n;
    h->sum_ns += ns * n;
}

void sweep__histogram_observe(sweep__histogram *h, uint64_t ns)
{
    sweep__histogram_observe_n(h, ns, 1);
}
