/*
 * record.h - session logs: what sweepd --record writes and what replays
 * read. One log per world; a log may be split into segments (rotation),
 * each segment continuing the one before it.
 *
 * File layout (all integers little-endian, doubles as their IEEE-754 bits):
 *
 *   file    = header frame*
 *   header  = "SWEEPLOG" u32 version(7) u32 zero                16 bytes
 *   frame   = u32 body_len  u32 crc32(body)  body               CRC-32 (zlib's)
 *   body    = record+
 *   record  = u8 type  u32 len  payload[len]
 *   string  = u32 len  bytes (no NUL)
 *
 * A frame is written with one write() when a tick ends (or when the records
 * waiting pass SWEEP_RECORD_FLUSH_BYTES, before the next request, tick,
 * OPEN or CLOSE: a request and what it caused share a frame), so a process
 * killed at any moment, or a disk that fills, leaves whole frames followed
 * by at most one partial frame, and a log cut there replays. Readers take
 * a last frame that runs past the end of the file as a torn tail (the log
 * is read up to there and said to be truncated); a frame whose checksum
 * fails, a length longer than any frame the writer makes
 * (sweep_record_frame_bound), or a record that does not fit its frame is
 * corruption, named by its byte offset. A segment's header and HEAD are
 * one write, made before the previous segment's END "rotated".
 *
 * Records, in the order things happened in the world:
 *
 *   HEAD   first record of every segment: segment number, start (Unix ms),
 *          server version, protocol version, world index, map name, stem
 *          and path, the map's 32-byte content hash, the settings a replay
 *          needs (tick rate, time bank, free moves, players block, entity
 *          and batch limits, frame size), the hash interval, the world tick
 *          the segment starts at and the file name of the segment before,
 *          then (version 3) u32 the server role's entity cap, then
 *          (version 4) the query settings: u32 history_ms, u32
 *          rewind_cap_ms, u32 history_entities (as the world used them)
 *          and f64 query_rate, then u64 the seed entity ids were drawn
 *          from (0: at random; sweepd --seed);
 *   OPEN   u64 session  u8 role  u8 transport(0 TCP, 1 UDP)  string
 *          identity  string client, then u32 datagram only for a UDP
 *          session whose handshake agreed datagrams larger than 1200
 *          bytes (sweepd --udp-max-datagram; without it, 1200): a session
 *          joined the world (its answers were cut to that size);
 *   CLOSE  u64 session  string reason: it left; its entities went with it;
 *   IN     u64 session  bytes: a request that changes the world (Spawn,
 *          Despawn, Move, MoveBatch, MoverCommand, EntityCommands), or
 *          whose answer a replay checks (Query), as received, after the
 *          rate limit let it through (a TCP frame keeps its size prefix);
 *          in a version 6 log a whole IN of at most 2048 bytes is its
 *          session's base from there on (record_patch.h);
 *   IN_PATCH (version 6) u64 session  runs: a request of its session's
 *          base's length, as the runs where it differs from the base,
 *          each u8 skip (bytes kept), u8 n, n bytes (record_patch.h); the
 *          base's bytes past the last run are kept. Readers hand it out as
 *          the IN it stands for. A segment starts with no base, a CLOSE
 *          forgets its session's, and a patch with none is corruption;
 *   ID     u32 entity: the id the server drew for the entity a Spawn made;
 *   OUT    u64 session  bytes: a message the server sent because of the IN
 *          or TICK before it (answers, Errors, unasked Despawned), as sent;
 *   TICK   u64 tick: the world's tick advanced to this number (its mover
 *          step follows, with any OUT it caused);
 *   HASH   u64 tick  u64 hash: the world's state hash after that tick
 *          (sweep__world_state_hash), every hash_every ticks;
 *   END    u64 tick  string reason: the segment was closed on purpose
 *          ("shutdown", "rotated"); a log without one was cut short;
 *   MOVE   (version 2) one move the core ran, in a fixed layout: its
 *          input and the core's output, after the IN it came with and
 *          before the OUT that answers it (a batch: every MOVE before the
 *          one OUT). Only moves that ran and were applied have one: not a
 *          resent answer, not a refused move. Offsets in the payload:
 *            0 u64 session        8 u32 entity       12 u32 sequence
 *           16 f64[3] wish (Move.velocity)           40 f64 granted dt
 *           48 u32 buttons       52 u8 mode (Walk 0, Fly 1, Noclip 2)
 *           53 u8 flags: grounded 1, carried 2, pushed 4, started
 *              elsewhere (has_start_position) 8, crouched 16, stance
 *              blocked 32 (both only on a map with crouching, so a log
 *              without crouching holds the bytes it held before them),
 *              cut forgiven 64 (the server cut the move's time and did
 *              not name it, after a stall of the network: the core
 *              depth's input, as the granted dt is; set only then, so a
 *              log without such a cut holds the bytes it held before)
 *           54 u8 contact count (at most 8)          55 u8 zero
 *           56 f64[3] position   80 f64[3] velocity
 *          104 f64[3] ground normal (zero when not grounded)
 *          128 f64[3] start position (zero unless flag 8)
 *          152 f64 speed_excess 160 u32 ground material
 *          164 u32 ground mover (movers.id, 0 none)  168 u32 pushed_by
 *          172 u32 rules: the core's bits only (Speed, Jump, Limit)
 *          176 contacts, 56 bytes each: f64[3] point, f64[3] normal,
 *              u32 triangle, u32 material
 *          as the MoveResult answering it carries them; the payload is
 *          176 + 56 * count bytes. A replay at the core depth re-runs the
 *          move from it and compares its own image byte for byte.
 *          Version 6 writes the compact layout: bytes 0 to 104 as above
 *          but byte 55, which is 0x80, or 0x81 when the rare part
 *          follows; then the ground part, only when grounded (flag 1):
 *          f64[3] ground normal, u32 ground material; then the rare part,
 *          only when the move started elsewhere (flag 8) or one of its
 *          fields is not zero (speed_excess by its bits): f64[3] start
 *          position, f64 speed_excess, u32 ground mover, u32 pushed_by,
 *          u32 rules; then the contacts. What a part leaves out is zero.
 *          104 to 624 bytes; most moves are 104 (airborne) or 132.
 *   RESULTS (version 5) a MoveResult or MoveResultBatch the server sent
 *          (in place of its OUT records: one RESULTS for the whole
 *          message, however many datagrams carried it), each result held
 *          once: a result whose move has a MOVE record in its group is
 *          that record plus the fields only the server decides. Offsets:
 *            0 u64 session   8 u32 kind (MoveResult 0, MoveResultBatch 1)
 *           12 u32 Message.sequence   16 u64 Message.server_tick
 *           24 u32 count (1 for a MoveResult)
 *           28 the results, each: u32 mask, then in this order what it
 *              names (bit: field):
 *                0 the result has no MOVE (a resent answer): its image,
 *                  as a MOVE's with its input (session, wish, buttons,
 *                  mode) zero; without it the result is the next MOVE of
 *                  its group that no result before took
 *                1 u64 server_tick, where it is not the message's
 *                2 corrected (nothing follows)   3 f64 correction
 *                4 u32 rules: the server's bits (the core's are the MOVE's)
 *                5 f64 time_excess
 *                6 u32 n, the contact count, then n u32 contacts[i].mover
 *                7 to 12 u32 launched_by, teleported_by, hurt_by,
 *                  killed_by, entered, left
 *               13 teleport_blocked (nothing follows)   14 f64 damage
 *               15 to 20 u32 liquid, liquid_type, liquid_level,
 *                  entered_liquid, left_liquid, ladder
 *              a field that is zero (every bit: -0.0 is stored) is
 *              left out. A replay at the full depth makes the same
 *              payload of the world's answer and compares the bytes.
 *              An image here has the layout of the log's MOVEs.
 *   ANSWER (version 7) a RESULTS in fewer bytes, where the readers know
 *          the rest: a MoveResult to the session of the IN (or IN_PATCH)
 *          before it, whose server_tick is the world's tick as the log
 *          last said it (the last TICK's, or the HEAD's first tick). u32
 *          Message.sequence, then its one result as a RESULTS holds it
 *          (u32 mask, then what it names). Only the first RESULTS or
 *          ANSWER after an IN, before any TICK, may be one: anywhere else
 *          it is corruption. Readers hand it out as the RESULTS it stands
 *          for.
 *
 * Version 1 logs have no MOVE records; version 2 logs no server role's
 * entity cap (it was the players' cap then); version 3 logs no query
 * settings (their worlds kept no history: replayed without one); version
 * 4 logs no RESULTS (a MoveResult or MoveResultBatch is an OUT, as sent,
 * beside its MOVE records); version 5 logs hold every MOVE image in the
 * full layout and every request whole; version 6 logs no ANSWER; readers
 * take all seven, each MOVE image in its version's layout only.
 *
 * Nothing else is needed to re-run a world: requests that change nothing
 * (Hello, Ping, Collide, GetStats, WatchWorld) are not recorded, and the
 * only randomness, entity ids, is recorded.
 */
