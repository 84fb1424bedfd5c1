/*
 * cmocka_group.c - what every cmocka test program does around its group of
 * tests, without a line in its main(): the programs are linked with
 * -Wl,--wrap=_cmocka_run_group_tests (tests/tests.mk), so their
 * cmocka_run_group_tests and cmocka_run_group_tests_name land here.
 *
 * - SWEEP_TEST_FILTER=PATTERN runs only the tests whose names match the
 *   shell pattern (fnmatch(3): *, ?, [...]); with none matching, the group's
 *   own setup and teardown are not run either.
 * - SWEEP_TEST_CASE_TIMEOUT=SECONDS (default 120, 0 for none) limits each
 *   test (its setup, body and teardown) and the group's setup and teardown:
 *   past it the program prints "[  TIMEOUT ] name ..." and aborts.
 *   tests/run-tests.sh counts that program as failed and names the test.
 *
 * Why abort and not fail the one test and go on: a test stuck past its
 * limit may hold anything (a lock inside libc, a half-written socket, a
 * server it started), so nothing after it could be trusted. The servers
 * the fixtures start die with the program (PR_SET_PDEATHSIG), and the
 * runner kills whatever else is left in the program's process group.
 *
 * How the running test is known: cmocka calls each test's setup just before
 * its body, in the order of the array, so every test here gets a setup of
 * ours (which calls the test's own, if it has one) that takes the next name
 * of the array and starts that test's clock. That is why the filter is
 * applied here, to the array cmocka gets, and not by cmocka's own
 * cmocka_set_test_filter: the array is then exactly the tests that run.
 */
#include <fnmatch.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#define DEFAULT_TIMEOUT 120

int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);

/* The tests that run, as the program gave them, and the next one to start. */
static const struct CMUnitTest **run;
static size_t run_count, run_next;
static CMFixtureFunction group_setup_of, group_teardown_of;
static unsigned limit;

/* Written whole by the signal handler, so composed beforehand. */
static char overran[768];
static size_t overran_len;

/* Line-buffered from the start, so that what a test printed before an
 * abort is in the output rather than lost in stdio's buffer. */
__attribute__((constructor)) static void line_buffered(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t n = write(STDOUT_FILENO, overran, overran_len);
    (void)n;
    abort();
}

/* Starts the clock of WHAT (a test's name, or the group's setup). */
static void watch(const char *what)
{
    if (!limit)
        return;
    int n = snprintf(overran, sizeof overran,
                     "[  TIMEOUT ] %s ran over %u s (SWEEP_TEST_CASE_TIMEOUT); the program stops here\n",
                     what, limit);
    overran_len = n < 0 ? 0 : (size_t)n < sizeof overran ? (size_t)n : sizeof overran - 1;
    alarm(limit);
}

static int each_setup(void **state)
{
    if (run_next >= run_count) /* cmocka ran a setup this file did not expect */
        return -1;
    const struct CMUnitTest *t = run[run_next++];
    watch(t->name);
    return t->setup_func ? t->setup_func(state) : 0;
}

static int group_setup(void **state)
{
    watch("group setup");
    return group_setup_of(state);
}

static int group_teardown(void **state)
{
    watch("group teardown");
    return group_teardown_of(state);
}

static unsigned case_timeout(void)
{
    const char *s = getenv("SWEEP_TEST_CASE_TIMEOUT");
    if (!s || !*s)
        return DEFAULT_TIMEOUT;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || s[0] == '-' || v > 86400) {
        fprintf(stderr, "SWEEP_TEST_CASE_TIMEOUT=%s is not a number of seconds (0 to 86400); using %d\n", s,
                DEFAULT_TIMEOUT);
        return DEFAULT_TIMEOUT;
    }
    return (unsigned)v;
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup_fn,
                                   CMFixtureFunction group_teardown_fn)
{
    const char *filter = getenv("SWEEP_TEST_FILTER");
    if (filter && !*filter)
        filter = NULL;
    struct CMUnitTest *copy = calloc(num_tests ? num_tests : 1, sizeof *copy);
    run = calloc(num_tests ? num_tests : 1, sizeof *run);
    if (!copy || !run) {
        fprintf(stderr, "cmocka_group: out of memory\n");
        return 1;
    }
    run_count = run_next = 0;
    for (size_t i = 0; i < num_tests; i++) {
        const struct CMUnitTest *t = &tests[i];
        /* The entries cmocka itself would leave out stay out. */
        if (!t->name || (!t->test_func && !t->setup_func && !t->teardown_func))
            continue;
        if (filter && fnmatch(filter, t->name, 0) != 0)
            continue;
        copy[run_count] = *t;
        copy[run_count].setup_func = each_setup;
        run[run_count++] = t;
    }
    limit = case_timeout();
    struct sigaction sa = {.sa_handler = on_alarm}, old;
    sigemptyset(&sa.sa_mask);
    if (limit)
        sigaction(SIGALRM, &sa, &old);
    group_setup_of = group_setup_fn;
    group_teardown_of = group_teardown_fn;
    int any = run_count > 0;
    int rc = __real__cmocka_run_group_tests(group_name, copy, run_count, any && group_setup_fn ? group_setup : NULL,
                                            any && group_teardown_fn ? group_teardown : NULL);
    if (limit) {
        alarm(0);
        sigaction(SIGALRM, &old, NULL);
    }
    free(copy);
    free(run);
    run = NULL;
    return rc;
}
