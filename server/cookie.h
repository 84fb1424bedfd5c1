/*
 * cookie.h - the stateless UDP challenge cookie.
 *
 * A UDP client proves it can receive at its source address before the
 * server keeps any state for it or sends it more bytes than it sent:
 *
 *   client Hello (padded to SWEEP_UDP_HELLO_MIN bytes, no cookie)
 *   server Challenge {cookie}            never larger than that Hello
 *   client Hello again, with the cookie
 *   server Welcome                       the address is now verified
 *
 *   cookie = nonce (8 bytes) || HMAC-SHA256(secret, family | port | address
 *            | bucket | nonce), the HMAC cut to its first 24 bytes
 *
 * The secret is 32 random bytes drawn once per process and bucket =
 * monotonic time / period. The nonce is a per-process counter (starting at
 * a random 32-bit value), so no two Challenges carry the same cookie, not
 * even two to the same address and port within one bucket: the cookie
 * names one handshake, and the session it creates stays bound to it
 * (udp.c). That is how the server tells a client whose Welcome was lost
 * (its Hello comes again with the same cookie) from a new socket that got
 * the same address and port (its Hello has a cookie of its own). The
 * counter also orders the cookies: a later Challenge has the larger nonce.
 *
 * The server remembers nothing between the two Hellos but the counter; it
 * accepts a cookie of the current or the previous bucket, so a cookie lives
 * between one and two periods. A restart invalidates every cookie.
 */
#ifndef SWEEP_SERVER_COOKIE_H
#define SWEEP_SERVER_COOKIE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SWEEP__COOKIE_SIZE 32u
#define SWEEP__COOKIE_NONCE 8u /* bytes of nonce in front; the rest is the MAC */
#define SWEEP__COOKIE_PERIOD_NS (10ull * 1000000000ull)

typedef struct sweep__cookie_key {
    uint8_t secret[32];
    uint64_t period_ns;
    uint64_t next_nonce; /* the nonce of the next cookie made */
} sweep__cookie_key;

/* HMAC-SHA256 (RFC 2104) of msg under key. */
void sweep__hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                        uint8_t out[32]);

/* Draws a random secret and the counter's start. 0 on success, a libuv
 * error otherwise. */
int sweep__cookie_key_init(sweep__cookie_key *k, uint64_t period_ns);

/* A new cookie for addr in time bucket `bucket`, with the next nonce: each
 * call gives another cookie. 0, or -1 for an address family other than
 * IPv4/IPv6. */
int sweep__cookie_make(sweep__cookie_key *k, const struct sockaddr *addr, uint64_t bucket,
                       uint8_t out[SWEEP__COOKIE_SIZE]);

/* The bucket of a monotonic time in nanoseconds. */
uint64_t sweep__cookie_bucket(const sweep__cookie_key *k, uint64_t now_ns);

/* 1 if cookie[0..len) is a cookie made for addr in the bucket of now_ns or
 * the one before, 0 otherwise (the MAC compared in constant time). */
int sweep__cookie_check(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t now_ns,
                        const uint8_t *cookie, size_t len);

/* The nonce of a cookie: of two cookies from one process, the one made
 * later has the larger nonce. */
uint64_t sweep__cookie_nonce(const uint8_t cookie[SWEEP__COOKIE_SIZE]);

/* 1 if a and b are the same cookie, compared in constant time. */
int sweep__cookie_equal(const uint8_t a[SWEEP__COOKIE_SIZE], const uint8_t b[SWEEP__COOKIE_SIZE]);

#endif
