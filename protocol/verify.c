/*
 * verify.c - the verifier (verify.h), driven by the schema description in
 * schema.c.
 *
 * Invariants while walking:
 *   - `n` is the length of the bytes given, including the size prefix;
 *     every position is an index into those bytes, so alignment is checked
 *     on positions, not on addresses.
 *   - A position is only dereferenced after a check that the bytes it
 *     covers are inside [0, n). Arithmetic is done in size_t on values
 *     bounded by n (< 2^31) plus 32-bit quantities, so nothing overflows
 *     on a 64-bit size_t; on 32-bit hosts the explicit comparisons below
 *     are written to avoid sums that could wrap.
 *   - Recursion is bounded by the depth limit; each table visit counts
 *     against the table limit before it is inspected.
 */
#include "protocol/verify.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "core/compiler.h"
#include "protocol/format.h"
#include "protocol/medium_image.h"
#include "protocol/message.h"
#include "protocol/schema.h"
#include "protocol/verify_internal.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct vstate {
    const uint8_t *b;
    size_t n;
    uint32_t depth, max_depth;
    uint32_t tables, max_tables;
} vstate;

/* True if [pos, pos + size) lies inside the buffer. */
static int inside(const vstate *v, size_t pos, size_t size)
{
    return pos <= v->n && size <= v->n - pos;
}

