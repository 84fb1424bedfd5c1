/*
 * relay_server.c - an example game server on libsweep: it relays its
 * players' moves to sweepd, as a game whose own server owns the players'
 * connections does (the server role: sweepd --command-token, or a server
 * token). Not installed; built into $(BUILD)/examples/relay_server.
 *
 * What it shows, in the order a game server does it:
 *   1. connecting without blocking its loop: sweep_client_connect_start,
 *      then sweep_client_poll_events and sweep_client_connect_step from its
 *      own poll(2), within a deadline of its own;
 *   2. spawning all its players at once: sweep_client_send_spawn for each,
 *      then one wait in which the Spawned answers (or Errors) come back
 *      through sweep_client_poll, matched by sequence;
 *   3. relaying every player's move of a tick in one sweep_client_send_batch,
 *      which cuts it into MoveBatches of Welcome.max_batch moves, at --rate
 *      ticks a second, and taking the answers as they come, one per move;
 *      each batch leaves a fixed time after sweepd's tick
 *      (sweep_client_next_tick_ns), so that it never waits behind the
 *      tick: sweepd runs a due tick before the requests that find it due;
 *   4. with --map, predicting each player with the same core and rules as
 *      sweepd (predict.h, one predictor per player) and claiming the
 *      prediction, so that a correction would show a desync;
 *   5. with --watch, observing every entity of its world as sweepd pushes
 *      them (sweep_client_watch_entities), as a game server does to send
 *      its players what they see.
 * The players here are simulated: each walks a small square around its
 * spawn point. A real game server would take the wishes from its players'
 * input instead, and send the answers back to them.
 *
 * It also measures what a game server feels: each tick's round trip, from
 * the send of its batch to the arrival of its last answer (the kernel's
 * arrival time, sweep_client_event.received_ns), and with --watch the bytes
 * of the pushes a tick (sweep_client_event.wire_bytes), both over the ticks
 * sent after --warmup.
 *
 * At the end one line of key=value pairs sums it up: entities, ticks, moves
 * sent and answered, errors, corrections, moves whose answer named a rule,
 * (with --map) predictions that differed, the ticks' round trips and (with
 * --watch) the pushes. The exit
 * status is 0 when every move was answered and nothing was refused, 1
 * otherwise, 2 for a bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "maps/loader.h"

#define USAGE                                                                                                   \
    "usage: relay_server --connect HOST:PORT [--token TOKEN] [options]\n"                                       \
    "\n"                                                                                                        \
    "An example game server: spawns --entities players in sweepd's world as the\n"                              \
    "server role and relays a move of each, every tick, in batches.\n"                                          \
    "\n"                                                                                                        \
    "  --connect HOST:PORT  sweepd's address\n"                                                                 \
    "  --token TOKEN        the server's --command-token (or a server token);\n"                                \
    "                       SWEEP_TOKEN is read when it is not given\n"                                         \
    "  --udp                UDP instead of TCP\n"                                                               \
    "  --udp-max-datagram N with --udp, ask for datagrams of up to N bytes (1200 to\n"                       \
    "                       65507; sweepd agrees up to its --udp-max-datagram):\n"                           \
    "                       fewer, larger datagrams a tick (default 1200)\n"                                   \
    "  --entities N         players to relay (default 100)\n"                                                   \
    "  --duration S         seconds of moves (default 3)\n"                                                     \
    "  --rate HZ            ticks a second, a move per player each (default 60)\n"                              \
    "  --map FILE           the server's map: players spawn at its spawn points in\n"                           \
    "                       turn, and each move is predicted and claimed\n"                                     \
    "  --watch N            observe every entity of the world, pushed every N-th\n"                             \
    "                       tick of sweepd's, and count the bytes of the pushes\n"                              \
    "  --align-us N         send each tick's batch N microseconds after the\n"                                  \
    "                       earliest a message of sweepd's tick can arrive\n"                                   \
    "                       (libsweep's estimate, sweep_client_next_tick_ns), so\n"                             \
    "                       that its moves do not wait behind the tick and its\n"                               \
    "                       pushes; -1: at the relay's own pace from its start;\n"                             \
    "                       only when --rate is at most sweepd's tick rate\n"                                   \
    "                       (default 2000)\n"                                                                   \
    "  --warmup S           seconds of moves at the start left out of the round\n"                              \
    "                       trips and the pushes counted (default 0)\n"                                         \
    "  --timeout-ms MS      for connecting, and for each answer at the end (5000)\n"                            \
    "  --help               this text\n"

typedef struct options {
    const char *connect, *token, *map;
    int udp;
    uint32_t entities, watch, udp_max_datagram;
    double duration, rate, warmup;
    long align_us; /* -1: no alignment to sweepd's ticks */
    int timeout_ms;
} options;

