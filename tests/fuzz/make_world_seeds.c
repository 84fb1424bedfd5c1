/*
 * make_world_seeds.c - writes the seeds of tests/fuzz/fuzz_world.c into a
 * directory: scripts (tests/fuzz/world_script.h) of the sessions a game
 * has, on each sample map, from which the fuzzer's mutations start.
 *
 * - walk: a player spawns at the map's next free point and walks, jumps,
 *   crouches and turns over some seconds of ticks, over TCP and over UDP
 *   (a batch), then leaves;
 * - server: the server role spawns an entity where it says and one as a
 *   player, moves both, commands them (every op), gives hit shapes, asks
 *   every kind of query at the newest tick and some ticks back, commands
 *   a mover, reads an entity, sweeps a Collide, and despawns;
 * - crowd: players and the server role's entities side by side, with
 *   entities blocking one another and a memory limit.
 *
 * Usage: make_world_seeds DIR
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/fuzz/script_writer.h"

static void op(script *s, unsigned owner, sweep_msg_kind kind)
{
    unsigned k = 0;
    while (ws_kinds[k] != kind)
        k++;
    put(s, (uint8_t)(k << 2 | owner));
}

static void ticks(script *s, unsigned n)
{
    for (; n > 16; n -= 16)
        put(s, 0xFF);
    if (n)
        put(s, (uint8_t)(0xF0 | (n - 1)));
}

/* Spawn: at the map's next free point (spawn_point 0, no position), or
 * at a position (the server role), as a player or not. */
static void spawn(script *s, unsigned owner, int at, double x, double y, double z, int player)
{
    op(s, owner, SWEEP_MSG_SPAWN);
    put(s, (uint8_t)(player ? 8 : 0));
    vec(s, 0, 0, 0);
    if (at)
        vec(s, x, y, z);
    else
        vec(s, 0, 0, 0);
}

/* The fields of one move of entity id (the next sequence, the world's tick). */
static void move_fields(script *s, uint32_t id, double vx, double vy, double vz, uint32_t buttons)
{
    put(s, (uint8_t)id);
    put(s, (uint8_t)(buttons << 6));
    vec(s, vx, vy, vz);
    put(s, WS_SPECIAL);
    put(s, 16); /* 1/60 s */
    put(s, 0);  /* Walk */
}

static void move(script *s, unsigned owner, uint32_t id, double vx, double vy, double vz, uint32_t buttons)
{
    op(s, owner, SWEEP_MSG_MOVE);
    move_fields(s, id, vx, vy, vz, buttons);
}

static void walk(script *s, uint8_t head)
{
    put(s, head);
    spawn(s, 0, 0, 0, 0, 0, 0);
    spawn(s, 1, 0, 0, 0, 0, 0);
    for (int i = 0; i < 90; i++) {
        double a = i * 0.07;
        move(s, 0, 1, 4 * cos(a), 4 * sin(a), 0, i % 30 == 5 ? 1 : i % 40 > 30 ? 2 : 0);
        /* The UDP player sends its moves two to a batch. */
        if (i % 2) {
            op(s, 1, SWEEP_MSG_MOVE_BATCH);
            put(s, 2);
            move_fields(s, 2, -3, 1, 0, 0);
            move_fields(s, 2, -3, 1.5, 0, i % 20 == 1);
        }
        ticks(s, 1);
    }
    op(s, 0, SWEEP_MSG_DESPAWN);
    put(s, 1);
    ticks(s, 3);
}

