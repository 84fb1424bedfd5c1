/*
 * loader_volumes.c - the map loader's volumes (schema version 3, with
 * version 4's optional columns): the volumes table and their planes, each
 * volume then checked by the core's own rules (core/volume.h), so the
 * loader can never accept a volume the world would refuse.
 */
#include "maps/loader_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/volume.h"

/* --- volumes (schema version 3) ----------------------------------------- */

#define KIND_BIT(k) (1u << SWEEP_VOLUME_##k)
/* The columns of a volumes row after the box: the kinds that read each
 * (the others leave it NULL), those that must give it, and their names
 * for a message. The last four are version 4's, and optional. */
static const struct volume_column {
    const char *name;
    uint32_t readers, needed;
    const char *readers_text;
} volume_columns[] = {
    {"velocity_x", KIND_BIT(PUSH), KIND_BIT(PUSH), "'push'"},
    {"velocity_y", KIND_BIT(PUSH), KIND_BIT(PUSH), "'push'"},
    {"velocity_z", KIND_BIT(PUSH), KIND_BIT(PUSH), "'push'"},
    {"destination_x", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"destination_y", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"destination_z", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"facing_x", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"facing_y", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"facing_z", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"keep_velocity", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    {"exit_speed", KIND_BIT(TELEPORT), KIND_BIT(TELEPORT), "'teleport'"},
    /* A liquid without damage does none. */
    {"damage", KIND_BIT(HURT) | KIND_BIT(LIQUID), KIND_BIT(HURT), "'hurt' and 'liquid'"},
    {"liquid", KIND_BIT(LIQUID), KIND_BIT(LIQUID), "'liquid'"},
    {"normal_x", KIND_BIT(LADDER), KIND_BIT(LADDER), "'ladder'"},
    {"normal_y", KIND_BIT(LADDER), KIND_BIT(LADDER), "'ladder'"},
    {"normal_z", KIND_BIT(LADDER), KIND_BIT(LADDER), "'ladder'"},
};
#undef KIND_BIT
#define VOLUME_COLUMNS (sizeof volume_columns / sizeof volume_columns[0])
#define VOLUME_FIRST_PARAM 9
#define VOLUME_KEEP 9   /* keep_velocity: an integer */
#define VOLUME_LIQUID 12 /* liquid: a name */

static int read_volume_rows(load *L)
{
    static const char *const T = "volumes";
    static const char *const box[6] = {"min_x", "min_y", "min_z", "max_x", "max_y", "max_z"};
    sweep_level *lv = L->lv;
    int64_t n = 0;
    if (!sweep__load_count_rows(L, T, "SELECT count(*) FROM volumes", &n))
        return 0;
    if (n > SWEEP_VOLUME_MAX)
        return sweep__load_fail(L, SWEEP_MAP_E_TOO_BIG, T, -1, "%lld rows, at most %u are allowed", (long long)n,
                                SWEEP_VOLUME_MAX);
    /* A map without the liquid and ladder columns has neither. */
    int modes = sweep__load_has_column(L, T, "liquid");
    if (modes < 0)
        return 0;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT id, name, kind, min_x, min_y, min_z, max_x, max_y, max_z, velocity_x, velocity_y, velocity_z, "
             "destination_x, destination_y, destination_z, facing_x, facing_y, facing_z, keep_velocity, exit_speed, "
             "damage, %s FROM volumes ORDER BY id",
             modes ? "liquid, normal_x, normal_y, normal_z" : "NULL, NULL, NULL, NULL");
    sqlite3_stmt *st = sweep__load_prepare(L, T, sql);
    if (!st)
        return 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || id < 1 || id > UINT32_MAX) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, id, "id must be a whole number from 1 to %u", UINT32_MAX);
            break;
        }
        if (!(ok = sweep__load_unique_id(L, SWEEP_MAP_E_VOLUME, T, id, lv->volume_count > 0,
                                         lv->volume_count ? lv->volumes[lv->volume_count - 1].id : 0)))
            break;
        char name[SWEEP_LEVEL_NAME_MAX];
        sweep_volume v;
        memset(&v, 0, sizeof v);
        if (!sweep__load_text(L, st, 1, T, id, "name", SWEEP_MAP_E_VOLUME, name, sizeof name)) {
            ok = 0;
            break;
        }
        const char *kind = (const char *)sqlite3_column_text(st, 2);
        int k = 0;
        while (kind && k < SWEEP_VOLUME_KIND_COUNT && strcmp(kind, sweep_volume_kind_name((sweep_volume_kind)k)))
            k++;
        if (!kind || k == SWEEP_VOLUME_KIND_COUNT) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, id,
                                  "kind '%.32s' is not one of push, teleport, hurt, kill, trigger, liquid, ladder",
                                  kind ? kind : "NULL");
            break;
        }
        v.kind = (sweep_volume_kind)k;
        double b[6], p[VOLUME_COLUMNS] = {0};
        for (int i = 0; ok && i < 6; i++)
            ok = sweep__load_number(L, st, 3 + i, T, id, box[i], &b[i]);
        for (int i = 0; ok && i < (int)VOLUME_COLUMNS; i++) {
            const struct volume_column *c = &volume_columns[i];
            int col = VOLUME_FIRST_PARAM + i, null = sqlite3_column_type(st, col) == SQLITE_NULL;
            uint32_t bit = 1u << v.kind;
            if ((c->needed & bit) && null) {
                ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, id, "a '%s' volume needs %s, but it is NULL", kind,
                                      c->name);
            } else if (!(c->readers & bit) && !null) {
                ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, id,
                                      "%s is set, but a '%s' volume does not read it (only %s do%s); leave it NULL",
                                      c->name, kind, c->readers_text, strchr(c->readers_text, ' ') ? "" : "es");
            } else if (!null && i == VOLUME_KEEP) {
                int64_t keep = 0;
                ok = sweep__load_integer(L, st, col, T, id, c->name, SWEEP_MAP_E_VOLUME, &keep);
                if (ok && keep != 0 && keep != 1)
                    ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, id, "keep_velocity must be 0 or 1, got %lld",
                                          (long long)keep);
                p[i] = (double)keep;
            } else if (!null && i == VOLUME_LIQUID) {
                const char *l = (const char *)sqlite3_column_text(st, col);
                int q = 1;
                while (l && q < SWEEP_LIQUID_COUNT && strcmp(l, sweep_liquid_name((sweep_liquid)q)))
                    q++;
                if (!l || q == SWEEP_LIQUID_COUNT)
                    ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, id,
                                          "liquid '%.32s' is not one of water, slime, lava", l ? l : "NULL");
                v.liquid = (sweep_liquid)q;
            } else if (!null) {
                ok = sweep__load_number(L, st, col, T, id, c->name, &p[i]);
            }
        }
        if (!ok)
            break;
        v.lo = sweep_v3(b[0], b[1], b[2]);
        v.hi = sweep_v3(b[3], b[4], b[5]);
        v.velocity = sweep_v3(p[0], p[1], p[2]);
        v.destination = sweep_v3(p[3], p[4], p[5]);
        v.facing = sweep_v3(p[6], p[7], p[8]);
        v.keep_velocity = (uint32_t)p[9];
        v.exit_speed = p[10];
        v.damage = p[11];
        v.normal = sweep_v3(p[13], p[14], p[15]);
        if (lv->volume_count >= (uint32_t)n) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_IO, T, id, "the table changed while it was read");
            break;
        }
        if (sweep_level_add_volume(lv, (uint32_t)id, name, &v) != SWEEP_OK)
            ok = sweep__load_fail(L, SWEEP_MAP_E_NOMEM, T, id, "out of memory");
    }
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

