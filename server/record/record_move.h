/*
 * record_move.h - internal: the payload of a MOVE record (record.h), the
 * core's input and output of one move in a little-endian layout (never
 * installed): the full layout of versions 2 to 5, every field at a fixed
 * place, or the compact one of version 6, whose ground and rare fields
 * are there only when they may be other than zero. Byte 55 of an image
 * says which (and a log's version which it must be).
 *
 * The writer (recorder.c, from a sweep_msg_move_result) builds the image
 * from the fields the core depth of a replay (client-sdk/replay_core.c,
 * from the core's output) compares a record with, next to each other
 * here, so a replayed move matches its record exactly when the image the
 * writer would make of it is the record's bytes; only a mismatch is
 * decoded, to name the field. A Walk move's image is compared straight
 * from sweep_act's output (sweep__record_move_same_act_in), held to the
 * same answer by tests/server/test_record_move.c.
 */
#ifndef SWEEP_SERVER_RECORD_MOVE_H
#define SWEEP_SERVER_RECORD_MOVE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/motion.h"
#include "core/mover.h"
#include "protocol/format.h"
#include "protocol/message.h"
#include "server/record/record.h"

/* The result's rules a MOVE holds: the core's (sweep_act's), not the
 * server's (TimeBudget, Correction, Vertical). */
#define SWEEP__RECORD_MOVE_RULES (SWEEP_WIRE_RULE_SPEED | SWEEP_WIRE_RULE_JUMP | SWEEP_WIRE_RULE_LIMIT)

/* The longest image of either layout: every contact a result may hold
 * (a compact image's parts are never longer than the full fixed part). */
#define SWEEP__RECORD_MOVE_MAX (SWEEP_RECORD_MOVE_FIXED + SWEEP_MAX_CONTACTS * SWEEP_RECORD_MOVE_CONTACT)

/* The compact layout (record.h): its fixed part (session to velocity, as
 * in the full layout), the ground part of a grounded move (normal and
 * material) and the rare part (start position, speed_excess, ground
 * mover, pushed_by, the core's rules). */
#define SWEEP__RECORD_MOVE_HEAD 104u
#define SWEEP__RECORD_MOVE_GROUND_LEN 28u
#define SWEEP__RECORD_MOVE_RARE_LEN 44u

/* Byte 55 of an image: zero in the full layout; in the compact one
 * SWEEP__RECORD_MOVE_COMPACT, with SWEEP__RECORD_MOVE_RARE when the rare
 * part follows (exactly when one of its fields is not zero, or the move
 * started elsewhere: so an image's bytes are one function of its fields). */
enum { SWEEP__RECORD_MOVE_COMPACT = 0x80u, SWEEP__RECORD_MOVE_RARE = 0x01u };

/* 1 when a log of this version holds its MOVE images in the compact
 * layout. */
static inline int sweep__record_move_compact_in(uint32_t version)
{
    return version >= 6u;
}

/* A MOVE read back: the move as the core was given it (with whether the
 * server forgave a cut of its time), and the result fields the record
 * holds (entity, sequence, applied_dt, position, velocity, grounded,
 * ground normal and material, contacts, ground_mover, carried, pushed,
 * pushed_by, start position, the core's rules, speed_excess, crouched,
 * stance_blocked); the others are zero. */
typedef struct sweep__move_record {
    uint64_t session;
    uint32_t mode;    /* SWEEP_WIRE_MODE_* */
    uint32_t buttons; /* Move.buttons */
    sweep_vec3 wish;  /* Move.velocity */
    int cut_forgiven; /* flag 64 */
    sweep_msg_move_result result;
} sweep__move_record;

/* The fields of a MOVE, as its image holds them (record.h); contacts
 * point to where they are (a MoveResult's, or the core's own result's:
 * only point, normal, triangle and material are written). */
typedef struct sweep__record_move_fields {
    uint64_t session;
    uint32_t entity, sequence;
    sweep_vec3 wish;
    double granted;
    uint32_t buttons, mode;
    int grounded, carried, pushed, has_start_position, crouched, stance_blocked;
    int cut_forgiven; /* the server cut the move's time and forgave it (sweep__record_move_cut_forgiven) */
    uint32_t contact_count; /* at most SWEEP_MAX_CONTACTS */
    sweep_vec3 position, velocity, ground_normal, start_position;
    double speed_excess;
    uint32_t ground_material, ground_mover, pushed_by, rules; /* rules: the core's bits only */
    const sweep_contact *contacts;
} sweep__record_move_fields;

/* Byte 53 of an image: its flags. */
enum {
    SWEEP__RECORD_MOVE_GROUNDED = 1u << 0,
    SWEEP__RECORD_MOVE_CARRIED = 1u << 1,
    SWEEP__RECORD_MOVE_PUSHED = 1u << 2,
    SWEEP__RECORD_MOVE_START = 1u << 3,
    SWEEP__RECORD_MOVE_CROUCHED = 1u << 4,
    SWEEP__RECORD_MOVE_STANCE_BLOCKED = 1u << 5,
    SWEEP__RECORD_MOVE_CUT_FORGIVEN = 1u << 6,
    SWEEP__RECORD_MOVE_FLAGS = 0x7fu
};

/* Whether the server cut the time of the move r answers and forgave the
 * cut (a stall of the network: server/world/moves.c): a refused Jump is
 * then not named for a while, which the core depth of a replay learns
 * from the MOVE's flag, since the time asked is not in the log. */
static inline int sweep__record_move_cut_forgiven(const sweep_msg_move_result *r)
{
    return r->time_excess > 0.0 && !(r->rules & SWEEP_WIRE_RULE_TIME_BUDGET);
}

/* Writes the image of a move of `session` (mode, buttons and wish from
 * its Move, whether the server forgave a cut of its time: the move's
 * input, as sweep__record_move_cut_forgiven says of the world's answer;
 * granted dt and every output from res) into out, which holds
 * SWEEP__RECORD_MOVE_MAX bytes, in the compact layout or the full one;
 * returns its length (the writer's). Its contact_count is at most
 * SWEEP_MAX_CONTACTS, as its array holds: the server's is the core's own
 * count (from_core.h), never above it. */
size_t sweep__record_move_encode(uint8_t *out, int compact, uint64_t session, uint32_t mode, uint32_t buttons,
                                 sweep_vec3 wish, int cut_forgiven, const sweep_msg_move_result *res);

/* Checks an image's length and fields against the layout a log of its
 * kind holds (compact or full): 0, or -1 with why (the other layout, a
 * length that is not what its flags and contacts make, more than
 * SWEEP_MAX_CONTACTS contacts, a mode that is not a MoveMode, flag or
 * padding bits set, a rare part there or not as its fields say). */
int sweep__record_move_check(const uint8_t *p, size_t len, int compact, char *why, size_t whylen);

/* The length of a full image with n contacts. */
static inline size_t sweep__record_move_len(uint32_t n)
{
    return SWEEP_RECORD_MOVE_FIXED + (size_t)n * SWEEP_RECORD_MOVE_CONTACT;
}

/* The length of a compact image of these flags (byte 53), byte 55 and n
 * contacts. */
static inline size_t sweep__record_move_compact_len(uint32_t flags, uint32_t parts, uint32_t n)
{
    _Static_assert(SWEEP__RECORD_MOVE_GROUNDED == 1u && SWEEP__RECORD_MOVE_RARE == 1u, "the parts' bits are bit 0");
    return SWEEP__RECORD_MOVE_HEAD + (size_t)(flags & 1u) * SWEEP__RECORD_MOVE_GROUND_LEN +
           (size_t)(parts & 1u) * SWEEP__RECORD_MOVE_RARE_LEN + (size_t)n * SWEEP_RECORD_MOVE_CONTACT;
}

/* The length an image's own bytes 53 to 55 say it has, in its layout (at
 * least its first 56 bytes are there; n above SWEEP_MAX_CONTACTS is the
 * caller's to refuse). */
static inline size_t sweep__record_move_image_len(const uint8_t *p)
{
    return p[55] & SWEEP__RECORD_MOVE_COMPACT ? sweep__record_move_compact_len(p[53], p[55], p[54])
                                              : sweep__record_move_len(p[54]);
}

static inline uint32_t sweep__record_move_flags(const sweep__record_move_fields *f)
{
    return (f->grounded ? SWEEP__RECORD_MOVE_GROUNDED : 0) | (f->carried ? SWEEP__RECORD_MOVE_CARRIED : 0) |
           (f->pushed ? SWEEP__RECORD_MOVE_PUSHED : 0) | (f->has_start_position ? SWEEP__RECORD_MOVE_START : 0) |
           (f->crouched ? SWEEP__RECORD_MOVE_CROUCHED : 0) | (f->stance_blocked ? SWEEP__RECORD_MOVE_STANCE_BLOCKED : 0) |
           (f->cut_forgiven ? SWEEP__RECORD_MOVE_CUT_FORGIVEN : 0);
}

/* The bits of v that differ from the f64 or vec3 at p (0: none). */
static inline uint64_t sweep__record_move_xor_f64(const uint8_t *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return sweep__rd64(p) ^ u;
}

static inline uint64_t sweep__record_move_xor_vec3(const uint8_t *p, sweep_vec3 v)
{
    return sweep__record_move_xor_f64(p, v.x) | sweep__record_move_xor_f64(p + 8, v.y) |
           sweep__record_move_xor_f64(p + 16, v.z);
}

/* Two words of 64 bits (GCC's vector extension: SSE2 on x86-64), loaded
 * from p, or made of two doubles' bits. */
typedef uint64_t sweep__record_move_u64x2 __attribute__((vector_size(16)));

static inline sweep__record_move_u64x2 sweep__record_move_ld2(const uint8_t *p)
{
    sweep__record_move_u64x2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline sweep__record_move_u64x2 sweep__record_move_pair(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return (sweep__record_move_u64x2){x, y};
}

/* Whether a compact image of these fields has its rare part
 * (SWEEP__RECORD_MOVE_RARE or 0): the move started elsewhere, or a rare
 * field is not zero (speed_excess by its bits: -0.0 is kept). */
static inline uint32_t sweep__record_move_rare(int has_start, double speed_excess, uint32_t ground_mover,
                                               uint32_t pushed_by, uint32_t rules)
{
    uint64_t se;
    memcpy(&se, &speed_excess, sizeof se);
    return (uint32_t)((has_start != 0) | (se != 0) | (ground_mover != 0) | (pushed_by != 0) | (rules != 0));
}

/* The bits in which the n contact images at c differ from cs (point,
 * normal, triangle, material: the first 56 bytes of each). */
static inline uint64_t sweep__record_move_contacts_xor(const uint8_t *c, const sweep_contact *cs, uint32_t n)
{
    uint64_t d = 0;
    for (uint32_t i = 0; i < n; i++, c += SWEEP_RECORD_MOVE_CONTACT)
        d |= sweep__record_move_xor_vec3(c, cs[i].point) | sweep__record_move_xor_vec3(c + 24, cs[i].normal) |
             (sweep__rd32(c + 48) ^ cs[i].triangle) | (sweep__rd32(c + 52) ^ cs[i].material);
    return d;
}

/* sweep__record_move_same_output for a compact image (p[55] says so). */
static inline __attribute__((always_inline)) int sweep__record_move_same_compact(const uint8_t *p, size_t len,
                                                                                const sweep__record_move_fields *f)
{
    uint32_t n = f->contact_count, g = f->grounded != 0;
    uint32_t rare =
        sweep__record_move_rare(f->has_start_position, f->speed_excess, f->ground_mover, f->pushed_by, f->rules);
    if (len != sweep__record_move_compact_len(g, rare, n) || p[53] != sweep__record_move_flags(f) || p[54] != n ||
        p[55] != (SWEEP__RECORD_MOVE_COMPACT | rare))
        return 0;
    uint64_t d = sweep__record_move_xor_vec3(p + 56, f->position) | sweep__record_move_xor_vec3(p + 80, f->velocity);
    const uint8_t *q = p + SWEEP__RECORD_MOVE_HEAD;
    if (g) {
        d |= sweep__record_move_xor_vec3(q, f->ground_normal) | (sweep__rd32(q + 24) ^ f->ground_material);
        q += SWEEP__RECORD_MOVE_GROUND_LEN;
    }
    if (rare) {
        d |= sweep__record_move_xor_vec3(q, f->start_position) | sweep__record_move_xor_f64(q + 24, f->speed_excess) |
             (sweep__rd32(q + 32) ^ f->ground_mover) | (sweep__rd32(q + 36) ^ f->pushed_by) |
             (sweep__rd32(q + 40) ^ f->rules);
        q += SWEEP__RECORD_MOVE_RARE_LEN;
    }
    return (d | sweep__record_move_contacts_xor(q, f->contacts, n)) == 0;
}

/* 1 when the image of f (as sweep__record_move_encode would write it)
 * is the len bytes at p, given that f's session, entity,
 * sequence, wish, granted time, buttons and mode were read from them:
 * only what the core made of the move is compared, where it lies, with
 * nothing written (the core depth of a replay, once a move). Inline, so
 * that the fields a replay fills just before are compared from its
 * registers rather than stored and loaded again. */
static inline __attribute__((always_inline)) int sweep__record_move_same_output(const uint8_t *p, size_t len,
                                                                               const sweep__record_move_fields *f)
{
    if (p[55] & SWEEP__RECORD_MOVE_COMPACT)
        return sweep__record_move_same_compact(p, len, f);
    uint32_t n = f->contact_count;
    if (len != sweep__record_move_len(n) || p[53] != sweep__record_move_flags(f) || p[54] != n || p[55] != 0)
        return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The image's bytes 56 to 176 against the fields, two words at a time
     * (the fields stay where the caller keeps them, mostly registers),
     * every difference or-ed into one pair, then one test. */
    sweep__record_move_u64x2 v =
        (sweep__record_move_ld2(p + 56) ^ sweep__record_move_pair(f->position.x, f->position.y)) |
        (sweep__record_move_ld2(p + 72) ^ sweep__record_move_pair(f->position.z, f->velocity.x)) |
        (sweep__record_move_ld2(p + 88) ^ sweep__record_move_pair(f->velocity.y, f->velocity.z)) |
        (sweep__record_move_ld2(p + 104) ^ sweep__record_move_pair(f->ground_normal.x, f->ground_normal.y)) |
        (sweep__record_move_ld2(p + 120) ^ sweep__record_move_pair(f->ground_normal.z, f->start_position.x)) |
        (sweep__record_move_ld2(p + 136) ^ sweep__record_move_pair(f->start_position.y, f->start_position.z));
    uint64_t speed;
    memcpy(&speed, &f->speed_excess, sizeof speed);
    sweep__record_move_u64x2 w = {speed, (uint64_t)f->ground_material | (uint64_t)f->ground_mover << 32};
    v |= sweep__record_move_ld2(p + 152) ^ w;
    uint64_t d = v[0] | v[1] | (sweep__rd64(p + 168) ^ ((uint64_t)f->pushed_by | (uint64_t)f->rules << 32));
#else
    /* Every field or-ed into one word, then one test: mostly nothing
     * differs, and a branch a field cost more than the loads. */
    uint64_t d = sweep__record_move_xor_vec3(p + 56, f->position) | sweep__record_move_xor_vec3(p + 80, f->velocity) |
                 sweep__record_move_xor_vec3(p + 104, f->ground_normal) |
                 sweep__record_move_xor_vec3(p + 128, f->start_position) |
                 sweep__record_move_xor_f64(p + 152, f->speed_excess) | (sweep__rd32(p + 160) ^ f->ground_material) |
                 (sweep__rd32(p + 164) ^ f->ground_mover) | (sweep__rd32(p + 168) ^ f->pushed_by) |
                 (sweep__rd32(p + 172) ^ f->rules);
#endif
    return (d | sweep__record_move_contacts_xor(p + SWEEP_RECORD_MOVE_FIXED, f->contacts, n)) == 0;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* sweep__record_move_contacts_xor from the contacts' own bytes, two words
 * at a time: on a little-endian host a contact's first 56 bytes are its
 * image (sweep__record_move_same_act_in asserts it). */
static inline __attribute__((always_inline)) uint64_t sweep__record_move_contacts_raw(const uint8_t *c, const sweep_contact *cs, uint32_t n)
{
    uint64_t d = 0;
    for (uint32_t i = 0; i < n; i++, c += SWEEP_RECORD_MOVE_CONTACT) {
        const uint8_t *k = (const uint8_t *)&cs[i];
        sweep__record_move_u64x2 w = (sweep__record_move_ld2(c) ^ sweep__record_move_ld2(k)) |
                                     (sweep__record_move_ld2(c + 16) ^ sweep__record_move_ld2(k + 16)) |
                                     (sweep__record_move_ld2(c + 32) ^ sweep__record_move_ld2(k + 32));
        d |= w[0] | w[1] | (sweep__rd64(c + 48) ^ sweep__rd64(k + 48));
    }
    return d;
}
#endif

/* 1 when the image of a Walk move that ran is the MOVE payload at p, as
 * sweep__record_move_same_output says for the fields moves.c makes of
 * it (client-sdk/replay_core.c's motion_fields): compared straight from
 * the core's output, the actor after the move *a (its stance too) and
 * sweep_act's result *res (its contacts), rules (only the core's bits),
 * speed_excess and stance_blocked, whether the server forgave a cut of
 * its time (cut_forgiven: the image's own flag, the move's input),
 * with the ground mover's id, what the movers did to the entity since its
 * last move (moved: the entity's moved_flags, SWEEP_BODY_CARRIED and
 * PUSHED and a Teleport's SWEEP__ENTITY_PLACED) and, when any is set, the
 * mover's id (0 for none) and where the move started. The
 * fields are not made first: their selects (no ground normal off the
 * ground, no start when nothing moved the entity) and flag bits are
 * masks, the start and pushed_by compared only when the movers moved the
 * entity (rarely), and position and velocity are the actor's own 48
 * bytes, as the image's. p's layout was checked (sweep__record_move_ok:
 * every reader checks every MOVE, and names a bad one as corruption), so
 * its length is the one its count makes, and the count is compared.
 * Fewer instructions a move than making the fields and comparing them
 * (tests/server/test_record_move.c holds the two to the same answer).
 * compact: p's layout, the log's (a constant where the caller's loop is
 * made once for each, so that the other layout's code goes). */
static inline __attribute__((always_inline)) int
sweep__record_move_same_act_in(const uint8_t *p, int compact, const sweep_actor *a, const sweep_move_result *res,
                               uint32_t rules, double speed_excess, uint32_t stance_blocked, uint32_t cut_forgiven,
                               uint32_t ground_mover, uint32_t moved, uint32_t pushed_by, const sweep_vec3 *start)
{
    uint32_t n = res->contact_count, g = a->grounded != 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(SWEEP_BODY_CARRIED << 1 == SWEEP__RECORD_MOVE_CARRIED &&
                       SWEEP_BODY_PUSHED << 1 == SWEEP__RECORD_MOVE_PUSHED,
                   "a body's moved bits are the image's flags, one place up");
    _Static_assert(offsetof(sweep_actor, velocity) == 24 && offsetof(sweep_contact, normal) == 24 &&
                       offsetof(sweep_contact, triangle) == 48 && offsetof(sweep_contact, material) == 52,
                   "the actor's position and velocity, and a contact's first 56 bytes, are laid out as the image");
    /* Bytes 53 to 55: flags, count, padding. */
    /* moved may hold more than the movers' bits (a Teleport's
     * SWEEP__ENTITY_PLACED): any of them gives the start, those two alone
     * their flags. */
    uint32_t flags = g | (moved & (SWEEP_BODY_CARRIED | SWEEP_BODY_PUSHED)) << 1 | (uint32_t)(moved != 0) << 3 |
                     (uint32_t)(a->stance != 0) << 4 | (uint32_t)(stance_blocked != 0) << 5 |
                     (uint32_t)(cut_forgiven != 0) << 6;
    const uint8_t *ac = (const uint8_t *)a;
    if (compact) {
        /* Bytes 53 and 54 (flags, count), then position and velocity;
         * the ground part when grounded; the rare part where the image
         * has one (its layout was checked: then byte 55 is 0x80 or
         * 0x81), and where it has none the rare fields must all be zero
         * (the start is told by the flags). Each part is compared only
         * where it is. */
        uint64_t se;
        memcpy(&se, &speed_excess, sizeof se);
        uint32_t pb = moved ? pushed_by : 0;
        if (sweep__rd16(p + 53) != (flags | n << 8))
            return 0;
        sweep__record_move_u64x2 v = (sweep__record_move_ld2(p + 56) ^ sweep__record_move_ld2(ac)) |
                                     (sweep__record_move_ld2(p + 72) ^ sweep__record_move_ld2(ac + 16)) |
                                     (sweep__record_move_ld2(p + 88) ^ sweep__record_move_ld2(ac + 32));
        uint64_t d = v[0] | v[1];
        const uint8_t *q = p + SWEEP__RECORD_MOVE_HEAD;
        if (g) {
            d |= sweep__record_move_xor_vec3(q, res->ground_normal) | (sweep__rd32(q + 24) ^ res->ground_material);
            q += SWEEP__RECORD_MOVE_GROUND_LEN;
        }
        if (p[55] & SWEEP__RECORD_MOVE_RARE) {
            d |= (moved ? sweep__record_move_xor_vec3(q, *start)
                        : sweep__rd64(q) | sweep__rd64(q + 8) | sweep__rd64(q + 16)) |
                 (sweep__rd64(q + 24) ^ se) | (sweep__rd64(q + 32) ^ (ground_mover | (uint64_t)pb << 32)) |
                 (sweep__rd32(q + 40) ^ rules);
            q += SWEEP__RECORD_MOVE_RARE_LEN;
        } else {
            d |= se | ground_mover | pb | rules;
        }
        return (d | sweep__record_move_contacts_raw(q, res->contacts, n)) == 0;
    }
    if ((sweep__rd32(p + 52) >> 8) != (flags | n << 8))
        return 0;
    uint64_t gm = 0 - (uint64_t)g;
    sweep__record_move_u64x2 gm2 = {gm, gm};
    uint64_t gz, se;
    memcpy(&gz, &res->ground_normal.z, sizeof gz);
    memcpy(&se, &speed_excess, sizeof se);
    sweep__record_move_u64x2 v =
        (sweep__record_move_ld2(p + 56) ^ sweep__record_move_ld2(ac)) |
        (sweep__record_move_ld2(p + 72) ^ sweep__record_move_ld2(ac + 16)) |
        (sweep__record_move_ld2(p + 88) ^ sweep__record_move_ld2(ac + 32)) |
        (sweep__record_move_ld2(p + 104) ^ (sweep__record_move_ld2((const uint8_t *)&res->ground_normal) & gm2)) |
        (sweep__record_move_ld2(p + 152) ^
         (sweep__record_move_u64x2){se, ((uint64_t)res->ground_material & gm) | (uint64_t)ground_mover << 32});
    uint64_t tail = (uint64_t)rules << 32; /* pushed_by, rules */
    uint64_t d = v[0] | v[1] | (sweep__rd64(p + 120) ^ (gz & gm));
    if (moved) {
        tail |= pushed_by;
        d |= sweep__record_move_xor_vec3(p + 128, *start);
    } else {
        d |= sweep__rd64(p + 128) | sweep__rd64(p + 136) | sweep__rd64(p + 144);
    }
    d |= sweep__rd64(p + 168) ^ tail;
    return (d | sweep__record_move_contacts_raw(p + SWEEP_RECORD_MOVE_FIXED, res->contacts, n)) == 0;
#else
    sweep__record_move_fields f = {
        .grounded = (int)g,
        .carried = (moved & SWEEP_BODY_CARRIED) != 0,
        .pushed = (moved & SWEEP_BODY_PUSHED) != 0,
        .has_start_position = moved != 0,
        .crouched = a->stance != 0,
        .stance_blocked = stance_blocked != 0,
        .cut_forgiven = cut_forgiven != 0,
        .contact_count = n,
        .position = a->position,
        .velocity = a->velocity,
        .ground_normal = g ? res->ground_normal : sweep_v3(0, 0, 0),
        .start_position = moved ? *start : sweep_v3(0, 0, 0),
        .speed_excess = speed_excess,
        .ground_material = g ? res->ground_material : 0,
        .ground_mover = ground_mover,
        .pushed_by = moved ? pushed_by : 0,
        .rules = rules,
        .contacts = res->contacts,
    };
    return sweep__record_move_same_output(p, sweep__record_move_image_len(p), &f);
#endif
}

/* What sweep__record_move_check accepts, without saying why not: the
 * readers' fast path (protocol/format.h reads). The check does not call
 * it first: tests/fuzz/fuzz_log.c holds the two to the same answer, both
 * ways, which it could not if one were made of the other. */
static inline int sweep__record_move_ok(const uint8_t *p, size_t len, int compact)
{
    if (len < (compact ? SWEEP__RECORD_MOVE_HEAD : SWEEP_RECORD_MOVE_FIXED))
        return 0;
    uint32_t n = p[54], flags = p[53];
    if (n > SWEEP_MAX_CONTACTS || p[52] >= SWEEP_WIRE_MODE_COUNT || (flags & ~(unsigned)SWEEP__RECORD_MOVE_FLAGS))
        return 0;
    if (!compact)
        /* rules (172, little-endian): only the core's bits 0..2 */
        return p[55] == 0 && len == sweep__record_move_len(n) && (p[172] & ~(unsigned)SWEEP__RECORD_MOVE_RULES) == 0 &&
               p[173] == 0 && p[174] == 0 && p[175] == 0;
    uint32_t parts = p[55];
    if ((parts & ~(unsigned)SWEEP__RECORD_MOVE_RARE) != SWEEP__RECORD_MOVE_COMPACT ||
        len != sweep__record_move_compact_len(flags, parts, n))
        return 0;
    if (!(parts & SWEEP__RECORD_MOVE_RARE))
        return !(flags & SWEEP__RECORD_MOVE_START);
    const uint8_t *q = p + SWEEP__RECORD_MOVE_HEAD + (flags & SWEEP__RECORD_MOVE_GROUNDED ? SWEEP__RECORD_MOVE_GROUND_LEN : 0);
    uint32_t rules = sweep__rd32(q + 40);
    /* There only when the move started elsewhere or a field is not zero. */
    return (rules & ~(uint32_t)SWEEP__RECORD_MOVE_RULES) == 0 &&
           ((flags & SWEEP__RECORD_MOVE_START) || (sweep__rd64(q + 24) | sweep__rd64(q + 32) | rules) != 0);
}

/* Reads a checked image back. */
void sweep__record_move_decode(const uint8_t *p, size_t len, sweep__move_record *out);

#endif
