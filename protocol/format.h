/*
 * format.h - internal: the FlatBuffers binary format's constants and the
 * little-endian scalar access every file of the codec shares.
 *
 * A FlatBuffer is little-endian whatever the host. Reading through memcpy
 * (instead of casting pointers) keeps the codec correct on buffers that sit
 * at any address: a datagram or a stream buffer gives no alignment
 * guarantee in memory, only positions counted from the buffer start, which
 * the verifier checks. Nothing here is public API (sweep__ prefix).
 */
#ifndef SWEEP_PROTOCOL_FORMAT_H
#define SWEEP_PROTOCOL_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/vec3.h"

/* Sizes of the format's offset types: uoffset (u32, forward, from the field
 * to its target), soffset (i32, table minus vtable), voffset (u16, vtable
 * entries). */
#define SWEEP__UOFFSET 4u
#define SWEEP__SOFFSET 4u
#define SWEEP__VOFFSET 2u
/* Offsets are signed in the format's eyes: no buffer beyond 2 GiB - 1. */
#define SWEEP__MAX_BUFFER 0x7fffffffu

/* On a little-endian host the wire's bytes are the value's bytes: one
 * unaligned load or store through memcpy, which compilers make a single
 * mov (byte assembly was not always folded: several loads and shifts per
 * field, on every field of every message). Elsewhere, byte by byte. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWEEP__LE_HOST 1
#else
#define SWEEP__LE_HOST 0
#endif

static inline uint16_t sweep__rd16(const uint8_t *p)
{
#if SWEEP__LE_HOST
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
#endif
}

static inline uint32_t sweep__rd32(const uint8_t *p)
{
#if SWEEP__LE_HOST
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t sweep__rd64(const uint8_t *p)
{
#if SWEEP__LE_HOST
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint64_t)sweep__rd32(p) | (uint64_t)sweep__rd32(p + 4) << 32;
#endif
}

static inline double sweep__rdf64(const uint8_t *p)
{
    uint64_t u = sweep__rd64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline sweep_vec3 sweep__rdvec3(const uint8_t *p)
{
    return sweep_v3(sweep__rdf64(p), sweep__rdf64(p + 8), sweep__rdf64(p + 16));
}

static inline void sweep__wr16(uint8_t *p, uint16_t v)
{
#if SWEEP__LE_HOST
    memcpy(p, &v, sizeof v);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void sweep__wr32(uint8_t *p, uint32_t v)
{
#if SWEEP__LE_HOST
    memcpy(p, &v, sizeof v);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void sweep__wr64(uint8_t *p, uint64_t v)
{
#if SWEEP__LE_HOST
    memcpy(p, &v, sizeof v);
#else
    sweep__wr32(p, (uint32_t)v);
    sweep__wr32(p + 4, (uint32_t)(v >> 32));
#endif
}

static inline void sweep__wrf64(uint8_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    sweep__wr64(p, u);
}

static inline void sweep__wrvec3(uint8_t *p, sweep_vec3 v)
{
    sweep__wrf64(p, v.x);
    sweep__wrf64(p + 8, v.y);
    sweep__wrf64(p + 16, v.z);
}

#endif
