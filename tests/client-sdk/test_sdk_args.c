/*
 * test_sdk_args.c - every public call of libsweep's installed headers
 * (client.h, predict.h, smooth.h, tick_clock.h) with the pointers a caller
 * may get wrong: a NULL client, predictor, smoother or clock, NULL
 * arguments and outputs, a level that counts movers it does not hold, and
 * counts out of range. client.h promises SWEEP_CLIENT_E_ARG for each call
 * that returns a status, never a crash or an assert; a call that has no
 * status to give (one returning void, a number, a state or a pointer)
 * gives the "nothing" answer its header names. A crash here is a signal
 * cmocka reports as that test's failure.
 *
 * No server is needed: besides the NULL client, the calls that need a
 * live handle get a UDP client still connecting (sweep_client_connect_start
 * to a loopback port this test holds and never answers on), which is
 * enough to reach every argument check that comes before the network.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "client-sdk/smooth.h"
#include "client-sdk/tick_clock.h"
#include "core/mover.h"
#include "core/world.h"
#include "maps/level.h"
#include "tests/floor_platform.h"

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};
#define DT (1.0 / 60.0)
/* What an untouched output holds. */
#define PATTERN 0xa5

/* 1 if the n bytes at p all hold PATTERN: an output left untouched. */
static int untouched(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != PATTERN)
            return 0;
    return 1;
}

/* 1 if the n bytes at p are all 0. */
static int zeroed(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

/* 1 if a and b are the same state, field by field (not their padding). */
static int same_state(sweep_predict_state a, sweep_predict_state b)
{
    return memcmp(&a.position, &b.position, sizeof a.position) == 0 &&
           memcmp(&a.velocity, &b.velocity, sizeof a.velocity) == 0 && a.grounded == b.grounded &&
           a.ground_mover == b.ground_mover && a.stance == b.stance;
}

/* 1 if s is an entity as spawned at the origin (sweep_predict_state_at). */
static int at_origin(sweep_predict_state s)
{
    return same_state(s, sweep_predict_state_at(sweep_v3(0, 0, 0)));
}

/* ---- client.h: a NULL client -------------------------------------------- */

static void client_calls_refuse_a_null_client(void **state)
{
    (void)state;
    sweep_client_error e;
    const sweep_vec3 zero = {0, 0, 0};
    sweep_client_move_req mr;
    memset(&mr, 0, sizeof mr);
    sweep_client_spawn_req sr;
    memset(&sr, 0, sizeof sr);
    sweep_msg_collide q;
    memset(&q, 0, sizeof q);
    sweep_msg_entity_command cmd;
    memset(&cmd, 0, sizeof cmd);
    sweep_msg_entity_command_result cres;
    sweep_msg_query_item item;
    memset(&item, 0, sizeof item);
    sweep_msg_query_answer ans;
    sweep_client_event ev;
    uint32_t seq = 7;
    unsigned handled = 9;

#define REFUSED(call)                                                                                            \
    do {                                                                                                         \
        memset(&e, PATTERN, sizeof e);                                                                           \
        assert_int_equal((call), SWEEP_CLIENT_E_ARG);                                                            \
        assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);                                                          \
    } while (0)
    REFUSED(sweep_client_connect_step(NULL, 0, &e));
    REFUSED(sweep_client_spawn(NULL, zero, RADII, NULL, &e));
    REFUSED(sweep_client_spawn_at_point(NULL, 1, RADII, NULL, &e));
    REFUSED(sweep_client_spawn_player(NULL, 1, NULL, &e));
    REFUSED(sweep_client_despawn(NULL, 1, &e));
    REFUSED(sweep_client_move(NULL, 1, zero, DT, NULL, &e));
    REFUSED(sweep_client_move_request(NULL, &mr, NULL, &seq, &e));
    REFUSED(sweep_client_collide(NULL, &q, NULL, &e));
    REFUSED(sweep_client_ping(NULL, NULL, &e));
    REFUSED(sweep_client_get_stats(NULL, NULL, &e));
    REFUSED(sweep_client_watch_world(NULL, 1, NULL, &e));
    REFUSED(sweep_client_mover_command(NULL, "gate", NULL, &e));
    REFUSED(sweep_client_watch_entities(NULL, 1, NULL, &e));
    REFUSED(sweep_client_get_entity(NULL, 1, NULL, NULL, &e));
    REFUSED(sweep_client_entity_commands(NULL, &cmd, 1, &cres, &e));
    REFUSED(sweep_client_send_entity_commands(NULL, &cmd, 1, &seq, &e));
    REFUSED(sweep_client_query(NULL, &item, 1, &ans, &e));
    REFUSED(sweep_client_send_query(NULL, &item, 1, &seq, &e));
    REFUSED(sweep_client_open_world(NULL, "arena", NULL, NULL, &e));
    REFUSED(sweep_client_close_world(NULL, 1, &e));
    REFUSED(sweep_client_send_spawn(NULL, &sr, &seq, &e));
    REFUSED(sweep_client_send_move(NULL, &mr, &seq, &e));
    REFUSED(sweep_client_set_redundancy(NULL, 1, &e));
    REFUSED(sweep_client_send_batch(NULL, &mr, 1, &seq, &e));
    REFUSED(sweep_client_poll(NULL, 0, &ev, &e));
    REFUSED(sweep_client_dispatch(NULL, 0, NULL, NULL, &handled, &e));
    REFUSED(sweep_client_check_map(NULL, NULL, &e));
#undef REFUSED
    assert_int_equal(seq, 7); /* nothing was sent */
    assert_int_equal(sweep_client_spawn(NULL, zero, RADII, NULL, NULL), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_client_poll(NULL, 0, NULL, NULL), SWEEP_CLIENT_E_ARG);
    sweep_client_close(NULL);
}

