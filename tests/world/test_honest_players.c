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
 * moves lost altogether, so the gaps' grace was met. With players
 * blocking each other, a player pressing into another, whom its client
 * cannot predict, is not named Correction either.
 */
#include "tests/world/world_fixture.h"

#include "tests/world/honest_sim.h"

#include "core/crowd.h"

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

/* A client hears of its lost moves a round trip after the server, and
 * claims its old prediction until then: at 5% loss without redundancy,
 * round trips of about 0.5 and 0.6 s (each way 250 and 300 ms, and up to
 * 30 of jitter), three seeds. Before the claims' grace lasted until the
 * client heard, these were named Correction 1, 3, 0 and 2, 1, 6 times.
 * (At 400 ms each way 5, 1, 1 remain, from 37, 43, 54: a refused jump's
 * prediction runs on for the round trip, which no reach covers.) */
static void honest_players_far_away_are_never_flagged(void **state)
{
    (void)state;
    const double latency_ms[] = {250, 300};
    const uint64_t seeds[] = {7, 8, 9};
    for (unsigned i = 0; i < sizeof latency_ms / sizeof latency_ms[0]; i++)
        for (unsigned k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
            hs_options o = {.bots = 20, .moves = 2000, .loss = 0.05, .jitter_ms = 30, .latency_ms = latency_ms[i],
                            .reorder = 0.05, .redundancy = 0, .seed = seeds[k]};
            hs_report r;
            run_honest(&o, &r);
            assert_true(r.lost >= 0.03 * (double)r.sent);
            if (r.flagged)
                fail_msg("%g ms each way, seed %llu: %llu rules named", latency_ms[i], (unsigned long long)seeds[k],
                         (unsigned long long)r.flagged);
        }
}

/* A network that holds everything for 0.3 or 0.45 s (under twice the
 * time bank) once, 5 s into 20 s of play, and hands it over at once in
 * order (as over TCP; without loss, 10 ms of jitter): the moves that
 * waited ask more than the bank, and are cut, unnamed; the claims
 * predicted for the whole moves are forgiven as lost moves' are, and so
 * are the moves just after, which find the bank empty and arrive a little
 * early, and so is a Jump pressed where a cut move's prediction landed
 * and the server's did not, as after lost moves. Before that (20 bots,
 * 24,000 moves) 1 and 2 cuts were named TimeBudget and 38 and 218 claims
 * Correction, and then 9 Jumps at 0.45 s. */
static void honest_players_through_a_stalled_network_are_not_flagged(void **state)
{
    (void)state;
    const double stalls[] = {0.3, 0.45};
    for (unsigned i = 0; i < 2; i++) {
        hs_options o = {.bots = 20, .moves = 1200, .loss = 0.0, .jitter_ms = 10, .reorder = 0.0, .redundancy = 0,
                        .seed = 11, .stall_at = 5.0, .stall = stalls[i], .in_order = 1};
        hs_report r;
        run_honest(&o, &r);
        if (r.flagged)
            fail_msg("a stall of %g s: %llu rules named", stalls[i], (unsigned long long)r.flagged);
    }
}

#define CROWD_MOVES 600u

typedef struct crowd_client {
    sweep__owner o;
    sweep_msg_spawned sp;
    sweep_predictor *p;
    unsigned lag; /* answers on their way back: a move's result reaches the client `lag` ticks after it */
    sweep_msg_move_result sent[CROWD_MOVES + 1]; /* by sequence: its answer, when it arrives */
} crowd_client;

/* One move of c at the current tick: the answers due by now taken, the
 * move predicted with libsweep and claimed (off by `off` along x), its
 * answer kept for c->lag ticks later. Returns the answer. */
static sweep_msg_move_result crowd_move(sweep__world *w, wf_rec *r, crowd_client *c, uint32_t seq, sweep_vec3 wish,
                                        double off)
{
    for (uint32_t k = 1; k < seq; k++)
        if (k + c->lag == seq)
            assert_int_equal(sweep_predictor_ack(c->p, &c->sent[k], NULL, NULL), SWEEP_CLIENT_OK);
    sweep_wish ws = {wish, 0};
    sweep_client_error err;
    assert_int_equal(sweep_predictor_step(c->p, seq, &ws, 1.0 / 60.0, NULL, &err), SWEEP_CLIENT_OK);
    sweep_message m = wf_move_msg(c->sp.entity, seq, wish, 1.0 / 60.0);
    m.as.move.has_claimed_position = true;
    m.as.move.claimed_position = sweep_predictor_current(c->p).position;
    m.as.move.claimed_position.x += off;
    sweep_msg_move_result res = wf_move(w, &c->o, r, &m);
    c->sent[seq] = res;
    return res;
}

