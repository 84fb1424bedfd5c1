/*
 * session.c - sessions and the entities they own.
 *
 * A session is what a Welcome creates: one client, one world, its entities,
 * its rate bucket. TCP sessions live as long as their connection; UDP
 * sessions are found by source address (a small chained hash table) and
 * end on Bye, after --udp-idle-timeout seconds of silence, or at shutdown.
 * Destroying a session despawns everything it owns, so no entity outlives
 * its owner and an id can never be moved by anyone else.
 *
 * Entity ids are drawn at random (uv_random: the kernel's generator), 32
 * bits, never 0, never one in use: a client learns nothing about other
 * sessions' entities from its own ids, and guessing one is a 1 in 2^32
 * shot that is answered as an unknown id anyway.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "server/alloc.h"
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
uint32_t sweep__sockaddr_hash(const struct sockaddr *a)
{
    uint32_t h = 2166136261u;
    const uint8_t *p;
    size_t n;
    uint16_t port;
    if (a->sa_family == AF_INET) {
        p = (const uint8_t *)&((const struct sockaddr_in *)a)->sin_addr;
        n = 4;
        port = ((const struct sockaddr_in *)a)->sin_port;
    } else {
        p = (const uint8_t *)&((const struct sockaddr_in6 *)a)->sin6_addr;
        n = 16;
        port = ((const struct sockaddr_in6 *)a)->sin6_port;
    }
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    h = (h ^ (port & 0xff)) * 16777619u;
    h = (h ^ (port >> 8)) * 16777619u;
    return h;
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
    sweep__session *ss = s->addr_buckets[sweep__sockaddr_hash(addr) % s->addr_bucket_count];
    while (ss && !sweep__sockaddr_equal((const struct sockaddr *)&ss->addr, addr))
        ss = ss->addr_next;
    return ss;
}

void sweep__udp_session_bind(sweep__session *ss, const struct sockaddr *addr)
{
    sweep_server *s = ss->server;
    size_t len = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memcpy(&ss->addr, addr, len);
    ss->udp_direct = s->udp_rx_direct;
    sweep__addr_text(addr, ss->peer, sizeof ss->peer);
    uint32_t b = sweep__sockaddr_hash(addr) % s->addr_bucket_count;
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
    uint32_t b = sweep__sockaddr_hash((const struct sockaddr *)&ss->addr) % s->addr_bucket_count;
    for (sweep__session **pp = &s->addr_buckets[b]; *pp; pp = &(*pp)->addr_next) {
        if (*pp == ss) {
            *pp = ss->addr_next;
            return;
        }
    }
}

sweep__session *sweep__session_create(sweep_server *s, sweep__world *w, sweep__transport t)
{
    sweep__session *ss = sweep__calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    ss->id = __atomic_add_fetch(&s->group->next_session_id, 1, __ATOMIC_RELAXED);
    ss->server = s;
    ss->world = w;
    ss->transport = t;
    uint64_t now = uv_hrtime();
    ss->last_seen_ns = now;
    sweep__bucket_init(&ss->bucket, s->opt.rate_limit, now);
    sweep__bucket_init(&ss->rule_log, 10.0, now);
    ss->next = s->sessions;
    if (s->sessions)
        s->sessions->prev = ss;
    s->sessions = ss;
    s->session_count++;
    s->stats.sessions_total++;
    return ss;
}

/* This thread's entities hold `delta` bytes more (the group total with
 * them: --max-memory is for the whole sweepd). */
static void entity_mem_count(sweep_server *s, ptrdiff_t delta)
{
    s->entity_mem += (size_t)delta;
    __atomic_add_fetch(&s->group->entity_mem, (size_t)delta, __ATOMIC_RELAXED);
}

/* Removes e from the server table and its world, and frees it; the caller
 * fixes the owner's array. */
static void entity_free(sweep_server *s, sweep__entity *e)
{
    sweep__entity_table_remove(&s->entities, e->id);
    if (e->world)
        sweep__world_remove_entity(e->world, e);
    entity_mem_count(s, -(ptrdiff_t)sizeof *e);
    free(e);
}

/* An entity is most of what a player costs the server (its kept results
 * for resent moves above all, about 23 KiB): entities count against
 * --max-memory with the connections' buffers, so a server full of players
 * refuses the next Spawn rather than run out of memory. Every thread's
 * connections and entities together. */
