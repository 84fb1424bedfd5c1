/*
 * test_codec.c - the encoder and decoder against each other: every message
 * kind of sweep.fbs survives encode -> verify -> decode with equal values,
 * plain and size-prefixed; the encoder refuses what it cannot write; the
 * decoder refuses batches larger than its storage; names and numbers of
 * the public enums stay what sweep.fbs says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/motion.h"
#include "core/mover.h"
#include "protocol/builder.h"
#include "protocol/decode_checked.h"
#include "protocol/format.h"
#include "protocol/result_pieces.h"
#include "samples.h"

#define BUF_CAP (64u * 1024u)

static uint8_t out_buf[BUF_CAP];
static sweep_msg_move dec_moves[SAMPLE_BATCH];
static sweep_msg_move_result dec_results[SAMPLE_BATCH];
static sweep_wire_mover dec_movers[16];
static sweep_msg_entity_command dec_commands[16];
static sweep_msg_entity_command_result dec_command_results[16];
static sweep_wire_entity_state dec_entity_states[16];
static sweep_wire_world_info dec_worlds[16];
static sweep_msg_query_item dec_query_items[16];
static sweep_msg_query_answer dec_query_answers[16];
static sweep_wire_query_hit dec_query_hits[256];
static uint32_t dec_query_ignore[64];
static sweep_wire_hit_shape dec_hit_shapes[64];

static sweep_decoder decoder(void)
{
    sweep_decoder d;
    memset(&d, 0, sizeof d);
    d.moves = dec_moves;
    d.moves_cap = SAMPLE_BATCH;
    d.results = dec_results;
    d.results_cap = SAMPLE_BATCH;
    d.movers = dec_movers;
    d.movers_cap = 16;
    d.commands = dec_commands;
    d.commands_cap = 16;
    d.command_results = dec_command_results;
    d.command_results_cap = 16;
    d.entity_states = dec_entity_states;
    d.entity_states_cap = 16;
    d.worlds = dec_worlds;
    d.worlds_cap = 16;
    d.query_items = dec_query_items;
    d.query_items_cap = 16;
    d.query_answers = dec_query_answers;
    d.query_answers_cap = 16;
    d.query_hits = dec_query_hits;
    d.query_hits_cap = 256;
    d.query_ignore = dec_query_ignore;
    d.query_ignore_cap = 64;
    d.hit_shapes = dec_hit_shapes;
    d.hit_shapes_cap = 64;
    return d;
}

/* Encodes, verifies and decodes sample `i` with the given flags and checks
 * the decoded values equal the original. */
static void roundtrip_one(unsigned i, unsigned flags)
{
    sweep_message m = sample_message(i), back;
    const uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(sweep_encode(&m, flags, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_non_null(out);
    assert_true(len >= 12);
    /* The identifier sits after the root offset (and the prefix). */
    size_t base = (flags & SWEEP_WIRE_SIZE_PREFIXED) ? 4 : 0;
    assert_memory_equal(out + base + 4, SWEEP_WIRE_IDENTIFIER, 4);
    if (flags & SWEEP_WIRE_SIZE_PREFIXED)
        assert_int_equal(out[0] | out[1] << 8 | out[2] << 16 | (uint32_t)out[3] << 24, len - 4);
    /* The builder pads the total to its largest alignment (at least 4). */
    assert_int_equal(len % 4, 0);
    assert_int_equal(sweep_verify(out, len, flags), SWEEP_PROTO_OK);
    sweep_decoder d = decoder();
    memset(&back, 0xa5, sizeof back);
    assert_int_equal(sweep_decode(&d, out, len, flags, &back), SWEEP_PROTO_OK);
    if (!sample_equal(&m, &back))
        fail_msg("sample %u (%s) changed on the way", i, sweep_msg_kind_name(m.kind));
}

/* A decode clears the whole member of its kind, not only the fields on
 * the wire: the contacts past contact_count of a MoveResult decoded over
 * garbage are zero, as an absent field is. */
static void test_decode_clears_its_member(void **state)
{
    (void)state;
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT;
    m.sequence = 9;
    m.as.move_result = sample_move_result(1);
    m.as.move_result.contact_count = 1;
    const uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    sweep_message back;
    memset(&back, 0xa5, sizeof back);
    sweep_decoder d = decoder();
    assert_int_equal(sweep_decode(&d, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_true(sample_equal(&m, &back));
    const sweep_msg_move_result *r = &back.as.move_result;
    const uint8_t *rest = (const uint8_t *)&r->contacts[1];
    for (size_t i = 0; i < sizeof r->contacts - sizeof r->contacts[0]; i++)
        assert_int_equal(rest[i], 0);
}

static void test_roundtrip_every_kind_plain(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sample_count(); i++)
        roundtrip_one(i, 0);
}

static void test_roundtrip_every_kind_size_prefixed(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sample_count(); i++)
        roundtrip_one(i, SWEEP_WIRE_SIZE_PREFIXED);
}

/* The samples must cover the whole union, so a new kind without a sample
 * fails here rather than going untested. */
static void test_samples_cover_every_kind(void **state)
{
    (void)state;
    int seen[SWEEP_MSG_KIND_COUNT] = {0};
    for (unsigned i = 0; i < sample_count(); i++) {
        sweep_message m = sample_message(i);
        assert_true(m.kind > SWEEP_MSG_NONE && m.kind < SWEEP_MSG_KIND_COUNT);
        seen[m.kind] = 1;
    }
    for (int k = 1; k < SWEEP_MSG_KIND_COUNT; k++)
        if (!seen[k])
            fail_msg("no sample of kind %s", sweep_msg_kind_name((sweep_msg_kind)k));
}

/* Decoding must not depend on where the bytes sit in memory: a datagram
 * may land at any address. */
static void test_decode_at_odd_address(void **state)
{
    (void)state;
    static uint8_t copy[BUF_CAP + 8];
    for (unsigned i = 0; i < sample_count(); i++) {
        sweep_message m = sample_message(i), back;
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
        for (size_t shift = 1; shift < 8; shift += 2) {
            memcpy(copy + shift, out, len);
            sweep_decoder d = decoder();
            assert_int_equal(sweep_decode(&d, copy + shift, len, 0, &back), SWEEP_PROTO_OK);
            assert_true(sample_equal(&m, &back));
        }
    }
}

/* Encoding is a pure function of the message: decoding and re-encoding
 * gives the same bytes, so recorded sessions replay byte for byte. */
static void test_reencode_is_identical(void **state)
{
    (void)state;
    static uint8_t second[BUF_CAP];
    for (unsigned i = 0; i < sample_count(); i++) {
        sweep_message m = sample_message(i), back;
        const uint8_t *a, *b;
        size_t la, lb;
        assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &a, &la), SWEEP_PROTO_OK);
        sweep_decoder d = decoder();
        assert_int_equal(sweep_decode(&d, a, la, 0, &back), SWEEP_PROTO_OK);
        assert_int_equal(sweep_encode(&back, 0, second, sizeof second, &b, &lb), SWEEP_PROTO_OK);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
    }
}

static void test_nan_payload_survives(void **state)
{
    (void)state;
    sweep_message m = sample_message(7), back;
    uint64_t bits = 0x7ff8dead0000beefull;
    memcpy(&m.as.move.dt, &bits, sizeof bits);
    m.as.move.velocity.x = -0.0;
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    uint64_t got;
    memcpy(&got, &back.as.move.dt, sizeof got);
    assert_int_equal(got, bits);
    assert_true(signbit(back.as.move.velocity.x) && back.as.move.velocity.x == 0.0);
}

/* Every output size below what a message needs fails cleanly, and writes
 * nothing outside the buffer (the buffer is exactly cap bytes on the heap,
 * so a sanitizer build would catch a stray write). A batch also needs 4
 * bytes per item of headroom, lent as scratch (encode.h). */
