#!/usr/bin/python3
"""interop.py - the official FlatBuffers Python runtime's side of the
interop test (interop.sh). Uses only the code flatc generated from
protocol/sweep.fbs (directory given by --gen) and the Debian
python3-flatbuffers runtime.

  interop.py --gen DIR build OUTDIR   py_NN.bin, py_NN.sp.bin, py_NN.json
  interop.py --gen DIR dump FILE [sp] decode with the generated code, print
                                      canonical JSON (see interop_tool.c)
  interop.py --gen DIR same A B       exit 0 iff the JSON files A and B hold
                                      equal values

The generated code does not verify: only dump buffers the official C++
Verifier accepted first (interop.sh does).
"""
import importlib
import json
import keyword
import struct
import sys

# sweep.fbs, table by table: (field, type). Types: u8/u16/u32/u64, f64,
# bool, str, bytes, vec3 (required struct), vec3opt (optional, null when
# absent), vec3zero (optional, zero when absent, as the C decoder does),
# u64s ([ulong], empty when absent, as the C decoder does), contacts,
# movers, entity_states, u32s ([uint]), hit_shapes, query_hits, medium (the
# optional Medium struct, all zero when absent, as the C decoder does),
# tables:<Table>.
SPEC = {
    'Hello': [('protocol_version', 'u32'), ('client_name', 'str'), ('auth_token', 'str'),
              ('world', 'str'), ('cookie', 'bytes'), ('padding', 'bytes'), ('max_datagram', 'u32')],
    'Welcome': [('protocol_version', 'u32'), ('session_id', 'u64'), ('tick_rate', 'f64'),
                ('map_name', 'str'), ('map_hash', 'bytes'), ('max_batch', 'u32'),
                ('max_frame_size', 'u32'), ('max_entities', 'u32'), ('role', 'u8'),
                ('identity', 'str'), ('time_bank', 'f64'), ('udp_key', 'u64')],
    'Spawn': [('radii', 'vec3'), ('position', 'vec3'), ('max_speed', 'f64'), ('step_height', 'f64'),
              ('spawn_point', 'u32'), ('player', 'bool')],
    'Spawned': [('entity', 'u32'), ('position', 'vec3'), ('radii', 'vec3'), ('rules', 'u32'),
                ('spawn_point', 'u32'), ('player', 'bool')],
    'Despawn': [('entity', 'u32')],
    'Despawned': [('entity', 'u32'), ('crushed_by', 'u32'), ('killed_by', 'u32'), ('reason', 'str')],
    'Move': [('entity', 'u32'), ('sequence', 'u32'), ('client_tick', 'u64'), ('velocity', 'vec3'),
             ('dt', 'f64'), ('claimed_position', 'vec3opt'), ('buttons', 'u32'), ('mode', 'u8')],
    'MoveResult': [('entity', 'u32'), ('sequence', 'u32'), ('server_tick', 'u64'),
                   ('position', 'vec3'), ('velocity', 'vec3'), ('grounded', 'bool'),
                   ('ground_normal', 'vec3zero'), ('ground_material', 'u32'),
                   ('contacts', 'contacts'), ('corrected', 'bool'), ('correction', 'f64'),
                   ('ground_mover', 'u32'), ('pushed_by', 'u32'), ('carried', 'bool'),
                   ('pushed', 'bool'), ('start_position', 'vec3opt'), ('rules', 'u32'),
                   ('speed_excess', 'f64'), ('time_excess', 'f64'), ('applied_dt', 'f64'),
                   ('launched_by', 'u32'), ('teleported_by', 'u32'), ('teleport_blocked', 'bool'),
                   ('hurt_by', 'u32'), ('damage', 'f64'), ('killed_by', 'u32'), ('entered', 'u32'),
                   ('left', 'u32'), ('crouched', 'bool'), ('stance_blocked', 'bool'), ('medium', 'medium')],
    'MoveBatch': [('moves', 'tables:Move')],
    'MoveResultBatch': [('results', 'tables:MoveResult')],
    'Collide': [('position', 'vec3'), ('radii', 'vec3'), ('velocity', 'vec3'), ('dt', 'f64'),
                ('grounded', 'bool')],
    'CollideResult': [('position', 'vec3'), ('velocity', 'vec3'), ('grounded', 'bool'),
                      ('ground_normal', 'vec3zero'), ('ground_material', 'u32'),
                      ('contacts', 'contacts'), ('ground_mover', 'u32')],
    'WorldState': [('tick', 'u64'), ('movers', 'movers'), ('mover_count', 'u32'), ('paths', 'paths')],
    'Ping': [('client_time', 'u64')],
    'Pong': [('client_time', 'u64'), ('server_time', 'u64')],
    'GetStats': [],
    'Stats': [('sessions', 'u32'), ('entities', 'u32'), ('moves_total', 'u64'),
              ('errors_total', 'u64'), ('tick_ns_p50', 'u64'), ('tick_ns_p99', 'u64'),
              ('movers', 'u32'), ('crushed_total', 'u64'), ('rules_total', 'u64s'),
              ('session_rules', 'u64s'), ('errors_by_code', 'u64s'), ('tcp_bytes_in', 'u64'),
              ('tcp_bytes_out', 'u64'), ('udp_bytes_in', 'u64'), ('udp_bytes_out', 'u64'),
              ('udp_dropped', 'u64'), ('ticks_total', 'u64'), ('tick_ns_total', 'u64'),
              ('move_ns_total', 'u64'), ('worlds', 'tables:WorldInfo'), ('worlds_open', 'u32')],
    'WorldInfo': [('world', 'u32'), ('name', 'str'), ('map', 'str'), ('sessions', 'u32'),
                  ('entities', 'u32'), ('triangles', 'u32'), ('tick', 'u64')],
    'Error': [('code', 'u16'), ('message', 'str'), ('sequence', 'u32'), ('entity', 'u32')],
    'Bye': [('reason', 'str')],
    'Challenge': [('cookie', 'bytes')],
    'WatchWorld': [('every', 'u32')],
    'MoverCommand': [('mover', 'str')],
    'MoverCommanded': [('mover', 'u32'), ('tick', 'u64')],
    'EntityCommand': [('entity', 'u32'), ('op', 'u8'), ('vector', 'vec3zero'), ('shapes', 'hit_shapes')],
    'EntityCommands': [('commands', 'tables:EntityCommand')],
    'EntityCommandResult': [('entity', 'u32'), ('op', 'u8'), ('code', 'u16'), ('message', 'str'),
                            ('position', 'vec3opt'), ('velocity', 'vec3opt'), ('radii', 'vec3opt'),
                            ('flags', 'u32')],
    'EntityCommandsResult': [('results', 'tables:EntityCommandResult')],
    'WatchEntities': [('every', 'u32')],
    'EntityStates': [('tick', 'u64'), ('entities', 'entity_states'), ('entity_count', 'u32')],
    'GetEntity': [('entity', 'u32')],
    'OpenWorld': [('map', 'str'), ('name', 'str')],
    'WorldOpened': [('world', 'u32'), ('name', 'str'), ('map_hash', 'bytes')],
    'CloseWorld': [('world', 'u32')],
    'WorldClosed': [('world', 'u32'), ('reason', 'str')],
    'QueryItem': [('kind', 'u8'), ('from', 'vec3zero'), ('to', 'vec3zero'), ('from_entity', 'u32'),
                  ('to_entity', 'u32'), ('radii', 'vec3zero'), ('radius', 'f64'), ('tick', 'u64'),
                  ('fraction', 'f64'), ('filter', 'u32'), ('ignore', 'u32s'), ('max_hits', 'u32')],
    'Query': [('items', 'tables:QueryItem')],
    'QueryAnswer': [('code', 'u16'), ('message', 'str'), ('tick', 'u64'), ('fraction', 'f64'),
                    ('flags', 'u32'), ('hits', 'query_hits')],
    'QueryResult': [('answers', 'tables:QueryAnswer'), ('first', 'u32')],
}
# Union Body, in order (type 1 first).
KINDS = ['Hello', 'Welcome', 'Spawn', 'Spawned', 'Despawn', 'Despawned', 'Move', 'MoveResult',
         'MoveBatch', 'MoveResultBatch', 'Collide', 'CollideResult', 'WorldState', 'Ping',
         'Pong', 'GetStats', 'Stats', 'Error', 'Bye', 'Challenge', 'WatchWorld', 'MoverCommand',
         'MoverCommanded', 'EntityCommands', 'EntityCommandsResult', 'WatchEntities', 'EntityStates',
         'GetEntity', 'OpenWorld', 'WorldOpened', 'CloseWorld', 'WorldClosed', 'Query', 'QueryResult']

