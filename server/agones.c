/*
 * agones.c - the Agones SDK spoken over its REST gateway (agones.h says
 * what and when).
 *
 * The calls thread wakes at least every SWEEP__AGONES_TICK_MS, or when
 * poked, and brings Agones in line with what sweepd is: Ready once wanted,
 * a Health ping when due and every loop beat, the Counter when the open
 * worlds changed, each player of the List added or removed, Shutdown once
 * the worlds are gone. Each of these is state, not an event queue: a call
 * that fails is made again on the next round, with a growing pause while
 * the SDK server does not answer (it may start after sweepd), and logged
 * (the first failure, then every 20th).
 *
 * The watch thread keeps one GET /watch/gameserver open: a stream of JSON
 * objects {"result": GameServer}, one a line. It reconnects after a pause
 * when the stream ends. A new allocation that names a map is queued and
 * thread 0's loop is woken to open the world there (world_open.c).
 */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/agones.h"
#include "server/server_impl.h"
#include "server/world/alloc.h"

#define SWEEP__AGONES_TICK_MS 100
#define SWEEP__AGONES_CALL_MS 2000  /* one call, connection included */
#define SWEEP__AGONES_REPLY_MAX (1u << 20)
#define SWEEP__AGONES_BACKOFF_MAX_MS 5000
#define SWEEP__AGONES_LOG_EVERY 20
#define SWEEP__AGONES_STREAM_RAN_MS 10000 /* a watch stream this long ended as streams do */

typedef struct player {
    char value[SWEEP_TOKEN_IDENTITY_MAX + 32];
    int refs;   /* sessions of this value now */
    int listed; /* in the Agones List, as far as sweepd knows */
    int busy;   /* the calls thread is adding or removing it: kept until it is done */
} player;

typedef struct allocation {
    struct allocation *next;
    char map[SWEEP_LEVEL_NAME_MAX];
    char world[SWEEP__WORLD_NAME_MAX + 1];
} allocation;

/* A call that failed: when to try again, and how often it failed. */
typedef struct retry {
    uint64_t next_ns;
    unsigned failures;
} retry;

struct sweep__agones {
    sweep_server *server; /* server 0 */
    int port;
    char base[64]; /* http://localhost:PORT */
    uint64_t created_ns;
    pthread_mutex_t lock; /* guards everything below it */
    pthread_cond_t wake;
    int stop, started, threads_up;
    pthread_t calls, watch;
    player *players;
    unsigned player_count, player_cap;
    allocation *allocs, **allocs_tail;
    uv_async_t async; /* on server 0's loop: allocations to open */
    int async_open;
    /* An allocation was handled: the Counter is set again whatever sweepd
     * last set, since an allocation's own Increment (or one that opened
     * nothing) changed it behind sweepd's back. Atomic. */
    int resync;
    /* The calls thread's own (no lock). */
    int ready_done, shutdown_sent;
    int64_t worlds_synced; /* -1: never */
    uint64_t *beats_seen;
    uint64_t next_health_ns;
    int health_withheld;
    retry r_ready, r_health, r_counter, r_list, r_shutdown;
    /* The watch thread's own. */
    char *last_allocated; /* the whole stamp (NULL: none seen), so that a long one is the same one again */
    char last_state[32];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- one HTTP call ------------------------------------------------------------ */

typedef struct reply {
    char *bytes;
    size_t len, cap;
    sweep__agones *a;
    /* The watch stream: each whole line goes to on_line as it comes. */
    void (*on_line)(sweep__agones *a, const char *line, size_t len);
} reply;

static size_t on_bytes(char *data, size_t size, size_t n, void *ctx)
{
    reply *r = ctx;
    size_t len = size * n;
    if (r->len + len + 1 > r->cap) {
        if (r->len + len + 1 > SWEEP__AGONES_REPLY_MAX)
            return 0; /* curl ends the transfer with an error */
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + len + 1)
            cap *= 2;
        char *b = realloc(r->bytes, cap);
        if (!b)
            return 0;
        r->bytes = b;
        r->cap = cap;
    }
    memcpy(r->bytes + r->len, data, len);
    r->len += len;
    r->bytes[r->len] = 0;
    if (r->on_line) {
        char *nl;
        while ((nl = memchr(r->bytes, '\n', r->len))) {
            size_t line = (size_t)(nl - r->bytes);
            r->on_line(r->a, r->bytes, line);
            memmove(r->bytes, nl + 1, r->len - line - 1);
            r->len -= line + 1;
            r->bytes[r->len] = 0;
        }
    }
    return len;
}

