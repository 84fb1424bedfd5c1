/*
 * fuzz_level_image.c - libFuzzer harness over the level image reader
 * (maps/level_image.c): any bytes read as the level image a game ships
 * and libsweep loads to predict on (no SQLite), and a level that comes out
 * built into a world and movers as the SDK builds it.
 *
 * Beyond "no crash, no sanitizer report" it checks, on every input:
 * - a refusal is SWEEP_E_GEOMETRY, SWEEP_E_CONFIG or SWEEP_E_NOMEM with a
 *   message, and leaves an empty level;
 * - a level read is one the map format and the core take
 *   (tests/fuzz/level_invariants.h);
 * - its world and its movers are built, or refused with a message;
 * - players walk it as a game's would (tests/fuzz/level_walk.h).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (maps.mk): `make
 * fuzz-image FUZZ_SECONDS=N`, and a bounded smoke run in `make test`. The
 * seeds are the level images make builds of the sample maps.
 */
#include <stdint.h>
#include <string.h>

#include "maps/level.h"
#include "maps/level_image.h"
#include "maps/loader.h"
#include "tests/fuzz/level_invariants.h"
#include "tests/fuzz/level_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_level lv;
    char err[1024] = "";
    sweep_status s = sweep_level_image_read(data, size, &lv, err, sizeof err);
    if (s != SWEEP_OK) {
        if ((s != SWEEP_E_GEOMETRY && s != SWEEP_E_CONFIG && s != SWEEP_E_NOMEM) || err[0] == '\0')
            fuzz_fail("a refusal without its message", (uint32_t)s);
        fuzz_check_refused_empty(&lv, s);
        sweep_level_free(&lv);
        return 0;
    }
    fuzz_check_level(&lv);
    fuzz_build_and_walk(&lv);
    sweep_level_free(&lv);
    return 0;
}
