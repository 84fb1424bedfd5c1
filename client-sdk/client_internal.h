/*
 * client_internal.h - internal: the client's structure, and the calls the
 * files of libsweep's connection (client*.c) make to one another. Not
 * installed, and included by those files alone: the rest of libsweep
 * (predict.c) reaches a client through client.h and client_impl.h, never
 * into its structure.
 *
 * Spawns sent without waiting are remembered in `spawns` until answered,
 * so that over UDP the newest can be resent and any can be given up after
 * the timeout with an error event of their own. MoveBatches sent are
 * remembered in `batches` (a ring of the last SWEEP__BATCHES: message
 * number, and each move's number and entity), so that an Error about a
 * whole batch becomes one Error per move. EntityCommands sent are
 * remembered in `commands` (a ring of the last SWEEP__COMMANDS: number,
 * and the entity and op of each command), so that the runs of results an
 * answer comes in over UDP are put in their places (place_run).
 *
 * The server's tick is estimated in `clock` (tick_clock.h): every message
 * that names a tick feeds it, and so does every round trip measured, from
 * a move's send (`move_sent`, a ring of the last SWEEP__MOVES_TIMED moves'
 * numbers and send times) to its answer, and from a Ping to its Pong.
 *
 * Redundancy (UDP): `unanswered` keeps, oldest first, the last moves sent
 * whose answer has not come; sweep_client_send_move puts the newest
 * `redundancy` of them in a MoveBatch beside the new move. Every answer
 * or Error naming a move takes it (and the older moves of its entity,
 * which the server can no longer apply) out. Answers to moves are handed
 * out once: over UDP `seen` remembers the sequences of the last
 * SWEEP__SEEN answers queued (slot seq % SWEEP__SEEN), and an answer
 * already there is a repeat of a resent move and is dropped.
 *
 * Invariants: q[qhead .. qhead+qlen) are the pending events in arrival
 * order; after a fatal connection error (fatal.status != OK) no more bytes
 * are read or written and every call returns that error; every queued
 * WORLD_STATE (ENTITY_STATES) event with count > 0 owns its movers
 * (entities) array; unanswered[0 .. nunanswered) are in increasing
 * sequence order; spawns[0 .. nspawns) are the Spawns sent and neither
 * answered nor given up, oldest first; only a client in state SWEEP__READY
 * sends requests other than the handshake's.
 */
#ifndef SWEEP_CLIENT_SDK_CLIENT_INTERNAL_H
#define SWEEP_CLIENT_SDK_CLIENT_INTERNAL_H

#include "client-sdk/client.h"
#include "client-sdk/client_impl.h"
#include "client-sdk/platform.h"

#include "protocol/decode.h"
#include "protocol/framing.h"

/* Frames the server sends us may be larger than what it accepts (a batch of
 * results with contacts); this bounds what we buffer. */
#define SWEEP__RX_MAX_FRAME (1u << 20)
#define SWEEP__COOKIE_MAX 256

/* Answers to moves remembered for dropping repeats (UDP): far more than
 * the moves in flight, as a window of sequence numbers. */
#define SWEEP__SEEN 4096u

/* Bytes taken by one read (TCP): a game server's tick of a thousand
 * answers is some 180 KB, three reads of this rather than a dozen. */
#define SWEEP__RX_READ (64u * 1024u)

/* Datagrams taken by one read (UDP). A player's socket rarely holds more
 * than a few answers at a time, but a game server relaying a thousand
 * players finds a couple of hundred a tick, and each read is a system
 * call; a read which returns fewer than this knows the socket is empty,
 * with no second call to hear EAGAIN. 32 buffers of a datagram each are
 * 38 KB. */
#define SWEEP__RX_BATCH 32u

/* Datagrams read at most, after the server's port refused, to find what
 * it sent before it went (UDP): more than a socket's receive buffer holds
 * at the system's default size. */
#define SWEEP__RX_DRAIN 1024u

/* Event kinds only the handshake waits for; never handed to the caller. */
enum { SWEEP__EV_WELCOME = 100, SWEEP__EV_CHALLENGE = 101 };

/* MoveBatches remembered for turning an Error about a whole batch into
 * one per move: a batch's Error comes with its answers, so the last few
 * dozen are plenty. */
#define SWEEP__BATCHES 64u

/* Moves whose send time is kept for measuring round trips: more than a
 * game has in flight. */
#define SWEEP__MOVES_TIMED 128u

/* Stats.worlds read at most (Stats.worlds_open counts them all): room is
 * made the first time stats are asked, so a client that never asks (each
 * of thousands of bots) pays nothing for it. */
#define SWEEP__STATS_WORLDS 1024u

/* EntityCommands remembered for placing their answers' pieces: a blocking
 * call has one in flight, a game server a few per frame. */
