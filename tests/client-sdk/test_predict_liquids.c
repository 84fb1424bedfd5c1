/*
 * test_predict_liquids.c - prediction through liquids and up a ladder,
 * against a real sweepd on maps/pool.sql: one player walks off the deck
 * into the pool, swims across with its head out (wishing up when under)
 * and jumps out onto the far deck; one walks into the slime corner and
 * is hurt by depth; one climbs the ladder onto the tower. Every answer is
 * predicted by libsweep's predictor bit for bit (no mismatch), every
 * answer's medium (liquid, type, depth, entered, left, ladder) and hurt
 * are what the predictor's own run of the move says, a swimmer's or
 * climber's wish along up is never named Vertical, and each event is
 * seen, over TCP and UDP.
 */
#include "tests/sweepd_fixture.h"

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

/* The server role: its Walk moves are the players' motion, with no time
 * budget to cut a test that moves faster than the clock. */
#define TOKEN "predict-liquids-token"

static fx_server D;
static sweep_level LV;
static sweep_world *W;
static char MAP[4096];

static int setup(void **state)
{
    char err[256];
    (void)state;
    if (sweep_map_load(fx_build("maps/pool.db", MAP, sizeof MAP), &LV, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&LV, &W, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "pool: %s\n", err);
        return -1;
    }
    const char *args[] = {"--command-token", TOKEN, NULL};
    return fx_start_map(&D, MAP, args);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&D);
    sweep_world_destroy(W);
    sweep_level_free(&LV);
    return rc == 0 ? 0 : -1;
}

/* The map's id of volume index i when the event is set, 0 for none (the
 * predictor's report has indices, the wire ids). */
static uint32_t id_of(uint32_t events, uint32_t bit, uint32_t index)
{
    return (events & bit) && index < LV.volume_count ? LV.volumes[index].id : 0;
}

typedef struct seen {
    int entered, left, swam_deep, water, slime, hurt, ladder, jumped_out, climbed_up;
} seen;

/* A script: the wish and buttons for a body at p (the predicted position). */
typedef sweep_wish (*script)(sweep_vec3 p);

/* Off the near deck, across with the head out, the water jump at the far
 * side, on along the far deck. */
static sweep_wish swimmer(sweep_vec3 p)
{
    sweep_wish w = {sweep_v3(5, 0, 0), 0};
    if (p.x > 10.5 && p.x < 21) {
        w.velocity = sweep_v3(2.4, 0, p.z < -0.9 ? 0.6 : 0.0);
        if (p.x > 19.4)
            w.velocity = sweep_v3(4, 0, 0), w.buttons = SWEEP_WISH_JUMP;
    }
    return w;
}

/* Into the slime corner from the deck beside it, then down. */
static sweep_wish slimer(sweep_vec3 p)
{
    sweep_wish w = {sweep_v3(p.x < 12 ? 5 : 0, 0, p.x < 12 ? 0 : -1), 0};
    return w;
}

/* Into the ladder's face and on over the tower's top. */
static sweep_wish climber(sweep_vec3 p)
{
    (void)p;
    sweep_wish w = {sweep_v3(5, 0, 0), 0};
    return w;
}

