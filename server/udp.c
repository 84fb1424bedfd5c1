/*
 * udp.c - the UDP side: one message per datagram, read and answered in
 * batches, and the challenge-cookie handshake that verifies an address
 * before it gets a session.
 *
 * A datagram from an address with a session is dispatched like a TCP
 * frame (without the size prefix) when it carries the session's key
 * (Message.key = Welcome.udp_key): a source address is easily forged, the
 * key is known to the session's client alone, so anything else is dropped
 * unanswered before it touches the session (from_client), Hellos aside,
 * which answer to their cookie as below. From any other address only a Hello of
 * at least SWEEP_UDP_HELLO_MIN bytes is looked at: without a cookie it gets
 * a Challenge, with a wrong or expired cookie an Error BadCookie, with a
 * good one a Welcome (or the Hello's own refusal: the address is verified
 * by then); the Challenge and BadCookie are capped at the size of the
 * Hello (see cookie.h, send.c). Everything else from an unverified address
 * gets nothing back.
 *
 * A session is bound to the cookie that created it, because an address is
 * not a client: a new socket may get the address and port of one that left
 * without Bye. So a Hello from a session's address is a repeated Hello (the
 * same Welcome) only with the session's own cookie; any other goes through
 * the rules above as from an unverified address, and a valid cookie of its
 * own ends the old session and starts a new one (sweep__udp_rehello).
 *
 * A session's share of a loop turn is SWEEP__UDP_TURN_DATAGRAMS
 * datagrams, as a TCP connection's is its frames (tcp.c): the socket is one
 * queue for every client, and a session that sent a second's moves at once
 * had them all handled, in one reading, before the players whose
 * datagrams came behind them. Past its share, a session's datagrams are
 * copied aside, in order (with any it sends until they are served), and
 * served at the start of the next turn, a share at a time, before that
 * turn's reading. Only the order across sessions changes. When the place
 * aside (SWEEP__UDP_HELD_MAX, for every session) is full, what does not
 * fit is dropped and counted in udp_dropped, as the network could lose it.
 *
 * Batches: a player sends one small datagram per move, which took a
 * system call each way per move (most of the cost is the kernel's work
 * per datagram, which stays: see server/README.md). The socket is read with recvmmsg (UV_UDP_RECVMMSG: up to
 * SWEEP__UDP_IN_BATCH datagrams a call, each given 64 KiB of one buffer,
 * as libuv requires; libuv stops after some 32 datagrams a loop
 * iteration, so after a full batch what waits is read here: read_on), and
 * while the datagrams read in one loop iteration are handled their answers
 * are queued, bytes and address copied, in the order they were made. They
 * leave with one sendmmsg when the reading is over: when libuv finds the
 * socket empty (its callback without an address or a batch), or else
 * after the iteration's I/O (a check handle: libuv may also stop reading
 * after its 32 datagrams without saying so); and whenever the queue is
 * full. Per recvmmsg was not enough: under load each wake-up read a few
 * datagrams several times over (the bots send while the server answers),
 * with a sendmmsg after each. So every answer still leaves in the order it
 * was made, one datagram each, to the address it was made for, and none
 * waits longer than SWEEP__UDP_OUT_MAX answers or the rest of the
 * iteration's reading take. A tick's pushes (WorldState, EntityStates:
 * world_clock.c) are queued the same way and leave when they are all
 * made. Anything else sent outside (a Bye at the idle timeout or
 * shutdown) leaves at once, after what is queued. A datagram the socket refuses is dropped and counted, as the
 * network could lose it.
 *
 * A recvmmsg that reads less than it could has left the socket empty: the
 * reading ends there, and on_alloc refuses libuv the buffer for the read
 * it would make next only to find so (a system call per wake-up).
 */
#define _GNU_SOURCE /* recvmmsg, sendmmsg */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/compiler.h"
#include "server/world/alloc.h"
#include "server/server_impl.h"

/* Datagrams one recvmmsg may read: libuv's own cap (UV__MMSG_MAXWIDTH),
 * each datagram given 64 KiB of the buffer. */
#define SWEEP__UDP_IN_BATCH 20u
#define SWEEP__UDP_IN_SLOT (64u * 1024u)

/* Datagrams read on after a full batch, in one loop iteration (read_on). */
#define SWEEP__UDP_DRAIN_MAX 1024u

/* Answers queued for one sendmmsg: those of a loop iteration's reading,
 * up to this many at a time (the first of them waits for the others to be
 * made: 64 single moves are some 100 us of the server's time). */
#define SWEEP__UDP_OUT_MAX 64u

/* Datagrams of one session handled in one loop turn: a player sends one
 * a frame, so a few frames' worth of them that waited. */
#define SWEEP__UDP_TURN_DATAGRAMS 16u

