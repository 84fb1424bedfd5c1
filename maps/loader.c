/*
 * loader.c - reading and validating a sweep map (see loader.h and
 * schema.sql for the rules).
 *
 * The load runs in one read transaction, so the row counts taken first (to
 * size the arrays once) and the rows read afterwards are one snapshot. Each
 * table is read with one prepared statement in id order, through typed
 * column reads; every value is checked as it arrives, and the first bad
 * one stops the load with a message naming its table and row id.
 *
 * Before SQLite sees the file, its 100-byte header is checked by hand:
 * SQLite treats an empty file as an empty database and may read a
 * truncated one without complaint until it reaches a missing page, and a
 * user deserves "truncated" rather than "disk image is malformed".
 *
 * The mover tables (schema version 2) are keyed by (mover, id) and read
 * the same way, each in (mover, id) order beside the movers, which are
 * read first in id order: one pass walks both, so a row naming no mover
 * or leaving a gap in its mover's ids is found where it stands. Each row
 * is checked for what only the row can tell (types, ranges, indices,
 * materials); the rules about a whole mover (path order, unit rotations,
 * closed loops, waits, trigger box) are the core's own,
 * sweep_mover_desc_check, run on each mover once it is complete, so the
 * loader can never accept a mover that sweep_movers_create would refuse.
 *
 * Invariants on success: vertex_count >= 1, triangle_count >= 1, every
 * index < vertex_count, every triangle's material is in material_table,
 * every number finite, no triangle degenerate by sweep_triangle_is_degenerate (core/world.h);
 * movers in increasing id order with unique names, each passing
 * sweep_mover_desc_check with its triangles' materials in material_table,
 * and static plus mover triangles within SWEEP_WORLD_MAX_TRIANGLES.
 */
#include "maps/loader.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "core/move.h"
#include "core/world.h"

#define MAX_MATERIALS 65536u
#define MAX_SPAWNS 1000000u
#define MAX_MOVERS 65536u
/* The same bound on a mover's vertices as on the static ones per triangle. */
#define MAX_MOVER_VERTICES (3u * SWEEP_MOVER_MAX_TRIANGLES)

typedef struct load {
    const char *path;
    sqlite3 *db;
    sweep_level *lv;
    sweep_map_load_info *info;
    char *err;
    size_t errlen;
    sweep_map_error error;
    int64_t version;   /* PRAGMA user_version, once checked */
    int64_t row_mover; /* the mover of the row being read, for fail(); -1 outside mover rows */
} load;

static const char *const error_names[SWEEP_MAP_ERROR_COUNT] = {
    "OK",      "ARG",    "OPEN",     "EMPTY_FILE", "NOT_DATABASE", "TRUNCATED", "CORRUPT",
    "NOT_MAP", "VERSION", "SCHEMA",  "METADATA",   "VALUE",        "VERTEX_ID", "INDEX",
    "MATERIAL", "NO_TRIANGLES", "TOO_BIG", "NOMEM", "IO",      "MOVER",    "KEYFRAME",
    "VOLUME",
};

const char *sweep_map_error_name(sweep_map_error e)
{
    if ((unsigned)e >= SWEEP_MAP_ERROR_COUNT)
        return "UNKNOWN";
    return error_names[e];
}

/* Records the first failure: code, table, row, mover and a message of the
 * form "<table> row id=<n>: <what>" (or "<table>: <what>", or just
 * "<what>"). Rows of the mover_* tables are keyed by their mover too:
 * "<table> row mover=<m> id=<n>: <what>". */
static int vfail(load *L, sweep_map_error code, const char *table, int64_t mover, int64_t row, const char *fmt,
                 va_list ap)
{
    if (L->error != SWEEP_MAP_OK)
        return 0;
    L->error = code;
    if (L->info) {
        L->info->error = code;
        snprintf(L->info->table, sizeof L->info->table, "%s", table ? table : "");
        L->info->row_id = row;
        L->info->mover_id = mover;
    }
    if (L->err && L->errlen) {
        size_t n = 0;
        int keyed = table && mover >= 0 && strncmp(table, "mover_", 6) == 0;
        if (table && row >= 0 && keyed)
            n = (size_t)snprintf(L->err, L->errlen, "%s row mover=%lld id=%lld: ", table, (long long)mover,
                                 (long long)row);
        else if (table && row >= 0)
            n = (size_t)snprintf(L->err, L->errlen, "%s row id=%lld: ", table, (long long)row);
        else if (table)
            n = (size_t)snprintf(L->err, L->errlen, "%s: ", table);
        else
            L->err[0] = '\0';
        if (n < L->errlen)
            vsnprintf(L->err + n, L->errlen - n, fmt, ap);
    }
    return 0;
}

static int fail(load *L, sweep_map_error code, const char *table, int64_t row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(L, code, table, L->row_mover, row, fmt, ap);
    va_end(ap);
    return 0;
}

/* Rows keyed by id are read sorted by id, so an id met twice is met twice
 * in a row. The schema's PRIMARY KEY forbids it, but a table written
 * without it can hold it: a triangle's material, a command's mover or a
 * report's volume would then name two rows, and two triangles' or spawn
 * points' order would be the sort's. prev is the id of the row before, if any. */
static int unique_id(load *L, sweep_map_error code, const char *table, int64_t id, int has_prev, int64_t prev)
{
    if (has_prev && id == prev)
        return fail(L, code, table, id, "id %lld is also the id of another row: ids must be unique", (long long)id);
    return 1;
}

/* fail() about a row that belongs to mover `mover` (a movers row, or a row
 * of a mover_* table). */
static int fail_mover(load *L, sweep_map_error code, const char *table, int64_t mover, int64_t row,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(L, code, table, mover, row, fmt, ap);
    va_end(ap);
    return 0;
}

/* Turns an SQLite failure while reading `table` into the matching map error. */
static int fail_sqlite(load *L, int rc, const char *table, int64_t row)
{
    const char *msg = L->db ? sqlite3_errmsg(L->db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        return fail(L, SWEEP_MAP_E_NOT_DATABASE, NULL, -1, "not an SQLite database (%s)", msg);
    case SQLITE_CORRUPT:
        return fail(L, SWEEP_MAP_E_CORRUPT, table, row, "the file is damaged (%s)", msg);
    case SQLITE_NOMEM:
        return fail(L, SWEEP_MAP_E_NOMEM, table, row, "out of memory");
    default:
        return fail(L, SWEEP_MAP_E_IO, table, row, "SQLite error: %s", msg);
    }
}

static const char *type_name(int type)
{
    switch (type) {
    case SQLITE_INTEGER: return "integer";
    case SQLITE_FLOAT: return "real";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "blob";
    default: return "NULL";
    }
}

/* Reads column col of a number column; 0 (with the error recorded) unless
 * it is a finite number. */
static int get_number(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                      double *out)
{
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_FLOAT) {
        *out = sqlite3_column_double(st, col);
    } else if (type == SQLITE_INTEGER) {
        *out = (double)sqlite3_column_int64(st, col);
    } else if (type == SQLITE_TEXT) {
        const unsigned char *t = sqlite3_column_text(st, col);
        return fail(L, SWEEP_MAP_E_VALUE, table, row, "%s is not a finite number (text '%.20s')", name,
                    t ? (const char *)t : "");
    } else {
        return fail(L, SWEEP_MAP_E_VALUE, table, row, "%s is not a finite number (%s)", name, type_name(type));
    }
    if (!isfinite(*out))
        return fail(L, SWEEP_MAP_E_VALUE, table, row, "%s is not a finite number (%g)", name, *out);
    return 1;
}

/* Reads an integer column; SQLite's REAL affinity may hand back 2.0 for
 * an index written as 2.0, but a fraction or text is refused. */
static int get_integer(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                       sweep_map_error code, int64_t *out)
{
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_INTEGER) {
        *out = sqlite3_column_int64(st, col);
        return 1;
    }
    if (type == SQLITE_FLOAT) {
        double d = sqlite3_column_double(st, col);
        if (d >= -9.2e18 && d <= 9.2e18 && d == (double)(int64_t)d) {
            *out = (int64_t)d;
            return 1;
        }
        return fail(L, code, table, row, "%s is not a whole number (%g)", name, d);
    }
    return fail(L, code, table, row, "%s is not a whole number (%s)", name, type_name(type));
}

