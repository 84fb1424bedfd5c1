/*
 * bots_main.c - `sweep-bots`, the load generator.
 *
 * N bot connections (TCP or UDP) each spawn one player and walk it around a
 * small square, sending moves one by one or in batches, either at a fixed
 * rate per bot (--rate) or as fast as the server answers with a fixed
 * number of requests in flight (--rate 0, the benchmark mode). All bots run
 * in this one thread over libsweep, waiting on every socket with poll(2).
 *
 * It measures, per move, the time from sending its request to receiving its
 * result (for a batch, every move of it counts from the batch's send), and
 * reports throughput and latency percentiles at the end; with --bench-line
 * NAME it prints the project's one-line BENCH format instead. A live
 * progress line goes to stderr when it is a terminal (or with --progress).
 *
 * UDP may lose datagrams: a request unanswered for a second is counted as
 * lost and its window slot reused, so one loss does not stall a bot.
 *
 * With --watch N every bot also subscribes to the movers' WorldState every
 * N ticks, so the load includes the pushes a predicting game client
 * receives; the WorldStates received (and the movers in them) are counted
 * and reported, and a bot crushed by a mover is reported and respawned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client-sdk/client.h"
#include "maps/loader.h"
#include "maps/text_input.h"

static const char usage[] =
    "usage: sweep-bots --connect HOST:PORT [options]\n"
    "\n"
    "Load generator: bots that spawn a player each and move it through sweepd,\n"
    "then throughput and latency percentiles.\n"
    "\n"
    "  --connect HOST:PORT  the server\n"
    "  --udp                UDP instead of TCP\n"
    "  --clients N          bot connections (default 4)\n"
    "  --rate M             moves per second per bot; 0 = as fast as answered (default 0)\n"
    "  --batch B            moves per MoveBatch; 1 = single Move messages (default 1)\n"
    "  --window W           requests in flight per bot with --rate 0 (default 1)\n"
    "  --duration S         seconds to run (default 5)\n"
    "  --warmup S           seconds run first and not measured (default 0.5)\n"
    "  --map FILE           take the spawn points and radii from this map\n"
    "  --position X,Y,Z     spawn point without --map (default 0,0,1)\n"
    "  --speed U            walking speed, units/s (default 2)\n"
    "  --dt SECONDS         time step of each move (default 1/60)\n"
    "  --watch N            each bot also watches the movers: a WorldState every N\n"
    "                       ticks (default: none)\n"
    "  --progress           live progress line on stderr even if not a terminal\n"
    "  --bench-line NAME    print 'BENCH name=server.NAME clients=... moves_per_s=...\n"
    "                       p50_us=... p99_us=...' instead of the summary\n"
    "  --help               this text\n";

typedef struct options {
    const char *connect, *map, *bench_name;
    int udp, progress;
    uint32_t clients, batch, window, watch;
    double rate, duration, warmup, speed, dt;
    sweep_vec3 position;
} options;

/* One request in flight: sequences [first, last] sent at t_ns. */
typedef struct inflight {
    uint32_t first, last, remaining;
    uint64_t t_ns;
} inflight;

typedef struct bot {
    sweep_client *c;
    uint32_t entity;
    uint32_t crushed_entity; /* the entity a mover crushed last (its late answers are errors) */
    sweep_vec3 spawn;
    uint64_t step;      /* moves sent, for the walking pattern */
    uint64_t next_send; /* rate mode: when the next request goes */
    inflight *fl;
    uint32_t nfl;
} bot;

typedef struct totals {
    uint64_t *lat_ns; /* measured latencies */
    size_t nlat, cap;
    uint64_t results, errors, lost, sent;
    uint64_t world_states, world_movers, crushed; /* with --watch; counted the whole run */
    int measuring;
} totals;

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "sweep-bots: %s '%s' (sweep-bots --help)\n", what, arg);
    return 2;
}

