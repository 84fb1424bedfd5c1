/*
 * bench_echo.c - the machine's ceiling for the end-to-end benchmark: a plain
 * libuv echo server and libuv clients exchanging messages of the same sizes
 * as sweep's Move and MoveResult, over loopback.
 *
 * The server runs its own loop in a second thread (as sweepd is its own
 * process) and answers every request of the Move frame's size with one
 * reply of the MoveResult frame's size (a typical grounded result with one
 * contact), without looking at the bytes: no verify, no decode, no core.
 * The clients (N connections, one request in flight each, as sweep-bots
 * runs tcp_single/udp_single) measure each round trip. The difference to
 * the server.* lines is what sweep itself costs per move.
 *
 *   bench_echo tcp|udp CLIENTS SECONDS
 *   BENCH name=server.echo_tcp clients=N msgs_per_s=X p50_us=X p99_us=X
 *
 * Over UDP a datagram unanswered for a second is sent again (and counted
 * lost), so a drop does not stall a client.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "protocol/encode.h"
#include "protocol/framing.h"
#include "protocol/message.h"
#include "tests/bench/wire_sizes.h"

static size_t req_size, reply_size;
static int use_udp;
static char zeros[1 << 16];

/* --- server (its own thread and loop) ---------------------------------------- */

static uv_loop_t server_loop;
static uv_tcp_t server_tcp;
static uv_udp_t server_udp;
static uv_async_t server_stop;
static struct sockaddr_storage server_addr;

typedef struct echo_conn {
    uv_tcp_t h;
    size_t pending; /* bytes of a request received so far */
} echo_conn;

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    static _Thread_local char rbuf[1 << 16];
    *buf = uv_buf_init(rbuf, sizeof rbuf);
}

static void on_close_free(uv_handle_t *h)
{
    free(h);
}

static void on_written(uv_write_t *w, int status)
{
    (void)status;
    free(w);
}

static void server_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    echo_conn *c = (echo_conn *)s;
    if (n < 0) {
        uv_close((uv_handle_t *)s, on_close_free);
        return;
    }
    c->pending += (size_t)n;
    size_t replies = c->pending / req_size;
    c->pending %= req_size;
    while (replies > 0) {
        size_t k = replies * reply_size <= sizeof zeros ? replies : sizeof zeros / reply_size;
        uv_write_t *w = malloc(sizeof *w);
        uv_buf_t out = uv_buf_init(zeros, (unsigned)(k * reply_size));
        if (!w || uv_write(w, s, &out, 1, on_written) != 0)
            free(w);
        replies -= k;
    }
}

static void server_accept(uv_stream_t *srv, int status)
{
    if (status < 0)
        return;
    echo_conn *c = calloc(1, sizeof *c);
    uv_tcp_init(&server_loop, &c->h);
    if (uv_accept(srv, (uv_stream_t *)&c->h) == 0) {
        uv_tcp_nodelay(&c->h, 1);
        uv_read_start((uv_stream_t *)&c->h, on_alloc, server_read);
    } else {
        uv_close((uv_handle_t *)&c->h, on_close_free);
    }
}

static void on_udp_sent(uv_udp_send_t *r, int status)
{
    (void)status;
    free(r);
}

static void server_udp_recv(uv_udp_t *h, ssize_t n, const uv_buf_t *buf, const struct sockaddr *from, unsigned flags)
{
    (void)buf;
    (void)flags;
    if (n <= 0 || from == NULL)
        return;
    uv_buf_t out = uv_buf_init(zeros, (unsigned)reply_size);
    uv_udp_send_t *r = malloc(sizeof *r);
    if (r && uv_udp_send(r, h, &out, 1, from, on_udp_sent) != 0)
        free(r);
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, (h == (uv_handle_t *)&server_tcp || h == (uv_handle_t *)&server_udp ||
                     h == (uv_handle_t *)&server_stop)
                        ? NULL
                        : on_close_free);
}

static void server_on_stop(uv_async_t *a)
{
    uv_walk(a->loop, close_any, NULL);
}

static void server_main(void *arg)
{
    (void)arg;
    uv_run(&server_loop, UV_RUN_DEFAULT);
}

/* --- clients (main thread) --------------------------------------------------- */

typedef struct client {
    union {
        uv_tcp_t tcp;
        uv_udp_t udp;
    } h;
    uv_connect_t connect;
    size_t got;       /* reply bytes received so far */
    uint64_t sent_ns; /* send time of the request in flight */
} client;

static uv_loop_t *loop;
static client *clients;
static int nclients;
static uint64_t end_ns, measure_ns;
static uint64_t *lat;
static size_t nlat, lat_cap;
static uint64_t lost;

static void record(uint64_t ns)
{
    if (uv_hrtime() < measure_ns)
        return;
    if (nlat == lat_cap) {
        lat_cap = lat_cap ? 2 * lat_cap : 1 << 16;
        lat = realloc(lat, lat_cap * sizeof *lat);
        if (!lat) {
            fprintf(stderr, "bench_echo: out of memory\n");
            exit(1);
        }
    }
    lat[nlat++] = ns;
}

static void client_send(client *c)
{
    static const struct sockaddr *dst;
    dst = (const struct sockaddr *)&server_addr;
    c->sent_ns = uv_hrtime();
    uv_buf_t b = uv_buf_init(zeros, (unsigned)req_size);
    if (use_udp) {
        uv_udp_send_t *r = malloc(sizeof *r);
        if (r && uv_udp_send(r, &c->h.udp, &b, 1, dst, on_udp_sent) != 0)
            free(r);
    } else {
        uv_write_t *w = malloc(sizeof *w);
        if (w && uv_write(w, (uv_stream_t *)&c->h.tcp, &b, 1, on_written) != 0)
            free(w);
    }
}

