/*
 * test_api_args.c - every public core call with the pointers a caller may
 * get wrong: NULL where a pointer is required, structs whose required
 * pointer members are NULL (a space without a world, a description
 * without its vertices), and indices and counts out of range. status.h
 * promises an error status for each, never a crash or an assert; a call
 * that has no status to give (one returning void, a number or a flag)
 * does nothing and gives its "none" answer. A crash here is a signal
 * cmocka reports as that test's failure.
 *
 * Where a call documents that *out is left untouched on an error, the
 * test fills it with a pattern first and checks the pattern is still
 * there. The scene is the smallest that lets every call reach its checks:
 * a floor quad, one mover on a two-key path, a crowd of two slots and a
 * history of four ticks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/crowd.h"
#include "core/history.h"
#include "core/motion.h"
#include "core/move.h"
#include "core/mover.h"
#include "core/query.h"
#include "core/stance.h"
#include "core/status.h"
#include "core/version.h"
#include "core/volume.h"
#include "core/world.h"
#include "maps/level.h"
#include "tests/floor_platform.h"

static const sweep_vec3 RADII = {0.4, 0.4, 0.9};
#define DT (1.0 / 60.0)
/* What an untouched output holds. */
#define PATTERN 0xa5

typedef struct scene {
    sweep_level lv;
    sweep_world *w;
    sweep_movers *mv;
    sweep_crowd *crowd;
    sweep_history *h;
    sweep_config cfg;
    sweep_rules rules;
    sweep_space sp;
    sweep_query_space qs;
} scene;

static int scene_setup(void **state)
{
    scene *s = calloc(1, sizeof *s);
    assert_non_null(s);
    sweep_config_default(&s->cfg);
    sweep_rules_default(&s->rules);
    floor_platform_build(&s->lv, &s->w, &s->mv);
    assert_int_equal(sweep_crowd_create(2, &s->crowd), SWEEP_OK);
    assert_int_equal(sweep_history_create(4, 4, 1, &s->h), SWEEP_OK);
    sweep_history_entity e = {7, sweep_v3(0, 0, 0.9), RADII, NULL, 0};
    sweep_mover_pose pose;
    sweep_movers_get(s->mv, 0, &pose, NULL);
    assert_int_equal(sweep_history_push(s->h, 1, &e, 1, &pose, 1), SWEEP_OK);
    sweep_space sp = {s->w, s->mv, s->crowd, SWEEP_NO_BODY};
    s->sp = sp;
    sweep_query_space qs = {s->w, s->mv, s->h, {1, 0.0}};
    s->qs = qs;
    *state = s;
    return 0;
}

static int scene_teardown(void **state)
{
    scene *s = *state;
    sweep_history_destroy(s->h);
    sweep_crowd_destroy(s->crowd);
    floor_platform_free(&s->lv, s->w, s->mv);
    free(s);
    return 0;
}

/* A move input that sweep_move takes, standing on the floor. */
static sweep_move_input standing_input(void)
{
    sweep_move_input in = {sweep_v3(0, 0, 0.9005), RADII, sweep_v3(1, 0, 0), DT, SWEEP_INPUT_GROUNDED};
    return in;
}

/* 1 if the n bytes at p all hold PATTERN: an output left untouched. */
static int untouched(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != PATTERN)
            return 0;
    return 1;
}

/* ---- status.h, version.h ------------------------------------------------ */

static void status_and_version_answer_any_value(void **state)
{
    (void)state;
    assert_string_equal(sweep_status_name((sweep_status)-1), "UNKNOWN");
    assert_string_equal(sweep_status_name(SWEEP_STATUS_COUNT), "UNKNOWN");
    assert_string_equal(sweep_status_message((sweep_status)-1), "unknown status");
    assert_string_equal(sweep_status_message(SWEEP_STATUS_COUNT), "unknown status");
    assert_string_equal(sweep_version(), SWEEP_VERSION);
}

/* ---- world.h ------------------------------------------------------------ */

