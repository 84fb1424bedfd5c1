/*
 * replay_reanswer.c - re-answering a session log: a copy of the log in
 * which every message the server sent (OUT records) and every state hash
 * is what today's build sends and computes, the requests, ticks, ids and
 * everything else kept byte for byte, each frame checksummed again.
 *
 * Why: a log a test keeps as a golden record checks the answers of the
 * build that recorded it. When a change of movement or rules is meant to
 * change those answers, recording the log again would take new requests
 * at new times (clients run in real time), and a newer log format; the
 * same requests answered anew keep what the log tests and show, in its
 * diff, only what the change changed.
 *
 * The replay does the work: the full depth runs every request and tick
 * through the world and hands each OUT and HASH that differs to the
 * rewriter below (replay.c's hook), so the answers are the world's own
 * code's, never a second copy of it. Anything else that differs (how many
 * messages a request caused, their types or sessions, a MOVE or RESULTS
 * record of a newer log) is a divergence no rewriting can mend: the log is
 * left alone and the divergence named.
 */
#include <errno.h>
#include <inttypes.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client-sdk/replay_impl.h"
#include "protocol/format.h"
#include "server/record/record.h"

/* One record to replace: an OUT's new message, or a HASH's new hash. */
typedef struct fix {
    uint64_t offset;
    uint64_t session;
    uint64_t hash;
    uint8_t *bytes; /* NULL for a HASH */
    size_t len;
} fix;

typedef struct fixes {
    fix *at;
    size_t count, cap;
    int unordered; /* an offset not after the one before it */
} fixes;

static int note_fix(void *ctx, uint64_t offset, uint64_t session, const uint8_t *bytes, size_t len, uint64_t hash)
{
    fixes *f = ctx;
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        fix *at = realloc(f->at, cap * sizeof *at);
        if (!at)
            return -1;
        f->at = at;
        f->cap = cap;
    }
    fix *x = &f->at[f->count];
    memset(x, 0, sizeof *x);
    x->offset = offset;
    x->session = session;
    x->hash = hash;
    if (bytes) {
        x->bytes = malloc(len ? len : 1);
        if (!x->bytes)
            return -1;
        memcpy(x->bytes, bytes, len);
        x->len = len;
    }
    if (f->count && offset <= f->at[f->count - 1].offset)
        f->unordered = 1;
    f->count++;
    return 0;
}

static void free_fixes(fixes *f)
{
    for (size_t i = 0; i < f->count; i++)
        free(f->at[i].bytes);
    free(f->at);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* The log's bytes with the fixes in place, frame by frame, into out (room
 * enough: see the caller). Its length, or 0 with why when the log's
 * records are not where the replay said. */
static size_t rewrite(const uint8_t *in, size_t n, const fixes *f, uint8_t *out, char *why, size_t whylen)
{
    memcpy(out, in, SWEEP_RECORD_HEADER_SIZE);
    size_t o = SWEEP_RECORD_HEADER_SIZE, p = SWEEP_RECORD_HEADER_SIZE, next = 0;
    while (p + SWEEP_RECORD_FRAME_HEADER <= n) {
        uint32_t body = sweep__rd32(in + p);
        if (body > n - p - SWEEP_RECORD_FRAME_HEADER) {
            snprintf(why, whylen, "the frame at byte %zu runs past the end", p);
            return 0;
        }
        const uint8_t *b = in + p + SWEEP_RECORD_FRAME_HEADER;
        size_t frame = o;
        o += SWEEP_RECORD_FRAME_HEADER;
        for (size_t q = 0; q < body;) {
            if (body - q < 5 || sweep__rd32(b + q + 1) > body - q - 5) {
                snprintf(why, whylen, "the record at byte %zu runs past its frame", p + 8 + q);
                return 0;
            }
            uint8_t type = b[q];
            uint32_t len = sweep__rd32(b + q + 1);
            uint64_t at = p + SWEEP_RECORD_FRAME_HEADER + q;
            const fix *x = next < f->count && f->at[next].offset == at ? &f->at[next] : NULL;
            if (!x) {
                memcpy(out + o, b + q, 5 + (size_t)len);
                o += 5 + (size_t)len;
            } else if (!x->bytes) {
                if (type != SWEEP_RECORD_HASH || len != 16) {
                    snprintf(why, whylen, "byte %" PRIu64 " is not a HASH record", at);
                    return 0;
                }
                memcpy(out + o, b + q, 5 + 8); /* type, length, tick */
                sweep__wr64(out + o + 13, x->hash);
                o += 5 + 16;
                next++;
            } else {
                if (type != SWEEP_RECORD_OUT) {
                    snprintf(why, whylen, "byte %" PRIu64 " is not an OUT record", at);
                    return 0;
                }
                out[o] = SWEEP_RECORD_OUT;
                sweep__wr32(out + o + 1, (uint32_t)(8 + x->len));
                sweep__wr64(out + o + 5, x->session);
                memcpy(out + o + 13, x->bytes, x->len);
                o += 13 + x->len;
                next++;
            }
            q += 5 + (size_t)len;
        }
        uint32_t nb = (uint32_t)(o - frame - SWEEP_RECORD_FRAME_HEADER);
        sweep__wr32(out + frame, nb);
        sweep__wr32(out + frame + 4, (uint32_t)libdeflate_crc32(0, out + frame + SWEEP_RECORD_FRAME_HEADER, nb));
        p += SWEEP_RECORD_FRAME_HEADER + body;
    }
    if (p != n || next != f->count) {
        snprintf(why, whylen, "%zu of %zu records to rewrite were found", next, f->count);
        return 0;
    }
    return o;
}

