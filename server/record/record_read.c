/*
 * record_read.c - reading a session log (record.h), read-only and checked:
 * every frame's checksum before any record of it is believed, every length
 * against what holds it.
 */
#define _GNU_SOURCE /* SCHED_IDLE, sched_getaffinity */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>

#include "protocol/format.h"
#include "protocol/framing.h"
#include "server/record/record.h"
#include "server/record/record_move.h"
#include "server/record/record_patch.h"
#include "server/record/record_results.h"
#include "server/record/record_window.h"

/* Streamed (sweep_record_open_stream): a run of the file's bytes held in
 * memory, from file offset `start`; `len` of its `cap` bytes read. */
typedef struct chunk {
    struct chunk *next;
    uint8_t *mem;
    size_t cap, len;
    uint64_t start;
} chunk;

struct sweep_record_reader {
    char path[1024];
    /* The bytes the current frame lies in: data[i] is the file's byte
     * base + i. Mapped, the whole file (base 0); streamed, the chunk that
     * holds the frame. body_pos and body_end count from data. */
    const uint8_t *data;
    uint64_t base;
    const uint8_t *map; /* mapped: the file; NULL when streamed */
    size_t size;
    size_t pos;       /* next frame, in the file */
    size_t body_pos;  /* next record in the current frame */
    size_t body_end;  /* end of the current frame; body_pos == body_end: none */
    /* Streamed: the descriptor read from, the chunk being read into, the
     * older chunks whose records the caller may still hold (oldest first),
     * chunks to use again, and how far the caller let go of its records
     * (sweep_record_release). */
    int fd;
    chunk *cur, *kept, *kept_last, *spare;
    unsigned spares;
    uint64_t released;
    uint8_t *head_text; /* the HEAD's strings, copied: its frame may go */
    int truncated;
    uint64_t truncated_at;
    uint64_t bound; /* longest frame this log can hold (sweep_record_frame_bound) */
    sweep_record_head head;
    /* sweep_record_check_ahead: every frame that ends at or before
     * verified_end had its checksum computed by the thread, and it
     * matched. */
    pthread_t ahead;
    int ahead_started;
    atomic_int ahead_stop;
    /* On a line of its own: the thread writes it every frame. */
    _Alignas(SWEEP__CACHE_LINE) atomic_size_t verified_end;
    /* sweep__record_plan_ahead: the thread's lean groups (plan.items
     * NULL when it does not plan). */
    sweep__plan_queue plan;
    atomic_int plan_stop;
    /* map_ahead: the log's pages before `mapped` are in the page table;
     * page the system's page size; 0 when they are left to page faults
     * (while the HEAD is read at open, or madvise refused). */
    size_t mapped, page;
    /* Version 6: each session's base (record_patch.h), and the requests
     * made of patches, handed out in turn (record.h: valid while three
     * more are made). */
    sweep__record_bases bases;
    unsigned made_next;
    uint8_t made[4][SWEEP__RECORD_BASE_MAX];
    /* Version 7: what an ANSWER leaves out (record.h): the session of the
     * last IN and whether it still waits for its first RESULTS, and the
     * world's tick as the log last said it; the RESULTS made of ANSWERs,
     * handed out in turn. */
    uint64_t answer_session, answer_tick;
    int answer_open;
    unsigned answered_next;
    uint8_t answered[4][SWEEP__RECORD_ANSWER_MAX];
};

#define PLAN_CAP 16384u

static const char *const type_names[] = {"?",   "HEAD", "OPEN", "CLOSE", "IN",      "ID",      "OUT",
                                         "TICK", "HASH", "END", "MOVE",  "RESULTS", "IN_PATCH", "ANSWER"};

const char *sweep_record_type_name(unsigned type)
{
    return type < sizeof type_names / sizeof type_names[0] ? type_names[type] : "?";
}

static inline uint32_t u32_at(const uint8_t *p)
{
    return sweep__rd32(p); /* one load where the host is little-endian */
}

static inline uint64_t u64_at(const uint8_t *p)
{
    return sweep__rd64(p);
}

/* The file offset of data[at]. */
static inline size_t file_at(const sweep_record_reader *r, size_t at)
{
    return (size_t)r->base + at;
}

/* A cursor over one record's payload: reads past its end set `bad`. */
typedef struct cursor {
    const uint8_t *p;
    size_t left;
    int bad;
} cursor;

static const uint8_t *take(cursor *c, size_t n)
{
    if (c->bad || n > c->left) {
        c->bad = 1;
        return NULL;
    }
    const uint8_t *at = c->p;
    c->p += n;
    c->left -= n;
    return at;
}

static uint8_t get_u8(cursor *c)
{
    const uint8_t *p = take(c, 1);
    return p ? p[0] : 0;
}

static uint32_t get_u32(cursor *c)
{
    const uint8_t *p = take(c, 4);
    return p ? u32_at(p) : 0;
}

static uint64_t get_u64(cursor *c)
{
    const uint8_t *p = take(c, 8);
    return p ? u64_at(p) : 0;
}

