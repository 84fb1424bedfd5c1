/*
 * import_scene_nodes.c - which scene nodes are movers and which are
 * volumes, by their names (the prefixes of import.h) or their extras
 * (glTF's "sweep_mover" and "sweep_volume" objects, as assimp hands them
 * over in a node's metadata); a mover started from its node, and a
 * volume's shell checked closed and convex (maps/shell_volume.h).
 */
#include "maps/import_scene_impl.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/world.h"
#include "maps/shell_volume.h"

/* --- node extras ---------------------------------------------------------- */

/* A number from metadata (JSON numbers come as uint64, int32 or double). */
static int md_number(const struct aiMetadataEntry *e, double *out)
{
    if (!e->mData)
        return 0;
    switch (e->mType) {
    case AI_INT32:
        *out = *(const int32_t *)e->mData;
        return 1;
    case AI_UINT64:
        *out = (double)*(const uint64_t *)e->mData;
        return 1;
    case AI_FLOAT:
        *out = *(const float *)e->mData;
        return 1;
    case AI_DOUBLE:
        *out = *(const double *)e->mData;
        return 1;
    default:
        return 0;
    }
}

/*
 * The node's `key` extras ("sweep_mover", "sweep_volume"): 1 when the node
 * is a mover (a volume) by them (with *out the object of rules, or NULL for
 * `true`), 0 when it is not, -1 after an error.
 */
static int node_extras(importer *im, const struct aiNode *n, const char *key, const struct aiMetadata **out)
{
    const struct aiMetadata *md = n->mMetaData;
    *out = NULL;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        if (strcmp(md->mKeys[i].data, key) != 0)
            continue;
        const struct aiMetadataEntry *e = &md->mValues[i];
        if (e->mType == AI_AIMETADATA && e->mData) {
            *out = e->mData;
            return 1;
        }
        if (e->mType == AI_BOOL && e->mData)
            return *(const bool *)e->mData ? 1 : 0;
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s': its %s extras must be an object of rules or true",
                          n->mName.data, key);
        return -1;
    }
    return 0;
}

/* The rules (and name) in a node's sweep_mover extras object. */
static int parse_extras(importer *im, const struct aiNode *n, const struct aiMetadata *md, rules *r,
                        char name[SWEEP_LEVEL_NAME_MAX])
{
    const char *node = n->mName.data;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        const char *k = md->mKeys[i].data;
        const struct aiMetadataEntry *e = &md->mValues[i];
        const char *str = e->mType == AI_AISTRING && e->mData ? ((const struct aiString *)e->mData)->data : NULL;
        double v;
        if (strcmp(k, "name") == 0) {
            if (!str || !*str || strlen(str) >= SWEEP_LEVEL_NAME_MAX)
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "node '%s': sweep_mover name must be a string of 1 to %d bytes", node,
                                         SWEEP_LEVEL_NAME_MAX - 1);
            snprintf(name, SWEEP_LEVEL_NAME_MAX, "%s", str);
        } else if (strcmp(k, "mode") == 0 || strcmp(k, "trigger") == 0 || strcmp(k, "blocked") == 0) {
            if (!str || !sweep__scene_rules_set(r, k[0], str))
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_mover %s must be one of %s", node, k,
                                         sweep__scene_rule_spellings(k[0]));
        } else if (strcmp(k, "wait_start") == 0 || strcmp(k, "wait_end") == 0) {
            if (!md_number(e, &v) || !(v >= 0.0 && v <= SWEEP_MOVER_MAX_SECONDS))
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "node '%s': sweep_mover %s must be a number of seconds in [0, %g]", node, k,
                                         SWEEP_MOVER_MAX_SECONDS);
            if (strcmp(k, "wait_start") == 0)
                r->wait_start = v;
            else
                r->wait_end = v;
            r->set |= RULE_WAIT;
        } else if (strcmp(k, "volume") == 0) {
            const struct aiMetadata *a = e->mType == AI_AIMETADATA ? e->mData : NULL;
            double b[6];
            int good = a && a->mNumProperties == 6;
            for (unsigned j = 0; good && j < 6; j++)
                good = md_number(&a->mValues[j], &b[j]) && isfinite(b[j]) &&
                       fabs(b[j]) <= im->lv->config.max_coordinate;
            if (good) {
                r->volume_min = sweep_v3(b[0], b[1], b[2]);
                r->volume_max = sweep_v3(b[3], b[4], b[5]);
                good = sweep__scene_box_ok(r->volume_min, r->volume_max);
            }
            if (!good)
                return sweep__scene_fail(
                    im, SWEEP_E_GEOMETRY,
                    "node '%s': sweep_mover volume must be [x0, y0, z0, x1, y1, z1] in map coordinates "
                    "with x0 < x1, y0 < y1, z0 < z1",
                    node);
            r->set |= RULE_VOLUME;
        } else {
            return sweep__scene_fail(
                im, SWEEP_E_GEOMETRY,
                "node '%s': unknown key '%s' in its sweep_mover extras (name, mode, trigger, blocked, "
                "wait_start, wait_end, volume)",
                node, k);
        }
    }
    return 1;
}

