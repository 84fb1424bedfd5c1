/*
 * test_authority.c - sweepd owns motion, time, spawning and identity, and
 * names every cheat it prevents: each class below is tried by a player
 * against a real sweepd on 127.0.0.1, over TCP and again over UDP, and
 * must be prevented and named (MoveResult/Spawned.rules, Stats counts,
 * the log).
 *
 *   speed          a 100 m/s wish walks at the map's walk speed (Speed,
 *                  speed_excess 95), bit for bit what sweep_act gives;
 *   time dilation  dt = 1 s at 60 moves/s, a flood, a 1.5 s lag-switch
 *                  burst: the time granted is bounded by the bank and the
 *                  ticks that passed, each its period and the clocks'
 *                  drift allowance (TimeBudget, time_excess), and so is
 *                  the distance;
 *   flying         a vertical wish is ignored (Vertical), a jump in the air
 *                  refused (Jump), a jump from the ground granted;
 *   free moves     Fly and Noclip are NotAllowed for players and for the
 *                  server role unless --allow-free-move on;
 *   spawning       a player's position and radii are not taken
 *                  (SpawnPosition, SpawnRadii), a place inside the level is
 *                  refused (SpawnRefused);
 *   identity       good, bad, expired and forged tokens, guests on and off,
 *                  the server role;
 *   ids            random, and another session's answers as unknown;
 *   redundancy     resent old moves get their old results, never Errors;
 *   correction     only beyond the map's threshold.
 *
 * Where a player's results are compared bit for bit, the local reference
 * is what server/README.md tells a predicting client to do: sweep_act
 * with the map's config and rules from the actor of the previous result
 * (at rest at spawn), the wish and buttons sent, and MoveResult.applied_dt
 * as the time (no step when it is 0).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "maps/loader.h"
#include "server/world/world.h"
#include "tests/sweepd_fixture.h"

static fx_server srv;      /* guests on, tokens, the server role with free moves, logging to log_path */
static fx_rx *rx;
static sweep_level level;
static sweep_world *world;
static char dir[64], secret_path[128], log_path[128];
static const uint8_t SECRET[] = "authority-test-secret-0123456789";
#define SECRET_LEN (sizeof SECRET - 1)
static const double DT = 1.0 / 60.0;

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    snprintf(dir, sizeof dir, "/tmp/sweep-authority-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(secret_path, sizeof secret_path, "%s/secret", dir);
    snprintf(log_path, sizeof log_path, "%s/sweepd.log", dir);
    FILE *f = fopen(secret_path, "w");
    if (!f)
        return -1;
    fprintf(f, "%s\n", SECRET);
    fclose(f);
    chmod(secret_path, 0600);
    const char *args[] = {"--auth-secret-file", secret_path, "--allow-guests", "on", "--log-level", "info",
                          FX_SERVER_ARGS, NULL};
    if (fx_start_map_log(&srv, NULL, args, log_path) != 0)
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
    unlink(secret_path);
    unlink(log_path);
    rmdir(dir);
    return rc == 0 ? 0 : -1;
}

/* --- one client, over TCP or UDP ------------------------------------------ */

typedef struct conn {
    int fd, udp;
    uint64_t session;
    sweep_message welcome; /* its strings are not kept: see identity */
    char identity[SWEEP_TOKEN_IDENTITY_MAX + 2];
} conn;

static void csend(conn *c, const sweep_message *m)
{
    if (c->udp)
        assert_true(fx_udp_send(c->fd, m) > 0);
    else
        assert_int_equal(fx_send(c->fd, m), 0);
}

/* The next message within the fixture's timeout: 1, or 0 if none came. */
static int crecv_within(conn *c, sweep_message *m, int ms)
{
    if (c->udp)
        return fx_udp_recv(c->fd, rx, m, ms) > 0;
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0)
        return 0;
    return fx_recv(c->fd, rx, m) == 1;
}

static void crecv(conn *c, sweep_message *m)
{
    assert_int_equal(crecv_within(c, m, FX_TIMEOUT_MS), 1);
}

/* A session on server port with auth token (NULL: a guest): its Welcome,
 * or, when it was refused, the Error in *refusal (then the result's fd is
 * closed and -1). */
static conn open_on(int port, int udp, const char *token, sweep_message *refusal)
{
    conn c;
    memset(&c, 0, sizeof c);
    c.udp = udp;
    sweep_message r;
    if (udp) {
        c.fd = fx_udp_socket(port);
        assert_true(c.fd >= 0);
        c.session = fx_udp_handshake_token(c.fd, rx, token, &r);
    } else {
        c.fd = fx_tcp_connect(port);
        assert_true(c.fd >= 0);
        sweep_message h = fx_hello_msg("authority");
        h.as.hello.auth_token = sweep_str_of(token);
        assert_int_equal(fx_send(c.fd, &h), 0);
        assert_int_equal(fx_recv(c.fd, rx, &r), 1);
        c.session = r.kind == SWEEP_MSG_WELCOME ? r.as.welcome.session_id : 0;
    }
    if (c.session) {
        c.welcome = r;
        if (r.as.welcome.identity.ptr)
            snprintf(c.identity, sizeof c.identity, "%s", r.as.welcome.identity.ptr);
        c.welcome.as.welcome.identity.ptr = NULL; /* a view into rx, soon overwritten */
        c.welcome.as.welcome.map_name.ptr = NULL;
        c.welcome.as.welcome.map_hash.ptr = NULL;
    } else {
        if (refusal)
            *refusal = r;
        close(c.fd);
        c.fd = -1;
    }
    return c;
}

static conn open_conn(int udp, const char *token)
{
    conn c = open_on(srv.port, udp, token, NULL);
    assert_true(c.session != 0);
    return c;
}

