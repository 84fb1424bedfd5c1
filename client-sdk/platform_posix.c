/*
 * platform_posix.c - libsweep's platform layer (platform.h) on POSIX
 * systems: Linux, and the BSDs and macOS by the same calls where they
 * have them.
 *
 * Linux gives two things more, each used only where the system's headers
 * say it is there: recvmmsg and sendmmsg, which take a batch of datagrams
 * in one system call, and SO_TIMESTAMPNS, the kernel's receive time of each
 * datagram or segment (on the real-time clock; moved here to the
 * monotonic one). Without them a batch is a loop of recvmsg (send) and an
 * arrival is the time of its read. A system without MSG_NOSIGNAL (macOS)
 * keeps SIGPIPE away with SO_NOSIGPIPE on the socket instead.
 */
#define _GNU_SOURCE /* recvmmsg, sendmmsg, SOCK_NONBLOCK, SOCK_CLOEXEC */
#include "client-sdk/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__) && defined(SO_TIMESTAMPNS)
#define SWEEP__STAMPS 1
#else
#define SWEEP__STAMPS 0
#endif
#if defined(__linux__)
#define SWEEP__MMSG 1
#else
#define SWEEP__MMSG 0
#endif
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

/* Control bytes per datagram: room for the kernel's receive time. */
#define SWEEP__CMSG_BYTES 64

int sweep__net_start(int *sys)
{
    (void)sys;
    return 0;
}

void sweep__net_stop(void)
{
}

int sweep__net_last(void)
{
    return errno;
}

const char *sweep__net_text(int sys, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strerror(sys));
    return buf;
}

uint64_t sweep__clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

sweep__net_kind sweep__net_classify(int sys)
{
    switch (sys) {
    case 0:
        return SWEEP__NET_OK;
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EINTR:
        return SWEEP__NET_AGAIN;
    case EINPROGRESS:
        return SWEEP__NET_IN_PROGRESS;
    case ECONNREFUSED:
        return SWEEP__NET_REFUSED;
    case EPIPE:
    case ECONNRESET:
        return SWEEP__NET_CLOSED;
    case ETIMEDOUT:
        return SWEEP__NET_TIMED_OUT;
    default:
        return SWEEP__NET_OTHER;
    }
}

#if !(defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC))
/* Non-blocking and close-on-exec, where socket(2) cannot say so itself. */
static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    int fdf = fcntl(fd, F_GETFD);
    if (fl < 0 || fdf < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, fdf | FD_CLOEXEC) < 0)
        return -1;
    return 0;
}
#endif

