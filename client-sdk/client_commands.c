/*
 * client_commands.c - EntityCommands and Query: requests of many items
 * whose answer may come in pieces (over UDP the server cuts it to
 * datagrams), which a blocking call gathers item by item into the
 * caller's array, sending the request again over UDP until the answer is
 * whole. The gathering (await_pieces) serves these two alone, so it is
 * kept with them, apart from the requests answered in one message.
 */
/* POSIX names without the GNU ones, as in client.c. */
#define _POSIX_C_SOURCE 200809L
#include "client-sdk/client_internal.h"

#include <stdlib.h>
#include <string.h>

/* --- EntityCommands ------------------------------------------------------------ */

/* Remembers EntityCommands `seq` of cmds[0 .. n) for placing its answer's
 * pieces (command_results). Returns 0, or -1 when memory runs out (then
 * nothing is remembered). */
static int remember_commands(sweep_client *c, uint32_t seq, const sweep_msg_entity_command *cmds, uint32_t n)
{
    sweep__commands_sent *r = &c->commands[c->commands_next];
    if (n > r->cap) {
        uint32_t *e = realloc(r->entities, (size_t)n * sizeof *e);
        if (e == NULL)
            return -1;
        r->entities = e;
        uint8_t *o = realloc(r->ops, n);
        if (o == NULL)
            return -1;
        r->ops = o;
        uint8_t *g = realloc(r->got, n);
        if (g == NULL)
            return -1;
        r->got = g;
        r->cap = n;
    }
    *r = (sweep__commands_sent){
        .sequence = seq, .count = n, .cap = r->cap, .entities = r->entities, .ops = r->ops, .got = r->got};
    for (uint32_t i = 0; i < n; i++) {
        r->entities[i] = cmds[i].entity;
        r->ops[i] = cmds[i].op;
        r->got[i] = 0;
    }
    c->commands_next = (c->commands_next + 1) % SWEEP__COMMANDS;
    return 0;
}

/* Sends cmds[0 .. n) as one EntityCommands, *m, numbered next and
 * remembered. */
static sweep_client_status send_commands(sweep_client *c, const sweep_msg_entity_command *cmds, uint32_t n,
                                         sweep_message *m, sweep_client_error *err)
{
    memset(m, 0, sizeof *m);
    m->kind = SWEEP_MSG_ENTITY_COMMANDS;
    m->sequence = c->next_seq;
    m->as.entity_commands.commands = cmds;
    m->as.entity_commands.count = n;
    if (remember_commands(c, m->sequence, cmds, n) < 0)
        return sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
    sweep_client_status s = sweep__client_send_message(c, m, err);
    if (s != SWEEP_CLIENT_OK) {
        sweep__client_commands_sent(c, m->sequence)->count = 0;
        return s;
    }
    c->next_seq++;
    return SWEEP_CLIENT_OK;
}

static sweep_client_status commands_args(sweep_client *c, const sweep_msg_entity_command *cmds, uint32_t n,
                                         sweep_client_error *err)
{
    if (cmds == NULL || n == 0)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "EntityCommands needs at least one command");
    if (c->state != SWEEP__READY)
        return sweep__client_not_ready(c, err);
    return SWEEP_CLIENT_OK;
}

/* The arrays of the pieces a blocking EntityCommands took out of the
 * queue: out[] points to their texts until the call copies them. */
typedef struct sweep__held {
    void **a;
    uint32_t n, cap;
} sweep__held;

static int hold(sweep__held *h, void *p)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? 2 * h->cap : 8;
        void **a = realloc(h->a, (size_t)cap * sizeof *a);
        if (a == NULL)
            return -1;
        h->a = a;
        h->cap = cap;
    }
    h->a[h->n++] = p;
    return 0;
}

/* Frees the arrays held from `from` on. */
static void unhold(sweep__held *h, uint32_t from)
{
    for (uint32_t i = from; i < h->n; i++)
        free(h->a[i]);
    h->n = from;
}

/* Drops the events of `kind` answering `seq` still queued: repeats of an
 * answer already taken whole (over UDP, to the request sent again). */
