/*
 * listen.c - binding TCP and UDP to the same address and port.
 *
 * The sockets are created and bound with plain socket calls (the UDP one
 * then handed to libuv with uv_udp_open, the TCP one kept for tcp.c to
 * listen on): that keeps the "port 0" search synchronous. With port 0 the
 * kernel picks a free TCP port and the UDP socket is bound to the same
 * number; if some other program holds that UDP port, both are closed and
 * the search starts again (a few times).
 *
 * With --threads N each thread's server has its own TCP and UDP socket on
 * the one port, all with SO_REUSEPORT: the kernel spreads connections, and
 * datagrams by their source address, over them (threads.c). One thread
 * sets none of it, so a sweepd of one thread never shares its port with a
 * socket of another program.
 *
 * With more than one thread each also binds a UDP socket of its own on the
 * same address, port 0 (the kernel picks one) or --udp-thread-ports plus
 * its number (a fixed range a firewall or container can publish), without
 * SO_REUSEPORT: what
 * is sent to that port reaches that thread and no other. A UDP Welcome
 * names it (Welcome.udp_port) so that the session's client can send there
 * and skip the forwarding between threads (threads.c).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "server/server_impl.h"

#define SWEEP__BIND_ATTEMPTS 16

int sweep__resolve(const char *host, int port, struct sockaddr_storage *sa)
{
    memset(sa, 0, sizeof *sa);
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)sa) == 0)
        return 0;
    if (uv_ip6_addr(host, port, (struct sockaddr_in6 *)sa) == 0)
        return 0;
    return -1;
}

static void set_port(struct sockaddr_storage *sa, int port)
{
    if (sa->ss_family == AF_INET)
        ((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
}

/* A bound socket of the given type, or -1 with errno set. shared: the
 * port is shared with the other threads' sockets (SO_REUSEPORT, set on
 * every one of them before bind, as the kernel requires). */
static int bound_socket(const struct sockaddr_storage *sa, int type, int shared)
{
    int fd = socket(sa->ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    if (type == SOCK_STREAM)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (shared && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (sa->ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    socklen_t len = sa->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (bind(fd, (const struct sockaddr *)sa, len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* This thread's own UDP socket, on sa's address and --udp-thread-ports
 * plus the thread's number, or a port the kernel picks (more than one
 * thread only). */
static int direct_bind(sweep_server *s, const struct sockaddr_storage *shared_sa, char *err, size_t errlen)
{
    struct sockaddr_storage sa = *shared_sa;
    int want = s->opt.udp_thread_ports ? (int)(s->opt.udp_thread_ports + s->thread) : 0;
    set_port(&sa, want);
    int fd = bound_socket(&sa, SOCK_DGRAM, 0);
    if (fd < 0) {
        if (want)
            snprintf(err, errlen, "udp bind %s:%d (thread %u's own port, --udp-thread-ports): %s", s->opt.host, want,
                     s->thread, strerror(errno));
        else
            snprintf(err, errlen, "udp bind %s (the thread's own port): %s", s->opt.host, strerror(errno));
        return -1;
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &gl);
    uv_udp_init_ex(&s->loop, &s->udp_direct, AF_UNSPEC | UV_UDP_RECVMMSG);
    s->udp_direct.data = s;
    s->udp_direct_open = 1;
    int r = uv_udp_open(&s->udp_direct, fd);
    if (r != 0) {
        close(fd);
        snprintf(err, errlen, "cannot use the thread's own UDP socket: %s", uv_strerror(r));
        return -1;
    }
    s->direct_port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                                      : ((struct sockaddr_in *)&got)->sin_port);
    return 0;
}

int sweep__listen_bind(sweep_server *s, char *err, size_t errlen)
{
    struct sockaddr_storage sa;
    if (sweep__resolve(s->opt.host, s->opt.port, &sa) != 0) {
        snprintf(err, errlen, "--listen: '%s' is not a numeric IPv4 or IPv6 address", s->opt.host);
        return -1;
    }
    /* More than one thread: every thread binds the same port (threads.c);
     * the first one finds it, the others join it. */
    int shared = s->group->count > 1;
    for (int attempt = 0; attempt < SWEEP__BIND_ATTEMPTS; attempt++) {
        set_port(&sa, s->opt.port);
        int tfd = bound_socket(&sa, SOCK_STREAM, shared);
        if (tfd < 0) {
            snprintf(err, errlen, "tcp bind %s:%d: %s", s->opt.host, s->opt.port, strerror(errno));
            return -1;
        }
        struct sockaddr_storage got;
        socklen_t gl = sizeof got;
        getsockname(tfd, (struct sockaddr *)&got, &gl);
        int port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                                   : ((struct sockaddr_in *)&got)->sin_port);
        set_port(&sa, port);
        int ufd = bound_socket(&sa, SOCK_DGRAM, shared);
        if (ufd < 0) {
            int e = errno;
            close(tfd);
            if (s->opt.port == 0 && e == EADDRINUSE)
                continue;
            snprintf(err, errlen, "udp bind %s:%d: %s", s->opt.host, port, strerror(e));
            return -1;
        }
        /* The TCP socket stays a plain descriptor: tcp.c listens on it and
         * accepts from it itself (it polls it; see tcp.c for why). */
        s->tcp_fd = tfd;
        s->tcp_open = 1;
        /* Datagrams read in batches (udp.c); libuv falls back to one
         * recvmsg at a time where the kernel has no recvmmsg. */
        uv_udp_init_ex(&s->loop, &s->udp, AF_UNSPEC | UV_UDP_RECVMMSG);
        s->udp.data = s;
        s->udp_open = 1;
        int r = uv_udp_open(&s->udp, ufd);
        if (r != 0) {
            close(ufd);
            snprintf(err, errlen, "cannot use the UDP socket: %s", uv_strerror(r));
            return -1;
        }
        s->port = port;
        if (shared && direct_bind(s, &sa, err, errlen) != 0)
            return -1;
        if (sa.ss_family == AF_INET6)
            snprintf(s->host_text, sizeof s->host_text, "[%s]", s->opt.host);
        else
            uv_ip4_name((struct sockaddr_in *)&sa, s->host_text, sizeof s->host_text);
        return 0;
    }
    snprintf(err, errlen, "no port free for both TCP and UDP after %d attempts", SWEEP__BIND_ATTEMPTS);
    return -1;
}
