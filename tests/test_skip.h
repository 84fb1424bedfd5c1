/*
 * test_skip.h - a test that cannot be run honestly on this machine skips
 * saying why. skip_because("no %s", path) prints the line "skipped: <why>"
 * on the test's own output, then calls cmocka's skip(); skip_reason prints
 * the line alone, for a helper whose caller skips. tests/run-tests.sh lists
 * every skipped test with the last such line it printed, and one without a
 * line as "no reason given".
 *
 * Header-only, as every test program is one .c file; where skip_because is
 * used, <cmocka.h> (its skip()) must be included too. The reason is one
 * line.
 */
#ifndef SWEEP_TESTS_TEST_SKIP_H
#define SWEEP_TESTS_TEST_SKIP_H

#include <stdio.h>

#define skip_reason(...) (printf("skipped: "), printf(__VA_ARGS__), (void)printf("\n"))

#define skip_because(...) \
    do { \
        skip_reason(__VA_ARGS__); \
        skip(); \
    } while (0)

#endif
