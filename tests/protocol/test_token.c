/*
 * test_token.c - identity tokens (protocol/token.h): HMAC-SHA256 against
 * the RFC 4231 vectors, a minted token checks out with its claims, and
 * every way of spoiling one is told apart: malformed, bad role, identity
 * or expiry, forged (another secret, one byte changed anywhere), expired;
 * the secret file is read with its line break dropped and its size checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/protocol.h"

static const uint8_t SECRET[] = "0123456789abcdef-test-secret";
#define SECRET_LEN (sizeof SECRET - 1)

static void hex(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_hmac_rfc4231(void **state)
{
    (void)state;
    uint8_t key[20], mac[32];
    char h[65];
    memset(key, 0x0b, sizeof key);
    sweep_hmac_sha256(key, sizeof key, (const uint8_t *)"Hi There", 8, mac);
    hex(mac, 32, h);
    assert_string_equal(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    sweep_hmac_sha256((const uint8_t *)"Jefe", 4, (const uint8_t *)"what do ya want for nothing?", 28, mac);
    hex(mac, 32, h);
    assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    /* A key longer than the block is hashed first (test case 6). */
    uint8_t big[131];
    memset(big, 0xaa, sizeof big);
    const char *msg = "Test Using Larger Than Block-Size Key - Hash Key First";
    sweep_hmac_sha256(big, sizeof big, (const uint8_t *)msg, strlen(msg), mac);
    hex(mac, 32, h);
    assert_string_equal(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static void test_make_and_check(void **state)
{
    (void)state;
    char tok[SWEEP_TOKEN_MAX + 1];
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_PLAYER, "alice", 2000000000ull, tok,
                                      sizeof tok),
                     SWEEP_TOKEN_OK);
    assert_int_equal(strncmp(tok, "sweep1:player:alice:2000000000:", 31), 0);
    assert_int_equal(strlen(tok), 31 + 64);
    /* The MAC is HMAC-SHA256 of everything before the last colon. */
    uint8_t mac[32];
    char h[65];
    sweep_hmac_sha256(SECRET, SECRET_LEN, (const uint8_t *)tok, 30, mac);
    hex(mac, 32, h);
    assert_string_equal(tok + 31, h);
    sweep_token_claims c;
    memset(&c, 0, sizeof c);
    assert_int_equal(sweep_token_check(SECRET, SECRET_LEN, tok, strlen(tok), 1999999999ull, &c), SWEEP_TOKEN_OK);
    assert_int_equal(c.role, SWEEP_WIRE_ROLE_PLAYER);
    assert_string_equal(c.identity, "alice");
    assert_true(c.expiry == 2000000000ull);
    /* Valid while now < expiry. */
    assert_int_equal(sweep_token_check(SECRET, SECRET_LEN, tok, strlen(tok), 2000000000ull, &c), SWEEP_TOKEN_EXPIRED);

    /* The longest identity, the server role, the largest expiry. */
    char id[SWEEP_TOKEN_IDENTITY_MAX + 1];
    memset(id, 'x', SWEEP_TOKEN_IDENTITY_MAX);
    id[SWEEP_TOKEN_IDENTITY_MAX] = 0;
    id[0] = '@';
    id[1] = '+';
    id[2] = '.';
    id[3] = '-';
    id[4] = '_';
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, SWEEP_WIRE_ROLE_SERVER, id, UINT64_MAX, tok, sizeof tok),
                     SWEEP_TOKEN_OK);
    assert_int_equal(strlen(tok), SWEEP_TOKEN_MAX);
    assert_int_equal(sweep_token_check(SECRET, SECRET_LEN, tok, strlen(tok), 0, &c), SWEEP_TOKEN_OK);
    assert_int_equal(c.role, SWEEP_WIRE_ROLE_SERVER);
    assert_string_equal(c.identity, id);
    /* Not NUL-terminated input is fine: only len bytes are read. */
    char copy[SWEEP_TOKEN_MAX + 8];
    memcpy(copy, tok, strlen(tok));
    memset(copy + strlen(tok), 'z', 8);
    assert_int_equal(sweep_token_check(SECRET, SECRET_LEN, copy, strlen(tok), 0, NULL), SWEEP_TOKEN_OK);
    assert_int_equal(sweep_token_check(SECRET, SECRET_LEN, copy, strlen(tok) + 1, 0, NULL), SWEEP_TOKEN_MALFORMED);

    /* Making refuses what checking would. */
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 2, "a", 1, tok, sizeof tok), SWEEP_TOKEN_BAD_ROLE);
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 0, "", 1, tok, sizeof tok), SWEEP_TOKEN_BAD_IDENTITY);
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 0, "a:b", 1, tok, sizeof tok), SWEEP_TOKEN_BAD_IDENTITY);
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 0, "#guest", 1, tok, sizeof tok), SWEEP_TOKEN_BAD_IDENTITY);
    assert_int_equal(sweep_token_make(SECRET, 15, 0, "a", 1, tok, sizeof tok), SWEEP_TOKEN_BAD_SECRET);
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 0, "a", 1, tok, 20), SWEEP_TOKEN_NO_SPACE);
    assert_string_equal(tok, "");
    memset(id, 'y', sizeof id);
    id[SWEEP_TOKEN_IDENTITY_MAX] = 'y'; /* 65 bytes */
    char longer[SWEEP_TOKEN_IDENTITY_MAX + 2];
    memcpy(longer, id, SWEEP_TOKEN_IDENTITY_MAX + 1);
    longer[SWEEP_TOKEN_IDENTITY_MAX + 1] = 0;
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 0, longer, 1, tok, sizeof tok), SWEEP_TOKEN_BAD_IDENTITY);
    for (int s = 0; s < SWEEP_TOKEN_STATUS_COUNT; s++) {
        assert_true(strlen(sweep_token_status_message((sweep_token_status)s)) > 10);
        for (int t = 0; t < s; t++)
            assert_string_not_equal(sweep_token_status_message((sweep_token_status)s),
                                    sweep_token_status_message((sweep_token_status)t));
    }
}