static void test_encode_buffer_too_small(void **state)
{
    (void)state;
    unsigned picks[] = {0, 2, 9, 11, 13, 16};
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        sweep_message m = sample_message(picks[p]);
        const uint8_t *out;
        size_t need;
        assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, out_buf, sizeof out_buf, &out, &need),
                         SWEEP_PROTO_OK);
        size_t headroom = 0;
        if (m.kind == SWEEP_MSG_MOVE_BATCH)
            headroom = 4 * (size_t)m.as.move_batch.count;
        if (m.kind == SWEEP_MSG_MOVE_RESULT_BATCH)
            headroom = 4 * (size_t)m.as.move_result_batch.count;
        /* The smallest buffer that works lies in [need, need + headroom];
         * below it every size fails cleanly. */
        size_t min_cap = need;
        while (min_cap <= need + headroom) {
            uint8_t *b = malloc(min_cap);
            size_t len = 0;
            sweep_proto_error e = sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, b, min_cap, &out, &len);
            free(b);
            if (e == SWEEP_PROTO_OK)
                break;
            assert_int_equal(e, SWEEP_PROTO_E_BUFFER_SPACE);
            min_cap++;
        }
        assert_true(min_cap <= need + headroom);
        for (size_t cap = 0; cap < min_cap; cap += (cap < 64 ? 1 : 37)) {
            uint8_t *small = malloc(cap ? cap : 1);
            assert_non_null(small);
            size_t len = 0;
            assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, small, cap, &out, &len),
                             SWEEP_PROTO_E_BUFFER_SPACE);
            free(small);
        }
        uint8_t *exact = malloc(min_cap);
        size_t len = 0;
        assert_int_equal(sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, exact, min_cap, &out, &len), SWEEP_PROTO_OK);
        assert_int_equal(len, need);
        assert_ptr_equal(out, exact + min_cap - need);
        assert_int_equal(sweep_verify(out, len, SWEEP_WIRE_SIZE_PREFIXED), SWEEP_PROTO_OK);
        free(exact);
    }
}

static void test_encode_refuses_bad_messages(void **state)
{
    (void)state;
    const uint8_t *out;
    size_t len;
    sweep_message m;

    m = sample_message(0);
    assert_int_equal(sweep_encode(NULL, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_encode(&m, 0, NULL, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, NULL, &len), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, NULL), SWEEP_PROTO_E_ARG);

    m.kind = SWEEP_MSG_NONE;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m.kind = SWEEP_MSG_KIND_COUNT;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);

    /* Required strings and vectors left out. */
    m = sample_message(0);
    m.as.hello.client_name.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(2);
    m.as.welcome.map_hash.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(2);
    m.as.welcome.map_name.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(21);
    m.as.error.message.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(24);
    m.as.challenge.cookie.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(28);
    m.as.mover_command.mover.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(40);
    m.as.open_world.map.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(42);
    m.as.world_opened.name.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(42);
    m.as.world_opened.map_hash.ptr = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    /* Lists with a count and no array; a result code no ushort holds. */
    m = sample_message(34);
    m.as.entity_commands.commands = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(36);
    m.as.entity_commands_result.results = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(36);
    sweep_msg_entity_command_result wide = m.as.entity_commands_result.results[0];
    wide.code = (sweep_wire_code)0x10000;
    m.as.entity_commands_result.results = &wide;
    m.as.entity_commands_result.count = 1;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(38);
    m.as.entity_states.entities = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    /* A WorldState count without its array. */
    m = sample_message(16);
    m.as.world_state.movers = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);

    /* More contacts than a result can hold. */
    m = sample_message(9);
    m.as.move_result.contact_count = SWEEP_MAX_CONTACTS + 1;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(15);
    m.as.collide_result.contact_count = SWEEP_MAX_CONTACTS + 1;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m = sample_message(13);
    sweep_msg_move_result bad[2] = {sample_move_result(0), sample_move_result(1)};
    bad[1].contact_count = 99;
    m.as.move_result_batch.results = bad;
    m.as.move_result_batch.count = 2;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);

    /* A batch count without its array. */
    m = sample_message(11);
    m.as.move_batch.moves = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
}

/* Three lists inside the items of a message share one pool of the decoder
 * each: the commands' hit shapes, the query items' ignored ids and the
 * answers' hits. Each is counted over the whole message: two items of
 * three fill a pool of six, and a pool of five refuses the message as too
 * large, whichever item it runs out in. */
static void test_decode_pools_counted_over_the_message(void **state)
{
    (void)state;
    sweep_wire_hit_shape shapes[3];
    memset(shapes, 0, sizeof shapes);
    uint32_t ignore[3] = {7, 8, 9};
    sweep_wire_query_hit hits[3];
    memset(hits, 0, sizeof hits);
    for (uint32_t i = 0; i < 3; i++) {
        shapes[i].id = 10 + i, shapes[i].kind = SWEEP_WIRE_SHAPE_SPHERE, shapes[i].radii = sweep_v3(1, 1, 1);
        hits[i].entity = 20 + i;
    }
    sweep_msg_entity_command cmds[2];
    memset(cmds, 0, sizeof cmds);
    sweep_msg_query_item items[2];
    memset(items, 0, sizeof items);
    sweep_msg_query_answer answers[2];
    memset(answers, 0, sizeof answers);
    for (uint32_t i = 0; i < 2; i++) {
        cmds[i].entity = 1 + i, cmds[i].op = SWEEP_WIRE_OP_SET_HIT_SHAPES;
        cmds[i].shapes = shapes, cmds[i].shape_count = 3;
        items[i].kind = SWEEP_WIRE_QUERY_RAY, items[i].to = sweep_v3(1, 0, 0);
        items[i].ignore = ignore, items[i].ignore_count = 3;
        answers[i].hits = hits, answers[i].hit_count = 3;
    }
    sweep_message msgs[3];
    memset(msgs, 0, sizeof msgs);
    msgs[0].kind = SWEEP_MSG_ENTITY_COMMANDS;
    msgs[0].as.entity_commands.commands = cmds, msgs[0].as.entity_commands.count = 2;
    msgs[1].kind = SWEEP_MSG_QUERY;
    msgs[1].as.query.items = items, msgs[1].as.query.count = 2;
    msgs[2].kind = SWEEP_MSG_QUERY_RESULT;
    msgs[2].as.query_result.answers = answers, msgs[2].as.query_result.count = 2;
    for (int k = 0; k < 3; k++) {
        const uint8_t *out;
        size_t len;
        msgs[k].sequence = 40u + (uint32_t)k;
        assert_int_equal(sweep_encode(&msgs[k], 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
        for (uint32_t cap = 5; cap <= 6; cap++) {
            sweep_decoder d = decoder();
            d.hit_shapes_cap = d.query_ignore_cap = d.query_hits_cap = cap;
            sweep_message back;
            back.kind = SWEEP_MSG_NONE;
            sweep_proto_error e = sweep_decode(&d, out, len, 0, &back);
            if (cap == 5) {
                assert_int_equal(e, SWEEP_PROTO_E_CAPACITY);
                assert_int_equal(back.kind, SWEEP_MSG_NONE); /* untouched on failure */
                assert_int_equal(sweep_wire_code_from_proto(e), SWEEP_WIRE_BATCH_TOO_LARGE);
                continue;
            }
            assert_int_equal(e, SWEEP_PROTO_OK);
            assert_int_equal(back.kind, msgs[k].kind);
            /* The second item's list follows the first's in the pool. */
            if (k == 0) {
                assert_ptr_equal(back.as.entity_commands.commands[1].shapes, d.hit_shapes + 3);
                assert_int_equal(back.as.entity_commands.commands[1].shapes[2].id, 12);
            } else if (k == 1) {
                assert_ptr_equal(back.as.query.items[1].ignore, d.query_ignore + 3);
                assert_int_equal(back.as.query.items[1].ignore[2], 9);
            } else {
                assert_ptr_equal(back.as.query_result.answers[1].hits, d.query_hits + 3);
                assert_int_equal(back.as.query_result.answers[1].hits[2].entity, 22);
            }
        }
    }
}

/* Batches longer than the decoder's storage are refused, not truncated. */
static void test_decode_capacity(void **state)
{
    (void)state;
    unsigned picks[] = {11, 13, 16, 34, 36, 38};
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        sweep_message m = sample_message(picks[p]), back;
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
        sweep_decoder d = decoder();
        d.moves_cap = SAMPLE_BATCH - 1;
        d.results_cap = SAMPLE_BATCH - 1;
        d.movers_cap = 3;
        d.commands_cap = 5;
        d.command_results_cap = 3;
        d.entity_states_cap = 3;
        back.kind = SWEEP_MSG_NONE;
        assert_int_equal(sweep_decode(&d, out, len, 0, &back), SWEEP_PROTO_E_CAPACITY);
        assert_int_equal(back.kind, SWEEP_MSG_NONE); /* untouched on failure */
        assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_E_CAPACITY);
    }
    /* An empty batch needs no storage at all. */
    sweep_message m = sample_message(12), back;
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_int_equal(back.as.move_batch.count, 0);
    m = sample_message(35);
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_int_equal(back.as.entity_commands.count, 0);
    assert_null(back.as.entity_commands.commands);
    assert_int_equal(sweep_decode(NULL, NULL, len, 0, &back), SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_decode(NULL, out, len, 0, NULL), SWEEP_PROTO_E_ARG);
}