#define SWEEP__COMMANDS 64u

/* An EntityCommands sent: what each command names, which its result
 * echoes, and how far the answer being gathered (of one server_tick: one
 * application of the request) has come. */
typedef struct sweep__commands_sent {
    uint32_t sequence, count, cap;
    uint32_t *entities; /* [count] */
    uint8_t *ops;       /* [count] */
    uint8_t *got;       /* [count]: 1 where the answer being gathered placed a result */
    uint64_t tick;      /* server_tick of the answer being gathered */
    uint32_t next;      /* where its last run ended */
    uint32_t placed;    /* results of it placed (the 1s of got) */
    int closed;         /* answered whole, or given up: more pieces are repeats */
} sweep__commands_sent;

/* Where connecting is (sweep_client_connect_step). */
enum sweep__state {
    SWEEP__TCP_CONNECTING, /* a TCP connect under way: waiting to be writable */
    SWEEP__HELLO,          /* the Hello sent (UDP: without cookie, a Challenge awaited) */
    SWEEP__COOKIE,         /* UDP: the Hello with the cookie sent, the Welcome awaited */
    SWEEP__PORT,           /* UDP: a Ping sent to the session's own port (Welcome.udp_port) */
    SWEEP__READY,
    SWEEP__FAILED          /* `fatal` says why */
};

/* A Spawn sent without waiting, not answered yet. */
typedef struct sweep__spawn_wait {
    uint32_t sequence;
    sweep_msg_spawn spawn;
    uint64_t expire_ns, resend_ns;
} sweep__spawn_wait;

/* A MoveBatch sent: its message number and its moves'. */
typedef struct sweep__batch_sent {
    uint32_t sequence, count, cap;
    uint32_t *moves;    /* [count] move numbers */
    uint32_t *entities; /* [count] */
} sweep__batch_sent;

struct sweep_client {
    sweep__sock fd;
    int net_started; /* sweep__net_start succeeded: sweep__net_stop at the end */
    sweep_client_transport transport;
    int timeout_ms, retry_ms;
    uint32_t next_seq;
    sweep_client_welcome welcome;
    uint32_t udp_max_batch;
    uint32_t udp_asked;    /* UDP: the largest datagram it takes (Hello.max_datagram) */
    uint32_t udp_datagram; /* UDP: the largest it sends: 1200, then what the Welcome agreed */
    uint64_t udp_key;      /* UDP: Welcome.udp_key, on every datagram after the Welcome; 0 before */

    /* Receiving. */
    uint8_t *rx;  /* TCP: framer storage; UDP: SWEEP__RX_BATCH datagrams of rx_cap bytes each */
    size_t rx_cap;
    uint8_t *rx_read; /* TCP: one read's bytes, SWEEP__RX_READ of them */
    sweep__rx_batch *rx_batch; /* UDP: one read's datagrams, into rx */
    sweep__datagram rx_got[SWEEP__RX_BATCH];
    sweep__rx_clock rx_clock; /* arrivals of every read, whatever the socket */
    sweep_framer framer;
    sweep_decoder dec;
    uint8_t cookie[SWEEP__COOKIE_MAX];
    uint32_t cookie_len;

    /* Sending. */
    uint8_t *tx;
    size_t tx_cap;
    sweep_msg_move *batch; /* encoder input for MoveBatch */
    uint32_t batch_cap;

    /* Events not yet handed out. */
    sweep_client_event *q;
    size_t qhead, qlen, qcap;
    void *handed; /* movers of the WorldState (entities of the EntityStates) handed out last */

    /* Redundancy (UDP). */
    uint32_t redundancy;
    sweep_msg_move unanswered[SWEEP_CLIENT_REDUNDANCY_MAX];
    uint32_t nunanswered;
    sweep_msg_move red_batch[SWEEP_CLIENT_REDUNDANCY_MAX + 1];
    uint32_t *seen; /* [SWEEP__SEEN], UDP only */

    /* Connecting. */
    enum sweep__state state;
    struct addrinfo *ai, *ai_at; /* the resolved addresses, the one being tried */
    int ai_sys;                  /* why the last address failed: the system's code */
    uint64_t ai_deadline;        /* UDP: when the address being tried gives way to the next unless it
                                    answered first (0: it answered, or it is the last) */
    char *strings;               /* copies of the options' strings, in one allocation: */
    const char *address, *client_name, *auth_token, *world;
    int keep_port;
    uint64_t connect_deadline;
    sweep_message hs;      /* the handshake's request in flight (Hello, Ping), resent over UDP */
    int hs_kind;           /* the answer it waits for */
    uint64_t hs_resend_at, port_deadline;
    uint32_t hs_round;     /* UDP: handshakes started again after BadCookie */
    uint8_t hs_cookie[SWEEP__COOKIE_MAX];
    uint16_t shared_port;  /* UDP: the port the Hello went to */

