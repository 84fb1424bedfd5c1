/*
 * test_player_rules.c - an entity a game server relays (the server role,
 * Spawn.player) moves by the player rules exactly as a player's own does.
 *
 * Each scripted cheat (speed, time dilation, a move flood, a lag switch,
 * flying, a vertical wish, teleporting by claim, no-clip) runs twice on
 * twin worlds: once sent by a player for its entity, once relayed by a
 * server-role owner for an entity it spawned with Spawn.player. Every
 * MoveResult must be the same bytes, every Error the same code, and the
 * same rules counted: whatever a player is prevented from and named for,
 * a relayed player is too. The server role's own entities stay unbudgeted
 * and may fly (the control).
 */
#include "world_fixture.h"

#define DT (1.0 / 60.0)

typedef struct step {
    int ticks_before;   /* world ticks before the move */
    uint8_t mode;       /* SWEEP_WIRE_MODE_* */
    sweep_vec3 wish;
    double dt;
    uint32_t buttons;
    int claim;          /* has a claimed position ... */
    sweep_vec3 claimed; /* ... this one */
} step;

typedef struct script {
    const char *name;
    step steps[64];
    uint32_t count;
    uint32_t rule; /* the rule bit the cheat must be named for (0: an Error instead) */
    sweep_wire_code code; /* the Error's code when rule is 0 */
} script;

/* One side of the comparison: a world with the entity spawned at the map's
 * first point, owned by a player or relayed by the server role. */
typedef struct side {
    sweep__world *w;
    wf_rec *r;
    sweep__owner o;
    uint32_t entity;
} side;

static void side_open(side *s, uint32_t role, int relayed)
{
    sweep__world_options opt = wf_options();
    opt.allow_free_move = 1; /* the server role's own entities may fly: the control */
    s->w = wf_open(&opt);
    s->r = wf_rec_new();
    wf_owner(&s->o, s->w, 7, role, 0);
    sweep_message m = wf_spawn_msg(1);
    m.as.spawn.spawn_point = 1;
    m.as.spawn.player = relayed;
    static const uint32_t id = 4242;
    wf_clear(s->r);
    wf_request_ids(s->w, &s->o, s->r, &m, &id, 1);
    const sweep_message *sp = wf_only(s->r, SWEEP_MSG_SPAWNED);
    assert_non_null(sp);
    assert_int_equal(sp->as.spawned.entity, id);
    /* Spawned.player echoes a server role's request only. */
    assert_int_equal(sp->as.spawned.player, relayed && role == SWEEP_WIRE_ROLE_SERVER);
    s->entity = id;
}

static void side_close(side *s)
{
    sweep__owner_release(&s->o, NULL);
    sweep__world_close(s->w);
    free(s->r);
}

/* Runs step k of sc on s: what it answered is in s->r. */
static void side_step(side *s, const script *sc, uint32_t k)
{
    const step *st = &sc->steps[k];
    wf_ticks(s->w, s->r, (unsigned)st->ticks_before);
    sweep_message m = wf_move_msg(s->entity, k + 2, st->wish, st->dt);
    m.as.move.mode = st->mode;
    m.as.move.buttons = st->buttons;
    m.as.move.has_claimed_position = st->claim != 0;
    m.as.move.claimed_position = st->claimed;
    wf_clear(s->r);
    wf_request(s->w, &s->o, s->r, &m);
    assert_int_equal(s->r->nmsgs, 1);
}

/* The same answer: a MoveResult's bytes, or an Error's code and sequence
 * (its words may say which role sent it). */
static void same_answer(const script *sc, uint32_t k, const sweep_message *a, const sweep_message *b)
{
    if (a->kind != b->kind)
        fail_msg("%s, move %u: a player got %s, a relayed player %s", sc->name, k, sweep_msg_kind_name(a->kind),
                 sweep_msg_kind_name(b->kind));
    if (a->kind == SWEEP_MSG_ERROR) {
        assert_int_equal(a->as.error.code, b->as.error.code);
        assert_int_equal(a->as.error.sequence, b->as.error.sequence);
        return;
    }
    uint8_t x[2048], y[2048];
    size_t nx = wf_encode(a, x, sizeof x), ny = wf_encode(b, y, sizeof y);
    if (nx != ny || memcmp(x, y, nx) != 0)
        fail_msg("%s, move %u: the MoveResults differ", sc->name, k);
}

