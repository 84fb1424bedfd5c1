/*
 * test_observe.c - what the server role sees of a world (observe.c): every
 * entity's state in spawn order, whoever owns it, with movers.id for its
 * ground and its owner's id; GetEntity of any owner's entity for the
 * server role, UnknownEntity for an id nobody has, and AuthFailed for a
 * player in the words of the role check every request goes through.
 */
#include "tests/world/world_fixture.h"

/* Two owners: a game server (id 7) with three entities placed near the
 * map's first spawn point, and a player (id 9) with one at a spawn point.
 * ids[] in spawn order: the server's three, the player's. */
typedef struct two {
    sweep__world *w;
    wf_rec *r;
    sweep__owner server, player;
    uint32_t ids[4];
    sweep_vec3 at[4];
} two;

static void two_open(two *t, const sweep__world_options *opt)
{
    memset(t, 0, sizeof *t);
    t->w = wf_open(opt);
    t->r = wf_rec_new();
    wf_owner(&t->server, t->w, 7, SWEEP_WIRE_ROLE_SERVER, 0);
    wf_owner(&t->player, t->w, 9, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep_vec3 p = t->w->level.spawns[0];
    for (uint32_t i = 0; i < 3; i++) {
        wf_clear(t->r);
        sweep_message m = wf_spawn_at(1 + i, p.x + 0.125 * i, p.y, p.z + 0.25);
        wf_request(t->w, &t->server, t->r, &m);
        const sweep_msg_spawned *sp = &wf_only(t->r, SWEEP_MSG_SPAWNED)->as.spawned;
        t->ids[i] = sp->entity;
        t->at[i] = sp->position;
    }
    sweep_msg_spawned sp = wf_spawn_point(t->w, &t->player, t->r, 1, 2);
    t->ids[3] = sp.entity;
    t->at[3] = sp.position;
}

static void two_close(two *t)
{
    sweep__owner_release(&t->player, NULL);
    sweep__owner_release(&t->server, NULL);
    sweep__world_close(t->w);
    free(t->r);
}

static sweep_message get_msg(uint32_t sequence, uint32_t entity)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_GET_ENTITY;
    m.sequence = sequence;
    m.as.get_entity.entity = entity;
    return m;
}