static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"connect", required_argument, 0, 'c'},  {"udp", no_argument, 0, 'u'},
        {"clients", required_argument, 0, 'n'},  {"rate", required_argument, 0, 'r'},
        {"batch", required_argument, 0, 'b'},    {"window", required_argument, 0, 'w'},
        {"duration", required_argument, 0, 'd'}, {"warmup", required_argument, 0, 'W'},
        {"map", required_argument, 0, 'm'},      {"position", required_argument, 0, 'p'},
        {"speed", required_argument, 0, 's'},    {"dt", required_argument, 0, 't'},
        {"progress", no_argument, 0, 'P'},       {"bench-line", required_argument, 0, 'B'},
        {"watch", required_argument, 0, 'a'},    {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->clients = 4;
    o->batch = 1;
    o->window = 1;
    o->duration = 5;
    o->warmup = 0.5;
    o->speed = 2;
    o->dt = 1.0 / 60.0;
    o->position = (sweep_vec3){0, 0, 1};
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->connect = optarg; break;
        case 'u': o->udp = 1; break;
        case 'n':
            if (!sweep_parse_double(optarg, 1, 4096, &v))
                return bad("--clients wants 1..4096, not", optarg);
            o->clients = (uint32_t)v;
            break;
        case 'r':
            if (!sweep_parse_double(optarg, 0, 1e7, &o->rate))
                return bad("--rate wants moves per second, not", optarg);
            break;
        case 'b':
            if (!sweep_parse_double(optarg, 1, 65536, &v))
                return bad("--batch wants 1..65536, not", optarg);
            o->batch = (uint32_t)v;
            break;
        case 'w':
            if (!sweep_parse_double(optarg, 1, 1024, &v))
                return bad("--window wants 1..1024, not", optarg);
            o->window = (uint32_t)v;
            break;
        case 'd':
            if (!sweep_parse_double(optarg, 0.01, 86400, &o->duration))
                return bad("--duration wants seconds, not", optarg);
            break;
        case 'W':
            if (!sweep_parse_double(optarg, 0, 3600, &o->warmup))
                return bad("--warmup wants seconds, not", optarg);
            break;
        case 'm': o->map = optarg; break;
        case 'p':
            if (sscanf(optarg, "%lf,%lf,%lf", &o->position.x, &o->position.y, &o->position.z) != 3)
                return bad("--position wants X,Y,Z, not", optarg);
            break;
        case 's':
            if (!sweep_parse_double(optarg, 0, 1000, &o->speed))
                return bad("--speed wants units/s, not", optarg);
            break;
        case 't':
            if (!sweep_parse_double(optarg, 1e-6, 1, &o->dt))
                return bad("--dt wants seconds, not", optarg);
            break;
        case 'a':
            if (!sweep_parse_double(optarg, 1, 1e6, &v) || v != floor(v))
                return bad("--watch wants a number of ticks (1 = every tick), not", optarg);
            o->watch = (uint32_t)v;
            break;
        case 'P': o->progress = 1; break;
        case 'B': o->bench_name = optarg; break;
        case 'h': fputs(usage, stdout); exit(0);
        default: return 2;
        }
    }
    if (optind < argc)
        return bad("unexpected argument", argv[optind]);
    if (!o->connect)
        return bad("--connect HOST:PORT is required; got", "");
    return 0;
}

