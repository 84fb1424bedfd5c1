/*
 * test_faults.c - sweepd under faults, in the spirit of SQLite's tests:
 *
 *   - every allocation a client's requests make fails in turn: with a
 *     sweepd built with make FAULTS=1, SWEEP_FAIL_ALLOC=N fails the N-th
 *     allocation after the ready line, for N = 1, 2, ... until a run in
 *     which nothing failed (N is past the last allocation). Each run plays
 *     Hello, Spawn (enough of them to grow every array and the entity
 *     table), Move, MoveBatch, Despawn, WatchWorld, MoverCommand and
 *     GetStats, a frame sent in two pieces and a backlog of answers a
 *     client does not read at once (the connection's buffers); every
 *     request must get its result, or an Error Internal saying what it was
 *     out of memory for, after which the same request must succeed (the
 *     failure is one allocation); only an answer that cannot be queued
 *     ends its connection unsaid, which the log must then name. A fresh
 *     client must then be served the whole sequence, and SIGTERM must end
 *     the server with status 0. The same again while recording (at one
 *     tick a second, so the recorder's allocations come in a stable
 *     order), and the log written must replay with sweep-replay. How many
 *     allocations the backlog makes varies by a few with the kernel's
 *     socket buffers; the rest is the same every run;
 *   - SWEEP_FAIL_ALLOC_RANDOM=P:K fails the same allocations for the same
 *     K, others for another K, and every one for P = 1;
 *   - the map file is made unreadable, overwritten, deleted and replaced
 *     under a running server, which loaded it at start and must go on
 *     serving the same world;
 *   - the disk fills while the server records under load (a 1 MiB tmpfs;
 *     where mounting is refused, a file size limit): the server says
 *     record_failed once, naming the file and the error, answers every
 *     client throughout and after, and the log written so far replays
 *     (SWEEP_FAULTS_NO_TMPFS=1 takes the file size limit even as root).
 *
 * The fault-injection sweepd is $SWEEP_FAULTS_BIN_DIR/sweepd, or the one
 * under test if it is such a build (make FAULTS=1 test), or the one a
 * normal build makes beside itself in $BUILD-faults (tests/tests.mk); it
 * says it is one in its log (event=fault_injection armed).
 */
#define _GNU_SOURCE /* memmem */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"

/* The spawns of the first client: past 32 entities the entity table
 * grows, past 4, 8, 16 and 32 the session's and the world's arrays. */
#define SPAWNS 40
#define FRESH_SPAWNS 3
/* More runs than this means the injector never stops finding
 * allocations: a leak of allocations per request, or a broken count. */
#define MAX_RUNS 400

static fx_rx *rx;
static char dir[256];           /* scratch directory of this test */
static char arena[1100];        /* the map every run serves */
static char bin_dir[1100];      /* the sweepd under test (and sweep-replay) */
static char faults_dir[1100];   /* a fault-injection sweepd, "" if none */
static char mounted[300];       /* the tmpfs mounted, until unmounted: teardown's if a test failed */

/* --- small things ---------------------------------------------------------- */

static int file_contains(const char *path, const char *needle, char *line_out, size_t line_len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, needle)) {
            if (n == 0 && line_out)
                snprintf(line_out, line_len, "%s", line);
            n++;
        }
    }
    fclose(f);
    return n;
}

/* The value of key= in a log line ("" if absent), up to a space. */
static void log_field(const char *line, const char *key, char *out, size_t outlen)
{
    out[0] = 0;
    const char *p = strstr(line, key);
    if (!p)
        return;
    p += strlen(key);
    size_t n = 0;
    if (*p == '"') {
        p++;
        while (p[n] && p[n] != '"')
            n++;
    } else {
        while (p[n] && p[n] != ' ' && p[n] != '\n')
            n++;
    }
    snprintf(out, outlen, "%.*s", (int)n, p);
}

/* What the log says right after its first line holding needle: the
 * event and its error= or reason=, "" if nothing follows. */
static void after_line(const char *path, const char *needle, char *out, size_t outlen)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[2048];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (found) {
            char ev[64], why[120];
            log_field(line, "event=", ev, sizeof ev);
            log_field(line, "error=", why, sizeof why);
            if (!why[0])
                log_field(line, "reason=", why, sizeof why);
            snprintf(out, outlen, "%s%s%s", ev, why[0] ? " " : "", why);
            break;
        }
        found = strstr(line, needle) != NULL;
    }
    fclose(f);
}

/* The servers running, so that teardown ends those a failed assertion
 * left behind. */
static pid_t live[4];

static void track(const fx_server *fx)
{
    for (unsigned i = 0; i < sizeof live / sizeof live[0]; i++)
        if (!live[i]) {
            live[i] = fx->pid;
            return;
        }
}

/* fx_stop, and the server is no longer tracked. */
static int stop(fx_server *fx)
{
    for (unsigned i = 0; i < sizeof live / sizeof live[0]; i++)
        if (live[i] == fx->pid)
            live[i] = 0;
    return fx_stop(fx);
}

