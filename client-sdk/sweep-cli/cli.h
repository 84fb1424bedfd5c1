/*
 * cli.h - internal to `sweep`, the command-line client: what its files
 * share. They are a folder of their own, which the wildcard that makes
 * libsweep (client-sdk.mk) does not reach, so that none of them lands in
 * the library or in its Windows build. A function one file calls in
 * another is named sweep__cli_, as internal names shared between files
 * are; all else is static.
 *
 *   main.c      the command line (--help, the options, the words of
 *               `entity` and `query`), and main: the map loaded, the
 *               server connected, each command started; `sweep ping`
 *   output.c    printing: text or JSON lines, numbers that read back
 *               exactly, errors by name
 *   move.c      `sweep move`, locally and through a server, with its
 *               prediction
 *   commands.c  the other commands: watch, command, entity, query, stats
 *               and token
 */
#ifndef SWEEP_CLIENT_SDK_SWEEP_CLI_CLI_H
#define SWEEP_CLIENT_SDK_SWEEP_CLI_CLI_H

#include <stdint.h>

#include "client-sdk/client.h"
#include "client-sdk/predict.h"

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

/* The map of --map, loaded once by main for every command: spawn points
 * and radii, a move's local run and prediction, watch's mover names. */
typedef struct local_map {
    sweep_level lv;
    sweep_world *world;
    sweep_movers *movers;
    int loaded;
} local_map;

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

/* output.c */
void sweep__cli_print_num(double v);
void sweep__cli_print_nums(const options *o, const double *v, int n);
void sweep__cli_print_vec(const options *o, sweep_vec3 v);
void sweep__cli_print_str(const options *o, const char *s);
void sweep__cli_show_volumes(shown_result *s, const sweep_msg_move_result *r);
void sweep__cli_print_result(const options *o, const shown_result *r);
void sweep__cli_print_spawned(const options *o, uint32_t entity, sweep_vec3 position, sweep_vec3 radii, uint32_t point,
                              uint32_t rules);
void sweep__cli_print_session(const options *o, const sweep_client_welcome *w);
int sweep__cli_report_named(const options *o, const char *name, const char *message, uint32_t sequence,
                            int has_sequence);
int sweep__cli_report(const options *o, const sweep_client_error *e);
int sweep__cli_report_msg(const options *o, sweep_client_status s, const char *fmt, const char *arg);

/* move.c */
int sweep__cli_move_local(const options *o, local_map *m, sweep_vec3 start, sweep_vec3 radii);
int sweep__cli_move_remote(const options *o, sweep_client *c, local_map *m, sweep_vec3 start, sweep_vec3 radii);

/* commands.c */
int sweep__cli_watch(const options *o, sweep_client *c, const local_map *m);
void sweep__cli_print_stats(const options *o, const sweep_msg_stats *st);
int sweep__cli_mint_token(const options *o);
int sweep__cli_mover_command(const options *o, sweep_client *c);
int sweep__cli_entity_commands(const options *o, sweep_client *c);
int sweep__cli_query(const options *o, sweep_client *c);

#endif
