/*
 * recorder.c - sweepd --record: each world writes a session log
 * (record.h) into the record directory.
 *
 * Records gather in memory and go to the file as one frame with one
 * write() when a tick ends (or when SWEEP_RECORD_FLUSH_BYTES wait), done by
 * a writer thread (record_writer.c) so the loop only copies records: a
 * process killed at any moment leaves every frame written whole, and loses
 * at most the frames still queued (the log then ends at an earlier tick).
 * Nothing is fsync'ed: a crash of the machine may lose what the kernel had
 * not yet written back.
 *
 * Files are named <stem>-<UTC start>-<segment>.sweeplog, and those of a
 * world opened at run time <stem>-w<id>-<UTC start>-<segment>.sweeplog
 * (world_open.c); its log ends with END "closed" when it closes. A segment ends
 * (END "rotated") and the next begins at a tick boundary once it passed
 * --record-max-mb or --record-max-seconds; the next one's HEAD names it,
 * so a replay follows the chain from the world's first segment.
 *
 * A write that fails (disk full, ...) is logged once and ends the world's
 * recording; the server goes on serving.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server/world/alloc.h"
#include "server/record/record.h"
#include "server/record/record_move.h"
#include "server/record/record_patch.h"
#include "server/record/record_results.h"
#include "server/record/record_writer.h"
#include "server/server_impl.h"

/* Bytes of frames waiting for the disk before a tick waits for it. */
#define SWEEP__RECORD_QUEUE_MAX (64u << 20)

struct sweep__recorder {
    int fd;
    uint32_t segment;
    char base[SWEEP_LEVEL_NAME_MAX + 112]; /* <stem>-<UTC start or --record-name>, or <stem>-w<id>-<...> */
    char name[SWEEP_LEVEL_NAME_MAX + 144]; /* this segment's file name */
    char path[SWEEP_SERVER_PATH_MAX + SWEEP_LEVEL_NAME_MAX + 160];
    uint64_t segment_bytes;
    uint64_t segment_start_ns;
    uint32_t hangups_seen; /* the group's SIGHUP count its segment began after */
    uint8_t *buf; /* buf[0..8) is the frame header, filled when written */
    size_t len, cap;
    int failed;
    size_t request_at; /* where in buf the IN of the request being handled starts; 0: not in buf */
    size_t hard_max;   /* no frame may pass this (the readers' sweep_record_frame_bound) */
    sweep__record_writer *writer; /* writes the frames, in order, off the loop thread */
    sweep__record_moved moved;    /* the results of the MOVE records since the last IN or TICK */
    /* Each session's base (record_patch.h), kept by the readers' rule: a
     * request of its base's length is written as a patch when that is at
     * most half its length. request_session: the session of the request
     * being handled (a dropped one forgets its base). */
    sweep__record_bases bases;
    uint64_t request_session;
    /* What the readers know when a RESULTS comes (record.h's ANSWER): the
     * world's tick as the log last said it, and whether the last IN is
     * still waiting for its first RESULTS (request_session's). */
    uint64_t answer_tick;
    int answer_open;
};

static int reserve(sweep__recorder *r, size_t more)
{
    if (r->len + more <= r->cap)
        return 0;
    size_t ncap = r->cap ? r->cap : 64u * 1024u;
    while (ncap < r->len + more)
        ncap *= 2;
    uint8_t *n = sweep__realloc(r->buf, ncap);
    if (!n)
        return -1;
    r->buf = n;
    r->cap = ncap;
    return 0;
}

