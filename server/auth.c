/*
 * auth.c - who a session is: the role and identity a Hello's auth_token
 * gives (protocol/token.h has the token format).
 *
 *   absent or empty      a guest player ("#guest"), where guests are
 *                        admitted (--allow-guests; by default only on a
 *                        server without --auth-secret-file)
 *   the --command-token  the server role ("#command-token")
 *   a sweep1 token       its role and identity, if this server's secret
 *                        signed it and it has not expired
 *   anything else        Error AuthFailed, saying why
 *
 * Every comparison with a secret runs in time that depends on lengths
 * only. Refusals are logged (event=auth_failed), at most
 * SWEEP__AUTH_LOG_RATE lines a second for the whole server, since they
 * come before any session and its rate limit exist.
 */
#include <string.h>
#include <time.h>

#include "server/server_impl.h"

#define SWEEP__AUTH_LOG_RATE 10.0

/* Does a Hello's auth_token equal the command token? No token configured
 * matches nothing. */
static int command_token_matches(const char *token, sweep_str given)
{
    size_t n = strlen(token);
    if (n == 0 || given.ptr == NULL || given.len != n)
        return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(token[i] ^ given.ptr[i]);
    return diff == 0;
}

int sweep__server_role_possible(const sweep_server *s)
{
    return s->opt.command_token[0] != 0 || s->opt.auth_secret_len > 0;
}

/* Refuses the Hello: a log line (rate-limited) and the Error. */
static int refuse(sweep_server *s, sweep__peer *p, const sweep_message *m, const char *reason, const char *message)
{
    if (sweep__log_enabled(SWEEP_LOG_INFO)) {
        if (sweep__bucket_take(&s->auth_log, 1.0, uv_hrtime())) {
            char peer[64], q[96];
            const sweep_str *name = &m->as.hello.client_name;
            if (p->conn)
                snprintf(peer, sizeof peer, "%s", p->conn->peer);
            else
                sweep__addr_text(p->addr, peer, sizeof peer);
            sweep__log(SWEEP_LOG_INFO, "auth_failed", "transport=%s peer=%s client=%s reason=%s suppressed=%llu",
                       p->conn ? "tcp" : "udp", peer, sweep__log_quote(name->ptr, name->len, q, sizeof q), reason,
                       (unsigned long long)s->auth_log_suppressed);
            s->auth_log_suppressed = 0;
        } else {
            s->auth_log_suppressed++;
        }
    }
    sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0, "%s", message);
    return -1;
}

int sweep__authenticate(sweep_server *s, sweep__peer *p, const sweep_message *m, uint32_t *role, char *identity,
                        size_t idlen)
{
    sweep_str tok = m->as.hello.auth_token;
    if (tok.ptr == NULL || tok.len == 0) {
        if (!s->allow_guests)
            return refuse(s, p, m, "guest",
                          "this server admits no guests: Hello.auth_token must hold a token "
                          "(sweep1:<role>:<identity>:<expiry>:<mac>)");
        *role = SWEEP_WIRE_ROLE_PLAYER;
        snprintf(identity, idlen, "#guest");
        return 0;
    }
    if (command_token_matches(s->opt.command_token, tok)) {
        *role = SWEEP_WIRE_ROLE_SERVER;
        snprintf(identity, idlen, "#command-token");
        return 0;
    }
    if (s->opt.auth_secret_len == 0)
        return refuse(s, p, m, "no_secret",
                      "this server checks no tokens (it has no --auth-secret-file): connect without "
                      "auth_token as a guest, or with its --command-token");
    sweep_token_claims c;
    time_t now = time(NULL);
    sweep_token_status st = sweep_token_check(s->opt.auth_secret, s->opt.auth_secret_len, tok.ptr, tok.len,
                                              now > 0 ? (uint64_t)now : 0, &c);
    if (st == SWEEP_TOKEN_EXPIRED) {
        char msg[200];
        snprintf(msg, sizeof msg, "the token of %.64s expired %llu s ago (at %llu, Unix time); get a new one",
                 c.identity, (unsigned long long)((uint64_t)now - c.expiry), (unsigned long long)c.expiry);
        return refuse(s, p, m, "expired", msg);
    }
    if (st != SWEEP_TOKEN_OK) {
        static const char *const reasons[SWEEP_TOKEN_STATUS_COUNT] = {
            [SWEEP_TOKEN_MALFORMED] = "malformed",       [SWEEP_TOKEN_BAD_ROLE] = "bad_role",
            [SWEEP_TOKEN_BAD_IDENTITY] = "bad_identity", [SWEEP_TOKEN_BAD_EXPIRY] = "bad_expiry",
            [SWEEP_TOKEN_FORGED] = "forged",             [SWEEP_TOKEN_BAD_SECRET] = "bad_secret",
        };
        const char *r = (unsigned)st < SWEEP_TOKEN_STATUS_COUNT && reasons[st] ? reasons[st] : "refused";
        char msg[200];
        snprintf(msg, sizeof msg, "auth_token refused: %s", sweep_token_status_message(st));
        return refuse(s, p, m, r, msg);
    }
    *role = c.role;
    snprintf(identity, idlen, "%s", c.identity);
    return 0;
}

/* The role is checked before anything else of the request, so a session of
 * another role cannot even learn which names (of movers, say) exist. */
int sweep__role_allows(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    if (sweep_msg_kind_sender(m->kind) != SWEEP_MSG_SENDER_SERVER_ROLE || p->session->role == SWEEP_WIRE_ROLE_SERVER)
        return 1;
    const char *kind = sweep_msg_kind_name(m->kind);
    if (!sweep__server_role_possible(s))
        sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0,
                          "%s needs the server role, and this server trusts none (no "
                          "--command-token, no --auth-secret-file)",
                          kind);
    else
        sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0,
                          "%s needs the server role: Hello.auth_token must be a server token "
                          "(sweep1:server:...) or the server's --command-token",
                          kind);
    return 0;
}