static int read_volume_planes(load *L)
{
    static const char *const T = "volume_planes";
    static const char *const cn[4] = {"nx", "ny", "nz", "d"};
    sweep_level *lv = L->lv;
    sqlite3_stmt *st =
        sweep__load_prepare(L, T, "SELECT volume, id, nx, ny, nz, d FROM volume_planes ORDER BY volume, id");
    if (!st)
        return 0;
    uint32_t cur = 0;
    int rc, ok = 1;
    while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* Whole numbers, as every other table's ids (a volume of 1.5 was
         * read as volume 1); the row is named by both, since each volume
         * numbers its planes from 0. */
        int64_t vol = 0, id = 0;
        if (!sweep__load_integer(L, st, 0, T, -1, "volume", SWEEP_MAP_E_VOLUME, &vol) ||
            !sweep__load_integer(L, st, 1, T, -1, "id", SWEEP_MAP_E_VOLUME, &id)) {
            ok = 0;
            break;
        }
        while (cur < lv->volume_count && lv->volumes[cur].id < vol)
            cur++;
        if (cur == lv->volume_count || lv->volumes[cur].id != vol) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, -1, "row volume=%lld id=%lld: there is no volume %lld",
                                  (long long)vol, (long long)id, (long long)vol);
            break;
        }
        sweep_volume *v = &lv->volumes[cur].v;
        if (id != (int64_t)v->plane_count) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, -1,
                                  "row volume=%lld id=%lld: ids must run 0, 1, 2, ... (expected %u)", (long long)vol,
                                  (long long)id, v->plane_count);
            break;
        }
        if (v->plane_count == SWEEP_VOLUME_MAX_PLANES) {
            ok = sweep__load_fail(L, SWEEP_MAP_E_VOLUME, T, -1,
                                  "row volume=%lld id=%lld: a volume has at most %u planes", (long long)vol,
                                  (long long)id, SWEEP_VOLUME_MAX_PLANES);
            break;
        }
        double x[4];
        char col[48];
        for (int i = 0; ok && i < 4; i++) {
            snprintf(col, sizeof col, "volume %lld's %s", (long long)vol, cn[i]);
            ok = sweep__load_number(L, st, 2 + i, T, id, col, &x[i]);
        }
        if (!ok)
            break;
        v->planes[v->plane_count].normal = sweep_v3(x[0], x[1], x[2]);
        v->planes[v->plane_count].offset = x[3];
        v->plane_count++;
    }
    if (ok && rc != SQLITE_DONE)
        ok = sweep__load_fail_sqlite(L, rc, T, -1);
    sqlite3_finalize(st);
    return ok;
}

