/*
 * cookie.c - HMAC-SHA256 challenge cookies for the UDP handshake (see
 * cookie.h for the protocol, why it is stateless and why each cookie
 * carries a nonce).
 */
#include "server/cookie.h"

#include <netinet/in.h>
#include <string.h>
#include <uv.h>

#include "protocol/token.h"

#define MAC_SIZE (SWEEP__COOKIE_SIZE - SWEEP__COOKIE_NONCE)

void sweep__hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                        uint8_t out[32])
{
    sweep_hmac_sha256(key, key_len, msg, msg_len, out);
}

int sweep__cookie_key_init(sweep__cookie_key *k, uint64_t period_ns)
{
    k->period_ns = period_ns ? period_ns : SWEEP__COOKIE_PERIOD_NS;
    uint32_t start = 0;
    /* Synchronous: no loop, no callback. */
    int r = uv_random(NULL, NULL, k->secret, sizeof k->secret, 0, NULL);
    if (r == 0)
        r = uv_random(NULL, NULL, &start, sizeof start, 0, NULL);
    /* A random start, so a cookie's nonce does not say how long this process
     * has been handing out challenges; 32 bits, so the counter never wraps
     * and later cookies always have larger nonces. */
    k->next_nonce = start;
    return r;
}

uint64_t sweep__cookie_bucket(const sweep__cookie_key *k, uint64_t now_ns)
{
    return now_ns / k->period_ns;
}

/* The MAC of (addr, bucket, nonce bytes); -1 for an unknown family. */
static int cookie_mac(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t bucket,
                      const uint8_t nonce[SWEEP__COOKIE_NONCE], uint8_t out[MAC_SIZE])
{
    /* family (1) | port (2, network order) | address (4 or 16) | bucket (8 LE) | nonce (8) */
    uint8_t msg[1 + 2 + 16 + 8 + SWEEP__COOKIE_NONCE];
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
    memcpy(msg + n, nonce, SWEEP__COOKIE_NONCE);
    n += SWEEP__COOKIE_NONCE;
    uint8_t mac[32];
    sweep__hmac_sha256(k->secret, sizeof k->secret, msg, n, mac);
    memcpy(out, mac, MAC_SIZE);
    return 0;
}

int sweep__cookie_make(sweep__cookie_key *k, const struct sockaddr *addr, uint64_t bucket,
                       uint8_t out[SWEEP__COOKIE_SIZE])
{
    if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
        return -1;
    /* Atomic: the threads of one sweepd share the key (threads.c), and
     * two cookies must never share a nonce. */
    uint64_t nonce = __atomic_fetch_add(&k->next_nonce, 1, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < SWEEP__COOKIE_NONCE; i++) /* big-endian */
        out[i] = (uint8_t)(nonce >> (8 * (SWEEP__COOKIE_NONCE - 1 - i)));
    return cookie_mac(k, addr, bucket, out, out + SWEEP__COOKIE_NONCE);
}

uint64_t sweep__cookie_nonce(const uint8_t cookie[SWEEP__COOKIE_SIZE])
{
    uint64_t n = 0;
    for (unsigned i = 0; i < SWEEP__COOKIE_NONCE; i++)
        n = n << 8 | cookie[i];
    return n;
}

/* Equality of n bytes without an early exit. */
static int same(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (uint8_t)(a[i] ^ b[i]);
    return d == 0;
}

int sweep__cookie_equal(const uint8_t a[SWEEP__COOKIE_SIZE], const uint8_t b[SWEEP__COOKIE_SIZE])
{
    return same(a, b, SWEEP__COOKIE_SIZE);
}

int sweep__cookie_check(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t now_ns,
                        const uint8_t *cookie, size_t len)
{
    if (!cookie || len != SWEEP__COOKIE_SIZE)
        return 0;
    uint64_t b = sweep__cookie_bucket(k, now_ns);
    uint8_t want[MAC_SIZE];
    const uint8_t *mac = cookie + SWEEP__COOKIE_NONCE;
    int ok = 0;
    if (cookie_mac(k, addr, b, cookie, want) == 0)
        ok |= same(want, mac, MAC_SIZE);
    if (b > 0 && cookie_mac(k, addr, b - 1, cookie, want) == 0)
        ok |= same(want, mac, MAC_SIZE);
    return ok;
}
