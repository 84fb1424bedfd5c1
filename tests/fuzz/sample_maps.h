/*
 * sample_maps.h - where a fuzz harness finds the sample maps make builds:
 * $SWEEP_BUILD_DIR/maps if set, else two levels above the harness
 * ($(BUILD)/tests/fuzz/ -> $(BUILD)/maps); and a copy of one with
 * crouching, which none of them has.
 */
#ifndef SWEEP_TESTS_FUZZ_SAMPLE_MAPS_H
#define SWEEP_TESTS_FUZZ_SAMPLE_MAPS_H

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

static inline void fuzz_sample_maps_dir(int argc, char **argv, char *dir, size_t len)
{
    const char *env = getenv("SWEEP_BUILD_DIR");
    if (env && *env) {
        snprintf(dir, len, "%s/maps", env);
        return;
    }
    char self[4096];
    snprintf(self, sizeof self, "%s", (argc > 0 && argv[0]) ? argv[0] : ".");
    snprintf(dir, len, "%s/../../maps", dirname(self));
}

/* No sample map has crouching, nor Quake 3's air move: a copy of one
 * with a crouch shape of half its height, a crouch speed of 2 units/s and
 * air_move 1, written to `out` (a path of the caller's, removed first).
 * 0, or -1 (said on stderr). */
static inline int fuzz_crouching_copy(const char *src, const char *out)
{
    FILE *in = fopen(src, "rb"), *to = NULL;
    int ok = in != NULL;
    unlink(out);
    if (ok)
        ok = (to = fopen(out, "wb")) != NULL;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, to) == n;
    if (in)
        fclose(in);
    if (to && fclose(to) != 0)
        ok = 0;
    sqlite3 *db = NULL;
    if (ok)
        ok = sqlite3_open(out, &db) == SQLITE_OK &&
             sqlite3_exec(db,
                          "UPDATE map SET crouch_radius_x = radius_x, crouch_radius_y = radius_y, "
                          "crouch_radius_z = radius_z / 2, crouch_speed = 2, air_move = 1",
                          NULL, NULL, NULL) == SQLITE_OK;
    if (!ok)
        fprintf(stderr, "fuzz: cannot make a crouching copy of %s at %s%s%s\n", src, out, db ? ": " : "",
                db ? sqlite3_errmsg(db) : "");
    sqlite3_close(db);
    return ok ? 0 : -1;
}

#endif
