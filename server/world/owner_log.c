/*
 * owner_log.c - the log lines an owner's requests cause, capped per owner.
 *
 * A session decides how often it sends a request, so every line a request
 * writes (a MoverCommand's, an EntityCommands', an OpenWorld's, a move
 * ignored, an Error at debug level) is one the session could otherwise
 * write as fast as the server reads: a game server's MoverCommands alone
 * came to 19,000 lines a second. Each owner may cause at most
 * SWEEP__LINE_LOG_RATE such lines a second (a burst of as many, by the
 * request's clock), whatever their kind and role; the lines it loses are
 * counted, and the next line written, and session_close, say how many
 * (suppressed=N). Rule lines have a bucket of their own (rules.c), so a
 * flood of requests cannot hide what the rules did, nor the reverse.
 */
#include <stdarg.h>
#include <stdio.h>

#include "server/world/world_impl.h"

void sweep__owner_log(sweep__owner *o, uint64_t now, sweep_log_level level, const char *event, const char *fmt, ...)
{
    /* A line the level leaves out costs the owner nothing. */
    if (!sweep__log_enabled(level))
        return;
    if (!sweep__bucket_take(&o->line_log, 1.0, now)) {
        o->line_log_suppressed++;
        return;
    }
    char pairs[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pairs, sizeof pairs, fmt, ap);
    va_end(ap);
    sweep__log(level, event, "%s suppressed=%llu", pairs, (unsigned long long)o->line_log_suppressed);
    o->line_log_suppressed = 0;
}
