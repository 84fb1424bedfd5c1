/*
 * test_cli.c - the `sweep` command-line client and the Python example
 * client against a real sweepd on the arena.
 *
 * `sweep move` must succeed over TCP and UDP (single moves and batches,
 * text and JSON), predict every move exactly when given the map, print the
 * same positions as a local run of the same moves, print the rules the
 * server applied (Speed, Jump, Vertical, TimeBudget, SpawnPosition,
 * SpawnRadii) and exit non-zero naming the error for a refused move, a
 * server that is not there, a different map, a refused token, or a bad
 * command line. `sweep token` mints tokens the server takes, in the role
 * they say. The Python client (flatc-generated code on Debian's
 * python3-flatbuffers, run with /usr/bin/python3) must complete the
 * handshake over TCP and UDP, with a token, spawn and move, with every
 * double bit-identical to the core run locally, name the rules, and report
 * a server Error by name.
 *
 * The server has a secret (FX_SECRET) for tokens, admits guests, and has a
 * command token; sessions that must spawn at a position of their own
 * choose say Hello with it (the server role).
 */
#include "core/version.h"
#include "tests/sweepd_fixture.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sys/stat.h>

#include "client-sdk/predict.h"
#include "core/vec3.h"
#include "maps/loader.h"

#define TOKEN "cli-test-token"

static fx_server D;
static char SWEEP[4096], MAP[4096], SECRET[256];

static int setup(void **state)
{
    (void)state;
    fx_build("bin/sweep", SWEEP, sizeof SWEEP);
    fx_build("maps/arena.db", MAP, sizeof MAP);
    if (fx_secret(SECRET, sizeof SECRET) != 0)
        return -1;
    const char *args[] = {"--command-token", TOKEN, "--auth-secret-file", SECRET, "--allow-guests", "on", NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    unlink(SECRET);
    return fx_stop(&D) == 0 ? 0 : -1;
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Runs `sweep ARGS`: its exit status, and its output in *out. */
#define sweep(out, ...) fx_run_program(SWEEP, out, __VA_ARGS__)

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
    assert_int_equal(sweep(&out, "--help"), 0);
    assert_non_null(strstr(out, "--jump"));
    assert_non_null(strstr(out, "token "));
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --velocity 1,0,0 --mode swim", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --velocity 1,0,0 --jump --hold-jump", D.tcp), 2);
    free(out);
    assert_int_equal(sweep(&out, "move --map '%s' --velocity 1,0,0 --mode fly", MAP), 2); /* fly is the server's */
    free(out);
    /* Every tool names the same release, and a usage error exits 2 in each. */
    static const char *const tools[] = {"sweep", "sweepd", "sweep-replay", "sweep-bots",
                                        "sweep-import", "sweep-mapgen", "sweep-walk"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        char rel[64], path[4096], cmd[8192], want[96];
        snprintf(rel, sizeof rel, "bin/%s", tools[i]);
        fx_build(rel, path, sizeof path);
        snprintf(cmd, sizeof cmd, "'%s' --version", path);
        assert_int_equal(fx_run(cmd, &out), 0);
        snprintf(want, sizeof want, "%s " SWEEP_VERSION, tools[i]);
        assert_non_null(strstr(out, want));
        free(out);
        snprintf(cmd, sizeof cmd, "'%s' --no-such-option 2>&1", path);
        int rc = fx_run(cmd, &out);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(out, "no-such-option"));
        free(out);
    }
    /* A port out of range is named as such, not refused by the port it
     * wraps to; the command line's fault, found before any connection. */
    assert_int_equal(sweep(&out, "ping --connect 127.0.0.1:99999"), 2);
    assert_non_null(strstr(out, "a port in 1..65535"));
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
    assert_non_null(strstr(out, " spawn_point=1 rules=none\n"));
    assert_non_null(strstr(out, "session id="));
    assert_non_null(strstr(out, " role=Player identity=#guest "));
    assert_non_null(strstr(out, " rules=none applied_dt=0.016"));
    free(out);
    /* --position says where, for the server role; a player is put at a
     * spawn point anyway, and the server says so. */
    assert_int_equal(
        sweep(&out, "move --connect %s --token %s --position 0,4,0.95 --velocity 0,1,0 --count 3", D.tcp, TOKEN), 0);
    assert_int_equal(count_of(out, "\nmove "), 3);
    assert_non_null(strstr(out, " role=Server identity=#command-token "));
    assert_non_null(strstr(out, "spawned entity="));
    assert_non_null(strstr(out, " position=(0, 4, 0.95) radii=(0.4"));
    assert_non_null(strstr(out, " rules=none\n"));
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --position 0,4,0.95 --radii 0.1,0.1,0.1 --velocity 0,1,0", D.tcp),
                     0);
    assert_non_null(strstr(out, " radii=(0.4, 0.4, 0.9) spawn_point="));
    assert_non_null(strstr(out, " rules=SpawnPosition,SpawnRadii\n"));
    free(out);
    static const char *const modes[] = {"", "--udp", "--batch", "--udp --batch"};
    for (int m = 0; m < 4; m++) {
        const char *addr = strstr(modes[m], "udp") ? D.udp : D.tcp;
        /* A player in real time, predicted exactly, jumping when it stands. */
        assert_int_equal(sweep(&out, "move --connect %s %s --map '%s' --velocity 3,1,0 --jump --count 40 --json",
                               addr, modes[m], MAP),
                         0);
        assert_int_equal(count_of(out, "{\"move\""), 40);
        assert_int_equal(count_of(out, "\"predicted\":\"match\""), 40);
        assert_int_equal(count_of(out, "\"rules\":0,\"rule_names\":\"\",\"speed_excess\":0,"), 40);
        assert_int_equal(count_of(out, "\"corrected\":false,\"correction\":0"), 40);
        assert_true(count_of(out, "\"buttons\":1,") >= 1);
        free(out);
    }
}

