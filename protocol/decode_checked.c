/*
 * decode_checked.c - a Move or MoveResult read with bounds checks instead
 * of the verifier (decode_checked.h).
 *
 * The checked reads and their invariant: decode_checked_impl.h.
 */
#include "protocol/decode_checked.h"

#include <string.h>

#include "protocol/contact_image.h"
#include "protocol/decode_checked_impl.h"
#include "protocol/format.h"
#include "protocol/medium_image.h"
#include "protocol/schema.h"

static inline uint32_t cu32(const sweep__ctab *t, unsigned id, int *bad)
{
    const uint8_t *p = sweep__cfield(t, id, 4, bad);
    return p ? sweep__rd32(p) : 0;
}

static inline uint64_t cu64(const sweep__ctab *t, unsigned id, int *bad)
{
    const uint8_t *p = sweep__cfield(t, id, 8, bad);
    return p ? sweep__rd64(p) : 0;
}

static inline double cf64(const sweep__ctab *t, unsigned id, int *bad)
{
    const uint8_t *p = sweep__cfield(t, id, 8, bad);
    return p ? sweep__rdf64(p) : 0.0;
}

/* A Vec3; a required one must be there. */
static inline sweep_vec3 cvec3(const sweep__ctab *t, unsigned id, int required, bool *present, int *bad)
{
    const uint8_t *p = sweep__cfield(t, id, SWEEP__VEC3_SIZE, bad);
    if (present)
        *present = p != NULL;
    if (!p) {
        *bad |= required;
        return sweep_v3(0.0, 0.0, 0.0);
    }
    return sweep__rdvec3(p);
}

/* The position an offset field points at: inside the buffer, or -1. */
static int64_t cfollow(const sweep__ctab *t, size_t n, unsigned id, int *bad)
{
    const uint8_t *p = sweep__cfield(t, id, 4, bad);
    if (!p)
        return -1;
    size_t at = (size_t)(p - t->b);
    uint32_t o = sweep__rd32(p);
    if (o == 0 || o > n - at) {
        *bad = 1;
        return -1;
    }
    return (int64_t)(at + o);
}

static void read_move(const sweep__ctab *t, sweep_msg_move *m, int *bad)
{
    m->entity = cu32(t, SWEEP__MOVE_ENTITY, bad);
    m->sequence = cu32(t, SWEEP__MOVE_SEQUENCE, bad);
    m->client_tick = cu64(t, SWEEP__MOVE_CLIENT_TICK, bad);
    m->velocity = cvec3(t, SWEEP__MOVE_VELOCITY, 1, NULL, bad);
    m->dt = cf64(t, SWEEP__MOVE_DT, bad);
    m->claimed_position = cvec3(t, SWEEP__MOVE_CLAIMED_POSITION, 0, &m->has_claimed_position, bad);
    m->buttons = cu32(t, SWEEP__MOVE_BUTTONS, bad);
    m->mode = sweep__cu8(t, SWEEP__MOVE_MODE, bad);
}

