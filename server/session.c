/*
 * session.c - sessions and the entities they own.
 *
 * A session is what a Welcome creates: one client, one world, and what the
 * world library keeps of it (its owner: role, entities, rule counts),
 * its rate bucket. TCP sessions live as long as their connection; UDP
 * sessions are found by source address (a small chained hash table) and
 * end on Bye, after --udp-idle-timeout seconds of silence, or at shutdown.
 * Destroying a session releases its owner, which despawns everything it
 * owns (server/world/owner.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "server/world/alloc.h"
#include "server/server_impl.h"

void sweep__addr_text(const struct sockaddr *addr, char *out, size_t outlen)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (addr->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)addr;
        uv_ip4_name(a, ip, sizeof ip);
        port = ntohs(a->sin_port);
        snprintf(out, outlen, "%s:%d", ip, port);
    } else if (addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)addr;
        uv_ip6_name(a, ip, sizeof ip);
        port = ntohs(a->sin6_port);
        snprintf(out, outlen, "[%s]:%d", ip, port);
    } else {
        snprintf(out, outlen, "unknown");
    }
}

/* Hash and equality of a UDP source address (family, address, port). */
static inline uint32_t addr_hash(const struct sockaddr *a)
{
    uint32_t h = 2166136261u;
    uint16_t port;
    if (a->sa_family == AF_INET) {
        /* Every datagram's address is hashed: its four bytes are a fixed
         * count, unrolled, not a loop of a count known only at run time. */
        const uint8_t *p = (const uint8_t *)&((const struct sockaddr_in *)a)->sin_addr;
        port = ((const struct sockaddr_in *)a)->sin_port;
        h = (h ^ p[0]) * 16777619u;
        h = (h ^ p[1]) * 16777619u;
        h = (h ^ p[2]) * 16777619u;
        h = (h ^ p[3]) * 16777619u;
    } else {
        const uint8_t *p = (const uint8_t *)&((const struct sockaddr_in6 *)a)->sin6_addr;
        port = ((const struct sockaddr_in6 *)a)->sin6_port;
        for (size_t i = 0; i < 16; i++)
            h = (h ^ p[i]) * 16777619u;
    }
    h = (h ^ (port & 0xff)) * 16777619u;
    h = (h ^ (port >> 8)) * 16777619u;
    return h;
}

uint32_t sweep__sockaddr_hash(const struct sockaddr *a)
{
    return addr_hash(a);
}

/* A UDP source address's bucket among the server's: their count is a
 * power of two (server.c), so a mask takes the place of a division. */
static inline uint32_t addr_bucket(const sweep_server *s, const struct sockaddr *a)
{
    return addr_hash(a) & (s->addr_bucket_count - 1);
}

int sweep__sockaddr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family)
        return 0;
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->sa_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
        return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
    }
    return 0;
}

