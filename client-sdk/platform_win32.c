/*
 * platform_win32.c - libsweep's platform layer (platform.h) on Windows,
 * over Winsock 2.
 *
 * Each client holds a WSAStartup of its own (Winsock counts them), so a
 * game need not know libsweep uses sockets. Sockets are made non-blocking
 * with ioctlsocket and not inheritable; waiting is select() on the one
 * socket, which (unlike WSAPoll on older Windows) reports a failed
 * connect, in its exception set. The monotonic clock is
 * QueryPerformanceCounter. Winsock gives no receive times and no batch
 * receive: a batch is a loop of recv, and an arrival the time of its read.
 *
 * A UDP peer's ICMP refusal (port unreachable: the server is gone) is
 * taken as the POSIX layer takes ECONNREFUSED, however Winsock tells it:
 * Windows fails the next recv or send with WSAECONNRESET, once; wine only
 * flags the socket (select's exception set, SO_ERROR WSAECONNREFUSED) and
 * its recv says it would block. So a batch that finds nothing asks
 * SO_ERROR, and a refusal met after some datagrams comes with them rather
 * than being lost: told once, it would never be told again, and the
 * client would wait for a server that is not there.
 */
#include "client-sdk/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include <windows.h>

int sweep__net_start(int *sys)
{
    WSADATA data;
    int rc = WSAStartup(MAKEWORD(2, 2), &data);
    if (rc != 0) {
        *sys = rc;
        return -1;
    }
    return 0;
}

void sweep__net_stop(void)
{
    WSACleanup();
}

int sweep__net_last(void)
{
    return WSAGetLastError();
}

const char *sweep__net_text(int sys, char *buf, size_t len)
{
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, (DWORD)sys, 0, buf,
                             (DWORD)len, NULL);
    /* The system's text ends in ".\r\n"; a message goes on after it. */
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
        buf[--n] = '\0';
    if (n == 0)
        snprintf(buf, len, "Winsock error %d", sys);
    return buf;
}

uint64_t sweep__clock_ns(void)
{
    static LARGE_INTEGER freq; /* constant for the system's life: a race writes the same value */
    LARGE_INTEGER now;
    if (freq.QuadPart == 0)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    /* Whole seconds and the rest apart, so the product cannot overflow. */
    uint64_t f = (uint64_t)freq.QuadPart, t = (uint64_t)now.QuadPart;
    return t / f * 1000000000u + t % f * 1000000000u / f;
}

sweep__net_kind sweep__net_classify(int sys)
{
    switch (sys) {
    case 0:
        return SWEEP__NET_OK;
    case WSAEWOULDBLOCK:
    case WSAEINTR:
        return SWEEP__NET_AGAIN;
    case WSAEINPROGRESS:
        return SWEEP__NET_IN_PROGRESS;
    case WSAECONNREFUSED:
        return SWEEP__NET_REFUSED;
    case WSAECONNRESET:
    case WSAECONNABORTED:
    case WSAESHUTDOWN:
        return SWEEP__NET_CLOSED;
    case WSAETIMEDOUT:
        return SWEEP__NET_TIMED_OUT;
    default:
        return SWEEP__NET_OTHER;
    }
}

sweep__sock sweep__sock_open(int family, int socktype, int protocol, int *sys)
{
    SOCKET s = WSASocketW(family, socktype, protocol, NULL, 0, WSA_FLAG_NO_HANDLE_INHERIT);
    if (s == INVALID_SOCKET) {
        *sys = WSAGetLastError();
        return SWEEP__NO_SOCK;
    }
    u_long on = 1;
    if (ioctlsocket(s, FIONBIO, &on) != 0) {
        *sys = WSAGetLastError();
        closesocket(s);
        return SWEEP__NO_SOCK;
    }
    if (socktype == SOCK_STREAM) {
        BOOL one = TRUE;
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof one);
    }
    return (sweep__sock)s;
}

void sweep__sock_close(sweep__sock s)
{
    if (s != SWEEP__NO_SOCK)
        closesocket((SOCKET)s);
}

sweep__net_kind sweep__sock_connect(sweep__sock s, const struct sockaddr *sa, size_t len, int *sys)
{
    if (connect((SOCKET)s, sa, (int)len) == 0)
        return SWEEP__NET_OK;
    *sys = WSAGetLastError();
    /* A non-blocking connect under way says "would block" on Windows. */
    if (*sys == WSAEWOULDBLOCK || *sys == WSAEINPROGRESS)
        return SWEEP__NET_IN_PROGRESS;
    sweep__net_kind k = sweep__net_classify(*sys);
    return k == SWEEP__NET_AGAIN ? SWEEP__NET_OTHER : k;
}

int sweep__sock_connect_result(sweep__sock s)
{
    int soerr = 0;
    int sl = sizeof soerr;
    if (getsockopt((SOCKET)s, SOL_SOCKET, SO_ERROR, (char *)&soerr, &sl) != 0)
        return WSAGetLastError();
    return soerr;
}

/* Whether s is a datagram socket, whose WSAECONNRESET is a refusal. */
static int is_datagram(SOCKET s)
{
    int type = 0, tl = sizeof type;
    return getsockopt(s, SOL_SOCKET, SO_TYPE, (char *)&type, &tl) == 0 && type == SOCK_DGRAM;
}

