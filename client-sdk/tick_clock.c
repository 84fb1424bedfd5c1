/*
 * tick_clock.c - the estimate of the tick a move will meet on the server
 * (tick_clock.h says the estimator and how it behaves).
 *
 * Times are doubles of nanoseconds: a monotonic clock's readings since
 * boot stay far below 2^53 ns (104 days), so the differences taken here
 * are exact to the nanosecond; and none of this reaches a result, only
 * which tick's poses a prediction is made against.
 */
#include "client-sdk/tick_clock.h"

#include <math.h>
#include <string.h>

static void min_add(sweep_tick_clock_min *m, double v, uint64_t now)
{
    uint64_t age = m->have && now > m->cur_start ? now - m->cur_start : 0;
    if (!m->have || age >= 2 * SWEEP_TICK_CLOCK_WINDOW_NS) {
        /* Nothing, or nothing recent: both halves start afresh. */
        m->cur = v;
        m->cur_start = now;
        m->have = 1;
        m->have_prev = 0;
    } else if (age >= SWEEP_TICK_CLOCK_WINDOW_NS) {
        m->prev = m->cur;
        m->have_prev = 1;
        m->cur = v;
        m->cur_start = now;
    } else if (v < m->cur) {
        m->cur = v;
    }
}

static double min_value(const sweep_tick_clock_min *m)
{
    return m->have_prev && m->prev < m->cur ? m->prev : m->cur;
}

void sweep_tick_clock_init(sweep_tick_clock *k, double tick_rate)
{
    memset(k, 0, sizeof *k);
    if (isfinite(tick_rate) && tick_rate > 0.0) {
        k->tick_rate = tick_rate;
        k->period_ns = 1e9 / tick_rate;
    }
}

void sweep_tick_clock_heard(sweep_tick_clock *k, uint64_t tick, uint64_t received_ns)
{
    if (tick == 0 || k->tick_rate == 0.0)
        return;
    min_add(&k->offset, (double)received_ns - (double)tick * k->period_ns, received_ns);
    if (tick >= k->newest_tick) {
        k->newest_tick = tick;
        k->newest_ns = received_ns;
    }
    k->ticks_heard++;
}

void sweep_tick_clock_round_trip(sweep_tick_clock *k, uint64_t rtt_ns, uint64_t now_ns)
{
    min_add(&k->rtt, (double)rtt_ns, now_ns);
    k->rtts_heard++;
}

uint64_t sweep_tick_clock_rtt(const sweep_tick_clock *k)
{
    return k->rtt.have ? (uint64_t)min_value(&k->rtt) : 0;
}

uint64_t sweep_tick_clock_estimate(sweep_tick_clock *k, uint64_t send_ns)
{
    if (k->tick_rate == 0.0 || !k->offset.have)
        return 0;
    double since = (double)send_ns - min_value(&k->offset) + (double)sweep_tick_clock_rtt(k);
    uint64_t e = since > 0.0 ? (uint64_t)floor(since / k->period_ns) : 0;
    if (e < k->given)
        e = k->given;
    k->given = e;
    return e;
}
