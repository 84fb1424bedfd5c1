/*
 * text_input.h - spawn-point files, as the map tools (sweep-walk,
 * sweep-import, sweep-mapgen) take them. Numbers on command lines and
 * settings lines are core/parse.h's.
 */
#ifndef SWEEP_MAPS_TEXT_INPUT_H
#define SWEEP_MAPS_TEXT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reads a file of points, one "x y z" per line ('#' starts a comment,
 * at the start of a line or after its numbers; blank lines and comment
 * lines are skipped), each coordinate finite and at most
 * max_abs in size. On success returns 1 with a malloc'ed array in *out
 * (NULL when the file holds no point) and its length in *count; on failure
 * returns 0 and err says which file and line, and why.
 */
int sweep_read_points(const char *path, double max_abs, sweep_vec3 **out, uint32_t *count, char *err,
                      size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
