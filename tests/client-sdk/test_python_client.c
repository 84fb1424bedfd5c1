/*
 * test_python_client.c - the Python example client
 * (client-sdk/python/sweep_client.py) as a game developer runs it, against
 * real sweepd servers on the arena: one on 127.0.0.1 and, where the
 * machine has an IPv6 loopback, one on [::1].
 *
 * - Any python3 first on PATH: under a PATH whose python3 lacks the
 *   FlatBuffers runtime (the pyenv or virtualenv one the machine has, or
 *   else Debian's with its site directories off) the client must still
 *   run, from any directory and without PYTHONPATH; with no interpreter
 *   that has the runtime it must exit 2 saying what to run.
 * - IPv6: --connect [::1]:PORT over TCP and UDP (skipped with a note when
 *   /proc/net/if_inet6 has no ::1).
 * - --batch N: MoveBatches within what the Welcome announces (max_batch;
 *   over UDP what one datagram holds), results equal bit for bit to the
 *   same moves sent one by one, a paced player kept within its time bank.
 * - --map FILE: the spawn points and radii read from the map, the point
 *   the server picked shown and equal to the map's, --spawn-point N asked
 *   for, a point the map lacks refused before connecting, another map or a
 *   file that is not one named as such.
 * - --query ITEM: a Query of several items over TCP and UDP, each answer
 *   printed in order with its hits (the arena's walls where they are), a
 *   clear line of sight, a past time beyond the history refused by name.
 * - --help names every option the script defines, each with its help, and
 *   shows examples.
 * - A paced player whose process was stopped for 1.5 s catches up at most
 *   half its time bank: no move is cut.
 * - sweep_testing.Sweepd whose sweepd does not start (a map that is not
 *   there, no program to run) raises SweepdError and leaves no temporary
 *   directory or open file behind.
 * - Against fake servers (a child process on 127.0.0.1 that answers as
 *   sweepd never would): a call that other messages keep coming to, or
 *   whose answer trickles in, still times out when its time is up, naming
 *   its request; junk datagrams hold back neither the deadline nor the
 *   resends; a handshake of slow rounds ends at its one deadline; each
 *   message of a split Query has the whole timeout; a frame longer than 1
 *   MiB is refused at its size prefix; a message that does not decode (a
 *   root past the end, a required field missing, a list longer than its
 *   buffer or than the protocol allows) is refused by name, exit 1,
 *   without a traceback.
 * - A refused handshake leaves no socket open; close() says Bye, so a UDP
 *   player is gone at once; sweep_testing finds the arena beside the
 *   sweepd SWEEP_BIN names.
 * - Over UDP through a relay that loses the first Spawned (or QueryResult,
 *   or WorldState) sweepd sends, or breaks it: the client sends the
 *   request again and the server makes one entity. A Query of more items
 *   than the Welcome's max_batch, or of items too long for a dozen to fit
 *   a datagram, goes in several and
 *   every answer comes back in order; Client.move_batch of 15,000 moves
 *   goes in 1,250 batches.
 * - A name of several addresses over UDP (socket.getaddrinfo replaced in
 *   the script): one that refuses gives way at once, one that stays
 *   silent after its share of the timeout.
 * - A Bye ends the session: every call after it raises ServerBye, over TCP
 *   and UDP; over UDP a sweepd that stopped is heard saying Bye although
 *   its closed port's refusal comes first, by a read or by a send, and a
 *   Bye before the Welcome (an earlier session's) ends nothing.
 *
 * Every run but the first group uses /usr/bin/python3 (Debian's
 * python3-flatbuffers) from the root directory, without PYTHONPATH: the
 * generated code of this build is found through SWEEP_BUILD_DIR. The script
 * is found in the source tree, the build directory's parent (SWEEP_SRCDIR
 * overrides it).
 */
#include "tests/sweepd_fixture.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/test_skip.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include "maps/loader.h"
#include "protocol/encode.h"
#include "protocol/framing.h"
#include "tests/client-sdk/fake_server.h"

#define TOKEN "python-client-test-token"

static fx_server D4, D6;
static int HAVE_V6;
static char SCRIPT[PATH_MAX], BUILD[PATH_MAX], MAP[PATH_MAX], TMP[256];
static sweep_level LV;

/* ::1 is configured when /proc/net/if_inet6 lists it (on lo). */
static int have_ipv6_loopback(void)
{
    FILE *f = fopen("/proc/net/if_inet6", "r");
    if (!f)
        return 0;
    char line[256];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "00000000000000000000000000000001 ", 33) == 0)
            found = 1;
    fclose(f);
    return found;
}

static int setup(void **state)
{
    (void)state;
    char rel[PATH_MAX + 64];
    if (!realpath(fx_build(".", rel, sizeof rel), BUILD)) {
        fprintf(stderr, "the build directory %s is not there\n", rel);
        return -1;
    }
    if (!realpath(fx_build("maps/arena.db", rel, sizeof rel), MAP)) {
        fprintf(stderr, "%s is not built\n", rel);
        return -1;
    }
    const char *src = getenv("SWEEP_SRCDIR");
    if (src && *src)
        snprintf(rel, sizeof rel, "%s/client-sdk/python/sweep_client.py", src);
    else
        snprintf(rel, sizeof rel, "%s/../client-sdk/python/sweep_client.py", BUILD);
    if (!realpath(rel, SCRIPT) && !realpath("client-sdk/python/sweep_client.py", SCRIPT)) {
        fprintf(stderr, "sweep_client.py not found at %s (set SWEEP_SRCDIR)\n", rel);
        return -1;
    }
    char err[256];
    if (sweep_map_load(MAP, &LV, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "%s: %s\n", MAP, err);
        return -1;
    }
    snprintf(TMP, sizeof TMP, "/tmp/sweep-pyclient-XXXXXX");
    if (!mkdtemp(TMP)) {
        perror("mkdtemp");
        return -1;
    }
    const char *v4[] = {"--command-token", TOKEN, NULL};
    if (fx_start(&D4, v4) != 0)
        return -1;
    /* The last --listen is the one sweepd takes. */
    HAVE_V6 = have_ipv6_loopback();
    const char *v6[] = {"--command-token", TOKEN, "--listen", "[::1]:0", NULL};
    if (HAVE_V6 && fx_start(&D6, v6) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int rc = fx_stop(&D4) == 0 ? 0 : -1;
    if (HAVE_V6 && fx_stop(&D6) != 0)
        rc = -1;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", TMP);
    fx_run(cmd, NULL);
    sweep_level_free(&LV);
    return rc;
}

/* Runs sweep_client.py ARGS with /usr/bin/python3 from /, finding the
 * generated code through SWEEP_BUILD_DIR alone. */
static int py(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int py(char **out, const char *fmt, ...)
{
    char args[4096], cmd[3 * PATH_MAX + 4096 + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED SWEEP_BUILD_DIR='%s' /usr/bin/python3 '%s' %s", BUILD,
             SCRIPT, args);
    return fx_run(cmd, out);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* --- any python3 first on PATH ------------------------------------------------- */

/* Writes TMP/bin/python3, a python3 that cannot import flatbuffers: the one
 * PATH gives when it lacks it, else Debian's without its site directories. */
static void fake_python3(char *dir, size_t cap)
{
    char *out = NULL, real[PATH_MAX] = "", cmd[PATH_MAX + 128];
    if (fx_run("command -v python3", &out) == 0 && out) {
        out[strcspn(out, "\n")] = '\0';
        snprintf(real, sizeof real, "%s", out);
    }
    free(out);
    int lacks = 0;
    if (real[0]) {
        snprintf(cmd, sizeof cmd, "'%s' -c 'import flatbuffers'", real);
        lacks = fx_run(cmd, NULL) != 0;
    }
    snprintf(dir, cap, "%s/bin", TMP);
    mkdir(dir, 0700);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/python3", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    if (lacks)
        fprintf(f, "#!/bin/sh\nexec '%s' \"$@\"\n", real);
    else
        fprintf(f, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
    /* It is what it should be: first on PATH, and without the module. */
    snprintf(cmd, sizeof cmd, "PATH='%s':\"$PATH\" python3 -c 'import flatbuffers'", dir);
    assert_int_not_equal(fx_run(cmd, NULL), 0);
}

static void runs_whatever_python3_comes_first(void **state)
{
    (void)state;
    char dir[PATH_MAX], cmd[5 * PATH_MAX + 512], *out;
    fake_python3(dir, sizeof dir);
    for (int t = 0; t < 2; t++) {
        snprintf(cmd, sizeof cmd,
                 "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED -u SWEEP_PYTHON PATH='%s':\"$PATH\" "
                 "SWEEP_BUILD_DIR='%s' python3 '%s' --connect %s %s --velocity 1,0,0 --count 2",
                 dir, BUILD, SCRIPT, t ? D4.udp : D4.tcp, t ? "--udp" : "");
        assert_int_equal(fx_run(cmd, &out), 0);
        assert_non_null(strstr(out, "welcome session="));
        assert_int_equal(count_of(out, "move seq="), 2);
        free(out);
    }
    /* Built in the repository's build/: found without SWEEP_BUILD_DIR too. */
    char repo_build[PATH_MAX], rel[PATH_MAX + 32];
    snprintf(rel, sizeof rel, "%s/../../../build", SCRIPT);
    if (realpath(rel, repo_build) && strcmp(repo_build, BUILD) == 0) {
        snprintf(cmd, sizeof cmd,
                 "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED -u SWEEP_PYTHON -u SWEEP_BUILD_DIR "
                 "PATH='%s':\"$PATH\" python3 '%s' --connect %s --velocity 1,0,0",
                 dir, SCRIPT, D4.tcp);
        assert_int_equal(fx_run(cmd, &out), 0);
        assert_int_equal(count_of(out, "move seq="), 1);
        free(out);
    }
    /* No interpreter that has it: exit 2, saying exactly what to run. */
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH PATH='%s':\"$PATH\" SWEEP_PYTHON='%s/python3' SWEEP_BUILD_DIR='%s' "
             "python3 '%s' --connect %s --velocity 1,0,0",
             dir, dir, BUILD, SCRIPT, D4.tcp);
    assert_int_equal(fx_run(cmd, &out), 2);
    assert_non_null(strstr(out, "flatbuffers is not importable by "));
    assert_non_null(strstr(out, "(Python 3."));
    char want[PATH_MAX + 256];
    snprintf(want, sizeof want, "/usr/bin/python3 %s --connect %s --velocity 1,0,0", SCRIPT, D4.tcp);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "apt-get install python3-flatbuffers"));
    assert_null(strstr(out, "Traceback"));
    free(out);
}

/* The log reader finds its runtime the same way, and a game's own program
 * that imports the client is named in the hint, not the client. */
static void the_log_reader_and_importers_find_the_runtime_too(void **state)
{
    (void)state;
    char dir[PATH_MAX], cmd[5 * PATH_MAX + 512], *out, logpy[PATH_MAX + 32], mine[PATH_MAX + 32];
    fake_python3(dir, sizeof dir);
    snprintf(logpy, sizeof logpy, "%s", SCRIPT);
    snprintf(strrchr(logpy, '/') + 1, 32, "sweep_log.py");
    /* Run again under /usr/bin/python3, which reads (here: fails to open)
     * the log instead of blaming the generated code. */
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED -u SWEEP_PYTHON PATH='%s':\"$PATH\" "
             "SWEEP_BUILD_DIR='%s' python3 '%s' '%s/no-such.log'",
             dir, BUILD, logpy, TMP);
    assert_int_equal(fx_run(cmd, &out), 2);
    assert_non_null(strstr(out, "no-such.log"));
    assert_null(strstr(out, "generated"));
    assert_null(strstr(out, "Traceback"));
    free(out);
    snprintf(mine, sizeof mine, "%s/mygame.py", TMP);
    FILE *f = fopen(mine, "w");
    assert_non_null(f);
    fprintf(f, "import sys\nsys.path.insert(0, %s)\ntry:\n    import sweep_client\nexcept ImportError as e:\n"
               "    print(e)\n    sys.exit(3)\n", "sys.argv[1]");
    fclose(f);
    char pydir[PATH_MAX];
    snprintf(pydir, sizeof pydir, "%s", SCRIPT);
    *strrchr(pydir, '/') = '\0';
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH PATH='%s':\"$PATH\" SWEEP_PYTHON='%s/python3' SWEEP_BUILD_DIR='%s' "
             "python3 '%s' '%s'",
             dir, dir, BUILD, mine, pydir);
    assert_int_equal(fx_run(cmd, &out), 3);
    char want[3 * PATH_MAX];
    snprintf(want, sizeof want, "/usr/bin/python3 %s %s", mine, pydir);
    assert_non_null(strstr(out, want));
    free(out);
}

