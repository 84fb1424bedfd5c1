/*
 * sweepd_fixture.h - a real sweepd for the integration tests of every
 * folder (tests/server, tests/client-sdk, tests/replay): started on
 * 127.0.0.1 with port 0 on the sample arena (or a map the test wrote), its
 * ready line parsed for its addresses, stopped with SIGTERM; identities for
 * it; commands run through sh; and a small raw client over TCP and UDP
 * built on the protocol's encoder and decoder (deliberately not libsweep,
 * so the server can be tested on its own).
 *
 * Header-only (static functions), as every test program is one .c file.
 * Timeouts are generous (the suite runs on loaded two-core machines) and
 * never assert speed: they only keep a broken server from hanging a test.
 *
 * Where things are: programs and maps come from the build directory,
 * $SWEEP_BUILD_DIR if set, else two levels above the test program's own
 * directory (tests live in $(BUILD)/tests/<folder>/): sweepd is
 * $(BUILD)/bin/sweepd and the arena $(BUILD)/maps/arena.db.
 *
 * The server's standard error (its log) goes to a file in a private
 * temporary directory (or to the file the test names), at --log-level
 * $SWEEP_TEST_LOG (default warn; info with SWEEP_TEST_VERBOSE); the log is
 * shown when the server does not come up, when it ends with a status other
 * than 0, and always with SWEEP_TEST_VERBOSE, which also shows the output
 * of every command fx_run runs.
 *
 * A server never outlives its test: it gets SIGKILL when the thread that
 * started it ends (Linux, PR_SET_PDEATHSIG), however the test ends, so
 * start servers from the main thread.
 *
 * Roles: a Hello without a token is a guest player (the server's motion
 * rules, time budget and spawn points apply). Tests that need exact
 * control (positions, raw velocities) start sweepd with FX_SERVER_ARGS
 * (the --command-token FX_TOKEN and --allow-free-move on), say Hello with
 * FX_TOKEN and send Fly moves (fx_fly_msg): the server role's raw moves,
 * collide-and-slide exactly as sweep_move does it. Signed identities:
 * fx_secret writes FX_SECRET to a private file for --auth-secret-file, and
 * fx_token mints tokens under it (protocol/token.h), as a game's login
 * service would.
 */
#ifndef SWEEP_TESTS_SWEEPD_FIXTURE_H
#define SWEEP_TESTS_SWEEPD_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "protocol/protocol.h"
#include "protocol/token.h"

#define FX_TIMEOUT_MS 30000

/* The command token of the test servers that grant the server role. */
#define FX_TOKEN "fixture-command-token"
#define FX_SERVER_ARGS "--command-token", FX_TOKEN, "--allow-free-move", "on"

/* The secret the tests' signed tokens use (32 bytes). */
#define FX_SECRET "sweep-sdk-tests-shared-secret-32"

static inline uint64_t fx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline int fx_verbose(void)
{
    const char *v = getenv("SWEEP_TEST_VERBOSE");
    return v && *v;
}

/* --- where things are -------------------------------------------------------- */

static char fx_argv0[4096];

/* Optional: where the test program is when /proc/self/exe cannot say, and
 * a server that dies must not kill the test with SIGPIPE. */
static inline void fx_init(const char *argv0)
{
    snprintf(fx_argv0, sizeof fx_argv0, "%s", argv0);
    signal(SIGPIPE, SIG_IGN);
}

/* $(BUILD)/rel. */
static inline const char *fx_build(const char *rel, char *buf, size_t cap)
{
    const char *dir = getenv("SWEEP_BUILD_DIR");
    if (dir && *dir) {
        snprintf(buf, cap, "%s/%s", dir, rel);
        return buf;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0)
        self[n] = '\0';
    else if (strchr(fx_argv0, '/'))
        snprintf(self, sizeof self, "%s", fx_argv0);
    else
        snprintf(self, sizeof self, "build/tests/x/x");
    char up[4200], real[PATH_MAX];
    snprintf(up, sizeof up, "%s/../..", dirname(self));
    const char *base = realpath(up, real) ? real : up;
    /* base/rel, cut to cap like snprintf (which warns here, knowing the
     * sizes of both buffers). */
    size_t bl = strlen(base), rl = strlen(rel);
    if (cap == 0)
        return buf;
    if (bl > cap - 1)
        bl = cap - 1;
    memcpy(buf, base, bl);
    if (bl + 1 < cap) {
        buf[bl++] = '/';
        if (rl > cap - 1 - bl)
            rl = cap - 1 - bl;
        memcpy(buf + bl, rel, rl);
        bl += rl;
    }
    buf[bl] = '\0';
    return buf;
}

