/*
 * world_open.c - worlds a game server opens and closes at run time
 * (OpenWorld, CloseWorld), and how a world joins a thread and ends.
 *
 * An OpenWorld names a map of --maps-dir by its file stem or its map
 * name, never by a path: the name may hold no '/', no ".." and no NUL,
 * and only regular *.db files directly in the directory (not links) are
 * candidates. The map is loaded on the thread that got the request, for
 * the thread with the fewest entities (then the fewest worlds), entered in
 * the group's table (world_table.c: its id, its name, the limits) and
 * handed to that thread through its inbox (threads.c), which adopts it:
 * the world joins its list, its clock and its log start. A Hello that
 * names it before the inbox is read adopts it there and then, so a client
 * that got WorldOpened can always join it.
 *
 * A CloseWorld takes the world out of the table (its id is never given
 * again, its name is free at once) and is answered; the thread that runs
 * it ends it: each session gets WorldClosed (sequence 0) and ends with its
 * entities (a TCP connection is drained and closed, a UDP session
 * destroyed), its log gets an END "closed", and its memory is freed.
 *
 * Neither request is a world's: nothing of them goes into a session log.
 * What a world does is what its log holds from its HEAD on, so a world
 * opened at run time replays as one opened at start.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maps/loader.h"
#include "server/world/alloc.h"
#include "server/server_impl.h"
#include "server/utf8.h"

/* --- joining a thread, and ending ----------------------------------------- */

void sweep__world_adopt(sweep_server *s, sweep__served *w)
{
    if (w->started)
        return;
    if (s->world_count == s->world_cap) {
        unsigned cap = s->world_cap ? s->world_cap * 2 : 8;
        sweep__served **n = sweep__realloc(s->worlds, cap * sizeof *n);
        if (!n) {
            sweep__log(SWEEP_LOG_ERROR, "world_failed", "world=%u id=%u error=\"out of memory\"", w->index, w->id);
            return;
        }
        s->worlds = n;
        s->world_cap = cap;
    }
    s->worlds[s->world_count++] = w;
    w->started = 1;
    if (!s->serving || s->stopping)
        return; /* at start, the server's own start begins its clock and log */
    char err[300];
    if (s->opt.record_dir[0] && sweep__record_world_start(w, err, sizeof err) != 0)
        sweep__log(SWEEP_LOG_ERROR, "record_failed", "world=%u id=%u error=\"%s\": this world is not recorded",
                   w->index, w->id, err);
    sweep__served_start(w);
}

void sweep__world_end(sweep__served *w, const char *reason)
{
    sweep_server *s = w->server;
    char q[2 * SWEEP__WORLD_NAME_MAX + 8];
    sweep__log(SWEEP_LOG_INFO, "world_closed", "world=%u id=%u thread=%u name=%s sessions=%u tick=%llu reason=%s",
               w->index, w->id, s->thread, sweep__log_quote(w->name, strlen(w->name), q, sizeof q),
               w->session_count, (unsigned long long)w->world->tick, reason);
    if (w->started) {
        sweep__session *ss = s->sessions;
        while (ss) {
            sweep__session *next = ss->next;
            if (ss->world == w) {
                sweep_message m;
                memset(&m, 0, sizeof m);
                m.kind = SWEEP_MSG_WORLD_CLOSED;
                m.server_tick = w->world->tick;
                m.as.world_closed.world = w->id;
                m.as.world_closed.reason = sweep_str_of(reason);
                sweep__peer p = sweep__session_peer(ss);
                sweep__send(s, &p, &m);
                ss->close_reason = "world closed";
                sweep__conn *c = ss->conn;
                if (c)
                    c->session = NULL; /* the connection only flushes what it owes, then closes */
                sweep__session_destroy(ss);
                if (c)
                    sweep__conn_drain(c);
            }
            ss = next;
        }
        sweep__record_world_stop(w, "closed");
        for (unsigned i = 0; i < s->world_count; i++) {
            if (s->worlds[i] == w) {
                memmove(&s->worlds[i], &s->worlds[i + 1], (s->world_count - i - 1) * sizeof *s->worlds);
                s->world_count--;
                break;
            }
        }
        s->stats.worlds_closed++;
    }
    sweep__served_free(w);
}

