/*
 * import_bsp.c - a Quake 3 BSP (IBSP version 46) into a sweep_level (see
 * import_bsp.h for what becomes what): the level put together from the
 * importer's stages (import_bsp_impl.h lists them), the level's rules in
 * Quake 3's numbers, and the files and .pk3 members a level comes from.
 *
 * Everything is deterministic: lumps are walked in file order, entities in
 * text order, so the same file gives the same map and content hash.
 */
#include "maps/import_bsp_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>
#include <zip.h>

#include "core/world.h"
#include "maps/tally.h"

/* IBSP offsets are signed 32-bit: no valid file is larger. */
#define MAX_FILE_BYTES 0x7fffffffu
/* What the importer reads into memory at most: far above any level Quake 3
 * ships (tens of MB), far below what a small .pk3 member can claim to
 * expand to (a 2 MB zip held a 2 GB member, all of it read first). */
#define MAX_READ_BYTES (512u << 20)
/* Quake 3 raises a spawned player this far above the spawn point. */
#define SPAWN_RAISE 9.0

/* ------------------------------------------------------------------------
 * The level
 */

/* The entity classes the importer turns into something (a spawn, static
 * geometry, a mover, a train's path, a volume, the level's gravity);
 * triggers that open a door are marked used where the door takes their
 * box, and the targets of jump pads and teleporters where they aim them. */
static const char *const handled_classes[] = {
    "worldspawn",  "info_player_deathmatch", "info_player_start", "func_static",  "func_door", "func_button",
    "func_plat",   "func_bobbing",           "func_rotating",     "func_train",   "path_corner",
    "trigger_push", "trigger_teleport",      "trigger_hurt",      "trigger_multiple"};

/* Names every other entity by class with its count, in one warning, so
 * that nothing the level holds is dropped without a word. */
static int warn_skipped(bsp *b)
{
    sweep__tally t = {0};
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const entity *e = &b->ents[i];
        int handled = e->used;
        for (size_t k = 0; !handled && k < sizeof handled_classes / sizeof handled_classes[0]; k++)
            handled = sweep__bsp_is_class(e, handled_classes[k]);
        if (!handled && !sweep__tally_add(&t, *e->classname ? e->classname : "(no classname)")) {
            sweep__tally_free(&t);
            return sweep__bsp_nomem(b);
        }
    }
    if (t.total) {
        /* One warning; a list longer than a line goes on in lines of its
         * own, each named so, so that every class is told. */
        char list[400];
        uint32_t next = sweep__tally_format_part(&t, 0, list, sizeof list);
        sweep__bsp_warn(b, "skipped: %s (%u entit%s of %u class%s the importer does not turn into anything%s)", list,
                        t.total, t.total == 1 ? "y" : "ies", t.count, t.count == 1 ? "" : "es",
                        next < t.count ? "; the rest below" : "");
        while (next < t.count) {
            next = sweep__tally_format_part(&t, next, list, sizeof list);
            sweep__bsp_note(b, "skipped, continued: %s", list);
        }
    }
    b->st->entities_skipped = t.total;
    sweep__tally_free(&t);
    return 1;
}