/* Whether a move's answer has another body's shell among its contacts
 * (the wire says which by the shell's triangle number). */
static int touches_a_body(const sweep_msg_move_result *res)
{
    for (uint32_t i = 0; i < res->contact_count; i++)
        if (sweep_crowd_slot_of_triangle(res->contacts[i].triangle) != SWEEP_NO_BODY)
            return 1;
    return 0;
}

/* Players block each other (--players-block on), and a client cannot
 * predict another player: walking into one, its claims run through it
 * until the answers come back, `lag` ticks later. That is no cheat, as a
 * door's push is none: never named Correction, neither the pusher nor the
 * one pushed against, while pushing or walking away. A claim off without
 * any contact is still named once the contact's grace is over. */
static void push_into_another_player(unsigned lag)
{
    sweep__world_options opt = wf_options();
    opt.players_block = 1;
    sweep__world *w = wf_open(&opt);
    wf_rec *r = wf_rec_new();
    static crowd_client a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.lag = b.lag = lag;
    wf_owner(&a.o, w, 1, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_owner(&b.o, w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    a.sp = wf_spawn_point(w, &a.o, r, 1, 2); /* (4, 0, 1) */
    b.sp = wf_spawn_point(w, &b.o, r, 1, 1); /* (0, 0, 1): 4 m from a along -x */
    sweep_client_error err;
    assert_int_equal(sweep_predictor_create(w->world, &w->level.config, &w->level.rules, a.sp.position, a.sp.radii,
                                            &a.p, &err), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predictor_create(w->world, &w->level.config, &w->level.rules, b.sp.position, b.sp.radii,
                                            &b.p, &err), SWEEP_CLIENT_OK);
    const double ws = w->level.rules.walk_speed;
    uint32_t seq = 1, touching = 0, last_touch = 0;
    double worst = 0.0;
    /* b walks into a for six seconds, pressing on; a stands. */
    for (; seq <= 360; seq++) {
        wf_ticks(w, r, 1);
        sweep_msg_move_result ra = crowd_move(w, r, &a, seq, sweep_v3(0, 0, 0), 0.0);
        sweep_msg_move_result rb = crowd_move(w, r, &b, seq, sweep_v3(ws, 0, 0), 0.0);
        assert_false(ra.rules & SWEEP_WIRE_RULE_CORRECTION);
        if (rb.rules & SWEEP_WIRE_RULE_CORRECTION)
            fail_msg("lag %u, move %u pushing into another player: corrected, the claim %.3f m off", lag, seq,
                     rb.correction);
        if (touches_a_body(&rb)) {
            touching++;
            last_touch = seq;
        }
        worst = rb.correction > worst ? rb.correction : worst;
    }
    /* It did press against a for seconds, its claims well past the
     * threshold, and was held at a's side (the radii of both apart). */
    assert_true(touching > 200);
    assert_true(worst > 1.5 * w->level.correction_threshold);
    const sweep__entity *eb = sweep__world_entity(w, &b.o, b.sp.entity);
    assert_non_null(eb);
    assert_true(eb->st.m.actor.position.x < a.sp.position.x - a.sp.radii.x - b.sp.radii.x + 1e-3);
    /* Then it walks away, still honest, and stands a second. */
    for (; seq <= 480; seq++) {
        wf_ticks(w, r, 1);
        crowd_move(w, r, &a, seq, sweep_v3(0, 0, 0), 0.0);
        sweep_msg_move_result rb = crowd_move(w, r, &b, seq, sweep_v3(seq <= 400 ? -ws : 0.0, 0, 0), 0.0);
        if (rb.rules & SWEEP_WIRE_RULE_CORRECTION)
            fail_msg("lag %u, move %u walking away: corrected, the claim %.3f m off", lag, seq, rb.correction);
        if (touches_a_body(&rb))
            last_touch = seq;
    }
    assert_true(seq - last_touch > 60);
    /* Away from anyone, a claim half a metre off is named. */
    wf_ticks(w, r, 1);
    crowd_move(w, r, &a, seq, sweep_v3(0, 0, 0), 0.0);
    sweep_msg_move_result rb = crowd_move(w, r, &b, seq, sweep_v3(0, 0, 0), 0.5);
    assert_false(touches_a_body(&rb));
    assert_true(rb.corrected);
    assert_true(rb.rules & SWEEP_WIRE_RULE_CORRECTION);
    assert_int_equal(b.o.rule_counts[SWEEP_WIRE_RULE_CORRECTION_BIT], 1);
    assert_int_equal(a.o.rule_counts[SWEEP_WIRE_RULE_CORRECTION_BIT], 0);
    sweep_predictor_destroy(a.p);
    sweep_predictor_destroy(b.p);
    sweep__owner_release(&a.o, NULL);
    sweep__owner_release(&b.o, NULL);
    sweep__world_close(w);
    free(r);
}

/* An answer a tenth of a second away, and 0.8 and 0.9 s away (before
 * each claim the contact's grace forgave kept it open, the walk away from
 * the other player was named Correction from 0.5 s on). At 1.5 s it is
 * named again: the grace is kept open a second at most. */
static void pushing_into_another_player_is_not_corrected(void **state)
{
    (void)state;
    const unsigned lags[] = {6, 48, 54};
    for (unsigned i = 0; i < sizeof lags / sizeof lags[0]; i++)
        push_into_another_player(lags[i]);
}

/* The grace after another player's shell forgives any claim for half a
 * second, and is kept open by the claims it forgives after that only as
 * far as walking since the touch and a jump explain, a second at most: a
 * player that touches another once, then walks away claiming a place
 * `off` m from where it is on every move, is named from the 30th move on
 * when that is 100 m, from the 60th when it is 3 m (what an honest
 * client's walk away from a push can show: test above). The tick the
 * grace opened and how long it is kept are in the state hash. */
static void touch_then_claim(double off, unsigned first_named)
{
    sweep__world_options opt = wf_options();
    opt.players_block = 1;
    sweep__world *w = wf_open(&opt);
    wf_rec *r = wf_rec_new();
    static sweep__owner a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    wf_owner(&a, w, 1, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_owner(&b, w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_spawn_point(w, &a, r, 1, 2);                              /* (4, 0, 1) */
    sweep_msg_spawned sb = wf_spawn_point(w, &b, r, 1, 1); /* (0, 0, 1) */
    const double ws = w->level.rules.walk_speed;
    uint32_t seq = 1;
    sweep_msg_move_result rb;
    memset(&rb, 0, sizeof rb);
    for (int touched = 0; !touched; seq++) {
        assert_true(seq < 400);
        wf_ticks(w, r, 1);
        sweep_message m = wf_move_msg(sb.entity, seq, sweep_v3(ws, 0, 0), 1.0 / 60.0);
        rb = wf_move(w, &b, r, &m);
        touched = touches_a_body(&rb);
    }
    for (unsigned k = 1; k <= 120; k++, seq++) {
        wf_ticks(w, r, 1);
        sweep_message m = wf_move_msg(sb.entity, seq, sweep_v3(-ws, 0, 0), 1.0 / 60.0);
        m.as.move.has_claimed_position = true;
        m.as.move.claimed_position = sweep_v3(rb.position.x + off, rb.position.y, rb.position.z);
        rb = wf_move(w, &b, r, &m);
        assert_false(touches_a_body(&rb));
        int named = (rb.rules & SWEEP_WIRE_RULE_CORRECTION) != 0;
        if (named != (k >= first_named))
            fail_msg("claim %u after the touch, %g m off: named %d", k, off, named);
        if (k == 20) {
            sweep__entity *e = (sweep__entity *)sweep__world_entity(w, &b, sb.entity);
            assert_non_null(e);
            uint64_t h = sweep__world_state_hash(w);
            uint64_t *ticks[] = {&e->unflag_tick, &e->unflag_kept_until};
            for (int i = 0; i < 2; i++) {
                (*ticks[i])++;
                assert_int_not_equal(sweep__world_state_hash(w), h);
                (*ticks[i])--;
            }
        }
    }
    sweep__owner_release(&a, NULL);
    sweep__owner_release(&b, NULL);
    sweep__world_close(w);
    free(r);
}

static void one_touch_hides_claims_a_second_at_most(void **state)
{
    (void)state;
    touch_then_claim(100.0, 30);
    touch_then_claim(3.0, 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest_players_are_never_flagged),
        cmocka_unit_test(honest_players_losing_moves_are_never_flagged),
        cmocka_unit_test(honest_players_far_away_are_never_flagged),
        cmocka_unit_test(honest_players_through_a_stalled_network_are_not_flagged),
        cmocka_unit_test(pushing_into_another_player_is_not_corrected),
        cmocka_unit_test(one_touch_hides_claims_a_second_at_most),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
