/*
 * build_world.c - the core world over a loaded level, prepared for the
 * level's own body shape (sweep_map_build_world, loader.h).
 *
 * Apart from the SQLite loader, so that a build without SQLite (a level
 * image, level_image.h) builds its world with the same call.
 */
#include "maps/loader.h"

#include <stdio.h>
#include <stdlib.h>

sweep_status sweep_map_build_world(const sweep_level *lv, sweep_world **out, sweep_world_info *world_info,
                                   char *err, size_t errlen)
{
    if (!lv || !out) {
        if (err && errlen)
            snprintf(err, errlen, "no level or no output");
        return SWEEP_E_ARG;
    }
    sweep_world_desc desc = sweep_level_world_desc(lv);
    sweep_world *w = NULL;
    sweep_status st = sweep_world_create(&desc, &w);
    if (st != SWEEP_OK) {
        if (err && errlen)
            snprintf(err, errlen, "building the world failed: %s", sweep_status_message(st));
        return st;
    }
    /* Bodies of the map's own shape, nearly all of them, then find their
     * triangles ready (only speed and memory change). */
    st = sweep_world_prepare_radii(w, lv->default_radii);
    if (st != SWEEP_OK) {
        sweep_world_destroy(w);
        if (err && errlen)
            snprintf(err, errlen, "preparing the world for radii (%g, %g, %g) failed: %s", lv->default_radii.x,
                     lv->default_radii.y, lv->default_radii.z, sweep_status_message(st));
        return st;
    }
    if (lv->volume_count) {
        sweep_volume *v = malloc((size_t)lv->volume_count * sizeof *v);
        uint32_t bad = 0;
        const char *why = "";
        st = SWEEP_E_NOMEM;
        if (v) {
            for (uint32_t i = 0; i < lv->volume_count; i++)
                v[i] = lv->volumes[i].v;
            st = sweep_world_set_volumes(w, v, lv->volume_count, lv->config.max_speed, lv->config.max_coordinate,
                                         &bad, &why);
            free(v);
        }
        if (st != SWEEP_OK) {
            sweep_world_destroy(w);
            if (err && errlen && st == SWEEP_E_NOMEM)
                snprintf(err, errlen, "out of memory for the level's volumes");
            else if (err && errlen)
                snprintf(err, errlen, "volume %u '%s': %s", lv->volumes[bad].id, lv->volumes[bad].name, why);
            return st;
        }
    }
    if (world_info)
        sweep_world_get_info(w, world_info);
    *out = w;
    return SWEEP_OK;
}
