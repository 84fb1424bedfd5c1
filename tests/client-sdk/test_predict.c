/*
 * test_predict.c - client-side prediction and reconciliation (predict.h).
 *
 * First without a server (answers made from the core itself): an answer
 * equal to the prediction confirms it; a different one rewinds to it and
 * replays the later moves; a lost move is given up; a refused one is
 * forgotten. Then against a real sweepd on the arena: a scripted walk with
 * several moves in flight is predicted bit for bit on every move (TCP and
 * UDP, with claimed positions the server never corrects), and a forced
 * mismatch (a move predicted but never sent) triggers one rewind and
 * replay after which prediction and server agree again, to the bit.
 */
#include "tests/client-sdk/sweepd_fixture.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "core/vec3.h"
#include "maps/loader.h"

static sweepd D;
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
    return fx_start(&D);
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

/* The answer a faithful server gives for state s after (v, dt). */
static sweep_msg_move_result answer(sweep_predict_state *s, uint32_t seq, sweep_vec3 v, double dt)
{
    sweep_move_result r;
    assert_int_equal(sweep_predict_run(W, NULL, &LV.config, LV.default_radii, s, v, dt, &r), SWEEP_OK);
    sweep_msg_move_result m = {0};
    m.sequence = seq;
    m.position = r.position;
    m.velocity = r.velocity;
    m.grounded = s->grounded;
    return m;
}

static sweep_vec3 script_velocity(int i)
{
    /* Along +x, then +y, with a steady fall: reaches the ground and walks. */
    return i < 40 ? sweep_v3(3, 0, -4) : sweep_v3(0, 3, -4);
}

static void matching_answers_confirm(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(0, 0, 1);
    sweep_predictor p;
    sweep_predictor_init(&p, W, &LV.config, start, LV.default_radii);
    sweep_predict_state server = {.position = start};
    for (int i = 0; i < 80; i++)
        assert_int_equal(sweep_predictor_step(&p, (uint32_t)i + 10, script_velocity(i), 1.0 / 60, NULL), SWEEP_OK);
    assert_int_equal(p.count, 80);
    for (int i = 0; i < 80; i++) {
        sweep_msg_move_result r = answer(&server, (uint32_t)i + 10, script_velocity(i), 1.0 / 60);
        sweep_predict_ack a;
        assert_int_equal(sweep_predictor_ack(&p, &r, &a), SWEEP_OK);
        assert_true(a.found);
        assert_false(a.mismatch);
        assert_int_equal(a.replayed, 0);
    }
    assert_int_equal(p.count, 0);
    assert_int_equal(p.acks_matched, 80);
    sweep_predict_state cur = sweep_predictor_current(&p);
    assert_true(same_vec(cur.position, server.position));
    /* A duplicate answer changes nothing. */
    sweep_msg_move_result dup = {.sequence = 89, .position = sweep_v3(99, 99, 99)};
    sweep_predict_ack a;
    sweep_predictor_ack(&p, &dup, &a);
    assert_false(a.found);
    assert_true(same_vec(sweep_predictor_current(&p).position, server.position));
    sweep_predictor_free(&p);
}

static void a_different_answer_rewinds_and_replays(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(0, 0, 1);
    sweep_predictor p;
    sweep_predictor_init(&p, W, &LV.config, start, LV.default_radii);
    for (int i = 0; i < 10; i++)
        assert_int_equal(sweep_predictor_step(&p, (uint32_t)i + 1, script_velocity(i), 1.0 / 60, NULL), SWEEP_OK);
    /* The server had the player somewhere else (it was pushed, say). */
    sweep_predict_state server = {.position = sweep_v3(2, 2, 1)};
    sweep_msg_move_result r = answer(&server, 1, script_velocity(0), 1.0 / 60);
    sweep_predict_ack a;
    sweep_predictor_ack(&p, &r, &a);
    assert_true(a.found && a.mismatch);
    assert_int_equal(a.replayed, 9);
    assert_int_equal(p.mismatches, 1);
    /* The replayed prediction is what the server will say for the rest. */
    for (int i = 1; i < 10; i++) {
        r = answer(&server, (uint32_t)i + 1, script_velocity(i), 1.0 / 60);
        sweep_predictor_ack(&p, &r, &a);
        assert_true(a.found);
        assert_false(a.mismatch);
    }
    assert_true(same_vec(sweep_predictor_current(&p).position, server.position));
    sweep_predictor_free(&p);
}

static void lost_and_refused_moves(void **state)
{
    (void)state;
    sweep_vec3 start = sweep_v3(4, 4, 1);
    sweep_predictor p;
    sweep_predictor_init(&p, W, &LV.config, start, LV.default_radii);
    for (int i = 0; i < 6; i++)
        assert_int_equal(sweep_predictor_step(&p, (uint32_t)i + 1, script_velocity(i), 1.0 / 60, NULL), SWEEP_OK);
    /* Move 3 is refused: forgotten, 4..6 replayed without it. */
    sweep_predict_ack a;
    sweep_predictor_reject(&p, 3, &a);
    assert_true(a.found);
    assert_int_equal(a.replayed, 3);
    assert_int_equal(p.count, 5);
    /* Moves 1 and 2 were lost: the answer to 4 gives them up. */
    sweep_predict_state server = {.position = start};
    sweep_msg_move_result r = answer(&server, 4, script_velocity(3), 1.0 / 60);
    sweep_predictor_ack(&p, &r, &a);
    assert_true(a.found && a.mismatch);
    assert_int_equal(a.dropped, 2);
    assert_int_equal(a.replayed, 2);
    for (int i = 4; i < 6; i++) {
        r = answer(&server, (uint32_t)i + 1, script_velocity(i), 1.0 / 60);
        sweep_predictor_ack(&p, &r, &a);
        assert_false(a.mismatch);
    }
    assert_int_equal(p.count, 0);
    assert_true(same_vec(sweep_predictor_current(&p).position, server.position));
    /* Bad input is refused by the core and not kept. */
    assert_int_equal(sweep_predictor_step(&p, 100, sweep_v3(NAN, 0, 0), 1.0 / 60, NULL), SWEEP_E_NONFINITE);
    assert_int_equal(p.count, 0);
    sweep_predictor_free(&p);
}

