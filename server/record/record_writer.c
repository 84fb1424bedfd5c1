/*
 * record_writer.c - the thread that writes session-log frames, so that a
 * slow or stalled disk never stalls a world's tick and the loop thread
 * pays only for copying records into memory.
 *
 * Frames go to the thread in order, each with the file it belongs to; the
 * thread fills in each frame's length and CRC-32, writes it with one
 * writev (after the segment's file header when there is one) and closes a
 * file when told. Order is all that matters for a log, and one thread
 * keeps it. The queue is bounded: past max_queued bytes the loop thread
 * waits for the disk rather than drop a frame, because a log with a gap
 * would not replay. A write that fails is kept as the first error and
 * every later frame is dropped; the recorder sees it at its next frame and
 * ends the recording.
 */
#include "server/record/record_writer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <libdeflate.h>

#include "server/world/alloc.h"
#include "server/record/record.h"

typedef struct job {
    int fd;
    int close_after;
    uint8_t pre[SWEEP_RECORD_HEADER_SIZE];
    size_t pre_len;
    uint8_t *buf; /* NULL for a close alone */
    size_t len, cap;
    struct job *next;
} job;

/* Buffers kept for reuse once written; more are freed. */
#define SPARE_BUFFERS 4

struct sweep__record_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, room;
    job *head, *tail;
    size_t queued, max_queued;
    int stopping;
    uint8_t *spare[SPARE_BUFFERS];
    size_t spare_cap[SPARE_BUFFERS];
    unsigned spare_count;
    int failed;
    char error[256];
};

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Writes pre and buf whole; errno-style text on failure. */
static int write_all(int fd, const uint8_t *pre, size_t pre_len, const uint8_t *buf, size_t len, char *err,
                     size_t errlen)
{
    struct iovec iov[2] = {{(void *)pre, pre_len}, {(void *)buf, len}};
    unsigned first = 0;
    while (first < 2 && iov[first].iov_len == 0)
        first++;
    while (first < 2) {
        ssize_t k = writev(fd, iov + first, (int)(2 - first));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            snprintf(err, errlen, "%s", k < 0 ? strerror(errno) : "short write");
            return -1;
        }
        size_t done = (size_t)k;
        while (done > 0) {
            size_t n = done < iov[first].iov_len ? done : iov[first].iov_len;
            iov[first].iov_base = (uint8_t *)iov[first].iov_base + n;
            iov[first].iov_len -= n;
            done -= n;
            if (iov[first].iov_len == 0)
                first++;
        }
        while (first < 2 && iov[first].iov_len == 0)
            first++;
    }
    return 0;
}

static void *run(void *arg)
{
    sweep__record_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->head && !w->stopping)
            pthread_cond_wait(&w->work, &w->mu);
        job *j = w->head;
        if (!j)
            break; /* stopping and nothing left */
        int failed = w->failed;
        pthread_mutex_unlock(&w->mu);

        char err[200] = "";
        int bad = 0;
        if (j->buf && !failed) {
            uint32_t body = (uint32_t)(j->len - SWEEP_RECORD_FRAME_HEADER);
            put_u32(j->buf, body);
            put_u32(j->buf + 4, libdeflate_crc32(0, j->buf + SWEEP_RECORD_FRAME_HEADER, body));
            bad = write_all(j->fd, j->pre, j->pre_len, j->buf, j->len, err, sizeof err) != 0;
        }
        if (j->close_after)
            close(j->fd);

        pthread_mutex_lock(&w->mu);
        if (bad && !w->failed) {
            w->failed = 1;
            snprintf(w->error, sizeof w->error, "%s", err);
        }
        w->head = j->next;
        if (!w->head)
            w->tail = NULL;
        w->queued -= j->len + j->pre_len;
        if (j->buf && w->spare_count < SPARE_BUFFERS) {
            w->spare[w->spare_count] = j->buf;
            w->spare_cap[w->spare_count++] = j->cap;
        } else {
            free(j->buf);
        }
        free(j);
        pthread_cond_broadcast(&w->room);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