/* A server that shuts down says Bye, and the client says so. */
static void bye_is_reported(void **state)
{
    (void)state;
    fx_server d;
    assert_int_equal(fx_start(&d, NULL), 0);
    char outfile[PATH_MAX + 16], cmd[3 * PATH_MAX + 512], *out = NULL;
    snprintf(outfile, sizeof outfile, "%s/bye.out", TMP);
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED SWEEP_BUILD_DIR='%s' /usr/bin/python3 '%s' "
             "--connect %s --watch 1 --count 1000000 >'%s' 2>&1 & echo $!",
             BUILD, SCRIPT, d.tcp, outfile);
    assert_int_equal(fx_run(cmd, &out), 0);
    pid_t pid = (pid_t)atoi(out);
    free(out);
    assert_true(pid > 0);
    /* Watching: WorldStates are printed. */
    int watching = 0;
    for (int i = 0; i < 200 && !watching; i++) {
        usleep(50000);
        snprintf(cmd, sizeof cmd, "grep -q tick= '%s'", outfile);
        watching = fx_run(cmd, NULL) == 0;
    }
    assert_true(watching);
    assert_int_equal(fx_stop(&d), 0);
    int gone = 0;
    for (int i = 0; i < 200 && !gone; i++) {
        usleep(50000);
        gone = kill(pid, 0) != 0;
    }
    if (!gone)
        kill(pid, SIGKILL);
    assert_true(gone);
    snprintf(cmd, sizeof cmd, "cat '%s'", outfile);
    assert_int_equal(fx_run(cmd, &out), 0);
    assert_non_null(strstr(out, "bye: the server closed the session: "));
    assert_null(strstr(out, "Traceback"));
    assert_null(strstr(out, "ConnectionRefused"));
    free(out);
}

/* A game's own test, as client-sdk/README.md shows it: sweep_testing
 * starts sweepd on a free port, records under a known name with a seed,
 * stops it; the log replays strictly, and two runs give the same ids. */
static void a_games_own_test_with_sweep_testing(void **state)
{
    (void)state;
    char script[PATH_MAX + 32], pydir[PATH_MAX], cmd[6 * PATH_MAX + 512], *out;
    snprintf(script, sizeof script, "%s/game_test.py", TMP);
    snprintf(pydir, sizeof pydir, "%s", SCRIPT);
    *strrchr(pydir, '/') = '\0';
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs("import sys\n"
          "sys.path.insert(0, sys.argv[1])\n"
          "import sweep_client\n"
          "from sweep_testing import Sweepd\n"
          "ids = []\n"
          "for run in range(2):\n"
          "    with Sweepd(record=True, seed=7) as d:\n"
          "        c = sweep_client.Client(d.udp if run else d.tcp, udp=bool(run))\n"
          "        sp = c.spawn()\n"
          "        for _ in range(5):\n"
          "            c.move(sp['entity'], (1.0, 0.0, 0.0), 1.0 / 60.0)\n"
          "        c.close()\n"
          "    r = d.replay()\n"
          "    assert r['ok'] and r['exit'] == 0 and r['moves'] == 5, r\n"
          "    ids.append(sp['entity'])\n"
          "    d.cleanup()\n"
          "print('ids', ids[0], ids[1])\n",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED SWEEP_BUILD_DIR='%s' SWEEP_BIN='%s/bin' SWEEP_MAP='%s' "
             "/usr/bin/python3 '%s' '%s'",
             BUILD, BUILD, MAP, script, pydir);
    int rc = fx_run(cmd, &out);
    if (rc != 0)
        fail_msg("%s: exit %d: %s", cmd, rc, out);
    unsigned long a = 0, b = 1;
    assert_int_equal(sscanf(strstr(out, "ids "), "ids %lu %lu", &a, &b), 2);
    assert_true(a == b && a != 0);
    free(out);
}

/* --- a client of its own, under the test's hand ----------------------------------- */

/* Starts sweep_client.py ARGS as py() runs it, its output into outfile,
 * as a child of this test: the shell execs the interpreter, so the pid
 * returned is the client's own and a signal sent to it stops the client. */
static pid_t py_start(const char *outfile, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static pid_t py_start(const char *outfile, const char *fmt, ...)
{
    char args[4096], cmd[4 * PATH_MAX + 4096 + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd,
             "cd / && exec env -u PYTHONPATH -u SWEEP_PY_GENERATED SWEEP_BUILD_DIR='%s' /usr/bin/python3 '%s' %s "
             ">'%s' 2>&1",
             BUILD, SCRIPT, args, outfile);
    if (fx_verbose())
        fprintf(stderr, "$ %s &\n", cmd);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* The child's exit status within ms (killed and -1 past it). */
static int py_wait(pid_t pid, int ms)
{
    for (uint64_t end = fx_now_ms() + (uint64_t)ms;;) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (fx_now_ms() >= end) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            return -1;
        }
        usleep(20000);
    }
}

/* The whole of a file, malloc'd ("" when it cannot be read). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t cap = 1 << 16, len = 0, r;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while (f && (r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (cap - len < 2) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* A player's moves go out in real time. Its process stopped for 1.5 s
 * (what a starved machine does to it, made certain here with SIGSTOP)
 * owes some 94 moves of 16 ms when it wakes; sent at once they would ask
 * six times the time bank of a quarter second, and the server would cut
 * them as a lag switch's. It catches up at most half the bank and lets the
 * rest go, so every move is granted its whole dt: one by one over TCP, in
 * batches of 4 over UDP. */
static void a_stalled_player_catches_up_half_a_bank(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        char outfile[300];
        snprintf(outfile, sizeof outfile, "%s/stall%d.out", TMP, t);
        pid_t pid = py_start(outfile, "--connect %s %s --velocity 1,0,0 --count 150", t ? D4.udp : D4.tcp,
                             t ? "--udp --batch 4" : "");
        int moving = 0;
        for (int i = 0; i < 750 && !moving; i++) {
            usleep(20000);
            char *out = slurp(outfile);
            moving = count_of(out, "move seq=") >= 20;
            free(out);
        }
        if (!moving)
            kill(pid, SIGKILL);
        assert_true(moving);
        assert_int_equal(kill(pid, SIGSTOP), 0);
        usleep(1500000);
        assert_int_equal(kill(pid, SIGCONT), 0);
        int rc = py_wait(pid, 60000);
        char *out = slurp(outfile);
        if (rc != 0 || count_of(out, "move seq=") != 150 || count_of(out, "TimeBudget") != 0 ||
            count_of(out, " applied_dt=0.016") != 150)
            fail_msg("exit %d, %d moves, %d cut (TimeBudget), %d granted in full:\n%s", rc,
                     count_of(out, "move seq="), count_of(out, "TimeBudget"), count_of(out, " applied_dt=0.016"),
                     out);
        free(out);
    }
}

/* A sweepd that does not start leaves nothing behind: Sweepd.start()
 * raises SweepdError before the with statement could call __exit__, so it
 * removes its temporary directory and closes its files and pipe itself.
 * Once on a map that is not there (sweepd exits), once with no sweepd
 * where SWEEP_BIN says (nothing to run). TMPDIR is a directory of the
 * test's own, empty before; ResourceWarning names an unclosed file. */