static void close_conn(conn *c)
{
    if (c->udp) {
        sweep_message bye = fx_msg(SWEEP_MSG_BYE, 0);
        fx_udp_send(c->fd, &bye);
    }
    close(c->fd);
}

static void stats_of(conn *c, sweep_msg_stats *out)
{
    sweep_message m = fx_msg(SWEEP_MSG_GET_STATS, 999), r;
    csend(c, &m);
    crecv(c, &r);
    assert_int_equal(r.kind, SWEEP_MSG_STATS);
    *out = r.as.stats;
}

/* Spawns with Spawn{position, radii, spawn_point}; returns Spawned. */
static sweep_msg_spawned spawn(conn *c, uint32_t seq, sweep_vec3 pos, sweep_vec3 radii, uint32_t point)
{
    sweep_message m = fx_spawn_msg(seq, pos, radii), r;
    m.as.spawn.spawn_point = point;
    csend(c, &m);
    crecv(c, &r);
    if (r.kind != SWEEP_MSG_SPAWNED)
        fail_msg("Spawn answered by kind %d: %s", (int)r.kind, r.kind == SWEEP_MSG_ERROR ? r.as.error.message.ptr : "");
    return r.as.spawned;
}

static sweep_msg_move_result move(conn *c, sweep_message *m)
{
    sweep_message r;
    csend(c, m);
    crecv(c, &r);
    if (r.kind != SWEEP_MSG_MOVE_RESULT)
        fail_msg("Move answered by kind %d: %s", (int)r.kind, r.kind == SWEEP_MSG_ERROR ? r.as.error.message.ptr : "");
    assert_int_equal(r.as.move_result.sequence, m->as.move.sequence);
    return r.as.move_result;
}

static sweep_message walk_msg(uint32_t entity, uint32_t seq, sweep_vec3 wish, uint32_t buttons, double dt)
{
    sweep_message m = fx_move_msg(entity, seq, wish, dt);
    m.as.move.buttons = buttons;
    return m;
}

/* --- the local reference ---------------------------------------------------- */

/* One Walk move as a predicting client runs it; returns the core's rules. */
static uint32_t local_walk(sweep_actor *a, sweep_vec3 wish, uint32_t buttons, double applied_dt, sweep_act_result *ar)
{
    memset(ar, 0, sizeof *ar);
    if (applied_dt <= 0.0)
        return 0;
    sweep_space space = {world, NULL, NULL, SWEEP_NO_BODY};
    sweep_wish w = {wish, buttons};
    assert_int_equal(sweep_act(&space, &level.config, &level.rules, level.default_radii, a, &w, applied_dt, ar),
                     SWEEP_OK);
    return ar->rules;
}

static void assert_same(const sweep_msg_move_result *s, const sweep_actor *a, const sweep_act_result *ar)
{
    assert_memory_equal(&s->position, &a->position, sizeof a->position);
    assert_memory_equal(&s->velocity, &a->velocity, sizeof a->velocity);
    assert_int_equal(s->grounded, a->grounded != 0);
    assert_int_equal(s->contact_count, ar->move.contact_count);
    for (uint32_t i = 0; i < ar->move.contact_count; i++)
        assert_int_equal(s->contacts[i].triangle, ar->move.contacts[i].triangle);
}

static double horizontal(sweep_vec3 v)
{
    return sqrt(v.x * v.x + v.y * v.y);
}

static void pace(void)
{
    usleep((useconds_t)(DT * 1e6));
}

/* --- speed ------------------------------------------------------------------ */

static void speed(int udp)
{
    conn c = open_conn(udp, NULL);
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 1);
    assert_int_equal(sp.rules, 0);
    sweep_actor a = {sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    sweep_vec3 wish = sweep_v3(0, -100, 0);
    for (uint32_t i = 1; i <= 40; i++) {
        sweep_message m = walk_msg(sp.entity, i, wish, 0, DT);
        sweep_msg_move_result r = move(&c, &m);
        sweep_act_result ar;
        uint32_t rules = local_walk(&a, wish, 0, r.applied_dt, &ar);
        assert_same(&r, &a, &ar);
        assert_true(r.rules & SWEEP_WIRE_RULE_SPEED);
        assert_int_equal(r.rules & ~(uint32_t)SWEEP_WIRE_RULE_TIME_BUDGET, rules);
        assert_true(r.speed_excess == 100.0 - level.rules.walk_speed);
        assert_true(horizontal(r.velocity) <= level.rules.walk_speed);
        pace();
    }
    /* 40 moves at 50 m/s^2 from rest: long at walking speed. */
    assert_true(horizontal(a.velocity) == level.rules.walk_speed);
    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_SPEED_BIT] == 40);
    assert_true(st.rules_total[SWEEP_WIRE_RULE_SPEED_BIT] >= 40);
    close_conn(&c);
}

static void test_speed_tcp(void **state)
{
    (void)state;
    speed(0);
}

static void test_speed_udp(void **state)
{
    (void)state;
    speed(1);
}

/* --- time ------------------------------------------------------------------- */

/* Seconds cut from moves without naming TimeBudget: only after a
 * silence (a network's stall), at most a bank's worth (burst). */
static double unnamed_cut;

/* Sends n moves of dt each as fast as it can (gap_us apart), reading the
 * answers every `chunk` moves (a UDP socket's receive buffer holds only
 * so many datagrams); sums the time granted into *granted, counts the
 * moves cut into *cut, and checks every result against the local
 * reference. Returns the last result. */
