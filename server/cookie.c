/*
 * cookie.c - HMAC-SHA256 challenge cookies for the UDP handshake (see
 * cookie.h for the protocol and why it is stateless).
 */
#include "server/cookie.h"

#include <netinet/in.h>
#include <string.h>
#include <uv.h>

#include "protocol/token.h"

void sweep__hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                        uint8_t out[32])
{
    sweep_hmac_sha256(key, key_len, msg, msg_len, out);
}

int sweep__cookie_key_init(sweep__cookie_key *k, uint64_t period_ns)
{
    k->period_ns = period_ns ? period_ns : SWEEP__COOKIE_PERIOD_NS;
    /* Synchronous: no loop, no callback. */
    return uv_random(NULL, NULL, k->secret, sizeof k->secret, 0, NULL);
}

uint64_t sweep__cookie_bucket(const sweep__cookie_key *k, uint64_t now_ns)
{
    return now_ns / k->period_ns;
}

int sweep__cookie_make(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t bucket,
                       uint8_t out[SWEEP__COOKIE_SIZE])
{
    /* family (1) | port (2, network order) | address (4 or 16) | bucket (8 LE) */
    uint8_t msg[1 + 2 + 16 + 8];
    size_t n = 0;
    if (addr->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
        msg[n++] = 4;
        memcpy(msg + n, &a->sin_port, 2);
        n += 2;
        memcpy(msg + n, &a->sin_addr, 4);
        n += 4;
    } else if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)addr;
        msg[n++] = 6;
        memcpy(msg + n, &a->sin6_port, 2);
        n += 2;
        memcpy(msg + n, &a->sin6_addr, 16);
        n += 16;
    } else {
        return -1;
    }
    for (int i = 0; i < 8; i++)
        msg[n++] = (uint8_t)(bucket >> (8 * i));
    sweep__hmac_sha256(k->secret, sizeof k->secret, msg, n, out);
    return 0;
}

/* Equality of two 32-byte strings without an early exit. */
static int same32(const uint8_t *a, const uint8_t *b)
{
    uint8_t d = 0;
    for (unsigned i = 0; i < SWEEP__COOKIE_SIZE; i++)
        d |= (uint8_t)(a[i] ^ b[i]);
    return d == 0;
}

int sweep__cookie_check(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t now_ns,
                        const uint8_t *cookie, size_t len)
{
    if (!cookie || len != SWEEP__COOKIE_SIZE)
        return 0;
    uint64_t b = sweep__cookie_bucket(k, now_ns);
    uint8_t want[SWEEP__COOKIE_SIZE];
    int ok = 0;
    if (sweep__cookie_make(k, addr, b, want) == 0)
        ok |= same32(want, cookie);
    if (b > 0 && sweep__cookie_make(k, addr, b - 1, want) == 0)
        ok |= same32(want, cookie);
    return ok;
}
