/*
 * test_moves.c - raw moves through sweepd equal the core run locally on
 * the same map, bit for bit: walking up stairs (TCP, one Move at a time),
 * into a wall (UDP, in batches), plus duplicate and old sequences, claimed
 * positions, Collide, Despawn and Stats.
 *
 * These are the server role's Fly moves (the session says Hello with the
 * server's --command-token, which runs with --allow-free-move on), the
 * collide-and-slide the server applies as given. The local reference does
 * exactly what the server documents for them: sweep_move with the world's
 * config, the stored position, the spawned radii, the velocity and dt as
 * sent, and SWEEP_INPUT_GROUNDED from the previous result. A player's
 * Walk moves (the map's rules, sweep_act) are test_authority.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "maps/loader.h"
#include "tests/sweepd_fixture.h"

static fx_server srv;
static fx_rx *rx;
static sweep_level level;
static sweep_world *world;

static const double DT = 1.0 / 60.0;

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    const char *args[] = {FX_SERVER_ARGS, NULL};
    if (fx_start(&srv, args) != 0)
        return -1;
    char err[256];
    if (sweep_map_load(srv.arena, &level, NULL, err, sizeof err) != SWEEP_OK)
        return -1;
    return sweep_map_build_world(&level, &world, NULL, err, sizeof err) == SWEEP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&srv);
    sweep_world_destroy(world);
    sweep_level_free(&level);
    free(rx);
    return rc == 0 ? 0 : -1;
}

/* The local reference body. */
typedef struct body {
    sweep_vec3 position, radii;
    int grounded;
} body;

static sweep_move_result local_move(body *b, sweep_vec3 v, double dt)
{
    sweep_move_input in = {b->position, b->radii, v, dt, b->grounded ? SWEEP_INPUT_GROUNDED : 0};
    sweep_move_result r;
    assert_int_equal(sweep_move(world, &level.config, &in, &r), SWEEP_OK);
    b->position = r.position;
    b->grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
    return r;
}

/* Bit-for-bit equality of a server result and a local one. */
static void assert_same(const sweep_msg_move_result *s, const sweep_move_result *l)
{
    assert_memory_equal(&s->position, &l->position, sizeof l->position);
    assert_memory_equal(&s->velocity, &l->velocity, sizeof l->velocity);
    assert_int_equal(s->grounded, (l->flags & SWEEP_MOVED_GROUNDED) != 0);
    assert_memory_equal(&s->ground_normal, &l->ground_normal, sizeof l->ground_normal);
    assert_int_equal(s->ground_material, l->ground_material);
    assert_int_equal(s->contact_count, l->contact_count);
    for (uint32_t i = 0; i < l->contact_count; i++) {
        assert_memory_equal(&s->contacts[i].point, &l->contacts[i].point, sizeof(sweep_vec3));
        assert_memory_equal(&s->contacts[i].normal, &l->contacts[i].normal, sizeof(sweep_vec3));
        assert_int_equal(s->contacts[i].triangle, l->contacts[i].triangle);
        assert_int_equal(s->contacts[i].material, l->contacts[i].material);
    }
}

static void test_stairs_tcp_bit_identical(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    body b = {sweep_v3(-11, -18, 1.0), level.default_radii, 0};
    /* radii 0 = the map's default */
    uint32_t e = fx_spawn(fd, rx, 2, b.position, sweep_v3(0, 0, 0));
    assert_true(e != 0);
    double vz = 0.0, top = 0.0;
    int stepped = 0;
    for (uint32_t i = 1; i <= 150; i++) {
        sweep_vec3 v = sweep_v3(0.0, 4.0, vz + level.config.gravity.z * DT);
        sweep_message m = fx_fly_msg(e, i, v, DT);
        assert_int_equal(fx_send(fd, &m), 0);
        assert_int_equal(fx_recv(fd, rx, &m), 1);
        assert_int_equal(m.kind, SWEEP_MSG_MOVE_RESULT);
        assert_int_equal(m.as.move_result.sequence, i);
        assert_int_equal(m.as.move_result.entity, e);
        sweep_move_result l = local_move(&b, v, DT);
        assert_same(&m.as.move_result, &l);
        stepped |= (l.flags & SWEEP_MOVED_STEPPED) != 0;
        vz = l.velocity.z;
        if (l.position.z > top)
            top = l.position.z;
    }
    (void)stepped; /* round bodies may climb low steps by sliding, without the step rule */
    if (!(top > 1.8))
        fail_msg("never reached the landing: highest centre z = %.17g", top); /* stood on the landing (top 1.0, centre 0.9 above) */
    close(fd);
}

