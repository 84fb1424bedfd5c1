/*
 * bench_soak.c - sweepd holding many sessions for minutes: does it keep its
 * latency, its memory and its honest players' trust, alone and under attack?
 *
 *   bench_soak --sweepd PATH --bots PATH --map FILE [--sessions N] [--fast N]
 *              [--seconds S] [--slow-rate M] [--hostile N] [--server-log FILE]
 *
 * Two runs, each against a fresh sweepd on a free port of 127.0.0.1 (its
 * per-address limits raised: every client here comes from 127.0.0.1):
 *
 *   1. N honest sessions, TCP and UDP alternately, each with a spawned
 *      player: `fast` of them send a move 60 times a second (a game client),
 *      the others a few a second (--slow-rate, default 2). All are connected
 *      one after the other (the ramp), then play 3 s unmeasured, then
 *      `seconds` measured. Latency is the time from a fast player's move
 *      leaving to the kernel's arrival time of its answer (libsweep's
 *      received_ns, so this loop's own delay in coming to read is not
 *      counted), for every answer however late: the last RING sends of
 *      each fast session are remembered (latency_samples answers timed;
 *      late_answers came after their send was forgotten), and the
 *      histogram reaches 62 s. moves_per_s counts every answered move.
 *   2. The same, with `hostile` clients beside them from the end of the
 *      ramp to the end: half are sweep-bots cheaters (speed, flood, burst,
 *      dilate, ... over TCP and UDP, started as child processes), half are
 *      raw sockets here: TCP garbage frames, oversized frames after a
 *      Hello, Hellos that never end (a frame announced and trickled a byte
 *      at a time), slow readers (Pings sent, Pongs never read, a tiny
 *      receive buffer), UDP Hello floods and UDP garbage. Each raw client
 *      opens again when the server drops it; hostile_closed counts the drops.
 *
 * Over the measured seconds each run also says how many moves a second were
 * sent (offered_per_s) and how much CPU sweepd, this client and the hostile
 * processes used (server_cpu, client_cpu, hostile_cpu: 1.0 = a whole CPU).
 * On a machine of two CPUs the default soak needs about one for the server
 * and one for this client: near 1.0, the latencies are a queue's.
 *
 * sweepd's resident memory (VmRSS) is read at its start, after the ramp and
 * the 3 s of play, and at the end (rss_max_mb: the most seen in between,
 * read once a second). An honest error is anything an honest session was
 * told or suffered besides its answers: an Error or Bye from the server, a
 * failed connect, spawn or send, a connection that broke. unanswered counts
 * moves still without answer 1 s after the last was sent (UDP may lose).
 *
 * The hostile run is made once per --hostile-sched class (default
 * "idle,normal"): with idle, the hostile processes (sweep-bots and a child
 * holding the raw clients) run at SCHED_IDLE, on CPU time the server and
 * the honest clients leave, so what remains of the harm is the server's;
 * with normal they take the shared cores as equals, and the difference is
 * the machine's. hostile_msgs counts what the raw clients got sent.
 *
 * Each raw client acts every 10 ms (a garbage frame, 4 Pings, 2 datagrams,
 * a byte of an endless Hello): 100 to 400 messages a second each, a few
 * fast players' worth, a slice rather than a flood that would only
 * measure who gets the shared cores.
 *
 * The hostile processes are forked before the honest sessions are made
 * and wait to be told to start: forked after them, from a process holding
 * about a gigabyte, every page this client then wrote faulted (copied for
 * a child that never used it), which halved the moves it could send and
 * was counted as the hostile clients' harm. udp_p99_us is the UDP
 * sessions' p99 alone: a TCP read of several answers stamps them all with
 * its newest segment's arrival, so where this client is late to read, the
 * TCP latencies hold its own delay; a datagram's stamp is its own.
 *
 * The client is one thread, one epoll loop: on a 2-core machine it shares
 * the cores with sweepd, so what a move costs here shows in the figures
 * too. Slow sessions cost one timer entry and a move now and then.
 * 10,000 sockets need RLIMIT_NOFILE raised: it is set to the hard limit
 * (sweepd, a child, inherits it); below what the run needs, the benchmark
 * says so and skips (exit 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client-sdk/client.h"
#include "protocol/encode.h"
#include "protocol/framing.h"
#include "protocol/message.h"
#include "protocol/verify.h"

#define WARMUP_S 3.0
#define FAST_HZ 60.0
/* Fast moves remembered per session (by sequence % RING) to time their
 * answers: 17 s of moves at 60 Hz, so an answer is timed however late it
 * comes within reason; one later still is counted as late_answers, not
 * dropped from the figures unseen (with 8, answers more than 133 ms late
 * went uncounted and p99 looked better than it was). */
#define RING 1024u
/* Latency histogram: 1 us bins below FINE_US, then 1,024 us bins up to
 * HIST_MAX_US (62 s); later still lands in the last bin. */
#define FINE_US 65536u
#define COARSE_US 1024u
#define HIST_MAX_US 62000000u
#define HIST_BINS (FINE_US + (HIST_MAX_US - FINE_US) / COARSE_US + 1)
#define RAW_TICK_NS 10000000 /* raw hostile clients act every 10 ms */
#define MAX_NOTES 5          /* honest errors described on stderr */

/* Where the hostile clients run (--hostile-sched): beside the server and
 * the honest clients as equals (normal), or only on CPU time nothing else
 * wants (idle: SCHED_IDLE), which takes the shared cores out of the
 * figure and leaves what the server's own handling of them costs. */
enum { SCHED_HOSTILE_IDLE, SCHED_HOSTILE_NORMAL, SCHED_HOSTILE_KINDS };
static const char *const sched_names[SCHED_HOSTILE_KINDS] = {"idle", "normal"};

