/*
 * commands.c - `sweep`'s commands but move (move.c) and ping (main.c),
 * each short: a request, or watch's stream, and the printing of what comes
 * back. `sweep watch` prints the movers' poses the server pushes (one
 * record per tick, the parts of a split UDP WorldState put together),
 * `sweep command` fires a mover's trigger and `sweep entity` teleports,
 * pushes, reshapes or despawns any entity of the world, printing each
 * command's result (both for a session of the server role: --token),
 * `sweep query` asks the world questions, `sweep stats` asks a server for
 * its counters, and `sweep token` mints an identity token
 * (protocol/token.h) from the server's secret file, without a server.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client-sdk/sweep-cli/cli.h"
#include "protocol/token.h"

/* --- watch ---------------------------------------------------------------------- */

/* One tick's movers, put together from the parts of a split UDP WorldState. */
typedef struct tick_view {
    uint64_t tick;
    uint32_t mover_count, have, cap;
    sweep_wire_mover *movers;
    int open;    /* a tick is being collected */
    uint32_t printed;
} tick_view;

static const char *mover_name(const local_map *m, uint32_t id)
{
    uint32_t i = m->loaded ? sweep_predict_mover_index(&m->lv, id) : SWEEP_NO_MOVER;
    return i == SWEEP_NO_MOVER ? NULL : m->lv.movers[i].name;
}

static void print_tick(const options *o, const local_map *m, const tick_view *v)
{
    int partial = v->have < v->mover_count;
    if (o->json) {
        printf("{\"tick\":%" PRIu64 ",\"mover_count\":%" PRIu32 ",", v->tick, v->mover_count);
        if (partial)
            printf("\"partial\":true,");
        printf("\"movers\":[");
    } else {
        printf("tick=%" PRIu64 " movers=%" PRIu32, v->tick, v->mover_count);
        if (partial)
            printf(" partial=%" PRIu32, v->have);
        printf("\n");
    }
    for (uint32_t i = 0; i < v->have; i++) {
        const sweep_wire_mover *w = &v->movers[i];
        const char *name = mover_name(m, w->id);
        if (o->json) {
            printf("%s{\"id\":%" PRIu32, i ? "," : "", w->id);
            if (name) {
                printf(",\"name\":");
                sweep__cli_print_str(o, name);
            }
            printf(",\"position\":");
        } else {
            printf("  mover id=%" PRIu32, w->id);
            if (name)
                printf(" name=%s", name);
            printf(" position=");
        }
        sweep__cli_print_vec(o, w->position);
        printf(o->json ? ",\"rotation\":" : " rotation=");
        sweep__cli_print_nums(o, w->rotation, 4);
        printf(o->json ? ",\"flags\":%" PRIu32 "}" : " flags=%" PRIu32 "\n", w->flags);
    }
    if (o->json)
        printf("]}\n");
    fflush(stdout);
}

/* Takes one WorldState (or part); prints every tick that is complete, or
 * left incomplete by a newer one. Returns -1 when out of memory. */
static int take_world_state(const options *o, const local_map *m, tick_view *v, const sweep_msg_world_state *ws)
{
    if (v->open && ws->tick < v->tick)
        return 0; /* a late part of a tick already printed or given up */
    if (v->open && ws->tick > v->tick) {
        print_tick(o, m, v); /* its missing parts were lost */
        v->printed++;
        v->open = 0;
    }
    if (!v->open) {
        v->open = 1;
        v->tick = ws->tick;
        v->have = 0;
    }
    v->mover_count = ws->mover_count;
    if (v->have + ws->count > v->cap) {
        uint32_t cap = v->have + ws->count;
        sweep_wire_mover *n = realloc(v->movers, (size_t)cap * sizeof *n);
        if (n == NULL)
            return -1;
        v->movers = n;
        v->cap = cap;
    }
    if (ws->count)
        memcpy(v->movers + v->have, ws->movers, (size_t)ws->count * sizeof *ws->movers);
    v->have += ws->count;
    if (v->have >= v->mover_count) {
        print_tick(o, m, v);
        v->printed++;
        v->open = 0;
    }
    return 0;
}

