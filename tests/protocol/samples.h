/*
 * samples.h - one or more sample messages of every kind of sweep.fbs, and a
 * deep comparison of two decoded messages. Shared by the protocol unit
 * tests, the interop tool, the fuzz corpus generator and the codec
 * benchmark, so that they all exercise the same, fully populated values
 * (every field set to something other than its default, so that a field
 * lost on the way shows up as a difference).
 *
 * Header-only on purpose: each test program is one .c file (tests/tests.mk).
 */
#ifndef SWEEP_TESTS_PROTOCOL_SAMPLES_H
#define SWEEP_TESTS_PROTOCOL_SAMPLES_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "protocol/protocol.h"

#define SAMPLE_BATCH 64u

/* Storage the samples point into (batches, movers); static so samples stay
 * valid for the whole program. */
static sweep_msg_move sample__moves[SAMPLE_BATCH];
static sweep_msg_move_result sample__results[SAMPLE_BATCH];
static sweep_wire_mover sample__movers[4];
static sweep_msg_entity_command sample__commands[6];
static sweep_msg_entity_command_result sample__command_results[4];
static sweep_wire_entity_state sample__entity_states[4];
static sweep_wire_world_info sample__worlds[3];
static sweep_msg_query_item sample__query_items[6];
static sweep_msg_query_answer sample__query_answers[4];
static sweep_wire_query_hit sample__query_hits[5];
static sweep_wire_hit_shape sample__shapes[3];
static uint32_t sample__ignore[2][SWEEP_WIRE_QUERY_IGNORE_MAX];
static const uint8_t sample__hash[32] = {
    0x5e, 0x88, 0x48, 0x98, 0xda, 0x28, 0x04, 0x71, 0x51, 0xd0, 0xe5, 0x6f, 0x8d, 0xc6, 0x29, 0x27,
    0x73, 0x60, 0x3d, 0x0d, 0x6a, 0xab, 0xbd, 0xd6, 0x2a, 0x11, 0xef, 0x72, 0x1d, 0x15, 0x42, 0xd8,
};
static const uint8_t sample__cookie[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t sample__padding[8] = {0};

static inline sweep_msg_move sample_move(uint32_t i)
{
    sweep_msg_move m;
    memset(&m, 0, sizeof m);
    m.entity = 7 + i;
    m.sequence = 1000 + i;
    m.client_tick = 0x100000000ull + i;
    m.velocity = sweep_v3(1.5 + i, -2.25, 0.1 * (i + 1));
    m.dt = 1.0 / 60.0;
    m.has_claimed_position = (i % 2) == 0;
    if (m.has_claimed_position)
        m.claimed_position = sweep_v3(10.0 + i, 20.5, -3.125);
    m.buttons = (i % 3) == 0 ? 1u : (i % 3) == 1 ? 0u : 0x80000001u;
    m.mode = (uint8_t)(i % 4); /* Walk, Fly, Noclip, and a mode this build does not know */
    return m;
}

static inline sweep_msg_move_result sample_move_result(uint32_t i)
{
    sweep_msg_move_result r;
    memset(&r, 0, sizeof r);
    r.entity = 7 + i;
    r.sequence = 1000 + i;
    r.server_tick = 123456789ull + i;
    r.position = sweep_v3(1.0 / 3.0, 2.0 + i, -7.75);
    r.velocity = sweep_v3(0.5, 0.0, -9.81);
    r.grounded = (i % 3) != 0;
    if (r.grounded)
        r.ground_normal = sweep_v3(0.0, 0.0, 1.0);
    r.ground_material = 3 + i;
    r.contact_count = i % (SWEEP_MAX_CONTACTS + 1);
    for (uint32_t k = 0; k < r.contact_count; k++) {
        r.contacts[k].point = sweep_v3(k, k + 0.5, -1.0 * k);
        r.contacts[k].normal = sweep_v3(0.6, 0.0, 0.8);
        r.contacts[k].triangle = 100 * k + i;
        r.contacts[k].material = k + 1;
    }
    r.corrected = (i % 2) == 1;
    r.correction = r.corrected ? 0.015625 * (i + 1) : 0.0;
    /* Movers: every combination of stood on / moved by one shows up in a
     * 64-result batch. */
    r.ground_mover = (i % 4) == 1 ? 2 + i : 0;
    if ((i % 3) == 2) {
        r.pushed_by = 1 + i;
        r.carried = (i % 2) == 0;
        r.pushed = (i % 4) != 0;
        r.has_start_position = true;
        r.start_position = sweep_v3(-0.5 * i, 1.0 / 7.0, 3.0 + i);
    }
    /* Rules: none, some, all bits (a newer server's too). */
    r.rules = (i % 5) == 0 ? 0u : (i % 5) == 4 ? 0xffffffffu : (1u << (i % 9)) | 8u;
    r.speed_excess = (r.rules & 1u) ? 95.0 + i : 0.0;
    r.time_excess = (r.rules & 8u) ? 0.75 / (i + 1) : 0.0;
    r.applied_dt = (i % 7) == 6 ? 0.0 : 1.0 / 60.0 - 1e-3 * (i % 3);
    /* Volumes: none, a pad and a trigger, a hurt and a kill, a blocked
     * teleport and a trigger left. */
    if ((i % 4) == 1) {
        r.launched_by = 2 + i;
        r.entered = 0xffffffffu;
    } else if ((i % 4) == 2) {
        r.hurt_by = 5;
        r.damage = 1.0 / 6.0;
        r.killed_by = 9 + i;
    } else if ((i % 4) == 3) {
        r.teleported_by = 3;
        r.teleport_blocked = true;
        r.left = 1;
    }
    /* Stances: standing, crouched, and crouched with no room to stand. */
    r.crouched = (i % 3) != 0;
    r.stance_blocked = (i % 3) == 2;
    /* Liquids and ladders: swimming in lava entered this move, on a
     * ladder having left the water, neither. */
    if ((i % 3) == 1) {
        r.liquid = 7;
        r.liquid_type = 3;
        r.liquid_level = 2;
        r.entered_liquid = 7;
    } else if ((i % 3) == 2) {
        r.left_liquid = 0xfffffffeu;
        r.ladder = 4 + i;
    }
    return r;
}

/* Sample number `which` (0 .. sample_count() - 1); several kinds have more
 * than one variant (optional fields present and absent, empty and full
 * batches). */
static inline unsigned sample_count(void)
{
    return 49;
}

static const uint64_t sample__rules[SWEEP_WIRE_RULE_SLOTS] = {
    1, 0, 3, 1ull << 40, 5, 0xffffffffffffffffull, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
};

static inline sweep_message sample_message(unsigned which)
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.sequence = 42 + which;
    m.server_tick = which % 2 ? 0xfedcba9876543210ull : 0;
    /* Every pairing of the two u64 header fields, each present or not. */
    m.key = which % 3 == 1 ? 0x8877665544332211ull : 0;
    switch (which) {
    case 0:
        m.kind = SWEEP_MSG_HELLO;
        m.as.hello.protocol_version = SWEEP_PROTOCOL_VERSION;
        m.as.hello.client_name = sweep_str_of("unit-test client \xc3\xa9");
        m.as.hello.auth_token = sweep_str_of("s3cr3t");
        m.as.hello.world = sweep_str_of("arena");
        break;
    case 1: /* the UDP form: cookie and padding */
        m.kind = SWEEP_MSG_HELLO;
        m.as.hello.protocol_version = SWEEP_PROTOCOL_VERSION;
        m.as.hello.client_name = sweep_str_of("");
        m.as.hello.cookie.ptr = sample__cookie;
        m.as.hello.cookie.len = sizeof sample__cookie;
        m.as.hello.padding.ptr = sample__padding;
        m.as.hello.padding.len = sizeof sample__padding;
        m.as.hello.max_datagram = 60000;
        break;
    case 2:
        m.kind = SWEEP_MSG_WELCOME;
        m.as.welcome.protocol_version = SWEEP_PROTOCOL_VERSION;
        m.as.welcome.session_id = 0x0123456789abcdefull;
        m.as.welcome.tick_rate = 60.0;
        m.as.welcome.map_name = sweep_str_of("arena");
        m.as.welcome.map_hash.ptr = sample__hash;
        m.as.welcome.map_hash.len = sizeof sample__hash;
        m.as.welcome.max_batch = 256;
        m.as.welcome.max_frame_size = 65536;
        m.as.welcome.max_entities = 32;
        m.as.welcome.role = SWEEP_WIRE_ROLE_SERVER;
        m.as.welcome.identity = sweep_str_of("game-server.eu-1@example");
        m.as.welcome.time_bank = 0.25;
        m.as.welcome.udp_key = 0xfffffffffffffffdull;
        break;
    case 3:
        m.kind = SWEEP_MSG_SPAWN;
        m.as.spawn.radii = sweep_v3(0.4, 0.4, 0.9);
        m.as.spawn.position = sweep_v3(1.0, 2.0, 3.0);
        m.as.spawn.max_speed = 7.5;
        m.as.spawn.step_height = 0.25;
        m.as.spawn.spawn_point = 2;
        m.as.spawn.player = true;
        break;
    case 4:
        m.kind = SWEEP_MSG_SPAWNED;
        m.as.spawned.entity = 9;
        m.as.spawned.position = sweep_v3(1.0, 2.0, 3.0625);
        m.as.spawned.radii = sweep_v3(0.4, 0.4, 0.9);
        m.as.spawned.rules = SWEEP_WIRE_RULE_SPAWN_POSITION | SWEEP_WIRE_RULE_SPAWN_RADII;
        m.as.spawned.spawn_point = 3;
        m.as.spawned.player = true;
        break;
    case 5:
        m.kind = SWEEP_MSG_DESPAWN;
        m.as.despawn.entity = 9;
        break;
    case 6:
        m.kind = SWEEP_MSG_DESPAWNED; /* the push of a crushed entity */
        m.as.despawned.entity = 0xffffffffu;
        m.as.despawned.crushed_by = 4;
        m.as.despawned.killed_by = 12;
        m.as.despawned.reason = sweep_str_of("fell into the lava");
        break;
    case 7:
        m.kind = SWEEP_MSG_MOVE;
        m.as.move = sample_move(0); /* with claimed position */
        break;
    case 8:
        m.kind = SWEEP_MSG_MOVE;
        m.as.move = sample_move(1); /* without */
        break;
    case 9:
        m.kind = SWEEP_MSG_MOVE_RESULT;
        /* grounded, corrected, the most contacts a result can hold */
        m.as.move_result = sample_move_result(SWEEP_MAX_CONTACTS);
        m.as.move_result.grounded = true;
        m.as.move_result.ground_normal = sweep_v3(0.0, 0.6, 0.8);
        m.as.move_result.corrected = true;
        m.as.move_result.correction = 0.75;
        m.as.move_result.ground_mover = 3;
        m.as.move_result.pushed = true;
        break;
    case 10:
        m.kind = SWEEP_MSG_MOVE_RESULT;
        m.as.move_result = sample_move_result(0); /* not grounded, no contacts */
        break;
    case 11:
        m.kind = SWEEP_MSG_MOVE_BATCH;
        for (uint32_t i = 0; i < SAMPLE_BATCH; i++)
            sample__moves[i] = sample_move(i);
        m.as.move_batch.moves = sample__moves;
        m.as.move_batch.count = SAMPLE_BATCH;
        break;
    case 12:
        m.kind = SWEEP_MSG_MOVE_BATCH; /* empty but present */
        break;
    case 13:
        m.kind = SWEEP_MSG_MOVE_RESULT_BATCH;
        for (uint32_t i = 0; i < SAMPLE_BATCH; i++)
            sample__results[i] = sample_move_result(i);
        m.as.move_result_batch.results = sample__results;
        m.as.move_result_batch.count = SAMPLE_BATCH;
        break;
    case 14:
        m.kind = SWEEP_MSG_COLLIDE;
        m.as.collide.position = sweep_v3(5.0, 6.0, 7.0);
        m.as.collide.radii = sweep_v3(0.5, 0.5, 1.0);
        m.as.collide.velocity = sweep_v3(-1.0, 0.0, 0.0);
        m.as.collide.dt = 0.05;
        m.as.collide.grounded = true;
        break;
    case 15:
        m.kind = SWEEP_MSG_COLLIDE_RESULT;
        m.as.collide_result.position = sweep_v3(4.95, 6.0, 7.0);
        m.as.collide_result.velocity = sweep_v3(-1.0, 0.0, 0.0);
        m.as.collide_result.grounded = true;
        m.as.collide_result.ground_normal = sweep_v3(0.0, 0.0, 1.0);
        m.as.collide_result.ground_material = 2;
        m.as.collide_result.contact_count = 2;
        m.as.collide_result.contacts[0] = sample_move_result(2).contacts[0];
        m.as.collide_result.contacts[1] = sample_move_result(2).contacts[1];
        m.as.collide_result.ground_mover = 12;
        break;
    case 16:
        m.kind = SWEEP_MSG_WORLD_STATE;
        m.as.world_state.tick = 99;
        for (uint32_t i = 0; i < 4; i++) {
            sample__movers[i].id = i + 1;
            sample__movers[i].flags = i == 3 ? 0x80000000u | SWEEP_WIRE_MOVER_MOVED : i;
            sample__movers[i].position = sweep_v3(i, -1.0 * i, 2.5);
            sample__movers[i].rotation[0] = 0.0;
            sample__movers[i].rotation[1] = 0.0;
            sample__movers[i].rotation[2] = i ? 0.6 : 0.0;
            sample__movers[i].rotation[3] = i ? 0.8 : 1.0;
            sample__movers[i].path_tick = i == 2 ? UINT32_MAX : 7 * i;
            sample__movers[i].wait = i == 1 ? 128 : 0;
            sample__movers[i].dir = (int32_t)i - 1;
        }
        m.as.world_state.movers = sample__movers;
        m.as.world_state.count = 4;
        m.as.world_state.path_count = 4;
        m.as.world_state.mover_count = 6; /* one part of a split push */
        break;
    case 17:
        m.kind = SWEEP_MSG_PING;
        m.as.ping.client_time = 1234567890123ull;
        break;
    case 18:
        m.kind = SWEEP_MSG_PONG;
        m.as.pong.client_time = 1234567890123ull;
        m.as.pong.server_time = 987654321ull;
        break;
    case 19:
        m.kind = SWEEP_MSG_GET_STATS;
        break;
    case 20:
        m.kind = SWEEP_MSG_STATS;
        m.as.stats.sessions = 3;
        m.as.stats.entities = 17;
        m.as.stats.moves_total = 1ull << 40;
        m.as.stats.errors_total = 5;
        m.as.stats.tick_ns_p50 = 120000;
        m.as.stats.tick_ns_p99 = 950000;
        m.as.stats.movers = 4;
        m.as.stats.crushed_total = 1ull << 33;
        memcpy(m.as.stats.rules_total, sample__rules, sizeof sample__rules);
        m.as.stats.rules_total_count = SWEEP_WIRE_RULE_SLOTS;
        memcpy(m.as.stats.session_rules, sample__rules + 3, 9 * sizeof sample__rules[0]);
        m.as.stats.session_rules_count = SWEEP_WIRE_RULE_COUNT;
        for (unsigned i = 0; i < SWEEP_WIRE_CODE_COUNT; i++)
            m.as.stats.errors_by_code[i] = i == SWEEP_WIRE_BAD_DT ? 1ull << 35 : i * 3u;
        m.as.stats.errors_by_code_count = SWEEP_WIRE_CODE_COUNT;
        m.as.stats.tcp_bytes_in = 123456789012ull;
        m.as.stats.tcp_bytes_out = 1;
        m.as.stats.udp_bytes_in = 0xffffffffffffffffull;
        m.as.stats.udp_bytes_out = 1ull << 32;
        m.as.stats.udp_dropped = 77;
        m.as.stats.ticks_total = 600;
        m.as.stats.tick_ns_total = 31000001;
        m.as.stats.move_ns_total = 4000000003ull;
        for (uint32_t i = 0; i < 3; i++) {
            sample__worlds[i].world = i == 2 ? UINT32_MAX : i + 1;
            sample__worlds[i].name = sweep_str_of(i == 0 ? "arena" : i == 1 ? "match-17 \xc3\xa9" : "");
            sample__worlds[i].map = i == 2 ? sweep_str_of(NULL) : sweep_str_of("arena");
            sample__worlds[i].sessions = 3 * i;
            sample__worlds[i].entities = 17 + i;
            sample__worlds[i].triangles = 1000000u + i;
            sample__worlds[i].tick = i ? 0x1234567890ull + i : 0;
        }
        m.as.stats.worlds = sample__worlds;
        m.as.stats.worlds_count = 3;
        m.as.stats.worlds_open = 5; /* not all of them fitted */
        break;
    case 21:
        m.kind = SWEEP_MSG_ERROR;
        m.as.error.code = SWEEP_WIRE_BAD_RADII;
        m.as.error.message = sweep_str_of("radius 0 is not in [0.01, 100]");
        m.as.error.sequence = 77;
        m.as.error.entity = 9;
        break;
    case 22:
        m.kind = SWEEP_MSG_BYE;
        m.as.bye.reason = sweep_str_of("server shutting down");
        break;
    case 23:
        m.kind = SWEEP_MSG_BYE; /* no reason */
        break;
    case 24:
        m.kind = SWEEP_MSG_CHALLENGE;
        m.as.challenge.cookie.ptr = sample__cookie;
        m.as.challenge.cookie.len = sizeof sample__cookie;
        break;
    case 26:
        m.kind = SWEEP_MSG_WATCH_WORLD;
        m.as.watch_world.every = 3;
        break;
    case 27:
        m.kind = SWEEP_MSG_WATCH_WORLD; /* stop: every = 0, an empty table */
        break;
    case 28:
        m.kind = SWEEP_MSG_MOVER_COMMAND;
        m.as.mover_command.mover = sweep_str_of("north door \xc3\xa9");
        break;
    case 29:
        m.kind = SWEEP_MSG_MOVER_COMMANDED;
        m.as.mover_commanded.mover = 0xfffffffeu;
        m.as.mover_commanded.tick = 0x123456789abull;
        break;
    case 30:
        m.kind = SWEEP_MSG_DESPAWNED; /* the answer to a Despawn */
        m.as.despawned.entity = 12;
        break;
    case 31: /* a player's Welcome: role Player (the default), a guest */
        m.kind = SWEEP_MSG_WELCOME;
        m.as.welcome.protocol_version = SWEEP_PROTOCOL_VERSION;
        m.as.welcome.session_id = 7;
        m.as.welcome.tick_rate = 30.0;
        m.as.welcome.map_name = sweep_str_of("");
        m.as.welcome.map_hash.ptr = sample__hash;
        m.as.welcome.map_hash.len = 0;
        m.as.welcome.identity = sweep_str_of("#guest");
        break;
    case 32: /* Stats of an older server: no rule counts */
        m.kind = SWEEP_MSG_STATS;
        m.as.stats.sessions = 1;
        break;
    case 33: /* Stats of a newer server: error codes this build does not name, no rule counts */
        m.kind = SWEEP_MSG_STATS;
        for (unsigned i = 0; i < SWEEP_WIRE_CODE_SLOTS; i++)
            m.as.stats.errors_by_code[i] = 0x0101010101010101ull * (i % 5);
        m.as.stats.errors_by_code_count = SWEEP_WIRE_CODE_SLOTS;
        m.as.stats.udp_dropped = 5;
        m.as.stats.move_ns_total = 1;
        break;
    case 34: /* every op, one this build does not know, a Despawn without a vector */
        m.kind = SWEEP_MSG_ENTITY_COMMANDS;
        for (uint32_t i = 0; i < 6; i++) {
            memset(&sample__commands[i], 0, sizeof sample__commands[i]); /* sample 45 sets shapes */
            sample__commands[i].entity = 0xfffffff0u + i;
            sample__commands[i].op = (uint8_t)(i < 5 ? i : 200);
            sample__commands[i].vector =
                i == SWEEP_WIRE_OP_DESPAWN ? sweep_v3(0, 0, 0) : sweep_v3(1.0 / 3.0 + i, -0.0, 1e300);
        }
        m.as.entity_commands.commands = sample__commands;
        m.as.entity_commands.count = 6;
        break;
    case 35:
        m.kind = SWEEP_MSG_ENTITY_COMMANDS; /* empty but present */
        break;
    case 36: /* applied, pushed out, refused with the state kept, unknown entity (no state) */
        m.kind = SWEEP_MSG_ENTITY_COMMANDS_RESULT;
        for (uint32_t i = 0; i < 4; i++) {
            sweep_msg_entity_command_result *r = &sample__command_results[i];
            memset(r, 0, sizeof *r);
            r->entity = 40 + i;
            r->op = (uint8_t)(i + 1);
            r->code = i < 2 ? SWEEP_WIRE_NONE : i == 2 ? SWEEP_WIRE_NO_ROOM : (sweep_wire_code)0xfffe;
            r->message = sweep_str_of(i < 2 ? NULL : i == 2 ? "no room for radii (2, 2, 2) here" : "?");
            r->has_state = i < 3;
            if (r->has_state) {
                r->position = sweep_v3(i, 2.5, -3.0);
                r->velocity = sweep_v3(0.0, -0.0, 9.81 * i);
                r->radii = sweep_v3(0.4, 0.4, 0.9 + i);
            }
            r->flags = i == 1 ? SWEEP_WIRE_COMMAND_PUSHED_OUT : i == 2 ? 0x80000000u : 0;
        }
        m.as.entity_commands_result.results = sample__command_results;
        m.as.entity_commands_result.count = 4;
        break;
    case 37:
        m.kind = SWEEP_MSG_WATCH_ENTITIES;
        m.as.watch_entities.every = 5;
        break;
    case 38: /* one part of a split push */
        m.kind = SWEEP_MSG_ENTITY_STATES;
        m.as.entity_states.tick = 0x1000000001ull;
        for (uint32_t i = 0; i < 4; i++) {
            sweep_wire_entity_state *e = &sample__entity_states[i];
            e->entity = 0x9e3779b9u * (i + 1);
            e->flags = i == 3 ? 0xffffffffu : i;
            e->owner_session = 0x0123456789abcdefull + i;
            e->position = sweep_v3(i, -1.5 * i, 1.0 / 7.0);
            e->velocity = sweep_v3(-0.0, 2.0, -9.81);
            e->radii = sweep_v3(0.4, 0.4, 0.9);
            e->ground_mover = i == 2 ? 5 : 0;
        }
        m.as.entity_states.entities = sample__entity_states;
        m.as.entity_states.count = 4;
        m.as.entity_states.entity_count = 7;
        break;
    case 39:
        m.kind = SWEEP_MSG_GET_ENTITY;
        m.as.get_entity.entity = 0xdeadbeefu;
        break;
    case 40:
        m.kind = SWEEP_MSG_OPEN_WORLD;
        m.as.open_world.map = sweep_str_of("arena");
        m.as.open_world.name = sweep_str_of("match-17 \xc3\xa9");
        break;
    case 41:
        m.kind = SWEEP_MSG_OPEN_WORLD; /* the server names it */
        m.as.open_world.map = sweep_str_of("dm_test");
        break;
    case 42:
        m.kind = SWEEP_MSG_WORLD_OPENED;
        m.as.world_opened.world = 0xfffffffeu;
        m.as.world_opened.name = sweep_str_of("arena#7");
        m.as.world_opened.map_hash.ptr = sample__hash;
        m.as.world_opened.map_hash.len = sizeof sample__hash;
        break;
    case 43:
        m.kind = SWEEP_MSG_CLOSE_WORLD;
        m.as.close_world.world = 7;
        break;
    case 44: /* the push to a closed world's sessions */
        m.kind = SWEEP_MSG_WORLD_CLOSED;
        m.sequence = 0;
        m.as.world_closed.world = 7;
        m.as.world_closed.reason = sweep_str_of("CloseWorld");
        break;
    case 45: /* SetHitShapes with every kind of shape, and one clearing them */
        m.kind = SWEEP_MSG_ENTITY_COMMANDS;
        for (uint32_t i = 0; i < 2; i++) {
            sweep_msg_entity_command *c = &sample__commands[i];
            memset(c, 0, sizeof *c);
            c->entity = 900 + i;
            c->op = SWEEP_WIRE_OP_SET_HIT_SHAPES;
            c->shape_count = i == 0 ? 3 : 0;
        }
        sample__commands[0].shapes = sample__shapes;
        for (uint32_t k = 0; k < 3; k++) {
            sweep_wire_hit_shape *h = &sample__shapes[k];
            h->id = k + 1;
            h->kind = k;
            h->a = sweep_v3(0.0, 0.0, 0.7 - 0.5 * k);
            h->b = k == 1 ? sweep_v3(0.0, 0.0, -0.25) : sweep_v3(0, 0, 0);
            h->radii = sweep_v3(0.2 + k, 1.0 / 3.0, -0.0);
        }
        m.as.entity_commands.commands = sample__commands;
        m.as.entity_commands.count = 2;
        break;
    case 46: /* every kind, entity endpoints, a time, ignores, a kind this build does not know */
        m.kind = SWEEP_MSG_QUERY;
        for (uint32_t i = 0; i < 6; i++) {
            sweep_msg_query_item *q = &sample__query_items[i];
            memset(q, 0, sizeof *q);
            q->kind = (uint8_t)(i < 5 ? i : 250);
            q->from = sweep_v3(1.0 + i, -2.5, 1.0 / 3.0);
            q->to = i == 2 ? sweep_v3(0, 0, 0) : sweep_v3(-0.0, 40.0, 1e-300);
            q->from_entity = i == 1 ? 0xfffffff1u : 0;
            q->to_entity = i == 2 ? 77 : 0;
            q->radii = i == 3 ? sweep_v3(0.4, 0.4, 0.9) : sweep_v3(0, 0, 0);
            q->radius = i == 4 ? 12.5 : 0.0;
            q->tick = i % 2 ? 0x1000000007ull : 0;
            q->fraction = i % 2 ? 0.999999 : 0.0;
            q->filter = i == 5 ? 0xffffffffu : i;
            q->max_hits = i == 1 ? 3 : 0;
            q->ignore_count = i == 1 ? SWEEP_WIRE_QUERY_IGNORE_MAX : i == 2 ? 1 : 0;
            if (q->ignore_count)
                q->ignore = sample__ignore[i - 1];
            for (uint32_t k = 0; k < q->ignore_count; k++)
                sample__ignore[i - 1][k] = 0x80000000u + k;
        }
        m.as.query.items = sample__query_items;
        m.as.query.count = 6;
        break;
    case 47:
        m.kind = SWEEP_MSG_QUERY; /* empty but present */
        break;
    case 48: /* hits of every kind, a clear line of sight, a refusal, an answer with more */
        m.kind = SWEEP_MSG_QUERY_RESULT;
        for (uint32_t k = 0; k < 5; k++) {
            sweep_wire_query_hit *h = &sample__query_hits[k];
            h->kind = 1 + k % 3;
            h->triangle = h->kind == 3 ? 0xffffffffu : 100 + k;
            h->material = h->kind == 3 ? 0 : 7;
            h->mover = h->kind == 2 ? 3 : 0;
            h->entity = h->kind == 3 ? 0xabcdef01u : 0;
            h->shape = k == 2 ? 1 : 0xffffffffu;
            h->fraction = 0.125 * k;
            h->distance = 1.0 / 3.0 + k;
            h->point = sweep_v3(k, -0.0, 2.5);
            h->normal = sweep_v3(0.0, 0.0, k % 2 ? -1.0 : 1.0);
        }
        for (uint32_t i = 0; i < 4; i++) {
            sweep_msg_query_answer *a = &sample__query_answers[i];
            memset(a, 0, sizeof *a);
            a->tick = 0x100000000ull + i;
            a->fraction = i == 1 ? 0.5 : 0.0;
        }
        sample__query_answers[0].hits = &sample__query_hits[0];
        sample__query_answers[0].hit_count = 1;
        sample__query_answers[1].flags = SWEEP_WIRE_QUERY_CLEAR;
        sample__query_answers[2].code = SWEEP_WIRE_TOO_OLD;
        sample__query_answers[2].message = sweep_str_of("tick 3 is older than the rewind cap (15 ticks)");
        sample__query_answers[3].flags = SWEEP_WIRE_QUERY_MORE | 0x80000000u;
        sample__query_answers[3].hits = &sample__query_hits[1];
        sample__query_answers[3].hit_count = 4;
        m.as.query_result.answers = sample__query_answers;
        m.as.query_result.count = 4;
        m.as.query_result.first = 3;
        break;
    default: /* 25: extremes that must survive bit for bit */
        m.kind = SWEEP_MSG_MOVE;
        m.sequence = 0xffffffffu;
        m.server_tick = 0xffffffffffffffffull;
        m.as.move = sample_move(2);
        m.as.move.velocity = sweep_v3(INFINITY, -INFINITY, 5e-324);
        m.as.move.dt = 1.7976931348623157e308;
        break;
    }
    return m;
}