typedef struct options {
    const char *sweepd, *bots, *map, *server_log;
    unsigned sessions, fast, hostile;
    double seconds, slow_rate;
    int scheds[SCHED_HOSTILE_KINDS]; /* the hostile runs, in order */
    unsigned nscheds;
} options;

/* In a hostile child, before anything else: its scheduling class. */
static void hostile_demote(int sched)
{
    if (sched == SCHED_HOSTILE_IDLE) {
        struct sched_param sp = {.sched_priority = 0};
        if (sched_setscheduler(0, SCHED_IDLE, &sp) != 0)
            perror("bench_soak: SCHED_IDLE for the hostile clients");
    }
}

/* --- time, memory ------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* VmRSS of pid in MiB, or -1. */
static double rss_mb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    double mb = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            mb = strtod(line + 6, NULL) / 1024.0;
            break;
        }
    fclose(f);
    return mb;
}

/* CPU seconds pid has used (user and system, all its threads), or -1. */
static double cpu_s(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* Fields after the command's closing parenthesis (the name may hold
     * spaces): state is field 3, utime 14, stime 15. */
    char *p = strrchr(buf, ')');
    unsigned long long ut, st;
    if (p == NULL || sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The machine's count of UDP datagrams dropped for a full receive buffer
 * (/proc/net/snmp, Udp RcvbufErrors), or 0: where unanswered moves went. */
static uint64_t udp_rcvbuf_errors(void)
{
    char head[1024], vals[1024];
    FILE *f = fopen("/proc/net/snmp", "r");
    if (f == NULL)
        return 0;
    uint64_t n = 0;
    while (fgets(head, sizeof head, f) && fgets(vals, sizeof vals, f)) {
        if (strncmp(head, "Udp:", 4) != 0)
            continue;
        char *hs, *vs, *h = strtok_r(head, " \n", &hs), *v = strtok_r(vals, " \n", &vs);
        while (h && v && strcmp(h, "RcvbufErrors") != 0) {
            h = strtok_r(NULL, " \n", &hs);
            v = strtok_r(NULL, " \n", &vs);
        }
        if (h && v)
            n = strtoull(v, NULL, 10);
        break;
    }
    fclose(f);
    return n;
}

/* --- sweepd ------------------------------------------------------------------- */

typedef struct server {
    pid_t pid;
    char tcp[64], udp[64];
} server;

/* Starts sweepd and waits for its ready line; 0 or -1 (said why). */
static int server_start(const options *o, server *s)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    char limit[32];
    /* Every client is on 127.0.0.1: let one address hold them all, plus
     * the hostile ones, plus room for reconnections in flight. Each is an
     * entity of the one world, whose pose history must have room for them
     * all; the soak asks no Query, so the history is kept short (three
     * ticks) to hold 10,000 entities within --history-memory. */
    snprintf(limit, sizeof limit, "%u", o->sessions + o->hostile * 4 + 256);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], 1);
        int log = open(o->server_log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (log >= 0)
            dup2(log, 2);
        close(fds[0]);
        close(fds[1]);
        execl(o->sweepd, o->sweepd, "--map", o->map, "--listen", "127.0.0.1:0", "--log-level", "warn",
              "--max-sessions", limit, "--max-sessions-per-address", limit, "--max-conns-per-address", limit,
              "--max-handshakes-per-address", "256", "--history-entities", limit, "--history-ms", "50",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    s->pid = pid;
    char buf[512];
    size_t len = 0;
    uint64_t deadline = now_ns() + 30000000000ull;
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        int left = (int)((deadline - now_ns()) / 1000000);
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t r = read(fds[0], buf + len, sizeof buf - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
        buf[len] = '\0';
        if (strchr(buf, '\n') && sscanf(buf, "sweepd ready tcp=%63s udp=%63s", s->tcp, s->udp) == 2) {
            close(fds[0]); /* sweepd writes nothing more to stdout */
            return 0;
        }
    }
    close(fds[0]);
    fprintf(stderr, "bench_soak: sweepd did not say it was ready (log: %s)\n", o->server_log);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return -1;
}

static void server_stop(server *s)
{
    int st;
    kill(s->pid, SIGTERM);
    waitpid(s->pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "bench_soak: sweepd ended with status %d\n", st);
}

static int parse_addr(const char *hostport, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(hostport, ':');
    if (colon == NULL || (size_t)(colon - hostport) >= sizeof host)
        return -1;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)atoi(colon + 1));
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

/* --- honest sessions ---------------------------------------------------------- */

typedef struct honest {
    sweep_client *c;
    uint32_t entity;
    int fast, alive, udp;
    uint64_t sent, answered;
    uint64_t period_ns, due;
    uint32_t step;
    uint32_t *ring_seq; /* fast sessions: [RING] sequences sent ... */
    uint64_t *ring_ns;  /* ... and when */
} honest;

typedef struct run {
    const options *o;
    honest *h;
    unsigned n;
    int ep;
    /* timer heap of session indices, earliest due first */
    uint32_t *heap;
    unsigned heap_len;
    uint32_t *hist; /* [HIST_BINS] */
    uint64_t hist_n, late, measured_moves, errors;
    /* The UDP sessions' own: a datagram's kernel time is its own, where a
     * TCP read of several answers gives them all its newest segment's, so
     * a client late to read counts its own delay in TCP's latencies. */
    uint32_t *hist_udp;
    uint64_t hist_udp_n;
    int measuring;
    unsigned notes;
} run;

static void honest_error(run *r, unsigned i, const char *what, const sweep_client_error *e)
{
    r->errors++;
    if (r->notes++ < MAX_NOTES)
        fprintf(stderr, "bench_soak: honest session %u (%s): %s: %s: %s\n", i,
                r->h[i].c && sweep_client_get_transport(r->h[i].c) == SWEEP_CLIENT_UDP ? "udp" : "tcp", what,
                e ? sweep_client_error_name(e) : "-", e ? e->message : "-");
}

