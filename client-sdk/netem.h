/*
 * netem.h - a bad network inside one process, for sweep-bots: UDP relays
 * that drop, delay and reorder the datagrams going through them, both
 * ways, so that bots meet loss, jitter and reordering without root,
 * without tc(8) and without touching the machine's other traffic.
 *
 * Each link is a pair of sockets: a front socket on 127.0.0.1 (port 0,
 * chosen by the kernel) that one client sends to instead of the server,
 * and a back socket connected to the server. A datagram from the client
 * goes out of the back socket and a datagram from the server goes back to
 * the client's address (the last one the front socket heard from), each
 * after the impairment: dropped with probability `loss`, else delayed by
 * a uniform [0, jitter_ms], and with probability `reorder` held back 20 to
 * 40 ms more, so that datagrams sent after it overtake it. The server sees
 * the back socket's address as the client's, so its UDP handshake (which
 * binds a cookie to the address) works through the relay.
 *
 * The relays run on a thread of their own: a client's blocking calls (the
 * handshake, a spawn) need them to keep going while its own thread waits.
 * Nothing else is shared with that thread until sweep_netem_stop has
 * joined it. The random draws come from one xorshift generator seeded by
 * the options, so a run's drop pattern depends only on the seed and on
 * the order datagrams arrive in.
 */
#ifndef SWEEP_CLIENT_SDK_NETEM_H
#define SWEEP_CLIENT_SDK_NETEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct sweep_netem_options {
    double loss;      /* probability a datagram is dropped, each direction, [0, 1] */
    double jitter_ms; /* each datagram is delayed by a uniform [0, jitter_ms], [0, 10000] */
    double reorder;   /* probability a datagram is held back 20-40 ms more, [0, 1] */
    uint64_t seed;    /* of the random draws; 0 = a fixed default */
} sweep_netem_options;

/* What went through the relays, per direction (0 = to the server, 1 = to
 * the clients). */
typedef struct sweep_netem_counters {
    uint64_t received[2];  /* datagrams taken in */
    uint64_t dropped[2];   /* ... dropped on purpose */
    uint64_t reordered[2]; /* ... held back to be overtaken */
    uint64_t delivered[2]; /* ... sent on */
    uint64_t failed[2];    /* ... that the socket would not take (a full buffer, nobody listening) */
    uint64_t overflow[2];  /* ... dropped because the delay queue was full (should stay 0) */
} sweep_netem_counters;

typedef struct sweep_netem sweep_netem;

/*
 * Opens `links` relays to the UDP server at `upstream` ("HOST:PORT") and
 * starts the thread, not impairing yet (sweep_netem_impair). Returns 0, or -1 with err saying why (bad options or
 * address, out of sockets or memory, no thread); nothing is left running
 * then.
 */
int sweep_netem_start(const sweep_netem_options *o, const char *upstream, uint32_t links, sweep_netem **out,
                      char *err, size_t errlen);

/* Turns the impairment on or off (it starts off: datagrams go through at
 * once, untouched), so that a program can connect its clients quickly and
 * then make the network bad for what it measures. Any thread may call it. */
void sweep_netem_impair(sweep_netem *n, int on);

/* The "127.0.0.1:PORT" a client sends to for link i (< links). */
const char *sweep_netem_address(const sweep_netem *n, uint32_t i);

/* Stops the thread, closes the sockets and frees everything; *out (may be
 * NULL) gets the counters. Datagrams still delayed are dropped. NULL is
 * ignored. */
void sweep_netem_stop(sweep_netem *n, sweep_netem_counters *out);

#endif
