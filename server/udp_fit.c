/*
 * udp_fit.c - what one UDP datagram of a session's agreed size holds.
 *
 * A UDP session's datagrams are as large as its handshake agreed
 * (Hello.max_datagram against --udp-max-datagram, protocol/framing.h), and
 * every message cut into datagrams (MoveBatch limits, WorldState,
 * EntityStates) is cut by what that size holds. The counts come from trial
 * encodings (protocol/encode.h): the server finds the two it always needs
 * (1200 bytes and its own limit) once, and a session that agreed a size
 * between them has its own found at its Hello.
 */
#include "protocol/encode.h"
#include "protocol/framing.h"
#include "server/server_impl.h"

static void find(uint32_t datagram, sweep__udp_fit *out)
{
    out->datagram = datagram;
    out->batch = sweep_udp_max_batch_claimed_in(datagram);
    out->movers = sweep_udp_max_movers_in(datagram);
    out->entity_states = sweep_udp_max_entity_states_in(datagram);
}

void sweep__udp_fit_init(sweep_server *s)
{
    find(SWEEP_UDP_MAX_DATAGRAM, &s->udp_plain);
    uint32_t widest = sweep_udp_datagram_agreed(s->opt.udp_max_datagram, s->opt.udp_max_datagram);
    if (widest == SWEEP_UDP_MAX_DATAGRAM)
        s->udp_widest = s->udp_plain;
    else
        find(widest, &s->udp_widest);
}

void sweep__udp_fit_for(const sweep_server *s, uint32_t datagram, sweep__udp_fit *out)
{
    if (datagram == s->udp_plain.datagram)
        *out = s->udp_plain;
    else if (datagram == s->udp_widest.datagram)
        *out = s->udp_widest;
    else
        find(datagram, out);
}
