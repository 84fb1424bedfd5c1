/*
 * test_queries.c - Query in the world library: lag-compensated questions
 * answered from the world's pose history. A shot at a past fractional
 * tick hits where the target was and misses where it is; a door closed
 * then is in the way, open now is not; a player's look back is capped, the
 * server role's is not; a player's items are rate-limited by ticks; a
 * despawned target is still hit in the past; hit shapes come back by id;
 * every refusal is named and the others in the batch are answered.
 *
 * The target is a server role's entity teleported one metre along +x each
 * tick on the arena's open floor (around (0, -6), maps/arena.sql), so
 * where it was at any tick is known exactly. The door is the arena's
 * sliding door, in the south doorway of the east wing's partition
 * (x = 29.1, y in [-7, -5.5]).
 */
#include "tests/world/world_fixture.h"

#include "core/query.h"

typedef struct qw {
    sweep__world *w;
    wf_rec *r;
    sweep__owner game, player;
    uint32_t target; /* the game's entity */
    uint32_t mine;   /* the player's entity */
    uint32_t seq;
} qw;

static void qw_open(qw *t, const sweep__world_options *opt)
{
    memset(t, 0, sizeof *t);
    t->w = wf_open(opt);
    t->r = wf_rec_new();
    wf_owner(&t->game, t->w, 10, SWEEP_WIRE_ROLE_SERVER, 0);
    wf_owner(&t->player, t->w, 20, SWEEP_WIRE_ROLE_PLAYER, 0);
    t->target = wf_spawn_at_id(t->w, &t->game, t->r, 1, 0.0, -6.0, 1.0, 0);
    t->mine = wf_spawn_point(t->w, &t->player, t->r, 2, 1).entity;
    t->seq = 10;
}

static void qw_close(qw *t)
{
    sweep__owner_release(&t->player, NULL);
    sweep__owner_release(&t->game, NULL);
    sweep__world_close(t->w);
    free(t->r);
}

static sweep_msg_entity_commands_result commands(qw *t, const sweep_msg_entity_command *c, uint32_t n)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_ENTITY_COMMANDS;
    m.sequence = t->seq++;
    m.as.entity_commands.commands = c;
    m.as.entity_commands.count = n;
    wf_clear(t->r);
    wf_request(t->w, &t->game, t->r, &m);
    return wf_only(t->r, SWEEP_MSG_ENTITY_COMMANDS_RESULT)->as.entity_commands_result;
}

static void teleport(qw *t, uint32_t entity, double x, double y, double z)
{
    sweep_msg_entity_command c = {.entity = entity, .op = SWEEP_WIRE_OP_TELEPORT, .vector = sweep_v3(x, y, z)};
    sweep_msg_entity_commands_result r = commands(t, &c, 1);
    assert_int_equal(r.results[0].code, SWEEP_WIRE_NONE);
}

/* Where the target is in the frame of a tick from 10 on: x from 0 to 9
 * and back to 0, a metre a tick. */
static double target_x(uint64_t tick)
{
    return (double)((tick - 10) % 10);
}

/* The target walked for the ticks 10 .. last (each tick's frame holds
 * where the teleport before it put the target). */
static void walk_target(qw *t, uint64_t last)
{
    while (t->w->tick < 9)
        wf_ticks(t->w, t->r, 1);
    while (t->w->tick < last) {
        teleport(t, t->target, target_x(t->w->tick + 1), -6.0, 1.0);
        wf_ticks(t->w, t->r, 1);
    }
}

static sweep_msg_query_item ray(double x0, double y0, double z0, double x1, double y1, double z1)
{
    sweep_msg_query_item q;
    memset(&q, 0, sizeof q);
    q.kind = SWEEP_WIRE_QUERY_RAY;
    q.from = sweep_v3(x0, y0, z0);
    q.to = sweep_v3(x1, y1, z1);
    return q;
}

/* A shot across the target's line (y from -10 to -2) at x, chest high. */
static sweep_msg_query_item shot_at_x(double x, uint64_t tick, double fraction)
{
    sweep_msg_query_item q = ray(x, -10.0, 1.0, x, -2.0, 1.0);
    q.tick = tick;
    q.fraction = fraction;
    return q;
}

