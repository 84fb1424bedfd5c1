/*
 * output.c - what `sweep` prints: each result as text or as JSON lines
 * (--json), numbers as the shortest decimal that reads back as the same
 * double, and errors by name. Every command prints through these, so that
 * a value reads alike in every command, in either form.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "client-sdk/sweep-cli/cli.h"

/* The shortest decimal that reads back as the same double: 0.4, not
 * 0.40000000000000002, and still every bit of the value. */
static const char *shortest(char buf[32], double v)
{
    for (int digits = 15; digits < 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, 32, "%.17g", v);
    return buf;
}

void sweep__cli_print_num(double v)
{
    char b[32];
    /* JSON has no NaN or infinity. */
    if (isfinite(v))
        fputs(shortest(b, v), stdout);
    else
        printf("null");
}

void sweep__cli_print_nums(const options *o, const double *v, int n)
{
    printf(o->json ? "[" : "(");
    for (int i = 0; i < n; i++) {
        if (i)
            printf(o->json ? "," : ", ");
        if (o->json)
            sweep__cli_print_num(v[i]);
        else {
            char b[32];
            fputs(shortest(b, v[i]), stdout);
        }
    }
    printf(o->json ? "]" : ")");
}

void sweep__cli_print_vec(const options *o, sweep_vec3 v)
{
    double a[3] = {v.x, v.y, v.z};
    sweep__cli_print_nums(o, a, 3);
}