/* The scripts. Walk speed on the arena is its map rule; 40 u/s is far
 * above it. */
static uint32_t scripts(script *out)
{
    uint32_t n = 0;
    script *s;

    s = &out[n++];
    *s = (script){.name = "speed", .rule = SWEEP_WIRE_RULE_SPEED};
    for (uint32_t i = 0; i < 30; i++)
        s->steps[s->count++] = (step){1, SWEEP_WIRE_MODE_WALK, {40, 0, 0}, DT, 0, 0, {0, 0, 0}};

    s = &out[n++];
    *s = (script){.name = "time dilation", .rule = SWEEP_WIRE_RULE_TIME_BUDGET};
    for (uint32_t i = 0; i < 30; i++)
        s->steps[s->count++] = (step){1, SWEEP_WIRE_MODE_WALK, {2, 0, 0}, 3 * DT, 0, 0, {0, 0, 0}};

    s = &out[n++];
    *s = (script){.name = "move flood", .rule = SWEEP_WIRE_RULE_TIME_BUDGET};
    for (uint32_t i = 0; i < 40; i++)
        s->steps[s->count++] = (step){0, SWEEP_WIRE_MODE_WALK, {2, 0, 0}, DT, 0, 0, {0, 0, 0}};

    s = &out[n++];
    *s = (script){.name = "lag switch", .rule = SWEEP_WIRE_RULE_TIME_BUDGET};
    s->steps[s->count++] = (step){120, SWEEP_WIRE_MODE_WALK, {2, 0, 0}, DT, 0, 0, {0, 0, 0}};
    for (uint32_t i = 0; i < 40; i++)
        s->steps[s->count++] = (step){0, SWEEP_WIRE_MODE_WALK, {2, 0, 0}, 2 * DT, 0, 0, {0, 0, 0}};

    s = &out[n++];
    *s = (script){.name = "vertical wish", .rule = SWEEP_WIRE_RULE_VERTICAL};
    for (uint32_t i = 0; i < 20; i++)
        s->steps[s->count++] = (step){1, SWEEP_WIRE_MODE_WALK, {0, 0, 9}, DT, 0, 0, {0, 0, 0}};

    s = &out[n++];
    *s = (script){.name = "teleport by claim", .rule = SWEEP_WIRE_RULE_CORRECTION};
    for (uint32_t i = 0; i < 20; i++)
        s->steps[s->count++] = (step){1, SWEEP_WIRE_MODE_WALK, {1, 0, 0}, DT, 0, 1, {100, 100, 1}};

    s = &out[n++];
    *s = (script){.name = "fly", .rule = 0, .code = SWEEP_WIRE_NOT_ALLOWED};
    for (uint32_t i = 0; i < 5; i++)
        s->steps[s->count++] = (step){1, SWEEP_WIRE_MODE_FLY, {0, 0, 5}, DT, 0, 0, {0, 0, 0}};

    s = &out[n++];
    *s = (script){.name = "no-clip", .rule = 0, .code = SWEEP_WIRE_NOT_ALLOWED};
    for (uint32_t i = 0; i < 5; i++)
        s->steps[s->count++] = (step){1, SWEEP_WIRE_MODE_NOCLIP, {30, 0, 0}, DT, 0, 0, {0, 0, 0}};
    return n;
}

