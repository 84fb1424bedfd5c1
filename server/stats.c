/*
 * stats.c - tick-duration ring, percentiles and the counters that need
 * more than an increment (see stats.h).
 */
#include "server/stats.h"

#include <stdlib.h>
#include <string.h>

void sweep__stats_record_ticks(sweep__stats *st, uint64_t ns, unsigned steps)
{
    if (steps == 0)
        return;
    st->tick_ns[st->tick_next] = ns / steps;
    st->tick_next = (st->tick_next + 1) % SWEEP__TICK_SAMPLES;
    if (st->tick_count < SWEEP__TICK_SAMPLES)
        st->tick_count++;
    st->ticks_total += steps;
    st->tick_ns_total += ns;
}

void sweep__stats_record_tick(sweep__stats *st, uint64_t ns)
{
    sweep__stats_record_ticks(st, ns, 1);
}

void sweep__stats_error(sweep__stats *st, unsigned code)
{
    st->errors_total++;
    if (code < SWEEP_WIRE_CODE_COUNT)
        st->errors_by_code[code]++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t sweep__stats_tick_percentile(const sweep__stats *st, unsigned p)
{
    uint64_t tmp[SWEEP__TICK_SAMPLES];
    uint32_t n = st->tick_count;
    if (n == 0)
        return 0;
    memcpy(tmp, st->tick_ns, n * sizeof tmp[0]);
    qsort(tmp, n, sizeof tmp[0], cmp_u64);
    /* nearest rank: ceil(p/100 * n), 1-based */
    uint32_t rank = (uint32_t)(((uint64_t)p * n + 99) / 100);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return tmp[rank - 1];
}
