/*
 * threads.c - one sweepd on several cores (--threads N): a group of N
 * servers, each a whole server with its own libuv loop on its own thread,
 * world i living on thread i mod N. A world's sessions, entities, moves and
 * ticks stay on its one thread, in the order they arrive there, so what a
 * world does is what it did with one thread: determinism holds per world.
 *
 * All threads listen on the same TCP and UDP port (SO_REUSEPORT, listen.c):
 * the kernel spreads connections, and datagrams by source address, over
 * them, not knowing which world a client wants. So work arrives on the
 * wrong thread and is passed on, through the owner's inbox (a list under
 * the group's lock and a uv_async):
 *
 *   - TCP: the Hello names the world. The thread that accepted the
 *     connection hands it over (hand_over in tcp.c): a dup of
 *     the socket and every byte already read from the Hello on; the owner
 *     adopts it as if it had read those bytes itself, and the first thread
 *     closes its descriptor. After that the connection costs the first
 *     thread nothing.
 *   - UDP: every datagram of a client reaches the socket the kernel hashes
 *     its address to, for as long as the client keeps it. The Hello is
 *     forwarded to the world's thread, which makes the session there and
 *     enters its address in the group's route table. Its Welcome names the
 *     owner's own port (listen.c: one UDP socket per thread, no
 *     SO_REUSEPORT), and a client that sends there from then on (libsweep)
 *     reaches the owner directly and is answered from there. A client that
 *     stays on the shared port has every later datagram forwarded by the
 *     thread the kernel picks (sweep__udp_deliver), answered from the
 *     owner's shared socket, on the same port, so the client sees one
 *     server: a copy, a lock and a wakeup per datagram.
 *
 * Shared, so that N threads are still one server to its clients: the
 * cookie secret (a cookie made on one thread is checked on another), the
 * session ids, and the global limits: --max-sessions and the connection
 * cap are atomic counters; --max-memory an atomic sum of what every
 * thread's connections hold; the per-address counts one table under the
 * group's lock. Stats and metrics are summed over the threads' published
 * figures (each thread publishes its own at every housekeeping tick).
 *
 * A sweepd of one thread is a group of one: no inbox is ever used, no
 * route is kept, and the only costs are uncontended locks around the
 * per-address table (at accept, Hello and close) and atomic counters.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/world/alloc.h"
#include "server/server_impl.h"

/* One UDP session's address and the thread that owns it. */
typedef struct sweep__route {
    struct sockaddr_storage addr;
    unsigned thread;
    struct sweep__route *next;
} sweep__route;

sweep__group *sweep__group_create(unsigned count, uint32_t max_sessions)
{
    sweep__group *g = sweep__calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->count = count;
    g->servers = sweep__calloc(count, sizeof *g->servers);
    g->published = sweep__calloc(count, sizeof *g->published);
    g->threads = sweep__calloc(count, sizeof *g->threads);
    g->beats = sweep__calloc(count, sizeof *g->beats);
    g->route_cap = 16;
    while (count > 1 && g->route_cap < max_sessions * 2u && g->route_cap < (1u << 20))
        g->route_cap <<= 1;
    g->routes = count > 1 ? sweep__calloc(g->route_cap, sizeof *g->routes) : NULL;
    if (!g->servers || !g->published || !g->threads || !g->beats || (count > 1 && !g->routes) ||
        sweep__cookie_key_init(&g->cookie, 0) != 0) {
        sweep__group_free(g);
        return NULL;
    }
    uint64_t seed = 0;
    uv_random(NULL, NULL, &seed, sizeof seed, 0, NULL);
    sweep__addr_table_init(&g->addrs, seed);
    pthread_mutex_init(&g->lock, NULL);
    pthread_mutex_init(&g->stats_lock, NULL);
    sweep__world_table_init(g, 1);
    g->locks_open = 1;
    return g;
}