static void sweep_testing_cleans_up_a_failed_start(void **state)
{
    (void)state;
    char script[PATH_MAX + 32], pydir[PATH_MAX], tmpdir[PATH_MAX + 32], cmd[6 * PATH_MAX + 512], *out;
    snprintf(script, sizeof script, "%s/failed_start.py", TMP);
    snprintf(tmpdir, sizeof tmpdir, "%s/tmpdir", TMP);
    snprintf(pydir, sizeof pydir, "%s", SCRIPT);
    *strrchr(pydir, '/') = '\0';
    assert_int_equal(mkdir(tmpdir, 0700), 0);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs("import gc, os, sys, tempfile\n"
          "sys.path.insert(0, sys.argv[1])\n"
          "from sweep_testing import Sweepd, SweepdError\n"
          "try:\n"
          "    with Sweepd(map_path=sys.argv[2]):\n"
          "        print('started')\n"
          "except SweepdError as e:\n"
          "    print('refused:', e)\n"
          "gc.collect()\n"
          "print('left', sorted(os.listdir(tempfile.gettempdir())))\n",
          f);
    fclose(f);
    for (int t = 0; t < 2; t++) {
        char bin[PATH_MAX + 32], map[PATH_MAX + 32];
        snprintf(bin, sizeof bin, "%s%s", t ? tmpdir : BUILD, t ? "" : "/bin");
        snprintf(map, sizeof map, "%s%s", t ? MAP : TMP, t ? "" : "/no-such-map.db");
        snprintf(cmd, sizeof cmd,
                 "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED TMPDIR='%s' SWEEP_BUILD_DIR='%s' SWEEP_BIN='%s' "
                 "/usr/bin/python3 -W always::ResourceWarning '%s' '%s' '%s'",
                 tmpdir, BUILD, bin, script, pydir, map);
        assert_int_equal(fx_run(cmd, &out), 0);
        if (!strstr(out, "refused: ") || !strstr(out, "left []") || strstr(out, "ResourceWarning") ||
            strstr(out, "Traceback"))
            fail_msg("%s:\n%s", t ? "no sweepd to run" : "a map that is not there", out);
        free(out);
    }
}

/* sweep_testing outside a source tree, with SWEEP_BIN naming an installed
 * prefix's bin that PATH does not hold, finds the arena installed beside
 * that sweepd (PREFIX/share/sweep/maps/arena.db). It looked only beside
 * the sweepd on PATH. */
static void sweep_testing_finds_the_arena_beside_sweep_bin(void **state)
{
    (void)state;
    char pre[PATH_MAX], mod[PATH_MAX], cmd[10 * PATH_MAX + 512], *out;
    snprintf(pre, sizeof pre, "%s/prefix", TMP);
    snprintf(mod, sizeof mod, "%s/module", TMP);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/bin' '%s/share/sweep/maps' '%s' && ln -sf '%s/bin/sweepd' '%s/bin/sweepd' && "
             "cp '%s' '%s/share/sweep/maps/arena.db' && cp \"$(dirname '%s')/sweep_testing.py\" '%s/'",
             pre, pre, mod, BUILD, pre, MAP, pre, SCRIPT, mod);
    assert_int_equal(fx_run(cmd, NULL), 0);
    snprintf(cmd, sizeof cmd,
             "cd / && env -u SWEEP_MAP PATH=/usr/bin:/bin SWEEP_BIN='%s/bin' /usr/bin/python3 -c "
             "'import sys; sys.path.insert(0, sys.argv[1]); import sweep_testing; print(\"arena\", "
             "sweep_testing.find_arena())' '%s'",
             pre, mod);
    int rc = fx_run(cmd, &out);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "arena %s/share/sweep/maps/arena.db\n", pre);
    if (rc != 0 || !strstr(out, want))
        fail_msg("exit %d, wanted %s:\n%s", rc, want, out);
    free(out);
}

/* --- servers that do not behave as sweepd does ----------------------------------- */

/* A child process on 127.0.0.1 takes one TCP connection, reads the Hello
 * and then, by its mode, says what sweepd never would. */
typedef enum {
    FAKE_PONGS,      /* Welcome; then to the Spawn only a Pong every 100 ms, never the answer */
    FAKE_TRICKLE,    /* Welcome; then to the Spawn its Spawned, one byte every 100 ms */
    FAKE_HUGE_FRAME, /* to the Hello a size prefix of 0xFFFFFFF0 bytes, and nothing after it */
    FAKE_BIG_FRAME,  /* to the Hello a frame of 1 MiB and a byte, all of it sent */
    FAKE_BAD_ROOT,   /* to the Hello a Welcome whose root offset points past the buffer */
    FAKE_NO_MAP,     /* to the Hello a Welcome without its required map_name */
    FAKE_NO_MESSAGE, /* Welcome; to the Spawn an Error without its required message */
    FAKE_LONG_LIST,  /* Welcome; to the Query a QueryResult that claims 2^24 answers */
    FAKE_MANY_HITS,  /* Welcome; to the Query a QueryResult with an answer of 11 hits, one more than allowed */
    FAKE_SLOW_PIECES, /* Welcome of max_batch 2; each Query answered after 300 ms */
} fake_mode;

/* Little-endian fields of a FlatBuffer, to break one on purpose. */
static uint32_t fb_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fb_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Where the vtable entry of field `index` of the table at t is. Only the
 * fake servers' children call it: one whose encoder left the field out
 * ends, and the client sees the connection close. */
static uint8_t *fb_slot(uint8_t *b, uint32_t t, unsigned index)
{
    uint32_t vt = t - fb_u32(b + t); /* the table's soffset, subtracted mod 2^32 */
    if (4 + 2 * index >= (unsigned)(b[vt] | b[vt + 1] << 8))
        _exit(3);
    return b + vt + 4 + 2 * index;
}

/* Where the offset field `index` of the table at t points. */
static uint32_t fb_follow(uint8_t *b, uint32_t t, unsigned index)
{
    uint8_t *slot = fb_slot(b, t, index);
    uint32_t at = t + (uint32_t)(slot[0] | slot[1] << 8);
    return at + fb_u32(b + at);
}

/* The body table of the message b (the root's field 3, after its type). */
static uint32_t fb_body(uint8_t *b)
{
    return fb_follow(b, fb_u32(b), 3);
}

/* Field `index` of the table at t, gone: its vtable entry says absent. */
static void fb_drop(uint8_t *b, uint32_t t, unsigned index)
{
    uint8_t *slot = fb_slot(b, t, index);
    slot[0] = slot[1] = 0;
}


static void fake_welcome(uint8_t *out, size_t cap, size_t *len, uint32_t seq, uint32_t max_batch)
{
    sweep_message w = fake_welcome_msg(seq, max_batch, 65536);
    w.as.welcome.session_id = 1;
    w.as.welcome.time_bank = 0.25;
    fake_put(&w, out, cap, len);
}

/* The child: one connection, as mode says; it ends within 30 s, or when
 * the client hangs up. */
static void fake_serve(int listener, fake_mode mode)
{
    alarm(30);
    int fd = accept(listener, NULL, NULL);
    if (fd < 0)
        _exit(2);
    fx_rx *rx = fx_rx_new();
    sweep_message in;
    if (fx_recv(fd, rx, &in) != 1 || in.kind != SWEEP_MSG_HELLO)
        _exit(2);
    static uint8_t out[1 << 16];
    size_t len = 0;
    if (mode == FAKE_HUGE_FRAME || mode == FAKE_BIG_FRAME) {
        uint32_t size = mode == FAKE_HUGE_FRAME ? 0xFFFFFFF0u : (1u << 20) + 1;
        uint8_t prefix[4] = {(uint8_t)size, (uint8_t)(size >> 8), (uint8_t)(size >> 16), (uint8_t)(size >> 24)};
        fake_send(fd, prefix, 4);
        memset(out, 0, sizeof out);
        for (uint32_t sent = 0; mode == FAKE_BIG_FRAME && sent < size; sent += sizeof out)
            fake_send(fd, out, size - sent < sizeof out ? size - sent : sizeof out);
        while (recv(fd, out, sizeof out, 0) > 0) /* until the client hangs up */
            ;
        _exit(0);
    }
    fake_welcome(out, sizeof out, &len, in.sequence, mode == FAKE_SLOW_PIECES ? 2 : 64);
    if (mode == FAKE_BAD_ROOT)
        fb_put32(out + 4, 0xFFFF0000u); /* out + 4: the buffer after the size prefix */
    if (mode == FAKE_NO_MAP)
        fb_drop(out + 4, fb_body(out + 4), 3);
    fake_send(fd, out, len);
    /* Room for the Query's items. */
    static sweep_msg_query_item items[64];
    static uint32_t ignore[64 * 16];
    rx->dec.query_items = items;
    rx->dec.query_items_cap = 64;
    rx->dec.query_ignore = ignore;
    rx->dec.query_ignore_cap = 64 * 16;
    if (fx_recv(fd, rx, &in) != 1)
        _exit(0);
    len = 0;
    for (; mode == FAKE_SLOW_PIECES; len = 0) {
        static sweep_msg_query_answer answers[64];
        usleep(300000);
        sweep_message q = fx_msg(SWEEP_MSG_QUERY_RESULT, in.sequence);
        q.as.query_result.answers = answers;
        q.as.query_result.count = in.as.query.count;
        fake_put(&q, out, sizeof out, &len);
        fake_send(fd, out, len);
        if (fx_recv(fd, rx, &in) != 1)
            _exit(0);
    }
    switch (mode) {
    case FAKE_NO_MESSAGE: {
        sweep_message e = fx_msg(SWEEP_MSG_ERROR, in.sequence);
        e.as.error.code = SWEEP_WIRE_BAD_POSITION;
        e.as.error.message = sweep_str_of("not there");
        e.as.error.sequence = in.sequence;
        fake_put(&e, out, sizeof out, &len);
        fb_drop(out + 4, fb_body(out + 4), 1);
        break;
    }
    case FAKE_LONG_LIST: {
        sweep_msg_query_answer a = {.tick = 5};
        sweep_message q = fx_msg(SWEEP_MSG_QUERY_RESULT, in.sequence);
        q.as.query_result.answers = &a;
        q.as.query_result.count = 1;
        fake_put(&q, out, sizeof out, &len);
        fb_put32(out + 4 + fb_follow(out + 4, fb_body(out + 4), 0), 1u << 24);
        break;
    }
    case FAKE_TRICKLE: {
        sweep_message sp = fx_msg(SWEEP_MSG_SPAWNED, in.sequence);
        sp.as.spawned.entity = 7;
        sp.as.spawned.radii = (sweep_vec3){0.4, 0.4, 0.9};
        fake_put(&sp, out, sizeof out, &len);
        for (size_t i = 0; i < len; i++) {
            fake_send(fd, out + i, 1);
            usleep(100000);
        }
        len = 0;
        break;
    }
    case FAKE_MANY_HITS: {
        static sweep_wire_query_hit hits[SWEEP_WIRE_QUERY_HITS_MAX + 1];
        sweep_msg_query_answer a = {.tick = 5, .hits = hits, .hit_count = SWEEP_WIRE_QUERY_HITS_MAX + 1};
        sweep_message q = fx_msg(SWEEP_MSG_QUERY_RESULT, in.sequence);
        q.as.query_result.answers = &a;
        q.as.query_result.count = 1;
        fake_put(&q, out, sizeof out, &len);
        break;
    }
    default:
        for (;;) {
            sweep_message p = fx_msg(SWEEP_MSG_PONG, 0);
            len = 0;
            fake_put(&p, out, sizeof out, &len);
            fake_send(fd, out, len);
            usleep(100000);
        }
    }
    fake_send(fd, out, len);
    while (recv(fd, out, sizeof out, 0) > 0) /* until the client hangs up */
        ;
    _exit(0);
}