/* Sends the items as `from`; the QueryResult's answers (the world's
 * scratch: valid until its next Query). */
static const sweep_msg_query_answer *query(qw *t, sweep__owner *from, const sweep_msg_query_item *items, uint32_t n)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_QUERY;
    m.sequence = t->seq++;
    m.as.query.items = items;
    m.as.query.count = n;
    wf_clear(t->r);
    wf_request(t->w, from, t->r, &m);
    const sweep_message *out = wf_only(t->r, SWEEP_MSG_QUERY_RESULT);
    assert_int_equal(out->sequence, m.sequence);
    assert_int_equal(out->as.query_result.count, n);
    return out->as.query_result.answers;
}

static const sweep_msg_query_answer *query1(qw *t, sweep__owner *from, sweep_msg_query_item q)
{
    return &query(t, from, &q, 1)[0];
}

static void expect_code(const sweep_msg_query_answer *a, sweep_wire_code code, const char *words)
{
    if (a->code != code)
        fail_msg("expected %s, got %s: %.*s", sweep_wire_code_name(code), sweep_wire_code_name(a->code),
                 (int)a->message.len, a->message.ptr ? a->message.ptr : "");
    if (words && !strstr(a->message.ptr, words))
        fail_msg("'%s' not in '%s'", words, a->message.ptr);
    if (code != SWEEP_WIRE_NONE)
        assert_int_equal(a->hit_count, 0);
}

static void a_past_fraction_hits_where_it_was(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    walk_target(&t, 20); /* at tick 14 x = 4, at 15 x = 5; now x = 0 */
    const sweep_msg_query_answer *a = query1(&t, &t.game, shot_at_x(4.5, 14, 0.5));
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->tick, 14);
    assert_true(a->fraction == 0.5);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].kind, SWEEP_HIT_ENTITY);
    assert_int_equal(a->hits[0].entity, t.target);
    assert_int_equal(a->hits[0].shape, UINT32_MAX);
    assert_int_equal(a->hits[0].triangle, UINT32_MAX);
    /* Its near side at 14.5: the ellipsoid (radius 0.4) centred on
     * (4.5, -6) meets the line x = 4.5 at y = -6.4. */
    assert_true(fabs(a->hits[0].point.y - -6.4) < 1e-6);
    assert_true(fabs(a->hits[0].normal.y - -1.0) < 1e-6);
    /* The same shot at the tick before, and now, goes past it: at 13 it
     * stood at x = 3, now at x = 0. */
    a = query1(&t, &t.game, shot_at_x(4.5, 13, 0.0));
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 0);
    a = query1(&t, &t.game, shot_at_x(4.5, 0, 0.0));
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->tick, 20);
    assert_int_equal(a->hit_count, 0);
    a = query1(&t, &t.game, shot_at_x(0.0, 0, 0.0));
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, t.target);
    qw_close(&t);
}

static void a_door_closed_then_is_in_the_way_open_now_is_not(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.history_ms = 2000;
    qw t;
    qw_open(&t, &opt);
    wf_ticks(t.w, t.r, 5);
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVER_COMMAND;
    m.sequence = t.seq++;
    m.as.mover_command.mover = sweep_str_of("sliding door");
    wf_clear(t.r);
    wf_request(t.w, &t.game, t.r, &m);
    wf_only(t.r, SWEEP_MSG_MOVER_COMMANDED);
    wf_ticks(t.w, t.r, 75); /* 1 s to open, 2 s open: open now */
    sweep_msg_query_item through = ray(27.0, -6.25, 1.0, 31.0, -6.25, 1.0);
    through.tick = 5;
    const sweep_msg_query_answer *a = query1(&t, &t.game, through);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].kind, SWEEP_HIT_MOVER);
    assert_int_equal(a->hits[0].mover, 1); /* movers.id of the sliding door */
    assert_int_equal(a->hits[0].material, 6);
    assert_true(fabs(a->hits[0].point.x - 29.05) < 1e-9);
    through.tick = 0;
    a = query1(&t, &t.game, through);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 0);
    /* Line of sight says the same. */
    through.kind = SWEEP_WIRE_QUERY_LINE_OF_SIGHT;
    a = query1(&t, &t.game, through);
    assert_int_equal(a->flags & SWEEP_WIRE_QUERY_CLEAR, SWEEP_WIRE_QUERY_CLEAR);
    through.tick = 5;
    a = query1(&t, &t.game, through);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->flags & SWEEP_WIRE_QUERY_CLEAR, 0);
    qw_close(&t);
}