    /* Spawns sent without waiting (sweep_client_send_spawn). */
    sweep__spawn_wait *spawns;
    uint32_t nspawns, spawns_cap;
    uint32_t newest_spawn;

    /* MoveBatches sent (ring). */
    sweep__batch_sent batches[SWEEP__BATCHES];
    uint32_t batch_next;

    /* EntityCommands sent (ring). */
    sweep__commands_sent commands[SWEEP__COMMANDS];
    uint32_t commands_next;

    /* The server's tick (tick_clock.h) and the moves' send times. */
    sweep_tick_clock clock;
    uint32_t move_sent_seq[SWEEP__MOVES_TIMED];
    uint64_t move_sent_ns[SWEEP__MOVES_TIMED];

    sweep_client_counters counters;
    sweep_client_error fatal;
    int said_bye; /* the server said Bye: the session is over (over UDP, on whichever of its ports) */
    sweep_client_error last; /* the last public call's outcome */
};

/* The system's words for its code sys. */
#define NET_TEXT(sys) sweep__net_text((sys), (char[160]){0}, 160)

/* ---- client.c: errors, the socket, a blocking call's wait ------------------ */

/* Fills err (if any) and returns its status, so failures are one line. */
sweep_client_status sweep__client_fail(sweep_client_error *err, sweep_client_status s, const char *fmt, ...)
    SWEEP__PRINTF(3, 4);

/* Records a connection-ending error once; later calls report the same. */
sweep_client_status sweep__client_fatal(sweep_client *c, sweep_client_error *err, sweep_client_status s,
                                        const char *fmt, ...) SWEEP__PRINTF(4, 5);

/* Clears err (if any); returns OK. */
sweep_client_status sweep__client_ok(sweep_client_error *err);

/* The end of every public call on a client that ran with err = &c->last:
 * clears it after a success and hands the caller its copy. */
sweep_client_status sweep__client_done(sweep_client *c, sweep_client_status s, sweep_client_error *err);

/* A client that is not connected yet (or failed) sends nothing but its handshake. */
sweep_client_status sweep__client_not_ready(sweep_client *c, sweep_client_error *err);

/* Result storage for decoding batches and EntityCommandsResults; sized
 * by what the server allows in one message (n), and over UDP for as many
 * command results as a datagram can hold, since the server cuts its
 * answers to datagrams, not to its limit. */
int sweep__client_size_decoder(sweep_client *c, uint32_t n);

/* Reads what the socket has without waiting and queues the events.
 * Returns OK (also when there was nothing), or a fatal status, with the
 * events of what came before the end queued all the same. Each event's
 * received_ns is the kernel's arrival time of its bytes, so the time a
 * busy caller took to come and read is not counted as the network's. */
sweep_client_status sweep__client_read_some(sweep_client *c, sweep_client_error *err);

/* Milliseconds left until deadline_ns (0 = none: -1), for poll. */
int sweep__client_ms_left(uint64_t deadline_ns);

/* The deadline ms from now (0, none, when ms is negative). */
uint64_t sweep__client_deadline_after(int ms);

/* Writes one whole frame or datagram before deadline_ns. */
sweep_client_status sweep__client_send_bytes(sweep_client *c, const uint8_t *data, size_t len, uint64_t deadline_ns,
                                             sweep_client_error *err);

/* Sends count datagrams side by side in data (datagram i lens[i] bytes)
 * in as few system calls as the platform allows, each whole, before
 * deadline_ns. *sent is how many went (all of them on OK; on a failure
 * the first *sent did). */
sweep_client_status sweep__client_send_datagrams(sweep_client *c, const uint8_t *data, const size_t *lens,
                                                 unsigned count, uint64_t deadline_ns, unsigned *sent,
                                                 sweep_client_error *err);

/* Encodes m into the transmit buffer past its first `from` bytes (with
 * the size prefix over TCP); SWEEP_CLIENT_E_AGAIN when it does not fit
 * there but would in the whole buffer. */
sweep_client_status sweep__client_encode_from(sweep_client *c, size_t from, const sweep_message *m, const uint8_t **out,
                                              size_t *len, sweep_client_error *err);

/* Encodes m into the transmit buffer (with the size prefix over TCP). */
sweep_client_status sweep__client_encode(sweep_client *c, const sweep_message *m, const uint8_t **out, size_t *len,
                                         sweep_client_error *err);

/* Encodes m and sends it within the timeout; a client not READY sends nothing. */
sweep_client_status sweep__client_send_message(sweep_client *c, const sweep_message *m, sweep_client_error *err);

