/*
 * main.c - `sweep-bots`: the load generator, and players honest and
 * cheating, to show what the server's rules prevent.
 *
 * N bot connections (TCP or UDP) each spawn one player and move it. All
 * bots run in this one thread over libsweep, their sockets in one epoll(7)
 * set and their next moves in a heap ordered by time, so that a turn of
 * the loop costs what is ready and what is due, not the number of bots:
 * at thousands of bots and 60 Hz the load generator must stay cheaper
 * than the server it measures. A wake reads each ready socket once (all
 * it holds, libsweep's recvmmsg) and sends every move due within
 * SEND_SLACK_NS, so the wakes a second stay a few thousand however many
 * bots there are; latencies run from the send to the kernel's arrival
 * time of the answer, not to when the loop came round to read it (over UDP with --loss, --jitter-ms or
 * --reorder their datagrams go through in-process relays on a thread of
 * their own, netem.h).
 *
 * --mode load (the default) is the benchmark: each bot walks a small
 * square, sending moves one by one or in batches, either at a fixed rate
 * (--rate) or as fast as the server answers with a fixed number of
 * requests in flight (--rate 0); the time from sending a request to its
 * result is measured and reported as throughput and latency percentiles
 * (or one BENCH line with --bench-line NAME). UDP may lose datagrams: a
 * request unanswered for a second is counted as lost and its window slot
 * reused, so one loss does not stall a bot.
 *
 * The other modes are players of a map (--map, the server's: its rules,
 * spawn points and radii), a comma-separated list shared out among the
 * bots in turn, each sending a move every 1/--rate seconds (60 Hz by
 * default) that asks the time since the previous one:
 *   honest          walks a square at the walk speed and jumps about once a
 *                   second when standing, predicting every move with the
 *                   core (predict.h) and claiming the predicted position;
 *   speed           wishes ten times the walk speed;
 *   dilate          asks four times the time that passed with each move;
 *   flood           sends eight times as many moves as time allows;
 *   burst           stays silent for a second, then sends the second's moves
 *                   at once (a lag switch);
 *   fly             asks Fly moves going up;
 *   noclip          asks Noclip moves through the walls;
 *   jump            holds jump and wishes to rise at the jump speed, in the
 *                   air too (the old protocol's jump: a velocity upwards);
 *   spawn-anywhere  asks to spawn at --target (8 m above the first spawn
 *                   point by default), then walks;
 *   shrink          asks radii a quarter of the map's, then walks;
 *   teleport        walks, claiming a position 10 m away from the server's;
 *   forge           first says Hello with a server token it signed itself,
 *                   then (refused) joins as what --token says, and walks.
 * The report gives, per mode: moves sent and answered, errors by code,
 * corrections the server flagged (above the map's threshold), the rules
 * the server named (MoveResult.rules, Spawned.rules, and its Stats counters
 * for the bots' sessions), and what the mode gained: distance travelled
 * per second and the fastest 0.25 s, the highest point above the spawn,
 * the farthest from it, the time granted per second against the time
 * asked, where it spawned against where it asked, the radii it got; and
 * each cheat's figures against the honest bots' when they ran together.
 * With --redundancy N every UDP datagram also carries the bot's last N
 * unanswered moves (libsweep), so a lost datagram costs no move.
 *
 * Against a server older than roles (no identity in its Welcome) the same
 * bots still run: it applies velocities as given, so there the cheats
 * show what they gain when nothing stops them (granted time is then the
 * time asked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "core/version.h"
#include "client-sdk/client.h"
#include "client-sdk/netem.h"
#include "client-sdk/predict.h"
#include "maps/loader.h"
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
    "  mismatches_after_loss= lost= stalled_s=\n"
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
    "(half a time bank) allows, or across the end of the run. Then for each\n"
    "cheat that ran beside honest bots an 'advantage mode=NAME ...' line of\n"
    "ratios to the honest figures. Exit status 1 when an honest bot saw an\n"
    "error, a correction or a rule, or when no move was answered.\n";

/* --- modes ------------------------------------------------------------------ */

typedef enum bot_mode {
    MODE_LOAD = 0,
    MODE_HONEST,
    MODE_SPEED,
    MODE_DILATE,
    MODE_FLOOD,
    MODE_BURST,
    MODE_FLY,
    MODE_NOCLIP,
    MODE_JUMP,
    MODE_SPAWN_ANYWHERE,
    MODE_SHRINK,
    MODE_TELEPORT,
    MODE_FORGE,
    MODE_COUNT
} bot_mode;

static const char *const mode_names[MODE_COUNT] = {
    "load", "honest", "speed", "dilate", "flood", "burst", "fly", "noclip", "jump", "spawn-anywhere", "shrink",
    "teleport", "forge",
};

/* How much each cheat overdoes it. */
#define SPEED_FACTOR 10.0  /* speed: the wish, in walk speeds */
#define DILATE_FACTOR 4.0  /* dilate: time asked per time passed */
#define FLOOD_FACTOR 8.0   /* flood: moves per move time allows */
#define BURST_PERIOD 2.0   /* burst: seconds of silence plus seconds of moves sent at once */
#define TELEPORT_CLAIM 10.0 /* teleport: how far off the claims are, units */
#define SHRINK_FACTOR 0.25 /* shrink: radii asked, in map radii */

typedef struct options {
    const char *connect, *map, *bench_name, *token, *secret_file;
    const char *world; /* Hello.world: NULL = the server's first */
    int udp, progress, has_target;
    uint32_t clients, batch, window, watch, redundancy;
    double rate, duration, warmup, speed, dt;
    double loss, jitter_ms, reorder;
    uint64_t seed;
    sweep_vec3 position, target;
    int modes[MODE_COUNT]; /* the list, in order */
    uint32_t nmodes;
    int players;           /* player modes (not load) */
} options;

/* One request in flight (load): sequences [first, last] sent at t_ns. */
typedef struct inflight {
    uint32_t first, last, remaining;
    uint64_t t_ns;
} inflight;

/* Sends due this close after a wake go in it: a bot's move leaves up to
 * this early rather than costing a wake of its own (a game's frame is
 * 16,667 us; the latency is measured from when it really left). The price
 * is burstier traffic: at 500 players the moves of a pass queue behind
 * each other in the server, about 20 us more at the median than with no
 * slack, for about a third less of the bots' CPU per move. */
