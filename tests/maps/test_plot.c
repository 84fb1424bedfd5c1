/*
 * test_plot.c - the SVG pictures of maps/plot.h, and sweep-walk --svg.
 *
 * A small level made here (a floor, a wall, a lift) is drawn with two
 * tracks and a mark of each kind, and the file is read back as text: its
 * frame, how many paths and symbols it holds, text escaped, points and
 * marks thinned, lines broken, side views, what cannot be written. The
 * program test runs the built sweep-walk on the sample arena.
 */
#include "map_fixture.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "maps/level.h"
#include "maps/levelgen.h"
#include "maps/plot.h"

static int setup(void **state)
{
    *state = fixture_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_cleanup(*state);
    return 0;
}

/* A floor of 10 x 10 at z = 0, a wall box on it, a spawn, and a lift (a
 * 1 x 1 box) that rises 3 units. */
static void small_level(sweep_level *lv)
{
    sweep_level_init(lv);
    assert_int_equal(sweep_level_add_material(lv, 1, "floor", 1.0, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_quad(lv, sweep_v3(0, 0, 0), sweep_v3(10, 0, 0), sweep_v3(10, 10, 0),
                                          sweep_v3(0, 10, 0), 1),
                     SWEEP_OK);
    assert_int_equal(sweep_level_add_box(lv, sweep_v3(6, 2, 0), sweep_v3(6.5, 8, 2), 1, 0), SWEEP_OK);
    assert_int_equal(sweep_level_add_spawn(lv, sweep_v3(1, 1, 1)), SWEEP_OK);
    uint32_t mi, v[8];
    assert_int_equal(sweep_level_add_mover(lv, 5, "lift", &mi), SWEEP_OK);
    sweep_level_mover *m = &lv->movers[mi];
    for (int k = 0; k < 8; k++)
        assert_int_equal(sweep_level_mover_add_vertex(m, sweep_v3(k & 1, (k >> 1) & 1, ((k >> 2) & 1) * 0.2), &v[k]),
                         SWEEP_OK);
    static const int faces[6][4] = {{4, 5, 7, 6}, {0, 2, 3, 1}, {1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3}, {0, 1, 5, 4}};
    for (int f = 0; f < 6; f++) {
        const int *q = faces[f];
        assert_int_equal(sweep_level_mover_add_triangle(m, v[q[0]], v[q[1]], v[q[2]], 1), SWEEP_OK);
        assert_int_equal(sweep_level_mover_add_triangle(m, v[q[0]], v[q[2]], v[q[3]], 1), SWEEP_OK);
    }
    assert_int_equal(sweep_level_mover_add_keyframe(m, 0.0, sweep_v3(2, 7, 0), sweep_quat_identity()), SWEEP_OK);
    assert_int_equal(sweep_level_mover_add_keyframe(m, 2.0, sweep_v3(2, 7, 3), sweep_quat_identity()), SWEEP_OK);
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0, len = strlen(what);
    for (const char *p = strstr(text, what); p; p = strstr(p + len, what))
        n++;
    return n;
}

/* Writes the plot into the fixture directory and returns the text (to free). */
static char *write_and_read(fixture *f, const sweep_plot *p, const char *title)
{
    char err[600], path[4200];
    snprintf(path, sizeof path, "%s", fixture_path(f, "plot.svg"));
    if (sweep_plot_write(p, path, title, err, sizeof err) != 0)
        fail_msg("sweep_plot_write: %s", err);
    char *text = fixture_read(path, NULL);
    assert_non_null(text);
    return text;
}

/* The frame every picture has: an XML declaration, one svg element, closed
 * at the very end. */
static void assert_svg(const char *text)
{
    assert_true(strncmp(text, "<?xml ", 6) == 0);
    assert_int_equal(count(text, "<svg "), 1);
    size_t n = strlen(text);
    assert_true(n > 7 && strcmp(text + n - 7, "</svg>\n") == 0);
}

static void draws_the_level_tracks_and_marks(void **state)
{
    sweep_level lv;
    small_level(&lv);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    assert_non_null(p);
    int a = sweep_plot_track(p, "entity 123456"), b = sweep_plot_track(p, NULL);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    for (int i = 0; i <= 40; i++) {
        double t = i / 40.0;
        assert_int_equal(sweep_plot_point(p, a, sweep_v3(1 + 8 * t, 1 + 2 * t * t, 0.9)), 0);
        assert_int_equal(sweep_plot_point(p, b, sweep_v3(9 - 3 * t, 9 - 7 * t * t, 0.9)), 0);
    }
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_CORRECTION, sweep_v3(5, 2, 0.9), "corrected by 0.6"), 0);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_RULE, sweep_v3(3, 1.2, 0.9), "Speed+TimeBudget"), 0);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_SPAWN, sweep_v3(1, 1, 0.9), NULL), 0);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_CRUSH, sweep_v3(2.5, 7.5, 0.9), "crushed by lift"), 0);
    for (int i = 0; i <= 30; i++)
        assert_int_equal(sweep_plot_mover_point(p, 0, sweep_v3(2 + i * 0.1, 7, 0)), 0);
    assert_int_equal(sweep_plot_marks_kept(p), 4);

    char *text = write_and_read(*state, p, "two tracks");
    assert_svg(text);
    assert_int_equal(count(text, "<path class=\"t\" "), 2);
    assert_int_equal(count(text, "class=\"mc\""), 1);
    assert_int_equal(count(text, "class=\"mr\""), 1);
    assert_int_equal(count(text, "class=\"ms\""), 1);
    assert_int_equal(count(text, "class=\"mx\""), 1);
    assert_int_equal(count(text, "<path class=\"mp\" "), 1);
    /* Level styles: the floor faces the eye, the wall's sides are seen
     * edge-on, the lift's mesh has a style of its own. */
    assert_int_equal(count(text, "<path class=\"lf\" "), 1);
    assert_int_equal(count(text, "<path class=\"lw\" "), 1);
    assert_int_equal(count(text, "<path class=\"lm\" "), 1);
    /* The legend names the tracks and counts the marks. */
    assert_non_null(strstr(text, ">entity 123456</text>"));
    assert_non_null(strstr(text, ">track 1</text>"));
    assert_non_null(strstr(text, "corrections: 1<"));
    assert_non_null(strstr(text, "<title>Speed+TimeBudget</title>"));
    assert_non_null(strstr(text, "seen from above (+z)"));
    free(text);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static void text_is_escaped(void **state)
{
    sweep_plot *p = sweep_plot_create(NULL, 'z');
    assert_non_null(p);
    int t = sweep_plot_track(p, "<b>&'");
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(0, 0, 0)), 0);
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(1, 1, 0)), 0);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_RULE, sweep_v3(0.5, 0.5, 0), "a<b"), 0);
    /* A lone continuation byte and a control character are not text. */
    char *text = write_and_read(*state, p, "log <&\"> \x80\x01 caf\xc3\xa9");
    assert_svg(text);
    assert_non_null(strstr(text, ">log &lt;&amp;&quot;&gt; ?? caf\xc3\xa9</text>"));
    assert_non_null(strstr(text, "&lt;b&gt;&amp;&apos;"));
    assert_non_null(strstr(text, "<title>a&lt;b</title>"));
    assert_null(strstr(text, "<&"));
    assert_null(strstr(text, "<b>"));
    free(text);
    sweep_plot_destroy(p);
}

