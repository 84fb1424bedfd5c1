/*
 * fuzz_protocol.c - libFuzzer harness over the protocol's untrusted-input
 * path: verify + decode of any bytes, as a plain buffer (UDP) and as a
 * size-prefixed frame (TCP), and the TCP framer cutting them into frames.
 *
 * Beyond "no crash, no sanitizer report", it checks one property on every
 * input the decoder accepts: encoding the decoded message gives a buffer
 * that verifies and decodes to equal values. So a verifier that lets
 * through something the decoder misreads, or a decoder that reads past
 * what the verifier proved, shows up as a failed round trip (abort).
 *
 * The bytes are also an untrusted Hello.auth_token: the token checker
 * must read only what it is given and accept nothing a MAC does not prove
 * (a token it accepts must be the one sweep_token_make writes for its
 * claims).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (protocol.mk):
 * `make fuzz FUZZ_SECONDS=N`, and a bounded smoke run in `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/decode_checked.h"
#include "tests/protocol/samples.h"

#define CAP 1024u

static sweep_msg_move moves[2][CAP];
static sweep_msg_move_result results[2][CAP];
static sweep_wire_mover movers[2][CAP];
static sweep_msg_entity_command commands[2][CAP];
static sweep_msg_entity_command_result command_results[2][CAP];
static sweep_wire_entity_state entity_states[2][CAP];
static sweep_wire_world_info worlds[2][CAP];
static sweep_msg_query_item query_items[2][CAP];
static sweep_msg_query_answer query_answers[2][CAP];
static sweep_wire_query_hit query_hits[2][CAP];
static uint32_t query_ignore[2][CAP];
static sweep_wire_hit_shape hit_shapes[2][CAP];

/* A decoder lending storage set i for every list a message may hold. */
static sweep_decoder decoder(int i)
{
    sweep_decoder d = {moves[i], CAP, results[i], CAP, movers[i], CAP, {0, 0}, commands[i], CAP,
                       command_results[i], CAP, entity_states[i], CAP, worlds[i], CAP, query_items[i], CAP,
                       query_answers[i], CAP, query_hits[i], CAP, query_ignore[i], CAP, hit_shapes[i], CAP};
    return d;
}
static uint8_t enc[1u << 22];
static uint8_t framer_storage[4 + 4096];

