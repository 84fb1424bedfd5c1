/*
 * contact_image.h - internal: the 56 bytes of one contact, as the schema's
 * Contact struct lays them out (point and normal as three f64 each, then
 * triangle and material as u32, little-endian). A session log's MOVE
 * record keeps its contacts in the same image, so the codec and the log
 * read and write them here. Mover and body are not in it: a contact read
 * back has neither (UINT32_MAX).
 */
#ifndef SWEEP_PROTOCOL_CONTACT_IMAGE_H
#define SWEEP_PROTOCOL_CONTACT_IMAGE_H

#include <stdint.h>

#include "protocol/format.h"
#include "protocol/schema.h"

static inline sweep_contact sweep__contact_read(const uint8_t *p)
{
    sweep_contact c;
    c.point = sweep__rdvec3(p);
    c.normal = sweep__rdvec3(p + 24);
    c.triangle = sweep__rd32(p + 48);
    c.material = sweep__rd32(p + 52);
    c.mover = UINT32_MAX;
    c.body = UINT32_MAX;
    return c;
}

static inline void sweep__contact_write(uint8_t *p, const sweep_contact *c)
{
    sweep__wrvec3(p, c->point);
    sweep__wrvec3(p + 24, c->normal);
    sweep__wr32(p + 48, c->triangle);
    sweep__wr32(p + 52, c->material);
}

#endif
