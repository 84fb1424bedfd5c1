/*
 * version.h - the release every sweep program and library belongs to.
 * One number for sweepd, the tools and libsweep, so `--version` of any of
 * them, a session log's writer and the pkg-config files agree.
 */
#ifndef SWEEP_CORE_VERSION_H
#define SWEEP_CORE_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif
#define SWEEP_VERSION "0.1.0"

/* SWEEP_VERSION as the library a program runs with was built: a game
 * built against one release's headers can see which one it links. */
const char *sweep_version(void);

#ifdef __cplusplus
}
#endif

#endif