/* One tick sent: its moves are numbered first_seq .. last_seq (a batch
 * cut into MoveBatches takes a number for each between its moves). */
typedef struct tick_sent {
    uint64_t sent_ns, last_ns; /* its batch's send; its latest answer's arrival */
    uint32_t first_seq, last_seq;
    uint32_t moves, answered;
    int measured; /* sent after --warmup */
} tick_sent;

/* Ticks whose answers may still come: more than this many behind, a tick
 * is given up (counted in unfinished_ticks), so this is 17 s at 60 Hz. */
#define TICKS_KEPT 1024u

/* One relayed player. */
typedef struct player {
    uint32_t spawn_sequence; /* its Spawn's number, until answered */
    uint32_t entity;         /* 0 until spawned */
    sweep_predictor *pred;   /* with --map */
} player;

typedef struct relay {
    options o;
    sweep_client *c;
    sweep_level lv;
    sweep_world *world;
    int have_map;
    player *players;
    uint32_t nplayers, spawned, spawn_errors;
    /* entity -> index in players, open addressing (entity ids are random, never 0) */
    uint32_t *slot_entity, *slot_index, slots;
    uint64_t ticks, sent, answered, errors, corrections, ruled, mismatches;
    /* Round trips: ticks [oldest, ticks) unfinished, in ring[t % TICKS_KEPT]. */
    tick_sent ring[TICKS_KEPT];
    uint64_t oldest, unfinished;
    uint64_t measure_from_ns; /* sends from then on are measured (--warmup); UINT64_MAX before */
    uint64_t *rtt_ns;         /* round trips of the finished measured ticks */
    size_t nrtt, rtt_cap;
    /* The pushes of --watch that arrived from measure_from_ns on. */
    uint64_t watch_tick, watch_ticks, watch_bytes, watch_states;
    int watch_seen, watch_counting; /* watch_tick is one; it began after measure_from_ns */
} relay;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.entities = 100, .duration = 3, .rate = 60, .timeout_ms = 5000, .align_us = 2000};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "--help") == 0) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (strcmp(a, "--udp") == 0) {
            o->udp = 1;
            continue;
        }
        static const char *const valued[] = {"--connect", "--token",  "--map",    "--entities",  "--duration",
                                             "--rate",    "--watch",  "--warmup", "--timeout-ms",
                                             "--udp-max-datagram", "--align-us"};
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            known |= strcmp(a, valued[k]) == 0;
        if (!known || v == NULL) {
            fprintf(stderr, "relay_server: %s %s\n%s", a, known ? "needs a value" : "is not an option", USAGE);
            return -1;
        }
        i++;
        if (strcmp(a, "--connect") == 0)
            o->connect = v;
        else if (strcmp(a, "--token") == 0)
            o->token = v;
        else if (strcmp(a, "--map") == 0)
            o->map = v;
        else if (strcmp(a, "--entities") == 0) {
            unsigned long n = strtoul(v, &end, 10);
            if (*end || n < 1 || n > 100000)
                goto bad;
            o->entities = (uint32_t)n;
        } else if (strcmp(a, "--duration") == 0) {
            o->duration = strtod(v, &end);
            if (*end || !(o->duration > 0 && o->duration <= 86400))
                goto bad;
        } else if (strcmp(a, "--rate") == 0) {
            o->rate = strtod(v, &end);
            if (*end || !(o->rate >= 1 && o->rate <= 1000))
                goto bad;
        } else if (strcmp(a, "--watch") == 0) {
            unsigned long n = strtoul(v, &end, 10);
            if (*end || n < 1 || n > 1000000)
                goto bad;
            o->watch = (uint32_t)n;
        } else if (strcmp(a, "--warmup") == 0) {
            o->warmup = strtod(v, &end);
            if (*end || !(o->warmup >= 0 && o->warmup <= 86400))
                goto bad;
        } else if (strcmp(a, "--udp-max-datagram") == 0) {
            unsigned long n = strtoul(v, &end, 10);
            /* libsweep names the range when it refuses one (connect). */
            if (*end || *v == '-' || n > UINT32_MAX)
                goto bad;
            o->udp_max_datagram = (uint32_t)n;
        } else if (strcmp(a, "--align-us") == 0) {
            long us = strtol(v, &end, 10);
            if (*end || us < -1 || us > 1000000)
                goto bad;
            o->align_us = us;
        } else if (strcmp(a, "--timeout-ms") == 0) {
            long ms = strtol(v, &end, 10);
            if (*end || ms < 1 || ms > 3600000)
                goto bad;
            o->timeout_ms = (int)ms;
        }
        continue;
    bad:
        fprintf(stderr, "relay_server: bad value for %s: '%s'\n", a, v);
        return -1;
    }
    if (o->token == NULL)
        o->token = getenv("SWEEP_TOKEN");
    if (o->connect == NULL) {
        fprintf(stderr, "relay_server: --connect is required\n%s", USAGE);
        return -1;
    }
    if (o->warmup >= o->duration) {
        fprintf(stderr, "relay_server: --warmup %g leaves nothing of --duration %g to measure\n", o->warmup,
                o->duration);
        return -1;
    }
    return 0;
}