/* Datagrams held for a later turn, of every session together. */
#define SWEEP__UDP_HELD_MAX 512u

typedef struct sweep__udp_held {
    unsigned count;
    struct sweep__udp_held_one {
        struct sockaddr_storage addr;
        uint32_t len;
        int direct;
        uint8_t *bytes; /* a slot of the widest datagram a session may agree (pool) */
    } one[SWEEP__UDP_HELD_MAX];
    uint8_t pool[];
} sweep__udp_held;

/* The socket's receive buffer asked for (SO_RCVBUF). */
#define SWEEP__UDP_RCVBUF (4 * 1024 * 1024)

typedef struct sweep__udp_out {
    unsigned received; /* datagrams of the receive batch so far */
    const uv_udp_t *drained; /* its last read came back short: libuv's next is refused (on_alloc) */
    unsigned count;
    uint8_t direct[SWEEP__UDP_OUT_MAX]; /* leaves from udp_direct, not the shared socket */
    struct mmsghdr msgs[SWEEP__UDP_OUT_MAX];
    struct iovec iov[SWEEP__UDP_OUT_MAX];
    struct sockaddr_storage addr[SWEEP__UDP_OUT_MAX];
    size_t slot; /* bytes of each answer's room: the widest datagram a session may agree */
    uint8_t bytes[]; /* SWEEP__UDP_OUT_MAX slots */
} sweep__udp_out;

/* The socket a session's answers leave from: the one its last datagram
 * came to, so that a client with a connected socket takes them. */
static uv_udp_t *out_handle(sweep_server *s, int direct)
{
    return direct && s->udp_direct_open ? &s->udp_direct : &s->udp;
}

static int send_now(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len, int direct)
{
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
    s->stats.udp_sends[1]++;
    int r = uv_udp_try_send(out_handle(s, direct), &b, 1, addr);
    if (r < 0) {
        /* A full socket buffer loses the datagram, as the network could. */
        s->stats.udp_dropped++;
        return -1;
    }
    s->stats.bytes_out[SWEEP__UDP] += len;
    return 0;
}

/* Sends what is queued, in order. A datagram the socket refuses is
 * dropped (and taken off bytes_out, which counted it when it was queued)
 * and the rest still go. */