/* Stats rule counts: up to 32 (one per bit of a Rule) are kept, more are
 * refused as the decoder's capacity, never read past; the encoder refuses
 * to write more. */
/* sweep_decode_motion reads the moves and results sweep_decode reads,
 * value for value, and refuses what sweep_decode refuses (cut buffers
 * here), with the same error. */
static sweep_msg_move motion_moves[SAMPLE_BATCH];
static sweep_msg_move_result motion_results[SAMPLE_BATCH];

static void motion_one(unsigned i, unsigned flags)
{
    sweep_message m = sample_message(i), full;
    const uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(sweep_encode(&m, flags, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    sweep_decoder d = decoder();
    assert_int_equal(sweep_decode(&d, out, len, flags, &full), SWEEP_PROTO_OK);
    sweep_decoder dm = d;
    dm.moves = motion_moves;
    dm.results = motion_results;
    sweep_decoded_motion v;
    memset(&v, 0xa5, sizeof v);
    assert_int_equal(sweep_decode_motion(&dm, out, len, flags, &v), SWEEP_PROTO_OK);
    assert_int_equal(v.kind, full.kind);
    assert_int_equal(v.sequence, full.sequence);
    assert_int_equal(v.server_tick, full.server_tick);
    const sweep_msg_move *moves = NULL;
    const sweep_msg_move_result *results = NULL;
    uint32_t nm = 0, nr = 0;
    switch (full.kind) {
    case SWEEP_MSG_MOVE: moves = &full.as.move, nm = 1; break;
    case SWEEP_MSG_MOVE_BATCH: moves = full.as.move_batch.moves, nm = full.as.move_batch.count; break;
    case SWEEP_MSG_MOVE_RESULT: results = &full.as.move_result, nr = 1; break;
    case SWEEP_MSG_MOVE_RESULT_BATCH: results = full.as.move_result_batch.results, nr = full.as.move_result_batch.count; break;
    default: break;
    }
    assert_int_equal(v.move_count, nm);
    assert_int_equal(v.result_count, nr);
    assert_true(nm ? v.moves == motion_moves : v.moves == NULL);
    assert_true(nr ? v.results == motion_results : v.results == NULL);
    for (uint32_t k = 0; k < nm; k++)
        if (!sample__move_eq(&moves[k], &v.moves[k]))
            fail_msg("sample %u: move %u differs from sweep_decode's", i, k);
    for (uint32_t k = 0; k < nr; k++)
        if (!sample__result_eq(&results[k], &v.results[k]))
            fail_msg("sample %u: result %u differs from sweep_decode's", i, k);
    /* No storage: a move or result has nowhere to go. */
    sweep_proto_error none = sweep_decode_motion(NULL, out, len, flags, &v);
    assert_int_equal(none, nm || nr ? SWEEP_PROTO_E_CAPACITY : SWEEP_PROTO_OK);
    for (size_t cut = 0; cut < len; cut += 1 + cut / 8)
        assert_int_equal(sweep_decode_motion(&dm, out, cut, flags, &v), sweep_decode(&d, out, cut, flags, &full));
}

static void test_decode_motion_equals_decode(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sample_count(); i++) {
        motion_one(i, 0);
        motion_one(i, SWEEP_WIRE_SIZE_PREFIXED);
    }
}

/* sweep__decode_motion_checked reads a single Move or MoveResult as
 * sweep_decode_motion does and gives up on every other kind; on bytes cut
 * short or changed it reads inside them (each try is a heap copy of its
 * exact size, for valgrind and the sanitizer builds), gives up on every cut
 * a verifier refuses too when the size prefix says so, and, where the
 * verifier accepts the changed bytes, reads them as the decoder does or
 * gives up. */
static void checked_equal(const sweep_decoded_motion *a, const sweep_decoded_motion *b, unsigned i)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->sequence, b->sequence);
    assert_true(a->server_tick == b->server_tick);
    assert_int_equal(a->move_count, b->move_count);
    assert_int_equal(a->result_count, b->result_count);
    if (a->move_count && !sample__move_eq(a->moves, b->moves))
        fail_msg("sample %u: the checked reader's move differs", i);
    if (a->result_count && !sample__result_eq(a->results, b->results))
        fail_msg("sample %u: the checked reader's result differs", i);
}

static void checked_one(unsigned i, unsigned flags)
{
    sweep_message m = sample_message(i);
    const uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(sweep_encode(&m, flags, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    static sweep_msg_move cm[SAMPLE_BATCH];
    static sweep_msg_move_result cr[SAMPLE_BATCH];
    sweep_decoder dv = decoder(), dc = decoder();
    dc.moves = cm;
    dc.results = cr;
    sweep_decoded_motion v, c;
    assert_int_equal(sweep_decode_motion(&dv, out, len, flags, &v), SWEEP_PROTO_OK);
    sweep_proto_error ce = sweep__decode_motion_checked(&dc, out, len, flags, &c);
    if (m.kind != SWEEP_MSG_MOVE && m.kind != SWEEP_MSG_MOVE_RESULT) {
        assert_int_equal(ce, SWEEP_PROTO_E_ARG);
        return;
    }
    assert_int_equal(ce, SWEEP_PROTO_OK);
    checked_equal(&c, &v, i);
    /* Without storage, or with limits of its own, the decoder's path is
     * the one to take. */
    sweep_decoder none = decoder();
    none.moves_cap = none.results_cap = 0;
    assert_int_equal(sweep__decode_motion_checked(&none, out, len, flags, &c), SWEEP_PROTO_E_ARG);
    sweep_decoder limited = dc;
    limited.limits.max_depth = 8;
    assert_int_equal(sweep__decode_motion_checked(&limited, out, len, flags, &c), SWEEP_PROTO_E_ARG);

    uint8_t *copy = malloc(len);
    assert_non_null(copy);
    const sweep_decoded_motion whole = v;
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *p = malloc(cut ? cut : 1);
        assert_non_null(p);
        memcpy(p, out, cut);
        ce = sweep__decode_motion_checked(&dc, p, cut, flags, &c);
        if (flags & SWEEP_WIRE_SIZE_PREFIXED)
            assert_int_equal(ce, SWEEP_PROTO_E_ARG); /* the prefix no longer matches */
        else if (ce == SWEEP_PROTO_OK)
            checked_equal(&c, &whole, i); /* the same bytes, read inside the cut */
        free(p);
    }
    for (size_t at = 0; at < len; at++) {
        for (unsigned change = 0; change < 3; change++) {
            memcpy(copy, out, len);
            copy[at] = change == 0 ? (uint8_t)(copy[at] ^ 0xff) : change == 1 ? (uint8_t)(copy[at] + 1) : 0;
            ce = sweep__decode_motion_checked(&dc, copy, len, flags, &c);
            if (ce == SWEEP_PROTO_OK && sweep_decode_motion(&dv, copy, len, flags, &v) == SWEEP_PROTO_OK)
                checked_equal(&c, &v, i);
        }
    }
    free(copy);
}

static void test_decode_motion_checked(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sample_count(); i++) {
        checked_one(i, 0);
        checked_one(i, SWEEP_WIRE_SIZE_PREFIXED);
    }
}

