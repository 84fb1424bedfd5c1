/*
 * test_arena.c - the sample arena, end to end: maps/arena.sql (SQL text)
 * built into a database, loaded, hashed and turned into a core world, with
 * the expected counts and a content hash pinned here; the database built
 * by make gives the same level. Then a player walks into each feature
 * listed at the top of arena.sql, which checks that the features are where
 * the comment says and behave as intended. The movers of the east wing are
 * checked as meshes (closed, faces out) and as paths (poses at known ticks,
 * always inside the wing), and in use: players walk through both doors and
 * ride the lift up to the balcony.
 */
#include "tests/maps/map_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/move.h"
#include "core/mover.h"
#include "maps/content_hash.h"
#include "maps/loader.h"

/* Pinned: changes only when arena.sql, the schema's meaning or the hash
 * serialization changes (then update it deliberately). */
#define ARENA_TRIANGLES 454
#define ARENA_VERTICES 912
#define ARENA_MOVERS 4
#define ARENA_HASH "54fa0498c4042156ae2aa7ac2bfd7f95e4440b97879f9079b82c9e24ee6f523f"

typedef struct arena {
    fixture *f;
    sweep_level lv;
    sweep_world *world;
} arena;

static void load_ok(const char *path, sweep_level *lv)
{
    char err[512];
    sweep_map_load_info info;
    sweep_status st = sweep_map_load(path, lv, &info, err, sizeof err);
    if (st != SWEEP_OK)
        fail_msg("%s: %s", path, err);
    assert_int_equal(info.degenerate_dropped, 0);
}

/* The arena built from SQL text the way make builds it. */
static void build_from_sql(const char *db)
{
    char *rows = fixture_read(fixture_src("maps/arena.sql"), NULL);
    assert_non_null(rows);
    assert_true(fixture_build_map(db, rows));
    free(rows);
}

static int setup(void **state)
{
    arena *a = calloc(1, sizeof *a);
    a->f = fixture_new();
    if (!a->f)
        return -1;
    const char *db = fixture_path(a->f, "arena.db");
    build_from_sql(db);
    load_ok(db, &a->lv);
    char err[256];
    if (sweep_map_build_world(&a->lv, &a->world, NULL, err, sizeof err) != SWEEP_OK)
        return -1;
    *state = a;
    return 0;
}

static int teardown(void **state)
{
    arena *a = *state;
    sweep_world_destroy(a->world);
    sweep_level_free(&a->lv);
    fixture_cleanup(a->f);
    free(a);
    return 0;
}

static void hex_of(const sweep_level *lv, char hex[65])
{
    sweep_content_hash h;
    assert_int_equal(sweep_level_content_hash(lv, &h), SWEEP_OK);
    sweep_content_hash_hex(&h, hex);
}

static void round_trip_counts_and_hash(void **state)
{
    arena *a = *state;
    assert_string_equal(a->lv.name, "arena");
    assert_int_equal(a->lv.triangle_count, ARENA_TRIANGLES);
    assert_int_equal(a->lv.vertex_count, ARENA_VERTICES);
    assert_int_equal(a->lv.material_count, 6);
    assert_int_equal(a->lv.spawn_count, 4);
    assert_int_equal(a->lv.mover_count, ARENA_MOVERS);
    assert_true(a->lv.default_radii.x == 0.4 && a->lv.default_radii.z == 0.9);
    assert_true(a->lv.config.step_height == 0.35);
    assert_true(a->lv.tick_rate == 60.0);
    /* The arena states the default rules for metres, bit for bit. */
    sweep_rules def;
    sweep_rules_default(&def);
    assert_memory_equal(&a->lv.rules, &def, sizeof def);
    assert_true(a->lv.correction_threshold == 0.25);
    assert_true(a->lv.config.max_speed == 60.0);

    sweep_world_info wi;
    sweep_world_get_info(a->world, &wi);
    assert_int_equal(wi.triangle_count, ARENA_TRIANGLES);
    assert_int_equal(wi.degenerate_count, 0);
    assert_true(wi.bounds_min.x == -21.0 && wi.bounds_max.x == 42.0); /* the east wing */
    assert_true(wi.bounds_min.z == -3.0 && wi.bounds_max.z == 4.0);

    char hex[65];
    hex_of(&a->lv, hex);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  arena hash %s\n", hex);
    assert_string_equal(hex, ARENA_HASH);
}

