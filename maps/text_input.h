/*
 * text_input.h - numbers and points written as text, as the tools take
 * them: command-line values and spawn-point files.
 *
 * Every tool (sweep-walk, sweep-mapgen, sweep-import, sweep, sweep-bots)
 * reads its numbers through these, so they all refuse the same things the
 * same way: trailing junk, signs on counts, values out of range, and (where
 * a finite number is wanted) NaN and infinity. Settings files of
 * "key = value" lines (sweep-mapgen and sweep-import --rules) are split
 * with sweep_split_setting.
 */
#ifndef SWEEP_MAPS_TEXT_INPUT_H
#define SWEEP_MAPS_TEXT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"

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
 * Reads a file of points, one "x y z" per line (blank lines and lines
 * starting with '#' are skipped), each coordinate finite and at most
 * max_abs in size. On success returns 1 with a malloc'ed array in *out
 * (NULL when the file holds no point) and its length in *count; on failure
 * returns 0 and err says which file and line, and why.
 */
int sweep_read_points(const char *path, double max_abs, sweep_vec3 **out, uint32_t *count, char *err,
                      size_t errlen);

/*
 * Splits one line of a settings file, "key = value", in place: blanks
 * around the key and the value are dropped, and '#' starts a comment that
 * runs to the end of the line. Returns 1 with *key and *value pointing into
 * line, 0 for a line of nothing but blanks and a comment, -1 when the line
 * is not of that form (no '=', or an empty key or value).
 */
int sweep_split_setting(char *line, char **key, char **value);

#endif
