/*
 * test_options.c - unit tests of the server library's small parts: the
 * command line and config file, the HMAC-SHA256 challenge cookie, the
 * per-session token bucket and the tick percentiles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <netinet/in.h>

#include "server/cookie.h"
#include "server/limits.h"
#include "server/options.h"
#include "server/stats.h"

static int parse(sweep_server_options *o, char *err, size_t errlen, int argc, const char **argv)
{
    sweep_server_options_default(o);
    FILE *devnull = fopen("/dev/null", "w");
    int rc = sweep_server_options_parse(o, argc, (char **)argv, devnull, err, errlen);
    fclose(devnull);
    return rc;
}

static void test_defaults_and_cli(void **state)
{
    (void)state;
    sweep_server_options o;
    char err[256];
    const char *argv[] = {"sweepd", "--map", "a.db", "--map=b.db", "--listen", "0.0.0.0:0", "--tick-rate", "30",
                          "--max-sessions", "5", "--max-entities", "2", "--max-batch", "8", "--max-frame", "1024",
                          "--rate-limit", "100", "--log-level", "debug"};
    assert_int_equal(parse(&o, err, sizeof err, 20, argv), SWEEP_OPTIONS_OK);
    assert_int_equal(o.map_count, 2);
    assert_string_equal(o.maps[0], "a.db");
    assert_string_equal(o.maps[1], "b.db");
    assert_string_equal(o.host, "0.0.0.0");
    assert_int_equal(o.port, 0);
    assert_true(o.tick_rate == 30.0);
    assert_int_equal(o.max_sessions, 5);
    assert_int_equal(o.max_entities, 2);
    assert_int_equal(o.max_batch, 8);
    assert_int_equal(o.max_frame, 1024);
    assert_true(o.rate_limit == 100.0);
    assert_int_equal(o.log_level, SWEEP_LOG_DEBUG);
    assert_int_equal(sweep_server_options_check(&o, err, sizeof err), SWEEP_OPTIONS_OK);

    sweep_server_options_default(&o);
    assert_string_equal(o.host, "127.0.0.1");
    assert_int_equal(o.port, 7878);
    assert_int_equal(o.realtime, 0); /* normal priority unless asked */
    const char *rt[] = {"sweepd", "--realtime", "99"};
    assert_int_equal(parse(&o, err, sizeof err, 3, rt), SWEEP_OPTIONS_OK);
    assert_int_equal(o.realtime, 99);
    sweep_server_options_default(&o);
    assert_int_equal(sweep_server_options_check(&o, err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--map"));

    const char *v6[] = {"sweepd", "--listen", "[::1]:99"};
    assert_int_equal(parse(&o, err, sizeof err, 3, v6), SWEEP_OPTIONS_OK);
    assert_string_equal(o.host, "::1");
    assert_int_equal(o.port, 99);

    const char *help[] = {"sweepd", "--help"};
    assert_int_equal(parse(&o, err, sizeof err, 2, help), SWEEP_OPTIONS_EXIT);

    /* No token by default: no session is trusted. */
    sweep_server_options_default(&o);
    assert_string_equal(o.command_token, "");
    const char *tok[] = {"sweepd", "--command-token", "open sesame"};
    assert_int_equal(parse(&o, err, sizeof err, 3, tok), SWEEP_OPTIONS_OK);
    assert_string_equal(o.command_token, "open sesame");

    /* Entities pass through each other unless asked. */
    assert_int_equal(o.players_block, 0);
    const char *block[] = {"sweepd", "--players-block", "on"};
    assert_int_equal(parse(&o, err, sizeof err, 3, block), SWEEP_OPTIONS_OK);
    assert_int_equal(o.players_block, 1);
    const char *unblock[] = {"sweepd", "--players-block", "off"};
    assert_int_equal(parse(&o, err, sizeof err, 3, unblock), SWEEP_OPTIONS_OK);
    assert_int_equal(o.players_block, 0);

    /* Authority: no secret, guests by the secret's absence, no free moves,
     * a quarter second of banked time. */
    sweep_server_options_default(&o);
    assert_int_equal(o.auth_secret_len, 0);
    assert_int_equal(o.allow_guests, -1);
    assert_int_equal(o.allow_free_move, 0);
    assert_true(o.time_bank == 0.25);
    assert_int_equal(o.threads, 1);
    const char *auth[] = {"sweepd", "--allow-guests", "off", "--allow-free-move", "on", "--time-bank", "0.5"};
    assert_int_equal(parse(&o, err, sizeof err, 7, auth), SWEEP_OPTIONS_OK);
    assert_int_equal(o.allow_guests, 0);
    assert_int_equal(o.allow_free_move, 1);
    assert_true(o.time_bank == 0.5);

    /* Worlds at run time: a maps directory stands for --map, and the
     * threads are no longer capped by the maps; --map worlds count
     * against --max-worlds. */
    sweep_server_options_default(&o);
    assert_string_equal(o.maps_dir, "");
    assert_int_equal(o.max_worlds, 64);
    assert_int_equal(o.max_world_triangles, 0);
    const char *dir[] = {"sweepd", "--maps-dir", "/srv/maps", "--threads", "4", "--max-worlds", "8",
                         "--max-world-triangles", "1000000"};
    assert_int_equal(parse(&o, err, sizeof err, 9, dir), SWEEP_OPTIONS_OK);
    assert_string_equal(o.maps_dir, "/srv/maps");
    assert_int_equal(o.max_worlds, 8);
    assert_int_equal(o.max_world_triangles, 1000000);
    assert_int_equal(sweep_server_options_check(&o, err, sizeof err), SWEEP_OPTIONS_OK);
    assert_int_equal(sweep_server_options_threads(&o), 4);
    o.maps_dir[0] = 0;
    snprintf(o.maps[0], sizeof o.maps[0], "a.db");
    o.map_count = 1;
    assert_int_equal(sweep_server_options_threads(&o), 1);
    o.max_worlds = 1;
    snprintf(o.maps[1], sizeof o.maps[1], "b.db");
    o.map_count = 2;
    assert_int_equal(sweep_server_options_check(&o, err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--max-worlds"));
}

/* --auth-secret-file reads the secret at once, so a missing or short file
 * stops the server with the option's name. */
/* The datagram size a UDP session may agree: 1200 unless the operator says
 * more, within what every client takes and what IPv4 carries. */
static void test_udp_max_datagram(void **state)
{
    (void)state;
    sweep_server_options o;
    char err[256];
    sweep_server_options_default(&o);
    assert_int_equal(o.udp_max_datagram, 1200);
    const char *most[] = {"sweepd", "--udp-max-datagram", "65507"};
    assert_int_equal(parse(&o, err, sizeof err, 3, most), SWEEP_OPTIONS_OK);
    assert_int_equal(o.udp_max_datagram, 65507);
    const char *least[] = {"sweepd", "--udp-max-datagram", "1200"};
    assert_int_equal(parse(&o, err, sizeof err, 3, least), SWEEP_OPTIONS_OK);
    assert_int_equal(o.udp_max_datagram, 1200);
    const char *below[] = {"sweepd", "--udp-max-datagram", "1199"};
    assert_int_equal(parse(&o, err, sizeof err, 3, below), SWEEP_OPTIONS_ERROR);
    assert_string_equal(err, "--udp-max-datagram: 1199 is out of range [1200, 65507] (1200: what every client "
                             "takes; 65507: the largest UDP payload over IPv4)");
    const char *above[] = {"sweepd", "--udp-max-datagram", "65508"};
    assert_int_equal(parse(&o, err, sizeof err, 3, above), SWEEP_OPTIONS_ERROR);
    assert_string_equal(err, "--udp-max-datagram: 65508 is out of range [1200, 65507] (1200: what every client "
                             "takes; 65507: the largest UDP payload over IPv4)");
    const char *junk[] = {"sweepd", "--udp-max-datagram", "9k"};
    assert_int_equal(parse(&o, err, sizeof err, 3, junk), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "'9k' is not a whole number"));
}

static void test_auth_secret_file(void **state)
{
    (void)state;
    char path[] = "/tmp/sweepd-secret-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *secret = "kz8Yq2v7Jm0pW4xN6tR1sB3dF5gH9cL0\n";
    assert_int_equal(write(fd, secret, strlen(secret)), (ssize_t)strlen(secret));
    close(fd);
    sweep_server_options o;
    char err[512];
    const char *argv[] = {"sweepd", "--auth-secret-file", path};
    assert_int_equal(parse(&o, err, sizeof err, 3, argv), SWEEP_OPTIONS_OK);
    assert_int_equal(o.auth_secret_len, 32);
    assert_memory_equal(o.auth_secret, "kz8Yq2v7Jm0pW4xN6tR1sB3dF5gH9cL0", 32);
    assert_string_equal(o.auth_secret_file, path);
    assert_int_equal(o.auth_secret_loose, 0); /* mkstemp makes it 0600 */
    FILE *f = fopen(path, "w");
    fputs("too short\n", f);
    fclose(f);
    assert_int_equal(parse(&o, err, sizeof err, 3, argv), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "auth-secret-file"));
    assert_non_null(strstr(err, "9 bytes"));
    unlink(path);
    assert_int_equal(parse(&o, err, sizeof err, 3, argv), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "cannot open"));
}

