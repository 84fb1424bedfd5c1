/*
 * server_fixture.h - helpers shared by the sweepd integration tests: start
 * the built sweepd on 127.0.0.1 with port 0 and parse its ready line, stop
 * it, and a small raw client over TCP and UDP built on the protocol's
 * encoder and decoder (deliberately not libsweep, so the server is tested
 * on its own).
 *
 * Header-only (static functions) because every tests/server/test_*.c is its
 * own program. Timeouts are generous (the suite runs on loaded 2-core
 * machines) and never assert speed: they only keep a broken server from
 * hanging the suite. The binary is $SWEEP_BIN_DIR/sweepd, else
 * $BUILD/bin/sweepd, else build/bin/sweepd; the arena is the maps/arena.db
 * beside that bin/ folder.
 *
 * Roles: a Hello without a token is a guest player (the server's motion
 * rules, time budget and spawn points apply). Tests that need exact
 * control (positions, raw velocities) start sweepd with FX_SERVER_ARGS
 * (the --command-token FX_TOKEN and --allow-free-move on), say Hello with
 * FX_TOKEN and send Fly moves (fx_fly_msg): the server role's raw moves,
 * collide-and-slide exactly as sweep_move does it.
 */
#ifndef SWEEP_TESTS_SERVER_FIXTURE_H
#define SWEEP_TESTS_SERVER_FIXTURE_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol/protocol.h"

#define FX_TIMEOUT_MS 30000

/* The command token of the test servers that grant the server role. */
#define FX_TOKEN "fixture-command-token"
#define FX_SERVER_ARGS "--command-token", FX_TOKEN, "--allow-free-move", "on"

typedef struct fx_server {
    pid_t pid;
    int port;
    char bin[1100];
    char arena[1100];
} fx_server;

