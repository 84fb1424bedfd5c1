/*
 * fuzz_map.c - libFuzzer harness over the SQLite map loader
 * (maps/loader.c): a sample map changed by a script of SQL edits, as a
 * map file a designer's tool (or someone else) could hand sweepd, then
 * loaded, built into a world and walked.
 *
 * Raw file bytes would stop at SQLite's own checks of its pages, which
 * SQLite's authors fuzz; what is sweep's is the rows. So the input is a
 * script read field by field: byte 0 picks the base map (the sample arena
 * with its movers, the pads, the pool), the rest are edits applied with
 * SQL to a writable copy in memory, CHECK constraints ignored: a cell set
 * to a value (NULL, integers and reals from a table of hard cases or from
 * the input's bytes, the cell's own value nudged, text, a blob), a whole
 * column so set, a row deleted, copied (up to 256 times, with one cell
 * changed), the header's user_version or application_id, a table dropped,
 * a column dropped or renamed, a table stripped of its constraints so
 * that NULLs go in. Tables and columns are found by number in the base
 * map's own schema, so the harness follows the schema as it changes. The
 * copy is written to a file and loaded as sweepd loads a map.
 *
 * Beyond "no crash, no sanitizer report, no leak" it checks:
 * - a refusal is SWEEP_E_GEOMETRY, SWEEP_E_CONFIG or SWEEP_E_NOMEM with a
 *   message and the loader's reason, leaves an empty level, and a message
 *   about a row names its table;
 * - a level loaded is one the map format and the core take
 *   (tests/fuzz/level_invariants.h);
 * - its level image (maps/level_image.h) reads back to a level of the same
 *   content hash, as the image promises;
 * - its world and movers are built, or refused with a message, and
 *   players walk it as a game's would (tests/fuzz/level_walk.h).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-map FUZZ_SECONDS=N`, and a bounded smoke run in `make test`. The
 * base maps are the build's sample maps (BUILD/maps beside the harness, or
 * FUZZ_MAP_DIR); the seeds are in tests/fuzz/corpus/map/. FUZZ_MAP_TRACE=1
 * prints what the loader said of each input.
 */
#include <float.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps/content_hash.h"
#include "maps/level.h"
#include "maps/level_image.h"
#include "maps/loader.h"
#include "tests/fuzz/level_invariants.h"
#include "tests/fuzz/level_walk.h"

enum { BASES = 3, MAX_EDITS = 24, MAX_COPIES = 256, NAME_MAX_LEN = 64 };

static const char *const base_names[BASES] = {"arena.db", "pads.db", "pool.db"};

typedef struct base_map {
    unsigned char *bytes;
    size_t len;
} base_map;

static base_map bases[BASES];
/* FUZZ_MAP_TRACE=1: what the loader said of each input, on stderr. */
static int trace;
static char map_path[4096];

/* The input, read a field at a time; past its end every field is 0. */
typedef struct script {
    const uint8_t *p;
    size_t left;
} script;

static uint8_t u8(script *s)
{
    if (!s->left)
        return 0;
    s->left--;
    return *s->p++;
}

static uint64_t u64(script *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)u8(s) << (8 * i);
    return v;
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_map: %s: %s\n", what, detail);
    exit(1);
}

static void read_base(int i, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, base_names[i]);
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open a base map (set FUZZ_MAP_DIR)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n <= 0)
        die("an empty base map", path);
    bases[i].bytes = malloc((size_t)n);
    if (!bases[i].bytes || fread(bases[i].bytes, 1, (size_t)n, f) != (size_t)n)
        die("cannot read a base map", path);
    bases[i].len = (size_t)n;
    fclose(f);
}