static void a_players_look_back_is_capped_the_server_roles_is_not(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    walk_target(&t, 100);
    /* 250 ms at 60 ticks a second: 15 ticks. */
    assert_int_equal(t.w->rewind_cap_ticks, 15);
    const sweep_msg_query_answer *a = query1(&t, &t.player, shot_at_x(target_x(85), 85, 0.0));
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    a = query1(&t, &t.player, shot_at_x(4.5, 84, 0.5));
    expect_code(a, SWEEP_WIRE_TOO_OLD, "rewind cap of 15 ticks");
    a = query1(&t, &t.game, shot_at_x(4.5, 74, 0.5));
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, t.target);
    /* A second of history (61 frames): 39 .. 100. Older is refused for
     * everyone, later than the newest too. */
    a = query1(&t, &t.game, shot_at_x(0.0, 38, 0.0));
    expect_code(a, SWEEP_WIRE_TOO_OLD, "older than the history keeps (ticks 40 to 100)");
    a = query1(&t, &t.game, shot_at_x(0.0, 100, 0.25));
    expect_code(a, SWEEP_WIRE_IN_FUTURE, "after the newest tick 100");
    a = query1(&t, &t.game, shot_at_x(0.0, 101, 0.0));
    expect_code(a, SWEEP_WIRE_IN_FUTURE, NULL);
    a = query1(&t, &t.game, shot_at_x(0.0, 90, 1.0));
    expect_code(a, SWEEP_WIRE_BAD_NUMBER, "not in [0, 1)");
    a = query1(&t, &t.game, shot_at_x(0.0, 90, NAN));
    expect_code(a, SWEEP_WIRE_BAD_NUMBER, NULL);
    qw_close(&t);
}

static void a_players_items_are_rate_limited_by_ticks(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.query_rate = 6.0;
    qw t;
    qw_open(&t, &opt);
    wf_ticks(t.w, t.r, 2);
    sweep_msg_query_item q[8];
    for (int i = 0; i < 8; i++)
        q[i] = shot_at_x(0.0, 0, 0.0);
    const sweep_msg_query_answer *a = query(&t, &t.player, q, 8);
    for (int i = 0; i < 8; i++)
        expect_code(&a[i], i < 6 ? SWEEP_WIRE_NONE : SWEEP_WIRE_RATE_LIMITED, i < 6 ? NULL : "6 query items a second");
    /* Half a second later, three more. */
    wf_ticks(t.w, t.r, 30);
    a = query(&t, &t.player, q, 4);
    for (int i = 0; i < 4; i++)
        expect_code(&a[i], i < 3 ? SWEEP_WIRE_NONE : SWEEP_WIRE_RATE_LIMITED, NULL);
    /* The server role is not limited. */
    a = query(&t, &t.game, q, 8);
    for (int i = 0; i < 8; i++)
        expect_code(&a[i], SWEEP_WIRE_NONE, NULL);
    qw_close(&t);
}

static void a_despawned_target_is_still_hit_in_the_past(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    walk_target(&t, 20);
    uint32_t gone = t.target;
    t.target = 0;
    sweep_msg_entity_command c = {.entity = gone, .op = SWEEP_WIRE_OP_DESPAWN};
    commands(&t, &c, 1);
    wf_ticks(t.w, t.r, 3);
    assert_null(sweep__world_any_entity(t.w, gone));
    const sweep_msg_query_answer *a = query1(&t, &t.game, shot_at_x(target_x(19), 19, 0.0));
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, gone);
    /* At its last tick and any fraction after it, where it was last. */
    a = query1(&t, &t.game, shot_at_x(target_x(20), 20, 0.75));
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, gone);
    a = query1(&t, &t.game, shot_at_x(target_x(20), 0, 0.0));
    assert_int_equal(a->hit_count, 0);
    qw_close(&t);
}

