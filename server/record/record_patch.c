/*
 * record_patch.c - the sessions' bases and the patches of requests
 * against them (record_patch.h).
 */
#include "server/record/record_patch.h"

#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"

/* The slot of `session` in a table of cap slots (a power of two): its
 * own, or the free one where it would go. */
static sweep__record_base *slot_for(sweep__record_base *slot, uint32_t cap, uint64_t session)
{
    uint32_t mask = cap - 1u, i = (uint32_t)((session * 0x9e3779b97f4a7c15ull) >> 32) & mask;
    while (slot[i].used && slot[i].session != session)
        i = (i + 1u) & mask;
    return &slot[i];
}

/* Room for one more session: the table kept at most half full. */
static int grow(sweep__record_bases *b)
{
    if (b->cap && 2u * (b->count + 1u) <= b->cap)
        return 0;
    uint32_t ncap = b->cap ? 2u * b->cap : 64u;
    sweep__record_base *n = sweep__calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    for (uint32_t i = 0; i < b->cap; i++)
        if (b->slot[i].used)
            *slot_for(n, ncap, b->slot[i].session) = b->slot[i];
    free(b->slot);
    b->slot = n;
    b->cap = ncap;
    return 0;
}

int sweep__record_base_set(sweep__record_bases *b, uint64_t session, const uint8_t *bytes, uint32_t len)
{
    sweep__record_base *s = b->cap ? slot_for(b->slot, b->cap, session) : NULL;
    if (!s || !s->used) {
        if (grow(b) != 0)
            return -1;
        s = slot_for(b->slot, b->cap, session);
        s->session = session;
        s->used = 1;
        s->len = s->cap = 0;
        s->bytes = NULL;
        b->count++;
    }
    if (len > s->cap) {
        uint8_t *n = sweep__realloc(s->bytes, len);
        if (!n) {
            s->len = 0;
            return -1;
        }
        s->bytes = n;
        s->cap = len;
    }
    memcpy(s->bytes, bytes, len);
    s->len = len;
    return 0;
}

void sweep__record_base_forget(sweep__record_bases *b, uint64_t session)
{
    if (!b->cap)
        return;
    sweep__record_base *s = slot_for(b->slot, b->cap, session);
    if (s->used)
        s->len = 0;
}

void sweep__record_bases_clear(sweep__record_bases *b)
{
    for (uint32_t i = 0; i < b->cap; i++)
        b->slot[i].len = 0;
}

void sweep__record_bases_free(sweep__record_bases *b)
{
    for (uint32_t i = 0; i < b->cap; i++)
        free(b->slot[i].bytes);
    free(b->slot);
    b->slot = NULL;
    b->cap = b->count = 0;
}

/* The first i >= from where a and b differ, or len. Eight bytes at a
 * time: most of a request is its base's. */
static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t from, size_t len)
{
    size_t i = from;
    for (; i + 8 <= len; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            break;
    }
    while (i < len && a[i] == b[i])
        i++;
    return i;
}

size_t sweep__record_patch_make(const uint8_t *base, const uint8_t *now, size_t len, uint8_t *out, size_t max)
{
    size_t n = 0, kept = 0; /* kept: the base's bytes before it are settled */
    for (;;) {
        size_t at = first_difference(base, now, kept, len);
        if (at == len)
            return n;
        /* A run ends where the next two bytes are the base's again: a
         * shorter gap costs no more inside the run than a new run's
         * two bytes of header. */
        size_t end = at + 1;
        while (end < len && end - at < 255u) {
            if (now[end] != base[end]) {
                end++;
                continue;
            }
            if (end + 1 < len && now[end + 1] != base[end + 1] && end + 1 - at < 255u) {
                end += 2;
                continue;
            }
            break;
        }
        if (end - at > 255u)
            end = at + 255u;
        size_t skip = at - kept;
        while (skip > 255u) {
            if (n + 2 > max)
                return SIZE_MAX;
            out[n++] = 255u;
            out[n++] = 0;
            skip -= 255u;
        }
        size_t run = end - at;
        if (n + 2 + run > max)
            return SIZE_MAX;
        out[n++] = (uint8_t)skip;
        out[n++] = (uint8_t)run;
        memcpy(out + n, now + at, run);
        n += run;
        kept = end;
    }
}

int sweep__record_patch_apply(const uint8_t *base, size_t len, const uint8_t *p, size_t plen, uint8_t *out)
{
    memcpy(out, base, len);
    size_t at = 0, pos = 0;
    while (at < plen) {
        if (plen - at < 2)
            return -1;
        size_t skip = p[at], n = p[at + 1];
        at += 2;
        if (plen - at < n || len - pos < skip || len - pos - skip < n)
            return -1;
        pos += skip;
        memcpy(out + pos, p + at, n);
        pos += n;
        at += n;
    }
    return 0;
}
