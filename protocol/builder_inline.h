/*
 * builder_inline.h - internal: the builder of builder.h as inline
 * functions, for the encoder (encode.c) and for builder.c's public
 * functions, which are these under their public names.
 *
 * Why inline: a message is mostly scalar fields, and through calls each
 * one cost a call to add it, one to align and one to reserve its bytes,
 * each checking the same state; inlined into the encoder, with the size
 * and alignment of the field known where it is added, most of that folds
 * away. Encoding a MoveResult, the answer to every move, went from 2,416
 * to 1,389 instructions (callgrind; with the vtable built from the fields
 * present only), with the same bytes.
 *
 * The invariants are builder.c's (see there). A table's fields are known
 * by the bit of their id in b->present, so fields[] needs no clearing when
 * a table starts, and the builder none when it is set up.
 */
#ifndef SWEEP_PROTOCOL_BUILDER_INLINE_H
#define SWEEP_PROTOCOL_BUILDER_INLINE_H

#include <assert.h>
#include <string.h>

#include "core/compiler.h"
#include "protocol/builder.h"
#include "protocol/format.h"

_Static_assert(SWEEP_BUILDER_MAX_FIELDS <= 32, "builder.h: one bit of `present` per field id");

static inline void sweep__builder_init(sweep_builder *b, void *buf, size_t cap)
{
    b->buf = buf;
    /* Offsets are 31-bit: never use more than the format can address. */
    b->cap = cap > SWEEP__MAX_BUFFER ? SWEEP__MAX_BUFFER : cap;
    b->used = 0;
    b->front = 0;
    b->minalign = 1;
    b->failed = buf == NULL;
    b->in_table = 0;
    b->table_start = 0;
    b->field_limit = 0;
    b->present = 0;
    b->vtable_count = 0;
    b->vtable_next = 0;
}

/* Reserves `size` bytes in front of what is written and returns them;
 * NULL once failed. */
static inline uint8_t *sweep__builder_push(sweep_builder *b, size_t size)
{
    if (b->failed || size > b->cap - b->used - b->front) {
        b->failed = 1;
        return NULL;
    }
    b->used += size;
    return b->buf + b->cap - b->used;
}

/* Writes n < 8 zero bytes at p: at most one store of each size, no call
 * to memset. */
static inline void sweep__builder_zeros(uint8_t *p, size_t n)
{
    if (n & 4) {
        sweep__wr32(p, 0);
        p += 4;
    }
    if (n & 2) {
        sweep__wr16(p, 0);
        p += 2;
    }
    if (n & 1)
        *p = 0;
}

/* Pads with zeros so that after `extra` more bytes, `used` is a multiple of
 * align (a power of two up to 8). */
static inline void sweep__builder_prep(sweep_builder *b, size_t align, size_t extra)
{
    if (align > b->minalign)
        b->minalign = align;
    size_t pad = (align - ((b->used + extra) & (align - 1))) & (align - 1);
    if (pad == 0)
        return;
    uint8_t *p = sweep__builder_push(b, pad);
    if (p != NULL)
        sweep__builder_zeros(p, pad);
}

static inline sweep_ref sweep__builder_ref(const sweep_builder *b)
{
    return b->failed ? 0 : (sweep_ref)b->used;
}

static inline void sweep__builder_vector_start(sweep_builder *b, size_t elem_size, size_t count, size_t align)
{
    assert(!b->in_table);
    if (count != 0 && elem_size > (b->cap - b->used) / count) {
        b->failed = 1;
        return;
    }
    /* The count must be 4-aligned and sit right before the elements, which
     * must be aligned to `align`. */
    sweep__builder_prep(b, 4, elem_size * count);
    sweep__builder_prep(b, align, elem_size * count);
}

static inline sweep_ref sweep__builder_vector_end(sweep_builder *b, size_t count)
{
    uint8_t *p = sweep__builder_push(b, 4);
    if (p)
        sweep__wr32(p, (uint32_t)count);
    return sweep__builder_ref(b);
}

static inline void sweep__builder_table_start(sweep_builder *b)
{
    assert(!b->in_table);
    b->in_table = 1;
    b->table_start = b->used;
    b->field_limit = 0;
    b->present = 0;
}

/* Writes one field value of `size` bytes aligned to `align` and records it. */
static inline uint8_t *sweep__builder_field(sweep_builder *b, unsigned id, size_t size, size_t align)
{
    assert(b->in_table && id < SWEEP_BUILDER_MAX_FIELDS);
    sweep__builder_prep(b, align, size);
    uint8_t *p = sweep__builder_push(b, size);
    if (p) {
        b->fields[id] = (uint32_t)b->used;
        b->present |= 1u << id;
        if (id + 1 > b->field_limit)
            b->field_limit = id + 1;
    }
    return p;
}

static inline void sweep__builder_add_u8(sweep_builder *b, unsigned id, uint8_t v)
{
    uint8_t *p = sweep__builder_field(b, id, 1, 1);
    if (p)
        *p = v;
}

