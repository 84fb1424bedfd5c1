/*
 * client.c - libsweep's connection: sockets, the handshake, requests and
 * the queue of received events (client.h).
 *
 * Everything runs on one non-blocking socket driven by poll(2). Received
 * bytes go through the protocol's framer (TCP) or are taken up to
 * SWEEP__RX_BATCH datagrams per recvmmsg(2) (UDP), are verified and
 * decoded by sweep_decode, and become events in a FIFO queue, each stamped
 * with the kernel's arrival time (SO_TIMESTAMPNS, moved to the monotonic
 * clock). A blocking call sends its request and pumps the
 * socket until the queue holds the answer to its sequence, which it takes
 * out of the queue; everything else stays queued, in arrival order, for
 * sweep_client_poll. While a TCP write waits for room the socket is read
 * too, so a client and a server that both write a lot cannot deadlock.
 *
 * A WorldState's movers are copied out of the receive buffer into an
 * array of their own when the message is queued (the decoder's storage is
 * reused by the next message); the event owns that array until it is
 * handed to the caller, then `handed` owns it until the next receiving
 * call frees it.
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
 * WORLD_STATE event with count > 0 owns its movers array; unanswered[0 ..
 * nunanswered) are in increasing sequence order.
 */
#define _GNU_SOURCE
#include "client-sdk/client.h"

#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/framing.h"

/* Frames the server sends us may be larger than what it accepts (a batch of
 * results with contacts); this bounds what we buffer. */
#define SWEEP__RX_MAX_FRAME (1u << 20)
#define SWEEP__TX_CAP (SWEEP_FRAME_PREFIX + SWEEP_FRAME_DEFAULT_MAX)
#define SWEEP__COOKIE_MAX 256
/* Bytes a MoverTransform (a struct of sweep.fbs) takes in a buffer: a
 * buffer of n bytes holds at most n / this many. */
#define SWEEP__WIRE_MOVER_BYTES 64u

/* Answers to moves remembered for dropping repeats (UDP): far more than
 * the moves in flight, as a window of sequence numbers. */
#define SWEEP__SEEN 4096u

/* Datagrams taken by one recvmmsg (UDP). A game's socket rarely holds more
 * than a few answers at a time; what matters is that a read which returns
 * fewer than this knows the socket is empty, with no second call to hear
 * EAGAIN. */
#define SWEEP__RX_BATCH 8u
/* Control bytes per datagram: the kernel's receive time (SCM_TIMESTAMPNS). */
#define SWEEP__RX_CMSG CMSG_SPACE(sizeof(struct timespec))

/* Event kinds only the handshake waits for; never handed to the caller. */
enum { SWEEP__EV_WELCOME = 100, SWEEP__EV_CHALLENGE = 101 };

struct sweep_client {
    int fd;
    sweep_client_transport transport;
    int timeout_ms, retry_ms;
    uint32_t next_seq;
    sweep_client_welcome welcome;
    uint32_t udp_max_batch;

    /* Receiving. */
    uint8_t *rx;  /* TCP: framer storage; UDP: SWEEP__RX_BATCH datagrams of rx_cap bytes each */
    size_t rx_cap;
    struct mmsghdr *rx_msgs; /* UDP: one recvmmsg's headers, iovecs and control bytes */
    struct iovec *rx_iov;
    uint8_t *rx_cmsg;
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
    sweep_wire_mover *handed; /* movers of the WorldState handed out last */

    /* Redundancy (UDP). */
    uint32_t redundancy;
    sweep_msg_move unanswered[SWEEP_CLIENT_REDUNDANCY_MAX];
    uint32_t nunanswered;
    sweep_msg_move red_batch[SWEEP_CLIENT_REDUNDANCY_MAX + 1];
    uint32_t *seen; /* [SWEEP__SEEN], UDP only */

    sweep_client_counters counters;
    sweep_client_error fatal;
};

static const char *const status_names[SWEEP_CLIENT_STATUS_COUNT] = {
    "OK",      "ARG",      "ADDRESS", "CONNECT", "IO",        "CLOSED",
    "TIMEOUT", "PROTOCOL", "SERVER",  "NOMEM",   "TOO_LARGE", "MAP_MISMATCH",
};

const char *sweep_client_status_name(sweep_client_status s)
{
    return (unsigned)s < SWEEP_CLIENT_STATUS_COUNT ? status_names[s] : "UNKNOWN";
}

const char *sweep_client_error_name(const sweep_client_error *e)
{
    if (e == NULL)
        return "UNKNOWN";
    if (e->status == SWEEP_CLIENT_E_SERVER)
        return sweep_wire_code_name(e->code);
    return sweep_client_status_name(e->status);
}

uint64_t sweep_client_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Fills err (if any) and returns its status, so failures are one line. */
static sweep_client_status fail(sweep_client_error *err, sweep_client_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static sweep_client_status fail(sweep_client_error *err, sweep_client_status s, const char *fmt, ...)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return s;
}

/* Records a connection-ending error once; later calls report the same. */
static sweep_client_status fatal(sweep_client *c, sweep_client_error *err, sweep_client_status s,
                                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static sweep_client_status fatal(sweep_client *c, sweep_client_error *err, sweep_client_status s,
                                 const char *fmt, ...)
{
    if (c->fatal.status == SWEEP_CLIENT_OK) {
        c->fatal.status = s;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->fatal.message, sizeof c->fatal.message, fmt, ap);
        va_end(ap);
    }
    if (err)
        *err = c->fatal;
    return c->fatal.status;
}

static sweep_client_status ok(sweep_client_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    return SWEEP_CLIENT_OK;
}

void sweep_client_options_init(sweep_client_options *opts)
{
    if (opts)
        memset(opts, 0, sizeof *opts);
}

const sweep_client_welcome *sweep_client_get_welcome(const sweep_client *c)
{
    return &c->welcome;
}

int sweep_client_fd(const sweep_client *c)
{
    return c->fd;
}

sweep_client_transport sweep_client_get_transport(const sweep_client *c)
{
    return c->transport;
}

uint32_t sweep_client_next_sequence(const sweep_client *c)
{
    return c->next_seq;
}

size_t sweep_client_pending(const sweep_client *c)
{
    /* The handshake's own events, which poll drops, are not counted. */
    size_t n = 0;
    for (size_t i = 0; i < c->qlen; i++)
        n += (int)c->q[c->qhead + i].kind < SWEEP__EV_WELCOME;
    return n;
}

void sweep_client_get_counters(const sweep_client *c, sweep_client_counters *out)
{
    *out = c->counters;
}

uint32_t sweep_client_max_batch(const sweep_client *c)
{
    uint32_t m = c->welcome.max_batch ? c->welcome.max_batch : 1;
    if (c->transport == SWEEP_CLIENT_UDP && c->udp_max_batch < m)
        m = c->udp_max_batch;
    return m;
}

/* --- event queue ------------------------------------------------------------ */

static sweep_client_event *queue_push(sweep_client *c)
{
    if (c->qhead + c->qlen == c->qcap) {
        if (c->qhead > 0) {
            memmove(c->q, c->q + c->qhead, c->qlen * sizeof *c->q);
            c->qhead = 0;
        } else {
            size_t cap = c->qcap ? 2 * c->qcap : 64;
            sweep_client_event *q = realloc(c->q, cap * sizeof *q);
            if (q == NULL)
                return NULL;
            c->q = q;
            c->qcap = cap;
        }
    }
    sweep_client_event *ev = &c->q[c->qhead + c->qlen++];
    memset(ev, 0, sizeof *ev);
    return ev;
}

