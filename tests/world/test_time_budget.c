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

    /* Three ticks do not pay for five: each tick pays its period and the
     * clocks' drift allowance, which the five left over too. */
    wf_ticks(s.w, s.r, 3);
    r = walk(&s, 4, n * period);
    assert_true(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET);
    assert_true(fabs(r.applied_dt - (n + 3) * period * (1.0 + SWEEP__CLOCK_DRIFT) + n * period) < 1e-9);

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

/* What a client playing `seconds` of the server's time got: it sends a
 * move every 1/60 s of its own clock, whose seconds are 1 / (1 + fast) of
 * the server's, asking `ask` times the 1/60 s its clock measured; each
 * arrives 0 to 30 ms after it was sent (in order, as over TCP) and meets
 * the ticks due by then, as sweepd runs them. Those sent in [stall_at,
 * stall_at + stall) are held by its network and handed over at its end
 * (with the same jitter); it sends none before `start` (a wait after its
 * Spawn). */
typedef struct drift_run {
    unsigned moves, cut;   /* moves applied, and named TimeBudget */
    unsigned short_of;     /* moves granted less than they asked, named or not */
    double first_cut_s;    /* the server's time of the first cut, -1: none */
    double asked, granted; /* seconds */
    double granted_after;  /* seconds granted to the moves sent from stall_at on */
} drift_run;

static drift_run play(double fast, double ask, double seconds, double start, double stall_at, double stall,
                      uint64_t seed)
{
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const double frame = 1.0 / 60.0, period = s.w->period_s;
    drift_run run = {0, 0, 0, -1.0, 0.0, 0.0, 0.0};
    uint64_t rng = seed;
    double arrived = 0.0;
    for (uint32_t k = 1;; k++) {
        double sent = k * frame / (1.0 + fast);
        if (sent > seconds)
            break;
        if (sent < start)
            continue;
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        double jitter = 0.030 * (double)(rng >> 11) / 9007199254740992.0;
        double at = (sent >= stall_at && sent < stall_at + stall ? stall_at + stall : sent) + jitter;
        arrived = at > arrived ? at : arrived;
        while ((double)(s.w->tick + 1) * period <= arrived)
            wf_ticks(s.w, s.r, 1);
        sweep_msg_move_result r = walk(&s, k, ask * frame);
        run.moves++;
        run.asked += ask * frame;
        run.granted += r.applied_dt;
        run.short_of += r.applied_dt < ask * frame;
        if (sent >= stall_at)
            run.granted_after += r.applied_dt;
        if (r.rules & SWEEP_WIRE_RULE_TIME_BUDGET) {
            run.cut++;
            if (run.first_cut_s < 0.0)
                run.first_cut_s = arrived;
        }
    }
    wf_one_close(&s);
    return run;
}

static drift_run play_drifting(double fast, double ask, double seconds)
{
    return play(fast, ask, seconds, 0.0, seconds + 1.0, 0.0, 2026);
}

/* A stall of the client's network of 0.3 and 0.45 s (a TCP
 * retransmission; the default bank is 0.25 s): its moves arrive at once,
 * and what the bank cannot hold is cut, but not named TimeBudget (before
 * the stall's allowance they were named 4 and 13 times). One of a second
 * (a lag switch) is named, beyond the bank's worth of cut time the stall
 * explains; none of them gains a moment beyond the bank. */
static void a_network_stall_is_cut_but_not_named(void **state)
{
    (void)state;
    const double bank = 0.25, credit = 1.0 / 60.0 * (1.0 + SWEEP__CLOCK_DRIFT);
    const double stalls[] = {0.3, 0.45, 1.0, 0.3, 0.45};
    for (unsigned i = 0; i < 5; i++) {
        /* The last two wait 0.3 s after the Spawn: a silence that needs
         * nothing forgiven does not spend the stall's allowance. */
        drift_run r = play(0.0, 1.0, 8.0, i >= 3 ? 0.3 : 0.0, 5.0, stalls[i], 7);
        /* From the stall to the end, at most the bank and the ticks' credit. */
        double most = bank + (8.0 - 5.0 + 0.05) * 60.0 * credit;
        if (r.short_of == 0 || r.granted_after > most + 1e-9)
            fail_msg("a stall of %g s: %u moves cut, %.6f s granted after it (at most %.6f)", stalls[i], r.short_of,
                     r.granted_after, most);
        if (stalls[i] < 2.0 * bank ? r.cut != 0 : r.cut == 0)
            fail_msg("a stall of %g s: %u moves cut, %u named TimeBudget", stalls[i], r.short_of, r.cut);
    }
}

/* Five minutes of a clock 0.1% and 0.3% fast: 0.3 s and 0.9 s more asked
 * than the ticks' periods hold, past the bank of 0.25 s, all granted. */