/* Follows the uoffset stored at pos (already checked inside and aligned). */
static sweep_proto_error follow(const vstate *v, size_t pos, size_t *target)
{
    uint32_t o = sweep__rd32(v->b + pos);
    if (o == 0 || o > SWEEP__MAX_BUFFER || !inside(v, pos, (size_t)o + 1))
        return SWEEP_PROTO_E_OFFSET;
    *target = pos + o;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error check_string(const vstate *v, size_t pos)
{
    if (pos % 4)
        return SWEEP_PROTO_E_ALIGNMENT;
    if (!inside(v, pos, 4))
        return SWEEP_PROTO_E_STRING_BOUNDS;
    uint32_t len = sweep__rd32(v->b + pos);
    if (!inside(v, pos + 4, len))
        return SWEEP_PROTO_E_STRING_BOUNDS;
    if (!inside(v, pos + 4 + len, 1) || v->b[pos + 4 + len] != 0)
        return SWEEP_PROTO_E_STRING_NUL;
    return SWEEP_PROTO_OK;
}

/* A vector's count at pos; its elements (elem bytes each, aligned to
 * align) must fit. Returns the count through *count. */
static sweep_proto_error check_vector(const vstate *v, size_t pos, size_t elem, size_t align,
                                      uint32_t *count)
{
    if (pos % 4 || (pos + 4) % align)
        return SWEEP_PROTO_E_ALIGNMENT;
    if (!inside(v, pos, 4))
        return SWEEP_PROTO_E_VECTOR_BOUNDS;
    uint32_t c = sweep__rd32(v->b + pos);
    if ((size_t)c > (v->n - pos - 4) / elem)
        return SWEEP_PROTO_E_VECTOR_BOUNDS;
    *count = c;
    return SWEEP_PROTO_OK;
}

static sweep_proto_error check_table(vstate *v, size_t tpos, const sweep__table *t);

static sweep_proto_error check_table_vector(vstate *v, size_t pos, const sweep__table *t)
{
    uint32_t count;
    sweep_proto_error e = check_vector(v, pos, 4, 4, &count);
    for (uint32_t i = 0; e == SWEEP_PROTO_OK && i < count; i++) {
        size_t elem = pos + 4 + (size_t)i * 4, target;
        e = follow(v, elem, &target);
        if (e == SWEEP_PROTO_OK)
            e = check_table(v, target, t);
    }
    return e;
}

/* Position of field `id` of the table at tpos whose vtable is at vt with
 * vsize bytes, or 0 if absent (offset 0 or id beyond the vtable: a writer
 * with an older schema). */
static size_t field_offset(const vstate *v, size_t vt, uint16_t vsize, unsigned id)
{
    size_t entry = 4 + 2 * (size_t)id;
    if (entry + 2 > vsize)
        return 0;
    return sweep__rd16(v->b + vt + entry);
}

/* Kinds whose value is stored in the table itself (size and align in the field). */
#define INLINE_KINDS ((1u << SWEEP__F_SCALAR) | (1u << SWEEP__F_STRUCT) | (1u << SWEEP__F_UNION_TYPE))

static sweep_proto_error check_table(vstate *v, size_t tpos, const sweep__table *t)
{
    sweep_proto_error e = SWEEP_PROTO_OK;
    if (tpos % 4)
        return SWEEP_PROTO_E_ALIGNMENT;
    if (!inside(v, tpos, 4))
        return SWEEP_PROTO_E_TABLE_BOUNDS;
    if (++v->depth > v->max_depth)
        return SWEEP_PROTO_E_DEPTH;
    if (++v->tables > v->max_tables)
        return SWEEP_PROTO_E_TOO_MANY_TABLES;

    /* vtable = table - soffset; soffset is signed (a shared vtable may sit
     * after the table). Computed in 64 bits so any i32 is representable. */
    int64_t vt64 = (int64_t)tpos - (int32_t)sweep__rd32(v->b + tpos);
    if (vt64 < 0 || !inside(v, (size_t)vt64, 4))
        return SWEEP_PROTO_E_VTABLE;
    size_t vt = (size_t)vt64;
    if (vt % 2)
        return SWEEP_PROTO_E_ALIGNMENT;
    uint16_t vsize = sweep__rd16(v->b + vt);
    uint16_t tsize = sweep__rd16(v->b + vt + 2);
    if (vsize < 4 || vsize % 2 || !inside(v, vt, vsize))
        return SWEEP_PROTO_E_VTABLE;
    if (tsize < 4 || !inside(v, tpos, tsize))
        return SWEEP_PROTO_E_TABLE_BOUNDS;

    /* Most fields of the messages a server reads all day (Move,
     * MoveResult) are scalars and structs stored in the table itself:
     * those are checked first in a few instructions each (present: inside
     * the table past its soffset, aligned), the rest below. Alignments in
     * the schema are powers of two and tpos is a multiple of 4. Fields
     * past the vtable's entries are absent (an older writer). */
    unsigned entries = (vsize - 4u) / 2u;
    unsigned count = t->field_count, in_vtable = count < entries ? count : entries;
    const uint8_t *vte = v->b + vt + 4;
    for (unsigned id = 0; id < count; id++) {
        const sweep__field *f = &t->fields[id];
        size_t fo = id < in_vtable ? sweep__rd16(vte + 2 * (size_t)id) : 0;
        if ((1u << f->kind) & INLINE_KINDS) {
            if (fo == 0) {
                if (f->required)
                    return SWEEP_PROTO_E_REQUIRED;
                continue;
            }
            if (fo < 4 || fo + f->size > tsize)
                return SWEEP_PROTO_E_TABLE_BOUNDS;
            if ((tpos + fo) & (size_t)(f->align - 1u))
                return SWEEP_PROTO_E_ALIGNMENT;
            continue;
        }
        if (f->kind == SWEEP__F_UNION) {
            /* The type field (id - 1) was checked as a u8 just before. */
            size_t to = field_offset(v, vt, vsize, id - 1);
            unsigned type = to ? v->b[tpos + to] : 0;
            if (type >= f->member_count)
                return SWEEP_PROTO_E_UNION_TYPE;
            if (fo == 0) {
                if (f->required)
                    return SWEEP_PROTO_E_REQUIRED;
                if (type != 0)
                    return SWEEP_PROTO_E_UNION_VALUE;
                continue;
            }
            if (type == 0)
                return SWEEP_PROTO_E_UNION_VALUE;
        }
        if (fo == 0) {
            if (f->required)
                return SWEEP_PROTO_E_REQUIRED;
            continue;
        }
        /* The rest hold a 4-byte offset. Offset < 4 would overlap the
         * table's own soffset. */
        if (fo < 4 || fo + 4 > tsize)
            return SWEEP_PROTO_E_TABLE_BOUNDS;
        size_t pos = tpos + fo;
        if (pos % 4)
            return SWEEP_PROTO_E_ALIGNMENT;

        size_t target;
        uint32_t elems;
        switch (f->kind) {
        case SWEEP__F_STRING:
            if ((e = follow(v, pos, &target)) == SWEEP_PROTO_OK)
                e = check_string(v, target);
            break;
        case SWEEP__F_VECTOR:
            if ((e = follow(v, pos, &target)) == SWEEP_PROTO_OK)
                e = check_vector(v, target, f->size, f->align, &elems);
            break;
        case SWEEP__F_TABLE_VECTOR:
            if ((e = follow(v, pos, &target)) == SWEEP_PROTO_OK)
                e = check_table_vector(v, target, f->table);
            break;
        case SWEEP__F_UNION: {
            size_t to = field_offset(v, vt, vsize, id - 1);
            unsigned type = v->b[tpos + to];
            if ((e = follow(v, pos, &target)) == SWEEP_PROTO_OK)
                e = check_table(v, target, f->members[type]);
            break;
        }
        default:
            assert(!"field kind missing from the verifier");
            e = SWEEP_PROTO_E_ARG;
        }
        if (e != SWEEP_PROTO_OK)
            return e;
    }
    v->depth--;
    return SWEEP_PROTO_OK;
}

/*
 * The fast path for the messages a server reads all day: a Message whose
 * body is a Move, or a MoveBatch (a game server's every tick: a thousand
 * Move tables, which the general walk checks field by field through the
 * schema at some 270 instructions each). It proves the same properties
 * check_table does, for just these tables, with their fields' sizes and
 * alignments as constants: each vtable is read once, and each field's
 * three tests (inside the table past its soffset, inside the declared
 * size, aligned) are or-ed together without a branch or a call per field.
 * It only says "valid" or "not sure": anything else (another body, a
 * defect, limits the general walk would hit) goes through the general
 * walk from the root, so the error reported for a bad buffer is the
 * general walk's own, first defect in field order.
 * tests/protocol/test_verify_fast.c holds the two to the same verdicts.
 */

/* The checks check_table makes before looking at fields. On success the
 * vtable's position and its two sizes. */
static inline int fast_head(const vstate *v, size_t tpos, size_t *vt, unsigned *vsize, unsigned *tsize)
{
    if (tpos % 4 || !inside(v, tpos, 4))
        return 0;
    int64_t vt64 = (int64_t)tpos - (int32_t)sweep__rd32(v->b + tpos);
    if (vt64 < 0 || !inside(v, (size_t)vt64, 4) || vt64 % 2)
        return 0;
    *vt = (size_t)vt64;
    *vsize = sweep__rd16(v->b + *vt);
    *tsize = sweep__rd16(v->b + *vt + 2);
    return *vsize >= 4 && *vsize % 2 == 0 && inside(v, *vt, *vsize) && *tsize >= 4 && inside(v, tpos, *tsize);
}

/* Offset of inline field `id` (absent: 0) into fo[id], and in `bad`
 * whether it is misplaced: inside the table's soffset, past its declared
 * size, or not aligned (tpos is a multiple of 4 here). */
#define FAST_FIELD(id, size, align)                                                                 \
    do {                                                                                            \
        unsigned fo_ = (id) < entries ? sweep__rd16(vte + 2 * (id)) : 0u;                           \
        bad |= (fo_ != 0) & ((fo_ < 4) | (fo_ + (size) > tsize) | (((tpos + fo_) & ((align)-1u)) != 0)); \
        fo[id] = fo_;                                                                               \
    } while (0)

#ifdef __SSE2__
/* FAST_FIELD for fields first .. first + count - 1 (count at most 8) of
 * a table at once, a 16-bit lane a field, sizes and alignments - 1 given
 * as lanes: a Move's eight fields took some 120 instructions one at a
 * time, 30 so. The 16 bytes of their vtable entries are read whole: the
 * caller makes sure they are inside the buffer. Entries past the
 * vtable's own (or past count) are absent, as FAST_FIELD takes them. 1 if
 * no present field is misplaced; the offsets (0: absent) in *fo. */
static inline int fast_group_sse2(const vstate *v, size_t tpos, size_t vt, unsigned entries, unsigned first,
                                  unsigned count, unsigned tsize, __m128i size, __m128i align_mask, __m128i *fo)
{
    unsigned n = entries > first ? entries - first : 0u;
    n = n < count ? n : count;
    __m128i f = _mm_loadu_si128((const __m128i *)(v->b + vt + 4 + 2 * (size_t)first));
    f = _mm_and_si128(f, _mm_cmpgt_epi16(_mm_set1_epi16((short)n), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7)));
    /* Unsigned throughout: inside the soffset (fo < 4: 4 - fo saturates
     * to 0 only when not), past the size (fo + size > tsize is fo above
     * tsize - size; where that is below 0 every present field is past),
     * misaligned (the low bits of tpos + fo survive the 16-bit wrap). */
    __m128i over = _mm_subs_epu16(f, _mm_subs_epu16(_mm_set1_epi16((short)tsize), size));
    __m128i x = _mm_or_si128(_mm_subs_epu16(_mm_set1_epi16(4), f), over);
    x = _mm_or_si128(x, _mm_and_si128(_mm_add_epi16(f, _mm_set1_epi16((short)(tpos & 7u))), align_mask));
    __m128i zero = _mm_setzero_si128();
    __m128i fine = _mm_or_si128(_mm_cmpeq_epi16(f, zero), _mm_cmpeq_epi16(x, zero));
    *fo = f;
    return _mm_movemask_epi8(fine) == 0xffff;
}
#endif

