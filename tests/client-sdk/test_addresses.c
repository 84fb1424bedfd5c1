/*
 * test_addresses.c - libsweep and the addresses it is given: the
 * resolver's words end cleanly in a message.
 *
 * getaddrinfo and gai_strerror are wrapped for this program alone
 * (-Wl,--wrap, client-sdk.mk): a name under .invalid fails without asking
 * any resolver, and gai_strerror says the system's words unless a test
 * asks for Winsock's.
 */
#include "tests/sweepd_fixture.h"

#include <netdb.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "client-sdk/client.h"

int __real_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
const char *__real_gai_strerror(int rc);
const char *__wrap_gai_strerror(int rc);

int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
    size_t nl = node ? strlen(node) : 0;
    if (nl > 8 && strcmp(node + nl - 8, ".invalid") == 0)
        return EAI_NONAME;
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
        cmocka_unit_test(the_resolvers_words_end_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