/* Bitwise double equality, so that NaN payloads and -0.0 count. */
static inline int sample__deq(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static inline int sample__veq(sweep_vec3 a, sweep_vec3 b)
{
    return sample__deq(a.x, b.x) && sample__deq(a.y, b.y) && sample__deq(a.z, b.z);
}

static inline int sample__streq(sweep_str a, sweep_str b)
{
    if ((a.ptr == NULL) != (b.ptr == NULL) || a.len != b.len)
        return 0;
    return a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0;
}

static inline int sample__byteseq(sweep_bytes a, sweep_bytes b)
{
    if ((a.ptr == NULL) != (b.ptr == NULL) || a.len != b.len)
        return 0;
    return a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0;
}

static inline int sample__contacts_eq(const sweep_contact *a, const sweep_contact *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!sample__veq(a[i].point, b[i].point) || !sample__veq(a[i].normal, b[i].normal) ||
            a[i].triangle != b[i].triangle || a[i].material != b[i].material)
            return 0;
    return 1;
}

static inline int sample__move_eq(const sweep_msg_move *a, const sweep_msg_move *b)
{
    return a->entity == b->entity && a->sequence == b->sequence && a->client_tick == b->client_tick &&
           sample__veq(a->velocity, b->velocity) && sample__deq(a->dt, b->dt) &&
           a->has_claimed_position == b->has_claimed_position &&
           (!a->has_claimed_position || sample__veq(a->claimed_position, b->claimed_position)) &&
           a->buttons == b->buttons && a->mode == b->mode;
}

