/*
 * test_predict.c - client-side prediction and reconciliation (predict.h)
 * with the map's movement rules (core/motion.h).
 *
 * First without a server (answers made from the core itself): an answer
 * equal to the prediction confirms it; a different one rewinds to it and
 * replays the later moves; a lost move is given up; a refused one is
 * forgotten; the rules act in the prediction as on the server (a wish
 * clamped, a jump refused in the air, nothing moved by a bad wish). Then
 * against a real sweepd on the arena: a scripted walk with jumps and
 * several moves in flight is predicted bit for bit on every move (TCP and
 * UDP, UDP with redundant moves too, with claimed positions the server
 * never flags and no rule named), a player paced in real time within its
 * time budget likewise, and a forced mismatch (a move predicted but never
 * sent) triggers one rewind and replay after which prediction and server
 * agree again, to the bit.
 *
 * Among movers, a player stands and steps about on the arena's lift while
 * it carries him, over TCP and UDP, followed by two predictors fed the
 * same WorldStates (every tick) and answers: one given the tick each move
 * will meet (sweep_client_estimate_tick, sweep_predictor_step_at), the
 * other predicting against the newest poses it was told
 * (sweep_predictor_step, as libsweep did before it estimated ticks). The
 * first prediction of each move is compared with its answer, bit for bit.
 * With the tick, a move whose answer differs must have met another tick
 * than estimated (a scheduling stall of the loaded machine, or a send
 * within the timing noise of a tick boundary): every disagreement is such
 * a tick miss, and misses are at most a tenth of the moves. Without it the
 * moves that meet a tick after the newest WorldState the client holds
 * (one in five or so on loopback) differ, which shows the ride tests
 * something. SWEEP_TEST_VERBOSE prints the counts (docs/performance.md
 * quotes them).
 */
#include "tests/sweepd_fixture.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "client-sdk/smooth.h"
#include "core/vec3.h"
#include "maps/loader.h"

#define TOKEN "predict-test-token"

static fx_server D;
static sweep_level LV;
static sweep_world *W;

static int setup(void **state)
{
    char map[4096], err[256];
    (void)state;
    if (sweep_map_load(fx_build("maps/arena.db", map, sizeof map), &LV, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&LV, &W, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "arena: %s\n", err);
        return -1;
    }
    /* The command token makes sessions of the server role: they spawn
     * where they ask and their moves are not charged to a time budget. */
    const char *args[] = {"--command-token", TOKEN, NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&D);
    sweep_world_destroy(W);
    sweep_level_free(&LV);
    return rc == 0 ? 0 : -1;
}

static int same_vec(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A predictor on the arena for an entity of radii at start. */
static sweep_predictor *new_predictor(sweep_vec3 start, sweep_vec3 radii)
{
    sweep_predictor *p = NULL;
    sweep_client_error e;
    assert_int_equal(sweep_predictor_create(W, &LV.config, &LV.rules, start, radii, &p, &e), SWEEP_CLIENT_OK);
    assert_non_null(p);
    return p;
}

static sweep_predict_counters counters_of(const sweep_predictor *p)
{
    sweep_predict_counters c;
    sweep_predictor_get_counters(p, &c);
    return c;
}

/* The answer a faithful server gives for state s after (w, dt). */
static sweep_msg_move_result answer(sweep_predict_state *s, uint32_t seq, sweep_wish w, double dt)
{
    sweep_act_result r;
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, s, &w, dt, &r, NULL),
                     SWEEP_CLIENT_OK);
    sweep_msg_move_result m = {0};
    m.sequence = seq;
    m.position = r.move.position;
    m.velocity = r.move.velocity;
    m.grounded = s->grounded;
    m.rules = r.rules;
    return m;
}

static sweep_wish wish(double x, double y, uint32_t buttons)
{
    sweep_wish w = {.velocity = sweep_v3(x, y, 0), .buttons = buttons};
    return w;
}

static sweep_wish script_wish(int i)
{
    /* Along +x, then +y; it falls to the ground, walks, and jumps at 30. */
    return i < 40 ? wish(3, 0, i == 30 ? SWEEP_WISH_JUMP : 0) : wish(0, 3, 0);
}

static void matching_answers_confirm(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(0, 0, 1);
    sweep_predictor *p = new_predictor(start, LV.default_radii);
    sweep_predict_state server = sweep_predict_state_at(start);
    for (int i = 0; i < 80; i++) {
        sweep_wish w = script_wish(i);
        assert_int_equal(sweep_predictor_step(p, (uint32_t)i + 10, &w, 1.0 / 60, NULL, NULL), SWEEP_CLIENT_OK);
    }
    assert_int_equal(sweep_predictor_pending(p), 80);
    for (int i = 0; i < 80; i++) {
        sweep_msg_move_result r = answer(&server, (uint32_t)i + 10, script_wish(i), 1.0 / 60);
        sweep_predict_ack a;
        assert_int_equal(sweep_predictor_ack(p, &r, &a, NULL), SWEEP_CLIENT_OK);
        assert_true(a.found);
        assert_false(a.mismatch);
        assert_int_equal(a.replayed, 0);
        assert_true(a.shift_len == 0.0); /* nothing to smooth */
    }
    assert_int_equal(sweep_predictor_pending(p), 0);
    assert_int_equal(counters_of(p).acks_matched, 80);
    sweep_predict_state cur = sweep_predictor_current(p);
    assert_true(same_vec(cur.position, server.position));
    assert_true(same_vec(cur.velocity, server.velocity));
    /* A duplicate answer changes nothing. */
    sweep_msg_move_result dup = {.sequence = 89, .position = sweep_v3(99, 99, 99)};
    sweep_predict_ack a;
    sweep_predictor_ack(p, &dup, &a, NULL);
    assert_false(a.found);
    assert_true(same_vec(sweep_predictor_current(p).position, server.position));
    sweep_predictor_destroy(p);
}

