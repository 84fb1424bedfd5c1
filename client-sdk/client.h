/*
 * client.h - libsweep: talking to a sweepd server over TCP or UDP.
 *
 * A sweep_client is one connection to one server, already past the
 * handshake when sweep_client_connect returns (Hello/Welcome over TCP; over
 * UDP the padded Hello, the server's stateless Challenge and the Hello that
 * returns its cookie). After that the caller spawns entities, sends moves
 * (one by one or in batches) and receives what the server answers, in one
 * of three ways:
 *
 *   - blocking calls that send one request and wait for its answer
 *     (sweep_client_spawn, sweep_client_move, sweep_client_ping, ...), for
 *     tools and tests;
 *   - sweep_client_send_move / sweep_client_send_batch, which return at once
 *     with the sequence numbers used, then sweep_client_poll, which hands
 *     out one event (a move result, an error, ...) at a time, for game loops;
 *   - sweep_client_dispatch, which calls a callback for every event that
 *     arrived.
 * The server also sends messages nobody asked for (Message.sequence 0):
 * the movers' WorldState after sweep_client_watch_world, the entities'
 * EntityStates after sweep_client_watch_entities, and the Despawned of an
 * entity a mover crushed. They are events like the answers, in
 * arrival order, so a game that predicts (predict.h) applies each
 * WorldState before the results computed after it.
 * sweep_client_fd gives the socket, so a program with many connections
 * can wait on all of them with poll(2) or its own event loop and then call
 * sweep_client_poll with a zero timeout.
 *
 * Errors, one convention for all of libsweep (client.h and predict.h):
 * every call that can fail returns a sweep_client_status, SWEEP_CLIENT_OK
 * (0) or a SWEEP_CLIENT_E_* code, and takes as its last argument a
 * sweep_client_error *err (NULL allowed) that it fills: the status, the
 * wire code (sweep.fbs ErrorCode) when the server refused, or the code the
 * server gives the same input when libsweep refused it itself (a NaN, a
 * dt out of range), the sequence and entity it is about, and a message.
 * On success err is cleared. A call on a client or a predictor also keeps
 * that error, so a caller that passed NULL can still ask:
 * sweep_client_last_error(c), sweep_predictor_last_error(p). Calls that
 * cannot fail return their value (sweep_client_fd, _get_welcome, ...).
 * A NULL client (or predictor) is SWEEP_CLIENT_E_ARG for every call that
 * returns a status; those that cannot fail answer as about nothing (each
 * says what) and never crash on it.
 * An Error message from the server comes back with its wire code, its text
 * and the sequence (and entity) it refers to, both as the result of a
 * blocking call and as a SWEEP_CLIENT_EV_ERROR event.
 *
 * Connecting without blocking: sweep_client_connect_start opens the socket
 * and sends the first Hello, sweep_client_connect_step advances the
 * handshake as far as what has arrived allows (waiting at most the time
 * the caller gives), and sweep_client_poll_events says what to wait for in
 * the caller's own loop. sweep_client_connect is start and step until done.
 *
 * Plain sockets and poll(2) only (on Windows, Winsock and select; the
 * system's part is client-sdk/platform.h): no threads, no signals, no
 * global state.
 * A client is used by one thread at a time. Answers that arrive while a
 * blocking call waits for its own are kept, in order, for sweep_client_poll.
 *
 * Sequence numbers: the client numbers every request it sends from 1 up,
 * one counter for everything (a MoveBatch takes one number for the message
 * and one for each move). The server answers with the sequence it answers,
 * so the numbers returned by the send calls (sweep_client_send_move,
 * _send_batch, _send_spawn) are how answers are matched to requests (see
 * predict.h for prediction keyed on them).
 *
 * Who the session is: options.auth_token is sent in Hello (an identity
 * token of protocol/token.h, the server's --command-token, or nothing for
 * a guest) and the Welcome says what the server made of it (role,
 * identity). A player's moves are wishes (a velocity across the ground,
 * buttons such as jump) that the server turns into motion by the map's
 * rules, within a time budget; every MoveResult names the rules that
 * acted (rules, speed_excess, time_excess, applied_dt). Over UDP,
 * sweep_client_set_redundancy makes each Move datagram carry the last few
 * unanswered moves again, so a lost datagram costs no move; the server
 * answers a move it already applied with the same result, and the client
 * hands each move's answer out once.
 */
#ifndef SWEEP_CLIENT_SDK_CLIENT_H
#define SWEEP_CLIENT_SDK_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "client-sdk/tick_clock.h"
#include "core/vec3.h"
#include "protocol/message.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep_client sweep_client;

typedef enum sweep_client_transport {
    SWEEP_CLIENT_TCP = 0,
    SWEEP_CLIENT_UDP = 1
} sweep_client_transport;

/* What a call reports. Names (sweep_client_status_name) are stable. */
typedef enum sweep_client_status {
    SWEEP_CLIENT_OK = 0,
    SWEEP_CLIENT_E_ARG,          /* NULL or out-of-range argument */
    SWEEP_CLIENT_E_ADDRESS,      /* the host:port could not be parsed or resolved */
    SWEEP_CLIENT_E_CONNECT,      /* connecting failed (refused, unreachable), or over UDP the server's port
                                    refused a datagram later (nobody listens there any more) */
    SWEEP_CLIENT_E_IO,           /* a socket call failed */
    SWEEP_CLIENT_E_CLOSED,       /* the server closed the connection (or said Bye) */
    SWEEP_CLIENT_E_TIMEOUT,      /* no answer within the time allowed */
    SWEEP_CLIENT_E_PROTOCOL,     /* the server sent bytes that are not a valid answer */
    SWEEP_CLIENT_E_SERVER,       /* the server answered with an Error: see code */
    SWEEP_CLIENT_E_NOMEM,        /* out of memory */
    SWEEP_CLIENT_E_TOO_LARGE,    /* a request does not fit a frame or datagram */
    SWEEP_CLIENT_E_MAP_MISMATCH, /* the server's map hash is not the local map's */
    SWEEP_CLIENT_E_AGAIN,        /* not finished yet: connecting goes on (sweep_client_connect_step) */
    SWEEP_CLIENT_STATUS_COUNT
} sweep_client_status;

