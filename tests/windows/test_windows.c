/*
 * test_windows.c - libsweep built for Windows (make windows, with
 * mingw-w64) gives Linux's bits, run under wine: the core's walk hashes
 * are the golden ones of tests/core/golden/, a prediction run on the
 * sample arena's level image prints the same bytes as the Linux build of
 * the same program (portable_check.c), and the Windows SDK's own client
 * (tests/install/use_sdk.c on build-win/sdk) connects to a real sweepd on
 * 127.0.0.1 over TCP and over UDP, checks the map's content hash, and has
 * every one of its predictions confirmed bit for bit; built once more by
 * CMake for Windows through the SDK's find_package(sweep), it does the
 * same. A UDP server that is not there (a closed port, a sweepd killed)
 * ends a session with CONNECT, as on Linux, whichever way Winsock tells
 * the refusal (tests/windows/net_check.c).
 *
 * wine runs in a prefix of its own under a temporary directory, made once
 * by the group's setup (its first start takes tens of seconds), without a
 * display, its debug output off. A machine without wine skips every test
 * saying so; `make test` installs it (client-sdk/windows.mk), so there it
 * runs. Lines of a Windows program end in CR LF: the CRs are dropped
 * before comparing.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"
#include "tests/test_skip.h"

static char prefix[256];    /* WINEPREFIX, "" when wine is missing */
static char no_wine[512];   /* why, then */

/* `wine` with this test's prefix and quiet, for a shell command line. */
static void wine_cmd(char *out, size_t cap, const char *args)
{
    snprintf(out, cap, "WINEPREFIX=%s WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' wine %s", prefix, args);
}

/* Runs `wine args` (its stderr into the prefix's wine.log): the exit
 * status, the output without CRs in *out (malloc'd). */
static int run_wine(const char *args, char **out)
{
    char cmd[4096], inner[3500];
    wine_cmd(inner, sizeof inner, args);
    snprintf(cmd, sizeof cmd, "(%s 2>>%s/wine.log)", inner, prefix);
    int rc = fx_run(cmd, out);
    if (*out) {
        char *w = *out;
        for (char *r = *out; *r; r++)
            if (*r != '\r')
                *w++ = *r;
        *w = '\0';
    }
    return rc;
}

static int group_setup(void **state)
{
    (void)state;
    char *out = NULL;
    if (fx_run("wine --version", &out) != 0) {
        snprintf(no_wine, sizeof no_wine, "wine is not installed here (make test installs it): %s",
                 out ? out : "");
        no_wine[strcspn(no_wine, "\n")] = '\0';
        free(out);
        return 0;
    }
    free(out);
    snprintf(prefix, sizeof prefix, "/tmp/sweep-wine-XXXXXX");
    if (!mkdtemp(prefix)) {
        prefix[0] = '\0';
        snprintf(no_wine, sizeof no_wine, "cannot make a temporary directory for wine's prefix");
        return 0;
    }
    /* The prefix is made by wine's first start; wineboot does only that. */
    char cmd[1024];
    wine_cmd(cmd, sizeof cmd, "wineboot --init");
    int rc = fx_run(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "wineboot: exit %d: %s\n", rc, out ? out : "");
    free(out);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    if (prefix[0]) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "WINEPREFIX=%s wineserver -k; rm -rf %s", prefix, prefix);
        fx_run(cmd, NULL);
    }
    return 0;
}

#define NEED_WINE() \
    do { \
        if (!prefix[0]) \
            skip_because("%s", no_wine); \
    } while (0)

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[256];
    char *s = fgets(buf, sizeof buf, f);
    fclose(f);
    assert_non_null(s);
    buf[strcspn(buf, "\n")] = '\0';
    return strdup(buf);
}

/* What `portable_check ARGS` prints on Linux and under wine, both. */
static void both(const char *args, char **linux_out, char **win_out)
{
    char prog[1200], cmd[2600];
    snprintf(cmd, sizeof cmd, "%s %s", fx_build("tests/windows/portable_check", prog, sizeof prog), args);
    assert_int_equal(fx_run(cmd, linux_out), 0);
    snprintf(cmd, sizeof cmd, "%s %s", fx_build("../build-win/tests/portable_check.exe", prog, sizeof prog), args);
    int rc = run_wine(cmd, win_out);
    if (rc != 0)
        fprintf(stderr, "portable_check.exe %s: exit %d:\n%s", args, rc, *win_out ? *win_out : "");
    assert_int_equal(rc, 0);
}

