/*
 * test_tick_clock.c - the client's estimate of the server's tick
 * (client-sdk/tick_clock.h), fed with synthetic arrival times: a server
 * that started at a known time on the client's clock, ticks at a known
 * rate and sends each tick's WorldState at once, over a link with known
 * trips down and up plus jitter, loss and clock drift, all from a fixed
 * seed. The true tick of a move sent at t is the tick due when it arrives,
 * floor((t + up - start) / period); the estimate must give it exactly when
 * the fastest messages got through, within one tick near tick boundaries
 * otherwise, never go back, and say 0 while it knows nothing. A server
 * slow to read its moves (a loaded machine) is learnt from the ticks the
 * answered moves met, late answers among them outvoted. The next tick's
 * due time, which a game server sends its batches after, is the fastest
 * arrival of that tick's messages.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "client-sdk/tick_clock.h"
#include "tests/test_rng.h"

#define RATE 64.0
#define PERIOD_NS (1e9 / RATE)
#define START_NS 5000000000.0 /* the server's tick 0 on the client's clock */
#define DOWN_NS 200000.0
#define UP_NS 300000.0

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* Uniform in [0, 1), from a fixed seed. */
static double uniform(void)
{
    return (double)(test_rng_next(&rng) >> 11) / 9007199254740992.0;
}

/* The link: a message's extra delay, 0 for one in ten (the fastest), up to
 * jitter_ns for the others. */
static double delay(double jitter_ns)
{
    return uniform() < 0.1 ? 0.0 : uniform() * jitter_ns;
}

/* Feeds tick k's WorldState (the server's clock `rate_scale` times as fast
 * as the client's) unless lost, and a round trip measured then. */
static void feed(sweep_tick_clock *k, uint64_t tick, double jitter_ns, double loss, double rate_scale)
{
    if (uniform() < loss)
        return;
    double sent = START_NS + (double)tick * PERIOD_NS / rate_scale;
    double got = sent + DOWN_NS + delay(jitter_ns);
    sweep_tick_clock_heard(k, tick, (uint64_t)got);
    sweep_tick_clock_round_trip(k, (uint64_t)(DOWN_NS + UP_NS + delay(jitter_ns)), (uint64_t)got);
}

/* The tick a move sent at t meets on that server. */
static uint64_t true_tick(double t, double rate_scale)
{
    return (uint64_t)floor((t + UP_NS - START_NS) / (PERIOD_NS / rate_scale));
}

/* How far (ns) the move's arrival is from the nearest tick boundary. */
static double to_boundary(double t, double rate_scale)
{
    double p = PERIOD_NS / rate_scale, x = fmod(t + UP_NS - START_NS, p);
    return x < p - x ? x : p - x;
}

typedef struct run {
    int moves, exact, off_by_one, worse, backwards;
} run;

/* Ticks 1 .. ticks of the server, a move sent at a random time within
 * each, estimated just before the next tick's message arrives. */
static run simulate(int ticks, double jitter_ns, double loss, double rate_scale, double near_ns)
{
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    run r = {0};
    uint64_t last = 0;
    for (int n = 1; n <= ticks; n++) {
        feed(&k, (uint64_t)n, jitter_ns, loss, rate_scale);
        double t = START_NS + ((double)n + uniform()) * PERIOD_NS / rate_scale + DOWN_NS;
        uint64_t e = sweep_tick_clock_estimate(&k, (uint64_t)t);
        if (e == 0)
            continue; /* nothing heard yet: unknown */
        r.backwards += e < last;
        last = e;
        if (n < 3 * (int)RATE || to_boundary(t, rate_scale) < near_ns)
            continue; /* the first windows, and moves too near a boundary to judge */
        uint64_t want = true_tick(t, rate_scale);
        r.moves++;
        if (e == want)
            r.exact++;
        else if (e + 1 == want || e == want + 1)
            r.off_by_one++;
        else
            r.worse++;
    }
    return r;
}

