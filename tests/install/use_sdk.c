/*
 * use_sdk.c - a game client on the installed libsweep alone, in ISO C11
 * (gcc -std=c11 -pedantic-errors -Werror), built with nothing but what the
 * installed `pkg-config sweep` says: no server library, none of the
 * server's dependencies. test_install.sh runs it against a real sweepd.
 *
 * It does what a predicting game does (client-sdk/README.md, "What a
 * predicting client must do"): loads the server's map and checks its
 * content hash against the Welcome, spawns at a spawn point, and walks a
 * scripted path with up to WINDOW moves in flight, predicting each move
 * before sending it and reconciling every answer. It prints key=value
 * lines for the script to compare; on the same map every answer must equal
 * its prediction bit for bit.
 *
 * Built with -DUSE_SDK_LEVEL_IMAGE it is the Windows SDK's client
 * (client-sdk/windows.mk), which reads the map's level image (MAP.swl,
 * sweep-map-image) in its place; tests/windows/test_windows.c runs it
 * under wine.
 *
 * usage: use_sdk_c MAP.db HOST:PORT TOKEN [udp] (a --command-token of the
 * server, so no time budget is charged and a loaded machine cannot make a
 * move late: the motion is the player's Walk mode all the same; over TCP
 * unless `udp` is given).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sweep/client.h>
#include <sweep/maps/level_image.h>
#include <sweep/maps/loader.h>
#include <sweep/predict.h>

enum { MOVES = 180, WINDOW = 8, SPAWN_POINT = 2 };

/* The wish of move i: a walk round a loop of the arena's middle, a jump
 * now and then when the prediction stands on the ground. */
static sweep_wish wish_of(int i, int grounded)
{
    sweep_wish w;
    memset(&w, 0, sizeof w);
    if (i < 60)
        w.velocity = sweep_v3(-4, -3, 0);
    else if (i < 120)
        w.velocity = sweep_v3(0, 4, 0);
    else
        w.velocity = sweep_v3(4, 0, 0);
    if (i % 45 == 20 && grounded)
        w.buttons = SWEEP_WISH_JUMP;
    return w;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int fail(const char *what, const sweep_client_error *e)
{
    fprintf(stderr, "use_sdk_c: %s: %s: %s\n", what, sweep_client_error_name(e), e->message);
    return 1;
}

int main(int argc, char **argv)
{
    sweep_level lv;
    sweep_world *world = NULL;
    char err[512];
    sweep_client_options o;
    sweep_client *c = NULL;
    sweep_client_error e;
    sweep_msg_spawned sp;
    sweep_predictor *p = NULL;
    sweep_msg_move_result last;
    int sent = 0, answered = 0, mismatches = 0, corrected = 0, jumps = 0, rc = 1;
    double farthest = 0; /* from the spawn, of the answers */

    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "udp") == 0)) {
        fprintf(stderr, "usage: use_sdk_c MAP.db HOST:PORT TOKEN [udp]\n");
        return 2;
    }
