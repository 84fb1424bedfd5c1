/*
 * test_spawn.c - entities coming and going in the world library: where a
 * player's Spawn puts it (the map's spawn points, the map's radii, what it
 * asked and did not get named as rules), whose ids it gets (the request's,
 * else the sink's draw), a Spawn resent over UDP answered with the same
 * entity, the refusals (an owner's limit, the sink's memory, no id to give)
 * and what each callback of the sink is told; Despawn (its slot poisoned
 * under AddressSanitizer until reused), and an owner's release freeing all
 * it owns.
 */
#include "tests/world/world_fixture.h"

static sweep_vec3 arena_radii(void)
{
    return sweep_v3(0.4, 0.4, 0.9); /* maps/arena.sql */
}

static void assert_vec3_equal(sweep_vec3 a, sweep_vec3 b)
{
    assert_memory_equal(&a, &b, sizeof a);
}

static void player_spawns_at_a_spawn_point_with_the_map_radii(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    assert_int_equal(s.w->level.spawn_count, 4);
    assert_vec3_equal(s.w->level.default_radii, arena_radii());

    /* The id the request gives, not a drawn one. */
    const uint32_t ids[] = {0x5eed0001u};
    sweep_message m = wf_spawn_msg(1);
    wf_request_ids(s.w, &s.o, s.r, &m, ids, 1);
    const sweep_msg_spawned *sp = &wf_only(s.r, SWEEP_MSG_SPAWNED)->as.spawned;
    assert_int_equal(s.r->msgs[0].m.sequence, 1);
    assert_ptr_equal(s.r->msgs[0].to, &s.o);
    assert_int_equal(sp->entity, 0x5eed0001u);
    assert_int_equal(sp->spawn_point, 1);
    assert_vec3_equal(sp->position, s.w->level.spawns[0]);
    assert_vec3_equal(sp->position, sweep_v3(0, 0, 1));
    assert_vec3_equal(sp->radii, arena_radii());
    assert_int_equal(sp->rules, 0);
    /* Asked whether memory fits, made (+1), its id told, then answered. */
    assert_string_equal(s.r->calls, "f+iM");
    assert_int_equal(s.r->nids, 1);
    assert_int_equal(s.r->ids[0], 0x5eed0001u);
    assert_int_equal(s.r->entities, 1);
    assert_non_null(sweep__world_entity(s.w, &s.o, 0x5eed0001u));
    assert_int_equal(s.w->ent_count, 1);

    /* No ids given: drawn from the sink. Other radii and a position asked
     * are not taken, but named; the next point round robin. */
    wf_clear(s.r);
    m = wf_spawn_msg(2);
    m.as.spawn.radii = sweep_v3(1, 1, 2);
    m.as.spawn.position = sweep_v3(7, 7, 7);
    wf_request(s.w, &s.o, s.r, &m);
    sp = &wf_only(s.r, SWEEP_MSG_SPAWNED)->as.spawned;
    assert_string_equal(s.r->calls, "fr+iM");
    assert_int_equal(sp->entity, s.r->ids[0]);
    assert_int_not_equal(sp->entity, 0);
    assert_int_not_equal(sp->entity, 0x5eed0001u);
    assert_int_equal(sp->spawn_point, 2);
    assert_vec3_equal(sp->position, s.w->level.spawns[1]);
    assert_vec3_equal(sp->radii, arena_radii());
    assert_int_equal(sp->rules, SWEEP_WIRE_RULE_SPAWN_RADII | SWEEP_WIRE_RULE_SPAWN_POSITION);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_SPAWN_RADII_BIT], 1);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_SPAWN_POSITION_BIT], 1);
    assert_int_equal(s.w->counts.rules_total[SWEEP_WIRE_RULE_SPAWN_RADII_BIT], 1);

    /* A given id already living is not given twice: one is drawn instead. */
    wf_clear(s.r);
    m = wf_spawn_msg(3);
    wf_request_ids(s.w, &s.o, s.r, &m, ids, 1);
    sp = &wf_only(s.r, SWEEP_MSG_SPAWNED)->as.spawned;
    assert_int_not_equal(sp->entity, 0x5eed0001u);
    assert_non_null(strchr(s.r->calls, 'r'));
    assert_int_equal(s.w->ent_count, 3);

    wf_one_close(&s);
}

/* One Spawn by o; its answer. */
static sweep_msg_spawned spawned(wf_one *s, sweep__owner *o, const sweep_message *m)
{
    wf_clear(s->r);
    wf_request(s->w, o, s->r, m);
    return wf_only(s->r, SWEEP_MSG_SPAWNED)->as.spawned;
}

