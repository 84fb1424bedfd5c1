/*
 * version.h - the release every sweep program and library belongs to.
 * One number for sweepd, the tools and libsweep, so `--version` of any of
 * them, a session log's writer and the pkg-config files agree.
 */
#ifndef SWEEP_CORE_VERSION_H
#define SWEEP_CORE_VERSION_H

#define SWEEP_VERSION "0.1.0"

#endif
