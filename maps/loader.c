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
 * The movers' tables are read by loader_movers.c, the volumes' by
 * loader_volumes.c (loader_impl.h: what the three share).
 *
 * Invariants on success: vertex_count >= 1, triangle_count >= 1, every
 * index < vertex_count, every triangle's material is in material_table,
 * every number finite, no triangle degenerate by sweep_triangle_is_degenerate (core/world.h);
 * movers in increasing id order with unique names, each passing
 * sweep_mover_desc_check with its triangles' materials in material_table,
 * and static plus mover triangles within SWEEP_WORLD_MAX_TRIANGLES.
 */
#include "maps/loader_impl.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/move.h"
#include "core/world.h"

#define MAX_SPAWNS 1000000u

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

int sweep__load_fail(load *L, sweep_map_error code, const char *table, int64_t row, const char *fmt, ...)
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
int sweep__load_unique_id(load *L, sweep_map_error code, const char *table, int64_t id, int has_prev, int64_t prev)
{
    if (has_prev && id == prev)
        return sweep__load_fail(L, code, table, id, "id %lld is also the id of another row: ids must be unique",
                                (long long)id);
    return 1;
}

/* sweep__load_fail() about a row that belongs to mover `mover` (a movers row, or a row
 * of a mover_* table). */
int sweep__load_fail_mover(load *L, sweep_map_error code, const char *table, int64_t mover, int64_t row,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(L, code, table, mover, row, fmt, ap);
    va_end(ap);
    return 0;
}

/* Turns an SQLite failure while reading `table` into the matching map error. */
int sweep__load_fail_sqlite(load *L, int rc, const char *table, int64_t row)
{
    const char *msg = L->db ? sqlite3_errmsg(L->db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        return sweep__load_fail(L, SWEEP_MAP_E_NOT_DATABASE, NULL, -1, "not an SQLite database (%s)", msg);
    case SQLITE_CORRUPT:
        return sweep__load_fail(L, SWEEP_MAP_E_CORRUPT, table, row, "the file is damaged (%s)", msg);
    case SQLITE_NOMEM:
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, table, row, "out of memory");
    default:
        return sweep__load_fail(L, SWEEP_MAP_E_IO, table, row, "SQLite error: %s", msg);
    }
}

const char *sweep__load_type_name(int type)
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
int sweep__load_number(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                       double *out)
{
    int type = sqlite3_column_type(st, col);
    if (type == SQLITE_FLOAT) {
        *out = sqlite3_column_double(st, col);
    } else if (type == SQLITE_INTEGER) {
        *out = (double)sqlite3_column_int64(st, col);
    } else if (type == SQLITE_TEXT) {
        const unsigned char *t = sqlite3_column_text(st, col);
        return sweep__load_fail(L, SWEEP_MAP_E_VALUE, table, row, "%s is not a finite number (text '%.20s')", name,
                                t ? (const char *)t : "");
    } else {
        return sweep__load_fail(L, SWEEP_MAP_E_VALUE, table, row, "%s is not a finite number (%s)", name,
                                sweep__load_type_name(type));
    }
    if (!isfinite(*out))
        return sweep__load_fail(L, SWEEP_MAP_E_VALUE, table, row, "%s is not a finite number (%g)", name, *out);
    return 1;
}

/* Reads an integer column; SQLite's REAL affinity may hand back 2.0 for
 * an index written as 2.0, but a fraction or text is refused. */
int sweep__load_integer(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
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
        return sweep__load_fail(L, code, table, row, "%s is not a whole number (%g)", name, d);
    }
    return sweep__load_fail(L, code, table, row, "%s is not a whole number (%s)", name, sweep__load_type_name(type));
}