#ifdef USE_SDK_LEVEL_IMAGE
    /* A build without SQLite (the Windows SDK) reads the map's level image. */
    if (sweep_level_image_load(argv[1], &lv, err, sizeof err) != SWEEP_OK ||
#else
    if (sweep_map_load(argv[1], &lv, NULL, err, sizeof err) != SWEEP_OK ||
#endif
        sweep_map_build_world(&lv, &world, NULL, err, sizeof err) != SWEEP_OK) {
        fprintf(stderr, "use_sdk_c: %s\n", err);
        return 1;
    }
    sweep_client_options_init(&o);
    o.transport = argc == 5 ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    o.address = argv[2];
    o.auth_token = argv[3];
    o.client_name = "use_sdk_c";
    o.timeout_ms = 30000;
    if (sweep_client_connect(&o, &c, &e) != SWEEP_CLIENT_OK) {
        rc = fail("connect", &e);
        goto out_world;
    }
    if (sweep_client_check_map(c, &lv, &e) != SWEEP_CLIENT_OK) {
        rc = fail("map", &e);
        goto out_client;
    }
    printf("connected=%s map=same\n", sweep_client_get_welcome(c)->role == SWEEP_WIRE_ROLE_SERVER ? "server" : "player");
    if (sweep_client_spawn_player(c, SPAWN_POINT, &sp, &e) != SWEEP_CLIENT_OK) {
        rc = fail("spawn", &e);
        goto out_client;
    }
    printf("spawned rules=%u\n", (unsigned)sp.rules);

    if (sweep_predictor_create(world, &lv.config, &lv.rules, sp.position, sp.radii, &p, &e) != SWEEP_CLIENT_OK) {
        rc = fail("predictor", &e);
        goto out_client;
    }
    memset(&last, 0, sizeof last);
    while (answered < MOVES) {
        sweep_client_event ev;
        sweep_predict_ack a;
        while (sent < MOVES && sent - answered < WINDOW) {
            sweep_wish w = wish_of(sent, sweep_predictor_current(p).grounded);
            sweep_client_move_req m;
            uint32_t seq = sweep_client_next_sequence(c);
            if (sweep_predictor_step(p, seq, &w, 1.0 / 60, NULL, &e) != SWEEP_CLIENT_OK) {
                rc = fail("prediction", &e);
                goto out_predictor;
            }
            memset(&m, 0, sizeof m);
            m.entity = sp.entity;
            m.velocity = w.velocity;
            m.buttons = w.buttons;
            m.dt = 1.0 / 60;
            m.has_claimed_position = 1;
            m.claimed_position = sweep_predictor_current(p).position;
            if (sweep_client_send_move(c, &m, NULL, &e) != SWEEP_CLIENT_OK) {
                rc = fail("send", &e);
                goto out_predictor;
            }
            jumps += w.buttons != 0;
            sent++;
        }
        if (sweep_client_poll(c, 30000, &ev, &e) != SWEEP_CLIENT_OK) {
            rc = fail("poll", &e);
            goto out_predictor;
        }
        if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
            rc = fail("server", &ev.as.error);
            goto out_predictor;
        }
        if (ev.kind != SWEEP_CLIENT_EV_MOVE_RESULT)
            continue;
        if (sweep_predictor_ack(p, &ev.as.move_result, &a, &e) != SWEEP_CLIENT_OK || !a.found) {
            fprintf(stderr, "use_sdk_c: answer %u matches no predicted move\n", ev.as.move_result.sequence);
            goto out_predictor;
        }
        answered++;
        mismatches += a.mismatch;
        corrected += ev.as.move_result.corrected;
        last = ev.as.move_result;
        {
            double dx = last.position.x - sp.position.x, dy = last.position.y - sp.position.y;
            if (sqrt(dx * dx + dy * dy) > farthest)
                farthest = sqrt(dx * dx + dy * dy);
        }
    }
    printf("moves=%d answered=%d mismatches=%d corrected=%d\n", sent, answered, mismatches, corrected);
    {
        /* Converged on the last answer, to the bit, after going somewhere
         * (and jumping): a walk that went nowhere would predict trivially. */
        sweep_predict_state now = sweep_predictor_current(p);
        int same = same_bits(now.position.x, last.position.x) && same_bits(now.position.y, last.position.y) &&
                   same_bits(now.position.z, last.position.z) && same_bits(now.velocity.x, last.velocity.x) &&
                   same_bits(now.velocity.y, last.velocity.y) && same_bits(now.velocity.z, last.velocity.z) &&
                   now.grounded == last.grounded;
        printf("converged=%s walked=%s jumped=%s\n", same ? "yes" : "no", farthest > 3 ? "yes" : "no",
               jumps > 1 ? "yes" : "no");
    }
    rc = 0;
out_predictor:
    sweep_predictor_destroy(p);
out_client:
    sweep_client_close(c);
out_world:
    sweep_world_destroy(world);
    sweep_level_free(&lv);
    return rc;
}
