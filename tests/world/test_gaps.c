/*
 * test_gaps.c - lost moves (a sequence that skips some) in the world
 * library, both ways: an honest client whose landing move was lost and
 * who presses jump where its prediction has it standing is not named
 * Jump, nor corrected for the move it predicted; a gap forgives a claim
 * only as far as its lost moves can explain, so a cheater skipping
 * sequences at any rate has its claims 5 m or 100 m off all flagged, a
 * jump held in the air is refused every time and named nearly every
 * time, and speed, flying and time dilation are named on every move.
 * The first moves after a player's Spawn, lost, are a gap too.
 */
#include "tests/world/world_fixture.h"

#define DT (1.0 / 60.0)

/* One move of the world's player entity, the world a tick on first. */
static sweep_msg_move_result step(wf_one *s, uint32_t seq, sweep_vec3 wish, uint32_t buttons, const sweep_vec3 *claim)
{
    wf_ticks(s->w, s->r, 1);
    sweep_message m = wf_move_msg(s->sp.entity, seq, wish, DT);
    m.as.move.buttons = buttons;
    if (claim) {
        m.as.move.has_claimed_position = true;
        m.as.move.claimed_position = *claim;
    }
    return wf_move(s->w, &s->o, s->r, &m);
}

/* The client's own run of a move, as libsweep's prediction runs it. */
static void predict(const wf_one *s, sweep_actor *a, sweep_vec3 wish, uint32_t buttons)
{
    sweep_space space = {s->w->world, s->w->movers, NULL, SWEEP_NO_BODY};
    sweep_wish w = {wish, buttons};
    sweep_act_result r;
    assert_int_equal(sweep_act(&space, &s->w->level.config, &s->w->level.rules, s->sp.radii, a, &w, DT, &r),
                     SWEEP_OK);
}

/* Jumps, and loses the move it lands on; then presses jump as its
 * prediction stands. Returns the answer to that move. */
static sweep_msg_move_result lose_the_landing(wf_one *s, int *refused)
{
    const sweep_vec3 wish = sweep_v3(1, 0, 0);
    sweep_actor client = {s->sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    uint32_t seq = 1;
    /* Settle on the floor, in step with the server. */
    for (int i = 0; i < 30; i++, seq++) {
        predict(s, &client, wish, 0);
        step(s, seq, wish, 0, &client.position);
    }
    assert_true(client.grounded);
    predict(s, &client, wish, SWEEP_WISH_JUMP);
    step(s, seq++, wish, SWEEP_WISH_JUMP, &client.position);
    /* In the air until the move it lands on, which is lost. */
    for (;;) {
        assert_true(seq < 500);
        predict(s, &client, wish, 0);
        if (client.grounded)
            break;
        sweep_msg_move_result r = step(s, seq++, wish, 0, &client.position);
        assert_int_equal(r.rules, 0);
    }
    seq++; /* the landing, lost */
    predict(s, &client, wish, SWEEP_WISH_JUMP);
    sweep_msg_move_result r = step(s, seq, wish, SWEEP_WISH_JUMP, &client.position);
    /* The server never had it land: the jump it refused. */
    *refused = r.velocity.z <= 0.0;
    return r;
}

static void a_lost_landing_is_not_named_jump(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    int refused = 0;
    sweep_msg_move_result r = lose_the_landing(&s, &refused);
    assert_true(refused);
    assert_int_equal(r.rules, 0);
    assert_false(r.corrected);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_JUMP_BIT], 0);
    wf_one_close(&s);
}

/* One lost move explains about a metre of a claim at 60 moves a second
 * (speed_limit 60 m/s for its 1/60 s) and a jump's height (5 m/s under
 * 9.81: 1.27 m), beyond the 0.25 m threshold; skipping a thousand
 * sequences at once explains no more than the clock does (a tick and
 * 0.1 s: 7 m, and the same height and threshold), nor a long pause more
 * than the grace's length; and the grace ends after half a second. */