#define SWEEP_CLIENT_MESSAGE_MAX 256

/* One error, as a value. For SWEEP_CLIENT_E_SERVER, code/sequence/entity
 * are those of the server's Error message and message is its text. For
 * SWEEP_CLIENT_E_ARG about a number the core refuses (prediction: a NaN,
 * a dt out of range, an absurd wish) code is the one the server answers
 * that input with (BadNumber, BadDt, BadVelocity, ...); otherwise code is
 * SWEEP_WIRE_NONE and message says what failed. For a request libsweep
 * gave up waiting for (SWEEP_CLIENT_E_TIMEOUT), sequence is its number. */
typedef struct sweep_client_error {
    sweep_client_status status;
    sweep_wire_code code;
    uint32_t sequence;
    uint32_t entity;
    char message[SWEEP_CLIENT_MESSAGE_MAX];
} sweep_client_error;

/* Stable upper-case name of a status ("TIMEOUT", ...); "UNKNOWN" if out of range. */
const char *sweep_client_status_name(sweep_client_status s);

/* The name a program prints for an error: the wire code's name from
 * sweep.fbs ("BadVelocity", ...) for a server Error, else the status name. */
const char *sweep_client_error_name(const sweep_client_error *e);

typedef struct sweep_client_options {
    sweep_client_transport transport;
    const char *address;     /* "HOST:PORT"; HOST may be a name, IPv4 or [IPv6] */
    const char *client_name; /* sent in Hello; NULL = "libsweep" */
    const char *world;       /* world (map instance) to join; NULL = the default */
    const char *auth_token;  /* Hello.auth_token: an identity token (protocol/token.h), the server's
                                --command-token, or NULL = none (a guest, where the server admits them) */
    int timeout_ms;          /* for connecting (the whole handshake, from sweep_client_connect_start),
                                for each blocking call, and for a spawn sent without waiting to be
                                answered (sweep_client_send_spawn); 0 = 5000 */
    /* UDP only: how often a request without answer is resent during the
     * handshake and blocking calls (and the newest unanswered Spawn); 0 = 250 ms. */
    int udp_retry_ms;
    /* UDP only: 1 = stay on the address's port even when the Welcome names
     * the session's own (Welcome.udp_port; for a relay in between that
     * knows only that port). 0: move there if a Ping there is answered. */
    int udp_keep_port;
    /* UDP only: the largest datagram this client takes, bytes, asked for
     * in Hello.max_datagram (1200 to 65507; 0 = 1200, the protocol's own).
     * The server agrees the smaller of this and its --udp-max-datagram
     * (Welcome.max_frame_size), and both sides send datagrams of up to
     * that size from then on: fewer of them for a large batch or watch.
     * Past the path's MTU the IP layer fragments them, so more than 1200
     * is for loopback and networks known to carry it. */
    uint32_t udp_max_datagram;
} sweep_client_options;

/* Zeroes opts (TCP, defaults everywhere). */
void sweep_client_options_init(sweep_client_options *opts);

/* Whether address has the form connecting takes, "HOST:PORT" ("[ADDR]:PORT"
 * for IPv6), its port a number in 1..65535 or a service name, without
 * resolving it: SWEEP_CLIENT_OK, or SWEEP_CLIENT_E_ADDRESS with err
 * saying what is wrong (a command line can refuse it before any I/O). */
sweep_client_status sweep_client_check_address(const char *address, sweep_client_error *err);

/* Connects and completes the handshake, waiting up to options.timeout_ms;
 * *out is the new client. On failure *out is NULL and err (if not NULL)
 * says why: a server that answered the Hello with an Error gives
 * SWEEP_CLIENT_E_SERVER and its code. sweep_client_connect_start, then
 * sweep_client_connect_step until it is done. */
sweep_client_status sweep_client_connect(const sweep_client_options *opts, sweep_client **out,
                                         sweep_client_error *err);

/*
 * Starts connecting without waiting: resolves the address (a host name is
 * looked up with getaddrinfo, which may wait on the resolver: give a
 * numeric address to never block), opens a non-blocking socket, starts
 * the TCP connect or sends the UDP Hello, and returns SWEEP_CLIENT_OK with
 * *out a client still connecting. opts and its strings may be freed once
 * it returns. The handshake must end within opts->timeout_ms from now.
 * On failure (a bad address, no socket) *out is NULL.
 *
 * A name of several addresses ("localhost": often ::1, then 127.0.0.1)
 * has them tried in turn, each with a socket of its own. One that refuses
 * (nobody listening there; over UDP, the port unreachable the system
 * reports) gives way to the next at once. Over UDP, where a dropped or
 * ignored datagram says nothing, one that has not answered within its
 * share of the time (the time left, split evenly between it and the
 * addresses after it) gives way too; the first that answers keeps the
 * rest of the time. An Error in answer to a Hello ends the connect; so
 * does the last address's refusal or silence.
 */
