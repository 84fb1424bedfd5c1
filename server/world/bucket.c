/*
 * bucket.c - the token bucket (bucket.h).
 */
#include "server/world/bucket.h"

void sweep__bucket_init(sweep__bucket *b, double rate, uint64_t now_ns)
{
    b->rate = rate;
    b->burst = rate < 1.0 ? 1.0 : rate;
    b->tokens = b->burst;
    b->last_ns = now_ns;
}

int sweep__bucket_take(sweep__bucket *b, double cost, uint64_t now_ns)
{
    if (b->rate <= 0.0)
        return 1;
    if (now_ns > b->last_ns) {
        b->tokens += (double)(now_ns - b->last_ns) * 1e-9 * b->rate;
        if (b->tokens > b->burst)
            b->tokens = b->burst;
        b->last_ns = now_ns;
    }
    /* A batch larger than the whole burst could never pass; let it through
     * when the bucket is full and leave the bucket in debt instead. */
    if (b->tokens >= cost || (cost > b->burst && b->tokens >= b->burst)) {
        b->tokens -= cost;
        return 1;
    }
    return 0;
}

void sweep__bucket_give_back(sweep__bucket *b, double cost)
{
    b->tokens += cost;
    if (b->tokens > b->burst)
        b->tokens = b->burst;
}
