/*
 * import_scene_xform.c - the scene importer's transforms: assimp's
 * single-precision matrices widened to double and composed there, points
 * taken to map coordinates (z up, scaled), and a transform's linear part
 * split into scale and rotation for the movers' keyframes.
 */
#include "maps/import_scene_impl.h"

#include <math.h>
#include <string.h>

/* --- transforms ----------------------------------------------------------- */

xform sweep__scene_xform_of(const struct aiMatrix4x4 *a)
{
    xform x = {{{a->a1, a->a2, a->a3, a->a4}, {a->b1, a->b2, a->b3, a->b4}, {a->c1, a->c2, a->c3, a->c4}}};
    return x;
}

xform sweep__scene_xform_diag(double sx, double sy, double sz)
{
    xform x = {{{sx, 0, 0, 0}, {0, sy, 0, 0}, {0, 0, sz, 0}}};
    return x;
}

/* parent * local, both affine. */
xform sweep__scene_xform_mul(const xform *p, const xform *l)
{
    xform r;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++)
            r.m[i][j] = p->m[i][0] * l->m[0][j] + p->m[i][1] * l->m[1][j] + p->m[i][2] * l->m[2][j];
        r.m[i][3] += p->m[i][3];
    }
    return r;
}

/* A point of the file through a node transform, to z up, then scaled. */
sweep_vec3 sweep__scene_to_map(const importer *im, const xform *x, double px, double py, double pz)
{
    double v[3];
    for (int i = 0; i < 3; i++)
        v[i] = x->m[i][0] * px + x->m[i][1] * py + x->m[i][2] * pz + x->m[i][3];
    double s = im->opt->scale;
    if (im->opt->up_axis_y)
        return sweep_v3(v[0] * s, -v[2] * s, v[1] * s);
    return sweep_v3(v[0] * s, v[1] * s, v[2] * s);
}

/* -0 as +0: a map stores a whole-number REAL as an integer, so it keeps
 * no sign on zero; a mover made with +0 is bit for bit what its map loads
 * (and hashes the same on the server). */
double sweep__scene_plus_zero(double x)
{
    return x == 0.0 ? 0.0 : x;
}

sweep_vec3 sweep__scene_v3_plus_zero(sweep_vec3 v)
{
    return sweep_v3(sweep__scene_plus_zero(v.x), sweep__scene_plus_zero(v.y), sweep__scene_plus_zero(v.z));
}

sweep_quat sweep__scene_quat_plus_zero(sweep_quat q)
{
    sweep_quat r = {sweep__scene_plus_zero(q.x), sweep__scene_plus_zero(q.y), sweep__scene_plus_zero(q.z),
                    sweep__scene_plus_zero(q.w)};
    return r;
}

int sweep__scene_within_limit(const importer *im, sweep_vec3 v)
{
    double l = im->lv->config.max_coordinate;
    return sweep_v3_isfinite(v) && fabs(v.x) <= l && fabs(v.y) <= l && fabs(v.z) <= l;
}

/* The unit quaternion of a rotation matrix r (rows; r applied to column
 * vectors), by the largest of w, x, y, z so the division is well away from
 * zero. Import time only. */
sweep_quat sweep__scene_quat_of_matrix(const double r[3][3])
{
    sweep_quat q;
    double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q.w = 0.25 * s, q.x = (r[2][1] - r[1][2]) / s, q.y = (r[0][2] - r[2][0]) / s, q.z = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double s = sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2.0;
        q.w = (r[2][1] - r[1][2]) / s, q.x = 0.25 * s, q.y = (r[0][1] + r[1][0]) / s, q.z = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        double s = sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2.0;
        q.w = (r[0][2] - r[2][0]) / s, q.x = (r[0][1] + r[1][0]) / s, q.y = 0.25 * s, q.z = (r[1][2] + r[2][1]) / s;
    } else {
        double s = sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2.0;
        q.w = (r[1][0] - r[0][1]) / s, q.x = (r[0][2] + r[2][0]) / s, q.y = (r[1][2] + r[2][1]) / s, q.z = 0.25 * s;
    }
    return sweep_quat_normalize(q);
}

/* The turn from file axes to map axes: (x, y, z) -> (x, -z, y) for a y-up
 * file (a quarter turn about x), none otherwise. */
void sweep__scene_axis_turn(const importer *im, double c[3][3])
{
    static const double y_up[3][3] = {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}};
    static const double z_up[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(c, im->opt->up_axis_y ? y_up : z_up, sizeof y_up);
}

static double det3(const double a[3][3])
{
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

/* Whether points through x, then to map axes, are mirrored: a triangle
 * must then be wound the other way to keep its front (glTF says as much
 * of a node whose transform has a negative determinant). The axis turn
 * is a rotation and the scale positive, but they are counted anyway. */
int sweep__scene_mirrors(const importer *im, const xform *x)
{
    double c[3][3], l[3][3];
    sweep__scene_axis_turn(im, c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            l[i][j] = x->m[i][j];
    return det3((const double(*)[3])l) * det3((const double(*)[3])c) < 0.0;
}

/*
 * Splits the linear part of x into scale and rotation: column j of x is
 * scale[j] times column j of rot. 0 when that is not possible: a zero or
 * non-finite column, axes that are not orthogonal (shear), or a mirror.
 */
int sweep__scene_split_linear(const xform *x, double scale[3], double rot[3][3])
{
    for (int j = 0; j < 3; j++) {
        scale[j] = sqrt(x->m[0][j] * x->m[0][j] + x->m[1][j] * x->m[1][j] + x->m[2][j] * x->m[2][j]);
        if (!(scale[j] > 0.0 && isfinite(scale[j])))
            return 0;
        for (int i = 0; i < 3; i++)
            rot[i][j] = x->m[i][j] / scale[j];
    }
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (!(fabs(rot[0][a] * rot[0][b] + rot[1][a] * rot[1][b] + rot[2][a] * rot[2][b]) <= FLOAT_SLACK))
                return 0;
    return det3((const double(*)[3])rot) > 0.0;
}
