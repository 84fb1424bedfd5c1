#!/usr/bin/python3
"""sweep_client.py - a small Python client for sweepd, on the official
FlatBuffers runtime (Debian's python3-flatbuffers) and the code `flatc
--python` generates from protocol/sweep.fbs.

It shows the whole protocol from another language: the handshake (over UDP
the padded Hello, the server's Challenge and the Hello that returns its
cookie) with an identity token (--token) and the role the server gave,
Spawn, Move (a wish: the velocity wished across the ground, and the jump
button) one at a time or in MoveBatches (--batch N), WatchWorld and the
WorldState pushes that follow it, and the server's Error messages, over
IPv4 or IPv6 (--connect [::1]:PORT). As a program it spawns one player (at
a spawn point of the map, or, for the server role, at --position) and
moves it, printing one line per result with the rules the server applied:

    client-sdk/python/sweep_client.py --connect 127.0.0.1:PORT \\
        --velocity 1,0,0 --count 10 [--jump] [--crouch] [--udp] [--bits] [--token T] \\
        [--map build/maps/arena.db] [--spawn-point N] [--batch N]

    welcome session=3 map=arena hash=... role=Player identity=#guest transport=tcp peer=127.0.0.1:PORT
    spawned entity=123 position=(0.0, 0.0, 1.0) spawn_point=1 rules=none picked_by=server
    move seq=3 position=(...) velocity=(...) grounded=0 contacts=0 rules=none applied_dt=0.016

Any python3 will do: one without the FlatBuffers runtime runs the script
again under /usr/bin/python3 (or $SWEEP_PYTHON) when that one has it, or
says what to run (sweep_env.py). The generated code is not kept in git:
make writes it to $(BUILD)/client-sdk/python, and it is found there without
PYTHONPATH (build/ of this repository, $SWEEP_BUILD_DIR, or
$SWEEP_PY_GENERATED; see client-sdk/README.md).

--map FILE reads the map's spawn points and player radii with sqlite3
(maps/schema.sql): the client asks them, checks that the server runs that
map and put the player where the map says, and prints which point it got.
Without --spawn-point the server picks the point (a player is always put at
one); --spawn-point N asks for the N-th.

A player's moves go out in real time (one every --dt, a batch once its
moves' time has passed: the server grants a player no more time than
passes), and after a stall of the process it catches up at most half its
time bank; the server role's go at once, or every --interval ms. A batch holds
at most what the Welcome allows (max_batch; over UDP what one datagram
holds, max_frame_size 1200) and, for a paced player, half the time bank.

With --query ITEM (again for more items) it asks the world questions
instead of spawning: "ray X,Y,Z X,Y,Z", "rayall ...", "los ...", "sweep
X,Y,Z X,Y,Z RX,RY,RZ" or "overlap X,Y,Z R", at the newest tick or (--at
TICK[+FRACTION]) as the world was then, in one Query or, for more items
than one holds (max_batch, a datagram), in several, one after another;
and prints a line per answer and one per hit:

    answer item=0 kind=Ray result=None tick=1234 fraction=0.0 flags=0 hits=1
      hit kind=3 entity=77 shape=1 triangle=4294967295 material=0 mover=0 fraction=0.25 distance=2.0 point=(x, y, z) normal=(x, y, z)

With --watch N it subscribes to the movers' poses every N ticks and prints
--count WorldStates (the answer, then the pushes), a line per WorldState
and one per mover:

    world tick=1234 movers=4/4
      mover id=1 flags=5 position=(x, y, z) rotation=(x, y, z, w) path_tick=12 wait=0 dir=1

("movers=K/N": K movers in this message of the N the world has; over UDP
a world too big for one datagram comes in several WorldStates per tick.)
--bits prints the IEEE-754 bits of every double, so a test can compare
them with the C core exactly. Exits 1 with the error's name (e.g. "error
BadDt: ...") when the server refuses a request, or when it runs another
map than --map; 2 for a bad command line, a map file that cannot be read,
or a Python without what it needs.

Each request waits 20 s at most for its answer (Client's timeout), however
much else the server sends meanwhile; then it ends in "error TimeoutError:
no answer to Spawn (sequence 2) within 20 s", exit 1. What the server
sends is checked before it is read (bounds, required fields, UTF-8; a TCP
frame at most MAX_FRAME, 1 MiB): a TCP frame that fails ends it in "error
ProtocolError: ...", exit 1; a UDP datagram that fails is dropped, as a
lost one.
"""

import argparse
import os
import socket
import sqlite3
import struct
import sys
import time
import urllib.parse

import sweep_env

sweep_env.need_flatbuffers(__file__, as_program=__name__ == "__main__")
sweep_env.need_wire(__file__, as_program=__name__ == "__main__")

import flatbuffers  # noqa: E402 (needs the checks above)
from sweep.wire import (Body, Bye, Challenge, Error, ErrorCode, Hello, Message, Move,  # noqa: E402
                        MoveBatch, MoveMode, MoveResult, MoveResultBatch, Ping, Quat, Query,
                        QueryItem, QueryKind, QueryResult, Role, Rule, Spawn, Spawned, Vec3,
                        WatchWorld, Welcome, WorldState)

PROTOCOL_VERSION = 1
IDENTIFIER = b"SWP1"
UDP_HELLO_MIN = 256
UDP_MAX_DATAGRAM = 1200
HELLO_RESEND = 0.25  # seconds between resends of a UDP handshake datagram
# Seconds without a whole answer before a UDP request (moves, Spawn, Query,
# WatchWorld) is sent again, the same bytes: the server answers a move it
# applied from the results it kept, the repeat of a session's newest Spawn
# with the entity it made, and a Query or WatchWorld (which only sets the
# subscription again) afresh.
RESEND = 0.5
# The largest TCP frame taken from the server, prefix excluded: libsweep's
# bound. Not the Welcome's max_frame_size, which is what the server takes (a
# batch of results with contacts may be longer); a prefix above it is
# refused before a byte of the frame is waited for or kept.
MAX_FRAME = 1 << 20
RECV_BYTES = 65536   # bytes asked of one TCP read
MAP_APPLICATION_ID = 0x53574D50  # "SWMP", maps/schema.sql
MAP_VERSIONS = (1, 2, 3, 4)      # the map layouts whose spawns and radii this reads

ERROR_NAMES = {v: k for k, v in vars(ErrorCode.ErrorCode).items() if not k.startswith("_")}
ROLE_NAMES = {v: k for k, v in vars(Role.Role).items() if not k.startswith("_")}
MODES = {k.lower(): v for k, v in vars(MoveMode.MoveMode).items() if not k.startswith("_")}
# Rule is a set of bit flags: name of each bit, lowest first.
RULE_BITS = sorted((v, k) for k, v in vars(Rule.Rule).items() if not k.startswith("_"))
JUMP = 1  # Move.buttons bit 0 (core/motion.h SWEEP_WISH_JUMP)
CROUCH = 2  # Move.buttons bit 1 (SWEEP_WISH_CROUCH): held to be crouched, on a map with crouching


def rule_names(bits):
    """"Speed,TimeBudget" for the Rule bits set, "none" for none."""
    names = [name for bit, name in RULE_BITS if bits & bit]
    known = 0
    for bit, _ in RULE_BITS:
        known |= bit
    names += ["Bit%d" % i for i in range(32) if bits & ~known & (1 << i)]
    return ",".join(names) if names else "none"


def split_address(text):
    """"HOST:PORT" or "[IPV6]:PORT" -> (host, port); ValueError if neither."""
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or text[end + 1:end + 2] != ":":
            raise ValueError("%r: an IPv6 address is written [ADDRESS]:PORT" % text)
        host, port = text[1:end], text[end + 2:]
    else:
        host, sep, port = text.rpartition(":")
        if not sep:
            raise ValueError("%r: wants HOST:PORT" % text)
        if ":" in host:
            raise ValueError("%r: an IPv6 address goes in brackets, as in [%s]:%s" % (text, host, port))
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError("%r: wants HOST:PORT with a port from 1 to 65535" % text)
    return host, int(port)


def join_address(host, port):
    return "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)