static void fake_start(fake *f, fake_mode mode)
{
    int ls = fake_bound(f, SOCK_STREAM);
    assert_int_equal(listen(ls, 1), 0);
    f->pid = fork();
    assert_true(f->pid >= 0);
    if (f->pid == 0)
        fake_serve(ls, mode);
    close(ls);
}


/* Runs the Python lines `body` with sweep_client imported, ADDRESS the
 * address given and TOKEN the servers' command token, under a 60 s cap;
 * returns the exit status and the output. */
static int py_lines(char **out, const char *address, const char *body)
{
    char script[PATH_MAX + 32], pydir[PATH_MAX], cmd[4 * PATH_MAX + 512];
    snprintf(script, sizeof script, "%s/lines.py", TMP);
    snprintf(pydir, sizeof pydir, "%s", SCRIPT);
    *strrchr(pydir, '/') = '\0';
    FILE *s = fopen(script, "w");
    assert_non_null(s);
    fprintf(s, "import socket, sys, time\nsys.path.insert(0, %s)\nimport sweep_client\nADDRESS = %s\nTOKEN = '%s'\n%s",
            "sys.argv[1]", "sys.argv[2]", TOKEN, body);
    fclose(s);
    snprintf(cmd, sizeof cmd,
             "cd / && env -u PYTHONPATH -u SWEEP_PY_GENERATED SWEEP_BUILD_DIR='%s' timeout 60 /usr/bin/python3 "
             "'%s' '%s' '%s'",
             BUILD, script, pydir, address);
    return fx_run(cmd, out);
}

/* The fake server of `mode` is asked for a Spawn with a 1 s timeout: the
 * call must give up by its deadline, naming its request (the Hello was
 * sequence 1). */
