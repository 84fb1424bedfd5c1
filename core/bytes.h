/*
 * bytes.h - internal: small objects of a size known when compiling,
 * compared, copied and cleared in 16-byte pieces. For the checks a thread
 * remembers (a config, the walking rules, a probe's shape), whose match
 * skips range tests that cost more than the comparison; and for the
 * copies and clears every move makes (sweep_act's actor and its result's
 * tail, the server's decoded Move and the result it keeps for resends),
 * which GCC made string instructions (rep movs, rep stos: an element at
 * a time after a start-up of tens of cycles). The pieces are unrolled
 * whole: n is known when compiling. Not installed.
 */
#ifndef SWEEP_CORE_BYTES_H
#define SWEEP_CORE_BYTES_H

#include <stddef.h>
#include <string.h>

#include "core/compiler.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Hides a value from the optimiser (no instruction): GCC saw the pieces
 * below as a memcpy or memset again and made them the string instructions
 * they are here to avoid. */
#if defined(__GNUC__) && defined(__SSE2__)
#define SWEEP__OPAQUE(v) __asm__("" : "+x"(v))
#else
#define SWEEP__OPAQUE(v) ((void)0)
#endif

/* 1 if a[0 .. n) and b[0 .. n) are the same bytes; n a multiple of 16,
 * known at compile time. Without memcmp's call: for the 50 to 100 bytes
 * compared here the call was most of the cost. */
static SWEEP__ALWAYS_INLINE int sweep__same_bits(const void *a, const void *b, size_t n)
{
#ifdef __SSE2__
    const __m128i *pa = (const __m128i *)a, *pb = (const __m128i *)b;
    __m128i e = _mm_cmpeq_epi32(_mm_loadu_si128(&pa[0]), _mm_loadu_si128(&pb[0]));
    for (size_t k = 1; k < n / 16; k++)
        e = _mm_and_si128(e, _mm_cmpeq_epi32(_mm_loadu_si128(&pa[k]), _mm_loadu_si128(&pb[k])));
    return _mm_movemask_epi8(e) == 0xffff;
#else
    return memcmp(a, b, n) == 0;
#endif
}

/* dst[0 .. n) = src[0 .. n), the two apart; n known at compile time, what
 * is past the last 16 bytes in 8 and then 1. */
static SWEEP__ALWAYS_INLINE void sweep__copy_bytes(void *dst, const void *src, size_t n)
{
#ifdef __SSE2__
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t k = 0;
    SWEEP__UNROLL
    for (; k + 16 <= n; k += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + k));
        SWEEP__OPAQUE(v);
        _mm_storeu_si128((__m128i *)(d + k), v);
    }
    for (; k + 8 <= n; k += 8) {
        __m128i v = _mm_loadl_epi64((const __m128i *)(s + k));
        SWEEP__OPAQUE(v);
        _mm_storel_epi64((__m128i *)(d + k), v);
    }
    for (; k < n; k++)
        d[k] = s[k];
#else
    memcpy(dst, src, n);
#endif
}

/* dst[0 .. n) = 0; n known at compile time. */
static SWEEP__ALWAYS_INLINE void sweep__zero_bytes(void *dst, size_t n)
{
#ifdef __SSE2__
    unsigned char *d = (unsigned char *)dst;
    __m128i z = _mm_setzero_si128();
    SWEEP__OPAQUE(z);
    size_t k = 0;
    SWEEP__UNROLL
    for (; k + 16 <= n; k += 16)
        _mm_storeu_si128((__m128i *)(d + k), z);
    for (; k + 8 <= n; k += 8)
        _mm_storel_epi64((__m128i *)(d + k), z);
    for (; k < n; k++)
        d[k] = 0;
#else
    memset(dst, 0, n);
#endif
}

#endif
