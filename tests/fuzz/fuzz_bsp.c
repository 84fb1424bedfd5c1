/*
 * fuzz_bsp.c - libFuzzer harness over the Quake 3 BSP importer
 * (maps/import_bsp.c) and the level check (maps/level_check.c): any bytes
 * imported as a .bsp someone hands sweep-import, and a level that comes
 * out checked as every import checks it.
 *
 * Beyond "no crash, no sanitizer report" it checks, on every input:
 * - a refusal is SWEEP_E_GEOMETRY (or SWEEP_E_NOMEM) with a message that
 *   names the file;
 * - an imported level is one the map format and the core take
 *   (tests/fuzz/level_invariants.h);
 * - the level check runs on it to the end (SWEEP_OK, or a refusal with a
 *   message);
 * - its world and movers, when built, are walked by players as a game's
 *   would (tests/fuzz/level_walk.h).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-bsp FUZZ_SECONDS=N`, and a bounded smoke run in `make test`. The
 * seeds are written by tests/fuzz/make_bsp_seeds.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/import_bsp.h"
#include "maps/level.h"
#include "maps/loader.h"
#include "tests/fuzz/level_invariants.h"
#include "tests/fuzz/level_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_level lv;
    sweep_bsp_stats st;
    char err[1024];
    sweep_status s = sweep_import_bsp_memory(data, size, "fuzz.bsp", NULL, &lv, &st, err, sizeof err);
    if (s != SWEEP_OK) {
        if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_NOMEM) || !strstr(err, "fuzz.bsp"))
            fuzz_fail("a refusal without its file's name", (uint32_t)s);
        return 0;
    }
    fuzz_check_level(&lv);
    fuzz_level_check(&lv);
    fuzz_build_and_walk(&lv);
    sweep_level_free(&lv);
    return 0;
}
