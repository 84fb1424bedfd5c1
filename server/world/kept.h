/*
 * kept.h - internal: the answers an entity keeps for resent moves.
 *
 * A client that lost an answer sends its move again (a MoveBatch of the
 * last moves still unanswered, client-sdk/README.md); the world applies a
 * move once and answers a resent one with the result it kept. An entity
 * keeps its last SWEEP__KEPT_RESULTS results, or as many of the last as
 * fit in SWEEP__KEPT_BYTES when they are large: at least
 * SWEEP__KEPT_LEAST, each with every field and SWEEP_MAX_CONTACTS
 * contacts; all 32 of answers with at most one contact, 30 with two, 24
 * with three.
 *
 * A result is a 776-byte struct, most of it room for contacts a move
 * does not use and fields a player's answer almost never has; kept whole,
 * 32 of them took some 25 KB an entity, the most of what a session costs
 * sweepd, and each move wrote about five cache lines of a slot last
 * written 32 moves before. So a result is kept as a record of what it
 * has: the struct's bytes up to its contacts, the contacts it uses, and
 * either its fields after them whole or, when none of the rare ones is
 * set, only the eight a walk's answer uses. A record read back is the
 * result that was kept, every field and every byte the wire encoder reads
 * (tests/world/test_kept.c).
 *
 * Records are laid one after another in a ring of bytes and never cut at
 * its end: one that does not fit before the end starts again at 0. The
 * oldest records give way to a new one. Host order, never written out.
 */
#ifndef SWEEP_SERVER_WORLD_KEPT_H
#define SWEEP_SERVER_WORLD_KEPT_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/message.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most results an entity keeps, and the bytes they may take. */
#define SWEEP__KEPT_RESULTS 32u
#define SWEEP__KEPT_BYTES 8192u
/* The fewest kept whatever the results (tests/world/test_kept.c). */
#define SWEEP__KEPT_LEAST 9u

typedef struct sweep__kept {
    uint32_t count; /* records kept, at most SWEEP__KEPT_RESULTS */
    uint32_t first; /* the oldest's entry in at[] */
    uint32_t end;   /* where the newest record ends in bytes[] */
    struct {
        uint32_t sequence;
        uint16_t offset, length;
    } at[SWEEP__KEPT_RESULTS];
    uint8_t bytes[SWEEP__KEPT_BYTES];
} sweep__kept;

/* A ring with nothing kept. */
void sweep__kept_init(sweep__kept *k);

/* Keeps r, the newest; the oldest give way as they must. */
void sweep__kept_put(sweep__kept *k, const sweep_msg_move_result *r);

/* 1 and *out the result kept for Move.sequence `sequence`, 0 if none is
 * (*out untouched). */
int sweep__kept_get(const sweep__kept *k, uint32_t sequence, sweep_msg_move_result *out);

/* Asks for the bytes the next record will be written to, for writing. */
void sweep__kept_prefetch(const sweep__kept *k);

/* A result cleared as the world's moves clear it: every byte but those of
 * its contacts, which only contact_count of are read. */
void sweep__result_clear(sweep_msg_move_result *r);

#ifdef __cplusplus
}
#endif

#endif