/* Whether sweepd is stopping. The flag is stored outside the lock
 * (sweep__agones_stop), so every read is atomic, under the lock or not. */
static int stopping(const sweep__agones *a)
{
    return __atomic_load_n(&a->stop, __ATOMIC_RELAXED);
}

/* A transfer ends when sweepd stops. */
static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    return stopping(ctx);
}

/* method path with the JSON body (NULL: none, "{}" for a POST): the HTTP
 * status, the reply parsed into *out when asked (NULL if it is not JSON),
 * or 0 with err when the SDK server did not answer. */
static long call(sweep__agones *a, CURL *c, const char *method, const char *path, json_t *body, json_t **out,
                 char *err, size_t errlen)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", a->base, path);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    reply r = {.a = a};
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)SWEEP__AGONES_CALL_MS);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)SWEEP__AGONES_CALL_MS);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_bytes);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, a);
    if (text)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    if (rc == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        if (out)
            *out = r.bytes ? json_loadb(r.bytes, r.len, 0, NULL) : NULL;
    } else {
        snprintf(err, errlen, "%s", curl_easy_strerror(rc));
    }
    if (status && status / 100 != 2)
        snprintf(err, errlen, "HTTP %ld", status);
    curl_slist_free_all(headers);
    free(text);
    free(r.bytes);
    return status;
}

/* A failed call: logged (the first time, then every LOG_EVERY-th) and
 * tried again after a pause that doubles up to BACKOFF_MAX. */
static void failed(sweep__agones *a, retry *r, const char *what, const char *err)
{
    (void)a;
    if (r->failures % SWEEP__AGONES_LOG_EVERY == 0)
        sweep__log(SWEEP_LOG_WARN, "agones_call_failed", "call=%s attempt=%u error=\"%s\": retried", what,
                   r->failures + 1, err);
    unsigned shift = r->failures < 6 ? r->failures : 6;
    uint64_t pause_ms = 100u << shift;
    if (pause_ms > SWEEP__AGONES_BACKOFF_MAX_MS)
        pause_ms = SWEEP__AGONES_BACKOFF_MAX_MS;
    r->failures++;
    r->next_ns = now_ns() + pause_ms * 1000000u;
}

static void succeeded(retry *r, const char *what)
{
    if (r->failures)
        sweep__log(SWEEP_LOG_INFO, "agones_call_recovered", "call=%s failures=%u", what, r->failures);
    r->failures = 0;
    r->next_ns = 0;
}

static int due(const retry *r, uint64_t now)
{
    return now >= r->next_ns;
}

/* status.state of a GameServer, or "". */
static const char *gs_state(json_t *gs)
{
    const char *s = json_string_value(json_object_get(json_object_get(gs, "status"), "state"));
    return s ? s : "";
}

/* Waits under the lock until poked, stopped or a tick has passed. */
static void wait_tick(sweep__agones *a)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += SWEEP__AGONES_TICK_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&a->wake, &a->lock, &until);
}

/* --- the calls thread ------------------------------------------------------------ */