static void same_hash_every_load(void **state)
{
    arena *a = *state;
    char first[65], again[65];
    hex_of(&a->lv, first);
    for (int i = 0; i < 3; i++) {
        /* Rebuilt from the text and reloaded each time. */
        const char *db = fixture_path(a->f, "again.db");
        build_from_sql(db);
        sweep_level lv;
        load_ok(db, &lv);
        hex_of(&lv, again);
        assert_string_equal(first, again);
        sweep_level_free(&lv);
    }
}

static void make_built_arena_is_the_same(void **state)
{
    arena *a = *state;
    const char *db = fixture_build("maps/arena.db");
    if (access(db, R_OK) != 0)
        fail_msg("%s is missing: build it with make", db);
    sweep_level lv;
    load_ok(db, &lv);
    char h1[65], h2[65];
    hex_of(&a->lv, h1);
    hex_of(&lv, h2);
    assert_string_equal(h1, h2);
    sweep_level_free(&lv);
}

static void hash_sees_one_ulp(void **state)
{
    arena *a = *state;
    char before[65], after[65];
    hex_of(&a->lv, before);
    double keep = a->lv.vertices[100].y;
    a->lv.vertices[100].y = nextafter(keep, INFINITY);
    hex_of(&a->lv, after);
    a->lv.vertices[100].y = keep;
    assert_string_not_equal(before, after);
    uint32_t m = a->lv.materials[7];
    a->lv.materials[7] = m == 1 ? 2 : 1;
    hex_of(&a->lv, after);
    a->lv.materials[7] = m;
    assert_string_not_equal(before, after);
    a->lv.config.step_height = 0.36;
    hex_of(&a->lv, after);
    a->lv.config.step_height = 0.35;
    assert_string_not_equal(before, after);
    /* Labels do not count. */
    snprintf(a->lv.name, sizeof a->lv.name, "renamed");
    hex_of(&a->lv, after);
    assert_string_equal(before, after);
}

/* A player walking at `vel` (units/s, across up) for `steps` ticks of
 * 1/60 s from `start`, falling like walker.c's players, among the movers
 * mv (NULL: the static level alone) as they stand. */
static sweep_vec3 walk_among(const arena *a, const sweep_movers *mv, sweep_vec3 start, sweep_vec3 vel, int steps)
{
    const sweep_config *cfg = &a->lv.config;
    sweep_vec3 pos = start, v = sweep_v3(0, 0, 0);
    uint32_t grounded = 0;
    for (int i = 0; i < steps; i++) {
        sweep_move_input in;
        in.position = pos;
        in.radii = a->lv.default_radii;
        in.dt = 1.0 / 60.0;
        in.velocity = sweep_v3_madd(sweep_v3(vel.x, vel.y, v.z), cfg->gravity, in.dt);
        in.flags = grounded ? SWEEP_INPUT_GROUNDED : 0;
        sweep_move_result r;
        assert_int_equal(sweep_move_among(a->world, mv, cfg, &in, &r), SWEEP_OK);
        pos = r.position;
        v = r.velocity;
        grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
    }
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  from (%g, %g, %g): (%.3f, %.3f, %.3f)\n", start.x, start.y, start.z, pos.x, pos.y, pos.z);
    return pos;
}

static sweep_vec3 walk(const arena *a, sweep_vec3 start, sweep_vec3 vel, int steps)
{
    return walk_among(a, NULL, start, vel, steps);
}

