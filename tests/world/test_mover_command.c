/*
 * test_mover_command.c - MoverCommand in the world library: only the
 * server role may fire a mover's trigger (a player is refused before its
 * mover's name is even looked at, in words that depend on whether the
 * server trusts any session with the role), the answer names the tick the
 * trigger fires at, and the ticks after it move the mover, which without
 * the command would have stayed.
 */
#include "tests/world/world_fixture.h"

/* The arena's sliding door: triggered by a volume nobody stands in, so it
 * moves only when commanded (maps/arena.sql). */
#define DOOR "sliding door"

static uint32_t mover_index(const sweep__world *w, const char *name)
{
    for (uint32_t i = 0; i < w->level.mover_count; i++)
        if (strcmp(w->level.movers[i].name, name) == 0)
            return i;
    fail_msg("the arena has no mover named %s", name);
    return 0;
}

static sweep_message command_msg(uint32_t sequence, const char *name)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVER_COMMAND;
    m.sequence = sequence;
    m.as.mover_command.mover = sweep_str_of(name);
    return m;
}

/* The text of the refusal of a player's MoverCommand on a world whose
 * sessions could (1) or could not (0) have the server role. */
static void refusal_of_a_player(int role_possible, const char *name, char *text, size_t cap)
{
    sweep__world_options opt = wf_options();
    opt.server_role_possible = role_possible;
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_PLAYER, 0);
    uint64_t hash = sweep__world_state_hash(s.w);
    sweep_message m = command_msg(3, name);
    wf_request(s.w, &s.o, s.r, &m);
    snprintf(text, cap, "%s", wf_error(s.r, SWEEP_WIRE_AUTH_FAILED, 3));
    assert_int_equal(sweep__world_state_hash(s.w), hash);
    /* Nothing fires: the door stays through the ticks. */
    double before[3], after[3];
    uint32_t door = mover_index(s.w, DOOR);
    assert_int_equal(sweep__world_mover_position(s.w, door, before), 0);
    wf_ticks(s.w, s.r, 30);
    assert_int_equal(sweep__world_mover_position(s.w, door, after), 0);
    assert_memory_equal(before, after, sizeof before);
    wf_one_close(&s);
}

static void a_player_is_refused_auth_failed(void **state)
{
    (void)state;
    char none[400], some[400], unknown[400];
    refusal_of_a_player(0, DOOR, none, sizeof none);
    refusal_of_a_player(1, DOOR, some, sizeof some);
    assert_non_null(strstr(none, "MoverCommand needs the server role"));
    assert_non_null(strstr(some, "MoverCommand needs the server role"));
    /* Where no session can have the role, the text says so rather than
     * sending the player after a token it cannot get. */
    assert_non_null(strstr(none, "this server trusts none"));
    assert_null(strstr(some, "trusts none"));
    assert_non_null(strstr(some, "Hello.auth_token must be a server token"));
    assert_string_not_equal(none, some);
    /* A name that is no mover is refused the same way: a player learns no names. */
    refusal_of_a_player(1, "no such mover", unknown, sizeof unknown);
    assert_string_equal(unknown, some);
}