static void remove_map(void)
{
    unlink(map_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    /* The sample maps of the build the harness is in: BUILD/maps beside
     * BUILD/tests/fuzz/fuzz_map, unless FUZZ_MAP_DIR says. */
    char dir[4096];
    const char *env = getenv("FUZZ_MAP_DIR");
    if (env)
        snprintf(dir, sizeof dir, "%s", env);
    else {
        snprintf(dir, sizeof dir, "%s", (*argv)[0]);
        char *slash = strrchr(dir, '/');
        if (slash)
            snprintf(slash, sizeof dir - (size_t)(slash - dir), "/../../maps");
        else
            snprintf(dir, sizeof dir, "../../maps");
    }
    for (int i = 0; i < BASES; i++)
        read_base(i, dir);
    const char *tmp = getenv("TMPDIR");
    snprintf(map_path, sizeof map_path, "%s/sweep-fuzz-map-%ld.db", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    atexit(remove_map);
    trace = getenv("FUZZ_MAP_TRACE") != NULL;
    return 0;
}

/* The n-th (modulo their count) of the names a query lists, in its
 * order, into out; 0 when it lists none. */
static int nth_name(sqlite3 *db, const char *sql, uint32_t n, char *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    int count = 0;
    char names[32][NAME_MAX_LEN];
    while (count < 32 && sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(names[count++], NAME_MAX_LEN, "%s", t ? (const char *)t : "");
    }
    sqlite3_finalize(st);
    if (!count)
        return 0;
    snprintf(out, NAME_MAX_LEN, "%s", names[n % (uint32_t)count]);
    return 1;
}

/* The n-th table of the map's schema (by name, so in a fixed order). */
static int table_name(sqlite3 *db, uint32_t n, char *out)
{
    return nth_name(db,
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
                    n, out);
}

/* The n-th column of table t. */
static int column_name(sqlite3 *db, const char *t, uint32_t n, char *out)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s') ORDER BY cid", t);
    return nth_name(db, sql, n, out);
}

static const double hard_reals[] = {
    0.0,  -0.0,     0.5,      1.0,     -1.0,    2.0,        16.0,      -16.0,   0.001,    1e-9,   4.9e-324,
    -2.2250738585072014e-308, 1e7,     -1e7,    10000001.0, -10000001.0, 1e300, -1e300,  DBL_MAX, -DBL_MAX,
    INFINITY, -INFINITY, 90.0,  89.999,  180.0,  1e-300,    0.1,       60.0,    1000.0,   3e9,    0.25,
};

static const int64_t hard_ints[] = {
    0, 1, -1, 2, 3, 4, 7, 8, 16, 255, 256, 65535, 65536, INT32_MAX, (int64_t)INT32_MAX + 1, UINT32_MAX,
    (int64_t)UINT32_MAX + 1, INT64_MAX, INT64_MIN, INT32_MIN, 1000000, 100000000,
};

static const char *const hard_texts[] = {
    "", "1.5", "nan", "inf", "-inf", "1e400", " 3", "0x10", "arena", "lift", "water", "\xff\xfe", "a\nb",
};

/* Binds the value the script says at parameter k; the column's own value,
 * for a nudge, is the SQL expression the caller wrote around the parameter. */
static void bind_value(sqlite3_stmt *st, int k, script *s)
{
    uint8_t mode = u8(s);
    switch (mode % 9) {
    case 0: sqlite3_bind_null(st, k); break;
    case 1: sqlite3_bind_int64(st, k, hard_ints[u8(s) % (sizeof hard_ints / sizeof *hard_ints)]); break;
    case 2: sqlite3_bind_int64(st, k, (int64_t)u64(s)); break;
    case 3: sqlite3_bind_double(st, k, hard_reals[u8(s) % (sizeof hard_reals / sizeof *hard_reals)]); break;
    case 4: {
        uint64_t bits = u64(s);
        double d;
        memcpy(&d, &bits, sizeof d);
        sqlite3_bind_double(st, k, d); /* SQLite stores a NaN as NULL */
        break;
    }
    case 5: sqlite3_bind_int64(st, k, (int64_t)(int8_t)u8(s)); break;
    case 6: sqlite3_bind_double(st, k, (double)(int16_t)(u8(s) | u8(s) << 8) / 16.0); break;
    case 7: {
        const char *t = hard_texts[u8(s) % (sizeof hard_texts / sizeof *hard_texts)];
        sqlite3_bind_text(st, k, t, -1, SQLITE_TRANSIENT);
        break;
    }
    default: {
        uint8_t n = u8(s) % 24;
        unsigned char b[24];
        for (uint8_t i = 0; i < n; i++)
            b[i] = u8(s);
        if (mode & 0x80)
            sqlite3_bind_blob(st, k, b, n, SQLITE_TRANSIENT);
        else
            sqlite3_bind_text(st, k, (const char *)b, n, SQLITE_TRANSIENT);
        break;
    }
    }
}

/* Runs sql with one parameter, bound from the script; a statement SQLite
 * refuses (a constraint, a type) just does nothing, as a refused edit. */
static void run_bound(sqlite3 *db, const char *sql, script *s, int params)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    for (int k = 1; k <= params; k++)
        bind_value(st, k, s);
    while (sqlite3_step(st) == SQLITE_ROW)
        ;
    sqlite3_finalize(st);
}