static void stairs(void **state)
{
    arena *a = *state;
    static const struct { double x, landing; int climbable; } flights[] = {
        {-15, 0.6, 1}, {-11, 1.0, 1}, {-7, 1.2, 1}, {-3, 2.0, 0}};
    for (int i = 0; i < 4; i++) {
        sweep_vec3 p = walk(a, sweep_v3(flights[i].x, -18, 0.95), sweep_v3(0, 4, 0), 90);
        if (flights[i].climbable) {
            assert_true(p.y > -13.6 && p.y < -11.6);                  /* on the landing */
            assert_true(fabs(p.z - (flights[i].landing + 0.9)) < 0.05); /* standing on it */
        } else {
            assert_true(p.y < -16.0);             /* stopped at the first riser */
            assert_true(fabs(p.z - 0.9) < 0.05); /* still on the floor */
        }
    }
}

static void ramps(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(3.5, -18, 0.95), sweep_v3(0, 4, 0), 120);
    assert_true(p.y > -12.0);                  /* up the 25 degree ramp, onto its platform */
    assert_true(fabs(p.z - (1.865 + 0.9)) < 0.05);
    p = walk(a, sweep_v3(9.5, -18, 0.95), sweep_v3(0, 4, 0), 120);
    assert_true(p.y < -15.0);                  /* the 55 degree ramp is a wall to a walker */
    assert_true(p.z < 0.9 + 1.0);
}

static void ceilings(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(-13, -6, 0.95), sweep_v3(0, 4, 0), 90);
    assert_true(p.y < -2.3); /* 1.2 m of headroom: blocked */
    p = walk(a, sweep_v3(-6, -6, 0.95), sweep_v3(0, 4, 0), 90);
    assert_true(p.y > -0.5); /* 2.0 m: walks under */
    assert_true(fabs(p.z - 0.9) < 0.05);
}

static void corridors(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(13.3, -6, 0.95), sweep_v3(0, 4, 0), 120);
    assert_true(p.y < -4.2); /* 0.6 m: too narrow, held by both wall corners */
    p = walk(a, sweep_v3(15.2, -6, 0.95), sweep_v3(0, 4, 0), 180);
    assert_true(p.y > 4.0); /* 1.2 m: through */
    assert_true(p.x > 14.6 + 0.39 && p.x < 15.8 - 0.39);
}

static void wedge(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(0, 6, 0.95), sweep_v3(0, 4, 0), 180);
    assert_true(p.y > 12.0 && p.y < 14.0 - 0.8);
    /* Inside the V: at least a radius from each arm (distance to the line
     * through the apex along (3, 6) / sqrt 45). */
    double d1 = fabs(6.0 * (p.x - 0.0) - 3.0 * (p.y - 14.0)) / sqrt(45.0);
    double d2 = fabs(6.0 * (p.x - 0.0) + 3.0 * (p.y - 14.0)) / sqrt(45.0);
    assert_true(d1 > 0.39 && d2 > 0.39);
}

static void thin_wall(void **state)
{
    arena *a = *state;
    /* 30 m/s: half a metre per tick, ten times the wall's thickness. */
    sweep_vec3 p = walk(a, sweep_v3(-12, 6, 0.95), sweep_v3(0, 30, 0), 60);
    assert_true(p.y < 8.0 - 0.39);
}

static void pit(void **state)
{
    arena *a = *state;
    sweep_vec3 p = walk(a, sweep_v3(14, 10, 0.95), sweep_v3(0, 4, 0), 180);
    assert_true(p.y > 12.0 && p.y < 16.0);
    assert_true(fabs(p.z - (-3.0 + 0.9)) < 0.05);
}

static void spawns_are_clear(void **state)
{
    /* Standing still at each spawn: lands on the floor, nothing in the way. */
    arena *a = *state;
    for (uint32_t i = 0; i < a->lv.spawn_count; i++) {
        sweep_vec3 p = walk(a, a->lv.spawns[i], sweep_v3(0, 0, 0), 60);
        assert_true(fabs(p.z - 0.9) < 0.05);
        assert_true(p.x == a->lv.spawns[i].x && p.y == a->lv.spawns[i].y);
    }
}

/* --- the east wing's movers ---------------------------------------------- */

