/*
 * token.c - minting and checking Hello.auth_token identity tokens (see
 * token.h for the format), and the HMAC-SHA256 they and the UDP cookies
 * rest on.
 *
 * The parser accepts exactly one spelling of each token: fixed role
 * words, canonical decimal expiry, lowercase hex. Together with the MAC
 * covering every field but itself, no byte of a genuine token can change
 * without the check failing.
 */
#include "protocol/token.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sha256.h"
#include "protocol/message.h"

static const char *const messages[SWEEP_TOKEN_STATUS_COUNT] = {
    [SWEEP_TOKEN_OK] = "the token is good",
    [SWEEP_TOKEN_MALFORMED] = "the token is not sweep1:<role>:<identity>:<expiry>:<64 hex digits>",
    [SWEEP_TOKEN_BAD_ROLE] = "the token's role is not player or server",
    [SWEEP_TOKEN_BAD_IDENTITY] = "the token's identity is empty, longer than 64 bytes, or holds a byte outside "
                                 "[A-Za-z0-9._@+-]",
    [SWEEP_TOKEN_BAD_EXPIRY] = "the token's expiry is not Unix seconds in canonical decimal",
    [SWEEP_TOKEN_FORGED] = "the token's signature does not match (another secret, or a changed field)",
    [SWEEP_TOKEN_EXPIRED] = "the token has expired",
    [SWEEP_TOKEN_BAD_SECRET] = "the secret must be 16 to 1024 bytes",
    [SWEEP_TOKEN_NO_SPACE] = "the output buffer is too small for the token",
};

const char *sweep_token_status_message(sweep_token_status s)
{
    return (unsigned)s < SWEEP_TOKEN_STATUS_COUNT ? messages[s] : "unknown token status";
}

void sweep_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t out[32])
{
    uint8_t k[64] = {0}, pad[64], inner[32];
    if (key_len > 64)
        sweep_sha256_digest(key, key_len, k);
    else if (key_len)
        memcpy(k, key, key_len);
    sweep_sha256 s;
    for (int i = 0; i < 64; i++)
        pad[i] = (uint8_t)(k[i] ^ 0x36);
    sweep_sha256_init(&s);
    sweep_sha256_update(&s, pad, 64);
    sweep_sha256_update(&s, msg, msg_len);
    sweep_sha256_final(&s, inner);
    for (int i = 0; i < 64; i++)
        pad[i] = (uint8_t)(k[i] ^ 0x5c);
    sweep_sha256_init(&s);
    sweep_sha256_update(&s, pad, 64);
    sweep_sha256_update(&s, inner, sizeof inner);
    sweep_sha256_final(&s, out);
}

static int identity_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '@' || c == '+' || c == '-';
}

int sweep_token_identity_valid(const char *identity, size_t len)
{
    if (!identity || len == 0 || len > SWEEP_TOKEN_IDENTITY_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!identity_byte((unsigned char)identity[i]))
            return 0;
    return 1;
}

static const char *role_word(uint32_t role)
{
    return role == SWEEP_WIRE_ROLE_PLAYER ? "player" : role == SWEEP_WIRE_ROLE_SERVER ? "server" : NULL;
}

static int secret_ok(const uint8_t *secret, size_t len)
{
    return secret && len >= SWEEP_TOKEN_SECRET_MIN && len <= SWEEP_TOKEN_SECRET_MAX;
}

/* The MAC of the signed part as 64 lowercase hex digits (no NUL). */
static void mac_hex(const uint8_t *secret, size_t secret_len, const char *signed_part, size_t n, char hex[64])
{
    static const char digits[] = "0123456789abcdef";
    uint8_t mac[32];
    sweep_hmac_sha256(secret, secret_len, (const uint8_t *)signed_part, n, mac);
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[mac[i] >> 4];
        hex[2 * i + 1] = digits[mac[i] & 15];
    }
}

sweep_token_status sweep_token_make(const uint8_t *secret, size_t secret_len, uint32_t role, const char *identity,
                                    uint64_t expiry, char *out, size_t outlen)
{
    if (out && outlen)
        out[0] = 0;
    const char *word = role_word(role);
    if (!word)
        return SWEEP_TOKEN_BAD_ROLE;
    if (!identity || !sweep_token_identity_valid(identity, strlen(identity)))
        return SWEEP_TOKEN_BAD_IDENTITY;
    if (!secret_ok(secret, secret_len))
        return SWEEP_TOKEN_BAD_SECRET;
    char buf[SWEEP_TOKEN_MAX + 1];
    int n = snprintf(buf, sizeof buf, "%s:%s:%s:%llu:", SWEEP_TOKEN_VERSION, word, identity,
                     (unsigned long long)expiry);
    if (n < 0 || (size_t)n + 64 > SWEEP_TOKEN_MAX)
        return SWEEP_TOKEN_NO_SPACE; /* cannot happen with a valid identity */
    mac_hex(secret, secret_len, buf, (size_t)n - 1, buf + n);
    buf[n + 64] = 0;
    if (!out || outlen < (size_t)n + 65)
        return SWEEP_TOKEN_NO_SPACE;
    memcpy(out, buf, (size_t)n + 65);
    return SWEEP_TOKEN_OK;
}

