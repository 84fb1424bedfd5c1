/*
 * test_server.c - libsweep against a real sweepd on the sample arena: every
 * walk is done twice, through the server (TCP and UDP, single moves and
 * batches) and with the core's movement rules run locally on the same map
 * (sweep_predict_run), and the two must agree bit for bit on every move,
 * rules named included: into walls, up stairs, down a ramp, standing on a
 * walkable slope. Also the handshake (map hash, role and identity), errors
 * as values (the server's code, text and sequence reach the caller), the
 * event API, ping and stats.
 *
 * The walks start where the test wants them, which only the server role
 * may ask: the sessions say Hello with the server's --command-token.
 * One sweepd serves the whole program (group setup); each test opens its
 * own connections.
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

#define TOKEN "server-test-token"

typedef struct env {
    fx_server d;
    sweep_level lv;
    sweep_world *world;
} env;

static env E;

static int setup(void **state)
{
    char map[4096], err[256];
    (void)state;
    const char *args[] = {"--command-token", TOKEN, NULL};
    if (fx_start(&E.d, args) != 0)
        return -1;
    if (sweep_map_load(fx_build("maps/arena.db", map, sizeof map), &E.lv, NULL, err, sizeof err) != SWEEP_OK ||
        sweep_map_build_world(&E.lv, &E.world, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "arena: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&E.d);
    sweep_world_destroy(E.world);
    sweep_level_free(&E.lv);
    return rc == 0 ? 0 : -1;
}

/* A session of the server role (token = TOKEN) or a guest player (NULL). */
static sweep_client *connect_as(sweep_client_transport t, const char *token)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = t == SWEEP_CLIENT_TCP ? E.d.tcp : E.d.udp;
    o.client_name = "test_server";
    o.auth_token = token;
    o.timeout_ms = 20000;
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_client_status s = sweep_client_connect(&o, &c, &e);
    if (s != SWEEP_CLIENT_OK)
        fprintf(stderr, "connect %s: %s: %s\n", o.address, sweep_client_error_name(&e), e.message);
    assert_int_equal(s, SWEEP_CLIENT_OK);
    assert_non_null(c);
    return c;
}

static sweep_client *connect_to(sweep_client_transport t)
{
    return connect_as(t, TOKEN);
}