/* What arena.sql says about each mover. */
static const struct {
    uint32_t id;
    const char *name;
    sweep_mover_mode mode;
    sweep_mover_trigger trigger;
    sweep_mover_blocked blocked;
    double wait_start, wait_end;
    uint32_t path_ticks;
} expected_movers[ARENA_MOVERS] = {
    {1, "sliding door", SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_VOLUME, SWEEP_BLOCKED_REVERSE, 0.0, 2.0, 60},
    {2, "swinging door", SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_TOUCH, SWEEP_BLOCKED_STOP, 0.0, 3.0, 54},
    {3, "lift", SWEEP_MOVER_PINGPONG, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_REVERSE, 2.0, 2.0, 168},
    {4, "platform", SWEEP_MOVER_LOOP, SWEEP_TRIGGER_ALWAYS, SWEEP_BLOCKED_STOP, 0.0, 1.0, 720},
};

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static sweep_movers *build_movers(const arena *a)
{
    sweep_movers *mv = NULL;
    assert_int_equal(sweep_level_build_movers(&a->lv, &mv), SWEEP_OK);
    assert_int_equal(sweep_movers_count(mv), ARENA_MOVERS);
    return mv;
}

/* Each mover mesh is a closed shell with its faces out: every edge is used
 * once in each direction, and every face points away from the centre. */
static void check_closed_outward(const sweep_level_mover *m)
{
    sweep_vec3 c = sweep_v3(0, 0, 0);
    for (uint32_t v = 0; v < m->vertex_count; v++)
        c = sweep_v3_add(c, m->vertices[v]);
    c = sweep_v3_scale(c, 1.0 / m->vertex_count);
    for (uint32_t t = 0; t < m->triangle_count; t++) {
        const uint32_t *ix = &m->indices[3 * t];
        sweep_vec3 p = m->vertices[ix[0]], q = m->vertices[ix[1]], r = m->vertices[ix[2]];
        sweep_vec3 n = sweep_v3_cross(sweep_v3_sub(q, p), sweep_v3_sub(r, p));
        sweep_vec3 mid = sweep_v3_scale(sweep_v3_add(p, sweep_v3_add(q, r)), 1.0 / 3.0);
        assert_true(sweep_v3_dot(n, sweep_v3_sub(mid, c)) > 0.0);
        for (int e = 0; e < 3; e++) {
            uint32_t from = ix[e], to = ix[(e + 1) % 3], back = 0, same = 0;
            for (uint32_t u = 0; u < m->triangle_count; u++)
                for (int f = 0; f < 3; f++) {
                    uint32_t x = m->indices[3 * u + f], y = m->indices[3 * u + (f + 1) % 3];
                    back += x == to && y == from;
                    same += x == from && y == to;
                }
            assert_int_equal(back, 1);
            assert_int_equal(same, 1);
        }
    }
}

/* World box of mover m when its path is at tick s. */
static void box_at(sweep_movers *mv, uint32_t m, uint32_t s, sweep_vec3 *lo, sweep_vec3 *hi)
{
    sweep_mover_pose p = sweep_movers_path_pose(mv, m, s);
    assert_int_equal(sweep_movers_set_pose(mv, m, &p), SWEEP_OK);
    sweep_movers_bounds(mv, m, lo, hi);
}