/* Whether node n is a mover by its name or extras: 1 (with its rules and
 * name filled in), 0, or -1 after an error. */
/*
 * Whether node n is marked a `what` ("mover", "volume") by its name
 * (starting with prefix, any case) or by its `key` extras: 1 with *md the
 * extras object (NULL for `true` or none) and name the node's name without
 * the prefix (the whole name where that leaves nothing), 0, or -1 after
 * an error.
 */
static int node_marked(importer *im, const struct aiNode *n, const char *prefix, const char *key, const char *what,
                       const struct aiMetadata **md, char name[SWEEP_LEVEL_NAME_MAX])
{
    size_t plen = prefix ? strlen(prefix) : 0;
    int by_name = plen && strncasecmp(n->mName.data, prefix, plen) == 0;
    int by_extras = node_extras(im, n, key, md);
    if (by_extras < 0)
        return -1;
    if (!by_name && !by_extras)
        return 0;
    const char *base = by_name && n->mName.data[plen] ? n->mName.data + plen : n->mName.data;
    if (strlen(base) >= SWEEP_LEVEL_NAME_MAX) {
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "%s node '%.40s...': the %s's name is longer than %d bytes", what,
                          n->mName.data, what, SWEEP_LEVEL_NAME_MAX - 1);
        return -1;
    }
    snprintf(name, SWEEP_LEVEL_NAME_MAX, "%s", base);
    return 1;
}

int sweep__scene_mover_of(importer *im, const struct aiNode *n, rules *r, char name[SWEEP_LEVEL_NAME_MAX])
{
    const struct aiMetadata *md = NULL;
    int marked = node_marked(im, n, im->opt->mover_prefix, "sweep_mover", "mover", &md, name);
    if (marked <= 0)
        return marked;
    sweep__scene_rules_default(r);
    if (md && !parse_extras(im, n, md, r, name))
        return -1;
    if (!*name) {
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "a mover node has no name; name it or give a sweep_mover name");
        return -1;
    }
    return 1;
}

/* Starts the mover of scene node n (its keys from its channel); its index
 * in *mi and the transform of its local vertices in *vx. */
int sweep__scene_make_mover(importer *im, const struct aiNode *n, const rules *r, const char *name, const xform *parent,
                            uint32_t *mi, xform *vx)
{
    sweep_level *lv = im->lv;
    uint32_t prev = sweep_level_find_mover(lv, name);
    if (prev != SWEEP_NO_MOVER) {
        const mover_origin *o = &im->origins[prev];
        if (o->node)
            return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "nodes '%s' and '%s' both make a mover named '%s'",
                                     o->node->mName.data, n->mName.data, name);
        return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s' makes a mover named '%s', as %s line %u does",
                                 n->mName.data, name, im->side.path, im->side.movers[o->side].line);
    }
    uint32_t more = 0;
    const channel_ref *cr = sweep__scene_find_channel(im, n->mName.data, &more);
    if (!cr)
        return sweep__scene_fail(
            im, SWEEP_E_GEOMETRY,
            "mover '%s' (node '%s') has no animation: animate the node, or name its nodes in a --movers "
            "file instead of marking it",
            name, n->mName.data);
    if (!sweep__scene_grow((void **)&im->origins, &im->origin_cap, lv->mover_count, sizeof *im->origins) ||
        sweep_level_add_mover(lv, lv->mover_count + 1, name, mi) != SWEEP_OK)
        return sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
    im->origins[*mi].node = n;
    im->origins[*mi].side = SWEEP_NO_MOVER;
    sweep__scene_rules_apply(r, 1, &lv->movers[*mi]);
    im->stats->channels_ignored += more;
    return sweep__scene_keys(im, *mi, n, cr, parent, vx);
}