long sweep__sock_send(sweep__sock s, const void *data, size_t len, sweep__net_kind *kind, int *sys)
{
    int n = len > INT_MAX ? INT_MAX : (int)len;
    int w = send((SOCKET)s, (const char *)data, n, 0);
    if (w == SOCKET_ERROR) {
        *sys = WSAGetLastError();
        *kind = *sys == WSAECONNRESET && is_datagram((SOCKET)s) ? SWEEP__NET_REFUSED : sweep__net_classify(*sys);
        return -1;
    }
    return w;
}

int sweep__sock_send_datagrams(sweep__sock s, const uint8_t *data, const size_t *lens, unsigned count,
                               sweep__net_kind *kind, int *sys)
{
    /* Winsock has no batch send a connected UDP socket can use; one send each. */
    return sweep__sock_send_each(s, data, lens, count, kind, sys);
}

int sweep__sock_wait(sweep__sock s, int events, int timeout_ms, int *revents, int *sys)
{
    fd_set rd, wr, ex;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    FD_ZERO(&ex);
    if (events & SWEEP__WAIT_IN)
        FD_SET((SOCKET)s, &rd);
    if (events & SWEEP__WAIT_OUT)
        FD_SET((SOCKET)s, &wr);
    FD_SET((SOCKET)s, &ex);
    struct timeval tv, *tvp = NULL;
    if (timeout_ms >= 0) {
        tv.tv_sec = timeout_ms / 1000;
        tv.tv_usec = (timeout_ms % 1000) * 1000;
        tvp = &tv;
    }
    *revents = 0;
    int r = select(0, &rd, &wr, &ex, tvp);
    if (r == SOCKET_ERROR) {
        *sys = WSAGetLastError();
        return -1;
    }
    if (r == 0)
        return 0;
    if (FD_ISSET((SOCKET)s, &rd))
        *revents |= SWEEP__WAIT_IN;
    if (FD_ISSET((SOCKET)s, &wr))
        *revents |= SWEEP__WAIT_OUT;
    /* A failed connect is reported here; the reader or the connect's
     * check finds out what it was. */
    if (FD_ISSET((SOCKET)s, &ex))
        *revents |= SWEEP__WAIT_ERR | (events & SWEEP__WAIT_OUT);
    return 1;
}

long sweep__sock_recv(sweep__sock s, void *buf, size_t len, sweep__rx_clock *clk, uint64_t *arrived,
                      sweep__net_kind *kind, int *sys)
{
    int n = len > INT_MAX ? INT_MAX : (int)len;
    int r = recv((SOCKET)s, (char *)buf, n, 0);
    /* Times of the read, on a clock that never steps: nothing to correct. */
    *arrived = clk->last = sweep__clock_ns();
    if (r == SOCKET_ERROR) {
        *sys = WSAGetLastError();
        *kind = sweep__net_classify(*sys);
        return -1;
    }
    return r;
}

struct sweep__rx_batch {
    unsigned count;
    uint8_t *bufs;
    size_t size;
};

sweep__rx_batch *sweep__rx_batch_create(uint8_t *bufs, size_t size, unsigned count)
{
    sweep__rx_batch *b = calloc(1, sizeof *b);
    if (b)
        b->count = count, b->bufs = bufs, b->size = size;
    return b;
}

void sweep__rx_batch_destroy(sweep__rx_batch *b)
{
    free(b);
}

/* The refusal a UDP socket was flagged with and its recv did not tell
 * (wine): WSAECONNREFUSED or WSAECONNRESET, else 0. */
static int flagged_refusal(SOCKET s)
{
    int soerr = 0, sl = sizeof soerr;
    if (getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&soerr, &sl) != 0)
        return 0;
    return soerr == WSAECONNREFUSED || soerr == WSAECONNRESET ? soerr : 0;
}

int sweep__sock_recv_batch(sweep__sock s, sweep__rx_batch *b, sweep__rx_clock *clk, sweep__datagram *out,
                           sweep__net_kind *kind, int *sys)
{
    int n = 0;
    for (unsigned k = 0; k < b->count; k++) {
        uint8_t *buf = b->bufs + (size_t)k * b->size;
        int r = recv((SOCKET)s, (char *)buf, b->size > INT_MAX ? INT_MAX : (int)b->size, 0);
        uint64_t now = sweep__clock_ns();
        int truncated = 0;
        if (r == SOCKET_ERROR) {
            int e = WSAGetLastError();
            /* A datagram longer than the buffer: its head is there, the
             * rest lost, as MSG_TRUNC says on POSIX. */
            if (e == WSAEMSGSIZE) {
                r = (int)b->size, truncated = 1;
            } else {
                if (e == WSAEWOULDBLOCK && n == 0)
                    e = flagged_refusal((SOCKET)s);
                if (e == 0 || sweep__net_classify(e) == SWEEP__NET_AGAIN)
                    return n;
                *sys = e;
                *kind = e == WSAECONNRESET ? SWEEP__NET_REFUSED : sweep__net_classify(e);
                return n > 0 ? n : -1;
            }
        }
        out[n].data = buf;
        out[n].len = (size_t)r;
        out[n].truncated = truncated;
        out[n].arrived = clk->last = now;
        n++;
    }
    return n;
}
