/*
 * main.c - `sweep-bots`, the load generator, and players honest and
 * cheating, to show what the server's rules prevent: its options (--help
 * is its manual) and main, which sets a run up (the map, a token secret,
 * the bad network, every bot connected and spawned), has it run (run.c)
 * and reported (report.c), and takes it down. bots.h says what the other
 * files hold.
 *
 * With --redundancy N every UDP datagram also carries the bot's last N
 * unanswered moves (libsweep), so a lost datagram costs no move.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/version.h"
#include "client-sdk/bots/bots.h"
#include "core/parse.h"
#include "protocol/token.h"

static const char usage[] =
    "usage: sweep-bots --connect HOST:PORT [options]\n"
    "\n"
    "Bots that spawn a player each and move it through sweepd: a load generator\n"
    "(throughput and latency percentiles), or honest and cheating players (what\n"
    "the server's rules let each cheat gain, and what they named).\n"
    "\n"
    "  --connect HOST:PORT  the server\n"
    "  --udp                UDP instead of TCP\n"
    "  --clients N          bot connections (default 4)\n"
    "  --mode LIST          load (default), or a comma-separated list of player\n"
    "                       modes shared out among the bots in turn: honest, speed,\n"
    "                       dilate, flood, burst, fly, noclip, jump, spawn-anywhere,\n"
    "                       shrink, teleport, forge (player modes need --map)\n"
    "  --rate M             moves per second per bot; load: 0 = as fast as answered\n"
    "                       (default 0); players: their pace (default 60)\n"
    "  --batch B            load: moves per MoveBatch; 1 = single Move messages\n"
    "                       (default 1)\n"
    "  --window W           load: requests in flight per bot with --rate 0 (default 1)\n"
    "  --duration S         seconds to run (default 5)\n"
    "  --warmup S           seconds run first and not measured (default 0.5)\n"
    "  --map FILE           the server's map: spawn points, radii, movement rules\n"
    "  --position X,Y,Z     load: spawn point without --map (default 0,0,1)\n"
    "  --speed U            load: walking speed, units/s (default 2)\n"
    "  --dt SECONDS         load: time step of each move (default 1/60)\n"
    "  --target X,Y,Z       spawn-anywhere: where to ask (default 8 m above the first\n"
    "                       spawn point)\n"
    "  --world NAME         the world to join, by map name or file stem (default:\n"
    "                       the server's first)\n"
    "  --token TOKEN        Hello.auth_token of every bot (SWEEP_TOKEN is read when\n"
    "                       it is not given)\n"
    "  --secret-file FILE   instead, a player token of its own for each bot, minted\n"
    "                       with the server's secret (identity bot-N)\n"
    "  --redundancy N       UDP: each datagram also carries the last N unanswered\n"
    "                       moves (0..8, default 0)\n"
    "  --loss P             UDP: drop each datagram, both ways, with probability P\n"
    "  --jitter-ms J        UDP: delay each datagram by a uniform 0..J ms\n"
    "  --reorder P          UDP: hold a datagram back 20-40 ms more with probability\n"
    "                       P, so later ones overtake it\n"
    "  --seed S             of the losses, delays and reordering (default 1); the\n"
    "                       network is bad from the first move to the last, not while\n"
    "                       the bots connect and spawn\n"
    "  --watch N            each bot also watches the movers: a WorldState every N\n"
    "                       ticks (default: none)\n"
    "  --progress           live progress line on stderr even if not a terminal\n"
    "  --bench-line NAME    load: print 'BENCH name=server.NAME clients=...\n"
    "                       moves_per_s=... p50_us=... p99_us=...' instead of the\n"
    "                       summary\n"
    "  --help               this text\n"
    "  --version            the release of sweep this tool belongs to\n"
    "\n"
    "Player modes print one line per mode:\n"
    "  mode=NAME bots= moves= answered= errors= error_codes= corrections=\n"
    "  max_correction= rule_moves= rules= spawn_rules= stats_rules= distance_per_s=\n"
    "  peak_speed= max_height= reach= dt_asked_per_s= dt_granted_per_s=\n"
    "  granted_ratio= spawn_offset= radii_ratio= role= mismatches=\n"
    "  mismatches_after_loss= lost= stalled_s= cut=\n"
    "(rules and counts as Name:count lists, 'none' when empty): distance_per_s is\n"
    "the way across the ground per bot-second, peak_speed the longest 0.25 s of it\n"
    "(of the server's ticks) per second, max_height and reach how high above and how far across from the\n"
    "map's spawn point a bot got, dt_asked_per_s and dt_granted_per_s the time\n"
    "asked and granted per bot-second, spawn_offset how far from where it asked a\n"
    "spawn landed, radii_ratio the smallest volume got over the map's player's,\n"
    "mismatches the answers that differed from the prediction, those after a loss\n"
    "the ones whose answer gave up earlier moves (the server may never have had\n"
    "them), lost the moves neither answered nor refused, stalled_s the bot-seconds\n"
    "of moves never sent because this process stalled: longer than a catch-up\n"
    "(half a time bank) allows, or across the end of the run, cut the moves granted\n"
    "less time than they asked (named TimeBudget or, after a stall of the network\n"
    "or the server, not). Then for each\n"
    "cheat that ran beside honest bots an 'advantage mode=NAME ...' line of\n"
    "ratios to the honest figures. Exit status 1 when an honest bot saw an\n"
    "error, a correction or a rule, or when no move was answered.\n";

/* --- the options ---------------------------------------------------------------------- */

