/*
 * world.h - the world library: the simulation sweepd serves and a replay
 * re-runs, with no transport, no loop and no clock of its own.
 *
 * A world is one loaded map with its core world, content hash and movers,
 * the entities in it in spawn order, and an integer tick. Entities belong
 * to owners (a session of sweepd, a session of a replayed log); a request
 * of an owner (a decoded sweep_message: Spawn, Despawn, Move, MoveBatch,
 * Collide, MoverCommand, GetEntity, EntityCommands, Query) is applied with sweep__world_request
 * and a tick with sweep__world_tick. Everything they cause leaves through
 * the sink the caller gives: the answer (a result, or an Error naming the
 * code and why), messages pushed unasked (a crushed entity's Despawned),
 * each applied move with its answer (a MOVE record), the entity ids drawn
 * (ID records). What the caller does with them (encode and send, write a
 * session log, compare with a log) is its own business: sweepd sends and
 * records (server/), a replay compares (client-sdk/replay.c).
 *
 * Time enters as tick numbers only: a world's tick advances when its
 * caller ticks it, and what a request or a tick does depends on the
 * requests and the ticks, never on a clock, threads or pointer values.
 * The one exception is what a clock decides outside the simulation (how
 * many rule lines a second an owner may cause in the log): that reads
 * sweep__request.now, which the caller fills (0 in a replay, whose log
 * lines are not written).
 *
 * Ownership and invariants (asserted by sweep__world_check in the checked
 * builds, make DEBUG=1 and the sanitizer builds):
 *   - An entity belongs to exactly one owner of its world and sits in the
 *     world's table (by id), its owner's array and the world's array (in
 *     spawn order: the order movers carry and push bodies in, which must
 *     be the same on every run); all three are updated together. Its id
 *     is non-zero and unique among the world's living entities.
 *   - An entity's actor (position, velocity, grounded) is what its next
 *     move starts from; a mover's tick changes its position only.
 *   - Mover numbers kept here (entity ground/touch/moved_by) are core
 *     indices (SWEEP_NO_MOVER = none); only the wire uses the map's
 *     movers.id, translated where a message is filled.
 *   - A world's and an owner's state is touched by one thread at a time
 *     (sweepd runs each world on one loop thread).
 */
#ifndef SWEEP_SERVER_WORLD_WORLD_H
#define SWEEP_SERVER_WORLD_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "core/crowd.h"
#include "core/history.h"
#include "core/motion.h"
#include "core/move.h"
#include "core/mover.h"
#include "core/world.h"
#include "maps/content_hash.h"
#include "maps/level.h"
#include "protocol/message.h"
#include "protocol/token.h"
#include "server/world/bucket.h"
#include "server/world/entity_motion.h"
#include "server/world/kept.h"
#include "server/world/log.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep__world sweep__world;
typedef struct sweep__entity sweep__entity;
typedef struct sweep__owner sweep__owner;

/* The longest message of one EntityCommandResult, its NUL included. */
#define SWEEP__COMMAND_TEXT 200u


/* What a world is run with besides its map. */
typedef struct sweep__world_options {
    double tick_rate;       /* ticks per second; 0: the map's */
    double time_bank;       /* seconds of motion a player's entity may bank */
    int allow_free_move;    /* the server role may send Fly and Noclip moves */
    int players_block;      /* entities are obstacles to each other */
    uint32_t max_entities;  /* entities one owner of a player (or guest) role may have */
    uint32_t max_entities_server; /* ... of the server role (a game server relaying its players) */
    uint32_t max_batch;     /* most moves any owner's MoveBatch may hold */
    int server_role_possible; /* some session could have the server role (what a refusal of the role says) */
    /* Pose history and queries (queries.c). */
    uint32_t history_ms;       /* how far back the world keeps poses; 0: the map's history_ms */
    uint32_t rewind_cap_ms;    /* how far back a player may query; 0: the map's rewind_cap_ms */
    uint32_t history_entities; /* most entities a frame keeps (so a world holds); 0: SWEEP__HISTORY_ENTITIES */
    uint64_t history_max_bytes; /* the history's memory limit; 0: none */
    double query_rate;         /* query items a player owner may ask a second; 0: no limit */
    int no_history;            /* keep none (a replay of a log older than queries): every Query is TooOld */
} sweep__world_options;