class ServerError(Exception):
    """An Error message from the server: its code name, text and sequence."""

    def __init__(self, code, message, sequence):
        super().__init__(message)
        self.name = ERROR_NAMES.get(code, "Unknown(%d)" % code)
        self.code = code
        self.sequence = sequence


class ProtocolError(ConnectionError):
    """The server sent what the protocol does not allow: a frame above
    MAX_FRAME, or a TCP frame that does not decode (an offset or length
    past its end, a required field missing, a string that is not UTF-8).
    Nothing more can be read from the connection. (A UDP datagram that does
    not decode is dropped instead, and counted in
    Client.datagrams_dropped.)"""


# What the client reads of each message it is sent, checked before the
# official runtime reads it: that runtime trusts the buffer, so an offset
# past the end raises struct.error and one before it (unpack_from takes a
# negative offset from the end) reads garbage without a word. Per table,
# field -> (its vtable offset, as the generated code's Offset(N); what it
# is: a scalar's or struct's bytes, "str", ("vector", element bytes[, most
# items the protocol allows]) or ("tables", table); required). Fields the
# client never reads are left out, as are tables it only skips, which are
# checked as tables alone.
#
# Bounds alone do not bound the work: every answer of a QueryResult may
# point at one long vector of hits, so a 1 MiB frame would hand the reader
# millions of hits to copy. Where the protocol caps a list, a longer one is
# refused.
_STR, _REQUIRED = "str", True
QUERY_HITS_MAX = 10  # protocol/message.h SWEEP_WIRE_QUERY_HITS_MAX: hits of one QueryAnswer
MAX_CONTACTS = 8     # core/move.h SWEEP_MAX_CONTACTS: contacts of one MoveResult
_READS = {
    # body is a union: its type, then an offset to a table of that type.
    "Message": {"sequence": (4, 4), "server_tick": (6, 8), "body_type": (8, 1), "body": (10, 4, _REQUIRED)},
    "Bye": {"reason": (4, _STR)},
    "Error": {"code": (4, 2), "message": (6, _STR, _REQUIRED), "sequence": (8, 4)},
    "Challenge": {"cookie": (4, ("vector", 1), _REQUIRED)},
    "Welcome": {"protocol_version": (4, 4), "session_id": (6, 8), "tick_rate": (8, 8),
                "map_name": (10, _STR, _REQUIRED), "map_hash": (12, ("vector", 1), _REQUIRED),
                "max_batch": (14, 4), "max_frame_size": (16, 4), "max_entities": (18, 4), "role": (20, 1),
                "identity": (22, _STR), "time_bank": (24, 8), "udp_key": (28, 8)},
    "Spawned": {"entity": (4, 4), "position": (6, 24, _REQUIRED), "radii": (8, 24, _REQUIRED), "rules": (10, 4),
                "spawn_point": (12, 4)},
    "MoveResult": {"sequence": (6, 4), "position": (10, 24, _REQUIRED), "velocity": (12, 24, _REQUIRED),
                   "grounded": (14, 1), "contacts": (20, ("vector", 56, MAX_CONTACTS)), "corrected": (22, 1), "rules": (36, 4),
                   "speed_excess": (38, 8), "time_excess": (40, 8), "applied_dt": (42, 8), "crouched": (60, 1),
                   "stance_blocked": (62, 1)},
    "MoveResultBatch": {"results": (4, ("tables", "MoveResult"), _REQUIRED)},
    "WorldState": {"tick": (4, 8), "movers": (6, ("vector", 64), _REQUIRED), "mover_count": (8, 4),
                   "paths": (10, ("vector", 12))},
    "QueryResult": {"answers": (4, ("tables", "QueryAnswer"), _REQUIRED), "first": (6, 4)},
    "QueryAnswer": {"code": (4, 2), "message": (6, _STR), "tick": (8, 8), "fraction": (10, 8), "flags": (12, 4),
                    "hits": (14, ("vector", 88, QUERY_HITS_MAX))},
}
_BODY_NAMES = {v: k for k, v in vars(Body.Body).items() if not k.startswith("_")}
_MAX_TABLES = 100000  # as the C verifier (protocol/verify.h): a bound on the work a buffer asks


class _Check:
    """Bounds and required fields of one buffer, as _READS says."""

    def __init__(self, buf):
        self.buf = buf
        self.tables = 0

    def _fail(self, name, why):
        raise ProtocolError("malformed %s from the server: %s" % (name, why))

    def _within(self, name, at, size, what):
        if at < 0 or at + size > len(self.buf):
            self._fail(name, "%s at %d (%d bytes) is past the end of the %d-byte buffer"
                       % (what, at, size, len(self.buf)))

    def _u32(self, at):
        return struct.unpack_from("<I", self.buf, at)[0]

    def _target(self, name, at, field):
        """Where the offset at `at` points: a table, string or vector."""
        to = at + self._u32(at)
        self._within(name, to, 4, field)
        return to

    def table(self, name, pos):
        """Checks the table `name` at pos and what _READS lists of it;
        returns a function giving a field's offset in it (0: absent)."""
        self.tables += 1
        if self.tables > _MAX_TABLES:
            self._fail(name, "more than %d tables in one buffer" % _MAX_TABLES)
        self._within(name, pos, 4, "the table")
        vt = pos - struct.unpack_from("<i", self.buf, pos)[0]
        self._within(name, vt, 4, "its vtable")
        vsize, tsize = struct.unpack_from("<HH", self.buf, vt)
        if vsize < 4 or vsize % 2 or tsize < 4:
            self._fail(name, "a vtable of %d bytes for a table of %d" % (vsize, tsize))
        self._within(name, vt, vsize, "its vtable")
        self._within(name, pos, tsize, "the table")

        def offset(slot):
            return struct.unpack_from("<H", self.buf, vt + slot)[0] if slot + 2 <= vsize else 0

        for field, spec in _READS.get(name, {}).items():
            slot, kind, required = spec[0], spec[1], len(spec) > 2
            o = offset(slot)
            if not o:
                if required:
                    raise ProtocolError("%s from the server without its required %s" % (name, field))
                continue
            size = kind if isinstance(kind, int) else 4
            if o + size > tsize:
                self._fail(name, "%s at byte %d (%d bytes) of a %d-byte table" % (field, o, size, tsize))
            if isinstance(kind, int):
                continue
            to = self._target(name, pos + o, field)
            count = self._u32(to)
            if kind == _STR:
                # Its bytes and the 0 after them, as FlatBuffers writes a string.
                self._within(name, to + 4, count + 1, field)
                try:
                    self.buf[to + 4:to + 4 + count].decode()
                except UnicodeDecodeError:
                    self._fail(name, "%s is not UTF-8" % field)
            elif kind[0] == "vector":
                if len(kind) > 2 and count > kind[2]:
                    self._fail(name, "%s holds %d items, the protocol allows at most %d" % (field, count, kind[2]))
                self._within(name, to + 4, count * kind[1], "%s (%d items)" % (field, count))
            else:
                self._within(name, to + 4, count * 4, "%s (%d items)" % (field, count))
                for i in range(count):
                    at = to + 4 + 4 * i
                    self.table(kind[1], self._target(name, at, field))
        return offset

    def message(self):
        """Checks the Message at the buffer's root and its body."""
        if len(self.buf) < 8:
            raise ProtocolError("the server sent a buffer of %d bytes, too short for a message" % len(self.buf))
        if self.buf[4:8] != IDENTIFIER:
            raise ProtocolError("the server sent a buffer without the SWP1 identifier")
        root = self._u32(0)
        offset = self.table("Message", root)
        kind = self.buf[root + offset(8)] if offset(8) else 0
        if kind == 0:
            raise ProtocolError("Message from the server without its required body")
        # A kind this client does not know (a newer server's) is checked as
        # a table and then skipped by the readers.
        body = self._target("Message", root + offset(10), "body")
        self.table(_BODY_NAMES.get(kind, "message of kind %d" % kind), body)


class ServerBye(ConnectionError):
    """The server said Bye (it is shutting down or closing this session);
    the reason is the exception's text. The session is over: every call
    after it raises it again."""