/* Removes the i-th pending event (0 = oldest) into *out. */
static void queue_take(sweep_client *c, size_t i, sweep_client_event *out)
{
    assert(i < c->qlen);
    *out = c->q[c->qhead + i];
    if (i == 0) {
        c->qhead++;
    } else {
        memmove(&c->q[c->qhead + i], &c->q[c->qhead + i + 1], (c->qlen - i - 1) * sizeof *c->q);
    }
    if (--c->qlen == 0)
        c->qhead = 0;
}

/* Frees the movers of the WorldState handed out last: the caller was told
 * they live until its next receiving call, which this is. */
static void release_handed(sweep_client *c)
{
    free(c->handed);
    c->handed = NULL;
}

/* Takes the movers array of an event being handed out into `handed`. */
static void hand_out(sweep_client *c, const sweep_client_event *ev)
{
    if (ev->kind == SWEEP_CLIENT_EV_WORLD_STATE) {
        release_handed(c);
        c->handed = (sweep_wire_mover *)ev->as.world_state.movers;
    }
}

/* Frees the queue with the movers its WorldState events own. */
static void free_queue(sweep_client *c)
{
    for (size_t i = 0; i < c->qlen; i++) {
        sweep_client_event *ev = &c->q[c->qhead + i];
        if (ev->kind == SWEEP_CLIENT_EV_WORLD_STATE)
            free((void *)ev->as.world_state.movers);
    }
    free(c->q);
    c->q = NULL;
    c->qhead = c->qlen = c->qcap = 0;
    release_handed(c);
}

/* The moves an answer (or Error) about `seq` of `entity` settles: itself
 * and the older moves of that entity stop being sent again. */
static void settle_unanswered(sweep_client *c, uint32_t entity, uint32_t seq)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->nunanswered; i++) {
        const sweep_msg_move *m = &c->unanswered[i];
        if (m->sequence == seq || (m->entity == entity && m->sequence < seq))
            continue;
        c->unanswered[k++] = *m;
    }
    c->nunanswered = k;
}

/* 1 if the answer to move `seq` was already queued once (UDP: a resent
 * move answered again); else remembers it. */
static int repeated_answer(sweep_client *c, uint32_t seq)
{
    if (c->seen == NULL || seq == 0)
        return 0;
    uint32_t *slot = &c->seen[seq % SWEEP__SEEN];
    if (*slot == seq) {
        c->counters.duplicates++;
        return 1;
    }
    *slot = seq;
    return 0;
}

static void copy_str(char *dst, size_t cap, sweep_str s)
{
    size_t n = s.ptr ? s.len : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, s.ptr, n);
    dst[n] = '\0';
}

/* Turns one decoded message into queued events (a result batch into one
 * event per result). Returns 0, or -1 when memory runs out. */
static int handle_message(sweep_client *c, const sweep_message *m, uint64_t now)
{
    sweep_client_event *ev;
    if (m->kind == SWEEP_MSG_MOVE_RESULT_BATCH) {
        for (uint32_t i = 0; i < m->as.move_result_batch.count; i++) {
            const sweep_msg_move_result *r = &m->as.move_result_batch.results[i];
            settle_unanswered(c, r->entity, r->sequence);
            if (repeated_answer(c, r->sequence))
                continue;
            if ((ev = queue_push(c)) == NULL)
                return -1;
            ev->kind = SWEEP_CLIENT_EV_MOVE_RESULT;
            ev->sequence = m->as.move_result_batch.results[i].sequence;
            ev->server_tick = m->server_tick;
            ev->received_ns = now;
            ev->as.move_result = m->as.move_result_batch.results[i];
        }
        return 0;
    }
    if (m->kind == SWEEP_MSG_MOVE_RESULT) {
        settle_unanswered(c, m->as.move_result.entity, m->as.move_result.sequence);
        if (repeated_answer(c, m->as.move_result.sequence))
            return 0;
    } else if (m->kind == SWEEP_MSG_ERROR && m->as.error.sequence != 0) {
        settle_unanswered(c, m->as.error.entity, m->as.error.sequence);
    }
    if ((ev = queue_push(c)) == NULL)
        return -1;
    ev->sequence = m->sequence;
    ev->server_tick = m->server_tick;
    ev->received_ns = now;
    switch (m->kind) {
    case SWEEP_MSG_WELCOME: {
        const sweep_msg_welcome *w = &m->as.welcome;
        ev->kind = (sweep_client_event_kind)SWEEP__EV_WELCOME;
        c->welcome.protocol_version = w->protocol_version;
        c->welcome.session_id = w->session_id;
        c->welcome.tick_rate = w->tick_rate;
        copy_str(c->welcome.map_name, sizeof c->welcome.map_name, w->map_name);
        c->welcome.map_hash_len = w->map_hash.len < 32 ? w->map_hash.len : 32;
        if (c->welcome.map_hash_len)
            memcpy(c->welcome.map_hash, w->map_hash.ptr, c->welcome.map_hash_len);
        c->welcome.max_batch = w->max_batch;
        c->welcome.max_frame_size = w->max_frame_size;
        c->welcome.max_entities = w->max_entities;
        c->welcome.role = w->role;
        copy_str(c->welcome.identity, sizeof c->welcome.identity, w->identity);
        c->welcome.has_roles = w->identity.ptr != NULL;
        c->welcome.time_bank = w->time_bank;
        c->welcome.udp_port = c->transport == SWEEP_CLIENT_UDP ? w->udp_port : 0;
        break;
    }
    case SWEEP_MSG_CHALLENGE:
        ev->kind = (sweep_client_event_kind)SWEEP__EV_CHALLENGE;
        c->cookie_len = m->as.challenge.cookie.len < SWEEP__COOKIE_MAX ? m->as.challenge.cookie.len
                                                                         : SWEEP__COOKIE_MAX;
        if (c->cookie_len)
            memcpy(c->cookie, m->as.challenge.cookie.ptr, c->cookie_len);
        break;
    case SWEEP_MSG_MOVE_RESULT:
        ev->kind = SWEEP_CLIENT_EV_MOVE_RESULT;
        ev->as.move_result = m->as.move_result;
        break;
    case SWEEP_MSG_ERROR:
        ev->kind = SWEEP_CLIENT_EV_ERROR;
        ev->as.error.status = SWEEP_CLIENT_E_SERVER;
        ev->as.error.code = m->as.error.code;
        ev->as.error.sequence = m->as.error.sequence;
        ev->as.error.entity = m->as.error.entity;
        copy_str(ev->as.error.message, sizeof ev->as.error.message, m->as.error.message);
        break;
    case SWEEP_MSG_SPAWNED:
        ev->kind = SWEEP_CLIENT_EV_SPAWNED;
        ev->as.spawned = m->as.spawned;
        break;
    case SWEEP_MSG_DESPAWNED:
        ev->kind = SWEEP_CLIENT_EV_DESPAWNED;
        ev->as.despawned = m->as.despawned;
        break;
    case SWEEP_MSG_COLLIDE_RESULT:
        ev->kind = SWEEP_CLIENT_EV_COLLIDE_RESULT;
        ev->as.collide_result = m->as.collide_result;
        break;
    case SWEEP_MSG_PONG:
        ev->kind = SWEEP_CLIENT_EV_PONG;
        ev->as.pong = m->as.pong;
        break;
    case SWEEP_MSG_STATS:
        ev->kind = SWEEP_CLIENT_EV_STATS;
        ev->as.stats = m->as.stats;
        break;
    case SWEEP_MSG_WORLD_STATE: {
        const sweep_msg_world_state *ws = &m->as.world_state;
        sweep_wire_mover *copy = NULL;
        if (ws->count > 0) {
            copy = malloc((size_t)ws->count * sizeof *copy);
            if (copy == NULL) {
                c->qlen--;
                return -1;
            }
            memcpy(copy, ws->movers, (size_t)ws->count * sizeof *copy);
        }
        ev->kind = SWEEP_CLIENT_EV_WORLD_STATE;
        ev->as.world_state = *ws;
        ev->as.world_state.movers = copy;
        break;
    }
    case SWEEP_MSG_MOVER_COMMANDED:
        ev->kind = SWEEP_CLIENT_EV_MOVER_COMMANDED;
        ev->as.mover_commanded = m->as.mover_commanded;
        break;
    case SWEEP_MSG_WORLD_OPENED: {
        const sweep_msg_world_opened *o = &m->as.world_opened;
        ev->kind = SWEEP_CLIENT_EV_WORLD_OPENED;
        ev->as.world_opened.world = o->world;
        copy_str(ev->as.world_opened.name, sizeof ev->as.world_opened.name, o->name);
        memset(ev->as.world_opened.map_hash, 0, sizeof ev->as.world_opened.map_hash);
        if (o->map_hash.ptr)
            memcpy(ev->as.world_opened.map_hash, o->map_hash.ptr, o->map_hash.len < 32 ? o->map_hash.len : 32);
        break;
    }
    case SWEEP_MSG_WORLD_CLOSED:
        ev->kind = SWEEP_CLIENT_EV_WORLD_CLOSED;
        ev->as.world_closed.world = m->as.world_closed.world;
        copy_str(ev->as.world_closed.reason, sizeof ev->as.world_closed.reason, m->as.world_closed.reason);
        break;
    case SWEEP_MSG_BYE:
        ev->kind = SWEEP_CLIENT_EV_BYE;
        ev->as.error.status = SWEEP_CLIENT_E_CLOSED;
        copy_str(ev->as.error.message, sizeof ev->as.error.message, m->as.bye.reason);
        break;
    default:
        /* A request kind sent to a client: nothing to do with it. */
        c->qlen--;
        c->counters.datagrams_dropped++;
        break;
    }
    return 0;
}

