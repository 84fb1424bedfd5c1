/*
 * fuzz_replay.c - libFuzzer harness over the replay (client-sdk/replay.h):
 * any bytes, their frames' checksums made right (tests/fuzz/log_frames.h),
 * replayed to their end at both depths on the sample arena, as
 * sweep-replay replays a log someone hands it.
 *
 * fuzz_log.c holds the reader to what it returns; this goes on to what the
 * replay does with records that read well and mean nothing a sweepd
 * wrote: sessions never opened or opened twice, requests of a closed
 * session, answers to nothing, ids of living entities, results of other
 * moves, ticks in any order.
 *
 * Beyond "no crash, no sanitizer report" (ASan, UBSan, and the world's and
 * the core's own invariants: SWEEP_CHECKS), it checks on every input:
 * - a log that does not open says why, naming the file;
 * - a replay ends (within as many ticks as the bytes can hold), and a
 *   replay that stops says why: a divergence with its place, or an
 *   error.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined (client-sdk.mk):
 * `make fuzz-replay FUZZ_SECONDS=N`, and a bounded smoke run in `make
 * test`. Seeds: the session-log fuzzer's seeds and the golden logs of
 * tests/replay, all of the arena.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client-sdk/replay.h"
#include "server/world/log.h"
#include "tests/fuzz/log_frames.h"
#include "tests/fuzz/sample_maps.h"

static int fd = -1;
static char path[64];
static char arena[4200];
static uint8_t *fixed;
static size_t fixed_cap;

static void fail(const char *what, uint64_t at)
{
    fprintf(stderr, "fuzz_replay: %s (%llu)\n", what, (unsigned long long)at);
    abort();
}

static void replay_at(unsigned flags, size_t size)
{
    char err[1400] = "";
    sweep_replay *r = sweep_replay_open_flags(path, arena, flags, err, sizeof err);
    if (!r) {
        if (err[0] == '\0' || !strstr(err, path))
            fail("a log refused without naming it", flags);
        return;
    }
    int rc;
    uint64_t steps = 0;
    /* A TICK record is at least a byte, and a frame's deflate at most
     * 1,032 times smaller than what it holds. */
    while ((rc = sweep_replay_step(r)) == 1)
        if (++steps > 1100 * (uint64_t)size)
            fail("more ticks replayed than the log can hold", steps);
    if (rc < 0 && !sweep_replay_divergence_of(r) && sweep_replay_error(r)[0] == '\0')
        fail("a replay stopped without saying why", flags);
    sweep_replay_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > fixed_cap) {
        free(fixed);
        fixed_cap = size;
        fixed = malloc(size);
        if (!fixed)
            fail("out of memory", size);
    }
    if (size)
        memcpy(fixed, data, size);
    fuzz_fix_checksums(fixed, size);
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, fixed, size, 0) != (ssize_t)size))
        fail("cannot write the log", size);
    replay_at(0, size);
    replay_at(SWEEP_REPLAY_CORE, size);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[4096];
    fuzz_sample_maps_dir(*argc, *argv, dir, sizeof dir);
    snprintf(arena, sizeof arena, "%s/arena.db", dir);
    if (access(arena, R_OK) != 0) {
        fprintf(stderr, "fuzz_replay: no %s (make builds it; or set SWEEP_BUILD_DIR)\n", arena);
        exit(1);
    }
    fd = memfd_create("fuzz_replay", MFD_CLOEXEC);
    if (fd < 0)
        fail("memfd_create", 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    /* The world's rule lines, as sweep-replay keeps them quiet. */
    sweep__log_set_level(SWEEP_LOG_ERROR);
    return 0;
}
