/*
 * builder.c - the back-to-front FlatBuffers builder (builder.h): the
 * public functions, each the inline one of builder_inline.h, which the
 * encoder uses directly.
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

#include "protocol/builder_inline.h"
#include "protocol/format.h"

void sweep_builder_init(sweep_builder *b, void *buf, size_t cap)
{
    sweep__builder_init(b, buf, cap);
}

uint8_t *sweep_builder_push(sweep_builder *b, size_t size)
{
    return sweep__builder_push(b, size);
}

sweep_ref sweep_builder_bytes(sweep_builder *b, const void *data, size_t len)
{
    assert(!b->in_table);
    sweep__builder_vector_start(b, 1, len, 1);
    uint8_t *p = sweep__builder_push(b, len);
    if (p && len)
        memcpy(p, data, len);
    return sweep__builder_vector_end(b, len);
}

sweep_ref sweep_builder_string(sweep_builder *b, const char *s, size_t len)
{
    assert(!b->in_table);
    if (len > SWEEP__MAX_BUFFER) {
        b->failed = 1;
        return 0;
    }
    sweep__builder_prep(b, 4, len + 1);
    uint8_t *p = sweep__builder_push(b, len + 1);
    if (p) {
        if (len)
            memcpy(p, s, len);
        p[len] = 0;
    }
    p = sweep__builder_push(b, 4);
    if (p)
        sweep__wr32(p, (uint32_t)len);
    return sweep__builder_ref(b);
}

void sweep_builder_vector_start(sweep_builder *b, size_t elem_size, size_t count, size_t align)
{
    sweep__builder_vector_start(b, elem_size, count, align);
}

sweep_ref sweep_builder_vector_end(sweep_builder *b, size_t count)
{
    return sweep__builder_vector_end(b, count);
}

sweep_ref sweep_builder_ref_vector(sweep_builder *b, const uint8_t *refs_le, size_t count)
{
    sweep__builder_vector_start(b, 4, count, 4);
    for (size_t i = count; i-- > 0;) {
        uint8_t *p = sweep__builder_push(b, 4);
        if (p)
            sweep__wr32(p, (uint32_t)(b->used - sweep__rd32(refs_le + 4 * i)));
    }
    return sweep__builder_vector_end(b, count);
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
    sweep__builder_table_start(b);
}

void sweep_builder_add_u8(sweep_builder *b, unsigned id, uint8_t v)
{
    sweep__builder_add_u8(b, id, v);
}

void sweep_builder_add_u16(sweep_builder *b, unsigned id, uint16_t v)
{
    sweep__builder_add_u16(b, id, v);
}

void sweep_builder_add_u32(sweep_builder *b, unsigned id, uint32_t v)
{
    sweep__builder_add_u32(b, id, v);
}

void sweep_builder_add_u64(sweep_builder *b, unsigned id, uint64_t v)
{
    sweep__builder_add_u64(b, id, v);
}

void sweep_builder_add_f64(sweep_builder *b, unsigned id, double v)
{
    sweep__builder_add_f64(b, id, v);
}

void sweep_builder_add_vec3(sweep_builder *b, unsigned id, sweep_vec3 v)
{
    sweep__builder_add_vec3(b, id, v);
}

uint8_t *sweep_builder_add_struct(sweep_builder *b, unsigned id, size_t size, size_t align)
{
    return sweep__builder_field(b, id, size, align);
}

void sweep_builder_add_ref(sweep_builder *b, unsigned id, sweep_ref r)
{
    sweep__builder_add_ref(b, id, r);
}

sweep_ref sweep_builder_table_end(sweep_builder *b)
{
    return sweep__builder_table_end(b);
}

sweep_proto_error sweep_builder_finish(sweep_builder *b, sweep_ref root, const char identifier[4],
                                       int size_prefixed, const uint8_t **out, size_t *out_len)
{
    return sweep__builder_finish(b, root, identifier, size_prefixed, out, out_len);
}