/* --- socket I/O ---------------------------------------------------------------- */

/* Mover storage for decoding a buffer of len bytes: enough for every
 * MoverTransform it can hold, so a WorldState never fails for capacity. */
static int size_movers(sweep_client *c, size_t len)
{
    size_t n = len / SWEEP__WIRE_MOVER_BYTES + 1;
    if (n <= c->dec.movers_cap)
        return 0;
    sweep_wire_mover *m = realloc(c->dec.movers, n * sizeof *m);
    if (m == NULL)
        return -1;
    c->dec.movers = m;
    c->dec.movers_cap = (uint32_t)n;
    return 0;
}

/* CLOCK_MONOTONIC minus CLOCK_REALTIME now, in ns: the kernel stamps
 * arrivals on the real-time clock, events carry the monotonic one. */
static int64_t mono_minus_real(void)
{
    struct timespec r, m;
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m);
    return ((int64_t)m.tv_sec - (int64_t)r.tv_sec) * 1000000000 + ((int64_t)m.tv_nsec - (int64_t)r.tv_nsec);
}

/* When the kernel received what a recvmsg returned (SCM_TIMESTAMPNS in its
 * control bytes), on the monotonic clock; `now` (when it was read) if it
 * carries no stamp. Never later than now: a real-time clock stepped since
 * the arrival must not make an answer come before its read. */
static uint64_t arrival_ns(struct msghdr *mh, uint64_t now, int64_t offset)
{
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS ||
            cm->cmsg_len < CMSG_LEN(sizeof(struct timespec)))
            continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(cm), sizeof ts);
        if (ts.tv_sec == 0 && ts.tv_nsec == 0)
            return now;
        int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + offset;
        return t > 0 && (uint64_t)t < now ? (uint64_t)t : now;
    }
    return now;
}

/* Reads what the socket has without waiting and queues the events.
 * Returns OK (also when there was nothing), or a fatal status. Each event's
 * received_ns is the kernel's arrival time of its bytes, so the time a
 * busy caller took to come and read is not counted as the network's. */
static sweep_client_status read_some(sweep_client *c, sweep_client_error *err)
{
    if (c->fatal.status != SWEEP_CLIENT_OK)
        return fatal(c, err, c->fatal.status, "%s", c->fatal.message);
    /* Clocks read after each read: what arrived during it is stamped no
     * later than its return, never earlier than it came. */
    uint64_t now;
    int64_t offset = mono_minus_real();
    sweep_message m;
    if (c->transport == SWEEP_CLIENT_UDP) {
        /* Datagrams SWEEP__RX_BATCH at a time: a read that returns fewer
         * has emptied the socket. At most 64 a call, as the caller waits. */
        for (int round = 0; round < 64 / (int)SWEEP__RX_BATCH; round++) {
            for (unsigned k = 0; k < SWEEP__RX_BATCH; k++) {
                c->rx_msgs[k].msg_hdr.msg_controllen = SWEEP__RX_CMSG;
                c->rx_msgs[k].msg_hdr.msg_flags = 0;
            }
            int n = recvmmsg(c->fd, c->rx_msgs, SWEEP__RX_BATCH, MSG_DONTWAIT, NULL);
            now = sweep_client_now_ns();
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                    return SWEEP_CLIENT_OK;
                if (errno == ECONNREFUSED)
                    return fatal(c, err, SWEEP_CLIENT_E_CONNECT, "udp: nobody listening (connection refused)");
                return fatal(c, err, SWEEP_CLIENT_E_IO, "recvmmsg: %s", strerror(errno));
            }
            for (int k = 0; k < n; k++) {
                struct mmsghdr *mm = &c->rx_msgs[k];
                size_t len = mm->msg_len;
                c->counters.bytes_received += len;
                if ((mm->msg_hdr.msg_flags & MSG_TRUNC) || len > SWEEP_UDP_MAX_DATAGRAM ||
                    sweep_decode(&c->dec, c->rx_iov[k].iov_base, len, 0, &m) != SWEEP_PROTO_OK) {
                    /* Datagrams can be forged or stray; one bad one is not the server. */
                    c->counters.datagrams_dropped++;
                    continue;
                }
                c->counters.frames_received++;
                if (handle_message(c, &m, arrival_ns(&mm->msg_hdr, now, offset)) < 0)
                    return fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory queueing events");
            }
            if ((unsigned)n < SWEEP__RX_BATCH)
                return SWEEP_CLIENT_OK;
        }
        return SWEEP_CLIENT_OK;
    }
    uint8_t tmp[16384];
    union {
        struct cmsghdr align;
        uint8_t bytes[SWEEP__RX_CMSG];
    } ctl;
    for (int n = 0; n < 64; n++) {
        struct iovec iov = {.iov_base = tmp, .iov_len = sizeof tmp};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.bytes, .msg_controllen = sizeof ctl};
        ssize_t r = recvmsg(c->fd, &mh, 0);
        now = sweep_client_now_ns();
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return SWEEP_CLIENT_OK;
            return fatal(c, err, errno == ECONNRESET ? SWEEP_CLIENT_E_CLOSED : SWEEP_CLIENT_E_IO, "recv: %s",
                         strerror(errno));
        }
        if (r == 0)
            return fatal(c, err, SWEEP_CLIENT_E_CLOSED, "the server closed the connection");
        c->counters.bytes_received += (uint64_t)r;
        /* The stamp is the newest segment's: the frames this read completes
         * were whole by then (the earlier ones sooner, so never too early). */
        uint64_t arrived = arrival_ns(&mh, now, offset);
        size_t off = 0;
        while (off < (size_t)r) {
            off += sweep_framer_feed(&c->framer, tmp + off, (size_t)r - off);
            const uint8_t *frame;
            size_t flen;
            sweep_frame_status fs;
            while ((fs = sweep_framer_next(&c->framer, &frame, &flen)) == SWEEP_FRAME_READY) {
                if (size_movers(c, flen) < 0)
                    return fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory decoding a frame");
                sweep_proto_error pe = sweep_decode(&c->dec, frame, flen, SWEEP_WIRE_SIZE_PREFIXED, &m);
                if (pe != SWEEP_PROTO_OK)
                    return fatal(c, err, SWEEP_CLIENT_E_PROTOCOL, "server sent an invalid frame (%s)",
                                 sweep_proto_error_name(pe));
                c->counters.frames_received++;
                if (handle_message(c, &m, arrived) < 0)
                    return fatal(c, err, SWEEP_CLIENT_E_NOMEM, "out of memory queueing events");
            }
            if (fs == SWEEP_FRAME_TOO_LARGE)
                return fatal(c, err, SWEEP_CLIENT_E_PROTOCOL, "server announced a frame above %u bytes",
                             SWEEP__RX_MAX_FRAME);
        }
        if ((size_t)r < sizeof tmp)
            return SWEEP_CLIENT_OK;
    }
    return SWEEP_CLIENT_OK;
}