W = None  # the generated package sweep.wire, set in main()


# The Medium struct's fields, in its order (CreateMedium's arguments).
MEDIUM = ['liquid', 'entered_liquid', 'left_liquid', 'ladder', 'liquid_type', 'liquid_level']


def camel(name):
    # flatc --python adds an underscore to a name that is a Python keyword.
    return ''.join(p.capitalize() for p in name.split('_')) + ('_' if keyword.iskeyword(name) else '')


def mod(table):
    return importlib.import_module('sweep.wire.' + table)


# --- canonical form ----------------------------------------------------------

def hbits(x):
    return '0x%016x' % struct.unpack('<Q', struct.pack('<d', x))[0]


def canon_vec(v):
    return None if v is None else [hbits(c) for c in v]


def canon_table(table, d):
    out = {}
    for name, typ in SPEC[table]:
        v = d.get(name)
        if typ in ('u8', 'u16', 'u32', 'u64'):
            out[name] = int(v or 0)
        elif typ == 'f64':
            out[name] = hbits(float(v or 0.0))
        elif typ == 'bool':
            out[name] = bool(v)
        elif typ in ('str',):
            out[name] = None if v is None else v.encode('utf-8').hex()
        elif typ == 'bytes':
            out[name] = None if v is None else bytes(v).hex()
        elif typ == 'vec3':
            out[name] = canon_vec(v)
        elif typ == 'vec3opt':
            out[name] = canon_vec(v)
        elif typ == 'vec3zero':
            out[name] = canon_vec(v if v is not None else (0.0, 0.0, 0.0))
        elif typ == 'u64s':
            out[name] = [int(x) for x in (v or [])]
        elif typ == 'medium':
            out[name] = {k: int((v or {}).get(k, 0)) for k in MEDIUM}
        elif typ == 'contacts':
            out[name] = [{'point': canon_vec(c['point']), 'normal': canon_vec(c['normal']),
                          'triangle': c['triangle'], 'material': c['material']} for c in (v or [])]
        elif typ == 'movers':
            out[name] = [{'id': m['id'], 'flags': m['flags'], 'position': canon_vec(m['position']),
                          'rotation': [hbits(q) for q in m['rotation']]} for m in (v or [])]
        elif typ == 'paths':
            out[name] = [{'path_tick': x['path_tick'], 'wait': x['wait'], 'dir': x['dir']} for x in (v or [])]
        elif typ == 'entity_states':
            out[name] = [{'entity': e['entity'], 'flags': e['flags'], 'owner_session': e['owner_session'],
                          'position': canon_vec(e['position']), 'velocity': canon_vec(e['velocity']),
                          'radii': canon_vec(e['radii']), 'ground_mover': e['ground_mover']}
                         for e in (v or [])]
        elif typ == 'u32s':
            out[name] = [int(x) for x in (v or [])]
        elif typ == 'hit_shapes':
            out[name] = [{'id': h['id'], 'kind': h['kind'], 'a': canon_vec(h['a']), 'b': canon_vec(h['b']),
                          'radii': canon_vec(h['radii'])} for h in (v or [])]
        elif typ == 'query_hits':
            out[name] = [{'kind': h['kind'], 'triangle': h['triangle'], 'material': h['material'],
                          'mover': h['mover'], 'entity': h['entity'], 'shape': h['shape'],
                          'fraction': hbits(h['fraction']), 'distance': hbits(h['distance']),
                          'point': canon_vec(h['point']), 'normal': canon_vec(h['normal'])} for h in (v or [])]
        elif typ.startswith('tables:'):
            out[name] = [canon_table(typ[7:], t) for t in (v or [])]
    return out


