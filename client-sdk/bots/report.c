/*
 * report.c - what a run of `sweep-bots` prints once it is over, and its
 * exit status: the load's throughput and latency percentiles (or one BENCH
 * line); a line per player mode, with the server's rule counts and the
 * bad network's.
 *
 * The report gives, per mode: moves sent and answered, errors by code,
 * corrections the server flagged (above the map's threshold), the rules
 * the server named (MoveResult.rules, Spawned.rules, and its Stats counters
 * for the bots' sessions), and what the mode gained: distance travelled
 * per second and the fastest 0.25 s, the highest point above the spawn,
 * the farthest from it, the time granted per second against the time
 * asked, where it spawned against where it asked, the radii it got; and
 * each cheat's figures against the honest bots' when they ran together.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client-sdk/bots/bots.h"

/* --- report -------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double percentile_us(const totals *t, double q)
{
    if (t->nlat == 0)
        return 0;
    size_t i = (size_t)(q * (double)(t->nlat - 1) + 0.5);
    return (double)t->lat_ns[i] / 1e3;
}

/* "Name:count,..." of the non-zero counts, or "none". */
static void print_counts(const char *key, const uint64_t *v, unsigned n, const char *(*name)(unsigned))
{
    printf(" %s=", key);
    int any = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!v[i])
            continue;
        printf("%s%s:%" PRIu64, any ? "," : "", name(i), v[i]);
        any = 1;
    }
    if (!any)
        printf("none");
}

static const char *rule_name(unsigned bit)
{
    static char buf[16];
    const char *n = sweep_wire_rule_name(bit);
    if (strcmp(n, "Unknown") != 0)
        return n;
    snprintf(buf, sizeof buf, "Bit%u", bit);
    return buf;
}

static const char *code_name(unsigned code)
{
    return code < SWEEP_WIRE_CODE_COUNT ? sweep_wire_code_name((sweep_wire_code)code) : "Newer";
}

typedef struct figures {
    double distance_per_s, peak_speed, dt_asked_per_s, dt_granted_per_s, granted_ratio;
} figures;

static figures figures_of(const mode_totals *mt, double duration)
{
    figures f = {0};
    double bot_s = mt->bots * duration;
    if (bot_s > 0) {
        f.distance_per_s = mt->distance / bot_s;
        f.dt_asked_per_s = mt->dt_asked / bot_s;
        f.dt_granted_per_s = mt->dt_granted / bot_s;
    }
    f.peak_speed = mt->peak / (PEAK_WINDOW_NS / 1e9);
    f.granted_ratio = mt->dt_asked > 0 ? mt->dt_granted / mt->dt_asked : 0;
    return f;
}

static void print_mode(const options *o, int mode, const mode_totals *mt)
{
    figures f = figures_of(mt, o->duration);
    printf("mode=%s bots=%u transport=%s moves=%" PRIu64 " answered=%" PRIu64 " errors=%" PRIu64,
           sweep__bots_mode_names[mode], mt->bots, o->udp ? "udp" : "tcp", mt->sent, mt->answered, mt->errors);
    print_counts("error_codes", mt->error_codes, SWEEP_WIRE_CODE_COUNT + 1, code_name);
    printf(" corrections=%" PRIu64 " max_correction=%.3f rule_moves=%" PRIu64, mt->corrections, mt->max_correction,
           mt->rule_moves);
    print_counts("rules", mt->rules, 32, rule_name);
    print_counts("spawn_rules", mt->spawn_rules, 32, rule_name);
    print_counts("stats_rules", mt->stats_rules, 32, rule_name);
    printf(" distance_per_s=%.3f peak_speed=%.3f max_height=%.3f reach=%.3f dt_asked_per_s=%.3f "
           "dt_granted_per_s=%.3f granted_ratio=%.3f spawn_offset=%.3f radii_ratio=%.4f role=%s mismatches=%" PRIu64
           " mismatches_after_loss=%" PRIu64 " lost=%" PRIu64 " stalled_s=%.3f cut=%" PRIu64 "\n",
           f.distance_per_s, f.peak_speed, mt->max_height, mt->reach, f.dt_asked_per_s, f.dt_granted_per_s,
           f.granted_ratio, mt->spawn_offset, mt->radii_ratio,
           !mt->roles_seen ? "none" : mt->role_server ? "Server" : "Player", mt->mismatches,
           mt->mismatches_after_loss, mt->lost, mt->stalled, mt->cut);
}

static void print_advantage(const options *o, int mode, const mode_totals *mt, const mode_totals *honest)
{
    figures f = figures_of(mt, o->duration), h = figures_of(honest, o->duration);
    printf("advantage mode=%s distance=%.2fx peak_speed=%.2fx height=%.2fx reach=%.2fx granted_per_s=%.2fx\n",
           sweep__bots_mode_names[mode], h.distance_per_s > 0 ? f.distance_per_s / h.distance_per_s : 0,
           h.peak_speed > 0 ? f.peak_speed / h.peak_speed : 0,
           honest->max_height > 0 ? mt->max_height / honest->max_height : 0,
           honest->reach > 0 ? mt->reach / honest->reach : 0,
           h.dt_granted_per_s > 0 ? f.dt_granted_per_s / h.dt_granted_per_s : 0);
}

/* --- the end of a run ------------------------------------------------------------------ */

