/*
 * interop_tool.c - the C side of the interop test (interop.sh): writes the
 * codec's sample messages as buffers, prints any buffer it decodes as
 * canonical JSON, and re-encodes buffers that came from another runtime.
 *
 * Canonical JSON is what both sides (this tool and interop.py, over the
 * official Python runtime) print for a message, so values are compared,
 * never bytes: keys sorted, one line; doubles as the hex of their 64 bits
 * (exact, NaN and -0.0 included), strings and byte vectors as hex of their
 * bytes, absent strings/vectors/optional structs as null, batches as lists.
 *
 *   interop_tool emit DIR          c_NN.bin, c_NN.sp.bin (size-prefixed), c_NN.json
 *   interop_tool dump FILE [sp]    verify + decode, print canonical JSON
 *   interop_tool reencode IN OUT [sp]   decode IN, encode it again into OUT
 *                                      (OUT size-prefixed iff sp, like IN)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samples.h"

static sweep_msg_move moves[4096];
static sweep_msg_move_result results[4096];
static sweep_wire_mover movers[4096];
static sweep_msg_entity_command commands[4096];
static sweep_msg_entity_command_result command_results[4096];
static sweep_wire_entity_state entity_states[4096];
static sweep_wire_world_info worlds[4096];
static sweep_msg_query_item query_items[4096];
static sweep_msg_query_answer query_answers[4096];
static sweep_wire_query_hit query_hits[16384];
static uint32_t query_ignore[65536];
static sweep_wire_hit_shape hit_shapes[16384];
static uint8_t in_buf[1 << 20];
static uint8_t out_buf[1 << 20];

static void dbl(FILE *o, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    fprintf(o, "\"0x%016llx\"", (unsigned long long)u);
}

static void vec(FILE *o, sweep_vec3 v)
{
    fputc('[', o);
    dbl(o, v.x);
    fputc(',', o);
    dbl(o, v.y);
    fputc(',', o);
    dbl(o, v.z);
    fputc(']', o);
}

static void hex(FILE *o, const void *p, size_t n)
{
    if (p == NULL) {
        fputs("null", o);
        return;
    }
    fputc('"', o);
    for (size_t i = 0; i < n; i++)
        fprintf(o, "%02x", ((const uint8_t *)p)[i]);
    fputc('"', o);
}

static void str(FILE *o, sweep_str s)
{
    hex(o, s.ptr, s.len);
}

static void bytes(FILE *o, sweep_bytes b)
{
    hex(o, b.ptr, b.len);
}

static void contacts(FILE *o, const sweep_contact *c, uint32_t n)
{
    fputc('[', o);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(o, "%s{\"material\":%u,\"normal\":", i ? "," : "", c[i].material);
        vec(o, c[i].normal);
        fputs(",\"point\":", o);
        vec(o, c[i].point);
        fprintf(o, ",\"triangle\":%u}", c[i].triangle);
    }
    fputc(']', o);
}

static void move(FILE *o, const sweep_msg_move *m)
{
    fputs("{\"claimed_position\":", o);
    if (m->has_claimed_position)
        vec(o, m->claimed_position);
    else
        fputs("null", o);
    fprintf(o, ",\"buttons\":%u,\"client_tick\":%llu,\"dt\":", m->buttons, (unsigned long long)m->client_tick);
    dbl(o, m->dt);
    fprintf(o, ",\"entity\":%u,\"mode\":%u,\"sequence\":%u,\"velocity\":", m->entity, m->mode, m->sequence);
    vec(o, m->velocity);
    fputc('}', o);
}

static void move_result(FILE *o, const sweep_msg_move_result *r)
{
    fputs("{\"applied_dt\":", o);
    dbl(o, r->applied_dt);
    fprintf(o, ",\"carried\":%s,\"contacts\":", r->carried ? "true" : "false");
    contacts(o, r->contacts, r->contact_count);
    fprintf(o, ",\"corrected\":%s,\"correction\":", r->corrected ? "true" : "false");
    dbl(o, r->correction);
    fprintf(o, ",\"entity\":%u,\"ground_material\":%u,\"ground_mover\":%u,\"ground_normal\":", r->entity,
            r->ground_material, r->ground_mover);
    vec(o, r->ground_normal);
    fprintf(o, ",\"grounded\":%s,\"position\":", r->grounded ? "true" : "false");
    vec(o, r->position);
    fprintf(o, ",\"pushed\":%s,\"pushed_by\":%u,\"rules\":%u", r->pushed ? "true" : "false", r->pushed_by,
            r->rules);
    fprintf(o, ",\"sequence\":%u,\"server_tick\":%llu,\"speed_excess\":", r->sequence,
            (unsigned long long)r->server_tick);
    dbl(o, r->speed_excess);
    fputs(",\"start_position\":", o);
    if (r->has_start_position)
        vec(o, r->start_position);
    else
        fputs("null", o);
    fputs(",\"time_excess\":", o);
    dbl(o, r->time_excess);
    fputs(",\"velocity\":", o);
    vec(o, r->velocity);
    fprintf(o, ",\"launched_by\":%u,\"teleported_by\":%u,\"teleport_blocked\":%s,\"hurt_by\":%u,\"damage\":",
            r->launched_by, r->teleported_by, r->teleport_blocked ? "true" : "false", r->hurt_by);
    dbl(o, r->damage);
    fprintf(o, ",\"killed_by\":%u,\"entered\":%u,\"left\":%u", r->killed_by, r->entered, r->left);
    fprintf(o, ",\"crouched\":%s,\"stance_blocked\":%s", r->crouched ? "true" : "false",
            r->stance_blocked ? "true" : "false");
    fprintf(o,
            ",\"medium\":{\"liquid\":%u,\"entered_liquid\":%u,\"left_liquid\":%u,\"ladder\":%u,\"liquid_type\":%u,"
            "\"liquid_level\":%u}",
            r->liquid, r->entered_liquid, r->left_liquid, r->ladder, r->liquid_type, r->liquid_level);
    fputc('}', o);
}

static void u64s(FILE *o, const uint64_t *v, uint32_t n)
{
    fputc('[', o);
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
    fputc(']', o);
}

/* Prints m as canonical JSON (see the file comment). */
static void dump(FILE *o, const sweep_message *m)
{
    fprintf(o, "{\"body\":");
    switch (m->kind) {
    case SWEEP_MSG_HELLO: {
        const sweep_msg_hello *h = &m->as.hello;
        fputs("{\"auth_token\":", o);
        str(o, h->auth_token);
        fputs(",\"client_name\":", o);
        str(o, h->client_name);
        fputs(",\"cookie\":", o);
        bytes(o, h->cookie);
        fprintf(o, ",\"max_datagram\":%u,\"padding\":", h->max_datagram);
        bytes(o, h->padding);
        fprintf(o, ",\"protocol_version\":%u,\"world\":", h->protocol_version);
        str(o, h->world);
        fputc('}', o);
        break;
    }
    case SWEEP_MSG_WELCOME: {
        const sweep_msg_welcome *w = &m->as.welcome;
        fputs("{\"identity\":", o);
        str(o, w->identity);
        fputs(",\"map_hash\":", o);
        bytes(o, w->map_hash);
        fputs(",\"map_name\":", o);
        str(o, w->map_name);
        fprintf(o, ",\"max_batch\":%u,\"max_entities\":%u,\"max_frame_size\":%u,\"protocol_version\":%u,"
                   "\"role\":%u,\"session_id\":%llu,\"tick_rate\":",
                w->max_batch, w->max_entities, w->max_frame_size, w->protocol_version, w->role,
                (unsigned long long)w->session_id);
        dbl(o, w->tick_rate);
        fputs(",\"time_bank\":", o);
        dbl(o, w->time_bank);
        fprintf(o, ",\"udp_key\":%llu}", (unsigned long long)w->udp_key);
        break;
    }
    case SWEEP_MSG_SPAWN:
        fputs("{\"max_speed\":", o);
        dbl(o, m->as.spawn.max_speed);
        fputs(",\"position\":", o);
        vec(o, m->as.spawn.position);
        fputs(",\"radii\":", o);
        vec(o, m->as.spawn.radii);
        fprintf(o, ",\"player\":%s", m->as.spawn.player ? "true" : "false");
        fprintf(o, ",\"spawn_point\":%u", m->as.spawn.spawn_point);
        fputs(",\"step_height\":", o);
        dbl(o, m->as.spawn.step_height);
        fputc('}', o);
        break;
    case SWEEP_MSG_SPAWNED:
        fprintf(o, "{\"entity\":%u,\"position\":", m->as.spawned.entity);
        vec(o, m->as.spawned.position);
        fputs(",\"radii\":", o);
        vec(o, m->as.spawned.radii);
        fprintf(o, ",\"player\":%s,\"rules\":%u,\"spawn_point\":%u}", m->as.spawned.player ? "true" : "false",
                m->as.spawned.rules, m->as.spawned.spawn_point);
        break;
    case SWEEP_MSG_DESPAWN:
        fprintf(o, "{\"entity\":%u}", m->as.despawn.entity);
        break;
    case SWEEP_MSG_DESPAWNED:
        fprintf(o, "{\"crushed_by\":%u,\"entity\":%u,\"killed_by\":%u,\"reason\":", m->as.despawned.crushed_by,
                m->as.despawned.entity, m->as.despawned.killed_by);
        str(o, m->as.despawned.reason);
        fputc('}', o);
        break;
    case SWEEP_MSG_MOVE:
        move(o, &m->as.move);
        break;
    case SWEEP_MSG_MOVE_RESULT:
        move_result(o, &m->as.move_result);
        break;
    case SWEEP_MSG_MOVE_BATCH:
        fputs("{\"moves\":[", o);
        for (uint32_t i = 0; i < m->as.move_batch.count; i++) {
            if (i)
                fputc(',', o);
            move(o, &m->as.move_batch.moves[i]);
        }
        fputs("]}", o);
        break;
    case SWEEP_MSG_MOVE_RESULT_BATCH:
        fputs("{\"results\":[", o);
        for (uint32_t i = 0; i < m->as.move_result_batch.count; i++) {
            if (i)
                fputc(',', o);
            move_result(o, &m->as.move_result_batch.results[i]);
        }
        fputs("]}", o);
        break;
    case SWEEP_MSG_COLLIDE:
        fputs("{\"dt\":", o);
        dbl(o, m->as.collide.dt);
        fprintf(o, ",\"grounded\":%s,\"position\":", m->as.collide.grounded ? "true" : "false");
        vec(o, m->as.collide.position);
        fputs(",\"radii\":", o);
        vec(o, m->as.collide.radii);
        fputs(",\"velocity\":", o);
        vec(o, m->as.collide.velocity);
        fputc('}', o);
        break;
    case SWEEP_MSG_COLLIDE_RESULT: {
        const sweep_msg_collide_result *c = &m->as.collide_result;
        fputs("{\"contacts\":", o);
        contacts(o, c->contacts, c->contact_count);
        fprintf(o, ",\"ground_material\":%u,\"ground_mover\":%u,\"ground_normal\":", c->ground_material,
                c->ground_mover);
        vec(o, c->ground_normal);
        fprintf(o, ",\"grounded\":%s,\"position\":", c->grounded ? "true" : "false");
        vec(o, c->position);
        fputs(",\"velocity\":", o);
        vec(o, c->velocity);
        fputc('}', o);
        break;
    }
    case SWEEP_MSG_WORLD_STATE:
        fprintf(o, "{\"mover_count\":%u,\"movers\":[", m->as.world_state.mover_count);
        for (uint32_t i = 0; i < m->as.world_state.count; i++) {
            const sweep_wire_mover *v = &m->as.world_state.movers[i];
            fprintf(o, "%s{\"flags\":%u,\"id\":%u,\"position\":", i ? "," : "", v->flags, v->id);
            vec(o, v->position);
            fputs(",\"rotation\":[", o);
            for (int k = 0; k < 4; k++) {
                if (k)
                    fputc(',', o);
                dbl(o, v->rotation[k]);
            }
            fputs("]}", o);
        }
        fputs("],\"paths\":[", o);
        for (uint32_t i = 0; i < m->as.world_state.path_count && i < m->as.world_state.count; i++) {
            const sweep_wire_mover *v = &m->as.world_state.movers[i];
            fprintf(o, "%s{\"dir\":%d,\"path_tick\":%u,\"wait\":%u}", i ? "," : "", v->dir, v->path_tick, v->wait);
        }
        fprintf(o, "],\"tick\":%llu}", (unsigned long long)m->as.world_state.tick);
        break;
    case SWEEP_MSG_PING:
        fprintf(o, "{\"client_time\":%llu}", (unsigned long long)m->as.ping.client_time);
        break;
    case SWEEP_MSG_PONG:
        fprintf(o, "{\"client_time\":%llu,\"server_time\":%llu}", (unsigned long long)m->as.pong.client_time,
                (unsigned long long)m->as.pong.server_time);
        break;
    case SWEEP_MSG_GET_STATS:
        fputs("{}", o);
        break;
    case SWEEP_MSG_STATS: {
        const sweep_msg_stats *s = &m->as.stats;
        fprintf(o, "{\"crushed_total\":%llu,\"entities\":%u,\"errors_by_code\":", (unsigned long long)s->crushed_total,
                s->entities);
        u64s(o, s->errors_by_code, s->errors_by_code_count);
        fprintf(o, ",\"errors_total\":%llu,\"move_ns_total\":%llu,\"movers\":%u,\"moves_total\":%llu,\"rules_total\":",
                (unsigned long long)s->errors_total, (unsigned long long)s->move_ns_total, s->movers,
                (unsigned long long)s->moves_total);
        u64s(o, s->rules_total, s->rules_total_count);
        fputs(",\"session_rules\":", o);
        u64s(o, s->session_rules, s->session_rules_count);
        fprintf(o,
                ",\"sessions\":%u,\"tcp_bytes_in\":%llu,\"tcp_bytes_out\":%llu,\"tick_ns_p50\":%llu,"
                "\"tick_ns_p99\":%llu,\"tick_ns_total\":%llu,\"ticks_total\":%llu,\"udp_bytes_in\":%llu,"
                "\"udp_bytes_out\":%llu,\"udp_dropped\":%llu",
                s->sessions, (unsigned long long)s->tcp_bytes_in, (unsigned long long)s->tcp_bytes_out,
                (unsigned long long)s->tick_ns_p50, (unsigned long long)s->tick_ns_p99,
                (unsigned long long)s->tick_ns_total, (unsigned long long)s->ticks_total,
                (unsigned long long)s->udp_bytes_in, (unsigned long long)s->udp_bytes_out,
                (unsigned long long)s->udp_dropped);
        fputs(",\"worlds\":[", o);
        for (uint32_t i = 0; i < s->worlds_count; i++) {
            const sweep_wire_world_info *w = &s->worlds[i];
            fprintf(o, "%s{\"entities\":%u,\"map\":", i ? "," : "", w->entities);
            str(o, w->map);
            fputs(",\"name\":", o);
            str(o, w->name);
            fprintf(o, ",\"sessions\":%u,\"tick\":%llu,\"triangles\":%u,\"world\":%u}", w->sessions,
                    (unsigned long long)w->tick, w->triangles, w->world);
        }
        fprintf(o, "],\"worlds_open\":%u}", s->worlds_open);
        break;
    }
    case SWEEP_MSG_ERROR:
        fprintf(o, "{\"code\":%u,\"entity\":%u,\"message\":", (unsigned)m->as.error.code, m->as.error.entity);
        str(o, m->as.error.message);
        fprintf(o, ",\"sequence\":%u}", m->as.error.sequence);
        break;
    case SWEEP_MSG_BYE:
        fputs("{\"reason\":", o);
        str(o, m->as.bye.reason);
        fputc('}', o);
        break;
    case SWEEP_MSG_CHALLENGE:
        fputs("{\"cookie\":", o);
        bytes(o, m->as.challenge.cookie);
        fputc('}', o);
        break;
    case SWEEP_MSG_WATCH_WORLD:
        fprintf(o, "{\"every\":%u}", m->as.watch_world.every);
        break;
    case SWEEP_MSG_MOVER_COMMAND:
        fputs("{\"mover\":", o);
        str(o, m->as.mover_command.mover);
        fputc('}', o);
        break;
    case SWEEP_MSG_MOVER_COMMANDED:
        fprintf(o, "{\"mover\":%u,\"tick\":%llu}", m->as.mover_commanded.mover,
                (unsigned long long)m->as.mover_commanded.tick);
        break;
    case SWEEP_MSG_ENTITY_COMMANDS:
        fputs("{\"commands\":[", o);
        for (uint32_t i = 0; i < m->as.entity_commands.count; i++) {
            const sweep_msg_entity_command *c = &m->as.entity_commands.commands[i];
            fprintf(o, "%s{\"entity\":%u,\"op\":%u,\"shapes\":[", i ? "," : "", c->entity, c->op);
            for (uint32_t k = 0; k < c->shape_count; k++) {
                const sweep_wire_hit_shape *h = &c->shapes[k];
                fputs(k ? ",{\"a\":" : "{\"a\":", o);
                vec(o, h->a);
                fputs(",\"b\":", o);
                vec(o, h->b);
                fprintf(o, ",\"id\":%u,\"kind\":%u,\"radii\":", h->id, h->kind);
                vec(o, h->radii);
                fputc('}', o);
            }
            fputs("],\"vector\":", o);
            vec(o, c->vector);
            fputc('}', o);
        }
        fputs("]}", o);
        break;
    case SWEEP_MSG_ENTITY_COMMANDS_RESULT:
        fputs("{\"results\":[", o);
        for (uint32_t i = 0; i < m->as.entity_commands_result.count; i++) {
            const sweep_msg_entity_command_result *r = &m->as.entity_commands_result.results[i];
            fprintf(o, "%s{\"code\":%u,\"entity\":%u,\"flags\":%u,\"message\":", i ? "," : "", (unsigned)r->code,
                    r->entity, r->flags);
            str(o, r->message);
            fprintf(o, ",\"op\":%u,\"position\":", r->op);
            if (r->has_state) {
                vec(o, r->position);
                fputs(",\"radii\":", o);
                vec(o, r->radii);
                fputs(",\"velocity\":", o);
                vec(o, r->velocity);
            } else {
                fputs("null,\"radii\":null,\"velocity\":null", o);
            }
            fputc('}', o);
        }
        fputs("]}", o);
        break;
    case SWEEP_MSG_WATCH_ENTITIES:
        fprintf(o, "{\"every\":%u}", m->as.watch_entities.every);
        break;
    case SWEEP_MSG_ENTITY_STATES:
        fputs("{\"entities\":[", o);
        for (uint32_t i = 0; i < m->as.entity_states.count; i++) {
            const sweep_wire_entity_state *e = &m->as.entity_states.entities[i];
            fprintf(o, "%s{\"entity\":%u,\"flags\":%u,\"ground_mover\":%u,\"owner_session\":%llu,\"position\":",
                    i ? "," : "", e->entity, e->flags, e->ground_mover, (unsigned long long)e->owner_session);
            vec(o, e->position);
            fputs(",\"radii\":", o);
            vec(o, e->radii);
            fputs(",\"velocity\":", o);
            vec(o, e->velocity);
            fputc('}', o);
        }
        fprintf(o, "],\"entity_count\":%u,\"tick\":%llu}", m->as.entity_states.entity_count,
                (unsigned long long)m->as.entity_states.tick);
        break;
    case SWEEP_MSG_GET_ENTITY:
        fprintf(o, "{\"entity\":%u}", m->as.get_entity.entity);
        break;
    case SWEEP_MSG_OPEN_WORLD:
        fputs("{\"map\":", o);
        str(o, m->as.open_world.map);
        fputs(",\"name\":", o);
        str(o, m->as.open_world.name);
        fputc('}', o);
        break;
    case SWEEP_MSG_WORLD_OPENED:
        fputs("{\"map_hash\":", o);
        bytes(o, m->as.world_opened.map_hash);
        fputs(",\"name\":", o);
        str(o, m->as.world_opened.name);
        fprintf(o, ",\"world\":%u}", m->as.world_opened.world);
        break;
    case SWEEP_MSG_CLOSE_WORLD:
        fprintf(o, "{\"world\":%u}", m->as.close_world.world);
        break;
    case SWEEP_MSG_WORLD_CLOSED:
        fputs("{\"reason\":", o);
        str(o, m->as.world_closed.reason);
        fprintf(o, ",\"world\":%u}", m->as.world_closed.world);
        break;
    case SWEEP_MSG_QUERY:
        fputs("{\"items\":[", o);
        for (uint32_t i = 0; i < m->as.query.count; i++) {
            const sweep_msg_query_item *q = &m->as.query.items[i];
            fputs(i ? ",{\"filter\":" : "{\"filter\":", o);
            fprintf(o, "%u,\"fraction\":", q->filter);
            dbl(o, q->fraction);
            fputs(",\"from\":", o);
            vec(o, q->from);
            fprintf(o, ",\"from_entity\":%u,\"ignore\":[", q->from_entity);
            for (uint32_t k = 0; k < q->ignore_count; k++)
                fprintf(o, "%s%u", k ? "," : "", q->ignore[k]);
            fprintf(o, "],\"kind\":%u,\"max_hits\":%u,\"radii\":", q->kind, q->max_hits);
            vec(o, q->radii);
            fputs(",\"radius\":", o);
            dbl(o, q->radius);
            fprintf(o, ",\"tick\":%llu,\"to\":", (unsigned long long)q->tick);
            vec(o, q->to);
            fprintf(o, ",\"to_entity\":%u}", q->to_entity);
        }
        fputs("]}", o);
        break;
    case SWEEP_MSG_QUERY_RESULT:
        fputs("{\"answers\":[", o);
        for (uint32_t i = 0; i < m->as.query_result.count; i++) {
            const sweep_msg_query_answer *a = &m->as.query_result.answers[i];
            fprintf(o, "%s{\"code\":%u,\"flags\":%u,\"fraction\":", i ? "," : "", (unsigned)a->code, a->flags);
            dbl(o, a->fraction);
            fputs(",\"hits\":[", o);
            for (uint32_t k = 0; k < a->hit_count; k++) {
                const sweep_wire_query_hit *h = &a->hits[k];
                fputs(k ? ",{\"distance\":" : "{\"distance\":", o);
                dbl(o, h->distance);
                fprintf(o, ",\"entity\":%u,\"fraction\":", h->entity);
                dbl(o, h->fraction);
                fprintf(o, ",\"kind\":%u,\"material\":%u,\"mover\":%u,\"normal\":", h->kind, h->material,
                        h->mover);
                vec(o, h->normal);
                fputs(",\"point\":", o);
                vec(o, h->point);
                fprintf(o, ",\"shape\":%u,\"triangle\":%u}", h->shape, h->triangle);
            }
            fputs("],\"message\":", o);
            str(o, a->message);
            fprintf(o, ",\"tick\":%llu}", (unsigned long long)a->tick);
        }
        fprintf(o, "],\"first\":%u}", m->as.query_result.first);
        break;
    default:
        fputs("null", o);
        break;
    }
    fprintf(o, ",\"key\":%llu,\"kind\":\"%s\",\"sequence\":%u,\"server_tick\":%llu}\n", (unsigned long long)m->key,
            sweep_msg_kind_name(m->kind), m->sequence, (unsigned long long)m->server_tick);
}

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "interop_tool: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static long read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "interop_tool: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t n = fread(in_buf, 1, sizeof in_buf, f);
    fclose(f);
    return (long)n;
}

