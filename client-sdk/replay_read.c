/*
 * replay_read.c - reading a log segment ahead of a replay (replay_read.h).
 *
 * Chunks go round three lists: free, filled (read, waiting for the
 * replay; SWEEP__REPLAY_READ_AHEAD at most) and held (taken by the
 * replay, whose records it may still look at: a request's group of
 * records can span chunks). The thread fills a chunk whole before handing
 * it over, so the replay never sees a chunk being written.
 */
#include "client-sdk/replay_read.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/decode_checked.h"

typedef struct chunk {
    struct chunk *next;
    uint32_t count;
    int end_rc; /* after the records: 1 more follow, 0 the end, -1 err */
    char err[1200];
    /* Decoded moves and results of its records; a record's motion points
     * here once the chunk is full (the storage may move while it fills). */
    sweep_msg_move *moves;
    sweep_msg_move_result *results;
    uint32_t moves_used, moves_cap, results_used, results_cap;
    uint32_t at[SWEEP__REPLAY_READ_CHUNK]; /* where each decoded record's moves or results start */
    sweep__replay_rec recs[SWEEP__REPLAY_READ_CHUNK];
} chunk;

typedef struct list {
    chunk *head, *tail;
    uint32_t count;
} list;

typedef struct known_session {
    uint64_t id;
    int tcp;
} known_session;

struct sweep__replay_read {
    sweep_record_reader *rd;
    unsigned flags;
    int threaded;
    uint32_t per_message; /* moves or results one message may decode to ahead */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled_cv, free_cv;
    list free, filled, held;
    int stop;
    uint32_t pos; /* next record of held.tail */
    chunk *oom;   /* handed over, as the end, when a chunk cannot be had */
    uint32_t waits; /* times the replay found no chunk read */
    /* The thread's own: sessions seen (for their transport), a copy of a
     * message aligned as it was sent. */
    known_session *sessions;
    uint32_t session_count, session_cap;
    uint64_t *aligned;
    size_t aligned_cap; /* in words */
};

static void push(list *l, chunk *c)
{
    c->next = NULL;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
    l->count++;
}

static chunk *pop(list *l)
{
    chunk *c = l->head;
    if (c) {
        l->head = c->next;
        if (!l->head)
            l->tail = NULL;
        l->count--;
        c->next = NULL;
    }
    return c;
}

static void free_chunk(chunk *c)
{
    if (c) {
        free(c->moves);
        free(c->results);
        free(c);
    }
}

/* ---- the thread ------------------------------------------------------------ */

static known_session *find_known(sweep__replay_read *q, uint64_t id)
{
    for (uint32_t i = 0; i < q->session_count; i++)
        if (q->sessions[i].id == id)
            return &q->sessions[i];
    return NULL;
}

/* Keeps the transport of each session open, as the replay will know it
 * when it reaches the session's messages. Out of memory only means fewer
 * messages decoded ahead. */
static void track_session(sweep__replay_read *q, const sweep_record *x)
{
    if (x->type == SWEEP_RECORD_OPEN && !find_known(q, x->session)) {
        if (q->session_count == q->session_cap) {
            uint32_t cap = q->session_cap ? 2 * q->session_cap : 16;
            known_session *n = realloc(q->sessions, cap * sizeof *n);
            if (!n)
                return;
            q->sessions = n;
            q->session_cap = cap;
        }
        q->sessions[q->session_count++] = (known_session){x->session, x->transport == 0};
    } else if (x->type == SWEEP_RECORD_CLOSE) {
        known_session *s = find_known(q, x->session);
        if (s)
            *s = q->sessions[--q->session_count];
    }
}

