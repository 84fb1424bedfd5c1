/*
 * test_record_move.c - the MOVE record's image (server/record/record_move.h):
 * the core depth of a replay compares what the core made of a move with a
 * record where it lies (sweep__record_move_same_output) instead of
 * building the image the writer would and comparing bytes; the two must
 * agree on every byte of the output, and on the length. So must
 * sweep__record_move_same_act_in, which compares a Walk move's image straight
 * from the core's output, with the fields server/world/moves.c makes of it.
 * Each in both layouts: the full one of versions 2 to 5 and the compact one
 * of version 6.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/record/record_move.h"
#include "tests/test_rng.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_u64(void)
{
    return test_rng_next(&rng);
}

static double next_f64(void)
{
    return (double)(int64_t)next_u64() / 1048576.0;
}

static sweep_vec3 next_vec3(void)
{
    return sweep_v3(next_f64(), next_f64(), next_f64());
}

/* A result with every field the image holds drawn at random. */
static void random_result(sweep_msg_move_result *r, uint32_t contacts)
{
    memset(r, 0, sizeof *r);
    r->entity = (uint32_t)next_u64();
    r->sequence = (uint32_t)next_u64();
    r->applied_dt = next_f64();
    r->position = next_vec3();
    r->velocity = next_vec3();
    r->grounded = next_u64() & 1;
    r->carried = next_u64() & 1;
    r->pushed = next_u64() & 1;
    r->has_start_position = next_u64() & 1;
    r->crouched = next_u64() & 1;
    r->stance_blocked = next_u64() & 1;
    r->ground_normal = next_vec3();
    r->start_position = next_vec3();
    r->speed_excess = next_f64();
    r->ground_material = (uint32_t)next_u64();
    r->ground_mover = (uint32_t)next_u64();
    r->pushed_by = (uint32_t)next_u64();
    r->rules = (uint32_t)next_u64() & SWEEP__RECORD_MOVE_RULES;
    r->contact_count = contacts;
    for (uint32_t i = 0; i < contacts; i++) {
        r->contacts[i].point = next_vec3();
        r->contacts[i].normal = next_vec3();
        r->contacts[i].triangle = (uint32_t)next_u64();
        r->contacts[i].material = (uint32_t)next_u64();
    }
    /* One move in three has no rare field: no compact rare part. */
    if (next_u64() % 3 == 0) {
        r->has_start_position = 0;
        r->start_position = sweep_v3(0, 0, 0);
        r->speed_excess = 0.0;
        r->ground_mover = r->pushed_by = r->rules = 0;
    }
}

/* The length of a compact image of r. */
static size_t compact_len(const sweep_msg_move_result *r)
{
    int rare = r->has_start_position || r->speed_excess != 0.0 || r->ground_mover || r->pushed_by ||
               (r->rules & SWEEP__RECORD_MOVE_RULES);
    return 104u + (r->grounded ? 28u : 0u) + (rare ? 44u : 0u) + r->contact_count * SWEEP_RECORD_MOVE_CONTACT;
}

/* The fields as the core depth has them for the move. */
static void fields_of(const sweep_msg_move_result *r, uint64_t session, uint32_t mode, uint32_t buttons,
                      sweep_vec3 wish, sweep__record_move_fields *f)
{
    *f = (sweep__record_move_fields){
        .session = session,
        .entity = r->entity,
        .sequence = r->sequence,
        .wish = wish,
        .granted = r->applied_dt,
        .buttons = buttons,
        .mode = mode,
        .grounded = r->grounded,
        .carried = r->carried,
        .pushed = r->pushed,
        .has_start_position = r->has_start_position,
        .crouched = r->crouched,
        .stance_blocked = r->stance_blocked,
        .cut_forgiven = sweep__record_move_cut_forgiven(r),
        .contact_count = r->contact_count,
        .position = r->position,
        .velocity = r->velocity,
        .ground_normal = r->ground_normal,
        .start_position = r->start_position,
        .speed_excess = r->speed_excess,
        .ground_material = r->ground_material,
        .ground_mover = r->ground_mover,
        .pushed_by = r->pushed_by,
        .rules = r->rules,
        .contacts = r->contacts,
    };
}

/* The writer's image of a move is the same as its fields, and one bit
 * changed anywhere in what the core made of it (from byte 53: flags,
 * count, outputs, contacts), or a length that is not the image's, is not. */