static void hit_shapes_come_back_by_id(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    sweep_wire_hit_shape shapes[2] = {
        {.id = 1, .kind = SWEEP_SHAPE_SPHERE, .a = sweep_v3(0, 0, 0.6), .radii = sweep_v3(0.2, 0.2, 0.2)},
        {.id = 2, .kind = SWEEP_SHAPE_CAPSULE, .a = sweep_v3(0, 0, -0.6), .b = sweep_v3(0, 0, 0.3),
         .radii = sweep_v3(0.3, 0.3, 0.3)},
    };
    sweep_msg_entity_command c = {.entity = t.target, .op = SWEEP_WIRE_OP_SET_HIT_SHAPES, .shapes = shapes,
                                  .shape_count = 2};
    sweep_msg_entity_commands_result r = commands(&t, &c, 1);
    assert_int_equal(r.results[0].code, SWEEP_WIRE_NONE);
    assert_true(r.results[0].has_state);
    wf_ticks(t.w, t.r, 1);
    /* The head (centre 1.6 up, to 1.8), the torso (capsule up to 1.6),
     * and above the head, which the ellipsoid (up to 1.9) would stop. */
    sweep_msg_query_item head = ray(0, -10, 1.65, 0, -2, 1.65), torso = ray(0, -10, 1.0, 0, -2, 1.0),
                         over = ray(0, -10, 1.85, 0, -2, 1.85);
    const sweep_msg_query_answer *a = query1(&t, &t.game, head);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].shape, 1);
    assert_true(fabs(a->hits[0].point.y - (-6.0 - sqrt(0.2 * 0.2 - 0.05 * 0.05))) < 1e-9);
    a = query1(&t, &t.game, torso);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].shape, 2);
    a = query1(&t, &t.game, over);
    assert_int_equal(a->hit_count, 0);
    over.filter = SWEEP_QUERY_ALL | SWEEP_QUERY_ELLIPSOIDS;
    a = query1(&t, &t.game, over);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].shape, UINT32_MAX);
    /* Bad shapes are refused by name, and a player may not set any. */
    shapes[1].a = sweep_v3(0, 0, -5.0);
    r = commands(&t, &c, 1);
    assert_int_equal(r.results[0].code, SWEEP_WIRE_BAD_POSITION);
    shapes[1].a = sweep_v3(0, 0, -0.6);
    shapes[0].kind = 7;
    r = commands(&t, &c, 1);
    assert_int_equal(r.results[0].code, SWEEP_WIRE_NOT_ALLOWED);
    shapes[0].kind = SWEEP_SHAPE_SPHERE;
    shapes[0].radii = sweep_v3(0, 0, 0);
    r = commands(&t, &c, 1);
    assert_int_equal(r.results[0].code, SWEEP_WIRE_BAD_RADII);
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_ENTITY_COMMANDS;
    m.sequence = 99;
    m.as.entity_commands.commands = &c;
    m.as.entity_commands.count = 1;
    wf_clear(t.r);
    wf_request(t.w, &t.player, t.r, &m);
    wf_error(t.r, SWEEP_WIRE_AUTH_FAILED, 99);
    /* None: its ellipsoid again, from the next frame. */
    c.shape_count = 0;
    c.shapes = NULL;
    r = commands(&t, &c, 1);
    assert_int_equal(r.results[0].code, SWEEP_WIRE_NONE);
    wf_ticks(t.w, t.r, 1);
    over.filter = 0;
    a = query1(&t, &t.game, over);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].shape, UINT32_MAX);
    qw_close(&t);
}

/* A shot from an entity starts where that entity was at the asked time,
 * as its targets are: the target walks x = 0 .. 9 a metre a tick, and at
 * tick 14.5 it stood at x = 4.5, straight below a post at (4.5, -2). */