/* Starts the sweepd of bin (a bin/ directory) on the map (NULL: the
 * arena) with the extra arguments, its log into logpath, the environment
 * as it is. */
static int start_map_in(fx_server *fx, const char *bin, const char *map, const char *const *extra,
                        const char *logpath)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/sweepd", bin);
    int r = fx_start_bin(fx, path, map ? map : arena, extra, logpath);
    if (r == 0)
        track(fx);
    return r;
}

static int start_in(fx_server *fx, const char *bin, const char *const *extra, const char *logpath)
{
    return start_map_in(fx, bin, NULL, extra, logpath);
}

/* Is bin/sweepd a fault-injection build? */
static int is_faults_build(const char *bin)
{
    char path[1200], logpath[300];
    snprintf(path, sizeof path, "%s/sweepd", bin);
    if (access(path, X_OK) != 0)
        return 0;
    snprintf(logpath, sizeof logpath, "%s/probe.log", dir);
    fx_server fx;
    setenv("SWEEP_FAIL_ALLOC", "0", 1);
    int r = start_in(&fx, bin, NULL, logpath);
    unsetenv("SWEEP_FAIL_ALLOC");
    if (r != 0)
        return 0;
    stop(&fx);
    return file_contains(logpath, "event=fault_injection armed", NULL, 0) > 0;
}

/* Runs sweep-replay on a log: its exit status, its output into out. */
static int replay(const char *log, char *out, size_t outlen)
{
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "'%s/sweep-replay' '%s' 2>&1", bin_dir, log);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first segment (-0000) of the log in d: 1 with its path, 0 if none. */
static int first_segment(const char *d, char *path, size_t pathlen)
{
    DIR *dd = opendir(d);
    if (!dd)
        return 0;
    struct dirent *e;
    int found = 0;
    while ((e = readdir(dd))) {
        if (strstr(e->d_name, "-0000.sweeplog")) {
            snprintf(path, pathlen, "%s/%s", d, e->d_name);
            found = 1;
        }
    }
    closedir(dd);
    return found;
}

static void empty_dir(const char *d)
{
    DIR *dd = opendir(d);
    if (!dd)
        return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        unlink(p);
    }
    closedir(dd);
}

/* --- a client that tells results from out-of-memory Errors ----------------- */

typedef struct client {
    int fd;
    uint32_t seq;
    uint32_t ents[64];
    uint32_t moved[64]; /* last move sequence of each */
    unsigned n;
    int *ooms_left;     /* out-of-memory answers the run may still give */
    char told[200];     /* the first such answer, for the report */
    char why[300];      /* what went wrong, when something did */
} client;

static void client_init(client *c, int *ooms_left)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->ooms_left = ooms_left;
}