/* The uoffset at pos (inside the buffer and aligned, checked by the
 * caller) followed as follow() does: its target, or 0 where follow()
 * refuses (a target is never 0: the offset is not). */
static inline size_t fast_follow(const vstate *v, size_t pos)
{
    uint32_t o = sweep__rd32(v->b + pos);
    if (o == 0 || o > SWEEP__MAX_BUFFER || !inside(v, pos, (size_t)o + 1))
        return 0;
    return pos + o;
}

/* The fields of a Move table at tpos whose head fast_head checked:
 * velocity is required, the rest optional. Their offsets into out (NULL:
 * not wanted) when they pass. */
static SWEEP__ALWAYS_INLINE int fast_move_fields(const vstate *v, size_t tpos, size_t vt, unsigned vsize, unsigned tsize,
                                   uint16_t *out)
{
    unsigned entries = (vsize - 4u) / 2u, fo[8], bad = 0;
#ifdef __SSE2__
    if (vt + 20 <= v->n) {
        __m128i f;
        const __m128i size = _mm_setr_epi16(4, 4, 8, SWEEP__VEC3_SIZE, 8, SWEEP__VEC3_SIZE, 4, 1);
        const __m128i align = _mm_setr_epi16(3, 3, 7, SWEEP__STRUCT_ALIGN - 1, 7, SWEEP__STRUCT_ALIGN - 1, 3, 0);
        if (!fast_group_sse2(v, tpos, vt, entries, 0, 8, tsize, size, align, &f) ||
            _mm_extract_epi16(f, SWEEP__MOVE_VELOCITY) == 0)
            return 0;
        if (out)
            _mm_storeu_si128((__m128i *)out, f);
        return 1;
    }
#endif
    const uint8_t *vte = v->b + vt + 4;
    FAST_FIELD(SWEEP__MOVE_ENTITY, 4, 4);
    FAST_FIELD(SWEEP__MOVE_SEQUENCE, 4, 4);
    FAST_FIELD(SWEEP__MOVE_CLIENT_TICK, 8, 8);
    FAST_FIELD(SWEEP__MOVE_VELOCITY, SWEEP__VEC3_SIZE, SWEEP__STRUCT_ALIGN);
    FAST_FIELD(SWEEP__MOVE_DT, 8, 8);
    FAST_FIELD(SWEEP__MOVE_CLAIMED_POSITION, SWEEP__VEC3_SIZE, SWEEP__STRUCT_ALIGN);
    FAST_FIELD(SWEEP__MOVE_BUTTONS, 4, 4);
    FAST_FIELD(SWEEP__MOVE_MODE, 1, 1);
    if (bad || fo[SWEEP__MOVE_VELOCITY] == 0)
        return 0;
    for (unsigned i = 0; out && i < 8; i++)
        out[i] = (uint16_t)fo[i];
    return 1;
}

