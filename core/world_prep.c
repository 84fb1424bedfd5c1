/*
 * world_prep.c - a world's triangles prepared once for one body shape
 * (see sweep_world_prepare_radii in world.h).
 *
 * A move turns each triangle it tests into ellipsoid space with the data
 * every sweep against it needs (sweep__tri_prepare): on the dense levels of
 * the corpus about 9 triangles a move, close to a tenth of its work. Nearly
 * every body in a world has the map's one player shape, so that work can be
 * done once per world. The scene takes a triangle from here only when its
 * own inverse radii are these, bit for bit, so what it tests is what it
 * would have made itself.
 */
#include "core/world_impl.h"

#include <stdlib.h>

sweep_status sweep_world_prepare_radii(sweep_world *w, sweep_vec3 radii)
{
    if (!w)
        return SWEEP_E_ARG;
    if (!sweep_v3_isfinite(radii) || !(radii.x > 0.0 && radii.y > 0.0 && radii.z > 0.0))
        return SWEEP_E_RADII;
    sweep_vec3 inv = sweep__inverse_radii(radii);
    sweep__tri_prep *prep = NULL;
    if (w->tri_count > 0) {
        prep = sweep__world_alloc((size_t)w->tri_count * sizeof *prep);
        if (!prep)
            return SWEEP_E_NOMEM;
        for (uint32_t i = 0; i < w->tri_count; i++)
            sweep__tri_prepare_espace(&w->tris[i], inv, &prep[i]);
    }
    sweep__world_free(w->prep, (size_t)w->tri_count * sizeof *w->prep);
    w->prep = prep;
    w->prep_inv_radii = inv;
    return SWEEP_OK;
}
