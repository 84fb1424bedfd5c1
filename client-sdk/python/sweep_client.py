#!/usr/bin/python3
"""sweep_client.py - a small Python client for sweepd, on the official
FlatBuffers runtime (Debian's python3-flatbuffers) and the code `flatc
--python` generates from protocol/sweep.fbs.

It shows the whole protocol from another language: the handshake (over UDP
the padded Hello, the server's Challenge and the Hello that returns its
cookie) with an identity token (--token) and the role the server gave,
Spawn, Move (a wish: the velocity wished across the ground, and the jump
button), WatchWorld and the WorldState pushes that follow it, and the
server's Error messages. As a program it spawns one player (at a spawn
point of the map, or, for the server role, at --position) and moves it,
printing one line per result with the rules the server applied:

    PYTHONPATH=build/client-sdk/python /usr/bin/python3 \\
        client-sdk/python/sweep_client.py --connect 127.0.0.1:PORT \\
        --velocity 1,0,0 --count 10 [--jump] [--udp] [--bits] [--token T]

    welcome session=3 map=arena hash=... role=Player identity=#guest
    spawned entity=123 position=(0.0, 0.0, 1.0) spawn_point=1 rules=none
    move seq=3 position=(...) velocity=(...) grounded=0 contacts=0 rules=none applied_dt=0.016

A player's moves go out in real time (one every --dt: the server grants a
player no more time than passes); the server role's at once, or every
--interval ms.

or, with --watch N, subscribes to the movers' poses every N ticks and
prints --count WorldStates (the answer, then the pushes), a line per
WorldState and one per mover:

    world tick=1234 movers=4/4
      mover id=1 flags=5 position=(x, y, z) rotation=(x, y, z, w)

("movers=K/N": K movers in this message of the N the world has; over UDP
a world too big for one datagram comes in several WorldStates per tick.)
--bits prints the IEEE-754 bits of every double, so a test can compare
them with the C core exactly. The generated code is not kept in git: make
writes it to $(BUILD)/client-sdk/python (see client-sdk/README.md). Exits 1
with the error's name (e.g. "error BadDt: ...") when the server refuses a
request, 2 for a bad command line.
"""

import argparse
import socket
import struct
import sys
import time

import flatbuffers
from sweep.wire import (Body, Challenge, Error, ErrorCode, Hello, Message, Move,
                        MoveMode, MoveResult, Ping, Quat, Role, Rule, Spawn, Spawned,
                        Vec3, WatchWorld, Welcome, WorldState)

PROTOCOL_VERSION = 1
IDENTIFIER = b"SWP1"
UDP_HELLO_MIN = 256
UDP_MAX_DATAGRAM = 1200
HELLO_RESEND = 0.25  # seconds between resends of a UDP handshake datagram

ERROR_NAMES = {v: k for k, v in vars(ErrorCode.ErrorCode).items() if not k.startswith("_")}
ROLE_NAMES = {v: k for k, v in vars(Role.Role).items() if not k.startswith("_")}
MODES = {k.lower(): v for k, v in vars(MoveMode.MoveMode).items() if not k.startswith("_")}
# Rule is a set of bit flags: name of each bit, lowest first.
RULE_BITS = sorted((v, k) for k, v in vars(Rule.Rule).items() if not k.startswith("_"))
JUMP = 1  # Move.buttons bit 0 (core/motion.h SWEEP_WISH_JUMP)


def rule_names(bits):
    """"Speed,TimeBudget" for the Rule bits set, "none" for none."""
    names = [name for bit, name in RULE_BITS if bits & bit]
    known = 0
    for bit, _ in RULE_BITS:
        known |= bit
    names += ["Bit%d" % i for i in range(32) if bits & ~known & (1 << i)]
    return ",".join(names) if names else "none"


class ServerError(Exception):
    """An Error message from the server: its code name, text and sequence."""

    def __init__(self, code, message, sequence):
        super().__init__(message)
        self.name = ERROR_NAMES.get(code, "Unknown(%d)" % code)
        self.code = code
        self.sequence = sequence


