/*
 * alloc.c - fault injection for the allocator of server/ (alloc.h says
 * what the environment asks for). Compiled to nothing unless SWEEP_FAULTS.
 */
#include "server/world/alloc.h"

#if SWEEP_FAULTS

#include <stdint.h>
#include <string.h>

#include "server/world/log.h"

static int armed;
static uint64_t fail_at;       /* SWEEP_FAIL_ALLOC: 0 = none */
static double fail_p;          /* SWEEP_FAIL_ALLOC_RANDOM: 0 = none */
static uint64_t fail_sequence;
static uint64_t count;         /* allocations since armed */

/* A uniform number in [0, 1) for allocation n of sequence k: a pure
 * function (splitmix64's finaliser), so a run fails the same allocations
 * whatever happened before it. */
static double uniform(uint64_t k, uint64_t n)
{
    uint64_t z = k * 0x9e3779b97f4a7c15ull + n;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

void sweep__faults_arm(void)
{
    const char *n = getenv("SWEEP_FAIL_ALLOC");
    const char *r = getenv("SWEEP_FAIL_ALLOC_RANDOM");
    char *end;
    if (n && *n) {
        unsigned long long v = strtoull(n, &end, 10);
        if (*end == 0)
            fail_at = v;
        else
            sweep__log(SWEEP_LOG_WARN, "fault_injection", "SWEEP_FAIL_ALLOC=%s is not a number: ignored", n);
    }
    if (r && *r) {
        double p = strtod(r, &end);
        unsigned long long k = 0;
        int ok = end != r && p >= 0.0 && p <= 1.0;
        if (ok && *end == ':') {
            const char *ks = end + 1;
            k = strtoull(ks, &end, 10);
            ok = end != ks;
        }
        if (ok && *end == 0) {
            fail_p = p;
            fail_sequence = k;
        } else {
            sweep__log(SWEEP_LOG_WARN, "fault_injection", "SWEEP_FAIL_ALLOC_RANDOM=%s is not P:K: ignored", r);
        }
    }
    count = 0;
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
    /* Said whenever asked, even for nothing (SWEEP_FAIL_ALLOC=0): a test
     * learns from this line that the sweepd it runs is a fault-injection
     * build. Unasked, the build behaves and logs as any other. */
    if (n || r)
        sweep__log(SWEEP_LOG_WARN, "fault_injection", "armed fail_alloc=%llu random_p=%g random_sequence=%llu",
                   (unsigned long long)fail_at, fail_p, (unsigned long long)fail_sequence);
}

/* Whether this allocation is to fail; counts it. */
static int fail(size_t bytes, const char *file, int line)
{
    if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
        return 0;
    uint64_t n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    int f = n == fail_at || (fail_p > 0.0 && uniform(fail_sequence, n) < fail_p);
    if (f)
        sweep__log(SWEEP_LOG_WARN, "fault_injected", "allocation=%llu bytes=%zu at=%s:%d", (unsigned long long)n,
                   bytes, file, line);
    return f;
}

void *sweep__fault_malloc(size_t n, const char *file, int line)
{
    return fail(n, file, line) ? NULL : malloc(n);
}

void *sweep__fault_calloc(size_t count_, size_t size, const char *file, int line)
{
    return fail(count_ * size, file, line) ? NULL : calloc(count_, size);
}

void *sweep__fault_realloc(void *p, size_t n, const char *file, int line)
{
    return fail(n, file, line) ? NULL : realloc(p, n);
}

#endif