static void same_output_agrees_with_the_image(void **state)
{
    (void)state;
    for (uint32_t round = 0; round < 400; round++) {
        int compact = round & 1;
        uint32_t contacts = round % (SWEEP_MAX_CONTACTS + 1);
        sweep_msg_move_result r;
        random_result(&r, contacts);
        uint64_t session = next_u64();
        uint32_t mode = round % SWEEP_WIRE_MODE_COUNT, buttons = (uint32_t)next_u64();
        sweep_vec3 wish = next_vec3();
        uint8_t image[SWEEP__RECORD_MOVE_MAX + SWEEP_RECORD_MOVE_CONTACT];
        size_t n = sweep__record_move_encode(image, compact, session, mode, buttons, wish, sweep__record_move_cut_forgiven(&r), &r);
        assert_int_equal(n, compact ? compact_len(&r) : SWEEP_RECORD_MOVE_FIXED + contacts * SWEEP_RECORD_MOVE_CONTACT);
        assert_int_equal(sweep__record_move_check(image, n, compact, (char[160]){0}, 160), 0);
        /* The other layout's check refuses it. */
        assert_int_equal(sweep__record_move_check(image, n, !compact, (char[160]){0}, 160), -1);
        assert_int_equal(sweep__record_move_image_len(image), n);
        sweep__record_move_fields f;
        fields_of(&r, session, mode, buttons, wish, &f);
        assert_true(sweep__record_move_same_output(image, n, &f));
        for (size_t at = 53; at < n; at++) {
            for (int bit = 0; bit < 8; bit += 3) {
                image[at] ^= (uint8_t)(1u << bit);
                if (sweep__record_move_same_output(image, n, &f))
                    fail_msg("round %u: byte %zu bit %d changed, still the same", round, at, bit);
                image[at] ^= (uint8_t)(1u << bit);
            }
        }
        assert_false(sweep__record_move_same_output(image, n - SWEEP_RECORD_MOVE_CONTACT, &f));
        assert_false(sweep__record_move_same_output(image, n + SWEEP_RECORD_MOVE_CONTACT, &f));
        assert_true(sweep__record_move_same_output(image, n, &f));
    }
}

/* Little-endian bytes of v at p, one at a time: the layout of record.h
 * written out here on its own, not with the writer's helpers. */