static void client_answers_about_a_null_client(void **state)
{
    (void)state;
    /* The error every call on a NULL client reports, never a pointer into nothing. */
    const sweep_client_error *last = sweep_client_last_error(NULL);
    assert_non_null(last);
    assert_int_equal(last->status, SWEEP_CLIENT_E_ARG);
    assert_string_equal(sweep_client_error_name(last), "ARG");

    int timeout = 123;
    assert_int_equal(sweep_client_poll_events(NULL, &timeout), 0);
    assert_int_equal(timeout, 0);
    assert_int_equal(sweep_client_poll_events(NULL, NULL), 0);

    assert_null(sweep_client_get_welcome(NULL));
    assert_int_equal(sweep_client_fd(NULL), -1);
    assert_int_equal(sweep_client_get_transport(NULL), SWEEP_CLIENT_TCP);
    assert_int_equal(sweep_client_next_sequence(NULL), 0);
    assert_int_equal(sweep_client_pending(NULL), 0);
    assert_int_equal(sweep_client_max_batch(NULL), 0);
    assert_int_equal(sweep_client_estimate_tick(NULL), 0);
    assert_int_equal(sweep_client_next_tick_ns(NULL, 1000), 0);
    assert_null(sweep_client_tick_clock(NULL));

    sweep_client_counters counters;
    memset(&counters, PATTERN, sizeof counters);
    sweep_client_get_counters(NULL, &counters);
    assert_true(zeroed(&counters, sizeof counters));
    sweep_client_get_counters(NULL, NULL);

    uint32_t seqs[3] = {7, 7, 7};
    sweep_client_batch_sequences(NULL, 3, seqs);
    assert_true(zeroed(seqs, sizeof seqs));
    sweep_client_batch_sequences(NULL, 3, NULL);
}

