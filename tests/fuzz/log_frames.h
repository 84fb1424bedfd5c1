/*
 * log_frames.h - a fuzzed session log with its frames' checksums made
 * right (fuzz_log.c, fuzz_replay.c). A log's frames carry CRC-32s, so
 * almost every mutation would stop at the first frame's checksum and never
 * reach a record; each whole frame's is made right before the bytes are
 * read (a frame whose length runs past the end is left as it is: a torn
 * tail).
 */
#ifndef SWEEP_TESTS_FUZZ_LOG_FRAMES_H
#define SWEEP_TESTS_FUZZ_LOG_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include <libdeflate.h>

#include "protocol/format.h"
#include "server/record/record.h"

static inline void fuzz_fix_checksums(uint8_t *b, size_t n)
{
    size_t at = SWEEP_RECORD_HEADER_SIZE;
    while (at + SWEEP_RECORD_FRAME_HEADER <= n) {
        uint32_t len = sweep__rd32(b + at);
        if (len > n - at - SWEEP_RECORD_FRAME_HEADER)
            return;
        const uint8_t *body = b + at + SWEEP_RECORD_FRAME_HEADER;
        sweep__wr32(b + at + 4, (uint32_t)libdeflate_crc32(0, body, len));
        at += SWEEP_RECORD_FRAME_HEADER + (size_t)len;
    }
}

#endif