/* Milliseconds left until deadline_ns (0 = none: -1), for poll. */
static int ms_left(uint64_t deadline_ns)
{
    if (deadline_ns == 0)
        return -1;
    uint64_t now = sweep_client_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999) / 1000000;
    return ms > 1000000 ? 1000000 : (int)ms;
}

static uint64_t deadline_after(int ms)
{
    return ms < 0 ? 0 : sweep_client_now_ns() + (uint64_t)ms * 1000000u;
}

/* Writes one whole frame or datagram before deadline_ns. */
static sweep_client_status send_bytes(sweep_client *c, const uint8_t *data, size_t len, uint64_t deadline_ns,
                                      sweep_client_error *err)
{
    if (c->fatal.status != SWEEP_CLIENT_OK)
        return fatal(c, err, c->fatal.status, "%s", c->fatal.message);
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(c->fd, data + off, len - off, MSG_NOSIGNAL);
        if (w >= 0) {
            if (c->transport == SWEEP_CLIENT_UDP)
                break; /* a datagram goes whole or not at all */
            off += (size_t)w;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == ECONNREFUSED)
            return fatal(c, err, SWEEP_CLIENT_E_CONNECT, "nobody listening (connection refused)");
        if (errno == EPIPE || errno == ECONNRESET)
            return fatal(c, err, SWEEP_CLIENT_E_CLOSED, "the server closed the connection");
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return fatal(c, err, SWEEP_CLIENT_E_IO, "send: %s", strerror(errno));
        /* No room: read meanwhile, so a server blocked writing to us can go on. */
        struct pollfd p = {.fd = c->fd, .events = POLLOUT | POLLIN};
        int t = ms_left(deadline_ns);
        int r = poll(&p, 1, t);
        if (r < 0 && errno != EINTR)
            return fatal(c, err, SWEEP_CLIENT_E_IO, "poll: %s", strerror(errno));
        if (r == 0 && t == 0)
            return fatal(c, err, SWEEP_CLIENT_E_TIMEOUT, "timed out writing to the server");
        if (r > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            sweep_client_status s = read_some(c, err);
            if (s != SWEEP_CLIENT_OK)
                return s;
        }
    }
    c->counters.frames_sent++;
    c->counters.bytes_sent += len;
    return SWEEP_CLIENT_OK;
}

/* Encodes m into the transmit buffer (with the size prefix over TCP). */
static sweep_client_status encode(sweep_client *c, const sweep_message *m, const uint8_t **out, size_t *len,
                                  sweep_client_error *err)
{
    unsigned flags = c->transport == SWEEP_CLIENT_TCP ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    sweep_proto_error pe = sweep_encode(m, flags, c->tx, c->tx_cap, out, len);
    if (pe == SWEEP_PROTO_E_BUFFER_SPACE)
        return fail(err, SWEEP_CLIENT_E_TOO_LARGE, "%s does not fit a frame", sweep_msg_kind_name(m->kind));
    if (pe != SWEEP_PROTO_OK)
        return fail(err, SWEEP_CLIENT_E_ARG, "cannot encode %s: %s", sweep_msg_kind_name(m->kind),
                    sweep_proto_error_name(pe));
    if (c->transport == SWEEP_CLIENT_UDP && sweep_datagram_check(*len) != SWEEP_PROTO_OK)
        return fail(err, SWEEP_CLIENT_E_TOO_LARGE, "%s is %zu bytes, above the %u of a datagram",
                    sweep_msg_kind_name(m->kind), *len, SWEEP_UDP_MAX_DATAGRAM);
    if (c->transport == SWEEP_CLIENT_TCP && c->welcome.max_frame_size &&
        *len - SWEEP_FRAME_PREFIX > c->welcome.max_frame_size)
        return fail(err, SWEEP_CLIENT_E_TOO_LARGE, "%s is %zu bytes, above the server's frame limit %u",
                    sweep_msg_kind_name(m->kind), *len - SWEEP_FRAME_PREFIX, c->welcome.max_frame_size);
    return SWEEP_CLIENT_OK;
}