static void spawn_times_out(fake_mode mode)
{
    fake f;
    fake_start(&f, mode);
    char *out;
    int rc = py_lines(&out, f.address,
                      "c = sweep_client.Client(ADDRESS, timeout=1.0)\n"
                      "t0 = time.monotonic()\n"
                      "try:\n"
                      "    c.spawn()\n"
                      "    print('spawned after %.1f s' % (time.monotonic() - t0))\n"
                      "except socket.timeout as e:\n"
                      "    print('timeout after %.1f s: %s' % (time.monotonic() - t0, e))\n");
    fake_stop(&f);
    double after = 99;
    const char *t = strstr(out, "timeout after ");
    if (rc != 0 || !t || sscanf(t, "timeout after %lf", &after) != 1 || after > 2 ||
        !strstr(t, "Spawn (sequence 2)"))
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* A blocking call has one deadline, the client's timeout, however many
 * other messages keep coming meanwhile: a Pong every 100 ms does not hold
 * a Spawn of a 1 s timeout for longer. */
static void a_call_times_out_while_other_messages_come(void **state)
{
    (void)state;
    spawn_times_out(FAKE_PONGS);
}

/* Nor does an answer sent a byte at a time: each read waits for what is
 * left of the time, not for the whole timeout again. A Spawned trickled
 * at ten bytes a second held a call of a 1 s timeout for ten seconds. */
static void a_trickled_frame_keeps_the_deadline(void **state)
{
    (void)state;
    spawn_times_out(FAKE_TRICKLE);
}

/* A Query of more items than one message holds goes in several, and
 * each message waits up to the timeout for its answer, as libsweep's
 * blocking query gives each of its messages the whole timeout: four items
 * at two a message, each answered after 300 ms, take longer than a
 * timeout of 0.5 s and still all come back. */
static void each_message_of_a_query_has_its_deadline(void **state)
{
    (void)state;
    fake f;
    fake_start(&f, FAKE_SLOW_PIECES);
    char *out;
    int rc = py_lines(&out, f.address,
                      "c = sweep_client.Client(ADDRESS, timeout=0.5)\n"
                      "t0 = time.monotonic()\n"
                      "answers = c.query([{'kind': 'Ray', 'from': (0.0, 0.0, 1.0), 'to': (0.0, 0.0, -1.0)}] * 4)\n"
                      "print('answers %d after %.1f s' % (len(answers), time.monotonic() - t0))\n");
    fake_stop(&f);
    double after = 0;
    const char *t = strstr(out, "answers 4 after ");
    if (rc != 0 || !t || sscanf(t, "answers 4 after %lf", &after) != 1 || after < 0.5)
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* A frame longer than any the client takes (1 MiB, libsweep's bound) is
 * refused at its size prefix, by name: not waited for, nor buffered. */
static void a_frame_above_the_limit_is_refused(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        fake f;
        fake_start(&f, t ? FAKE_BIG_FRAME : FAKE_HUGE_FRAME);
        char *out;
        int rc = py(&out, "--connect %s --velocity 1,0,0", f.address);
        fake_stop(&f);
        char want[128];
        snprintf(want, sizeof want, "error ProtocolError: the server announced a frame of %u bytes, above 1048576",
                 t ? (1u << 20) + 1 : 0xFFFFFFF0u);
        if (rc != 1 || !strstr(out, want) || strstr(out, "Traceback"))
            fail_msg("exit %d:\n%s", rc, out);
        free(out);
    }
}

/* A message that does not decode is refused by name (ProtocolError, exit
 * 1), not read: an offset past the end, a required field missing, a list
 * longer than its buffer, or longer than the protocol allows (more hits
 * than a QueryAnswer holds: answers sharing one long vector made a 1 MiB
 * frame ten seconds of decoding). The official runtime trusts what it
 * reads, and gave struct.error and AttributeError tracebacks, or took
 * 2^24 answers one at a time. */
static void a_message_that_does_not_decode_is_refused(void **state)
{
    (void)state;
    static const struct {
        fake_mode mode;
        const char *args, *want;
    } cases[] = {
        {FAKE_BAD_ROOT, "--velocity 1,0,0", "error ProtocolError: malformed Message from the server: the table at "},
        {FAKE_NO_MAP, "--velocity 1,0,0", "error ProtocolError: Welcome from the server without its required map_name"},
        {FAKE_NO_MESSAGE, "--velocity 1,0,0", "error ProtocolError: Error from the server without its required message"},
        {FAKE_LONG_LIST, "--query 'ray 0,0,1 0,0,-5'",
         "error ProtocolError: malformed QueryResult from the server: answers (16777216 items) at "},
        {FAKE_MANY_HITS, "--query 'ray 0,0,1 0,0,-5'",
         "error ProtocolError: malformed QueryAnswer from the server: hits holds 11 items, the protocol allows at "
         "most 10"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake f;
        fake_start(&f, cases[i].mode);
        char *out;
        int rc = py(&out, "--connect %s %s", f.address, cases[i].args);
        fake_stop(&f);
        if (rc != 1 || !strstr(out, cases[i].want) || strstr(out, "Traceback"))
            fail_msg("case %zu: exit %d, wanted %s:\n%s", i, rc, cases[i].want, out);
        free(out);
    }
}

/* A handshake the server refuses (AuthFailed, here) leaves no socket
 * open: ten refused over TCP and UDP, and the process has the descriptors
 * it had. */
static void a_refused_handshake_closes_its_socket(void **state)
{
    (void)state;
    char address[sizeof D4.tcp + sizeof D4.udp + 1], *out;
    snprintf(address, sizeof address, "%s %s", D4.tcp, D4.udp);
    int rc = py_lines(&out, address,
                      "import os\n"
                      "tcp, udp = ADDRESS.split()\n"
                      "before = len(os.listdir('/proc/self/fd'))\n"
                      "refused = 0\n"
                      "for _ in range(5):\n"
                      "    for a, u in ((tcp, False), (udp, True)):\n"
                      "        try:\n"
                      "            sweep_client.Client(a, udp=u, timeout=5.0, token='not-a-token')\n"
                      "        except sweep_client.ServerError as e:\n"
                      "            refused += 1\n"
                      "            name = e.name\n"
                      "print('refused', refused, name, 'descriptors', before, len(os.listdir('/proc/self/fd')))\n");
    const char *t = strstr(out, "refused 10 AuthFailed descriptors ");
    int before = -1, after = -2;
    if (rc != 0 || !t || sscanf(t, "refused 10 AuthFailed descriptors %d %d", &before, &after) != 2 ||
        before != after)
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* A child process on a UDP port of 127.0.0.1 that does the cookie
 * handshake (or, by its mode, drags it out) and then says what sweepd
 * never would. */
typedef enum {
    UFAKE_JUNK,       /* to the first Spawn junk every 100 ms for 3 s, no answer; to a resend its Spawned */
    UFAKE_SLOW_HELLO, /* each Hello answered after 400 ms: a Challenge, or BadCookie to one with a cookie */
    UFAKE_STALE_BYE,  /* each Hello answered with a Bye (an earlier session's on the port) before its answer */
} ufake_mode;

static void ufake_send(int fd, const sweep_message *m, const struct sockaddr_storage *to, socklen_t tl)
{
    static uint8_t scratch[1 << 16];
    const uint8_t *bytes;
    size_t n;
    if (sweep_encode(m, 0, scratch, sizeof scratch, &bytes, &n) != SWEEP_PROTO_OK)
        _exit(2);
    sendto(fd, bytes, n, 0, (const struct sockaddr *)to, tl);
}

static void ufake_serve(int fd, ufake_mode mode)
{
    alarm(30);
    static const uint8_t cookie[8] = "cookie!!";
    fx_rx *rx = fx_rx_new();
    struct sockaddr_storage peer;
    socklen_t pl = 0;
    uint32_t answered = 0; /* the newest Hello answered: its resends are not */
    int spawns = 0;
    uint64_t junk_until = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, junk_until ? 100 : -1) > 0) {
            socklen_t len = sizeof peer;
            ssize_t r = recvfrom(fd, rx->buf, sizeof rx->buf, 0, (struct sockaddr *)&peer, &len);
            sweep_message in;
            if (r <= 0 || sweep_decode(&rx->dec, rx->buf, (size_t)r, 0, &in) != SWEEP_PROTO_OK)
                continue;
            pl = len;
            if (in.kind == SWEEP_MSG_HELLO && mode == UFAKE_SLOW_HELLO) {
                if (in.sequence == answered)
                    continue;
                answered = in.sequence;
                usleep(400000);
                sweep_message a = fx_msg(in.as.hello.cookie.len ? SWEEP_MSG_ERROR : SWEEP_MSG_CHALLENGE, in.sequence);
                a.as.challenge.cookie = (sweep_bytes){cookie, sizeof cookie};
                if (in.as.hello.cookie.len) {
                    a.as.error.code = SWEEP_WIRE_BAD_COOKIE;
                    a.as.error.message = sweep_str_of("stale");
                    a.as.error.sequence = in.sequence;
                }
                ufake_send(fd, &a, &peer, pl);
            } else if (in.kind == SWEEP_MSG_HELLO && !in.as.hello.cookie.len) {
                if (mode == UFAKE_STALE_BYE) {
                    sweep_message b = fx_msg(SWEEP_MSG_BYE, 0);
                    b.as.bye.reason = sweep_str_of("idle timeout");
                    ufake_send(fd, &b, &peer, pl);
                }
                sweep_message a = fx_msg(SWEEP_MSG_CHALLENGE, in.sequence);
                a.as.challenge.cookie = (sweep_bytes){cookie, sizeof cookie};
                ufake_send(fd, &a, &peer, pl);
            } else if (in.kind == SWEEP_MSG_HELLO) {
                if (mode == UFAKE_STALE_BYE) {
                    sweep_message b = fx_msg(SWEEP_MSG_BYE, 0);
                    b.as.bye.reason = sweep_str_of("idle timeout");
                    ufake_send(fd, &b, &peer, pl);
                }
                sweep_message w = fake_welcome_msg(in.sequence, 12, 1200);
                w.as.welcome.session_id = 1;
                w.as.welcome.time_bank = 0.25;
                w.as.welcome.udp_key = 5;
                ufake_send(fd, &w, &peer, pl);
            } else if (in.kind == SWEEP_MSG_SPAWN && mode == UFAKE_JUNK) {
                if (spawns++ == 0) {
                    junk_until = fx_now_ms() + 3000;
                } else {
                    sweep_message sp = fx_msg(SWEEP_MSG_SPAWNED, in.sequence);
                    sp.as.spawned.entity = 7;
                    sp.as.spawned.radii = (sweep_vec3){0.4, 0.4, 0.9};
                    ufake_send(fd, &sp, &peer, pl);
                }
            }
        }
        if (junk_until && fx_now_ms() < junk_until)
            sendto(fd, "junkjunkjunk", 12, 0, (struct sockaddr *)&peer, pl);
        else
            junk_until = 0;
    }
}

static void ufake_start(fake *f, ufake_mode mode)
{
    int fd = fake_bound(f, SOCK_DGRAM);
    f->pid = fork();
    assert_true(f->pid >= 0);
    if (f->pid == 0)
        ufake_serve(fd, mode);
    close(fd);
}

/* Datagrams that do not decode are dropped one at a time, each as a lost
 * one: the call still looks at its clock between them, resends its
 * request when the answer is late and keeps its deadline. A stream of
 * junk used to keep it in its read, with no resend, until the junk
 * stopped. */
static void junk_holds_back_neither_resends_nor_the_deadline(void **state)
{
    (void)state;
    fake f;
    ufake_start(&f, UFAKE_JUNK);
    char *out;
    int rc = py_lines(&out, f.address,
                      "c = sweep_client.Client(ADDRESS, udp=True, timeout=1.5)\n"
                      "t0 = time.monotonic()\n"
                      "try:\n"
                      "    sp = c.spawn()\n"
                      "    print('spawned %d after %.1f s, %d dropped' % (sp['entity'], time.monotonic() - t0,\n"
                      "          c.datagrams_dropped))\n"
                      "except socket.timeout as e:\n"
                      "    print('timeout after %.1f s: %s' % (time.monotonic() - t0, e))\n");
    fake_stop(&f);
    double after = 99;
    int dropped = 0;
    const char *t = strstr(out, "spawned 7 after ");
    if (rc != 0 || !t || sscanf(t, "spawned 7 after %lf s, %d dropped", &after, &dropped) != 2 || after > 1.2 ||
        dropped < 1)
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* The timeout bounds the whole handshake, as libsweep's does: a server
 * that answers each Hello just within it (a Challenge, then BadCookie to
 * start over) must not hold the constructor for every round. A timeout of
 * 0.6 s with 0.4 s a round took six rounds, 2.4 s, and ended in BadCookie. */
static void the_handshake_has_one_deadline(void **state)
{
    (void)state;
    fake f;
    ufake_start(&f, UFAKE_SLOW_HELLO);
    char *out;
    int rc = py_lines(&out, f.address,
                      "t0 = time.monotonic()\n"
                      "try:\n"
                      "    sweep_client.Client(ADDRESS, udp=True, timeout=0.6)\n"
                      "    print('welcome after %.1f s' % (time.monotonic() - t0))\n"
                      "except socket.timeout as e:\n"
                      "    print('timeout after %.1f s: %s' % (time.monotonic() - t0, e))\n"
                      "except sweep_client.ServerError as e:\n"
                      "    print('refused after %.1f s: %s' % (time.monotonic() - t0, e))\n");
    fake_stop(&f);
    double after = 99;
    const char *t = strstr(out, "timeout after ");
    if (rc != 0 || !t || sscanf(t, "timeout after %lf", &after) != 1 || after > 1.0 || !strstr(t, "Hello"))
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* --- UDP that loses what it is unlucky with ------------------------------------------ */

/* A UDP relay between the client and sweepd D4 in a child process: the
 * first n datagrams of kind `drop` the server sends are lost or, with
 * `mangle`, passed on with their root offset pointing past the end. Each
 * Spawned and each message of that kind is written to `log`, one line
 * each: "drop|pass KIND entity=E" (drop: lost or mangled; E the
 * Spawned's entity, else 0). */
typedef struct relay {
    pid_t pid;
    char address[64];
    char log[300];
} relay;

static void relay_serve(int front, int back, sweep_msg_kind drop, int n, int mangle, const char *logpath)
{
    alarm(60);
    FILE *log = fopen(logpath, "w");
    if (!log)
        _exit(2);
    setvbuf(log, NULL, _IOLBF, 0);
    fx_rx *rx = fx_rx_new();
    struct sockaddr_storage client;
    socklen_t cl = 0;
    for (;;) {
        struct pollfd p[2] = {{.fd = front, .events = POLLIN}, {.fd = back, .events = POLLIN}};
        if (poll(p, 2, -1) <= 0)
            continue;
        if (p[0].revents & POLLIN) {
            socklen_t len = sizeof client;
            ssize_t r = recvfrom(front, rx->buf, sizeof rx->buf, 0, (struct sockaddr *)&client, &len);
            if (r > 0) {
                cl = len;
                send(back, rx->buf, (size_t)r, 0);
            }
        }
        if (p[1].revents & POLLIN) {
            ssize_t r = recv(back, rx->buf, sizeof rx->buf, 0);
            if (r <= 0 || cl == 0)
                continue;
            sweep_message m;
            int known = sweep_decode(&rx->dec, rx->buf, (size_t)r, 0, &m) == SWEEP_PROTO_OK;
            int lost = known && m.kind == drop && n > 0;
            if (known && (m.kind == drop || m.kind == SWEEP_MSG_SPAWNED))
                fprintf(log, "%s %s entity=%u\n", lost ? "drop" : "pass", sweep_msg_kind_name(m.kind),
                        m.kind == SWEEP_MSG_SPAWNED ? m.as.spawned.entity : 0);
            if (lost) {
                n--;
                if (!mangle)
                    continue;
                fb_put32(rx->buf, 0xFFFF0000u);
            }
            sendto(front, rx->buf, (size_t)r, 0, (struct sockaddr *)&client, cl);
        }
    }
}

static void relay_start(relay *r, sweep_msg_kind drop, int n, int mangle)
{
    int front = socket(AF_INET, SOCK_DGRAM, 0), back = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(front >= 0 && back >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(front, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(front, (struct sockaddr *)&a, &al), 0);
    snprintf(r->address, sizeof r->address, "127.0.0.1:%u", ntohs(a.sin_port));
    struct sockaddr_in server = fx_addr(D4.port);
    assert_int_equal(connect(back, (struct sockaddr *)&server, sizeof server), 0);
    snprintf(r->log, sizeof r->log, "%s/relay.log", TMP);
    unlink(r->log);
    r->pid = fork();
    assert_true(r->pid >= 0);
    if (r->pid == 0)
        relay_serve(front, back, drop, n, mangle, r->log);
    close(front);
    close(back);
}

static void relay_stop(relay *r)
{
    kill(r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
}

/* The client run through r spawns one entity, the one the server made
 * however many times it was asked. */
static void spawned_once_through(relay *r)
{
    char *out;
    int rc = py(&out, "--connect %s --udp --velocity 1,0,0 --count 2", r->address);
    relay_stop(r);
    char *log = slurp(r->log);
    unsigned entity = 0, dropped = 0, passed = 0;
    const char *line = strstr(out, "spawned entity=");
    if (rc != 0 || !line || sscanf(line, "spawned entity=%u", &entity) != 1 || count_of(out, "move seq=") != 2)
        fail_msg("exit %d:\n%s\nrelay:\n%s", rc, out, log);
    /* Every Spawned the server sent named that entity, lost or not. */
    for (const char *p = log; (p = strstr(p, "Spawned entity=")) != NULL; p++) {
        unsigned e;
        assert_int_equal(sscanf(p, "Spawned entity=%u", &e), 1);
        if (e != entity)
            fail_msg("the server made entity %u too, the client got %u:\n%s", e, entity, log);
        if (p - log >= 5 && strncmp(p - 5, "drop ", 5) == 0)
            dropped++;
        else
            passed++;
    }
    assert_int_equal(dropped, 1);
    assert_true(passed >= 1);
    free(log);
    free(out);
}

/* Over UDP a Spawn whose Spawned is lost is sent again (the same bytes,
 * after half a second), and the server answers the repeat of a session's
 * newest Spawn with the entity it made: one entity, the one the client
 * prints. It used to wait out its 20 s. A Spawned that comes broken is a
 * lost one: a datagram may be forged or stray, and as libsweep does the
 * client drops it rather than the session. */
static void a_lost_spawned_is_asked_again(void **state)
{
    (void)state;
    for (int mangle = 0; mangle < 2; mangle++) {
        relay r;
        relay_start(&r, SWEEP_MSG_SPAWNED, 1, mangle);
        spawned_once_through(&r);
    }
}

/* Over UDP a Query whose answer is lost is sent again until every item has
 * its answer. */
static void a_lost_query_result_is_asked_again(void **state)
{
    (void)state;
    relay r;
    relay_start(&r, SWEEP_MSG_QUERY_RESULT, 1, 0);
    char *out;
    int rc = py(&out, "--connect %s --udp --query 'ray 0,0,1 0,0,-5' --query 'los 0,0,1 5,0,1'", r.address);
    relay_stop(&r);
    char *log = slurp(r.log);
    if (rc != 0 || !strstr(out, "answer item=0 kind=Ray result=None ") ||
        !strstr(out, "answer item=1 kind=LineOfSight result=None ") || !strstr(log, "drop QueryResult") ||
        !strstr(log, "pass QueryResult"))
        fail_msg("exit %d:\n%s\nrelay:\n%s", rc, out, log);
    free(log);
    free(out);
}

/* Over UDP a WatchWorld whose answer is lost is sent again, as libsweep's
 * blocking watch is: WatchWorld only sets the subscription, so a repeat is
 * safe. It waited out its timeout. */
static void a_lost_watch_answer_is_asked_again(void **state)
{
    (void)state;
    relay r;
    relay_start(&r, SWEEP_MSG_WORLD_STATE, 1, 0);
    char *out;
    int rc = py_lines(&out, r.address,
                      "c = sweep_client.Client(ADDRESS, udp=True, timeout=2.0)\n"
                      "ws = c.watch(1)\n"
                      "c.watch(0)\n"
                      "print('watched tick', ws['tick'] > 0)\n");
    relay_stop(&r);
    char *log = slurp(r.log);
    if (rc != 0 || !strstr(out, "watched tick True") || !strstr(log, "drop WorldState"))
        fail_msg("exit %d:\n%s\nrelay:\n%s", rc, out, log);
    free(log);
    free(out);
}

/* Client.close() says Bye, as libsweep's sweep_client_close does: over
 * UDP the server has no other word that the client went, and kept its
 * session and entity until the idle timeout (30 s). Another client looks
 * where the entity was, within two seconds of the close. */
static void close_says_bye(void **state)
{
    (void)state;
    char *out;
    int rc = py_lines(&out, D4.udp,
                      "a = sweep_client.Client(ADDRESS, udp=True, timeout=5.0)\n"
                      "sp = a.spawn()\n"
                      "a.close()\n"
                      "a.close()\n"
                      "b = sweep_client.Client(ADDRESS, udp=True, timeout=5.0, token=TOKEN)\n"
                      "item = {'kind': 'Overlap', 'from': sp['position'], 'radius': 0.5, 'filter': 4}\n"
                      "for _ in range(20):\n"
                      "    there = any(h['entity'] == sp['entity'] for h in b.query([item])[0]['hits'])\n"
                      "    if not there:\n"
                      "        break\n"
                      "    time.sleep(0.1)\n"
                      "b.close()\n"
                      "print('entity', sp['entity'], 'still there' if there else 'gone')\n");
    if (rc != 0 || !strstr(out, " gone"))
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* A name of several addresses, over UDP: one that refuses (127.0.0.2,
 * where sweepd does not listen) gives way at once, and one that stays
 * silent (127.0.0.3, a socket of the test's that answers nothing) after
 * its share of the timeout, half of 3 s here, as libsweep's do. The
 * silent one held the whole timeout and the constructor raised
 * socket.timeout, though the next address answers. */
static void a_silent_address_gives_way_to_the_next(void **state)
{
    (void)state;
    int quiet = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(quiet >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)D4.port)};
    inet_pton(AF_INET, "127.0.0.3", &a.sin_addr);
    assert_int_equal(bind(quiet, (struct sockaddr *)&a, sizeof a), 0);
    char *out;
    int rc = py_lines(&out, D4.udp,
                      "port = ADDRESS.rsplit(':', 1)[1]\n"
                      "NAMES = {'refused.test': '127.0.0.2', 'silent.test': '127.0.0.3'}\n"
                      "real = socket.getaddrinfo\n"
                      "def two(host, *args, **kw):\n"
                      "    if host not in NAMES:\n"
                      "        return real(host, *args, **kw)\n"
                      "    return real(NAMES[host], *args, **kw) + real('127.0.0.1', *args, **kw)\n"
                      "socket.getaddrinfo = two\n"
                      "for name in ('refused.test', 'silent.test'):\n"
                      "    t0 = time.monotonic()\n"
                      "    try:\n"
                      "        c = sweep_client.Client(name + ':' + port, udp=True, timeout=3.0)\n"
                      "        c.spawn()\n"
                      "        print(name, 'welcomed by', c.peer, 'after %.2f s' % (time.monotonic() - t0))\n"
                      "        c.close()\n"
                      "    except OSError as e:\n"
                      "        print(name, type(e).__name__, e, 'after %.2f s' % (time.monotonic() - t0))\n");
    char want[128];
    double refused = 99, silent = 0;
    snprintf(want, sizeof want, "refused.test welcomed by 127.0.0.1:%d after ", D4.port);
    const char *r = strstr(out, want);
    if (rc != 0 || !r || sscanf(r + strlen(want), "%lf", &refused) != 1 || refused > 1.4)
        fail_msg("exit %d:\n%s", rc, out);
    snprintf(want, sizeof want, "silent.test welcomed by 127.0.0.1:%d after ", D4.port);
    const char *t = strstr(out, want);
    if (!t || sscanf(t + strlen(want), "%lf", &silent) != 1 || silent < 1.4 || silent >= 3.0)
        fail_msg("exit %d:\n%s", rc, out);
    /* The silent one was tried first: the Hellos came to its socket. */
    uint8_t buf[2048];
    assert_true(recv(quiet, buf, sizeof buf, MSG_DONTWAIT) > 0);
    close(quiet);
    free(out);
}

/* A Bye ends the session: every call after it raises ServerBye again, with
 * the reason, over UDP as over TCP. Over UDP the calls after the first
 * raised ServerError (NotWelcomed: no session), over TCP whatever the
 * closed connection made of them. */
static void every_call_after_a_bye_says_so(void **state)
{
    (void)state;
    fx_server d;
    const char *args[] = {"--udp-idle-timeout", "0.5", "--idle-timeout", "0.5", NULL};
    assert_int_equal(fx_start(&d, args), 0);
    char *out;
    int rc = py_lines(&out, d.udp,
                      "for udp in (False, True):\n"
                      "    c = sweep_client.Client(ADDRESS, udp=udp, timeout=5.0)\n"
                      "    c.spawn()\n"
                      "    time.sleep(1.5)\n"
                      "    for _ in range(3):\n"
                      "        try:\n"
                      "            c.spawn()\n"
                      "            print('udp' if udp else 'tcp', 'spawned')\n"
                      "        except Exception as e:\n"
                      "            print('udp' if udp else 'tcp', type(e).__name__, e)\n"
                      "    c.close()\n");
    assert_int_equal(fx_stop(&d), 0);
    if (rc != 0 || count_of(out, "tcp ServerBye idle timeout\n") != 3 ||
        count_of(out, "udp ServerBye idle timeout\n") != 3)
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* Over UDP a Bye before the Welcome is for an earlier session of the
 * client's address and port (its idle timeout, as a new client took the
 * port), which the handshake replaces: the handshake goes on. The
 * constructor raised ServerBye. */
static void a_bye_before_the_welcome_is_not_ours(void **state)
{
    (void)state;
    fake f;
    ufake_start(&f, UFAKE_STALE_BYE);
    char *out;
    int rc = py_lines(&out, f.address,
                      "c = sweep_client.Client(ADDRESS, udp=True, timeout=5.0)\n"
                      "print('welcomed by', c.welcome['map_name'], 'dropped', c.datagrams_dropped)\n"
                      "c.close()\n");
    fake_stop(&f);
    if (rc != 0 || !strstr(out, "welcomed by fake dropped 2"))
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* sweepd stopped says Bye "server shutting down" to every session, then
 * its port closes, and a datagram sent there brings back a refusal, which
 * Linux reports ahead of the datagrams still queued. The client raised
 * ConnectionRefusedError, the Bye unread, whether its read met the
 * refusal (a Spawn sent after the port closed) or its send did (a Spawn
 * sent after a Ping's refusal came back). */
static void the_bye_comes_before_the_refusal(void **state)
{
    (void)state;
    fx_server d;
    assert_int_equal(fx_start(&d, NULL), 0);
    char body[2048], *out;
    snprintf(body, sizeof body,
             "import os, signal\n"
             "reads = sweep_client.Client(ADDRESS, udp=True, timeout=5.0)\n"
             "sends = sweep_client.Client(ADDRESS, udp=True, timeout=5.0)\n"
             "reads.spawn()\n"
             "sends.spawn()\n"
             "os.kill(%d, signal.SIGTERM)\n"
             "# Gone once a probe of its own to the port is refused.\n"
             "host, port = ADDRESS.rsplit(':', 1)\n"
             "probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
             "probe.connect((host, int(port)))\n"
             "probe.settimeout(0.05)\n"
             "for _ in range(400):\n"
             "    try:\n"
             "        probe.send(b'x')\n"
             "        probe.recv(64)\n"
             "    except ConnectionRefusedError:\n"
             "        break\n"
             "    except socket.timeout:\n"
             "        pass\n"
             "sends.ping()\n"
             "time.sleep(0.2)\n"
             "for name, c in (('reads', reads), ('sends', sends)):\n"
             "    for _ in range(2):\n"
             "        try:\n"
             "            c.spawn()\n"
             "            print(name, 'spawned')\n"
             "        except Exception as e:\n"
             "            print(name, type(e).__name__, e)\n",
             (int)d.pid);
    int rc = py_lines(&out, d.udp, body);
    assert_int_equal(fx_wait(&d), 0);
    if (rc != 0 || count_of(out, "reads ServerBye server shutting down\n") != 2 ||
        count_of(out, "sends ServerBye server shutting down\n") != 2)
        fail_msg("exit %d:\n%s", rc, out);
    free(out);
}

/* A Query of more items than one message may hold goes in several, each
 * answered in turn, and the answers come back in the items' order: more
 * than the Welcome's max_batch (64 over TCP, 12 over UDP), and over UDP
 * items too large for a dozen to fit a datagram (16 ignored ids each). It
 * was sent whole: BatchTooLarge over TCP, no answer at all over UDP. */
static void a_query_of_many_items_is_split(void **state)
{
    (void)state;
    char args[4096] = "", *out;
    size_t len = 0;
    /* Rays down onto open floor where no player goes, each from a height
     * of its own. */
    for (int i = 0; i < 70; i++)
        len += (size_t)snprintf(args + len, sizeof args - len, " --query 'ray -2,-6,%d -2,-6,-5'", i + 1);
    for (int t = 0; t < 2; t++) {
        int rc = py(&out, "--connect %s %s --token %s%s", t ? D4.udp : D4.tcp, t ? "--udp" : "", TOKEN, args);
        int ok = rc == 0 && count_of(out, "answer item=") == 70 && count_of(out, " result=None ") == 70;
        for (int i = 0; ok && i < 70; i++) {
            char want[96];
            snprintf(want, sizeof want, "answer item=%d kind=Ray result=None ", i);
            const char *a = strstr(out, want);
            /* Each ray meets the floor its own height below. */
            snprintf(want, sizeof want, " distance=%d.0 point=(-2.0, -6.0, 0.0)", i + 1);
            const char *hit = a ? strstr(a, "\n  hit ") : NULL;
            ok = hit && strstr(hit, want) && strstr(hit, want) < strchr(hit + 1, '\n');
        }
        if (!ok)
            fail_msg("%s: exit %d:\n%s", t ? "udp" : "tcp", rc, out);
        free(out);
    }
    int rc = py_lines(&out, D4.udp,
                      "c = sweep_client.Client(ADDRESS, udp=True, timeout=5.0, token=TOKEN)\n"
                      "items = [{'kind': 'Ray', 'from': (-2.0, -6.0, 1.0 + i), 'to': (-2.0, -6.0, -5.0),\n"
                      "          'ignore': list(range(1000, 1016))} for i in range(12)]\n"
                      "answers = c.query(items)\n"
                      "print('answers', len(answers), [round(a['hits'][0]['distance']) for a in answers])\n");
    if (rc != 0 || !strstr(out, "answers 12 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"))
        fail_msg("long ignore lists: exit %d:\n%s", rc, out);
    free(out);
}

/* Client.move_batch takes any number of moves: 15,000 over UDP are 1,250
 * MoveBatches of 12, sent one after another. It split them by recursion,
 * a level for each batch, and ran out of Python's stack. */
static void a_long_move_batch_goes_in_many(void **state)
{
    (void)state;
    char *out;
    int rc = py_lines(&out, D4.udp,
                      "c = sweep_client.Client(ADDRESS, udp=True, token=TOKEN)\n"
                      "sp = c.spawn(position=(-2.0, -6.0, 0.95))\n"
                      "moves = [{'velocity': (0.0, 0.0, 0.0), 'dt': 0.001} for _ in range(15000)]\n"
                      "batches = c.move_batch(sp['entity'], moves)\n"
                      "results = [r for _, rs in batches for r in rs]\n"
                      "seqs = [r['sequence'] for r in results]\n"
                      "print('batches', len(batches), 'results', len(results), 'largest',\n"
                      "      max(len(rs) for _, rs in batches), 'increasing', seqs == sorted(set(seqs)))\n");
    char want[128];
    snprintf(want, sizeof want, "batches %u results 15000 largest %u increasing True",
             (15000 + sweep_udp_max_batch_claimed() - 1) / sweep_udp_max_batch_claimed(), sweep_udp_max_batch_claimed());
    if (rc != 0 || !strstr(out, want))
        fail_msg("exit %d, wanted %s:\n%s", rc, want, out);
    free(out);
}

/* --- IPv6 ---------------------------------------------------------------------- */

static void ipv6_tcp_and_udp(void **state)
{
    (void)state;
    if (!HAVE_V6) {
        skip_because("this machine has no IPv6 loopback (no ::1 in /proc/net/if_inet6)");
    }
    assert_true(strncmp(D6.tcp, "[::1]:", 6) == 0 && strncmp(D6.udp, "[::1]:", 6) == 0);
    for (int t = 0; t < 2; t++) {
        const char *addr = t ? D6.udp : D6.tcp, *udp = t ? "--udp" : "";
        char *out, peer[160];
        snprintf(peer, sizeof peer, " transport=%s peer=%s", t ? "udp" : "tcp", addr);
        assert_int_equal(py(&out, "--connect %s %s --velocity 3,0,0 --count 3", addr, udp), 0);
        assert_non_null(strstr(out, peer));
        assert_int_equal(count_of(out, "move seq="), 3);
        free(out);
        assert_int_equal(py(&out, "--connect %s %s --map '%s' --velocity 3,0,0 --count 6 --batch 3", addr, udp, MAP),
                         0);
        assert_non_null(strstr(out, peer));
        assert_non_null(strstr(out, " (picked by the server) position="));
        assert_int_equal(count_of(out, "batch seq="), 2);
        assert_int_equal(count_of(out, "move seq="), 6);
        free(out);
        assert_int_equal(py(&out, "--connect %s %s --watch 1 --count 2", addr, udp), 0);
        assert_int_equal(count_of(out, "world tick="), 2);
        free(out);
    }
    /* An IPv6 address without brackets is a bad command line. */
    char *out;
    assert_int_equal(py(&out, "--connect ::1:%s --velocity 1,0,0", strrchr(D6.tcp, ':') + 1), 2);
    assert_non_null(strstr(out, "in brackets"));
    free(out);
}

/* --- batches and the map ------------------------------------------------------- */

/* The text after "move seq=N " of each move line, in order (the sequences
 * differ between single moves and batches, which take one more each). */
static int move_tails(const char *out, char tails[][256], int cap)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, "move seq=")) != NULL && n < cap; p++) {
        const char *sp = strchr(p + 9, ' ');
        const char *eol = strchr(p, '\n');
        assert_non_null(sp);
        size_t len = eol ? (size_t)(eol - sp) : strlen(sp);
        assert_true(len < 256);
        memcpy(tails[n], sp, len);
        tails[n][len] = '\0';
        n++;
    }
    return n;
}

/* Each "batch seq=B moves=K" is followed by the results of moves B+1..B+K;
 * returns the number of batches, each at most `most` moves, and their
 * moves in *moves. */
static int check_batches(const char *out, unsigned most, int *moves)
{
    int batches = 0;
    *moves = 0;
    for (const char *p = out; (p = strstr(p, "batch seq=")) != NULL; p++) {
        unsigned seq, k;
        assert_int_equal(sscanf(p, "batch seq=%u moves=%u", &seq, &k), 2);
        assert_true(k >= 1 && k <= most);
        const char *q = p;
        for (unsigned i = 1; i <= k; i++) {
            unsigned ms;
            q = strstr(q + 1, "move seq=");
            assert_non_null(q);
            assert_int_equal(sscanf(q, "move seq=%u", &ms), 1);
            assert_int_equal(ms, seq + i);
        }
        batches++;
        *moves += (int)k;
    }
    return batches;
}

static void batches_within_what_the_server_announces(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        const char *addr = t ? D4.udp : D4.tcp, *udp = t ? "--udp" : "";
        char *one, *four;
        static char a[40][256], b[40][256];
        /* The server role along a wall, wishing too fast: the same results,
         * bit for bit, one by one and four at a time. */
        const char *moves = "--position 4,-7,0.95 --velocity 8,-1,0 --count 24 --bits";
        assert_int_equal(py(&one, "--connect %s %s --token %s %s", addr, udp, TOKEN, moves), 0);
        assert_int_equal(py(&four, "--connect %s %s --token %s %s --batch 4", addr, udp, TOKEN, moves), 0);
        assert_int_equal(move_tails(one, a, 40), 24);
        assert_int_equal(move_tails(four, b, 40), 24);
        for (int i = 0; i < 24; i++)
            assert_string_equal(a[i], b[i]);
        assert_int_equal(count_of(four, " rules=Speed "), 24);
        unsigned size, asked, max_batch, max_frame;
        const char *line = strstr(four, "batch size=");
        assert_non_null(line);
        assert_int_equal(sscanf(line, "batch size=%u asked=%u max_batch=%u max_frame=%u", &size, &asked, &max_batch,
                                &max_frame),
                         4);
        assert_int_equal(size, 4);
        assert_int_equal(asked, 4);
        if (t) {
            /* Over UDP the server announces what one datagram holds. */
            assert_int_equal(max_batch, sweep_udp_max_batch_claimed());
            assert_int_equal(max_frame, SWEEP_UDP_MAX_DATAGRAM);
        }
        int n;
        assert_int_equal(check_batches(four, 4, &n), 6);
        assert_int_equal(n, 24);
        free(one);
        free(four);

        /* More than a batch may hold: as many as the Welcome allows. */
        char *out;
        assert_int_equal(py(&out, "--connect %s %s --token %s --position 0,0,0.95 --velocity 1,0,0 --count 70 "
                                  "--batch 100",
                            addr, udp, TOKEN),
                         0);
        line = strstr(out, "batch size=");
        assert_non_null(line);
        assert_int_equal(sscanf(line, "batch size=%u asked=%u max_batch=%u", &size, &asked, &max_batch), 3);
        assert_int_equal(size, max_batch < 100 ? max_batch : 100);
        assert_int_equal(check_batches(out, size, &n), (70 + size - 1) / size);
        assert_int_equal(n, 70);
        assert_null(strstr(out, "error"));
        free(out);

        /* A player's batches, paced, stay within its time bank. */
        assert_int_equal(py(&out, "--connect %s %s --velocity 3,0,0 --count 20 --batch 50", addr, udp), 0);
        line = strstr(out, "batch size=");
        assert_non_null(line);
        assert_int_equal(sscanf(line, "batch size=%u", &size), 1);
        assert_true(size >= 1 && size < 50);
        assert_non_null(strstr(line, "half the time bank"));
        assert_int_equal(check_batches(out, size, &n), (20 + size - 1) / size);
        assert_int_equal(n, 20);
        assert_int_equal(count_of(out, "TimeBudget"), 0);
        free(out);
    }
}

/* The spawned line's point and position are the map's N-th. */
static unsigned spawned_at_map_point(const char *out, const char *picked_by)
{
    const char *p = strstr(out, "spawned entity=");
    assert_non_null(p);
    unsigned entity, point;
    double x, y, z;
    char rest[64] = "";
    assert_int_equal(sscanf(p, "spawned entity=%u position=(%lf, %lf, %lf) spawn_point=%u rules=none picked_by=%63s",
                            &entity, &x, &y, &z, &point, rest),
                     6);
    assert_string_equal(rest, picked_by);
    assert_true(point >= 1 && point <= LV.spawn_count);
    sweep_vec3 s = LV.spawns[point - 1];
    assert_true(x == s.x && y == s.y && z == s.z);
    char line[256];
    snprintf(line, sizeof line, "spawn_point %u of %u (%s) position=", point, LV.spawn_count,
             strcmp(picked_by, "server") == 0 ? "picked by the server" : "asked");
    assert_non_null(strstr(out, line));
    return point;
}

static void spawn_points_of_the_map(void **state)
{
    (void)state;
    char *out, want[PATH_MAX + 128];
    for (int t = 0; t < 2; t++) {
        const char *addr = t ? D4.udp : D4.tcp, *udp = t ? "--udp" : "";
        /* A guest with --map and --batch 4: the point the server picked. */
        assert_int_equal(py(&out, "--connect %s %s --map '%s' --velocity 3,0,0 --count 10 --batch 4", addr, udp, MAP),
                         0);
        snprintf(want, sizeof want, "map %s name=%s spawn_points=%u radii=(", MAP, LV.name, LV.spawn_count);
        assert_non_null(strstr(out, want));
        spawned_at_map_point(out, "server");
        int n;
        assert_int_equal(check_batches(out, 4, &n), 3);
        assert_int_equal(n, 10);
        assert_non_null(strstr(out, "batch size=4 asked=4"));
        free(out);
        /* One asked for: that one, as the map says. */
        assert_int_equal(py(&out, "--connect %s %s --map '%s' --spawn-point 3 --velocity 1,0,0", addr, udp, MAP), 0);
        assert_int_equal(spawned_at_map_point(out, "client"), 3);
        free(out);
    }
    /* The server role takes a point too when it gives no position. */
    assert_int_equal(py(&out, "--connect %s --token %s --map '%s' --spawn-point 2 --velocity 1,0,0", D4.tcp, TOKEN,
                        MAP),
                     0);
    assert_int_equal(spawned_at_map_point(out, "client"), 2);
    free(out);
    /* A point the map lacks: refused before connecting. */
    assert_int_equal(py(&out, "--connect %s --map '%s' --spawn-point %u --velocity 1,0,0", D4.tcp, MAP,
                        LV.spawn_count + 1),
                     2);
    snprintf(want, sizeof want, "has %u spawn point(s)", LV.spawn_count);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "welcome"));
    free(out);
    /* Another map than the server's: exit 1, naming both. */
    char other[300];
    snprintf(other, sizeof other, "%s/other.db", TMP);
    char cmd[PATH_MAX * 2];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", MAP, other);
    assert_int_equal(fx_run(cmd, NULL), 0);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE map SET name = 'elsewhere'", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(py(&out, "--connect %s --map '%s' --velocity 1,0,0", D4.tcp, other), 1);
    snprintf(want, sizeof want, "error map: the server runs map %s, %s is elsewhere", LV.name, other);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "spawned"));
    free(out);
    /* A file that is not a map. */
    assert_int_equal(py(&out, "--connect %s --map '%s' --velocity 1,0,0", D4.tcp, SCRIPT), 2);
    assert_non_null(strstr(out, "error map: "));
    assert_null(strstr(out, "Traceback"));
    free(out);
}

