/*
 * agones_double.h - a test double of the Agones SDK server's REST gateway,
 * for the tests of sweepd's SDK (server/agones.c). Header-only, as every
 * test program is one .c file; libmicrohttpd serves it (one thread a
 * connection, so the watch stream may block), jansson reads and writes
 * the JSON.
 *
 * It follows the documented REST API and keeps the GameServer's state
 * machine as the SDK server does:
 *   POST /ready      Scheduled, Reserved or Allocated -> Ready
 *   POST /allocate   Ready -> Allocated (also ad_allocate: an allocation
 *                    from outside, with its annotations and a new
 *                    agones.dev/last-allocated)
 *   POST /shutdown   any -> Shutdown
 *   POST /health     counted
 *   GET  /gameserver the GameServer ({"object_meta": ..., "status": ...})
 *   GET  /watch/gameserver  a stream of {"result": GameServer}, one a line:
 *                    the current one at once, then one at every change
 *   PATCH /v1beta1/counters/{name}        count and/or capacity (numbers
 *                    or the strings int64 fields are in JSON); 404 for a
 *                    Counter the Fleet did not declare, 400 out of range
 *   POST /v1beta1/lists/{name}:addValue    409 if there, 400 when full
 *   POST /v1beta1/lists/{name}:removeValue 404 if not there
 * The Counter "worlds" (capacity 10) and the List "players" (capacity 100)
 * are declared, as a Fleet's spec would. Every request is recorded
 * (method, path, body) so that tests can assert what sweepd said and in
 * which order. ad_reserve holds a port without listening (a connection is
 * refused: an SDK server that has not started), ad_start serves it;
 * fail_ready answers the first N POST /ready with 503.
 */
#ifndef SWEEP_TESTS_AGONES_DOUBLE_H
#define SWEEP_TESTS_AGONES_DOUBLE_H

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct ad_call {
    char method[8];
    char path[128];
    char body[256];
} ad_call;

typedef struct ad_double {
    int fd, port;
    struct MHD_Daemon *daemon;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int stopping;
    unsigned version; /* grows at every change of the GameServer */
    char state[32];
    json_t *annotations, *labels;
    unsigned allocations;
    long long counter_count, counter_capacity;
    json_t *list; /* the List's values */
    long long list_capacity;
    unsigned health;
    int fail_ready; /* POST /ready answered 503 this many more times */
    int hold_health;      /* POST /health waits, unanswered, while this is set */
    unsigned health_held; /* POST /health calls that waited so */
    int watch_once;       /* the watch stream sends the GameServer once and ends */
    int watch_hold_ms;    /* with watch_once: ends this long after it began */
    ad_call *calls;
    unsigned call_count, call_cap;
    /* Called in POST /ready before it is answered (the listener check). */
    void (*on_ready)(void *ctx);
    void *ctx;
} ad_double;

/* The GameServer as the gateway writes it. Under the lock. */
static inline json_t *ad_gameserver(ad_double *d)
{
    char count[24], cap[24], lcap[24];
    snprintf(count, sizeof count, "%lld", d->counter_count);
    snprintf(cap, sizeof cap, "%lld", d->counter_capacity);
    snprintf(lcap, sizeof lcap, "%lld", d->list_capacity);
    return json_pack("{s:{s:s,s:s,s:O,s:O},s:{s:s,s:s,s:{s:{s:s,s:s}},s:{s:{s:s,s:O}}}}", "object_meta", "name",
                     "sweepd-test", "namespace", "default", "labels", d->labels, "annotations", d->annotations,
                     "status", "state", d->state, "address", "127.0.0.1", "counters", "worlds", "count", count,
                     "capacity", cap, "lists", "players", "capacity", lcap, "values", d->list);
}

static inline void ad_change(ad_double *d) /* under the lock */
{
    d->version++;
    pthread_cond_broadcast(&d->changed);
}

/* --- the watch stream -------------------------------------------------------------- */

typedef struct ad_watch {
    ad_double *d;
    struct timespec began; /* CLOCK_REALTIME, for the condition's timed wait */
    unsigned sent; /* version last sent; 0 = none */
    char *pending;
    size_t len, off;
} ad_watch;

