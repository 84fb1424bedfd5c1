/*
 * limits.h - the per-session request rate limit (a token bucket of
 * server/world/bucket.h: `rate` requests a second, a MoveBatch one token
 * per move, since the limit is on work and batching saves framing, not
 * core time), and the per-address counts behind the fair share of one
 * client host.
 *
 * The other limits (frame, batch, entities, sessions, write queue) are
 * plain comparisons at the point where they apply; their values live in
 * sweep_server_options.
 */
#ifndef SWEEP_SERVER_LIMITS_H
#define SWEEP_SERVER_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "server/world/bucket.h"

/* Per-address counts. One client host is one "address": an IPv4 address,
 * or an IPv6 /64 (what one host or one home line is routinely given, so
 * that walking through the addresses of a /64 gains an attacker nothing);
 * an IPv4 address mapped into IPv6 counts as that IPv4 address. The table
 * holds an entry only while something of that address is open, so it is
 * bounded by the connections and sessions the server admits. It is an
 * open-addressing table whose hash is keyed with a random seed: which keys
 * collide cannot be chosen from outside. */
typedef struct sweep__addr_key {
    uint64_t bits;   /* the IPv4 address, or the top 64 bits of the IPv6 one */
    uint32_t family; /* 4 or 6; 0 marks a free slot */
} sweep__addr_key;

typedef struct sweep__addr_count {
    sweep__addr_key key;
    uint32_t conns;      /* TCP connections open, in any state until closed */
    uint32_t handshakes; /* of those, open and without a session yet */
    uint32_t sessions;   /* sessions, TCP and UDP */
} sweep__addr_count;

typedef struct sweep__addr_table {
    sweep__addr_count *slots;
    uint32_t cap; /* power of two, or 0 before the first entry */
    uint32_t count;
    uint64_t seed;
} sweep__addr_table;

/* The key of a socket address: 0, or -1 for a family other than IPv4/6. */
int sweep__addr_key_of(const struct sockaddr *sa, sweep__addr_key *key);

/* "203.0.113.7" or "2001:db8:1:2::/64", for messages and logs. */
void sweep__addr_key_text(const sweep__addr_key *key, char *out, size_t outlen);

void sweep__addr_table_init(sweep__addr_table *t, uint64_t seed);
void sweep__addr_table_free(sweep__addr_table *t);

/* The entry of key, or NULL if nothing of it is open. The pointer is valid
 * until the next sweep__addr_get or sweep__addr_put. */
sweep__addr_count *sweep__addr_find(sweep__addr_table *t, const sweep__addr_key *key);

/* The entry of key, created with zero counts if needed; NULL when the
 * table cannot grow (out of memory). */
sweep__addr_count *sweep__addr_get(sweep__addr_table *t, const sweep__addr_key *key);

/* Removes the entry if all its counts are zero (call after decrementing). */
void sweep__addr_put(sweep__addr_table *t, sweep__addr_count *c);

#endif