/* --- OpenWorld -------------------------------------------------------------- */

/* Is the map an OpenWorld names a bare name (no path, no NUL)? */
static int bare_name(sweep_str map)
{
    if (map.len == 0 || map.len >= SWEEP_LEVEL_NAME_MAX || memchr(map.ptr, 0, map.len) ||
        memchr(map.ptr, '/', map.len))
        return 0;
    for (size_t i = 0; i + 1 < map.len; i++)
        if (map.ptr[i] == '.' && map.ptr[i + 1] == '.')
            return 0;
    return 1;
}

/* Is `entry` of directory fd a regular file (a link is not)? Its device
 * and inode. */
static int regular_at(int dfd, const char *entry, uint64_t *dev, uint64_t *ino)
{
    struct stat st;
    if (fstatat(dfd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return 0;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return 1;
}

/* The file of --maps-dir that `map` names: map.db, else the first *.db
 * (by file name) whose map name is map. 0 with its path and identity, or
 * -1. */
static int find_map(const sweep_server *s, const char *map, char *path, size_t pathlen, uint64_t *dev,
                    uint64_t *ino)
{
    const char *dir = s->opt.maps_dir;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    char file[SWEEP_LEVEL_NAME_MAX + 8];
    snprintf(file, sizeof file, "%s.db", map);
    if (regular_at(dfd, file, dev, ino)) {
        close(dfd);
        return (size_t)snprintf(path, pathlen, "%s/%s", dir, file) < pathlen ? 0 : -1;
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -1;
    }
    char best[256] = "";
    uint64_t bdev = 0, bino = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".db") != 0 || n >= sizeof best)
            continue;
        if (best[0] && strcmp(e->d_name, best) >= 0)
            continue;
        uint64_t fdev, fino;
        if (!regular_at(dirfd(d), e->d_name, &fdev, &fino))
            continue;
        char full[SWEEP_SERVER_PATH_MAX + 256], name[SWEEP_LEVEL_NAME_MAX];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (sweep_map_read_name(full, name, sizeof name) == 0 && strcmp(name, map) == 0) {
            snprintf(best, sizeof best, "%s", e->d_name);
            bdev = fdev;
            bino = fino;
        }
    }
    closedir(d);
    if (!best[0])
        return -1;
    if ((size_t)snprintf(path, pathlen, "%s/%s", dir, best) >= pathlen)
        return -1;
    *dev = bdev;
    *ino = bino;
    return 0;
}

static void answer_opened(sweep_server *s, sweep__peer *p, uint32_t sequence, uint32_t id, const char *name,
                          const uint8_t hash[32])
{
    sweep_message m;
    memset(&m, 0, sizeof m);
    m.kind = SWEEP_MSG_WORLD_OPENED;
    m.sequence = sequence;
    m.server_tick = p->session->world->world->tick;
    m.as.world_opened.world = id;
    m.as.world_opened.name = sweep_str_of(name);
    m.as.world_opened.map_hash.ptr = hash;
    m.as.world_opened.map_hash.len = 32;
    sweep__send(s, p, &m);
}

/* Refused for the role (kinds.h's sender column), in the world's words:
 * 1 after an Error AuthFailed. */
static int refused_role(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    char why[200];
    if (!sweep__role_refusal(m->kind, p->session->own.role, sweep__server_role_possible(s), why, sizeof why))
        return 0;
    sweep__send_error(s, p, SWEEP_WIRE_AUTH_FAILED, m->sequence, 0, "%s", why);
    return 1;
}