static void sync_ready(sweep__agones *a, CURL *c, uint64_t now)
{
    if (a->ready_done || !due(&a->r_ready, now))
        return;
    char err[200] = "";
    json_t *gs = NULL;
    long st = call(a, c, "GET", "/gameserver", NULL, &gs, err, sizeof err);
    if (st != 200) {
        json_decref(gs);
        failed(a, &a->r_ready, "GetGameServer", err);
        return;
    }
    char state[32];
    snprintf(state, sizeof state, "%s", gs_state(gs));
    json_decref(gs);
    if (!strcmp(state, "Ready") || !strcmp(state, "Reserved") || !strcmp(state, "Allocated")) {
        succeeded(&a->r_ready, "Ready");
        a->ready_done = 1;
        sweep__log(SWEEP_LOG_INFO, "agones_ready_skipped", "state=%s: Ready not sent again", state);
        return;
    }
    json_t *body = json_object();
    st = call(a, c, "POST", "/ready", body, NULL, err, sizeof err);
    json_decref(body);
    if (st != 200) {
        failed(a, &a->r_ready, "Ready", err);
        return;
    }
    succeeded(&a->r_ready, "Ready");
    a->ready_done = 1;
    /* From the maps loaded to Ready answered (the line's t= counts from the process's start). */
    sweep__log(SWEEP_LOG_INFO, "agones_ready", "ms=%llu health_ms=%u",
               (unsigned long long)((now_ns() - a->created_ns) / 1000000u), a->server->opt.agones_health_ms);
}

/* Has every loop beaten since the last look? The stalled thread, or -1. */
static int stalled_thread(sweep__agones *a)
{
    int stalled = -1;
    for (unsigned i = 0; i < a->server->group->count; i++) {
        uint64_t b = __atomic_load_n(&a->server->group->beats[i], __ATOMIC_RELAXED);
        if (b == a->beats_seen[i] && stalled < 0)
            stalled = (int)i;
        a->beats_seen[i] = b;
    }
    return stalled;
}

static void sync_health(sweep__agones *a, CURL *c, uint64_t now)
{
    if (!a->ready_done || now < a->next_health_ns)
        return;
    int first = a->next_health_ns == 0;
    a->next_health_ns = now + (uint64_t)a->server->opt.agones_health_ms * 1000000u;
    int stalled = stalled_thread(a);
    if (first)
        return; /* the beats so far are the baseline: a loop may not have kept house yet */
    if (stalled >= 0) {
        if (!a->health_withheld)
            sweep__log(SWEEP_LOG_ERROR, "agones_health_withheld",
                       "thread=%d: its event loop ran no housekeeping for %u ms", stalled,
                       a->server->opt.agones_health_ms);
        a->health_withheld = 1;
        return;
    }
    if (a->health_withheld)
        sweep__log(SWEEP_LOG_INFO, "agones_health_resumed", "every event loop runs again");
    a->health_withheld = 0;
    char err[200] = "";
    json_t *body = json_object();
    long st = call(a, c, "POST", "/health", body, NULL, err, sizeof err);
    json_decref(body);
    if (st != 200)
        failed(a, &a->r_health, "Health", err);
    else
        succeeded(&a->r_health, "Health");
}

static void sync_worlds(sweep__agones *a, CURL *c, uint64_t now)
{
    uint64_t ever;
    uint32_t open = sweep__world_table_open_ever(a->server, &ever);
    if (__atomic_exchange_n(&a->resync, 0, __ATOMIC_RELAXED))
        a->worlds_synced = -1;
    if ((int64_t)open != a->worlds_synced && due(&a->r_counter, now)) {
        char err[200] = "", path[128], n[24], cap[24];
        snprintf(path, sizeof path, "/v1beta1/counters/%s", SWEEP__AGONES_COUNTER);
        /* int64 fields are strings in the gateway's JSON. */
        snprintf(n, sizeof n, "%u", open);
        snprintf(cap, sizeof cap, "%u", a->server->opt.max_worlds);
        json_t *body = json_pack("{s:s,s:s}", "count", n, "capacity", cap);
        long st = call(a, c, "PATCH", path, body, NULL, err, sizeof err);
        json_decref(body);
        if (st == 200) {
            succeeded(&a->r_counter, "UpdateCounter");
            a->worlds_synced = open;
        } else {
            failed(a, &a->r_counter, "UpdateCounter", err);
        }
    }
    /* ever, counted where worlds open: a match opened and closed between
     * two looks of this thread (100 ms, or a slow call's 2 s) was one. */
    if (open == 0 && ever > 0 && a->server->opt.agones_shutdown_empty && !a->shutdown_sent &&
        a->ready_done && due(&a->r_shutdown, now)) {
        char err[200] = "";
        json_t *body = json_object();
        long st = call(a, c, "POST", "/shutdown", body, NULL, err, sizeof err);
        json_decref(body);
        if (st == 200) {
            succeeded(&a->r_shutdown, "Shutdown");
            a->shutdown_sent = 1;
            sweep__log(SWEEP_LOG_INFO, "agones_shutdown", "reason=\"the last world closed\"");
        } else {
            failed(a, &a->r_shutdown, "Shutdown", err);
        }
    }
}

