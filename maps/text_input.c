/*
 * text_input.c - numbers and points written as text (see text_input.h).
 */
#include "maps/text_input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sweep_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    /* strtoull would skip blanks and accept a sign (wrapping "-1" around). */
    if (!s || *s < '0' || *s > '9')
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

int sweep_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t v;
    if (!sweep_parse_u64(s, lo, hi, &v))
        return 0;
    *out = (uint32_t)v;
    return 1;
}

int sweep_parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

int sweep_parse_vec3(const char *s, sweep_vec3 *out)
{
    if (!s)
        return 0;
    double v[3];
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (errno || end == p || *end != (i < 2 ? ',' : '\0'))
            return 0;
        p = end + 1;
    }
    *out = sweep_v3(v[0], v[1], v[2]);
    return 1;
}

/* Three numbers and nothing else on the line; 1 if so. */
static int scan_point(const char *p, double v[3])
{
    char *end = (char *)p;
    for (int k = 0; k < 3; k++) {
        const char *start = end;
        errno = 0;
        v[k] = strtod(start, &end);
        if (end == start || errno)
            return 0;
    }
    return end[strspn(end, " \t\r\n")] == '\0';
}

int sweep_read_points(const char *path, double max_abs, sweep_vec3 **out, uint32_t *count, char *err,
                      size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return 0;
    }
    sweep_vec3 *pts = NULL;
    uint32_t n = 0, cap = 0;
    unsigned lineno = 0;
    char line[512];
    int ok = 1;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        const char *p = line + strspn(line, " \t\r\n");
        if (*p == '#' || *p == '\0')
            continue;
        double v[3];
        if (!scan_point(p, v)) {
            snprintf(err, errlen, "%s line %u: expected three numbers 'x y z'", path, lineno);
            ok = 0;
        } else if (!(fabs(v[0]) <= max_abs && fabs(v[1]) <= max_abs && fabs(v[2]) <= max_abs)) {
            snprintf(err, errlen, "%s line %u: coordinates must be finite and at most %g in size", path, lineno,
                     max_abs);
            ok = 0;
        } else if (n == cap) {
            uint32_t ncap = cap ? 2 * cap : 16;
            sweep_vec3 *np = ncap > cap ? realloc(pts, (size_t)ncap * sizeof *np) : NULL;
            if (!np) {
                snprintf(err, errlen, "%s line %u: out of memory", path, lineno);
                ok = 0;
            } else {
                pts = np, cap = ncap;
            }
        }
        if (ok)
            pts[n++] = sweep_v3(v[0], v[1], v[2]);
    }
    if (ok && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        ok = 0;
    }
    fclose(f);
    if (!ok) {
        free(pts);
        return 0;
    }
    *out = pts, *count = n;
    return 1;
}

/* s without the blanks at both ends (in place). */
static char *trim(char *s)
{
    s += strspn(s, " \t\r\n\v\f");
    size_t n = strlen(s);
    while (n > 0 && strchr(" \t\r\n\v\f", s[n - 1]))
        s[--n] = '\0';
    return s;
}

int sweep_split_setting(char *line, char **key, char **value)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *eq = strchr(line, '=');
    if (!eq)
        return *trim(line) ? -1 : 0;
    *eq = '\0';
    *key = trim(line);
    *value = trim(eq + 1);
    return **key && **value ? 1 : -1;
}