static void honest_drop(run *r, unsigned i)
{
    honest *h = &r->h[i];
    if (!h->alive)
        return;
    epoll_ctl(r->ep, EPOLL_CTL_DEL, sweep_client_fd(h->c), NULL);
    h->alive = 0;
}

static int heap_less(const run *r, uint32_t a, uint32_t b)
{
    return r->h[a].due < r->h[b].due;
}

static void heap_push(run *r, uint32_t i)
{
    unsigned k = r->heap_len++;
    while (k > 0) {
        unsigned parent = (k - 1) / 2;
        if (!heap_less(r, i, r->heap[parent]))
            break;
        r->heap[k] = r->heap[parent];
        k = parent;
    }
    r->heap[k] = i;
}

static uint32_t heap_pop(run *r)
{
    uint32_t top = r->heap[0], last = r->heap[--r->heap_len];
    unsigned k = 0;
    for (;;) {
        unsigned c = 2 * k + 1;
        if (c >= r->heap_len)
            break;
        if (c + 1 < r->heap_len && heap_less(r, r->heap[c + 1], r->heap[c]))
            c++;
        if (!heap_less(r, r->heap[c], last))
            break;
        r->heap[k] = r->heap[c];
        k = c;
    }
    if (r->heap_len > 0)
        r->heap[k] = last;
    return top;
}

/* One honest move: a walk round a circle at 1 unit/s, asking one frame's
 * time, so no rule of the server has anything to refuse. */
static void honest_move(run *r, unsigned i)
{
    honest *h = &r->h[i];
    double a = (double)(h->step++ % 360) * (M_PI / 180.0);
    sweep_client_move_req m = {.entity = h->entity, .velocity = sweep_v3(cos(a), sin(a), 0), .dt = 1.0 / FAST_HZ};
    sweep_client_error e;
    uint32_t seq;
    /* This send's own time: a pass sends many moves, and a late one must
     * not be charged the ones before it. */
    uint64_t now = now_ns();
    if (sweep_client_send_move(h->c, &m, &seq, &e) != SWEEP_CLIENT_OK) {
        honest_error(r, i, "send", &e);
        honest_drop(r, i);
        return;
    }
    h->sent++;
    if (h->fast) {
        h->ring_seq[seq % RING] = seq;
        h->ring_ns[seq % RING] = now;
    }
}

static uint32_t hist_bin(uint64_t us)
{
    if (us < FINE_US)
        return (uint32_t)us;
    if (us >= HIST_MAX_US)
        return HIST_BINS - 1;
    return FINE_US + (uint32_t)((us - FINE_US) / COARSE_US);
}

/* The latency a bin stands for: its upper end (a coarse bin's figure is
 * never better than what it holds). */
static uint64_t bin_us(uint32_t bin)
{
    if (bin < FINE_US)
        return bin;
    return FINE_US + (uint64_t)(bin - FINE_US + 1) * COARSE_US - 1;
}

/* Takes what one read of a readable socket queued: the first poll reads
 * (all the socket holds), the others only take what it queued. */
static void honest_read(run *r, unsigned i)
{
    honest *h = &r->h[i];
    sweep_client_event ev;
    sweep_client_error e;
    for (int first = 1;; first = 0) {
        if (!first && sweep_client_pending(h->c) == 0)
            return;
        sweep_client_status s = sweep_client_poll(h->c, 0, &ev, &e);
        if (s == SWEEP_CLIENT_E_TIMEOUT)
            return;
        if (s != SWEEP_CLIENT_OK) {
            honest_error(r, i, "connection", &e);
            honest_drop(r, i);
            return;
        }
        switch (ev.kind) {
        case SWEEP_CLIENT_EV_MOVE_RESULT:
            h->answered++;
            if (r->measuring)
                r->measured_moves++;
            if (h->fast && r->measuring) {
                /* received_ns is the kernel's arrival time (libsweep), so
                 * the time this loop took to come round is not counted. */
                if (h->ring_seq[ev.sequence % RING] == ev.sequence) {
                    uint64_t sent = h->ring_ns[ev.sequence % RING];
                    uint64_t us = ev.received_ns > sent ? (ev.received_ns - sent) / 1000u : 0;
                    r->hist[hist_bin(us)]++;
                    r->hist_n++;
                    if (h->udp) {
                        r->hist_udp[hist_bin(us)]++;
                        r->hist_udp_n++;
                    }
                } else {
                    r->late++;
                }
            }
            break;
        case SWEEP_CLIENT_EV_ERROR:
            honest_error(r, i, "server Error", &ev.as.error);
            break;
        case SWEEP_CLIENT_EV_BYE:
            honest_error(r, i, "server Bye", &ev.as.error);
            honest_drop(r, i);
            return;
        default:
            break;
        }
    }
}

static double percentile_us(const uint32_t *hist, uint64_t n, double q)
{
    if (n == 0)
        return 0;
    uint64_t want = (uint64_t)ceil(q * (double)n), seen = 0;
    for (uint32_t b = 0; b < HIST_BINS; b++) {
        seen += hist[b];
        if (seen >= want && seen > 0)
            return (double)bin_us(b);
    }
    return HIST_MAX_US;
}

/* --- raw hostile clients ------------------------------------------------------- */

enum { RAW_GARBAGE, RAW_OVERSIZE, RAW_ENDLESS_HELLO, RAW_SLOW_READER, RAW_UDP_HELLO, RAW_UDP_GARBAGE, RAW_KINDS };

typedef struct raw {
    int kind, fd, state;
    uint64_t reopen_at;
} raw;

typedef struct hostiles {
    raw *raw;
    unsigned nraw;
    struct sockaddr_in tcp, udp;
    uint8_t hello[512], udp_hello[512], ping[128];
    size_t hello_len, udp_hello_len, ping_len;
    uint64_t closed; /* raw clients the server dropped */
    uint64_t sent;   /* messages (frames, datagrams, bytes of an endless Hello) the sockets took */
    pid_t raw_pid;   /* the child that runs the raw clients; -1 none */
    int raw_fd;      /* its pipe: closed and sent, when it ends */
    int raw_go;      /* the pipe that tells it when to end (0: at once, nothing done) */
    pid_t bots[2];
    int bots_go[2];  /* their pipes until they are told to go (cheaters_go) */
    uint32_t rng;
} hostiles;

