/*
 * test_listen.c - where sweepd listens (--listen), against the real binary:
 * "localhost" is 127.0.0.1; an IPv6 loopback address serves the TCP
 * handshake and the UDP one; and a listening address sweepd cannot have
 * stops it with the address and the reason named, whichever of its two
 * sockets could not be bound, or a host that is not a numeric address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/sweepd_fixture.h"
#include "tests/test_skip.h"

/* A socket of type bound on 127.0.0.1:port (0: a port the kernel picks),
 * listening if a stream; its port in *got. -1 if it cannot be had. */
static int taken(int type, int port, int *got)
{
    int fd = socket(AF_INET, type, 0);
    struct sockaddr_in a = fx_addr(port);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || (type == SOCK_STREAM && listen(fd, 1) != 0) ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *got = ntohs(a.sin_port);
    return fd;
}

/* sweepd on the arena with --listen `listen`, run to its end: its exit
 * status, its output (stdout and stderr) in *out. */
static int sweepd_listening(const char *listen, char **out)
{
    fx_server fx;
    fx_paths(&fx);
    return fx_run_program(fx.bin, out, "--map '%s' --listen '%s'", fx.arena, listen);
}

/* Starts sweepd with --listen `listen`; its ready line must name host (as
 * it writes addresses) and the port it got, for TCP and UDP alike. */
static void start_listening(fx_server *srv, const char *listen, const char *host)
{
    const char *extra[] = {"--listen", listen, NULL};
    assert_int_equal(fx_start(srv, extra), 0);
    char want[96];
    snprintf(want, sizeof want, "%s:%d", host, srv->port);
    assert_string_equal(srv->tcp, want);
    assert_string_equal(srv->udp, want);
}

static void test_localhost_is_the_loopback(void **state)
{
    (void)state;
    fx_server srv;
    start_listening(&srv, "localhost:0", "127.0.0.1");
    fx_rx *rx = fx_rx_new();
    int fd = fx_tcp_connect(srv.port);
    assert_true(fd >= 0);
    assert_true(fx_hello(fd, rx) != 0);
    close(fd);
    free(rx);
    assert_int_equal(fx_stop(&srv), 0);
}

/* A socket of type connected to [::1]:port, or -1. */
static int v6_connected(int type, int port)
{
    int fd = socket(AF_INET6, type, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    a.sin6_addr = in6addr_loopback;
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void test_ipv6_loopback_serves_both_handshakes(void **state)
{
    (void)state;
    int probe = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    a.sin6_addr = in6addr_loopback;
    int have_v6 = probe >= 0 && bind(probe, (struct sockaddr *)&a, sizeof a) == 0;
    if (probe >= 0)
        close(probe);
    if (!have_v6)
        skip_because("this machine cannot bind the IPv6 loopback address ::1");
    fx_server srv;
    start_listening(&srv, "[::1]:0", "[::1]");
    fx_rx *rx = fx_rx_new();
    int tcp = v6_connected(SOCK_STREAM, srv.port);
    assert_true(tcp >= 0);
    assert_true(fx_hello(tcp, rx) != 0);
    int udp = v6_connected(SOCK_DGRAM, srv.port);
    assert_true(udp >= 0);
    assert_true(fx_udp_handshake(udp, rx) != 0);
    close(tcp);
    close(udp);
    free(rx);
    assert_int_equal(fx_stop(&srv), 0);
}

/* sweepd asked to listen on 127.0.0.1:port stops, naming the socket
 * (proto: "tcp" or "udp") it could not bind there and why. */
static void stops_on_taken_port(const char *proto, int port)
{
    char listen[64], want[96];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    snprintf(want, sizeof want, "%s bind 127.0.0.1:%d: %s", proto, port, strerror(EADDRINUSE));
    char *out = NULL;
    int rc = sweepd_listening(listen, &out);
    assert_non_null(out);
    if (rc == 0 || !strstr(out, want))
        fail_msg("exit status %d, output '%s', wanted '%s'", rc, out, want);
    free(out);
}

static void test_a_taken_tcp_port_is_named(void **state)
{
    (void)state;
    int port = 0;
    int fd = taken(SOCK_STREAM, 0, &port);
    assert_true(fd >= 0);
    stops_on_taken_port("tcp", port);
    close(fd);
}

/* The UDP socket is bound after the TCP one, on the port TCP got: a port
 * free for TCP whose UDP side another socket holds stops sweepd at the
 * UDP bind. */
static void test_a_taken_udp_port_is_named(void **state)
{
    (void)state;
    int port = 0, fd = -1;
    for (int tries = 0; tries < 20 && fd < 0; tries++) {
        fd = taken(SOCK_DGRAM, 0, &port);
        int tcp_port;
        int tcp = fd >= 0 ? taken(SOCK_STREAM, port, &tcp_port) : -1;
        if (tcp >= 0) {
            close(tcp); /* free for TCP: sweepd will get it */
        } else if (fd >= 0) {
            close(fd);
            fd = -1;
        }
    }
    assert_true(fd >= 0);
    stops_on_taken_port("udp", port);
    close(fd);
}

static void test_a_host_name_is_refused(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = sweepd_listening("nowhere.invalid:0", &out);
    assert_non_null(out);
    if (rc == 0 || !strstr(out, "--listen: 'nowhere.invalid' is not a numeric IPv4 or IPv6 address"))
        fail_msg("exit status %d, output '%s'", rc, out);
    free(out);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_localhost_is_the_loopback),
        cmocka_unit_test(test_ipv6_loopback_serves_both_handshakes),
        cmocka_unit_test(test_a_taken_tcp_port_is_named),
        cmocka_unit_test(test_a_taken_udp_port_is_named),
        cmocka_unit_test(test_a_host_name_is_refused),
    };
    return cmocka_run_group_tests_name("sweepd listening", tests, NULL, NULL);
}
