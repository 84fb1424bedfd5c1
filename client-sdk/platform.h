/*
 * platform.h - internal: the little libsweep's connection needs from the
 * operating system, so that the connection (client*.c) is plain C11 over
 * BSD-style sockets and builds wherever a game client runs. Not installed.
 *
 * Two implementations: platform_posix.c (Linux, and any POSIX system:
 * batch send and receive with sendmmsg and recvmmsg, and kernel receive times with
 * SO_TIMESTAMPNS where the system has them, one datagram a call and the
 * time of the read elsewhere) and platform_win32.c (Winsock 2: WSAStartup,
 * ioctlsocket, select, QueryPerformanceCounter). A port to another system
 * (a console, a phone) is one more file of these functions;
 * client-sdk/README.md, "Platforms", says what each must do.
 *
 * What stays in client*.c is what every such system spells the same:
 * getaddrinfo, connect, getpeername, struct sockaddr_in/_in6, htons. Every
 * other socket call goes through here, and failures come back as a
 * sweep__net_kind (what the client does about them) with the system's own
 * code (what the message says, sweep__net_text).
 */
#ifndef SWEEP_CLIENT_SDK_PLATFORM_H
#define SWEEP_CLIENT_SDK_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
/* A SOCKET, as an unsigned integer the size of a pointer. */
typedef uintptr_t sweep__sock;
#define SWEEP__NO_SOCK ((sweep__sock)INVALID_SOCKET)
/* What sweep__sock_wait's events are made of: WSAPoll's names. */
#define SWEEP__WAIT_IN POLLRDNORM
#define SWEEP__WAIT_OUT POLLWRNORM
#define SWEEP__WAIT_ERR (POLLERR | POLLHUP)
#else
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
typedef int sweep__sock;
#define SWEEP__NO_SOCK (-1)
#define SWEEP__WAIT_IN POLLIN
#define SWEEP__WAIT_OUT POLLOUT
#define SWEEP__WAIT_ERR (POLLERR | POLLHUP)
#endif

/* What a failed socket call means to the client. */
typedef enum sweep__net_kind {
    SWEEP__NET_OK = 0,
    SWEEP__NET_AGAIN,       /* nothing to read, no room to write, or interrupted: try later */
    SWEEP__NET_IN_PROGRESS, /* a TCP connect under way */
    SWEEP__NET_REFUSED,     /* nobody listening (also a UDP peer's ICMP refusal) */
    SWEEP__NET_CLOSED,      /* the peer reset or closed the connection */
    SWEEP__NET_TIMED_OUT,   /* a connect timed out */
    SWEEP__NET_OTHER
} sweep__net_kind;

/* Starts and stops the system's sockets for one client (WSAStartup and
 * WSACleanup on Windows, counted by the system; nothing on POSIX). 0 on
 * success; otherwise *sys is the system's code. */
int sweep__net_start(int *sys);
void sweep__net_stop(void);

/* The system's code of the last socket call's failure on this thread
 * (errno, WSAGetLastError), for the calls client*.c make themselves. */
int sweep__net_last(void);

/* The system's words for its code sys, in buf (returned). */
const char *sweep__net_text(int sys, char *buf, size_t len);

/* The monotonic clock, in nanoseconds from an arbitrary start. */
uint64_t sweep__clock_ns(void);

/* A non-blocking socket, not inherited by child processes, asking for the
 * kernel's receive times where the system has them; TCP without Nagle's
 * delay. SWEEP__NO_SOCK on failure, *sys saying why. */
sweep__sock sweep__sock_open(int family, int socktype, int protocol, int *sys);
void sweep__sock_close(sweep__sock s);

/* connect(2) on a non-blocking socket: OK, IN_PROGRESS, or a failure. */
sweep__net_kind sweep__sock_connect(sweep__sock s, const struct sockaddr *sa, size_t len, int *sys);

/* How a connect that was IN_PROGRESS ended, once the socket is writable:
 * 0, or the system's code of its failure (what sweep__net_classify takes). */
int sweep__sock_connect_result(sweep__sock s);

/* The kind of the system's code sys (what a connect failed with). */
sweep__net_kind sweep__net_classify(int sys);

/* Sends len bytes (or part of them, TCP) without waiting and without a
 * signal for a closed peer: the count sent, or -1 with *kind and *sys. */
long sweep__sock_send(sweep__sock s, const void *data, size_t len, sweep__net_kind *kind, int *sys);