/* The rowid of table t's n-th row, as an SQL expression. */
static void row_expr(char *out, size_t len, const char *t, uint32_t n)
{
    snprintf(out, len, "(SELECT rowid FROM \"%s\" ORDER BY rowid LIMIT 1 OFFSET %u)", t, n);
}

static void edit(sqlite3 *db, script *s)
{
    char t[NAME_MAX_LEN], c[NAME_MAX_LEN], row[200], sql[800];
    uint8_t op = u8(s);
    if (!table_name(db, u8(s), t))
        return;
    int has_col = column_name(db, t, u8(s), c);
    row_expr(row, sizeof row, t, u8(s) | (uint32_t)(u8(s) & 3) << 8);
    switch (op % 10) {
    case 0: /* one cell */
    case 1:
        if (has_col) {
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = ? WHERE rowid = %s", t, c, row);
            run_bound(db, sql, s, 1);
        }
        break;
    case 2: /* one cell nudged: added to, or multiplied by, its own value */
        if (has_col) {
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = \"%s\" %s ? WHERE rowid = %s", t, c, c,
                     op & 0x10 ? "*" : "+", row);
            run_bound(db, sql, s, 1);
        }
        break;
    case 3: /* a whole column */
        if (has_col) {
            snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = ?", t, c);
            run_bound(db, sql, s, 1);
        }
        break;
    case 4: /* a row gone */
        snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE rowid = %s", t, row);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        break;
    case 5: { /* a row copied, one cell of the copies changed (a key, or ids made to clash) */
        unsigned copies = 1 + u8(s) % MAX_COPIES;
        if (!has_col)
            break;
        snprintf(sql, sizeof sql, "CREATE TEMP TABLE fuzz_copy AS SELECT * FROM \"%s\" WHERE rowid = %s", t, row);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
            break;
        snprintf(sql, sizeof sql, "UPDATE fuzz_copy SET \"%s\" = ?", c);
        run_bound(db, sql, s, 1);
        for (unsigned i = 0; i < copies; i++) {
            snprintf(sql, sizeof sql, "INSERT INTO \"%s\" SELECT * FROM fuzz_copy", t);
            if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
                break;
            /* A key column copied goes up by one each time, so that the
             * copies of a row with a key are many rows, not one refused. */
            snprintf(sql, sizeof sql, "UPDATE fuzz_copy SET \"%s\" = \"%s\" + 1", c, c);
            sqlite3_exec(db, sql, NULL, NULL, NULL);
        }
        sqlite3_exec(db, "DROP TABLE fuzz_copy", NULL, NULL, NULL);
        break;
    }
    case 6: /* the header */
        snprintf(sql, sizeof sql, "PRAGMA %s = %lld", op & 0x20 ? "application_id" : "user_version",
                 (long long)(int32_t)(u8(s) | u8(s) << 8 | u8(s) << 16 | (uint32_t)u8(s) << 24));
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        break;
    case 7: /* the table stripped of its constraints and types, so NULLs and anything go in */
        snprintf(sql, sizeof sql,
                 "CREATE TABLE fuzz_bare AS SELECT * FROM \"%s\"; DROP TABLE \"%s\"; "
                 "ALTER TABLE fuzz_bare RENAME TO \"%s\"",
                 t, t, t);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        break;
    case 8: /* a column dropped or renamed, or one more */
        if (!has_col)
            break;
        if (op & 0x10)
            snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" DROP COLUMN \"%s\"", t, c);
        else if (op & 0x20)
            snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" RENAME COLUMN \"%s\" TO \"%s_x\"", t, c, c);
        else
            snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" ADD COLUMN fuzz_extra", t);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        break;
    default: /* a table gone */
        snprintf(sql, sizeof sql, "DROP TABLE \"%s\"", t);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        break;
    }
}

