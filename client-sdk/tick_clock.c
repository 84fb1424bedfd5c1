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
#include <stdlib.h>
#include <string.h>

/* Whether a sample at now starts m afresh: none yet, or none within the
 * window's whole span (two windows since the newer half began, so two to
 * four seconds after the last sample). */
static int min_stale(const sweep_tick_clock_min *m, uint64_t now)
{
    return !m->have || (now > m->cur_start && now - m->cur_start >= 2 * SWEEP_TICK_CLOCK_WINDOW_NS);
}

static void min_add(sweep_tick_clock_min *m, double v, uint64_t now)
{
    uint64_t age = m->have && now > m->cur_start ? now - m->cur_start : 0;
    if (min_stale(m, now)) {
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

/* x as a uint64_t: 0 below 1 (or not a number), UINT64_MAX past it. Ticks
 * and times heard from a peer may be anything, and a double past the
 * type's range has no value as one. */
static uint64_t whole(double x)
{
    if (!(x >= 1.0))
        return 0;
    return x < 18446744073709551616.0 ? (uint64_t)x : UINT64_MAX;
}

void sweep_tick_clock_init(sweep_tick_clock *k, double tick_rate)
{
    if (k == NULL)
        return;
    memset(k, 0, sizeof *k);
    if (tick_rate >= SWEEP_TICK_CLOCK_MIN_RATE && tick_rate <= SWEEP_TICK_CLOCK_MAX_RATE) {
        k->tick_rate = tick_rate;
        k->period_ns = 1e9 / tick_rate;
    }
}

void sweep_tick_clock_heard(sweep_tick_clock *k, uint64_t tick, uint64_t received_ns)
{
    if (k == NULL || tick == 0 || k->tick_rate == 0.0)
        return;
    /* Messages are taken in the order they arrived, so one that says it
     * arrived before the newest tick did has a time gone wrong (a clock
     * stepped under its stamp): its offset would be low by as much, and
     * every estimate that far ahead until the window forgot it. */
    if (received_ns < k->newest_ns)
        return;
    if (k->offset.have && min_stale(&k->offset, received_ns)) {
        /* Nothing heard for the window's span: the server may have stalled
         * and re-anchored its ticks (sweepd skips what it cannot catch up),
         * so the estimates given and the ticks answered moves met stand on
         * a clock it no longer keeps. The offset starts afresh below. */
        k->given = 0;
        k->met_count = k->met_next = 0;
        k->lag_offset = NAN;
    }
    min_add(&k->offset, (double)received_ns - (double)tick * k->period_ns, received_ns);
    if (tick >= k->newest_tick) {
        k->newest_tick = tick;
        k->newest_ns = received_ns;
    }
    k->ticks_heard++;
}

void sweep_tick_clock_round_trip(sweep_tick_clock *k, uint64_t rtt_ns, uint64_t now_ns)
{
    if (k == NULL)
        return;
    min_add(&k->rtt, (double)rtt_ns, now_ns);
    k->rtts_heard++;
}

uint64_t sweep_tick_clock_rtt(const sweep_tick_clock *k)
{
    return k && k->rtt.have ? (uint64_t)min_value(&k->rtt) : 0;
}

void sweep_tick_clock_met(sweep_tick_clock *k, uint64_t sent_ns, uint64_t tick)
{
    if (k == NULL || tick == 0 || k->tick_rate == 0.0)
        return;
    k->met_sent[k->met_next] = sent_ns;
    k->met_tick[k->met_next] = tick;
    k->met_next = (k->met_next + 1) % SWEEP_TICK_CLOCK_MET;
    if (k->met_count < SWEEP_TICK_CLOCK_MET)
        k->met_count++;
    k->mets_heard++;
    k->lag_offset = NAN; /* learn again at the next estimate */
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The lag the most answered moves agree on (tick_clock.h): each move's
 * span [u, u + period), u = tick * period - (sent - offset), sorted by u;
 * for each u[j] the spans holding it are those from the first u above
 * u[j] - period; the best u[j] and every lag up to that first span's end
 * are held by as many, and the middle of that is taken. */
static void learn(sweep_tick_clock *k, double offset)
{
    double u[SWEEP_TICK_CLOCK_MET];
    uint32_t n = k->met_count;
    for (uint32_t i = 0; i < n; i++)
        u[i] = (double)k->met_tick[i] * k->period_ns - ((double)k->met_sent[i] - offset);
    qsort(u, n, sizeof *u, by_value);
    uint32_t best = 0, best_j = 0, best_lo = 0;
    for (uint32_t j = 0, lo = 0; j < n; j++) {
        while (u[lo] <= u[j] - k->period_ns)
            lo++;
        if (j - lo + 1 > best) {
            best = j - lo + 1;
            best_j = j;
            best_lo = lo;
        }
    }
    k->lag_ns = (u[best_j] + u[best_lo] + k->period_ns) / 2;
    k->lag_offset = offset;
}

double sweep_tick_clock_lag(sweep_tick_clock *k)
{
    if (k == NULL)
        return 0.0;
    if (k->met_count == 0 || !k->offset.have)
        return (double)sweep_tick_clock_rtt(k);
    double offset = min_value(&k->offset);
    if (!(k->lag_offset == offset))
        learn(k, offset);
    return k->lag_ns;
}

uint64_t sweep_tick_clock_estimate(sweep_tick_clock *k, uint64_t send_ns)
{
    if (k == NULL || k->tick_rate == 0.0 || !k->offset.have)
        return 0;
    double since = (double)send_ns - min_value(&k->offset) + sweep_tick_clock_lag(k);
    uint64_t e = whole(floor(since / k->period_ns));
    if (e < k->given)
        e = k->given;
    k->given = e;
    return e;
}

uint64_t sweep_tick_clock_next_due(const sweep_tick_clock *k, uint64_t after_ns)
{
    if (k == NULL || k->tick_rate == 0.0 || !k->offset.have)
        return 0;
    double offset = min_value(&k->offset);
    double n = floor(((double)after_ns - offset) / k->period_ns) + 1.0;
    double due = offset + n * k->period_ns;
    return whole(ceil(due));
}