/* The entities a history keeps when the options do not say. */
#define SWEEP__HISTORY_ENTITIES 1024u

/* What a world has done, for the caller's figures. Counters only grow. */
typedef struct sweep__world_counts {
    uint64_t moves_total;   /* moves applied */
    uint64_t moves_ignored; /* old moves with no kept result, dropped without an answer */
    uint64_t crushed_total; /* entities removed because a mover crushed them */
    uint64_t killed_total;  /* entities removed because their move ended in a kill volume */
    uint64_t queries_total; /* query items answered (refused ones included) */
    uint64_t rules_total[SWEEP_WIRE_RULE_COUNT];
} sweep__world_counts;

/* What each tick credits a time budget beyond its period, as a fraction
 * of it (moves.c): a client measures dt and paces its moves by its own
 * clock, which runs fast or slow against the server's. Without it a
 * clock fast by f asks f more than the ticks credit, the bank absorbs
 * that for bank / f seconds, and from then on every move is cut and named
 * TimeBudget: a clock 0.1% fast after four minutes, one 100 ppm fast (a
 * machine without NTP) after forty. A quartz crystal is within 100 ppm,
 * and the server's own clock may be off the other way by as much: 0.5%
 * covers both 25 times over. Asking more is no use to a cheater: it buys
 * moves 0.5% longer (5.025 m/s for 5), far below what a speed cheat is
 * for, and asking the time that passed at any rate beyond it is cut as
 * before. A clock fast by more than 0.5% is cut as a cheater's is, once
 * its drift passes the bank. A constant of the rules, not an option: a
 * replay runs the same world library and grants the same. */
#define SWEEP__CLOCK_DRIFT 0.005

/* A player's network may hold its moves and hand them over at once (a TCP
 * retransmission, a Wi-Fi hiccup: a few hundred ms): the moves it paced
 * honestly then ask more than the bank the ticks filled during the
 * silence, and are cut; and the bank, emptied, fills again only by the
 * clocks' allowance, so for seconds after it a move that arrives a little
 * early is cut by a part of a frame. They are cut all the same (a lag
 * switch does exactly this, and the bank bounds what it gains), but not
 * named TimeBudget, up to a bank's worth of cut time in all in the
 * SWEEP__STALL_EVERY_S after a silence at least the bank's length: honest
 * stalls up to about twice the bank go unnamed, a lag switch held longer
 * is named for the rest. The first cut forgiven so starts a pace: no
 * other silence is forgiven for SWEEP__STALL_EVERY_S (a silence that
 * needed nothing forgiven, a spawn's wait, spends none), so a network
 * stalls now and then, and a lag switch or a client asking twice the
 * time at a few moves a second over and over is named on the others. A
 * silence no longer than the bank was never cut at all. */
#define SWEEP__STALL_EVERY_S 10.0

struct sweep__entity {
    uint32_t id;
    sweep__owner *owner;
    sweep__world *world;
    sweep__entity_state st;    /* what its moves and the ticks read and write (entity_motion.h) */
    int player;                /* governed by the player rules: a player's, or the server role's asked so */
    double budget;             /* seconds of motion it may still ask for (player owners) */
    uint64_t budget_tick;      /* the world tick the budget was credited up to */
    uint64_t unflagged_until;  /* a mover or a command moved it: claims are not flagged until this tick
                                  (lost moves have a grace of their own: st.gap_grace_until) */
    uint64_t unflag_tick;      /* the tick that grace last opened (sweep__entity_unflag) */
    uint64_t unflag_kept_until; /* ... and kept open by claims it forgave, within a walk's reach (moves.c) */
    double gap_reach;          /* how far its last gap's lost moves can have taken a claim (moves.c) */
    uint64_t gap_tick;         /* the tick its last gap was found (moves.c) */
    uint64_t stall_until;      /* moves cut before this tick go unnamed, up to stall_forgive s (SWEEP__STALL_EVERY_S) */
    uint64_t stall_next;       /* no silence opens that window before this tick: the pace of forgiven stalls */
    double stall_forgive;
    uint64_t claim_grace_until; /* claims within gap_reach are forgiven before this tick (moves.c) */
    /* Its last results, for resends (kept.h), allocated apart: 8 KB
     * inside the entity would spread the heads a tick's passes over
     * 10,000 entities read over as many pages. */
    sweep__kept *kept;
    uint32_t crowd_slot;       /* its shell's slot in the world's crowd, SWEEP_NO_BODY if none */
    uint32_t shape_count;      /* hit shapes a Query meets (EntityCommand SetHitShapes); 0: its ellipsoid */
    sweep_hit_shape shapes[SWEEP_HIT_SHAPES_MAX];
};