static uint32_t xorshift(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void fill_random(hostiles *hs, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)xorshift(&hs->rng);
}

static int encode_into(const sweep_message *m, unsigned flags, int padded, uint8_t *dst, size_t *len)
{
    static uint8_t scratch[4096];
    const uint8_t *out;
    sweep_proto_error pe = padded ? sweep_encode_padded(m, flags, SWEEP_UDP_HELLO_MIN, scratch, sizeof scratch, &out, len)
                                  : sweep_encode(m, flags, scratch, sizeof scratch, &out, len);
    if (pe != SWEEP_PROTO_OK)
        return -1;
    memcpy(dst, out, *len);
    return 0;
}

static int hostiles_prepare(hostiles *hs, const server *s, unsigned nraw)
{
    memset(hs, 0, sizeof *hs);
    hs->rng = 2463534242u;
    hs->bots[0] = hs->bots[1] = -1;
    hs->raw_pid = -1;
    hs->raw_fd = -1;
    hs->raw_go = -1;
    hs->bots_go[0] = hs->bots_go[1] = -1;
    if (parse_addr(s->tcp, &hs->tcp) != 0 || parse_addr(s->udp, &hs->udp) != 0)
        return -1;
    sweep_message m = {.kind = SWEEP_MSG_HELLO, .sequence = 1};
    m.as.hello.protocol_version = SWEEP_PROTOCOL_VERSION;
    m.as.hello.client_name = sweep_str_of("soak-hostile");
    if (encode_into(&m, SWEEP_WIRE_SIZE_PREFIXED, 0, hs->hello, &hs->hello_len) != 0 ||
        encode_into(&m, 0, 1, hs->udp_hello, &hs->udp_hello_len) != 0)
        return -1;
    sweep_message p = {.kind = SWEEP_MSG_PING, .sequence = 2};
    if (encode_into(&p, SWEEP_WIRE_SIZE_PREFIXED, 0, hs->ping, &hs->ping_len) != 0)
        return -1;
    hs->nraw = nraw;
    hs->raw = calloc(nraw ? nraw : 1, sizeof *hs->raw);
    if (hs->raw == NULL)
        return -1;
    for (unsigned i = 0; i < nraw; i++) {
        hs->raw[i].kind = (int)(i % RAW_KINDS);
        hs->raw[i].fd = -1;
    }
    return 0;
}

static void raw_close(hostiles *hs, raw *c, uint64_t now, int by_server)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->state = 0;
    c->reopen_at = now + 20000000u; /* 20 ms: a hostile client comes straight back */
    hs->closed += by_server;
}

static int raw_is_udp(const raw *c)
{
    return c->kind == RAW_UDP_HELLO || c->kind == RAW_UDP_GARBAGE;
}

static void raw_open(hostiles *hs, raw *c)
{
    int udp = raw_is_udp(c);
    c->fd = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        return;
    if (c->kind == RAW_SLOW_READER) {
        /* A small window so the server's answers back up at once. */
        int small = 4096;
        setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    }
    const struct sockaddr_in *to = udp ? &hs->udp : &hs->tcp;
    if (connect(c->fd, (const struct sockaddr *)to, sizeof *to) != 0 && errno != EINPROGRESS) {
        close(c->fd);
        c->fd = -1;
    }
    c->state = 0;
}

/* Writes len bytes (what the socket takes); -1 when the server has gone. */
static int raw_send(hostiles *hs, int fd, const void *b, size_t len)
{
    ssize_t w = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    hs->sent += w > 0;
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)
        return -1;
    return 0;
}

/* Reads and drops what came; -1 when the server closed the connection. */
static int raw_drain(int fd)
{
    static uint8_t sink[65536];
    for (;;) {
        ssize_t r = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
        if (r > 0)
            continue;
        if (r == 0)
            return -1;
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN ? 0 : -1;
    }
}

static void raw_step(hostiles *hs, uint64_t now)
{
    uint8_t buf[2048];
    for (unsigned i = 0; i < hs->nraw; i++) {
        raw *c = &hs->raw[i];
        if (c->fd < 0) {
            if (now >= c->reopen_at)
                raw_open(hs, c);
            if (c->fd < 0)
                continue;
        }
        int gone = 0;
        if (c->kind != RAW_SLOW_READER && raw_drain(c->fd) < 0)
            gone = 1;
        switch (c->kind) {
        case RAW_GARBAGE: /* frames of a sane size, bodies of noise */
            buf[0] = 200, buf[1] = buf[2] = buf[3] = 0;
            fill_random(hs, buf + 4, 200);
            gone |= raw_send(hs, c->fd, buf, 204) < 0;
            break;
        case RAW_OVERSIZE: /* a proper Hello, then a frame far past --max-frame */
            if (c->state == 0) {
                gone |= raw_send(hs, c->fd, hs->hello, hs->hello_len) < 0;
                c->state = 1;
            } else if (c->state == 1) {
                uint32_t big = 64u << 20;
                memcpy(buf, &big, 4);
                memset(buf + 4, 0, 1020);
                gone |= raw_send(hs, c->fd, buf, 1024) < 0;
                c->state = 2;
            }
            break;
        case RAW_ENDLESS_HELLO: /* a Hello frame announced, then a byte per tick */
            if (c->state == 0) {
                uint32_t len = 1000;
                memcpy(buf, &len, 4);
                gone |= raw_send(hs, c->fd, buf, 4) < 0;
                c->state = 1;
            } else {
                gone |= raw_send(hs, c->fd, hs->hello + 4 + (size_t)(c->state - 1) % (hs->hello_len - 4), 1) < 0;
                c->state++;
            }
            break;
        case RAW_SLOW_READER: /* a session asking Pings, reading no Pong */
            if (c->state == 0) {
                gone |= raw_send(hs, c->fd, hs->hello, hs->hello_len) < 0;
                c->state = 1;
            } else {
                for (int k = 0; k < 4 && !gone; k++)
                    gone |= raw_send(hs, c->fd, hs->ping, hs->ping_len) < 0;
            }
            break;
        case RAW_UDP_HELLO: /* Hellos without cookie: each costs the server a Challenge */
            for (int k = 0; k < 2; k++)
                hs->sent += send(c->fd, hs->udp_hello, hs->udp_hello_len, MSG_DONTWAIT) > 0;
            break;
        case RAW_UDP_GARBAGE:
            for (int k = 0; k < 2; k++) {
                size_t len = 16 + xorshift(&hs->rng) % (SWEEP_UDP_MAX_DATAGRAM - 16);
                fill_random(hs, buf, len);
                hs->sent += send(c->fd, buf, len, MSG_DONTWAIT) > 0;
            }
            break;
        }
        if (gone && !raw_is_udp(c))
            raw_close(hs, c, now, 1);
    }
}