int sweep__load_volumes(load *L)
{
    if (L->version < 3)
        return 1; /* versions 1 and 2 have no volumes */
    if (!read_volume_rows(L) || !read_volume_planes(L))
        return 0;
    const sweep_level *lv = L->lv;
    for (uint32_t i = 0; i < lv->volume_count; i++) {
        const char *why = "";
        const sweep_volume *v = &lv->volumes[i].v;
        if (sweep_volume_check(v, lv->config.max_speed, lv->config.max_coordinate, &why) == SWEEP_OK)
            continue;
        /* A speed above the limit is named with both numbers: which of
         * the two to change is the map maker's call. */
        const double speed = sweep_volume_speed(v);
        if (speed > lv->config.max_speed)
            return sweep__load_fail(L, SWEEP_MAP_E_VOLUME, "volumes", lv->volumes[i].id,
                                    "volume '%s' (%s): %s (%g, the map's speed_limit %g)", lv->volumes[i].name,
                                    sweep_volume_kind_name(v->kind), why, speed, lv->config.max_speed);
        return sweep__load_fail(L, SWEEP_MAP_E_VOLUME, "volumes", lv->volumes[i].id, "volume '%s' (%s): %s",
                                lv->volumes[i].name, sweep_volume_kind_name(v->kind), why);
    }
    return 1;
}