static int same_vec(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The server's result r and the local core's result a (after the same
 * wish from the same state) agree in every bit the protocol carries. */
static void assert_same_result(const sweep_msg_move_result *r, const sweep_act_result *a, double dt, int step)
{
    const sweep_move_result *l = &a->move;
    int grounded = (l->flags & SWEEP_MOVED_GROUNDED) != 0;
    if (!same_vec(r->position, l->position) || !same_vec(r->velocity, l->velocity) || r->grounded != grounded) {
        fprintf(stderr, "step %d: server (%.17g, %.17g, %.17g) grounded %d, local (%.17g, %.17g, %.17g) grounded %d\n",
                step, r->position.x, r->position.y, r->position.z, r->grounded, l->position.x, l->position.y,
                l->position.z, grounded);
        fail();
    }
    assert_true(same_vec(r->ground_normal, l->ground_normal));
    assert_int_equal(r->ground_material, l->ground_material);
    assert_int_equal(r->contact_count, l->contact_count);
    for (uint32_t i = 0; i < l->contact_count; i++) {
        assert_int_equal(r->contacts[i].triangle, l->contacts[i].triangle);
        assert_int_equal(r->contacts[i].material, l->contacts[i].material);
        assert_true(same_vec(r->contacts[i].point, l->contacts[i].point));
        assert_true(same_vec(r->contacts[i].normal, l->contacts[i].normal));
    }
    /* The rules the server named are the core's (a server role's moves
     * are not charged to a time budget, and no wish here points up). */
    assert_int_equal(r->rules, a->rules);
    assert_true(r->speed_excess == a->speed_excess);
    assert_true(r->time_excess == 0);
    assert_true(r->applied_dt == dt);
}

typedef struct walk_stats {
    sweep_vec3 end;
    int grounded_moves, hit_moves, stepped, snapped;
    int grounded_at_end;
} walk_stats;

/* A player wishing to walk at `lateral` (units/s, across the ground; the
 * server clamps it to the walk speed and adds gravity) for `steps` ticks
 * of 1/60 s from `start`, or until it is beyond y = stop_y. One move per
 * request, checked against the local core after every move. */
static walk_stats walk_to(sweep_client_transport t, sweep_vec3 start, sweep_vec3 lateral, int steps, double stop_y)
{
    sweep_client *c = connect_to(t);
    sweep_client_error e;
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(c, start, E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    assert_true(same_vec(sp.position, start));
    assert_int_equal(sp.rules, 0);
    const double dt = 1.0 / 60.0;
    sweep_predict_state local = sweep_predict_state_at(start);
    walk_stats ws = {0};
    sweep_wish w = {.velocity = lateral};
    for (int i = 0; i < steps; i++) {
        sweep_msg_move_result r;
        sweep_client_status s = sweep_client_move(c, sp.entity, lateral, dt, &r, &e);
        if (s != SWEEP_CLIENT_OK)
            fprintf(stderr, "move %d: %s: %s\n", i, sweep_client_error_name(&e), e.message);
        assert_int_equal(s, SWEEP_CLIENT_OK);
        assert_int_equal(r.entity, sp.entity);
        sweep_act_result a;
        assert_int_equal(
            sweep_predict_run(E.world, NULL, &E.lv.config, &E.lv.rules, sp.radii, &local, &w, dt, &a, NULL),
            SWEEP_CLIENT_OK);
        assert_same_result(&r, &a, dt, i);
        ws.grounded_moves += r.grounded;
        ws.hit_moves += (a.flags & SWEEP_MOVED_HIT) != 0;
        ws.stepped += (a.flags & SWEEP_MOVED_STEPPED) != 0;
        ws.snapped += (a.flags & SWEEP_MOVED_SNAPPED) != 0;
        ws.grounded_at_end = r.grounded;
        ws.end = r.position;
        if (r.position.y > stop_y)
            break;
    }
    sweep_client_close(c);
    return ws;
}

static walk_stats walk(sweep_client_transport t, sweep_vec3 start, sweep_vec3 lateral, int steps)
{
    return walk_to(t, start, lateral, steps, INFINITY);
}

static void welcome_names_the_arena(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to((sweep_client_transport)t);
        const sweep_client_welcome *w = sweep_client_get_welcome(c);
        assert_int_equal(w->protocol_version, SWEEP_PROTOCOL_VERSION);
        assert_string_equal(w->map_name, "arena");
        assert_int_equal(w->map_hash_len, 32);
        assert_true(w->max_batch >= 1);
        /* The command token made it a session of the server role. */
        assert_true(w->has_roles);
        assert_int_equal(w->role, SWEEP_WIRE_ROLE_SERVER);
        assert_string_equal(w->identity, "#command-token");
        assert_true(w->time_bank > 0);
        sweep_client_error e;
        assert_int_equal(sweep_client_check_map(c, &E.lv, &e), SWEEP_CLIENT_OK);
        /* A level that differs in one vertex is another map. */
        E.lv.vertices[0].x += 1.0;
        assert_int_equal(sweep_client_check_map(c, &E.lv, &e), SWEEP_CLIENT_E_MAP_MISMATCH);
        assert_string_equal(sweep_client_error_name(&e), "MAP_MISMATCH");
        assert_non_null(strstr(e.message, "arena"));
        E.lv.vertices[0].x -= 1.0;
        assert_int_equal(sweep_client_check_map(c, &E.lv, &e), SWEEP_CLIENT_OK);
        sweep_client_close(c);
        /* Without a token: a guest player. */
        c = connect_as((sweep_client_transport)t, NULL);
        w = sweep_client_get_welcome(c);
        assert_true(w->has_roles);
        assert_int_equal(w->role, SWEEP_WIRE_ROLE_PLAYER);
        assert_string_equal(w->identity, "#guest");
        sweep_client_close(c);
    }
}

static void walking_into_a_wall(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        /* Along y = -7 (clear of the corridors and ramps), wishing 8 m/s
         * (clamped to the walk speed, 5, and named Speed) into the +x outer
         * wall (x = 20). */
        walk_stats ws = walk((sweep_client_transport)t, sweep_v3(4, -7, 0.95), sweep_v3(8, 0, 0), 250);
        assert_true(ws.end.x < 20.0 - 0.4 + 1e-6);
        assert_true(ws.end.x > 19.0);
        assert_true(ws.hit_moves > 0);
        assert_true(ws.grounded_at_end);
        /* Sliding along it when walking diagonally. */
        ws = walk((sweep_client_transport)t, sweep_v3(4, -7, 0.95), sweep_v3(8, -3, 0), 250);
        assert_true(ws.end.x < 20.0 - 0.4 + 1e-6);
        assert_true(ws.end.x > 19.0);
        assert_true(ws.end.y < -11.0);
    }
}