/* --- help ---------------------------------------------------------------------- */

static void help_names_every_option(void **state)
{
    (void)state;
    char *help;
    assert_int_equal(py(&help, "--help"), 0);
    assert_true(strstr(help, "\noptions:\n") || strstr(help, "\noptional arguments:\n"));
    /* The options the script defines: each add_argument's strings. */
    FILE *f = fopen(SCRIPT, "r");
    assert_non_null(f);
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[len] = '\0';
    int options = 0;
    for (const char *p = src; (p = strstr(p, "add_argument(")) != NULL; p++) {
        const char *q = p + strlen("add_argument(");
        char names[4][64];
        int k = 0;
        while (*q == '"' && k < 4) {
            const char *end = strchr(q + 1, '"');
            assert_non_null(end);
            assert_true(end - q - 1 < 64);
            memcpy(names[k], q + 1, (size_t)(end - q - 1));
            names[k][end - q - 1] = '\0';
            k++;
            q = end + 1;
            if (*q != ',')
                break;
            q++;
            while (*q == ' ')
                q++;
        }
        assert_true(k >= 1);
        /* The first name starts a line of the options section ... */
        char at[80];
        snprintf(at, sizeof at, "\n  %s", names[0]);
        const char *h = help;
        while ((h = strstr(h, at)) != NULL && !strchr(" ,\n", h[strlen(at)]))
            h++;
        if (!h)
            fail_msg("--help does not list %s", names[0]);
        const char *next = strstr(h + 1, "\n  -"), *gap = strstr(h + 1, "\n\n");
        if (!next || (gap && gap < next))
            next = gap;
        const char *eol = strchr(h + 1, '\n');
        /* ... with every other name on it, and help text after. */
        for (int i = 1; i < k; i++) {
            const char *o = strstr(h, names[i]);
            if (!o || o > eol)
                fail_msg("--help does not name %s beside %s", names[i], names[0]);
        }
        const char *text = strstr(h + strlen(at), "  ");
        while (text && *text == ' ')
            text++;
        int letters = 0;
        for (const char *c = text; c && c < next && *c; c++)
            letters += (*c >= 'a' && *c <= 'z');
        if (letters < 10)
            fail_msg("--help gives %s no help text", names[0]);
        options++;
    }
    assert_true(options >= 16);
    /* Examples, IPv6 and batches among them. */
    assert_non_null(strstr(help, "\nexamples"));
    assert_non_null(strstr(help, "--connect [::1]:"));
    assert_non_null(strstr(help, "--batch 4"));
    assert_non_null(strstr(help, "--map build/maps/arena.db"));
    free(help);
}