sweep_client_status sweep_client_connect_start(const sweep_client_options *opts, sweep_client **out,
                                               sweep_client_error *err);

/*
 * Advances the handshake of a client from sweep_client_connect_start as
 * far as what arrived allows: reads, sends the next Hello, resends over
 * UDP what went unanswered. Waits at most timeout_ms for the socket (0: do
 * not wait, -1: until the handshake ends). Returns SWEEP_CLIENT_OK once the
 * client is connected (and on every call after that), SWEEP_CLIENT_E_AGAIN
 * while it is still connecting, or why it failed (TIMEOUT past
 * options.timeout_ms, CONNECT, SERVER with the Error's code, ...): then
 * every later call reports the same, and the client is only good for
 * sweep_client_close. Until it is connected, requests, sends and
 * sweep_client_poll fail with SWEEP_CLIENT_E_ARG.
 */
sweep_client_status sweep_client_connect_step(sweep_client *c, int timeout_ms, sweep_client_error *err);

/*
 * What a program's own loop waits for before calling into the client
 * again: the poll(2) events for sweep_client_fd(c) (POLLIN, or POLLOUT
 * while a TCP connect is under way), and in *timeout_ms (may be NULL) the
 * longest to wait, -1 for no limit, before calling sweep_client_connect_step
 * (connecting) or sweep_client_poll (connected) even if the socket stays
 * quiet: a UDP resend or a deadline is due by then. Once the session has
 * ended (a Bye, a refusal) while events are still kept, POLLIN with
 * *timeout_ms 0: sweep_client_poll hands them out first. 0 events: the
 * client failed and nothing is left to hand out; close it (a NULL c too,
 * with *timeout_ms 0).
 */
int sweep_client_poll_events(const sweep_client *c, int *timeout_ms);

/* The error of the last call on c that returns a sweep_client_status
 * (status SWEEP_CLIENT_OK after one that succeeded), whatever err that
 * call was given. Valid until the next call on c. For a NULL c, an error
 * of status SWEEP_CLIENT_E_ARG (what every call on it reports), never
 * NULL. */
const sweep_client_error *sweep_client_last_error(const sweep_client *c);

/* Sends Bye (best effort), closes the socket and frees everything. NULL is ignored. */
void sweep_client_close(sweep_client *c);

/* What the server said in Welcome (strings are copied into the client). */
typedef struct sweep_client_welcome {
    uint32_t protocol_version;
    uint64_t session_id;
    double tick_rate;
    char map_name[128];
    uint8_t map_hash[32];
    uint32_t map_hash_len;
    uint32_t max_batch;
    uint32_t max_frame_size; /* TCP: the server's frame limit; UDP: the session's datagram size */
    uint32_t max_entities;
    /* Who the server made this session (protocol/README.md, "Identity and roles"). */
    uint32_t role;        /* sweep_wire_role: PLAYER (motion, time and spawning are the server's) or SERVER */
    char identity[80];    /* the token's identity, "#guest", "#command-token"; "" from a server without roles */
    int has_roles;        /* 0: a server older than roles (no identity in its Welcome): it applies
                             velocities as given and role reads PLAYER */
    double time_bank;     /* seconds of movement a player's entity may bank (0 from such a server) */
    uint16_t udp_port;    /* UDP: the session's own port on the server (sweepd --threads N > 1), which
                             the client now sends to and hears from; 0: the port it connected to (none
                             offered, udp_keep_port, or a Ping there went unanswered) */
} sweep_client_welcome;

/* NULL for a NULL c. */
const sweep_client_welcome *sweep_client_get_welcome(const sweep_client *c);

/* The socket, for waiting on several clients at once (readable = call
 * sweep_client_poll). Do not read, write or close it. On Windows it is
 * the SOCKET's value (which fits an int), for WSAPoll or select, and
 * sweep_client_poll_events answers in WSAPoll's terms (POLLRDNORM,
 * POLLWRNORM). -1 for a NULL c. */
int sweep_client_fd(const sweep_client *c);

/* SWEEP_CLIENT_TCP (0) for a NULL c. */
sweep_client_transport sweep_client_get_transport(const sweep_client *c);

/* The sequence number the next request will carry (for a batch, the
 * message's; its moves take the numbers after it). Lets a caller key its
 * prediction before a blocking sweep_client_move. 0 (no request's
 * number) for a NULL c. */
uint32_t sweep_client_next_sequence(const sweep_client *c);

/* --- blocking requests --------------------------------------------------- */

/* Each sends one request, waits up to options.timeout_ms for its answer and
 * leaves every other event that arrived meanwhile queued, in order, for
 * sweep_client_poll. The spawns are sweep_client_send_spawn and that wait. */

/* Spawns an ellipsoid at position; *out is the server's Spawned. */
sweep_client_status sweep_client_spawn(sweep_client *c, sweep_vec3 position, sweep_vec3 radii,
                                       sweep_msg_spawned *out, sweep_client_error *err);

/* Spawns an ellipsoid at the map's spawn point `point` (1 = the first, as
 * on the wire; 0 lets the server pick the next free one), as the server's
 * map has it; radii of 0, 0, 0 mean the map's default. */
sweep_client_status sweep_client_spawn_at_point(sweep_client *c, uint32_t point, sweep_vec3 radii,
                                                sweep_msg_spawned *out, sweep_client_error *err);

/* Spawns a player the way a player may: at the map's spawn point `point`
 * (1 = the first), or with point 0 at the one the server picks (the next
 * free one), with the map's radii; position and radii go as zeros, so
 * nothing is named in out->rules. The server role may call it too. */
