/*
 * fuzz_log.c - libFuzzer harness over the session-log reader
 * (server/record/record.h): any bytes, written to a file and read to their end
 * as sweep-replay and the SDK read a log someone hands them.
 *
 * A log is framed with CRC-32s, so almost every mutation would stop at
 * the first frame's checksum and never reach a record. The harness makes
 * each whole frame's checksum right before writing the bytes (a frame
 * whose length runs past the end is left as it is: a torn tail), so the
 * records inside are what gets fuzzed.
 *
 * Beyond "no crash, no sanitizer report" it checks, on every input:
 * - every record returned lies inside the file, after the one before, its
 *   bytes too (but those of a request a patch stands for, made in the
 *   reader: no longer than a base; and those of the RESULTS an ANSWER
 *   stands for, made there too: one MoveResult, no longer than an ANSWER
 *   may make);
 * - the mapped and the streamed reader read the same records, bytes and
 *   errors (a patched request made alike by both);
 * - an error says which file and is not empty;
 * - for every MOVE record's bytes the readers' fast test
 *   (sweep__record_move_ok) and the full check (sweep__record_move_check)
 *   agree, and an image they accept reads back and encodes again to the
 *   same bytes (the writer and the replay share that layout);
 * - a RESULTS record the reader returns (or makes of an ANSWER) is one
 *   both its inline test (sweep__record_results_ok) and its full check
 *   take.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (server.mk):
 * `make fuzz-log FUZZ_SECONDS=N`, and a bounded smoke run in `make test`.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libdeflate.h>

#include "protocol/format.h"
#include "server/record/record.h"
#include "server/record/record_move.h"
#include "server/record/record_patch.h"
#include "server/record/record_results.h"
#include "tests/fuzz/log_frames.h"

#define MAX_RECORDS 100000 /* a bound on the loop, far above what 64 KiB holds */

static int fd = -1;
static char path[64];
static uint8_t *fixed;
static size_t fixed_cap;

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_log: %s\n", what);
    abort();
}

static void check_move(const uint8_t *p, size_t len, int compact)
{
    char why[160];
    int ok = sweep__record_move_ok(p, len, compact);
    if (ok != (sweep__record_move_check(p, len, compact, why, sizeof why) == 0))
        fail("sweep__record_move_ok and sweep__record_move_check disagree");
    if (!ok)
        return;
    sweep__move_record m;
    sweep__record_move_decode(p, len, &m);
    uint8_t again[SWEEP__RECORD_MOVE_MAX];
    size_t n =
        sweep__record_move_encode(again, compact, m.session, m.mode, m.buttons, m.wish, m.cut_forgiven, &m.result);
    if (n != len || memcmp(again, p, len) != 0)
        fail("a MOVE image read back does not encode to its bytes");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        fd = memfd_create("fuzz_log", MFD_CLOEXEC);
        if (fd < 0)
            fail("memfd_create");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (size > fixed_cap) {
        free(fixed);
        fixed_cap = size;
        fixed = malloc(size);
        if (!fixed)
            fail("out of memory");
    }
    if (size)
        memcpy(fixed, data, size);
    fuzz_fix_checksums(fixed, size);
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, fixed, size, 0) != (ssize_t)size))
        fail("cannot write the log");

    char err[512] = "", err2[512] = "";
    sweep_record_reader *r = sweep_record_open(path, err, sizeof err);
    /* The same log streamed: the same records, bytes and errors. */
    sweep_record_reader *s = sweep_record_open_stream(path, err2, sizeof err2);
    if (!r != !s || (!r && strcmp(err, err2) != 0))
        fail("the streamed reader opens what the mapped one does not, or says another thing");
    if (!r) {
        if (!strstr(err, path))
            fail("an open error that does not name the file");
        return 0;
    }
    uint64_t file = sweep_record_size(r), last = 0;
    sweep_record rec, rec2;
    int got = 0, got2 = 0;
    for (int i = 0; i < MAX_RECORDS; i++) {
        got = sweep_record_next(r, &rec, err, sizeof err);
        got2 = sweep_record_next(s, &rec2, err2, sizeof err2);
        if (got != got2 || (got < 0 && strcmp(err, err2) != 0))
            fail("the streamed reader ends elsewhere or says another thing");
        if (got != 1)
            break;
        if (rec.type != rec2.type || rec.offset != rec2.offset ||
            ((rec.type == SWEEP_RECORD_IN || rec.type == SWEEP_RECORD_OUT || rec.type == SWEEP_RECORD_MOVE ||
              rec.type == SWEEP_RECORD_RESULTS) &&
             (rec.bytes.len != rec2.bytes.len || memcmp(rec.bytes.ptr, rec2.bytes.ptr, rec.bytes.len) != 0)))
            fail("the streamed reader reads another record");
        sweep_record_release(s, UINT64_MAX); /* done with rec2 */
        if (rec.offset >= file || (i > 0 && rec.offset <= last))
            fail("a record outside the file or before the one before it");
        last = rec.offset;
        int compact = sweep__record_move_compact_in(sweep_record_head_of(r)->version);
        if (rec.type == SWEEP_RECORD_MOVE)
            check_move(rec.bytes.ptr, rec.bytes.len, compact);
        /* A RESULTS the reader took is one the full check and the inline
         * test both take. */
        if (rec.type == SWEEP_RECORD_RESULTS &&
            (sweep__record_results_check(rec.bytes.ptr, rec.bytes.len, compact, NULL, 0) != 0 ||
             !sweep__record_results_ok(rec.bytes.ptr, rec.bytes.len, compact)))
            fail("a RESULTS record read that its checks refuse");
        /* An IN that a patch stands for is made in the reader, its
         * base's length (record_patch.h); every other record's bytes are
         * the file's. */
        int patched = rec.type == SWEEP_RECORD_IN && fixed[rec.offset] == SWEEP_RECORD_IN_PATCH;
        if (patched && rec.bytes.len > SWEEP__RECORD_BASE_MAX)
            fail("a patched request longer than any base");
        /* So is the RESULTS an ANSWER stands for: one MoveResult. */
        int answered = rec.type == SWEEP_RECORD_RESULTS && fixed[rec.offset] == SWEEP_RECORD_ANSWER;
        if (answered && (rec.bytes.len > SWEEP__RECORD_ANSWER_MAX || sweep__rd32(rec.bytes.ptr + 8) != 0 ||
                         sweep__record_results_count(rec.bytes.ptr) != 1))
            fail("an ANSWER read as something other than one MoveResult");
        if (!patched && !answered &&
            (rec.type == SWEEP_RECORD_IN || rec.type == SWEEP_RECORD_OUT || rec.type == SWEEP_RECORD_MOVE ||
             rec.type == SWEEP_RECORD_RESULTS) &&
            rec.bytes.len > file - rec.offset)
            fail("a record's bytes run past the end of the file");
    }
    if (got < 0 && (!err[0] || !strstr(err, path)))
        fail("a read error that does not name the file");
    uint64_t at, at2;
    if (got == 0 && sweep_record_truncated(r, &at) && at > file)
        fail("a torn tail past the end of the file");
    if (got == 0 && (sweep_record_truncated(r, &at) != sweep_record_truncated(s, &at2) || at != at2))
        fail("the streamed reader finds another torn tail");
    sweep_record_close(r);
    sweep_record_close(s);
    return 0;
}
