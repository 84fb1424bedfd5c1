/*
 * bench_host.c - what the machine itself gives at the moment a benchmark
 * runs, so that a figure of `make bench` can be read against the host it
 * was taken on.
 *
 * These machines are virtual and shared: the same binary has given a
 * level's mean move 1.06 us one day and 1.42 us the next, and a 60 Hz p99
 * of 0.47 ms and 2.2 ms half an hour apart, with its own instructions
 * unchanged (docs/performance.md). Four probes, none of them sweep's code:
 *
 *   compute_ns  one step of a dependent chain of double multiplies, adds
 *               and a division (the core's kind of arithmetic)
 *   l2_load_ns  one load of a dependent chase through 1 MiB, in random
 *               order, 64 bytes apart (within a core's second-level cache)
 *   far_load_ns the same through 64 MiB (past it: the shared last level or
 *               memory, which other guests share)
 *   syscall_ns  one getppid system call (the kernel's entry and exit, which
 *               every datagram of the UDP figures pays several times)
 *
 * Each is the median of 7 timed repetitions, after one untimed. Run by
 * run-bench.sh at its start and at its end (the host can change in
 * between). Prints
 *
 *   BENCH name=host.calibration at=<label> compute_ns=<x> l2_load_ns=<x>
 *         far_load_ns=<x> syscall_ns=<x> load1=<1-minute load average>
 *
 * Usage: bench_host [LABEL] (default "now").
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests/bench/median.h"

#define REPS 7
#define SLOT 64 /* bytes between two entries of a chase: one cache line */

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Kept, so that no loop's result is thrown away by the compiler. */
static volatile double sink_d;
static volatile size_t sink_z;

static double compute_once(uint32_t n)
{
    double x = 1.0, y = 0.5;
    double t0 = now_ns();
    for (uint32_t i = 0; i < n; i++) {
        x = x * 1.0000001 + 1e-9;
        y = y + x / (1.0 + y * 1e-12);
    }
    double t = now_ns() - t0;
    sink_d = x + y;
    return t / n;
}

/* A cycle through every slot of buf (bytes long), in an order no
 * prefetcher follows: each slot holds the index of the next. */
static size_t *chase_make(size_t bytes)
{
    size_t n = bytes / SLOT, stride = SLOT / sizeof(size_t);
    size_t *buf = aligned_alloc(SLOT, n * SLOT), *order = malloc(n * sizeof *order);
    if (!buf || !order) {
        free(buf), free(order);
        return NULL;
    }
    uint64_t seed = 42;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(splitmix(&seed) % (i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        buf[order[i] * stride] = order[(i + 1) % n] * stride;
    free(order);
    return buf;
}

static double chase_once(const size_t *buf, uint32_t loads)
{
    size_t at = 0;
    double t0 = now_ns();
    for (uint32_t i = 0; i < loads; i++)
        at = buf[at];
    double t = now_ns() - t0;
    sink_z = at;
    return t / loads;
}

static double syscall_once(uint32_t n)
{
    double t0 = now_ns();
    for (uint32_t i = 0; i < n; i++)
        syscall(SYS_getppid);
    return (now_ns() - t0) / n;
}

enum { COMPUTE, NEAR_LOADS, FAR_LOADS, SYSCALLS };

/* The median of REPS timed runs of one probe, after an untimed one. */
static double probe(int kind, const size_t *near, const size_t *far)
{
    double v[REPS + 1];
    for (int r = 0; r <= REPS; r++)
        v[r] = kind == COMPUTE      ? compute_once(2000000)
               : kind == NEAR_LOADS ? chase_once(near, 2000000)
               : kind == FAR_LOADS  ? chase_once(far, 1000000)
                                    : syscall_once(100000);
    return median(v + 1, REPS);
}

int main(int argc, char **argv)
{
    const char *label = argc > 1 ? argv[1] : "now";
    size_t *near = chase_make((size_t)1 << 20), *far = chase_make((size_t)64 << 20);
    if (!near || !far) {
        fprintf(stderr, "bench_host: out of memory\n");
        return 1;
    }
    double compute = probe(COMPUTE, near, far), l2 = probe(NEAR_LOADS, near, far);
    double mem = probe(FAR_LOADS, near, far), sys = probe(SYSCALLS, near, far);
    double load[1] = {0.0};
    if (getloadavg(load, 1) != 1)
        load[0] = -1.0;
    printf("BENCH name=host.calibration at=%s compute_ns=%.2f l2_load_ns=%.2f far_load_ns=%.1f syscall_ns=%.1f "
           "load1=%.2f\n",
           label, compute, l2, mem, sys, load[0]);
    free(near), free(far);
    return 0;
}
