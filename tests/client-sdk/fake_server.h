/*
 * fake_server.h - the pieces of the fake servers the client tests run on
 * 127.0.0.1 (test_hostile_server.c, test_python_client.c, test_addresses.c,
 * test_session_end.c), which answer as the test says, with bytes sweepd
 * would never send or at times it would never send them. A fake in a
 * child process exits rather than assert: cmocka's failures belong to the
 * parent; a UDP fake the test drives step by step answers from the test.
 */
#ifndef SWEEP_TESTS_CLIENT_SDK_FAKE_SERVER_H
#define SWEEP_TESTS_CLIENT_SDK_FAKE_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/decode.h"
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

/* The Welcome of a fake server: the map "fake" (an all-zero hash), 60
 * ticks a second, 100 entities, a guest player's session, and the batch
 * and frame sizes given; a test sets whatever else it needs. */
static inline sweep_message fake_welcome_msg(uint32_t sequence, uint32_t max_batch, uint32_t max_frame)
{
    static const uint8_t hash[32];
    sweep_message w;
    memset(&w, 0, sizeof w);
    w.kind = SWEEP_MSG_WELCOME;
    w.sequence = sequence;
    w.as.welcome.protocol_version = SWEEP_PROTOCOL_VERSION;
    w.as.welcome.tick_rate = 60;
    w.as.welcome.map_name = sweep_str_of("fake");
    w.as.welcome.map_hash = (sweep_bytes){hash, 32};
    w.as.welcome.max_batch = max_batch;
    w.as.welcome.max_frame_size = max_frame;
    w.as.welcome.max_entities = 100;
    w.as.welcome.role = SWEEP_WIRE_ROLE_PLAYER;
    w.as.welcome.identity = sweep_str_of("#guest");
    return w;
}

/* Sends m, a datagram, from fd to `to` (a fake UDP server's answer). */
static inline void fake_answer(int fd, const sweep_message *m, const struct sockaddr_in *to)
{
    static uint8_t buf[4096];
    const uint8_t *bytes;
    size_t len;
    assert_int_equal(sweep_encode(m, 0, buf, sizeof buf, &bytes, &len), SWEEP_PROTO_OK);
    assert_int_equal(sendto(fd, bytes, len, 0, (const struct sockaddr *)to, sizeof *to), (ssize_t)len);
}

/* The next Hello datagram to fd (within 5 s), and where it came from. */
static inline sweep_message fake_next_hello(int fd, struct sockaddr_in *from)
{
    static uint8_t in[2048];
    sweep_decoder d = {0};
    sweep_message m;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    assert_int_equal(poll(&p, 1, 5000), 1);
    socklen_t fl = sizeof *from;
    ssize_t n = recvfrom(fd, in, sizeof in, 0, (struct sockaddr *)from, &fl);
    assert_true(n > 0);
    assert_int_equal(sweep_decode(&d, in, (size_t)n, 0, &m), SWEEP_PROTO_OK);
    assert_int_equal(m.kind, SWEEP_MSG_HELLO);
    return m;
}

static inline void fake_stop(fake *f)
{
    kill(f->pid, SIGKILL);
    waitpid(f->pid, NULL, 0);
}

#endif