/* Player i of a (under the lock) forgotten once nothing is left to do for
 * it: no session, not in the List, no call under way. Players that left
 * before they were ever listed would otherwise stay for good, one per
 * guest session. */
static void player_settled(sweep__agones *a, unsigned i)
{
    player *p = &a->players[i];
    if (p->refs == 0 && !p->listed && !p->busy)
        a->players[i] = a->players[--a->player_count];
}

/* One player whose place in the List is not what it should be: added or
 * removed. 1 when one was seen to (done or failed), 0 when none is left. */
static int sync_one_player(sweep__agones *a, CURL *c)
{
    char value[sizeof ((player *)0)->value];
    int add = 0, found = 0;
    pthread_mutex_lock(&a->lock);
    for (unsigned i = 0; i < a->player_count; i++) {
        player *p = &a->players[i];
        if ((p->refs > 0) != p->listed) {
            memcpy(value, p->value, sizeof value);
            add = p->refs > 0;
            found = 1;
            p->busy = 1;
            break;
        }
    }
    pthread_mutex_unlock(&a->lock);
    if (!found)
        return 0;
    char err[200] = "", path[128];
    snprintf(path, sizeof path, "/v1beta1/lists/%s:%s", SWEEP__AGONES_LIST, add ? "addValue" : "removeValue");
    json_t *body = json_pack("{s:s}", "value", value);
    long st = call(a, c, "POST", path, body, NULL, err, sizeof err);
    json_decref(body);
    /* Already there (409) or already gone (404) is where it should be. */
    int done = st == 200 || (add && st == 409) || (!add && st == 404);
    if (done)
        succeeded(&a->r_list, "UpdateList");
    else
        failed(a, &a->r_list, add ? "AddListValue" : "RemoveListValue", err);
    pthread_mutex_lock(&a->lock);
    for (unsigned i = 0; i < a->player_count; i++) {
        player *p = &a->players[i];
        if (strcmp(p->value, value) != 0)
            continue;
        p->busy = 0;
        if (done)
            p->listed = add;
        player_settled(a, i);
        break;
    }
    pthread_mutex_unlock(&a->lock);
    return 1;
}

static void *calls_main(void *arg)
{
    sweep__agones *a = arg;
    CURL *c = curl_easy_init();
    if (!c) {
        sweep__log(SWEEP_LOG_ERROR, "agones_failed", "error=\"no curl handle\": the SDK is not spoken");
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&a->lock);
        int stop = stopping(a);
        pthread_mutex_unlock(&a->lock);
        if (stop)
            break;
        uint64_t now = now_ns();
        sync_ready(a, c, now);
        sync_health(a, c, now);
        sync_worlds(a, c, now);
        /* Players one at a time, so a Health ping is never long behind. */
        for (int n = 0; n < 16 && due(&a->r_list, now_ns()) && sync_one_player(a, c); n++)
            ;
        pthread_mutex_lock(&a->lock);
        if (!stopping(a))
            wait_tick(a);
        pthread_mutex_unlock(&a->lock);
    }
    curl_easy_cleanup(c);
    return NULL;
}

/* --- the watch thread ----------------------------------------------------------- */

