/*
 * test_predict_volumes.c - prediction through every kind of volume,
 * against a real sweepd. On maps/pads.sql one player walks through the
 * burning pool, into the teleporter, off the platform it lands on and
 * into the kill strip; another through the gate trigger and onto the jump
 * pad, which throws it onto the platform, where it stays. On
 * maps/pool.sql one walks off the deck into the pool, swims across with
 * its head out (wishing up when under) and jumps out onto the far deck;
 * one walks into the slime corner and is hurt by depth; one climbs the
 * ladder onto the tower. Every answer is predicted by libsweep's
 * predictor bit for bit (no mismatch), every answer's volume fields and
 * medium (liquid, type, depth, entered, left, ladder) are what the
 * predictor's own run of the move says, a swimmer's or climber's wish
 * along up is never named Vertical, each kind of event is seen, and the
 * kill ends with an unasked Despawned naming the kill volume, over TCP
 * and UDP.
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
#define TOKEN "predict-volumes-token"

static fx_server D;
static sweep_level LV;
static sweep_world *W;
static char MAP[4096];

/* A sweepd on the sample map `map` of the build, and the level and world
 * the predictor runs on. */
static int start(const char *map)
{
    char err[256];
    if (sweep_map_load(fx_build(map, MAP, sizeof MAP), &LV, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&LV, &W, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "%s: %s\n", map, err);
        return -1;
    }
    const char *args[] = {"--command-token", TOKEN, NULL};
    return fx_start_map(&D, MAP, args);
}

static int on_pads(void **state)
{
    (void)state;
    return start("maps/pads.db");
}

static int on_pool(void **state)
{
    (void)state;
    return start("maps/pool.db");
}

static int stop(void **state)
{
    (void)state;
    int rc = fx_stop(&D);
    sweep_world_destroy(W);
    sweep_level_free(&LV);
    return rc == 0 ? 0 : -1;
}

/* The map's id of volume index i when the event is set, 0 for none (the
 * predictor's events are indices, the wire's ids). */
static uint32_t id_of(uint32_t events, uint32_t bit, uint32_t index)
{
    return (events & bit) && index < LV.volume_count ? LV.volumes[index].id : 0;
}

typedef struct seen {
    int launched, teleported, hurt, killed, entered, left, despawned;
    int liquid_entered, liquid_left, swam_deep, water, slime, ladder, jumped_out, climbed_up;
} seen;

/* A script: the wish and buttons of move i for a body at p (the position
 * the last answer gave). */
typedef sweep_wish (*script)(int i, sweep_vec3 p);

/* Walks one entity from start by the script for up to steps moves, one in
 * flight, over transport t; counts what the volumes did. */