static void up_the_stairs(void **state)
{
    (void)state;
    static const struct { double x, landing; int climbable; } flights[] = {
        {-15, 0.6, 1}, {-11, 1.0, 1}, {-7, 1.2, 1}, {-3, 2.0, 0}};
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < 4; i++) {
            /* Up to 3 s, until well onto the landing. (A wish's velocity is
             * what the last move kept, so each riser slows the player down:
             * 0.30 m steps take it about 115 moves to climb, where a constant
             * velocity of 4 m/s took 70.) */
            walk_stats ws = walk_to((sweep_client_transport)t, sweep_v3(flights[i].x, -18, 0.95), sweep_v3(0, 4, 0),
                                    180, -13.0);
            if (flights[i].climbable) {
                assert_true(ws.end.y > -13.6 && ws.end.y < -11.6);
                assert_true(fabs(ws.end.z - (flights[i].landing + 0.9)) < 0.05);
            } else {
                assert_true(ws.end.y < -16.0);
                assert_true(fabs(ws.end.z - 0.9) < 0.05);
            }
        }
    }
}

static void down_the_ramp(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        /* From the 25 degree ramp's platform (top z = 1.865) down to the floor:
         * snapping keeps the player on the slope all the way. */
        walk_stats ws = walk((sweep_client_transport)t, sweep_v3(3.5, -11, 1.865 + 0.95), sweep_v3(0, -4, 0), 120);
        assert_true(ws.end.y < -17.0);
        assert_true(fabs(ws.end.z - 0.9) < 0.05);
        assert_true(ws.grounded_moves > 100);
        assert_true(ws.grounded_at_end);
    }
}

static void standing_on_a_walkable_slope(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        /* Dropped onto the middle of the 25 degree ramp with no lateral
         * velocity: it lands and stays (walkable slopes do not slide). */
        walk_stats a = walk((sweep_client_transport)t, sweep_v3(3.5, -14, 2.2), sweep_v3(0, 0, 0), 60);
        assert_true(a.grounded_at_end);
        walk_stats b = walk((sweep_client_transport)t, sweep_v3(3.5, -14, 2.2), sweep_v3(0, 0, 0), 180);
        assert_true(b.grounded_at_end);
        assert_true(fabs(b.end.y - a.end.y) < 0.01);
        assert_true(fabs(b.end.z - a.end.z) < 0.01);
        assert_true(b.end.z > 0.9 + 0.5); /* on the ramp, not slid down to the floor */
    }
}

/* Batches: the same moves in one MoveBatch give the same results as the
 * core run locally, in order, each with its own sequence. */
