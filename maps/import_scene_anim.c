/*
 * import_scene_anim.c - a scene's animation channels into a mover's
 * keyframes.
 *
 * A mover's keyframes are computed here, once: the animation's keys
 * merged on one time line, lerped and nlerped, composed with the parents'
 * transforms and turned z up. This is where an animation's sines and
 * cosines stay: the server and the clients only ever lerp and nlerp what
 * the map stores.
 */
#include "maps/import_scene_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What assimp's documentation suggests when a file gives no tick rate. */
#define DEFAULT_TICKS_PER_SECOND 25.0

/* --- animation channels --------------------------------------------------- */

static int channel_cmp(const void *a, const void *b)
{
    const channel_ref *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Indexes every animation channel by node name. */
int sweep__scene_index_channels(importer *im)
{
    const struct aiScene *sc = im->scene;
    uint64_t total = 0;
    for (unsigned a = 0; a < sc->mNumAnimations; a++)
        if (sc->mAnimations[a])
            total += sc->mAnimations[a]->mNumChannels;
    if (total == 0)
        return 1;
    if (total > UINT32_MAX / 2)
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "more than %u animation channels", UINT32_MAX / 2);
    im->channels = malloc((size_t)total * sizeof *im->channels);
    if (!im->channels)
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    for (unsigned a = 0; a < sc->mNumAnimations; a++) {
        const struct aiAnimation *an = sc->mAnimations[a];
        for (unsigned c = 0; an && c < an->mNumChannels; c++) {
            if (!an->mChannels[c])
                continue;
            channel_ref *r = &im->channels[im->channel_count++];
            r->node = an->mChannels[c]->mNodeName.data;
            r->anim = an;
            r->ch = an->mChannels[c];
            r->order = (uint64_t)a << 32 | c;
        }
    }
    qsort(im->channels, im->channel_count, sizeof *im->channels, channel_cmp);
    return 1;
}

/* The first channel that animates node `name`, and in *more how many more
 * do; NULL if none. */
const channel_ref *sweep__scene_find_channel(const importer *im, const char *name, uint32_t *more)
{
    uint32_t lo = 0, hi = im->channel_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(im->channels[mid].node, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == im->channel_count || strcmp(im->channels[lo].node, name) != 0)
        return NULL;
    uint32_t end = lo + 1;
    while (end < im->channel_count && strcmp(im->channels[end].node, name) == 0)
        end++;
    if (more)
        *more = end - lo - 1;
    return &im->channels[lo];
}

int sweep__scene_channel_moves(const struct aiNodeAnim *ch)
{
    return ch->mNumPositionKeys > 1 || ch->mNumRotationKeys > 1 || ch->mNumScalingKeys > 1;
}

/* Checks a channel's key times (ticks, tps a second): finite, not
 * negative, strictly increasing. They are told in seconds, as the file
 * gives them: assimp's ticks are its own (a glTF's are milliseconds). */
static int check_times(importer *im, const char *mover, const char *what, const double *t0, size_t stride, unsigned n,
                       double tps)
{
    double prev = 0.0;
    for (unsigned i = 0; i < n; i++) {
        double t = *(const double *)((const char *)t0 + i * stride);
        if (!isfinite(t) || t < 0.0)
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                     "mover '%s': %s key %u is at %g s (before 0, or not a number)", mover, what, i,
                                     t / tps);
        if (i > 0 && !(t > prev))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                     "mover '%s': %s keys %u and %u are not in increasing time order (%g s, %g s); a "
                                     "step animation cannot be a mover",
                                     mover, what, i - 1, i, prev / tps, t / tps);
        prev = t;
    }
    return 1;
}

static sweep_vec3 vkey(const struct aiVectorKey *k)
{
    return sweep_v3(k->mValue.x, k->mValue.y, k->mValue.z);
}

static sweep_quat qkey(const struct aiQuatKey *k)
{
    sweep_quat q = {k->mValue.x, k->mValue.y, k->mValue.z, k->mValue.w};
    return sweep_quat_normalize(q);
}

/* Position keys k[0..n) at time t (ticks): lerp, held at the ends. */
static sweep_vec3 position_at(const struct aiVectorKey *k, unsigned n, double t)
{
    if (t <= k[0].mTime)
        return vkey(&k[0]);
    for (unsigned i = 0; i + 1 < n; i++) {
        if (t <= k[i + 1].mTime) {
            double u = (t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime);
            sweep_vec3 a = vkey(&k[i]), b = vkey(&k[i + 1]);
            return sweep_v3_add(a, sweep_v3_scale(sweep_v3_sub(b, a), u));
        }
    }
    return vkey(&k[n - 1]);
}

