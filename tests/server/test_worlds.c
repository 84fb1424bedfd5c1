/*
 * test_worlds.c - worlds a game server opens and closes at run time
 * (sweepd --maps-dir, OpenWorld and CloseWorld), against a real sweepd.
 *
 * The maps directory holds a generated level (gen.db, from sweep-mapgen),
 * a copy of the arena (arena.db), a link to the arena (not a regular
 * file: never a candidate) and a text file. What is checked: a world
 * opened over TCP and over UDP, by file stem and by map name, with a name
 * or with the server's (the map's name, then map#id); a resend answered
 * with the same world; a Hello naming it gets its map's hash; its
 * sessions, TCP and UDP, are told WorldClosed (sequence 0) when it closes
 * and end (the connection closes; the UDP address is forgotten); the id
 * is not reused and the name is free again, on another map. Every
 * refusal: a path in the map's name, a map the directory does not have,
 * a name open on another map, --max-worlds and --max-world-triangles,
 * an id that is not open, a player session (the words of the role check
 * of every server-role request), a server without --maps-dir. The world
 * list of GetStats over TCP and, cut to one datagram, over UDP; the
 * metrics' gauge and counters; with --threads 2 a world goes to the
 * thread with the fewest entities, then the fewest worlds; libsweep's
 * calls for both requests and the event of a world closed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "client-sdk/client.h"
#include "tests/sweepd_fixture.h"

static char dir[] = "/tmp/sweep-test-worlds-XXXXXX";
static char gen_db[300], arena_db[300], link_db[300], text_file[300];
static char gen_name[96]; /* the generated map's name */
static fx_rx *rx;
static sweep_wire_world_info worlds_buf[256];

static int copy_file(const char *from, const char *to)
{
    char cmd[2600];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    return fx_run(cmd, NULL);
}

static int group_setup(void **state)
{
    (void)state;
    rx = fx_rx_new();
    if (!rx || !mkdtemp(dir))
        return -1;
    rx->dec.worlds = worlds_buf;
    rx->dec.worlds_cap = 256;
    char gen[1100], arena[1100], cmd[2600];
    fx_build("bin/sweep-mapgen", gen, sizeof gen);
    fx_build("maps/arena.db", arena, sizeof arena);
    snprintf(gen_db, sizeof gen_db, "%s/gen.db", dir);
    snprintf(arena_db, sizeof arena_db, "%s/arena.db", dir);
    snprintf(link_db, sizeof link_db, "%s/linked.db", dir);
    snprintf(text_file, sizeof text_file, "%s/notes.txt", dir);
    snprintf(cmd, sizeof cmd, "'%s' --tris 600 --seed 7 --quiet -o '%s'", gen, gen_db);
    if (fx_run(cmd, NULL) != 0 || copy_file(arena, arena_db) != 0 || symlink(arena, link_db) != 0)
        return -1;
    FILE *f = fopen(text_file, "w");
    if (!f)
        return -1;
    fputs("not a map\n", f);
    fclose(f);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    unlink(gen_db);
    unlink(arena_db);
    unlink(link_db);
    unlink(text_file);
    rmdir(dir);
    free(rx);
    return 0;
}

/* sweepd on the arena (world 1) with the maps directory, the fixture's
 * command token and the extra arguments (NULL-terminated, may be NULL). */
static void start(fx_server *srv, const char *const *more)
{
    const char *extra[40] = {"--maps-dir", dir, FX_SERVER_ARGS};
    int n = 0;
    while (extra[n])
        n++;
    for (int i = 0; more && more[i] && n < 38; i++)
        extra[n++] = more[i];
    extra[n] = NULL;
    assert_int_equal(fx_start(srv, extra), 0);
}

static sweep_message hello_msg(const char *world, const char *token)
{
    sweep_message m = fx_hello_msg("worlds");
    m.as.hello.world = sweep_str_of(world);
    m.as.hello.auth_token = sweep_str_of(token);
    return m;
}

/* A TCP session on world with token (NULL: a guest); the Welcome's map
 * hash into hash (may be NULL). The socket, or -1 without a Welcome. */