static uint64_t ms_to_ns(int ms)
{
    return (uint64_t)ms * 1000000u;
}

/* --- entity ids to players ------------------------------------------------------ */

static int index_init(relay *r)
{
    r->slots = 16;
    while (r->slots < 2 * r->nplayers)
        r->slots *= 2;
    r->slot_entity = calloc(r->slots, sizeof *r->slot_entity);
    r->slot_index = calloc(r->slots, sizeof *r->slot_index);
    return r->slot_entity && r->slot_index ? 0 : -1;
}

static void index_put(relay *r, uint32_t entity, uint32_t i)
{
    uint32_t k = (entity * 2654435761u) & (r->slots - 1);
    while (r->slot_entity[k] != 0)
        k = (k + 1) & (r->slots - 1);
    r->slot_entity[k] = entity;
    r->slot_index[k] = i;
}

static player *index_get(relay *r, uint32_t entity)
{
    if (entity == 0)
        return NULL;
    for (uint32_t k = (entity * 2654435761u) & (r->slots - 1); r->slot_entity[k] != 0; k = (k + 1) & (r->slots - 1))
        if (r->slot_entity[k] == entity)
            return &r->players[r->slot_index[k]];
    return NULL;
}

/* --- 1. connecting ---------------------------------------------------------------- */

/* Connects without blocking the loop: a game server would poll its players'
 * sockets beside this one. */
static int connect_relay(relay *r)
{
    sweep_client_options co;
    sweep_client_options_init(&co);
    co.transport = r->o.udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    co.address = r->o.connect;
    co.auth_token = r->o.token;
    co.client_name = "relay_server";
    co.timeout_ms = r->o.timeout_ms;
    co.udp_max_datagram = r->o.udp_max_datagram;
    sweep_client_error e;
    sweep_client_status s = sweep_client_connect_start(&co, &r->c, &e);
    if (s == SWEEP_CLIENT_OK)
        s = SWEEP_CLIENT_E_AGAIN;
    while (s == SWEEP_CLIENT_E_AGAIN && (s = sweep_client_connect_step(r->c, 0, &e)) == SWEEP_CLIENT_E_AGAIN) {
        int wait_ms;
        struct pollfd p = {.fd = sweep_client_fd(r->c), .events = (short)sweep_client_poll_events(r->c, &wait_ms)};
        if (poll(&p, 1, wait_ms) < 0 && errno != EINTR) {
            perror("relay_server: poll");
            return -1;
        }
    }
    if (s != SWEEP_CLIENT_OK) {
        fprintf(stderr, "relay_server: connecting to %s: %s: %s\n", r->o.connect, sweep_client_error_name(&e),
                e.message);
        return -1;
    }
    const sweep_client_welcome *w = sweep_client_get_welcome(r->c);
    if (w->role != SWEEP_WIRE_ROLE_SERVER) {
        fprintf(stderr, "relay_server: sweepd made this session a player (identity %s): give --token, the server's "
                        "--command-token\n",
                w->identity);
        return -1;
    }
    if (r->have_map && sweep_client_check_map(r->c, &r->lv, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "relay_server: --map: %s\n", e.message);
        return -1;
    }
    /* A tick's answers (and pushes) come at once, a datagram per
     * max_batch moves: for a thousand players more than the default
     * receive buffer (about 200 KiB) holds, and what does not fit is
     * lost. The kernel caps the size asked at net.core.rmem_max. */
    if (r->o.udp) {
        int want = 4 << 20;
        if (setsockopt(sweep_client_fd(r->c), SOL_SOCKET, SO_RCVBUF, &want, sizeof want) != 0)
            perror("relay_server: SO_RCVBUF");
    }
    return 0;
}

