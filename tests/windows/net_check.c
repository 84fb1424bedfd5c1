/*
 * net_check.c - what the Windows build of libsweep makes of a UDP server
 * that is not there, run under wine by test_windows.c (Windows only). A
 * UDP peer's port that nobody listens on answers with an ICMP refusal,
 * which Winsock tells in its own ways, and a client must end with
 * CONNECT as on Linux rather than wait for ever:
 *
 *   net_check refused HOST:PORT
 *       connects over UDP to a port nobody listens on (10 s allowed):
 *       "connect=STATUS"
 *   net_check gone HOST:PORT
 *       connects to a sweepd, spawns, says "connected" and then moves
 *       and polls while the test kills the server, for 20 s at most:
 *       "gone=STATUS" (none: nothing but TIMEOUT)
 *   net_check told-once HOST:PORT
 *       watches the world of a sweepd and, once a WorldState was read,
 *       fails the next recv with WSAECONNRESET once, as Windows does
 *       after a refusal and wine does not: "gone=STATUS kept=K", K
 *       "some" if WorldStates were handed out once the failure was told
 *       (the one read with it among them), else "none"
 *   net_check send-reset HOST:PORT
 *       spawns on a sweepd and fails the next send with WSAECONNRESET
 *       once, as Windows does on a UDP socket after a refusal:
 *       "send=STATUS"
 *
 * For the last two, this program stands in for Windows between libsweep
 * and Winsock: libsweep calls recv and send through the pointers a
 * Windows program imports them by (__imp_recv, __imp_send), which are
 * defined here and call Winsock's own, looked up by name, but for the
 * failure armed. Nothing is armed in the first two, which see wine's
 * Winsock as it is.
 */
#include <stdio.h>
#include <string.h>

#include <winsock2.h>
#include <windows.h>

#include "client-sdk/client.h"

typedef int(WSAAPI *recv_fn)(SOCKET, char *, int, int);
typedef int(WSAAPI *send_fn)(SOCKET, const char *, int, int);

static recv_fn winsock_recv;
static send_fn winsock_send;
static int fail_recv_after_data; /* armed: fail the recv after the next that reads something */
static int fail_recv_next;
static int recv_failed; /* the armed failure was told */
static int fail_send_next;

static void find_winsock(void)
{
    if (winsock_recv)
        return;
    HMODULE ws = GetModuleHandleA("ws2_32.dll");
    winsock_recv = (recv_fn)(void (*)(void))GetProcAddress(ws, "recv");
    winsock_send = (send_fn)(void (*)(void))GetProcAddress(ws, "send");
}

static int WSAAPI stand_in_recv(SOCKET s, char *buf, int len, int flags)
{
    find_winsock();
    if (fail_recv_next) {
        fail_recv_next = 0;
        recv_failed = 1;
        WSASetLastError(WSAECONNRESET);
        return SOCKET_ERROR;
    }
    int r = winsock_recv(s, buf, len, flags);
    if (r > 0 && fail_recv_after_data) {
        fail_recv_after_data = 0;
        fail_recv_next = 1;
    }
    return r;
}

static int WSAAPI stand_in_send(SOCKET s, const char *buf, int len, int flags)
{
    find_winsock();
    if (fail_send_next) {
        fail_send_next = 0;
        WSASetLastError(WSAECONNRESET);
        return SOCKET_ERROR;
    }
    return winsock_send(s, buf, len, flags);
}

recv_fn __imp_recv = stand_in_recv;
send_fn __imp_send = stand_in_send;

static sweep_client *connect_udp(const char *address, int timeout_ms, sweep_client_status *s)
{
    sweep_client_options o;
    sweep_client_options_init(&o);
    o.transport = SWEEP_CLIENT_UDP;
    o.address = address;
    o.client_name = "net_check";
    o.timeout_ms = timeout_ms;
    sweep_client *c = NULL;
    sweep_client_error e;
    *s = sweep_client_connect(&o, &c, &e);
    if (*s != SWEEP_CLIENT_OK)
        fprintf(stderr, "net_check: connect: %s: %s\n", sweep_client_error_name(&e), e.message);
    return c;
}