static void walk(sweep_client_transport t, sweep_vec3 start_at, script f, int steps, seen *s)
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
    assert_int_equal(sweep_client_spawn(c, start_at, LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    sweep_predictor *p = NULL;
    assert_int_equal(sweep_predictor_create(W, &LV.config, &LV.rules, sp.position, sp.radii, &p, &e),
                     SWEEP_CLIENT_OK);
    sweep_vec3 at = sp.position;
    int gone = 0;
    for (int i = 0; i < steps && !gone; i++) {
        sweep_wish w = f(i, at);
        sweep_client_move_req m = {.entity = sp.entity, .velocity = w.velocity, .dt = 1.0 / 60, .buttons = w.buttons};
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
                assert_int_equal(ev.as.despawned.killed_by, 5); /* pads: 'fell into the lava' */
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
            const sweep_volume_report *pv = &pr.volumes;
            uint32_t v = pv->events;
            assert_int_equal(r->launched_by, id_of(v, SWEEP_VOLUME_EV_LAUNCHED, pv->launched_by));
            assert_int_equal(r->teleported_by,
                             id_of(v, SWEEP_VOLUME_EV_TELEPORTED | SWEEP_VOLUME_EV_TELEPORT_BLOCKED,
                                   pv->teleported_by));
            assert_int_equal(r->hurt_by, id_of(v, SWEEP_VOLUME_EV_HURT, pv->hurt_by));
            assert_int_equal(r->killed_by, id_of(v, SWEEP_VOLUME_EV_KILLED, pv->killed_by));
            assert_int_equal(r->entered, id_of(v, SWEEP_VOLUME_EV_ENTERED, pv->entered));
            assert_int_equal(r->left, id_of(v, SWEEP_VOLUME_EV_LEFT, pv->left));
            if (r->hurt_by)
                assert_memory_equal(&r->damage, &pv->damage, sizeof r->damage);
            assert_int_equal(r->liquid, id_of(v, SWEEP_VOLUME_EV_IN_LIQUID, pv->liquid));
            assert_int_equal(r->liquid_type, v & SWEEP_VOLUME_EV_IN_LIQUID ? pv->liquid_type : 0);
            assert_int_equal(r->liquid_level, v & SWEEP_VOLUME_EV_IN_LIQUID ? pv->liquid_level : 0);
            assert_int_equal(r->entered_liquid, id_of(v, SWEEP_VOLUME_EV_LIQUID_ENTERED, pv->liquid_entered));
            assert_int_equal(r->left_liquid, id_of(v, SWEEP_VOLUME_EV_LIQUID_LEFT, pv->liquid_left));
            assert_int_equal(r->ladder, id_of(v, SWEEP_VOLUME_EV_ON_LADDER, pv->ladder));
            if (v & (SWEEP_VOLUME_EV_SWAM | SWEEP_VOLUME_EV_CLIMBED))
                assert_false(r->rules & SWEEP_WIRE_RULE_VERTICAL);
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
            s->liquid_entered += r->entered_liquid != 0;
            s->liquid_left += r->left_liquid != 0;
            s->swam_deep += r->liquid_level >= 2;
            s->water += r->liquid_type == SWEEP_LIQUID_WATER;
            s->slime += r->liquid_type == SWEEP_LIQUID_SLIME;
            s->ladder += r->ladder != 0;
            s->jumped_out += r->left_liquid && r->position.x > 19;
            s->climbed_up += r->grounded && r->position.z > 4.8 && r->position.x > 30.5;
            at = r->position;
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

static sweep_wish wish_of(sweep_vec3 v)
{
    sweep_wish w = {v, 0};
    return w;
}

/* pads: east along y = 0 from x = -24: the pool at x -21 .. -19, the
 * teleporter at -11 .. -9; from its destination on the platform (facing
 * +y, 4 m/s) on east off the platform's edge at x = 34, down, into the
 * strip at 36. */
static sweep_wish east(int i, sweep_vec3 p)
{
    (void)i, (void)p;
    return wish_of(sweep_v3(5, 0, 0));
}

/* pads: west from x = 8: across the gate at x 5 .. 6, onto the pad at 0. */
static sweep_wish west(int i, sweep_vec3 p)
{
    (void)p;
    return wish_of(i < 120 ? sweep_v3(-5, 0, 0) : sweep_v3(0, 0, 0));
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
        assert_int_equal(s.liquid_entered + s.ladder, 0);
    }
}

/* pool: off the near deck, across with the head out, the water jump at
 * the far side, on along the far deck. */
static sweep_wish swimmer(int i, sweep_vec3 p)
{
    (void)i;
    sweep_wish w = wish_of(sweep_v3(5, 0, 0));
    if (p.x > 10.5 && p.x < 21) {
        w.velocity = sweep_v3(2.4, 0, p.z < -0.9 ? 0.6 : 0.0);
        if (p.x > 19.4)
            w.velocity = sweep_v3(4, 0, 0), w.buttons = SWEEP_WISH_JUMP;
    }
    return w;
}

/* pool: into the slime corner from the deck beside it, then down. */
static sweep_wish slimer(int i, sweep_vec3 p)
{
    (void)i;
    return wish_of(sweep_v3(p.x < 12 ? 5 : 0, 0, p.x < 12 ? 0 : -1));
}

/* pool: into the ladder's face and on over the tower's top. */
static sweep_wish climber(int i, sweep_vec3 p)
{
    (void)i, (void)p;
    return wish_of(sweep_v3(5, 0, 0));
}

static void liquids_and_ladders_are_predicted_exactly(void **state)
{
    (void)state;
    const sweep_client_transport ts[2] = {SWEEP_CLIENT_TCP, SWEEP_CLIENT_UDP};
    for (int k = 0; k < 2; k++) {
        seen s = {0};
        walk(ts[k], sweep_v3(5, 0, 0.9005), swimmer, 480, &s);
        assert_true(s.liquid_entered >= 1 && s.liquid_left >= 1);
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

/* The moves of a `sweep move --json` run, one "position ... velocity"
 * span and the volume it named (if any) a line, joined. */
static void moves_of(const char *out, char *list, size_t cap)
{
    size_t len = 0;
    list[0] = '\0';
    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, "{\"move\":", 8) != 0)
            continue;
        const char *a = strstr(l, "\"position\":"), *b = strstr(l, ",\"grounded\"");
        const char *eol = strchr(l, '\n');
        assert_true(a && b && a < b && (!eol || b < eol));
        const char *k = strstr(l, "\"killed_by\":"), *t = strstr(l, "\"teleported_by\":");
        len += (size_t)snprintf(list + len, cap - len, "%.*s%s%s|", (int)(b - a), a,
                                k && (!eol || k < eol) ? " killed" : "", t && (!eol || t < eol) ? " teleported" : "");
        assert_true(len < cap);
    }
}

/* `sweep move` with --map alone runs the moves locally: it tells where
 * the player is after a teleporter as the server does, and ends at a kill
 * volume as the server's Despawned ends a remote run, after the move that
 * ended in it. */
static void the_cli_tells_teleports_and_kills_as_the_server_does(void **state)
{
    (void)state;
    char bin[4096];
    fx_build("bin/sweep", bin, sizeof bin);
    static const char *const runs[] = {"--velocity -5,0,0 --count 53", "--velocity 5,0,0 --count 500"};
    static char remote_moves[1 << 17], local_moves[1 << 17];
    for (int k = 0; k < 2; k++) {
        char *remote = NULL, *local = NULL;
        int rc_remote = fx_run_program(bin, &remote, "move --connect %s --map '%s' --spawn 2 %s --json", D.tcp, MAP,
                                       runs[k]);
        int rc_local = fx_run_program(bin, &local, "move --map '%s' --spawn 2 %s --json", MAP, runs[k]);
        moves_of(remote, remote_moves, sizeof remote_moves);
        moves_of(local, local_moves, sizeof local_moves);
        if (strcmp(remote_moves, local_moves) != 0)
            fail_msg("run '%s': the local moves differ from the server's\nremote:\n%s\nlocal:\n%s", runs[k], remote,
                     local);
        if (k == 0) {
            assert_int_equal(rc_remote, 0);
            assert_int_equal(rc_local, 0);
            assert_non_null(strstr(local_moves, "\"position\":[25,3,4.9005],\"velocity\":[0,4,0] teleported|"));
        } else {
            assert_int_not_equal(rc_remote, 0);
            assert_int_not_equal(rc_local, 0);
            /* The last move told is the one the kill ended. */
            size_t n = strlen(local_moves);
            assert_true(n > 8 && strcmp(local_moves + n - 8, " killed|") == 0);
            assert_non_null(strstr(remote, ",\"killed_by\":5}"));
            assert_non_null(strstr(local, "{\"despawned\":0,\"killed_by\":5}"));
        }
        free(remote);
        free(local);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_volume_is_predicted_exactly, on_pads, stop),
        cmocka_unit_test_setup_teardown(the_cli_tells_teleports_and_kills_as_the_server_does, on_pads, stop),
        cmocka_unit_test_setup_teardown(liquids_and_ladders_are_predicted_exactly, on_pool, stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
