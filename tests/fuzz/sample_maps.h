/*
 * sample_maps.h - where a fuzz harness finds the sample maps make builds:
 * $SWEEP_BUILD_DIR/maps if set, else two levels above the harness
 * ($(BUILD)/tests/fuzz/ -> $(BUILD)/maps).
 */
#ifndef SWEEP_TESTS_FUZZ_SAMPLE_MAPS_H
#define SWEEP_TESTS_FUZZ_SAMPLE_MAPS_H

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
