/*
 * replay_plot.h - sweep-replay --svg: a picture of a replayed session.
 *
 * The level seen along one axis (z: from above), each entity's path from
 * its MoveResults (a colour per entity), where corrections and rule
 * reports happened, where entities spawned and were crushed, and the path
 * of each mover; drawn with maps/plot.h.
 */
#ifndef SWEEP_CLIENT_REPLAY_PLOT_H
#define SWEEP_CLIENT_REPLAY_PLOT_H

#include <stddef.h>

#include "client-sdk/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sweep_replay_plot sweep_replay_plot;

/* Watches r from now on; axis is 'x', 'y' or 'z'. NULL if out of memory. */
sweep_replay_plot *sweep_replay_plot_start(sweep_replay *r, char axis);

/* sweep_replay_run, sampling the movers each tick. */
int sweep_replay_plot_run(sweep_replay_plot *p);

/* Writes the SVG (title: shown in the picture). 0, or -1 with err. */
int sweep_replay_plot_write(sweep_replay_plot *p, const char *path, const char *title, char *err, size_t errlen);

/* Detaches the plot from its replay and frees it: call it before
 * sweep_replay_close. */
void sweep_replay_plot_free(sweep_replay_plot *p);

#ifdef __cplusplus
}
#endif

#endif