static void test_bad_options(void **state)
{
    (void)state;
    sweep_server_options o;
    char err[256];
    struct {
        const char *a, *b, *word;
    } bad[] = {
        {"--max-batch", "0", "max-batch"},   {"--max-batch", "12x", "max-batch"}, {"--max-frame", "-5", "max-frame"},
        {"--listen", "1.2.3.4", "listen"},   {"--listen", "h:70000", "listen"},   {"--tick-rate", "nan", "tick-rate"},
        {"--log-level", "loud", "log-level"}, {"--frobnicate", "1", "frobnicate"}, {"--config", "/nonexistent/x", "config"},
        {"--command-token", "", "command-token"}, {"--players-block", "maybe", "players-block"},
        {"--allow-guests", "sometimes", "allow-guests"}, {"--allow-free-move", "2", "allow-free-move"},
        {"--time-bank", "0", "time-bank"}, {"--time-bank", "61", "time-bank"}, {"--auth-secret-file", "", "auth-secret"},
        {"--threads", "0", "threads"}, {"--threads", "17", "threads"},
        {"--maps-dir", "", "maps-dir"}, {"--max-worlds", "0", "max-worlds"},
        {"--max-world-triangles", "-1", "max-world-triangles"},
        {"--record-name", "../up", "record-name"}, {"--record-name", ".hidden", "record-name"},
        {"--seed", "-1", "seed"}, {"--seed", "18446744073709551616", "seed"}, {"--seed", "7x", "seed"},
        {"--seed", " -5", "seed"}, {"--seed", "+5", "seed"},
        {"--realtime", "100", "realtime"}, {"--realtime", "-1", "realtime"}, {"--realtime", "high", "realtime"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {"sweepd", bad[i].a, bad[i].b};
        err[0] = 0;
        assert_int_equal(parse(&o, err, sizeof err, 3, argv), SWEEP_OPTIONS_ERROR);
        assert_non_null(strstr(err, bad[i].word));
    }
    const char *missing[] = {"sweepd", "--map"};
    assert_int_equal(parse(&o, err, sizeof err, 2, missing), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "--map needs a value"));
    /* An unknown last word is named as unknown, not as missing its value. */
    const char *bogus[] = {"sweepd", "--bogus"};
    assert_int_equal(parse(&o, err, sizeof err, 2, bogus), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "unknown option --bogus"));
    char long_token[SWEEP_SERVER_TOKEN_MAX + 1];
    memset(long_token, 't', sizeof long_token - 1);
    long_token[sizeof long_token - 1] = 0;
    const char *too_long[] = {"sweepd", "--command-token", long_token};
    assert_int_equal(parse(&o, err, sizeof err, 3, too_long), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "command-token"));
    long_token[SWEEP_SERVER_TOKEN_MAX - 1] = 0; /* 255 bytes: the most */
    assert_int_equal(parse(&o, err, sizeof err, 3, too_long), SWEEP_OPTIONS_OK);
}