/* Reads a text column of 1..max-1 bytes into out. */
int sweep__load_text(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                     sweep_map_error code, char *out, size_t max)
{
    if (sqlite3_column_type(st, col) != SQLITE_TEXT)
        return sweep__load_fail(L, code, table, row, "%s is not text (%s)", name,
                                sweep__load_type_name(sqlite3_column_type(st, col)));
    const unsigned char *t = sqlite3_column_text(st, col);
    int n = sqlite3_column_bytes(st, col);
    if (!t)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, table, row, "out of memory");
    if (n < 1 || (size_t)n >= max || memchr(t, '\0', (size_t)n))
        return sweep__load_fail(L, code, table, row, "%s must be 1 to %zu bytes of text, got %d bytes", name, max - 1,
                                n);
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
        return sweep__load_fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "cannot open: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return sweep__load_fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "not a regular file");
    if (sb.st_size == 0)
        return sweep__load_fail(L, SWEEP_MAP_E_EMPTY_FILE, NULL, -1, "the file is empty (0 bytes), not a map");
    FILE *f = fopen(L->path, "rb");
    if (!f)
        return sweep__load_fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "cannot open: %s", strerror(errno));
    unsigned char h[100];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return sweep__load_fail(L, SWEEP_MAP_E_NOT_DATABASE, NULL, -1,
                                "not an SQLite database (%lld bytes without the 'SQLite format 3' header)",
                                (long long)sb.st_size);
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (page < 512 || (page & (page - 1)))
        return sweep__load_fail(L, SWEEP_MAP_E_CORRUPT, NULL, -1, "the file is damaged (header page size %u)", page);
    /* The page count at offset 28 is only meaningful when the change
     * counter (24) equals the version-valid-for number (92); SQLite older
     * than 3.7.0 did not keep it up to date. */
    uint32_t pages = be32(h + 28);
    if (pages && be32(h + 24) == be32(h + 92)) {
        long long want = (long long)pages * page;
        if ((long long)sb.st_size < want)
            return sweep__load_fail(L, SWEEP_MAP_E_TRUNCATED, NULL, -1,
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
        return sweep__load_fail_sqlite(L, rc, NULL, -1);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        *out = 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sweep__load_fail_sqlite(L, rc, NULL, -1);
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
            return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, NULL, -1, "out of memory");
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
        sweep__load_fail(L, SWEEP_MAP_E_OPEN, NULL, -1, "cannot open: %s",
                         L->db ? sqlite3_errmsg(L->db) : sqlite3_errstr(rc));
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
            return sweep__load_fail(L, SWEEP_MAP_E_NOT_MAP, NULL, -1, "an empty SQLite database, not a sweep map");
        return sweep__load_fail(L, SWEEP_MAP_E_NOT_MAP, NULL, -1,
                                "an SQLite database but not a sweep map (application_id is 0x%08llx, expected 0x%08x)",
                                (unsigned long long)(uint32_t)app, SWEEP_MAP_APPLICATION_ID);
    }
    if (version < SWEEP_MAP_SCHEMA_VERSION_MIN || version > SWEEP_MAP_SCHEMA_VERSION)
        return sweep__load_fail(L, SWEEP_MAP_E_VERSION, NULL, -1,
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
    /* Each a plain table, as the writer makes them: what a read of it runs
     * is then a walk of its rows. A virtual table (its module's code runs
     * on every read, and its content may be a view of any query: an
     * endless recursive one hung the load while SQLite filled a temporary
     * file) or a generated column (an expression computed on every read)
     * is refused by name, never run. */
    sqlite3_stmt *st, *gen;
    int rc = sqlite3_prepare_v2(L->db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return sweep__load_fail_sqlite(L, rc, NULL, -1);
    rc = sqlite3_prepare_v2(L->db, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden <> 0", -1, &gen, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return sweep__load_fail_sqlite(L, rc, NULL, -1);
    }
    int ok = 1;
    for (size_t i = 0; ok && i < table_count; i++) {
        sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        const char *sql = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (rc == SQLITE_DONE) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_SCHEMA, tables[i], -1, "the table is missing (the map is incomplete)");
        } else if (rc != SQLITE_ROW) {
            ok = sweep__load_fail_sqlite(L, rc, NULL, -1);
        } else if (!sql || sqlite3_strnicmp(sql, "CREATE TABLE", 12) != 0) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_SCHEMA, tables[i], -1,
                                  "not a plain table (a virtual table: a map's tables hold their rows themselves)");
        } else {
            sqlite3_bind_text(gen, 1, tables[i], -1, SQLITE_STATIC);
            rc = sqlite3_step(gen);
            if (rc == SQLITE_ROW)
                ok = sweep__load_fail(L, SWEEP_MAP_E_SCHEMA, tables[i], -1,
                                      "column %s is generated or hidden (a map's columns hold their values)",
                                      (const char *)sqlite3_column_text(gen, 0));
            else if (rc != SQLITE_DONE)
                ok = sweep__load_fail_sqlite(L, rc, NULL, -1);
            sqlite3_reset(gen);
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(gen);
    return ok;
}

