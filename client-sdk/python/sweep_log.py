#!/usr/bin/python3
"""sweep_log.py - read the session logs that `sweepd --record DIR` writes
(server/record/record.h has the format), for analysis in Python: the records, the
wire messages inside them decoded with the code `flatc --python` generates
from protocol/sweep.fbs, the move results, and a summary.

As a command:

    /usr/bin/python3 client-sdk/python/sweep_log.py LOG [--summary | --records | --moves]
        [--json] [--no-follow] [--generated DIR]

    --summary   (default) segments, bytes, ticks, sessions, requests and
                messages by kind, moves, corrections, rule reports by rule,
                errors by code, and how the log ends (truncated, ended)
    --records   one line per record (with --json: one JSON object a line)
    --moves     one line per move result (with --json: one JSON object a line)
    --json      JSON instead of text
    --no-follow read LOG alone, not the segments a rotation continued it in

Exit status 0, or 2 (with the file and byte offset) for a log that cannot be
read: not a log, a frame whose CRC-32 fails, a record that overruns its
frame, a record of unknown type, a rotated segment whose next one is
missing or does not continue it. A last frame cut short (the server was
killed while writing it) is no error: the log is read up to it and said to
be truncated.

As a module (the FlatBuffers code is only needed to decode messages):

    import sweep_log
    log = sweep_log.open_log(path)            # follows rotated segments
    for rec in log:                           # records, as namedtuples
        if rec.type == "OUT":
            msg = rec.message()               # sweep.wire.Message.Message
            kind, body = sweep_log.body_of(msg)   # "MoveResult", its table
    log.truncated, log.truncated_at, log.ended, log.end_reason, log.files, log.bytes

    for m in sweep_log.move_results(sweep_log.open_log(path)):
        print(m.tick, m.entity, m.position, m.velocity, m.corrected, m.correction, m.rule_names)

    summary = sweep_log.summarize(path)       # the dict --summary --json prints

  open_log(path, follow=True) -> Log: the segment at path, and (follow) the
      segments after it: a segment that ends with END "rotated" continues in
      the file of the same name with the 4-digit segment number plus one,
      whose HEAD names it as `previous` and starts at the tick it ended at.
      Iterating a Log yields every record, the HEAD of each segment
      included; a Log can be iterated again (each pass re-reads the files).
      After a pass: files (the segments read), heads, bytes (their sizes),
      truncated and truncated_at ((file, offset) of the torn frame), ended
      and end_reason (the last END: "shutdown"; None without one).
  open_segment(path) -> Segment: one file; checks the header and that the
      first record is a HEAD (segment.head). Iterating it yields its records
      up to its END (or its end, or a torn frame: segment.truncated_at).
  Records are namedtuples whose first fields are type (the name: "HEAD",
      "OPEN", "CLOSE", "IN", "ID", "OUT", "TICK", "HASH", "END", "MOVE",
      "RESULTS"), file and
      offset (of the record's type byte in that file), then:
        Head:  segment started_unix_ms server_version protocol_version
               world_index map_name map_stem map_path content_hash (hex)
               tick_rate time_bank allow_free_move players_block
               max_entities max_batch max_frame hash_every first_tick
               previous ("" for the first segment) max_entities_server
               (the server role's cap; before version 3, max_entities)
               history_ms rewind_cap_ms history_entities query_rate (the
               query settings; before version 4, 0: no history) id_seed
               (sweepd --seed; 0 when ids were drawn at random, and before
               version 4)
        Open:  session role transport identity client datagram  (transport 0 TCP, 1 UDP;
               datagram: the UDP datagram size agreed, 1200 unless more)
        Close: session reason
        In, Out: session transport data  (data: the message as received or
               sent, TCP's 4-byte size prefix included; a version 6
               IN_PATCH is read as the In it stands for; .message() decodes
               it, without the prefix, into a sweep.wire.Message.Message;
               transport comes from the session's OPEN, or is guessed from
               where the "SWP1" identifier sits when the OPEN is in an
               earlier segment that was not read)
        Id:    entity        Tick: tick        Hash: tick hash
        End:   tick reason
        Move:  (version 2 logs) session entity sequence wish dt buttons mode
               grounded carried pushed has_start_position position velocity
               ground_normal start_position speed_excess ground_material
               ground_mover pushed_by rules (the core's bits) contacts (dicts
               of point normal triangle material) crouched stance_blocked
               cut_forgiven (the server cut the move's time and did not
               name it):
               the core's input and output of one applied move, before the
               OUT answering it (a version 6 log's compact images read
               back alike: what a part leaves out is zero)
        Results: (version 5 logs) session kind ("MoveResult" or
               "MoveResultBatch") sequence server_tick results: a move
               answer held once, each result a dict of what the record
               holds of it (image: a Move of its own for a result without
               a MOVE record, else None: its core fields are the next MOVE
               of its group no result took; and the server's fields:
               server_tick corrected correction rules time_excess movers
               damage teleport_blocked and the volume and liquid ids);
               move_results and --moves rebuild the results; a version 7
               ANSWER is read as the Results it stands for
  LogError(Exception): .path, .offset (None when not about a byte), .what;
      str() is "PATH: ... byte N ..." as the C reader says it.
  decode(data, transport=None) -> Message; body_of(message) -> (kind name,
      the body's generated table object, e.g. a MoveResult.MoveResult).
  move_results(records) -> MoveInfo namedtuples, one per entity per
      MoveResult (alone or in a MoveResultBatch) the server sent (an OUT,
      or a RESULTS with its group's MOVE records): file
      offset session tick entity sequence position velocity grounded
      corrected correction rules (the Rule bits) rule_names speed_excess
      time_excess applied_dt resent. A result the server sent again for a
      move it had already applied (a resend, answered from what it kept:
      the sequence is not above the entity's last one) has resent=True and
      is not a move of its own.
  summarize(path_or_log) -> dict (what --summary --json prints): moves
      counts the moves the server applied (sweep-replay's "moves"), rules
      counts rule reports as the server does (its Stats.rules_total):
      applied moves' and new spawns' Rule bits, and FreeMove refusals.
  load_wire(directory=None): where the generated code is. Without an
      argument: $SWEEP_PY_GENERATED, else whatever `import sweep.wire` finds
      (PYTHONPATH, as sweep_client.py is run), else
      $SWEEP_BUILD_DIR/client-sdk/python, else build/client-sdk/python of
      the repository this file is in. `make` generates it there.
"""

import argparse
import collections
import importlib
import json
import os
import struct
import sys
import zlib

MAGIC = b"SWEEPLOG"
VERSION = 7  # the newest read; version 1 has no MOVE records, version 2 no max_entities_server,
             # version 3 no query settings nor id_seed, version 4 no RESULTS records, version 5
             # full MOVE images only, version 6 no ANSWER records
VERSION_MIN = 1
HEADER_SIZE = 16
FRAME_HEADER = 8
FRAME_MAX = 64 << 20  # a longer frame is corruption, as the C reader says
FLUSH_BYTES = 256 << 10


