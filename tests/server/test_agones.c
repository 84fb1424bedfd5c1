/*
 * test_agones.c - sweepd speaking the Agones SDK (server/agones.c) to a
 * test double of the SDK server's REST gateway (agones_double.h), which
 * keeps the GameServer's state machine and records every call.
 *
 * What is checked, each against a real sweepd:
 *   - Ready goes out once, after a GetGameServer, and only when the
 *     listeners answer: the double, holding its answer to POST /ready,
 *     says Hello and Ping to sweepd and gets the Pong; Health pings follow;
 *     the Counter "worlds" holds the open worlds with --max-worlds as its
 *     capacity;
 *   - an allocation whose annotations name a map opens a world on it
 *     (joined by that name), a second one packs another world beside it,
 *     an allocation seen again opens nothing, an unknown map is refused
 *     and logged; the Counter follows; closing the last world calls
 *     Shutdown, and the GameServer is Shutdown;
 *   - the List "players" follows the players' sessions (identity or
 *     session-N), never a session of the server role;
 *   - an SDK server that starts late, then fails Ready twice, is retried
 *     and logged while sweepd serves all along;
 *   - a stalled event loop stops the Health pings (the loop blocked
 *     writing its log into a full pipe, the fixture's fx_fifo_*), and
 *     they resume once it runs again;
 *   - with --agones-shutdown-when-empty off, no Shutdown;
 *   - a fleet's sweepd (no map at start) whose one match opens and closes
 *     while its calls thread is busy still calls Shutdown; a watch stream
 *     that ends at once is asked again after a growing pause; an
 *     allocation with a long stamp, seen again, opens one world.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/server/agones_double.h"
#include "tests/sweepd_fixture.h"

static fx_rx *rx;
static sweep_wire_world_info worlds_buf[64];
static char maps_dir[1100];

static int group_setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    if (!rx)
        return -1;
    rx->dec.worlds = worlds_buf;
    rx->dec.worlds_cap = 64;
    fx_build("maps", maps_dir, sizeof maps_dir);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    free(rx);
    return 0;
}

/* sweepd on the arena (world 1) speaking to the double d, with the maps
 * directory of the build, the fixture's command token, Health every
 * 250 ms and the extra arguments (NULL-terminated, may be NULL). */
static int start_map(fx_server *srv, ad_double *d, const char *map, const char *const *more, const char *log);

static int start(fx_server *srv, ad_double *d, const char *const *more, const char *log)
{
    return start_map(srv, d, NULL, more, log);
}

/* The same on map (NULL: the arena; "": none, the fleet's way: worlds come
 * with allocations). */
static int start_map(fx_server *srv, ad_double *d, const char *map, const char *const *more, const char *log)
{
    char port[16];
    snprintf(port, sizeof port, "%d", d->port);
    setenv("AGONES_SDK_HTTP_PORT", port, 1);
    const char *extra[40] = {"--maps-dir", maps_dir, FX_SERVER_ARGS, "--agones-health-ms", "250", NULL};
    int n = 0;
    while (extra[n])
        n++;
    for (int i = 0; more && more[i] && n < 38; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    int rc = fx_start_map_log(srv, map, extra, log);
    unsetenv("AGONES_SDK_HTTP_PORT");
    return rc;
}

/* A TCP session on `world` (NULL: the first) with token (NULL: a guest):
 * its socket and session id, or -1 without a Welcome. */
static int session(const fx_server *srv, const char *world, const char *token, uint64_t *id)
{
    int fd = fx_tcp_connect(srv->port);
    if (fd < 0)
        return -1;
    sweep_message m = fx_hello_msg("agones");
    m.as.hello.world = sweep_str_of(world);
    m.as.hello.auth_token = sweep_str_of(token);
    if (fx_send(fd, &m) != 0 || fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_WELCOME) {
        close(fd);
        return -1;
    }
    if (id)
        *id = m.as.welcome.session_id;
    return fd;
}

static void close_world(int fd, uint32_t seq, uint32_t world)
{
    sweep_message m = fx_msg(SWEEP_MSG_CLOSE_WORLD, seq);
    m.as.close_world.world = world;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.as.world_closed.world, world);
}