/* Reads a text column of 1..max-1 bytes into out. */
static int get_text(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                    sweep_map_error code, char *out, size_t max)
{
    if (sqlite3_column_type(st, col) != SQLITE_TEXT)
        return fail(L, code, table, row, "%s is not text (%s)", name, type_name(sqlite3_column_type(st, col)));
    const unsigned char *t = sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);
    if (!t)
        return fail(L, SWEEP_MAP_E_NOMEM, table, row, "out of memory");
    if (n < 1 || (size_t)n >= max || memchr(t, '\0', (size_t)n))
        return fail(L, code, table, row, "%s must be 1 to %zu bytes of text, got %d bytes", name, max - 1, n);
    memcpy(out, t, (size_t)n);
    out[n] = '\0';
    return 1;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Checks the file itself before SQLite opens it: a regular, non-empty file
 * starting with the SQLite header and at least as long as that header
 * says the database is. */
static int check_file(load *L)
{
    struct stat sb;
    if (stat(L->path, &sb) != 0)
        return fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "cannot open: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "not a regular file");
    if (sb.st_size == 0)
        return fail(L, SWEEP_MAP_E_EMPTY_FILE, NULL, -1, "the file is empty (0 bytes), not a map");
    FILE *f = fopen(L->path, "rb");
    if (!f)
        return fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "cannot open: %s", strerror(errno));
    unsigned char h[100];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return fail(L, SWEEP_MAP_E_NOT_DATABASE, NULL, -1,
                    "not an SQLite database (%lld bytes without the 'SQLite format 3' header)",
                    (long long)sb.st_size);
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (page < 512 || (page & (page - 1)))
        return fail(L, SWEEP_MAP_E_CORRUPT, NULL, -1, "the file is damaged (header page size %u)", page);
    /* The page count at offset 28 is only meaningful when the change
     * counter (24) equals the version-valid-for number (92); SQLite older
     * than 3.7.0 did not keep it up to date. */
    uint32_t pages = be32(h + 28);
    if (pages && be32(h + 24) == be32(h + 92)) {
        long long want = (long long)pages * page;
        if ((long long)sb.st_size < want)
            return fail(L, SWEEP_MAP_E_TRUNCATED, NULL, -1,
                        "the file is truncated: its header says %u pages of %u bytes (%lld bytes), "
                        "the file has %lld bytes",
                        pages, page, want, (long long)sb.st_size);
    }
    return 1;
}

/* Runs a one-value query (a PRAGMA) and returns its integer. */
static int query_int(load *L, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(L->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return fail_sqlite(L, rc, NULL, -1);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        *out = 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail_sqlite(L, rc, NULL, -1);
    return 1;
}

static int open_db(load *L)
{
    /* This SQLite may be built to treat names starting with "file:" as
     * URIs; a map path is always a plain file name, so such a relative
     * name is made explicit with "./". */
    char *name = NULL;
    const char *use = L->path;
    if (strncmp(L->path, "file:", 5) == 0) {
        name = malloc(strlen(L->path) + 3);
        if (!name)
            return fail(L, SWEEP_MAP_E_NOMEM, NULL, -1, "out of memory");
        strcpy(name, "./");
        strcat(name, L->path);
        use = name;
    }
    /* Read-only and without immutable=1: a map written by a crashed tool
     * may have a hot journal that SQLite must see, and another process
     * may hold a write lock; both are handled only with normal locking. */
    /* NOMUTEX: the connection never leaves this call, and SQLite's
     * per-call connection mutex otherwise costs a quarter of a big load. */
    int rc = sqlite3_open_v2(use, &L->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    free(name);
    if (rc != SQLITE_OK) {
        fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "cannot open: %s", L->db ? sqlite3_errmsg(L->db) : sqlite3_errstr(rc));
        return 0;
    }
    sqlite3_extended_result_codes(L->db, 1);
    /* No PRAGMA mmap_size: it would save a few percent of a big load, but
     * a map file truncated in place while mapped (cp over it) would kill
     * the process with SIGBUS instead of giving an error. */
    return 1;
}

static int check_header(load *L)
{
    int64_t app, version;
    if (!query_int(L, "PRAGMA application_id", &app) || !query_int(L, "PRAGMA user_version", &version))
        return 0;
    if (L->info)
        L->info->schema_version = (uint32_t)version;
    if (app != SWEEP_MAP_APPLICATION_ID) {
        int64_t tables = 0;
        if (!query_int(L, "SELECT count(*) FROM sqlite_master", &tables))
            return 0;
        if (tables == 0)
            return fail(L, SWEEP_MAP_E_NOT_MAP, NULL, -1, "an empty SQLite database, not a sweep map");
        return fail(L, SWEEP_MAP_E_NOT_MAP, NULL, -1,
                    "an SQLite database but not a sweep map (application_id is 0x%08llx, expected 0x%08x)",
                    (unsigned long long)(uint32_t)app, SWEEP_MAP_APPLICATION_ID);
    }
    if (version < SWEEP_MAP_SCHEMA_VERSION_MIN || version > SWEEP_MAP_SCHEMA_VERSION)
        return fail(L, SWEEP_MAP_E_VERSION, NULL, -1,
                    "schema version %lld is not supported (this build reads versions %d to %d)%s",
                    (long long)version, SWEEP_MAP_SCHEMA_VERSION_MIN, SWEEP_MAP_SCHEMA_VERSION,
                    version > SWEEP_MAP_SCHEMA_VERSION ? ": the map is newer than this program" : "");
    L->version = version;
    /* Version 1 has no mover tables, version 2 no volume tables; a map
     * must have all of its own version's. */
    static const char *const tables[] = {"map",    "materials",      "vertices",        "triangles",
                                         "spawns", "movers",         "mover_vertices",  "mover_triangles",
                                         "mover_keyframes", "volumes", "volume_planes"};
    size_t table_count = version >= 3 ? 11 : version >= 2 ? 9 : 5;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(L->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return fail_sqlite(L, rc, NULL, -1);
    for (size_t i = 0; i < table_count; i++) {
        sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc == SQLITE_DONE) {
            sqlite3_finalize(st);
            return fail(L, SWEEP_MAP_E_SCHEMA, tables[i], -1, "the table is missing (the map is incomplete)");
        }
        if (rc != SQLITE_ROW) {
            sqlite3_finalize(st);
            return fail_sqlite(L, rc, NULL, -1);
        }
    }
    sqlite3_finalize(st);
    return 1;
}

/* Prepares a SELECT over `table`; a missing column becomes a schema error. */
static sqlite3_stmt *prepare(load *L, const char *table, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(L->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_ERROR)
            fail(L, SWEEP_MAP_E_SCHEMA, table, -1, "%s", sqlite3_errmsg(L->db));
        else
            fail_sqlite(L, rc, table, -1);
        return NULL;
    }
    return st;
}

