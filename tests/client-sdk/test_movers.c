/*
 * test_movers.c - libsweep and prediction among movers (doors, lifts), on a
 * level this test builds and writes itself (maps/writer.h): a floor, a
 * lift going up and down, a sliding door, a gate that opens on command
 * and a press that crushes.
 *
 * First without a server: WorldState application refuses what it must
 * (unknown ids, NaN, rotations that are not unit, movers of another map)
 * and changes nothing then; a late UDP part does not move a mover back;
 * and a server simulated in-process with the core exactly as sweepd does
 * it (world.c ticks the movers with the entities as bodies, moving only
 * their positions; moves.c runs sweep_act with the map's rules from the
 * entity's actor and reports start_position) is followed by a predictor:
 * answers arrive some ticks late, a rider on the lift is carried by the
 * predictor itself between moves, and every differing answer is re-run
 * from the server's start and matches bit for bit.
 *
 * Then against a real sweepd on that level: WatchWorld gives WorldStates
 * with increasing ticks (every tick, every third tick, then none); a rider
 * on the lift and a player the door pushes are moved through the server
 * and every answer equals, bit for bit, sweep_predict_run from the
 * server's start (the previous answer, or start_position) with the
 * movers at the poses of the WorldState of the tick the answer names; the
 * predictor checks the same on every differing answer; a player under the
 * press is crushed (an unasked Despawned); MoverCommand needs the server
 * role (the command token or a server token; not a guest nor a player
 * token); and the `sweep watch`, `sweep command` and `sweep move` CLI, the
 * Python client's --watch and sweep-bots --watch end to end. Players stand
 * still on the lift and in the door's way (a wish of zero: the movers do
 * the moving); they are placed there by sessions of the server role.
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
#include "core/mover.h"
#include "core/vec3.h"
#include "maps/level.h"
#include "maps/loader.h"
#include "maps/writer.h"

#define TOKEN "movers-test-token"
#define DT (1.0 / 60)

/* Mover ids in the test level (equal to index + 1). */
enum { LIFT = 1, DOOR = 2, GATE = 3, PRESS = 4, MOVERS = 4 };

static fx_server D;
static char DIR_[256], MAP[512], SWEEP[4096], SECRET[256];
static const sweep_wish STILL = {.velocity = {0, 0, 0}, .buttons = 0};
static sweep_level LV; /* the map as loaded back: exactly what the server runs */
static sweep_world *W;

/* --- the level ------------------------------------------------------------------ */

