/*
 * alloc.h - internal: the allocator of server/ code, so that a build can
 * make allocations fail on purpose and prove that the server survives
 * each one, as SQLite's tests do with its malloc.
 *
 * In a normal build sweep__malloc, sweep__calloc and sweep__realloc are
 * the libc functions, inline: no cost, no state. In a fault-injection
 * build (make FAULTS=1, which defines SWEEP_FAULTS=1) they count the
 * allocations made after sweep__faults_arm (called when the server is
 * ready, so loading the maps is never failed) and fail the ones the
 * environment names:
 *
 *   SWEEP_FAIL_ALLOC=N           the N-th allocation (1 is the first after
 *                                the ready line) returns NULL, once;
 *   SWEEP_FAIL_ALLOC_RANDOM=P:K  each allocation fails with probability P
 *                                (0..1), drawn from pseudo-random sequence
 *                                number K: the same K fails the same
 *                                allocations of the same run again.
 *
 * Each failure made is logged (event=fault_injected, with the allocation's
 * number, size and call site), so a test knows that its N was reached and
 * where; so is what was asked, when anything was (event=fault_injection
 * armed, even for SWEEP_FAIL_ALLOC=0: how a test tells such a build). Only allocations of the loop thread go through here: one count,
 * one order, the same on every run of the same requests.
 *
 * free is the libc's in both builds.
 */
#ifndef SWEEP_SERVER_ALLOC_H
#define SWEEP_SERVER_ALLOC_H

#include <stddef.h>
#include <stdlib.h>

#ifndef SWEEP_FAULTS
#define SWEEP_FAULTS 0
#endif

#if SWEEP_FAULTS

void *sweep__fault_malloc(size_t n, const char *file, int line);
void *sweep__fault_calloc(size_t count, size_t size, const char *file, int line);
void *sweep__fault_realloc(void *p, size_t n, const char *file, int line);
/* Reads the environment and starts counting (logs what it will fail). */
void sweep__faults_arm(void);

#define sweep__malloc(n) sweep__fault_malloc((n), __FILE__, __LINE__)
#define sweep__calloc(count, size) sweep__fault_calloc((count), (size), __FILE__, __LINE__)
#define sweep__realloc(p, n) sweep__fault_realloc((p), (n), __FILE__, __LINE__)

#else

static inline void *sweep__malloc(size_t n)
{
    return malloc(n);
}

static inline void *sweep__calloc(size_t count, size_t size)
{
    return calloc(count, size);
}

static inline void *sweep__realloc(void *p, size_t n)
{
    return realloc(p, n);
}

#define sweep__faults_arm() ((void)0)

#endif

#endif
