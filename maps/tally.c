/*
 * tally.c - counting things by name (tally.h). The lists are short (the
 * kinds of entity a level holds), so a name is found by a linear search.
 */
#include "maps/tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/grow.h"

int sweep__tally_add(sweep__tally *t, const char *name)
{
    t->total++;
    for (uint32_t i = 0; i < t->count; i++)
        if (strcmp(t->rows[i].name, name) == 0) {
            t->rows[i].count++;
            return 1;
        }
    if (!sweep__grow((void **)&t->rows, &t->cap, (uint64_t)t->count + 1, sizeof *t->rows))
        return 0;
    char *copy = strdup(name);
    if (!copy)
        return 0;
    t->rows[t->count++] = (sweep__tally_row){copy, 1};
    return 1;
}

static int by_count_then_name(const void *pa, const void *pb)
{
    const sweep__tally_row *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->name, b->name);
}

uint32_t sweep__tally_format_part(sweep__tally *t, uint32_t from, char *out, size_t outlen)
{
    if (!outlen)
        return from;
    out[0] = '\0';
    if (from == 0 && t->count > 1)
        qsort(t->rows, t->count, sizeof *t->rows, by_count_then_name);
    size_t len = 0;
    uint32_t i = from;
    for (; i < t->count; i++) {
        int n = snprintf(out + len, outlen - len, "%s%u x %s", i > from ? ", " : "", t->rows[i].count,
                         t->rows[i].name);
        if (n < 0 || (size_t)n >= outlen - len) {
            out[len] = '\0';
            if (i > from)
                return i; /* the last whole row */
            /* A row too long for a line alone is cut, and passed. */
            if (outlen > 4)
                strcpy(out + outlen - 4, "...");
            return i + 1;
        }
        len += (size_t)n;
    }
    return i;
}

void sweep__tally_format(sweep__tally *t, char *out, size_t outlen)
{
    if (outlen && sweep__tally_format_part(t, 0, out, outlen) < t->count) {
        /* Cut at the last whole item, leaving room for the mark. */
        size_t len = strlen(out);
        if (len + 5 < outlen)
            strcpy(out + len, ", ...");
        else if (outlen > 4)
            strcpy(out + outlen - 4, "...");
    }
}

void sweep__tally_free(sweep__tally *t)
{
    for (uint32_t i = 0; i < t->count; i++)
        free(t->rows[i].name);
    free(t->rows);
    t->rows = NULL;
    t->count = t->cap = t->total = 0;
}