/* An annotation, else a label, of the GameServer's metadata; NULL if none. */
static const char *meta(json_t *gs, const char *key)
{
    json_t *m = json_object_get(gs, "object_meta");
    if (!m)
        m = json_object_get(gs, "objectMeta");
    const char *v = json_string_value(json_object_get(json_object_get(m, "annotations"), key));
    if (!v)
        v = json_string_value(json_object_get(json_object_get(m, "labels"), key));
    return v;
}

static void on_allocated(sweep__agones *a, json_t *gs)
{
    const char *stamp = meta(gs, "agones.dev/last-allocated");
    if (!stamp)
        stamp = "";
    if (a->last_allocated && strcmp(stamp, a->last_allocated) == 0)
        return; /* the same allocation, seen again */
    char *keep = strdup(stamp);
    if (!keep) {
        /* Not remembered, it would open its world again each time seen. */
        sweep__log(SWEEP_LOG_ERROR, "agones_world_refused", "error=\"out of memory\"");
        return;
    }
    free(a->last_allocated);
    a->last_allocated = keep;
    __atomic_store_n(&a->resync, 1, __ATOMIC_RELAXED);
    const char *map = meta(gs, SWEEP__AGONES_MAP_KEY), *world = meta(gs, SWEEP__AGONES_WORLD_KEY);
    char qm[2 * SWEEP_LEVEL_NAME_MAX + 8], qw[2 * SWEEP__WORLD_NAME_MAX + 8], qs[300];
    sweep__log(SWEEP_LOG_INFO, "agones_allocated", "last_allocated=%s map=%s world=%s",
               sweep__log_quote(stamp, strlen(stamp), qs, sizeof qs),
               map ? sweep__log_quote(map, strlen(map), qm, sizeof qm) : "none",
               world ? sweep__log_quote(world, strlen(world), qw, sizeof qw) : "none");
    if (!map)
        return;
    if (strlen(map) >= SWEEP_LEVEL_NAME_MAX || (world && strlen(world) > SWEEP__WORLD_NAME_MAX)) {
        sweep__log(SWEEP_LOG_ERROR, "agones_world_refused", "map=%s error=\"map or world name too long\"", qm);
        return;
    }
    allocation *al = calloc(1, sizeof *al);
    if (!al) {
        sweep__log(SWEEP_LOG_ERROR, "agones_world_refused", "map=%s error=\"out of memory\"", qm);
        return;
    }
    snprintf(al->map, sizeof al->map, "%s", map);
    snprintf(al->world, sizeof al->world, "%s", world ? world : "");
    pthread_mutex_lock(&a->lock);
    *a->allocs_tail = al;
    a->allocs_tail = &al->next;
    pthread_mutex_unlock(&a->lock);
    uv_async_send(&a->async);
}

static void on_watch_line(sweep__agones *a, const char *line, size_t len)
{
    json_error_t jerr;
    json_t *msg = json_loadb(line, len, 0, &jerr);
    if (!msg) {
        char qe[2 * JSON_ERROR_TEXT_LENGTH + 8];
        if (len)
            sweep__log(SWEEP_LOG_WARN, "agones_watch_bad", "error=%s: line skipped",
                       sweep__log_quote(jerr.text, strlen(jerr.text), qe, sizeof qe));
        return;
    }
    json_t *gs = json_object_get(msg, "result");
    if (!json_is_object(gs)) {
        json_t *e = json_object_get(msg, "error");
        const char *m = json_string_value(json_object_get(e, "message"));
        char qm[300];
        if (!m)
            m = "no result";
        sweep__log(SWEEP_LOG_WARN, "agones_watch_error", "message=%s", sweep__log_quote(m, strlen(m), qm, sizeof qm));
        json_decref(msg);
        return;
    }
    const char *state = gs_state(gs);
    if (strncmp(state, a->last_state, sizeof a->last_state - 1) != 0) {
        char qs[2 * sizeof a->last_state + 8];
        sweep__log(SWEEP_LOG_INFO, "agones_state", "state=%s",
                   *state ? sweep__log_quote(state, strlen(state), qs, sizeof qs) : "unknown");
        snprintf(a->last_state, sizeof a->last_state, "%s", state);
    }
    if (strcmp(state, "Allocated") == 0)
        on_allocated(a, gs);
    json_decref(msg);
}