/* --- starting and stopping sweepd ---------------------------------------------- */

typedef struct fx_server {
    pid_t pid;               /* 0: not running */
    int port;                /* the TCP and UDP port */
    char tcp[128], udp[128]; /* "HOST:PORT", as the ready line says */
    char bin[1100];          /* the sweepd started */
    char arena[1100];        /* the sample arena */
    char dir[256];           /* private temporary directory */
    char log[1100];          /* the server's stderr */
    int own_log;             /* log is in dir, removed by fx_stop */
    int reaped, status;      /* fx_alive saw it end, with this waitpid status */
} fx_server;

/* Fills fx->bin and fx->arena. */
static inline void fx_paths(fx_server *fx)
{
    fx_build("bin/sweepd", fx->bin, sizeof fx->bin);
    fx_build("maps/arena.db", fx->arena, sizeof fx->arena);
}

static inline void fx_show_log(const fx_server *fx)
{
    FILE *f = fx->log[0] ? fopen(fx->log, "r") : NULL;
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        fprintf(stderr, "  sweepd: %s", line);
    fclose(f);
}

/* Starts bin (NULL: the build's sweepd) with --map MAP (NULL: the arena; "": none)
 * --listen 127.0.0.1:0, the log level and the extra arguments (a
 * NULL-terminated list; a later --listen or --log-level wins), its
 * standard error into the file log (NULL: sweepd.log in fx->dir). Its
 * first line of output, or what came of it before it ended or the
 * timeout, goes to line. Returns 0 once started (whatever it said), -1
 * after saying why not. */
