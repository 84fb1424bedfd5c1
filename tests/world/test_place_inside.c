/*
 * test_place_inside.c - a place inside a closed solid is not free. The
 * core's room test collides with front faces only, so an ellipsoid wholly
 * inside a pillar or a crate, behind all its faces, touches none of them;
 * the world finds such a place by the ways out of it (server/world/place.c)
 * and refuses a Spawn and a Teleport there by name, as it refuses one that
 * overlaps a face. A closed mover facing in (a cabin) is a room, and the
 * places beside and on top of a solid stay free.
 *
 * The level is built here and written to a temporary map: a floor, a
 * 3 m pillar and a 2.2 m block standing on it (no bottom faces), a closed
 * crate mover, a cabin mover (its faces inward) and a bin mover (a crate
 * without a top) under a lift's platform, all staying where they start
 * until commanded. Last, no place a walker reaches on the sample arena is
 * said to be inside a solid.
 */
#include "core/walker.h"
#include "maps/level.h"
#include "maps/writer.h"
#include "tests/world/world_fixture.h"

#define PILLAR_X 5.0 /* x in [4, 6], y in [-1, 1], z in [0, 3] */
#define BLOCK_X -5.0 /* x in [-6, -4], y in [-1, 1], z in [0, 2.2] */
#define CRATE_Y 8.0  /* the crate: x in [-1.5, 1.5], y in [6.5, 9.5], z in [0, 3] */
#define CABIN_Y -8.0 /* the cabin: the same size around y = -8 */
#define BIN_Y 16.0   /* the bin: the same size around y = 16, 1 cm up, no top; the lift's platform above it */

/* Spawn points, numbered as on the wire. */
enum { IN_PILLAR = 1, IN_CRATE = 2, IN_CABIN = 3, OPEN = 4, IN_BIN = 5 };

static char DIR_[64], MAP[128];

/* A closed box of mover triangles, its faces outward, or inward (a room
 * seen from inside); open_top leaves its top out. */
static void mover_box(sweep_level_mover *m, sweep_vec3 lo, sweep_vec3 hi, int inward, int open_top)
{
    static const uint32_t tri[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                                        {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    for (int i = 0; i < 8; i++)
        assert_int_equal(sweep_level_mover_add_vertex(
                             m, sweep_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z), NULL),
                         SWEEP_OK);
    for (int t = open_top ? 4 : 0; t < 12; t++)
        assert_int_equal(
            sweep_level_mover_add_triangle(m, tri[t][0], tri[t][inward ? 2 : 1], tri[t][inward ? 1 : 2], 1), SWEEP_OK);
}

/* A mover that stays at `at` until a command moves it: a 3 m box, or
 * (shape 2) a 4 m square platform facing up. */
static void still_mover(sweep_level *lv, uint32_t id, const char *name, sweep_vec3 at, int shape)
{
    uint32_t i;
    assert_int_equal(sweep_level_add_mover(lv, id, name, &i), SWEEP_OK);
    sweep_level_mover *m = &lv->movers[i];
    m->mode = SWEEP_MOVER_ONCE;
    m->trigger = SWEEP_TRIGGER_COMMAND;
    m->blocked = SWEEP_BLOCKED_STOP;
    if (shape == 2) {
        for (int k = 0; k < 4; k++)
            assert_int_equal(
                sweep_level_mover_add_vertex(m, sweep_v3(k == 1 || k == 2 ? 2 : -2, k >= 2 ? 2 : -2, 0), NULL),
                SWEEP_OK);
        assert_int_equal(sweep_level_mover_add_triangle(m, 0, 1, 2, 1), SWEEP_OK);
        assert_int_equal(sweep_level_mover_add_triangle(m, 0, 2, 3, 1), SWEEP_OK);
    } else {
        mover_box(m, sweep_v3(-1.5, -1.5, 0), sweep_v3(1.5, 1.5, 3), shape == 1, shape == 3);
    }
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0, at, sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 1, sweep_v3_add(at, sweep_v3(0, 0, 4)), sweep_quat_identity()),
                     SWEEP_OK);
}