static void movers_are_in_the_wing(void **state)
{
    arena *a = *state;
    for (uint32_t i = 0; i < ARENA_MOVERS; i++) {
        const sweep_level_mover *m = &a->lv.movers[i];
        assert_int_equal(m->id, expected_movers[i].id);
        assert_string_equal(m->name, expected_movers[i].name);
        assert_int_equal(m->mode, expected_movers[i].mode);
        assert_int_equal(m->trigger, expected_movers[i].trigger);
        assert_int_equal(m->blocked, expected_movers[i].blocked);
        assert_true(m->wait_start == expected_movers[i].wait_start && m->wait_end == expected_movers[i].wait_end);
        assert_int_equal(m->vertex_count, 8);
        assert_int_equal(m->triangle_count, 12);
        check_closed_outward(m);
    }
    /* The wing's entry point (arena.sql) is open floor. */
    sweep_vec3 entry = walk(a, sweep_v3(24, 0, 1), sweep_v3(0, 0, 0), 60);
    assert_true(entry.x == 24.0 && entry.y == 0.0 && fabs(entry.z - 0.9) < 0.05);

    const sweep_level_mover *door = &a->lv.movers[0];
    assert_true(door->volume_min.x == 27.0 && door->volume_max.x == 31.2 && door->volume_min.y == -8.0 &&
                door->volume_max.y == -4.5);

    sweep_movers *mv = build_movers(a);
    for (uint32_t i = 0; i < ARENA_MOVERS; i++)
        assert_int_equal(sweep_movers_path_ticks(mv, i), expected_movers[i].path_ticks);
    /* Mover triangles come after the static ones. */
    assert_int_equal(sweep_movers_of_triangle(mv, ARENA_TRIANGLES - 1), SWEEP_NO_MOVER);
    assert_int_equal(sweep_movers_of_triangle(mv, ARENA_TRIANGLES), 0);
    assert_int_equal(sweep_movers_of_triangle(mv, ARENA_TRIANGLES + 3 * 12), 3);

    /* Sliding door: closed in the doorway, open inside the partition. */
    sweep_vec3 lo, hi;
    box_at(mv, 0, 0, &lo, &hi);
    assert_true(near(lo.y, -7.0) && near(hi.y, -5.5) && near(lo.x, 29.05) && near(hi.x, 29.15));
    box_at(mv, 0, 30, &lo, &hi);
    assert_true(near(lo.y, -7.75) && near(hi.y, -6.25));
    box_at(mv, 0, 60, &lo, &hi);
    assert_true(near(lo.y, -8.5) && near(hi.y, -7.0) && lo.x >= 29.0 && hi.x <= 29.2);

    /* Swinging door: turns about its hinge (29.1, 5) into the east hall. */
    sweep_mover_pose p = sweep_movers_path_pose(mv, 1, 0);
    sweep_vec3 dir = sweep_quat_rotate(p.rotation, sweep_v3(0, 1, 0));
    assert_true(near(dir.x, 0.0) && near(dir.y, 1.0));
    p = sweep_movers_path_pose(mv, 1, 27); /* 0.45 s: halfway, 45 degrees */
    dir = sweep_quat_rotate(p.rotation, sweep_v3(0, 1, 0));
    assert_true(fabs(dir.x - sqrt(0.5)) < 1e-9 && fabs(dir.y - sqrt(0.5)) < 1e-9);
    p = sweep_movers_path_pose(mv, 1, 54);
    dir = sweep_quat_rotate(p.rotation, sweep_v3(0, 1, 0));
    assert_true(fabs(dir.x - 1.0) < 1e-12 && fabs(dir.y) < 1e-12);
    assert_true(p.position.x == 29.1 && p.position.y == 5.0);
    for (uint32_t s = 0; s <= 54; s++) {
        box_at(mv, 1, s, &lo, &hi);
        assert_true(lo.x > 29.0 && hi.x < 30.3 && lo.y > 4.9 && hi.y < 6.2);
    }

    /* Lift: from one step above the floor to the balcony's top. */
    box_at(mv, 2, 0, &lo, &hi);
    assert_true(near(lo.z, 0.0) && near(hi.z, 0.2));
    box_at(mv, 2, 168, &lo, &hi);
    assert_true(hi.z == 3.0 && hi.x < 34.05 && lo.y > -12.0 && hi.y < -6.0);

    /* Platform: round its loop and back where it started. */
    static const struct { uint32_t s; double x, y; } corners[] = {
        {0, 33, 2}, {150, 38, 2}, {360, 38, 9}, {510, 33, 9}, {720, 33, 2}};
    for (size_t k = 0; k < sizeof corners / sizeof corners[0]; k++) {
        p = sweep_movers_path_pose(mv, 3, corners[k].s);
        assert_true(near(p.position.x, corners[k].x) && near(p.position.y, corners[k].y) && p.position.z == 0.3);
    }

    /* The lift and the platform keep to the east hall, clear of the
     * partition, the walls and the balcony, all along their paths. */
    for (uint32_t m = 2; m < 4; m++)
        for (uint32_t s = 0; s <= sweep_movers_path_ticks(mv, m); s++) {
            box_at(mv, m, s, &lo, &hi);
            assert_true(lo.x > 29.2 && hi.x < 41.0 && lo.y > -12.0 && hi.y < 12.0 && lo.z >= 0.0 && hi.z <= 3.0);
            assert_true(hi.x < 34.05 || lo.y > -6.0 || hi.z <= 3.0 + 1e-12);
        }
    sweep_movers_destroy(mv);
}

