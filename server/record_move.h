/*
 * record_move.h - internal: the payload of a MOVE record (record.h), the
 * core's input and output of one move in a fixed little-endian layout
 * (never installed).
 *
 * The writer (recorder.c, from a sweep_msg_move_result) builds the image
 * with the function the core depth of a replay (client-sdk/replay_core.c,
 * from the core's output) compares a record with, both from the same
 * fields and next to each other here, so a replayed move matches its
 * record exactly when the image the writer would make of it is the
 * record's bytes; only a mismatch is decoded, to name the field.
 */
#ifndef SWEEP_SERVER_RECORD_MOVE_H
#define SWEEP_SERVER_RECORD_MOVE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/message.h"
#include "server/record.h"

/* The result's rules a MOVE holds: the core's (sweep_act's), not the
 * server's (TimeBudget, Correction, Vertical). */
#define SWEEP__RECORD_MOVE_RULES (SWEEP_WIRE_RULE_SPEED | SWEEP_WIRE_RULE_JUMP | SWEEP_WIRE_RULE_LIMIT)

/* The longest image: every contact a result may hold. */
#define SWEEP__RECORD_MOVE_MAX (SWEEP_RECORD_MOVE_FIXED + SWEEP_MAX_CONTACTS * SWEEP_RECORD_MOVE_CONTACT)

/* A MOVE read back: the move as the core was given it, and the result
 * fields the record holds (entity, sequence, applied_dt, position,
 * velocity, grounded, ground normal and material, contacts, ground_mover,
 * carried, pushed, pushed_by, start position, the core's rules,
 * speed_excess); the others are zero. */
typedef struct sweep__move_record {
    uint64_t session;
    uint32_t mode;    /* SWEEP_WIRE_MODE_* */
    uint32_t buttons; /* Move.buttons */
    sweep_vec3 wish;  /* Move.velocity */
    sweep_msg_move_result result;
} sweep__move_record;

/* The fields of a MOVE, as its image holds them (record.h); contacts
 * point to where they are (a MoveResult's, or the core's own result's:
 * only point, normal, triangle and material are written). */
typedef struct sweep__record_move_fields {
    uint64_t session;
    uint32_t entity, sequence;
    sweep_vec3 wish;
    double granted;
    uint32_t buttons, mode;
    int grounded, carried, pushed, has_start_position;
    uint32_t contact_count; /* at most SWEEP_MAX_CONTACTS */
    sweep_vec3 position, velocity, ground_normal, start_position;
    double speed_excess;
    uint32_t ground_material, ground_mover, pushed_by, rules; /* rules: the core's bits only */
    const sweep_contact *contacts;
} sweep__record_move_fields;

/* 1 when the image of f (as sweep__record_move_encode would write it)
 * is the len bytes at p, given that f's session, entity,
 * sequence, wish, granted time, buttons and mode were read from them:
 * only what the core made of the move is compared, where it lies, with
 * nothing written (the core depth of a replay, once a move). */
int sweep__record_move_same_output(const uint8_t *p, size_t len, const sweep__record_move_fields *f);

/* Writes the image of a move of `session` (mode, buttons and wish from
 * its Move; granted dt and every output from res) into out, which holds
 * SWEEP__RECORD_MOVE_MAX bytes; returns its length (the writer's). */
size_t sweep__record_move_encode(uint8_t *out, uint64_t session, uint32_t mode, uint32_t buttons, sweep_vec3 wish,
                                 const sweep_msg_move_result *res);

/* Checks an image's length and fields against its layout: 0, or -1 with
 * why (a length that is not the fixed part plus its contacts, more than
 * SWEEP_MAX_CONTACTS contacts, a mode that is not a MoveMode, flag or
 * padding bits set). */
int sweep__record_move_check(const uint8_t *p, size_t len, char *why, size_t whylen);

/* The length of an image with n contacts. */
static inline size_t sweep__record_move_len(uint32_t n)
{
    return SWEEP_RECORD_MOVE_FIXED + (size_t)n * SWEEP_RECORD_MOVE_CONTACT;
}

/* The contacts of res an image holds (at most SWEEP_MAX_CONTACTS). */
static inline uint32_t sweep__record_move_contacts(const sweep_msg_move_result *res)
{
    return res->contact_count <= SWEEP_MAX_CONTACTS ? res->contact_count : SWEEP_MAX_CONTACTS;
}

/* What sweep__record_move_check accepts, without saying why not: the
 * readers' fast path (protocol/format.h reads). */
static inline int sweep__record_move_ok(const uint8_t *p, size_t len)
{
    if (len < SWEEP_RECORD_MOVE_FIXED)
        return 0;
    uint32_t n = p[54];
    /* rules (172, little-endian): only the core's bits 0..2 */
    return n <= SWEEP_MAX_CONTACTS && len == sweep__record_move_len(n) &&
           p[52] < SWEEP_WIRE_MODE_COUNT && (p[53] & ~0x0fu) == 0 && p[55] == 0 &&
           (p[172] & ~(unsigned)SWEEP__RECORD_MOVE_RULES) == 0 && p[173] == 0 && p[174] == 0 && p[175] == 0;
}

/* Reads a checked image back. */
void sweep__record_move_decode(const uint8_t *p, size_t len, sweep__move_record *out);

#endif