#define SEND_SLACK_NS 250000u

/* Answers remembered per bot to know what a move asked (by sequence % this). */
#define ASKED_RING 4096u
/* Answers remembered per bot for the fastest 0.25 s. */
#define TRACK_RING 256u
#define PEAK_WINDOW_NS 250000000u

typedef struct bot {
    sweep_client *c;
    bot_mode mode;
    uint32_t index;
    uint32_t entity;
    uint32_t crushed_entity; /* the entity a mover crushed last (its late answers are errors) */
    sweep_vec3 spawn;        /* where it was put */
    sweep_vec3 origin;       /* the map's spawn point it was given (or would have been): heights and
                                reaches are measured from here */
    sweep_vec3 radii;        /* what it got */
    uint64_t step;           /* moves sent, for the walking pattern */
    uint64_t next_send;      /* when the next move goes */
    inflight *fl;            /* load */
    uint32_t nfl;
    /* Players. */
    sweep_predictor *pred; /* while predicting */
    int predicting;
    uint32_t grounded_run;   /* predicted moves in a row that ended standing */
    uint64_t last_jump;      /* step of the last jump pressed */
    uint32_t last_seq;       /* the newest answer's sequence */
    sweep_vec3 last_pos;     /* ... and position */
    double asked_dt[ASKED_RING];
    uint32_t asked_seq[ASKED_RING];
    uint64_t track_t[TRACK_RING];
    sweep_vec3 track_p[TRACK_RING];
    uint32_t track_n;
    double time_bank;        /* Welcome.time_bank, or a second for a server without one */
    double burst_owed;       /* burst: seconds of moves held back, to send at once */
    uint64_t burst_at;       /* burst: when the held moves go */
} bot;

/* What one mode did, all its bots together. */
typedef struct mode_totals {
    uint32_t bots;
    uint64_t sent, answered, errors, corrections, rule_moves, lost, mismatches;
    uint64_t mismatches_after_loss; /* of the mismatches, those whose answer gave up earlier moves */
    double stalled;                 /* bot-seconds of moves dropped after stalls of this process (pace_player) */
    uint64_t error_codes[SWEEP_WIRE_CODE_COUNT + 1]; /* the last slot: codes newer than this build */
    uint64_t rules[32], spawn_rules[32], stats_rules[32];
    double max_correction;
    double distance;           /* measured: path length across the ground, units */
    double dt_asked, dt_granted; /* measured, seconds */
    double peak;               /* longest way across the ground in 0.25 s, units */
    double max_height, reach;  /* above / across from the spawn point, units */
    double spawn_offset;       /* farthest spawn from where it was asked, units */
    double radii_ratio;        /* smallest volume got / the map's player's */
    int roles_seen;            /* 1 if the server told roles */
    uint32_t role_server;      /* sessions the server made of the server role */
    uint32_t refused_hellos;   /* Hellos refused (forge) */
} mode_totals;

typedef struct totals {
    uint64_t *lat_ns; /* measured latencies */
    size_t nlat, cap;
    uint64_t results, errors, lost, sent;
    uint64_t world_states, world_movers, crushed; /* with --watch; counted the whole run */
    int measuring;
    mode_totals m[MODE_COUNT];
} totals;

/* The map, when given: rules, spawn points, radii, prediction. */
typedef struct map_info {
    int loaded;
    sweep_level lv;
    sweep_world *world;
    sweep_vec3 up;
} map_info;

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
            if (strcmp(t, mode_names[m]) == 0)
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
            return bad("player modes need --map FILE (the server's map); mode", mode_names[o->modes[0]]);
        if (o->batch != 1 || o->bench_name)
            return bad("--batch and --bench-line are for --mode load; got mode", mode_names[o->modes[0]]);
        if (o->rate < 0)
            o->rate = 60;
        if (o->rate < 1 || o->rate > 1000)
            return bad("player modes want --rate 1..1000 moves per second; got", "another rate");
    } else if (o->rate < 0) {
        o->rate = 0;
    }
    return 0;
}

/* --- helpers ---------------------------------------------------------------------- */

static uint64_t ns_of(double seconds)
{
    return (uint64_t)(seconds * 1e9);
}

static sweep_vec3 along(sweep_vec3 v, sweep_vec3 up, double *height)
{
    double h = sweep_v3_dot(v, up);
    if (height)
        *height = h;
    return sweep_v3_madd(v, up, -h);
}

/* Length across the ground (the part of v not along up). */
static double across_len(sweep_vec3 v, sweep_vec3 up)
{
    return sweep_v3_len(along(v, up, NULL));
}

/* The walking pattern: a square, one side per `side` moves, starting
 * towards +x and turning clockwise (from the arena's spawn points, onto
 * open floor). Returns a unit direction across the ground. */