class Client:
    """One connection to sweepd, TCP (size-prefixed frames) or UDP (one
    buffer per datagram), over IPv4 or IPv6. Requests are answered in
    order, so each call sends one request and reads until the answer to its
    sequence. Each request has one deadline, `timeout` seconds after it
    goes, whatever else the server sends meanwhile: past it the call
    raises socket.timeout naming its request. A call is one request, but
    for query() and move_batch() of more than one message holds: as
    libsweep's blocking sweep_client_query, they send one message after
    another, and each message has the whole timeout for its answer."""

    def __init__(self, address, udp=False, timeout=20.0, name="sweep-python", token=None):
        """address: "HOST:PORT", "[IPV6]:PORT" or (host, port). Every
        address the name has is tried in turn until one answers the
        handshake (a server may listen on 127.0.0.1 where "localhost" is
        ::1 first): one that refuses gives way to the next at once, and
        over UDP, as libsweep does, one that has not answered within its
        share of the time left (split evenly between it and the addresses
        after it) gives way too; the first that answers keeps the rest.
        timeout: seconds a call may take (None: no limit); the
        constructor's is the whole handshake, every address tried and
        every round of it, as libsweep's connect timeout is."""
        host, port = split_address(address) if isinstance(address, str) else address
        self.udp = udp
        self.timeout = timeout
        self.seq = 0
        self._rx = bytearray()  # TCP bytes read and not yet taken as a frame
        self.datagrams_dropped = 0  # UDP datagrams that did not decode
        self._closed = False
        # UDP: the session's key (Welcome.udp_key), on every datagram after
        # the Welcome; the server drops a datagram without it, since anyone
        # can send from this client's address. 0 until then.
        self._udp_key = 0
        kind = socket.SOCK_DGRAM if udp else socket.SOCK_STREAM
        infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC, kind)
        # As libsweep's, the timeout bounds the whole handshake, connects,
        # rounds and BadCookie restarts on every address alike: a server
        # answering each step just in time must not hold the caller for a
        # multiple of it.
        deadline = self._deadline()
        self._welcomed = False
        for i, (family, type_, proto, _, addr) in enumerate(infos):
            self.sock = socket.socket(family, type_, proto)
            # What ended the last address's session is not this one's.
            self._ended = None
            self._pending = []
            # Over UDP nothing refuses a datagram a firewall drops or a host
            # ignores: an address that stays silent must not hold the time
            # of the addresses after it.
            share = None
            left = len(infos) - i
            if udp and deadline is not None and left > 1:
                share = time.monotonic() + (deadline - time.monotonic()) / left
            try:
                self._wait_until(deadline)
                self.sock.connect(addr)
                if not udp:
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.peer = join_address(addr[0], addr[1])
                self.welcome = self._hello(name, token, deadline, share)
                self._welcomed = True
                return
            except OSError as e:
                self.sock.close()
                # A refused or unreachable address gives way to the next,
                # and so does one silent past its share of the time; one
                # silent past the deadline, or that answers what the
                # protocol does not allow, is the answer.
                silent_share = isinstance(e, socket.timeout) and share is not None and time.monotonic() < deadline
                if i == len(infos) - 1 or isinstance(e, ProtocolError) or \
                        (isinstance(e, socket.timeout) and not silent_share):
                    raise
            except BaseException:
                # A refusal (ServerError), or an interrupt: no Client is
                # made to close it later.
                self.sock.close()
                raise

    def close(self):
        """Says Bye and closes the socket; again, does nothing. Over UDP
        the server has no other word that the client is gone and would
        keep its session and entities until its idle timeout, so the Bye
        goes as libsweep's sweep_client_close sends it: keyed, once, best
        effort and without waiting."""
        if self._closed:
            return
        self._closed = True
        if self._ended is not None:
            # The server ended the session (its Bye) or is gone: nobody to tell.
            self.sock.close()
            return
        try:
            b = flatbuffers.Builder(64)
            reason = b.CreateString("client closing")
            Bye.Start(b)
            Bye.AddReason(b, reason)
            data = self._finish(b, self._next_seq(), Body.Body.Bye, Bye.End(b))
            self.sock.setblocking(False)
            self.sock.send(data)
        except OSError:
            pass  # a server gone, or a full buffer: it cleans up anyway
        finally:
            self.sock.close()

    # --- framing -----------------------------------------------------------

    def _next_seq(self):
        self.seq += 1
        return self.seq

    def _finish(self, b, seq, body_type, body):
        Message.Start(b)
        Message.AddSequence(b, seq)
        Message.AddBodyType(b, body_type)
        Message.AddBody(b, body)
        if self._udp_key and body_type != Body.Body.Hello:
            Message.AddKey(b, self._udp_key)
        root = Message.End(b)
        if self.udp:
            b.Finish(root, file_identifier=IDENTIFIER)
        else:
            b.FinishSizePrefixed(root, file_identifier=IDENTIFIER)
        return bytes(b.Output())

    def _send(self, data):
        if self._ended is not None:
            if self._pending:
                return  # what came before the end is read first, and nothing goes to a server gone
            raise self._ended
        if not self.udp:
            self.sock.sendall(data)
            return
        try:
            self.sock.send(data)
        except (ConnectionRefusedError, ConnectionResetError) as e:
            self._refused(e)
            raise self._ended

    def _refused(self, refusal):
        """Over UDP the server's port refused a datagram (an ICMP port
        unreachable: nobody listens there any more; Windows says reset).
        The system reports it once, ahead of the datagrams still queued:
        what the server sent before it went, its Bye among them. They are
        kept to be read first (a call's answer may be there), and the
        session ends after them, with the Bye if there was one."""
        self.sock.setblocking(False)
        try:
            while True:
                self._pending.append(self.sock.recv(65536))
        except OSError:
            pass  # empty (or a second refusal): all that came is read
        finally:
            self.sock.settimeout(self.timeout)
        self._ended = refusal
        for buf in self._pending:
            reason = self._bye_reason(buf)
            if reason is not None and self._welcomed:
                self._ended = ServerBye(reason)
                break

    @staticmethod
    def _bye_reason(buf):
        """The reason of a Bye in buf (a whole message), else None."""
        try:
            _Check(buf).message()
        except ProtocolError:
            return None
        m = Message.Message.GetRootAs(buf, 0)
        if m.BodyType() != Body.Body.Bye:
            return None
        bye = Bye.Bye()
        bye.Init(m.Body().Bytes, m.Body().Pos)
        return (bye.Reason() or b"").decode() or "no reason given"

    def _frame(self, until):
        """The next TCP frame, its prefix taken off, or socket.timeout at
        `until` (time.monotonic(); None: no limit). What was read stays in
        self._rx until a whole frame is there, so a read that times out
        part way loses nothing; and each read waits only for what is left
        of the time, so a server sending a byte now and then cannot hold a
        call past its deadline."""
        while True:
            if self._ended is not None:
                raise self._ended
            if len(self._rx) >= 4:
                (size,) = struct.unpack_from("<I", self._rx)
                if size > MAX_FRAME:
                    raise ProtocolError("the server announced a frame of %d bytes, above %d" % (size, MAX_FRAME))
                if len(self._rx) >= 4 + size:
                    frame = bytes(self._rx[4:4 + size])
                    del self._rx[:4 + size]
                    return frame
            self._wait_until(until)
            chunk = self.sock.recv(RECV_BYTES)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self._rx += chunk

    def _wait_until(self, until):
        """Sets the socket's timeout to what is left until `until`."""
        if until is None:
            self.sock.settimeout(None)
            return
        left = until - time.monotonic()
        if left <= 0:
            raise socket.timeout("timed out")
        self.sock.settimeout(left)

    def _datagram(self, until):
        """The next UDP datagram if it decodes, else None."""
        if self._pending:
            buf = self._pending.pop(0)
        else:
            if self._ended is not None:
                raise self._ended
            self._wait_until(until)
            try:
                buf = self.sock.recv(65536)
            except (ConnectionRefusedError, ConnectionResetError) as e:
                self._refused(e)
                return None  # what came before the refusal, then the refusal
        try:
            _Check(buf).message()
            return buf
        except ProtocolError:
            # A datagram may be forged or stray: as libsweep does, one
            # bad datagram is taken for a lost one (which the resends
            # make up for), not for the server. The caller looks at its
            # clock again, so a stream of them holds neither the deadline
            # nor the resends back.
            self.datagrams_dropped += 1
            return None

    def _recv(self, until):
        """The next Message from the server (the official runtime reads it,
        once _Check has found it sound), None for a UDP datagram dropped,
        or socket.timeout at `until`."""
        if self.udp:
            buf = self._datagram(until)
            if buf is None:
                return None
        else:
            buf = self._frame(until)
            _Check(buf).message()
        m = Message.Message.GetRootAs(buf, 0)
        if m.BodyType() == Body.Body.Bye and self.udp and not self._welcomed:
            # Before the Welcome a Bye can only be for an earlier session of
            # this address and port (its idle timeout), which the handshake
            # replaces: nothing of ours.
            self.datagrams_dropped += 1
            return None
        if m.BodyType() == Body.Body.Bye:
            # Nothing more comes: over UDP the next read would only see the
            # closed port's refusal. Every call from now on says so.
            self._ended = ServerBye(self._bye_reason(buf))
            raise self._ended
        return m

    @staticmethod
    def _error(m, tab):
        e = Error.Error()
        e.Init(tab.Bytes, tab.Pos)
        return ServerError(e.Code(), e.Message().decode(), e.Sequence()), m.Sequence()

    def _deadline(self):
        """A call's deadline from now (time.monotonic()), None without a
        timeout."""
        return None if self.timeout is None else time.monotonic() + self.timeout

    def _exchange(self, data, awaited, take, resend=None, deadline=None):
        """Sends data (None: nothing) and hands each message that comes to
        take(m) until it returns True. The whole exchange has one deadline,
        `deadline` or else self.timeout from now: a server that keeps
        sending other things (Pongs, pushes) never holds a call longer than
        that, and past it socket.timeout says what was awaited. Over UDP
        with `resend` (seconds) the same bytes go again whenever that long
        passed since they last went."""
        now = time.monotonic()
        if deadline is None:
            deadline = self._deadline()
        resend_at = now + resend if self.udp and resend and data is not None else None
        if data is not None:
            self._send(data)
        try:
            while True:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    raise socket.timeout("no %s within %g s" % (awaited, self.timeout))
                if resend_at is not None and now >= resend_at:
                    self._send(data)
                    resend_at = now + resend
                ends = [t for t in (deadline, resend_at) if t is not None]
                try:
                    m = self._recv(min(ends) if ends else None)
                except socket.timeout:
                    continue  # the loop's top says whether to resend or give up
                if m is not None and take(m):
                    return
        finally:
            self.sock.settimeout(self.timeout)

    def _request(self, data, what, seq, want, resend=None, deadline=None):
        """Sends data (request `what` of sequence seq) and returns the body
        table of the answer of kind `want` to seq, raising the server's
        Error about it; as _exchange waits (until `deadline`, or
        self.timeout from now)."""
        got = []

        def take(m):
            kind, tab = m.BodyType(), m.Body()
            if kind == Body.Body.Error:
                err, about = self._error(m, tab)
                if about == seq or err.sequence == seq:
                    raise err
            elif kind == want and m.Sequence() == seq:
                got.append(tab)
                return True
            return False

        self._exchange(data, "answer to %s (sequence %d)" % (what, seq), take, resend, deadline)
        return got[0]

    # --- requests ------------------------------------------------------------

    def _hello_bytes(self, seq, name, token, cookie):
        pad = 0
        while True:
            b = flatbuffers.Builder(512)
            name_off = b.CreateString(name)
            token_off = b.CreateString(token) if token else None
            cookie_off = b.CreateByteVector(cookie) if cookie is not None else None
            pad_off = b.CreateByteVector(bytes(pad)) if pad else None
            Hello.Start(b)
            Hello.AddProtocolVersion(b, PROTOCOL_VERSION)
            Hello.AddClientName(b, name_off)
            if token_off is not None:
                Hello.AddAuthToken(b, token_off)
            if cookie_off is not None:
                Hello.AddCookie(b, cookie_off)
            if pad_off is not None:
                Hello.AddPadding(b, pad_off)
            data = self._finish(b, seq, Body.Body.Hello, Hello.End(b))
            # Over UDP the server never answers more bytes than it got, so a
            # Hello must be big enough to carry the Challenge back.
            if not self.udp or len(data) >= UDP_HELLO_MIN:
                return data
            pad += UDP_HELLO_MIN - len(data)

    def _ask_hello(self, data, seq, want, deadline):
        """Sends a Hello and returns the answer of kind `want` to `seq`. Over
        UDP a lost datagram (the Hello or its answer) is made up for by
        sending the same bytes again every HELLO_RESEND seconds, until the
        handshake's deadline."""
        return self._request(data, "Hello", seq, want, resend=HELLO_RESEND, deadline=deadline)

    def _hello(self, name, token, deadline, share=None):
        """The handshake; over UDP the first Hello is answered by `share`
        (time.monotonic(); None: by the deadline), and an address that
        answered keeps the rest of the time."""
        cookie = None
        for attempt in range(3):
            if self.udp:
                # Round 1: a cookie for this address. Every Challenge has a
                # cookie of its own, and the session the server makes is
                # bound to the cookie of the Hello that made it.
                seq = self._next_seq()
                tab = self._ask_hello(self._hello_bytes(seq, name, token, None), seq, Body.Body.Challenge,
                                      share if attempt == 0 and share is not None else deadline)
                ch = Challenge.Challenge()
                ch.Init(tab.Bytes, tab.Pos)
                cookie = bytes(ch.Cookie(i) for i in range(ch.CookieLength()))
            # Round 2 (UDP) resends the very same Hello, cookie and all: a
            # repeated Hello with the session's cookie gets the same Welcome,
            # where a new cookie would be taken for a new client on this
            # port. BadCookie (expired, or a NAT gave us another port) starts
            # over.
            seq = self._next_seq()
            try:
                tab = self._ask_hello(self._hello_bytes(seq, name, token, cookie), seq, Body.Body.Welcome,
                                      deadline)
                break
            except ServerError as e:
                if not self.udp or e.code != ErrorCode.ErrorCode.BadCookie or attempt == 2:
                    raise
        w = Welcome.Welcome()
        w.Init(tab.Bytes, tab.Pos)
        self._udp_key = w.UdpKey() if self.udp else 0
        # udp_port (a sweepd with --threads: the session's own port) is
        # ignored: this client stays on the port it was given, which serves
        # the session too, with a hop between the server's threads.
        identity = w.Identity()
        return {
            "protocol_version": w.ProtocolVersion(),
            "session_id": w.SessionId(),
            "tick_rate": w.TickRate(),
            "map_name": w.MapName().decode(),
            "map_hash": bytes(w.MapHash(i) for i in range(w.MapHashLength())).hex(),
            # Over UDP: what one datagram holds (max_frame_size is then the
            # datagram's limit, 1200 bytes).
            "max_batch": w.MaxBatch(),
            "max_frame_size": w.MaxFrameSize(),
            "max_entities": w.MaxEntities(),
            # A server older than roles sends no identity (and applies
            # velocities as given).
            "role": ROLE_NAMES.get(w.Role(), "Unknown(%d)" % w.Role()) if identity is not None else None,
            "identity": identity.decode() if identity is not None else None,
            "time_bank": w.TimeBank(),
        }

    def spawn(self, position=None, radii=None, spawn_point=0):
        """Spawns at the map's spawn point `spawn_point` (1 = the first; 0
        = the one the server picks) or, for the server role, at position.
        A player sends zeros, or what the map says: asking another place
        or other radii is only named. Over UDP a Spawn without an answer is
        sent again every RESEND seconds: the server answers the repeat with
        the entity it made, so it makes one."""
        seq = self._next_seq()
        b = flatbuffers.Builder(128)
        Spawn.Start(b)
        Spawn.AddRadii(b, Vec3.CreateVec3(b, *(radii or (0.0, 0.0, 0.0))))
        Spawn.AddPosition(b, Vec3.CreateVec3(b, *(position or (0.0, 0.0, 0.0))))
        if spawn_point:
            Spawn.AddSpawnPoint(b, spawn_point)
        data = self._finish(b, seq, Body.Body.Spawn, Spawn.End(b))
        tab = self._request(data, "Spawn", seq, Body.Body.Spawned, resend=RESEND)
        s = Spawned.Spawned()
        s.Init(tab.Bytes, tab.Pos)
        p, r = s.Position(), s.Radii()
        return {
            "entity": s.Entity(),
            "position": (p.X(), p.Y(), p.Z()),
            "radii": (r.X(), r.Y(), r.Z()),
            "rules": s.Rules(),
            "spawn_point": s.SpawnPoint(),
        }

    @staticmethod
    def _add_move(b, entity, seq, move):
        Move.Start(b)
        Move.AddEntity(b, entity)
        Move.AddSequence(b, seq)
        Move.AddVelocity(b, Vec3.CreateVec3(b, *move["velocity"]))
        Move.AddDt(b, move["dt"])
        if move.get("buttons"):
            Move.AddButtons(b, move["buttons"])
        if move.get("mode"):
            Move.AddMode(b, move["mode"])
        return Move.End(b)

    @staticmethod
    def _result(r):
        p, v = r.Position(), r.Velocity()
        return {
            "sequence": r.Sequence(),
            "position": (p.X(), p.Y(), p.Z()),
            "velocity": (v.X(), v.Y(), v.Z()),
            "grounded": bool(r.Grounded()),
            "contacts": r.ContactsLength(),
            "rules": r.Rules(),
            "speed_excess": r.SpeedExcess(),
            "time_excess": r.TimeExcess(),
            "applied_dt": r.AppliedDt(),
            "corrected": bool(r.Corrected()),
            "crouched": bool(r.Crouched()),
            "stance_blocked": bool(r.StanceBlocked()),
        }

    def _results(self, data, seq, move_seqs):
        """Sends data (a Move or MoveBatch of sequence seq) and returns the
        results of move_seqs, in that order. Over UDP the same bytes go
        again every RESEND seconds until they are all answered, or the
        timeout: the server answers a move it already applied with the
        result it kept, so a resend never moves the entity twice. Over UDP
        a batch's results may come in several MoveResultBatches."""
        got = {}
        wanted = set(move_seqs)

        def take(m):
            kind, tab = m.BodyType(), m.Body()
            if kind == Body.Body.Error:
                err, about = self._error(m, tab)
                if about == seq or err.sequence == seq or err.sequence in wanted:
                    raise err
            elif kind == Body.Body.MoveResult:
                r = MoveResult.MoveResult()
                r.Init(tab.Bytes, tab.Pos)
                if r.Sequence() in wanted:
                    got[r.Sequence()] = self._result(r)
            elif kind == Body.Body.MoveResultBatch and m.Sequence() == seq:
                rb = MoveResultBatch.MoveResultBatch()
                rb.Init(tab.Bytes, tab.Pos)
                for i in range(rb.ResultsLength()):
                    r = rb.Results(i)
                    if r.Sequence() in wanted:
                        got[r.Sequence()] = self._result(r)
            return len(got) == len(wanted)

        if len(move_seqs) == 1:
            awaited = "answer to Move (sequence %d)" % seq
        else:
            awaited = "answer to MoveBatch (sequence %d, moves %d-%d)" % (seq, move_seqs[0], move_seqs[-1])
        self._exchange(data, awaited, take, resend=RESEND)
        return [got[s] for s in move_seqs]

    def move(self, entity, velocity, dt, buttons=0, mode=0):
        """One move: in Walk mode (0) velocity is the wish, buttons bit 0
        jumps (JUMP), bit 1 crouches (CROUCH, held); returns the result
        with the rules the server applied."""
        seq = self._next_seq()
        b = flatbuffers.Builder(128)
        mv = self._add_move(b, entity, seq, {"velocity": velocity, "dt": dt, "buttons": buttons, "mode": mode})
        return self._results(self._finish(b, seq, Body.Body.Move, mv), seq, [seq])[0]

    def batch_limit(self):
        """The most moves one MoveBatch may hold: the Welcome's max_batch
        (over UDP the server announces what one datagram holds)."""
        return max(1, self.welcome["max_batch"])

    def _batch_bytes(self, entity, moves):
        """A MoveBatch: the message takes one sequence, its moves the ones
        after it (Move.sequence increases per entity)."""
        seq = self._next_seq()
        b = flatbuffers.Builder(256 + 128 * len(moves))
        offsets = [self._add_move(b, entity, self._next_seq(), mv) for mv in moves]
        MoveBatch.StartMovesVector(b, len(offsets))
        for off in reversed(offsets):
            b.PrependUOffsetTRelative(off)
        vec = b.EndVector()
        MoveBatch.Start(b)
        MoveBatch.AddMoves(b, vec)
        data = self._finish(b, seq, Body.Body.MoveBatch, MoveBatch.End(b))
        return data, seq, list(range(seq + 1, seq + 1 + len(moves)))

    def move_batch(self, entity, moves):
        """Sends moves (dicts of velocity, dt, buttons, mode) in MoveBatches
        and returns [(batch sequence, [results])], one item per batch:
        one, unless moves holds more than batch_limit() or its bytes do not
        fit the Welcome's max_frame_size (a UDP datagram, 1200 bytes), when
        they go in several, one after another, each of at most
        batch_limit() moves and halved until its bytes fit, and each with
        the whole timeout for its results."""
        limit = self.welcome["max_frame_size"] or (UDP_MAX_DATAGRAM if self.udp else 0)
        batches = []
        done = 0
        while done < len(moves):
            k = min(self.batch_limit(), len(moves) - done)
            while True:
                start = self.seq
                data, seq, move_seqs = self._batch_bytes(entity, moves[done:done + k])
                # TCP's max_frame_size counts the bytes after the 4-byte prefix.
                if k == 1 or not limit or len(data) - (0 if self.udp else 4) <= limit:
                    break
                self.seq = start  # nothing was sent: its sequences are free again
                k = (k + 1) // 2
            batches.append((seq, self._results(data, seq, move_seqs)))
            done += k
        return batches

    def watch(self, every):
        """Subscribes to WorldState every `every` ticks (0 stops); returns
        the server's answer, the poses now. Over UDP a WatchWorld without
        an answer is sent again every RESEND seconds, as libsweep's
        blocking watch does: the server answers a repeat afresh and keeps
        one subscription."""
        seq = self._next_seq()
        b = flatbuffers.Builder(64)
        WatchWorld.Start(b)
        WatchWorld.AddEvery(b, every)
        data = self._finish(b, seq, Body.Body.WatchWorld, WatchWorld.End(b))
        return self._world_state(self._request(data, "WatchWorld", seq, Body.Body.WorldState, resend=RESEND))

    def query(self, items):
        """Asks the world items (dicts: kind "Ray", "RayAll", "LineOfSight",
        "Sweep" or "Overlap"; from and to points, or from_entity / to_entity
        with from / to as offsets; radii (Sweep), radius (Overlap); tick and
        fraction (0: the newest tick); filter, ignore (ids), max_hits) and
        returns one answer dict per item, in order: code (0 or the
        refusal's ErrorCode), code_name, message, tick, fraction, flags and
        hits (dicts of kind, triangle, material, mover, entity, shape,
        fraction, distance, point, normal). The items go in Queries of at
        most batch_limit() items each, fewer when their bytes would not fit
        the Welcome's max_frame_size (over UDP a datagram: long ignore
        lists), each answered (within the whole timeout of its own, as
        libsweep's messages are) before the next goes. Over UDP a Query's
        answers may come in several QueryResults, each placed by its first,
        and a Query not wholly answered is sent again every RESEND seconds
        (a player's repeat is paid again from its query rate)."""
        limit = self.welcome["max_frame_size"] or (UDP_MAX_DATAGRAM if self.udp else 0)
        answers = []
        while len(answers) < len(items):
            k = min(self.batch_limit(), len(items) - len(answers))
            while True:
                start = self.seq
                data, seq = self._query_bytes(items[len(answers):len(answers) + k])
                # TCP's max_frame_size counts the bytes after the 4-byte prefix.
                if k == 1 or not limit or len(data) - (0 if self.udp else 4) <= limit:
                    break
                self.seq = start  # nothing was sent: its sequence is free again
                k = (k + 1) // 2
            answers += self._query_answers(data, seq, k)
        return answers

    def _query_bytes(self, items):
        """A Query of items, and its sequence."""
        seq = self._next_seq()
        b = flatbuffers.Builder(256 + 160 * len(items))
        refs = []
        for it in items:
            ignore = list(it.get("ignore") or [])
            ig = None
            if ignore:
                QueryItem.StartIgnoreVector(b, len(ignore))
                for x in reversed(ignore):
                    b.PrependUint32(x)
                ig = b.EndVector()
            QueryItem.Start(b)
            QueryItem.AddKind(b, getattr(QueryKind.QueryKind, it["kind"]))
            if it.get("from") is not None:
                QueryItem.AddFrom_(b, Vec3.CreateVec3(b, *it["from"]))
            if it.get("to") is not None:
                QueryItem.AddTo(b, Vec3.CreateVec3(b, *it["to"]))
            if it.get("radii") is not None:
                QueryItem.AddRadii(b, Vec3.CreateVec3(b, *it["radii"]))
            for key, add in (("from_entity", QueryItem.AddFromEntity), ("to_entity", QueryItem.AddToEntity),
                             ("radius", QueryItem.AddRadius), ("tick", QueryItem.AddTick),
                             ("fraction", QueryItem.AddFraction), ("filter", QueryItem.AddFilter),
                             ("max_hits", QueryItem.AddMaxHits)):
                if it.get(key):
                    add(b, it[key])
            if ig is not None:
                QueryItem.AddIgnore(b, ig)
            refs.append(QueryItem.End(b))
        Query.StartItemsVector(b, len(refs))
        for r in reversed(refs):
            b.PrependUOffsetTRelative(r)
        vec_ref = b.EndVector()
        Query.Start(b)
        Query.AddItems(b, vec_ref)
        return self._finish(b, seq, Body.Body.Query, Query.End(b)), seq

    def _query_answers(self, data, seq, count):
        """Sends the Query data of sequence seq and returns its count
        answers."""
        answers = [None] * count

        def take(m):
            kind, tab = m.BodyType(), m.Body()
            if kind == Body.Body.Error:
                err, about = self._error(m, tab)
                if about == seq or err.sequence == seq:
                    raise err
            elif kind == Body.Body.QueryResult and m.Sequence() == seq:
                qr = QueryResult.QueryResult()
                qr.Init(tab.Bytes, tab.Pos)
                for k in range(qr.AnswersLength()):
                    at = qr.First() + k
                    if at < len(answers) and answers[at] is None:
                        answers[at] = self._query_answer(qr.Answers(k))
            return all(a is not None for a in answers)

        self._exchange(data, "answer to Query (sequence %d)" % seq, take, resend=RESEND)
        return answers

    @staticmethod
    def _query_answer(a):
        hits = []
        for j in range(a.HitsLength()):
            h = a.Hits(j)
            p, n = h.Point(Vec3.Vec3()), h.Normal(Vec3.Vec3())
            hits.append({
                "kind": h.Kind(), "triangle": h.Triangle(), "material": h.Material(), "mover": h.Mover(),
                "entity": h.Entity(), "shape": h.Shape(), "fraction": h.Fraction(), "distance": h.Distance(),
                "point": (p.X(), p.Y(), p.Z()), "normal": (n.X(), n.Y(), n.Z()),
            })
        msg = a.Message()
        return {"code": a.Code(), "code_name": ERROR_NAMES.get(a.Code(), "Unknown(%d)" % a.Code()).rstrip("_"),
                "message": msg.decode() if msg is not None else None, "tick": a.Tick(),
                "fraction": a.Fraction(), "flags": a.Flags(), "hits": hits}

    def ping(self):
        """Sends a Ping without waiting (its Pong is skipped by the readers):
        it keeps a silent session (UDP, or TCP past --idle-timeout) alive."""
        seq = self._next_seq()
        b = flatbuffers.Builder(64)
        Ping.Start(b)
        Ping.AddClientTime(b, 0)
        self._send(self._finish(b, seq, Body.Body.Ping, Ping.End(b)))

    def next_world_state(self):
        """The next WorldState the server pushes (other messages are
        skipped; an Error is raised), within the timeout."""
        got = []

        def take(m):
            kind, tab = m.BodyType(), m.Body()
            if kind == Body.Body.Error:
                raise self._error(m, tab)[0]
            if kind == Body.Body.WorldState:
                got.append(self._world_state(tab))
                return True
            return False

        self._exchange(None, "WorldState pushed", take)
        return got[0]

    @staticmethod
    def _world_state(tab):
        ws = WorldState.WorldState()
        ws.Init(tab.Bytes, tab.Pos)
        movers = []
        # Where each mover is on its path: only from a server that sends
        # every mover's (an older one sends none).
        paths = ws.PathsLength() == ws.MoversLength()
        for i in range(ws.MoversLength()):
            mt = ws.Movers(i)
            p, q = mt.Position(Vec3.Vec3()), mt.Rotation(Quat.Quat())
            movers.append({
                "id": mt.Id(),
                "flags": mt.Flags(),
                "position": (p.X(), p.Y(), p.Z()),
                "rotation": (q.X(), q.Y(), q.Z(), q.W()),
            })
            if paths:
                path = ws.Paths(i)
                movers[-1]["path"] = {"path_tick": path.PathTick(), "wait": path.Wait(), "dir": path.Dir()}
        return {"tick": ws.Tick(), "mover_count": ws.MoverCount(), "movers": movers}


