/*
 * grow.h - the importers' growable arrays: room for `need` elements of
 * `size` bytes in *arr, doubling from 64. Internal to maps/.
 */
#ifndef SWEEP_MAPS_GROW_H
#define SWEEP_MAPS_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* 1 with *arr holding at least need elements (*cap says how many); 0 when
 * memory runs out or need passes a quarter of the 32-bit range, which no
 * level comes near and a capacity that doubles could not count. */
static inline int sweep__grow(void **arr, uint32_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    if (need > UINT32_MAX / 4)
        return 0;
    uint64_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, (size_t)n * size);
    if (!p)
        return 0;
    *arr = p;
    *cap = (uint32_t)n;
    return 1;
}

#endif
