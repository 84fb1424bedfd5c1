/*
 * test_addresses.c - libsweep and the addresses a name resolves to,
 * against a real sweepd on 127.0.0.1: every address of a name is tried in
 * turn, over UDP as over TCP. One that refuses (nobody listens there)
 * gives way to the next at once, as "localhost" resolving to ::1 first
 * must reach a sweepd on 127.0.0.1; one that stays silent gives way after
 * its share of the connect timeout; one that answered keeps the rest of
 * it. And the resolver's words end cleanly in a message.
 *
 * The names are the test's own: getaddrinfo and gai_strerror are wrapped
 * for this program alone (-Wl,--wrap, client-sdk.mk), so that
 * "refused.test" resolves to 127.0.0.2 (loopback too, where sweepd, on
 * 127.0.0.1 alone, does not listen) and then 127.0.0.1, "v6first.test" to
 * ::1 and then 127.0.0.1, "silent.test" to 127.0.0.3, where a socket of
 * the test takes the datagrams, and then 127.0.0.1; a name under .invalid
 * fails without asking any resolver. Every other name goes to the
 * system's getaddrinfo, and gai_strerror says the system's words unless a
 * test asks for Winsock's.
 */
#include "tests/sweepd_fixture.h"

#include <netdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "protocol/encode.h"
#include "tests/client-sdk/fake_server.h"

static fx_server D;
static int HAVE_V6;

/* The test's names and their addresses, in the order they resolve. */
static const struct {
    const char *name;
    const char *addrs[2];
} NAMES[] = {
    {"refused.test", {"127.0.0.2", "127.0.0.1"}},
    {"v6first.test", {"::1", "127.0.0.1"}},
    {"silent.test", {"127.0.0.3", "127.0.0.1"}},
};

int __real_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
const char *__real_gai_strerror(int rc);
const char *__wrap_gai_strerror(int rc);

int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
    size_t nl = node ? strlen(node) : 0;
    if (nl > 8 && strcmp(node + nl - 8, ".invalid") == 0)
        return EAI_NONAME;
    for (size_t i = 0; node && i < sizeof NAMES / sizeof *NAMES; i++) {
        if (strcmp(node, NAMES[i].name) != 0)
            continue;
        /* Each address as the system gives it for itself, the lists one
         * after the other (glibc's freeaddrinfo frees entry by entry). */
        struct addrinfo h = *hints, *head = NULL, **tail = &head;
        h.ai_flags |= AI_NUMERICHOST;
        for (int k = 0; k < 2; k++) {
            int rc = __real_getaddrinfo(NAMES[i].addrs[k], service, &h, tail);
            if (rc != 0) {
                if (head)
                    freeaddrinfo(head);
                return rc;
            }
            while (*tail)
                tail = &(*tail)->ai_next;
        }
        *res = head;
        return 0;
    }
    return __real_getaddrinfo(node, service, hints, res);
}

static int WINSOCK_WORDS;

const char *__wrap_gai_strerror(int rc)
{
    /* What the Windows build says for a name that does not resolve
     * (mingw-w64's gai_strerrorA: the system's message, its line break
     * turned into a space), as it printed under wine. */
    if (WINSOCK_WORDS && rc == EAI_NONAME)
        return "Host not found. ";
    return __real_gai_strerror(rc);
}

static int have_ipv6_loopback(void)
{
    FILE *f = fopen("/proc/net/if_inet6", "r");
    if (!f)
        return 0;
    char line[256];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strncmp(line, "00000000000000000000000000000001", 32) == 0;
    fclose(f);
    return found;
}

static int setup(void **state)
{
    (void)state;
    HAVE_V6 = have_ipv6_loopback();
    return fx_start(&D, NULL);
}

static int teardown(void **state)
{
    (void)state;
    return fx_stop(&D) == 0 ? 0 : -1;
}

static void options_for(sweep_client_options *o, char *addr, size_t cap, const char *name,
                        sweep_client_transport t, int timeout_ms)
{
    snprintf(addr, cap, "%s:%d", name, D.port);
    sweep_client_options_init(o);
    o->transport = t;
    o->address = addr;
    o->client_name = "test_addresses";
    o->timeout_ms = timeout_ms;
}

/* The IPv4 address the client's socket is connected to, as text. */
static const char *peer_of(const sweep_client *c, char *buf, size_t cap)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    snprintf(buf, cap, "?");
    if (getpeername(sweep_client_fd(c), (struct sockaddr *)&sa, &len) == 0 && sa.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, buf, (socklen_t)cap);
    return buf;
}