/* --- round trips ------------------------------------------------------------------- */

/* Records a finished tick's round trip, if measured. */
static void tick_finished(relay *r, const tick_sent *t)
{
    if (!t->measured)
        return;
    if (r->nrtt == r->rtt_cap) {
        size_t cap = r->rtt_cap ? 2 * r->rtt_cap : 1024;
        uint64_t *n = realloc(r->rtt_ns, cap * sizeof *n);
        if (n == NULL)
            return; /* the figure is short of one tick; the relay goes on */
        r->rtt_ns = n;
        r->rtt_cap = cap;
    }
    r->rtt_ns[r->nrtt++] = t->last_ns - t->sent_ns;
}

/* One answer (a result or a refusal) to the move numbered seq, arrived at
 * arrived_ns: the tick it belongs to, finished when it was the last. */
static void tick_answered(relay *r, uint32_t seq, uint64_t arrived_ns)
{
    for (uint64_t k = r->oldest; k < r->ticks; k++) {
        tick_sent *t = &r->ring[k % TICKS_KEPT];
        if (seq < t->first_seq || seq > t->last_seq || t->answered == t->moves)
            continue;
        t->answered++;
        if (arrived_ns > t->last_ns)
            t->last_ns = arrived_ns;
        if (t->answered == t->moves)
            tick_finished(r, t);
        break;
    }
    /* Answers come mostly in order: the finished ticks at the front go. */
    while (r->oldest < r->ticks && r->ring[r->oldest % TICKS_KEPT].answered == r->ring[r->oldest % TICKS_KEPT].moves)
        r->oldest++;
}

/* A push of --watch: a part of a tick's EntityStates. A tick is counted
 * when its first part came after --warmup. */