static void unknown_until_heard(void **state)
{
    (void)state;
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    assert_int_equal(sweep_tick_clock_estimate(&k, 123456789), 0);
    sweep_tick_clock_heard(&k, 0, 1000); /* tick 0 teaches nothing */
    assert_int_equal(sweep_tick_clock_estimate(&k, 123456789), 0);
    assert_int_equal(k.ticks_heard, 0);
    sweep_tick_clock_heard(&k, 10, (uint64_t)(START_NS + 10 * PERIOD_NS + DOWN_NS));
    assert_int_equal(k.newest_tick, 10);
    /* No round trip yet: the server's tick now, as last heard. */
    assert_int_equal(sweep_tick_clock_rtt(&k), 0);
    assert_int_equal(sweep_tick_clock_estimate(&k, (uint64_t)(START_NS + 10.5 * PERIOD_NS + DOWN_NS)), 10);
    /* A rate that is no rate: always unknown. */
    sweep_tick_clock_init(&k, 0.0);
    sweep_tick_clock_heard(&k, 10, 1000);
    assert_int_equal(sweep_tick_clock_estimate(&k, 2000), 0);
    sweep_tick_clock_init(&k, NAN);
    sweep_tick_clock_heard(&k, 10, 1000);
    assert_int_equal(sweep_tick_clock_estimate(&k, 2000), 0);
    /* Rates no server announces, whose period overflows or vanishes. */
    const double absurd[] = {1e-300, 1e-4, 1e5, 1e300, INFINITY, -60.0};
    for (size_t i = 0; i < sizeof absurd / sizeof absurd[0]; i++) {
        sweep_tick_clock_init(&k, absurd[i]);
        sweep_tick_clock_heard(&k, 10, 1000);
        assert_int_equal(sweep_tick_clock_estimate(&k, 2000), 0);
        assert_int_equal(sweep_tick_clock_next_due(&k, 2000), 0);
    }
    /* Ticks a peer names past any server's life: estimates saturate, never
     * wrap or leave the type. */
    sweep_tick_clock_init(&k, 10000.0);
    sweep_tick_clock_heard(&k, UINT64_MAX, 1000);
    assert_int_equal(sweep_tick_clock_estimate(&k, UINT64_MAX), UINT64_MAX);
    assert_true(sweep_tick_clock_next_due(&k, UINT64_MAX) == UINT64_MAX);
}

/* The round trip reaches a tick ahead: a move sent just before a boundary
 * (as the server's clock goes) arrives after it. */
static void round_trip_counts(void **state)
{
    (void)state;
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    sweep_tick_clock_heard(&k, 20, (uint64_t)(START_NS + 20 * PERIOD_NS + DOWN_NS));
    sweep_tick_clock_round_trip(&k, (uint64_t)(DOWN_NS + UP_NS), 0);
    assert_int_equal(sweep_tick_clock_rtt(&k), (uint64_t)(DOWN_NS + UP_NS));
    double just_before = START_NS + 21 * PERIOD_NS - UP_NS - 1000; /* arrives 1 us before tick 21 */
    assert_int_equal(sweep_tick_clock_estimate(&k, (uint64_t)just_before), 20);
    double just_after = START_NS + 21 * PERIOD_NS - UP_NS + 1000;
    assert_int_equal(sweep_tick_clock_estimate(&k, (uint64_t)just_after), 21);
    /* Never back: an earlier send time gets the estimate already given. */
    assert_int_equal(sweep_tick_clock_estimate(&k, (uint64_t)just_before), 21);
}

/* Jitter and loss: the fastest messages fix the minima, so the estimate
 * is exact whenever the arrival is more than a microsecond from a tick
 * boundary (the sampled times are whole nanoseconds) and one of them got
 * through in the window. With 90% lost and jitter on the rest, a window
 * may hold none of the fastest (one in a hundred ticks sends one): then
 * a move near a boundary, by as much as the window's fastest was late,
 * is a tick off, and none more. */