static void world_calls_refuse_null(void **state)
{
    scene *s = *state;
    sweep_world *w = (sweep_world *)&w; /* not NULL: left untouched on an error */
    sweep_world *const before = w;
    sweep_world_desc d = sweep_level_world_desc(&s->lv);
    assert_int_equal(sweep_world_create(NULL, &w), SWEEP_E_ARG);
    assert_int_equal(sweep_world_create(&d, NULL), SWEEP_E_ARG);
    sweep_world_desc no_vertices = d;
    no_vertices.vertices = NULL;
    assert_int_equal(sweep_world_create(&no_vertices, &w), SWEEP_E_ARG);
    sweep_world_desc no_indices = d;
    no_indices.indices = NULL;
    assert_int_equal(sweep_world_create(&no_indices, &w), SWEEP_E_ARG);
    /* Vertices counted but not given, even with no triangle to use them. */
    sweep_world_desc only_vertex_count = {NULL, 3, NULL, NULL, 0};
    assert_int_equal(sweep_world_create(&only_vertex_count, &w), SWEEP_E_ARG);
    assert_ptr_equal(w, before);
    /* Zero triangles need neither array. */
    sweep_world_desc empty = {NULL, 0, NULL, NULL, 0};
    assert_int_equal(sweep_world_create(&empty, &w), SWEEP_OK);
    sweep_world_destroy(w);

    sweep_world_destroy(NULL);
    assert_int_equal(sweep_world_prepare_radii(NULL, RADII), SWEEP_E_ARG);

    /* No status to give: the info of no world is all zero. */
    sweep_world_info info, zero;
    memset(&info, PATTERN, sizeof info);
    memset(&zero, 0, sizeof zero);
    sweep_world_get_info(NULL, &info);
    assert_memory_equal(&info, &zero, sizeof info);
    sweep_world_get_info(s->w, NULL);
    sweep_world_get_info(NULL, NULL);
}

/* ---- move.h ------------------------------------------------------------- */

static void config_calls_refuse_null(void **state)
{
    scene *s = *state;
    assert_int_equal(sweep_config_check(NULL), SWEEP_E_ARG);
    /* No status to give: nothing is filled, and no config fits anything. */
    sweep_config_default(NULL);
    assert_false(sweep_config_radii_ok(NULL, RADII));
    assert_false(sweep_config_contains(NULL, sweep_v3(0, 0, 0)));
    assert_true(sweep_config_radii_ok(&s->cfg, RADII));
    assert_true(sweep_config_contains(&s->cfg, sweep_v3(0, 0, 0)));
}

