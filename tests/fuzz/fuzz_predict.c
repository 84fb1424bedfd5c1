/*
 * fuzz_predict.c - libFuzzer harness over the SDK's predictor
 * (client-sdk/predict.h), what a game client runs on whatever its server
 * (or whoever stands between them) sends: answers, refusals and
 * WorldStates with any values in them, between the client's own steps.
 *
 * The input is a script read field by field (numbers and ids as
 * tests/fuzz/world_script.h reads them): byte 0 picks the map (arena, with
 * its movers; pool, with its liquids and ladder; the arena with
 * crouching) and whether the predictor has movers; then, to its end, an
 * op byte each:
 *   0  a step (a wish, its buttons, dt), at a tick or against the newest poses
 *   1  an answer to a pending move, or to any sequence, with any numbers
 *   2  the same answer a faithful server gives: the prediction itself
 *   3  a refusal of a move
 *   4  a WorldState of the map's movers, or of ids it has not, any poses
 *
 * Beyond "no crash, no sanitizer report" (ASan, UBSan, and the core's own
 * checks, SWEEP_CHECKS), it checks after every call:
 * - the call answers OK or an error with its message;
 * - the current and the confirmed state are finite and within the map's
 *   coordinate limit, whatever was refused (a move that would end past
 *   it is refused, as the server refuses it);
 * - no more moves are pending than were stepped and not yet answered or
 *   refused, and, without movers, the newest move answered with the
 *   prediction itself matches it.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined
 * (client-sdk.mk): `make fuzz-predict FUZZ_SECONDS=N`, and a bounded smoke
 * run in `make test`. Seeds are written by make_predict_seeds.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client-sdk/predict.h"
#include "maps/loader.h"
#include "tests/fuzz/sample_maps.h"
#include "tests/fuzz/world_script.h"

/* The arena, the pool, and the arena with crouching (loaded from a
 * copy made at start: fuzz_crouching_copy). */
#define MAPS 3u
static const char *const map_names[MAPS - 1] = {"arena.db", "pool.db"};
static struct {
    sweep_level level;
    sweep_world *world;
} maps[MAPS];

static void fail(const char *what, uint64_t at)
{
    fprintf(stderr, "fuzz_predict: %s (%llu)\n", what, (unsigned long long)at);
    abort();
}

static void check_status(sweep_client_status s, const sweep_client_error *e, const char *call)
{
    if (s != SWEEP_CLIENT_OK && (e->status != s || e->message[0] == '\0')) {
        fprintf(stderr, "fuzz_predict: %s: status %d\n", call, (int)s);
        fail("an error without its message", (uint64_t)s);
    }
}

static void check_state(const sweep_level *lv, sweep_predict_state s, const char *what)
{
    if (!sweep_v3_isfinite(s.position) || !sweep_v3_isfinite(s.velocity) || !sweep_config_contains(&lv->config, s.position)) {
        fprintf(stderr, "fuzz_predict: %s at (%g, %g, %g) moving (%g, %g, %g)\n", what, s.position.x, s.position.y,
                s.position.z, s.velocity.x, s.velocity.y, s.velocity.z);
        fail("a state no server of the map holds", 0);
    }
}

/* Numbers of a WorldState: a mover id of the map (or not), a pose. */
static void read_world_state(ws_reader *s, const sweep_level *lv, sweep_wire_mover *movers, uint32_t cap,
                             sweep_msg_world_state *ws)
{
    memset(ws, 0, sizeof *ws);
    uint8_t how = ws_u8(s);
    ws->tick = how & 1 ? ws_u32(s) : ws_u8(s);
    ws->count = ws_u8(s) % (cap + 1);
    ws->mover_count = ws->count;
    ws->path_count = how & 2 ? ws->count : 0;
    for (uint32_t i = 0; i < ws->count; i++) {
        sweep_wire_mover *m = &movers[i];
        memset(m, 0, sizeof *m);
        uint8_t b = ws_u8(s);
        m->id = b < 0xF0 && lv->mover_count ? lv->movers[b % lv->mover_count].id : ws_id(s);
        m->flags = ws_u8(s);
        m->position = ws_vec(s);
        if (b & 1) {
            m->rotation[0] = ws_num(s);
            m->rotation[1] = ws_num(s);
            m->rotation[2] = ws_num(s);
            m->rotation[3] = ws_num(s);
        } else {
            m->rotation[3] = 1.0;
        }
        m->path_tick = ws_u8(s);
        m->wait = ws_u8(s);
        m->dir = (int8_t)ws_u8(s) % 2;
    }
    ws->movers = movers;
}

