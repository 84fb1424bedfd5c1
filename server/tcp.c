/*
 * tcp.c - the TCP side: accepting connections fairly, cutting each byte
 * stream into frames, and writing answers with a bounded queue.
 *
 * A connection's life: OPEN (reading, answering) -> DRAINING (no more
 * reads; queued answers flush, then the write side is shut down) ->
 * CLOSING (uv_close; the close callback frees the connection and ends its
 * session). DRAINING has a deadline (--drain-timeout): a peer that never
 * reads cannot keep a connection, or its memory, alive. An OPEN
 * connection without a session is closed after --handshake-timeout, and
 * one whose session sends nothing for --idle-timeout gets a Bye and is
 * closed: no silent client holds a slot for long.
 *
 * Accepting. The listening socket is polled and accepted from here
 * (accept4), not through uv_listen, so that a connection can be judged
 * before anything is allocated for it: its address's counts (limits.h:
 * connections, connections without a session, sessions), the server's
 * sessions and connections, and the memory the connections hold
 * (--max-memory). A connection over any of them is refused cheaply: one
 * Error TooManySessions naming the limit, written only if the socket takes
 * it at once, and close. An allocation that fails refuses that one
 * connection the same way; accepting goes on, and running out of
 * descriptors sheds the connection with a spare descriptor kept for that.
 * At most SWEEP__ACCEPT_BATCH connections are taken per loop iteration,
 * so a flood of connects cannot starve the clients already served.
 *
 * Memory. What a connection holds is counted where it is allocated
 * (conn->mem, server->conn_mem): its structure, a buffer for a frame that
 * has not fully arrived, and two buffers of answers. Frames that arrive
 * whole are dispatched straight from the loop's shared read buffer; only
 * the start of an incomplete frame is copied, into a buffer that grows
 * (from SWEEP__IN_MIN, doubling) with the bytes that actually arrive, up to
 * the frame's declared size, and is freed once the frame is dispatched.
 * Answers first try the socket directly (uv_try_write), so the common case
 * allocates nothing; what the kernel does not take goes into the buffer of
 * the one write in flight, and answers made while it is in flight are
 * appended to a second buffer, issued as one write when the first
 * completes. No allocation per answer: the queue costs its bytes, not a
 * request structure each. When the two buffers would pass
 * --max-write-queue the client is a slow reader: it gets a final Error
 * (allowed past the cap, once) and is drained. A buffer that cannot grow
 * within --max-memory ends its connection the same way.
 *
 * Broken framing (a frame announcing more than --max-frame) ends the
 * connection after one final Error, because the stream cannot be resynced.
 * A malformed buffer inside a well-framed frame only gets an Error: the
 * next frame boundary is still known.
 *
 * A connection's share of a loop turn is SWEEP__TCP_TURN_FRAMES frames.
 * libuv reads a ready connection whole (up to 32 reads of 64 KiB a turn),
 * so one client that wrote a second of requests at once (its rate limit
 * allows a burst of a second's worth) had them all handled before any
 * other connection or datagram of the turn: every honest player waited
 * behind it. Past its share, the rest of what was read is held (at most
 * one read: its reading stops) and the connection waits for the next
 * turn, where it is served first, before that turn's I/O (what it reads
 * then counts against the same share), again a share at a time; its
 * reading starts again once nothing is held. Only the order
 * changes: every frame is still handled, in its connection's order.
 *
 * Before its Hello a connection may send SWEEP__EARLY_RATE requests a
 * second (a burst as many); the others are dropped unanswered, with one
 * Error RateLimited a second, so a client that never says Hello cannot
 * make the server answer, and queue answers, at the speed it sends.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/world/alloc.h"
#include "server/server_impl.h"

/* The smallest buffer for a frame that arrives in pieces, and the largest
 * empty answer buffer kept for the next backlog. */
#define SWEEP__IN_MIN 4096u
#define SWEEP__OUT_KEEP 4096u
/* Connections without a session allowed beyond the session slots. */
#define SWEEP__HANDSHAKE_MARGIN 256u
/* Connections accepted per loop iteration. */
#define SWEEP__ACCEPT_BATCH 64
#define SWEEP__LISTEN_BACKLOG 511
/* Requests a second (and burst) of a connection before its Hello. */
#define SWEEP__EARLY_RATE 8.0
/* Frames of one connection handled in one loop turn: a few honest
 * players' worth at once (a player sends one a frame, a game server a
 * batch), some 0.1 to 0.5 ms of the server's time. */
#define SWEEP__TCP_TURN_FRAMES 16u

/* --- Memory ------------------------------------------------------------ */

/* Can the connections (of every thread, with the entities) hold `more`
 * bytes more within --max-memory? */
static int mem_allows(const sweep_server *s, size_t more)
{
    char why[200];
    return sweep__mem_fits(s, more, why, sizeof why);
}

/* The connections of this thread hold `plus` bytes more and `minus` fewer
 * (the group total with them). */
static void mem_count(sweep_server *s, size_t plus, size_t minus)
{
    s->conn_mem = s->conn_mem + plus - minus;
    __atomic_add_fetch(&s->group->conn_mem, plus - minus, __ATOMIC_RELAXED);
}

/* Gives *buf the capacity ncap (0 frees it), keeping its first `keep`
 * bytes, and counts the change: 0, or -1 if the allocation failed (the
 * buffer is unchanged then). */
static int buf_resize(sweep__conn *c, uint8_t **buf, size_t *cap, size_t ncap)
{
    if (ncap == *cap)
        return 0;
    uint8_t *n = NULL;
    if (ncap) {
        n = sweep__realloc(*buf, ncap);
        if (!n)
            return -1;
    } else {
        free(*buf);
    }
    *buf = n;
    c->mem = c->mem - *cap + ncap;
    mem_count(c->server, ncap, *cap);
    *cap = ncap;
    return 0;
}

/* --- Per-address counts -------------------------------------------------- */

/* The table is the group's, shared by the threads (threads.c): every
 * use is under its lock, and no entry pointer outlives it. */

static void uncount_handshake(sweep__conn *c)
{
    if (!c->counted_handshake)
        return;
    c->counted_handshake = 0;
    sweep__group_lock(c->server);
    sweep__addr_count *a = sweep__addr_find(&c->server->group->addrs, &c->addr);
    if (a && a->handshakes)
        a->handshakes--;
    sweep__group_unlock(c->server);
}

/* The connection got its session: it is counted as one of its address's
 * sessions, no longer as a handshake. */
static void count_session(sweep__conn *c)
{
    uncount_handshake(c);
    sweep__group_lock(c->server);
    sweep__addr_count *a = sweep__addr_find(&c->server->group->addrs, &c->addr);
    if (a && !c->counted_session) {
        c->counted_session = 1;
        a->sessions++;
    }
    sweep__group_unlock(c->server);
}

