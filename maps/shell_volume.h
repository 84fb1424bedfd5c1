/*
 * shell_volume.h - internal: a volume (core/volume.h) from a closed convex
 * triangle shell, as a scene importer finds one in a node's meshes
 * (maps/import_scene_nodes.c). Not installed.
 *
 * The shell is the region of player centres the volume acts in (nothing
 * is grown by a player's radii: a designer draws where the centre
 * triggers). It must be closed and consistently wound outward (vertices
 * welded by exact position, every edge run once each way) and convex
 * (every vertex on or behind every face's plane, within a millionth of
 * the shell's size), or it is refused with what is wrong and where. The
 * volume is the shell's bounding box cut by the planes of its faces that
 * are not along an axis (the box holds those), coplanar faces merged into
 * one plane; each plane's offset is the farthest vertex along it, so that
 * every vertex of the shell is inside.
 */
#ifndef SWEEP_MAPS_SHELL_VOLUME_H
#define SWEEP_MAPS_SHELL_VOLUME_H

#include <stddef.h>
#include <stdint.h>

#include "core/volume.h"

/* Fills the box and planes of *v (its kind and what the kind reads are the
 * caller's) from the triangles tri[3 i .. 3 i + 2], i < ntri, indices into
 * pts[0 .. npts). Returns 0, or -1 with why (what is wrong, a vertex or an
 * edge named by position). */
int sweep__shell_volume(const sweep_vec3 *pts, uint32_t npts, const uint32_t *tri, uint32_t ntri, sweep_volume *v,
                        char *why, size_t whylen);

#endif