#ifndef SWEEP_SERVER_RECORD_H
#define SWEEP_SERVER_RECORD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SWEEP_RECORD_MAGIC "SWEEPLOG"
#define SWEEP_RECORD_VERSION 7u       /* written; 1 to 6 are read too */
#define SWEEP_RECORD_VERSION_MIN 1u
#define SWEEP_RECORD_HEADER_SIZE 16u
#define SWEEP_RECORD_FRAME_HEADER 8u
#define SWEEP_RECORD_FRAME_MAX (64u << 20)    /* larger is corruption */
#define SWEEP_RECORD_FLUSH_BYTES (256u << 10) /* a frame is written once this much waits */
#define SWEEP_RECORD_SUFFIX ".sweeplog"

typedef enum sweep_record_type {
    SWEEP_RECORD_HEAD = 1,
    SWEEP_RECORD_OPEN = 2,
    SWEEP_RECORD_CLOSE = 3,
    SWEEP_RECORD_IN = 4,
    SWEEP_RECORD_ID = 5,
    SWEEP_RECORD_OUT = 6,
    SWEEP_RECORD_TICK = 7,
    SWEEP_RECORD_HASH = 8,
    SWEEP_RECORD_END = 9,
    SWEEP_RECORD_MOVE = 10,   /* version 2 */
    SWEEP_RECORD_RESULTS = 11, /* version 5 */
    SWEEP_RECORD_IN_PATCH = 12, /* version 6; read as the IN it stands for */
    SWEEP_RECORD_ANSWER = 13    /* version 7; read as the RESULTS it stands for */
} sweep_record_type;