static SWEEP__NOINLINE void flush_queued(sweep_server *s)
{
    sweep__udp_out *q = s->udp_out;
    unsigned i = 0;
    while (i < q->count) {
        /* One sendmmsg per run of answers for the same socket. */
        unsigned end = i + 1;
        while (end < q->count && q->direct[end] == q->direct[i])
            end++;
        uv_os_fd_t fd;
        if (uv_fileno((const uv_handle_t *)out_handle(s, q->direct[i]), &fd) != 0)
            fd = -1;
        if (fd >= 0)
            s->stats.udp_sends[0]++;
        int r = fd >= 0 ? sendmmsg(fd, q->msgs + i, end - i, 0) : -1;
        if (r > 0) {
            i += (unsigned)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        s->stats.udp_dropped++;
        s->stats.bytes_out[SWEEP__UDP] -= q->iov[i].iov_len;
        i++;
    }
    q->count = 0;
}

/* Most calls (each loop iteration's check, each reading's end) find the
 * queue empty: that test inline, without the sending's saved registers. */
static inline void flush(sweep_server *s)
{
    if (s->udp_out && s->udp_out->count != 0)
        flush_queued(s);
}

/* Queues the len bytes at data, which lie in the next slot's room, for
 * addr. */
static void queue(sweep_server *s, sweep__udp_out *q, const struct sockaddr *addr, const uint8_t *data, size_t len,
                  int direct)
{
    unsigned k = q->count++;
    q->direct[k] = direct != 0;
    /* Of a constant size, so copied by a store or two rather than a call. */
    socklen_t alen;
    if (addr->sa_family == AF_INET6) {
        memcpy(&q->addr[k], addr, sizeof(struct sockaddr_in6));
        alen = sizeof(struct sockaddr_in6);
    } else {
        memcpy(&q->addr[k], addr, sizeof(struct sockaddr_in));
        alen = sizeof(struct sockaddr_in);
    }
    q->iov[k].iov_base = (void *)data;
    q->iov[k].iov_len = len;
    struct msghdr *h = &q->msgs[k].msg_hdr;
    memset(h, 0, sizeof *h);
    h->msg_name = &q->addr[k];
    h->msg_namelen = alen;
    h->msg_iov = &q->iov[k];
    h->msg_iovlen = 1;
    /* Counted now, as a send at once would be: a Stats answered later in
     * the same batch includes it. */
    s->stats.bytes_out[SWEEP__UDP] += len;
}

int sweep__udp_send(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len, int direct)
{
    sweep__udp_out *q = s->udp_out;
    if (!s->udp_batching || !q || len > q->slot) {
        flush(s); /* nothing may overtake what is queued */
        return send_now(s, addr, data, len, direct);
    }
    if (q->count == SWEEP__UDP_OUT_MAX)
        flush(s);
    uint8_t *room = q->bytes + (size_t)q->count * q->slot;
    memcpy(room, data, len);
    queue(s, q, addr, room, len, direct);
    return 0;
}

uint8_t *sweep__udp_room(sweep_server *s, size_t *cap)
{
    sweep__udp_out *q = s->udp_out;
    if (!s->udp_batching || !q)
        return NULL;
    if (q->count == SWEEP__UDP_OUT_MAX)
        flush(s);
    *cap = q->slot;
    return q->bytes + (size_t)q->count * q->slot;
}

int sweep__udp_send_room(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len, int direct)
{
    queue(s, s->udp_out, addr, data, len, direct);
    return 0;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    sweep_server *s = h->data;
    if (s->udp_out && s->udp_out->drained == (const uv_udp_t *)h) {
        /* A recvmmsg that read less than it could left the socket empty;
         * libuv would make another only to learn so, a system call per
         * wake-up. An empty buffer ends its reading instead (UV_ENOBUFS,
         * on_recv); epoll, level-triggered, still wakes the loop for what
         * comes after. */
        *buf = uv_buf_init(NULL, 0);
        return;
    }
    if (s->udp_in)
        *buf = uv_buf_init((char *)s->udp_in, (unsigned)s->udp_in_cap);
    else
        *buf = uv_buf_init((char *)s->read_buf, sizeof s->read_buf);
}

/* The cookie rules for a Hello of len bytes from addr, which anyone
 * sending from there may have sent: 1 if it carries a valid cookie for
 * addr; otherwise 0, after answering what it deserves (a Challenge with a
 * new cookie when it has none, BadCookie when it is wrong or expired),
 * never with more bytes than len (p's budget). */
static int cookie_valid(sweep_server *s, sweep__peer *p, const sweep_message *m, uint64_t now)
{
    const sweep_bytes *cookie = &m->as.hello.cookie;
    if (!cookie->ptr) {
        uint8_t c[SWEEP__COOKIE_SIZE];
        if (sweep__cookie_make(s->cookie, p->addr, sweep__cookie_bucket(s->cookie, now), c) != 0)
            return 0;
        sweep_message out;
        memset(&out, 0, sizeof out);
        out.kind = SWEEP_MSG_CHALLENGE;
        out.sequence = m->sequence;
        out.as.challenge.cookie.ptr = c;
        out.as.challenge.cookie.len = sizeof c;
        sweep__send(s, p, &out);
        return 0;
    }
    if (!sweep__cookie_check(s->cookie, p->addr, now, cookie->ptr, cookie->len)) {
        sweep__send_error(s, p, SWEEP_WIRE_BAD_COOKIE, m->sequence, 0,
                          "wrong or expired cookie; send a Hello without one for a new challenge");
        return 0;
    }
    return 1;
}

static void log_dropped(const struct sockaddr *addr, size_t len, const char *event)
{
    if (sweep__log_enabled(SWEEP_LOG_DEBUG)) {
        char a[64];
        sweep__addr_text(addr, a, sizeof a);
        sweep__log(SWEEP_LOG_DEBUG, event, "peer=%s bytes=%zu", a, len);
    }
}

/* The stateless handshake for an address without a session. */
static void handshake(sweep_server *s, const struct sockaddr *addr, const uint8_t *data, size_t len, int direct)
{
    sweep_message m;
    int decoded = sweep_decode(&s->requests.dec, data, len, 0, &m) == SWEEP_PROTO_OK;
    sweep__peer p = {.addr = addr, .budget = len, .received = len, .datagram = data, .datagram_len = len, .direct = direct};
    if (decoded && m.kind != SWEEP_MSG_HELLO && m.kind != SWEEP_MSG_BYE) {
        /* A request of no session (one the idle timeout ended, a client
         * that never said Hello) is told so, as over TCP, when the answer
         * is no larger than the request: never more bytes to an
         * unverified address than it sent (a Ping's is, and goes
         * unanswered). */
        s->stats.udp_dropped++;
        sweep__send_error(s, &p, SWEEP_WIRE_NOT_WELCOMED, m.sequence, 0, "%s", "no session: send Hello");
        return;
    }
    if (len < SWEEP_UDP_HELLO_MIN || !decoded || m.kind != SWEEP_MSG_HELLO) {
        s->stats.udp_dropped++;
        log_dropped(addr, len, "udp_unverified_dropped");
        return;
    }
    if (!cookie_valid(s, &p, &m, uv_hrtime()))
        return;
    /* The cookie proves the sender receives at this address: from here on
     * an answer (a Welcome, or an AuthFailed naming a long identity) may be
     * larger than the Hello without amplifying anything towards a victim. */
    p.budget = SIZE_MAX;
    /* One host may hold --max-sessions-per-address sessions, whatever its
     * ports (a new port is a new UDP address to the session table). */
    if (!sweep__addr_session_allowed(s, &p, addr, m.sequence))
        return;
    sweep__hello(s, &p, &m);
}

sweep__rehello sweep__udp_rehello(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    sweep__session *ss = p->session;
    const sweep_bytes *cookie = &m->as.hello.cookie;
    /* The cookie that created the session: the same client, whose Welcome
     * was lost. Taken even once expired: it was only ever sent to this
     * address, and a client resending its Hello for a while must not be
     * refused by the session it already has. */
    if (cookie->ptr && cookie->len == SWEEP__COOKIE_SIZE && sweep__cookie_equal(cookie->ptr, ss->cookie))
        return SWEEP__REHELLO_REPEAT;
    /* Anything else may come from a new socket that got the old one's
     * address and port (a client gone without Bye, a NAT mapping reused):
     * the address is not proof of being the session's client, so the Hello
     * is judged as from an unverified address, without touching the
     * session. */
    sweep__peer q = {.addr = p->addr, .budget = p->received, .received = p->received};
    if (p->received < SWEEP_UDP_HELLO_MIN) {
        s->stats.udp_dropped++;
        log_dropped(p->addr, p->received, "udp_hello_dropped");
        return SWEEP__REHELLO_DONE;
    }
    uint64_t now = uv_hrtime();
    if (cookie->ptr && !sweep__cookie_check(s->cookie, p->addr, now, cookie->ptr, cookie->len)) {
        /* Neither the session's client (whose Hello brings the session's
         * cookie) nor a new one on its port (a fresh cookie): a forger's,
         * or a stale one. Its BadCookie, naming the forger's sequence,
         * would land in the session's client's stream as an answer to one
         * of its own requests: dropped. */
        s->stats.udp_dropped++;
        log_dropped(p->addr, p->received, "udp_bad_cookie_dropped");
        return SWEEP__REHELLO_DONE;
    }
    if (!cookie_valid(s, &q, m, now))
        return SWEEP__REHELLO_DONE;
    if (sweep__cookie_nonce(cookie->ptr) < sweep__cookie_nonce(ss->cookie)) {
        /* Made before the session's own cookie: a late duplicate from an
         * earlier handshake at this address, not a new client (who would
         * have asked for its challenge after the session began). Dropped:
         * an answer to it could be taken by the session's client as the
         * answer to one of its own requests. */
        s->stats.udp_dropped++;
        log_dropped(p->addr, p->received, "udp_stale_hello_dropped");
        return SWEEP__REHELLO_DONE;
    }
    /* A valid cookie of its own: a new client on the old one's port. The
     * old client can no longer receive here, so its session ends now rather
     * than at the idle timeout, with its entities, and no Bye (the address
     * is the new client's). */
    sweep__log(SWEEP_LOG_INFO, "session_replaced", "session=%llu peer=%s", (unsigned long long)ss->id, ss->peer);
    ss->close_reason = "replaced by a new handshake";
    sweep__session_destroy(ss);
    p->session = NULL;
    return SWEEP__REHELLO_NEW;
}

/* Has ss had its share of loop turn `turn`? Counts the datagram it is
 * about to have otherwise. No share once the turns stop (shutdown):
 * nothing would serve what is held. */
static int share_spent(sweep_server *s, sweep__session *ss, uint64_t turn)
{
    if (!s->turns_open || !s->udp_held || !s->udp_resume_open)
        return 0;
    return sweep__turn_spent(turn, &ss->turn, &ss->turn_datagrams,
                             sweep__turn_share(ss, SWEEP__UDP_TURN_DATAGRAMS));
}

static void on_resume(uv_idle_t *h);
static void deliver(sweep_server *s, const uint8_t *data, size_t len, const struct sockaddr *addr, int partial,
                    uint64_t now, int direct, int held);

/* Puts a datagram of ss aside, behind its others, for a later turn. */
static void hold(sweep_server *s, sweep__session *ss, const uint8_t *data, size_t len, const struct sockaddr *addr,
                 int direct)
{
    sweep__udp_held *q = s->udp_held;
    if (q->count == SWEEP__UDP_HELD_MAX) {
        s->stats.udp_dropped++;
        log_dropped(addr, len, "udp_held_full_dropped");
        return;
    }
    struct sweep__udp_held_one *o = &q->one[q->count++];
    size_t alen = addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memcpy(&o->addr, addr, alen);
    memcpy(o->bytes, data, len);
    o->len = (uint32_t)len;
    o->direct = direct;
    ss->held++;
    if (!uv_is_active((uv_handle_t *)&s->udp_resume))
        uv_idle_start(&s->udp_resume, on_resume);
}

/* A Hello from ss's address without ss's key: its client's again, whose
 * Welcome (and key with it) was lost, only with the cookie that created
 * the session (1: take it as the session's). Any other is the stateless
 * handshake's, judged without touching the session: a new client on a
 * reused address and port gets its own session (sweep__udp_rehello). */
static int hello_of_stranger(sweep_server *s, sweep__session *ss, const uint8_t *data, size_t len,
                             const struct sockaddr *addr, uint64_t now, int direct)
{
    sweep_message m;
    if (sweep_decode(&s->requests.dec, data, len, 0, &m) != SWEEP_PROTO_OK || m.kind != SWEEP_MSG_HELLO) {
        s->stats.udp_dropped++;
        log_dropped(addr, len, "udp_hello_dropped");
        return 0;
    }
    const sweep_bytes *cookie = &m.as.hello.cookie;
    if (cookie->ptr && cookie->len == SWEEP__COOKIE_SIZE && sweep__cookie_equal(cookie->ptr, ss->cookie))
        return 1;
    sweep__peer p = {.addr = addr,
                     .session = ss,
                     .budget = SIZE_MAX,
                     .received = len,
                     .now = now,
                     .datagram = data,
                     .datagram_len = len,
                     .direct = direct};
    sweep__hello(s, &p, &m);
    sweep__check_invariants(s);
    return 0;
}

/* Is this datagram from ss's address its client's? Only the client knows
 * the session's key (its Welcome's), and an address is easily forged: a
 * datagram without the key is refused before it touches the session (no
 * idle time, no rate, no turn, nothing dispatched), and is not answered
 * either, which would put the server's words about a forger's datagram into
 * the client's stream. A Hello needs no key (hello_of_stranger). */
static SWEEP__ALWAYS_INLINE int from_client(sweep_server *s, sweep__session *ss, const uint8_t *data, size_t len,
                                            const struct sockaddr *addr, int partial, uint64_t now, int direct)
{
    sweep_msg_kind kind;
    uint64_t key;
    int peeked = sweep_peek_key(data, len, &kind, &key);
    if (peeked && key == ss->udp_key)
        return 1;
    if (peeked && kind == SWEEP_MSG_HELLO && !partial)
        return hello_of_stranger(s, ss, data, len, addr, now, direct);
    s->stats.udp_dropped++;
    s->stats.udp_bad_key++;
    log_dropped(addr, len, "udp_bad_key_dropped");
    return 0;
}

/* One datagram of len bytes from addr, seen at now; partial: cut short
 * by the buffer; held: it was held for its turn and has it now. */
static void deliver(sweep_server *s, const uint8_t *data, size_t len, const struct sockaddr *addr, int partial,
                    uint64_t now, int direct, int held)
{
    sweep__session *ss = sweep__udp_session_find(s, addr);
    if (direct && !ss) {
        /* The own port serves this thread's sessions only: the handshake
         * (and with it every address not verified yet) stays on the shared
         * port, and a session of another thread is no concern of this
         * one. Nothing is answered. */
        s->stats.udp_dropped++;
        log_dropped(addr, len, "udp_direct_dropped");
        return;
    }
    if (!ss && s->group->count > 1) {
        /* A session of another thread (threads.c): the kernel hashes the
         * client's address to this thread's socket, every time. */
        int owner = sweep__route_find(s, addr);
        if (owner >= 0 && (unsigned)owner != s->thread) {
            sweep__handoff_datagram(s, (unsigned)owner, addr, data, len, partial);
            return;
        }
    }
    if (!held) /* counted when it was read */
        s->stats.bytes_in[SWEEP__UDP] += len;
    if (ss && !from_client(s, ss, data, len, addr, partial, now, direct))
        return;
    if (ss) {
        ss->last_seen_ns = now;
        /* Answered where it was sent: a client that moved to the own port
         * has its answers (and the ticks' messages) from there. */
        ss->udp_direct = direct;
    }
    /* A session's datagrams may be as large as its handshake agreed; an
     * address without one is held to the protocol's own size. */
    size_t limit = ss ? ss->udp_fit.datagram : SWEEP_UDP_MAX_DATAGRAM;
    if (partial || len > limit) {
        if (ss) {
            sweep__peer p = {
                .addr = (const struct sockaddr *)&ss->addr, .session = ss, .budget = SIZE_MAX, .now = now};
            if (sweep__request_paid(s, &p, 1, 0))
                sweep__send_error(s, &p, SWEEP_WIRE_DATAGRAM_TOO_LARGE, 0, 0,
                                  "a datagram of %zu bytes; at most %zu (the session's, Welcome.max_frame_size)", len,
                                  limit);
        } else {
            s->stats.udp_dropped++;
        }
        return;
    }
    if (!ss) {
        handshake(s, addr, data, len, direct);
        return;
    }
    if (!held && s->udp_resume_open && s->udp_held && (ss->held || share_spent(s, ss, s->turn))) {
        hold(s, ss, data, len, addr, direct);
        return;
    }
    /* The received address, not the session's copy of it: a Hello may end
     * the session while it is being answered (sweep__udp_rehello). */
    sweep__peer p = {.addr = addr, .session = ss, .budget = SIZE_MAX, .received = len, .now = now,
                     /* what a Hello for another thread's world passes on; a session a Hello makes in
                      * this one's place is answered alike */
                     .datagram = data, .datagram_len = len, .direct = direct};
    sweep__dispatch(s, &p, data, len, 0);
}

void sweep__udp_deliver(sweep_server *s, const uint8_t *data, size_t len, const struct sockaddr *addr, int partial,
                        uint64_t now, int direct)
{
    deliver(s, data, len, addr, partial, now, direct, 0);
}

int sweep__udp_batch_begin(sweep_server *s)
{
    int was = s->udp_batching;
    s->udp_batching = 1;
    return was;
}

void sweep__udp_batch_end(sweep_server *s)
{
    flush(s);
    s->udp_batching = 0;
}

/* Reads on after a full batch, up to SWEEP__UDP_DRAIN_MAX datagrams, until
 * the socket is empty. libuv stops after about 32 datagrams per loop
 * iteration whatever is waiting, while every TCP connection that is ready
 * in the same iteration is read in full: under load the iterations grow
 * long, UDP got a fixed few datagrams of each, and the receive buffer
 * dropped the rest (with clients sending on a fixed schedule, the same
 * ones each time, until their sessions idled out). The cap keeps the other
 * handles' turn near one receive buffer's worth. */
static void read_on(sweep_server *s, uv_udp_t *h)
{
    uv_os_fd_t fd;
    if (uv_fileno((const uv_handle_t *)h, &fd) != 0 || !s->udp_in)
        return;
    int direct = h == &s->udp_direct;
    struct mmsghdr msgs[SWEEP__UDP_IN_BATCH];
    struct iovec iov[SWEEP__UDP_IN_BATCH];
    struct sockaddr_storage peers[SWEEP__UDP_IN_BATCH];
    unsigned left = SWEEP__UDP_DRAIN_MAX;
    while (left > 0 && !s->stopping) {
        unsigned want = left < SWEEP__UDP_IN_BATCH ? left : SWEEP__UDP_IN_BATCH;
        for (unsigned k = 0; k < want; k++) {
            iov[k].iov_base = s->udp_in + (size_t)k * SWEEP__UDP_IN_SLOT;
            iov[k].iov_len = SWEEP__UDP_IN_SLOT;
            memset(&msgs[k], 0, sizeof msgs[k]);
            msgs[k].msg_hdr.msg_name = &peers[k];
            msgs[k].msg_hdr.msg_namelen = sizeof peers[k];
            msgs[k].msg_hdr.msg_iov = &iov[k];
            msgs[k].msg_hdr.msg_iovlen = 1;
        }
        int n = recvmmsg(fd, msgs, want, MSG_DONTWAIT, NULL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) {
            s->stats.udp_reads[1]++;
            s->udp_out->drained = h;
            return;
        }
        if (n < 0)
            return; /* an error libuv reports on its next read */
        s->stats.udp_reads[0]++;
        /* Answers wait with the iteration's others (on_recv, on_check). */
        s->udp_batching = 1;
        uint64_t now = uv_hrtime();
        for (int k = 0; k < n && !s->stopping; k++)
            sweep__udp_deliver(s, iov[k].iov_base, msgs[k].msg_len, (const struct sockaddr *)&peers[k],
                        (msgs[k].msg_hdr.msg_flags & MSG_TRUNC) != 0, now, direct);
        left -= (unsigned)n;
        if ((unsigned)n < want) {
            s->udp_out->drained = h;
            return;
        }
    }
}

static void on_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf, const struct sockaddr *addr, unsigned flags)
{
    sweep_server *s = h->data;
    if (!addr) {
        unsigned got = s->udp_out ? s->udp_out->received : 0;
        if (s->udp_out)
            s->udp_out->received = 0;
        if (flags & UV_UDP_MMSG_FREE) {
            /* The end of one recvmmsg's datagrams (the buffer is ours and
             * stays): libuv may read again, and those answers go with
             * these. A full batch may have left more waiting; a short one
             * left nothing. */
            s->stats.udp_reads[0]++;
            if (got >= SWEEP__UDP_IN_BATCH)
                read_on(s, h);
            else if (s->udp_out)
                s->udp_out->drained = h;
            return;
        }
        /* Nothing more to read, or an error, or the read on_alloc refused
         * (the socket was empty): what the reading answered leaves now. */
        int refused = nread == UV_ENOBUFS && s->udp_out && s->udp_out->drained == h;
        if (s->udp_out)
            s->udp_out->drained = NULL;
        if (nread == 0)
            s->stats.udp_reads[1]++;
        flush(s);
        s->udp_batching = 0;
        if (nread < 0 && !refused)
            sweep__log(SWEEP_LOG_DEBUG, "udp_recv_error", "error=%s", uv_err_name((int)nread));
        return;
    }
    if (nread < 0 || s->stopping)
        return;
    if (!(flags & UV_UDP_MMSG_CHUNK))
        s->stats.udp_reads[0]++; /* one recvmsg a datagram */
    uint64_t now;
    if (flags & UV_UDP_MMSG_CHUNK) {
        /* One clock reading per batch: its datagrams came in one call. */
        if (!s->udp_out || s->udp_out->received++ == 0)
            s->udp_batch_ns = uv_hrtime();
        s->udp_batching = 1;
        now = s->udp_batch_ns;
    } else {
        now = uv_hrtime();
    }
    sweep__udp_deliver(s, (const uint8_t *)buf->base, (size_t)nread, addr, (flags & UV_UDP_PARTIAL) != 0, now,
                       h == &s->udp_direct);
}