static sweep_token_status check(const char *t)
{
    return sweep_token_check(SECRET, SECRET_LEN, t, strlen(t), 1000, NULL);
}

/* A token signed properly over fields that are wrong. */
static const char *signed_token(const char *fields)
{
    static char t[512];
    uint8_t mac[32];
    sweep_hmac_sha256(SECRET, SECRET_LEN, (const uint8_t *)fields, strlen(fields), mac);
    snprintf(t, sizeof t, "%s:", fields);
    hex(mac, 32, t + strlen(t));
    return t;
}

static void test_refusals(void **state)
{
    (void)state;
    char tok[SWEEP_TOKEN_MAX + 1];
    assert_int_equal(sweep_token_make(SECRET, SECRET_LEN, 0, "bob", 5000, tok, sizeof tok), SWEEP_TOKEN_OK);
    assert_int_equal(check(tok), SWEEP_TOKEN_OK);
    /* Every single byte changed: never accepted. */
    size_t n = strlen(tok);
    for (size_t i = 0; i < n; i++) {
        char t[SWEEP_TOKEN_MAX + 1];
        memcpy(t, tok, n + 1);
        t[i] = t[i] == 'a' ? 'b' : 'a';
        assert_int_not_equal(check(t), SWEEP_TOKEN_OK);
        /* "sweep1:player:bob:5000:<mac>": the identity and the MAC still
         * parse after the change, and only the signature can tell. */
        if ((i >= 14 && i <= 16) || i >= 23)
            assert_int_equal(check(t), SWEEP_TOKEN_FORGED);
        if (i >= 18 && i <= 21)
            assert_int_equal(check(t), SWEEP_TOKEN_BAD_EXPIRY);
    }
    /* Another secret: forged. */
    assert_int_equal(sweep_token_check((const uint8_t *)"another-secret-of-16", 20, tok, n, 1000, NULL),
                     SWEEP_TOKEN_FORGED);
    /* Uppercase hex is another spelling: refused as malformed. */
    char up[SWEEP_TOKEN_MAX + 1];
    memcpy(up, tok, n + 1);
    for (size_t i = n - 64; i < n; i++)
        if (up[i] >= 'a' && up[i] <= 'f')
            up[i] = (char)(up[i] - 'a' + 'A');
    assert_int_equal(check(up), SWEEP_TOKEN_MALFORMED);
    /* Shapes. */
    assert_int_equal(check(""), SWEEP_TOKEN_MALFORMED);
    assert_int_equal(check("s3cr3t"), SWEEP_TOKEN_MALFORMED);
    assert_int_equal(check("sweep1:player:bob:5000"), SWEEP_TOKEN_MALFORMED);
    assert_int_equal(check("sweep2:player:bob:5000:" "0000000000000000000000000000000000000000000000000000000000000000"),
                     SWEEP_TOKEN_MALFORMED);
    assert_int_equal(check("sweep1:player:bob:5000:00"), SWEEP_TOKEN_MALFORMED);
    assert_int_equal(check("sweep1:player:bob:5000:x:" "0000000000000000000000000000000000000000000000000000000000000000"),
                     SWEEP_TOKEN_MALFORMED);
    /* Properly signed, badly formed fields: refused before the MAC. */
    assert_int_equal(check(signed_token("sweep1:admin:bob:5000")), SWEEP_TOKEN_BAD_ROLE);
    assert_int_equal(check(signed_token("sweep1:Player:bob:5000")), SWEEP_TOKEN_BAD_ROLE);
    assert_int_equal(check(signed_token("sweep1:player::5000")), SWEEP_TOKEN_BAD_IDENTITY);
    assert_int_equal(check(signed_token("sweep1:player:b o b:5000")), SWEEP_TOKEN_BAD_IDENTITY);
    assert_int_equal(check(signed_token("sweep1:player:#guest:5000")), SWEEP_TOKEN_BAD_IDENTITY);
    assert_int_equal(check(signed_token("sweep1:player:bob:05000")), SWEEP_TOKEN_BAD_EXPIRY);
    assert_int_equal(check(signed_token("sweep1:player:bob:+5000")), SWEEP_TOKEN_BAD_EXPIRY);
    assert_int_equal(check(signed_token("sweep1:player:bob:")), SWEEP_TOKEN_BAD_EXPIRY);
    assert_int_equal(check(signed_token("sweep1:player:bob:18446744073709551616")), SWEEP_TOKEN_BAD_EXPIRY);
    assert_int_equal(check(signed_token("sweep1:player:bob:18446744073709551615")), SWEEP_TOKEN_OK);
    assert_int_equal(check(signed_token("sweep1:player:bob:0")), SWEEP_TOKEN_EXPIRED);
    assert_int_equal(check(signed_token("sweep1:player:bob:1000")), SWEEP_TOKEN_EXPIRED);
    assert_int_equal(check(signed_token("sweep1:player:bob:1001")), SWEEP_TOKEN_OK);
    /* A secret out of range checks nothing. */
    assert_int_equal(sweep_token_check(SECRET, 0, tok, n, 0, NULL), SWEEP_TOKEN_BAD_SECRET);
    assert_int_equal(sweep_token_check(NULL, 32, tok, n, 0, NULL), SWEEP_TOKEN_BAD_SECRET);
    assert_int_equal(sweep_token_check(SECRET, SECRET_LEN, NULL, 0, 0, NULL), SWEEP_TOKEN_MALFORMED);
}