# --- the map file ----------------------------------------------------------------

class MapError(Exception):
    """A map file that cannot be read for its spawn points."""


def read_map(path):
    """The name, player radii and spawn points (in id order, the server's
    numbering from 1) of the sweep map at path, read-only."""
    if not os.path.isfile(path):
        raise MapError("%s: no such file" % path)
    uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path))
    try:
        con = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as e:
        raise MapError("%s: %s" % (path, e))
    try:
        app = con.execute("PRAGMA application_id").fetchone()[0]
        if app != MAP_APPLICATION_ID:
            raise MapError("%s: not a sweep map (application_id %#x, a map has %#x)" % (path, app, MAP_APPLICATION_ID))
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version not in MAP_VERSIONS:
            raise MapError("%s: map format version %d; this client reads versions %s"
                           % (path, version, ", ".join(map(str, MAP_VERSIONS))))
        row = con.execute("SELECT name, radius_x, radius_y, radius_z FROM map WHERE id = 1").fetchone()
        if row is None:
            raise MapError("%s: the map table has no row" % path)
        spawns = [tuple(float(c) for c in r) for r in con.execute("SELECT x, y, z FROM spawns ORDER BY id")]
    except sqlite3.Error as e:
        raise MapError("%s: %s" % (path, e))
    finally:
        con.close()
    return {"path": path, "name": row[0], "radii": tuple(float(c) for c in row[1:]), "spawns": spawns}


