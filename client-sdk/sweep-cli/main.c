/*
 * main.c - `sweep`, the command-line client.
 *
 * `sweep move` moves one player, either locally against a map with the same
 * core and movement rules the server runs (--map without --connect; movers
 * stand at the start of their paths, since nothing ticks them), or through
 * a server (--connect): it spawns the player at a spawn point of the map
 * (or, for a session of the server role, at --position), sends the moves
 * (each a wish: --velocity across the ground, --jump) and prints each
 * result as text or JSON lines: where the player went, the rules the
 * server applied (and by how much the move asked too much), and what the
 * movers did to the player when they did something.
 * With both --map and --connect it also checks the server's map hash and
 * predicts every move locally, printing whether the server agreed bit for
 * bit; on a map with movers it watches the world every tick and predicts
 * among the movers as they will be at the tick the server applies each
 * move (sweep_client_estimate_tick, predict.h). `sweep watch`
 * prints the movers' poses the server pushes (one record per tick, the
 * parts of a split UDP WorldState put together), `sweep command` fires a
 * mover's trigger and `sweep entity` teleports, pushes, reshapes or
 * despawns any entity of the world, printing each command's result (both
 * for a session of the server role: --token), `sweep ping` and
 * `sweep stats` ask a server for a round trip and its counters, and
 * `sweep token` mints an identity token (protocol/token.h) from the
 * server's secret file.
 *
 * Exit status: 0 on success, 1 on any error (the error's name is printed:
 * the server's code such as BadVelocity or AuthFailed, or TIMEOUT, CLOSED,
 * ...), 2 for a bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "core/version.h"
#include "client-sdk/client.h"
#include "client-sdk/predict.h"
#include "maps/loader.h"
#include "core/parse.h"
#include "protocol/token.h"
#include "server/world/entity_motion.h"

static const char usage[] =
    "usage: sweep COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  move          move a player, locally (--map) or through a server (--connect)\n"
    "  watch         print the movers' poses the server sends after its ticks\n"
    "  command NAME  fire the trigger of the mover NAME (needs --token)\n"
    "  entity OP ID [X,Y,Z] ...\n"
    "                commands on any entity of the world, whoever owns it, sent\n"
    "                together and applied in order (needs --token): teleport ID\n"
    "                X,Y,Z, velocity ID X,Y,Z (set), impulse ID X,Y,Z (added to the\n"
    "                velocity), radii ID X,Y,Z, despawn ID; put -- before them when\n"
    "                a vector starts with a minus sign\n"
    "  query ITEM ...\n"
    "                questions of the world, answered in order (one Query): ray\n"
    "                X,Y,Z X,Y,Z (first hit), rayall X,Y,Z X,Y,Z (every hit), los\n"
    "                X,Y,Z X,Y,Z (line of sight), sweep X,Y,Z X,Y,Z RX,RY,RZ (an\n"
    "                ellipsoid moved), overlap X,Y,Z R (entities within R); at\n"
    "                the newest tick, or --at TICK[+FRACTION]\n"
    "  ping          round trip to a server\n"
    "  stats         a server's counters\n"
    "  token         print an identity token for Hello.auth_token (--secret-file,\n"
    "                --role, --identity, --ttl)\n"
    "\n"
    "options:\n"
    "  --connect HOST:PORT  the server (sweepd); without it `move` runs locally\n"
    "  --udp                use UDP instead of TCP\n"
    "  --map FILE           the map: spawn point and radii, local moves, and with\n"
    "                       --connect the map hash check and prediction (among the\n"
    "                       movers as they will be at the tick the server applies\n"
    "                       the move, from the paths it sends); watch: mover names\n"
    "  --velocity X,Y,Z     the wish: the velocity wished across the ground, units/s\n"
    "                       (its part along up is ignored, and named Vertical, but\n"
    "                       swimming and climbing); with\n"
    "                       --mode fly or noclip the velocity itself (move: required)\n"
    "  --jump               jump whenever standing: the jump button on each move that\n"
    "                       starts on walkable ground (as the last answer or, with\n"
    "                       --map, the prediction says)\n"
    "  --hold-jump          the jump button on every move (a jump asked in the air is\n"
    "                       refused and named Jump)\n"
    "  --crouch             the crouch button on every move: the player crouches (on a\n"
    "                       map with crouching; elsewhere it is named Buttons) and\n"
    "                       walks at most at the map's crouch_speed\n"
    "  --mode MODE          walk (default), fly or noclip; fly and noclip only for a\n"
    "                       session of the server role on a server that allows them\n"
    "  --dt SECONDS         time step per move (default 1/60)\n"
    "  --count N            move: moves to make (default 1); watch: ticks to print\n"
    "                       (default: until interrupted)\n"
    "  --every N            watch: a WorldState every N ticks (default 1)\n"
    "  --batch              send the moves in batches instead of one by one\n"
    "  --interval MS        move: wait this long before each move (or batch), as a\n"
    "                       game sends one move per frame. Default: a player's moves\n"
    "                       go out in real time, one every --dt (its time budget\n"
    "                       pays for no more; after a stall it catches up at most\n"
    "                       half the bank), the server role's at once;\n"
    "                       --interval 0 sends a player's at once too\n"
    "  --position X,Y,Z     spawn here: the server role may; a player is put at a\n"
    "                       spawn point anyway (named SpawnPosition)\n"
    "  --spawn K            which spawn point of the map, numbered as on the wire:\n"
    "                       1 is the first (the default); 0 lets the server pick a\n"
    "                       free one for a player (the server role: the first)\n"
    "  --radii X,Y,Z        ellipsoid radii (default: the map's; a player always gets\n"
    "                       the map's, named SpawnRadii)\n"
    "  --world NAME         world (map instance) to join on the server\n"
    "  --token TOKEN        Hello.auth_token: an identity token (sweep token) or the\n"
    "                       server's --command-token; without one the session is a\n"
    "                       guest player, where the server admits guests. A server\n"
    "                       token makes a session of the server role (command needs\n"
    "                       it). The SWEEP_TOKEN environment variable is read when it\n"
    "                       is not given, and unlike a command line is not visible to\n"
    "                       other users\n"
    "  --secret-file FILE   token: the server's --auth-secret-file\n"
    "  --role ROLE          token: player or server\n"
    "  --identity NAME      token: who, 1 to 64 of [A-Za-z0-9._@+-]\n"
    "  --ttl SECONDS        token: valid for this long from now (default 3600)\n"
    "  --no-map-check       do not refuse a server whose map hash differs\n"
    "  --timeout MS         time allowed for each answer (default 5000)\n"
    "  --at TICK[+F]        query: ask the world as it was at TICK plus the fraction\n"
    "                       F of a tick (lag compensation); a player may look back\n"
    "                       only the server's --rewind-cap-ms\n"
    "  --ignore ID          query: entity ID is never hit (the shooter)\n"
    "  --json               JSON lines instead of text\n"
    "  --help               this text\n"
    "  --version            the release of sweep this tool belongs to\n"
    "\n"
    "move prints, for each move, the rules the server applied (rules=Speed,... as in\n"
    "sweep.fbs), speed_excess (units/s wished above the walk speed), time_excess\n"
    "(seconds asked beyond the time budget) and applied_dt (seconds granted), and\n"
    "correction when a claimed position was off; when a mover did something:\n"
    "ground_mover (the mover id stood on after the move), and carried, pushed,\n"
    "pushed_by, start (where the server started the move: where its movers left the\n"
    "player since the move before); when a volume of the map acted (volumes.id):\n"
    "launched_by (a jump pad), teleported_by (teleport_blocked=1: no room there),\n"
    "hurt_by with damage, killed_by (a kill volume ended the move: the player is\n"
    "gone, reported as Killed, as a crushed one is as Crushed), entered and left\n"
    "(triggers); crouched=1 while crouched, stance_blocked=1 when the stance asked\n"
    "had no room (under a low ceiling the player stays crouched until it fits);\n"
    "liquid with liquid_level (the liquid the feet are in and how deep: 1 feet,\n"
    "2 waist: swimming, 3 under), entered_liquid, left_liquid and ladder (the\n"
    "ladder climbed).\n"
    "watch prints per tick each mover's id, position, rotation (quaternion x, y,\n"
    "z, w) and flags (1 triggered, 2 blocked, 4 moved).\n"
    "entity prints one result per command, in order: the entity, the op, result=None\n"
    "when applied or the refusal's code (UnknownEntity, NoRoom, BadVelocity, ...)\n"
    "and its message, and the entity's position, velocity and radii after it while\n"
    "it exists (pushed_out=1: a teleport target was occupied, the entity was put\n"
    "above it); the exit status is 1 if any command was refused.\n"
    "query prints one line per item: its kind, result=None or the refusal's code\n"
    "(TooOld, InFuture, RateLimited, ...) and message, the time answered at, clear\n"
    "for a line of sight, and each hit nearest first: what (level, mover, entity),\n"
    "the triangle, material, mover id, entity id and hit shape id, fraction and\n"
    "distance along the path, point and normal; the exit status is 1 if any item\n"
    "was refused.\n"
    "\n"
    "examples:\n"
    "  sweep move --map arena.db --velocity 1,0,0 --count 60\n"
    "  sweep move --connect 127.0.0.1:7878 --velocity 1,0,0\n"
    "  sweep move --connect 127.0.0.1:7777 --map arena.db --velocity 1,0,0\n"
    "  sweep move --connect 127.0.0.1:7777 --udp --position 0,0,1 --velocity 0,2,0 --json\n"
    "  sweep watch --connect 127.0.0.1:7878 --every 30 --count 10\n"
    "  sweep token --secret-file secret --role server --identity tools --ttl 600\n"
    "  SWEEP_TOKEN=$(sweep token ...) sweep command --connect 127.0.0.1:7878 door\n"
    "  sweep entity --connect 127.0.0.1:7878 --token T teleport 3 0,-6,1 impulse 3 0,0,4\n"
    "  sweep entity --connect 127.0.0.1:7878 --token T -- velocity 3 -2,0,0 despawn 4\n"
    "  sweep query --connect 127.0.0.1:7878 --at 1200+0.5 ray 0,-10,1 0,-2,1 los 0,0,1 5,0,1\n";

/* The query subcommand's words. */
static const struct {
    const char *word;
    uint8_t kind;
} query_kinds[] = {
    {"ray", SWEEP_WIRE_QUERY_RAY},   {"rayall", SWEEP_WIRE_QUERY_RAY_ALL}, {"los", SWEEP_WIRE_QUERY_LINE_OF_SIGHT},
    {"sweep", SWEEP_WIRE_QUERY_SWEEP}, {"overlap", SWEEP_WIRE_QUERY_OVERLAP},
};

