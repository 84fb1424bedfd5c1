/*
 * netem.c - the in-process UDP relays of sweep-bots (netem.h).
 *
 * One thread polls every front and back socket plus a pipe that tells it
 * to stop. A datagram that survives the loss draw goes into a min-heap
 * keyed by (due time, arrival number); the thread sends every datagram
 * whose time has come before it waits again, and waits no longer than
 * until the earliest one is due (ppoll, so delays are not rounded to
 * milliseconds). The arrival number keeps datagrams with the same due
 * time in the order they came, so zero delay means no reordering.
 *
 * Invariants: heap[0 .. count) is a binary min-heap on (due, order); each
 * entry owns its bytes; only the relay thread touches the heap, the
 * sockets' client addresses and the counters until it is joined.
 */
#define _GNU_SOURCE
#include "client-sdk/netem.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Datagrams delayed at once, all links together; more are dropped and
 * counted (a bot flooding faster than the delays drain). */
#define NETEM_QUEUE_MAX 65536u
/* Largest datagram relayed (UDP's own limit). */
#define NETEM_DATAGRAM_MAX 65536u

typedef struct netem_item {
    uint64_t due_ns, order;
    uint32_t link;
    uint8_t dir; /* 0: to the server, 1: to the client */
    uint32_t len;
    uint8_t *bytes;
} netem_item;

typedef struct netem_link {
    int front, back;
    struct sockaddr_storage client; /* where the front socket last heard from */
    socklen_t client_len;           /* 0 = nobody yet */
    char address[64];
} netem_link;

struct sweep_netem {
    sweep_netem_options o;
    int impair; /* read and written with __atomic builtins: set by any thread */
    netem_link *links;
    uint32_t nlinks;
    int wake[2]; /* write a byte to [1] to stop the thread */
    pthread_t thread;
    int running;
    netem_item *heap;
    uint32_t count, cap;
    uint64_t order, rng;
    uint8_t *buf;
    sweep_netem_counters counters;
};

static int say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Uniform in [0, 1): xorshift64*, the top 53 bits. */
static double draw(sweep_netem *n)
{
    uint64_t x = n->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    n->rng = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

static int earlier(const netem_item *a, const netem_item *b)
{
    return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->order < b->order);
}

static void heap_push(sweep_netem *n, netem_item it)
{
    uint32_t i = n->count++;
    n->heap[i] = it;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (!earlier(&n->heap[i], &n->heap[up]))
            break;
        netem_item t = n->heap[i];
        n->heap[i] = n->heap[up];
        n->heap[up] = t;
        i = up;
    }
}

static netem_item heap_pop(sweep_netem *n)
{
    netem_item top = n->heap[0];
    n->heap[0] = n->heap[--n->count];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n->count && earlier(&n->heap[l], &n->heap[m]))
            m = l;
        if (r < n->count && earlier(&n->heap[r], &n->heap[m]))
            m = r;
        if (m == i)
            break;
        netem_item t = n->heap[i];
        n->heap[i] = n->heap[m];
        n->heap[m] = t;
        i = m;
    }
    return top;
}

/* Decides the fate of one datagram that just came in. */
static void take(sweep_netem *n, uint32_t link, uint8_t dir, const uint8_t *bytes, size_t len, uint64_t now)
{
    n->counters.received[dir]++;
    if (!__atomic_load_n(&n->impair, __ATOMIC_RELAXED)) {
        /* Untouched, but through the queue so that order is kept. */
        uint8_t *copy = n->count < NETEM_QUEUE_MAX ? malloc(len ? len : 1) : NULL;
        if (copy == NULL) {
            n->counters.overflow[dir]++;
            return;
        }
        memcpy(copy, bytes, len);
        heap_push(n, (netem_item){.due_ns = now, .order = n->order++, .link = link, .dir = dir, .len = (uint32_t)len,
                                  .bytes = copy});
        return;
    }
    if (n->o.loss > 0 && draw(n) < n->o.loss) {
        n->counters.dropped[dir]++;
        return;
    }
    double delay_ms = n->o.jitter_ms > 0 ? draw(n) * n->o.jitter_ms : 0.0;
    if (n->o.reorder > 0 && draw(n) < n->o.reorder) {
        delay_ms += 20.0 + 20.0 * draw(n);
        n->counters.reordered[dir]++;
    }
    if (n->count == NETEM_QUEUE_MAX) {
        n->counters.overflow[dir]++;
        return;
    }
    uint8_t *copy = malloc(len ? len : 1);
    if (copy == NULL) {
        n->counters.overflow[dir]++;
        return;
    }
    memcpy(copy, bytes, len);
    netem_item it = {.due_ns = now + (uint64_t)(delay_ms * 1e6), .order = n->order++, .link = link, .dir = dir,
                     .len = (uint32_t)len, .bytes = copy};
    heap_push(n, it);
}