static int tcp_session(const fx_server *srv, const char *world, const char *token, uint8_t hash[32])
{
    int fd = fx_tcp_connect(srv->port);
    if (fd < 0)
        return -1;
    sweep_message m = hello_msg(world, token);
    if (fx_send(fd, &m) != 0 || fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_WELCOME) {
        close(fd);
        return -1;
    }
    if (hash)
        memcpy(hash, m.as.welcome.map_hash.ptr, 32);
    return fd;
}

/* The UDP handshake on world with token; Welcome.udp_port into *port
 * (may be NULL). The socket (on the shared port), or -1. */
static int udp_session(const fx_server *srv, const char *world, const char *token, uint16_t *port)
{
    int fd = fx_udp_socket(srv->port);
    sweep_message m = hello_msg(world, token), r;
    if (fd < 0 || fx_udp_handshake_hello(fd, rx, &m, &r) == 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (port)
        *port = r.as.welcome.udp_port;
    return fd;
}

/* A Spawn at the map's spawn point `point` (1-based) over TCP: the
 * entity, or 0. */
static uint32_t spawn_at(int fd, uint32_t seq, uint32_t point)
{
    sweep_message m = fx_msg(SWEEP_MSG_SPAWN, seq);
    m.as.spawn.spawn_point = point;
    if (fx_send(fd, &m) != 0 || fx_recv(fd, rx, &m) != 1 || m.kind != SWEEP_MSG_SPAWNED)
        return 0;
    return m.as.spawned.entity;
}

static sweep_message open_msg(uint32_t seq, const char *map, const char *name)
{
    sweep_message m = fx_msg(SWEEP_MSG_OPEN_WORLD, seq);
    m.as.open_world.map = sweep_str_of(map);
    m.as.open_world.name = sweep_str_of(name);
    return m;
}

/* OpenWorld over TCP, answered with WorldOpened: its id; its name into
 * name (may be NULL, 96 bytes) and its hash into hash (may be NULL). */
static uint32_t open_tcp(int fd, uint32_t seq, const char *map, const char *wname, char *name, uint8_t hash[32])
{
    sweep_message m = open_msg(seq, map, wname);
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    if (m.kind != SWEEP_MSG_WORLD_OPENED)
        fail_msg("OpenWorld %s: %s %.*s", map, sweep_msg_kind_name(m.kind),
                 m.kind == SWEEP_MSG_ERROR ? (int)m.as.error.message.len : 0,
                 m.kind == SWEEP_MSG_ERROR ? m.as.error.message.ptr : "");
    assert_int_equal(m.sequence, seq);
    assert_int_equal(m.as.world_opened.map_hash.len, 32);
    if (name)
        snprintf(name, 96, "%.*s", (int)m.as.world_opened.name.len, m.as.world_opened.name.ptr);
    if (hash)
        memcpy(hash, m.as.world_opened.map_hash.ptr, 32);
    return m.as.world_opened.world;
}

/* Sends m over TCP and expects an Error: its code; its message into msg
 * (may be NULL, 400 bytes). */
static int error_tcp(int fd, const sweep_message *req, char *msg)
{
    sweep_message m;
    assert_int_equal(fx_send(fd, req), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    if (m.kind != SWEEP_MSG_ERROR)
        fail_msg("%s answered with %s, not an Error", sweep_msg_kind_name(req->kind), sweep_msg_kind_name(m.kind));
    assert_int_equal(m.as.error.sequence, req->sequence);
    if (msg)
        snprintf(msg, 400, "%.*s", (int)m.as.error.message.len, m.as.error.message.ptr);
    return (int)m.as.error.code;
}

static void close_tcp(int fd, uint32_t seq, uint32_t world)
{
    sweep_message m = fx_msg(SWEEP_MSG_CLOSE_WORLD, seq);
    m.as.close_world.world = world;
    assert_int_equal(fx_send(fd, &m), 0);
    assert_int_equal(fx_recv(fd, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.sequence, seq);
    assert_int_equal(m.as.world_closed.world, world);
    assert_true(m.as.world_closed.reason.len == 10 && memcmp(m.as.world_closed.reason.ptr, "CloseWorld", 10) == 0);
}

static void stats_tcp(int fd, uint32_t seq, sweep_message *m)
{
    sweep_message q = fx_msg(SWEEP_MSG_GET_STATS, seq);
    assert_int_equal(fx_send(fd, &q), 0);
    assert_int_equal(fx_recv(fd, rx, m), 1);
    assert_int_equal(m->kind, SWEEP_MSG_STATS);
}

static const sweep_wire_world_info *listed(const sweep_message *st, uint32_t id)
{
    for (uint32_t i = 0; i < st->as.stats.worlds_count; i++)
        if (st->as.stats.worlds[i].world == id)
            return &st->as.stats.worlds[i];
    return NULL;
}

static int str_is(sweep_str s, const char *c)
{
    return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0;
}

/* --- tests ------------------------------------------------------------------------ */

/* Opened over TCP by stem and by map name, joined, played in, listed,
 * closed under its sessions; the name free again, the id never reused. */
static void test_open_join_close_tcp(void **state)
{
    (void)state;
    fx_server srv;
    start(&srv, NULL);
    int gs = tcp_session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(gs >= 0);
    char name[96];
    uint8_t hash[32], hash2[32], whash[32];
    /* The --map world is 1: the first opened at run time is 2. */
    uint32_t id = open_tcp(gs, 10, "gen", "match-1", name, hash);
    assert_int_equal(id, 2);
    assert_string_equal(name, "match-1");
    /* A resend (its answer lost): the same world, nothing opened twice. */
    assert_int_equal(open_tcp(gs, 11, "gen", "match-1", name, hash2), 2);
    assert_memory_equal(hash, hash2, 32);

    /* A player and a UDP session join it by name, on its map. */
    int p1 = tcp_session(&srv, "match-1", NULL, whash);
    assert_true(p1 >= 0);
    assert_memory_equal(whash, hash, 32);
    assert_true(spawn_at(p1, 2, 0) != 0);
    int u1 = udp_session(&srv, "match-1", NULL, NULL);
    assert_true(u1 >= 0);

    /* The server names one itself: the map's name, then map#id. */
    char n3[96], n4[96];
    uint32_t id3 = open_tcp(gs, 12, "gen", NULL, n3, NULL);
    uint32_t id4 = open_tcp(gs, 13, "gen", "", n4, NULL);
    assert_int_equal(id3, 3);
    assert_int_equal(id4, 4);
    snprintf(gen_name, sizeof gen_name, "%s", n3);
    char want[120];
    snprintf(want, sizeof want, "%s#4", n3);
    assert_string_equal(n4, want);
    /* By map name as well as by stem: the arena's copy by its name. */
    char n5[96];
    uint8_t ahash[32];
    assert_int_equal(open_tcp(gs, 14, "arena", "by-stem", n5, ahash), 5);
    assert_int_equal(open_tcp(gs, 15, gen_name, "by-name", NULL, hash2), 6);
    assert_memory_equal(hash2, hash, 32);

    /* Listed in GetStats, in id order, with their figures. */
    sweep_message st;
    stats_tcp(gs, 16, &st);
    assert_int_equal(st.as.stats.worlds_open, 6);
    assert_int_equal(st.as.stats.worlds_count, 6);
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(st.as.stats.worlds[i].world, i + 1);
    const sweep_wire_world_info *wi = listed(&st, 2);
    assert_non_null(wi);
    assert_true(str_is(wi->name, "match-1"));
    assert_true(str_is(wi->map, gen_name));
    assert_int_equal(wi->sessions, 2);
    assert_int_equal(wi->entities, 1);
    assert_true(wi->triangles >= 300);
    assert_true(str_is(listed(&st, 1)->name, "arena"));
    assert_int_equal(listed(&st, 1)->sessions, 1); /* the game server's own */

    /* Closed: answered, and each of its sessions told and ended. */
    close_tcp(gs, 17, 2);
    sweep_message m;
    assert_int_equal(fx_recv(p1, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.sequence, 0);
    assert_int_equal(m.as.world_closed.world, 2);
    unsigned seen = 0;
    assert_true(fx_wait_eof(p1, rx, &seen));
    assert_int_equal(seen, 0);
    assert_true(fx_udp_recv(u1, rx, &m, 5000) > 0);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.sequence, 0);
    assert_int_equal(m.as.world_closed.world, 2);
    /* The UDP session is gone: a Ping from its address is not answered. */
    sweep_message ping = fx_msg(SWEEP_MSG_PING, 3);
    assert_true(fx_udp_send(u1, &ping) > 0);
    assert_int_equal(fx_udp_recv(u1, rx, &m, 300), 0);
    close(u1);
    close(p1);

    /* Its id is unknown now and its name free: on another map too. */
    sweep_message c = fx_msg(SWEEP_MSG_CLOSE_WORLD, 18);
    c.as.close_world.world = 2;
    char msg[400];
    assert_int_equal(error_tcp(gs, &c, msg), SWEEP_WIRE_UNKNOWN_WORLD);
    int late = fx_tcp_connect(srv.port);
    sweep_message h = hello_msg("match-1", NULL);
    assert_int_equal(fx_send(late, &h), 0);
    assert_int_equal(fx_recv(late, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_ERROR);
    assert_int_equal(m.as.error.code, SWEEP_WIRE_UNKNOWN_WORLD);
    close(late);
    assert_int_equal(open_tcp(gs, 19, "arena", "match-1", NULL, hash2), 7);
    assert_memory_equal(hash2, ahash, 32);
    stats_tcp(gs, 20, &st);
    assert_int_equal(st.as.stats.worlds_open, 6);
    assert_null(listed(&st, 2));
    assert_true(str_is(listed(&st, 7)->map, "arena"));

    /* The game server may close its own world: told, then ended. */
    c.sequence = 21;
    c.as.close_world.world = 1;
    assert_int_equal(fx_send(gs, &c), 0);
    assert_int_equal(fx_recv(gs, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.sequence, 21);
    assert_int_equal(fx_recv(gs, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.sequence, 0);
    assert_true(fx_wait_eof(gs, rx, NULL));
    close(gs);
    /* An empty Hello.world names the first world open: now id 3. */
    int any = tcp_session(&srv, NULL, NULL, whash);
    assert_true(any >= 0);
    assert_memory_equal(whash, hash, 32);
    close(any);
    assert_int_equal(fx_stop(&srv), 0);
}

/* OpenWorld and CloseWorld over UDP. */
static void test_open_close_udp(void **state)
{
    (void)state;
    fx_server srv;
    start(&srv, NULL);
    int fd = udp_session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(fd >= 0);
    sweep_message m = open_msg(5, "gen", "udp-match"), r;
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_OPENED);
    assert_int_equal(r.sequence, 5);
    uint32_t id = r.as.world_opened.world;
    assert_int_equal(id, 2);
    assert_true(str_is(r.as.world_opened.name, "udp-match"));
    int p = udp_session(&srv, "udp-match", NULL, NULL);
    assert_true(p >= 0);
    /* Refusals come over UDP as well. */
    m = open_msg(6, "../gen", NULL);
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_UNKNOWN_MAP);
    m = fx_msg(SWEEP_MSG_CLOSE_WORLD, 7);
    m.as.close_world.world = id;
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(r.sequence, 7);
    assert_true(fx_udp_recv(p, rx, &r, 5000) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(r.sequence, 0);
    assert_int_equal(r.as.world_closed.world, id);
    m = fx_msg(SWEEP_MSG_CLOSE_WORLD, 8);
    m.as.close_world.world = id;
    assert_true(fx_udp_send(fd, &m) > 0);
    assert_true(fx_udp_recv(fd, rx, &r, 5000) > 0);
    assert_int_equal(r.kind, SWEEP_MSG_ERROR);
    assert_int_equal(r.as.error.code, SWEEP_WIRE_UNKNOWN_WORLD);
    close(p);
    close(fd);
    assert_int_equal(fx_stop(&srv), 0);
}

/* Every refusal, each with its code and words. */
static void test_refusals(void **state)
{
    (void)state;
    fx_server srv;
    const char *limits[] = {"--max-worlds", "3", NULL};
    start(&srv, limits);
    int gs = tcp_session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(gs >= 0);
    char msg[400];
    /* Never a path, never a file that is not a regular map of the directory. */
    static const char *const bad[] = {"../gen", "a/gen", "..", "gen.db", "notes", "linked", "missing", ""};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sweep_message m = open_msg(30 + i, bad[i], NULL);
        if (error_tcp(gs, &m, msg) != SWEEP_WIRE_UNKNOWN_MAP)
            fail_msg("map '%s': %s", bad[i], msg);
    }
    /* A NUL inside the name is not the name before it. */
    sweep_message m = fx_msg(SWEEP_MSG_OPEN_WORLD, 40);
    m.as.open_world.map.ptr = "gen\0x";
    m.as.open_world.map.len = 5;
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_UNKNOWN_MAP);
    assert_non_null(strstr(msg, "without '/', '..' or NUL"));
    /* A name open on another map. */
    assert_int_equal(open_tcp(gs, 41, "gen", "taken", NULL, NULL), 2);
    m = open_msg(42, "arena", "taken");
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_WORLD_EXISTS);
    assert_non_null(strstr(msg, "taken"));
    /* The --map world counts: three worlds at most. */
    assert_int_equal(open_tcp(gs, 43, "gen", "third", NULL, NULL), 3);
    m = open_msg(44, "gen", "fourth");
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_WORLD_LIMIT);
    assert_non_null(strstr(msg, "--max-worlds"));
    /* An id that is not open (never was; 0). */
    m = fx_msg(SWEEP_MSG_CLOSE_WORLD, 45);
    m.as.close_world.world = 99;
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_UNKNOWN_WORLD);
    m.as.close_world.world = 0;
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_UNKNOWN_WORLD);

    /* A player: AuthFailed in the words every server-role request gets. */
    int pl = tcp_session(&srv, NULL, NULL, NULL);
    assert_true(pl >= 0);
    char mover_msg[400], open_words[400], close_words[400];
    m = fx_msg(SWEEP_MSG_MOVER_COMMAND, 50);
    m.as.mover_command.mover = sweep_str_of("door");
    assert_int_equal(error_tcp(pl, &m, mover_msg), SWEEP_WIRE_AUTH_FAILED);
    m = open_msg(51, "gen", "player-world");
    assert_int_equal(error_tcp(pl, &m, open_words), SWEEP_WIRE_AUTH_FAILED);
    m = fx_msg(SWEEP_MSG_CLOSE_WORLD, 52);
    m.as.close_world.world = 2;
    assert_int_equal(error_tcp(pl, &m, close_words), SWEEP_WIRE_AUTH_FAILED);
    char want[400];
    const char *rest = mover_msg + strlen("MoverCommand");
    assert_true(strncmp(mover_msg, "MoverCommand", 12) == 0);
    snprintf(want, sizeof want, "OpenWorld%s", rest);
    assert_string_equal(open_words, want);
    snprintf(want, sizeof want, "CloseWorld%s", rest);
    assert_string_equal(close_words, want);
    close(pl);
    /* The player changed nothing: world 2 is still open. */
    sweep_message st;
    stats_tcp(gs, 53, &st);
    assert_int_equal(st.as.stats.worlds_open, 3);
    assert_non_null(listed(&st, 2));
    close(gs);
    assert_int_equal(fx_stop(&srv), 0);

    /* Triangles: the arena's already pass a limit of 10. */
    const char *tris[] = {"--max-world-triangles", "10", NULL};
    start(&srv, tris);
    gs = tcp_session(&srv, NULL, FX_TOKEN, NULL);
    m = open_msg(60, "gen", NULL);
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_WORLD_LIMIT);
    assert_non_null(strstr(msg, "--max-world-triangles"));
    close(gs);
    assert_int_equal(fx_stop(&srv), 0);

    /* Without --maps-dir no map is known, and --map worlds still close. */
    const char *plain[] = {FX_SERVER_ARGS, NULL};
    assert_int_equal(fx_start(&srv, plain), 0);
    gs = tcp_session(&srv, NULL, FX_TOKEN, NULL);
    m = open_msg(70, "arena", NULL);
    assert_int_equal(error_tcp(gs, &m, msg), SWEEP_WIRE_UNKNOWN_MAP);
    assert_non_null(strstr(msg, "--maps-dir"));
    close(gs);
    assert_int_equal(fx_stop(&srv), 0);
}

