/*
 * decode_checked_impl.h - internal: the bounds-checked reads of a message's
 * tables that decode_checked.c reads Moves and MoveResults with, and that
 * sweep__decode_kind_inline (decode_checked.h) peeks at a kind with: one
 * set of checks for both, always inlined into each, since the peek is on
 * the lean loop's path once an answer (never installed).
 *
 * Invariant: a table is only read through a sweep__ctab that
 * sweep__ctab_at accepted, so its vtable lies inside the buffer and its
 * tsize bytes too; a field is only read when its offset and size lie
 * inside tsize. Positions are size_t values bounded by n (< 2^31) plus
 * 32-bit quantities: no sum wraps on a 64-bit size_t, and the comparisons
 * are written without sums that could on 32 bits.
 */
#ifndef SWEEP_PROTOCOL_DECODE_CHECKED_IMPL_H
#define SWEEP_PROTOCOL_DECODE_CHECKED_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "protocol/format.h"
#include "protocol/message.h"
#include "protocol/schema.h"
#include "protocol/verify.h"

/* A table whose header and vtable were checked. */
typedef struct sweep__ctab {
    const uint8_t *b;
    size_t pos, vt;
    uint32_t entries; /* vtable entries */
    uint32_t tsize;
} sweep__ctab;

static SWEEP__ALWAYS_INLINE int sweep__ctab_at(const uint8_t *b, size_t n, size_t pos, sweep__ctab *t)
{
    if (pos % 4 || pos > n || n - pos < 4)
        return -1;
    int64_t vt = (int64_t)pos - (int32_t)sweep__rd32(b + pos);
    if (vt < 0 || vt % 2 || (uint64_t)vt > n || n - (size_t)vt < 4)
        return -1;
    uint32_t vsize = sweep__rd16(b + vt), tsize = sweep__rd16(b + vt + 2);
    if (vsize < 4 || vsize % 2 || vsize > n - (size_t)vt || tsize < 4 || tsize > n - pos)
        return -1;
    t->b = b;
    t->pos = pos;
    t->vt = (size_t)vt;
    t->entries = (vsize - 4) / 2;
    t->tsize = tsize;
    return 0;
}

/* Where field id's `size` bytes are, NULL when absent; *bad set when they
 * would reach past the table (or into its soffset). */
static SWEEP__ALWAYS_INLINE const uint8_t *sweep__cfield(const sweep__ctab *t, unsigned id,
                                                                          uint32_t size, int *bad)
{
    if (id >= t->entries)
        return NULL;
    uint32_t fo = sweep__rd16(t->b + t->vt + 4 + 2 * id);
    /* Absent (0) and bad (1 to 3) behind one test of a present field. */
    if (fo < 4 || fo + size > t->tsize) {
        *bad |= fo != 0;
        return NULL;
    }
    return t->b + t->pos + fo;
}

static SWEEP__ALWAYS_INLINE uint8_t sweep__cu8(const sweep__ctab *t, unsigned id, int *bad)
{
    const uint8_t *p = sweep__cfield(t, id, 1, bad);
    return p ? *p : 0;
}

/* The root table of a message, checked: 0, or -1. */
static SWEEP__ALWAYS_INLINE int sweep__ctab_root(const uint8_t *b, size_t n, unsigned flags,
                                                                  sweep__ctab *root)
{
    size_t base = 0;
    if (n > SWEEP__MAX_BUFFER)
        return -1;
    if (flags & SWEEP_WIRE_SIZE_PREFIXED) {
        if (n < 4 || sweep__rd32(b) != n - 4)
            return -1;
        base = 4;
    }
    /* The identifier as one 32-bit compare: memcmp was a call per message. */
    if (n - base < 12 || sweep__rd32(b + base + 4) != sweep__rd32((const uint8_t *)SWEEP_WIRE_IDENTIFIER))
        return -1;
    uint32_t ro = sweep__rd32(b + base);
    if (ro == 0 || ro > n - base || sweep__ctab_at(b, n, base + ro, root) != 0)
        return -1;
    return 0;
}

#endif