static void a_shooter_fires_from_where_it_was(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    uint32_t post = wf_spawn_at_id(t.w, &t.game, t.r, t.seq++, 4.5, -2.0, 1.0, 0);
    walk_target(&t, 20); /* now the walker is back at x = 0 */
    sweep_msg_query_item q = ray(0, 0, 0, 4.5, 2.0, 1.0);
    q.from_entity = t.target;
    q.tick = 14;
    q.fraction = 0.5;
    const sweep_msg_query_answer *a = query1(&t, &t.game, q);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, post);
    /* Straight up the line x = 4.5 from (4.5, -6): the post's near side,
     * 3.6 along. From where the walker is now (x = 0) the ray would meet
     * the post slantwise, elsewhere. */
    assert_true(fabs(a->hits[0].point.x - 4.5) < 1e-9);
    assert_true(fabs(a->hits[0].point.y - -2.4) < 1e-6);
    assert_true(fabs(a->hits[0].distance - 3.6) < 1e-6);
    qw_close(&t);
}

static void entity_endpoints_and_their_refusals(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    teleport(&t, t.target, 0.0, -6.0, 1.0);
    uint32_t other = wf_spawn_at_id(t.w, &t.game, t.r, t.seq++, 0.0, -10.0, 1.0, 0);
    wf_ticks(t.w, t.r, 2);
    /* From the other entity's eye (0.5 up) towards the target: it hits the
     * target, never itself. */
    sweep_msg_query_item q = ray(0, 0, 0.5, 0, -2, 1.5);
    q.from_entity = other;
    const sweep_msg_query_answer *a = query1(&t, &t.game, q);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, t.target);
    /* Line of sight between the two: clear (neither blocks it). */
    sweep_msg_query_item los = ray(0, 0, 0, 0, 0, 0);
    los.kind = SWEEP_WIRE_QUERY_LINE_OF_SIGHT;
    los.from_entity = other;
    los.to_entity = t.target;
    a = query1(&t, &t.game, los);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->flags, SWEEP_WIRE_QUERY_CLEAR);
    /* Ignoring the target lets the shot through. */
    uint32_t ignore[1] = {t.target};
    q.ignore = ignore;
    q.ignore_count = 1;
    a = query1(&t, &t.game, q);
    assert_int_equal(a->hit_count, 0);
    /* Unknown entities, and a player's of another owner, are one refusal;
     * the item after a refused one is answered. */
    sweep_msg_query_item two[2] = {ray(0, 0, 0, 0, 1, 0), shot_at_x(0.0, 0, 0.0)};
    two[0].from_entity = 12345;
    a = query(&t, &t.game, two, 2);
    expect_code(&a[0], SWEEP_WIRE_UNKNOWN_ENTITY, "no entity 12345 in this world");
    expect_code(&a[1], SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a[1].hit_count, 1);
    two[0].from_entity = other;
    a = query(&t, &t.player, two, 2);
    expect_code(&a[0], SWEEP_WIRE_UNKNOWN_ENTITY, "in this session");
    two[0].from_entity = t.mine;
    a = query(&t, &t.player, two, 2);
    expect_code(&a[0], SWEEP_WIRE_NONE, NULL);
    /* An unknown kind, too many ignored entities. */
    sweep_msg_query_item bad = shot_at_x(0.0, 0, 0.0);
    bad.kind = 9;
    expect_code(query1(&t, &t.game, bad), SWEEP_WIRE_NOT_ALLOWED, "not a QueryKind");
    uint32_t many[17] = {0};
    bad = shot_at_x(0.0, 0, 0.0);
    bad.ignore = many;
    bad.ignore_count = 17;
    expect_code(query1(&t, &t.game, bad), SWEEP_WIRE_NOT_ALLOWED, "at most 16");
    bad = shot_at_x(0.0, 0, 0.0);
    bad.to.z = INFINITY;
    expect_code(query1(&t, &t.game, bad), SWEEP_WIRE_BAD_NUMBER, NULL);
    /* A message above max_batch is refused whole. */
    sweep_msg_query_item lots[WF_MAX_BATCH + 1];
    for (unsigned i = 0; i <= WF_MAX_BATCH; i++)
        lots[i] = shot_at_x(0.0, 0, 0.0);
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_QUERY;
    m.sequence = 77;
    m.as.query.items = lots;
    m.as.query.count = WF_MAX_BATCH + 1;
    wf_clear(t.r);
    wf_request(t.w, &t.player, t.r, &m);
    wf_error(t.r, SWEEP_WIRE_BATCH_TOO_LARGE, 77);
    qw_close(&t);
}