/* The raw clients, in a child of their own in the scheduling class asked,
 * acting every RAW_TICK_NS until end_at; then they close and the child
 * writes what it counted to its pipe. A process of their own, so the class
 * applies to them and not to the honest clients, and the honest loop is
 * not delayed by their sends either way. */
/* The raw clients' child is forked before the honest sessions are made,
 * while this process is small, and waits for raw_go: forked after them,
 * every page of their gigabyte this process then wrote was first copied
 * for the child, which made the honest client half as fast in the hostile
 * runs and was no part of what the server does. */
static int raw_fork(hostiles *hs, int sched)
{
    if (hs->nraw == 0)
        return 0;
    int fds[2], go[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(go, O_CLOEXEC) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        close(go[0]);
        close(go[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        close(go[1]);
        hostile_demote(sched);
        uint64_t end_at = 0;
        if (read(go[0], &end_at, sizeof end_at) != (ssize_t)sizeof end_at || end_at == 0)
            _exit(0);
        uint64_t now, next = now_ns();
        while ((now = now_ns()) < end_at) {
            if (now < next) {
                uint64_t d = next - now;
                struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u), .tv_nsec = (long)(d % 1000000000u)};
                nanosleep(&ts, NULL);
                continue;
            }
            raw_step(hs, now);
            next += RAW_TICK_NS;
            if (next < now)
                next = now + RAW_TICK_NS;
        }
        for (unsigned i = 0; i < hs->nraw; i++)
            if (hs->raw[i].fd >= 0)
                raw_close(hs, &hs->raw[i], now, 0);
        uint64_t out[2] = {hs->closed, hs->sent};
        _exit(write(fds[1], out, sizeof out) == (ssize_t)sizeof out ? 0 : 1);
    }
    close(fds[1]);
    close(go[0]);
    hs->raw_pid = pid;
    hs->raw_fd = fds[0];
    hs->raw_go = go[1];
    return 0;
}

/* Starts the forked raw clients until end_at (monotonic ns). */
static int raw_go(hostiles *hs, uint64_t end_at)
{
    if (hs->raw_go < 0)
        return 0;
    int ok = write(hs->raw_go, &end_at, sizeof end_at) == (ssize_t)sizeof end_at;
    close(hs->raw_go);
    hs->raw_go = -1;
    return ok ? 0 : -1;
}

/* sweep-bots with the cheating player modes, over TCP or UDP: forked
 * before the honest sessions are made, as the raw clients' child is (a
 * fork after them leaves every page of theirs to fault again on this
 * process's next write), it waits for cheaters_go to say for how long, then
 * runs it. *go is the pipe's end to say it on. */
static pid_t cheaters_fork(const options *o, const server *s, unsigned clients, int udp, int sched, int *go)
{
    *go = -1;
    if (clients == 0)
        return -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        double secs = 0;
        if (read(p[0], &secs, sizeof secs) != (ssize_t)sizeof secs || !(secs > 0))
            _exit(0);
        hostile_demote(sched);
        char nclients[16], dur[32];
        snprintf(nclients, sizeof nclients, "%u", clients);
        snprintf(dur, sizeof dur, "%.0f", secs);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        const char *modes = "speed,dilate,flood,burst,fly,noclip,jump,teleport,shrink,spawn-anywhere";
        if (udp)
            execl(o->bots, o->bots, "--connect", s->udp, "--udp", "--mode", modes, "--map", o->map, "--clients",
                  nclients, "--duration", dur, "--warmup", "0", (char *)NULL);
        else
            execl(o->bots, o->bots, "--connect", s->tcp, "--mode", modes, "--map", o->map, "--clients", nclients,
                  "--duration", dur, "--warmup", "0", (char *)NULL);
        _exit(127);
    }
    close(p[0]);
    if (pid < 0)
        close(p[1]);
    else
        *go = p[1];
    return pid;
}

/* Starts forked cheaters for secs; 0 ends them unstarted. */
static void cheaters_go(int *go, double secs)
{
    if (*go < 0)
        return;
    if (write(*go, &secs, sizeof secs) != (ssize_t)sizeof secs && secs > 0)
        fprintf(stderr, "bench_soak: the cheating bots could not be started\n");
    close(*go);
    *go = -1;
}

/* The raw clients' child ends by itself at the end of the run: its
 * figures are read, then the bots are ended. */
