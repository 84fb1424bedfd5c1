/*
 * bots.h - internal to `sweep-bots`, the load generator, and players
 * honest and cheating, to show what the server's rules prevent: what its
 * files share (the modes, the options, the bots and their totals). Its
 * files, kept out of libsweep in this folder of their own:
 *   main.c    the options, and main: a run set up and taken down;
 *   run.c     the run: the schedule, the moves and answers of every mode,
 *             and the loop that waits for them, all that a move costs;
 *   spawn.c   connecting a bot and spawning its player;
 *   report.c  what a run prints once it is over, and its exit status.
 */
#ifndef SWEEP_CLIENT_SDK_BOTS_BOTS_H
#define SWEEP_CLIENT_SDK_BOTS_BOTS_H

#include <stddef.h>
#include <stdint.h>

#include "client-sdk/client.h"
#include "client-sdk/netem.h"
#include "client-sdk/predict.h"
#include "maps/loader.h"

/* --- modes ------------------------------------------------------------------ */

/*
 * The player modes (all but load) are players of a map (--map, the
 * server's: its rules, spawn points and radii), a comma-separated list
 * shared out among the bots in turn, each sending a move every 1/--rate
 * seconds (60 Hz by default) that asks the time since the previous one:
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
 *
 * Against a server older than roles (no identity in its Welcome) the same
 * bots still run: it applies velocities as given, so there the cheats
 * show what they gain when nothing stops them (granted time is then the
 * time asked).
 */
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

/* The modes' names, as --mode takes them and the report prints them (main.c). */
extern const char *const sweep__bots_mode_names[MODE_COUNT];

/* How much each cheat overdoes it. */
#define SPEED_FACTOR 10.0  /* speed: the wish, in walk speeds */
#define DILATE_FACTOR 4.0  /* dilate: time asked per time passed */
#define FLOOD_FACTOR 8.0   /* flood: moves per move time allows */
#define BURST_PERIOD 2.0   /* burst: seconds of silence plus seconds of moves sent at once */
#define TELEPORT_CLAIM 10.0 /* teleport: how far off the claims are, units */
#define SHRINK_FACTOR 0.25 /* shrink: radii asked, in map radii */

/* --- the bots -------------------------------------------------------------- */

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
    uint64_t cut;                   /* moves granted less time than they asked (TimeBudget, named or not) */
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

/* --- the schedule ---------------------------------------------------------------------- */

/* The loop's schedule of the bots (run.c, which keeps it); here because
 * main.c makes room for it before the first bot connects. */
typedef struct sched_entry {
    uint64_t due;
    uint32_t bot;
} sched_entry;

typedef struct schedule {
    sched_entry *heap;
    uint32_t *pos; /* per bot: its place in heap */
    uint32_t n;
} schedule;

/* Counts an error the server answered (run.c) or a Hello it refused
 * (spawn.c): inline, so that the loop pays no call for it. */
static inline void count_error(mode_totals *mt, sweep_wire_code code)
{
    mt->errors++;
    mt->error_codes[(unsigned)code < SWEEP_WIRE_CODE_COUNT ? (unsigned)code : SWEEP_WIRE_CODE_COUNT]++;
}

/* --- what the files do for each other -------------------------------------------------- */

/* spawn.c. Connects bot b through `address` (the server's, or the bad
 * network's relay for it) with its token: o's, or one minted with
 * `secret` when there is one (a forger first tries a forged one). */
int sweep__bots_connect_bot(const options *o, const char *address, const uint8_t *secret, size_t secret_len, bot *b,
                            totals *t);
/* A load bot's entity: a player goes where the map says (spawn point
 * `point`, 0 for the server's pick; asking a place would only be named),
 * the server role where the options say. */
sweep_client_status sweep__bots_spawn_load(bot *b, uint32_t point, sweep_vec3 at, sweep_vec3 radii,
                                          sweep_msg_spawned *sp, sweep_client_error *e);
/* Spawns (or respawns) a player bot as its mode asks. */
int sweep__bots_spawn_player(const options *o, const map_info *mi, bot *b, totals *t);

/* run.c. Runs the connected and spawned bots, each registered in epfd
 * (its index the event's data) and with room for `window` requests in
 * flight, from now for the warmup, the duration and (players) the last
 * answers, through the bad network when there is one. Returns 0, or -1
 * after saying why on stderr. */
int sweep__bots_run(const options *o, const map_info *mi, bot *bots, schedule *sched, int epfd, totals *t,
                    uint32_t window, sweep_netem *net);

/* report.c. Prints what the player modes did, and what the server and the
 * bad network (stopped here, *net then NULL) counted; returns the exit
 * status. */
int sweep__bots_report_players(const options *o, bot *bots, totals *t, sweep_netem **net);
/* Prints the load's throughput and latencies (or its BENCH
 * line); returns the exit status. */
int sweep__bots_report_load(const options *o, totals *t);

#endif
