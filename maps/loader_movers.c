/*
 * loader_movers.c - the map loader's movers (schema version 2): the
 * movers table and the mover_vertices, mover_triangles and
 * mover_keyframes tables, read beside it.
 *
 * The mover tables are keyed by (mover, id), each read in (mover, id)
 * order beside the movers, which are read first in id order: one pass
 * walks both, so a row naming no mover or leaving a gap in its mover's
 * ids is found where it stands. Each row is checked for what only the row
 * can tell (types, ranges, indices, materials); the rules about a whole
 * mover (path order, unit rotations, closed loops, waits, trigger box)
 * are the core's own, sweep_mover_desc_check, run on each mover once it
 * is complete, so the loader can never accept a mover that
 * sweep_movers_create would refuse.
 */
#include "maps/loader_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mover.h"
#include "core/world.h"

#define MAX_MOVERS 65536u
/* The same bound on a mover's vertices as on the static ones per triangle. */
#define MAX_MOVER_VERTICES (3u * SWEEP_MOVER_MAX_TRIANGLES)

/* --- movers (schema version 2) ------------------------------------------ */

/* Reads a text column that must be one of `names` (the core's stable
 * spelling); *out is its index. */
static int get_choice(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                      const char *(*name_of)(int), int count, int *out)
{
    int type = sqlite3_column_type(st, col);
    if (type != SQLITE_TEXT)
        return sweep__load_fail(L, SWEEP_MAP_E_MOVER, table, row, "%s is not text (%s)", name,
                                sweep__load_type_name(type));
    const char *t = (const char *)sqlite3_column_text(st, col);
    if (!t)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, table, row, "out of memory");
    int n = sqlite3_column_bytes(st, col);
    char list[64];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < count; i++) {
        const char *c = name_of(i);
        if ((size_t)n == strlen(c) && memcmp(t, c, (size_t)n) == 0) {
            *out = i;
            return 1;
        }
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", c);
    }
    return sweep__load_fail(L, SWEEP_MAP_E_MOVER, table, row, "%s '%.32s' is not one of %s", name, t, list);
}

static const char *mode_name(int i)
{
    return sweep_mover_mode_name((sweep_mover_mode)i);
}

static const char *trigger_name(int i)
{
    return sweep_mover_trigger_name((sweep_mover_trigger)i);
}

static const char *blocked_name(int i)
{
    return sweep_mover_blocked_name((sweep_mover_blocked)i);
}

/* A mover's name and id, sorted by name then id to find a repeated name. */
typedef struct named {
    const char *name;
    uint32_t id;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int unique_mover_names(load *L)
{
    sweep_level *lv = L->lv;
    if (lv->mover_count < 2)
        return 1;
    named *v = malloc(lv->mover_count * sizeof *v);
    if (!v)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, "movers", -1, "out of memory");
    for (uint32_t i = 0; i < lv->mover_count; i++)
        v[i].name = lv->movers[i].name, v[i].id = lv->movers[i].id;
    qsort(v, lv->mover_count, sizeof *v, by_name);
    int ok = 1;
    for (uint32_t i = 1; ok && i < lv->mover_count; i++)
        if (strcmp(v[i - 1].name, v[i].name) == 0)
            ok = sweep__load_fail_mover(L, SWEEP_MAP_E_MOVER, "movers", v[i].id, v[i].id,
                                        "name '%s' is also the name of mover %u", v[i].name, v[i - 1].id);
    free(v);
    return ok;
}

