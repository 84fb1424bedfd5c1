/*
 * bench_udp_floor.c - the kernel's own cost of the traffic of
 * server.udp_cost, with a server that does nothing else: what a UDP
 * request and its answer cost the answering process on this machine
 * before any of sweepd's work.
 *
 * A server process reads datagrams with recvmmsg (up to 64 a call,
 * blocking for the first) and answers each, at once, with one datagram of
 * a MoveResult's size to its sender, the whole reading in one sendmmsg:
 * fewer system calls a datagram than sweepd makes (no event loop, no
 * wake-up beyond the blocking read), no bytes looked at. The client
 * process keeps CLIENTS sockets with WINDOW requests in flight each, of a
 * Move's size, as sweep-bots --udp --rate 0 --window 4 does for
 * server.udp_cost, and sends one more for each answer. Both share the
 * machine's CPUs, as sweepd and the bots do. After a second's warm-up, the
 * server's utime and stime (/proc/PID/stat) over the window, per answer:
 * the floor under sweepd's server_cpu_us_per_move (whatever sweepd does,
 * its system time a move cannot be much below this one's).
 *
 *   BENCH name=server.udp_floor clients=<n> window=<n> datagrams_per_s=<x>
 *         server_cpu_us_per_datagram=<x> user_us=<x> sys_us=<x>
 *         datagrams_per_server_core_s=<x>
 *
 * medians of ROUNDS runs. Usage: bench_udp_floor [CLIENTS [WINDOW
 * [SECONDS [ROUNDS [SEND]]]]] (default 200 4 4 3 plain). Loopback only.
 *
 * SEND asks what segmentation offload would change (Linux's UDP_SEGMENT
 * and UDP_GRO): "gso" sends the answers to one sender that lie next to
 * one another in a reading as one datagram the kernel cuts into
 * answer-sized ones; "gso-gro" does too, and the clients take such a
 * train whole (UDP_GRO), as a client of sweep's own could. Either line
 * then also says how many answers a send carried (answers_per_send).
 * That needs the answers of one reading to share a sender and a size:
 * here they always share the size, and share a sender only because each
 * client keeps WINDOW requests in flight.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <netinet/udp.h>

#include "tests/bench/median.h"
#include "tests/bench/wire_sizes.h"

#define BATCH 64
#define MAX_BYTES 1024

/* A Move and a MoveResult (one contact) as sweepd's UDP datagrams carry
 * them, the sizes server.echo_udp uses (wire_sizes.h). */
static size_t request_bytes, answer_bytes;

/* How the server sends its answers, and whether the clients take trains. */
typedef enum send_mode { SEND_PLAIN, SEND_GSO, SEND_GSO_GRO } send_mode;
static send_mode mode;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Lays the answers to the n datagrams read out in sm: one each, or (GSO)
 * one a run of datagrams from one sender, as one train of answer-sized
 * segments. Returns how many sends that is. */
static int lay_out(struct mmsghdr *sm, struct iovec *siov, const struct mmsghdr *rm, struct sockaddr_in *from, int n,
                   char *out, char (*ctl)[CMSG_SPACE(sizeof(uint16_t))])
{
    int sends = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        if (mode != SEND_PLAIN)
            while (j < n && from[j].sin_port == from[i].sin_port && from[j].sin_addr.s_addr == from[i].sin_addr.s_addr)
                j++;
        siov[sends] = (struct iovec){out, answer_bytes * (size_t)(j - i)};
        sm[sends].msg_hdr = (struct msghdr){.msg_name = &from[i], .msg_namelen = rm[i].msg_hdr.msg_namelen,
                                            .msg_iov = &siov[sends], .msg_iovlen = 1};
        if (j - i > 1) {
            struct cmsghdr *cm = (struct cmsghdr *)ctl[sends];
            cm->cmsg_level = SOL_UDP, cm->cmsg_type = UDP_SEGMENT, cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t seg = (uint16_t)answer_bytes;
            memcpy(CMSG_DATA(cm), &seg, sizeof seg);
            sm[sends].msg_hdr.msg_control = cm, sm[sends].msg_hdr.msg_controllen = CMSG_SPACE(sizeof(uint16_t));
        }
        sends++;
        i = j;
    }
    return sends;
}

/* The server: reads a batch, answers it, for ever (its parent kills it),
 * counting its sends and the answers in them in counts[0] and counts[1],
 * memory it shares with its parent. */