static sweep_client_status send_message(sweep_client *c, const sweep_message *m, sweep_client_error *err)
{
    const uint8_t *bytes;
    size_t len;
    sweep_client_status s = encode(c, m, &bytes, &len, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    return send_bytes(c, bytes, len, deadline_after(c->timeout_ms), err);
}

/* Waits until the socket is readable or deadline; reads what came. */
static sweep_client_status pump(sweep_client *c, uint64_t deadline_ns, sweep_client_error *err)
{
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    int r = poll(&p, 1, ms_left(deadline_ns));
    if (r < 0 && errno != EINTR)
        return fatal(c, err, SWEEP_CLIENT_E_IO, "poll: %s", strerror(errno));
    if (r > 0)
        return read_some(c, err);
    return SWEEP_CLIENT_OK;
}

/* Does ev answer the request numbered seq with `kind` (or an Error)? */
static int answers(const sweep_client_event *ev, int kind, uint32_t seq)
{
    if (ev->kind == SWEEP_CLIENT_EV_ERROR)
        return ev->sequence == seq || ev->as.error.sequence == seq;
    if ((int)ev->kind != kind)
        return 0;
    if (kind == SWEEP_CLIENT_EV_MOVE_RESULT)
        return ev->as.move_result.sequence == seq;
    /* The handshake's answers may not repeat a sequence. */
    return kind >= SWEEP__EV_WELCOME || ev->sequence == seq;
}

/* Sends request (already encoded in tx: bytes/len) and waits for its answer
 * of `kind` or an Error about seq; over UDP resends every retry_ms. */
static sweep_client_status request(sweep_client *c, const sweep_message *m, int kind, uint32_t seq,
                                   sweep_client_event *out, sweep_client_error *err)
{
    const uint8_t *bytes;
    size_t len;
    release_handed(c);
    sweep_client_status s = encode(c, m, &bytes, &len, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    uint64_t deadline = deadline_after(c->timeout_ms);
    if ((s = send_bytes(c, bytes, len, deadline, err)) != SWEEP_CLIENT_OK)
        return s;
    uint64_t resend_at = sweep_client_now_ns() + (uint64_t)c->retry_ms * 1000000u;
    for (;;) {
        for (size_t i = 0; i < c->qlen; i++) {
            if (answers(&c->q[c->qhead + i], kind, seq)) {
                queue_take(c, i, out);
                hand_out(c, out);
                if (out->kind == SWEEP_CLIENT_EV_ERROR) {
                    if (err)
                        *err = out->as.error;
                    return SWEEP_CLIENT_E_SERVER;
                }
                return ok(err);
            }
        }
        uint64_t now = sweep_client_now_ns();
        if (now >= deadline)
            return fail(err, SWEEP_CLIENT_E_TIMEOUT, "no answer to %s (sequence %u) within %d ms",
                        sweep_msg_kind_name(m->kind), seq, c->timeout_ms);
        uint64_t wait_until = deadline;
        if (c->transport == SWEEP_CLIENT_UDP) {
            if (now >= resend_at) {
                /* The transmit buffer may have been reused: encode again. */
                if ((s = encode(c, m, &bytes, &len, err)) != SWEEP_CLIENT_OK)
                    return s;
                if ((s = send_bytes(c, bytes, len, deadline, err)) != SWEEP_CLIENT_OK)
                    return s;
                c->counters.resends++;
                resend_at = now + (uint64_t)c->retry_ms * 1000000u;
            }
            if (resend_at < wait_until)
                wait_until = resend_at;
        }
        if ((s = pump(c, wait_until, err)) != SWEEP_CLIENT_OK)
            return s;
    }
}

/* --- connecting --------------------------------------------------------------- */

static sweep_client_status resolve(const char *address, int socktype, struct addrinfo **res,
                                   sweep_client_error *err)
{
    char host[256];
    const char *colon = address ? strrchr(address, ':') : NULL;
    if (colon == NULL || colon == address || colon[1] == '\0' || (size_t)(colon - address) >= sizeof host)
        return fail(err, SWEEP_CLIENT_E_ADDRESS, "'%s' is not HOST:PORT", address ? address : "(null)");
    size_t hl = (size_t)(colon - address);
    memcpy(host, address, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl >= 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = socktype};
    int rc = getaddrinfo(host, colon + 1, &hints, res);
    if (rc != 0)
        return fail(err, SWEEP_CLIENT_E_ADDRESS, "%s: %s", address, gai_strerror(rc));
    return SWEEP_CLIENT_OK;
}

static sweep_client_status open_socket(sweep_client *c, const char *address, sweep_client_error *err)
{
    struct addrinfo *res = NULL;
    int socktype = c->transport == SWEEP_CLIENT_TCP ? SOCK_STREAM : SOCK_DGRAM;
    sweep_client_status s = resolve(address, socktype, &res, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    uint64_t deadline = deadline_after(c->timeout_ms);
    int last_errno = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            last_errno = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            if (errno != EINPROGRESS) {
                last_errno = errno;
                close(fd);
                continue;
            }
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int r;
            do
                r = poll(&p, 1, ms_left(deadline));
            while (r < 0 && errno == EINTR);
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            if (r == 0)
                soerr = ETIMEDOUT;
            else if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0)
                soerr = errno;
            if (soerr != 0) {
                last_errno = soerr;
                close(fd);
                continue;
            }
        }
        int one = 1;
        if (c->transport == SWEEP_CLIENT_TCP) {
            /* Requests are small and latency matters more than packet count. */
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        /* The kernel's arrival time of what comes (received_ns); without
         * it (an old kernel) events keep the time they were read. */
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
        c->fd = fd;
        freeaddrinfo(res);
        return SWEEP_CLIENT_OK;
    }
    freeaddrinfo(res);
    if (last_errno == ETIMEDOUT)
        return fail(err, SWEEP_CLIENT_E_TIMEOUT, "connecting to %s timed out", address);
    return fail(err, SWEEP_CLIENT_E_CONNECT, "cannot connect to %s: %s", address, strerror(last_errno));
}

/* The Hello as sent over UDP: padded so the datagram is at least
 * SWEEP_UDP_HELLO_MIN bytes (the server never answers more than it got). */
static sweep_client_status udp_hello(sweep_client *c, sweep_message *m, sweep_client_error *err)
{
    static const uint8_t zeros[SWEEP_UDP_HELLO_MIN];
    uint32_t pad = 0;
    for (int tries = 0; tries < 8; tries++) {
        m->as.hello.padding.ptr = pad ? zeros : NULL;
        m->as.hello.padding.len = pad;
        const uint8_t *out;
        size_t len;
        sweep_client_status s = encode(c, m, &out, &len, err);
        if (s != SWEEP_CLIENT_OK)
            return s;
        if (len >= SWEEP_UDP_HELLO_MIN)
            return SWEEP_CLIENT_OK;
        pad += (uint32_t)(SWEEP_UDP_HELLO_MIN - len);
        if (pad > sizeof zeros)
            pad = sizeof zeros;
    }
    return fail(err, SWEEP_CLIENT_E_ARG, "cannot pad the Hello to %u bytes", SWEEP_UDP_HELLO_MIN);
}

static void set_port(struct sockaddr_storage *sa, uint16_t port)
{
    if (sa->ss_family == AF_INET)
        ((struct sockaddr_in *)sa)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/* After a Welcome naming the session's own port (a sweepd with --threads,
 * protocol/README.md): the socket is connected there instead, same server
 * address, same local port, so the session's address stays the one its
 * cookie verified. Its datagrams then reach the thread of its world
 * without a hop between threads, and only answers from that port are
 * taken (the kernel filters a connected socket).
 *
 * Only if a Ping there is answered, within two resend periods: between
 * client and server a NAT, a container's published ports or a relay may
 * pass the port the client was given and nothing else. Unanswered, the
 * socket goes back to that port, which serves the session as well (with a
 * hop between the server's threads), and udp_port reads 0. */
static sweep_client_status use_udp_port(sweep_client *c, uint16_t port, sweep_client_error *err)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    if (getpeername(c->fd, (struct sockaddr *)&sa, &len) != 0)
        return fail(err, SWEEP_CLIENT_E_IO, "getpeername: %s", strerror(errno));
    if (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)
        return ok(err);
    uint16_t shared = ntohs(sa.ss_family == AF_INET ? ((struct sockaddr_in *)&sa)->sin_port
                                                    : ((struct sockaddr_in6 *)&sa)->sin6_port);
    set_port(&sa, port);
    if (connect(c->fd, (struct sockaddr *)&sa, len) == 0) {
        int timeout = c->timeout_ms;
        c->timeout_ms = 2 * c->retry_ms < timeout ? 2 * c->retry_ms : timeout;
        sweep_message m = {.kind = SWEEP_MSG_PING, .sequence = c->next_seq++};
        m.as.ping.client_time = sweep_client_now_ns();
        sweep_client_event ev;
        sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_PONG, m.sequence, &ev, NULL);
        c->timeout_ms = timeout;
        if (s == SWEEP_CLIENT_OK)
            return ok(err);
        /* Out of memory is the client's own failure, not the port's: it
         * stays fatal. */
        if (s == SWEEP_CLIENT_E_NOMEM)
            return fail(err, s, "checking the thread's own UDP port %u: out of memory", (unsigned)port);
        /* What failed was that port alone (a refusal there, say): the
         * session is still good on the other. */
        memset(&c->fatal, 0, sizeof c->fatal);
    }
    c->welcome.udp_port = 0;
    set_port(&sa, shared);
    if (connect(c->fd, (struct sockaddr *)&sa, len) != 0)
        return fail(err, SWEEP_CLIENT_E_CONNECT, "connecting back to port %u: %s", shared, strerror(errno));
    return ok(err);
}

