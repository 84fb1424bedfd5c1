/*
 * test_text_input.c - the number and point parsing every tool shares, and
 * the "key = value" lines of settings files.
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/parse.h"
#include "maps/text_input.h"

static void counts(void **state)
{
    (void)state;
    uint64_t v = 0;
    uint32_t w = 0;
    assert_true(sweep_parse_u64("42", 0, 100, &v) && v == 42);
    assert_true(sweep_parse_u64("18446744073709551615", 0, UINT64_MAX, &v) && v == UINT64_MAX);
    static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "101", "18446744073709551616", NULL};
    for (int i = 0; bad[i]; i++)
        assert_false(sweep_parse_u64(bad[i], 0, 100, &v));
    assert_false(sweep_parse_u64(NULL, 0, 100, &v));
    assert_false(sweep_parse_u32("4294967296", 0, UINT32_MAX, &w));
    assert_true(sweep_parse_u32("4294967295", 0, UINT32_MAX, &w) && w == UINT32_MAX);
    assert_false(sweep_parse_u32("3", 4, 9, &w));
}

static void numbers(void **state)
{
    (void)state;
    double d = 0;
    assert_true(sweep_parse_double("0.25", 0, 1, &d) && d == 0.25);
    assert_true(sweep_parse_double("-1e3", -DBL_MAX, DBL_MAX, &d) && d == -1000.0);
    static const char *const bad[] = {"", "nan", "inf", "-inf", "1e999", "2", "0.5x", "0.5 ", NULL};
    for (int i = 0; bad[i]; i++)
        assert_false(sweep_parse_double(bad[i], -1, 1, &d));
    assert_false(sweep_parse_double("inf", -DBL_MAX, DBL_MAX, &d));
}

static void vectors(void **state)
{
    (void)state;
    sweep_vec3 v;
    assert_true(sweep_parse_vec3("1,-2.5,3e2", &v));
    assert_true(v.x == 1.0 && v.y == -2.5 && v.z == 300.0);
    /* NaN is read as NaN: a client may send it on purpose (to test a server). */
    assert_true(sweep_parse_vec3("nan,0,0", &v) && isnan(v.x));
    static const char *const bad[] = {"", "1,2", "1,2,3,4", "1;2;3", "1,2,3 ", "1,,3", "1,2,x", NULL};
    for (int i = 0; bad[i]; i++)
        assert_false(sweep_parse_vec3(bad[i], &v));
}

static void point_files(void **state)
{
    (void)state;
    fixture *f = fixture_new();
    assert_non_null(f);
    char path[4300], err[600];
    sweep_vec3 *pts = NULL;
    uint32_t n = 0;
    snprintf(path, sizeof path, "%s", fixture_path(f, "ok.txt"));
    const char ok[] = "# spawns\n\n1 2 3\n  -4.5\t5 6  \n7 8 9 # the hall, as --help allows\n0 0 1# tight\n";
    assert_true(fixture_write(path, ok, sizeof ok - 1));
    if (!sweep_read_points(path, 100, &pts, &n, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(n, 4);
    assert_true(pts[1].x == -4.5 && pts[1].y == 5.0 && pts[1].z == 6.0);
    assert_true(pts[2].x == 7.0 && pts[2].y == 8.0 && pts[2].z == 9.0);
    assert_true(pts[3].x == 0.0 && pts[3].y == 0.0 && pts[3].z == 1.0);
    free(pts);

    struct {
        const char *text, *says;
    } bad[] = {{"1 2\n", "line 1: expected three numbers"},
               {"1 2 # 3\n", "line 1: expected three numbers"},
               {"1 2 3 x # four\n", "line 1: expected three numbers"},
               {"1 2 3\n1 2 3 4\n", "line 2: expected three numbers"},
               {"1 2 nan\n", "line 1: coordinates must be finite"},
               {"1 2 1000\n", "at most 100"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_true(fixture_write(path, bad[i].text, strlen(bad[i].text)));
        pts = NULL;
        assert_false(sweep_read_points(path, 100, &pts, &n, err, sizeof err));
        assert_non_null(strstr(err, bad[i].says));
        assert_non_null(strstr(err, path));
    }
    /* A comment longer than a line may be, ending in three numbers: named,
     * not read as a point from its tail. */
    char longer[700];
    memset(longer, 'x', sizeof longer);
    memcpy(longer, "# ", 2);
    memcpy(longer + sizeof longer - 8, " 7 8 9\n", 7);
    assert_true(fixture_write(path, longer, sizeof longer - 1));
    pts = NULL;
    assert_false(sweep_read_points(path, 100, &pts, &n, err, sizeof err));
    if (!strstr(err, "line 1: longer than 510 bytes"))
        fail_msg("error '%s'", err);
    assert_false(sweep_read_points(fixture_path(f, "missing.txt"), 100, &pts, &n, err, sizeof err));
    assert_non_null(strstr(err, "missing.txt"));
    fixture_cleanup(f);
}

static void settings_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int kind;
        const char *key, *value;
    } cases[] = {
        {"walk_speed = 5\n", 1, "walk_speed", "5"},
        {"  gravity=0, 0, -9.81   # down\r\n", 1, "gravity", "0, 0, -9.81"},
        {"\tkey\t=\tvalue with blanks\t", 1, "key", "value with blanks"},
        {"a = b = c", 1, "a", "b = c"},
        {"", 0, NULL, NULL},
        {"   \t\r\n", 0, NULL, NULL},
        {"# only a comment = 5", 0, NULL, NULL},
        {"   # indented comment", 0, NULL, NULL},
        {"walk_speed 5", -1, NULL, NULL},
        {" = 5", -1, NULL, NULL},
        {"walk_speed =  # no value", -1, NULL, NULL},
        {"walk_speed # = 5", -1, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "%s", cases[i].line);
        char *key = NULL, *value = NULL;
        int kind = sweep_split_setting(line, &key, &value);
        if (kind != cases[i].kind)
            fail_msg("'%s': %d, expected %d", cases[i].line, kind, cases[i].kind);
        if (kind == 1) {
            assert_string_equal(key, cases[i].key);
            assert_string_equal(value, cases[i].value);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts),
        cmocka_unit_test(numbers),
        cmocka_unit_test(vectors),
        cmocka_unit_test(point_files),
        cmocka_unit_test(settings_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
