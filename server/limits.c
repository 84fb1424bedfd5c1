/*
 * limits.c - the per-address counts (limits.h).
 */
#include "server/limits.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/world/alloc.h"

/* --- Per-address counts ----------------------------------------------- */

int sweep__addr_key_of(const struct sockaddr *sa, sweep__addr_key *key)
{
    memset(key, 0, sizeof *key);
    if (sa->sa_family == AF_INET) {
        key->family = 4;
        key->bits = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
        return 0;
    }
    if (sa->sa_family == AF_INET6) {
        const uint8_t *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(b, mapped, sizeof mapped) == 0) {
            key->family = 4;
            key->bits = (uint64_t)b[12] << 24 | (uint64_t)b[13] << 16 | (uint64_t)b[14] << 8 | b[15];
            return 0;
        }
        key->family = 6;
        for (int i = 0; i < 8; i++)
            key->bits = key->bits << 8 | b[i];
        return 0;
    }
    return -1;
}

void sweep__addr_key_text(const sweep__addr_key *key, char *out, size_t outlen)
{
    if (key->family == 4) {
        struct in_addr a = {.s_addr = htonl((uint32_t)key->bits)};
        char t[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &a, t, sizeof t);
        snprintf(out, outlen, "%s", t);
    } else if (key->family == 6) {
        struct in6_addr a;
        memset(&a, 0, sizeof a);
        for (int i = 0; i < 8; i++)
            a.s6_addr[i] = (uint8_t)(key->bits >> (56 - 8 * i));
        char t[INET6_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET6, &a, t, sizeof t);
        snprintf(out, outlen, "%s/64", t);
    } else {
        snprintf(out, outlen, "unknown");
    }
}

void sweep__addr_table_init(sweep__addr_table *t, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->seed = seed;
}

void sweep__addr_table_free(sweep__addr_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = 0;
}

static uint32_t addr_slot(const sweep__addr_table *t, const sweep__addr_key *k)
{
    /* splitmix64's finaliser over the seeded key: a bijection, so the
     * seed decides which keys share low bits. */
    uint64_t x = (k->bits ^ t->seed) + (uint64_t)k->family * 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (uint32_t)x & (t->cap - 1);
}

static int key_equal(const sweep__addr_key *a, const sweep__addr_key *b)
{
    return a->family == b->family && a->bits == b->bits;
}

sweep__addr_count *sweep__addr_find(sweep__addr_table *t, const sweep__addr_key *key)
{
    if (!t->cap)
        return NULL;
    for (uint32_t i = addr_slot(t, key);; i = (i + 1) & (t->cap - 1)) {
        sweep__addr_count *c = &t->slots[i];
        if (!c->key.family)
            return NULL;
        if (key_equal(&c->key, key))
            return c;
    }
}

/* Doubles the table (at most half full after), rehashing every entry. */
static int addr_grow(sweep__addr_table *t)
{
    uint32_t ncap = t->cap ? t->cap * 2 : 64;
    if (ncap < t->cap)
        return -1;
    sweep__addr_count *n = sweep__calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    sweep__addr_count *old = t->slots;
    uint32_t ocap = t->cap;
    t->slots = n;
    t->cap = ncap;
    for (uint32_t i = 0; i < ocap; i++) {
        if (!old[i].key.family)
            continue;
        uint32_t j = addr_slot(t, &old[i].key);
        while (n[j].key.family)
            j = (j + 1) & (ncap - 1);
        n[j] = old[i];
    }
    free(old);
    return 0;
}

sweep__addr_count *sweep__addr_get(sweep__addr_table *t, const sweep__addr_key *key)
{
    sweep__addr_count *c = sweep__addr_find(t, key);
    if (c)
        return c;
    if (((uint64_t)t->count + 1) * 2 > t->cap && addr_grow(t) != 0)
        return NULL;
    uint32_t i = addr_slot(t, key);
    while (t->slots[i].key.family)
        i = (i + 1) & (t->cap - 1);
    c = &t->slots[i];
    memset(c, 0, sizeof *c);
    c->key = *key;
    t->count++;
    return c;
}

void sweep__addr_put(sweep__addr_table *t, sweep__addr_count *c)
{
    if (!c || c->conns || c->handshakes || c->sessions)
        return;
    /* Linear probing: delete by shifting back the entries after it that
     * would no longer be found past the hole. */
    uint32_t mask = t->cap - 1;
    uint32_t hole = (uint32_t)(c - t->slots);
    for (uint32_t j = (hole + 1) & mask; t->slots[j].key.family; j = (j + 1) & mask) {
        uint32_t home = addr_slot(t, &t->slots[j].key);
        /* The entry at j stays if its home lies cyclically in (hole, j]. */
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            t->slots[hole] = t->slots[j];
            hole = j;
        }
    }
    memset(&t->slots[hole], 0, sizeof t->slots[hole]);
    t->count--;
}