/* Prepares a SELECT over `table`; a missing column becomes a schema error. */
sqlite3_stmt *sweep__load_prepare(load *L, const char *table, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(L->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_ERROR)
            sweep__load_fail(L, SWEEP_MAP_E_SCHEMA, table, -1, "%s", sqlite3_errmsg(L->db));
        else
            sweep__load_fail_sqlite(L, rc, table, -1);
        return NULL;
    }
    return st;
}

/* 1 if `table` has the column, 0 if not, -1 after a failure (reported). */
int sweep__load_has_column(load *L, const char *table, const char *column)
{
    sqlite3_stmt *st = sweep__load_prepare(L, table, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sweep__load_fail_sqlite(L, rc, table, -1) - 1;
    return rc == SQLITE_ROW;
}

int sweep__load_count_rows(load *L, const char *table, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = sweep__load_prepare(L, table, sql);
    if (!st)
        return 0;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sweep__load_fail_sqlite(L, rc, table, -1);
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

/* The swimming and climbing rules and air_move (version 4), each
 * optional: a map without the column keeps the default sweep_level_init
 * gave. */
#define MODE_RULE(field) {#field, offsetof(sweep_rules, field)}
static const struct mode_rule {
    const char *column;
    size_t offset;
} mode_rules[] = {MODE_RULE(swim_speed), MODE_RULE(swim_accel),  MODE_RULE(swim_drag),  MODE_RULE(swim_sink),
                  MODE_RULE(swim_jump),  MODE_RULE(climb_speed), MODE_RULE(climb_accel), MODE_RULE(air_move)};
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
        sweep__load_fail(
            L, SWEEP_MAP_E_METADATA, "map", -1,
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
        if ((mode_has[i] = sweep__load_has_column(L, T, mode_rules[i].column)) < 0)
            return 0;
        n += (size_t)snprintf(sql + n, sizeof sql - n, ", %s", mode_has[i] ? mode_rules[i].column : "NULL");
    }
    snprintf(sql + n, sizeof sql - n, " FROM map");
    sqlite3_stmt *st = sweep__load_prepare(L, T, sql);
    if (!st)
        return 0;
    sweep_level *lv = L->lv;
    int rc = sqlite3_step(st), ok = 1;
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return sweep__load_fail(L, SWEEP_MAP_E_METADATA, T, -1, "no row: a map needs exactly one row of metadata");
    }
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sweep__load_fail_sqlite(L, rc, T, -1);
    }
    int64_t id = sqlite3_column_int64(st, 0);
    char units[16];
    double x[MAP_COLUMNS], modes[MODE_RULES];
    ok = sweep__load_text(L, st, 1, T, id, "name", SWEEP_MAP_E_METADATA, lv->name, sizeof lv->name) &&
         sweep__load_text(L, st, 2, T, id, "units", SWEEP_MAP_E_METADATA, units, sizeof units);
    for (size_t i = 0; ok && i < ncol; i++)
        ok = sweep__load_number(L, st, 3 + (int)i, T, id, map_columns[i], &x[i]);
    for (size_t i = 0; ok && i < MODE_RULES; i++)
        if (mode_has[i])
            ok = sweep__load_number(L, st, 3 + (int)(ncol + i), T, id, mode_rules[i].column, &modes[i]);
    if (ok) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            ok = sweep__load_fail(L, SWEEP_MAP_E_METADATA, T, sqlite3_column_int64(st, 0),
                                  "a second row: a map has exactly one row of metadata");
        else if (rc != SQLITE_DONE)
            ok = sweep__load_fail_sqlite(L, rc, T, id);
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
        return sweep__load_fail(L, SWEEP_MAP_E_METADATA, T, id, "%s", why);
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
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM materials", &n))
        return 0;
    if (n > SWEEP_MAP_MAX_MATERIALS)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n,
                                SWEEP_MAP_MAX_MATERIALS);
    if (n == 0)
        return sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, -1, "no rows: every triangle needs a material");
    lv->material_table = calloc((size_t)n, sizeof *lv->material_table);
    if (!lv->material_table)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory");
    lv->material_cap = (uint32_t)n;
    sqlite3_stmt *st = sweep__load_prepare(L, T, "SELECT id, name, friction, flags FROM materials ORDER BY id");
    if (!st)
        return 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0), flags;
        if (lv->material_count >= lv->material_cap) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        sweep_material *m = &lv->material_table[lv->material_count];
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id < 1 || id > UINT32_MAX) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, id, "id must be a whole number from 1 to %u", UINT32_MAX);
            break;
        }
        if (!(ok = sweep__load_unique_id(L, SWEEP_MAP_E_MATERIAL, T, id, lv->material_count > 0,
                                         lv->material_count ? lv->material_table[lv->material_count - 1].id : 0)))
            break;
        m->id = (uint32_t)id;
        ok = sweep__load_text(L, st, 1, T, id, "name", SWEEP_MAP_E_MATERIAL, m->name, sizeof m->name) &&
             sweep__load_number(L, st, 2, T, id, "friction", &m->friction) &&
             sweep__load_integer(L, st, 3, T, id, "flags", SWEEP_MAP_E_MATERIAL, &flags);
        if (!ok)
            break;
        if (m->friction < 0.0)
            ok = sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, id, "friction=%g must not be negative", m->friction);
        else if (flags < 0 || flags > UINT32_MAX)
            ok = sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, id, "flags=%lld must fit in 32 bits", (long long)flags);
        m->flags = (uint32_t)flags;
        for (uint32_t k = 0; ok && k < lv->material_count; k++)
            if (strcmp(lv->material_table[k].name, m->name) == 0)
                ok = sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, id, "name '%s' is also the name of material %u",
                                      m->name, lv->material_table[k].id);
        if (ok)
            lv->material_count++;
    }
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_vertices(load *L)
{
    static const char *const T = "vertices";
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM vertices", &n))
        return 0;
    if (n == 0)
        return sweep__load_fail(L, SWEEP_MAP_E_NO_TRIANGLES, T, -1, "no rows: the map has no geometry");
    if (n > (int64_t)3 * SWEEP_WORLD_MAX_TRIANGLES || n >= UINT32_MAX)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows is more than the core accepts", (long long)n);
    lv->vertices = malloc((size_t)n * sizeof *lv->vertices);
    if (!lv->vertices)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory for %lld vertices", (long long)n);
    lv->vertex_cap = (uint32_t)n;
    sqlite3_stmt *st = sweep__load_prepare(L, T, "SELECT id, x, y, z FROM vertices ORDER BY id");
    if (!st)
        return 0;
    const double limit = lv->config.max_coordinate;
    int rc, ok = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        uint32_t i = lv->vertex_count;
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id != (int64_t)i) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VERTEX_ID, T, id,
                                  "vertex ids must run 0, 1, 2, ... without gaps; expected id %u here", i);
            break;
        }
        if (i >= lv->vertex_cap) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        double v[3];
        /* The common case, three floats, skips the general reader. */
        for (int k = 0; k < 3; k++) {
            sqlite3_value *val = sqlite3_column_value(st, 1 + k);
            if (sqlite3_value_type(val) == SQLITE_FLOAT) {
                v[k] = sqlite3_value_double(val);
                if (!isfinite(v[k]))
                    ok = sweep__load_number(L, st, 1 + k, T, id, k == 0 ? "x" : k == 1 ? "y" : "z", &v[k]);
            } else {
                ok = sweep__load_number(L, st, 1 + k, T, id, k == 0 ? "x" : k == 1 ? "y" : "z", &v[k]);
            }
            if (!ok)
                break;
            if (!(fabs(v[k]) <= limit)) {
                ok = sweep__load_fail(L, SWEEP_MAP_E_VALUE, T, id, "%c=%g is beyond the coordinate limit %g", "xyz"[k],
                                      v[k], limit);
                break;
            }
        }
        if (!ok)
            break;
        lv->vertices[i] = sweep_v3(v[0], v[1], v[2]);
        lv->vertex_count++;
    }
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, (int64_t)lv->vertex_count);
    sqlite3_finalize(st);
    return ok;
}

