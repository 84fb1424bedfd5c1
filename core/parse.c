/*
 * parse.c - numbers, vectors and settings lines written as text (parse.h).
 */
#include "core/parse.h"

#include <errno.h>
#include <math.h>
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
