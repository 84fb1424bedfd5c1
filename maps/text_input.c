/*
 * text_input.c - spawn-point files (see text_input.h).
 */
#include "maps/text_input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"

/* Three numbers and nothing else on the line but a '#' comment; 1 if so. */
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
    const char *rest = end + strspn(end, " \t\r\n");
    return *rest == '\0' || *rest == '#';
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
        /* A line longer than the buffer would be read as two: its rest
         * taken for a line of its own (a long comment's tail for a point). */
        size_t got = strlen(line);
        if (got == sizeof line - 1 && line[got - 1] != '\n' && !feof(f)) {
            snprintf(err, errlen, "%s line %u: longer than %zu bytes", path, lineno, sizeof line - 2);
            ok = 0;
            break;
        }
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

