/*
 * test_invalid.c - one test per class of invalid buffer, each
 * asserting the exact error the verifier (or the framer) gives.
 *
 * Most cases start from a small buffer laid out by hand here, byte by byte
 * (craft() below), independently of the codec's builder, so each test
 * breaks exactly one thing of a buffer that is otherwise known valid (the
 * first test proves that). The rest mutate buffers from the encoder at
 * places found by searching for their known contents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/builder.h"
#include "samples.h"

/*
 * The hand-made buffer: a Message { sequence = 5, server_tick = 9,
 * body = Ping { client_time = 77 } } without size prefix.
 *
 *   0  u32 root offset = 24          4  "SWP1"
 *   8  Message vtable: vsize 12, tsize 24, fields at 4, 8, 16, 20
 *  20  padding
 *  24  Message table: soffset 16 (vtable at 8)
 *  28    sequence u32     32  server_tick u64
 *  40    body_type u8 = Ping, 3 bytes padding
 *  44    body uoffset = 12 (to 56)
 *  48  Ping vtable: vsize 6, tsize 16, client_time at 8; 2 bytes padding
 *  56  Ping table: soffset 8 (vtable at 48); 60 padding; 64 client_time u64
 *  72  end
 */
#define CRAFT_LEN 72u
#define MSG_VT 8u
#define MSG_TABLE 24u
#define TICK_ENTRY (MSG_VT + 4u + 2u * 1u) /* vtable entry of field id 1 */
#define BODY_ENTRY (MSG_VT + 4u + 2u * 3u)
#define BODY_TYPE_POS 40u
#define BODY_OFFSET_POS 44u

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static void craft(uint8_t *b)
{
    memset(b, 0, CRAFT_LEN);
    put32(b + 0, MSG_TABLE);
    memcpy(b + 4, "SWP1", 4);
    put16(b + 8, 12);
    put16(b + 10, 24);
    put16(b + 12, 4);
    put16(b + 14, 8);
    put16(b + 16, 16);
    put16(b + 18, 20);
    put32(b + 24, 24 - 8);
    put32(b + 28, 5);
    put64(b + 32, 9);
    b[40] = SWEEP_MSG_PING;
    put32(b + 44, 56 - 44);
    put16(b + 48, 6);
    put16(b + 50, 16);
    put16(b + 52, 8);
    put32(b + 56, 56 - 48);
    put64(b + 64, 77);
}

/* The same message as a TCP frame. Alignment counts from the start of the
 * frame (prefix included), so the layout after the identifier keeps its
 * positions: prefix, root offset, identifier, 4 bytes of padding, then
 * craft()'s bytes from 8 on at 16 on (every position shifted by 8). */
static size_t craft_frame(uint8_t *f)
{
    /* prefix(4) root(4) "SWP1"(4) pad(4) then craft()'s bytes 8.. at 16.. */
    uint8_t b[CRAFT_LEN];
    craft(b);
    memset(f, 0, CRAFT_LEN + 8);
    put32(f, CRAFT_LEN + 8 - 4);
    put32(f + 4, MSG_TABLE + 8 - 4); /* root offset counts from its own position */
    memcpy(f + 8, "SWP1", 4);
    memcpy(f + 16, b + 8, CRAFT_LEN - 8);
    return CRAFT_LEN + 8;
}

static uint8_t enc_buf[65536];

/* Encodes sample `which` and returns a modifiable copy in `copy`. */
static size_t encoded(unsigned which, unsigned flags, uint8_t *copy, size_t cap)
{
    sweep_message m = sample_message(which);
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&m, flags, enc_buf, sizeof enc_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len <= cap);
    memcpy(copy, out, len);
    return len;
}

static size_t find(const uint8_t *hay, size_t n, const void *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return i;
    fail_msg("pattern not found");
    return 0;
}

/* The control: the hand-made buffers are valid and decode as intended, so
 * each test below fails for the one defect it introduces. */
