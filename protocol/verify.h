/*
 * verify.h - proves that untrusted bytes are a well-formed sweep Message
 * before anything reads them.
 *
 * Checks, against sweep.fbs: the size prefix (if any) equals the bytes
 * given; the file identifier; every offset is nonzero, forward and inside
 * the buffer; every table's vtable is inside the buffer, 2-aligned, of even
 * size >= 4; every table's inline part and every present field lies inside
 * the buffer and inside the table's declared size; every scalar, struct,
 * offset, string and vector is aligned to its size, counted from the start
 * of the bytes given (so for a size-prefixed buffer the prefix counts, as
 * in the official runtime); strings fit and end with NUL; vector counts
 * fit; union types are known and come with a value; required fields are
 * present; depth and table count stay under limits.
 *
 * Stricter than the official C++ Verifier (flatbuffers 2.0) on purpose, in
 * these places: unknown union types are refused (the official one accepts
 * them for forward compatibility; a server cannot act on a message it does
 * not know); a union value with type NONE, or without its type, is
 * refused; fields must lie inside their table's declared inline size;
 * vtables must hold at least their two header entries and tables at least
 * their soffset; elements of a vector of structs must be aligned to the
 * struct's alignment (official builders always do both). Every buffer the
 * tests build with the official Python runtime passes both.
 *
 * Our schema nests at most three tables (Message > MoveBatch > Move) and
 * has no recursive type, so the depth limit can only bite below 3; the
 * table limit bounds the work a buffer whose offsets all point at one
 * shared subtable can cause (work stays linear in the buffer's size).
 *
 * No allocation, no recursion deeper than the depth limit, and every byte
 * is visited a bounded number of times (the table limit bounds shared
 * subtables).
 */
#ifndef SWEEP_PROTOCOL_VERIFY_H
#define SWEEP_PROTOCOL_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags for sweep_verify, sweep_decode and sweep_encode. */
enum {
    SWEEP_WIRE_SIZE_PREFIXED = 1u << 0 /* buffer starts with a u32 LE size (TCP frames) */
};

/* Our schema nests three tables deep (Message, MoveBatch, Move); these are
 * the defaults, the official runtime's depth and a table count far above any
 * real message but low enough to bound the work a hostile buffer can cause. */
#define SWEEP_VERIFY_MAX_DEPTH 64u
#define SWEEP_VERIFY_MAX_TABLES 100000u

typedef struct sweep_verify_limits {
    uint32_t max_depth;  /* 0 = SWEEP_VERIFY_MAX_DEPTH */
    uint32_t max_tables; /* 0 = SWEEP_VERIFY_MAX_TABLES */
} sweep_verify_limits;

/* SWEEP_PROTO_OK if buf[0..len) is a valid Message under the default limits,
 * else the class of the first defect found. */
sweep_proto_error sweep_verify(const void *buf, size_t len, unsigned flags);

/* The same with explicit limits (NULL = defaults). */
sweep_proto_error sweep_verify_with(const void *buf, size_t len, unsigned flags,
                                    const sweep_verify_limits *limits);

#ifdef __cplusplus
}
#endif

#endif