/* The entity subcommand's words, in the order given. */
static const struct {
    const char *word;
    uint8_t op;
    int vector;
} entity_ops[] = {
    {"teleport", SWEEP_WIRE_OP_TELEPORT, 1}, {"velocity", SWEEP_WIRE_OP_SET_VELOCITY, 1},
    {"impulse", SWEEP_WIRE_OP_ADD_IMPULSE, 1}, {"radii", SWEEP_WIRE_OP_SET_RADII, 1},
    {"despawn", SWEEP_WIRE_OP_DESPAWN, 0},
};

typedef struct options {
    const char *command, *connect, *map, *world, *token, *mover;
    sweep_msg_entity_command *commands; /* entity: [ncommands], freed by main */
    uint32_t ncommands;
    sweep_msg_query_item *items;        /* query: [nitems], freed by main */
    uint32_t nitems;
    uint64_t at_tick;                   /* query: --at (0: the newest) */
    double at_fraction;
    uint32_t ignore;                    /* query: --ignore (0: none) */
    const char *secret_file, *role, *identity;
    int udp, json, batch, no_map_check, timeout_ms;
    int has_velocity, has_position, has_radii, has_count;
    int jump, hold_jump, crouch, has_interval;
    uint32_t mode;
    sweep_vec3 velocity, position, radii;
    double dt;
    uint64_t ttl;
    uint32_t count, spawn, every, interval_ms;
} options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "sweep: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(sweep --help for usage)\n");
    return 2;
}

/* `entity`'s words from argv[optind] on: OP ID [X,Y,Z], again and again. */
static int parse_entity_commands(int argc, char **argv, options *o)
{
    if (optind >= argc)
        return usage_error("%s", "entity needs commands: teleport ID X,Y,Z, velocity ID X,Y,Z, impulse ID X,Y,Z, "
                                 "radii ID X,Y,Z or despawn ID");
    o->commands = calloc((size_t)(argc - optind), sizeof *o->commands);
    if (o->commands == NULL)
        return usage_error("%s", "out of memory");
    while (optind < argc) {
        const char *word = argv[optind++];
        size_t k = 0;
        while (k < sizeof entity_ops / sizeof entity_ops[0] && strcmp(word, entity_ops[k].word))
            k++;
        if (k == sizeof entity_ops / sizeof entity_ops[0])
            return usage_error("entity: '%s' is not teleport, velocity, impulse, radii or despawn", word);
        sweep_msg_entity_command *c = &o->commands[o->ncommands++];
        c->op = entity_ops[k].op;
        if (optind >= argc || !sweep_parse_u32(argv[optind], 0, UINT32_MAX, &c->entity))
            return usage_error("entity: %s needs an entity id", word);
        optind++;
        if (!entity_ops[k].vector)
            continue;
        if (optind >= argc || !sweep_parse_vec3(argv[optind], &c->vector))
            return usage_error("entity: %s needs ID X,Y,Z", word);
        optind++;
    }
    return 0;
}

/* `query`'s words from argv[optind] on: KIND and its points, again and again. */
static int parse_query_items(int argc, char **argv, options *o)
{
    if (optind >= argc)
        return usage_error("%s", "query needs items: ray, rayall or los X,Y,Z X,Y,Z, sweep X,Y,Z X,Y,Z RX,RY,RZ, "
                                 "overlap X,Y,Z R");
    o->items = calloc((size_t)(argc - optind), sizeof *o->items);
    if (o->items == NULL)
        return usage_error("%s", "out of memory");
    while (optind < argc) {
        const char *word = argv[optind++];
        size_t k = 0;
        while (k < sizeof query_kinds / sizeof query_kinds[0] && strcmp(word, query_kinds[k].word))
            k++;
        if (k == sizeof query_kinds / sizeof query_kinds[0])
            return usage_error("query: '%s' is not ray, rayall, los, sweep or overlap", word);
        sweep_msg_query_item *q = &o->items[o->nitems++];
        q->kind = query_kinds[k].kind;
        q->tick = o->at_tick;
        q->fraction = o->at_fraction;
        if (o->ignore) {
            q->ignore = &o->ignore;
            q->ignore_count = 1;
        }
        if (optind >= argc || !sweep_parse_vec3(argv[optind], &q->from))
            return usage_error("query: %s needs a point X,Y,Z", word);
        optind++;
        if (q->kind == SWEEP_WIRE_QUERY_OVERLAP) {
            char *end;
            if (optind >= argc || (q->radius = strtod(argv[optind], &end), *end || end == argv[optind]))
                return usage_error("%s", "query: overlap needs X,Y,Z R");
            optind++;
            continue;
        }
        if (optind >= argc || !sweep_parse_vec3(argv[optind], &q->to))
            return usage_error("query: %s needs two points X,Y,Z X,Y,Z", word);
        optind++;
        if (q->kind == SWEEP_WIRE_QUERY_SWEEP) {
            if (optind >= argc || !sweep_parse_vec3(argv[optind], &q->radii))
                return usage_error("%s", "query: sweep needs X,Y,Z X,Y,Z RX,RY,RZ");
            optind++;
        }
    }
    return 0;
}