static sweep_msg_move_result burst(conn *c, uint32_t entity, uint32_t *seq, uint32_t n, double dt, sweep_vec3 wish,
                                   unsigned gap_us, sweep_actor *a, double *granted, uint32_t *cut)
{
    uint32_t chunk = c->udp ? 20 : n;
    sweep_msg_move_result last;
    memset(&last, 0, sizeof last);
    for (uint32_t done = 0; done < n;) {
        uint32_t k = n - done < chunk ? n - done : chunk, first = *seq + 1;
        for (uint32_t i = 0; i < k; i++) {
            sweep_message m = walk_msg(entity, ++*seq, wish, 0, dt);
            csend(c, &m);
            if (gap_us)
                usleep(gap_us);
        }
        for (uint32_t i = 0; i < k; i++) {
            sweep_message r;
            crecv(c, &r);
            assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
            const sweep_msg_move_result *mr = &r.as.move_result;
            assert_int_equal(mr->sequence, first + i);
            assert_true(mr->applied_dt >= 0.0 && mr->applied_dt <= dt);
            if (mr->applied_dt < dt) {
                if (!(mr->rules & SWEEP_WIRE_RULE_TIME_BUDGET))
                    unnamed_cut += dt - mr->applied_dt;
                assert_true(mr->time_excess == dt - mr->applied_dt);
                (*cut)++;
            } else {
                assert_false(mr->rules & SWEEP_WIRE_RULE_TIME_BUDGET);
                assert_true(mr->time_excess == 0.0);
            }
            sweep_act_result ar;
            local_walk(a, wish, 0, mr->applied_dt, &ar);
            assert_same(mr, a, &ar);
            *granted += mr->applied_dt;
            last = *mr;
        }
        done += k;
    }
    return last;
}

static void time_dilation(int udp)
{
    const double bank = 0.25, period = 1.0 / 60.0, slack = 1e-6;
    /* What a tick credits: its period and the clocks' drift allowance. */
    const double credit = period * (1.0 + SWEEP__CLOCK_DRIFT);
    double speed = level.rules.walk_speed;
    unnamed_cut = 0.0;
    conn c = open_conn(udp, NULL);
    assert_true(c.welcome.as.welcome.time_bank == bank);
    sweep_message w = c.welcome;
    assert_true(w.as.welcome.tick_rate == 60.0);

    /* 1. dt = 1 s, sixty times a second, for one second. */
    sweep_message sm = fx_spawn_msg(1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0)), r;
    sm.as.spawn.spawn_point = 1;
    csend(&c, &sm);
    crecv(&c, &r);
    assert_int_equal(r.kind, SWEEP_MSG_SPAWNED);
    uint64_t t0 = r.server_tick;
    sweep_msg_spawned sp = r.as.spawned;
    sweep_actor a = {sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    uint32_t seq = 0, cut = 0;
    double granted = 0.0;
    sweep_vec3 wish = sweep_v3(0, -5, 0);
    sweep_msg_move_result last = burst(&c, sp.entity, &seq, 60, 1.0, wish, (unsigned)(period * 1e6), &a, &granted, &cut);
    uint64_t ticks = last.server_tick - t0;
    if (!(granted <= bank + (double)ticks * credit + slack))
        fail_msg("dt = 1 s at 60/s: %.9f s granted in %llu ticks", granted, (unsigned long long)ticks);
    assert_int_equal(cut, 60); /* not one move got the second it asked */
    assert_true(granted >= bank); /* an honest share was granted */
    double moved = horizontal(sweep_v3_sub(a.position, sp.position));
    assert_true(moved <= speed * (bank + (double)ticks * credit) + 1e-9);

    /* 2. A flood: 300 moves of a tick each, as fast as the socket takes them. */
    granted = 0.0;
    cut = 0;
    uint64_t t1 = last.server_tick;
    sweep_vec3 from = a.position;
    last = burst(&c, sp.entity, &seq, 300, DT, wish, 0, &a, &granted, &cut);
    ticks = last.server_tick - t1;
    if (!(granted <= bank + (double)ticks * credit + slack))
        fail_msg("flood: %.9f s granted in %llu ticks", granted, (unsigned long long)ticks);
    assert_true(cut > 0);
    moved = horizontal(sweep_v3_sub(a.position, from));
    assert_true(moved <= speed * (bank + (double)ticks * credit) + 1e-9);

    /* 3. A lag switch: paced moves, 1.5 s of silence, then 1.5 s of moves
     * at once. The bank, not the pause, bounds the burst. */
    for (int i = 0; i < 10; i++) {
        granted = 0.0;
        last = burst(&c, sp.entity, &seq, 1, DT, wish, 0, &a, &granted, &cut);
        pace();
    }
    assert_true(unnamed_cut == 0.0); /* every cut so far named: no silence came before them */
    usleep(1500000);
    granted = 0.0;
    cut = 0;
    from = a.position;
    uint64_t t2 = last.server_tick;
    last = burst(&c, sp.entity, &seq, 90, DT, wish, 0, &a, &granted, &cut);
    /* The budget held at most the bank when the burst began, whatever the
     * pause; only the ticks during the burst add to it. */
    uint64_t burst_ticks = last.server_tick - t2;
    if (!(granted <= bank + (double)burst_ticks * credit + slack))
        fail_msg("lag switch: %.9f s granted for 1.5 s asked, in %llu ticks", granted,
                 (unsigned long long)burst_ticks);
    assert_true(cut > 0);
    assert_true(granted < 1.0);
    /* A stall of the network explains a bank's worth of the cut, no more:
     * the rest, a second's worth, named. */
    if (!(unnamed_cut > 0.0 && unnamed_cut <= bank + slack))
        fail_msg("lag switch: %.9f s cut unnamed", unnamed_cut);
    moved = horizontal(sweep_v3_sub(a.position, from));
    assert_true(moved <= speed * granted + 1e-9);

    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_TIME_BUDGET_BIT] >= 60 + 1 + 1);
    close_conn(&c);
}