/* A MOVE payload: the fixed part, then one contact per count. */
#define SWEEP_RECORD_MOVE_FIXED 176u
#define SWEEP_RECORD_MOVE_CONTACT 56u

/* "HEAD", "OPEN", ... ("?" for anything else). */
const char *sweep_record_type_name(unsigned type);

/* Bytes with their length; not NUL-terminated. */
typedef struct sweep_record_bytes {
    const uint8_t *ptr;
    uint32_t len;
} sweep_record_bytes;

typedef struct sweep_record_head {
    uint32_t segment;
    uint64_t started_unix_ms;
    sweep_record_bytes server_version;
    uint32_t protocol_version;
    uint32_t world_index;
    sweep_record_bytes map_name, map_stem, map_path;
    uint8_t content_hash[32];
    double tick_rate;
    double time_bank;
    uint8_t allow_free_move;
    uint8_t players_block;
    uint32_t max_entities;
    uint32_t max_entities_server; /* version 3; before it, max_entities */
    /* Version 4; before it 0 (no history; ids drawn at random). */
    uint32_t history_ms, rewind_cap_ms, history_entities;
    double query_rate;
    uint64_t id_seed; /* sweepd --seed; 0: ids drawn at random */
    uint32_t max_batch;
    uint32_t max_frame;
    uint32_t hash_every;
    uint64_t first_tick;
    sweep_record_bytes previous; /* file name of the segment before; empty for the first */
    uint32_t version;            /* of the file's header, not of the HEAD record */
} sweep_record_head;

/* The settings a HEAD may hold: sweepd's options take no others
 * (server/options.c uses these), and a replay sizes its decoders and its
 * world by them. */
#define SWEEP_RECORD_MAX_FRAME_LIMIT (1024u * 1024u) /* --max-frame */
#define SWEEP_RECORD_MAX_BATCH_LIMIT 4096u           /* --max-batch */
#define SWEEP_RECORD_TICK_RATE_LIMIT 10000.0         /* --tick-rate; a map's is at most 1,000 */
#define SWEEP_RECORD_HISTORY_MS_LIMIT 60000u         /* --history-ms, --rewind-cap-ms */
#define SWEEP_RECORD_COUNT_LIMIT 1000000u            /* --max-entities-server, --history-entities */
#define SWEEP_RECORD_TIME_BANK_LIMIT 60.0            /* --time-bank */