/* sweep__decode_kind_checked names the kind sweep_decode_kind names on
 * every sample, reads inside every cut of it (a heap copy of the exact
 * size each), and on changed bytes the verifier accepts names the kind
 * it does, or gives up. */
static void kind_one(unsigned i, unsigned flags)
{
    sweep_message m = sample_message(i);
    const uint8_t *out = NULL;
    size_t len = 0;
    assert_int_equal(sweep_encode(&m, flags, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    sweep_msg_kind k, kv;
    uint32_t seq;
    assert_int_equal(sweep__decode_kind_checked(out, len, flags, &k), SWEEP_PROTO_OK);
    assert_int_equal(k, m.kind);
    uint8_t *copy = malloc(len);
    assert_non_null(copy);
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *p = malloc(cut ? cut : 1);
        assert_non_null(p);
        memcpy(p, out, cut);
        if (sweep__decode_kind_checked(p, cut, flags, &k) == SWEEP_PROTO_OK)
            assert_false(flags & SWEEP_WIRE_SIZE_PREFIXED); /* the prefix no longer matches */
        free(p);
    }
    for (size_t at = 0; at < len; at++) {
        for (unsigned change = 0; change < 3; change++) {
            memcpy(copy, out, len);
            copy[at] = change == 0 ? (uint8_t)(copy[at] ^ 0xff) : change == 1 ? (uint8_t)(copy[at] + 1) : 0;
            if (sweep__decode_kind_checked(copy, len, flags, &k) == SWEEP_PROTO_OK &&
                sweep_decode_kind(copy, len, flags, &kv, &seq) == SWEEP_PROTO_OK)
                assert_int_equal(k, kv);
        }
    }
    free(copy);
}

static void test_decode_kind_checked(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sample_count(); i++) {
        kind_one(i, 0);
        kind_one(i, SWEEP_WIRE_SIZE_PREFIXED);
    }
    sweep_msg_kind k;
    assert_int_equal(sweep__decode_kind_checked(NULL, 16, 0, &k), SWEEP_PROTO_E_ARG);
}

static void test_stats_rule_vectors(void **state)
{
    (void)state;
    for (uint32_t n = 31; n <= 33; n++) {
        uint8_t buf[1024];
        sweep_builder b;
        sweep_builder_init(&b, buf, sizeof buf);
        sweep_builder_vector_start(&b, 8, n, 8);
        for (uint32_t i = n; i-- > 0;) {
            uint8_t *p = sweep_builder_push(&b, 8);
            assert_non_null(p);
            memset(p, (int)i, 8);
        }
        sweep_ref v = sweep_builder_vector_end(&b, n);
        sweep_builder_table_start(&b);
        sweep_builder_add_ref(&b, 9, v); /* session_rules */
        sweep_ref body = sweep_builder_table_end(&b);
        sweep_builder_table_start(&b);
        sweep_builder_add_ref(&b, 3, body);
        sweep_builder_add_u8(&b, 2, SWEEP_MSG_STATS);
        sweep_ref root = sweep_builder_table_end(&b);
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_builder_finish(&b, root, SWEEP_WIRE_IDENTIFIER, 0, &out, &len), SWEEP_PROTO_OK);
        assert_int_equal(sweep_verify(out, len, 0), SWEEP_PROTO_OK);
        sweep_message m;
        sweep_proto_error e = sweep_decode(NULL, out, len, 0, &m);
        if (n <= SWEEP_WIRE_RULE_SLOTS) {
            assert_int_equal(e, SWEEP_PROTO_OK);
            assert_int_equal(m.as.stats.session_rules_count, n);
            assert_int_equal(m.as.stats.rules_total_count, 0);
            assert_true(m.as.stats.session_rules[n - 1] == 0x0101010101010101ull * (n - 1));
        } else {
            assert_int_equal(e, SWEEP_PROTO_E_CAPACITY);
        }
    }
    sweep_message m = sample_message(20);
    m.as.stats.rules_total_count = SWEEP_WIRE_RULE_SLOTS + 1;
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
}

/* The counters added at the end of Stats sit at the field ids sweep.fbs
 * gives them (10: errors_by_code, then 11..18 in declaration order), as
 * any FlatBuffers reader finds them; errors_by_code keeps up to
 * SWEEP_WIRE_CODE_SLOTS entries and refuses more, in both directions. */
static void test_stats_added_counters(void **state)
{
    (void)state;
    for (uint32_t n = SWEEP_WIRE_CODE_SLOTS - 1; n <= SWEEP_WIRE_CODE_SLOTS + 1; n++) {
        uint8_t buf[2048];
        sweep_builder b;
        sweep_builder_init(&b, buf, sizeof buf);
        sweep_builder_vector_start(&b, 8, n, 8);
        for (uint32_t i = n; i-- > 0;) {
            uint8_t *p = sweep_builder_push(&b, 8);
            assert_non_null(p);
            memset(p, (int)(i + 1), 8);
        }
        sweep_ref v = sweep_builder_vector_end(&b, n);
        sweep_builder_table_start(&b);
        sweep_builder_add_ref(&b, 10, v); /* errors_by_code */
        for (unsigned id = 11; id <= 18; id++)
            sweep_builder_add_u64(&b, id, 1000u + id);
        sweep_builder_add_u64(&b, 3, 9); /* errors_total, an old field beside them */
        sweep_ref body = sweep_builder_table_end(&b);
        sweep_builder_table_start(&b);
        sweep_builder_add_ref(&b, 3, body);
        sweep_builder_add_u8(&b, 2, SWEEP_MSG_STATS);
        sweep_ref root = sweep_builder_table_end(&b);
        const uint8_t *out;
        size_t len;
        assert_int_equal(sweep_builder_finish(&b, root, SWEEP_WIRE_IDENTIFIER, 0, &out, &len), SWEEP_PROTO_OK);
        assert_int_equal(sweep_verify(out, len, 0), SWEEP_PROTO_OK);
        sweep_message m;
        sweep_proto_error e = sweep_decode(NULL, out, len, 0, &m);
        if (n > SWEEP_WIRE_CODE_SLOTS) {
            assert_int_equal(e, SWEEP_PROTO_E_CAPACITY);
            continue;
        }
        assert_int_equal(e, SWEEP_PROTO_OK);
        const sweep_msg_stats *st = &m.as.stats;
        assert_int_equal(st->errors_by_code_count, n);
        assert_true(st->errors_by_code[0] == 0x0101010101010101ull);
        assert_true(st->errors_by_code[n - 1] == 0x0101010101010101ull * n);
        assert_true(st->errors_total == 9);
        assert_true(st->tcp_bytes_in == 1011 && st->tcp_bytes_out == 1012);
        assert_true(st->udp_bytes_in == 1013 && st->udp_bytes_out == 1014);
        assert_true(st->udp_dropped == 1015 && st->ticks_total == 1016);
        assert_true(st->tick_ns_total == 1017 && st->move_ns_total == 1018);
        assert_int_equal(st->rules_total_count, 0);
        /* And back: the same values through the encoder. */
        sweep_message back;
        assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
        assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
        assert_true(sample_equal(&m, &back));
    }
    /* A server older than the fields: all zero, no error counts. */
    sweep_message old = sample_message(32), back;
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&old, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_int_equal(back.as.stats.errors_by_code_count, 0);
    assert_true(back.as.stats.move_ns_total == 0 && back.as.stats.udp_bytes_out == 0);
    sweep_message m = sample_message(20);
    m.as.stats.errors_by_code_count = SWEEP_WIRE_CODE_SLOTS + 1;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
}

