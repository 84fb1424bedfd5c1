/*
 * test_sweep_log_py.c - the Python session log reader
 * (client-sdk/python/sweep_log.py) against logs a real sweepd recorded
 * while sweep-bots played on the arena, checked against sweep-replay, the
 * C reader that re-runs them.
 *
 * Its summary must count what sweep-replay counts (ticks, sessions,
 * requests, messages, moves, state hashes, segments, bytes), name the
 * Speed rule the cheating bot earned as often as its move results say so,
 * follow a rotated log through every segment to the same totals and fail
 * (exit 2, naming the missing file) when a segment of the chain is gone.
 * A byte flipped inside a frame must make it exit 2 naming the frame's
 * byte offset, as sweep-replay does; a log cut in the middle of its last
 * frame must read fine, up to that frame, and say truncated.
 *
 * The script runs under /usr/bin/python3 (Debian's python3-flatbuffers) with
 * the generated code of $(BUILD)/client-sdk/python; it is found in the
 * source tree, the build directory's parent (SWEEP_SRCDIR overrides it).
 */
#include "tests/sweepd_fixture.h"

#include <dirent.h>
#include <limits.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sys/stat.h>

static char BOTS[4096], REPLAY[4096], MAP[4096], SCRIPT[4096], GEN[4096];

static int setup(void **state)
{
    (void)state;
    fx_build("bin/sweep-bots", BOTS, sizeof BOTS);
    fx_build("bin/sweep-replay", REPLAY, sizeof REPLAY);
    fx_build("maps/arena.db", MAP, sizeof MAP);
    fx_build("client-sdk/python", GEN, sizeof GEN);
    const char *src = getenv("SWEEP_SRCDIR");
    if (src && *src) {
        snprintf(SCRIPT, sizeof SCRIPT, "%s/client-sdk/python/sweep_log.py", src);
    } else {
        fx_build("../client-sdk/python/sweep_log.py", SCRIPT, sizeof SCRIPT);
        if (access(SCRIPT, R_OK) != 0)
            snprintf(SCRIPT, sizeof SCRIPT, "./client-sdk/python/sweep_log.py");
    }
    if (access(SCRIPT, R_OK) != 0) {
        fprintf(stderr, "sweep_log.py not found at %s (set SWEEP_SRCDIR)\n", SCRIPT);
        return -1;
    }
    if (access(REPLAY, X_OK) != 0) {
        fprintf(stderr, "%s is not built\n", REPLAY);
        return -1;
    }
    /* Absolute: the module check runs Python from the script's directory. */
    char abs[PATH_MAX];
    if (!realpath(GEN, abs) || strlen(abs) >= sizeof GEN) {
        fprintf(stderr, "the generated Python code is not at %s\n", GEN);
        return -1;
    }
    snprintf(GEN, sizeof GEN, "%s", abs);
    if (!realpath(SCRIPT, abs) || strlen(abs) >= sizeof SCRIPT)
        return -1;
    snprintf(SCRIPT, sizeof SCRIPT, "%s", abs);
    return 0;
}

/* Runs sweep_log.py ARGS with the generated code of this build. */
static int pylog(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pylog(char **out, const char *fmt, ...)
{
    char args[4096], cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "SWEEP_PY_GENERATED='%s' /usr/bin/python3 '%s' %s", GEN, SCRIPT, args);
    return fx_run(cmd, out);
}

static int replay(char **out, const char *log)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --json", REPLAY, log);
    return fx_run(cmd, out);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The number after "key": in a JSON text (Python writes a space after the
 * colon, the C tools do not); -1 when the key is not there. Searches from
 * `from` (NULL: the whole text). */
static long long json_num_in(const char *json, const char *from, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(from ? from : json, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    char *end;
    long long v = strtoll(p, &end, 10);
    return end == p ? -1 : v;
}

static long long json_num(const char *json, const char *key)
{
    return json_num_in(json, NULL, key);
}

/* "key": true / false (1, 0; -1 when not there). */
static int json_bool(const char *json, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    if (!p)
        return -1;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    return strncmp(p, "true", 4) == 0 ? 1 : strncmp(p, "false", 5) == 0 ? 0 : -1;
}

/* The count of `name` inside the "object": {...} of a JSON text (0 when
 * the object does not name it, -1 when there is no such object). */
static long long json_member(const char *json, const char *object, const char *name)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": {", object);
    const char *o = strstr(json, pat);
    if (!o)
        return -1;
    const char *close = strchr(o, '}');
    long long v = json_num_in(json, o + strlen(pat) - 1, name);
    char key[128];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *at = strstr(o, key);
    return at && close && at < close ? v : 0;
}