static void hostiles_stop(hostiles *hs)
{
    /* Cheaters never told to go end first: until they exec, they hold the
     * raw child's pipe too. */
    for (int k = 0; k < 2; k++)
        cheaters_go(&hs->bots_go[k], 0);
    if (hs->raw_go >= 0) { /* never started: it ends at once */
        close(hs->raw_go);
        hs->raw_go = -1;
        close(hs->raw_fd);
        waitpid(hs->raw_pid, NULL, 0);
        hs->raw_pid = -1;
    }
    if (hs->raw_pid > 0) {
        uint64_t in[2];
        if (read(hs->raw_fd, in, sizeof in) == (ssize_t)sizeof in) {
            hs->closed = in[0];
            hs->sent = in[1];
        } else {
            fprintf(stderr, "bench_soak: the raw hostile clients' child said nothing at its end\n");
        }
        close(hs->raw_fd);
        waitpid(hs->raw_pid, NULL, 0);
    }
    for (int k = 0; k < 2; k++)
        if (hs->bots[k] > 0) {
            kill(hs->bots[k], SIGTERM);
            waitpid(hs->bots[k], NULL, 0);
        }
    free(hs->raw);
}

/* --- one run ------------------------------------------------------------------ */

typedef struct result {
    double moves_per_s, p50, p99, rss_start, rss_ramped, rss_end, rss_max, ramp_s;
    /* Over the measured seconds: moves sent a second, and the CPUs (1 = one
     * whole CPU) sweepd, this client (its own process) and the hostile
     * processes used: a run whose server or client is near 1 measured a
     * queue, not a move. */
    double offered_per_s, server_cpu, client_cpu, hostile_cpu;
    double udp_p99; /* the UDP sessions' p99 alone (run.hist_udp) */
    uint64_t errors, unanswered, hostile_closed, hostile_msgs, udp_drops, latency_samples, late_answers;
    unsigned sessions;
} result;

/* What the CPU figures of a run are made of, read at the start and the end
 * of its measured seconds. */
typedef struct cpu_mark {
    double server, client, hostile;
    uint64_t sent;
} cpu_mark;

