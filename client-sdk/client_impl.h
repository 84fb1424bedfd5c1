/*
 * client_impl.h - internal: what the rest of libsweep (predict.c) may do
 * to a client beyond client.h. Not installed.
 */
#ifndef SWEEP_CLIENT_SDK_CLIENT_IMPL_H
#define SWEEP_CLIENT_SDK_CLIENT_IMPL_H

#include "client-sdk/client.h"

/* With mingw-w64, SWEEP__PRINTF names a format stdio.h defines. */
#include <stdio.h>

/* printf-style checking where the compiler has it, nothing elsewhere; with
 * mingw-w64, of the C99 printf its stdio gives (windows.mk asks for it:
 * __USE_MINGW_ANSI_STDIO), not of Microsoft's older one. */
#if defined(__MINGW32__)
#define SWEEP__PRINTF(fmt, args) __attribute__((format(__MINGW_PRINTF_FORMAT, fmt, args)))
#elif defined(__GNUC__) || defined(__clang__)
#define SWEEP__PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SWEEP__PRINTF(fmt, args)
#endif

/* Keeps the outcome of a call made on c outside client*.c (status s, and
 * *err when s is not OK) as sweep_client_last_error(c) reports it;
 * returns s. */
sweep_client_status sweep__client_keep_error(sweep_client *c, sweep_client_status s, const sweep_client_error *err);

#endif
