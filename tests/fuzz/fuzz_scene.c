/*
 * fuzz_scene.c - libFuzzer harness over the scene importer
 * (sweep-import, maps/import_scene.c) on Wavefront OBJ text: what sweep's
 * code makes of the scene libassimp reads from it (node names become
 * spawn points, movers and volumes, meshes are sorted open and closed and
 * made one- or two-sided, materials numbered), then the level check, the
 * world built and players walked.
 *
 * Byte 0 picks the options (which prefixes are on, the sides rule, y or z
 * up, the scale, whether coplanar faces are merged); the rest is the .obj
 * file. The seeds in tests/fuzz/corpus/scene/ are small scenes with a
 * spawn, a mover, push and kill volumes, an open sheet, a closed box and
 * a floor cut into squares of two materials; tests/fuzz/obj.dict
 * holds the format's words and sweep's name prefixes.
 *
 * Beyond "no crash, no sanitizer report, no leak" it checks, on every
 * input:
 * - a refusal is SWEEP_E_GEOMETRY or SWEEP_E_NOMEM with a
 *   message, and leaves an empty level;
 * - an imported level is one the map format and the core take
 *   (tests/fuzz/level_invariants.h), the level check judges it or says why
 *   not, and players walk it (tests/fuzz/level_walk.h).
 * libassimp itself is not instrumented: a crash inside it is reported as
 * any other, with its stack.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-scene FUZZ_SECONDS=N`, and a bounded smoke run in `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps/import.h"
#include "maps/level.h"
#include "tests/fuzz/level_invariants.h"
#include "tests/fuzz/level_walk.h"

static char dir[64], obj_path[96];

/* LeakSanitizer's hook: libassimp 5.2 keeps what it had built of an OBJ
 * scene it then refuses ("vertex index out of range"), about 1.8 KB a
 * file; sweep-import runs once a file, so that is assimp's to mend. Its
 * blocks come from C++'s operator new (the stack ends there, assimp has
 * no frame pointers), which sweep's C never calls: leaks of sweep's own
 * allocations are still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libstdc++.so\n";
}

/* And the list of what was suppressed, after every such run, left out. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

static void remove_files(void)
{
    unlink(obj_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz-scene-XXXXXX");
    if (!mkdtemp(dir))
        fuzz_fail("cannot make a scratch directory", 0);
    snprintf(obj_path, sizeof obj_path, "%s/scene.obj", dir);
    atexit(remove_files);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t how = data[0];
    FILE *f = fopen(obj_path, "wb");
    if (!f || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f) != 0)
        fuzz_fail("cannot write the scene", 0);
    static const double scales[4] = {1.0, 32.0, 0.01, 1e6};
    sweep_import_options o = {
        .up_axis_y = how & 1,
        .scale = scales[(how >> 1) & 3],
        .spawn_prefix = how & 8 ? "spawn" : NULL,
        .mover_prefix = how & 16 ? "mover_" : NULL,
        .volume_prefix = how & 32 ? "sweep_volume_" : NULL,
        .sides = (sweep_import_sides)((how >> 6) % 3),
        .no_merge_faces = (how >> 6) == 3,
    };
    sweep_level lv;
    char err[1024] = "";
    sweep_status s = sweep_import_scene(obj_path, &o, &lv, NULL, err, sizeof err);
    if (s != SWEEP_OK) {
        if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_NOMEM) || err[0] == '\0')
            fuzz_fail("a refusal without its status or message", (uint32_t)s);
        fuzz_check_refused_empty(&lv, s);
        sweep_level_free(&lv);
        return 0;
    }
    fuzz_check_level(&lv);
    fuzz_level_check(&lv);
    fuzz_build_and_walk(&lv);
    sweep_level_free(&lv);
    return 0;
}