static void client_names_take_any_value(void **state)
{
    (void)state;
    assert_string_equal(sweep_client_status_name((sweep_client_status)-1), "UNKNOWN");
    assert_string_equal(sweep_client_status_name(SWEEP_CLIENT_STATUS_COUNT), "UNKNOWN");
    assert_string_equal(sweep_client_error_name(NULL), "UNKNOWN");
    sweep_client_options_init(NULL);
    char buf[8] = "xyz";
    assert_null(sweep_client_rules_string(1, ",", NULL, 16));
    assert_ptr_equal(sweep_client_rules_string(1, ",", buf, 0), buf);
    assert_string_equal(buf, "xyz"); /* no room: untouched */
    assert_ptr_equal(sweep_client_rules_string(3, NULL, buf, sizeof buf), buf);
    assert_true(strlen(buf) < sizeof buf);
}

static void connect_refuses_missing_options(void **state)
{
    (void)state;
    sweep_client_error e;
    sweep_client *c = (sweep_client *)&c;
    sweep_client_options o;
    sweep_client_options_init(&o);
    assert_int_equal(sweep_client_connect(NULL, &c, &e), SWEEP_CLIENT_E_ARG);
    assert_null(c);
    assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_client_connect(&o, NULL, &e), SWEEP_CLIENT_E_ARG);
    c = (sweep_client *)&c;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_ARG); /* no address */
    assert_null(c);
    c = (sweep_client *)&c;
    assert_int_equal(sweep_client_connect_start(NULL, &c, NULL), SWEEP_CLIENT_E_ARG);
    assert_null(c);
    o.address = "127.0.0.1:1";
    assert_int_equal(sweep_client_connect_start(&o, NULL, &e), SWEEP_CLIENT_E_ARG);
    o.transport = (sweep_client_transport)7;
    assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_E_ARG);
    o.transport = SWEEP_CLIENT_UDP;
    o.udp_max_datagram = 100; /* below the protocol's 1200 */
    assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_E_ARG);
    assert_null(c);
}

/* An address's form, checked without resolving it: what connecting takes
 * and refuses, by the same rule. */
static void addresses_are_checked_by_form(void **state)
{
    (void)state;
    sweep_client_error e;
    const char *good[] = {"127.0.0.1:1", "[::1]:65535", "localhost:http", "no-such-host.invalid:7878"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_int_equal(sweep_client_check_address(good[i], &e), SWEEP_CLIENT_OK);
    const char *bad[] = {NULL, "", "127.0.0.1", ":7878", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                         "127.0.0.1:000007878"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sweep_client_check_address(bad[i], &e), SWEEP_CLIENT_E_ADDRESS);
        assert_int_equal(e.status, SWEEP_CLIENT_E_ADDRESS);
    }
    assert_non_null(strstr(e.message, "is not in 1..65535"));
    assert_int_equal(sweep_client_check_address("127.0.0.1", NULL), SWEEP_CLIENT_E_ADDRESS);
    /* Connecting refuses the same, by the same words. */
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.address = "127.0.0.1:65536";
    sweep_client *c;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_ADDRESS);
    assert_non_null(strstr(e.message, "127.0.0.1:65536: port 65536 is not in 1..65535"));
}

/* ---- client.h: a client still connecting --------------------------------- */

typedef struct connecting {
    int quiet; /* the UDP socket the client sends its Hello to: never answers */
    sweep_client *c;
} connecting;

