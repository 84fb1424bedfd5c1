/*
 * test_record_results.c - the RESULTS record's rare fields
 * (server/record/record_results.h): a result's movers, volume ids,
 * damage, liquid fields and ladder are written only when one of them is
 * set, and the test of "any of them set" reads them together rather than
 * one by one. Each of them set alone, in every bit of its value, must be
 * written under its own mask bit and read back as it was; none set, none
 * written. Each payload also goes through an ANSWER (version 7) and back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/record/record_results.h"

static uint8_t buf[1u << 14], answer[1u << 14], again[1u << 14];

/* The payload p (len bytes) of a MoveResult to session 3 at `tick`, as an
 * ANSWER and back: the same bytes; only that session and tick fit. */
static void answer_round_trip(const uint8_t *p, size_t len, uint32_t sequence, uint64_t tick)
{
    assert_true(sweep__record_answer_fits(p, 3, tick));
    assert_false(sweep__record_answer_fits(p, 4, tick));
    assert_false(sweep__record_answer_fits(p, 3, tick + 1));
    assert_false(sweep__record_answer_fits(p, 3, tick ^ (1ull << 40)));
    memcpy(answer, p, len);
    size_t alen = sweep__record_answer_from(answer, len);
    assert_int_equal(alen + SWEEP__RECORD_ANSWER_GROWS, len);
    assert_int_equal(sweep__rd32(answer), sequence);
    assert_memory_equal(answer + SWEEP__RECORD_ANSWER_FIXED, p + SWEEP__RESULTS_FIXED, len - SWEEP__RESULTS_FIXED);
    memset(again, 0xa5, len);
    assert_int_equal(sweep__record_answer_expand(answer, alen, 3, tick, again), len);
    assert_memory_equal(again, p, len);
    /* The lean loop's test passes only what the readers' does. */
    if (sweep__record_answer_common(answer, alen))
        assert_true(sweep__record_results_ok(p, len, 1));
}

/* The payload of a lone MoveResult r (no MOVE record: its image held
 * whole), checked and read back into *back, in the compact layout of
 * version 6 and in the full one before it (the two read back alike); the
 * result's mask. */
static uint32_t round_trip(const sweep_msg_move_result *r, sweep_msg_move_result *back)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT;
    m.sequence = 7;
    m.server_tick = r->server_tick;
    m.as.move_result = *r;
    assert_true(sweep__record_results_bound(1) <= sizeof buf);
    sweep_msg_move_result full;
    for (int compact = 0; compact < 2; compact++) {
        size_t len = sweep__record_results_encode(buf, compact, 3, &m, NULL);
        char why[200] = "";
        if (sweep__record_results_check(buf, len, compact, why, sizeof why) != 0)
            fail_msg("payload refused (%s layout): %s", compact ? "compact" : "full", why);
        assert_true(sweep__record_results_ok(buf, len, compact));
        assert_false(sweep__record_results_ok(buf, len, !compact));
        if (compact)
            answer_round_trip(buf, len, m.sequence, m.server_tick);
        sweep_message out;
        uint32_t taken = 0;
        assert_int_equal(
            sweep__record_results_rebuild(buf, len, NULL, NULL, 0, &taken, &out, compact ? back : &full, why,
                                          sizeof why),
            0);
        assert_int_equal(out.kind, SWEEP_MSG_MOVE_RESULT);
    }
    assert_memory_equal(back, &full, sizeof full);
    return sweep__rd32(buf + SWEEP__RESULTS_FIXED);
}

static void base_result(sweep_msg_move_result *r)
{
    memset(r, 0, sizeof *r);
    r->entity = 11;
    r->sequence = 12;
    r->server_tick = 99;
    r->position = sweep_v3(1, 2, 3);
    r->applied_dt = 1.0 / 60.0;
}

#define RARE_BITS (SWEEP__RESULTS_MASK & ~(uint32_t)((SWEEP__RESULTS_TELEPORT_BLOCKED) | ((1u << 6) - 1u)))

static void none_set_none_written(void **state)
{
    (void)state;
    sweep_msg_move_result r, back;
    base_result(&r);
    r.contact_count = 2;
    r.contacts[0].mover = r.contacts[1].mover = 0;
    r.teleport_blocked = true; /* a flag of its own, not one of the rare fields */
    r.crouched = r.stance_blocked = true;
    uint32_t mask = round_trip(&r, &back);
    assert_int_equal(mask & RARE_BITS, 0);
    assert_true(mask & SWEEP__RESULTS_TELEPORT_BLOCKED);
}

/* Field f of a result (a u32), by its place among the rare ones. */
typedef struct rare_u32 {
    size_t offset;
    uint32_t bit;
    const char *name;
} rare_u32;