static int do_entities(bsp *b)
{
    for (uint32_t i = 0; i < b->ent_count; i++) {
        const entity *e = &b->ents[i];
        if (sweep__bsp_is_class(e, "info_player_deathmatch") || sweep__bsp_is_class(e, "info_player_start")) {
            double o[3];
            if (!sweep__bsp_ent_origin(b, e, o))
                return 0;
            if (sweep_level_add_spawn(b->lv, sweep_v3(o[0], o[1], o[2] + SPAWN_RAISE + PLAYER_CENTRE_UP)) !=
                SWEEP_OK)
                return sweep__bsp_nomem(b);
            b->st->spawns++;
            continue;
        }
        static const char *const brush_classes[] = {"func_static", "func_door",    "func_button", "func_plat",
                                                    "func_bobbing", "func_rotating", "func_train"};
        int cls = -1;
        for (int k = 0; k < (int)(sizeof brush_classes / sizeof brush_classes[0]); k++)
            if (sweep__bsp_is_class(e, brush_classes[k]))
                cls = k;
        if (cls < 0)
            continue;
        uint32_t m;
        if (!sweep__bsp_ent_model(b, e, &m))
            return 0;
        if (m == 0) {
            sweep__bsp_warn(b, "entity %u (%s) has no brush model; ignored", i, e->classname);
            continue;
        }
        int ok = 1;
        switch (cls) {
        case 0: {
            double o[3];
            sink s = {.lv = b->lv};
            ok = sweep__bsp_ent_origin(b, e, o);
            memcpy(s.shift, o, sizeof o);
            ok = ok && sweep__bsp_model_geometry(b, m, &s, NULL, NULL);
            b->st->patch_triangles += s.patch_triangles;
            b->st->patches += s.patches;
            b->st->static_models++;
            break;
        }
        case 1:
        case 2:
            ok = sweep__bsp_make_slider(b, e, m, cls == 2);
            break;
        case 3:
            ok = sweep__bsp_make_plat(b, e, m);
            break;
        case 4:
            ok = sweep__bsp_make_bobbing(b, e, m);
            break;
        case 5:
            ok = sweep__bsp_make_rotating(b, e, m);
            break;
        case 6:
            ok = sweep__bsp_make_train(b, e, m);
            break;
        }
        if (!ok)
            return 0;
    }
    return 1;
}

double sweep_bsp_rules(sweep_level *lv, double g, double h)
{
    /* acos(0.7) in degrees, written out: a libm's acos may round its
     * last bit by the CPU (as glibc's sin and cos do), and this number
     * goes into the map and its content hash. */
    const double slope = 0x1.6c957eed2a3a1p+5; /* 45.572995999194298 */
    lv->config.gravity = sweep_v3(0.0, 0.0, -g);
    lv->config.step_height = 18.0;
    lv->config.walkable_normal_up = sweep_cos_degrees(slope); /* what the loader will compute */
    lv->default_radii = sweep_v3(15.0, 15.0, 28.0);
    lv->tick_rate = 60.0;
    lv->rules.walk_speed = 320.0;
    lv->rules.ground_accel = 10.0 * 320.0;
    /* pm_airaccelerate 1, times the wished speed a second as its
     * PM_Accelerate adds it; and its way of adding (SWEEP_AIR_ALONG):
     * without it a jump pad's flight would lose speed to a walker's wish
     * and fall short of where the pad aims. */
    lv->rules.air_accel = 1.0 * 320.0;
    lv->rules.air_move = SWEEP_AIR_ALONG;
    lv->rules.jump_speed = 270.0;
    lv->rules.max_step = 1.0 / 30.0;
    /* Quake 3's duck: the box's top comes down from 32 to 16 above the
     * origin, its bottom stays (the feet: core/stance.h keeps them too),
     * and the wish is scaled by pm_duckScale 0.25. */
    lv->rules.crouch_radii = sweep_v3(15.0, 15.0, 20.0);
    lv->rules.crouch_speed = 0.25 * 320.0;
    /* Falling from the top of the world to its bottom must not be capped
     * below what gravity gives; rounded up to 100 u/s. */
    double fall = h > 0 && g > 0 ? sqrt(2.0 * g * h) : 0.0;
    lv->rules.speed_limit = fall > 3000.0 ? 100.0 * ceil(fall / 100.0) : 3000.0;
    lv->config.max_speed = lv->rules.speed_limit;
    lv->correction_threshold = 8.0;
    /* Quake 3's water: pm_swimScale 0.5 of its speed, pm_wateraccelerate 4
     * (times the wished speed a second, as its PM_Accelerate adds it),
     * pm_waterfriction 1, sinking at 60 with no input, the water jump's
     * 350 up. Quake 3 has no ladder move: climbing at the swimming speed
     * with the ground's acceleration. */
    lv->rules.swim_speed = 0.5 * 320.0;
    lv->rules.swim_accel = 4.0 * 0.5 * 320.0;
    lv->rules.swim_drag = 1.0;
    lv->rules.swim_sink = 60.0;
    lv->rules.swim_jump = 350.0;
    lv->rules.climb_speed = 0.5 * 320.0;
    lv->rules.climb_accel = 10.0 * 320.0;
    return slope;
}

