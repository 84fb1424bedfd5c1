/*
 * builder.c - the back-to-front FlatBuffers builder (builder.h).
 *
 * Invariants: buf[cap - used, cap) holds what was written; used only grows;
 * every object's ref is `used` right after it was written, so its position
 * in the finished buffer is (final used) - ref. A uoffset written at ref r_f
 * to an object at ref r_t therefore holds r_f - r_t (forward, positive
 * because children are written first), and a table at ref r_t whose vtable
 * is at ref r_v stores soffset = pos(table) - pos(vtable) = r_v - r_t.
 */
#include "protocol/builder.h"

#include <assert.h>
#include <string.h>

#include "protocol/format.h"

void sweep_builder_init(sweep_builder *b, void *buf, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->buf = buf;
    /* Offsets are 31-bit: never use more than the format can address. */
    b->cap = cap > SWEEP__MAX_BUFFER ? SWEEP__MAX_BUFFER : cap;
    b->minalign = 1;
    if (buf == NULL)
        b->failed = 1;
}

/* Reserves `size` bytes in front of what is written and returns them. */
uint8_t *sweep_builder_push(sweep_builder *b, size_t size)
{
    if (b->failed || size > b->cap - b->used - b->front) {
        b->failed = 1;
        return NULL;
    }
    b->used += size;
    return b->buf + b->cap - b->used;
}

/* Pads with zeros so that after `extra` more bytes, `used` is a multiple of
 * align (a power of two up to 8). */
static void prep(sweep_builder *b, size_t align, size_t extra)
{
    if (align > b->minalign)
        b->minalign = align;
    size_t pad = (align - ((b->used + extra) & (align - 1))) & (align - 1);
    uint8_t *p = sweep_builder_push(b, pad);
    if (p)
        memset(p, 0, pad);
}

static sweep_ref ref_of(const sweep_builder *b)
{
    return b->failed ? 0 : (sweep_ref)b->used;
}

sweep_ref sweep_builder_bytes(sweep_builder *b, const void *data, size_t len)
{
    assert(!b->in_table);
    sweep_builder_vector_start(b, 1, len, 1);
    uint8_t *p = sweep_builder_push(b, len);
    if (p && len)
        memcpy(p, data, len);
    return sweep_builder_vector_end(b, len);
}

sweep_ref sweep_builder_string(sweep_builder *b, const char *s, size_t len)
{
    assert(!b->in_table);
    if (len > SWEEP__MAX_BUFFER) {
        b->failed = 1;
        return 0;
    }
    prep(b, 4, len + 1);
    uint8_t *p = sweep_builder_push(b, len + 1);
    if (p) {
        if (len)
            memcpy(p, s, len);
        p[len] = 0;
    }
    p = sweep_builder_push(b, 4);
    if (p)
        sweep__wr32(p, (uint32_t)len);
    return ref_of(b);
}

void sweep_builder_vector_start(sweep_builder *b, size_t elem_size, size_t count, size_t align)
{
    assert(!b->in_table);
    if (count != 0 && elem_size > (b->cap - b->used) / count) {
        b->failed = 1;
        return;
    }
    /* The count must be 4-aligned and sit right before the elements, which
     * must be aligned to `align`. */
    prep(b, 4, elem_size * count);
    prep(b, align, elem_size * count);
}

sweep_ref sweep_builder_vector_end(sweep_builder *b, size_t count)
{
    uint8_t *p = sweep_builder_push(b, 4);
    if (p)
        sweep__wr32(p, (uint32_t)count);
    return ref_of(b);
}

sweep_ref sweep_builder_ref_vector(sweep_builder *b, const uint8_t *refs_le, size_t count)
{
    sweep_builder_vector_start(b, 4, count, 4);
    for (size_t i = count; i-- > 0;) {
        uint8_t *p = sweep_builder_push(b, 4);
        if (p)
            sweep__wr32(p, (uint32_t)(b->used - sweep__rd32(refs_le + 4 * i)));
    }
    return sweep_builder_vector_end(b, count);
}

uint8_t *sweep_builder_scratch(sweep_builder *b, size_t size)
{
    assert(b->front == 0);
    if (b->failed || size > b->cap - b->used) {
        b->failed = 1;
        return NULL;
    }
    b->front = size;
    return b->buf;
}

void sweep_builder_scratch_release(sweep_builder *b)
{
    b->front = 0;
}

void sweep_builder_table_start(sweep_builder *b)
{
    assert(!b->in_table);
    b->in_table = 1;
    b->table_start = b->used;
    b->field_limit = 0;
    memset(b->fields, 0, sizeof b->fields);
}

