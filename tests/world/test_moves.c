/*
 * test_moves.c - Move and MoveBatch in the world library (the order of
 * server/world/moves.c): a player's Walk is exactly the core's sweep_act
 * from the entity's actor, bit for bit; the sink hears the applied move
 * before its answer; a resent sequence gets its kept answer, the same
 * bytes on the wire, and an old one nothing; a refused move (NaN, a Fly
 * of a player, another owner's entity) changes nothing; a batch is
 * refused past the owner's max_batch and otherwise answered in one
 * MoveResultBatch holding what the same moves one by one would have.
 */
#include "tests/world/world_fixture.h"

#define DT (1.0 / 60.0)

/* What the core makes of a Walk wish from *a over dt, in the world's space
 * as a move of an entity sees it (no crowd: players_block off). */
static sweep_act_result core_walk(const sweep__world *w, sweep_actor *a, sweep_vec3 radii, sweep_vec3 wish_v,
                                  uint32_t buttons, double dt)
{
    assert_null(w->crowd);
    sweep_space space = {w->world, w->movers, NULL, SWEEP_NO_BODY};
    sweep_wish wish = {wish_v, buttons};
    sweep_act_result act;
    assert_int_equal(sweep_act(&space, &w->level.config, &w->level.rules, radii, a, &wish, dt, &act), SWEEP_OK);
    return act;
}

static void assert_same_bits(const void *a, const void *b, size_t n)
{
    if (memcmp(a, b, n) != 0)
        fail_msg("not the same bits");
}

static void walk_is_the_cores_act_bit_for_bit(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    /* The entity as the test's own run of the core has it: a new entity
     * is at rest, not grounded. */
    sweep_actor actor = {s.sp.position, sweep_v3(0, 0, 0), 0, SWEEP_STANCE_STAND};
    int grounded_seen = 0, speed_seen = 0;
    double top = 0.0;
    for (uint32_t seq = 1; seq <= 40; seq++) {
        /* Turning, a jump once on the ground, and wishes above walk_speed. */
        sweep_vec3 v = sweep_v3(3.0 + 0.1 * seq, seq < 20 ? 1.5 : -4.5, 0);
        uint32_t buttons = seq == 25 ? SWEEP_WISH_JUMP : 0;
        wf_ticks(s.w, s.r, 1);
        sweep_act_result want = core_walk(s.w, &actor, s.sp.radii, v, buttons, DT);

        sweep_message m = wf_move_msg(s.sp.entity, seq, v, DT);
        m.as.move.buttons = buttons;
        sweep_msg_move_result got = wf_move(s.w, &s.o, s.r, &m);
        assert_same_bits(&got.position, &actor.position, sizeof got.position);
        assert_same_bits(&got.velocity, &actor.velocity, sizeof got.velocity);
        assert_int_equal(got.grounded, actor.grounded != 0);
        assert_int_equal(got.contact_count, want.move.contact_count);
        assert_int_equal(got.rules, want.rules & (SWEEP_RULE_SPEED | SWEEP_RULE_JUMP | SWEEP_RULE_LIMIT));
        assert_same_bits(&got.speed_excess, &want.speed_excess, sizeof got.speed_excess);
        assert_true(got.applied_dt == DT);
        assert_int_equal(got.entity, s.sp.entity);
        assert_int_equal(got.sequence, seq);
        assert_int_equal(got.server_tick, s.w->tick);
        assert_int_equal(s.r->msgs[0].m.sequence, seq);
        /* The applied move (a MOVE record) before its answer, the same answer. */
        assert_string_equal(s.r->calls, "vM");
        assert_int_equal(s.r->nmoves, 1);
        assert_int_equal(s.r->moves[0].sequence, seq);
        assert_same_bits(&s.r->move_results[0].position, &got.position, sizeof got.position);
        grounded_seen |= got.grounded;
        speed_seen |= (got.rules & SWEEP_WIRE_RULE_SPEED) != 0;
        top = fmax(top, got.position.z);
    }
    /* The walk went somewhere: it landed, ran, was clamped, jumped. */
    assert_true(grounded_seen);
    assert_true(speed_seen);
    assert_true(actor.position.x > s.sp.position.x + 1.5);
    assert_true(top > 0.9 + 0.5); /* standing height plus a jump */
    assert_int_equal(s.w->counts.moves_total, 40);
    wf_one_close(&s);
}