static int read_movers(load *L)
{
    static const char *const T = "movers";
    static const char *const vn[6] = {"volume_min_x", "volume_min_y", "volume_min_z",
                                      "volume_max_x", "volume_max_y", "volume_max_z"};
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM movers", &n))
        return 0;
    if (n > MAX_MOVERS)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n,
                                MAX_MOVERS);
    if (n == 0)
        return 1;
    lv->movers = calloc((size_t)n, sizeof *lv->movers);
    if (!lv->movers)
        return sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, -1, "out of memory");
    lv->mover_cap = (uint32_t)n;
    sqlite3_stmt *st =
        sweep__load_prepare(L, T,
                            "SELECT id, name, mode, trigger, blocked, wait_start, wait_end, volume_min_x, "
                            "volume_min_y, volume_min_z, volume_max_x, volume_max_y, volume_max_z "
                            "FROM movers ORDER BY id");
    if (!st)
        return 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        L->row_mover = id;
        if (lv->mover_count >= lv->mover_cap) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id < 1 || id > UINT32_MAX) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_MOVER, T, id, "id must be a whole number from 1 to %u", UINT32_MAX);
            break;
        }
        if (!(ok = sweep__load_unique_id(L, SWEEP_MAP_E_MOVER, T, id, lv->mover_count > 0,
                                         lv->mover_count ? lv->movers[lv->mover_count - 1].id : 0)))
            break;
        char name[SWEEP_LEVEL_NAME_MAX];
        int mode = 0, trigger = 0, blocked = 0;
        double wait[2], vol[6] = {0, 0, 0, 0, 0, 0};
        ok = sweep__load_text(L, st, 1, T, id, "name", SWEEP_MAP_E_MOVER, name, sizeof name) &&
             get_choice(L, st, 2, T, id, "mode", mode_name, SWEEP_MOVER_MODE_COUNT, &mode) &&
             get_choice(L, st, 3, T, id, "trigger", trigger_name, SWEEP_TRIGGER_COUNT, &trigger) &&
             get_choice(L, st, 4, T, id, "blocked", blocked_name, SWEEP_BLOCKED_COUNT, &blocked) &&
             sweep__load_number(L, st, 5, T, id, "wait_start", &wait[0]) &&
             sweep__load_number(L, st, 6, T, id, "wait_end", &wait[1]);
        /* Only a volume trigger has a box, and it has all of it: a box
         * left on another trigger is an author's mistake worth naming. */
        for (int k = 0; ok && k < 6; k++) {
            int null = sqlite3_column_type(st, 7 + k) == SQLITE_NULL;
            if (trigger == SWEEP_TRIGGER_VOLUME && null)
                ok = sweep__load_fail(L, SWEEP_MAP_E_MOVER, T, id, "trigger 'volume' needs its box, but %s is NULL",
                                      vn[k]);
            else if (trigger != SWEEP_TRIGGER_VOLUME && !null)
                ok = sweep__load_fail(
                    L, SWEEP_MAP_E_MOVER, T, id,
                    "%s is set, but only a 'volume' trigger has a box (trigger is '%s'); leave it NULL", vn[k],
                    trigger_name(trigger));
            else if (!null)
                ok = sweep__load_number(L, st, 7 + k, T, id, vn[k], &vol[k]);
        }
        if (!ok)
            break;
        uint32_t at;
        sweep_status s = sweep_level_add_mover(lv, (uint32_t)id, name, &at);
        if (s != SWEEP_OK) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
            break;
        }
        sweep_level_mover *m = &lv->movers[at];
        m->mode = (sweep_mover_mode)mode;
        m->trigger = (sweep_mover_trigger)trigger;
        m->blocked = (sweep_mover_blocked)blocked;
        m->wait_start = wait[0];
        m->wait_end = wait[1];
        m->volume_min = sweep_v3(vol[0], vol[1], vol[2]);
        m->volume_max = sweep_v3(vol[3], vol[4], vol[5]);
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok && unique_mover_names(L);
}

/* For one row of a mover_* table (columns 0 and 1 are mover and id, rows in
 * (mover, id) order): finds its mover, moving *cur forward through
 * lv->movers (in id order), and checks that the id is the next one of that
 * mover, `have` being how many rows the mover has so far. `id_error` is the
 * code for a gap. Sets L->row_mover so that the row's other errors name it. */