static void *watch_main(void *arg)
{
    sweep__agones *a = arg;
    CURL *c = curl_easy_init();
    if (!c) {
        sweep__log(SWEEP_LOG_ERROR, "agones_failed", "error=\"no curl handle\": allocations are not watched");
        return NULL;
    }
    char url[128];
    snprintf(url, sizeof url, "%s/watch/gameserver", a->base);
    retry r = {0};
    for (;;) {
        pthread_mutex_lock(&a->lock);
        while (!stopping(a) && now_ns() < r.next_ns)
            wait_tick(a);
        int stop = stopping(a);
        pthread_mutex_unlock(&a->lock);
        if (stop)
            break;
        reply rp = {.a = a, .on_line = on_watch_line};
        curl_easy_reset(c);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)SWEEP__AGONES_CALL_MS);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_bytes);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &rp);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, a);
        uint64_t began = now_ns();
        CURLcode rc = curl_easy_perform(c);
        long status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        free(rp.bytes);
        if (stopping(a))
            break;
        char err[200];
        if (rc != CURLE_OK)
            snprintf(err, sizeof err, "%s", curl_easy_strerror(rc));
        else
            snprintf(err, sizeof err, "stream ended (HTTP %ld)", status);
        failed(a, &r, "WatchGameServer", err);
        /* A stream that ran a while is the sidecar's ordinary end of one:
         * the next starts soon. One that ends as soon as it began is a
         * failure like any other (its pause grows, its warnings thin out),
         * or a sidecar answering at once would be asked ten times a second. */
        if (rc == CURLE_OK && status == 200 && now_ns() - began >= (uint64_t)SWEEP__AGONES_STREAM_RAN_MS * 1000000u)
            r.failures = 0;
    }
    curl_easy_cleanup(c);
    return NULL;
}

/* --- the loop's side ------------------------------------------------------------ */

/* Thread 0's loop: the worlds allocations name, opened. */
static void on_async(uv_async_t *h)
{
    sweep__agones *a = h->data;
    pthread_mutex_lock(&a->lock);
    allocation *list = a->allocs;
    a->allocs = NULL;
    a->allocs_tail = &a->allocs;
    pthread_mutex_unlock(&a->lock);
    while (list) {
        allocation *al = list;
        list = al->next;
        sweep_server *s = a->server;
        if (!s->stopping) {
            sweep__world_opened o;
            sweep_wire_code code;
            char why[400], qm[2 * SWEEP_LEVEL_NAME_MAX + 8];
            if (sweep__world_open_map(s, sweep_str_of(al->map), sweep_str_of(al->world), "by=agones", NULL, 0, &o, &code,
                                      why, sizeof why) != 0)
                sweep__log(SWEEP_LOG_ERROR, "agones_world_refused", "map=%s error=\"%s\"",
                           sweep__log_quote(al->map, strlen(al->map), qm, sizeof qm), why);
            __atomic_store_n(&a->resync, 1, __ATOMIC_RELAXED);
            sweep__agones_poke(a);
        }
        free(al);
    }
}

int sweep__agones_create(sweep_server *s, sweep__agones **out, char *err, size_t errlen)
{
    *out = NULL;
    const char *env = getenv("AGONES_SDK_HTTP_PORT");
    if (s->opt.agones == SWEEP_AGONES_OFF || (s->opt.agones == SWEEP_AGONES_AUTO && !(env && *env)))
        return 0;
    int port = 9358; /* the SDK server's default */
    if (env && *env) {
        char *end;
        long p = strtol(env, &end, 10);
        if (*end || p < 1 || p > 65535) {
            snprintf(err, errlen, "AGONES_SDK_HTTP_PORT '%s' is not a port", env);
            return -1;
        }
        port = (int)p;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errlen, "libcurl does not initialise");
        return -1;
    }
    sweep__agones *a = calloc(1, sizeof *a);
    unsigned n = s->group->count;
    if (!a || !(a->beats_seen = calloc(n, sizeof *a->beats_seen))) {
        free(a);
        curl_global_cleanup();
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    a->server = s;
    a->port = port;
    snprintf(a->base, sizeof a->base, "http://localhost:%d", port);
    a->created_ns = now_ns();
    a->worlds_synced = -1;
    a->allocs_tail = &a->allocs;
    pthread_mutex_init(&a->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->wake, &ca);
    pthread_condattr_destroy(&ca);
    uv_async_init(&s->loop, &a->async, on_async);
    a->async.data = a;
    a->async_open = 1;
    /* It never keeps the loop alive: allocations are only taken while it runs. */
    uv_unref((uv_handle_t *)&a->async);
    *out = a;
    return 0;
}