# --- printing ---------------------------------------------------------------------

def bits(x):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


def print_world_state(ws, show_bits):
    num = bits if show_bits else repr
    print("world tick=%d movers=%d/%d" % (ws["tick"], len(ws["movers"]), ws["mover_count"]))
    for m in ws["movers"]:
        path = m.get("path")
        print("  mover id=%d flags=%d position=(%s) rotation=(%s)%s" % (
            m["id"], m["flags"], ", ".join(num(x) for x in m["position"]),
            ", ".join(num(x) for x in m["rotation"]),
            " path_tick=%d wait=%d dir=%d" % (path["path_tick"], path["wait"], path["dir"]) if path else ""))
    sys.stdout.flush()


def print_move(r, buttons, show_bits):
    rules = "rules=%s" % rule_names(r["rules"])
    if r["speed_excess"]:
        rules += " speed_excess=%r" % r["speed_excess"]
    if r["time_excess"]:
        rules += " time_excess=%r" % r["time_excess"]
    rules += " applied_dt=%r" % r["applied_dt"]
    if buttons & JUMP:
        rules += " jump=1"
    if r["crouched"]:
        rules += " crouched=1"
    if r["stance_blocked"]:
        rules += " stance_blocked=1"
    if r["corrected"]:
        rules += " corrected=1"
    if show_bits:
        print("move seq=%d position=%s velocity=%s grounded=%d %s" % (
            r["sequence"], ",".join(bits(x) for x in r["position"]),
            ",".join(bits(x) for x in r["velocity"]), r["grounded"], rules))
    else:
        print("move seq=%d position=%r velocity=%r grounded=%d contacts=%d %s" % (
            r["sequence"], r["position"], r["velocity"], r["grounded"], r["contacts"], rules))
    sys.stdout.flush()