static void roundtrip(const uint8_t *data, size_t size, unsigned flags)
{
    sweep_decoder d = decoder(0);
    sweep_message m, back;
    sweep_proto_error e = sweep_decode(&d, data, size, flags, &m);
    /* The verifier alone must agree with the decoder on validity (the
     * decoder only adds capacity checks). */
    sweep_proto_error v = sweep_verify(data, size, flags);
    if ((v == SWEEP_PROTO_OK) != (e == SWEEP_PROTO_OK || e == SWEEP_PROTO_E_CAPACITY) ||
        (v != SWEEP_PROTO_OK && v != e)) {
        fprintf(stderr, "verify says %s, decode says %s\n", sweep_proto_error_name(v), sweep_proto_error_name(e));
        abort();
    }
    /* The bounds-checked reader of a Move or MoveResult reads inside the
     * bytes whatever they are, and what the verifier accepts it reads as
     * the decoder does (or gives up). */
    sweep_decoder dc = decoder(1);
    sweep_decoded_motion cv;
    if (sweep__decode_motion_checked(&dc, data, size, flags, &cv) == SWEEP_PROTO_OK && e == SWEEP_PROTO_OK &&
        (cv.kind != m.kind || cv.sequence != m.sequence || cv.server_tick != m.server_tick ||
         (cv.kind == SWEEP_MSG_MOVE && !sample__move_eq(&m.as.move, cv.moves)) ||
         (cv.kind == SWEEP_MSG_MOVE_RESULT && !sample__result_eq(&m.as.move_result, cv.results)))) {
        fprintf(stderr, "the checked reader read a %s otherwise than the decoder\n", sweep_msg_kind_name(m.kind));
        abort();
    }
    /* The kind peek reads inside the bytes whatever they are, and on what
     * the verifier accepts names the decoder's kind. */
    sweep_msg_kind pk;
    if (sweep__decode_kind_checked(data, size, flags, &pk) == SWEEP_PROTO_OK && e == SWEEP_PROTO_OK &&
        pk != m.kind) {
        fprintf(stderr, "the kind peek says %s, the decoder %s\n", sweep_msg_kind_name(pk), sweep_msg_kind_name(m.kind));
        abort();
    }
    if (e != SWEEP_PROTO_OK)
        return;
    const uint8_t *out;
    size_t len;
    /* A WorldState whose paths are neither absent nor one per mover is
     * decoded as sent (path_count the vector's length), for the client to
     * name (sweep_predict_apply_world_state refuses it); the encoder refuses to
     * make one, so there is no round trip to check. */
    if (m.kind == SWEEP_MSG_WORLD_STATE && m.as.world_state.path_count != 0 &&
        m.as.world_state.path_count != m.as.world_state.count) {
        if (sweep_encode(&m, flags, enc, sizeof enc, &out, &len) != SWEEP_PROTO_E_ARG)
            abort();
        return;
    }
    e = sweep_encode(&m, flags, enc, sizeof enc, &out, &len);
    if (e == SWEEP_PROTO_E_ARG) /* e.g. an Error code above 0xffff cannot come from the wire */
        abort();
    if (e != SWEEP_PROTO_OK)
        abort();
    sweep_decoder d2 = decoder(1);
    if (sweep_decode(&d2, out, len, flags, &back) != SWEEP_PROTO_OK || !sample_equal(&m, &back)) {
        fprintf(stderr, "round trip of a %s changed it\n", sweep_msg_kind_name(m.kind));
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a token under a fixed secret. */
static void token(const uint8_t *data, size_t size)
{
    static const uint8_t secret[] = "fuzzing-secret-0123456789";
    sweep_token_claims c;
    char *copy = malloc(size ? size : 1); /* exactly size bytes: ASan sees any overread */
    if (!copy)
        return;
    memcpy(copy, data, size);
    sweep_token_status st = sweep_token_check(secret, sizeof secret - 1, copy, size, 0, &c);
    if (st == SWEEP_TOKEN_OK || st == SWEEP_TOKEN_EXPIRED) {
        char again[SWEEP_TOKEN_MAX + 1];
        if (sweep_token_make(secret, sizeof secret - 1, c.role, c.identity, c.expiry, again, sizeof again) !=
                SWEEP_TOKEN_OK ||
            strlen(again) != size || memcmp(again, copy, size) != 0) {
            fprintf(stderr, "a token the checker accepted is not the one its claims make\n");
            abort();
        }
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    roundtrip(data, size, 0);
    roundtrip(data, size, SWEEP_WIRE_SIZE_PREFIXED);
    token(data, size);

    /* The same bytes as a stream, in two chunks, through a small framer. */
    sweep_framer f;
    if (sweep_framer_init(&f, framer_storage, sizeof framer_storage, 4096) != SWEEP_PROTO_OK)
        abort();
    size_t half = size / 2, fed = 0;
    while (fed < size) {
        size_t chunk = fed < half ? half - fed : size - fed;
        size_t took = sweep_framer_feed(&f, data + fed, chunk ? chunk : size - fed);
        fed += took;
        const uint8_t *frame;
        size_t flen;
        sweep_frame_status st;
        while ((st = sweep_framer_next(&f, &frame, &flen)) == SWEEP_FRAME_READY) {
            if (flen < 4 || flen > sizeof framer_storage)
                abort();
            roundtrip(frame, flen, SWEEP_WIRE_SIZE_PREFIXED);
        }
        if (st == SWEEP_FRAME_TOO_LARGE || took == 0)
            break;
    }
    return 0;
}