/* Room for one more message's moves and results in c. */
static int make_room(sweep__replay_read *q, chunk *c)
{
    if (c->moves_cap - c->moves_used < q->per_message) {
        uint32_t cap = c->moves_cap ? 2 * c->moves_cap : 2 * q->per_message;
        while (cap - c->moves_used < q->per_message)
            cap *= 2;
        sweep_msg_move *n = realloc(c->moves, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        c->moves = n;
        c->moves_cap = cap;
    }
    if (c->results_cap - c->results_used < q->per_message) {
        uint32_t cap = c->results_cap ? 2 * c->results_cap : 2 * q->per_message;
        while (cap - c->results_used < q->per_message)
            cap *= 2;
        sweep_msg_move_result *n = realloc(c->results, (size_t)cap * sizeof *n);
        if (!n)
            return -1;
        c->results = n;
        c->results_cap = cap;
    }
    return 0;
}

/* Decodes the moves or results of an IN or OUT record of c, as the core
 * depth would (replay_core.c's decode_motion); anything it cannot, or
 * need not, is left undecoded for the replay. */
static void decode_ahead(sweep__replay_read *q, chunk *c, uint32_t i)
{
    sweep__replay_rec *x = &c->recs[i];
    x->decoded = 0;
    if (x->rec.type != SWEEP_RECORD_IN && x->rec.type != SWEEP_RECORD_OUT)
        return;
    const known_session *s = find_known(q, x->rec.session);
    if (!s || make_room(q, c) != 0)
        return;
    size_t len = x->rec.bytes.len, words = (len + 7) / 8;
    unsigned flags = s->tcp ? SWEEP_WIRE_SIZE_PREFIXED : 0;
    sweep_decoder d;
    memset(&d, 0, sizeof d);
    d.moves = c->moves + c->moves_used;
    d.moves_cap = q->per_message;
    d.results = c->results + c->results_used;
    d.results_cap = q->per_message;
    sweep_decoded_motion v;
    /* A single Move or MoveResult is read in place, bounds-checked; the
     * rest verified from an aligned copy (protocol/decode_checked.h). */
    if (sweep__decode_motion_checked(&d, x->rec.bytes.ptr, len, flags, &v) != SWEEP_PROTO_OK) {
        if (words > q->aligned_cap) {
            uint64_t *n = realloc(q->aligned, words * 8);
            if (!n)
                return;
            q->aligned = n;
            q->aligned_cap = words;
        }
        memcpy(q->aligned, x->rec.bytes.ptr, len);
        if (sweep_decode_motion(&d, q->aligned, len, flags, &v) != SWEEP_PROTO_OK ||
            (v.move_count == 0 && v.result_count == 0))
            return;
    }
    if (v.move_count) {
        c->at[i] = c->moves_used;
        c->moves_used += v.move_count;
    } else {
        c->at[i] = c->results_used;
        c->results_used += v.result_count;
    }
    x->motion = v;
    x->decoded = 1;
}

static void fill(sweep__replay_read *q, chunk *c)
{
    c->count = 0;
    c->moves_used = c->results_used = 0;
    c->end_rc = 1;
    c->err[0] = 0;
    while (c->count < SWEEP__REPLAY_READ_CHUNK) {
        sweep__replay_rec *x = &c->recs[c->count];
        int got = sweep_record_next(q->rd, &x->rec, c->err, sizeof c->err);
        if (got <= 0) {
            c->end_rc = got;
            break;
        }
        track_session(q, &x->rec);
        x->decoded = 0;
        if (q->flags & SWEEP__REPLAY_READ_DECODE)
            decode_ahead(q, c, c->count);
        c->count++;
    }
    /* The storage is where it stays now: point the motions into it. */
    for (uint32_t i = 0; i < c->count; i++) {
        sweep__replay_rec *x = &c->recs[i];
        if (!x->decoded)
            continue;
        if (x->motion.move_count)
            x->motion.moves = c->moves + c->at[i];
        else
            x->motion.results = c->results + c->at[i];
    }
}

static void *run(void *arg)
{
    sweep__replay_read *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->stop && q->filled.count >= SWEEP__REPLAY_READ_AHEAD)
            pthread_cond_wait(&q->free_cv, &q->mu);
        chunk *c = q->stop ? NULL : pop(&q->free);
        int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop)
            return NULL;
        if (!c)
            c = calloc(1, sizeof *c);
        if (c) {
            fill(q, c);
        } else {
            /* The replay is told where it would have read on, rather
             * than waiting for ever. */
            c = q->oom;
            c->end_rc = -1;
            snprintf(c->err, sizeof c->err, "out of memory reading the log ahead");
        }
        pthread_mutex_lock(&q->mu);
        push(&q->filled, c);
        pthread_cond_signal(&q->filled_cv);
        pthread_mutex_unlock(&q->mu);
        if (c->end_rc != 1)
            return NULL;
    }
}

/* ---- the replay's side ---------------------------------------------------------- */

static int cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