static inline uint64_t fx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline void fx_paths(fx_server *fx)
{
    const char *dir = getenv("SWEEP_BIN_DIR");
    char tmp[1024];
    if (dir && *dir) {
        snprintf(tmp, sizeof tmp, "%s", dir);
    } else {
        const char *build = getenv("BUILD");
        snprintf(tmp, sizeof tmp, "%s/bin", build && *build ? build : "build");
    }
    snprintf(fx->bin, sizeof fx->bin, "%s/sweepd", tmp);
    char *slash = strrchr(tmp, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(tmp, sizeof tmp, ".");
    snprintf(fx->arena, sizeof fx->arena, "%s/maps/arena.db", tmp);
}

/* Starts sweepd with --map MAP (NULL: the arena) --listen 127.0.0.1:0 and
 * the extra arguments (NULL-terminated), its standard error into the file
 * log (NULL: the test's own); returns 0 once the ready line was read. */
static inline int fx_start_map_log(fx_server *fx, const char *map, const char *const *extra, const char *log)
{
    memset(fx, 0, sizeof *fx);
    fx_paths(fx);
    const char *argv[64];
    int n = 0;
    argv[n++] = fx->bin;
    argv[n++] = "--map";
    argv[n++] = map ? map : fx->arena;
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--log-level";
    argv[n++] = getenv("SWEEP_TEST_LOG") ? getenv("SWEEP_TEST_LOG") : "warn";
    for (int i = 0; extra && extra[i] && n < 62; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    int pfd[2];
    if (pipe(pfd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        if (log) {
            int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (lfd >= 0) {
                dup2(lfd, 2);
                close(lfd);
            }
        }
        execv(fx->bin, (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", fx->bin, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    fx->pid = pid;
    char line[256];
    size_t len = 0;
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    while (len < sizeof line - 1) {
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        int left = (int)(deadline - fx_now_ms());
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t r = read(pfd[0], line + len, 1);
        if (r <= 0)
            break;
        if (line[len] == '\n')
            break;
        len++;
    }
    line[len] = 0;
    close(pfd[0]);
    int tport = -1, uport = -1;
    if (sscanf(line, "sweepd ready tcp=127.0.0.1:%d udp=127.0.0.1:%d", &tport, &uport) != 2 || tport != uport ||
        tport <= 0) {
        fprintf(stderr, "fixture: no ready line from %s (got '%s')\n", fx->bin, line);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fx->pid = 0;
        return -1;
    }
    fx->port = tport;
    return 0;
}

static inline int fx_start_map(fx_server *fx, const char *map, const char *const *extra)
{
    return fx_start_map_log(fx, map, extra, NULL);
}

/* Starts sweepd on the arena (fx_start_map). */
static inline int fx_start(fx_server *fx, const char *const *extra)
{
    return fx_start_map(fx, NULL, extra);
}

/* Waits for the server to exit (killing it after the timeout); returns
 * its exit status, or -1 if it had to be killed or died by a signal. */
static inline int fx_wait(fx_server *fx)
{
    if (!fx->pid)
        return -1;
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    int st;
    for (;;) {
        pid_t r = waitpid(fx->pid, &st, WNOHANG);
        if (r == fx->pid)
            break;
        if (fx_now_ms() > deadline) {
            kill(fx->pid, SIGKILL);
            waitpid(fx->pid, &st, 0);
            fx->pid = 0;
            return -1;
        }
        usleep(10000);
    }
    fx->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* SIGTERM and wait: the exit status (0 after a clean shutdown). */
static inline int fx_stop(fx_server *fx)
{
    if (!fx->pid)
        return -1;
    kill(fx->pid, SIGTERM);
    return fx_wait(fx);
}

/* 1 if the server process is still running. */
static inline int fx_alive(fx_server *fx)
{
    return fx->pid && waitpid(fx->pid, NULL, WNOHANG) == 0;
}

static inline struct sockaddr_in fx_addr(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static inline int fx_tcp_connect_rcvbuf(int port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in a = fx_addr(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static inline int fx_tcp_connect(int port)
{
    return fx_tcp_connect_rcvbuf(port, 0);
}

static inline int fx_write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static uint8_t fx_out[256 * 1024];

/* Encodes m as a TCP frame and writes it. */
static inline int fx_send(int fd, const sweep_message *m)
{
    const uint8_t *out;
    size_t len;
    if (sweep_encode(m, SWEEP_WIRE_SIZE_PREFIXED, fx_out, sizeof fx_out, &out, &len) != SWEEP_PROTO_OK)
        return -1;
    return fx_write_all(fd, out, len);
}

/* Reads exactly len bytes within the deadline: 1, 0 on EOF, -1 on timeout/error. */
static inline int fx_read_exact(int fd, uint8_t *buf, size_t len, uint64_t deadline)
{
    size_t got = 0;
    while (got < len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)(deadline - fx_now_ms());
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return -1;
        ssize_t r = recv(fd, buf + got, len - got, 0);
        if (r == 0)
            return 0;
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return errno == ECONNRESET ? 0 : -1;
        }
        got += (size_t)r;
    }
    return 1;
}

typedef struct fx_rx {
    uint8_t buf[2 * 1024 * 1024];
    sweep_msg_move_result results[4096];
    sweep_msg_move moves[16];
    sweep_wire_mover movers[4096];
    sweep_decoder dec;
} fx_rx;

static inline fx_rx *fx_rx_new(void)
{
    fx_rx *rx = calloc(1, sizeof *rx);
    rx->dec.results = rx->results;
    rx->dec.results_cap = 4096;
    rx->dec.moves = rx->moves;
    rx->dec.moves_cap = 16;
    rx->dec.movers = rx->movers;
    rx->dec.movers_cap = 4096;
    return rx;
}

/* Receives one TCP frame into rx and decodes it: 1, 0 on EOF, -1 on
 * timeout or a frame that does not decode. */
static inline int fx_recv(int fd, fx_rx *rx, sweep_message *m)
{
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    int r = fx_read_exact(fd, rx->buf, 4, deadline);
    if (r <= 0)
        return r;
    uint32_t n = (uint32_t)rx->buf[0] | (uint32_t)rx->buf[1] << 8 | (uint32_t)rx->buf[2] << 16 |
                 (uint32_t)rx->buf[3] << 24;
    if (n > sizeof rx->buf - 4)
        return -1;
    r = fx_read_exact(fd, rx->buf + 4, n, deadline);
    if (r <= 0)
        return r == 0 ? 0 : -1;
    return sweep_decode(&rx->dec, rx->buf, 4 + n, SWEEP_WIRE_SIZE_PREFIXED, m) == SWEEP_PROTO_OK ? 1 : -1;
}

/* 1 if the peer closed (EOF or reset) within the timeout, skipping any
 * frames still on the way; kinds seen are OR-ed into *seen as bits. */
static inline int fx_wait_eof(int fd, fx_rx *rx, unsigned *seen)
{
    for (;;) {
        sweep_message m;
        int r = fx_recv(fd, rx, &m);
        if (r == 0)
            return 1;
        if (r < 0)
            return 0;
        if (seen)
            *seen |= 1u << m.kind;
    }
}

static inline sweep_message fx_msg(sweep_msg_kind kind, uint32_t seq)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.sequence = seq;
    return m;
}

static inline sweep_message fx_hello_msg(const char *name)
{
    sweep_message m = fx_msg(SWEEP_MSG_HELLO, 1);
    m.as.hello.protocol_version = SWEEP_PROTOCOL_VERSION;
    m.as.hello.client_name = sweep_str_of(name);
    return m;
}

/* Hello over TCP with an auth token (NULL = none); returns the session
 * id (0 on failure). */
static inline uint64_t fx_hello_token(int fd, fx_rx *rx, const char *token)
{
    sweep_message m = fx_hello_msg("test");
    m.as.hello.auth_token = sweep_str_of(token);
    if (fx_send(fd, &m) != 0)
        return 0;
    if (fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_WELCOME)
        return 0;
    return m.as.welcome.session_id;
}

/* Hello over TCP; returns the session id (0 on failure). */
static inline uint64_t fx_hello(int fd, fx_rx *rx)
{
    sweep_message m = fx_hello_msg("test");
    if (fx_send(fd, &m) != 0)
        return 0;
    if (fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_WELCOME)
        return 0;
    return m.as.welcome.session_id;
}

static inline sweep_message fx_spawn_msg(uint32_t seq, sweep_vec3 pos, sweep_vec3 radii)
{
    sweep_message m = fx_msg(SWEEP_MSG_SPAWN, seq);
    m.as.spawn.position = pos;
    m.as.spawn.radii = radii;
    return m;
}

/* Spawn over TCP; returns the entity id (0 on failure). */
static inline uint32_t fx_spawn(int fd, fx_rx *rx, uint32_t seq, sweep_vec3 pos, sweep_vec3 radii)
{
    sweep_message m = fx_spawn_msg(seq, pos, radii);
    if (fx_send(fd, &m) != 0)
        return 0;
    if (fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_SPAWNED)
        return 0;
    return m.as.spawned.entity;
}

static inline sweep_message fx_move_msg(uint32_t entity, uint32_t seq, sweep_vec3 v, double dt)
{
    sweep_message m = fx_msg(SWEEP_MSG_MOVE, seq);
    m.as.move.entity = entity;
    m.as.move.sequence = seq;
    m.as.move.velocity = v;
    m.as.move.dt = dt;
    return m;
}

/* A Fly move: the server role's raw velocity, as sweep_move takes it. */
static inline sweep_message fx_fly_msg(uint32_t entity, uint32_t seq, sweep_vec3 v, double dt)
{
    sweep_message m = fx_move_msg(entity, seq, v, dt);
    m.as.move.mode = SWEEP_WIRE_MODE_FLY;
    return m;
}

/* Sends m and expects an Error: its code, or -1. */
static inline int fx_expect_error(int fd, fx_rx *rx, const sweep_message *req, uint32_t *seq_out)
{
    sweep_message m;
    if (fx_send(fd, req) != 0 || fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_ERROR)
        return -1;
    if (seq_out)
        *seq_out = m.as.error.sequence;
    return (int)m.as.error.code;
}

/* --- UDP ------------------------------------------------------------------ */

/* A UDP socket connected to the server (so it only hears the server). */
static inline int fx_udp_socket(int port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = fx_addr(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Encodes m (a Hello is padded to SWEEP_UDP_HELLO_MIN) and sends it as
 * one datagram; returns its size or -1. */
static inline ssize_t fx_udp_send(int fd, const sweep_message *m)
{
    const uint8_t *out;
    size_t len;
    sweep_proto_error e = m->kind == SWEEP_MSG_HELLO
                              ? sweep_encode_padded(m, 0, SWEEP_UDP_HELLO_MIN, fx_out, sizeof fx_out, &out, &len)
                              : sweep_encode(m, 0, fx_out, sizeof fx_out, &out, &len);
    if (e != SWEEP_PROTO_OK)
        return -1;
    return send(fd, out, len, 0) == (ssize_t)len ? (ssize_t)len : -1;
}

/* Receives one datagram within timeout_ms: its size (decoded into m if
 * m is not NULL), 0 on timeout, -1 on error or undecodable bytes. */
static inline ssize_t fx_udp_recv(int fd, fx_rx *rx, sweep_message *m, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
        return 0;
    ssize_t r = recv(fd, rx->buf, sizeof rx->buf, 0);
    if (r <= 0)
        return -1;
    if (m && sweep_decode(&rx->dec, rx->buf, (size_t)r, 0, m) != SWEEP_PROTO_OK)
        return -1;
    return r;
}

/* Full UDP handshake with an auth token (NULL: none): Hello, Challenge,
 * Hello with cookie, then the answer to that into *answer (may be NULL).
 * Returns the session id, or 0 (no Welcome). Retries lost datagrams a few
 * times. */
static inline uint64_t fx_udp_handshake_token(int fd, fx_rx *rx, const char *token, sweep_message *answer)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        sweep_message m = fx_hello_msg("udp-test"), r;
        m.as.hello.auth_token = sweep_str_of(token);
        if (fx_udp_send(fd, &m) < 0)
            return 0;
        if (fx_udp_recv(fd, rx, &r, 5000) <= 0 || r.kind != SWEEP_MSG_CHALLENGE)
            continue;
        uint8_t cookie[64];
        uint32_t cl = r.as.challenge.cookie.len < sizeof cookie ? r.as.challenge.cookie.len : sizeof cookie;
        memcpy(cookie, r.as.challenge.cookie.ptr, cl);
        m.as.hello.cookie.ptr = cookie;
        m.as.hello.cookie.len = cl;
        m.sequence = 2;
        if (fx_udp_send(fd, &m) < 0)
            return 0;
        if (fx_udp_recv(fd, rx, &r, 5000) <= 0)
            continue;
        if (answer)
            *answer = r;
        return r.kind == SWEEP_MSG_WELCOME ? r.as.welcome.session_id : 0;
    }
    return 0;
}

/* Full UDP handshake without a token (a guest). */
static inline uint64_t fx_udp_handshake(int fd, fx_rx *rx)
{
    return fx_udp_handshake_token(fd, rx, NULL, NULL);
}

#endif