static inline int fast_move(const vstate *v, size_t tpos, uint16_t *out)
{
    size_t vt;
    unsigned vsize, tsize;
    return fast_head(v, tpos, &vt, &vsize, &tsize) && fast_move_fields(v, tpos, vt, vsize, tsize, out);
}

/* A MoveResult's fields by id (schema.c, move_result): inline size and
 * alignment; its contacts (a vector of structs) are an offset, placed as
 * a 4-byte field. Position and velocity are required. Checked against
 * the schema by sweep__verify_fast_layout_ok. */
#define MR_FIELDS (SWEEP__MR_MEDIUM + 1)
static const uint16_t mr_size[32] = {
    4, 4, 8, SWEEP__VEC3_SIZE, SWEEP__VEC3_SIZE, 1, SWEEP__VEC3_SIZE, 4,
    4, 1, 8, 4, 4, 1, 1, SWEEP__VEC3_SIZE,
    4, 8, 8, 8, 4, 4, 1, 4,
    8, 4, 4, 4, 1, 1, SWEEP__MEDIUM_SIZE, 0,
};
/* Alignment - 1. */
static const uint16_t mr_align[32] = {
    3, 3, 7, SWEEP__STRUCT_ALIGN - 1, SWEEP__STRUCT_ALIGN - 1, 0, SWEEP__STRUCT_ALIGN - 1, 3,
    3, 0, 7, 3, 3, 0, 0, SWEEP__STRUCT_ALIGN - 1,
    3, 7, 7, 7, 3, 3, 0, 3,
    7, 3, 3, 3, 0, 0, SWEEP__MEDIUM_ALIGN - 1, 0,
};

