/*
 * test_authority.c - the server's authority over motion, time, spawning
 * and identity, seen from the clients: honest players are never flagged,
 * and each class of cheat gains no more than the rules allow and is named.
 *
 * A real sweepd on the arena with a token secret (no guests): sweep-bots
 * mints each bot a player token of its own. First, many honest bots walk
 * and jump at 60 Hz over UDP through a bad network inside the bots'
 * process (5% loss each way, 0-30 ms of jitter, reordering) with three
 * earlier moves in every datagram, predicting every move and claiming the
 * prediction: every move the bots' clock allowed (37,440 unless their
 * process stalled), and not one error, correction or
 * rule, in the answers or in the server's own counters. Then every cheat
 * class beside honest bots, over TCP and over UDP: each one's advantage is
 * bounded as the map's rules say (walk speed, jump height, one time bank
 * of burst, the spawn points and radii of the map) and it is named, in
 * MoveResult.rules or Spawned.rules or as an Error, and in the server's
 * Stats counters for its sessions.
 *
 * The figures come from sweep-bots' report (one key=value line per mode);
 * this test reads them, it does not recompute them.
 */
#include "tests/sweepd_fixture.h"

#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "maps/loader.h"

static fx_server D;
static char BOTS[4096], MAP[4096], SECRET[256];
static sweep_level LV;

static int setup(void **state)
{
    (void)state;
    char err[256];
    fx_build("bin/sweep-bots", BOTS, sizeof BOTS);
    fx_build("maps/arena.db", MAP, sizeof MAP);
    if (sweep_map_load(MAP, &LV, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "arena: %s\n", err);
        return -1;
    }
    if (fx_secret(SECRET, sizeof SECRET) != 0)
        return -1;
    /* Every bot connects from 127.0.0.1, so this one host needs more than
     * the share of sessions and connections one address gets by default. */
    const char *args[] = {"--auth-secret-file", SECRET, "--max-sessions-per-address", "1024",
                          "--max-conns-per-address", "1024", NULL};
    return fx_start(&D, args);
}

static int teardown(void **state)
{
    (void)state;
    unlink(SECRET);
    sweep_level_free(&LV);
    return fx_stop(&D) == 0 ? 0 : -1;
}

/* --- reading the report ---------------------------------------------------------- */

/* The report line of mode `name` (a copy, NUL-terminated), or fails. */
static void mode_line(const char *out, const char *prefix, const char *name, char *line, size_t cap)
{
    char key[96];
    snprintf(key, sizeof key, "%s%s ", prefix, name);
    const char *p = strstr(out, key);
    if (!p)
        fail_msg("no '%s' line in:\n%s", key, out);
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n >= cap)
        n = cap - 1;
    memcpy(line, p, n);
    line[n] = '\0';
}