static sweep_client_status handshake(sweep_client *c, const sweep_client_options *o, sweep_client_error *err)
{
    sweep_message m = {.kind = SWEEP_MSG_HELLO};
    m.as.hello.protocol_version = SWEEP_PROTOCOL_VERSION;
    m.as.hello.client_name = sweep_str_of(o->client_name ? o->client_name : "libsweep");
    m.as.hello.auth_token = sweep_str_of(o->auth_token);
    m.as.hello.world = sweep_str_of(o->world);
    sweep_client_event ev;
    sweep_client_status s;
    if (c->transport != SWEEP_CLIENT_UDP) {
        m.sequence = c->next_seq++;
        s = request(c, &m, SWEEP__EV_WELCOME, m.sequence, &ev, err);
    } else {
        /* Round 1: the server answers an address it has not verified with a
         * cookie only; round 2 proves we receive at this address. Each
         * Challenge has a cookie of its own, and the session the server
         * makes is bound to the cookie of the Hello that made it: round 2
         * resends (a lost Welcome) carry that same cookie, kept here, not
         * whatever a late Challenge to a resent round 1 left in c->cookie (a
         * newer cookie would be taken for a new client on this port). A
         * BadCookie (the cookie expired, or a NAT gave us another port
         * between the rounds) starts over, a few times. */
        uint8_t cookie[SWEEP__COOKIE_MAX];
        for (int round = 0;; round++) {
            m.as.hello.cookie.ptr = NULL;
            m.as.hello.cookie.len = 0;
            m.sequence = c->next_seq++;
            if ((s = udp_hello(c, &m, err)) != SWEEP_CLIENT_OK)
                return s;
            s = request(c, &m, SWEEP__EV_CHALLENGE, m.sequence, &ev, err);
            if (s != SWEEP_CLIENT_OK)
                return s;
            uint32_t cookie_len = c->cookie_len;
            memcpy(cookie, c->cookie, cookie_len);
            m.as.hello.cookie.ptr = cookie;
            m.as.hello.cookie.len = cookie_len;
            m.sequence = c->next_seq++;
            if ((s = udp_hello(c, &m, err)) != SWEEP_CLIENT_OK)
                return s;
            sweep_client_error e = {.status = SWEEP_CLIENT_OK};
            s = request(c, &m, SWEEP__EV_WELCOME, m.sequence, &ev, &e);
            if (s == SWEEP_CLIENT_E_SERVER && e.code == SWEEP_WIRE_BAD_COOKIE && round < 2)
                continue;
            if (err)
                *err = e;
            break;
        }
    }
    if (s != SWEEP_CLIENT_OK)
        return s;
    if (c->welcome.protocol_version != SWEEP_PROTOCOL_VERSION)
        return fail(err, SWEEP_CLIENT_E_PROTOCOL, "server speaks protocol version %u, this client %u",
                    c->welcome.protocol_version, SWEEP_PROTOCOL_VERSION);
    if (c->welcome.udp_port && o->udp_keep_port)
        c->welcome.udp_port = 0;
    if (c->welcome.udp_port)
        return use_udp_port(c, c->welcome.udp_port, err);
    return ok(err);
}

/* Result storage for decoding batches; sized by what the server allows. */
static int size_decoder(sweep_client *c, uint32_t n)
{
    if (n <= c->dec.results_cap)
        return 0;
    sweep_msg_move_result *r = realloc(c->dec.results, (size_t)n * sizeof *r);
    if (r == NULL)
        return -1;
    c->dec.results = r;
    c->dec.results_cap = n;
    return 0;
}

sweep_client_status sweep_client_connect(const sweep_client_options *opts, sweep_client **out,
                                         sweep_client_error *err)
{
    if (out)
        *out = NULL;
    if (opts == NULL || out == NULL || opts->address == NULL ||
        (opts->transport != SWEEP_CLIENT_TCP && opts->transport != SWEEP_CLIENT_UDP))
        return fail(err, SWEEP_CLIENT_E_ARG, "sweep_client_connect: missing options, address or output");
    sweep_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
    c->fd = -1;
    c->transport = opts->transport;
    c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 5000;
    c->retry_ms = opts->udp_retry_ms > 0 ? opts->udp_retry_ms : 250;
    c->next_seq = 1;
    c->tx_cap = SWEEP__TX_CAP;
    c->rx_cap = c->transport == SWEEP_CLIENT_TCP ? SWEEP_FRAME_PREFIX + SWEEP__RX_MAX_FRAME
                                                 : SWEEP_UDP_MAX_DATAGRAM + 1;
    c->tx = malloc(c->tx_cap);
    sweep_client_status s;
    if (c->transport == SWEEP_CLIENT_UDP) {
        c->rx = malloc(SWEEP__RX_BATCH * c->rx_cap);
        c->seen = calloc(SWEEP__SEEN, sizeof *c->seen);
        c->rx_msgs = calloc(SWEEP__RX_BATCH, sizeof *c->rx_msgs);
        c->rx_iov = calloc(SWEEP__RX_BATCH, sizeof *c->rx_iov);
        c->rx_cmsg = calloc(SWEEP__RX_BATCH, SWEEP__RX_CMSG);
    } else {
        c->rx = malloc(c->rx_cap);
    }
    if (c->tx == NULL || c->rx == NULL || size_decoder(c, 64) < 0 ||
        (c->transport == SWEEP_CLIENT_UDP && (size_movers(c, c->rx_cap) < 0 || c->seen == NULL ||
                                              c->rx_msgs == NULL || c->rx_iov == NULL || c->rx_cmsg == NULL))) {
        s = fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        goto failed;
    }
    if (c->transport == SWEEP_CLIENT_UDP)
        for (unsigned k = 0; k < SWEEP__RX_BATCH; k++) {
            c->rx_iov[k] = (struct iovec){.iov_base = c->rx + k * c->rx_cap, .iov_len = c->rx_cap};
            c->rx_msgs[k].msg_hdr.msg_iov = &c->rx_iov[k];
            c->rx_msgs[k].msg_hdr.msg_iovlen = 1;
            c->rx_msgs[k].msg_hdr.msg_control = c->rx_cmsg + k * SWEEP__RX_CMSG;
        }
    if (c->transport == SWEEP_CLIENT_TCP)
        sweep_framer_init(&c->framer, c->rx, c->rx_cap, SWEEP__RX_MAX_FRAME);
    if ((s = open_socket(c, opts->address, err)) != SWEEP_CLIENT_OK)
        goto failed;
    if ((s = handshake(c, opts, err)) != SWEEP_CLIENT_OK)
        goto failed;
    if (size_decoder(c, c->welcome.max_batch) < 0) {
        s = fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        goto failed;
    }
    c->udp_max_batch = sweep_udp_max_batch_claimed();
    *out = c;
    return SWEEP_CLIENT_OK;
failed:
    if (c->fd >= 0)
        close(c->fd);
    free_queue(c);
    free(c->tx);
    free(c->rx);
    free(c->dec.results);
    free(c->dec.movers);
    free(c->seen);
    free(c->rx_msgs);
    free(c->rx_iov);
    free(c->rx_cmsg);
    free(c);
    return s;
}