sweep_client_status sweep_client_spawn_player(sweep_client *c, uint32_t point, sweep_msg_spawned *out,
                                              sweep_client_error *err);

/* Removes an entity of this session. */
sweep_client_status sweep_client_despawn(sweep_client *c, uint32_t entity, sweep_client_error *err);

/* Sends one Walk move (velocity is the wish, no buttons) and waits for its
 * result. Over UDP the move is resent (same sequence) while no answer
 * comes; the server answers a resent move with the result it kept. */
sweep_client_status sweep_client_move(sweep_client *c, uint32_t entity, sweep_vec3 velocity, double dt,
                                      sweep_msg_move_result *out, sweep_client_error *err);

/* A stateless collision query (the server keeps nothing). */
sweep_client_status sweep_client_collide(sweep_client *c, const sweep_msg_collide *q,
                                         sweep_msg_collide_result *out, sweep_client_error *err);

/* --- the server's tick ------------------------------------------------------ */

/*
 * The tick at which the server will apply a move sent now: the tick whose
 * mover poses the move will meet and its MoveResult.server_tick will name.
 * Estimated from Welcome.tick_rate, the tick every message names and the
 * round trips of moves and Pings (tick_clock.h says how, and how it
 * behaves under jitter and loss); never less than an estimate given
 * before while the server is heard (after seconds of silence it starts
 * afresh, so as to follow a server that re-anchored its ticks); 0 before
 * any message naming a tick came (and for a NULL c).
 * Give it to sweep_predictor_step_at (predict.h) with the move just sent.
 */
uint64_t sweep_client_estimate_tick(sweep_client *c);

/* What the estimate stands on: the tick rate, the newest tick heard and
 * when, the smallest round trip (sweep_tick_clock_rtt) and the samples
 * taken. Valid while c is; NULL for a NULL c. */
const sweep_tick_clock *sweep_client_tick_clock(const sweep_client *c);

/*
 * When the server's first tick after after_ns comes due, on this machine's
 * monotonic clock (sweep_client_now_ns), as the tick clock estimates it
 * (sweep_tick_clock_next_due); 0 before any message naming a tick came
 * (and for a NULL c). A
 * game server sending a batch every tick sends it a fixed time after this,
 * so that its moves do not wait behind the server's tick and its pushes
 * (client-sdk/README.md, "A batch a tick, in step with the server's").
 */
uint64_t sweep_client_next_tick_ns(const sweep_client *c, uint64_t after_ns);

/* Round trip; *rtt_ns is the time from send to Pong on this machine's monotonic clock. */
sweep_client_status sweep_client_ping(sweep_client *c, uint64_t *rtt_ns, sweep_client_error *err);

/* The server's counters and its open worlds. out->worlds (the first
 * 1,024 worlds; out->worlds_open counts them all) and their names live
 * as a WorldState's movers do (sweep_client_watch_world): until the next
 * call that receives on this client or sweep_client_close. */
sweep_client_status sweep_client_get_stats(sweep_client *c, sweep_msg_stats *out, sweep_client_error *err);

/* --- movers ------------------------------------------------------------------ */

/*
 * Subscribes this session to the poses of the world's movers: the server
 * answers at once with a WorldState (*out, may be NULL) and from then on
 * pushes one (Message.sequence 0) after every `every`-th tick, which
 * sweep_client_poll hands out as SWEEP_CLIENT_EV_WORLD_STATE events.
 * every = 0 stops the pushes (and is answered with a WorldState too).
 * out->movers points into memory the client owns, valid until the next
 * call that receives on this client (sweep_client_poll, _dispatch, any
 * blocking request) or sweep_client_close. Over UDP a world with more
 * movers than one datagram holds comes in parts (protocol/README.md):
 * *out is the first part, the others arrive as events.
 */
sweep_client_status sweep_client_watch_world(sweep_client *c, uint32_t every, sweep_msg_world_state *out,
                                             sweep_client_error *err);

/*
 * Fires the trigger of the mover named `mover` (its name in the map) at
 * the server's next tick; *out (may be NULL) says the mover's id and that
 * tick. Only a session of the server role may: one that connected with a
 * server token or the server's --command-token as options.auth_token; any
 * other gets AuthFailed, and a name the world does not have gets UnknownMover (both
 * SWEEP_CLIENT_E_SERVER with that code). Over UDP a command whose answer
 * is lost is sent again, so the trigger may fire twice.
 */
sweep_client_status sweep_client_mover_command(sweep_client *c, const char *mover, sweep_msg_mover_commanded *out,
                                               sweep_client_error *err);

/* --- the server role: every entity ----------------------------------------- */

/*
 * Subscribes this session (of the server role only: AuthFailed otherwise)
 * to the states of every entity of its world, whoever owns it: answered
 * at once with an EntityStates (*out, may be NULL), then one pushed
 * (Message.sequence 0) after every `every`-th tick, which sweep_client_poll
 * hands out as SWEEP_CLIENT_EV_ENTITY_STATES events; every = 0 stops
 * them. A world of more entities than one datagram (about a dozen) or
 * one frame holds comes in parts of the same tick, each listing a run of
 * the entities in the world's order, entity_count the whole count: *out is
 * the first part, the others arrive as events. out->entities lives as a
 * WorldState's movers do (sweep_client_watch_world).
 */
sweep_client_status sweep_client_watch_entities(sweep_client *c, uint32_t every, sweep_msg_entity_states *out,
                                                sweep_client_error *err);

/*
 * The state of one entity of the session's world, whoever owns it (the
 * server role only), copied to *out, and the tick it is of (*tick); both
 * may be NULL. An id the world does not have gets UnknownEntity
 * (SWEEP_CLIENT_E_SERVER with that code).
 */