/* The value of ` key=` in line, as text (up to the next space). */
static const char *field(const char *line, const char *key, char *buf, size_t cap)
{
    char k[64];
    snprintf(k, sizeof k, " %s=", key);
    const char *p = strstr(line, k);
    if (!p)
        fail_msg("no %s in: %s", key, line);
    p += strlen(k);
    size_t n = strcspn(p, " ");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static double num(const char *line, const char *key)
{
    char buf[64];
    return strtod(field(line, key, buf, sizeof buf), NULL);
}

/* The count of `name` in a Name:count list field (0 if absent). */
static uint64_t count_in(const char *line, const char *key, const char *name)
{
    char buf[512], k[64];
    field(line, key, buf, sizeof buf);
    snprintf(k, sizeof k, "%s:", name);
    for (char *p = buf; (p = strstr(p, k)) != NULL; p++)
        if (p == buf || p[-1] == ',')
            return strtoull(p + strlen(k), NULL, 10);
    return 0;
}

static void is(const char *line, const char *key, const char *want)
{
    char buf[512];
    if (strcmp(field(line, key, buf, sizeof buf), want) != 0)
        fail_msg("%s=%s, want %s, in: %s", key, buf, want, line);
}

static void at_most(const char *line, const char *key, double bound)
{
    double v = num(line, key);
    if (!(v <= bound))
        fail_msg("%s=%g above %g in: %s", key, v, bound, line);
}

static void at_least(const char *line, const char *key, double bound)
{
    double v = num(line, key);
    if (!(v >= bound))
        fail_msg("%s=%g below %g in: %s", key, v, bound, line);
}

/* Rule `name` was named in the answers (rules or spawn_rules) and counted
 * by the server for the mode's sessions (stats_rules). */
static void named(const char *line, const char *where, const char *name)
{
    if (count_in(line, where, name) == 0)
        fail_msg("rule %s not in %s of: %s", name, where, line);
    if (count_in(line, "stats_rules", name) == 0)
        fail_msg("rule %s not counted by the server (stats_rules) in: %s", name, line);
}

/* An honest line: nothing flagged, named or refused. */
static void clean(const char *line)
{
    is(line, "errors", "0");
    is(line, "corrections", "0");
    is(line, "rule_moves", "0");
    is(line, "rules", "none");
    is(line, "spawn_rules", "none");
    is(line, "stats_rules", "none");
    is(line, "role", "Player");
}

/* How many times the server logged a stall of its own longer than about
 * its time bank (tick_late): moves that waited through one are cut as a
 * lag switch's, honest or not (server/README.md, Per tick). */
static unsigned server_stalls(void)
{
    FILE *f = fopen(D.log, "r");
    if (!f)
        return 0;
    unsigned n = 0;
    char buf[1024];
    while (fgets(buf, sizeof buf, f))
        n += strstr(buf, "event=tick_late") != NULL;
    fclose(f);
    return n;
}

/* An honest line after a stall of the server: no error, and nothing named
 * but the cut (TimeBudget, beyond what a stall of a bank's length or two
 * explains) and what follows from it (the prediction's Correction, a Jump
 * from where it did not stand), each cut move at most one mismatch beyond
 * those after a loss. */
static void cut_by_server_stall(const char *line)
{
    is(line, "errors", "0");
    is(line, "spawn_rules", "none");
    is(line, "role", "Player");
    static const char *const keys[] = {"rules", "stats_rules"};
    for (int k = 0; k < 2; k++) {
        char buf[512];
        field(line, keys[k], buf, sizeof buf);
        for (char *p = strtok(buf, ","); p; p = strtok(NULL, ","))
            if (strcmp(p, "none") != 0 && strncmp(p, "TimeBudget:", 11) != 0 && strncmp(p, "Correction:", 11) != 0 &&
                strncmp(p, "Jump:", 5) != 0)
                fail_msg("rule %s named for an honest bot: %s", p, line);
    }
    if (num(line, "mismatches") > num(line, "mismatches_after_loss") + num(line, "cut"))
        fail_msg("more mismatches than losses and cuts explain: %s", line);
    fprintf(stderr, "the server stalled longer than its time bank (tick_late in its log): honest bots cut: %s\n", line);
}

static int run_bots(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_bots(char **out, const char *fmt, ...)
{
    char args[2048], cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' --map '%s' --secret-file '%s' %s", BOTS, MAP, SECRET, args);
    int rc = fx_run(cmd, out);
    if (rc != 0 || getenv("SWEEP_TEST_VERBOSE"))
        fprintf(stderr, "$ %s\n%s", cmd, *out);
    return rc;
}

/* --- honest players -------------------------------------------------------------------- */

static void honest_players_are_never_flagged(void **state)
{
    (void)state;
    char *out, line[4096], net[512];
    uint64_t t0 = sweep_client_now_ns();
    unsigned stalls = server_stalls();
    /* 96 players at 60 Hz for 6.5 s: 37,440 moves, through a bad network.
     * Many players for a short while rather than few for long: the
     * server's clock grants time by ticks anchored to its start, so
     * nothing drifts with the length of the run, and what can go wrong
     * (a late, lost, resent or reordered datagram meeting the time
     * budget or the correction threshold) happens per move: 37,440 moves
     * meet some 1,900 lost and 1,800 reordered datagrams each way. */
    int rc = run_bots(&out,
                      "--connect %s --udp --mode honest --clients 96 --rate 60 --duration 6 --warmup 0.5 "
                      "--loss 0.05 --jitter-ms 30 --reorder 0.05 --redundancy 3 --seed 7",
                      D.udp);
    double wall = (double)(sweep_client_now_ns() - t0) / 1e9;
    int server_stalled = server_stalls() > stalls;
    assert_true(rc == 0 || (rc == 1 && server_stalled));
    mode_line(out, "mode=", "honest", line, sizeof line);
    if (server_stalled)
        cut_by_server_stall(line);
    else
        clean(line);
    /* Every move the bots' clock allowed: 37,440 less what a bot dropped
     * after a stall of its own process (stalled_s: it catches up at most
     * half a bank, as a game drops a hitch's frames; a loaded machine can
     * starve the bots' process for seconds), less one per bot for where the
     * run's end falls. Sending fewer is a bug of the bots' loop. */
    double planned = 60 * (96 * 6.5 - num(line, "stalled_s")) - 96;
    at_least(line, "moves", planned);
    if (num(line, "moves") < 35000)
        fprintf(stderr, "honest bots: the bots' process stalled %.1f bot-seconds: %.0f moves instead of 37,440\n",
                num(line, "stalled_s"), num(line, "moves"));
    /* Nearly every move answered: an answer is missed when each of the four
     * datagrams that carried the move lost it or its answer, (1 - 0.95^2)^4
     * = 1e-4 of them (more when a loaded machine lets socket buffers
     * overflow: the bound leaves room for that, since a missed answer flags
     * nothing), and a move is never applied only when all four were lost on
     * the way, 0.05^4 = 6e-6 of them, more when a socket buffer overflows
     * (then the next answer differs from the prediction, by less than the
     * threshold, and gives up the lost move). Every other answer is
     * predicted to the bit: a mismatch not after a loss is a desync. */
    at_least(line, "answered", 0.99 * num(line, "moves"));
    at_most(line, "lost", 0.01 * num(line, "moves"));
    at_most(line, "mismatches_after_loss", 0.01 * num(line, "moves"));
    if (!server_stalled && num(line, "mismatches") != num(line, "mismatches_after_loss"))
        fail_msg("answers differed from the prediction with no move lost before them: %s", line);
    /* Walking at the walk speed, and jumping. */
    at_least(line, "distance_per_s", 0.8 * LV.rules.walk_speed);
    at_most(line, "distance_per_s", LV.rules.walk_speed);
    at_least(line, "max_height", 0.5);
    if (!server_stalled)
        at_least(line, "granted_ratio", 1.0);
    /* The network was as bad as asked. */
    mode_line(out, "", "network", net, sizeof net);
    at_least(net, "to_server", num(line, "moves")); /* each move left in a datagram at least */
    at_least(net, "dropped", 0.04 * num(net, "to_server"));
    at_least(net, "reordered", 0.04 * num(net, "to_server"));
    is(net, "overflow", "0");
    fprintf(stderr, "honest bots: %s (%.1f s of wall time)\n", line, wall);
    double answered = num(line, "answered");
    free(out);

    /* The server's own counters: no rule acted on anyone. */
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = SWEEP_CLIENT_TCP;
    o.address = D.tcp;
    o.timeout_ms = 20000;
    char token[SWEEP_TOKEN_MAX + 1];
    o.auth_token = fx_token(SWEEP_WIRE_ROLE_PLAYER, "auditor", 600, token, sizeof token);
    sweep_client *c;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_OK);
    sweep_msg_stats st;
    assert_int_equal(sweep_client_get_stats(c, &st, &e), SWEEP_CLIENT_OK);
    assert_true(st.rules_total_count >= SWEEP_WIRE_RULE_COUNT);
    for (uint32_t i = 0; i < st.rules_total_count; i++)
        if (st.rules_total[i] &&
            !(server_stalled && (i == SWEEP_WIRE_RULE_TIME_BUDGET_BIT || i == SWEEP_WIRE_RULE_CORRECTION_BIT ||
                                 i == SWEEP_WIRE_RULE_JUMP_BIT)))
            fail_msg("the server counted rule %s %" PRIu64 " times", sweep_wire_rule_name(i), st.rules_total[i]);
    assert_true((double)st.moves_total >= answered);
    sweep_client_close(c);
}

/* Through a network that loses nearly a third of the datagrams and no
 * redundancy, many moves never reach the server: each makes the next
 * answer differ from the prediction (the server started it elsewhere), and
 * the answer gives up the lost move, which is how sweep-bots tells such a
 * mismatch (mismatches_after_loss) from a desync. All of them are of that
 * kind, and none is flagged. */
static void lost_moves_explain_every_mismatch(void **state)
{
    (void)state;
    char *out, line[4096];
    int rc = run_bots(&out,
                      "--connect %s --udp --mode honest --clients 8 --rate 60 --duration 2 --warmup 0.5 "
                      "--loss 0.3 --redundancy 0 --seed 11",
                      D.udp);
    assert_int_equal(rc, 0);
    mode_line(out, "mode=", "honest", line, sizeof line);
    clean(line);
    at_least(line, "lost", 0.1 * num(line, "moves"));
    at_least(line, "mismatches", 1);
    if (num(line, "mismatches") != num(line, "mismatches_after_loss"))
        fail_msg("answers differed from the prediction with no move lost before them: %s", line);
    free(out);
}

/* A bot process stopped for a second (SIGSTOP: what a starved machine
 * does to it, made certain) catches up at most half a time bank and drops
 * the rest, as a game drops a hitch's frames: nothing is flagged, and the
 * moves it did not send are accounted for (stalled_s), to the move. */
static void a_stalled_bot_process_drops_and_says_so(void **state)
{
    (void)state;
    char *out, line[4096];
    int rc = run_bots(&out,
                      "--connect %s --udp --mode honest --clients 8 --rate 60 --duration 3 --warmup 0.5 & b=$!; "
                      "sleep 1; kill -STOP $b; sleep 1; kill -CONT $b; wait $b",
                      D.udp);
    assert_int_equal(rc, 0);
    mode_line(out, "mode=", "honest", line, sizeof line);
    clean(line);
    /* Each of the 8 stopped at least 1 s and caught up at most 0.125 s;
     * its next send may have been due up to one interval (1/60 s) after
     * the stop, so that much of the stop may not count as dropped. */
    at_least(line, "stalled_s", 8 * (1.0 - 0.125 - 1.0 / 60) - 0.05);
    /* 60 moves a second of what was not dropped, within one per bot for
     * where the run's start and end fall. */
    double sent_s = 8 * 3.5 - num(line, "stalled_s");
    at_least(line, "moves", 60 * sent_s - 8);
    at_most(line, "moves", 60 * sent_s + 8);
    free(out);
}

/* The server stopped for half a second (SIGSTOP: what a starved machine
 * may do to it, made certain), twice its time bank: the moves that waited
 * in its socket meet a budget of one bank at most and are cut, as a lag
 * switch's would be; the server says so in its log (tick_late), and the
 * honest bots are named for nothing else. */
static void a_stalled_server_says_why_it_cut(void **state)
{
    (void)state;
    char *out, line[4096];
    unsigned before = server_stalls();
    int rc = run_bots(&out,
                      "--connect %s --udp --mode honest --clients 4 --rate 60 --duration 2 --warmup 0.5 & b=$!; "
                      "sleep 1; kill -STOP %d; sleep 0.5; kill -CONT %d; wait $b",
                      D.udp, (int)D.pid, (int)D.pid);
    assert_true(rc == 0 || rc == 1);
    assert_true(server_stalls() > before);
    mode_line(out, "mode=", "honest", line, sizeof line);
    cut_by_server_stall(line);
    free(out);
}

/* --- cheats ------------------------------------------------------------------------------- */

static const char *const CHEATS = "honest,speed,dilate,flood,burst,fly,noclip,jump,spawn-anywhere,shrink,teleport,forge";

static void cheats_over(int udp)
{
    char *out, line[4096], honest[4096];
    const sweep_rules *r = &LV.rules;
    double g = sweep_v3_len(LV.config.gravity);
    /* Two bots of each mode. */
    unsigned stalls = server_stalls();
    int rc = run_bots(&out, "--connect %s %s --mode %s --clients 24 --rate 60 --duration 4 --warmup 0.5",
                      udp ? D.udp : D.tcp, udp ? "--udp --redundancy 2" : "", CHEATS);
    /* The honest bots beside them were never flagged, unless the server
     * itself stalled longer than its bank (then only cut, and it says so). */
    int server_stalled = server_stalls() > stalls;
    assert_true(rc == 0 || (rc == 1 && server_stalled));
    mode_line(out, "mode=", "honest", honest, sizeof honest);
    if (server_stalled)
        cut_by_server_stall(honest);
    else
        clean(honest);
    double walk = num(honest, "distance_per_s");
    assert_true(walk > 0.5 * r->walk_speed);
    /* Per-bot time: what the clock gave, plus one bank at the start. */
    double time_bound = 1.0 + 0.25 / 4 + 0.02;

    /* Speed: clamped to the walk speed, the excess named. In any 0.25 s
     * of the server's ticks (peak_speed) a move gets at most those ticks
     * plus what the bank held: what a bot that stalled and caught up
     * (sweep-bots asks up to half a bank at once), or whose moves waited
     * for a busy server, may honestly have used. So the bound is the
     * server's, as for burst below, not a pace the bot keeps on a loaded
     * machine. */
    mode_line(out, "mode=", "speed", line, sizeof line);
    named(line, "rules", "Speed");
    at_most(line, "distance_per_s", r->walk_speed);
    at_most(line, "peak_speed", 2 * r->walk_speed + 0.1);
    is(line, "errors", "0");

    /* Time dilation and flooding: no more time than passes. */
    static const char *const timers[] = {"dilate", "flood"};
    for (int i = 0; i < 2; i++) {
        mode_line(out, "mode=", timers[i], line, sizeof line);
        named(line, "rules", "TimeBudget");
        at_least(line, "dt_asked_per_s", 3.5);
        at_most(line, "dt_granted_per_s", time_bound);
        at_most(line, "distance_per_s", r->walk_speed * time_bound); /* the walk speed, for the time granted */
        is(line, "errors", "0");
    }

    /* A lag switch: a burst is worth at most one time bank. */
    mode_line(out, "mode=", "burst", line, sizeof line);
    named(line, "rules", "TimeBudget");
    at_most(line, "dt_granted_per_s", time_bound);
    /* In any 0.25 s: that much walking plus a bank's worth (0.25 s). */
    at_most(line, "peak_speed", 2 * r->walk_speed + 0.1);

    /* Fly and noclip are not a player's: refused, counted, no motion. */
    static const char *const free_moves[] = {"fly", "noclip"};
    for (int i = 0; i < 2; i++) {
        mode_line(out, "mode=", free_moves[i], line, sizeof line);
        assert_true(count_in(line, "error_codes", "NotAllowed") > 0);
        assert_int_equal(count_in(line, "error_codes", "NotAllowed"), (uint64_t)num(line, "errors"));
        assert_true(count_in(line, "stats_rules", "FreeMove") > 0);
        is(line, "answered", "0");
        at_most(line, "max_height", 0.0);
        at_most(line, "reach", 0.0);
    }

    /* Jumping in the air, and wishing upwards: never above one jump. */
    mode_line(out, "mode=", "jump", line, sizeof line);
    named(line, "rules", "Jump");
    named(line, "rules", "Vertical");
    at_most(line, "max_height", r->jump_speed * r->jump_speed / (2 * g));
    at_least(line, "max_height", 0.5); /* it does jump, from the ground */

    /* Spawning elsewhere or smaller: the map's spawn points and radii. */
    mode_line(out, "mode=", "spawn-anywhere", line, sizeof line);
    named(line, "spawn_rules", "SpawnPosition");
    at_least(line, "spawn_offset", 7.9);
    at_most(line, "max_height", 0.0);
    mode_line(out, "mode=", "shrink", line, sizeof line);
    named(line, "spawn_rules", "SpawnRadii");
    is(line, "radii_ratio", "1.0000");

    /* Claiming to be elsewhere: every claim flagged, the server's place kept. */
    mode_line(out, "mode=", "teleport", line, sizeof line);
    named(line, "rules", "Correction");
    assert_true(num(line, "corrections") > 0);
    assert_true(num(line, "corrections") == num(line, "answered"));
    at_least(line, "max_correction", 9.0);
    at_most(line, "distance_per_s", r->walk_speed);
    at_most(line, "reach", 8.0);

    /* A token signed with another key: refused at the door; then a player. */
    mode_line(out, "mode=", "forge", line, sizeof line);
    assert_int_equal(count_in(line, "error_codes", "AuthFailed"), 2);
    is(line, "role", "Player");
    assert_true(num(line, "answered") > 0);

    /* Each cheat against the honest bots beside it. */
    mode_line(out, "advantage mode=", "speed", line, sizeof line);
    free(out);
}

static void cheats_are_prevented_and_named_over_tcp(void **state)
{
    (void)state;
    cheats_over(0);
}

static void cheats_are_prevented_and_named_over_udp(void **state)
{
    (void)state;
    cheats_over(1);
}

/* Bad command lines get a clear message and status 2, never a crash. */
static void bots_refuse_bad_options(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "--mode nosuch",
        "--mode load,honest",
        "--mode honest --loss 0.1",               /* impairment without --udp */
        "--udp --mode honest --loss 2",
        "--udp --mode honest --redundancy 9",
        "--udp --mode honest --jitter-ms -1",
        "--mode honest --rate 0",
        "--mode honest --batch 4",
        "--mode honest --token x",                 /* beside --secret-file */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out;
        int rc = run_bots(&out, "--connect %s %s", D.tcp, bad[i]);
        if (rc != 2)
            fail_msg("'%s' exited %d:\n%s", bad[i], rc, out);
        assert_non_null(strstr(out, "sweep-bots: "));
        free(out);
    }
    /* Player modes need the map. */
    char cmd[8192], *out;
    snprintf(cmd, sizeof cmd, "'%s' --connect %s --mode honest", BOTS, D.tcp);
    assert_int_equal(fx_run(cmd, &out), 2);
    assert_non_null(strstr(out, "--map"));
    free(out);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest_players_are_never_flagged),
        cmocka_unit_test(lost_moves_explain_every_mismatch),
        cmocka_unit_test(a_stalled_bot_process_drops_and_says_so),
        cmocka_unit_test(cheats_are_prevented_and_named_over_tcp),
        cmocka_unit_test(cheats_are_prevented_and_named_over_udp),
        cmocka_unit_test(bots_refuse_bad_options),
        cmocka_unit_test(a_stalled_server_says_why_it_cut),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