/* 1 if `table` has the column, 0 if not, -1 after a failure (reported). */
static int has_column(load *L, const char *table, const char *column)
{
    sqlite3_stmt *st = prepare(L, table, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail_sqlite(L, rc, table, -1) - 1;
    return rc == SQLITE_ROW;
}

static int count_rows(load *L, const char *table, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = prepare(L, table, sql);
    if (!st)
        return 0;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return fail_sqlite(L, rc, table, -1);
    return 1;
}

/* The map row's number columns in the order of sweep_map_values; a
 * version 1 map has the first nine only, a version 2 map the first
 * sixteen, a version 3 map all but the four crouch columns. */
static const char *const map_columns[] = {
    "gravity_x",  "gravity_y",    "gravity_z", "tick_rate",  "radius_x", "radius_y",   "radius_z",
    "walkable_slope_deg", "step_height", "walk_speed", "ground_accel", "air_accel", "jump_speed", "max_step",
    "speed_limit", "correction_threshold", "history_ms", "rewind_cap_ms", "crouch_radius_x", "crouch_radius_y",
    "crouch_radius_z", "crouch_speed"};
#define MAP_COLUMNS_V1 9u
#define MAP_COLUMNS_V2 16u
#define MAP_COLUMNS_V3 18u
#define MAP_COLUMNS (sizeof map_columns / sizeof map_columns[0])

/* The swimming and climbing rules (version 4), each optional: a map
 * without the column keeps the default sweep_level_init gave. */
#define MODE_RULE(field) {#field, offsetof(sweep_rules, field)}
static const struct mode_rule {
    const char *column;
    size_t offset;
} mode_rules[] = {MODE_RULE(swim_speed), MODE_RULE(swim_accel),  MODE_RULE(swim_drag),  MODE_RULE(swim_sink),
                  MODE_RULE(swim_jump),  MODE_RULE(climb_speed), MODE_RULE(climb_accel)};
#undef MODE_RULE
#define MODE_RULES (sizeof mode_rules / sizeof mode_rules[0])

/* The crouch columns are optional in a version 4 map (schema.sql): all
 * four or none. The number of map columns to read, or 0 (L failed). */
static size_t map_column_count(load *L)
{
    if (L->version < 4)
        return L->version == 3 ? MAP_COLUMNS_V3 : L->version == 2 ? MAP_COLUMNS_V2 : MAP_COLUMNS_V1;
    int64_t n = 0;
    if (!query_int(L,
                   "SELECT count(*) FROM pragma_table_info('map') WHERE name IN ('crouch_radius_x', "
                   "'crouch_radius_y', 'crouch_radius_z', 'crouch_speed')",
                   &n))
        return 0;
    if (n != 0 && n != 4) {
        fail(L, SWEEP_MAP_E_METADATA, "map", -1,
             "%lld of the four crouch columns (crouch_radius_x, _y, _z, crouch_speed): a map has all or none",
             (long long)n);
        return 0;
    }
    return n ? MAP_COLUMNS : MAP_COLUMNS_V3;
}

static int read_map_row(load *L)
{
    static const char *const T = "map";
    /* Version 1 maps have no rule columns: they keep the defaults that
     * sweep_level_init gave the level. */
    const size_t ncol = map_column_count(L);
    if (!ncol)
        return 0;
    char sql[1024];
    size_t n = (size_t)snprintf(sql, sizeof sql, "SELECT id, name, units");
    for (size_t i = 0; i < ncol; i++)
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", map_columns[i]);
    int mode_has[MODE_RULES];
    for (size_t i = 0; i < MODE_RULES; i++) {
        if ((mode_has[i] = has_column(L, T, mode_rules[i].column)) < 0)
            return 0;
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", mode_has[i] ? mode_rules[i].column : "NULL");
    }
    snprintf(sql + n, sizeof sql - n, " FROM map");
    sqlite3_stmt *st = prepare(L, T, sql);
    if (!st)
        return 0;
    sweep_level *lv = L->lv;
    int rc = sqlite3_step(st), ok = 1;
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return fail(L, SWEEP_MAP_E_METADATA, T, -1, "no row: a map needs exactly one row of metadata");
    }
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return fail_sqlite(L, rc, T, -1);
    }
    int64_t id = sqlite3_column_int64(st, 0);
    char units[16];
    double x[MAP_COLUMNS], modes[MODE_RULES];
    ok = get_text(L, st, 1, T, id, "name", SWEEP_MAP_E_METADATA, lv->name, sizeof lv->name) &&
         get_text(L, st, 2, T, id, "units", SWEEP_MAP_E_METADATA, units, sizeof units);
    for (size_t i = 0; ok && i < ncol; i++)
        ok = get_number(L, st, 3 + (int)i, T, id, map_columns[i], &x[i]);
    for (size_t i = 0; ok && i < MODE_RULES; i++)
        if (mode_has[i])
            ok = get_number(L, st, 3 + (int)(ncol + i), T, id, mode_rules[i].column, &modes[i]);
    if (ok) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            ok = fail(L, SWEEP_MAP_E_METADATA, T, sqlite3_column_int64(st, 0),
                      "a second row: a map has exactly one row of metadata");
        else if (rc != SQLITE_DONE)
            ok = fail_sqlite(L, rc, T, id);
    }
    sqlite3_finalize(st);
    if (!ok)
        return 0;

    sweep_map_values v;
    sweep_map_values_of(lv, 0.0, &v);
    v.gravity = sweep_v3(x[0], x[1], x[2]);
    v.tick_rate = x[3];
    v.radii = sweep_v3(x[4], x[5], x[6]);
    v.walkable_slope_deg = x[7];
    v.step_height = x[8];
    if (ncol >= MAP_COLUMNS_V2) {
        v.rules.walk_speed = x[9];
        v.rules.ground_accel = x[10];
        v.rules.air_accel = x[11];
        v.rules.jump_speed = x[12];
        v.rules.max_step = x[13];
        v.rules.speed_limit = x[14];
        v.correction_threshold = x[15];
    }
    if (ncol >= MAP_COLUMNS_V3) {
        v.history_ms = x[16];
        v.rewind_cap_ms = x[17];
    }
    if (ncol == MAP_COLUMNS) {
        v.rules.crouch_radii = sweep_v3(x[18], x[19], x[20]);
        v.rules.crouch_speed = x[21];
    }
    for (size_t i = 0; i < MODE_RULES; i++)
        if (mode_has[i])
            memcpy((char *)&v.rules + mode_rules[i].offset, &modes[i], sizeof modes[i]);
    /* Metadata errors are reported with the status SWEEP_E_CONFIG. */
    char why[256];
    if (sweep_map_check_values(&v, NULL, why, sizeof why) != SWEEP_OK)
        return fail(L, SWEEP_MAP_E_METADATA, T, id, "%s", why);
    sweep_map_apply_values(&v, lv);
    if (L->info) {
        memcpy(L->info->units, units, sizeof units);
        L->info->walkable_slope_deg = v.walkable_slope_deg;
    }
    return 1;
}

