/*
 * test_world.c - a world as a whole: opening one (a map that is missing or
 * not a map is a clear error, never a crash), and determinism, what
 * replays stand on: two worlds opened on the same map and fed the same
 * requests and ticks agree on sweep__world_state_hash after every step and
 * answer the same bytes, and a world fed one different request parts from
 * them at that step and not before; the hash covers what the next
 * request starts from, the time budget and the next spawn point included.
 */
#include "tests/world/world_fixture.h"

#define DT (1.0 / 60.0)
#define STEPS 150
#define CHANGED_STEP 60 /* where the second script differs */

static void a_missing_or_broken_map_is_an_error(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    char err[600] = "";
    sweep__world *w = sweep__world_open("/nonexistent/arena.db", &opt, 0, err, sizeof err);
    assert_null(w);
    assert_non_null(strstr(err, "/nonexistent/arena.db"));

    char path[] = "/tmp/sweep-world-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char junk[] = "not a map, not even SQLite\n";
    assert_int_equal(write(fd, junk, sizeof junk - 1), (ssize_t)(sizeof junk - 1));
    close(fd);
    err[0] = 0;
    w = sweep__world_open(path, &opt, 0, err, sizeof err);
    unlink(path);
    assert_null(w);
    assert_non_null(strstr(err, path));
    assert_true(strlen(err) > strlen(path) + 2); /* and says what is wrong with it */
}

/* One run: its world, owners and what it heard. */
typedef struct run {
    sweep__world *w;
    wf_rec *r;
    sweep__owner udp, tcp, srv;
    uint32_t e_udp, e_tcp, e_srv;
    uint32_t seq_udp, seq_tcp, seq_srv, req;
    uint64_t answers;                /* FNV-1a over the bytes of every answer, in order */
    uint32_t results, errors;        /* answers that were results, that were Errors */
    double srv_top;                  /* the highest the server role's entity was answered at */
    uint32_t srv_carried;            /* its answers that said a mover carried it */
    uint64_t hashes[STEPS + 1];      /* the state hash before step 0 and after each */
} run;

static void fold_answers(run *x)
{
    static uint8_t bytes[1u << 16];
    for (uint32_t i = 0; i < x->r->nmsgs; i++) {
        if (x->r->msgs[i].m.kind == SWEEP_MSG_ERROR)
            fprintf(stderr, "error: %s\n", x->r->msgs[i].text), x->errors++;
        else
            x->results++;
        size_t n = wf_encode(&x->r->msgs[i].m, bytes, sizeof bytes);
        for (size_t k = 0; k < n; k++)
            x->answers = (x->answers ^ bytes[k]) * 1099511628211ull;
    }
    wf_clear(x->r);
}

static const sweep_message *ask(run *x, sweep__owner *o, const sweep_message *m)
{
    wf_clear(x->r);
    wf_request(x->w, o, x->r, m);
    static sweep_message first;
    first = x->r->nmsgs ? x->r->msgs[0].m : (sweep_message){0};
    fold_answers(x);
    return &first;
}

static uint32_t spawned(const sweep_message *m)
{
    if (m->kind != SWEEP_MSG_SPAWNED)
        fail_msg("expected Spawned, got %s", sweep_msg_kind_name(m->kind));
    return m->as.spawned.entity;
}

/* Two players (one over UDP, one over TCP), with players blocking each
 * other, and the server role riding the lift: walks, jumps, batches, a
 * despawn and respawn, a door commanded, ticks throughout. With changed,
 * one wish of one move at CHANGED_STEP differs. */