static void resent_sequence_gets_the_kept_answer(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    uint8_t first[2048], again[2048];
    size_t first_len = 0;
    for (uint32_t seq = 1; seq <= 3; seq++) {
        sweep_message m = wf_move_msg(s.sp.entity, seq, sweep_v3(2, 0, 0), DT);
        wf_move(s.w, &s.o, s.r, &m);
        if (seq == 2)
            first_len = wf_encode(&s.r->msgs[0].m, first, sizeof first);
    }
    wf_ticks(s.w, s.r, 2);
    uint64_t hash = sweep__world_state_hash(s.w);
    uint64_t moves = s.w->counts.moves_total;

    /* Resent (even with another wish, as a broken client might): the
     * answer it had, its tick included, and nothing applied. */
    sweep_message m = wf_move_msg(s.sp.entity, 2, sweep_v3(-5, 3, 0), DT);
    wf_move(s.w, &s.o, s.r, &m);
    assert_string_equal(s.r->calls, "M");
    size_t again_len = wf_encode(&s.r->msgs[0].m, again, sizeof again);
    assert_int_equal(again_len, first_len);
    assert_memory_equal(first, again, first_len);
    assert_int_equal(s.w->counts.moves_total, moves);
    assert_int_equal(sweep__world_state_hash(s.w), hash);
    wf_one_close(&s);
}

static void old_sequence_is_ignored(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    sweep_message m = wf_move_msg(s.sp.entity, 100, sweep_v3(1, 0, 0), DT);
    wf_move(s.w, &s.o, s.r, &m);
    uint64_t hash = sweep__world_state_hash(s.w);

    /* Older than the last and never applied: no answer at all. */
    wf_clear(s.r);
    m = wf_move_msg(s.sp.entity, 50, sweep_v3(1, 0, 0), DT);
    wf_request(s.w, &s.o, s.r, &m);
    assert_int_equal(s.r->nmsgs, 0);
    assert_string_equal(s.r->calls, "");
    assert_int_equal(s.w->counts.moves_ignored, 1);
    assert_int_equal(s.w->counts.moves_total, 1);
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* Applied, but past the SWEEP__KEPT_RESULTS last ones: ignored too,
     * while the oldest still kept is answered. */
    for (uint32_t seq = 101; seq < 101 + SWEEP__KEPT_RESULTS; seq++) {
        wf_ticks(s.w, s.r, 1);
        m = wf_move_msg(s.sp.entity, seq, sweep_v3(1, 0, 0), DT);
        wf_move(s.w, &s.o, s.r, &m);
    }
    wf_clear(s.r);
    m = wf_move_msg(s.sp.entity, 100, sweep_v3(1, 0, 0), DT);
    wf_request(s.w, &s.o, s.r, &m);
    assert_int_equal(s.r->nmsgs, 0);
    assert_int_equal(s.w->counts.moves_ignored, 2);
    m = wf_move_msg(s.sp.entity, 101, sweep_v3(1, 0, 0), DT);
    sweep_msg_move_result kept = wf_move(s.w, &s.o, s.r, &m);
    assert_int_equal(kept.sequence, 101);
    assert_int_equal(s.w->counts.moves_ignored, 2);
    wf_one_close(&s);
}

