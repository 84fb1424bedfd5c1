/*
 * writer.c - a sweep_level into a new map file, atomically (see writer.h).
 *
 * Movers go into their four tables (schema version 2) after the static
 * level, volumes into their two (version 3); a level without them leaves
 * those tables empty.
 *
 * sweep_map_read_rules, the tools' --rules files, lives here too: it
 * fills the values of the map row a tool is about to write.
 *
 * Speed matters for multi-million-triangle levels: the temporary file is
 * written with the journal and fsync off (if anything fails the file is
 * thrown away, so there is nothing to recover), all rows go in one
 * transaction through prepared statements, and the one fsync happens
 * before the rename that publishes the map.
 */
#include "maps/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "maps/schema.h"
#include "core/parse.h"

#define PROGRESS_EVERY 65536u

typedef struct wctx {
    sqlite3 *db;
    const sweep_map_write_options *opt;
    char *err;
    size_t errlen;
    int failed;
} wctx;

static int wfail(wctx *w, const char *fmt, ...)
{
    if (w->failed)
        return 0;
    w->failed = 1;
    if (w->err && w->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err, w->errlen, fmt, ap);
        va_end(ap);
    }
    return 0;
}

void sweep_map_progress_stderr(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    fprintf(stderr, "\r%s: writing %s %3.0f%%", (const char *)ctx, stage,
            total ? 100.0 * (double)done / (double)total : 100.0);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

static void progress(wctx *w, const char *stage, uint64_t done, uint64_t total)
{
    if (w->opt && w->opt->progress)
        w->opt->progress(w->opt->progress_ctx, stage, done, total);
}

static int exec(wctx *w, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        wfail(w, "%s: %s", what, msg ? msg : sqlite3_errmsg(w->db));
        sqlite3_free(msg);
        return 0;
    }
    return 1;
}

static sqlite3_stmt *prep(wctx *w, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
        wfail(w, "preparing '%s': %s", sql, sqlite3_errmsg(w->db));
    return st;
}

/* Steps an INSERT and resets it; names the table and row on failure. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

const volatile sig_atomic_t *sweep_map_write_stop_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return &stop_requested;
}

static int cancelled(wctx *w)
{
    if (w->opt && w->opt->cancel && *w->opt->cancel)
        return !wfail(w, "interrupted");
    return 0;
}

static int insert(wctx *w, sqlite3_stmt *st, const char *table, int64_t row)
{
    if (row % 4096 == 0 && cancelled(w))
        return 0;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return wfail(w, "writing %s row id=%lld: %s", table, (long long)row, sqlite3_errmsg(w->db));
    return 1;
}

/* insert() for a row of a mover_* table, keyed by mover and id. */
static int insert_mover(wctx *w, sqlite3_stmt *st, const char *table, uint32_t mover, int64_t row)
{
    if (row % 4096 == 0 && cancelled(w))
        return 0;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return wfail(w, "writing %s row mover=%u id=%lld: %s", table, mover, (long long)row, sqlite3_errmsg(w->db));
    return 1;
}

/* The mover tables (schema version 2), each in (mover, id) order. Movers
 * out of id order are refused here, a repeated name by the table's key,
 * and anything else the loader would refuse by the load-back check. */
