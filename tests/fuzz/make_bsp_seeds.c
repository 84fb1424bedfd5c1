/*
 * make_bsp_seeds.c - writes the seeds of tests/fuzz/fuzz_bsp.c into a
 * directory: the importer tests' levels (tests/maps/bsp_writer.h), each a
 * .bsp of a few kilobytes. They are made at run time rather than committed:
 * the writer is the tests' own, so the seeds follow it.
 *
 * The levels: the test level (brushes, a patch, spawn points, every kind of
 * mover), the same with its floor brush left open, with its brush models as
 * jump pads, a teleporter and hurt volumes, with no player-solid brush at
 * all, and the pools and ladder level.
 *
 * Usage: make_bsp_seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/maps/bsp_writer.h"

static int write_seed(const char *dir, const char *name, uint8_t *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        perror(path);
    free(data);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_bsp_seeds DIR\n");
        return 2;
    }
    size_t size;
    int ok = 1;
    uint8_t *data = make_level(NULL, 0, &size);
    ok &= write_seed(argv[1], "level.bsp", data, size);
    data = make_level(NULL, OPEN_FLOOR, &size);
    ok &= write_seed(argv[1], "open-floor.bsp", data, size);
    data = make_level(volume_entities, 0, &size);
    ok &= write_seed(argv[1], "volumes.bsp", data, size);
    data = make_level(NULL, NO_SOLID, &size);
    ok &= write_seed(argv[1], "no-solid.bsp", data, size);
    data = make_liquids_level(&size);
    ok &= write_seed(argv[1], "liquids.bsp", data, size);
    return ok ? 0 : 1;
}
