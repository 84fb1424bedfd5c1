/*
 * main.c - `sweep`, the command-line client: its command line, and main,
 * which loads the map, connects and starts the command. The whole command
 * line is checked first, before any map is loaded or server asked.
 * `sweep ping`, one round trip, is answered here; every other command has
 * a file of this folder (cli.h says which).
 *
 * Exit status: 0 on success, 1 on any error (the error's name is printed:
 * the server's code such as BadVelocity or AuthFailed, or TIMEOUT, CLOSED,
 * ...), 2 for a bad command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "client-sdk/sweep-cli/cli.h"
#include "maps/loader.h"
#include "core/parse.h"
#include "protocol/token.h"

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
    "sweep.fbs), speed_excess (units/s wished above the walk speed) and time_excess\n"
    "(seconds asked beyond the time budget), each when not 0 (JSON: always),\n"
    "applied_dt (seconds granted), and correction when a claimed position was off;\n"
    "when a mover did something:\n"
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
    uint64_t t;
    if (!sweep_parse_u64(tick, 1, UINT64_MAX, &t))
        return 0;
    o->at_tick = t;
    o->at_fraction = 0.0;
    char *end;
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
    /* Its form is the command line's; whether it resolves, the run's. */
    if (o->connect && sweep_client_check_address(o->connect, NULL) != SWEEP_CLIENT_OK)
        return usage_error("--connect wants HOST:PORT (a port in 1..65535; [ADDR]:PORT for IPv6), not '%s'",
                           o->connect);
    return 0;
}

/* --- main ----------------------------------------------------------------------- */

static int load_map(const options *o, local_map *m)
{
    char err[256];
    sweep_map_load_info info;
    if (sweep_map_load(o->map, &m->lv, &info, err, sizeof err) != SWEEP_OK) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: %s", o->map, err);
        return sweep__cli_report_msg(o, SWEEP_CLIENT_E_ARG, "%s", msg);
    }
    m->loaded = 1;
    if (sweep_map_build_world(&m->lv, &m->world, NULL, err, sizeof err) != SWEEP_OK)
        return sweep__cli_report_msg(o, SWEEP_CLIENT_E_ARG, "cannot build the map's world: %s", err);
    return 0;
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
        return sweep__cli_mint_token(&o);
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
                rc = sweep__cli_report_msg(&o, SWEEP_CLIENT_E_ARG, "the map has no spawn point %s", msg);
                goto done;
            }
            start = m.lv.spawns[point - 1];
        }
    }
    if (o.has_radii)
        radii = o.radii;

    if (!o.connect) {
        rc = sweep__cli_move_local(&o, &m, start, radii);
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
        rc = sweep__cli_report(&o, &e);
        goto done;
    }
    if (strcmp(o.command, "move") == 0) {
        if (m.loaded && !o.no_map_check && sweep_client_check_map(c, &m.lv, &e) != SWEEP_CLIENT_OK)
            rc = sweep__cli_report(&o, &e);
        else
            rc = sweep__cli_move_remote(&o, c, &m, start, radii);
    } else if (strcmp(o.command, "watch") == 0) {
        rc = sweep__cli_watch(&o, c, &m);
    } else if (strcmp(o.command, "command") == 0) {
        rc = sweep__cli_mover_command(&o, c);
    } else if (strcmp(o.command, "entity") == 0) {
        rc = sweep__cli_entity_commands(&o, c);
    } else if (strcmp(o.command, "query") == 0) {
        rc = sweep__cli_query(&o, c);
    } else if (strcmp(o.command, "ping") == 0) {
        uint64_t rtt;
        if (sweep_client_ping(c, &rtt, &e) != SWEEP_CLIENT_OK)
            rc = sweep__cli_report(&o, &e);
        else if (o.json)
            printf("{\"rtt_us\":%.1f}\n", rtt / 1e3);
        else
            printf("pong rtt=%.1f us\n", rtt / 1e3);
    } else {
        sweep_msg_stats st;
        if (sweep_client_get_stats(c, &st, &e) != SWEEP_CLIENT_OK)
            rc = sweep__cli_report(&o, &e);
        else
            sweep__cli_print_stats(&o, &st);
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