/* Index of material id in the (id-sorted) table, or -1. */
int64_t sweep__load_find_material(const sweep_level *lv, int64_t id)
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
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM triangles", &n))
        return 0;
    if (n == 0)
        return sweep__load_fail(L, SWEEP_MAP_E_NO_TRIANGLES, T, -1, "no rows: a map needs at least one triangle");
    if (n > SWEEP_WORLD_MAX_TRIANGLES)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, the core accepts at most %u", (long long)n,
                                SWEEP_WORLD_MAX_TRIANGLES);
    lv->indices = malloc((size_t)n * 3 * sizeof *lv->indices);
    lv->materials = malloc((size_t)n * sizeof *lv->materials);
    if (!lv->indices || !lv->materials)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory for %lld triangles", (long long)n);
    lv->triangle_cap = (uint32_t)n;
    sqlite3_stmt *st = sweep__load_prepare(L, T, "SELECT id, a, b, c, material FROM triangles ORDER BY id");
    if (!st)
        return 0;
    static const char *const names[3] = {"a", "b", "c"};
    uint32_t rows = 0, dropped = 0;
    int64_t first_dropped = -1, last_mat = -1, last_mat_at = -1, prev_id = 0;
    int rc, ok = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (rows >= lv->triangle_cap) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        /* A triangle's number is its place in id order (what a contact
         * reports, and what breaks ties between contacts). */
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VALUE, T, id, "id must be a whole number, got %s",
                                  sweep__load_type_name(sqlite3_column_type(st, 0)));
            break;
        }
        if (!(ok = sweep__load_unique_id(L, SWEEP_MAP_E_VALUE, T, id, rows > 0, prev_id)))
            break;
        prev_id = id;
        rows++;
        uint32_t ix[3];
        for (int k = 0; k < 3; k++) {
            int64_t v;
            sqlite3_value *val = sqlite3_column_value(st, 1 + k);
            if (sqlite3_value_type(val) == SQLITE_INTEGER)
                v = sqlite3_value_int64(val);
            else if (!(ok = sweep__load_integer(L, st, 1 + k, T, id, names[k], SWEEP_MAP_E_INDEX, &v)))
                break;
            if (v < 0 || v >= lv->vertex_count) {
                ok = sweep__load_fail(L, SWEEP_MAP_E_INDEX, T, id,
                                      "vertex %s=%lld is out of range (table vertices has %u rows, ids 0 to %u)",
                                      names[k], (long long)v, lv->vertex_count, lv->vertex_count - 1);
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
        else if (!(ok = sweep__load_integer(L, st, 4, T, id, "material", SWEEP_MAP_E_MATERIAL, &mat)))
            break;
        /* Neighbouring triangles usually share a material. */
        if (mat != last_mat) {
            last_mat_at = sweep__load_find_material(lv, mat);
            last_mat = mat;
        }
        if (last_mat_at < 0) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, id, "material %lld is not in table materials",
                                  (long long)mat);
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
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    if (L->info) {
        L->info->triangle_rows = rows;
        L->info->degenerate_dropped = dropped;
        L->info->first_degenerate_id = first_dropped;
    }
    if (ok && lv->triangle_count == 0)
        return sweep__load_fail(L, SWEEP_MAP_E_NO_TRIANGLES, T, -1, "all %u triangles are degenerate (zero area)",
                                rows);
    return ok;
}