/* --- files -------------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int spill(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(buf, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The frames of a whole log (server/record/record.h: a 16-byte header, then
 * u32 length, u32 CRC, body): their offsets and body lengths. */
static size_t frames_of(const uint8_t *log, size_t len, size_t *at, uint32_t *body, size_t cap)
{
    size_t n = 0, pos = 16;
    while (pos + 8 <= len && n < cap) {
        uint32_t b = u32_at(log + pos);
        if (pos + 8 + b > len)
            break;
        at[n] = pos;
        body[n++] = b;
        pos += 8 + (size_t)b;
    }
    assert_int_equal(pos, len); /* the recording is whole */
    return n;
}

/* The logs in dir: how many, and the path of the first segment. */
static int logs_in(const char *dir, char *first, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    first[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 9 || strcmp(e->d_name + l - 9, ".sweeplog") != 0)
            continue;
        n++;
        if (l >= 14 && strcmp(e->d_name + l - 14, "-0000.sweeplog") == 0)
            snprintf(first, cap, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return n;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Records a session: sweepd --record into a new directory (dir), plus
 * `extra` sweepd arguments, while sweep-bots plays `bots_args`; stopped
 * with SIGTERM, so the log ends with END "shutdown". */
static void record(char *dir, size_t cap, const char *extra_opt, const char *extra_val, const char *bots_args)
{
    snprintf(dir, cap, "/tmp/sweep-log-py-XXXXXX");
    assert_non_null(mkdtemp(dir));
    const char *args[] = {"--record", dir, extra_opt, extra_val, NULL};
    if (!extra_opt)
        args[2] = NULL;
    fx_server d;
    assert_int_equal(fx_start(&d, args), 0);
    char cmd[16384], *out;
    snprintf(cmd, sizeof cmd, "'%s' --connect %s --map '%s' --warmup 0 %s", BOTS, d.tcp, MAP, bots_args);
    int rc = fx_run(cmd, &out);
    /* Stopped before anything is judged: a failed check must not leave it running. */
    int stopped = fx_stop(&d);
    /* 1 is an honest bot that saw a rule under load; the log is what counts. */
    assert_true(rc == 0 || rc == 1);
    assert_non_null(strstr(out, "mode=speed"));
    free(out);
    assert_int_equal(stopped, 0);
}

/* The Python summary and sweep-replay's agree on every count both have. */
static void same_counts(const char *py, const char *c)
{
    static const char *const keys[] = {"ticks",  "sessions", "requests", "messages",
                                       "moves",  "hashes",   "segments", "bytes"};
    assert_int_equal(json_bool(c, "ok"), 1);
    assert_int_equal(json_bool(py, "ok"), 1);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        long long a = json_num(py, keys[i]), b = json_num(c, keys[i]);
        if (a != b)
            fprintf(stderr, "%s: sweep_log.py %lld, sweep-replay %lld\n", keys[i], a, b);
        assert_true(a >= 0);
        assert_int_equal(a, b);
    }
    assert_int_equal(json_bool(py, "truncated"), json_bool(c, "truncated"));
    assert_int_equal(json_bool(py, "ended"), json_bool(c, "ended"));
}

/* --- tests ---------------------------------------------------------------------- */

static void summary_matches_replay(void **state)
{
    (void)state;
    char dir[256], log[4096], *py, *c, *out;
    record(dir, sizeof dir, NULL, NULL, "--mode honest,speed --clients 2 --duration 1");
    assert_int_equal(logs_in(dir, log, sizeof log), 1);
    assert_true(log[0] != '\0');

    assert_int_equal(pylog(&py, "'%s' --summary --json", log), 0);
    assert_int_equal(replay(&c, log), 0);
    same_counts(py, c);
    long long moves = json_num(py, "moves"), ticks = json_num(py, "ticks");
    assert_true(moves >= 60); /* two bots at 60 moves/s for a second, most of them */
    assert_true(ticks >= 50);
    assert_int_equal(json_num(py, "sessions"), 2);
    assert_int_equal(json_num(py, "segments"), 1);
    assert_int_equal(json_bool(py, "ended"), 1);
    assert_int_equal(json_bool(py, "truncated"), 0);
    assert_non_null(strstr(py, "\"end_reason\": \"shutdown\""));
    /* Every request was a Spawn or a Move, every answer a Spawned or a result. */
    assert_int_equal(json_member(py, "requests_by_kind", "Spawn"), 2);
    assert_int_equal(json_member(py, "requests_by_kind", "Move"), moves);
    assert_int_equal(json_member(py, "messages_by_kind", "MoveResult"), moves);
    assert_int_equal(json_num(py, "resent"), 0); /* TCP: nothing is asked twice */
    /* The speed bot's wishes were all clamped, the honest bot's none. */
    long long speed = json_member(py, "rules", "Speed");
    assert_true(speed >= moves / 4 && speed <= moves - moves / 4);
    assert_int_equal(json_member(py, "rules", "Correction"), 0);
    assert_int_equal(json_num(py, "corrections"), 0);

    /* One move result a line, as many with Speed as the summary counted. */
    assert_int_equal(pylog(&out, "'%s' --moves --json", log), 0);
    assert_int_equal(count_of(out, "\"resent\": false"), moves);
    assert_int_equal(count_of(out, "\"rules\": [\"Speed\"]"), speed);
    free(out);
    assert_int_equal(pylog(&out, "'%s' --moves", log), 0);
    assert_int_equal(count_of(out, "rules=Speed speed_excess="), speed);
    free(out);
    /* A line per record: the HEAD, every tick, the sessions, the END. */
    assert_int_equal(pylog(&out, "'%s' --records", log), 0);
    assert_int_equal(count_of(out, " HEAD "), 1);
    assert_int_equal(count_of(out, " TICK "), ticks);
    assert_int_equal(count_of(out, " OPEN "), 2);
    assert_int_equal(count_of(out, " transport=TCP identity="), 2);
    assert_int_equal(count_of(out, " END "), 1);
    /* Format version 2: a MOVE record per applied move, as many with the
     * core's Speed bit (1; with Jump 2 and Limit 4 beside it or not) as
     * results with rule Speed. */
    assert_int_equal(count_of(out, " MOVE "), moves);
    free(out);
    assert_int_equal(pylog(&out, "'%s' --records --json", log), 0);
    assert_int_equal(count_of(out, "\"type\": \"MOVE\""), moves);
    assert_int_equal(count_of(out, "\"rules\": 1,") + count_of(out, "\"rules\": 3,") +
                         count_of(out, "\"rules\": 5,") + count_of(out, "\"rules\": 7,"),
                     speed);
    free(out);
    /* The text summary names the same. */
    assert_int_equal(pylog(&out, "'%s'", log), 0);
    char want[128];
    snprintf(want, sizeof want, "\nrules: Speed %lld\n", speed);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "\nended: shutdown\n"));
    free(out);
    /* As a module: move_results yields the same moves. */
    char cmd[16384];
    snprintf(cmd, sizeof cmd,
             "cd \"$(dirname '%s')\" && SWEEP_PY_GENERATED='%s' /usr/bin/python3 -c 'import sweep_log, sys; "
             "ms = list(sweep_log.move_results(sweep_log.open_log(sys.argv[1]))); "
             "print(\"module moves=%%d speed=%%d\" %% (len(ms), sum(\"Speed\" in m.rule_names for m in ms)))' '%s'",
             SCRIPT, GEN, log);
    assert_int_equal(fx_run(cmd, &out), 0);
    snprintf(want, sizeof want, "module moves=%lld speed=%lld\n", moves, speed);
    assert_string_equal(out, want);
    free(out);

    /* Without the generated code: exit 2, saying where it looked. */
    assert_int_equal(pylog(&out, "'%s' --generated /nonexistent-sweep-gen", log), 2);
    assert_non_null(strstr(out, "/nonexistent-sweep-gen"));
    assert_non_null(strstr(out, "generated"));
    free(out);

    /* --- a byte flipped in the middle of a frame: corrupt, named by offset */
    size_t len = 0;
    uint8_t *bytes = slurp(log, &len);
    assert_non_null(bytes);
    size_t at[8192];
    uint32_t body[8192];
    size_t n = frames_of(bytes, len, at, body, 8192);
    assert_true(n >= 10);
    size_t k = 0;
    while (k + 1 < n && at[k + 1] <= len / 2)
        k++;
    char bad[4200];
    snprintf(bad, sizeof bad, "%s/flipped.sweeplog", dir);
    bytes[at[k] + 8 + body[k] / 2] ^= 0x10;
    assert_int_equal(spill(bad, bytes, len), 0);
    bytes[at[k] + 8 + body[k] / 2] ^= 0x10;
    char where[64];
    snprintf(where, sizeof where, "frame at byte %zu ", at[k]);
    assert_int_equal(pylog(&out, "'%s' --summary --json", bad), 2);
    assert_non_null(strstr(out, "\"ok\": false"));
    assert_non_null(strstr(out, where));
    assert_non_null(strstr(out, "flipped.sweeplog"));
    assert_int_equal(json_num(out, "offset"), (long long)at[k]);
    free(out);
    assert_int_equal(pylog(&out, "'%s' --moves", bad), 2);
    assert_non_null(strstr(out, where));
    free(out);
    /* sweep-replay says the same of it. */
    assert_int_equal(replay(&out, bad), 2);
    assert_non_null(strstr(out, where));
    free(out);
    unlink(bad);

    /* --- said to be of version 6, a format without ANSWER records (its
     * header has no checksum): both readers name the first, at its byte */
    char older[4200];
    snprintf(older, sizeof older, "%s/older.sweeplog", dir);
    assert_int_equal(bytes[8], 7);
    bytes[8] = 6;
    assert_int_equal(spill(older, bytes, len), 0);
    bytes[8] = 7;
    char *c_says;
    assert_int_equal(replay(&c_says, older), 2);
    const char *rec = strstr(c_says, "record at byte ");
    assert_non_null(rec);
    assert_non_null(strstr(rec, ": ANSWER in a version 6 log"));
    char named[64];
    snprintf(named, sizeof named, "record at byte %lld: ANSWER in a version 6 log",
             strtoll(rec + strlen("record at byte "), NULL, 10));
    assert_int_equal(pylog(&out, "'%s' --summary", older), 2);
    if (!strstr(out, named))
        fail_msg("sweep_log.py: '%s' does not say '%s'", out, named);
    free(out);
    free(c_says);
    unlink(older);

    /* --- cut in the middle of the last frame: read up to it, truncated */
    char cut[4200];
    snprintf(cut, sizeof cut, "%s/cut.sweeplog", dir);
    assert_int_equal(spill(cut, bytes, at[n - 1] + 8 + body[n - 1] / 2), 0);
    free(py);
    free(c);
    assert_int_equal(pylog(&py, "'%s' --summary --json", cut), 0);
    assert_int_equal(replay(&c, cut), 0);
    same_counts(py, c);
    assert_int_equal(json_bool(py, "truncated"), 1);
    assert_int_equal(json_bool(py, "ended"), 0);
    assert_int_equal(json_num(py, "offset"), (long long)at[n - 1]);
    assert_int_equal(json_num(py, "bytes"), (long long)(at[n - 1] + 8 + body[n - 1] / 2));
    assert_true(json_num(py, "ticks") >= ticks - 1);
    free(py);
    free(c);
    assert_int_equal(pylog(&out, "'%s'", cut), 0);
    assert_non_null(strstr(out, "\ntruncated: "));
    free(out);
    unlink(cut);
    free(bytes);
    remove_dir(dir);
}