static inline void sweep__builder_add_u16(sweep_builder *b, unsigned id, uint16_t v)
{
    uint8_t *p = sweep__builder_field(b, id, 2, 2);
    if (p)
        sweep__wr16(p, v);
}

static inline void sweep__builder_add_u32(sweep_builder *b, unsigned id, uint32_t v)
{
    uint8_t *p = sweep__builder_field(b, id, 4, 4);
    if (p)
        sweep__wr32(p, v);
}

static inline void sweep__builder_add_u64(sweep_builder *b, unsigned id, uint64_t v)
{
    uint8_t *p = sweep__builder_field(b, id, 8, 8);
    if (p)
        sweep__wr64(p, v);
}

static inline void sweep__builder_add_f64(sweep_builder *b, unsigned id, double v)
{
    uint8_t *p = sweep__builder_field(b, id, 8, 8);
    if (p)
        sweep__wrf64(p, v);
}

static inline void sweep__builder_add_vec3(sweep_builder *b, unsigned id, sweep_vec3 v)
{
    uint8_t *p = sweep__builder_field(b, id, 24, 8);
    if (p)
        sweep__wrvec3(p, v);
}

static inline void sweep__builder_add_ref(sweep_builder *b, unsigned id, sweep_ref r)
{
    /* Align first, so the offset is computed from the field's final place. */
    sweep__builder_prep(b, 4, 4);
    uint8_t *p = sweep__builder_field(b, id, 4, 4);
    if (p)
        sweep__wr32(p, (uint32_t)(b->used - r));
}

/* The first 4 bytes of a vtable (its size, then its table's), as one
 * number: what sweep__rd32 reads there. */
static inline uint32_t sweep__vtable_head(size_t vsize, size_t tsize)
{
    return (uint32_t)vsize | (uint32_t)tsize << 16;
}

/* Where among the last few vtables written one equal to the vsize bytes
 * at vt lies (its ref), whose head is `head`; 0 when none is. The head is
 * given, not read at vt: just written there as two 16-bit sizes, it
 * would be read back before the processor can forward it. */
static inline size_t sweep__builder_vtable_find(const sweep_builder *b, uint32_t head, const uint8_t *vt,
                                                size_t vsize)
{
    /* The first 4 bytes (both sizes) settle most comparisons at once. */
    for (unsigned i = 0; i < b->vtable_count; i++) {
        const uint8_t *old = b->buf + b->cap - b->vtables[i];
        if (sweep__rd32(old) == head && memcmp(old + 4, vt + 4, vsize - 4) == 0)
            return b->vtables[i];
    }
    return 0;
}

/* Remembers the vtable just written in front of everything else. */
static inline void sweep__builder_vtable_keep(sweep_builder *b)
{
    b->vtables[b->vtable_next] = (uint32_t)b->used;
    b->vtable_next = (b->vtable_next + 1) % SWEEP_BUILDER_VTABLE_CACHE;
    if (b->vtable_count < SWEEP_BUILDER_VTABLE_CACHE)
        b->vtable_count++;
}

/* Ends a table whose soffset is at `so` and whose start is at ref `table`:
 * points the soffset at an identical vtable among the last few written,
 * or keeps `vt` (vsize bytes, whose head is `head`) as a new one and
 * remembers it: where sweep__builder_vtable_begin wrote it in place, as it
 * is; from an array, copied in front of everything written. A vtable
 * written in place and shared is left in the free space: never part of
 * the message, but some of its bytes may stay in the caller's buffer
 * before the message's first byte, which the encoder never promised to
 * leave alone. */
static inline sweep_ref sweep__builder_vtable(sweep_builder *b, uint8_t *so, size_t table, const uint8_t *vt,
                                              size_t vsize, uint32_t head)
{
    size_t old = sweep__builder_vtable_find(b, head, vt, vsize);
    if (old) {
        sweep__wr32(so, (uint32_t)((int64_t)old - (int64_t)table));
        return (sweep_ref)table;
    }
    if (table + vsize <= b->cap && vt == b->buf + (b->cap - table - vsize)) {
        b->used = table + vsize;
    } else {
        uint8_t *p = sweep__builder_push(b, vsize);
        if (p == NULL)
            return 0;
        memcpy(p, vt, vsize);
    }
    sweep__wr32(so, (uint32_t)(b->used - table));
    sweep__builder_vtable_keep(b);
    return (sweep_ref)table;
}

/*
 * A vtable written in place, for a table that knows the size of its
 * vtable before its fields: where the vtable of vsize bytes (even, at
 * least 4) goes, in front of the table that ends everything written once
 * the table is (at ref `table`: b->used then, whether or not it is yet),
 * with its head written and every entry cleared,
 * so that the table's fields write their entries there as they are
 * stored; NULL when there is no room for it (then the table builds its
 * vtable in an array for sweep__builder_vtable, which may share an older
 * one without room for a new one). sweep__builder_vtable ends it.
 *
 * Why not an array copied in: its 16-bit entries were read back by wider
 * loads (the copy, the head's comparison), which the processor cannot
 * forward from the narrow stores just made and must wait for, and the
 * copy of a size known only at run time was a `rep movs`, slow to start.
 * In sweepd's answer to a UDP move that was most of the MoveResult's
 * encoding time (perf).
 */