static void nan_velocity_is_bad_number_and_changes_nothing(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    sweep_message m = wf_move_msg(s.sp.entity, 1, sweep_v3(1, 0, 0), DT);
    wf_move(s.w, &s.o, s.r, &m);
    wf_ticks(s.w, s.r, 1);
    uint64_t hash = sweep__world_state_hash(s.w);
    const sweep__entity *e = sweep__world_entity(s.w, &s.o, s.sp.entity);
    double budget = e->budget;

    wf_clear(s.r);
    m = wf_move_msg(s.sp.entity, 2, sweep_v3(NAN, 0, 0), DT);
    wf_request(s.w, &s.o, s.r, &m);
    wf_error(s.r, SWEEP_WIRE_BAD_NUMBER, 2);
    assert_int_equal(s.r->msgs[0].m.as.error.entity, s.sp.entity);
    assert_string_equal(s.r->calls, "M");
    assert_int_equal(sweep__world_state_hash(s.w), hash);
    assert_true(e->budget == budget);
    assert_int_equal(s.w->counts.moves_total, 1);

    wf_clear(s.r);
    m = wf_move_msg(s.sp.entity, 2, sweep_v3(1, 0, 0), INFINITY);
    wf_request(s.w, &s.o, s.r, &m);
    wf_error(s.r, SWEEP_WIRE_BAD_NUMBER, 2);
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* The refused sequence was not used up: sent right, it is applied. */
    m = wf_move_msg(s.sp.entity, 2, sweep_v3(1, 0, 0), DT);
    sweep_msg_move_result res = wf_move(s.w, &s.o, s.r, &m);
    assert_int_equal(res.sequence, 2);
    assert_int_equal(s.w->counts.moves_total, 2);
    wf_one_close(&s);
}

static void fly_needs_the_server_role_and_free_moves(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    uint64_t hash = sweep__world_state_hash(s.w);
    sweep_message m = wf_move_msg(s.sp.entity, 1, sweep_v3(0, 0, 5), DT);
    m.as.move.mode = SWEEP_WIRE_MODE_FLY;
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &m);
    const char *why = wf_error(s.r, SWEEP_WIRE_NOT_ALLOWED, 1);
    assert_non_null(strstr(why, "rule FreeMove"));
    assert_non_null(strstr(why, "Fly moves need the server role"));
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_FREE_MOVE_BIT], 1);
    assert_int_equal(s.w->counts.rules_total[SWEEP_WIRE_RULE_FREE_MOVE_BIT], 1);
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
        if (i != SWEEP_WIRE_RULE_FREE_MOVE_BIT)
            assert_int_equal(s.o.rule_counts[i], 0);
    assert_int_equal(sweep__world_state_hash(s.w), hash);
    assert_int_equal(s.w->counts.moves_total, 0);
    wf_one_close(&s);

    /* The server role, on a world that allows no free moves: refused too, saying why. */
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_SERVER);
    wf_clear(s.r);
    wf_request(s.w, &s.o, s.r, &m);
    why = wf_error(s.r, SWEEP_WIRE_NOT_ALLOWED, 1);
    assert_non_null(strstr(why, "--allow-free-move on"));
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_FREE_MOVE_BIT], 1);
    wf_one_close(&s);

    /* Allowed: the velocity as given through sweep_move_in, the entity's
     * actor its result. */
    opt.allow_free_move = 1;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_SERVER);
    sweep_space space = {s.w->world, s.w->movers, NULL, SWEEP_NO_BODY};
    sweep_move_input in = {s.sp.position, s.sp.radii, sweep_v3(0, 0, 5), DT, 0};
    sweep_move_result want;
    assert_int_equal(sweep_move_in(&space, &s.w->level.config, &in, &want), SWEEP_OK);
    sweep_msg_move_result got = wf_move(s.w, &s.o, s.r, &m);
    assert_same_bits(&got.position, &want.position, sizeof got.position);
    assert_same_bits(&got.velocity, &want.velocity, sizeof got.velocity);
    assert_true(got.position.z > s.sp.position.z);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_FREE_MOVE_BIT], 0);
    wf_one_close(&s);
}