void sweep__addr_sessions(sweep_server *s, const struct sockaddr *addr, int delta)
{
    sweep__addr_key key;
    if (sweep__addr_key_of(addr, &key) != 0)
        return;
    sweep__addr_table *t = &s->group->addrs;
    sweep__group_lock(s);
    if (delta > 0) {
        /* A failed allocation only loses the count of a session already
         * made: the limit is then one too generous for that address. */
        sweep__addr_count *a = sweep__addr_get(t, &key);
        if (a)
            a->sessions++;
    } else {
        sweep__addr_count *a = sweep__addr_find(t, &key);
        if (a && a->sessions) {
            a->sessions--;
            sweep__addr_put(t, a);
        }
    }
    sweep__group_unlock(s);
}

/* Checked at the Hello and counted once the session is made: two threads
 * whose Hellos from one address cross may both pass (one over per extra
 * thread, at worst). */
static int session_allowed(sweep_server *s, sweep__peer *p, const sweep__addr_key *key, uint32_t sequence)
{
    sweep__group_lock(s);
    sweep__addr_count *a = sweep__addr_find(&s->group->addrs, key);
    uint32_t sessions = a ? a->sessions : 0;
    sweep__group_unlock(s);
    if (sessions < s->opt.max_sessions_per_address)
        return 1;
    char at[64];
    sweep__addr_key_text(key, at, sizeof at);
    sweep__log(SWEEP_LOG_INFO, "session_refused", "address=%s sessions=%u max_sessions_per_address=%u", at,
               sessions, s->opt.max_sessions_per_address);
    sweep__send_error(s, p, SWEEP_WIRE_TOO_MANY_SESSIONS, sequence, 0,
                      "%s already has %u sessions: at most %u per address (--max-sessions-per-address)", at,
                      sessions, s->opt.max_sessions_per_address);
    return 0;
}

int sweep__addr_session_allowed(sweep_server *s, sweep__peer *p, const struct sockaddr *addr, uint32_t sequence)
{
    sweep__addr_key key;
    if (sweep__addr_key_of(addr, &key) != 0)
        return 1;
    return session_allowed(s, p, &key, sequence);
}

/* --- Turns ------------------------------------------------------------- */

static void consume(sweep__conn *c, const uint8_t *data, size_t left);
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf);
static void conn_reason(sweep__conn *c, const char *why);
static void on_turn_resume(uv_idle_t *h);

/* Takes c out of the waiting list, if it is in it. */
static void unwait(sweep__conn *c)
{
    sweep_server *s = c->server;
    if (!c->waiting)
        return;
    if (c->held_prev)
        c->held_prev->held_next = c->held_next;
    else
        s->held_first = c->held_next;
    if (c->held_next)
        c->held_next->held_prev = c->held_prev;
    else
        s->held_last = c->held_prev;
    c->held_prev = c->held_next = NULL;
    c->waiting = 0;
}

/* Takes c out of the waiting list and drops what it held. */
static void unhold(sweep__conn *c)
{
    unwait(c);
    c->held_len = 0;
    buf_resize(c, &c->held, &c->held_cap, 0);
}

/* Has c had its share of this turn? Counts the frame it is about to have
 * otherwise. */
static int turn_spent(sweep__conn *c)
{
    sweep_server *s = c->server;
    if (!s->turns_open) /* stopping: no turns any more, nothing is held */
        return 0;
    return sweep__turn_spent(s->turn + (uint64_t)s->turn_ahead, &c->turn, &c->turn_frames,
                             sweep__turn_share(c->session, SWEEP__TCP_TURN_FRAMES));
}

/* Keeps the `left` bytes at data (what c read past its share; they may lie
 * in c->held already) for the next turn, and stops its reading until they
 * are handled: 0, or -1 after the connection was ended for lack of memory. */
static int hold(sweep__conn *c, const uint8_t *data, size_t left)
{
    sweep_server *s = c->server;
    if (data >= c->held && data < c->held + c->held_cap) {
        memmove(c->held, data, left);
    } else {
        int ok = left <= c->held_cap || mem_allows(s, left - c->held_cap);
        if (!ok || (left > c->held_cap && buf_resize(c, &c->held, &c->held_cap, left) != 0)) {
            sweep__log(SWEEP_LOG_WARN, "conn_out_of_memory", "peer=%s held=%zu conn_mem=%zu max_memory=%zu", c->peer,
                       left, s->conn_mem, s->max_memory);
            sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
            sweep__send_error(s, &p, SWEEP_WIRE_INTERNAL, 0, 0,
                              "no memory for %zu bytes of requests waiting their turn (%s); closing the connection",
                              left, ok ? "out of memory" : "the connections hold --max-memory");
            sweep__conn_drain(c);
            return -1;
        }
        memcpy(c->held, data, left);
    }
    c->held_len = left;
    uv_read_stop((uv_stream_t *)&c->handle);
    if (!c->waiting) {
        c->waiting = 1;
        c->held_prev = s->held_last;
        c->held_next = NULL;
        if (s->held_last)
            s->held_last->held_next = c;
        else
            s->held_first = c;
        s->held_last = c;
    }
    if (!uv_is_active((uv_handle_t *)&s->turn_resume))
        uv_idle_start(&s->turn_resume, on_turn_resume);
    return 0;
}

static void on_turn_count(uv_prepare_t *h)
{
    sweep_server *s = h->data;
    s->turn++;
}

/* Each turn, while connections wait: each of them is served its share of
 * what it holds, in the order they began waiting (a connection that still
 * holds more waits again, at the end); one that is done reads again. The
 * idle handle keeps the loop from blocking in its poll meanwhile. */
static void on_turn_resume(uv_idle_t *h)
{
    sweep_server *s = h->data;
    sweep__conn *last = s->held_last;
    /* The turn this begins: libuv runs idle handles before the prepare
     * handle that counts turns, so s->turn is still the one whose reading
     * held these. Counted against that, a connection the reading gave its
     * share was served nothing here, and the loop went round once more,
     * without blocking, before it was (as udp.c's on_resume). */
    s->turn_ahead = 1;
    for (sweep__conn *c = s->held_first; c;) {
        sweep__conn *next = c == last ? NULL : c->held_next;
        /* Out of the list while served: holding again puts it at the end. */
        unwait(c);
        if (c->state == SWEEP__CONN_OPEN && c->held_len) {
            size_t n = c->held_len;
            c->held_len = 0;
            consume(c, c->held, n);
        }
        if (!c->waiting) {
            c->held_len = 0;
            buf_resize(c, &c->held, &c->held_cap, 0);
            if (c->state == SWEEP__CONN_OPEN && uv_read_start((uv_stream_t *)&c->handle, on_alloc, on_read) != 0) {
                conn_reason(c, "read error");
                sweep__conn_close(c);
            }
        }
        c = next;
    }
    s->turn_ahead = 0;
    if (!s->held_first)
        uv_idle_stop(&s->turn_resume);
}

