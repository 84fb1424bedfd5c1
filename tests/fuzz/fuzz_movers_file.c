/*
 * fuzz_movers_file.c - libFuzzer harness over the movers side file
 * (sweep-import --movers, maps/import_scene_side_file.c): any bytes as
 * the side file of a small scene (a floor, a door panel and a lift
 * platform, the importer tests' OBJ), imported whole.
 *
 * Beyond "no crash, no sanitizer report" it checks, on every input:
 * - a refusal is SWEEP_E_GEOMETRY (or SWEEP_E_NOMEM) and names the side
 *   file;
 * - an imported level is one the map format and the core take
 *   (tests/fuzz/level_invariants.h), and the core builds its movers.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-movers FUZZ_SECONDS=N`, and a bounded smoke run in `make test`.
 * Seeds: tests/fuzz/corpus/movers/, with the words of the format in
 * tests/fuzz/movers.dict.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/mover.h"
#include "maps/import.h"
#include "maps/level.h"
#include "tests/fuzz/level_invariants.h"

static const char scene_obj[] = "o Floor\nv 0 0 0\nv 10 0 0\nv 10 0 -10\nv 0 0 -10\nf 1 2 3 4\n"
                                "o Door\nv 4 0 0\nv 5 0 0\nv 5 2 0\nv 4 2 0\nf 5 6 7 8\n"
                                "o LiftPlatform\nv 6 0 -6\nv 8 0 -6\nv 8 0 -8\nv 6 0 -8\nf 9 10 11 12\n";

static char dir[64], obj_path[96], side_path[96];

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        fuzz_fail("cannot write the scratch files", 0);
}

static void remove_files(void)
{
    unlink(obj_path);
    unlink(side_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz-movers-XXXXXX");
    if (!mkdtemp(dir))
        fuzz_fail("cannot make a scratch directory", 0);
    snprintf(obj_path, sizeof obj_path, "%s/scene.obj", dir);
    snprintf(side_path, sizeof side_path, "%s/movers.txt", dir);
    write_file(obj_path, scene_obj, sizeof scene_obj - 1);
    atexit(remove_files);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_file(side_path, data, size);
    sweep_import_options o = {.up_axis_y = 1, .scale = 1.0, .spawn_prefix = "spawn", .mover_prefix = "mover_",
                              .sides = SWEEP_SIDES_ONE, .movers_path = side_path};
    sweep_level lv;
    char err[1024] = "";
    sweep_status s = sweep_import_scene(obj_path, &o, &lv, NULL, err, sizeof err);
    if (s != SWEEP_OK) {
        if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_NOMEM) || !strstr(err, "movers.txt"))
            fuzz_fail("a refusal without the side file's name", (uint32_t)s);
        return 0;
    }
    fuzz_check_level(&lv);
    sweep_movers *mv = NULL;
    if (sweep_level_build_movers(&lv, &mv) != SWEEP_OK)
        fuzz_fail("an imported level whose movers the core refuses", lv.mover_count);
    sweep_movers_destroy(mv);
    sweep_level_free(&lv);
    return 0;
}