/* Over UDP the world list is cut to one datagram; worlds_open counts
 * them all. Long names make a dozen worlds too many. */
static void test_stats_list_cut_over_udp(void **state)
{
    (void)state;
    fx_server srv;
    start(&srv, NULL);
    int gs = tcp_session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(gs >= 0);
    for (uint32_t i = 0; i < 14; i++) {
        char name[96];
        memset(name, 'a' + (int)i, 90);
        name[90] = 0;
        assert_int_equal(open_tcp(gs, 80 + i, "gen", name, NULL, NULL), 2 + i);
    }
    sweep_message st;
    stats_tcp(gs, 99, &st);
    assert_int_equal(st.as.stats.worlds_open, 15);
    assert_int_equal(st.as.stats.worlds_count, 15);
    int u = udp_session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(u >= 0);
    sweep_message q = fx_msg(SWEEP_MSG_GET_STATS, 7);
    assert_true(fx_udp_send(u, &q) > 0);
    ssize_t len = fx_udp_recv(u, rx, &st, 5000);
    assert_true(len > 0 && len <= SWEEP_UDP_MAX_DATAGRAM);
    assert_int_equal(st.kind, SWEEP_MSG_STATS);
    assert_int_equal(st.as.stats.worlds_open, 15);
    assert_true(st.as.stats.worlds_count >= 3 && st.as.stats.worlds_count < 15);
    for (uint32_t i = 0; i < st.as.stats.worlds_count; i++)
        assert_int_equal(st.as.stats.worlds[i].world, i + 1);
    /* As many as fit: one more would not. */
    assert_true(len + 150 > SWEEP_UDP_MAX_DATAGRAM);
    close(u);
    close(gs);
    assert_int_equal(fx_stop(&srv), 0);
}