/* The memory an entity holds: itself and its ring of kept results (the
 * chunks it lives in hold up to SWEEP__ENTITY_CHUNK - 1 free slots more). */
#define SWEEP__ENTITY_BYTES (sizeof(sweep__entity) + sizeof(sweep__kept))

/* Who owns entities: what a session is to the world. */
struct sweep__owner {
    uint64_t id;                       /* the session's id (logs, records) */
    sweep__world *world;
    uint32_t role;                     /* sweep_wire_role: only the server role's moves are unbudgeted */
    int udp;                           /* a Spawn may arrive twice: answered again, not spawned again */
    uint32_t max_batch;                /* most moves a MoveBatch may hold (what its Welcome announced) */
    uint32_t max_entities;             /* entities it may own: its role's cap */
    char identity[SWEEP_TOKEN_IDENTITY_MAX + 1];
    sweep__entity **entities;
    uint32_t entity_count, entity_cap;
    int has_spawn;                     /* Spawn dedup: last Spawn's sequence, entity and answer */
    uint32_t spawn_sequence, spawn_entity, spawn_rules, spawn_point;
    /* EntityCommands dedup (UDP, which may deliver one twice): the last
     * one's sequence and results, answered again rather than applied
     * again. Allocated at its first EntityCommands over UDP. */
    int has_commands;
    uint32_t commands_sequence, commands_count;
    sweep_msg_entity_command_result *commands_kept;
    char (*commands_text)[SWEEP__COMMAND_TEXT];
    uint64_t rule_counts[SWEEP_WIRE_RULE_COUNT]; /* times each rule acted on this owner */
    sweep__bucket rule_log;            /* event=rule lines it may still cause */
    uint64_t rule_log_suppressed;      /* lines not written since the last one that was */
    sweep__bucket line_log;            /* other lines its requests may still cause (sweep__owner_log) */
    uint64_t line_log_suppressed;      /* ... not written since the last one that was */
    double query_tokens;               /* query items a player owner may still ask (queries.c) */
    uint64_t query_tick;               /* the world tick they were credited up to */
};

/* Open-addressing table entity id -> entity. A slot holds the id beside
 * the pointer: a probe compares ids without reaching into the entity, a
 * struct of some 23 KB (its kept results) whose id would be a cache and
 * TLB miss of its own for every probe of every move. */
typedef struct sweep__entity_slot {
    uint32_t id; /* 0: empty */
    sweep__entity *e;
} sweep__entity_slot;

/* A world's entities' memory (entity_pool.c): chunks of
 * SWEEP__ENTITY_CHUNK, and a stack of the free slots with room for all. */
#define SWEEP__ENTITY_CHUNK 64u
typedef struct sweep__entity_pool {
    sweep__entity **chunks;
    uint32_t chunk_count;
    sweep__entity **free;
    uint32_t free_count;
} sweep__entity_pool;

typedef struct sweep__entity_table {
    sweep__entity_slot *slots;
    uint32_t cap; /* power of two */
    uint32_t count;
} sweep__entity_table;

