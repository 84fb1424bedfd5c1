/*
 * unrolled.h - internal: a message struct of a size known when compiling
 * cleared or copied in unrolled 16-byte moves, for the few that every
 * move clears or copies (a decoded Move, a move's result kept for
 * resends). GCC 12 at -O2 makes such a memset or memcpy of 64 bytes or
 * more a string instruction (rep stos, rep movs: an instruction per 8
 * bytes after a start-up of tens of cycles), and core/bytes.h's helpers
 * stay loops at -O2. Never installed.
 */
#ifndef SWEEP_PROTOCOL_UNROLLED_H
#define SWEEP_PROTOCOL_UNROLLED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/compiler.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__)
#include <emmintrin.h>

/* Keeps the compiler from seeing the stores below as a memset or memcpy
 * again (no instruction). */
#define SWEEP__UNROLLED_OPAQUE(v) __asm__("" : "+x"(v))

/* dst[0 .. n) = 0; n a multiple of 8, at least 8. */
static SWEEP__ALWAYS_INLINE void sweep__zero_unrolled(void *dst, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    __m128i z = _mm_setzero_si128();
    SWEEP__UNROLLED_OPAQUE(z);
#pragma GCC unroll 64
    for (size_t k = 0; k + 16 <= n; k += 16)
        _mm_storeu_si128((__m128i *)(d + k), z);
    if (n % 16)
        _mm_storel_epi64((__m128i *)(d + n - 8), z);
}

/* dst[0 .. n) = src[0 .. n), the two apart; n a multiple of 8, at least 8. */
static SWEEP__ALWAYS_INLINE void sweep__copy_unrolled(void *dst, const void *src, size_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
#pragma GCC unroll 64
    for (size_t k = 0; k + 16 <= n; k += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + k));
        SWEEP__UNROLLED_OPAQUE(v);
        _mm_storeu_si128((__m128i *)(d + k), v);
    }
    if (n % 16)
        _mm_storel_epi64((__m128i *)(d + n - 8), _mm_loadl_epi64((const __m128i *)(s + n - 8)));
}
#else
static inline void sweep__zero_unrolled(void *dst, size_t n)
{
    memset(dst, 0, n);
}

static inline void sweep__copy_unrolled(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}
#endif

#endif
