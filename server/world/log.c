/*
 * log.c - key=value log lines on stderr (see log.h).
 *
 * Each line is formatted into one buffer and written with a single fwrite,
 * so lines from the server never interleave mid-line with other output.
 */
#include "server/world/log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static sweep_log_level sweep__level = SWEEP_LOG_INFO;
static uint64_t sweep__t0;

static const char *const sweep__level_names[] = {"error", "warn", "info", "debug"};

/* The monotonic clock in ns (what uv_hrtime reads): logs are written by
 * the world library too, which links no libuv. */
static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void sweep__log_set_level(sweep_log_level level)
{
    sweep__level = level;
    if (!sweep__t0)
        sweep__t0 = monotonic_ns();
}

int sweep__log_enabled(sweep_log_level level)
{
    return level <= sweep__level;
}

void sweep__log(sweep_log_level level, const char *event, const char *fmt, ...)
{
    if (level > sweep__level)
        return;
    uint64_t now = monotonic_ns();
    if (!sweep__t0)
        sweep__t0 = now;
    uint64_t ms = (now - sweep__t0) / 1000000u;
    /* The wall clock, read separately: it may jump (NTP, an operator) while
     * t, from the monotonic clock, never does. gmtime_r: no shared state,
     * so the metrics thread may log too. */
    struct timespec wall;
    struct tm utc;
    char ts[32] = "1970-01-01T00:00:00";
    clock_gettime(CLOCK_REALTIME, &wall);
    if (gmtime_r(&wall.tv_sec, &utc))
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &utc);
    char line[1024];
    int n = snprintf(line, sizeof line, "ts=%s.%03ldZ t=%llu.%03llu level=%s event=%s", ts, wall.tv_nsec / 1000000L,
                     (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000), sweep__level_names[level],
                     event);
    if (n < 0)
        return;
    if (fmt && *fmt && (size_t)n < sizeof line - 2) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
        if (m > 0)
            n += m;
    }
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    fwrite(line, 1, (size_t)n, stderr);
}

const char *sweep__log_quote(const char *s, size_t len, char *out, size_t outlen)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    if (outlen < 3) {
        if (outlen)
            out[0] = 0;
        return out;
    }
    out[o++] = '"';
    for (size_t i = 0; s && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o + 6 >= outlen)
            break;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = 0;
    return out;
}