static double get_f64(cursor *c)
{
    uint64_t b = get_u64(c);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static sweep_record_bytes get_str(cursor *c)
{
    sweep_record_bytes s = {NULL, 0};
    uint32_t n = get_u32(c);
    const uint8_t *p = take(c, n);
    if (p) {
        s.ptr = p;
        s.len = n;
    }
    return s;
}

static sweep_record_bytes get_rest(cursor *c)
{
    sweep_record_bytes s = {c->p, (uint32_t)c->left};
    c->p += c->left;
    c->left = 0;
    return s;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void parse_head(cursor *c, sweep_record_head *h, uint32_t version)
{
    h->segment = get_u32(c);
    h->started_unix_ms = get_u64(c);
    h->server_version = get_str(c);
    h->protocol_version = get_u32(c);
    h->world_index = get_u32(c);
    h->map_name = get_str(c);
    h->map_stem = get_str(c);
    h->map_path = get_str(c);
    const uint8_t *hash = take(c, 32);
    if (hash)
        memcpy(h->content_hash, hash, 32);
    h->tick_rate = get_f64(c);
    h->time_bank = get_f64(c);
    h->allow_free_move = get_u8(c);
    h->players_block = get_u8(c);
    h->max_entities = get_u32(c);
    h->max_batch = get_u32(c);
    h->max_frame = get_u32(c);
    h->hash_every = get_u32(c);
    h->first_tick = get_u64(c);
    h->previous = get_str(c);
    /* Version 3 adds the server role's cap; before, every role had one. */
    h->max_entities_server = version >= 3 ? get_u32(c) : h->max_entities;
    /* Version 4 adds the query settings (before, worlds kept no history)
     * and the seed of the entity ids. */
    h->history_ms = version >= 4 ? get_u32(c) : 0;
    h->rewind_cap_ms = version >= 4 ? get_u32(c) : 0;
    h->history_entities = version >= 4 ? get_u32(c) : 0;
    h->query_rate = version >= 4 ? get_f64(c) : 0.0;
    h->id_seed = version >= 4 ? get_u64(c) : 0;
}

int sweep_record_head_check(const sweep_record_head *h, char *why, size_t whylen)
{
    if (h->max_frame < 1 || h->max_frame > SWEEP_RECORD_MAX_FRAME_LIMIT)
        return fail(why, whylen, "max_frame %u is outside 1 to %u", h->max_frame, SWEEP_RECORD_MAX_FRAME_LIMIT);
    if (h->max_batch < 1 || h->max_batch > SWEEP_RECORD_MAX_BATCH_LIMIT)
        return fail(why, whylen, "max_batch %u is outside 1 to %u", h->max_batch, SWEEP_RECORD_MAX_BATCH_LIMIT);
    if (!(h->tick_rate > 0.0 && h->tick_rate <= SWEEP_RECORD_TICK_RATE_LIMIT))
        return fail(why, whylen, "tick_rate %g is outside (0, %g]", h->tick_rate, SWEEP_RECORD_TICK_RATE_LIMIT);
    if (!(h->time_bank >= 0.0 && h->time_bank <= SWEEP_RECORD_TIME_BANK_LIMIT))
        return fail(why, whylen, "time_bank %g is outside 0 to %g", h->time_bank, SWEEP_RECORD_TIME_BANK_LIMIT);
    if (!(h->query_rate >= 0.0 && h->query_rate < INFINITY))
        return fail(why, whylen, "query_rate %g is not a rate", h->query_rate);
    if (h->history_ms > SWEEP_RECORD_HISTORY_MS_LIMIT || h->rewind_cap_ms > SWEEP_RECORD_HISTORY_MS_LIMIT)
        return fail(why, whylen, "history_ms %u or rewind_cap_ms %u is above %u", h->history_ms, h->rewind_cap_ms,
                    SWEEP_RECORD_HISTORY_MS_LIMIT);
    if (h->max_entities > SWEEP_RECORD_COUNT_LIMIT || h->max_entities_server > SWEEP_RECORD_COUNT_LIMIT ||
        h->history_entities > SWEEP_RECORD_COUNT_LIMIT)
        return fail(why, whylen, "max_entities %u, max_entities_server %u or history_entities %u is above %u",
                    h->max_entities, h->max_entities_server, h->history_entities, SWEEP_RECORD_COUNT_LIMIT);
    return 0;
}

/* How far past the frame being read the log's pages are put in the page
 * table (map_ahead), and how far the reader comes before it asks again. */
#define MAP_AHEAD (1u << 20)
#define MAP_AGAIN (MAP_AHEAD / 2)

/* Puts the log's pages from `mapped` to MAP_AHEAD past `at` in the page
 * table with one system call (MADV_POPULATE_READ, Linux 5.14), before
 * the checksum and the records touch them. Left to page faults, the 1,772
 * pages of a 7.3 MB log took 2.4 ms to touch on the machine this was
 * written on (a virtual machine, where a fault is dear), populated 0.2 ms
 * and then 1.3 ms to touch, against about 10 ms for the whole run of its
 * replay at the core depth on one CPU. A refusal (an older kernel) leaves
 * the pages to faults, as before: nothing the reader says depends on it. */
static __attribute__((noinline)) void map_ahead(sweep_record_reader *r, size_t at)
{
#ifdef MADV_POPULATE_READ
    size_t from = r->mapped > at ? r->mapped : at, to = at + MAP_AHEAD < r->size ? at + MAP_AHEAD : r->size;
    from &= ~(r->page - 1);
    if (to > from && madvise((void *)(uintptr_t)(r->data + from), to - from, MADV_POPULATE_READ) != 0) {
        r->page = 0;
        return;
    }
    r->mapped = to;
#else
    (void)at;
    r->page = 0;
#endif
}

/* ---- streamed: the file read into chunks used again ------------------ */

/* A chunk's size: one pread fills it, about twenty frames of a 16-player
 * world. Summing a 7.3 MB log read 128 KB at a time into one buffer took
 * 2.2 ms on the virtual machine this was written on, against 4.6 to 7.6
 * ms to map it (populated) and sum it: there each newly mapped page costs
 * 1 to 3 us the first time it is touched, and a buffer used again has
 * none. 64 KB and 1 MB chunks were slower (2.4 and 4.0 ms). */
#define STREAM_CHUNK (128u << 10)
/* Chunks made at open: the current one and two spares, since the chunk
 * before the current one may still hold records the caller keeps (a group
 * that ended there) when the next one is needed. At most this many spares
 * are kept afterwards. */
#define STREAM_SPARES 3u

/* A chunk of at least `cap` bytes, its pages in place (MAP_POPULATE): a
 * first touch of an anonymous page cost about 15 us on that machine, so a
 * chunk is made at open, or for a frame larger than any chunk, and used
 * again. */
static chunk *chunk_new(size_t cap)
{
    chunk *k = malloc(sizeof *k);
    if (!k)
        return NULL;
    void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED) {
        free(k);
        return NULL;
    }
    *k = (chunk){NULL, m, cap, 0, 0};
    return k;
}

static void chunk_free(chunk *k)
{
    munmap(k->mem, k->cap);
    free(k);
}

static void chunks_free(chunk *k)
{
    while (k) {
        chunk *next = k->next;
        chunk_free(k);
        k = next;
    }
}

/* Keeps k to use again, or frees it (a chunk made for one large frame, or
 * more spares than a reader needs). */
static void chunk_spare(sweep_record_reader *r, chunk *k)
{
    if (k->cap != STREAM_CHUNK || r->spares >= STREAM_SPARES) {
        chunk_free(k);
        return;
    }
    k->next = r->spare;
    r->spare = k;
    r->spares++;
}

/* A chunk of at least n bytes for the frame at `at`: the kept chunks the
 * caller let go of are spares again first. NULL when out of memory. */
static chunk *chunk_take(sweep_record_reader *r, size_t n)
{
    while (r->kept && r->kept->start + r->kept->len <= r->released) {
        chunk *k = r->kept;
        r->kept = k->next;
        if (!r->kept)
            r->kept_last = NULL;
        chunk_spare(r, k);
    }
    for (chunk **p = &r->spare; *p; p = &(*p)->next) {
        if ((*p)->cap >= n) {
            chunk *k = *p;
            *p = k->next;
            r->spares--;
            k->next = NULL;
            return k;
        }
    }
    size_t cap = n <= STREAM_CHUNK ? STREAM_CHUNK : (n + 0xFFFFu) & ~(size_t)0xFFFFu;
    return chunk_new(cap);
}

/* Makes the file's bytes [at, at + n) one run in the current chunk (at is
 * where the next frame starts, never before the chunk), reading what is
 * missing, as much as the chunk holds in one pread. 1; 0 when the file
 * ends first (it was cut since it was opened: a torn tail); -1 with err
 * said. A frame that does not fit behind the chunk's bytes starts a new
 * chunk, the bytes of it already read copied there; the old chunk is kept
 * until the caller lets go of its records (sweep_record_release). */
static int stream_have(sweep_record_reader *r, size_t at, size_t n, char *err, size_t errlen)
{
    chunk *k = r->cur;
    if (at + n <= k->start + k->len)
        return 1;
    if (at + n > k->start + k->cap) {
        chunk *nk = chunk_take(r, n);
        if (!nk)
            return fail(err, errlen, "%s: out of memory for a frame of %zu bytes at byte %zu", r->path, n, at);
        size_t carry = (size_t)(k->start + k->len - at);
        memcpy(nk->mem, k->mem + (at - k->start), carry);
        nk->start = at;
        nk->len = carry;
        k->len = at - k->start; /* what was handed out of it */
        if (r->kept_last)
            r->kept_last->next = k;
        else
            r->kept = k;
        r->kept_last = k;
        k->next = NULL;
        r->cur = k = nk;
        r->data = k->mem;
        r->base = k->start;
    }
    while (k->start + k->len < at + n) {
        size_t room = k->cap - k->len, left = r->size - (size_t)(k->start + k->len);
        ssize_t got = pread(r->fd, k->mem + k->len, room < left ? room : left, (off_t)(k->start + k->len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fail(err, errlen, "%s: cannot read at byte %zu: %s", r->path, (size_t)(k->start + k->len),
                        strerror(errno));
        if (got == 0)
            return 0;
        k->len += (size_t)got;
    }
    return 1;
}

/* A torn tail: the log ends inside the frame at `at`. */
static int cut_here(sweep_record_reader *r, size_t at)
{
    r->truncated = 1;
    r->truncated_at = at;
    r->pos = r->size;
    return 0;
}

/* Moves to the next frame: 1, 0 at the end (or a torn tail), -1. Once a
 * frame, and apart from sweep_record_next, whose records need none of
 * its registers. */
static __attribute__((noinline)) int next_frame(sweep_record_reader *r, char *err, size_t errlen)
{
    if (r->pos == r->size)
        return 0;
    size_t at = r->pos;
    if (r->size - at < SWEEP_RECORD_FRAME_HEADER)
        return cut_here(r, at);
    if (!r->map) {
        int h = stream_have(r, at, SWEEP_RECORD_FRAME_HEADER, err, errlen);
        if (h <= 0)
            return h < 0 ? h : cut_here(r, at);
    }
    uint32_t len = u32_at(r->data + (at - r->base)), crc = u32_at(r->data + (at - r->base) + 4);
    if (len == 0 || len > r->bound)
        return fail(err, errlen, "%s: frame at byte %zu: length %u is longer than any frame of this log (%llu) "
                    "(corrupt log)", r->path, at, len, (unsigned long long)r->bound);
    if (r->size - at - SWEEP_RECORD_FRAME_HEADER < len)
        return cut_here(r, at);
    if (r->page && at + SWEEP_RECORD_FRAME_HEADER + len + MAP_AGAIN > r->mapped && r->mapped < r->size)
        map_ahead(r, at);
    if (!r->map) {
        int h = stream_have(r, at, SWEEP_RECORD_FRAME_HEADER + (size_t)len, err, errlen);
        if (h <= 0)
            return h < 0 ? h : cut_here(r, at);
    }
    /* From here on, the frame's place in data. */
    size_t in = at - r->base;
    const uint8_t *body = r->data + in + SWEEP_RECORD_FRAME_HEADER;
    /* A frame the thread of sweep_record_check_ahead vouched for is not
     * summed again; any other (the thread is behind, or stopped at a bad
     * frame) is summed here, so an error is this thread's, named alike. */
    if (at + SWEEP_RECORD_FRAME_HEADER + len <= atomic_load_explicit(&r->verified_end, memory_order_acquire)) {
        r->body_pos = in + SWEEP_RECORD_FRAME_HEADER;
        r->body_end = r->body_pos + len;
        r->pos = at + SWEEP_RECORD_FRAME_HEADER + len;
        return 1;
    }
    /* libdeflate's CRC-32 (the same polynomial and bits as zlib's, which
     * the writer used to call) folds with carry-less multiplication where
     * the CPU has it: the checksum of every frame was most of what reading
     * a log cost, on a par with the core's own work per move. */
    uint32_t got = libdeflate_crc32(0, body, len);
    if (got != crc)
        return fail(err, errlen, "%s: frame at byte %zu (%u bytes): checksum %08x, the frame says %08x (corrupt log)",
                    r->path, at, len, got, crc);
    r->body_pos = in + SWEEP_RECORD_FRAME_HEADER;
    r->body_end = r->body_pos + len;
    r->pos = at + SWEEP_RECORD_FRAME_HEADER + len;
    return 1;
}

/* The readers' one rule for bases (record_patch.h): in a version 6 log a
 * whole request of at most SWEEP__RECORD_BASE_MAX bytes is its session's
 * base. 0, or -1 when out of memory. */
static inline int keep_base(sweep_record_reader *r, uint64_t session, const uint8_t *bytes, size_t len)
{
    if (r->head.version < 6 || len > SWEEP__RECORD_BASE_MAX)
        return 0;
    return sweep__record_base_set(&r->bases, session, bytes, (uint32_t)len);
}

/* Any record the fast path of sweep_record_next does not take: the rare
 * ones, and every bad one, whose error is named here. Kept apart so the
 * fast path needs no stack for it. */
static __attribute__((noinline)) int parse_slow(sweep_record_reader *r, sweep_record *out, size_t at, uint8_t type,
                                                uint32_t len, char *err, size_t errlen)
{
    cursor c = {r->data + at + 5, len, 0};
    switch (type) {
    case SWEEP_RECORD_HEAD:
        parse_head(&c, &out->head, r->head.version);
        out->head.version = r->head.version; /* the file's, from its header */
        break;
    case SWEEP_RECORD_OPEN:
        out->session = get_u64(&c);
        out->role = get_u8(&c);
        out->transport = get_u8(&c);
        out->text = get_str(&c);
        out->text2 = get_str(&c);
        out->datagram = c.left >= 4 ? get_u32(&c) : SWEEP_UDP_MAX_DATAGRAM;
        break;
    case SWEEP_RECORD_CLOSE:
        out->session = get_u64(&c);
        out->text = get_str(&c);
        if (!c.bad)
            sweep__record_base_forget(&r->bases, out->session);
        break;
    case SWEEP_RECORD_IN:
    case SWEEP_RECORD_OUT:
        out->session = get_u64(&c);
        out->bytes = get_rest(&c);
        if (out->bytes.len == 0)
            c.bad = 1;
        else if (type == SWEEP_RECORD_IN && keep_base(r, out->session, out->bytes.ptr, out->bytes.len) != 0)
            return fail(err, errlen, "%s: record at byte %zu (IN): out of memory keeping session %" PRIu64
                        "'s request", r->path, file_at(r, at), out->session);
        else if (type == SWEEP_RECORD_IN)
            r->answer_session = out->session, r->answer_open = 1;
        break;
    case SWEEP_RECORD_IN_PATCH: {
        /* read_fast takes every good one: this one is not. */
        if (r->head.version < 6)
            return fail(err, errlen, "%s: record at byte %zu: IN_PATCH in a version %u log, which has none "
                        "(corrupt log)", r->path, file_at(r, at), r->head.version);
        uint64_t session = get_u64(&c);
        if (c.bad || len <= 8) { /* a patch has a run at least */
            c.bad = 1;
            break;
        }
        const sweep__record_base *b = sweep__record_base_of(&r->bases, session);
        if (!b)
            return fail(err, errlen, "%s: record at byte %zu (IN_PATCH): session %" PRIu64 " has no whole request "
                        "before it in this segment to patch (corrupt log)", r->path, file_at(r, at), session);
        return fail(err, errlen, "%s: record at byte %zu (IN_PATCH): its runs are cut short or reach past the "
                    "%u bytes of its base (corrupt log)", r->path, file_at(r, at), b->len);
    }
    case SWEEP_RECORD_ID:
        out->entity = get_u32(&c);
        break;
    case SWEEP_RECORD_TICK:
        out->tick = get_u64(&c);
        if (!c.bad && !c.left)
            r->answer_tick = out->tick, r->answer_open = 0;
        break;
    case SWEEP_RECORD_HASH:
        out->tick = get_u64(&c);
        out->hash = get_u64(&c);
        break;
    case SWEEP_RECORD_END:
        out->tick = get_u64(&c);
        out->text = get_str(&c);
        break;
    case SWEEP_RECORD_MOVE: {
        char why[160];
        if (r->head.version < 2)
            return fail(err, errlen, "%s: record at byte %zu: MOVE in a version %u log, which has none (corrupt log)",
                        r->path, file_at(r, at), r->head.version);
        if (sweep__record_move_check(c.p, len, sweep__record_move_compact_in(r->head.version), why, sizeof why) != 0)
            return fail(err, errlen, "%s: record at byte %zu (MOVE): %s (corrupt log)", r->path, file_at(r, at), why);
        out->session = u64_at(c.p);
        out->entity = u32_at(c.p + 8);
        out->bytes = get_rest(&c);
        break;
    }
    case SWEEP_RECORD_RESULTS: {
        char why[160];
        if (r->head.version < 5)
            return fail(err, errlen,
                        "%s: record at byte %zu: RESULTS in a version %u log, which has none (corrupt log)", r->path,
                        file_at(r, at), r->head.version);
        if (sweep__record_results_check(c.p, len, sweep__record_move_compact_in(r->head.version), why, sizeof why) !=
            0)
            return fail(err, errlen, "%s: record at byte %zu (RESULTS): %s (corrupt log)", r->path, file_at(r, at), why);
        out->session = u64_at(c.p);
        out->bytes = get_rest(&c);
        r->answer_open = 0;
        break;
    }
    case SWEEP_RECORD_ANSWER: {
        /* read_fast takes every good one: this one is not. */
        char why[160];
        if (r->head.version < 7)
            return fail(err, errlen, "%s: record at byte %zu: ANSWER in a version %u log, which has none (corrupt log)",
                        r->path, file_at(r, at), r->head.version);
        if (!r->answer_open)
            return fail(err, errlen, "%s: record at byte %zu (ANSWER): no request before it waits for its answer (an "
                        "ANSWER is the first RESULTS after an IN, before any TICK) (corrupt log)", r->path,
                        file_at(r, at));
        if (len < SWEEP__RECORD_ANSWER_FIXED || len > SWEEP__RECORD_ANSWER_MAX - SWEEP__RECORD_ANSWER_GROWS) {
            c.bad = 1;
            break;
        }
        uint8_t *o = r->answered[r->answered_next & 3u];
        size_t n = sweep__record_answer_expand(c.p, len, r->answer_session, r->answer_tick, o);
        if (sweep__record_results_check(o, n, 1, why, sizeof why) != 0)
            return fail(err, errlen, "%s: record at byte %zu (ANSWER): %s (corrupt log)", r->path, file_at(r, at), why);
        return fail(err, errlen, "%s: record at byte %zu (ANSWER): not read (a reader's fault)", r->path,
                    file_at(r, at));
    }
    default:
        return fail(err, errlen, "%s: record at byte %zu: unknown type %u (corrupt log, or a newer format)", r->path,
                    file_at(r, at), type);
    }
    if (c.bad || c.left)
        return fail(err, errlen, "%s: record at byte %zu (%s): its %u bytes do not hold its fields (corrupt log)",
                    r->path, file_at(r, at), sweep_record_type_name(type), len);
    r->body_pos = at + 5 + len;
    return 1;
}

/* The records of every move and tick (a replay reads three or four a
 * move) straight from their fixed places: 1 with *out set (only the fields
 * of its type: zeroing the whole struct, its HEAD most of it, cost more
 * than parsing most records; every reader looks at the type first) and the
 * record passed; 0 for any other type, or one that is bad, for parse_slow.
 * Inlined into sweep_record_next so that its common path needs nothing but
 * scratch registers (saving and restoring others was a fifth of it). */
static inline __attribute__((always_inline)) int read_fast(sweep_record_reader *r, sweep_record *out, size_t at,
                                                           const uint8_t *p, uint8_t type, uint32_t len)
{
    const uint8_t *q = p + 5;
    switch (type) {
    case SWEEP_RECORD_IN:
        /* A version 6 log's short whole request is its session's base
         * (out of memory: parse_slow says so). */
        if (len <= 8 || keep_base(r, u64_at(q), q + 8, len - 8) != 0)
            return 0;
        out->session = u64_at(q);
        out->bytes.ptr = q + 8;
        out->bytes.len = len - 8;
        r->answer_session = out->session, r->answer_open = 1;
        break;
    case SWEEP_RECORD_OUT:
        if (len <= 8)
            return 0;
        out->session = u64_at(q);
        out->bytes.ptr = q + 8;
        out->bytes.len = len - 8;
        break;
    case SWEEP_RECORD_IN_PATCH: {
        /* The IN it stands for, made in the reader's next place. */
        if (len <= 8 || r->head.version < 6)
            return 0;
        const sweep__record_base *b = sweep__record_base_of(&r->bases, u64_at(q));
        uint8_t *o = r->made[r->made_next & 3u];
        if (!b || sweep__record_patch_apply(b->bytes, b->len, q + 8, len - 8, o) != 0)
            return 0;
        r->made_next++;
        out->session = u64_at(q);
        out->bytes.ptr = o;
        out->bytes.len = b->len;
        r->answer_session = out->session, r->answer_open = 1;
        type = SWEEP_RECORD_IN;
        break;
    }
    case SWEEP_RECORD_MOVE:
        if (r->head.version < 2 || !sweep__record_move_ok(q, len, sweep__record_move_compact_in(r->head.version)))
            return 0;
        out->session = u64_at(q);
        out->entity = u32_at(q + 8);
        out->bytes.ptr = q;
        out->bytes.len = len;
        break;
    case SWEEP_RECORD_RESULTS:
        if (r->head.version < 5 || !sweep__record_results_ok(q, len, sweep__record_move_compact_in(r->head.version)))
            return 0;
        out->session = u64_at(q);
        out->bytes.ptr = q;
        out->bytes.len = len;
        r->answer_open = 0;
        break;
    case SWEEP_RECORD_ANSWER: {
        /* The RESULTS it stands for, made in the reader's next place. */
        if (r->head.version < 7 || !r->answer_open || len < SWEEP__RECORD_ANSWER_FIXED ||
            len > SWEEP__RECORD_ANSWER_MAX - SWEEP__RECORD_ANSWER_GROWS)
            return 0;
        uint8_t *o = r->answered[r->answered_next & 3u];
        size_t n = sweep__record_answer_expand(q, len, r->answer_session, r->answer_tick, o);
        if (!sweep__record_results_ok(o, n, 1))
            return 0;
        r->answered_next++;
        r->answer_open = 0;
        out->session = r->answer_session;
        out->bytes.ptr = o;
        out->bytes.len = (uint32_t)n;
        type = SWEEP_RECORD_RESULTS;
        break;
    }
    case SWEEP_RECORD_TICK:
        if (len != 8)
            return 0;
        out->tick = u64_at(q);
        r->answer_tick = out->tick, r->answer_open = 0;
        break;
    case SWEEP_RECORD_ID:
        if (len != 4)
            return 0;
        out->entity = u32_at(q);
        break;
    default:
        return 0;
    }
    out->type = type;
    out->offset = file_at(r, at);
    r->body_pos = at + 5 + len;
    return 1;
}

/* sweep_record_next in full: a new frame, a bad record, and every record
 * of the types fast_record leaves. */
static __attribute__((noinline)) int next_slow(sweep_record_reader *r, sweep_record *out, char *err, size_t errlen)
{
    while (r->body_pos == r->body_end) {
        int f = next_frame(r, err, errlen);
        if (f <= 0)
            return f;
    }
    size_t at = r->body_pos;
    if (r->body_end - at < 5)
        return fail(err, errlen, "%s: record at byte %zu: cut short by the end of its frame (corrupt log)", r->path,
                    file_at(r, at));
    const uint8_t *p = r->data + at;
    uint8_t type = p[0];
    uint32_t len = u32_at(p + 1);
    if (r->body_end - at - 5 < len)
        return fail(err, errlen, "%s: record at byte %zu (%s, %u bytes) runs past the end of its frame (corrupt log)",
                    r->path, file_at(r, at), sweep_record_type_name(type), len);
    if (read_fast(r, out, at, p, type, len))
        return 1;
    /* Only the fields of this type are set: a record is read per message
     * of the log, and zeroing the whole struct (its HEAD most of it) cost
     * more than parsing most records. Every reader looks at the type first. */
    out->type = type;
    out->offset = file_at(r, at);
    return parse_slow(r, out, at, type, len, err, errlen);
}

int sweep_record_next(sweep_record_reader *r, sweep_record *out, char *err, size_t errlen)
{
    /* A record of a move or a tick inside the current frame by read_fast;
     * whatever else, next_slow from the same place. */
    size_t at = r->body_pos;
    if (r->body_end - at >= 5) {
        const uint8_t *p = r->data + at;
        uint8_t type = p[0];
        uint32_t len = u32_at(p + 1);
        if (r->body_end - at - 5 >= len && read_fast(r, out, at, p, type, len))
            return 1;
    }
    return next_slow(r, out, err, errlen);
}

/* The HEAD's strings copied into the reader: a streamed reader lets the
 * HEAD's frame go, and the HEAD is the reader's to the end. */
static int keep_head_text(sweep_record_reader *r)
{
    sweep_record_bytes *s[] = {&r->head.server_version, &r->head.map_name, &r->head.map_stem, &r->head.map_path,
                               &r->head.previous};
    size_t n = 0, k = sizeof s / sizeof s[0];
    for (size_t i = 0; i < k; i++)
        n += s[i]->len;
    r->head_text = malloc(n ? n : 1);
    if (!r->head_text)
        return -1;
    n = 0;
    for (size_t i = 0; i < k; i++) {
        if (s[i]->len)
            memcpy(r->head_text + n, s[i]->ptr, s[i]->len);
        s[i]->ptr = r->head_text + n;
        n += s[i]->len;
    }
    return 0;
}

static sweep_record_reader *open_log(const char *path, int streamed, char *err, size_t errlen)
{
    /* Aligned as its fields the two threads share ask. */
    size_t bytes = (sizeof(sweep_record_reader) + SWEEP__CACHE_LINE - 1) / SWEEP__CACHE_LINE * SWEEP__CACHE_LINE;
    sweep_record_reader *r = aligned_alloc(SWEEP__CACHE_LINE, bytes);
    if (r)
        memset(r, 0, bytes);
    if (!r) {
        fail(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    r->fd = -1;
    snprintf(r->path, sizeof r->path, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(r);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        fail(err, errlen, "%s: not a regular file", path);
        close(fd);
        free(r);
        return NULL;
    }
    r->size = (size_t)st.st_size;
    if (r->size < SWEEP_RECORD_HEADER_SIZE) {
        fail(err, errlen, "%s: %zu bytes, shorter than a log's %u-byte header (not a sweep log, or cut short)", path,
             r->size, SWEEP_RECORD_HEADER_SIZE);
        close(fd);
        free(r);
        return NULL;
    }
    char sub[1200];
    if (streamed) {
        r->fd = fd;
        r->cur = chunk_new(STREAM_CHUNK);
        for (unsigned i = 1; i < STREAM_SPARES && r->cur; i++) {
            chunk *k = chunk_new(STREAM_CHUNK);
            if (!k)
                break;
            chunk_spare(r, k);
        }
        if (!r->cur || r->spares + 1 < STREAM_SPARES) {
            fail(err, errlen, "%s: out of memory", path);
            sweep_record_close(r);
            return NULL;
        }
        r->data = r->cur->mem;
        int h = stream_have(r, 0, SWEEP_RECORD_HEADER_SIZE, sub, sizeof sub);
        if (h <= 0) {
            fail(err, errlen, "%s", h < 0 ? sub : "cut short while it was opened");
            sweep_record_close(r);
            return NULL;
        }
    } else {
        void *m = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (m == MAP_FAILED) {
            fail(err, errlen, "%s: cannot map: %s", path, strerror(errno));
            free(r);
            return NULL;
        }
        r->data = r->map = m;
    }
    sweep_record first;
    if (memcmp(r->data, SWEEP_RECORD_MAGIC, 8) != 0) {
        fail(err, errlen, "%s: not a sweep log (no SWEEPLOG header)", path);
    } else if (u32_at(r->data + 8) < SWEEP_RECORD_VERSION_MIN || u32_at(r->data + 8) > SWEEP_RECORD_VERSION) {
        fail(err, errlen, "%s: log format version %u; this build reads versions %u to %u", path, u32_at(r->data + 8),
             SWEEP_RECORD_VERSION_MIN, SWEEP_RECORD_VERSION);
    } else {
        r->head.version = u32_at(r->data + 8);
        r->pos = SWEEP_RECORD_HEADER_SIZE;
        r->bound = 1u << 20; /* the first frame holds only the HEAD */
        int got = sweep_record_next(r, &first, sub, sizeof sub);
        if (got < 0)
            fail(err, errlen, "%s", sub);
        else if (got == 0)
            fail(err, errlen, "%s: no whole frame after the header (the recording stopped before its first tick)",
                 path);
        else if (first.type != SWEEP_RECORD_HEAD)
            fail(err, errlen, "%s: first record is %s at byte %llu, not HEAD (corrupt log)", path,
                 sweep_record_type_name(first.type), (unsigned long long)first.offset);
        else {
            r->head = first.head;
            r->answer_tick = r->head.first_tick;
            if (keep_head_text(r) != 0) {
                fail(err, errlen, "%s: out of memory", path);
                sweep_record_close(r);
                return NULL;
            }
            r->bound = sweep_record_frame_bound(&r->head);
            /* From the first frame the reader reads, not at open: the
             * pages are the run's to map. */
            long page = sysconf(_SC_PAGESIZE);
            r->page = r->map && page > 0 && (page & (page - 1)) == 0 ? (size_t)page : 0;
            return r;
        }
    }
    sweep_record_close(r);
    return NULL;
}

sweep_record_reader *sweep_record_open(const char *path, char *err, size_t errlen)
{
    return open_log(path, 0, err, errlen);
}

sweep_record_reader *sweep_record_open_stream(const char *path, char *err, size_t errlen)
{
    return open_log(path, 1, err, errlen);
}

void sweep_record_release(sweep_record_reader *r, uint64_t offset)
{
    uint64_t next = file_at(r, r->body_pos);
    if (offset > next)
        offset = next;
    if (offset > r->released)
        r->released = offset;
}

/* What a lean group of this log may hold: both framings, RESULTS from
 * version 5, compact MOVE images from version 6, ANSWERs from version 7. */
static unsigned lean_want(const sweep_record_reader *r)
{
    return SWEEP__LEAN_TCP | SWEEP__LEAN_UDP | (r->head.version >= 5 ? SWEEP__LEAN_RESULTS : 0) |
           (sweep__record_move_compact_in(r->head.version) ? SWEEP__LEAN_COMPACT : 0) |
           (r->head.version >= 7 ? SWEEP__LEAN_ANSWER : 0);
}

/* Queues one lean group for the reader, waiting while the queue is full;
 * 0 when told to stop (closing, or no more planning). */
static int plan_push(sweep_record_reader *r, size_t in_at, size_t group_end, unsigned ok)
{
    sweep__plan_queue *q = &r->plan;
    size_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
    /* The reader's tail is looked at only when the last look says full. */
    while (head - q->tail_seen == q->cap &&
           head - (q->tail_seen = atomic_load_explicit(&q->tail, memory_order_acquire)) == q->cap) {
        if (atomic_load_explicit(&r->ahead_stop, memory_order_relaxed) ||
            atomic_load_explicit(&r->plan_stop, memory_order_relaxed))
            return 0;
        /* A whole queue ahead of the replay: it has plenty to do. */
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    q->items[head & (q->cap - 1)] = (sweep__lean_plan){in_at, group_end, ok};
    atomic_store_explicit(&q->head, head + 1, memory_order_release);
    return 1;
}

/* The lean group after every IN record of the frame body [pos, end), as
 * the lean loop would find it; 0 when planning is over. */
static int plan_frame(sweep_record_reader *r, size_t pos, size_t end)
{
    const uint8_t *d = r->map;
    while (end - pos >= 5) {
        uint8_t t = d[pos];
        uint32_t len = u32_at(d + pos + 1);
        if (end - pos - 5 < len)
            break; /* the reader names it */
        size_t next = pos + 5 + (size_t)len;
        if ((t == SWEEP_RECORD_IN || t == SWEEP_RECORD_IN_PATCH) && len > 8) {
            unsigned ok = 0;
            uint32_t count;
            size_t group_end = sweep__record_lean_group(d, next, end, u64_at(d + pos + 5), lean_want(r), &ok,
                                                        &count);
            if (!plan_push(r, pos, group_end, group_end ? ok : 0))
                return 0;
            if (group_end)
                next = group_end;
        }
        pos = next;
    }
    return 1;
}

/* The thread of sweep_record_check_ahead: walks the frames from the first
 * as next_frame does, and publishes how far their checksums matched (and,
 * planning, each frame's lean groups after it). It stops at the end, at a
 * torn or bad frame (the reader finds and names it itself), or when told
 * to. */
static void *check_ahead(void *arg)
{
    sweep_record_reader *r = arg;
    size_t pos = SWEEP_RECORD_HEADER_SIZE;
    int planning = r->plan.items != NULL;
    while (!atomic_load_explicit(&r->ahead_stop, memory_order_relaxed)) {
        if (r->size - pos < SWEEP_RECORD_FRAME_HEADER)
            break;
        uint32_t len = u32_at(r->map + pos), crc = u32_at(r->map + pos + 4);
        if (len == 0 || len > r->bound || r->size - pos - SWEEP_RECORD_FRAME_HEADER < len)
            break;
        if (libdeflate_crc32(0, r->map + pos + SWEEP_RECORD_FRAME_HEADER, len) != crc)
            break;
        size_t body = pos + SWEEP_RECORD_FRAME_HEADER;
        pos = body + len;
        atomic_store_explicit(&r->verified_end, pos, memory_order_release);
        if (planning && (atomic_load_explicit(&r->plan_stop, memory_order_relaxed) || !plan_frame(r, body, pos)))
            planning = 0;
    }
    return NULL;
}

/* Its affinity, not the CPUs online: pinned to one CPU (taskset, a
 * cpuset), a second thread can only take the reader's own turns, even at
 * SCHED_IDLE, each of its slices a switch, and what it sums or plans in
 * them the reader would have done itself in the same time. */
long sweep__record_cpus(void)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        long n = CPU_COUNT(&set);
        if (n < online || online < 1)
            return n;
    }
    return online;
}

int sweep_record_check_ahead(sweep_record_reader *r)
{
    if (r->ahead_started)
        return 1;
    if (!r->map || sweep__record_cpus() < 2 || pthread_create(&r->ahead, NULL, check_ahead, r) != 0) {
        /* No thread, no plans: the lean loop scans every group itself
         * without asking a queue nobody fills. */
        free(r->plan.items);
        r->plan.items = NULL;
        return 0;
    }
    /* Only on a CPU nothing else wants: what the thread has not done the
     * reader does itself, so on a busy machine the thread would only take
     * the reader's turns (best effort: it runs either way). */
    struct sched_param idle = {0};
    pthread_setschedparam(r->ahead, SCHED_IDLE, &idle);
    r->ahead_started = 1;
    return 1;
}

int sweep__record_plan_ahead(sweep_record_reader *r)
{
    if (r->ahead_started || r->plan.items)
        return r->plan.items != NULL;
    if (!r->map || sweep__record_cpus() < 2)
        return 0;
    r->plan.items = malloc(PLAN_CAP * sizeof *r->plan.items);
    if (!r->plan.items)
        return 0;
    r->plan.cap = PLAN_CAP;
    return 1;
}

void sweep__record_plan_stop(sweep_record_reader *r)
{
    atomic_store_explicit(&r->plan_stop, 1, memory_order_relaxed);
}

sweep__plan_queue *sweep__record_plan_queue(sweep_record_reader *r)
{
    return r->plan.items ? &r->plan : NULL;
}

void sweep__record_ahead_wait(sweep_record_reader *r)
{
    if (r->ahead_started) {
        pthread_join(r->ahead, NULL);
        r->ahead_started = 0;
    }
}

const uint8_t *sweep__record_window(const sweep_record_reader *r, size_t *at, size_t *end)
{
    *at = r->body_pos;
    *end = r->body_end;
    return r->data;
}

uint64_t sweep__record_window_base(const sweep_record_reader *r)
{
    return r->base;
}

size_t sweep__record_window_held(const sweep_record_reader *r)
{
    return r->map ? r->size : r->cur->len;
}

size_t sweep__record_buffered(const sweep_record_reader *r)
{
    size_t n = 0;
    const chunk *lists[] = {r->cur, r->kept, r->spare};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (const chunk *k = lists[i]; k; k = k->next)
            n += k->cap;
    return n;
}

void sweep__record_seek(sweep_record_reader *r, size_t at)
{
    r->body_pos = at;
}

int sweep__record_next_frame(sweep_record_reader *r, char *err, size_t errlen)
{
    return next_frame(r, err, errlen);
}

const sweep_record_head *sweep_record_head_of(const sweep_record_reader *r)
{
    return &r->head;
}

uint64_t sweep_record_frame_bound(const sweep_record_head *h)
{
    /* The largest message either way: a request frame (with its size
     * prefix), or an answer to a full batch (well under 2 KiB a result). */
    uint64_t in = 4u + (uint64_t)h->max_frame, out = 4096u + (uint64_t)h->max_batch * 2048u;
    uint64_t msg = in > out ? in : out;
    /* and a MOVE record per move of the batch (version 2) */
    uint64_t moves = (uint64_t)h->max_batch * (5u + SWEEP__RECORD_MOVE_MAX);
    uint64_t b = SWEEP_RECORD_FLUSH_BYTES + 2u * (5u + 8u + msg) + moves + 65536u;
    return b < SWEEP_RECORD_FRAME_MAX ? b : SWEEP_RECORD_FRAME_MAX;
}

int sweep_record_truncated(const sweep_record_reader *r, uint64_t *at)
{
    if (at)
        *at = r->truncated_at;
    return r->truncated;
}

uint64_t sweep_record_size(const sweep_record_reader *r)
{
    return r->size;
}

int sweep__record_keep_request(sweep_record_reader *r, uint64_t session, const uint8_t *bytes, size_t len)
{
    return keep_base(r, session, bytes, len);
}

void sweep__record_passed(sweep_record_reader *r, uint64_t tick, uint64_t session, int open)
{
    r->answer_tick = tick;
    r->answer_session = session;
    r->answer_open = open;
}

void sweep_record_close(sweep_record_reader *r)
{
    if (!r)
        return;
    if (r->ahead_started) {
        atomic_store_explicit(&r->ahead_stop, 1, memory_order_relaxed);
        pthread_join(r->ahead, NULL);
    }
    if (r->map)
        munmap((void *)(uintptr_t)r->map, r->size);
    if (r->fd >= 0)
        close(r->fd);
    chunks_free(r->cur);
    chunks_free(r->kept);
    chunks_free(r->spare);
    free(r->head_text);
    free(r->plan.items);
    sweep__record_bases_free(&r->bases);
    free(r);
}