/* Writes one field value of `size` bytes aligned to `align` and records it. */
static uint8_t *field(sweep_builder *b, unsigned id, size_t size, size_t align)
{
    assert(b->in_table && id < SWEEP_BUILDER_MAX_FIELDS);
    prep(b, align, size);
    uint8_t *p = sweep_builder_push(b, size);
    if (p) {
        b->fields[id] = (uint32_t)b->used;
        if (id + 1 > b->field_limit)
            b->field_limit = id + 1;
    }
    return p;
}

void sweep_builder_add_u8(sweep_builder *b, unsigned id, uint8_t v)
{
    uint8_t *p = field(b, id, 1, 1);
    if (p)
        *p = v;
}

void sweep_builder_add_u16(sweep_builder *b, unsigned id, uint16_t v)
{
    uint8_t *p = field(b, id, 2, 2);
    if (p)
        sweep__wr16(p, v);
}

void sweep_builder_add_u32(sweep_builder *b, unsigned id, uint32_t v)
{
    uint8_t *p = field(b, id, 4, 4);
    if (p)
        sweep__wr32(p, v);
}

void sweep_builder_add_u64(sweep_builder *b, unsigned id, uint64_t v)
{
    uint8_t *p = field(b, id, 8, 8);
    if (p)
        sweep__wr64(p, v);
}

void sweep_builder_add_f64(sweep_builder *b, unsigned id, double v)
{
    uint8_t *p = field(b, id, 8, 8);
    if (p)
        sweep__wrf64(p, v);
}

void sweep_builder_add_vec3(sweep_builder *b, unsigned id, sweep_vec3 v)
{
    uint8_t *p = field(b, id, 24, 8);
    if (p)
        sweep__wrvec3(p, v);
}

void sweep_builder_add_ref(sweep_builder *b, unsigned id, sweep_ref r)
{
    /* Align first, so the offset is computed from the field's final place. */
    prep(b, 4, 4);
    uint8_t *p = field(b, id, 4, 4);
    if (p)
        sweep__wr32(p, (uint32_t)(b->used - r));
}

sweep_ref sweep_builder_table_end(sweep_builder *b)
{
    assert(b->in_table);
    b->in_table = 0;
    /* The soffset, filled in once the vtable's place is known. */
    prep(b, 4, 4);
    uint8_t *so = sweep_builder_push(b, 4);
    if (so == NULL)
        return 0;
    size_t table = b->used;
    size_t tsize = table - b->table_start;
    size_t vsize = 4 + 2 * (size_t)b->field_limit;
    if (tsize > 0xffff) {
        b->failed = 1;
        return 0;
    }
    uint8_t vt[4 + 2 * SWEEP_BUILDER_MAX_FIELDS];
    sweep__wr16(vt, (uint16_t)vsize);
    sweep__wr16(vt + 2, (uint16_t)tsize);
    for (unsigned i = 0; i < b->field_limit; i++)
        sweep__wr16(vt + 4 + 2 * i, (uint16_t)(b->fields[i] ? table - b->fields[i] : 0));

    for (unsigned i = 0; i < b->vtable_count; i++) {
        const uint8_t *old = b->buf + b->cap - b->vtables[i];
        if (memcmp(old, vt, 2) == 0 && memcmp(old, vt, vsize) == 0) {
            sweep__wr32(so, (uint32_t)((int64_t)b->vtables[i] - (int64_t)table));
            return (sweep_ref)table;
        }
    }
    uint8_t *p = sweep_builder_push(b, vsize);
    if (p == NULL)
        return 0;
    memcpy(p, vt, vsize);
    sweep__wr32(so, (uint32_t)(b->used - table));
    b->vtables[b->vtable_next] = (uint32_t)b->used;
    b->vtable_next = (b->vtable_next + 1) % SWEEP_BUILDER_VTABLE_CACHE;
    if (b->vtable_count < SWEEP_BUILDER_VTABLE_CACHE)
        b->vtable_count++;
    return (sweep_ref)table;
}

sweep_proto_error sweep_builder_finish(sweep_builder *b, sweep_ref root, const char identifier[4],
                                       int size_prefixed, const uint8_t **out, size_t *out_len)
{
    assert(!b->in_table);
    if (root == 0)
        b->failed = 1;
    prep(b, b->minalign < 4 ? 4 : b->minalign, 8 + (size_prefixed ? 4 : 0));
    uint8_t *p = sweep_builder_push(b, 4);
    if (p)
        memcpy(p, identifier, 4);
    p = sweep_builder_push(b, 4);
    if (p)
        sweep__wr32(p, (uint32_t)(b->used - root));
    if (size_prefixed) {
        p = sweep_builder_push(b, 4);
        if (p)
            sweep__wr32(p, (uint32_t)(b->used - 4));
    }
    if (b->failed)
        return SWEEP_PROTO_E_BUFFER_SPACE;
    *out = b->buf + b->cap - b->used;
    *out_len = b->used;
    return SWEEP_PROTO_OK;
}
