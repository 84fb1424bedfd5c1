/*
 * test_observe.c - libsweep observing a world as the server role against
 * a real sweepd: sweep_client_watch_entities answers with the first part
 * and hands the rest, and the pushes, out as ENTITY_STATES events whose
 * entities the client owns (every entity of the world once per tick, over
 * UDP in several datagrams); sweep_client_get_entity reads another
 * session's entity; a player's client gets AuthFailed for both.
 */
#include "tests/sweepd_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"

#define ENTITIES 40u

static fx_server D;

static sweep_client *connect_as(sweep_client_transport t, const char *token)
{
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", D.port);
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = t;
    o.address = addr;
    o.auth_token = token;
    sweep_client *c = NULL;
    sweep_client_error e;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK)
        fail_msg("connect: %s", e.message);
    return c;
}

/* Adds one EntityStates (part) to seen[]: the ids of owner's entities are
 * ids[], each must come once per tick. */
static void take(const sweep_msg_entity_states *es, const uint32_t *ids, uint32_t *hits, uint32_t *have)
{
    assert_int_equal(es->entity_count, ENTITIES);
    for (uint32_t k = 0; k < es->count; k++) {
        uint32_t i = *have + k;
        assert_true(i < ENTITIES);
        assert_int_equal(es->entities[k].entity, ids[i]); /* spawn order */
        hits[i]++;
    }
    *have += es->count;
}

static void test_watch_and_get(void **state)
{
    (void)state;
    sweep_client *owner = connect_as(SWEEP_CLIENT_TCP, FX_TOKEN);
    uint32_t ids[ENTITIES];
    sweep_vec3 at[ENTITIES];
    sweep_client_error e;
    for (uint32_t i = 0; i < ENTITIES; i++) {
        sweep_msg_spawned sp;
        assert_int_equal(sweep_client_spawn(owner, sweep_v3(-5.0 + 0.05 * i, 5.0, 1.0), sweep_v3(0.4, 0.4, 0.9), &sp, &e),
                         SWEEP_CLIENT_OK);
        ids[i] = sp.entity;
        at[i] = sp.position;
    }
    uint64_t owner_session = sweep_client_get_welcome(owner)->session_id;

    sweep_client *w = connect_as(SWEEP_CLIENT_UDP, FX_TOKEN);
    sweep_msg_entity_states first;
    assert_int_equal(sweep_client_watch_entities(w, 2, &first, &e), SWEEP_CLIENT_OK);
    uint32_t per = sweep_udp_max_entity_states();
    assert_int_equal(first.count, per);
    assert_memory_equal(&first.entities[0].position, &at[0], sizeof at[0]);
    assert_int_equal(first.entities[0].owner_session, owner_session);
    uint32_t hits[ENTITIES] = {0}, have = 0;
    take(&first, ids, hits, &have);
    /* The rest of the answer, then whole pushes. */
    uint64_t tick = first.tick;
    int pushes = 0;
    while (pushes < 3) {
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(w, 5000, &ev, &e), SWEEP_CLIENT_OK);
        if (ev.kind != SWEEP_CLIENT_EV_ENTITY_STATES)
            continue;
        if (ev.as.entity_states.tick != tick) {
            assert_int_equal(have, ENTITIES); /* the tick before was whole */
            for (uint32_t i = 0; i < ENTITIES; i++)
                assert_int_equal(hits[i], 1);
            memset(hits, 0, sizeof hits);
            have = 0;
            assert_true(ev.as.entity_states.tick > tick);
            tick = ev.as.entity_states.tick;
            assert_int_equal(ev.sequence, 0);
            pushes++;
        }
        take(&ev.as.entity_states, ids, hits, &have);
    }
    assert_int_equal(sweep_client_watch_entities(w, 0, NULL, &e), SWEEP_CLIENT_OK);

    /* Another session's entity, by id; one nobody has. */
    sweep_wire_entity_state st;
    uint64_t at_tick = 0;
    assert_int_equal(sweep_client_get_entity(w, ids[7], &st, &at_tick, &e), SWEEP_CLIENT_OK);
    assert_int_equal(st.entity, ids[7]);
    assert_int_equal(st.owner_session, owner_session);
    assert_memory_equal(&st.position, &at[7], sizeof at[7]);
    assert_true(at_tick >= tick);
    uint32_t nobody = ids[0] ^ 0x5a5a5a5au;
    for (uint32_t i = 0; i < ENTITIES; i++)
        assert_true(ids[i] != nobody);
    assert_int_equal(sweep_client_get_entity(w, nobody, &st, NULL, &e), SWEEP_CLIENT_E_SERVER);
    assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_ENTITY);
    sweep_client_close(w);

    /* A player may do neither. */
    sweep_client *p = connect_as(SWEEP_CLIENT_TCP, NULL);
    assert_int_equal(sweep_client_get_entity(p, ids[0], &st, NULL, &e), SWEEP_CLIENT_E_SERVER);
    assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
    assert_int_equal(sweep_client_watch_entities(p, 1, &first, &e), SWEEP_CLIENT_E_SERVER);
    assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
    assert_non_null(strstr(e.message, "WatchEntities needs the server role"));
    sweep_client_close(p);
    sweep_client_close(owner);
}

static int setup(void **state)
{
    (void)state;
    const char *args[] = {FX_SERVER_ARGS, NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_watch_and_get)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