/* An axis-aligned box with outward faces as mover triangles. */
static void mover_box(sweep_level_mover *m, sweep_vec3 lo, sweep_vec3 hi)
{
    static const uint32_t tri[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                                        {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    uint32_t base = m->vertex_count;
    for (int i = 0; i < 8; i++)
        assert_int_equal(sweep_level_mover_add_vertex(m, sweep_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y,
                                                                  i & 4 ? hi.z : lo.z),
                                                      NULL),
                         SWEEP_OK);
    for (int t = 0; t < 12; t++)
        assert_int_equal(
            sweep_level_mover_add_triangle(m, base + tri[t][0], base + tri[t][1], base + tri[t][2], 1), SWEEP_OK);
}

static sweep_level_mover *add_mover(sweep_level *lv, uint32_t id, const char *name, sweep_mover_mode mode,
                                    sweep_mover_trigger trigger, sweep_mover_blocked blocked, double wait)
{
    uint32_t i;
    assert_int_equal(sweep_level_add_mover(lv, id, name, &i), SWEEP_OK);
    sweep_level_mover *m = &lv->movers[i];
    m->mode = mode;
    m->trigger = trigger;
    m->blocked = blocked;
    m->wait_start = m->wait_end = wait;
    return m;
}

static void key(sweep_level_mover *m, double t, sweep_vec3 p)
{
    assert_int_equal(sweep_level_mover_add_keyframe(m, t, p, sweep_quat_identity()), SWEEP_OK);
}

static void build_level(sweep_level *lv)
{
    sweep_level_init(lv);
    snprintf(lv->name, sizeof lv->name, "movers");
    assert_int_equal(sweep_level_add_material(lv, 1, "floor", 0.5, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(-25, -25, 0), sweep_v3(25, -25, 0), sweep_v3(25, 25, 0),
                                          sweep_v3(-25, 25, 0), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(lv, sweep_v3(0, 0, 1)), SWEEP_OK);
    /* A lift: a 3 x 3 slab whose top goes from 0.2 to 2.2 in 2 s and back. */
    sweep_level_mover *m = add_mover(lv, LIFT, "lift", SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS,
                                     SWEEP_BLOCKED_STOP, 0.2);
    mover_box(m, sweep_v3(-1.5, -1.5, -0.2), sweep_v3(1.5, 1.5, 0));
    key(m, 0, sweep_v3(6, 0, 0.2));
    key(m, 2, sweep_v3(6, 0, 2.2));
    /* A door sliding along -x from x = -4 to x = -10 in 0.6 s and back. */
    m = add_mover(lv, DOOR, "door", SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP, 0.2);
    mover_box(m, sweep_v3(-0.15, -2, 0), sweep_v3(0.15, 2, 2.5));
    key(m, 0, sweep_v3(-4, 0, 0));
    key(m, 0.6, sweep_v3(-10, 0, 0));
    /* A gate that rises once, when commanded. */
    m = add_mover(lv, GATE, "gate", SWEEP_MOVER_ONCE, SWEEP_TRIGGER_COMMAND, SWEEP_BLOCKED_STOP, 0);
    mover_box(m, sweep_v3(-1, -0.1, 0), sweep_v3(1, 0.1, 2));
    key(m, 0, sweep_v3(15, 10, 0));
    key(m, 1, sweep_v3(15, 10, 2));
    /* A press coming down to the floor: whatever is under it is crushed. */
    m = add_mover(lv, PRESS, "press", SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_CRUSH, 0.3);
    mover_box(m, sweep_v3(-1.5, -1.5, 0), sweep_v3(1.5, 1.5, 0.3));
    key(m, 0, sweep_v3(-15, 0, 3));
    key(m, 0.5, sweep_v3(-15, 0, 0.05));
}

static int setup(void **state)
{
    (void)state;
    char err[256];
    fx_build("bin/sweep", SWEEP, sizeof SWEEP);
    snprintf(DIR_, sizeof DIR_, "/tmp/sweep-movers-test-XXXXXX");
    if (!mkdtemp(DIR_)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(MAP, sizeof MAP, "%s/movers.db", DIR_);
    sweep_level lv;
    build_level(&lv);
    sweep_status st = sweep_map_write(MAP, &lv, NULL, NULL, err, sizeof err);
    sweep_level_free(&lv);
    if (st != SWEEP_OK) {
        fprintf(stderr, "writing the test map: %s\n", err);
        return -1;
    }
    if (sweep_map_load(MAP, &LV, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&LV, &W, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "loading the test map: %s\n", err);
        return -1;
    }
    if (LV.mover_count != MOVERS) {
        fprintf(stderr, "the test map loads with %u movers, not %d\n", LV.mover_count, MOVERS);
        return -1;
    }
    if (fx_secret(SECRET, sizeof SECRET) != 0)
        return -1;
    static const char *extra[] = {"--command-token", TOKEN, "--auth-secret-file", NULL, "--allow-guests", "on", NULL};
    extra[3] = SECRET;
    return fx_start_map(&D, MAP, extra);
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&D);
    sweep_world_destroy(W);
    sweep_level_free(&LV);
    unlink(MAP);
    unlink(SECRET);
    rmdir(DIR_);
    return rc == 0 ? 0 : -1;
}

static sweep_movers *new_movers(void)
{
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_predict_build_movers(&LV, 0, &mv, NULL), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_movers_count(mv), MOVERS);
    return mv;
}

static int same_vec(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A predictor on the level for an entity of the map's radii at start. */
static sweep_predictor *new_predictor(sweep_vec3 start, sweep_vec3 radii)
{
    sweep_predictor *p = NULL;
    assert_int_equal(sweep_predictor_create(W, &LV.config, &LV.rules, start, radii, &p, NULL), SWEEP_CLIENT_OK);
    return p;
}

static sweep_predict_counters counters_of(const sweep_predictor *p)
{
    sweep_predict_counters c;
    sweep_predictor_get_counters(p, &c);
    return c;
}

/* The state a server answer leaves the entity in. */
static sweep_predict_state state_of(const sweep_msg_move_result *r)
{
    sweep_predict_state s = sweep_predict_state_at(r->position);
    s.velocity = r->velocity;
    s.grounded = r->grounded;
    s.ground_mover = sweep_predict_mover_index(&LV, r->ground_mover);
    return s;
}

/* --- WorldState application, no server -------------------------------------------- */

static sweep_wire_mover wire(uint32_t id, sweep_vec3 p)
{
    sweep_wire_mover w = {.id = id, .position = p, .rotation = {0, 0, 0, 1}};
    return w;
}

static void world_state_is_checked_before_it_is_applied(void **state)
{
    (void)state;
    sweep_movers *mv = new_movers();
    sweep_client_error e;
    sweep_mover_pose before;
    sweep_movers_get(mv, 0, &before, NULL);

    sweep_wire_mover ms[2] = {wire(LIFT, sweep_v3(6, 0, 1)), wire(77, sweep_v3(0, 0, 0))};
    sweep_msg_world_state ws = {.tick = 5, .movers = ms, .count = 2, .mover_count = MOVERS};
    assert_int_equal(sweep_predict_apply_world_state(mv, &LV, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_non_null(strstr(e.message, "mover id 77"));
    sweep_mover_pose now;
    sweep_movers_get(mv, 0, &now, NULL);
    assert_memory_equal(&now, &before, sizeof now); /* all or nothing */

    ms[1] = wire(DOOR, sweep_v3(NAN, 0, 0));
    assert_int_equal(sweep_predict_apply_world_state(mv, &LV, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.code, SWEEP_WIRE_BAD_NUMBER);
    /* Finite, but past the map: it would carry its riders there. */
    ms[1] = wire(DOOR, sweep_v3(0, 2 * LV.config.max_coordinate, 0));
    assert_int_equal(sweep_predict_apply_world_state(mv, &LV, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_non_null(strstr(e.message, "past the map's coordinate limit"));
    ms[1] = wire(DOOR, sweep_v3(-5, 0, 0));
    ms[1].rotation[3] = 0.5; /* not unit */
    assert_int_equal(sweep_predict_apply_world_state(mv, &LV, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_non_null(strstr(e.message, "unit quaternion"));
    ms[1].rotation[3] = 1;
    ws.movers = NULL;
    assert_int_equal(sweep_predict_apply_world_state(mv, &LV, &ws, &e), SWEEP_CLIENT_E_ARG);
    ws.movers = ms;
    assert_int_equal(sweep_predict_apply_world_state(mv, &LV, &ws, &e), SWEEP_CLIENT_OK);
    sweep_movers_get(mv, 1, &now, NULL);
    assert_true(same_vec(now.position, sweep_v3(-5, 0, 0)));

    /* Movers of another map (here: of a level without movers). */
    sweep_level other;
    sweep_level_init(&other);
    assert_int_equal(sweep_predict_apply_world_state(mv, &other, &ws, &e), SWEEP_CLIENT_E_ARG);
    sweep_predictor *p = new_predictor(sweep_v3(0, 0, 1), LV.default_radii);
    assert_int_equal(sweep_predictor_set_movers(p, mv, &other, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_set_movers(p, mv, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_world_state(p, &ws, &e), SWEEP_CLIENT_E_ARG); /* no movers yet */
    sweep_level_free(&other);

    /* A late part (an older tick) does not move a mover back. */
    assert_int_equal(sweep_predictor_set_movers(p, mv, &LV, &e), SWEEP_CLIENT_OK);
    ms[0] = wire(LIFT, sweep_v3(6, 0, 1.5));
    ws.tick = 9;
    ws.count = 1;
    assert_int_equal(sweep_predictor_world_state(p, &ws, &e), SWEEP_CLIENT_OK);
    ms[0] = wire(LIFT, sweep_v3(6, 0, 1.25));
    ws.tick = 8;
    assert_int_equal(sweep_predictor_world_state(p, &ws, &e), SWEEP_CLIENT_OK);
    sweep_movers_get(mv, 0, &now, NULL);
    assert_true(now.position.z == 1.5);
    assert_int_equal(sweep_predictor_tick(p), 9);
    /* Ids and indices. */
    assert_int_equal(sweep_predict_mover_index(&LV, PRESS), 3);
    assert_int_equal(sweep_predict_mover_index(&LV, 0), SWEEP_NO_MOVER);
    assert_int_equal(sweep_predict_mover_index(&LV, 99), SWEEP_NO_MOVER);
    assert_int_equal(sweep_predict_mover_id(&LV, 1), DOOR);
    assert_int_equal(sweep_predict_mover_id(&LV, SWEEP_NO_MOVER), 0);
    sweep_predictor_destroy(p);
    sweep_movers_destroy(mv);
}

/* A WorldState that puts the rider's lift at the edge of the world: the
 * server's tick would not carry the rider past the coordinate limit (its
 * body blocks the mover, core/push.c), and the prediction does not either. */
static void a_rider_is_not_carried_past_the_limit(void **state)
{
    (void)state;
    sweep_movers *mv = new_movers();
    sweep_predictor *p = new_predictor(sweep_v3(6, 0, 0.2 + LV.default_radii.z + 0.01), LV.default_radii);
    sweep_client_error e;
    assert_int_equal(sweep_predictor_set_movers(p, mv, &LV, &e), SWEEP_CLIENT_OK);
    sweep_wire_mover ms[MOVERS] = {wire(LIFT, sweep_v3(6, 0, 0.2)), wire(DOOR, sweep_v3(-4, 0, 0)),
                                   wire(GATE, sweep_v3(15, 10, 0)), wire(PRESS, sweep_v3(-15, 0, 3))};
    sweep_msg_world_state ws = {.tick = 1, .movers = ms, .count = MOVERS, .mover_count = MOVERS};
    assert_int_equal(sweep_predictor_world_state(p, &ws, &e), SWEEP_CLIENT_OK);
    for (uint32_t seq = 1; seq <= 3; seq++)
        assert_int_equal(sweep_predictor_step(p, seq, &STILL, DT, NULL, &e), SWEEP_CLIENT_OK);
    sweep_predict_state on = sweep_predictor_current(p);
    assert_true(on.grounded);
    assert_int_equal(on.ground_mover, 0);
    double limit = LV.config.max_coordinate;
    ms[0] = wire(LIFT, sweep_v3(6, 0, limit - 0.5)); /* its rider's centre would be past the limit */
    ws.tick = 2;
    assert_int_equal(sweep_predictor_world_state(p, &ws, &e), SWEEP_CLIENT_OK);
    (void)sweep_predictor_step(p, 4, &STILL, DT, NULL, &e);
    sweep_predict_state now = sweep_predictor_current(p);
    if (!sweep_config_contains(&LV.config, now.position))
        fail_msg("the prediction was carried to z = %.17g, past the limit %g", now.position.z, limit);
    sweep_predictor_destroy(p);
    sweep_movers_destroy(mv);
}

/* --- a server simulated in-process ------------------------------------------------------ */

/* One entity as sweepd keeps it (server/world/moves.c, server/world/world.c). */
typedef struct sim_entity {
    sweep_actor actor; /* position, velocity, grounded */
    sweep_vec3 radii;
    uint32_t ground_mover, touch_mover; /* indices */
    uint32_t moved_flags, moved_by;
} sim_entity;

typedef struct sim {
    sweep_movers *mv;
    uint64_t tick;
    sim_entity e;
    sweep_wire_mover wire[MOVERS];
} sim;

static void sim_init(sim *s, sweep_vec3 position)
{
    memset(s, 0, sizeof *s);
    s->mv = new_movers();
    s->e.actor.position = position;
    s->e.radii = LV.default_radii;
    s->e.ground_mover = s->e.touch_mover = s->e.moved_by = SWEEP_NO_MOVER;
}

/* One tick: the movers advance, carrying and pushing the entity. */
static void sim_tick(sim *s)
{
    s->tick++;
    sweep_body b = {.position = s->e.actor.position, .radii = s->e.radii, .ground_mover = s->e.ground_mover,
                    .touch_mover = s->e.touch_mover, .mover = SWEEP_NO_MOVER};
    assert_int_equal(sweep_movers_tick(s->mv, W, &LV.config, &b, 1, NULL), SWEEP_OK);
    assert_false(b.flags & SWEEP_BODY_CRUSHED);
    s->e.actor.position = b.position; /* only the position: velocity and grounded stay */
    uint32_t moved = b.flags & (SWEEP_BODY_CARRIED | SWEEP_BODY_PUSHED);
    if (moved) {
        s->e.moved_flags |= moved;
        s->e.moved_by = b.mover;
    }
}

static sweep_msg_world_state sim_world_state(sim *s)
{
    for (uint32_t m = 0; m < MOVERS; m++) {
        sweep_mover_pose pose;
        sweep_mover_state st;
        sweep_movers_get(s->mv, m, &pose, &st);
        s->wire[m] = (sweep_wire_mover){.id = LV.movers[m].id, .flags = st.flags, .position = pose.position,
                                        .rotation = {pose.rotation.x, pose.rotation.y, pose.rotation.z,
                                                     pose.rotation.w}};
    }
    sweep_msg_world_state ws = {.tick = s->tick, .movers = s->wire, .count = MOVERS, .mover_count = MOVERS};
    return ws;
}

/* One Walk move, answered as moves.c answers it. */
static sweep_msg_move_result sim_move(sim *s, uint32_t seq, const sweep_wish *w, double dt)
{
    sweep_vec3 start = s->e.actor.position;
    sweep_space space = {.world = W, .movers = s->mv, .crowd = NULL, .self = SWEEP_NO_BODY};
    sweep_act_result ar;
    assert_int_equal(sweep_act(&space, &LV.config, &LV.rules, s->e.radii, &s->e.actor, w, dt, &ar), SWEEP_OK);
    const sweep_move_result res = ar.move;
    s->e.ground_mover = res.ground_mover;
    s->e.touch_mover = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < res.contact_count; i++)
        if (res.contacts[i].mover != SWEEP_NO_MOVER) {
            s->e.touch_mover = res.contacts[i].mover;
            break;
        }
    sweep_msg_move_result r = {.sequence = seq, .server_tick = s->tick, .position = s->e.actor.position,
                               .velocity = s->e.actor.velocity, .grounded = s->e.actor.grounded != 0,
                               .ground_mover = sweep_predict_mover_id(&LV, res.ground_mover), .rules = ar.rules,
                               .applied_dt = dt};
    if (s->e.moved_flags) {
        r.carried = (s->e.moved_flags & SWEEP_BODY_CARRIED) != 0;
        r.pushed = (s->e.moved_flags & SWEEP_BODY_PUSHED) != 0;
        r.pushed_by = sweep_predict_mover_id(&LV, s->e.moved_by);
        r.has_start_position = true;
        r.start_position = start;
        s->e.moved_flags = 0;
        s->e.moved_by = SWEEP_NO_MOVER;
    }
    return r;
}

/* A rider on the simulated lift for `ticks` ticks, one move per tick, the
 * answers `latency` ticks late. Returns the largest distance between a
 * prediction and its answer over carried moves. */
static double ride_simulated_lift(int latency, int ticks, sweep_predictor **pp, int *carried_answers)
{
    sim s;
    sim_init(&s, sweep_v3(6, 0, 1.25));
    sweep_movers *mv = new_movers();
    sweep_predictor *p = *pp = new_predictor(s.e.actor.position, s.e.radii);
    assert_int_equal(sweep_predictor_set_movers(p, mv, &LV, NULL), SWEEP_CLIENT_OK);
    sweep_msg_world_state ws0 = sim_world_state(&s);
    assert_int_equal(sweep_predictor_world_state(p, &ws0, NULL), SWEEP_CLIENT_OK);
    sweep_msg_move_result late[64];
    sweep_predict_state predicted[64];
    double worst = 0;
    *carried_answers = 0;
    for (int t = 1; t <= ticks + latency; t++) {
        sim_tick(&s);
        sweep_msg_world_state ws = sim_world_state(&s);
        /* The client hears of each tick at once, and of answers late. */
        assert_int_equal(sweep_predictor_world_state(p, &ws, NULL), SWEEP_CLIENT_OK);
        if (t <= ticks) {
            assert_int_equal(sweep_predictor_step(p, (uint32_t)t, &STILL, DT, NULL, NULL), SWEEP_CLIENT_OK);
            /* Just computed against the newest poses: nothing to carry yet. */
            predicted[t % 64] = sweep_predictor_current(p);
            late[t % 64] = sim_move(&s, (uint32_t)t, &STILL, DT);
        }
        if (t > latency) {
            const sweep_msg_move_result *r = &late[(t - latency) % 64];
            const sweep_predict_state *pr = &predicted[(t - latency) % 64];
            sweep_predict_ack a;
            assert_int_equal(sweep_predictor_ack(p, r, &a, NULL), SWEEP_CLIENT_OK);
            assert_true(a.found);
            if (a.mismatch && latency == 0) {
                /* Same tick, same poses: the server's answer is checked exactly. */
                assert_true(a.rerun);
                assert_true(a.rerun_match);
            }
            if (r->has_start_position) {
                (*carried_answers)++;
                /* Carried once it stands on the lift; the rider starts a
                 * little above it, and the rising lift may meet it before
                 * its fall lands (pushed, as a body in the air is). */
                assert_true(r->carried || (r->pushed && t - latency < 20));
                assert_int_equal(r->pushed_by, LIFT);
                double d = sweep_v3_len(sweep_v3_sub(pr->position, r->position));
                if (d > worst)
                    worst = d;
            }
        }
    }
    assert_int_equal(sweep_predictor_pending(p), 0);
    sweep_movers_destroy(mv);
    sweep_movers_destroy(s.mv);
    return worst;
}

static void predictor_follows_a_simulated_lift(void **state)
{
    (void)state;
    for (int latency = 0; latency <= 6; latency += 3) {
        sweep_predictor *p;
        int carried;
        double worst = ride_simulated_lift(latency, 300, &p, &carried);
        sweep_predict_counters pc = counters_of(p);
        /* The lift moved the rider between most moves... */
        assert_true(carried > 150);
        /* ...and the predictor carried its own prediction along: without
         * that it would lag a tick of lift travel (2/120 units) behind. */
        assert_true(worst < 1e-9);
        assert_int_equal(pc.reruns, pc.rerun_matches);
        assert_true(pc.carries > 0);
        assert_true(pc.rerun_matches + pc.acks_matched > 0);
        sweep_predictor_destroy(p);
    }
}

/* --- against sweepd ------------------------------------------------------------------- */

static sweep_client *connect_to(sweep_client_transport t, const char *token)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? D.tcp : D.udp;
    o.client_name = "test_movers";
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

static uint64_t now_ms(void)
{
    return sweep_client_now_ns() / 1000000u;
}

/* The poses of recent ticks, as the WorldStates brought them (parts of a
 * split UDP push put together). */
#define LOG_TICKS 1024
typedef struct pose_log {
    uint64_t tag[LOG_TICKS]; /* tick + 1 */
    uint32_t have[LOG_TICKS];
    sweep_wire_mover m[LOG_TICKS][MOVERS];
    uint64_t newest;
} pose_log;

static void log_ws(pose_log *l, const sweep_msg_world_state *ws)
{
    size_t k = ws->tick % LOG_TICKS;
    if (l->tag[k] != ws->tick + 1) {
        l->tag[k] = ws->tick + 1;
        l->have[k] = 0;
    }
    for (uint32_t j = 0; j < ws->count && l->have[k] < MOVERS; j++)
        l->m[k][l->have[k]++] = ws->movers[j];
    if (ws->tick > l->newest)
        l->newest = ws->tick;
}

/* The whole WorldState of tick, if it came. */
static int poses_of(const pose_log *l, uint64_t tick, sweep_msg_world_state *out)
{
    size_t k = tick % LOG_TICKS;
    if (l->tag[k] != tick + 1 || l->have[k] != MOVERS)
        return 0;
    *out = (sweep_msg_world_state){.tick = tick, .movers = l->m[k], .count = MOVERS, .mover_count = MOVERS};
    return 1;
}

static sweep_vec3 pose_in(const pose_log *l, uint64_t tick, uint32_t id)
{
    sweep_msg_world_state ws = {0};
    assert_true(poses_of(l, tick, &ws));
    return ws.movers[id - 1].position;
}

static void check_world_state(const sweep_msg_world_state *ws)
{
    assert_int_equal(ws->mover_count, MOVERS);
    assert_int_equal(ws->count, MOVERS); /* 4 movers fit a datagram */
    for (uint32_t j = 0; j < ws->count; j++) {
        const sweep_wire_mover *w = &ws->movers[j];
        assert_int_equal(w->id, j + 1);
        assert_true(sweep_v3_isfinite(w->position));
        double n = w->rotation[0] * w->rotation[0] + w->rotation[1] * w->rotation[1] +
                   w->rotation[2] * w->rotation[2] + w->rotation[3] * w->rotation[3];
        assert_true(fabs(n - 1) < 1e-9);
        assert_int_equal(w->flags & ~7u, 0);
    }
}

/* Waits for the next WorldState push; fails after 10 s. */
static sweep_msg_world_state next_push(sweep_client *c)
{
    uint64_t until = now_ms() + 10000;
    for (;;) {
        sweep_client_event ev;
        sweep_client_error e;
        assert_true(now_ms() < until);
        sweep_client_status s = sweep_client_poll(c, 1000, &ev, &e);
        if (s == SWEEP_CLIENT_E_TIMEOUT)
            continue;
        assert_int_equal(s, SWEEP_CLIENT_OK);
        if (ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
            assert_int_equal(ev.sequence, 0);
            assert_int_equal(ev.as.world_tick, ev.as.world_state.tick);
            return ev.as.world_state;
        }
    }
}

static void watch_gives_increasing_ticks(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to(t ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP, NULL);
        sweep_client_error e;
        sweep_msg_world_state ws;
        assert_int_equal(sweep_client_watch_world(c, 1, &ws, &e), SWEEP_CLIENT_OK);
        check_world_state(&ws);
        uint64_t last = ws.tick;
        int lift_moved = 0;
        double lift_z = ws.movers[0].position.z;
        for (int i = 0; i < 10; i++) {
            ws = next_push(c);
            check_world_state(&ws);
            assert_true(ws.tick > last);
            last = ws.tick;
            lift_moved |= ws.movers[0].position.z != lift_z;
        }
        (void)lift_moved; /* it may be waiting at an end: not judged */
        /* Every third tick. */
        assert_int_equal(sweep_client_watch_world(c, 3, &ws, &e), SWEEP_CLIENT_OK);
        last = ws.tick;
        for (int i = 0, stale = 0; i < 5; i++) {
            ws = next_push(c);
            /* Pushes sent before the change (every tick) may still arrive. */
            while (ws.tick <= last && stale++ < 4)
                ws = next_push(c);
            assert_true(ws.tick > last);
            /* A multiple of 3 was among the ticks since the last push: on
             * time that is ws.tick itself; after a late timer ran several
             * ticks in one callback, the push carries the latest tick. */
            assert_true(ws.tick / 3 > last / 3);
            last = ws.tick;
        }
        /* None after every = 0 (its answer says the tick it stopped at). */
        assert_int_equal(sweep_client_watch_world(c, 0, &ws, &e), SWEEP_CLIENT_OK);
        uint64_t stop = ws.tick, until = now_ms() + 200;
        while (now_ms() < until) {
            sweep_client_event ev;
            if (sweep_client_poll(c, 50, &ev, &e) == SWEEP_CLIENT_OK && ev.kind == SWEEP_CLIENT_EV_WORLD_STATE)
                assert_true(ev.as.world_state.tick <= stop);
        }
        sweep_client_close(c);
    }
}

/* One entity moved through the server while its answers are checked. */
typedef struct walker {
    uint32_t entity;
    sweep_predictor *pred;
    sweep_movers *mv;
    sweep_predict_state server; /* after its last answer */
    int inflight;
    int answers, carried, pushed, on_lift, checked, reruns;
} walker;

typedef struct among {
    sweep_client_transport t;
    sweep_client *c;
    pose_log *log;
    sweep_movers *check; /* set to the poses of each answer's tick */
    walker w[2];
    int unchecked; /* answers whose tick's WorldState was lost (UDP) */
} among;

/* A result: equal, bit for bit, to sweep_predict_run from the server's
 * start among the poses of the tick the server names; then the predictor. */
static void on_result(among *a, const sweep_msg_move_result *r)
{
    walker *w = r->entity == a->w[0].entity ? &a->w[0] : &a->w[1];
    assert_int_equal(r->entity, w->entity);
    w->inflight--;
    w->answers++;
    sweep_msg_world_state ws;
    if (poses_of(a->log, r->server_tick, &ws)) {
        assert_int_equal(sweep_predict_apply_world_state(a->check, &LV, &ws, NULL), SWEEP_CLIENT_OK);
        sweep_predict_state s = sweep_predict_server_start(&w->server, r);
        sweep_act_result ar;
        assert_int_equal(
            sweep_predict_run(W, a->check, &LV.config, &LV.rules, LV.default_radii, &s, &STILL, DT, &ar, NULL),
            SWEEP_CLIENT_OK);
        const sweep_move_result out = ar.move;
        assert_int_equal(r->rules, ar.rules); /* none: standing still is within every rule */
        if (!sweep_predict_state_equal(&s, r) || sweep_predict_mover_id(&LV, out.ground_mover) != r->ground_mover)
            fail_msg("entity %u tick %" PRIu64 ": server (%.17g, %.17g, %.17g) mover %u, core (%.17g, %.17g, %.17g) "
                     "mover %u",
                     r->entity, r->server_tick, r->position.x, r->position.y, r->position.z, r->ground_mover,
                     s.position.x, s.position.y, s.position.z, sweep_predict_mover_id(&LV, out.ground_mover));
        w->checked++;
    } else {
        assert_int_equal(a->t, SWEEP_CLIENT_UDP); /* over TCP every tick's WorldState comes first */
        a->unchecked++;
    }
    w->server = state_of(r);
    w->carried += r->carried;
    w->pushed += r->pushed && r->pushed_by == DOOR;
    w->on_lift += r->ground_mover == LIFT;
    if (r->has_start_position)
        assert_true(r->carried || r->pushed);
    sweep_predict_ack ack;
    assert_int_equal(sweep_predictor_ack(w->pred, r, &ack, NULL), SWEEP_CLIENT_OK);
    assert_true(ack.found);
    if (ack.mismatch && a->t == SWEEP_CLIENT_TCP)
        assert_true(ack.rerun); /* in order, the poses of its tick are the newest */
    if (ack.rerun)
        assert_true(ack.rerun_match);
    w->reruns += ack.rerun;
}

static void on_event(among *a, const sweep_client_event *ev)
{
    switch (ev->kind) {
    case SWEEP_CLIENT_EV_WORLD_STATE:
        log_ws(a->log, &ev->as.world_state);
        for (int i = 0; i < 2; i++)
            if (a->w[i].mv)
                assert_int_equal(sweep_predictor_world_state(a->w[i].pred, &ev->as.world_state, NULL),
                                 SWEEP_CLIENT_OK);
        break;
    case SWEEP_CLIENT_EV_MOVE_RESULT:
        on_result(a, &ev->as.move_result);
        break;
    case SWEEP_CLIENT_EV_ERROR:
        fail_msg("server error %s: %s", sweep_client_error_name(&ev->as.error), ev->as.error.message);
        break;
    case SWEEP_CLIENT_EV_DESPAWNED:
        fail_msg("entity %u despawned (crushed by %u)", ev->as.despawned.entity, ev->as.despawned.crushed_by);
        break;
    default:
        break;
    }
}

/* Handles what comes within ms (at least one look). */
static void pump_events(among *a, int ms)
{
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s = sweep_client_poll(a->c, ms, &ev, &e);
    while (s == SWEEP_CLIENT_OK) {
        on_event(a, &ev);
        s = sweep_client_poll(a->c, 0, &ev, &e);
    }
    if (s != SWEEP_CLIENT_E_TIMEOUT)
        fail_msg("poll: %s: %s", sweep_client_error_name(&e), e.message);
}

static void start_walker(among *a, walker *w, sweep_vec3 at)
{
    sweep_client_error e;
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(a->c, at, LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    w->entity = sp.entity;
    w->server = sweep_predict_state_at(sp.position);
    w->mv = new_movers();
    w->pred = new_predictor(sp.position, sp.radii);
    assert_int_equal(sweep_predictor_set_movers(w->pred, w->mv, &LV, &e), SWEEP_CLIENT_OK);
    sweep_msg_world_state ws;
    assert_true(poses_of(a->log, a->log->newest, &ws));
    assert_int_equal(sweep_predictor_world_state(w->pred, &ws, &e), SWEEP_CLIENT_OK);
}

static void among_movers(sweep_client_transport t)
{
    among a = {.t = t};
    a.c = connect_to(t, TOKEN); /* the server role: it places its players where it wants */
    a.log = calloc(1, sizeof *a.log);
    assert_non_null(a.log);
    a.check = new_movers();
    sweep_client_error e;
    assert_int_equal(sweep_client_check_map(a.c, &LV, &e), SWEEP_CLIENT_OK);
    sweep_msg_world_state ws;
    assert_int_equal(sweep_client_watch_world(a.c, 1, &ws, &e), SWEEP_CLIENT_OK);
    log_ws(a.log, &ws);
    /* The walker goes where the door will come, once the door is clear of
     * that place (it is never spawned inside the door). */
    uint64_t until = now_ms() + 10000;
    while (!poses_of(a.log, a.log->newest, &ws) || pose_in(a.log, a.log->newest, DOOR).x < -5.3) {
        assert_true(now_ms() < until);
        pump_events(&a, 20);
    }
    double lift_top = pose_in(a.log, a.log->newest, LIFT).z;
    start_walker(&a, &a.w[0], sweep_v3(6, 0, lift_top + 1.05));
    start_walker(&a, &a.w[1], sweep_v3(-6, 0, 0.95));
    /* Moves (a few in flight each) until the lift carried the rider and
     * the door pushed the walker, every answer checked. */
    /* A move per entity every 8 ms (about two a tick), at most 3 in flight. */
    until = now_ms() + 20000;
    uint64_t next_send = now_ms();
    while (a.w[0].carried < 10 || a.w[1].pushed < 3 || a.w[0].checked + a.w[1].checked < 100) {
        if (now_ms() > until)
            fail_msg("after 20 s: rider carried %d times (%d on the lift), walker pushed %d times, %d + %d checked",
                     a.w[0].carried, a.w[0].on_lift, a.w[1].pushed, a.w[0].checked, a.w[1].checked);
        uint64_t now = now_ms();
        if (now < next_send) {
            pump_events(&a, (int)(next_send - now));
            continue;
        }
        next_send += 8;
        for (int i = 0; i < 2; i++) {
            walker *w = &a.w[i];
            if (w->inflight >= 3)
                continue;
            sweep_client_move_req m = {.entity = w->entity, .velocity = STILL.velocity, .dt = DT};
            uint32_t seq;
            assert_int_equal(sweep_client_send_move(a.c, &m, &seq, &e), SWEEP_CLIENT_OK);
            assert_int_equal(sweep_predictor_step(w->pred, seq, &STILL, m.dt, NULL, NULL), SWEEP_CLIENT_OK);
            w->inflight++;
        }
        pump_events(&a, 0);
    }
    until = now_ms() + 10000;
    while ((a.w[0].inflight > 0 || a.w[1].inflight > 0) && now_ms() < until)
        pump_events(&a, 50);
    if (t == SWEEP_CLIENT_TCP)
        assert_int_equal(a.w[0].inflight + a.w[1].inflight, 0);
    for (int i = 0; i < 2; i++) {
        walker *w = &a.w[i];
        if (w->inflight == 0) {
            /* Converged on the server's last answer. */
            assert_int_equal(sweep_predictor_pending(w->pred), 0);
            assert_true(same_vec(sweep_predictor_confirmed(w->pred).position, w->server.position));
        }
        sweep_predict_counters pc = counters_of(w->pred);
        if (getenv("SWEEP_TEST_VERBOSE"))
            fprintf(stderr,
                    "%s %s: %d answers, %d carried, %d pushed, %d on the lift; predictor: %" PRIu64 " matched, %" PRIu64
                    " rewound (%" PRIu64 " re-run, all exact), %" PRIu64 " carried by the predictor\n",
                    t ? "udp" : "tcp", i ? "walker" : "rider", w->answers, w->carried, w->pushed, w->on_lift,
                    pc.acks_matched, pc.mismatches, pc.reruns, pc.carries);
        sweep_predictor_destroy(w->pred);
        sweep_movers_destroy(w->mv);
    }
    assert_true(a.w[0].on_lift > 0);
    sweep_movers_destroy(a.check);
    free(a.log);
    sweep_client_close(a.c);
}

static void riding_and_pushed_predicted_exactly(void **state)
{
    (void)state;
    among_movers(SWEEP_CLIENT_TCP);
    among_movers(SWEEP_CLIENT_UDP);
}

static void crushed_entity_is_despawned_unasked(void **state)
{
    (void)state;
    among a = {.t = SWEEP_CLIENT_TCP};
    a.c = connect_to(SWEEP_CLIENT_TCP, TOKEN);
    a.log = calloc(1, sizeof *a.log);
    assert_non_null(a.log);
    sweep_client_error e;
    sweep_msg_world_state ws;
    assert_int_equal(sweep_client_watch_world(a.c, 1, &ws, &e), SWEEP_CLIENT_OK);
    log_ws(a.log, &ws);
    /* Under the press while it is high enough to leave room. */
    uint64_t until = now_ms() + 10000;
    while (pose_in(a.log, a.log->newest, PRESS).z < 2.2) {
        assert_true(now_ms() < until);
        pump_events(&a, 20);
    }
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(a.c, sweep_v3(-15, 0, 0.95), LV.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    until = now_ms() + 15000;
    for (;;) {
        assert_true(now_ms() < until);
        sweep_client_event ev;
        sweep_client_status s = sweep_client_poll(a.c, 500, &ev, &e);
        if (s == SWEEP_CLIENT_E_TIMEOUT)
            continue;
        assert_int_equal(s, SWEEP_CLIENT_OK);
        if (ev.kind != SWEEP_CLIENT_EV_DESPAWNED)
            continue;
        assert_int_equal(ev.sequence, 0);
        assert_int_equal(ev.as.despawned.entity, sp.entity);
        assert_int_equal(ev.as.entity, sp.entity);
        assert_int_equal(ev.as.despawned.crushed_by, PRESS);
        break;
    }
    /* Gone for good. */
    sweep_msg_move_result r;
    assert_int_equal(sweep_client_move(a.c, sp.entity, sweep_v3(0, 0, 0), DT, &r, &e), SWEEP_CLIENT_E_SERVER);
    assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_ENTITY);
    sweep_msg_stats st;
    assert_int_equal(sweep_client_get_stats(a.c, &st, &e), SWEEP_CLIENT_OK);
    assert_true(st.crushed_total >= 1);
    assert_int_equal(st.movers, MOVERS);
    free(a.log);
    sweep_client_close(a.c);
}

static void mover_command_needs_the_server_role(void **state)
{
    (void)state;
    sweep_client_error e;
    sweep_msg_mover_commanded mc;
    char token[SWEEP_TOKEN_MAX + 1];
    for (int t = 0; t < 2; t++) {
        sweep_client_transport tr = t ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
        /* A guest, and a player with a genuine token: players. */
        sweep_client *c = connect_to(tr, NULL);
        assert_int_equal(sweep_client_get_welcome(c)->role, SWEEP_WIRE_ROLE_PLAYER);
        assert_int_equal(sweep_client_mover_command(c, "gate", &mc, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
        sweep_client_close(c);
        c = connect_to(tr, fx_token(SWEEP_WIRE_ROLE_PLAYER, "alice", 600, token, sizeof token));
        assert_int_equal(sweep_client_get_welcome(c)->role, SWEEP_WIRE_ROLE_PLAYER);
        assert_string_equal(sweep_client_get_welcome(c)->identity, "alice");
        assert_int_equal(sweep_client_mover_command(c, "gate", &mc, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
        sweep_client_close(c);
        /* A token that is neither: no session at all. */
        sweep_client_options o;
        sweep_client_options_init(&o);
        o.transport = tr;
        o.address = t ? D.udp : D.tcp;
        o.auth_token = "not the token";
        o.timeout_ms = 20000;
        assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
        assert_null(c);
        /* The server role: a server token, and the command token. */
        c = connect_to(tr, fx_token(SWEEP_WIRE_ROLE_SERVER, "game-server-1", 600, token, sizeof token));
        assert_int_equal(sweep_client_get_welcome(c)->role, SWEEP_WIRE_ROLE_SERVER);
        assert_int_equal(sweep_client_mover_command(c, "no such mover", &mc, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_MOVER);
        sweep_client_close(c);
        c = connect_to(tr, TOKEN);
        assert_int_equal(sweep_client_mover_command(c, "no such mover", &mc, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_MOVER);
        assert_int_equal(sweep_client_mover_command(c, "", &mc, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_mover_command(c, NULL, &mc, &e), SWEEP_CLIENT_E_ARG);
        sweep_client_close(c);
    }
    /* The gate rises from the tick the answer names. */
    sweep_client *c = connect_to(SWEEP_CLIENT_TCP, TOKEN);
    sweep_msg_world_state ws;
    assert_int_equal(sweep_client_watch_world(c, 1, &ws, &e), SWEEP_CLIENT_OK);
    assert_true(ws.movers[GATE - 1].position.z == 0);
    assert_int_equal(sweep_client_mover_command(c, "gate", &mc, &e), SWEEP_CLIENT_OK);
    assert_int_equal(mc.mover, GATE);
    assert_true(mc.tick > ws.tick);
    for (;;) {
        ws = next_push(c);
        assert_true(ws.tick < mc.tick + 120);
        if (ws.tick < mc.tick) {
            assert_true(ws.movers[GATE - 1].position.z == 0);
            continue;
        }
        if (ws.movers[GATE - 1].position.z > 0)
            break;
    }
    assert_true(ws.movers[GATE - 1].flags & SWEEP_WIRE_MOVER_MOVED);
    sweep_client_close(c);
}

/* --- the programs ------------------------------------------------------------------------- */

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Runs `sweep ARGS`: its exit status, and its output in *out. */
#define sweep(out, ...) fx_run_program(SWEEP, out, __VA_ARGS__)

/* The numbers after each occurrence of key in text, in order; returns how many. */
static int numbers_after(const char *text, const char *key, uint64_t *out, int cap)
{
    int n = 0;
    for (const char *p = text; n < cap && (p = strstr(p, key)) != NULL; p += strlen(key))
        out[n++] = strtoull(p + strlen(key), NULL, 10);
    return n;
}

static void increasing(const uint64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        assert_true(v[i] > v[i - 1]);
}

static void cli_watch(void **state)
{
    (void)state;
    char *out;
    uint64_t ticks[16];
    assert_int_equal(sweep(&out, "watch --connect %s --count 3 --json --map '%s'", D.tcp, MAP), 0);
    assert_int_equal(count_of(out, "{\"tick\":"), 3);
    assert_int_equal(count_of(out, "\"mover_count\":4"), 3);
    assert_int_equal(count_of(out, "{\"id\":"), 12);
    assert_int_equal(count_of(out, "\"name\":\"lift\""), 3);
    assert_int_equal(count_of(out, "\"rotation\":[0,0,0,1]"), 12);
    assert_int_equal(numbers_after(out, "{\"tick\":", ticks, 16), 3);
    increasing(ticks, 3);
    free(out);
    assert_int_equal(sweep(&out, "watch --connect %s --udp --every 2 --count 3", D.udp), 0);
    assert_int_equal(numbers_after(out, "tick=", ticks, 16), 3);
    increasing(ticks, 3);
    assert_int_equal(ticks[1] % 2, 0); /* the first is the answer, at any tick */
    assert_int_equal(ticks[2] % 2, 0);
    assert_int_equal(count_of(out, "  mover id="), 12);
    assert_non_null(strstr(out, " rotation=(0, 0, 0, 1) flags="));
    free(out);
    assert_int_equal(sweep(&out, "watch"), 2);
    free(out);
    assert_int_equal(sweep(&out, "watch --connect %s --every 0", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "--help"), 0);
    assert_non_null(strstr(out, "watch "));
    assert_non_null(strstr(out, "command NAME"));
    assert_non_null(strstr(out, "--token"));
    free(out);
}

/* `sweep watch` of a server that goes silent (stopped) ends with TIMEOUT
 * within its --timeout of the next keep-alive ping, over TCP and UDP; it
 * used to poll for ever. A server of its own: this one is stopped. */
static void cli_watch_of_a_silent_server_times_out(void **state)
{
    (void)state;
    fx_server srv;
    assert_int_equal(fx_start_map(&srv, MAP, NULL), 0);
    for (int udp = 0; udp < 2; udp++) {
        char out_path[300], cmd[5000];
        snprintf(out_path, sizeof out_path, "%s/watch-%d.out", DIR_, udp);
        snprintf(cmd, sizeof cmd, "'%s' watch --connect %s %s --count 100000 --timeout 1000 >'%s' 2>&1", SWEEP,
                 udp ? srv.udp : srv.tcp, udp ? "--udp" : "", out_path);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        usleep(500 * 1000); /* watching */
        assert_int_equal(kill(srv.pid, SIGSTOP), 0);
        /* The first ping 5 s after the start, answered or not within 1 s. */
        uint64_t end = fx_now_ms() + 20000;
        int ws = 0;
        pid_t got;
        while ((got = waitpid(pid, &ws, WNOHANG)) == 0 && fx_now_ms() < end)
            usleep(50 * 1000);
        kill(srv.pid, SIGCONT);
        if (got == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            fail_msg("sweep watch %s still running 20 s after the server stopped", udp ? "--udp" : "");
        }
        assert_true(WIFEXITED(ws));
        assert_int_equal(WEXITSTATUS(ws), 1);
        char *text = NULL;
        assert_int_equal(fx_run_program("/bin/cat", &text, "'%s'", out_path), 0);
        assert_non_null(strstr(text, "TIMEOUT"));
        free(text);
    }
    assert_int_equal(fx_stop(&srv), 0);
}

/* A UDP relay on 127.0.0.1 (its port into *port) to the server at
 * server_port, in a child, that drops every MoveResultBatch the server
 * sends back and passes the rest. */
static pid_t drop_batch_answers(int server_port, int *port)
{
    int front = socket(AF_INET, SOCK_DGRAM, 0), back = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(front >= 0 && back >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(front, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(front, (struct sockaddr *)&a, &al), 0);
    *port = ntohs(a.sin_port);
    struct sockaddr_in to = fx_addr(server_port);
    assert_int_equal(connect(back, (struct sockaddr *)&to, sizeof to), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid > 0) {
        close(front);
        close(back);
        return pid;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    static sweep_msg_move_result results[256];
    static sweep_wire_mover movers[64];
    sweep_decoder d = {0};
    d.results = results, d.results_cap = 256, d.movers = movers, d.movers_cap = 64;
    struct sockaddr_in client;
    socklen_t cl = 0;
    for (;;) {
        struct pollfd p[2] = {{.fd = front, .events = POLLIN}, {.fd = back, .events = POLLIN}};
        if (poll(p, 2, -1) <= 0)
            continue;
        uint8_t buf[65536];
        if (p[0].revents & POLLIN) {
            socklen_t l = sizeof client;
            ssize_t n = recvfrom(front, buf, sizeof buf, 0, (struct sockaddr *)&client, &l);
            if (n > 0) {
                cl = l;
                send(back, buf, (size_t)n, 0);
            }
        }
        if (p[1].revents & POLLIN) {
            ssize_t n = recv(back, buf, sizeof buf, 0);
            sweep_message m;
            if (n <= 0 || cl == 0)
                continue;
            if (sweep_decode(&d, buf, (size_t)n, 0, &m) == SWEEP_PROTO_OK && m.kind == SWEEP_MSG_MOVE_RESULT_BATCH)
                continue;
            sendto(front, buf, (size_t)n, 0, (struct sockaddr *)&client, cl);
        }
    }
}

/* `sweep move --batch --map` whose batch answer is lost while the movers'
 * WorldStates keep coming: TIMEOUT after --timeout, the whole batch's (each
 * WorldState once started the wait again, until the server's idle timeout
 * closed the session). */
static void cli_batch_answers_lost_time_out(void **state)
{
    (void)state;
    int port;
    pid_t relay = drop_batch_answers(D.port, &port);
    char *out;
    uint64_t t0 = fx_now_ms();
    int rc = sweep(&out, "move --connect 127.0.0.1:%d --udp --map '%s' --velocity 1,0,0 --count 4 --batch --timeout 1500",
                   port, MAP);
    uint64_t took = fx_now_ms() - t0;
    kill(relay, SIGKILL);
    waitpid(relay, NULL, 0);
    assert_int_equal(rc, 1);
    if (!strstr(out, "TIMEOUT") || took > 10000)
        fail_msg("%llu ms: %s", (unsigned long long)took, out);
    if (!strstr(out, "0 of the batch's 4 answers within 1500 ms"))
        fail_msg("%s", out);
    free(out);
}

static void cli_command(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(sweep(&out, "command --connect %s gate", D.tcp), 1);
    assert_non_null(strstr(out, "error AuthFailed"));
    free(out);
    assert_int_equal(sweep(&out, "command --connect %s --token %s gate --json", D.tcp, TOKEN), 0);
    assert_non_null(strstr(out, "{\"commanded\":\"gate\",\"mover\":3,\"tick\":"));
    free(out);
    assert_int_equal(sweep(&out, "command --connect %s --udp --token %s gate", D.udp, TOKEN), 0);
    assert_non_null(strstr(out, "commanded mover=3 name=gate tick="));
    free(out);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "SWEEP_TOKEN=%s '%s' command --connect %s 'no such mover'", TOKEN, SWEEP, D.tcp);
    assert_int_equal(fx_run(cmd, &out), 1);
    assert_non_null(strstr(out, "error UnknownMover"));
    free(out);
    assert_int_equal(sweep(&out, "command --connect %s --token %s", D.tcp, TOKEN), 2); /* no name */
    free(out);
    assert_int_equal(sweep(&out, "command --connect %s --token %s gate door", D.tcp, TOKEN), 2);
    free(out);
}

/* `sweep move` on the lift: it lands on it, is carried between moves
 * (--interval paces the moves over ticks), and predicts every move,
 * re-checking exactly each one the movers made it miss. */
static void cli_move_on_the_lift(void **state)
{
    (void)state;
    char *out;
    for (int json = 0; json < 2; json++) {
        assert_int_equal(sweep(&out,
                               "move --connect %s --token %s --map '%s' --position 6,0,3.5 --velocity 0,0,0 --count 100 "
                               "--interval 10 %s",
                               D.tcp, TOKEN, MAP, json ? "--json" : ""),
                         0);
        if (json) {
            assert_int_equal(count_of(out, "{\"move\""), 100);
            assert_int_equal(count_of(out, "\"predicted\":\"match\"") + count_of(out, "\"predicted\":\"mismatch\""),
                             100);
            assert_true(count_of(out, "\"ground_mover\":1") > 0);
            assert_true(count_of(out, "\"carried\":true,\"pushed\":false,\"pushed_by\":1,\"start_position\":[") > 0);
            assert_int_equal(count_of(out, "\"rerun\":\"mismatch\""), 0);
        } else {
            assert_int_equal(count_of(out, "\nmove "), 100);
            assert_true(count_of(out, " ground_mover=1") > 0);
            assert_true(count_of(out, " carried=1 pushed_by=1 start=(") > 0);
            assert_int_equal(count_of(out, "rerun=mismatch"), 0);
        }
        free(out);
    }
    /* Locally: the movers stand where their paths start. */
    assert_int_equal(sweep(&out, "move --map '%s' --position 6,0,2 --velocity 0,0,0 --count 30 --json", MAP), 0);
    assert_int_equal(count_of(out, "\"ground_mover\":1"), count_of(out, "\"grounded\":true"));
    assert_true(count_of(out, "\"ground_mover\":1") > 0);
    free(out);
}

static int python(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int python(char **out, const char *fmt, ...)
{
    char args[4096], gen[4096], cmd[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    const char *src = getenv("SWEEP_SRCDIR");
    snprintf(cmd, sizeof cmd, "PYTHONPATH='%s' /usr/bin/python3 '%s/client-sdk/python/sweep_client.py' %s",
             fx_build("client-sdk/python", gen, sizeof gen), src && *src ? src : ".", args);
    return fx_run(cmd, out);
}

static void python_watch(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        char *out;
        uint64_t ticks[16];
        assert_int_equal(python(&out, "--connect %s %s --watch 2 --count 4", t ? D.udp : D.tcp, t ? "--udp" : ""), 0);
        assert_int_equal(numbers_after(out, "world tick=", ticks, 16), 4);
        increasing(ticks, 4);
        for (int i = 1; i < 4; i++)
            assert_int_equal(ticks[i] % 2, 0);
        assert_int_equal(count_of(out, "  mover id="), 16);
        assert_int_equal(count_of(out, " movers=4/4"), 4);
        assert_non_null(strstr(out, "  mover id=1 flags="));
        /* where each is on its path (WorldState.paths) */
        assert_int_equal(count_of(out, " path_tick="), 16);
        free(out);
    }
    char *out;
    assert_int_equal(python(&out, "--connect %s --watch -1", D.tcp), 2);
    free(out);
}

static void bots_watch(void **state)
{
    (void)state;
    char bots[4096], cmd[16384], *out;
    fx_build("bin/sweep-bots", bots, sizeof bots);
    for (int t = 0; t < 2; t++) {
        snprintf(cmd, sizeof cmd, "'%s' --connect %s %s --clients 2 --rate 60 --duration 0.5 --warmup 0.1 --watch 1",
                 bots, t ? D.udp : D.tcp, t ? "--udp" : "");
        assert_int_equal(fx_run(cmd, &out), 0);
        uint64_t n[1];
        assert_int_equal(numbers_after(out, "world states: ", n, 1), 1);
        /* Two bots, every tick, half a second measured: about 60 (not judged closely). */
        assert_true(n[0] >= 10);
        free(out);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(world_state_is_checked_before_it_is_applied),
        cmocka_unit_test(a_rider_is_not_carried_past_the_limit),
        cmocka_unit_test(predictor_follows_a_simulated_lift),
        cmocka_unit_test(watch_gives_increasing_ticks),
        cmocka_unit_test(riding_and_pushed_predicted_exactly),
        cmocka_unit_test(crushed_entity_is_despawned_unasked),
        cmocka_unit_test(mover_command_needs_the_server_role),
        cmocka_unit_test(cli_watch),
        cmocka_unit_test(cli_watch_of_a_silent_server_times_out),
        cmocka_unit_test(cli_batch_answers_lost_time_out),
        cmocka_unit_test(cli_command),
        cmocka_unit_test(cli_move_on_the_lift),
        cmocka_unit_test(python_watch),
        cmocka_unit_test(bots_watch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