static int read_materials(load *L)
{
    static const char *const T = "materials";
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM materials", &n))
        return 0;
    if (n > MAX_MATERIALS)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n,
                    MAX_MATERIALS);
    if (n == 0)
        return fail(L, SWEEP_MAP_E_MATERIAL, T, -1, "no rows: every triangle needs a material");
    lv->material_table = calloc((size_t)n, sizeof *lv->material_table);
    if (!lv->material_table)
        return fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory");
    lv->material_cap = (uint32_t)n;
    sqlite3_stmt *st = prepare(L, T, "SELECT id, name, friction, flags FROM materials ORDER BY id");
    if (!st)
        return 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0), flags;
        if (lv->material_count >= lv->material_cap) {
            ok = fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        sweep_material *m = &lv->material_table[lv->material_count];
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id < 1 || id > UINT32_MAX) {
            ok = fail(L, SWEEP_MAP_E_MATERIAL, T, id, "id must be a whole number from 1 to %u", UINT32_MAX);
            break;
        }
        if (!(ok = unique_id(L, SWEEP_MAP_E_MATERIAL, T, id, lv->material_count > 0,
                             lv->material_count ? lv->material_table[lv->material_count - 1].id : 0)))
            break;
        m->id = (uint32_t)id;
        ok = get_text(L, st, 1, T, id, "name", SWEEP_MAP_E_MATERIAL, m->name, sizeof m->name) &&
             get_number(L, st, 2, T, id, "friction", &m->friction) &&
             get_integer(L, st, 3, T, id, "flags", SWEEP_MAP_E_MATERIAL, &flags);
        if (!ok)
            break;
        if (m->friction < 0.0)
            ok = fail(L, SWEEP_MAP_E_MATERIAL, T, id, "friction=%g must not be negative", m->friction);
        else if (flags < 0 || flags > UINT32_MAX)
            ok = fail(L, SWEEP_MAP_E_MATERIAL, T, id, "flags=%lld must fit in 32 bits", (long long)flags);
        m->flags = (uint32_t)flags;
        for (uint32_t k = 0; ok && k < lv->material_count; k++)
            if (strcmp(lv->material_table[k].name, m->name) == 0)
                ok = fail(L, SWEEP_MAP_E_MATERIAL, T, id, "name '%s' is also the name of material %u", m->name,
                          lv->material_table[k].id);
        if (ok)
            lv->material_count++;
    }
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_vertices(load *L)
{
    static const char *const T = "vertices";
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM vertices", &n))
        return 0;
    if (n == 0)
        return fail(L, SWEEP_MAP_E_NO_TRIANGLES, T, -1, "no rows: the map has no geometry");
    if (n > (int64_t)3 * SWEEP_WORLD_MAX_TRIANGLES || n >= UINT32_MAX)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows is more than the core accepts", (long long)n);
    lv->vertices = malloc((size_t)n * sizeof *lv->vertices);
    if (!lv->vertices)
        return fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory for %lld vertices", (long long)n);
    lv->vertex_cap = (uint32_t)n;
    sqlite3_stmt *st = prepare(L, T, "SELECT id, x, y, z FROM vertices ORDER BY id");
    if (!st)
        return 0;
    const double limit = lv->config.max_coordinate;
    int rc, ok = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        uint32_t i = lv->vertex_count;
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id != (int64_t)i) {
            ok = fail(L, SWEEP_MAP_E_VERTEX_ID, T, id,
                      "vertex ids must run 0, 1, 2, ... without gaps; expected id %u here", i);
            break;
        }
        if (i >= lv->vertex_cap) {
            ok = fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        double v[3];
        /* The common case, three floats, skips the general reader. */
        for (int k = 0; k < 3; k++) {
            sqlite3_value *val = sqlite3_column_value(st, 1 + k);
            if (sqlite3_value_type(val) == SQLITE_FLOAT) {
                v[k] = sqlite3_value_double(val);
                if (!isfinite(v[k]))
                    ok = get_number(L, st, 1 + k, T, id, k == 0 ? "x" : k == 1 ? "y" : "z", &v[k]);
            } else {
                ok = get_number(L, st, 1 + k, T, id, k == 0 ? "x" : k == 1 ? "y" : "z", &v[k]);
            }
            if (!ok)
                break;
            if (!(fabs(v[k]) <= limit)) {
                ok = fail(L, SWEEP_MAP_E_VALUE, T, id, "%c=%g is beyond the coordinate limit %g", "xyz"[k], v[k],
                          limit);
                break;
            }
        }
        if (!ok)
            break;
        lv->vertices[i] = sweep_v3(v[0], v[1], v[2]);
        lv->vertex_count++;
    }
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, (int64_t)lv->vertex_count);
    sqlite3_finalize(st);
    return ok;
}

/* Index of material id in the (id-sorted) table, or -1. */
static int64_t find_material(const sweep_level *lv, int64_t id)
{
    uint32_t lo = 0, hi = lv->material_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lv->material_table[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < lv->material_count && lv->material_table[lo].id == id ? (int64_t)lo : -1;
}

static int read_triangles(load *L)
{
    static const char *const T = "triangles";
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM triangles", &n))
        return 0;
    if (n == 0)
        return fail(L, SWEEP_MAP_E_NO_TRIANGLES, T, -1, "no rows: a map needs at least one triangle");
    if (n > SWEEP_WORLD_MAX_TRIANGLES)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, the core accepts at most %u", (long long)n,
                    SWEEP_WORLD_MAX_TRIANGLES);
    lv->indices = malloc((size_t)n * 3 * sizeof *lv->indices);
    lv->materials = malloc((size_t)n * sizeof *lv->materials);
    if (!lv->indices || !lv->materials)
        return fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory for %lld triangles", (long long)n);
    lv->triangle_cap = (uint32_t)n;
    sqlite3_stmt *st = prepare(L, T, "SELECT id, a, b, c, material FROM triangles ORDER BY id");
    if (!st)
        return 0;
    static const char *const names[3] = {"a", "b", "c"};
    uint32_t rows = 0, dropped = 0;
    int64_t first_dropped = -1, last_mat = -1, last_mat_at = -1, prev_id = 0;
    int rc, ok = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (rows >= lv->triangle_cap) {
            ok = fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        /* A triangle's number is its place in id order (what a contact
         * reports, and what breaks ties between contacts). */
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
            ok = fail(L, SWEEP_MAP_E_VALUE, T, id, "id must be a whole number, got %s",
                      type_name(sqlite3_column_type(st, 0)));
            break;
        }
        if (!(ok = unique_id(L, SWEEP_MAP_E_VALUE, T, id, rows > 0, prev_id)))
            break;
        prev_id = id;
        rows++;
        uint32_t ix[3];
        for (int k = 0; k < 3; k++) {
            int64_t v;
            sqlite3_value *val = sqlite3_column_value(st, 1 + k);
            if (sqlite3_value_type(val) == SQLITE_INTEGER)
                v = sqlite3_value_int64(val);
            else if (!(ok = get_integer(L, st, 1 + k, T, id, names[k], SWEEP_MAP_E_INDEX, &v)))
                break;
            if (v < 0 || v >= lv->vertex_count) {
                ok = fail(L, SWEEP_MAP_E_INDEX, T, id,
                          "vertex %s=%lld is out of range (table vertices has %u rows, ids 0 to %u)", names[k],
                          (long long)v, lv->vertex_count, lv->vertex_count - 1);
                break;
            }
            ix[k] = (uint32_t)v;
        }
        if (!ok)
            break;
        int64_t mat;
        sqlite3_value *mval = sqlite3_column_value(st, 4);
        if (sqlite3_value_type(mval) == SQLITE_INTEGER)
            mat = sqlite3_value_int64(mval);
        else if (!(ok = get_integer(L, st, 4, T, id, "material", SWEEP_MAP_E_MATERIAL, &mat)))
            break;
        /* Neighbouring triangles usually share a material. */
        if (mat != last_mat) {
            last_mat_at = find_material(lv, mat);
            last_mat = mat;
        }
        if (last_mat_at < 0) {
            ok = fail(L, SWEEP_MAP_E_MATERIAL, T, id, "material %lld is not in table materials", (long long)mat);
            break;
        }
        if (sweep_triangle_is_degenerate(lv->vertices[ix[0]], lv->vertices[ix[1]], lv->vertices[ix[2]])) {
            if (dropped++ == 0)
                first_dropped = id;
            continue;
        }
        uint32_t t = lv->triangle_count++;
        lv->indices[3 * (size_t)t] = ix[0];
        lv->indices[3 * (size_t)t + 1] = ix[1];
        lv->indices[3 * (size_t)t + 2] = ix[2];
        lv->materials[t] = (uint32_t)mat;
    }
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    if (L->info) {
        L->info->triangle_rows = rows;
        L->info->degenerate_dropped = dropped;
        L->info->first_degenerate_id = first_dropped;
    }
    if (ok && lv->triangle_count == 0)
        return fail(L, SWEEP_MAP_E_NO_TRIANGLES, T, -1, "all %u triangles are degenerate (zero area)", rows);
    return ok;
}