static sweep_level_mover *row_mover(load *L, sqlite3_stmt *st, const char *table, uint32_t *cur,
                                    uint32_t (*have)(const sweep_level_mover *), sweep_map_error id_error,
                                    int64_t *row)
{
    sweep_level *lv = L->lv;
    int64_t mover = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1);
    int id_ok = sqlite3_column_type(st, 1) == SQLITE_INTEGER;
    *row = id_ok ? id : -1;
    if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
        L->row_mover = -1;
        sweep__load_fail(L, SWEEP_MAP_E_MOVER, table, *row, "mover is not a whole number (%s)",
                         sweep__load_type_name(sqlite3_column_type(st, 0)));
        return NULL;
    }
    L->row_mover = mover;
    if (!id_ok) {
        sweep__load_fail(L, id_error, table, -1, "a row of mover %lld has an id that is not a whole number (%s)",
                         (long long)mover, sweep__load_type_name(sqlite3_column_type(st, 1)));
        return NULL;
    }
    while (*cur < lv->mover_count && lv->movers[*cur].id < mover)
        (*cur)++;
    if (*cur >= lv->mover_count || lv->movers[*cur].id != mover) {
        sweep__load_fail(L, SWEEP_MAP_E_MOVER, table, id, "mover %lld is not in table movers", (long long)mover);
        return NULL;
    }
    sweep_level_mover *m = &lv->movers[*cur];
    if (id != (int64_t)have(m)) {
        sweep__load_fail(L, id_error, table, id,
                         "ids must run 0, 1, 2, ... per mover without gaps; expected id %u here", have(m));
        return NULL;
    }
    return m;
}

static uint32_t vertices_of(const sweep_level_mover *m)
{
    return m->vertex_count;
}

static uint32_t triangles_of(const sweep_level_mover *m)
{
    return m->triangle_count;
}

static uint32_t keys_of(const sweep_level_mover *m)
{
    return m->key_count;
}

/* Reads one finite number in [-limit, limit] (a coordinate). */
static int get_coordinate(load *L, sqlite3_stmt *st, int col, const char *table, int64_t row, const char *name,
                          double limit, double *out)
{
    if (!sweep__load_number(L, st, col, table, row, name, out))
        return 0;
    if (!(fabs(*out) <= limit))
        return sweep__load_fail(L, SWEEP_MAP_E_VALUE, table, row, "%s=%g is beyond the coordinate limit %g", name, *out,
                                limit);
    return 1;
}

