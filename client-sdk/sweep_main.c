/*
 * sweep_main.c - `sweep`, the command-line client.
 *
 * `sweep move` moves one player, either locally against a map with the same
 * core the server runs (--map without --connect), or through a server
 * (--connect): it spawns the player at the map's first spawn point (the
 * server's own map unless --map is given; or at --position), sends the
 * moves and prints each result as text or JSON lines.
 * With both --map and --connect it also checks the server's map hash and
 * predicts every move locally, printing whether the server agreed bit for
 * bit. `sweep ping` and `sweep stats` ask a server for a round trip and its
 * counters.
 *
 * Exit status: 0 on success, 1 on any error (the error's name is printed:
 * the server's code such as BadVelocity, or TIMEOUT, CLOSED, ...), 2 for a
 * bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "maps/loader.h"
#include "maps/text_input.h"

static const char usage[] =
    "usage: sweep COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  move    move a player, locally (--map) or through a server (--connect)\n"
    "  ping    round trip to a server\n"
    "  stats   a server's counters\n"
    "\n"
    "options:\n"
    "  --connect HOST:PORT  the server (sweepd); without it `move` runs locally\n"
    "  --udp                use UDP instead of TCP\n"
    "  --map FILE           the map: spawn point and radii, local moves, and with\n"
    "                       --connect the map hash check and prediction\n"
    "  --velocity X,Y,Z     requested velocity, units/s (move: required)\n"
    "  --dt SECONDS         time step per move (default 0.016)\n"
    "  --count N            moves to make (default 1)\n"
    "  --batch              send the moves in batches instead of one by one\n"
    "  --position X,Y,Z     spawn here (default: the map's spawn point --spawn)\n"
    "  --spawn K            which spawn point of the map, from 0 (default 0); without\n"
    "                       --map, the server's map's\n"
    "  --radii X,Y,Z        ellipsoid radii (default: the map's)\n"
    "  --world NAME         world (map instance) to join on the server\n"
    "  --no-map-check       do not refuse a server whose map hash differs\n"
    "  --timeout MS         time allowed for each answer (default 5000)\n"
    "  --json               JSON lines instead of text\n"
    "  --help               this text\n"
    "\n"
    "examples:\n"
    "  sweep move --map arena.db --velocity 1,0,0 --count 60\n"
    "  sweep move --connect 127.0.0.1:7878 --velocity 1,0,0\n"
    "  sweep move --connect 127.0.0.1:7777 --map arena.db --velocity 1,0,0\n"
    "  sweep move --connect 127.0.0.1:7777 --udp --position 0,0,1 --velocity 0,2,0 --json\n";

typedef struct options {
    const char *command, *connect, *map, *world;
    int udp, json, batch, no_map_check, timeout_ms;
    int has_velocity, has_position, has_radii;
    sweep_vec3 velocity, position, radii;
    double dt;
    uint32_t count, spawn;
} options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "sweep: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(sweep --help for usage)\n");
    return 2;
}

static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"connect", required_argument, 0, 'c'}, {"udp", no_argument, 0, 'u'},
        {"map", required_argument, 0, 'm'},     {"velocity", required_argument, 0, 'v'},
        {"dt", required_argument, 0, 'd'},      {"count", required_argument, 0, 'n'},
        {"batch", no_argument, 0, 'b'},         {"position", required_argument, 0, 'p'},
        {"spawn", required_argument, 0, 's'},   {"radii", required_argument, 0, 'r'},
        {"world", required_argument, 0, 'w'},   {"no-map-check", no_argument, 0, 'N'},
        {"timeout", required_argument, 0, 't'}, {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->dt = 0.016;
    o->count = 1;
    o->timeout_ms = 5000;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'c': o->connect = optarg; break;
        case 'u': o->udp = 1; break;
        case 'm': o->map = optarg; break;
        case 'v':
            if (!sweep_parse_vec3(optarg, &o->velocity))
                return usage_error("--velocity wants X,Y,Z, not '%s'", optarg);
            o->has_velocity = 1;
            break;
        case 'd':
            errno = 0;
            o->dt = strtod(optarg, &end);
            if (errno || end == optarg || *end)
                return usage_error("--dt wants seconds, not '%s'", optarg);
            break;
        case 'n':
            if (!sweep_parse_u32(optarg, 0, UINT32_MAX, &o->count) || o->count == 0)
                return usage_error("--count wants a positive integer, not '%s'", optarg);
            break;
        case 'b': o->batch = 1; break;
        case 'p':
            if (!sweep_parse_vec3(optarg, &o->position))
                return usage_error("--position wants X,Y,Z, not '%s'", optarg);
            o->has_position = 1;
            break;
        case 's':
            if (!sweep_parse_u32(optarg, 0, UINT32_MAX, &o->spawn) || o->spawn >= UINT32_MAX - 1)
                return usage_error("--spawn wants an index, not '%s'", optarg);
            break;
        case 'r':
            if (!sweep_parse_vec3(optarg, &o->radii))
                return usage_error("--radii wants X,Y,Z, not '%s'", optarg);
            o->has_radii = 1;
            break;
        case 'w': o->world = optarg; break;
        case 'N': o->no_map_check = 1; break;
        case 't': {
            uint32_t t;
            if (!sweep_parse_u32(optarg, 0, UINT32_MAX, &t) || t == 0 || t > 3600000)
                return usage_error("--timeout wants milliseconds, not '%s'", optarg);
            o->timeout_ms = (int)t;
            break;
        }
        case 'j': o->json = 1; break;
        case 'h': fputs(usage, stdout); exit(0);
        default: return 2;
        }
    }
    if (optind >= argc)
        return usage_error("%s", "a command is needed: move, ping or stats");
    o->command = argv[optind];
    if (optind + 1 < argc)
        return usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (strcmp(o->command, "move") && strcmp(o->command, "ping") && strcmp(o->command, "stats"))
        return usage_error("unknown command '%s'", o->command);
    if (strcmp(o->command, "move") == 0) {
        if (!o->has_velocity)
            return usage_error("%s", "move needs --velocity X,Y,Z");
        if (!o->connect && !o->map)
            return usage_error("%s", "move needs --map FILE (local) or --connect HOST:PORT");
        if (!o->map && !o->has_position && !o->connect)
            return usage_error("%s", "without --map, move needs --position X,Y,Z to spawn at");
    } else if (!o->connect) {
        return usage_error("%s needs --connect HOST:PORT", o->command);
    }
    return 0;
}

/* --- output ------------------------------------------------------------------ */