static void a_different_answer_rewinds_and_replays(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(0, 0, 1);
    sweep_predictor *p = new_predictor(start, LV.default_radii);
    for (int i = 0; i < 10; i++) {
        sweep_wish w = script_wish(i);
        assert_int_equal(sweep_predictor_step(p, (uint32_t)i + 1, &w, 1.0 / 60, NULL, NULL), SWEEP_CLIENT_OK);
    }
    /* The server had the player somewhere else (it was pushed, say). */
    sweep_predict_state server = sweep_predict_state_at(sweep_v3(2, 2, 1));
    sweep_msg_move_result r = answer(&server, 1, script_wish(0), 1.0 / 60);
    sweep_predict_ack a;
    sweep_vec3 before = sweep_predictor_current(p).position;
    sweep_predictor_ack(p, &r, &a, NULL);
    assert_true(a.found && a.mismatch);
    assert_int_equal(a.replayed, 9);
    /* The ack says how far what a game shows would jump. */
    sweep_vec3 after = sweep_predictor_current(p).position;
    assert_true(same_vec(a.shift, sweep_v3_sub(after, before)));
    assert_true(a.shift_len > 2.0 && a.shift_len == sweep_v3_len(a.shift));
    /* Smoothed, the drawn position does not jump, and glides onto the
     * prediction: about half way after one half-life. */
    sweep_smooth sm;
    sweep_smooth_init(&sm, 0.1, 10.0);
    sweep_smooth_correct(&sm, &a);
    sweep_vec3 drawn = sweep_smooth_shown(&sm, after, 0.0);
    assert_true(sweep_v3_len(sweep_v3_sub(drawn, before)) < 1e-12);
    for (int f = 0; f < 6; f++)
        drawn = sweep_smooth_shown(&sm, after, 1.0 / 60);
    double left = sweep_v3_len(sweep_v3_sub(drawn, after)) / a.shift_len;
    assert_true(left > 0.49 && left < 0.51);
    for (int f = 0; f < 600; f++)
        drawn = sweep_smooth_shown(&sm, after, 1.0 / 60);
    assert_true(same_vec(drawn, after)); /* gone, to the bit */
    /* Past snap it jumps at once. */
    sweep_smooth_init(&sm, 0.1, 1.0);
    sweep_smooth_correct(&sm, &a);
    assert_true(same_vec(sweep_smooth_shown(&sm, after, 1.0 / 60), after));
    assert_int_equal(counters_of(p).mismatches, 1);
    /* The replayed prediction is what the server will say for the rest. */
    for (int i = 1; i < 10; i++) {
        r = answer(&server, (uint32_t)i + 1, script_wish(i), 1.0 / 60);
        sweep_predictor_ack(p, &r, &a, NULL);
        assert_true(a.found);
        assert_false(a.mismatch);
    }
    assert_true(same_vec(sweep_predictor_current(p).position, server.position));
    sweep_predictor_destroy(p);
}

/* An answer no server of the map could give (a NaN, an infinity, a
 * place past the map's coordinate limit, more time than a move has, more
 * contacts than an answer holds: a corrupted or hostile peer) is
 * refused by name and changes nothing: the prediction and the moves
 * pending stay, and the next true answer confirms them. */
static void an_impossible_answer_is_refused(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(0, 0, 1);
    sweep_predictor *p = new_predictor(start, LV.default_radii);
    sweep_predict_state server = sweep_predict_state_at(start);
    for (int i = 0; i < 4; i++) {
        sweep_wish w = script_wish(i);
        assert_int_equal(sweep_predictor_step(p, (uint32_t)i + 1, &w, 1.0 / 60, NULL, NULL), SWEEP_CLIENT_OK);
    }
    sweep_predict_state before = sweep_predictor_current(p);
    sweep_msg_move_result good = answer(&server, 1, script_wish(0), 1.0 / 60);
    const double huge = LV.config.max_coordinate * 2;
    sweep_msg_move_result bad[8];
    for (int k = 0; k < 8; k++)
        bad[k] = good;
    bad[0].position.x = NAN;
    bad[1].position.z = INFINITY;
    bad[2].velocity.y = NAN;
    bad[3].velocity.x = -INFINITY;
    bad[4].position.y = huge;
    bad[5].start_position.x = NAN;
    bad[5].has_start_position = true;
    bad[6].rules |= SWEEP_WIRE_RULE_TIME_BUDGET;
    bad[6].applied_dt = 5.0;
    bad[7].contact_count = SWEEP_MAX_CONTACTS + 1;
    for (int k = 0; k < 8; k++) {
        sweep_predict_ack a = {.found = 7};
        sweep_client_error e;
        assert_int_equal(sweep_predictor_ack(p, &bad[k], &a, &e), SWEEP_CLIENT_E_PROTOCOL);
        assert_non_null(strstr(e.message, "answer to move 1"));
        assert_int_equal(a.found, 0);
        assert_int_equal(sweep_predictor_pending(p), 4);
        sweep_predict_state now = sweep_predictor_current(p);
        assert_true(same_vec(now.position, before.position) && same_vec(now.velocity, before.velocity));
    }
    sweep_predict_ack a;
    assert_int_equal(sweep_predictor_ack(p, &good, &a, NULL), SWEEP_CLIENT_OK);
    assert_true(a.found);
    assert_false(a.mismatch);
    assert_int_equal(sweep_predictor_pending(p), 3);
    sweep_predictor_destroy(p);
}