/* Sends `count` datagrams without waiting, datagram i the lens[i] bytes
 * that follow datagram i-1's in `data`, in as few system calls as the
 * system allows (sendmmsg on Linux, else one send each): a tick's hundred
 * datagrams cost the client and the kernel's wake-ups a few calls rather
 * than a hundred. Returns how many went, the first ones in order (fewer
 * than count when the socket ran out of room or one failed: the caller
 * sends the rest again and hears of the failure then), or -1 with *kind
 * and *sys when not even the first did. */
int sweep__sock_send_datagrams(sweep__sock s, const uint8_t *data, const size_t *lens, unsigned count,
                               sweep__net_kind *kind, int *sys);

/* sweep__sock_send_datagrams for a system without a batch send: one
 * sweep__sock_send each, stopping at the first that fails. */
static inline int sweep__sock_send_each(sweep__sock s, const uint8_t *data, const size_t *lens, unsigned count,
                                        sweep__net_kind *kind, int *sys)
{
    size_t off = 0;
    for (unsigned k = 0; k < count; k++) {
        if (sweep__sock_send(s, data + off, lens[k], kind, sys) < 0)
            return k > 0 ? (int)k : -1;
        off += lens[k];
    }
    return (int)count;
}

/* Waits at most timeout_ms (-1: no limit, 0: a look) until the socket has
 * one of `events` (SWEEP__WAIT_IN, SWEEP__WAIT_OUT). Returns 1 with what
 * happened in *revents (SWEEP__WAIT_ERR too), 0 when the time ran out or a
 * signal came, -1 on failure with *sys. */
int sweep__sock_wait(sweep__sock s, int events, int timeout_ms, int *revents, int *sys);

/* What one connection's reads keep from one read to the next, so that
 * the arrival times they give stay true when the system's real-time clock
 * is stepped (NTP, a user setting the time, a virtual machine resumed):
 * kernels stamp arrivals on that clock, and a stamp taken before a step
 * but moved to the monotonic clock after it would be off by the whole
 * step. Zeroed before the first read; the client keeps one for its life,
 * whatever socket it reads. */
typedef struct sweep__rx_clock {
    int64_t offset; /* the monotonic clock less the real-time one, measured after the last read */
    uint64_t last;  /* the latest arrival given */
    int have;       /* offset was measured */
} sweep__rx_clock;

/* The most the two clocks may move apart between two reads for the
 * stamps of the second to be moved by the offset measured after it: an
 * NTP slew moves them 0.5 ms a second at most, a step by far more. */
#define SWEEP__RX_STEP_NS 1000000

/* Reads what a stream socket has, at most len bytes, without waiting: the
 * count (0: the peer closed), or -1 with *kind and *sys. *arrived is when
 * the bytes came, on sweep__clock_ns's clock: the kernel's time of the
 * newest segment where the system gives it, else the time of the read;
 * never later than the read, never earlier than the arrival clk gave
 * before, and the time of the read when the real-time clock was stepped
 * since clk's last read (the stamps' clock is no longer the one the
 * offset was measured on). */
long sweep__sock_recv(sweep__sock s, void *buf, size_t len, sweep__rx_clock *clk, uint64_t *arrived,
                      sweep__net_kind *kind, int *sys);

/* One datagram of a batch receive. */
typedef struct sweep__datagram {
    uint8_t *data; /* into the batch's buffers */
    size_t len;
    int truncated; /* longer than the buffer: its tail is lost */
    uint64_t arrived; /* as sweep__sock_recv's */
} sweep__datagram;

/* Up to `count` datagrams at once (recvmmsg where the system has it), into
 * count buffers of `size` bytes each at bufs. */
typedef struct sweep__rx_batch sweep__rx_batch;
sweep__rx_batch *sweep__rx_batch_create(uint8_t *bufs, size_t size, unsigned count);
void sweep__rx_batch_destroy(sweep__rx_batch *b);

/* Reads the datagrams waiting, at most the batch's count, without
 * waiting: their number (0: none waiting) with each in out[i], or -1 with
 * *kind and *sys. A failure met after some were read comes with them:
 * their number, and *kind and *sys say it (else they are left as they
 * were, or say SWEEP__NET_AGAIN), as a system may tell it only once (a
 * UDP peer's ICMP refusal). Arrivals as sweep__sock_recv's, through clk. */
int sweep__sock_recv_batch(sweep__sock s, sweep__rx_batch *b, sweep__rx_clock *clk, sweep__datagram *out,
                           sweep__net_kind *kind, int *sys);

#endif
