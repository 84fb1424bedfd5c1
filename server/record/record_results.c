/*
 * record_results.c - the RESULTS record's payload (record_results.h,
 * layout in record.h).
 */
#include "server/record/record_results.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "protocol/format.h"
#include "protocol/result_rare.h"

_Static_assert(SWEEP__RESULTS_PER_RESULT_MAX <= 2048u,
               "a RESULTS record of a full batch fits the frame bound's room for its answer");

/* Whether any of a result's movers (movers: its contacts' or-ed), volume
 * ids, damage (any bit), liquid fields or ladder is set. */
static inline int any_rare(const sweep_msg_move_result *r, uint32_t movers)
{
    return sweep__result_rare_any(r, movers);
}

/* The mask of a result's fields past the flags, as the fields hold
 * them. The movers, volumes, damage, liquids and ladder are rare: tested
 * one by one only when any is set. */
static inline uint32_t field_mask(const sweep_msg_move_result *r, uint64_t tick)
{
    uint32_t mask = (uint32_t)(r->server_tick != tick) << 1 | (uint32_t)sweep__f64_nonzero(r->correction) << 3 |
                    (uint32_t)((r->rules & ~SWEEP__RECORD_MOVE_RULES) != 0) << 4 |
                    (uint32_t)sweep__f64_nonzero(r->time_excess) << 5;
    uint32_t n = r->contact_count, movers = 0;
    for (uint32_t i = 0; i < n; i++)
        movers |= r->contacts[i].mover;
    if (!any_rare(r, movers))
        return mask;
    return mask | (uint32_t)(movers != 0) << 6 | (uint32_t)(r->launched_by != 0) << 7 |
           (uint32_t)(r->teleported_by != 0) << 8 | (uint32_t)(r->hurt_by != 0) << 9 |
           (uint32_t)(r->killed_by != 0) << 10 | (uint32_t)(r->entered != 0) << 11 | (uint32_t)(r->left != 0) << 12 |
           (uint32_t)sweep__f64_nonzero(r->damage) << 14 | (uint32_t)(r->liquid != 0) << 15 |
           (uint32_t)(r->liquid_type != 0) << 16 | (uint32_t)(r->liquid_level != 0) << 17 |
           (uint32_t)(r->entered_liquid != 0) << 18 | (uint32_t)(r->left_liquid != 0) << 19 |
           (uint32_t)(r->ladder != 0) << 20;
}

static inline uint8_t *put_u32_if(uint8_t *o, uint32_t mask, uint32_t bit, uint32_t v)
{
    if (mask & bit) {
        sweep__wr32(o, v);
        o += 4;
    }
    return o;
}

/* The rare fields of a result (field_mask), in the layout's order. */
static __attribute__((noinline)) uint8_t *put_rare(uint8_t *o, const sweep_msg_move_result *r, uint32_t mask)
{
    if (mask & SWEEP__RESULTS_MOVERS) {
        sweep__wr32(o, r->contact_count), o += 4;
        for (uint32_t i = 0; i < r->contact_count; i++)
            sweep__wr32(o, r->contacts[i].mover), o += 4;
    }
    const uint32_t volumes[6] = {r->launched_by, r->teleported_by, r->hurt_by, r->killed_by, r->entered, r->left};
    const uint32_t liquids[6] = {r->liquid,         r->liquid_type, r->liquid_level,
                                 r->entered_liquid, r->left_liquid, r->ladder};
    for (unsigned i = 0; i < 6; i++)
        o = put_u32_if(o, mask, 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + i), volumes[i]);
    if (mask & SWEEP__RESULTS_DAMAGE)
        sweep__wrf64(o, r->damage), o += 8;
    for (unsigned i = 0; i < 6; i++)
        o = put_u32_if(o, mask, 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + i), liquids[i]);
    return o;
}

/* One result: its mask, then what the mask names. */
static inline uint8_t *put_result(uint8_t *o, int compact, const sweep_msg_move_result *r, uint64_t tick, int whole)
{
    uint32_t fields = field_mask(r, tick);
    uint32_t mask = fields | (uint32_t)(whole != 0) | (uint32_t)(r->corrected != 0) << 2 |
                    (uint32_t)(r->teleport_blocked != 0) << 13;
    sweep__wr32(o, mask);
    o += 4;
    if (whole)
        o += sweep__record_move_encode(o, compact, 0, 0, 0, sweep_v3(0, 0, 0), sweep__record_move_cut_forgiven(r), r);
    if (!fields)
        return o;
    if (mask & SWEEP__RESULTS_TICK)
        sweep__wr64(o, r->server_tick), o += 8;
    if (mask & SWEEP__RESULTS_CORRECTION)
        sweep__wrf64(o, r->correction), o += 8;
    o = put_u32_if(o, mask, SWEEP__RESULTS_RULES, r->rules & ~SWEEP__RECORD_MOVE_RULES);
    if (mask & SWEEP__RESULTS_TIME_EXCESS)
        sweep__wrf64(o, r->time_excess), o += 8;
    if (fields & ~(uint32_t)(SWEEP__RESULTS_TICK | SWEEP__RESULTS_CORRECTION | SWEEP__RESULTS_RULES |
                             SWEEP__RESULTS_TIME_EXCESS))
        o = put_rare(o, r, mask);
    return o;
}