static void test_config_file(void **state)
{
    (void)state;
    char path[] = "/tmp/sweepd-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "# sweepd settings\n"
                       "map = one.db\n"
                       "  max-sessions = 7   # trailing comment\n"
                       "\n"
                       "listen = 127.0.0.1:9000\n"
                       "command-token = s3cr3t # trusted game servers\n"
                       "players-block = yes\n"
                       "threads = 2\n"
                       "map=two.db\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    sweep_server_options o;
    char err[256];
    /* Options after --config override it; --map accumulates. */
    const char *argv[] = {"sweepd", "--max-sessions", "3", "--config", path, "--listen", "127.0.0.1:0"};
    assert_int_equal(parse(&o, err, sizeof err, 7, argv), SWEEP_OPTIONS_OK);
    assert_int_equal(o.max_sessions, 7);
    assert_int_equal(o.port, 0);
    assert_int_equal(o.map_count, 2);
    assert_string_equal(o.maps[1], "two.db");
    assert_string_equal(o.command_token, "s3cr3t");
    assert_int_equal(o.players_block, 1);
    assert_int_equal(o.threads, 2);

    FILE *f = fopen(path, "w");
    fputs("max-sessions = 7\nthis line has no equals sign\n", f);
    fclose(f);
    assert_int_equal(sweep_server_options_load_file(&o, path, err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, ":2:"));
    f = fopen(path, "w");
    fputs("max-batch = lots\n", f);
    fclose(f);
    assert_int_equal(sweep_server_options_load_file(&o, path, err, sizeof err), SWEEP_OPTIONS_ERROR);
    assert_non_null(strstr(err, "max-batch"));
    unlink(path);
}