static int connecting_setup(void **state)
{
    connecting *k = calloc(1, sizeof *k);
    assert_non_null(k);
    k->quiet = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(k->quiet >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(k->quiet, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(k->quiet, (struct sockaddr *)&a, &len), 0);
    char address[32];
    snprintf(address, sizeof address, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = SWEEP_CLIENT_UDP;
    o.address = address;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect_start(&o, &k->c, &e), SWEEP_CLIENT_OK);
    assert_non_null(k->c);
    *state = k;
    return 0;
}

static int connecting_teardown(void **state)
{
    connecting *k = *state;
    sweep_client_close(k->c);
    close(k->quiet);
    free(k);
    return 0;
}

static void connecting_client_refuses_bad_arguments(void **state)
{
    connecting *k = *state;
    sweep_client *c = k->c;
    sweep_client_error e;
    sweep_client_move_req mr;
    memset(&mr, 0, sizeof mr);
    sweep_msg_entity_command cmd;
    memset(&cmd, 0, sizeof cmd);
    sweep_msg_query_item item;
    memset(&item, 0, sizeof item);
    uint32_t seqs[4];

    /* Each refusal is kept as the client's last error, whatever err was:
     * a call that succeeds (redundancy 0, allowed while connecting) clears
     * it first. */
#define REFUSED(call)                                                                                            \
    do {                                                                                                         \
        assert_int_equal(sweep_client_set_redundancy(c, 0, NULL), SWEEP_CLIENT_OK);                              \
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_OK);                                   \
        assert_int_equal((call), SWEEP_CLIENT_E_ARG);                                                            \
        assert_int_equal(sweep_client_last_error(c)->status, SWEEP_CLIENT_E_ARG);                                \
        assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_E_AGAIN); /* still connecting */     \
    } while (0)
    REFUSED(sweep_client_send_batch(c, NULL, 3, seqs, NULL));
    REFUSED(sweep_client_send_move(c, NULL, seqs, NULL));
    REFUSED(sweep_client_move_request(c, NULL, NULL, NULL, NULL));
    REFUSED(sweep_client_collide(c, NULL, NULL, NULL));
    REFUSED(sweep_client_send_spawn(c, NULL, seqs, NULL));
    REFUSED(sweep_client_mover_command(c, NULL, NULL, NULL));
    REFUSED(sweep_client_open_world(c, NULL, "w", NULL, NULL));
    REFUSED(sweep_client_open_world(c, "", "w", NULL, &e));
    REFUSED(sweep_client_entity_commands(c, NULL, 1, NULL, NULL));
    REFUSED(sweep_client_entity_commands(c, &cmd, 0, NULL, NULL));
    REFUSED(sweep_client_send_entity_commands(c, NULL, 1, seqs, NULL));
    REFUSED(sweep_client_send_entity_commands(c, &cmd, 0, seqs, NULL));
    REFUSED(sweep_client_query(c, NULL, 1, NULL, NULL));
    REFUSED(sweep_client_query(c, &item, 0, NULL, NULL));
    REFUSED(sweep_client_send_query(c, NULL, 1, seqs, NULL));
    REFUSED(sweep_client_send_query(c, &item, 0, seqs, NULL));
    REFUSED(sweep_client_set_redundancy(c, SWEEP_CLIENT_REDUNDANCY_MAX + 1, NULL));
    REFUSED(sweep_client_poll(c, 0, NULL, NULL));
    mr.mode = 256; /* a MoveMode the wire cannot carry */
    REFUSED(sweep_client_send_move(c, &mr, seqs, NULL));
    REFUSED(sweep_client_send_batch(c, &mr, 1, seqs, NULL));
#undef REFUSED
    /* The map check needs a map to hash. */
    assert_int_equal(sweep_client_check_map(c, NULL, &e), SWEEP_CLIENT_E_ARG);
}

static void connecting_client_answers_without_crashing(void **state)
{
    connecting *k = *state;
    sweep_client *c = k->c;
    /* Before the Welcome a batch holds one move, over UDP as over TCP. */
    assert_int_equal(sweep_client_max_batch(c), 1);
    uint32_t next = sweep_client_next_sequence(c);
    uint32_t seqs[3];
    sweep_client_batch_sequences(c, 3, seqs);
    assert_int_equal(seqs[0], next + 1);
    assert_int_equal(seqs[1], next + 3);
    assert_int_equal(seqs[2], next + 5);
    sweep_client_batch_sequences(c, 3, NULL);
    sweep_client_get_counters(c, NULL);
    int timeout;
    assert_int_not_equal(sweep_client_poll_events(c, &timeout), 0);
    assert_non_null(sweep_client_tick_clock(c));
    assert_non_null(sweep_client_get_welcome(c));
}

/* ---- predict.h ----------------------------------------------------------- */

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_movers *mv; /* one mover, for a level that counts one */
    sweep_config cfg;
    sweep_rules rules;
    sweep_predictor *p;
} scene;

