/*
 * test_level_image.c - the level image (maps/level_image.h): a map's level
 * comes back with the same content hash and the same walk, and every
 * damaged image is refused with a message, never read past its end.
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/hash.h"
#include "core/walker.h"
#include "maps/content_hash.h"
#include "maps/level_image.h"
#include "maps/levelgen.h"
#include "maps/loader.h"

/* A generated level with movers, as a map of it loads: its map row's
 * values applied (the speed limit becomes max_speed), the default 45
 * degree slope. */
static void make_level(sweep_level *lv)
{
    sweep_level_init(lv);
    sweep_levelgen_params gp = {3, 3000, 8, 4};
    assert_int_equal(sweep_levelgen(&gp, lv), SWEEP_OK);
    assert_true(lv->mover_count > 0);
    sweep_map_values v;
    sweep_map_values_of(lv, 45.0, &v);
    sweep_map_apply_values(&v, lv);
}

static void image_of(const sweep_level *lv, unsigned char **bytes, size_t *len)
{
    assert_int_equal(sweep_level_image_make(lv, 45.0, bytes, len), SWEEP_OK);
}

/* make_level's level and its image. */
static void level_and_image(sweep_level *lv, unsigned char **bytes, size_t *len)
{
    make_level(lv);
    image_of(lv, bytes, len);
}

static void assert_same_hash(const sweep_level *a, const sweep_level *b)
{
    sweep_content_hash ha, hb;
    assert_int_equal(sweep_level_content_hash(a, &ha), SWEEP_OK);
    assert_int_equal(sweep_level_content_hash(b, &hb), SWEEP_OK);
    assert_memory_equal(&ha, &hb, sizeof ha);
}

/* Walkers among the movers, hashed as sweep-walk hashes them. */
static uint64_t walk(const sweep_level *lv)
{
    sweep_world_desc d = sweep_level_world_desc(lv);
    sweep_world *w;
    sweep_movers *mv;
    assert_int_equal(sweep_world_create(&d, &w), SWEEP_OK);
    assert_int_equal(sweep_level_build_movers(lv, &mv), SWEEP_OK);
    sweep_walk_params wp = {8, 300, 37, 1.0 / 60.0, 6.0, lv->default_radii, 9};
    sweep_walker walkers[8];
    uint64_t crushed = 0;
    sweep_walk_place(&wp, lv->spawns, lv->spawn_count, walkers);
    for (uint32_t s = 0; s < wp.steps; s++) {
        assert_int_equal(sweep_walk_tick(mv, w, &lv->config, &wp, lv->spawns, lv->spawn_count, walkers, &crushed),
                         SWEEP_OK);
        for (uint32_t i = 0; i < wp.walkers; i++) {
            sweep_move_result r;
            sweep_walk_step_among(w, mv, &lv->config, &wp, i, s, &walkers[i], &r);
        }
    }
    uint64_t h = sweep_movers_hash(mv, sweep_walk_hash(walkers, wp.walkers));
    sweep_movers_destroy(mv);
    sweep_world_destroy(w);
    return h;
}

static void round_trip_same_level(void **state)
{
    (void)state;
    sweep_level lv, back;
    unsigned char *bytes;
    size_t len;
    level_and_image(&lv, &bytes, &len);
    char err[256];
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_OK);
    assert_same_hash(&lv, &back);
    assert_int_equal(back.spawn_count, lv.spawn_count);
    assert_memory_equal(back.spawns, lv.spawns, lv.spawn_count * sizeof *lv.spawns);
    assert_string_equal(back.name, lv.name);
    assert_memory_equal(&back.config, &lv.config, sizeof lv.config);
    assert_true(walk(&back) == walk(&lv));
    /* The image of what was read is the image read. */
    unsigned char *again;
    size_t again_len;
    image_of(&back, &again, &again_len);
    assert_int_equal(again_len, len);
    assert_memory_equal(again, bytes, len);
    free(again);
    free(bytes);
    sweep_level_free(&back);
    sweep_level_free(&lv);
}

/* Where a version 3 image's swimming rules start: after the magic, the
 * version, the name and the 18 numbers of the map row (level_image.h);
 * the 7 swimming rules and then the 4 crouch values follow. */
static size_t rules_end(const sweep_level *lv)
{
    return 16 + strlen(lv->name) + 18 * 8;
}

/* A level with crouching makes an image holding its crouch rules, read
 * back to the same hash and rules; one without holds zeros there. */
