/*
 * error.h - what the codec reports when a buffer, a frame or a call is
 * refused.
 *
 * Every class of invalid input has its own value, so a test (or a log line)
 * can say exactly why a buffer was refused, and the fuzzer can tell classes
 * apart. The server turns them into the coarser wire codes of sweep.fbs with
 * sweep_wire_code_from_proto (message.h); the names below are stable.
 */
#ifndef SWEEP_PROTOCOL_ERROR_H
#define SWEEP_PROTOCOL_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sweep_proto_error {
    SWEEP_PROTO_OK = 0,
    /* Verifier: the buffer as a whole. */
    SWEEP_PROTO_E_TRUNCATED,        /* shorter than its header or than its size prefix says */
    SWEEP_PROTO_E_SIZE_PREFIX,      /* size prefix smaller than the bytes given (trailing bytes) */
    SWEEP_PROTO_E_TOO_BIG,          /* larger than the format's 2 GiB limit */
    SWEEP_PROTO_E_IDENTIFIER,       /* file identifier is not "SWP1" */
    SWEEP_PROTO_E_ROOT_OFFSET,      /* root offset zero or pointing outside the buffer */
    /* Verifier: objects inside it. */
    SWEEP_PROTO_E_ALIGNMENT,        /* a table, vtable, field, string or vector misaligned */
    SWEEP_PROTO_E_OFFSET,           /* an offset field zero, negative or outside the buffer */
    SWEEP_PROTO_E_VTABLE,           /* vtable outside the buffer, or its size odd or < 4 */
    SWEEP_PROTO_E_TABLE_BOUNDS,     /* table or one of its fields outside the table/buffer */
    SWEEP_PROTO_E_STRING_BOUNDS,    /* string length runs past the buffer */
    SWEEP_PROTO_E_STRING_NUL,       /* string not followed by its NUL terminator */
    SWEEP_PROTO_E_VECTOR_BOUNDS,    /* vector element count runs past the buffer */
    SWEEP_PROTO_E_UNION_TYPE,       /* union type not in the schema */
    SWEEP_PROTO_E_UNION_VALUE,      /* union type without value, or value without type */
    SWEEP_PROTO_E_REQUIRED,         /* a field marked (required) in sweep.fbs is absent */
    SWEEP_PROTO_E_DEPTH,            /* tables nested deeper than the limit */
    SWEEP_PROTO_E_TOO_MANY_TABLES,  /* more tables visited than the limit */
    /* Framing. */
    SWEEP_PROTO_E_FRAME_TOO_LARGE,  /* TCP frame size above the configured maximum */
    SWEEP_PROTO_E_DATAGRAM_TOO_LARGE, /* UDP datagram above SWEEP_UDP_MAX_DATAGRAM */
    /* Decoder and encoder. */
    SWEEP_PROTO_E_CAPACITY,         /* more elements than the caller's storage (or contacts) holds */
    SWEEP_PROTO_E_BUFFER_SPACE,     /* encoder: output buffer too small */
    SWEEP_PROTO_E_ARG,              /* NULL pointer, unknown kind, missing required value */
    SWEEP_PROTO_ERROR_COUNT
} sweep_proto_error;

/* Stable upper-case name ("OK", "TRUNCATED", ...); "UNKNOWN" if out of range. */
const char *sweep_proto_error_name(sweep_proto_error e);

#ifdef __cplusplus
}
#endif

#endif
