/*
 * test_volumes.c - the world library on a level with volumes
 * (maps/pads.sql): a Walk move onto the pad says launched_by, one into the
 * teleporter teleported_by, one in the burning pool hurt_by and its
 * damage, one across the gate entered; a move that ends in the kill strip
 * says killed_by, and the entity is taken out with an unasked Despawned
 * after that answer, naming the volume and its reason, so that its next
 * move is refused; a move of a batch after the kill is refused too. On the
 * arena's lift with a volume added: a teleport or a pad's launch takes a
 * rider off the lift, which carries it no more.
 */
#include "tests/world/world_fixture.h"

#include <sqlite3.h>

static sweep__world *open_pads(void)
{
    sweep__log_set_level(SWEEP_LOG_ERROR);
    char path[4300];
    snprintf(path, sizeof path, "%s", wf_arena());
    char *slash = strrchr(path, '/');
    assert_non_null(slash);
    snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "pads.db");
    sweep__world_options opt = wf_options();
    char err[600] = "";
    sweep__world *w = sweep__world_open(path, &opt, 0, err, sizeof err);
    if (!w)
        fail_msg("cannot open %s: %s", path, err);
    return w;
}

typedef struct pads {
    sweep__world *w;
    wf_rec *r;
    sweep__owner o;
    uint32_t seq;
} pads;

static void pads_open(pads *p)
{
    memset(p, 0, sizeof *p);
    p->w = open_pads();
    p->r = wf_rec_new();
    wf_owner(&p->o, p->w, 1, SWEEP_WIRE_ROLE_SERVER, 0);
    p->seq = 1;
}

static void pads_close(pads *p)
{
    sweep__owner_release(&p->o, NULL);
    sweep__world_close(p->w);
    free(p->r);
}

/* A relayed player (Walk rules) standing at (x, y) on a floor at z - 0.9. */
static uint32_t player_on(pads *p, double x, double y, double z)
{
    sweep_message m = wf_spawn_at(p->seq++, x, y, z);
    m.as.spawn.player = 1;
    wf_clear(p->r);
    wf_request(p->w, &p->o, p->r, &m);
    return wf_only(p->r, SWEEP_MSG_SPAWNED)->as.spawned.entity;
}

/* The same on the floor of z = 0. */
static uint32_t player_at(pads *p, double x, double y)
{
    return player_on(p, x, y, 0.9005);
}

static sweep_msg_move_result walk(pads *p, uint32_t e, sweep_vec3 wish)
{
    wf_clear(p->r);
    sweep_message m = wf_move_msg(e, p->seq++, wish, 1.0 / 60.0);
    wf_request(p->w, &p->o, p->r, &m);
    const sweep_message *a = wf_only(p->r, SWEEP_MSG_MOVE_RESULT);
    assert_non_null(a);
    return a->as.move_result;
}

/* The arena (its lift: a platform centred at (33, -9), top at z = 0.2,
 * rising to 3 after its first wait) with one more volume, written by
 * `sql`, in a copy at *path (the caller unlinks it). */
