/*
 * client_impl.h - internal: what the rest of libsweep (predict.c) may do
 * to a client beyond client.h. Not installed.
 */
#ifndef SWEEP_CLIENT_SDK_CLIENT_IMPL_H
#define SWEEP_CLIENT_SDK_CLIENT_IMPL_H

#include "client-sdk/client.h"

/* Keeps the outcome of a call made on c outside client.c (status s, and
 * *err when s is not OK) as sweep_client_last_error(c) reports it;
 * returns s. */
sweep_client_status sweep__client_keep_error(sweep_client *c, sweep_client_status s, const sweep_client_error *err);

#endif