class Client:
    """One connection to sweepd, TCP (size-prefixed frames) or UDP (one
    buffer per datagram). Requests are answered in order, so each call
    sends one request and reads until the answer to its sequence."""

    def __init__(self, address, udp=False, timeout=20.0, name="sweep-python", token=None):
        host, port = address.rsplit(":", 1)
        self.udp = udp
        self.seq = 0
        kind = socket.SOCK_DGRAM if udp else socket.SOCK_STREAM
        self.sock = socket.socket(socket.AF_INET, kind)
        self.sock.settimeout(timeout)
        self.sock.connect((host, int(port)))
        if not udp:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.welcome = self._hello(name, token)

    def close(self):
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
        root = Message.End(b)
        if self.udp:
            b.Finish(root, file_identifier=IDENTIFIER)
        else:
            b.FinishSizePrefixed(root, file_identifier=IDENTIFIER)
        return bytes(b.Output())

    def _send(self, data):
        if self.udp:
            self.sock.send(data)
        else:
            self.sock.sendall(data)

    def _recv_exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            out += chunk
        return out

    def _recv(self):
        """The next Message from the server (the official runtime reads it)."""
        if self.udp:
            buf = self.sock.recv(65536)
        else:
            (size,) = struct.unpack("<I", self._recv_exact(4))
            buf = self._recv_exact(size)
        if not Message.Message.MessageBufferHasIdentifier(buf, 0):
            raise ConnectionError("the server sent a buffer without the SWP1 identifier")
        return Message.Message.GetRootAs(buf, 0)

    def _answer(self, seq, want):
        """Reads until the answer of kind `want` to `seq` (raising the
        server's Error about it) and returns its body table."""
        while True:
            m = self._recv()
            kind = m.BodyType()
            tab = m.Body()
            if kind == Body.Body.Error:
                e = Error.Error()
                e.Init(tab.Bytes, tab.Pos)
                if m.Sequence() == seq or e.Sequence() == seq:
                    raise ServerError(e.Code(), e.Message().decode(), e.Sequence())
                continue
            if kind == want and m.Sequence() == seq:
                return tab

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

    def _ask_hello(self, data, seq, want):
        """Sends a Hello and returns the answer of kind `want` to `seq`. Over
        UDP a lost datagram (the Hello or its answer) is made up for by
        sending the same bytes again every HELLO_RESEND seconds, until the
        socket's timeout."""
        if not self.udp:
            self._send(data)
            return self._answer(seq, want)
        timeout = self.sock.gettimeout()
        deadline = time.monotonic() + (timeout if timeout is not None else 3600.0)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout("no answer to the Hello (sequence %d)" % seq)
                self._send(data)
                self.sock.settimeout(min(HELLO_RESEND, left))
                try:
                    return self._answer(seq, want)
                except socket.timeout:
                    continue
        finally:
            self.sock.settimeout(timeout)

    def _hello(self, name, token):
        cookie = None
        for attempt in range(3):
            if self.udp:
                # Round 1: a cookie for this address. Every Challenge has a
                # cookie of its own, and the session the server makes is
                # bound to the cookie of the Hello that made it.
                seq = self._next_seq()
                tab = self._ask_hello(self._hello_bytes(seq, name, token, None), seq, Body.Body.Challenge)
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
                tab = self._ask_hello(self._hello_bytes(seq, name, token, cookie), seq, Body.Body.Welcome)
                break
            except ServerError as e:
                if not self.udp or e.code != ErrorCode.ErrorCode.BadCookie or attempt == 2:
                    raise
        w = Welcome.Welcome()
        w.Init(tab.Bytes, tab.Pos)
        identity = w.Identity()
        return {
            "protocol_version": w.ProtocolVersion(),
            "session_id": w.SessionId(),
            "map_name": w.MapName().decode(),
            "map_hash": bytes(w.MapHash(i) for i in range(w.MapHashLength())).hex(),
            "max_batch": w.MaxBatch(),
            # A server older than roles sends no identity (and applies
            # velocities as given).
            "role": ROLE_NAMES.get(w.Role(), "Unknown(%d)" % w.Role()) if identity is not None else None,
            "identity": identity.decode() if identity is not None else None,
            "time_bank": w.TimeBank(),
        }

    def spawn(self, position=None, radii=None, spawn_point=0):
        """Spawns at the map's spawn point `spawn_point` (1 = the first; 0
        = the one the server picks) or, for the server role, at position.
        A player sends zeros: asking a place or radii is only named."""
        seq = self._next_seq()
        b = flatbuffers.Builder(128)
        Spawn.Start(b)
        Spawn.AddRadii(b, Vec3.CreateVec3(b, *(radii or (0.0, 0.0, 0.0))))
        Spawn.AddPosition(b, Vec3.CreateVec3(b, *(position or (0.0, 0.0, 0.0))))
        if spawn_point:
            Spawn.AddSpawnPoint(b, spawn_point)
        self._send(self._finish(b, seq, Body.Body.Spawn, Spawn.End(b)))
        tab = self._answer(seq, Body.Body.Spawned)
        s = Spawned.Spawned()
        s.Init(tab.Bytes, tab.Pos)
        p = s.Position()
        return {
            "entity": s.Entity(),
            "position": (p.X(), p.Y(), p.Z()),
            "rules": s.Rules(),
            "spawn_point": s.SpawnPoint(),
        }

    def move(self, entity, velocity, dt, buttons=0, mode=0):
        """One move: in Walk mode (0) velocity is the wish, buttons bit 0
        jumps; returns the result with the rules the server applied."""
        seq = self._next_seq()
        b = flatbuffers.Builder(128)
        Move.Start(b)
        Move.AddEntity(b, entity)
        Move.AddSequence(b, seq)
        Move.AddVelocity(b, Vec3.CreateVec3(b, *velocity))
        Move.AddDt(b, dt)
        if buttons:
            Move.AddButtons(b, buttons)
        if mode:
            Move.AddMode(b, mode)
        self._send(self._finish(b, seq, Body.Body.Move, Move.End(b)))
        tab = self._answer(seq, Body.Body.MoveResult)
        r = MoveResult.MoveResult()
        r.Init(tab.Bytes, tab.Pos)
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
        }


    def watch(self, every):
        """Subscribes to WorldState every `every` ticks (0 stops); returns
        the server's answer, the poses now."""
        seq = self._next_seq()
        b = flatbuffers.Builder(64)
        WatchWorld.Start(b)
        WatchWorld.AddEvery(b, every)
        self._send(self._finish(b, seq, Body.Body.WatchWorld, WatchWorld.End(b)))
        return self._world_state(self._answer(seq, Body.Body.WorldState))

    def ping(self):
        """Sends a Ping without waiting (its Pong is skipped by the readers):
        over UDP it keeps a silent session from timing out."""
        seq = self._next_seq()
        b = flatbuffers.Builder(64)
        Ping.Start(b)
        Ping.AddClientTime(b, 0)
        self._send(self._finish(b, seq, Body.Body.Ping, Ping.End(b)))

    def next_world_state(self):
        """The next WorldState the server pushes (other messages are
        skipped; an Error is raised)."""
        while True:
            m = self._recv()
            kind, tab = m.BodyType(), m.Body()
            if kind == Body.Body.Error:
                e = Error.Error()
                e.Init(tab.Bytes, tab.Pos)
                raise ServerError(e.Code(), e.Message().decode(), e.Sequence())
            if kind == Body.Body.WorldState:
                return self._world_state(tab)

    @staticmethod
    def _world_state(tab):
        ws = WorldState.WorldState()
        ws.Init(tab.Bytes, tab.Pos)
        movers = []
        for i in range(ws.MoversLength()):
            mt = ws.Movers(i)
            p, q = mt.Position(Vec3.Vec3()), mt.Rotation(Quat.Quat())
            movers.append({
                "id": mt.Id(),
                "flags": mt.Flags(),
                "position": (p.X(), p.Y(), p.Z()),
                "rotation": (q.X(), q.Y(), q.Z(), q.W()),
            })
        return {"tick": ws.Tick(), "mover_count": ws.MoverCount(), "movers": movers}


