/*
 * test_content_hash.c - SHA-256 against the FIPS 180-2 example vectors,
 * and the map content hash against its documented serialization: the
 * digest of a hand-written byte stream, a pinned value, and the
 * properties that matter (labels and material order do not count, -0.0 is
 * 0.0, every geometry bit does, and so does every movement rule). Movers:
 * their part of the stream written out by hand, every field that changes a
 * mover's behaviour changes the hash, and a level without movers has no
 * movers part.
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
#include "core/sha256.h"

/* Pinned hash of tiny_level_with_mover (see content_hash.h). */
#define MOVER_LEVEL_HASH "6ff511ee0e0078bd7f4a4bf33d5149030ee974a3b027f2ebf5c2652391dcabef"

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

/* The tag, the version and the level's rules: the head of every stream,
 * for the default rules of sweep_level_init. */
static uint8_t *put_head(uint8_t *p, const sweep_level *lv)
{
    memcpy(p, "SWEEPMAP", 8), p += 8;
    p = put(p, 2, 4);
    p = put_f64(p, 0.0), p = put_f64(p, 0.0), p = put_f64(p, -9.81);
    p = put_f64(p, lv->config.walkable_normal_up);
    p = put_f64(p, 0.35);
    p = put_f64(p, 0.4), p = put_f64(p, 0.4), p = put_f64(p, 0.9);
    p = put_f64(p, 60.0);
    /* walk_speed, ground_accel, air_accel, jump_speed, max_step,
     * speed_limit, correction_threshold */
    p = put_f64(p, 5.0), p = put_f64(p, 50.0), p = put_f64(p, 10.0), p = put_f64(p, 5.0);
    p = put_f64(p, 1.0 / 30.0), p = put_f64(p, 60.0);
    p = put_f64(p, 0.25);
    return p;
}

static void content_hash_is_the_documented_serialization(void **state)
{
    (void)state;
    sweep_level lv;
    tiny_level(&lv);
    /* The stream content_hash.h describes, written out by hand. */
    uint8_t buf[1024], *p = buf;
    p = put_head(p, &lv);
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
    assert_string_equal(hex, "205533aba3e13103c9dad7fecf96b25949c6d62d2724e187b9b5ee3a6dfd6de4");

    /* Quake 3's air move: the same stream and its last part. */
    lv.rules.air_move = SWEEP_AIR_ALONG;
    memcpy(p, "AIRMOVE", 8), p += 8;
    p = put_f64(p, 1.0);
    sweep_sha256_digest(buf, (size_t)(p - buf), want);
    assert_int_equal(sweep_level_content_hash(&lv, &h), SWEEP_OK);
    assert_memory_equal(h.bytes, want, 32);
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

/* tiny_level plus one mover: a tetrahedron on a two-keyframe path. */
static void tiny_level_with_mover(sweep_level *lv)
{
    tiny_level(lv);
    uint32_t i;
    assert_int_equal(sweep_level_add_mover(lv, 7, "lid", &i), SWEEP_OK);
    sweep_level_mover *m = &lv->movers[i];
    m->mode = SWEEP_MOVER_PINGPONG, m->trigger = SWEEP_TRIGGER_VOLUME, m->blocked = SWEEP_BLOCKED_CRUSH;
    m->wait_start = 0.5, m->wait_end = 2.0;
    m->volume_min = sweep_v3(-1, -2, -3), m->volume_max = sweep_v3(4, 5, 6);
    const sweep_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < 4; k++)
        assert_int_equal(sweep_level_mover_add_vertex(m, v[k], NULL), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_triangle(m, 0, 2, 1, 2), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_triangle(m, 0, 1, 3, 2), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_triangle(m, 0, 3, 2, 1), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_triangle(m, 1, 2, 3, 2), SWEEP_OK);
    sweep_quat turn = {0.0, 0.0, 0.6, 0.8};
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0.0, sweep_v3(2, 3, 0), sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 1.5, sweep_v3(2, 3, 4), turn), SWEEP_OK);
}

