/*
 * sha256.h - SHA-256 (FIPS 180-4), for the map content hash.
 *
 * A plain, portable implementation: the digest depends only on the bytes
 * fed in, never on the host's byte order or word size, so a client and a
 * server on different machines compute the same digest. It is not tuned
 * for speed (a few hundred MB/s), which is ample for hashing a level once
 * at load.
 */
#ifndef SWEEP_CORE_SHA256_H
#define SWEEP_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_SHA256_SIZE 32

typedef struct sweep_sha256 {
    uint32_t state[8];
    uint64_t length;      /* bytes fed so far */
    uint8_t block[64];    /* pending partial block */
    size_t fill;          /* bytes in block */
} sweep_sha256;

void sweep_sha256_init(sweep_sha256 *s);
void sweep_sha256_update(sweep_sha256 *s, const void *data, size_t len);
/* Pads, writes the 32-byte digest and leaves s unusable until re-init. */
void sweep_sha256_final(sweep_sha256 *s, uint8_t out[SWEEP_SHA256_SIZE]);

/* One-shot digest of a buffer. */
void sweep_sha256_digest(const void *data, size_t len, uint8_t out[SWEEP_SHA256_SIZE]);

/* Lower-case hex of a digest, 64 characters and a terminating NUL. */
void sweep_sha256_hex(const uint8_t digest[SWEEP_SHA256_SIZE], char out[2 * SWEEP_SHA256_SIZE + 1]);

#ifdef __cplusplus
}
#endif

#endif