static void batches_match_the_core(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to((sweep_client_transport)t);
        sweep_client_error e;
        sweep_msg_spawned sp;
        sweep_vec3 start = sweep_v3(-15, -18, 0.95);
        assert_int_equal(sweep_client_spawn(c, start, E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
        uint32_t n = sweep_client_max_batch(c);
        if (n > 8)
            n = 8;
        sweep_predict_state local = sweep_predict_state_at(start);
        for (int round = 0; round < 12; round++) {
            sweep_client_move_req req[8];
            uint32_t seq[8];
            for (uint32_t i = 0; i < n; i++)
                req[i] = (sweep_client_move_req){.entity = sp.entity, .velocity = sweep_v3(0, 4, 0), .dt = 1.0 / 60};
            assert_int_equal(sweep_client_send_batch(c, req, n, seq, &e), SWEEP_CLIENT_OK);
            for (uint32_t i = 1; i < n; i++)
                assert_true(seq[i] > seq[i - 1]);
            for (uint32_t i = 0; i < n; i++) {
                sweep_client_event ev;
                assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
                assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
                assert_int_equal(ev.as.move_result.sequence, seq[i]);
                sweep_act_result l;
                sweep_wish w = {.velocity = req[i].velocity};
                assert_int_equal(sweep_predict_run(E.world, NULL, &E.lv.config, &E.lv.rules, sp.radii, &local, &w,
                                                   req[i].dt, &l, NULL),
                                 SWEEP_CLIENT_OK);
                assert_same_result(&ev.as.move_result, &l, req[i].dt, round * (int)n + (int)i);
            }
        }
        /* Up the 0.15 stairs onto the landing. */
        assert_true(local.position.y > -13.6);
        assert_true(fabs(local.position.z - (0.6 + 0.9)) < 0.05);
        sweep_client_close(c);
    }
}

/* The server's Error reaches the caller as a value: code, text, sequence. */
static void errors_are_values(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to((sweep_client_transport)t);
        sweep_client_error e;
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, sweep_v3(0, 0, 0.95), E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
        sweep_msg_move_result r;

        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(NAN, 0, 0), 0.016, &r, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.status, SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_BAD_NUMBER);
        assert_string_equal(sweep_client_error_name(&e), "BadNumber");
        assert_true(e.sequence > 0);
        assert_true(strlen(e.message) > 0);

        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(1, 0, 0), 0.0, &r, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_BAD_DT);
        /* A wish too long to measure (its length overflows); a merely fast
         * one is clamped and named instead. */
        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(1e300, 1e300, 0), 0.016, &r, &e),
                         SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_BAD_VELOCITY);
        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(1e9, 0, 0), 0.016, &r, &e), SWEEP_CLIENT_OK);
        assert_int_equal(r.rules, SWEEP_WIRE_RULE_SPEED);
        assert_true(r.speed_excess == 1e9 - E.lv.rules.walk_speed);
        /* Fly without --allow-free-move, and a mode that does not exist. */
        sweep_client_move_req fly = {.entity = sp.entity, .velocity = sweep_v3(0, 0, 5), .dt = 0.016,
                                     .mode = SWEEP_WIRE_MODE_FLY};
        assert_int_equal(sweep_client_move_request(c, &fly, &r, NULL, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_NOT_ALLOWED);
        assert_non_null(strstr(e.message, "FreeMove"));
        fly.mode = 7;
        assert_int_equal(sweep_client_move_request(c, &fly, &r, NULL, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_NOT_ALLOWED);
        fly.mode = 256; /* not a MoveMode the wire can carry: refused here */
        assert_int_equal(sweep_client_move_request(c, &fly, &r, NULL, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_send_move(c, &fly, NULL, &e), SWEEP_CLIENT_E_ARG);
        assert_int_equal(sweep_client_move(c, sp.entity + 1000, sweep_v3(1, 0, 0), 0.016, &r, &e),
                         SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_ENTITY);
        assert_int_equal(sweep_client_spawn(c, sweep_v3(0, 0, 0.95), sweep_v3(0, 1, 1), &sp, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_BAD_RADII);

        /* The connection is still good after refused requests. */
        assert_int_equal(sweep_client_spawn(c, sweep_v3(0, 0, 0.95), E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_move(c, sp.entity, sweep_v3(1, 0, 0), 0.016, &r, &e), SWEEP_CLIENT_OK);

        /* Sent without waiting, the Error arrives as an event naming the move. */
        uint32_t seq;
        sweep_client_move_req bad = {.entity = sp.entity, .velocity = sweep_v3(INFINITY, 0, 0), .dt = 0.016};
        assert_int_equal(sweep_client_send_move(c, &bad, &seq, &e), SWEEP_CLIENT_OK);
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 20000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_ERROR);
        assert_int_equal(ev.as.error.code, SWEEP_WIRE_BAD_NUMBER);
        assert_int_equal(ev.as.error.sequence, seq);
        assert_int_equal(ev.as.error.entity, sp.entity);
        sweep_client_close(c);
    }
}

/* Another session's entity cannot be moved, nor told from one that does
 * not exist. */
static void not_your_entity(void **state)
{
    (void)state;
    sweep_client *a = connect_to(SWEEP_CLIENT_TCP), *b = connect_to(SWEEP_CLIENT_UDP);
    sweep_client_error e;
    sweep_msg_spawned sp;
    assert_int_equal(sweep_client_spawn(a, sweep_v3(0, 4, 0.95), E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
    assert_true(sp.entity != 0);
    sweep_msg_move_result r;
    sweep_client_status s = sweep_client_move(b, sp.entity, sweep_v3(1, 0, 0), 0.016, &r, &e);
    assert_int_equal(s, SWEEP_CLIENT_E_SERVER);
    assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(e.entity, sp.entity);
    sweep_client_close(a);
    sweep_client_close(b);
}

static unsigned dispatched;
static void count_event(void *user, const sweep_client_event *ev)
{
    (void)user;
    if (ev->kind == SWEEP_CLIENT_EV_MOVE_RESULT)
        dispatched++;
}

static void ping_stats_and_dispatch(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to((sweep_client_transport)t);
        sweep_client_error e;
        uint64_t rtt = 0;
        assert_int_equal(sweep_client_ping(c, &rtt, &e), SWEEP_CLIENT_OK);
        assert_true(rtt > 0);
        sweep_msg_stats st;
        assert_int_equal(sweep_client_get_stats(c, &st, &e), SWEEP_CLIENT_OK);
        assert_true(st.sessions >= 1);
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, sweep_v3(4, 4, 0.95), E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
        dispatched = 0;
        for (int i = 0; i < 5; i++) {
            sweep_client_move_req m = {.entity = sp.entity, .velocity = sweep_v3(0, 1, -1), .dt = 0.016};
            assert_int_equal(sweep_client_send_move(c, &m, NULL, &e), SWEEP_CLIENT_OK);
        }
        for (int i = 0; i < 200 && dispatched < 5; i++)
            assert_int_equal(sweep_client_dispatch(c, 100, count_event, NULL, NULL, &e), SWEEP_CLIENT_OK);
        assert_int_equal(dispatched, 5);
        /* Nothing more is coming: a short poll times out as a value. */
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 10, &ev, &e), SWEEP_CLIENT_E_TIMEOUT);
        assert_int_equal(sweep_client_despawn(c, sp.entity, &e), SWEEP_CLIENT_OK);
        sweep_client_close(c);
    }
}

/* Answers queued by one read are counted by sweep_client_pending and
 * handed out by sweep_client_poll without reading again: after a Ping's
 * Pong, every answer the server sent before it (more than one recvmmsg
 * takes over UDP) is queued, and the count goes down by one per poll. */
static void pending_counts_what_one_read_queued(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to((sweep_client_transport)t);
        sweep_client_error e;
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, sweep_v3(4, 4, 0.95), E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_pending(c), 0);
        uint32_t seqs[20];
        for (int i = 0; i < 20; i++) {
            sweep_client_move_req m = {.entity = sp.entity, .velocity = sweep_v3(0, 1, 0), .dt = 0.001};
            assert_int_equal(sweep_client_send_move(c, &m, &seqs[i], &e), SWEEP_CLIENT_OK);
        }
        uint64_t rtt;
        assert_int_equal(sweep_client_ping(c, &rtt, &e), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_pending(c), 20);
        for (int i = 0; i < 20; i++) {
            sweep_client_event ev;
            assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_OK);
            assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
            assert_int_equal(ev.as.move_result.sequence, seqs[i]);
            assert_int_equal(sweep_client_pending(c), (size_t)(19 - i));
        }
        sweep_client_close(c);
    }
}

