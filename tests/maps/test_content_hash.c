/*
 * test_content_hash.c - SHA-256 against the FIPS 180-2 example vectors,
 * and the map content hash against its documented serialization: the
 * digest of a hand-written byte stream, a pinned value, and the
 * properties that matter (labels and material order do not count, -0.0 is
 * 0.0, every geometry bit does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "maps/content_hash.h"
#include "maps/sha256.h"

static void check_digest(const void *data, size_t len, const char *want)
{
    uint8_t d[SWEEP_SHA256_SIZE];
    char hex[65];
    sweep_sha256_digest(data, len, d);
    sweep_sha256_hex(d, hex);
    assert_string_equal(hex, want);
}

static void sha256_known_answers(void **state)
{
    (void)state;
    check_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_digest(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    check_digest(four, strlen(four), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void sha256_million_a_in_pieces(void **state)
{
    (void)state;
    /* One million 'a', fed in uneven pieces to exercise the block buffer. */
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    sweep_sha256 s;
    sweep_sha256_init(&s);
    size_t done = 0, piece = 1;
    while (done < 1000000) {
        size_t n = piece < 1000000 - done ? piece : 1000000 - done;
        sweep_sha256_update(&s, a + done, n);
        done += n;
        piece = piece * 7 % 131 + 1;
    }
    uint8_t d[SWEEP_SHA256_SIZE];
    char hex[65];
    sweep_sha256_final(&s, d);
    sweep_sha256_hex(d, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

static void sha256_padding_boundaries(void **state)
{
    (void)state;
    /* Lengths around the 55/56/64-byte padding edges: one-shot and
     * byte-by-byte must agree, and neighbours must differ. */
    uint8_t msg[130], d1[32], d2[32], prev[32];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 37 + 1);
    for (size_t len = 50; len <= 130; len++) {
        sweep_sha256_digest(msg, len, d1);
        sweep_sha256 s;
        sweep_sha256_init(&s);
        for (size_t i = 0; i < len; i++)
            sweep_sha256_update(&s, msg + i, 1);
        sweep_sha256_final(&s, d2);
        assert_memory_equal(d1, d2, 32);
        if (len > 50)
            assert_memory_not_equal(d1, prev, 32);
        memcpy(prev, d1, 32);
    }
}

/* A two-triangle level built in memory. */
static void tiny_level(sweep_level *lv)
{
    sweep_level_init(lv);
    snprintf(lv->name, sizeof lv->name, "tiny");
    assert_int_equal(sweep_level_add_material(lv, 2, "wall", 0.5, 3), SWEEP_OK);
    assert_int_equal(sweep_level_add_material(lv, 1, "floor", 1.0, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(0, 0, 0), sweep_v3(10, 0, 0), sweep_v3(10, 10, 0),
                                          sweep_v3(0, 10, 0), 1),
                     SWEEP_OK);
    lv->materials[1] = 2;
    assert_int_equal(sweep_level_add_spawn(lv, sweep_v3(5, 5, 1)), SWEEP_OK);
}

static uint8_t *put(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_f64(uint8_t *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return put(p, v, 8);
}

static void content_hash_is_the_documented_serialization(void **state)
{
    (void)state;
    sweep_level lv;
    tiny_level(&lv);
    /* The stream content_hash.h describes, written out by hand. */
    uint8_t buf[1024], *p = buf;
    memcpy(p, "SWEEPMAP", 8), p += 8;
    p = put(p, 1, 4);
    p = put_f64(p, 0.0), p = put_f64(p, 0.0), p = put_f64(p, -9.81);
    p = put_f64(p, lv.config.walkable_normal_up);
    p = put_f64(p, 0.35);
    p = put_f64(p, 0.4), p = put_f64(p, 0.4), p = put_f64(p, 0.9);
    p = put_f64(p, 60.0);
    p = put(p, 4, 4);
    const double v[4][3] = {{0, 0, 0}, {10, 0, 0}, {10, 10, 0}, {0, 10, 0}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            p = put_f64(p, v[i][k]);
    p = put(p, 2, 4);
    p = put(p, 0, 4), p = put(p, 1, 4), p = put(p, 2, 4), p = put(p, 1, 4);
    p = put(p, 0, 4), p = put(p, 2, 4), p = put(p, 3, 4), p = put(p, 2, 4);
    p = put(p, 2, 4);
    p = put(p, 1, 4), p = put_f64(p, 1.0), p = put(p, 0, 4); /* by id: floor first */
    p = put(p, 2, 4), p = put_f64(p, 0.5), p = put(p, 3, 4);
    uint8_t want[32];
    sweep_sha256_digest(buf, (size_t)(p - buf), want);

    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(&lv, &h), SWEEP_OK);
    assert_memory_equal(h.bytes, want, 32);
    char hex[65];
    sweep_content_hash_hex(&h, hex);
    /* Pinned, so a change of the serialization cannot go unnoticed. */
    assert_string_equal(hex, "b3ec43afa54187ea25b2c6b80952690c581f2746aa707df90c9b916b1d69663a");
    sweep_level_free(&lv);
}

static void content_hash_ignores_labels_and_order(void **state)
{
    (void)state;
    sweep_level a, b;
    tiny_level(&a);
    tiny_level(&b);
    snprintf(b.name, sizeof b.name, "other");
    snprintf(b.material_table[0].name, sizeof b.material_table[0].name, "stone");
    b.spawns[0] = sweep_v3(1, 2, 3);
    sweep_material m = b.material_table[0];
    b.material_table[0] = b.material_table[1];
    b.material_table[1] = m;
    b.vertices[0].x = -0.0;
    sweep_content_hash ha, hb;
    assert_int_equal(sweep_level_content_hash(&a, &ha), SWEEP_OK);
    assert_int_equal(sweep_level_content_hash(&b, &hb), SWEEP_OK);
    assert_memory_equal(ha.bytes, hb.bytes, 32);

    b.material_table[0].flags ^= 1; /* flags count */
    assert_int_equal(sweep_level_content_hash(&b, &hb), SWEEP_OK);
    assert_memory_not_equal(ha.bytes, hb.bytes, 32);
    b.material_table[0].flags ^= 1;
    b.indices[5] = 1; /* so does every index */
    assert_int_equal(sweep_level_content_hash(&b, &hb), SWEEP_OK);
    assert_memory_not_equal(ha.bytes, hb.bytes, 32);
    sweep_level_free(&a);
    sweep_level_free(&b);
    assert_int_equal(sweep_level_content_hash(NULL, &ha), SWEEP_E_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_known_answers),
        cmocka_unit_test(sha256_million_a_in_pieces),
        cmocka_unit_test(sha256_padding_boundaries),
        cmocka_unit_test(content_hash_is_the_documented_serialization),
        cmocka_unit_test(content_hash_ignores_labels_and_order),
    };
    return cmocka_run_group_tests_name("maps.content_hash", tests, NULL, NULL);
}