def canon(msg):
    return {'kind': msg['kind'], 'sequence': msg.get('sequence', 0),
            'server_tick': msg.get('server_tick', 0), 'key': msg.get('key', 0),
            'body': canon_table(msg['kind'], msg['body'])}


# --- building with the official runtime --------------------------------------

def build_table(b, table, d):
    m = mod(table)
    pre = {}
    # Children first: strings, vectors, sub-tables.
    for name, typ in SPEC[table]:
        v = d.get(name)
        if v is None:
            continue
        if typ == 'str':
            pre[name] = b.CreateString(v)
        elif typ == 'bytes':
            pre[name] = b.CreateByteVector(bytes(v))
        elif typ == 'u64s':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for x in reversed(v):
                b.PrependUint64(x)
            pre[name] = b.EndVector()
        elif typ == 'contacts':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for c in reversed(v):
                mod('Contact').CreateContact(b, *c['point'], *c['normal'], c['triangle'], c['material'])
            pre[name] = b.EndVector()
        elif typ == 'movers':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for x in reversed(v):
                mod('MoverTransform').CreateMoverTransform(b, x['id'], x['flags'], *x['position'],
                                                           *x['rotation'])
            pre[name] = b.EndVector()
        elif typ == 'paths':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for x in reversed(v):
                mod('MoverPath').CreateMoverPath(b, x['path_tick'], x['wait'], x['dir'])
            pre[name] = b.EndVector()
        elif typ == 'entity_states':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for e in reversed(v):
                mod('EntityState').CreateEntityState(b, e['entity'], e['flags'], e['owner_session'],
                                                     *e['position'], *e['velocity'], *e['radii'],
                                                     e['ground_mover'])
            pre[name] = b.EndVector()
        elif typ == 'u32s':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for x in reversed(v):
                b.PrependUint32(x)
            pre[name] = b.EndVector()
        elif typ == 'hit_shapes':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for h in reversed(v):
                mod('HitShape').CreateHitShape(b, h['id'], h['kind'], *h['a'], *h['b'], *h['radii'])
            pre[name] = b.EndVector()
        elif typ == 'query_hits':
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(v))
            for h in reversed(v):
                mod('QueryHit').CreateQueryHit(b, h['kind'], h['triangle'], h['material'], h['mover'],
                                               h['entity'], h['shape'], h['fraction'], h['distance'],
                                               *h['point'], *h['normal'])
            pre[name] = b.EndVector()
        elif typ.startswith('tables:'):
            refs = [build_table(b, typ[7:], t) for t in v]
            getattr(m, table + 'Start' + camel(name) + 'Vector')(b, len(refs))
            for r in reversed(refs):
                b.PrependUOffsetTRelative(r)
            pre[name] = b.EndVector()
    getattr(m, table + 'Start')(b)
    for name, typ in SPEC[table]:
        v = d.get(name)
        add = getattr(m, table + 'Add' + camel(name))
        if name in pre:
            add(b, pre[name])
        elif v is None:
            continue
        elif typ.startswith('vec3'):
            add(b, mod('Vec3').CreateVec3(b, *v))
        elif typ == 'medium':
            add(b, mod('Medium').CreateMedium(b, *(v[k] for k in MEDIUM)))
        else:
            add(b, v)
    return getattr(m, table + 'End')(b)