/* Buttons a move's mode does not read are ignored and named with the
 * bits; the jump a Walk reads is not. */
static void buttons_the_mode_ignores_are_named(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    opt.allow_free_move = 1;
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    sweep_message m = wf_move_msg(s.sp.entity, 1, sweep_v3(1, 0, 0), DT);
    m.as.move.buttons = SWEEP_WISH_JUMP;
    assert_int_equal(wf_move(s.w, &s.o, s.r, &m).rules & SWEEP_WIRE_RULE_BUTTONS, 0);
    m.as.move.sequence = 2;
    m.as.move.buttons = SWEEP_WISH_JUMP | 0x30u;
    sweep_msg_move_result r = wf_move(s.w, &s.o, s.r, &m);
    assert_int_equal(r.rules & SWEEP_WIRE_RULE_BUTTONS, SWEEP_WIRE_RULE_BUTTONS);
    assert_int_equal(s.o.rule_counts[SWEEP_WIRE_RULE_BUTTONS_BIT], 1);
    wf_one_close(&s);

    /* A raw move reads no button: the jump too is named. */
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_SERVER);
    m = wf_move_msg(s.sp.entity, 1, sweep_v3(0, 0, 1), DT);
    m.as.move.mode = SWEEP_WIRE_MODE_FLY;
    r = wf_move(s.w, &s.o, s.r, &m);
    assert_int_equal(r.rules, 0);
    m.as.move.sequence = 2;
    m.as.move.buttons = SWEEP_WISH_JUMP;
    r = wf_move(s.w, &s.o, s.r, &m);
    assert_int_equal(r.rules, SWEEP_WIRE_RULE_BUTTONS);
    wf_one_close(&s);
}

/* A part of the wish along up is ignored whatever it is, and named only
 * beyond the rules' tolerance of the walk speed. */
static void vertical_is_named_beyond_the_tolerance(void **state)
{
    (void)state;
    wf_one s;
    sweep__world_options opt = wf_options();
    wf_one_spawned(&s, &opt, SWEEP_WIRE_ROLE_PLAYER);
    double ws = s.w->level.rules.walk_speed;
    const double up[] = {ws * 1e-12, ws * 1e-6};
    for (uint32_t i = 0; i < 2; i++) {
        sweep_message m = wf_move_msg(s.sp.entity, 1 + i, sweep_v3(1, 0, up[i]), DT);
        sweep_msg_move_result r = wf_move(s.w, &s.o, s.r, &m);
        assert_int_equal(r.rules & SWEEP_WIRE_RULE_VERTICAL, i == 1 ? SWEEP_WIRE_RULE_VERTICAL : 0);
    }
    wf_one_close(&s);
}

