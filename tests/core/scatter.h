/*
 * scatter.h - test helper: boxes strewn over a square, from a seed, the
 * same numbers on every platform (a 64-bit linear congruential step, no
 * libm), for the tests that check the core's volume tests against a look
 * at every volume.
 */
#ifndef SWEEP_TESTS_CORE_SCATTER_H
#define SWEEP_TESTS_CORE_SCATTER_H

#include <stdint.h>

/* The next box of the seed *x: its centre (*cx, *cy) in [-half, half]
 * squared, *cz in [z0, z1], and a half-size *r in [0.5, 3.5]. */
static inline void scatter_next(uint64_t *x, double half, double z0, double z1, double *cx, double *cy, double *cz,
                                double *r)
{
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    *cx = (double)(*x >> 40 & 1023) / 1023.0 * 2.0 * half - half;
    *cy = (double)(*x >> 20 & 1023) / 1023.0 * 2.0 * half - half;
    *cz = z0 + (double)(*x >> 10 & 1023) / 1023.0 * (z1 - z0);
    *r = 0.5 + (double)(*x >> 54) / 1023.0 * 3.0;
}

#endif