sweep__sock sweep__sock_open(int family, int socktype, int protocol, int *sys)
{
#if defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC)
    int fd = socket(family, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
    if (fd < 0) {
        *sys = errno;
        return SWEEP__NO_SOCK;
    }
#else
    int fd = socket(family, socktype, protocol);
    if (fd < 0 || set_flags(fd) < 0) {
        *sys = errno;
        if (fd >= 0)
            close(fd);
        return SWEEP__NO_SOCK;
    }
#endif
    int one = 1;
    /* Requests are small and latency matters more than packet count. */
    if (socktype == SOCK_STREAM)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
#if SWEEP__STAMPS
    /* Without it (an old kernel) events keep the time they were read. */
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
#endif
#ifdef SO_NOSIGPIPE
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    return fd;
}

void sweep__sock_close(sweep__sock s)
{
    if (s >= 0)
        close(s);
}

sweep__net_kind sweep__sock_connect(sweep__sock s, const struct sockaddr *sa, size_t len, int *sys)
{
    if (connect(s, sa, (socklen_t)len) == 0)
        return SWEEP__NET_OK;
    *sys = errno;
    sweep__net_kind k = sweep__net_classify(errno);
    return k == SWEEP__NET_AGAIN && errno != EINTR ? SWEEP__NET_OTHER : k;
}

int sweep__sock_connect_result(sweep__sock s)
{
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
        return errno;
    return soerr;
}

long sweep__sock_send(sweep__sock s, const void *data, size_t len, sweep__net_kind *kind, int *sys)
{
    ssize_t w = send(s, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
        *sys = errno;
        *kind = sweep__net_classify(errno);
        return -1;
    }
    return (long)w;
}

int sweep__sock_send_datagrams(sweep__sock s, const uint8_t *data, const size_t *lens, unsigned count,
                               sweep__net_kind *kind, int *sys)
{
#if SWEEP__MMSG
    /* At most SWEEP__TX_GROUP a call: the headers live on the stack. */
    enum { SWEEP__TX_GROUP = 64 };
    struct mmsghdr msgs[SWEEP__TX_GROUP];
    struct iovec iov[SWEEP__TX_GROUP];
    unsigned n = count < SWEEP__TX_GROUP ? count : SWEEP__TX_GROUP;
    size_t off = 0;
    for (unsigned k = 0; k < n; k++) {
        iov[k].iov_base = (void *)(data + off);
        iov[k].iov_len = lens[k];
        off += lens[k];
        memset(&msgs[k], 0, sizeof msgs[k]);
        msgs[k].msg_hdr.msg_iov = &iov[k];
        msgs[k].msg_hdr.msg_iovlen = 1;
    }
    int w = sendmmsg(s, msgs, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
        *sys = errno;
        *kind = sweep__net_classify(errno);
        return -1;
    }
    return w;
#else
    return sweep__sock_send_each(s, data, lens, count, kind, sys);
#endif
}

int sweep__sock_wait(sweep__sock s, int events, int timeout_ms, int *revents, int *sys)
{
    struct pollfd p = {.fd = s, .events = (short)events};
    *revents = 0;
    int r = poll(&p, 1, timeout_ms);
    if (r < 0) {
        if (errno == EINTR)
            return 0;
        *sys = errno;
        return -1;
    }
    *revents = p.revents;
    return r > 0;
}

#if SWEEP__STAMPS
static int64_t ts_ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* CLOCK_MONOTONIC minus CLOCK_REALTIME now, in ns: the kernel stamps
 * arrivals on the real-time clock, events carry the monotonic one. The
 * monotonic reading sits between two real-time ones, and of three tries
 * the tightest pair wins: a thread preempted between two readings would
 * otherwise move every stamp by as long as it waited. */
static int64_t mono_minus_real(void)
{
    int64_t best = 0, width = INT64_MAX;
    for (int i = 0; i < 3; i++) {
        struct timespec r1, m, r2;
        clock_gettime(CLOCK_REALTIME, &r1);
        clock_gettime(CLOCK_MONOTONIC, &m);
        clock_gettime(CLOCK_REALTIME, &r2);
        int64_t w = ts_ns(&r2) - ts_ns(&r1);
        if (i == 0 || (w >= 0 && w < width)) { /* a clock stepped back mid-try: the first stands */
            width = w;
            best = ts_ns(&m) - (ts_ns(&r1) + w / 2);
        }
    }
    return best;
}
#endif

/* The kernel's receive time of what a recvmsg returned (SCM_TIMESTAMPNS
 * in its control bytes), on the real-time clock; 0 if it carries none. */
static int64_t stamp_ns(struct msghdr *mh)
{
#if SWEEP__STAMPS
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS ||
            cm->cmsg_len < CMSG_LEN(sizeof(struct timespec)))
            continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(cm), sizeof ts);
        return ts_ns(&ts);
    }
#else
    (void)mh;
#endif
    return 0;
}

/* Begins one read's arrivals, once the read returned: whether its stamps
 * may be moved to the monotonic clock by the offset measured now. Not when
 * the offset moved since clk's last read: the real-time clock was stepped
 * meanwhile, and stamps taken before the step are off by it (a forward
 * step would put an answer seconds before its request went). */
static int stamps_hold(sweep__rx_clock *clk)
{
#if SWEEP__STAMPS
    int64_t offset = mono_minus_real(), moved = offset - clk->offset;
    int hold = !clk->have || (moved <= SWEEP__RX_STEP_NS && moved >= -SWEEP__RX_STEP_NS);
    clk->offset = offset;
    clk->have = 1;
    return hold;
#else
    (void)clk;
    return 0;
#endif
}

/* An arrival of the read at `now` whose stamp (stamp_ns) is stamp: the
 * stamp on the monotonic clock if it holds, else now; never later than
 * now, nor earlier than the arrival clk gave before (a socket hands out
 * what it received in order, and stamps of before a step that a read
 * left in the socket meet the offset of after it). */
static uint64_t arrival_ns(sweep__rx_clock *clk, int hold, int64_t stamp, uint64_t now)
{
    uint64_t t = now;
    if (hold && stamp != 0) {
        int64_t m = stamp + clk->offset;
        if (m > 0 && (uint64_t)m < now)
            t = (uint64_t)m;
    }
    if (t < clk->last)
        t = clk->last;
    clk->last = t;
    return t;
}