static run *play(int changed)
{
    run *x = calloc(1, sizeof *x);
    assert_non_null(x);
    sweep__world_options opt = wf_options();
    opt.players_block = 1;
    x->w = wf_open(&opt);
    x->r = wf_rec_new();
    x->answers = 14695981039346656037ull;
    wf_owner(&x->udp, x->w, 1, SWEEP_WIRE_ROLE_PLAYER, 1);
    wf_owner(&x->tcp, x->w, 2, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_owner(&x->srv, x->w, 3, SWEEP_WIRE_ROLE_SERVER, 0);
    sweep_message m = wf_spawn_at(1, 33, -9, 1.2); /* on the lift (maps/arena.sql) */
    x->e_srv = spawned(ask(x, &x->srv, &m));
    m = wf_spawn_msg(1);
    x->e_udp = spawned(ask(x, &x->udp, &m));
    x->e_tcp = spawned(ask(x, &x->tcp, &m));
    x->seq_udp = x->seq_tcp = x->seq_srv = 1;
    x->req = 2;
    x->hashes[0] = sweep__world_state_hash(x->w);

    for (uint32_t t = 0; t < STEPS; t++) {
        /* The UDP player walks a changing pattern and jumps now and then. */
        sweep_vec3 v = sweep_v3((double)(t % 7) - 3.0, (double)(t % 5) - 2.0, 0);
        if (changed && t == CHANGED_STEP)
            v.x += 0.5;
        m = wf_move_msg(x->e_udp, x->seq_udp++, v, DT);
        m.as.move.buttons = t % 40 == 10 ? SWEEP_WISH_JUMP : 0;
        ask(x, &x->udp, &m);

        /* The TCP player sends two moves in a batch every other tick. */
        if (t % 2 == 0) {
            sweep_msg_move b[2];
            for (int i = 0; i < 2; i++)
                b[i] = wf_move_msg(x->e_tcp, x->seq_tcp++, sweep_v3(-4, 2, 0), DT).as.move;
            memset(&m, 0, sizeof m);
            m.kind = SWEEP_MSG_MOVE_BATCH;
            m.sequence = x->req++;
            m.as.move_batch.moves = b;
            m.as.move_batch.count = 2;
            ask(x, &x->tcp, &m);
        }

        /* The server role stands on the lift, stepping now and then. */
        if (t % 10 == 5) {
            m = wf_move_msg(x->e_srv, x->seq_srv++, sweep_v3(0.5, 0, 0), DT);
            const sweep_message *res = ask(x, &x->srv, &m);
            if (res->kind == SWEEP_MSG_MOVE_RESULT) {
                x->srv_top = fmax(x->srv_top, res->as.move_result.position.z);
                x->srv_carried += res->as.move_result.carried;
            }
        }
        if (t == 20) {
            memset(&m, 0, sizeof m);
            m.kind = SWEEP_MSG_MOVER_COMMAND;
            m.sequence = x->req++;
            m.as.mover_command.mover = sweep_str_of("sliding door");
            ask(x, &x->srv, &m);
        }
        /* The TCP player leaves and comes back (a new id, drawn). */
        if (t == 100) {
            m = wf_despawn_msg(x->e_tcp, x->req++);
            ask(x, &x->tcp, &m);
            m = wf_spawn_msg(x->req++);
            x->e_tcp = spawned(ask(x, &x->tcp, &m));
            x->seq_tcp = 1;
        }
        wf_ticks(x->w, x->r, 1);
        fold_answers(x);
        x->hashes[t + 1] = sweep__world_state_hash(x->w);
    }
    return x;
}

static void done(run *x)
{
    sweep__owner_release(&x->udp, NULL);
    sweep__owner_release(&x->tcp, NULL);
    sweep__owner_release(&x->srv, NULL);
    sweep__world_close(x->w);
    free(x->r);
    free(x);
}

static void same_requests_same_hash(void **state)
{
    (void)state;
    run *a = play(0), *b = play(0);
    for (uint32_t t = 0; t <= STEPS; t++)
        if (a->hashes[t] != b->hashes[t])
            fail_msg("the state hashes part at step %u", t);
    assert_true(a->answers == b->answers);
    /* Every request was taken: answered with results, never an Error. */
    assert_int_equal(a->errors, 0);
    assert_true(a->results > STEPS);
    /* The hash follows the world: it is not the same from step to step. */
    uint32_t same = 0;
    for (uint32_t t = 1; t <= STEPS; t++)
        same += a->hashes[t] == a->hashes[t - 1];
    assert_int_equal(same, 0);
    /* The script did what it says: the lift carried its rider up. */
    assert_true(a->srv_carried > 0);
    assert_true(a->srv_top > 1.5);
    done(a);
    done(b);
}

static void a_different_request_gives_a_different_hash(void **state)
{
    (void)state;
    run *a = play(0), *c = play(1);
    /* Alike until the step whose move differs, different from there on. */
    for (uint32_t t = 0; t <= CHANGED_STEP; t++)
        assert_true(a->hashes[t] == c->hashes[t]);
    for (uint32_t t = CHANGED_STEP + 1; t <= STEPS; t++)
        if (a->hashes[t] == c->hashes[t])
            fail_msg("the state hashes agree again at step %u", t);
    assert_true(a->answers != c->answers);
    done(a);
    done(c);
}

/* Everything the next move starts from is in the hash, the time budget
 * too: two worlds alike but for their time bank hash differently from the
 * first Spawn, and the next move shows why it matters. */
static void the_hash_covers_the_time_budget(void **state)
{
    (void)state;
    sweep__world_options small = wf_options(), large = wf_options();
    small.time_bank = 0.25;
    large.time_bank = 0.5;
    wf_one s, l;
    wf_one_open(&s, &small, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_one_open(&l, &large, SWEEP_WIRE_ROLE_PLAYER, 0);
    assert_true(sweep__world_state_hash(s.w) == sweep__world_state_hash(l.w));
    uint32_t id = wf_spawn(s.w, &s.o, s.r, 1).entity;
    assert_int_equal(wf_spawn(l.w, &l.o, l.r, 1).entity, id);
    assert_true(sweep__world_state_hash(s.w) != sweep__world_state_hash(l.w));
    sweep_message m = wf_move_msg(id, 1, sweep_v3(1, 0, 0), 0.4);
    assert_true(wf_move(s.w, &s.o, s.r, &m).applied_dt == 0.25);
    assert_true(wf_move(l.w, &l.o, l.r, &m).applied_dt == 0.4);
    wf_one_close(&s);
    wf_one_close(&l);
}

/* And what the next Spawn starts from: the point the round robin is at.
 * A world whose only player came and went is empty, like a fresh one, but
 * places the next player elsewhere. */
static void the_hash_covers_the_next_spawn_point(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one came, fresh;
    wf_one_open(&came, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    wf_one_open(&fresh, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    sweep_message m = wf_despawn_msg(wf_spawn(came.w, &came.o, came.r, 1).entity, 2);
    wf_request(came.w, &came.o, came.r, &m);
    assert_int_equal(came.w->ent_count, 0);
    assert_true(sweep__world_state_hash(came.w) != sweep__world_state_hash(fresh.w));
    assert_int_equal(wf_spawn(came.w, &came.o, came.r, 3).spawn_point, 2);
    assert_int_equal(wf_spawn(fresh.w, &fresh.o, fresh.r, 3).spawn_point, 1);
    wf_one_close(&came);
    wf_one_close(&fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_missing_or_broken_map_is_an_error),
        cmocka_unit_test(same_requests_same_hash),
        cmocka_unit_test(a_different_request_gives_a_different_hash),
        cmocka_unit_test(the_hash_covers_the_time_budget),
        cmocka_unit_test(the_hash_covers_the_next_spawn_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