sweep__replay_read *sweep__replay_read_start(sweep_record_reader *rd, const sweep_record_head *h, unsigned flags)
{
    sweep__replay_read *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->rd = rd;
    q->flags = flags;
    /* A batch of the log holds at most max_batch moves, its answer as
     * many results. Room for more than 256 in every chunk would be
     * megabytes of results held ahead: a longer batch (or a corrupt
     * one) is left to the replay to decode. */
    q->per_message = h->max_batch > 0 && h->max_batch < 256u ? h->max_batch + 1u : 257u;
    q->threaded = !(flags & SWEEP__REPLAY_READ_INLINE) && cpus() > 1;
    q->oom = calloc(1, sizeof *q->oom);
    if (!q->oom) {
        free(q);
        return NULL;
    }
    if (!q->threaded) {
        /* Decoding ahead on this thread would only decode the same
         * messages earlier, into more memory. */
        q->flags &= ~SWEEP__REPLAY_READ_DECODE;
        return q;
    }
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->filled_cv, NULL);
    pthread_cond_init(&q->free_cv, NULL);
    if (pthread_create(&q->thread, NULL, run, q) != 0) {
        /* No thread to be had: read on this one. */
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->filled_cv);
        pthread_cond_destroy(&q->free_cv);
        q->threaded = 0;
        q->flags &= ~SWEEP__REPLAY_READ_DECODE;
    }
    return q;
}

int sweep__replay_read_threaded(const sweep__replay_read *q)
{
    return q->threaded;
}

uint32_t sweep__replay_read_waits(const sweep__replay_read *q)
{
    return q->waits;
}

static void stop_thread(sweep__replay_read *q)
{
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->free_cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->filled_cv);
    pthread_cond_destroy(&q->free_cv);
    q->threaded = 0;
}

/* The next chunk, filled: by the thread, or here without one. */
static chunk *take(sweep__replay_read *q)
{
    chunk *c;
    if (q->threaded) {
        pthread_mutex_lock(&q->mu);
        int starved = !q->filled.head && ++q->waits > SWEEP__REPLAY_READ_WAITS;
        if (q->flags & SWEEP__REPLAY_READ_STARVE)
            starved = q->held.count > 0; /* after its first chunk */
        pthread_mutex_unlock(&q->mu);
        if (starved) {
            /* The thread keeps missing its turn (a busy machine, or a
             * log it reads slower than the replay runs it): waking each
             * other costs more than it saves. It ends after the chunk it
             * is reading; what it read is taken first, then on this
             * thread, decoding nothing ahead. */
            stop_thread(q);
            q->flags &= ~SWEEP__REPLAY_READ_DECODE;
        }
    }
    if (!q->threaded && q->filled.head)
        return pop(&q->filled);
    if (!q->threaded) {
        c = pop(&q->free);
        if (!c)
            c = calloc(1, sizeof *c);
        if (!c) {
            c = q->oom;
            c->end_rc = -1;
            snprintf(c->err, sizeof c->err, "out of memory reading the log");
        } else {
            fill(q, c);
        }
        return c;
    }
    pthread_mutex_lock(&q->mu);
    while (!q->filled.head)
        pthread_cond_wait(&q->filled_cv, &q->mu);
    c = pop(&q->filled);
    pthread_cond_signal(&q->free_cv);
    pthread_mutex_unlock(&q->mu);
    return c;
}

const sweep__replay_rec *sweep__replay_read_next(sweep__replay_read *q, int *rc, char *err, size_t errlen)
{
    for (;;) {
        chunk *c = q->held.tail;
        if (c && q->pos < c->count) {
            *rc = 1;
            return &c->recs[q->pos++];
        }
        if (c && c->end_rc != 1) {
            if (c->end_rc < 0)
                snprintf(err, errlen, "%s", c->err);
            *rc = c->end_rc;
            return NULL;
        }
        push(&q->held, take(q));
        q->pos = 0;
    }
}

void sweep__replay_read_release(sweep__replay_read *q)
{
    if (q->held.count < 2)
        return;
    /* Only the last chunk taken can be the end (or q->oom). */
    if (q->threaded)
        pthread_mutex_lock(&q->mu);
    while (q->held.count > 1)
        push(&q->free, pop(&q->held));
    if (q->threaded)
        pthread_mutex_unlock(&q->mu);
}

void sweep__replay_read_stop(sweep__replay_read *q)
{
    if (!q)
        return;
    if (q->threaded)
        stop_thread(q);
    list *ls[3] = {&q->free, &q->filled, &q->held};
    for (int i = 0; i < 3; i++) {
        chunk *c;
        while ((c = pop(ls[i])))
            if (c != q->oom)
                free_chunk(c);
    }
    free_chunk(q->oom);
    free(q->sessions);
    free(q->aligned);
    free(q);
}