/*
 * Linux stamps what arrives only while some socket of the machine asks for
 * stamps, and it switches that on a moment after the first one asks: a
 * deferred task of the kernel, which a busy machine runs tens of
 * milliseconds late. Until then a read is stamped with its own time. So a
 * test of arrival times first holds a stamping socket of its own and waits
 * until a datagram sent to itself 20 ms before it is read carries the time
 * it arrived. Returns that socket, to be closed after the test, or -1 when
 * the kernel does not start stamping arrivals within 5 s.
 */
static int arrivals_stamped(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &alen) != 0 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (int tries = 0; tries < 250; tries++) {
        char byte = 0, ctl[CMSG_SPACE(sizeof(struct timespec))];
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
        if (send(fd, &byte, 1, 0) != 1)
            break;
        usleep(20000);
        if (recvmsg(fd, &mh, 0) != 1)
            break;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
            struct timespec st;
            if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS)
                continue;
            memcpy(&st, CMSG_DATA(cm), sizeof st);
            double waited = (double)(now.tv_sec - st.tv_sec) + 1e-9 * (double)(now.tv_nsec - st.tv_nsec);
            if (waited >= 0.010)
                return fd;
        }
    }
    close(fd);
    return -1;
}

/* received_ns is when the answer arrived, not when it was read: an answer
 * left waiting in the socket keeps its arrival time. */
