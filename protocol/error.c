/*
 * error.c - names of the codec's error values (error.h). Kept in one table
 * indexed by the enum so adding a value without a name fails the test that
 * walks every value.
 */
#include "protocol/error.h"

#include <stddef.h>

static const char *const names[SWEEP_PROTO_ERROR_COUNT] = {
    [SWEEP_PROTO_OK] = "OK",
    [SWEEP_PROTO_E_TRUNCATED] = "TRUNCATED",
    [SWEEP_PROTO_E_SIZE_PREFIX] = "SIZE_PREFIX",
    [SWEEP_PROTO_E_TOO_BIG] = "TOO_BIG",
    [SWEEP_PROTO_E_IDENTIFIER] = "IDENTIFIER",
    [SWEEP_PROTO_E_ROOT_OFFSET] = "ROOT_OFFSET",
    [SWEEP_PROTO_E_ALIGNMENT] = "ALIGNMENT",
    [SWEEP_PROTO_E_OFFSET] = "OFFSET",
    [SWEEP_PROTO_E_VTABLE] = "VTABLE",
    [SWEEP_PROTO_E_TABLE_BOUNDS] = "TABLE_BOUNDS",
    [SWEEP_PROTO_E_STRING_BOUNDS] = "STRING_BOUNDS",
    [SWEEP_PROTO_E_STRING_NUL] = "STRING_NUL",
    [SWEEP_PROTO_E_VECTOR_BOUNDS] = "VECTOR_BOUNDS",
    [SWEEP_PROTO_E_UNION_TYPE] = "UNION_TYPE",
    [SWEEP_PROTO_E_UNION_VALUE] = "UNION_VALUE",
    [SWEEP_PROTO_E_REQUIRED] = "REQUIRED",
    [SWEEP_PROTO_E_DEPTH] = "DEPTH",
    [SWEEP_PROTO_E_TOO_MANY_TABLES] = "TOO_MANY_TABLES",
    [SWEEP_PROTO_E_FRAME_TOO_LARGE] = "FRAME_TOO_LARGE",
    [SWEEP_PROTO_E_DATAGRAM_TOO_LARGE] = "DATAGRAM_TOO_LARGE",
    [SWEEP_PROTO_E_CAPACITY] = "CAPACITY",
    [SWEEP_PROTO_E_BUFFER_SPACE] = "BUFFER_SPACE",
    [SWEEP_PROTO_E_ARG] = "ARG",
};

const char *sweep_proto_error_name(sweep_proto_error e)
{
    if ((unsigned)e >= SWEEP_PROTO_ERROR_COUNT || names[e] == NULL)
        return "UNKNOWN";
    return names[e];
}