static void points_are_thinned(void **state)
{
    sweep_level lv;
    small_level(&lv);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    assert_non_null(p);

    /* 10,000 points within a millionth of a unit of each other. */
    int still = sweep_plot_track(p, "still");
    for (int i = 0; i < 10000; i++)
        assert_int_equal(sweep_plot_point(p, still, sweep_v3(5 + 1e-6 * (i % 7), 5 - 1e-6 * (i % 3), 1)), 0);
    assert_true(sweep_plot_points_kept(p) <= 2);

    /* 10,000 points on a straight line: its two ends. */
    size_t before = sweep_plot_points_kept(p);
    int line = sweep_plot_track(p, "line");
    for (int i = 0; i < 10000; i++)
        assert_int_equal(sweep_plot_point(p, line, sweep_v3(1 + 8e-4 * i, 2 + 4e-4 * i, 1)), 0);
    assert_true(sweep_plot_points_kept(p) - before <= 3);

    /* A circle of 10,000 points keeps what a picture needs: tens, not
     * thousands. */
    before = sweep_plot_points_kept(p);
    int circle = sweep_plot_track(p, "circle");
    for (int i = 0; i < 10000; i++) {
        double a = 2.0 * 3.141592653589793 * i / 10000.0;
        assert_int_equal(sweep_plot_point(p, circle, sweep_v3(5 + 3 * cos(a), 5 + 3 * sin(a), 1)), 0);
    }
    size_t kept = sweep_plot_points_kept(p) - before;
    assert_true(kept >= 20 && kept <= 400);

    char *text = write_and_read(*state, p, NULL);
    assert_svg(text);
    assert_int_equal(count(text, "<path class=\"t\" "), 3);
    /* A track that never moved is a dot. */
    assert_non_null(strstr(text, "l0 0\"><title>still</title>"));
    free(text);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static void marks_are_thinned_and_counted(void **state)
{
    sweep_level lv;
    small_level(&lv);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    assert_non_null(p);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_RULE, sweep_v3(4 + 1e-5 * i, 4, 1), "Speed"), 0);
    assert_int_equal(sweep_plot_marks_kept(p), 1);
    /* Another label, or another place, is another symbol. */
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_RULE, sweep_v3(4, 4, 1), "Jump"), 0);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_RULE, sweep_v3(8, 4, 1), "Speed"), 0);
    assert_int_equal(sweep_plot_marks_kept(p), 3);
    char *text = write_and_read(*state, p, "marks");
    assert_int_equal(count(text, "class=\"mr\""), 3);
    assert_non_null(strstr(text, "rule reports: 1002<"));
    free(text);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static void lines_break_where_told(void **state)
{
    sweep_level lv;
    small_level(&lv);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    int t = sweep_plot_track(p, "respawned");
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(1, 1, 1)), 0);
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(3, 1, 1)), 0);
    sweep_plot_break(p, t);
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(8, 8, 1)), 0);
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(8, 6, 1)), 0);
    char *text = write_and_read(*state, p, NULL);
    const char *d = strstr(text, "<path class=\"t\" ");
    assert_non_null(d);
    d = strstr(d, " d=\"");
    assert_non_null(d);
    const char *end = strchr(d + 4, '"');
    int moves = 0;
    for (const char *c = d + 4; c < end; c++)
        moves += *c == 'M';
    assert_int_equal(moves, 2);
    free(text);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static void side_views(void **state)
{
    sweep_level lv;
    small_level(&lv);
    assert_null(sweep_plot_create(&lv, 'q'));
    static const struct {
        char axis;
        const char *says;
    } views[] = {{'x', "seen from +x"}, {'y', "seen from -y"}};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        sweep_plot *p = sweep_plot_create(&lv, views[i].axis);
        assert_non_null(p);
        int t = sweep_plot_track(p, "jumper");
        for (int k = 0; k <= 20; k++)
            assert_int_equal(sweep_plot_point(p, t, sweep_v3(1 + 0.3 * k, 1 + 0.3 * k, 1 + k * (20 - k) * 0.01)), 0);
        char *text = write_and_read(*state, p, "side");
        assert_svg(text);
        assert_non_null(strstr(text, views[i].says));
        /* From the side the floor is seen edge-on and the wall faces one
         * way or the other. */
        assert_int_equal(count(text, "<path class=\"lw\" "), 1);
        assert_int_equal(count(text, "<path class=\"lf\" "), 1);
        assert_int_equal(count(text, "<path class=\"t\" "), 1);
        free(text);
        sweep_plot_destroy(p);
    }
    sweep_level_free(&lv);
}

