/*
 * log.h - sweepd's structured logs: one line per event on stderr, made of
 * key=value pairs, so that both people and log collectors can read them.
 *
 *   ts=2026-11-23T17:12:03.123Z t=12.345 level=info event=session_open session=3 transport=tcp peer=127.0.0.1:50312
 *
 * ts is the wall-clock time the line was written (UTC, milliseconds, RFC
 * 3339), for lining the log up with other machines' logs; t is seconds
 * since the process started logging (monotonic), for durations that a
 * clock step cannot bend. Lines may be written from any thread. Values that
 * may hold spaces or quotes from the network (client names, messages) are
 * written quoted with sweep__log_quote. The level is process-wide, set once
 * at start-up.
 */
#ifndef SWEEP_SERVER_LOG_H
#define SWEEP_SERVER_LOG_H

#include <stddef.h>

/* How much sweepd and the world library say (--log-level). */
typedef enum sweep_log_level {
    SWEEP_LOG_ERROR = 0,
    SWEEP_LOG_WARN,
    SWEEP_LOG_INFO,
    SWEEP_LOG_DEBUG
} sweep_log_level;

void sweep__log_set_level(sweep_log_level level);
int sweep__log_enabled(sweep_log_level level);

/* Writes "ts=... t=... level=L event=EVENT " then the printf-formatted pairs. */
void sweep__log(sweep_log_level level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies s into out as a double-quoted value: quotes and backslashes are
 * escaped, control and non-ASCII bytes become \xHH, and the text is cut to
 * fit. Returns out. */
const char *sweep__log_quote(const char *s, size_t len, char *out, size_t outlen);

#endif