/* A paced player whose process stalls (stopped for half a second, twice the
 * bank's half) does not then send every move it owes: those would be cut as
 * a lag switch. It catches up half a bank and goes on unflagged. */
static void a_stalled_player_is_not_flagged(void **state)
{
    (void)state;
    char cmd[8192], *out;
    snprintf(cmd, sizeof cmd,
             "'%s' move --connect %s --velocity 3,1,0 --count 120 --json >\"$TMPDIR_CLI/out\" & p=$!; "
             "sleep 0.5; kill -STOP $p; sleep 0.5; kill -CONT $p; wait $p; rc=$?; cat \"$TMPDIR_CLI/out\"; exit $rc",
             SWEEP, D.tcp);
    char dir[] = "/tmp/sweep-cli-stall-XXXXXX";
    assert_non_null(mkdtemp(dir));
    setenv("TMPDIR_CLI", dir, 1);
    assert_int_equal(fx_run(cmd, &out), 0);
    assert_int_equal(count_of(out, "{\"move\""), 120);
    assert_int_equal(count_of(out, "\"rules\":0,\"rule_names\":\"\",\"speed_excess\":0,"), 120);
    free(out);
    char path[sizeof dir + 8];
    snprintf(path, sizeof path, "%s/out", dir);
    unlink(path);
    rmdir(dir);
}

/* Each rule the server applies is named on the move it acted on. */
static void rules_are_named(void **state)
{
    (void)state;
    char *out;
    /* Too fast: clamped to the walk speed (5 on the arena), the excess said. */
    assert_int_equal(sweep(&out, "move --connect %s --map '%s' --velocity 50,0,0 --count 2", D.tcp, MAP), 0);
    assert_int_equal(count_of(out, " rules=Speed speed_excess=45 "), 2);
    assert_int_equal(count_of(out, "predicted=match"), 2);
    free(out);
    /* Jump held from the spawn: it starts in the air, so the first is refused. */
    assert_int_equal(sweep(&out, "move --connect %s --map '%s' --velocity 0,0,0 --hold-jump --count 3", D.udp, MAP),
                     0);
    assert_non_null(strstr(out, "move 1 "));
    assert_non_null(strstr(out, " jump=1 rules=Jump "));
    free(out);
    /* A wish pointing up is not flight. */
    assert_int_equal(sweep(&out, "move --connect %s --velocity 1,0,5 --count 1 --json", D.tcp), 0);
    assert_non_null(strstr(out, "\"rule_names\":\"Vertical\""));
    free(out);
    /* Five seconds asked at once: the time budget (Welcome.time_bank) pays
     * for less, and the rest is named. */
    assert_int_equal(sweep(&out, "move --connect %s --velocity 1,0,0 --dt 1 --count 5 --interval 0", D.tcp), 0);
    assert_true(count_of(out, "TimeBudget time_excess=") >= 4);
    free(out);
    /* Fly is not a player's; nor, without --allow-free-move, the server role's. */
    assert_int_equal(sweep(&out, "move --connect %s --velocity 0,0,5 --mode fly", D.tcp), 1);
    assert_non_null(strstr(out, "error NotAllowed"));
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --token %s --velocity 0,0,5 --mode noclip", D.tcp, TOKEN), 1);
    assert_non_null(strstr(out, "error NotAllowed"));
    free(out);
    /* The server counts them. */
    assert_int_equal(sweep(&out, "stats --connect %s --json", D.tcp), 0);
    char *total = strstr(out, "\"rules_total\":{\"Speed\":"), *mine = strstr(out, "\"session_rules\":");
    assert_non_null(total);
    assert_non_null(mine);
    *mine = '\0'; /* the server's counts only */
    assert_null(strstr(total, "\"Speed\":0,"));
    assert_null(strstr(total, "\"Jump\":0,"));
    assert_null(strstr(total, "\"TimeBudget\":0,"));
    assert_null(strstr(total, "\"Vertical\":0,"));
    assert_null(strstr(total, "\"SpawnPosition\":0,"));
    assert_null(strstr(total, "\"FreeMove\":0}"));
    free(out);
}