static int read_mover_vertices(load *L)
{
    static const char *const T = "mover_vertices";
    sweep_level *lv = L->lv;
    sqlite3_stmt *st = sweep__load_prepare(L, T, "SELECT mover, id, x, y, z FROM mover_vertices ORDER BY mover, id");
    if (!st)
        return 0;
    const double limit = lv->config.max_coordinate;
    uint32_t cur = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        sweep_level_mover *m = row_mover(L, st, T, &cur, vertices_of, SWEEP_MAP_E_VERTEX_ID, &id);
        if (!m) {
            ok = 0;
            break;
        }
        if (m->vertex_count >= MAX_MOVER_VERTICES) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, id, "a mover has at most %u vertices", MAX_MOVER_VERTICES);
            break;
        }
        double v[3];
        ok = get_coordinate(L, st, 2, T, id, "x", limit, &v[0]) && get_coordinate(L, st, 3, T, id, "y", limit, &v[1]) &&
             get_coordinate(L, st, 4, T, id, "z", limit, &v[2]);
        if (ok && sweep_level_mover_add_vertex(m, sweep_v3(v[0], v[1], v[2]), NULL) != SWEEP_OK)
            ok = sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_mover_triangles(load *L)
{
    static const char *const T = "mover_triangles";
    static const char *const names[3] = {"a", "b", "c"};
    sweep_level *lv = L->lv;
    /* Mover triangles are numbered after the static ones (mover.h): both
     * together must fit the core's numbering. */
    int64_t n = 0;
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM mover_triangles", &n))
        return 0;
    if (n > (int64_t)SWEEP_WORLD_MAX_TRIANGLES - lv->triangle_count)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1,
                                "%lld rows and %u static triangles, the core accepts at most %u triangles in all",
                                (long long)n, lv->triangle_count, SWEEP_WORLD_MAX_TRIANGLES);
    sqlite3_stmt *st =
        sweep__load_prepare(L, T, "SELECT mover, id, a, b, c, material FROM mover_triangles ORDER BY mover, id");
    if (!st)
        return 0;
    uint32_t cur = 0, degenerate = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        sweep_level_mover *m = row_mover(L, st, T, &cur, triangles_of, SWEEP_MAP_E_MOVER, &id);
        if (!m) {
            ok = 0;
            break;
        }
        if (m->triangle_count >= SWEEP_MOVER_MAX_TRIANGLES) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, id, "a mover has at most %u triangles",
                                  SWEEP_MOVER_MAX_TRIANGLES);
            break;
        }
        uint32_t ix[3];
        for (int k = 0; ok && k < 3; k++) {
            int64_t v;
            if (!(ok = sweep__load_integer(L, st, 2 + k, T, id, names[k], SWEEP_MAP_E_INDEX, &v)))
                break;
            if (v < 0 || v >= m->vertex_count) {
                if (m->vertex_count == 0)
                    ok = sweep__load_fail(L, SWEEP_MAP_E_INDEX, T, id,
                                          "vertex %s=%lld is out of range (mover %u has no rows in mover_vertices)",
                                          names[k], (long long)v, m->id);
                else
                    ok = sweep__load_fail(
                        L, SWEEP_MAP_E_INDEX, T, id,
                        "vertex %s=%lld is out of range (mover %u has %u rows in mover_vertices, ids 0 to %u)",
                        names[k], (long long)v, m->id, m->vertex_count, m->vertex_count - 1);
                break;
            }
            ix[k] = (uint32_t)v;
        }
        int64_t mat;
        if (!ok || !(ok = sweep__load_integer(L, st, 5, T, id, "material", SWEEP_MAP_E_MATERIAL, &mat)))
            break;
        if (sweep__load_find_material(lv, mat) < 0) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_MATERIAL, T, id, "material %lld is not in table materials",
                                  (long long)mat);
            break;
        }
        if (sweep_triangle_is_degenerate(m->vertices[ix[0]], m->vertices[ix[1]], m->vertices[ix[2]]))
            degenerate++;
        if (sweep_level_mover_add_triangle(m, ix[0], ix[1], ix[2], (uint32_t)mat) != SWEEP_OK)
            ok = sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    if (L->info)
        L->info->mover_degenerate = degenerate;
    return ok;
}

static int read_mover_keyframes(load *L)
{
    static const char *const T = "mover_keyframes";
    static const char *const qn[4] = {"qx", "qy", "qz", "qw"};
    sweep_level *lv = L->lv;
    sqlite3_stmt *st = sweep__load_prepare(L, T,
                                           "SELECT mover, id, time, x, y, z, qx, qy, qz, qw FROM mover_keyframes "
                                           "ORDER BY mover, id");
    if (!st)
        return 0;
    const double limit = lv->config.max_coordinate;
    uint32_t cur = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id;
        sweep_level_mover *m = row_mover(L, st, T, &cur, keys_of, SWEEP_MAP_E_KEYFRAME, &id);
        if (!m) {
            ok = 0;
            break;
        }
        if (m->key_count >= SWEEP_MOVER_MAX_KEYFRAMES) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, id, "a mover has at most %u keyframes",
                                  SWEEP_MOVER_MAX_KEYFRAMES);
            break;
        }
        double time, p[3], q[4];
        ok = sweep__load_number(L, st, 2, T, id, "time", &time) && get_coordinate(L, st, 3, T, id, "x", limit, &p[0]) &&
             get_coordinate(L, st, 4, T, id, "y", limit, &p[1]) && get_coordinate(L, st, 5, T, id, "z", limit, &p[2]);
        for (int k = 0; ok && k < 4; k++)
            ok = sweep__load_number(L, st, 6 + k, T, id, qn[k], &q[k]);
        if (!ok)
            break;
        sweep_quat r = {q[0], q[1], q[2], q[3]};
        if (sweep_level_mover_add_keyframe(m, time, sweep_v3(p[0], p[1], p[2]), r) != SWEEP_OK)
            ok = sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    L->row_mover = -1;
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

/* The core's rules about a whole mover, reported at the row concerned:
 * the keyframe, triangle or vertex sweep_mover_desc_check names, or the
 * movers row when it is about the mover as a whole. */
