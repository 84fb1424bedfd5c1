/*
 * from_core.c - the wire form of the core's move results (from_core.h).
 */
#include "protocol/from_core.h"

uint32_t sweep__wire_contacts_from_core(sweep_contact out[SWEEP_MAX_CONTACTS], const sweep_move_result *res)
{
    uint32_t n = res->contact_count;
    for (uint32_t i = 0; i < n; i++) {
        out[i] = res->contacts[i];
        out[i].mover = UINT32_MAX; /* neither is on the wire */
        out[i].body = UINT32_MAX;
    }
    return n;
}

void sweep__collide_result_from_move(sweep_msg_collide_result *out, const sweep_move_result *res,
                                     uint32_t ground_mover_id)
{
    out->position = res->position;
    out->velocity = res->velocity;
    out->grounded = (res->flags & SWEEP_MOVED_GROUNDED) != 0;
    out->ground_normal = res->ground_normal;
    out->ground_material = res->ground_material;
    out->contact_count = sweep__wire_contacts_from_core(out->contacts, res);
    out->ground_mover = ground_mover_id;
}