/* Stats.worlds are read as far as the decoder's storage goes, never
 * refused: a client that lends less (or none, as every decoder did before
 * the field) still gets the Stats, and worlds_open says more exist. */
static void test_stats_worlds_past_storage(void **state)
{
    (void)state;
    sweep_message m = sample_message(20), back;
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    for (uint32_t cap = 0; cap <= 4; cap++) {
        sweep_decoder d = decoder();
        d.worlds_cap = cap;
        memset(&back, 0xa5, sizeof back);
        assert_int_equal(sweep_decode(&d, out, len, 0, &back), SWEEP_PROTO_OK);
        uint32_t want = cap < 3 ? cap : 3;
        assert_int_equal(back.as.stats.worlds_count, want);
        assert_int_equal(back.as.stats.worlds_open, 5);
        if (want == 0)
            assert_null(back.as.stats.worlds);
        for (uint32_t i = 0; i < want; i++)
            assert_true(sample__world_info_eq(&back.as.stats.worlds[i], &m.as.stats.worlds[i]));
        assert_true(back.as.stats.move_ns_total == m.as.stats.move_ns_total);
    }
    memset(&back, 0xa5, sizeof back);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_int_equal(back.as.stats.worlds_count, 0);
    assert_null(back.as.stats.worlds);
    /* Without worlds nothing is written for them: the bytes of a Stats
     * before the fields. */
    sweep_message old = sample_message(32);
    size_t old_len;
    assert_int_equal(sweep_encode(&old, 0, out_buf, sizeof out_buf, &out, &old_len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, old_len, 0, &back), SWEEP_PROTO_OK);
    assert_int_equal(back.as.stats.worlds_open, 0);
    assert_int_equal(back.as.stats.worlds_count, 0);
    /* A count without its array cannot be written. */
    m.as.stats.worlds = NULL;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
}

/* Spawn.player is written only when set: a Spawn without it has the bytes
 * it always had (the golden logs' requests re-encode the same). */
static void test_spawn_player_is_appended(void **state)
{
    (void)state;
    sweep_message m = sample_message(3), back;
    const uint8_t *out;
    size_t with, without;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &with), SWEEP_PROTO_OK);
    m.as.spawn.player = false;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &without), SWEEP_PROTO_OK);
    assert_true(without < with);
    assert_int_equal(sweep_decode(NULL, out, without, 0, &back), SWEEP_PROTO_OK);
    assert_false(back.as.spawn.player);
    assert_true(sample_equal(&m, &back));
}

/* Tables with the same layout share a vtable, so a 64-move batch costs
 * far less than 64 single moves. */
static void test_batch_shares_vtables(void **state)
{
    (void)state;
    sweep_message one = sample_message(8), batch = sample_message(11);
    const uint8_t *out;
    size_t l1, l64;
    assert_int_equal(sweep_encode(&one, 0, out_buf, sizeof out_buf, &out, &l1), SWEEP_PROTO_OK);
    assert_int_equal(sweep_encode(&batch, 0, out_buf, sizeof out_buf, &out, &l64), SWEEP_PROTO_OK);
    assert_true(l64 < 64 * (l1 - 16));
}

/* The UDP handshake: a padded Hello reaches SWEEP_UDP_HELLO_MIN, and the
 * Challenge that answers it is smaller. */