static void watch_push(relay *r, const sweep_client_event *ev)
{
    const sweep_msg_entity_states *es = &ev->as.entity_states;
    if (!r->watch_seen || es->tick != r->watch_tick) {
        r->watch_seen = 1;
        r->watch_tick = es->tick;
        r->watch_counting = ev->received_ns >= r->measure_from_ns;
        r->watch_ticks += (uint64_t)r->watch_counting;
    }
    if (r->watch_counting) {
        r->watch_bytes += ev->wire_bytes;
        r->watch_states += es->count;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The round trip that fraction q of the measured ticks' do not pass
 * (nearest rank, over rtt_ns sorted), in microseconds; 0 without any. */
static double rtt_quantile_us(const relay *r, double q)
{
    if (r->nrtt == 0)
        return 0;
    size_t rank = (size_t)(q * (double)r->nrtt + 0.999999);
    rank = rank < 1 ? 1 : rank > r->nrtt ? r->nrtt : rank;
    return (double)r->rtt_ns[rank - 1] / 1e3;
}

/* --- events ------------------------------------------------------------------------- */

/* The player whose Spawn numbered seq is unanswered, or NULL. */
static player *awaiting_spawn(relay *r, uint32_t seq)
{
    if (r->spawned + r->spawn_errors == r->nplayers)
        return NULL;
    for (uint32_t i = 0; i < r->nplayers; i++)
        if (r->players[i].spawn_sequence == seq)
            return &r->players[i];
    return NULL;
}

/* A player spawned: its entity, and with --map its predictor. */
static void on_spawned(relay *r, player *pl, const sweep_msg_spawned *sp)
{
    uint32_t i = (uint32_t)(pl - r->players);
    pl->spawn_sequence = 0;
    pl->entity = sp->entity;
    index_put(r, pl->entity, i);
    r->spawned++;
    /* An older sweepd ignores Spawn.player: its players would move unchecked. */
    if (!sp->player && r->spawn_errors++ < 5)
        fprintf(stderr, "relay_server: player %u: sweepd did not take Spawn.player (the player rules)\n", i);
    sweep_client_error e;
    if (r->have_map && sweep_predictor_create(r->world, &r->lv.config, &r->lv.rules, sp->position, sp->radii,
                                              &pl->pred, &e) != SWEEP_CLIENT_OK)
        fprintf(stderr, "relay_server: player %u: no prediction: %s\n", i, e.message);
}

/* One event from sweepd: a spawn's answer, a move's result or refusal. */
static void on_event(relay *r, const sweep_client_event *ev)
{
    player *pl;
    if (ev->kind == SWEEP_CLIENT_EV_SPAWNED) {
        if ((pl = awaiting_spawn(r, ev->sequence)) != NULL)
            on_spawned(r, pl, &ev->as.spawned);
    } else if (ev->kind == SWEEP_CLIENT_EV_ERROR && (pl = awaiting_spawn(r, ev->as.error.sequence)) != NULL) {
        /* SpawnRefused, TooManyEntities, or (status TIMEOUT) no answer in time. */
        pl->spawn_sequence = 0;
        if (r->spawn_errors++ < 5)
            fprintf(stderr, "relay_server: player %u not spawned: %s: %s\n", (unsigned)(pl - r->players),
                    sweep_client_error_name(&ev->as.error), ev->as.error.message);
    } else if (ev->kind == SWEEP_CLIENT_EV_MOVE_RESULT) {
        const sweep_msg_move_result *res = &ev->as.move_result;
        r->answered++;
        r->corrections += res->corrected != 0;
        r->ruled += res->rules != 0;
        tick_answered(r, res->sequence, ev->received_ns);
        pl = index_get(r, res->entity);
        sweep_predict_ack a;
        if (pl && pl->pred && sweep_predictor_ack(pl->pred, res, &a, NULL) == SWEEP_CLIENT_OK)
            r->mismatches += a.mismatch;
        /* A real game server sends res->position (and the rules named)
         * back to the player here. */
    } else if (ev->kind == SWEEP_CLIENT_EV_ERROR) {
        const sweep_client_error *er = &ev->as.error;
        r->errors++;
        tick_answered(r, er->sequence, ev->received_ns);
        if (r->errors <= 5)
            fprintf(stderr, "relay_server: move %u of entity %u refused: %s: %s\n", er->sequence, er->entity,
                    sweep_client_error_name(er), er->message);
        pl = index_get(r, er->entity);
        if (pl && pl->pred)
            sweep_predictor_reject(pl->pred, er->sequence, NULL, NULL);
    } else if (ev->kind == SWEEP_CLIENT_EV_ENTITY_STATES && ev->sequence == 0) {
        /* A real game server sends each player what it sees here. */
        watch_push(r, ev);
    } else if (ev->kind == SWEEP_CLIENT_EV_BYE) {
        fprintf(stderr, "relay_server: sweepd said goodbye: %s\n", ev->as.error.message);
    }
}

/* Waits for sweepd until until_ns on the monotonic clock (sooner if the
 * client wants to be called sooner), then handles what came, as a game
 * server's loop does between its ticks, the client's socket beside (here,
 * instead of) its players'. The wait is to the microsecond (ppoll): a
 * batch sent up to a millisecond late, as poll's milliseconds would have
 * it, lands anywhere in the window --align-us aims at. Returns 0, or -1
 * when the connection failed. */
static int pump_once(relay *r, uint64_t until_ns)
{
    int wait_ms;
    struct pollfd p = {.fd = sweep_client_fd(r->c), .events = (short)sweep_client_poll_events(r->c, &wait_ms)};
    uint64_t now = sweep_client_now_ns();
    uint64_t wait_ns = until_ns > now ? until_ns - now : 0;
    if (wait_ms >= 0 && (uint64_t)wait_ms * 1000000u < wait_ns)
        wait_ns = (uint64_t)wait_ms * 1000000u;
    struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000u), .tv_nsec = (long)(wait_ns % 1000000000u)};
    if (ppoll(&p, 1, &ts, NULL) < 0 && errno != EINTR) {
        perror("relay_server: poll");
        return -1;
    }
    /* One read per wake, then only what it queued, counted once: a tick's
     * answers are a thousand events, and sweep_client_pending goes over
     * the whole queue. */
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s = sweep_client_poll(r->c, 0, &ev, &e);
    if (s == SWEEP_CLIENT_OK) {
        on_event(r, &ev);
        size_t more = sweep_client_pending(r->c);
        for (; more > 0 && (s = sweep_client_poll(r->c, 0, &ev, &e)) == SWEEP_CLIENT_OK; more--)
            on_event(r, &ev);
        if (s == SWEEP_CLIENT_OK)
            s = SWEEP_CLIENT_E_TIMEOUT;
    }
    if (s != SWEEP_CLIENT_E_TIMEOUT) {
        fprintf(stderr, "relay_server: %s: %s\n", sweep_client_error_name(&e), e.message);
        return -1;
    }
    return 0;
}