const char *const sweep__bots_mode_names[MODE_COUNT] = {
    "load", "honest", "speed", "dilate", "flood", "burst", "fly", "noclip", "jump", "spawn-anywhere", "shrink",
    "teleport", "forge",
};

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "sweep-bots: %s '%s' (sweep-bots --help)\n", what, arg);
    return 2;
}

static int parse_modes(const char *list, options *o)
{
    char buf[512];
    if (strlen(list) >= sizeof buf)
        return bad("--mode list too long:", list);
    strcpy(buf, list);
    o->nmodes = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int m = 0; m < MODE_COUNT; m++)
            if (strcmp(t, sweep__bots_mode_names[m]) == 0)
                found = m;
        if (found < 0)
            return bad("--mode: no such mode", t);
        if (o->nmodes == MODE_COUNT)
            return bad("--mode lists too many modes:", list);
        o->modes[o->nmodes++] = found;
    }
    if (o->nmodes == 0)
        return bad("--mode wants a list of modes, not", list);
    int load = 0;
    for (uint32_t i = 0; i < o->nmodes; i++)
        load |= o->modes[i] == MODE_LOAD;
    if (load && o->nmodes > 1)
        return bad("--mode load runs alone, not in", list);
    o->players = !load;
    return 0;
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
        {"watch", required_argument, 0, 'a'},    {"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 0x100},
        {"mode", required_argument, 0, 'M'},     {"token", required_argument, 0, 'T'},
        {"secret-file", required_argument, 0, 'S'}, {"redundancy", required_argument, 0, 'R'},
        {"loss", required_argument, 0, 'L'},     {"jitter-ms", required_argument, 0, 'J'},
        {"reorder", required_argument, 0, 'O'},  {"seed", required_argument, 0, 'E'},
        {"target", required_argument, 0, 'G'},  {"world", required_argument, 0, 'V'},
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
    o->rate = -1; /* not given */
    o->seed = 1;
    o->position = (sweep_vec3){0, 0, 1};
    o->modes[0] = MODE_LOAD;
    o->nmodes = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->connect = optarg; break;
        case 'u': o->udp = 1; break;
        case 'n':
            if (!sweep_parse_u32(optarg, 1, 4096, &o->clients))
                return bad("--clients wants 1..4096, not", optarg);
            break;
        case 'r':
            if (!sweep_parse_double(optarg, 0, 1e7, &o->rate))
                return bad("--rate wants moves per second, not", optarg);
            break;
        case 'b':
            if (!sweep_parse_u32(optarg, 1, 65536, &o->batch))
                return bad("--batch wants 1..65536, not", optarg);
            break;
        case 'w':
            if (!sweep_parse_u32(optarg, 1, 1024, &o->window))
                return bad("--window wants 1..1024, not", optarg);
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
            if (!sweep_parse_vec3(optarg, &o->position) || !sweep_v3_isfinite(o->position))
                return bad("--position wants X,Y,Z, not", optarg);
            break;
        case 'G':
            if (!sweep_parse_vec3(optarg, &o->target) || !sweep_v3_isfinite(o->target))
                return bad("--target wants X,Y,Z, not", optarg);
            o->has_target = 1;
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
            if (!sweep_parse_u32(optarg, 1, 1000000, &o->watch))
                return bad("--watch wants a number of ticks (1 = every tick), not", optarg);
            break;
        case 'M':
            if ((rc = parse_modes(optarg, o)) != 0)
                return rc;
            break;
        case 'T':
            if (!optarg[0])
                return bad("--token wants a token, not", optarg);
            o->token = optarg;
            break;
        case 'S': o->secret_file = optarg; break;
        case 'V': o->world = optarg; break;
        case 'R':
            if (!sweep_parse_u32(optarg, 0, SWEEP_CLIENT_REDUNDANCY_MAX, &o->redundancy))
                return bad("--redundancy wants 0..8 moves, not", optarg);
            break;
        case 'L':
            if (!sweep_parse_double(optarg, 0, 1, &o->loss))
                return bad("--loss wants a probability 0..1, not", optarg);
            break;
        case 'J':
            if (!sweep_parse_double(optarg, 0, 10000, &o->jitter_ms))
                return bad("--jitter-ms wants 0..10000 ms, not", optarg);
            break;
        case 'O':
            if (!sweep_parse_double(optarg, 0, 1, &o->reorder))
                return bad("--reorder wants a probability 0..1, not", optarg);
            break;
        case 'E':
            if (!sweep_parse_u64(optarg, 0, UINT64_MAX, &o->seed))
                return bad("--seed wants a number, not", optarg);
            break;
        case 'P': o->progress = 1; break;
        case 'B': o->bench_name = optarg; break;
        case 'h': fputs(usage, stdout); exit(0);
        case 0x100: printf("sweep-bots %s\n", SWEEP_VERSION); exit(0);
        default: return 2;
        }
    }
    if (optind < argc)
        return bad("unexpected argument", argv[optind]);
    if (!o->connect)
        return bad("--connect HOST:PORT is required; got", "");
    if (o->token == NULL) {
        const char *env = getenv("SWEEP_TOKEN");
        if (env && env[0])
            o->token = env;
    }
    if (o->token && o->secret_file)
        return bad("--token and --secret-file exclude each other; got", o->secret_file);
    if (!o->udp && (o->loss > 0 || o->jitter_ms > 0 || o->reorder > 0 || o->redundancy > 0))
        return bad("--loss, --jitter-ms, --reorder and --redundancy are for UDP (add --udp); got", "tcp");
    if (o->players) {
        if (!o->map)
            return bad("player modes need --map FILE (the server's map); mode", sweep__bots_mode_names[o->modes[0]]);
        if (o->batch != 1 || o->bench_name)
            return bad("--batch and --bench-line are for --mode load; got mode", sweep__bots_mode_names[o->modes[0]]);
        if (o->rate < 0)
            o->rate = 60;
        if (o->rate < 1 || o->rate > 1000)
            return bad("player modes want --rate 1..1000 moves per second; got", "another rate");
    } else if (o->rate < 0) {
        o->rate = 0;
    }
    return 0;
}