static int scene_setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    assert_non_null(s);
    sweep_config_default(&s->cfg);
    sweep_rules_default(&s->rules);
    floor_platform_build(&s->lv, &s->w, &s->mv);
    assert_int_equal(
        sweep_predictor_create(s->w, &s->cfg, &s->rules, sweep_v3(0, 0, 0.9005), RADII, &s->p, NULL),
        SWEEP_CLIENT_OK);
    *state = s;
    return 0;
}

static int scene_teardown(void **state)
{
    scene *s = *state;
    sweep_predictor_destroy(s->p);
    floor_platform_free(&s->lv, s->w, s->mv);
    free(s);
    return 0;
}

static void predictor_calls_refuse_null(void **state)
{
    scene *s = *state;
    sweep_client_error e;
    sweep_predictor *p = (sweep_predictor *)&p;
    sweep_wish wish;
    memset(&wish, 0, sizeof wish);
    sweep_msg_move_result r;
    memset(&r, 0, sizeof r);
    sweep_msg_world_state ws;
    memset(&ws, 0, sizeof ws);
    sweep_predict_ack ack;

    assert_int_equal(sweep_predictor_create(NULL, &s->cfg, &s->rules, sweep_v3(0, 0, 1), RADII, &p, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_null(p);
    assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_create(s->w, NULL, &s->rules, sweep_v3(0, 0, 1), RADII, &p, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_create(s->w, &s->cfg, NULL, sweep_v3(0, 0, 1), RADII, &p, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_create(s->w, &s->cfg, &s->rules, sweep_v3(0, 0, 1), RADII, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    sweep_predictor_destroy(NULL);

    assert_int_equal(sweep_predictor_set_movers(NULL, NULL, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_world_state(NULL, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_step(NULL, 1, &wish, DT, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_step_at(NULL, 1, &wish, DT, 5, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_ack(NULL, &r, &ack, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_reject(NULL, 1, &ack, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);

    /* On a predictor, the NULL arguments; the refusal is its last error. */
    assert_int_equal(sweep_predictor_world_state(s->p, NULL, NULL), SWEEP_CLIENT_E_ARG); /* no movers, no ws */
    assert_int_equal(sweep_predictor_step(s->p, 1, NULL, DT, NULL, NULL), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_last_error(s->p)->status, SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_step_at(s->p, 1, NULL, DT, 5, NULL, NULL), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_ack(s->p, NULL, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_last_error(s->p)->status, SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_pending(s->p), 0);
    /* An answer or refusal of nothing pending, with no room for the ack. */
    assert_int_equal(sweep_predictor_ack(s->p, &r, NULL, NULL), SWEEP_CLIENT_OK);
    assert_int_equal(sweep_predictor_reject(s->p, 1, NULL, NULL), SWEEP_CLIENT_OK);

    sweep_predict_state st = sweep_predict_state_at(sweep_v3(0, 0, 0.9005));
    assert_int_equal(sweep_predict_run(NULL, NULL, &s->cfg, &s->rules, RADII, &st, &wish, DT, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(s->w, NULL, NULL, &s->rules, RADII, &st, &wish, DT, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(s->w, NULL, &s->cfg, NULL, RADII, &st, &wish, DT, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(s->w, NULL, &s->cfg, &s->rules, RADII, NULL, &wish, DT, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(s->w, NULL, &s->cfg, &s->rules, RADII, &st, NULL, DT, NULL, &e),
                     SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_run(s->w, NULL, &s->cfg, &s->rules, RADII, &st, &wish, DT, NULL, NULL),
                     SWEEP_CLIENT_OK);

    sweep_movers *mv = (sweep_movers *)&mv;
    assert_int_equal(sweep_predict_build_movers(NULL, 60.0, &mv, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_build_movers(&s->lv, 60.0, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_build_movers(&s->lv, -1.0, &mv, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_apply_world_state(NULL, &s->lv, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_apply_world_state(s->mv, NULL, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_apply_world_state(s->mv, &s->lv, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predict_mover_index(NULL, 1), SWEEP_NO_MOVER);
    assert_int_equal(sweep_predict_mover_id(NULL, 0), 0);
    assert_int_equal(sweep_predict_mover_id(&s->lv, 5), 0); /* out of range: the level has no movers */
    assert_int_equal(sweep_predict_mover_id(&s->lv, SWEEP_NO_MOVER), 0);
}

static void predictor_answers_about_a_null_predictor(void **state)
{
    (void)state;
    assert_true(at_origin(sweep_predictor_current(NULL)));
    assert_true(at_origin(sweep_predictor_confirmed(NULL)));
    assert_int_equal(sweep_predictor_pending(NULL), 0);
    assert_int_equal(sweep_predictor_tick(NULL), 0);
    sweep_predict_counters counters;
    memset(&counters, PATTERN, sizeof counters);
    sweep_predictor_get_counters(NULL, &counters);
    assert_true(zeroed(&counters, sizeof counters));
    sweep_predictor_get_counters(NULL, NULL);
    const sweep_client_error *last = sweep_predictor_last_error(NULL);
    assert_non_null(last);
    assert_int_equal(last->status, SWEEP_CLIENT_E_ARG);
}

static void predictor_outputs_may_be_null(void **state)
{
    scene *s = *state;
    sweep_predict_counters counters;
    memset(&counters, PATTERN, sizeof counters);
    sweep_predictor_get_counters(s->p, NULL);
    sweep_predictor_get_counters(s->p, &counters);
    assert_false(untouched(&counters, sizeof counters));
}

static void state_calls_take_null(void **state)
{
    (void)state;
    sweep_msg_move_result r;
    memset(&r, 0, sizeof r);
    r.has_start_position = 1;
    r.start_position = sweep_v3(1, 2, 3);
    sweep_predict_state before = sweep_predict_state_at(sweep_v3(4, 5, 6));
    before.grounded = 1;

    assert_false(sweep_predict_state_equal(NULL, &r));
    assert_false(sweep_predict_state_equal(&before, NULL));
    assert_false(sweep_predict_state_equal(NULL, NULL));

    /* No answer: the state before, unmoved. */
    assert_true(same_state(sweep_predict_server_start(&before, NULL), before));
    /* No state before: one as spawned, where the answer started it. */
    assert_true(same_state(sweep_predict_server_start(NULL, &r), sweep_predict_state_at(sweep_v3(1, 2, 3))));
    assert_true(at_origin(sweep_predict_server_start(NULL, NULL)));
}

/* A level that counts a mover and holds no array of them: refused where
 * the movers are built or a WorldState is placed, and nothing found in it. */
static void level_without_its_movers_is_refused(void **state)
{
    scene *s = *state;
    sweep_level lv;
    sweep_level_init(&lv);
    lv.mover_count = 1; /* and lv.movers NULL */
    lv.tick_rate = 60.0;
    sweep_client_error e;
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_predict_build_movers(&lv, 60.0, &mv, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);
    assert_null(mv);
    assert_int_equal(sweep_predict_mover_index(&lv, 1), SWEEP_NO_MOVER);
    assert_int_equal(sweep_predict_mover_id(&lv, 0), 0);

    /* s->mv has one mover, as lv counts. */
    sweep_wire_mover wm;
    memset(&wm, 0, sizeof wm);
    wm.id = 1;
    wm.rotation[3] = 1.0;
    sweep_msg_world_state ws;
    memset(&ws, 0, sizeof ws);
    ws.tick = 3;
    ws.movers = &wm;
    ws.count = 1;
    ws.mover_count = 1;
    assert_int_equal(sweep_predict_apply_world_state(s->mv, &lv, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);
    /* A WorldState that counts movers and holds none. */
    ws.movers = NULL;
    assert_int_equal(sweep_predict_apply_world_state(s->mv, &lv, &ws, &e), SWEEP_CLIENT_E_ARG);

    /* The predictor builds its own copy of the movers from the level. */
    assert_int_equal(sweep_predictor_set_movers(s->p, s->mv, &lv, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_last_error(s->p)->status, SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_set_movers(s->p, s->mv, NULL, &e), SWEEP_CLIENT_E_ARG);
    /* Nothing changed: still no movers to place a WorldState on. */
    ws.movers = &wm;
    assert_int_equal(sweep_predictor_world_state(s->p, &ws, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(sweep_predictor_tick(s->p), 0);
    /* Freed as it is, counting movers it has no array of; and no level. */
    sweep_level_free(&lv);
    sweep_level_free(NULL);
}

static void map_check_refuses_null(void **state)
{
    (void)state;
    sweep_client_error e;
    memset(&e, PATTERN, sizeof e);
    assert_int_equal(sweep_client_check_map(NULL, NULL, &e), SWEEP_CLIENT_E_ARG);
    assert_int_equal(e.status, SWEEP_CLIENT_E_ARG);
}

/* ---- smooth.h ------------------------------------------------------------ */

static void smoother_takes_null(void **state)
{
    (void)state;
    sweep_predict_ack ack;
    memset(&ack, 0, sizeof ack);
    ack.shift = sweep_v3(0.5, 0, 0);
    ack.shift_len = 0.5;
    sweep_smooth_init(NULL, 0.1, 2.0);
    sweep_smooth_correct(NULL, &ack);
    sweep_smooth_reset(NULL);
    const sweep_vec3 predicted = {1, 2, 3};
    sweep_vec3 shown = sweep_smooth_shown(NULL, predicted, DT);
    assert_memory_equal(&shown, &predicted, sizeof shown);

    /* A NULL ack is no correction. */
    sweep_smooth sm;
    sweep_smooth_init(&sm, 0.1, 2.0);
    sweep_smooth_correct(&sm, NULL);
    shown = sweep_smooth_shown(&sm, predicted, DT);
    assert_memory_equal(&shown, &predicted, sizeof shown);
}

/* ---- tick_clock.h -------------------------------------------------------- */

static void tick_clock_takes_null(void **state)
{
    (void)state;
    sweep_tick_clock_init(NULL, 64.0);
    sweep_tick_clock_heard(NULL, 5, 1000000000u);
    sweep_tick_clock_round_trip(NULL, 1000000u, 1000000000u);
    sweep_tick_clock_met(NULL, 1000000000u, 5);
    assert_int_equal(sweep_tick_clock_estimate(NULL, 1000000000u), 0);
    assert_int_equal(sweep_tick_clock_next_due(NULL, 1000000000u), 0);
    assert_int_equal(sweep_tick_clock_rtt(NULL), 0);
    assert_true(sweep_tick_clock_lag(NULL) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(client_calls_refuse_a_null_client),
        cmocka_unit_test(client_answers_about_a_null_client),
        cmocka_unit_test(client_names_take_any_value),
        cmocka_unit_test(connect_refuses_missing_options),
        cmocka_unit_test(addresses_are_checked_by_form),
        cmocka_unit_test_setup_teardown(connecting_client_refuses_bad_arguments, connecting_setup,
                                        connecting_teardown),
        cmocka_unit_test_setup_teardown(connecting_client_answers_without_crashing, connecting_setup,
                                        connecting_teardown),
        cmocka_unit_test_setup_teardown(predictor_calls_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test(predictor_answers_about_a_null_predictor),
        cmocka_unit_test_setup_teardown(predictor_outputs_may_be_null, scene_setup, scene_teardown),
        cmocka_unit_test(state_calls_take_null),
        cmocka_unit_test_setup_teardown(level_without_its_movers_is_refused, scene_setup, scene_teardown),
        cmocka_unit_test(map_check_refuses_null),
        cmocka_unit_test(smoother_takes_null),
        cmocka_unit_test(tick_clock_takes_null),
    };
    return cmocka_run_group_tests_name("libsweep arguments", tests, NULL, NULL);
}
