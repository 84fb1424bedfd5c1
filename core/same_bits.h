/*
 * same_bits.h - internal: whether two objects hold the same bytes, for the
 * checks a thread remembers (a config, the walking rules): a match skips
 * the range tests, which cost more than the comparison. Not installed.
 */
#ifndef SWEEP_CORE_SAME_BITS_H
#define SWEEP_CORE_SAME_BITS_H

#include <stddef.h>
#include <string.h>

#include "core/compiler.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* 1 if a[0 .. n) and b[0 .. n) are the same bytes; n a multiple of 16,
 * known at compile time. In SSE2 pieces, without memcmp's call: for the
 * 50 to 100 bytes compared here the call was most of the cost. */
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

#endif