static void test_time_dilation_tcp(void **state)
{
    (void)state;
    time_dilation(0);
}

static void test_time_dilation_udp(void **state)
{
    (void)state;
    time_dilation(1);
}

/* --- flying, hovering, jumping in mid-air ------------------------------------ */

static void flying(int udp)
{
    conn c = open_conn(udp, NULL);
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 3);
    sweep_actor a = {sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    uint32_t seq = 0;
    double floor_z = sp.position.z;
    /* Hover and fly: a wish straight up (and up and forward) is a wish of
     * nothing along up; the entity falls to the floor and stays there. */
    for (int i = 0; i < 30; i++) {
        sweep_vec3 wish = i < 15 ? sweep_v3(0, 0, 50) : sweep_v3(0, -2, 20);
        sweep_message m = walk_msg(sp.entity, ++seq, wish, 0, DT);
        sweep_msg_move_result r = move(&c, &m);
        sweep_act_result ar;
        local_walk(&a, wish, 0, r.applied_dt, &ar);
        assert_same(&r, &a, &ar);
        assert_true(r.rules & SWEEP_WIRE_RULE_VERTICAL);
        assert_true(r.position.z <= floor_z);
        assert_true(r.velocity.z <= 0.0);
        floor_z = r.position.z;
        pace();
    }
    assert_true(a.grounded);
    /* A jump from the ground is granted; jumps asked in the air are refused
     * and named, so the entity never rises above one jump's apex. */
    double g = -level.config.gravity.z, v0 = level.rules.jump_speed;
    double apex = floor_z + v0 * v0 / (2.0 * g) + 0.05, top = floor_z;
    int refused = 0, landed = 0;
    for (int i = 0; i < 90 && !landed; i++) {
        sweep_message m = walk_msg(sp.entity, ++seq, sweep_v3(0, 0, 0), SWEEP_WISH_JUMP, DT);
        sweep_msg_move_result r = move(&c, &m);
        sweep_act_result ar;
        local_walk(&a, sweep_v3(0, 0, 0), SWEEP_WISH_JUMP, r.applied_dt, &ar);
        assert_same(&r, &a, &ar);
        if (i == 0) {
            assert_false(r.rules & SWEEP_WIRE_RULE_JUMP);
            assert_true(r.velocity.z > 0.0);
        } else {
            /* Every move of the flight asked to jump again. */
            assert_true(r.rules & SWEEP_WIRE_RULE_JUMP);
            refused++;
            landed = r.grounded;
        }
        top = fmax(top, r.position.z);
        pace();
    }
    assert_true(landed);
    assert_true(refused >= 20);
    assert_true(top > floor_z + 0.5);
    assert_true(top <= apex);
    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_VERTICAL_BIT] == 30);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_JUMP_BIT] == (uint64_t)refused);
    close_conn(&c);
}

static void test_flying_tcp(void **state)
{
    (void)state;
    flying(0);
}

static void test_flying_udp(void **state)
{
    (void)state;
    flying(1);
}

/* --- Fly and Noclip ------------------------------------------------------------- */

static void free_modes(int udp)
{
    /* A player: refused, named, counted; nothing moved. */
    conn c = open_conn(udp, NULL);
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 2);
    for (uint32_t mode = SWEEP_WIRE_MODE_FLY; mode <= SWEEP_WIRE_MODE_NOCLIP; mode++) {
        sweep_message m = fx_move_msg(sp.entity, mode, sweep_v3(0, 0, 30), DT), r;
        m.as.move.mode = (uint8_t)mode;
        csend(&c, &m);
        crecv(&c, &r);
        assert_int_equal(r.kind, SWEEP_MSG_ERROR);
        assert_int_equal(r.as.error.code, SWEEP_WIRE_NOT_ALLOWED);
        assert_int_equal(r.as.error.sequence, mode);
        assert_int_equal(r.as.error.entity, sp.entity);
        assert_non_null(strstr(r.as.error.message.ptr, "FreeMove"));
        assert_non_null(strstr(r.as.error.message.ptr, "server role"));
    }
    sweep_message m = fx_move_msg(sp.entity, 3, sweep_v3(0, 0, 0), DT);
    sweep_msg_move_result r = move(&c, &m);
    assert_true(r.position.z <= sp.position.z);
    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_FREE_MOVE_BIT] == 2);
    close_conn(&c);

    /* The server role, on a server that allows free moves: both work. */
    conn g = open_conn(udp, FX_TOKEN);
    assert_int_equal(g.welcome.as.welcome.role, SWEEP_WIRE_ROLE_SERVER);
    sp = spawn(&g, 1, sweep_v3(-5, 5, 3), sweep_v3(0.4, 0.4, 0.9), 0);
    assert_true(sp.position.x == -5 && sp.position.y == 5 && sp.position.z == 3);
    m = fx_fly_msg(sp.entity, 1, sweep_v3(0, 0, 10), 0.1); /* up, against gravity */
    r = move(&g, &m);
    assert_true(r.position.z > 3.0);
    assert_int_equal(r.rules, 0);
    m = fx_fly_msg(sp.entity, 2, sweep_v3(0, 0, -40), 0.5);
    m.as.move.mode = SWEEP_WIRE_MODE_NOCLIP;
    r = move(&g, &m);
    assert_true(r.position.z < 0.0); /* through the floor */
    close_conn(&g);

    /* The server role where free moves are off: refused too. */
    fx_server strict;
    const char *args[] = {"--command-token", FX_TOKEN, NULL};
    assert_int_equal(fx_start(&strict, args), 0);
    conn h = open_on(strict.port, udp, FX_TOKEN, NULL);
    assert_true(h.session != 0);
    sp = spawn(&h, 1, sweep_v3(-5, 5, 3), sweep_v3(0.4, 0.4, 0.9), 0);
    m = fx_fly_msg(sp.entity, 1, sweep_v3(0, 0, 10), 0.1);
    csend(&h, &m);
    sweep_message e;
    crecv(&h, &e);
    assert_int_equal(e.kind, SWEEP_MSG_ERROR);
    assert_int_equal(e.as.error.code, SWEEP_WIRE_NOT_ALLOWED);
    assert_non_null(strstr(e.as.error.message.ptr, "--allow-free-move on"));
    close_conn(&h);
    assert_int_equal(fx_stop(&strict), 0);
}