int sweep__replay_reanswer(const char *log, const char *map, const char *out, sweep__reanswer_counts *counts,
                           char *err, size_t errlen)
{
    fixes f;
    memset(&f, 0, sizeof f);
    memset(counts, 0, sizeof *counts);
    int rc = -1;
    uint8_t *in = NULL, *buf = NULL;
    char tmp[4200] = "";
    sweep_replay *r = sweep_replay_open(log, map, err, errlen);
    if (!r)
        return -1;
    sweep__replay_rewrite(r, note_fix, &f);
    if (sweep_replay_run(r) != 0) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(r);
        counts->diverged = d != NULL;
        if (d)
            snprintf(err, errlen, "%s: re-answering cannot mend this (it rewrites only OUT and HASH records): %s", log,
                     d->text);
        else
            snprintf(err, errlen, "%s", sweep_replay_error(r));
        goto out;
    }
    const sweep_replay_stats *st = sweep_replay_stats_of(r);
    if (st->segments != 1 || st->truncated) {
        snprintf(err, errlen, "%s: re-answering takes a log of one whole segment (this one: %u segment%s%s)", log,
                 st->segments, st->segments == 1 ? "" : "s", st->truncated ? ", the last cut short" : "");
        goto out;
    }
    if (f.unordered) {
        snprintf(err, errlen, "%s: the records to rewrite did not come in the log's order", log);
        goto out;
    }
    size_t n = 0;
    in = read_file(log, &n);
    if (!in) {
        snprintf(err, errlen, "%s: cannot be read", log);
        goto out;
    }
    /* Room: the log plus every new message whole (an OUT never shrinks
     * below its header; a HASH keeps its size). */
    size_t room = n;
    for (size_t i = 0; i < f.count; i++)
        room += f.at[i].len + 13;
    buf = malloc(room);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    char why[2200];
    size_t len = rewrite(in, n, &f, buf, why, sizeof why);
    if (!len) {
        snprintf(err, errlen, "%s: %s", log, why);
        goto out;
    }
    for (size_t i = 0; i < f.count; i++) {
        if (f.at[i].bytes)
            counts->outs++;
        else
            counts->hashes++;
    }
    counts->bytes_before = n;
    counts->bytes_after = len;
    /* Written beside the target and renamed over it: OUT may be LOG. A
     * name of its own (mkstemp: created, never an existing file or a
     * link followed), since the directory may be shared. */
    snprintf(tmp, sizeof tmp, "%s.reanswer-XXXXXX", out);
    int fd = mkstemp(tmp);
    if (fd >= 0) {
        mode_t mask = umask(0); /* mkstemp's 0600, widened as a new file's would be */
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    FILE *w = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!w) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        else
            tmp[0] = 0;
        goto out;
    }
    int bad = fwrite(buf, 1, len, w) != len;
    bad |= fclose(w) != 0;
    if (bad) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        goto out;
    }
    /* The copy must replay with every bit matching before it is kept. */
    sweep_replay *check = sweep_replay_open(tmp, map, why, sizeof why);
    int matched = check && sweep_replay_run(check) == 0;
    if (check && !matched) {
        const sweep_replay_divergence *d = sweep_replay_divergence_of(check);
        snprintf(why, sizeof why, "%s", d ? d->text : sweep_replay_error(check));
    }
    sweep_replay_close(check);
    if (!matched) {
        snprintf(err, errlen, "%s: its re-answered copy does not replay (%s); nothing written", log, why);
        goto out;
    }
    if (rename(tmp, out) != 0) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        goto out;
    }
    tmp[0] = 0;
    rc = 0;
out:
    if (tmp[0])
        unlink(tmp);
    free(buf);
    free(in);
    free_fixes(&f);
    sweep_replay_close(r);
    return rc;
}