static inline uint8_t *sweep__builder_vtable_at(sweep_builder *b, size_t table, size_t vsize, size_t tsize)
{
    if (b->failed || table > b->cap - b->front || vsize > b->cap - table - b->front)
        return NULL;
    uint8_t *p = b->buf + b->cap - table - vsize;
    size_t k = vsize;
    for (; k >= 8; k -= 8)
        sweep__wr64(p + k - 8, 0);
    if (k & 4)
        sweep__wr32(p + (k & 2), 0);
    if (k & 2)
        sweep__wr16(p, 0);
    sweep__wr32(p, sweep__vtable_head(vsize, tsize));
    return p;
}

/* The vtable of a table that knows its size first (vsize bytes, the
 * table's tsize), its head written and its entries cleared: in place
 * (sweep__builder_vtable_at), or else in `spare`, an array of at least
 * vsize bytes, for sweep__builder_vtable to copy in. */
static inline uint8_t *sweep__builder_vtable_begin(sweep_builder *b, size_t table, size_t vsize, size_t tsize,
                                                   uint8_t *spare)
{
    uint8_t *vt = sweep__builder_vtable_at(b, table, vsize, tsize);
    if (vt)
        return vt;
    memset(spare, 0, vsize);
    sweep__wr32(spare, sweep__vtable_head(vsize, tsize));
    return spare;
}

static inline sweep_ref sweep__builder_table_end(sweep_builder *b)
{
    assert(b->in_table);
    b->in_table = 0;
    /* The soffset, filled in once the vtable's place is known. */
    sweep__builder_prep(b, 4, 4);
    uint8_t *so = sweep__builder_push(b, 4);
    if (so == NULL)
        return 0;
    size_t table = b->used;
    size_t tsize = table - b->table_start;
    size_t vsize = 4 + 2 * (size_t)b->field_limit;
    if (tsize > 0xffff) {
        b->failed = 1;
        return 0;
    }
    /* In place (sweep__builder_vtable_at) when no older vtable may be
     * shared: a table of a batch, most often sharing the last one, was
     * 4% slower so (a MoveBatch of 64). In an array, absent entries are
     * cleared all at once (a constant size, so a few stores). */
    const uint32_t head = sweep__vtable_head(vsize, tsize);
    uint8_t array[4 + 2 * SWEEP_BUILDER_MAX_FIELDS];
    uint8_t *vt = b->vtable_count == 0 ? sweep__builder_vtable_at(b, table, vsize, tsize) : NULL;
    if (!vt) {
        vt = array;
        memset(array, 0, sizeof array);
        sweep__wr32(array, head);
    }
    for (uint32_t left = b->present; left != 0; left &= left - 1) {
        unsigned i = SWEEP__CTZ(left);
        sweep__wr16(vt + 4 + 2 * i, (uint16_t)(table - b->fields[i]));
    }
    return sweep__builder_vtable(b, so, table, vt, vsize, head);
}

/* Writes the identifier and the root offset (and the size prefix): the
 * public sweep_builder_finish, inline so that the encoder's message, whose
 * identifier and alignment are known there, pays no call for its last
 * 12 bytes. */
static inline sweep_proto_error sweep__builder_finish(sweep_builder *b, sweep_ref root, const char identifier[4],
                                                      int size_prefixed, const uint8_t **out, size_t *out_len)
{
    assert(!b->in_table);
    size_t align = b->minalign < 4 ? 4 : b->minalign, tail = 8 + (size_prefixed ? 4 : 0);
    size_t pad = (align - ((b->used + tail) & (align - 1))) & (align - 1);
    if (root != 0 && !b->failed && pad + tail <= b->cap - b->used - b->front) {
        /* Room for all of it (every message that fits): one check instead
         * of one per piece below, the same bytes. */
        uint8_t *end = b->buf + b->cap;
        size_t u = b->used;
        sweep__builder_zeros(end - u - pad, pad);
        u += pad + 4;
        memcpy(end - u, identifier, 4);
        u += 4;
        sweep__wr32(end - u, (uint32_t)(u - root));
        if (size_prefixed) {
            u += 4;
            sweep__wr32(end - u, (uint32_t)(u - 4));
        }
        b->used = u;
        *out = end - u;
        *out_len = u;
        return SWEEP_PROTO_OK;
    }
    if (root == 0)
        b->failed = 1;
    sweep__builder_prep(b, align, tail);
    uint8_t *p = sweep__builder_push(b, 4);
    if (p)
        memcpy(p, identifier, 4);
    p = sweep__builder_push(b, 4);
    if (p)
        sweep__wr32(p, (uint32_t)(b->used - root));
    if (size_prefixed) {
        p = sweep__builder_push(b, 4);
        if (p)
            sweep__wr32(p, (uint32_t)(b->used - 4));
    }
    if (b->failed)
        return SWEEP_PROTO_E_BUFFER_SPACE;
    *out = b->buf + b->cap - b->used;
    *out_len = b->used;
    return SWEEP_PROTO_OK;
}

#endif