/* A JSON string (or plain text) with quotes, backslashes and controls escaped. */
void sweep__cli_print_str(const options *o, const char *s)
{
    if (!o->json) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            printf("\\u%04x", (unsigned char)*p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* The volume fields of a result, into what sweep__cli_print_result shows. */
void sweep__cli_show_volumes(shown_result *s, const sweep_msg_move_result *r)
{
    s->launched_by = r->launched_by;
    s->teleported_by = r->teleported_by;
    s->teleport_blocked = r->teleport_blocked;
    s->hurt_by = r->hurt_by;
    s->damage = r->damage;
    s->killed_by = r->killed_by;
    s->entered = r->entered;
    s->left = r->left;
    s->liquid = r->liquid;
    s->liquid_level = r->liquid_level;
    s->entered_liquid = r->entered_liquid;
    s->left_liquid = r->left_liquid;
    s->ladder = r->ladder;
}

/* The volumes of a result as " name=id" pairs (text) or ",\"name\":id"
 * (JSON), only those that acted. */
static void print_volumes(const options *o, const shown_result *r)
{
    const struct {
        const char *name;
        uint32_t id;
    } v[] = {{"launched_by", r->launched_by}, {"teleported_by", r->teleported_by}, {"hurt_by", r->hurt_by},
             {"killed_by", r->killed_by},     {"entered", r->entered},             {"left", r->left},
             {"liquid", r->liquid},           {"liquid_level", r->liquid_level},   {"entered_liquid", r->entered_liquid},
             {"left_liquid", r->left_liquid}, {"ladder", r->ladder}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i].id)
            printf(o->json ? ",\"%s\":%" PRIu32 : " %s=%" PRIu32, v[i].name, v[i].id);
    if (r->teleport_blocked)
        printf(o->json ? ",\"teleport_blocked\":true" : " teleport_blocked=1");
    if (r->hurt_by) {
        char b[32];
        printf(o->json ? ",\"damage\":%s" : " damage=%s", shortest(b, r->damage));
    }
}

void sweep__cli_print_result(const options *o, const shown_result *r)
{
    if (o->json) {
        printf("{\"move\":%" PRIu32 ",\"sequence\":%" PRIu32 ",\"server_tick\":%" PRIu64 ",\"position\":", r->index,
               r->sequence, r->server_tick);
        sweep__cli_print_vec(o, r->position);
        printf(",\"velocity\":");
        sweep__cli_print_vec(o, r->velocity);
        printf(",\"grounded\":%s,\"ground_normal\":", r->grounded ? "true" : "false");
        sweep__cli_print_vec(o, r->ground_normal);
        printf(",\"ground_material\":%" PRIu32 ",\"contacts\":[", r->ground_material);
        for (uint32_t i = 0; i < r->contact_count; i++) {
            printf("%s{\"triangle\":%" PRIu32 ",\"material\":%" PRIu32 ",\"point\":", i ? "," : "",
                   r->contacts[i].triangle, r->contacts[i].material);
            sweep__cli_print_vec(o, r->contacts[i].point);
            printf(",\"normal\":");
            sweep__cli_print_vec(o, r->contacts[i].normal);
            printf("}");
        }
        printf("]");
        if (r->ground_mover)
            printf(",\"ground_mover\":%" PRIu32, r->ground_mover);
        if (r->has_start) {
            printf(",\"carried\":%s,\"pushed\":%s,\"pushed_by\":%" PRIu32 ",\"start_position\":",
                   r->carried ? "true" : "false", r->pushed ? "true" : "false", r->pushed_by);
            sweep__cli_print_vec(o, r->start);
        }
        char names[256];
        printf(",\"buttons\":%" PRIu32 ",\"rules\":%" PRIu32 ",\"rule_names\":", r->buttons, r->rules);
        sweep__cli_print_str(o, sweep_client_rules_string(r->rules, ",", names, sizeof names));
        printf(",\"speed_excess\":");
        sweep__cli_print_num(r->speed_excess);
        printf(",\"time_excess\":");
        sweep__cli_print_num(r->time_excess);
        printf(",\"applied_dt\":");
        sweep__cli_print_num(r->applied_dt);
        printf(",\"crouched\":%s,\"stance_blocked\":%s", r->crouched ? "true" : "false",
               r->stance_blocked ? "true" : "false");
        printf(",\"corrected\":%s,\"correction\":", r->corrected ? "true" : "false");
        sweep__cli_print_num(r->correction);
        print_volumes(o, r);
        if (r->predicted)
            printf(",\"predicted\":\"%s\"", r->predicted);
        if (r->rerun)
            printf(",\"rerun\":\"%s\"", r->rerun);
        printf("}\n");
    } else {
        printf("move %" PRIu32 " seq=%" PRIu32 " tick=%" PRIu64 " position=", r->index, r->sequence, r->server_tick);
        sweep__cli_print_vec(o, r->position);
        printf(" velocity=");
        sweep__cli_print_vec(o, r->velocity);
        printf(" grounded=%d contacts=%" PRIu32, r->grounded, r->contact_count);
        if (r->ground_mover)
            printf(" ground_mover=%" PRIu32, r->ground_mover);
        if (r->has_start) {
            if (r->carried)
                printf(" carried=1");
            if (r->pushed)
                printf(" pushed=1");
            printf(" pushed_by=%" PRIu32 " start=", r->pushed_by);
            sweep__cli_print_vec(o, r->start);
        }
        if (r->buttons & SWEEP_WISH_JUMP)
            printf(" jump=1");
        if (r->crouched)
            printf(" crouched=1");
        if (r->stance_blocked)
            printf(" stance_blocked=1");
        char names[256], b[32];
        printf(" rules=%s", r->rules ? sweep_client_rules_string(r->rules, ",", names, sizeof names) : "none");
        if (r->speed_excess > 0)
            printf(" speed_excess=%s", shortest(b, r->speed_excess));
        if (r->time_excess > 0)
            printf(" time_excess=%s", shortest(b, r->time_excess));
        printf(" applied_dt=%s", shortest(b, r->applied_dt));
        if (r->corrected)
            printf(" corrected=1 correction=%s", shortest(b, r->correction));
        print_volumes(o, r);
        if (r->predicted)
            printf(" predicted=%s", r->predicted);
        if (r->rerun)
            printf(" rerun=%s", r->rerun);
        printf("\n");
    }
    fflush(stdout);
}

/* The Spawned answer (or the local start): where, how big, which spawn
 * point, and what the server did not take from the Spawn (rules). */
void sweep__cli_print_spawned(const options *o, uint32_t entity, sweep_vec3 position, sweep_vec3 radii, uint32_t point,
                              uint32_t rules)
{
    char names[256];
    sweep_client_rules_string(rules, ",", names, sizeof names);
    if (o->json) {
        printf("{\"spawned\":%" PRIu32 ",\"position\":", entity);
        sweep__cli_print_vec(o, position);
        printf(",\"radii\":");
        sweep__cli_print_vec(o, radii);
        printf(",\"spawn_point\":%" PRIu32 ",\"rules\":%" PRIu32 ",\"rule_names\":", point, rules);
        sweep__cli_print_str(o, names);
        printf("}\n");
    } else {
        printf("spawned entity=%" PRIu32 " position=", entity);
        sweep__cli_print_vec(o, position);
        printf(" radii=");
        sweep__cli_print_vec(o, radii);
        if (point)
            printf(" spawn_point=%" PRIu32, point);
        printf(" rules=%s\n", rules ? names : "none");
    }
}

/* Who the server made the session (Welcome). */
void sweep__cli_print_session(const options *o, const sweep_client_welcome *w)
{
    const char *role = w->has_roles ? sweep_wire_role_name(w->role) : "none";
    if (o->json) {
        printf("{\"session\":%" PRIu64 ",\"role\":", w->session_id);
        sweep__cli_print_str(o, role);
        printf(",\"identity\":");
        sweep__cli_print_str(o, w->identity);
        printf(",\"time_bank\":");
        sweep__cli_print_num(w->time_bank);
        printf("}\n");
    } else {
        char b[32];
        /* The server role's own entities move as told; only those it
         * spawned as players pay from the bank. */
        printf("session id=%" PRIu64 " role=%s identity=%s time_bank=%s%s\n", w->session_id, role,
               w->identity[0] ? w->identity : "-", shortest(b, w->time_bank),
               w->has_roles && w->role == SWEEP_WIRE_ROLE_SERVER ? " (charged to its player entities only)" : "");
    }
}

/* Prints an error by name (stderr, and a JSON line on stdout with --json); returns 1. */
int sweep__cli_report_named(const options *o, const char *name, const char *message, uint32_t sequence,
                            int has_sequence)
{
    fprintf(stderr, "sweep: error %s: %s", name, message);
    if (has_sequence)
        fprintf(stderr, " (sequence %" PRIu32 ")", sequence);
    fprintf(stderr, "\n");
    if (o->json) {
        printf("{\"error\":\"%s\",\"sequence\":%" PRIu32 ",\"message\":", name, sequence);
        sweep__cli_print_str(o, message);
        printf("}\n");
    }
    fflush(stdout);
    return 1;
}

int sweep__cli_report(const options *o, const sweep_client_error *e)
{
    return sweep__cli_report_named(o, sweep_client_error_name(e), e->message, e->sequence,
                                   e->status == SWEEP_CLIENT_E_SERVER);
}

int sweep__cli_report_msg(const options *o, sweep_client_status s, const char *fmt, const char *arg)
{
    sweep_client_error e = {.status = s};
    snprintf(e.message, sizeof e.message, fmt, arg);
    return sweep__cli_report(o, &e);
}