static void a_gap_forgives_what_its_lost_moves_explain(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const sweep_vec3 still = sweep_v3(0, 0, 0);
    uint32_t seq = 1;
    sweep_msg_move_result r = step(&s, seq, still, 0, NULL);
    const struct {
        uint32_t skip;  /* sequences skipped before the move */
        double off;     /* the claim's distance from the server's position */
        int flagged;
    } c[] = {{1, 0.6, 0}, {0, 2.45, 0}, {0, 2.6, 1}, {1000, 8.45, 0}, {0, 8.6, 1}, {1000, 100.0, 1}};
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        seq += 1 + c[i].skip;
        sweep_vec3 claim = sweep_v3(r.position.x + c[i].off, r.position.y, r.position.z);
        r = step(&s, seq, still, 0, &claim);
        if (r.corrected != c[i].flagged)
            fail_msg("case %u: %u skipped, a claim %g m off: corrected %d", i, c[i].skip, c[i].off, r.corrected);
    }
    /* A pause of two seconds (a lag switch), then a gap of its moves:
     * the pause explains no more than the grace's half second of
     * speed_limit (30 m, and a jump's height). */
    wf_ticks(s.w, s.r, 120);
    seq += 121;
    sweep_vec3 far = sweep_v3(r.position.x + 100.0, r.position.y, r.position.z);
    r = step(&s, seq, still, 0, &far);
    assert_true(r.corrected);
    wf_ticks(s.w, s.r, 120);
    seq += 121;
    sweep_vec3 near = sweep_v3(r.position.x + 29.0, r.position.y, r.position.z);
    r = step(&s, seq, still, 0, &near);
    assert_false(r.corrected);
    /* Half a second on, the grace is over. */
    for (int i = 0; i < 30; i++)
        r = step(&s, ++seq, still, 0, NULL);
    sweep_vec3 claim = sweep_v3(r.position.x + 0.6, r.position.y, r.position.z);
    r = step(&s, ++seq, still, 0, &claim);
    assert_true(r.corrected);
    wf_one_close(&s);
}

/* A claim `off` metres from where the server has the entity, with a
 * sequence skipped before every `every`-th move, over 60 such moves;
 * returns how many of them were flagged. The claims sit right after their
 * gaps, where a grace would be. */
static int claims_flagged(unsigned every, double off)
{
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const sweep_vec3 wish = sweep_v3(0, 0, 0);
    uint32_t seq = 1;
    sweep_vec3 at = s.sp.position;
    int flagged = 0;
    for (unsigned claims = 0, i = 1; claims < 60; i++) {
        int gap = i % every == 0;
        seq += gap ? 2 : 1;
        sweep_vec3 claim = sweep_v3(at.x + off, at.y, at.z);
        sweep_msg_move_result r = step(&s, seq, wish, 0, gap ? &claim : NULL);
        if (gap) {
            claims++;
            flagged += r.corrected && (r.rules & SWEEP_WIRE_RULE_CORRECTION);
        }
        /* The position is never gained. */
        assert_true(fabs(r.position.x - s.sp.position.x) < 1e-9);
        at = r.position;
    }
    wf_one_close(&s);
    return flagged;
}

static void gaps_at_any_rate_hide_no_far_claim(void **state)
{
    (void)state;
    const unsigned every[] = {1, 2, 5, 25, 100};
    const double off[] = {100.0, 5.0};
    for (unsigned k = 0; k < sizeof every / sizeof every[0]; k++)
        for (unsigned d = 0; d < 2; d++) {
            int n = claims_flagged(every[k], off[d]);
            if (n != 60)
                fail_msg("a sequence skipped every %u moves: %d of 60 claims %g m off flagged", every[k], n, off[d]);
        }
}

/* A jump held in the air with a sequence skipped before every move: each
 * refused, and named every time but for the few graces the pace allows. */
