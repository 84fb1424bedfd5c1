/*
 * test_check.c - the core's invariant checks (core/check.h) are live in a
 * checked build and absent from a release build; this program is built
 * both ways (make test, make DEBUG=1 test) and tests what its build is.
 *
 * Checked (SWEEP_CHECKS: make DEBUG=1, the sanitizer and fault builds):
 *   - a false SWEEP_CORE_CHECK aborts, naming its file, line, function and
 *     expression on stderr; a true one evaluates its argument once;
 *   - the core library was built with its checks too: a mover given a
 *     state its machine cannot reach (a path tick past the path's end,
 *     set here by hand) stops the next tick in core/mover.c.
 * Release:
 *   - a check never evaluates its argument, even a false one;
 *   - the library checks nothing: the same mover ticks on.
 *
 * The aborting calls run in a child process, whose stderr is read back.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/check.h"
#include "core/mover.h"
#include "core/mover_impl.h"

static int evaluations;

static int count_evaluation(void)
{
    return ++evaluations;
}

/* The line of the check in fail_check, for the expected message. */
enum { FAIL_LINE = __LINE__ + 4 };

static void fail_check(void)
{
    SWEEP_CORE_CHECK(count_evaluation() == 0);
}

/* A door of one triangle on a two-keyframe path, running (ALWAYS). */
static sweep_movers *one_mover(void)
{
    static const sweep_vec3 v[3] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
    static const uint32_t ix[3] = {0, 1, 2};
    sweep_keyframe keys[2] = {{0.0, {{0, 0, 0}, {0, 0, 0, 1}}}, {1.0, {{2, 0, 0}, {0, 0, 0, 1}}}};
    sweep_mover_desc d;
    memset(&d, 0, sizeof d);
    d.vertices = v, d.vertex_count = 3, d.indices = ix, d.triangle_count = 1;
    d.keys = keys, d.key_count = 2;
    d.mode = SWEEP_MOVER_PINGPONG, d.trigger = SWEEP_TRIGGER_ALWAYS, d.blocked = SWEEP_BLOCKED_STOP;
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_movers_create(&d, 1, 60.0, 1, &mv), SWEEP_OK);
    return mv;
}

/* One tick of a mover whose state is past its path's end: a state no
 * tick of sweep__mover_next can make. */
static sweep_status tick_unreachable_state(void)
{
    sweep_movers *mv = one_mover();
    sweep_config cfg;
    sweep_config_default(&cfg);
    assert_int_equal(sweep_movers_tick(mv, NULL, &cfg, NULL, 0, NULL), SWEEP_OK); /* a reachable state first */
    mv->m[0].state.path_tick = mv->m[0].path_ticks + 5;
    sweep_status st = sweep_movers_tick(mv, NULL, &cfg, NULL, 0, NULL);
    sweep_movers_destroy(mv);
    return st;
}

#if SWEEP_CHECKS
static void tick_in_child(void)
{
    (void)tick_unreachable_state();
}

/* Runs fn in a child with stderr into a pipe: its wait status, and what it
 * wrote in err. */
static int run_child(void (*fn)(void), char *err, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        signal(SIGABRT, SIG_DFL);
        fn();
        _exit(0); /* the check did not stop it */
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fds[0], err + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* A false check aborts with its place and expression. */
static void false_check_aborts_with_its_place(void **state)
{
    (void)state;
    char err[1024], want[512];
    int status = run_child(fail_check, err, sizeof err);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    snprintf(want, sizeof want, "sweep: core invariant broken at %s:%d (fail_check): count_evaluation() == 0\n",
             __FILE__, FAIL_LINE);
    assert_string_equal(err, want);
}

/* A true check runs its argument once and goes on. */
static void true_check_evaluates_once(void **state)
{
    (void)state;
    evaluations = 0;
    SWEEP_CORE_CHECK(count_evaluation() == 1);
    assert_int_equal(evaluations, 1);
}

/* The library's own checks are compiled in: an unreachable mover state
 * stops the tick at the state machine's check. */
static void library_checks_its_invariants(void **state)
{
    (void)state;
    char err[1024];
    int status = run_child(tick_in_child, err, sizeof err);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    if (!strstr(err, "sweep: core invariant broken at core/mover.c:") ||
        !strstr(err, "(sweep__mover_next): sweep__mover_state_ok(m, m->state)\n"))
        fail_msg("unexpected report: %s", err);
}
#else
/* A check compiles to nothing: its argument is never evaluated, and a
 * false one does not stop the program. */
static void check_never_evaluates(void **state)
{
    (void)state;
    evaluations = 0;
    fail_check();
    SWEEP_CORE_CHECK(count_evaluation() == 1);
    assert_int_equal(evaluations, 0);
}

/* The library checks nothing either: the unreachable state ticks on. */
static void library_checks_nothing(void **state)
{
    (void)state;
    assert_int_equal(tick_unreachable_state(), SWEEP_OK);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#if SWEEP_CHECKS
        cmocka_unit_test(false_check_aborts_with_its_place),
        cmocka_unit_test(true_check_evaluates_once),
        cmocka_unit_test(library_checks_its_invariants),
#else
        cmocka_unit_test(check_never_evaluates),
        cmocka_unit_test(library_checks_nothing),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