int sweep__bots_report_players(const options *o, bot *bots, totals *t, sweep_netem **net)
{
    /* The server's own counts of the rules, per session, then the report. */
    uint64_t total_rules[32] = {0};
    uint32_t total_count = 0;
    for (uint32_t i = 0; i < o->clients; i++) {
        bot *b = &bots[i];
        mode_totals *mt = &t->m[b->mode];
        if (!sweep_client_get_welcome(b->c)->has_roles)
            continue; /* an older server has no rule counts */
        sweep_msg_stats st;
        sweep_client_error e;
        if (sweep_client_get_stats(b->c, &st, &e) != SWEEP_CLIENT_OK) {
            fprintf(stderr, "sweep-bots: bot %u: stats: %s: %s\n", i, sweep_client_error_name(&e), e.message);
            continue;
        }
        for (uint32_t k = 0; k < st.session_rules_count && k < 32; k++)
            mt->stats_rules[k] += st.session_rules[k];
        for (uint32_t k = 0; k < st.rules_total_count && k < 32; k++)
            total_rules[k] = st.rules_total[k];
        if (st.rules_total_count > total_count)
            total_count = st.rules_total_count;
    }
    for (int m = 0; m < MODE_COUNT; m++) {
        /* Moves neither answered nor refused: lost on the way (or given up by the server). */
        mode_totals *mt = &t->m[m];
        uint64_t refused = mt->errors - mt->refused_hellos;
        mt->lost = mt->sent > mt->answered + refused ? mt->sent - mt->answered - refused : 0;
    }
    int honest_bad = 0, answered = 0;
    for (uint32_t k = 0; k < o->nmodes; k++) {
        int m = o->modes[k];
        int seen = 0;
        for (uint32_t j = 0; j < k; j++)
            seen |= o->modes[j] == m;
        if (seen || t->m[m].bots == 0)
            continue;
        print_mode(o, m, &t->m[m]);
        answered |= t->m[m].answered > 0;
    }
    const mode_totals *h = &t->m[MODE_HONEST];
    if (h->bots) {
        for (uint32_t k = 0; k < o->nmodes; k++) {
            int m = o->modes[k];
            int seen = 0;
            for (uint32_t j = 0; j < k; j++)
                seen |= o->modes[j] == m;
            if (!seen && m != MODE_HONEST && t->m[m].bots)
                print_advantage(o, m, &t->m[m], h);
        }
        uint64_t honest_rules = 0;
        for (unsigned k = 0; k < 32; k++)
            honest_rules += h->rules[k] + h->spawn_rules[k] + h->stats_rules[k];
        honest_bad = h->errors || h->corrections || h->rule_moves || honest_rules;
    }
    if (total_count) {
        printf("server rules_total=");
        int any = 0;
        for (uint32_t k = 0; k < total_count; k++)
            if (total_rules[k]) {
                printf("%s%s:%" PRIu64, any ? "," : "", rule_name(k), total_rules[k]);
                any = 1;
            }
        printf("%s\n", any ? "" : "none");
    }
    if (*net) {
        sweep_netem_counters nc;
        sweep_netem_stop(*net, &nc);
        *net = NULL;
        printf("network to_server=%" PRIu64 " dropped=%" PRIu64 " reordered=%" PRIu64 " to_clients=%" PRIu64
               " dropped=%" PRIu64 " reordered=%" PRIu64 " overflow=%" PRIu64 " failed=%" PRIu64 "\n",
               nc.received[0], nc.dropped[0], nc.reordered[0], nc.received[1], nc.dropped[1], nc.reordered[1],
               nc.overflow[0] + nc.overflow[1], nc.failed[0] + nc.failed[1]);
    }
    int rc = answered && !honest_bad ? 0 : 1;
    if (!answered)
        fprintf(stderr, "sweep-bots: no move was answered\n");
    else if (honest_bad)
        fprintf(stderr, "sweep-bots: honest bots saw errors, corrections or rules\n");
    return rc;
}

int sweep__bots_report_load(const options *o, totals *t)
{
    qsort(t->lat_ns, t->nlat, sizeof *t->lat_ns, cmp_u64);
    double mps = (double)t->results / o->duration;
    if (o->bench_name) {
        printf("BENCH name=server.%s clients=%u moves_per_s=%.0f p50_us=%.1f p99_us=%.1f", o->bench_name, o->clients,
               mps, percentile_us(t, 0.50), percentile_us(t, 0.99));
        if (o->watch)
            printf(" world_states_per_s=%.0f", (double)t->world_states / o->duration);
        printf("\n");
    } else {
        printf("clients:     %u (%s, %s)\n", o->clients, o->udp ? "udp" : "tcp",
               o->batch > 1 ? "batched" : "single moves");
        printf("moves:       %" PRIu64 " answered of %" PRIu64 " sent in %.2f s (%" PRIu64 " errors, %" PRIu64 " lost)\n",
               t->results, t->sent, o->duration, t->errors, t->lost);
        printf("throughput:  %.0f moves/s\n", mps);
        printf("latency us:  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n", percentile_us(t, 0.50),
               percentile_us(t, 0.90), percentile_us(t, 0.99), percentile_us(t, 0.999), percentile_us(t, 1.0));
        if (o->watch)
            printf("world states: %" PRIu64 " received (%.0f/s, %" PRIu64 " mover poses), %" PRIu64
                   " players crushed\n",
                   t->world_states, (double)t->world_states / o->duration, t->world_movers, t->crushed);
    }
    int rc = t->results > 0 && t->errors == 0 ? 0 : 1;
    if (rc)
        fprintf(stderr, "sweep-bots: %s\n", t->results ? "the server answered errors" : "no move was answered");
    return rc;
}
