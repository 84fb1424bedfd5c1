/*
 * test_rng.h - the tests' random numbers: Marsaglia's xorshift64 (Marsaglia
 * 2003, "Xorshift RNGs"), from a seed each test fixes, so a failing case
 * comes back on every run. Header-only, as every test program is one .c
 * file.
 */
#ifndef SWEEP_TESTS_TEST_RNG_H
#define SWEEP_TESTS_TEST_RNG_H

#include <stdint.h>

/* The next number of the sequence in *state (never 0). */
static inline uint64_t test_rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
