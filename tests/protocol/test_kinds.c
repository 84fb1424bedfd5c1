/*
 * test_kinds.c - the columns of protocol/kinds.h agree with each other and
 * with sweep.fbs: every kind has its own name, as the schema spells it; a
 * recorded kind is a request; the kinds only the server sends are no
 * requests; and the sets the server and its logs depend on (what is
 * recorded, who may send what) are the ones the golden logs were made with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/message.h"

/* Is k one of the n kinds of set? */
static int in(sweep_msg_kind k, const sweep_msg_kind *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == k)
            return 1;
    return 0;
}

#define IN(k, set) in((k), (set), sizeof(set) / sizeof((set)[0]))

/* What a server accepts; every other kind it answers with UnknownMessage. */
static const sweep_msg_kind requests[] = {
    SWEEP_MSG_HELLO,      SWEEP_MSG_PING,    SWEEP_MSG_BYE,       SWEEP_MSG_SPAWN,
    SWEEP_MSG_DESPAWN,    SWEEP_MSG_MOVE,    SWEEP_MSG_MOVE_BATCH, SWEEP_MSG_COLLIDE,
    SWEEP_MSG_GET_STATS,  SWEEP_MSG_WATCH_WORLD, SWEEP_MSG_MOVER_COMMAND, SWEEP_MSG_ENTITY_COMMANDS,
    SWEEP_MSG_WATCH_ENTITIES, SWEEP_MSG_GET_ENTITY, SWEEP_MSG_OPEN_WORLD, SWEEP_MSG_CLOSE_WORLD,
    SWEEP_MSG_QUERY,
};
/* What only a session of the server role may send. */
static const sweep_msg_kind server_role[] = {
    SWEEP_MSG_MOVER_COMMAND, SWEEP_MSG_ENTITY_COMMANDS, SWEEP_MSG_WATCH_ENTITIES,
    SWEEP_MSG_GET_ENTITY,    SWEEP_MSG_OPEN_WORLD,      SWEEP_MSG_CLOSE_WORLD,
};
static const sweep_msg_kind before_hello[] = {SWEEP_MSG_HELLO, SWEEP_MSG_PING, SWEEP_MSG_BYE};
/* The IN records of a session log: a different set would make the golden
 * logs replay otherwise (EntityCommands and Query came after them: they
 * hold none). OpenWorld and CloseWorld are the server's, no world's: never
 * recorded. A Query changes nothing, but its answer is checked. */
static const sweep_msg_kind recorded[] = {
    SWEEP_MSG_SPAWN, SWEEP_MSG_DESPAWN, SWEEP_MSG_MOVE, SWEEP_MSG_MOVE_BATCH, SWEEP_MSG_MOVER_COMMAND,
    SWEEP_MSG_ENTITY_COMMANDS, SWEEP_MSG_QUERY,
};

static void test_names_are_unique_and_not_empty(void **state)
{
    (void)state;
    for (int k = SWEEP_MSG_NONE + 1; k < SWEEP_MSG_KIND_COUNT; k++) {
        const char *a = sweep_msg_kind_name((sweep_msg_kind)k);
        assert_non_null(a);
        if (a[0] == 0 || strcmp(a, "Unknown") == 0 || strcmp(a, "NONE") == 0)
            fail_msg("kind %d is named '%s'", k, a);
        for (int j = SWEEP_MSG_NONE + 1; j < k; j++)
            if (strcmp(a, sweep_msg_kind_name((sweep_msg_kind)j)) == 0)
                fail_msg("kinds %d and %d are both named %s", j, k, a);
    }
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_NONE), "NONE");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_MOVER_COMMAND), "MoverCommand");
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_MOVE_RESULT_BATCH), "MoveResultBatch");
}

/* The names are union Body's members in sweep.fbs, in its order (the
 * kinds' numbers), so a log line can be matched against the schema. */
static void test_names_are_the_schemas(void **state)
{
    (void)state;
    FILE *f = fopen("protocol/sweep.fbs", "r");
    if (!f)
        fail_msg("protocol/sweep.fbs not found: run the test from the top of the repository");
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *p = strstr(text, "\nunion Body {");
    assert_non_null(p);
    p = strchr(p, '{') + 1;
    int k = SWEEP_MSG_NONE + 1;
    for (;;) {
        p += strspn(p, " \t\r\n,");
        if (*p == '}' || *p == 0)
            break;
        size_t len = strcspn(p, " \t\r\n,}");
        if (k >= SWEEP_MSG_KIND_COUNT)
            fail_msg("sweep.fbs has a member %.*s past the last kind", (int)len, p);
        const char *name = sweep_msg_kind_name((sweep_msg_kind)k);
        if (strlen(name) != len || memcmp(name, p, len) != 0)
            fail_msg("kind %d is named %s; sweep.fbs says %.*s", k, name, (int)len, p);
        p += len;
        k++;
    }
    assert_int_equal(*p, '}');
    assert_int_equal(k, SWEEP_MSG_KIND_COUNT);
}

