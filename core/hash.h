/*
 * hash.h - a 64-bit hash over exact bit patterns, for proving replays equal.
 *
 * The state hash is FNV-1a (64-bit) over the little-endian bytes of each
 * value, whatever the host byte order: a double contributes its 8 IEEE-754
 * bytes, so -0.0 and 0.0, or two NaN payloads, hash differently. Two runs
 * that hash equal agree bit for bit in everything hashed. It is a check of
 * equality, not a cryptographic digest.
 */
#ifndef SWEEP_CORE_HASH_H
#define SWEEP_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif
#define SWEEP_HASH_INIT UINT64_C(0xcbf29ce484222325)

uint64_t sweep_hash_bytes(uint64_t h, const void *data, size_t len);
uint64_t sweep_hash_u32(uint64_t h, uint32_t v);
uint64_t sweep_hash_u64(uint64_t h, uint64_t v);
uint64_t sweep_hash_double(uint64_t h, double v);
uint64_t sweep_hash_vec3(uint64_t h, sweep_vec3 v);

/* Hash of one body's state: position, velocity and grounded flag, in that order. */
uint64_t sweep_hash_body(uint64_t h, sweep_vec3 position, sweep_vec3 velocity, uint32_t grounded);

#ifdef __cplusplus
}
#endif

#endif