static void content_hash_of_movers_is_documented(void **state)
{
    (void)state;
    sweep_level lv;
    tiny_level_with_mover(&lv);
    /* The level's part is the stream of the test above; the movers' part
     * follows it. */
    uint8_t buf[2048], *p = buf;
    p = put_head(p, &lv);
    p = put(p, 4, 4);
    const double v[4][3] = {{0, 0, 0}, {10, 0, 0}, {10, 10, 0}, {0, 10, 0}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            p = put_f64(p, v[i][k]);
    p = put(p, 2, 4);
    p = put(p, 0, 4), p = put(p, 1, 4), p = put(p, 2, 4), p = put(p, 1, 4);
    p = put(p, 0, 4), p = put(p, 2, 4), p = put(p, 3, 4), p = put(p, 2, 4);
    p = put(p, 2, 4);
    p = put(p, 1, 4), p = put_f64(p, 1.0), p = put(p, 0, 4);
    p = put(p, 2, 4), p = put_f64(p, 0.5), p = put(p, 3, 4);

    memcpy(p, "MOVERS\0\0", 8), p += 8;
    p = put(p, 1, 4);                                            /* one mover */
    p = put(p, 7, 4);                                            /* id */
    p = put(p, 3, 4), memcpy(p, "lid", 3), p += 3;               /* name */
    p = put(p, 2, 4), p = put(p, 1, 4), p = put(p, 2, 4);        /* pingpong, volume, crush */
    p = put_f64(p, 0.5), p = put_f64(p, 2.0);                    /* waits */
    p = put_f64(p, -1), p = put_f64(p, -2), p = put_f64(p, -3); /* volume */
    p = put_f64(p, 4), p = put_f64(p, 5), p = put_f64(p, 6);
    p = put(p, 4, 4);
    const double mv[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            p = put_f64(p, mv[i][k]);
    p = put(p, 4, 4);
    const uint32_t mt[4][4] = {{0, 2, 1, 2}, {0, 1, 3, 2}, {0, 3, 2, 1}, {1, 2, 3, 2}};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++)
            p = put(p, mt[i][k], 4);
    p = put(p, 2, 4);
    p = put_f64(p, 0.0), p = put_f64(p, 2), p = put_f64(p, 3), p = put_f64(p, 0);
    p = put_f64(p, 0), p = put_f64(p, 0), p = put_f64(p, 0), p = put_f64(p, 1);
    p = put_f64(p, 1.5), p = put_f64(p, 2), p = put_f64(p, 3), p = put_f64(p, 4);
    p = put_f64(p, 0), p = put_f64(p, 0), p = put_f64(p, 0.6), p = put_f64(p, 0.8);
    uint8_t want[32];
    sweep_sha256_digest(buf, (size_t)(p - buf), want);

    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(&lv, &h), SWEEP_OK);
    assert_memory_equal(h.bytes, want, 32);
    char hex[65];
    sweep_content_hash_hex(&h, hex);
    assert_string_equal(hex, MOVER_LEVEL_HASH);
    sweep_level_free(&lv);
}

static void hash_of(const sweep_level *lv, uint8_t out[32])
{
    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(lv, &h), SWEEP_OK);
    memcpy(out, h.bytes, 32);
}