/* The core's walks, under wine: the golden hashes, which Linux gives too. */
static void walk_hashes_golden(void **state)
{
    (void)state;
    NEED_WINE();
    char *lin, *win;
    both("walks", &lin, &win);
    char *walk = read_text("tests/core/golden/walk.hash"), *movers = read_text("tests/core/golden/walk_movers.hash");
    char want[256];
    snprintf(want, sizeof want, "walk %s\nwalk_movers %s\n", walk, movers);
    assert_string_equal(lin, want);
    assert_string_equal(win, want);
    free(walk);
    free(movers);
    free(lin);
    free(win);
}

/* A prediction run on the arena's level image: the same bytes. */
static void prediction_same_bits(void **state)
{
    (void)state;
    NEED_WINE();
    char image[1200], args[1300];
    snprintf(args, sizeof args, "predict %s", fx_build("maps/arena.swl", image, sizeof image));
    char *lin, *win;
    both(args, &lin, &win);
    /* Something was predicted: movers ridden, states printed, and the
     * level is the map's (sweep-map-image checked its hash). */
    assert_non_null(strstr(lin, "content_hash "));
    assert_non_null(strstr(lin, "\npredict "));
    assert_non_null(strstr(lin, " mover 2\n"));
    assert_non_null(strstr(lin, " mover 3\n"));
    assert_string_equal(win, lin);
    free(lin);
    free(win);
}

/* The Windows SDK's client (the program exe) against a real sweepd, over
 * transport. */
static void client_against_sweepd(const char *exe, const char *transport)
{
    NEED_WINE();
    fx_server fx;
    const char *args[] = {FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&fx, args), 0);
    char image[1200], cmd[3000];
    snprintf(cmd, sizeof cmd, "%s %s %s %s %s", exe,
             fx_build("maps/arena.swl", image, sizeof image), strcmp(transport, "udp") == 0 ? fx.udp : fx.tcp,
             FX_TOKEN, transport);
    char *out;
    int rc = run_wine(cmd, &out);
    if (rc != 0 || !strstr(out, "mismatches=0")) {
        fprintf(stderr, "use_sdk.exe: exit %d:\n%s", rc, out ? out : "");
        fx_show_log(&fx);
    }
    assert_int_equal(rc, 0);
    assert_string_equal(out, "connected=server map=same\n"
                             "spawned rules=0\n"
                             "moves=180 answered=180 mismatches=0 corrected=0\n"
                             "converged=yes walked=yes jumped=yes\n");
    free(out);
    assert_int_equal(fx_stop(&fx), 0);
    fx_cleanup(&fx);
}

static void client_tcp(void **state)
{
    (void)state;
    char exe[1200];
    client_against_sweepd(fx_build("../build-win/tests/use_sdk.exe", exe, sizeof exe), "");
}

static void client_udp(void **state)
{
    (void)state;
    char exe[1200];
    client_against_sweepd(fx_build("../build-win/tests/use_sdk.exe", exe, sizeof exe), "udp");
}

/* A port of 127.0.0.1 nobody listens on for UDP: one free a moment ago. */
static int closed_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* What `net_check MODE ADDRESS` (tests/windows/net_check.c) prints under
 * wine; its exit status must be 0. */
static char *net_check(const char *mode, const char *address)
{
    char exe[1200], cmd[1600];
    snprintf(cmd, sizeof cmd, "%s %s %s", fx_build("../build-win/tests/net_check.exe", exe, sizeof exe), mode,
             address);
    char *out;
    int rc = run_wine(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "net_check.exe %s: exit %d:\n%s", mode, rc, out ? out : "");
    assert_int_equal(rc, 0);
    return out;
}

/* A UDP connect to a port nobody listens on: refused (CONNECT) as soon as
 * the ICMP refusal comes, as on Linux, not TIMEOUT after the whole
 * timeout (wine tells the refusal only in select's exception set and
 * SO_ERROR, its recv saying it would block). */
static void udp_connect_refused(void **state)
{
    (void)state;
    NEED_WINE();
    char address[64];
    snprintf(address, sizeof address, "127.0.0.1:%d", closed_udp_port());
    char *out = net_check("refused", address);
    assert_string_equal(out, "connect=CONNECT\n");
    free(out);
}

/* A UDP session whose server was killed (no Bye): the refusal of the
 * next move ends it with CONNECT, rather than every send OK and every
 * poll TIMEOUT for ever. */