static void relayed_player_is_held_to_the_player_rules(void **state)
{
    (void)state;
    static script sc[16];
    uint32_t n = scripts(sc);
    for (uint32_t i = 0; i < n; i++) {
        side player, relay;
        side_open(&player, SWEEP_WIRE_ROLE_PLAYER, 0);
        side_open(&relay, SWEEP_WIRE_ROLE_SERVER, 1);
        int named = 0, refused = 0;
        for (uint32_t k = 0; k < sc[i].count; k++) {
            side_step(&player, &sc[i], k);
            side_step(&relay, &sc[i], k);
            const sweep_message *a = &player.r->msgs[0].m, *b = &relay.r->msgs[0].m;
            same_answer(&sc[i], k, a, b);
            if (a->kind == SWEEP_MSG_MOVE_RESULT && (a->as.move_result.rules & sc[i].rule))
                named++;
            if (a->kind == SWEEP_MSG_ERROR && a->as.error.code == sc[i].code)
                refused++;
        }
        /* The cheat was prevented and named, for both alike. */
        if (sc[i].rule ? named == 0 : refused != (int)sc[i].count)
            fail_msg("%s: the cheat was not named (%d rules, %d refusals)", sc[i].name, named, refused);
        assert_memory_equal(player.o.rule_counts, relay.o.rule_counts, sizeof player.o.rule_counts);
        side_close(&player);
        side_close(&relay);
    }
}

/* The server role's own entity (no Spawn.player) is neither budgeted nor
 * held to Walk; its relayed player's is both, in the same world. */
static void server_roles_own_entity_stays_raw(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.allow_free_move = 1;
    sweep__world *w = wf_open(&opt);
    wf_rec *r = wf_rec_new();
    sweep__owner o;
    wf_owner(&o, w, 7, SWEEP_WIRE_ROLE_SERVER, 0);
    uint32_t own = wf_spawn_at_id(w, &o, r, 1, 8, 8, 0.9, 0);
    uint32_t relayed = wf_spawn_at_id(w, &o, r, 2, 8, 10, 0.9, 1);

    /* Three periods a move, one tick between: the relayed one is cut. */
    uint32_t cut_own = 0, cut_relayed = 0;
    for (uint32_t k = 0; k < 30; k++) {
        wf_ticks(w, r, 1);
        sweep_message m = wf_move_msg(own, 10 + k, sweep_v3(2, 0, 0), 3 * DT);
        cut_own += (wf_move(w, &o, r, &m).rules & SWEEP_WIRE_RULE_TIME_BUDGET) != 0;
        m = wf_move_msg(relayed, 10 + k, sweep_v3(2, 0, 0), 3 * DT);
        cut_relayed += (wf_move(w, &o, r, &m).rules & SWEEP_WIRE_RULE_TIME_BUDGET) != 0;
    }
    assert_int_equal(cut_own, 0);
    assert_true(cut_relayed > 0);

    /* Fly: the server role's own entity may; the relayed player may not,
     * and the refusal says why. */
    sweep_message fly = wf_move_msg(own, 100, sweep_v3(0, 0, 2), DT);
    fly.as.move.mode = SWEEP_WIRE_MODE_FLY;
    assert_int_equal(wf_move(w, &o, r, &fly).sequence, 100);
    fly = wf_move_msg(relayed, 100, sweep_v3(0, 0, 2), DT);
    fly.as.move.mode = SWEEP_WIRE_MODE_FLY;
    wf_clear(r);
    wf_request(w, &o, r, &fly);
    assert_non_null(strstr(wf_error(r, SWEEP_WIRE_NOT_ALLOWED, 100), "governed by the player rules"));

    sweep__owner_release(&o, NULL);
    sweep__world_close(w);
    free(r);
}

/* A governed entity of the server role changes the state hash; a world
 * without any hashes as before the field existed (the golden logs'). */
static void governed_entity_is_in_the_state_hash(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    uint64_t h[2];
    for (int relayed = 0; relayed < 2; relayed++) {
        sweep__world *w = wf_open(&opt);
        wf_rec *r = wf_rec_new();
        sweep__owner o;
        wf_owner(&o, w, 7, SWEEP_WIRE_ROLE_SERVER, 0);
        wf_spawn_at_id(w, &o, r, 1, 8, 8, 0.9, relayed);
        h[relayed] = sweep__world_state_hash(w);
        sweep__owner_release(&o, NULL);
        sweep__world_close(w);
        free(r);
    }
    assert_true(h[0] != h[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relayed_player_is_held_to_the_player_rules),
        cmocka_unit_test(server_roles_own_entity_stays_raw),
        cmocka_unit_test(governed_entity_is_in_the_state_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