/* The ids of the open worlds named name, from the server role's Stats. */
static uint32_t world_id(int fd, uint32_t seq, const char *name)
{
    sweep_message q = fx_msg(SWEEP_MSG_GET_STATS, seq), m;
    assert_int_equal(fx_send(fd, &q), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_STATS);
    for (uint32_t i = 0; i < m.as.stats.worlds_count; i++) {
        const sweep_wire_world_info *w = &m.as.stats.worlds[i];
        if (w->name.len == strlen(name) && memcmp(w->name.ptr, name, w->name.len) == 0)
            return w->world;
    }
    return 0;
}

/* Waits for the world named name to open: its id (0 if it does not).
 * Asks with sequences from *seq on. */
static uint32_t wait_world(int fd, uint32_t *seq, const char *name)
{
    uint64_t end = fx_now_ms() + FX_TIMEOUT_MS;
    uint32_t id;
    while (!(id = world_id(fd, (*seq)++, name)) && fx_now_ms() < end)
        usleep(20 * 1000);
    return id;
}

/* How many lines of the server's log hold text. */
static int log_count(const fx_server *srv, const char *text)
{
    FILE *f = fopen(srv->log, "r");
    if (!f)
        return 0;
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, text) != NULL;
    fclose(f);
    return n;
}

/* Does the server's log hold text? */
static int log_has(const fx_server *srv, const char *text)
{
    return log_count(srv, text) > 0;
}

static int list_has(ad_double *d, const char *value)
{
    pthread_mutex_lock(&d->lock);
    int found = 0;
    size_t i;
    json_t *e;
    json_array_foreach(d->list, i, e) found |= strcmp(json_string_value(e), value) == 0;
    pthread_mutex_unlock(&d->lock);
    return found;
}

/* --- Ready after the listeners answer ------------------------------------------ */

static int listener_port;      /* where sweepd listens, chosen before it starts */
static int listener_answered;  /* the hook's finding: 1 Pong, -1 no answer */

/* In POST /ready, before the double answers: sweepd must accept a
 * connection and answer a Hello and a Ping already. A listener not up yet
 * refuses the connection at once. */
static void ready_hook(void *ctx)
{
    (void)ctx;
    fx_rx *own = fx_rx_new();
    int fd = fx_tcp_connect(listener_port);
    int ok = 0;
    if (fd >= 0 && fx_hello(fd, own) != 0) {
        sweep_message m = fx_msg(SWEEP_MSG_PING, 2);
        ok = fx_send(fd, &m) == 0 && fx_recv(fd, own, &m) == 1 && m.kind == SWEEP_MSG_PONG;
    }
    if (fd >= 0)
        close(fd);
    free(own);
    __atomic_store_n(&listener_answered, ok ? 1 : -1, __ATOMIC_RELEASE);
}

static void test_ready_after_listeners(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    d.on_ready = ready_hook;
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    listener_port = fx_free_port(); /* the hook must not wait for the ready line to learn it */
    assert_true(listener_port > 0);
    listener_answered = 0;
    char listen[32];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", listener_port);
    const char *more[] = {"--listen", listen, NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    assert_int_equal(srv.port, listener_port);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));
    assert_int_equal(__atomic_load_n(&listener_answered, __ATOMIC_ACQUIRE), 1);
    unsigned some = 3;
    assert_true(ad_wait(&d, ad_health_past, &some, FX_TIMEOUT_MS));
    long long one = 1;
    assert_true(ad_wait(&d, ad_counter_is, &one, FX_TIMEOUT_MS));
    pthread_mutex_lock(&d.lock);
    /* GetGameServer first (an Allocated one is not made Ready again), then
     * Ready once. */
    unsigned first_get = d.call_count, first_ready = d.call_count, readies = 0;
    for (unsigned i = 0; i < d.call_count; i++) {
        if (!strcmp(d.calls[i].method, "GET") && !strcmp(d.calls[i].path, "/gameserver") && first_get == d.call_count)
            first_get = i;
        if (!strcmp(d.calls[i].path, "/ready")) {
            readies++;
            if (first_ready == d.call_count)
                first_ready = i;
        }
    }
    assert_int_equal(readies, 1);
    assert_true(first_get < first_ready);
    assert_int_equal(d.counter_capacity, 64); /* --max-worlds' default */
    pthread_mutex_unlock(&d.lock);
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* --- allocations, the Counter and Shutdown ----------------------------------------- */

