/*
 * encode.h - turns a sweep_message into the bytes of one FlatBuffer.
 *
 * The output is built back to front in the caller's buffer and ends at its
 * last byte: *out points inside buf, no copy is made, and the bytes of buf
 * before *out are the encoder's scratch (their contents after a call are
 * unspecified). With
 * SWEEP_WIRE_SIZE_PREFIXED the bytes are a complete TCP frame. Scalars equal
 * to their schema default (zero, false) are left out, as official builders
 * do; a bool is written as 0 or 1.
 */
#ifndef SWEEP_PROTOCOL_ENCODE_H
#define SWEEP_PROTOCOL_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"
#include "protocol/framing.h"
#include "protocol/message.h"
#include "protocol/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SWEEP_PROTO_OK and (*out, *out_len); SWEEP_PROTO_E_BUFFER_SPACE if cap is
 * too small; SWEEP_PROTO_E_ARG for a NULL pointer, an unknown kind, a
 * required string or vector left NULL, or more than SWEEP_MAX_CONTACTS
 * contacts. Never allocates: a batch borrows 4 bytes per item at the
 * front of buf as scratch, so cap must exceed the output by that much
 * (a buffer of the frame maximum plus 4 * max_batch is always enough). */
sweep_proto_error sweep_encode(const sweep_message *msg, unsigned flags, void *buf, size_t cap,
                               const uint8_t **out, size_t *out_len);

/* sweep_encode with Message.key set to key whatever msg->key holds (0:
 * absent): what a UDP client puts on each datagram after its Welcome
 * (Welcome.udp_key), without copying the message to set it. */
sweep_proto_error sweep_encode_keyed(const sweep_message *msg, uint64_t key, unsigned flags, void *buf, size_t cap,
                                     const uint8_t **out, size_t *out_len);

/* UDP handshake helper: encodes a Hello (msg->as.hello.padding must be
 * absent) and, if it comes out shorter than min_size bytes (at most
 * SWEEP_UDP_HELLO_MIN; pass SWEEP_UDP_HELLO_MIN), adds zero padding so it is
 * at least min_size and at most a few bytes more. SWEEP_PROTO_E_ARG for any
 * other kind or a min_size above SWEEP_UDP_HELLO_MIN. */
sweep_proto_error sweep_encode_padded(const sweep_message *msg, unsigned flags, size_t min_size,
                                      void *buf, size_t cap, const uint8_t **out, size_t *out_len);

/* The most moves a MoveBatch can carry in one UDP datagram when every Move
 * has all its fields but no claimed_position (each claimed position costs
 * room for about one more move). */
uint32_t sweep_udp_max_batch(void);

/* The same when every move also carries a claimed position: what a server
 * announces in a UDP Welcome's max_batch and enforces, since a batch of
 * that many fits one datagram whatever its moves carry. */
uint32_t sweep_udp_max_batch_claimed(void);

/* The most movers a WorldState can carry in one UDP datagram (every field
 * at its largest, each mover's path included). A server splits a larger world's WorldState into
 * datagrams of at most this many movers each. */
uint32_t sweep_udp_max_movers(void);

/* The most EntityStates.entities one UDP datagram holds (every field at
 * its largest; an EntityState is a struct, so any entity costs the same).
 * A server splits a larger world's EntityStates into datagrams of at most
 * this many entities each. */
uint32_t sweep_udp_max_entity_states(void);

/* The same four for a session's agreed datagram of `datagram` bytes
 * (Welcome.max_frame_size over UDP; 1,200 to SWEEP_UDP_LARGEST_DATAGRAM,
 * anything else taken as the nearer end): found by trial encodings, a
 * dozen or so each, so worth keeping per size. */
uint32_t sweep_udp_max_batch_in(size_t datagram);
uint32_t sweep_udp_max_batch_claimed_in(size_t datagram);
uint32_t sweep_udp_max_movers_in(size_t datagram);
uint32_t sweep_udp_max_entity_states_in(size_t datagram);

#ifdef __cplusplus
}
#endif

#endif
