/*
 * test_players_block.c - sweepd --players-block: entities are obstacles to
 * each other, from any session, in the order their moves arrive; without
 * the option they pass through each other as before.
 *
 * Two sessions of the server role each spawn one entity on the open floor
 * of the arena's east wing, 2.5 m apart, and move them into each other one
 * raw (Fly) move at a time, alternating. With the option the gap never
 * closes below the sum of the radii and the contacts name a shell (a
 * triangle number from 2^31 up); without it the two pass and meet no
 * shell. A spawn inside another entity is refused with the option, and
 * players, whom the server places, are put at the next free spawn point.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/crowd.h"
#include "tests/sweepd_fixture.h"

static const double DT = 1.0 / 60.0;
static const sweep_vec3 RADII = {0.4, 0.4, 0.9};

/* One move of entity id over fd; fills *r. */
static void move(int fd, fx_rx *rx, uint32_t id, uint32_t seq, sweep_vec3 v, sweep_msg_move_result *r)
{
    sweep_message m = fx_fly_msg(id, seq, v, DT);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    if (m.kind != SWEEP_MSG_MOVE_RESULT)
        fail_msg("move %u of entity %u: got message kind %d", seq, id, (int)m.kind);
    *r = m.as.move_result;
}

static int shell_contact(const sweep_msg_move_result *r)
{
    for (uint32_t i = 0; i < r->contact_count; i++)
        if (r->contacts[i].triangle >= SWEEP_CROWD_FIRST_TRIANGLE)
            return 1;
    return 0;
}

/* Walks two entities of two sessions at each other; returns the least
 * horizontal distance seen and whether any contact was a shell. */
static double walk_at_each_other(const char *const *extra, int *met_shell)
{
    fx_server srv;
    const char *args[16];
    int n = 0;
    for (; extra && extra[n]; n++)
        args[n] = extra[n];
    const char *role[] = {FX_SERVER_ARGS};
    for (size_t k = 0; k < sizeof role / sizeof role[0]; k++)
        args[n++] = role[k];
    args[n] = NULL;
    assert_int_equal(fx_start(&srv, args), 0);
    fx_rx *rx = fx_rx_new();
    int a = fx_tcp_connect(srv.port), b = fx_tcp_connect(srv.port);
    assert_true(fx_hello_token(a, rx, FX_TOKEN) != 0 && fx_hello_token(b, rx, FX_TOKEN) != 0);
    uint32_t ea = fx_spawn(a, rx, 1, sweep_v3(23.0, -2.0, 0.95), RADII);
    uint32_t eb = fx_spawn(b, rx, 1, sweep_v3(25.5, -2.0, 0.95), RADII);
    assert_true(ea != 0 && eb != 0);
    double least = INFINITY;
    *met_shell = 0;
    sweep_msg_move_result ra, rb;
    for (uint32_t s = 2; s < 120; s++) {
        move(a, rx, ea, s, sweep_v3(3.0, 0.0, -2.0), &ra);
        move(b, rx, eb, s, sweep_v3(-3.0, 0.0, -2.0), &rb);
        double d = fabs(rb.position.x - ra.position.x);
        least = d < least ? d : least;
        *met_shell |= shell_contact(&ra) | shell_contact(&rb);
    }
    close(a);
    close(b);
    free(rx);
    assert_int_equal(fx_stop(&srv), 0);
    return least;
}

static void entities_block_each_other(void **state)
{
    (void)state;
    const char *extra[] = {"--players-block", "on", NULL};
    int shell;
    double least = walk_at_each_other(extra, &shell);
    assert_true(shell);
    assert_true(least >= 0.8 - 1e-9);
    assert_true(least < 0.8 + 0.01); /* they did meet */
}

static void by_default_they_pass(void **state)
{
    (void)state;
    int shell;
    double least = walk_at_each_other(NULL, &shell);
    assert_false(shell);
    assert_true(least < 0.1);
}

/* With the option, a place inside another entity is not free: the server
 * role is refused there, and players go to the next free spawn point. */
static void spawns_avoid_entities(void **state)
{
    (void)state;
    fx_server srv;
    const char *args[] = {"--players-block", "on", FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&srv, args), 0);
    fx_rx *rx = fx_rx_new();
    int a = fx_tcp_connect(srv.port), p = fx_tcp_connect(srv.port);
    assert_true(fx_hello_token(a, rx, FX_TOKEN) != 0 && fx_hello(p, rx) != 0);
    /* The server role stands on the arena's first spawn point (0, 0, 1). */
    assert_true(fx_spawn(a, rx, 1, sweep_v3(0, 0, 1), RADII) != 0);
    sweep_message m = fx_spawn_msg(2, sweep_v3(0.3, 0, 1), RADII);
    uint32_t seq = 0;
    assert_int_equal(fx_expect_error(a, rx, &m, &seq), SWEEP_WIRE_SPAWN_REFUSED);
    assert_int_equal(seq, 2);
    /* Asked by number, the occupied point is refused... */
    m = fx_spawn_msg(3, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    m.as.spawn.spawn_point = 1;
    assert_int_equal(fx_send(p, &m), 0);
    assert_int_equal(fx_recv(p, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_ERROR);
    assert_int_equal(m.as.error.code, SWEEP_WIRE_SPAWN_REFUSED);
    assert_non_null(strstr(m.as.error.message.ptr, "spawn point 1 is occupied by entity "));
    /* ... and the server's own pick skips it. */
    m = fx_spawn_msg(4, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0));
    assert_int_equal(fx_send(p, &m), 0);
    assert_int_equal(fx_recv(p, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_SPAWNED);
    assert_int_equal(m.as.spawned.spawn_point, 2);
    assert_true(m.as.spawned.position.x == 4.0 && m.as.spawned.position.y == 0.0);
    close(a);
    close(p);
    free(rx);
    assert_int_equal(fx_stop(&srv), 0);
}

static void option_is_checked(void **state)
{
    (void)state;
    fx_server srv;
    const char *bad[] = {"--players-block", "sometimes", NULL};
    assert_int_not_equal(fx_start(&srv, bad), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entities_block_each_other),
        cmocka_unit_test(by_default_they_pass),
        cmocka_unit_test(spawns_avoid_entities),
        cmocka_unit_test(option_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