static void test_wall_udp_batches_bit_identical(void **state)
{
    (void)state;
    int fd = fx_udp_socket(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_udp_handshake_token(fd, rx, FX_TOKEN, NULL) != 0);
    /* Clear of the corridor wall that ends at x = 16.8 (a spawn overlapping
     * it is refused). */
    body b = {sweep_v3(17.5, 0, 0.9), sweep_v3(0.4, 0.4, 0.9), 0};
    sweep_message m = fx_spawn_msg(10, b.position, b.radii), r;
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_SPAWNED);
    uint32_t e = r.as.spawned.entity;
    sweep_vec3 v = sweep_v3(5.0, 0.0, level.config.gravity.z * DT);
    sweep_msg_move moves[8];
    uint32_t seq = 100, contacts = 0;
    for (int batch = 0; batch < 10; batch++) {
        for (int i = 0; i < 8; i++) {
            memset(&moves[i], 0, sizeof moves[i]);
            moves[i].entity = e;
            moves[i].sequence = ++seq;
            moves[i].velocity = v;
            moves[i].dt = DT;
            moves[i].mode = SWEEP_WIRE_MODE_FLY;
        }
        m = fx_msg(SWEEP_MSG_MOVE_BATCH, 1000 + (uint32_t)batch);
        m.as.move_batch.moves = moves;
        m.as.move_batch.count = 8;
        assert_true(fx_udp_send(fd, &m) > 0);
        /* The answers may come in more than one datagram. */
        int got = 0;
        while (got < 8) {
            assert_true(fx_udp_recv(fd, rx, &r, FX_TIMEOUT_MS) > 0);
            assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT_BATCH);
            assert_int_equal(r.sequence, 1000 + (uint32_t)batch);
            for (uint32_t k = 0; k < r.as.move_result_batch.count; k++) {
                const sweep_msg_move_result *s = &r.as.move_result_batch.results[k];
                assert_int_equal(s->sequence, moves[got].sequence);
                sweep_move_result l = local_move(&b, v, DT);
                assert_same(s, &l);
                assert_int_equal(s->rules, 0); /* the server role's raw moves: no rule, all the time */
                assert_true(s->applied_dt == DT);
                contacts += l.contact_count;
                got++;
            }
        }
    }
    assert_true(contacts > 0);
    assert_true(b.position.x <= 20.0 - 0.4 + 1e-9); /* stopped by the wall */
    assert_true(b.position.x > 19.0);
    close(fd);
}

static void test_duplicate_and_stale_sequence(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    body b = {sweep_v3(0, -5, 0.9), sweep_v3(0.4, 0.4, 0.9), 0};
    uint32_t e = fx_spawn(fd, rx, 2, b.position, b.radii);
    assert_true(e != 0);
    sweep_vec3 v = sweep_v3(1.0, 0.0, -0.1635);
    sweep_message m = fx_fly_msg(e, 10, v, DT), r1, r2;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r1), 1);
    assert_int_equal(r1.kind, SWEEP_MSG_MOVE_RESULT);
    sweep_msg_move_result first = r1.as.move_result;
    sweep_move_result l = local_move(&b, v, DT);
    assert_same(&first, &l);
    /* The same sequence again: the stored answer, not a second move. */
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r2), 1);
    assert_int_equal(r2.kind, SWEEP_MSG_MOVE_RESULT);
    assert_memory_equal(&r2.as.move_result.position, &first.position, sizeof first.position);
    assert_int_equal(r2.as.move_result.sequence, 10);
    /* An older sequence never applied: dropped without an answer (no
     * Error); the Ping after it is the next thing to arrive. */
    sweep_message old = fx_fly_msg(e, 9, v, DT), ping = fx_msg(SWEEP_MSG_PING, 12);
    assert_int_equal(fx_send(fd, &old), 0);
    assert_int_equal(fx_send(fd, &ping), 0);
    assert_int_equal(fx_recv(fd, rx, &r2), 1);
    assert_int_equal(r2.kind, SWEEP_MSG_PONG);
    assert_int_equal(r2.sequence, 12);
    /* The next one continues from the first result, as if nothing else happened. */
    sweep_message next = fx_fly_msg(e, 11, v, DT);
    assert_int_equal(fx_send(fd, &next), 0);
    assert_int_equal(fx_recv(fd, rx, &r2), 1);
    l = local_move(&b, v, DT);
    assert_same(&r2.as.move_result, &l);
    close(fd);
}

/* Spawn.spawn_point places the entity at the map's spawn point (the arena's
 * second is (4, 0, 1)); one past the last is refused with BadPosition. */
static void test_spawn_at_map_spawn_point(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    sweep_message m = fx_spawn_msg(2, sweep_v3(100, 100, 100), sweep_v3(0, 0, 0)), r;
    m.as.spawn.spawn_point = 2;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_SPAWNED);
    assert_true(r.as.spawned.position.x == 4.0 && r.as.spawned.position.y == 0.0 && r.as.spawned.position.z == 1.0);
    assert_true(r.as.spawned.radii.x == 0.4 && r.as.spawned.radii.z == 0.9); /* the map's default */
    assert_int_equal(r.as.spawned.spawn_point, 2);
    /* The server role may ask any place, but the position it sent beside
     * a spawn point is not taken, and is named. */
    assert_int_equal(r.as.spawned.rules, SWEEP_WIRE_RULE_SPAWN_POSITION);
    sweep_message bad = fx_spawn_msg(3, sweep_v3(0, 0, 1), sweep_v3(0.4, 0.4, 0.9));
    bad.as.spawn.spawn_point = 5;
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(fd, rx, &bad, &seq), SWEEP_WIRE_BAD_POSITION);
    assert_int_equal(seq, 3);
    close(fd);
}