static void jump_cheat_with_gaps_is_named(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    uint32_t seq = 1, named = 0, in_air = 0;
    double top = 0.0;
    for (int i = 0; i < 600; i++) {
        seq += 2;
        sweep_msg_move_result r = step(&s, seq, sweep_v3(0, 0, 0), SWEEP_WISH_JUMP, NULL);
        top = fmax(top, r.position.z);
        if (!r.grounded && r.velocity.z < 4.0) { /* not this move's own jump */
            in_air++;
            named += (r.rules & SWEEP_WIRE_RULE_JUMP) != 0;
        }
    }
    /* Never higher than one jump goes (5 m/s under 9.81: 1.27 m). */
    assert_true(top < s.sp.position.z + 1.4);
    assert_true(in_air > 300);
    int paced = (int)SWEEP__GAP_BURST + (int)(10.0 / SWEEP__GAP_EVERY_S) + 1;
    assert_true(named >= in_air - (uint32_t)paced * 30u); /* each grace half a second: 30 moves */
    assert_true(named < in_air); /* the graces there were did forgive */
    wf_one_close(&s);
}

/* The other cheats with a sequence skipped before every move: each still
 * prevented and named on every move (none of them has a grace). */
static void other_cheats_with_gaps_are_named(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const double ws = s.w->level.rules.walk_speed;
    uint32_t seq = 1;
    for (int i = 0; i < 120; i++) {
        seq += 2;
        wf_ticks(s.w, s.r, 1);
        /* Ten times the walk speed, rising, four ticks' time a move. */
        sweep_message m = wf_move_msg(s.sp.entity, seq, sweep_v3(10 * ws, 0, ws), 4 * DT);
        sweep_msg_move_result r = wf_move(s.w, &s.o, s.r, &m);
        assert_int_equal(r.rules & SWEEP_WIRE_RULE_SPEED, SWEEP_WIRE_RULE_SPEED);
        assert_int_equal(r.rules & SWEEP_WIRE_RULE_VERTICAL, SWEEP_WIRE_RULE_VERTICAL);
        assert_true(fabs(r.speed_excess - 9 * ws) < 1e-9);
        assert_true(sqrt(r.velocity.x * r.velocity.x + r.velocity.y * r.velocity.y) <= ws);
        if (i >= 10) /* the bank spent: a tick's time granted, the rest named */
            assert_int_equal(r.rules & SWEEP_WIRE_RULE_TIME_BUDGET, SWEEP_WIRE_RULE_TIME_BUDGET);
        assert_true(r.applied_dt <= 4 * DT);
    }
    wf_one_close(&s);
}

/* libsweep numbers every request from one counter: a player's Spawn
 * takes a sequence and its first move the next. The first moves after a
 * spawn lost, the first that arrives follows a gap as any other: its
 * claim, eleven moves of walking ahead of the server's (0.3 m, past the
 * threshold), is not named Correction, nor the claims after it. */
static void moves_lost_right_after_a_spawn_are_a_gap(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    const uint32_t spawn_seq = 7;
    s.sp = wf_spawn_point(s.w, &s.o, s.r, spawn_seq, 1);
    const sweep_vec3 wish = sweep_v3(s.w->level.rules.walk_speed, 0, 0);
    sweep_actor client = {s.sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    uint32_t seq = spawn_seq + 1;
    for (int i = 0; i < 11; i++, seq++) { /* sent, predicted, lost */
        wf_ticks(s.w, s.r, 1);
        predict(&s, &client, wish, 0);
    }
    for (int i = 0; i < 20; i++, seq++) {
        predict(&s, &client, wish, 0);
        sweep_msg_move_result r = step(&s, seq, wish, 0, &client.position);
        if (i == 0)
            assert_true(r.correction > s.w->level.correction_threshold);
        if (r.rules)
            fail_msg("move %u, the %d-th after 11 lost: rules %#x, claim %.3f m off", seq, i + 1, (unsigned)r.rules,
                     r.correction);
    }
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_CORRECTION_BIT], 0);
    wf_one_close(&s);
}

/* What a gap after a spawn forgives is what any gap does: no more than
 * the clock since the spawn explains, however many sequences are
 * skipped. And moves numbered apart from the requests (the first move 1
 * after a Spawn of sequence 7) are applied as ever. */