static void serve(int fd, volatile uint64_t *counts)
{
    static char in[BATCH][MAX_BYTES], out[BATCH * MAX_BYTES];
    static char ctl[BATCH][CMSG_SPACE(sizeof(uint16_t))];
    struct mmsghdr rm[BATCH], sm[BATCH];
    struct iovec riov[BATCH], siov[BATCH];
    struct sockaddr_in from[BATCH];
    for (int i = 0; i < BATCH; i++)
        riov[i] = (struct iovec){in[i], sizeof in[i]};
    for (;;) {
        for (int i = 0; i < BATCH; i++)
            rm[i].msg_hdr = (struct msghdr){.msg_name = &from[i], .msg_namelen = sizeof from[i],
                                            .msg_iov = &riov[i], .msg_iovlen = 1};
        int n = recvmmsg(fd, rm, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        int sends = lay_out(sm, siov, rm, from, n, out, ctl);
        counts[0] += (uint64_t)sends, counts[1] += (uint64_t)n;
        for (int done = 0; done < sends;) {
            int k = sendmmsg(fd, sm + done, (unsigned)(sends - done), 0);
            if (k <= 0) {
                if (k < 0 && errno == EINTR)
                    continue;
                break; /* a full buffer: the answer is lost, its client sends again */
            }
            done += k;
        }
    }
}

/* utime + stime and stime of pid, in seconds. */
static int cpu_of(pid_t pid, double *all, double *sys)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long ut, st;
    /* After the name: state, then fields 4 .. 13, then utime and stime. */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 0;
    double hz = (double)sysconf(_SC_CLK_TCK);
    *all = (double)(ut + st) / hz, *sys = (double)st / hz;
    return 1;
}

typedef struct round_figures {
    double per_s, cpu_us, user_us, sys_us, per_send;
} round_figures;

