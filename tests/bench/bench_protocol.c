/*
 * bench_protocol.c - cost of the wire codec per message: encode, and
 * verify + decode (the server's path for every request), for a single
 * Move, a lone move's MoveResult (its common fields only), a 64-move
 * MoveBatch and a 64-result MoveResultBatch.
 *
 * Each figure is the median over several runs of the mean time per
 * operation within a run (machines are shared and noisy). Prints one line
 * per message kind:
 *   BENCH name=protocol.codec msg=<kind> encode_ns=<x> verify_decode_ns=<x> bytes=<x>
 * Usage: bench_protocol [runs]   (default 9)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/bench/median.h"
#include "tests/protocol/samples.h"

static uint8_t buf[1u << 17];
static sweep_msg_move moves[SAMPLE_BATCH];
static sweep_msg_move_result results[SAMPLE_BATCH];
static volatile uint64_t sink;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Iterations so one run lasts roughly 20 ms. */
static long calibrate(const sweep_message *m)
{
    const uint8_t *out;
    size_t len;
    long iters = 1;
    for (;;) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            sweep_encode(m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len);
        if (now_ns() - t0 > 5e6)
            return iters * 4;
        iters *= 2;
    }
}

static void bench(const char *name, const sweep_message *m, int runs)
{
    const uint8_t *out;
    size_t len;
    if (sweep_encode(m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len) != SWEEP_PROTO_OK) {
        fprintf(stderr, "bench_protocol: cannot encode %s\n", name);
        exit(1);
    }
    static uint8_t frame[1u << 17];
    memcpy(frame, out, len);
    size_t bytes = len;
    long iters = calibrate(m);
    double enc[64], dec[64];
    sweep_decoder d = {.moves = moves, .moves_cap = SAMPLE_BATCH, .results = results, .results_cap = SAMPLE_BATCH};
    for (int r = 0; r < runs; r++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++) {
            sweep_encode(m, SWEEP_WIRE_SIZE_PREFIXED, buf, sizeof buf, &out, &len);
            sink += len;
        }
        enc[r] = (now_ns() - t0) / (double)iters;
        sweep_message back;
        t0 = now_ns();
        for (long i = 0; i < iters; i++) {
            if (sweep_decode(&d, frame, bytes, SWEEP_WIRE_SIZE_PREFIXED, &back) != SWEEP_PROTO_OK) {
                fprintf(stderr, "bench_protocol: cannot decode %s\n", name);
                exit(1);
            }
            sink += back.sequence;
        }
        dec[r] = (now_ns() - t0) / (double)iters;
    }
    printf("BENCH name=protocol.codec msg=%s encode_ns=%.0f verify_decode_ns=%.0f bytes=%zu\n", name,
           median(enc, runs), median(dec, runs), bytes);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    if (runs < 1 || runs > 64)
        runs = 9;
    sweep_message move = sample_message(7);
    sweep_message batch = sample_message(11);
    sweep_message results_batch = sample_message(13);
    sweep_message result = sample_message(10); /* a lone move's answer, no rare field */
    bench("Move", &move, runs);
    bench("MoveResult", &result, runs);
    bench("MoveBatch64", &batch, runs);
    bench("MoveResultBatch64", &results_batch, runs);
    return 0;
}