static void test_secret_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/sweep-token-XXXXXX", path[64], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/secret", dir);
    uint8_t secret[SWEEP_TOKEN_SECRET_MAX];
    size_t len = 0;
    int loose = -1;
    assert_int_equal(sweep_token_secret_read(path, secret, &len, &loose, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open"));

    FILE *f = fopen(path, "w");
    fputs("short\n", f);
    fclose(f);
    chmod(path, 0600);
    assert_int_equal(sweep_token_secret_read(path, secret, &len, &loose, err, sizeof err), -1);
    assert_non_null(strstr(err, "5 bytes"));

    f = fopen(path, "w");
    fputs("c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0\r\n\n", f);
    fclose(f);
    assert_int_equal(sweep_token_secret_read(path, secret, &len, &loose, err, sizeof err), 0);
    assert_int_equal(len, 36);
    assert_memory_equal(secret, "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", 36);
    assert_int_equal(loose, 0);
    chmod(path, 0644);
    assert_int_equal(sweep_token_secret_read(path, secret, &len, &loose, err, sizeof err), 0);
    assert_int_equal(loose, 1);

    f = fopen(path, "w");
    for (int i = 0; i < 2000; i++)
        fputc('k', f);
    fclose(f);
    assert_int_equal(sweep_token_secret_read(path, secret, &len, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1024"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmac_rfc4231),
        cmocka_unit_test(test_make_and_check),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_secret_file),
    };
    return cmocka_run_group_tests_name("identity tokens", tests, NULL, NULL);
}