/* FUZZ_PREDICT_TRACE=1: each call, its answer and the prediction after
 * it, on stderr (to read what a crashing script did). */
static int trace;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ws_reader s = {data, size};
    uint8_t head = ws_u8(&s);
    unsigned mi = head % MAPS;
    const sweep_level *lv = &maps[mi].level;
    sweep_vec3 start = lv->spawn_count ? lv->spawns[0] : sweep_v3(0, 0, 1);
    sweep_predictor *p = NULL;
    sweep_client_error e;
    if (sweep_predictor_create(maps[mi].world, &lv->config, &lv->rules, start, lv->default_radii, &p, &e) !=
        SWEEP_CLIENT_OK)
        fail("no predictor at the map's first spawn", 0);
    /* Built for each script: WorldStates move them, and a script must not
     * start where the one before left them. */
    sweep_movers *mv = NULL;
    int movers_on = (head & 2) && lv->mover_count;
    if (movers_on) {
        if (sweep_predict_build_movers(lv, 0, &mv, &e) != SWEEP_CLIENT_OK)
            fail("the map's own movers not built", 0);
        sweep_client_status st = sweep_predictor_set_movers(p, mv, lv, &e);
        if (st != SWEEP_CLIENT_OK)
            fail("the map's own movers refused", (uint64_t)st);
    }
    uint32_t sequence = 0;
    int newest_open = 0;  /* the move numbered `sequence` is pending, and the newest */
    int numbered_once = 1; /* every move kept so far took the next number */
    uint32_t pending = 0; /* an upper bound: steps kept less answers and refusals found */
    static sweep_wire_mover movers[16];
    while (s.n) {
        uint8_t op = ws_u8(&s);
        sweep_client_status st = SWEEP_CLIENT_OK;
        const char *call = "";
        switch (op % 5u) {
        case 0: {
            sweep_wish w = {ws_vec(&s), 0};
            uint8_t how = ws_u8(&s);
            w.buttons = how & 0x80 ? ws_u32(&s) : how & 3u;
            double dt = how & 4 ? ws_num(&s) : 1.0 / 60.0;
            uint32_t seq = how & 8 ? ws_u32(&s) : ++sequence;
            sweep_act_result out;
            uint32_t before = sweep_predictor_pending(p);
            call = "step";
            if (how & 0x10)
                st = sweep_predictor_step_at(p, seq, &w, dt, ws_u8(&s), &out, &e);
            else
                st = sweep_predictor_step(p, seq, &w, dt, &out, &e);
            if (st == SWEEP_CLIENT_OK) {
                pending++;
                /* A number of its own choosing may repeat one pending:
                 * which move an answer names is then the game's muddle. */
                numbered_once &= !(how & 8);
                newest_open = numbered_once;
            } else {
                if (sweep_predictor_pending(p) != before)
                    fail("a refused step kept", before);
                if (!(how & 8))
                    newest_open = 0; /* its number was taken, and nothing kept */
            }
            break;
        }
        case 1:
        case 2: {
            sweep_msg_move_result r;
            memset(&r, 0, sizeof r);
            uint8_t how = ws_u8(&s);
            r.sequence = how & 1 ? ws_u32(&s) : sequence - (how >> 4);
            r.server_tick = ws_u8(&s);
            if (op % 5u == 2) {
                /* The prediction itself, as a faithful server answers the
                 * newest move. */
                sweep_predict_state cur = sweep_predictor_current(p);
                r.sequence = sequence;
                r.position = cur.position;
                r.velocity = cur.velocity;
                r.grounded = cur.grounded;
                r.crouched = cur.stance == SWEEP_STANCE_CROUCH;
                r.ground_mover = sweep_predict_mover_id(lv, cur.ground_mover);
            } else {
                r.position = ws_vec(&s);
                r.velocity = ws_vec(&s);
                r.grounded = how & 2;
                r.crouched = how & 4;
                r.ground_mover = ws_id(&s);
                if (how & 8) {
                    r.has_start_position = true;
                    r.start_position = ws_vec(&s);
                }
                r.rules = ws_u8(&s) & 0x1Fu;
                r.applied_dt = ws_num(&s);
                r.contact_count = ws_u8(&s) % (SWEEP_MAX_CONTACTS + 2);
                for (uint32_t k = 0; k < r.contact_count && k < SWEEP_MAX_CONTACTS; k++)
                    r.contacts[k].triangle = ws_u8(&s) < 0x80 ? ws_u8(&s) : ws_u32(&s);
            }
            sweep_predict_ack a;
            call = "ack";
            int newest = newest_open && r.sequence == sequence;
            st = sweep_predictor_ack(p, &r, &a, &e);
            if (st == SWEEP_CLIENT_OK && a.found && r.sequence == sequence)
                newest_open = 0;
            if (st == SWEEP_CLIENT_OK && a.found) {
                uint32_t gone = a.dropped + 1;
                pending = pending > gone ? pending - gone : 0;
            }
            /* Without movers the prediction is the newest pending move's
             * own state: answered with it, nothing differs. */
            if (op % 5u == 2 && newest && !movers_on && (st != SWEEP_CLIENT_OK || !a.found || a.mismatch))
                fail("the prediction itself, answered, differs from it", r.sequence);
            break;
        }
        case 3: {
            sweep_predict_ack a;
            uint8_t how = ws_u8(&s);
            call = "reject";
            uint32_t seq = how & 1 ? ws_u32(&s) : sequence - (how >> 4);
            st = sweep_predictor_reject(p, seq, &a, &e);
            if (st == SWEEP_CLIENT_OK && a.found && seq == sequence)
                newest_open = 0;
            if (st == SWEEP_CLIENT_OK && a.found && pending)
                pending--;
            break;
        }
        default: {
            sweep_msg_world_state ws;
            read_world_state(&s, lv, movers, 16, &ws);
            call = "world_state";
            st = sweep_predictor_world_state(p, &ws, &e);
            break;
        }
        }
        if (trace) {
            sweep_predict_state cur = sweep_predictor_current(p);
            fprintf(stderr, "%s: %s%s -> (%g, %g, %g)\n", call, st == SWEEP_CLIENT_OK ? "ok" : "refused: ",
                    st == SWEEP_CLIENT_OK ? "" : e.message, cur.position.x, cur.position.y, cur.position.z);
        }
        check_status(st, &e, call);
        check_state(lv, sweep_predictor_current(p), "the prediction");
        check_state(lv, sweep_predictor_confirmed(p), "the confirmed state");
        if (sweep_predictor_pending(p) > pending)
            fail("more moves pending than were stepped", sweep_predictor_pending(p));
    }
    sweep_predictor_destroy(p);
    sweep_movers_destroy(mv);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[4096];
    fuzz_sample_maps_dir(*argc, *argv, dir, sizeof dir);
    char scratch[64] = "/tmp/fuzz-predict-XXXXXX", copy[128];
    if (!mkdtemp(scratch))
        fail("cannot make a scratch directory", 0);
    snprintf(copy, sizeof copy, "%s/arena-crouch.db", scratch);
    for (unsigned i = 0; i < MAPS; i++) {
        char path[4200], err[1024];
        if (i < MAPS - 1)
            snprintf(path, sizeof path, "%s/%s", dir, map_names[i]);
        else if (snprintf(path, sizeof path, "%s/%s", dir, map_names[0]) < 0 || fuzz_crouching_copy(path, copy) != 0)
            exit(1);
        else
            snprintf(path, sizeof path, "%s", copy);
        if (sweep_map_load(path, &maps[i].level, NULL, err, sizeof err) != SWEEP_OK ||
            sweep_map_build_world(&maps[i].level, &maps[i].world, NULL, err, sizeof err) != SWEEP_OK) {
            fprintf(stderr, "fuzz_predict: %s (make builds it; or set SWEEP_BUILD_DIR)\n", err);
            exit(1);
        }
    }
    /* Loaded: the copy is not needed again. */
    unlink(copy);
    rmdir(scratch);
    trace = getenv("FUZZ_PREDICT_TRACE") != NULL;
    return 0;
}