def frame_bound(head):
    """The longest frame a server with the HEAD's limits writes (as
    sweep_record_frame_bound in C): a longer length field is corruption,
    not a torn tail."""
    msg = max(4 + head.max_frame, 4096 + head.max_batch * 2048)
    moves = head.max_batch * (5 + MOVE_FIXED + 8 * MOVE_CONTACT)  # a full batch's MOVE records
    return min(FLUSH_BYTES + 2 * (5 + 8 + msg) + moves + 65536, FRAME_MAX)
SUFFIX = ".sweeplog"
IDENTIFIER = b"SWP1"
TCP, UDP = 0, 1
TRANSPORT_NAMES = {TCP: "TCP", UDP: "UDP"}

HEAD, OPEN, CLOSE, IN, ID, OUT, TICK, HASH, END, MOVE, RESULTS, IN_PATCH, ANSWER = range(1, 14)
TYPE_NAMES = {HEAD: "HEAD", OPEN: "OPEN", CLOSE: "CLOSE", IN: "IN", ID: "ID", OUT: "OUT", TICK: "TICK",
              HASH: "HASH", END: "END", MOVE: "MOVE", RESULTS: "RESULTS", IN_PATCH: "IN_PATCH", ANSWER: "ANSWER"}
# Version 6: a whole IN of at most this many bytes is its session's base, and an IN_PATCH is
# a request of the base's length as runs (u8 skip, u8 n, n bytes) where it differs (record.h).
BASE_MAX = 2048
RESULTS_FIXED = 28  # a RESULTS payload's fixed part (record.h)
ANSWER_FIXED = 4  # an ANSWER's bytes before its result: Message.sequence (record.h)


class _Known:
    """What a segment's records so far tell the ones after them (record.h):
    each session's base (version 6), and for an ANSWER (version 7) the
    session of the last IN, whether it still waits for its first RESULTS,
    and the world's tick as the log last said it."""

    def __init__(self):
        self.bases = {}  # a segment starts with none
        self.answer_session = 0
        self.answer_open = False
        self.tick = 0
# A RESULTS result's mask bits past the first six (record.h): u32 ids.
RESULTS_VOLUMES = ("launched_by", "teleported_by", "hurt_by", "killed_by", "entered", "left")  # bits 7-12
RESULTS_LIQUIDS = ("liquid", "liquid_type", "liquid_level", "entered_liquid", "left_liquid", "ladder")  # 15-20
MOVE_FIXED, MOVE_CONTACT = 176, 56  # a MOVE payload: the fixed part, then 56 bytes a contact (record.h)
# The compact layout of version 6: the fixed part, the ground part when grounded, the rare part when
# byte 55 says, then the contacts.
MOVE_HEAD, MOVE_GROUND, MOVE_RARE = 104, 28, 44
MOVE_MODES = 3  # Walk, Fly, Noclip


class LogError(Exception):
    """A log that cannot be read: the file, the byte offset (or None) and what."""

    def __init__(self, path, offset, what):
        self.path = path
        self.offset = offset
        self.what = what
        super().__init__("%s: %s" % (path, what))


# --- records -------------------------------------------------------------------

_BASE = "type file offset "
Head = collections.namedtuple("Head", _BASE + (
    "segment started_unix_ms server_version protocol_version world_index map_name map_stem map_path "
    "content_hash tick_rate time_bank allow_free_move players_block max_entities max_batch max_frame "
    "hash_every first_tick previous max_entities_server history_ms rewind_cap_ms history_entities query_rate "
    "id_seed"))
Open = collections.namedtuple("Open", _BASE + "session role transport identity client datagram")
Close = collections.namedtuple("Close", _BASE + "session reason")
Id = collections.namedtuple("Id", _BASE + "entity")
Tick = collections.namedtuple("Tick", _BASE + "tick")
Hash = collections.namedtuple("Hash", _BASE + "tick hash")
End = collections.namedtuple("End", _BASE + "tick reason")
Move = collections.namedtuple("Move", _BASE + (
    "session entity sequence wish dt buttons mode grounded carried pushed has_start_position position velocity "
    "ground_normal start_position speed_excess ground_material ground_mover pushed_by rules contacts crouched "
    "stance_blocked cut_forgiven"))


def _layout_check(path, at, name, p, fixed):
    """The error maker for a payload of record `name` that breaks its
    layout, once its length holds the fixed part."""
    def bad(why):
        return LogError(path, at, "record at byte %d (%s): %s (corrupt log)" % (at, name, why))
    if len(p) < fixed:
        raise bad("%d bytes, shorter than its fixed %d" % (len(p), fixed))
    return bad


def _compact_len(flags, parts, n):
    """The length of a compact MOVE image (version 6; record.h)."""
    return (MOVE_HEAD + (MOVE_GROUND if flags & 1 else 0) + (MOVE_RARE if parts & 1 else 0) +
            n * MOVE_CONTACT)


def _parse_move(path, at, p, compact):
    """A MOVE payload (version 2; layout in record.h: the full one, or from
    version 6 the compact one), checked as the C reader checks it."""
    fixed = MOVE_HEAD if compact else MOVE_FIXED
    bad = _layout_check(path, at, "MOVE", p, fixed)
    n, flags, parts = p[54], p[53], p[55]
    if n > 8:
        raise bad("%d contacts, more than a result holds (8)" % n)
    if (parts & ~1) != 0x80 if compact else parts != 0:
        raise bad("byte 55 is 0x%02x, not the %s layout of this log's version"
                  % (parts, "compact" if compact else "full"))
    want = _compact_len(flags, parts, n) if compact else MOVE_FIXED + n * MOVE_CONTACT
    if len(p) != want:
        raise bad("%d bytes, but its flags, parts and %d contacts make %d" % (len(p), n, want))
    if p[52] >= MOVE_MODES:
        raise bad("mode %d is not a MoveMode (Walk 0, Fly 1, Noclip 2)" % p[52])
    session, entity, sequence = struct.unpack_from("<QII", p, 0)
    wish = struct.unpack_from("<3d", p, 16)
    (dt,) = struct.unpack_from("<d", p, 40)
    (buttons,) = struct.unpack_from("<I", p, 48)
    mode = p[52]
    position, velocity = struct.unpack_from("<3d", p, 56), struct.unpack_from("<3d", p, 80)
    zero = (0.0, 0.0, 0.0)
    if not compact:
        ground_normal, start = struct.unpack_from("<3d", p, 104), struct.unpack_from("<3d", p, 128)
        (speed_excess,) = struct.unpack_from("<d", p, 152)
        material, ground_mover, pushed_by, rules = struct.unpack_from("<IIII", p, 160)
        at_contacts = MOVE_FIXED
    else:
        # What a part leaves out is zero.
        pos, ground_normal, material = MOVE_HEAD, zero, 0
        start, speed_excess, ground_mover, pushed_by, rules = zero, 0.0, 0, 0, 0
        if flags & 1:
            ground_normal, material = struct.unpack_from("<3d", p, pos), struct.unpack_from("<I", p, pos + 24)[0]
            pos += MOVE_GROUND
        if parts & 1:
            start = struct.unpack_from("<3d", p, pos)
            (speed_excess,) = struct.unpack_from("<d", p, pos + 24)
            ground_mover, pushed_by, rules = struct.unpack_from("<III", p, pos + 32)
            raw = p[pos + 24:pos + 44]
            pos += MOVE_RARE
        at_contacts = pos
    if flags & ~0x7F or rules & ~0x7:  # only the core's Speed, Jump, Limit
        raise bad("bits set that the layout leaves zero (flags 0x%02x, rules 0x%x)" % (flags, rules))
    if compact and not parts & 1 and flags & 8:
        raise bad("a move that started elsewhere without its rare part")
    if compact and parts & 1 and not flags & 8 and not any(raw):
        raise bad("a rare part whose fields are all zero")
    contacts = []
    for i in range(n):
        c = struct.unpack_from("<6dII", p, at_contacts + i * MOVE_CONTACT)
        contacts.append({"point": c[0:3], "normal": c[3:6], "triangle": c[6], "material": c[7]})
    return Move("MOVE", path, at, session, entity, sequence, wish, dt, buttons, mode, bool(flags & 1),
                bool(flags & 2), bool(flags & 4), bool(flags & 8), position, velocity, ground_normal, start,
                speed_excess, material, ground_mover, pushed_by, rules, contacts, bool(flags & 16), bool(flags & 32),
                bool(flags & 64))