/* Every entity in spawn order, each as its entity holds it. */
static void states_are_the_entities_in_spawn_order(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    /* The player walks until it lands, so its state is no longer the
     * spawn's and is grounded. */
    sweep_msg_move_result res;
    uint32_t seq = 2;
    do {
        wf_ticks(t.w, t.r, 6);
        sweep_message mv = wf_move_msg(t.ids[3], seq, sweep_v3(1, 0, 0), 0.1);
        res = wf_move(t.w, &t.player, t.r, &mv);
    } while (!res.grounded && ++seq < 40);

    sweep_wire_entity_state out[6];
    memset(out, 0xa5, sizeof out);
    assert_int_equal(sweep__world_entity_states(t.w, 0, out, 6), 4);
    for (uint32_t i = 0; i < 4; i++) {
        const sweep__entity *e = t.w->ents[i];
        assert_int_equal(out[i].entity, t.ids[i]);
        assert_int_equal(out[i].owner_session, i < 3 ? 7 : 9);
        assert_memory_equal(&out[i].radii, &e->st.m.radii, sizeof out[i].radii);
        assert_int_equal(out[i].ground_mover, 0);
        if (i < 3) {
            /* Placed, never moved: where the Spawned said, at rest, and
             * neither grounded nor governed (the server role's moves are raw). */
            assert_memory_equal(&out[i].position, &t.at[i], sizeof t.at[i]);
            assert_true(out[i].velocity.x == 0 && out[i].velocity.y == 0 && out[i].velocity.z == 0);
            assert_int_equal(out[i].flags, 0);
        }
    }
    /* The player's entity: its move's answer, bit for bit. */
    assert_memory_equal(&out[3].position, &res.position, sizeof res.position);
    assert_memory_equal(&out[3].velocity, &res.velocity, sizeof res.velocity);
    assert_int_equal(out[3].flags, (res.grounded ? SWEEP_WIRE_ENTITY_GROUNDED : 0u) | SWEEP_WIRE_ENTITY_PLAYER);
    assert_true(res.grounded);
    /* Nothing past the fourth is touched. */
    uint8_t untouched[sizeof out[0]];
    memset(untouched, 0xa5, sizeof untouched);
    assert_memory_equal(&out[4], untouched, sizeof untouched);

    /* Runs of it, as a push is cut into parts. */
    sweep_wire_entity_state part[2];
    assert_int_equal(sweep__world_entity_states(t.w, 1, part, 2), 2);
    assert_memory_equal(part, &out[1], 2 * sizeof part[0]);
    assert_int_equal(sweep__world_entity_states(t.w, 3, part, 2), 1);
    assert_memory_equal(part, &out[3], sizeof part[0]);
    assert_int_equal(sweep__world_entity_states(t.w, 4, part, 2), 0);
    assert_int_equal(sweep__world_entity_states(t.w, UINT32_MAX, part, 2), 0);

    /* A despawn closes the gap: the order stays the spawns'. */
    wf_clear(t.r);
    sweep_message d = wf_despawn_msg(t.ids[1], 50);
    wf_request(t.w, &t.server, t.r, &d);
    wf_only(t.r, SWEEP_MSG_DESPAWNED);
    assert_int_equal(sweep__world_entity_states(t.w, 0, out, 6), 3);
    assert_int_equal(out[0].entity, t.ids[0]);
    assert_int_equal(out[1].entity, t.ids[2]);
    assert_int_equal(out[2].entity, t.ids[3]);
    two_close(&t);
}

/* The ground is named by the map's movers.id, not the core's index. */
static void ground_is_the_movers_id(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    assert_true(t.w->mover_count >= 2);
    sweep__entity *e = t.w->ents[0];
    for (uint32_t k = 0; k < t.w->mover_count; k++) {
        e->st.ground_mover = k;
        sweep_wire_entity_state s;
        sweep__entity_wire(t.w, e, &s);
        assert_int_equal(s.ground_mover, t.w->level.movers[k].id);
        assert_true(s.ground_mover != 0);
    }
    e->st.ground_mover = SWEEP_NO_MOVER;
    sweep_wire_entity_state s;
    sweep__entity_wire(t.w, e, &s);
    assert_int_equal(s.ground_mover, 0);
    two_close(&t);
}

/* GetEntity: the server role reads any owner's entity; nothing changes. */
static void get_entity_reads_any_owners(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    wf_ticks(t.w, t.r, 5);
    uint64_t hash = sweep__world_state_hash(t.w);
    sweep_wire_entity_state all[4];
    assert_int_equal(sweep__world_entity_states(t.w, 0, all, 4), 4);
    for (uint32_t i = 0; i < 4; i++) {
        wf_clear(t.r);
        sweep_message m = get_msg(20 + i, t.ids[i]);
        wf_request(t.w, &t.server, t.r, &m);
        const sweep_message *a = wf_only(t.r, SWEEP_MSG_ENTITY_STATES);
        assert_ptr_equal(t.r->msgs[0].to, &t.server);
        assert_int_equal(a->sequence, 20 + i);
        assert_int_equal(a->server_tick, 5);
        assert_int_equal(a->as.entity_states.tick, 5);
        assert_int_equal(a->as.entity_states.count, 1);
        assert_int_equal(a->as.entity_states.entity_count, 1);
        assert_memory_equal(&a->as.entity_states.entities[0], &all[i], sizeof all[i]);
    }
    assert_int_equal(sweep__world_state_hash(t.w), hash);

    /* An id nobody has, and one that was despawned. */
    uint32_t nobody = t.ids[0] ^ t.ids[1] ^ t.ids[2] ^ t.ids[3] ^ 0x5a5a5a5au;
    wf_clear(t.r);
    sweep_message m = get_msg(30, nobody);
    wf_request(t.w, &t.server, t.r, &m);
    wf_error(t.r, SWEEP_WIRE_UNKNOWN_ENTITY, 30);
    assert_int_equal(t.r->msgs[0].m.as.error.entity, nobody);
    wf_clear(t.r);
    sweep_message d = wf_despawn_msg(t.ids[3], 4);
    wf_request(t.w, &t.player, t.r, &d);
    wf_clear(t.r);
    m = get_msg(31, t.ids[3]);
    wf_request(t.w, &t.server, t.r, &m);
    wf_error(t.r, SWEEP_WIRE_UNKNOWN_ENTITY, 31);
    two_close(&t);
}

