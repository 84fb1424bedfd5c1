/*
 * bench_queries.c - lag-compensated queries per second through sweepd: a
 * game server session spawns TARGETS entities on the arena's open floor
 * and gives each hit shapes (head and torso); CLIENTS player sessions,
 * one thread each, then ask Queries of BATCH rays back to back (one in
 * flight each) for SECONDS, each ray across the targets' rows at a past
 * time (five ticks back plus half a tick: the poses interpolated, as a
 * shot the client saw is checked). Each round trip is timed.
 *
 *   bench_queries ADDRESS TOKEN tcp|udp CLIENTS BATCH SECONDS TARGETS
 *   BENCH name=server.query transport=tcp clients=N batch=B targets=T queries_per_s=X
 *         p50_us=X p99_us=X hit_ratio=X refused=N
 *
 * sweepd is started by run-bench.sh with --query-rate 0 (the benchmark is
 * the limit) and the command token.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/client.h"

static const char *address, *token;
static sweep_client_transport transport;
static uint32_t batch, targets;
static double seconds;

typedef struct worker {
    pthread_t t;
    unsigned index;
    uint64_t items, hits, refused, rounds;
    double *rtt_us;
    size_t nrtt, caprtt;
    int failed;
} worker;

static sweep_client *connect_as(const char *tok)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = transport;
    o.address = address;
    o.auth_token = tok;
    o.timeout_ms = 10000;
    sweep_client *c = NULL;
    sweep_client_error e;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "bench_queries: connect %s: %s\n", address, e.message);
        return NULL;
    }
    return c;
}

/* The targets in rows along x at y = -6 and y = -8, a metre apart. */
static sweep_vec3 target_at(uint32_t i)
{
    return sweep_v3(-8.0 + (double)(i / 2), i % 2 ? -8.0 : -6.0, 1.0);
}

static int place_targets(sweep_client *game)
{
    sweep_wire_hit_shape shapes[2] = {
        {.id = 1, .kind = SWEEP_WIRE_SHAPE_SPHERE, .a = {0, 0, 0.6}, .radii = {0.2, 0.2, 0.2}},
        {.id = 2, .kind = SWEEP_WIRE_SHAPE_CAPSULE, .a = {0, 0, -0.6}, .b = {0, 0, 0.3}, .radii = {0.3, 0.3, 0.3}},
    };
    for (uint32_t i = 0; i < targets; i++) {
        sweep_msg_spawned sp;
        sweep_client_error e;
        if (sweep_client_spawn(game, target_at(i), sweep_v3(0, 0, 0), &sp, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "bench_queries: spawn %u: %s\n", i, e.message);
            return -1;
        }
        sweep_msg_entity_command c = {.entity = sp.entity, .op = SWEEP_WIRE_OP_SET_HIT_SHAPES, .shapes = shapes,
                                      .shape_count = 2};
        sweep_msg_entity_command_result r;
        if (sweep_client_entity_commands(game, &c, 1, &r, &e) != SWEEP_CLIENT_OK || r.code != SWEEP_WIRE_NONE) {
            fprintf(stderr, "bench_queries: hit shapes: %s\n", e.message);
            return -1;
        }
    }
    return 0;
}