/* The server refuses a move that would end beyond the map's coordinate
 * limit, and the entity stays where it was: the prediction refuses it in
 * the same words (BadPosition), keeps nothing, and does not move. */
static void a_move_past_the_coordinate_limit_is_refused_as_the_server_does(void **state)
{
    (void)state;
    const double edge = LV.config.max_coordinate - 0.05;
    sweep_predict_state s = sweep_predict_state_at(sweep_v3(edge, 0, 1));
    s.velocity = sweep_v3(5, 0, 0);
    sweep_predict_state before = s;
    sweep_wish w = wish(5, 0, 0);
    sweep_client_error e;
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &w, 1.0 / 60, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.code, SWEEP_WIRE_BAD_POSITION);
    assert_true(same_vec(s.position, before.position));
    /* Away from the edge the same move is taken. */
    s = sweep_predict_state_at(sweep_v3(edge - 1.0, 0, 1));
    s.velocity = sweep_v3(5, 0, 0);
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &w, 1.0 / 60, NULL, &e),
                     SWEEP_CLIENT_OK);
    /* Through a predictor: nothing kept. */
    sweep_predictor *p = new_predictor(sweep_v3(edge, 0, 1), LV.default_radii);
    sweep_wish far = wish(5, 0, 0);
    sweep_predict_state cur = sweep_predictor_current(p);
    for (uint32_t i = 1; i < 40 && sweep_predictor_step(p, i, &far, 1.0 / 60, NULL, &e) == SWEEP_CLIENT_OK; i++)
        cur = sweep_predictor_current(p);
    assert_int_equal(e.code, SWEEP_WIRE_BAD_POSITION);
    assert_true(sweep_config_contains(&LV.config, sweep_predictor_current(p).position));
    assert_true(same_vec(sweep_predictor_current(p).position, cur.position));
    sweep_predictor_destroy(p);
}

/* A wish whose length overflows is BadVelocity, as the server says, not a
 * move with an infinite speed_excess. */
static void a_wish_too_long_to_measure_is_refused_as_the_server_does(void **state)
{
    (void)state;
    sweep_predict_state s = sweep_predict_state_at(sweep_v3(0, 0, 1));
    sweep_predict_state before = s;
    sweep_wish w = wish(1e308, 1e308, 0);
    sweep_client_error e;
    sweep_act_result r;
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &w, 1.0 / 60, &r, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.code, SWEEP_WIRE_BAD_VELOCITY);
    assert_true(same_vec(s.position, before.position));
    w = wish(1e150, 0, 0); /* long, but measured: the rules clamp it and name it */
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &w, 1.0 / 60, &r, &e),
                     SWEEP_CLIENT_OK);
    assert_true(r.rules & SWEEP_RULE_SPEED);
}