/* --- main ------------------------------------------------------------------------------ */

/* Many bots, many sockets: as many descriptors as the hard limit allows. */
static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &r);
    }
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
    raise_fd_limit();
    sweep_vec3 radii = {0.4, 0.4, 0.9};
    sweep_vec3 *spawns = &o.position;
    uint32_t nspawns = 1;
    map_info mi = {0};
    mi.up = sweep_v3(0, 0, 1);
    uint8_t secret[SWEEP_TOKEN_SECRET_MAX];
    size_t secret_len = 0;
    char err[512];
    if (o.secret_file) {
        int loose = 0;
        if (sweep_token_secret_read(o.secret_file, secret, &secret_len, &loose, err, sizeof err) != 0) {
            fprintf(stderr, "sweep-bots: %s\n", err);
            return 1;
        }
    }
    if (o.map) {
        if (sweep_map_load(o.map, &mi.lv, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "sweep-bots: %s: %s\n", o.map, err);
            return 1;
        }
        mi.loaded = 1;
        radii = mi.lv.default_radii;
        if (mi.lv.spawn_count) {
            spawns = mi.lv.spawns;
            nspawns = mi.lv.spawn_count;
        }
        double g = sweep_v3_len(mi.lv.config.gravity);
        if (g > 0)
            mi.up = sweep_v3_scale(mi.lv.config.gravity, -1.0 / g);
        if (o.players && sweep_map_build_world(&mi.lv, &mi.world, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "sweep-bots: %s: %s\n", o.map, err);
            sweep_level_free(&mi.lv);
            return 1;
        }
    }

    bot *bots = calloc(o.clients, sizeof *bots);
    /* Each socket is registered once (level-triggered: a bot drained to
     * EAGAIN is not reported again until more arrives, as with poll). */
    schedule sched = {.heap = calloc(o.clients, sizeof *sched.heap), .pos = calloc(o.clients, sizeof *sched.pos)};
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    totals t = {0};
    sweep_netem *net = NULL;
    if (!bots || !sched.heap || !sched.pos || epfd < 0) {
        fprintf(stderr, "sweep-bots: %s\n", epfd < 0 ? strerror(errno) : "out of memory");
        free(bots);
        free(sched.heap);
        free(sched.pos);
        if (epfd >= 0)
            close(epfd);
        return 1;
    }
    rc = 1;
    if (o.loss > 0 || o.jitter_ms > 0 || o.reorder > 0) {
        sweep_netem_options no = {.loss = o.loss, .jitter_ms = o.jitter_ms, .reorder = o.reorder, .seed = o.seed};
        if (sweep_netem_start(&no, o.connect, o.clients, &net, err, sizeof err) != 0) {
            fprintf(stderr, "sweep-bots: %s\n", err);
            goto out;
        }
    }
    uint32_t window = o.rate > 0 ? 1024 : o.window;
    for (uint32_t i = 0; i < o.clients; i++) {
        bot *b = &bots[i];
        b->index = i;
        b->mode = (bot_mode)o.modes[i % o.nmodes];
        t.m[b->mode].bots++;
        sweep_client_error e;
        if (sweep__bots_connect_bot(&o, net ? sweep_netem_address(net, i) : o.connect, o.secret_file ? secret : NULL,
                                    secret_len, b, &t) != 0)
            goto out;
        if (o.batch > sweep_client_max_batch(b->c)) {
            fprintf(stderr, "sweep-bots: --batch %u is above what the server (or a datagram) allows: %u\n", o.batch,
                    sweep_client_max_batch(b->c));
            goto out;
        }
        b->time_bank = sweep_client_get_welcome(b->c)->time_bank > 0 ? sweep_client_get_welcome(b->c)->time_bank : 1.0;
        if (o.redundancy && sweep_client_set_redundancy(b->c, o.redundancy, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: --redundancy: %s\n", e.message);
            goto out;
        }
        if (b->mode == MODE_HONEST && sweep_client_check_map(b->c, &mi.lv, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: honest bots predict with --map, and %s\n", e.message);
            goto out;
        }
        if (o.players) {
            if (sweep__bots_spawn_player(&o, &mi, b, &t) != 0)
                goto out;
        } else {
            sweep_msg_spawned sp;
            sweep_client_status s = sweep__bots_spawn_load(b, mi.loaded && mi.lv.spawn_count ? i % nspawns + 1 : 0,
                                                           spawns[i % nspawns], radii, &sp, &e);
            if (s != SWEEP_CLIENT_OK) {
                fprintf(stderr, "sweep-bots: bot %u: spawn: %s: %s\n", i, sweep_client_error_name(&e), e.message);
                goto out;
            }
            b->entity = sp.entity;
            b->spawn = sp.position;
            b->radii = sp.radii;
        }
        if (o.watch && sweep_client_watch_world(b->c, o.watch, NULL, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: watch: %s: %s\n", i, sweep_client_error_name(&e), e.message);
            goto out;
        }
        b->fl = calloc(window, sizeof *b->fl);
        if (!b->fl) {
            fprintf(stderr, "sweep-bots: out of memory\n");
            goto out;
        }
        struct epoll_event ee = {.events = EPOLLIN, .data.u32 = i};
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, sweep_client_fd(b->c), &ee) != 0) {
            fprintf(stderr, "sweep-bots: bot %u: epoll_ctl: %s\n", i, strerror(errno));
            goto out;
        }
    }

    if (sweep__bots_run(&o, &mi, bots, &sched, epfd, &t, window, net) != 0)
        goto out;
    rc = o.players ? sweep__bots_report_players(&o, bots, &t, &net) : sweep__bots_report_load(&o, &t);
out:
    for (uint32_t i = 0; i < o.clients; i++) {
        sweep_client_close(bots[i].c);
        sweep_predictor_destroy(bots[i].pred);
        free(bots[i].fl);
    }
    sweep_netem_stop(net, NULL);
    close(epfd);
    free(sched.heap);
    free(sched.pos);
    free(bots);
    free(t.lat_ns);
    memset(secret, 0, sizeof secret);
    if (mi.world)
        sweep_world_destroy(mi.world);
    if (mi.loaded)
        sweep_level_free(&mi.lv);
    return rc;
}