static void deliver(sweep_netem *n, const netem_item *it)
{
    netem_link *l = &n->links[it->link];
    ssize_t w;
    if (it->dir == 0)
        w = send(l->back, it->bytes, it->len, MSG_DONTWAIT);
    else if (l->client_len)
        w = sendto(l->front, it->bytes, it->len, MSG_DONTWAIT, (const struct sockaddr *)&l->client, l->client_len);
    else
        w = -1;
    /* A full socket buffer or a refused port is what a network does too. */
    if (w >= 0)
        n->counters.delivered[it->dir]++;
    else
        n->counters.failed[it->dir]++;
}

/* Reads what one socket holds, without waiting. */
static void drain_socket(sweep_netem *n, uint32_t link, uint8_t dir)
{
    netem_link *l = &n->links[link];
    for (int k = 0; k < 64; k++) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t r = dir == 0 ? recvfrom(l->front, n->buf, NETEM_DATAGRAM_MAX, MSG_DONTWAIT, (struct sockaddr *)&from, &fl)
                             : recv(l->back, n->buf, NETEM_DATAGRAM_MAX, MSG_DONTWAIT);
        if (r < 0)
            return; /* EAGAIN, or an ICMP error the next datagram will meet again */
        if (dir == 0) {
            memcpy(&l->client, &from, fl);
            l->client_len = fl;
        }
        take(n, link, dir, n->buf, (size_t)r, now_ns());
    }
}

static void *relay(void *arg)
{
    sweep_netem *n = arg;
    uint32_t nfds = 2 * n->nlinks + 1;
    struct pollfd *p = calloc(nfds, sizeof *p);
    if (p == NULL)
        return NULL;
    for (uint32_t i = 0; i < n->nlinks; i++) {
        p[2 * i] = (struct pollfd){.fd = n->links[i].front, .events = POLLIN};
        p[2 * i + 1] = (struct pollfd){.fd = n->links[i].back, .events = POLLIN};
    }
    p[nfds - 1] = (struct pollfd){.fd = n->wake[0], .events = POLLIN};
    for (;;) {
        uint64_t now = now_ns();
        while (n->count > 0 && n->heap[0].due_ns <= now) {
            netem_item it = heap_pop(n);
            deliver(n, &it);
            free(it.bytes);
        }
        struct timespec ts = {.tv_sec = 0, .tv_nsec = 100000000};
        if (n->count > 0) {
            uint64_t wait = n->heap[0].due_ns - now;
            ts.tv_sec = (time_t)(wait / 1000000000u);
            ts.tv_nsec = (long)(wait % 1000000000u);
        }
        int r = ppoll(p, nfds, &ts, NULL);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (p[nfds - 1].revents)
            break;
        for (uint32_t i = 0; i < n->nlinks; i++) {
            if (p[2 * i].revents)
                drain_socket(n, i, 0);
            if (p[2 * i + 1].revents)
                drain_socket(n, i, 1);
        }
    }
    free(p);
    return NULL;
}

/* Closes the sockets and frees everything (the thread is not running). */
static void destroy(sweep_netem *n)
{
    for (uint32_t i = 0; n->links && i < n->nlinks; i++) {
        if (n->links[i].front >= 0)
            close(n->links[i].front);
        if (n->links[i].back >= 0)
            close(n->links[i].back);
    }
    for (uint32_t i = 0; i < n->count; i++)
        free(n->heap[i].bytes);
    if (n->wake[0] >= 0)
        close(n->wake[0]);
    if (n->wake[1] >= 0)
        close(n->wake[1]);
    free(n->links);
    free(n->heap);
    free(n->buf);
    free(n);
}