/* Rotation keys k[0..n) at time t (ticks): nlerp, held at the ends. */
static sweep_quat rotation_at(const struct aiQuatKey *k, unsigned n, double t)
{
    if (t <= k[0].mTime)
        return qkey(&k[0]);
    for (unsigned i = 0; i + 1 < n; i++)
        if (t <= k[i + 1].mTime)
            return sweep_quat_nlerp(qkey(&k[i]), qkey(&k[i + 1]),
                                    (t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime));
    return qkey(&k[n - 1]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * The keyframes of mover mi from the animation channel of its node n: the
 * channel gives the node's local translation, rotation and scale over time
 * (a part without keys keeps the node's rest value); parent is the parents'
 * rest transform. The pose at time t is parent * local(t), turned z up and
 * scaled; what is not rigid in it (the node's own scale, the parents'
 * uniform scale) goes into *vx, the transform of the mover's local vertices.
 */
int sweep__scene_keys(importer *im, uint32_t mi, const struct aiNode *n, const channel_ref *cr, const xform *parent,
                      xform *vx)
{
    const struct aiNodeAnim *ch = cr->ch;
    const char *name = im->lv->movers[mi].name;
    double tps = cr->anim->mTicksPerSecond;
    if (!(isfinite(tps) && tps > 0.0))
        tps = DEFAULT_TICKS_PER_SECOND;
    if (!check_times(im, name, "position", ch->mNumPositionKeys ? &ch->mPositionKeys[0].mTime : NULL,
                     sizeof *ch->mPositionKeys, ch->mNumPositionKeys, tps) ||
        !check_times(im, name, "rotation", ch->mNumRotationKeys ? &ch->mRotationKeys[0].mTime : NULL,
                     sizeof *ch->mRotationKeys, ch->mNumRotationKeys, tps) ||
        !check_times(im, name, "scaling", ch->mNumScalingKeys ? &ch->mScalingKeys[0].mTime : NULL,
                     sizeof *ch->mScalingKeys, ch->mNumScalingKeys, tps))
        return 0;
    for (unsigned i = 0; i < ch->mNumRotationKeys; i++) {
        const struct aiQuaternion *q = &ch->mRotationKeys[i].mValue;
        double l2 = (double)q->x * q->x + (double)q->y * q->y + (double)q->z * q->z + (double)q->w * q->w;
        if (!(isfinite(l2) && l2 > 1e-12))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "mover '%s': rotation key %u is not a rotation", name, i);
    }
    for (unsigned i = 0; i < ch->mNumPositionKeys; i++)
        if (!sweep_v3_isfinite(vkey(&ch->mPositionKeys[i])))
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "mover '%s': position key %u is not finite", name, i);

    /* The node's rest transform stands in for a part the channel leaves out
     * (glTF files through assimp always have all three). */
    xform rest = sweep__scene_xform_of(&n->mTransformation);
    double rest_scale[3], rest_rot[3][3];
    int rest_ok = sweep__scene_split_linear(&rest, rest_scale, rest_rot);
    if (!rest_ok && (ch->mNumRotationKeys == 0 || ch->mNumScalingKeys == 0))
        return sweep__scene_fail(
            im, SWEEP_E_GEOMETRY,
            "mover '%s' (node '%s'): its rest transform shears or mirrors it; a mover must stay rigid", name,
            n->mName.data);

    /* The node's own scale: constant over the animation, baked into the
     * local vertices. */
    double own[3] = {rest_scale[0], rest_scale[1], rest_scale[2]};
    if (ch->mNumScalingKeys > 0) {
        sweep_vec3 s0 = vkey(&ch->mScalingKeys[0]);
        own[0] = s0.x, own[1] = s0.y, own[2] = s0.z;
        for (unsigned i = 0; i < 3; i++)
            if (!(isfinite(own[i]) && fabs(own[i]) > 1e-12))
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "mover '%s': its scale (%g, %g, %g) flattens or breaks it", name, own[0],
                                         own[1], own[2]);
        for (unsigned i = 1; i < ch->mNumScalingKeys; i++) {
            sweep_vec3 s = vkey(&ch->mScalingKeys[i]);
            if (!(fabs(s.x - s0.x) <= FLOAT_SLACK * fabs(s0.x) && fabs(s.y - s0.y) <= FLOAT_SLACK * fabs(s0.y) &&
                  fabs(s.z - s0.z) <= FLOAT_SLACK * fabs(s0.z)))
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "mover '%s': its scale changes over the animation (key %u); a mover is rigid",
                                         name, i);
        }
    }

    /* The parents: a rotation and one uniform scale, or the mover would
     * change shape as it turns. */
    double pscale[3], prot[3][3];
    if (!sweep__scene_split_linear(parent, pscale, prot) || !(fabs(pscale[1] - pscale[0]) <= FLOAT_SLACK * pscale[0]) ||
        !(fabs(pscale[2] - pscale[0]) <= FLOAT_SLACK * pscale[0]))
        return sweep__scene_fail(
            im, SWEEP_E_GEOMETRY,
            "mover '%s' (node '%s'): its parent nodes scale it unevenly, shear or mirror it; a mover "
            "must stay rigid",
            name, n->mName.data);
    double s = pscale[0];
    *vx = sweep__scene_xform_diag(s * own[0], s * own[1], s * own[2]);

    /* Map rotation at t: c * p * r(t) * c^-1, with c the axis turn and p
     * the parents' rotation. */
    double c[3][3], cp[3][3];
    sweep__scene_axis_turn(im, c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cp[i][j] = c[i][0] * prot[0][j] + c[i][1] * prot[1][j] + c[i][2] * prot[2][j];
    sweep_quat pre = sweep__scene_quat_of_matrix((const double(*)[3])cp),
               post = sweep_quat_conj(sweep__scene_quat_of_matrix((const double(*)[3])c));
    sweep_vec3 rest_t = sweep_v3(rest.m[0][3], rest.m[1][3], rest.m[2][3]);
    sweep_quat rest_q = rest_ok ? sweep__scene_quat_of_matrix((const double(*)[3])rest_rot) : sweep_quat_identity();

    /* One time line: every position and rotation key time, and 0. */
    size_t nt = (size_t)ch->mNumPositionKeys + ch->mNumRotationKeys + 1;
    double *times = malloc(nt * sizeof *times);
    if (!times)
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    size_t k = 0;
    times[k++] = 0.0;
    for (unsigned i = 0; i < ch->mNumPositionKeys; i++)
        times[k++] = ch->mPositionKeys[i].mTime;
    for (unsigned i = 0; i < ch->mNumRotationKeys; i++)
        times[k++] = ch->mRotationKeys[i].mTime;
    qsort(times, nt, sizeof *times, cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < nt; i++)
        if (u == 0 || times[i] != times[u - 1])
            times[u++] = times[i];
    if (u < 2) {
        free(times);
        return sweep__scene_fail(
            im, SWEEP_E_GEOMETRY,
            "mover '%s' (node '%s'): its animation has a single key time; a mover needs two or more", name,
            n->mName.data);
    }
    if (u > SWEEP_MOVER_MAX_KEYFRAMES) {
        free(times);
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                 "mover '%s' (node '%s'): %zu key times, more than the %u a mover may have", name,
                                 n->mName.data, u, SWEEP_MOVER_MAX_KEYFRAMES);
    }
    int ok = 1;
    double prev = -1.0;
    for (size_t i = 0; ok && i < u; i++) {
        double t = times[i];
        sweep_vec3 lp = ch->mNumPositionKeys ? position_at(ch->mPositionKeys, ch->mNumPositionKeys, t) : rest_t;
        sweep_quat lq = ch->mNumRotationKeys ? rotation_at(ch->mRotationKeys, ch->mNumRotationKeys, t) : rest_q;
        sweep_vec3 p = sweep__scene_v3_plus_zero(sweep__scene_to_map(im, parent, lp.x, lp.y, lp.z));
        sweep_quat q = sweep__scene_quat_plus_zero(sweep_quat_normalize(sweep_quat_mul(sweep_quat_mul(pre, lq), post)));
        double seconds = t / tps;
        if (!sweep__scene_within_limit(im, p))
            ok = sweep__scene_fail(
                im, SWEEP_E_GEOMETRY,
                "mover '%s' (node '%s'): at %g s it is at (%g, %g, %g), not finite or beyond the coordinate "
                "limit %g (check --scale)",
                name, n->mName.data, seconds, p.x, p.y, p.z, im->lv->config.max_coordinate);
        else if (!(seconds > prev && seconds <= SWEEP_MOVER_MAX_SECONDS))
            ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                   "mover '%s' (node '%s'): key time %g s is too close to the one before or past %g s",
                                   name, n->mName.data, seconds, SWEEP_MOVER_MAX_SECONDS);
        else if (sweep_level_mover_add_keyframe(&im->lv->movers[mi], seconds, p, q) != SWEEP_OK)
            ok = sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        prev = seconds;
    }
    free(times);
    return ok;
}