void sweep__group_free(sweep__group *g)
{
    if (!g)
        return;
    if (g->routes) {
        for (uint32_t i = 0; i < g->route_cap; i++) {
            while (g->routes[i]) {
                sweep__route *r = g->routes[i];
                g->routes[i] = r->next;
                free(r);
            }
        }
    }
    sweep__addr_table_free(&g->addrs);
    if (g->locks_open) {
        pthread_mutex_destroy(&g->lock);
        pthread_mutex_destroy(&g->stats_lock);
        sweep__world_table_free(g);
    }
    free(g->routes);
    free(g->published);
    free(g->threads);
    free(g->beats);
    free(g->servers);
    free(g);
}

void sweep__group_lock(sweep_server *s)
{
    pthread_mutex_lock(&s->group->lock);
}

void sweep__group_unlock(sweep_server *s)
{
    pthread_mutex_unlock(&s->group->lock);
}

/* --- Global counts ------------------------------------------------------- */

int sweep__session_slot_take(sweep_server *s)
{
    uint32_t was = __atomic_fetch_add(&s->group->sessions, 1, __ATOMIC_RELAXED);
    if (was < s->opt.max_sessions)
        return 1;
    __atomic_fetch_sub(&s->group->sessions, 1, __ATOMIC_RELAXED);
    return 0;
}

void sweep__session_slot_give(sweep_server *s)
{
    __atomic_fetch_sub(&s->group->sessions, 1, __ATOMIC_RELAXED);
}

uint32_t sweep__sessions_open(const sweep_server *s)
{
    return __atomic_load_n(&s->group->sessions, __ATOMIC_RELAXED);
}

/* --- UDP routes ----------------------------------------------------------- */

