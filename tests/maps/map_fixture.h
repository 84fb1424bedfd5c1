/*
 * map_fixture.h - helpers shared by the maps tests: a private temporary
 * directory per test, maps built from SQL text with the real schema, and
 * paths to the sources and to the build's programs.
 *
 * Everything a test makes lives under its mkdtemp directory and is removed
 * by fixture_cleanup, so tests do not see each other's files. Header-only
 * (static __attribute__((unused)) functions) because every test program is one .c file.
 */
#ifndef SWEEP_TESTS_MAP_FIXTURE_H
#define SWEEP_TESTS_MAP_FIXTURE_H

#define _GNU_SOURCE
#include <ftw.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <sqlite3.h>

#include "tests/test_skip.h"

/* The test program's own path (argv[0]), to find build outputs beside it. */
static const char *fixture_argv0 = "";

/* Sources are read relative to SWEEP_SRCDIR, or the current directory
 * (make test runs from the repository root). */
static __attribute__((unused)) char *fixture_src(const char *rel)
{
    const char *dir = getenv("SWEEP_SRCDIR");
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : ".", rel);
    return buf;
}

/* A build output: tests live in $(BUILD)/tests/maps/, so $(BUILD) is two
 * levels above argv[0]'s directory. */
static __attribute__((unused)) char *fixture_build(const char *rel)
{
    static char buf[4096];
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", fixture_argv0);
    snprintf(buf, sizeof buf, "%s/../../%s", dirname(tmp), rel);
    return buf;
}

static __attribute__((unused)) char *fixture_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    if (s) {
        s[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    return s;
}

static __attribute__((unused)) int fixture_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

typedef struct fixture {
    char dir[64];
    char path[4200]; /* scratch for fixture_path */
} fixture;

static __attribute__((unused)) fixture *fixture_new(void)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/sweep-maps-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return NULL;
    }
    return f;
}

static __attribute__((unused)) const char *fixture_path(fixture *f, const char *name)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    return f->path;
}

static __attribute__((unused)) int fixture_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static __attribute__((unused)) void fixture_cleanup(fixture *f)
{
    if (!f)
        return;
    nftw(f->dir, fixture_rm, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
}

/* The corpus of real levels (tests/install-corpus.sh finds or installs it):
 * 1 with the .pk3's path in out, or 0 after printing why it is absent, for
 * the caller to skip. */
static __attribute__((unused)) int fixture_corpus(fixture *f, char *out, size_t cap)
{
    char cmd[9000], err_path[4200];
    snprintf(err_path, sizeof err_path, "%s", fixture_path(f, "corpus.err"));
    snprintf(cmd, sizeof cmd, "sh '%s' 2>'%s'", fixture_src("tests/install-corpus.sh"), err_path);
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (p) {
        if (!fgets(out, (int)cap, p))
            out[0] = '\0';
        out[strcspn(out, "\n")] = '\0';
        int rc = pclose(p);
        if (rc == 0 && out[0])
            return 1;
    }
    char *why = fixture_read(err_path, NULL);
    skip_reason("the corpus is not installed (%s)", why ? strtok(why, "\n") : "no reason given");
    free(why);
    return 0;
}

/* Number of entries in the fixture directory (to prove nothing was left). */
static __attribute__((unused)) int fixture_count_files(fixture *f)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", f->dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

/* The base64 of in[0..n) into out (4 * ((n + 2) / 3) + 1 bytes), as a
 * glTF data: URI holds a buffer. */
static __attribute__((unused)) void fixture_base64(const uint8_t *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
}

/* Runs the built program `prog` (a path under the build, "bin/sweep-walk")
 * with `args` (already quoted), its stdout and stderr in out; its exit
 * status, or -1 if it did not exit. */
static __attribute__((unused)) int fixture_run(const char *prog, const char *args, char *out, size_t cap)
{
    char cmd[10000];
    out[0] = '\0';
    int w = snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", fixture_build(prog), args);
    if (w < 0 || (size_t)w >= sizeof cmd)
        return -1; /* a command cut short would run something else */
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Set by a test that expects SQL to fail, to keep its error off stderr. */
static __attribute__((unused)) int fixture_quiet;

/* Runs SQL on a database (created if needed); 1 on success. */
static __attribute__((unused)) int fixture_exec(const char *db_path, const char *sql)
{
    sqlite3 *db;
    if (sqlite3_open(db_path, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return 0;
    }
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK && !fixture_quiet)
        fprintf(stderr, "fixture_exec: %s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

/* Builds a map the way make does: foreign keys on, schema.sql then the
 * rows, one transaction. */
static __attribute__((unused)) int fixture_build_map(const char *db_path, const char *rows_sql)
{
    char *schema = fixture_read(fixture_src("maps/schema.sql"), NULL);
    if (!schema)
        return 0;
    size_t n = strlen(schema) + strlen(rows_sql) + 64;
    char *sql = malloc(n);
    snprintf(sql, n, "PRAGMA foreign_keys = ON; BEGIN;\n%s\n%s\nCOMMIT;", schema, rows_sql);
    remove(db_path);
    int ok = fixture_exec(db_path, sql);
    free(sql);
    free(schema);
    return ok;
}

/* A small valid map: a 2-triangle floor of 10 x 10 at z = 0, one material,
 * one spawn. Vertex ids 0..3, triangle ids 0..1. The movement rules are
 * left out, as SQL-text maps may: they take the schema's defaults. */
static const char fixture_tiny_rows[] =
    "INSERT INTO map (id, name, units, gravity_x, gravity_y, gravity_z, tick_rate, radius_x, radius_y, radius_z,\n"
    "    walkable_slope_deg, step_height) VALUES (1, 'tiny', 'm', 0, 0, -9.81, 60, 0.4, 0.4, 0.9, 45, 0.35);\n"
    "INSERT INTO materials VALUES (1, 'floor', 1.0, 0);\n"
    "INSERT INTO vertices VALUES (0, 0, 0, 0), (1, 10, 0, 0), (2, 10, 10, 0), (3, 0, 10, 0);\n"
    "INSERT INTO triangles VALUES (0, 0, 1, 2, 1), (1, 0, 2, 3, 1);\n"
    "INSERT INTO spawns VALUES (0, 5, 5, 1);\n";

#endif
