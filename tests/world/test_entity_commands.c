/*
 * test_entity_commands.c - EntityCommands in the world library: the
 * server role acts on any owner's entity (Teleport, SetVelocity,
 * AddImpulse, SetRadii, Despawn), each command with its own result in
 * order, each refusal named and changing nothing, and what each leaves
 * of the entity is what its next move starts from. A player session is
 * refused whole (AuthFailed), and so is a message above max_batch.
 * Places are the arena's (maps/arena.sql): open floor around (0, -6), the
 * low ceiling (x in [-16, -10], y in [-2, 2], z in [1.2, 1.5]) and the
 * thin wall (x in [-16, -8], y in [8, 8.05], 3 m high).
 */
#include "tests/world/world_fixture.h"

/* A game server and a player in one world, the player's entity spawned
 * at the map's first point (0, 0, 1). */
typedef struct two {
    sweep__world *w;
    wf_rec *r;
    sweep__owner game, player;
    uint32_t e; /* the player's entity */
} two;

static void two_open(two *t, const sweep__world_options *opt)
{
    memset(t, 0, sizeof *t);
    t->w = wf_open(opt);
    t->r = wf_rec_new();
    wf_owner(&t->game, t->w, 10, SWEEP_WIRE_ROLE_SERVER, 0);
    wf_owner(&t->player, t->w, 20, SWEEP_WIRE_ROLE_PLAYER, 0);
    t->e = wf_spawn_point(t->w, &t->player, t->r, 1, 1).entity;
}

static void two_close(two *t)
{
    sweep__owner_release(&t->player, NULL);
    sweep__owner_release(&t->game, NULL);
    sweep__world_close(t->w);
    free(t->r);
}

static sweep_msg_entity_command cmd(uint32_t entity, uint32_t op, double x, double y, double z)
{
    sweep_msg_entity_command c = {.entity = entity, .op = (uint8_t)op, .vector = sweep_v3(x, y, z)};
    return c;
}

static sweep_message commands_msg(uint32_t sequence, const sweep_msg_entity_command *c, uint32_t n)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_ENTITY_COMMANDS;
    m.sequence = sequence;
    m.as.entity_commands.commands = c;
    m.as.entity_commands.count = n;
    return m;
}

/* Sends the commands as `from` and returns the EntityCommandsResult. */
static const sweep_msg_entity_commands_result *send_commands(two *t, sweep__owner *from, uint32_t sequence,
                                                             const sweep_msg_entity_command *c, uint32_t n)
{
    sweep_message m = commands_msg(sequence, c, n);
    wf_clear(t->r);
    wf_request(t->w, from, t->r, &m);
    /* The answer is the last message: a Despawned to another owner comes before it. */
    assert_true(t->r->nmsgs >= 1);
    const sweep_message *out = &t->r->msgs[t->r->nmsgs - 1].m;
    if (out->kind != SWEEP_MSG_ENTITY_COMMANDS_RESULT)
        fail_msg("expected EntityCommandsResult, got %s%s%s", sweep_msg_kind_name(out->kind),
                 out->kind == SWEEP_MSG_ERROR ? ": " : "", out->kind == SWEEP_MSG_ERROR ? t->r->msgs[0].text : "");
    assert_int_equal(out->sequence, sequence);
    assert_int_equal(t->r->msgs[t->r->nmsgs - 1].to, from);
    assert_int_equal(out->as.entity_commands_result.count, n);
    return &out->as.entity_commands_result;
}

static const sweep_msg_entity_command_result *one(two *t, uint32_t sequence, sweep_msg_entity_command c)
{
    return &send_commands(t, &t->game, sequence, &c, 1)->results[0];
}

static sweep__entity *entity(const two *t)
{
    sweep__entity *e = sweep__world_entity(t->w, &t->player, t->e);
    assert_non_null(e);
    return e;
}