Results = collections.namedtuple("Results", _BASE + "session kind sequence server_tick results")
Results.__doc__ = """A RESULTS record (version 5): kind "MoveResult" or "MoveResultBatch";
results: a dict per result of what the record holds of it: image (a Move
of its own, input zero, for a result without a MOVE record; else None:
its core fields are the next MOVE of its group no result took), and the
server's fields (server_tick, corrected, correction, rules: the server's
bits, time_excess, movers, damage, teleport_blocked and the volume and
liquid ids), zero where the record leaves them out."""


def _parse_results(path, at, p, compact, name="RESULTS"):
    """A RESULTS payload (version 5; layout in record.h, its images in the
    log's MOVE layout), checked as the C reader checks it; name: the
    record's type, for an ANSWER read as the RESULTS it stands for."""
    bad = _layout_check(path, at, name, p, RESULTS_FIXED)
    session, kind, sequence, tick, count = struct.unpack_from("<QIIQI", p, 0)
    if kind > 1:
        raise bad("kind %d is neither MoveResult (0) nor MoveResultBatch (1)" % kind)
    if kind == 0 and count != 1:
        raise bad("a MoveResult of %d results" % count)
    pos, results = RESULTS_FIXED, []

    def take(fmt):
        nonlocal pos
        size = struct.calcsize(fmt)
        if len(p) - pos < size:
            raise bad("result %d runs past the record's %d bytes" % (len(results), len(p)))
        v = struct.unpack_from(fmt, p, pos)
        pos += size
        return v[0] if len(v) == 1 else v
    for i in range(count):
        mask = take("<I")
        if mask & ~((1 << 21) - 1):
            raise bad("result %d: mask bits set that the layout leaves zero (0x%x)" % (i, mask))
        r = {"image": None, "server_tick": tick, "corrected": bool(mask & 4), "correction": 0.0, "rules": 0,
             "time_excess": 0.0, "movers": [], "teleport_blocked": bool(mask & (1 << 13)), "damage": 0.0}
        if mask & 1:
            if len(p) - pos < (MOVE_HEAD if compact else MOVE_FIXED):
                raise bad("result %d: its image runs past the record's %d bytes" % (i, len(p)))
            n = p[pos + 54] if p[pos + 54] <= 8 else 0
            size = (_compact_len(p[pos + 53], p[pos + 55], n) if compact else MOVE_FIXED + n * MOVE_CONTACT)
            if len(p) - pos < size:
                raise bad("result %d: its image runs past the record's %d bytes" % (i, len(p)))
            image = bytes(p[pos:pos + size])
            r["image"] = _parse_move(path, at, image, compact)
            if any(image[0:8]) or any(image[16:40]) or any(image[48:53]):
                raise bad("result %d: its image has an input (session, wish, buttons, mode)" % i)
            pos += size
        if mask & 2:
            r["server_tick"] = take("<Q")
        if mask & 8:
            r["correction"] = take("<d")
        if mask & 16:
            r["rules"] = take("<I")
        if mask & 32:
            r["time_excess"] = take("<d")
        if mask & 64:
            n = take("<I")
            if n == 0 or n > 8 or (r["image"] is not None and n != len(r["image"].contacts)):
                raise bad("result %d: movers of %d contacts" % (i, n))
            r["movers"] = [take("<I") for _ in range(n)]
        for k, name in enumerate(RESULTS_VOLUMES):
            r[name] = take("<I") if mask & (1 << (7 + k)) else 0
        if mask & (1 << 14):
            r["damage"] = take("<d")
        for k, name in enumerate(RESULTS_LIQUIDS):
            r[name] = take("<I") if mask & (1 << (15 + k)) else 0
        results.append(r)
    if pos != len(p):
        raise bad("%d bytes, but its %d results make %d" % (len(p), count, pos))
    return Results("RESULTS", path, at, session, "MoveResultBatch" if kind else "MoveResult", sequence, tick, results)


class _Carrying:
    """IN and OUT records carry a wire message."""
    __slots__ = ()

    def message(self):
        """The message decoded (sweep.wire.Message.Message); LogError if it
        is not one."""
        try:
            return decode(self.data, self.transport)
        except WireCodeMissing:
            raise
        except Exception as e:  # the runtime does not verify: any failure is a bad buffer
            raise LogError(self.file, self.offset, "record at byte %d (%s): the message does not decode: %s"
                           % (self.offset, self.type, e)) from None


class In(_Carrying, collections.namedtuple("In", _BASE + "session transport data")):
    __slots__ = ()


class Out(_Carrying, collections.namedtuple("Out", _BASE + "session transport data")):
    __slots__ = ()


class _Short(Exception):
    pass