int sweep__verify_fast_layout_ok(void)
{
    const sweep__table *t = sweep__table_message.fields[SWEEP__MESSAGE_BODY].members[SWEEP_MSG_MOVE_RESULT];
    if (t->field_count != MR_FIELDS)
        return 0;
    for (unsigned id = 0; id < MR_FIELDS; id++) {
        const sweep__field *f = &t->fields[id];
        int offset = f->kind == SWEEP__F_VECTOR;
        if ((offset ? 4u : f->size) != mr_size[id] || (offset ? 4u : f->align) - 1u != mr_align[id] ||
            f->required != (id == SWEEP__MR_POSITION || id == SWEEP__MR_VELOCITY) ||
            !(offset ? id == SWEEP__MR_CONTACTS : ((1u << f->kind) & INLINE_KINDS) != 0))
            return 0;
    }
    return 1;
}

/* The fields of a MoveResult table at tpos whose head fast_head checked,
 * all but the contacts' vector: every present field placed as check_table
 * wants it, the two required ones present. Its contacts' offset (0:
 * none) in *contacts when they pass. */
static SWEEP__ALWAYS_INLINE int fast_result_fields(const vstate *v, size_t tpos, size_t vt, unsigned vsize,
                                                   unsigned tsize, unsigned *contacts)
{
    unsigned entries = (vsize - 4u) / 2u, bad = 0;
#ifdef __SSE2__
    if (vt + 4 + 2 * 32 <= v->n) {
        __m128i f[4];
        int ok = 1;
        for (unsigned g = 0; g < 4; g++)
            ok &= fast_group_sse2(v, tpos, vt, entries, 8 * g, g < 3 ? 8 : MR_FIELDS - 24, tsize,
                                  _mm_loadu_si128((const __m128i *)(mr_size + 8 * g)),
                                  _mm_loadu_si128((const __m128i *)(mr_align + 8 * g)), &f[g]);
        if (!ok || _mm_extract_epi16(f[0], SWEEP__MR_POSITION) == 0 ||
            _mm_extract_epi16(f[0], SWEEP__MR_VELOCITY) == 0)
            return 0;
        *contacts = (unsigned)_mm_extract_epi16(f[1], SWEEP__MR_CONTACTS - 8);
        return 1;
    }
#endif
    const uint8_t *vte = v->b + vt + 4;
    unsigned fo[32];
    for (unsigned id = 0; id < MR_FIELDS; id++) {
        unsigned o = id < entries ? sweep__rd16(vte + 2 * id) : 0u;
        bad |= (o != 0) & ((o < 4) | (o + mr_size[id] > tsize) | (((tpos + o) & mr_align[id]) != 0));
        fo[id] = o;
    }
    if (bad || fo[SWEEP__MR_POSITION] == 0 || fo[SWEEP__MR_VELOCITY] == 0)
        return 0;
    *contacts = fo[SWEEP__MR_CONTACTS];
    return 1;
}

