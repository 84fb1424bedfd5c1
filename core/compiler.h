/*
 * compiler.h - the few things sweep asks of a compiler beyond ISO C11, in
 * one place, so that the code the client links builds with any C11
 * compiler (client-sdk/README.md, "Platforms").
 *
 * Each is a hint about speed or a diagnostic, never about a result: with
 * GCC or Clang (mingw-w64 included) they are the compiler's attributes and
 * builtins, exactly as the code spelled them before; with another compiler
 * they are nothing, or the same computation in plain C, and the results
 * are the same bits (the determinism rules, docs/design.md, do not depend
 * on inlining or prefetching).
 */
#ifndef SWEEP_CORE_COMPILER_H
#define SWEEP_CORE_COMPILER_H

/* SWEEP__ASAN is defined in AddressSanitizer's builds (GCC names them by
 * __SANITIZE_ADDRESS__, Clang by a feature), where some memory is kept
 * the sanitizer's way: the heap rather than a mapping of its own, a free
 * slot of a pool poisoned. */
#if defined(__SANITIZE_ADDRESS__)
#define SWEEP__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWEEP__ASAN 1
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
/* Inlined even where the compiler's own measure would not (hot paths). */
#define SWEEP__ALWAYS_INLINE inline __attribute__((always_inline))
/* Kept out of line (a cold part that would crowd its caller's registers). */
#define SWEEP__NOINLINE __attribute__((noinline))
/* A function that never returns and is seldom called; unused in some files. */
#define SWEEP__NORETURN_COLD __attribute__((noreturn, cold, unused))
/* Asks for the cache line at p to be loaded ahead of its use. */
#define SWEEP__PREFETCH(p) __builtin_prefetch(p)
/* The loop that follows unrolled whole (a short one of a fixed count):
 * GCC 12 at -O2 otherwise keeps a copy of some hundred bytes a loop. */
#define SWEEP__UNROLL _Pragma("GCC unroll 64")
/* The number of trailing zero bits of x, which is not 0. */
#define SWEEP__CTZ(x) ((unsigned)__builtin_ctz(x))
#define SWEEP__CTZ64(x) ((unsigned)__builtin_ctzll(x))
/* The number of leading zero bits of x (32 bits), which is not 0. */
#define SWEEP__CLZ(x) ((unsigned)__builtin_clz(x))
#else
#define SWEEP__ALWAYS_INLINE inline
#define SWEEP__NOINLINE
#define SWEEP__NORETURN_COLD _Noreturn
#define SWEEP__PREFETCH(p) ((void)(p))
#define SWEEP__UNROLL
static inline unsigned sweep__ctz(unsigned x)
{
    unsigned n = 0;
    while (!(x & 1u))
        x >>= 1, n++;
    return n;
}
#define SWEEP__CTZ(x) sweep__ctz(x)
static inline unsigned sweep__ctz64(unsigned long long x)
{
    unsigned n = 0;
    while (!(x & 1u))
        x >>= 1, n++;
    return n;
}
#define SWEEP__CTZ64(x) sweep__ctz64(x)
static inline unsigned sweep__clz(unsigned x)
{
    unsigned n = 0;
    while (!(x & 0x80000000u))
        x <<= 1, n++;
    return n;
}
#define SWEEP__CLZ(x) sweep__clz(x)
#endif

#endif