sweep__record_writer *sweep__record_writer_start(size_t max_queued)
{
    sweep__record_writer *w = sweep__calloc(1, sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    w->max_queued = max_queued;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->room, NULL);
    /* At normal priority when the thread that starts it runs at a
     * real-time one: a world opened at run time starts its writer from an
     * event-loop thread, which --realtime runs at a priority the disk's
     * work must not take. Otherwise the writer inherits the starter's
     * scheduling: asking for SCHED_OTHER explicitly from a process run at
     * SCHED_IDLE or SCHED_BATCH is a change the kernel refuses without
     * CAP_SYS_NICE, and the writer did not start. */
    int policy = SCHED_OTHER, rc;
    struct sched_param now;
    if (pthread_getschedparam(pthread_self(), &policy, &now) == 0 && (policy == SCHED_FIFO || policy == SCHED_RR)) {
        pthread_attr_t attr;
        struct sched_param normal = {.sched_priority = 0};
        rc = pthread_attr_init(&attr);
        if (rc == 0) {
            if ((rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED)) == 0 &&
                (rc = pthread_attr_setschedpolicy(&attr, SCHED_OTHER)) == 0 &&
                (rc = pthread_attr_setschedparam(&attr, &normal)) == 0)
                rc = pthread_create(&w->thread, &attr, run, w);
            pthread_attr_destroy(&attr);
        }
    } else {
        rc = pthread_create(&w->thread, NULL, run, w);
    }
    if (rc != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->work);
        pthread_cond_destroy(&w->room);
        free(w);
        errno = rc;
        return NULL;
    }
    return w;
}

int sweep__record_writer_put(sweep__record_writer *w, int fd, const uint8_t *pre, size_t pre_len, uint8_t **buf,
                             size_t len, size_t *cap, int close_after)
{
    job *j = sweep__calloc(1, sizeof *j);
    if (!j) {
        if (close_after) {
            /* The close cannot be queued, and closing now would pull fd
             * from under the frames still queued for it (or hand their
             * bytes to whatever file gets the number next): wait for them. */
            pthread_mutex_lock(&w->mu);
            while (w->head)
                pthread_cond_wait(&w->room, &w->mu);
            pthread_mutex_unlock(&w->mu);
            close(fd);
        }
        return -1;
    }
    j->fd = fd;
    j->close_after = close_after;
    if (pre_len > sizeof j->pre)
        pre_len = sizeof j->pre;
    if (pre_len)
        memcpy(j->pre, pre, pre_len);
    j->pre_len = pre_len;
    if (buf && *buf && len) {
        j->buf = *buf;
        j->len = len;
        j->cap = *cap;
    }
    pthread_mutex_lock(&w->mu);
    /* Wait for the disk rather than drop a frame; a failed writer drops
     * them anyway, so it never makes anyone wait. */
    while (!w->failed && w->head && w->queued + j->len + j->pre_len > w->max_queued)
        pthread_cond_wait(&w->room, &w->mu);
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    w->queued += j->len + j->pre_len;
    /* The caller's next buffer: a spare one, or none (it allocates). */
    if (j->buf) {
        *buf = NULL;
        *cap = 0;
        if (w->spare_count) {
            w->spare_count--;
            *buf = w->spare[w->spare_count];
            *cap = w->spare_cap[w->spare_count];
        }
    }
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int sweep__record_writer_failed(sweep__record_writer *w, char *text, size_t textlen)
{
    pthread_mutex_lock(&w->mu);
    int f = w->failed;
    if (f && text && textlen)
        snprintf(text, textlen, "%s", w->error);
    pthread_mutex_unlock(&w->mu);
    return f;
}

void sweep__record_writer_stop(sweep__record_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stopping = 1;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    for (unsigned i = 0; i < w->spare_count; i++)
        free(w->spare[i]);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->room);
    free(w);
}