/* RFC 4231 test case 2. */
static void test_hmac_sha256(void **state)
{
    (void)state;
    static const uint8_t want[32] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24,
                                     0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27,
                                     0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43};
    uint8_t out[32];
    const char *msg = "what do ya want for nothing?";
    sweep__hmac_sha256((const uint8_t *)"Jefe", 4, (const uint8_t *)msg, strlen(msg), out);
    assert_memory_equal(out, want, 32);
}

static void test_cookie(void **state)
{
    (void)state;
    sweep__cookie_key k;
    assert_int_equal(sweep__cookie_key_init(&k, 1000), 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(4000);
    a.sin_addr.s_addr = htonl(0x7f000001);
    uint8_t c[SWEEP__COOKIE_SIZE];
    uint64_t now = 50500; /* bucket 50 */
    assert_int_equal(sweep__cookie_make(&k, (struct sockaddr *)&a, sweep__cookie_bucket(&k, now), c), 0);
    assert_int_equal(sweep__cookie_check(&k, (struct sockaddr *)&a, now, c, sizeof c), 1);
    assert_int_equal(sweep__cookie_check(&k, (struct sockaddr *)&a, now + 1000, c, sizeof c), 1); /* previous bucket */
    assert_int_equal(sweep__cookie_check(&k, (struct sockaddr *)&a, now + 2000, c, sizeof c), 0); /* expired */
    assert_int_equal(sweep__cookie_check(&k, (struct sockaddr *)&a, now, c, sizeof c - 1), 0);
    struct sockaddr_in other = a;
    other.sin_port = htons(4001);
    assert_int_equal(sweep__cookie_check(&k, (struct sockaddr *)&other, now, c, sizeof c), 0);
    c[5] ^= 1;
    assert_int_equal(sweep__cookie_check(&k, (struct sockaddr *)&a, now, c, sizeof c), 0);
    /* Another process (another secret) does not accept it. */
    sweep__cookie_key k2;
    assert_int_equal(sweep__cookie_key_init(&k2, 1000), 0);
    c[5] ^= 1;
    assert_int_equal(sweep__cookie_check(&k2, (struct sockaddr *)&a, now, c, sizeof c), 0);
}

static void test_bucket(void **state)
{
    (void)state;
    sweep__bucket b;
    sweep__bucket_init(&b, 10.0, 0);
    int granted = 0;
    for (int i = 0; i < 100; i++)
        granted += sweep__bucket_take(&b, 1.0, 0);
    assert_int_equal(granted, 10); /* the burst */
    assert_int_equal(sweep__bucket_take(&b, 1.0, 50000000ull), 0); /* 0.5 token after 50 ms */
    assert_int_equal(sweep__bucket_take(&b, 1.0, 100000000ull), 1); /* 1 token after 100 ms */
    sweep__bucket_init(&b, 0.0, 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sweep__bucket_take(&b, 5.0, 0), 1); /* unlimited */
}

static void test_tick_percentiles(void **state)
{
    (void)state;
    sweep__stats *st = calloc(1, sizeof *st);
    assert_int_equal(sweep__stats_tick_percentile(st, 50), 0);
    for (uint64_t i = 1; i <= 100; i++)
        sweep__stats_record_tick(st, 101 - i);
    assert_int_equal(sweep__stats_tick_percentile(st, 50), 50);
    assert_int_equal(sweep__stats_tick_percentile(st, 99), 99);
    for (uint64_t i = 0; i < 5000; i++)
        sweep__stats_record_tick(st, 7);
    assert_int_equal(sweep__stats_tick_percentile(st, 99), 7); /* the ring forgets old ticks */
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_cli), cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_config_file),      cmocka_unit_test(test_auth_secret_file),
        cmocka_unit_test(test_hmac_sha256),      cmocka_unit_test(test_cookie),
        cmocka_unit_test(test_bucket),           cmocka_unit_test(test_tick_percentiles),
        cmocka_unit_test(test_udp_max_datagram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
