/*
 * loader_impl.h - internal: what the map loader's files share (loader.c
 * reads the file, the map row, the static level and the spawn points, and
 * asks loader_movers.c and loader_volumes.c for the tables of those;
 * loader.h and schema.sql say what a map must be). Not installed.
 *
 * One `load` holds a load: the open database, the level being filled and
 * the first failure. Every row is read through the typed column reads
 * below, which check each value as it arrives and record the first bad
 * one with its table and row; a reader returns 0 after a failure and its
 * caller passes the 0 on.
 */
#ifndef SWEEP_MAPS_LOADER_IMPL_H
#define SWEEP_MAPS_LOADER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "maps/loader.h"

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

/* loader.c: failures, ids, the typed column reads, statements and counts */
int sweep__load_fail(load *L, sweep_map_error code, const char *table, int64_t row, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int sweep__load_fail_mover(load *L, sweep_map_error code, const char *table, int64_t mover, int64_t row,
                           const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int sweep__load_fail_sqlite(load *L, int rc, const char *table, int64_t row);
int sweep__load_unique_id(load *L, sweep_map_error code, const char *table, int64_t id, int has_prev, int64_t prev);
const char *sweep__load_type_name(int type);
int sweep__load_number(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                       double *out);
int sweep__load_integer(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                        sweep_map_error code, int64_t *out);
int sweep__load_text(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                     sweep_map_error code, char *out, size_t max);
sqlite3_stmt *sweep__load_prepare(load *L, const char *table, const char *sql);
int sweep__load_has_column(load *L, const char *table, const char *column);
int sweep__load_count_rows(load *L, const char *table, const char *sql, int64_t *out);
int64_t sweep__load_find_material(const sweep_level *lv, int64_t id);

/* loader_movers.c: the movers and their mover_* tables (schema version 2) */
int sweep__load_movers(load *L);

/* loader_volumes.c: the volumes and their planes (schema version 3) */
int sweep__load_volumes(load *L);

#endif
