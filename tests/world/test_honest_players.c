/*
 * test_honest_players.c - honest players are never flagged: 100,000 moves
 * of honest bots with natural wishes (walk_speed * (cos a, sin a) on
 * headings that turn every move, jumping about once a second), predicting
 * every move with libsweep and claiming the prediction, through 5% loss
 * each way, 0-30 ms of jitter, 5% of datagrams held back to be overtaken
 * and three earlier moves carried in every datagram (honest_sim.h), and
 * the world names no rule at all: no Speed for rounding, no Jump after a
 * lost landing, no Correction after a lost move, no TimeBudget for
 * jitter. The network is checked to have been as bad as asked, and some
 * moves lost altogether, so the gaps' grace was met.
 */
#include "tests/world/world_fixture.h"

#include "tests/world/honest_sim.h"

/* Runs the bots of o into *r, saying which rules were named, if any. */
static void run_honest(const hs_options *o, hs_report *r)
{
    hs_run(wf_arena(), o, r);
    if (r->error[0])
        fail_msg("%s", r->error);
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
        if (r->rules[i])
            fprintf(stderr, "  rule %s named %llu times\n", sweep_wire_rule_name(i), (unsigned long long)r->rules[i]);
}

static void honest_players_are_never_flagged(void **state)
{
    (void)state;
    hs_options o = {.bots = 20, .moves = 5000, .loss = 0.05, .jitter_ms = 30, .reorder = 0.05, .redundancy = 3,
                    .seed = 2026};
    hs_report r;
    run_honest(&o, &r);
    fprintf(stderr, "honest: sent=%llu applied=%llu answered=%llu lost=%llu jumps=%llu datagrams=%llu dropped=%llu "
                    "reordered=%llu flagged=%llu\n",
            (unsigned long long)r.sent, (unsigned long long)r.applied, (unsigned long long)r.answered,
            (unsigned long long)r.lost, (unsigned long long)r.jumps, (unsigned long long)r.datagrams,
            (unsigned long long)r.dropped, (unsigned long long)r.reordered, (unsigned long long)r.flagged);
    assert_true(r.sent == 100000);
    assert_true(r.applied >= 99900);
    assert_true(r.answered >= 99000);
    assert_true(r.jumps >= 1000);
    assert_true(r.dropped >= 0.04 * (double)r.datagrams);
    assert_true(r.reordered >= 0.04 * (double)(r.datagrams - r.dropped));
    assert_true(r.lost >= 1);
    assert_int_equal(r.flagged, 0);
}

/* Without redundancy every lost datagram loses a move (about 5% of
 * them): each a gap of the sequences, whose grace must forgive what the
 * honest client predicted, Jumps after lost landings included. */
static void honest_players_losing_moves_are_never_flagged(void **state)
{
    (void)state;
    hs_options o = {.bots = 20, .moves = 2000, .loss = 0.05, .jitter_ms = 30, .reorder = 0.05, .redundancy = 0,
                    .seed = 7};
    hs_report r;
    run_honest(&o, &r);
    assert_true(r.lost >= 0.03 * (double)r.sent);
    assert_int_equal(r.flagged, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest_players_are_never_flagged),
        cmocka_unit_test(honest_players_losing_moves_are_never_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
