/*
 * test_predict_crouch.c - crouching end to end, against a real sweepd
 * recording its session: a map written with crouch rules (a floor and a
 * slab too low to stand under), a player that walks to the slab, crouches,
 * walks under it, lets go of crouch there (the server says it cannot
 * stand: stance_blocked) and stands up by itself once clear. libsweep's
 * predictor predicts every answer bit for bit (no mismatch, no claim
 * flagged, no rule named but the one the script asks for), and every
 * answer's crouched and stance_blocked are what the predictor's own run
 * of the move says. The crouch button on a map without crouching is named
 * Buttons and changes nothing. The recorded log then replays at both
 * depths (sweep-replay and sweep-replay --core) without a difference.
 */
#include "tests/sweepd_fixture.h"

#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "core/stance.h"
#include "maps/loader.h"
#include "maps/writer.h"

#define TOKEN "predict-crouch-token"
#define SLAB_X0 4.0
#define SLAB_X1 8.0
#define SLAB_Z 1.4

static char DIRNAME[256], MAP[512], REC[512];
static sweep_level LV;
static sweep_world *W;

/* The map: the default rules, crouching at 2 m/s in a 1 m tall shape. */
static int write_map(void)
{
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "crouch");
    lv.rules.crouch_radii = sweep_v3(0.4, 0.4, 0.5);
    lv.rules.crouch_speed = 2.0;
    sweep_status st = sweep_level_add_material(&lv, 1, "ground", 1.0, 0);
    if (st == SWEEP_OK)
        st = sweep_level_add_quad(&lv, sweep_v3(-50, -50, 0), sweep_v3(50, -50, 0), sweep_v3(50, 50, 0),
                                           sweep_v3(-50, 50, 0), 1);
    if (st == SWEEP_OK)
        st = sweep_level_add_box(&lv, sweep_v3(SLAB_X0, -20, SLAB_Z), sweep_v3(SLAB_X1, 20, 3.0), 1, 1);
    if (st == SWEEP_OK)
        st = sweep_level_add_spawn(&lv, sweep_v3(0, 0, 1));
    char err[256] = "";
    sweep_map_write_options o = {.units = "m", .walkable_slope_deg = 45.0};
    if (st == SWEEP_OK)
        st = sweep_map_write(MAP, &lv, &o, NULL, err, sizeof err);
    sweep_level_free(&lv);
    if (st != SWEEP_OK)
        fprintf(stderr, "crouch map: %s %s\n", sweep_status_name(st), err);
    return st == SWEEP_OK ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    snprintf(DIRNAME, sizeof DIRNAME, "/tmp/sweep-crouch-XXXXXX");
    if (!mkdtemp(DIRNAME))
        return -1;
    snprintf(MAP, sizeof MAP, "%s/crouch.db", DIRNAME);
    snprintf(REC, sizeof REC, "%s/rec", DIRNAME);
    if (mkdir(REC, 0700) != 0 || write_map() != 0)
        return -1;
    char err[256];
    if (sweep_map_load(MAP, &LV, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&LV, &W, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "crouch map: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sweep_world_destroy(W);
    sweep_level_free(&LV);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIRNAME);
    return fx_run(cmd, NULL) == 0 ? 0 : -1;
}

static sweep_client *connect_to(const fx_server *d, sweep_client_transport t)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? d->tcp : d->udp;
    o.client_name = "test_predict_crouch";
    o.auth_token = TOKEN;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
    return c;
}

/* What the script of move i wishes: to the slab standing (it stops at its
 * side), crouched under it, then crouch let go while under it, on and out. */
static sweep_wish script(int i)
{
    if (i < 90)
        return (sweep_wish){sweep_v3(5, 0, 0), 0};
    if (i < 150)
        return (sweep_wish){sweep_v3(2, 0, 0), SWEEP_WISH_CROUCH};
    return (sweep_wish){sweep_v3(5, 0, 0), 0};
}

typedef struct seen {
    int crouched, blocked, stood_after_blocked;
} seen;

/* Walks the script over transport t, one move in flight, each predicted
 * and its claim the prediction. */
