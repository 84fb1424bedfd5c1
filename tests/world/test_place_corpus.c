/*
 * test_place_corpus.c - no place of a shipped level where a player stands
 * is refused as the inside of a solid. On every Quake 3 level of the
 * corpus (tests/install-corpus.sh finds or installs it; the test skips,
 * saying why, without it), imported by the real sweep-import and opened
 * by the world library: every spawn point takes a Spawn, and 32 walkers
 * (against the level and its movers where they start) are followed, each
 * place every 20th step of a walk asked as a Spawn of the server role,
 * whose refusal, if any, must name a face it touches, never the inside of
 * a solid (server/world/place.c). Nearly all of them must be free.
 */
#include "tests/maps/map_fixture.h" /* first: it sets _GNU_SOURCE */

#include "core/walker.h"
#include "tests/world/world_fixture.h"

#define WALKERS 32
#define STEPS 1000
#define EVERY 20

static int setup(void **state)
{
    *state = fixture_new();
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    fixture_cleanup(*state);
    return 0;
}

/* Asks a Spawn of o's server role at q (spawn point `point` when not 0);
 * fails on a refusal that says "inside" of a place a player stands at.
 * Returns 1 if it was placed (and despawns it again). */
static int placed(wf_one *s, uint32_t *seq, uint32_t point, sweep_vec3 q, const char *level, const char *what)
{
    sweep_message m = point ? wf_spawn_msg((*seq)++) : wf_spawn_at((*seq)++, q.x, q.y, q.z);
    m.as.spawn.spawn_point = point;
    wf_clear(s->r);
    wf_request(s->w, &s->o, s->r, &m);
    assert_int_equal(s->r->nmsgs, 1);
    const sweep_message *out = &s->r->msgs[0].m;
    if (out->kind == SWEEP_MSG_ERROR && strstr(s->r->msgs[0].text, "inside"))
        fail_msg("%s: %s at (%g, %g, %g): %s", level, what, q.x, q.y, q.z, s->r->msgs[0].text);
    if (out->kind != SWEEP_MSG_SPAWNED)
        return 0;
    m = wf_despawn_msg(out->as.spawned.entity, (*seq)++);
    wf_clear(s->r);
    wf_request(s->w, &s->o, s->r, &m);
    return 1;
}

static void shipped_levels_have_no_solid_where_players_stand(void **state)
{
    fixture *f = *state;
    char pk3[4096], list[4096] = "", cmd[13000];
    if (!fixture_corpus(f, pk3, sizeof pk3))
        skip();
    snprintf(cmd, sizeof cmd, "'%s' '%s' --list 2>/dev/null", fixture_build("bin/sweep-import"), pk3);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(list, 1, sizeof list - 1, p);
    list[n] = '\0';
    assert_int_equal(pclose(p), 0);
    sweep__log_set_level(SWEEP_LOG_ERROR);
    uint32_t levels = 0;
    for (char *save = NULL, *bsp = strtok_r(list, "\n", &save); bsp; bsp = strtok_r(NULL, "\n", &save)) {
        char db[4200];
        snprintf(db, sizeof db, "%s", fixture_path(f, "level.db"));
        char why[4200];
        snprintf(why, sizeof why, "%s", fixture_path(f, "import.err"));
        snprintf(cmd, sizeof cmd, "'%s' '%s' --bsp '%s' -o '%s' --quiet 2>'%s'", fixture_build("bin/sweep-import"), pk3,
                 bsp, db, why);
        if (system(cmd) != 0) {
            char *text = fixture_read(why, NULL);
            fail_msg("sweep-import %s failed: %s", bsp, text ? text : "");
        }
        wf_one s;
        memset(&s, 0, sizeof s);
        sweep__world_options opt = wf_options();
        char err[600] = "";
        s.w = sweep__world_open(db, &opt, 0, err, sizeof err);
        if (!s.w)
            fail_msg("%s: %s", bsp, err);
        s.r = wf_rec_new();
        wf_owner(&s.o, s.w, 1, SWEEP_WIRE_ROLE_SERVER, 0);
        const sweep_level *lv = &s.w->level;
        uint32_t seq = 1;
        for (uint32_t i = 0; i < lv->spawn_count; i++)
            if (!placed(&s, &seq, i + 1, lv->spawns[i], bsp, "spawn point"))
                fail_msg("%s: spawn point %u refused: %s", bsp, i + 1, s.r->msgs[0].text);

        sweep_walk_params wp = {.walkers = WALKERS,
                                .steps = STEPS,
                                .heading_every = 60,
                                .dt = 1.0 / 60,
                                .speed = lv->rules.walk_speed,
                                .radii = lv->default_radii,
                                .seed = 11};
        sweep_walker wk[WALKERS];
        sweep_walk_place(&wp, lv->spawns, lv->spawn_count, wk);
        uint32_t asked = 0, free_places = 0;
        for (uint32_t step = 0; step < STEPS; step++) {
            for (uint32_t i = 0; i < WALKERS; i++) {
                sweep_move_result res;
                assert_int_equal(
                    sweep_walk_step_among(s.w->world, s.w->movers, &lv->config, &wp, i, step, &wk[i], &res), SWEEP_OK);
                if (step % EVERY)
                    continue;
                asked++;
                free_places += (uint32_t)placed(&s, &seq, 0, wk[i].position, bsp, "a walker's place");
            }
        }
        if (free_places < asked * 9 / 10)
            fail_msg("%s: only %u of %u walkers' places free", bsp, free_places, asked);
        sweep__owner_release(&s.o, NULL);
        sweep__world_close(s.w);
        free(s.r);
        levels++;
    }
    assert_true(levels >= 10);
}

int main(int argc, char **argv)
{
    (void)argc;
    fixture_argv0 = argv[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_levels_have_no_solid_where_players_stand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