static void another_owners_entity_is_unknown(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s; /* s.o owns x; b tries it */
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep__owner b;
    wf_owner(&b, s.w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    uint32_t x = wf_spawn(s.w, &s.o, s.r, 1).entity;
    wf_spawn(s.w, &b, s.r, 1);
    uint64_t hash = sweep__world_state_hash(s.w);

    /* b tries x: a move, a despawn. */
    wf_clear(s.r);
    sweep_message m = wf_move_msg(x, 5, sweep_v3(1, 0, 0), DT);
    wf_request(s.w, &b, s.r, &m);
    char living[400];
    snprintf(living, sizeof living, "%s", wf_error(s.r, SWEEP_WIRE_UNKNOWN_ENTITY, 5));
    assert_int_equal(s.r->msgs[0].m.as.error.entity, x);
    assert_ptr_equal(s.r->msgs[0].to, &b);
    wf_clear(s.r);
    sweep_message d = wf_despawn_msg(x, 6);
    wf_request(s.w, &b, s.r, &d);
    wf_error(s.r, SWEEP_WIRE_UNKNOWN_ENTITY, 6);
    assert_non_null(sweep__world_entity(s.w, &s.o, x));
    assert_int_equal(sweep__world_state_hash(s.w), hash);

    /* Once x is gone, the same request is answered word for word alike:
     * trying tells b nothing about other owners' ids. */
    sweep__owner_release(&s.o, NULL);
    wf_clear(s.r);
    wf_request(s.w, &b, s.r, &m);
    const char *gone = wf_error(s.r, SWEEP_WIRE_UNKNOWN_ENTITY, 5);
    assert_string_equal(gone, living);
    assert_int_equal(s.r->msgs[0].m.as.error.entity, x);

    sweep__owner_release(&b, NULL);
    wf_one_close(&s);
}

static void batch_past_the_owners_max_is_refused(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    sweep__world *w = wf_open(&opt);
    wf_rec *r = wf_rec_new();
    sweep__owner o;
    /* The owner's limit (its Welcome's), below the world's. */
    sweep__owner_init(&o, w, 1, SWEEP_WIRE_ROLE_PLAYER, 0, 4, "", 0, 0);
    uint32_t id = wf_spawn(w, &o, r, 1).entity;
    uint64_t hash = sweep__world_state_hash(w);

    sweep_msg_move moves[5];
    for (uint32_t i = 0; i < 5; i++)
        moves[i] = wf_move_msg(id, i + 1, sweep_v3(1, 0, 0), DT).as.move;
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_BATCH;
    m.sequence = 9;
    m.as.move_batch.moves = moves;
    m.as.move_batch.count = 5;
    wf_clear(r);
    wf_request(w, &o, r, &m);
    const char *why = wf_error(r, SWEEP_WIRE_BATCH_TOO_LARGE, 9);
    assert_non_null(strstr(why, "batch of 5 moves; at most 4"));
    assert_string_equal(r->calls, "M");
    assert_int_equal(w->counts.moves_total, 0);
    assert_int_equal(sweep__world_state_hash(w), hash);

    /* Four fit. */
    m.as.move_batch.count = 4;
    wf_clear(r);
    wf_request(w, &o, r, &m);
    assert_int_equal(wf_only(r, SWEEP_MSG_MOVE_RESULT_BATCH)->as.move_result_batch.count, 4);

    sweep__owner_release(&o, NULL);
    sweep__world_close(w);
    free(r);
}

/* An owner never gets a larger batch than the world answers from: a
 * limit above the world's is the world's (the results would not fit). */
static void owners_max_batch_is_at_most_the_worlds(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    opt.max_batch = 3;
    sweep__world *w = wf_open(&opt);
    wf_rec *r = wf_rec_new();
    sweep__owner o;
    sweep__owner_init(&o, w, 1, SWEEP_WIRE_ROLE_PLAYER, 0, 1000, "", 0, 0);
    assert_int_equal(o.max_batch, 3);
    uint32_t id = wf_spawn(w, &o, r, 1).entity;
    sweep_msg_move moves[4];
    for (uint32_t i = 0; i < 4; i++)
        moves[i] = wf_move_msg(id, i + 1, sweep_v3(1, 0, 0), DT).as.move;
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_BATCH;
    m.sequence = 9;
    m.as.move_batch.moves = moves;
    m.as.move_batch.count = 4;
    wf_clear(r);
    wf_request(w, &o, r, &m);
    assert_non_null(strstr(wf_error(r, SWEEP_WIRE_BATCH_TOO_LARGE, 9), "batch of 4 moves; at most 3"));
    sweep__owner_release(&o, NULL);
    sweep__world_close(w);
    free(r);
}

static void batch_answers_one_message_with_every_result(void **state)
{
    (void)state;
    /* Two worlds alike: b gets the moves in a batch, s one by one. */
    sweep__world_options opt = wf_options();
    wf_one b, s;
    wf_one_open(&b, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    uint32_t e1 = wf_spawn(b.w, &b.o, b.r, 1).entity, e2 = wf_spawn(b.w, &b.o, b.r, 2).entity;
    assert_int_equal(wf_spawn(s.w, &s.o, s.r, 1).entity, e1);
    assert_int_equal(wf_spawn(s.w, &s.o, s.r, 2).entity, e2);

    /* e1, e2, e1 with a NaN (refused alone), e2, e1. */
    sweep_msg_move moves[5] = {
        wf_move_msg(e1, 1, sweep_v3(4, 0, 0), DT).as.move,
        wf_move_msg(e2, 1, sweep_v3(0, -3, 0), DT).as.move,
        wf_move_msg(e1, 2, sweep_v3(NAN, 0, 0), DT).as.move,
        wf_move_msg(e2, 2, sweep_v3(0, -3, 0), 2 * DT).as.move,
        wf_move_msg(e1, 2, sweep_v3(4, 1, 0), DT).as.move,
    };
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_BATCH;
    m.sequence = 77;
    m.as.move_batch.moves = moves;
    m.as.move_batch.count = 5;
    wf_clear(b.r);
    wf_request(b.w, &b.o, b.r, &m);
    /* The refused move's Error, the four applied moves, one answer. */
    assert_string_equal(b.r->calls, "vvMvvM");
    assert_int_equal(b.r->nmsgs, 2);
    assert_int_equal(b.r->msgs[0].m.kind, SWEEP_MSG_ERROR);
    assert_int_equal(b.r->msgs[0].m.as.error.code, SWEEP_WIRE_BAD_NUMBER);
    assert_int_equal(b.r->msgs[0].m.as.error.entity, e1);
    const sweep_message *out = &b.r->msgs[1].m;
    assert_int_equal(out->kind, SWEEP_MSG_MOVE_RESULT_BATCH);
    assert_int_equal(out->sequence, 77);
    assert_int_equal(out->as.move_result_batch.count, 4);
    assert_int_equal(b.w->counts.moves_total, 4);

    uint32_t k = 0;
    for (uint32_t i = 0; i < 5; i++) {
        if (i == 2)
            continue;
        sweep_message one = {.kind = SWEEP_MSG_MOVE, .sequence = moves[i].sequence};
        one.as.move = moves[i];
        sweep_msg_move_result single = wf_move(s.w, &s.o, s.r, &one);
        const sweep_msg_move_result *batched = &out->as.move_result_batch.results[k++];
        assert_int_equal(batched->entity, moves[i].entity);
        assert_int_equal(batched->sequence, moves[i].sequence);
        assert_same_bits(&batched->position, &single.position, sizeof single.position);
        assert_same_bits(&batched->velocity, &single.velocity, sizeof single.velocity);
        assert_true(batched->applied_dt == moves[i].dt);
        /* And each is what the move callback was told. */
        assert_same_bits(&b.r->move_results[k - 1].position, &batched->position, sizeof single.position);
    }
    assert_int_equal(sweep__world_state_hash(b.w), sweep__world_state_hash(s.w));

    wf_one_close(&b);
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_is_the_cores_act_bit_for_bit),
        cmocka_unit_test(resent_sequence_gets_the_kept_answer),
        cmocka_unit_test(old_sequence_is_ignored),
        cmocka_unit_test(nan_velocity_is_bad_number_and_changes_nothing),
        cmocka_unit_test(fly_needs_the_server_role_and_free_moves),
        cmocka_unit_test(buttons_the_mode_ignores_are_named),
        cmocka_unit_test(vertical_is_named_beyond_the_tolerance),
        cmocka_unit_test(another_owners_entity_is_unknown),
        cmocka_unit_test(batch_past_the_owners_max_is_refused),
        cmocka_unit_test(owners_max_batch_is_at_most_the_worlds),
        cmocka_unit_test(batch_answers_one_message_with_every_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
