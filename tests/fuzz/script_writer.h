/*
 * script_writer.h - writing the fuzz scripts tests/fuzz/world_script.h
 * reads (fuzz_world.c's and fuzz_predict.c's), for the programs that make
 * their seeds.
 */
#ifndef SWEEP_TESTS_FUZZ_SCRIPT_WRITER_H
#define SWEEP_TESTS_FUZZ_SCRIPT_WRITER_H

#include <stdint.h>
#include <stdio.h>

#include "tests/fuzz/world_script.h"

typedef struct script {
    uint8_t b[4096];
    size_t n;
} script;

static inline void put(script *s, uint8_t v)
{
    if (s->n < sizeof s->b)
        s->b[s->n++] = v;
}

/* A number in sixteenths (mode WS_FINE). */
static inline void num(script *s, double v)
{
    int16_t i = (int16_t)(v * 16.0);
    put(s, WS_FINE);
    put(s, (uint8_t)(i & 0xFF));
    put(s, (uint8_t)((uint16_t)i >> 8));
}

static inline void vec(script *s, double x, double y, double z)
{
    num(s, x);
    num(s, y);
    num(s, z);
}

/* Writes the script as DIR/NAME: 1, or 0 (said on stderr). */
static inline int save(const char *dir, const char *name, const script *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(s->b, 1, s->n, f) == s->n;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        perror(path);
    return ok;
}

#endif