long sweep__sock_recv(sweep__sock s, void *buf, size_t len, sweep__rx_clock *clk, uint64_t *arrived,
                      sweep__net_kind *kind, int *sys)
{
    union {
        struct cmsghdr align;
        uint8_t bytes[SWEEP__CMSG_BYTES];
    } ctl;
    /* The clocks are read after the read: what arrived during it is
     * stamped no later than its return, never earlier than it came. */
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.bytes, .msg_controllen = sizeof ctl};
    ssize_t r = recvmsg(s, &mh, MSG_DONTWAIT);
    uint64_t now = sweep__clock_ns();
    if (r < 0) {
        *sys = errno;
        *kind = sweep__net_classify(errno);
        return -1;
    }
    int hold = stamps_hold(clk);
    *arrived = arrival_ns(clk, hold, stamp_ns(&mh), now);
    return (long)r;
}

struct sweep__rx_batch {
    unsigned count;
    uint8_t *bufs;
    size_t size;
#if SWEEP__MMSG
    struct mmsghdr *msgs;
#else
    struct msghdr *msgs;
#endif
    struct iovec *iov;
    uint8_t *cmsg;
};

sweep__rx_batch *sweep__rx_batch_create(uint8_t *bufs, size_t size, unsigned count)
{
    sweep__rx_batch *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->count = count, b->bufs = bufs, b->size = size;
    b->msgs = calloc(count, sizeof *b->msgs);
    b->iov = calloc(count, sizeof *b->iov);
    b->cmsg = calloc(count, SWEEP__CMSG_BYTES);
    if (!b->msgs || !b->iov || !b->cmsg) {
        sweep__rx_batch_destroy(b);
        return NULL;
    }
    for (unsigned k = 0; k < count; k++) {
        b->iov[k].iov_base = bufs + k * size;
        b->iov[k].iov_len = size;
#if SWEEP__MMSG
        struct msghdr *h = &b->msgs[k].msg_hdr;
#else
        struct msghdr *h = &b->msgs[k];
#endif
        h->msg_iov = &b->iov[k];
        h->msg_iovlen = 1;
        h->msg_control = b->cmsg + k * SWEEP__CMSG_BYTES;
    }
    return b;
}

void sweep__rx_batch_destroy(sweep__rx_batch *b)
{
    if (!b)
        return;
    free(b->msgs);
    free(b->iov);
    free(b->cmsg);
    free(b);
}

int sweep__sock_recv_batch(sweep__sock s, sweep__rx_batch *b, sweep__rx_clock *clk, sweep__datagram *out,
                           sweep__net_kind *kind, int *sys)
{
#if SWEEP__MMSG
    for (unsigned k = 0; k < b->count; k++) {
        b->msgs[k].msg_hdr.msg_controllen = SWEEP__CMSG_BYTES;
        b->msgs[k].msg_hdr.msg_flags = 0;
    }
    int n = recvmmsg(s, b->msgs, b->count, MSG_DONTWAIT, NULL);
    uint64_t now = sweep__clock_ns();
    if (n < 0) {
        *sys = errno;
        *kind = sweep__net_classify(errno);
        return *kind == SWEEP__NET_AGAIN ? 0 : -1;
    }
    int hold = n > 0 && stamps_hold(clk);
    for (int k = 0; k < n; k++) {
        struct msghdr *h = &b->msgs[k].msg_hdr;
        out[k].data = b->bufs + (size_t)k * b->size;
        out[k].len = b->msgs[k].msg_len;
        out[k].truncated = (h->msg_flags & MSG_TRUNC) != 0;
        out[k].arrived = arrival_ns(clk, hold, stamp_ns(h), now);
    }
    return n;
#else
    int n = 0;
    for (unsigned k = 0; k < b->count; k++) {
        struct msghdr *h = &b->msgs[k];
        h->msg_controllen = SWEEP__CMSG_BYTES;
        h->msg_flags = 0;
        ssize_t r = recvmsg(s, h, MSG_DONTWAIT);
        uint64_t now = sweep__clock_ns();
        if (r < 0) {
            sweep__net_kind k2 = sweep__net_classify(errno);
            if (k2 == SWEEP__NET_AGAIN)
                return n;
            *sys = errno;
            *kind = k2;
            return n > 0 ? n : -1;
        }
        out[n].data = b->bufs + (size_t)k * b->size;
        out[n].len = (size_t)r;
        out[n].truncated = (h->msg_flags & MSG_TRUNC) != 0;
        out[n].arrived = arrival_ns(clk, stamps_hold(clk), stamp_ns(h), now);
        n++;
    }
    return n;
#endif
}