static void lost_and_refused_moves(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(4, 4, 1);
    sweep_predictor *p = new_predictor(start, LV.default_radii);
    for (int i = 0; i < 6; i++) {
        sweep_wish w = script_wish(i);
        assert_int_equal(sweep_predictor_step(p, (uint32_t)i + 1, &w, 1.0 / 60, NULL, NULL), SWEEP_CLIENT_OK);
    }
    /* Move 3 is refused: forgotten, 4..6 replayed without it. */
    sweep_predict_ack a;
    sweep_predictor_reject(p, 3, &a, NULL);
    assert_true(a.found);
    assert_int_equal(a.replayed, 3);
    assert_int_equal(sweep_predictor_pending(p), 5);
    /* Moves 1 and 2 were lost: the answer to 4 gives them up. */
    sweep_predict_state server = sweep_predict_state_at(start);
    sweep_msg_move_result r = answer(&server, 4, script_wish(3), 1.0 / 60);
    sweep_predictor_ack(p, &r, &a, NULL);
    assert_true(a.found && a.mismatch);
    assert_int_equal(a.dropped, 2);
    assert_int_equal(a.replayed, 2);
    for (int i = 4; i < 6; i++) {
        r = answer(&server, (uint32_t)i + 1, script_wish(i), 1.0 / 60);
        sweep_predictor_ack(p, &r, &a, NULL);
        assert_false(a.mismatch);
    }
    assert_int_equal(sweep_predictor_pending(p), 0);
    assert_true(same_vec(sweep_predictor_current(p).position, server.position));
    /* Bad input is refused by the core and not kept. */
    /* Named with the code the server answers the same move with, as the
     * error of the call and as the predictor's last error. */
    sweep_client_error e;
    sweep_wish nan_wish = wish(NAN, 0, 0);
    assert_int_equal(sweep_predictor_step(p, 100, &nan_wish, 1.0 / 60, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.code, SWEEP_WIRE_BAD_NUMBER);
    assert_string_equal(sweep_client_error_name(&e), "ARG");
    assert_non_null(strstr(e.message, "NONFINITE"));
    assert_int_equal(sweep_predictor_last_error(p)->code, SWEEP_WIRE_BAD_NUMBER);
    assert_int_equal(sweep_predictor_step(p, 100, NULL, 1.0 / 60, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.code, SWEEP_WIRE_NONE);
    sweep_wish ok = wish(1, 0, 0);
    assert_int_equal(sweep_predictor_step(p, 100, &ok, 0.0, NULL, NULL), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_last_error(p)->status, SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_last_error(p)->code, SWEEP_WIRE_BAD_DT);
    assert_int_equal(sweep_predictor_pending(p), 0);
    /* A call that succeeds clears the last error. */
    assert_int_equal(sweep_predictor_step(p, 100, &ok, 1.0 / 60, NULL, NULL), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predictor_last_error(p)->status, SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predictor_pending(p), 1);
    sweep_predictor_destroy(p);
}

/* An answer cut by the time budget (applied_dt, time_excess; named
 * TimeBudget or not) differs from the prediction; the predictor checks it
 * by running the move again for the time granted (none: no step at all),
 * takes it, and replays. */
static void a_move_cut_by_the_time_budget_is_checked_exactly(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(0, 0, 1);
    sweep_predictor *p = new_predictor(start, LV.default_radii);
    const double dt = 1.0 / 60;
    for (int i = 0; i < 4; i++) {
        sweep_wish w = script_wish(i);
        assert_int_equal(sweep_predictor_step(p, (uint32_t)i + 1, &w, dt, NULL, NULL), SWEEP_CLIENT_OK);
    }
    sweep_predict_state server = sweep_predict_state_at(start);
    /* Move 1 granted in full, move 2 half of it, move 3 nothing. */
    sweep_msg_move_result r = answer(&server, 1, script_wish(0), dt);
    r.applied_dt = dt;
    sweep_predict_ack a;
    sweep_predictor_ack(p, &r, &a, NULL);
    assert_false(a.mismatch);
    r = answer(&server, 2, script_wish(1), dt / 2);
    r.rules |= SWEEP_WIRE_RULE_TIME_BUDGET;
    r.applied_dt = dt / 2;
    r.time_excess = dt / 2;
    sweep_predictor_ack(p, &r, &a, NULL);
    assert_true(a.found && a.mismatch);
    assert_true(a.rerun && a.rerun_match);
    assert_int_equal(a.replayed, 2);
    /* A cut the server did not name (after a stall of the network, its
     * moves handed over at once): only time_excess says it. */
    sweep_msg_move_result none = r;
    none.sequence = 3;
    none.rules &= ~SWEEP_WIRE_RULE_TIME_BUDGET;
    none.applied_dt = 0;
    none.time_excess = dt;
    sweep_predictor_ack(p, &none, &a, NULL);
    assert_true(a.found && a.mismatch);
    assert_true(a.rerun && a.rerun_match); /* nothing moved: the state of move 2 */
    /* The last move is predicted from the server's state again. */
    r = answer(&server, 4, script_wish(3), dt);
    sweep_predictor_ack(p, &r, &a, NULL);
    assert_true(a.found);
    assert_false(a.mismatch);
    assert_int_equal(counters_of(p).reruns, 2);
    assert_int_equal(counters_of(p).rerun_matches, 2);
    sweep_predictor_destroy(p);
}

/* The rules act in a prediction as the core says: a wish above the walk
 * speed is clamped, a jump starts from the ground only, the velocity is
 * kept from move to move, and a move longer than max_step is split. */
static void rules_act_in_the_prediction(void **state)
{
    (void)state;
    const double dt = 1.0 / 60;
    sweep_predict_state s = sweep_predict_state_at(sweep_v3(0, 0, 0.95));
    sweep_act_result r;
    sweep_wish fast = wish(50, 0, SWEEP_WISH_JUMP);
    /* Spawned in the air: the jump is refused, the wish clamped. */
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &fast, dt, &r, NULL),
                     SWEEP_CLIENT_OK);
    assert_true(r.rules & SWEEP_RULE_SPEED);
    assert_true(r.rules & SWEEP_RULE_JUMP);
    assert_true(r.speed_excess == 50 - LV.rules.walk_speed);
    fast.buttons = 0;
    for (int i = 0; i < 60; i++)
        assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &fast, dt, &r, NULL),
                         SWEEP_CLIENT_OK);
    /* Walking at the walk speed, never faster. */
    assert_true(s.grounded);
    assert_true(fabs(s.velocity.x - LV.rules.walk_speed) < 1e-9);
    /* From the ground a jump starts at the jump speed, less one step of gravity. */
    sweep_wish hop = wish(0, 0, SWEEP_WISH_JUMP);
    double z0 = s.position.z;
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &hop, dt, &r, NULL),
                     SWEEP_CLIENT_OK);
    assert_false(r.rules & SWEEP_RULE_JUMP);
    assert_false(s.grounded);
    assert_true(s.position.z > z0);
    /* Up to the top and down: the highest point is the jump's, nothing more
     * (jump held in the air is refused every time). */
    double top = s.position.z;
    int refused = 0;
    for (int i = 0; i < 90 && !s.grounded; i++) {
        assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &hop, dt, &r, NULL),
                         SWEEP_CLIENT_OK);
        refused += (r.rules & SWEEP_RULE_JUMP) != 0;
        if (s.position.z > top)
            top = s.position.z;
    }
    double h = LV.rules.jump_speed * LV.rules.jump_speed / (2 * 9.81);
    assert_true(top - z0 <= h + 1e-9);
    assert_true(top - z0 > 0.9 * h);
    assert_true(refused > 20);
    /* A long move is split into steps of at most max_step. */
    sweep_wish walk = wish(1, 0, 0);
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &walk, 0.1, &r, NULL),
                     SWEEP_CLIENT_OK);
    assert_true(r.steps >= 3 && r.steps * LV.rules.max_step >= 0.1 && (r.steps - 1) * LV.rules.max_step < 0.1);
    /* Missing arguments are refused, and change nothing. */
    sweep_predict_state before = s;
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, NULL, LV.default_radii, &s, &walk, dt, &r, NULL),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, LV.default_radii, &s, NULL, dt, &r, NULL),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(NULL, NULL, &LV.config, &LV.rules, LV.default_radii, &s, &walk, dt, &r, NULL),
                     SWEEP_CLIENT_E_ARG);
    assert_memory_equal(&s, &before, sizeof s);
}