static void print_num(double v)
{
    /* JSON has no NaN or infinity. */
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

static void print_vec(const options *o, sweep_vec3 v)
{
    if (o->json) {
        printf("[");
        print_num(v.x);
        printf(",");
        print_num(v.y);
        printf(",");
        print_num(v.z);
        printf("]");
    } else {
        printf("(%.17g, %.17g, %.17g)", v.x, v.y, v.z);
    }
}

/* One move's result (from the server or the local core). */
typedef struct shown_result {
    uint32_t index, sequence;
    uint64_t server_tick;
    sweep_vec3 position, velocity, ground_normal;
    int grounded;
    uint32_t ground_material, contact_count;
    const sweep_contact *contacts;
    const char *predicted; /* "match", "mismatch" or NULL */
} shown_result;

static void print_result(const options *o, const shown_result *r)
{
    if (o->json) {
        printf("{\"move\":%" PRIu32 ",\"sequence\":%" PRIu32 ",\"server_tick\":%" PRIu64 ",\"position\":", r->index,
               r->sequence, r->server_tick);
        print_vec(o, r->position);
        printf(",\"velocity\":");
        print_vec(o, r->velocity);
        printf(",\"grounded\":%s,\"ground_normal\":", r->grounded ? "true" : "false");
        print_vec(o, r->ground_normal);
        printf(",\"ground_material\":%" PRIu32 ",\"contacts\":[", r->ground_material);
        for (uint32_t i = 0; i < r->contact_count; i++) {
            printf("%s{\"triangle\":%" PRIu32 ",\"material\":%" PRIu32 ",\"point\":", i ? "," : "",
                   r->contacts[i].triangle, r->contacts[i].material);
            print_vec(o, r->contacts[i].point);
            printf(",\"normal\":");
            print_vec(o, r->contacts[i].normal);
            printf("}");
        }
        printf("]");
        if (r->predicted)
            printf(",\"predicted\":\"%s\"", r->predicted);
        printf("}\n");
    } else {
        printf("move %" PRIu32 " seq=%" PRIu32 " tick=%" PRIu64 " position=", r->index, r->sequence, r->server_tick);
        print_vec(o, r->position);
        printf(" velocity=");
        print_vec(o, r->velocity);
        printf(" grounded=%d contacts=%" PRIu32, r->grounded, r->contact_count);
        if (r->predicted)
            printf(" predicted=%s", r->predicted);
        printf("\n");
    }
}

static void print_spawned(const options *o, uint32_t entity, sweep_vec3 position, sweep_vec3 radii)
{
    if (o->json) {
        printf("{\"spawned\":%" PRIu32 ",\"position\":", entity);
        print_vec(o, position);
        printf(",\"radii\":");
        print_vec(o, radii);
        printf("}\n");
    } else {
        printf("spawned entity=%" PRIu32 " position=", entity);
        print_vec(o, position);
        printf(" radii=");
        print_vec(o, radii);
        printf("\n");
    }
}

/* Prints the error (stderr, and a JSON line on stdout with --json); returns 1. */
static int report(const options *o, const sweep_client_error *e)
{
    fprintf(stderr, "sweep: error %s: %s", sweep_client_error_name(e), e->message);
    if (e->status == SWEEP_CLIENT_E_SERVER)
        fprintf(stderr, " (sequence %" PRIu32 ")", e->sequence);
    fprintf(stderr, "\n");
    if (o->json) {
        printf("{\"error\":\"%s\",\"sequence\":%" PRIu32 ",\"message\":\"", sweep_client_error_name(e), e->sequence);
        for (const char *p = e->message; *p; p++) {
            if (*p == '"' || *p == '\\')
                printf("\\%c", *p);
            else if ((unsigned char)*p < 0x20)
                printf("\\u%04x", (unsigned char)*p);
            else
                putchar(*p);
        }
        printf("\"}\n");
    }
    fflush(stdout);
    return 1;
}

static int report_msg(const options *o, sweep_client_status s, const char *fmt, const char *arg)
{
    sweep_client_error e = {.status = s};
    snprintf(e.message, sizeof e.message, fmt, arg);
    return report(o, &e);
}

/* --- commands ----------------------------------------------------------------- */

typedef struct local_map {
    sweep_level lv;
    sweep_world *world;
    int loaded;
} local_map;

static int load_map(const options *o, local_map *m)
{
    char err[256];
    sweep_map_load_info info;
    if (sweep_map_load(o->map, &m->lv, &info, err, sizeof err) != SWEEP_OK) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: %s", o->map, err);
        return report_msg(o, SWEEP_CLIENT_E_ARG, "%s", msg);
    }
    m->loaded = 1;
    if (sweep_map_build_world(&m->lv, &m->world, NULL, err, sizeof err) != SWEEP_OK)
        return report_msg(o, SWEEP_CLIENT_E_ARG, "cannot build the map's world: %s", err);
    return 0;
}