static void server(script *s, uint8_t head)
{
    put(s, head);
    spawn(s, 2, 1, 0, 0, 1, 0);
    spawn(s, 2, 1, 2, 1, 1, 1);
    for (int i = 0; i < 20; i++) {
        move(s, 2, 1, 1, 0, 0, 0);
        move(s, 2, 2, 0, 1, 0, i == 3);
        ticks(s, 1);
    }
    /* Every op on both entities, then one nobody has. */
    op(s, 2, SWEEP_MSG_ENTITY_COMMANDS);
    put(s, 7);
    for (uint8_t o = 0; o < 6; o++) {
        put(s, o % 2 ? 2 : 1);
        put(s, o);
        vec(s, 1, 0.5, 1);
        if (o == SWEEP_WIRE_OP_SET_HIT_SHAPES) {
            put(s, 2);
            put(s, 7);
            put(s, SWEEP_WIRE_SHAPE_CAPSULE);
            vec(s, 0, 0, 0);
            vec(s, 0, 0, 1);
            vec(s, 0.3, 0, 0);
            put(s, 8);
            put(s, SWEEP_WIRE_SHAPE_ELLIPSOID);
            vec(s, 0, 0, 1.5);
            vec(s, 0, 0, 0);
            vec(s, 0.2, 0.2, 0.25);
        }
    }
    put(s, 9);
    put(s, SWEEP_WIRE_OP_TELEPORT);
    vec(s, 0, 0, 1);
    ticks(s, 2);
    /* Every query kind, at the newest frame and five ticks back. */
    op(s, 2, SWEEP_MSG_QUERY);
    put(s, SWEEP_WIRE_QUERY_KIND_COUNT);
    for (uint8_t k = 0; k < SWEEP_WIRE_QUERY_KIND_COUNT; k++) {
        put(s, (uint8_t)(k | (k == 1 ? 0x18 : 0) | (k == 2 ? 0x20 : 0)));
        vec(s, -3, 0, 1);
        vec(s, 3, 0.5, 1);
        if (k == 1) {
            put(s, 1);
            put(s, 2);
        }
        vec(s, 0.3, 0.3, 0.5);
        num(s, 1.5);
        put(s, k % 2 ? 0x85 : 0);
        num(s, 0.5);
        put(s, 0);
        put(s, 4);
        if (k == 2) {
            put(s, 1);
            put(s, 1);
        }
    }
    op(s, 2, SWEEP_MSG_MOVER_COMMAND);
    put(s, 2);
    op(s, 0, SWEEP_MSG_MOVER_COMMAND);
    put(s, 0);
    op(s, 2, SWEEP_MSG_GET_ENTITY);
    put(s, 2);
    op(s, 3, SWEEP_MSG_COLLIDE);
    vec(s, 0, 0, 1);
    vec(s, 0.4, 0.4, 0.9);
    vec(s, 3, 0, -1);
    put(s, WS_SPECIAL);
    put(s, 16);
    put(s, 1);
    ticks(s, 40);
    op(s, 2, SWEEP_MSG_DESPAWN);
    put(s, 2);
}

static void crowd(script *s, uint8_t head)
{
    put(s, head);
    for (unsigned i = 0; i < 4; i++)
        spawn(s, i, i >= 2, i * 0.5, 0.5, 1, 0);
    for (int t = 0; t < 30; t++) {
        for (unsigned i = 0; i < 4; i++)
            move(s, i, i + 1, i % 2 ? 3 : -3, 0.5, 0, t == 10);
        ticks(s, 1);
    }
    op(s, 3, SWEEP_MSG_QUERY);
    put(s, 1);
    put(s, SWEEP_WIRE_QUERY_OVERLAP | 0x08);
    vec(s, 0, 0, 0);
    vec(s, 0, 0, 0);
    put(s, 3);
    vec(s, 0, 0, 0);
    num(s, 4);
    put(s, 0x81);
    num(s, 0);
    put(s, 4);
    put(s, 10);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_world_seeds DIR\n");
        return 2;
    }
    static const char *const maps[] = {"arena", "pads", "pool", "arena-crouch"};
    int ok = 1;
    for (uint8_t m = 0; m < 4; m++) {
        char name[64];
        script s = {{0}, 0};
        walk(&s, m);
        snprintf(name, sizeof name, "walk-%s", maps[m]);
        ok &= save(argv[1], name, &s);
        s.n = 0;
        /* history, a query rate and free moves */
        server(&s, (uint8_t)(m | 0x40 | 0x80 | 0x10));
        snprintf(name, sizeof name, "server-%s", maps[m]);
        ok &= save(argv[1], name, &s);
        s.n = 0;
        /* entities block, a memory limit, the least time bank */
        crowd(&s, (uint8_t)(m | 0x20 | 0x04 | 0x08 | 0x40));
        snprintf(name, sizeof name, "crowd-%s", maps[m]);
        ok &= save(argv[1], name, &s);
    }
    return ok ? 0 : 1;
}