/* Why an OpenWorld fails, with the Error code it gets. */
static int refuse(sweep_wire_code *code, sweep_wire_code c, char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int refuse(sweep_wire_code *code, sweep_wire_code c, char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    *code = c;
    return -1;
}

/* A line an OpenWorld causes: rate-limited per owner when a session asked. */
#define open_log(own, now, level, event, ...)                                                                    \
    ((own) ? sweep__owner_log((own), (now), (level), (event), __VA_ARGS__) : sweep__log((level), (event), __VA_ARGS__))

int sweep__world_open_map(sweep_server *s, sweep_str map_in, sweep_str name_in, const char *by, sweep__owner *own,
                          uint64_t now, sweep__world_opened *out, sweep_wire_code *code, char *why, size_t whylen)
{
    char qm[2 * SWEEP_LEVEL_NAME_MAX + 8], qn[2 * SWEEP__WORLD_NAME_MAX + 8];
    sweep__log_quote(map_in.ptr, map_in.len, qm, sizeof qm);
    if (!s->opt.maps_dir[0])
        return refuse(code, SWEEP_WIRE_UNKNOWN_MAP, why, whylen,
                      "no map %s: this server opens no worlds at run time (no --maps-dir)", qm);
    if (!bare_name(map_in))
        return refuse(code, SWEEP_WIRE_UNKNOWN_MAP, why, whylen,
                      "OpenWorld.map %s is not a map's name: a map name or file stem of the server's maps "
                      "directory, without '/', '..' or NUL",
                      qm);
    if (name_in.len > SWEEP__WORLD_NAME_MAX || (name_in.len && memchr(name_in.ptr, 0, name_in.len)) ||
        (name_in.len && !sweep__utf8_valid((const uint8_t *)name_in.ptr, name_in.len)))
        return refuse(code, SWEEP_WIRE_NOT_ALLOWED, why, whylen,
                      "OpenWorld.name %s: a world's name is at most %u bytes of UTF-8, without NUL",
                      sweep__log_quote(name_in.ptr, name_in.len, qn, sizeof qn), SWEEP__WORLD_NAME_MAX);
    /* An absent string is a NULL pointer of length 0, which memcpy may
     * not be given even for nothing. */
    char map[SWEEP_LEVEL_NAME_MAX], name[SWEEP__WORLD_NAME_MAX + 1];
    if (map_in.len)
        memcpy(map, map_in.ptr, map_in.len);
    map[map_in.len] = 0;
    if (name_in.len)
        memcpy(name, name_in.ptr, name_in.len);
    name[name_in.len] = 0;
    char path[SWEEP_SERVER_PATH_MAX];
    uint64_t dev, ino;
    if (find_map(s, map, path, sizeof path, &dev, &ino) != 0)
        return refuse(code, SWEEP_WIRE_UNKNOWN_MAP, why, whylen,
                      "no map %s in the server's maps directory (by file stem or map name)", qm);
    /* A name already open (a resend, or a clash) and the worlds' limit
     * are known before the map is loaded. */
    sweep__world_entry found;
    char limit[300];
    sweep__reserve r = sweep__world_table_reserve(s, NULL, name, 0, dev, ino, &found, limit, sizeof limit);
    unsigned to = r == SWEEP__RESERVED ? sweep__world_table_least_loaded(s) : 0;
    sweep__served *w = NULL;
    sweep__handoff *h = NULL;
    if (r == SWEEP__RESERVED) {
        char err[400];
        if (!(w = sweep__served_new(s->group->servers[to], path, 0, err, sizeof err))) {
            open_log(own, now, SWEEP_LOG_ERROR, "world_open_failed", "map=%s path=%s error=\"%s\" %s", qm, path, err,
                     by);
            return refuse(code, SWEEP_WIRE_INTERNAL, why, whylen, "map %s does not load: %s", qm, err);
        }
        /* The handoff is made first: once entered in the table the world
         * may be joined, and must reach its thread. */
        if (to != s->thread && !(h = sweep__handoff_world_new(SWEEP__WORLD_ADOPT, 0, NULL))) {
            sweep__served_free(w);
            return refuse(code, SWEEP_WIRE_INTERNAL, why, whylen, "out of memory for a new world");
        }
        r = sweep__world_table_reserve(s, w, name, to, dev, ino, &found, limit, sizeof limit);
    }
    if (r != SWEEP__RESERVED) {
        free(h);
        sweep__served_free(w);
        if (r == SWEEP__REOPENED) {
            out->id = found.id;
            snprintf(out->name, sizeof out->name, "%s", found.name);
            memcpy(out->hash, found.hash, sizeof out->hash);
            return 0;
        }
        sweep_wire_code c = r == SWEEP__NAME_TAKEN ? SWEEP_WIRE_WORLD_EXISTS
                            : r == SWEEP__LIMIT    ? SWEEP_WIRE_WORLD_LIMIT
                                                   : SWEEP_WIRE_INTERNAL;
        return refuse(code, c, why, whylen, "%s", limit);
    }
    /* What the answer says, copied: from here on the world is its
     * thread's, which may end it at any moment. */
    out->id = w->id;
    memcpy(out->hash, w->world->hash.bytes, sizeof out->hash);
    snprintf(out->name, sizeof out->name, "%s", w->name);
    sweep__served_log_loaded(w);
    if (h) {
        h->world_id = out->id;
        sweep__handoff_push(s, to, h);
    } else {
        sweep__world_adopt(s, w);
    }
    s->stats.worlds_opened++;
    open_log(own, now, SWEEP_LOG_INFO, "world_opened", "id=%u thread=%u name=%s map=%s %s", out->id, to,
               sweep__log_quote(out->name, strlen(out->name), qn, sizeof qn), qm, by);
    return 0;
}

void sweep__open_world(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    if (refused_role(s, p, m))
        return;
    char by[40], why[400];
    snprintf(by, sizeof by, "session=%llu", (unsigned long long)p->session->id);
    sweep__world_opened o;
    sweep_wire_code code;
    if (sweep__world_open_map(s, m->as.open_world.map, m->as.open_world.name, by, &p->session->own,
                              p->now ? p->now : uv_hrtime(), &o, &code, why, sizeof why) != 0) {
        sweep__send_error(s, p, code, m->sequence, 0, "%s", why);
        return;
    }
    answer_opened(s, p, m->sequence, o.id, o.name, o.hash);
}

/* --- CloseWorld ------------------------------------------------------------- */

void sweep__close_world(sweep_server *s, sweep__peer *p, const sweep_message *m)
{
    if (refused_role(s, p, m))
        return;
    uint32_t id = m->as.close_world.world;
    sweep__handoff *h = sweep__handoff_world_new(SWEEP__WORLD_END, id, NULL);
    if (!h) {
        sweep__send_error(s, p, SWEEP_WIRE_INTERNAL, m->sequence, 0, "out of memory");
        return;
    }
    unsigned owner = 0;
    sweep__served *w = sweep__world_table_take(s, id, &owner);
    if (!w) {
        free(h);
        sweep__send_error(s, p, SWEEP_WIRE_UNKNOWN_WORLD, m->sequence, 0, "no world %u is open (%u are)", id,
                          sweep__world_table_open(s));
        return;
    }
    static const char reason[] = "CloseWorld";
    sweep_message out;
    memset(&out, 0, sizeof out);
    out.kind = SWEEP_MSG_WORLD_CLOSED;
    out.sequence = m->sequence;
    out.server_tick = p->session->world->world->tick;
    out.as.world_closed.world = id;
    out.as.world_closed.reason = sweep_str_of(reason);
    sweep__send(s, p, &out);
    if (owner != s->thread) {
        h->world = w;
        sweep__handoff_push(s, owner, h);
        return;
    }
    free(h);
    /* The asking session may be one of the world's: it ends with it. */
    int own = p->session->world == w;
    sweep__world_end(w, reason);
    if (own)
        p->session = NULL;
}

void sweep__world_handoff(sweep_server *s, const sweep__handoff *h, int loop_done)
{
    if (h->world_op == SWEEP__WORLD_END) {
        if (!loop_done)
            sweep__world_end(h->world, "CloseWorld");
        else if (!h->world->started)
            sweep__served_free(h->world);
        /* else: in s->worlds, ended with the others (worlds_free) */
        return;
    }
    /* By id: a world closed before its thread read this is gone. */
    sweep__served *w = sweep__world_table_mine(s, h->world_id);
    if (w)
        sweep__world_adopt(s, w);
}
