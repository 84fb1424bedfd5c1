/*
 * test_cli.c - the `sweep` command-line client and the Python example
 * client against a real sweepd on the arena.
 *
 * `sweep move` must succeed over TCP and UDP (single moves and batches,
 * text and JSON), predict every move exactly when given the map, print the
 * same positions as a local run of the same moves, and exit non-zero
 * naming the error for a refused move, a server that is not there, a
 * different map, or a bad command line. The Python client (flatc-generated
 * code on Debian's python3-flatbuffers, run with /usr/bin/python3) must
 * complete the handshake over TCP and UDP, spawn and move, with every
 * double bit-identical to the core run locally, and report a server Error
 * by name.
 */
#include "tests/client-sdk/sweepd_fixture.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/predict.h"
#include "core/vec3.h"
#include "maps/loader.h"

static sweepd D;
static char SWEEP[4096], MAP[4096];

static int setup(void **state)
{
    (void)state;
    fx_build("bin/sweep", SWEEP, sizeof SWEEP);
    fx_build("maps/arena.db", MAP, sizeof MAP);
    return fx_start(&D);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Runs `sweep ARGS`; returns the exit status and the output in *out. */
static int sweep(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sweep(char **out, const char *fmt, ...)
{
    char args[2048], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", SWEEP, args);
    return fx_run(cmd, out);
}

/* The "position":[...] parts of JSON lines, in order, joined by '|'. */
static void positions(const char *json, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (const char *p = json; (p = strstr(p, "{\"move\"")) != NULL; p++) {
        const char *a = strstr(p, "\"position\":[");
        const char *b = a ? strchr(a, ']') : NULL;
        if (!b)
            break;
        len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%.*s|", (int)(b - a), a);
    }
}

static void help_and_usage(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(sweep(&out, "--help"), 0);
    assert_non_null(strstr(out, "usage: sweep"));
    free(out);
    assert_int_equal(sweep(&out, "move --map '%s'", MAP), 2); /* no --velocity */
    free(out);
    assert_int_equal(sweep(&out, "move --velocity 1,0,0"), 2); /* nowhere to move */
    free(out);
    assert_int_equal(sweep(&out, "fly --connect %s", D.tcp), 2);
    free(out);
}

static void moves_through_the_server(void **state)
{
    (void)state;
    char *out;
    /* The example: spawn at the map's first spawn point, one move. */
    assert_int_equal(sweep(&out, "move --connect %s --map '%s' --velocity 1,0,0", D.tcp, MAP), 0);
    assert_int_equal(count_of(out, "move 1 "), 1);
    assert_non_null(strstr(out, "spawned entity="));
    assert_non_null(strstr(out, "predicted=match"));
    free(out);
    /* The example exactly: no map here, so the server's map's first
     * spawn point, (0, 0, 1) on the arena, and its default radii. */
    assert_int_equal(sweep(&out, "move --connect %s --velocity 1,0,0", D.tcp), 0);
    assert_int_equal(count_of(out, "move 1 "), 1);
    assert_non_null(strstr(out, "spawned entity="));
    assert_non_null(strstr(out, " position=(0, 0, 1) radii=(0.4"));
    free(out);
    /* Without a map: --position says where. */
    assert_int_equal(sweep(&out, "move --connect %s --position 0,4,0.95 --velocity 0,1,-5 --count 3", D.tcp), 0);
    assert_int_equal(count_of(out, "\nmove "), 3);
    free(out);
    static const char *const modes[] = {"", "--udp", "--batch", "--udp --batch"};
    for (int m = 0; m < 4; m++) {
        const char *addr = strstr(modes[m], "udp") ? D.udp : D.tcp;
        assert_int_equal(sweep(&out, "move --connect %s %s --map '%s' --velocity 3,1,-5 --count 40 --json", addr,
                               modes[m], MAP),
                         0);
        assert_int_equal(count_of(out, "{\"move\""), 40);
        assert_int_equal(count_of(out, "\"predicted\":\"match\""), 40);
        free(out);
    }
}

/* The same moves run locally print the same positions (the same bits:
 * %.17g of equal doubles is equal text). */
static void local_run_equals_server(void **state)
{
    (void)state;
    char *remote, *local;
    static char a[65536], b[65536];
    assert_int_equal(
        sweep(&remote, "move --connect %s --map '%s' --spawn 1 --velocity 8,-2,-5 --count 150 --json", D.udp, MAP), 0);
    assert_int_equal(sweep(&local, "move --map '%s' --spawn 1 --velocity 8,-2,-5 --count 150 --json", MAP), 0);
    positions(remote, a, sizeof a);
    positions(local, b, sizeof b);
    assert_int_equal(count_of(a, "|"), 150);
    assert_string_equal(a, b);
    free(remote);
    free(local);
}

static void errors_exit_non_zero_with_their_name(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(sweep(&out, "move --connect %s --map '%s' --velocity nan,0,0", D.tcp, MAP), 1);
    assert_non_null(strstr(out, "error BadNumber"));
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --udp --map '%s' --velocity 1,0,0 --dt 0 --json", D.udp, MAP), 1);
    assert_non_null(strstr(out, "\"error\":\"BadDt\""));
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --map '%s' --velocity 1,0,0 --radii 0,1,1", D.tcp, MAP), 1);
    assert_non_null(strstr(out, "error BadRadii"));
    free(out);
    assert_int_equal(sweep(&out, "move --connect 127.0.0.1:1 --position 0,0,1 --velocity 1,0,0"), 1);
    assert_non_null(strstr(out, "error CONNECT"));
    free(out);
    assert_int_equal(sweep(&out, "move --map /nonexistent/map.db --velocity 1,0,0"), 1);
    free(out);
    /* A map that differs from the server's (another step height). */
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/other.db' && sqlite3 '%s/other.db' 'UPDATE map SET step_height = 0.3'",
             MAP, D.dir, D.dir);
    assert_int_equal(fx_run(cmd, NULL), 0);
    assert_int_equal(sweep(&out, "move --connect %s --map '%s/other.db' --velocity 1,0,0", D.tcp, D.dir), 1);
    assert_non_null(strstr(out, "error MAP_MISMATCH"));
    free(out);
    snprintf(cmd, sizeof cmd, "%s/other.db", D.dir);
    unlink(cmd);
}

static void ping_and_stats(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(sweep(&out, "ping --connect %s", D.tcp), 0);
    assert_non_null(strstr(out, "pong rtt="));
    free(out);
    assert_int_equal(sweep(&out, "stats --connect %s --udp --json", D.udp), 0);
    assert_non_null(strstr(out, "\"moves_total\":"));
    free(out);
}

/* sweep-bots runs (at a modest rate, under the server's rate limit) and
 * reports; no figure is judged. */
static void bots_run_and_report(void **state)
{
    (void)state;
    char bots[4096], cmd[16384], *out;
    fx_build("bin/sweep-bots", bots, sizeof bots);
    snprintf(cmd, sizeof cmd, "'%s' --connect %s --clients 3 --rate 200 --batch 4 --duration 1 --warmup 0.2 --map '%s'",
             bots, D.tcp, MAP);
    assert_int_equal(fx_run(cmd, &out), 0);
    assert_non_null(strstr(out, "throughput:"));
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' --connect %s --udp --clients 2 --rate 100 --duration 1 --bench-line udp_single", bots,
             D.udp);
    assert_int_equal(fx_run(cmd, &out), 0);
    assert_non_null(strstr(out, "BENCH name=server.udp_single clients=2 moves_per_s="));
    free(out);
}