static void drop_pieces(sweep_client *c, int kind, uint32_t seq)
{
    for (size_t i = 0; i < c->qlen;) {
        const sweep_client_event *q = &c->q[c->qhead + i];
        if ((int)q->kind != kind || q->sequence != seq) {
            i++;
            continue;
        }
        sweep_client_event ev;
        sweep__client_queue_take(c, i, &ev);
        free(sweep__client_owned_array(&ev));
        c->counters.duplicates++;
    }
}

/* One answer of n items (results, answers) being gathered from its
 * pieces by a blocking call: which have come (have, got), the arrays they
 * point into (held in h from `from` on), and how a piece is placed. */
typedef struct gathering {
    uint32_t n, got, from;
    uint8_t *have;
    sweep__held *h;
    void *out;
    /* Places the run of one event (its array already held): 0, or 1 to
     * drop it (the rest of an answer given up). */
    int (*place)(struct gathering *g, const sweep_client_event *ev);
    uint64_t tick; /* EntityCommands: the server tick of the answer being gathered */
    int have_tick;
} gathering;

/* Waits until deadline for every piece of the answer of `kind` to request
 * m, `what` naming it in a timeout, each placed by g->place. Over UDP the
 * request is sent again every retry_ms while the answer is not whole. */
static sweep_client_status await_pieces(sweep_client *c, const sweep_message *m, int kind, const char *what,
                                        gathering *g, uint64_t deadline, sweep_client_error *err)
{
    uint32_t seq = m->sequence;
    uint64_t resend_at = sweep_client_now_ns() + (uint64_t)c->retry_ms * 1000000u;
    sweep_client_status s;
    if ((g->have = calloc(g->n, 1)) == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
    for (;;) {
        if ((s = sweep__client_service_spawns(c, err)) != SWEEP_CLIENT_OK)
            break;
        for (size_t i = 0; i < c->qlen && g->got < g->n;) {
            if (!sweep__client_answers(&c->q[c->qhead + i], kind, seq)) {
                i++;
                continue;
            }
            sweep_client_event ev;
            sweep__client_queue_take(c, i, &ev);
            if (ev.kind == SWEEP_CLIENT_EV_ERROR) {
                if (err)
                    *err = ev.as.error;
                s = ev.as.error.status;
                goto out;
            }
            void *array = sweep__client_owned_array(&ev);
            if (g->place(g, &ev)) {
                free(array);
                continue;
            }
            if (array && hold(g->h, array) < 0) {
                free(array);
                s = sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory");
                goto out;
            }
        }
        if (g->got == g->n) {
            drop_pieces(c, kind, seq);
            s = sweep__client_ok(err);
            break;
        }
        uint64_t now = sweep_client_now_ns();
        if (now >= deadline) {
            s = sweep__client_fail(err, SWEEP_CLIENT_E_TIMEOUT,
                                   "no whole answer to %s (sequence %u) within %d ms: %u of its %u "
                                   "items came", what, seq, c->timeout_ms, g->got, g->n);
            if (err)
                err->sequence = seq;
            break;
        }
        if ((s = sweep__client_wait_more(c, m, now, deadline, &resend_at, err)) != SWEEP_CLIENT_OK)
            break;
    }
out:
    free(g->have);
    return s;
}

/* A piece of an EntityCommandsResult: the pieces of one answer are those
 * of one server_tick (one application of the request). A piece of a later
 * tick starts over (the request sent again was applied again; the client
 * places a piece whose first pieces were lost only where its commands say
 * so without doubt), and a late piece of an earlier one is left. */
static int place_commands(gathering *g, const sweep_client_event *ev)
{
    const sweep_client_command_results *r = &ev->as.command_results;
    sweep_msg_entity_command_result *out = g->out;
    if (g->have_tick && ev->server_tick < g->tick)
        return 1; /* of an application before the one gathered */
    if (!g->have_tick || ev->server_tick > g->tick) {
        unhold(g->h, g->from);
        memset(g->have, 0, g->n);
        g->got = 0;
        g->tick = ev->server_tick;
        g->have_tick = 1;
    }
    for (uint32_t k = 0; k < r->count; k++) {
        uint32_t at = r->first + k;
        if (at < g->n && !g->have[at]) {
            g->have[at] = 1;
            out[at] = r->results[k];
            g->got++;
        }
    }
    return 0;
}

/* Waits until deadline for the whole answer to EntityCommands m: its
 * results into out[0 .. count), the arrays they point into held in h. */
static sweep_client_status await_commands(sweep_client *c, const sweep_message *m,
                                          sweep_msg_entity_command_result *out, sweep__held *h, uint64_t deadline,
                                          sweep_client_error *err)
{
    gathering g = {.n = m->as.entity_commands.count, .from = h->n, .h = h, .out = out, .place = place_commands};
    sweep_client_status s = await_pieces(c, m, SWEEP_CLIENT_EV_COMMAND_RESULTS, "EntityCommands", &g, deadline, err);
    sweep__commands_sent *sent = sweep__client_commands_sent(c, m->sequence);
    if (sent)
        sent->closed = 1; /* taken, or given up: what comes now is not waited for */
    return s;
}

/* Copies the texts out[0 .. n) point to into one allocation the client
 * hands out (valid until the next receiving call). Returns 0, or -1 when
 * memory runs out (then the texts are cut off). */
static int keep_texts(sweep_client *c, sweep_msg_entity_command_result *out, uint32_t n)
{
    size_t text = 0;
    for (uint32_t i = 0; i < n; i++)
        text += out[i].message.ptr ? (size_t)out[i].message.len + 1 : 0;
    if (text == 0)
        return 0;
    char *t = malloc(text);
    if (t == NULL) {
        for (uint32_t i = 0; i < n; i++)
            out[i].message = (sweep_str){NULL, 0};
        return -1;
    }
    sweep__client_release_handed(c);
    c->handed = t;
    for (uint32_t i = 0; i < n; i++) {
        if (out[i].message.ptr == NULL)
            continue;
        memcpy(t, out[i].message.ptr, (size_t)out[i].message.len + 1);
        out[i].message.ptr = t;
        t += out[i].message.len + 1;
    }
    return 0;
}

/* The blocking EntityCommands (client.h): messages of at most max_batch
 * commands, each waited for before the next is sent. */
static sweep_client_status entity_commands(sweep_client *c, const sweep_msg_entity_command *cmds, uint32_t n,
                                           sweep_msg_entity_command_result *out, sweep_client_error *err)
{
    sweep_client_status s = commands_args(c, cmds, n, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    if (out == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "EntityCommands needs room for its results");
    sweep__client_release_handed(c);
    uint32_t per = sweep_client_max_batch(c), answered = 0;
    sweep__held h = {0};
    while (answered < n) {
        uint32_t k = n - answered < per ? n - answered : per;
        sweep_message m;
        s = send_commands(c, cmds + answered, k, &m, err);
        if (s == SWEEP_CLIENT_OK)
            s = await_commands(c, &m, out + answered, &h, sweep__client_deadline_after(c->timeout_ms), err);
        if (s != SWEEP_CLIENT_OK) {
            memset(out + answered, 0, (size_t)k * sizeof *out);
            break;
        }
        answered += k;
    }
    if (keep_texts(c, out, answered) < 0 && s == SWEEP_CLIENT_OK)
        s = sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory keeping the results' messages");
    unhold(&h, 0);
    free(h.a);
    return s;
}

sweep_client_status sweep_client_entity_commands(sweep_client *c, const sweep_msg_entity_command *cmds, uint32_t n,
                                                 sweep_msg_entity_command_result *out, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, entity_commands(c, cmds, n, out, &c->last), err);
}

static sweep_client_status send_entity_commands(sweep_client *c, const sweep_msg_entity_command *cmds, uint32_t n,
                                                uint32_t *sequence, sweep_client_error *err)
{
    sweep_client_status s = commands_args(c, cmds, n, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    uint32_t per = sweep_client_max_batch(c);
    if (n > per)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG,
                                  "%u commands; one EntityCommands holds at most %u (sweep_client_max_batch)", n, per);
    sweep_message m;
    if ((s = send_commands(c, cmds, n, &m, err)) != SWEEP_CLIENT_OK)
        return s;
    if (sequence)
        *sequence = m.sequence;
    return sweep__client_ok(err);
}

sweep_client_status sweep_client_send_entity_commands(sweep_client *c, const sweep_msg_entity_command *cmds,
                                                      uint32_t n, uint32_t *sequence, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, send_entity_commands(c, cmds, n, sequence, &c->last), err);
}