static void ray_all_sweep_and_overlap(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    teleport(&t, t.target, 0.0, -6.0, 1.0);
    uint32_t other = wf_spawn_at_id(t.w, &t.game, t.r, t.seq++, 0.0, -8.0, 1.0, 0);
    wf_ticks(t.w, t.r, 1);
    sweep_msg_query_item q = ray(0, -10, 1, 0, -2, 1);
    q.kind = SWEEP_WIRE_QUERY_RAY_ALL;
    q.filter = SWEEP_QUERY_ENTITIES;
    const sweep_msg_query_answer *a = query1(&t, &t.game, q);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 2);
    assert_int_equal(a->hits[0].entity, other);
    assert_int_equal(a->hits[1].entity, t.target);
    assert_true(a->hits[0].distance < a->hits[1].distance);
    q.max_hits = 1;
    a = query1(&t, &t.game, q);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->flags, SWEEP_WIRE_QUERY_MORE);
    /* A ball of radius 0.5 passing 0.8 beside the target's centre grazes
     * it; a ray there does not. */
    sweep_msg_query_item s = ray(0.8, -7, 1, 0.8, -2, 1);
    s.kind = SWEEP_WIRE_QUERY_SWEEP;
    s.radii = sweep_v3(0.5, 0.5, 0.5);
    a = query1(&t, &t.game, s);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 1);
    assert_int_equal(a->hits[0].entity, t.target);
    s.kind = SWEEP_WIRE_QUERY_RAY;
    assert_int_equal(query1(&t, &t.game, s)->hit_count, 0);
    s.kind = SWEEP_WIRE_QUERY_SWEEP;
    s.radii = sweep_v3(0, 0, 0);
    expect_code(query1(&t, &t.game, s), SWEEP_WIRE_BAD_RADII, NULL);
    /* An overlap round (0, -7): both, nearest first (equal: by id). */
    sweep_msg_query_item o = ray(0, -7, 1, 0, 0, 0);
    o.kind = SWEEP_WIRE_QUERY_OVERLAP;
    o.radius = 1.0;
    a = query1(&t, &t.game, o);
    expect_code(a, SWEEP_WIRE_NONE, NULL);
    assert_int_equal(a->hit_count, 2);
    assert_int_equal(a->hits[0].entity, other < t.target ? other : t.target);
    assert_int_equal(a->hits[0].kind, SWEEP_HIT_ENTITY);
    o.radius = 0.3;
    assert_int_equal(query1(&t, &t.game, o)->hit_count, 0);
    /* Radii too small for the path's scale, a negative radius, endpoints
     * beyond any world: refused by name, not answered by arithmetic that
     * has run out of bits (a tiny ball went through walls, a path of 1e308
     * hit a triangle at its start). */
    s.radii = sweep_v3(1e-80, 1e-80, 1e-80);
    expect_code(query1(&t, &t.game, s), SWEEP_WIRE_BAD_RADII, NULL);
    o.radius = -1.0;
    expect_code(query1(&t, &t.game, o), SWEEP_WIRE_BAD_RADII, NULL);
    sweep_msg_query_item far = ray(0, 0, 1, 1e308, 0, -1e308);
    expect_code(query1(&t, &t.game, far), SWEEP_WIRE_BAD_POSITION, NULL);
    far.kind = SWEEP_WIRE_QUERY_LINE_OF_SIGHT;
    expect_code(query1(&t, &t.game, far), SWEEP_WIRE_BAD_POSITION, NULL);
    qw_close(&t);
}

/* The shooter and a line of sight's target are never hit, whatever the
 * caller's own ignore list holds (its full 16 included); a filter bit
 * that is no QueryFilter is refused, not dropped. */