static int read_spawns(load *L)
{
    static const char *const T = "spawns";
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM spawns", &n))
        return 0;
    if (n > MAX_SPAWNS)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n, MAX_SPAWNS);
    if (n == 0)
        return 1;
    lv->spawns = malloc((size_t)n * sizeof *lv->spawns);
    if (!lv->spawns)
        return fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory");
    lv->spawn_cap = (uint32_t)n;
    sqlite3_stmt *st = prepare(L, T, "SELECT id, x, y, z FROM spawns ORDER BY id");
    if (!st)
        return 0;
    int rc, ok = 1;
    int64_t prev = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (lv->spawn_count >= lv->spawn_cap) {
            ok = fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        /* Spawn points are numbered in id order (as triangles are). */
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
            ok = fail(L, SWEEP_MAP_E_VALUE, T, id, "id must be a whole number, got %s",
                      type_name(sqlite3_column_type(st, 0)));
            break;
        }
        if (!(ok = unique_id(L, SWEEP_MAP_E_VALUE, T, id, lv->spawn_count > 0, prev)))
            break;
        prev = id;
        double v[3];
        ok = get_number(L, st, 1, T, id, "x", &v[0]) && get_number(L, st, 2, T, id, "y", &v[1]) &&
             get_number(L, st, 3, T, id, "z", &v[2]);
        for (int k = 0; ok && k < 3; k++)
            if (!(fabs(v[k]) <= lv->config.max_coordinate))
                ok = fail(L, SWEEP_MAP_E_VALUE, T, id, "%c=%g is beyond the coordinate limit %g", "xyz"[k], v[k],
                          lv->config.max_coordinate);
        if (!ok)
            break;
        lv->spawns[lv->spawn_count++] = sweep_v3(v[0], v[1], v[2]);
    }
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

/* --- movers (schema version 2) ------------------------------------------ */

/* Reads a text column that must be one of `names` (the core's stable
 * spelling); *out is its index. */
static int get_choice(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                      const char *(*name_of)(int), int count, int *out)
{
    int type = sqlite3_column_type(st, col);
    if (type != SQLITE_TEXT)
        return fail(L, SWEEP_MAP_E_MOVER, table, row, "%s is not text (%s)", name, type_name(type));
    const char *t = (const char *)sqlite3_column_text(st, col);
    if (!t)
        return fail(L, SWEEP_MAP_E_NOMEM, table, row, "out of memory");
    int n = sqlite3_column_bytes(st, col);
    char list[64];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < count; i++) {
        const char *c = name_of(i);
        if ((size_t)n == strlen(c) && memcmp(t, c, (size_t)n) == 0) {
            *out = i;
            return 1;
        }
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", c);
    }
    return fail(L, SWEEP_MAP_E_MOVER, table, row, "%s '%.32s' is not one of %s", name, t, list);
}

static const char *mode_name(int i)
{
    return sweep_mover_mode_name((sweep_mover_mode)i);
}

static const char *trigger_name(int i)
{
    return sweep_mover_trigger_name((sweep_mover_trigger)i);
}

static const char *blocked_name(int i)
{
    return sweep_mover_blocked_name((sweep_mover_blocked)i);
}

/* A mover's name and id, sorted by name then id to find a repeated name. */
typedef struct named {
    const char *name;
    uint32_t id;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int unique_mover_names(load *L)
{
    sweep_level *lv = L->lv;
    if (lv->mover_count < 2)
        return 1;
    named *v = malloc(lv->mover_count * sizeof *v);
    if (!v)
        return fail(L, SWEEP_MAP_E_NOMEM, "movers", -1, "out of memory");
    for (uint32_t i = 0; i < lv->mover_count; i++)
        v[i].name = lv->movers[i].name, v[i].id = lv->movers[i].id;
    qsort(v, lv->mover_count, sizeof *v, by_name);
    int ok = 1;
    for (uint32_t i = 1; ok && i < lv->mover_count; i++)
        if (strcmp(v[i - 1].name, v[i].name) == 0)
            ok = fail_mover(L, SWEEP_MAP_E_MOVER, "movers", v[i].id, v[i].id,
                            "name '%s' is also the name of mover %u", v[i].name, v[i - 1].id);
    free(v);
    return ok;
}

static int read_movers(load *L)
{
    static const char *const T = "movers";
    static const char *const vn[6] = {"volume_min_x", "volume_min_y", "volume_min_z",
                                      "volume_max_x", "volume_max_y", "volume_max_z"};
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM movers", &n))
        return 0;
    if (n > MAX_MOVERS)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n, MAX_MOVERS);
    if (n == 0)
        return 1;
    lv->movers = calloc((size_t)n, sizeof *lv->movers);
    if (!lv->movers)
        return fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory");
    lv->mover_cap = (uint32_t)n;
    sqlite3_stmt *st = prepare(L, T,
                               "SELECT id, name, mode, trigger, blocked, wait_start, wait_end, volume_min_x, "
                               "volume_min_y, volume_min_z, volume_max_x, volume_max_y, volume_max_z "
                               "FROM movers ORDER BY id");
    if (!st)
        return 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        L->row_mover = id;
        if (lv->mover_count >= lv->mover_cap) {
            ok = fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id < 1 || id > UINT32_MAX) {
            ok = fail(L, SWEEP_MAP_E_MOVER, T, id, "id must be a whole number from 1 to %u", UINT32_MAX);
            break;
        }
        if (!(ok = unique_id(L, SWEEP_MAP_E_MOVER, T, id, lv->mover_count > 0,
                             lv->mover_count ? lv->movers[lv->mover_count - 1].id : 0)))
            break;
        char name[SWEEP_LEVEL_NAME_MAX];
        int mode = 0, trigger = 0, blocked = 0;
        double wait[2], vol[6] = {0, 0, 0, 0, 0, 0};
        ok = get_text(L, st, 1, T, id, "name", SWEEP_MAP_E_MOVER, name, sizeof name) &&
             get_choice(L, st, 2, T, id, "mode", mode_name, SWEEP_MOVER_MODE_COUNT, &mode) &&
             get_choice(L, st, 3, T, id, "trigger", trigger_name, SWEEP_TRIGGER_COUNT, &trigger) &&
             get_choice(L, st, 4, T, id, "blocked", blocked_name, SWEEP_BLOCKED_COUNT, &blocked) &&
             get_number(L, st, 5, T, id, "wait_start", &wait[0]) && get_number(L, st, 6, T, id, "wait_end", &wait[1]);
        /* Only a volume trigger has a box, and it has all of it: a box
         * left on another trigger is an author's mistake worth naming. */
        for (int k = 0; ok && k < 6; k++) {
            int null = sqlite3_column_type(st, 7 + k) == SQLITE_NULL;
            if (trigger == SWEEP_TRIGGER_VOLUME && null)
                ok = fail(L, SWEEP_MAP_E_MOVER, T, id, "trigger 'volume' needs its box, but %s is NULL", vn[k]);
            else if (trigger != SWEEP_TRIGGER_VOLUME && !null)
                ok = fail(L, SWEEP_MAP_E_MOVER, T, id,
                          "%s is set, but only a 'volume' trigger has a box (trigger is '%s'); leave it NULL",
                          vn[k], trigger_name(trigger));
            else if (!null)
                ok = get_number(L, st, 7 + k, T, id, vn[k], &vol[k]);
        }
        if (!ok)
            break;
        uint32_t at;
        sweep_status s = sweep_level_add_mover(lv, (uint32_t)id, name, &at);
        if (s != SWEEP_OK) {
            ok = fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
            break;
        }
        sweep_level_mover *m = &lv->movers[at];
        m->mode = (sweep_mover_mode)mode;
        m->trigger = (sweep_mover_trigger)trigger;
        m->blocked = (sweep_mover_blocked)blocked;
        m->wait_start = wait[0];
        m->wait_end = wait[1];
        m->volume_min = sweep_v3(vol[0], vol[1], vol[2]);
        m->volume_max = sweep_v3(vol[3], vol[4], vol[5]);
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok && unique_mover_names(L);
}

/* For one row of a mover_* table (columns 0 and 1 are mover and id, rows in
 * (mover, id) order): finds its mover, moving *cur forward through
 * lv->movers (in id order), and checks that the id is the next one of that
 * mover, `have` being how many rows the mover has so far. `id_error` is the
 * code for a gap. Sets L->row_mover so that the row's other errors name it. */
