/*
 * medium_image.h - internal: the 20 bytes of a MoveResult's Medium (the
 * liquid and ladder a move ended in), as the schema's struct lays them
 * out: liquid, entered_liquid, left_liquid and ladder as u32, then
 * liquid_type and liquid_level as u8, two bytes of padding to its
 * alignment of 4, little-endian. A result carries it only when one of its
 * fields is not zero, so a move far from every liquid and ladder is
 * encoded as it was before there were any.
 */
#ifndef SWEEP_PROTOCOL_MEDIUM_IMAGE_H
#define SWEEP_PROTOCOL_MEDIUM_IMAGE_H

#include <stdint.h>

#include "protocol/format.h"
#include "protocol/message.h"

#define SWEEP__MEDIUM_SIZE 20u
#define SWEEP__MEDIUM_ALIGN 4u

static inline int sweep__medium_present(const sweep_msg_move_result *r)
{
    return (r->liquid | r->entered_liquid | r->left_liquid | r->ladder | (uint8_t)r->liquid_type |
            (uint8_t)r->liquid_level) != 0;
}

static inline void sweep__medium_write(uint8_t *p, const sweep_msg_move_result *r)
{
    sweep__wr32(p, r->liquid);
    sweep__wr32(p + 4, r->entered_liquid);
    sweep__wr32(p + 8, r->left_liquid);
    sweep__wr32(p + 12, r->ladder);
    p[16] = (uint8_t)r->liquid_type;
    p[17] = (uint8_t)r->liquid_level;
    p[18] = 0;
    p[19] = 0;
}

/* p NULL: the field is absent, every value 0. */
static inline void sweep__medium_read(const uint8_t *p, sweep_msg_move_result *r)
{
    r->liquid = p ? sweep__rd32(p) : 0;
    r->entered_liquid = p ? sweep__rd32(p + 4) : 0;
    r->left_liquid = p ? sweep__rd32(p + 8) : 0;
    r->ladder = p ? sweep__rd32(p + 12) : 0;
    r->liquid_type = p ? p[16] : 0;
    r->liquid_level = p ? p[17] : 0;
}

#endif
