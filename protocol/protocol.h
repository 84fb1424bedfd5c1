/*
 * protocol.h - the whole public protocol API in one include: messages and
 * wire codes (message.h), codec errors (error.h), verifier (verify.h),
 * decoder (decode.h), encoder (encode.h), framing (framing.h) and identity
 * tokens (token.h).
 * builder.h is public too, for tools that write custom buffers.
 * It declares nothing itself, so it needs no extern "C" block: each header
 * it includes has its own, for C++ callers.
 */
#ifndef SWEEP_PROTOCOL_PROTOCOL_H
#define SWEEP_PROTOCOL_PROTOCOL_H

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/error.h"
#include "protocol/framing.h"
#include "protocol/message.h"
#include "protocol/token.h"
#include "protocol/verify.h"

#endif
