/*
 * result_rare.h - internal: whether a MoveResult carries any of the
 * fields a player's answer almost never has (the volumes' six ids, the
 * medium's six fields, damage), for the two writers that skip them all
 * on one test: the wire encoder (encode.c) and the session log's RESULTS
 * record (server/record/record_results.c). Not installed.
 */
#ifndef SWEEP_PROTOCOL_RESULT_RARE_H
#define SWEEP_PROTOCOL_RESULT_RARE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/compiler.h"
#include "protocol/message.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Any bit of v set: -0.0 and NaN included, which a comparison with 0
 * would take for zero or miss. */
static inline int sweep__f64_nonzero(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u != 0;
}

/* 1 if any volume id, medium field or bit of damage is set, or `more`
 * (what else the caller counts as rare, or-ed) is not 0. */
static SWEEP__ALWAYS_INLINE int sweep__result_rare_any(const sweep_msg_move_result *r, uint64_t more)
{
#ifdef __SSE2__
    /* The six volume ids and the six medium fields lie in a row each: two
     * vectors and two halves, not thirteen loads and ors. */
    _Static_assert(offsetof(sweep_msg_move_result, left) == offsetof(sweep_msg_move_result, launched_by) + 20 &&
                       offsetof(sweep_msg_move_result, ladder) == offsetof(sweep_msg_move_result, liquid) + 20,
                   "a result's volume ids and medium fields lie in a row");
    const uint8_t *vol = (const uint8_t *)&r->launched_by, *liq = (const uint8_t *)&r->liquid;
    __m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)vol), _mm_loadl_epi64((const __m128i *)(vol + 16)));
    x = _mm_or_si128(x, _mm_loadu_si128((const __m128i *)liq));
    x = _mm_or_si128(x, _mm_loadl_epi64((const __m128i *)(liq + 16)));
    x = _mm_or_si128(x, _mm_loadl_epi64((const __m128i *)&r->damage));
    x = _mm_or_si128(x, _mm_set_epi64x(0, (long long)more));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) != 0xffff;
#else
    return (more | r->launched_by | r->teleported_by | r->hurt_by | r->killed_by | r->entered | r->left |
            r->liquid | r->liquid_type | r->liquid_level | r->entered_liquid | r->left_liquid | r->ladder) != 0 ||
           sweep__f64_nonzero(r->damage);
#endif
}

#endif