static void exact_under_jitter_and_loss(void **state)
{
    (void)state;
    const double jitter[] = {0.0, 2e6, 20e6};
    const double loss[] = {0.0, 0.3, 0.9};
    for (int j = 0; j < 3; j++)
        for (int l = 0; l < 3; l++) {
            run r = simulate(64 * 60, jitter[j], loss[l], 1.0, 1000.0);
            if (getenv("SWEEP_TEST_VERBOSE"))
                fprintf(stderr, "jitter %.0f ms loss %.0f%%: %d of %d exact, %d off by one, %d worse\n",
                        jitter[j] / 1e6, loss[l] * 100, r.exact, r.moves, r.off_by_one, r.worse);
            assert_true(r.moves > 1000);
            assert_int_equal(r.backwards, 0);
            assert_int_equal(r.worse, 0);
            if (loss[l] < 0.5 || jitter[j] == 0.0)
                assert_int_equal(r.exact, r.moves);
            else
                assert_true(r.off_by_one * 100 < 3 * r.moves); /* under 3% */
        }
}

/* A server clock 100 ppm fast or slow, for ten minutes: the windows
 * follow it, so no estimate is more than a tick off and those a tick off
 * are near boundaries (the drift over two windows is 0.4 ms of a 15.6 ms
 * tick). */
static void follows_drift(void **state)
{
    (void)state;
    const double scale[] = {1.0001, 0.9999};
    for (int i = 0; i < 2; i++) {
        run r = simulate(64 * 600, 2e6, 0.3, scale[i], 1000.0);
        if (getenv("SWEEP_TEST_VERBOSE"))
            fprintf(stderr, "clock x%.4f: %d of %d exact, %d off by one, %d worse\n", scale[i], r.exact, r.moves,
                    r.off_by_one, r.worse);
        assert_int_equal(r.worse, 0);
        assert_int_equal(r.backwards, 0);
        assert_true(r.off_by_one * 20 < r.moves); /* under 5% */
        /* Away from boundaries by more than the drift of two windows: exact. */
        run far = simulate(64 * 600, 2e6, 0.3, scale[i], 500000.0);
        assert_int_equal(far.exact, far.moves);
    }
}

/* Only late messages for a while (the fastest path gone): the minima rise
 * as the windows pass, the raw estimate falls, and what is given holds. */
static void never_goes_back(void **state)
{
    (void)state;
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    for (uint64_t n = 1; n <= 64; n++)
        sweep_tick_clock_heard(&k, n, (uint64_t)(START_NS + (double)n * PERIOD_NS + DOWN_NS));
    uint64_t before = 0, last = 0;
    for (uint64_t n = 65; n <= 64 * 10; n++) {
        double got = START_NS + (double)n * PERIOD_NS + DOWN_NS + 3 * PERIOD_NS; /* three ticks late */
        sweep_tick_clock_heard(&k, n, (uint64_t)got);
        uint64_t e = sweep_tick_clock_estimate(&k, (uint64_t)got);
        if (n == 65)
            before = e;
        assert_true(e >= last);
        last = e;
    }
    /* It heard tick 640 three ticks late, so it believes the server is at
     * 640 when it is at 643: yet it never went back below what it gave. */
    assert_true(before >= 65 + 3);
    assert_true(last >= 640);
}

/* A server that reads each move 4 ms (plus up to 0.2 ms) after it
 * arrives, while Pings come back at once: the smallest round trip says
 * nothing of that, the answers' ticks do. After 256 answers, one in ten of
 * them late by 30 ms (a first copy lost), every move more than 0.3 ms
 * from a boundary is estimated exactly; on the round trip alone a quarter
 * of them would be a tick early. */