static void udp_server_gone(void **state)
{
    (void)state;
    NEED_WINE();
    fx_server fx;
    assert_int_equal(fx_start(&fx, NULL), 0);
    char exe[1200], args[1600], inner[3000], cmd[3500];
    snprintf(args, sizeof args, "%s gone %s", fx_build("../build-win/tests/net_check.exe", exe, sizeof exe), fx.udp);
    wine_cmd(inner, sizeof inner, args);
    snprintf(cmd, sizeof cmd, "%s 2>>%s/wine.log", inner, prefix);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[512] = "", line[256];
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r")] = '\0';
        if (strlen(out) + strlen(line) + 2 < sizeof out)
            strcat(strcat(out, line), "\n");
        if (strcmp(line, "connected") == 0 && fx.pid > 0) {
            kill(fx.pid, SIGKILL);
            waitpid(fx.pid, NULL, 0);
            fx.pid = 0;
        }
    }
    int st = pclose(p);
    if (fx.pid > 0)
        fx_stop(&fx);
    else
        fx_wait(&fx);
    if (st != 0)
        fprintf(stderr, "net_check.exe gone: status %d:\n%s", st, out);
    assert_int_equal(st, 0);
    assert_string_equal(out, "connected\ngone=CONNECT\n");
}

/* Windows tells a refusal once, failing a recv: one that came after a
 * datagram of the same batch is told with it (the datagram still handed
 * out), not dropped for a session that then waits for ever. */
static void udp_refusal_after_a_datagram(void **state)
{
    (void)state;
    NEED_WINE();
    fx_server fx;
    assert_int_equal(fx_start(&fx, NULL), 0);
    char *out = net_check("told-once", fx.udp);
    assert_string_equal(out, "gone=CONNECT kept=some\n");
    free(out);
    assert_int_equal(fx_stop(&fx), 0);
}

/* A send on a UDP socket that Windows fails with WSAECONNRESET (a refusal
 * of an earlier datagram) is CONNECT, as ECONNREFUSED is on Linux, not
 * CLOSED as a TCP reset is. */
static void udp_send_refused(void **state)
{
    (void)state;
    NEED_WINE();
    fx_server fx;
    assert_int_equal(fx_start(&fx, NULL), 0);
    char *out = net_check("send-reset", fx.udp);
    assert_string_equal(out, "send=CONNECT\n");
    free(out);
    assert_int_equal(fx_stop(&fx), 0);
}

/* A Windows game built by CMake on build-win/sdk alone: find_package(sweep)
 * and sweep::client, cross-compiled with mingw-w64. */
static void cmake_game_for_windows(void **state)
{
    (void)state;
    NEED_WINE();
    char *out = NULL;
    if (fx_run("cmake --version", &out) != 0) {
        free(out);
        fail_msg("cmake is not installed (make test installs it)");
    }
    free(out);
    char dir[1024], sdk[1200], path[1100], real[PATH_MAX], src[PATH_MAX], cmd[4 * PATH_MAX + 256];
    snprintf(dir, sizeof dir, "%s/cmake_game", prefix);
    snprintf(path, sizeof path, "%s", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/CMakeLists.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("cmake_minimum_required(VERSION 3.13)\n"
          "project(game C)\n"
          "find_package(sweep 0.1 REQUIRED)\n"
          "add_executable(use_sdk_cmake ${SRC})\n"
          "set_property(TARGET use_sdk_cmake PROPERTY C_STANDARD 11)\n"
          "target_compile_definitions(use_sdk_cmake PRIVATE USE_SDK_LEVEL_IMAGE)\n"
          "target_compile_options(use_sdk_cmake PRIVATE -Wall -Wextra -pedantic-errors -Werror)\n"
          "target_link_libraries(use_sdk_cmake PRIVATE sweep::client)\n",
          f);
    fclose(f);
    snprintf(path, sizeof path, "%s/mingw.cmake", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("set(CMAKE_SYSTEM_NAME Windows)\n"
          "set(CMAKE_SYSTEM_PROCESSOR x86_64)\n"
          "set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)\n",
          f);
    fclose(f);
    assert_non_null(realpath(fx_build("../build-win/sdk", sdk, sizeof sdk), real));
    assert_non_null(realpath("tests/install/use_sdk.c", src));
    snprintf(cmd, sizeof cmd,
             "cmake -S %s -B %s/build -DCMAKE_TOOLCHAIN_FILE=%s -DCMAKE_PREFIX_PATH=%s -DSRC=%s && "
             "cmake --build %s/build",
             dir, dir, path, real, src, dir);
    int rc = fx_run(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "%s\n%s", cmd, out ? out : "");
    free(out);
    assert_int_equal(rc, 0);
    snprintf(path, sizeof path, "%s/build/use_sdk_cmake.exe", dir);
    client_against_sweepd(path, "");
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_hashes_golden),
        cmocka_unit_test(prediction_same_bits),
        cmocka_unit_test(client_tcp),
        cmocka_unit_test(client_udp),
        cmocka_unit_test(udp_connect_refused),
        cmocka_unit_test(udp_server_gone),
        cmocka_unit_test(udp_refusal_after_a_datagram),
        cmocka_unit_test(udp_send_refused),
        cmocka_unit_test(cmake_game_for_windows),
    };
    return cmocka_run_group_tests_name("windows", tests, group_setup, group_teardown);
}