static sweep__world *open_arena_with(const char *sql, char *path, size_t cap)
{
    sweep__log_set_level(SWEEP_LOG_ERROR);
    snprintf(path, cap, "/tmp/sweep-test-volumes-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *in = fopen(wf_arena(), "rb"), *out = fdopen(fd, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err);
    sqlite3_close(db);
    sweep__world_options opt = wf_options();
    char why[600] = "";
    sweep__world *w = sweep__world_open(path, &opt, 0, why, sizeof why);
    if (!w)
        fail_msg("cannot open %s: %s", path, why);
    return w;
}

/* A player riding the lift up into the volume `sql` adds: once the volume
 * has taken it off the platform (a teleport far away, a pad's launch),
 * the answer names no ground and the lift carries it no more while it
 * sends no move for half a second. */
static void leaves_the_lift_behind(const char *sql, int teleport)
{
    char path[64];
    pads p;
    memset(&p, 0, sizeof p);
    p.w = open_arena_with(sql, path, sizeof path);
    p.r = wf_rec_new();
    wf_owner(&p.o, p.w, 1, SWEEP_WIRE_ROLE_SERVER, 0);
    p.seq = 1;
    /* Onto the lift (core mover 2) while it waits at the bottom. */
    sweep_vec3 lo, hi;
    for (int i = 0; i < 600; i++) {
        wf_ticks(p.w, p.r, 1);
        sweep_movers_bounds(p.w->movers, 2, &lo, &hi);
        if (i >= 30 && hi.z < 0.2 + 1e-9)
            break;
    }
    uint32_t e = player_on(&p, 33, -9, hi.z + 0.9005);
    sweep_msg_move_result r;
    memset(&r, 0, sizeof r);
    int on_lift = 0;
    for (int i = 0; i < 600; i++) {
        wf_ticks(p.w, p.r, 1);
        r = walk(&p, e, sweep_v3(0, 0, 0));
        on_lift |= r.ground_mover == 3;
        if (teleport ? r.teleported_by != 0 : r.launched_by != 0)
            break;
    }
    assert_true(on_lift);
    assert_int_equal(teleport ? r.teleported_by : r.launched_by, 9);
    assert_false(r.grounded);
    assert_int_equal(r.ground_mover, 0);
    sweep__entity *ent = sweep__world_any_entity(p.w, e);
    assert_non_null(ent);
    sweep_vec3 at = ent->st.m.actor.position;
    wf_ticks(p.w, p.r, 30);
    /* Far away, nothing moves it; just above the rising platform, the
     * platform may push it, but no longer carries it as its rider. */
    if (teleport)
        assert_true(sweep_v3_same_bits(ent->st.m.actor.position, at));
    r = walk(&p, e, sweep_v3(0, 0, 0));
    assert_false(r.carried);
    if (teleport)
        assert_int_equal(r.pushed_by, 0);
    pads_close(&p);
    unlink(path);
}

static void a_teleport_leaves_the_lift_behind(void **state)
{
    (void)state;
    leaves_the_lift_behind("INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, "
                           "destination_x, destination_y, destination_z, facing_x, facing_y, facing_z, "
                           "keep_velocity, exit_speed) VALUES (9, 'away', 'teleport', 32, -10, 2.0, 34, -8, 2.6, "
                           "0, 0, 0.9005, 1, 0, 0, 0, 0)",
                           1);
}

static void a_launch_leaves_the_lift_behind(void **state)
{
    (void)state;
    leaves_the_lift_behind("INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, "
                           "velocity_x, velocity_y, velocity_z) VALUES (9, 'pad', 'push', 32, -10, 2.0, 34, -8, "
                           "2.6, 0, 0, 6)",
                           0);
}

static void each_volume_is_named_in_the_result(void **state)
{
    (void)state;
    pads p;
    pads_open(&p);
    wf_ticks(p.w, p.r, 30); /* time in the players' budgets */
    uint32_t e = player_at(&p, 0, 0);
    sweep_msg_move_result r = walk(&p, e, sweep_v3(0, 0, 0));
    assert_int_equal(r.launched_by, 1);
    assert_true(r.velocity.z == p.w->level.volumes[0].v.velocity.z);
    assert_false(r.grounded);
    assert_int_equal(r.killed_by, 0);

    e = player_at(&p, -10, 0);
    r = walk(&p, e, sweep_v3(0, 0, 0));
    assert_int_equal(r.teleported_by, 2);
    assert_false(r.teleport_blocked);
    assert_true(r.position.x == 25.0 && r.position.y == 3.0);

    e = player_at(&p, -20, 0);
    r = walk(&p, e, sweep_v3(0, 0, 0));
    assert_int_equal(r.hurt_by, 3);
    assert_true(r.damage == 10.0 * (1.0 / 60.0));

    e = player_at(&p, 4.99, 0);
    walk(&p, e, sweep_v3(0, 0, 0)); /* a new entity is not grounded: this lands it */
    r = walk(&p, e, sweep_v3(5, 0, 0));
    assert_int_equal(r.entered, 4);
    pads_close(&p);
}

static void a_kill_despawns_after_the_answer(void **state)
{
    (void)state;
    pads p;
    pads_open(&p);
    wf_ticks(p.w, p.r, 30);
    uint32_t e = player_at(&p, 35.99, 0);
    walk(&p, e, sweep_v3(0, 0, 0)); /* a new entity is not grounded: this lands it */
    wf_clear(p.r);
    sweep_message m = wf_move_msg(e, p.seq++, sweep_v3(5, 0, 0), 1.0 / 60.0);
    wf_request(p.w, &p.o, p.r, &m);
    assert_int_equal(p.r->nmsgs, 2);
    assert_int_equal(p.r->msgs[0].m.kind, SWEEP_MSG_MOVE_RESULT);
    assert_int_equal(p.r->msgs[0].m.as.move_result.killed_by, 5);
    const sweep_message *d = &p.r->msgs[1].m;
    assert_int_equal(d->kind, SWEEP_MSG_DESPAWNED);
    assert_int_equal(d->sequence, 0);
    assert_int_equal(d->as.despawned.entity, e);
    assert_int_equal(d->as.despawned.killed_by, 5);
    assert_int_equal(d->as.despawned.crushed_by, 0);
    assert_int_equal(d->as.despawned.reason.len, strlen("fell into the lava"));
    assert_memory_equal(d->as.despawned.reason.ptr, "fell into the lava", d->as.despawned.reason.len);
    assert_int_equal(p.w->counts.killed_total, 1);
    assert_int_equal(p.o.entity_count, 0);

    /* Gone: its next move is refused. */
    wf_clear(p.r);
    m = wf_move_msg(e, p.seq++, sweep_v3(5, 0, 0), 1.0 / 60.0);
    wf_request(p.w, &p.o, p.r, &m);
    assert_non_null(wf_error(p.r, SWEEP_WIRE_UNKNOWN_ENTITY, m.sequence));

    /* In a batch: the move after the kill is refused, the answer comes
     * first, then the Despawned. */
    e = player_at(&p, 35.99, 0);
    walk(&p, e, sweep_v3(0, 0, 0));
    sweep_msg_move mv[2];
    for (int i = 0; i < 2; i++) {
        sweep_message one = wf_move_msg(e, p.seq++, sweep_v3(5, 0, 0), 1.0 / 60.0);
        mv[i] = one.as.move;
    }
    sweep_message b;
    memset(&b, 0, sizeof b);
    b.kind = SWEEP_MSG_MOVE_BATCH;
    b.sequence = p.seq++;
    b.as.move_batch.moves = mv;
    b.as.move_batch.count = 2;
    wf_clear(p.r);
    wf_request(p.w, &p.o, p.r, &b);
    /* The refusal of the second move, the batch's answer, the Despawned. */
    assert_int_equal(p.r->nmsgs, 3);
    assert_int_equal(p.r->msgs[0].m.kind, SWEEP_MSG_ERROR);
    assert_int_equal(p.r->msgs[0].m.as.error.code, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(p.r->msgs[0].m.as.error.sequence, mv[1].sequence);
    assert_int_equal(p.r->msgs[1].m.kind, SWEEP_MSG_MOVE_RESULT_BATCH);
    assert_int_equal(p.r->msgs[1].m.as.move_result_batch.count, 1);
    assert_int_equal(p.r->msgs[1].m.as.move_result_batch.results[0].killed_by, 5);
    assert_int_equal(p.r->msgs[2].m.kind, SWEEP_MSG_DESPAWNED);
    assert_int_equal(p.r->msgs[2].m.as.despawned.entity, e);
    assert_int_equal(p.w->counts.killed_total, 2);
    pads_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_volume_is_named_in_the_result),
        cmocka_unit_test(a_kill_despawns_after_the_answer),
        cmocka_unit_test(a_teleport_leaves_the_lift_behind),
        cmocka_unit_test(a_launch_leaves_the_lift_behind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