/* A player among the movers: each tick the movers advance (carrying or
 * pushing it), then it moves at `vel` across up, falling like walk(). */
typedef struct player {
    sweep_vec3 pos, vel;
    uint32_t grounded, ground_mover, touch_mover;
} player;

static void player_step(const arena *a, sweep_movers *mv, player *pl, sweep_vec3 vel)
{
    const sweep_config *cfg = &a->lv.config;
    sweep_body b = {pl->pos, a->lv.default_radii, pl->ground_mover, pl->touch_mover, 0, SWEEP_NO_MOVER};
    assert_int_equal(sweep_movers_tick(mv, a->world, cfg, &b, 1, NULL), SWEEP_OK);
    assert_false(b.flags & SWEEP_BODY_CRUSHED);
    sweep_move_input in;
    in.position = b.position;
    in.radii = a->lv.default_radii;
    in.dt = 1.0 / 60.0;
    in.velocity = sweep_v3_madd(sweep_v3(vel.x, vel.y, pl->vel.z), cfg->gravity, in.dt);
    in.flags = pl->grounded ? SWEEP_INPUT_GROUNDED : 0;
    sweep_move_result r;
    assert_int_equal(sweep_move_among(a->world, mv, cfg, &in, &r), SWEEP_OK);
    pl->pos = r.position;
    pl->vel = r.velocity;
    pl->grounded = (r.flags & SWEEP_MOVED_GROUNDED) != 0;
    pl->ground_mover = r.ground_mover;
    pl->touch_mover = SWEEP_NO_MOVER;
    for (uint32_t i = 0; i < r.contact_count && pl->touch_mover == SWEEP_NO_MOVER; i++)
        pl->touch_mover = r.contacts[i].mover;
}

static player player_at(sweep_vec3 p)
{
    player pl = {p, sweep_v3(0, 0, 0), 0, SWEEP_NO_MOVER, SWEEP_NO_MOVER};
    return pl;
}

static void sliding_door_lets_a_walker_through(void **state)
{
    arena *a = *state;
    /* Closed (movers never advanced): the door is a wall. */
    sweep_movers *mv = build_movers(a);
    sweep_vec3 p = walk_among(a, mv, sweep_v3(25, -6.25, 0.95), sweep_v3(3, 0, 0), 180);
    assert_true(p.x < 29.05 - 0.39);
    sweep_movers_destroy(mv);

    /* Running: the walker enters the volume, the door slides away. */
    mv = build_movers(a);
    player pl = player_at(sweep_v3(25, -6.25, 0.95));
    for (int i = 0; i < 240; i++)
        player_step(a, mv, &pl, sweep_v3(3, 0, 0));
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  through the sliding door: (%.3f, %.3f, %.3f)\n", pl.pos.x, pl.pos.y, pl.pos.z);
    assert_true(pl.pos.x > 31.0);
    assert_true(fabs(pl.pos.z - 0.9) < 0.05);
    sweep_movers_destroy(mv);
}

static void swinging_door_opens_when_touched(void **state)
{
    arena *a = *state;
    sweep_movers *mv = build_movers(a);
    player pl = player_at(sweep_v3(26, 5.6, 0.95));
    int touched = 0;
    for (int i = 0; i < 300; i++) {
        player_step(a, mv, &pl, sweep_v3(2, 0, 0));
        touched |= pl.touch_mover == 1;
    }
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  through the swinging door: (%.3f, %.3f, %.3f)\n", pl.pos.x, pl.pos.y, pl.pos.z);
    assert_true(touched);
    assert_true(pl.pos.x > 31.0);
    sweep_movers_destroy(mv);
}