static void answers_carry_their_arrival_time(void **state)
{
    (void)state;
    int stamping = arrivals_stamped();
    if (stamping < 0)
        fail_msg("the kernel did not stamp a datagram's arrival within 5 s (SO_TIMESTAMPNS)");
    for (int t = 0; t < 2; t++) {
        sweep_client *c = connect_to((sweep_client_transport)t);
        sweep_client_error e;
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(c, sweep_v3(4, 4, 0.95), E.lv.default_radii, &sp, &e), SWEEP_CLIENT_OK);
        uint64_t sent = sweep_client_now_ns();
        sweep_client_move_req m = {.entity = sp.entity, .velocity = sweep_v3(0, 1, 0), .dt = 0.001};
        assert_int_equal(sweep_client_send_move(c, &m, NULL, &e), SWEEP_CLIENT_OK);
        struct pollfd p = {.fd = sweep_client_fd(c), .events = POLLIN};
        assert_int_equal(poll(&p, 1, 20000), 1);
        uint64_t readable = sweep_client_now_ns();
        usleep(50000); /* the caller is busy elsewhere */
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(c, 0, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_MOVE_RESULT);
        assert_true(ev.received_ns >= sent);
        assert_true(ev.received_ns <= readable);
        sweep_client_close(c);
    }
    close(stamping);
}

static void connecting_nowhere_is_an_error(void **state)
{
    (void)state;
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = "not-an-address";
    sweep_client *c;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_ADDRESS);
    assert_null(c);
    /* A port past 65535 is named, not taken modulo 65536. */
    o.address = "127.0.0.1:99999";
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_ADDRESS);
    assert_non_null(strstr(e.message, "not in 1..65535"));
    o.address = "127.0.0.1:0";
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_ADDRESS);
    /* A TCP port nobody listens on (port 1 is privileged and unused). */
    o.address = "127.0.0.1:1";
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_CONNECT);
    assert_string_equal(sweep_client_error_name(&e), "CONNECT");
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(welcome_names_the_arena),
        cmocka_unit_test(walking_into_a_wall),
        cmocka_unit_test(up_the_stairs),
        cmocka_unit_test(down_the_ramp),
        cmocka_unit_test(standing_on_a_walkable_slope),
        cmocka_unit_test(batches_match_the_core),
        cmocka_unit_test(errors_are_values),
        cmocka_unit_test(not_your_entity),
        cmocka_unit_test(ping_stats_and_dispatch),
        cmocka_unit_test(pending_counts_what_one_read_queued),
        cmocka_unit_test(answers_carry_their_arrival_time),
        cmocka_unit_test(connecting_nowhere_is_an_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
