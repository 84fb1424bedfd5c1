/*
 * parse.h - numbers, vectors and settings lines written as text, as every
 * tool takes them: command-line values and "key = value" files.
 *
 * Every tool (sweep-walk, sweep-mapgen, sweep-import, sweep, sweep-bots)
 * reads its numbers through these, so they all refuse the same things the
 * same way: trailing junk, signs on counts, values out of range, and (where
 * a finite number is wanted) NaN and infinity. Pure string functions: no
 * file is opened here.
 */
#ifndef SWEEP_CORE_PARSE_H
#define SWEEP_CORE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A whole decimal number in [lo, hi], no sign, nothing after it. 1 if so. */
int sweep_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int sweep_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out);

/* A number in [lo, hi] (so never NaN), nothing after it. 1 if so. */
int sweep_parse_double(const char *s, double lo, double hi, double *out);

/* "X,Y,Z": three numbers, commas between, nothing after. NaN and infinity
 * are read as such (a client may want to send them on purpose); callers
 * that need finite values check with sweep_v3_isfinite. 1 if so. */
int sweep_parse_vec3(const char *s, sweep_vec3 *out);

/*
 * Splits one line of a settings file, "key = value", in place: blanks
 * around the key and the value are dropped, and '#' starts a comment that
 * runs to the end of the line. Returns 1 with *key and *value pointing into
 * line, 0 for a line of nothing but blanks and a comment, -1 when the line
 * is not of that form (no '=', or an empty key or value).
 */
int sweep_split_setting(char *line, char **key, char **value);

#ifdef __cplusplus
}
#endif

#endif