static void *run(void *arg)
{
    worker *w = arg;
    sweep_client *c = connect_as(NULL);
    if (!c) {
        w->failed = 1;
        return NULL;
    }
    sweep_msg_query_item *q = calloc(batch, sizeof *q);
    sweep_msg_query_answer *a = calloc(batch, sizeof *a);
    /* The newest tick, to ask five back from. */
    sweep_msg_query_item probe = {.kind = SWEEP_WIRE_QUERY_RAY, .from = {0, 0, 1}, .to = {0, 0, -1}};
    sweep_client_error e;
    if (!q || !a || sweep_client_query(c, &probe, 1, a, &e) != SWEEP_CLIENT_OK) {
        w->failed = 1;
        goto out;
    }
    uint64_t start = sweep_client_now_ns(), end = start + (uint64_t)(seconds * 1e9);
    uint64_t tick0 = a[0].tick;
    for (uint64_t now = start; now < end;) {
        /* The world's tick goes on at its rate: ask five ticks back from
         * where it is by now (60 a second on the arena). */
        uint64_t tick = tick0 + (now - start) * 60 / 1000000000u;
        for (uint32_t i = 0; i < batch; i++) {
            double x = -8.0 + (double)((w->index * 7 + w->rounds * 3 + i) % (targets / 2 + 2));
            q[i] = (sweep_msg_query_item){.kind = SWEEP_WIRE_QUERY_RAY,
                                          .from = {x, -12.0, 1.0 + 0.3 * (i % 3)},
                                          .to = {x, -2.0, 1.0 + 0.3 * (i % 3)},
                                          .tick = tick > 5 ? tick - 5 : 0,
                                          .fraction = tick > 5 ? 0.5 : 0.0};
        }
        uint64_t t0 = sweep_client_now_ns();
        if (sweep_client_query(c, q, batch, a, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "bench_queries: %s\n", e.message);
            w->failed = 1;
            break;
        }
        now = sweep_client_now_ns();
        if (w->nrtt == w->caprtt) {
            w->caprtt = w->caprtt ? 2 * w->caprtt : 4096;
            w->rtt_us = realloc(w->rtt_us, w->caprtt * sizeof *w->rtt_us);
        }
        w->rtt_us[w->nrtt++] = (double)(now - t0) / 1e3;
        for (uint32_t i = 0; i < batch; i++) {
            w->refused += a[i].code != SWEEP_WIRE_NONE;
            w->hits += a[i].hit_count > 0;
        }
        w->items += batch;
        w->rounds++;
    }
out:
    free(q);
    free(a);
    sweep_client_close(c);
    return NULL;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: bench_queries ADDRESS TOKEN tcp|udp CLIENTS BATCH SECONDS TARGETS\n");
        return 2;
    }
    address = argv[1];
    token = argv[2];
    transport = strcmp(argv[3], "udp") == 0 ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    unsigned clients = (unsigned)atoi(argv[4]);
    batch = (uint32_t)atoi(argv[5]);
    seconds = atof(argv[6]);
    targets = (uint32_t)atoi(argv[7]);
    if (clients < 1 || batch < 1 || !(seconds > 0) || targets < 2)
        return 2;
    sweep_client *game = connect_as(token);
    if (!game || place_targets(game) != 0)
        return 1;
    worker *w = calloc(clients, sizeof *w);
    uint64_t t0 = sweep_client_now_ns();
    for (unsigned i = 0; i < clients; i++) {
        w[i].index = i;
        pthread_create(&w[i].t, NULL, run, &w[i]);
    }
    uint64_t items = 0, hits = 0, refused = 0;
    size_t n = 0;
    int failed = 0;
    for (unsigned i = 0; i < clients; i++) {
        pthread_join(w[i].t, NULL);
        items += w[i].items, hits += w[i].hits, refused += w[i].refused, n += w[i].nrtt;
        failed |= w[i].failed;
    }
    double elapsed = (double)(sweep_client_now_ns() - t0) / 1e9;
    double *all = malloc((n ? n : 1) * sizeof *all);
    size_t k = 0;
    for (unsigned i = 0; i < clients; i++) {
        memcpy(all + k, w[i].rtt_us, w[i].nrtt * sizeof *all);
        k += w[i].nrtt;
        free(w[i].rtt_us);
    }
    qsort(all, n, sizeof *all, cmp);
    if (failed || n == 0) {
        fprintf(stderr, "bench_queries: a client failed\n");
        return 1;
    }
    printf("BENCH name=server.query transport=%s clients=%u batch=%u targets=%u queries_per_s=%.0f p50_us=%.1f "
           "p99_us=%.1f hit_ratio=%.3f refused=%llu\n",
           argv[3], clients, batch, targets, (double)items / elapsed, all[n / 2], all[n * 99 / 100],
           items ? (double)hits / (double)items : 0.0, (unsigned long long)refused);
    free(all);
    free(w);
    sweep_client_close(game);
    return 0;
}