static void test_udp_hello_padding_and_challenge(void **state)
{
    (void)state;
    sweep_message h = sample_message(0), back;
    const uint8_t *out;
    size_t len;
    assert_int_equal(sweep_encode_padded(&h, 0, SWEEP_UDP_HELLO_MIN, out_buf, sizeof out_buf, &out, &len),
                     SWEEP_PROTO_OK);
    assert_true(len >= SWEEP_UDP_HELLO_MIN);
    assert_true(len < SWEEP_UDP_HELLO_MIN + 24);
    assert_int_equal(sweep_datagram_check(len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_int_equal(back.kind, SWEEP_MSG_HELLO);
    assert_non_null(back.as.hello.padding.ptr);
    for (uint32_t i = 0; i < back.as.hello.padding.len; i++)
        assert_int_equal(back.as.hello.padding.ptr[i], 0);
    assert_true(sample__streq(back.as.hello.client_name, h.as.hello.client_name));
    size_t hello_len = len;

    sweep_message c = sample_message(24);
    uint8_t cookie[32] = {0x42};
    c.as.challenge.cookie.ptr = cookie;
    c.as.challenge.cookie.len = sizeof cookie;
    assert_int_equal(sweep_encode(&c, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len < hello_len);

    /* Already long enough: no padding added. */
    sweep_message big = sample_message(0);
    char name[300];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    big.as.hello.client_name = sweep_str_of(name);
    assert_int_equal(sweep_encode_padded(&big, 0, SWEEP_UDP_HELLO_MIN, out_buf, sizeof out_buf, &out, &len),
                     SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_null(back.as.hello.padding.ptr);

    /* Only for Hello, and only up to the documented minimum. */
    assert_int_equal(sweep_encode_padded(&c, 0, SWEEP_UDP_HELLO_MIN, out_buf, sizeof out_buf, &out, &len),
                     SWEEP_PROTO_E_ARG);
    assert_int_equal(sweep_encode_padded(&h, 0, SWEEP_UDP_HELLO_MIN + 1, out_buf, sizeof out_buf, &out, &len),
                     SWEEP_PROTO_E_ARG);
}

/* The numbers are the wire contract (sweep.fbs). */
static void test_enum_numbers_match_schema(void **state)
{
    (void)state;
    assert_int_equal(SWEEP_MSG_HELLO, 1);
    assert_int_equal(SWEEP_MSG_MOVE_BATCH, 9);
    assert_int_equal(SWEEP_MSG_BYE, 19);
    assert_int_equal(SWEEP_MSG_CHALLENGE, 20);
    assert_int_equal(SWEEP_MSG_WATCH_WORLD, 21);
    assert_int_equal(SWEEP_MSG_MOVER_COMMAND, 22);
    assert_int_equal(SWEEP_MSG_MOVER_COMMANDED, 23);
    assert_int_equal(SWEEP_MSG_ENTITY_COMMANDS, 24);
    assert_int_equal(SWEEP_MSG_ENTITY_COMMANDS_RESULT, 25);
    assert_int_equal(SWEEP_MSG_WATCH_ENTITIES, 26);
    assert_int_equal(SWEEP_MSG_ENTITY_STATES, 27);
    assert_int_equal(SWEEP_MSG_GET_ENTITY, 28);
    assert_int_equal(SWEEP_MSG_OPEN_WORLD, 29);
    assert_int_equal(SWEEP_MSG_WORLD_OPENED, 30);
    assert_int_equal(SWEEP_MSG_CLOSE_WORLD, 31);
    assert_int_equal(SWEEP_MSG_WORLD_CLOSED, 32);
    assert_int_equal(SWEEP_MSG_QUERY, 33);
    assert_int_equal(SWEEP_MSG_QUERY_RESULT, 34);
    assert_int_equal(SWEEP_MSG_KIND_COUNT, 35);
    assert_int_equal(SWEEP_WIRE_INTERNAL, 24);
    assert_int_equal(SWEEP_WIRE_BAD_COOKIE, 25);
    assert_int_equal(SWEEP_WIRE_STALE_SEQUENCE, 26);
    assert_int_equal(SWEEP_WIRE_SLOW_READER, 27);
    assert_int_equal(SWEEP_WIRE_UNKNOWN_MOVER, 28);
    assert_int_equal(SWEEP_WIRE_NOT_ALLOWED, 29);
    assert_int_equal(SWEEP_WIRE_SPAWN_REFUSED, 30);
    assert_int_equal(SWEEP_WIRE_WORLD_LIMIT, 31);
    assert_int_equal(SWEEP_WIRE_NO_ROOM, 32);
    assert_int_equal(SWEEP_WIRE_UNKNOWN_MAP, 33);
    assert_int_equal(SWEEP_WIRE_WORLD_EXISTS, 34);
    assert_int_equal(SWEEP_WIRE_TOO_OLD, 35);
    assert_int_equal(SWEEP_WIRE_IN_FUTURE, 36);
    assert_int_equal(SWEEP_WIRE_CODE_COUNT, 37);
    assert_int_equal(SWEEP_WIRE_OP_TELEPORT, 0);
    assert_int_equal(SWEEP_WIRE_OP_SET_VELOCITY, 1);
    assert_int_equal(SWEEP_WIRE_OP_ADD_IMPULSE, 2);
    assert_int_equal(SWEEP_WIRE_OP_SET_RADII, 3);
    assert_int_equal(SWEEP_WIRE_OP_DESPAWN, 4);
    assert_int_equal(SWEEP_WIRE_OP_SET_HIT_SHAPES, 5);
    assert_int_equal(SWEEP_WIRE_OP_COUNT, 6);
    assert_int_equal(SWEEP_WIRE_QUERY_RAY, 0);
    assert_int_equal(SWEEP_WIRE_QUERY_RAY_ALL, 1);
    assert_int_equal(SWEEP_WIRE_QUERY_LINE_OF_SIGHT, 2);
    assert_int_equal(SWEEP_WIRE_QUERY_SWEEP, 3);
    assert_int_equal(SWEEP_WIRE_QUERY_OVERLAP, 4);
    assert_int_equal(SWEEP_WIRE_QUERY_CLEAR, 1);
    assert_int_equal(SWEEP_WIRE_QUERY_MORE, 2);
    assert_int_equal(SWEEP_WIRE_COMMAND_PUSHED_OUT, 1);
    assert_int_equal(SWEEP_WIRE_ENTITY_GROUNDED, 1);
    assert_int_equal(SWEEP_WIRE_ENTITY_PLAYER, 2);
    assert_int_equal(SWEEP_WIRE_ROLE_PLAYER, 0);
    assert_int_equal(SWEEP_WIRE_ROLE_SERVER, 1);
    assert_int_equal(SWEEP_WIRE_MODE_WALK, 0);
    assert_int_equal(SWEEP_WIRE_MODE_FLY, 1);
    assert_int_equal(SWEEP_WIRE_MODE_NOCLIP, 2);
    /* Rule bits: the core's three first, then the server's. */
    assert_int_equal((unsigned)SWEEP_WIRE_RULE_SPEED, (unsigned)SWEEP_RULE_SPEED);
    assert_int_equal((unsigned)SWEEP_WIRE_RULE_JUMP, (unsigned)SWEEP_RULE_JUMP);
    assert_int_equal((unsigned)SWEEP_WIRE_RULE_LIMIT, (unsigned)SWEEP_RULE_LIMIT);
    assert_int_equal(SWEEP_WIRE_RULE_TIME_BUDGET, 8);
    assert_int_equal(SWEEP_WIRE_RULE_CORRECTION, 16);
    assert_int_equal(SWEEP_WIRE_RULE_VERTICAL, 32);
    assert_int_equal(SWEEP_WIRE_RULE_SPAWN_POSITION, 64);
    assert_int_equal(SWEEP_WIRE_RULE_SPAWN_RADII, 128);
    assert_int_equal(SWEEP_WIRE_RULE_FREE_MOVE, 256);
    assert_int_equal(SWEEP_WIRE_RULE_SPAWN_SPEED, 512);
    assert_int_equal(SWEEP_WIRE_RULE_SPAWN_STEP, 1024);
    assert_int_equal(SWEEP_WIRE_RULE_BUTTONS, 2048);
    assert_int_equal(SWEEP_WIRE_RULE_COUNT, 12);
    assert_int_equal(SWEEP_WIRE_RULE_SLOTS, 32);
    /* MoverFlags are the core's state bits (core/mover.h). */
    assert_int_equal((unsigned)SWEEP_WIRE_MOVER_TRIGGERED, (unsigned)SWEEP_MOVER_TRIGGERED);
    assert_int_equal((unsigned)SWEEP_WIRE_MOVER_BLOCKED, (unsigned)SWEEP_MOVER_BLOCKED);
    assert_int_equal((unsigned)SWEEP_WIRE_MOVER_MOVED, (unsigned)SWEEP_MOVER_MOVED);
    assert_int_equal(SWEEP_UDP_HELLO_MIN, 256);
    assert_int_equal(SWEEP_UDP_MAX_DATAGRAM, 1200);
}

/* n items of m (holding *count of them) fit one datagram, n + 1 do not. */
static void fits_exactly(sweep_message *m, uint32_t *count, uint32_t n)
{
    const uint8_t *out;
    size_t len;
    *count = n;
    assert_int_equal(sweep_encode(m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len <= SWEEP_UDP_MAX_DATAGRAM);
    *count = n + 1;
    assert_int_equal(sweep_encode(m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len > SWEEP_UDP_MAX_DATAGRAM);
}

/* sweep_udp_max_batch moves fit one datagram, one more does not. */
static void test_udp_max_batch(void **state)
{
    (void)state;
    uint32_t n = sweep_udp_max_batch();
    assert_true(n >= 8 && n < 64);
    static sweep_msg_move moves[64];
    for (uint32_t i = 0; i < 64; i++) {
        moves[i].entity = UINT32_MAX - i;
        moves[i].sequence = UINT32_MAX - i;
        moves[i].client_tick = UINT64_MAX;
        moves[i].velocity = sweep_v3(-1.5, 2.5, 1e300);
        moves[i].dt = 1.0 / 60.0;
        moves[i].buttons = SWEEP_WISH_JUMP;
        moves[i].mode = SWEEP_WIRE_MODE_NOCLIP;
    }
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_BATCH;
    m.sequence = UINT32_MAX;
    m.key = UINT64_MAX; /* a client's datagram after its Welcome */
    m.as.move_batch.moves = moves;
    fits_exactly(&m, &m.as.move_batch.count, n);
    /* What a UDP Welcome announces: every move with a claimed position. */
    for (uint32_t i = 0; i < 64; i++) {
        moves[i].has_claimed_position = true;
        moves[i].claimed_position = sweep_v3(1e300, -2.5, 3.5);
    }
    fits_exactly(&m, &m.as.move_batch.count, sweep_udp_max_batch_claimed());
}

/* Message.key and Welcome.udp_key go on the wire only when set, so what
 * the server sends (never a key but a UDP Welcome's) and anything over TCP
 * keeps its bytes; set, they come back, through the decoder's general way
 * and through its Move fast path, and sweep_peek_key reads the key before
 * any verification. */
static void test_udp_key_fields(void **state)
{
    (void)state;
    for (unsigned which = 0; which < sample_count(); which++) {
        sweep_message m = sample_message(which), back;
        const uint8_t *out;
        size_t plain, keyed;
        m.key = 0;
        assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &plain), SWEEP_PROTO_OK);
        /* The root's vtable still ends at the body: no entry for the key. */
        size_t root = sweep__rd32(out), vt = root - (int32_t)sweep__rd32(out + root);
        assert_int_equal(sweep__rd16(out + vt), 4 + 2 * 4);
        sweep_msg_kind kind;
        uint64_t key = 1;
        assert_true(sweep_peek_key(out, plain, &kind, &key));
        assert_int_equal(key, 0);
        assert_int_equal(kind, m.kind);
        m.key = 0xa5a5a5a55a5a5a5aull;
        assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &keyed), SWEEP_PROTO_OK);
        assert_true(keyed > plain);
        assert_true(sweep_peek_key(out, keyed, &kind, &key));
        assert_true(key == m.key);
        assert_int_equal(kind, m.kind);
        memset(&back, 0, sizeof back);
        sweep_decoder d = decoder();
        assert_int_equal(sweep_decode(&d, out, keyed, 0, &back), SWEEP_PROTO_OK);
        assert_true(back.key == m.key);
        assert_true(sample_equal(&m, &back));
        /* Cut anywhere, the peek never reads past the end: it refuses, or
         * finds the root's fields inside what is left. */
        for (size_t cut = 0; cut < keyed; cut++) {
            uint8_t *copy = malloc(cut ? cut : 1);
            assert_non_null(copy);
            memcpy(copy, out, cut);
            if (sweep_peek_key(copy, cut, &kind, &key))
                assert_true(key == m.key || key == 0);
            free(copy);
        }
    }
    sweep_message w = sample_message(2), back;
    const uint8_t *out;
    size_t len;
    assert_true(w.as.welcome.udp_key != 0);
    assert_int_equal(sweep_encode(&w, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_int_equal(sweep_decode(NULL, out, len, 0, &back), SWEEP_PROTO_OK);
    assert_true(back.as.welcome.udp_key == w.as.welcome.udp_key);
}

/* sweep_udp_max_entity_states entities fit one datagram, one more does
 * not: a struct of 96 bytes, so about a dozen. */
static void test_udp_max_entity_states(void **state)
{
    (void)state;
    uint32_t n = sweep_udp_max_entity_states();
    assert_true(n >= 8 && n < 64);
    static sweep_wire_entity_state states[64];
    for (uint32_t i = 0; i < 64; i++) {
        states[i].entity = UINT32_MAX - i;
        states[i].flags = SWEEP_WIRE_ENTITY_GROUNDED;
        states[i].owner_session = UINT64_MAX - i;
        states[i].position = sweep_v3(-1.5, 2.5, 1e300);
        states[i].radii = sweep_v3(0.5, 0.5, 1.0);
    }
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_ENTITY_STATES;
    m.sequence = UINT32_MAX;
    m.server_tick = UINT64_MAX;
    m.as.entity_states.tick = UINT64_MAX;
    m.as.entity_states.entity_count = 100000;
    m.as.entity_states.entities = states;
    fits_exactly(&m, &m.as.entity_states.count, n);
}

/* sweep_udp_max_movers movers fit one datagram with their paths, one
 * more does not; without paths (an older server's) they fit too. */
static void test_udp_max_movers(void **state)
{
    (void)state;
    uint32_t n = sweep_udp_max_movers();
    assert_true(n >= 8 && n < 64);
    static sweep_wire_mover movers[64];
    for (uint32_t i = 0; i < 64; i++) {
        movers[i].id = UINT32_MAX - i;
        movers[i].flags = 7;
        movers[i].position = sweep_v3(-1.5, 2.5, 1e300);
        movers[i].rotation[3] = 1.0;
        movers[i].path_tick = UINT32_MAX - i;
        movers[i].wait = UINT32_MAX;
        movers[i].dir = -1;
    }
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_WORLD_STATE;
    m.sequence = UINT32_MAX;
    m.server_tick = UINT64_MAX;
    m.as.world_state.tick = UINT64_MAX;
    m.as.world_state.mover_count = 1000;
    m.as.world_state.movers = movers;
    const uint8_t *out;
    size_t len;
    m.as.world_state.count = m.as.world_state.path_count = n;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len <= SWEEP_UDP_MAX_DATAGRAM);
    m.as.world_state.count = m.as.world_state.path_count = n + 1;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len > SWEEP_UDP_MAX_DATAGRAM);
    /* Paths must be every mover's or none. */
    m.as.world_state.path_count = n;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_E_ARG);
    m.as.world_state.path_count = 0;
    m.as.world_state.count = n;
    assert_int_equal(sweep_encode(&m, 0, out_buf, sizeof out_buf, &out, &len), SWEEP_PROTO_OK);
    assert_true(len <= SWEEP_UDP_MAX_DATAGRAM);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_CHALLENGE), "Challenge");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_MOVE_RESULT_BATCH), "MoveResultBatch");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_KIND_COUNT), "Unknown");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_BAD_COOKIE), "BadCookie");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_INTERNAL), "Internal");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_SLOW_READER), "SlowReader");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_UNKNOWN_MOVER), "UnknownMover");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_WATCH_WORLD), "WatchWorld");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_MOVER_COMMAND), "MoverCommand");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_MOVER_COMMANDED), "MoverCommanded");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_NOT_ALLOWED), "NotAllowed");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_SPAWN_REFUSED), "SpawnRefused");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_WORLD_LIMIT), "WorldLimit");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_NO_ROOM), "NoRoom");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_UNKNOWN_MAP), "UnknownMap");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_WORLD_EXISTS), "WorldExists");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_CODE_COUNT), "Unknown");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_TOO_OLD), "TooOld");
    assert_string_equal(sweep_wire_code_name(SWEEP_WIRE_IN_FUTURE), "InFuture");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_QUERY_RESULT), "QueryResult");
    static const char *const qkinds[] = {"Ray", "RayAll", "LineOfSight", "Sweep", "Overlap"};
    for (unsigned i = 0; i < SWEEP_WIRE_QUERY_KIND_COUNT; i++)
        assert_string_equal(sweep_wire_query_kind_name(i), qkinds[i]);
    assert_string_equal(sweep_wire_query_kind_name(SWEEP_WIRE_QUERY_KIND_COUNT), "Unknown");
    static const char *const ops[] = {"Teleport", "SetVelocity", "AddImpulse", "SetRadii", "Despawn",
                                      "SetHitShapes"};
    for (unsigned i = 0; i < SWEEP_WIRE_OP_COUNT; i++)
        assert_string_equal(sweep_wire_entity_op_name(i), ops[i]);
    assert_string_equal(sweep_wire_entity_op_name(SWEEP_WIRE_OP_COUNT), "Unknown");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_ENTITY_COMMANDS_RESULT), "EntityCommandsResult");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_WORLD_CLOSED), "WorldClosed");
    static const char *const rules[] = {"Speed", "Jump", "Limit", "TimeBudget", "Correction",
                                        "Vertical", "SpawnPosition", "SpawnRadii", "FreeMove",
                                        "SpawnSpeed", "SpawnStep", "Buttons"};
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
        assert_string_equal(sweep_wire_rule_name(i), rules[i]);
    assert_string_equal(sweep_wire_rule_name(SWEEP_WIRE_RULE_COUNT), "Unknown");
    assert_string_equal(sweep_wire_mode_name(SWEEP_WIRE_MODE_WALK), "Walk");
    assert_string_equal(sweep_wire_mode_name(SWEEP_WIRE_MODE_FLY), "Fly");
    assert_string_equal(sweep_wire_mode_name(SWEEP_WIRE_MODE_NOCLIP), "Noclip");
    assert_string_equal(sweep_wire_mode_name(3), "Unknown");
    assert_string_equal(sweep_wire_role_name(SWEEP_WIRE_ROLE_PLAYER), "Player");
    assert_string_equal(sweep_wire_role_name(SWEEP_WIRE_ROLE_SERVER), "Server");
    assert_string_equal(sweep_wire_role_name(2), "Unknown");
    for (int k = 0; k < SWEEP_MSG_KIND_COUNT; k++) {
        assert_non_null(sweep_msg_kind_name((sweep_msg_kind)k));
        assert_string_not_equal(sweep_msg_kind_name((sweep_msg_kind)k), "Unknown");
    }
    for (int c = 0; c < SWEEP_WIRE_CODE_COUNT; c++)
        assert_string_not_equal(sweep_wire_code_name((sweep_wire_code)c), "Unknown");
    /* Codec errors: every value named, names distinct. */
    for (int e = 0; e < SWEEP_PROTO_ERROR_COUNT; e++) {
        const char *n = sweep_proto_error_name((sweep_proto_error)e);
        assert_string_not_equal(n, "UNKNOWN");
        for (int f = 0; f < e; f++)
            assert_string_not_equal(n, sweep_proto_error_name((sweep_proto_error)f));
    }
    assert_string_equal(sweep_proto_error_name(SWEEP_PROTO_ERROR_COUNT), "UNKNOWN");
}