static void put_u32_at(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Appending is done in two passes over the same field list: one to size
 * the record, one to write it. A NULL `at` only counts. */
typedef struct out {
    uint8_t *at;
    size_t n;
} out;

static void put(out *o, const void *p, size_t n)
{
    if (o->at)
        memcpy(o->at + o->n, p, n);
    o->n += n;
}

static void put_u8(out *o, uint8_t v)
{
    put(o, &v, 1);
}

static void put_u32(out *o, uint32_t v)
{
    uint8_t b[4];
    put_u32_at(b, v);
    put(o, b, 4);
}

static void put_u64(out *o, uint64_t v)
{
    put_u32(o, (uint32_t)v);
    put_u32(o, (uint32_t)(v >> 32));
}

static void put_f64(out *o, double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    put_u64(o, b);
}

static void put_str(out *o, const char *s)
{
    size_t n = strlen(s);
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

/* Ends the recording after a failed write, saying why once. */
static int check_writer(sweep__served *w)
{
    sweep__recorder *r = w->rec;
    char why[256];
    if (!r->failed && sweep__record_writer_failed(r->writer, why, sizeof why)) {
        sweep__log(SWEEP_LOG_ERROR, "record_failed", "world=%u file=%s error=\"%s\": recording of this world stops",
                   w->index, r->path, why);
        r->failed = 1;
    }
    return r->failed;
}

/* Hands `pre` (a file header, or nothing) and the waiting records, as one
 * frame, to the writer thread for fd; closes fd after them if asked. */
static void flush_to(sweep__served *w, int fd, const uint8_t *pre, size_t pre_len, int close_after)
{
    sweep__recorder *r = w->rec;
    if (!r || fd < 0)
        return;
    int frame = !check_writer(w) && r->len > SWEEP_RECORD_FRAME_HEADER;
    if (!frame && !close_after)
        return;
    size_t len = frame ? r->len : 0;
    if (sweep__record_writer_put(r->writer, fd, frame ? pre : NULL, frame ? pre_len : 0, &r->buf, len, &r->cap,
                                 close_after) != 0) {
        sweep__log(SWEEP_LOG_ERROR, "record_failed",
                   "world=%u file=%s error=\"out of memory\": recording of this world stops", w->index, r->path);
        r->failed = 1;
        return;
    }
    if (frame)
        r->segment_bytes += pre_len + len;
    r->len = SWEEP_RECORD_FRAME_HEADER;
    r->request_at = 0;
}

/* Hands the waiting records to the writer as one frame. */
static void flush(sweep__served *w)
{
    flush_to(w, w->rec ? w->rec->fd : -1, NULL, 0, 0);
}

/* Room for a record of `payload` bytes; its writer, positioned after the
 * type and length. NULL when recording is off or out of memory.
 *
 * Past SWEEP_RECORD_FLUSH_BYTES a frame ends only before a record that
 * starts something (a request, a tick, a session opening or closing):
 * what a request caused (its answers, the id it drew) follows it into the
 * same frame, so a log cut after any frame (a full disk, a kill) never
 * holds a request without its answers, which its replay would miss. A
 * request and its answers fit the readers' frame bound; a tick that
 * crushes thousands of entities may not, and is cut at the bound.
 *
 * This is begin's slow part, where the record does not fit in the buffer
 * or under `limit` as it stands; begin itself takes the common case. */
static __attribute__((noinline)) uint8_t *begin_slow(sweep__served *w, uint8_t type, size_t payload, size_t limit)
{
    sweep__recorder *r = w->rec;
    if (r->failed)
        return NULL;
    if (r->len + 5 + payload > limit && r->len > SWEEP_RECORD_FRAME_HEADER)
        flush(w);
    if (reserve(r, 5 + payload) != 0) {
        sweep__log(SWEEP_LOG_ERROR, "record_failed",
                   "world=%u file=%s error=\"out of memory\": recording of this world stops", w->index, r->path);
        r->failed = 1;
        return NULL;
    }
    uint8_t *p = r->buf + r->len;
    p[0] = type;
    put_u32_at(p + 1, (uint32_t)payload);
    r->len += 5 + payload;
    return p + 5;
}

/* begin_slow's record where the buffer has room for it under the frame's
 * limit, as it has for nearly every record. Inline, so that a constant
 * type picks its limit at compile time: out of line, begin took about 50
 * instructions a record (callgrind), once a move for its MOVE. */
static inline __attribute__((always_inline)) uint8_t *begin(sweep__served *w, uint8_t type, size_t payload)
{
    sweep__recorder *r = w->rec;
    if (!r)
        return NULL;
    int starts = type != SWEEP_RECORD_OUT && type != SWEEP_RECORD_ID && type != SWEEP_RECORD_HASH &&
                 type != SWEEP_RECORD_MOVE && type != SWEEP_RECORD_RESULTS;
    size_t limit = starts ? SWEEP_RECORD_FLUSH_BYTES : r->hard_max;
    size_t after = r->len + 5 + payload;
    if (r->failed || after > limit || after > r->cap)
        return begin_slow(w, type, payload, limit);
    uint8_t *p = r->buf + r->len;
    p[0] = type;
    put_u32_at(p + 1, (uint32_t)payload);
    r->len = after;
    return p + 5;
}

static void write_head(sweep__served *w, const char *previous)
{
    const sweep_server *s = w->server;
    const sweep__recorder *r = w->rec;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t ms = (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
    size_t size = 0;
    for (int pass = 0; pass < 2; pass++) {
        out o = {NULL, 0};
        if (pass == 1 && !(o.at = begin(w, SWEEP_RECORD_HEAD, size)))
            return;
        put_u32(&o, r->segment);
        put_u64(&o, ms);
        put_str(&o, "sweepd " SWEEP_SERVER_VERSION);
        put_u32(&o, SWEEP_PROTOCOL_VERSION);
        put_u32(&o, w->index);
        put_str(&o, w->world->level.name);
        put_str(&o, w->stem);
        put_str(&o, w->path);
        put(&o, w->world->hash.bytes, 32);
        put_f64(&o, w->world->tick_rate);
        put_f64(&o, s->opt.time_bank);
        put_u8(&o, (uint8_t)s->opt.allow_free_move);
        put_u8(&o, (uint8_t)s->opt.players_block);
        put_u32(&o, s->opt.max_entities);
        put_u32(&o, s->opt.max_batch);
        put_u32(&o, s->opt.max_frame);
        put_u32(&o, s->opt.record_hash_every);
        put_u64(&o, w->world->tick);
        put_str(&o, previous);
        put_u32(&o, s->opt.max_entities_server);
        put_u32(&o, w->world->history_ms);
        put_u32(&o, w->world->rewind_cap_ms);
        put_u32(&o, w->world->history_entities);
        put_f64(&o, s->opt.query_rate);
        put_u64(&o, s->opt.seed);
        size = o.n;
    }
}

/* Creates the next segment's file and writes its header and HEAD in one
 * write: a log killed before its first tick still says what it is, and a
 * segment is never seen without its HEAD. Sets r->fd to it. */
static int open_segment(sweep__served *w, const char *previous)
{
    sweep_server *s = w->server;
    sweep__recorder *r = w->rec;
    snprintf(r->name, sizeof r->name, "%s-%04u%s", r->base, r->segment, SWEEP_RECORD_SUFFIX);
    snprintf(r->path, sizeof r->path, "%s/%s", s->opt.record_dir, r->name);
    r->fd = open(r->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (r->fd < 0) {
        sweep__log(SWEEP_LOG_ERROR, "record_failed", "world=%u file=%s error=\"%s\"", w->index, r->path,
                   strerror(errno));
        return -1;
    }
    uint8_t header[SWEEP_RECORD_HEADER_SIZE] = {0};
    memcpy(header, SWEEP_RECORD_MAGIC, 8);
    put_u32_at(header + 8, SWEEP_RECORD_VERSION);
    r->segment_bytes = 0;
    r->segment_start_ns = uv_hrtime();
    r->len = SWEEP_RECORD_FRAME_HEADER;
    sweep__record_bases_clear(&r->bases); /* a segment is read on its own */
    r->answer_open = 0;
    r->answer_tick = w->world->tick; /* the HEAD's first tick */
    write_head(w, previous);
    flush_to(w, r->fd, header, sizeof header, 0);
    sweep__log(SWEEP_LOG_INFO, "record_open", "world=%u file=%s segment=%u tick=%llu", w->index, r->path,
               r->segment, (unsigned long long)w->world->tick);
    return r->failed ? -1 : 0;
}

static void write_end(sweep__served *w, const char *reason)
{
    size_t size = 0;
    for (int pass = 0; pass < 2; pass++) {
        out o = {NULL, 0};
        if (pass == 1 && !(o.at = begin(w, SWEEP_RECORD_END, size)))
            return;
        put_u64(&o, w->world->tick);
        put_str(&o, reason);
        size = o.n;
    }
}

int sweep__record_world_start(sweep__served *w, char *err, size_t errlen)
{
    const sweep_server *s = w->server;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    w->rec = sweep__calloc(1, sizeof *w->rec);
    if (!w->rec) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w->rec->fd = -1;
    w->rec->hangups_seen = __atomic_load_n(&s->group->hangups, __ATOMIC_RELAXED);
    sweep_record_head h;
    memset(&h, 0, sizeof h);
    h.max_frame = s->opt.max_frame;
    h.max_batch = s->opt.max_batch;
    w->rec->hard_max = (size_t)sweep_record_frame_bound(&h);
    w->rec->writer = sweep__record_writer_start(SWEEP__RECORD_QUEUE_MAX);
    if (!w->rec->writer) {
        snprintf(err, errlen, "--record: cannot start the writer thread: %s", strerror(errno));
        sweep__record_world_stop(w, "failed");
        return -1;
    }
    /* A world opened at run time has its id in the name: worlds of one
     * map opened in the same second each have a log of their own. */
    const char *when = s->opt.record_name[0] ? s->opt.record_name : stamp;
    if (w->id > s->opt.map_count)
        snprintf(w->rec->base, sizeof w->rec->base, "%s-w%u-%s", w->stem, w->id, when);
    else
        snprintf(w->rec->base, sizeof w->rec->base, "%s-%s", w->stem, when);
    if (open_segment(w, "") != 0) {
        snprintf(err, errlen, "--record: cannot write %s (see the log line before)", w->rec->path);
        sweep__record_world_stop(w, "failed");
        return -1;
    }
    return 0;
}

int sweep__record_start(sweep_server *s, char *err, size_t errlen)
{
    if (!s->opt.record_dir[0])
        return 0;
    struct stat st;
    if (stat(s->opt.record_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--record: %s is not a directory", s->opt.record_dir);
        return -1;
    }
    for (unsigned i = 0; i < s->world_count; i++)
        if (sweep__record_world_start(s->worlds[i], err, errlen) != 0)
            return -1;
    return 0;
}

/* Ends the segment at a tick boundary when it is big or old enough. */
static void maybe_rotate(sweep__served *w)
{
    const sweep_server *s = w->server;
    sweep__recorder *r = w->rec;
    int big = s->opt.record_max_mb && r->segment_bytes >= (uint64_t)s->opt.record_max_mb << 20;
    int old = s->opt.record_max_seconds > 0.0 &&
              (double)(uv_hrtime() - r->segment_start_ns) * 1e-9 >= s->opt.record_max_seconds;
    /* SIGHUP: a log rotation tool moved the files away and wants new ones. */
    uint32_t hangups = __atomic_load_n(&s->group->hangups, __ATOMIC_RELAXED);
    int asked = hangups != r->hangups_seen;
    r->hangups_seen = hangups;
    if (!big && !old && !asked)
        return;
    /* The next segment is written (header and HEAD) before the old one
     * says "rotated": a kill in between leaves an old segment without an
     * END, read as cut short, never an END naming a segment that is not
     * there yet. */
    char previous[sizeof r->name], previous_path[sizeof r->path];
    snprintf(previous, sizeof previous, "%s", r->name);
    snprintf(previous_path, sizeof previous_path, "%s", r->path);
    int old_fd = r->fd;
    r->segment++;
    int ok = open_segment(w, previous) == 0;
    int new_fd = r->fd;
    if (ok) {
        write_end(w, "rotated");
        flush_to(w, old_fd, NULL, 0, 1);
    } else {
        r->failed = 1;
        r->len = SWEEP_RECORD_FRAME_HEADER;
        if (new_fd >= 0)
            flush_to(w, new_fd, NULL, 0, 1);
        flush_to(w, old_fd, NULL, 0, 1);
        r->fd = -1;
        sweep__log(SWEEP_LOG_ERROR, "record_failed", "world=%u file=%s: the next segment could not be written; "
                   "this log ends here, cut short", w->index, previous_path);
    }
}

void sweep__record_tick_end(sweep__served *w)
{
    if (!w->rec || w->rec->failed)
        return;
    flush(w);
    if (!w->rec->failed)
        maybe_rotate(w);
}

void sweep__record_world_stop(sweep__served *w, const char *reason)
{
    sweep__recorder *r = w->rec;
    if (!r)
        return;
    if (r->writer) {
        if (!r->failed && r->fd >= 0)
            write_end(w, reason);
        flush_to(w, r->fd, NULL, 0, 1);
        sweep__record_writer_stop(r->writer); /* writes what is queued first */
    }
    free(r->buf);
    free(r->moved.res);
    sweep__record_bases_free(&r->bases);
    free(r);
    w->rec = NULL;
}

void sweep__record_stop(sweep_server *s, const char *reason)
{
    for (unsigned i = 0; i < s->world_count; i++)
        sweep__record_world_stop(s->worlds[i], reason);
}

void sweep__record_open(sweep__served *w, const sweep__session *ss)
{
    size_t size = 0;
    for (int pass = 0; pass < 2; pass++) {
        out o = {NULL, 0};
        if (pass == 1 && !(o.at = begin(w, SWEEP_RECORD_OPEN, size)))
            return;
        put_u64(&o, ss->id);
        put_u8(&o, (uint8_t)ss->own.role);
        put_u8(&o, (uint8_t)ss->transport);
        put_str(&o, ss->own.identity);
        put_str(&o, ss->client_name);
        /* Only when it is not the protocol's own: the log of every other
         * session holds the bytes it held before sessions agreed sizes. */
        if (ss->transport == SWEEP__UDP && ss->udp_fit.datagram != SWEEP_UDP_MAX_DATAGRAM)
            put_u32(&o, ss->udp_fit.datagram);
        size = o.n;
    }
}

void sweep__record_close(sweep__served *w, const sweep__session *ss, const char *reason)
{
    size_t size = 0;
    for (int pass = 0; pass < 2; pass++) {
        out o = {NULL, 0};
        if (pass == 1 && !(o.at = begin(w, SWEEP_RECORD_CLOSE, size)))
            return;
        put_u64(&o, ss->id);
        put_str(&o, reason);
        size = o.n;
    }
    if (w->rec)
        sweep__record_base_forget(&w->rec->bases, ss->id);
}

/* A request as a patch of its session's base (record_patch.h), when it
 * has the base's length and the patch is at most half of it: 1, or 0 for
 * the caller to write it whole. */
static int record_patch(sweep__served *w, uint64_t session, const uint8_t *bytes, size_t len)
{
    sweep__recorder *r = w->rec;
    const sweep__record_base *b = sweep__record_base_of(&r->bases, session);
    if (!b || b->len != len)
        return 0;
    uint8_t patch[SWEEP__RECORD_BASE_MAX / 2];
    size_t n = sweep__record_patch_make(b->bytes, bytes, len, patch, len / 2);
    if (n == SIZE_MAX || n == 0) /* a patch has a run at least */
        return 0;
    uint8_t *p = begin(w, SWEEP_RECORD_IN_PATCH, 8 + n);
    if (!p)
        return 1;
    r->request_at = (size_t)(p - r->buf) - 5;
    r->answer_open = 1;
    out o = {p, 0};
    put_u64(&o, session);
    put(&o, patch, n);
    return 1;
}

void sweep__record_message(sweep__served *w, uint8_t type, uint64_t session, const uint8_t *bytes, size_t len)
{
    if (type == SWEEP_RECORD_IN && w->rec) {
        w->rec->moved.count = w->rec->moved.taken = 0;
        w->rec->request_session = session;
        if (!w->rec->failed && record_patch(w, session, bytes, len))
            return;
    }
    uint8_t *p = begin(w, type, 8 + len);
    if (!p)
        return;
    if (type == SWEEP_RECORD_IN) {
        sweep__recorder *r = w->rec;
        r->request_at = (size_t)(p - r->buf) - 5;
        r->answer_open = 1;
        /* The readers keep a short whole request as its session's base:
         * so does the writer, or, out of memory, it has none (and writes
         * the session's next request whole). */
        if (len <= SWEEP__RECORD_BASE_MAX && sweep__record_base_set(&r->bases, session, bytes, (uint32_t)len) != 0)
            sweep__record_base_forget(&r->bases, session);
    }
    out o = {p, 0};
    put_u64(&o, session);
    put(&o, bytes, len);
}

void sweep__record_drop_request(sweep__served *w)
{
    sweep__recorder *r = w->rec;
    if (!r || r->failed)
        return;
    if (r->request_at >= SWEEP_RECORD_FRAME_HEADER) {
        r->len = r->request_at;
        r->request_at = 0;
        r->answer_open = 0;
        /* A whole request taken back was its session's base in the writer
         * only: the session writes its next one whole. */
        sweep__record_base_forget(&r->bases, r->request_session);
        return;
    }
    /* Its IN went out with a frame flushed in the middle of it: a replay
     * of what is written would not match, so it ends before. */
    sweep__log(SWEEP_LOG_ERROR, "record_failed",
               "world=%u file=%s error=\"a request refused for want of memory is already written\": recording of this "
               "world stops",
               w->index, r->path);
    r->failed = 1;
}

void sweep__record_id(sweep__served *w, uint32_t entity)
{
    uint8_t *p = begin(w, SWEEP_RECORD_ID, 4);
    if (p)
        put_u32_at(p, entity);
}

void sweep__record_move(sweep__served *w, uint64_t session, const sweep_msg_move *mv, const sweep_msg_move_result *res)
{
    /* Room for the full image; the compact one it writes is known once
     * written, as a RESULTS is. */
    size_t bound = sweep__record_move_len(res->contact_count);
    uint8_t *p = begin(w, SWEEP_RECORD_MOVE, bound);
    if (!p)
        return;
    size_t n = sweep__record_move_encode(p, 1, session, mv->mode, mv->buttons, mv->velocity,
                                         sweep__record_move_cut_forgiven(res), res);
    w->rec->len -= bound - n;
    put_u32_at(p - 4, (uint32_t)n);
    sweep__record_moved *m = &w->rec->moved;
    if (m->count == m->cap) {
        uint32_t ncap = m->cap ? 2 * m->cap : 64;
        const sweep_msg_move_result **n = sweep__realloc(m->res, ncap * sizeof *n);
        if (!n) {
            /* A RESULTS would take its result for the next MOVE's. */
            sweep__log(SWEEP_LOG_ERROR, "record_failed",
                       "world=%u file=%s error=\"out of memory\": recording of this world stops", w->index,
                       w->rec->path);
            w->rec->failed = 1;
            return;
        }
        m->res = n;
        m->cap = ncap;
    }
    m->res[m->count++] = res;
}

void sweep__record_results(sweep__served *w, uint64_t session, const sweep_message *m)
{
    uint32_t count = m->kind == SWEEP_MSG_MOVE_RESULT_BATCH ? m->as.move_result_batch.count : 1;
    size_t bound = sweep__record_results_bound(count);
    uint8_t *p = begin(w, SWEEP_RECORD_RESULTS, bound);
    if (!p)
        return;
    /* Room for the longest; what it takes is known once written. */
    sweep__recorder *r = w->rec;
    size_t n = sweep__record_results_encode(p, 1, session, m, &r->moved);
    /* The first answer to a request, to its session at the tick the log
     * last named, as an ANSWER: the readers know the 24 bytes left out. */
    if (r->answer_open && sweep__record_answer_fits(p, r->request_session, r->answer_tick)) {
        n = sweep__record_answer_from(p, n);
        p[-5] = SWEEP_RECORD_ANSWER;
    }
    r->answer_open = 0;
    r->len -= bound - n;
    put_u32_at(p - 4, (uint32_t)n);
}

void sweep__record_tick(sweep__served *w)
{
    uint8_t *p = begin(w, SWEEP_RECORD_TICK, 8);
    if (!p)
        return;
    w->rec->moved.count = w->rec->moved.taken = 0;
    w->rec->answer_open = 0;
    w->rec->answer_tick = w->world->tick;
    out o = {p, 0};
    put_u64(&o, w->world->tick);
}

void sweep__record_hash(sweep__served *w)
{
    uint8_t *p = begin(w, SWEEP_RECORD_HASH, 16);
    if (!p)
        return;
    out o = {p, 0};
    put_u64(&o, w->world->tick);
    put_u64(&o, sweep__world_state_hash(w->world));
}