static sweep_client *connect_to(sweep_client_transport t, const char *token)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.client_name = "test_predict";
    o.auth_token = token;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_client_status s = sweep_client_connect(&o, &c, &e);
    if (s != SWEEP_CLIENT_OK)
        fprintf(stderr, "connect: %s: %s\n", sweep_client_error_name(&e), e.message);
    assert_int_equal(s, SWEEP_CLIENT_OK);
    return c;
}

/* A scripted walk over the arena: towards the stairs, up them, along the
 * landing, back down; with a jump now and then. */
static sweep_vec3 tour_velocity(int i)
{
    if (i < 60)
        return sweep_v3(-4, -3, 0);
    if (i < 150)
        return sweep_v3(0, 4, 0);
    if (i < 200)
        return sweep_v3(4, 0, 0);
    return sweep_v3(0, -4, 0);
}

static uint32_t tour_buttons(int i)
{
    return i == 20 || i == 175 || i == 230 ? SWEEP_WISH_JUMP : 0;
}

/* Walks `steps` moves with up to `window` in flight (over UDP with
 * `redundancy` earlier moves in each datagram); with skip > 0, move number
 * `skip` is predicted but never sent (the forced mismatch); with paced,
 * one move per 1/60 s as a player in real time (a guest, charged to its
 * time budget), else as the server role. Returns the number of
 * mismatching answers. */