static int read_spawns(load *L)
{
    static const char *const T = "spawns";
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM spawns", &n))
        return 0;
    if (n > MAX_SPAWNS)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n,
                                MAX_SPAWNS);
    if (n == 0)
        return 1;
    lv->spawns = malloc((size_t)n * sizeof *lv->spawns);
    if (!lv->spawns)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory");
    lv->spawn_cap = (uint32_t)n;
    sqlite3_stmt *st = sweep__load_prepare(L, T, "SELECT id, x, y, z FROM spawns ORDER BY id");
    if (!st)
        return 0;
    int rc, ok = 1;
    int64_t prev = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (lv->spawn_count >= lv->spawn_cap) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        /* Spawn points are numbered in id order (as triangles are). */
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VALUE, T, id, "id must be a whole number, got %s",
                                  sweep__load_type_name(sqlite3_column_type(st, 0)));
            break;
        }
        if (!(ok = sweep__load_unique_id(L, SWEEP_MAP_E_VALUE, T, id, lv->spawn_count > 0, prev)))
            break;
        prev = id;
        double v[3];
        ok = sweep__load_number(L, st, 1, T, id, "x", &v[0]) && sweep__load_number(L, st, 2, T, id, "y", &v[1]) &&
             sweep__load_number(L, st, 3, T, id, "z", &v[2]);
        for (int k = 0; ok && k < 3; k++)
            if (!(fabs(v[k]) <= lv->config.max_coordinate))
                ok = sweep__load_fail(L, SWEEP_MAP_E_VALUE, T, id, "%c=%g is beyond the coordinate limit %g", "xyz"[k],
                                      v[k], lv -> config.max_coordinate);
        if (!ok)
            break;
        lv->spawns[lv->spawn_count++] = sweep_v3(v[0], v[1], v[2]);
    }
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
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
        sweep__load_fail(&L, SWEEP_MAP_E_ARG, NULL, -1, "no path or no level to load into");
        return SWEEP_E_ARG;
    }
    sweep_level_init(out);
    if (check_file(&L) && open_db(&L)) {
        /* One read transaction: counts and rows are the same snapshot. */
        int rc = sqlite3_exec(L.db, "BEGIN", NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            sweep__load_fail_sqlite(&L, rc, NULL, -1);
        else if (check_header(&L) && read_map_row(&L) && read_materials(&L) && read_vertices(&L) &&
                 read_triangles(&L) && read_spawns(&L) && sweep__load_movers(&L))
            sweep__load_volumes(&L);
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
    /* Opened and checked as a load is (a plain file, a sweep map's header
     * and plain tables), so no query of the file's own making runs. */
    load L = {path, NULL, NULL, NULL, NULL, 0, SWEEP_MAP_OK, 0, -1};
    int ok = -1;
    sqlite3_stmt *st = NULL;
    if (check_file(&L) && open_db(&L) && check_header(&L) &&
        sqlite3_prepare_v2(L.db, "SELECT name FROM map", -1, &st, NULL) == SQLITE_OK &&
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
    if (L.db)
        sqlite3_close(L.db);
    return ok;
}