/* A MoveResult's contacts: the vector its offset field at pos (placed as
 * check_table wants) points to, checked as check_vector checks a vector
 * of structs of SWEEP__CONTACT_SIZE bytes aligned to 8. */
static inline int fast_contacts(const vstate *v, size_t pos)
{
    size_t vec = fast_follow(v, pos);
    if (vec == 0 || vec % 4 || (vec + 4) % SWEEP__STRUCT_ALIGN || !inside(v, vec, 4))
        return 0;
    return (size_t)sweep__rd32(v->b + vec) <= (v->n - vec - 4) / SWEEP__CONTACT_SIZE;
}

static inline int fast_result(const vstate *v, size_t tpos)
{
    size_t vt;
    unsigned vsize, tsize, contacts;
    return fast_head(v, tpos, &vt, &vsize, &tsize) && fast_result_fields(v, tpos, vt, vsize, tsize, &contacts) &&
           (contacts == 0 || fast_contacts(v, tpos + contacts));
}

/* The table of a batch (a MoveBatch or a MoveResultBatch) at tpos, at
 * depth 2: its required vector of tables, each at depth 3 and counting
 * against the table limit. The vector's position and count when its
 * items may be checked. */
static int fast_batch_vector(const vstate *v, size_t tpos, size_t *vec, uint32_t *count)
{
    size_t vt;
    unsigned vsize, tsize;
    if (v->max_depth < 3 || !fast_head(v, tpos, &vt, &vsize, &tsize) || vsize < 6)
        return 0;
    /* items: an offset field, so as check_table takes one: past the
     * soffset, inside the table, aligned to 4. */
    size_t fo = sweep__rd16(v->b + vt + 4);
    if (fo < 4 || fo + 4 > tsize || (tpos + fo) % 4)
        return 0;
    *vec = fast_follow(v, tpos + fo);
    /* check_vector's: aligned, its count inside, the count's offsets too. */
    if (*vec == 0 || *vec % 4 || !inside(v, *vec, 4))
        return 0;
    *count = sweep__rd32(v->b + *vec);
    return (size_t)*count <= (v->n - *vec - 4) / 4 && (uint64_t)*count + 2 <= v->max_tables;
}

