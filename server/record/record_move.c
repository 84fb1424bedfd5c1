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

#if !SWEEP__LE_HOST
/* The image of f (record.h's layout); its length. */
static size_t encode_fields(uint8_t *out, const sweep__record_move_fields *f)
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
size_t sweep__record_move_encode(uint8_t *out, uint64_t session, uint32_t mode, uint32_t buttons, sweep_vec3 wish,
                                 const sweep_msg_move_result *res)
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
                     (uint32_t)res->stance_blocked << 5;
    sweep__wr32(out + 52, (mode & 0xffu) | flags << 8 | (n & 0xffu) << 16);
    memcpy(out + 56, &res->position, 48);
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
    return encode_fields(out, &f);
#endif
}

int sweep__record_move_check(const uint8_t *p, size_t len, char *why, size_t whylen)
{
    if (len < SWEEP_RECORD_MOVE_FIXED) {
        snprintf(why, whylen, "%zu bytes, shorter than its fixed %u", len, SWEEP_RECORD_MOVE_FIXED);
        return -1;
    }
    uint32_t n = p[54];
    if (n > SWEEP_MAX_CONTACTS) {
        snprintf(why, whylen, "%u contacts, more than a result holds (%u)", n, SWEEP_MAX_CONTACTS);
        return -1;
    }
    size_t want = sweep__record_move_len(n);
    if (len != want) {
        snprintf(why, whylen, "%zu bytes, but %u contacts make %zu", len, n, want);
        return -1;
    }
    if (p[52] >= SWEEP_WIRE_MODE_COUNT) {
        snprintf(why, whylen, "mode %u is not a MoveMode (Walk 0, Fly 1, Noclip 2)", p[52]);
        return -1;
    }
    if ((p[53] & ~SWEEP__RECORD_MOVE_FLAGS) || p[55] != 0 || (sweep__rd32(p + 172) & ~SWEEP__RECORD_MOVE_RULES)) {
        snprintf(why, whylen, "bits set that the layout leaves zero (flags 0x%02x, rules 0x%x)", p[53],
                 sweep__rd32(p + 172));
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
    r->contact_count = p[54] <= SWEEP_MAX_CONTACTS ? p[54] : SWEEP_MAX_CONTACTS;
    r->position = sweep__rdvec3(p + 56);
    r->velocity = sweep__rdvec3(p + 80);
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