/* --- the Python client -------------------------------------------------------- */

static int python(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int python(char **out, const char *fmt, ...)
{
    char args[4096], gen[4096], cmd[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    const char *src = getenv("SWEEP_SRCDIR");
    snprintf(cmd, sizeof cmd, "PYTHONPATH='%s' /usr/bin/python3 '%s/client-sdk/python/sweep_client.py' %s",
             fx_build("client-sdk/python", gen, sizeof gen), src && *src ? src : ".", args);
    return fx_run(cmd, out);
}

static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void python_client_matches_the_core(void **state)
{
    (void)state;
    sweep_level lv;
    sweep_world *w;
    char err[256];
    assert_int_equal(sweep_map_load(MAP, &lv, NULL, err, sizeof err), SWEEP_OK);
    assert_int_equal(sweep_map_build_world(&lv, &w, NULL, err, sizeof err), SWEEP_OK);
    for (int t = 0; t < 2; t++) {
        char *out;
        /* Along y = -7 into the east wall, with a steady fall. */
        int rc = python(&out, "--connect %s %s --position 4,-7,0.95 --velocity 8,-1,-5 --dt 0.016 --count 150 --bits",
                        t ? D.udp : D.tcp, t ? "--udp" : "");
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "welcome session="));
        assert_non_null(strstr(out, "map=arena"));
        sweep_predict_state s = {.position = sweep_v3(4, -7, 0.95)};
        int moves = 0;
        for (const char *p = out; (p = strstr(p, "move seq=")) != NULL; p++) {
            unsigned seq, grounded;
            uint64_t pb[3], vb[3];
            int n = sscanf(p, "move seq=%u position=%" SCNx64 ",%" SCNx64 ",%" SCNx64 " velocity=%" SCNx64 ",%" SCNx64
                              ",%" SCNx64 " grounded=%u",
                           &seq, &pb[0], &pb[1], &pb[2], &vb[0], &vb[1], &vb[2], &grounded);
            assert_int_equal(n, 8);
            assert_int_equal(sweep_predict_run(w, NULL, &lv.config, lv.default_radii, &s, sweep_v3(8, -1, -5), 0.016, NULL),
                             SWEEP_OK);
            assert_true(pb[0] == bits_of(s.position.x) && pb[1] == bits_of(s.position.y) &&
                        pb[2] == bits_of(s.position.z));
            assert_true(vb[0] == bits_of(s.velocity.x) && vb[1] == bits_of(s.velocity.y) &&
                        vb[2] == bits_of(s.velocity.z));
            assert_int_equal(grounded, (unsigned)s.grounded);
            moves++;
        }
        assert_int_equal(moves, 150);
        assert_true(s.position.x > 19.0); /* reached the wall */
        free(out);
        /* A refused move: the server's Error by name, exit status 1. */
        assert_int_equal(python(&out, "--connect %s %s --velocity 1,0,0 --dt 0", t ? D.udp : D.tcp, t ? "--udp" : ""), 1);
        assert_non_null(strstr(out, "error BadDt"));
        free(out);
    }
    sweep_world_destroy(w);
    sweep_level_free(&lv);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_and_usage),
        cmocka_unit_test(moves_through_the_server),
        cmocka_unit_test(local_run_equals_server),
        cmocka_unit_test(errors_exit_non_zero_with_their_name),
        cmocka_unit_test(ping_and_stats),
        cmocka_unit_test(bots_run_and_report),
        cmocka_unit_test(python_client_matches_the_core),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