/* At the start of each turn while datagrams are held: each is served, in
 * the order it came, if its session has share left this turn; the others
 * stay, in order, for the next (a session whose share runs out keeps the
 * rest of its own behind). A session that ended meanwhile leaves its
 * datagrams to be judged as from an address without one. */
static void on_resume(uv_idle_t *h)
{
    sweep_server *s = h->data;
    sweep__udp_held *q = s->udp_held;
    unsigned n = q->count, kept = 0;
    /* The turn this begins: libuv runs idle handles before the prepare
     * handle that counts turns (tcp.c), so s->turn is still the one whose
     * reading held these. Counted against that, a session the reading
     * gave its share was served nothing here, and the loop went round
     * once more, without blocking, before it was. */
    uint64_t turn = s->turn + 1;
    sweep__udp_batch_begin(s);
    uint64_t now = uv_hrtime();
    for (unsigned i = 0; i < n; i++) {
        struct sweep__udp_held_one *o = &q->one[i];
        const struct sockaddr *addr = (const struct sockaddr *)&o->addr;
        sweep__session *ss = s->stopping ? NULL : sweep__udp_session_find(s, addr);
        if (ss && share_spent(s, ss, turn)) {
            if (kept != i) {
                /* The two swap rooms: each slot keeps one of its own, and
                 * no bytes move. */
                uint8_t *room = q->one[kept].bytes;
                q->one[kept] = *o;
                o->bytes = room;
            }
            kept++;
            continue;
        }
        if (ss && ss->held)
            ss->held--;
        if (!s->stopping)
            deliver(s, o->bytes, o->len, addr, 0, now, o->direct, 1);
    }
    /* Serving holds nothing new (only a reading does): what is kept is all. */
    q->count = kept;
    sweep__udp_batch_end(s);
    if (kept == 0)
        uv_idle_stop(&s->udp_resume);
}