def watch(c, every, count, show_bits):
    """Prints `count` WorldStates: the answer to WatchWorld, then pushes."""
    print_world_state(c.watch(every), show_bits)
    next_ping = time.monotonic() + 5.0
    for _ in range(count - 1):
        print_world_state(c.next_world_state(), show_bits)
        if time.monotonic() >= next_ping:
            c.ping()
            next_ping = time.monotonic() + 5.0


# --- the program ------------------------------------------------------------------

def positive(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("wants a positive integer")
    return n


def spawn_point(text):
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError("wants a spawn point number: 1 = the first, 0 = any")
    return n


def vec(text):
    parts = text.split(",")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError("wants X,Y,Z")
    return tuple(float(p) for p in parts)


def address(text):
    try:
        return split_address(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


EPILOG = """examples (sweepd --map build/maps/arena.db --listen 127.0.0.1:7878, or [::1]:7878):
  %(prog)s --connect 127.0.0.1:7878 --velocity 1,0,0 --count 10
  %(prog)s --connect [::1]:7878 --udp --map build/maps/arena.db --spawn-point 2 \\
      --velocity 3,0,0 --count 60 --batch 4 --jump
  %(prog)s --connect 127.0.0.1:7878 --token "$COMMAND_TOKEN" --position 0,0,0.95 --velocity 1,0,-5
  %(prog)s --connect 127.0.0.1:7878 --watch 30 --count 5
  %(prog)s --connect 127.0.0.1:7878 --at 1200+0.5 --query "ray 0,-10,1 0,10,1" --query "los 0,0,1 5,0,1"

Any python3 runs it: one without the FlatBuffers runtime runs it again under
$SWEEP_PYTHON or /usr/bin/python3 (Debian's python3-flatbuffers). The code
flatc generates is found in build/client-sdk/python of this repository,
$SWEEP_BUILD_DIR/client-sdk/python or $SWEEP_PY_GENERATED (make writes it).
Exit status: 0; 1 the server refused a request (the Error's name is
printed), could not be reached, or runs another map than --map; 2 a bad
command line, an unreadable --map, or a Python without what it needs."""


QUERY_WORDS = {"ray": "Ray", "rayall": "RayAll", "los": "LineOfSight", "sweep": "Sweep", "overlap": "Overlap"}


def query_item(text):
    """--query's item: "ray X,Y,Z X,Y,Z", "rayall ...", "los ...",
    "sweep X,Y,Z X,Y,Z RX,RY,RZ" or "overlap X,Y,Z R"."""
    words = text.split()
    kind = QUERY_WORDS.get(words[0]) if words else None
    want = {"Sweep": 4, "Overlap": 3}.get(kind, 3)
    if kind is None or len(words) != want:
        raise argparse.ArgumentTypeError("%r is not ray|rayall|los X,Y,Z X,Y,Z, sweep X,Y,Z X,Y,Z RX,RY,RZ "
                                         "or overlap X,Y,Z R" % text)
    item = {"kind": kind, "from": vec(words[1])}
    if kind == "Overlap":
        try:
            item["radius"] = float(words[2])
        except ValueError:
            raise argparse.ArgumentTypeError("overlap wants a radius, not %r" % words[2])
    else:
        item["to"] = vec(words[2])
    if kind == "Sweep":
        item["radii"] = vec(words[3])
    return item


def at_time(text):
    """--at TICK[+FRACTION]."""
    tick, _, frac = text.partition("+")
    try:
        t, f = int(tick), float(frac) if frac else 0.0
    except ValueError:
        t, f = 0, -1.0
    if t <= 0 or not 0.0 <= f < 1.0:
        raise argparse.ArgumentTypeError("--at wants TICK or TICK+FRACTION, not %r" % text)
    return t, f


def print_answers(items, answers, show_bits):
    num = bits if show_bits else repr
    for i, (it, a) in enumerate(zip(items, answers)):
        line = "answer item=%d kind=%s result=%s tick=%d fraction=%s flags=%d hits=%d" % (
            i, it["kind"], a["code_name"], a["tick"], num(a["fraction"]), a["flags"], len(a["hits"]))
        if a["code"]:
            line += " message=%s" % a["message"]
        print(line)
        for h in a["hits"]:
            print("  hit kind=%d entity=%d shape=%d triangle=%d material=%d mover=%d fraction=%s distance=%s "
                  "point=%s normal=%s" % (h["kind"], h["entity"], h["shape"], h["triangle"], h["material"],
                                          h["mover"], num(h["fraction"]), num(h["distance"]),
                                          tuple(num(x) for x in h["point"]) if show_bits else h["point"],
                                          tuple(num(x) for x in h["normal"]) if show_bits else h["normal"]))


def build_parser():
    ap = argparse.ArgumentParser(
        prog=os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "sweep_client.py",
        description="Spawn a player on sweepd and move it (one move at a time, or in batches),\n"
                    "or (--watch) print the movers' poses.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connect", required=True, type=address, metavar="HOST:PORT",
                    help="the server's address: HOST:PORT, or [IPV6]:PORT such as [::1]:7878; a name "
                    "with several addresses has each tried in turn")
    ap.add_argument("--udp", action="store_true",
                    help="talk over UDP (the cookie handshake, one message per datagram) instead of TCP")
    ap.add_argument("--token", help="Hello.auth_token: an identity token (sweep token) or the server's "
                    "--command-token; none = a guest player")
    ap.add_argument("--map", metavar="FILE",
                    help="the map the server runs (a .db): its spawn points and player radii are read "
                    "with sqlite3 and asked for, and the client checks that the server put the player "
                    "where the map says")
    ap.add_argument("--spawn-point", "--spawn", type=spawn_point, dest="spawn_point", metavar="N",
                    help="spawn at the map's N-th spawn point, numbered as on the wire and by `sweep "
                    "--spawn`: 1 = the first, 0 (the default) = a player gets the point the server "
                    "picks, the server role the first; --spawn is its old name")
    ap.add_argument("--position", type=vec, metavar="X,Y,Z",
                    help="spawn here (the server role; a player is put at a spawn point, and the server "
                    "names SpawnPosition)")
    ap.add_argument("--radii", type=vec, metavar="X,Y,Z",
                    help="ellipsoid radii (default: the map's; a player gets the map's anyway, and the "
                    "server names SpawnRadii)")
    ap.add_argument("--velocity", type=vec, metavar="X,Y,Z",
                    help="the wish: velocity wished across the ground (required unless --watch)")
    ap.add_argument("--jump", action="store_true",
                    help="jump whenever standing (as the last answer says; in a batch, on its first move)")
    ap.add_argument("--crouch", action="store_true",
                    help="hold the crouch button on every move (a map with crouching: the player crouches, "
                    "walking at most at its crouch_speed)")
    ap.add_argument("--mode", choices=sorted(MODES), default="walk",
                    help="walk, or fly/noclip (the server role, where the server allows them)")
    ap.add_argument("--dt", type=float, default=0.016, metavar="SECONDS",
                    help="seconds each move asks for (default 0.016)")
    ap.add_argument("--count", type=positive, default=1, metavar="N",
                    help="moves to send (default 1), or with --watch WorldStates to print")
    ap.add_argument("--batch", type=positive, metavar="N",
                    help="send the moves N at a time in MoveBatches (at most the Welcome's max_batch; "
                    "over UDP what one datagram holds)")
    ap.add_argument("--interval", type=float, metavar="MS",
                    help="wait this long before each move or batch (default: a player's moves go out in "
                    "real time, one every --dt; the server role's at once)")
    ap.add_argument("--watch", type=positive, metavar="N",
                    help="print the movers' poses every N ticks instead of moving")
    ap.add_argument("--query", type=query_item, action="append", metavar="ITEM",
                    help="ask the world instead of moving: \"ray X,Y,Z X,Y,Z\" (first hit), \"rayall ...\" "
                    "(every hit), \"los ...\" (line of sight), \"sweep X,Y,Z X,Y,Z RX,RY,RZ\", \"overlap "
                    "X,Y,Z R\"; again for more items, sent in one Query, or in several when the Welcome "
                    "allows fewer")
    ap.add_argument("--at", type=at_time, metavar="TICK[+F]",
                    help="--query: ask the world as it was at TICK plus the fraction F of a tick (a player "
                    "only within the server's --rewind-cap-ms)")
    ap.add_argument("--bits", action="store_true",
                    help="print the IEEE-754 bits of every double (to compare with the C core exactly)")
    return ap


def pick_spawn(a, w, mp):
    """(position, radii, spawn_point) for the Spawn: a player asks a map
    point (or lets the server pick one) with the map's radii; the server
    role says where, or takes a point too."""
    radii = a.radii or (mp["radii"] if mp else None)
    if a.position is not None:
        return a.position, radii, 0
    point = a.spawn_point or 0
    if not point and w["role"] != "Player":
        point = 1  # the server role's spawn point 0 would mean "at position"
    position = mp["spawns"][point - 1] if mp and point else None
    return position, radii, point


def check_spawn(sp, mp, picked):
    """With --map: the point the server chose, and whether it is where the
    map says. Returns an error text, or None."""
    n = sp["spawn_point"]
    if not n:
        return None  # a position of the server role's own
    if n > len(mp["spawns"]):
        return "the server used spawn point %d; %s has %d" % (n, mp["path"], len(mp["spawns"]))
    want = mp["spawns"][n - 1]
    if sp["position"] != want or sp["radii"] != mp["radii"]:
        return ("the server put the player at %r with radii %r; spawn point %d of %s is %r with radii %r"
                % (sp["position"], sp["radii"], n, mp["path"], want, mp["radii"]))
    print("spawn_point %d of %d (%s) position=%r radii=%r: as %s says" % (
        n, len(mp["spawns"]), "picked by the server" if picked == "server" else "asked", want, mp["radii"],
        mp["path"]))
    return None


def batch_size(a, w, pace, limit):
    """Moves per batch: what was asked, within the Welcome's max_batch and,
    for a paced player, half its time bank (a batch goes once its time has
    passed and must not ask more than the bank holds, with room for the
    ticks)."""
    size = min(a.batch, limit)
    why = []
    if a.batch > limit:
        why.append("Welcome.max_batch")
    if pace and a.dt > 0 and w["time_bank"] > 0:
        fit = max(1, int(0.5 * w["time_bank"] / a.dt))
        if fit < size:
            size = fit
            why.append("half the time bank %r" % w["time_bank"])
    return size, why


def run_moves(c, a, w, sp):
    # A player's time is the server's: pace its moves by the time they ask.
    pace = a.interval is None and w["role"] == "Player"
    size = 1
    if a.batch:
        size, why = batch_size(a, w, pace, c.batch_limit())
        print("batch size=%d asked=%d max_batch=%d max_frame=%d%s" % (
            size, a.batch, w["max_batch"], w["max_frame_size"], (" (within %s)" % ", ".join(why)) if why else ""))
    next_at = time.monotonic()
    # Woken from a stall (the machine starved this process), a paced player
    # owes the moves of the time it slept. Sending them all would ask more
    # than the bank holds, and the server would cut them as a lag switch's;
    # so, as a game drops a hitch's frames, it makes up at most half the
    # bank and lets the rest go, leaving the other half for the server's
    # own lateness.
    catch_up = 0.5 * w["time_bank"] if pace and w["time_bank"] > 0 else 0.0
    grounded = False
    done = 0
    while done < a.count:
        n = min(size, a.count - done) if a.batch else 1
        asked = n * a.dt
        if pace:
            now = time.monotonic()
            if now > next_at + catch_up:
                next_at = now - catch_up
        if pace and a.batch and 0 < asked <= 3600:
            next_at += asked  # a batch waits for its time to pass
        if a.interval:
            time.sleep(a.interval / 1000.0)
        elif pace:
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        if pace and not a.batch and 0 < asked <= 3600:
            next_at += asked  # a single move goes, then its time passes
        # The jump button follows the last answer: in a batch, its first move.
        buttons = JUMP if a.jump and grounded else 0
        held = CROUCH if a.crouch else 0
        mode = MODES[a.mode]
        if not a.batch:
            r = c.move(sp["entity"], a.velocity, a.dt, buttons=buttons | held, mode=mode)
            print_move(r, buttons, a.bits)
            grounded = r["grounded"]
        else:
            moves = [{"velocity": a.velocity, "dt": a.dt, "buttons": (buttons if i == 0 else 0) | held, "mode": mode}
                     for i in range(n)]
            for seq, results in c.move_batch(sp["entity"], moves):
                print("batch seq=%d moves=%d" % (seq, len(results)))
                for r in results:
                    print_move(r, buttons, a.bits)
                    buttons = 0  # pressed on the first move only
                grounded = results[-1]["grounded"]
        done += n


def main():
    ap = build_parser()
    a = ap.parse_args()
    if a.watch is None and a.velocity is None and not a.query:
        ap.error("--velocity is required (or --watch N, or --query ITEM)")
    if a.watch is not None and a.batch is not None:
        ap.error("--batch is for moves, not --watch")
    if a.interval is not None and not 0 <= a.interval <= 3600000:
        ap.error("--interval wants milliseconds")
    if a.position is not None and a.spawn_point is not None:
        ap.error("--position or --spawn-point, not both")
    mp = None
    if a.map is not None:
        try:
            mp = read_map(a.map)
        except MapError as e:
            print("error map: %s" % e, file=sys.stderr)
            return 2
        if a.spawn_point is not None and a.spawn_point > len(mp["spawns"]):
            ap.error("--spawn-point %d: %s has %d spawn point(s)" % (a.spawn_point, a.map, len(mp["spawns"])))
        print("map %s name=%s spawn_points=%d radii=%r" % (a.map, mp["name"], len(mp["spawns"]), mp["radii"]))
    try:
        c = Client(a.connect, udp=a.udp, token=a.token)
        w = c.welcome
        print("welcome session=%d map=%s hash=%s role=%s identity=%s transport=%s peer=%s" % (
            w["session_id"], w["map_name"], w["map_hash"], w["role"] or "none", w["identity"] or "-",
            "udp" if a.udp else "tcp", c.peer))
        sys.stdout.flush()
        if mp is not None and mp["name"] != w["map_name"]:
            print("error map: the server runs map %s, %s is %s" % (w["map_name"], a.map, mp["name"]), file=sys.stderr)
            return 1
        if a.watch is not None:
            watch(c, a.watch, a.count, a.bits)
            c.close()
            return 0
        if a.query:
            for it in a.query:
                if a.at:
                    it["tick"], it["fraction"] = a.at
            answers = c.query(a.query)
            print_answers(a.query, answers, a.bits)
            c.close()
            return 1 if any(x["code"] for x in answers) else 0
        position, radii, point = pick_spawn(a, w, mp)
        sp = c.spawn(position=position, radii=radii, spawn_point=point)
        picked = "server" if a.position is None and not point else "client"
        print("spawned entity=%d position=%r spawn_point=%d rules=%s picked_by=%s" % (
            sp["entity"], sp["position"], sp["spawn_point"], rule_names(sp["rules"]), picked))
        if mp is not None:
            bad = check_spawn(sp, mp, picked)
            if bad:
                print("error map: %s" % bad, file=sys.stderr)
                return 1
        sys.stdout.flush()
        run_moves(c, a, w, sp)
        c.close()
    except ServerError as e:
        print("error %s: %s (sequence %d)" % (e.name, e, e.sequence), file=sys.stderr)
        return 1
    except ServerBye as e:
        print("bye: the server closed the session: %s" % e, file=sys.stderr)
        return 1
    except (OSError, ConnectionError) as e:
        print("error %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