static void test_claimed_position(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    body b = {sweep_v3(5, 5, 0.9), sweep_v3(0.4, 0.4, 0.9), 0};
    uint32_t e = fx_spawn(fd, rx, 2, b.position, b.radii);
    sweep_vec3 v = sweep_v3(0.0, 2.0, -0.1635);
    body predicted = b;
    sweep_move_result p = local_move(&predicted, v, DT);
    sweep_message m = fx_fly_msg(e, 1, v, DT), r;
    m.as.move.has_claimed_position = true;
    m.as.move.claimed_position = p.position;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_false(r.as.move_result.corrected);
    assert_true(r.as.move_result.correction == 0.0);
    assert_int_equal(r.as.move_result.rules, 0);
    b = predicted;
    p = local_move(&predicted, v, DT);
    m = fx_fly_msg(e, 2, v, DT);
    m.as.move.has_claimed_position = true;
    m.as.move.claimed_position = sweep_v3(p.position.x + 3.0, p.position.y + 4.0, p.position.z);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_true(r.as.move_result.corrected); /* 5 is above the map's threshold */
    assert_true(level.correction_threshold < 5.0);
    assert_true(fabs(r.as.move_result.correction - 5.0) < 1e-9);
    assert_int_equal(r.as.move_result.rules, SWEEP_WIRE_RULE_CORRECTION);
    assert_memory_equal(&r.as.move_result.position, &p.position, sizeof p.position);
    close(fd);
}

static void test_collide_despawn_stats(void **state)
{
    (void)state;
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello_token(fd, rx, FX_TOKEN) != 0);
    sweep_message m = fx_msg(SWEEP_MSG_COLLIDE, 3), r;
    m.as.collide.position = sweep_v3(18, 1, 0.9);
    m.as.collide.radii = sweep_v3(0.4, 0.4, 0.9);
    m.as.collide.velocity = sweep_v3(55, 0, -0.1635); /* within the map's speed limit */
    m.as.collide.dt = 0.05;
    m.as.collide.grounded = true;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_COLLIDE_RESULT);
    assert_int_equal(r.sequence, 3);
    body b = {m.as.collide.position, m.as.collide.radii, 1};
    sweep_move_result l = local_move(&b, m.as.collide.velocity, 0.05);
    assert_memory_equal(&r.as.collide_result.position, &l.position, sizeof l.position);
    assert_memory_equal(&r.as.collide_result.velocity, &l.velocity, sizeof l.velocity);
    assert_int_equal(r.as.collide_result.contact_count, l.contact_count);
    assert_true(l.contact_count > 0);

    uint32_t e = fx_spawn(fd, rx, 4, sweep_v3(-5, 5, 0.9), sweep_v3(0.4, 0.4, 0.9));
    assert_true(e != 0);
    sweep_message d = fx_msg(SWEEP_MSG_DESPAWN, 5);
    d.as.despawn.entity = e;
    assert_int_equal(fx_send(fd, &d), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_DESPAWNED);
    assert_int_equal(r.as.despawned.entity, e);
    sweep_message mv = fx_fly_msg(e, 6, sweep_v3(1, 0, 0), DT);
    assert_int_equal(fx_expect_error(fd, rx, &mv, NULL), SWEEP_WIRE_UNKNOWN_ENTITY);

    sweep_message st = fx_msg(SWEEP_MSG_GET_STATS, 7);
    assert_int_equal(fx_send(fd, &st), 0);
    assert_int_equal(fx_recv(fd, rx, &r), 1);
    assert_int_equal(r.kind, SWEEP_MSG_STATS);
    assert_true(r.as.stats.sessions >= 1);
    assert_true(r.as.stats.moves_total >= 150);
    assert_true(r.as.stats.errors_total >= 1);
    assert_true(r.as.stats.tick_ns_p99 >= r.as.stats.tick_ns_p50);
    /* The one correction of test_claimed_position, by another session. */
    assert_int_equal(r.as.stats.rules_total_count, SWEEP_WIRE_RULE_COUNT);
    assert_int_equal(r.as.stats.session_rules_count, SWEEP_WIRE_RULE_COUNT);
    assert_true(r.as.stats.rules_total[SWEEP_WIRE_RULE_CORRECTION_BIT] == 1);
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
        assert_true(r.as.stats.session_rules[i] == 0);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stairs_tcp_bit_identical),
        cmocka_unit_test(test_wall_udp_batches_bit_identical),
        cmocka_unit_test(test_duplicate_and_stale_sequence),
        cmocka_unit_test(test_spawn_at_map_spawn_point),
        cmocka_unit_test(test_claimed_position),
        cmocka_unit_test(test_collide_despawn_stats),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
