/*
 * verify_internal.h - internal: the verifier with its fast path for a
 * Move and a MoveBatch (verify.c) switchable, so tests can hold the fast
 * path to the general walk's answer on any bytes.
 */
#ifndef SWEEP_PROTOCOL_VERIFY_INTERNAL_H
#define SWEEP_PROTOCOL_VERIFY_INTERNAL_H

#include "protocol/verify.h"

/* sweep_verify_with, taking the fast path for a Message whose body is a
 * Move or a MoveBatch only when `fast` is nonzero (sweep_verify_with
 * passes 1). */
sweep_proto_error sweep__verify_general(const void *buf, size_t len, unsigned flags,
                                        const sweep_verify_limits *limits, int fast);

#endif