static void test_wire_code_mappings(void **state)
{
    (void)state;
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_OK), SWEEP_WIRE_NONE);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_IDENTIFIER), SWEEP_WIRE_BAD_IDENTIFIER);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_ALIGNMENT), SWEEP_WIRE_MISALIGNED);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_REQUIRED), SWEEP_WIRE_MISSING_FIELD);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_DEPTH), SWEEP_WIRE_TOO_COMPLEX);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_TOO_MANY_TABLES), SWEEP_WIRE_TOO_COMPLEX);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_UNION_TYPE), SWEEP_WIRE_UNKNOWN_MESSAGE);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_FRAME_TOO_LARGE), SWEEP_WIRE_FRAME_TOO_LARGE);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_DATAGRAM_TOO_LARGE),
                     SWEEP_WIRE_DATAGRAM_TOO_LARGE);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_CAPACITY), SWEEP_WIRE_BATCH_TOO_LARGE);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_STRING_NUL), SWEEP_WIRE_MALFORMED_BUFFER);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_TRUNCATED), SWEEP_WIRE_MALFORMED_BUFFER);
    assert_int_equal(sweep_wire_code_from_proto(SWEEP_PROTO_E_ARG), SWEEP_WIRE_INTERNAL);
    assert_int_equal(sweep_wire_code_from_status(SWEEP_OK), SWEEP_WIRE_NONE);
    assert_int_equal(sweep_wire_code_from_status(SWEEP_E_RADII), SWEEP_WIRE_BAD_RADII);
    assert_int_equal(sweep_wire_code_from_status(SWEEP_E_NONFINITE), SWEEP_WIRE_BAD_NUMBER);
    assert_int_equal(sweep_wire_code_from_status(SWEEP_E_NOMEM), SWEEP_WIRE_INTERNAL);
}