/* Opens link i: a front socket on 127.0.0.1:0 and a back socket connected to up. */
static int open_link(sweep_netem *n, uint32_t i, const struct addrinfo *up, char *err, size_t errlen)
{
    netem_link *l = &n->links[i];
    l->front = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->front < 0)
        return say(err, errlen, "relay %u: socket: %s", i, strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(l->front, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(l->front, (struct sockaddr *)&a, &al) != 0)
        return say(err, errlen, "relay %u: bind 127.0.0.1: %s", i, strerror(errno));
    snprintf(l->address, sizeof l->address, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    l->back = socket(up->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->back < 0)
        return say(err, errlen, "relay %u: socket: %s", i, strerror(errno));
    if (connect(l->back, up->ai_addr, up->ai_addrlen) != 0)
        return say(err, errlen, "relay %u: connect: %s", i, strerror(errno));
    /* Room for a burst of results while the thread is busy elsewhere. */
    int sz = 1 << 20;
    setsockopt(l->front, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    setsockopt(l->back, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    return 0;
}

int sweep_netem_start(const sweep_netem_options *o, const char *upstream, uint32_t links, sweep_netem **out,
                      char *err, size_t errlen)
{
    if (out)
        *out = NULL;
    if (o == NULL || upstream == NULL || out == NULL || links == 0)
        return say(err, errlen, "netem: missing options, address or links");
    if (!(o->loss >= 0 && o->loss <= 1) || !(o->reorder >= 0 && o->reorder <= 1) ||
        !(o->jitter_ms >= 0 && o->jitter_ms <= 10000))
        return say(err, errlen, "netem: loss and reorder are probabilities in [0, 1], jitter is 0..10000 ms");
    char host[256];
    const char *colon = strrchr(upstream, ':');
    if (colon == NULL || colon == upstream || (size_t)(colon - upstream) >= sizeof host)
        return say(err, errlen, "netem: '%s' is not HOST:PORT", upstream);
    memcpy(host, upstream, (size_t)(colon - upstream));
    host[colon - upstream] = '\0';
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res = NULL;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai != 0)
        return say(err, errlen, "netem: %s: %s", upstream, gai_strerror(gai));
    sweep_netem *n = calloc(1, sizeof *n);
    if (n == NULL) {
        freeaddrinfo(res);
        return say(err, errlen, "netem: out of memory");
    }
    n->o = *o;
    n->rng = o->seed ? o->seed : 0x9E3779B97F4A7C15ull;
    n->wake[0] = n->wake[1] = -1;
    n->nlinks = links;
    n->cap = NETEM_QUEUE_MAX;
    n->links = calloc(links, sizeof *n->links);
    n->heap = malloc((size_t)n->cap * sizeof *n->heap);
    n->buf = malloc(NETEM_DATAGRAM_MAX);
    int rc = 0;
    if (n->links == NULL || n->heap == NULL || n->buf == NULL)
        rc = say(err, errlen, "netem: out of memory");
    for (uint32_t i = 0; n->links && i < links; i++)
        n->links[i].front = n->links[i].back = -1;
    for (uint32_t i = 0; rc == 0 && i < links; i++)
        rc = open_link(n, i, res, err, errlen);
    freeaddrinfo(res);
    if (rc == 0 && pipe2(n->wake, O_CLOEXEC) != 0)
        rc = say(err, errlen, "netem: pipe: %s", strerror(errno));
    if (rc == 0) {
        /* The relay thread takes no signals: the program's handlers run on its own thread. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int e = pthread_create(&n->thread, NULL, relay, n);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e != 0)
            rc = say(err, errlen, "netem: cannot start the relay thread: %s", strerror(e));
        else
            n->running = 1;
    }
    if (rc != 0) {
        destroy(n);
        return -1;
    }
    *out = n;
    return 0;
}

void sweep_netem_impair(sweep_netem *n, int on)
{
    if (n)
        __atomic_store_n(&n->impair, on != 0, __ATOMIC_RELAXED);
}

const char *sweep_netem_address(const sweep_netem *n, uint32_t i)
{
    return n && i < n->nlinks ? n->links[i].address : NULL;
}

void sweep_netem_stop(sweep_netem *n, sweep_netem_counters *out)
{
    if (n == NULL)
        return;
    if (n->running) {
        char b = 1;
        ssize_t w;
        do
            w = write(n->wake[1], &b, 1);
        while (w < 0 && errno == EINTR);
        pthread_join(n->thread, NULL);
        n->running = 0;
    }
    if (out)
        *out = n->counters;
    destroy(n);
}
