/*
 * median.h - the median of a benchmark's rounds (sorts them in place), for
 * the benchmarks that report medians of a few rounds. Header-only: each
 * benchmark is one program.
 */
#ifndef SWEEP_TESTS_BENCH_MEDIAN_H
#define SWEEP_TESTS_BENCH_MEDIAN_H

#include <stdlib.h>

static int sweep_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n), n >= 1; v comes back sorted. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, sweep_bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