/* A QueryResult cut for UDP: pieces of at most a datagram, each saying
 * where its run starts, together every answer in order. */
typedef struct query_pieces {
    uint32_t pieces, next;
    sweep_msg_query_answer got[16];
    sweep_wire_query_hit hits[160];
    uint32_t nhits;
} query_pieces;

static int on_query_piece(void *ctx, const uint8_t *bytes, size_t len)
{
    query_pieces *p = ctx;
    assert_true(len <= SWEEP_UDP_MAX_DATAGRAM);
    sweep_decoder d = decoder();
    sweep_message m;
    assert_int_equal(sweep_decode(&d, bytes, len, 0, &m), SWEEP_PROTO_OK);
    assert_int_equal(m.kind, SWEEP_MSG_QUERY_RESULT);
    assert_int_equal(m.as.query_result.first, p->next);
    for (uint32_t i = 0; i < m.as.query_result.count; i++) {
        sweep_msg_query_answer a = m.as.query_result.answers[i];
        memcpy(p->hits + p->nhits, a.hits, a.hit_count * sizeof *a.hits);
        a.hits = p->hits + p->nhits;
        p->nhits += a.hit_count;
        p->got[p->next++] = a;
    }
    p->pieces++;
    return 0;
}

static int on_query_piece_tcp(void *ctx, const uint8_t *bytes, size_t len)
{
    query_pieces *p = ctx;
    sweep_decoder d = decoder();
    sweep_message m;
    assert_int_equal(sweep_decode(&d, bytes, len, SWEEP_WIRE_SIZE_PREFIXED, &m), SWEEP_PROTO_OK);
    assert_int_equal(m.as.query_result.count, 16);
    p->pieces++;
    return 0;
}

static void test_query_result_pieces_fit_datagrams(void **state)
{
    (void)state;
    static sweep_msg_query_answer answers[16];
    static sweep_wire_query_hit hits[16][SWEEP_WIRE_QUERY_HITS_MAX];
    for (uint32_t i = 0; i < 16; i++) {
        memset(&answers[i], 0, sizeof answers[i]);
        answers[i].tick = 1000 + i;
        answers[i].hit_count = SWEEP_WIRE_QUERY_HITS_MAX;
        answers[i].hits = hits[i];
        for (uint32_t k = 0; k < SWEEP_WIRE_QUERY_HITS_MAX; k++)
            hits[i][k] = (sweep_wire_query_hit){.kind = 3, .entity = 100 * i + k, .fraction = 0.1 * k};
    }
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_QUERY_RESULT;
    m.sequence = 9;
    m.as.query_result.answers = answers;
    m.as.query_result.count = 16;
    static uint8_t buf[1 << 16];
    query_pieces p;
    memset(&p, 0, sizeof p);
    assert_int_equal(sweep_encode_pieces(&m, 0, SWEEP_UDP_MAX_DATAGRAM, buf, sizeof buf, on_query_piece, &p), SWEEP_PROTO_OK);
    /* A full answer (ten hits) is under a datagram, sixteen are not. */
    assert_int_equal(p.pieces, 16);
    assert_int_equal(p.next, 16);
    for (uint32_t i = 0; i < 16; i++) {
        assert_int_equal(p.got[i].tick, 1000 + i);
        assert_int_equal(p.got[i].hit_count, SWEEP_WIRE_QUERY_HITS_MAX);
        assert_int_equal(p.got[i].hits[9].entity, 100 * i + 9);
    }
    /* Over TCP, one frame. */
    memset(&p, 0, sizeof p);
    assert_int_equal(sweep_encode_pieces(&m, 1, SWEEP_UDP_MAX_DATAGRAM, buf, sizeof buf, on_query_piece_tcp, &p), SWEEP_PROTO_OK);
    assert_int_equal(p.pieces, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_kind_plain),
        cmocka_unit_test(test_decode_clears_its_member),
        cmocka_unit_test(test_roundtrip_every_kind_size_prefixed),
        cmocka_unit_test(test_samples_cover_every_kind),
        cmocka_unit_test(test_decode_at_odd_address),
        cmocka_unit_test(test_reencode_is_identical),
        cmocka_unit_test(test_nan_payload_survives),
        cmocka_unit_test(test_encode_buffer_too_small),
        cmocka_unit_test(test_encode_refuses_bad_messages),
        cmocka_unit_test(test_decode_capacity),
        cmocka_unit_test(test_decode_pools_counted_over_the_message),
        cmocka_unit_test(test_decode_motion_equals_decode),
        cmocka_unit_test(test_decode_motion_checked),
        cmocka_unit_test(test_decode_kind_checked),
        cmocka_unit_test(test_batch_shares_vtables),
        cmocka_unit_test(test_stats_rule_vectors),
        cmocka_unit_test(test_stats_added_counters),
        cmocka_unit_test(test_udp_hello_padding_and_challenge),
        cmocka_unit_test(test_enum_numbers_match_schema),
        cmocka_unit_test(test_udp_max_batch),
        cmocka_unit_test(test_udp_key_fields),
        cmocka_unit_test(test_udp_max_movers),
        cmocka_unit_test(test_udp_max_entity_states),
        cmocka_unit_test(test_stats_worlds_past_storage),
        cmocka_unit_test(test_query_result_pieces_fit_datagrams),
        cmocka_unit_test(test_spawn_player_is_appended),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_wire_code_mappings),
    };
    return cmocka_run_group_tests_name("protocol codec", tests, NULL, NULL);
}