/* --at TICK[+FRACTION]. */
static int parse_at(const char *s, options *o)
{
    char tick[32];
    const char *plus = strchr(s, '+');
    size_t n = plus ? (size_t)(plus - s) : strlen(s);
    if (n == 0 || n >= sizeof tick)
        return 0;
    memcpy(tick, s, n);
    tick[n] = 0;
    char *end;
    unsigned long long t = strtoull(tick, &end, 10);
    if (*end || t == 0)
        return 0;
    o->at_tick = t;
    o->at_fraction = 0.0;
    if (plus) {
        o->at_fraction = strtod(plus + 1, &end);
        if (*end || end == plus + 1 || !(o->at_fraction >= 0.0 && o->at_fraction < 1.0))
            return 0;
    }
    return 1;
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
        {"every", required_argument, 0, 'e'},   {"token", required_argument, 0, 'T'},
        {"interval", required_argument, 0, 'i'}, {"help", no_argument, 0, 'h'},
        {"jump", no_argument, 0, 'J'},          {"hold-jump", no_argument, 0, 'H'},
        {"crouch", no_argument, 0, 'C'},
        {"mode", required_argument, 0, 'M'},    {"secret-file", required_argument, 0, 'S'},
        {"role", required_argument, 0, 'R'},    {"identity", required_argument, 0, 'I'},
        {"ttl", required_argument, 0, 'L'},      {"version", no_argument, 0, 'V'},
        {"at", required_argument, 0, 'A'},      {"ignore", required_argument, 0, 'G'},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->ttl = 3600;
    o->dt = 1.0 / 60.0; /* as the bots, the walker and the Python client */
    o->count = 1;
    o->spawn = 1;
    o->every = 1;
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
            o->has_count = 1;
            break;
        case 'e':
            if (!sweep_parse_u32(optarg, 0, UINT32_MAX, &o->every) || o->every == 0)
                return usage_error("--every wants a positive number of ticks, not '%s'", optarg);
            break;
        case 'i':
            if (!sweep_parse_u32(optarg, 0, 3600000, &o->interval_ms))
                return usage_error("--interval wants milliseconds, not '%s'", optarg);
            o->has_interval = 1;
            break;
        case 'T':
            if (!optarg[0])
                return usage_error("%s", "--token wants a token, not an empty string");
            o->token = optarg;
            break;
        case 'b': o->batch = 1; break;
        case 'p':
            if (!sweep_parse_vec3(optarg, &o->position))
                return usage_error("--position wants X,Y,Z, not '%s'", optarg);
            o->has_position = 1;
            break;
        case 's':
            if (!sweep_parse_u32(optarg, 0, UINT32_MAX, &o->spawn))
                return usage_error("--spawn wants a spawn point number (1 = the first, 0 = any), not '%s'", optarg);
            break;
        case 'r':
            if (!sweep_parse_vec3(optarg, &o->radii))
                return usage_error("--radii wants X,Y,Z, not '%s'", optarg);
            o->has_radii = 1;
            break;
        case 'w': o->world = optarg; break;
        case 'J': o->jump = 1; break;
        case 'H': o->hold_jump = 1; break;
        case 'C': o->crouch = 1; break;
        case 'M':
            if (strcmp(optarg, "walk") == 0)
                o->mode = SWEEP_WIRE_MODE_WALK;
            else if (strcmp(optarg, "fly") == 0)
                o->mode = SWEEP_WIRE_MODE_FLY;
            else if (strcmp(optarg, "noclip") == 0)
                o->mode = SWEEP_WIRE_MODE_NOCLIP;
            else
                return usage_error("--mode wants walk, fly or noclip, not '%s'", optarg);
            break;
        case 'S': o->secret_file = optarg; break;
        case 'R':
            if (strcmp(optarg, "player") && strcmp(optarg, "server"))
                return usage_error("--role wants player or server, not '%s'", optarg);
            o->role = optarg;
            break;
        case 'I':
            if (!sweep_token_identity_valid(optarg, strlen(optarg)))
                return usage_error("--identity wants 1 to 64 of A-Z a-z 0-9 . _ @ + -, not '%s'", optarg);
            o->identity = optarg;
            break;
        case 'L':
            if (!sweep_parse_u64(optarg, 1, (uint64_t)1 << 40, &o->ttl))
                return usage_error("--ttl wants a positive number of seconds, not '%s'", optarg);
            break;
        case 'N': o->no_map_check = 1; break;
        case 't': {
            uint32_t t;
            if (!sweep_parse_u32(optarg, 0, UINT32_MAX, &t) || t == 0 || t > 3600000)
                return usage_error("--timeout wants milliseconds, not '%s'", optarg);
            o->timeout_ms = (int)t;
            break;
        }
        case 'j': o->json = 1; break;
        case 'A':
            if (!parse_at(optarg, o))
                return usage_error("--at wants TICK or TICK+FRACTION (a tick above 0, a fraction in [0, 1)), not "
                                   "'%s'", optarg);
            break;
        case 'G':
            if (!sweep_parse_u32(optarg, 1, UINT32_MAX, &o->ignore))
                return usage_error("--ignore wants an entity id, not '%s'", optarg);
            break;
        case 'h': fputs(usage, stdout); exit(0);
        case 'V': printf("sweep %s (protocol %u)\n", SWEEP_VERSION, (unsigned)SWEEP_PROTOCOL_VERSION); exit(0);
        default: return 2;
        }
    }
    if (optind >= argc)
        return usage_error("%s", "a command is needed: move, watch, command, entity, query, ping, stats or token");
    o->command = argv[optind++];
    if (strcmp(o->command, "move") && strcmp(o->command, "watch") && strcmp(o->command, "command") &&
        strcmp(o->command, "entity") && strcmp(o->command, "ping") && strcmp(o->command, "stats") &&
        strcmp(o->command, "token") && strcmp(o->command, "query"))
        return usage_error("unknown command '%s'", o->command);
    if (strcmp(o->command, "query") == 0) {
        int rc = parse_query_items(argc, argv, o);
        if (rc)
            return rc;
    }
    if (strcmp(o->command, "entity") == 0) {
        int rc = parse_entity_commands(argc, argv, o);
        if (rc)
            return rc;
    }
    if (strcmp(o->command, "command") == 0) {
        if (optind >= argc)
            return usage_error("%s", "command needs the mover's name: sweep command --connect HOST:PORT NAME");
        o->mover = argv[optind++];
        if (!o->mover[0])
            return usage_error("%s", "command needs the mover's name, not an empty string");
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (o->token == NULL) {
        const char *env = getenv("SWEEP_TOKEN");
        if (env && env[0])
            o->token = env;
    }
    if (strcmp(o->command, "token") == 0) {
        if (!o->secret_file || !o->role || !o->identity)
            return usage_error("%s", "token needs --secret-file FILE --role player|server --identity NAME");
    } else if (o->secret_file || o->role || o->identity) {
        return usage_error("%s", "--secret-file, --role and --identity are for `sweep token`");
    }
    if (o->jump && o->hold_jump)
        return usage_error("%s", "--jump and --hold-jump exclude each other");
    if ((o->jump || o->hold_jump) && o->mode != SWEEP_WIRE_MODE_WALK)
        return usage_error("%s", "jumping is for walking (--mode walk)");
    if (o->crouch && o->mode != SWEEP_WIRE_MODE_WALK)
        return usage_error("%s", "crouching is for walking (--mode walk)");
    if (strcmp(o->command, "token") == 0) {
        /* nothing more */
    } else if (strcmp(o->command, "move") == 0) {
        if (!o->has_velocity)
            return usage_error("%s", "move needs --velocity X,Y,Z");
        if (!o->connect && o->mode != SWEEP_WIRE_MODE_WALK)
            return usage_error("%s", "a local move walks: --mode fly and noclip are the server's");
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

/* The shortest decimal that reads back as the same double: 0.4, not
 * 0.40000000000000002, and still every bit of the value. */
static const char *shortest(char buf[32], double v)
{
    for (int digits = 15; digits < 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, 32, "%.17g", v);
    return buf;
}

static void print_num(double v)
{
    char b[32];
    /* JSON has no NaN or infinity. */
    if (isfinite(v))
        fputs(shortest(b, v), stdout);
    else
        printf("null");
}

static void print_nums(const options *o, const double *v, int n)
{
    printf(o->json ? "[" : "(");
    for (int i = 0; i < n; i++) {
        if (i)
            printf(o->json ? "," : ", ");
        if (o->json)
            print_num(v[i]);
        else {
            char b[32];
            fputs(shortest(b, v[i]), stdout);
        }
    }
    printf(o->json ? "]" : ")");
}

static void print_vec(const options *o, sweep_vec3 v)
{
    double a[3] = {v.x, v.y, v.z};
    print_nums(o, a, 3);
}

/* A JSON string (or plain text) with quotes, backslashes and controls escaped. */
static void print_str(const options *o, const char *s)
{
    if (!o->json) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            printf("\\u%04x", (unsigned char)*p);
        else
            putchar(*p);
    }
    putchar('"');
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
    const char *rerun;     /* "match", "mismatch" or NULL: the move re-run from the server's start */
    /* Movers: ids, 0 = none. */
    uint32_t ground_mover, pushed_by;
    int carried, pushed, has_start;
    sweep_vec3 start;
    /* The rules: what acted, by how much the move asked too much, what it got. */
    uint32_t rules, buttons;
    double speed_excess, time_excess, applied_dt;
    int corrected;
    double correction;
    /* Volumes of the map that acted (volumes.id, 0 = none). */
    uint32_t launched_by, teleported_by, hurt_by, killed_by, entered, left;
    int teleport_blocked;
    double damage;
    /* Liquids and ladders: ids as above, the liquid's depth level. */
    uint32_t liquid, liquid_level, entered_liquid, left_liquid, ladder;
    /* The stance (core/stance.h). */
    int crouched, stance_blocked;
} shown_result;

/* The volume fields of a result, into what print_result shows. */
static void show_volumes(shown_result *s, const sweep_msg_move_result *r)
{
    s->launched_by = r->launched_by;
    s->teleported_by = r->teleported_by;
    s->teleport_blocked = r->teleport_blocked;
    s->hurt_by = r->hurt_by;
    s->damage = r->damage;
    s->killed_by = r->killed_by;
    s->entered = r->entered;
    s->left = r->left;
    s->liquid = r->liquid;
    s->liquid_level = r->liquid_level;
    s->entered_liquid = r->entered_liquid;
    s->left_liquid = r->left_liquid;
    s->ladder = r->ladder;
}

/* The volumes of a result as " name=id" pairs (text) or ",\"name\":id"
 * (JSON), only those that acted. */
static void print_volumes(const options *o, const shown_result *r)
{
    const struct {
        const char *name;
        uint32_t id;
    } v[] = {{"launched_by", r->launched_by}, {"teleported_by", r->teleported_by}, {"hurt_by", r->hurt_by},
             {"killed_by", r->killed_by},     {"entered", r->entered},             {"left", r->left},
             {"liquid", r->liquid},           {"liquid_level", r->liquid_level},   {"entered_liquid", r->entered_liquid},
             {"left_liquid", r->left_liquid}, {"ladder", r->ladder}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i].id)
            printf(o->json ? ",\"%s\":%" PRIu32 : " %s=%" PRIu32, v[i].name, v[i].id);
    if (r->teleport_blocked)
        printf(o->json ? ",\"teleport_blocked\":true" : " teleport_blocked=1");
    if (r->hurt_by) {
        char b[32];
        printf(o->json ? ",\"damage\":%s" : " damage=%s", shortest(b, r->damage));
    }
}

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
        if (r->ground_mover)
            printf(",\"ground_mover\":%" PRIu32, r->ground_mover);
        if (r->has_start) {
            printf(",\"carried\":%s,\"pushed\":%s,\"pushed_by\":%" PRIu32 ",\"start_position\":",
                   r->carried ? "true" : "false", r->pushed ? "true" : "false", r->pushed_by);
            print_vec(o, r->start);
        }
        char names[256];
        printf(",\"buttons\":%" PRIu32 ",\"rules\":%" PRIu32 ",\"rule_names\":", r->buttons, r->rules);
        print_str(o, sweep_client_rules_string(r->rules, ",", names, sizeof names));
        printf(",\"speed_excess\":");
        print_num(r->speed_excess);
        printf(",\"time_excess\":");
        print_num(r->time_excess);
        printf(",\"applied_dt\":");
        print_num(r->applied_dt);
        printf(",\"crouched\":%s,\"stance_blocked\":%s", r->crouched ? "true" : "false",
               r->stance_blocked ? "true" : "false");
        printf(",\"corrected\":%s,\"correction\":", r->corrected ? "true" : "false");
        print_num(r->correction);
        print_volumes(o, r);
        if (r->predicted)
            printf(",\"predicted\":\"%s\"", r->predicted);
        if (r->rerun)
            printf(",\"rerun\":\"%s\"", r->rerun);
        printf("}\n");
    } else {
        printf("move %" PRIu32 " seq=%" PRIu32 " tick=%" PRIu64 " position=", r->index, r->sequence, r->server_tick);
        print_vec(o, r->position);
        printf(" velocity=");
        print_vec(o, r->velocity);
        printf(" grounded=%d contacts=%" PRIu32, r->grounded, r->contact_count);
        if (r->ground_mover)
            printf(" ground_mover=%" PRIu32, r->ground_mover);
        if (r->has_start) {
            if (r->carried)
                printf(" carried=1");
            if (r->pushed)
                printf(" pushed=1");
            printf(" pushed_by=%" PRIu32 " start=", r->pushed_by);
            print_vec(o, r->start);
        }
        if (r->buttons & SWEEP_WISH_JUMP)
            printf(" jump=1");
        if (r->crouched)
            printf(" crouched=1");
        if (r->stance_blocked)
            printf(" stance_blocked=1");
        char names[256], b[32];
        printf(" rules=%s", r->rules ? sweep_client_rules_string(r->rules, ",", names, sizeof names) : "none");
        if (r->speed_excess > 0)
            printf(" speed_excess=%s", shortest(b, r->speed_excess));
        if (r->time_excess > 0)
            printf(" time_excess=%s", shortest(b, r->time_excess));
        printf(" applied_dt=%s", shortest(b, r->applied_dt));
        if (r->corrected)
            printf(" corrected=1 correction=%s", shortest(b, r->correction));
        print_volumes(o, r);
        if (r->predicted)
            printf(" predicted=%s", r->predicted);
        if (r->rerun)
            printf(" rerun=%s", r->rerun);
        printf("\n");
    }
    fflush(stdout);
}