void sweep__tcp_serve_held(sweep_server *s)
{
    /* With the turns closed no share is spent (turn_spent), so consume
     * holds nothing again and the list only shrinks. */
    while (s->held_first) {
        sweep__conn *c = s->held_first;
        unwait(c);
        if (c->state == SWEEP__CONN_OPEN && c->held_len) {
            size_t n = c->held_len;
            c->held_len = 0;
            consume(c, c->held, n);
        }
        c->held_len = 0;
        buf_resize(c, &c->held, &c->held_cap, 0);
    }
}

/* --- Closing ----------------------------------------------------------- */

static void on_close(uv_handle_t *h)
{
    sweep__conn *c = h->data;
    sweep_server *s = c->server;
    if (c->session)
        sweep__session_destroy(c->session);
    if (!c->handed_over) {
        /* A connection handed over is counted by the thread that has it. */
        sweep__group_lock(s);
        sweep__addr_count *a = sweep__addr_find(&s->group->addrs, &c->addr);
        if (a) {
            if (a->conns)
                a->conns--;
            if (c->counted_handshake && a->handshakes)
                a->handshakes--;
            if (c->counted_session && a->sessions)
                a->sessions--;
            sweep__addr_put(&s->group->addrs, a);
        }
        sweep__group_unlock(s);
        __atomic_sub_fetch(&s->group->conns, 1, __ATOMIC_RELAXED);
    }
    if (c->prev)
        c->prev->next = c->next;
    else if (s->conns == c)
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    s->conn_count--;
    sweep__log(SWEEP_LOG_DEBUG, "conn_close", "peer=%s", c->peer);
    buf_resize(c, &c->in, &c->in_cap, 0);
    buf_resize(c, &c->flight, &c->flight_cap, 0);
    buf_resize(c, &c->queue, &c->queue_cap, 0);
    unhold(c);
    mem_count(s, 0, c->mem);
    free(c);
}

static int uncork(sweep__conn *c);
static int write_now(sweep__conn *c, const uint8_t *data, size_t len, int final);

void sweep__conn_close(sweep__conn *c)
{
    if (c->state == SWEEP__CONN_CLOSING)
        return;
    uncount_handshake(c);
    c->state = SWEEP__CONN_CLOSING;
    /* Answers queued behind a write that failed or is cancelled now never
     * leave: they must not look pending (the invariants, on_write); nor
     * do those corked. */
    c->queue_len = 0;
    if (c->server->corked == c)
        c->server->cork_len = 0;
    uv_close((uv_handle_t *)&c->handle, on_close);
}

/* Why the connection's session ends, for its session_close line; the
 * first reason given stands. */
static void conn_reason(sweep__conn *c, const char *why)
{
    if (c->session && !c->session->close_reason)
        c->session->close_reason = why;
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    (void)status;
    sweep__conn_close(req->data);
}

/* Shuts the write side down after the writes issued so far. */
static void ask_shutdown(sweep__conn *c)
{
    c->shutdown_asked = 1;
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->handle, on_shutdown) != 0)
        sweep__conn_close(c);
}

/* A connection's deadline the housekeeping must not sleep through. */
static void conn_due(sweep_server *s, uint64_t deadline_ns)
{
    if (deadline_ns < s->conn_due_ns)
        s->conn_due_ns = deadline_ns;
}

void sweep__conn_drain(sweep__conn *c)
{
    if (c->state != SWEEP__CONN_OPEN)
        return;
    /* What was answered before the drain leaves before its shutdown. */
    if (uncork(c) != 0)
        return;
    uncount_handshake(c);
    c->state = SWEEP__CONN_DRAINING;
    c->drain_deadline_ns = uv_hrtime() + (uint64_t)(c->server->opt.drain_timeout * 1e9);
    conn_due(c->server, c->drain_deadline_ns);
    uv_read_stop((uv_stream_t *)&c->handle);
    /* A shutdown waits for the writes issued, not for answers still in the
     * queue: with a queue, on_write asks for it once the queue is issued. */
    if (c->queue_len == 0)
        ask_shutdown(c);
}

static void on_listen(uv_poll_t *h, int status, int events);

void sweep__conns_check_drain(sweep_server *s, uint64_t now_ns)
{
    uint64_t now_ms = uv_now(&s->loop);
    uint64_t idle_ms = (uint64_t)(s->opt.idle_timeout * 1e3);
    if (now_ns < s->conn_due_ns && now_ms < s->conn_idle_due_ms)
        goto polling;
    /* What this walk leaves is due no sooner than the deadlines it finds;
     * a connection that is accepted or starts draining after it lowers
     * conn_due_ns itself, and one that reads later has a later idle
     * deadline than any found here. */
    s->conn_due_ns = UINT64_MAX;
    s->conn_idle_due_ms = idle_ms ? now_ms + idle_ms : UINT64_MAX;
    sweep__conn *next;
    for (sweep__conn *c = s->conns; c; c = next) {
        next = c->next;
        if (c->state == SWEEP__CONN_DRAINING && now_ns >= c->drain_deadline_ns) {
            sweep__log(SWEEP_LOG_INFO, "conn_drain_timeout", "peer=%s pending=%zu", c->peer,
                       c->flight_len + c->queue_len);
            conn_reason(c, "drain timeout");
            sweep__conn_close(c);
        } else if (c->state == SWEEP__CONN_OPEN && !c->session && now_ns >= c->hello_deadline_ns) {
            /* Without this, connections that never say Hello would hold
             * the slots every real client needs, for ever. */
            sweep__log(SWEEP_LOG_INFO, "conn_no_hello", "peer=%s", c->peer);
            sweep__peer p = {.tcp = 1, .conn = c, .session = NULL, .budget = SIZE_MAX};
            sweep__send_error(s, &p, SWEEP_WIRE_NOT_WELCOMED, 0, 0, "no Hello within %g s: closing",
                              s->opt.handshake_timeout);
            sweep__conn_drain(c);
        } else if (c->state == SWEEP__CONN_OPEN && c->session && idle_ms && now_ms - c->last_read_ms >= idle_ms) {
            /* A session that sends nothing holds a slot, entities and a
             * place in every tick; it ends as a session closed by its
             * client would (a CLOSE in the session log). */
            sweep__session *ss = c->session;
            sweep__log(SWEEP_LOG_INFO, "session_idle", "session=%llu peer=%s", (unsigned long long)ss->id, c->peer);
            sweep__peer p = sweep__session_peer(ss);
            sweep__send_bye(s, &p, "idle timeout");
            ss->close_reason = "idle timeout";
            sweep__conn_drain(c);
        } else if (c->state == SWEEP__CONN_DRAINING) {
            conn_due(s, c->drain_deadline_ns);
        } else if (c->state == SWEEP__CONN_OPEN && !c->session) {
            conn_due(s, c->hello_deadline_ns);
        } else if (c->state == SWEEP__CONN_OPEN && idle_ms && c->last_read_ms + idle_ms < s->conn_idle_due_ms) {
            s->conn_idle_due_ms = c->last_read_ms + idle_ms;
        }
    }
polling:
    /* Accepting paused for lack of memory or descriptors starts again. */
    if (s->tcp_polling == 2 && !s->stopping && uv_poll_start(&s->tcp, UV_READABLE, on_listen) == 0)
        s->tcp_polling = 1;
}