static void test_requests(void **state)
{
    (void)state;
    for (int i = SWEEP_MSG_NONE + 1; i < SWEEP_MSG_KIND_COUNT; i++) {
        sweep_msg_kind k = (sweep_msg_kind)i;
        const char *name = sweep_msg_kind_name(k);
        if (sweep_msg_kind_is_request(k) != IN(k, requests))
            fail_msg("%s: is_request says %d", name, sweep_msg_kind_is_request(k));
        if (sweep_msg_kind_is_request(k) != (sweep_msg_kind_sender(k) != SWEEP_MSG_SENDER_NOBODY))
            fail_msg("%s: is_request and its sender disagree", name);
        if (sweep_msg_kind_is_recorded(k) && !sweep_msg_kind_is_request(k))
            fail_msg("%s is recorded but is no request", name);
    }
    /* Replies and pushes only the server sends. */
    assert_false(sweep_msg_kind_is_request(SWEEP_MSG_MOVE_RESULT));
    assert_false(sweep_msg_kind_is_request(SWEEP_MSG_WELCOME));
    assert_false(sweep_msg_kind_is_request(SWEEP_MSG_ERROR));
    assert_false(sweep_msg_kind_is_request(SWEEP_MSG_CHALLENGE));
    assert_int_equal(sweep_msg_kind_sender(SWEEP_MSG_MOVE_RESULT), SWEEP_MSG_SENDER_NOBODY);
}

static void test_recorded(void **state)
{
    (void)state;
    for (int i = SWEEP_MSG_NONE + 1; i < SWEEP_MSG_KIND_COUNT; i++) {
        sweep_msg_kind k = (sweep_msg_kind)i;
        if (sweep_msg_kind_is_recorded(k) != IN(k, recorded))
            fail_msg("%s: is_recorded says %d", sweep_msg_kind_name(k), sweep_msg_kind_is_recorded(k));
    }
}

static void test_senders(void **state)
{
    (void)state;
    for (int i = SWEEP_MSG_NONE + 1; i < SWEEP_MSG_KIND_COUNT; i++) {
        sweep_msg_kind k = (sweep_msg_kind)i;
        sweep_msg_sender want = !IN(k, requests)               ? SWEEP_MSG_SENDER_NOBODY
                                : IN(k, before_hello)          ? SWEEP_MSG_SENDER_ANYONE
                                : IN(k, server_role)           ? SWEEP_MSG_SENDER_SERVER_ROLE
                                                               : SWEEP_MSG_SENDER_WELCOMED;
        if (sweep_msg_kind_sender(k) != want)
            fail_msg("%s: sender %d, expected %d", sweep_msg_kind_name(k), (int)sweep_msg_kind_sender(k), (int)want);
    }
    assert_int_equal(sweep_msg_kind_sender(SWEEP_MSG_MOVER_COMMAND), SWEEP_MSG_SENDER_SERVER_ROLE);
    assert_int_equal(sweep_msg_kind_sender(SWEEP_MSG_HELLO), SWEEP_MSG_SENDER_ANYONE);
    assert_int_equal(sweep_msg_kind_sender(SWEEP_MSG_MOVE), SWEEP_MSG_SENDER_WELCOMED);
}

/* NONE and numbers past the last kind (what a buffer may claim) are
 * nothing anyone may send. */
static void test_no_kind(void **state)
{
    (void)state;
    const int none[] = {SWEEP_MSG_NONE, SWEEP_MSG_KIND_COUNT, 255, -1};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        sweep_msg_kind k = (sweep_msg_kind)none[i];
        assert_false(sweep_msg_kind_is_request(k));
        assert_false(sweep_msg_kind_is_recorded(k));
        assert_int_equal(sweep_msg_kind_sender(k), SWEEP_MSG_SENDER_NOBODY);
    }
    assert_string_equal(sweep_msg_kind_name(SWEEP_MSG_KIND_COUNT), "Unknown");
    assert_string_equal(sweep_msg_kind_name((sweep_msg_kind)-1), "Unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_unique_and_not_empty),
        cmocka_unit_test(test_names_are_the_schemas),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_senders),
        cmocka_unit_test(test_no_kind),
    };
    return cmocka_run_group_tests_name("protocol kinds", tests, NULL, NULL);
}