/* A MoveBatch (results 0) or a MoveResultBatch (results 1) table at tpos
 * (depth 2 of the walk, the Message's table counted; fast_batch_vector
 * leaves to the general walk a batch the limits would cut). The builder
 * writes one vtable for items of the same fields, so most items of a
 * batch share their vtable: an item whose vtable and place modulo 8 (the
 * largest alignment of its fields) are the previous one's has fields
 * placed as those were, and only its head (its own bounds against its
 * size) and a MoveResult's own contacts are checked. */
static int fast_batch(const vstate *v, size_t tpos, int results)
{
    size_t vt, vec;
    unsigned vsize, tsize, contacts = 0;
    uint32_t count;
    if (!fast_batch_vector(v, tpos, &vec, &count))
        return 0;
    size_t seen_vt = SIZE_MAX, seen_mod = 0;
    for (uint32_t i = 0; i < count; i++) {
        size_t m = fast_follow(v, vec + 4 + 4 * (size_t)i);
        if (m == 0 || !fast_head(v, m, &vt, &vsize, &tsize))
            return 0;
        if (vt != seen_vt || m % 8 != seen_mod) {
            if (!(results ? fast_result_fields(v, m, vt, vsize, tsize, &contacts)
                          : fast_move_fields(v, m, vt, vsize, tsize, NULL)))
                return 0;
            seen_vt = vt;
            seen_mod = m % 8;
        }
        if (contacts && !fast_contacts(v, m + contacts))
            return 0;
    }
    return 1;
}

/* The Message at root, its body a Move, a MoveBatch, a MoveResult or a
 * MoveResultBatch (what a client reads all day). For a Move it
 * accepts, where its tables and fields are into *at (NULL: not wanted). */
static int fast_message(const vstate *v, size_t root, sweep__verified_move *at)
{
    if (v->max_depth < 2 || v->max_tables < 2)
        return 0;
    size_t vt, tpos = root;
    unsigned vsize, tsize, entries, bad = 0;
    /* The offsets go where *at wants them, so they are not copied there. */
    uint16_t mine[8], *fo = at ? at->message_fo : mine;
    if (!fast_head(v, tpos, &vt, &vsize, &tsize))
        return 0;
    entries = (vsize - 4u) / 2u;
    /* Message: sequence u32, server_tick u64, body_type u8, body (required),
     * key u64. */
#ifdef __SSE2__
    if (vt + 20 <= v->n) {
        __m128i f;
        const __m128i size = _mm_setr_epi16(4, 8, 1, 4, 8, 0, 0, 0);
        const __m128i align = _mm_setr_epi16(3, 7, 0, 3, 7, 0, 0, 0);
        bad = !fast_group_sse2(v, tpos, vt, entries, 0, 5, tsize, size, align, &f);
        _mm_storeu_si128((__m128i *)fo, f);
    } else
#endif
    {
        const uint8_t *vte = v->b + vt + 4;
        FAST_FIELD(SWEEP__MESSAGE_SEQUENCE, 4, 4);
        FAST_FIELD(SWEEP__MESSAGE_SERVER_TICK, 8, 8);
        FAST_FIELD(SWEEP__MESSAGE_BODY_TYPE, 1, 1);
        FAST_FIELD(SWEEP__MESSAGE_BODY, 4, 4);
        FAST_FIELD(SWEEP__MESSAGE_KEY, 8, 8);
    }
    if (bad || fo[SWEEP__MESSAGE_BODY_TYPE] == 0 || fo[SWEEP__MESSAGE_BODY] == 0)
        return 0;
    unsigned type = v->b[tpos + fo[SWEEP__MESSAGE_BODY_TYPE]];
    if (type != SWEEP_MSG_MOVE && type != SWEEP_MSG_MOVE_BATCH && type != SWEEP_MSG_MOVE_RESULT &&
        type != SWEEP_MSG_MOVE_RESULT_BATCH)
        return 0;
    size_t body = fast_follow(v, tpos + fo[SWEEP__MESSAGE_BODY]);
    if (body == 0)
        return 0;
    if (type == SWEEP_MSG_MOVE_BATCH || type == SWEEP_MSG_MOVE_RESULT_BATCH)
        return fast_batch(v, body, type == SWEEP_MSG_MOVE_RESULT_BATCH);
    if (type == SWEEP_MSG_MOVE_RESULT)
        return fast_result(v, body);
    if (!fast_move(v, body, at ? at->move_fo : NULL))
        return 0;
    if (at) {
        at->message = root;
        at->move = body;
    }
    return 1;
}
#undef FAST_FIELD