/* The walking pattern: a square, one side per 30 moves, in the plane. */
static sweep_vec3 velocity_at(const options *o, uint64_t step)
{
    static const double dir[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    const double *d = dir[(step / 30) % 4];
    return (sweep_vec3){o->speed * d[0], o->speed * d[1], 0};
}

static void record(totals *t, uint64_t ns)
{
    if (!t->measuring)
        return;
    if (t->nlat == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 65536;
        uint64_t *n = realloc(t->lat_ns, cap * sizeof *n);
        if (n == NULL)
            return; /* keep running; the sample is lost, not the run */
        t->lat_ns = n;
        t->cap = cap;
    }
    t->lat_ns[t->nlat++] = ns;
}

/* Sends the bot's next request (one move or one batch). */
static int send_next(const options *o, bot *b, totals *t, uint64_t now)
{
    sweep_client_move_req reqs[256];
    uint32_t seqs[256];
    uint32_t n = o->batch;
    sweep_client_error e;
    for (uint32_t i = 0; i < n; i++)
        reqs[i] = (sweep_client_move_req){.entity = b->entity, .velocity = velocity_at(o, b->step + i), .dt = o->dt};
    sweep_client_status s = n == 1 ? sweep_client_send_move(b->c, &reqs[0], &seqs[0], &e)
                                   : sweep_client_send_batch(b->c, reqs, n, seqs, &e);
    if (s != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: send failed: %s: %s\n", sweep_client_error_name(&e), e.message);
        return -1;
    }
    b->step += n;
    b->fl[b->nfl++] = (inflight){seqs[0], seqs[n - 1], n, now};
    if (t->measuring)
        t->sent += n;
    return 0;
}

/* Takes one result or error off the bot's in-flight list. */
static void settle(bot *b, totals *t, uint32_t seq, uint64_t when, int is_result)
{
    for (uint32_t i = 0; i < b->nfl; i++) {
        inflight *f = &b->fl[i];
        if (seq < f->first || seq > f->last)
            continue;
        if (is_result) {
            record(t, when - f->t_ns);
            if (t->measuring)
                t->results++;
        }
        if (--f->remaining == 0)
            b->fl[i] = b->fl[--b->nfl];
        return;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double percentile_us(const totals *t, double q)
{
    if (t->nlat == 0)
        return 0;
    size_t i = (size_t)(q * (double)(t->nlat - 1) + 0.5);
    return (double)t->lat_ns[i] / 1e3;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    if (o.batch > 256) {
        fprintf(stderr, "sweep-bots: --batch above 256 is not supported\n");
        return 2;
    }
    sweep_vec3 radii = {0.4, 0.4, 0.9};
    sweep_vec3 *spawns = &o.position;
    uint32_t nspawns = 1;
    sweep_level lv;
    int have_map = 0;
    if (o.map) {
        char err[256];
        if (sweep_map_load(o.map, &lv, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "sweep-bots: %s: %s\n", o.map, err);
            return 1;
        }
        have_map = 1;
        radii = lv.default_radii;
        if (lv.spawn_count) {
            spawns = lv.spawns;
            nspawns = lv.spawn_count;
        }
    }

    bot *bots = calloc(o.clients, sizeof *bots);
    struct pollfd *pfd = calloc(o.clients, sizeof *pfd);
    totals t = {0};
    if (!bots || !pfd) {
        fprintf(stderr, "sweep-bots: out of memory\n");
        return 1;
    }
    rc = 1;
    sweep_client_options co;
    sweep_client_options_init(&co);
    co.transport = o.udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    co.address = o.connect;
    co.client_name = "sweep-bots";
    co.timeout_ms = 10000;
    uint32_t window = o.rate > 0 ? 1024 : o.window;
    for (uint32_t i = 0; i < o.clients; i++) {
        sweep_client_error e;
        if (sweep_client_connect(&co, &bots[i].c, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: connect: %s: %s\n", i, sweep_client_error_name(&e), e.message);
            goto out;
        }
        if (o.batch > sweep_client_max_batch(bots[i].c)) {
            fprintf(stderr, "sweep-bots: --batch %u is above what the server (or a datagram) allows: %u\n", o.batch,
                    sweep_client_max_batch(bots[i].c));
            goto out;
        }
        sweep_msg_spawned sp;
        if (sweep_client_spawn(bots[i].c, spawns[i % nspawns], radii, &sp, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: spawn: %s: %s\n", i, sweep_client_error_name(&e), e.message);
            goto out;
        }
        bots[i].entity = sp.entity;
        bots[i].spawn = spawns[i % nspawns];
        if (o.watch && sweep_client_watch_world(bots[i].c, o.watch, NULL, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: watch: %s: %s\n", i, sweep_client_error_name(&e), e.message);
            goto out;
        }
        bots[i].fl = calloc(window, sizeof *bots[i].fl);
        if (!bots[i].fl) {
            fprintf(stderr, "sweep-bots: out of memory\n");
            goto out;
        }
        pfd[i].fd = sweep_client_fd(bots[i].c);
        pfd[i].events = POLLIN;
    }

    int show_progress = o.progress || isatty(2);
    uint64_t start = sweep_client_now_ns();
    uint64_t measure_at = start + (uint64_t)(o.warmup * 1e9);
    uint64_t end = measure_at + (uint64_t)(o.duration * 1e9);
    uint64_t interval = o.rate > 0 ? (uint64_t)(1e9 * o.batch / o.rate) : 0;
    uint64_t next_progress = start + 500000000u, last_results = 0, last_progress = start;
    for (uint32_t i = 0; i < o.clients; i++)
        bots[i].next_send = start + (interval ? interval * i / o.clients : 0);
    int failed = 0;
    for (;;) {
        uint64_t now = sweep_client_now_ns();
        if (!t.measuring && now >= measure_at)
            t.measuring = 1;
        if (now >= end)
            break;
        /* Send what is due. */
        uint64_t wake = end;
        for (uint32_t i = 0; i < o.clients && !failed; i++) {
            bot *b = &bots[i];
            /* A request unanswered for a second is lost (UDP): free its slot. */
            for (uint32_t k = 0; k < b->nfl;) {
                if (now - b->fl[k].t_ns > 1000000000u) {
                    if (t.measuring)
                        t.lost += b->fl[k].remaining;
                    b->fl[k] = b->fl[--b->nfl];
                } else {
                    k++;
                }
            }
            if (interval) {
                while (b->next_send <= now && b->nfl < window) {
                    if (send_next(&o, b, &t, now) < 0)
                        failed = 1;
                    b->next_send += interval;
                }
                if (b->next_send < wake)
                    wake = b->next_send;
            } else {
                while (b->nfl < window && !failed)
                    if (send_next(&o, b, &t, now) < 0)
                        failed = 1;
            }
        }
        if (failed)
            goto out;
        int timeout = (int)((wake > now ? wake - now : 0) / 1000000u);
        if (timeout > 100)
            timeout = 100;
        if (poll(pfd, o.clients, timeout) < 0 && errno != EINTR) {
            perror("sweep-bots: poll");
            goto out;
        }
        for (uint32_t i = 0; i < o.clients; i++) {
            if (!(pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
                continue;
            sweep_client_event ev;
            sweep_client_error e;
            sweep_client_status s;
            while ((s = sweep_client_poll(bots[i].c, 0, &ev, &e)) == SWEEP_CLIENT_OK) {
                if (ev.kind == SWEEP_CLIENT_EV_MOVE_RESULT) {
                    settle(&bots[i], &t, ev.as.move_result.sequence, ev.received_ns, 1);
                } else if (ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
                    if (t.measuring) {
                        t.world_states++;
                        t.world_movers += ev.as.world_state.count;
                    }
                } else if (ev.kind == SWEEP_CLIENT_EV_DESPAWNED && ev.sequence == 0 &&
                           ev.as.despawned.entity == bots[i].entity) {
                    /* A mover crushed the bot's player: a new one carries on. */
                    sweep_msg_spawned sp;
                    t.crushed++;
                    bots[i].crushed_entity = bots[i].entity;
                    if (sweep_client_spawn(bots[i].c, bots[i].spawn, radii, &sp, &e) != SWEEP_CLIENT_OK) {
                        fprintf(stderr, "sweep-bots: bot %u: respawn after a crush: %s: %s\n", i,
                                sweep_client_error_name(&e), e.message);
                        goto out;
                    }
                    bots[i].entity = sp.entity;
                } else if (ev.kind == SWEEP_CLIENT_EV_ERROR && ev.as.error.code == SWEEP_WIRE_UNKNOWN_ENTITY &&
                           ev.as.error.entity != 0 && ev.as.error.entity == bots[i].crushed_entity) {
                    /* A move that was on its way when the player was crushed. */
                    settle(&bots[i], &t, ev.as.error.sequence ? ev.as.error.sequence : ev.sequence, ev.received_ns, 0);
                } else if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
                    if (t.errors++ < 5)
                        fprintf(stderr, "sweep-bots: bot %u: server error %s: %s (sequence %u)\n", i,
                                sweep_client_error_name(&ev.as.error), ev.as.error.message, ev.as.error.sequence);
                    settle(&bots[i], &t, ev.as.error.sequence ? ev.as.error.sequence : ev.sequence, ev.received_ns, 0);
                }
            }
            if (s != SWEEP_CLIENT_E_TIMEOUT) {
                fprintf(stderr, "sweep-bots: bot %u: %s: %s\n", i, sweep_client_error_name(&e), e.message);
                goto out;
            }
        }
        if (show_progress && now >= next_progress) {
            double secs = (double)(now - last_progress) / 1e9;
            fprintf(stderr, "\r[%6.1fs] %s clients=%u moves=%" PRIu64 " rate=%.0f/s errors=%" PRIu64 " lost=%" PRIu64 "   ",
                    (double)(now - start) / 1e9, t.measuring ? "measuring" : "warmup   ", o.clients, t.results,
                    (double)(t.results - last_results) / secs, t.errors, t.lost);
            last_results = t.results;
            last_progress = now;
            next_progress = now + 500000000u;
        }
    }
    if (show_progress)
        fprintf(stderr, "\n");
    qsort(t.lat_ns, t.nlat, sizeof *t.lat_ns, cmp_u64);
    double mps = (double)t.results / o.duration;
    if (o.bench_name) {
        printf("BENCH name=server.%s clients=%u moves_per_s=%.0f p50_us=%.1f p99_us=%.1f", o.bench_name, o.clients, mps,
               percentile_us(&t, 0.50), percentile_us(&t, 0.99));
        if (o.watch)
            printf(" world_states_per_s=%.0f", (double)t.world_states / o.duration);
        printf("\n");
    } else {
        printf("clients:     %u (%s, %s)\n", o.clients, o.udp ? "udp" : "tcp",
               o.batch > 1 ? "batched" : "single moves");
        printf("moves:       %" PRIu64 " answered of %" PRIu64 " sent in %.2f s (%" PRIu64 " errors, %" PRIu64 " lost)\n",
               t.results, t.sent, o.duration, t.errors, t.lost);
        printf("throughput:  %.0f moves/s\n", mps);
        printf("latency us:  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n", percentile_us(&t, 0.50),
               percentile_us(&t, 0.90), percentile_us(&t, 0.99), percentile_us(&t, 0.999), percentile_us(&t, 1.0));
        if (o.watch)
            printf("world states: %" PRIu64 " received (%.0f/s, %" PRIu64 " mover poses), %" PRIu64
                   " players crushed\n",
                   t.world_states, (double)t.world_states / o.duration, t.world_movers, t.crushed);
    }
    rc = t.results > 0 && t.errors == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "sweep-bots: %s\n", t.results ? "the server answered errors" : "no move was answered");
out:
    for (uint32_t i = 0; i < o.clients; i++) {
        sweep_client_close(bots[i].c);
        free(bots[i].fl);
    }
    free(bots);
    free(pfd);
    free(t.lat_ns);
    if (have_map)
        sweep_level_free(&lv);
    return rc;
}