/* Are h's settings ones sweepd records (within the limits above, tick
 * rate and time bank finite, the query rate finite and not negative)?
 * 0, or -1 with why (naming the setting and its value). */
int sweep_record_head_check(const sweep_record_head *h, char *why, size_t whylen);

/* One record, decoded. Pointers point into the reader's bytes and stay
 * valid until sweep_record_close (a streamed reader's: until the caller
 * lets go of them, sweep_record_release). Only type, offset and the fields its type
 * names below are set; the others keep whatever they held. An IN_PATCH
 * is handed out as the IN it stands for (type IN, offset its own), its
 * bytes made in the reader: they stay valid while up to three more
 * patches are read (the fourth takes their place), whatever the reader.
 * So is an ANSWER, as the RESULTS it stands for (type RESULTS), in a
 * place of its own: valid while up to three more ANSWERs are read. */
typedef struct sweep_record {
    uint8_t type;
    uint64_t offset; /* of the record's type byte in the file */
    uint64_t session;         /* OPEN CLOSE IN OUT MOVE RESULTS */
    uint64_t tick;            /* TICK HASH END */
    uint64_t hash;            /* HASH */
    uint32_t entity;          /* ID MOVE */
    uint8_t role, transport;  /* OPEN */
    sweep_record_bytes text;  /* OPEN identity, CLOSE and END reason */
    sweep_record_bytes text2; /* OPEN client name */
    uint32_t datagram;        /* OPEN: the UDP datagram size agreed (1200 when the record names none) */
    sweep_record_bytes bytes; /* IN OUT: the message; MOVE RESULTS: the whole payload (checked against its layout) */
    sweep_record_head head;   /* HEAD */
} sweep_record;

typedef struct sweep_record_reader sweep_record_reader;

/* Opens a log segment read-only and checks its header and first record
 * (a HEAD). NULL with err naming the file and what is wrong. The file is
 * mapped: every record stays where it is until sweep_record_close. */
sweep_record_reader *sweep_record_open(const char *path, char *err, size_t errlen);

/* The same, reading the file in order into a few buffers used again
 * instead of mapping it: what is read, and every error, is the same. A
 * reader that reads a log once from end to end then touches no new page
 * per page of the log, which on a virtual machine costs more than the
 * copy (record_read.c). Its records stay valid until the caller lets go of
 * them with sweep_record_release (never: until sweep_record_close, the
 * buffers growing with the log); it starts no thread
 * (sweep_record_check_ahead is 0). The HEAD is kept to the end. */
sweep_record_reader *sweep_record_open_stream(const char *path, char *err, size_t errlen);

/* The caller holds no record that starts before `offset` (a record's
 * offset; anything past the records read so far counts as all of them):
 * a streamed reader may use their bytes again. Nothing for a mapped one. */
void sweep_record_release(sweep_record_reader *r, uint64_t offset);

/* The segment's HEAD. */
const sweep_record_head *sweep_record_head_of(const sweep_record_reader *r);

/* The next record: 1 with *out filled, 0 at the end of the log (also after
 * a torn tail: see sweep_record_truncated), -1 with err naming the byte
 * offset and what is wrong. */
int sweep_record_next(sweep_record_reader *r, sweep_record *out, char *err, size_t errlen);

/* Checks the frames' checksums ahead of sweep_record_next on a second
 * thread, where the caller may run on a second CPU (its affinity, as
 * taskset or a cpuset leave it, not only the CPUs online), at the lowest
 * priority (SCHED_IDLE: only on a CPU nothing else wants): a frame it has
 * found whole is not summed again when read, and what the reader gives
 * (records, errors, where) is the same either way, since it sums itself
 * whatever the thread has not vouched for. 1 if the thread runs, 0 if not
 * (one CPU, or no thread to be had: nothing changes). Stopped by
 * sweep_record_close. */
int sweep_record_check_ahead(sweep_record_reader *r);

/* After the end: 1 if the last frame was cut short (the writer was killed
 * mid-write), with the offset it started at. */
int sweep_record_truncated(const sweep_record_reader *r, uint64_t *at);

/* The longest frame a server with the limits of h writes: the flush
 * threshold plus one record of the largest message either way and the
 * MOVE records of a full batch. */
uint64_t sweep_record_frame_bound(const sweep_record_head *h);

/* The file's size in bytes. */
uint64_t sweep_record_size(const sweep_record_reader *r);

void sweep_record_close(sweep_record_reader *r);

#ifdef __cplusplus
}
#endif

#endif