/* Handles what sweepd sends until until_ns. */
static int pump(relay *r, uint64_t until_ns)
{
    do {
        if (pump_once(r, until_ns) != 0)
            return -1;
    } while (sweep_client_now_ns() < until_ns);
    return 0;
}

/* --- 2. spawning -------------------------------------------------------------------- */

static int spawn_players(relay *r)
{
    uint32_t points = r->have_map && r->lv.spawn_count ? r->lv.spawn_count : 1;
    /* Over UDP libsweep sends again only the newest unanswered Spawn (a
     * repeat of an older one would make a second entity), so a burst of a
     * thousand that overflows a socket's buffer loses spawns for good:
     * at most SPAWNS_IN_FLIGHT wait at once. TCP loses nothing. */
    enum { SPAWNS_IN_FLIGHT = 64 };
    for (uint32_t i = 0; i < r->nplayers; i++) {
        while (r->o.udp && i - (r->spawned + r->spawn_errors) >= SPAWNS_IN_FLIGHT)
            if (pump_once(r, sweep_client_now_ns() + ms_to_ns(1000)) != 0)
                return -1;
        /* The map's spawn points in turn, with the map's radii, each
         * entity a player's: held to the player rules it relays. */
        sweep_client_spawn_req sp = {.spawn_point = i % points + 1, .player = true};
        sweep_client_error e;
        if (sweep_client_send_spawn(r->c, &sp, &r->players[i].spawn_sequence, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "relay_server: spawn: %s: %s\n", sweep_client_error_name(&e), e.message);
            return -1;
        }
    }
    /* One wait for all the (other) answers: a Spawn nobody answers
     * becomes an Error (TIMEOUT) after --timeout-ms, so this ends. */
    while (r->spawned + r->spawn_errors < r->nplayers)
        if (pump_once(r, sweep_client_now_ns() + ms_to_ns(1000)) != 0)
            return -1;
    return r->spawn_errors ? -1 : 0;
}

/* --- 5. watching ----------------------------------------------------------------------- */

/* Asks for every entity's state every --watch ticks: the answer (its
 * parts) and the pushes come as ENTITY_STATES events (on_event). */
static int watch_all(relay *r)
{
    sweep_client_error e;
    if (sweep_client_watch_entities(r->c, r->o.watch, NULL, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "relay_server: --watch: %s: %s\n", sweep_client_error_name(&e), e.message);
        return -1;
    }
    return 0;
}

/* --- 3. relaying ---------------------------------------------------------------------- */

