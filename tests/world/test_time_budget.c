/*
 * test_time_budget.c - who owns time (step 5 of server/world/moves.c): a
 * player's entity pays each move's dt from a budget that the world's
 * ticks credit, one tick period each, up to the time bank. A move asking
 * more than the budget holds is cut to what it holds (rule TimeBudget,
 * the rest in time_excess) and runs for that long; the server role is
 * granted what it asks.
 */
#include "tests/world/world_fixture.h"

#define BANK 0.1

static void open_with_bank(wf_one *s, uint32_t role)
{
    sweep__world_options opt = wf_options();
    opt.time_bank = BANK;
    wf_one_spawned(s, &opt, role);
}

static sweep_msg_move_result walk(wf_one *s, uint32_t sequence, double dt)
{
    sweep_message m = wf_move_msg(s->sp.entity, sequence, sweep_v3(2, 1, 0), dt);
    return wf_move(s->w, &s->o, s->r, &m);
}

static void a_move_past_the_bank_is_cut_and_ticks_credit_it_back(void **state)
{
    (void)state;
    wf_one s;
    open_with_bank(&s, SWEEP_WIRE_ROLE_PLAYER);
    const double period = s.w->period_s;
    assert_true(period == 1.0 / 60.0); /* the arena's tick rate */

    /* A new entity's bank is full: a move of 0.3 s gets 0.1 of it. */
    sweep_actor twin = {s.sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    sweep_msg_move_result r = walk(&s, 1, 0.3);
    assert_true(r.applied_dt == BANK);
    assert_true(r.time_excess == 0.3 - BANK);
    assert_true(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);
    /* And it ran for what it was granted: the core's motion over 0.1 s. */
    sweep_space space = {s.w->world, s.w->movers, NULL, SWEEP_NO_BODY};
    sweep_wish wish = {sweep_v3(2, 1, 0), 0};
    assert_int_equal(sweep_act(&space, &s.w->level.config, &s.w->level.rules, s.sp.radii, &twin, &wish, BANK, NULL),
                     SWEEP_OK);
    assert_memory_equal(&r.position, &twin.position, sizeof twin.position);

    /* Spent, and no tick since: a tick's worth is cut to nothing, and
     * nothing moves. */
    sweep_vec3 at = r.position;
    r = walk(&s, 2, period);
    assert_true(r.applied_dt < period);
    assert_true(r.applied_dt == 0.0);
    assert_true(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);
    assert_memory_equal(&r.position, &at, sizeof at);

    /* N ticks later a move of N periods is granted whole. */
    const unsigned n = 5;
    wf_ticks(s.w, s.r, n);
    r = walk(&s, 3, n * period);
    assert_true(r.applied_dt == n * period);
    assert_true(r.time_excess == 0.0);
    assert_false(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);

    /* Three ticks do not pay for five. */
    wf_ticks(s.w, s.r, 3);
    r = walk(&s, 4, n * period);
    assert_true(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);
    assert_true(fabs(r.applied_dt - 3 * period) < 1e-9);

    /* However long the wait, the bank holds at most BANK. */
    wf_ticks(s.w, s.r, 600);
    r = walk(&s, 5, 0.5);
    assert_true(r.applied_dt == BANK);
    assert_true(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);

    /* Every cut counted for the owner and the world. */
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_TIME_BUDGET_BIT], 4);
    assert_int_equal(s.w->counts.rules_total[SWEEP_WIRE_RULE_TIME_BUDGET_BIT], 4);
    wf_one_close(&s);
}

static void the_server_role_is_granted_what_it_asks(void **state)
{
    (void)state;
    wf_one s;
    open_with_bank(&s, SWEEP_WIRE_ROLE_SERVER);
    for (int i = 0; i < 3; i++) {
        sweep_msg_move_result r = walk(&s, (uint32_t)i + 1, 0.3);
        assert_true(r.applied_dt == 0.3);
        assert_false(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);
    }
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_TIME_BUDGET_BIT], 0);
    assert_int_equal(s.w->counts.moves_total, 3);
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_move_past_the_bank_is_cut_and_ticks_credit_it_back),
        cmocka_unit_test(the_server_role_is_granted_what_it_asks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