static void crouch_rules_round_trip(void **state)
{
    (void)state;
    sweep_level lv, back;
    unsigned char *bytes;
    size_t len;
    level_and_image(&lv, &bytes, &len);
    assert_int_equal(bytes[8], SWEEP_LEVEL_IMAGE_VERSION);
    free(bytes);
    lv.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.5);
    lv.rules.crouch_speed = 2.0;
    image_of(&lv, &bytes, &len);
    assert_int_equal(bytes[8], SWEEP_LEVEL_IMAGE_VERSION);
    char err[256];
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_OK);
    assert_same_hash(&lv, &back);
    assert_memory_equal(&back.rules, &lv.rules, sizeof lv.rules);
    sweep_level_free(&back);
    /* Its crouch values are checked as a map's. */
    double bad = 9.0; /* crouch_speed above walk_speed */
    memcpy(bytes + rules_end(&lv) + 7 * 8 + 3 * 8, &bad, 8); /* after the swimming rules and radii */
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_E_CONFIG);
    assert_non_null(strstr(err, "crouch_speed=9"));
    free(bytes);
    sweep_level_free(&lv);
}

/* Quake 3's air move comes back as written, hashed apart from sweep's own,
 * and a value that is neither is refused as a map's would be. */
static void air_move_round_trips(void **state)
{
    (void)state;
    sweep_level lv, back;
    unsigned char *bytes;
    size_t len;
    level_and_image(&lv, &bytes, &len);
    sweep_content_hash towards;
    assert_int_equal(sweep_level_content_hash(&lv, &towards), SWEEP_OK);
    free(bytes);
    lv.rules.air_move = SWEEP_AIR_ALONG;
    image_of(&lv, &bytes, &len);
    char err[256];
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_OK);
    assert_true(back.rules.air_move == SWEEP_AIR_ALONG);
    assert_same_hash(&lv, &back);
    sweep_content_hash along;
    assert_int_equal(sweep_level_content_hash(&back, &along), SWEEP_OK);
    assert_memory_not_equal(&along, &towards, sizeof along);
    sweep_level_free(&back);
    double bad = 0.5;
    memcpy(bytes + rules_end(&lv) + 7 * 8 + 4 * 8, &bad, 8); /* after the swimming rules and crouching */
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_E_CONFIG);
    assert_non_null(strstr(err, "air_move=0.5 must be 0"));
    free(bytes);
    sweep_level_free(&lv);
}

/* Images of the three earlier versions still read: version 1 without
 * the crouch and swimming rules, version 2 with crouching alone, version
 * 3 without air_move (made here from today's image of a level with none
 * of them, by cutting those values out), to the same level and hash,
 * with the core's defaults for what they lack. */
static void earlier_versions_read(void **state)
{
    (void)state;
    sweep_level lv, back;
    unsigned char *bytes;
    size_t len;
    level_and_image(&lv, &bytes, &len);
    assert_int_equal(lv.volume_count, 0);
    assert_true(lv.rules.air_move == SWEEP_AIR_TOWARDS);
    const size_t at = rules_end(&lv), swim = 7 * 8, crouch = 4 * 8, air = 8;
    for (unsigned version = 1; version <= 3; version++) {
        /* After the rules: swim, crouch, air_move; each version keeps a
         * part of them. */
        const int keep_swim = version >= 3, keep_crouch = version >= 2;
        unsigned char *old = malloc(len);
        assert_non_null(old);
        size_t n = at;
        memcpy(old, bytes, at);
        if (keep_swim)
            memcpy(old + n, bytes + at, swim), n += swim;
        if (keep_crouch)
            memcpy(old + n, bytes + at + swim, crouch), n += crouch;
        const size_t tail = at + swim + crouch + air, cut = len - tail;
        memcpy(old + n, bytes + tail, cut);
        n += cut;
        const size_t len_old = n;
        old[8] = (unsigned char)version;
        char err[256];
        assert_int_equal(sweep_level_image_read(old, len_old, &back, err, sizeof err), SWEEP_OK);
        assert_same_hash(&lv, &back);
        assert_memory_equal(&back.rules, &lv.rules, sizeof lv.rules);
        sweep_level_free(&back);
        free(old);
    }
    free(bytes);
    sweep_level_free(&lv);
}

/* The built arena through sweep-map-image's path: the same content hash. */
static const char *argv0 = "";

static void arena_file_round_trip(void **state)
{
    (void)state;
    /* This program is $(BUILD)/tests/maps/test_level_image. */
    char db[4096];
    snprintf(db, sizeof db, "%.*s../../maps/arena.db", (int)(strrchr(argv0, '/') ? strrchr(argv0, '/') - argv0 + 1 : 0),
             argv0);
    sweep_level lv, back;
    sweep_map_load_info info;
    char err[256];
    assert_int_equal(sweep_map_load(db, &lv, &info, err, sizeof err), SWEEP_OK);
    char path[] = "/tmp/sweep-level-image-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(sweep_level_image_save(path, &lv, info.walkable_slope_deg, err, sizeof err), SWEEP_OK);
    assert_int_equal(sweep_level_image_load(path, &back, err, sizeof err), SWEEP_OK);
    assert_same_hash(&lv, &back);
    assert_int_equal(back.mover_count, lv.mover_count);
    sweep_level_free(&back);
    remove(path);
    assert_int_equal(sweep_level_image_load(path, &back, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "cannot open"));
    sweep_level_free(&back);
    sweep_level_free(&lv);
}