static void test_crafted_buffers_are_valid(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN], f[CRAFT_LEN + 8];
    sweep_message m;
    craft(b);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, b, CRAFT_LEN, 0, &m), SWEEP_PROTO_OK);
    assert_int_equal(m.kind, SWEEP_MSG_PING);
    assert_int_equal(m.sequence, 5);
    assert_int_equal(m.server_tick, 9);
    assert_int_equal(m.as.ping.client_time, 77);
    size_t fl = craft_frame(f);
    assert_int_equal(sweep_verify(f, fl, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, f, fl, SWEEP_WIRE_SIZE_PREFIXED, &m), SWEEP_PROTO_OK);
    assert_int_equal(m.as.ping.client_time, 77);
}

static void test_truncated(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN], f[CRAFT_LEN + 8];
    craft(b);
    /* Shorter than the smallest possible buffer. */
    for (size_t n = 0; n < 12; n++)
        assert_int_equal(sweep_verify(b, n, 0), SWEEP_PROTO_E_TRUNCATED);
    /* A frame whose prefix announces more than arrived: every cut. */
    size_t fl = craft_frame(f);
    for (size_t n = 0; n < fl; n++)
        assert_int_equal(sweep_verify(f, n, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_TRUNCATED);
    /* The same for every encoded sample. */
    static uint8_t e[65536];
    for (unsigned i = 0; i < sample_count(); i++) {
        size_t len = encoded(i, SWEEP_WIRE_SIZE_PREFIXED, e, sizeof e);
        for (size_t n = 0; n < len; n += 1 + n / 16)
            assert_int_equal(sweep_verify(e, n, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_TRUNCATED);
    }
    /* The other way round: bytes beyond what the prefix announces. */
    put32(f, (uint32_t)fl - 4 - 4);
    assert_int_equal(sweep_verify(f, fl, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_SIZE_PREFIX);
}

static void test_wrong_identifier(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN], f[CRAFT_LEN + 8];
    craft(b);
    b[7] = '2';
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_IDENTIFIER);
    size_t fl = craft_frame(f);
    f[8] = 's';
    assert_int_equal(sweep_verify(f, fl, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_IDENTIFIER);
    /* A valid plain buffer read as a frame: its root offset is taken as a
     * size and its identifier is looked for 4 bytes too far. */
    craft(b);
    assert_int_not_equal(sweep_verify(b, CRAFT_LEN, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_OK);
}

static void test_root_offset_out_of_range(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    const uint32_t bad[] = {0, CRAFT_LEN, CRAFT_LEN + 1, 0x7fffffffu, 0x80000000u, 0xffffffffu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        craft(b);
        put32(b, bad[i]);
        assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_ROOT_OFFSET);
    }
}

static void test_misaligned_field(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    sweep_message m;
    /* server_tick (u64) moved from table+8 to table+12: inside the table,
     * but at position 36, not a multiple of 8. */
    craft(b);
    put16(b + TICK_ENTRY, 12);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_ALIGNMENT);
    assert_int_equal(sweep_decode(NULL, b, CRAFT_LEN, 0, &m), SWEEP_PROTO_E_ALIGNMENT);
    /* The body offset (u32) moved to an odd place. */
    craft(b);
    put16(b + BODY_ENTRY, 17); /* position 41 */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_ALIGNMENT);
    /* A table not on 4 bytes. */
    craft(b);
    put32(b + BODY_OFFSET_POS, 13);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_ALIGNMENT);
    /* Alignment counts from the frame start, prefix included: a plain
     * buffer shifted by the 4 bytes of a prefix is misaligned. */
    uint8_t f[CRAFT_LEN + 4];
    craft(b);
    put32(f, CRAFT_LEN);
    memcpy(f + 4, b, CRAFT_LEN);
    assert_int_equal(sweep_verify(f, CRAFT_LEN + 4, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_ALIGNMENT);
}