static inline int sample__command_result_eq(const sweep_msg_entity_command_result *a,
                                            const sweep_msg_entity_command_result *b)
{
    return a->entity == b->entity && a->op == b->op && a->code == b->code && sample__streq(a->message, b->message) &&
           a->has_state == b->has_state &&
           (!a->has_state || (sample__veq(a->position, b->position) && sample__veq(a->velocity, b->velocity) &&
                              sample__veq(a->radii, b->radii))) &&
           a->flags == b->flags;
}

static inline int sample__entity_state_eq(const sweep_wire_entity_state *a, const sweep_wire_entity_state *b)
{
    return a->entity == b->entity && a->flags == b->flags && a->owner_session == b->owner_session &&
           sample__veq(a->position, b->position) && sample__veq(a->velocity, b->velocity) &&
           sample__veq(a->radii, b->radii) && a->ground_mover == b->ground_mover;
}

static inline int sample__world_info_eq(const sweep_wire_world_info *a, const sweep_wire_world_info *b)
{
    return a->world == b->world && sample__streq(a->name, b->name) && sample__streq(a->map, b->map) &&
           a->sessions == b->sessions && a->entities == b->entities && a->triangles == b->triangles &&
           a->tick == b->tick;
}

static inline int sample__result_eq(const sweep_msg_move_result *a, const sweep_msg_move_result *b)
{
    return a->entity == b->entity && a->sequence == b->sequence && a->server_tick == b->server_tick &&
           sample__veq(a->position, b->position) && sample__veq(a->velocity, b->velocity) &&
           a->grounded == b->grounded && sample__veq(a->ground_normal, b->ground_normal) &&
           a->ground_material == b->ground_material && a->contact_count == b->contact_count &&
           sample__contacts_eq(a->contacts, b->contacts, a->contact_count) &&
           a->corrected == b->corrected && sample__deq(a->correction, b->correction) &&
           a->ground_mover == b->ground_mover && a->pushed_by == b->pushed_by && a->carried == b->carried &&
           a->pushed == b->pushed && a->has_start_position == b->has_start_position &&
           (!a->has_start_position || sample__veq(a->start_position, b->start_position)) &&
           a->rules == b->rules && sample__deq(a->speed_excess, b->speed_excess) &&
           sample__deq(a->time_excess, b->time_excess) && sample__deq(a->applied_dt, b->applied_dt) &&
           a->launched_by == b->launched_by && a->teleported_by == b->teleported_by &&
           a->teleport_blocked == b->teleport_blocked && a->hurt_by == b->hurt_by &&
           sample__deq(a->damage, b->damage) && a->killed_by == b->killed_by && a->entered == b->entered &&
           a->left == b->left && a->crouched == b->crouched && a->stance_blocked == b->stance_blocked &&
           a->liquid == b->liquid && a->liquid_type == b->liquid_type &&
           a->liquid_level == b->liquid_level && a->entered_liquid == b->entered_liquid &&
           a->left_liquid == b->left_liquid && a->ladder == b->ladder;
}