int sweep__cli_watch(const options *o, sweep_client *c, const local_map *m)
{
    sweep_client_error e;
    sweep_msg_world_state first;
    if (sweep_client_watch_world(c, o->every, &first, &e) != SWEEP_CLIENT_OK)
        return sweep__cli_report(o, &e);
    tick_view v = {0};
    int rc = 0;
    uint64_t limit = o->has_count ? o->count : UINT64_MAX;
    if (take_world_state(o, m, &v, &first) < 0)
        rc = sweep__cli_report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
    /* A silent client is dropped by the server after its idle timeout
     * (--udp-idle-timeout, --idle-timeout over TCP): a ping now and then
     * keeps the session, and a ping unanswered within --timeout is a
     * server gone silent (its WorldStates may be rare, --every). */
    uint64_t next_ping = sweep_client_now_ns() + 5000000000u;
    while (rc == 0 && v.printed < limit) {
        sweep_client_event ev;
        sweep_client_status s = sweep_client_poll(c, 1000, &ev, &e);
        if (s == SWEEP_CLIENT_OK && ev.kind == SWEEP_CLIENT_EV_WORLD_STATE) {
            if (take_world_state(o, m, &v, &ev.as.world_state) < 0)
                rc = sweep__cli_report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
        } else if (s == SWEEP_CLIENT_OK && (ev.kind == SWEEP_CLIENT_EV_ERROR || ev.kind == SWEEP_CLIENT_EV_BYE)) {
            rc = sweep__cli_report(o, &ev.as.error);
        } else if (s != SWEEP_CLIENT_OK && s != SWEEP_CLIENT_E_TIMEOUT) {
            rc = sweep__cli_report(o, &e);
        }
        if (rc == 0 && sweep_client_now_ns() >= next_ping) {
            uint64_t rtt;
            if (sweep_client_ping(c, &rtt, &e) != SWEEP_CLIENT_OK)
                rc = sweep__cli_report(o, &e);
            next_ping = sweep_client_now_ns() + 5000000000u;
        }
    }
    free(v.movers);
    return rc;
}

/* --- stats and tokens ------------------------------------------------------------ */

/* One Stats rule vector: "Speed:3,Jump:0,..." or a JSON object. */
static void print_rule_counts(const options *o, const uint64_t *v, uint32_t n)
{
    printf(o->json ? "{" : "");
    for (uint32_t i = 0; i < n && i < SWEEP_WIRE_RULE_SLOTS; i++) {
        const char *name = sweep_wire_rule_name(i);
        char unknown[16];
        if (strcmp(name, "Unknown") == 0) {
            snprintf(unknown, sizeof unknown, "Bit%u", i);
            name = unknown;
        }
        printf(o->json ? "%s\"%s\":%" PRIu64 : "%s%s:%" PRIu64, i ? "," : "", name, v[i]);
    }
    printf(o->json ? "}" : "");
}

/* Stats.errors_by_code: "BadDt:3,RateLimited:1" (codes that counted
 * something; "none") or a JSON object of every code the server sent. */
static void print_error_counts(const options *o, const uint64_t *v, uint32_t n)
{
    int any = 0;
    printf(o->json ? "{" : "");
    for (uint32_t i = 0; i < n && i < SWEEP_WIRE_CODE_SLOTS; i++) {
        if (!o->json && v[i] == 0)
            continue;
        const char *name = sweep_wire_code_name((sweep_wire_code)i);
        char unknown[16];
        if (strcmp(name, "Unknown") == 0) {
            snprintf(unknown, sizeof unknown, "Code%u", i);
            name = unknown;
        }
        printf(o->json ? "%s\"%s\":%" PRIu64 : "%s%s:%" PRIu64, any ? "," : "", name, v[i]);
        any = 1;
    }
    printf(o->json ? "}" : any ? "" : "none");
}

/* A string of the message as sweep__cli_print_str prints it. */
static void print_wire_str(const options *o, sweep_str s)
{
    char text[1024];
    uint32_t n = s.ptr ? (s.len < sizeof text ? s.len : (uint32_t)sizeof text - 1) : 0;
    if (n)
        memcpy(text, s.ptr, n);
    text[n] = '\0';
    sweep__cli_print_str(o, text);
}

/* Stats.worlds: in JSON a "worlds" array after "worlds_open"; as text a
 * line a world after the counters' line. */