/* Waits until the socket is readable or deadline; reads what came. */
sweep_client_status sweep__client_pump(sweep_client *c, uint64_t deadline_ns, sweep_client_error *err);

/* Does ev answer the request numbered seq with `kind` (or an Error)? */
int sweep__client_answers(const sweep_client_event *ev, int kind, uint32_t seq);

/* When sweep__client_service_spawns next has something to do; 0 = never. */
uint64_t sweep__client_spawns_due(const sweep_client *c);

/* The Spawns sent without waiting: over UDP the newest is sent again when
 * its resend is due (the server answers a repeat of a session's newest
 * Spawn with the entity it made; a repeat of an older one would make a
 * second entity); one unanswered past its time is given up with an Error
 * event of its own, status TIMEOUT. Returns OK or a fatal status. */
sweep_client_status sweep__client_service_spawns(sweep_client *c, sweep_client_error *err);

/* One wait of a blocking call for its answer, after it looked at the
 * queue: over UDP request `resend` (may be NULL) is sent again if
 * *resend_at is due (then the next is retry_ms later); then the socket is
 * read once something came, or by the next resend, Spawn to service or
 * the deadline. */
sweep_client_status sweep__client_wait_more(sweep_client *c, const sweep_message *resend, uint64_t now,
                                            uint64_t deadline, uint64_t *resend_at, sweep_client_error *err);

/* Waits until deadline_ns for the answer of `kind` (or an Error) to the
 * request numbered seq, taking it out of the queue into *out; everything
 * else stays queued. Over UDP `resend` (may be NULL) is sent again every
 * retry_ms; the Spawns sent without waiting are serviced meanwhile. An
 * Error answer returns its status (SERVER, or TIMEOUT for a Spawn given up)
 * with err = the error. `what` names the request in a timeout's message. */
sweep_client_status sweep__client_await_answer(sweep_client *c, const sweep_message *resend, const char *what, int kind,
                                               uint32_t seq, uint64_t deadline, sweep_client_event *out,
                                               sweep_client_error *err);

/* Sends request m and waits for its answer of `kind` or an Error about
 * its sequence; over UDP resends it every retry_ms. */
sweep_client_status sweep__client_request(sweep_client *c, const sweep_message *m, int kind, sweep_client_event *out,
                                          sweep_client_error *err);

/* ---- client_connect.c: for sweep_client_connect_start ---------------------- */

/* HOST:PORT (the host may be [IPv6]) into the addresses of socktype. */
sweep_client_status sweep__client_resolve(const char *address, int socktype, struct addrinfo **res,
                                          sweep_client_error *err);

/* Opens a socket to the addresses from ai_at on, in turn, until one
 * connects or has its TCP connect under way (then the handshake begins or
 * waits for it); a failure names the last address's error. */
sweep_client_status sweep__client_open_next(sweep_client *c, sweep_client_error *err);

/* ---- client_receive.c: the queue of events -------------------------------- */

/* A new event, zeroed, at the end of the queue; NULL when out of memory. */
sweep_client_event *sweep__client_queue_push(sweep_client *c);

/* Removes the i-th pending event (0 = oldest) into *out. */
void sweep__client_queue_take(sweep_client *c, size_t i, sweep_client_event *out);

/* Frees the movers of the WorldState (the entities of the EntityStates)
 * handed out last: the caller was told they live until its next receiving
 * call, which this is. */
void sweep__client_release_handed(sweep_client *c);

/* The array an event owns (NULL: none). */
void *sweep__client_owned_array(const sweep_client_event *ev);

/* Takes the array of an event being handed out into `handed`. */
void sweep__client_hand_out(sweep_client *c, const sweep_client_event *ev);

/* Frees the queue with the arrays its events own. */
void sweep__client_free_queue(sweep_client *c);

/* Forgets the Spawn numbered seq (answered, or given up); 1 if it was waiting. */
int sweep__client_settle_spawn(sweep_client *c, uint32_t seq);

/* The remembered MoveBatch whose message number is seq, or NULL. */
sweep__batch_sent *sweep__client_batch_sent(sweep_client *c, uint32_t seq);

/* The remembered EntityCommands numbered seq, or NULL. */
sweep__commands_sent *sweep__client_commands_sent(sweep_client *c, uint32_t seq);

/* A copy of answers a[0 .. n) with their hits and messages' texts in the
 * same allocation (the next message's decoding would overwrite them):
 * NULL when out of memory. */
sweep_msg_query_answer *sweep__client_copy_answers(const sweep_msg_query_answer *a, uint32_t n);

/* Turns one decoded message, of `bytes` on the wire, into queued events
 * (a result batch into one event per result). Returns 0, or -1 when
 * memory runs out. */
int sweep__client_handle_message(sweep_client *c, const sweep_message *m, uint64_t now, uint32_t bytes);

#endif