/* The edited map written where the loader reads it; 0 if SQLite could not
 * make it (then the input is passed over). */
static int write_map(sqlite3 *db)
{
    sqlite3_int64 n = 0;
    unsigned char *bytes = sqlite3_serialize(db, "main", &n, 0);
    if (!bytes)
        return 0;
    FILE *f = fopen(map_path, "wb");
    if (!f)
        die("cannot write the edited map", map_path);
    if (fwrite(bytes, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0)
        die("cannot write the edited map", map_path);
    sqlite3_free(bytes);
    return 1;
}

static void check_refusal(sweep_status s, const sweep_map_load_info *info, const char *err, const sweep_level *lv)
{
    if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_CONFIG && s != SWEEP_E_NOMEM) || err[0] == '\0' ||
        info->error == SWEEP_MAP_OK)
        fuzz_fail("a refusal without its status, message or reason", (uint32_t)s);
    fuzz_check_refused_empty(lv, s);
    if (info->row_id >= 0 && (info->table[0] == '\0' || !strstr(err, info->table)))
        fuzz_fail("a row refused without its table named", (uint32_t)info->error);
}

/* What the image promises: the same level, by its content hash. */
static void check_image(const sweep_level *lv, const sweep_map_load_info *info)
{
    unsigned char *img = NULL;
    size_t len = 0;
    if (sweep_level_image_make(lv, info->walkable_slope_deg, &img, &len) != SWEEP_OK)
        fuzz_fail("no image of a level that loaded", 0);
    sweep_level back;
    char err[512] = "";
    sweep_status s = sweep_level_image_read(img, len, &back, err, sizeof err);
    free(img);
    if (s != SWEEP_OK) {
        fprintf(stderr, "fuzz_map: %s\n", err);
        fuzz_fail("the image of a level that loaded does not read back", (uint32_t)s);
    }
    sweep_content_hash a, b;
    if (sweep_level_content_hash(lv, &a) != SWEEP_OK || sweep_level_content_hash(&back, &b) != SWEEP_OK)
        fuzz_fail("no content hash", 0);
    if (memcmp(a.bytes, b.bytes, sizeof a.bytes) != 0)
        fuzz_fail("the image reads back to another level", 0);
    sweep_level_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    script s = {data, size};
    const base_map *base = &bases[u8(&s) % BASES];
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die("sqlite3_open", ":memory:");
    unsigned char *copy = sqlite3_malloc64(base->len);
    if (!copy)
        die("sqlite3_malloc64", "out of memory");
    memcpy(copy, base->bytes, base->len);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)base->len, (sqlite3_int64)base->len,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
        die("sqlite3_deserialize", sqlite3_errmsg(db));
    sqlite3_exec(db, "PRAGMA ignore_check_constraints = ON", NULL, NULL, NULL);
    for (int i = 0; i < MAX_EDITS && s.left; i++)
        edit(db, &s);
    int written = write_map(db);
    sqlite3_close(db);
    if (!written)
        return 0;

    sweep_level lv;
    sweep_map_load_info info;
    char err[1024] = "";
    sweep_status st = sweep_map_load(map_path, &lv, &info, err, sizeof err);
    char name[SWEEP_LEVEL_NAME_MAX + 1];
    (void)sweep_map_read_name(map_path, name, sizeof name);
    if (trace)
        fprintf(stderr, "map: %s\n", st == SWEEP_OK ? "loaded" : err);
    if (st != SWEEP_OK) {
        check_refusal(st, &info, err, &lv);
        sweep_level_free(&lv);
        return 0;
    }
    fuzz_check_level(&lv);
    check_image(&lv, &info);
    fuzz_build_and_walk(&lv);
    sweep_level_free(&lv);
    return 0;
}