/* Waits a few housekeeping periods at most for a sample to be v. */
static double scrape_until(int port, const char *name, double v)
{
    double got = -1;
    for (uint64_t end = fx_now_ms() + 5000; fx_now_ms() < end; usleep(50000))
        if ((got = fx_scrape(port, name)) == v)
            break;
    return got;
}

/* With --threads 2: the arena on thread 0; a world opened goes to the
 * thread with the fewest entities, then the fewest worlds (a UDP
 * Welcome's udp_port names the thread). The metrics count worlds. */
static void test_threads_least_loaded(void **state)
{
    (void)state;
    fx_server srv;
    const char *extra[] = {"--maps-dir", dir, "--threads", "2", "--metrics", "127.0.0.1:0", FX_SERVER_ARGS, NULL};
    char line[512];
    assert_int_equal(fx_launch(&srv, NULL, NULL, extra, NULL, line, sizeof line), 0);
    int tport = -1, uport = -1, mport = -1;
    if (sscanf(line, "sweepd ready tcp=127.0.0.1:%d udp=127.0.0.1:%d metrics=127.0.0.1:%d", &tport, &uport, &mport) !=
        3) {
        fx_stop(&srv);
        fail_msg("bad ready line '%s'", line);
    }
    srv.port = tport;
    uint16_t port_arena = 0, port_a = 0, port_b = 0, port_c = 0;
    int ua = udp_session(&srv, "arena", NULL, &port_arena);
    assert_true(ua >= 0 && port_arena != 0);
    int gs = tcp_session(&srv, NULL, FX_TOKEN, NULL);
    assert_true(gs >= 0);
    /* No entities anywhere: thread 1 has fewer worlds. */
    assert_int_equal(open_tcp(gs, 1, "gen", "a", NULL, NULL), 2);
    int pa = udp_session(&srv, "a", NULL, &port_a);
    assert_true(pa >= 0);
    assert_true(port_a != 0 && port_a != port_arena);
    /* Two entities in world a (thread 1), none on thread 0: the next
     * goes to thread 0 although it has as many worlds. */
    int ta = tcp_session(&srv, "a", FX_TOKEN, NULL);
    assert_true(ta >= 0);
    assert_true(spawn_at(ta, 2, 1) != 0);
    assert_true(spawn_at(ta, 3, 2) != 0);
    assert_int_equal(scrape_until(mport, "sweep_entities", 2), 2); /* thread 1 has published them */
    assert_int_equal(open_tcp(gs, 2, "gen", "b", NULL, NULL), 3);
    int pb = udp_session(&srv, "b", NULL, &port_b);
    assert_true(pb >= 0);
    assert_int_equal(port_b, port_arena);
    /* Three entities on thread 0 now: thread 1 again. */
    int tb = tcp_session(&srv, "b", FX_TOKEN, NULL);
    assert_true(tb >= 0);
    for (uint32_t i = 0; i < 3; i++)
        assert_true(spawn_at(tb, 2 + i, 1 + i) != 0);
    assert_int_equal(scrape_until(mport, "sweep_entities", 5), 5);
    assert_int_equal(open_tcp(gs, 3, "gen", "c", NULL, NULL), 4);
    int pc = udp_session(&srv, "c", NULL, &port_c);
    assert_true(pc >= 0);
    assert_int_equal(port_c, port_a);
    /* A world of the other thread closes there, its sessions told. */
    close_tcp(gs, 4, 2);
    sweep_message m;
    assert_int_equal(fx_recv(ta, rx, &m), 1);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_true(fx_wait_eof(ta, rx, NULL));
    assert_true(fx_udp_recv(pa, rx, &m, 5000) > 0);
    assert_int_equal(m.kind, SWEEP_MSG_WORLD_CLOSED);
    assert_int_equal(m.as.world_closed.world, 2);
    assert_int_equal(scrape_until(mport, "sweep_worlds", 3), 3);
    assert_int_equal(scrape_until(mport, "sweep_worlds_opened_total", 3), 3);
    assert_int_equal(scrape_until(mport, "sweep_worlds_closed_total", 1), 1);
    assert_int_equal(scrape_until(mport, "sweep_entities", 3), 3);
    close(ta);
    close(tb);
    close(pa);
    close(pb);
    close(pc);
    close(ua);
    close(gs);
    assert_int_equal(fx_stop(&srv), 0);
}