static int predicted_walk(sweep_client_transport t, int steps, int window, int skip, uint32_t redundancy, int paced)
{
    sweep_client *c = connect_to(t, paced ? NULL : TOKEN);
    sweep_client_error e;
    assert_int_equal(sweep_client_check_map(c, &LV, &e), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_client_get_welcome(c)->role, paced ? SWEEP_WIRE_ROLE_PLAYER : SWEEP_WIRE_ROLE_SERVER);
    assert_int_equal(sweep_client_set_redundancy(c, redundancy, &e), SWEEP_CLIENT_OK);
    sweep_msg_spawned sp;
    sweep_vec3 start = sweep_v3(-9, -14, 0.95); /* between two flights of stairs */
    if (paced)
        assert_int_equal(sweep_client_spawn_player(c, 2, &sp, &e), SWEEP_CLIENT_OK); /* (4, 0, 1) */
    else
        assert_int_equal(sweep_client_spawn(c, start, LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    assert_int_equal(sp.rules, 0);
    sweep_predictor *p = new_predictor(sp.position, sp.radii);
    int sent = 0, sent_real = 0, answered = 0, mismatches = 0, expected = steps - (skip > 0), jumps = 0;
    int last_jump = 0;
    uint64_t next_send = sweep_client_now_ns();
    sweep_msg_move_result last = {0};
    /* After a stall of this process a paced player catches up at most half
     * a time bank (as sweep-bots and a game dropping a hitch's frames do):
     * the rest of the bank is for the server's own lateness. */
    uint64_t catch_up = (uint64_t)(0.5 * sweep_client_get_welcome(c)->time_bank * 1e9);
    while (answered < expected) {
        if (paced && sweep_client_now_ns() > next_send + catch_up)
            next_send = sweep_client_now_ns() - catch_up;
        while (sent < steps && sent_real - answered < window && (!paced || sweep_client_now_ns() >= next_send)) {
            next_send += 1000000000u / 60;
            sweep_wish w = {.velocity = tour_velocity(sent), .buttons = tour_buttons(sent)};
            if (paced) /* jumps when it stands: a player cannot jump in the air */
                w.buttons = sent - last_jump >= 25 && sweep_predictor_current(p).grounded ? SWEEP_WISH_JUMP : 0;
            if (w.buttons) {
                jumps++;
                last_jump = sent;
            }
            sweep_client_move_req m = {.entity = sp.entity, .velocity = w.velocity, .buttons = w.buttons,
                                       .dt = 1.0 / 60};
            uint32_t seq;
            if (sent + 1 == skip) {
                /* Predicted, never sent: the server will not know it. Its
                 * number (0) is below every real one, as a lost move's is. */
                assert_int_equal(sweep_predictor_step(p, 0, &w, m.dt, NULL, NULL), SWEEP_CLIENT_OK);
                sent++;
                continue;
            }
            /* The claimed position is the prediction, and it is what
             * sweep_predict_run gives from the current prediction. */
            sweep_predict_state tmp = sweep_predictor_current(p);
            sweep_act_result pr;
            assert_int_equal(sweep_predict_run(W, NULL, &LV.config, &LV.rules, sp.radii, &tmp, &w, m.dt, &pr, NULL),
                             SWEEP_CLIENT_OK);
            m.has_claimed_position = 1;
            m.claimed_position = pr.move.position;
            seq = sweep_client_next_sequence(c);
            assert_int_equal(sweep_predictor_step(p, seq, &w, m.dt, NULL, NULL), SWEEP_CLIENT_OK);
            assert_true(same_vec(sweep_predictor_current(p).position, pr.move.position));
            uint32_t got;
            assert_int_equal(sweep_client_send_move(c, &m, &got, &e), SWEEP_CLIENT_OK);
            assert_int_equal(got, seq);
            sent++;
            sent_real++;
        }
        sweep_client_event ev;
        sweep_client_status s = sweep_client_poll(c, paced && sent < steps ? 5 : 20000, &ev, &e);
        if (s == SWEEP_CLIENT_E_TIMEOUT && paced && sent < steps)
            continue;
        if (s != SWEEP_CLIENT_OK)
            fprintf(stderr, "poll: %s: %s\n", sweep_client_error_name(&e), e.message);
        assert_int_equal(s, SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_ERROR)
            fprintf(stderr, "server error %s: %s\n", sweep_client_error_name(&ev.as.error), ev.as.error.message);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        sweep_predict_ack a;
        assert_int_equal(sweep_predictor_ack(p, &ev.as.move_result, &a, NULL), SWEEP_CLIENT_OK);
        assert_true(a.found); /* libsweep hands each answer out once, resent or not */
        answered++;
        mismatches += a.mismatch;
        /* No rule acts on this walk, every move gets its time, and a claim
         * one lost move off is not flagged (below the map's threshold). */
        assert_false(ev.as.move_result.corrected);
        assert_int_equal(ev.as.move_result.rules, 0);
        assert_true(ev.as.move_result.applied_dt == 1.0 / 60);
        if (!a.mismatch && skip == 0)
            assert_true(ev.as.move_result.correction == 0); /* exact: nothing to correct */
        last = ev.as.move_result;
    }
    assert_true(jumps >= (paced ? 2 : 3)); /* a jump lasts about a second */
    if (redundancy && !paced) { /* paced, each answer comes before the next move */
        sweep_client_counters cc;
        sweep_client_get_counters(c, &cc);
        assert_true(cc.redundant_moves > 0);
    }
    /* Converged: the prediction is the server's last answer, to the bit. */
    assert_int_equal(sweep_predictor_pending(p), 0);
    sweep_predict_state cur = sweep_predictor_current(p);
    assert_true(same_vec(cur.position, last.position));
    assert_true(same_vec(cur.velocity, last.velocity));
    assert_int_equal(cur.grounded, last.grounded);
    /* With moves in flight behind the lost one, they were replayed. */
    if (skip && window > 1)
        assert_true(counters_of(p).replayed_moves > 0);
    sweep_predictor_destroy(p);
    sweep_client_close(c);
    return mismatches;
}

static void scripted_walk_is_predicted_exactly(void **state)
{
    (void)state;
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 260, 1, 0, 0, 0), 0);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 260, 8, 0, 0, 0), 0);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_UDP, 260, 4, 0, 0, 0), 0);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_UDP, 260, 4, 0, 3, 0), 0);
}

static void player_in_real_time_is_predicted_exactly(void **state)
{
    (void)state;
    /* Two seconds as a player: every move within the time budget. */
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 120, 8, 0, 0, 1), 0);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_UDP, 120, 8, 0, 3, 1), 0);
}

static void forced_mismatch_rewinds_and_converges(void **state)
{
    (void)state;
    /* Skipping move 100 (mid-stairs) changes where the server is: exactly
     * the first answer after it differs, the rest are predicted again. */
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 260, 6, 100, 0, 0), 1);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_UDP, 260, 1, 100, 0, 0), 1);
}