static void le_put(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le_f64(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    le_put(p, u, 8);
}

static void le_vec3(uint8_t *p, sweep_vec3 v)
{
    le_f64(p, v.x);
    le_f64(p + 8, v.y);
    le_f64(p + 16, v.z);
}

/* The writer's image is record.h's MOVE layout byte for byte, every
 * field of it (the input's too), with only the core's rules kept and
 * nothing of a contact but its point, normal, triangle and material; it
 * writes nothing past its length; read back, it writes the same bytes
 * again. */
static void the_image_is_the_layout(void **state)
{
    (void)state;
    for (uint32_t round = 0; round < 600; round++) {
        int compact = round & 1;
        uint32_t contacts = round % (SWEEP_MAX_CONTACTS + 1);
        sweep_msg_move_result r;
        random_result(&r, contacts);
        r.rules = (uint32_t)next_u64(); /* the server's bits too, which the image leaves out */
        r.server_tick = next_u64();
        r.correction = next_f64();
        r.time_excess = next_f64();
        for (uint32_t i = 0; i < contacts; i++) {
            r.contacts[i].mover = (uint32_t)next_u64();
            r.contacts[i].body = (uint32_t)next_u64();
        }
        uint64_t session = next_u64();
        uint32_t mode = round % SWEEP_WIRE_MODE_COUNT, buttons = (uint32_t)next_u64();
        sweep_vec3 wish = next_vec3();

        uint8_t want[SWEEP__RECORD_MOVE_MAX + 16];
        memset(want, 0xa5, sizeof want);
        le_put(want + 0, session, 8);
        le_put(want + 8, r.entity, 4);
        le_put(want + 12, r.sequence, 4);
        le_vec3(want + 16, wish);
        le_f64(want + 40, r.applied_dt);
        le_put(want + 48, buttons, 4);
        want[52] = (uint8_t)mode;
        want[53] = (uint8_t)((r.grounded ? 1u : 0u) | (r.carried ? 2u : 0u) | (r.pushed ? 4u : 0u) |
                             (r.has_start_position ? 8u : 0u) | (r.crouched ? 16u : 0u) |
                             (r.stance_blocked ? 32u : 0u) |
                             (r.time_excess > 0.0 && !(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET) ? 64u : 0u));
        want[54] = (uint8_t)contacts;
        want[55] = 0;
        le_vec3(want + 56, r.position);
        le_vec3(want + 80, r.velocity);
        uint8_t *c = want + SWEEP_RECORD_MOVE_FIXED;
        if (!compact) {
            le_vec3(want + 104, r.ground_normal);
            le_vec3(want + 128, r.start_position);
            le_f64(want + 152, r.speed_excess);
            le_put(want + 160, r.ground_material, 4);
            le_put(want + 164, r.ground_mover, 4);
            le_put(want + 168, r.pushed_by, 4);
            le_put(want + 172, r.rules & SWEEP__RECORD_MOVE_RULES, 4);
        } else {
            /* 0x80, 0x81 with the rare part; the ground part only on the
             * ground; the rare part only when one of its fields is not
             * zero or the move started elsewhere. */
            int rare = r.has_start_position || r.speed_excess != 0.0 || r.ground_mover || r.pushed_by ||
                       (r.rules & SWEEP__RECORD_MOVE_RULES);
            want[55] = (uint8_t)(0x80u | (rare ? 1u : 0u));
            c = want + 104;
            if (r.grounded) {
                le_vec3(c, r.ground_normal);
                le_put(c + 24, r.ground_material, 4);
                c += 28;
            }
            if (rare) {
                le_vec3(c, r.start_position);
                le_f64(c + 24, r.speed_excess);
                le_put(c + 32, r.ground_mover, 4);
                le_put(c + 36, r.pushed_by, 4);
                le_put(c + 40, r.rules & SWEEP__RECORD_MOVE_RULES, 4);
                c += 44;
            }
        }
        for (uint32_t i = 0; i < contacts; i++, c += SWEEP_RECORD_MOVE_CONTACT) {
            le_vec3(c, r.contacts[i].point);
            le_vec3(c + 24, r.contacts[i].normal);
            le_put(c + 48, r.contacts[i].triangle, 4);
            le_put(c + 52, r.contacts[i].material, 4);
        }

        uint8_t image[SWEEP__RECORD_MOVE_MAX + 16];
        memset(image, 0xa5, sizeof image);
        const int cut = sweep__record_move_cut_forgiven(&r);
        size_t n = sweep__record_move_encode(image, compact, session, mode, buttons, wish, cut, &r);
        assert_int_equal(n, (size_t)(c - want));
        for (size_t at = 0; at < sizeof image; at++)
            if (image[at] != want[at])
                fail_msg("round %u (%u contacts): byte %zu is 0x%02x, the layout's 0x%02x", round, contacts, at,
                         image[at], want[at]);
        /* Read back, it writes again to the same bytes: the forgiven
         * cut's flag is the record's own, not made of the answer. */
        sweep__move_record m;
        sweep__record_move_decode(image, n, &m);
        assert_int_equal(m.cut_forgiven, cut);
        uint8_t again[SWEEP__RECORD_MOVE_MAX];
        assert_int_equal(
            sweep__record_move_encode(again, compact, m.session, m.mode, m.buttons, m.wish, m.cut_forgiven, &m.result),
            n);
        assert_memory_equal(again, image, n);
    }
}

/* A core's output with every field drawn at random, those the image does
 * not hold too (a contact's mover and body, the ground triangle, ...). */
static void random_act(sweep_actor *a, sweep_move_result *res, uint32_t contacts, uint32_t grounded)
{
    memset(res, 0, sizeof *res);
    a->position = next_vec3();
    a->velocity = next_vec3();
    a->grounded = grounded;
    a->stance = (uint32_t)(next_u64() & 1);
    res->position = next_vec3();
    res->velocity = next_vec3();
    res->ground_normal = next_vec3();
    res->ground_triangle = (uint32_t)next_u64();
    res->ground_material = (uint32_t)next_u64();
    res->ground_mover = (uint32_t)next_u64();
    res->ground_body = (uint32_t)next_u64();
    res->flags = (uint32_t)next_u64();
    res->iterations = (uint32_t)next_u64();
    res->contact_count = contacts;
    for (uint32_t i = 0; i < contacts; i++) {
        res->contacts[i].point = next_vec3();
        res->contacts[i].normal = next_vec3();
        res->contacts[i].triangle = (uint32_t)next_u64();
        res->contacts[i].material = (uint32_t)next_u64();
        res->contacts[i].mover = (uint32_t)next_u64();
        res->contacts[i].body = (uint32_t)next_u64();
    }
}

/* The core's output of a Walk move compared where it lies is the image of
 * the result server/world/moves.c makes of it (step 7: the actor's position,
 * velocity and ground; the ground normal and material only on the
 * ground; the start, carried, pushed and pushed_by only when the movers
 * moved the entity since its last move; the core's rules), in every
 * combination of ground and movers, a cut forgiven or not; one bit
 * changed anywhere from byte 53 on is not. Its length is not its to
 * check: every reader checks a MOVE's layout first
 * (bad_move_record_is_corruption in tests/replay/test_replay.c). */
static void same_act_agrees_with_the_image(void **state)
{
    (void)state;
    for (uint32_t round = 0; round < 1600; round++) {
        int compact = round & 1;
        uint32_t contacts = (round / 2) % (SWEEP_MAX_CONTACTS + 1);
        uint32_t grounded = (round / 6) % 3; /* 0, 1, and a non-zero that is not 1 */
        uint32_t moved = (round / 18) % 4;   /* SWEEP_BODY_CARRIED and SWEEP_BODY_PUSHED bits */
        /* Every rare field zero in one round of two of those: a compact
         * image then has no rare part but when the movers moved it. */
        int plain = (round / 72) % 2;
        sweep_actor a;
        sweep_move_result res;
        random_act(&a, &res, contacts, grounded);
        uint32_t rules = (uint32_t)next_u64() & SWEEP__RECORD_MOVE_RULES;
        double speed_excess = next_f64();
        uint32_t blocked = (uint32_t)(next_u64() & 1);
        /* A cut forgiven: time cut, TimeBudget not named (the server's). */
        uint32_t cut = (uint32_t)(next_u64() & 1);
        uint32_t ground_mover = (uint32_t)next_u64(), pushed_by = (uint32_t)next_u64();
        sweep_vec3 start = next_vec3();
        if (plain)
            rules = 0, speed_excess = 0.0, ground_mover = 0, pushed_by = 0;

        sweep_msg_move_result r;
        memset(&r, 0, sizeof r);
        r.entity = (uint32_t)next_u64();
        r.sequence = (uint32_t)next_u64();
        r.applied_dt = next_f64();
        r.position = a.position;
        r.velocity = a.velocity;
        r.grounded = a.grounded != 0;
        if (a.grounded) {
            r.ground_normal = res.ground_normal;
            r.ground_material = res.ground_material;
        }
        r.contact_count = contacts;
        for (uint32_t i = 0; i < contacts; i++) {
            r.contacts[i] = res.contacts[i];
            r.contacts[i].mover = UINT32_MAX;
            r.contacts[i].body = UINT32_MAX;
        }
        r.ground_mover = ground_mover;
        if (moved) {
            r.carried = (moved & SWEEP_BODY_CARRIED) != 0;
            r.pushed = (moved & SWEEP_BODY_PUSHED) != 0;
            r.pushed_by = pushed_by;
            r.has_start_position = true;
            r.start_position = start;
        }
        r.rules = rules | SWEEP_WIRE_RULE_CORRECTION; /* the server's own bits are not in the image */
        r.time_excess = cut || (round & 4) ? 0.25 : 0.0;
        if (!cut && (round & 4))
            r.rules |= SWEEP_WIRE_RULE_TIME_BUDGET; /* cut and named: not forgiven */
        r.speed_excess = speed_excess;
        r.crouched = a.stance != 0;
        r.stance_blocked = blocked != 0;
        uint8_t image[SWEEP__RECORD_MOVE_MAX + SWEEP_RECORD_MOVE_CONTACT];
        size_t n = sweep__record_move_encode(image, compact, next_u64(), SWEEP_WIRE_MODE_WALK, (uint32_t)next_u64(),
                                             next_vec3(), (int)cut, &r);
        assert_int_equal(sweep__record_move_check(image, n, compact, (char[160]){0}, 160), 0);
#define SAME()                                                                                                 \
    sweep__record_move_same_act_in(image, compact, &a, &res, rules, speed_excess, blocked, cut, ground_mover, moved, \
                                   pushed_by, &start)
        if (!SAME())
            fail_msg("round %u (%s, grounded %u, moved %u, %u contacts): the image differs", round,
                     compact ? "compact" : "full", grounded, moved, contacts);
        /* A changed image is refused by the layout check every reader
         * makes first (the other layout's byte 55, say) or is not the
         * same. */
        for (size_t at = 53; at < n; at++) {
            for (int bit = 0; bit < 8; bit++) {
                image[at] ^= (uint8_t)(1u << bit);
                if (sweep__record_move_ok(image, n, compact) && SAME())
                    fail_msg("round %u: byte %zu bit %d changed, still the same", round, at, bit);
                image[at] ^= (uint8_t)(1u << bit);
            }
        }
        /* Another count of contacts, its length made to match (as every
         * reader checks a MOVE's), is not the same either. */
        if (contacts < SWEEP_MAX_CONTACTS) {
            image[54]++;
            assert_false(SAME());
            image[54]--;
        }
        assert_true(SAME());
#undef SAME
    }
}

/* The compact layout's check refuses what the writer never writes, each
 * with its reason: an image whose byte 55 is another layout's, a rare part
 * of zeros, a move that started elsewhere without its rare part, a length
 * its flags do not make. */
static void compact_check_refuses_what_no_writer_makes(void **state)
{
    (void)state;
    sweep_msg_move_result r;
    random_result(&r, 1);
    r.grounded = 1;
    r.has_start_position = 1;
    uint8_t image[SWEEP__RECORD_MOVE_MAX];
    char why[160];
    size_t n = sweep__record_move_encode(image, 1, 7, SWEEP_WIRE_MODE_WALK, 0, sweep_v3(1, 0, 0), 0, &r);
    assert_int_equal(n, 104u + 28u + 44u + SWEEP_RECORD_MOVE_CONTACT);
    assert_int_equal(sweep__record_move_check(image, n, 1, why, sizeof why), 0);
    assert_true(sweep__record_move_ok(image, n, 1));

    /* The rare part's fields all zero, and the move did not start
     * elsewhere: the writer leaves that part out. */
    uint8_t bad[SWEEP__RECORD_MOVE_MAX];
    memcpy(bad, image, n);
    bad[53] &= (uint8_t)~SWEEP__RECORD_MOVE_START;
    memset(bad + 104 + 28, 0, 44);
    assert_int_equal(sweep__record_move_check(bad, n, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "rare part"));
    assert_false(sweep__record_move_ok(bad, n, 1));

    /* Started elsewhere, but no rare part: its length then says 132. */
    memcpy(bad, image, n);
    bad[55] = SWEEP__RECORD_MOVE_COMPACT;
    memmove(bad + 132, bad + 176, SWEEP_RECORD_MOVE_CONTACT);
    assert_int_equal(sweep__record_move_check(bad, n - 44, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "started elsewhere"));
    assert_false(sweep__record_move_ok(bad, n - 44, 1));

    /* Byte 55 of the full layout in a compact log, and the other way. */
    memcpy(bad, image, n);
    bad[55] = 0;
    assert_int_equal(sweep__record_move_check(bad, n, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, "byte 55"));
    assert_false(sweep__record_move_ok(bad, n, 1));
    assert_int_equal(sweep__record_move_check(image, n, 0, why, sizeof why), -1);
    assert_false(sweep__record_move_ok(image, n, 0));

    /* A length one contact short of what its bytes make. */
    assert_int_equal(sweep__record_move_check(image, n - SWEEP_RECORD_MOVE_CONTACT, 1, why, sizeof why), -1);
    assert_false(sweep__record_move_ok(image, n - SWEEP_RECORD_MOVE_CONTACT, 1));

    /* What it holds reads back, and writes again to the same bytes. */
    sweep__move_record m;
    sweep__record_move_decode(image, n, &m);
    assert_int_equal(m.session, 7);
    assert_memory_equal(&m.result.start_position, &r.start_position, sizeof r.start_position);
    assert_memory_equal(&m.result.ground_normal, &r.ground_normal, sizeof r.ground_normal);
    uint8_t again[SWEEP__RECORD_MOVE_MAX];
    assert_int_equal(sweep__record_move_encode(again, 1, m.session, m.mode, m.buttons, m.wish, m.cut_forgiven, &m.result),
                     n);
    assert_memory_equal(again, image, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_image_is_the_layout),
        cmocka_unit_test(same_output_agrees_with_the_image),
        cmocka_unit_test(same_act_agrees_with_the_image),
        cmocka_unit_test(compact_check_refuses_what_no_writer_makes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