/* libsweep's calls, over TCP and UDP: opened, joined by name, refused,
 * closed under a session that hears of it as an event. */
static void test_libsweep_calls(void **state)
{
    (void)state;
    fx_server srv;
    start(&srv, NULL);
    for (int udp = 0; udp < 2; udp++) {
        sweep_client_options o;
        sweep_client_options_init(&o);
        o.transport = udp ? SWEEP_CLIENT_UDP : SWEEP_CLIENT_TCP;
        o.address = udp ? srv.udp : srv.tcp;
        o.auth_token = FX_TOKEN;
        sweep_client *gs, *pl;
        sweep_client_error e;
        assert_int_equal(sweep_client_connect(&o, &gs, &e), SWEEP_CLIENT_OK);
        sweep_client_world w, again;
        char want[32];
        snprintf(want, sizeof want, "lib-%s", udp ? "udp" : "tcp");
        assert_int_equal(sweep_client_open_world(gs, "gen", want, &w, &e), SWEEP_CLIENT_OK);
        assert_string_equal(w.name, want);
        assert_int_equal(sweep_client_open_world(gs, "gen", want, &again, &e), SWEEP_CLIENT_OK);
        assert_int_equal(again.world, w.world);
        assert_int_equal(sweep_client_open_world(gs, "nowhere", NULL, &again, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_MAP);
        o.auth_token = NULL;
        o.world = w.name;
        assert_int_equal(sweep_client_connect(&o, &pl, &e), SWEEP_CLIENT_OK);
        assert_memory_equal(sweep_client_get_welcome(pl)->map_hash, w.map_hash, 32);
        assert_int_equal(sweep_client_open_world(pl, "gen", NULL, &again, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_AUTH_FAILED);
        assert_int_equal(sweep_client_close_world(gs, w.world, &e), SWEEP_CLIENT_OK);
        assert_int_equal(sweep_client_close_world(gs, w.world, &e), SWEEP_CLIENT_E_SERVER);
        assert_int_equal(e.code, SWEEP_WIRE_UNKNOWN_WORLD);
        sweep_client_event ev;
        assert_int_equal(sweep_client_poll(pl, 5000, &ev, &e), SWEEP_CLIENT_OK);
        assert_int_equal(ev.kind, SWEEP_CLIENT_EV_WORLD_CLOSED);
        assert_int_equal(ev.sequence, 0);
        assert_int_equal(ev.as.world_closed.world, w.world);
        assert_string_equal(ev.as.world_closed.reason, "CloseWorld");
        sweep_client_close(pl);
        sweep_client_close(gs);
        o.world = NULL;
    }
    assert_int_equal(fx_stop(&srv), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    fx_init(argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_join_close_tcp),
        cmocka_unit_test(test_open_close_udp),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_stats_list_cut_over_udp),
        cmocka_unit_test(test_threads_least_loaded),
        cmocka_unit_test(test_libsweep_calls),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