/* --- volumes -------------------------------------------------------------- */

/* The volume kind spelled s (len bytes), as the map writes it. */
static int volume_kind_of(const char *s, size_t len, sweep_volume_kind *out)
{
    for (int k = 0; k < SWEEP_VOLUME_KIND_COUNT; k++) {
        const char *name = sweep_volume_kind_name((sweep_volume_kind)k);
        if (strlen(name) == len && strncasecmp(s, name, len) == 0) {
            *out = (sweep_volume_kind)k;
            return 1;
        }
    }
    return 0;
}

/* Three finite numbers [x, y, z] from metadata. */
static int md_vec3(const struct aiMetadataEntry *e, sweep_vec3 *out)
{
    const struct aiMetadata *a = e->mType == AI_AIMETADATA ? e->mData : NULL;
    double b[3];
    if (!a || a->mNumProperties != 3)
        return 0;
    for (unsigned j = 0; j < 3; j++)
        if (!md_number(&a->mValues[j], &b[j]) || !isfinite(b[j]))
            return 0;
    *out = sweep_v3(b[0], b[1], b[2]);
    return 1;
}

/* What a volume's extras or name set, beside its shell. */
enum { VOL_KIND = 1, VOL_VELOCITY = 2, VOL_DESTINATION = 4, VOL_DAMAGE = 8 };

/* The keys of a node's sweep_volume extras object into *v and name. */
static int parse_volume_extras(importer *im, const struct aiNode *n, const struct aiMetadata *md, sweep_volume *v,
                               char name[SWEEP_LEVEL_NAME_MAX], unsigned *set)
{
    const char *node = n->mName.data;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        const char *k = md->mKeys[i].data;
        const struct aiMetadataEntry *e = &md->mValues[i];
        const char *str = e->mType == AI_AISTRING && e->mData ? ((const struct aiString *)e->mData)->data : NULL;
        double x;
        if (strcmp(k, "kind") == 0) {
            if (!str || !volume_kind_of(str, strlen(str), &v->kind))
                return sweep__scene_fail(
                    im, SWEEP_E_GEOMETRY,
                    "node '%s': sweep_volume kind must be one of push, teleport, hurt, kill, trigger", node);
            *set |= VOL_KIND;
        } else if (strcmp(k, "name") == 0) {
            if (!str || !*str || strlen(str) >= SWEEP_LEVEL_NAME_MAX)
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "node '%s': sweep_volume name must be a string of 1 to %d bytes", node,
                                         SWEEP_LEVEL_NAME_MAX - 1);
            snprintf(name, SWEEP_LEVEL_NAME_MAX, "%s", str);
        } else if (strcmp(k, "velocity") == 0 || strcmp(k, "destination") == 0 || strcmp(k, "facing") == 0) {
            sweep_vec3 p;
            if (!md_vec3(e, &p))
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "node '%s': sweep_volume %s must be [x, y, z], finite numbers", node, k);
            if (k[0] == 'v')
                v->velocity = p, *set |= VOL_VELOCITY;
            else if (k[0] == 'd')
                v->destination = p, *set |= VOL_DESTINATION;
            else
                v->facing = p;
        } else if (strcmp(k, "exit_speed") == 0 || strcmp(k, "damage") == 0) {
            if (!md_number(e, &x) || !isfinite(x))
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s': sweep_volume %s must be a number", node, k);
            if (k[0] == 'e')
                v->exit_speed = x;
            else
                v->damage = x, *set |= VOL_DAMAGE;
        } else if (strcmp(k, "keep_velocity") == 0) {
            if (e->mType != AI_BOOL || !e->mData)
                return sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                         "node '%s': sweep_volume keep_velocity must be true or false", node);
            v->keep_velocity = *(const bool *)e->mData ? 1u : 0u;
        } else {
            return sweep__scene_fail(
                im, SWEEP_E_GEOMETRY,
                "node '%s': unknown key '%s' in its sweep_volume extras (kind, name, velocity, destination, "
                "facing, exit_speed, keep_velocity, damage)",
                node, k);
        }
    }
    return 1;
}