void sweep__route_add(sweep_server *s, const struct sockaddr *addr)
{
    sweep__group *g = s->group;
    if (g->count < 2)
        return;
    sweep__route *r = sweep__malloc(sizeof *r);
    if (!r) {
        /* The session stays reachable from the thread the kernel sends
         * its datagrams to only if that is its own: logged, not fatal. */
        sweep__log(SWEEP_LOG_ERROR, "route_failed", "error=\"out of memory\"");
        return;
    }
    memset(r, 0, sizeof *r);
    memcpy(&r->addr, addr, addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    r->thread = s->thread;
    uint32_t b = sweep__sockaddr_hash(addr) & (g->route_cap - 1);
    pthread_mutex_lock(&g->lock);
    r->next = g->routes[b];
    g->routes[b] = r;
    g->route_count++;
    pthread_mutex_unlock(&g->lock);
}

void sweep__route_remove(sweep_server *s, const struct sockaddr *addr)
{
    sweep__group *g = s->group;
    if (g->count < 2)
        return;
    uint32_t b = sweep__sockaddr_hash(addr) & (g->route_cap - 1);
    sweep__route *gone = NULL;
    pthread_mutex_lock(&g->lock);
    for (sweep__route **pp = &g->routes[b]; *pp; pp = &(*pp)->next) {
        if ((*pp)->thread == s->thread && sweep__sockaddr_equal((const struct sockaddr *)&(*pp)->addr, addr)) {
            gone = *pp;
            *pp = gone->next;
            g->route_count--;
            break;
        }
    }
    pthread_mutex_unlock(&g->lock);
    free(gone);
}

int sweep__route_find(sweep_server *s, const struct sockaddr *addr)
{
    sweep__group *g = s->group;
    if (g->count < 2 || (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
        return -1;
    uint32_t b = sweep__sockaddr_hash(addr) & (g->route_cap - 1);
    int t = -1;
    pthread_mutex_lock(&g->lock);
    for (sweep__route *r = g->routes[b]; r; r = r->next) {
        if (sweep__sockaddr_equal((const struct sockaddr *)&r->addr, addr)) {
            t = (int)r->thread;
            break;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return t;
}

/* --- Inboxes -------------------------------------------------------------- */

void sweep__handoff_push(sweep_server *s, unsigned to, sweep__handoff *h)
{
    sweep_server *t = s->group->servers[to];
    h->next = NULL;
    pthread_mutex_lock(&s->group->lock);
    *t->inbox_tail = h;
    t->inbox_tail = &h->next;
    pthread_mutex_unlock(&s->group->lock);
    /* Valid until the group is destroyed: a stopping server only unrefs
     * its inbox handle, and destroy drains what is left. */
    uv_async_send(&t->inbox_async);
}

int sweep__handoff_datagram(sweep_server *s, unsigned to, const struct sockaddr *addr, const uint8_t *data, size_t len,
                            int partial)
{
    sweep__handoff *h = sweep__malloc(sizeof *h + len);
    if (!h) {
        s->stats.udp_dropped++;
        return -1;
    }
    memset(h, 0, sizeof *h);
    h->fd = -1;
    memcpy(&h->addr, addr, addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    h->partial = partial;
    h->len = len;
    memcpy(h->bytes, data, len);
    sweep__handoff_push(s, to, h);
    s->stats.handoffs[SWEEP__UDP]++;
    return 0;
}

int sweep__handoff_conn(sweep_server *s, unsigned to, int fd, const struct sockaddr *addr, const uint8_t *a,
                        size_t alen, const uint8_t *b, size_t blen, uint64_t hello_deadline_ns,
                        const sweep__bucket *early)
{
    sweep__handoff *h = sweep__malloc(sizeof *h + alen + blen);
    if (!h)
        return -1;
    memset(h, 0, sizeof *h);
    h->fd = fd;
    memcpy(&h->addr, addr, addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    h->partial = 0;
    h->len = alen + blen;
    memcpy(h->bytes, a, alen);
    if (blen)
        memcpy(h->bytes + alen, b, blen);
    h->hello_deadline_ns = hello_deadline_ns;
    h->early = *early;
    sweep__handoff_push(s, to, h);
    s->stats.handoffs[SWEEP__TCP]++;
    return 0;
}

sweep__handoff *sweep__handoff_world_new(int op, uint32_t id, sweep__served *w)
{
    sweep__handoff *h = sweep__calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->fd = -1;
    h->world_op = op;
    h->world_id = id;
    h->world = w;
    return h;
}

static sweep__handoff *take_inbox(sweep_server *s)
{
    pthread_mutex_lock(&s->group->lock);
    sweep__handoff *h = s->inbox;
    s->inbox = NULL;
    s->inbox_tail = &s->inbox;
    pthread_mutex_unlock(&s->group->lock);
    return h;
}

static void on_inbox(uv_async_t *a)
{
    sweep_server *s = a->data;
    sweep__handoff *h = take_inbox(s);
    int batching = 0;
    while (h) {
        sweep__handoff *next = h->next;
        if (h->world_op) {
            sweep__world_handoff(s, h, 0);
        } else if (h->fd >= 0) {
            if (batching)
                sweep__udp_batch_end(s);
            batching = 0;
            sweep__conn_adopt(s, h);
        } else if (!s->stopping) {
            /* Forwarded datagrams are answered as one receive batch. */
            if (!batching)
                sweep__udp_batch_begin(s);
            batching = 1;
            sweep__udp_deliver(s, h->bytes, h->len, (const struct sockaddr *)&h->addr, h->partial, uv_hrtime(),
                               0);
        }
        free(h);
        h = next;
    }
    if (batching)
        sweep__udp_batch_end(s);
}

void sweep__inbox_open(sweep_server *s)
{
    s->inbox = NULL;
    s->inbox_tail = &s->inbox;
    uv_async_init(&s->loop, &s->inbox_async, on_inbox);
    s->inbox_async.data = s;
    s->inbox_open = 1;
}

void sweep__inbox_drain(sweep_server *s)
{
    sweep__handoff *h = take_inbox(s);
    while (h) {
        sweep__handoff *next = h->next;
        if (h->world_op)
            sweep__world_handoff(s, h, 1);
        else if (h->fd >= 0)
            sweep__conn_refuse_handoff(s, h);
        free(h);
        h = next;
    }
}

/* --- Figures --------------------------------------------------------------- */

void sweep__server_snapshot(const sweep_server *s, sweep__metrics_snapshot *snap)
{
    memset(snap, 0, sizeof *snap);
    snap->stats = s->stats;
    snap->sessions[0] = s->sessions_by_transport[0];
    snap->sessions[1] = s->sessions_by_transport[1];
    for (unsigned i = 0; i < s->world_count; i++) {
        /* What the worlds did is counted by them (server/world/world.h). */
        const sweep__world *w = s->worlds[i]->world;
        snap->movers += w->mover_count;
        snap->entities += w->ent_count;
        snap->stats.moves_total += w->counts.moves_total;
        snap->stats.moves_ignored += w->counts.moves_ignored;
        snap->stats.crushed_total += w->counts.crushed_total;
        snap->stats.queries_total += w->counts.queries_total;
        for (unsigned r = 0; r < SWEEP_WIRE_RULE_COUNT; r++)
            snap->stats.rules_total[r] += w->counts.rules_total[r];
    }
    snap->connections = s->conn_count;
    snap->worlds = s->world_count;
}

void sweep__server_publish(sweep_server *s)
{
    sweep__group *g = s->group;
    if (g->count < 2 && !s->metrics)
        return;
    /* The metrics endpoint reads the worlds' figures from the table, as
     * the other threads do. */
    if (g->count > 1 || s->metrics)
        sweep__world_table_publish(s);
    /* Built outside the lock: the lists are this thread's to walk. */
    sweep__metrics_snapshot snap;
    sweep__server_snapshot(s, &snap);
    pthread_mutex_lock(&g->stats_lock);
    g->published[s->thread] = snap;
    pthread_mutex_unlock(&g->stats_lock);
}

void sweep__group_figures(sweep_server *s, sweep__metrics_snapshot *out)
{
    sweep__group *g = s->group;
    if (g->count < 2) {
        sweep__server_snapshot(s, out);
        return;
    }
    sweep__metrics_snapshot *all = sweep__malloc(g->count * sizeof *all);
    if (!all) {
        sweep__server_snapshot(s, out);
        return;
    }
    pthread_mutex_lock(&g->stats_lock);
    memcpy(all, g->published, g->count * sizeof *all);
    pthread_mutex_unlock(&g->stats_lock);
    sweep__server_snapshot(s, &all[s->thread]); /* its own, as of now */
    sweep__metrics_snapshot_sum(out, all, g->count);
    free(all);
}

/* --- Running ------------------------------------------------------------ */

/* The calling thread to SCHED_FIFO at prio (0: nothing); 0, or the error
 * number. */
static int thread_realtime(uint32_t prio)
{
    if (prio == 0)
        return 0;
    struct sched_param p = {.sched_priority = (int)prio};
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
}

int sweep__realtime_check(uint32_t prio, char *err, size_t errlen)
{
    if (prio == 0)
        return 0;
    int e = thread_realtime(prio);
    if (e != 0) {
        snprintf(err, errlen,
                 "--realtime %u: the event loops cannot run at real-time priority: %s (it needs CAP_SYS_NICE, or an "
                 "RLIMIT_RTPRIO of at least %u)",
                 prio, strerror(e), prio);
        return -1;
    }
    /* Back to normal until the loops run: the threads made meanwhile
     * (Agones' calls) are not the loops'. */
    struct sched_param normal = {.sched_priority = 0};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
    return 0;
}

void sweep__loop_realtime(const sweep_server *s)
{
    /* sweep__realtime_check found the priority allowed; a loop that still
     * cannot have it runs at normal priority rather than not at all. */
    if (thread_realtime(s->opt.realtime) != 0)
        sweep__log(SWEEP_LOG_WARN, "realtime_refused", "thread=%u priority=%u", s->thread, s->opt.realtime);
}

static void *thread_main(void *arg)
{
    sweep_server *s = arg;
    sweep__loop_realtime(s);
    uv_run(&s->loop, UV_RUN_DEFAULT);
    return NULL;
}

int sweep__group_run_threads(sweep__group *g)
{
    /* Signals stay with the caller's thread (libuv's handlers on server
     * 0's loop): the others start with all of them blocked. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    unsigned started = 1;
    for (; started < g->count; started++)
        if (pthread_create(&g->threads[started], NULL, thread_main, g->servers[started]) != 0)
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return (int)started;
}

void sweep__group_join_threads(sweep__group *g, unsigned started)
{
    for (unsigned i = 1; i < started; i++)
        pthread_join(g->threads[i], NULL);
}