static void lift_reaches_the_balcony(void **state)
{
    arena *a = *state;
    sweep_movers *mv = build_movers(a);
    /* Standing on the lift until it has reached the top. */
    player pl = player_at(sweep_v3(33, -9, 0.2 + 0.95));
    sweep_mover_state ms;
    int ticks = 0;
    do {
        player_step(a, mv, &pl, sweep_v3(0, 0, 0));
        sweep_movers_get(mv, 2, NULL, &ms);
        assert_true(++ticks < 600);
    } while (ms.path_tick < sweep_movers_path_ticks(mv, 2));
    assert_int_equal(pl.ground_mover, 2);
    assert_true(fabs(pl.pos.z - (3.0 + 0.9)) < 0.05);
    /* It waits 2 s at the top: time to walk onto the balcony. */
    for (int i = 0; i < 60; i++)
        player_step(a, mv, &pl, sweep_v3(2, 0, 0));
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  on the balcony: (%.3f, %.3f, %.3f)\n", pl.pos.x, pl.pos.y, pl.pos.z);
    assert_true(pl.pos.x > 34.5);
    assert_true(fabs(pl.pos.z - (3.0 + 0.9)) < 0.05);
    assert_true(pl.grounded && pl.ground_mover == SWEEP_NO_MOVER);
    sweep_movers_destroy(mv);
}

static void platform_carries_a_rider(void **state)
{
    arena *a = *state;
    sweep_movers *mv = build_movers(a);
    /* Dropped onto the platform; from the tick it stands on it, it goes
     * where the platform goes, round the first corner of the loop. */
    player pl = player_at(sweep_v3(33, 2, 0.3 + 0.95));
    int ticks = 0;
    while (pl.ground_mover != 3) {
        player_step(a, mv, &pl, sweep_v3(0, 0, 0));
        assert_true(++ticks < 30);
    }
    sweep_mover_pose p0, p1;
    sweep_movers_get(mv, 3, &p0, NULL);
    sweep_vec3 start = pl.pos;
    while (ticks++ < 200)
        player_step(a, mv, &pl, sweep_v3(0, 0, 0));
    sweep_movers_get(mv, 3, &p1, NULL);
    if (getenv("SWEEP_TEST_VERBOSE"))
        printf("  riding the platform: (%.3f, %.3f, %.3f)\n", pl.pos.x, pl.pos.y, pl.pos.z);
    assert_int_equal(pl.ground_mover, 3);
    assert_true(p1.position.x == 38.0 && p1.position.y > 2.5); /* past the corner (38, 2) */
    sweep_vec3 moved = sweep_v3_sub(pl.pos, start), carried = sweep_v3_sub(p1.position, p0.position);
    assert_true(sweep_v3_len(sweep_v3_sub(moved, carried)) < 0.01);
    assert_true(fabs(pl.pos.z - (0.3 + 0.9)) < 0.05);
    sweep_movers_destroy(mv);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_counts_and_hash),
        cmocka_unit_test(same_hash_every_load),
        cmocka_unit_test(make_built_arena_is_the_same),
        cmocka_unit_test(hash_sees_one_ulp),
        cmocka_unit_test(stairs),
        cmocka_unit_test(ramps),
        cmocka_unit_test(ceilings),
        cmocka_unit_test(corridors),
        cmocka_unit_test(wedge),
        cmocka_unit_test(thin_wall),
        cmocka_unit_test(pit),
        cmocka_unit_test(spawns_are_clear),
        cmocka_unit_test(movers_are_in_the_wing),
        cmocka_unit_test(sliding_door_lets_a_walker_through),
        cmocka_unit_test(swinging_door_opens_when_touched),
        cmocka_unit_test(lift_reaches_the_balcony),
        cmocka_unit_test(platform_carries_a_rider),
    };
    return cmocka_run_group_tests_name("maps.arena", tests, setup, teardown);
}