void sweep__agones_start(sweep__agones *a)
{
    if (!a || a->started)
        return;
    a->started = 1;
    sweep__log(SWEEP_LOG_INFO, "agones_start", "sdk=%s health_ms=%u shutdown_when_empty=%s", a->base,
               a->server->opt.agones_health_ms, a->server->opt.agones_shutdown_empty ? "on" : "off");
    if (pthread_create(&a->calls, NULL, calls_main, a) != 0) {
        sweep__log(SWEEP_LOG_ERROR, "agones_failed", "error=\"no thread\": the SDK is not spoken");
        return;
    }
    if (pthread_create(&a->watch, NULL, watch_main, a) != 0) {
        sweep__log(SWEEP_LOG_ERROR, "agones_failed", "error=\"no thread\": allocations are not watched");
        a->threads_up = 1;
        return;
    }
    a->threads_up = 2;
}

void sweep__agones_player(sweep__agones *a, const char *value, int delta)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    player *p = NULL;
    for (unsigned i = 0; i < a->player_count && !p; i++)
        if (strcmp(a->players[i].value, value) == 0)
            p = &a->players[i];
    if (!p && delta > 0) {
        if (a->player_count == a->player_cap) {
            unsigned cap = a->player_cap ? a->player_cap * 2 : 64;
            player *np = sweep__realloc(a->players, cap * sizeof *np);
            if (!np) {
                pthread_mutex_unlock(&a->lock);
                sweep__log(SWEEP_LOG_ERROR, "agones_player_dropped", "error=\"out of memory\": not in the List");
                return;
            }
            a->players = np;
            a->player_cap = cap;
        }
        p = &a->players[a->player_count++];
        memset(p, 0, sizeof *p);
        snprintf(p->value, sizeof p->value, "%s", value);
    }
    if (p) {
        p->refs += delta;
        player_settled(a, (unsigned)(p - a->players));
    }
    pthread_cond_broadcast(&a->wake);
    pthread_mutex_unlock(&a->lock);
}

void sweep__agones_poke(sweep__agones *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    pthread_cond_broadcast(&a->wake);
    pthread_mutex_unlock(&a->lock);
}

void sweep__agones_stop(sweep__agones *a)
{
    if (!a)
        return;
    __atomic_store_n(&a->stop, 1, __ATOMIC_RELAXED);
    sweep__agones_poke(a); /* under the lock: a thread about to wait sees stop first */
    if (a->threads_up >= 1)
        pthread_join(a->calls, NULL);
    if (a->threads_up >= 2)
        pthread_join(a->watch, NULL);
    a->threads_up = 0;
}

void sweep__agones_close(sweep__agones *a)
{
    if (a && a->async_open) {
        a->async_open = 0;
        uv_close((uv_handle_t *)&a->async, NULL);
    }
}

void sweep__agones_free(sweep__agones *a)
{
    if (!a)
        return;
    while (a->allocs) {
        allocation *al = a->allocs;
        a->allocs = al->next;
        free(al);
    }
    pthread_cond_destroy(&a->wake);
    pthread_mutex_destroy(&a->lock);
    free(a->players);
    free(a->beats_seen);
    free(a->last_allocated);
    free(a);
    curl_global_cleanup();
}
