/*
 * map_image_main.c - sweep-map-image: writes the level image
 * (maps/level_image.h) of a sweep map, for a libsweep built without SQLite
 * (the Windows build, client-sdk/README.md, "Platforms") to predict on.
 *
 * The map is loaded and checked by the same loader as sweepd's; the image
 * is then read back, and the program stops unless the level it gives has
 * the map's content hash, so an image it writes always predicts as the
 * map does.
 */
#include <stdio.h>
#include <string.h>

#include "core/version.h"
#include "maps/content_hash.h"
#include "maps/level_image.h"
#include "maps/loader.h"

static const char usage[] =
    "usage: sweep-map-image MAP.db -o OUT.swl\n"
    "\n"
    "Writes the level image of a sweep map: the level as the loader reads it,\n"
    "in one file that libsweep reads without SQLite (sweep_level_image_load).\n"
    "The image is read back and checked against the map's content hash before\n"
    "the program says it is done.\n"
    "\n"
    "  -o OUT.swl    the image to write\n"
    "  --help        this text\n"
    "  --version     the release of sweep this tool belongs to\n"
    "\n"
    "Prints one line: the image, its size, triangle and mover counts, and the\n"
    "content hash (the one sweepd sends in Welcome).\n";

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "sweep-map-image: %s%s%s\n", what, why ? ": " : "", why ? why : "");
    return 1;
}

int main(int argc, char **argv)
{
    const char *map = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("sweep-map-image %s\n", SWEEP_VERSION);
            return 0;
        }
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "sweep-map-image: -o wants a file name (see --help)\n");
                return 2;
            }
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "sweep-map-image: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        } else if (map) {
            fprintf(stderr, "sweep-map-image: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        } else {
            map = argv[i];
        }
    }
    if (!map || !out) {
        fprintf(stderr, "sweep-map-image: %s is required (see --help)\n", map ? "-o OUT.swl" : "MAP.db");
        return 2;
    }

    char err[512];
    sweep_level lv, back;
    sweep_map_load_info info;
    if (sweep_map_load(map, &lv, &info, err, sizeof err) != SWEEP_OK)
        return fail(map, err);
    sweep_content_hash want, got;
    if (sweep_level_content_hash(&lv, &want) != SWEEP_OK)
        return fail(map, "out of memory hashing the level");
    if (sweep_level_image_save(out, &lv, info.walkable_slope_deg, err, sizeof err) != SWEEP_OK)
        return fail(out, err);
    if (sweep_level_image_load(out, &back, err, sizeof err) != SWEEP_OK) {
        remove(out);
        return fail(out, err);
    }
    if (sweep_level_content_hash(&back, &got) != SWEEP_OK || memcmp(&want, &got, sizeof want) != 0) {
        remove(out);
        return fail(out, "the image read back is not the map's level (content hashes differ); nothing written");
    }
    char hex[2 * SWEEP_SHA256_SIZE + 1];
    sweep_content_hash_hex(&want, hex);
    FILE *f = fopen(out, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (f)
        fclose(f);
    printf("%s: %ld bytes, %u triangles, %u movers, content hash %s\n", out, size, back.triangle_count,
           back.mover_count, hex);
    sweep_level_free(&back);
    sweep_level_free(&lv);
    return 0;
}
