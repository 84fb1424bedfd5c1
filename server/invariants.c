/*
 * invariants.c - the ownership rules of server_impl.h, checked with
 * assert after every request and every tick in builds that ask for it
 * (SWEEP_CHECKS: make DEBUG=1 and the sanitizer builds). A release build
 * compiles this to nothing: the walk is linear in sessions and entities.
 * What a world holds is checked by the world library
 * (server/world/invariants.c); here, how sessions and connections hold it.
 *
 * Only internal state is asserted here, never anything a client sent.
 */
#include "server/server_impl.h"

#if SWEEP_CHECKS
#include <assert.h>

void sweep__check_invariants(const sweep_server *s)
{
    /* Sessions: a well-linked list of session_count. */
    uint32_t sessions = 0;
    uint64_t owned = 0;
    uint32_t watching = 0, udp = 0;
    const sweep__session *prev = NULL;
    for (const sweep__session *ss = s->sessions; ss; ss = ss->next) {
        assert(ss->prev == prev);
        assert(ss->server == s);
        assert(ss->own.world == ss->world->world);
        assert(ss->world->server == s && ss->world->started);
        owned += ss->own.entity_count;
        assert(ss->watching == (ss->watch_every != 0 || ss->watch_entities_every != 0));
        watching += ss->watching;
        udp += ss->transport == SWEEP__UDP;
        prev = ss;
        sessions++;
    }
    assert(sessions == s->session_count);
    assert(udp == s->sessions_by_transport[1] && sessions - udp == s->sessions_by_transport[0]);
    /* Every world's entities are owned by sessions of this server (the
     * world library checks that each is its owner's). */
    uint64_t listed = 0;
    uint64_t in_worlds = 0;
    for (unsigned i = 0; i < s->world_count; i++) {
        const sweep__served *w = s->worlds[i];
        assert(w->server == s && w->started);
        sweep__world_check(w->world);
        listed += w->world->ent_count;
        in_worlds += w->session_count;
        /* Its watchers: a well-linked list of its own sessions. */
        const sweep__session *wprev = NULL;
        for (const sweep__session *ss = w->watchers; ss; ss = ss->watch_next) {
            assert(ss->watch_prev == wprev && ss->world == w && ss->watching);
            wprev = ss;
            watching--;
        }
    }
    /* Each session is in one of this thread's worlds, counted there. */
    assert(in_worlds == sessions);
    assert(watching == 0); /* every watching session was in its world's list */
    assert(listed == owned);
    assert(s->entity_mem == (size_t)owned * SWEEP__ENTITY_BYTES);
    /* Connections: a well-linked list of conn_count; a session it carries
     * points back at it. */
    uint32_t conns = 0;
    size_t mem = 0;
    const sweep__conn *cprev = NULL;
    for (const sweep__conn *c = s->conns; c; c = c->next) {
        assert(c->prev == cprev);
        assert(!c->session || c->session->conn == c);
        /* Memory: counted as held, within the caps (the answer buffers may
         * pass theirs by one final Error of at most 512 bytes). */
        assert(c->mem == sizeof *c + c->in_cap + c->flight_cap + c->queue_cap + c->held_cap);
        assert(c->held_len <= c->held_cap && c->held_cap <= sizeof s->read_buf);
        assert(c->in_len <= c->in_cap && c->in_cap <= SWEEP_FRAME_PREFIX + (size_t)s->opt.max_frame);
        assert(c->flight_len <= c->flight_cap && c->queue_len <= c->queue_cap);
        assert(c->flight_cap + c->queue_cap <= (size_t)s->opt.max_write_queue + 512u);
        assert(c->writing || c->queue_len == 0);
        mem += c->mem;
        cprev = c;
        conns++;
    }
    assert(conns == s->conn_count);
    assert(mem == s->conn_mem);
}
#endif