void sweep_client_close(sweep_client *c)
{
    if (c == NULL)
        return;
    if (c->fd >= 0 && c->fatal.status == SWEEP_CLIENT_OK) {
        /* Best effort and without waiting: the server cleans up anyway. */
        sweep_message m = {.kind = SWEEP_MSG_BYE, .sequence = c->next_seq++};
        m.as.bye.reason = sweep_str_of("client closing");
        const uint8_t *bytes;
        size_t len;
        if (encode(c, &m, &bytes, &len, NULL) == SWEEP_CLIENT_OK)
            (void)send(c->fd, bytes, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    if (c->fd >= 0)
        close(c->fd);
    free_queue(c);
    free(c->tx);
    free(c->rx);
    free(c->dec.results);
    free(c->dec.movers);
    free(c->batch);
    free(c->seen);
    free(c->rx_msgs);
    free(c->rx_iov);
    free(c->rx_cmsg);
    free(c);
}

/* --- requests ------------------------------------------------------------------ */

static sweep_client_status spawn(sweep_client *c, sweep_vec3 position, uint32_t point, sweep_vec3 radii,
                                 sweep_msg_spawned *out, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_SPAWN, .sequence = c->next_seq++};
    m.as.spawn.position = position;
    m.as.spawn.radii = radii;
    m.as.spawn.spawn_point = point;
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_SPAWNED, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.spawned;
    return s;
}

sweep_client_status sweep_client_spawn(sweep_client *c, sweep_vec3 position, sweep_vec3 radii,
                                       sweep_msg_spawned *out, sweep_client_error *err)
{
    return spawn(c, position, 0, radii, out, err);
}

sweep_client_status sweep_client_spawn_at_point(sweep_client *c, uint32_t point, sweep_vec3 radii,
                                                sweep_msg_spawned *out, sweep_client_error *err)
{
    if (point == 0)
        return fail(err, SWEEP_CLIENT_E_ARG, "spawn points count from 1");
    return spawn(c, sweep_v3(0, 0, 0), point, radii, out, err);
}

sweep_client_status sweep_client_spawn_player(sweep_client *c, uint32_t point, sweep_msg_spawned *out,
                                              sweep_client_error *err)
{
    return spawn(c, sweep_v3(0, 0, 0), point, sweep_v3(0, 0, 0), out, err);
}

sweep_client_status sweep_client_despawn(sweep_client *c, uint32_t entity, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_DESPAWN, .sequence = c->next_seq++};
    m.as.despawn.entity = entity;
    sweep_client_event ev;
    return request(c, &m, SWEEP_CLIENT_EV_DESPAWNED, m.sequence, &ev, err);
}

static void fill_move(sweep_msg_move *mv, const sweep_client_move_req *r, uint32_t seq)
{
    memset(mv, 0, sizeof *mv);
    mv->entity = r->entity;
    mv->sequence = seq;
    mv->client_tick = r->client_tick;
    mv->velocity = r->velocity;
    mv->dt = r->dt;
    mv->has_claimed_position = r->has_claimed_position != 0;
    mv->claimed_position = r->claimed_position;
    mv->buttons = r->buttons;
    mv->mode = (uint8_t)r->mode;
}

/* A mode the wire cannot carry would be sent as another one: refuse it. */
static int mode_ok(const sweep_client_move_req *r)
{
    return r->mode <= UINT8_MAX;
}

sweep_client_status sweep_client_move_request(sweep_client *c, const sweep_client_move_req *r,
                                              sweep_msg_move_result *out, uint32_t *sequence,
                                              sweep_client_error *err)
{
    if (c == NULL || r == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client or move");
    if (!mode_ok(r))
        return fail(err, SWEEP_CLIENT_E_ARG, "move mode %u is not a MoveMode", r->mode);
    sweep_message m = {.kind = SWEEP_MSG_MOVE, .sequence = c->next_seq++};
    fill_move(&m.as.move, r, m.sequence);
    if (sequence)
        *sequence = m.sequence;
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_MOVE_RESULT, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.move_result;
    return s;
}

sweep_client_status sweep_client_move(sweep_client *c, uint32_t entity, sweep_vec3 velocity, double dt,
                                      sweep_msg_move_result *out, sweep_client_error *err)
{
    sweep_client_move_req r = {.entity = entity, .velocity = velocity, .dt = dt};
    return sweep_client_move_request(c, &r, out, NULL, err);
}

sweep_client_status sweep_client_collide(sweep_client *c, const sweep_msg_collide *q,
                                         sweep_msg_collide_result *out, sweep_client_error *err)
{
    if (c == NULL || q == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client or query");
    sweep_message m = {.kind = SWEEP_MSG_COLLIDE, .sequence = c->next_seq++};
    m.as.collide = *q;
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_COLLIDE_RESULT, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.collide_result;
    return s;
}

sweep_client_status sweep_client_ping(sweep_client *c, uint64_t *rtt_ns, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    uint64_t t0 = sweep_client_now_ns();
    sweep_message m = {.kind = SWEEP_MSG_PING, .sequence = c->next_seq++};
    m.as.ping.client_time = t0;
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_PONG, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && rtt_ns)
        *rtt_ns = ev.received_ns - t0;
    return s;
}

sweep_client_status sweep_client_get_stats(sweep_client *c, sweep_msg_stats *out, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_GET_STATS, .sequence = c->next_seq++};
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_STATS, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.stats;
    return s;
}

sweep_client_status sweep_client_watch_world(sweep_client *c, uint32_t every, sweep_msg_world_state *out,
                                             sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_WATCH_WORLD, .sequence = c->next_seq++};
    m.as.watch_world.every = every;
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_WORLD_STATE, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.world_state;
    return s;
}

sweep_client_status sweep_client_mover_command(sweep_client *c, const char *mover, sweep_msg_mover_commanded *out,
                                               sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    if (mover == NULL || mover[0] == '\0')
        return fail(err, SWEEP_CLIENT_E_ARG, "a mover command needs the mover's name");
    sweep_message m = {.kind = SWEEP_MSG_MOVER_COMMAND, .sequence = c->next_seq++};
    m.as.mover_command.mover = sweep_str_of(mover);
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_MOVER_COMMANDED, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.mover_commanded;
    return s;
}

sweep_client_status sweep_client_open_world(sweep_client *c, const char *map, const char *name,
                                            sweep_client_world *out, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    if (map == NULL || map[0] == '\0')
        return fail(err, SWEEP_CLIENT_E_ARG, "OpenWorld needs a map's name");
    sweep_message m = {.kind = SWEEP_MSG_OPEN_WORLD, .sequence = c->next_seq++};
    m.as.open_world.map = sweep_str_of(map);
    m.as.open_world.name = sweep_str_of(name && name[0] ? name : NULL);
    sweep_client_event ev;
    sweep_client_status s = request(c, &m, SWEEP_CLIENT_EV_WORLD_OPENED, m.sequence, &ev, err);
    if (s == SWEEP_CLIENT_OK && out)
        *out = ev.as.world_opened;
    return s;
}

sweep_client_status sweep_client_close_world(sweep_client *c, uint32_t world, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    sweep_message m = {.kind = SWEEP_MSG_CLOSE_WORLD, .sequence = c->next_seq++};
    m.as.close_world.world = world;
    sweep_client_event ev;
    return request(c, &m, SWEEP_CLIENT_EV_WORLD_CLOSED, m.sequence, &ev, err);
}