static void test_free_modes_tcp(void **state)
{
    (void)state;
    free_modes(0);
}

static void test_free_modes_udp(void **state)
{
    (void)state;
    free_modes(1);
}

/* --- spawning ----------------------------------------------------------------- */

static int is_spawn_point(sweep_vec3 p, uint32_t point)
{
    return point >= 1 && point <= level.spawn_count && memcmp(&p, &level.spawns[point - 1], sizeof p) == 0;
}

static void spawning(int udp)
{
    conn c = open_conn(udp, NULL);
    const sweep_vec3 zero = sweep_v3(0, 0, 0);
    /* Teleport by Despawn + Spawn: the position asked is not where it lands. */
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(-15, 15, 1), zero, 0);
    assert_true(is_spawn_point(sp.position, sp.spawn_point));
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_POSITION);
    uint32_t prev = sp.spawn_point;
    for (uint32_t i = 0; i < 4; i++) {
        sweep_message d = fx_msg(SWEEP_MSG_DESPAWN, 10 + i), r;
        d.as.despawn.entity = sp.entity;
        csend(&c, &d);
        crecv(&c, &r);
        assert_int_equal(r.kind, SWEEP_MSG_DESPAWNED);
        sp = spawn(&c, 20 + i, sweep_v3(30, 0, 1), zero, 0); /* the east wing, on the other side of a wall */
        assert_true(is_spawn_point(sp.position, sp.spawn_point));
        assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_POSITION);
        /* Round robin (other sessions may spawn in between, so only: another point). */
        if (level.spawn_count > 1 && !udp)
            assert_int_not_equal(sp.spawn_point, prev);
        prev = sp.spawn_point;
    }
    /* Shrinking the hitbox: the map's radii, named. */
    sp = spawn(&c, 30, zero, sweep_v3(0.1, 0.1, 0.2), 0);
    assert_memory_equal(&sp.radii, &level.default_radii, sizeof sp.radii);
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_RADII);
    /* Both at once; then nothing asked, or exactly what is given: nothing named. */
    sp = spawn(&c, 31, sweep_v3(1, 2, 3), sweep_v3(2, 2, 2), 1);
    assert_int_equal(sp.spawn_point, 1);
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_POSITION | SWEEP_WIRE_RULE_SPAWN_RADII);
    sp = spawn(&c, 32, level.spawns[2], level.default_radii, 3);
    assert_int_equal(sp.rules, 0);
    assert_true(is_spawn_point(sp.position, 3));
    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_SPAWN_POSITION_BIT] == 6);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_SPAWN_RADII_BIT] == 2);
    /* Past the last point: refused. */
    sweep_message m = fx_spawn_msg(33, zero, zero), r;
    m.as.spawn.spawn_point = level.spawn_count + 1;
    csend(&c, &m);
    crecv(&c, &r);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_BAD_POSITION);
    close_conn(&c);

    /* The server role places where it says, but not inside the level. */
    conn g = open_conn(udp, FX_TOKEN);
    sweep_vec3 inside[] = {
        {17.0, 0.0, 0.9},  /* through the end of a corridor wall (x 15.8 .. 16.8) */
        {0.0, 0.0, 0.5},   /* sunk into the floor */
        {-12.0, 8.0, 1.0}, /* across the thin wall (y 8 .. 8.05) */
    };
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
        m = fx_spawn_msg(40 + (uint32_t)i, inside[i], sweep_v3(0.4, 0.4, 0.9));
        csend(&g, &m);
        crecv(&g, &r);
        assert_int_equal(r.kind, SWEEP_MSG_ERROR);
        assert_int_equal(r.as.error.code, SWEEP_WIRE_SPAWN_REFUSED);
        assert_int_equal(r.as.error.sequence, 40 + (uint32_t)i);
        assert_non_null(strstr(r.as.error.message.ptr, "overlaps the level"));
    }
    sp = spawn(&g, 50, sweep_v3(17.5, 0, 0.9), sweep_v3(0.3, 0.3, 0.9), 0);
    assert_true(sp.position.x == 17.5 && sp.radii.x == 0.3);
    assert_int_equal(sp.rules, 0);
    close_conn(&g);
}

static void test_spawning_tcp(void **state)
{
    (void)state;
    spawning(0);
}

static void test_spawning_udp(void **state)
{
    (void)state;
    spawning(1);
}

/* --- identity ------------------------------------------------------------------ */

static const char *mint(const uint8_t *secret, size_t len, uint32_t role, const char *id, int64_t from_now)
{
    static char tok[4][SWEEP_TOKEN_MAX + 1];
    static int next;
    char *t = tok[next++ % 4];
    assert_int_equal(sweep_token_make(secret, len, role, id, (uint64_t)(time(NULL) + from_now), t, sizeof tok[0]),
                     SWEEP_TOKEN_OK);
    return t;
}

static void expect_refused(int port, int udp, const char *token, const char *words)
{
    sweep_message r;
    conn c = open_on(port, udp, token, &r);
    assert_int_equal(c.session, 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_AUTH_FAILED);
    if (!strstr(r.as.error.message.ptr, words))
        fail_msg("'%s' does not say '%s'", r.as.error.message.ptr, words);
}