/* `sweep token` mints what the server takes, in the role it says; a token
 * changed by one byte, expired, or signed with another secret is refused. */
static void tokens_say_who(void **state)
{
    (void)state;
    char *out, token[SWEEP_TOKEN_MAX + 2];
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role player --identity alice --ttl 60", SECRET), 0);
    assert_int_equal(sscanf(out, "%165s", token), 1);
    assert_true(strncmp(token, "sweep1:player:alice:", 20) == 0);
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --token %s --velocity 1,0,0", D.tcp, token), 0);
    assert_non_null(strstr(out, " role=Player identity=alice "));
    free(out);
    /* One byte changed: forged. */
    size_t n = strlen(token);
    token[n - 1] = token[n - 1] == '0' ? '1' : '0';
    assert_int_equal(sweep(&out, "move --connect %s --udp --token %s --velocity 1,0,0", D.udp, token), 1);
    assert_non_null(strstr(out, "error AuthFailed"));
    free(out);
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role server --identity tools --json", SECRET), 0);
    assert_non_null(strstr(out, "{\"token\":\"sweep1:server:tools:"));
    assert_int_equal(sscanf(strstr(out, "sweep1:"), "%165[^\"]", token), 1);
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --token %s --position 0,4,0.95 --velocity 1,0,0", D.tcp, token),
                     0);
    assert_non_null(strstr(out, " role=Server identity=tools "));
    assert_non_null(strstr(out, " position=(0, 4, 0.95) "));
    free(out);
    /* Expired, and signed with another secret. */
    fx_token(SWEEP_WIRE_ROLE_PLAYER, "bob", -10, token, sizeof token);
    assert_int_equal(sweep(&out, "move --connect %s --token %s --velocity 1,0,0", D.tcp, token), 1);
    assert_non_null(strstr(out, "error AuthFailed"));
    free(out);
    char other[300];
    snprintf(other, sizeof other, "%s.other", SECRET);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fputs("a-different-secret-of-32-bytes!!\n", f);
    fclose(f);
    chmod(other, 0600);
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role server --identity mallory", other), 0);
    assert_int_equal(sscanf(out, "%165s", token), 1);
    free(out);
    assert_int_equal(sweep(&out, "move --connect %s --token %s --velocity 1,0,0", D.tcp, token), 1);
    assert_non_null(strstr(out, "error AuthFailed"));
    free(out);
    /* Bad input to `sweep token`: named, never a crash. */
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role admin --identity x", SECRET), 2);
    free(out);
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role player --identity 'a:b'", SECRET), 2);
    free(out);
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role player --identity x --ttl 0", SECRET), 2);
    free(out);
    assert_int_equal(sweep(&out, "token --role player --identity x"), 2);
    free(out);
    assert_int_equal(sweep(&out, "token --secret-file /nonexistent --role player --identity x"), 1);
    assert_non_null(strstr(out, "error ARG"));
    free(out);
    f = fopen(other, "w");
    fputs("short\n", f);
    fclose(f);
    assert_int_equal(sweep(&out, "token --secret-file '%s' --role player --identity x", other), 1);
    free(out);
    unlink(other);
}

/* The same moves run locally print the same positions (the same bits:
 * %.17g of equal doubles is equal text). */