/* Prediction among movers: the arena's lift (mover 3, always running up
 * and down) and a rider on it, moving every 15 ms with dt 15 ms (not a
 * multiple of the arena's 60 Hz tick, so the moves meet every phase of
 * it), until the lift has carried it between CARRIED_MOVES pairs of moves.
 * Every AIMED-th move waits to leave AIM_NS before the next tick's first
 * message can arrive (sweep_client_next_tick_ns): it meets that tick while
 * the newest poses the client has are the tick before's. The server ticks
 * on time (server/tick_timer.h), so that window is a tick's run and a
 * trip each way, some 0.1 ms of 16.7, and the moves' own phases alone
 * would fall in it about once a hundred moves. */
#define LIFT_ID 3
#define MOVE_NS 15000000u
#define MOVE_DT 0.015
#define CARRIED_MOVES 150
#define AIMED 5
#define AIM_NS 5000u

/* One predictor and what its first predictions came to. */
typedef struct follower {
    sweep_predictor *p;
    sweep_movers *mv;
    int answers, disagreed, carried_disagreed, tick_misses, met_later, unexplained;
} follower;

static void follower_start(follower *f, sweep_client *c, const sweep_msg_spawned *sp, const sweep_msg_world_state *ws)
{
    sweep_client_error e;
    memset(f, 0, sizeof *f);
    assert_int_equal(sweep_predictor_create(W, &LV.config, &LV.rules, sp->position, sp->radii, &f->p, &e),
                     SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predict_build_movers(&LV, sweep_client_get_welcome(c)->tick_rate, &f->mv, &e),
                     SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predictor_set_movers(f->p, f->mv, &LV, &e), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predictor_world_state(f->p, ws, &e), SWEEP_CLIENT_OK);
}

static void follower_answer(follower *f, const sweep_msg_move_result *r)
{
    sweep_predict_ack a;
    assert_int_equal(sweep_predictor_ack(f->p, r, &a, NULL), SWEEP_CLIENT_OK);
    assert_true(a.found);
    f->answers++;
    int missed = a.predicted_tick != 0 && a.predicted_tick != r->server_tick;
    f->tick_misses += missed;
    f->met_later += missed && r->server_tick > a.predicted_tick;
    if (a.mismatch) {
        f->disagreed++;
        f->carried_disagreed += r->carried;
        f->unexplained += !missed;
    }
}

typedef struct lift_run {
    int moves, carried, on_lift;
    follower at_tick, newest;
    sweep_predict_counters pc;
} lift_run;

static lift_run ride(sweep_client_transport t)
{
    sweep_client *c = connect_to(t, TOKEN); /* the server role: it spawns on the lift */
    sweep_client_error e;
    assert_int_equal(sweep_client_check_map(c, &LV, &e), SWEEP_CLIENT_OK);
    sweep_msg_world_state ws;
    assert_int_equal(sweep_client_watch_world(c, 1, &ws, &e), SWEEP_CLIENT_OK);
    /* A world just started may not have ticked yet: wait for a push of a
     * tick (the clock then knows the server's). */
    sweep_client_event ev;
    while (ws.tick == 0) {
        assert_int_equal(sweep_client_poll(c, 5000, &ev, &e), SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_WORLD_STATE)
            ws = ev.as.world_state;
    }
    assert_int_equal(ws.path_count, ws.count); /* this server says where its movers are on their paths */
    uint32_t lift = sweep_predict_mover_index(&LV, LIFT_ID);
    assert_true(lift < ws.count);
    double top = ws.movers[lift].position.z + 0.2; /* the platform's top in its frame is at 0.2 */
    /* Its movers live until the next receiving call (the spawn). */
    sweep_wire_mover told[16];
    assert_true(ws.count <= 16);
    memcpy(told, ws.movers, ws.count * sizeof *told);
    ws.movers = told;
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, sweep_v3(33, -9, top + LV.default_radii.z + 0.02), LV.default_radii, &sp,
                                        &e),
                     SWEEP_CLIENT_OK);
    lift_run r;
    memset(&r, 0, sizeof r);
    follower_start(&r.at_tick, c, &sp, &ws);
    follower_start(&r.newest, c, &sp, &ws);
    int inflight = 0;
    uint64_t next = sweep_client_now_ns(), until = next + 60000000000ull;
    while (r.carried < CARRIED_MOVES || inflight > 0) {
        assert_true(sweep_client_now_ns() < until);
        if (r.carried < CARRIED_MOVES && sweep_client_now_ns() >= next) {
            next += MOVE_NS;
            if (r.moves % AIMED == AIMED - 1) {
                /* Aimed: the events that come meanwhile wait for the poll
                 * below, as they would for a game busy with its frame. */
                uint64_t at = sweep_client_next_tick_ns(c, sweep_client_now_ns() + AIM_NS) - AIM_NS;
                while (sweep_client_now_ns() < at)
                    ;
            }
            /* Stepping to and fro across the platform's middle. */
            sweep_wish w = {.velocity = sweep_v3((r.moves / 20) % 2 ? -0.6 : 0.6, 0, 0), .buttons = 0};
            sweep_client_move_req m = {.entity = sp.entity, .velocity = w.velocity, .dt = MOVE_DT};
            uint32_t seq = sweep_client_next_sequence(c);
            uint64_t tick = sweep_client_estimate_tick(c);
            assert_true(tick > 0);
            assert_int_equal(sweep_predictor_step_at(r.at_tick.p, seq, &w, m.dt, tick, NULL, &e), SWEEP_CLIENT_OK);
            assert_int_equal(sweep_predictor_step(r.newest.p, seq, &w, m.dt, NULL, &e), SWEEP_CLIENT_OK);
            uint32_t got;
            assert_int_equal(sweep_client_send_move(c, &m, &got, &e), SWEEP_CLIENT_OK);
            assert_int_equal(got, seq);
            r.moves++;
            inflight++;
        }
        uint64_t now = sweep_client_now_ns();
        int wait_ms = r.carried < CARRIED_MOVES ? (next > now ? (int)((next - now) / 1000000u) : 0) : 1000;
        sweep_client_status s = sweep_client_poll(c, wait_ms, &ev, &e);
        while (s == SWEEP_CLIENT_OK) {
            if (ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
                assert_int_equal(sweep_predictor_world_state(r.at_tick.p, &ev.as.world_state, &e), SWEEP_CLIENT_OK);
                assert_int_equal(sweep_predictor_world_state(r.newest.p, &ev.as.world_state, &e), SWEEP_CLIENT_OK);
            } else if (ev.kind == SWEEP_CLIENT_EV_MOVE_RESULT) {
                const sweep_msg_move_result *mr = &ev.as.move_result;
                inflight--;
                r.carried += mr->carried;
                r.on_lift += mr->ground_mover == LIFT_ID;
                follower_answer(&r.at_tick, mr);
                follower_answer(&r.newest, mr);
            } else {
                assert_int_not_equal(ev.kind, SWEEP_CLIENT_EV_ERROR);
                assert_int_not_equal(ev.kind, SWEEP_CLIENT_EV_DESPAWNED);
            }
            s = sweep_client_poll(c, 0, &ev, &e);
        }
        if (s != SWEEP_CLIENT_E_TIMEOUT)
            fail_msg("poll: %s: %s", sweep_client_error_name(&e), e.message);
    }
    sweep_predictor_get_counters(r.at_tick.p, &r.pc);
    sweep_predictor_destroy(r.at_tick.p);
    sweep_movers_destroy(r.at_tick.mv);
    sweep_predictor_destroy(r.newest.p);
    sweep_movers_destroy(r.newest.mv);
    sweep_client_close(c);
    return r;
}