static void expect_welcome(int port, int udp, const char *token, uint32_t role, const char *identity)
{
    conn c = open_on(port, udp, token, NULL);
    assert_true(c.session != 0);
    assert_int_equal(c.welcome.as.welcome.role, role);
    assert_string_equal(c.identity, identity);
    /* The session is what the Welcome said: a player cannot command movers. */
    sweep_message m = fx_msg(SWEEP_MSG_MOVER_COMMAND, 9), r;
    m.as.mover_command.mover = sweep_str_of("no such mover");
    csend(&c, &m);
    crecv(&c, &r);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code,
                     role == SWEEP_WIRE_ROLE_SERVER ? SWEEP_WIRE_UNKNOWN_MOVER : SWEEP_WIRE_AUTH_FAILED);
    close_conn(&c);
}

/* Each Welcome says the role and identity; each session then has the
 * rights of its role (a server-role MoverCommand is judged by its name,
 * a player's refused). */
static void identity(int udp)
{
    expect_welcome(srv.port, udp, mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "alice", 3600),
                   SWEEP_WIRE_ROLE_PLAYER, "alice");
    expect_welcome(srv.port, udp, mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_SERVER, "gs-1.eu@game", 60),
                   SWEEP_WIRE_ROLE_SERVER, "gs-1.eu@game");
    expect_welcome(srv.port, udp, FX_TOKEN, SWEEP_WIRE_ROLE_SERVER, "#command-token");
    expect_welcome(srv.port, udp, NULL, SWEEP_WIRE_ROLE_PLAYER, "#guest");
    expect_welcome(srv.port, udp, "", SWEEP_WIRE_ROLE_PLAYER, "#guest");

    expect_refused(srv.port, udp, "let me in", "token is not sweep1");
    expect_refused(srv.port, udp, mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "bob", -5), "expired");
    /* The longest identity: over UDP the refusal is larger than a minimal
     * Hello, and still arrives (the cookie verified the address). */
    expect_refused(srv.port, udp,
                   mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_SERVER,
                        "a-very-long-identity.of.exactly-64-bytes@example.org+01234567890", -1000000000),
                   "expired");
    static const uint8_t other[] = "not-the-server-secret-at-all";
    expect_refused(srv.port, udp, mint(other, sizeof other - 1, SWEEP_WIRE_ROLE_SERVER, "mallory", 3600), "signature");
    /* A genuine player token rewritten into a server one. */
    char t[SWEEP_TOKEN_MAX + 1];
    snprintf(t, sizeof t, "%s", mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "eve", 3600));
    memcpy(t + 7, "server", 6);
    expect_refused(srv.port, udp, t, "signature");
    snprintf(t, sizeof t, "%s", mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "eve", 3600));
    t[14] = 'E'; /* the identity: Eve */
    expect_refused(srv.port, udp, t, "signature");

    /* A server with a secret admits no guests unless told to. */
    fx_server closed;
    const char *args[] = {"--auth-secret-file", secret_path, NULL};
    assert_int_equal(fx_start(&closed, args), 0);
    expect_refused(closed.port, udp, NULL, "admits no guests");
    expect_refused(closed.port, udp, "", "admits no guests");
    expect_refused(closed.port, udp, FX_TOKEN, "token is not sweep1");
    expect_welcome(closed.port, udp, mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "dave", 30),
                   SWEEP_WIRE_ROLE_PLAYER, "dave");
    assert_int_equal(fx_stop(&closed), 0);
    /* And one without a secret checks no tokens at all. */
    fx_server open;
    assert_int_equal(fx_start(&open, NULL), 0);
    expect_refused(open.port, udp, mint(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "erin", 30), "checks no tokens");
    expect_welcome(open.port, udp, NULL, SWEEP_WIRE_ROLE_PLAYER, "#guest");
    assert_int_equal(fx_stop(&open), 0);
}

static void test_identity_tcp(void **state)
{
    (void)state;
    identity(0);
}

static void test_identity_udp(void **state)
{
    (void)state;
    identity(1);
}

/* --- entity ids ------------------------------------------------------------------ */

static void ids(int udp)
{
    conn a = open_conn(udp, NULL), b = open_conn(udp, NULL);
    uint32_t id[8];
    int sequential = 1;
    for (uint32_t i = 0; i < 8; i++) {
        id[i] = spawn(&a, 1 + i, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 0).entity;
        assert_true(id[i] != 0);
        for (uint32_t k = 0; k < i; k++)
            assert_true(id[k] != id[i]);
        if (i && id[i] != id[i - 1] + 1)
            sequential = 0;
    }
    assert_false(sequential);
    /* b tries a's ids, and ids nobody has: the same answer, word for word. */
    for (uint32_t i = 0; i < 8; i++) {
        uint32_t ids2[2] = {id[i], id[i] ^ 0x00ff00ffu};
        char text[2][400];
        for (int k = 0; k < 2; k++) {
            sweep_message m = fx_move_msg(ids2[k], 7, sweep_v3(1, 0, 0), DT), r;
            csend(&b, &m);
            crecv(&b, &r);
            assert_int_equal(r.kind, SWEEP_MSG_ERROR);
            assert_int_equal(r.as.error.code, SWEEP_WIRE_UNKNOWN_ENTITY);
            assert_int_equal(r.as.error.entity, ids2[k]);
            char num[16];
            snprintf(num, sizeof num, "%u", ids2[k]);
            const char *at = strstr(r.as.error.message.ptr, num);
            assert_non_null(at);
            snprintf(text[k], sizeof text[k], "%.*s#%s", (int)(at - r.as.error.message.ptr),
                     r.as.error.message.ptr, at + strlen(num));
        }
        assert_string_equal(text[0], text[1]);
    }
    close_conn(&a);
    close_conn(&b);
}

