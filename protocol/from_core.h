/*
 * from_core.h - internal: the wire form of the core's move results, written
 * once for the server (sweepd's MoveResult and CollideResult) and for the
 * replay that re-computes them, so the two cannot drift apart.
 *
 * The wire form is what a client decodes: the wire's Contact has no mover
 * or body (message.h), so those are UINT32_MAX here as after a decode, and
 * a result built here compares equal, field for field, to the one a
 * decoder reads back from its bytes.
 */
#ifndef SWEEP_PROTOCOL_FROM_CORE_H
#define SWEEP_PROTOCOL_FROM_CORE_H

#include <stdint.h>

#include "core/move.h"
#include "protocol/message.h"

/* Copies the contacts of res into out in their wire form and returns how
 * many (res->contact_count, never above SWEEP_MAX_CONTACTS). */
uint32_t sweep__wire_contacts_from_core(sweep_contact out[SWEEP_MAX_CONTACTS], const sweep_move_result *res);

/* The CollideResult of one core move: every field from res, except the
 * ground mover, which the core knows by index and the wire by the map's
 * movers.id (0 = none): the caller maps it. Contacts past the count are
 * left as they were. */
void sweep__collide_result_from_move(sweep_msg_collide_result *out, const sweep_move_result *res,
                                     uint32_t ground_mover_id);

#endif