/* The fast path restates schema.c's Message, Move, MoveBatch, MoveResult
 * and MoveResultBatch: a field added to any of them must be added there
 * too (and the test will say so). */
_Static_assert(SWEEP__MESSAGE_BODY == 3 && SWEEP__MESSAGE_KEY == 4 && SWEEP__MOVE_MODE == 7 &&
                   SWEEP__BATCH_ITEMS == 0 && SWEEP__MR_MEDIUM == 30 && SWEEP__STRUCT_ALIGN <= 8,
               "verify.c: fast path fields");

static sweep_proto_error verify(const void *buf, size_t len, unsigned flags, const sweep_verify_limits *limits,
                                int fast, sweep__verified_move *at, int *fast_took)
{
    if (buf == NULL)
        return SWEEP_PROTO_E_ARG;
    if (len > SWEEP__MAX_BUFFER)
        return SWEEP_PROTO_E_TOO_BIG;
    vstate v = {buf, len, 0, SWEEP_VERIFY_MAX_DEPTH, 0, SWEEP_VERIFY_MAX_TABLES};
    if (limits && limits->max_depth)
        v.max_depth = limits->max_depth;
    if (limits && limits->max_tables)
        v.max_tables = limits->max_tables;

    size_t base = 0;
    if (flags & SWEEP_WIRE_SIZE_PREFIXED) {
        if (len < 4)
            return SWEEP_PROTO_E_TRUNCATED;
        uint32_t size = sweep__rd32(v.b);
        if (size > len - 4)
            return SWEEP_PROTO_E_TRUNCATED;
        if (size < len - 4)
            return SWEEP_PROTO_E_SIZE_PREFIX;
        base = 4;
    }
    /* Root offset, identifier, and the smallest table (soffset) and vtable. */
    if (len - base < 12)
        return SWEEP_PROTO_E_TRUNCATED;
    if (memcmp(v.b + base + 4, SWEEP_WIRE_IDENTIFIER, 4) != 0)
        return SWEEP_PROTO_E_IDENTIFIER;
    size_t root;
    if (follow(&v, base, &root) != SWEEP_PROTO_OK)
        return SWEEP_PROTO_E_ROOT_OFFSET;
    if (fast && fast_message(&v, root, at)) {
        if (fast_took)
            *fast_took = 1;
        return SWEEP_PROTO_OK;
    }
    return check_table(&v, root, &sweep__table_message);
}

sweep_proto_error sweep__verify_general(const void *buf, size_t len, unsigned flags,
                                        const sweep_verify_limits *limits, int fast)
{
    return verify(buf, len, flags, limits, fast, NULL, NULL);
}

int sweep__verify_fast_takes(const void *buf, size_t len, unsigned flags)
{
    int took = 0;
    return verify(buf, len, flags, NULL, 1, NULL, &took) == SWEEP_PROTO_OK && took;
}

sweep_proto_error sweep__verify_at(const void *buf, size_t len, unsigned flags, const sweep_verify_limits *limits,
                                   sweep__verified_move *at)
{
    at->move = 0;
    return verify(buf, len, flags, limits, 1, at, NULL);
}

sweep_proto_error sweep_verify_with(const void *buf, size_t len, unsigned flags,
                                    const sweep_verify_limits *limits)
{
    return verify(buf, len, flags, limits, 1, NULL, NULL);
}

sweep_proto_error sweep_verify(const void *buf, size_t len, unsigned flags)
{
    return sweep_verify_with(buf, len, flags, NULL);
}