static void read_result(const sweep__ctab *t, size_t n, sweep_msg_move_result *r, int *bad)
{
    r->entity = cu32(t, SWEEP__MR_ENTITY, bad);
    r->sequence = cu32(t, SWEEP__MR_SEQUENCE, bad);
    r->server_tick = cu64(t, SWEEP__MR_SERVER_TICK, bad);
    r->position = cvec3(t, SWEEP__MR_POSITION, 1, NULL, bad);
    r->velocity = cvec3(t, SWEEP__MR_VELOCITY, 1, NULL, bad);
    r->grounded = sweep__cu8(t, SWEEP__MR_GROUNDED, bad) != 0;
    r->ground_normal = cvec3(t, SWEEP__MR_GROUND_NORMAL, 0, NULL, bad);
    r->ground_material = cu32(t, SWEEP__MR_GROUND_MATERIAL, bad);
    r->corrected = sweep__cu8(t, SWEEP__MR_CORRECTED, bad) != 0;
    r->correction = cf64(t, SWEEP__MR_CORRECTION, bad);
    r->ground_mover = cu32(t, SWEEP__MR_GROUND_MOVER, bad);
    r->pushed_by = cu32(t, SWEEP__MR_PUSHED_BY, bad);
    r->carried = sweep__cu8(t, SWEEP__MR_CARRIED, bad) != 0;
    r->pushed = sweep__cu8(t, SWEEP__MR_PUSHED, bad) != 0;
    r->start_position = cvec3(t, SWEEP__MR_START_POSITION, 0, &r->has_start_position, bad);
    r->rules = cu32(t, SWEEP__MR_RULES, bad);
    r->speed_excess = cf64(t, SWEEP__MR_SPEED_EXCESS, bad);
    r->time_excess = cf64(t, SWEEP__MR_TIME_EXCESS, bad);
    r->applied_dt = cf64(t, SWEEP__MR_APPLIED_DT, bad);
    r->launched_by = cu32(t, SWEEP__MR_LAUNCHED_BY, bad);
    r->teleported_by = cu32(t, SWEEP__MR_TELEPORTED_BY, bad);
    r->teleport_blocked = sweep__cu8(t, SWEEP__MR_TELEPORT_BLOCKED, bad) != 0;
    r->hurt_by = cu32(t, SWEEP__MR_HURT_BY, bad);
    r->damage = cf64(t, SWEEP__MR_DAMAGE, bad);
    r->killed_by = cu32(t, SWEEP__MR_KILLED_BY, bad);
    r->entered = cu32(t, SWEEP__MR_ENTERED, bad);
    r->left = cu32(t, SWEEP__MR_LEFT, bad);
    r->crouched = sweep__cu8(t, SWEEP__MR_CROUCHED, bad) != 0;
    r->stance_blocked = sweep__cu8(t, SWEEP__MR_STANCE_BLOCKED, bad) != 0;
    sweep__medium_read(sweep__cfield(t, SWEEP__MR_MEDIUM, SWEEP__MEDIUM_SIZE, bad), r);
    r->contact_count = 0;
    int64_t at = cfollow(t, n, SWEEP__MR_CONTACTS, bad);
    if (at < 0)
        return;
    /* The count, then its contacts, inside the buffer; no more than a
     * result holds (sweep_decode refuses more, with its own error). */
    if ((size_t)at % 4 || n - (size_t)at < 4) {
        *bad = 1;
        return;
    }
    uint32_t count = sweep__rd32(t->b + at);
    size_t e = (size_t)at + 4;
    if (count > SWEEP_MAX_CONTACTS || (size_t)count * SWEEP__CONTACT_SIZE > n - e) {
        *bad = 1;
        return;
    }
    for (uint32_t i = 0; i < count; i++)
        r->contacts[i] = sweep__contact_read(t->b + e + (size_t)i * SWEEP__CONTACT_SIZE);
    r->contact_count = count;
}

sweep_proto_error sweep__decode_kind_checked(const void *buf, size_t len, unsigned flags, sweep_msg_kind *kind)
{
    return sweep__decode_kind_inline(buf, len, flags, kind);
}

sweep_proto_error sweep__decode_motion_checked(const sweep_decoder *d, const void *buf, size_t len, unsigned flags,
                                               sweep_decoded_motion *out)
{
    if (!d || !buf || !out || d->limits.max_depth || d->limits.max_tables)
        return SWEEP_PROTO_E_ARG;
    const uint8_t *b = buf;
    size_t n = len;
    sweep__ctab root, body;
    if (sweep__ctab_root(b, n, flags, &root) != 0)
        return SWEEP_PROTO_E_ARG;
    int bad = 0;
    sweep_decoded_motion m = {SWEEP_MSG_NONE, 0, 0, NULL, 0, NULL, 0};
    m.sequence = cu32(&root, SWEEP__MESSAGE_SEQUENCE, &bad);
    m.server_tick = cu64(&root, SWEEP__MESSAGE_SERVER_TICK, &bad);
    m.kind = (sweep_msg_kind)sweep__cu8(&root, SWEEP__MESSAGE_BODY_TYPE, &bad);
    if (m.kind != SWEEP_MSG_MOVE && m.kind != SWEEP_MSG_MOVE_RESULT)
        return SWEEP_PROTO_E_ARG;
    int64_t at = cfollow(&root, n, SWEEP__MESSAGE_BODY, &bad);
    if (bad || at < 0 || sweep__ctab_at(b, n, (size_t)at, &body) != 0)
        return SWEEP_PROTO_E_ARG;
    if (m.kind == SWEEP_MSG_MOVE) {
        if (d->moves_cap < 1)
            return SWEEP_PROTO_E_ARG;
        read_move(&body, d->moves, &bad);
        m.moves = d->moves;
        m.move_count = 1;
    } else {
        if (d->results_cap < 1)
            return SWEEP_PROTO_E_ARG;
        read_result(&body, n, d->results, &bad);
        m.results = d->results;
        m.result_count = 1;
    }
    if (bad)
        return SWEEP_PROTO_E_ARG;
    *out = m;
    return SWEEP_PROTO_OK;
}