static sweep_level_mover *row_mover(load *L, sqlite3_stmt *st, const char *table, uint32_t *cur,
                                    uint32_t (*have)(const sweep_level_mover *), sweep_map_error id_error,
                                    int64_t *row)
{
    sweep_level *lv = L->lv;
    int64_t mover = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1);
    int id_ok = sqlite3_column_type(st, 1) == SQLITE_INTEGER;
    *row = id_ok ? id : -1;
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
        L->row_mover = -1;
        fail(L, SWEEP_MAP_E_MOVER, table, *row, "mover is not a whole number (%s)",
             type_name(sqlite3_column_type(st, 0)));
        return NULL;
    }
    L->row_mover = mover;
    if (!id_ok) {
        fail(L, id_error, table, -1, "a row of mover %lld has an id that is not a whole number (%s)",
             (long long)mover, type_name(sqlite3_column_type(st, 1)));
        return NULL;
    }
    while (*cur < lv->mover_count && lv->movers[*cur].id < mover)
        (*cur)++;
    if (*cur >= lv->mover_count || lv->movers[*cur].id != mover) {
        fail(L, SWEEP_MAP_E_MOVER, table, id, "mover %lld is not in table movers", (long long)mover);
        return NULL;
    }
    sweep_level_mover *m = &lv->movers[*cur];
    if (id != (int64_t)have(m)) {
        fail(L, id_error, table, id, "ids must run 0, 1, 2, ... per mover without gaps; expected id %u here",
             have(m));
        return NULL;
    }
    return m;
}

static uint32_t vertices_of(const sweep_level_mover *m)
{
    return m->vertex_count;
}

static uint32_t triangles_of(const sweep_level_mover *m)
{
    return m->triangle_count;
}

static uint32_t keys_of(const sweep_level_mover *m)
{
    return m->key_count;
}

/* Reads one finite number in [-limit, limit] (a coordinate). */
static int get_coordinate(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                          double limit, double *out)
{
    if (!get_number(L, st, col, table, row, name, out))
        return 0;
    if (!(fabs(*out) <= limit))
        return fail(L, SWEEP_MAP_E_VALUE, table, row, "%s=%g is beyond the coordinate limit %g", name, *out, limit);
    return 1;
}

static int read_mover_vertices(load *L)
{
    static const char *const T = "mover_vertices";
    sweep_level *lv = L->lv;
    sqlite3_stmt *st = prepare(L, T, "SELECT mover, id, x, y, z FROM mover_vertices ORDER BY mover, id");
    if (!st)
        return 0;
    const double limit = lv->config.max_coordinate;
    uint32_t cur = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        sweep_level_mover *m = row_mover(L, st, T, &cur, vertices_of, SWEEP_MAP_E_VERTEX_ID, &id);
        if (!m) {
            ok = 0;
            break;
        }
        if (m->vertex_count >= MAX_MOVER_VERTICES) {
            ok = fail(L, SWEEP_MAP_E_TOO_BIG, T, id, "a mover has at most %u vertices", MAX_MOVER_VERTICES);
            break;
        }
        double v[3];
        ok = get_coordinate(L, st, 2, T, id, "x", limit, &v[0]) && get_coordinate(L, st, 3, T, id, "y", limit, &v[1]) &&
             get_coordinate(L, st, 4, T, id, "z", limit, &v[2]);
        if (ok && sweep_level_mover_add_vertex(m, sweep_v3(v[0], v[1], v[2]), NULL) != SWEEP_OK)
            ok = fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_mover_triangles(load *L)
{
    static const char *const T = "mover_triangles";
    static const char *const names[3] = {"a", "b", "c"};
    sweep_level *lv = L->lv;
    /* Mover triangles are numbered after the static ones (mover.h): both
     * together must fit the core's numbering. */
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM mover_triangles", &n))
        return 0;
    if (n > (int64_t)SWEEP_WORLD_MAX_TRIANGLES - lv->triangle_count)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1,
                    "%lld rows and %u static triangles, the core accepts at most %u triangles in all", (long long)n,
                    lv->triangle_count, SWEEP_WORLD_MAX_TRIANGLES);
    sqlite3_stmt *st = prepare(L, T, "SELECT mover, id, a, b, c, material FROM mover_triangles ORDER BY mover, id");
    if (!st)
        return 0;
    uint32_t cur = 0, degenerate = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        sweep_level_mover *m = row_mover(L, st, T, &cur, triangles_of, SWEEP_MAP_E_MOVER, &id);
        if (!m) {
            ok = 0;
            break;
        }
        if (m->triangle_count >= SWEEP_MOVER_MAX_TRIANGLES) {
            ok = fail(L, SWEEP_MAP_E_TOO_BIG, T, id, "a mover has at most %u triangles", SWEEP_MOVER_MAX_TRIANGLES);
            break;
        }
        uint32_t ix[3];
        for (int k = 0; ok && k < 3; k++) {
            int64_t v;
            if (!(ok = get_integer(L, st, 2 + k, T, id, names[k], SWEEP_MAP_E_INDEX, &v)))
                break;
            if (v < 0 || v >= m->vertex_count) {
                if (m->vertex_count == 0)
                    ok = fail(L, SWEEP_MAP_E_INDEX, T, id,
                              "vertex %s=%lld is out of range (mover %u has no rows in mover_vertices)", names[k],
                              (long long)v, m->id);
                else
                    ok = fail(L, SWEEP_MAP_E_INDEX, T, id,
                              "vertex %s=%lld is out of range (mover %u has %u rows in mover_vertices, ids 0 to %u)",
                              names[k], (long long)v, m->id, m->vertex_count, m->vertex_count - 1);
                break;
            }
            ix[k] = (uint32_t)v;
        }
        int64_t mat;
        if (!ok || !(ok = get_integer(L, st, 5, T, id, "material", SWEEP_MAP_E_MATERIAL, &mat)))
            break;
        if (find_material(lv, mat) < 0) {
            ok = fail(L, SWEEP_MAP_E_MATERIAL, T, id, "material %lld is not in table materials", (long long)mat);
            break;
        }
        if (sweep_triangle_is_degenerate(m->vertices[ix[0]], m->vertices[ix[1]], m->vertices[ix[2]]))
            degenerate++;
        if (sweep_level_mover_add_triangle(m, ix[0], ix[1], ix[2], (uint32_t)mat) != SWEEP_OK)
            ok = fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    if (L->info)
        L->info->mover_degenerate = degenerate;
    return ok;
}