/* Every field of a Spawn the server does not take is named with how far
 * off it was: the raw-move limits above the world's, any limit asked for
 * an entity that walks by the map's rules, and the server role's position
 * beside a spawn point; what it takes is not named. */
static void spawn_fields_not_taken_are_named(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_SERVER, 0);
    sweep__owner player;
    wf_owner(&player, s.w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    const sweep_config *cfg = &s.w->level.config;
    const double top = cfg->max_speed, step = cfg->step_height;

    /* The server role's own entity: tighter limits are taken, unnamed. */
    sweep_message m = wf_spawn_at(1, 8, 8, 0.9);
    m.as.spawn.max_speed = top / 2;
    m.as.spawn.step_height = step / 2;
    sweep_msg_spawned sp = spawned(&s, &s.o, &m);
    assert_int_equal(sp.rules, 0);
    const sweep__entity *e = sweep__world_entity(s.w, &s.o, sp.entity);
    assert_true(e->st.m.max_speed == top / 2 && e->st.m.step_height == step / 2);

    /* Looser ones get the world's, named with the excess. */
    m = wf_spawn_at(2, 8, 10, 0.9);
    m.as.spawn.max_speed = top + 7;
    m.as.spawn.step_height = step + 0.25;
    sp = spawned(&s, &s.o, &m);
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_SPEED | SWEEP_WIRE_RULE_SPAWN_STEP);
    e = sweep__world_entity(s.w, &s.o, sp.entity);
    assert_true(e->st.m.max_speed == top && e->st.m.step_height == step);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_SPAWN_SPEED_BIT], 1);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_SPAWN_STEP_BIT], 1);
    assert_int_equal(s.w->counts.rules_total[SWEEP_WIRE_RULE_SPAWN_SPEED_BIT], 1);

    /* Governed by the player rules (Spawn.player), a limit of raw moves
     * means nothing: even a tighter one is named. */
    m = wf_spawn_at(3, 8, 12, 0.9);
    m.as.spawn.player = true;
    m.as.spawn.max_speed = top / 2;
    sp = spawned(&s, &s.o, &m);
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_SPEED);
    assert_true(sp.player);

    /* A spawn point named: the position sent beside it is not taken. */
    m = wf_spawn_at(4, 7, 7, 7);
    m.as.spawn.spawn_point = 3;
    sp = spawned(&s, &s.o, &m);
    assert_int_equal(sp.spawn_point, 3);
    assert_vec3_equal(sp.position, s.w->level.spawns[2]);
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_POSITION);
    m.sequence = 5;
    m.as.spawn.spawn_point = 4;
    m.as.spawn.position = s.w->level.spawns[3]; /* the point's own place: taken */
    assert_int_equal(spawned(&s, &s.o, &m).rules, 0);

    /* A player: every field it may not choose, each named. */
    m = wf_spawn_msg(1);
    m.as.spawn.max_speed = 1.0;
    m.as.spawn.step_height = step;
    m.as.spawn.radii = sweep_v3(1, 1, 2);
    sp = spawned(&s, &player, &m);
    assert_int_equal(sp.rules, SWEEP_WIRE_RULE_SPAWN_SPEED | SWEEP_WIRE_RULE_SPAWN_STEP | SWEEP_WIRE_RULE_SPAWN_RADII);
    assert_int_equal(player.rule_counts[SWEEP_WIRE_RULE_SPAWN_SPEED_BIT], 1);
    m = wf_spawn_msg(2);
    assert_int_equal(spawned(&s, &player, &m).rules, 0);

    sweep__owner_release(&player, NULL);
    wf_one_close(&s);
}

static void udp_spawn_resent_answers_the_same_entity(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s; /* s.o: a player over UDP */
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 1);
    sweep__owner tcp;
    wf_owner(&tcp, s.w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);

    sweep_msg_spawned first = wf_spawn(s.w, &s.o, s.r, 7);
    uint8_t a[512], b[512];
    size_t alen = wf_encode(&s.r->msgs[0].m, a, sizeof a);
    uint64_t hash = sweep__world_state_hash(s.w);

    /* The datagram again: the same answer, nothing made, nothing drawn. */
    sweep_msg_spawned again = wf_spawn(s.w, &s.o, s.r, 7);
    assert_string_equal(s.r->calls, "M");
    assert_int_equal(again.entity, first.entity);
    size_t blen = wf_encode(&s.r->msgs[0].m, b, sizeof b);
    assert_int_equal(blen, alen);
    assert_memory_equal(a, b, alen);
    assert_int_equal(s.o.entity_count, 1);
    assert_int_equal(s.w->ent_count, 1);
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* A new sequence is a new entity. */
    sweep_msg_spawned next = wf_spawn(s.w, &s.o, s.r, 8);
    assert_int_not_equal(next.entity, first.entity);
    assert_int_equal(s.o.entity_count, 2);

    /* Over TCP nothing arrives twice: the same sequence again is a new Spawn. */
    sweep_msg_spawned t1 = wf_spawn(s.w, &tcp, s.r, 7);
    sweep_msg_spawned t2 = wf_spawn(s.w, &tcp, s.r, 7);
    assert_int_not_equal(t1.entity, t2.entity);
    assert_int_equal(tcp.entity_count, 2);

    sweep__owner_release(&tcp, NULL);
    wf_one_close(&s);
}