static void print_worlds(const options *o, const sweep_msg_stats *st)
{
    printf(o->json ? ",\"worlds_open\":%" PRIu32 ",\"worlds\":[" : "", st->worlds_open);
    for (uint32_t i = 0; i < st->worlds_count; i++) {
        const sweep_wire_world_info *w = &st->worlds[i];
        printf(o->json ? "%s{\"world\":%" PRIu32 ",\"name\":" : "%sworld=%" PRIu32 " name=", o->json && i ? "," : "",
               w->world);
        print_wire_str(o, w->name);
        printf(o->json ? ",\"map\":" : " map=");
        print_wire_str(o, w->map);
        printf(o->json ? ",\"sessions\":%" PRIu32 ",\"entities\":%" PRIu32 ",\"triangles\":%" PRIu32
                         ",\"tick\":%" PRIu64 "}"
                       : " sessions=%" PRIu32 " entities=%" PRIu32 " triangles=%" PRIu32 " tick=%" PRIu64 "\n",
               w->sessions, w->entities, w->triangles, w->tick);
    }
    printf(o->json ? "]}\n" : "");
}

void sweep__cli_print_stats(const options *o, const sweep_msg_stats *st)
{
    printf(o->json ? "{\"sessions\":%" PRIu32 ",\"entities\":%" PRIu32 ",\"moves_total\":%" PRIu64
                     ",\"errors_total\":%" PRIu64 ",\"tick_ns_p50\":%" PRIu64 ",\"tick_ns_p99\":%" PRIu64
                     ",\"movers\":%" PRIu32 ",\"crushed_total\":%" PRIu64 ",\"rules_total\":"
                   : "sessions=%" PRIu32 " entities=%" PRIu32 " moves_total=%" PRIu64 " errors_total=%" PRIu64
                     " tick_ns_p50=%" PRIu64 " tick_ns_p99=%" PRIu64 " movers=%" PRIu32 " crushed_total=%" PRIu64
                     " rules_total=",
           st->sessions, st->entities, st->moves_total, st->errors_total, st->tick_ns_p50, st->tick_ns_p99,
           st->movers, st->crushed_total);
    print_rule_counts(o, st->rules_total, st->rules_total_count);
    printf(o->json ? ",\"session_rules\":" : " session_rules=");
    print_rule_counts(o, st->session_rules, st->session_rules_count);
    printf(o->json ? ",\"errors_by_code\":" : " errors_by_code=");
    print_error_counts(o, st->errors_by_code, st->errors_by_code_count);
    printf(o->json ? ",\"tcp_bytes_in\":%" PRIu64 ",\"tcp_bytes_out\":%" PRIu64 ",\"udp_bytes_in\":%" PRIu64
                     ",\"udp_bytes_out\":%" PRIu64 ",\"udp_dropped\":%" PRIu64 ",\"ticks_total\":%" PRIu64
                     ",\"tick_ns_total\":%" PRIu64 ",\"move_ns_total\":%" PRIu64
                   : " tcp_bytes_in=%" PRIu64 " tcp_bytes_out=%" PRIu64 " udp_bytes_in=%" PRIu64
                     " udp_bytes_out=%" PRIu64 " udp_dropped=%" PRIu64 " ticks_total=%" PRIu64
                     " tick_ns_total=%" PRIu64 " move_ns_total=%" PRIu64 " worlds_open=%" PRIu32 "\n",
           st->tcp_bytes_in, st->tcp_bytes_out, st->udp_bytes_in, st->udp_bytes_out, st->udp_dropped,
           st->ticks_total, st->tick_ns_total, st->move_ns_total, st->worlds_open);
    print_worlds(o, st);
}

/* `sweep token`: mints a token with the secret of --secret-file. */
int sweep__cli_mint_token(const options *o)
{
    uint8_t secret[SWEEP_TOKEN_SECRET_MAX];
    size_t len = 0;
    int loose = 0;
    char err[512];
    if (sweep_token_secret_read(o->secret_file, secret, &len, &loose, err, sizeof err) != 0)
        return sweep__cli_report_msg(o, SWEEP_CLIENT_E_ARG, "%s", err);
    if (loose)
        fprintf(stderr, "sweep: warning: %s can be read by others; anyone who reads it can mint any token\n",
                o->secret_file);
    uint32_t role = strcmp(o->role, "server") == 0 ? SWEEP_WIRE_ROLE_SERVER : SWEEP_WIRE_ROLE_PLAYER;
    uint64_t now = (uint64_t)time(NULL);
    char token[SWEEP_TOKEN_MAX + 1];
    sweep_token_status ts = sweep_token_make(secret, len, role, o->identity, now + o->ttl, token, sizeof token);
    memset(secret, 0, sizeof secret);
    if (ts != SWEEP_TOKEN_OK)
        return sweep__cli_report_msg(o, SWEEP_CLIENT_E_ARG, "cannot make the token: %s",
                                     sweep_token_status_message(ts));
    if (o->json) {
        printf("{\"token\":");
        sweep__cli_print_str(o, token);
        printf(",\"role\":\"%s\",\"identity\":", o->role);
        sweep__cli_print_str(o, o->identity);
        printf(",\"expiry\":%" PRIu64 "}\n", now + o->ttl);
    } else {
        printf("%s\n", token);
    }
    return 0;
}