sweep_client_status sweep_client_get_entity(sweep_client *c, uint32_t entity, sweep_wire_entity_state *out,
                                            uint64_t *tick, sweep_client_error *err);

/* --- the server role: commands on any entity -------------------------------- */

/*
 * Teleports, pushes, reshapes or despawns entities of the session's
 * world, whoever owns them (EntityCommands; server/README.md, "EntityCommands"):
 * cmds[0 .. n) are applied in order, each on what the ones before left,
 * and out[i] (n of them) is what became of cmds[i]: code SWEEP_WIRE_NONE
 * when applied, else why not (UnknownEntity, NoRoom, BadVelocity, ...)
 * with the server's text in message; the entity's position, velocity and
 * radii after it while it exists (has_state). A refused command changes
 * nothing and does not stop the others, so SWEEP_CLIENT_OK means every
 * command has its result, not that each was applied. More commands than
 * sweep_client_max_batch(c) go in several messages of that many, one
 * after the other, each waited for (the world may tick between two).
 * Refusals of a whole message come as SWEEP_CLIENT_E_SERVER with the
 * code: AuthFailed for a session that is not of the server role,
 * BatchTooLarge; the results of the messages before it are in out.
 * n = 0 or NULL arrays: SWEEP_CLIENT_E_ARG.
 *
 * The messages' texts (out[i].message) live in memory the client owns, as
 * a WorldState's movers do (sweep_client_watch_world): until the next call
 * that receives on this client. Copy them to keep them.
 *
 * Over UDP the answer may come in several datagrams, each a run of the
 * results in order; the client puts them together (each run is placed by
 * the entity and op its results echo). While the whole answer has not
 * come, the message is sent again (same sequence) every udp_retry_ms, as
 * every blocking request is; the server answers a repeat of a session's
 * last EntityCommands with the results it kept and applies nothing again
 * (an AddImpulse adds once). out is one whole answer; pieces of another
 * arriving later are dropped (counters.duplicates).
 */
sweep_client_status sweep_client_entity_commands(sweep_client *c, const sweep_msg_entity_command *cmds, uint32_t n,
                                                 sweep_msg_entity_command_result *out, sweep_client_error *err);

/*
 * Sends one EntityCommands of n commands (1 to sweep_client_max_batch(c);
 * more is SWEEP_CLIENT_E_ARG: split them, or use the blocking call) and
 * returns at once; *sequence (may be NULL) is its number. The answer comes
 * through sweep_client_poll: SWEEP_CLIENT_EV_COMMAND_RESULTS events of
 * that sequence, as.command_results holding results[0 .. count), the
 * results of commands first .. first + count - 1 of the n (over TCP one
 * event with all n; over UDP one per datagram), or one
 * SWEEP_CLIENT_EV_ERROR naming it (AuthFailed, BatchTooLarge). Nothing is
 * sent again: over UDP a lost request or piece of the answer is not
 * heard of (the results that came say which commands were answered). A
 * piece that overtakes the ones before it, or follows a lost first one, is
 * placed by the entities and ops its results echo when those fit only one
 * place among the commands not yet answered (else it is dropped,
 * counters.datagrams_dropped); a piece come twice is counted in
 * counters.duplicates and not handed out again.
 */
sweep_client_status sweep_client_send_entity_commands(sweep_client *c, const sweep_msg_entity_command *cmds,
                                                      uint32_t n, uint32_t *sequence, sweep_client_error *err);

/* --- queries: the world as it is or as it was ------------------------------ */

/*
 * Asks the session's world items[0 .. n) (Query; README.md "Queries"): a
 * ray's first hit, every hit of a ray, a line of sight, a swept ellipsoid,
 * the entities within a radius, each at the newest tick (item.tick 0) or
 * at a past tick plus a fraction of one (lag compensation), and out[i] (n
 * of them) answers items[i]: code SWEEP_WIRE_NONE with hit_count hits
 * nearest first (and flags: SWEEP_WIRE_QUERY_CLEAR for a clear line of
 * sight, SWEEP_WIRE_QUERY_MORE when more than max_hits were met), else
 * why not (TooOld past the history or a player's rewind cap, InFuture,
 * UnknownEntity, BadNumber, RateLimited, NotAllowed) with the server's
 * text in message. A refused item does not stop the others, so
 * SWEEP_CLIENT_OK means every item has its answer. More items than
 * sweep_client_max_batch(c) go in several messages, each waited for (the
 * world may tick between two: name the tick to ask one time). Refusals
 * of a whole message come as SWEEP_CLIENT_E_SERVER with the code
 * (BatchTooLarge); the answers of the messages before it are in out.
 * n = 0 or NULL arrays: SWEEP_CLIENT_E_ARG.
 *
 * The answers' hits and texts live in memory the client owns, until the
 * next call that receives on this client: copy them to keep them. Over
 * UDP the answer may come in several datagrams (QueryResult.first places
 * each); while it is not whole the message is sent again every
 * udp_retry_ms (a player's repeat is paid again from its query rate).
 */
sweep_client_status sweep_client_query(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                       sweep_msg_query_answer *out, sweep_client_error *err);

/*
 * Sends one Query of n items (1 to sweep_client_max_batch(c); more is
 * SWEEP_CLIENT_E_ARG) and returns at once; *sequence (may be NULL) is its
 * number. The answer comes through sweep_client_poll:
 * SWEEP_CLIENT_EV_QUERY_RESULTS events of that sequence (over TCP one
 * with all n answers, over UDP one per datagram, as.query_results.first
 * saying which item each run starts at), or one SWEEP_CLIENT_EV_ERROR
 * naming it (BatchTooLarge). Nothing is sent again.
 */
