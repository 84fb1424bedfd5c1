/*
 * make_corpus.c - writes the seed corpus of fuzz_protocol into a directory
 * (tests/fuzz/corpus/protocol/ in the source tree, by `make fuzz-corpus`):
 * every sample message of tests/protocol/samples.h as a plain buffer and as
 * a size-prefixed frame, plus invalid variants of a few of them, one per
 * class of defect (cut short, wrong identifier, root offset out of range,
 * bad union type, corrupted vtable and vector count, two frames in one),
 * so the fuzzer starts next to every branch of the verifier; and identity
 * tokens under the harness's secret (good, expired, another role), so it
 * starts next to every branch of the token checker too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/protocol/samples.h"

static uint8_t enc[1u << 16];
static uint8_t tmp[1u << 17];
static const char *dir;

static void put(const char *name, const uint8_t *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static size_t encode(unsigned i, unsigned flags, const uint8_t **out)
{
    sweep_message m = sample_message(i);
    size_t len;
    if (sweep_encode(&m, flags, enc, sizeof enc, out, &len) != SWEEP_PROTO_OK)
        exit(1);
    return len;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus DIR\n");
        return 2;
    }
    dir = argv[1];
    char name[64];
    const uint8_t *out;
    size_t len;
    for (unsigned i = 0; i < sample_count(); i++) {
        len = encode(i, 0, &out);
        snprintf(name, sizeof name, "valid-%02u-%s", i, sweep_msg_kind_name(sample_message(i).kind));
        put(name, out, len);
        len = encode(i, SWEEP_WIRE_SIZE_PREFIXED, &out);
        snprintf(name, sizeof name, "frame-%02u-%s", i, sweep_msg_kind_name(sample_message(i).kind));
        put(name, out, len);
    }
    /* Invalid variants, from small messages so the corpus stays small. */
    unsigned picks[] = {7, 2, 22, 15};
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        unsigned i = picks[p];
        len = encode(i, SWEEP_WIRE_SIZE_PREFIXED, &out);
        memcpy(tmp, out, len);
        snprintf(name, sizeof name, "bad-%02u-truncated", i);
        put(name, tmp, len - len / 3);
        tmp[8] ^= 0x20;
        snprintf(name, sizeof name, "bad-%02u-identifier", i);
        put(name, tmp, len);
        memcpy(tmp, out, len);
        tmp[4] = 0xff;
        tmp[5] = 0xff;
        snprintf(name, sizeof name, "bad-%02u-root-offset", i);
        put(name, tmp, len);
        /* The vtable right after the header (the builder puts the root's
         * vtable first): its size and its first entry. */
        memcpy(tmp, out, len);
        tmp[12] = 0x03;
        snprintf(name, sizeof name, "bad-%02u-vtable", i);
        put(name, tmp, len);
        memcpy(tmp, out, len);
        for (size_t k = 12; k + 4 <= len; k += 4)
            if (tmp[k] == 32 && tmp[k + 1] == 0 && tmp[k + 2] == 0 && tmp[k + 3] == 0)
                tmp[k + 3] = 0x40; /* a 32-element count made huge */
        snprintf(name, sizeof name, "bad-%02u-counts", i);
        put(name, tmp, len);
        /* Two frames back to back, as a stream delivers them. */
        memcpy(tmp, out, len);
        memcpy(tmp + len, out, len);
        snprintf(name, sizeof name, "stream-%02u-two-frames", i);
        put(name, tmp, 2 * len);
    }
    /* Union type out of range, in a plain Ping: find the type byte by
     * changing candidates until the verifier names the union type. */
    len = encode(17, 0, &out);
    for (size_t k = 8; k < len; k++) {
        memcpy(tmp, out, len);
        if (tmp[k] != SWEEP_MSG_PING)
            continue;
        tmp[k] = SWEEP_MSG_KIND_COUNT;
        if (sweep_verify(tmp, len, 0) == SWEEP_PROTO_E_UNION_TYPE) {
            put("bad-17-union-type", tmp, len);
            break;
        }
    }
    /* Tokens under the secret of fuzz_protocol.c. */
    static const uint8_t secret[] = "fuzzing-secret-0123456789";
    char tok[SWEEP_TOKEN_MAX + 1];
    if (sweep_token_make(secret, sizeof secret - 1, SWEEP_WIRE_ROLE_PLAYER, "alice", 2000000000ull, tok,
                         sizeof tok) != SWEEP_TOKEN_OK)
        return 1;
    put("token-player", (const uint8_t *)tok, strlen(tok));
    if (sweep_token_make(secret, sizeof secret - 1, SWEEP_WIRE_ROLE_SERVER, "game.server-1@eu", 0, tok,
                         sizeof tok) != SWEEP_TOKEN_OK)
        return 1;
    put("token-server-expired", (const uint8_t *)tok, strlen(tok));
    return 0;
}