static void queries_over_tcp_and_udp(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        const char *addr = t ? D4.udp : D4.tcp, *udp = t ? "--udp" : "";
        char *out;
        /* Along x = 0 at half a metre: the wedge's two faces at y = 14, then
         * the north wall at y = 20 (maps/arena.sql). */
        assert_int_equal(py(&out, "--connect %s %s --query 'rayall 0,-20,0.5 0,20,0.5' --query 'los 0,0,1 5,0,1' "
                                  "--query 'ray 0,0,1 0,0,-5'",
                            addr, udp),
                         0);
        assert_non_null(strstr(out, "answer item=0 kind=RayAll result=None "));
        if (!strstr(out, "hits=3\n"))
            fail_msg("%s", out);
        assert_non_null(strstr(out, "  hit kind=1 entity=0 shape=4294967295 triangle=350 material=2 mover=0 "
                                    "fraction=0.85 distance=34.0 point=(0.0, 14.0, 0.5)"));
        assert_non_null(strstr(out, "triangle=38 material=2 mover=0 fraction=1.0 distance=40.0 point=(0.0, 20.0, 0.5)"));
        assert_non_null(strstr(out, "answer item=1 kind=LineOfSight result=None "));
        assert_non_null(strstr(out, " flags=1 hits=0"));
        /* Straight down onto the floor, a metre below. */
        assert_non_null(strstr(out, "answer item=2 kind=Ray result=None "));
        assert_non_null(strstr(out, "distance=1.0 point=(0.0, 0.0, 0.0) normal=(0.0, 0.0, 1.0)"));
        free(out);
        /* Tick 1 is refused only once it is more than a player's rewind
         * cap (15 ticks, 250 ms) behind the newest: on a quick machine the
         * two calls above can come sooner after sweepd's start than that. */
        if (t == 0)
            usleep(400000);
        assert_int_equal(py(&out, "--connect %s %s --at 1+0.5 --query 'ray 0,0,1 0,0,-5'", addr, udp), 1);
        assert_non_null(strstr(out, "result=TooOld"));
        /* Older than the history once sweepd has run a second; before that
         * (a slow start on a busy machine) past a player's rewind cap. */
        if (!strstr(out, "message=tick 1 is older than the history keeps") &&
            !strstr(out, "message=tick 1 is more than the rewind cap"))
            fail_msg("%s", out);
        free(out);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        /* First: the others' entities stay in the history for a second
         * after their sessions end, in the way of its rays. */
        cmocka_unit_test(queries_over_tcp_and_udp),
        cmocka_unit_test(runs_whatever_python3_comes_first),
        cmocka_unit_test(ipv6_tcp_and_udp),
        cmocka_unit_test(batches_within_what_the_server_announces),
        cmocka_unit_test(spawn_points_of_the_map),
        cmocka_unit_test(help_names_every_option),
        cmocka_unit_test(the_log_reader_and_importers_find_the_runtime_too),
        cmocka_unit_test(bye_is_reported),
        cmocka_unit_test(a_refused_handshake_closes_its_socket),
        cmocka_unit_test(a_games_own_test_with_sweep_testing),
        cmocka_unit_test(a_stalled_player_catches_up_half_a_bank),
        cmocka_unit_test(sweep_testing_cleans_up_a_failed_start),
        cmocka_unit_test(sweep_testing_finds_the_arena_beside_sweep_bin),
        cmocka_unit_test(a_call_times_out_while_other_messages_come),
        cmocka_unit_test(a_trickled_frame_keeps_the_deadline),
        cmocka_unit_test(each_message_of_a_query_has_its_deadline),
        cmocka_unit_test(junk_holds_back_neither_resends_nor_the_deadline),
        cmocka_unit_test(the_handshake_has_one_deadline),
        cmocka_unit_test(a_frame_above_the_limit_is_refused),
        cmocka_unit_test(a_message_that_does_not_decode_is_refused),
        cmocka_unit_test(a_lost_spawned_is_asked_again),
        cmocka_unit_test(a_lost_query_result_is_asked_again),
        cmocka_unit_test(a_lost_watch_answer_is_asked_again),
        cmocka_unit_test(close_says_bye),
        cmocka_unit_test(a_silent_address_gives_way_to_the_next),
        cmocka_unit_test(every_call_after_a_bye_says_so),
        cmocka_unit_test(the_bye_comes_before_the_refusal),
        cmocka_unit_test(a_bye_before_the_welcome_is_not_ours),
        cmocka_unit_test(a_query_of_many_items_is_split),
        cmocka_unit_test(a_long_move_batch_goes_in_many),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