int sweep_bsp_is_input(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && (strcasecmp(path + n - 4, ".bsp") == 0 || strcasecmp(path + n - 4, ".pk3") == 0);
}

static void free_bsp(bsp *b)
{
    free(b->shaders), free(b->planes), free(b->models), free(b->text), free(b->kv), free(b->ents), free(b->bases);
    free(b->pts), free(b->verts), free(b->ring), free(b->tris);
    free(b->cut_brush), free(b->cut_lo), free(b->cut_hi), free(b->work), free(b->tree_scratch);
    free(b->face_pts);
    sweep__face_set_free(&b->faces);
    sweep__face_mesh_free(&b->mesh);
    for (int i = 0; i < 2; i++)
        free(b->frag[i].p), free(b->frag[i].at), free(b->frag[i].len);
}

sweep_status sweep_import_bsp_memory(const void *data, size_t size, const char *label,
                                     const sweep_bsp_options *opt, sweep_level *out, sweep_bsp_stats *stats,
                                     char *err, size_t errlen)
{
    sweep_bsp_stats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    if (err && errlen)
        err[0] = '\0';
    if (!out || (!data && size))
        return SWEEP_E_ARG;
    sweep_level_init(out);
    double tol = opt ? opt->patch_tolerance : 0.0;
    if (tol == 0.0)
        tol = SWEEP_BSP_PATCH_TOLERANCE;
    else if (tol == SWEEP_BSP_PATCH_FIXED)
        tol = 0.0;
    else if (!(tol > 0.0 && tol <= 1e6)) {
        if (err && errlen)
            snprintf(err, errlen, "%s: patch tolerance %g is not a positive number of units (at most 1e6)",
                     label ? label : "", tol);
        return SWEEP_E_ARG;
    }
    char msg[768] = "";
    bsp b = {.data = data, .size = size, .label = label ? label : "", .opt = opt, .lv = out, .st = stats,
             .patch_tolerance = tol, .err = msg, .errlen = sizeof msg, .next_mover_id = 1};
    int ok = sweep__bsp_read(&b) && sweep__bsp_read_tree(&b);
    double g = 800.0;
    if (ok) {
        /* The world is model 0. */
        const entity *ws = b.ent_count ? &b.ents[0] : NULL;
        if (ws && sweep__bsp_is_class(ws, "worldspawn") && sweep__bsp_ent_get(&b, ws, "gravity")) {
            ok = sweep__bsp_ent_number(&b, ws, "gravity", 800.0, &g);
            if (ok && !(g > 0 && g <= 1000)) {
                sweep__bsp_warn(&b, "worldspawn gravity %g is outside (0, 1000]; using 800", g);
                g = 800.0;
            }
        }
        sink s = {.lv = out};
        stats->brushes = b.models[0].brushes;
        ok = ok && sweep__bsp_model_geometry(&b, 0, &s, &stats->brushes_solid, &stats->brushes_empty);
        stats->patch_triangles += s.patch_triangles;
        stats->patches += s.patches;
    }
    ok = ok && do_entities(&b) && sweep__bsp_volumes(&b, g) && sweep__bsp_liquids_and_ladders(&b) && warn_skipped(&b);
    if (ok && out->triangle_count == 0)
        ok = sweep__bsp_fail(&b, "the world model has no player-solid brush or patch: nothing to collide with");
    if (ok) {
        double h = b.models[0].maxs[2] - b.models[0].mins[2];
        stats->walkable_slope_deg = sweep_bsp_rules(out, g, h);
        ok = sweep__bsp_lift_teleports(&b);
    }
    if (ok) {
        stats->hidden_dropped =
            b.hidden_net > 0 ? (uint32_t)(b.hidden_net < UINT32_MAX ? b.hidden_net : UINT32_MAX) : 0;
        stats->merge_dropped = b.merge_net > 0 ? (uint32_t)(b.merge_net < UINT32_MAX ? b.merge_net : UINT32_MAX) : 0;
        stats->materials = out->material_count;
        stats->triangles = out->triangle_count;
        stats->movers = out->mover_count; /* the level started empty: all are the entities' */
        for (uint32_t i = 0; i < out->mover_count; i++)
            stats->mover_triangles += out->movers[i].triangle_count;
        /* The name: the file's, without folders or extension. */
        const char *base = strrchr(b.label, '/') ? strrchr(b.label, '/') + 1 : b.label;
        size_t n = strcspn(base, ".");
        if (n == 0)
            snprintf(out->name, sizeof out->name, "bsp");
        else
            snprintf(out->name, sizeof out->name, "%.*s", (int)(n < 63 ? n : 63), base);
    }
    int nomem = b.nomem;
    free_bsp(&b);
    if (!ok) {
        sweep_level_free(out);
        if (err && errlen)
            snprintf(err, errlen, "%s%s%s", label ? label : "", label ? ": " : "", msg);
        return nomem ? SWEEP_E_NOMEM : SWEEP_E_GEOMETRY;
    }
    return SWEEP_OK;
}