static const char *status_name(sweep_status s)
{
    static const char *const names[] = {"OK",     "NONFINITE", "RADII",   "VELOCITY", "DT",
                                        "POSITION", "CONFIG",  "GEOMETRY", "NOMEM",   "ARG"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "UNKNOWN";
}

/* Moves locally with the core, exactly as the server would. */
static int move_local(const options *o, local_map *m, sweep_vec3 start, sweep_vec3 radii)
{
    print_spawned(o, 0, start, radii);
    sweep_predict_state s = {.position = start};
    for (uint32_t i = 0; i < o->count; i++) {
        sweep_move_result r;
        sweep_status st = sweep_predict_run(m->world, &m->lv.config, radii, &s, o->velocity, o->dt, &r);
        if (st != SWEEP_OK) {
            /* Named as the server would name it, so local and remote runs read alike. */
            sweep_client_error e = {.status = SWEEP_CLIENT_E_SERVER, .code = sweep_wire_code_from_status(st),
                                    .sequence = i + 1};
            snprintf(e.message, sizeof e.message, "move %u refused by the core (%s)", i + 1, status_name(st));
            return report(o, &e);
        }
        shown_result sr = {
            .index = i + 1, .sequence = i + 1, .position = r.position, .velocity = r.velocity,
            .ground_normal = r.ground_normal, .grounded = s.grounded,
            .ground_material = r.ground_material, .contact_count = r.contact_count, .contacts = r.contacts,
        };
        print_result(o, &sr);
    }
    return 0;
}

/* Prints one server result, reconciling it with the prediction if any. */
static void show_remote(const options *o, sweep_predictor *pred, const sweep_msg_move_result *r, uint32_t index,
                        int *mismatches)
{
    const char *predicted = NULL;
    if (pred) {
        sweep_predict_ack a;
        sweep_predictor_ack(pred, r, &a);
        predicted = a.mismatch ? "mismatch" : "match";
        *mismatches += a.mismatch;
    }
    shown_result sr = {
        .index = index, .sequence = r->sequence, .server_tick = r->server_tick, .position = r->position,
        .velocity = r->velocity, .ground_normal = r->ground_normal, .grounded = r->grounded,
        .ground_material = r->ground_material, .contact_count = r->contact_count, .contacts = r->contacts,
        .predicted = predicted,
    };
    print_result(o, &sr);
}

static int move_remote(const options *o, sweep_client *c, local_map *m, sweep_vec3 start, sweep_vec3 radii)
{
    sweep_client_error e;
    sweep_msg_spawned sp;
    sweep_client_status st;
    if (!m->loaded && !o->has_position) /* the server's map picks the place (and radii) */
        st = sweep_client_spawn_at_point(c, o->spawn + 1, o->has_radii ? radii : sweep_v3(0, 0, 0), &sp, &e);
    else
        st = sweep_client_spawn(c, start, radii, &sp, &e);
    if (st != SWEEP_CLIENT_OK)
        return report(o, &e);
    print_spawned(o, sp.entity, sp.position, sp.radii);
    sweep_predictor pred;
    if (m->loaded)
        sweep_predictor_init(&pred, m->world, &m->lv.config, sp.position, sp.radii);
    int rc = 0, mismatches = 0;
    uint32_t done = 0;
    uint32_t max_batch = o->batch ? sweep_client_max_batch(c) : 1;
    sweep_client_move_req *reqs = calloc(max_batch, sizeof *reqs);
    uint32_t *seqs = calloc(max_batch, sizeof *seqs);
    if (!reqs || !seqs) {
        rc = report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
        goto out;
    }
    while (done < o->count && rc == 0) {
        uint32_t n = o->count - done < max_batch ? o->count - done : max_batch;
        for (uint32_t i = 0; i < n; i++)
            reqs[i] = (sweep_client_move_req){.entity = sp.entity, .velocity = o->velocity, .dt = o->dt};
        if (!o->batch) {
            /* One move, one blocking call: over UDP it is resent until answered. */
            uint32_t seq = sweep_client_next_sequence(c);
            if (m->loaded)
                (void)sweep_predictor_step(&pred, seq, o->velocity, o->dt, NULL);
            sweep_msg_move_result r;
            if (sweep_client_move(c, sp.entity, o->velocity, o->dt, &r, &e) != SWEEP_CLIENT_OK) {
                rc = report(o, &e);
                break;
            }
            done++;
            show_remote(o, m->loaded ? &pred : NULL, &r, done, &mismatches);
            continue;
        }
        if (sweep_client_send_batch(c, reqs, n, seqs, &e) != SWEEP_CLIENT_OK) {
            rc = report(o, &e);
            break;
        }
        if (m->loaded)
            for (uint32_t i = 0; i < n; i++)
                (void)sweep_predictor_step(&pred, seqs[i], o->velocity, o->dt, NULL);
        /* Collect the n answers; an Error about one of them ends the run. */
        for (uint32_t got = 0; got < n && rc == 0;) {
            sweep_client_event ev;
            if (sweep_client_poll(c, o->timeout_ms, &ev, &e) != SWEEP_CLIENT_OK) {
                rc = report(o, &e);
                break;
            }
            if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
                rc = report(o, &ev.as.error);
                break;
            }
            if (ev.kind != SWEEP_CLIENT_EV_MOVE_RESULT)
                continue;
            got++;
            show_remote(o, m->loaded ? &pred : NULL, &ev.as.move_result, done + got, &mismatches);
        }
        done += n;
    }
    if (rc == 0 && mismatches && !o->json)
        fprintf(stderr, "sweep: %d prediction(s) differed from the server\n", mismatches);
out:
    free(reqs);
    free(seqs);
    if (m->loaded)
        sweep_predictor_free(&pred);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    local_map m = {0};
    sweep_vec3 start = o.position, radii = {0.4, 0.4, 0.9};
    if (o.map) {
        if ((rc = load_map(&o, &m)) != 0)
            goto done;
        radii = m.lv.default_radii;
        if (!o.has_position) {
            if (o.spawn >= m.lv.spawn_count) {
                char msg[64];
                snprintf(msg, sizeof msg, "%u", o.spawn);
                rc = report_msg(&o, SWEEP_CLIENT_E_ARG, "the map has no spawn point %s", msg);
                goto done;
            }
            start = m.lv.spawns[o.spawn];
        }
    }
    if (o.has_radii)
        radii = o.radii;

    if (!o.connect) {
        rc = move_local(&o, &m, start, radii);
        goto done;
    }
    sweep_client_options co;
    sweep_client_options_init(&co);
    co.transport = o.udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    co.address = o.connect;
    co.client_name = "sweep-cli";
    co.world = o.world;
    co.timeout_ms = o.timeout_ms;
    sweep_client *c;
    sweep_client_error e;
    if (sweep_client_connect(&co, &c, &e) != SWEEP_CLIENT_OK) {
        rc = report(&o, &e);
        goto done;
    }
    if (strcmp(o.command, "move") == 0) {
        if (m.loaded && !o.no_map_check && sweep_client_check_map(c, &m.lv, &e) != SWEEP_CLIENT_OK)
            rc = report(&o, &e);
        else
            rc = move_remote(&o, c, &m, start, radii);
    } else if (strcmp(o.command, "ping") == 0) {
        uint64_t rtt;
        if (sweep_client_ping(c, &rtt, &e) != SWEEP_CLIENT_OK)
            rc = report(&o, &e);
        else if (o.json)
            printf("{\"rtt_us\":%.1f}\n", rtt / 1e3);
        else
            printf("pong rtt=%.1f us\n", rtt / 1e3);
    } else {
        sweep_msg_stats st;
        if (sweep_client_get_stats(c, &st, &e) != SWEEP_CLIENT_OK)
            rc = report(&o, &e);
        else
            printf(o.json ? "{\"sessions\":%" PRIu32 ",\"entities\":%" PRIu32 ",\"moves_total\":%" PRIu64
                            ",\"errors_total\":%" PRIu64 ",\"tick_ns_p50\":%" PRIu64 ",\"tick_ns_p99\":%" PRIu64 "}\n"
                          : "sessions=%" PRIu32 " entities=%" PRIu32 " moves_total=%" PRIu64 " errors_total=%" PRIu64
                            " tick_ns_p50=%" PRIu64 " tick_ns_p99=%" PRIu64 "\n",
                   st.sessions, st.entities, st.moves_total, st.errors_total, st.tick_ns_p50, st.tick_ns_p99);
    }
    sweep_client_close(c);
done:
    if (m.world)
        sweep_world_destroy(m.world);
    if (m.loaded)
        sweep_level_free(&m.lv);
    return rc;
}