static void walk(sweep_client_transport t, sweep_vec3 start, script f, int steps, seen *s)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.client_name = "test_predict_liquids";
    o.auth_token = TOKEN;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_client_check_map(c, &LV, &e), SWEEP_CLIENT_OK);
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, start, LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    sweep_predictor *p = NULL;
    assert_int_equal(sweep_predictor_create(W, &LV.config, &LV.rules, sp.position, sp.radii, &p, &e),
                     SWEEP_CLIENT_OK);
    sweep_vec3 at = sp.position;
    for (int i = 0; i < steps; i++) {
        sweep_wish w = f(at);
        sweep_client_move_req m = {.entity = sp.entity, .velocity = w.velocity, .dt = 1.0 / 60, .buttons = w.buttons};
        uint32_t seq = sweep_client_next_sequence(c), got;
        sweep_act_result pr;
        assert_int_equal(sweep_predictor_step(p, seq, &w, m.dt, &pr, NULL), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_send_move(c, &m, &got, &e), SWEEP_CLIENT_OK);
        assert_int_equal(got, seq);
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        const sweep_msg_move_result *r = &ev.as.move_result;
        sweep_predict_ack a;
        assert_int_equal(sweep_predictor_ack(p, r, &a, NULL), SWEEP_CLIENT_OK);
        assert_true(a.found);
        assert_false(a.mismatch);
        const sweep_volume_report *v = &pr.volumes;
        uint32_t ev_bits = v->events;
        assert_int_equal(r->liquid, id_of(ev_bits, SWEEP_VOLUME_EV_IN_LIQUID, v->liquid));
        assert_int_equal(r->liquid_type, ev_bits & SWEEP_VOLUME_EV_IN_LIQUID ? v->liquid_type : 0);
        assert_int_equal(r->liquid_level, ev_bits & SWEEP_VOLUME_EV_IN_LIQUID ? v->liquid_level : 0);
        assert_int_equal(r->entered_liquid, id_of(ev_bits, SWEEP_VOLUME_EV_LIQUID_ENTERED, v->liquid_entered));
        assert_int_equal(r->left_liquid, id_of(ev_bits, SWEEP_VOLUME_EV_LIQUID_LEFT, v->liquid_left));
        assert_int_equal(r->ladder, id_of(ev_bits, SWEEP_VOLUME_EV_ON_LADDER, v->ladder));
        assert_int_equal(r->hurt_by, id_of(ev_bits, SWEEP_VOLUME_EV_HURT, v->hurt_by));
        if (r->hurt_by)
            assert_memory_equal(&r->damage, &v->damage, sizeof r->damage);
        if (ev_bits & (SWEEP_VOLUME_EV_SWAM | SWEEP_VOLUME_EV_CLIMBED))
            assert_false(r->rules & SWEEP_WIRE_RULE_VERTICAL);
        s->entered += r->entered_liquid != 0;
        s->left += r->left_liquid != 0;
        s->swam_deep += r->liquid_level >= 2;
        s->water += r->liquid_type == SWEEP_LIQUID_WATER;
        s->slime += r->liquid_type == SWEEP_LIQUID_SLIME;
        s->hurt += r->hurt_by != 0;
        s->ladder += r->ladder != 0;
        if (r->left_liquid && r->position.x > 19)
            s->jumped_out++;
        if (r->grounded && r->position.z > 4.8 && r->position.x > 30.5)
            s->climbed_up++;
        at = r->position;
    }
    sweep_predict_counters pc;
    sweep_predictor_get_counters(p, &pc);
    assert_int_equal(pc.mismatches, 0);
    sweep_predictor_destroy(p);
    sweep_client_close(c);
}

static void liquids_and_ladders_are_predicted_exactly(void **state)
{
    (void)state;
    const sweep_client_transport ts[2] = {SWEEP_CLIENT_TCP, SWEEP_CLIENT_UDP};
    for (int k = 0; k < 2; k++) {
        seen s = {0};
        walk(ts[k], sweep_v3(5, 0, 0.9005), swimmer, 480, &s);
        assert_true(s.entered >= 1 && s.left >= 1);
        assert_true(s.swam_deep > 0 && s.water > 0);
        assert_int_equal(s.jumped_out, 1);
        assert_int_equal(s.slime, 0);
        assert_int_equal(s.hurt, 0);
        walk(ts[k], sweep_v3(8, 8, 0.9005), slimer, 180, &s);
        assert_true(s.slime > 0 && s.hurt > 0);
        walk(ts[k], sweep_v3(27, 0, 0.9005), climber, 240, &s);
        assert_true(s.ladder > 0);
        assert_true(s.climbed_up > 0);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(liquids_and_ladders_are_predicted_exactly),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