/* 1 if a and b hold the same values (views compared by content). An empty
 * batch equals an empty batch whatever its pointer. */
static inline int sample_equal(const sweep_message *a, const sweep_message *b)
{
    if (a->kind != b->kind || a->sequence != b->sequence || a->server_tick != b->server_tick || a->key != b->key)
        return 0;
    switch (a->kind) {
    case SWEEP_MSG_HELLO:
        return a->as.hello.protocol_version == b->as.hello.protocol_version &&
               sample__streq(a->as.hello.client_name, b->as.hello.client_name) &&
               sample__streq(a->as.hello.auth_token, b->as.hello.auth_token) &&
               sample__streq(a->as.hello.world, b->as.hello.world) &&
               sample__byteseq(a->as.hello.cookie, b->as.hello.cookie) &&
               sample__byteseq(a->as.hello.padding, b->as.hello.padding) &&
               a->as.hello.max_datagram == b->as.hello.max_datagram;
    case SWEEP_MSG_WELCOME: {
        const sweep_msg_welcome *x = &a->as.welcome, *y = &b->as.welcome;
        return x->protocol_version == y->protocol_version && x->session_id == y->session_id &&
               sample__deq(x->tick_rate, y->tick_rate) && sample__streq(x->map_name, y->map_name) &&
               sample__byteseq(x->map_hash, y->map_hash) && x->max_batch == y->max_batch &&
               x->max_frame_size == y->max_frame_size && x->max_entities == y->max_entities && x->role == y->role &&
               sample__streq(x->identity, y->identity) && sample__deq(x->time_bank, y->time_bank) &&
               x->udp_key == y->udp_key;
    }
    case SWEEP_MSG_SPAWN:
        return sample__veq(a->as.spawn.radii, b->as.spawn.radii) &&
               sample__veq(a->as.spawn.position, b->as.spawn.position) &&
               sample__deq(a->as.spawn.max_speed, b->as.spawn.max_speed) &&
               sample__deq(a->as.spawn.step_height, b->as.spawn.step_height) &&
               a->as.spawn.spawn_point == b->as.spawn.spawn_point && a->as.spawn.player == b->as.spawn.player;
    case SWEEP_MSG_SPAWNED:
        return a->as.spawned.entity == b->as.spawned.entity &&
               sample__veq(a->as.spawned.position, b->as.spawned.position) &&
               sample__veq(a->as.spawned.radii, b->as.spawned.radii) &&
               a->as.spawned.rules == b->as.spawned.rules && a->as.spawned.spawn_point == b->as.spawned.spawn_point &&
               a->as.spawned.player == b->as.spawned.player;
    case SWEEP_MSG_DESPAWN:
        return a->as.despawn.entity == b->as.despawn.entity;
    case SWEEP_MSG_DESPAWNED:
        return a->as.despawned.entity == b->as.despawned.entity &&
               a->as.despawned.crushed_by == b->as.despawned.crushed_by &&
               a->as.despawned.killed_by == b->as.despawned.killed_by &&
               sample__streq(a->as.despawned.reason, b->as.despawned.reason);
    case SWEEP_MSG_MOVE:
        return sample__move_eq(&a->as.move, &b->as.move);
    case SWEEP_MSG_MOVE_RESULT:
        return sample__result_eq(&a->as.move_result, &b->as.move_result);
    case SWEEP_MSG_MOVE_BATCH:
        if (a->as.move_batch.count != b->as.move_batch.count)
            return 0;
        for (uint32_t i = 0; i < a->as.move_batch.count; i++)
            if (!sample__move_eq(&a->as.move_batch.moves[i], &b->as.move_batch.moves[i]))
                return 0;
        return 1;
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        if (a->as.move_result_batch.count != b->as.move_result_batch.count)
            return 0;
        for (uint32_t i = 0; i < a->as.move_result_batch.count; i++)
            if (!sample__result_eq(&a->as.move_result_batch.results[i],
                                   &b->as.move_result_batch.results[i]))
                return 0;
        return 1;
    case SWEEP_MSG_COLLIDE:
        return sample__veq(a->as.collide.position, b->as.collide.position) &&
               sample__veq(a->as.collide.radii, b->as.collide.radii) &&
               sample__veq(a->as.collide.velocity, b->as.collide.velocity) &&
               sample__deq(a->as.collide.dt, b->as.collide.dt) &&
               a->as.collide.grounded == b->as.collide.grounded;
    case SWEEP_MSG_COLLIDE_RESULT: {
        const sweep_msg_collide_result *x = &a->as.collide_result, *y = &b->as.collide_result;
        return sample__veq(x->position, y->position) && sample__veq(x->velocity, y->velocity) &&
               x->grounded == y->grounded && sample__veq(x->ground_normal, y->ground_normal) &&
               x->ground_material == y->ground_material && x->contact_count == y->contact_count &&
               sample__contacts_eq(x->contacts, y->contacts, x->contact_count) &&
               x->ground_mover == y->ground_mover;
    }
    case SWEEP_MSG_WORLD_STATE:
        if (a->as.world_state.tick != b->as.world_state.tick ||
            a->as.world_state.count != b->as.world_state.count ||
            a->as.world_state.mover_count != b->as.world_state.mover_count)
            return 0;
        for (uint32_t i = 0; i < a->as.world_state.count; i++) {
            const sweep_wire_mover *x = &a->as.world_state.movers[i], *y = &b->as.world_state.movers[i];
            if (x->id != y->id || x->flags != y->flags || !sample__veq(x->position, y->position))
                return 0;
            for (int k = 0; k < 4; k++)
                if (!sample__deq(x->rotation[k], y->rotation[k]))
                    return 0;
        }
        return 1;
    case SWEEP_MSG_PING:
        return a->as.ping.client_time == b->as.ping.client_time;
    case SWEEP_MSG_PONG:
        return a->as.pong.client_time == b->as.pong.client_time &&
               a->as.pong.server_time == b->as.pong.server_time;
    case SWEEP_MSG_GET_STATS:
        return 1;
    case SWEEP_MSG_STATS: {
        const sweep_msg_stats *x = &a->as.stats, *y = &b->as.stats;
        if (x->worlds_count != y->worlds_count || x->worlds_open != y->worlds_open)
            return 0;
        for (uint32_t i = 0; i < x->worlds_count; i++)
            if (!sample__world_info_eq(&x->worlds[i], &y->worlds[i]))
                return 0;
        return x->sessions == y->sessions && x->entities == y->entities && x->moves_total == y->moves_total &&
               x->errors_total == y->errors_total && x->tick_ns_p50 == y->tick_ns_p50 &&
               x->tick_ns_p99 == y->tick_ns_p99 && x->movers == y->movers && x->crushed_total == y->crushed_total &&
               x->rules_total_count == y->rules_total_count && x->session_rules_count == y->session_rules_count &&
               (x->rules_total_count == 0 ||
                memcmp(x->rules_total, y->rules_total, x->rules_total_count * sizeof x->rules_total[0]) == 0) &&
               (x->session_rules_count == 0 ||
                memcmp(x->session_rules, y->session_rules, x->session_rules_count * sizeof x->session_rules[0]) == 0) &&
               x->errors_by_code_count == y->errors_by_code_count &&
               (x->errors_by_code_count == 0 ||
                memcmp(x->errors_by_code, y->errors_by_code, x->errors_by_code_count * sizeof x->errors_by_code[0]) ==
                    0) &&
               x->tcp_bytes_in == y->tcp_bytes_in && x->tcp_bytes_out == y->tcp_bytes_out &&
               x->udp_bytes_in == y->udp_bytes_in && x->udp_bytes_out == y->udp_bytes_out &&
               x->udp_dropped == y->udp_dropped && x->ticks_total == y->ticks_total &&
               x->tick_ns_total == y->tick_ns_total && x->move_ns_total == y->move_ns_total;
    }
    case SWEEP_MSG_ERROR:
        return a->as.error.code == b->as.error.code &&
               sample__streq(a->as.error.message, b->as.error.message) &&
               a->as.error.sequence == b->as.error.sequence && a->as.error.entity == b->as.error.entity;
    case SWEEP_MSG_BYE:
        return sample__streq(a->as.bye.reason, b->as.bye.reason);
    case SWEEP_MSG_CHALLENGE:
        return sample__byteseq(a->as.challenge.cookie, b->as.challenge.cookie);
    case SWEEP_MSG_WATCH_WORLD:
        return a->as.watch_world.every == b->as.watch_world.every;
    case SWEEP_MSG_MOVER_COMMAND:
        return sample__streq(a->as.mover_command.mover, b->as.mover_command.mover);
    case SWEEP_MSG_MOVER_COMMANDED:
        return a->as.mover_commanded.mover == b->as.mover_commanded.mover &&
               a->as.mover_commanded.tick == b->as.mover_commanded.tick;
    case SWEEP_MSG_ENTITY_COMMANDS:
        if (a->as.entity_commands.count != b->as.entity_commands.count)
            return 0;
        for (uint32_t i = 0; i < a->as.entity_commands.count; i++) {
            const sweep_msg_entity_command *x = &a->as.entity_commands.commands[i];
            const sweep_msg_entity_command *y = &b->as.entity_commands.commands[i];
            if (x->entity != y->entity || x->op != y->op || !sample__veq(x->vector, y->vector) ||
                x->shape_count != y->shape_count)
                return 0;
            for (uint32_t k = 0; k < x->shape_count; k++)
                if (x->shapes[k].id != y->shapes[k].id || x->shapes[k].kind != y->shapes[k].kind ||
                    !sample__veq(x->shapes[k].a, y->shapes[k].a) || !sample__veq(x->shapes[k].b, y->shapes[k].b) ||
                    !sample__veq(x->shapes[k].radii, y->shapes[k].radii))
                    return 0;
        }
        return 1;
    case SWEEP_MSG_ENTITY_COMMANDS_RESULT:
        if (a->as.entity_commands_result.count != b->as.entity_commands_result.count)
            return 0;
        for (uint32_t i = 0; i < a->as.entity_commands_result.count; i++)
            if (!sample__command_result_eq(&a->as.entity_commands_result.results[i],
                                           &b->as.entity_commands_result.results[i]))
                return 0;
        return 1;
    case SWEEP_MSG_WATCH_ENTITIES:
        return a->as.watch_entities.every == b->as.watch_entities.every;
    case SWEEP_MSG_ENTITY_STATES:
        if (a->as.entity_states.tick != b->as.entity_states.tick ||
            a->as.entity_states.count != b->as.entity_states.count ||
            a->as.entity_states.entity_count != b->as.entity_states.entity_count)
            return 0;
        for (uint32_t i = 0; i < a->as.entity_states.count; i++)
            if (!sample__entity_state_eq(&a->as.entity_states.entities[i], &b->as.entity_states.entities[i]))
                return 0;
        return 1;
    case SWEEP_MSG_GET_ENTITY:
        return a->as.get_entity.entity == b->as.get_entity.entity;
    case SWEEP_MSG_OPEN_WORLD:
        return sample__streq(a->as.open_world.map, b->as.open_world.map) &&
               sample__streq(a->as.open_world.name, b->as.open_world.name);
    case SWEEP_MSG_WORLD_OPENED:
        return a->as.world_opened.world == b->as.world_opened.world &&
               sample__streq(a->as.world_opened.name, b->as.world_opened.name) &&
               sample__byteseq(a->as.world_opened.map_hash, b->as.world_opened.map_hash);
    case SWEEP_MSG_CLOSE_WORLD:
        return a->as.close_world.world == b->as.close_world.world;
    case SWEEP_MSG_WORLD_CLOSED:
        return a->as.world_closed.world == b->as.world_closed.world &&
               sample__streq(a->as.world_closed.reason, b->as.world_closed.reason);
    case SWEEP_MSG_QUERY:
        if (a->as.query.count != b->as.query.count)
            return 0;
        for (uint32_t i = 0; i < a->as.query.count; i++) {
            const sweep_msg_query_item *x = &a->as.query.items[i], *y = &b->as.query.items[i];
            if (x->kind != y->kind || !sample__veq(x->from, y->from) || !sample__veq(x->to, y->to) ||
                x->from_entity != y->from_entity || x->to_entity != y->to_entity || !sample__veq(x->radii, y->radii) ||
                !sample__deq(x->radius, y->radius) || x->tick != y->tick || !sample__deq(x->fraction, y->fraction) ||
                x->filter != y->filter || x->max_hits != y->max_hits || x->ignore_count != y->ignore_count)
                return 0;
            for (uint32_t k = 0; k < x->ignore_count; k++)
                if (x->ignore[k] != y->ignore[k])
                    return 0;
        }
        return 1;
    case SWEEP_MSG_QUERY_RESULT:
        if (a->as.query_result.count != b->as.query_result.count ||
            a->as.query_result.first != b->as.query_result.first)
            return 0;
        for (uint32_t i = 0; i < a->as.query_result.count; i++) {
            const sweep_msg_query_answer *x = &a->as.query_result.answers[i], *y = &b->as.query_result.answers[i];
            if (x->code != y->code || !sample__streq(x->message, y->message) || x->tick != y->tick ||
                !sample__deq(x->fraction, y->fraction) || x->flags != y->flags || x->hit_count != y->hit_count)
                return 0;
            for (uint32_t k = 0; k < x->hit_count; k++) {
                const sweep_wire_query_hit *p = &x->hits[k], *q = &y->hits[k];
                if (p->kind != q->kind || p->triangle != q->triangle || p->material != q->material ||
                    p->mover != q->mover || p->entity != q->entity || p->shape != q->shape ||
                    !sample__deq(p->fraction, q->fraction) || !sample__deq(p->distance, q->distance) ||
                    !sample__veq(p->point, q->point) || !sample__veq(p->normal, q->normal))
                    return 0;
            }
        }
        return 1;
    default:
        return 0;
    }
}

#endif