static sweep_vec3 square_dir(uint64_t step, uint64_t side)
{
    static const double dir[4][2] = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
    const double *d = dir[(step / (side ? side : 1)) % 4];
    return (sweep_vec3){d[0], d[1], 0};
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

static void count_error(mode_totals *mt, sweep_wire_code code)
{
    mt->errors++;
    mt->error_codes[(unsigned)code < SWEEP_WIRE_CODE_COUNT ? (unsigned)code : SWEEP_WIRE_CODE_COUNT]++;
}

/* --- the schedule ---------------------------------------------------------------------- */

/* Every bot, in a binary min-heap by when it next has something to do: the
 * loop takes the bots whose time has come off the top and never looks at
 * the others. The keys live in the heap itself, not in the (large) bots,
 * so that a sift touches a few cache lines rather than a bot each. */
typedef struct sched_entry {
    uint64_t due;
    uint32_t bot;
} sched_entry;

typedef struct schedule {
    sched_entry *heap;
    uint32_t *pos; /* per bot: its place in heap */
    uint32_t n;
} schedule;

static void sched_place(schedule *s, uint32_t at, sched_entry e)
{
    s->heap[at] = e;
    s->pos[e.bot] = at;
}

static void sched_up(schedule *s, uint32_t at)
{
    sched_entry e = s->heap[at];
    while (at > 0) {
        uint32_t parent = (at - 1) / 2;
        if (s->heap[parent].due <= e.due)
            break;
        sched_place(s, at, s->heap[parent]);
        at = parent;
    }
    sched_place(s, at, e);
}

static void sched_down(schedule *s, uint32_t at)
{
    sched_entry e = s->heap[at];
    for (;;) {
        uint32_t child = 2 * at + 1;
        if (child >= s->n)
            break;
        if (child + 1 < s->n && s->heap[child + 1].due < s->heap[child].due)
            child++;
        if (s->heap[child].due >= e.due)
            break;
        sched_place(s, at, s->heap[child]);
        at = child;
    }
    sched_place(s, at, e);
}

/* Adds bot i, due at `due`. */
static void sched_add(schedule *s, uint32_t i, uint64_t due)
{
    sched_place(s, s->n++, (sched_entry){due, i});
    sched_up(s, s->n - 1);
}

/* When bot i is due. */
static uint64_t sched_due(const schedule *s, uint32_t i)
{
    return s->heap[s->pos[i]].due;
}

/* Moves bot i to `due`. */
static void sched_set(schedule *s, uint32_t i, uint64_t due)
{
    uint32_t at = s->pos[i];
    uint64_t old = s->heap[at].due;
    s->heap[at].due = due;
    if (due < old)
        sched_up(s, at);
    else if (due > old)
        sched_down(s, at);
}

/* The bot due first (the schedule is never empty while the loop runs). */
static const sched_entry *sched_top(const schedule *s)
{
    return &s->heap[0];
}

/* --- load mode ------------------------------------------------------------------------ */

/* Sends the bot's next request (one move or one batch). */
static int send_load(const options *o, bot *b, totals *t)
{
    sweep_client_move_req reqs[256];
    uint32_t seqs[256];
    uint32_t n = o->batch;
    sweep_client_error e;
    for (uint32_t i = 0; i < n; i++)
        reqs[i] = (sweep_client_move_req){.entity = b->entity,
                                          .velocity = sweep_v3_scale(square_dir(b->step + i, 30), o->speed),
                                          .dt = o->dt};
    /* The clock read at this send, not the wake's: a pass sends many
     * moves, and a late one must not be charged the pass before it. */
    uint64_t sent_ns = sweep_client_now_ns();
    sweep_client_status s = n == 1 ? sweep_client_send_move(b->c, &reqs[0], &seqs[0], &e)
                                   : sweep_client_send_batch(b->c, reqs, n, seqs, &e);
    if (s != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: send failed: %s: %s\n", sweep_client_error_name(&e), e.message);
        return -1;
    }
    b->step += n;
    b->fl[b->nfl++] = (inflight){seqs[0], seqs[n - 1], n, sent_ns};
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
            record(t, when > f->t_ns ? when - f->t_ns : 0);
            if (t->measuring)
                t->results++;
        }
        if (--f->remaining == 0)
            b->fl[i] = b->fl[--b->nfl];
        return;
    }
}

/* When a load bot next has something to do: its next send while its window
 * has room (at once with --rate 0); with the window full, an answer makes
 * room (and reschedules it) or else its oldest request is given up as lost
 * a second after it went. */
static uint64_t load_due(const bot *b, uint64_t interval, uint32_t window)
{
    if (b->nfl < window)
        return interval ? b->next_send : 0;
    uint64_t oldest = UINT64_MAX;
    for (uint32_t k = 0; k < b->nfl; k++)
        if (b->fl[k].t_ns < oldest)
            oldest = b->fl[k].t_ns;
    uint64_t expire = oldest + 1000000000u + 1;
    return interval && b->next_send > expire ? b->next_send : expire;
}

/* Gives up the load bot's requests unanswered for a second and sends what is
 * due by `horizon` (now and SEND_SLACK_NS after); *due gets when it next
 * has something to do, always after the horizon. */
static int pace_load(const options *o, bot *b, totals *t, uint64_t horizon, uint64_t interval, uint32_t window,
                     uint64_t *due)
{
    /* A request unanswered for a second is lost (UDP): free its slot. By
     * the horizon, not now: else a full window due to expire within the
     * slack would be taken up again and again in the same pass. */
    for (uint32_t k = 0; k < b->nfl;) {
        if (horizon > b->fl[k].t_ns + 1000000000u) {
            if (t->measuring)
                t->lost += b->fl[k].remaining;
            b->fl[k] = b->fl[--b->nfl];
        } else {
            k++;
        }
    }
    if (interval) {
        while (b->next_send <= horizon && b->nfl < window) {
            if (send_load(o, b, t) < 0)
                return -1;
            b->next_send += interval;
        }
    } else {
        while (b->nfl < window)
            if (send_load(o, b, t) < 0)
                return -1;
    }
    *due = load_due(b, interval, window);
    return 0;
}

/* --- player modes --------------------------------------------------------------------- */

/* Sends one player move of the bot's mode asking dt seconds. */
static int send_player(const options *o, const map_info *mi, bot *b, totals *t, double dt)
{
    const sweep_rules *rules = &mi->lv.rules;
    double ws = rules->walk_speed;
    uint64_t side = (uint64_t)(o->rate + 0.5);
    sweep_vec3 dir = square_dir(b->step, side);
    sweep_client_move_req m = {.entity = b->entity, .velocity = sweep_v3_scale(dir, ws), .dt = dt};
    switch (b->mode) {
    case MODE_SPEED:
        m.velocity = sweep_v3_scale(dir, ws * SPEED_FACTOR);
        break;
    case MODE_FLY:
        m.mode = SWEEP_WIRE_MODE_FLY;
        m.velocity = sweep_v3_madd(sweep_v3_scale(dir, ws), mi->up, ws);
        break;
    case MODE_NOCLIP:
        m.mode = SWEEP_WIRE_MODE_NOCLIP;
        m.velocity = sweep_v3(ws, 0, 0);
        break;
    case MODE_JUMP:
        m.buttons = SWEEP_WISH_JUMP;
        m.velocity = sweep_v3_madd(m.velocity, mi->up, rules->jump_speed > 0 ? rules->jump_speed : ws);
        break;
    case MODE_TELEPORT:
        m.has_claimed_position = 1;
        m.claimed_position = sweep_v3_add(b->last_pos, sweep_v3(TELEPORT_CLAIM, 0, 0));
        break;
    default:
        break;
    }
    uint32_t seq = sweep_client_next_sequence(b->c);
    if (b->predicting) {
        /* An honest player jumps when it stands, about once a second; the
         * prediction says when it stands and where it will be. */
        sweep_predict_state now = sweep_predictor_current(b->pred);
        b->grounded_run = now.grounded ? b->grounded_run + 1 : 0;
        if (b->mode == MODE_HONEST && rules->jump_speed > 0 && b->grounded_run >= 6 && b->step >= b->last_jump + side) {
            m.buttons = SWEEP_WISH_JUMP;
            b->last_jump = b->step;
        }
        sweep_wish w = {.velocity = m.velocity, .buttons = m.buttons};
        if (sweep_predictor_step(b->pred, seq, &w, dt, NULL, NULL) == SWEEP_CLIENT_OK) {
            m.has_claimed_position = 1;
            m.claimed_position = sweep_predictor_current(b->pred).position;
        }
    }
    sweep_client_error e;
    uint32_t sent;
    if (sweep_client_send_move(b->c, &m, &sent, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: bot %u (%s): send failed: %s: %s\n", b->index, mode_names[b->mode],
                sweep_client_error_name(&e), e.message);
        return -1;
    }
    b->asked_seq[sent % ASKED_RING] = sent;
    b->asked_dt[sent % ASKED_RING] = dt;
    b->step++;
    t->m[b->mode].sent++;
    return 0;
}

/* Sends what is due for a player bot by `horizon` (now, or a little
 * after: see SEND_SLACK_NS); *wake is lowered to when it wants to send
 * next. */
static int pace_player(const options *o, const map_info *mi, bot *b, totals *t, uint64_t now, uint64_t horizon,
                       uint64_t *wake)
{
    uint64_t interval = (uint64_t)(1e9 / o->rate);
    double period = 1.0 / o->rate;
    if (b->mode == MODE_BURST) {
        /* Held back for a while, then all at once. */
        while (b->next_send <= horizon) {
            b->burst_owed += period;
            b->next_send += interval;
        }
        if (horizon >= b->burst_at) {
            uint32_t n = (uint32_t)(b->burst_owed / period + 0.5);
            for (uint32_t i = 0; i < n; i++)
                if (send_player(o, mi, b, t, period) != 0)
                    return -1;
            b->burst_owed = 0;
            b->burst_at += ns_of(BURST_PERIOD);
        }
        if (b->burst_at < *wake)
            *wake = b->burst_at;
        return 0;
    }
    uint64_t every = b->mode == MODE_FLOOD ? (uint64_t)(interval / FLOOD_FACTOR) : interval;
    double dt = b->mode == MODE_DILATE ? period * DILATE_FACTOR : period;
    /* After a stall (this process starved of CPU) the moves catch up,
     * asking the time that passed, but no more than half the time bank:
     * as a game drops the frames of a hitch, an honest client never asks
     * the server for time it cannot have. */
    uint64_t catch_up = (uint64_t)(0.5 * b->time_bank * 1e9);
    if (catch_up < interval)
        catch_up = interval;
    if (now > b->next_send + catch_up) {
        /* The moves of the time dropped are never sent: counted, so that a
         * report of few moves says why (stalled_s). */
        t->m[b->mode].stalled += (double)(now - catch_up - b->next_send) / 1e9;
        b->next_send = now - catch_up;
    }
    while (b->next_send <= horizon) {
        if (send_player(o, mi, b, t, dt) != 0)
            return -1;
        b->next_send += every;
    }
    if (b->next_send < *wake)
        *wake = b->next_send;
    return 0;
}

/* Accounts one answer of a player bot. */
static void take_result(const options *o, const map_info *mi, bot *b, totals *t, const sweep_msg_move_result *r,
                        uint64_t now)
{
    (void)o;
    mode_totals *mt = &t->m[b->mode];
    mt->answered++;
    if (r->corrected) {
        mt->corrections++;
        if (r->correction > mt->max_correction)
            mt->max_correction = r->correction;
    }
    if (r->rules) {
        mt->rule_moves++;
        for (unsigned i = 0; i < 32; i++)
            if (r->rules & (1u << i))
                mt->rules[i]++;
    }
    if (b->predicting) {
        sweep_predict_ack a;
        sweep_predictor_ack(b->pred, r, &a, NULL);
        mt->mismatches += a.found && a.mismatch;
        /* An answer that gives up earlier moves (none of them answered) may
         * follow a move the server never got: all its copies were lost on
         * the way, or dropped by a socket buffer that overflowed on a
         * loaded machine. The server then started this move from elsewhere
         * than predicted; the difference is the network's, not a desync. */
        mt->mismatches_after_loss += a.found && a.mismatch && a.dropped > 0;
    }
    double asked = b->asked_seq[r->sequence % ASKED_RING] == r->sequence ? b->asked_dt[r->sequence % ASKED_RING] : 0;
    const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
    double granted = w->has_roles ? r->applied_dt : asked; /* an older server grants what is asked */
    if (t->measuring) {
        mt->dt_asked += asked;
        mt->dt_granted += granted;
    }
    double height;
    along(sweep_v3_sub(r->position, b->origin), mi->up, &height);
    if (height > mt->max_height)
        mt->max_height = height;
    double reach = across_len(sweep_v3_sub(r->position, b->origin), mi->up);
    if (reach > mt->reach)
        mt->reach = reach;
    if (r->sequence <= b->last_seq)
        return; /* an older answer that came late: the path has moved on */
    /* The fastest 0.25 s is measured on the server's clock, the tick the
     * move was applied at: answers received together (this process or the
     * network held them up) were not walked together. A server without a
     * tick rate leaves the receiving time. */
    if (w->tick_rate > 0)
        now = (uint64_t)((double)r->server_tick * 1e9 / w->tick_rate + 0.5);
    if (t->measuring)
        mt->distance += across_len(sweep_v3_sub(r->position, b->last_pos), mi->up);
    b->last_seq = r->sequence;
    b->last_pos = r->position;
    /* The fastest 0.25 s: from the oldest answer kept within the window. */
    uint32_t k = b->track_n % TRACK_RING;
    b->track_t[k] = now;
    b->track_p[k] = r->position;
    b->track_n++;
    uint32_t kept = b->track_n < TRACK_RING ? b->track_n : TRACK_RING;
    for (uint32_t i = kept; i-- > 1;) {
        uint32_t j = (b->track_n - 1 - i) % TRACK_RING;
        if (now - b->track_t[j] <= PEAK_WINDOW_NS) {
            double d = across_len(sweep_v3_sub(r->position, b->track_p[j]), mi->up);
            if (t->measuring && d > mt->peak)
                mt->peak = d;
            break;
        }
    }
}

/* --- connecting and spawning ------------------------------------------------------------ */

/* A token of role server for `identity`, signed with a key nobody else has:
 * what a cheater who knows the format but not the secret can make. */
static void forged_token(char *out, size_t cap, uint32_t index)
{
    uint8_t key[32];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(0xA5 ^ (i * 7) ^ index);
    char id[32];
    snprintf(id, sizeof id, "eve-%u", index);
    if (sweep_token_make(key, sizeof key, SWEEP_WIRE_ROLE_SERVER, id, (uint64_t)time(NULL) + 3600, out, cap) !=
        SWEEP_TOKEN_OK)
        snprintf(out, cap, "sweep1:server:%s:4000000000:%064d", id, 0);
}

static int connect_bot(const options *o, const char *address, const uint8_t *secret, size_t secret_len, bot *b,
                       totals *t)
{
    sweep_client_options co;
    sweep_client_options_init(&co);
    co.transport = o->udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    co.address = address;
    co.client_name = "sweep-bots";
    co.world = o->world;
    co.timeout_ms = 10000;
    co.auth_token = o->token;
    /* Through the bad-network relay (netem.c), which forwards to the one
     * port it was given: the session's own port would bypass it. */
    co.udp_keep_port = address != o->connect;
    char token[SWEEP_TOKEN_MAX + 1];
    sweep_client_error e;
    if (b->mode == MODE_FORGE) {
        forged_token(token, sizeof token, b->index);
        co.auth_token = token;
        sweep_client_status s = sweep_client_connect(&co, &b->c, &e);
        if (s == SWEEP_CLIENT_OK) {
            /* Taken (a server without roles takes any token): go on as it is. */
            const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
            t->m[b->mode].role_server += w->has_roles && w->role == SWEEP_WIRE_ROLE_SERVER;
            t->m[b->mode].roles_seen |= w->has_roles;
            return 0;
        }
        if (s != SWEEP_CLIENT_E_SERVER) {
            fprintf(stderr, "sweep-bots: bot %u: connect: %s: %s\n", b->index, sweep_client_error_name(&e), e.message);
            return -1;
        }
        t->m[b->mode].refused_hellos++;
        count_error(&t->m[b->mode], e.code);
        co.auth_token = o->token;
    }
    if (secret) {
        char id[32];
        snprintf(id, sizeof id, "bot-%u", b->index);
        if (sweep_token_make(secret, secret_len, SWEEP_WIRE_ROLE_PLAYER, id, (uint64_t)time(NULL) + 86400, token,
                             sizeof token) != SWEEP_TOKEN_OK) {
            fprintf(stderr, "sweep-bots: cannot mint a token with --secret-file\n");
            return -1;
        }
        co.auth_token = token;
    }
    if (sweep_client_connect(&co, &b->c, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: bot %u: connect: %s: %s\n", b->index, sweep_client_error_name(&e), e.message);
        return -1;
    }
    const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
    t->m[b->mode].role_server += w->has_roles && w->role == SWEEP_WIRE_ROLE_SERVER;
    t->m[b->mode].roles_seen |= w->has_roles;
    return 0;
}

/* Spawns (or respawns) a player bot as its mode asks. */
/* A load bot's entity: a player goes where the map says (spawn point
 * `point`, 0 for the server's pick; asking a place would only be named),
 * the server role where the options say. */
static sweep_client_status spawn_load(bot *b, uint32_t point, sweep_vec3 at, sweep_vec3 radii, sweep_msg_spawned *sp,
                                      sweep_client_error *e)
{
    const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
    if (w->has_roles && w->role == SWEEP_WIRE_ROLE_PLAYER)
        return sweep_client_spawn_player(b->c, point, sp, e);
    return sweep_client_spawn(b->c, at, radii, sp, e);
}

static int spawn_player(const options *o, const map_info *mi, bot *b, totals *t)
{
    const sweep_level *lv = &mi->lv;
    mode_totals *mt = &t->m[b->mode];
    /* The server picks the spawn point (the next free one: with players
     * blocking, an occupied one is skipped); a server older than roles
     * would put a spawn point 0 at the origin, so it is given one in turn. */
    uint32_t point = 0;
    if (!sweep_client_get_welcome(b->c)->has_roles && lv->spawn_count)
        point = b->index % lv->spawn_count + 1;
    sweep_msg_spawned sp;
    sweep_client_error e;
    sweep_client_status s;
    sweep_vec3 asked_pos = point ? lv->spawns[point - 1] : sweep_v3(0, 0, 0), asked_radii = lv->default_radii;
    if (b->mode == MODE_SPAWN_ANYWHERE) {
        asked_pos = o->has_target ? o->target
                                  : sweep_v3_madd(lv->spawn_count ? lv->spawns[0] : sweep_v3(0, 0, 0), mi->up, 8.0);
        s = sweep_client_spawn(b->c, asked_pos, sweep_v3(0, 0, 0), &sp, &e);
    } else if (b->mode == MODE_SHRINK) {
        asked_radii = sweep_v3_scale(lv->default_radii, SHRINK_FACTOR);
        s = point ? sweep_client_spawn_at_point(b->c, point, asked_radii, &sp, &e)
                  : sweep_client_spawn(b->c, sweep_v3(0, 0, 0), asked_radii, &sp, &e);
    } else {
        s = sweep_client_spawn_player(b->c, point, &sp, &e);
    }
    if (s != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: bot %u (%s): spawn: %s: %s\n", b->index, mode_names[b->mode],
                sweep_client_error_name(&e), e.message);
        return -1;
    }
    for (unsigned i = 0; i < 32; i++)
        if (sp.rules & (1u << i))
            mt->spawn_rules[i]++;
    double off = sweep_v3_len(sweep_v3_sub(sp.position, asked_pos));
    if (b->mode == MODE_SPAWN_ANYWHERE && off > mt->spawn_offset)
        mt->spawn_offset = off;
    /* Volume got against the map's player: below 1, a smaller target. */
    sweep_vec3 r0 = lv->default_radii;
    double ratio = (sp.radii.x * sp.radii.y * sp.radii.z) / (r0.x * r0.y * r0.z);
    if (mt->radii_ratio == 0 || ratio < mt->radii_ratio)
        mt->radii_ratio = ratio;
    (void)asked_radii;
    b->entity = sp.entity;
    b->spawn = sp.position;
    b->origin = sp.spawn_point && sp.spawn_point <= lv->spawn_count ? lv->spawns[sp.spawn_point - 1]
                : point                                              ? lv->spawns[point - 1]
                                                                     : sp.position;
    b->radii = sp.radii;
    b->last_pos = sp.position;
    b->last_seq = 0;
    b->track_n = 0;
    b->grounded_run = 0;
    sweep_predictor_destroy(b->pred);
    b->pred = NULL;
    b->predicting = 0;
    if (b->mode == MODE_HONEST) {
        if (sweep_predictor_create(mi->world, &lv->config, &lv->rules, sp.position, sp.radii, &b->pred, &e) !=
            SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: prediction: %s\n", b->index, e.message);
            return -1;
        }
        b->predicting = 1;
    }
    return 0;
}

/* --- report -------------------------------------------------------------------------- */

/* "Name:count,..." of the non-zero counts, or "none". */
static void print_counts(const char *key, const uint64_t *v, unsigned n, const char *(*name)(unsigned))
{
    printf(" %s=", key);
    int any = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!v[i])
            continue;
        printf("%s%s:%" PRIu64, any ? "," : "", name(i), v[i]);
        any = 1;
    }
    if (!any)
        printf("none");
}

static const char *rule_name(unsigned bit)
{
    static char buf[16];
    const char *n = sweep_wire_rule_name(bit);
    if (strcmp(n, "Unknown") != 0)
        return n;
    snprintf(buf, sizeof buf, "Bit%u", bit);
    return buf;
}

static const char *code_name(unsigned code)
{
    return code < SWEEP_WIRE_CODE_COUNT ? sweep_wire_code_name((sweep_wire_code)code) : "Newer";
}

typedef struct figures {
    double distance_per_s, peak_speed, dt_asked_per_s, dt_granted_per_s, granted_ratio;
} figures;

static figures figures_of(const mode_totals *mt, double duration)
{
    figures f = {0};
    double bot_s = mt->bots * duration;
    if (bot_s > 0) {
        f.distance_per_s = mt->distance / bot_s;
        f.dt_asked_per_s = mt->dt_asked / bot_s;
        f.dt_granted_per_s = mt->dt_granted / bot_s;
    }
    f.peak_speed = mt->peak / (PEAK_WINDOW_NS / 1e9);
    f.granted_ratio = mt->dt_asked > 0 ? mt->dt_granted / mt->dt_asked : 0;
    return f;
}

static void print_mode(const options *o, int mode, const mode_totals *mt)
{
    figures f = figures_of(mt, o->duration);
    printf("mode=%s bots=%u transport=%s moves=%" PRIu64 " answered=%" PRIu64 " errors=%" PRIu64, mode_names[mode],
           mt->bots, o->udp ? "udp" : "tcp", mt->sent, mt->answered, mt->errors);
    print_counts("error_codes", mt->error_codes, SWEEP_WIRE_CODE_COUNT + 1, code_name);
    printf(" corrections=%" PRIu64 " max_correction=%.3f rule_moves=%" PRIu64, mt->corrections, mt->max_correction,
           mt->rule_moves);
    print_counts("rules", mt->rules, 32, rule_name);
    print_counts("spawn_rules", mt->spawn_rules, 32, rule_name);
    print_counts("stats_rules", mt->stats_rules, 32, rule_name);
    printf(" distance_per_s=%.3f peak_speed=%.3f max_height=%.3f reach=%.3f dt_asked_per_s=%.3f "
           "dt_granted_per_s=%.3f granted_ratio=%.3f spawn_offset=%.3f radii_ratio=%.4f role=%s mismatches=%" PRIu64
           " mismatches_after_loss=%" PRIu64 " lost=%" PRIu64 " stalled_s=%.3f\n",
           f.distance_per_s, f.peak_speed, mt->max_height, mt->reach, f.dt_asked_per_s, f.dt_granted_per_s,
           f.granted_ratio, mt->spawn_offset, mt->radii_ratio,
           !mt->roles_seen ? "none" : mt->role_server ? "Server" : "Player", mt->mismatches,
           mt->mismatches_after_loss, mt->lost, mt->stalled);
}