static ssize_t ad_watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    ad_watch *w = cls;
    ad_double *d = w->d;
    if (w->off == w->len) {
        free(w->pending);
        w->pending = NULL;
        w->off = w->len = 0;
        pthread_mutex_lock(&d->lock);
        while (!d->stopping && w->sent == d->version && !(w->sent && d->watch_once))
            pthread_cond_wait(&d->changed, &d->lock);
        if (w->sent && d->watch_once && d->watch_hold_ms > 0) {
            struct timespec until = w->began;
            until.tv_sec += d->watch_hold_ms / 1000;
            until.tv_nsec += (long)(d->watch_hold_ms % 1000) * 1000000L;
            if (until.tv_nsec >= 1000000000L)
                until.tv_sec++, until.tv_nsec -= 1000000000L;
            while (!d->stopping && pthread_cond_timedwait(&d->changed, &d->lock, &until) == 0)
                ;
        }
        if (d->stopping || (w->sent && d->watch_once)) {
            pthread_mutex_unlock(&d->lock);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        /* Written out under the lock: the GameServer holds the double's
         * own labels, annotations and List values (references, not
         * copies), which other connections' requests change under it. */
        json_t *msg = json_pack("{s:o}", "result", ad_gameserver(d));
        char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
        w->sent = d->version;
        pthread_mutex_unlock(&d->lock);
        json_decref(msg);
        if (!text)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        size_t n = strlen(text);
        w->pending = malloc(n + 2);
        memcpy(w->pending, text, n);
        w->pending[n] = '\n';
        w->len = n + 1;
        free(text);
    }
    size_t n = w->len - w->off < max ? w->len - w->off : max;
    memcpy(buf, w->pending + w->off, n);
    w->off += n;
    return (ssize_t)n;
}

static void ad_watch_free(void *cls)
{
    ad_watch *w = cls;
    free(w->pending);
    free(w);
}

/* --- requests --------------------------------------------------------------------- */

typedef struct ad_body {
    char *bytes;
    size_t len;
} ad_body;

static enum MHD_Result ad_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result ad_error(struct MHD_Connection *c, unsigned status, const char *message)
{
    return ad_json(c, status, json_pack("{s:s}", "message", message));
}

/* A number or the string of one (int64 fields); -1 when absent or bad. */
static inline long long ad_int(json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v);
    const char *s = json_string_value(v);
    if (!s || !*s)
        return -1;
    char *end;
    long long x = strtoll(s, &end, 10);
    return *end ? -1 : x;
}

static enum MHD_Result ad_handle(ad_double *d, struct MHD_Connection *c, const char *method, const char *url,
                                 const char *body, size_t body_len)
{
    pthread_mutex_lock(&d->lock);
    if (d->call_count == d->call_cap) {
        d->call_cap = d->call_cap ? d->call_cap * 2 : 64;
        d->calls = realloc(d->calls, d->call_cap * sizeof *d->calls);
    }
    ad_call *rec = &d->calls[d->call_count++];
    snprintf(rec->method, sizeof rec->method, "%s", method);
    snprintf(rec->path, sizeof rec->path, "%s", url);
    snprintf(rec->body, sizeof rec->body, "%.*s", (int)(body_len < 255 ? body_len : 255), body ? body : "");
    json_t *in = body_len ? json_loadb(body, body_len, 0, NULL) : NULL;
    int post = strcmp(method, "POST") == 0;
    enum MHD_Result ok;
    if (post && strcmp(url, "/ready") == 0) {
        if (d->fail_ready > 0) {
            d->fail_ready--;
            pthread_mutex_unlock(&d->lock);
            json_decref(in);
            return ad_error(c, 503, "not ready to take Ready");
        }
        void (*hook)(void *) = d->on_ready;
        pthread_mutex_unlock(&d->lock);
        if (hook)
            hook(d->ctx);
        pthread_mutex_lock(&d->lock);
        if (strcmp(d->state, "Shutdown") != 0) {
            snprintf(d->state, sizeof d->state, "Ready");
            ad_change(d);
        }
        ok = ad_json(c, 200, json_object());
    } else if (post && strcmp(url, "/allocate") == 0) {
        if (strcmp(d->state, "Ready") == 0) {
            snprintf(d->state, sizeof d->state, "Allocated");
            ad_change(d);
        }
        ok = ad_json(c, 200, json_object());
    } else if (post && strcmp(url, "/shutdown") == 0) {
        snprintf(d->state, sizeof d->state, "Shutdown");
        ad_change(d);
        ok = ad_json(c, 200, json_object());
    } else if (post && strcmp(url, "/health") == 0) {
        if (d->hold_health && !d->stopping)
            d->health_held++;
        while (d->hold_health && !d->stopping)
            pthread_cond_wait(&d->changed, &d->lock);
        d->health++;
        ok = ad_json(c, 200, json_object());
    } else if (strcmp(method, "GET") == 0 && strcmp(url, "/gameserver") == 0) {
        ok = ad_json(c, 200, ad_gameserver(d));
    } else if (strcmp(method, "PATCH") == 0 && strncmp(url, "/v1beta1/counters/", 18) == 0) {
        if (strcmp(url + 18, "worlds") != 0) {
            ok = ad_error(c, 404, "counter not found");
        } else {
            long long n = ad_int(json_object_get(in, "count")), cap = ad_int(json_object_get(in, "capacity"));
            long long new_cap = cap >= 0 ? cap : d->counter_capacity;
            long long new_n = n >= 0 ? n : d->counter_count;
            if (new_n > new_cap || !in) {
                ok = ad_error(c, 400, "count out of range");
            } else {
                d->counter_count = new_n;
                d->counter_capacity = new_cap;
                ad_change(d);
                ok = ad_json(c, 200, json_pack("{s:s,s:I,s:I}", "name", "worlds", "count", (json_int_t)new_n,
                                               "capacity", (json_int_t)new_cap));
            }
        }
    } else if (post && strncmp(url, "/v1beta1/lists/players:", 23) == 0) {
        const char *v = json_string_value(json_object_get(in, "value"));
        size_t at = (size_t)-1, i;
        json_t *e;
        json_array_foreach(d->list, i, e) if (v && strcmp(json_string_value(e), v) == 0) at = i;
        if (!v) {
            ok = ad_error(c, 400, "no value");
        } else if (strcmp(url + 23, "addValue") == 0) {
            if (at != (size_t)-1) {
                ok = ad_error(c, 409, "already exists");
            } else if ((long long)json_array_size(d->list) >= d->list_capacity) {
                ok = ad_error(c, 400, "list at capacity");
            } else {
                json_array_append_new(d->list, json_string(v));
                ad_change(d);
                ok = ad_json(c, 200, json_object());
            }
        } else if (strcmp(url + 23, "removeValue") == 0) {
            if (at == (size_t)-1) {
                ok = ad_error(c, 404, "not found");
            } else {
                json_array_remove(d->list, at);
                ad_change(d);
                ok = ad_json(c, 200, json_object());
            }
        } else {
            ok = ad_error(c, 404, "no such method");
        }
    } else {
        ok = ad_error(c, 404, "not found");
    }
    pthread_mutex_unlock(&d->lock);
    json_decref(in);
    return ok;
}