static void moves_refuse_null(void **state)
{
    scene *s = *state;
    sweep_move_input in = standing_input();
    sweep_move_result r;
    memset(&r, PATTERN, sizeof r);
    assert_int_equal(sweep_move(NULL, &s->cfg, &in, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move(s->w, NULL, &in, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move(s->w, &s->cfg, NULL, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move(s->w, &s->cfg, &in, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_move_among(NULL, s->mv, &s->cfg, &in, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move_among(s->w, s->mv, NULL, &in, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move_among(s->w, s->mv, &s->cfg, NULL, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move_among(s->w, s->mv, &s->cfg, &in, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_move_in(NULL, &s->cfg, &in, &r), SWEEP_E_ARG);
    sweep_space no_world = s->sp;
    no_world.world = NULL;
    assert_int_equal(sweep_move_in(&no_world, &s->cfg, &in, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move_in(&s->sp, NULL, &in, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move_in(&s->sp, &s->cfg, NULL, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_move_in(&s->sp, &s->cfg, &in, NULL), SWEEP_E_ARG);
    assert_true(untouched(&r, sizeof r));
    /* The optional members may be NULL; a self past the slots names no body. */
    sweep_space bare = {s->w, NULL, NULL, UINT32_MAX - 1};
    assert_int_equal(sweep_move_in(&bare, &s->cfg, &in, &r), SWEEP_OK);
    assert_int_equal(sweep_move_among(s->w, NULL, &s->cfg, &in, &r), SWEEP_OK);
}

/* ---- mover.h ------------------------------------------------------------ */

static void mover_descriptions_without_their_arrays_are_refused(void **state)
{
    (void)state;
    uint32_t at = 99;
    sweep_mover_desc d = platform_desc();
    assert_int_equal(sweep_mover_desc_check(&d, NULL), SWEEP_MOVER_FINE);
    sweep_mover_desc no_vertices = d;
    no_vertices.vertices = NULL;
    assert_int_equal(sweep_mover_desc_check(&no_vertices, &at), SWEEP_MOVER_NO_TRIANGLES);
    sweep_mover_desc no_indices = d;
    no_indices.indices = NULL;
    assert_int_equal(sweep_mover_desc_check(&no_indices, &at), SWEEP_MOVER_NO_TRIANGLES);
    sweep_mover_desc no_keys = d;
    no_keys.keys = NULL;
    assert_int_equal(sweep_mover_desc_check(&no_keys, &at), SWEEP_MOVER_FEW_KEYFRAMES);
    /* No description at all has no triangles; nor has one whose counted
     * vertices are not given, even with no triangle to use them. */
    assert_int_equal(sweep_mover_desc_check(NULL, &at), SWEEP_MOVER_NO_TRIANGLES);
    assert_int_equal(at, 0);
    assert_int_equal(sweep_mover_desc_check(NULL, NULL), SWEEP_MOVER_NO_TRIANGLES);
    sweep_mover_desc only_vertex_count = d;
    only_vertex_count.vertices = NULL, only_vertex_count.indices = NULL, only_vertex_count.triangle_count = 0;
    assert_int_equal(sweep_mover_desc_check(&only_vertex_count, &at), SWEEP_MOVER_NO_TRIANGLES);
    assert_string_equal(sweep_mover_problem_text(SWEEP_MOVER_PROBLEM_COUNT), "unknown mover problem");
    assert_null(sweep_mover_mode_name(SWEEP_MOVER_MODE_COUNT));
    assert_null(sweep_mover_trigger_name(SWEEP_TRIGGER_COUNT));
    assert_null(sweep_mover_blocked_name(SWEEP_BLOCKED_COUNT));

    sweep_movers *mv = (sweep_movers *)&mv;
    sweep_movers *const before = mv;
    assert_int_equal(sweep_movers_create(&d, 1, 60.0, 0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_create(NULL, 1, 60.0, 0, &mv), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_create(&no_vertices, 1, 60.0, 0, &mv), SWEEP_E_GEOMETRY);
    assert_int_equal(sweep_movers_create(&no_keys, 1, 60.0, 0, &mv), SWEEP_E_GEOMETRY);
    assert_int_equal(sweep_movers_create(&only_vertex_count, 1, 60.0, 0, &mv), SWEEP_E_GEOMETRY);
    assert_ptr_equal(mv, before);
    assert_int_equal(sweep_movers_create(NULL, 0, 60.0, 0, &mv), SWEEP_OK);
    sweep_movers_destroy(mv);
    sweep_movers_destroy(NULL);
}

static void movers_calls_refuse_null_and_bad_indices(void **state)
{
    scene *s = *state;
    assert_int_equal(sweep_movers_count(NULL), 0);
    assert_int_equal(sweep_movers_tick_count(NULL), 0);
    assert_int_equal(sweep_movers_of_triangle(NULL, 2), SWEEP_NO_MOVER);
    assert_true(sweep_movers_tick_rate(NULL) == 0.0);
    assert_int_equal(sweep_movers_hash(NULL, 1234), 1234);

    sweep_mover_pose pose;
    sweep_mover_state state_;
    memset(&pose, PATTERN, sizeof pose);
    memset(&state_, PATTERN, sizeof state_);
    sweep_movers_get(NULL, 0, &pose, &state_);
    sweep_movers_get(s->mv, 1, &pose, &state_);
    assert_true(untouched(&pose, sizeof pose) && untouched(&state_, sizeof state_));
    sweep_movers_get(s->mv, 0, NULL, NULL);

    sweep_vec3 lo, hi;
    memset(&lo, PATTERN, sizeof lo);
    memset(&hi, PATTERN, sizeof hi);
    sweep_movers_bounds(NULL, 0, &lo, &hi);
    sweep_movers_bounds(s->mv, 1, &lo, &hi);
    assert_true(untouched(&lo, sizeof lo) && untouched(&hi, sizeof hi));
    /* Either pointer may be NULL, as sweep_movers_get's. */
    sweep_movers_bounds(s->mv, 0, NULL, &hi);
    sweep_movers_bounds(s->mv, 0, &lo, NULL);
    assert_false(untouched(&lo, sizeof lo) || untouched(&hi, sizeof hi));

    /* The path of no mover: no ticks, and the pose of no placement. */
    const sweep_mover_pose none = {{0, 0, 0}, {0, 0, 0, 1}};
    assert_int_equal(sweep_movers_path_ticks(NULL, 0), 0);
    assert_int_equal(sweep_movers_path_ticks(s->mv, 1), 0);
    assert_int_equal(sweep_movers_path_ticks(s->mv, UINT32_MAX), 0);
    assert_int_equal(sweep_movers_path_ticks(s->mv, 0), 60);
    sweep_mover_pose pp = sweep_movers_path_pose(NULL, 0, 0);
    assert_memory_equal(&pp, &none, sizeof pp);
    pp = sweep_movers_path_pose(s->mv, 1, 0);
    assert_memory_equal(&pp, &none, sizeof pp);
    pp = sweep_movers_path_pose(s->mv, UINT32_MAX, 0);
    assert_memory_equal(&pp, &none, sizeof pp);
    pp = sweep_movers_path_pose(s->mv, 0, 60);
    assert_memory_equal(&pp, &PLATFORM_KEYS[1].pose, sizeof pp);

    sweep_mover_pose p0;
    sweep_mover_state st0;
    sweep_movers_get(s->mv, 0, &p0, &st0);
    assert_int_equal(sweep_movers_set_pose(NULL, 0, &p0), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_pose(s->mv, 1, &p0), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_pose(s->mv, 0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_state(NULL, 0, &st0), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_state(s->mv, 1, &st0), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_set_state(s->mv, 0, NULL), SWEEP_E_ARG);
    assert_false(sweep_movers_state_valid(NULL, 0, &st0));
    assert_false(sweep_movers_state_valid(s->mv, 1, &st0));
    assert_false(sweep_movers_state_valid(s->mv, 0, NULL));
    assert_int_equal(sweep_movers_trigger(NULL, 0), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_trigger(s->mv, 1), SWEEP_E_ARG);

    sweep_body b = {sweep_v3(20, 20, 0.9005), RADII, SWEEP_NO_MOVER, SWEEP_NO_MOVER, 0, SWEEP_NO_MOVER};
    sweep_tick_report rep;
    memset(&rep, PATTERN, sizeof rep);
    uint64_t ticks = sweep_movers_tick_count(s->mv);
    assert_int_equal(sweep_movers_tick(NULL, s->w, &s->cfg, &b, 1, &rep), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_tick(s->mv, s->w, NULL, &b, 1, &rep), SWEEP_E_ARG);
    assert_int_equal(sweep_movers_tick(s->mv, s->w, &s->cfg, NULL, 1, &rep), SWEEP_E_ARG);
    assert_true(untouched(&rep, sizeof rep));
    assert_int_equal(sweep_movers_tick_count(s->mv), ticks);
    /* No bodies need no array, and the report may be NULL. */
    assert_int_equal(sweep_movers_tick(s->mv, s->w, &s->cfg, NULL, 0, NULL), SWEEP_OK);
    /* Nor is a static world needed: the platform carries a body standing
     * on it through nothing else. */
    sweep_mover_state rising = st0;
    rising.path_tick = 0;
    assert_int_equal(sweep_movers_set_state(s->mv, 0, &rising), SWEEP_OK);
    assert_int_equal(sweep_movers_set_pose(s->mv, 0, &PLATFORM_KEYS[0].pose), SWEEP_OK);
    sweep_body on = {sweep_v3(5, 5, 1 + RADII.z + 0.0005), RADII, SWEEP_NO_MOVER, SWEEP_NO_MOVER, 0, SWEEP_NO_MOVER};
    for (int i = 0; i < 30; i++)
        assert_int_equal(sweep_movers_tick(s->mv, NULL, &s->cfg, &on, 1, NULL), SWEEP_OK);
    assert_true(on.position.z > 1 + RADII.z + 0.3);
}

/* ---- crowd.h ------------------------------------------------------------ */

static void crowd_calls_refuse_null_and_bad_slots(void **state)
{
    scene *s = *state;
    sweep_crowd *c = (sweep_crowd *)&c;
    sweep_crowd *const before = c;
    assert_int_equal(sweep_crowd_create(2, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_create(0, &c), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_create(SWEEP_CROWD_MAX_SLOTS + 1, &c), SWEEP_E_ARG);
    assert_ptr_equal(c, before);
    sweep_crowd_destroy(NULL);
    assert_int_equal(sweep_crowd_grow(NULL, 4), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_grow(s->crowd, SWEEP_CROWD_MAX_SLOTS + 1), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_slots(NULL), 0);
    assert_int_equal(sweep_crowd_set(NULL, 0, sweep_v3(0, 0, 1), RADII), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_set(s->crowd, 2, sweep_v3(0, 0, 1), RADII), SWEEP_E_ARG);
    assert_int_equal(sweep_crowd_set(s->crowd, UINT32_MAX, sweep_v3(0, 0, 1), RADII), SWEEP_E_ARG);
    sweep_crowd_clear(NULL, 0);
    sweep_crowd_clear(s->crowd, 2);
    sweep_crowd_clear(s->crowd, UINT32_MAX);
    assert_int_equal(sweep_crowd_first_free(NULL), SWEEP_NO_BODY);
    assert_int_equal(sweep_crowd_first_free(s->crowd), 0);
    assert_int_equal(sweep_crowd_slot_of_triangle(UINT32_MAX), SWEEP_NO_BODY);
}

/* ---- motion.h ----------------------------------------------------------- */

static void acts_refuse_null(void **state)
{
    scene *s = *state;
    sweep_rules_default(NULL); /* no status to give: nothing filled */
    assert_int_equal(sweep_rules_check(NULL), SWEEP_E_ARG);
    sweep_actor a = {sweep_v3(0, 0, 0.9005), sweep_v3(0, 0, 0), 1, SWEEP_STANCE_STAND};
    const sweep_actor before = a;
    sweep_wish w = {sweep_v3(1, 0, 0), 0};
    sweep_act_result r;
    memset(&r, PATTERN, sizeof r);
    sweep_space no_world = s->sp;
    no_world.world = NULL;
    assert_int_equal(sweep_act(NULL, &s->cfg, &s->rules, RADII, &a, &w, DT, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_act(&no_world, &s->cfg, &s->rules, RADII, &a, &w, DT, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_act(&s->sp, NULL, &s->rules, RADII, &a, &w, DT, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_act(&s->sp, &s->cfg, NULL, RADII, &a, &w, DT, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_act(&s->sp, &s->cfg, &s->rules, RADII, NULL, &w, DT, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_act(&s->sp, &s->cfg, &s->rules, RADII, &a, NULL, DT, &r), SWEEP_E_ARG);
    assert_true(untouched(&r, sizeof r));
    assert_memory_equal(&a, &before, sizeof a);
    /* A stance the rules do not have (this map has no crouching). */
    sweep_actor crouched = a;
    crouched.stance = SWEEP_STANCE_CROUCH;
    assert_int_equal(sweep_act(&s->sp, &s->cfg, &s->rules, RADII, &crouched, &w, DT, &r), SWEEP_E_ARG);
    crouched.stance = UINT32_MAX;
    assert_int_equal(sweep_act(&s->sp, &s->cfg, &s->rules, RADII, &crouched, &w, DT, &r), SWEEP_E_ARG);
    assert_true(untouched(&r, sizeof r));
    /* The result may be NULL, and so may the space's movers and crowd. */
    sweep_space bare = {s->w, NULL, NULL, SWEEP_NO_BODY};
    assert_int_equal(sweep_act(&bare, &s->cfg, &s->rules, RADII, &a, &w, DT, NULL), SWEEP_OK);
}

/* ---- stance.h ----------------------------------------------------------- */

static void room_tests_refuse_null(void **state)
{
    scene *s = *state;
    const sweep_vec3 up = sweep_v3(0, 0, 1), q = sweep_v3(0, 0, 0.9005);
    int free_ = 7;
    sweep_move_result r;
    sweep_space no_world = s->sp;
    no_world.world = NULL;
    assert_int_equal(sweep_room_at(NULL, &s->cfg, q, RADII, up, &free_, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_room_at(&no_world, &s->cfg, q, RADII, up, &free_, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_room_at(&s->sp, &s->cfg, q, RADII, up, &free_, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_room_at(&s->sp, NULL, q, RADII, up, &free_, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_room_at(&s->sp, &s->cfg, q, RADII, up, NULL, &r), SWEEP_E_ARG);
    assert_int_equal(free_, 7);
    assert_int_equal(sweep_room_at(&s->sp, &s->cfg, q, RADII, up, &free_, &r), SWEEP_OK);
    assert_int_equal(free_, 1);
    /* No rules have no crouching: every stance keeps the standing shape. */
    assert_false(sweep_rules_crouch(NULL));
    sweep_vec3 shape = sweep_stance_radii(NULL, RADII, SWEEP_STANCE_CROUCH);
    assert_memory_equal(&shape, &RADII, sizeof shape);
}

/* ---- history.h ---------------------------------------------------------- */

static void history_calls_refuse_null_and_bad_counts(void **state)
{
    scene *s = *state;
    uint32_t bad = 99;
    sweep_hit_shape shapes[SWEEP_HIT_SHAPES_MAX + 1];
    memset(shapes, 0, sizeof shapes);
    assert_int_equal(sweep_hit_shapes_check(NULL, 1, 4.0, &bad), SWEEP_E_ARG);
    assert_int_equal(bad, 0);
    assert_int_equal(sweep_hit_shapes_check(shapes, SWEEP_HIT_SHAPES_MAX + 1, 4.0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_hit_shapes_check(NULL, 0, 4.0, NULL), SWEEP_OK);

    sweep_history *h = (sweep_history *)&h;
    sweep_history *const before = h;
    assert_int_equal(sweep_history_create(4, 4, 0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_history_create(0, 4, 0, &h), SWEEP_E_ARG);
    assert_int_equal(sweep_history_create(SWEEP_HISTORY_MAX_TICKS + 1, 4, 0, &h), SWEEP_E_ARG);
    assert_int_equal(sweep_history_create_shapes(4, 4, 4, 0, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_history_create_shapes(4, UINT32_MAX, 4, 0, &h), SWEEP_E_ARG);
    assert_ptr_equal(h, before);
    assert_int_equal(sweep_history_bytes(0, 4, 0), 0);
    assert_int_equal(sweep_history_bytes_shapes(4, UINT32_MAX, 4, 0), 0);
    sweep_history_destroy(NULL);
    sweep_history_clear(NULL);
    assert_int_equal(sweep_history_span(NULL, NULL, NULL), 0);
    assert_int_equal(sweep_history_span(s->h, NULL, NULL), 1);

    /* Pushes, each one tick after the newest kept (1). */
    sweep_mover_pose pose;
    sweep_movers_get(s->mv, 0, &pose, NULL);
    sweep_history_entity e = {7, sweep_v3(0, 0, 0.9), RADII, NULL, 0};
    assert_int_equal(sweep_history_push(NULL, 2, &e, 1, &pose, 1), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(s->h, 2, NULL, 1, &pose, 1), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(s->h, 2, &e, 1, NULL, 1), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(s->h, 2, &e, 1, &pose, 0), SWEEP_E_ARG);
    assert_int_equal(sweep_history_push(s->h, 2, &e, 5, &pose, 1), SWEEP_E_ARG);
    /* An entity whose shapes are NULL but counted. */
    sweep_history_entity no_shapes = e;
    no_shapes.shape_count = 1;
    assert_int_equal(sweep_history_push(s->h, 2, &no_shapes, 1, &pose, 1), SWEEP_E_ARG);
    no_shapes.shape_count = SWEEP_HIT_SHAPES_MAX + 1;
    no_shapes.shapes = shapes;
    assert_int_equal(sweep_history_push(s->h, 2, &no_shapes, 1, &pose, 1), SWEEP_E_ARG);
    uint64_t oldest = 0, newest = 0;
    assert_int_equal(sweep_history_span(s->h, &oldest, &newest), 1);
    assert_int_equal(newest, 1);
    /* A history of no movers takes NULL poses. */
    sweep_history *still;
    assert_int_equal(sweep_history_create(2, 1, 0, &still), SWEEP_OK);
    assert_int_equal(sweep_history_push(still, 1, &e, 1, NULL, 0), SWEEP_OK);
    sweep_history_destroy(still);

    sweep_vec3 p, r;
    assert_int_equal(sweep_history_entity_at(NULL, 7, 1, 0.0, &p, &r), SWEEP_E_ARG);
    assert_int_equal(sweep_history_entity_at(s->h, 7, 1, 0.0, NULL, NULL), SWEEP_OK);
}

/* ---- query.h ------------------------------------------------------------ */

static void queries_refuse_null(void **state)
{
    scene *s = *state;
    const sweep_vec3 from = sweep_v3(-3, 0, 0.5), to = sweep_v3(3, 0, 0.5);
    sweep_query_space no_world = s->qs;
    no_world.world = NULL;
    const uint64_t ids[1] = {7};
    sweep_query_filter no_ignore = {0, NULL, 1};
    sweep_query_filter too_many = {0, ids, SWEEP_QUERY_IGNORE_MAX + 1};
    sweep_query_hit hit, hits[4];
    memset(&hit, PATTERN, sizeof hit);
    assert_int_equal(sweep_query_ray(NULL, from, to, NULL, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray(&no_world, from, to, NULL, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray(&s->qs, from, to, &no_ignore, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray(&s->qs, from, to, &too_many, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray(&s->qs, from, to, NULL, NULL), SWEEP_E_ARG);
    assert_int_equal(sweep_query_sweep(NULL, from, to, RADII, NULL, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_sweep(&no_world, from, to, RADII, NULL, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_sweep(&s->qs, from, to, RADII, &no_ignore, &hit), SWEEP_E_ARG);
    assert_int_equal(sweep_query_sweep(&s->qs, from, to, RADII, NULL, NULL), SWEEP_E_ARG);
    assert_true(untouched(&hit, sizeof hit));

    uint32_t count = 99;
    int more = 7, clear = 7;
    assert_int_equal(sweep_query_ray_all(NULL, from, to, NULL, hits, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray_all(&no_world, from, to, NULL, hits, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray_all(&s->qs, from, to, &no_ignore, hits, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray_all(&s->qs, from, to, NULL, NULL, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_ray_all(&s->qs, from, to, NULL, hits, 4, NULL, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_line_of_sight(NULL, from, to, NULL, &clear), SWEEP_E_ARG);
    assert_int_equal(sweep_query_line_of_sight(&no_world, from, to, NULL, &clear), SWEEP_E_ARG);
    assert_int_equal(sweep_query_line_of_sight(&s->qs, from, to, &no_ignore, &clear), SWEEP_E_ARG);
    assert_int_equal(sweep_query_line_of_sight(&s->qs, from, to, NULL, NULL), SWEEP_E_ARG);
    sweep_query_found found[4];
    assert_int_equal(sweep_query_overlap(NULL, from, 2.0, NULL, found, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_overlap(&no_world, from, 2.0, NULL, found, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_overlap(&s->qs, from, 2.0, &no_ignore, found, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_overlap(&s->qs, from, 2.0, NULL, NULL, 4, &count, &more), SWEEP_E_ARG);
    assert_int_equal(sweep_query_overlap(&s->qs, from, 2.0, NULL, found, 4, NULL, &more), SWEEP_E_ARG);
    assert_int_equal(count, 99);
    assert_int_equal(more, 7);
    assert_int_equal(clear, 7);
    const sweep_query_filter unknown_flag = {1u << 31, NULL, 0};
    assert_int_equal(sweep_query_ray(&s->qs, from, to, &unknown_flag, &hit), SWEEP_E_ARG);
    assert_true(untouched(&hit, sizeof hit));
    /* Without movers and history a query sees the level alone. */
    const sweep_query_space level_only = {s->w, NULL, NULL, {0, 0.0}};
    assert_int_equal(sweep_query_ray(&level_only, from, to, NULL, &hit), SWEEP_OK);
    assert_int_equal(hit.kind, SWEEP_HIT_NONE);
    /* No room for hits needs no array; more may be NULL. */
    assert_int_equal(sweep_query_ray_all(&s->qs, from, to, NULL, NULL, 0, &count, NULL), SWEEP_OK);
    assert_int_equal(count, 0);
    assert_int_equal(sweep_query_overlap(&s->qs, from, 4.0, NULL, NULL, 0, &count, &more), SWEEP_OK);
    assert_int_equal(count, 0);
    assert_int_equal(more, 1);
}

/* ---- volume.h ----------------------------------------------------------- */

static void volume_calls_refuse_null(void **state)
{
    scene *s = *state;
    const char *why = NULL;
    uint32_t bad = 99;
    assert_int_equal(sweep_volume_check(NULL, 1000.0, 1e7, &why), SWEEP_E_ARG);
    assert_non_null(why);
    assert_int_equal(sweep_volume_check(NULL, 1000.0, 1e7, NULL), SWEEP_E_ARG);
    assert_false(sweep_volume_contains(NULL, sweep_v3(0, 0, 0))); /* no volume holds anything */
    assert_string_equal(sweep_volume_kind_name(SWEEP_VOLUME_KIND_COUNT), "unknown");
    assert_string_equal(sweep_liquid_name(SWEEP_LIQUID_COUNT), "unknown");
    assert_int_equal(sweep_world_set_volumes(NULL, NULL, 0, 1000.0, 1e7, &bad, &why), SWEEP_E_ARG);
    assert_int_equal(sweep_world_set_volumes(s->w, NULL, 1, 1000.0, 1e7, &bad, &why), SWEEP_E_ARG);
    sweep_volume v;
    memset(&v, 0, sizeof v);
    v.kind = SWEEP_VOLUME_TRIGGER;
    v.hi = sweep_v3(1, 1, 1);
    assert_true(sweep_volume_contains(&v, sweep_v3(0, 0, 0)));
    assert_int_equal(sweep_world_set_volumes(s->w, &v, SWEEP_VOLUME_MAX + 1, 1000.0, 1e7, NULL, NULL), SWEEP_E_ARG);
    v.plane_count = SWEEP_VOLUME_MAX_PLANES + 1;
    assert_int_equal(sweep_world_set_volumes(s->w, &v, 1, 1000.0, 1e7, &bad, NULL), SWEEP_E_CONFIG);
    assert_int_equal(bad, 0);
    uint32_t n = 99;
    assert_null(sweep_world_volumes(NULL, &n));
    assert_int_equal(n, 0);
    assert_null(sweep_world_volumes(s->w, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_and_version_answer_any_value),
        cmocka_unit_test_setup_teardown(world_calls_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(config_calls_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(moves_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(mover_descriptions_without_their_arrays_are_refused, scene_setup,
                                        scene_teardown),
        cmocka_unit_test_setup_teardown(movers_calls_refuse_null_and_bad_indices, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(crowd_calls_refuse_null_and_bad_slots, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(acts_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(room_tests_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(history_calls_refuse_null_and_bad_counts, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(queries_refuse_null, scene_setup, scene_teardown),
        cmocka_unit_test_setup_teardown(volume_calls_refuse_null, scene_setup, scene_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