static void test_vtable_out_of_range(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    /* soffset pointing before the buffer, after it, and a vtable whose
     * declared size runs past the end. */
    const int32_t so[] = {100, 25, -48, -1000, INT32_MIN};
    for (size_t i = 0; i < sizeof so / sizeof so[0]; i++) {
        craft(b);
        put32(b + MSG_TABLE, (uint32_t)so[i]);
        assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_VTABLE);
    }
    craft(b);
    put16(b + 48, 0xfffe); /* Ping's vtable size */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_VTABLE);
    craft(b);
    put16(b + 48, 7); /* odd */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_VTABLE);
    craft(b);
    put16(b + 48, 2); /* too small to hold the table size */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_VTABLE);
}

/* Not a class of the list, but its own error: the table's declared
 * size or a field beyond it. */
static void test_table_bounds(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    craft(b);
    put16(b + 50, 24); /* Ping claims 24 bytes from 56: past the end */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_TABLE_BOUNDS);
    craft(b);
    put16(b + 52, 12); /* client_time at 12..20 of a 16-byte table */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_TABLE_BOUNDS);
    craft(b);
    put16(b + MSG_VT + 4, 2); /* sequence overlapping the soffset */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_TABLE_BOUNDS);
}

static void test_offset_out_of_range(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    craft(b);
    put32(b + BODY_OFFSET_POS, 0);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_OFFSET);
    craft(b);
    put32(b + BODY_OFFSET_POS, CRAFT_LEN - BODY_OFFSET_POS);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_OFFSET);
    craft(b);
    put32(b + BODY_OFFSET_POS, 0xfffffff0u); /* "negative": would point backwards */
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_OFFSET);
}

static void test_string_without_nul(void **state)
{
    (void)state;
    static uint8_t e[4096];
    size_t len = encoded(22, 0, e, sizeof e); /* Bye { reason } */
    const char *reason = "server shutting down";
    size_t at = find(e, len, reason, strlen(reason) + 1);
    e[at + strlen(reason)] = '!';
    assert_int_equal(sweep_verify(e, len, 0), SWEEP_PROTO_E_STRING_NUL);
    len = encoded(22, 0, e, sizeof e);
    at = find(e, len, reason, strlen(reason));
    /* Length running past the buffer. */
    put32(e + at - 4, 0x7ffffff0u);
    assert_int_equal(sweep_verify(e, len, 0), SWEEP_PROTO_E_STRING_BOUNDS);
}

static void test_vector_count_too_large(void **state)
{
    (void)state;
    static uint8_t e[65536];
    /* Welcome.map_hash: 32 bytes announced, then far more. */
    size_t len = encoded(2, 0, e, sizeof e);
    size_t at = find(e, len, sample__hash, sizeof sample__hash);
    assert_int_equal(e[at - 4], 32);
    put32(e + at - 4, (uint32_t)(len - at) + 1);
    assert_int_equal(sweep_verify(e, len, 0), SWEEP_PROTO_E_VECTOR_BOUNDS);
    put32(e + at - 4, 0xffffffffu);
    assert_int_equal(sweep_verify(e, len, 0), SWEEP_PROTO_E_VECTOR_BOUNDS);
    /* Exactly what fits is fine (the hash is the last thing written). */
    put32(e + at - 4, (uint32_t)(len - at));
    assert_int_equal(sweep_verify(e, len, 0), SWEEP_PROTO_OK);
    /* A vector of 56-byte structs (contacts) one element too long. */
    len = encoded(9, 0, e, sizeof e);
    /* Contact 0 ends with normal.z = 0.8, triangle 8, material 1. */
    sweep_message m = sample_message(9);
    uint8_t tail[16];
    memcpy(tail, &m.as.move_result.contacts[0].normal.z, 8); /* the test assumes a little-endian host */
    put32(tail + 8, m.as.move_result.contacts[0].triangle);
    put32(tail + 12, m.as.move_result.contacts[0].material);
    at = find(e, len, tail, sizeof tail) - 40 - 4;
    assert_int_equal(e[at], SWEEP_MAX_CONTACTS);
    put32(e + at, 0x10000000u);
    assert_int_equal(sweep_verify(e, len, 0), SWEEP_PROTO_E_VECTOR_BOUNDS);
}

