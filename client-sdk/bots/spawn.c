/*
 * spawn.c - connecting a bot of `sweep-bots` (with the token it is given,
 * one minted for it, or a forger's) and spawning its player as its mode
 * asks: once when a run is set up, and again after a mover crushed it,
 * never per move, so none of it is on the run's path.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include "client-sdk/bots/bots.h"
#include "protocol/token.h"

/* --- connecting and spawning ------------------------------------------------------------ */

/* A token of role server for `identity`, signed with a key nobody else has:
 * what a cheater who knows the format but not the secret can make. */
static void forged_token(char *out, size_t cap, uint32_t index)
{
    uint8_t key[32];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(0xA5 ^ (i * 7) ^ index);
    char id[32];
    snprintf(id, sizeof id, "eve-%u", index);
    if (sweep_token_make(key, sizeof key, SWEEP_WIRE_ROLE_SERVER, id, (uint64_t)time(NULL) + 3600, out, cap) !=
        SWEEP_TOKEN_OK)
        snprintf(out, cap, "sweep1:server:%s:4000000000:%064d", id, 0);
}

int sweep__bots_connect_bot(const options *o, const char *address, const uint8_t *secret, size_t secret_len, bot *b,
                            totals *t)
{
    sweep_client_options co;
    sweep_client_options_init(&co);
    co.transport = o->udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
    co.address = address;
    co.client_name = "sweep-bots";
    co.world = o->world;
    co.timeout_ms = 10000;
    co.auth_token = o->token;
    /* Through the bad-network relay (netem.c), which forwards to the one
     * port it was given: the session's own port would bypass it. */
    co.udp_keep_port = address != o->connect;
    char token[SWEEP_TOKEN_MAX + 1];
    sweep_client_error e;
    if (b->mode == MODE_FORGE) {
        forged_token(token, sizeof token, b->index);
        co.auth_token = token;
        sweep_client_status s = sweep_client_connect(&co, &b->c, &e);
        if (s == SWEEP_CLIENT_OK) {
            /* Taken (a server without roles takes any token): go on as it is. */
            const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
            t->m[b->mode].role_server += w->has_roles && w->role == SWEEP_WIRE_ROLE_SERVER;
            t->m[b->mode].roles_seen |= w->has_roles;
            return 0;
        }
        if (s != SWEEP_CLIENT_E_SERVER) {
            fprintf(stderr, "sweep-bots: bot %u: connect: %s: %s\n", b->index, sweep_client_error_name(&e), e.message);
            return -1;
        }
        t->m[b->mode].refused_hellos++;
        count_error(&t->m[b->mode], e.code);
        co.auth_token = o->token;
    }
    if (secret) {
        char id[32];
        snprintf(id, sizeof id, "bot-%u", b->index);
        if (sweep_token_make(secret, secret_len, SWEEP_WIRE_ROLE_PLAYER, id, (uint64_t)time(NULL) + 86400, token,
                             sizeof token) != SWEEP_TOKEN_OK) {
            fprintf(stderr, "sweep-bots: cannot mint a token with --secret-file\n");
            return -1;
        }
        co.auth_token = token;
    }
    if (sweep_client_connect(&co, &b->c, &e) != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: bot %u: connect: %s: %s\n", b->index, sweep_client_error_name(&e), e.message);
        return -1;
    }
    const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
    t->m[b->mode].role_server += w->has_roles && w->role == SWEEP_WIRE_ROLE_SERVER;
    t->m[b->mode].roles_seen |= w->has_roles;
    return 0;
}

sweep_client_status sweep__bots_spawn_load(bot *b, uint32_t point, sweep_vec3 at, sweep_vec3 radii,
                                          sweep_msg_spawned *sp, sweep_client_error *e)
{
    const sweep_client_welcome *w = sweep_client_get_welcome(b->c);
    if (w->has_roles && w->role == SWEEP_WIRE_ROLE_PLAYER)
        return sweep_client_spawn_player(b->c, point, sp, e);
    return sweep_client_spawn(b->c, at, radii, sp, e);
}

int sweep__bots_spawn_player(const options *o, const map_info *mi, bot *b, totals *t)
{
    const sweep_level *lv = &mi->lv;
    mode_totals *mt = &t->m[b->mode];
    /* The server picks the spawn point (the next free one: with players
     * blocking, an occupied one is skipped); a server older than roles
     * would put a spawn point 0 at the origin, so it is given one in turn. */
    uint32_t point = 0;
    if (!sweep_client_get_welcome(b->c)->has_roles && lv->spawn_count)
        point = b->index % lv->spawn_count + 1;
    sweep_msg_spawned sp;
    sweep_client_error e;
    sweep_client_status s;
    sweep_vec3 asked_pos = point ? lv->spawns[point - 1] : sweep_v3(0, 0, 0), asked_radii = lv->default_radii;
    if (b->mode == MODE_SPAWN_ANYWHERE) {
        asked_pos = o->has_target ? o->target
                                  : sweep_v3_madd(lv->spawn_count ? lv->spawns[0] : sweep_v3(0, 0, 0), mi->up, 8.0);
        s = sweep_client_spawn(b->c, asked_pos, sweep_v3(0, 0, 0), &sp, &e);
    } else if (b->mode == MODE_SHRINK) {
        asked_radii = sweep_v3_scale(lv->default_radii, SHRINK_FACTOR);
        s = point ? sweep_client_spawn_at_point(b->c, point, asked_radii, &sp, &e)
                  : sweep_client_spawn(b->c, sweep_v3(0, 0, 0), asked_radii, &sp, &e);
    } else {
        s = sweep_client_spawn_player(b->c, point, &sp, &e);
    }
    if (s != SWEEP_CLIENT_OK) {
        fprintf(stderr, "sweep-bots: bot %u (%s): spawn: %s: %s\n", b->index, sweep__bots_mode_names[b->mode],
                sweep_client_error_name(&e), e.message);
        return -1;
    }
    for (unsigned i = 0; i < 32; i++)
        if (sp.rules & (1u << i))
            mt->spawn_rules[i]++;
    double off = sweep_v3_len(sweep_v3_sub(sp.position, asked_pos));
    if (b->mode == MODE_SPAWN_ANYWHERE && off > mt->spawn_offset)
        mt->spawn_offset = off;
    /* Volume got against the map's player: below 1, a smaller target. */
    sweep_vec3 r0 = lv->default_radii;
    double ratio = (sp.radii.x * sp.radii.y * sp.radii.z) / (r0.x * r0.y * r0.z);
    if (mt->radii_ratio == 0 || ratio < mt->radii_ratio)
        mt->radii_ratio = ratio;
    (void)asked_radii;
    b->entity = sp.entity;
    b->spawn = sp.position;
    b->origin = sp.spawn_point && sp.spawn_point <= lv->spawn_count ? lv->spawns[sp.spawn_point - 1]
                : point                                              ? lv->spawns[point - 1]
                                                                     : sp.position;
    b->radii = sp.radii;
    b->last_pos = sp.position;
    b->last_seq = 0;
    b->track_n = 0;
    b->grounded_run = 0;
    sweep_predictor_destroy(b->pred);
    b->pred = NULL;
    b->predicting = 0;
    if (b->mode == MODE_HONEST) {
        if (sweep_predictor_create(mi->world, &lv->config, &lv->rules, sp.position, sp.radii, &b->pred, &e) !=
            SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: prediction: %s\n", b->index, e.message);
            return -1;
        }
        b->predicting = 1;
    }
    return 0;
}