static void test_allocation_opens_world_and_shutdown(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    assert_int_equal(start(&srv, &d, NULL, NULL), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));
    long long n = 1;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    int game = session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(game >= 0);

    /* A match: its world, named as the allocation says, on the map it names
     * (the allocation itself counted it already). */
    uint32_t seq = 10;
    assert_int_equal(ad_allocate(&d, "arena", "match-1"), 0);
    uint32_t m1 = wait_world(game, &seq, "match-1");
    assert_true(m1 > 1);
    int player = session(&srv, "match-1", NULL, NULL);
    assert_true(player >= 0);
    close(player);
    n = 2;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));

    /* Packing: a second allocation of the same GameServer, another world. */
    assert_int_equal(ad_allocate(&d, "arena", "match-2"), 0);
    uint32_t m2 = wait_world(game, &seq, "match-2");
    assert_true(m2 > m1);
    n = 3;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));

    /* Its match ends; the GameServer changes again (the Counter), the same
     * allocation comes again on the watch stream, and opens nothing. */
    close_world(game, seq++, m2);
    n = 2;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    usleep(600 * 1000);
    assert_int_equal(world_id(game, seq++, "match-2"), 0);
    pthread_mutex_lock(&d.lock);
    assert_int_equal(d.counter_count, 2);
    pthread_mutex_unlock(&d.lock);

    /* A map the server does not have: refused, logged, nothing opened, and
     * the Counter the allocation incremented is set back. */
    assert_int_equal(ad_allocate(&d, "no-such-map", "match-3"), 0);
    uint64_t end = fx_now_ms() + FX_TIMEOUT_MS;
    while (!log_has(&srv, "agones_world_refused") && fx_now_ms() < end)
        usleep(20 * 1000);
    assert_true(log_has(&srv, "agones_world_refused"));
    assert_int_equal(world_id(game, seq++, "match-3"), 0);
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    assert_int_equal(ad_count(&d, "POST", "/shutdown"), 0);

    /* The last worlds close: Shutdown, once. */
    close_world(game, seq++, m1);
    n = 1;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    assert_int_equal(ad_count(&d, "POST", "/shutdown"), 0);
    close_world(game, seq++, 1); /* the --map world; the game server's session ends with it */
    assert_true(ad_wait(&d, ad_state_is, "Shutdown", FX_TIMEOUT_MS));
    n = 0;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    usleep(300 * 1000);
    assert_int_equal(ad_count(&d, "POST", "/shutdown"), 1);
    close(game);
    /* Agones then sends SIGTERM: sweepd drains and ends as ever. */
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