static int fail(const char *what, const sweep_client_error *e)
{
    fprintf(stderr, "net_check: %s: %s: %s\n", what, sweep_client_error_name(e), e->message);
    return 1;
}

/* Moves and polls for up to 20 s: the first status neither OK nor
 * TIMEOUT, or SWEEP_CLIENT_OK if none came. */
static sweep_client_status until_gone(sweep_client *c, uint32_t entity)
{
    sweep_client_error e;
    uint64_t end = sweep_client_now_ns() + 20000000000ull;
    while (sweep_client_now_ns() < end) {
        sweep_client_move_req m = {.entity = entity, .dt = 1.0 / 60};
        sweep_client_status s = sweep_client_send_move(c, &m, NULL, &e);
        if (s != SWEEP_CLIENT_OK)
            return s;
        sweep_client_event ev;
        while ((s = sweep_client_poll(c, 50, &ev, &e)) == SWEEP_CLIENT_OK)
            ;
        if (s != SWEEP_CLIENT_E_TIMEOUT)
            return s;
    }
    return SWEEP_CLIENT_OK;
}

static const char *outcome(sweep_client_status s)
{
    return s == SWEEP_CLIENT_OK ? "none" : sweep_client_status_name(s);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc != 3) {
        fprintf(stderr, "usage: net_check refused|gone|told-once|send-reset HOST:PORT\n");
        return 2;
    }
    const char *mode = argv[1], *address = argv[2];
    sweep_client_status s;
    sweep_client_error e;
    if (strcmp(mode, "refused") == 0) {
        sweep_client *c = connect_udp(address, 10000, &s);
        printf("connect=%s\n", sweep_client_status_name(s));
        sweep_client_close(c);
        return 0;
    }
    sweep_client *c = connect_udp(address, 10000, &s);
    if (c == NULL)
        return 1;
    int rc = 0;
    if (strcmp(mode, "gone") == 0 || strcmp(mode, "send-reset") == 0) {
        sweep_msg_spawned me;
        if (sweep_client_spawn_player(c, 0, &me, &e) != SWEEP_CLIENT_OK) {
            sweep_client_close(c);
            return fail("spawn", &e);
        }
        if (strcmp(mode, "gone") == 0) {
            printf("connected\n");
            printf("gone=%s\n", outcome(until_gone(c, me.entity)));
        } else {
            fail_send_next = 1;
            sweep_client_move_req m = {.entity = me.entity, .dt = 1.0 / 60};
            printf("send=%s\n", sweep_client_status_name(sweep_client_send_move(c, &m, NULL, &e)));
        }
    } else if (strcmp(mode, "told-once") == 0) {
        sweep_msg_world_state ws;
        if (sweep_client_watch_world(c, 1, &ws, &e) != SWEEP_CLIENT_OK) {
            sweep_client_close(c);
            return fail("watch", &e);
        }
        fail_recv_after_data = 1;
        sweep_client_event ev;
        uint64_t end = sweep_client_now_ns() + 5000000000ull;
        s = SWEEP_CLIENT_OK;
        /* The WorldState read in the batch the failure ended is still
         * handed out (queued events come before the session's end), and
         * so are any read as the socket is emptied after it. */
        int kept = 0;
        while (s == SWEEP_CLIENT_OK && sweep_client_now_ns() < end) {
            sweep_client_status p = sweep_client_poll(c, 50, &ev, &e);
            if (p == SWEEP_CLIENT_OK && recv_failed)
                kept += ev.kind == SWEEP_CLIENT_EV_WORLD_STATE;
            if (p != SWEEP_CLIENT_OK && p != SWEEP_CLIENT_E_TIMEOUT)
                s = p;
        }
        while (s != SWEEP_CLIENT_OK && sweep_client_poll(c, 0, &ev, &e) == SWEEP_CLIENT_OK)
            kept += ev.kind == SWEEP_CLIENT_EV_WORLD_STATE;
        printf("gone=%s kept=%s\n", outcome(s), kept ? "some" : "none");
    } else {
        fprintf(stderr, "net_check: unknown mode %s\n", mode);
        rc = 2;
    }
    sweep_client_close(c);
    return rc;
}