def bits(x):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", x))[0]


def print_world_state(ws, show_bits):
    num = bits if show_bits else repr
    print("world tick=%d movers=%d/%d" % (ws["tick"], len(ws["movers"]), ws["mover_count"]))
    for m in ws["movers"]:
        print("  mover id=%d flags=%d position=(%s) rotation=(%s)" % (
            m["id"], m["flags"], ", ".join(num(x) for x in m["position"]),
            ", ".join(num(x) for x in m["rotation"])))
    sys.stdout.flush()


def watch(c, every, count, show_bits):
    """Prints `count` WorldStates: the answer to WatchWorld, then pushes."""
    print_world_state(c.watch(every), show_bits)
    next_ping = time.monotonic() + 5.0
    for _ in range(count - 1):
        print_world_state(c.next_world_state(), show_bits)
        if c.udp and time.monotonic() >= next_ping:
            c.ping()
            next_ping = time.monotonic() + 5.0


def positive(text):
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("wants a positive integer")
    return n


def vec(text):
    parts = text.split(",")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError("wants X,Y,Z")
    return tuple(float(p) for p in parts)


def main():
    ap = argparse.ArgumentParser(
        description="Spawn a player on sweepd and move it, or (--watch) print the movers' poses.")
    ap.add_argument("--connect", required=True, metavar="HOST:PORT")
    ap.add_argument("--udp", action="store_true")
    ap.add_argument("--token", help="Hello.auth_token: an identity token (sweep token) or the server's "
                    "--command-token; none = a guest player")
    ap.add_argument("--position", type=vec, help="spawn here (the server role; a player is put at a "
                    "spawn point, and the server names SpawnPosition)")
    ap.add_argument("--spawn", type=positive, default=1, metavar="K",
                    help="the map's spawn point K (1 = the first) when no --position")
    ap.add_argument("--radii", type=vec, help="ellipsoid radii (default: the map's)")
    ap.add_argument("--velocity", type=vec,
                    help="the wish: velocity wished across the ground (required unless --watch)")
    ap.add_argument("--jump", action="store_true", help="jump whenever standing (as the last answer says)")
    ap.add_argument("--mode", choices=sorted(MODES), default="walk",
                    help="walk, or fly/noclip (the server role, where the server allows them)")
    ap.add_argument("--interval", type=float, metavar="MS",
                    help="wait this long before each move (default: a player's moves go out in "
                    "real time, one every --dt; the server role's at once)")
    ap.add_argument("--dt", type=float, default=0.016)
    ap.add_argument("--count", type=positive, default=1, help="moves, or with --watch WorldStates to print")
    ap.add_argument("--watch", type=positive, metavar="N",
                    help="print the movers' poses every N ticks instead of moving")
    ap.add_argument("--bits", action="store_true", help="print the bits of every double")
    a = ap.parse_args()
    if a.watch is None and a.velocity is None:
        ap.error("--velocity is required (or --watch N)")
    if a.interval is not None and not 0 <= a.interval <= 3600000:
        ap.error("--interval wants milliseconds")
    try:
        c = Client(a.connect, udp=a.udp, token=a.token)
        w = c.welcome
        print("welcome session=%d map=%s hash=%s role=%s identity=%s" % (
            w["session_id"], w["map_name"], w["map_hash"], w["role"] or "none", w["identity"] or "-"))
        if a.watch is not None:
            watch(c, a.watch, a.count, a.bits)
            c.close()
            return 0
        if a.position is not None:
            sp = c.spawn(position=a.position, radii=a.radii)
        else:
            sp = c.spawn(radii=a.radii, spawn_point=a.spawn)
        print("spawned entity=%d position=%r spawn_point=%d rules=%s" % (
            sp["entity"], sp["position"], sp["spawn_point"], rule_names(sp["rules"])))
        # A player's time is the server's: pace its moves by the time they ask.
        pace = a.interval is None and w["role"] == "Player"
        step = a.interval / 1000.0 if a.interval else (a.dt if pace and a.dt > 0 else 0.0)
        next_at = time.monotonic()
        grounded = False
        for _ in range(a.count):
            if step:
                delay = next_at - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                next_at += step
            buttons = JUMP if a.jump and grounded else 0
            r = c.move(sp["entity"], a.velocity, a.dt, buttons=buttons, mode=MODES[a.mode])
            grounded = r["grounded"]
            rules = "rules=%s" % rule_names(r["rules"])
            if r["speed_excess"]:
                rules += " speed_excess=%r" % r["speed_excess"]
            if r["time_excess"]:
                rules += " time_excess=%r" % r["time_excess"]
            rules += " applied_dt=%r" % r["applied_dt"]
            if buttons:
                rules += " jump=1"
            if r["corrected"]:
                rules += " corrected=1"
            if a.bits:
                print("move seq=%d position=%s velocity=%s grounded=%d %s" % (
                    r["sequence"], ",".join(bits(x) for x in r["position"]),
                    ",".join(bits(x) for x in r["velocity"]), r["grounded"], rules))
            else:
                print("move seq=%d position=%r velocity=%r grounded=%d contacts=%d %s" % (
                    r["sequence"], r["position"], r["velocity"], r["grounded"], r["contacts"], rules))
        c.close()
    except ServerError as e:
        print("error %s: %s (sequence %d)" % (e.name, e, e.sequence), file=sys.stderr)
        return 1
    except (OSError, ConnectionError) as e:
        print("error %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