/* --- Writing ----------------------------------------------------------- */

static void on_write(uv_write_t *req, int status);

/* Issues the flight buffer as the one write in flight. */
static int start_write(sweep__conn *c)
{
    uv_buf_t b = uv_buf_init((char *)c->flight, (unsigned)c->flight_len);
    c->write_req.data = c;
    if (uv_write(&c->write_req, (uv_stream_t *)&c->handle, &b, 1, on_write) != 0) {
        sweep__conn_close(c);
        return -1;
    }
    c->writing = 1;
    return 0;
}

static void on_write(uv_write_t *req, int status)
{
    sweep__conn *c = req->data;
    c->writing = 0;
    c->flight_len = 0;
    if (c->state == SWEEP__CONN_CLOSING)
        return; /* on_close frees the buffers */
    if (status < 0) {
        conn_reason(c, "write error");
        sweep__conn_close(c);
        return;
    }
    /* The queue becomes the write in flight, the emptied buffer the queue
     * (kept if small, for the next backlog). */
    uint8_t *b = c->flight;
    size_t cap = c->flight_cap;
    c->flight = c->queue;
    c->flight_cap = c->queue_cap;
    c->flight_len = c->queue_len;
    c->queue = b;
    c->queue_cap = cap;
    c->queue_len = 0;
    if (c->queue_cap > SWEEP__OUT_KEEP)
        buf_resize(c, &c->queue, &c->queue_cap, 0);
    if (c->flight_len) {
        if (start_write(c) != 0)
            return;
    } else if (c->flight_cap > SWEEP__OUT_KEEP) {
        buf_resize(c, &c->flight, &c->flight_cap, 0);
    }
    if (c->state == SWEEP__CONN_DRAINING && !c->shutdown_asked)
        ask_shutdown(c);
}

/* The slow-reader exit: one last Error past the cap, then drain. */
static void drop_slow_reader(sweep__conn *c, size_t wanted, int global)
{
    conn_reason(c, "slow reader");
    sweep_server *s = c->server;
    char text[300];
    uint8_t buf[512];
    const uint8_t *out;
    size_t len;
    size_t held = c->flight_cap + c->queue_cap;
    sweep__log(SWEEP_LOG_WARN, "slow_reader", "peer=%s held=%zu pending=%zu max_write_queue=%u conn_mem=%zu%s",
               c->peer, held, c->flight_len + c->queue_len, s->opt.max_write_queue, s->conn_mem,
               global ? " limit=max-memory" : "");
    if (global)
        snprintf(text, sizeof text,
                 "answers waiting for this client hold %zu bytes, and %zu more would pass the memory limit of "
                 "all connections (--max-memory %zu MiB): the client does not read; disconnecting",
                 held, wanted, s->max_memory >> 20);
    else
        snprintf(text, sizeof text,
                 "answers waiting for this client hold %zu bytes, and %zu more would pass the write "
                 "queue limit of %u bytes: the client does not read; disconnecting",
                 held, wanted, s->opt.max_write_queue);
    sweep_message m = sweep_msg_error_of(SWEEP_WIRE_SLOW_READER, 0, 0, 0, text);
    sweep__stats_error(&s->stats, SWEEP_WIRE_SLOW_READER);
    if (sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len) == SWEEP_PROTO_OK)
        sweep__conn_write(c, out, len, 1);
    sweep__conn_drain(c);
}

/* Room for len more bytes in the buffer (*buf, *cap) holding used bytes,
 * beside the other answer buffer of `other` bytes: 0, or -1 after the
 * connection was dropped as a slow reader (or closed, out of memory). A
 * final write (the slow reader's Error) may pass the caps. */
static int out_reserve(sweep__conn *c, uint8_t **buf, size_t *cap, size_t used, size_t other, size_t len,
                       int final)
{
    sweep_server *s = c->server;
    size_t need = used + len;
    if (need <= *cap)
        return 0;
    /* The final Error gets just its room: past the cap by its own size. */
    size_t ncap = final ? need : *cap ? *cap : SWEEP__OUT_KEEP;
    while (ncap < need)
        ncap *= 2;
    if (!final) {
        size_t limit = s->opt.max_write_queue > other ? s->opt.max_write_queue - other : 0;
        if (need > limit) {
            drop_slow_reader(c, len, 0);
            return -1;
        }
        if (ncap > limit)
            ncap = limit;
        if (!mem_allows(s, ncap - *cap))
            ncap = need;
        if (!mem_allows(s, ncap - *cap)) {
            drop_slow_reader(c, len, 1);
            return -1;
        }
    }
    if (buf_resize(c, buf, cap, ncap) != 0) {
        sweep__log(SWEEP_LOG_ERROR, "conn_out_of_memory", "peer=%s bytes=%zu", c->peer, ncap);
        sweep__conn_close(c);
        return -1;
    }
    return 0;
}

/* The corked answers of c (sweep__conn_write) to its socket, by the
 * ordinary path; c stays corked. 0, or -1 if the connection failed. */
static int uncork(sweep__conn *c)
{
    sweep_server *s = c->server;
    size_t n = s->cork_len;
    if (s->corked != c || n == 0)
        return 0;
    s->cork_len = 0;
    return write_now(c, s->cork_buf, n, 0);
}

int sweep__conn_write(sweep__conn *c, const uint8_t *data, size_t len, int final)
{
    sweep_server *s = c->server;
    if (s->corked == c && c->state == SWEEP__CONN_OPEN && !final) {
        /* While a read's frames are consumed, answers gather in the cork
         * buffer; one that would overfill it sends the gathered ones
         * first. Only what the ordinary path holds counts against the
         * write queue's limit, as before. */
        if (len <= sizeof s->cork_buf - s->cork_len) {
            memcpy(s->cork_buf + s->cork_len, data, len);
            s->cork_len += len;
            return 0;
        }
        if (uncork(c) != 0)
            return -1;
    } else if (s->corked == c && uncork(c) != 0) {
        return -1;
    }
    return write_now(c, data, len, final);
}