static void spawn_past_max_entities_is_refused(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.max_entities = 2;
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep__owner other;
    wf_owner(&other, s.w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_spawn(s.w, &s.o, s.r, 1);
    wf_spawn(s.w, &s.o, s.r, 2);
    uint64_t hash = sweep__world_state_hash(s.w);

    wf_clear(s.r);
    sweep_message m = wf_spawn_msg(3);
    wf_request(s.w, &s.o, s.r, &m);
    const char *why = wf_error(s.r, SWEEP_WIRE_TOO_MANY_ENTITIES, 3);
    assert_non_null(strstr(why, "at most 2 entities"));
    assert_string_equal(s.r->calls, "M");
    assert_int_equal(s.o.entity_count, 2);
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* The limit is the owner's, not the world's. */
    wf_spawn(s.w, &other, s.r, 1);
    assert_int_equal(s.w->ent_count, 3);

    /* The server role has a cap of its own: a game server relays many. */
    sweep__owner relay;
    wf_owner(&relay, s.w, 3, SWEEP_WIRE_ROLE_SERVER, 0);
    assert_int_equal(relay.max_entities, opt.max_entities_server);
    assert_true(opt.max_entities_server > 2);
    for (uint32_t k = 0; k < opt.max_entities_server; k++) {
        sweep_message sm = wf_spawn_at(k + 1, 8, 8, 0.9);
        wf_clear(s.r);
        wf_request(s.w, &relay, s.r, &sm);
        assert_non_null(wf_only(s.r, SWEEP_MSG_SPAWNED));
    }
    wf_clear(s.r);
    m = wf_spawn_at(opt.max_entities_server + 1, 8, 8, 0.9);
    wf_request(s.w, &relay, s.r, &m);
    assert_non_null(strstr(wf_error(s.r, SWEEP_WIRE_TOO_MANY_ENTITIES, opt.max_entities_server + 1),
                           "server role may own at most"));
    sweep__owner_release(&relay, NULL);

    sweep__owner_release(&other, NULL);
    wf_one_close(&s);
}

static void no_room_in_memory_refuses_with_the_sinks_why_and_is_dropped(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    uint64_t hash = sweep__world_state_hash(s.w);

    s.r->mem_full = 1;
    s.r->mem_why = "entities hold 9000 bytes of the 8192 --max-entity-memory allows";
    sweep_message m = wf_spawn_msg(1);
    wf_request(s.w, &s.o, s.r, &m);
    const char *why = wf_error(s.r, SWEEP_WIRE_TOO_MANY_ENTITIES, 1);
    assert_non_null(strstr(why, s.r->mem_why));
    /* Dropped first: the process's room is no part of a log, whose
     * replay must not see the request. */
    assert_string_equal(s.r->calls, "fdM");
    assert_int_equal(s.w->ent_count, 0);
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* Room again: the same Spawn goes through. */
    s.r->mem_full = 0;
    sweep_msg_spawned sp = wf_spawn(s.w, &s.o, s.r, 1);
    assert_int_equal(sp.spawn_point, 1);
    assert_int_equal(s.w->ent_count, 1);

    wf_one_close(&s);
}

static void no_id_to_give_is_internal_and_dropped(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    s.r->draw = 0; /* no draw_id, as in a replay */
    uint64_t hash = sweep__world_state_hash(s.w);

    sweep_message m = wf_spawn_msg(1);
    wf_request(s.w, &s.o, s.r, &m);
    const char *why = wf_error(s.r, SWEEP_WIRE_INTERNAL, 1);
    assert_non_null(strstr(why, "no entity id"));
    /* Dropped (a replay must not see it) before the answer; nothing made. */
    assert_string_equal(s.r->calls, "fdM");
    assert_int_equal(s.r->entities, 0);
    assert_int_equal(s.w->ent_count, 0);
    assert_int_equal(s.o.entity_count, 0);
    /* Not even the round robin of spawn points moved. */
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* With an id given it spawns at the point the failed one would have had. */
    const uint32_t ids[] = {42};
    wf_clear(s.r);
    wf_request_ids(s.w, &s.o, s.r, &m, ids, 1);
    const sweep_msg_spawned *sp = &wf_only(s.r, SWEEP_MSG_SPAWNED)->as.spawned;
    assert_int_equal(sp->entity, 42);
    assert_int_equal(sp->spawn_point, 1);

    wf_one_close(&s);
}

static void despawn_answers_despawned(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep_msg_spawned a = wf_spawn(s.w, &s.o, s.r, 1);
    sweep_msg_spawned b = wf_spawn(s.w, &s.o, s.r, 2);

    wf_clear(s.r);
    sweep_message m = wf_despawn_msg(a.entity, 3);
    wf_request(s.w, &s.o, s.r, &m);
    const sweep_message *out = wf_only(s.r, SWEEP_MSG_DESPAWNED);
    assert_int_equal(out->sequence, 3);
    assert_int_equal(out->as.despawned.entity, a.entity);
    assert_int_equal(out->as.despawned.crushed_by, 0);
    assert_string_equal(s.r->calls, "-M");
    assert_int_equal(s.r->entities, -1);
    assert_null(sweep__world_entity(s.w, &s.o, a.entity));
    assert_non_null(sweep__world_entity(s.w, &s.o, b.entity));
    assert_int_equal(s.w->ent_count, 1);
    assert_int_equal(s.w->entities.count, 1);
    assert_int_equal(s.o.entity_count, 1);

    /* Gone is gone. */
    wf_clear(s.r);
    m = wf_despawn_msg(a.entity, 4);
    wf_request(s.w, &s.o, s.r, &m);
    wf_error(s.r, SWEEP_WIRE_UNKNOWN_ENTITY, 4);
    assert_int_equal(s.r->msgs[0].m.as.error.entity, a.entity);
    assert_int_equal(s.w->ent_count, 1);

    wf_one_close(&s);
}

#include "core/compiler.h"

#ifdef SWEEP__ASAN
#include <sanitizer/asan_interface.h>
#endif

/* A despawned entity's slot goes back to its world's pool (entity_pool.c):
 * the next spawn takes it, and until then, under AddressSanitizer, it is
 * poisoned, so that a use of the despawned entity is reported. */
static void a_despawned_slot_is_poisoned_until_reused(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep_msg_spawned a = wf_spawn(s.w, &s.o, s.r, 1);
    sweep__entity *slot = sweep__world_entity(s.w, &s.o, a.entity);
    assert_non_null(slot);
#ifdef SWEEP__ASAN
    assert_false(__asan_address_is_poisoned(slot));
#endif
    wf_clear(s.r);
    sweep_message m = wf_despawn_msg(a.entity, 2);
    wf_request(s.w, &s.o, s.r, &m);
    wf_only(s.r, SWEEP_MSG_DESPAWNED);
#ifdef SWEEP__ASAN
    assert_true(__asan_address_is_poisoned(slot));
    assert_true(__asan_address_is_poisoned((char *)slot + sizeof *slot - 1));
#endif
    sweep_msg_spawned b = wf_spawn(s.w, &s.o, s.r, 3);
    assert_ptr_equal(sweep__world_entity(s.w, &s.o, b.entity), slot);
#ifdef SWEEP__ASAN
    assert_false(__asan_address_is_poisoned(slot));
#endif
    wf_one_close(&s);
}

static void releasing_an_owner_frees_all_it_owns(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s; /* s.o: a player; b: the server role */
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep__owner b;
    wf_owner(&b, s.w, 2, SWEEP_WIRE_ROLE_SERVER, 0);
    uint32_t mine[3];
    for (uint32_t i = 0; i < 3; i++)
        mine[i] = wf_spawn(s.w, &s.o, s.r, i + 1).entity;
    wf_clear(s.r);
    sweep_message m = wf_spawn_at(1, 24, 0, 1); /* the server role's own place: the east wing */
    wf_request(s.w, &b, s.r, &m);
    uint32_t theirs = wf_only(s.r, SWEEP_MSG_SPAWNED)->as.spawned.entity;
    assert_int_equal(s.w->ent_count, 4);

    wf_clear(s.r);
    sweep__world_sink sink = wf_sink(s.r);
    sweep__owner_release(&s.o, &sink);
    assert_string_equal(s.r->calls, "---");
    assert_int_equal(s.r->entities, -3);
    assert_int_equal(s.o.entity_count, 0);
    assert_null(s.o.entities);
    for (uint32_t i = 0; i < 3; i++)
        assert_null(sweep__world_entity(s.w, &s.o, mine[i]));
    assert_int_equal(s.w->ent_count, 1);
    assert_int_equal(s.w->entities.count, 1);
    assert_ptr_equal(s.w->ents[0], sweep__world_entity(s.w, &b, theirs));
    sweep__world_check(s.w);

    sweep__owner_release(&b, &sink);
    assert_int_equal(s.w->ent_count, 0);
    assert_int_equal(s.w->entities.count, 0);
    sweep__world_check(s.w);
    wf_one_close(&s);
}

/* "Occupied" is said only of another entity: a spawn point sunk into the
 * floor is named as inside the level's geometry, one inside a mover as
 * blocked by that mover, and one a player stands on (with players
 * blocking) as occupied by that player's entity. */
static void a_refused_spawn_point_names_what_is_there(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.players_block = 1;
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep_vec3 first = s.w->level.spawns[0];
    s.w->level.spawns[0] = sweep_v3(first.x, first.y, first.z - 0.5); /* half sunk into the floor */
    sweep_message m = wf_spawn_msg(1);
    m.as.spawn.spawn_point = 1;
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &m);
    const char *text = wf_error(s.r, SWEEP_WIRE_SPAWN_REFUSED, 1);
    char want[160];
    snprintf(want, sizeof want, "spawn point 1 is inside the level's geometry at (%g, %g, %g)", first.x, first.y,
             first.z - 0.5);
    if (!strstr(text, want) || strstr(text, "occupied"))
        fail_msg("'%s' does not say '%s'", text, want);

    /* Against the sliding door (the arena's mover 1: a slab 0.1 thick
     * across x, 1.5 wide and 2.5 tall above its position, in a doorway),
     * half a radius from its face: blocked by that mover, by its number and
     * name. (A centre inside a closed mesh is behind all its faces and
     * touches none, so the point is beside the door, not in it.) */
    sweep_mover_pose door;
    sweep_movers_get(s.w->movers, 0, &door, NULL);
    sweep_vec3 in_door = sweep_v3(door.position.x + 0.05 + 0.5 * s.w->level.default_radii.x, door.position.y,
                                  door.position.z + 1.25);
    s.w->level.spawns[0] = in_door;
    m = wf_spawn_msg(4);
    m.as.spawn.spawn_point = 1;
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &m);
    text = wf_error(s.r, SWEEP_WIRE_SPAWN_REFUSED, 4);
    snprintf(want, sizeof want, "spawn point 1 at (%g, %g, %g) is blocked by mover 1 ", in_door.x, in_door.y, in_door.z);
    if (!strstr(text, want) || !strstr(text, "sliding door") || strstr(text, "occupied"))
        fail_msg("'%s' does not say '%s' and the door's name", text, want);

    s.w->level.spawns[0] = first;
    sweep_msg_spawned sp = wf_spawn_point(s.w, &s.o, s.r, 2, 1);
    sweep__owner other;
    wf_owner(&other, s.w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    m = wf_spawn_msg(3);
    m.as.spawn.spawn_point = 1;
    wf_clear(s.r);
    wf_request(s.w, &other, s.r, &m);
    text = wf_error(s.r, SWEEP_WIRE_SPAWN_REFUSED, 3);
    snprintf(want, sizeof want, "spawn point 1 is occupied by entity %u", sp.entity);
    if (strcmp(text, want) != 0)
        fail_msg("'%s' is not '%s'", text, want);
    sweep__owner_release(&other, NULL);
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(player_spawns_at_a_spawn_point_with_the_map_radii),
        cmocka_unit_test(spawn_fields_not_taken_are_named),
        cmocka_unit_test(udp_spawn_resent_answers_the_same_entity),
        cmocka_unit_test(spawn_past_max_entities_is_refused),
        cmocka_unit_test(no_room_in_memory_refuses_with_the_sinks_why_and_is_dropped),
        cmocka_unit_test(no_id_to_give_is_internal_and_dropped),
        cmocka_unit_test(despawn_answers_despawned),
        cmocka_unit_test(a_despawned_slot_is_poisoned_until_reused),
        cmocka_unit_test(releasing_an_owner_frees_all_it_owns),
        cmocka_unit_test(a_refused_spawn_point_names_what_is_there),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