static void expect_code(const sweep_msg_entity_command_result *r, sweep_wire_code code)
{
    if (r->code != code)
        fail_msg("expected %s, got %s: %.*s", sweep_wire_code_name(code), sweep_wire_code_name(r->code),
                 (int)r->message.len, r->message.ptr ? r->message.ptr : "");
    if (code == SWEEP_WIRE_NONE)
        assert_int_equal(r->message.len, 0);
    else
        assert_true(r->message.len > 0);
}

static int same_vec(sweep_vec3 a, sweep_vec3 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Walks the player's entity with no wish until it stands. */
static sweep_msg_move_result settle(two *t, uint32_t *seq)
{
    sweep_msg_move_result res;
    for (int i = 0; i < 60; i++) {
        wf_ticks(t->w, t->r, 2);
        sweep_message mv = wf_move_msg(t->e, (*seq)++, sweep_v3(0, 0, 0), 1.0 / 30.0);
        res = wf_move(t->w, &t->player, t->r, &mv);
        if (res.grounded)
            return res;
    }
    fail_msg("the entity never stood");
    return res;
}

static void a_player_is_refused_whole(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    uint64_t hash = sweep__world_state_hash(t.w);
    sweep_msg_entity_command c = cmd(t.e, SWEEP_WIRE_OP_TELEPORT, 0, -6, 1);
    sweep_message m = commands_msg(4, &c, 1);
    wf_clear(t.r);
    wf_request(t.w, &t.player, t.r, &m);
    assert_non_null(strstr(wf_error(t.r, SWEEP_WIRE_AUTH_FAILED, 4), "EntityCommands needs the server role"));
    assert_int_equal(sweep__world_state_hash(t.w), hash);
    two_close(&t);
}

static void a_teleport_places_any_owners_entity(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t, twin;
    two_open(&t, &opt);
    two_open(&twin, &opt);
    uint32_t seq = 2;
    settle(&t, &seq);
    uint32_t tseq = 2;
    settle(&twin, &tseq);
    /* A velocity to keep, then the teleport. */
    sweep_msg_entity_command c[2] = {cmd(t.e, SWEEP_WIRE_OP_SET_VELOCITY, 1, 0, 0),
                                     cmd(t.e, SWEEP_WIRE_OP_TELEPORT, 0, -6, 1)};
    const sweep_msg_entity_commands_result *er = send_commands(&t, &t.game, 30, c, 2);
    expect_code(&er->results[0], SWEEP_WIRE_NONE);
    expect_code(&er->results[1], SWEEP_WIRE_NONE);
    const sweep_msg_entity_command_result *r = &er->results[1];
    assert_int_equal(r->entity, t.e);
    assert_int_equal(r->op, SWEEP_WIRE_OP_TELEPORT);
    assert_true(r->has_state);
    assert_true(same_vec(r->position, sweep_v3(0, -6, 1)));
    assert_true(same_vec(r->velocity, sweep_v3(1, 0, 0))); /* kept */
    assert_true(same_vec(r->radii, sweep_v3(0.4, 0.4, 0.9)));
    assert_int_equal(r->flags, 0);
    sweep__entity *e = entity(&t);
    assert_int_equal(e->st.m.actor.grounded, 0);
    assert_true(e->unflagged_until > t.w->tick);
    assert_int_not_equal(sweep__world_state_hash(t.w), sweep__world_state_hash(twin.w));

    /* The player's next move starts there, says so, and a claim from
     * before it is not flagged. */
    wf_ticks(t.w, t.r, 1);
    sweep_message mv = wf_move_msg(t.e, seq++, sweep_v3(0, 0, 0), 1.0 / 60.0);
    mv.as.move.has_claimed_position = 1;
    mv.as.move.claimed_position = sweep_v3(0, 0, 0.9);
    sweep_msg_move_result res = wf_move(t.w, &t.player, t.r, &mv);
    assert_true(res.has_start_position);
    assert_true(same_vec(res.start_position, sweep_v3(0, -6, 1)));
    assert_false(res.corrected);
    assert_false(res.pushed);
    assert_false(res.carried);
    assert_int_equal(res.pushed_by, 0);
    assert_true(fabs(res.position.y + 6.0) < 0.1);
    /* Told once. */
    wf_ticks(t.w, t.r, 1);
    mv = wf_move_msg(t.e, seq++, sweep_v3(0, 0, 0), 1.0 / 60.0);
    res = wf_move(t.w, &t.player, t.r, &mv);
    assert_false(res.has_start_position);
    two_close(&t);
    two_close(&twin);
}

static void an_occupied_target_is_pushed_out_or_refused(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    /* In the floor: the first free place above it, a quarter of the
     * half-height (0.225) at a time. */
    const sweep_msg_entity_command_result *r = one(&t, 3, cmd(t.e, SWEEP_WIRE_OP_TELEPORT, 0, -6, 0.5));
    expect_code(r, SWEEP_WIRE_NONE);
    assert_int_equal(r->flags, SWEEP_WIRE_COMMAND_PUSHED_OUT);
    assert_true(r->position.x == 0 && r->position.y == -6);
    assert_true(r->position.z > 0.9 && r->position.z <= 0.5 + 3 * 0.225);
    assert_true(same_vec(entity(&t)->st.m.actor.position, r->position));

    /* Against the thin wall, 3 m high: nothing free within its height. */
    sweep_vec3 before = entity(&t)->st.m.actor.position;
    uint64_t hash = sweep__world_state_hash(t.w);
    r = one(&t, 4, cmd(t.e, SWEEP_WIRE_OP_TELEPORT, -12, 7.8, 1));
    expect_code(r, SWEEP_WIRE_NO_ROOM);
    assert_non_null(strstr(r->message.ptr, "the level (triangle"));
    assert_true(r->has_state);
    assert_true(same_vec(r->position, before)); /* as it was */
    assert_int_equal(r->flags, 0);
    assert_int_equal(sweep__world_state_hash(t.w), hash);

    /* Numbers: NaN, and beyond the coordinate limit. */
    r = one(&t, 5, cmd(t.e, SWEEP_WIRE_OP_TELEPORT, NAN, 0, 1));
    expect_code(r, SWEEP_WIRE_BAD_NUMBER);
    r = one(&t, 6, cmd(t.e, SWEEP_WIRE_OP_TELEPORT, 2e7, 0, 1));
    expect_code(r, SWEEP_WIRE_BAD_POSITION);
    assert_int_equal(sweep__world_state_hash(t.w), hash);
    two_close(&t);
}

static void a_teleport_onto_a_blocking_entity_lands_on_it(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.players_block = 1;
    two t;
    two_open(&t, &opt);
    uint32_t other = wf_spawn_point(t.w, &t.game, t.r, 2, 2).entity; /* (4, 0, 1) */
    const sweep_msg_entity_command_result *r = one(&t, 3, cmd(t.e, SWEEP_WIRE_OP_TELEPORT, 4, 0, 1));
    expect_code(r, SWEEP_WIRE_NONE);
    assert_int_equal(r->flags, SWEEP_WIRE_COMMAND_PUSHED_OUT);
    assert_true(r->position.z >= 1 + 1.8); /* above the other's box */
    /* Its shell went with it: a shape dropped onto the place meets it. */
    sweep_message q;
    memset(&q, 0, sizeof q);
    q.kind = SWEEP_MSG_COLLIDE;
    q.sequence = 4;
    q.as.collide.position = sweep_v3(4, 0, 8);
    q.as.collide.radii = sweep_v3(0.2, 0.2, 0.2);
    q.as.collide.velocity = sweep_v3(0, 0, -10);
    q.as.collide.dt = 1.0;
    wf_clear(t.r);
    wf_request(t.w, &t.game, t.r, &q);
    const sweep_message *cr = wf_only(t.r, SWEEP_MSG_COLLIDE_RESULT);
    assert_true(cr->as.collide_result.position.z > r->position.z + 0.9);
    (void)other;
    two_close(&t);
}

static void velocities_are_checked_and_kept_for_the_next_move(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    uint32_t seq = 2;
    settle(&t, &seq);
    uint64_t hash = sweep__world_state_hash(t.w);
    double max = t.w->level.config.max_speed;
    const sweep_msg_entity_command_result *r = one(&t, 3, cmd(t.e, SWEEP_WIRE_OP_SET_VELOCITY, max + 1, 0, 0));
    expect_code(r, SWEEP_WIRE_BAD_VELOCITY);
    assert_non_null(strstr(r->message.ptr, "max_speed"));
    r = one(&t, 4, cmd(t.e, SWEEP_WIRE_OP_SET_VELOCITY, INFINITY, 0, 0));
    expect_code(r, SWEEP_WIRE_BAD_NUMBER);
    r = one(&t, 5, cmd(t.e, SWEEP_WIRE_OP_ADD_IMPULSE, 0, NAN, 0));
    expect_code(r, SWEEP_WIRE_BAD_NUMBER);
    assert_int_equal(sweep__world_state_hash(t.w), hash);

    /* Along the ground: still grounded. */
    r = one(&t, 6, cmd(t.e, SWEEP_WIRE_OP_SET_VELOCITY, 3, 0, 0));
    expect_code(r, SWEEP_WIRE_NONE);
    assert_true(same_vec(r->velocity, sweep_v3(3, 0, 0)));
    assert_int_equal(entity(&t)->st.m.actor.grounded, 1);
    /* An impulse adds; one that would pass max_speed is refused. */
    r = one(&t, 7, cmd(t.e, SWEEP_WIRE_OP_ADD_IMPULSE, max, 0, 0));
    expect_code(r, SWEEP_WIRE_BAD_VELOCITY);
    assert_true(same_vec(r->velocity, sweep_v3(3, 0, 0)));
    /* Upward: no longer grounded, so its next move keeps it (a grounded
     * motion drops velocity along up). */
    r = one(&t, 8, cmd(t.e, SWEEP_WIRE_OP_ADD_IMPULSE, 0, 0, 6));
    expect_code(r, SWEEP_WIRE_NONE);
    assert_true(same_vec(r->velocity, sweep_v3(3, 0, 6)));
    assert_int_equal(entity(&t)->st.m.actor.grounded, 0);
    sweep_vec3 at = r->position;
    wf_ticks(t.w, t.r, 2);
    sweep_message mv = wf_move_msg(t.e, seq++, sweep_v3(0, 0, 0), 1.0 / 30.0);
    sweep_msg_move_result res = wf_move(t.w, &t.player, t.r, &mv);
    assert_true(res.position.z > at.z + 0.1);
    assert_true(res.position.x > at.x + 0.05);
    assert_false(res.grounded);
    assert_false(res.has_start_position); /* nothing placed it */
    two_close(&t);
}

static void an_impulse_does_not_carry_through_the_thin_wall(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    /* Before the wall's -y face (y = 8), then 50 m/s at it: 1.7 m a move,
     * far more than the wall's 5 cm. */
    sweep_msg_entity_command c[2] = {cmd(t.e, SWEEP_WIRE_OP_TELEPORT, -12, 7.3, 1),
                                     cmd(t.e, SWEEP_WIRE_OP_ADD_IMPULSE, 0, 50, 0)};
    const sweep_msg_entity_commands_result *er = send_commands(&t, &t.game, 3, c, 2);
    expect_code(&er->results[0], SWEEP_WIRE_NONE);
    expect_code(&er->results[1], SWEEP_WIRE_NONE);
    assert_true(same_vec(er->results[1].position, sweep_v3(-12, 7.3, 1))); /* not moved yet */
    uint32_t seq = 2;
    for (int i = 0; i < 10; i++) {
        wf_ticks(t.w, t.r, 2);
        sweep_message mv = wf_move_msg(t.e, seq++, sweep_v3(0, 0, 0), 1.0 / 30.0);
        sweep_msg_move_result res = wf_move(t.w, &t.player, t.r, &mv);
        assert_true(res.position.y <= 8.0 - 0.4 + 1e-3);
        if (i == 0)
            assert_true(res.contact_count > 0);
    }
    two_close(&t);
}

static void radii_change_where_there_is_room(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    uint32_t seq = 2;
    /* Out of the map's limits, or no numbers. */
    const sweep_msg_entity_command_result *r = one(&t, 3, cmd(t.e, SWEEP_WIRE_OP_SET_RADII, 0, 0, 0));
    expect_code(r, SWEEP_WIRE_BAD_RADII);
    r = one(&t, 4, cmd(t.e, SWEEP_WIRE_OP_SET_RADII, 0.4, NAN, 0.5));
    expect_code(r, SWEEP_WIRE_BAD_NUMBER);
    /* Crouched, it fits under the low ceiling (1.2 m of headroom). */
    sweep_msg_entity_command c[2] = {cmd(t.e, SWEEP_WIRE_OP_SET_RADII, 0.4, 0.4, 0.5),
                                     cmd(t.e, SWEEP_WIRE_OP_TELEPORT, -13, 0, 0.55)};
    const sweep_msg_entity_commands_result *er = send_commands(&t, &t.game, 5, c, 2);
    expect_code(&er->results[0], SWEEP_WIRE_NONE);
    expect_code(&er->results[1], SWEEP_WIRE_NONE);
    assert_int_equal(er->results[1].flags, 0);
    assert_true(same_vec(er->results[1].radii, sweep_v3(0.4, 0.4, 0.5)));
    sweep_msg_move_result res = settle(&t, &seq);
    /* Standing up there is refused, the ceiling named. */
    uint64_t hash = sweep__world_state_hash(t.w);
    r = one(&t, 6, cmd(t.e, SWEEP_WIRE_OP_SET_RADII, 0.4, 0.4, 0.9));
    expect_code(r, SWEEP_WIRE_NO_ROOM);
    assert_non_null(strstr(r->message.ptr, "the level"));
    assert_true(same_vec(r->radii, sweep_v3(0.4, 0.4, 0.5)));
    assert_true(same_vec(r->position, res.position));
    assert_int_equal(sweep__world_state_hash(t.w), hash);
    /* Crouching lower keeps its feet on the floor: the centre goes down
     * by the change of its half-height, and it stays grounded. */
    r = one(&t, 7, cmd(t.e, SWEEP_WIRE_OP_SET_RADII, 0.4, 0.4, 0.45));
    expect_code(r, SWEEP_WIRE_NONE);
    assert_true(fabs(r->position.z - (res.position.z - 0.05)) < 1e-12);
    assert_int_equal(entity(&t)->st.m.actor.grounded, 1);
    /* Out in the open it stands up, feet kept. */
    r = one(&t, 8, cmd(t.e, SWEEP_WIRE_OP_TELEPORT, -13, -6, 0.5));
    expect_code(r, SWEEP_WIRE_NONE);
    res = settle(&t, &seq);
    r = one(&t, 9, cmd(t.e, SWEEP_WIRE_OP_SET_RADII, 0.4, 0.4, 0.9));
    expect_code(r, SWEEP_WIRE_NONE);
    assert_true(fabs(r->position.z - (res.position.z + 0.45)) < 1e-12);
    assert_true(same_vec(entity(&t)->st.m.radii, sweep_v3(0.4, 0.4, 0.9)));
    assert_int_equal(entity(&t)->st.m.actor.grounded, 1);
    two_close(&t);
}

static void a_despawn_tells_the_owner(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    uint32_t mine = wf_spawn_point(t.w, &t.game, t.r, 2, 2).entity;
    sweep_msg_entity_command c[3] = {cmd(t.e, SWEEP_WIRE_OP_DESPAWN, 0, 0, 0),
                                     cmd(t.e, SWEEP_WIRE_OP_SET_VELOCITY, 1, 0, 0),
                                     cmd(mine, SWEEP_WIRE_OP_DESPAWN, 0, 0, 0)};
    const sweep_msg_entity_commands_result *er = send_commands(&t, &t.game, 3, c, 3);
    expect_code(&er->results[0], SWEEP_WIRE_NONE);
    assert_false(er->results[0].has_state);
    /* Gone for the commands after it. */
    expect_code(&er->results[1], SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_false(er->results[1].has_state);
    expect_code(&er->results[2], SWEEP_WIRE_NONE);
    /* The player heard, unasked; the game server's own entity needs no
     * word but its result. */
    assert_int_equal(t.r->nmsgs, 2);
    assert_int_equal(t.r->msgs[0].to, &t.player);
    assert_int_equal(t.r->msgs[0].m.kind, SWEEP_MSG_DESPAWNED);
    assert_int_equal(t.r->msgs[0].m.sequence, 0);
    assert_int_equal(t.r->msgs[0].m.as.despawned.entity, t.e);
    assert_int_equal(t.r->msgs[0].m.as.despawned.crushed_by, 0);
    assert_int_equal(t.r->entities, -2);
    assert_int_equal(t.w->ent_count, 0);
    assert_int_equal(t.player.entity_count, 0);
    sweep_message mv = wf_move_msg(t.e, 2, sweep_v3(0, 0, 0), 1.0 / 60.0);
    wf_clear(t.r);
    wf_request(t.w, &t.player, t.r, &mv);
    wf_error(t.r, SWEEP_WIRE_UNKNOWN_ENTITY, 2);
    two_close(&t);
}

static void each_command_stands_alone(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    sweep_msg_entity_command c[4] = {cmd(12345, SWEEP_WIRE_OP_SET_VELOCITY, 1, 0, 0),
                                     cmd(t.e, 9, 1, 0, 0),
                                     cmd(t.e, SWEEP_WIRE_OP_SET_VELOCITY, 0, 2, 0),
                                     cmd(t.e, SWEEP_WIRE_OP_TELEPORT, NAN, 0, 0)};
    const sweep_msg_entity_commands_result *er = send_commands(&t, &t.game, 3, c, 4);
    expect_code(&er->results[0], SWEEP_WIRE_UNKNOWN_ENTITY);
    assert_int_equal(er->results[0].entity, 12345);
    assert_false(er->results[0].has_state);
    expect_code(&er->results[1], SWEEP_WIRE_NOT_ALLOWED);
    assert_int_equal(er->results[1].op, 9);
    assert_true(er->results[1].has_state);
    expect_code(&er->results[2], SWEEP_WIRE_NONE);
    expect_code(&er->results[3], SWEEP_WIRE_BAD_NUMBER);
    assert_true(same_vec(er->results[3].velocity, sweep_v3(0, 2, 0))); /* the third's doing */
    /* None at all: an empty answer. */
    er = send_commands(&t, &t.game, 4, NULL, 0);
    assert_int_equal(er->count, 0);
    two_close(&t);
}

static void more_than_max_batch_is_refused_whole(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two t;
    two_open(&t, &opt);
    uint64_t hash = sweep__world_state_hash(t.w);
    sweep_msg_entity_command c[WF_MAX_BATCH + 1];
    for (uint32_t i = 0; i <= WF_MAX_BATCH; i++)
        c[i] = cmd(t.e, SWEEP_WIRE_OP_ADD_IMPULSE, 0.1, 0, 0);
    sweep_message m = commands_msg(8, c, WF_MAX_BATCH + 1);
    wf_clear(t.r);
    wf_request(t.w, &t.game, t.r, &m);
    assert_non_null(strstr(wf_error(t.r, SWEEP_WIRE_BATCH_TOO_LARGE, 8), "at most 16"));
    assert_int_equal(sweep__world_state_hash(t.w), hash);
    /* The most it may hold is applied whole, in order. */
    const sweep_msg_entity_commands_result *er = send_commands(&t, &t.game, 9, c, WF_MAX_BATCH);
    assert_true(fabs(er->results[WF_MAX_BATCH - 1].velocity.x - 1.6) < 1e-9);
    two_close(&t);
}

/* Two worlds given the same commands agree bit for bit; the hash of a
 * world that never saw one is what it was. */
static void commands_are_deterministic(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    two a, b;
    two_open(&a, &opt);
    two_open(&b, &opt);
    assert_int_equal(sweep__world_state_hash(a.w), sweep__world_state_hash(b.w));
    for (two *t = &a; t; t = t == &a ? &b : NULL) {
        sweep_msg_entity_command c[3] = {cmd(t->e, SWEEP_WIRE_OP_TELEPORT, 0, -6, 0.3),
                                         cmd(t->e, SWEEP_WIRE_OP_ADD_IMPULSE, 1, 2, 3),
                                         cmd(t->e, SWEEP_WIRE_OP_SET_RADII, 0.3, 0.3, 0.6)};
        send_commands(t, &t->game, 3, c, 3);
        uint32_t seq = 2;
        settle(t, &seq);
    }
    assert_int_equal(sweep__world_state_hash(a.w), sweep__world_state_hash(b.w));
    assert_true(same_vec(entity(&a)->st.m.actor.position, entity(&b)->st.m.actor.position));
    two_close(&a);
    two_close(&b);
}

/* Over UDP the same EntityCommands may arrive twice (a duplicate, or a
 * client's resend for a lost answer): the repeat is answered with the
 * first answer's results and applies nothing again; a new sequence
 * applies. Over TCP nothing is duplicated, so a sequence is not
 * remembered. */
static void a_udp_repeat_is_answered_not_applied(void **state)
{
    (void)state;
    for (int udp = 0; udp < 2; udp++) {
        sweep__world_options opt = wf_options();
        two t;
        two_open(&t, &opt);
        sweep__owner game;
        wf_owner(&game, t.w, 30, SWEEP_WIRE_ROLE_SERVER, udp);
        sweep_msg_entity_command c[2] = {cmd(t.e, SWEEP_WIRE_OP_ADD_IMPULSE, 1, 0, 0),
                                         cmd(t.e + 1, SWEEP_WIRE_OP_SET_VELOCITY, 0, 0, 0)};
        const sweep_msg_entity_commands_result *r = send_commands(&t, &game, 7, c, 2);
        assert_int_equal(r->results[0].code, SWEEP_WIRE_NONE);
        assert_true(r->results[1].code == SWEEP_WIRE_UNKNOWN_ENTITY);
        double first = entity(&t)->st.m.actor.velocity.x;
        char text[SWEEP__COMMAND_TEXT];
        snprintf(text, sizeof text, "%.*s", (int)r->results[1].message.len, r->results[1].message.ptr);
        r = send_commands(&t, &game, 7, c, 2);
        if (udp) {
            assert_true(entity(&t)->st.m.actor.velocity.x == first); /* not added again */
            assert_true(r->results[0].velocity.x == first);
            assert_int_equal(r->results[1].code, SWEEP_WIRE_UNKNOWN_ENTITY);
            assert_int_equal(r->results[1].message.len, strlen(text));
            assert_memory_equal(r->results[1].message.ptr, text, strlen(text));
        } else {
            assert_true(entity(&t)->st.m.actor.velocity.x == first + 1.0);
        }
        double second = entity(&t)->st.m.actor.velocity.x;
        send_commands(&t, &game, 8, c, 2);
        assert_true(entity(&t)->st.m.actor.velocity.x == second + 1.0);
        sweep__owner_release(&game, NULL);
        two_close(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_player_is_refused_whole),
        cmocka_unit_test(a_teleport_places_any_owners_entity),
        cmocka_unit_test(an_occupied_target_is_pushed_out_or_refused),
        cmocka_unit_test(a_teleport_onto_a_blocking_entity_lands_on_it),
        cmocka_unit_test(velocities_are_checked_and_kept_for_the_next_move),
        cmocka_unit_test(an_impulse_does_not_carry_through_the_thin_wall),
        cmocka_unit_test(radii_change_where_there_is_room),
        cmocka_unit_test(a_despawn_tells_the_owner),
        cmocka_unit_test(each_command_stands_alone),
        cmocka_unit_test(more_than_max_batch_is_refused_whole),
        cmocka_unit_test(commands_are_deterministic),
        cmocka_unit_test(a_udp_repeat_is_answered_not_applied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