static void local_run_equals_server(void **state)
{
    (void)state;
    char *remote, *local;
    static char a[65536], b[65536];
    assert_int_equal(sweep(&remote,
                           "move --connect %s --udp --token %s --map '%s' --spawn 2 --velocity 8,-2,0 --jump --count 150 "
                           "--json",
                           D.udp, TOKEN, MAP),
                     0);
    assert_int_equal(sweep(&local, "move --map '%s' --spawn 2 --velocity 8,-2,0 --jump --count 150 --json", MAP), 0);
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
    assert_int_equal(
        sweep(&out, "move --connect %s --token %s --map '%s' --velocity 1,0,0 --radii 0,1,1", D.tcp, TOKEN, MAP), 1);
    assert_non_null(strstr(out, "error BadRadii"));
    free(out);
    assert_int_equal(sweep(&out, "move --connect 127.0.0.1:1 --position 0,0,1 --velocity 1,0,0"), 1);
    assert_non_null(strstr(out, "error CONNECT"));
    free(out);
    assert_int_equal(sweep(&out, "move --map /nonexistent/map.db --velocity 1,0,0"), 1);
    free(out);
    /* An address of the wrong form is the command line's fault. */
    assert_int_equal(sweep(&out, "ping --connect 127.0.0.1"), 2);
    assert_non_null(strstr(out, "--connect wants HOST:PORT"));
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
    assert_non_null(strstr(out, "\"session_rules\":{\"Speed\":0,"));
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
        /* Along y = -7 into the east wall, wishing too fast, jumping when it
         * stands (the server role, to start there and move at once). */
        int rc = python(&out,
                        "--connect %s %s --token %s --position 4,-7,0.95 --velocity 8,-1,0 --jump --dt 0.016 "
                        "--count 250 --bits",
                        t ? D.udp : D.tcp, t ? "--udp" : "", TOKEN);
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "welcome session="));
        assert_non_null(strstr(out, "map=arena"));
        assert_non_null(strstr(out, " role=Server identity=#command-token"));
        sweep_predict_state s = sweep_predict_state_at(sweep_v3(4, -7, 0.95));
        int moves = 0, jumps = 0;
        for (const char *p = out; (p = strstr(p, "move seq=")) != NULL; p++) {
            unsigned seq, grounded;
            uint64_t pb[3], vb[3];
            int n = sscanf(p, "move seq=%u position=%" SCNx64 ",%" SCNx64 ",%" SCNx64 " velocity=%" SCNx64 ",%" SCNx64
                              ",%" SCNx64 " grounded=%u",
                           &seq, &pb[0], &pb[1], &pb[2], &vb[0], &vb[1], &vb[2], &grounded);
            assert_int_equal(n, 8);
            /* The client pressed jump when the previous answer stood. */
            const char *eol = strchr(p, '\n');
            const char *jump = strstr(p, " jump=1");
            int jumped = jump && (!eol || jump < eol);
            assert_int_equal(jumped, s.grounded);
            jumps += jumped;
            sweep_wish wish = {.velocity = sweep_v3(8, -1, 0), .buttons = jumped ? SWEEP_WISH_JUMP : 0};
            sweep_act_result ar;
            assert_int_equal(
                sweep_predict_run(w, NULL, &lv.config, &lv.rules, lv.default_radii, &s, &wish, 0.016, &ar, NULL),
                SWEEP_CLIENT_OK);
            const char *rules = strstr(p, " rules=");
            assert_non_null(rules);
            assert_true(strncmp(rules, ar.rules & SWEEP_RULE_JUMP ? " rules=Speed,Jump " : " rules=Speed ",
                                ar.rules & SWEEP_RULE_JUMP ? 18 : 13) == 0);
            assert_true(pb[0] == bits_of(s.position.x) && pb[1] == bits_of(s.position.y) &&
                        pb[2] == bits_of(s.position.z));
            assert_true(vb[0] == bits_of(s.velocity.x) && vb[1] == bits_of(s.velocity.y) &&
                        vb[2] == bits_of(s.velocity.z));
            assert_int_equal(grounded, (unsigned)s.grounded);
            moves++;
        }
        assert_int_equal(moves, 250);
        assert_true(jumps >= 2);
        assert_true(s.position.x > 19.0); /* reached the wall */
        free(out);
        /* A guest player: a spawn point, the rules named, moves paced. */
        assert_int_equal(python(&out, "--connect %s %s --velocity 50,0,1 --count 3", t ? D.udp : D.tcp,
                                t ? "--udp" : ""),
                         0);
        assert_non_null(strstr(out, " role=Player identity=#guest"));
        /* At the point the server picked: which one depends on the spawns before. */
        assert_non_null(strstr(out, " rules=none picked_by=server"));
        assert_int_equal(count_of(out, " rules=Speed,Vertical speed_excess=45"), 3);
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
        cmocka_unit_test(a_stalled_player_is_not_flagged),
        cmocka_unit_test(rules_are_named),
        cmocka_unit_test(tokens_say_who),
        cmocka_unit_test(local_run_equals_server),
        cmocka_unit_test(errors_exit_non_zero_with_their_name),
        cmocka_unit_test(ping_and_stats),
        cmocka_unit_test(bots_run_and_report),
        cmocka_unit_test(python_client_matches_the_core),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
