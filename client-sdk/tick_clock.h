/*
 * tick_clock.h - the client's estimate of the server's tick: at which tick
 * the server will apply a move sent now, so that a prediction among movers
 * meets the poses the server's move will meet (predict.h).
 *
 * The server ticks on its own monotonic clock: tick n runs when n periods
 * have passed since it started (server/README.md), and a request runs every
 * tick that is due before it is handled, so a move meets tick
 * floor((arrival - start) / period), counted on the server. The client
 * cannot read that clock, but every message the server sends names the
 * tick it was sent at (Message.server_tick), and a message of tick k left
 * no earlier than when tick k came due. So for each message heard,
 *
 *     offset = received - k * period
 *
 * is the server's start on the client's clock plus the trip down plus how
 * long after the tick the message left; the smallest offset seen is the
 * start plus the fastest trip down (a WorldState push leaves at once after
 * its tick). A move sent at `send` then arrives a trip up later, and
 *
 *     tick = floor((send - offset_min + lag) / period)
 *
 * where lag is the move's own trip up and the time the server took to
 * read it, plus the fastest trip down that offset_min holds: the newest
 * tick seen, plus the local time since, plus the age of what was seen,
 * plus the move's trip. Until moves are answered, lag is the smallest
 * round trip measured (client*.c: from each move's send to its answer, and
 * each Ping to its Pong). Then each answer says which tick its move met,
 * k, which bounds that move's lag to [k * period - (send - offset_min),
 * that + period): lag is taken as the middle of the span that the most of
 * the last SWEEP_TICK_CLOCK_MET answers' spans share. So a server that is
 * slow to read its socket (a loaded machine) is learnt, and an answer
 * that came late (a lost first copy, a stall) is outvoted. The minima are
 * over a sliding window of two to four seconds
 * (SWEEP_TICK_CLOCK_WINDOW_NS), so the estimate follows the two clocks'
 * drift. An estimate never goes below one given before (ticks only
 * increase on the server) while the server is heard. When no message
 * named a tick for the window's whole span (four seconds since its newer
 * half began: two to four seconds of silence), the next one starts the clock
 * afresh, the estimates given and the answered moves forgotten with the
 * minima: a server stalled longer than it catches up on re-anchors its
 * ticks (sweepd runs at most 1,000 due ticks at once and numbers on from
 * a start as much later as it skipped), and what was learnt before would
 * put every estimate that many ticks ahead, held there until the server
 * caught up. At up to 250 ticks a second such a stall is always that long;
 * a faster server's shorter one is followed by the window within four
 * seconds, and the estimate then stands still for the ticks it skipped.
 *
 * How it behaves:
 *   - jitter: only the fastest messages set offset_min, so late ones
 *     change nothing; the lag is the one most moves had, so a move that
 *     itself travels later than most (or that a busy server reads late)
 *     meets a later tick than estimated, and its answer differs from the
 *     prediction by that much lift travel (the predictor takes the answer
 *     and replays, predict.h);
 *   - loss: fewer samples, the same minima; with none at all for a whole
 *     window the estimate runs on the last ones (the clocks drift apart by
 *     parts per million: nothing in a window);
 *   - times: each message's is when it arrived (the kernel's stamp of it,
 *     client.h's received_ns), so messages are heard in the order they
 *     came, and one timed before the newest tick's arrival has a time gone
 *     wrong and is not taken;
 *   - a move sent within the timing noise (tens of microseconds on one
 *     machine) of a tick boundary can fall either side of it;
 *   - before the first message with a tick, and without a tick rate, the
 *     estimate is 0 (unknown).
 * Nothing here reaches the core or a result: this arithmetic only chooses
 * which tick's poses a prediction uses.
 */
#ifndef SWEEP_CLIENT_TICK_CLOCK_H
#define SWEEP_CLIENT_TICK_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The window of the minima: samples older than two windows are forgotten. */
#define SWEEP_TICK_CLOCK_WINDOW_NS 2000000000ull
/* Answered moves the lag is learnt from: the newest this many. */
#define SWEEP_TICK_CLOCK_MET 256u

/* One minimum over a sliding window, as two halves: the current one and
 * the one before it. */
typedef struct sweep_tick_clock_min {
    double cur, prev;   /* minima of the two halves; prev valid when have_prev */
    uint64_t cur_start; /* local ns the current half began */
    int have, have_prev;
} sweep_tick_clock_min;