static void test_no_shutdown_when_off(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    const char *more[] = {"--agones-shutdown-when-empty", "off", NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    long long n = 1;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    int game = session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(game >= 0);
    close_world(game, 2, 1);
    n = 0;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    usleep(600 * 1000);
    assert_int_equal(ad_count(&d, "POST", "/shutdown"), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", 0));
    close(game);
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* --- the List of players ---------------------------------------------------------- */

static void test_players_list(void **state)
{
    (void)state;
    char secret[64], token[256];
    assert_int_equal(fx_secret(secret, sizeof secret), 0);
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    const char *more[] = {"--auth-secret-file", secret, "--allow-guests", "on", NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));

    uint64_t guest_id = 0;
    int guest = session(&srv, NULL, NULL, &guest_id);
    assert_true(guest >= 0);
    int alice = session(&srv, NULL, fx_token(SWEEP_WIRE_ROLE_PLAYER, "alice", 600, token, sizeof token), NULL);
    assert_true(alice >= 0);
    int game = session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(game >= 0);
    long long n = 2;
    assert_true(ad_wait(&d, ad_players_are, &n, FX_TIMEOUT_MS));
    char value[64];
    snprintf(value, sizeof value, "session-%llu", (unsigned long long)guest_id);
    assert_true(list_has(&d, value));
    assert_true(list_has(&d, "alice"));

    /* alice twice: one entry, gone when both sessions are. */
    int alice2 = session(&srv, NULL, token, NULL);
    assert_true(alice2 >= 0);
    close(alice);
    close(guest);
    n = 1;
    assert_true(ad_wait(&d, ad_players_are, &n, FX_TIMEOUT_MS));
    assert_true(list_has(&d, "alice"));
    close(alice2);
    n = 0;
    assert_true(ad_wait(&d, ad_players_are, &n, FX_TIMEOUT_MS));
    /* The game server was never a player. */
    assert_int_equal(ad_count(&d, "POST", "/v1beta1/lists/players:addValue"), 2);
    close(game);
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
    unlink(secret);
}

/* --- an SDK server late, then failing --------------------------------------------- */

static void test_sdk_late_and_failing(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0); /* the port refuses connections */
    fx_server srv;
    const char *more[] = {"--log-level", "info", NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    uint64_t end = fx_now_ms() + FX_TIMEOUT_MS;
    while (!log_has(&srv, "agones_call_failed") && fx_now_ms() < end)
        usleep(20 * 1000);
    assert_true(log_has(&srv, "agones_call_failed"));
    /* sweepd serves meanwhile. */
    int player = session(&srv, NULL, NULL, NULL);
    assert_true(player >= 0);
    sweep_message m = fx_msg(SWEEP_MSG_PING, 2);
    assert_int_equal(fx_send(player, &m), 0);
    assert_int_equal(fx_recv(player, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_PONG);
    close(player);

    d.fail_ready = 2;
    assert_int_equal(ad_start(&d), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));
    assert_int_equal(ad_count(&d, "POST", "/ready"), 3);
    /* Each call recovers on its own (the Counter's may come first). */
    end = fx_now_ms() + FX_TIMEOUT_MS;
    while (!log_has(&srv, "event=agones_call_recovered call=Ready") && fx_now_ms() < end)
        usleep(20 * 1000);
    assert_true(log_has(&srv, "event=agones_call_recovered call=Ready"));
    assert_true(fx_alive(&srv));
    unsigned some = 1;
    assert_true(ad_wait(&d, ad_health_past, &some, FX_TIMEOUT_MS));
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* --- a match between two looks, a stream that ends at once, a long stamp ----------- */

/* A fleet's sweepd (no map at start) whose one match opens and closes
 * while its calls thread is held in a Health call: it had a world, so the
 * last one closing still calls Shutdown (it once looked only at how many
 * were open whenever it came round). */
static void test_a_match_between_two_looks_shuts_down(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    assert_int_equal(start_map(&srv, &d, "", NULL, NULL), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));
    pthread_mutex_lock(&d.lock);
    d.hold_health = 1;
    pthread_mutex_unlock(&d.lock);
    uint64_t end = fx_now_ms() + FX_TIMEOUT_MS;
    unsigned held = 0;
    while (!held && fx_now_ms() < end) {
        usleep(5 * 1000);
        pthread_mutex_lock(&d.lock);
        held = d.health_held;
        pthread_mutex_unlock(&d.lock);
    }
    assert_true(held > 0);
    assert_int_equal(ad_allocate(&d, "arena", "quick"), 0);
    int game = -1;
    while ((game = session(&srv, "quick", FX_TOKEN, NULL)) < 0 && fx_now_ms() < end)
        usleep(5 * 1000);
    assert_true(game >= 0);
    uint32_t seq = 10;
    uint32_t id = world_id(game, seq++, "quick");
    assert_true(id > 0);
    close_world(game, seq++, id);
    close(game);
    pthread_mutex_lock(&d.lock);
    d.hold_health = 0;
    pthread_cond_broadcast(&d.changed);
    pthread_mutex_unlock(&d.lock);
    assert_true(ad_wait(&d, ad_state_is, "Shutdown", 10000));
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* A watch stream that ends as soon as it has sent the GameServer is a
 * failure like any other: asked again after a growing pause, its warning
 * said once in twenty, not ten times a second for as long as it lasts. */
static void test_a_watch_that_ends_at_once_backs_off(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    d.watch_once = 1;
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    const char *more[] = {"--log-level", "info", NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));
    unsigned before = ad_count(&d, "GET", "/watch/gameserver");
    usleep(3000 * 1000);
    unsigned streams = ad_count(&d, "GET", "/watch/gameserver") - before;
    int warned = log_count(&srv, "call=WatchGameServer");
    /* Pauses of 0.1, 0.2, 0.4, 0.8 and 1.6 s: five or six streams in 3 s
     * (thirty when each began 0.1 s after the last ended). */
    if (streams > 8 || warned > 2)
        fail_msg("%u watch streams in 3 s, %d warnings", streams, warned);
    assert_true(fx_alive(&srv));
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* A watch stream that ends 1.6 s after it began is still a failure (only
 * one of 10 s counts as a stream's ordinary end): one warning in 4.5 s.
 * The bound once wrapped round 32 bits to 1.41 s, and every such stream
 * was warned of anew. */
static void test_a_watch_of_under_ten_seconds_backs_off(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    d.watch_once = 1;
    d.watch_hold_ms = 1600;
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    const char *more[] = {"--log-level", "info", NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    usleep(4500 * 1000);
    unsigned streams = ad_count(&d, "GET", "/watch/gameserver");
    int warned = log_count(&srv, "call=WatchGameServer");
    if (streams < 2 || warned != 1)
        fail_msg("%u watch streams in 4.5 s, %d warnings", streams, warned);
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* An allocation seen again is the same allocation however long its
 * agones.dev/last-allocated: it opens one world (a stamp of 200 bytes was
 * cut to 127 and never equal to itself again, each event a new world). */
static void test_a_long_stamp_opens_one_world(void **state)
{
    (void)state;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    const char *more[] = {"--log-level", "info", NULL};
    assert_int_equal(start(&srv, &d, more, NULL), 0);
    assert_true(ad_wait(&d, ad_state_is, "Ready", FX_TIMEOUT_MS));
    char stamp[201];
    memset(stamp, 'x', 200);
    stamp[200] = 0;
    assert_int_equal(ad_allocate_stamped(&d, "arena", NULL, stamp), 0);
    uint64_t end = fx_now_ms() + FX_TIMEOUT_MS;
    while (log_count(&srv, "event=world_opened") < 1 && fx_now_ms() < end)
        usleep(20 * 1000);
    /* The Counter sweepd sets changes the GameServer: the watch brings the
     * same allocation again, more than once. */
    long long n = 2;
    assert_true(ad_wait(&d, ad_counter_is, &n, FX_TIMEOUT_MS));
    pthread_mutex_lock(&d.lock);
    ad_change(&d);
    pthread_mutex_unlock(&d.lock);
    usleep(800 * 1000);
    assert_int_equal(log_count(&srv, "event=world_opened"), 1);
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
    ad_stop(&d);
}

/* --- Health stops while a loop is stalled ------------------------------------------ */

static char logged[1 << 16];
static size_t logged_len;

/* Reads what the server logged, without waiting, keeping the last 64 KiB
 * (fx_fifo_drain's, but the test reads what the stall made it say). */
static void drain(int lfd)
{
    char buf[4096];
    ssize_t r;
    while ((r = read(lfd, buf, sizeof buf)) > 0) {
        if (logged_len + (size_t)r >= sizeof logged) {
            size_t keep = sizeof logged / 2;
            memmove(logged, logged + logged_len - keep, keep);
            logged_len = keep;
        }
        memcpy(logged + logged_len, buf, (size_t)r);
        logged_len += (size_t)r;
        logged[logged_len] = 0;
    }
}

static void test_health_stops_when_stalled(void **state)
{
    (void)state;
    char dir[64], fifo[128];
    snprintf(dir, sizeof dir, "/tmp/sweep-agones-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/sweepd.log", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int lfd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(lfd >= 0);
    logged_len = 0;
    ad_double d;
    assert_int_equal(ad_reserve(&d), 0);
    assert_int_equal(ad_start(&d), 0);
    fx_server srv;
    const char *more[] = {"--allow-guests", "on", "--log-level", "debug", NULL};
    assert_int_equal(start(&srv, &d, more, fifo), 0);
    int cap = fcntl(lfd, F_SETPIPE_SZ, 4096);
    assert_true(cap >= 4096);
    unsigned h = 0;
    uint64_t end = fx_now_ms() + FX_TIMEOUT_MS;
    while (fx_now_ms() < end && !ad_wait(&d, ad_health_past, &(unsigned){3}, 0)) {
        drain(lfd);
        usleep(10 * 1000);
    }
    assert_true(ad_wait(&d, ad_health_past, &(unsigned){3}, 0));

    drain(lfd);
    assert_null(strstr(logged, "agones_health_withheld")); /* a running loop: no stall seen */

    /* The stall: requests the loop logs until the pipe is full and its
     * write blocks. A session causes 10 lines a second at most, so they
     * come from several. */
    enum { FILLERS = 12 };
    int filler[FILLERS];
    for (int k = 0; k < FILLERS; k++) {
        filler[k] = fx_tcp_connect(srv.port);
        assert_true(filler[k] >= 0);
        sweep_message hello = fx_hello_msg("stall");
        assert_int_equal(fx_send(filler[k], &hello), 0);
    }
    for (int k = 0; k < FILLERS; k++)
        for (uint32_t i = 0; i < 20; i++) {
            sweep_message bad = fx_move_msg(4242, 100 + i, sweep_v3(0, -1, 0), 1.0 / 60.0);
            assert_int_equal(fx_send(filler[k], &bad), 0);
        }
    assert_int_equal(fx_fifo_wait_full(lfd, cap), 0);
    /* One ping may have been on its way; then none, for 6 periods. */
    pthread_mutex_lock(&d.lock);
    h = d.health;
    pthread_mutex_unlock(&d.lock);
    usleep(1500 * 1000);
    pthread_mutex_lock(&d.lock);
    unsigned during = d.health - h;
    pthread_mutex_unlock(&d.lock);
    assert_true(during <= 1);

    /* The loop runs again: so do the pings, and the log says why they stopped. */
    end = fx_now_ms() + FX_TIMEOUT_MS;
    unsigned after = h + during + 2;
    while (fx_now_ms() < end && !ad_wait(&d, ad_health_past, &after, 0)) {
        drain(lfd);
        usleep(10 * 1000);
    }
    assert_true(ad_wait(&d, ad_health_past, &after, 0));
    end = fx_now_ms() + FX_TIMEOUT_MS;
    while (fx_now_ms() < end && !strstr(logged, "event=agones_health_resumed")) {
        drain(lfd);
        usleep(10 * 1000);
    }
    assert_non_null(strstr(logged, "event=agones_health_withheld thread=0"));
    assert_non_null(strstr(logged, "event=agones_health_resumed"));
    for (int k = 0; k < FILLERS; k++)
        close(filler[k]);
    /* sweepd logs while it stops: keep reading until it is gone. */
    kill(srv.pid, SIGTERM);
    while (fx_alive(&srv)) {
        drain(lfd);
        usleep(10 * 1000);
    }
    assert_int_equal(fx_wait(&srv), 0);
    fx_cleanup(&srv);
    close(lfd);
    unlink(fifo);
    rmdir(dir);
    ad_stop(&d);
}

/* --- a port that is not one ------------------------------------------------------ */

static void test_bad_sdk_port_is_refused(void **state)
{
    (void)state;
    char bin[1100], arena[1100], cmd[3000];
    fx_build("bin/sweepd", bin, sizeof bin);
    fx_build("maps/arena.db", arena, sizeof arena);
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "AGONES_SDK_HTTP_PORT=70000 '%s' --map '%s' --listen 127.0.0.1:0", bin, arena);
    assert_int_equal(fx_run(cmd, &out), 1);
    assert_non_null(strstr(out, "AGONES_SDK_HTTP_PORT '70000' is not a port"));
    free(out);
    /* Off, the variable is not read at all: sweepd serves. */
    setenv("AGONES_SDK_HTTP_PORT", "70000", 1);
    fx_server srv;
    const char *off[] = {"--agones", "off", NULL};
    int rc = fx_start(&srv, off);
    unsetenv("AGONES_SDK_HTTP_PORT");
    assert_int_equal(rc, 0);
    assert_int_equal(fx_stop(&srv), 0);
    fx_cleanup(&srv);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ready_after_listeners),
        cmocka_unit_test(test_allocation_opens_world_and_shutdown),
        cmocka_unit_test(test_no_shutdown_when_off),
        cmocka_unit_test(test_players_list),
        cmocka_unit_test(test_sdk_late_and_failing),
        cmocka_unit_test(test_a_match_between_two_looks_shuts_down),
        cmocka_unit_test(test_a_watch_that_ends_at_once_backs_off),
        cmocka_unit_test(test_a_watch_of_under_ten_seconds_backs_off),
        cmocka_unit_test(test_a_long_stamp_opens_one_world),
        cmocka_unit_test(test_health_stops_when_stalled),
        cmocka_unit_test(test_bad_sdk_port_is_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