static void rotated_log_is_followed(void **state)
{
    (void)state;
    char dir[256], log[4096], *py, *c, *out;
    record(dir, sizeof dir, "--record-max-seconds", "0.3", "--mode honest,speed --clients 2 --duration 1.2");
    int files = logs_in(dir, log, sizeof log);
    assert_true(files >= 3);
    assert_true(log[0] != '\0');

    assert_int_equal(pylog(&py, "'%s' --summary --json", log), 0);
    assert_int_equal(replay(&c, log), 0);
    same_counts(py, c);
    assert_int_equal(json_num(py, "segments"), files);
    assert_int_equal(json_bool(py, "ended"), 1);
    assert_true(json_num(py, "moves") >= 60);
    assert_true(json_member(py, "rules", "Speed") > 0);
    free(py);
    free(c);

    /* The first segment alone: one segment, and where it goes on. */
    assert_int_equal(pylog(&py, "'%s' --summary --json --no-follow", log), 0);
    assert_int_equal(json_num(py, "segments"), 1);
    assert_int_equal(json_bool(py, "ended"), 0);
    assert_non_null(strstr(py, "-0001.sweeplog\""));
    free(py);

    /* A chain with a segment missing: exit 2 naming the one not found. */
    char part[256], cmd[16384];
    snprintf(part, sizeof part, "/tmp/sweep-log-py-part-XXXXXX");
    assert_non_null(mkdtemp(part));
    const char *base = strrchr(log, '/') + 1;
    char stem[4096];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(base) - 14), base);
    snprintf(cmd, sizeof cmd, "cp '%s/%s-0000.sweeplog' '%s/%s-0001.sweeplog' '%s/'", dir, stem, dir, stem, part);
    assert_int_equal(fx_run(cmd, NULL), 0);
    char first[4608], missing[4608];
    snprintf(first, sizeof first, "%s/%s-0000.sweeplog", part, stem);
    snprintf(missing, sizeof missing, "%s/%s-0002.sweeplog", part, stem);
    assert_int_equal(pylog(&out, "'%s'", first), 2);
    assert_non_null(strstr(out, missing));
    free(out);
    remove_dir(part);
    remove_dir(dir);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_matches_replay),
        cmocka_unit_test(rotated_log_is_followed),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