static void the_server_role_fires_the_trigger_at_the_next_tick(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_SERVER, 0);
    sweep__world *still = wf_open(&opt);
    uint32_t door = mover_index(s.w, DOOR);
    double at[3];
    assert_int_equal(sweep__world_mover_position(s.w, door, at), 0);
    assert_true(at[0] == 29.1 && at[1] == -6.25 && at[2] == 0.0); /* maps/arena.sql */
    assert_int_equal(sweep__world_mover_position(s.w, s.w->mover_count, at), -1);

    wf_ticks(s.w, s.r, 3);
    wf_ticks(still, s.r, 3);
    wf_clear(s.r);
    sweep_message m = command_msg(5, DOOR);
    wf_request(s.w, &s.o, s.r, &m);
    const sweep_message *out = wf_only(s.r, SWEEP_MSG_MOVER_COMMANDED);
    assert_int_equal(out->sequence, 5);
    assert_int_equal(out->server_tick, 3);
    assert_int_equal(out->as.mover_commanded.mover, s.w->level.movers[door].id);
    assert_int_equal(out->as.mover_commanded.mover, 1);
    assert_int_equal(out->as.mover_commanded.tick, 4);
    /* Not before its tick. */
    double now[3];
    assert_int_equal(sweep__world_mover_position(s.w, door, now), 0);
    assert_memory_equal(now, at, sizeof at);
    assert_int_equal(sweep__world_state_hash(s.w), sweep__world_state_hash(still));

    /* Half a second later it is sliding to -y; the uncommanded twin's has not moved. */
    wf_ticks(s.w, s.r, 30);
    wf_ticks(still, s.r, 30);
    double moved[3], stayed[3];
    assert_int_equal(sweep__world_mover_position(s.w, door, moved), 0);
    assert_int_equal(sweep__world_mover_position(still, door, stayed), 0);
    assert_true(moved[1] < at[1] - 0.3);
    assert_true(moved[1] > -7.75); /* the end of its path, reached after 1 s */
    assert_true(moved[0] == at[0] && moved[2] == at[2]);
    assert_memory_equal(stayed, at, sizeof at);
    assert_int_not_equal(sweep__world_state_hash(s.w), sweep__world_state_hash(still));

    sweep__world_close(still);
    wf_one_close(&s);
}

/* Lines in the file so far holding the word. */
static int lines_with(FILE *f, const char *word)
{
    fflush(stderr);
    rewind(f);
    char line[1200];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, word) != NULL;
    return n;
}

/* A game server firing movers as fast as it can writes at most the
 * owner's line rate into the log: the rest are counted, and the next
 * line written says how many were not. */
static void the_server_roles_lines_are_capped(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_SERVER, 0);
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0 && dup2(fileno(f), 2) == 2);
    sweep__log_set_level(SWEEP_LOG_INFO);
    sweep__world_sink sink = wf_sink(s.r);
    const uint64_t second = 1000000000u;
    for (uint32_t i = 0; i < 1000; i++) {
        sweep_message m = command_msg(1 + i, DOOR);
        /* A thousand in the first second, one more a second later. */
        sweep__request rq = {&s.o, &sink, i < 999 ? second : 2 * second, NULL, 0};
        wf_clear(s.r);
        sweep__world_request(s.w, &rq, &m);
        assert_non_null(wf_only(s.r, SWEEP_MSG_MOVER_COMMANDED));
    }
    int written = lines_with(f, "event=mover_command");
    int told = lines_with(f, "suppressed=989");
    sweep__log_set_level(SWEEP_LOG_ERROR);
    fflush(stderr);
    assert_true(dup2(saved, 2) == 2);
    close(saved);
    fclose(f);
    assert_int_equal(written, (int)SWEEP__LINE_LOG_RATE + 1);
    assert_int_equal(told, 1);
    assert_int_equal(s.o.line_log_suppressed, 0);
    wf_one_close(&s);
}

static void an_unknown_mover_is_named_back(void **state)
{
    (void)state;
    sweep__world_options opt = wf_options();
    wf_one s;
    wf_one_open(&s, &opt, SWEEP_WIRE_ROLE_SERVER, 0);
    sweep_message m = command_msg(1, "trapdoor");
    wf_request(s.w, &s.o, s.r, &m);
    const char *why = wf_error(s.r, SWEEP_WIRE_UNKNOWN_MOVER, 1);
    assert_non_null(strstr(why, "no mover named \"trapdoor\" (4 movers)"));
    /* A name is matched whole, not as a prefix. */
    wf_clear(s.r);
    m = command_msg(2, "sliding");
    wf_request(s.w, &s.o, s.r, &m);
    wf_error(s.r, SWEEP_WIRE_UNKNOWN_MOVER, 2);
    wf_clear(s.r);
    m = command_msg(3, "");
    wf_request(s.w, &s.o, s.r, &m);
    assert_non_null(strstr(wf_error(s.r, SWEEP_WIRE_UNKNOWN_MOVER, 3), "empty"));
    wf_one_close(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_player_is_refused_auth_failed),
        cmocka_unit_test(the_server_role_fires_the_trigger_at_the_next_tick),
        cmocka_unit_test(the_server_roles_lines_are_capped),
        cmocka_unit_test(an_unknown_mover_is_named_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
