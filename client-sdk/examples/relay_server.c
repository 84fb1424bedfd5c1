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
 *   4. with --map, predicting each player with the same core and rules as
 *      sweepd (predict.h, one predictor per player) and claiming the
 *      prediction, so that a correction would show a desync.
 * The players here are simulated: each walks a small square around its
 * spawn point. A real game server would take the wishes from its players'
 * input instead, and send the answers back to them.
 *
 * At the end one line sums it up: entities, ticks, moves sent and answered,
 * errors, corrections and (with --map) predictions that differed. The exit
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
    "  --entities N         players to relay (default 100)\n"                                                   \
    "  --duration S         seconds of moves (default 3)\n"                                                     \
    "  --rate HZ            ticks a second, a move per player each (default 60)\n"                              \
    "  --map FILE           the server's map: players spawn at its spawn points in\n"                           \
    "                       turn, and each move is predicted and claimed\n"                                     \
    "  --timeout-ms MS      for connecting, and for each answer at the end (5000)\n"                            \
    "  --help               this text\n"

typedef struct options {
    const char *connect, *token, *map;
    int udp;
    uint32_t entities;
    double duration, rate;
    int timeout_ms;
} options;

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
    uint64_t ticks, sent, answered, errors, corrections, mismatches;
} relay;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.entities = 100, .duration = 3, .rate = 60, .timeout_ms = 5000};
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
        static const char *const valued[] = {"--connect", "--token", "--map", "--entities", "--duration", "--rate",
                                             "--timeout-ms"};
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
    return 0;
}

static uint64_t ms_to_ns(int ms)
{
    return (uint64_t)ms * 1000000u;
}

/* Milliseconds from now until t_ns (0 if past), at most cap_ms (-1: none). */
static int ms_until(uint64_t t_ns, int cap_ms)
{
    uint64_t now = sweep_client_now_ns();
    int ms = t_ns <= now ? 0 : (int)((t_ns - now + 999999) / 1000000);
    return cap_ms >= 0 && cap_ms < ms ? cap_ms : ms;
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
    return 0;
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
        pl = index_get(r, res->entity);
        sweep_predict_ack a;
        if (pl && pl->pred && sweep_predictor_ack(pl->pred, res, &a, NULL) == SWEEP_CLIENT_OK)
            r->mismatches += a.mismatch;
        /* A real game server sends res->position (and the rules named)
         * back to the player here. */
    } else if (ev->kind == SWEEP_CLIENT_EV_ERROR) {
        const sweep_client_error *er = &ev->as.error;
        r->errors++;
        if (r->errors <= 5)
            fprintf(stderr, "relay_server: move %u of entity %u refused: %s: %s\n", er->sequence, er->entity,
                    sweep_client_error_name(er), er->message);
        pl = index_get(r, er->entity);
        if (pl && pl->pred)
            sweep_predictor_reject(pl->pred, er->sequence, NULL, NULL);
    } else if (ev->kind == SWEEP_CLIENT_EV_BYE) {
        fprintf(stderr, "relay_server: sweepd said goodbye: %s\n", ev->as.error.message);
    }
}

/* Waits at most max_ms for sweepd (less if the client wants to be called
 * sooner), then handles what came, as a game server's loop does between
 * its ticks, the client's socket beside (here, instead of) its players'.
 * Returns 0, or -1 when the connection failed. */
static int pump_once(relay *r, int max_ms)
{
    int wait_ms;
    struct pollfd p = {.fd = sweep_client_fd(r->c), .events = (short)sweep_client_poll_events(r->c, &wait_ms)};
    if (wait_ms < 0 || wait_ms > max_ms)
        wait_ms = max_ms;
    if (poll(&p, 1, wait_ms) < 0 && errno != EINTR) {
        perror("relay_server: poll");
        return -1;
    }
    /* One read per wake, then only what it queued. */
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s;
    for (s = sweep_client_poll(r->c, 0, &ev, &e); s == SWEEP_CLIENT_OK;
         s = sweep_client_pending(r->c) ? sweep_client_poll(r->c, 0, &ev, &e) : SWEEP_CLIENT_E_TIMEOUT)
        on_event(r, &ev);
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
        if (pump_once(r, ms_until(until_ns, -1)) != 0)
            return -1;
    } while (sweep_client_now_ns() < until_ns);
    return 0;
}

/* --- 2. spawning -------------------------------------------------------------------- */

static int spawn_players(relay *r)
{
    uint32_t points = r->have_map && r->lv.spawn_count ? r->lv.spawn_count : 1;
    for (uint32_t i = 0; i < r->nplayers; i++) {
        /* The map's spawn points in turn, with the map's radii, each
         * entity a player's: held to the player rules it relays. */
        sweep_client_spawn_req sp = {.spawn_point = i % points + 1, .player = true};
        sweep_client_error e;
        if (sweep_client_send_spawn(r->c, &sp, &r->players[i].spawn_sequence, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "relay_server: spawn: %s: %s\n", sweep_client_error_name(&e), e.message);
            return -1;
        }
    }
    /* One wait for all the answers: a Spawn nobody answers becomes an
     * Error (TIMEOUT) after --timeout-ms, so this ends. */
    while (r->spawned + r->spawn_errors < r->nplayers)
        if (pump_once(r, 1000) != 0)
            return -1;
    return r->spawn_errors ? -1 : 0;
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
    int rc = 0;
    while (rc == 0 && next < end) {
        /* After a stall, a few ticks are caught up and the rest dropped,
         * as a game drops the frames of a hitch. */
        uint64_t now = sweep_client_now_ns();
        if (now > next + 4 * period)
            next = now - 4 * period;
        rc = send_tick(r, moves, seqs);
        next += period;
        if (rc == 0)
            rc = pump(r, next);
    }
    /* The last answers, each within --timeout-ms of the one before. */
    uint64_t last = r->answered + r->errors;
    uint64_t give_up = sweep_client_now_ns() + ms_to_ns(r->o.timeout_ms);
    while (rc == 0 && r->answered + r->errors < r->sent && sweep_client_now_ns() < give_up) {
        rc = pump_once(r, 20);
        if (r->answered + r->errors != last) {
            last = r->answered + r->errors;
            give_up = sweep_client_now_ns() + ms_to_ns(r->o.timeout_ms);
        }
    }
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
    int relayed = relay_moves(&r);
    uint64_t t2 = sweep_client_now_ns();
    printf("relay transport=%s entities=%" PRIu32 " connect_ms=%.1f spawn_ms=%.1f ticks=%" PRIu64
           " moves_sent=%" PRIu64 " answered=%" PRIu64 " errors=%" PRIu64 " corrections=%" PRIu64,
           r.o.udp ? "udp" : "tcp", r.spawned, (double)(tc - t0) / 1e6, (double)(t1 - tc) / 1e6, r.ticks, r.sent,
           r.answered, r.errors, r.corrections);
    if (r.have_map)
        printf(" mismatches=%" PRIu64, r.mismatches);
    printf(" lost=%" PRIu64 " seconds=%.2f\n", r.sent - r.answered - r.errors, (double)(t2 - t1) / 1e9);
    rc = relayed == 0 && r.answered == r.sent && r.errors == 0 ? 0 : 1;
out:
    if (r.players)
        for (uint32_t i = 0; i < r.nplayers; i++)
            sweep_predictor_destroy(r.players[i].pred);
    sweep_client_close(r.c);
    free(r.players);
    free(r.slot_entity);
    free(r.slot_index);
    if (r.have_map) {
        sweep_world_destroy(r.world);
        sweep_level_free(&r.lv);
    }
    return rc;
}