static int write_now(sweep__conn *c, const uint8_t *data, size_t len, int final)
{
    if (c->state != SWEEP__CONN_OPEN)
        return -1;
    if (c->writing) {
        /* Behind the write in flight: appended to the queue. */
        if (out_reserve(c, &c->queue, &c->queue_cap, c->queue_len, c->flight_cap, len, final) != 0)
            return -1;
        memcpy(c->queue + c->queue_len, data, len);
        c->queue_len += len;
        c->server->stats.bytes_out[SWEEP__TCP] += len;
        return 0;
    }
    /* Nothing in flight: straight to the socket, the rest into the flight
     * buffer. */
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
    int r = uv_try_write((uv_stream_t *)&c->handle, &b, 1);
    if (r > 0) {
        c->server->stats.bytes_out[SWEEP__TCP] += (size_t)r;
        data += r;
        len -= (size_t)r;
    } else if (r != UV_EAGAIN && r != UV_ENOSYS) {
        conn_reason(c, "write error");
        sweep__conn_close(c);
        return -1;
    }
    if (len == 0)
        return 0;
    if (out_reserve(c, &c->flight, &c->flight_cap, 0, c->queue_cap, len, final) != 0)
        return -1;
    memcpy(c->flight, data, len);
    c->flight_len = len;
    c->server->stats.bytes_out[SWEEP__TCP] += len;
    return start_write(c);
}

/* --- Reading ----------------------------------------------------------- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    sweep__conn *c = h->data;
    /* One shared buffer: the read callback consumes it before the next alloc. */
    *buf = uv_buf_init((char *)c->server->read_buf, sizeof c->server->read_buf);
}