size_t sweep__record_results_encode(uint8_t *out, int compact, uint64_t session, const sweep_message *m,
                                    sweep__record_moved *moved)
{
    int batch = m->kind == SWEEP_MSG_MOVE_RESULT_BATCH;
    const sweep_msg_move_result *rs = batch ? m->as.move_result_batch.results : &m->as.move_result;
    uint32_t count = batch ? m->as.move_result_batch.count : 1;
    sweep__wr64(out, session);
    sweep__wr32(out + 8, batch ? 1u : 0u);
    sweep__wr32(out + 12, m->sequence);
    sweep__wr64(out + 16, m->server_tick);
    sweep__wr32(out + 24, count);
    uint8_t *o = out + SWEEP__RESULTS_FIXED;
    for (uint32_t i = 0; i < count; i++) {
        const sweep_msg_move_result *r = &rs[i];
        int has_move = moved && moved->taken < moved->count && moved->res[moved->taken] == r;
        if (has_move)
            moved->taken++;
        o = put_result(o, compact, r, m->server_tick, !has_move);
    }
    return (size_t)(o - out);
}

static int bad(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t whylen, const char *fmt, ...)
{
    if (why) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The bytes the fields after a result's mask (and image) take. */
static size_t fields_len(uint32_t mask, uint32_t movers)
{
    size_t n = 0;
    n += (mask & SWEEP__RESULTS_TICK) ? 8 : 0;
    n += (mask & SWEEP__RESULTS_CORRECTION) ? 8 : 0;
    n += (mask & SWEEP__RESULTS_RULES) ? 4 : 0;
    n += (mask & SWEEP__RESULTS_TIME_EXCESS) ? 8 : 0;
    n += (mask & SWEEP__RESULTS_MOVERS) ? 4 + 4 * (size_t)movers : 0;
    n += (mask & SWEEP__RESULTS_DAMAGE) ? 8 : 0;
    n += 4 * (size_t)__builtin_popcount(mask & (0x3fu << SWEEP__RESULTS_VOLUMES_SHIFT | 0x3fu << SWEEP__RESULTS_LIQUIDS_SHIFT));
    return n;
}

int sweep__record_results_check(const uint8_t *p, size_t len, int compact, char *why, size_t whylen)
{
    if (len < SWEEP__RESULTS_FIXED)
        return bad(why, whylen, "%zu bytes, shorter than its fixed %u", len, SWEEP__RESULTS_FIXED);
    uint32_t kind = sweep__rd32(p + 8), count = sweep__rd32(p + 24);
    if (kind > 1)
        return bad(why, whylen, "kind %u is neither MoveResult (0) nor MoveResultBatch (1)", kind);
    if (kind == 0 && count != 1)
        return bad(why, whylen, "a MoveResult of %u results", count);
    size_t at = SWEEP__RESULTS_FIXED;
    for (uint32_t i = 0; i < count; i++) {
        if (len - at < 4)
            return bad(why, whylen, "result %u of %u runs past the record's %zu bytes", i, count, len);
        uint32_t mask = sweep__rd32(p + at), images = 0;
        at += 4;
        if (mask & ~(uint32_t)SWEEP__RESULTS_MASK)
            return bad(why, whylen, "result %u: mask bits set that the layout leaves zero (0x%x)", i, mask);
        if (mask & SWEEP__RESULTS_WHOLE) {
            char w[160];
            if (len - at < (compact ? SWEEP__RECORD_MOVE_HEAD : SWEEP_RECORD_MOVE_FIXED))
                return bad(why, whylen, "result %u: its image runs past the record's %zu bytes", i, len);
            const uint8_t *q = p + at;
            /* Its length as its own bytes say in the log's layout (a
             * count past the bound is the check's to name). */
            uint32_t nc = q[54] <= SWEEP_MAX_CONTACTS ? q[54] : 0;
            size_t il = compact ? sweep__record_move_compact_len(q[53], q[55], nc) : sweep__record_move_len(nc);
            if (len - at < il)
                return bad(why, whylen, "result %u: its image runs past the record's %zu bytes", i, len);
            if (sweep__record_move_check(q, il, compact, w, sizeof w) != 0)
                return bad(why, whylen, "result %u: its image: %s", i, w);
            static const uint8_t zero[24];
            if (memcmp(q, zero, 8) != 0 || memcmp(q + 16, zero, 24) != 0 || sweep__rd32(q + 48) != 0 || q[52] != 0)
                return bad(why, whylen, "result %u: its image has an input (session, wish, buttons, mode)", i);
            images = q[54];
            at += il;
        }
        uint32_t movers = 0;
        if (mask & SWEEP__RESULTS_MOVERS) {
            /* the count sits after the fields before it */
            size_t before = fields_len(mask & (SWEEP__RESULTS_TICK | SWEEP__RESULTS_CORRECTION |
                                               SWEEP__RESULTS_RULES | SWEEP__RESULTS_TIME_EXCESS), 0);
            if (len - at < before + 4)
                return bad(why, whylen, "result %u runs past the record's %zu bytes", i, len);
            movers = sweep__rd32(p + at + before);
            if (movers == 0 || movers > SWEEP_MAX_CONTACTS || ((mask & SWEEP__RESULTS_WHOLE) && movers != images))
                return bad(why, whylen, "result %u: movers of %u contacts", i, movers);
        }
        size_t f = fields_len(mask, movers);
        if (len - at < f)
            return bad(why, whylen, "result %u runs past the record's %zu bytes", i, len);
        at += f;
    }
    if (at != len)
        return bad(why, whylen, "%zu bytes, but its %u results make %zu", len, count, at);
    return 0;
}

int sweep__record_results_rebuild(const uint8_t *p, size_t len, const uint8_t *const *moves, const uint32_t *lens,
                                  uint32_t n, uint32_t *taken, sweep_message *m, sweep_msg_move_result *results,
                                  char *why, size_t whylen)
{
    (void)len;
    uint32_t count = sweep__record_results_count(p);
    int batch = sweep__rd32(p + 8) == 1;
    memset(m, 0, sizeof *m);
    m->kind = batch ? SWEEP_MSG_MOVE_RESULT_BATCH : SWEEP_MSG_MOVE_RESULT;
    m->sequence = sweep__rd32(p + 12);
    m->server_tick = sweep__rd64(p + 16);
    const uint8_t *q = p + SWEEP__RESULTS_FIXED;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t mask = sweep__rd32(q);
        q += 4;
        sweep__move_record mr;
        if (mask & SWEEP__RESULTS_WHOLE) {
            size_t il = sweep__record_move_image_len(q);
            sweep__record_move_decode(q, il, &mr);
            q += il;
        } else {
            if (*taken >= n)
                return bad(why, whylen, "result %u has no MOVE record before it in its group", i);
            sweep__record_move_decode(moves[*taken], lens[*taken], &mr);
            (*taken)++;
        }
        sweep_msg_move_result *r = &results[i];
        *r = mr.result;
        r->server_tick = m->server_tick;
        if (mask & SWEEP__RESULTS_TICK)
            r->server_tick = sweep__rd64(q), q += 8;
        r->corrected = (mask & SWEEP__RESULTS_CORRECTED) != 0;
        if (mask & SWEEP__RESULTS_CORRECTION)
            r->correction = sweep__rdf64(q), q += 8;
        if (mask & SWEEP__RESULTS_RULES)
            r->rules |= sweep__rd32(q), q += 4;
        if (mask & SWEEP__RESULTS_TIME_EXCESS)
            r->time_excess = sweep__rdf64(q), q += 8;
        if (mask & SWEEP__RESULTS_MOVERS) {
            uint32_t c = sweep__rd32(q);
            q += 4;
            if (c != r->contact_count)
                return bad(why, whylen, "result %u: movers of %u contacts, its MOVE has %u", i, c, r->contact_count);
            for (uint32_t k = 0; k < c; k++)
                r->contacts[k].mover = sweep__rd32(q), q += 4;
        }
        uint32_t *vol[6] = {&r->launched_by, &r->teleported_by, &r->hurt_by, &r->killed_by, &r->entered, &r->left};
        for (unsigned k = 0; k < 6; k++)
            if (mask & 1u << (SWEEP__RESULTS_VOLUMES_SHIFT + k))
                *vol[k] = sweep__rd32(q), q += 4;
        r->teleport_blocked = (mask & SWEEP__RESULTS_TELEPORT_BLOCKED) != 0;
        if (mask & SWEEP__RESULTS_DAMAGE)
            r->damage = sweep__rdf64(q), q += 8;
        uint32_t *liq[6] = {&r->liquid, &r->liquid_type, &r->liquid_level, &r->entered_liquid, &r->left_liquid,
                            &r->ladder};
        for (unsigned k = 0; k < 6; k++)
            if (mask & 1u << (SWEEP__RESULTS_LIQUIDS_SHIFT + k))
                *liq[k] = sweep__rd32(q), q += 4;
    }
    if (batch) {
        m->as.move_result_batch.results = results;
        m->as.move_result_batch.count = count;
    } else {
        m->as.move_result = results[0];
    }
    return 0;
}