static int setup(void **state)
{
    (void)state;
    snprintf(DIR_, sizeof DIR_, "/tmp/sweep-place-test-XXXXXX");
    if (!mkdtemp(DIR_))
        return -1;
    snprintf(MAP, sizeof MAP, "%s/solids.db", DIR_);
    sweep_level lv;
    sweep_level_init(&lv);
    snprintf(lv.name, sizeof lv.name, "solids");
    assert_int_equal(sweep_level_add_material(&lv, 1, "stone", 0.5, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(&lv, sweep_v3(-25, -25, 0), sweep_v3(25, -25, 0), sweep_v3(25, 25, 0),
                                          sweep_v3(-25, 25, 0), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_box(&lv, sweep_v3(PILLAR_X - 1, -1, 0), sweep_v3(PILLAR_X + 1, 1, 3), 1, 0),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_box(&lv, sweep_v3(BLOCK_X - 1, -1, 0), sweep_v3(BLOCK_X + 1, 1, 2.2), 1, 0),
                     SWEEP_OK);
    still_mover(&lv, 1, "crate", sweep_v3(0, CRATE_Y, 0), 0);
    still_mover(&lv, 2, "cabin", sweep_v3(0, CABIN_Y, 0), 1);
    still_mover(&lv, 3, "bin", sweep_v3(0, BIN_Y, 0.01), 3);
    still_mover(&lv, 4, "lift", sweep_v3(0, BIN_Y, 4), 2);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(PILLAR_X, 0, 1.2)), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(0, CRATE_Y, 1.5)), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(0, CABIN_Y, 1.5)), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(10, 10, 1)), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(&lv, sweep_v3(0, BIN_Y, 1.5)), SWEEP_OK);
    char err[256] = "";
    sweep_status st = sweep_map_write(MAP, &lv, NULL, NULL, err, sizeof err);
    sweep_level_free(&lv);
    if (st != SWEEP_OK) {
        fprintf(stderr, "writing the test map: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(MAP);
    return rmdir(DIR_) == 0 ? 0 : -1;
}

/* The world on the level, a game server's session in it. */
static void open_solids(wf_one *s)
{
    memset(s, 0, sizeof *s);
    sweep__log_set_level(SWEEP_LOG_ERROR);
    sweep__world_options opt = wf_options();
    char err[600] = "";
    s->w = sweep__world_open(MAP, &opt, 0, err, sizeof err);
    if (!s->w)
        fail_msg("cannot open %s: %s", MAP, err);
    s->r = wf_rec_new();
    wf_owner(&s->o, s->w, 1, SWEEP_WIRE_ROLE_SERVER, 0);
}

static void expect_in(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("'%s' does not say '%s'", text, want);
}

/* The server role's Spawn (sequence seq) at spawn point `point`: the
 * words of its refusal. */
static const char *refused_at(wf_one *s, uint32_t seq, uint32_t point)
{
    sweep_message m = wf_spawn_msg(seq);
    m.as.spawn.spawn_point = point;
    wf_clear(s->r);
    wf_request(s->w, &s->o, s->r, &m);
    return wf_error(s->r, SWEEP_WIRE_SPAWN_REFUSED, seq);
}

static void spawn_points_inside_solids_are_refused_by_name(void **state)
{
    (void)state;
    wf_one s;
    open_solids(&s);
    expect_in(refused_at(&s, 1, IN_PILLAR),
              "spawn point 1 is inside the level's geometry at (5, 0, 1.2) (behind all the faces of a solid, "
              "triangle ");
    const char *text = refused_at(&s, 2, IN_CRATE);
    expect_in(text, "spawn point 2 at (0, 8, 1.5) lies in the inside of mover 1 \"crate\" (behind all its faces)");
    assert_null(strstr(text, "occupied"));
    /* Inside the bin: its own faces are five of the six backs met, the
     * lift's platform above its open top the sixth, and met first. */
    expect_in(refused_at(&s, 5, IN_BIN),
              "spawn point 5 at (0, 16, 1.5) lies in the inside of mover 3 \"bin\" (behind all its faces)");

    /* Inside the cabin, whose faces look in: a room. */
    sweep_msg_spawned sp = wf_spawn_point(s.w, &s.o, s.r, 3, IN_CABIN);
    assert_true(sp.position.x == 0 && sp.position.y == CABIN_Y && sp.position.z == 1.5);
    sp = wf_spawn_point(s.w, &s.o, s.r, 4, OPEN);
    assert_true(sp.position.x == 10 && sp.position.y == 10 && sp.position.z == 1);

    /* A player without a point is placed at the first free one after
     * the last: never inside a solid. */
    sweep__owner player;
    wf_owner(&player, s.w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    for (uint32_t k = 0; k < 4; k++) {
        wf_clear(s.r);
        sweep_message p = wf_spawn_msg(10 + k);
        wf_request(s.w, &player, s.r, &p);
        const sweep_message *out = &s.r->msgs[0].m;
        assert_int_equal(s.r->nmsgs, 1);
        if (out->kind == SWEEP_MSG_SPAWNED) {
            sweep_vec3 at = out->as.spawned.position;
            assert_false(at.x == PILLAR_X && at.y == 0);
            assert_false(at.x == 0 && at.y == CRATE_Y);
            assert_false(at.x == 0 && at.y == BIN_Y);
        }
    }
    sweep__owner_release(&player, NULL);
    wf_one_close(&s);
}

static void a_place_inside_a_solid_has_no_room(void **state)
{
    (void)state;
    wf_one s;
    open_solids(&s);
    sweep_vec3 r = s.w->level.default_radii;
    uint64_t hash = sweep__world_state_hash(s.w);
    /* The server role's own position, inside the pillar and the crate. */
    sweep_message m = wf_spawn_at(1, PILLAR_X, 0, 1.2);
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &m);
    expect_in(wf_error(s.r, SWEEP_WIRE_SPAWN_REFUSED, 1),
              "(5, 0, 1.2) with radii (0.4, 0.4, 0.9) overlaps the inside of a solid of the level (behind triangle ");
    m = wf_spawn_at(2, 0.5, CRATE_Y - 0.5, 1.2);
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &m);
    expect_in(wf_error(s.r, SWEEP_WIRE_SPAWN_REFUSED, 2), "overlaps the inside of mover 1 \"crate\"");
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* Beside the pillar, on top of it, and in the cabin: free. */
    uint32_t e = wf_spawn_at_id(s.w, &s.o, s.r, 3, PILLAR_X + 1 + r.x + 0.01, 0, 1, 0);
    wf_spawn_at_id(s.w, &s.o, s.r, 4, PILLAR_X, 0, 3 + r.z + 0.01, 0);
    wf_spawn_at_id(s.w, &s.o, s.r, 5, 0.5, CABIN_Y - 0.5, 1.2, 0);

    /* A Teleport into the pillar: no place above it within reach. */
    sweep_msg_entity_command c = {.entity = e, .op = SWEEP_WIRE_OP_TELEPORT, .vector = sweep_v3(PILLAR_X, 0, 1.2)};
    sweep_message t;
    memset(&t, 0, sizeof t);
    t.kind = SWEEP_MSG_ENTITY_COMMANDS;
    t.sequence = 6;
    t.as.entity_commands.commands = &c;
    t.as.entity_commands.count = 1;
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &t);
    const sweep_msg_entity_command_result *res =
        &wf_only(s.r, SWEEP_MSG_ENTITY_COMMANDS_RESULT)->as.entity_commands_result.results[0];
    assert_int_equal(res->code, SWEEP_WIRE_NO_ROOM);
    expect_in(res->message.ptr, "overlaps the inside of a solid of the level (behind triangle ");

    /* Into the lower block: pushed out above it, a quarter of the
     * half-height at a time (ten tries reach 2.25 above). */
    c.vector = sweep_v3(BLOCK_X, 0, 1.0);
    t.sequence = 7;
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &t);
    res = &wf_only(s.r, SWEEP_MSG_ENTITY_COMMANDS_RESULT)->as.entity_commands_result.results[0];
    assert_int_equal(res->code, SWEEP_WIRE_NONE);
    assert_int_equal(res->flags, SWEEP_WIRE_COMMAND_PUSHED_OUT);
    assert_true(res->position.z - r.z >= 2.2 && res->position.z <= 1.0 + 2.25 + 1e-9);
    wf_one_close(&s);
}