/* The Spawned answer (or the local start): where, how big, which spawn
 * point, and what the server did not take from the Spawn (rules). */
static void print_spawned(const options *o, uint32_t entity, sweep_vec3 position, sweep_vec3 radii, uint32_t point,
                          uint32_t rules)
{
    char names[256];
    sweep_client_rules_string(rules, ",", names, sizeof names);
    if (o->json) {
        printf("{\"spawned\":%" PRIu32 ",\"position\":", entity);
        print_vec(o, position);
        printf(",\"radii\":");
        print_vec(o, radii);
        printf(",\"spawn_point\":%" PRIu32 ",\"rules\":%" PRIu32 ",\"rule_names\":", point, rules);
        print_str(o, names);
        printf("}\n");
    } else {
        printf("spawned entity=%" PRIu32 " position=", entity);
        print_vec(o, position);
        printf(" radii=");
        print_vec(o, radii);
        if (point)
            printf(" spawn_point=%" PRIu32, point);
        printf(" rules=%s\n", rules ? names : "none");
    }
}

/* Who the server made the session (Welcome). */
static void print_session(const options *o, const sweep_client_welcome *w)
{
    const char *role = w->has_roles ? sweep_wire_role_name(w->role) : "none";
    if (o->json) {
        printf("{\"session\":%" PRIu64 ",\"role\":", w->session_id);
        print_str(o, role);
        printf(",\"identity\":");
        print_str(o, w->identity);
        printf(",\"time_bank\":");
        print_num(w->time_bank);
        printf("}\n");
    } else {
        char b[32];
        /* The server role's own entities move as told; only those it
         * spawned as players pay from the bank. */
        printf("session id=%" PRIu64 " role=%s identity=%s time_bank=%s%s\n", w->session_id, role,
               w->identity[0] ? w->identity : "-", shortest(b, w->time_bank),
               w->has_roles && w->role == SWEEP_WIRE_ROLE_SERVER ? " (charged to its player entities only)" : "");
    }
}

/* Prints an error by name (stderr, and a JSON line on stdout with --json); returns 1. */
static int report_named(const options *o, const char *name, const char *message, uint32_t sequence, int has_sequence)
{
    fprintf(stderr, "sweep: error %s: %s", name, message);
    if (has_sequence)
        fprintf(stderr, " (sequence %" PRIu32 ")", sequence);
    fprintf(stderr, "\n");
    if (o->json) {
        printf("{\"error\":\"%s\",\"sequence\":%" PRIu32 ",\"message\":", name, sequence);
        print_str(o, message);
        printf("}\n");
    }
    fflush(stdout);
    return 1;
}