sweep_client_status sweep_client_send_query(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                            uint32_t *sequence, sweep_client_error *err);

/* --- worlds (the server role) ---------------------------------------------- */

/* A world opened at run time (WorldOpened), or closed (WorldClosed). */
typedef struct sweep_client_world {
    uint32_t world;       /* its id: non-zero, never reused while the server runs */
    char name[96];        /* what a session names it by in options.world */
    uint8_t map_hash[32]; /* its map's content hash (Welcome.map_hash of its sessions) */
} sweep_client_world;

typedef struct sweep_client_world_closed {
    uint32_t world;
    char reason[128];     /* "CloseWorld", or the server's reason */
} sweep_client_world_closed;

/*
 * Opens a world of the server's maps directory (sweepd --maps-dir): `map`
 * is a map's name or file stem there, never a path; `name` (NULL or "":
 * the server picks the map's name, or map#id when that is taken) is the
 * world's, which sessions then give as options.world to join it. *out
 * (may be NULL) is the answer. Only a session of the server role may (else
 * AuthFailed); refusals come as SWEEP_CLIENT_E_SERVER with the code:
 * UnknownMap, WorldExists (the name is open on another map), WorldLimit.
 * A name already open on the same map is answered with that world, so
 * over UDP an OpenWorld sent again for a lost answer opens nothing twice
 * when it has a name (one without may open two worlds).
 */
sweep_client_status sweep_client_open_world(sweep_client *c, const char *map, const char *name,
                                            sweep_client_world *out, sweep_client_error *err);

/*
 * Closes world `world` (any open one, this session's own too): its
 * sessions are told (SWEEP_CLIENT_EV_WORLD_CLOSED, sequence 0) and end
 * with their entities. The server role only; an id that is not open gets
 * UnknownWorld.
 */
sweep_client_status sweep_client_close_world(sweep_client *c, uint32_t world, sweep_client_error *err);

/* --- sending without waiting ---------------------------------------------- */

/* One entity to spawn (Spawn in sweep.fbs). A player gets the map's spawn
 * point and radii whatever it asks (protocol/README.md, "Spawning"). */
typedef struct sweep_client_spawn_req {
    sweep_vec3 position;  /* the server role's place, with spawn_point 0 */
    sweep_vec3 radii;     /* 0, 0, 0: the map's */
    uint32_t spawn_point; /* N > 0: the map's N-th spawn point; 0: position (server role), or the
                             next free point (a player) */
    double max_speed;     /* Fly and Noclip moves' own limits; 0 = the world's */
    double step_height;
    bool player;          /* the server role relaying a player: the entity moves by the player rules
                             (Spawn.player; the answer's player says it was taken) */
} sweep_client_spawn_req;

/*
 * Sends one Spawn and returns at once; *sequence (may be NULL) is its
 * number. The answer comes through sweep_client_poll with the move
 * results: a SWEEP_CLIENT_EV_SPAWNED event whose sequence is that number
 * (as.spawned: the entity, where, how big), or a SWEEP_CLIENT_EV_ERROR
 * whose as.error.sequence is (the server's code: SpawnRefused,
 * TooManyEntities, ...). So N spawns cost one round trip, not N: send them
 * all, then poll. If neither comes within options.timeout_ms, the client
 * hands out an EV_ERROR of its own for that sequence with status
 * SWEEP_CLIENT_E_TIMEOUT (an answer arriving later still comes after it).
 * Over UDP the newest Spawn sent is resent (same number) every
 * udp_retry_ms while unanswered, for as long as sweep_client_poll (or a
 * blocking call) runs: the server answers a repeat of a session's newest
 * Spawn with the entity it made. An older one is not resent (a repeat
 * would make a second entity), so a lost one ends in that TIMEOUT.
 */
sweep_client_status sweep_client_send_spawn(sweep_client *c, const sweep_client_spawn_req *s, uint32_t *sequence,
                                            sweep_client_error *err);

/* One move to send. In Walk mode (0, the only mode of a player) velocity
 * is the wish: the velocity wished across the ground (its part along up is
 * ignored and named Vertical, but used swimming and climbing) and buttons (SWEEP_WISH_JUMP, core/motion.h).
 * Fly and Noclip (sweep_wire_mode) apply velocity as given; only the
 * server role may ask them, where the server allows it. claimed_position
 * is optional (the client's prediction; the server reports in MoveResult
 * when it is farther from its answer than the map's correction threshold). */
typedef struct sweep_client_move_req {
    uint32_t entity;
    sweep_vec3 velocity; /* Walk: the wish */
    double dt;           /* seconds asked: the time since the previous move */
    uint64_t client_tick;
    int has_claimed_position;
    sweep_vec3 claimed_position;
    uint32_t buttons;    /* Walk: SWEEP_WISH_* */
    uint32_t mode;       /* sweep_wire_mode; 0 = Walk */
} sweep_client_move_req;

/* Sends one move (any mode, buttons, claimed position) and waits for its
 * result, as sweep_client_move; *sequence (may be NULL) is its number. */
sweep_client_status sweep_client_move_request(sweep_client *c, const sweep_client_move_req *m,
                                              sweep_msg_move_result *out, uint32_t *sequence,
                                              sweep_client_error *err);

/* Sends one Move; *sequence (may be NULL) is the number it carries. With
 * redundancy (sweep_client_set_redundancy) the datagram is a MoveBatch of
 * the last unanswered moves, each with its own number, and this one. */
