/*
 * test_predict_volumes.c - prediction through every kind of volume,
 * against a real sweepd on maps/pads.sql: one player walks through the
 * burning pool, into the teleporter, off the platform it lands on and
 * into the kill strip; another through the gate trigger and onto the jump
 * pad, which throws it onto the platform, where it stays. Every answer is predicted by
 * libsweep's predictor bit for bit (no mismatch), every answer's volume
 * fields are what the predictor's own run of the move says, each kind of
 * event is seen, and the kill ends with an unasked Despawned naming the
 * kill volume.
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

#define TOKEN "predict-volumes-token"

static fx_server D;
static sweep_level LV;
static sweep_world *W;
static char MAP[4096];

static int setup(void **state)
{
    char err[256];
    (void)state;
    if (sweep_map_load(fx_build("maps/pads.db", MAP, sizeof MAP), &LV, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&LV, &W, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "pads: %s\n", err);
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

/* The map's id of volume index i, 0 for none (the predictor's events are
 * indices, the wire's ids). */
static uint32_t id_of(uint32_t events, uint32_t bit, uint32_t index)
{
    return (events & bit) && index < LV.volume_count ? LV.volumes[index].id : 0;
}

typedef struct seen {
    int launched, teleported, hurt, killed, entered, left, despawned;
} seen;

/* Walks one entity from start with wish(i) for up to steps moves, one in
 * flight, over transport t; counts what the volumes did. */
static void walk(sweep_client_transport t, sweep_vec3 start, sweep_vec3 (*wish)(int), int steps, seen *s)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.client_name = "test_predict_volumes";
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
    int gone = 0;
    for (int i = 0; i < steps && !gone; i++) {
        sweep_wish w = {.velocity = wish(i), .buttons = 0};
        sweep_client_move_req m = {.entity = sp.entity, .velocity = w.velocity, .dt = 1.0 / 60};
        uint32_t seq = sweep_client_next_sequence(c), got;
        sweep_act_result pr;
        assert_int_equal(sweep_predictor_step(p, seq, &w, m.dt, &pr, NULL), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_send_move(c, &m, &got, &e), SWEEP_CLIENT_OK);
        assert_int_equal(got, seq);
        for (;;) {
            sweep_client_event ev;
            assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
            if (ev.kind == SWEEP_CLIENT_EV_DESPAWNED) {
                assert_int_equal(ev.as.despawned.entity, sp.entity);
                assert_int_equal(ev.as.despawned.killed_by, 5); /* 'fell into the lava' */
                s->despawned++;
                gone = 1;
                break;
            }
            assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
            const sweep_msg_move_result *r = &ev.as.move_result;
            sweep_predict_ack a;
            assert_int_equal(sweep_predictor_ack(p, r, &a, NULL), SWEEP_CLIENT_OK);
            assert_true(a.found);
            assert_false(a.mismatch);
            uint32_t v = pr.volumes.events;
            assert_int_equal(r->launched_by, id_of(v, SWEEP_VOLUME_EV_LAUNCHED, pr.volumes.launched_by));
            assert_int_equal(r->teleported_by,
                             id_of(v, SWEEP_VOLUME_EV_TELEPORTED | SWEEP_VOLUME_EV_TELEPORT_BLOCKED,
                                   pr.volumes.teleported_by));
            assert_int_equal(r->hurt_by, id_of(v, SWEEP_VOLUME_EV_HURT, pr.volumes.hurt_by));
            assert_int_equal(r->killed_by, id_of(v, SWEEP_VOLUME_EV_KILLED, pr.volumes.killed_by));
            assert_int_equal(r->entered, id_of(v, SWEEP_VOLUME_EV_ENTERED, pr.volumes.entered));
            assert_int_equal(r->left, id_of(v, SWEEP_VOLUME_EV_LEFT, pr.volumes.left));
            if (r->hurt_by)
                assert_memory_equal(&r->damage, &pr.volumes.damage, sizeof r->damage);
            if (getenv("SWEEP_TEST_VERBOSE") && (r->launched_by | r->teleported_by | r->killed_by | r->entered | r->left))
                print_message("move %d at (%g, %g, %g): launched %u teleported %u killed %u entered %u left %u\n", i,
                              r->position.x, r->position.y, r->position.z, r->launched_by, r->teleported_by,
                              r->killed_by, r->entered, r->left);
            s->launched += r->launched_by != 0;
            s->teleported += r->teleported_by != 0 && !r->teleport_blocked;
            s->hurt += r->hurt_by != 0;
            s->killed += r->killed_by != 0;
            s->entered += r->entered != 0;
            s->left += r->left != 0;
            if (!r->killed_by)
                break; /* a kill's Despawned follows its answer */
        }
    }
    sweep_predict_counters pc;
    sweep_predictor_get_counters(p, &pc);
    assert_int_equal(pc.mismatches, 0);
    sweep_predictor_destroy(p);
    sweep_client_close(c);
}

/* East along y = 0 from x = -24: the pool at x -21 .. -19, the teleporter
 * at -11 .. -9; from its destination on the platform (facing +y, 4 m/s)
 * on east off the platform's edge at x = 34, down, into the strip at 36. */
static sweep_vec3 east(int i)
{
    (void)i;
    return sweep_v3(5, 0, 0);
}

/* West from x = 8: across the gate at x 5 .. 6, onto the pad at 0. */
static sweep_vec3 west(int i)
{
    return i < 120 ? sweep_v3(-5, 0, 0) : sweep_v3(0, 0, 0);
}

static void every_volume_is_predicted_exactly(void **state)
{
    (void)state;
    const sweep_client_transport ts[2] = {SWEEP_CLIENT_TCP, SWEEP_CLIENT_UDP};
    for (int k = 0; k < 2; k++) {
        seen s = {0};
        walk(ts[k], sweep_v3(-24, 0, 0.9005), east, 900, &s);
        walk(ts[k], sweep_v3(8, 0, 0.9005), west, 400, &s);
        assert_true(s.hurt > 0);
        assert_int_equal(s.teleported, 1);
        assert_int_equal(s.killed, 1);
        assert_int_equal(s.despawned, 1);
        assert_true(s.entered >= 1 && s.left >= 1);
        assert_true(s.launched >= 1);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_volume_is_predicted_exactly),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