/* Connects from the caller's own poll(2) loop, as a game's does: waits no
 * longer than sweep_client_poll_events says. */
static sweep_client_status drive(sweep_client *c, sweep_client_error *e)
{
    for (;;) {
        sweep_client_status s = sweep_client_connect_step(c, 0, e);
        if (s != SWEEP_CLIENT_E_AGAIN)
            return s;
        int ms;
        int events = sweep_client_poll_events(c, &ms);
        assert_true(events != 0);
        struct pollfd p = {.fd = sweep_client_fd(c), .events = (short)events};
        assert_true(poll(&p, 1, ms) >= 0);
    }
}

/* A UDP socket of the test's own on 127.0.0.3 and sweepd's port: it takes
 * the datagrams sent there, and nothing is refused. One at a time: a new
 * one closes the last, which a failed test left open. */
static int silent_socket(void)
{
    static int last = -1;
    if (last >= 0)
        close(last);
    int fd = last = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)D.port)};
    inet_pton(AF_INET, "127.0.0.3", &a.sin_addr);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Datagrams waiting on fd, read and counted. */
static int drain_count(int fd)
{
    uint8_t buf[2048];
    int n = 0;
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        n++;
    return n;
}

/* Over UDP a refusal (an ICMP port unreachable) fails that address only:
 * the next one is tried at once, as a refused TCP connect moves on. Over
 * UDP the whole connect failed, within milliseconds, on the first
 * address's refusal. */
static void a_refused_address_gives_way_to_the_next(void **state)
{
    (void)state;
    const char *names[] = {"refused.test", "v6first.test"};
    for (int n = 0; n < 2; n++) {
        if (n == 1 && !HAVE_V6) {
            fprintf(stderr, "note: no ::1 on this machine (/proc/net/if_inet6): v6first.test skipped\n");
            continue;
        }
        for (int t = 0; t < 2; t++) {
            for (int blocking = 0; blocking < 2; blocking++) {
                char addr[128], peer[64];
                sweep_client_options o;
                /* Each of the two addresses has 10 s to itself: the
                 * refusal must not wait for that. */
                options_for(&o, addr, sizeof addr, names[n], (sweep_client_transport)t, 20000);
                sweep_client *c = NULL;
                sweep_client_error e;
                uint64_t t0 = fx_now_ms();
                sweep_client_status s;
                if (blocking) {
                    s = sweep_client_connect(&o, &c, &e);
                } else {
                    assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
                    s = drive(c, &e);
                }
                uint64_t took = fx_now_ms() - t0;
                if (s != SWEEP_CLIENT_OK)
                    fail_msg("%s %s (%s): %s: %s", t ? "udp" : "tcp", addr, blocking ? "blocking" : "steps",
                             sweep_client_error_name(&e), e.message);
                assert_true(took < 10000);
                assert_string_equal(peer_of(c, peer, sizeof peer), "127.0.0.1");
                assert_int_equal(sweep_client_ping(c, NULL, &e), SWEEP_CLIENT_OK);
                sweep_client_close(c);
            }
        }
    }
    /* The refusing address alone: the connect fails, as before. */
    sweep_client_options o;
    char addr[128];
    options_for(&o, addr, sizeof addr, "127.0.0.2", SWEEP_CLIENT_UDP, 20000);
    sweep_client *c = (sweep_client *)&o;
    sweep_client_error e;
    assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_CONNECT);
    assert_null(c);
    assert_non_null(strstr(e.message, "connection refused"));
}

/* A UDP address that says nothing (where no refusal comes back: a
 * firewall that drops, a host that ignores) gives way after its share of
 * the timeout, the time left split between it and the addresses after
 * it: 1.5 s of 3 here. It held the whole timeout, and the connect failed
 * with TIMEOUT though the next address answers. */