sweep_client_status sweep_client_send_move(sweep_client *c, const sweep_client_move_req *m, uint32_t *sequence,
                                           sweep_client_error *err);

/* Most moves a datagram carries again (sweep_client_set_redundancy). */
#define SWEEP_CLIENT_REDUNDANCY_MAX 8u

/*
 * UDP: from now on every sweep_client_send_move sends, in the same
 * datagram, up to n of the moves sent before it that are still unanswered
 * (the newest n, unchanged, with their own sequence numbers), so a move
 * gets through unless n + 1 datagrams in a row are lost. A move stops
 * being sent again once an answer (or Error) names it or a later move of
 * the same entity. The server applies each move once and answers a resent
 * one it applied with the same result; the client drops repeated answers
 * (counters.duplicates), so each move's result is handed out once. n = 0
 * turns it off. SWEEP_CLIENT_E_ARG over TCP (which loses nothing) or for
 * n above SWEEP_CLIENT_REDUNDANCY_MAX.
 */
sweep_client_status sweep_client_set_redundancy(sweep_client *c, uint32_t n, sweep_client_error *err);

/*
 * Sends count moves (any number) in MoveBatches of at most
 * sweep_client_max_batch(c) moves each, in order: a batch takes one number
 * for the message and the next ones for its moves, so sequences[i] (array
 * may be NULL) is the number of moves[i], increasing, with a gap before
 * the first move of each batch (sweep_client_batch_sequences says them in
 * advance). How the answers come back, through sweep_client_poll: one
 * SWEEP_CLIENT_EV_MOVE_RESULT per move, with as.move_result.sequence =
 * sequences[i], in the order the server applied them (a batch's results
 * in order, the batches in order over TCP); a move the server refused
 * gets an EV_ERROR naming its own number instead; and an Error about a
 * whole batch (RateLimited, BatchTooLarge, naming the batch's own number)
 * is handed out as one EV_ERROR per move of that batch, each naming the
 * move and its entity, so every move gets exactly one answer (over UDP,
 * unless its datagram or the answer's is lost). Arguments are checked
 * before anything is sent; if sending fails part way, the moves already
 * sent have their numbers in sequences and the others 0.
 */
sweep_client_status sweep_client_send_batch(sweep_client *c, const sweep_client_move_req *moves, uint32_t count,
                                            uint32_t *sequences, sweep_client_error *err);

/* The numbers sweep_client_send_batch gives a batch of count moves sent
 * next (no other request in between), into sequences[0 .. count): a
 * predicting client keys its predictions on them before sending. A NULL
 * sequences is left alone; a NULL c fills it with 0 (no number). */
void sweep_client_batch_sequences(const sweep_client *c, uint32_t count, uint32_t *sequences);

/* Most moves one MoveBatch may hold: Welcome.max_batch, and over UDP no
 * more than fit one datagram of the session's agreed size with every
 * field of every move present (claimed positions, buttons, mode included). sweep_client_send_batch
 * cuts a larger batch into MoveBatches of this size. 1 before the Welcome
 * (a client still connecting), 0 for a NULL c. */
uint32_t sweep_client_max_batch(const sweep_client *c);

/* --- receiving ------------------------------------------------------------ */

typedef enum sweep_client_event_kind {
    SWEEP_CLIENT_EV_NONE = 0,
    SWEEP_CLIENT_EV_MOVE_RESULT,   /* as.move_result (results of a batch come one by one) */
    SWEEP_CLIENT_EV_ERROR,         /* as.error: a server Error, not tied to a waiting call, or
                                      (status TIMEOUT) a spawn that went unanswered */
    SWEEP_CLIENT_EV_SPAWNED,       /* as.spawned */
    SWEEP_CLIENT_EV_DESPAWNED,     /* as.despawned: the answer to a Despawn, or (sequence 0,
                                      crushed_by = the mover's id) an entity a mover crushed, or
                                      (sequence 0, killed_by = the volume's id; reason left empty:
                                      it is the volume's name in the map) an entity whose move
                                      ended in a kill volume */
    SWEEP_CLIENT_EV_COLLIDE_RESULT, /* as.collide_result */
    SWEEP_CLIENT_EV_PONG,          /* as.pong */
    SWEEP_CLIENT_EV_STATS,         /* as.stats */
    SWEEP_CLIENT_EV_WORLD_STATE,   /* as.world_state: movers' poses after a tick (sequence 0 when
                                      pushed; see sweep_client_watch_world for how long movers lives) */
    SWEEP_CLIENT_EV_BYE,           /* the server is closing; as.error.message holds the reason. The
                                      session is over: every call after it fails
                                      SWEEP_CLIENT_E_CLOSED, "the server said Bye: REASON" */
    SWEEP_CLIENT_EV_MOVER_COMMANDED, /* as.mover_commanded */
    SWEEP_CLIENT_EV_ENTITY_STATES,  /* as.entity_states: entities after a tick (sequence 0 when
                                       pushed; see sweep_client_watch_entities for how long
                                       entities lives) */
    SWEEP_CLIENT_EV_WORLD_OPENED,   /* as.world_opened */
    SWEEP_CLIENT_EV_WORLD_CLOSED,   /* as.world_closed: the answer to a CloseWorld, or (sequence 0)
                                       the session's world closed: the session ends after it */
    SWEEP_CLIENT_EV_COMMAND_RESULTS, /* as.command_results: results of an EntityCommands (all of them,
                                       or over UDP a datagram's run; see
                                       sweep_client_send_entity_commands) */
    SWEEP_CLIENT_EV_QUERY_RESULTS   /* as.query_results: answers of a Query (all of them, or over UDP
                                       a datagram's run; see sweep_client_send_query) */
} sweep_client_event_kind;