static void test_ids_tcp(void **state)
{
    (void)state;
    ids(0);
}

static void test_ids_udp(void **state)
{
    (void)state;
    ids(1);
}

/* --- redundancy ------------------------------------------------------------------ */

static void redundancy(int udp)
{
    conn c = open_conn(udp, NULL);
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 1);
    sweep_msg_move_result first[8];
    sweep_vec3 wish = sweep_v3(0, -3, 0);
    for (uint32_t i = 1; i <= 5; i++) {
        sweep_message m = walk_msg(sp.entity, i, wish, 0, DT);
        first[i] = move(&c, &m);
        pace();
    }
    /* Each datagram carries the last few moves again (what a UDP client
     * does against loss): the old ones get their old results, the new one
     * moves; never an Error. */
    sweep_msg_move moves[5];
    for (uint32_t i = 0; i < 5; i++) {
        sweep_message m = walk_msg(sp.entity, 2 + i, wish, 0, DT);
        moves[i] = m.as.move;
    }
    sweep_message b = fx_msg(SWEEP_MSG_MOVE_BATCH, 50), r;
    b.as.move_batch.moves = moves;
    b.as.move_batch.count = 5;
    csend(&c, &b);
    uint32_t got = 0;
    while (got < 5) {
        crecv(&c, &r);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT_BATCH);
        for (uint32_t k = 0; k < r.as.move_result_batch.count; k++, got++) {
            const sweep_msg_move_result *mr = &r.as.move_result_batch.results[k];
            assert_int_equal(mr->sequence, 2 + got);
            if (mr->sequence <= 5) {
                const sweep_msg_move_result *was = &first[mr->sequence];
                assert_memory_equal(&mr->position, &was->position, sizeof was->position);
                assert_memory_equal(&mr->velocity, &was->velocity, sizeof was->velocity);
                assert_int_equal(mr->server_tick, was->server_tick);
                assert_int_equal(mr->rules, was->rules);
            } else {
                first[6] = *mr;
            }
        }
    }
    assert_true(first[6].position.y < first[5].position.y);
    /* A single resend of the first: its result again. */
    sweep_message m = walk_msg(sp.entity, 1, wish, 0, DT);
    sweep_msg_move_result again = move(&c, &m);
    assert_memory_equal(&again.position, &first[1].position, sizeof again.position);
    /* 40 moves later the first is no longer kept: no answer at all (the
     * Ping sent after it is answered first), still no Error. */
    for (uint32_t i = 7; i < 47; i++) {
        m = walk_msg(sp.entity, i, wish, 0, DT);
        move(&c, &m);
    }
    m = walk_msg(sp.entity, 1, wish, 0, DT);
    csend(&c, &m);
    sweep_message ping = fx_msg(SWEEP_MSG_PING, 77);
    csend(&c, &ping);
    crecv(&c, &r);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    assert_int_equal(r.sequence, 77);
    /* A sequence that was skipped and comes late is dropped the same way. */
    m = walk_msg(sp.entity, 100, wish, 0, DT);
    move(&c, &m);
    m = walk_msg(sp.entity, 99, wish, 0, DT);
    csend(&c, &m);
    csend(&c, &ping);
    crecv(&c, &r);
    assert_int_equal(r.kind, SWEEP_MSG_PONG);
    close_conn(&c);
}

static void test_redundancy_tcp(void **state)
{
    (void)state;
    redundancy(0);
}

static void test_redundancy_udp(void **state)
{
    (void)state;
    redundancy(1);
}

/* --- correction threshold ---------------------------------------------------------- */

static void correction(int udp)
{
    conn c = open_conn(udp, NULL);
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 4);
    sweep_actor a = {sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    double t = level.correction_threshold;
    assert_true(t > 0.0);
    /* Claims off by nothing, by half the threshold, by twice it. */
    const double off[] = {0.0, 0.5, 2.0, 0.0, 0.99};
    sweep_vec3 wish = sweep_v3(-1, -2, 0);
    for (uint32_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        sweep_actor predicted = a;
        sweep_act_result ar;
        local_walk(&predicted, wish, 0, DT, &ar);
        sweep_message m = walk_msg(sp.entity, 1 + i, wish, 0, DT);
        m.as.move.has_claimed_position = true;
        m.as.move.claimed_position = sweep_v3(predicted.position.x + off[i] * t, predicted.position.y,
                                              predicted.position.z);
        sweep_msg_move_result r = move(&c, &m);
        assert_true(r.applied_dt == DT);
        local_walk(&a, wish, 0, r.applied_dt, &ar);
        assert_same(&r, &a, &ar);
        assert_true(fabs(r.correction - off[i] * t) <= 1e-9);
        assert_int_equal(r.corrected, off[i] > 1.0);
        assert_int_equal((r.rules & SWEEP_WIRE_RULE_CORRECTION) != 0, off[i] > 1.0);
        pace();
    }
    /* Moves 6 and 7 are lost: the claims right after the gap are off by
     * the lost moves and go unflagged for half a second; later ones are
     * flagged again. */
    const uint32_t after[] = {8, 9};
    for (uint32_t k = 0; k < 2; k++) {
        if (k == 1)
            usleep(700 * 1000);
        sweep_actor predicted = a;
        sweep_act_result ar;
        local_walk(&predicted, wish, 0, DT, &ar);
        sweep_message m = walk_msg(sp.entity, after[k], wish, 0, DT);
        m.as.move.has_claimed_position = true;
        m.as.move.claimed_position = sweep_v3(predicted.position.x + 2.0 * t, predicted.position.y,
                                              predicted.position.z);
        sweep_msg_move_result r = move(&c, &m);
        local_walk(&a, wish, 0, r.applied_dt, &ar);
        assert_true(fabs(r.correction - 2.0 * t) <= 1e-9);
        assert_int_equal(r.corrected, k == 1);
        assert_int_equal((r.rules & SWEEP_WIRE_RULE_CORRECTION) != 0, k == 1);
    }
    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_CORRECTION_BIT] == 2);
    close_conn(&c);
}