def build(msg, size_prefixed):
    import flatbuffers
    b = flatbuffers.Builder(1024)
    body = build_table(b, msg['kind'], msg['body'])
    M = mod('Message')
    M.MessageStart(b)
    M.MessageAddSequence(b, msg.get('sequence', 0))
    M.MessageAddServerTick(b, msg.get('server_tick', 0))
    M.MessageAddBodyType(b, KINDS.index(msg['kind']) + 1)
    M.MessageAddBody(b, body)
    M.MessageAddKey(b, msg.get('key', 0))
    root = M.MessageEnd(b)
    if size_prefixed:
        b.FinishSizePrefixed(root, file_identifier=b'SWP1')
    else:
        b.Finish(root, file_identifier=b'SWP1')
    return bytes(b.Output())


# --- reading with the official runtime ---------------------------------------

def vec3(v):
    return None if v is None else (v.X(), v.Y(), v.Z())


def read_table(table, t):
    d = {}
    for name, typ in SPEC[table]:
        acc = camel(name)
        if typ in ('u8', 'u16', 'u32', 'u64', 'f64', 'bool'):
            d[name] = getattr(t, acc)()
        elif typ == 'str':
            s = getattr(t, acc)()
            d[name] = None if s is None else s.decode('utf-8')
        elif typ == 'bytes':
            if getattr(t, acc + 'IsNone')():
                d[name] = None
            else:
                d[name] = bytes(getattr(t, acc)(j) for j in range(getattr(t, acc + 'Length')()))
        elif typ.startswith('vec3'):
            d[name] = vec3(getattr(t, acc)())
        elif typ == 'medium':
            x = getattr(t, acc)()
            d[name] = None if x is None else {k: getattr(x, camel(k))() for k in MEDIUM}
        elif typ == 'u64s':
            d[name] = [getattr(t, acc)(j) for j in range(getattr(t, acc + 'Length')())]
        elif typ == 'contacts':
            out = []
            for j in range(getattr(t, acc + 'Length')()):
                c = getattr(t, acc)(j)
                out.append({'point': vec3(c.Point(W.Vec3.Vec3())),
                            'normal': vec3(c.Normal(W.Vec3.Vec3())),
                            'triangle': c.Triangle(), 'material': c.Material()})
            d[name] = out
        elif typ == 'movers':
            out = []
            for j in range(getattr(t, acc + 'Length')()):
                x = getattr(t, acc)(j)
                q = x.Rotation(W.Quat.Quat())
                out.append({'id': x.Id(), 'flags': x.Flags(),
                            'position': vec3(x.Position(W.Vec3.Vec3())),
                            'rotation': (q.X(), q.Y(), q.Z(), q.W())})
            d[name] = out
        elif typ == 'paths':
            d[name] = [{'path_tick': x.PathTick(), 'wait': x.Wait(), 'dir': x.Dir()}
                       for x in (getattr(t, acc)(j) for j in range(getattr(t, acc + 'Length')()))]
        elif typ == 'entity_states':
            out = []
            for j in range(getattr(t, acc + 'Length')()):
                e = getattr(t, acc)(j)
                out.append({'entity': e.Entity(), 'flags': e.Flags(), 'owner_session': e.OwnerSession(),
                            'position': vec3(e.Position(W.Vec3.Vec3())),
                            'velocity': vec3(e.Velocity(W.Vec3.Vec3())),
                            'radii': vec3(e.Radii(W.Vec3.Vec3())), 'ground_mover': e.GroundMover()})
            d[name] = out
        elif typ == 'u32s':
            d[name] = [getattr(t, acc)(j) for j in range(getattr(t, acc + 'Length')())]
        elif typ == 'hit_shapes':
            out = []
            for j in range(getattr(t, acc + 'Length')()):
                h = getattr(t, acc)(j)
                out.append({'id': h.Id(), 'kind': h.Kind(), 'a': vec3(h.A(W.Vec3.Vec3())),
                            'b': vec3(h.B(W.Vec3.Vec3())), 'radii': vec3(h.Radii(W.Vec3.Vec3()))})
            d[name] = out
        elif typ == 'query_hits':
            out = []
            for j in range(getattr(t, acc + 'Length')()):
                h = getattr(t, acc)(j)
                out.append({'kind': h.Kind(), 'triangle': h.Triangle(), 'material': h.Material(),
                            'mover': h.Mover(), 'entity': h.Entity(), 'shape': h.Shape(),
                            'fraction': h.Fraction(), 'distance': h.Distance(),
                            'point': vec3(h.Point(W.Vec3.Vec3())), 'normal': vec3(h.Normal(W.Vec3.Vec3()))})
            d[name] = out
        elif typ.startswith('tables:'):
            d[name] = [read_table(typ[7:], getattr(t, acc)(j))
                       for j in range(getattr(t, acc + 'Length')())]
    return d