/* --- Query ------------------------------------------------------------------- */

static sweep_client_status query_args(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                      sweep_client_error *err)
{
    if (items == NULL || n == 0)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "Query needs at least one item");
    if (c->state != SWEEP__READY)
        return sweep__client_not_ready(c, err);
    return SWEEP_CLIENT_OK;
}

static sweep_client_status send_query_msg(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                          sweep_message *m, sweep_client_error *err)
{
    memset(m, 0, sizeof *m);
    m->kind = SWEEP_MSG_QUERY;
    m->sequence = c->next_seq;
    m->as.query.items = items;
    m->as.query.count = n;
    sweep_client_status s = sweep__client_send_message(c, m, err);
    if (s == SWEEP_CLIENT_OK)
        c->next_seq++;
    return s;
}

/* A piece of a QueryResult: each item's first answer to come is taken
 * (over UDP the request sent again is answered again). */
static int place_answers(gathering *g, const sweep_client_event *ev)
{
    const sweep_client_query_results *r = &ev->as.query_results;
    sweep_msg_query_answer *out = g->out;
    for (uint32_t k = 0; k < r->count; k++) {
        uint32_t at = r->first + k;
        if (at < g->n && !g->have[at]) {
            g->have[at] = 1;
            out[at] = r->answers[k];
            g->got++;
        }
    }
    return 0;
}