static void check(const char *name, const lift_run *r)
{
    if (fx_verbose() || getenv("SWEEP_TEST_VERBOSE"))
        fprintf(stderr,
                "%s: %d moves, %d carried by the lift, %d on it; first predictions that differed from the answer: "
                "at the estimated tick %d (%d carried; %d of its %d moves met another tick, %d a later one), at the "
                "newest poses %d (%d carried); %" PRIu64 " moves projected, %" PRIu64 " ticks run\n",
                name, r->moves, r->carried, r->on_lift, r->at_tick.disagreed, r->at_tick.carried_disagreed,
                r->at_tick.tick_misses, r->at_tick.answers, r->at_tick.met_later, r->newest.disagreed, r->newest.carried_disagreed,
                r->pc.projected, r->pc.sim_ticks);
    assert_int_equal(r->at_tick.answers, r->moves);
    assert_true(r->on_lift * 4 >= r->moves * 3); /* it stayed on the lift (it lands on it first) */
    /* Every move was predicted at a tick, the movers run on to it. */
    assert_int_equal(r->pc.projected, (uint64_t)r->moves);
    /* With the tick: a disagreement only where the move met another tick. */
    assert_int_equal(r->at_tick.unexplained, 0);
    assert_true(r->at_tick.tick_misses * 10 <= r->moves); /* at most one move in ten on a loaded machine */
    /* Without it some carried moves differ (a tick came between the newest
     * WorldState and the move's arrival): the ride does test something. */
    assert_true(r->newest.carried_disagreed > 0);
}

static void rider_predicted_at_the_tick_tcp(void **state)
{
    (void)state;
    lift_run r = ride(SWEEP_CLIENT_TCP);
    check("tcp", &r);
}

static void rider_predicted_at_the_tick_udp(void **state)
{
    (void)state;
    lift_run r = ride(SWEEP_CLIENT_UDP);
    check("udp", &r);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matching_answers_confirm),
        cmocka_unit_test(an_impossible_answer_is_refused),
        cmocka_unit_test(a_move_past_the_coordinate_limit_is_refused_as_the_server_does),
        cmocka_unit_test(a_wish_too_long_to_measure_is_refused_as_the_server_does),
        cmocka_unit_test(a_different_answer_rewinds_and_replays),
        cmocka_unit_test(lost_and_refused_moves),
        cmocka_unit_test(a_move_cut_by_the_time_budget_is_checked_exactly),
        cmocka_unit_test(rules_act_in_the_prediction),
        cmocka_unit_test(scripted_walk_is_predicted_exactly),
        cmocka_unit_test(player_in_real_time_is_predicted_exactly),
        cmocka_unit_test(forced_mismatch_rewinds_and_converges),
        cmocka_unit_test(rider_predicted_at_the_tick_tcp),
        cmocka_unit_test(rider_predicted_at_the_tick_udp),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