struct sweep__world {
    sweep__world_options opt;
    unsigned index;            /* the caller's number for it (logs) */
    sweep_level level;
    sweep_world *world;
    sweep_content_hash hash;
    double tick_rate;
    double period_s;           /* seconds per tick: what each tick credits to a time budget, with
                                * SWEEP__CLOCK_DRIFT */
    sweep_vec3 wish_up;        /* against the map's gravity, zero without: a Walk wish's part along it is
                                * Vertical (moves.c); made once, not a square root and a division a move */
    uint64_t tick;             /* ticks completed */
    /* Movers (NULL when the map has none) and what their tick needs. */
    sweep_movers *movers;
    uint32_t mover_count;
    uint8_t *mover_blocked;    /* per mover: blocked on the last tick (logs say when it starts) */
    sweep_wire_mover *wire;    /* WorldState scratch, one per mover */
    sweep__entity **ents;      /* the world's entities in spawn order */
    uint32_t ent_count, ent_cap;
    sweep__entity_table entities;
    sweep__entity_pool pool;   /* where they live */
    sweep_body *bodies;        /* tick scratch, one per entity */
    uint32_t body_cap;
    /* Players as obstacles: each entity's shell, in the lowest slot free
     * when it spawned. NULL when entities pass through each other. */
    sweep_crowd *crowd;
    uint32_t next_spawn;       /* the spawn point (0-based) tried first for the next player */
    sweep_msg_move_result *results; /* a MoveBatch's answers, opt.max_batch of them */
    sweep_msg_entity_command_result *command_results; /* an EntityCommands' answers, opt.max_batch */
    char (*command_texts)[SWEEP__COMMAND_TEXT];       /* and their messages, one each */
    /* Entities a kill volume took out (core/volume.h) during the request
     * being applied, opt.max_batch of room: each is told its Despawned
     * after the request's answer (sweep__world_tell_killed). */
    struct sweep__killed {
        uint32_t entity, volume; /* volume: its index in level.volumes */
    } *killed;
    uint32_t killed_count;
    sweep__world_counts counts;
    /* Where every entity and mover was over the last history_ticks ticks
     * (queries.c): one frame per tick, pushed after the tick's movers. */
    sweep_history *history;
    uint32_t history_ms, rewind_cap_ms; /* as used: the options', else the map's */
    uint32_t history_ticks;
    uint32_t rewind_cap_ticks;  /* how far back of the newest frame a player may ask */
    uint32_t history_entities;  /* the most a frame keeps: Spawn refuses past it */
    sweep_history_entity *hist_entities; /* tick scratch, history_entities of them */
    /* The entities by id, the order a frame keeps them in (history.c),
     * made again only after a spawn or a removal (hist_order_stale) rather
     * than sorted by the history at every tick. */
    sweep__entity **hist_order;
    int hist_order_stale;
    sweep_mover_pose *hist_movers;       /* tick scratch, one per mover */
    sweep_msg_query_answer *query_answers;        /* a Query's answers, opt.max_batch */
    sweep_wire_query_hit *query_hits;             /* and their hits, SWEEP_WIRE_QUERY_HITS_MAX each */
    char (*query_texts)[SWEEP__COMMAND_TEXT];     /* and their messages, one each */
};

/* Where what a request or a tick causes goes. Every callback may be NULL
 * (nothing to do with it) but message. */
typedef struct sweep__world_sink {
    /* A message for `to`: the answer to the request being applied (a
     * MoveResultBatch whole: the caller splits it to its transport), or
     * one pushed unasked (a crushed entity's Despawned, sequence 0). */
    void (*message)(void *ctx, sweep__owner *to, const sweep_message *m);
    /* An applied move and its answer, just before the answer goes to
     * message (a MOVE record). */
    void (*move)(void *ctx, const sweep__owner *o, const sweep_msg_move *mv, const sweep_msg_move_result *res);
    /* The id of a new entity (an ID record). */
    void (*entity_id)(void *ctx, uint32_t id);
    /* The request was refused for the server's own failure (out of
     * memory) and changed nothing: a replay, which would not fail, must
     * not see it. */
    void (*dropped)(void *ctx);
    /* Tick `tick` begins (the world's tick is that already); what it
     * causes follows (a TICK record). */
    void (*tick)(void *ctx, uint64_t tick);
    /* Entities were made (+) or freed (-) (memory accounting). */
    void (*entities)(void *ctx, int delta);
    /* May the entities hold `more` bytes more? 1, or 0 with why (what
     * holds how much of which limit); NULL: always. */
    int (*mem_fits)(void *ctx, size_t more, char *why, size_t whylen);
    /* A fresh random non-zero id candidate, 0 when none could be had; NULL
     * when the world must not draw (a replay: the ids are the log's). */
    uint32_t (*draw_id)(void *ctx);
    void *ctx;
} sweep__world_sink;

/* One request's context: who sent it and where its effects go. Passed
 * explicitly, never left on a world. */
typedef struct sweep__request {
    sweep__owner *owner;
    const sweep__world_sink *sink;
    uint64_t now;          /* ns on the caller's monotonic clock: the rule log's rate; 0 = no clock */
    const uint32_t *ids;   /* entity ids a Spawn gives, in order, before drawing any (a replay: the log's) */
    uint32_t id_count;
} sweep__request;