def read(buf, size_prefixed):
    M = mod('Message')
    off = 4 if size_prefixed else 0
    assert M.Message.MessageBufferHasIdentifier(buf, 0, size_prefixed=size_prefixed)
    root = M.Message.GetRootAs(buf, off)
    kind = KINDS[root.BodyType() - 1]
    u = root.Body()
    t = getattr(mod(kind), kind)()
    t.Init(u.Bytes, u.Pos)
    return {'kind': kind, 'sequence': root.Sequence(), 'server_tick': root.ServerTick(), 'key': root.Key(),
            'body': read_table(kind, t)}


# --- the samples the Python side builds ----------------------------------------

def samples():
    inf = float('inf')
    contact = lambda k: {'point': (float(k), k + 0.25, -1.5), 'normal': (0.0, 0.6, 0.8),
                         'triangle': 1000 + k, 'material': k}
    move = lambda i: {'entity': 3 + i, 'sequence': 500 + i, 'client_tick': 2**40 + i,
                      'velocity': (0.5 * i, -1.0, 2.0), 'dt': 1.0 / 30.0,
                      'claimed_position': (1.0, 2.0, 3.0 + i) if i % 3 == 0 else None,
                      'buttons': [0, 1, 2**32 - 1][i % 3], 'mode': i % 4}
    result = lambda i: {'entity': 3 + i, 'sequence': 500 + i, 'server_tick': 7 + i,
                        'position': (0.1, 0.2, 0.3 * i), 'velocity': (-0.0 if i == 5 else 1.0, 2.0, 3.0),
                        'grounded': i % 2 == 0, 'ground_normal': (0.0, 0.0, 1.0) if i % 2 == 0 else None,
                        'ground_material': i, 'contacts': [contact(k) for k in range(i % 9)],
                        'corrected': i % 4 == 1, 'correction': 0.125 if i % 4 == 1 else 0.0,
                        'ground_mover': 4 + i if i % 5 == 1 else 0,
                        'pushed_by': 1 + i if i % 3 == 0 else 0,
                        'carried': i % 6 == 0, 'pushed': i % 3 == 0 and i % 2 == 1,
                        'start_position': (i / 3.0, -2.0, 0.5) if i % 3 == 0 else None,
                        'rules': [0, 1, 8, 2**32 - 1, 2 | 32][i % 5],
                        'speed_excess': 95.0 if i % 5 in (1, 3) else 0.0,
                        'time_excess': 0.5 / (i + 1) if i % 5 in (2, 3) else 0.0,
                        'applied_dt': 0.0 if i % 4 == 2 else 1.0 / 60.0,
                        'launched_by': 2 + i if i % 4 == 1 else 0, 'entered': 2**32 - 1 if i % 4 == 1 else 0,
                        'hurt_by': 5 if i % 4 == 2 else 0, 'damage': 1.0 / 6.0 if i % 4 == 2 else 0.0,
                        'killed_by': 9 + i if i % 4 == 2 else 0, 'teleported_by': 3 if i % 4 == 3 else 0,
                        'teleport_blocked': i % 4 == 3, 'left': 1 if i % 4 == 3 else 0,
                        'crouched': i % 3 != 0, 'stance_blocked': i % 3 == 2,
                        'medium': ({'liquid': 7, 'entered_liquid': 7, 'left_liquid': 0, 'ladder': 0,
                                    'liquid_type': 3, 'liquid_level': 2} if i % 3 == 1 else
                                   {'liquid': 0, 'entered_liquid': 0, 'left_liquid': 2**32 - 2, 'ladder': 4 + i,
                                    'liquid_type': 0, 'liquid_level': 0} if i % 3 == 2 else None)}
    return [
        {'kind': 'Hello', 'sequence': 1, 'body': {'protocol_version': 1, 'client_name': 'python ✓',
                                                   'auth_token': 'tok', 'world': 'arena'}},
        {'kind': 'Hello', 'sequence': 1, 'body': {'protocol_version': 1, 'client_name': 'udp',
                                                   'cookie': bytes(range(24)), 'padding': bytes(200),
                                                   'max_datagram': 60000}},
        {'kind': 'Welcome', 'sequence': 1, 'server_tick': 5,
         'body': {'protocol_version': 1, 'session_id': 2**63 + 5, 'tick_rate': 128.0,
                  'map_name': 'dm_test', 'map_hash': bytes(range(32)), 'max_batch': 64,
                  'max_frame_size': 65536, 'max_entities': 8, 'role': 1, 'identity': 'bot-7',
                  'time_bank': 0.5, 'udp_key': 2**64 - 3}},
        {'kind': 'Welcome', 'sequence': 1,
         'body': {'protocol_version': 1, 'map_name': 'old server', 'map_hash': b''}},
        {'kind': 'Spawn', 'sequence': 2, 'body': {'radii': (0.5, 0.5, 1.8), 'position': (0.0, 0.0, 10.0),
                                                   'max_speed': 320.0, 'step_height': 18.0,
                                                   'spawn_point': 3, 'player': True}},
        {'kind': 'Spawned', 'sequence': 2, 'server_tick': 9,
         'body': {'entity': 1, 'position': (0.0, 0.0, 9.5), 'radii': (0.5, 0.5, 1.8),
                  'rules': 64 | 128, 'spawn_point': 2, 'player': True}},
        {'kind': 'Spawned', 'sequence': 2, 'server_tick': 9,
         'body': {'entity': 2, 'position': (1.0, 0.0, 9.5), 'radii': (0.5, 0.5, 1.8)}},
        {'kind': 'Despawn', 'sequence': 3, 'body': {'entity': 1}},
        {'kind': 'Despawned', 'sequence': 3, 'server_tick': 10, 'body': {'entity': 1}},
        {'kind': 'Despawned', 'server_tick': 10, 'body': {'entity': 2**32 - 1, 'crushed_by': 7}},
        {'kind': 'Despawned', 'server_tick': 11, 'body': {'entity': 5, 'killed_by': 2, 'reason': 'lava'}},
        {'kind': 'Move', 'sequence': 4, 'key': 2**64 - 1, 'body': move(0)},
        {'kind': 'Move', 'sequence': 4, 'body': dict(move(1), velocity=(inf, -inf, 1e-310))},
        {'kind': 'MoveResult', 'sequence': 4, 'server_tick': 11, 'body': result(8)},
        {'kind': 'MoveResult', 'sequence': 4, 'server_tick': 11, 'body': result(1)},
        {'kind': 'MoveBatch', 'sequence': 5, 'body': {'moves': [move(i) for i in range(64)]}},
        {'kind': 'MoveBatch', 'sequence': 5, 'body': {'moves': []}},
        {'kind': 'MoveResultBatch', 'sequence': 5, 'server_tick': 12,
         'body': {'results': [result(i) for i in range(64)]}},
        {'kind': 'Collide', 'sequence': 6, 'body': {'position': (1.0, 1.0, 1.0), 'radii': (1.0, 1.0, 2.0),
                                                     'velocity': (0.0, 5.0, 0.0), 'dt': 0.1, 'grounded': True}},
        {'kind': 'CollideResult', 'sequence': 6, 'server_tick': 13,
         'body': {'position': (1.0, 1.5, 1.0), 'velocity': (0.0, 5.0, 0.0), 'grounded': True,
                  'ground_normal': (0.0, 0.0, 1.0), 'ground_material': 4,
                  'contacts': [contact(0), contact(1), contact(2)], 'ground_mover': 2**32 - 1}},
        {'kind': 'WorldState', 'server_tick': 14,
         'body': {'tick': 14, 'movers': [{'id': i, 'flags': i & 7, 'position': (i, 2.0 * i, 0.5),
                                          'rotation': (0.0, 0.0, 0.6, 0.8)} for i in range(5)],
                  'mover_count': 5,
                  'paths': [{'path_tick': 3 * i, 'wait': 2**32 - 1 - i, 'dir': i % 3 - 1} for i in range(5)]}},
        {'kind': 'Ping', 'sequence': 7, 'body': {'client_time': 2**64 - 1}},
        {'kind': 'Pong', 'sequence': 7, 'body': {'client_time': 2**64 - 1, 'server_time': 123}},
        {'kind': 'GetStats', 'sequence': 8, 'body': {}},
        {'kind': 'Stats', 'sequence': 8, 'body': {'sessions': 1, 'entities': 2, 'moves_total': 3,
                                                   'errors_total': 4, 'tick_ns_p50': 5, 'tick_ns_p99': 6,
                                                   'movers': 7, 'crushed_total': 2**40,
                                                   'rules_total': [1, 2, 3, 2**64 - 1, 0, 0, 7, 8, 9],
                                                   'session_rules': [0] * 9,
                                                   'errors_by_code': [0] + [2**64 - 1 - i for i in range(30)],
                                                   'tcp_bytes_in': 10, 'tcp_bytes_out': 2**63,
                                                   'udp_bytes_in': 12, 'udp_bytes_out': 13, 'udp_dropped': 14,
                                                   'ticks_total': 15, 'tick_ns_total': 16,
                                                   'move_ns_total': 2**64 - 1,
                                                   'worlds': [{'world': 1 + i, 'name': 'match ✓ %d' % i,
                                                               'map': 'dm_test' if i else None,
                                                               'sessions': i, 'entities': 2 * i,
                                                               'triangles': 2**32 - 1 - i, 'tick': 2**40 + i}
                                                              for i in range(4)],
                                                   'worlds_open': 9}},
        {'kind': 'Error', 'sequence': 9, 'body': {'code': 25, 'message': 'bad cookie', 'sequence': 9,
                                                   'entity': 0}},
        {'kind': 'Bye', 'body': {'reason': 'bye'}},
        {'kind': 'Bye', 'body': {}},
        {'kind': 'Challenge', 'body': {'cookie': bytes(range(100, 132))}},
        {'kind': 'Error', 'sequence': 10, 'body': {'code': 28, 'message': 'no mover named "x"',
                                                    'sequence': 10}},
        {'kind': 'Error', 'sequence': 14, 'body': {'code': 30, 'message': 'spawn refused',
                                                    'sequence': 14, 'entity': 0}},
        {'kind': 'WatchWorld', 'sequence': 11, 'body': {'every': 2**32 - 1}},
        {'kind': 'WatchWorld', 'sequence': 12, 'body': {}},
        {'kind': 'MoverCommand', 'sequence': 13, 'body': {'mover': 'lift ✓'}},
        {'kind': 'MoverCommanded', 'sequence': 13, 'server_tick': 99,
         'body': {'mover': 3, 'tick': 100}},
        {'kind': 'EntityCommands', 'sequence': 15,
         'body': {'commands': [{'entity': 2**32 - 1 - i, 'op': i,
                                'vector': None if i == 4 else (i / 3.0, -0.0, 1e308)} for i in range(7)]}},
        {'kind': 'EntityCommands', 'sequence': 16, 'body': {'commands': []}},
        {'kind': 'EntityCommandsResult', 'sequence': 15, 'server_tick': 20,
         'body': {'results': [{'entity': 10 + i, 'op': i % 5, 'code': [0, 0, 32, 9, 2**16 - 1][i],
                               'message': None if i < 2 else 'refused ✓ %d' % i,
                               'position': None if i == 3 else (1.0 * i, 2.0, 3.0),
                               'velocity': None if i == 3 else (0.0, -0.0, -9.5),
                               'radii': None if i == 3 else (0.5, 0.5, 0.9 + i),
                               'flags': [0, 1, 0, 0, 2**32 - 1][i]} for i in range(5)]}},
        {'kind': 'WatchEntities', 'sequence': 17, 'body': {'every': 1}},
        {'kind': 'WatchEntities', 'sequence': 18, 'body': {}},
        {'kind': 'EntityStates', 'server_tick': 21,
         'body': {'tick': 21, 'entities': [{'entity': 7 * i + 1, 'flags': i & 3, 'owner_session': 2**63 + i,
                                            'position': (i, -2.0 * i, 0.5), 'velocity': (0.0, 0.0, -1.0),
                                            'radii': (0.4, 0.4, 0.9), 'ground_mover': i % 2}
                                           for i in range(6)],
                  'entity_count': 30}},
        {'kind': 'EntityStates', 'sequence': 19, 'server_tick': 21,
         'body': {'tick': 21, 'entities': [], 'entity_count': 0}},
        {'kind': 'GetEntity', 'sequence': 20, 'body': {'entity': 2**32 - 1}},
        {'kind': 'OpenWorld', 'sequence': 21, 'body': {'map': 'dm_test', 'name': 'match ✓'}},
        {'kind': 'OpenWorld', 'sequence': 22, 'body': {'map': ''}},
        {'kind': 'WorldOpened', 'sequence': 21, 'server_tick': 3,
         'body': {'world': 12, 'name': 'match ✓', 'map_hash': bytes(range(200, 232))}},
        {'kind': 'CloseWorld', 'sequence': 23, 'body': {'world': 12}},
        {'kind': 'WorldClosed', 'sequence': 23, 'body': {'world': 12, 'reason': 'CloseWorld'}},
        {'kind': 'WorldClosed', 'body': {'world': 2**32 - 1}},
        {'kind': 'EntityCommands', 'sequence': 25,
         'body': {'commands': [{'entity': 9, 'op': 5,
                                'shapes': [{'id': k + 1, 'kind': k, 'a': (0.0, 0.0, 0.6 - k / 3.0),
                                            'b': (0.0, -0.0, 0.1 * k), 'radii': (0.25, 0.25, 0.5)}
                                           for k in range(3)]},
                               {'entity': 10, 'op': 5, 'shapes': []}]}},
        {'kind': 'Query', 'sequence': 26,
         'body': {'items': [{'kind': i, 'from': (1.0 * i, -2.0, 1.0 / 3.0), 'to': (0.0, 50.0, 1e-300),
                             'from_entity': [0, 2**32 - 1][i % 2], 'to_entity': 5 if i == 2 else 0,
                             'radii': (0.5, 0.5, 0.9) if i == 3 else None, 'radius': 8.0 if i == 4 else 0.0,
                             'tick': 2**40 + i if i % 2 else 0, 'fraction': 0.75 if i % 2 else 0.0,
                             'filter': [0, 1, 4, 31, 2**32 - 1, 6][i], 'ignore': list(range(i * 3)),
                             'max_hits': i} for i in range(6)]}},
        {'kind': 'Query', 'sequence': 27, 'body': {'items': []}},
        {'kind': 'QueryResult', 'sequence': 26, 'server_tick': 40,
         'body': {'answers': [{'code': [0, 0, 35, 36, 2**16 - 1][i],
                               'message': 'too old ✓' if i == 2 else None, 'tick': 2**33 + i,
                               'fraction': 0.5 * (i % 2), 'flags': [0, 1, 0, 2, 2**32 - 1][i],
                               'hits': [{'kind': 1 + k % 3, 'triangle': 2**32 - 1 if k % 3 == 2 else 10 + k,
                                         'material': k, 'mover': 3 if k % 3 == 1 else 0,
                                         'entity': 77 if k % 3 == 2 else 0, 'shape': [2**32 - 1, 2][k % 2],
                                         'fraction': k / 7.0, 'distance': k * 1.5,
                                         'point': (k, -0.0, 2.0), 'normal': (0.0, 0.0, -1.0)}
                                        for k in range([1, 0, 0, 0, 10][i])]} for i in range(5)],
                  'first': 7}},
        {'kind': 'Error', 'sequence': 24, 'body': {'code': 34, 'message': 'world exists',
                                                    'sequence': 24}},
    ]


