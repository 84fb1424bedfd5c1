/*
 * limits.h - the per-session request rate limit: a token bucket.
 *
 * A session may spend `rate` requests per second on average and up to one
 * second's worth at once (burst = rate, at least 1). Refill is computed from
 * the monotonic clock at each take, so an idle session costs nothing. A
 * MoveBatch costs one token per move: the limit is on work, and batching
 * saves framing, not core time. rate 0 disables the limit.
 *
 * The other limits (frame, batch, entities, sessions, write queue) are
 * plain comparisons at the point where they apply; their values live in
 * sweep_server_options.
 */
#ifndef SWEEP_SERVER_LIMITS_H
#define SWEEP_SERVER_LIMITS_H

#include <stdint.h>

typedef struct sweep__bucket {
    double rate;     /* tokens per second; 0 = unlimited */
    double burst;    /* capacity */
    double tokens;
    uint64_t last_ns;
} sweep__bucket;

void sweep__bucket_init(sweep__bucket *b, double rate, uint64_t now_ns);

/* Takes `cost` tokens: 1 if granted, 0 if the session is over its rate (no
 * token is taken then). */
int sweep__bucket_take(sweep__bucket *b, double cost, uint64_t now_ns);

#endif
