/*
 * bucket.h - a token bucket: a rate on average, a burst at once.
 *
 * A bucket may spend `rate` tokens per second on average and up to one
 * second's worth at once (burst = rate, at least 1). Refill is computed
 * from the caller's monotonic clock at each take, so an idle bucket costs
 * nothing. rate 0 disables it. sweepd limits a session's requests with one
 * (server/limits.h); the world library an owner's rule lines in the log.
 */
#ifndef SWEEP_SERVER_WORLD_BUCKET_H
#define SWEEP_SERVER_WORLD_BUCKET_H

#include <stdint.h>

typedef struct sweep__bucket {
    double rate;     /* tokens per second; 0 = unlimited */
    double burst;    /* capacity */
    double tokens;
    uint64_t last_ns;
} sweep__bucket;

void sweep__bucket_init(sweep__bucket *b, double rate, uint64_t now_ns);

/* Takes `cost` tokens: 1 if granted, 0 if over the rate (no token is
 * taken then). */
int sweep__bucket_take(sweep__bucket *b, double cost, uint64_t now_ns);

/* Gives back `cost` tokens taken for a request another bucket's owner
 * takes them for again (a Hello handed to another thread), up to the
 * burst. */
void sweep__bucket_give_back(sweep__bucket *b, double cost);

#endif