static sweep_proto_error decode_file(const char *path, unsigned flags, sweep_message *m)
{
    long n = read_file(path);
    if (n < 0)
        return SWEEP_PROTO_E_ARG;
    sweep_decoder d = {moves, 4096, results, 4096, movers, 4096, {0, 0}, commands, 4096,
                       command_results, 4096, entity_states, 4096, worlds, 4096, query_items, 4096,
                       query_answers, 4096, query_hits, 16384, query_ignore, 65536, hit_shapes, 16384};
    return sweep_decode(&d, in_buf, (size_t)n, flags, m);
}

static int emit(const char *dir)
{
    char path[4096];
    for (unsigned i = 0; i < sample_count(); i++) {
        sweep_message m = sample_message(i);
        for (int sp = 0; sp < 2; sp++) {
            const uint8_t *out;
            size_t len;
            if (sweep_encode(&m, sp ? SWEEP_WIRE_SIZE_PREFIXED : 0, out_buf, sizeof out_buf, &out, &len) !=
                SWEEP_PROTO_OK)
                return 1;
            snprintf(path, sizeof path, "%s/c_%02u%s.bin", dir, i, sp ? ".sp" : "");
            if (write_file(path, out, len))
                return 1;
        }
        snprintf(path, sizeof path, "%s/c_%02u.json", dir, i);
        FILE *f = fopen(path, "w");
        if (f == NULL)
            return 1;
        dump(f, &m);
        fclose(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "emit") == 0)
        return emit(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "dump") == 0) {
        unsigned flags = argc > 3 && strcmp(argv[3], "sp") == 0 ? SWEEP_WIRE_SIZE_PREFIXED : 0;
        sweep_message m;
        sweep_proto_error e = decode_file(argv[2], flags, &m);
        if (e != SWEEP_PROTO_OK) {
            fprintf(stderr, "interop_tool: %s: %s\n", argv[2], sweep_proto_error_name(e));
            return 1;
        }
        dump(stdout, &m);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "reencode") == 0) {
        unsigned flags = argc > 4 && strcmp(argv[4], "sp") == 0 ? SWEEP_WIRE_SIZE_PREFIXED : 0;
        sweep_message m;
        sweep_proto_error e = decode_file(argv[2], flags, &m);
        const uint8_t *out;
        size_t len;
        if (e == SWEEP_PROTO_OK)
            e = sweep_encode(&m, flags, out_buf, sizeof out_buf, &out, &len);
        if (e != SWEEP_PROTO_OK) {
            fprintf(stderr, "interop_tool: %s: %s\n", argv[2], sweep_proto_error_name(e));
            return 1;
        }
        return write_file(argv[3], out, len) ? 1 : 0;
    }
    fprintf(stderr, "usage: interop_tool emit DIR | dump FILE [sp] | reencode IN OUT [sp]\n");
    return 2;
}
