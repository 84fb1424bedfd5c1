/*
 * token.h - the identity tokens of Hello.auth_token: who a session is and
 * in which role, signed with a secret shared by sweepd and whoever mints
 * tokens (a game's login service, the `sweep` CLI, a test).
 *
 * A token is one line of printable ASCII:
 *
 *   sweep1:<role>:<identity>:<expiry>:<mac>
 *
 *   role      "player" or "server" (sweep_wire_role)
 *   identity  1 to SWEEP_TOKEN_IDENTITY_MAX bytes of [A-Za-z0-9._@+-]
 *             (no ':' so the fields never blur, no '#' so "#guest" and
 *             "#command-token" stay the server's own names)
 *   expiry    Unix time in seconds, decimal digits without sign or leading
 *             zeros (0 itself is written "0"); valid while now < expiry
 *   mac       64 lowercase hex digits of
 *             HMAC-SHA256(secret, "sweep1:<role>:<identity>:<expiry>"),
 *             i.e. of the token up to, not including, its last ':'
 *
 * The secret is raw bytes, SWEEP_TOKEN_SECRET_MIN to SWEEP_TOKEN_SECRET_MAX
 * of them; sweep_token_secret_read takes it from a file (sweepd
 * --auth-secret-file) without its trailing line breaks, so `head -c 32
 * /dev/urandom | base64 > secret` makes a usable one. Anyone holding the
 * secret can mint any identity in any role: keep it where sweepd and the
 * minting service read it, nowhere else.
 *
 * Checking is strict (one spelling per token, so a token cannot be
 * rewritten into another that still verifies) and compares the MAC in
 * constant time. The format is simple enough to mint in any language:
 *
 *   python3 -c 'import hmac,hashlib,sys; m="sweep1:player:alice:1900000000";
 *     print(m+":"+hmac.new(open(sys.argv[1],"rb").read().rstrip(b"\r\n"),
 *     m.encode(),hashlib.sha256).hexdigest())' secret
 *
 * Uses SHA-256 from core/sha256.h: link libsweep-core after libsweep-protocol.
 */
#ifndef SWEEP_PROTOCOL_TOKEN_H
#define SWEEP_PROTOCOL_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_TOKEN_VERSION "sweep1"
#define SWEEP_TOKEN_IDENTITY_MAX 64u
#define SWEEP_TOKEN_SECRET_MIN 16u
#define SWEEP_TOKEN_SECRET_MAX 1024u
/* Longest token, without its NUL: "sweep1:server:" + identity + ":" + 20
 * digits + ":" + 64 hex digits. */
#define SWEEP_TOKEN_MAX (14u + SWEEP_TOKEN_IDENTITY_MAX + 1u + 20u + 1u + 64u)

typedef enum sweep_token_status {
    SWEEP_TOKEN_OK = 0,
    SWEEP_TOKEN_MALFORMED, /* not sweep1:<role>:<identity>:<expiry>:<mac>, or too long */
    SWEEP_TOKEN_BAD_ROLE,  /* role is not "player" or "server" */
    SWEEP_TOKEN_BAD_IDENTITY, /* empty, too long, or a byte outside [A-Za-z0-9._@+-] */
    SWEEP_TOKEN_BAD_EXPIRY,   /* not canonical decimal digits, or beyond 2^64 - 1 */
    SWEEP_TOKEN_FORGED,    /* the MAC is not this secret's for these fields */
    SWEEP_TOKEN_EXPIRED,   /* a genuine token whose expiry has passed */
    SWEEP_TOKEN_BAD_SECRET, /* a secret shorter than SWEEP_TOKEN_SECRET_MIN or longer than the max */
    SWEEP_TOKEN_NO_SPACE,  /* sweep_token_make: the output buffer is too small */
    SWEEP_TOKEN_STATUS_COUNT
} sweep_token_status;

/* What a genuine token says. */
typedef struct sweep_token_claims {
    uint32_t role; /* sweep_wire_role */
    char identity[SWEEP_TOKEN_IDENTITY_MAX + 1];
    uint64_t expiry; /* Unix seconds */
} sweep_token_claims;

/* One sentence for a status ("the token has expired"). */
const char *sweep_token_status_message(sweep_token_status s);

/* HMAC-SHA256 (RFC 2104) of msg under key. */
void sweep_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t msg_len, uint8_t out[32]);

/* 1 if identity[0..len) may stand in a token. */
int sweep_token_identity_valid(const char *identity, size_t len);

/*
 * Writes the token for (role, identity, expiry) under secret into out
 * (NUL-terminated; SWEEP_TOKEN_MAX + 1 bytes always suffice). Returns
 * SWEEP_TOKEN_OK, BAD_ROLE, BAD_IDENTITY, BAD_SECRET or NO_SPACE (then out
 * holds an empty string if it has room for one).
 */
sweep_token_status sweep_token_make(const uint8_t *secret, size_t secret_len, uint32_t role, const char *identity,
                                    uint64_t expiry, char *out, size_t outlen);

/*
 * Checks token[0..len) (not necessarily NUL-terminated) under secret at
 * Unix time now. The format is checked first, then the MAC, then the
 * expiry, so EXPIRED is only ever said of a genuine token. On
 * SWEEP_TOKEN_OK or SWEEP_TOKEN_EXPIRED *out (may be NULL) holds the
 * claims; otherwise it is left untouched.
 */
sweep_token_status sweep_token_check(const uint8_t *secret, size_t secret_len, const char *token, size_t len,
                                     uint64_t now, sweep_token_claims *out);

/*
 * Reads a secret file: its bytes, less the "\r" and "\n" at its end. Returns
 * 0 and fills secret[0..*len) (secret has SWEEP_TOKEN_SECRET_MAX bytes),
 * or -1 with err naming the file and the problem (cannot open, too short,
 * too long). *loose (may be NULL) is set to 1 when the file can be read
 * by its group or others, which the caller should warn about.
 */
int sweep_token_secret_read(const char *path, uint8_t *secret, size_t *len, int *loose, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