static int read_mover_keyframes(load *L)
{
    static const char *const T = "mover_keyframes";
    static const char *const qn[4] = {"qx", "qy", "qz", "qw"};
    sweep_level *lv = L->lv;
    sqlite3_stmt *st = prepare(L, T,
                               "SELECT mover, id, time, x, y, z, qx, qy, qz, qw FROM mover_keyframes "
                               "ORDER BY mover, id");
    if (!st)
        return 0;
    const double limit = lv->config.max_coordinate;
    uint32_t cur = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        sweep_level_mover *m = row_mover(L, st, T, &cur, keys_of, SWEEP_MAP_E_KEYFRAME, &id);
        if (!m) {
            ok = 0;
            break;
        }
        if (m->key_count >= SWEEP_MOVER_MAX_KEYFRAMES) {
            ok = fail(L, SWEEP_MAP_E_TOO_BIG, T, id, "a mover has at most %u keyframes", SWEEP_MOVER_MAX_KEYFRAMES);
            break;
        }
        double time, p[3], q[4];
        ok = get_number(L, st, 2, T, id, "time", &time) && get_coordinate(L, st, 3, T, id, "x", limit, &p[0]) &&
             get_coordinate(L, st, 4, T, id, "y", limit, &p[1]) && get_coordinate(L, st, 5, T, id, "z", limit, &p[2]);
        for (int k = 0; ok && k < 4; k++)
            ok = get_number(L, st, 6 + k, T, id, qn[k], &q[k]);
        if (!ok)
            break;
        sweep_quat r = {q[0], q[1], q[2], q[3]};
        if (sweep_level_mover_add_keyframe(m, time, sweep_v3(p[0], p[1], p[2]), r) != SWEEP_OK)
            ok = fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

/* The core's rules about a whole mover, reported at the row concerned:
 * the keyframe, triangle or vertex sweep_mover_desc_check names, or the
 * movers row when it is about the mover as a whole. */
static int check_mover(load *L, uint32_t i)
{
    const sweep_level_mover *m = &L->lv->movers[i];
    sweep_mover_desc d = sweep_level_mover_desc(L->lv, i);
    uint32_t at = 0;
    sweep_mover_problem p = sweep_mover_desc_check(&d, &at);
    if (p == SWEEP_MOVER_FINE)
        return 1;
    const char *text = sweep_mover_problem_text(p);
    char detail[96] = "";
    switch (p) {
    case SWEEP_MOVER_NO_TRIANGLES:
        if (m->triangle_count == 0)
            return fail_mover(L, SWEEP_MAP_E_MOVER, "movers", m->id, m->id,
                              "mover '%s': %s (it has no rows in mover_triangles)", m->name, text);
        return fail_mover(L, SWEEP_MAP_E_MOVER, "movers", m->id, m->id, "mover '%s': %s (all %u are degenerate)",
                          m->name, text, m->triangle_count);
    case SWEEP_MOVER_TOO_MANY_TRIANGLES:
        return fail_mover(L, SWEEP_MAP_E_TOO_BIG, "movers", m->id, m->id, "mover '%s': %s", m->name, text);
    case SWEEP_MOVER_BAD_VERTEX:
        return fail_mover(L, SWEEP_MAP_E_VALUE, "mover_vertices", m->id, at, "mover %u '%s': %s", m->id, m->name,
                          text);
    case SWEEP_MOVER_BAD_INDEX:
        return fail_mover(L, SWEEP_MAP_E_INDEX, "mover_triangles", m->id, at, "mover %u '%s': %s", m->id, m->name,
                          text);
    case SWEEP_MOVER_FEW_KEYFRAMES:
        return fail_mover(L, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", m->id, -1, "mover %u '%s' has %u keyframe%s: %s",
                          m->id, m->name, m->key_count, m->key_count == 1 ? "" : "s", text);
    case SWEEP_MOVER_FIRST_TIME:
    case SWEEP_MOVER_TIME_ORDER:
        if (at > 0)
            snprintf(detail, sizeof detail, " (time %.17g after %.17g)", m->keys[at].time, m->keys[at - 1].time);
        else
            snprintf(detail, sizeof detail, " (time %.17g)", m->keys[at].time);
        break;
    case SWEEP_MOVER_NOT_UNIT: {
        sweep_quat q = m->keys[at].pose.rotation;
        snprintf(detail, sizeof detail, " (its length squared is %.9g)", sweep_quat_dot(q, q));
        break;
    }
    case SWEEP_MOVER_OPEN_LOOP:
        snprintf(detail, sizeof detail, " (keyframe 0 is at (%g, %g, %g))", m->keys[0].pose.position.x,
                 m->keys[0].pose.position.y, m->keys[0].pose.position.z);
        break;
    case SWEEP_MOVER_BAD_POSITION:
        break;
    default:
        /* Rules on the movers row itself: mode, trigger, blocked, waits, box. */
        return fail_mover(L, SWEEP_MAP_E_MOVER, "movers", m->id, m->id, "mover '%s': %s", m->name, text);
    }
    sweep_map_error code = p == SWEEP_MOVER_BAD_POSITION ? SWEEP_MAP_E_VALUE : SWEEP_MAP_E_KEYFRAME;
    return fail_mover(L, code, "mover_keyframes", m->id, at, "mover %u '%s': %s%s", m->id, m->name, text, detail);
}

static int read_all_movers(load *L)
{
    if (L->version < 2)
        return 1; /* version 1 maps have no movers */
    if (!read_movers(L) || !read_mover_vertices(L) || !read_mover_triangles(L) || !read_mover_keyframes(L))
        return 0;
    for (uint32_t i = 0; i < L->lv->mover_count; i++)
        if (!check_mover(L, i))
            return 0;
    return 1;
}

/* --- volumes (schema version 3) ----------------------------------------- */

#define KIND_BIT(k) (1u << SWEEP_VOLUME_##k)
/* The columns of a volumes row after the box: the kinds that read each
 * (the others leave it NULL), those that must give it, and their names
 * for a message. The last four are version 4's, and optional. */
static const struct volume_column {
    const char *name;
    uint32_t readers, needed;
    const char *readers_text;
} volume_columns[] = {
    {"velocity_x", KIND_BIT(PUSH), KIND_BIT(PUSH), "'push'"},
    {"velocity_y", KIND_BIT(PUSH), KIND_BIT(PUSH), "'push'"},
    {"velocity_z", KIND_BIT(PUSH), KIND_BIT(PUSH), "'push'"},
    {"destination_x", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"destination_y", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"destination_z", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"facing_x", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"facing_y", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"facing_z", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"keep_velocity", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"exit_speed", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    /* A liquid without damage does none. */
    {"damage", KIND_BIT(HURT) | KIND_BIT(LIQUID), KIND_BIT(HURT), "'hurt' and 'liquid'"},
    {"liquid", KIND_BIT(LIQUID), KIND_BIT(LIQUID), "'liquid'"},
    {"normal_x", KIND_BIT(LADDER), KIND_BIT(LADDER), "'ladder'"},
    {"normal_y", KIND_BIT(LADDER), KIND_BIT(LADDER), "'ladder'"},
    {"normal_z", KIND_BIT(LADDER), KIND_BIT(LADDER), "'ladder'"},
};
#undef KIND_BIT
#define VOLUME_COLUMNS (sizeof volume_columns / sizeof volume_columns[0])
#define VOLUME_FIRST_PARAM 9
#define VOLUME_KEEP 9   /* keep_velocity: an integer */
#define VOLUME_LIQUID 12 /* liquid: a name */

static int read_volume_rows(load *L)
{
    static const char *const T = "volumes";
    static const char *const box[6] = {"min_x", "min_y", "min_z", "max_x", "max_y", "max_z"};
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!count_rows(L, T, "SELECT count(*) FROM volumes", &n))
        return 0;
    if (n > SWEEP_VOLUME_MAX)
        return fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n,
                    SWEEP_VOLUME_MAX);
    /* A map without the liquid and ladder columns has neither. */
    int modes = has_column(L, T, "liquid");
    if (modes < 0)
        return 0;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y, velocity_z, "
             "destination_x, destination_y, destination_z, facing_x, facing_y, facing_z, keep_velocity, exit_speed, "
             "damage, %s FROM volumes ORDER BY id",
             modes ? "liquid, normal_x, normal_y, normal_z" : "NULL, NULL, NULL, NULL");
    sqlite3_stmt *st = prepare(L, T, sql);
    if (!st)
        return 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id < 1 || id > UINT32_MAX) {
            ok = fail(L, SWEEP_MAP_E_VOLUME, T, id, "id must be a whole number from 1 to %u", UINT32_MAX);
            break;
        }
        if (!(ok = unique_id(L, SWEEP_MAP_E_VOLUME, T, id, lv->volume_count > 0,
                             lv->volume_count ? lv->volumes[lv->volume_count - 1].id : 0)))
            break;
        char name[SWEEP_LEVEL_NAME_MAX];
        sweep_volume v;
        memset(&v, 0, sizeof v);
        if (!get_text(L, st, 1, T, id, "name", SWEEP_MAP_E_VOLUME, name, sizeof name)) {
            ok = 0;
            break;
        }
        const char *kind = (const char *)sqlite3_column_text(st, 2);
        int k = 0;
        while (kind && k < SWEEP_VOLUME_KIND_COUNT && strcmp(kind, sweep_volume_kind_name((sweep_volume_kind)k)))
            k++;
        if (!kind || k == SWEEP_VOLUME_KIND_COUNT) {
            ok = fail(L, SWEEP_MAP_E_VOLUME, T, id,
                      "kind '%.32s' is not one of push, teleport, hurt, kill, trigger, liquid, ladder",
                      kind ? kind : "NULL");
            break;
        }
        v.kind = (sweep_volume_kind)k;
        double b[6], p[VOLUME_COLUMNS] = {0};
        for (int i = 0; ok && i < 6; i++)
            ok = get_number(L, st, 3 + i, T, id, box[i], &b[i]);
        for (int i = 0; ok && i < (int)VOLUME_COLUMNS; i++) {
            const struct volume_column *c = &volume_columns[i];
            int col = VOLUME_FIRST_PARAM + i, null = sqlite3_column_type(st, col) == SQLITE_NULL;
            uint32_t bit = 1u << v.kind;
            if ((c->needed & bit) && null) {
                ok = fail(L, SWEEP_MAP_E_VOLUME, T, id, "a '%s' volume needs %s, but it is NULL", kind, c->name);
            } else if (!(c->readers & bit) && !null) {
                ok = fail(L, SWEEP_MAP_E_VOLUME, T, id,
                          "%s is set, but a '%s' volume does not read it (only %s do%s); leave it NULL", c->name,
                          kind, c->readers_text, strchr(c->readers_text, ' ') ? "" : "es");
            } else if (!null && i == VOLUME_KEEP) {
                int64_t keep = 0;
                ok = get_integer(L, st, col, T, id, c->name, SWEEP_MAP_E_VOLUME, &keep);
                if (ok && keep != 0 && keep != 1)
                    ok = fail(L, SWEEP_MAP_E_VOLUME, T, id, "keep_velocity must be 0 or 1, got %lld",
                              (long long)keep);
                p[i] = (double)keep;
            } else if (!null && i == VOLUME_LIQUID) {
                const char *l = (const char *)sqlite3_column_text(st, col);
                int q = 1;
                while (l && q < SWEEP_LIQUID_COUNT && strcmp(l, sweep_liquid_name((sweep_liquid)q)))
                    q++;
                if (!l || q == SWEEP_LIQUID_COUNT)
                    ok = fail(L, SWEEP_MAP_E_VOLUME, T, id, "liquid '%.32s' is not one of water, slime, lava",
                              l ? l : "NULL");
                v.liquid = (sweep_liquid)q;
            } else if (!null) {
                ok = get_number(L, st, col, T, id, c->name, &p[i]);
            }
        }
        if (!ok)
            break;
        v.lo = sweep_v3(b[0], b[1], b[2]);
        v.hi = sweep_v3(b[3], b[4], b[5]);
        v.velocity = sweep_v3(p[0], p[1], p[2]);
        v.destination = sweep_v3(p[3], p[4], p[5]);
        v.facing = sweep_v3(p[6], p[7], p[8]);
        v.keep_velocity = (uint32_t)p[9];
        v.exit_speed = p[10];
        v.damage = p[11];
        v.normal = sweep_v3(p[13], p[14], p[15]);
        if (lv->volume_count >= (uint32_t)n) {
            ok = fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        if (sweep_level_add_volume(lv, (uint32_t)id, name, &v) != SWEEP_OK)
            ok = fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_volume_planes(load *L)
{
    static const char *const T = "volume_planes";
    static const char *const cn[4] = {"nx", "ny", "nz", "d"};
    sweep_level *lv = L->lv;
    sqlite3_stmt *st = prepare(L, T, "SELECT volume, id, nx, ny, nz, d FROM volume_planes ORDER BY volume, id");
    if (!st)
        return 0;
    uint32_t cur = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t vol = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1);
        while (cur < lv->volume_count && lv->volumes[cur].id < vol)
            cur++;
        if (cur == lv->volume_count || lv->volumes[cur].id != vol) {
            ok = fail(L, SWEEP_MAP_E_VOLUME, T, -1, "row volume=%lld id=%lld: there is no volume %lld",
                      (long long)vol, (long long)id, (long long)vol);
            break;
        }
        sweep_volume *v = &lv->volumes[cur].v;
        if (id != (int64_t)v->plane_count) {
            ok = fail(L, SWEEP_MAP_E_VOLUME, T, -1, "row volume=%lld id=%lld: ids must run 0, 1, 2, ... (expected %u)",
                      (long long)vol, (long long)id, v->plane_count);
            break;
        }
        if (v->plane_count == SWEEP_VOLUME_MAX_PLANES) {
            ok = fail(L, SWEEP_MAP_E_VOLUME, T, -1, "row volume=%lld id=%lld: a volume has at most %u planes",
                      (long long)vol, (long long)id, SWEEP_VOLUME_MAX_PLANES);
            break;
        }
        double x[4];
        for (int i = 0; ok && i < 4; i++)
            ok = get_number(L, st, 2 + i, T, id, cn[i], &x[i]);
        if (!ok)
            break;
        v->planes[v->plane_count].normal = sweep_v3(x[0], x[1], x[2]);
        v->planes[v->plane_count].offset = x[3];
        v->plane_count++;
    }
    if (ok && rc != SQLITE_DONE)
        ok = fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_all_volumes(load *L)
{
    if (L->version < 3)
        return 1; /* versions 1 and 2 have no volumes */
    if (!read_volume_rows(L) || !read_volume_planes(L))
        return 0;
    const sweep_level *lv = L->lv;
    for (uint32_t i = 0; i < lv->volume_count; i++) {
        const char *why = "";
        if (sweep_volume_check(&lv->volumes[i].v, lv->config.max_speed, lv->config.max_coordinate, &why) != SWEEP_OK)
            return fail(L, SWEEP_MAP_E_VOLUME, "volumes", lv->volumes[i].id, "volume '%s' (%s): %s",
                        lv->volumes[i].name, sweep_volume_kind_name(lv->volumes[i].v.kind), why);
    }
    return 1;
}