typedef struct sweep_tick_clock {
    double tick_rate;           /* server ticks per second (Welcome.tick_rate); 0: unknown */
    double period_ns;           /* 1e9 / tick_rate */
    sweep_tick_clock_min offset; /* received - tick * period, ns */
    sweep_tick_clock_min rtt;    /* round trips, ns */
    uint64_t newest_tick;       /* the newest server tick heard */
    uint64_t newest_ns;         /* when it was heard */
    uint64_t given;             /* the largest estimate given (never less after) */
    uint64_t ticks_heard, rtts_heard; /* samples taken */
    /* Answered moves: when each was sent and the tick it met (a ring). */
    uint64_t met_sent[SWEEP_TICK_CLOCK_MET], met_tick[SWEEP_TICK_CLOCK_MET];
    uint32_t met_count, met_next;
    double lag_ns;              /* learnt from them; valid when met_count > 0 */
    double lag_offset;          /* the offset_min it was learnt against */
    uint64_t mets_heard;
} sweep_tick_clock;

/* The tick rates a clock takes (Welcome.tick_rate): a map's are 1 to
 * 1,000 a second and sweepd's --tick-rate at most 10,000; below a tick
 * every 1,000 s no clock is kept either, so that a period and a tick
 * times it stay finite numbers whatever ticks a peer names. */
#define SWEEP_TICK_CLOCK_MIN_RATE 1e-3
#define SWEEP_TICK_CLOCK_MAX_RATE 10000.0

/* A clock for a server of tick_rate ticks per second (a rate outside
 * [SWEEP_TICK_CLOCK_MIN_RATE, SWEEP_TICK_CLOCK_MAX_RATE], or not a number:
 * unknown, every estimate 0). Nothing heard yet.
 * None of these calls can report an error: given a NULL clock, those that
 * take a sample do nothing and those that answer say what a clock that
 * heard nothing says (0). */
void sweep_tick_clock_init(sweep_tick_clock *k, double tick_rate);

/* A message naming server tick `tick` arrived at received_ns (the local
 * monotonic clock, sweep_client_now_ns). Tick 0 (a message sent before
 * the world's first tick, or by no world) teaches nothing and is ignored;
 * so is a message said to arrive before the newest tick heard did
 * (messages are heard in the order they arrived). */
void sweep_tick_clock_heard(sweep_tick_clock *k, uint64_t tick, uint64_t received_ns);

/* A round trip of rtt_ns measured at now_ns. */
void sweep_tick_clock_round_trip(sweep_tick_clock *k, uint64_t rtt_ns, uint64_t now_ns);

/* The move sent at sent_ns met server tick `tick` (its answer's
 * server_tick). */
void sweep_tick_clock_met(sweep_tick_clock *k, uint64_t sent_ns, uint64_t tick);

/* The tick at which the server will apply a move sent at send_ns (see the
 * file comment); 0 before anything was heard. Never less than an estimate
 * given before, unless the clock started afresh since (a window's span
 * without a tick heard). */
uint64_t sweep_tick_clock_estimate(sweep_tick_clock *k, uint64_t send_ns);

/*
 * The first server tick due after after_ns, on the local clock: the offset
 * the estimate stands on plus a whole number of periods; 0 before anything
 * was heard. The offset is the server's start plus the quickest a message
 * of a tick came after it (the tick's own run, the trip down), so this is
 * the earliest a message of that tick can arrive here; on one machine,
 * some 0.1 to 0.4 ms after the tick came due on the server. The server
 * runs a due tick, and its pushes, before any request that arrives after
 * it: a game server sending one batch a tick keeps its batches from
 * waiting for them by sending each a fixed time after this
 * (client-sdk/README.md, "A batch a tick, in step with the server's").
 * It follows the two clocks' drift over the window.
 */
uint64_t sweep_tick_clock_next_due(const sweep_tick_clock *k, uint64_t after_ns);

/* The smallest round trip of the window (ns), 0 if none measured. */
uint64_t sweep_tick_clock_rtt(const sweep_tick_clock *k);

/* The lag (ns) an estimate made now adds to the time since offset_min: the
 * one learnt from answered moves, or the smallest round trip. */
double sweep_tick_clock_lag(sweep_tick_clock *k);

#ifdef __cplusplus
}
#endif

#endif