void sweep__udp_serve_held(sweep_server *s)
{
    sweep__udp_held *q = s->udp_held;
    if (!q || q->count == 0)
        return;
    sweep__udp_batch_begin(s);
    uint64_t now = uv_hrtime();
    for (unsigned i = 0; i < q->count; i++) {
        struct sweep__udp_held_one *o = &q->one[i];
        const struct sockaddr *addr = (const struct sockaddr *)&o->addr;
        sweep__session *ss = sweep__udp_session_find(s, addr);
        if (ss && ss->held)
            ss->held--;
        deliver(s, o->bytes, o->len, addr, 0, now, o->direct, 1);
    }
    q->count = 0;
    sweep__udp_batch_end(s);
    if (s->udp_resume_open)
        uv_idle_stop(&s->udp_resume);
}

/* After the I/O of each loop iteration: libuv can stop reading after its
 * 32 datagrams without a last callback, so what is still queued leaves
 * here. */
static void on_check(uv_check_t *h)
{
    sweep_server *s = h->data;
    flush(s);
    s->udp_batching = 0;
    /* libuv may end a reading without asking for a buffer again (its cap
     * of reads an iteration): the next wake-up reads afresh. */
    if (s->udp_out)
        s->udp_out->drained = NULL;
}

int sweep__udp_start(sweep_server *s, char *err, size_t errlen)
{
    s->udp_in_cap = (size_t)SWEEP__UDP_IN_BATCH * SWEEP__UDP_IN_SLOT;
    s->udp_in = sweep__malloc(s->udp_in_cap);
    /* Room for the widest datagram a session may agree: 1200 bytes a slot
     * unless --udp-max-datagram says more (its pages are touched only as
     * large answers use them). */
    size_t slot = s->udp_widest.datagram;
    s->udp_out = sweep__malloc(sizeof *s->udp_out + SWEEP__UDP_OUT_MAX * slot);
    if (!s->udp_in || !s->udp_out) {
        sweep__udp_free(s);
        snprintf(err, errlen, "udp: out of memory for the receive and send batches");
        return -1;
    }
    s->udp_out->count = 0;
    s->udp_out->received = 0;
    s->udp_out->slot = slot;
    s->udp_out->drained = NULL;
    s->udp_batching = 0;
    /* Without room aside (out of memory) every datagram is served at once,
     * as before shares. */
    s->udp_held = sweep__malloc(sizeof *s->udp_held + SWEEP__UDP_HELD_MAX * slot);
    if (s->udp_held) {
        s->udp_held->count = 0;
        for (unsigned i = 0; i < SWEEP__UDP_HELD_MAX; i++)
            s->udp_held->one[i].bytes = s->udp_held->pool + (size_t)i * slot;
    }
    uv_idle_init(&s->loop, &s->udp_resume);
    s->udp_resume.data = s;
    uv_unref((uv_handle_t *)&s->udp_resume);
    s->udp_resume_open = 1;
    /* Room for the datagrams that come while the loop is busy elsewhere (a
     * tick, or the process off the CPU on a shared machine): at 60 moves a
     * second from each of a few thousand players the default (~200 KiB,
     * a few hundred datagrams) is a few milliseconds, and past it moves
     * are lost. 1 MiB was some 50 ms of the soak's 10,000 sessions beside
     * hostile clients (each datagram takes about 1 KiB of the buffer
     * however small, and garbage up to a datagram's full size): a loaded
     * machine leaves the server off the CPU longer than that, and its
     * honest players lost thousands of moves. The cost of more is that a
     * server that cannot keep up answers late rather than not at all. The
     * kernel caps it at net.core.rmem_max; smaller is no failure. */
    int rcvbuf = SWEEP__UDP_RCVBUF;
    (void)uv_recv_buffer_size((uv_handle_t *)&s->udp, &rcvbuf);
    /* Not a reason for the loop to go on: unreferenced. */
    uv_check_init(&s->loop, &s->udp_flush);
    s->udp_flush.data = s;
    s->udp_flush_open = 1;
    uv_check_start(&s->udp_flush, on_check);
    uv_unref((uv_handle_t *)&s->udp_flush);
    int r = uv_udp_recv_start(&s->udp, on_alloc, on_recv);
    if (r != 0) {
        snprintf(err, errlen, "udp receive: %s", uv_strerror(r));
        return -1;
    }
    if (s->udp_direct_open) {
        rcvbuf = SWEEP__UDP_RCVBUF;
        (void)uv_recv_buffer_size((uv_handle_t *)&s->udp_direct, &rcvbuf);
        r = uv_udp_recv_start(&s->udp_direct, on_alloc, on_recv);
        if (r != 0) {
            snprintf(err, errlen, "udp receive on the thread's own port: %s", uv_strerror(r));
            return -1;
        }
    }
    return 0;
}

void sweep__udp_close(sweep_server *s)
{
    flush(s);
    s->udp_batching = 0;
    if (s->udp_flush_open) {
        s->udp_flush_open = 0;
        uv_close((uv_handle_t *)&s->udp_flush, NULL);
    }
    if (s->udp_resume_open) {
        s->udp_resume_open = 0;
        uv_close((uv_handle_t *)&s->udp_resume, NULL);
    }
    if (s->udp_open) {
        s->udp_open = 0;
        if (!uv_is_closing((uv_handle_t *)&s->udp))
            uv_close((uv_handle_t *)&s->udp, NULL);
    }
    if (s->udp_direct_open) {
        s->udp_direct_open = 0;
        if (!uv_is_closing((uv_handle_t *)&s->udp_direct))
            uv_close((uv_handle_t *)&s->udp_direct, NULL);
    }
}

void sweep__udp_free(sweep_server *s)
{
    free(s->udp_in);
    free(s->udp_out);
    free(s->udp_held);
    s->udp_held = NULL;
    s->udp_in = NULL;
    s->udp_in_cap = 0;
    s->udp_out = NULL;
}