static int report(const options *o, const sweep_client_error *e)
{
    return report_named(o, sweep_client_error_name(e), e->message, e->sequence, e->status == SWEEP_CLIENT_E_SERVER);
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
    sweep_movers *movers;
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

/* The map's movers at tick_rate (0 = the map's). */
static int build_movers(const options *o, local_map *m, double tick_rate)
{
    sweep_client_error e;
    if (sweep_predict_build_movers(&m->lv, tick_rate, &m->movers, &e) != SWEEP_CLIENT_OK)
        return report_msg(o, e.status, "cannot build the map's movers: %s", e.message);
    return 0;
}

/* The buttons of the next move: --hold-jump presses jump always, --jump
 * when the player stands (grounded: as far as the caller knows); --crouch
 * holds crouch. */
static uint32_t buttons_for(const options *o, int grounded)
{
    return (o->hold_jump || (o->jump && grounded) ? SWEEP_WISH_JUMP : 0u) | (o->crouch ? SWEEP_WISH_CROUCH : 0u);
}

/* The wish of every move. */
static sweep_wish wish_for(const options *o, int grounded)
{
    sweep_wish w = {.velocity = o->velocity, .buttons = buttons_for(o, grounded)};
    return w;
}

/* Moves locally with the core and the map's rules, exactly as the server
 * would walk a player before its first tick (movers at the start of their
 * paths). The rules shown are the core's (Speed, Jump, Limit): the time
 * budget and the claimed position are the server's business. */
static int move_local(const options *o, local_map *m, sweep_vec3 start, sweep_vec3 radii)
{
    if (m->lv.mover_count && build_movers(o, m, 0) != 0)
        return 1;
    print_spawned(o, 0, start, radii, o->has_position ? 0 : o->spawn ? o->spawn : 1, 0);
    sweep_predict_state s = sweep_predict_state_at(start);
    for (uint32_t i = 0; i < o->count; i++) {
        sweep_act_result ar;
        sweep_wish w = wish_for(o, s.grounded);
        sweep_client_error ce;
        if (sweep_predict_run(m->world, m->movers, &m->lv.config, &m->lv.rules, radii, &s, &w, o->dt, &ar, &ce) !=
            SWEEP_CLIENT_OK) {
            /* Named as the server would name it (ce.code), so local and
             * remote runs read alike. */
            sweep_client_error e = {.status = ce.code ? SWEEP_CLIENT_E_SERVER : ce.status, .code = ce.code,
                                    .sequence = i + 1};
            snprintf(e.message, sizeof e.message, "move %u refused by the core: %.200s", i + 1, ce.message);
            return report(o, &e);
        }
        const sweep_move_result r = ar.move;
        shown_result sr = {
            .index = i + 1, .sequence = i + 1, .position = r.position, .velocity = r.velocity,
            .ground_normal = r.ground_normal, .grounded = s.grounded,
            .ground_material = r.ground_material, .contact_count = r.contact_count, .contacts = r.contacts,
            .ground_mover = sweep_predict_mover_id(&m->lv, r.ground_mover), .rules = ar.rules,
            .buttons = w.buttons, .speed_excess = ar.speed_excess, .applied_dt = o->dt,
            .crouched = s.stance == SWEEP_STANCE_CROUCH, .stance_blocked = ar.stance_blocked != 0,
        };
        sweep_msg_move_result vr;
        sweep__entity_volumes(&m->lv, &ar.volumes, &vr);
        show_volumes(&sr, &vr);
        print_result(o, &sr);
    }
    return 0;
}

/* A remote run: the player, its prediction and what is left to do. */
typedef struct run {
    const options *o;
    sweep_client *c;
    local_map *m;
    uint32_t entity;
    sweep_predictor *pred; /* when predicting */
    int predicting, watching;
    int mismatches, reruns_matched;
    int failed; /* an error was reported */
    int last_grounded; /* the last answer's, for --jump without a prediction */
    /* The buttons of the moves sent lately, by sequence % 64, to print with their answers. */
    uint32_t sent_seq[64], sent_buttons[64];
} run;

/* Whether the next move starts on the ground, as well as the client knows. */
static int grounded_now(const run *rn)
{
    return rn->predicting ? sweep_predictor_current(rn->pred).grounded : rn->last_grounded;
}

/* Makes move `seq`: its wish (jumping as the options say), predicted when
 * predicting (at the tick the server will apply it, among the movers as
 * they will be then), with the prediction as its claimed position. */
static sweep_client_move_req next_move(run *rn, uint32_t seq)
{
    const options *o = rn->o;
    sweep_wish w = wish_for(o, grounded_now(rn));
    sweep_client_move_req m = {.entity = rn->entity, .velocity = w.velocity, .dt = o->dt, .buttons = w.buttons,
                               .mode = o->mode};
    if (rn->predicting && sweep_predictor_step_at(rn->pred, seq, &w, o->dt, sweep_client_estimate_tick(rn->c), NULL,
                                                  NULL) == SWEEP_CLIENT_OK) {
        m.has_claimed_position = 1;
        m.claimed_position = sweep_predictor_current(rn->pred).position;
    }
    rn->sent_seq[seq % 64] = seq;
    rn->sent_buttons[seq % 64] = w.buttons;
    return m;
}

/* Prints one server result, reconciling it with the prediction if any. */
static void show_remote(run *rn, const sweep_msg_move_result *r, uint32_t index)
{
    const char *predicted = NULL, *rerun = NULL;
    if (rn->predicting) {
        sweep_predict_ack a;
        sweep_predictor_ack(rn->pred, r, &a, NULL);
        predicted = a.mismatch ? "mismatch" : "match";
        if (a.rerun)
            rerun = a.rerun_match ? "match" : "mismatch";
        rn->mismatches += a.mismatch;
        rn->reruns_matched += a.mismatch && a.rerun && a.rerun_match;
    }
    rn->last_grounded = r->grounded;
    shown_result sr = {
        .index = index, .sequence = r->sequence, .server_tick = r->server_tick, .position = r->position,
        .velocity = r->velocity, .ground_normal = r->ground_normal, .grounded = r->grounded,
        .ground_material = r->ground_material, .contact_count = r->contact_count, .contacts = r->contacts,
        .predicted = predicted, .rerun = rerun, .ground_mover = r->ground_mover, .pushed_by = r->pushed_by,
        .carried = r->carried, .pushed = r->pushed, .has_start = r->has_start_position, .start = r->start_position,
        .rules = r->rules, .speed_excess = r->speed_excess, .time_excess = r->time_excess,
        .applied_dt = r->applied_dt, .corrected = r->corrected, .correction = r->correction,
        .buttons = rn->sent_seq[r->sequence % 64] == r->sequence ? rn->sent_buttons[r->sequence % 64] : 0,
        .crouched = r->crouched, .stance_blocked = r->stance_blocked,
    };
    show_volumes(&sr, r);
    print_result(rn->o, &sr);
}

/* Handles an event that is not the answer being waited for: a WorldState
 * moves the predictor's movers, the crushing of our player ends the run.
 * Returns 0, or 1 after reporting an error. */
static int other_event(run *rn, const sweep_client_event *ev)
{
    const options *o = rn->o;
    if (ev->kind == SWEEP_CLIENT_EV_WORLD_STATE && rn->predicting && rn->watching) {
        sweep_client_error e;
        if (sweep_predictor_world_state(rn->pred, &ev->as.world_state, &e) != SWEEP_CLIENT_OK)
            return report_msg(o, SWEEP_CLIENT_E_PROTOCOL, "%s", e.message);
    } else if (ev->kind == SWEEP_CLIENT_EV_DESPAWNED && ev->as.despawned.entity == rn->entity) {
        /* Taken out unasked: a mover crushed it, or a kill volume took it. */
        const sweep_msg_despawned *d = &ev->as.despawned;
        int killed = d->killed_by != 0;
        const char *field = killed ? "killed_by" : "crushed_by";
        uint32_t by = killed ? d->killed_by : d->crushed_by;
        char msg[128];
        snprintf(msg, sizeof msg, "entity %" PRIu32 " was %s %" PRIu32, d->entity,
                 killed ? "killed by volume" : "crushed by mover", by);
        if (o->json)
            printf("{\"despawned\":%" PRIu32 ",\"%s\":%" PRIu32 "}\n", d->entity, field, by);
        else
            printf("despawned entity=%" PRIu32 " %s=%" PRIu32 "\n", d->entity, field, by);
        return report_named(o, killed ? "Killed" : "Crushed", msg, 0, 0);
    } else if (ev->kind == SWEEP_CLIENT_EV_ERROR) {
        return report(o, &ev->as.error);
    } else if (ev->kind == SWEEP_CLIENT_EV_BYE) {
        return report(o, &ev->as.error);
    }
    return 0;
}

/* Handles everything already received, without waiting: the newest poses
 * before the next prediction. */
static int drain(run *rn)
{
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s;
    while ((s = sweep_client_poll(rn->c, 0, &ev, &e)) == SWEEP_CLIENT_OK)
        if (other_event(rn, &ev) != 0)
            return 1;
    return s == SWEEP_CLIENT_E_TIMEOUT ? 0 : report(rn->o, &e);
}

/* After a blocking move's answer r: the WorldStates that came before it
 * (ticks up to its own) are applied before the answer is reconciled, later
 * ones after, as if they had been read in order. */
static int settle_single(run *rn, const sweep_msg_move_result *r, uint32_t index)
{
    sweep_client_event ev;
    sweep_client_error e;
    sweep_client_status s;
    int shown = 0;
    while ((s = sweep_client_poll(rn->c, 0, &ev, &e)) == SWEEP_CLIENT_OK) {
        if (!shown && ev.kind == SWEEP_CLIENT_EV_WORLD_STATE && ev.as.world_state.tick > r->server_tick) {
            show_remote(rn, r, index);
            shown = 1;
        }
        if (other_event(rn, &ev) != 0)
            return 1;
    }
    if (!shown)
        show_remote(rn, r, index);
    return s == SWEEP_CLIENT_E_TIMEOUT ? 0 : report(rn->o, &e);
}

static int move_remote(const options *o, sweep_client *c, local_map *m, sweep_vec3 start, sweep_vec3 radii)
{
    sweep_client_error e;
    sweep_msg_spawned sp;
    sweep_client_status st;
    /* Only a walk follows the rules the predictor runs. */
    run rn = {.o = o, .c = c, .m = m, .predicting = m->loaded && o->mode == SWEEP_WIRE_MODE_WALK};
    print_session(o, sweep_client_get_welcome(c));
    if (rn.predicting && m->lv.mover_count && build_movers(o, m, sweep_client_get_welcome(c)->tick_rate) != 0)
        return 1;
    /* A spawn point unless --position: the server's map's, with the map's
     * radii unless --radii (the server decides what a player gets). */
    (void)start;
    sweep_vec3 asked_radii = o->has_radii ? radii : sweep_v3(0, 0, 0);
    if (o->has_position)
        st = sweep_client_spawn(c, o->position, asked_radii, &sp, &e);
    else if (o->spawn == 0 && sweep_client_get_welcome(c)->role == SWEEP_WIRE_ROLE_SERVER)
        /* The server role's point 0 would mean "at the position given". */
        st = sweep_client_spawn_at_point(c, 1, asked_radii, &sp, &e);
    else
        st = sweep_client_spawn_at_point(c, o->spawn, asked_radii, &sp, &e);
    if (st != SWEEP_CLIENT_OK)
        return report(o, &e);
    rn.entity = sp.entity;
    print_spawned(o, sp.entity, sp.position, sp.radii, sp.spawn_point, sp.rules);
    if (rn.predicting) {
        if (sweep_predictor_create(m->world, &m->lv.config, &m->lv.rules, sp.position, sp.radii, &rn.pred, &e) !=
            SWEEP_CLIENT_OK)
            return report(o, &e);
        if (m->movers && sweep_predictor_set_movers(rn.pred, m->movers, &m->lv, &e) != SWEEP_CLIENT_OK) {
            sweep_predictor_destroy(rn.pred);
            return report(o, &e);
        }
    }
    if (rn.predicting && m->movers) {
        /* Predicting among movers needs their poses of every tick, from now. */
        sweep_msg_world_state now;
        int bad = sweep_client_watch_world(c, 1, &now, &e) != SWEEP_CLIENT_OK;
        if (!bad && sweep_predictor_world_state(rn.pred, &now, &e) != SWEEP_CLIENT_OK) {
            e.status = SWEEP_CLIENT_E_PROTOCOL;
            bad = 1;
        }
        if (bad) {
            sweep_predictor_destroy(rn.pred);
            return report(o, &e);
        }
        rn.watching = 1;
    }
    int rc = 0;
    uint32_t done = 0;
    uint32_t max_batch = o->batch ? sweep_client_max_batch(c) : 1;
    sweep_client_move_req *reqs = calloc(max_batch, sizeof *reqs);
    uint32_t *seqs = calloc(max_batch, sizeof *seqs);
    if (!reqs || !seqs) {
        rc = report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
        goto out;
    }
    /* A player's time is budgeted by the server's clock: by default its
     * moves go out as the time they ask passes. */
    const sweep_client_welcome *wel = sweep_client_get_welcome(c);
    int pace = !o->has_interval && wel->has_roles && wel->role == SWEEP_WIRE_ROLE_PLAYER;
    if (pace && o->batch && o->dt > 0 && wel->time_bank > 0) {
        /* A batch is sent once its time has passed, and must not ask more
         * than the bank holds: half of it, to leave room for the ticks. */
        double fit = 0.5 * wel->time_bank / o->dt;
        if (fit < max_batch)
            max_batch = fit >= 1 ? (uint32_t)fit : 1;
    }
    uint64_t next_at = sweep_client_now_ns();
    /* After a stall of this process a paced player catches up at most half
     * a time bank, as a game drops a hitch's frames: moves owed beyond that
     * would be cut by the server as a lag switch, and the rest of the bank
     * is for the server's own lateness. */
    uint64_t catch_up = pace && wel->time_bank > 0 ? (uint64_t)(0.5 * wel->time_bank * 1e9) : 0;
    while (done < o->count && rc == 0) {
        uint32_t n = o->count - done < max_batch ? o->count - done : max_batch;
        if (pace) {
            uint64_t now = sweep_client_now_ns();
            if (now > next_at + catch_up)
                next_at = now - catch_up;
        }
        double asked = (o->batch ? n : 1) * o->dt;
        if (pace && o->batch && asked > 0 && asked <= 3600)
            next_at += (uint64_t)(asked * 1e9); /* a batch waits for its time to pass */
        if (o->interval_ms || pace) {
            /* Wait while handling what comes, so the poses stay current. */
            uint64_t until = pace ? next_at : sweep_client_now_ns() + (uint64_t)o->interval_ms * 1000000u;
            for (uint64_t now; rc == 0 && (now = sweep_client_now_ns()) < until;) {
                sweep_client_event ev;
                int ms = (int)((until - now + 999999) / 1000000);
                st = sweep_client_poll(c, ms, &ev, &e);
                if (st == SWEEP_CLIENT_OK)
                    rc = other_event(&rn, &ev);
                else if (st != SWEEP_CLIENT_E_TIMEOUT)
                    rc = report(o, &e);
            }
            if (rc)
                break;
        }
        if ((rc = drain(&rn)) != 0)
            break;
        if (pace && !o->batch && asked > 0 && asked <= 3600) /* a bad dt is the server's to refuse, not a wait */
            next_at += (uint64_t)(asked * 1e9); /* a single move goes, then its time passes */
        if (!o->batch) {
            /* One move, one blocking call: over UDP it is resent until answered. */
            sweep_client_move_req req = next_move(&rn, sweep_client_next_sequence(c));
            sweep_msg_move_result r;
            if (sweep_client_move_request(c, &req, &r, NULL, &e) != SWEEP_CLIENT_OK) {
                rc = report(o, &e);
                break;
            }
            done++;
            rc = settle_single(&rn, &r, done);
            continue;
        }
        /* The numbers the batch's moves will carry, for their predictions. */
        sweep_client_batch_sequences(c, n, seqs);
        for (uint32_t i = 0; i < n; i++)
            reqs[i] = next_move(&rn, seqs[i]);
        if (sweep_client_send_batch(c, reqs, n, seqs, &e) != SWEEP_CLIENT_OK) {
            rc = report(o, &e);
            break;
        }
        /* Collect the n answers, in order with everything else; an Error
         * about one of them ends the run. */
        for (uint32_t got = 0; got < n && rc == 0;) {
            sweep_client_event ev;
            if (sweep_client_poll(c, o->timeout_ms, &ev, &e) != SWEEP_CLIENT_OK) {
                rc = report(o, &e);
                break;
            }
            if (ev.kind != SWEEP_CLIENT_EV_MOVE_RESULT) {
                rc = other_event(&rn, &ev);
                continue;
            }
            got++;
            show_remote(&rn, &ev.as.move_result, done + got);
        }
        done += n;
    }
    if (rc == 0 && rn.mismatches && !o->json) {
        fprintf(stderr, "sweep: %d prediction(s) differed from the server", rn.mismatches);
        if (rn.reruns_matched)
            fprintf(stderr, "; %d of them re-run from where the server started them (movers, lost moves) agreed",
                    rn.reruns_matched);
        fprintf(stderr, "\n");
    }
out:
    free(reqs);
    free(seqs);
    sweep_predictor_destroy(rn.pred);
    return rc;
}

/* --- watch ---------------------------------------------------------------------- */

/* One tick's movers, put together from the parts of a split UDP WorldState. */
typedef struct tick_view {
    uint64_t tick;
    uint32_t mover_count, have, cap;
    sweep_wire_mover *movers;
    int open;    /* a tick is being collected */
    uint32_t printed;
} tick_view;

static const char *mover_name(const local_map *m, uint32_t id)
{
    uint32_t i = m->loaded ? sweep_predict_mover_index(&m->lv, id) : SWEEP_NO_MOVER;
    return i == SWEEP_NO_MOVER ? NULL : m->lv.movers[i].name;
}

static void print_tick(const options *o, const local_map *m, const tick_view *v)
{
    int partial = v->have < v->mover_count;
    if (o->json) {
        printf("{\"tick\":%" PRIu64 ",\"mover_count\":%" PRIu32 ",", v->tick, v->mover_count);
        if (partial)
            printf("\"partial\":true,");
        printf("\"movers\":[");
    } else {
        printf("tick=%" PRIu64 " movers=%" PRIu32, v->tick, v->mover_count);
        if (partial)
            printf(" partial=%" PRIu32, v->have);
        printf("\n");
    }
    for (uint32_t i = 0; i < v->have; i++) {
        const sweep_wire_mover *w = &v->movers[i];
        const char *name = mover_name(m, w->id);
        if (o->json) {
            printf("%s{\"id\":%" PRIu32, i ? "," : "", w->id);
            if (name) {
                printf(",\"name\":");
                print_str(o, name);
            }
            printf(",\"position\":");
        } else {
            printf("  mover id=%" PRIu32, w->id);
            if (name)
                printf(" name=%s", name);
            printf(" position=");
        }
        print_vec(o, w->position);
        printf(o->json ? ",\"rotation\":" : " rotation=");
        print_nums(o, w->rotation, 4);
        printf(o->json ? ",\"flags\":%" PRIu32 "}" : " flags=%" PRIu32 "\n", w->flags);
    }
    if (o->json)
        printf("]}\n");
    fflush(stdout);
}

/* Takes one WorldState (or part); prints every tick that is complete, or
 * left incomplete by a newer one. Returns -1 when out of memory. */
static int take_world_state(const options *o, const local_map *m, tick_view *v, const sweep_msg_world_state *ws)
{
    if (v->open && ws->tick < v->tick)
        return 0; /* a late part of a tick already printed or given up */
    if (v->open && ws->tick > v->tick) {
        print_tick(o, m, v); /* its missing parts were lost */
        v->printed++;
        v->open = 0;
    }
    if (!v->open) {
        v->open = 1;
        v->tick = ws->tick;
        v->have = 0;
    }
    v->mover_count = ws->mover_count;
    if (v->have + ws->count > v->cap) {
        uint32_t cap = v->have + ws->count;
        sweep_wire_mover *n = realloc(v->movers, (size_t)cap * sizeof *n);
        if (n == NULL)
            return -1;
        v->movers = n;
        v->cap = cap;
    }
    if (ws->count)
        memcpy(v->movers + v->have, ws->movers, (size_t)ws->count * sizeof *ws->movers);
    v->have += ws->count;
    if (v->have >= v->mover_count) {
        print_tick(o, m, v);
        v->printed++;
        v->open = 0;
    }
    return 0;
}

static int watch(const options *o, sweep_client *c, const local_map *m)
{
    sweep_client_error e;
    sweep_msg_world_state first;
    if (sweep_client_watch_world(c, o->every, &first, &e) != SWEEP_CLIENT_OK)
        return report(o, &e);
    tick_view v = {0};
    int rc = 0;
    uint64_t limit = o->has_count ? o->count : UINT64_MAX;
    if (take_world_state(o, m, &v, &first) < 0)
        rc = report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
    /* A silent client is dropped by the server after its idle timeout
     * (--udp-idle-timeout, --idle-timeout over TCP): a ping now and then
     * keeps the session. */
    uint64_t next_ping = sweep_client_now_ns() + 5000000000u;
    while (rc == 0 && v.printed < limit) {
        sweep_client_event ev;
        sweep_client_status s = sweep_client_poll(c, 1000, &ev, &e);
        if (s == SWEEP_CLIENT_OK && ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
            if (take_world_state(o, m, &v, &ev.as.world_state) < 0)
                rc = report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
        } else if (s == SWEEP_CLIENT_OK && (ev.kind == SWEEP_CLIENT_EV_ERROR || ev.kind == SWEEP_CLIENT_EV_BYE)) {
            rc = report(o, &ev.as.error);
        } else if (s != SWEEP_CLIENT_OK && s != SWEEP_CLIENT_E_TIMEOUT) {
            rc = report(o, &e);
        }
        if (rc == 0 && sweep_client_now_ns() >= next_ping) {
            uint64_t rtt;
            if (sweep_client_ping(c, &rtt, &e) != SWEEP_CLIENT_OK && e.status != SWEEP_CLIENT_E_TIMEOUT)
                rc = report(o, &e);
            next_ping = sweep_client_now_ns() + 5000000000u;
        }
    }
    free(v.movers);
    return rc;
}

/* --- stats and tokens ------------------------------------------------------------ */

/* One Stats rule vector: "Speed:3,Jump:0,..." or a JSON object. */
static void print_rule_counts(const options *o, const uint64_t *v, uint32_t n)
{
    printf(o->json ? "{" : "");
    for (uint32_t i = 0; i < n && i < SWEEP_WIRE_RULE_SLOTS; i++) {
        const char *name = sweep_wire_rule_name(i);
        char unknown[16];
        if (strcmp(name, "Unknown") == 0) {
            snprintf(unknown, sizeof unknown, "Bit%u", i);
            name = unknown;
        }
        printf(o->json ? "%s\"%s\":%" PRIu64 : "%s%s:%" PRIu64, i ? "," : "", name, v[i]);
    }
    printf(o->json ? "}" : "");
}

/* Stats.errors_by_code: "BadDt:3,RateLimited:1" (codes that counted
 * something; "none") or a JSON object of every code the server sent. */
static void print_error_counts(const options *o, const uint64_t *v, uint32_t n)
{
    int any = 0;
    printf(o->json ? "{" : "");
    for (uint32_t i = 0; i < n && i < SWEEP_WIRE_CODE_SLOTS; i++) {
        if (!o->json && v[i] == 0)
            continue;
        const char *name = sweep_wire_code_name((sweep_wire_code)i);
        char unknown[16];
        if (strcmp(name, "Unknown") == 0) {
            snprintf(unknown, sizeof unknown, "Code%u", i);
            name = unknown;
        }
        printf(o->json ? "%s\"%s\":%" PRIu64 : "%s%s:%" PRIu64, any ? "," : "", name, v[i]);
        any = 1;
    }
    printf(o->json ? "}" : any ? "" : "none");
}

static void print_stats(const options *o, const sweep_msg_stats *st)
{
    printf(o->json ? "{\"sessions\":%" PRIu32 ",\"entities\":%" PRIu32 ",\"moves_total\":%" PRIu64
                     ",\"errors_total\":%" PRIu64 ",\"tick_ns_p50\":%" PRIu64 ",\"tick_ns_p99\":%" PRIu64
                     ",\"movers\":%" PRIu32 ",\"crushed_total\":%" PRIu64 ",\"rules_total\":"
                   : "sessions=%" PRIu32 " entities=%" PRIu32 " moves_total=%" PRIu64 " errors_total=%" PRIu64
                     " tick_ns_p50=%" PRIu64 " tick_ns_p99=%" PRIu64 " movers=%" PRIu32 " crushed_total=%" PRIu64
                     " rules_total=",
           st->sessions, st->entities, st->moves_total, st->errors_total, st->tick_ns_p50, st->tick_ns_p99,
           st->movers, st->crushed_total);
    print_rule_counts(o, st->rules_total, st->rules_total_count);
    printf(o->json ? ",\"session_rules\":" : " session_rules=");
    print_rule_counts(o, st->session_rules, st->session_rules_count);
    printf(o->json ? ",\"errors_by_code\":" : " errors_by_code=");
    print_error_counts(o, st->errors_by_code, st->errors_by_code_count);
    printf(o->json ? ",\"tcp_bytes_in\":%" PRIu64 ",\"tcp_bytes_out\":%" PRIu64 ",\"udp_bytes_in\":%" PRIu64
                     ",\"udp_bytes_out\":%" PRIu64 ",\"udp_dropped\":%" PRIu64 ",\"ticks_total\":%" PRIu64
                     ",\"tick_ns_total\":%" PRIu64 ",\"move_ns_total\":%" PRIu64 "}\n"
                   : " tcp_bytes_in=%" PRIu64 " tcp_bytes_out=%" PRIu64 " udp_bytes_in=%" PRIu64
                     " udp_bytes_out=%" PRIu64 " udp_dropped=%" PRIu64 " ticks_total=%" PRIu64
                     " tick_ns_total=%" PRIu64 " move_ns_total=%" PRIu64 "\n",
           st->tcp_bytes_in, st->tcp_bytes_out, st->udp_bytes_in, st->udp_bytes_out, st->udp_dropped,
           st->ticks_total, st->tick_ns_total, st->move_ns_total);
}

/* `sweep token`: mints a token with the secret of --secret-file. */
static int mint_token(const options *o)
{
    uint8_t secret[SWEEP_TOKEN_SECRET_MAX];
    size_t len = 0;
    int loose = 0;
    char err[512];
    if (sweep_token_secret_read(o->secret_file, secret, &len, &loose, err, sizeof err) != 0)
        return report_msg(o, SWEEP_CLIENT_E_ARG, "%s", err);
    if (loose)
        fprintf(stderr, "sweep: warning: %s can be read by others; anyone who reads it can mint any token\n",
                o->secret_file);
    uint32_t role = strcmp(o->role, "server") == 0 ? SWEEP_WIRE_ROLE_SERVER : SWEEP_WIRE_ROLE_PLAYER;
    uint64_t now = (uint64_t)time(NULL);
    char token[SWEEP_TOKEN_MAX + 1];
    sweep_token_status ts = sweep_token_make(secret, len, role, o->identity, now + o->ttl, token, sizeof token);
    memset(secret, 0, sizeof secret);
    if (ts != SWEEP_TOKEN_OK)
        return report_msg(o, SWEEP_CLIENT_E_ARG, "cannot make the token: %s", sweep_token_status_message(ts));
    if (o->json) {
        printf("{\"token\":");
        print_str(o, token);
        printf(",\"role\":\"%s\",\"identity\":", o->role);
        print_str(o, o->identity);
        printf(",\"expiry\":%" PRIu64 "}\n", now + o->ttl);
    } else {
        printf("%s\n", token);
    }
    return 0;
}

/* --- main ----------------------------------------------------------------------- */

static int mover_command(const options *o, sweep_client *c)
{
    sweep_client_error e;
    sweep_msg_mover_commanded mc;
    if (sweep_client_mover_command(c, o->mover, &mc, &e) != SWEEP_CLIENT_OK)
        return report(o, &e);
    if (o->json) {
        printf("{\"commanded\":");
        print_str(o, o->mover);
        printf(",\"mover\":%" PRIu32 ",\"tick\":%" PRIu64 "}\n", mc.mover, mc.tick);
    } else {
        printf("commanded mover=%" PRIu32 " name=%s tick=%" PRIu64 "\n", mc.mover, o->mover, mc.tick);
    }
    return 0;
}

/* ,"name":[x,y,z] in JSON, name=(x, y, z) in text. */
static void print_field_vec(const options *o, const char *name, sweep_vec3 v)
{
    printf(o->json ? ",\"%s\":" : " %s=", name);
    print_vec(o, v);
}

/* One command's result: what was asked, what came of it. */
static void print_command_result(const options *o, uint32_t i, const sweep_msg_entity_command_result *r)
{
    const char *code = sweep_wire_code_name(r->code);
    const char *op = sweep_wire_entity_op_name(r->op);
    const char *text = r->message.ptr ? r->message.ptr : "";
    if (o->json) {
        printf("{\"command\":%" PRIu32 ",\"entity\":%" PRIu32 ",\"op\":", i, r->entity);
        print_str(o, op);
        printf(",\"result\":");
        print_str(o, code);
    } else {
        printf("command %" PRIu32 " entity=%" PRIu32 " op=%s result=%s", i, r->entity, op, code);
    }
    if (r->has_state) {
        print_field_vec(o, "position", r->position);
        print_field_vec(o, "velocity", r->velocity);
        print_field_vec(o, "radii", r->radii);
    }
    int pushed = (r->flags & SWEEP_WIRE_COMMAND_PUSHED_OUT) != 0;
    if (o->json)
        printf(",\"pushed_out\":%s", pushed ? "true" : "false");
    else if (pushed)
        printf(" pushed_out=1");
    if (r->code != SWEEP_WIRE_NONE) {
        printf(o->json ? ",\"message\":" : " message=");
        print_str(o, text);
    }
    printf(o->json ? "}\n" : "\n");
}

/* `sweep entity`: the commands in one EntityCommands (several when more
 * than the server takes at once), each result printed. */
static int entity_commands(const options *o, sweep_client *c)
{
    sweep_msg_entity_command_result *out = calloc(o->ncommands, sizeof *out);
    if (out == NULL)
        return report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
    sweep_client_error e;
    int rc = 0;
    if (sweep_client_entity_commands(c, o->commands, o->ncommands, out, &e) != SWEEP_CLIENT_OK) {
        rc = report(o, &e);
    } else {
        for (uint32_t i = 0; i < o->ncommands; i++) {
            print_command_result(o, i, &out[i]);
            if (out[i].code != SWEEP_WIRE_NONE) {
                fprintf(stderr, "sweep: command %" PRIu32 " (%s %" PRIu32 ") refused: %s: %s\n", i,
                        sweep_wire_entity_op_name(out[i].op), out[i].entity, sweep_wire_code_name(out[i].code),
                        out[i].message.ptr ? out[i].message.ptr : "");
                rc = 1;
            }
        }
        fflush(stdout);
    }
    free(out);
    return rc;
}

static const char *const hit_kinds[] = {"none", "level", "mover", "entity"};

/* One item's answer: what was asked, what it met. */
static void print_answer(const options *o, uint32_t i, const sweep_msg_query_item *q, const sweep_msg_query_answer *a)
{
    const char *code = sweep_wire_code_name(a->code);
    const char *kind = sweep_wire_query_kind_name(q->kind);
    if (o->json) {
        printf("{\"item\":%" PRIu32 ",\"kind\":", i);
        print_str(o, kind);
        printf(",\"result\":");
        print_str(o, code);
        printf(",\"tick\":%" PRIu64 ",\"fraction\":", a->tick);
        print_num(a->fraction);
    } else {
        printf("item %" PRIu32 " kind=%s result=%s tick=%" PRIu64 " fraction=", i, kind, code, a->tick);
        print_num(a->fraction);
    }
    if (a->code != SWEEP_WIRE_NONE) {
        printf(o->json ? ",\"message\":" : " message=");
        print_str(o, a->message.ptr ? a->message.ptr : "");
        printf(o->json ? "}\n" : "\n");
        return;
    }
    if (q->kind == SWEEP_WIRE_QUERY_LINE_OF_SIGHT)
        printf(o->json ? ",\"clear\":%s" : " clear=%s", (a->flags & SWEEP_WIRE_QUERY_CLEAR) ? "true" : "false");
    if (a->flags & SWEEP_WIRE_QUERY_MORE)
        printf(o->json ? ",\"more\":true" : " more=true");
    printf(o->json ? ",\"hits\":[" : " hits=%" PRIu32 "\n", a->hit_count);
    for (uint32_t k = 0; k < a->hit_count; k++) {
        const sweep_wire_query_hit *h = &a->hits[k];
        const char *what = h->kind < 4 ? hit_kinds[h->kind] : "?";
        if (o->json) {
            printf("%s{\"what\":\"%s\",\"triangle\":%" PRIu32 ",\"material\":%" PRIu32 ",\"mover\":%" PRIu32
                   ",\"entity\":%" PRIu32 ",\"shape\":%" PRIu32 ",\"fraction\":",
                   k ? "," : "", what, h->triangle, h->material, h->mover, h->entity, h->shape);
            print_num(h->fraction);
            printf(",\"distance\":");
            print_num(h->distance);
        } else {
            printf("  hit %s triangle=%" PRIu32 " material=%" PRIu32 " mover=%" PRIu32 " entity=%" PRIu32
                   " shape=%" PRIu32 " fraction=", what, h->triangle, h->material, h->mover, h->entity, h->shape);
            print_num(h->fraction);
            printf(" distance=");
            print_num(h->distance);
        }
        print_field_vec(o, "point", h->point);
        print_field_vec(o, "normal", h->normal);
        printf(o->json ? "}" : "\n");
    }
    if (o->json)
        printf("]}\n");
}

/* `sweep query`: the items in one Query (several when more than the
 * server takes at once), each answer printed. */
static int query(const options *o, sweep_client *c)
{
    sweep_msg_query_answer *out = calloc(o->nitems, sizeof *out);
    if (out == NULL)
        return report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
    sweep_client_error e;
    int rc = 0;
    if (sweep_client_query(c, o->items, o->nitems, out, &e) != SWEEP_CLIENT_OK) {
        rc = report(o, &e);
    } else {
        for (uint32_t i = 0; i < o->nitems; i++) {
            print_answer(o, i, &o->items[i], &out[i]);
            if (out[i].code != SWEEP_WIRE_NONE) {
                fprintf(stderr, "sweep: item %" PRIu32 " (%s) refused: %s: %s\n", i,
                        sweep_wire_query_kind_name(o->items[i].kind), sweep_wire_code_name(out[i].code),
                        out[i].message.ptr ? out[i].message.ptr : "");
                rc = 1;
            }
        }
        fflush(stdout);
    }
    free(out);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) {
        free(o.commands);
        free(o.items);
        return rc;
    }
    if (strcmp(o.command, "token") == 0)
        return mint_token(&o);
    local_map m = {0};
    sweep_vec3 start = o.position, radii = {0.4, 0.4, 0.9};
    if (o.map) {
        if ((rc = load_map(&o, &m)) != 0)
            goto done;
        radii = m.lv.default_radii;
        if (!o.has_position && strcmp(o.command, "move") == 0) {
            /* Alone, the first free point is the first one. */
            uint32_t point = o.spawn ? o.spawn : 1;
            if (point > m.lv.spawn_count) {
                char msg[64];
                snprintf(msg, sizeof msg, "%u", point);
                rc = report_msg(&o, SWEEP_CLIENT_E_ARG, "the map has no spawn point %s", msg);
                goto done;
            }
            start = m.lv.spawns[point - 1];
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
    co.auth_token = o.token;
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
    } else if (strcmp(o.command, "watch") == 0) {
        rc = watch(&o, c, &m);
    } else if (strcmp(o.command, "command") == 0) {
        rc = mover_command(&o, c);
    } else if (strcmp(o.command, "entity") == 0) {
        rc = entity_commands(&o, c);
    } else if (strcmp(o.command, "query") == 0) {
        rc = query(&o, c);
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
            print_stats(&o, &st);
    }
    sweep_client_close(c);
done:
    if (m.movers)
        sweep_movers_destroy(m.movers);
    if (m.world)
        sweep_world_destroy(m.world);
    if (m.loaded)
        sweep_level_free(&m.lv);
    free(o.commands);
    free(o.items);
    return rc;
}
