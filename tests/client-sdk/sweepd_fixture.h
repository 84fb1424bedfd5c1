/*
 * sweepd_fixture.h - a real sweepd for the client SDK's integration tests:
 * started on 127.0.0.1 with port 0 on the sample arena (or a map the test
 * wrote), its ready line parsed for the TCP and UDP addresses, and stopped
 * with SIGTERM.
 *
 * Programs are found beside the test: tests live in $(BUILD)/tests/client-sdk/,
 * so $(BUILD) is two levels above argv[0]'s directory (SWEEP_BUILD_DIR
 * overrides it). The server's stderr (its logs) goes to a file in a private
 * temporary directory and is shown when SWEEP_TEST_VERBOSE is set or when
 * the server does not come up. Timeouts are generous: tests must pass on a
 * loaded two-core machine. Header-only, as every test program is one .c file.
 *
 * Identities: fx_secret writes the secret of FX_SECRET to a private file for
 * sweepd --auth-secret-file, and fx_token mints tokens under it
 * (protocol/token.h), as a game's login service would.
 */
#ifndef SWEEP_TESTS_SWEEPD_FIXTURE_H
#define SWEEP_TESTS_SWEEPD_FIXTURE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol/message.h"
#include "protocol/token.h"

/* The secret the tests' servers and tokens share (32 bytes). */
#define FX_SECRET "sweep-sdk-tests-shared-secret-32"

static char fx_argv0[4096];

static __attribute__((unused)) void fx_init(const char *argv0)
{
    snprintf(fx_argv0, sizeof fx_argv0, "%s", argv0);
    /* A server that dies must not kill the test with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
}

/* $(BUILD)/rel. */
static __attribute__((unused)) const char *fx_build(const char *rel, char *buf, size_t cap)
{
    const char *dir = getenv("SWEEP_BUILD_DIR");
    if (dir && *dir) {
        snprintf(buf, cap, "%s/%s", dir, rel);
    } else {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", fx_argv0);
        snprintf(buf, cap, "%s/../../%s", dirname(tmp), rel);
    }
    return buf;
}

typedef struct sweepd {
    pid_t pid;
    char tcp[128], udp[128]; /* "HOST:PORT" */
    char dir[256];           /* private temporary directory */
    char log[300];           /* the server's stderr */
} sweepd;

static __attribute__((unused)) void fx_show_log(const sweepd *d)
{
    FILE *f = fopen(d->log, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        fprintf(stderr, "  sweepd: %s", line);
    fclose(f);
}

/* Starts sweepd on the map at path `map` (plus extra arguments, a
 * NULL-terminated list). Returns 0, or -1 after printing why. */
static __attribute__((unused)) int fx_start_map(sweepd *d, const char *map, const char *const *extra)
{
    char bin[4096];
    memset(d, 0, sizeof *d);
    d->pid = -1;
    fx_build("bin/sweepd", bin, sizeof bin);
    snprintf(d->dir, sizeof d->dir, "/tmp/sweep-sdk-test-XXXXXX");
    if (!mkdtemp(d->dir)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(d->log, sizeof d->log, "%s/sweepd.log", d->dir);
    int out[2];
    if (pipe(out) != 0) {
        perror("pipe");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return -1;
    }
    if (pid == 0) {
        dup2(out[1], 1);
        int lf = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (lf >= 0)
            dup2(lf, 2);
        close(out[0]);
        close(out[1]);
        const char *argv[32] = {bin, "--map", map, "--listen", "127.0.0.1:0"};
        int n = 5;
        for (int i = 0; extra && extra[i] && n < 31; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        execv(bin, (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", bin, strerror(errno));
        _exit(127);
    }
    close(out[1]);
    d->pid = pid;
    /* Wait (up to 60 s) for "sweepd ready tcp=HOST:PORT udp=HOST:PORT". */
    char line[512];
    size_t len = 0;
    int ready = 0;
    time_t until = time(NULL) + 60;
    while (!ready && time(NULL) < until && len < sizeof line - 1) {
        struct pollfd p = {.fd = out[0], .events = POLLIN};
        if (poll(&p, 1, 1000) <= 0)
            continue;
        ssize_t r = read(out[0], line + len, 1);
        if (r <= 0)
            break;
        if (line[len] == '\n')
            ready = 1;
        len++;
    }
    line[len] = '\0';
    close(out[0]);
    if (!ready || sscanf(line, "sweepd ready tcp=%127s udp=%127s", d->tcp, d->udp) != 2) {
        fprintf(stderr, "sweepd did not print its ready line (got '%s'); its log:\n", line);
        fx_show_log(d);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        d->pid = -1;
        return -1;
    }
    return 0;
}

/* Starts sweepd on the arena (plus extra arguments, NULL-terminated list). */
static __attribute__((unused)) int fx_start_args(sweepd *d, const char *const *extra)
{
    char map[4096];
    return fx_start_map(d, fx_build("maps/arena.db", map, sizeof map), extra);
}

static __attribute__((unused)) int fx_start(sweepd *d)
{
    return fx_start_args(d, NULL);
}

/* SIGTERM, then up to 30 s for a clean exit (SIGKILL after). Returns the
 * exit status (0 = clean), or -1 if it had to be killed. */
static __attribute__((unused)) int fx_stop(sweepd *d)
{
    int rc = -1;
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        for (int i = 0; i < 3000; i++) {
            int st;
            pid_t r = waitpid(d->pid, &st, WNOHANG);
            if (r == d->pid) {
                rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                break;
            }
            usleep(10000);
        }
        if (rc < 0) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, NULL, 0);
        }
        d->pid = -1;
    }
    if (getenv("SWEEP_TEST_VERBOSE"))
        fx_show_log(d);
    if (d->log[0])
        unlink(d->log);
    if (d->dir[0])
        rmdir(d->dir);
    return rc;
}

/* Writes FX_SECRET (and a line break, which readers drop) to a new
 * private file; its path goes to path. Returns 0, or -1 after saying why. */
static __attribute__((unused)) int fx_secret(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/sweep-sdk-secret-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return -1;
    }
    const char text[] = FX_SECRET "\n";
    int ok = write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
    close(fd);
    return ok ? 0 : -1;
}

/* A token of `role` (SWEEP_WIRE_ROLE_*) for identity, valid ttl seconds
 * from now (negative: expired that long ago), under FX_SECRET. */
static __attribute__((unused)) const char *fx_token(uint32_t role, const char *identity, long ttl, char *out,
                                                   size_t cap)
{
    uint64_t expiry = (uint64_t)((long)time(NULL) + ttl);
    if (sweep_token_make((const uint8_t *)FX_SECRET, sizeof FX_SECRET - 1, role, identity, expiry, out, cap) !=
        SWEEP_TOKEN_OK)
        snprintf(out, cap, "cannot-mint");
    return out;
}

/* Runs a command line through sh, stdout and stderr into *out (malloc'd).
 * Returns the exit status (or -1). */
static __attribute__((unused)) int fx_run(const char *cmd, char **out)
{
    char full[8192];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
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
    if (out)
        *out = buf;
    else
        free(buf);
    if (getenv("SWEEP_TEST_VERBOSE") && buf)
        fprintf(stderr, "$ %s\n%s", cmd, buf);
    return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif
