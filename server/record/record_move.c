/*
 * record_move.c - the MOVE record's payload (record_move.h, layout in
 * record.h).
 */
#include "server/record/record_move.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "protocol/contact_image.h"
#include "protocol/format.h"

_Static_assert(SWEEP_RECORD_MOVE_CONTACT == SWEEP__CONTACT_SIZE, "a MOVE's contact is the wire's Contact image");

/* The compact image's parts after its velocity (record.h): the ground
 * part when grounded, the rare part when rare says; returns where the
 * contacts go. */
static uint8_t *put_parts(uint8_t *o, int grounded, uint32_t rare, sweep_vec3 ground_normal, uint32_t ground_material,
                          sweep_vec3 start, double speed_excess, uint32_t ground_mover, uint32_t pushed_by,
                          uint32_t rules)
{
    if (grounded) {
        sweep__wrvec3(o, ground_normal);
        sweep__wr32(o + 24, ground_material);
        o += SWEEP__RECORD_MOVE_GROUND_LEN;
    }
    if (rare) {
        sweep__wrvec3(o, start);
        sweep__wrf64(o + 24, speed_excess);
        sweep__wr32(o + 32, ground_mover);
        sweep__wr32(o + 36, pushed_by);
        sweep__wr32(o + 40, rules);
        o += SWEEP__RECORD_MOVE_RARE_LEN;
    }
    return o;
}

#if !SWEEP__LE_HOST
/* The image of f (record.h's layout, compact or full); its length. */
static size_t encode_fields(uint8_t *out, int compact, const sweep__record_move_fields *f)
{
    uint32_t n = f->contact_count;
    sweep__wr64(out + 0, f->session);
    sweep__wr32(out + 8, f->entity);
    sweep__wr32(out + 12, f->sequence);
    sweep__wrvec3(out + 16, f->wish);
    sweep__wrf64(out + 40, f->granted);
    sweep__wr32(out + 48, f->buttons);
    out[52] = (uint8_t)f->mode;
    out[53] = (uint8_t)sweep__record_move_flags(f);
    out[54] = (uint8_t)n;
    out[55] = 0;
    sweep__wrvec3(out + 56, f->position);
    sweep__wrvec3(out + 80, f->velocity);
    if (compact) {
        uint32_t rare =
            sweep__record_move_rare(f->has_start_position, f->speed_excess, f->ground_mover, f->pushed_by, f->rules);
        out[55] = (uint8_t)(SWEEP__RECORD_MOVE_COMPACT | rare);
        uint8_t *c = put_parts(out + SWEEP__RECORD_MOVE_HEAD, f->grounded, rare, f->ground_normal, f->ground_material,
                               f->start_position, f->speed_excess, f->ground_mover, f->pushed_by, f->rules);
        for (uint32_t i = 0; i < n; i++, c += SWEEP_RECORD_MOVE_CONTACT)
            sweep__contact_write(c, &f->contacts[i]);
        return (size_t)(c - out);
    }
    sweep__wrvec3(out + 104, f->ground_normal);
    sweep__wrvec3(out + 128, f->start_position);
    sweep__wrf64(out + 152, f->speed_excess);
    sweep__wr32(out + 160, f->ground_material);
    sweep__wr32(out + 164, f->ground_mover);
    sweep__wr32(out + 168, f->pushed_by);
    sweep__wr32(out + 172, f->rules);
    uint8_t *c = out + SWEEP_RECORD_MOVE_FIXED;
    for (uint32_t i = 0; i < n; i++, c += SWEEP_RECORD_MOVE_CONTACT)
        sweep__contact_write(c, &f->contacts[i]);
    return sweep__record_move_len(n);
}
#endif

/* Written straight from the result rather than through encode_fields:
 * sweepd writes an image for every move it records, and on a
 * little-endian host the result's position and velocity (48 bytes in a
 * row, as in the image), its vectors and a contact's first 56 bytes are
 * their image already, so each is one copy; the flags, the count and the
 * core's rules are made where they lie. About 78 instructions a move
 * through the fields, fewer this way (callgrind; docs/performance.md,
 * Recording); tests/server/test_record_move.c holds the two to the same
 * bytes. */
size_t sweep__record_move_encode(uint8_t *out, int compact, uint64_t session, uint32_t mode, uint32_t buttons,
                                 sweep_vec3 wish, int cut_forgiven, const sweep_msg_move_result *res)
{
#if SWEEP__LE_HOST
    _Static_assert(offsetof(sweep_msg_move_result, velocity) == offsetof(sweep_msg_move_result, position) + 24,
                   "a result's position and velocity lie in a row, as in the image");
    _Static_assert(offsetof(sweep_contact, normal) == 24 && offsetof(sweep_contact, triangle) == 48 &&
                       offsetof(sweep_contact, material) == 52,
                   "a contact's first 56 bytes are its image");
    uint32_t n = res->contact_count;
    sweep__wr64(out + 0, session);
    sweep__wr32(out + 8, res->entity);
    sweep__wr32(out + 12, res->sequence);
    memcpy(out + 16, &wish, 24);
    sweep__wrf64(out + 40, res->applied_dt);
    sweep__wr32(out + 48, buttons);
    uint32_t flags = (uint32_t)res->grounded | (uint32_t)res->carried << 1 | (uint32_t)res->pushed << 2 |
                     (uint32_t)res->has_start_position << 3 | (uint32_t)res->crouched << 4 |
                     (uint32_t)res->stance_blocked << 5 | (uint32_t)(cut_forgiven != 0) << 6;
    memcpy(out + 56, &res->position, 48);
    if (compact) {
        uint32_t core_rules = res->rules & SWEEP__RECORD_MOVE_RULES;
        uint32_t rare = sweep__record_move_rare(res->has_start_position, res->speed_excess, res->ground_mover,
                                                res->pushed_by, core_rules);
        sweep__wr32(out + 52, (mode & 0xffu) | flags << 8 | (n & 0xffu) << 16 |
                                  (uint32_t)(SWEEP__RECORD_MOVE_COMPACT | rare) << 24);
        uint8_t *c = put_parts(out + SWEEP__RECORD_MOVE_HEAD, res->grounded, rare, res->ground_normal,
                               res->ground_material, res->start_position, res->speed_excess, res->ground_mover,
                               res->pushed_by, core_rules);
        for (uint32_t i = 0; i < n; i++, c += SWEEP_RECORD_MOVE_CONTACT)
            memcpy(c, &res->contacts[i], SWEEP_RECORD_MOVE_CONTACT);
        return (size_t)(c - out);
    }
    sweep__wr32(out + 52, (mode & 0xffu) | flags << 8 | (n & 0xffu) << 16);
    memcpy(out + 104, &res->ground_normal, 24);
    memcpy(out + 128, &res->start_position, 24);
    sweep__wrf64(out + 152, res->speed_excess);
    sweep__wr32(out + 160, res->ground_material);
    sweep__wr32(out + 164, res->ground_mover);
    sweep__wr32(out + 168, res->pushed_by);
    sweep__wr32(out + 172, res->rules & SWEEP__RECORD_MOVE_RULES);
    uint8_t *c = out + SWEEP_RECORD_MOVE_FIXED;
    for (uint32_t i = 0; i < n; i++, c += SWEEP_RECORD_MOVE_CONTACT)
        memcpy(c, &res->contacts[i], SWEEP_RECORD_MOVE_CONTACT);
    return sweep__record_move_len(n);
#else
    const sweep__record_move_fields f = {
        .session = session,
        .entity = res->entity,
        .sequence = res->sequence,
        .wish = wish,
        .granted = res->applied_dt,
        .buttons = buttons,
        .mode = mode,
        .grounded = res->grounded,
        .carried = res->carried,
        .pushed = res->pushed,
        .has_start_position = res->has_start_position,
        .crouched = res->crouched,
        .stance_blocked = res->stance_blocked,
        .cut_forgiven = cut_forgiven != 0,
        .contact_count = res->contact_count,
        .position = res->position,
        .velocity = res->velocity,
        .ground_normal = res->ground_normal,
        .start_position = res->start_position,
        .speed_excess = res->speed_excess,
        .ground_material = res->ground_material,
        .ground_mover = res->ground_mover,
        .pushed_by = res->pushed_by,
        .rules = res->rules & SWEEP__RECORD_MOVE_RULES,
        .contacts = res->contacts,
    };
    return encode_fields(out, compact, &f);
#endif
}