/*
 * Whether node n is a volume by its name (volume_prefix, then the kind:
 * "sweep_volume_push_pad") or its sweep_volume extras: 1 with *v's kind
 * and what it reads and the name filled in, 0, or -1 after an error.
 */
int sweep__scene_volume_of(importer *im, const struct aiNode *n, sweep_volume *v, char name[SWEEP_LEVEL_NAME_MAX])
{
    const char *prefix = im->opt->volume_prefix;
    const struct aiMetadata *md = NULL;
    int marked = node_marked(im, n, prefix, "sweep_volume", "volume", &md, name);
    if (marked <= 0)
        return marked;
    memset(v, 0, sizeof *v);
    v->facing = sweep_v3(1.0, 0.0, 0.0);
    unsigned set = 0;
    /* By its name, its kind is the name's first word. */
    if (volume_kind_of(name, strcspn(name, "_.- "), &v->kind))
        set |= VOL_KIND;
    if (md && !parse_volume_extras(im, n, md, v, name, &set))
        return -1;
    const char *node = n->mName.data;
    /* The core's other kinds need what neither a shell nor these extras
     * give (a liquid's kind, a ladder's normal): said here, by name,
     * rather than as the core's complaint about the field left out. */
    if ((set & VOL_KIND) && v->kind != SWEEP_VOLUME_PUSH && v->kind != SWEEP_VOLUME_TELEPORT &&
        v->kind != SWEEP_VOLUME_HURT && v->kind != SWEEP_VOLUME_KILL && v->kind != SWEEP_VOLUME_TRIGGER) {
        sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                          "volume node '%s': kind '%s' is not one a scene's volume may have (push, teleport, hurt, "
                          "kill or trigger; liquids and ladders come from Quake 3 levels or a map's own rows)",
                          node, sweep_volume_kind_name(v->kind));
        return -1;
    }
    if (!(set & VOL_KIND)) {
        sweep__scene_fail(
            im, SWEEP_E_GEOMETRY,
            "volume node '%s': no kind: name it %s<kind>... or give sweep_volume extras a kind (push, teleport, "
            "hurt, kill, trigger)",
            node, prefix && *prefix ? prefix : "sweep_volume_");
        return -1;
    }
    static const struct {
        sweep_volume_kind kind;
        unsigned need;
        const char *key;
    } needs[] = {{SWEEP_VOLUME_PUSH, VOL_VELOCITY, "velocity"},
                 {SWEEP_VOLUME_TELEPORT, VOL_DESTINATION, "destination"},
                 {SWEEP_VOLUME_HURT, VOL_DAMAGE, "damage"}};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (v->kind == needs[i].kind && !(set & needs[i].need)) {
            sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                              "volume node '%s': a %s volume needs its %s in the sweep_volume extras", node,
                              sweep_volume_kind_name(v->kind), needs[i].key);
            return -1;
        }
    if (!*name) {
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "a volume node has no name; name it or give a sweep_volume name");
        return -1;
    }
    return 1;
}