static void learns_the_servers_lag(void **state)
{
    (void)state;
    const double read = 4e6;
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    int moves = 0, exact = 0, before_exact = 0, before_moves = 0;
    for (uint64_t n = 1; n <= 64 * 30; n++) {
        double got = START_NS + (double)n * PERIOD_NS + DOWN_NS;
        sweep_tick_clock_heard(&k, n, (uint64_t)got);
        sweep_tick_clock_round_trip(&k, (uint64_t)(DOWN_NS + UP_NS), (uint64_t)got);
        double t = got + uniform() * PERIOD_NS;
        double r = read + uniform() * 0.2e6;
        uint64_t want = (uint64_t)floor((t + UP_NS + r - START_NS) / PERIOD_NS);
        double x = fmod(t + UP_NS + read + 0.1e6 - START_NS, PERIOD_NS);
        int judged = x > 0.3e6 && PERIOD_NS - x > 0.3e6;
        uint64_t e = sweep_tick_clock_estimate(&k, (uint64_t)t);
        if (k.met_count == 0) {
            before_moves += judged;
            before_exact += judged && e == want;
        } else if (k.met_count == SWEEP_TICK_CLOCK_MET) {
            moves += judged;
            exact += judged && e == want;
        }
        /* Its answer: the tick it met (or, one in ten, a later copy's). */
        if (n > 64 * 2)
            sweep_tick_clock_met(&k, (uint64_t)t, uniform() < 0.1 ? want + 2 : want);
    }
    if (getenv("SWEEP_TEST_VERBOSE"))
        fprintf(stderr, "round trip alone: %d of %d exact; learnt: %d of %d exact, lag %.3f ms\n", before_exact,
                before_moves, exact, moves, sweep_tick_clock_lag(&k) / 1e6);
    assert_true(before_moves > 50 && moves > 1000);
    assert_true(before_exact * 10 < before_moves * 9); /* the round trip alone misses many */
    assert_int_equal(exact, moves);
}

/* A message whose arrival time went back before the newest tick's (its
 * kernel stamp moved to the monotonic clock across a step of the real-time
 * clock, 5 s forward) teaches nothing: taken, its offset would be 5 s low
 * and every estimate 320 ticks ahead, held there. */
static void ignores_an_arrival_before_the_newest(void **state)
{
    (void)state;
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    double got = 0;
    uint64_t n;
    for (n = 1; n <= 64 * 3; n++) {
        got = START_NS + (double)n * PERIOD_NS + DOWN_NS;
        sweep_tick_clock_heard(&k, n, (uint64_t)got);
        sweep_tick_clock_round_trip(&k, (uint64_t)(DOWN_NS + UP_NS), (uint64_t)got);
    }
    double t = got + PERIOD_NS / 2;
    assert_int_equal(sweep_tick_clock_estimate(&k, (uint64_t)t), true_tick(t, 1.0));
    uint64_t heard = k.ticks_heard;
    sweep_tick_clock_heard(&k, n, (uint64_t)(got + PERIOD_NS - 5e9));
    for (int i = 1; i <= 64; i++) {
        t = got + i * PERIOD_NS / 4;
        uint64_t e = sweep_tick_clock_estimate(&k, (uint64_t)t);
        assert_true(e <= true_tick(t, 1.0) + 1);
    }
    assert_int_equal(k.ticks_heard, heard);
    assert_int_equal(k.newest_tick, n - 1);
    /* The messages after it arrive as they should and are taken. */
    got = START_NS + (double)(n + 1) * PERIOD_NS + DOWN_NS;
    sweep_tick_clock_heard(&k, n + 1, (uint64_t)got);
    assert_int_equal(k.ticks_heard, heard + 1);
    assert_int_equal(k.newest_tick, n + 1);
}

/* sweepd runs at most 1,000 due ticks at once: a server stalled 20 s at
 * 64 ticks a second runs 1,000 and skips the other 280, numbering on from
 * a start 280 periods later (server/world_clock.c). The client heard
 * nothing meanwhile, so its window starts afresh with the next message,
 * and so do the estimates: the first one after is the server's new tick,
 * not one 280 ahead held until the server caught up with it, nor one
 * learnt from moves answered on the old clock. */
