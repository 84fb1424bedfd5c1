/*
 * record_patch.h - internal: a request kept as its changes from its
 * session's base (record.h's IN_PATCH, version 6), for the writer and
 * the readers alike (never installed).
 *
 * A player's requests are mostly alike: the same FlatBuffers layout and
 * length, the sequences and the claimed position changed, the wish now
 * and then. So a version 6 log keeps, for each session, a base: the bytes
 * of its last whole IN record of at most SWEEP__RECORD_BASE_MAX bytes in
 * this segment. A later request of the base's length may be written as
 * the runs of bytes where it differs (IN_PATCH); any other is written
 * whole, and becomes the base when it is short enough. Writer and readers
 * keep the bases by that one rule, so they always hold the same ones; a
 * segment starts with none, a CLOSE forgets its session's.
 *
 * A patch is a list of runs, each u8 skip (bytes kept from the base), u8 n
 * (bytes that follow), n bytes; the base's bytes past the last run are
 * kept. A skip longer than 255 takes runs of n = 0.
 */
#ifndef SWEEP_SERVER_RECORD_PATCH_H
#define SWEEP_SERVER_RECORD_PATCH_H

#include <stddef.h>
#include <stdint.h>

/* The longest whole request that becomes its session's base: a Move is
 * about 130 bytes, a batch of 8 about 800, of 16 about 1,600. */
#define SWEEP__RECORD_BASE_MAX 2048u

/* One session's base (len 0: none). */
typedef struct sweep__record_base {
    uint64_t session;
    uint32_t len, cap; /* cap: the bytes' room, grown to the longest base */
    uint32_t used;     /* the slot holds a session, with or without a base */
    uint8_t *bytes;
} sweep__record_base;

/* The bases of a log's sessions: an open-addressed table, its slots never
 * emptied (a forgotten base keeps its slot with len 0). */
typedef struct sweep__record_bases {
    sweep__record_base *slot;
    uint32_t cap, count; /* cap: 0 or a power of two */
} sweep__record_bases;

/* The base of `session`, or NULL when it has none. Inline: the writer asks
 * once for every request it records, and a reader for every patch. */
static inline const sweep__record_base *sweep__record_base_of(const sweep__record_bases *b, uint64_t session)
{
    if (!b->cap)
        return NULL;
    uint32_t mask = b->cap - 1u, i = (uint32_t)((session * 0x9e3779b97f4a7c15ull) >> 32) & mask;
    for (;;) {
        const sweep__record_base *s = &b->slot[i];
        if (!s->used)
            return NULL;
        if (s->session == session)
            return s->len ? s : NULL;
        i = (i + 1u) & mask;
    }
}

/* Makes bytes[0..len) (len <= SWEEP__RECORD_BASE_MAX) session's base: 0,
 * or -1 when out of memory (the session then has none). */
int sweep__record_base_set(sweep__record_bases *b, uint64_t session, const uint8_t *bytes, uint32_t len);
/* The session has no base from here on. */
void sweep__record_base_forget(sweep__record_bases *b, uint64_t session);
/* Every session forgets its base, their memory kept for the next. */
void sweep__record_bases_clear(sweep__record_bases *b);
void sweep__record_bases_free(sweep__record_bases *b);

/* The patch that makes now[0..len) of base[0..len) into out, when it is
 * at most `max` bytes: its length; else SIZE_MAX (out then holds a part
 * of it). out holds max bytes. */
size_t sweep__record_patch_make(const uint8_t *base, const uint8_t *now, size_t len, uint8_t *out, size_t max);

/* base[0..len) with the patch p[0..plen) applied, into out (len bytes): 0,
 * or -1 when the patch is not one (a run cut short, or one that reaches
 * past len). */
int sweep__record_patch_apply(const uint8_t *base, size_t len, const uint8_t *p, size_t plen, uint8_t *out);

#endif