sweep__session *sweep__udp_session_find(sweep_server *s, const struct sockaddr *addr)
{
    if (!s->addr_buckets || (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
        return NULL;
    sweep__session *ss = s->addr_buckets[addr_bucket(s, addr)];
    while (ss && !sweep__sockaddr_equal((const struct sockaddr *)&ss->addr, addr))
        ss = ss->addr_next;
    return ss;
}

void sweep__udp_session_bind(sweep__session *ss, const struct sockaddr *addr, int direct)
{
    sweep_server *s = ss->server;
    size_t len = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memcpy(&ss->addr, addr, len);
    ss->udp_direct = direct;
    sweep__addr_text(addr, ss->peer, sizeof ss->peer);
    uint32_t b = addr_bucket(s, addr);
    ss->addr_next = s->addr_buckets[b];
    s->addr_buckets[b] = ss;
    sweep__addr_sessions(s, addr, +1);
    sweep__route_add(s, addr);
}

static void udp_unbind(sweep__session *ss)
{
    sweep_server *s = ss->server;
    sweep__addr_sessions(s, (const struct sockaddr *)&ss->addr, -1);
    sweep__route_remove(s, (const struct sockaddr *)&ss->addr);
    uint32_t b = addr_bucket(s, (const struct sockaddr *)&ss->addr);
    for (sweep__session **pp = &s->addr_buckets[b]; *pp; pp = &(*pp)->addr_next) {
        if (*pp == ss) {
            *pp = ss->addr_next;
            return;
        }
    }
}

/* A UDP session's key: 64 random bits, never 0 (0 is a datagram without
 * one). Only the session's client ever sees it, in its Welcome; guessing
 * it takes some 2^63 datagrams. -1 if the kernel gives no randomness. */
static int udp_key_make(uint64_t *key)
{
    for (;;) {
        ssize_t n = getrandom(key, sizeof *key, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof *key)
            return -1;
        if (*key != 0)
            return 0;
    }
}

sweep__session *sweep__session_create(sweep_server *s, sweep__served *w, sweep__transport t)
{
    sweep__session *ss = sweep__calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    if (t == SWEEP__UDP && udp_key_make(&ss->udp_key) != 0) {
        free(ss);
        return NULL;
    }
    ss->id = __atomic_add_fetch(&s->group->next_session_id, 1, __ATOMIC_RELAXED);
    ss->server = s;
    ss->world = w;
    w->session_count++;
    ss->transport = t;
    uint64_t now = uv_hrtime();
    ss->last_seen_ns = now;
    ss->opened_ns = now;
    sweep__session_own(ss, SWEEP_WIRE_ROLE_PLAYER, "", 0); /* the Welcome owns it for its role */
    ss->next = s->sessions;
    if (s->sessions)
        s->sessions->prev = ss;
    s->sessions = ss;
    s->session_count++;
    s->sessions_by_transport[t == SWEEP__UDP]++;
    s->stats.sessions_total++;
    return ss;
}

void sweep__session_own(sweep__session *ss, uint32_t role, const char *identity, uint32_t max_batch)
{
    uint64_t now = uv_hrtime();
    sweep__owner_init(&ss->own, ss->world->world, ss->id, role, ss->transport == SWEEP__UDP, max_batch, identity,
                      strlen(identity), now);
    /* A game server relays thousands of players' moves: its role has a
     * rate of its own, as it has a cap of its own. */
    sweep__bucket_init(&ss->bucket,
                       role == SWEEP_WIRE_ROLE_SERVER ? ss->server->opt.rate_limit_server : ss->server->opt.rate_limit,
                       now);
}

/* Its entry in the Agones List of players: the identity its token proved,
 * or the session for a guest, whose "#guest" every guest shares (a
 * token's identity never starts with '#', protocol/token.h). */
static void player_value(const sweep__session *ss, char *out, size_t cap)
{
    if (ss->own.identity[0] && ss->own.identity[0] != '#')
        snprintf(out, cap, "%s", ss->own.identity);
    else
        snprintf(out, cap, "session-%llu", (unsigned long long)ss->id);
}

void sweep__session_welcomed(sweep__session *ss)
{
    sweep__agones *a = ss->server->group->agones;
    if (!a || ss->own.role == SWEEP_WIRE_ROLE_SERVER)
        return;
    char v[SWEEP_TOKEN_IDENTITY_MAX + 32];
    player_value(ss, v, sizeof v);
    sweep__agones_player(a, v, +1);
    ss->agones_listed = 1;
}

void sweep__entity_mem_count(sweep_server *s, int delta)
{
    ptrdiff_t bytes = (ptrdiff_t)delta * (ptrdiff_t)SWEEP__ENTITY_BYTES;
    s->entity_mem += (size_t)bytes;
    __atomic_add_fetch(&s->group->entity_mem, (size_t)bytes, __ATOMIC_RELAXED);
}

/* An entity is most of what a player costs the server (its kept results
 * for resent moves above all, about 9 KiB in all): entities count against
 * --max-memory with the connections' buffers, so a server full of players
 * refuses the next Spawn rather than run out of memory. Every thread's
 * connections and entities together. */
int sweep__mem_fits(const sweep_server *s, size_t more, char *why, size_t whylen)
{
    if (s->max_memory == 0)
        return 1;
    size_t held = __atomic_load_n(&s->group->conn_mem, __ATOMIC_RELAXED) +
                  __atomic_load_n(&s->group->entity_mem, __ATOMIC_RELAXED);
    if (held <= s->max_memory && more <= s->max_memory - held)
        return 1;
    snprintf(why, whylen, "the server's entities and connections hold %zu KiB of the %zu MiB they may (--max-memory)",
             held >> 10, s->max_memory >> 20);
    return 0;
}

sweep__peer sweep__session_peer(sweep__session *ss)
{
    sweep__peer p;
    memset(&p, 0, sizeof p);
    p.session = ss;
    p.budget = SIZE_MAX;
    p.tcp = ss->transport == SWEEP__TCP;
    if (p.tcp)
        p.conn = ss->conn;
    else
        p.addr = (const struct sockaddr *)&ss->addr;
    return p;
}

/* The entities a released owner frees leave this thread's count. */
static void entities_freed(void *ctx, int delta)
{
    sweep__entity_mem_count(ctx, delta);
}

void sweep__session_destroy(sweep__session *ss)
{
    if (!ss)
        return;
    sweep_server *s = ss->server;
    if (ss->world->rec)
        sweep__record_close(ss->world, ss, ss->close_reason ? ss->close_reason : "connection closed");
    sweep__owner_release(&ss->own, &(sweep__world_sink){.entities = entities_freed, .ctx = s});
    ss->world->session_count--;
    if (ss->agones_listed) {
        char v[SWEEP_TOKEN_IDENTITY_MAX + 32];
        player_value(ss, v, sizeof v);
        sweep__agones_player(s->group->agones, v, -1);
    }
    if (ss->transport == SWEEP__UDP && ss->addr.ss_family)
        udp_unbind(ss);
    if (ss->prev)
        ss->prev->next = ss->next;
    else
        s->sessions = ss->next;
    if (ss->next)
        ss->next->prev = ss->prev;
    if (ss->watching) {
        ss->watch_every = ss->watch_entities_every = 0;
        sweep__session_watch(ss);
    }
    s->session_count--;
    s->sessions_by_transport[ss->transport == SWEEP__UDP]--;
    sweep__session_slot_give(s);
    char rules[256];
    sweep__log(SWEEP_LOG_INFO, "session_close",
               "session=%llu transport=%s peer=%s reason=\"%s\" duration_s=%.3f rules=%s rule_lines_suppressed=%llu "
               "lines_suppressed=%llu "
               "rate_dropped=%llu",
               (unsigned long long)ss->id, ss->transport == SWEEP__TCP ? "tcp" : "udp", ss->peer,
               ss->close_reason ? ss->close_reason : "connection closed", (double)(uv_hrtime() - ss->opened_ns) * 1e-9,
               sweep__rules_summary(ss, rules, sizeof rules), (unsigned long long)ss->own.rule_log_suppressed,
               (unsigned long long)ss->own.line_log_suppressed, (unsigned long long)ss->rate_dropped);
    free(ss);
}

void sweep__session_watch(sweep__session *ss)
{
    sweep__served *w = ss->world;
    int wants = ss->watch_every != 0 || ss->watch_entities_every != 0;
    if (wants == ss->watching)
        return;
    if (wants) {
        ss->watch_prev = NULL;
        ss->watch_next = w->watchers;
        if (w->watchers)
            w->watchers->watch_prev = ss;
        w->watchers = ss;
    } else {
        if (ss->watch_prev)
            ss->watch_prev->watch_next = ss->watch_next;
        else
            w->watchers = ss->watch_next;
        if (ss->watch_next)
            ss->watch_next->watch_prev = ss->watch_prev;
        ss->watch_prev = ss->watch_next = NULL;
    }
    ss->watching = wants;
}

const char *sweep__rules_summary(const sweep__session *ss, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = 0;
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT && n < outlen; i++) {
        if (!ss->own.rule_counts[i])
            continue;
        int w = snprintf(out + n, outlen - n, "%s%s:%llu", n ? "," : "", sweep_wire_rule_name(i),
                         (unsigned long long)ss->own.rule_counts[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (!out[0])
        snprintf(out, outlen, "none");
    return out;
}

void sweep__sessions_expire(sweep_server *s, uint64_t now_ns)
{
    uint64_t idle = (uint64_t)(s->opt.udp_idle_timeout * 1e9);
    if (now_ns <= s->udp_idle_due_ns)
        return;
    /* A session's last_seen_ns only grows, and one opened after this walk
     * has it later than now_ns: the earliest deadline found here holds
     * until then. */
    uint64_t due = now_ns + idle;
    sweep__session *ss = s->sessions;
    while (ss) {
        sweep__session *next = ss->next;
        if (ss->transport != SWEEP__UDP) {
            ss = next;
            continue;
        }
        if (now_ns - ss->last_seen_ns <= idle) {
            if (ss->last_seen_ns + idle < due)
                due = ss->last_seen_ns + idle;
        } else {
            sweep__log(SWEEP_LOG_INFO, "session_idle", "session=%llu peer=%s", (unsigned long long)ss->id, ss->peer);
            sweep__peer p = {.addr = (const struct sockaddr *)&ss->addr, .session = ss, .budget = SIZE_MAX};
            sweep__send_bye(s, &p, "idle timeout");
            ss->close_reason = "idle timeout";
            sweep__session_destroy(ss);
        }
        ss = next;
    }
    s->udp_idle_due_ns = due;
}