static void test_correction_tcp(void **state)
{
    (void)state;
    correction(0);
}

static void test_correction_udp(void **state)
{
    (void)state;
    correction(1);
}

/* --- the log ------------------------------------------------------------------------ */

/* Lines of the server's log holding every one of the words. */
static int log_lines(const char *const *words, size_t n, char *last, size_t lastlen)
{
    FILE *f = fopen(log_path, "r");
    assert_non_null(f);
    char line[2048];
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        size_t k = 0;
        while (k < n && strstr(line, words[k]))
            k++;
        if (k == n) {
            count++;
            if (last)
                snprintf(last, lastlen, "%s", line);
        }
    }
    fclose(f);
    return count;
}

/* Every rule that acts is a log line naming session, entity, rule and
 * amount, but a cheater cannot flood the log: past the per-session rate
 * the lines are counted instead, and the next one says how many. */
static void test_rules_are_logged(void **state)
{
    (void)state;
    conn c = open_conn(0, NULL);
    sweep_msg_spawned sp = spawn(&c, 1, sweep_v3(0, 0, 0), sweep_v3(0, 0, 0), 1);
    char session[32], entity[32], line[2048];
    snprintf(session, sizeof session, "session=%llu ", (unsigned long long)c.session);
    snprintf(entity, sizeof entity, "entity=%u ", sp.entity);
    sweep_message m = walk_msg(sp.entity, 1, sweep_v3(100, 0, 0), 0, DT);
    move(&c, &m);
    usleep(200000); /* the line is written by the time the answer is sent; give stderr a moment */
    const char *speed[] = {"event=rule", session, entity, "rule=Speed amount=95 "};
    assert_int_equal(log_lines(speed, 4, NULL, 0), 1);
    /* A refused request is an info line with its code and message. */
    sweep_message bad = walk_msg(12345, 900, sweep_v3(1, 0, 0), 0, DT);
    csend(&c, &bad);
    sweep_message err;
    crecv(&c, &err);
    assert_int_equal(err.kind, SWEEP_MSG_ERROR);
    usleep(200000);
    const char *refused[] = {"level=info event=request_error", session, "code=UnknownEntity sequence=900 ",
                             "message=\""};
    assert_int_equal(log_lines(refused, 4, NULL, 0), 1);
    /* 400 moves with a second each: 400 TimeBudget rules, a few lines. */
    uint32_t seq = 1;
    for (int k = 0; k < 400; k++) {
        m = walk_msg(sp.entity, ++seq, sweep_v3(0, 0, 0), 0, 1.0);
        csend(&c, &m);
    }
    for (int k = 0; k < 400; k++) {
        sweep_message r;
        crecv(&c, &r);
        assert_int_equal(r.kind, SWEEP_MSG_MOVE_RESULT);
    }
    sleep(1);
    m = walk_msg(sp.entity, ++seq, sweep_v3(0, 0, 0), 0, 1.0); /* after a second, a line again */
    move(&c, &m);
    usleep(200000);
    sweep_msg_stats st;
    stats_of(&c, &st);
    assert_true(st.session_rules[SWEEP_WIRE_RULE_TIME_BUDGET_BIT] == 401);
    const char *budget[] = {"event=rule", session, "rule=TimeBudget amount="};
    int lines = log_lines(budget, 3, line, sizeof line);
    assert_true(lines >= 5 && lines <= 40);
    assert_null(strstr(line, "suppressed=0"));
    assert_non_null(strstr(line, "suppressed="));
    close_conn(&c);
    /* The session's close sums up what it was told. */
    usleep(300000);
    const char *closing[] = {"event=session_close", session, "rules=Speed:1,TimeBudget:401"};
    assert_int_equal(log_lines(closing, 3, NULL, 0), 1);
    /* It says why it ended and how long it lasted (over a second here). */
    const char *why[] = {"event=session_close", session, "reason=\"client closed\" duration_s="};
    assert_int_equal(log_lines(why, 3, line, sizeof line), 1);
    double lasted = strtod(strstr(line, "duration_s=") + strlen("duration_s="), NULL);
    assert_true(lasted >= 1.0 && lasted < 600.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_speed_tcp),         cmocka_unit_test(test_speed_udp),
        cmocka_unit_test(test_time_dilation_tcp), cmocka_unit_test(test_time_dilation_udp),
        cmocka_unit_test(test_flying_tcp),        cmocka_unit_test(test_flying_udp),
        cmocka_unit_test(test_free_modes_tcp),    cmocka_unit_test(test_free_modes_udp),
        cmocka_unit_test(test_spawning_tcp),      cmocka_unit_test(test_spawning_udp),
        cmocka_unit_test(test_identity_tcp),      cmocka_unit_test(test_identity_udp),
        cmocka_unit_test(test_ids_tcp),           cmocka_unit_test(test_ids_udp),
        cmocka_unit_test(test_redundancy_tcp),    cmocka_unit_test(test_redundancy_udp),
        cmocka_unit_test(test_correction_tcp),    cmocka_unit_test(test_correction_udp),
        cmocka_unit_test(test_rules_are_logged),
    };
    return cmocka_run_group_tests_name("sweepd authority", tests, setup, teardown);
}