static enum MHD_Result ad_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)version;
    ad_double *d = cls;
    if (strcmp(method, "GET") == 0 && strcmp(url, "/watch/gameserver") == 0) {
        pthread_mutex_lock(&d->lock);
        if (d->call_count == d->call_cap) {
            d->call_cap = d->call_cap ? d->call_cap * 2 : 64;
            d->calls = realloc(d->calls, d->call_cap * sizeof *d->calls);
        }
        ad_call *rec = &d->calls[d->call_count++];
        memset(rec, 0, sizeof *rec);
        snprintf(rec->method, sizeof rec->method, "GET");
        snprintf(rec->path, sizeof rec->path, "%s", url);
        pthread_mutex_unlock(&d->lock);
        ad_watch *w = calloc(1, sizeof *w);
        w->d = d;
        clock_gettime(CLOCK_REALTIME, &w->began);
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, ad_watch_read, w,
                                                                   ad_watch_free);
        MHD_add_response_header(r, "Content-Type", "application/json");
        enum MHD_Result ok = MHD_queue_response(c, 200, r);
        MHD_destroy_response(r);
        return ok;
    }
    ad_body *b = *con_cls;
    if (!b) {
        *con_cls = calloc(1, sizeof *b);
        return MHD_YES;
    }
    if (*size) {
        b->bytes = realloc(b->bytes, b->len + *size + 1);
        memcpy(b->bytes + b->len, data, *size);
        b->len += *size;
        *size = 0;
        return MHD_YES;
    }
    return ad_handle(d, c, method, url, b->bytes, b->len);
}

static void ad_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls, (void)c, (void)t;
    ad_body *b = *con_cls;
    if (b) {
        free(b->bytes);
        free(b);
        *con_cls = NULL;
    }
}

/* --- the test's side ------------------------------------------------------------- */