static void client_done_one(client *c)
{
    uint64_t now = uv_hrtime();
    record(now - c->sent_ns);
    if (now < end_ns)
        client_send(c);
}

static void client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    client *c = (client *)s;
    if (n < 0) {
        uv_close((uv_handle_t *)s, NULL);
        return;
    }
    c->got += (size_t)n;
    while (c->got >= reply_size) {
        c->got -= reply_size;
        client_done_one(c);
    }
}

static void client_connected(uv_connect_t *req, int status)
{
    client *c = req->data;
    if (status < 0) {
        fprintf(stderr, "bench_echo: connect: %s\n", uv_strerror(status));
        exit(1);
    }
    uv_tcp_nodelay(&c->h.tcp, 1);
    uv_read_start((uv_stream_t *)&c->h.tcp, on_alloc, client_read);
    client_send(c);
}

static void client_udp_recv(uv_udp_t *h, ssize_t n, const uv_buf_t *buf, const struct sockaddr *from, unsigned flags)
{
    (void)buf;
    (void)from;
    (void)flags;
    if (n <= 0)
        return;
    client_done_one((client *)h);
}

static void on_tick(uv_timer_t *t)
{
    uint64_t now = uv_hrtime();
    if (now >= end_ns + 200000000u) {
        /* Every client has stopped sending; drop what is still in flight. */
        uv_timer_stop(t);
        uv_stop(loop);
        return;
    }
    if (use_udp && now < end_ns)
        for (int i = 0; i < nclients; i++)
            if (now - clients[i].sent_ns > 1000000000u) {
                lost++;
                client_send(&clients[i]);
            }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "udp")) || atoi(argv[2]) < 1 ||
        atof(argv[3]) <= 0) {
        fprintf(stderr, "usage: bench_echo tcp|udp CLIENTS SECONDS\n");
        return 2;
    }
    use_udp = strcmp(argv[1], "udp") == 0;
    nclients = atoi(argv[2]);
    double seconds = atof(argv[3]);
    sweep_bench_wire_sizes(use_udp ? 0 : SWEEP_WIRE_SIZE_PREFIXED, &req_size, &reply_size);

    /* Server on 127.0.0.1, a free port. */
    uv_loop_init(&server_loop);
    struct sockaddr_in any;
    uv_ip4_addr("127.0.0.1", 0, &any);
    int len = sizeof server_addr;
    int rc;
    if (use_udp) {
        uv_udp_init(&server_loop, &server_udp);
        rc = uv_udp_bind(&server_udp, (const struct sockaddr *)&any, 0);
        if (rc == 0)
            rc = uv_udp_getsockname(&server_udp, (struct sockaddr *)&server_addr, &len);
        if (rc == 0)
            rc = uv_udp_recv_start(&server_udp, on_alloc, server_udp_recv);
    } else {
        uv_tcp_init(&server_loop, &server_tcp);
        rc = uv_tcp_bind(&server_tcp, (const struct sockaddr *)&any, 0);
        if (rc == 0)
            rc = uv_listen((uv_stream_t *)&server_tcp, 1024, server_accept);
        if (rc == 0)
            rc = uv_tcp_getsockname(&server_tcp, (struct sockaddr *)&server_addr, &len);
    }
    if (rc != 0) {
        fprintf(stderr, "bench_echo: server: %s\n", uv_strerror(rc));
        return 1;
    }
    uv_async_init(&server_loop, &server_stop, server_on_stop);
    uv_thread_t th;
    uv_thread_create(&th, server_main, NULL);

    loop = uv_default_loop();
    clients = calloc((size_t)nclients, sizeof *clients);
    uint64_t start = uv_hrtime();
    measure_ns = start + 500000000u; /* half a second of warm-up, as sweep-bots */
    end_ns = measure_ns + (uint64_t)(seconds * 1e9);
    for (int i = 0; i < nclients; i++) {
        client *c = &clients[i];
        if (use_udp) {
            uv_udp_init(loop, &c->h.udp);
            uv_udp_bind(&c->h.udp, (const struct sockaddr *)&any, 0);
            uv_udp_recv_start(&c->h.udp, on_alloc, client_udp_recv);
            client_send(c);
        } else {
            uv_tcp_init(loop, &c->h.tcp);
            c->connect.data = c;
            uv_tcp_connect(&c->connect, &c->h.tcp, (const struct sockaddr *)&server_addr, client_connected);
        }
    }
    uv_timer_t tick;
    uv_timer_init(loop, &tick);
    uv_timer_start(&tick, on_tick, 100, 100);
    uv_run(loop, UV_RUN_DEFAULT);

    qsort(lat, nlat, sizeof *lat, cmp_u64);
    double p50 = nlat ? lat[(size_t)(0.50 * (double)(nlat - 1) + 0.5)] / 1e3 : 0;
    double p99 = nlat ? lat[(size_t)(0.99 * (double)(nlat - 1) + 0.5)] / 1e3 : 0;
    printf("BENCH name=server.echo_%s clients=%d msgs_per_s=%.0f p50_us=%.1f p99_us=%.1f\n", argv[1], nclients,
           (double)nlat / seconds, p50, p99);
    if (lost)
        fprintf(stderr, "bench_echo: %llu datagrams resent after a loss\n", (unsigned long long)lost);
    fflush(stdout);

    uv_async_send(&server_stop);
    uv_thread_join(&th);
    /* The process ends here; the clients' handles go with it. */
    return nlat > 0 ? 0 : 1;
}