/* --- commands and queries ------------------------------------------------------- */

int sweep__cli_mover_command(const options *o, sweep_client *c)
{
    sweep_client_error e;
    sweep_msg_mover_commanded mc;
    if (sweep_client_mover_command(c, o->mover, &mc, &e) != SWEEP_CLIENT_OK)
        return sweep__cli_report(o, &e);
    if (o->json) {
        printf("{\"commanded\":");
        sweep__cli_print_str(o, o->mover);
        printf(",\"mover\":%" PRIu32 ",\"tick\":%" PRIu64 "}\n", mc.mover, mc.tick);
    } else {
        printf("commanded mover=%" PRIu32 " name=%s tick=%" PRIu64 "\n", mc.mover, o->mover, mc.tick);
    }
    return 0;
}

/* ,"name":[x,y,z] in JSON, name=(x, y, z) in text. */
static void print_field_vec(const options *o, const char *name, sweep_vec3 v)
{
    printf(o->json ? ",\"%s\":" : " %s=", name);
    sweep__cli_print_vec(o, v);
}

/* One command's result: what was asked, what came of it. */
static void print_command_result(const options *o, uint32_t i, const sweep_msg_entity_command_result *r)
{
    const char *code = sweep_wire_code_name(r->code);
    const char *op = sweep_wire_entity_op_name(r->op);
    const char *text = r->message.ptr ? r->message.ptr : "";
    if (o->json) {
        printf("{\"command\":%" PRIu32 ",\"entity\":%" PRIu32 ",\"op\":", i, r->entity);
        sweep__cli_print_str(o, op);
        printf(",\"result\":");
        sweep__cli_print_str(o, code);
    } else {
        printf("command %" PRIu32 " entity=%" PRIu32 " op=%s result=%s", i, r->entity, op, code);
    }
    if (r->has_state) {
        print_field_vec(o, "position", r->position);
        print_field_vec(o, "velocity", r->velocity);
        print_field_vec(o, "radii", r->radii);
    }
    int pushed = (r->flags & SWEEP_WIRE_COMMAND_PUSHED_OUT) != 0;
    if (o->json)
        printf(",\"pushed_out\":%s", pushed ? "true" : "false");
    else if (pushed)
        printf(" pushed_out=1");
    if (r->code != SWEEP_WIRE_NONE) {
        printf(o->json ? ",\"message\":" : " message=");
        sweep__cli_print_str(o, text);
    }
    printf(o->json ? "}\n" : "\n");
}

/* `sweep entity`: the commands in one EntityCommands (several when more
 * than the server takes at once), each result printed. */
int sweep__cli_entity_commands(const options *o, sweep_client *c)
{
    sweep_msg_entity_command_result *out = calloc(o->ncommands, sizeof *out);
    if (out == NULL)
        return sweep__cli_report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
    sweep_client_error e;
    int rc = 0;
    if (sweep_client_entity_commands(c, o->commands, o->ncommands, out, &e) != SWEEP_CLIENT_OK) {
        rc = sweep__cli_report(o, &e);
    } else {
        for (uint32_t i = 0; i < o->ncommands; i++) {
            print_command_result(o, i, &out[i]);
            if (out[i].code != SWEEP_WIRE_NONE) {
                fprintf(stderr, "sweep: command %" PRIu32 " (%s %" PRIu32 ") refused: %s: %s\n", i,
                        sweep_wire_entity_op_name(out[i].op), out[i].entity, sweep_wire_code_name(out[i].code),
                        out[i].message.ptr ? out[i].message.ptr : "");
                rc = 1;
            }
        }
        fflush(stdout);
    }
    free(out);
    return rc;
}