static void a_gap_after_a_spawn_forgives_no_more(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    s.sp = wf_spawn_point(s.w, &s.o, s.r, 7, 1);
    sweep_vec3 far = sweep_v3(s.sp.position.x + 100.0, s.sp.position.y, s.sp.position.z);
    sweep_msg_move_result r = step(&s, 5000, sweep_v3(0, 0, 0), 0, &far);
    assert_true(r.corrected);

    wf_one t;
    wf_one_open(&t, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    t.sp = wf_spawn_point(t.w, &t.o, t.r, 7, 1);
    for (uint32_t seq = 1; seq <= 3; seq++) {
        r = step(&t, seq, sweep_v3(1, 0, 0), 0, NULL);
        assert_int_equal(r.sequence, seq);
    }
    assert_int_equal(t.w->counts.moves_total, 3);
    wf_one_close(&s);
    wf_one_close(&t);
}

/* A client hears of a lost move a round trip after the server, and may
 * press jump on the ground its prediction has until then: a jump refused
 * in the air 0.8 s after a gap (a client 0.8 s away) is not named Jump. It
 * was, while that grace was half a second. */
static void a_jump_a_round_trip_after_a_gap_is_not_named(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const sweep_vec3 still = sweep_v3(0, 0, 0);
    uint32_t seq = 1;
    sweep_msg_move_result r;
    for (int i = 0; i < 30; i++)
        r = step(&s, seq++, still, 0, NULL);
    assert_true(r.grounded);
    r = step(&s, seq++, still, SWEEP_WISH_JUMP, NULL); /* off the ground: granted */
    assert_false(r.grounded);
    assert_int_equal(r.rules, 0);
    seq++; /* a move lost */
    r = step(&s, seq++, still, 0, NULL);
    for (int i = 0; i < 47; i++)
        r = step(&s, seq++, still, 0, NULL);
    assert_false(r.grounded); /* 0.83 s after the take-off, of about a second's flight */
    double vz = r.velocity.z;
    r = step(&s, seq++, still, SWEEP_WISH_JUMP, NULL);
    assert_true(r.velocity.z < vz); /* refused: still falling */
    assert_int_equal(r.rules, 0);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_JUMP_BIT], 0);
    wf_one_close(&s);
}

/* A gap's claims grace is kept open by the claims it forgives, a second
 * at most: after a pause of half a second (a gap of 30 moves, whose reach
 * is 31 m), claims 29 m off on every move are forgiven for the first
 * second after the gap (60 moves: the half second of a fixed grace and as
 * much again) and named on every move after it. The grace is in the
 * state hash: the same world with it a tick shorter hashes otherwise. */
static void a_gap_grace_is_kept_open_a_second_at_most(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    const sweep_vec3 still = sweep_v3(0, 0, 0);
    uint32_t seq = 1;
    sweep_msg_move_result r = step(&s, seq, still, 0, NULL);
    wf_ticks(s.w, s.r, 30);
    seq += 30; /* the paused moves, never sent */
    for (unsigned k = 1; k <= 120; k++) {
        sweep_vec3 claim = sweep_v3(r.position.x + 29.0, r.position.y, r.position.z);
        r = step(&s, ++seq, still, 0, &claim);
        int named = (r.rules & SWEEP_WIRE_RULE_CORRECTION) != 0;
        if (named != (k > 60))
            fail_msg("claim %u after the gap, 29 m off: named %d", k, named);
        if (k == 30) {
            sweep__entity *e = (sweep__entity *)sweep__world_entity(s.w, &s.o, s.sp.entity);
            assert_non_null(e);
            uint64_t h = sweep__world_state_hash(s.w);
            e->claim_grace_until--;
            assert_int_not_equal(sweep__world_state_hash(s.w), h);
            e->claim_grace_until++;
            assert_int_equal(sweep__world_state_hash(s.w), h);
        }
    }
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_lost_landing_is_not_named_jump),
        cmocka_unit_test(a_gap_forgives_what_its_lost_moves_explain),
        cmocka_unit_test(gaps_at_any_rate_hide_no_far_claim),
        cmocka_unit_test(jump_cheat_with_gaps_is_named),
        cmocka_unit_test(other_cheats_with_gaps_are_named),
        cmocka_unit_test(moves_lost_right_after_a_spawn_are_a_gap),
        cmocka_unit_test(a_gap_after_a_spawn_forgives_no_more),
        cmocka_unit_test(a_gap_grace_is_kept_open_a_second_at_most),
        cmocka_unit_test(a_jump_a_round_trip_after_a_gap_is_not_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