static void test_unknown_union_type(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    sweep_message m;
    const uint8_t bad[] = {SWEEP_MSG_KIND_COUNT, SWEEP_MSG_KIND_COUNT + 1, 200, 255};
    for (size_t i = 0; i < sizeof bad; i++) {
        craft(b);
        b[BODY_TYPE_POS] = bad[i];
        assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_UNION_TYPE);
        assert_int_equal(sweep_decode(NULL, b, CRAFT_LEN, 0, &m), SWEEP_PROTO_E_UNION_TYPE);
    }
    /* Type NONE with a value, and a value whose type field is absent. */
    craft(b);
    b[BODY_TYPE_POS] = SWEEP_MSG_NONE;
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_UNION_VALUE);
    craft(b);
    put16(b + MSG_VT + 4 + 2 * 2, 0);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_UNION_VALUE);
    /* A known type whose table does not match: Ping's table read as a
     * Welcome misses Welcome's required map_name. */
    craft(b);
    b[BODY_TYPE_POS] = SWEEP_MSG_WELCOME;
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_REQUIRED);
}

static void test_missing_required_field(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    /* Message.body absent. */
    craft(b);
    put16(b + BODY_ENTRY, 0);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_REQUIRED);
    /* Also absent when the vtable is too short to name it (an older
     * writer): shrink the vtable to two fields. */
    craft(b);
    put16(b + MSG_VT, 8);
    assert_int_equal(sweep_verify(b, CRAFT_LEN, 0), SWEEP_PROTO_E_REQUIRED);

    /* Spawn without its required radii, written with the public builder. */
    static uint8_t out[1024];
    sweep_builder bl;
    sweep_builder_init(&bl, out, sizeof out);
    sweep_builder_table_start(&bl);
    sweep_builder_add_vec3(&bl, 1, sweep_v3(1, 2, 3)); /* position only */
    sweep_ref body = sweep_builder_table_end(&bl);
    sweep_builder_table_start(&bl);
    sweep_builder_add_ref(&bl, 3, body);
    sweep_builder_add_u8(&bl, 2, SWEEP_MSG_SPAWN);
    sweep_ref root = sweep_builder_table_end(&bl);
    const uint8_t *buf;
    size_t len;
    assert_int_equal(sweep_builder_finish(&bl, root, SWEEP_WIRE_IDENTIFIER, 0, &buf, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_verify(buf, len, 0), SWEEP_PROTO_E_REQUIRED);

    /* Welcome with map_name but without its required map_hash. */
    sweep_builder_init(&bl, out, sizeof out);
    sweep_ref name = sweep_builder_string(&bl, "arena", 5);
    sweep_builder_table_start(&bl);
    sweep_builder_add_ref(&bl, 3, name);
    sweep_builder_add_u32(&bl, 0, SWEEP_PROTOCOL_VERSION);
    body = sweep_builder_table_end(&bl);
    sweep_builder_table_start(&bl);
    sweep_builder_add_ref(&bl, 3, body);
    sweep_builder_add_u8(&bl, 2, SWEEP_MSG_WELCOME);
    root = sweep_builder_table_end(&bl);
    assert_int_equal(sweep_builder_finish(&bl, root, SWEEP_WIRE_IDENTIFIER, 1, &buf, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_verify(buf, len, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_REQUIRED);
}

/* The schema nests Message > MoveBatch > Move, so a buffer can go no deeper
 * than 3 tables; the limit is checked by lowering it. The table count is
 * checked the same way (a 64-move batch visits 66 tables). */
static void test_nesting_too_deep(void **state)
{
    (void)state;
    static uint8_t e[65536];
    size_t len = encoded(11, 0, e, sizeof e);
    sweep_verify_limits lim = {3, 0};
    assert_int_equal(sweep_verify_with(e, len, 0, &lim), SWEEP_PROTO_OK);
    lim.max_depth = 2;
    assert_int_equal(sweep_verify_with(e, len, 0, &lim), SWEEP_PROTO_E_DEPTH);
    lim.max_depth = 1;
    assert_int_equal(sweep_verify_with(e, len, 0, &lim), SWEEP_PROTO_E_DEPTH);
    /* The decoder applies its own limits. */
    sweep_msg_move moves[SAMPLE_BATCH];
    sweep_decoder d = {.moves = moves, .moves_cap = SAMPLE_BATCH, .limits = {2, 0}};
    sweep_message m;
    assert_int_equal(sweep_decode(&d, e, len, 0, &m), SWEEP_PROTO_E_DEPTH);
}

static void test_too_many_tables(void **state)
{
    (void)state;
    static uint8_t e[65536];
    size_t len = encoded(11, 0, e, sizeof e);
    sweep_verify_limits lim = {0, 2 + SAMPLE_BATCH};
    assert_int_equal(sweep_verify_with(e, len, 0, &lim), SWEEP_PROTO_OK);
    lim.max_tables = 1 + SAMPLE_BATCH;
    assert_int_equal(sweep_verify_with(e, len, 0, &lim), SWEEP_PROTO_E_TOO_MANY_TABLES);
}

static void test_frame_larger_than_maximum(void **state)
{
    (void)state;
    uint8_t storage[4 + 128];
    sweep_framer fr;
    assert_int_equal(sweep_framer_init(&fr, storage, sizeof storage, 128), SWEEP_PROTO_OK);
    uint8_t hdr[4];
    put32(hdr, 129);
    assert_int_equal(sweep_framer_feed(&fr, hdr, 4), 4);
    const uint8_t *frame;
    size_t flen;
    assert_int_equal(sweep_framer_next(&fr, &frame, &flen), SWEEP_FRAME_TOO_LARGE);
    /* Sticky: the stream cannot be resynchronised. */
    assert_int_equal(sweep_framer_feed(&fr, hdr, 4), 0);
    assert_int_equal(sweep_framer_next(&fr, &frame, &flen), SWEEP_FRAME_TOO_LARGE);
    assert_int_equal(sweep_frame_peek(hdr, 4, 128, &flen), SWEEP_FRAME_TOO_LARGE);
    assert_int_equal(sweep_frame_check(129, 128), SWEEP_PROTO_E_FRAME_TOO_LARGE);
    assert_int_equal(sweep_frame_check(128, 128), SWEEP_PROTO_OK);
    /* UDP: the datagram limit. */
    assert_int_equal(sweep_datagram_check(SWEEP_UDP_MAX_DATAGRAM + 1), SWEEP_PROTO_E_DATAGRAM_TOO_LARGE);
    assert_int_equal(sweep_datagram_check(SWEEP_UDP_MAX_DATAGRAM), SWEEP_PROTO_OK);
}

/* The verifier itself refuses buffers the format cannot address, and NULL. */
static void test_arguments(void **state)
{
    (void)state;
    uint8_t b[CRAFT_LEN];
    craft(b);
    assert_int_equal(sweep_verify(NULL, 16, 0), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_verify(b, (size_t)0x80000000u, 0), SWEEP_PROTO_E_TOO_BIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crafted_buffers_are_valid),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_wrong_identifier),
        cmocka_unit_test(test_root_offset_out_of_range),
        cmocka_unit_test(test_misaligned_field),
        cmocka_unit_test(test_vtable_out_of_range),
        cmocka_unit_test(test_table_bounds),
        cmocka_unit_test(test_offset_out_of_range),
        cmocka_unit_test(test_string_without_nul),
        cmocka_unit_test(test_vector_count_too_large),
        cmocka_unit_test(test_unknown_union_type),
        cmocka_unit_test(test_missing_required_field),
        cmocka_unit_test(test_nesting_too_deep),
        cmocka_unit_test(test_too_many_tables),
        cmocka_unit_test(test_frame_larger_than_maximum),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests_name("protocol invalid buffers", tests, NULL, NULL);
}