static void a_client_clock_running_fast_is_never_cut(void **state)
{
    (void)state;
    const double fast[] = {0.001, 0.003};
    for (unsigned i = 0; i < sizeof fast / sizeof fast[0]; i++) {
        drift_run run = play_drifting(fast[i], 1.0, 300.0);
        if (run.cut)
            fail_msg("a clock %g%% fast: %u of %u moves cut, the first at %.1f s", 100.0 * fast[i], run.cut,
                     run.moves, run.first_cut_s);
        assert_true(run.moves > 300 * 60);
        assert_true(run.granted == run.asked);
        assert_true(run.asked - 300.0 > 0.25); /* the drift passed the bank */
    }
}

/* Asking twice the time that passed: cut once the bank is spent, named
 * on most moves (one that arrives late finds two ticks' credit and is
 * granted whole), and granted no more than the ticks credit (the server's
 * time and the drift allowance) and the bank it started with. */
static void asking_twice_the_time_is_still_cut(void **state)
{
    (void)state;
    const double seconds = 60.0;
    drift_run run = play_drifting(0.0, 2.0, seconds);
    fprintf(stderr, "twice: %u moves, %u cut, first at %.3f s; asked %.3f s, granted %.3f s\n", run.moves, run.cut,
            run.first_cut_s, run.asked, run.granted);
    assert_true(run.first_cut_s >= 0.0 && run.first_cut_s < 0.5);
    assert_true(run.cut > run.moves / 2);
    assert_true(run.granted <= (seconds + 0.04) * (1.0 + SWEEP__CLOCK_DRIFT) + 0.25 + 1e-6 * run.moves);
    assert_true(run.granted < 0.51 * run.asked);
}

/* A stall is forgiven once in ten seconds, a bank's worth of cut time: a
 * lag switch held 0.45 s (under twice the bank, so one hold alone would
 * go unnamed) forty times over 18 s has at most two banks' worth of its
 * cut time unnamed (of about 8 s cut); a client asking 0.5 s with each
 * move four times a second (twice the time that passes, each move after
 * a silence of the bank) is named on all but one move in ten seconds.
 * The stall's state is in the state hash. */
static void a_repeated_stall_is_named(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const double frame = 1.0 / 60.0;
    uint32_t seq = 1;
    double cut_s = 0.0, unnamed_s = 0.0;
    for (int c = 0; c < 40; c++) {
        wf_ticks(s.w, s.r, 27);
        unsigned cut = 0;
        for (unsigned k = 0; k < 27; k++) {
            sweep_msg_move_result r = walk(&s, seq++, frame);
            cut += r.applied_dt < frame;
            cut_s += r.time_excess;
            if (!(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET))
                unnamed_s += r.time_excess;
        }
        assert_true(cut > 0);
    }
    if (!(cut_s > 7.0 && unnamed_s <= 2 * 0.25 + 1e-9))
        fail_msg("a lag switch held 0.45 s forty times: %.3f s cut, %.3f s of it unnamed", cut_s, unnamed_s);
    sweep__entity *e = (sweep__entity *)sweep__world_entity(s.w, &s.o, s.sp.entity);
    assert_non_null(e);
    assert_true(e->stall_until != 0);
    /* Its cuts were forgiven without a gap: they opened a refused Jump's
     * window as a gap does, and a claims' grace, which is hashed on its
     * own (checked with the window's field, hashed apart, taken away). */
    assert_true(e->st.gap_grace_until != 0);
    e->st.gap_grace_until = 0;
    assert_true(e->claim_grace_until != 0);
    uint64_t h = sweep__world_state_hash(s.w);
    uint64_t *ticks[] = {&e->stall_until, &e->stall_next, &e->claim_grace_until, &e->gap_tick};
    for (int i = 0; i < 4; i++) {
        (*ticks[i])++;
        assert_int_not_equal(sweep__world_state_hash(s.w), h);
        (*ticks[i])--;
    }
    double *reals[] = {&e->stall_forgive, &e->gap_reach};
    for (int i = 0; i < 2; i++) {
        *reals[i] += 0.001;
        assert_int_not_equal(sweep__world_state_hash(s.w), h);
        *reals[i] -= 0.001;
    }
    wf_one_close(&s);

    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    unsigned named = 0;
    for (uint32_t k = 1; k <= 200; k++) {
        wf_ticks(s.w, s.r, 15);
        sweep_msg_move_result r = walk(&s, k, 0.5);
        assert_true(r.applied_dt < 0.5);
        named += (r.rules & SWEEP_WIRE_RULE_TIME_BUDGET) != 0;
    }
    /* 3,000 ticks, 50 s: five or six windows. */
    if (named < 194)
        fail_msg("asking twice the time at four moves a second: %u of 200 cut moves named", named);
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_move_past_the_bank_is_cut_and_ticks_credit_it_back),
        cmocka_unit_test(the_server_role_is_granted_what_it_asks),
        cmocka_unit_test(a_client_clock_running_fast_is_never_cut),
        cmocka_unit_test(a_network_stall_is_cut_but_not_named),
        cmocka_unit_test(a_repeated_stall_is_named),
        cmocka_unit_test(asking_twice_the_time_is_still_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
