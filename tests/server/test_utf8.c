/*
 * test_utf8.c - server/utf8.h against RFC 3629's table of well-formed byte
 * sequences: every first byte's range of second bytes, overlong forms,
 * surrogates, code points past U+10FFFF and sequences cut short.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/utf8.h"

static int valid(const char *s, size_t n)
{
    return sweep__utf8_valid((const uint8_t *)s, n);
}

static void well_formed_sequences_pass(void **state)
{
    (void)state;
    assert_true(valid("", 0));
    assert_true(valid("arena #2", 8));
    assert_true(valid("\xC2\x80", 2));                 /* U+0080 */
    assert_true(valid("\xDF\xBF", 2));                 /* U+07FF */
    assert_true(valid("\xE0\xA0\x80", 3));             /* U+0800 */
    assert_true(valid("\xED\x9F\xBF", 3));             /* U+D7FF, below the surrogates */
    assert_true(valid("\xEE\x80\x80", 3));             /* U+E000 */
    assert_true(valid("\xEF\xBF\xBD", 3));             /* U+FFFD */
    assert_true(valid("\xF0\x90\x80\x80", 4));         /* U+10000 */
    assert_true(valid("\xF4\x8F\xBF\xBF", 4));         /* U+10FFFF */
    assert_true(valid("z\xC3\xA9ro \xE2\x82\xAC", 9)); /* "zéro €" */
    assert_int_equal(sweep__utf8_next((const uint8_t *)"\xF0\x9F\x98\x80!", 5), 4);
}

static void ill_formed_sequences_fail(void **state)
{
    (void)state;
    assert_false(valid("\x80", 1));             /* a continuation first */
    assert_false(valid("\xC0\xAF", 2));         /* overlong '/' */
    assert_false(valid("\xC1\xBF", 2));         /* overlong */
    assert_false(valid("\xE0\x9F\xBF", 3));     /* overlong U+07FF */
    assert_false(valid("\xED\xA0\x80", 3));     /* U+D800, a surrogate */
    assert_false(valid("\xF0\x8F\xBF\xBF", 4)); /* overlong U+FFFF */
    assert_false(valid("\xF4\x90\x80\x80", 4)); /* U+110000 */
    assert_false(valid("\xF5\x80\x80\x80", 4)); /* no such first byte */
    assert_false(valid("\xFF", 1));
    assert_false(valid("\xE2\x82", 2));     /* cut short */
    assert_false(valid("\xE2\x28\xA1", 3)); /* a second byte that continues nothing */
    assert_false(valid("ok\xFE", 3));
    assert_int_equal(sweep__utf8_next((const uint8_t *)"\xC3", 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(well_formed_sequences_pass),
        cmocka_unit_test(ill_formed_sequences_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