/* The test level with one volume of each kind (pads, teleporter, hurt,
 * kill, trigger): the volumes come back, and with them the content hash
 * and the same world. */
static void volumes_round_trip(void **state)
{
    (void)state;
    char db[4096];
    snprintf(db, sizeof db, "%.*s../../maps/pads.db", (int)(strrchr(argv0, '/') ? strrchr(argv0, '/') - argv0 + 1 : 0),
             argv0);
    sweep_level lv, back;
    sweep_map_load_info info;
    char err[256];
    assert_int_equal(sweep_map_load(db, &lv, &info, err, sizeof err), SWEEP_OK);
    assert_true(lv.volume_count >= 5);
    unsigned char *bytes;
    size_t len;
    assert_int_equal(sweep_level_image_make(&lv, info.walkable_slope_deg, &bytes, &len), SWEEP_OK);
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_OK);
    assert_int_equal(back.volume_count, lv.volume_count);
    for (uint32_t i = 0; i < lv.volume_count; i++) {
        assert_int_equal(back.volumes[i].id, lv.volumes[i].id);
        assert_string_equal(back.volumes[i].name, lv.volumes[i].name);
        assert_memory_equal(&back.volumes[i].v, &lv.volumes[i].v, sizeof lv.volumes[i].v);
    }
    assert_same_hash(&lv, &back);
    /* A damaged volume (a push faster than the level's speed limit) is
     * refused by the volume's own check. */
    sweep_level_free(&back);
    lv.volumes[0].v.kind = SWEEP_VOLUME_PUSH;
    lv.volumes[0].v.velocity = sweep_v3(0, 0, 1e9);
    free(bytes);
    assert_int_equal(sweep_level_image_make(&lv, info.walkable_slope_deg, &bytes, &len), SWEEP_OK);
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "volume"));
    free(bytes);
    sweep_level_free(&lv);
}

/* Every prefix of an image is refused, each with a message. */
static void truncated_refused(void **state)
{
    (void)state;
    sweep_level lv, back;
    unsigned char *bytes;
    size_t len;
    level_and_image(&lv, &bytes, &len);
    char err[256];
    for (size_t n = 0; n < len; n += (n < 512 ? 1 : 997)) {
        unsigned char *copy = malloc(n ? n : 1); /* exact size: a read past it is ASan's */
        memcpy(copy, bytes, n);
        assert_int_equal(sweep_level_image_read(copy, n, &back, err, sizeof err), SWEEP_E_GEOMETRY);
        assert_true(err[0] != '\0');
        assert_int_equal(back.triangle_count, 0);
        free(copy);
    }
    free(bytes);
    sweep_level_free(&lv);
}

static sweep_status read_patched(const unsigned char *bytes, size_t len, size_t at, const void *patch, size_t n,
                                 char *err, size_t errlen)
{
    unsigned char *copy = malloc(len);
    memcpy(copy, bytes, len);
    memcpy(copy + at, patch, n);
    sweep_level back;
    sweep_status st = sweep_level_image_read(copy, len, &back, err, errlen);
    sweep_level_free(&back);
    free(copy);
    return st;
}

/* Offsets in a version 3 image of a level named "" (see level_image.h). */
#define AT_VERSION 8
#define AT_VALUES 16
#define AT_TICK_RATE (AT_VALUES + 24)
#define AT_VERTEX_COUNT (AT_VALUES + 30 * 8)
#define AT_FIRST_TRIANGLE(v) (AT_VERTEX_COUNT + 4 + (v) * 24 + 4)