/* What player i wishes at tick t: a square of 0.5 s sides at 3 m/s. */
static sweep_wish wish_of(uint32_t i, uint64_t t, double rate)
{
    static const double dir[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    uint64_t side = (uint64_t)(rate / 2) ? (uint64_t)(rate / 2) : 1;
    const double *d = dir[(t / side + i) % 4];
    sweep_wish w = {.velocity = sweep_v3(3 * d[0], 3 * d[1], 0)};
    return w;
}

/* Sends one tick: a move of every spawned player, in one call. */
static int send_tick(relay *r, sweep_client_move_req *moves, uint32_t *seqs)
{
    double dt = 1.0 / r->o.rate;
    uint32_t n = 0;
    /* The numbers the moves will carry, to key their predictions. */
    sweep_client_batch_sequences(r->c, r->spawned, seqs);
    for (uint32_t i = 0; i < r->nplayers; i++) {
        player *pl = &r->players[i];
        if (pl->entity == 0)
            continue;
        sweep_wish w = wish_of(i, r->ticks, r->o.rate);
        moves[n] = (sweep_client_move_req){.entity = pl->entity, .velocity = w.velocity, .buttons = w.buttons,
                                           .dt = dt};
        if (pl->pred && sweep_predictor_step(pl->pred, seqs[n], &w, dt, NULL, NULL) == SWEEP_CLIENT_OK) {
            moves[n].has_claimed_position = 1;
            moves[n].claimed_position = sweep_predictor_current(pl->pred).position;
        }
        n++;
    }
    /* Room for this tick's answers: one still unanswered after
     * TICKS_KEPT more is given up. */
    if (r->ticks - r->oldest == TICKS_KEPT) {
        r->unfinished++;
        r->oldest++;
    }
    uint64_t now = sweep_client_now_ns();
    r->ring[r->ticks % TICKS_KEPT] = (tick_sent){.sent_ns = now, .last_ns = now, .first_seq = seqs[0],
                                                 .last_seq = seqs[n - 1], .moves = n,
                                                 .measured = now >= r->measure_from_ns};
    sweep_client_error e;
    if (sweep_client_send_batch(r->c, moves, n, seqs, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "relay_server: send: %s: %s\n", sweep_client_error_name(&e), e.message);
        return -1;
    }
    r->sent += n;
    r->ticks++;
    return 0;
}

static int relay_moves(relay *r)
{
    sweep_client_move_req *moves = calloc(r->spawned ? r->spawned : 1, sizeof *moves);
    uint32_t *seqs = calloc(r->spawned ? r->spawned : 1, sizeof *seqs);
    if (moves == NULL || seqs == NULL) {
        fprintf(stderr, "relay_server: out of memory\n");
        free(moves);
        free(seqs);
        return -1;
    }
    uint64_t period = (uint64_t)(1e9 / r->o.rate);
    uint64_t start = sweep_client_now_ns(), end = start + (uint64_t)(r->o.duration * 1e9), next = start;
    r->measure_from_ns = start + (uint64_t)(r->o.warmup * 1e9);
    /* Aligned, each batch leaves align_us after the tick the tick clock
     * expects nearest to it: the first batches, before any answer named a
     * tick, at the relay's own pace. A relay faster than the ticks would
     * find the same tick for two batches, so it keeps its own pace. */
    const sweep_client_welcome *wel = sweep_client_get_welcome(r->c);
    int align = r->o.align_us >= 0 && r->o.rate <= wel->tick_rate;
    uint64_t align_ns = align ? (uint64_t)r->o.align_us * 1000u : 0;
    int rc = 0;
    while (rc == 0 && next < end) {
        /* After a stall, a few ticks are caught up and the rest dropped,
         * as a game drops the frames of a hitch. */
        uint64_t now = sweep_client_now_ns();
        if (now > next + 4 * period)
            next = now - 4 * period;
        rc = send_tick(r, moves, seqs);
        next += period;
        uint64_t due = align ? sweep_client_next_tick_ns(r->c, next - align_ns - period / 2) : 0;
        if (due)
            next = due + align_ns;
        if (rc == 0)
            rc = pump(r, next);
    }
    /* The last answers, each within --timeout-ms of the one before. */
    uint64_t last = r->answered + r->errors;
    uint64_t give_up = sweep_client_now_ns() + ms_to_ns(r->o.timeout_ms);
    while (rc == 0 && r->answered + r->errors < r->sent && sweep_client_now_ns() < give_up) {
        rc = pump_once(r, sweep_client_now_ns() + ms_to_ns(20));
        if (r->answered + r->errors != last) {
            last = r->answered + r->errors;
            give_up = sweep_client_now_ns() + ms_to_ns(r->o.timeout_ms);
        }
    }
    for (uint64_t k = r->oldest; k < r->ticks; k++)
        r->unfinished += r->ring[k % TICKS_KEPT].answered < r->ring[k % TICKS_KEPT].moves;
    free(moves);
    free(seqs);
    return rc;
}

int main(int argc, char **argv)
{
    relay r;
    memset(&r, 0, sizeof r);
    if (parse(argc, argv, &r.o) != 0)
        return 2;
    char err[512];
    if (r.o.map) {
        if (sweep_map_load(r.o.map, &r.lv, NULL, err, sizeof err) != SWEEP_OK ||
            sweep_map_build_world(&r.lv, &r.world, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "relay_server: %s: %s\n", r.o.map, err);
            return 2;
        }
        r.have_map = 1;
    }
    r.nplayers = r.o.entities;
    r.measure_from_ns = UINT64_MAX;
    r.players = calloc(r.nplayers, sizeof *r.players);
    int rc = 1;
    if (r.players == NULL || index_init(&r) != 0) {
        fprintf(stderr, "relay_server: out of memory\n");
        goto out;
    }
    uint64_t t0 = sweep_client_now_ns();
    if (connect_relay(&r) != 0)
        goto out;
    uint64_t tc = sweep_client_now_ns();
    if (spawn_players(&r) != 0)
        goto out;
    uint64_t t1 = sweep_client_now_ns();
    if (r.o.watch && watch_all(&r) != 0)
        goto out;
    uint64_t t1w = sweep_client_now_ns();
    sweep_client_counters k0, k1;
    sweep_client_get_counters(r.c, &k0);
    int relayed = relay_moves(&r);
    uint64_t t2 = sweep_client_now_ns();
    sweep_client_get_counters(r.c, &k1);
    printf("relay transport=%s entities=%" PRIu32 " connect_ms=%.1f spawn_ms=%.1f ticks=%" PRIu64
           " moves_sent=%" PRIu64 " answered=%" PRIu64 " errors=%" PRIu64 " corrections=%" PRIu64
           " ruled=%" PRIu64,
           r.o.udp ? "udp" : "tcp", r.spawned, (double)(tc - t0) / 1e6, (double)(t1 - tc) / 1e6, r.ticks, r.sent,
           r.answered, r.errors, r.corrections, r.ruled);
    if (r.have_map)
        printf(" mismatches=%" PRIu64, r.mismatches);
    printf(" lost=%" PRIu64 " seconds=%.2f", r.sent - r.answered - r.errors, (double)(t2 - t1w) / 1e9);
    qsort(r.rtt_ns, r.nrtt, sizeof *r.rtt_ns, cmp_u64);
    printf(" rtt_ticks=%zu unfinished_ticks=%" PRIu64 " tick_rtt_p50_us=%.1f tick_rtt_p99_us=%.1f tick_rtt_max_us=%.1f",
           r.nrtt, r.unfinished, rtt_quantile_us(&r, 0.50), rtt_quantile_us(&r, 0.99), rtt_quantile_us(&r, 1.0));
    /* Over UDP a frame is a datagram: what a tick costs in them, each way. */
    const sweep_client_welcome *w = sweep_client_get_welcome(r.c);
    printf(" max_batch=%" PRIu32 " frames_sent_per_tick=%.1f frames_received_per_tick=%.1f", sweep_client_max_batch(r.c),
           r.ticks ? (double)(k1.frames_sent - k0.frames_sent) / (double)r.ticks : 0.0,
           r.ticks ? (double)(k1.frames_received - k0.frames_received) / (double)r.ticks : 0.0);
    if (r.o.udp)
        printf(" datagram=%" PRIu32, w->max_frame_size);
    if (r.o.watch)
        printf(" watch_ticks=%" PRIu64 " watch_bytes_per_tick=%.0f watch_entities_per_tick=%.1f", r.watch_ticks,
               r.watch_ticks ? (double)r.watch_bytes / (double)r.watch_ticks : 0.0,
               r.watch_ticks ? (double)r.watch_states / (double)r.watch_ticks : 0.0);
    printf("\n");
    rc = relayed == 0 && r.answered == r.sent && r.errors == 0 ? 0 : 1;
out:
    if (r.players)
        for (uint32_t i = 0; i < r.nplayers; i++)
            sweep_predictor_destroy(r.players[i].pred);
    sweep_client_close(r.c);
    free(r.players);
    free(r.slot_entity);
    free(r.slot_index);
    free(r.rtt_ns);
    if (r.have_map) {
        sweep_world_destroy(r.world);
        sweep_level_free(&r.lv);
    }
    return rc;
}