static void print_advantage(const options *o, int mode, const mode_totals *mt, const mode_totals *honest)
{
    figures f = figures_of(mt, o->duration), h = figures_of(honest, o->duration);
    printf("advantage mode=%s distance=%.2fx peak_speed=%.2fx height=%.2fx reach=%.2fx granted_per_s=%.2fx\n",
           mode_names[mode], h.distance_per_s > 0 ? f.distance_per_s / h.distance_per_s : 0,
           h.peak_speed > 0 ? f.peak_speed / h.peak_speed : 0,
           honest->max_height > 0 ? mt->max_height / honest->max_height : 0,
           honest->reach > 0 ? mt->reach / honest->reach : 0,
           h.dt_granted_per_s > 0 ? f.dt_granted_per_s / h.dt_granted_per_s : 0);
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
        if (connect_bot(&o, net ? sweep_netem_address(net, i) : o.connect, o.secret_file ? secret : NULL, secret_len,
                        b, &t) != 0)
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
            if (spawn_player(&o, &mi, b, &t) != 0)
                goto out;
        } else {
            sweep_msg_spawned sp;
            sweep_client_status s = spawn_load(b, mi.loaded && mi.lv.spawn_count ? i % nspawns + 1 : 0,
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

    /* The bad network is for the run, not for connecting hundreds of bots
     * one after another. */
    sweep_netem_impair(net, 1);
    int show_progress = o.progress || isatty(2);
    uint64_t start = sweep_client_now_ns();
    uint64_t measure_at = start + (uint64_t)(o.warmup * 1e9);
    uint64_t end = measure_at + (uint64_t)(o.duration * 1e9);
    uint64_t interval = o.rate > 0 ? (uint64_t)(1e9 * o.batch / o.rate) : 0;
    uint64_t next_progress = start + 500000000u, last_results = 0, last_progress = start;
    for (uint32_t i = 0; i < o.clients; i++) {
        bots[i].next_send = start + (interval ? interval * i / o.clients : 0);
        bots[i].burst_at = start + ns_of(BURST_PERIOD / 2) + (interval ? interval * i / o.clients : 0);
        /* A burst bot counts its moves from next_send too, so it starts there. */
        sched_add(&sched, i, o.players || interval ? bots[i].next_send : 0);
    }
    struct epoll_event evs[512];
    int have_pwait2 = 1;
    int failed = 0;
    /* Players: after the run, up to 3 s for the last answers (a loaded
     * machine may have left some on their way), less when all came. */
    uint64_t stop_sending = end, stop = o.players ? end + 3000000000u : end;
    for (;;) {
        uint64_t now = sweep_client_now_ns();
        if (!t.measuring && now >= measure_at)
            t.measuring = 1;
        if (t.measuring && now >= end)
            t.measuring = 0;
        if (now >= stop)
            break;
        if (o.players && now >= stop_sending) {
            uint64_t outstanding = 0;
            for (int m = 0; m < MODE_COUNT; m++)
                if (t.m[m].sent > t.m[m].answered + t.m[m].errors - t.m[m].refused_hellos)
                    outstanding += t.m[m].sent - t.m[m].answered - (t.m[m].errors - t.m[m].refused_hellos);
            if (outstanding == 0)
                break;
        }
        /* Send what is due: only the bots at the top of the schedule, and
         * with them those due within SEND_SLACK_NS, so that thousands of
         * bots spread over a period cost a few thousand wakes a second,
         * not one each. */
        uint64_t wake = stop;
        if (now < stop_sending) {
            uint64_t horizon = now + SEND_SLACK_NS;
            while (sched_top(&sched)->due <= horizon) {
                uint32_t i = sched_top(&sched)->bot;
                uint64_t due = UINT64_MAX;
                if (o.players ? pace_player(&o, &mi, &bots[i], &t, now, horizon, &due)
                              : pace_load(&o, &bots[i], &t, horizon, interval, window, &due)) {
                    failed = 1;
                    break;
                }
                sched_set(&sched, i, due);
            }
            if (sched_top(&sched)->due < wake)
                wake = sched_top(&sched)->due;
        }
        if (failed)
            goto out;
        /* Until the next send is due, to the nanosecond: a millisecond
         * timeout would spin through the last millisecond before each. */
        uint64_t wait = wake > now ? wake - now : 0;
        if (wait > 100000000u)
            wait = 100000000u;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)wait};
        int nev = -1;
        if (have_pwait2) {
            nev = epoll_pwait2(epfd, evs, (int)(sizeof evs / sizeof evs[0]), &ts, NULL);
            if (nev < 0 && errno == ENOSYS)
                have_pwait2 = 0; /* a kernel before 5.11 */
        }
        if (!have_pwait2) /* whole milliseconds, rounded up: late by less than one rather than spinning */
            nev = epoll_wait(epfd, evs, (int)(sizeof evs / sizeof evs[0]), (int)((wait + 999999) / 1000000));
        if (nev < 0 && errno != EINTR) {
            perror("sweep-bots: epoll_wait");
            goto out;
        }
        for (int k = 0; k < nev; k++) {
            uint32_t i = evs[k].data.u32;
            bot *b = &bots[i];
            mode_totals *mt = &t.m[b->mode];
            sweep_client_event ev;
            sweep_client_error e;
            sweep_client_status s;
            /* One read of the socket (all it holds), then only what that
             * read queued: no second system call to find it empty. */
            for (s = sweep_client_poll(b->c, 0, &ev, &e); s == SWEEP_CLIENT_OK;
                 s = sweep_client_pending(b->c) ? sweep_client_poll(b->c, 0, &ev, &e) : SWEEP_CLIENT_E_TIMEOUT) {
                if (ev.kind == SWEEP_CLIENT_EV_MOVE_RESULT) {
                    if (o.players)
                        take_result(&o, &mi, b, &t, &ev.as.move_result, ev.received_ns);
                    else
                        settle(b, &t, ev.as.move_result.sequence, ev.received_ns, 1);
                } else if (ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
                    if (t.measuring) {
                        t.world_states++;
                        t.world_movers += ev.as.world_state.count;
                    }
                } else if (ev.kind == SWEEP_CLIENT_EV_DESPAWNED && ev.sequence == 0 &&
                           ev.as.despawned.entity == b->entity) {
                    /* A mover crushed the bot's player: a new one carries on. */
                    t.crushed++;
                    b->crushed_entity = b->entity;
                    if (o.players) {
                        if (spawn_player(&o, &mi, b, &t) != 0)
                            goto out;
                    } else {
                        sweep_msg_spawned sp;
                        sweep_client_status st = spawn_load(b, 0, b->spawn, b->radii, &sp, &e);
                        if (st != SWEEP_CLIENT_OK) {
                            fprintf(stderr, "sweep-bots: bot %u: respawn after a crush: %s: %s\n", i,
                                    sweep_client_error_name(&e), e.message);
                            goto out;
                        }
                        b->entity = sp.entity;
                    }
                } else if (ev.kind == SWEEP_CLIENT_EV_ERROR && ev.as.error.code == SWEEP_WIRE_UNKNOWN_ENTITY &&
                           ev.as.error.entity != 0 && ev.as.error.entity == b->crushed_entity) {
                    /* A move that was on its way when the player was crushed. */
                    settle(b, &t, ev.as.error.sequence ? ev.as.error.sequence : ev.sequence, ev.received_ns, 0);
                } else if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
                    if (o.players) {
                        count_error(mt, ev.as.error.code);
                        if (b->predicting)
                            sweep_predictor_reject(b->pred, ev.as.error.sequence, NULL, NULL);
                        if (b->mode == MODE_HONEST && mt->errors <= 5)
                            fprintf(stderr, "sweep-bots: honest bot %u: server error %s: %s (sequence %u)\n", i,
                                    sweep_client_error_name(&ev.as.error), ev.as.error.message, ev.as.error.sequence);
                        continue;
                    }
                    if (t.errors++ < 5)
                        fprintf(stderr, "sweep-bots: bot %u: server error %s: %s (sequence %u)\n", i,
                                sweep_client_error_name(&ev.as.error), ev.as.error.message, ev.as.error.sequence);
                    settle(b, &t, ev.as.error.sequence ? ev.as.error.sequence : ev.sequence, ev.received_ns, 0);
                } else if (ev.kind == SWEEP_CLIENT_EV_BYE) {
                    fprintf(stderr, "sweep-bots: bot %u: the server said goodbye: %s\n", i, ev.as.error.message);
                    goto out;
                }
            }
            if (s != SWEEP_CLIENT_E_TIMEOUT) {
                fprintf(stderr, "sweep-bots: bot %u: %s: %s\n", i, sweep_client_error_name(&e), e.message);
                goto out;
            }
            if (!o.players) {
                /* Answers made room in a full window: it may send again sooner. */
                uint64_t due = load_due(b, interval, window);
                if (due < sched_due(&sched, i))
                    sched_set(&sched, i, due);
            }
        }
        if (show_progress && now >= next_progress) {
            double secs = (double)(now - last_progress) / 1e9;
            uint64_t answered = t.results;
            for (int m = 0; m < MODE_COUNT; m++)
                answered += t.m[m].answered;
            fprintf(stderr, "\r[%6.1fs] %s clients=%u moves=%" PRIu64 " rate=%.0f/s errors=%" PRIu64 "   ",
                    (double)(now - start) / 1e9, now < measure_at ? "warmup   " : now < end ? "measuring" : "draining ",
                    o.clients, answered, (double)(answered - last_results) / secs, t.errors);
            last_results = answered;
            last_progress = now;
            next_progress = now + 500000000u;
        }
    }
    if (show_progress)
        fprintf(stderr, "\n");

    sweep_netem_impair(net, 0);
    if (o.players) {
        /* Moves that came due before the end but found the loop only after
         * it (this process stalled across the end) were never sent either. */
        for (uint32_t i = 0; i < o.clients; i++)
            if (bots[i].mode != MODE_BURST && bots[i].next_send < stop_sending)
                t.m[bots[i].mode].stalled += (double)(stop_sending - bots[i].next_send) / 1e9;
        /* The server's own counts of the rules, per session, then the report. */
        uint64_t total_rules[32] = {0};
        uint32_t total_count = 0;
        for (uint32_t i = 0; i < o.clients; i++) {
            bot *b = &bots[i];
            mode_totals *mt = &t.m[b->mode];
            if (!sweep_client_get_welcome(b->c)->has_roles)
                continue; /* an older server has no rule counts */
            sweep_msg_stats st;
            sweep_client_error e;
            if (sweep_client_get_stats(b->c, &st, &e) != SWEEP_CLIENT_OK) {
                fprintf(stderr, "sweep-bots: bot %u: stats: %s: %s\n", i, sweep_client_error_name(&e), e.message);
                continue;
            }
            for (uint32_t k = 0; k < st.session_rules_count && k < 32; k++)
                mt->stats_rules[k] += st.session_rules[k];
            for (uint32_t k = 0; k < st.rules_total_count && k < 32; k++)
                total_rules[k] = st.rules_total[k];
            if (st.rules_total_count > total_count)
                total_count = st.rules_total_count;
        }
        for (int m = 0; m < MODE_COUNT; m++) {
            /* Moves neither answered nor refused: lost on the way (or given up by the server). */
            mode_totals *mt = &t.m[m];
            uint64_t refused = mt->errors - mt->refused_hellos;
            mt->lost = mt->sent > mt->answered + refused ? mt->sent - mt->answered - refused : 0;
        }
        int honest_bad = 0, answered = 0;
        for (uint32_t k = 0; k < o.nmodes; k++) {
            int m = o.modes[k];
            int seen = 0;
            for (uint32_t j = 0; j < k; j++)
                seen |= o.modes[j] == m;
            if (seen || t.m[m].bots == 0)
                continue;
            print_mode(&o, m, &t.m[m]);
            answered |= t.m[m].answered > 0;
        }
        const mode_totals *h = &t.m[MODE_HONEST];
        if (h->bots) {
            for (uint32_t k = 0; k < o.nmodes; k++) {
                int m = o.modes[k];
                int seen = 0;
                for (uint32_t j = 0; j < k; j++)
                    seen |= o.modes[j] == m;
                if (!seen && m != MODE_HONEST && t.m[m].bots)
                    print_advantage(&o, m, &t.m[m], h);
            }
            uint64_t honest_rules = 0;
            for (unsigned k = 0; k < 32; k++)
                honest_rules += h->rules[k] + h->spawn_rules[k] + h->stats_rules[k];
            honest_bad = h->errors || h->corrections || h->rule_moves || honest_rules;
        }
        if (total_count) {
            printf("server rules_total=");
            int any = 0;
            for (uint32_t k = 0; k < total_count; k++)
                if (total_rules[k]) {
                    printf("%s%s:%" PRIu64, any ? "," : "", rule_name(k), total_rules[k]);
                    any = 1;
                }
            printf("%s\n", any ? "" : "none");
        }
        if (net) {
            sweep_netem_counters nc;
            sweep_netem_stop(net, &nc);
            net = NULL;
            printf("network to_server=%" PRIu64 " dropped=%" PRIu64 " reordered=%" PRIu64 " to_clients=%" PRIu64
                   " dropped=%" PRIu64 " reordered=%" PRIu64 " overflow=%" PRIu64 " failed=%" PRIu64 "\n",
                   nc.received[0], nc.dropped[0], nc.reordered[0], nc.received[1], nc.dropped[1], nc.reordered[1],
                   nc.overflow[0] + nc.overflow[1], nc.failed[0] + nc.failed[1]);
        }
        rc = answered && !honest_bad ? 0 : 1;
        if (!answered)
            fprintf(stderr, "sweep-bots: no move was answered\n");
        else if (honest_bad)
            fprintf(stderr, "sweep-bots: honest bots saw errors, corrections or rules\n");
        goto out;
    }

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