/* A player may not: AuthFailed before the id is even looked up (its own
 * entity or another's, the same words), and those words are the role
 * check's, which sweepd's WatchEntities gives too. */
static void a_player_may_not_get_entities(void **state)
{
    (void)state;
    for (int possible = 0; possible < 2; possible++) {
        sweep__world_options opt = wf_options();
        opt.server_role_possible = possible;
        two t;
        two_open(&t, &opt);
        char why[256];
        assert_int_equal(sweep__role_refusal(SWEEP_MSG_GET_ENTITY, t.player.role, t.w->opt.server_role_possible, why, sizeof why), 1);
        assert_non_null(strstr(why, "GetEntity needs the server role"));
        assert_true((strstr(why, "trusts none") != NULL) == !possible);
        char watch[256];
        assert_int_equal(sweep__role_refusal(SWEEP_MSG_WATCH_ENTITIES, t.player.role, t.w->opt.server_role_possible, watch, sizeof watch), 1);
        assert_string_equal(watch + strlen("WatchEntities"), why + strlen("GetEntity"));
        /* The server role may; nobody needs it for a welcomed kind. */
        assert_int_equal(sweep__role_refusal(SWEEP_MSG_GET_ENTITY, t.server.role, t.w->opt.server_role_possible, watch, sizeof watch), 0);
        assert_int_equal(sweep__role_refusal(SWEEP_MSG_COLLIDE, t.player.role, t.w->opt.server_role_possible, watch, sizeof watch), 0);
        for (uint32_t i = 2; i < 4; i++) {
            wf_clear(t.r);
            sweep_message m = get_msg(40 + i, t.ids[i]);
            wf_request(t.w, &t.player, t.r, &m);
            assert_string_equal(wf_error(t.r, SWEEP_WIRE_AUTH_FAILED, 40 + i), why);
        }
        two_close(&t);
    }
}

/* The Player flag is the player rules' governance: a player's entity,
 * and the server role's spawned with Spawn.player; not its own. */
static void player_flag_is_the_governance(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    sweep__world *w = wf_open(&opt);
    wf_rec *r = wf_rec_new();
    sweep__owner o;
    wf_owner(&o, w, 7, SWEEP_WIRE_ROLE_SERVER, 0);
    wf_spawn_at_id(w, &o, r, 1, 8, 8, 0.9, 0);
    wf_spawn_at_id(w, &o, r, 2, 8, 10, 0.9, 1);
    sweep_wire_entity_state out[2];
    assert_int_equal(sweep__world_entity_states(w, 0, out, 2), 2);
    assert_int_equal(out[0].flags & SWEEP_WIRE_ENTITY_PLAYER, 0);
    assert_int_equal(out[1].flags & SWEEP_WIRE_ENTITY_PLAYER, SWEEP_WIRE_ENTITY_PLAYER);
    sweep__owner_release(&o, NULL);
    sweep__world_close(w);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(states_are_the_entities_in_spawn_order),
        cmocka_unit_test(ground_is_the_movers_id),
        cmocka_unit_test(get_entity_reads_any_owners),
        cmocka_unit_test(a_player_may_not_get_entities),
        cmocka_unit_test(player_flag_is_the_governance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