static int one_round(int clients, int window, double seconds, round_figures *fig)
{
    int sfd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof addr;
    int big = 4 << 20;
    setsockopt(sfd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    setsockopt(sfd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    if (sfd < 0 || bind(sfd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(sfd, (struct sockaddr *)&addr, &alen) != 0) {
        perror("bench_udp_floor: server socket");
        return 0;
    }
    volatile uint64_t *counts =
        mmap(NULL, 2 * sizeof *counts, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (counts == MAP_FAILED) {
        perror("bench_udp_floor: mmap");
        close(sfd);
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0)
        serve(sfd, counts);
    close(sfd);
    if (pid < 0)
        return 0;

    int ep = epoll_create1(0);
    int *fd = calloc((size_t)clients, sizeof *fd);
    double *heard = calloc((size_t)clients, sizeof *heard); /* when each client last had an answer */
    static char req[MAX_BYTES], buf[65536]; /* a train of answers, taken whole (UDP_GRO) */
    int ok = ep >= 0 && fd && heard;
    for (int i = 0; ok && i < clients; i++) {
        fd[i] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        int one = 1;
        if (mode == SEND_GSO_GRO && fd[i] >= 0 && setsockopt(fd[i], SOL_UDP, UDP_GRO, &one, sizeof one) != 0) {
            perror("bench_udp_floor: UDP_GRO");
            ok = 0;
        }
        ok = ok && fd[i] >= 0 && connect(fd[i], (struct sockaddr *)&addr, sizeof addr) == 0 &&
             epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &ev) == 0;
        for (int w = 0; ok && w < window; w++)
            ok = send(fd[i], req, request_bytes, 0) == (ssize_t)request_bytes;
    }
    double t0 = now_s(), start = t0 + 1.0, end = start + seconds, c0 = 0, s0 = 0, c1 = 0, s1 = 0;
    uint64_t answers = 0, in_window = 0, sends0 = 0, sent0 = 0, sends1 = 0, sent1 = 0;
    int started = 0;
    double last_resend = t0;
    for (int i = 0; ok && i < clients; i++)
        heard[i] = t0;
    struct epoll_event evs[256];
    while (ok) {
        double t = now_s();
        if (!started && t >= start) {
            ok = cpu_of(pid, &c0, &s0);
            sends0 = counts[0], sent0 = counts[1];
            in_window = answers, started = 1;
        }
        if (started && t >= end) {
            ok = cpu_of(pid, &c1, &s1);
            sends1 = counts[0], sent1 = counts[1];
            in_window = answers - in_window;
            break;
        }
        /* A client that has heard nothing for half a second lost all its
         * requests or answers in a full buffer: it starts again, with as
         * many in flight as before. Only such a client: one more request
         * for every client would widen every window each time. */
        if (t - last_resend > 0.1) {
            last_resend = t;
            for (int i = 0; i < clients; i++) {
                if (t - heard[i] <= 0.5)
                    continue;
                heard[i] = t;
                for (int w = 0; w < window; w++)
                    if (send(fd[i], req, request_bytes, 0) < 0 && errno != EAGAIN)
                        ok = 0;
            }
        }
        int n = epoll_wait(ep, evs, 256, 100);
        for (int k = 0; k < n; k++) {
            int i = (int)evs[k].data.u32;
            ssize_t got;
            while ((got = recv(fd[i], buf, sizeof buf, 0)) > 0) {
                heard[i] = t;
                /* One answer, or a train of them (UDP_GRO). */
                for (size_t k = ((size_t)got + answer_bytes - 1) / answer_bytes; k > 0; k--) {
                    answers++;
                    if (send(fd[i], req, request_bytes, 0) < 0 && errno != EAGAIN)
                        ok = 0;
                }
            }
        }
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    munmap((void *)counts, 2 * sizeof *counts);
    for (int i = 0; fd && i < clients; i++)
        if (fd[i] > 0)
            close(fd[i]);
    free(fd);
    free(heard);
    if (ep >= 0)
        close(ep);
    if (!ok || in_window == 0) {
        fprintf(stderr, "bench_udp_floor: the round measured nothing\n");
        return 0;
    }
    fig->per_s = (double)in_window / seconds;
    fig->cpu_us = (c1 - c0) * 1e6 / (double)in_window;
    fig->sys_us = (s1 - s0) * 1e6 / (double)in_window;
    fig->user_us = fig->cpu_us - fig->sys_us;
    fig->per_send = sends1 > sends0 ? (double)(sent1 - sent0) / (double)(sends1 - sends0) : 0.0;
    return 1;
}

int main(int argc, char **argv)
{
    int clients = argc > 1 ? atoi(argv[1]) : 200, window = argc > 2 ? atoi(argv[2]) : 4;
    double seconds = argc > 3 ? atof(argv[3]) : 4.0;
    int rounds = argc > 4 ? atoi(argv[4]) : 3;
    static const char *const modes[] = {"plain", "gso", "gso-gro"};
    int known = argc <= 5;
    for (int m = 0; !known && m < 3; m++)
        if (strcmp(argv[5], modes[m]) == 0)
            mode = (send_mode)m, known = 1;
    if (clients < 1 || clients > 4096 || window < 1 || window > 64 || !(seconds > 0.0) || rounds < 1 ||
        rounds > 15 || !known) {
        fprintf(stderr, "usage: bench_udp_floor [CLIENTS (1..4096) [WINDOW (1..64) [SECONDS [ROUNDS (1..15) "
                        "[plain|gso|gso-gro]]]]]\n");
        return 2;
    }
    sweep_bench_wire_sizes(0, &request_bytes, &answer_bytes);
    if (request_bytes > MAX_BYTES || answer_bytes > MAX_BYTES)
        return 1;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)clients + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)clients + 64 ? rl.rlim_max : (rlim_t)clients + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    double per_s[15], cpu[15], user[15], sys[15], per_send[15];
    for (int r = 0; r < rounds; r++) {
        round_figures f;
        if (!one_round(clients, window, seconds, &f))
            return 1;
        per_s[r] = f.per_s, cpu[r] = f.cpu_us, user[r] = f.user_us, sys[r] = f.sys_us, per_send[r] = f.per_send;
    }
    double c = median(cpu, rounds);
    printf("BENCH name=server.udp_floor clients=%d window=%d datagrams_per_s=%.0f server_cpu_us_per_datagram=%.2f "
           "user_us=%.2f sys_us=%.2f datagrams_per_server_core_s=%.0f",
           clients, window, median(per_s, rounds), c, median(user, rounds), median(sys, rounds), 1e6 / c);
    if (mode != SEND_PLAIN)
        printf(" send=%s answers_per_send=%.2f", modes[mode], median(per_send, rounds));
    printf("\n");
    return 0;
}