/* The scale bar's length in units, from "<text ...>N units</text>". */
static double scale_bar(const char *text)
{
    const char *u = strstr(text, " units</text>");
    assert_non_null(u);
    const char *s = u;
    while (s > text && s[-1] != '>')
        s--;
    return strtod(s, NULL);
}

static void far_points_do_not_shrink_the_level(void **state)
{
    sweep_level lv;
    small_level(&lv);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    int t = sweep_plot_track(p, "fell");
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(5, 5, 1)), 0);
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(1e6, -1e6, 1)), 0);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_CORRECTION, sweep_v3(-1e7, 1e7, 0), "far"), 0);
    char *text = write_and_read(*state, p, NULL);
    assert_svg(text);
    /* At most twice the level's 10 units across 1200 px: a bar of about
     * 120 px is 2 units or less. */
    assert_true(scale_bar(text) <= 2.0);
    free(text);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static void bad_input_is_refused(void **state)
{
    (void)state;
    sweep_level lv;
    small_level(&lv);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    int t = sweep_plot_track(p, "t");
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(NAN, 0, 0)), -1);
    assert_int_equal(sweep_plot_point(p, t, sweep_v3(0, INFINITY, 0)), -1);
    assert_int_equal(sweep_plot_point(p, t + 1, sweep_v3(0, 0, 0)), -1);
    assert_int_equal(sweep_plot_point(p, -1, sweep_v3(0, 0, 0)), -1);
    assert_int_equal(sweep_plot_mover_point(p, 1, sweep_v3(0, 0, 0)), -1);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_MARK_COUNT, sweep_v3(0, 0, 0), NULL), -1);
    assert_int_equal(sweep_plot_mark(p, SWEEP_PLOT_CRUSH, sweep_v3(0, 0, NAN), NULL), -1);
    assert_int_equal(sweep_plot_points_kept(p), 0);
    assert_int_equal(sweep_plot_marks_kept(p), 0);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static void unwritable_path_is_named(void **state)
{
    fixture *f = *state;
    sweep_plot *p = sweep_plot_create(NULL, 'z');
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s", fixture_path(f, "no-such-dir/picture.svg"));
    assert_int_equal(sweep_plot_write(p, path, "t", err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "No such file"));
    assert_int_equal(fixture_count_files(f), 0);
    sweep_plot_destroy(p);
}

/* Big levels: triangles are written once per shape on the picture and
 * those under a pixel as pixels, so bytes grow slower than triangles. */
static void big_level_stays_small(void **state)
{
    sweep_level lv;
    sweep_level_init(&lv);
    sweep_levelgen_params gp = {7, 60000, 8, 4};
    assert_int_equal(sweep_levelgen(&gp, &lv), SWEEP_OK);
    sweep_plot *p = sweep_plot_create(&lv, 'z');
    assert_non_null(p);
    char *text = write_and_read(*state, p, "generated");
    assert_svg(text);
    size_t n = strlen(text);
    assert_true(n < 24u * lv.triangle_count + 20000u);
    free(text);
    sweep_plot_destroy(p);
    sweep_level_free(&lv);
}

static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void sweep_walk_draws_its_walkers(void **state)
{
    fixture *f = *state;
    char bin[4200], map[4200], svg[4200], cmd[13000], out[4096];
    snprintf(bin, sizeof bin, "%s", fixture_build("bin/sweep-walk"));
    snprintf(map, sizeof map, "%s", fixture_build("maps/arena.db"));
    snprintf(svg, sizeof svg, "%s", fixture_path(f, "walk.svg"));
    if (access(bin, X_OK) != 0 || access(map, R_OK) != 0)
        fail_msg("%s or %s is missing: build them with make", bin, map);

    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 5 --steps 400 --svg '%s' 2>&1", bin, map, svg);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "errors=0"));
    char *text = fixture_read(svg, NULL);
    assert_non_null(text);
    assert_svg(text);
    assert_int_equal(count(text, "<path class=\"t\" "), 5);
    assert_int_equal(count(text, "class=\"ms\""), 5);
    assert_non_null(strstr(text, ">walker 4</text>"));
    assert_non_null(strstr(text, "level arena"));
    /* The arena's four movers: a path or, standing still seen from
     * above, a ring each. */
    assert_int_equal(count(text, "<path class=\"mp\" ") + count(text, "<circle class=\"mp\" "), 4);
    free(text);

    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 2 --steps 50 --svg '%s' --axis y 2>&1", bin, map, svg);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    text = fixture_read(svg, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, "seen from -y"));
    free(text);

    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --svg '%s' --axis w 2>&1", bin, map, svg);
    assert_int_equal(run(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "--axis"));

    char bad[4200];
    snprintf(bad, sizeof bad, "%s", fixture_path(f, "missing/walk.svg"));
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --walkers 1 --steps 5 --svg '%s' 2>&1", bin, map, bad);
    assert_int_equal(run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, bad));

    snprintf(cmd, sizeof cmd, "'%s' --help", bin);
    assert_int_equal(run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "--svg FILE"));
    assert_non_null(strstr(out, "--axis A"));
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(draws_the_level_tracks_and_marks, setup, teardown),
        cmocka_unit_test_setup_teardown(text_is_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(points_are_thinned, setup, teardown),
        cmocka_unit_test_setup_teardown(marks_are_thinned_and_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(lines_break_where_told, setup, teardown),
        cmocka_unit_test_setup_teardown(side_views, setup, teardown),
        cmocka_unit_test_setup_teardown(far_points_do_not_shrink_the_level, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_input_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(unwritable_path_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(big_level_stays_small, setup, teardown),
        cmocka_unit_test_setup_teardown(sweep_walk_draws_its_walkers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