static const char *const hit_kinds[] = {"none", "level", "mover", "entity"};

/* One item's answer: what was asked, what it met. */
static void print_answer(const options *o, uint32_t i, const sweep_msg_query_item *q, const sweep_msg_query_answer *a)
{
    const char *code = sweep_wire_code_name(a->code);
    const char *kind = sweep_wire_query_kind_name(q->kind);
    if (o->json) {
        printf("{\"item\":%" PRIu32 ",\"kind\":", i);
        sweep__cli_print_str(o, kind);
        printf(",\"result\":");
        sweep__cli_print_str(o, code);
        printf(",\"tick\":%" PRIu64 ",\"fraction\":", a->tick);
        sweep__cli_print_num(a->fraction);
    } else {
        printf("item %" PRIu32 " kind=%s result=%s tick=%" PRIu64 " fraction=", i, kind, code, a->tick);
        sweep__cli_print_num(a->fraction);
    }
    if (a->code != SWEEP_WIRE_NONE) {
        printf(o->json ? ",\"message\":" : " message=");
        sweep__cli_print_str(o, a->message.ptr ? a->message.ptr : "");
        printf(o->json ? "}\n" : "\n");
        return;
    }
    if (q->kind == SWEEP_WIRE_QUERY_LINE_OF_SIGHT)
        printf(o->json ? ",\"clear\":%s" : " clear=%s", (a->flags & SWEEP_WIRE_QUERY_CLEAR) ? "true" : "false");
    if (a->flags & SWEEP_WIRE_QUERY_MORE)
        printf(o->json ? ",\"more\":true" : " more=true");
    printf(o->json ? ",\"hits\":[" : " hits=%" PRIu32 "\n", a->hit_count);
    for (uint32_t k = 0; k < a->hit_count; k++) {
        const sweep_wire_query_hit *h = &a->hits[k];
        const char *what = h->kind < 4 ? hit_kinds[h->kind] : "?";
        if (o->json) {
            printf("%s{\"what\":\"%s\",\"triangle\":%" PRIu32 ",\"material\":%" PRIu32 ",\"mover\":%" PRIu32
                   ",\"entity\":%" PRIu32 ",\"shape\":%" PRIu32 ",\"fraction\":",
                   k ? "," : "", what, h->triangle, h->material, h->mover, h->entity, h->shape);
            sweep__cli_print_num(h->fraction);
            printf(",\"distance\":");
            sweep__cli_print_num(h->distance);
        } else {
            printf("  hit %s triangle=%" PRIu32 " material=%" PRIu32 " mover=%" PRIu32 " entity=%" PRIu32
                   " shape=%" PRIu32 " fraction=", what, h->triangle, h->material, h->mover, h->entity, h->shape);
            sweep__cli_print_num(h->fraction);
            printf(" distance=");
            sweep__cli_print_num(h->distance);
        }
        print_field_vec(o, "point", h->point);
        print_field_vec(o, "normal", h->normal);
        printf(o->json ? "}" : "\n");
    }
    if (o->json)
        printf("]}\n");
}

/* `sweep query`: the items in one Query (several when more than the
 * server takes at once), each answer printed. */
int sweep__cli_query(const options *o, sweep_client *c)
{
    sweep_msg_query_answer *out = calloc(o->nitems, sizeof *out);
    if (out == NULL)
        return sweep__cli_report_msg(o, SWEEP_CLIENT_E_NOMEM, "%s", "out of memory");
    sweep_client_error e;
    int rc = 0;
    if (sweep_client_query(c, o->items, o->nitems, out, &e) != SWEEP_CLIENT_OK) {
        rc = sweep__cli_report(o, &e);
    } else {
        for (uint32_t i = 0; i < o->nitems; i++) {
            print_answer(o, i, &o->items[i], &out[i]);
            if (out[i].code != SWEEP_WIRE_NONE) {
                fprintf(stderr, "sweep: item %" PRIu32 " (%s) refused: %s: %s\n", i,
                        sweep_wire_query_kind_name(o->items[i].kind), sweep_wire_code_name(out[i].code),
                        out[i].message.ptr ? out[i].message.ptr : "");
                rc = 1;
            }
        }
        fflush(stdout);
    }
    free(out);
    return rc;
}