/* ------------------------------------------------------------------------
 * Files and .pk3 members
 */

static int is_zip(const uint8_t *head, size_t n)
{
    /* a local file header, or the end record of an empty zip */
    return n >= 4 && head[0] == 'P' && head[1] == 'K' &&
           ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6));
}

static void zip_message(int code, char *buf, size_t len)
{
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    snprintf(buf, len, "%s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
}

static int has_bsp_ext(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcasecmp(name + n - 4, ".bsp") == 0;
}

static zip_t *open_zip(const char *path, char *err, size_t errlen)
{
    int code = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &code);
    if (!z) {
        char m[256];
        zip_message(code, m, sizeof m);
        snprintf(err, errlen, "%s: cannot open as a .pk3 (zip): %s", path, m);
    }
    return z;
}

int sweep_bsp_list(const char *path, char ***names, uint32_t *count, char *err, size_t errlen)
{
    *names = NULL;
    *count = 0;
    zip_t *z = open_zip(path, err, errlen);
    if (!z)
        return 0;
    zip_int64_t n = zip_get_num_entries(z, 0);
    char **out = calloc(n > 0 ? (size_t)n : 1, sizeof *out);
    if (!out) {
        zip_discard(z);
        snprintf(err, errlen, "out of memory");
        return 0;
    }
    uint32_t k = 0;
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || !has_bsp_ext(name))
            continue;
        if (!(out[k] = strdup(name))) {
            sweep_bsp_list_free(out, k);
            zip_discard(z);
            snprintf(err, errlen, "out of memory");
            return 0;
        }
        k++;
    }
    zip_discard(z);
    *names = out;
    *count = k;
    return 1;
}

