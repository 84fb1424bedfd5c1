/*
 * test_framing.c - the TCP framer cuts a byte stream into the frames the
 * encoder wrote, whatever the chunking, and the frames decode; the UDP size
 * rule holds for what a client sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "samples.h"

static uint8_t stream[1 << 18];
static uint8_t enc[1 << 16];
static uint8_t storage[4 + SWEEP_FRAME_DEFAULT_MAX];
static sweep_msg_move moves[SAMPLE_BATCH];
static sweep_msg_move_result results[SAMPLE_BATCH];
static sweep_wire_mover movers[8];
static sweep_msg_entity_command commands[8];
static sweep_msg_entity_command_result command_results[8];
static sweep_wire_entity_state entity_states[8];
static sweep_wire_world_info worlds[8];
static sweep_msg_query_item query_items[8];
static sweep_msg_query_answer query_answers[8];
static sweep_wire_query_hit query_hits[16];
static uint32_t query_ignore[32];
static sweep_wire_hit_shape hit_shapes[8];

/* Every sample as a frame, back to back; their offsets in *starts. */
static size_t build_stream(size_t *starts)
{
    size_t n = 0;
    for (unsigned i = 0; i < sample_count(); i++) {
        sweep_message m = sample_message(i);
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
        assert_true(n + len <= sizeof stream);
        starts[i] = n;
        memcpy(stream + n, out, len);
        n += len;
    }
    starts[sample_count()] = n;
    return n;
}

static void run_with_chunk(size_t chunk)
{
    size_t starts[64];
    size_t total = build_stream(starts);
    sweep_framer f;
    assert_int_equal(sweep_framer_init(&f, storage, sizeof storage, SWEEP_FRAME_DEFAULT_MAX), SWEEP_PROTO_OK);
    sweep_decoder d = {moves, SAMPLE_BATCH, results, SAMPLE_BATCH, movers, 8, {0, 0}, commands, 8,
                       command_results, 8, entity_states, 8, worlds, 8, query_items, 8,
                       query_answers, 8, query_hits, 16, query_ignore, 32, hit_shapes, 8};
    unsigned got = 0;
    size_t fed = 0;
    while (fed < total) {
        size_t want = total - fed < chunk ? total - fed : chunk;
        size_t took = sweep_framer_feed(&f, stream + fed, want);
        fed += took;
        const uint8_t *frame;
        size_t flen;
        sweep_frame_status st;
        while ((st = sweep_framer_next(&f, &frame, &flen)) == SWEEP_FRAME_READY) {
            assert_true(got < sample_count());
            assert_int_equal(flen, starts[got + 1] - starts[got]);
            assert_memory_equal(frame, stream + starts[got], flen);
            sweep_message back, m = sample_message(got);
            assert_int_equal(sweep_decode(&d, frame, flen, SWEEP_WIRE_SIZE_PREFIXED, &back), SWEEP_PROTO_OK);
            assert_true(sample_equal(&m, &back));
            got++;
        }
        assert_int_equal(st, SWEEP_FRAME_NEED_MORE);
        assert_true(took > 0 || want == 0);
    }
    assert_int_equal(got, sample_count());
}

static void test_stream_one_byte_at_a_time(void **state)
{
    (void)state;
    run_with_chunk(1);
}

static void test_stream_odd_chunks(void **state)
{
    (void)state;
    run_with_chunk(7);
    run_with_chunk(1000);
    run_with_chunk(sizeof storage); /* as much as fits at once */
}

/* Feeding more than the storage holds takes only what fits. */
static void test_feed_partial_when_full(void **state)
{
    (void)state;
    uint8_t small[4 + 64];
    sweep_framer f;
    assert_int_equal(sweep_framer_init(&f, small, sizeof small, 64), SWEEP_PROTO_OK);
    uint8_t data[200] = {0};
    data[0] = 60; /* a 60-byte frame, then more */
    assert_int_equal(sweep_framer_feed(&f, data, sizeof data), sizeof small);
    const uint8_t *frame;
    size_t flen;
    assert_int_equal(sweep_framer_next(&f, &frame, &flen), SWEEP_FRAME_READY);
    assert_int_equal(flen, 64);
    /* The 4 leftover bytes are a header announcing an empty body: a frame
     * for the framer, refused by the verifier. */
    assert_int_equal(sweep_framer_next(&f, &frame, &flen), SWEEP_FRAME_READY);
    assert_int_equal(flen, 4);
    assert_int_equal(sweep_verify(frame, flen, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_E_TRUNCATED);
    assert_int_equal(sweep_framer_next(&f, &frame, &flen), SWEEP_FRAME_NEED_MORE);
    /* Everything consumed: the whole storage is free again. */
    assert_int_equal(sweep_framer_feed(&f, data, sizeof data), sizeof small);
}

static void test_init_arguments(void **state)
{
    (void)state;
    sweep_framer f;
    uint8_t small[16];
    assert_int_equal(sweep_framer_init(&f, NULL, 100, 10), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_framer_init(&f, small, sizeof small, 13), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_framer_init(&f, small, sizeof small, 12), SWEEP_PROTO_OK);
    size_t flen;
    assert_int_equal(sweep_frame_peek(small, 3, 12, &flen), SWEEP_FRAME_NEED_MORE);
}

/* What a UDP client sends fits one datagram; a 64-move batch does not. */
static void test_udp_sizes(void **state)
{
    (void)state;
    const uint8_t *out;
    size_t len;
    unsigned small[] = {0, 1, 7, 8, 24};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        sweep_message m = sample_message(small[i]);
        assert_int_equal(sweep_encode(&m, 0, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
        assert_int_equal(sweep_datagram_check(len), SWEEP_PROTO_OK);
    }
    sweep_message b = sample_message(11);
    assert_int_equal(sweep_encode(&b, 0, enc, sizeof enc, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_datagram_check(len), SWEEP_PROTO_E_DATAGRAM_TOO_LARGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_one_byte_at_a_time),
        cmocka_unit_test(test_stream_odd_chunks),
        cmocka_unit_test(test_feed_partial_when_full),
        cmocka_unit_test(test_init_arguments),
        cmocka_unit_test(test_udp_sizes),
    };
    return cmocka_run_group_tests_name("protocol framing", tests, NULL, NULL);
}