def main(argv):
    global W
    if len(argv) < 4 or argv[1] != '--gen':
        sys.exit(__doc__)
    sys.path.insert(0, argv[2])
    W = importlib.import_module('sweep.wire')
    for t in ['Vec3', 'Quat']:
        setattr(W, t, mod(t))
    cmd = argv[3]
    if cmd == 'build':
        outdir = argv[4]
        msgs = samples()
        kinds = {m['kind'] for m in msgs}
        assert kinds == set(KINDS), 'samples miss kinds: %s' % (set(KINDS) - kinds)
        for i, m in enumerate(msgs):
            for sp in (False, True):
                with open('%s/py_%02d%s.bin' % (outdir, i, '.sp' if sp else ''), 'wb') as f:
                    f.write(build(m, sp))
            with open('%s/py_%02d.json' % (outdir, i), 'w') as f:
                f.write(json.dumps(canon(m), sort_keys=True) + '\n')
    elif cmd == 'dump':
        with open(argv[4], 'rb') as f:
            buf = bytearray(f.read())
        sp = len(argv) > 5 and argv[5] == 'sp'
        print(json.dumps(canon(read(buf, sp)), sort_keys=True))
    elif cmd == 'same':
        with open(argv[4]) as a, open(argv[5]) as b:
            x, y = json.load(a), json.load(b)
        if x != y:
            for k in sorted(set(x) | set(y)):
                if x.get(k) != y.get(k):
                    print('differs at %r:\n  %s\n  %s' % (k, json.dumps(x.get(k))[:400],
                                                         json.dumps(y.get(k))[:400]), file=sys.stderr)
            sys.exit(1)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