/* A port of 127.0.0.1 held, not listened on: connections are refused. */
static inline int ad_reserve(ad_double *d)
{
    memset(d, 0, sizeof *d);
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->changed, NULL);
    snprintf(d->state, sizeof d->state, "Scheduled");
    d->annotations = json_object();
    d->labels = json_object();
    d->list = json_array();
    d->counter_capacity = 10;
    d->list_capacity = 100;
    d->version = 1;
    d->fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(d->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (d->fd < 0 || bind(d->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(d->fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    d->port = ntohs(a.sin_port);
    return 0;
}

static inline int ad_start(ad_double *d)
{
    if (listen(d->fd, 64) != 0)
        return -1;
    d->daemon = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                 ad_request, d, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)d->fd,
                                 MHD_OPTION_NOTIFY_COMPLETED, ad_done, d, MHD_OPTION_END);
    return d->daemon ? 0 : -1;
}

static inline void ad_stop(ad_double *d)
{
    pthread_mutex_lock(&d->lock);
    d->stopping = 1;
    pthread_cond_broadcast(&d->changed);
    pthread_mutex_unlock(&d->lock);
    if (d->daemon)
        MHD_stop_daemon(d->daemon); /* closes the socket */
    else if (d->fd >= 0)
        close(d->fd);
    json_decref(d->annotations);
    json_decref(d->labels);
    json_decref(d->list);
    free(d->calls);
    d->daemon = NULL;
    d->fd = -1;
}

/* An allocation from outside (a GameServerAllocation): Ready -> Allocated
 * with these annotations (map and world; NULL leaves one out), a new
 * agones.dev/last-allocated, and the Counter "worlds" incremented as the
 * allocation's counters action asks (docker/k8s/agones-allocation.yaml).
 * 0, or -1 when the GameServer is neither Ready nor Allocated (packing:
 * an Allocated one is allocated again) or its Counter is full. */
static inline int ad_allocate_stamped(ad_double *d, const char *map, const char *world, const char *stamp);

static inline int ad_allocate(ad_double *d, const char *map, const char *world)
{
    return ad_allocate_stamped(d, map, world, NULL);
}

/* The same with this agones.dev/last-allocated (NULL: a new one made up). */
static inline int ad_allocate_stamped(ad_double *d, const char *map, const char *world, const char *stamp)
{
    pthread_mutex_lock(&d->lock);
    int ok = (strcmp(d->state, "Ready") == 0 || strcmp(d->state, "Allocated") == 0) &&
             d->counter_count < d->counter_capacity;
    if (ok) {
        d->counter_count++;
        char made[64];
        snprintf(made, sizeof made, "2026-11-29T10:00:%02u.%06uZ", d->allocations % 60, d->allocations);
        d->allocations++;
        json_object_set_new(d->annotations, "agones.dev/last-allocated", json_string(stamp ? stamp : made));
        if (map)
            json_object_set_new(d->annotations, "sweep.dev/map", json_string(map));
        else
            json_object_del(d->annotations, "sweep.dev/map");
        if (world)
            json_object_set_new(d->annotations, "sweep.dev/world", json_string(world));
        else
            json_object_del(d->annotations, "sweep.dev/world");
        snprintf(d->state, sizeof d->state, "Allocated");
        ad_change(d);
    }
    pthread_mutex_unlock(&d->lock);
    return ok ? 0 : -1;
}

/* Calls so far of method and path (path NULL: any). */
static inline unsigned ad_count(ad_double *d, const char *method, const char *path)
{
    pthread_mutex_lock(&d->lock);
    unsigned n = 0;
    for (unsigned i = 0; i < d->call_count; i++)
        if (strcmp(d->calls[i].method, method) == 0 && (!path || strcmp(d->calls[i].path, path) == 0))
            n++;
    pthread_mutex_unlock(&d->lock);
    return n;
}

static inline uint64_t ad_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Waits (up to timeout_ms) until cond(d, arg) holds, checked under the
 * lock at every change and every 50 ms. 1 if it held. */
static inline int ad_wait(ad_double *d, int (*cond)(ad_double *, const void *), const void *arg, int timeout_ms)
{
    uint64_t end = ad_now_ms() + (uint64_t)timeout_ms;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        int held = cond(d, arg);
        pthread_mutex_unlock(&d->lock);
        if (held)
            return 1;
        if (ad_now_ms() >= end)
            return 0;
        usleep(20 * 1000);
    }
}

/* Conditions for ad_wait (under the lock). */
static inline int ad_state_is(ad_double *d, const void *state)
{
    return strcmp(d->state, state) == 0;
}
static inline int ad_counter_is(ad_double *d, const void *n)
{
    return d->counter_count == *(const long long *)n;
}
static inline int ad_players_are(ad_double *d, const void *n)
{
    return (long long)json_array_size(d->list) == *(const long long *)n;
}
static inline int ad_health_past(ad_double *d, const void *n)
{
    return d->health > *(const unsigned *)n;
}
static inline int ad_called(ad_double *d, const void *path)
{
    for (unsigned i = 0; i < d->call_count; i++)
        if (strcmp(d->calls[i].path, path) == 0)
            return 1;
    return 0;
}

#endif