static void walk(const fx_server *d, sweep_client_transport t, seen *s)
{
    sweep_client *c = connect_to(d, t);
    sweep_client_error e;
    assert_int_equal(sweep_client_check_map(c, &LV, &e), SWEEP_CLIENT_OK);
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, sweep_v3(0, 0, 0.95), LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    sweep_predictor *p = NULL;
    assert_int_equal(sweep_predictor_create(W, &LV.config, &LV.rules, sp.position, sp.radii, &p, &e),
                     SWEEP_CLIENT_OK);
    int was_blocked = 0;
    for (int i = 0; i < 300; i++) {
        sweep_wish w = script(i);
        uint32_t seq = sweep_client_next_sequence(c), got;
        sweep_act_result pr;
        assert_int_equal(sweep_predictor_step(p, seq, &w, 1.0 / 60, &pr, NULL), SWEEP_CLIENT_OK);
        sweep_client_move_req m = {.entity = sp.entity, .velocity = w.velocity, .buttons = w.buttons,
                                   .dt = 1.0 / 60, .has_claimed_position = 1,
                                   .claimed_position = sweep_predictor_current(p).position};
        assert_int_equal(sweep_client_send_move(c, &m, &got, &e), SWEEP_CLIENT_OK);
        assert_int_equal(got, seq);
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        const sweep_msg_move_result *r = &ev.as.move_result;
        sweep_predict_ack a;
        assert_int_equal(sweep_predictor_ack(p, r, &a, NULL), SWEEP_CLIENT_OK);
        assert_true(a.found);
        if (a.mismatch)
            fail_msg("move %d: the answer differs from the prediction", i);
        assert_false(r->corrected);
        assert_int_equal(r->rules, 0);
        assert_int_equal(r->crouched, sweep_predictor_current(p).stance == SWEEP_STANCE_CROUCH);
        assert_int_equal(r->stance_blocked, pr.stance_blocked != 0);
        s->crouched += r->crouched;
        s->blocked += r->stance_blocked;
        if (was_blocked && !r->crouched && !s->stood_after_blocked) {
            s->stood_after_blocked = 1;
            /* It stood up only once its standing shape cleared the slab. */
            assert_true(r->position.x + 0.4 >= SLAB_X1 - 1e-3);
        }
        was_blocked |= r->stance_blocked;
        if (r->stance_blocked)
            assert_true(r->crouched && r->position.x < SLAB_X1 + 0.4); /* its standing shape would meet the slab */
    }
    sweep_predict_counters pc;
    sweep_predictor_get_counters(p, &pc);
    assert_int_equal(pc.mismatches, 0);
    assert_int_equal(sweep_predictor_current(p).stance, SWEEP_STANCE_STAND);
    sweep_predictor_destroy(p);
    sweep_client_close(c);
}

/* The one log in dir (its name into out); 1 if there is exactly one. */
static int the_log(const char *dir, char *out, size_t cap)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name), sl = strlen(".sweeplog");
        if (l > sl && strcmp(e->d_name + l - sl, ".sweeplog") == 0 && n++ == 0)
            snprintf(out, cap, "%s/%s", dir, e->d_name);
    }
    closedir(dp);
    return n == 1;
}

static void crouching_is_predicted_recorded_and_replayed(void **state)
{
    (void)state;
    fx_server d;
    const char *extra[] = {"--command-token", TOKEN, "--record", REC, NULL};
    assert_int_equal(fx_start_map(&d, MAP, extra), 0);
    seen tcp = {0}, udp = {0};
    walk(&d, SWEEP_CLIENT_TCP, &tcp);
    walk(&d, SWEEP_CLIENT_UDP, &udp);
    assert_int_equal(fx_stop(&d), 0);
    /* The script crouches for a second, is held crouched under the slab
     * for a while, and stands up once clear; the same over both. */
    assert_true(tcp.crouched > 60);
    assert_true(tcp.blocked > 10);
    assert_true(tcp.stood_after_blocked);
    assert_memory_equal(&tcp, &udp, sizeof tcp);

    char log[1024], replay[1100], *out = NULL;
    assert_true(the_log(REC, log, sizeof log));
    fx_build("bin/sweep-replay", replay, sizeof replay);
    for (int core = 0; core < 2; core++) {
        int rc = fx_run_program(replay, &out, "'%s' --map '%s'%s", log, MAP, core ? " --core" : "");
        if (rc != 0)
            fail_msg("sweep-replay%s: exit %d: %s", core ? " --core" : "", rc, out ? out : "");
        free(out);
        out = NULL;
    }
}

/* On a map without crouching the button is ignored, and named. */
static void crouch_without_crouching_is_named_buttons(void **state)
{
    (void)state;
    fx_server d;
    const char *extra[] = {"--command-token", TOKEN, NULL};
    assert_int_equal(fx_start(&d, extra), 0);
    sweep_client *c = connect_to(&d, SWEEP_CLIENT_TCP);
    sweep_client_error e;
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, sweep_v3(4, 0, 1), sweep_v3(0.4, 0.4, 0.9), &sp, &e), SWEEP_CLIENT_OK);
    sweep_client_move_req m = {.entity = sp.entity, .velocity = sweep_v3(1, 0, 0), .buttons = SWEEP_WISH_CROUCH,
                               .dt = 1.0 / 60};
    uint32_t got;
    assert_int_equal(sweep_client_send_move(c, &m, &got, &e), SWEEP_CLIENT_OK);
    sweep_client_event ev;
    assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
    assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
    assert_true(ev.as.move_result.rules & SWEEP_WIRE_RULE_BUTTONS);
    assert_false(ev.as.move_result.crouched);
    assert_false(ev.as.move_result.stance_blocked);
    sweep_client_close(c);
    assert_int_equal(fx_stop(&d), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crouching_is_predicted_recorded_and_replayed),
        cmocka_unit_test(crouch_without_crouching_is_named_buttons),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