int sweep__mem_fits(const sweep_server *s, size_t more)
{
    if (s->max_memory == 0)
        return 1;
    size_t held = __atomic_load_n(&s->group->conn_mem, __ATOMIC_RELAXED) +
                  __atomic_load_n(&s->group->entity_mem, __ATOMIC_RELAXED);
    return held <= s->max_memory && more <= s->max_memory - held;
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

void sweep__session_destroy(sweep__session *ss)
{
    if (!ss)
        return;
    sweep_server *s = ss->server;
    if (ss->world->rec)
        sweep__record_close(ss->world, ss, ss->close_reason ? ss->close_reason : "connection closed");
    for (uint32_t i = 0; i < ss->entity_count; i++)
        entity_free(s, ss->entities[i]);
    free(ss->entities);
    if (ss->transport == SWEEP__UDP && ss->addr.ss_family)
        udp_unbind(ss);
    if (ss->prev)
        ss->prev->next = ss->next;
    else
        s->sessions = ss->next;
    if (ss->next)
        ss->next->prev = ss->prev;
    s->session_count--;
    sweep__session_slot_give(s);
    char rules[256];
    sweep__log(SWEEP_LOG_INFO, "session_close",
               "session=%llu transport=%s peer=%s rules=%s rule_lines_suppressed=%llu rate_dropped=%llu",
               (unsigned long long)ss->id, ss->transport == SWEEP__TCP ? "tcp" : "udp", ss->peer,
               sweep__rules_summary(ss, rules, sizeof rules), (unsigned long long)ss->rule_log_suppressed,
               (unsigned long long)ss->rate_dropped);
    free(ss);
}

sweep__entity *sweep__session_spawn(sweep__session *ss, const char **why)
{
    sweep_server *s = ss->server;
    if (ss->entity_count == ss->entity_cap) {
        uint32_t ncap = ss->entity_cap ? ss->entity_cap * 2 : 4;
        sweep__entity **n = sweep__realloc(ss->entities, ncap * sizeof *n);
        if (!n) {
            *why = "out of memory for the session's entity list";
            return NULL;
        }
        ss->entities = n;
        ss->entity_cap = ncap;
    }
    sweep__entity *e = sweep__calloc(1, sizeof *e);
    if (!e) {
        *why = "out of memory for the entity";
        return NULL;
    }
    if (s->offline && s->next_id_count) {
        /* A replay gives the ids the log says were drawn. */
        e->id = *s->next_ids++;
        s->next_id_count--;
    }
    for (int tries = 0; e->id == 0 || sweep__entity_table_find(&s->entities, e->id); tries++) {
        uint32_t id = 0;
        if (tries == 64 || uv_random(NULL, NULL, &id, sizeof id, 0, NULL) != 0) {
            sweep__log(SWEEP_LOG_ERROR, "entity_id_failed", "session=%llu", (unsigned long long)ss->id);
            free(e);
            *why = "no entity id could be drawn";
            return NULL;
        }
        e->id = id;
    }
    e->owner = ss;
    e->ground_mover = e->touch_mover = e->moved_by = SWEEP_NO_MOVER;
    if (sweep__entity_table_insert(&s->entities, e) != 0) {
        free(e);
        *why = "out of memory for the entity table";
        return NULL;
    }
    if (sweep__world_add_entity(ss->world, e) != 0) {
        sweep__entity_table_remove(&s->entities, e->id);
        free(e);
        *why = "out of memory for the world's entity arrays";
        return NULL;
    }
    ss->entities[ss->entity_count++] = e;
    entity_mem_count(s, (ptrdiff_t)sizeof *e);
    if (ss->world->rec)
        sweep__record_id(ss->world, e->id);
    return e;
}

void sweep__session_despawn(sweep__session *ss, sweep__entity *e)
{
    for (uint32_t i = 0; i < ss->entity_count; i++) {
        if (ss->entities[i] == e) {
            ss->entities[i] = ss->entities[--ss->entity_count];
            break;
        }
    }
    entity_free(ss->server, e);
}

void sweep__sessions_expire(sweep_server *s, uint64_t now_ns)
{
    uint64_t idle = (uint64_t)(s->opt.udp_idle_timeout * 1e9);
    sweep__session *ss = s->sessions;
    while (ss) {
        sweep__session *next = ss->next;
        if (ss->transport == SWEEP__UDP && now_ns - ss->last_seen_ns > idle) {
            sweep__log(SWEEP_LOG_INFO, "session_idle", "session=%llu peer=%s", (unsigned long long)ss->id, ss->peer);
            sweep__peer p = {.addr = (const struct sockaddr *)&ss->addr, .session = ss, .budget = SIZE_MAX};
            sweep__send_bye(s, &p, "idle timeout");
            ss->close_reason = "idle timeout";
            sweep__session_destroy(ss);
        }
        ss = next;
    }
}