int sweep__record_move_check(const uint8_t *p, size_t len, int compact, char *why, size_t whylen)
{
    unsigned fixed = compact ? SWEEP__RECORD_MOVE_HEAD : SWEEP_RECORD_MOVE_FIXED;
    if (len < fixed) {
        snprintf(why, whylen, "%zu bytes, shorter than its fixed %u", len, fixed);
        return -1;
    }
    uint32_t n = p[54], flags = p[53], parts = p[55];
    if (n > SWEEP_MAX_CONTACTS) {
        snprintf(why, whylen, "%u contacts, more than a result holds (%u)", n, SWEEP_MAX_CONTACTS);
        return -1;
    }
    if (compact ? (parts & ~(unsigned)SWEEP__RECORD_MOVE_RARE) != SWEEP__RECORD_MOVE_COMPACT : parts != 0) {
        snprintf(why, whylen, "byte 55 is 0x%02x, not the %s layout of this log's version", parts,
                 compact ? "compact" : "full");
        return -1;
    }
    size_t want = compact ? sweep__record_move_compact_len(flags, parts, n) : sweep__record_move_len(n);
    if (len != want) {
        snprintf(why, whylen, "%zu bytes, but its flags, parts and %u contacts make %zu", len, n, want);
        return -1;
    }
    if (p[52] >= SWEEP_WIRE_MODE_COUNT) {
        snprintf(why, whylen, "mode %u is not a MoveMode (Walk 0, Fly 1, Noclip 2)", p[52]);
        return -1;
    }
    /* The compact image's rare part, where it has one. */
    const uint8_t *rare = NULL;
    if (compact && (parts & SWEEP__RECORD_MOVE_RARE))
        rare = p + SWEEP__RECORD_MOVE_HEAD + (flags & SWEEP__RECORD_MOVE_GROUNDED ? SWEEP__RECORD_MOVE_GROUND_LEN : 0);
    uint32_t rules = !compact ? sweep__rd32(p + 172) : rare ? sweep__rd32(rare + 40) : 0;
    if ((flags & ~SWEEP__RECORD_MOVE_FLAGS) || (rules & ~SWEEP__RECORD_MOVE_RULES)) {
        snprintf(why, whylen, "bits set that the layout leaves zero (flags 0x%02x, rules 0x%x)", flags, rules);
        return -1;
    }
    if (compact && !rare && (flags & SWEEP__RECORD_MOVE_START)) {
        snprintf(why, whylen, "a move that started elsewhere without its rare part");
        return -1;
    }
    if (compact && rare && !(flags & SWEEP__RECORD_MOVE_START) &&
        (sweep__rd64(rare + 24) | sweep__rd64(rare + 32) | rules) == 0) {
        snprintf(why, whylen, "a rare part whose fields are all zero");
        return -1;
    }
    return 0;
}

void sweep__record_move_decode(const uint8_t *p, size_t len, sweep__move_record *out)
{
    (void)len;
    memset(out, 0, sizeof *out);
    sweep_msg_move_result *r = &out->result;
    out->session = sweep__rd64(p);
    r->entity = sweep__rd32(p + 8);
    r->sequence = sweep__rd32(p + 12);
    out->wish = sweep__rdvec3(p + 16);
    r->applied_dt = sweep__rdf64(p + 40);
    out->buttons = sweep__rd32(p + 48);
    out->mode = p[52];
    r->grounded = (p[53] & SWEEP__RECORD_MOVE_GROUNDED) != 0;
    r->carried = (p[53] & SWEEP__RECORD_MOVE_CARRIED) != 0;
    r->pushed = (p[53] & SWEEP__RECORD_MOVE_PUSHED) != 0;
    r->has_start_position = (p[53] & SWEEP__RECORD_MOVE_START) != 0;
    r->crouched = (p[53] & SWEEP__RECORD_MOVE_CROUCHED) != 0;
    r->stance_blocked = (p[53] & SWEEP__RECORD_MOVE_STANCE_BLOCKED) != 0;
    out->cut_forgiven = (p[53] & SWEEP__RECORD_MOVE_CUT_FORGIVEN) != 0;
    r->contact_count = p[54] <= SWEEP_MAX_CONTACTS ? p[54] : SWEEP_MAX_CONTACTS;
    r->position = sweep__rdvec3(p + 56);
    r->velocity = sweep__rdvec3(p + 80);
    if (p[55] & SWEEP__RECORD_MOVE_COMPACT) {
        const uint8_t *q = p + SWEEP__RECORD_MOVE_HEAD;
        if (r->grounded) {
            r->ground_normal = sweep__rdvec3(q);
            r->ground_material = sweep__rd32(q + 24);
            q += SWEEP__RECORD_MOVE_GROUND_LEN;
        }
        if (p[55] & SWEEP__RECORD_MOVE_RARE) {
            r->start_position = sweep__rdvec3(q);
            r->speed_excess = sweep__rdf64(q + 24);
            r->ground_mover = sweep__rd32(q + 32);
            r->pushed_by = sweep__rd32(q + 36);
            r->rules = sweep__rd32(q + 40);
            q += SWEEP__RECORD_MOVE_RARE_LEN;
        }
        for (uint32_t i = 0; i < r->contact_count; i++, q += SWEEP_RECORD_MOVE_CONTACT)
            r->contacts[i] = sweep__contact_read(q);
        return;
    }
    r->ground_normal = sweep__rdvec3(p + 104);
    r->start_position = sweep__rdvec3(p + 128);
    r->speed_excess = sweep__rdf64(p + 152);
    r->ground_material = sweep__rd32(p + 160);
    r->ground_mover = sweep__rd32(p + 164);
    r->pushed_by = sweep__rd32(p + 168);
    r->rules = sweep__rd32(p + 172);
    const uint8_t *c = p + SWEEP_RECORD_MOVE_FIXED;
    for (uint32_t i = 0; i < r->contact_count; i++, c += SWEEP_RECORD_MOVE_CONTACT)
        r->contacts[i] = sweep__contact_read(c);
}