static void follows_a_server_that_re_anchored(void **state)
{
    (void)state;
    const double read = 4e6; /* the server reads each move 4 ms late */
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    double start = START_NS, last = 0;
    uint64_t n, tick = 0;
    for (n = 1; n <= 64 * 10; n++) {
        double got = start + (double)n * PERIOD_NS + DOWN_NS;
        sweep_tick_clock_heard(&k, n, (uint64_t)got);
        sweep_tick_clock_round_trip(&k, (uint64_t)(DOWN_NS + UP_NS), (uint64_t)got);
        double t = got + PERIOD_NS / 2;
        sweep_tick_clock_estimate(&k, (uint64_t)t);
        sweep_tick_clock_met(&k, (uint64_t)t, (uint64_t)floor((t + UP_NS + read - start) / PERIOD_NS));
        last = got;
        tick = n;
    }
    /* The stall: the game goes on estimating for 20 s, hearing nothing. */
    double stall = 20e9;
    for (double t = last; t < last + stall; t += PERIOD_NS)
        sweep_tick_clock_estimate(&k, (uint64_t)t);
    assert_true(k.given > tick + 1200);
    /* The server's loop comes back: 1,000 ticks run, the rest skipped. */
    double resumed = last - DOWN_NS + stall;
    tick += 1000;
    start = resumed - (double)tick * PERIOD_NS;
    for (int j = 0; j < 64 * 2; j++, tick++) {
        double got = start + (double)tick * PERIOD_NS + DOWN_NS;
        sweep_tick_clock_heard(&k, tick, (uint64_t)got);
        double t = got + PERIOD_NS / 4;
        uint64_t want = (uint64_t)floor((t + UP_NS + read - start) / PERIOD_NS);
        uint64_t e = sweep_tick_clock_estimate(&k, (uint64_t)t);
        if (getenv("SWEEP_TEST_VERBOSE") && j < 4)
            fprintf(stderr, "after the stall, message %d: estimate %llu, the server's %llu\n", j,
                    (unsigned long long)e, (unsigned long long)want);
        assert_true(e + 1 >= want && e <= want + 1);
        sweep_tick_clock_met(&k, (uint64_t)t, want);
    }
}

/* The next tick's due time: unknown before anything is heard; then, with
 * jitter and loss, the time the fastest message of the first tick due
 * after the asked time arrives, to the nanosecond's rounding, so a batch
 * sent a fixed time after it lands that long after the tick's messages. */
static void next_due_is_the_ticks_fastest_arrival(void **state)
{
    (void)state;
    sweep_tick_clock k;
    sweep_tick_clock_init(&k, RATE);
    assert_int_equal(sweep_tick_clock_next_due(&k, (uint64_t)START_NS), 0);
    int checked = 0;
    for (int n = 1; n <= 10 * (int)RATE; n++) {
        feed(&k, (uint64_t)n, 2e6, 0.2, 1.0);
        double t = START_NS + ((double)n + uniform()) * PERIOD_NS;
        uint64_t d = sweep_tick_clock_next_due(&k, (uint64_t)t);
        assert_true(d > 0);
        assert_true((double)d > t && (double)d <= t + PERIOD_NS + 1.0);
        if (n < 3 * (int)RATE)
            continue; /* until the fastest messages were heard */
        double m = floor((t - DOWN_NS - START_NS) / PERIOD_NS) + 1.0;
        double want = START_NS + m * PERIOD_NS + DOWN_NS;
        assert_true(fabs((double)d - want) <= 2.0);
        checked++;
    }
    assert_true(checked > 400);
    /* A rate that is no rate: never known. */
    sweep_tick_clock_init(&k, 0.0);
    sweep_tick_clock_heard(&k, 10, 1000);
    assert_int_equal(sweep_tick_clock_next_due(&k, 2000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_until_heard),
        cmocka_unit_test(round_trip_counts),
        cmocka_unit_test(exact_under_jitter_and_loss),
        cmocka_unit_test(follows_drift),
        cmocka_unit_test(never_goes_back),
        cmocka_unit_test(learns_the_servers_lag),
        cmocka_unit_test(next_due_is_the_ticks_fastest_arrival),
        cmocka_unit_test(ignores_an_arrival_before_the_newest),
        cmocka_unit_test(follows_a_server_that_re_anchored),
    };
    return cmocka_run_group_tests_name("tick clock", tests, NULL, NULL);
}
