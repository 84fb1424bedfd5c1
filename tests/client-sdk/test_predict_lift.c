/*
 * test_predict_lift.c - prediction among movers against a real sweepd on
 * the arena: a player standing and stepping about on the lift (mover 3,
 * always running up and down) while the lift carries it, over TCP and UDP.
 *
 * Two predictors follow the same player through the same WorldStates
 * (every tick) and answers: one given the tick each move will meet
 * (sweep_client_estimate_tick, sweep_predictor_step_at), the other
 * predicting against the newest poses it was told (sweep_predictor_step,
 * as libsweep did before it estimated ticks). The first prediction of each
 * move is compared with its answer, bit for bit. With the tick, a move
 * whose answer differs must have met another tick than estimated (a
 * scheduling stall of the loaded machine, or a send within the timing
 * noise of a tick boundary): every disagreement is such a tick miss, and
 * misses are a small part of the moves. Without it the moves that meet a
 * tick after the newest WorldState the client holds (one in five or so
 * on loopback) differ, which shows the ride tests something.
 * SWEEP_TEST_VERBOSE prints the counts (docs/performance.md quotes them).
 */
#include "tests/sweepd_fixture.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "core/vec3.h"
#include "maps/loader.h"

#define TOKEN "predict-lift-test-token"
#define LIFT_ID 3
/* Moves every 15 ms with dt 15 ms: not a multiple of the arena's 60 Hz
 * tick, so the moves meet every phase of it. */
#define MOVE_NS 15000000u
#define MOVE_DT 0.015
/* Moves carried by the lift to count, at least. */
#define CARRIED_MOVES 150

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
    /* The server role spawns where it asks (on the lift, in the wing). */
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
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.client_name = "test_predict_lift";
    o.auth_token = TOKEN;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
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
    assert_true(r->on_lift * 10 >= r->moves * 9); /* it stayed on the lift */
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
        cmocka_unit_test(rider_predicted_at_the_tick_tcp),
        cmocka_unit_test(rider_predicted_at_the_tick_udp),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