static inline int fx_launch(fx_server *fx, const char *bin, const char *map, const char *const *extra,
                            const char *log, char *line, size_t cap)
{
    memset(fx, 0, sizeof *fx);
    line[0] = '\0';
    fx_paths(fx);
    if (bin) {
        size_t n = strlen(bin);
        if (n >= sizeof fx->bin) {
            fprintf(stderr, "fixture: path too long: %s\n", bin);
            return -1;
        }
        memcpy(fx->bin, bin, n + 1);
    }
    snprintf(fx->dir, sizeof fx->dir, "/tmp/sweep-test-XXXXXX");
    if (!mkdtemp(fx->dir)) {
        perror("fixture: mkdtemp");
        fx->dir[0] = '\0';
        return -1;
    }
    fx->own_log = !log;
    if (log)
        snprintf(fx->log, sizeof fx->log, "%s", log);
    else
        snprintf(fx->log, sizeof fx->log, "%s/sweepd.log", fx->dir);
    const char *level = getenv("SWEEP_TEST_LOG");
    if (!level || !*level)
        level = fx_verbose() ? "info" : "warn";
    const char *argv[64];
    int n = 0;
    argv[n++] = fx->bin;
    if (!map || *map) { /* "": no map at start (worlds only from --maps-dir) */
        argv[n++] = "--map";
        argv[n++] = map ? map : fx->arena;
    }
    argv[n++] = "--listen";
    argv[n++] = "127.0.0.1:0";
    argv[n++] = "--log-level";
    argv[n++] = level;
    for (int i = 0; extra && extra[i] && n < 63; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    int out[2];
    if (pipe(out) != 0) {
        perror("fixture: pipe");
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fixture: fork");
        close(out[0]);
        close(out[1]);
        return -1;
    }
    if (pid == 0) {
#ifdef __linux__
        /* Dies with the test, even by SIGKILL; if the test is already
         * gone, so is the reason to serve. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
#else
        (void)parent;
#endif
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        int lf = open(fx->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (lf >= 0) {
            dup2(lf, 2);
            close(lf);
        }
        execv(fx->bin, (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", fx->bin, strerror(errno));
        _exit(127);
    }
    close(out[1]);
    fx->pid = pid;
    size_t len = 0;
    uint64_t deadline = fx_now_ms() + 2 * FX_TIMEOUT_MS;
    while (len < cap - 1) {
        struct pollfd p = {.fd = out[0], .events = POLLIN};
        int left = (int)(deadline - fx_now_ms());
        if (left <= 0 || poll(&p, 1, left) <= 0 || read(out[0], line + len, 1) != 1 || line[len] == '\n')
            break;
        len++;
    }
    line[len] = '\0';
    close(out[0]);
    return 0;
}

/* Removes what fx_launch made: the log if it was ours, the directory. */
static inline void fx_cleanup(fx_server *fx)
{
    if (fx->own_log && fx->log[0])
        unlink(fx->log);
    if (fx->dir[0])
        rmdir(fx->dir);
    fx->dir[0] = '\0';
}

/* Waits for the server to exit (killing it after the timeout). Returns its
 * exit status, 128 + the signal that ended it, or -1 if it had to be
 * killed or was not running (a test that ended it itself sets pid to 0 or
 * -1 and still calls this, to remove the directory). Its log is shown
 * unless the status is 0. */
static inline int fx_wait(fx_server *fx)
{
    if (fx->pid <= 0) {
        if (fx_verbose())
            fx_show_log(fx);
        fx_cleanup(fx);
        return -1;
    }
    int st = fx->status, rc = -1;
    if (!fx->reaped) {
        uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
        for (;;) {
            pid_t r = waitpid(fx->pid, &st, WNOHANG);
            if (r == fx->pid)
                break;
            if (r < 0 && errno != EINTR) {
                st = -1;
                break;
            }
            if (fx_now_ms() > deadline) {
                fprintf(stderr, "fixture: sweepd (pid %d) did not exit in %d s: killed\n", (int)fx->pid,
                        FX_TIMEOUT_MS / 1000);
                kill(fx->pid, SIGKILL);
                waitpid(fx->pid, NULL, 0);
                st = -1;
                break;
            }
            usleep(10000);
        }
    }
    if (st != -1)
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
    fx->pid = 0;
    fx->reaped = 0;
    if (rc != 0 && !fx_verbose()) {
        fprintf(stderr, "fixture: sweepd ended with status %d; its log:\n", rc);
        fx_show_log(fx);
    }
    if (fx_verbose())
        fx_show_log(fx);
    fx_cleanup(fx);
    return rc;
}

/* SIGTERM and wait (fx_wait): 0 after a clean shutdown. */
static inline int fx_stop(fx_server *fx)
{
    if (fx->pid > 0 && !fx->reaped)
        kill(fx->pid, SIGTERM);
    return fx_wait(fx);
}

/* 1 if the server process is still running. */
static inline int fx_alive(fx_server *fx)
{
    if (fx->pid <= 0 || fx->reaped)
        return 0;
    if (waitpid(fx->pid, &fx->status, WNOHANG) == fx->pid) {
        fx->reaped = 1; /* fx_wait still reports how it ended */
        return 0;
    }
    return 1;
}

/* Starts bin (NULL: the build's sweepd) as fx_launch does and reads its
 * ready line, "sweepd ready tcp=HOST:PORT udp=HOST:PORT ...". Returns 0,
 * or -1 after showing why (its log) with the server stopped. */
static inline int fx_start_bin(fx_server *fx, const char *bin, const char *map, const char *const *extra,
                               const char *log)
{
    char line[512];
    if (fx_launch(fx, bin, map, extra, log, line, sizeof line) != 0) {
        fx_cleanup(fx);
        return -1;
    }
    const char *colon;
    if (sscanf(line, "sweepd ready tcp=%127s udp=%127s", fx->tcp, fx->udp) != 2 ||
        !(colon = strrchr(fx->tcp, ':')) || (fx->port = atoi(colon + 1)) <= 0) {
        fprintf(stderr, "fixture: no ready line from %s (got '%s'); its log:\n", fx->bin, line);
        kill(fx->pid, SIGKILL);
        waitpid(fx->pid, NULL, 0);
        fx->pid = 0;
        fx_show_log(fx);
        fx_cleanup(fx);
        return -1;
    }
    return 0;
}

/* Starts sweepd on map (NULL: the arena) with its stderr into log. */
static inline int fx_start_map_log(fx_server *fx, const char *map, const char *const *extra, const char *log)
{
    return fx_start_bin(fx, NULL, map, extra, log);
}

/* Starts sweepd on map (NULL: the arena). */
static inline int fx_start_map(fx_server *fx, const char *map, const char *const *extra)
{
    return fx_start_bin(fx, NULL, map, extra, NULL);
}

/* Starts sweepd on the arena with the extra arguments (may be NULL). */
static inline int fx_start(fx_server *fx, const char *const *extra)
{
    return fx_start_bin(fx, NULL, NULL, extra, NULL);
}

/* --- identities ------------------------------------------------------------------ */

/* Writes FX_SECRET (and a line break, which readers drop) to a new
 * private file; its path goes to path. Returns 0, or -1 after saying why. */
static inline int fx_secret(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/sweep-test-secret-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("fixture: mkstemp");
        return -1;
    }
    const char text[] = FX_SECRET "\n";
    int ok = write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
    close(fd);
    return ok ? 0 : -1;
}

/* A token of `role` (SWEEP_WIRE_ROLE_*) for identity, valid ttl seconds
 * from now (negative: expired that long ago), under FX_SECRET. */
static inline const char *fx_token(uint32_t role, const char *identity, long ttl, char *out, size_t cap)
{
    uint64_t expiry = (uint64_t)((long)time(NULL) + ttl);
    if (sweep_token_make((const uint8_t *)FX_SECRET, sizeof FX_SECRET - 1, role, identity, expiry, out, cap) !=
        SWEEP_TOKEN_OK)
        snprintf(out, cap, "cannot-mint");
    return out;
}

/* --- commands ---------------------------------------------------------------------- */

/* Runs a command line through sh, stdout and stderr into *out (malloc'd;
 * out may be NULL). Returns the exit status, 128 + a signal, or -1. */
static inline int fx_run(const char *cmd, char **out)
{
    if (out)
        *out = NULL;
    size_t n = strlen(cmd) + sizeof " 2>&1";
    char *full = malloc(n);
    if (!full)
        return -1;
    snprintf(full, n, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    free(full);
    if (!p)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += r;
        if (cap - len < 2) {
            char *n = realloc(buf, cap * 2);
            if (!n)
                break;
            buf = n;
            cap *= 2;
        }
    }
    if (buf)
        buf[len] = '\0';
    int st = pclose(p);
    if (fx_verbose() && buf)
        fprintf(stderr, "$ %s\n%s", cmd, buf);
    if (out)
        *out = buf;
    else
        free(buf);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A port of 127.0.0.1 free for TCP now, for a sweepd port the test must
 * know before the server's ready line: -1 if none was found. */
static inline int fx_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* Runs the program at `bin` with the printf-formatted ARGS (already
 * quoted as the shell needs), as fx_run does. */
static inline int fx_run_program(const char *bin, char **out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int fx_run_program(const char *bin, char **out, const char *fmt, ...)
{
    char args[2048], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s", bin, args);
    return fx_run(cmd, out);
}

/* --- a raw client: TCP ---------------------------------------------------------------- */

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

static uint8_t fx_out[256 * 1024] __attribute__((unused));

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
    sweep_wire_entity_state entity_states[4096];
    sweep_msg_entity_command_result command_results[1024];
    sweep_msg_query_answer query_answers[1024];
    sweep_wire_query_hit query_hits[4096];
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
    rx->dec.entity_states = rx->entity_states;
    rx->dec.entity_states_cap = 4096;
    rx->dec.command_results = rx->command_results;
    rx->dec.command_results_cap = 1024;
    rx->dec.query_answers = rx->query_answers;
    rx->dec.query_answers_cap = 1024;
    rx->dec.query_hits = rx->query_hits;
    rx->dec.query_hits_cap = 4096;
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

/* --- a raw client: UDP ------------------------------------------------------------------ */

/* The key of the session each socket holds (Welcome.udp_key, by fd), as a
 * client keeps it: fx_udp_recv learns it from a Welcome and fx_udp_send
 * puts it on every message but a Hello. */
#define FX_UDP_KEYS 4096
static uint64_t fx__udp_keys[FX_UDP_KEYS];

static inline uint64_t fx_udp_key(int fd)
{
    return fd >= 0 && fd < FX_UDP_KEYS ? fx__udp_keys[fd] : 0;
}

static inline void fx_udp_set_key(int fd, uint64_t key)
{
    if (fd >= 0 && fd < FX_UDP_KEYS)
        fx__udp_keys[fd] = key;
}

/* A UDP socket connected to the server (so it only hears the server). */
static inline int fx_udp_socket(int port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    fx_udp_set_key(fd, 0); /* an fd number closed before held another session */
    struct sockaddr_in a = fx_addr(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Encodes m (a Hello is padded to SWEEP_UDP_HELLO_MIN; anything else
 * carries the fd's session key unless m has one of its own) and sends it
 * as one datagram; returns its size or -1. */
static inline ssize_t fx_udp_send(int fd, const sweep_message *msg)
{
    const uint8_t *out;
    size_t len;
    sweep_message keyed;
    const sweep_message *m = msg;
    if (msg->kind != SWEEP_MSG_HELLO && msg->key == 0 && fx_udp_key(fd) != 0) {
        keyed = *msg;
        keyed.key = fx_udp_key(fd);
        m = &keyed;
    }
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
    if (m && m->kind == SWEEP_MSG_WELCOME && m->as.welcome.udp_key)
        fx_udp_set_key(fd, m->as.welcome.udp_key);
    return r;
}

/* len bytes (at least 64) that start with a Ping carrying fd's session
 * key, the rest 0x41: a datagram the server takes as the session's
 * (checked before its size and its verification), which fails as it is
 * made to (too large; with `broken`, a wrong file identifier). */
static inline int fx_udp_keyed_bytes(int fd, uint8_t *buf, size_t len, int broken)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_PING;
    m.sequence = 1;
    m.key = fx_udp_key(fd);
    const uint8_t *out;
    size_t n;
    if (sweep_encode(&m, 0, fx_out, sizeof fx_out, &out, &n) != SWEEP_PROTO_OK || n > len)
        return -1;
    memcpy(buf, out, n);
    memset(buf + n, 0x41, len - n);
    if (broken)
        memcpy(buf + 4, "XXXX", 4);
    return 0;
}

/* Full UDP handshake with the Hello `hello` (padded here; its cookie is
 * set here): Hello, Challenge, Hello with cookie, then the answer to that
 * into *answer (may be NULL). Returns the session id, or 0 (no Welcome).
 * Retries lost datagrams a few times. */
static inline uint64_t fx_udp_handshake_hello(int fd, fx_rx *rx, const sweep_message *hello, sweep_message *answer)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        sweep_message m = *hello, r;
        m.as.hello.cookie.ptr = NULL;
        m.as.hello.cookie.len = 0;
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

/* Full UDP handshake with an auth token (NULL: none). */
static inline uint64_t fx_udp_handshake_token(int fd, fx_rx *rx, const char *token, sweep_message *answer)
{
    sweep_message m = fx_hello_msg("udp-test");
    m.as.hello.auth_token = sweep_str_of(token);
    return fx_udp_handshake_hello(fd, rx, &m, answer);
}

/* Full UDP handshake without a token (a guest). */
static inline uint64_t fx_udp_handshake(int fd, fx_rx *rx)
{
    return fx_udp_handshake_token(fd, rx, NULL, NULL);
}

/* --- a log that stalls the server ------------------------------------------------ */

/* A sweepd whose stderr is a FIFO of one page that the test stops reading
 * blocks in write(2) once the FIFO is full: a real stall of its loop, made
 * rather than waited for (test_stall.c, test_health.c). lfd is the FIFO's
 * read end, opened O_NONBLOCK before the server starts. */

/* Reads what the server logged, without waiting. */
static inline void fx_fifo_drain(int lfd)
{
    char buf[4096];
    while (read(lfd, buf, sizeof buf) > 0)
        ;
}

/* Waits until the FIFO (of cap bytes) holds all it can: the server is
 * blocked writing. 0, or -1 when it never fills. */
static inline int fx_fifo_wait_full(int lfd, int cap)
{
    uint64_t deadline = fx_now_ms() + FX_TIMEOUT_MS;
    int was = -1, same = 0;
    while (fx_now_ms() < deadline) {
        int n = 0;
        if (ioctl(lfd, FIONREAD, &n) != 0)
            return -1;
        /* A line does not fit in what is left: full, and staying so. */
        same = n == was ? same + 1 : 0;
        if (n > cap - 200 && same >= 20)
            return 0;
        was = n;
        usleep(1000);
    }
    return -1;
}

/* Done stalling: the FIFO is read and given room for what the server says
 * as it stops, and its path becomes a file, as the fixture shows the log
 * at a bad end (not the FIFO nobody reads any more). */
static inline void fx_fifo_release(int lfd, const char *fifo)
{
    fx_fifo_drain(lfd);
#ifdef F_SETPIPE_SZ /* a program that uses these defines _GNU_SOURCE first, as it sets the size */
    fcntl(lfd, F_SETPIPE_SZ, 65536);
#endif
    unlink(fifo);
    int keep = open(fifo, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (keep >= 0)
        close(keep);
}

/* --- metrics ------------------------------------------------------------------ */

/* HTTP/1.1 over a plain socket to sweepd's metrics port: one request with
 * Connection: close, the answer read to EOF (on purpose no code shared
 * with the server's HTTP library). */
typedef struct fx_http_answer {
    int status;
    char content_type[128];
    char *body; /* NUL-terminated, malloc'ed; NULL when there is no answer */
} fx_http_answer;

/* A TCP connection to 127.0.0.1:port from the loopback address src (NULL:
 * the kernel's choice), connected within timeout_ms: the socket, or -1. */
static inline int fx_http_connect_from(int port, const char *src, int timeout_ms)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (src) {
        struct sockaddr_in a = {.sin_family = AF_INET};
        if (inet_pton(AF_INET, src, &a.sin_addr) != 1 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
            close(fd);
            return -1;
        }
    }
    struct sockaddr_in to = fx_addr(port);
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t el = sizeof err;
    if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* `method path` on 127.0.0.1:port from src (NULL: any address), answered
 * in full within timeout_ms: 0 with *a filled (free a->body), or -1 (no
 * connection, no complete answer in time, not HTTP). */
static inline int fx_http(int port, const char *src, const char *method, const char *path, int timeout_ms,
                               fx_http_answer *a)
{
    memset(a, 0, sizeof *a);
    uint64_t deadline = fx_now_ms() + (uint64_t)timeout_ms;
    int fd = fx_http_connect_from(port, src, timeout_ms);
    if (fd < 0)
        return -1;
    char req[256];
    snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", method, path);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf || send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
        goto fail;
    for (;;) {
        if (len + 1 == cap) {
            char *more = realloc(buf, cap * 2);
            if (!more)
                goto fail;
            buf = more;
            cap *= 2;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)(deadline - fx_now_ms());
        if (left <= 0 || poll(&p, 1, left) != 1)
            goto fail;
        ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
        if (r < 0 && errno == EAGAIN)
            continue;
        if (r < 0)
            goto fail;
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    fd = -1;
    buf[len] = 0;
    char *end = strstr(buf, "\r\n\r\n");
    if (sscanf(buf, "HTTP/1.1 %d", &a->status) != 1 || !end)
        goto fail;
    *end = 0;
    for (char *h = strstr(buf, "\r\n"); h; h = strstr(h + 2, "\r\n"))
        if (strncasecmp(h + 2, "Content-Type:", 13) == 0) {
            const char *v = h + 15;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t n = strcspn(v, "\r");
            snprintf(a->content_type, sizeof a->content_type, "%.*s", (int)n, v);
        }
    a->body = strdup(end + 4);
    free(buf);
    return a->body ? 0 : -1;
fail:
    if (fd >= 0)
        close(fd);
    free(buf);
    a->status = 0;
    return -1;
}

/* The value of the sample written exactly `series` (name and labels) in
 * an exposition text, or -1 if there is none. */
static inline double fx_http_sample(const char *body, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = body; *l; l = strchr(l, '\n') + 1) {
        if (strncmp(l, series, n) == 0 && l[n] == ' ')
            return strtod(l + n + 1, NULL);
        if (!strchr(l, '\n'))
            break;
    }
    return -1;
}

/* The value of the sample `name` (with its labels, as printed) of
 * sweepd's GET /metrics at port: -1 when absent or not fetched. */
static inline double fx_scrape(int port, const char *name)
{
    fx_http_answer a;
    if (fx_http(port, NULL, "GET", "/metrics", FX_TIMEOUT_MS, &a) != 0)
        return -1;
    double v = fx_http_sample(a.body, name);
    free(a.body);
    return v;
}

#endif