static void content_hash_covers_movers(void **state)
{
    (void)state;
    sweep_level lv;
    tiny_level_with_mover(&lv);
    sweep_level_mover *m = &lv.movers[0];
    uint8_t base[32], h[32];
    hash_of(&lv, base);

    /* Each change is made, hashed, checked and undone. */
#define CHANGES(field, value)                                                                                    \
    do {                                                                                                         \
        __typeof__(field) keep = (field);                                                                        \
        (field) = (value);                                                                                       \
        hash_of(&lv, h);                                                                                         \
        (field) = keep;                                                                                          \
        if (memcmp(h, base, 32) == 0)                                                                            \
            fail_msg("changing %s did not change the hash", #field);                                            \
    } while (0)
    CHANGES(m->id, 8);
    CHANGES(m->name[0], 'L');
    CHANGES(m->mode, SWEEP_MOVER_ONCE);
    CHANGES(m->trigger, SWEEP_TRIGGER_TOUCH);
    CHANGES(m->blocked, SWEEP_BLOCKED_STOP);
    CHANGES(m->wait_start, 0.25);
    CHANGES(m->wait_end, nextafter(2.0, 3.0));
    CHANGES(m->volume_min.y, -2.5);
    CHANGES(m->volume_max.z, 6.5);
    CHANGES(m->vertices[3].z, nextafter(1.0, 2.0));
    CHANGES(m->indices[4], 3);
    CHANGES(m->materials[2], 2);
    CHANGES(m->keys[1].time, 1.25);
    CHANGES(m->keys[1].pose.position.x, 2.5);
    CHANGES(m->keys[1].pose.rotation.z, -0.6);
    CHANGES(m->keys[1].pose.rotation.w, nextafter(0.8, 1.0));
    CHANGES(m->triangle_count, 3);
    CHANGES(m->key_count, 1);
#undef CHANGES
    hash_of(&lv, h);
    assert_memory_equal(h, base, 32);

    /* Only a volume trigger has a box: for the others it does not count. */
    m->trigger = SWEEP_TRIGGER_ALWAYS;
    uint8_t always[32];
    hash_of(&lv, always);
    m->volume_min = sweep_v3(9, 9, 9);
    hash_of(&lv, h);
    assert_memory_equal(h, always, 32);
    m->trigger = SWEEP_TRIGGER_VOLUME;
    m->volume_min = sweep_v3(-1, -2, -3);

    /* -0.0 is 0.0 here too. */
    m->vertices[0].x = -0.0;
    hash_of(&lv, h);
    assert_memory_equal(h, base, 32);

    /* Without its movers, the level hashes as it did before movers. */
    sweep_level plain;
    tiny_level(&plain);
    uint8_t without[32];
    hash_of(&plain, without);
    uint32_t n = lv.mover_count;
    lv.mover_count = 0;
    hash_of(&lv, h);
    lv.mover_count = n;
    assert_memory_equal(h, without, 32);
    sweep_level_free(&plain);
    sweep_level_free(&lv);
}

/* Every movement rule, and the correction threshold, is part of the hash
 * to the last bit; -0.0 is 0.0 there too. */
static void content_hash_covers_rules(void **state)
{
    (void)state;
    sweep_level lv;
    tiny_level(&lv);
    uint8_t base[32], h[32];
    hash_of(&lv, base);
    double *const fields[] = {&lv.rules.walk_speed, &lv.rules.ground_accel, &lv.rules.air_accel,
                              &lv.rules.jump_speed, &lv.rules.max_step,     &lv.rules.speed_limit,
                              &lv.correction_threshold};
    static const char *const names[] = {"walk_speed", "ground_accel", "air_accel", "jump_speed",
                                         "max_step",   "speed_limit",  "correction_threshold"};
    uint8_t seen[7][32];
    for (int i = 0; i < 7; i++) {
        double keep = *fields[i];
        *fields[i] = nextafter(keep, INFINITY);
        hash_of(&lv, h);
        *fields[i] = keep;
        if (memcmp(h, base, 32) == 0)
            fail_msg("one bit more of %s did not change the hash", names[i]);
        /* Each field has its own place in the stream: no two changes
         * collide (as swapping two fields' values would if they did not). */
        memcpy(seen[i], h, 32);
        for (int k = 0; k < i; k++)
            if (memcmp(seen[k], h, 32) == 0)
                fail_msg("changing %s and %s gave the same hash", names[k], names[i]);
    }
    /* Two values swapped: a different level, a different hash. */
    lv.rules.walk_speed = 10.0, lv.rules.air_accel = 5.0;
    hash_of(&lv, h);
    assert_memory_not_equal(h, base, 32);
    lv.rules.walk_speed = 5.0, lv.rules.air_accel = 10.0;

    lv.rules.air_accel = 0.0;
    uint8_t zero[32];
    hash_of(&lv, zero);
    lv.rules.air_accel = -0.0;
    hash_of(&lv, h);
    assert_memory_equal(h, zero, 32);
    lv.rules.air_accel = 10.0;

    /* Quake 3's air move changes how the level moves: another hash; sweep's
     * own is not hashed, so every map of before keeps its hash. */
    lv.rules.air_move = SWEEP_AIR_ALONG;
    hash_of(&lv, h);
    assert_memory_not_equal(h, base, 32);
    lv.rules.air_move = SWEEP_AIR_TOWARDS;
    hash_of(&lv, h);
    assert_memory_equal(h, base, 32);

    /* config.max_speed is not in the stream: the loader makes it the
     * speed_limit, which is. */
    lv.config.max_speed = 1234.0;
    hash_of(&lv, h);
    assert_memory_equal(h, base, 32);
    sweep_level_free(&lv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_known_answers),
        cmocka_unit_test(sha256_million_a_in_pieces),
        cmocka_unit_test(sha256_padding_boundaries),
        cmocka_unit_test(content_hash_is_the_documented_serialization),
        cmocka_unit_test(content_hash_ignores_labels_and_order),
        cmocka_unit_test(content_hash_of_movers_is_documented),
        cmocka_unit_test(content_hash_covers_movers),
        cmocka_unit_test(content_hash_covers_rules),
    };
    return cmocka_run_group_tests_name("maps.content_hash", tests, NULL, NULL);
}