/* Loads the map at path into a new world: its level, core world, movers
 * (at the world's tick rate), content hash and, with players_block, its
 * crowd. index is the caller's number for logs. NULL with err. */
sweep__world *sweep__world_open(const char *path, const sweep__world_options *opt, unsigned index, char *err,
                                size_t errlen);
/* Frees a world whose owners were all released. */
void sweep__world_close(sweep__world *w);

/* An owner of w (its entities none yet), its batches at most max_batch
 * moves (and never more than the world's opt.max_batch); release despawns
 * them all, with their frees told to the sink (which may be NULL). */
void sweep__owner_init(sweep__owner *o, sweep__world *w, uint64_t id, uint32_t role, int udp, uint32_t max_batch,
                       const char *identity, size_t identity_len, uint64_t now);
void sweep__owner_release(sweep__owner *o, const sweep__world_sink *sink);

/* Writes a line its requests caused for o (any kind but a rule's), as
 * sweep__log with " suppressed=N" after fmt's pairs, at most
 * SWEEP__LINE_LOG_RATE a second per owner by the clock `now` (ns); the
 * others are counted in o->line_log_suppressed (owner_log.c). */
#define SWEEP__LINE_LOG_RATE 10.0
void sweep__owner_log(sweep__owner *o, uint64_t now, sweep_log_level level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Would a session of `role` be refused a request of this kind (the
 * sender column of protocol/kinds.h)? 0, or 1 with the Error AuthFailed's
 * words in why. The world checks it first for its own kinds; sweepd for
 * the server's (OpenWorld, CloseWorld), so both say the same. */
int sweep__role_refusal(sweep_msg_kind kind, uint32_t role, int server_role_possible, char *why, size_t whylen);

/* Does the world apply requests of this kind (sweep__world_request)? */
int sweep__world_handles(sweep_msg_kind kind);
/* Applies one decoded request of rq->owner (of w), kind as
 * sweep__world_handles says; its answer and everything it causes go to
 * rq->sink. */
void sweep__world_request(sweep__world *w, const sweep__request *rq, const sweep_message *m);

/* Advances the world one tick: tick + 1, the movers' step and what it
 * causes (carried, pushed and crushed entities; a crushed entity's owner
 * is told through the sink). */
void sweep__world_tick(sweep__world *w, const sweep__world_sink *sink);

/* The state hash of a world: its tick, its movers and each entity in
 * spawn order with everything its next move starts from. Two runs of the
 * same requests and ticks agree on it bit for bit. */
uint64_t sweep__world_state_hash(const sweep__world *w);

/* The map's movers.id of a core mover index, 0 = none. */
uint32_t sweep__world_mover_id(const sweep__world *w, uint32_t index);
/* The world's movers as a WorldState lists them (w->wire, refilled). */
const sweep_wire_mover *sweep__world_movers_wire(sweep__world *w);
/* Position of mover index: 0, or -1 past the last. */
int sweep__world_mover_position(const sweep__world *w, uint32_t index, double position[3]);

/* The owner's entity of that id, or NULL (another owner's is not found). */
sweep__entity *sweep__world_entity(const sweep__world *w, const sweep__owner *o, uint32_t id);

/* What the server role observes (observe.c). */
/* The entity of that id whoever owns it, or NULL: for the server role's
 * reads only, never for a request that acts on an entity. */
sweep__entity *sweep__world_any_entity(const sweep__world *w, uint32_t id);
/* Entity e as EntityStates lists it: movers.id for its ground, its
 * owner's id as owner_session. */
void sweep__entity_wire(const sweep__world *w, const sweep__entity *e, sweep_wire_entity_state *out);
/* The states of the world's entities first, first + 1, ... in spawn order,
 * at most n of them, into out: how many (0 from w->ent_count on). */
uint32_t sweep__world_entity_states(const sweep__world *w, uint32_t first, sweep_wire_entity_state *out, uint32_t n);

/* The ownership rules above, asserted (SWEEP_CHECKS builds only). */
#ifndef SWEEP_CHECKS
#define SWEEP_CHECKS 0
#endif
#if SWEEP_CHECKS
void sweep__world_check(const sweep__world *w);
#else
#define sweep__world_check(w) ((void)(w))
#endif

#ifdef __cplusplus
}
#endif

#endif