static double self_cpu_s(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

static cpu_mark cpu_mark_now(const run *r, const server *srv, const hostiles *hs)
{
    cpu_mark m = {cpu_s(srv->pid), self_cpu_s(), 0, 0};
    pid_t hp[3] = {hs->bots[0], hs->bots[1], hs->raw_pid};
    for (int k = 0; k < 3; k++)
        if (hp[k] > 0) {
            double c = cpu_s(hp[k]);
            m.hostile += c > 0 ? c : 0;
        }
    for (unsigned i = 0; i < r->n; i++)
        m.sent += r->h[i].sent;
    return m;
}

static int soak(const options *o, unsigned hostile, int sched, result *res)
{
    memset(res, 0, sizeof *res);
    server srv;
    if (server_start(o, &srv) != 0)
        return -1;
    res->rss_start = rss_mb(srv.pid);
    uint64_t drops0 = udp_rcvbuf_errors();
    run r = {.o = o, .n = o->sessions};
    r.h = calloc(r.n, sizeof *r.h);
    r.heap = calloc(r.n, sizeof *r.heap);
    r.hist = calloc(HIST_BINS, sizeof *r.hist);
    r.hist_udp = calloc(HIST_BINS, sizeof *r.hist_udp);
    r.ep = epoll_create1(EPOLL_CLOEXEC);
    if (r.h == NULL || r.heap == NULL || r.hist == NULL || r.hist_udp == NULL || r.ep < 0) {
        server_stop(&srv);
        return -1;
    }

    hostiles hs;
    if (hostiles_prepare(&hs, &srv, hostile - hostile / 2) != 0) {
        fprintf(stderr, "bench_soak: could not prepare the hostile clients\n");
        server_stop(&srv);
        return -1;
    }
    if (raw_fork(&hs, sched) != 0)
        fprintf(stderr, "bench_soak: the raw hostile clients could not be started\n");
    if (hostile) {
        unsigned cheaters = hostile / 2;
        hs.bots[0] = cheaters_fork(o, &srv, cheaters - cheaters / 2, 0, sched, &hs.bots_go[0]);
        hs.bots[1] = cheaters_fork(o, &srv, cheaters / 2, 1, sched, &hs.bots_go[1]);
    }

    /* The ramp: one session after the other, each spawned; the fast ones
     * spread over the whole range so TCP and UDP both have them. */
    uint64_t t0 = now_ns();
    unsigned every = o->fast ? o->sessions / o->fast : 0;
    unsigned nfast = 0;
    for (unsigned i = 0; i < r.n; i++) {
        honest *h = &r.h[i];
        sweep_client_options co;
        sweep_client_options_init(&co);
        h->udp = i % 2;
        co.transport = h->udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
        co.address = i % 2 ? srv.udp : srv.tcp;
        co.client_name = "soak";
        sweep_client_error e;
        if (sweep_client_connect(&co, &h->c, &e) != SWEEP_CLIENT_OK) {
            honest_error(&r, i, "connect", &e);
            continue;
        }
        sweep_msg_spawned sp;
        if (sweep_client_spawn_player(h->c, 0, &sp, &e) != SWEEP_CLIENT_OK) {
            honest_error(&r, i, "spawn", &e);
            continue;
        }
        h->entity = sp.entity;
        /* By pairs (one TCP, one UDP): an even `every` alone would pick
         * only TCP sessions. */
        h->fast = every && (i / 2) % every == 0 && nfast < o->fast;
        nfast += (unsigned)h->fast;
        if (h->fast) {
            h->ring_seq = calloc(RING, sizeof *h->ring_seq);
            h->ring_ns = calloc(RING, sizeof *h->ring_ns);
            if (h->ring_seq == NULL || h->ring_ns == NULL) {
                honest_error(&r, i, "out of memory", NULL);
                continue;
            }
        }
        h->alive = 1;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
        if (epoll_ctl(r.ep, EPOLL_CTL_ADD, sweep_client_fd(h->c), &ev) != 0) {
            honest_error(&r, i, "epoll_ctl", NULL);
            h->alive = 0;
        }
    }
    uint64_t t1 = now_ns();
    res->ramp_s = (double)(t1 - t0) / 1e9;
    res->sessions = 0;
    for (unsigned i = 0; i < r.n; i++) {
        honest *h = &r.h[i];
        if (!h->alive)
            continue;
        res->sessions++;
        h->period_ns = (uint64_t)(1e9 / (h->fast ? FAST_HZ : o->slow_rate));
        /* First moves spread over one period, so the sessions do not beat together. */
        h->due = t1 + (uint64_t)((double)h->period_ns * ((double)i / (double)r.n));
        heap_push(&r, i);
    }

    uint64_t measure_at = t1 + (uint64_t)(WARMUP_S * 1e9);
    uint64_t end_at = measure_at + (uint64_t)(o->seconds * 1e9);
    if (hostile) {
        double secs = WARMUP_S + o->seconds + 2;
        cheaters_go(&hs.bots_go[0], secs);
        cheaters_go(&hs.bots_go[1], secs);
        if (raw_go(&hs, end_at) != 0)
            fprintf(stderr, "bench_soak: the raw hostile clients could not be started\n");
    }
    uint64_t next_rss = measure_at + 1000000000u;
    cpu_mark mark0 = {0, 0, 0, 0};
    struct epoll_event evs[512];
    uint64_t now = now_ns();
    while (now < end_at) {
        while (r.heap_len > 0 && r.h[r.heap[0]].due <= now) {
            uint32_t i = heap_pop(&r);
            honest *h = &r.h[i];
            if (!h->alive)
                continue;
            honest_move(&r, i);
            h->due += h->period_ns;
            if (h->due + h->period_ns < now) /* fell behind by more than a move: no burst to catch up */
                h->due = now + h->period_ns;
            heap_push(&r, i);
        }
        if (!r.measuring && now >= measure_at) {
            r.measuring = 1;
            res->rss_ramped = res->rss_max = rss_mb(srv.pid);
            mark0 = cpu_mark_now(&r, &srv, &hs);
        }
        if (r.measuring && now >= next_rss) {
            double m = rss_mb(srv.pid);
            if (m > res->rss_max)
                res->rss_max = m;
            next_rss += 1000000000u;
        }
        uint64_t wake = end_at;
        if (r.heap_len > 0 && r.h[r.heap[0]].due < wake)
            wake = r.h[r.heap[0]].due;
        if (!r.measuring && measure_at < wake)
            wake = measure_at;
        now = now_ns();
        int timeout = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
        /* Every socket that is ready is read before the next sends: a TCP
         * answer left waiting takes the arrival time of the newest one
         * read with it, so a client that read 512 sockets a pass counted
         * its own lag as the server's. */
        for (int k = 512; k == 512; timeout = 0) {
            k = epoll_wait(r.ep, evs, 512, timeout);
            for (int j = 0; j < k; j++)
                if (r.h[evs[j].data.u32].alive)
                    honest_read(&r, evs[j].data.u32);
        }
        now = now_ns();
    }
    res->rss_end = rss_mb(srv.pid);
    if (res->rss_end > res->rss_max)
        res->rss_max = res->rss_end;
    double measured_s = (double)(now - measure_at) / 1e9;
    cpu_mark mark1 = cpu_mark_now(&r, &srv, &hs);
    res->offered_per_s = (double)(mark1.sent - mark0.sent) / measured_s;
    res->server_cpu = (mark1.server - mark0.server) / measured_s;
    res->client_cpu = (mark1.client - mark0.client) / measured_s;
    res->hostile_cpu = (mark1.hostile - mark0.hostile) / measured_s;
    r.measuring = 0;
    hostiles_stop(&hs);
    res->hostile_closed = hs.closed;
    res->hostile_msgs = hs.sent;

    /* A second for the last answers, then what never came. */
    uint64_t drain_end = now_ns() + 1000000000u;
    while ((now = now_ns()) < drain_end) {
        int k = epoll_wait(r.ep, evs, 512, (int)((drain_end - now) / 1000000) + 1);
        for (int j = 0; j < k; j++)
            if (r.h[evs[j].data.u32].alive)
                honest_read(&r, evs[j].data.u32);
    }
    for (unsigned i = 0; i < r.n; i++) {
        if (r.h[i].alive)
            res->unanswered += r.h[i].sent - r.h[i].answered;
        sweep_client_close(r.h[i].c);
        free(r.h[i].ring_seq);
        free(r.h[i].ring_ns);
    }
    res->udp_drops = udp_rcvbuf_errors() - drops0;
    server_stop(&srv);

    res->moves_per_s = (double)r.measured_moves / measured_s;
    res->p50 = percentile_us(r.hist, r.hist_n, 0.50);
    res->p99 = percentile_us(r.hist, r.hist_n, 0.99);
    res->udp_p99 = percentile_us(r.hist_udp, r.hist_udp_n, 0.99);
    res->errors = r.errors;
    res->latency_samples = r.hist_n;
    res->late_answers = r.late;
    fprintf(stderr,
            "bench_soak: %s%s: %u sessions (%u fast) connected and spawned in %.1f s; %" PRIu64
            " latency samples; rss max %.1f MiB; %" PRIu64 " moves unanswered, %" PRIu64 " UDP datagrams dropped for full buffers (the machine's)\n",
            hostile ? "with hostile clients at " : "honest only", hostile ? sched_names[sched] : "", res->sessions, nfast, res->ramp_s, r.hist_n,
            res->rss_max, res->unanswered, res->udp_drops);
    close(r.ep);
    free(r.h);
    free(r.heap);
    free(r.hist);
    free(r.hist_udp);
    return 0;
}

/* --- main --------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: bench_soak --sweepd PATH --bots PATH --map FILE [--sessions N] [--fast N] [--seconds S]\n"
                    "                  [--slow-rate M] [--hostile N] [--hostile-sched idle,normal] [--server-log FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    options o = {.sessions = 10000, .fast = 1000, .hostile = 200, .seconds = 180, .slow_rate = 2,
                 .server_log = "/dev/null", .scheds = {SCHED_HOSTILE_IDLE, SCHED_HOSTILE_NORMAL}, .nscheds = 2};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            usage();
        if (strcmp(a, "--sweepd") == 0)
            o.sweepd = v;
        else if (strcmp(a, "--bots") == 0)
            o.bots = v;
        else if (strcmp(a, "--map") == 0)
            o.map = v;
        else if (strcmp(a, "--server-log") == 0)
            o.server_log = v;
        else if (strcmp(a, "--sessions") == 0)
            o.sessions = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--fast") == 0)
            o.fast = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--hostile") == 0)
            o.hostile = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--seconds") == 0)
            o.seconds = strtod(v, NULL);
        else if (strcmp(a, "--slow-rate") == 0)
            o.slow_rate = strtod(v, NULL);
        else if (strcmp(a, "--hostile-sched") == 0) {
            o.nscheds = 0;
            char list[64], *save = NULL;
            snprintf(list, sizeof list, "%s", v);
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                while (k < SCHED_HOSTILE_KINDS && strcmp(t, sched_names[k]) != 0)
                    k++;
                if (k == SCHED_HOSTILE_KINDS || o.nscheds == SCHED_HOSTILE_KINDS)
                    usage();
                o.scheds[o.nscheds++] = k;
            }
            if (o.nscheds == 0)
                usage();
        } else
            usage();
        i++;
    }
    if (o.sweepd == NULL || o.bots == NULL || o.map == NULL || o.sessions == 0 || o.fast > o.sessions ||
        o.seconds <= 0 || o.slow_rate <= 0)
        usage();
    signal(SIGPIPE, SIG_IGN);

    /* The sockets of every session, the hostile ones, and a margin for
     * sweepd (which inherits the limit: its listening sockets, the map). */
    struct rlimit rl;
    rlim_t need = (rlim_t)o.sessions + o.hostile + 512;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    printf("bench_soak: RLIMIT_NOFILE %llu (need %llu)\n", (unsigned long long)rl.rlim_cur,
           (unsigned long long)need);
    if (rl.rlim_cur < need) {
        printf("run-bench: server.soak skipped: the descriptor hard limit (%llu) is below the %llu the run needs\n",
               (unsigned long long)rl.rlim_max, (unsigned long long)need);
        return 0;
    }
    fflush(stdout);

    result base, hostile;
    if (soak(&o, 0, 0, &base) != 0)
        return 1;
    printf("BENCH name=server.soak sessions=%u fast=%u seconds=%.0f moves_per_s=%.0f p50_us=%.0f p99_us=%.0f "
           "rss_start_mb=%.1f rss_ramped_mb=%.1f rss_end_mb=%.1f honest_errors=%" PRIu64 " rss_max_mb=%.1f "
           "unanswered=%" PRIu64 " udp_drops=%" PRIu64 " ramp_s=%.1f latency_samples=%" PRIu64 " late_answers=%" PRIu64
           " offered_per_s=%.0f server_cpu=%.2f client_cpu=%.2f udp_p99_us=%.0f\n",
           base.sessions, o.fast, o.seconds, base.moves_per_s, base.p50, base.p99, base.rss_start, base.rss_ramped,
           base.rss_end, base.errors, base.rss_max, base.unanswered, base.udp_drops, base.ramp_s, base.latency_samples,
           base.late_answers, base.offered_per_s, base.server_cpu, base.client_cpu, base.udp_p99);
    fflush(stdout);
    if (o.hostile == 0)
        return base.errors ? 1 : 0;
    uint64_t errors = base.errors;
    for (unsigned k = 0; k < o.nscheds; k++) {
        int sched = o.scheds[k];
        if (soak(&o, o.hostile, sched, &hostile) != 0)
            return 1;
        errors += hostile.errors;
        /* server.soak_hostile: the hostile clients on idle CPU time, what
         * the server's handling of them costs; _shared: on the cores as
         * equals, the machine's part added. */
        printf("BENCH name=server.soak_hostile%s hostile_sched=%s sessions=%u fast=%u seconds=%.0f moves_per_s=%.0f "
               "p50_us=%.0f honest_p99_us=%.0f baseline_p99_us=%.0f p99_ratio=%.2f rss_start_mb=%.1f "
               "rss_ramped_mb=%.1f rss_end_mb=%.1f honest_errors=%" PRIu64 " hostile=%u hostile_closed=%" PRIu64
               " hostile_msgs=%" PRIu64 " unanswered=%" PRIu64 " udp_drops=%" PRIu64 " latency_samples=%" PRIu64
               " late_answers=%" PRIu64 " offered_per_s=%.0f server_cpu=%.2f client_cpu=%.2f hostile_cpu=%.2f"
               " udp_p99_us=%.0f baseline_udp_p99_us=%.0f udp_p99_ratio=%.2f\n",
               sched == SCHED_HOSTILE_IDLE ? "" : "_shared", sched_names[sched], hostile.sessions, o.fast,
               o.seconds, hostile.moves_per_s, hostile.p50, hostile.p99, base.p99,
               base.p99 > 0 ? hostile.p99 / base.p99 : 0, hostile.rss_start, hostile.rss_ramped, hostile.rss_end,
               hostile.errors, o.hostile, hostile.hostile_closed, hostile.hostile_msgs, hostile.unanswered,
               hostile.udp_drops, hostile.latency_samples, hostile.late_answers, hostile.offered_per_s,
               hostile.server_cpu, hostile.client_cpu, hostile.hostile_cpu, hostile.udp_p99, base.udp_p99,
               base.udp_p99 > 0 ? hostile.udp_p99 / base.udp_p99 : 0);
        fflush(stdout);
    }
    return errors ? 1 : 0;
}