/* The blocking Query (client.h): messages of at most max_batch items, each
 * waited for before the next is sent; the answers' hits and texts copied
 * into one allocation handed out. */
static sweep_client_status query(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                 sweep_msg_query_answer *out, sweep_client_error *err)
{
    sweep_client_status s = query_args(c, items, n, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    if (out == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "Query needs room for its answers");
    sweep__client_release_handed(c);
    uint32_t per = sweep_client_max_batch(c), answered = 0;
    sweep__held h = {0};
    while (answered < n) {
        uint32_t k = n - answered < per ? n - answered : per;
        sweep_message m;
        /* Over UDP items with long ignore lists may not fit a datagram
         * by the dozen: fewer a message then. */
        while ((s = send_query_msg(c, items + answered, k, &m, err)) == SWEEP_CLIENT_E_TOO_LARGE && k > 1)
            k = (k + 1) / 2;
        gathering g = {.n = k, .from = h.n, .h = &h, .out = out + answered, .place = place_answers};
        if (s == SWEEP_CLIENT_OK)
            s = await_pieces(c, &m, SWEEP_CLIENT_EV_QUERY_RESULTS, "Query", &g,
                             sweep__client_deadline_after(c->timeout_ms), err);
        if (s != SWEEP_CLIENT_OK) {
            memset(out + answered, 0, (size_t)k * sizeof *out);
            break;
        }
        answered += k;
    }
    if (answered > 0) {
        sweep_msg_query_answer *copy = sweep__client_copy_answers(out, answered);
        if (copy == NULL) {
            memset(out, 0, (size_t)answered * sizeof *out);
            if (s == SWEEP_CLIENT_OK)
                s = sweep__client_fail(err, SWEEP_CLIENT_E_NOMEM, "out of memory keeping the answers");
        } else {
            memcpy(out, copy, (size_t)answered * sizeof *out);
            c->handed = copy; /* the copy's own answers are not read: its hits and texts are */
        }
    }
    unhold(&h, 0);
    free(h.a);
    return s;
}

sweep_client_status sweep_client_query(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                       sweep_msg_query_answer *out, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, query(c, items, n, out, &c->last), err);
}

static sweep_client_status send_query(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                      uint32_t *sequence, sweep_client_error *err)
{
    sweep_client_status s = query_args(c, items, n, err);
    if (s != SWEEP_CLIENT_OK)
        return s;
    uint32_t per = sweep_client_max_batch(c);
    if (n > per)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG,
                                  "%u items; one Query holds at most %u (sweep_client_max_batch)", n, per);
    sweep_message m;
    if ((s = send_query_msg(c, items, n, &m, err)) != SWEEP_CLIENT_OK)
        return s;
    if (sequence)
        *sequence = m.sequence;
    return sweep__client_ok(err);
}

sweep_client_status sweep_client_send_query(sweep_client *c, const sweep_msg_query_item *items, uint32_t n,
                                            uint32_t *sequence, sweep_client_error *err)
{
    if (c == NULL)
        return sweep__client_fail(err, SWEEP_CLIENT_E_ARG, "NULL client");
    return sweep__client_done(c, send_query(c, items, n, sequence, &c->last), err);
}
