/*
 * tally.h - counting things by name, for the importers' "skipped: 3 x
 * target_speaker, 1 x shooter_rocket": what a file held that did not
 * become anything is named with its count, never dropped silently.
 * Internal to maps/.
 */
#ifndef SWEEP_MAPS_TALLY_H
#define SWEEP_MAPS_TALLY_H

#include <stddef.h>
#include <stdint.h>

typedef struct sweep__tally_row {
    char *name;
    uint32_t count;
} sweep__tally_row;

typedef struct sweep__tally {
    sweep__tally_row *rows;
    uint32_t count, cap;
    uint32_t total; /* the sum of the rows' counts */
} sweep__tally;

/* Counts one more of name (compared exactly); 0 when memory runs out. */
int sweep__tally_add(sweep__tally *t, const char *name);

/* "3 x target_speaker, 1 x shooter_rocket" into out: most first, equal
 * counts by name, so the same file always gives the same line; cut with
 * "..." when out is too short. */
void sweep__tally_format(sweep__tally *t, char *out, size_t outlen);

/* The rows from `from` on (in that order; sorted when from is 0) that fit
 * whole in out, at least one (cut with "..." if it alone does not fit);
 * returns the row after the last written, t->count when all are. For a
 * list told over several lines. */
uint32_t sweep__tally_format_part(sweep__tally *t, uint32_t from, char *out, size_t outlen);

void sweep__tally_free(sweep__tally *t);

#endif
