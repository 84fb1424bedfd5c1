/*
 * wire_sizes.h - the encoded sizes of a typical Move request and of the
 * MoveResult that answers it (grounded, one contact with static
 * geometry, as sweepd says it), for the benchmarks that stand in for
 * sweepd's traffic without running it (bench_echo.c, bench_udp_floor.c).
 * Header-only: each benchmark is one program.
 */
#ifndef SWEEP_TESTS_BENCH_WIRE_SIZES_H
#define SWEEP_TESTS_BENCH_WIRE_SIZES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/encode.h"
#include "protocol/framing.h"
#include "protocol/message.h"

/* *move and *result for these SWEEP_WIRE_* flags (size-prefixed over
 * TCP, bare over UDP); exits when the encoder refuses either. */
static void sweep_bench_wire_sizes(unsigned flags, size_t *move, size_t *result)
{
    static uint8_t buf[4096];
    sweep_message m = {.kind = SWEEP_MSG_MOVE, .sequence = 1000};
    m.as.move = (sweep_msg_move){.entity = 1, .sequence = 1000, .velocity = {2, 0, 0}, .dt = 1.0 / 60};
    const uint8_t *out;
    if (sweep_encode(&m, flags, buf, sizeof buf, &out, move) != SWEEP_PROTO_OK)
        exit(1);
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_MOVE_RESULT;
    m.sequence = 1000;
    m.server_tick = 5000;
    sweep_msg_move_result *r = &m.as.move_result;
    r->entity = 1;
    r->sequence = 1000;
    r->server_tick = 5000;
    r->position = (sweep_vec3){1.5, 2.5, 0.9009};
    r->velocity = (sweep_vec3){2, 0, 0};
    r->grounded = true;
    r->ground_normal = (sweep_vec3){0, 0, 1};
    r->ground_material = 1;
    r->contact_count = 1;
    r->contacts[0] = (sweep_contact){.point = {1.5, 2.5, 0.0009}, .normal = {0, 0, 1}, .triangle = 324, .material = 1,
                                     .mover = UINT32_MAX, .body = UINT32_MAX}; /* static geometry, as sweepd says */
    if (sweep_encode(&m, flags, buf, sizeof buf, &out, result) != SWEEP_PROTO_OK)
        exit(1);
}

#endif