static void damaged_refused(void **state)
{
    (void)state;
    sweep_level lv;
    make_level(&lv);
    lv.name[0] = '\0';
    unsigned char *bytes;
    size_t len;
    image_of(&lv, &bytes, &len);
    char err[256];
    const unsigned char next[4] = {SWEEP_LEVEL_IMAGE_VERSION + 1, 0, 0, 0};
    assert_int_equal(read_patched(bytes, len, AT_VERSION, next, 4, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "version 5"));
    assert_int_equal(read_patched(bytes, len, 0, "SWEEPMAP", 8, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "not a sweep level image"));
    double nan = NAN, zero = 0.0;
    assert_int_equal(read_patched(bytes, len, AT_VALUES, &nan, 8, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "gravity is not a finite number"));
    assert_int_equal(read_patched(bytes, len, AT_TICK_RATE, &zero, 8, err, sizeof err), SWEEP_E_CONFIG);
    assert_non_null(strstr(err, "tick_rate=0"));
    const unsigned char huge[4] = {0xff, 0xff, 0xff, 0x7f};
    assert_int_equal(read_patched(bytes, len, AT_VERTEX_COUNT, huge, 4, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "do not fit"));
    uint32_t v = lv.vertex_count;
    unsigned char past[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                             (unsigned char)(v >> 24)};
    assert_int_equal(read_patched(bytes, len, AT_FIRST_TRIANGLE(lv.vertex_count), past, 4, err, sizeof err),
                     SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "names vertex"));
    /* A byte more than the image holds. */
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, bytes, len);
    longer[len] = 0;
    sweep_level back;
    assert_int_equal(sweep_level_image_read(longer, len + 1, &back, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "1 bytes after its end"));
    assert_int_equal(sweep_level_image_read(NULL, 0, &back, err, sizeof err), SWEEP_E_ARG);
    free(longer);
    free(bytes);
    sweep_level_free(&lv);
}

/* Materials as a map's loader takes them: at most 65,536 (an image held
 * any number, each triangle's looked up one by one: 200,000 of each read
 * in 76 s), each triangle's known. */
static void materials_as_a_map_has_them(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "many");
    for (uint32_t i = 0; i < 65537; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%u", i);
        assert_int_equal(sweep_level_add_material(&lv, 65537 - i, name, 1.0, 0), SWEEP_OK);
    }
    assert_int_equal(sweep_level_add_quad(&lv, sweep_v3(0, 0, 0), sweep_v3(1, 0, 0), sweep_v3(1, 1, 0),
                                          sweep_v3(0, 1, 0), 65537),
                     SWEEP_OK);
    unsigned char *bytes;
    size_t len;
    char err[256];
    sweep_level back;
    image_of(&lv, &bytes, &len);
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "65537 materials, at most 65536 (as in a map)"));
    free(bytes);
    /* 65,536 of them read, the triangles' found among them... */
    lv.material_count = 65536; /* ids 65537 down to 2 */
    image_of(&lv, &bytes, &len);
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_OK);
    assert_int_equal(back.material_count, 65536);
    sweep_level_free(&back);
    free(bytes);
    /* ...and one not among them named. */
    lv.materials[0] = 1;
    image_of(&lv, &bytes, &len);
    assert_int_equal(sweep_level_image_read(bytes, len, &back, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "triangle 0 has material 1, not in the materials"));
    free(bytes);
    lv.material_count = 65537;
    sweep_level_free(&lv);
}

/* A point past the map row's coordinate limit, which a map's loader
 * refuses, is refused by the reader too, naming what it is. */
static sweep_status read_moved(sweep_level *lv, sweep_vec3 *p, char *err, size_t errlen)
{
    const sweep_vec3 was = *p;
    p->y = 2.0 * lv->config.max_coordinate;
    unsigned char *bytes;
    size_t len;
    image_of(lv, &bytes, &len);
    *p = was;
    sweep_level back;
    sweep_status st = sweep_level_image_read(bytes, len, &back, err, errlen);
    assert_int_equal(back.triangle_count, 0);
    sweep_level_free(&back);
    free(bytes);
    return st;
}

static void points_beyond_the_limit_refused(void **state)
{
    (void)state;
    sweep_level lv;
    make_level(&lv);
    assert_true(lv.spawn_count > 0 && lv.movers[0].key_count > 0);
    char err[256];
    assert_int_equal(read_moved(&lv, &lv.spawns[0], err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "a spawn point at"));
    assert_non_null(strstr(err, "is beyond the coordinate limit"));
    assert_int_equal(read_moved(&lv, &lv.vertices[1], err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "a vertex at"));
    assert_int_equal(read_moved(&lv, &lv.movers[0].vertices[0], err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "a mover vertex at"));
    assert_int_equal(read_moved(&lv, &lv.movers[0].keys[0].pose.position, err, sizeof err), SWEEP_E_GEOMETRY);
    assert_non_null(strstr(err, "keyframe position at"));
    sweep_level_free(&lv);
}

int main(int argc, char **argv)
{
    (void)argc;
    argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_same_level),
        cmocka_unit_test(crouch_rules_round_trip),
        cmocka_unit_test(air_move_round_trips),
        cmocka_unit_test(earlier_versions_read),
        cmocka_unit_test(arena_file_round_trip),
        cmocka_unit_test(volumes_round_trip),
        cmocka_unit_test(truncated_refused),
        cmocka_unit_test(points_beyond_the_limit_refused),
        cmocka_unit_test(damaged_refused),
        cmocka_unit_test(materials_as_a_map_has_them),
    };
    return cmocka_run_group_tests_name("level_image", tests, NULL, NULL);
}