static sweep_status status_of(sweep_map_error e)
{
    switch (e) {
    case SWEEP_MAP_OK: return SWEEP_OK;
    case SWEEP_MAP_E_ARG: return SWEEP_E_ARG;
    case SWEEP_MAP_E_NOMEM: return SWEEP_E_NOMEM;
    case SWEEP_MAP_E_METADATA: return SWEEP_E_CONFIG;
    default: return SWEEP_E_GEOMETRY;
    }
}

sweep_status sweep_map_load(const char *path, sweep_level *out, sweep_map_load_info *info, char *err,
                            size_t errlen)
{
    load L = {path, NULL, out, info, err, errlen, SWEEP_MAP_OK, 0, -1};
    if (err && errlen)
        err[0] = '\0';
    if (info) {
        memset(info, 0, sizeof *info);
        info->row_id = -1;
        info->mover_id = -1;
        info->first_degenerate_id = -1;
    }
    if (!out || !path) {
        fail(&L, SWEEP_MAP_E_ARG, NULL, -1, "no path or no level to load into");
        return SWEEP_E_ARG;
    }
    sweep_level_init(out);
    if (check_file(&L) && open_db(&L)) {
        /* One read transaction: counts and rows are the same snapshot. */
        int rc = sqlite3_exec(L.db, "BEGIN", NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            fail_sqlite(&L, rc, NULL, -1);
        else if (check_header(&L) && read_map_row(&L) && read_materials(&L) && read_vertices(&L) &&
                 read_triangles(&L) && read_spawns(&L) && read_all_movers(&L))
            read_all_volumes(&L);
    }
    if (L.db)
        sqlite3_close(L.db); /* closing ends the read transaction */
    if (L.error != SWEEP_MAP_OK)
        sweep_level_free(out);
    return status_of(L.error);
}

int sweep_map_read_name(const char *path, char *out, size_t outlen)
{
    if (!path || !out || outlen == 0)
        return -1;
    out[0] = 0;
    /* The same plain-file rule as a load: never a URI. */
    char *name = NULL;
    const char *use = path;
    if (strncmp(path, "file:", 5) == 0) {
        name = malloc(strlen(path) + 3);
        if (!name)
            return -1;
        strcpy(name, "./");
        strcat(name, path);
        use = name;
    }
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(use, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    free(name);
    sqlite3_stmt *st = NULL;
    int ok = -1;
    if (rc == SQLITE_OK && sqlite3_prepare_v2(db, "SELECT name FROM map", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        int n = sqlite3_column_bytes(st, 0);
        if (t && n > 0 && (size_t)n < outlen && memchr(t, 0, (size_t)n) == NULL) {
            memcpy(out, t, (size_t)n);
            out[n] = 0;
            ok = 0;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return ok;
}