/* The body size a frame prefix announces. */
static uint32_t announced(const uint8_t *h)
{
    return (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
}

static void frame_too_large(sweep__conn *c, const uint8_t *prefix)
{
    sweep_server *s = c->server;
    sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
    sweep__send_error(s, &p, SWEEP_WIRE_FRAME_TOO_LARGE, 0, 0,
                      "a frame announces %u bytes; at most %u are accepted; closing the connection", announced(prefix),
                      s->opt.max_frame);
    sweep__conn_drain(c);
}

/* Appends n bytes of an incomplete frame to c->in, growing it with what
 * has arrived (doubling, never past the frame's declared size): 0, or -1
 * after the connection was ended for lack of memory. */
static int keep(sweep__conn *c, const uint8_t *data, size_t n)
{
    sweep_server *s = c->server;
    size_t need = c->in_len + n;
    if (need > c->in_cap) {
        size_t whole = SWEEP_FRAME_PREFIX + (size_t)s->opt.max_frame;
        if (c->in_len + n >= SWEEP_FRAME_PREFIX) {
            uint8_t h[SWEEP_FRAME_PREFIX];
            for (size_t i = 0; i < SWEEP_FRAME_PREFIX; i++)
                h[i] = i < c->in_len ? c->in[i] : data[i - c->in_len];
            whole = SWEEP_FRAME_PREFIX + (size_t)announced(h);
        }
        size_t ncap = c->in_cap ? c->in_cap : SWEEP__IN_MIN;
        while (ncap < need)
            ncap *= 2;
        if (ncap > whole)
            ncap = whole > need ? whole : need;
        if (!mem_allows(s, ncap - c->in_cap))
            ncap = need;
        int ok = mem_allows(s, ncap - c->in_cap);
        if (!ok || buf_resize(c, &c->in, &c->in_cap, ncap) != 0) {
            sweep__log(SWEEP_LOG_WARN, "conn_out_of_memory", "peer=%s frame=%zu conn_mem=%zu max_memory=%zu",
                       c->peer, whole, s->conn_mem, s->max_memory);
            sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
            sweep__send_error(s, &p, SWEEP_WIRE_INTERNAL, 0, 0,
                              "no memory for a frame of %zu bytes (%s); closing the connection", whole,
                              ok ? "out of memory" : "the connections hold --max-memory");
            sweep__conn_drain(c);
            return -1;
        }
    }
    memcpy(c->in + c->in_len, data, n);
    c->in_len += n;
    return 0;
}

/* A request before Hello: may it be answered? (SWEEP__EARLY_RATE) */
static int early_allowed(sweep__conn *c, const uint8_t *frame, size_t len)
{
    uint64_t now = uv_hrtime();
    if (sweep__bucket_take(&c->early, 1.0, now))
        return 1;
    if (!c->early_notice_ns || now - c->early_notice_ns >= 1000000000u) {
        c->early_notice_ns = now;
        sweep_msg_kind kind;
        uint32_t seq = 0;
        if (sweep_decode_kind(frame, len, SWEEP_WIRE_SIZE_PREFIXED, &kind, &seq) != SWEEP_PROTO_OK)
            seq = 0;
        sweep__peer p = {.tcp = 1, .conn = c, .session = NULL, .budget = SIZE_MAX};
        sweep__send_error(c->server, &p, SWEEP_WIRE_RATE_LIMITED, seq, 0,
                          "before Hello a connection may send %g requests a second: this one and the others "
                          "beyond it in the next second are dropped unanswered",
                          SWEEP__EARLY_RATE);
    }
    return 0;
}

/* One whole frame (prefix included) of connection c. */
static void frame(sweep__conn *c, const uint8_t *data, size_t len)
{
    sweep_server *s = c->server;
    sweep__peer p = {.tcp = 1, .conn = c, .session = c->session, .budget = SIZE_MAX};
    if (c->session) {
        sweep__dispatch(s, &p, data, len, SWEEP_WIRE_SIZE_PREFIXED);
        return;
    }
    if (!early_allowed(c, data, len))
        return;
    /* A Hello needs room among its address's sessions; checked here, where
     * the address is known, so the other transports' Hellos stay as they
     * are (UDP checks its own in udp.c). */
    sweep_msg_kind kind;
    uint32_t seq;
    if (sweep_decode_kind(data, len, SWEEP_WIRE_SIZE_PREFIXED, &kind, &seq) == SWEEP_PROTO_OK &&
        kind == SWEEP_MSG_HELLO && !session_allowed(s, &p, &c->addr, seq)) {
        sweep__conn_drain(c);
        return;
    }
    sweep__dispatch(s, &p, data, len, SWEEP_WIRE_SIZE_PREFIXED);
    if (c->session)
        count_session(c);
    /* Another thread's world: its thread takes this Hello again, and its
     * token from the bucket the handover carries; paid here too, it would
     * cost twice what the rate before a session says. */
    if (c->handover_to)
        sweep__bucket_give_back(&c->early, 1.0);
}

/* The connection's Hello named another thread's world (sweep__hello set
 * handover_to): the socket and the bytes from that Hello on (a, then b)
 * go to that thread, which answers the Hello; this thread forgets the
 * connection without uncounting it (the new owner keeps its counts). */
static void hand_over(sweep__conn *c, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    sweep_server *s = c->server;
    unsigned to = c->handover_to - 1;
    c->handover_to = 0;
    uv_os_fd_t fd;
    int nfd = -1;
    struct sockaddr_storage sa;
    int sl = sizeof sa;
    /* Answers still pending here (a client that did not read before its
     * Hello) could not be ordered before the new owner's: refused. */
    int ok = !c->writing && c->flight_len == 0 && c->queue_len == 0 &&
             uv_fileno((const uv_handle_t *)&c->handle, &fd) == 0 &&
             uv_tcp_getpeername(&c->handle, (struct sockaddr *)&sa, &sl) == 0 &&
             (nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0;
    if (ok && sweep__handoff_conn(s, to, nfd, (const struct sockaddr *)&sa, a, alen, b, blen, c->hello_deadline_ns,
                                  &c->early) == 0) {
        sweep__log(SWEEP_LOG_DEBUG, "conn_handover", "peer=%s thread=%u", c->peer, to);
        c->handed_over = 1;
        c->counted_handshake = 0; /* the new owner's now */
        uv_read_stop((uv_stream_t *)&c->handle);
        sweep__conn_close(c);
        return;
    }
    if (nfd >= 0)
        close(nfd);
    sweep__log(SWEEP_LOG_WARN, "conn_handover_failed", "peer=%s thread=%u", c->peer, to);
    sweep__peer p = {.tcp = 1, .conn = c, .session = NULL, .budget = SIZE_MAX};
    sweep__send_error(s, &p, SWEEP_WIRE_INTERNAL, 0, 0,
                      "the connection could not be passed to the thread of its world; try again");
    sweep__conn_drain(c);
}

static void consume_frames(sweep__conn *c, const uint8_t *data, size_t left);

/* Frames out of `left` bytes just read (or handed over). A session's
 * answers to them leave together once they are consumed (a game server's
 * tick of MoveBatches: one write, and one wake of its reader, instead of
 * one a batch); before a session (a Hello may hand the connection to
 * another thread, with nothing of it pending here) each leaves at once. */
static void consume(sweep__conn *c, const uint8_t *data, size_t left)
{
    sweep_server *s = c->server;
    if (!c->session || s->corked) {
        consume_frames(c, data, left);
        return;
    }
    s->corked = c;
    s->cork_len = 0;
    consume_frames(c, data, left);
    if (c->state == SWEEP__CONN_OPEN)
        uncork(c);
    s->corked = NULL;
    s->cork_len = 0;
}

static void consume_frames(sweep__conn *c, const uint8_t *data, size_t left)
{
    sweep_server *s = c->server;
    while (left > 0 && c->state == SWEEP__CONN_OPEN) {
        size_t flen;
        sweep_frame_status fs;
        if (c->in_len == 0) {
            /* Whole frames are dispatched where they lie, a share a turn. */
            fs = sweep_frame_peek(data, left, s->opt.max_frame, &flen);
            if (fs == SWEEP_FRAME_READY) {
                if (turn_spent(c)) {
                    hold(c, data, left);
                    return;
                }
                frame(c, data, flen);
                if (c->handover_to) {
                    hand_over(c, data, left, NULL, 0);
                    return;
                }
                data += flen;
                left -= flen;
                continue;
            }
            if (fs == SWEEP_FRAME_TOO_LARGE) {
                frame_too_large(c, data);
                return;
            }
            keep(c, data, left);
            return;
        }
        /* The rest of a frame begun in an earlier read: its prefix first,
         * then as much of its body as this read holds. */
        size_t want = c->in_len < SWEEP_FRAME_PREFIX ? SWEEP_FRAME_PREFIX - c->in_len
                                                     : SWEEP_FRAME_PREFIX + (size_t)announced(c->in) - c->in_len;
        size_t take = want < left ? want : left;
        if (keep(c, data, take) != 0)
            return;
        data += take;
        left -= take;
        fs = sweep_frame_peek(c->in, c->in_len, s->opt.max_frame, &flen);
        if (fs == SWEEP_FRAME_TOO_LARGE) {
            frame_too_large(c, c->in);
            return;
        }
        if (fs == SWEEP_FRAME_READY) {
            frame(c, c->in, flen);
            if (c->handover_to) {
                hand_over(c, c->in, flen, data, left);
                return;
            }
            c->in_len = 0;
            buf_resize(c, &c->in, &c->in_cap, 0);
        }
    }
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    sweep__conn *c = st->data;
    sweep_server *s = c->server;
    if (nread == 0)
        return;
    if (nread < 0) {
        if (nread == UV_EOF) {
            conn_reason(c, "client closed");
            if (c->in_len)
                sweep__log(SWEEP_LOG_INFO, "conn_eof_mid_frame", "peer=%s buffered=%zu", c->peer, c->in_len);
            sweep__conn_drain(c);
        } else {
            sweep__log(SWEEP_LOG_DEBUG, "conn_read_error", "peer=%s error=%s", c->peer, uv_err_name((int)nread));
            conn_reason(c, "read error");
            sweep__conn_close(c);
        }
        return;
    }
    s->stats.bytes_in[SWEEP__TCP] += (size_t)nread;
    c->last_read_ms = uv_now(&s->loop);
    consume(c, (const uint8_t *)buf->base, (size_t)nread);
}

/* --- Accepting --------------------------------------------------------- */

/* Refuses a connection without keeping anything for it: an Error (if the
 * socket takes it at once), then close. What the client already sent is
 * read first, so the close is a FIN and not a reset, which could discard
 * the Error before the client reads it. */
static void refuse(sweep_server *s, int fd, const char *peer, const char *reason, sweep_wire_code code,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void refuse(sweep_server *s, int fd, const char *peer, const char *reason, sweep_wire_code code,
                   const char *fmt, ...)
{
    char text[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sweep_message m = sweep_msg_error_of(code, 0, 0, 0, text);
    uint8_t buf[512];
    const uint8_t *out;
    size_t len;
    if (sweep_encode(&m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len) == SWEEP_PROTO_OK &&
        send(fd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len) {
        sweep__stats_error(&s->stats, code);
        s->stats.bytes_out[SWEEP__TCP] += len;
    }
    (void)!recv(fd, s->read_buf, sizeof s->read_buf, MSG_DONTWAIT);
    close(fd);
    s->refused_total++;
    /* At most 10 lines a second: a flood of connects must not become a
     * flood of log lines. */
    if (sweep__bucket_take(&s->refuse_log, 1.0, uv_hrtime())) {
        sweep__log(SWEEP_LOG_WARN, "conn_refused", "peer=%s reason=%s connections=%u sessions=%u suppressed=%llu",
                   peer, reason, __atomic_load_n(&s->group->conns, __ATOMIC_RELAXED), sweep__sessions_open(s),
                   (unsigned long long)s->refuse_log_suppressed);
        s->refuse_log_suppressed = 0;
    } else {
        s->refuse_log_suppressed++;
    }
}

/* Serves an accepted socket whose counts (its address's conns and
 * handshakes, the group's conns) are taken already: `from` is the
 * handover that brought it (what it sent that another thread read, its
 * Hello's deadline and its pre-Hello bucket, which it keeps), NULL for a
 * new one. */
static void serve(sweep_server *s, int fd, const sweep__addr_key *key, const char *peer, const sweep__handoff *from)
{
    sweep__conn *c = sweep__calloc(1, sizeof *c);
    if (!c) {
        sweep__conn_uncount(s, key);
        if (from) {
            sweep__log(SWEEP_LOG_ERROR, "conn_out_of_memory", "peer=%s", peer);
            close(fd);
        } else {
            refuse(s, fd, peer, "out_of_memory", SWEEP_WIRE_INTERNAL, "the server is out of memory: try again later");
        }
        return;
    }
    c->server = s;
    c->addr = *key;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    c->mem = sizeof *c;
    mem_count(s, c->mem, 0);
    c->counted_handshake = 1;
    uv_tcp_init(&s->loop, &c->handle);
    c->handle.data = c;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    s->conn_count++;
    uint64_t now = uv_hrtime();
    c->hello_deadline_ns = from ? from->hello_deadline_ns : now + (uint64_t)(s->opt.handshake_timeout * 1e9);
    conn_due(s, c->hello_deadline_ns);
    c->last_read_ms = uv_now(&s->loop);
    if (from)
        c->early = from->early;
    else
        sweep__bucket_init(&c->early, SWEEP__EARLY_RATE, now);
    if (uv_tcp_open(&c->handle, fd) != 0) {
        close(fd);
        sweep__conn_close(c);
        return;
    }
    uv_tcp_nodelay(&c->handle, 1);
    sweep__log(SWEEP_LOG_DEBUG, "conn_open", "peer=%s", c->peer);
    if (from)
        consume(c, from->bytes, from->len);
    /* Bytes handed over past a turn's share are held: reading starts when
     * they are served (on_turn_resume), not before, or what comes next
     * would be handled ahead of them. */
    if (c->state == SWEEP__CONN_OPEN && !c->waiting &&
        uv_read_start((uv_stream_t *)&c->handle, on_alloc, on_read) != 0)
        sweep__conn_close(c);
}

/* Judges an accepted socket, and serves or refuses it. The per-address
 * counts are checked and taken in one hold of the group's lock, and the
 * connection cap by an atomic reservation, so no two threads admit past
 * either; --max-sessions is only read here (the Hello takes the slot). */
static void admit(sweep_server *s, int fd, const struct sockaddr *sa)
{
    char peer[64];
    sweep__addr_text(sa, peer, sizeof peer);
    sweep__addr_key key;
    if (s->stopping || sweep__addr_key_of(sa, &key) != 0) {
        close(fd);
        return;
    }
    char at[64];
    sweep__addr_key_text(&key, at, sizeof at);
    const sweep_server_options *o = &s->opt;
    sweep__group *g = s->group;
    sweep__group_lock(s);
    sweep__addr_count *a = sweep__addr_find(&g->addrs, &key);
    uint32_t conns = a ? a->conns : 0, hs = a ? a->handshakes : 0, sessions = a ? a->sessions : 0;
    const char *reason = NULL;
    if (conns >= o->max_conns_per_address)
        reason = "conns_per_address";
    else if (hs >= o->max_handshakes_per_address)
        reason = "handshakes_per_address";
    else if (sessions >= o->max_sessions_per_address)
        reason = "sessions_per_address";
    else if (sweep__sessions_open(s) >= o->max_sessions)
        reason = "max_sessions";
    else if (__atomic_fetch_add(&g->conns, 1, __ATOMIC_RELAXED) >= o->max_sessions + SWEEP__HANDSHAKE_MARGIN) {
        __atomic_fetch_sub(&g->conns, 1, __ATOMIC_RELAXED);
        reason = "max_connections";
    } else if (!mem_allows(s, sizeof(sweep__conn) + s->max_memory / 8)) {
        /* The last eighth of --max-memory is for the buffers of the
         * connections already served to grow into. */
        __atomic_fetch_sub(&g->conns, 1, __ATOMIC_RELAXED);
        reason = "max_memory";
    } else if (!(a = sweep__addr_get(&g->addrs, &key))) {
        __atomic_fetch_sub(&g->conns, 1, __ATOMIC_RELAXED);
        reason = "out_of_memory";
    } else {
        a->conns++;
        a->handshakes++;
    }
    sweep__group_unlock(s);
    if (!reason) {
        serve(s, fd, &key, peer, NULL);
        return;
    }
    if (strcmp(reason, "conns_per_address") == 0)
        refuse(s, fd, peer, reason, SWEEP_WIRE_TOO_MANY_SESSIONS,
               "%s has %u connections open: at most %u per address (--max-conns-per-address)", at, conns,
               o->max_conns_per_address);
    else if (strcmp(reason, "handshakes_per_address") == 0)
        refuse(s, fd, peer, reason, SWEEP_WIRE_TOO_MANY_SESSIONS,
               "%s has %u connections that have not said Hello: at most %u per address "
               "(--max-handshakes-per-address)",
               at, hs, o->max_handshakes_per_address);
    else if (strcmp(reason, "sessions_per_address") == 0)
        refuse(s, fd, peer, reason, SWEEP_WIRE_TOO_MANY_SESSIONS,
               "%s already has %u sessions: at most %u per address (--max-sessions-per-address)", at, sessions,
               o->max_sessions_per_address);
    else if (strcmp(reason, "max_sessions") == 0)
        refuse(s, fd, peer, reason, SWEEP_WIRE_TOO_MANY_SESSIONS,
               "the server already has its maximum of %u sessions (--max-sessions)", o->max_sessions);
    else if (strcmp(reason, "max_connections") == 0)
        refuse(s, fd, peer, reason, SWEEP_WIRE_TOO_MANY_SESSIONS,
               "the server already has its maximum of %u connections (--max-sessions + %u)",
               o->max_sessions + SWEEP__HANDSHAKE_MARGIN, SWEEP__HANDSHAKE_MARGIN);
    else if (strcmp(reason, "max_memory") == 0)
        refuse(s, fd, peer, reason, SWEEP_WIRE_TOO_MANY_SESSIONS,
               "the connections hold %zu KiB of the %zu MiB they may (--max-memory): try again later",
               __atomic_load_n(&g->conn_mem, __ATOMIC_RELAXED) >> 10, s->max_memory >> 20);
    else
        refuse(s, fd, peer, reason, SWEEP_WIRE_INTERNAL, "the server is out of memory: try again later");
}

void sweep__conn_uncount(sweep_server *s, const sweep__addr_key *key)
{
    sweep__group_lock(s);
    sweep__addr_count *a = sweep__addr_find(&s->group->addrs, key);
    if (a) {
        if (a->conns)
            a->conns--;
        if (a->handshakes)
            a->handshakes--;
        sweep__addr_put(&s->group->addrs, a);
    }
    sweep__group_unlock(s);
    __atomic_sub_fetch(&s->group->conns, 1, __ATOMIC_RELAXED);
}

void sweep__conn_refuse_handoff(sweep_server *s, const sweep__handoff *h)
{
    sweep__addr_key key;
    if (sweep__addr_key_of((const struct sockaddr *)&h->addr, &key) == 0)
        sweep__conn_uncount(s, &key);
    close(h->fd);
}

void sweep__conn_adopt(sweep_server *s, const sweep__handoff *h)
{
    sweep__addr_key key;
    if (s->stopping || sweep__addr_key_of((const struct sockaddr *)&h->addr, &key) != 0) {
        sweep__conn_refuse_handoff(s, h);
        return;
    }
    char peer[64];
    sweep__addr_text((const struct sockaddr *)&h->addr, peer, sizeof peer);
    serve(s, h->fd, &key, peer, h);
}

/* Stops polling the listener until the next housekeeping tick: an error
 * that would repeat at once (no memory, no descriptors) must not spin. */
static void pause_accepting(sweep_server *s, const char *why)
{
    if (s->tcp_polling == 1 && uv_poll_stop(&s->tcp) == 0)
        s->tcp_polling = 2;
    if (sweep__bucket_take(&s->refuse_log, 1.0, uv_hrtime()))
        sweep__log(SWEEP_LOG_WARN, "accept_paused", "error=%s connections=%u", why, s->conn_count);
}

static void on_listen(uv_poll_t *h, int status, int events)
{
    (void)events;
    sweep_server *s = h->data;
    if (status < 0) {
        pause_accepting(s, uv_err_name(status));
        return;
    }
    for (int i = 0; i < SWEEP__ACCEPT_BATCH && s->tcp_open; i++) {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        int fd = accept4(s->tcp_fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            admit(s, fd, (const struct sockaddr *)&sa);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        if ((errno == EMFILE || errno == ENFILE) && s->spare_fd >= 0) {
            /* Out of descriptors: the spare one lets the server take the
             * waiting connection off the queue and refuse it, instead of
             * leaving it (and every later one) hanging. */
            close(s->spare_fd);
            sl = sizeof sa;
            fd = accept4(s->tcp_fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd >= 0) {
                char peer[64];
                sweep__addr_text((const struct sockaddr *)&sa, peer, sizeof peer);
                refuse(s, fd, peer, "out_of_descriptors", SWEEP_WIRE_TOO_MANY_SESSIONS,
                       "the server has no descriptor left for a connection: try again later");
            }
            s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (s->spare_fd < 0) {
                pause_accepting(s, "EMFILE");
                return;
            }
            continue;
        }
        pause_accepting(s, strerror(errno));
        return;
    }
}

int sweep__tcp_start(sweep_server *s, char *err, size_t errlen)
{
    /* --max-memory 0: a quarter of what this machine (or its cgroup) has. */
    uint64_t total = uv_get_total_memory(), limit = uv_get_constrained_memory();
    if (limit && (!total || limit < total))
        total = limit;
    uint64_t mem = s->opt.max_memory_mb ? (uint64_t)s->opt.max_memory_mb << 20 : total / 4;
    if (!s->opt.max_memory_mb && mem < (64u << 20))
        mem = 64u << 20;
    s->max_memory = mem > SIZE_MAX ? SIZE_MAX : (size_t)mem;
    sweep__bucket_init(&s->refuse_log, 10.0, uv_hrtime());
    s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    s->tcp_started = 1;
    /* Neither is a reason for the loop to go on: unreferenced. */
    uv_prepare_init(&s->loop, &s->turn_count);
    uv_idle_init(&s->loop, &s->turn_resume);
    s->turn_count.data = s->turn_resume.data = s;
    uv_unref((uv_handle_t *)&s->turn_count);
    uv_unref((uv_handle_t *)&s->turn_resume);
    uv_prepare_start(&s->turn_count, on_turn_count);
    s->turns_open = 1;
    if (listen(s->tcp_fd, SWEEP__LISTEN_BACKLOG) != 0) {
        snprintf(err, errlen, "listen: %s", strerror(errno));
        return -1;
    }
    int r = uv_poll_init_socket(&s->loop, &s->tcp, s->tcp_fd);
    if (r == 0) {
        s->tcp.data = s;
        s->tcp_polling = 1;
        r = uv_poll_start(&s->tcp, UV_READABLE, on_listen);
    }
    if (r != 0) {
        snprintf(err, errlen, "listen: %s", uv_strerror(r));
        return -1;
    }
    sweep__log(SWEEP_LOG_INFO, "limits",
               "max_sessions=%u max_connections=%u max_conns_per_address=%u max_handshakes_per_address=%u "
               "max_sessions_per_address=%u max_memory_mb=%zu max_write_queue=%u max_frame=%u "
               "handshake_timeout=%g idle_timeout=%g",
               s->opt.max_sessions, s->opt.max_sessions + SWEEP__HANDSHAKE_MARGIN, s->opt.max_conns_per_address,
               s->opt.max_handshakes_per_address, s->opt.max_sessions_per_address, s->max_memory >> 20,
               s->opt.max_write_queue, s->opt.max_frame, s->opt.handshake_timeout, s->opt.idle_timeout);
    return 0;
}

void sweep__tcp_stop(sweep_server *s)
{
    if (s->turns_open) {
        uv_close((uv_handle_t *)&s->turn_count, NULL);
        uv_close((uv_handle_t *)&s->turn_resume, NULL);
        s->turns_open = 0;
    }
    if (s->tcp_polling) {
        /* uv_close stops the poll at once, so the socket may go now. */
        uv_close((uv_handle_t *)&s->tcp, NULL);
        s->tcp_polling = 0;
    }
    if (s->tcp_open) {
        close(s->tcp_fd);
        s->tcp_open = 0;
    }
}

void sweep__tcp_free(sweep_server *s)
{
    if (s->tcp_started && s->spare_fd >= 0)
        close(s->spare_fd);
    s->spare_fd = -1;
}