static int write_movers(wctx *w, const sweep_level *lv)
{
    if (lv->mover_count == 0)
        return 1;
    if (!lv->movers)
        return wfail(w, "the level has %u movers but no mover array", lv->mover_count);
    sqlite3_stmt *st = prep(w, "INSERT INTO movers (id, name, mode, trigger, blocked, wait_start, wait_end, "
                               "volume_min_x, volume_min_y, volume_min_z, volume_max_x, volume_max_y, volume_max_z) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st)
        return 0;
    int ok = 1;
    for (uint32_t i = 0; ok && i < lv->mover_count; i++) {
        const sweep_level_mover *m = &lv->movers[i];
        /* The loader reads movers in id order, and a mover's index is its
         * place in that order (triangle numbers follow it): any other
         * order would load as another level. */
        if (i > 0 && m->id <= lv->movers[i - 1].id) {
            ok = wfail(w, "movers must be in increasing id order: mover %u '%s' comes after mover %u", m->id,
                       m->name, lv->movers[i - 1].id);
            break;
        }
        const char *mode = sweep_mover_mode_name(m->mode), *trigger = sweep_mover_trigger_name(m->trigger),
                   *blocked = sweep_mover_blocked_name(m->blocked);
        if (!mode || !trigger || !blocked) {
            ok = wfail(w, "mover %u '%s' has an unknown mode, trigger or blocked rule", m->id, m->name);
            break;
        }
        sqlite3_bind_int64(st, 1, m->id);
        sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, mode, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, trigger, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, blocked, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 6, m->wait_start);
        sqlite3_bind_double(st, 7, m->wait_end);
        const double box[6] = {m->volume_min.x, m->volume_min.y, m->volume_min.z,
                               m->volume_max.x, m->volume_max.y, m->volume_max.z};
        for (int k = 0; k < 6; k++) {
            /* Only a volume trigger has a box; the others store NULL. */
            if (m->trigger == SWEEP_TRIGGER_VOLUME)
                sqlite3_bind_double(st, 8 + k, box[k]);
            else
                sqlite3_bind_null(st, 8 + k);
        }
        ok = insert(w, st, "movers", m->id);
    }
    sqlite3_finalize(st);

    if (ok && (st = prep(w, "INSERT INTO mover_vertices (mover, id, x, y, z) VALUES (?, ?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->mover_count; i++) {
            const sweep_level_mover *m = &lv->movers[i];
            for (uint32_t v = 0; ok && v < m->vertex_count; v++) {
                sqlite3_bind_int64(st, 1, m->id);
                sqlite3_bind_int64(st, 2, v);
                sqlite3_bind_double(st, 3, m->vertices[v].x);
                sqlite3_bind_double(st, 4, m->vertices[v].y);
                sqlite3_bind_double(st, 5, m->vertices[v].z);
                ok = insert_mover(w, st, "mover_vertices", m->id, v);
            }
        }
        sqlite3_finalize(st);
    }
    if (ok && (st = prep(w, "INSERT INTO mover_triangles (mover, id, a, b, c, material) VALUES (?, ?, ?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->mover_count; i++) {
            const sweep_level_mover *m = &lv->movers[i];
            for (uint32_t t = 0; ok && t < m->triangle_count; t++) {
                const uint32_t *ix = &m->indices[3 * (size_t)t];
                sqlite3_bind_int64(st, 1, m->id);
                sqlite3_bind_int64(st, 2, t);
                sqlite3_bind_int64(st, 3, ix[0]);
                sqlite3_bind_int64(st, 4, ix[1]);
                sqlite3_bind_int64(st, 5, ix[2]);
                sqlite3_bind_int64(st, 6, m->materials[t]);
                ok = insert_mover(w, st, "mover_triangles", m->id, t);
            }
        }
        sqlite3_finalize(st);
    }
    if (ok && (st = prep(w, "INSERT INTO mover_keyframes (mover, id, time, x, y, z, qx, qy, qz, qw) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->mover_count; i++) {
            const sweep_level_mover *m = &lv->movers[i];
            for (uint32_t k = 0; ok && k < m->key_count; k++) {
                const sweep_keyframe *kf = &m->keys[k];
                sqlite3_bind_int64(st, 1, m->id);
                sqlite3_bind_int64(st, 2, k);
                sqlite3_bind_double(st, 3, kf->time);
                sqlite3_bind_double(st, 4, kf->pose.position.x);
                sqlite3_bind_double(st, 5, kf->pose.position.y);
                sqlite3_bind_double(st, 6, kf->pose.position.z);
                sqlite3_bind_double(st, 7, kf->pose.rotation.x);
                sqlite3_bind_double(st, 8, kf->pose.rotation.y);
                sqlite3_bind_double(st, 9, kf->pose.rotation.z);
                sqlite3_bind_double(st, 10, kf->pose.rotation.w);
                ok = insert_mover(w, st, "mover_keyframes", m->id, k);
            }
        }
        sqlite3_finalize(st);
    }
    return ok;
}

/* The volume tables (schema version 3): the columns a volume's kind reads,
 * NULL in the others, as the loader wants them. */
static int write_volumes(wctx *w, const sweep_level *lv)
{
    if (lv->volume_count == 0)
        return 1;
    if (!lv->volumes)
        return wfail(w, "the level has %u volumes but no volume array", lv->volume_count);
    sqlite3_stmt *st = prep(w, "INSERT INTO volumes (id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, "
                               "velocity_x, velocity_y, velocity_z, destination_x, destination_y, destination_z, "
                               "facing_x, facing_y, facing_z, keep_velocity, exit_speed, damage, liquid, normal_x, "
                               "normal_y, normal_z) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st)
        return 0;
    int ok = 1;
    for (uint32_t i = 0; ok && i < lv->volume_count; i++) {
        const sweep_level_volume *e = &lv->volumes[i];
        const sweep_volume *v = &e->v;
        if (i > 0 && e->id <= lv->volumes[i - 1].id) {
            ok = wfail(w, "volumes must be in increasing id order: volume %u '%s' comes after volume %u", e->id,
                       e->name, lv->volumes[i - 1].id);
            break;
        }
        if ((unsigned)v->kind >= SWEEP_VOLUME_KIND_COUNT) {
            ok = wfail(w, "volume %u '%s' has an unknown kind", e->id, e->name);
            break;
        }
        for (int k = 1; k <= 25; k++)
            sqlite3_bind_null(st, k);
        sqlite3_bind_int64(st, 1, e->id);
        sqlite3_bind_text(st, 2, e->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, sweep_volume_kind_name(v->kind), -1, SQLITE_STATIC);
        const double box[6] = {v->lo.x, v->lo.y, v->lo.z, v->hi.x, v->hi.y, v->hi.z};
        for (int k = 0; k < 6; k++)
            sqlite3_bind_double(st, 4 + k, box[k]);
        if (v->kind == SWEEP_VOLUME_PUSH) {
            sqlite3_bind_double(st, 10, v->velocity.x);
            sqlite3_bind_double(st, 11, v->velocity.y);
            sqlite3_bind_double(st, 12, v->velocity.z);
        } else if (v->kind == SWEEP_VOLUME_TELEPORT) {
            const double t[6] = {v->destination.x, v->destination.y, v->destination.z,
                                 v->facing.x,      v->facing.y,      v->facing.z};
            for (int k = 0; k < 6; k++)
                sqlite3_bind_double(st, 13 + k, t[k]);
            sqlite3_bind_int64(st, 19, v->keep_velocity);
            sqlite3_bind_double(st, 20, v->exit_speed);
        } else if (v->kind == SWEEP_VOLUME_HURT) {
            sqlite3_bind_double(st, 21, v->damage);
        } else if (v->kind == SWEEP_VOLUME_LIQUID) {
            sqlite3_bind_double(st, 21, v->damage);
            sqlite3_bind_text(st, 22, sweep_liquid_name(v->liquid), -1, SQLITE_STATIC);
        } else if (v->kind == SWEEP_VOLUME_LADDER) {
            sqlite3_bind_double(st, 23, v->normal.x);
            sqlite3_bind_double(st, 24, v->normal.y);
            sqlite3_bind_double(st, 25, v->normal.z);
        }
        ok = insert(w, st, "volumes", e->id);
    }
    sqlite3_finalize(st);
    if (ok && (st = prep(w, "INSERT INTO volume_planes (volume, id, nx, ny, nz, d) VALUES (?, ?, ?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->volume_count; i++) {
            const sweep_level_volume *e = &lv->volumes[i];
            for (uint32_t k = 0; ok && k < e->v.plane_count && k < SWEEP_VOLUME_MAX_PLANES; k++) {
                const sweep_volume_plane *p = &e->v.planes[k];
                sqlite3_bind_int64(st, 1, e->id);
                sqlite3_bind_int64(st, 2, k);
                sqlite3_bind_double(st, 3, p->normal.x);
                sqlite3_bind_double(st, 4, p->normal.y);
                sqlite3_bind_double(st, 5, p->normal.z);
                sqlite3_bind_double(st, 6, p->offset);
                ok = insert(w, st, "volume_planes", k);
            }
        }
        sqlite3_finalize(st);
    } else {
        ok = 0;
    }
    return ok;
}

static int write_rows(wctx *w, const sweep_level *lv)
{
    const sweep_map_write_options *o = w->opt;
    const sweep_config *c = &lv->config;
    /* The loader's words for a bad value, rather than a CHECK constraint's. */
    sweep_map_values v;
    char why[256];
    sweep_map_values_of(lv, o->walkable_slope_deg, &v);
    if (sweep_map_check_values(&v, NULL, why, sizeof why) != SWEEP_OK)
        return wfail(w, "the map row: %s", why);
    sqlite3_stmt *st = prep(w, "INSERT INTO map (id, name, units, gravity_x, gravity_y, gravity_z, tick_rate, "
                               "radius_x, radius_y, radius_z, walkable_slope_deg, step_height, walk_speed, "
                               "ground_accel, air_accel, jump_speed, max_step, speed_limit, correction_threshold, "
                               "history_ms, rewind_cap_ms, crouch_radius_x, crouch_radius_y, crouch_radius_z, "
                               "crouch_speed, swim_speed, swim_accel, swim_drag, swim_sink, swim_jump, "
                               "climb_speed, climb_accel, air_move) "
                               "VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                               "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!st)
        return 0;
    sqlite3_bind_text(st, 1, lv->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, o->units ? o->units : "m", -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 3, c->gravity.x);
    sqlite3_bind_double(st, 4, c->gravity.y);
    sqlite3_bind_double(st, 5, c->gravity.z);
    sqlite3_bind_double(st, 6, lv->tick_rate);
    sqlite3_bind_double(st, 7, lv->default_radii.x);
    sqlite3_bind_double(st, 8, lv->default_radii.y);
    sqlite3_bind_double(st, 9, lv->default_radii.z);
    sqlite3_bind_double(st, 10, o->walkable_slope_deg);
    sqlite3_bind_double(st, 11, c->step_height);
    /* Every rule is written, defaults too: the file alone says how its
     * level moves. (config.max_speed is not: the loader derives it from
     * speed_limit.) */
    const sweep_rules *r = &lv->rules;
    sqlite3_bind_double(st, 12, r->walk_speed);
    sqlite3_bind_double(st, 13, r->ground_accel);
    sqlite3_bind_double(st, 14, r->air_accel);
    sqlite3_bind_double(st, 15, r->jump_speed);
    sqlite3_bind_double(st, 16, r->max_step);
    sqlite3_bind_double(st, 17, r->speed_limit);
    sqlite3_bind_double(st, 18, lv->correction_threshold);
    sqlite3_bind_double(st, 19, lv->history_ms);
    sqlite3_bind_double(st, 20, lv->rewind_cap_ms);
    sqlite3_bind_double(st, 21, r->crouch_radii.x);
    sqlite3_bind_double(st, 22, r->crouch_radii.y);
    sqlite3_bind_double(st, 23, r->crouch_radii.z);
    sqlite3_bind_double(st, 24, r->crouch_speed);
    sqlite3_bind_double(st, 25, r->swim_speed);
    sqlite3_bind_double(st, 26, r->swim_accel);
    sqlite3_bind_double(st, 27, r->swim_drag);
    sqlite3_bind_double(st, 28, r->swim_sink);
    sqlite3_bind_double(st, 29, r->swim_jump);
    sqlite3_bind_double(st, 30, r->climb_speed);
    sqlite3_bind_double(st, 31, r->climb_accel);
    sqlite3_bind_double(st, 32, r->air_move);
    int ok = insert(w, st, "map", 1);
    sqlite3_finalize(st);

    if (ok && (st = prep(w, "INSERT INTO materials (id, name, friction, flags) VALUES (?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->material_count; i++) {
            const sweep_material *m = &lv->material_table[i];
            sqlite3_bind_int64(st, 1, m->id);
            sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
            sqlite3_bind_double(st, 3, m->friction);
            sqlite3_bind_int64(st, 4, m->flags);
            ok = insert(w, st, "materials", m->id);
        }
        sqlite3_finalize(st);
    }
    if (ok && (st = prep(w, "INSERT INTO vertices (id, x, y, z) VALUES (?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->vertex_count; i++) {
            sqlite3_bind_int64(st, 1, i);
            sqlite3_bind_double(st, 2, lv->vertices[i].x);
            sqlite3_bind_double(st, 3, lv->vertices[i].y);
            sqlite3_bind_double(st, 4, lv->vertices[i].z);
            ok = insert(w, st, "vertices", i);
            if (i % PROGRESS_EVERY == 0)
                progress(w, "vertices", i, lv->vertex_count);
        }
        progress(w, "vertices", lv->vertex_count, lv->vertex_count);
        sqlite3_finalize(st);
    }
    if (ok && (st = prep(w, "INSERT INTO triangles (id, a, b, c, material) VALUES (?, ?, ?, ?, ?)"))) {
        for (uint32_t t = 0; ok && t < lv->triangle_count; t++) {
            const uint32_t *ix = &lv->indices[3 * (size_t)t];
            sqlite3_bind_int64(st, 1, t);
            sqlite3_bind_int64(st, 2, ix[0]);
            sqlite3_bind_int64(st, 3, ix[1]);
            sqlite3_bind_int64(st, 4, ix[2]);
            sqlite3_bind_int64(st, 5, lv->materials[t]);
            ok = insert(w, st, "triangles", t);
            if (t % PROGRESS_EVERY == 0)
                progress(w, "triangles", t, lv->triangle_count);
        }
        progress(w, "triangles", lv->triangle_count, lv->triangle_count);
        sqlite3_finalize(st);
    }
    if (ok && (st = prep(w, "INSERT INTO spawns (id, x, y, z) VALUES (?, ?, ?, ?)"))) {
        for (uint32_t i = 0; ok && i < lv->spawn_count; i++) {
            sqlite3_bind_int64(st, 1, i);
            sqlite3_bind_double(st, 2, lv->spawns[i].x);
            sqlite3_bind_double(st, 3, lv->spawns[i].y);
            sqlite3_bind_double(st, 4, lv->spawns[i].z);
            ok = insert(w, st, "spawns", i);
        }
        sqlite3_finalize(st);
    }
    return ok && write_movers(w, lv) && write_volumes(w, lv) && !w->failed;
}

/* Flushes a file (or directory) to disk; 1 on success. */
static int sync_path(const char *path, int dir)
{
    int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
    if (fd < 0)
        return 0;
    int ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

sweep_status sweep_map_write(const char *path, const sweep_level *lv, const sweep_map_write_options *opt,
                             sweep_map_write_result *result, char *err, size_t errlen)
{
    static const sweep_map_write_options defaults = {NULL, 45.0, NULL, NULL, NULL};
    wctx w = {NULL, opt ? opt : &defaults, err, errlen, 0};
    if (err && errlen)
        err[0] = '\0';
    if (!path || !lv) {
        wfail(&w, "no path or no level to write");
        return SWEEP_E_ARG;
    }
    /* The map replaces a file at path by a rename: a device, a pipe or a
     * directory there (-o /dev/null) would be replaced, not written to. */
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        wfail(&w, "%s is not a regular file (a map is written beside it and renamed over it)", path);
        return SWEEP_E_ARG;
    }

    /* The temporary name: beside the destination (so rename is atomic),
     * and prefixed with "./" if relative and starting with "file:" (see
     * open_db in loader.c). */
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp) {
        wfail(&w, "out of memory");
        return SWEEP_E_NOMEM;
    }
    snprintf(tmp, len + 16, "%s%s.tmp-XXXXXX", strncmp(path, "file:", 5) == 0 ? "./" : "", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        wfail(&w, "cannot create a temporary file beside %s: %s", path, strerror(errno));
        free(tmp);
        return SWEEP_E_ARG;
    }
    fchmod(fd, 0644); /* mkstemp makes it private; a map is for everyone to read */
    close(fd);

    sweep_status status = SWEEP_E_GEOMETRY;
    if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        wfail(&w, "cannot open %s: %s", tmp, w.db ? sqlite3_errmsg(w.db) : "out of memory");
    } else if (exec(&w, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", "setting up the file") &&
               exec(&w, "BEGIN", "starting the transaction") && exec(&w, sweep_map_schema_sql, "creating the schema") &&
               write_rows(&w, lv) && exec(&w, "COMMIT", "committing")) {
        status = SWEEP_OK;
    }
    if (w.db && sqlite3_close(w.db) != SQLITE_OK && status == SWEEP_OK) {
        wfail(&w, "closing %s failed", tmp);
        status = SWEEP_E_GEOMETRY;
    }

    /* Load it back: what the server will see, checked by the same code. */
    if (status == SWEEP_OK) {
        sweep_level back;
        sweep_map_load_info info;
        char lerr[256];
        status = sweep_map_load(tmp, &back, &info, lerr, sizeof lerr);
        if (status != SWEEP_OK) {
            wfail(&w, "the written map does not load: %s", lerr);
        } else {
            if (result) {
                result->load = info;
                result->triangle_count = back.triangle_count;
                status = sweep_level_content_hash(&back, &result->hash);
                if (status != SWEEP_OK)
                    wfail(&w, "hashing the map failed: %s", sweep_status_message(status));
            }
            sweep_level_free(&back);
        }
    }
    if (status == SWEEP_OK && !sync_path(tmp, 0)) {
        wfail(&w, "flushing %s to disk failed: %s", tmp, strerror(errno));
        status = SWEEP_E_GEOMETRY;
    }
    if (status == SWEEP_OK && cancelled(&w))
        status = SWEEP_E_ARG;
    if (status == SWEEP_OK && rename(tmp, path) != 0) {
        wfail(&w, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        status = SWEEP_E_GEOMETRY;
    }
    if (status != SWEEP_OK) {
        unlink(tmp);
    } else {
        /* Make the rename itself durable; failure here loses nothing. */
        char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
        if (dir) {
            if (slash)
                *(slash == dir ? slash + 1 : slash) = '\0';
            sync_path(slash ? dir : ".", 1);
            free(dir);
        }
    }
    free(tmp);
    return status;
}

/* --- --rules files --------------------------------------------------------- */

/* The keys of a --rules file: the map row's columns, vectors as one key. */
typedef struct rules_key {
    const char *key;
    size_t offset; /* in sweep_map_values: a double, or a sweep_vec3 if vec */
    int vec;
} rules_key;

#define RULE_AT(field) offsetof(sweep_map_values, field)
static const rules_key rules_keys[] = {
    {"gravity", RULE_AT(gravity), 1},
    {"radii", RULE_AT(radii), 1},
    {"tick_rate", RULE_AT(tick_rate), 0},
    {"walkable_slope_deg", RULE_AT(walkable_slope_deg), 0},
    {"step_height", RULE_AT(step_height), 0},
    {"walk_speed", RULE_AT(rules.walk_speed), 0},
    {"ground_accel", RULE_AT(rules.ground_accel), 0},
    {"air_accel", RULE_AT(rules.air_accel), 0},
    {"jump_speed", RULE_AT(rules.jump_speed), 0},
    {"max_step", RULE_AT(rules.max_step), 0},
    {"speed_limit", RULE_AT(rules.speed_limit), 0},
    {"correction_threshold", RULE_AT(correction_threshold), 0},
    {"history_ms", RULE_AT(history_ms), 0},
    {"rewind_cap_ms", RULE_AT(rewind_cap_ms), 0},
    {"crouch_radii", RULE_AT(rules.crouch_radii), 1},
    {"crouch_speed", RULE_AT(rules.crouch_speed), 0},
    {"swim_speed", RULE_AT(rules.swim_speed), 0},
    {"swim_accel", RULE_AT(rules.swim_accel), 0},
    {"swim_drag", RULE_AT(rules.swim_drag), 0},
    {"swim_sink", RULE_AT(rules.swim_sink), 0},
    {"swim_jump", RULE_AT(rules.swim_jump), 0},
    {"climb_speed", RULE_AT(rules.climb_speed), 0},
    {"climb_accel", RULE_AT(rules.climb_accel), 0},
    {"air_move", RULE_AT(rules.air_move), 0},
};
#undef RULE_AT
#define RULES_KEYS (sizeof rules_keys / sizeof rules_keys[0])

static int rules_key_index(const char *key)
{
    for (size_t i = 0; i < RULES_KEYS; i++)
        if (key && strcmp(rules_keys[i].key, key) == 0)
            return (int)i;
    return -1;
}

/* "X,Y,Z" with blanks allowed around each number; 1 if so. */
static int parse_vec3_list(char *s, double out[3])
{
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(s, ',');
        if ((i < 2) != (comma != NULL))
            return 0;
        if (comma)
            *comma = '\0';
        char *p = s + strspn(s, " \t");
        size_t n = strlen(p);
        while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            p[--n] = '\0';
        if (!sweep_parse_double(p, -DBL_MAX, DBL_MAX, &out[i]))
            return 0;
        if (comma)
            s = comma + 1;
    }
    return 1;
}

int sweep_map_read_rules(const char *path, sweep_map_values *v, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen)
        err = dummy, errlen = sizeof dummy;
    if (!path || !v) {
        snprintf(err, errlen, "no rules file or no values to read into");
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return 0;
    }
    unsigned set_on[RULES_KEYS] = {0}; /* the line of each key, 0 if absent */
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int ok = 1;
    while (ok && getline(&line, &cap, f) >= 0) {
        lineno++;
        char *key, *value;
        int kind = sweep_split_setting(line, &key, &value);
        if (kind == 0)
            continue;
        if (kind < 0) {
            snprintf(err, errlen, "%s line %u: expected 'key = value'", path, lineno);
            ok = 0;
            break;
        }
        int k = rules_key_index(key);
        if (k < 0) {
            snprintf(err, errlen,
                     "%s line %u: unknown key '%.40s' (known: gravity, radii, tick_rate, walkable_slope_deg, "
                     "step_height, walk_speed, ground_accel, air_accel, jump_speed, max_step, speed_limit, "
                     "correction_threshold, history_ms, rewind_cap_ms, crouch_radii, crouch_speed, swim_speed, "
                     "swim_accel, swim_drag, swim_sink, swim_jump, climb_speed, climb_accel, air_move)",
                     path, lineno, key);
            ok = 0;
            break;
        }
        if (set_on[k]) {
            snprintf(err, errlen, "%s line %u: %s is already set on line %u", path, lineno, key, set_on[k]);
            ok = 0;
            break;
        }
        set_on[k] = lineno;
        const rules_key *rk = &rules_keys[k];
        if (rk->vec) {
            double x[3];
            /* The value is quoted before parsing cuts it up at the commas. */
            char shown[48];
            snprintf(shown, sizeof shown, "%s", value);
            if (!parse_vec3_list(value, x)) {
                snprintf(err, errlen, "%s line %u: %s wants three finite numbers X,Y,Z, got '%s'", path, lineno,
                         key, shown);
                ok = 0;
                break;
            }
            sweep_vec3 p = sweep_v3(x[0], x[1], x[2]);
            memcpy((char *)v + rk->offset, &p, sizeof p);
        } else {
            double x;
            if (!sweep_parse_double(value, -DBL_MAX, DBL_MAX, &x)) {
                snprintf(err, errlen, "%s line %u: %s wants a finite number, got '%.40s'", path, lineno, key, value);
                ok = 0;
                break;
            }
            memcpy((char *)v + rk->offset, &x, sizeof x);
        }
    }
    if (ok && ferror(f)) {
        snprintf(err, errlen, "%s: read error", path);
        ok = 0;
    }
    free(line);
    fclose(f);
    if (!ok)
        return 0;

    /* The whole set, as the loader will see it; the message goes to the
     * line that set the value at fault. */
    const char *key = NULL;
    char why[256];
    if (sweep_map_check_values(v, &key, why, sizeof why) == SWEEP_OK)
        return 1;
    int k = rules_key_index(key);
    unsigned at = k >= 0 ? set_on[k] : 0;
    const char *note = "";
    if (k >= 0 && !at && strcmp(key, "speed_limit") == 0) {
        /* The file raised walk_speed or jump_speed above a speed_limit it
         * left alone: that line is the one to look at. */
        const sweep_rules *r = &v->rules;
        at = r->walk_speed > r->speed_limit ? set_on[rules_key_index("walk_speed")]
                                            : set_on[rules_key_index("jump_speed")];
        note = " (speed_limit is not set in the file: raise it too)";
    }
    if (at)
        snprintf(err, errlen, "%s line %u: %s%s", path, at, why, note);
    else
        snprintf(err, errlen, "%s: %s", path, why);
    return 0;
}
