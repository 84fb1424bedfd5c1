/*
 * plot.h - an SVG picture of a level seen along one axis, and of what
 * moved through it: paths (one colour each, named in a legend), marks
 * where something happened, and the paths of the movers.
 *
 * Conventions:
 *   - axis 'z' looks down from above: x to the right, y up. Axis 'x' looks
 *     from +x (y to the right, z up), axis 'y' from -y (x to the right,
 *     z up). Nothing is culled: every static triangle is drawn, and each
 *     mover's mesh where its path starts.
 *   - The picture is 1200 px on its long side. What it shows is the level's
 *     box, widened to what was added to it but never beyond half the
 *     level's size on each side, so one entity that fell off the world
 *     does not shrink the level to a dot; drawing is clipped to that box.
 *   - Points are thinned as they are added: a point closer than about a
 *     pixel to the last one kept is not stored (the last point added is
 *     always drawn). Marks of one kind with the same label in the same
 *     couple of pixels are drawn once; the legend counts them all.
 *   - Memory grows with what is drawn, not with what is added.
 *
 *   sweep_plot *p = sweep_plot_create(&level, 'z');
 *   int t = sweep_plot_track(p, "entity 42");
 *   sweep_plot_point(p, t, position);              ... each move
 *   sweep_plot_mark(p, SWEEP_PLOT_CORRECTION, position, "0.6 off");
 *   if (sweep_plot_write(p, "out.svg", "session 7", err, sizeof err) != 0) ...
 *   sweep_plot_destroy(p);
 */
#ifndef SWEEP_MAPS_PLOT_H
#define SWEEP_MAPS_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"
#include "maps/level.h"

typedef struct sweep_plot sweep_plot;

/* What a mark says happened (each has its own symbol and legend line). */
typedef enum sweep_plot_mark_kind {
    SWEEP_PLOT_CORRECTION = 0, /* red circle */
    SWEEP_PLOT_RULE = 1,       /* orange triangle: a rule acted on a move */
    SWEEP_PLOT_SPAWN = 2,      /* green square */
    SWEEP_PLOT_CRUSH = 3,      /* black cross */
    SWEEP_PLOT_FELL = 4,       /* purple triangle pointing down: where a walker left the level, falling */
    SWEEP_PLOT_HIT = 5,        /* blue diamond: where a query's shot hit */
    SWEEP_PLOT_PAST = 6,       /* hollow blue circle: where a shot's target was at the time the query asked */
    SWEEP_PLOT_MARK_COUNT
} sweep_plot_mark_kind;

/* A plot of lv (NULL: no level) looking along axis 'x', 'y' or 'z'. The
 * plot reads lv again when it writes, so lv must outlive it. NULL for
 * another axis or when memory runs out. */
sweep_plot *sweep_plot_create(const sweep_level *lv, char axis);

/* A new path named `name` (shown in the legend; NULL: "track N"); returns
 * its number, counted from 0, or -1 when memory runs out. */
int sweep_plot_track(sweep_plot *p, const char *name);

/* Adds a point to track `track`. 0, or -1 for an unknown track, a
 * non-finite point or no memory. */
int sweep_plot_point(sweep_plot *p, int track, sweep_vec3 at);

/* Ends the track's current line: its next point starts a new one (a
 * respawn, a teleport), with no line drawn across the gap. */
void sweep_plot_break(sweep_plot *p, int track);

/* A mark; `label` (NULL: none) is shown when the pointer rests on it and
 * is cut to 63 bytes. 0, or -1 as for sweep_plot_point. */
int sweep_plot_mark(sweep_plot *p, sweep_plot_mark_kind kind, sweep_vec3 at, const char *label);

/* Adds a point to the path of the level's mover `index` (lv->movers
 * order), drawn dashed. 0, or -1 for an unknown mover, a non-finite point
 * or no memory. */
int sweep_plot_mover_point(sweep_plot *p, uint32_t index, sweep_vec3 at);

/* Points and marks drawn so far (after thinning), for tools and tests. */
size_t sweep_plot_points_kept(const sweep_plot *p);
size_t sweep_plot_marks_kept(const sweep_plot *p);

/* Writes the picture to `path` with `title` at its top (escaped; NULL:
 * none). 0, or -1 with a message naming the file in err (and no file
 * left behind). */
int sweep_plot_write(const sweep_plot *p, const char *path, const char *title, char *err, size_t errlen);

void sweep_plot_destroy(sweep_plot *p);

#endif