void sweep_bsp_list_free(char **names, uint32_t count)
{
    for (uint32_t i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
}

/* Reads member (or the only .bsp) of the zip at path into *data. */
static sweep_status read_member(const char *path, const char *member, uint8_t **data, size_t *size, char *label,
                                size_t labellen, char *err, size_t errlen)
{
    zip_t *z = open_zip(path, err, errlen);
    if (!z)
        return SWEEP_E_GEOMETRY;
    zip_int64_t idx = -1;
    if (member) {
        idx = zip_name_locate(z, member, ZIP_FL_NOCASE);
    } else {
        zip_int64_t n = zip_get_num_entries(z, 0), found = 0;
        for (zip_int64_t i = 0; i < n; i++) {
            const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
            if (name && has_bsp_ext(name))
                idx = found++ ? idx : i;
            if (found > 1)
                break;
        }
        if (found != 1) {
            zip_discard(z);
            snprintf(err, errlen, "%s holds %s .bsp level: name one with --bsp maps/NAME.bsp (--list lists them)",
                     path, found ? "more than one" : "no");
            return SWEEP_E_GEOMETRY;
        }
    }
    if (idx < 0) {
        zip_discard(z);
        snprintf(err, errlen, "%s has no member '%s' (--list lists its levels)", path, member);
        return SWEEP_E_GEOMETRY;
    }
    const char *name = zip_get_name(z, (zip_uint64_t)idx, 0);
    snprintf(label, labellen, "%s:%s", path, name ? name : "?");
    zip_stat_t zs;
    if (zip_stat_index(z, (zip_uint64_t)idx, 0, &zs) != 0 || !(zs.valid & ZIP_STAT_SIZE)) {
        snprintf(err, errlen, "%s: cannot read the member's size: %s", label, zip_strerror(z));
        zip_discard(z);
        return SWEEP_E_GEOMETRY;
    }
    if (zs.size > MAX_FILE_BYTES || zs.size > MAX_READ_BYTES) {
        snprintf(err, errlen, "%s: %llu bytes is larger than %s", label, (unsigned long long)zs.size,
                 zs.size > MAX_FILE_BYTES ? "any IBSP file can be" : "sweep-import reads (512 MiB)");
        zip_discard(z);
        return SWEEP_E_GEOMETRY;
    }
    uint8_t *buf = malloc(zs.size ? (size_t)zs.size : 1);
    zip_file_t *f = buf ? zip_fopen_index(z, (zip_uint64_t)idx, 0) : NULL;
    if (!buf || !f) {
        if (buf)
            snprintf(err, errlen, "%s: cannot open the member: %s", label, zip_strerror(z));
        else
            snprintf(err, errlen, "out of memory");
        free(buf);
        zip_discard(z);
        return buf ? SWEEP_E_GEOMETRY : SWEEP_E_NOMEM;
    }
    zip_int64_t got = zip_fread(f, buf, zs.size);
    if (got < 0 || (zip_uint64_t)got != zs.size) {
        snprintf(err, errlen, "%s: reading the member failed: %s", label,
                 got < 0 ? zip_file_strerror(f) : "it is shorter than the zip says");
        zip_fclose(f);
        free(buf);
        zip_discard(z);
        return SWEEP_E_GEOMETRY;
    }
    zip_fclose(f);
    zip_discard(z);
    *data = buf;
    *size = (size_t)zs.size;
    return SWEEP_OK;
}

sweep_status sweep_import_bsp(const char *path, const sweep_bsp_options *opt, sweep_level *out,
                              sweep_bsp_stats *stats, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!path || !out)
        return SWEEP_E_ARG;
    char dummy[8];
    if (!err || !errlen)
        err = dummy, errlen = sizeof dummy;
    sweep_level_init(out);
    if (stats)
        memset(stats, 0, sizeof *stats);
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return SWEEP_E_GEOMETRY;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return SWEEP_E_GEOMETRY;
    }
    uint8_t head[4];
    size_t hn = fread(head, 1, sizeof head, f);
    const char *member = opt ? opt->member : NULL;
    if (member || is_zip(head, hn)) {
        fclose(f);
        if (!is_zip(head, hn)) {
            snprintf(err, errlen, "%s: --bsp %s was given, but the file is not a .pk3 (zip)", path, member);
            return SWEEP_E_GEOMETRY;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        char label[1024];
        sweep_status st = read_member(path, member, &data, &size, label, sizeof label, err, errlen);
        if (st != SWEEP_OK)
            return st;
        st = sweep_import_bsp_memory(data, size, label, opt, out, stats, err, errlen);
        free(data);
        return st;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        snprintf(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
        fclose(f);
        return SWEEP_E_GEOMETRY;
    }
    long len = ftell(f);
    if (len < 0 || (unsigned long)len > MAX_FILE_BYTES || (unsigned long)len > MAX_READ_BYTES) {
        snprintf(err, errlen, "%s: %s", path,
                 len < 0                                ? strerror(errno)
                 : (unsigned long)len > MAX_FILE_BYTES ? "larger than any IBSP file can be"
                                                        : "larger than sweep-import reads (512 MiB)");
        fclose(f);
        return SWEEP_E_GEOMETRY;
    }
    uint8_t *data = malloc(len ? (size_t)len : 1);
    if (!data) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return SWEEP_E_NOMEM;
    }
    rewind(f);
    size_t got = fread(data, 1, (size_t)len, f);
    int rerr = ferror(f);
    fclose(f);
    if (got != (size_t)len || rerr) {
        snprintf(err, errlen, "%s: reading failed", path);
        free(data);
        return SWEEP_E_GEOMETRY;
    }
    sweep_status st = sweep_import_bsp_memory(data, got, path, opt, out, stats, err, errlen);
    free(data);
    return st;
}
