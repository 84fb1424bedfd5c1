/*
 * builder.h - a FlatBuffers builder that writes back to front into a buffer
 * the caller owns. No allocation, ever: when the buffer is full the builder
 * remembers the failure, ignores later calls, and sweep_builder_finish
 * reports SWEEP_PROTO_E_BUFFER_SPACE.
 *
 * Why back to front: a FlatBuffer's offsets point forward, so children must
 * exist before the parent that points at them; writing from the end lets a
 * message be built in one pass with children first and the root last.
 *
 * A reference (sweep_ref) names an object already written: its distance
 * from the end of the buffer. Alignment is also counted from the end; the
 * finish step pads the front so the total size is a multiple of the largest
 * alignment used, which turns end-relative alignment into start-relative
 * alignment (prefix included) as readers require.
 *
 * Usage: create strings, vectors and child tables first; then
 * start_table, add fields by id (any order), end_table; finish with the
 * root. Only one table can be open at a time (an internal invariant,
 * asserted). Tables with identical vtables share one (the last few are
 * remembered), which keeps batches small.
 */
#ifndef SWEEP_PROTOCOL_BUILDER_H
#define SWEEP_PROTOCOL_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"
#include "protocol/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_BUILDER_MAX_FIELDS 32 /* MoveResult has 32 fields; one bit each in `present` */
#define SWEEP_BUILDER_VTABLE_CACHE 8

typedef uint32_t sweep_ref; /* 0 = nothing (or a failed builder) */

typedef struct sweep_builder {
    uint8_t *buf;
    size_t cap;
    size_t used;     /* bytes written at the end of buf */
    size_t front;    /* bytes lent out at the start of buf (scratch) */
    size_t minalign; /* largest alignment requested so far */
    int failed;
    /* The table being built. */
    int in_table;
    size_t table_start;
    unsigned field_limit; /* 1 + highest field id added */
    uint32_t present;     /* bit id: field id was added */
    uint32_t fields[SWEEP_BUILDER_MAX_FIELDS]; /* field id -> ref of its value, where present */
    /* Recently written vtables, for sharing. */
    uint32_t vtables[SWEEP_BUILDER_VTABLE_CACHE];
    unsigned vtable_count, vtable_next;
} sweep_builder;

void sweep_builder_init(sweep_builder *b, void *buf, size_t cap);

/* Strings and vectors (outside a table). */
sweep_ref sweep_builder_string(sweep_builder *b, const char *s, size_t len);
sweep_ref sweep_builder_bytes(sweep_builder *b, const void *data, size_t len);
/* A vector of `count` elements of elem_size bytes aligned to align: call
 * start, then write each element's bytes with sweep_builder_push from the
 * last element to the first, then end. */
void sweep_builder_vector_start(sweep_builder *b, size_t elem_size, size_t count, size_t align);
uint8_t *sweep_builder_push(sweep_builder *b, size_t size); /* NULL once failed */
sweep_ref sweep_builder_vector_end(sweep_builder *b, size_t count);
/* A vector of offsets to already-built tables, element 0 first; the refs
 * are given as `count` 4-byte little-endian values (scratch memory has no
 * alignment, so they are bytes, not an array of sweep_ref). */
sweep_ref sweep_builder_ref_vector(sweep_builder *b, const uint8_t *refs_le, size_t count);

/* Lends `size` bytes at the start of the buffer as scratch (a batch keeps
 * its children's refs there until it writes its offset vector), so the
 * builder needs no memory of its own. The builder will not write into them
 * until sweep_builder_scratch_release. NULL if they do not fit. */
uint8_t *sweep_builder_scratch(sweep_builder *b, size_t size);
void sweep_builder_scratch_release(sweep_builder *b);

/* Tables. */
void sweep_builder_table_start(sweep_builder *b);
void sweep_builder_add_u8(sweep_builder *b, unsigned id, uint8_t v);
void sweep_builder_add_u16(sweep_builder *b, unsigned id, uint16_t v);
void sweep_builder_add_u32(sweep_builder *b, unsigned id, uint32_t v);
void sweep_builder_add_u64(sweep_builder *b, unsigned id, uint64_t v);
void sweep_builder_add_f64(sweep_builder *b, unsigned id, double v);
void sweep_builder_add_vec3(sweep_builder *b, unsigned id, sweep_vec3 v);
void sweep_builder_add_ref(sweep_builder *b, unsigned id, sweep_ref r);
/* The `size` bytes of an inline struct of that alignment, for the caller
 * to fill (every byte, padding too); NULL once failed. */
uint8_t *sweep_builder_add_struct(sweep_builder *b, unsigned id, size_t size, size_t align);
sweep_ref sweep_builder_table_end(sweep_builder *b);

/* Writes the identifier (4 bytes) and the root offset, plus the size prefix
 * if size_prefixed. On success *out points into the caller's buffer (at
 * its end) and *out_len is the buffer's length. */
sweep_proto_error sweep_builder_finish(sweep_builder *b, sweep_ref root, const char identifier[4],
                                       int size_prefixed, const uint8_t **out, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