sweep_client_status sweep_client_set_redundancy(sweep_client *c, uint32_t n, sweep_client_error *err)
{
    if (c == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    if (n > 0 && c->transport != SWEEP_CLIENT_UDP)
        return fail(err, SWEEP_CLIENT_E_ARG, "redundancy is for UDP: TCP loses nothing");
    if (n > SWEEP_CLIENT_REDUNDANCY_MAX)
        return fail(err, SWEEP_CLIENT_E_ARG, "redundancy %u is above %u moves per datagram", n,
                    SWEEP_CLIENT_REDUNDANCY_MAX);
    c->redundancy = n;
    if (n == 0)
        c->nunanswered = 0;
    return ok(err);
}

/* Remembers a move just sent for redundancy, dropping the oldest when full. */
static void keep_unanswered(sweep_client *c, const sweep_msg_move *mv)
{
    if (c->nunanswered == SWEEP_CLIENT_REDUNDANCY_MAX) {
        memmove(c->unanswered, c->unanswered + 1, (SWEEP_CLIENT_REDUNDANCY_MAX - 1) * sizeof *c->unanswered);
        c->nunanswered--;
    }
    c->unanswered[c->nunanswered++] = *mv;
}

/* Sends mv with the newest unanswered moves before it in one MoveBatch
 * (Message.sequence is mv's own), as many as fit the datagram. */
static sweep_client_status send_redundant(sweep_client *c, const sweep_msg_move *mv, sweep_client_error *err)
{
    uint32_t n = c->nunanswered < c->redundancy ? c->nunanswered : c->redundancy;
    for (;; n--) {
        memcpy(c->red_batch, c->unanswered + (c->nunanswered - n), (size_t)n * sizeof *c->red_batch);
        c->red_batch[n] = *mv;
        sweep_message m = {.kind = SWEEP_MSG_MOVE_BATCH, .sequence = mv->sequence};
        m.as.move_batch.moves = c->red_batch;
        m.as.move_batch.count = n + 1;
        if (n == 0) {
            m.kind = SWEEP_MSG_MOVE;
            m.as.move = *mv;
        }
        sweep_client_error e;
        sweep_client_status s = send_message(c, &m, &e);
        if (s == SWEEP_CLIENT_E_TOO_LARGE && n > 0)
            continue; /* long claims: fewer old moves */
        if (s != SWEEP_CLIENT_OK) {
            if (err)
                *err = e;
            return s;
        }
        c->counters.redundant_moves += n;
        return ok(err);
    }
}

sweep_client_status sweep_client_send_move(sweep_client *c, const sweep_client_move_req *r, uint32_t *sequence,
                                           sweep_client_error *err)
{
    if (c == NULL || r == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client or move");
    if (!mode_ok(r))
        return fail(err, SWEEP_CLIENT_E_ARG, "move mode %u is not a MoveMode", r->mode);
    sweep_message m = {.kind = SWEEP_MSG_MOVE, .sequence = c->next_seq++};
    fill_move(&m.as.move, r, m.sequence);
    sweep_client_status s;
    if (c->redundancy > 0) {
        s = send_redundant(c, &m.as.move, err);
        if (s == SWEEP_CLIENT_OK)
            keep_unanswered(c, &m.as.move);
    } else {
        s = send_message(c, &m, err);
    }
    if (s == SWEEP_CLIENT_OK && sequence)
        *sequence = m.sequence;
    return s;
}

sweep_client_status sweep_client_send_batch(sweep_client *c, const sweep_client_move_req *moves, uint32_t count,
                                            uint32_t *sequences, sweep_client_error *err)
{
    if (c == NULL || (moves == NULL && count > 0))
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client or moves");
    if (count == 0)
        return ok(err);
    if (count > c->batch_cap) {
        sweep_msg_move *b = realloc(c->batch, (size_t)count * sizeof *b);
        if (b == NULL)
            return fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
        c->batch = b;
        c->batch_cap = count;
    }
    for (uint32_t i = 0; i < count; i++)
        if (!mode_ok(&moves[i]))
            return fail(err, SWEEP_CLIENT_E_ARG, "move %u: mode %u is not a MoveMode", i, moves[i].mode);
    sweep_message m = {.kind = SWEEP_MSG_MOVE_BATCH, .sequence = c->next_seq};
    for (uint32_t i = 0; i < count; i++)
        fill_move(&c->batch[i], &moves[i], c->next_seq + 1 + i);
    m.as.move_batch.moves = c->batch;
    m.as.move_batch.count = count;
    sweep_client_status s = send_message(c, &m, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    c->next_seq += 1 + count;
    if (sequences)
        for (uint32_t i = 0; i < count; i++)
            sequences[i] = c->batch[i].sequence;
    return SWEEP_CLIENT_OK;
}

/* --- receiving ------------------------------------------------------------------ */

sweep_client_status sweep_client_poll(sweep_client *c, int timeout_ms, sweep_client_event *ev,
                                      sweep_client_error *err)
{
    if (c == NULL || ev == NULL)
        return fail(err, SWEEP_CLIENT_E_ARG, "NULL client or event");
    release_handed(c);
    uint64_t deadline = timeout_ms < 0 ? 0 : sweep_client_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        /* Events left by the handshake are internal; drop them on the way. */
        while (c->qlen > 0) {
            queue_take(c, 0, ev);
            if ((int)ev->kind < SWEEP__EV_WELCOME) {
                hand_out(c, ev);
                return ok(err);
            }
        }
        if (c->fatal.status != SWEEP_CLIENT_OK)
            return fatal(c, err, c->fatal.status, "%s", c->fatal.message);
        int left = ms_left(deadline);
        if (timeout_ms >= 0 && left == 0) {
            /* One look without waiting, so a zero timeout still reads. */
            sweep_client_status s = read_some(c, err);
            if (s != SWEEP_CLIENT_OK)
                return s;
            if (c->qlen > 0)
                continue;
            return fail(err, SWEEP_CLIENT_E_TIMEOUT, "no event within %d ms", timeout_ms);
        }
        sweep_client_status s = pump(c, deadline, err);
        if (s != SWEEP_CLIENT_OK)
            return s;
    }
}

sweep_client_status sweep_client_dispatch(sweep_client *c, int timeout_ms, sweep_client_event_cb cb, void *user,
                                          unsigned *handled, sweep_client_error *err)
{
    unsigned n = 0;
    sweep_client_event ev;
    sweep_client_status s = sweep_client_poll(c, timeout_ms, &ev, err);
    while (s == SWEEP_CLIENT_OK) {
        if (cb)
            cb(user, &ev);
        n++;
        s = sweep_client_poll(c, 0, &ev, err);
    }
    if (handled)
        *handled = n;
    if (s == SWEEP_CLIENT_E_TIMEOUT)
        return ok(err);
    return s;
}

const char *sweep_client_rules_string(uint32_t rules, const char *sep, char *buf, size_t cap)
{
    if (buf == NULL || cap == 0)
        return buf;
    buf[0] = '\0';
    size_t len = 0;
    for (unsigned bit = 0; bit < 32; bit++) {
        if (!(rules & (1u << bit)))
            continue;
        const char *name = sweep_wire_rule_name(bit);
        char unknown[16];
        if (strcmp(name, "Unknown") == 0) {
            snprintf(unknown, sizeof unknown, "Bit%u", bit);
            name = unknown;
        }
        int w = snprintf(buf + len, cap - len, "%s%s", len ? (sep ? sep : ",") : "", name);
        if (w < 0 || (size_t)w >= cap - len)
            break; /* truncated: snprintf kept it terminated */
        len += (size_t)w;
    }
    return buf;
}