static void the_endpoints_are_ignored_beside_a_full_list(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    qw t;
    qw_open(&t, &opt);
    teleport(&t, t.target, 4.0, -6.0, 1.0);
    uint32_t shooter = wf_spawn_at_id(t.w, &t.game, t.r, t.seq++, 0.0, -6.0, 1.0, 0);
    wf_ticks(t.w, t.r, 2);
    uint32_t ids[SWEEP_WIRE_QUERY_IGNORE_MAX];
    for (uint32_t n = 0; n <= SWEEP_WIRE_QUERY_IGNORE_MAX; n++) {
        for (uint32_t k = 0; k < n; k++)
            ids[k] = 100000 + k;
        /* Along +x from the shooter's centre: the target, never itself. */
        sweep_msg_query_item q = ray(0, 0, 0, 8, -6, 1);
        q.kind = SWEEP_WIRE_QUERY_RAY_ALL;
        q.filter = SWEEP_QUERY_ENTITIES;
        q.from_entity = shooter;
        q.ignore = ids;
        q.ignore_count = n;
        const sweep_msg_query_answer *a = query1(&t, &t.game, q);
        expect_code(a, SWEEP_WIRE_NONE, NULL);
        assert_int_equal(a->hit_count, 1);
        assert_int_equal(a->hits[0].entity, t.target);
        sweep_msg_query_item los = ray(0, 0, 0, 0, 0, 0);
        los.kind = SWEEP_WIRE_QUERY_LINE_OF_SIGHT;
        los.from_entity = shooter;
        los.to_entity = t.target;
        los.ignore = ids;
        los.ignore_count = n;
        a = query1(&t, &t.game, los);
        expect_code(a, SWEEP_WIRE_NONE, NULL);
        assert_int_equal(a->flags, SWEEP_WIRE_QUERY_CLEAR);
    }
    sweep_msg_query_item q = ray(0, -10, 1, 0, -2, 1);
    q.filter = 32;
    expect_code(query1(&t, &t.game, q), SWEEP_WIRE_NOT_ALLOWED, "filter 0x20");
    qw_close(&t);
}

/* A minute of history is what a world may keep at 128 Hz (the newest
 * frame and 7,680 before it); at 129 Hz the world is refused, naming the
 * frames it would need and the limit. */
static void a_minute_of_history_at_128_hz(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.history_ms = 60000;
    opt.history_entities = 1;
    opt.tick_rate = 128.0;
    char err[600] = "";
    sweep__world *w = sweep__world_open(wf_arena(), &opt, 0, err, sizeof err);
    if (!w)
        fail_msg("a minute at 128 Hz refused: %s", err);
    assert_int_equal(w->history_ticks, 7681);
    sweep__world_close(w);
    opt.tick_rate = 129.0;
    assert_null(sweep__world_open(wf_arena(), &opt, 0, err, sizeof err));
    assert_non_null(strstr(err, "7741 frames; at most 7681 are kept"));
}

/* Spawns past the history's room are refused by name; every entity of
 * the world is in every frame. */
static void the_history_holds_every_entity(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.history_entities = 3;
    qw t;
    qw_open(&t, &opt); /* two entities */
    (void)wf_spawn_at_id(t.w, &t.game, t.r, t.seq++, 3.0, -6.0, 1.0, 0);
    sweep_message m = wf_spawn_at(t.seq++, 6.0, -6.0, 1.0);
    wf_clear(t.r);
    wf_request(t.w, &t.game, t.r, &m);
    assert_non_null(strstr(wf_error(t.r, SWEEP_WIRE_TOO_MANY_ENTITIES, m.sequence), "--history-entities"));
    qw_close(&t);
    /* And a history above its memory limit keeps the world from opening. */
    opt = wf_options();
    opt.history_max_bytes = 1000;
    char err[600] = "";
    assert_null(sweep__world_open(wf_arena(), &opt, 0, err, sizeof err));
    assert_non_null(strstr(err, "--history-memory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_past_fraction_hits_where_it_was),
        cmocka_unit_test(a_door_closed_then_is_in_the_way_open_now_is_not),
        cmocka_unit_test(a_players_look_back_is_capped_the_server_roles_is_not),
        cmocka_unit_test(a_players_items_are_rate_limited_by_ticks),
        cmocka_unit_test(a_despawned_target_is_still_hit_in_the_past),
        cmocka_unit_test(hit_shapes_come_back_by_id),
        cmocka_unit_test(a_shooter_fires_from_where_it_was),
        cmocka_unit_test(entity_endpoints_and_their_refusals),
        cmocka_unit_test(ray_all_sweep_and_overlap),
        cmocka_unit_test(the_endpoints_are_ignored_beside_a_full_list),
        cmocka_unit_test(a_minute_of_history_at_128_hz),
        cmocka_unit_test(the_history_holds_every_entity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
