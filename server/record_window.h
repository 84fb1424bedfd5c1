/*
 * record_window.h - internal: the records of a log's current frame read in
 * place, for a reader that parses the common ones itself (the core depth
 * of a replay, client-sdk/replay_core.c) and leaves the rest to
 * sweep_record_next (never installed).
 *
 * The frame's checksum matched before any of its records is shown; a
 * reader that takes records from the window checks each one as
 * sweep_record_next would, or hands it back (sweep__record_seek) for
 * sweep_record_next to take, which names whatever is wrong with it.
 */
#ifndef SWEEP_SERVER_RECORD_WINDOW_H
#define SWEEP_SERVER_RECORD_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "server/record.h"

/* The file's bytes; *at is the offset of the next record to be read and
 * *end that of the current frame's end (*at == *end: none left in it,
 * sweep_record_next reads the next frame). */
const uint8_t *sweep__record_window(const sweep_record_reader *r, size_t *at, size_t *end);

/* Makes `at` (a record's start inside the current frame, not before the
 * frame's first record, or its end) the next record to be read. */
void sweep__record_seek(sweep_record_reader *r, size_t at);

#endif