/* No place a player walks to is inside a solid: walkers on the sample
 * arena (every way its static level meets them) are followed, and every
 * 20th step of each a Spawn of the server role is asked where it stands.
 * One refused must name a face it touches, never the inside of a solid. */
static void places_walkers_reach_are_never_inside(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_SERVER, 0);
    const sweep_level *lv = &s.w->level;
    sweep_walk_params p = {.walkers = 64,
                           .steps = 2000,
                           .heading_every = 60,
                           .dt = 1.0 / 60,
                           .speed = lv->rules.walk_speed,
                           .radii = lv->default_radii,
                           .seed = 7};
    sweep_walker *wk = calloc(p.walkers, sizeof *wk);
    assert_non_null(wk);
    sweep_walk_place(&p, lv->spawns, lv->spawn_count, wk);
    uint32_t seq = 1, spawned = 0;
    for (uint32_t step = 0; step < p.steps; step++) {
        for (uint32_t i = 0; i < p.walkers; i++) {
            sweep_move_result res;
            assert_int_equal(sweep_walk_step(s.w->world, &lv->config, &p, i, step, &wk[i], &res), SWEEP_OK);
            if (step % 20)
                continue;
            sweep_vec3 q = wk[i].position;
            sweep_message m = wf_spawn_at(seq++, q.x, q.y, q.z);
            wf_clear(s.r);
            wf_request(s.w, &s.o, s.r, &m);
            assert_int_equal(s.r->nmsgs, 1);
            const sweep_message *out = &s.r->msgs[0].m;
            if (out->kind == SWEEP_MSG_ERROR && strstr(s.r->msgs[0].text, "inside"))
                fail_msg("walker %u at step %u, (%g, %g, %g): %s", i, step, q.x, q.y, q.z, s.r->msgs[0].text);
            if (out->kind != SWEEP_MSG_SPAWNED)
                continue;
            spawned++;
            m = wf_despawn_msg(out->as.spawned.entity, seq++);
            wf_clear(s.r);
            wf_request(s.w, &s.o, s.r, &m);
        }
    }
    /* Nearly all of them free: the walk is not one refused for other reasons. */
    assert_true(spawned >= p.walkers * p.steps / 20 * 9 / 10);
    free(wk);
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spawn_points_inside_solids_are_refused_by_name),
        cmocka_unit_test(a_place_inside_a_solid_has_no_room),
        cmocka_unit_test(places_walkers_reach_are_never_inside),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
