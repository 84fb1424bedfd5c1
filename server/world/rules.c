/*
 * rules.c - the record of what the server enforced: every rule that acts
 * on a move or a spawn (the Rule bits of sweep.fbs) is counted for its
 * owner and for the world (Stats.session_rules, Stats.rules_total) and
 * written to the log as one line per rule:
 *
 *   event=rule session=3 identity="alice" entity=2718281828 rule=Speed amount=95 suppressed=0
 *
 * amount is the rule's measure where it has one (Speed: units/s above the
 * walk speed; TimeBudget: seconds not granted; Correction: the distance;
 * Vertical: the wish's speed along up; SpawnPosition: the distance from
 * the place asked; SpawnRadii: the largest difference from the map's
 * radii; SpawnSpeed, SpawnStep: how much looser than the world's the
 * limit asked was, or the limit asked for a governed entity; Buttons: the
 * bits ignored). A cheating client could otherwise write the log for us, so each
 * owner may cause at most SWEEP__RULE_LOG_RATE lines a second (owner.c; a
 * burst of as many, by the request's clock); the lines it loses are
 * counted and the next line written, and session_close, say how many
 * (suppressed=N). The counters are never rate-limited.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server/world/world_impl.h"

void sweep__rule_amounts_init(sweep__rule_amounts *a)
{
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++)
        a->v[i] = NAN;
}

void sweep__rules_report(const sweep__request *rq, uint32_t entity, uint32_t bits, const sweep__rule_amounts *amounts)
{
    sweep__owner *ss = rq->owner;
    int logging = sweep__log_enabled(SWEEP_LOG_INFO);
    for (unsigned i = 0; i < SWEEP_WIRE_RULE_COUNT; i++) {
        if (!(bits & (1u << i)))
            continue;
        ss->rule_counts[i]++;
        ss->world->counts.rules_total[i]++;
        if (!logging)
            continue;
        if (!sweep__bucket_take(&ss->rule_log, 1.0, rq->now)) {
            ss->rule_log_suppressed++;
            continue;
        }
        char amount[48] = "", q[96];
        double a = amounts ? amounts->v[i] : NAN;
        if (!isnan(a))
            snprintf(amount, sizeof amount, " amount=%.17g", a);
        sweep__log(SWEEP_LOG_INFO, "rule", "session=%llu identity=%s entity=%u rule=%s%s suppressed=%llu",
                   (unsigned long long)ss->id, sweep__log_quote(ss->identity, strlen(ss->identity), q, sizeof q),
                   entity, sweep_wire_rule_name(i), amount, (unsigned long long)ss->rule_log_suppressed);
        ss->rule_log_suppressed = 0;
    }
}
