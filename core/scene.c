/*
 * scene.c - a sweep through the whole world (see scene.h).
 *
 * The broad phase is the world-space box around the swept ellipsoid,
 * tested against BVH node boxes depth first, left child before right, with a
 * fixed-size stack (world_impl.h bounds the depth). Candidate triangles are
 * scaled into eSpace on the fly, so one world serves every ellipsoid size.
 */
#include "core/scene.h"

#include "core/swept_sphere.h"
#include "core/world_impl.h"

/* The query box grows by this fraction of the radii, so rounding in the
 * eSpace round trip can never hide a triangle the narrow phase would see. */
#define BOX_MARGIN 1e-3

static int overlaps(const sweep__node *n, sweep_vec3 lo, sweep_vec3 hi)
{
    return lo.x <= n->hi[0] && hi.x >= n->lo[0] && lo.y <= n->hi[1] && hi.y >= n->lo[1] &&
           lo.z <= n->hi[2] && hi.z >= n->lo[2];
}

/* Adds one narrow-phase contact to the running set of earliest contacts. */
static void consider(sweep__scene_result *r, const sweep_sphere_hit *h, uint32_t tri, uint32_t index)
{
    sweep__scene_hit sh = {h->t, h->normal, tri, index};
    if (r->count == 0 || h->t < r->t_min - SWEEP__TIE_EPS) {
        r->count = 1;
        r->hits[0] = sh;
        r->t_min = h->t;
        return;
    }
    if (h->t > r->t_min + SWEEP__TIE_EPS)
        return;
    if (h->t < r->t_min)
        r->t_min = h->t;
    if (r->count < SWEEP__MAX_SIMULTANEOUS) {
        r->hits[r->count++] = sh;
        return;
    }
    /* Full: keep the lowest indices, so the primary is never pushed out. */
    uint32_t worst = 0;
    for (uint32_t i = 1; i < r->count; i++)
        if (r->hits[i].index > r->hits[worst].index)
            worst = i;
    if (index < r->hits[worst].index)
        r->hits[worst] = sh;
}

/* Drops contacts that a later, earlier contact made non-simultaneous and
 * sorts the rest by triangle index (insertion sort: at most 8). */
static void finish(sweep__scene_result *r)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->count; i++)
        if (r->hits[i].t <= r->t_min + SWEEP__TIE_EPS)
            r->hits[k++] = r->hits[i];
    r->count = k;
    for (uint32_t i = 1; i < k; i++) {
        sweep__scene_hit x = r->hits[i];
        uint32_t j = i;
        while (j > 0 && r->hits[j - 1].index > x.index) {
            r->hits[j] = r->hits[j - 1];
            j--;
        }
        r->hits[j] = x;
    }
}

int sweep__scene_sweep(const sweep_world *w, sweep_vec3 radii, sweep_vec3 inv_radii, sweep_vec3 e_from,
                       sweep_vec3 e_disp, sweep__scene_result *out)
{
    if (w->tri_count == 0)
        return 0;
    sweep_vec3 from = sweep_v3_mul(e_from, radii);
    sweep_vec3 to = sweep_v3_mul(sweep_v3_add(e_from, e_disp), radii);
    sweep_vec3 pad = sweep_v3_scale(radii, 1.0 + BOX_MARGIN);
    sweep_vec3 lo = sweep_v3_sub(sweep_v3_min(from, to), pad);
    sweep_vec3 hi = sweep_v3_add(sweep_v3_max(from, to), pad);

    sweep__scene_result r;
    r.count = 0;
    r.t_min = 1.0;
    uint32_t stack[SWEEP__BVH_MAX_DEPTH + 1];
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const sweep__node *n = &w->nodes[stack[--sp]];
        if (!overlaps(n, lo, hi))
            continue;
        if (n->count == 0) {
            /* Push right first so the left subtree is visited first. */
            stack[sp++] = n->first;
            stack[sp++] = (uint32_t)(n - w->nodes) + 1;
            continue;
        }
        for (uint32_t i = n->first; i < n->first + n->count; i++) {
            const sweep__tri *tr = &w->tris[i];
            sweep_vec3 a = sweep_v3_mul(tr->a, inv_radii);
            sweep_vec3 b = sweep_v3_mul(tr->b, inv_radii);
            sweep_vec3 c = sweep_v3_mul(tr->c, inv_radii);
            double tmax = r.count ? r.t_min + SWEEP__TIE_EPS : 1.0;
            if (tmax > 1.0)
                tmax = 1.0;
            sweep_sphere_hit h;
            if (sweep_sphere_sweep_triangle(e_from, e_disp, a, b, c, tmax, &h))
                consider(&r, &h, i, tr->index);
        }
    }
    if (r.count == 0)
        return 0;
    finish(&r);
    *out = r;
    return 1;
}