static const rare_u32 rare[] = {
    {offsetof(sweep_msg_move_result, launched_by), 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + 0), "launched_by"},
    {offsetof(sweep_msg_move_result, teleported_by), 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + 1), "teleported_by"},
    {offsetof(sweep_msg_move_result, hurt_by), 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + 2), "hurt_by"},
    {offsetof(sweep_msg_move_result, killed_by), 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + 3), "killed_by"},
    {offsetof(sweep_msg_move_result, entered), 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + 4), "entered"},
    {offsetof(sweep_msg_move_result, left), 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + 5), "left"},
    {offsetof(sweep_msg_move_result, liquid), 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + 0), "liquid"},
    {offsetof(sweep_msg_move_result, liquid_type), 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + 1), "liquid_type"},
    {offsetof(sweep_msg_move_result, liquid_level), 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + 2), "liquid_level"},
    {offsetof(sweep_msg_move_result, entered_liquid), 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + 3), "entered_liquid"},
    {offsetof(sweep_msg_move_result, left_liquid), 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + 4), "left_liquid"},
    {offsetof(sweep_msg_move_result, ladder), 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + 5), "ladder"},
};

static void each_u32_alone(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof rare / sizeof rare[0]; f++) {
        for (unsigned b = 0; b < 32; b++) {
            sweep_msg_move_result r, back;
            base_result(&r);
            uint32_t v = 1u << b;
            memcpy((uint8_t *)&r + rare[f].offset, &v, sizeof v);
            uint32_t mask = round_trip(&r, &back);
            if ((mask & RARE_BITS) != rare[f].bit)
                fail_msg("%s = 0x%x: mask 0x%x, not its bit 0x%x alone", rare[f].name, v, mask & RARE_BITS,
                         rare[f].bit);
            uint32_t got;
            memcpy(&got, (const uint8_t *)&back + rare[f].offset, sizeof got);
            assert_int_equal(got, v);
        }
    }
}

static void damage_alone(void **state)
{
    (void)state;
    for (unsigned b = 0; b < 64; b++) {
        sweep_msg_move_result r, back;
        base_result(&r);
        uint64_t bits = 1ull << b; /* -0.0 and subnormals too: any bit counts */
        memcpy(&r.damage, &bits, sizeof bits);
        uint32_t mask = round_trip(&r, &back);
        assert_int_equal(mask & RARE_BITS, SWEEP__RESULTS_DAMAGE);
        assert_memory_equal(&back.damage, &r.damage, sizeof r.damage);
    }
}

static void a_mover_alone(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= SWEEP_MAX_CONTACTS; n++) {
        for (uint32_t i = 0; i < n; i++) {
            sweep_msg_move_result r, back;
            base_result(&r);
            r.contact_count = n;
            r.contacts[i].mover = 1u << (i * 3);
            uint32_t mask = round_trip(&r, &back);
            assert_int_equal(mask & RARE_BITS, SWEEP__RESULTS_MOVERS);
            assert_int_equal(back.contact_count, n);
            assert_int_equal(back.contacts[i].mover, r.contacts[i].mover);
        }
    }
}

/* Only a lone MoveResult may be an ANSWER, and the lean loop's test takes
 * the two common forms of its result (nothing but flags; the movers of its
 * contacts, as many as they say) and nothing else. */
static void an_answer_is_a_lone_move_result(void **state)
{
    (void)state;
    sweep_msg_move_result rs[2];
    base_result(&rs[0]);
    base_result(&rs[1]);
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
    m.server_tick = 99;
    m.as.move_result_batch.results = rs;
    for (uint32_t n = 1; n <= 2; n++) {
        m.as.move_result_batch.count = n;
        size_t len = sweep__record_results_encode(buf, 1, 3, &m, NULL);
        assert_int_equal(sweep__record_results_check(buf, len, 1, NULL, 0), 0);
        assert_false(sweep__record_answer_fits(buf, 3, 99));
    }
    static const struct {
        uint32_t mask, movers, words; /* words: u32s after the mask */
        int common;
    } forms[] = {
        {0, 0, 0, 1},
        {SWEEP__RESULTS_CORRECTED | SWEEP__RESULTS_TELEPORT_BLOCKED, 0, 0, 1},
        {SWEEP__RESULTS_MOVERS, 2, 3, 1},
        {SWEEP__RESULTS_MOVERS | SWEEP__RESULTS_CORRECTED, SWEEP_MAX_CONTACTS, 1 + SWEEP_MAX_CONTACTS, 1},
        {SWEEP__RESULTS_MOVERS, 2, 2, 0},  /* cut short */
        {SWEEP__RESULTS_MOVERS, 0, 1, 0},  /* no mover */
        {SWEEP__RESULTS_MOVERS, SWEEP_MAX_CONTACTS + 1, 2 + SWEEP_MAX_CONTACTS, 0},
        {SWEEP__RESULTS_RULES, 0, 1, 0},   /* for the full check */
        {SWEEP__RESULTS_CORRECTED | SWEEP__RESULTS_RULES, 0, 0, 0},
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        memset(answer, 0, sizeof answer);
        sweep__wr32(answer, 5); /* Message.sequence */
        sweep__wr32(answer + 4, forms[f].mask);
        if (forms[f].words)
            sweep__wr32(answer + 8, forms[f].movers);
        size_t alen = 8 + 4 * (size_t)forms[f].words;
        if (sweep__record_answer_common(answer, alen) != forms[f].common)
            fail_msg("form %zu: the lean test says %d", f, !forms[f].common);
    }
    assert_false(sweep__record_answer_common(answer, 7)); /* no whole mask */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(none_set_none_written),
        cmocka_unit_test(each_u32_alone),
        cmocka_unit_test(damage_alone),
        cmocka_unit_test(a_mover_alone),
        cmocka_unit_test(an_answer_is_a_lone_move_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