static int check_mover(load *L, uint32_t i)
{
    const sweep_level_mover *m = &L->lv->movers[i];
    sweep_mover_desc d = sweep_level_mover_desc(L->lv, i);
    uint32_t at = 0;
    sweep_mover_problem p = sweep_mover_desc_check(&d, &at);
    if (p == SWEEP_MOVER_FINE)
        return 1;
    const char *text = sweep_mover_problem_text(p);
    char detail[96] = "";
    switch (p) {
    case SWEEP_MOVER_NO_TRIANGLES:
        if (m->triangle_count == 0)
            return sweep__load_fail_mover(L, SWEEP_MAP_E_MOVER, "movers", m->id, m->id,
                                          "mover '%s': %s (it has no rows in mover_triangles)", m->name, text);
        return sweep__load_fail_mover(L, SWEEP_MAP_E_MOVER, "movers", m->id, m->id,
                                      "mover '%s': %s (all %u are degenerate)", m->name, text, m->triangle_count);
    case SWEEP_MOVER_TOO_MANY_TRIANGLES:
        return sweep__load_fail_mover(L, SWEEP_MAP_E_TOO_BIG, "movers", m->id, m->id, "mover '%s': %s", m->name, text);
    case SWEEP_MOVER_BAD_VERTEX:
        return sweep__load_fail_mover(L, SWEEP_MAP_E_VALUE, "mover_vertices", m->id, at, "mover %u '%s': %s", m->id,
                                      m->name, text);
    case SWEEP_MOVER_BAD_INDEX:
        return sweep__load_fail_mover(L, SWEEP_MAP_E_INDEX, "mover_triangles", m->id, at, "mover %u '%s': %s", m->id,
                                      m->name, text);
    case SWEEP_MOVER_FEW_KEYFRAMES:
        return sweep__load_fail_mover(L, SWEEP_MAP_E_KEYFRAME, "mover_keyframes", m->id, -1,
                                      "mover %u '%s' has %u keyframe%s: %s", m->id, m->name, m->key_count,
                                      m->key_count == 1 ? "" : "s", text);
    case SWEEP_MOVER_FIRST_TIME:
    case SWEEP_MOVER_TIME_ORDER:
        if (at > 0)
            snprintf(detail, sizeof detail, " (time %.17g after %.17g)", m->keys[at].time, m->keys[at - 1].time);
        else
            snprintf(detail, sizeof detail, " (time %.17g)", m->keys[at].time);
        break;
    case SWEEP_MOVER_NOT_UNIT: {
        sweep_quat q = m->keys[at].pose.rotation;
        snprintf(detail, sizeof detail, " (its length squared is %.9g)", sweep_quat_dot(q, q));
        break;
    }
    case SWEEP_MOVER_OPEN_LOOP:
        snprintf(detail, sizeof detail, " (keyframe 0 is at (%g, %g, %g))", m->keys[0].pose.position.x,
                 m->keys[0].pose.position.y, m->keys[0].pose.position.z);
        break;
    case SWEEP_MOVER_BAD_POSITION:
        break;
    default:
        /* Rules on the movers row itself: mode, trigger, blocked, waits, box. */
        return sweep__load_fail_mover(L, SWEEP_MAP_E_MOVER, "movers", m->id, m->id, "mover '%s': %s", m->name, text);
    }
    sweep_map_error code = p == SWEEP_MOVER_BAD_POSITION ? SWEEP_MAP_E_VALUE : SWEEP_MAP_E_KEYFRAME;
    return sweep__load_fail_mover(L, code, "mover_keyframes", m->id, at, "mover %u '%s': %s%s", m->id, m->name, text,
                                  detail);
}

int sweep__load_movers(load *L)
{
    if (L->version < 2)
        return 1; /* version 1 maps have no movers */
    if (!read_movers(L) || !read_mover_vertices(L) || !read_mover_triangles(L) || !read_mover_keyframes(L))
        return 0;
    for (uint32_t i = 0; i < L->lv->mover_count; i++)
        if (!check_mover(L, i))
            return 0;
    return 1;
}
