/*
 * framing.h - cutting a TCP byte stream into frames, and the UDP size rule.
 *
 * A TCP frame is a size-prefixed FlatBuffer: 4 bytes little-endian holding
 * the length of what follows, then the buffer. The prefix is the FlatBuffers
 * size prefix itself, so a whole frame (prefix included) is what
 * sweep_verify/sweep_decode take with SWEEP_WIRE_SIZE_PREFIXED, and
 * alignment inside it counts from the prefix.
 *
 * A frame whose announced size is above the connection's maximum is
 * refused before any of its body is buffered: the reader cannot resync a
 * stream after such a header, so the state is sticky and the connection
 * should be closed after an Error (docs/design.md, Errors: framing broken).
 *
 * A UDP datagram carries one buffer without a prefix, at most
 * SWEEP_UDP_MAX_DATAGRAM bytes (fits the smallest common path MTU once IP
 * and UDP headers are added) unless the handshake agreed more: a client
 * says in Hello.max_datagram the largest it takes, a server has its own
 * limit, and the Welcome announces the smaller (sweep_udp_datagram_agreed),
 * which both sides then use for every datagram of the session both ways.
 * The handshake itself stays within SWEEP_UDP_MAX_DATAGRAM.
 */
#ifndef SWEEP_PROTOCOL_FRAMING_H
#define SWEEP_PROTOCOL_FRAMING_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_FRAME_PREFIX 4u
#define SWEEP_FRAME_DEFAULT_MAX (64u * 1024u) /* bytes after the prefix */
#define SWEEP_UDP_MAX_DATAGRAM 1200u
/* The largest UDP payload over IPv4 (65,535 less the IP and UDP headers):
 * no session agrees more. */
#define SWEEP_UDP_LARGEST_DATAGRAM 65507u
/* Smallest UDP Hello a server answers: a client pads its Hello (Hello.padding)
 * to at least this many bytes, and the server's Challenge is never larger
 * than the Hello it answers, so spoofed Hellos cannot amplify traffic. */
#define SWEEP_UDP_HELLO_MIN 256u

typedef enum sweep_frame_status {
    SWEEP_FRAME_NEED_MORE = 0, /* no complete frame buffered yet */
    SWEEP_FRAME_READY,         /* a frame is available */
    SWEEP_FRAME_TOO_LARGE      /* the next frame announces more than max_frame: stream broken */
} sweep_frame_status;

/* Looks at the start of `data` (len bytes of a stream): READY with
 * *frame_len = prefix + body if a whole frame is there, NEED_MORE, or
 * TOO_LARGE as soon as the 4-byte header says more than max_frame. */
sweep_frame_status sweep_frame_peek(const void *data, size_t len, uint32_t max_frame,
                                    size_t *frame_len);

/* Incremental splitter over storage the caller owns (at least
 * SWEEP_FRAME_PREFIX + max_frame bytes, so any legal frame fits). */
typedef struct sweep_framer {
    uint8_t *buf;
    size_t cap;
    size_t start, end; /* buffered bytes are buf[start, end) */
    uint32_t max_frame;
    int broken;        /* sticky: a too-large frame was announced */
} sweep_framer;

/* SWEEP_PROTO_E_ARG if storage is NULL or smaller than prefix + max_frame. */
sweep_proto_error sweep_framer_init(sweep_framer *f, void *storage, size_t cap, uint32_t max_frame);

/* Copies as many of the len bytes as there is room for and returns how many
 * it took (0 once broken); call sweep_framer_next until NEED_MORE, then
 * feed the rest. */
size_t sweep_framer_feed(sweep_framer *f, const void *data, size_t len);

/* The next frame: READY with *frame, *frame_len (prefix included; valid
 * until the next feed), NEED_MORE, or TOO_LARGE (sticky). */
sweep_frame_status sweep_framer_next(sweep_framer *f, const uint8_t **frame, size_t *frame_len);

/* SWEEP_PROTO_OK, or SWEEP_PROTO_E_FRAME_TOO_LARGE for a frame body above
 * max_frame. For a sender, before writing. */
sweep_proto_error sweep_frame_check(size_t body_len, uint32_t max_frame);

/* SWEEP_PROTO_OK, or SWEEP_PROTO_E_DATAGRAM_TOO_LARGE above SWEEP_UDP_MAX_DATAGRAM. */
sweep_proto_error sweep_datagram_check(size_t len);

/* The datagram size a session agrees: the smaller of what the client asked
 * (Hello.max_datagram; 0, absent, is SWEEP_UDP_MAX_DATAGRAM) and the
 * server's limit, never below SWEEP_UDP_MAX_DATAGRAM (which every client
 * takes) nor above SWEEP_UDP_LARGEST_DATAGRAM. */
uint32_t sweep_udp_datagram_agreed(uint32_t asked, uint32_t server_max);

#ifdef __cplusplus
}
#endif

#endif
