/*
 * record_writer.h - internal: the thread that writes session-log frames
 * for the recorder (record_writer.c says why it is a thread).
 */
#ifndef SWEEP_SERVER_RECORD_WRITER_H
#define SWEEP_SERVER_RECORD_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct sweep__record_writer sweep__record_writer;

/* Starts the thread; the queue holds at most max_queued bytes before
 * sweep__record_writer_put waits. NULL with errno if it cannot start. */
sweep__record_writer *sweep__record_writer_start(size_t max_queued);

/* Queues a frame for fd: *buf[0..len) with its first 8 bytes left for the
 * frame header (the thread fills length and CRC-32), written after
 * pre[0..pre_len) (a segment's file header, at most 16 bytes, or none) in
 * one writev; then fd is closed if close_after. The writer takes *buf and
 * gives back in *buf and *cap a spare buffer, or NULL and 0. With a NULL
 * buf or len 0 only the close is queued. 0, or -1 if out of memory (the
 * frame is not queued, *buf stays the caller's; fd is still closed if
 * close_after, once the frames queued before are written). */
int sweep__record_writer_put(sweep__record_writer *w, int fd, const uint8_t *pre, size_t pre_len, uint8_t **buf,
                             size_t len, size_t *cap, int close_after);

/* 1 once a write failed (text: why); every later frame is dropped. */
int sweep__record_writer_failed(sweep__record_writer *w, char *text, size_t textlen);

/* Writes everything queued, then ends the thread and frees w. */
void sweep__record_writer_stop(sweep__record_writer *w);

#endif