/* Results of an EntityCommands sent with sweep_client_send_entity_commands:
 * results[k] answers command first + k of the request's total. results and
 * the texts of their messages live as a WorldState's movers do (until the
 * next call that receives on the client). */
typedef struct sweep_client_command_results {
    const sweep_msg_entity_command_result *results;
    uint32_t count;
    uint32_t first; /* the request's command results[0] answers (0: its first) */
    uint32_t total; /* commands in the request */
} sweep_client_command_results;

/* Answers of a Query sent with sweep_client_send_query: answers[k]
 * answers item first + k of the request. answers, their hits and texts
 * live as a WorldState's movers do (until the next call that receives on
 * the client). */
typedef struct sweep_client_query_results {
    const sweep_msg_query_answer *answers;
    uint32_t count;
    uint32_t first; /* the request's item answers[0] answers (0: its first) */
} sweep_client_query_results;

typedef struct sweep_client_event {
    sweep_client_event_kind kind;
    uint32_t sequence;    /* the request answered (Message.sequence) */
    uint64_t server_tick;
    uint64_t received_ns; /* when it arrived, on the monotonic clock (sweep_client_now_ns): the
                             kernel's receive time of its datagram (UDP) or of the newest TCP
                             segment read with it (SO_TIMESTAMPNS), so a caller that came late
                             to read does not count its own delay as the server's; the time
                             it was read where the kernel gives no stamp, or when the real-time
                             clock it stamps on was stepped since the read before; never
                             earlier than an event received before it */
    uint32_t wire_bytes;  /* the size of the frame (its size prefix included) or datagram it came
                             in, counted once: the first event made of a message carries it, the
                             others of the same message (a MoveBatchResult's further results, a
                             refused batch's further Errors) 0, so over the events a connection
                             hands out it sums to the bytes they came in; 0 for what libsweep
                             makes itself (a Spawn given up with TIMEOUT) */
    union {
        sweep_msg_move_result move_result;
        sweep_client_error error;
        sweep_msg_spawned spawned;
        uint32_t entity;                 /* = despawned.entity */
        sweep_msg_despawned despawned;
        sweep_msg_collide_result collide_result;
        sweep_msg_pong pong;
        sweep_msg_stats stats;
        uint64_t world_tick;             /* = world_state.tick */
        sweep_msg_world_state world_state;
        sweep_msg_mover_commanded mover_commanded;
        sweep_msg_entity_states entity_states;
        sweep_client_world world_opened;
        sweep_client_world_closed world_closed;
        sweep_client_command_results command_results;
        sweep_client_query_results query_results;
    } as;
} sweep_client_event;

/* The next event, waiting at most timeout_ms (0 = do not wait, -1 = no
 * limit). SWEEP_CLIENT_OK with *ev filled, or SWEEP_CLIENT_E_TIMEOUT when
 * nothing came, or an error of the connection itself (CLOSED, after the
 * server's Bye or close; IO; PROTOCOL; over UDP CONNECT, the server's port
 * refusing: nobody listens there any more), which every later call
 * reports too, once the events that arrived before it are handed out
 * (the Bye among them). Over UDP a datagram that does not decode is
 * dropped and counted, not fatal. */
sweep_client_status sweep_client_poll(sweep_client *c, int timeout_ms, sweep_client_event *ev,
                                      sweep_client_error *err);

/* Events already received and waiting, which sweep_client_poll hands out
 * without a system call. A program driving many sockets calls
 * sweep_client_poll once for a socket its poll(2) or epoll(7) found
 * readable (that reads what the socket holds, over UDP up to 32 datagrams
 * a system call where it has recvmmsg(2)), then again only while this is
 * above 0: one read per socket per wake, rather than one more that finds
 * the socket empty. 0 for a NULL c. */
size_t sweep_client_pending(const sweep_client *c);

typedef void (*sweep_client_event_cb)(void *user, const sweep_client_event *ev);

/* Waits at most timeout_ms for something to arrive, then calls cb for
 * every event available; *handled (may be NULL) is how many. Returns OK
 * (also when nothing came in time) or a connection error. */
sweep_client_status sweep_client_dispatch(sweep_client *c, int timeout_ms, sweep_client_event_cb cb, void *user,
                                          unsigned *handled, sweep_client_error *err);

/* Counters of this connection. */
typedef struct sweep_client_counters {
    uint64_t frames_sent, frames_received;
    uint64_t bytes_sent, bytes_received;
    uint64_t datagrams_dropped; /* UDP: undecodable or unexpected datagrams ignored */
    uint64_t resends;           /* UDP: requests sent again for lack of an answer */
    uint64_t redundant_moves;   /* UDP: moves sent again beside a new one (redundancy) */
    uint64_t duplicates;        /* UDP: answers to a request already handed out (a resent move or
                                   Spawn answered again), dropped */
} sweep_client_counters;

/* All 0 for a NULL c; a NULL out is left alone. */
void sweep_client_get_counters(const sweep_client *c, sweep_client_counters *out);

/* Monotonic clock in nanoseconds (CLOCK_MONOTONIC), as used in events. */
uint64_t sweep_client_now_ns(void);

/* The names of the Rule bits set in `rules` (MoveResult.rules,
 * Spawned.rules), joined by `sep` ("Speed,TimeBudget"; "Bit12" for a bit
 * this build does not know; "" for none), in buf (always NUL-terminated,
 * truncated to cap). Returns buf. */
const char *sweep_client_rules_string(uint32_t rules, const char *sep, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