static void client_close(client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

static int failed(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failed(client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* Tries of a request answered out of memory: one failed allocation
 * costs one try; random failures may cost several in a row. */
static int attempts = 2;

static int is_oom(const sweep_message *m)
{
    return m->kind == SWEEP_MSG_ERROR && m->as.error.code == SWEEP_WIRE_INTERNAL && m->as.error.message.ptr &&
           memmem(m->as.error.message.ptr, m->as.error.message.len, "out of memory", 13);
}

/* The answer to the request just sent: pushes (sequence 0 WorldStates)
 * are skipped. 1, 0 on EOF, -1 on timeout: a silent server fails here. */
static int recv_answer(client *c, sweep_message *m)
{
    for (;;) {
        int r = fx_recv(c->fd, rx, m);
        if (r != 1)
            return r;
        if (m->sequence == 0 && m->kind == SWEEP_MSG_WORLD_STATE)
            continue;
        return 1;
    }
}

/* An out-of-memory Error: counted against what the client may get. */
static int took_oom(client *c, const char *request, const sweep_message *m)
{
    if ((*c->ooms_left)-- <= 0)
        return failed(c, "%s: an unexpected Error Internal \"%.*s\"", request, (int)m->as.error.message.len,
                    m->as.error.message.ptr);
    if (!c->told[0])
        snprintf(c->told, sizeof c->told, "%s: \"%.*s\"", request, (int)m->as.error.message.len,
                 m->as.error.message.ptr);
    return 0;
}

/* Sends req (its sequence set here) and wants `kind` back; an Error
 * out of memory gets the same request once more. 0, or -1 with c->why. */
static int ask(client *c, sweep_message *req, sweep_msg_kind kind, sweep_message *out)
{
    const char *name = sweep_msg_kind_name(req->kind);
    for (int attempt = 0; attempt < attempts; attempt++) {
        req->sequence = ++c->seq;
        if (fx_send(c->fd, req) != 0)
            return failed(c, "%s: the connection is gone", name);
        int r = recv_answer(c, out);
        if (r == 0)
            return failed(c, "%s: the server closed the connection", name);
        if (r < 0)
            return failed(c, "%s: no answer within %d ms", name, FX_TIMEOUT_MS);
        if (out->kind == kind && out->sequence == req->sequence)
            return 0;
        if (!is_oom(out)) {
            if (out->kind == SWEEP_MSG_ERROR)
                return failed(c, "%s: Error %s \"%.*s\"", name, sweep_wire_code_name(out->as.error.code),
                            (int)out->as.error.message.len, out->as.error.message.ptr);
            return failed(c, "%s: got %s (sequence %u)", name, sweep_msg_kind_name(out->kind), out->sequence);
        }
        if (took_oom(c, name, out) != 0)
            return -1;
    }
    return failed(c, "%s: out of memory %d times", name, attempts);
}

/* Connects (with that receive buffer, 0: the system's) and says Hello
 * with the command token. A connection refused for want of memory (an
 * Error, then the end) or a Hello refused so is tried once more on a new
 * connection. */
static int hello_rcvbuf(client *c, int port, int rcvbuf)
{
    for (int attempt = 0; attempt < attempts; attempt++) {
        client_close(c);
        c->fd = fx_tcp_connect_rcvbuf(port, rcvbuf);
        if (c->fd < 0)
            return failed(c, "connect: %s", strerror(errno));
        sweep_message m = fx_hello_msg("faults");
        m.as.hello.auth_token = sweep_str_of(FX_TOKEN);
        m.sequence = ++c->seq;
        if (fx_send(c->fd, &m) != 0)
            return failed(c, "Hello: the connection is gone");
        int r = recv_answer(c, &m);
        if (r == 0)
            return failed(c, "Hello: the connection ended without a word");
        if (r < 0)
            return failed(c, "Hello: no answer within %d ms", FX_TIMEOUT_MS);
        if (m.kind == SWEEP_MSG_WELCOME)
            return 0;
        if (!is_oom(&m))
            return failed(c, "Hello: got %s", sweep_msg_kind_name(m.kind));
        if (took_oom(c, "Hello", &m) != 0)
            return -1;
    }
    return failed(c, "Hello: out of memory %d times", attempts);
}

static int hello(client *c, int port)
{
    return hello_rcvbuf(c, port, 0);
}

static sweep_message move_of(client *c, unsigned i)
{
    sweep_message m = fx_msg(SWEEP_MSG_MOVE, 0);
    m.as.move.entity = c->ents[i];
    m.as.move.sequence = ++c->moved[i];
    /* Back and forth: a long load stays on the floor of the arena. */
    double dir = (m.as.move.sequence / 16) % 2 ? -1.0 : 1.0;
    m.as.move.velocity = sweep_v3(dir, 0.5 * dir, 0.0);
    m.as.move.dt = 1.0 / 60.0;
    return m;
}

/* The whole sequence on a new connection, `spawns` entities. */
static int sequence(client *c, int port, unsigned spawns)
{
    sweep_message m, r;
    if (hello(c, port) != 0)
        return -1;
    for (unsigned i = 0; i < spawns; i++) {
        m = fx_msg(SWEEP_MSG_SPAWN, 0);
        m.as.spawn.spawn_point = 1;
        if (ask(c, &m, SWEEP_MSG_SPAWNED, &r) != 0)
            return -1;
        c->moved[c->n] = 0;
        c->ents[c->n++] = r.as.spawned.entity;
    }
    m = move_of(c, 0);
    if (ask(c, &m, SWEEP_MSG_MOVE_RESULT, &r) != 0)
        return -1;
    if (r.as.move_result.entity != c->ents[0])
        return failed(c, "Move: the result is for entity %u, not %u", r.as.move_result.entity, c->ents[0]);
    sweep_msg_move moves[8];
    unsigned k = c->n < 8 ? c->n : 8;
    for (unsigned i = 0; i < k; i++)
        moves[i] = move_of(c, i).as.move;
    m = fx_msg(SWEEP_MSG_MOVE_BATCH, 0);
    m.as.move_batch.moves = moves;
    m.as.move_batch.count = k;
    if (ask(c, &m, SWEEP_MSG_MOVE_RESULT_BATCH, &r) != 0)
        return -1;
    if (r.as.move_result_batch.count != k)
        return failed(c, "MoveBatch: %u results for %u moves", r.as.move_result_batch.count, k);
    m = fx_msg(SWEEP_MSG_DESPAWN, 0);
    m.as.despawn.entity = c->ents[--c->n];
    if (ask(c, &m, SWEEP_MSG_DESPAWNED, &r) != 0)
        return -1;
    m = fx_msg(SWEEP_MSG_WATCH_WORLD, 0);
    m.as.watch_world.every = 1;
    if (ask(c, &m, SWEEP_MSG_WORLD_STATE, &r) != 0)
        return -1;
    if (r.as.world_state.mover_count != 4)
        return failed(c, "WatchWorld: %u movers, the arena has 4", r.as.world_state.mover_count);
    m = fx_msg(SWEEP_MSG_MOVER_COMMAND, 0);
    m.as.mover_command.mover = sweep_str_of("lift");
    if (ask(c, &m, SWEEP_MSG_MOVER_COMMANDED, &r) != 0)
        return -1;
    m = fx_msg(SWEEP_MSG_GET_STATS, 0);
    if (ask(c, &m, SWEEP_MSG_STATS, &r) != 0)
        return -1;
    return 0;
}

/* A Ping in two pieces, a moment apart: the server keeps the first piece
 * in a buffer of the connection's until the rest comes. Its answer is a
 * Pong, or an Error saying there was no memory for the frame (and the
 * connection ends). */
static int split_frame(client *c, int port)
{
    client_close(c);
    c->fd = fx_tcp_connect(port);
    if (c->fd < 0)
        return failed(c, "connect: %s", strerror(errno));
    sweep_message m = fx_msg(SWEEP_MSG_PING, ++c->seq), r;
    const uint8_t *out;
    size_t len;
    if (sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, fx_out, sizeof fx_out, &out, &len) != SWEEP_PROTO_OK)
        return failed(c, "Ping: cannot encode");
    /* A connection refused at once has its Error waiting and is gone:
     * writing may fail, the answer is what counts. */
    if (fx_write_all(c->fd, out, 6) == 0) {
        usleep(30000);
        (void)fx_write_all(c->fd, out + 6, len - 6);
    }
    int got = recv_answer(c, &r);
    if (got == 1 && r.kind == SWEEP_MSG_PONG && r.sequence == m.sequence)
        return 0;
    if (got == 1 && is_oom(&r))
        return took_oom(c, "Ping in two pieces", &r);
    return failed(c, "Ping in two pieces: %s", got == 1 ? sweep_msg_kind_name(r.kind) : got == 0 ? "the end" : "no answer");
}

/* A client that reads nothing while BACKLOG MoveBatches are answered,
 * through a small receive buffer: past what the kernel holds (on loopback
 * its send buffer grows to a megabyte or more) the answers wait in the
 * connection's write buffers, which grow, until it reads them all (the
 * server runs with a --max-write-queue that lets them). If one of those
 * buffers cannot grow the connection ends (nothing can be queued, not
 * even an Error): *cut says so, and the log must too. */
#define BACKLOG 300
static int backlog(client *c, int port, int *cut)
{
    *cut = 0;
    if (hello_rcvbuf(c, port, 4096) != 0)
        return -1;
    sweep_message m = fx_msg(SWEEP_MSG_SPAWN, 0), r;
    m.as.spawn.spawn_point = 2;
    if (ask(c, &m, SWEEP_MSG_SPAWNED, &r) != 0)
        return -1;
    c->ents[0] = r.as.spawned.entity;
    c->moved[0] = 0;
    c->n = 1;
    static sweep_msg_move moves[64];
    uint32_t first = c->seq + 1;
    unsigned sent = 0;
    for (; sent < BACKLOG; sent++) {
        for (unsigned i = 0; i < 64; i++)
            moves[i] = move_of(c, 0).as.move;
        m = fx_msg(SWEEP_MSG_MOVE_BATCH, ++c->seq);
        m.as.move_batch.moves = moves;
        m.as.move_batch.count = 64;
        if (fx_send(c->fd, &m) != 0)
            break;
    }
    for (unsigned i = 0; i < sent; i++) {
        int got = recv_answer(c, &r);
        if (got == 1 && r.kind == SWEEP_MSG_MOVE_RESULT_BATCH && r.sequence == first + i &&
            r.as.move_result_batch.count == 64)
            continue;
        if (got == 1 && is_oom(&r)) {
            /* No memory for a request that came in pieces: said, and the
             * connection ends. */
            if (took_oom(c, "MoveBatch backlog", &r) != 0)
                return -1;
            got = recv_answer(c, &r);
            if (got == 0) {
                *cut = 1;
                return 0;
            }
        } else if (got == 0 && (*c->ooms_left)-- > 0) {
            *cut = 1;
            return 0;
        }
        return failed(c, "MoveBatch backlog, answer %u of %u: %s", i + 1, sent,
                      got == 1 ? sweep_msg_kind_name(r.kind) : got == 0 ? "the connection ended" : "no answer");
    }
    return sent == BACKLOG ? 0 : failed(c, "MoveBatch backlog: only %u of %u requests could be sent", sent, BACKLOG);
}

/* --- allocation failures -------------------------------------------------- */

typedef struct fault_run {
    int ok;
    int fired;           /* allocations failed (0: N is past the last) */
    int fired_before;    /* of them, before the fresh client began */
    char at[160];        /* where: file:line of the failed allocation */
    char told[200];      /* what a client was told, if anything */
    char effect[200];    /* what the log said about it */
    char why[400];       /* what went wrong */
} fault_run;

static int count_lines(const char *log, const char *needle)
{
    return file_contains(log, needle, NULL, 0);
}

/* One server with SWEEP_FAIL_ALLOC=n: the sequence, a fresh client, the
 * exit; with a recording, its replay. */
static void fault_once(uint64_t n, int record, unsigned spawns, fault_run *fr)
{
    memset(fr, 0, sizeof *fr);
    char logpath[300], recdir[300], num[32];
    snprintf(logpath, sizeof logpath, "%s/faults.log", dir);
    snprintf(recdir, sizeof recdir, "%s/rec", dir);
    snprintf(num, sizeof num, "%llu", (unsigned long long)n);
    mkdir(recdir, 0700);
    empty_dir(recdir);
    const char *plain[] = {FX_SERVER_ARGS, "--max-write-queue", "64000000", NULL};
    const char *rec[] = {FX_SERVER_ARGS, "--record", recdir, "--tick-rate", "1", NULL};
    fx_server fx;
    setenv("SWEEP_FAIL_ALLOC", num, 1);
    int started = start_in(&fx, faults_dir, record ? rec : plain, logpath);
    unsetenv("SWEEP_FAIL_ALLOC");
    if (started != 0) {
        snprintf(fr->why, sizeof fr->why, "sweepd did not start");
        return;
    }
    /* One allocation fails in a run: one out-of-memory answer (or one
     * connection cut for it) at most, whoever gets it. */
    int ooms_left = 1, cut = 0;
    client a, pieces, lag, b;
    client_init(&a, &ooms_left);
    client_init(&pieces, &ooms_left);
    client_init(&lag, &ooms_left);
    client_init(&b, &ooms_left);
    int seq_ok = sequence(&a, fx.port, spawns) == 0;
    if (seq_ok && !record) {
        seq_ok = split_frame(&pieces, fx.port) == 0 && backlog(&lag, fx.port, &cut) == 0;
        if (!seq_ok)
            snprintf(a.why, sizeof a.why, "%s", pieces.why[0] ? pieces.why : lag.why);
    }
    fr->fired_before = count_lines(logpath, "event=fault_injected");
    /* Once the allocation failed, the fresh client must meet no other. */
    if (fr->fired_before)
        ooms_left = 0;
    int fresh_ok = sequence(&b, fx.port, FRESH_SPAWNS) == 0;
    client_close(&a);
    client_close(&pieces);
    client_close(&lag);
    client_close(&b);
    int alive = fx_alive(&fx);
    int status = stop(&fx);
    fr->fired = count_lines(logpath, "event=fault_injected");
    char line[2048] = "";
    if (file_contains(logpath, "event=fault_injected", line, sizeof line))
        log_field(line, "at=", fr->at, sizeof fr->at);
    const char *told = a.told[0] ? a.told : pieces.told[0] ? pieces.told : lag.told[0] ? lag.told : b.told;
    snprintf(fr->told, sizeof fr->told, "%s", told[0] || !cut ? told : "MoveBatch backlog: the connection ended");
    after_line(logpath, "event=fault_injected", fr->effect, sizeof fr->effect);
    if (!seq_ok)
        snprintf(fr->why, sizeof fr->why, "first client: %s", a.why);
    else if (!fresh_ok)
        snprintf(fr->why, sizeof fr->why, "fresh client: %s", b.why);
    else if (!alive || status != 0)
        snprintf(fr->why, sizeof fr->why, "sweepd %s (exit status %d after SIGTERM)",
                 alive ? "did not stop cleanly" : "died", status);
    else if (fr->fired > 1)
        snprintf(fr->why, sizeof fr->why, "%d allocations failed where one was asked", fr->fired);
    else if ((fr->told[0] && !fr->fired) || (cut && !count_lines(logpath, "event=conn_out_of_memory")))
        snprintf(fr->why, sizeof fr->why, "out of memory said, or a connection cut, with no allocation failed");
    if (fr->why[0])
        return;
    if (record) {
        char log[600], out[4096];
        if (!first_segment(recdir, log, sizeof log)) {
            snprintf(fr->why, sizeof fr->why, "no session log in %s", recdir);
            return;
        }
        int rs = replay(log, out, sizeof out);
        if (rs != 0) {
            snprintf(fr->why, sizeof fr->why, "sweep-replay exit %d: %.300s", rs, out);
            return;
        }
    }
    fr->ok = 1;
}

/* N = 1, 2, ... until a run fails nothing, or one goes wrong. */
static void fault_each(int record, unsigned spawns, const char *label)
{
    if (!faults_dir[0])
        fail_msg("no fault-injection sweepd: build one with make FAULTS=1 (a normal make test builds it "
                 "into $BUILD-faults), or name its bin/ in SWEEP_FAULTS_BIN_DIR");
    unsigned exercised = 0, passed = 0, sites = 0;
    char seen[64][160];
    uint64_t t0 = fx_now_ms();
    for (uint64_t n = 1; n <= MAX_RUNS; n++) {
        fault_run fr;
        fault_once(n, record, spawns, &fr);
        if (fr.ok && fr.fired == 0)
            break; /* past the last allocation: every one was failed once */
        exercised++;
        int known = 0;
        for (unsigned i = 0; i < sites; i++)
            known |= strcmp(seen[i], fr.at) == 0;
        if (!known && sites < 64)
            snprintf(seen[sites++], sizeof seen[0], "%s", fr.at);
        print_message("%s N=%llu at=%s%s%s%s%s -> %s\n", label, (unsigned long long)n, fr.at[0] ? fr.at : "?",
                      fr.told[0] ? " told " : "", fr.told, fr.effect[0] ? " log: " : "", fr.effect,
                      fr.ok ? "ok" : fr.why);
        if (fr.ok)
            passed++;
        else
            break; /* a server that stops serving costs a timeout a request: one is enough to see */
    }
    print_message("fault-injection counts (%s): %u allocations failed in turn, %u passed, at %u call sites, "
                  "in %.1f s\n",
                  label, exercised, passed, sites, (double)(fx_now_ms() - t0) / 1000.0);
    assert_int_equal(passed, exercised);
    /* The sequence allocates at least: the connection, the session, and
     * per Spawn the entity, plus the growth of the arrays and the table. */
    assert_true(exercised >= (record ? 8u : 2u + SPAWNS));
    assert_true(exercised < MAX_RUNS);
}

static void test_each_allocation_fails(void **state)
{
    (void)state;
    fault_each(0, SPAWNS, "serving");
}

static void test_each_allocation_fails_recording(void **state)
{
    (void)state;
    fault_each(1, FRESH_SPAWNS, "recording");
}

/* SWEEP_FAIL_ALLOC_RANDOM=P:K, run with the sequence: the numbers of the
 * allocations it failed ("12,40,..."), and whether all went well. */
static int random_run(const char *spec, char *failed_list, size_t listlen)
{
    char logpath[300];
    snprintf(logpath, sizeof logpath, "%s/faults.log", dir);
    const char *extra[] = {FX_SERVER_ARGS, NULL};
    fx_server fx;
    setenv("SWEEP_FAIL_ALLOC_RANDOM", spec, 1);
    int started = start_in(&fx, faults_dir, extra, logpath);
    unsetenv("SWEEP_FAIL_ALLOC_RANDOM");
    if (started != 0)
        return -1;
    int ooms_left = 1000;
    client c;
    client_init(&c, &ooms_left);
    attempts = 20;
    int ok = sequence(&c, fx.port, SPAWNS) == 0;
    attempts = 2;
    if (!ok)
        print_message("%s: %s\n", spec, c.why);
    client_close(&c);
    ok = stop(&fx) == 0 && ok;
    failed_list[0] = 0;
    FILE *f = fopen(logpath, "r");
    char line[2048], n[32];
    while (f && fgets(line, sizeof line, f)) {
        if (!strstr(line, "event=fault_injected"))
            continue;
        log_field(line, "allocation=", n, sizeof n);
        size_t used = strlen(failed_list);
        snprintf(failed_list + used, listlen - used, "%s%s", used ? "," : "", n);
    }
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

/* The random mode: P = 1 fails everything, and the sequence K fails the
 * same allocations of the same requests every time, another K others. */
static void test_random_failures_repeat(void **state)
{
    (void)state;
    if (!faults_dir[0])
        fail_msg("no fault-injection sweepd (see test_each_allocation_fails)");
    char a[4096], b[4096], other[4096], logpath[300];
    assert_int_equal(random_run("0.2:3", a, sizeof a), 0);
    assert_int_equal(random_run("0.2:3", b, sizeof b), 0);
    assert_int_equal(random_run("0.2:4", other, sizeof other), 0);
    print_message("P=0.2, K=3 failed allocations %s; K=4: %s\n", a, other);
    assert_true(a[0] != 0);
    assert_string_equal(a, b);
    assert_string_not_equal(a, other);

    snprintf(logpath, sizeof logpath, "%s/faults.log", dir);
    const char *extra[] = {FX_SERVER_ARGS, NULL};
    fx_server fx;
    setenv("SWEEP_FAIL_ALLOC_RANDOM", "1:0", 1);
    int started = start_in(&fx, faults_dir, extra, logpath);
    unsetenv("SWEEP_FAIL_ALLOC_RANDOM");
    assert_int_equal(started, 0);
    for (int i = 0; i < 5; i++) {
        int ooms_left = 1;
        client c;
        client_init(&c, &ooms_left);
        attempts = 1;
        int r = hello(&c, fx.port);
        attempts = 2;
        client_close(&c);
        /* Refused, and told so. */
        assert_int_equal(r, -1);
        assert_int_equal(ooms_left, 0);
    }
    assert_true(fx_alive(&fx));
    assert_int_equal(stop(&fx), 0);
    assert_true(count_lines(logpath, "event=fault_injected") >= 5);
}

/* --- the map file goes away ------------------------------------------------ */

static uint64_t welcome_hash_prefix(int port, client *c)
{
    sweep_message m;
    client_close(c);
    c->fd = fx_tcp_connect(port);
    if (c->fd < 0)
        return 0;
    m = fx_hello_msg("faults");
    m.sequence = 1;
    if (fx_send(c->fd, &m) != 0 || fx_recv(c->fd, rx, &m) != 1 || m.kind != SWEEP_MSG_WELCOME ||
        m.as.welcome.map_hash.len < 8)
        return 0;
    uint64_t h = 0;
    memcpy(&h, m.as.welcome.map_hash.ptr, 8);
    client_close(c);
    return h;
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    int ok = a && b;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a)
        fclose(a);
    if (b && fclose(b) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static void test_map_file_gone_while_serving(void **state)
{
    (void)state;
    char map[300], other[300], logpath[300];
    snprintf(map, sizeof map, "%s/map.db", dir);
    snprintf(other, sizeof other, "%s/other.db", dir);
    snprintf(logpath, sizeof logpath, "%s/map.log", dir);
    assert_int_equal(copy_file(arena, map), 0);
    const char *extra[] = {FX_SERVER_ARGS, NULL};
    fx_server fx;
    assert_int_equal(start_map_in(&fx, bin_dir, map, extra, logpath), 0);
    int no_oom = 0;
    client c;
    client_init(&c, &no_oom);
    uint64_t hash = welcome_hash_prefix(fx.port, &c);
    assert_true(hash != 0);

    /* Unreadable: for a server run as root this changes nothing, for any
     * other it would refuse a new open. */
    assert_int_equal(chmod(map, 0), 0);
    client_init(&c, &no_oom);
    if (sequence(&c, fx.port, FRESH_SPAWNS) != 0)
        fail_msg("after chmod 000: %s", c.why);
    client_close(&c);

    /* Overwritten in place (the same inode): a server reading its map
     * lazily would read garbage now. */
    assert_int_equal(chmod(map, 0600), 0);
    FILE *f = fopen(map, "r+b");
    assert_non_null(f);
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    for (int i = 0; i < 64; i++)
        assert_int_equal(fwrite(junk, 1, sizeof junk, f), sizeof junk);
    assert_int_equal(fclose(f), 0);
    client_init(&c, &no_oom);
    if (sequence(&c, fx.port, FRESH_SPAWNS) != 0)
        fail_msg("after the map was overwritten: %s", c.why);
    client_close(&c);

    /* Deleted, then replaced by another file of that name. */
    assert_int_equal(unlink(map), 0);
    client_init(&c, &no_oom);
    if (sequence(&c, fx.port, FRESH_SPAWNS) != 0)
        fail_msg("after the map was deleted: %s", c.why);
    client_close(&c);
    f = fopen(other, "wb");
    assert_non_null(f);
    fputs("not a map\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rename(other, map), 0);
    client_init(&c, &no_oom);
    if (sequence(&c, fx.port, FRESH_SPAWNS) != 0)
        fail_msg("after the map was replaced: %s", c.why);
    client_close(&c);

    /* The same world all along: new sessions are told the same map. */
    assert_true(welcome_hash_prefix(fx.port, &c) == hash);
    assert_true(fx_alive(&fx));
    assert_int_equal(stop(&fx), 0);
    assert_int_equal(count_lines(logpath, "level=error"), 0);
    unlink(map);
}

/* --- the disk fills while recording ---------------------------------------- */

/* Load: each client sends MoveBatches of 32 moves of its entity and must
 * get every one answered. */
#define LOADERS 4
#define BATCH 32

static int load_batch(client *c)
{
    sweep_msg_move moves[BATCH];
    for (unsigned i = 0; i < BATCH; i++)
        moves[i] = move_of(c, 0).as.move;
    sweep_message m = fx_msg(SWEEP_MSG_MOVE_BATCH, 0), r;
    m.as.move_batch.moves = moves;
    m.as.move_batch.count = BATCH;
    if (ask(c, &m, SWEEP_MSG_MOVE_RESULT_BATCH, &r) != 0)
        return -1;
    if (r.as.move_result_batch.count != BATCH)
        return failed(c, "MoveBatch: %u results for %u moves", r.as.move_result_batch.count, BATCH);
    return 0;
}

static void test_disk_full_while_recording(void **state)
{
    (void)state;
    char recdir[300], logpath[300];
    snprintf(recdir, sizeof recdir, "%s/full", dir);
    snprintf(logpath, sizeof logpath, "%s/full.log", dir);
    assert_int_equal(mkdir(recdir, 0700), 0);
    /* A small disk of its own; where mounting is not allowed, the same
     * from the kernel's file size limit (EFBIG instead of ENOSPC). */
    int is_tmpfs = !getenv("SWEEP_FAULTS_NO_TMPFS") && mount("tmpfs", recdir, "tmpfs", 0, "size=1m") == 0;
    if (is_tmpfs)
        snprintf(mounted, sizeof mounted, "%s", recdir);
    struct rlimit old_fsize;
    getrlimit(RLIMIT_FSIZE, &old_fsize);
    void (*old_xfsz)(int) = SIG_DFL;
    if (!is_tmpfs) {
        print_message("(no tmpfs: %s; a 1 MiB file size limit instead)\n",
                      getenv("SWEEP_FAULTS_NO_TMPFS") ? "SWEEP_FAULTS_NO_TMPFS" : strerror(errno));
        /* Set in this process for the fork the fixture makes, then put
         * back: the limit and an ignored SIGXFSZ outlive exec, so writes
         * past it fail with EFBIG instead of killing sweepd. */
        struct rlimit lim = {1u << 20, old_fsize.rlim_max};
        old_xfsz = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    }
    const char *extra[] = {FX_SERVER_ARGS, "--record", recdir, NULL};
    fx_server fx;
    int started = start_in(&fx, bin_dir, extra, logpath);
    if (!is_tmpfs) {
        setrlimit(RLIMIT_FSIZE, &old_fsize);
        signal(SIGXFSZ, old_xfsz);
    }
    assert_int_equal(started, 0);

    int no_oom = 0;
    client c[LOADERS];
    for (int i = 0; i < LOADERS; i++) {
        client_init(&c[i], &no_oom);
        if (hello(&c[i], fx.port) != 0)
            fail_msg("loader %d: %s", i, c[i].why);
        sweep_message m = fx_msg(SWEEP_MSG_SPAWN, 0), r;
        m.as.spawn.spawn_point = (uint32_t)(i % 4) + 1;
        if (ask(&c[i], &m, SWEEP_MSG_SPAWNED, &r) != 0)
            fail_msg("loader %d: %s", i, c[i].why);
        c[i].ents[0] = r.as.spawned.entity;
        c[i].n = 1;
    }
    /* Until the disk is full (about 100 batches a MiB), then as many
     * again: the server must answer all of them. */
    unsigned batches = 0, after = 0;
    uint64_t deadline = fx_now_ms() + 30000;
    while (after < 200 && fx_now_ms() < deadline) {
        for (int i = 0; i < LOADERS; i++)
            if (load_batch(&c[i]) != 0)
                fail_msg("loader %d, batch %u: %s", i, batches, c[i].why);
        batches += LOADERS;
        if (after || count_lines(logpath, "event=record_failed"))
            after += LOADERS;
    }
    char line[2048] = "";
    int failed_lines = file_contains(logpath, "event=record_failed", line, sizeof line);
    print_message("%u batches of %u moves; the log said: %s", batches, BATCH, line[0] ? line : "nothing\n");
    assert_int_equal(failed_lines, 1);
    char file[600], err[200];
    log_field(line, "file=", file, sizeof file);
    log_field(line, "error=", err, sizeof err);
    assert_non_null(strstr(file, recdir));
    assert_true(strstr(err, is_tmpfs ? "No space left on device" : "File too large") != NULL);

    client fresh;
    client_init(&fresh, &no_oom);
    if (sequence(&fresh, fx.port, FRESH_SPAWNS) != 0)
        fail_msg("fresh client after the disk filled: %s", fresh.why);
    client_close(&fresh);
    for (int i = 0; i < LOADERS; i++)
        client_close(&c[i]);
    assert_int_equal(stop(&fx), 0);
    assert_int_equal(count_lines(logpath, "event=record_failed"), 1);

    /* What was written replays: cut short, and equal to the end. */
    char log[600], out[4096];
    assert_true(first_segment(recdir, log, sizeof log));
    int rs = replay(log, out, sizeof out);
    print_message("sweep-replay: %s", out);
    assert_int_equal(rs, 0);
    empty_dir(recdir);
    if (is_tmpfs) {
        assert_int_equal(umount2(recdir, MNT_DETACH), 0);
        mounted[0] = 0;
    }
    rmdir(recdir);
}

/* --- setup ------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    snprintf(dir, sizeof dir, "/tmp/sweep-faults-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    fx_server paths;
    fx_paths(&paths);
    snprintf(arena, sizeof arena, "%s", paths.arena);
    snprintf(bin_dir, sizeof bin_dir, "%s", paths.bin);
    char *slash = strrchr(bin_dir, '/');
    if (slash)
        *slash = 0;
    /* The fault-injection sweepd: named, the one under test, or beside. */
    const char *named = getenv("SWEEP_FAULTS_BIN_DIR");
    const char *build = getenv("BUILD");
    char beside[1100];
    snprintf(beside, sizeof beside, "%s-faults/bin", build && *build ? build : "build");
    const char *candidates[] = {named, bin_dir, beside};
    for (int i = 0; i < 3 && !faults_dir[0]; i++)
        if (candidates[i] && *candidates[i] && is_faults_build(candidates[i]))
            snprintf(faults_dir, sizeof faults_dir, "%s", candidates[i]);
    print_message("sweepd under test: %s/sweepd; fault injection: %s%s\n", bin_dir,
                  faults_dir[0] ? faults_dir : "none", faults_dir[0] ? "/sweepd" : "");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[400];
    const char *names[] = {"probe.log", "faults.log", "map.log", "full.log"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/rec", dir);
    empty_dir(p);
    rmdir(p);
    /* A failed assertion leaves its test at once: the servers it started
     * are ended and the disk it mounted is unmounted here. */
    for (unsigned i = 0; i < sizeof live / sizeof live[0]; i++)
        if (live[i]) {
            kill(live[i], SIGKILL);
            waitpid(live[i], NULL, 0);
        }
    if (mounted[0])
        umount2(mounted, MNT_DETACH);
    snprintf(p, sizeof p, "%s/full", dir);
    empty_dir(p);
    rmdir(p);
    rmdir(dir);
    free(rx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_allocation_fails),
        cmocka_unit_test(test_each_allocation_fails_recording),
        cmocka_unit_test(test_random_failures_repeat),
        cmocka_unit_test(test_map_file_gone_while_serving),
        cmocka_unit_test(test_disk_full_while_recording),
    };
    return cmocka_run_group_tests_name("sweepd under faults", tests, setup, teardown);
}