/* Room for `need` items in *p; 0 when out of memory. */
static int room(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* The volume of node n, whose meshes (in map coordinates through x) must
 * be one closed convex shell: added to the level. */
int sweep__scene_make_volume(importer *im, const struct aiNode *n, const xform *x, sweep_volume *v, const char *name)
{
    sweep_level *lv = im->lv;
    sweep_vec3 *pts = NULL;
    uint32_t *tri = NULL, np = 0, nt = 0;
    size_t pcap = 0, tcap = 0;
    int ok = 1;
    for (unsigned i = 0; ok && i < n->mNumMeshes; i++) {
        if (n->mMeshes[i] >= im->scene->mNumMeshes) {
            ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY, "node '%s' names mesh %u, but the file has %u", n->mName.data,
                                   n->mMeshes[i], im->scene->mNumMeshes);
            break;
        }
        const struct aiMesh *mesh = im->scene->mMeshes[n->mMeshes[i]];
        if (sweep__scene_excluded(im, &mesh->mName))
            continue;
        if (!sweep__scene_mesh_finite(im, n->mMeshes[i], n->mName.data)) {
            ok = 0;
            break;
        }
        uint32_t base = np;
        if (!room((void **)&pts, &pcap, (size_t)np + mesh->mNumVertices, sizeof *pts)) {
            ok = sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
            break;
        }
        for (unsigned k = 0; k < mesh->mNumVertices; k++) {
            const struct aiVector3D *p = &mesh->mVertices[k];
            pts[np++] = sweep__scene_to_map(im, x, p->x, p->y, p->z);
            if (!sweep__scene_within_limit(im, pts[np - 1])) {
                ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                                       "volume node '%s': a vertex is not finite or beyond the limit", n->mName.data);
                break;
            }
        }
        const int flip = sweep__scene_mirrors(im, x);
        for (unsigned f = 0; ok && f < mesh->mNumFaces; f++) {
            const struct aiFace *fc = &mesh->mFaces[f];
            if (fc->mNumIndices != 3)
                continue; /* points and lines bound nothing */
            if (!room((void **)&tri, &tcap, 3 * ((size_t)nt + 1), sizeof *tri)) {
                ok = sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
                break;
            }
            tri[3 * nt] = base + fc->mIndices[0];
            tri[3 * nt + 1] = base + fc->mIndices[1 + flip];
            tri[3 * nt + 2] = base + fc->mIndices[2 - flip];
            nt++;
        }
    }
    char why[300];
    const char *cwhy = NULL;
    if (ok && nt == 0)
        ok = sweep__scene_fail(
            im, SWEEP_E_GEOMETRY,
            "volume '%s' (node '%s') has no triangles: its mesh is the volume's shell, a closed convex mesh", name,
            n->mName.data);
    else if (ok && sweep__shell_volume(pts, np, tri, nt, v, why, sizeof why) != 0)
        ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                               "volume '%s' (node '%s'): its mesh must be one closed convex shell, faces outward: %s",
                               name, n->mName.data, why);
    if (ok) {
        /* As a map stores them (see plus_zero), so that the level is bit
         * for bit what its map loads. */
        v->lo = sweep__scene_v3_plus_zero(v->lo), v->hi = sweep__scene_v3_plus_zero(v->hi);
        for (uint32_t k = 0; k < v->plane_count; k++) {
            v->planes[k].normal = sweep__scene_v3_plus_zero(v->planes[k].normal);
            v->planes[k].offset = sweep__scene_plus_zero(v->planes[k].offset);
        }
        v->velocity = sweep__scene_v3_plus_zero(v->velocity),
        v->destination = sweep__scene_v3_plus_zero(v->destination);
        v->facing = sweep__scene_v3_plus_zero(v->facing);
        v->exit_speed = sweep__scene_plus_zero(v->exit_speed), v->damage = sweep__scene_plus_zero(v->damage);
    }
    /* The limit the map will have, which the loader checks volumes
     * against: the rules' speed_limit, not the level's core bound. */
    const double limit = im->opt->speed_limit > 0.0 ? im->opt->speed_limit : lv->rules.speed_limit;
    const double speed = sweep_volume_speed(v);
    if (ok && !(speed <= limit))
        ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY,
                               "volume '%s' (node '%s'): its %s speed %g is above the map's speed limit %g "
                               "(speed_limit in the rules)",
                               name, n->mName.data, v->kind == SWEEP_VOLUME_PUSH ? "launch" : "exit", speed, limit);
    if (ok && sweep_volume_check(v, limit, lv->config.max_coordinate, &cwhy) != SWEEP_OK)
        ok = sweep__scene_fail(im, SWEEP_E_GEOMETRY, "volume '%s' (node '%s'): %s", name, n->mName.data,
                               cwhy ? cwhy : "out of range");
    if (ok) {
        sweep_status st = sweep_level_add_volume(lv, lv->volume_count + 1, name, v);
        if (st != SWEEP_OK)
            ok = sweep__scene_fail(im, st, st == SWEEP_E_NOMEM ? "out of memory" : "more than %u volumes",
                                   SWEEP_VOLUME_MAX);
        else
            im->stats->volumes++;
    }
    free(pts);
    free(tri);
    return ok;
}
