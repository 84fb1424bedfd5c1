/*
 * utf8.h - whether bytes are UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), for the texts a client names that
 * sweepd writes where UTF-8 is required: a world's name in the metrics'
 * labels, which Prometheus refuses whole when one value is not.
 */
#ifndef SWEEP_SERVER_UTF8_H
#define SWEEP_SERVER_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length of the UTF-8 sequence that p[0 .. n) starts with (1 to 4),
 * or 0 when it starts with none (n >= 1). */
static inline size_t sweep__utf8_next(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    /* The second byte's range where the first allows overlongs,
     * surrogates or code points past U+10FFFF. */
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] > 0x8F))
        return 0;
    return len;
}

/* 1 if p[0 .. n) is UTF-8 throughout. */
static inline int sweep__utf8_valid(const uint8_t *p, size_t n)
{
    for (size_t at = 0, len; at < n; at += len)
        if ((len = sweep__utf8_next(p + at, n - at)) == 0)
            return 0;
    return 1;
}

#endif
