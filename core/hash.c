/*
 * hash.c - FNV-1a over explicit little-endian bytes (see hash.h).
 */
#include "core/hash.h"

#include <string.h>

#define FNV_PRIME UINT64_C(0x100000001b3)

uint64_t sweep_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t sweep_hash_u64(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t sweep_hash_u32(uint64_t h, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t sweep_hash_double(uint64_t h, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return sweep_hash_u64(h, bits);
}

uint64_t sweep_hash_vec3(uint64_t h, sweep_vec3 v)
{
    h = sweep_hash_double(h, v.x);
    h = sweep_hash_double(h, v.y);
    return sweep_hash_double(h, v.z);
}

uint64_t sweep_hash_body(uint64_t h, sweep_vec3 position, sweep_vec3 velocity, uint32_t grounded)
{
    h = sweep_hash_vec3(h, position);
    h = sweep_hash_vec3(h, velocity);
    return sweep_hash_u32(h, grounded);
}