class _Cursor:
    """Reads one record's payload; reading past its end raises _Short."""

    def __init__(self, buf, start, end):
        self.buf, self.pos, self.end = buf, start, end

    def take(self, n):
        if n > self.end - self.pos:
            raise _Short()
        at = self.pos
        self.pos += n
        return self.buf[at:at + n]

    def u8(self):
        return self.take(1)[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def f64(self):
        return struct.unpack("<d", self.take(8))[0]

    def text(self):
        return bytes(self.take(self.u32())).decode("utf-8", "replace")

    def rest(self):
        return bytes(self.take(self.end - self.pos))


def _patched(base, runs, path, at):
    """A request: its session's base with the patch's runs applied."""
    out, pos, i = bytearray(base), 0, 0
    while i < len(runs):
        if len(runs) - i < 2:
            break
        skip, n = runs[i], runs[i + 1]
        i += 2
        if len(runs) - i < n or len(out) - pos < skip + n:
            break
        pos += skip
        out[pos:pos + n] = runs[i:i + n]
        pos += n
        i += n
    else:
        return bytes(out)
    raise LogError(path, at, "record at byte %d (IN_PATCH): its runs are cut short or reach past the %d bytes of "
                   "its base (corrupt log)" % (at, len(base)))


def _parse(kind, c, path, at, version, known):
    """The record of type `kind` whose payload the cursor holds (not
    checked for leftovers here), of a log of format `version`."""
    bases = known.bases
    if kind == HEAD:
        fields = [c.u32(), c.u64(), c.text(), c.u32(), c.u32(), c.text(), c.text(), c.text(),
                  bytes(c.take(32)).hex(), c.f64(), c.f64(), c.u8(), c.u8(), c.u32(), c.u32(), c.u32(), c.u32(),
                  c.u64(), c.text()]
        # Version 3 adds the server role's entity cap; before, max_entities.
        fields.append(c.u32() if version >= 3 else fields[13])
        # Version 4 adds the query settings (before, worlds kept no history)
        # and the seed of the entity ids (0: at random).
        fields += [c.u32(), c.u32(), c.u32(), c.f64(), c.u64()] if version >= 4 else [0, 0, 0, 0.0, 0]
        head = Head("HEAD", path, at, *fields)
        known.tick = head.first_tick
        return head
    if kind == OPEN:
        fields = [c.u64(), c.u8(), c.u8(), c.text(), c.text()]
        # A UDP session that agreed datagrams above 1200 bytes names its size.
        fields.append(c.u32() if c.end - c.pos >= 4 else 1200)
        return Open("OPEN", path, at, *fields)
    if kind == CLOSE:
        rec = Close("CLOSE", path, at, c.u64(), c.text())
        bases.pop(rec.session, None)
        return rec
    if kind in (IN, OUT):
        session = c.u64()
        data = c.rest()
        if not data:
            raise _Short()
        if kind == IN and version >= 6 and len(data) <= BASE_MAX:
            bases[session] = bytes(data)
        if kind == IN:
            known.answer_session, known.answer_open = session, True
        return (In if kind == IN else Out)(TYPE_NAMES[kind], path, at, session, None, data)
    if kind == IN_PATCH:
        # Read as the IN it stands for.
        if version < 6:
            raise LogError(path, at, "record at byte %d: IN_PATCH in a version %d log, which has none (corrupt log)"
                           % (at, version))
        session = c.u64()
        runs = c.rest()
        if not runs:
            raise _Short()
        if session not in bases:
            raise LogError(path, at, "record at byte %d (IN_PATCH): session %d has no whole request before it in "
                           "this segment to patch (corrupt log)" % (at, session))
        data = _patched(bases[session], runs, path, at)
        known.answer_session, known.answer_open = session, True
        return In("IN", path, at, session, None, data)
    if kind == ID:
        return Id("ID", path, at, c.u32())
    if kind == TICK:
        rec = Tick("TICK", path, at, c.u64())
        known.tick, known.answer_open = rec.tick, False
        return rec
    if kind == HASH:
        return Hash("HASH", path, at, c.u64(), c.u64())
    if kind == MOVE:
        if version < 2:
            raise LogError(path, at, "record at byte %d: MOVE in a version %d log, which has none (corrupt log)"
                           % (at, version))
        return _parse_move(path, at, c.rest(), version >= 6)
    if kind == RESULTS:
        if version < 5:
            raise LogError(path, at, "record at byte %d: RESULTS in a version %d log, which has none (corrupt log)"
                           % (at, version))
        rec = _parse_results(path, at, c.rest(), version >= 6)
        known.answer_open = False
        return rec
    if kind == ANSWER:
        # Read as the RESULTS it stands for: a MoveResult to the last IN's
        # session at the log's tick, its one result as a RESULTS holds it.
        if version < 7:
            raise LogError(path, at, "record at byte %d: ANSWER in a version %d log, which has none (corrupt log)"
                           % (at, version))
        if not known.answer_open:
            raise LogError(path, at, "record at byte %d (ANSWER): no request before it waits for its answer (an "
                           "ANSWER is the first RESULTS after an IN, before any TICK) (corrupt log)" % at)
        answer = c.rest()
        if len(answer) < ANSWER_FIXED:
            raise _Short()
        payload = (struct.pack("<QI", known.answer_session, 0) + bytes(answer[:ANSWER_FIXED]) +
                   struct.pack("<QI", known.tick, 1) + bytes(answer[ANSWER_FIXED:]))
        rec = _parse_results(path, at, payload, True, "ANSWER")
        known.answer_open = False
        return rec
    return End("END", path, at, c.u64(), c.text())


def _frame_records(path, body, base, version, known):
    """The records of one frame whose body (checked) starts at file offset
    base, in a log of format `version` (known: what the segment's records
    before it tell, kept up to date)."""
    out = []
    pos, n = 0, len(body)
    while pos < n:
        at = base + pos
        if n - pos < 5:
            raise LogError(path, at, "record at byte %d: cut short by the end of its frame (corrupt log)" % at)
        kind = body[pos]
        (length,) = struct.unpack_from("<I", body, pos + 1)
        name = TYPE_NAMES.get(kind, "?")
        if n - pos - 5 < length:
            raise LogError(path, at, "record at byte %d (%s, %d bytes) runs past the end of its frame (corrupt log)"
                           % (at, name, length))
        if kind not in TYPE_NAMES:
            raise LogError(path, at, "record at byte %d: unknown type %d (corrupt log, or a newer format)"
                           % (at, kind))
        c = _Cursor(body, pos + 5, pos + 5 + length)
        try:
            rec = _parse(kind, c, path, at, version, known)
            if c.pos != c.end:
                raise _Short()
        except _Short:
            raise LogError(path, at, "record at byte %d (%s): its %d bytes do not hold its fields (corrupt log)"
                           % (at, name, length)) from None
        out.append(rec)
        pos += 5 + length
    return out


class Segment:
    """One log file. Opening checks its header and that its first record is
    a HEAD; iterating yields its records (the HEAD first) up to its END."""

    def __init__(self, path):
        self.path = path
        self.truncated = False
        self.truncated_at = None
        self.end = None
        try:
            self.size = os.stat(path).st_size
        except OSError as e:
            raise LogError(path, None, "cannot open: %s" % (e.strerror or e)) from None
        first = None
        for rec in self._read(stop_after_first=True):
            first = rec
            break
        if first is None:
            raise LogError(path, None, "no whole frame after the header (the recording stopped before its first tick)")
        if first.type != "HEAD":
            raise LogError(path, first.offset, "first record is %s at byte %d, not HEAD (corrupt log)"
                           % (first.type, first.offset))
        self.head = first

    def __iter__(self):
        return self._read(stop_after_first=False)

    def _read(self, stop_after_first):
        path = self.path
        try:
            f = open(path, "rb")
        except OSError as e:
            raise LogError(path, None, "cannot open: %s" % (e.strerror or e)) from None
        with f:
            header = f.read(HEADER_SIZE)
            if len(header) < HEADER_SIZE:
                raise LogError(path, None, "%d bytes, shorter than a log's %d-byte header (not a sweep log, or cut "
                               "short)" % (len(header), HEADER_SIZE))
            if header[:8] != MAGIC:
                raise LogError(path, 0, "not a sweep log (no SWEEPLOG header)")
            version = struct.unpack_from("<I", header, 8)[0]
            if not VERSION_MIN <= version <= VERSION:
                raise LogError(path, 8, "log format version %d; this reader reads versions %d to %d"
                               % (version, VERSION_MIN, VERSION))
            # Only the bytes there when the pass began: a log still being
            # written is read up to its last whole frame.
            size = os.fstat(f.fileno()).st_size
            at = HEADER_SIZE
            if not stop_after_first:
                self.size = size
                self.truncated, self.truncated_at, self.end = False, None, None
            bound = 1 << 20  # the first frame holds only the HEAD
            known = _Known()
            heads, ended = 0, None
            while at < size:
                if ended is not None:
                    # sweepd writes nothing after an END, as the C replay reads it.
                    raise LogError(path, at, "frame at byte %d after the END at byte %d (corrupt log)"
                                   % (at, ended.offset))
                fh = f.read(FRAME_HEADER) if size - at >= FRAME_HEADER else b""
                if len(fh) < FRAME_HEADER:
                    self._torn(at, stop_after_first)
                    return
                length, crc = struct.unpack("<II", fh)
                if length == 0 or length > bound:
                    raise LogError(path, at, "frame at byte %d: length %d is longer than any frame of this log (%d) "
                                   "(corrupt log)" % (at, length, bound))
                if size - at - FRAME_HEADER < length:
                    self._torn(at, stop_after_first)
                    return
                body = f.read(length)
                if len(body) < length:  # the file shrank under us: as torn
                    self._torn(at, stop_after_first)
                    return
                got = zlib.crc32(body) & 0xFFFFFFFF
                if got != crc:
                    raise LogError(path, at, "frame at byte %d (%d bytes): checksum %08x, the frame says %08x "
                                   "(corrupt log)" % (at, length, got, crc))
                for rec in _frame_records(path, body, at + FRAME_HEADER, version, known):
                    if ended is not None:
                        raise LogError(path, rec.offset, "record at byte %d: %s after the END at byte %d "
                                       "(corrupt log)" % (rec.offset, rec.type, ended.offset))
                    if rec.type == "HEAD":
                        heads += 1
                        if heads > 1:
                            raise LogError(path, rec.offset, "record at byte %d: a second HEAD in one segment "
                                           "(corrupt log)" % rec.offset)
                        bound = frame_bound(rec)
                    yield rec
                    if stop_after_first:
                        return
                    if rec.type == "END":
                        # A segment ends at its END, as the C replay reads it.
                        self.end = ended = rec
                at += FRAME_HEADER + length

    def _torn(self, at, stop_after_first):
        if not stop_after_first:
            self.truncated = True
            self.truncated_at = at


def open_segment(path):
    return Segment(path)


def next_segment_path(path, segment):
    """The file a segment named `path` (number `segment`) continues in:
    sweepd numbers them with at least four digits (-0009, -10000)."""
    if not path.endswith(SUFFIX):
        return None
    digits = path[:-len(SUFFIX)]
    stem = digits.rstrip("0123456789")
    if len(digits) - len(stem) < 4 or not stem.endswith("-"):
        return None
    return "%s%04d%s" % (stem, segment + 1, SUFFIX)


class Log:
    """A log: the segment at path and, with follow, the segments that
    continue it. Iterate it for the records."""

    def __init__(self, path, follow=True):
        self.path = path
        self.follow = follow
        self.first = Segment(path)
        self._reset()

    def _reset(self):
        self.segments = []
        self.files = []
        self.heads = []
        self.bytes = 0
        self.truncated = False
        self.truncated_at = None
        self.ended = False
        self.end_reason = None
        self.next_file = None  # without follow: where a rotated log goes on

    def __iter__(self):
        self._reset()
        seg = self.first
        sessions = {}  # session -> transport, across segments: a session outlives a rotation
        tick = seg.head.first_tick
        while True:
            self.segments.append(seg)
            self.files.append(seg.path)
            self.heads.append(seg.head)
            for rec in seg:
                t = rec.type
                if t == "OPEN":
                    sessions[rec.session] = rec.transport
                elif t == "IN" or t == "OUT":
                    rec = rec._replace(transport=sessions.get(rec.session))
                elif t == "TICK":
                    tick = rec.tick
                yield rec
            self.bytes += seg.size
            if seg.end is None:
                self.truncated = seg.truncated
                self.truncated_at = (seg.path, seg.truncated_at) if seg.truncated else None
                return
            if seg.end.reason != "rotated":
                self.ended = True
                self.end_reason = seg.end.reason
                return
            nxt = next_segment_path(seg.path, seg.head.segment)
            if nxt is None:
                raise LogError(seg.path, seg.end.offset, "rotated, but the name does not end in -NNNN%s, so the next "
                               "segment cannot be found" % SUFFIX)
            if not self.follow:
                self.next_file = nxt
                self.end_reason = "rotated"
                return
            try:
                following = Segment(nxt)
            except LogError as e:
                raise LogError(e.path, e.offset, "the log continues in this next segment of %s, which cannot be read: "
                               "%s" % (seg.path, e.what)) from None
            h = following.head
            if (h.previous != os.path.basename(seg.path) or h.segment != seg.head.segment + 1
                    or h.first_tick != tick):
                raise LogError(nxt, h.offset, "does not continue %s (its HEAD says segment %d after '%s' at tick %d; "
                               "expected segment %d after '%s' at tick %d)"
                               % (seg.path, h.segment, h.previous, h.first_tick, seg.head.segment + 1,
                                  os.path.basename(seg.path), tick))
            seg = following


def open_log(path, follow=True):
    return Log(path, follow)


def read_records(path, follow=True):
    """Every record of the log at path (a generator)."""
    return iter(Log(path, follow))


# --- the wire messages ------------------------------------------------------------

class WireCodeMissing(ImportError):
    """The FlatBuffers code generated from protocol/sweep.fbs is not found."""


_wire = None
_wire_dir = None


def _repo_root():
    # This file is <repo>/client-sdk/python/sweep_log.py.
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _try_import(directory):
    if directory is not None:
        directory = os.path.abspath(directory)
        if not os.path.isdir(os.path.join(directory, "sweep", "wire")):
            return False
        if directory not in sys.path:
            sys.path.insert(0, directory)
    try:
        importlib.import_module("sweep.wire.Message")
    except ImportError as e:
        if getattr(e, "name", None) == "flatbuffers":
            # The generated code is there; the runtime it needs is not.
            import sweep_env
            sweep_env.need_flatbuffers(__file__, as_program=False)
        return False
    return True


class _Wire:
    """The generated classes and the names of the enums."""

    def __init__(self):
        mod = lambda name: importlib.import_module("sweep.wire." + name)
        self.Message = mod("Message").Message
        self.Body = mod("Body").Body
        self.body_names = {v: k for k, v in vars(self.Body).items() if not k.startswith("_")}
        self.body_class = {}
        for value, name in self.body_names.items():
            if value:
                self.body_class[value] = getattr(mod(name), name)
        enum = lambda name: {v: k for k, v in vars(getattr(mod(name), name)).items() if not k.startswith("_")}
        self.error_names = enum("ErrorCode")
        self.role_names = enum("Role")
        self.rule_bits = sorted(enum("Rule").items())  # (bit, name), lowest first


def load_wire(directory=None):
    """Imports the generated code (see the module's docstring for where it
    is looked for) and returns its classes; WireCodeMissing if not found."""
    global _wire, _wire_dir
    if _wire is not None and (directory is None or os.path.abspath(directory) == _wire_dir):
        return _wire
    tried = []
    if directory is not None:
        candidates = [directory]
    else:
        candidates = []
        env = os.environ.get("SWEEP_PY_GENERATED")
        if env:
            candidates.append(env)
        candidates.append(None)  # whatever sys.path (PYTHONPATH) finds
        build = os.environ.get("SWEEP_BUILD_DIR")
        if build:
            candidates.append(os.path.join(build, "client-sdk", "python"))
        candidates.append(os.path.join(_repo_root(), "build", "client-sdk", "python"))
    for d in candidates:
        tried.append(d if d is not None else "PYTHONPATH")
        if _try_import(d):
            _wire = _Wire()
            _wire_dir = os.path.abspath(d) if d is not None else None
            return _wire
    err = WireCodeMissing("the FlatBuffers code generated from protocol/sweep.fbs is not in %s (make generates it "
                          "into $(BUILD)/client-sdk/python; give --generated DIR or SWEEP_PY_GENERATED)"
                          % ", ".join(tried))
    err.tried = tried  # where it looked, for programs without --generated to say it their way
    raise err


def _looks_prefixed(data):
    """A TCP frame: its size, then the buffer (root offset, "SWP1")."""
    return (len(data) >= 12 and data[8:12] == IDENTIFIER
            and struct.unpack_from("<I", data, 0)[0] == len(data) - 4)


def decode(data, transport=None):
    """The Message in data, as sent over `transport` (TCP's size prefix
    stripped; None: told by where the identifier sits)."""
    w = load_wire()
    if transport is None:
        transport = TCP if _looks_prefixed(data) else UDP
    if transport == TCP:
        if len(data) < 4 or struct.unpack_from("<I", data, 0)[0] != len(data) - 4:
            raise ValueError("a TCP message whose size prefix is not its length")
        buf = data[4:]
    else:
        buf = data
    if len(buf) < 8 or not w.Message.MessageBufferHasIdentifier(buf, 0):
        raise ValueError("no SWP1 identifier")
    return w.Message.GetRootAs(buf, 0)


def kind_name(kind):
    return load_wire().body_names.get(kind, "Unknown(%d)" % kind)


def body_of(message):
    """(kind name, the body as its generated table object) of a Message."""
    w = load_wire()
    kind = message.BodyType()
    tab = message.Body()
    cls = w.body_class.get(kind)
    if cls is None or tab is None:
        return kind_name(kind), None
    obj = cls()
    obj.Init(tab.Bytes, tab.Pos)
    return w.body_names[kind], obj


def rule_names(bits):
    """["Speed", "Correction"] for those Rule bits ("BitN" for unknown bits)."""
    w = load_wire()
    names = [name for bit, name in w.rule_bits if bits & bit]
    known = 0
    for bit, _ in w.rule_bits:
        known |= bit
    return names + ["Bit%d" % i for i in range(32) if bits & ~known & (1 << i)]


def error_name(code):
    return load_wire().error_names.get(code, "Unknown(%d)" % code)


def role_name(role):
    return load_wire().role_names.get(role, "Unknown(%d)" % role)


# --- move results ------------------------------------------------------------------

MoveInfo = collections.namedtuple("MoveInfo", (
    "file offset session tick entity sequence position velocity grounded corrected correction rules rule_names "
    "speed_excess time_excess applied_dt resent"))


def _vec(v):
    return (v.X(), v.Y(), v.Z()) if v is not None else None


class _Tracker:
    """What the server knew of entities, to tell an applied move from a
    resend and a new spawn from a Spawned sent again."""

    def __init__(self):
        self.last_sequence = {}  # entity -> sequence of its last applied move
        self.owner = {}          # entity -> session, from its Spawned
        self.spawned = set()

    def spawned_entity(self, session, entity):
        """True for a new entity (its rules are reported)."""
        if entity in self.spawned:
            return False
        self.spawned.add(entity)
        self.owner[entity] = session
        self.last_sequence.pop(entity, None)
        return True

    def gone(self, entity):
        self.spawned.discard(entity)
        self.owner.pop(entity, None)
        self.last_sequence.pop(entity, None)

    def closed(self, session):
        for e in [e for e, s in self.owner.items() if s == session]:
            self.gone(e)

    def applied(self, entity, sequence):
        """False for a result answered again (the sequence is not above the
        entity's last applied one: the server re-sent what it kept)."""
        last = self.last_sequence.get(entity)
        if last is not None and sequence <= last:
            return False
        self.last_sequence[entity] = sequence
        return True


def _results_of(kind, body):
    if kind == "MoveResult":
        return [body]
    if kind == "MoveResultBatch":
        return [body.Results(i) for i in range(body.ResultsLength())]
    return []


def _move_info(rec, r, tracker):
    seq = r.Sequence()
    entity = r.Entity()
    rules = r.Rules()
    return MoveInfo(rec.file, rec.offset, rec.session, r.ServerTick(), entity, seq, _vec(r.Position()),
                    _vec(r.Velocity()), bool(r.Grounded()), bool(r.Corrected()), r.Correction(), rules,
                    rule_names(rules), r.SpeedExcess(), r.TimeExcess(), r.AppliedDt(),
                    not tracker.applied(entity, seq))


def _track(rec, kind, body, tracker):
    """Keeps the tracker up to date with an OUT message (not move results)."""
    if kind == "Spawned":
        tracker.spawned_entity(rec.session, body.Entity())
    elif kind == "Despawned":
        tracker.gone(body.Entity())


class _Rebuilt:
    """A result of a RESULTS record with its core fields from its MOVE (or
    its own image), read like the generated MoveResult table."""

    def __init__(self, move, extra):
        self.m, self.x = move, extra

    def Entity(self):
        return self.m.entity

    def Sequence(self):
        return self.m.sequence

    def ServerTick(self):
        return self.x["server_tick"]

    def Position(self):
        return _Vec3(self.m.position)

    def Velocity(self):
        return _Vec3(self.m.velocity)

    def Grounded(self):
        return self.m.grounded

    def Corrected(self):
        return self.x["corrected"]

    def Correction(self):
        return self.x["correction"]

    def Rules(self):
        return self.m.rules | self.x["rules"]

    def SpeedExcess(self):
        return self.m.speed_excess

    def TimeExcess(self):
        return self.x["time_excess"]

    def AppliedDt(self):
        return self.m.dt


class _Vec3:
    def __init__(self, v):
        self.v = v

    def X(self):
        return self.v[0]

    def Y(self):
        return self.v[1]

    def Z(self):
        return self.v[2]


class _Groups:
    """The MOVE records of the group (since the last IN or TICK) that no
    RESULTS took yet, for rebuilding a RESULTS record's results."""

    def __init__(self):
        self.moves, self.taken = [], 0

    def see(self, rec):
        if rec.type in ("IN", "TICK"):
            self.moves, self.taken = [], 0
        elif rec.type == "MOVE":
            self.moves.append(rec)

    def results(self, rec):
        out = []
        for x in rec.results:
            move = x["image"]
            if move is None:
                if self.taken >= len(self.moves):
                    raise LogError(rec.file, rec.offset, "record at byte %d (RESULTS): a result has no MOVE record "
                                   "before it in its group (corrupt log)" % rec.offset)
                move = self.moves[self.taken]
                self.taken += 1
            out.append(_Rebuilt(move, x))
        return out


def move_results(records):
    """A MoveInfo per entity per move result in the OUT and RESULTS
    records of `records` (a Log, a Segment or any iterable of records)."""
    tracker = _Tracker()
    groups = _Groups()
    for rec in records:
        groups.see(rec)
        if rec.type == "CLOSE":
            tracker.closed(rec.session)
            continue
        if rec.type == "RESULTS":
            for r in groups.results(rec):
                yield _move_info(rec, r, tracker)
            continue
        if rec.type != "OUT":
            continue
        kind, body = body_of(rec.message())
        if body is None:
            continue
        _track(rec, kind, body, tracker)
        for r in _results_of(kind, body):
            yield _move_info(rec, r, tracker)


# --- summary -----------------------------------------------------------------------

def summarize(log):
    """The counts of a log (a path or a Log), as a dict."""
    if not isinstance(log, Log):
        log = Log(log)
    w = load_wire()
    s = collections.OrderedDict()
    ticks = hashes = sessions = closed = requests = messages = 0
    moves = resent = corrections = spawns = 0
    max_correction = 0.0
    first_tick = last_tick = None
    by_request = collections.Counter()
    by_message = collections.Counter()
    rules = collections.Counter()
    errors = collections.Counter()
    tracker = _Tracker()
    groups = _Groups()
    for rec in log:
        t = rec.type
        groups.see(rec)
        results = ()
        if t == "RESULTS":
            messages += 1
            by_message[rec.kind] += 1
            results = groups.results(rec)
        elif t == "TICK":
            ticks += 1
            if first_tick is None:
                first_tick = rec.tick
            last_tick = rec.tick
        elif t == "HASH":
            hashes += 1
        elif t == "OPEN":
            sessions += 1
        elif t == "CLOSE":
            closed += 1
            tracker.closed(rec.session)
        elif t == "IN":
            requests += 1
            by_request[kind_name(rec.message().BodyType())] += 1
        elif t == "OUT":
            messages += 1
            kind, body = body_of(rec.message())
            by_message[kind] += 1
            if body is None:
                continue
            if kind == "Spawned":
                if tracker.spawned_entity(rec.session, body.Entity()):
                    spawns += 1
                    for name in rule_names(body.Rules()):
                        rules[name] += 1
            elif kind == "Despawned":
                tracker.gone(body.Entity())
            elif kind == "Error":
                errors[error_name(body.Code())] += 1
                # A refused Fly or Noclip move is the one rule reported with
                # an Error instead of a result (server/world/moves.c).
                text = body.Message() or b""
                if text.startswith(b"rule FreeMove"):
                    rules["FreeMove"] += 1
            results = _results_of(kind, body)
        for r in results:
            if not tracker.applied(r.Entity(), r.Sequence()):
                resent += 1
                continue
            moves += 1
            for name in rule_names(r.Rules()):
                rules[name] += 1
            if r.Corrected():
                corrections += 1
                max_correction = max(max_correction, r.Correction())
    head = log.heads[0]
    s["ok"] = True
    s["log"] = log.path
    s["files"] = log.files
    s["segments"] = len(log.files)
    s["first_segment"] = head.segment
    s["bytes"] = log.bytes
    s["map"] = head.map_name
    s["map_path"] = head.map_path
    s["world"] = head.world_index
    s["server_version"] = head.server_version
    s["protocol_version"] = head.protocol_version
    s["started_unix_ms"] = head.started_unix_ms
    s["tick_rate"] = head.tick_rate
    s["ticks"] = ticks
    s["first_tick"] = first_tick
    s["last_tick"] = last_tick
    s["hashes"] = hashes
    s["sessions"] = sessions
    s["closed"] = closed
    s["requests"] = requests
    s["requests_by_kind"] = dict(sorted(by_request.items()))
    s["messages"] = messages
    s["messages_by_kind"] = dict(sorted(by_message.items()))
    s["spawns"] = spawns
    s["moves"] = moves
    s["resent"] = resent
    s["corrections"] = corrections
    s["max_correction"] = max_correction
    order = {name: bit for bit, name in w.rule_bits}
    s["rules"] = dict(sorted(rules.items(), key=lambda kv: (order.get(kv[0], 1 << 40), kv[0])))
    s["errors"] = dict(sorted(errors.items()))
    s["truncated"] = log.truncated
    s["truncated_at"] = ({"file": log.truncated_at[0], "offset": log.truncated_at[1]}
                         if log.truncated_at else None)
    s["ended"] = log.ended
    s["end_reason"] = log.end_reason
    if log.next_file:
        s["continues_in"] = log.next_file
    return s


# --- the command ---------------------------------------------------------------------

def _counts(d):
    return ", ".join("%s %d" % kv for kv in d.items()) if d else "none"


def _print_summary(s):
    n = s["segments"]
    print("log %s: %d segment%s (from segment %d), %d bytes, map %s (%s), world %d, sweepd protocol %d"
          % (s["log"], n, "" if n == 1 else "s", s["first_segment"], s["bytes"], s["map"], s["map_path"],
             s["world"], s["protocol_version"]))
    if s["ticks"]:
        print("ticks %d (%d..%d at %g/s), state hashes %d" % (s["ticks"], s["first_tick"], s["last_tick"],
                                                               s["tick_rate"], s["hashes"]))
    else:
        print("ticks 0, state hashes %d" % s["hashes"])
    print("sessions %d (%d closed)" % (s["sessions"], s["closed"]))
    print("requests %d: %s" % (s["requests"], _counts(s["requests_by_kind"])))
    print("messages %d: %s" % (s["messages"], _counts(s["messages_by_kind"])))
    print("moves %d (%d results resent), spawns %d, corrections %d (max %.3f)"
          % (s["moves"], s["resent"], s["spawns"], s["corrections"], s["max_correction"]))
    print("rules: %s" % _counts(s["rules"]))
    print("errors: %s" % _counts(s["errors"]))
    if s["truncated"]:
        end = "truncated: the last frame (%s byte %d) was cut short; read up to it" % (
            s["truncated_at"]["file"], s["truncated_at"]["offset"])
    elif s["ended"]:
        end = "ended: %s" % s["end_reason"]
    elif s.get("continues_in"):
        end = "rotated: continues in %s (not followed)" % s["continues_in"]
    else:
        end = "no END: the recording was cut short at a frame boundary"
    print(end)


def _fmt(x):
    return repr(x)


def _vec_text(v):
    return "(%s)" % ", ".join(_fmt(x) for x in v) if v is not None else "-"


def _record_fields(rec):
    """The record's fields for --records (message summary for IN/OUT)."""
    d = collections.OrderedDict()
    d["type"] = rec.type
    d["file"] = rec.file
    d["offset"] = rec.offset
    if rec.type == "HEAD":
        for k in Head._fields[3:]:
            d[k] = getattr(rec, k)
    elif rec.type == "OPEN":
        d["session"] = rec.session
        d["role"] = role_name(rec.role)
        d["transport"] = TRANSPORT_NAMES.get(rec.transport, "Unknown(%d)" % rec.transport)
        d["identity"] = rec.identity
        d["client"] = rec.client
    elif rec.type in ("IN", "OUT"):
        msg = rec.message()
        kind, body = body_of(msg)
        d["session"] = rec.session
        d["transport"] = TRANSPORT_NAMES.get(rec.transport, "?")
        d["kind"] = kind
        d["sequence"] = msg.Sequence()
        d["bytes"] = len(rec.data)
        if kind == "Error" and body is not None:
            d["code"] = error_name(body.Code())
            d["message"] = (body.Message() or b"").decode("utf-8", "replace")
        elif kind in ("Spawned", "Despawned", "Despawn", "Move") and body is not None:
            d["entity"] = body.Entity()
        elif kind in ("MoveBatch",) and body is not None:
            d["moves"] = body.MovesLength()
        elif kind in ("MoveResultBatch",) and body is not None:
            d["results"] = body.ResultsLength()
        elif kind == "MoveResult" and body is not None:
            d["entity"] = body.Entity()
    elif rec.type == "RESULTS":
        d["session"] = rec.session
        d["kind"] = rec.kind
        d["sequence"] = rec.sequence
        d["results"] = len(rec.results)
        d["whole"] = sum(1 for x in rec.results if x["image"] is not None)
    else:
        for k in type(rec)._fields[3:]:
            d[k] = getattr(rec, k)
    return d


def _record_line(d):
    head = "%s %10d %-5s" % (os.path.basename(d["file"]), d["offset"], d["type"])
    rest = []
    for k, v in d.items():
        if k in ("type", "file", "offset"):
            continue
        if k == "kind":
            rest.append(v)
        elif isinstance(v, str):
            rest.append("%s=%s" % (k, json.dumps(v) if (not v or " " in v or '"' in v) else v))
        else:
            rest.append("%s=%s" % (k, v))
    return head + " " + " ".join(rest)


def _move_fields(m):
    d = m._asdict()
    d["rules"] = m.rule_names
    del d["rule_names"]
    d["rule_bits"] = m.rules
    return d


def _move_line(m):
    line = "tick=%d session=%d entity=%d seq=%d position=%s velocity=%s grounded=%d corrected=%d correction=%s " \
           "rules=%s" % (m.tick, m.session, m.entity, m.sequence, _vec_text(m.position), _vec_text(m.velocity),
                         m.grounded, m.corrected, _fmt(m.correction), ",".join(m.rule_names) or "none")
    if m.speed_excess:
        line += " speed_excess=%s" % _fmt(m.speed_excess)
    if m.time_excess:
        line += " time_excess=%s" % _fmt(m.time_excess)
    line += " applied_dt=%s" % _fmt(m.applied_dt)
    if m.resent:
        line += " resent=1"
    return line


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="sweep_log.py",
        description="Read a session log that sweepd --record wrote: a summary, its records or its move results. "
                    "A rotated log is followed from LOG through the segments after it.")
    ap.add_argument("log", metavar="LOG")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--summary", dest="what", action="store_const", const="summary",
                      help="counts (the default)")
    what.add_argument("--records", dest="what", action="store_const", const="records",
                      help="one line per record")
    what.add_argument("--moves", dest="what", action="store_const", const="moves",
                      help="one line per move result")
    ap.add_argument("--json", action="store_true", help="JSON (a line per record or move with --records, --moves)")
    ap.add_argument("--no-follow", action="store_true", help="read LOG alone, not the segments after it")
    ap.add_argument("--generated", metavar="DIR",
                    help="the flatc --python output for protocol/sweep.fbs (default: $SWEEP_PY_GENERATED, "
                         "PYTHONPATH, $SWEEP_BUILD_DIR/client-sdk/python, build/client-sdk/python)")
    a = ap.parse_args(argv)
    what = a.what or "summary"
    out = sys.stdout
    try:
        load_wire(a.generated)
        log = Log(a.log, follow=not a.no_follow)
        if what == "summary":
            s = summarize(log)
            if a.json:
                json.dump(s, out)
                out.write("\n")
            else:
                _print_summary(s)
        elif what == "records":
            for rec in log:
                d = _record_fields(rec)
                out.write((json.dumps(d) if a.json else _record_line(d)) + "\n")
        else:
            for m in move_results(log):
                out.write((json.dumps(_move_fields(m)) if a.json else _move_line(m)) + "\n")
    except (LogError, WireCodeMissing) as e:
        out.flush()
        if a.json:
            err = {"ok": False, "error": str(e)}
            if isinstance(e, LogError):
                err["file"] = e.path
                err["offset"] = e.offset
            json.dump(err, out)
            out.write("\n")
        else:
            print("sweep_log: %s" % e, file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `| head` stopped reading, which is no failure; stdout goes nowhere
        # so that Python's own flush at exit does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


if __name__ == "__main__":
    import sweep_env
    sweep_env.need_flatbuffers(__file__)  # runs itself again under an interpreter that has it
    sys.exit(main())
