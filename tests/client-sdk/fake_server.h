/*
 * fake_server.h - the pieces of the fake servers the client tests run on
 * 127.0.0.1 (test_hostile_server.c, test_python_client.c): each is a child
 * process that answers as the test says, with bytes sweepd would never
 * send or at times it would never send them. The child exits rather than
 * assert: cmocka's failures belong to the parent.
 */
#ifndef SWEEP_TESTS_CLIENT_SDK_FAKE_SERVER_H
#define SWEEP_TESTS_CLIENT_SDK_FAKE_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/encode.h"
#include "protocol/protocol.h"

/* A fake server's child and its address ("127.0.0.1:PORT"). */
typedef struct fake {
    pid_t pid;
    char address[64];
} fake;

/* Appends message m, size-prefixed, to out[*len ..); exits the child on
 * failure (the parent sees the connection end). */
static inline void fake_put(const sweep_message *m, uint8_t *out, size_t cap, size_t *len)
{
    static uint8_t scratch[1 << 16];
    const uint8_t *bytes;
    size_t n;
    if (sweep_encode(m, SWEEP_WIRE_SIZE_PREFIXED, scratch, sizeof scratch, &bytes, &n) != SWEEP_PROTO_OK ||
        *len + n > cap)
        _exit(2);
    memcpy(out + *len, bytes, n);
    *len += n;
}

/* Writes it all, or ends the child (the client went away). */
static inline void fake_send(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            _exit(0);
        p += w, n -= (size_t)w;
    }
}

/* A socket of `type` bound to a free port of 127.0.0.1, named in f. */
static inline int fake_bound(fake *f, int type)
{
    int fd = socket(AF_INET, type, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    snprintf(f->address, sizeof f->address, "127.0.0.1:%u", ntohs(a.sin_port));
    return fd;
}

static inline void fake_stop(fake *f)
{
    kill(f->pid, SIGKILL);
    waitpid(f->pid, NULL, 0);
}

#endif
