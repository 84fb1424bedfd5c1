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
 * cookie = HMAC-SHA256(secret, family | port | address | bucket), where the
 * secret is 32 random bytes drawn once per process and bucket = monotonic
 * time / period. The server remembers nothing between the two Hellos; it
 * accepts a cookie of the current or the previous bucket, so a cookie lives
 * between one and two periods. A restart invalidates every cookie.
 */
#ifndef SWEEP_SERVER_COOKIE_H
#define SWEEP_SERVER_COOKIE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SWEEP__COOKIE_SIZE 32u
#define SWEEP__COOKIE_PERIOD_NS (10ull * 1000000000ull)

typedef struct sweep__cookie_key {
    uint8_t secret[32];
    uint64_t period_ns;
} sweep__cookie_key;

/* HMAC-SHA256 (RFC 2104) of msg under key. */
void sweep__hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len,
                        uint8_t out[32]);

/* Draws a random secret. 0 on success, a libuv error otherwise. */
int sweep__cookie_key_init(sweep__cookie_key *k, uint64_t period_ns);

/* The cookie for addr in time bucket `bucket`. 0, or -1 for an address
 * family other than IPv4/IPv6. */
int sweep__cookie_make(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t bucket,
                       uint8_t out[SWEEP__COOKIE_SIZE]);

/* The bucket of a monotonic time in nanoseconds. */
uint64_t sweep__cookie_bucket(const sweep__cookie_key *k, uint64_t now_ns);

/* 1 if cookie[0..len) is addr's cookie for the bucket of now_ns or the one
 * before, 0 otherwise (compared in constant time). */
int sweep__cookie_check(const sweep__cookie_key *k, const struct sockaddr *addr, uint64_t now_ns,
                        const uint8_t *cookie, size_t len);

#endif