static void a_silent_address_has_its_share_of_the_time(void **state)
{
    (void)state;
    int quiet = silent_socket();
    for (int blocking = 0; blocking < 2; blocking++) {
        char addr[128], peer[64];
        sweep_client_options o;
        options_for(&o, addr, sizeof addr, "silent.test", SWEEP_CLIENT_UDP, 3000);
        /* Stepping: no resend due within the timeout, so only
         * sweep_client_poll_events's wait brings the caller back when
         * the share ends. */
        o.udp_retry_ms = blocking ? 100 : 60000;
        sweep_client *c = NULL;
        sweep_client_error e;
        uint64_t t0 = fx_now_ms();
        sweep_client_status s;
        if (blocking) {
            s = sweep_client_connect(&o, &c, &e);
        } else {
            assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
            s = drive(c, &e);
        }
        uint64_t took = fx_now_ms() - t0;
        if (s != SWEEP_CLIENT_OK)
            fail_msg("udp %s (%s): %s: %s", addr, blocking ? "blocking" : "steps", sweep_client_error_name(&e),
                     e.message);
        assert_true(took >= 1400);
        assert_true(took < 3000);
        assert_string_equal(peer_of(c, peer, sizeof peer), "127.0.0.1");
        /* The silent address was tried first: its Hello (and, blocking,
         * the resends every 100 ms) came to the test's socket. */
        int hellos = drain_count(quiet);
        assert_true(blocking ? hellos >= 3 : hellos == 1);
        assert_int_equal(sweep_client_ping(c, NULL, &e), SWEEP_CLIENT_OK);
        sweep_client_close(c);
    }
}

/* An address that answered keeps the rest of the timeout: a server that
 * sent its Challenge and is slow with the Welcome is not left for the
 * next address when its share ends. The test answers for 127.0.0.3. */
static void an_address_that_answered_keeps_the_time(void **state)
{
    (void)state;
    int fake = silent_socket();
    char addr[128], peer[64];
    sweep_client_options o;
    options_for(&o, addr, sizeof addr, "silent.test", SWEEP_CLIENT_UDP, 4000);
    o.udp_retry_ms = 60000;
    sweep_client *c = NULL;
    sweep_client_error e;
    uint64_t t0 = fx_now_ms();
    assert_int_equal(sweep_client_connect_start(&o, &c, &e), SWEEP_CLIENT_OK);
    struct sockaddr_in from;
    sweep_message hello = fake_next_hello(fake, &from);
    assert_null(hello.as.hello.cookie.ptr);
    sweep_message ch = {.kind = SWEEP_MSG_CHALLENGE, .sequence = hello.sequence};
    ch.as.challenge.cookie = (sweep_bytes){(const uint8_t *)"cookie01", 8};
    fake_answer(fake, &ch, &from);
    struct pollfd p = {.fd = sweep_client_fd(c), .events = POLLIN};
    assert_int_equal(poll(&p, 1, 5000), 1);
    assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_E_AGAIN);
    hello = fake_next_hello(fake, &from);
    assert_non_null(hello.as.hello.cookie.ptr);
    /* Past the address's share (2 s of 4): still on it, still waiting. */
    while (fx_now_ms() < t0 + 2500)
        usleep(10000);
    assert_int_equal(sweep_client_connect_step(c, 0, &e), SWEEP_CLIENT_E_AGAIN);
    assert_string_equal(peer_of(c, peer, sizeof peer), "127.0.0.3");
    sweep_message w = fake_welcome_msg(hello.sequence, 12, 1200);
    fake_answer(fake, &w, &from);
    assert_int_equal(sweep_client_connect_step(c, 1000, &e), SWEEP_CLIENT_OK);
    assert_string_equal(sweep_client_get_welcome(c)->map_name, "fake");
    assert_string_equal(peer_of(c, peer, sizeof peer), "127.0.0.3");
    sweep_client_close(c);
}

/* The resolver's words end the message without the ". " of Winsock's
 * (the message read "nonexistent.invalid:1: Host not found. " on
 * Windows), and the system's are given as they are. */
static void the_resolvers_words_end_cleanly(void **state)
{
    (void)state;
    for (int w = 0; w < 2; w++) {
        WINSOCK_WORDS = w;
        sweep_client_options o;
        sweep_client_options_init(&o);
        o.transport = SWEEP_CLIENT_UDP;
        o.address = "nonexistent.invalid:1";
        sweep_client *c;
        sweep_client_error e;
        assert_int_equal(sweep_client_connect(&o, &c, &e), SWEEP_CLIENT_E_ADDRESS);
        assert_null(c);
        char want[256];
        snprintf(want, sizeof want, "nonexistent.invalid:1: %s",
                 w ? "Host not found" : __real_gai_strerror(EAI_NONAME));
        assert_string_equal(e.message, want);
    }
    WINSOCK_WORDS = 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_refused_address_gives_way_to_the_next),
        cmocka_unit_test(a_silent_address_has_its_share_of_the_time),
        cmocka_unit_test(an_address_that_answered_keeps_the_time),
        cmocka_unit_test(the_resolvers_words_end_cleanly),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