static sweep_client *connect_to(sweep_client_transport t)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.client_name = "test_predict";
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
 * landing, back down; a steady fall velocity keeps it on the ground. */
static sweep_vec3 tour_velocity(int i)
{
    if (i < 60)
        return sweep_v3(-4, -3, -6);
    if (i < 150)
        return sweep_v3(0, 4, -6);
    if (i < 200)
        return sweep_v3(4, 0, -6);
    return sweep_v3(0, -4, -6);
}

/* Walks `steps` moves with up to `window` in flight; with skip > 0, move
 * number `skip` is predicted but never sent (the forced mismatch). Returns
 * the number of mismatching answers. */
static int predicted_walk(sweep_client_transport t, int steps, int window, int skip)
{
    sweep_client *c = connect_to(t);
    sweep_client_error e;
    assert_int_equal(sweep_client_check_map(c, &LV, &e), SWEEP_CLIENT_OK);
    sweep_msg_spawned sp;
    sweep_vec3 start = sweep_v3(-10, -14, 0.95);
    assert_int_equal(sweep_client_spawn(c, start, LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    sweep_predictor p;
    sweep_predictor_init(&p, W, &LV.config, sp.position, sp.radii);
    int sent = 0, sent_real = 0, answered = 0, mismatches = 0, expected = steps - (skip > 0);
    sweep_msg_move_result last = {0};
    while (answered < expected) {
        while (sent < steps && sent_real - answered < window) {
            sweep_vec3 v = tour_velocity(sent);
            sweep_client_move_req m = {.entity = sp.entity, .velocity = v, .dt = 1.0 / 60};
            uint32_t seq;
            if (sent + 1 == skip) {
                /* Predicted, never sent: the server will not know it. Its
                 * number (0) is below every real one, as a lost move's is. */
                assert_int_equal(sweep_predictor_step(&p, 0, v, m.dt, NULL), SWEEP_OK);
                sent++;
                continue;
            }
            /* The claimed position is the prediction: the server must agree. */
            sweep_predict_state cur = sweep_predictor_current(&p);
            sweep_move_result pr;
            sweep_predict_state tmp = cur;
            assert_int_equal(sweep_predict_run(W, NULL, &LV.config, sp.radii, &tmp, v, m.dt, &pr), SWEEP_OK);
            m.has_claimed_position = 1;
            m.claimed_position = pr.position;
            assert_int_equal(sweep_client_send_move(c, &m, &seq, &e), SWEEP_CLIENT_OK);
            assert_int_equal(sweep_predictor_step(&p, seq, v, m.dt, NULL), SWEEP_OK);
            sent++;
            sent_real++;
        }
        sweep_client_event ev;
        sweep_client_status s = sweep_client_poll(c, 20000, &ev, &e);
        if (s != SWEEP_CLIENT_OK)
            fprintf(stderr, "poll: %s: %s\n", sweep_client_error_name(&e), e.message);
        assert_int_equal(s, SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_ERROR)
            fprintf(stderr, "server error %s: %s\n", sweep_client_error_name(&ev.as.error), ev.as.error.message);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        sweep_predict_ack a;
        assert_int_equal(sweep_predictor_ack(&p, &ev.as.move_result, &a), SWEEP_OK);
        if (!a.found)
            continue; /* a duplicate answer to a UDP resend */
        answered++;
        mismatches += a.mismatch;
        if (!a.mismatch && skip == 0)
            assert_false(ev.as.move_result.corrected);
        last = ev.as.move_result;
    }
    /* Converged: the prediction is the server's last answer, to the bit. */
    assert_int_equal(p.count, 0);
    sweep_predict_state cur = sweep_predictor_current(&p);
    assert_true(same_vec(cur.position, last.position));
    assert_true(same_vec(cur.velocity, last.velocity));
    assert_int_equal(cur.grounded, last.grounded);
    /* With moves in flight behind the lost one, they were replayed. */
    if (skip && window > 1)
        assert_true(p.replayed_moves > 0);
    sweep_predictor_free(&p);
    sweep_client_close(c);
    return mismatches;
}

static void scripted_walk_is_predicted_exactly(void **state)
{
    (void)state;
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 260, 1, 0), 0);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 260, 8, 0), 0);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_UDP, 260, 4, 0), 0);
}

static void forced_mismatch_rewinds_and_converges(void **state)
{
    (void)state;
    /* Skipping move 100 (mid-stairs) changes where the server is: exactly
     * the first answer after it differs, the rest are predicted again. */
    assert_int_equal(predicted_walk(SWEEP_CLIENT_TCP, 260, 6, 100), 1);
    assert_int_equal(predicted_walk(SWEEP_CLIENT_UDP, 260, 1, 100), 1);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matching_answers_confirm),
        cmocka_unit_test(a_different_answer_rewinds_and_replays),
        cmocka_unit_test(lost_and_refused_moves),
        cmocka_unit_test(scripted_walk_is_predicted_exactly),
        cmocka_unit_test(forced_mismatch_rewinds_and_converges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
