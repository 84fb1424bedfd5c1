/*
 * decode_checked.h - internal: a Move or MoveResult read with every read
 * bounds-checked instead of verified first (never installed).
 *
 * sweep_decode_motion verifies the whole buffer, then reads it without
 * checks: two walks over the same vtable, most of a replay's reading of a
 * log. A replay at the core depth only needs the moves and results, and
 * needs them safely, not the verifier's verdict on every other detail of
 * the buffer: this reads them in one walk, checking each offset, table,
 * vtable, field and vector it touches against the buffer's bounds, and
 * gives up (SWEEP_PROTO_E_ARG) on anything else: another kind, a batch,
 * a required field missing, a field, table or vector outside its bounds,
 * decoder limits other than the defaults. The caller then decodes with
 * sweep_decode_motion, whose error (the verifier's, as sweep_decode's)
 * names what is wrong; a good message never gives up here.
 *
 * What it accepts is read exactly as sweep_decode_motion reads it. It may
 * accept a message the verifier refuses for a detail it does not read (an
 * unaligned field, a vtable shared oddly): the values read are still
 * inside the buffer. So it is for readers that check the motion only; the
 * server, and a full replay, verify every message.
 */
#ifndef SWEEP_PROTOCOL_DECODE_CHECKED_H
#define SWEEP_PROTOCOL_DECODE_CHECKED_H

#include <stddef.h>

#include "core/compiler.h"
#include "protocol/decode.h"
#include "protocol/decode_checked_impl.h"

/* A single Move or MoveResult (flags: SWEEP_WIRE_SIZE_PREFIXED) into the
 * decoder's storage (room for one needed), as sweep_decode_motion would;
 * SWEEP_PROTO_OK, or SWEEP_PROTO_E_ARG when it gave up (see above). *out
 * is only written on success. */
sweep_proto_error sweep__decode_motion_checked(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                                               sweep_decoded_motion *out);

/* Only the kind of a message (its root table's union type), every read
 * bounds-checked and nothing else looked at: a reader that skips some
 * kinds unread. SWEEP_PROTO_E_ARG when the root or the type cannot be
 * read, or names no kind; a kind given here says nothing about whether
 * the rest of the message is valid. */
sweep_proto_error sweep__decode_kind_checked(const void *buf, size_t len, unsigned flags, sweep_msg_kind *kind);

/* The same, inlined where a reader peeks at the kind of every message of
 * a log (the core depth's lean loop): the call was most of its cost. */
static SWEEP__ALWAYS_INLINE sweep_proto_error
sweep__decode_kind_inline(const void *buf, size_t len, unsigned flags, sweep_msg_kind *kind)
{
    sweep__ctab root;
    int bad = 0;
    if (!buf || !kind || sweep__ctab_root(buf, len, flags, &root) != 0)
        return SWEEP_PROTO_E_ARG;
    uint8_t k = sweep__cu8(&root, SWEEP__MESSAGE_BODY_TYPE, &bad);
    if (bad || k == SWEEP_MSG_NONE || k >= SWEEP_MSG_KIND_COUNT)
        return SWEEP_PROTO_E_ARG; /* absent or outside the table: no kind */
    *kind = (sweep_msg_kind)k;
    return SWEEP_PROTO_OK;
}

#endif
