/*
 * make_predict_seeds.c - writes the seeds of tests/fuzz/fuzz_predict.c
 * into a directory: scripts (fuzz_predict.c says their ops) of a game
 * client predicting its player, on each sample map.
 *
 * - faithful: steps at the estimated tick, the movers' WorldStates as a
 *   server sends them, and each answer the prediction itself;
 * - corrected: answers somewhere else (a push the client did not see),
 *   one carried by a mover, refusals, answers lost, a jump and a crouch.
 *
 * Usage: make_predict_seeds DIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "core/motion.h"
#include "tests/fuzz/script_writer.h"

enum { STEP, ACK, ACK_FAITHFUL, REJECT, WORLD_STATE };

static void step(script *s, double vx, double vy, unsigned buttons, unsigned tick)
{
    put(s, STEP);
    vec(s, vx, vy, 0);
    put(s, (uint8_t)(buttons | 0x10));
    put(s, (uint8_t)tick);
}

/* The newest move answered with the prediction itself (back = 0), or
 * one `back` moves older. */
static void faithful(script *s, unsigned back, unsigned tick)
{
    put(s, ACK_FAITHFUL);
    put(s, (uint8_t)(back << 4));
    put(s, (uint8_t)tick);
}

static void world_state(script *s, unsigned tick, unsigned movers)
{
    put(s, WORLD_STATE);
    put(s, 2); /* with paths */
    put(s, (uint8_t)tick);
    put(s, (uint8_t)movers);
    for (unsigned m = 0; m < movers; m++) {
        put(s, (uint8_t)(2 * m)); /* the map's mover m, no rotation */
        put(s, 0);
        vec(s, m * 2.0, -8.0 + tick * 0.01, 0.0);
        put(s, (uint8_t)tick);
        put(s, 0);
        put(s, 1);
    }
}

static void faithful_walk(script *s, uint8_t head)
{
    put(s, head);
    for (unsigned i = 0; i < 80; i++) {
        double a = i * 0.05;
        step(s, 4 * cos(a), 4 * sin(a), i % 40 == 10 ? SWEEP_WISH_JUMP : 0, i + 2);
        if (i % 2 == 0)
            world_state(s, i, 4);
        if (i >= 2)
            faithful(s, 2, i);
    }
}

static void corrected_walk(script *s, uint8_t head)
{
    put(s, head);
    for (unsigned i = 0; i < 60; i++) {
        step(s, 3, 1, i % 20 == 5 ? SWEEP_WISH_JUMP : i % 30 > 25 ? SWEEP_WISH_CROUCH : 0, i + 2);
        switch (i % 6) {
        case 0: /* somewhere else: pushed */
            put(s, ACK);
            put(s, 0x10 | 2);
            put(s, (uint8_t)i);
            vec(s, 1.0 + i * 0.05, 0.5, 0.9);
            vec(s, 3, 1, 0);
            put(s, 0); /* on no mover */
            put(s, 0); /* no rules */
            num(s, 1.0 / 60.0);
            put(s, 0); /* no contacts */
            break;
        case 1: /* carried: a start told apart */
            put(s, ACK);
            put(s, 0x10 | 8);
            put(s, (uint8_t)i);
            vec(s, 2, 0, 0.9);
            vec(s, 0, 0, 0);
            put(s, 3);
            vec(s, 1.9, 0, 0.9);
            put(s, 0);
            num(s, 1.0 / 60.0);
            put(s, 0);
            break;
        case 2:
            put(s, REJECT);
            put(s, 0);
            break;
        case 3:
            faithful(s, 0, i);
            break;
        default: /* lost */
            break;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_predict_seeds DIR\n");
        return 2;
    }
    static const char *const maps[] = {"arena", "pool", "arena-crouch"};
    int ok = 1;
    for (uint8_t m = 0; m < 3; m++) {
        char name[64];
        script s = {{0}, 0};
        faithful_walk(&s, (uint8_t)(m | 2));
        snprintf(name, sizeof name, "faithful-%s", maps[m]);
        ok &= save(argv[1], name, &s);
        s.n = 0;
        corrected_walk(&s, (uint8_t)(m | 2));
        snprintf(name, sizeof name, "corrected-%s", maps[m]);
        ok &= save(argv[1], name, &s);
    }
    return ok ? 0 : 1;
}