/* The next field of t[*at..len) up to ':' (or the end when last): its
 * start and length; -1 if the separator is missing. */
static int field(const char *t, size_t len, size_t *at, int last, const char **start, size_t *n)
{
    size_t i = *at;
    while (i < len && t[i] != ':')
        i++;
    if (last ? i != len : i == len)
        return -1;
    *start = t + *at;
    *n = i - *at;
    *at = i + 1;
    return 0;
}

sweep_token_status sweep_token_check(const uint8_t *secret, size_t secret_len, const char *token, size_t len,
                                     uint64_t now, sweep_token_claims *out)
{
    if (!secret_ok(secret, secret_len))
        return SWEEP_TOKEN_BAD_SECRET;
    if (!token || len > SWEEP_TOKEN_MAX)
        return SWEEP_TOKEN_MALFORMED;
    const char *f[5];
    size_t n[5], at = 0;
    for (int i = 0; i < 5; i++)
        if (field(token, len, &at, i == 4, &f[i], &n[i]) != 0)
            return SWEEP_TOKEN_MALFORMED;
    if (n[0] != strlen(SWEEP_TOKEN_VERSION) || memcmp(f[0], SWEEP_TOKEN_VERSION, n[0]) != 0 || n[4] != 64)
        return SWEEP_TOKEN_MALFORMED;
    for (size_t i = 0; i < 64; i++) {
        char c = f[4][i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return SWEEP_TOKEN_MALFORMED;
    }
    uint32_t role;
    if (n[1] == 6 && memcmp(f[1], "player", 6) == 0)
        role = SWEEP_WIRE_ROLE_PLAYER;
    else if (n[1] == 6 && memcmp(f[1], "server", 6) == 0)
        role = SWEEP_WIRE_ROLE_SERVER;
    else
        return SWEEP_TOKEN_BAD_ROLE;
    if (!sweep_token_identity_valid(f[2], n[2]))
        return SWEEP_TOKEN_BAD_IDENTITY;
    if (n[3] == 0 || n[3] > 20 || (n[3] > 1 && f[3][0] == '0'))
        return SWEEP_TOKEN_BAD_EXPIRY;
    uint64_t expiry = 0;
    for (size_t i = 0; i < n[3]; i++) {
        unsigned d = (unsigned)(f[3][i] - '0');
        if (d > 9 || expiry > (UINT64_MAX - d) / 10)
            return SWEEP_TOKEN_BAD_EXPIRY;
        expiry = expiry * 10 + d;
    }
    char want[64];
    mac_hex(secret, secret_len, token, (size_t)(f[4] - token) - 1, want);
    unsigned char diff = 0;
    for (int i = 0; i < 64; i++)
        diff |= (unsigned char)(want[i] ^ f[4][i]);
    if (diff)
        return SWEEP_TOKEN_FORGED;
    if (out) {
        out->role = role;
        memcpy(out->identity, f[2], n[2]);
        out->identity[n[2]] = 0;
        out->expiry = expiry;
    }
    return now < expiry ? SWEEP_TOKEN_OK : SWEEP_TOKEN_EXPIRED;
}

int sweep_token_secret_read(const char *path, uint8_t *secret, size_t *len, int *loose, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (loose)
        *loose = fstat(fileno(f), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0;
    uint8_t buf[SWEEP_TOKEN_SECRET_MAX + 3];
    size_t n = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    if (n < SWEEP_TOKEN_SECRET_MIN || n > SWEEP_TOKEN_SECRET_MAX) {
        snprintf(err, errlen, "%s holds %s%zu bytes of secret; it needs %u to %u (e.g. head -c 32 /dev/urandom | "
                 "base64 > FILE)", path, n > SWEEP_TOKEN_SECRET_MAX ? "more than " : "", n > SWEEP_TOKEN_SECRET_MAX ?
                 (size_t)SWEEP_TOKEN_SECRET_MAX : n, SWEEP_TOKEN_SECRET_MIN, SWEEP_TOKEN_SECRET_MAX);
        return -1;
    }
    memcpy(secret, buf, n);
    *len = n;
    return 0;
}
